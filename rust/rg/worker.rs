//! A search's workers (searcher, printer, binary handling, preprocessor: one per thread) and
//! the search itself, on one thread or many, with `--stats` and `--json`'s summary.

use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use grep_printer::{ColorSpecs, Stats, SummaryKind};
use grep_searcher::BinaryDetection;
use termcolor::WriteColor;

use super::args::{Args, BinaryMode, Context, SearchMode};
use super::gather::Output;
use super::haystack::Haystack;
use super::messages;
use super::run::Run;
use super::search::{RgPrinter, Worker};

/// What a search's workers are made of: each thread makes its own, writing to its own
/// output (the terminal, or a buffer per thread).
#[derive(Clone, Copy)]
pub(super) struct WorkerSpec<'a> {
    pub(super) run: &'a Run,
    /// Compiled once: a Unicode class such as `\w` takes milliseconds to compile, and each
    /// thread's worker gets a clone (cheap: the compiled parts are shared).
    pub(super) matcher: &'a super::matcher::RgMatcher,
    pub(super) a: &'a Args,
    pub(super) mode: SearchMode,
    pub(super) colors: &'a ColorSpecs,
    pub(super) line_number: bool,
    pub(super) column: bool,
    pub(super) heading: bool,
    pub(super) with_filename: bool,
}

pub(super) fn make_worker<W: WriteColor>(spec: WorkerSpec<'_>, wtr: W) -> io::Result<Worker<W>> {
    let WorkerSpec {
        run,
        matcher,
        a,
        mode,
        colors,
        line_number,
        column,
        heading,
        with_filename,
    } = spec;
    let matcher = matcher.clone();
    let line_term = if a.crlf {
        grep_matcher::LineTerminator::crlf()
    } else if a.null_data {
        grep_matcher::LineTerminator::byte(b'\0')
    } else {
        grep_matcher::LineTerminator::byte(b'\n')
    };
    let mut sb = grep_searcher::SearcherBuilder::new();
    sb.max_matches(a.max_count)
        .line_terminator(line_term)
        .invert_match(a.invert_match)
        .line_number(line_number)
        .multi_line(a.multiline)
        .memory_map(run.mmap.clone())
        .stop_on_nonmatch(a.stop_on_nonmatch);
    match &a.encoding {
        None => {}
        Some(None) => {
            sb.bom_sniffing(false);
        }
        Some(Some(label)) => {
            sb.encoding(grep_searcher::Encoding::new(label).ok());
        }
    }
    match a.context {
        Context::Passthru => {
            sb.passthru(true);
        }
        Context::Limited { .. } => {
            let (before, after) = a.context.get();
            sb.before_context(before).after_context(after);
        }
    }
    let searcher = sb.build();
    let summary_kind = if run.quiet {
        Some(match mode {
            SearchMode::FilesWithoutMatch => SummaryKind::QuietWithoutMatch,
            _ => SummaryKind::QuietWithMatch,
        })
    } else {
        match mode {
            SearchMode::FilesWithMatches => Some(SummaryKind::PathWithMatch),
            SearchMode::FilesWithoutMatch => Some(SummaryKind::PathWithoutMatch),
            SearchMode::Count => Some(SummaryKind::Count),
            SearchMode::CountMatches => Some(SummaryKind::CountMatches),
            SearchMode::Json | SearchMode::Standard => None,
        }
    };
    let printer = match (summary_kind, mode) {
        (Some(kind), _) => RgPrinter::Summary(
            grep_printer::SummaryBuilder::new()
                .color_specs(colors.clone())
                .exclude_zero(!a.include_zero)
                .kind(kind)
                .path(with_filename)
                .path_terminator(run.path_terminator)
                .separator_field(b":".to_vec())
                .separator_path(a.path_separator)
                .stats(run.stats)
                .build(wtr),
        ),
        (None, SearchMode::Json) => RgPrinter::Json(
            grep_printer::JSONBuilder::new()
                .pretty(false)
                .always_begin_end(false)
                .replacement(a.replace.clone())
                .build(wtr),
        ),
        (None, _) => {
            let mut b = grep_printer::StandardBuilder::new();
            b.byte_offset(a.byte_offset)
                .color_specs(colors.clone())
                .column(column)
                .heading(heading)
                .max_columns_preview(a.max_columns_preview)
                .max_columns(a.max_columns)
                .only_matching(a.only_matching)
                .path(with_filename)
                .path_terminator(run.path_terminator)
                .per_match_one_line(true)
                .per_match(a.vimgrep)
                .replacement(a.replace.clone())
                .separator_context(a.context_separator.clone())
                .separator_field_context(a.field_context_separator.clone())
                .separator_field_match(a.field_match_separator.clone())
                .separator_path(a.path_separator)
                .stats(run.stats)
                .trim_ascii(a.trim);
            if run.files.threads == 1 {
                b.separator_search(run.file_separator.clone());
            }
            RgPrinter::Standard(b.build(wtr))
        }
    };
    let (binary_explicit, binary_implicit) = match a.binary {
        _ if a.null_data => (BinaryDetection::none(), BinaryDetection::none()),
        BinaryMode::AsText => (BinaryDetection::none(), BinaryDetection::none()),
        BinaryMode::SearchAndSuppress => (
            BinaryDetection::convert(b'\0'),
            BinaryDetection::convert(b'\0'),
        ),
        BinaryMode::Auto => (
            BinaryDetection::convert(b'\0'),
            BinaryDetection::quit(b'\0'),
        ),
    };
    let decompress = a.search_zip.then(grep_cli::DecompressionReaderBuilder::new);
    let preprocessor = match &a.pre {
        Some(p) => Some(grep_cli::resolve_binary(p).map_err(|e| io::Error::other(e.to_string()))?),
        None => None,
    };
    let preprocessor_globs = if a.pre_globs.is_empty() {
        ignore::overrides::Override::empty()
    } else {
        let cwd = std::env::current_dir()?;
        let mut b = ignore::overrides::OverrideBuilder::new(cwd);
        for g in &a.pre_globs {
            b.add(g).map_err(|e| io::Error::other(e.to_string()))?;
        }
        b.build().map_err(|e| io::Error::other(e.to_string()))?
    };
    Ok(Worker {
        matcher,
        searcher,
        printer,
        binary_explicit,
        binary_implicit,
        decompress,
        preprocessor,
        preprocessor_globs,
    })
}

