//! Runs that print names, not matches: `--files` (the files a search would search) and
//! `--type-list`.

use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use super::args::Args;
use super::haystack::Haystack;
use super::kept_list::ListingOffer;
use super::run::Run;

/// `--type-list`: every type and its globs, one a line (exit 1 when there are none).
pub(super) fn print_types(types: &ignore::types::Types) -> io::Result<i32> {
    let mut out = grep_cli::stdout(termcolor::ColorChoice::Never);
    let mut count = 0;
    for def in types.definitions() {
        count += 1;
        out.write_all(def.name().as_bytes())?;
        out.write_all(b": ")?;
        out.write_all(def.globs().join(", ").as_bytes())?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(if count == 0 { 1 } else { 0 })
}

/// Prints the files; `printed` (when given) receives each path printed, in order.
pub(super) fn list_files(
    run: &Run,
    a: &Args,
    printed: Option<&Mutex<ListingOffer>>,
) -> io::Result<bool> {
    let mut printer = grep_printer::PathPrinterBuilder::new()
        .separator(a.path_separator)
        .terminator(run.path_terminator.unwrap_or(b'\n'))
        .build(run.stdout());
    let mut matched = false;
    let mut result = Ok(());
    // The index's list is printed as it comes: no walk to spread over threads.
    if run.files.threads == 1 || run.files.listed.is_some() {
        run.files.sequential(|h| {
            matched = true;
            if run.quit_after_match {
                return false;
            }
            if let Err(e) = printer.write(&h.path) {
                result = Err(e);
                return false;
            }
            if let Some(printed) = printed {
                printed.lock().unwrap().push(&h.path);
            }
            true
        });
    } else {
        let printer = Mutex::new(printer);
        let any = AtomicBool::new(false);
        let failed: Mutex<Option<io::Error>> = Mutex::new(None);
        run.files.parallel(|| {
            let (printer, any, failed) = (&printer, &any, &failed);
            Box::new(move |h: Haystack| {
                any.store(true, Ordering::SeqCst);
                if run.quit_after_match {
                    return false;
                }
                let mut p = printer.lock().unwrap();
                if let Err(e) = p.write(&h.path) {
                    *failed.lock().unwrap() = Some(e);
                    return false;
                }
                if let Some(printed) = printed {
                    printed.lock().unwrap().push(&h.path);
                }
                true
            })
        });
        matched = any.load(Ordering::SeqCst);
        if let Some(e) = failed.into_inner().unwrap() {
            result = Err(e);
        }
        // The printer's buffered stdout is flushed when it is dropped.
        drop(printer);
        return result.map(|_| matched);
    }
    drop(printer);
    result?;
    Ok(matched)
}