fn no_files_searched() {
    messages::err(
        "No files were searched, which means ripgrep probably applied a filter you didn't \
         expect.\nRunning with --debug will show why files are being skipped.",
    );
}

pub(super) fn search_sequential(
    run: &Run,
    mode: SearchMode,
    make: impl Fn(grep_cli::StandardStream) -> io::Result<Worker<grep_cli::StandardStream>>,
) -> io::Result<bool> {
    let started = std::time::Instant::now();
    let mut worker = make(run.stdout())?;
    let mut matched = false;
    let mut searched = false;
    let mut stats = run.stats.then(Stats::new);
    run.files.sequential(|h| {
        searched = true;
        let result = match worker.search(&h) {
            Ok(r) => r,
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return false,
            Err(e) => {
                messages::err(&format!("{}: {}", h.path.display(), e));
                return true;
            }
        };
        matched = matched || result.has_match;
        if let (Some(total), Some(s)) = (stats.as_mut(), result.stats.as_ref()) {
            *total += s;
        }
        !(matched && run.quit_after_match)
    });
    if run.files.implicit_path && !searched {
        no_files_searched();
    }
    let out = worker.printer.get_mut();
    if let Some(stats) = &stats {
        let _ = print_json_stats(mode, stats, started, &mut *out);
    }
    match out.flush() {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => return Err(e),
        _ => {}
    }
    Ok(matched)
}

/// A search by `run.files.threads` threads, each with a worker `make` gives it.
pub(super) type MakeWorker<'a> =
    dyn Fn(termcolor::Buffer) -> io::Result<Worker<termcolor::Buffer>> + Sync + 'a;

pub(super) fn search_parallel(
    run: &Run,
    mode: SearchMode,
    make: &MakeWorker<'_>,
) -> io::Result<bool> {
    let started = std::time::Instant::now();
    let mut bufwtr = termcolor::BufferWriter::stdout(run.color);
    bufwtr.separator(run.file_separator.clone());
    let output = Output::new(&bufwtr, run.gather, run.file_separator.clone());
    let matched = AtomicBool::new(false);
    let searched = AtomicBool::new(false);
    let stats = Mutex::new(run.stats.then(Stats::new));
    // Build one worker first so that a bad pattern is reported once, before the walk.
    let first = make(bufwtr.buffer())?;
    let first = Mutex::new(Some(first));
    run.files.parallel(|| {
        let (bufwtr, output) = (&bufwtr, &output);
        let (matched, searched, stats) = (&matched, &searched, &stats);
        let mut worker = match first.lock().unwrap().take() {
            Some(w) => w,
            None => make(bufwtr.buffer()).expect("the pattern compiled once already"),
        };
        Box::new(move |h: Haystack| {
            searched.store(true, Ordering::SeqCst);
            worker.printer.get_mut().clear();
            let result = match worker.search(&h) {
                Ok(r) => r,
                Err(e) => {
                    messages::err(&format!("{}: {}", h.path.display(), e));
                    return true;
                }
            };
            if result.has_match {
                matched.store(true, Ordering::SeqCst);
            }
            if let (Some(total), Some(s)) = (stats.lock().unwrap().as_mut(), result.stats.as_ref())
            {
                *total += s;
            }
            if let Err(e) = output.print(worker.printer.get_mut()) {
                if e.kind() == io::ErrorKind::BrokenPipe {
                    return false;
                }
                messages::err(&format!("{}: {}", h.path.display(), e));
            }
            !(matched.load(Ordering::SeqCst) && run.quit_after_match)
        })
    });
    if run.files.implicit_path && !searched.load(Ordering::SeqCst) {
        no_files_searched();
    }
    if let Some(stats) = stats.into_inner().unwrap() {
        let mut buf = bufwtr.buffer();
        let _ = print_json_stats(mode, &stats, started, &mut buf);
        let _ = output.print(&buf);
    }
    match output.finish() {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => messages::err(&e.to_string()),
        _ => {}
    }
    Ok(matched.load(Ordering::SeqCst))
}

/// `--stats`, and the closing `summary` message of `--json`.
fn print_json_stats<W: Write>(
    mode: SearchMode,
    stats: &Stats,
    started: std::time::Instant,
    mut wtr: W,
) -> io::Result<()> {
    let elapsed = started.elapsed();
    if mode != SearchMode::Json {
        return write!(
            wtr,
            "\n{} matches\n{} matched lines\n{} files contained matches\n{} files searched\n\
             {} bytes printed\n{} bytes searched\n{:0.6} seconds spent searching\n\
             {:0.6} seconds total\n",
            stats.matches(),
            stats.matched_lines(),
            stats.searches_with_match(),
            stats.searches(),
            stats.bytes_printed(),
            stats.bytes_searched(),
            stats.elapsed().as_secs_f64(),
            elapsed.as_secs_f64(),
        );
    }
    let value = serde_json::json!({
        "type": "summary",
        "data": {
            "stats": stats,
            "elapsed_total": {
                "secs": elapsed.as_secs(),
                "nanos": elapsed.subsec_nanos(),
                "human": format!("{:0.6}s", elapsed.as_secs_f64()),
            },
        }
    });
    serde_json::to_writer(&mut wtr, &value)?;
    wtr.write_all(b"\n")
}
