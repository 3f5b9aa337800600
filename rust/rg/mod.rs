//! `codesift-rg`: ripgrep 15's command line served by ripgrep's own crates (argv parsing in
//! `args`, config in `config`, which files in `haystack`, search and print in `search`), and
//! the hand-over to the real rg for anything it does not serve (`fallback`).
//!
//! Which files: a walk (`haystack`), or the daemon's index of every file with ripgrep's rules
//! applied at query time (`index`, `CODESIFT_RG_INDEX=never|auto|force`); searching and
//! printing are the same for both.

pub mod args;
pub mod config;
pub mod fallback;
pub mod haystack;
pub mod index;
pub mod messages;
pub mod search;

use std::collections::HashSet;
use std::ffi::OsString;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use grep_printer::{ColorSpecs, Stats, SummaryKind, UserColorSpec};
use grep_searcher::BinaryDetection;
use termcolor::WriteColor;

use args::{Args, BinaryMode, Boundary, CaseMode, ColorChoice, Context, Mode, ParseError};
use args::{PatternSource, SearchMode, TypeChange};
use haystack::{FileSet, Haystack, WalkOptions};
use search::{Printer, Worker};

/// Runs `codesift-rg` with this process's arguments and returns the exit status.
pub fn main() -> i32 {
    let argv: Vec<OsString> = std::env::args_os().skip(1).collect();
    if let Some(bad) = std::env::var_os("CODESIFT_RG_INDEX")
        .filter(|v| !v.is_empty() && !["never", "auto", "force"].iter().any(|ok| v == ok))
    {
        let _ = writeln!(
            io::stderr(),
            "codesift-rg: CODESIFT_RG_INDEX={} is not one of never, auto, force",
            bad.to_string_lossy()
        );
        return 2;
    }
    let mut full = vec![];
    let mut config_warnings = vec![];
    if !args::has_no_config(&argv) {
        let (cfg, warnings) = config::args();
        full.extend(cfg);
        config_warnings = warnings;
    }
    full.extend(argv.iter().cloned());
    let parsed = match args::parse(full.clone()) {
        Ok(parsed) => args::Args {
            command_line: full,
            ..parsed
        },
        Err(ParseError::Unsupported(flag)) => return hand_over(&argv, &flag, None),
        Err(ParseError::Usage(msg)) => return hand_over(&argv, "this command line", Some(msg)),
    };
    if let Some(long) = parsed.version {
        return print_version(long);
    }
    messages::configure(!parsed.no_messages, !parsed.no_ignore_messages);
    for w in config_warnings {
        messages::message(&w);
    }
    match run(parsed) {
        Ok(code) => code,
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => 0,
        Err(err) => {
            messages::eprint(&err.to_string());
            2
        }
    }
}

/// The ripgrep release whose command line, output and exit codes this serves.
pub const RIPGREP_VERSION: &str = "15.2.0";

/// ripgrep's `-V` and `--version` output, first line unchanged (tools parse it to check for
/// ripgrep and its version) and codesift-rg named on the last line. `features:-pcre2`: `-P`
/// is not served here (it runs the real rg when one is found).
fn version_text(long: bool) -> String {
    let short = format!("ripgrep {RIPGREP_VERSION}");
    if !long {
        return short;
    }
    let simd = |detect: &dyn Fn(&str) -> bool| -> String {
        ["SSE2", "SSSE3", "AVX2"]
            .iter()
            .map(|f| format!("{}{f}", if detect(f) { "+" } else { "-" }))
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut out = format!("{short}\n\nfeatures:-pcre2\n");
    if cfg!(target_arch = "x86_64") {
        out += &format!("simd(compile):{}\n", simd(&compile_feature));
        out += &format!("simd(runtime):{}\n", simd(&runtime_feature));
    }
    out += "\nPCRE2 is not available in this build of ripgrep.\n\n";
    out += &format!(
        "codesift-rg {}: ripgrep {RIPGREP_VERSION}'s command line on codesift's engine; \
         other command lines run the real rg",
        env!("CARGO_PKG_VERSION")
    );
    out
}

fn compile_feature(name: &str) -> bool {
    match name {
        "SSE2" => cfg!(target_feature = "sse2"),
        "SSSE3" => cfg!(target_feature = "ssse3"),
        "AVX2" => cfg!(target_feature = "avx2"),
        _ => false,
    }
}

#[cfg(target_arch = "x86_64")]
fn runtime_feature(name: &str) -> bool {
    match name {
        "SSE2" => std::arch::is_x86_feature_detected!("sse2"),
        "SSSE3" => std::arch::is_x86_feature_detected!("ssse3"),
        "AVX2" => std::arch::is_x86_feature_detected!("avx2"),
        _ => false,
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn runtime_feature(_: &str) -> bool {
    false
}

fn print_version(long: bool) -> i32 {
    match writeln!(io::stdout(), "{}", version_text(long)) {
        Ok(()) => 0,
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => 0,
        Err(_) => 2,
    }
}

/// Execs the real rg for argv this engine does not serve; with `CODESIFT_RG_FALLBACK=never`
/// a usage error is reported as ripgrep reports it and anything else is refused.
fn hand_over(argv: &[OsString], flag: &str, usage: Option<String>) -> i32 {
    if !fallback::allowed() {
        match usage {
            Some(msg) => messages::eprint(&msg),
            None => {
                let _ = writeln!(io::stderr(), "codesift-rg: {flag} is not supported");
            }
        }
        return 2;
    }
    let msg = fallback::exec(argv, flag);
    let _ = writeln!(io::stderr(), "codesift-rg: {msg}");
    2
}

fn other(msg: impl Into<String>) -> io::Error {
    io::Error::other(msg.into())
}

/// Everything a run needs, with ripgrep's defaults settled (tty, stdin, implicit path).
struct Run {
    mode: Mode,
    patterns: Vec<String>,
    files: FileSet,
    color: termcolor::ColorChoice,
    quiet: bool,
    quit_after_match: bool,
    file_separator: Option<Vec<u8>>,
    path_terminator: Option<u8>,
    is_tty: bool,
    invert_match: bool,
    max_count: Option<u64>,
    stats: bool,
    mmap: grep_searcher::MmapChoice,
}

fn run(mut a: Args) -> io::Result<i32> {
    // ripgrep reads `-v --count-matches` as `--count` and `-o --count` as `--count-matches`.
    match a.mode {
        Mode::Search(SearchMode::CountMatches) if a.invert_match => {
            a.mode = Mode::Search(SearchMode::Count)
        }
        Mode::Search(SearchMode::Count) if a.only_matching => {
            a.mode = Mode::Search(SearchMode::CountMatches)
        }
        _ => {}
    }
    if a.mode == Mode::Types {
        return print_types(&build_types(&a)?, a.color);
    }
    let is_tty = io::stdout().is_terminal();
    let cwd = std::env::current_dir()
        .map_err(|e| other(format!("failed to get current working directory: {e}")))?;
    let is_search = matches!(a.mode, Mode::Search(_));

    // Patterns: -e/-f, else the first positional argument.
    let mut stdin_consumed = false;
    let mut patterns = vec![];
    if is_search {
        if a.patterns.is_empty() {
            if a.positional.is_empty() {
                return Err(other(
                    "ripgrep requires at least one pattern to execute a search",
                ));
            }
            let pat = a.positional.remove(0);
            patterns.push(
                pat.into_string()
                    .map_err(|_| other("pattern given is not valid UTF-8"))?,
            );
        } else {
            let mut seen = HashSet::new();
            let mut add = |p: String| {
                if seen.insert(p.clone()) {
                    patterns.push(p);
                }
            };
            for src in std::mem::take(&mut a.patterns) {
                match src {
                    PatternSource::Regexp(p) => add(p),
                    PatternSource::File(path) if path == Path::new("-") => {
                        if stdin_consumed {
                            return Err(other(
                                "error reading -f/--file from stdin: stdin has already been consumed",
                            ));
                        }
                        grep_cli::patterns_from_stdin()?
                            .into_iter()
                            .for_each(&mut add);
                        stdin_consumed = true;
                    }
                    PatternSource::File(path) => grep_cli::patterns_from_path(&path)?
                        .into_iter()
                        .for_each(&mut add),
                }
            }
        }
    }

    // Paths: the rest, else stdin when it is readable (a file or a pipe), else ./ printed
    // without its ./ prefix.
    let mut paths: Vec<PathBuf> = vec![];
    for p in std::mem::take(&mut a.positional) {
        let p = PathBuf::from(p);
        if stdin_consumed && p == Path::new("-") {
            return Err(other(
                "error: attempted to read patterns from stdin while also searching stdin",
            ));
        }
        paths.push(p);
    }
    let (implicit_path, is_one_file) = if !paths.is_empty() {
        let one = paths.len() == 1 && (paths[0] == Path::new("-") || !paths[0].is_dir());
        (false, one)
    } else {
        let use_cwd = !grep_cli::is_readable_stdin() || stdin_consumed || !is_search;
        paths.push(PathBuf::from(if use_cwd { "./" } else { "-" }));
        (true, !use_cwd)
    };
    let only_stdin = paths.len() == 1 && paths[0] == Path::new("-");
    // After the patterns and paths, whose errors ripgrep reports first.
    let types = build_types(&a)?;

    let color = match a.color {
        ColorChoice::Auto if !is_tty => termcolor::ColorChoice::Never,
        ColorChoice::Auto => termcolor::ColorChoice::Auto,
        ColorChoice::Never => termcolor::ColorChoice::Never,
        ColorChoice::Always => termcolor::ColorChoice::Always,
        ColorChoice::Ansi => termcolor::ColorChoice::AlwaysAnsi,
    };
    let mut specs = grep_printer::default_color_specs();
    for c in &a.colors {
        specs.push(
            c.parse::<UserColorSpec>()
                .map_err(|e| other(format!("error parsing flag --colors: {e}")))?,
        );
    }
    let colors = ColorSpecs::new(&specs);
    let stats = a.stats || a.mode == Mode::Search(SearchMode::Json);
    let mmap = match a.mmap {
        // SAFETY: ripgrep's own reasoning: maps are read only and never outlive the search;
        // a file truncated meanwhile can at worst end the process (SIGBUS).
        Some(true) => unsafe { grep_searcher::MmapChoice::auto() },
        Some(false) => grep_searcher::MmapChoice::never(),
        None if paths.len() <= 10 && paths.iter().all(|p| p.is_file()) => unsafe {
            grep_searcher::MmapChoice::auto()
        },
        None => grep_searcher::MmapChoice::never(),
    };
    let column = a.column.unwrap_or(a.vimgrep);
    let heading = match a.heading {
        None => !a.vimgrep && is_tty,
        Some(false) => false,
        Some(true) => !a.vimgrep,
    };
    let path_terminator = a.null.then_some(b'\0');
    let quit_after_match = !stats && a.quiet;
    let threads = if a.sort.is_some() || is_one_file {
        1
    } else if let Some(t) = a.threads {
        t
    } else {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(12)
    };
    let with_filename = a.with_filename.unwrap_or(a.vimgrep || !is_one_file);
    let (before, after) = a.context.get();
    let file_separator = match a.mode {
        Mode::Search(SearchMode::Standard) => {
            if heading {
                Some(vec![])
            } else if matches!(a.context, Context::Limited { .. }) && (before > 0 || after > 0) {
                a.context_separator.clone()
            } else {
                None
            }
        }
        _ => None,
    };
    let line_number = a.line_number.unwrap_or(match a.mode {
        _ if a.quiet => false,
        Mode::Search(SearchMode::Standard) => (is_tty && !only_stdin) || column || a.vimgrep,
        Mode::Search(SearchMode::Json) => true,
        _ => false,
    });

    let overrides = build_globs(&a, &cwd)?;
    let builder = haystack::walk_builder(WalkOptions {
        paths: &paths,
        ignore_files: &a.ignore_file,
        no_ignore_files: a.no_ignore_files,
        max_depth: a.max_depth,
        follow: a.follow,
        max_filesize: a.max_filesize,
        threads,
        one_file_system: a.one_file_system,
        overrides,
        types,
        hidden: a.hidden,
        no_ignore_parent: a.no_ignore_parent,
        no_ignore_dot: a.no_ignore_dot,
        no_ignore_vcs: a.no_ignore_vcs,
        no_ignore_global: a.no_ignore_global,
        no_ignore_exclude: a.no_ignore_exclude,
        no_require_git: a.no_require_git,
        ignore_case_insensitive: a.ignore_file_case_insensitive,
        cwd: &cwd,
        sort: a.sort,
    });
    // The index path: the daemon's path table filtered by the walk's own rules.
    let index_mode = index::mode();
    let mut listed = None;
    let mut count_scan = false;
    let searches =
        !is_search || ((a.invert_match || !patterns.is_empty()) && a.max_count != Some(0));
    // `--files`: a list the daemon kept for this very command line, while the tree has not
    // changed; else the list printed is offered to it for next time.
    let mut offered = None;
    let mut kept_as_printed = None;
    if index_mode != index::IndexMode::Never && a.mode == Mode::Files {
        match index::files_listing(&a, &cwd, &paths, index_mode) {
            Ok(index::Listed::Kept(kept)) => {
                // Printed as kept (one write) when the printer would print the same bytes.
                let as_kept = color == termcolor::ColorChoice::Never
                    && a.path_separator.is_none()
                    && !a.null
                    && !a.quiet
                    && a.sort
                        .is_none_or(|s| s.kind == args::SortKind::Path && !s.reverse);
                if as_kept {
                    kept_as_printed = Some(kept);
                } else {
                    listed = Some(index::kept_haystacks(&kept));
                }
            }
            Ok(index::Listed::Miss(listing)) => offered = Some(listing),
            Err(why) => index::scanned(&format!("files: {why}")),
        }
    }
    let answered = listed.is_some() || kept_as_printed.is_some();
    // While the daemon selects (milliseconds), the matcher compiles on another thread: a
    // Unicode class such as `\w` takes as long to compile as the daemon takes to answer.
    let mut compiling = None;
    let mut offering = None;
    if index_mode != index::IndexMode::Never && searches && !answered {
        if matches!(a.mode, Mode::Search(_)) {
            let (a, patterns) = (a.clone(), patterns.clone());
            compiling = Some(std::thread::spawn(move || build_matcher(&a, &patterns)));
        }
        match index::refusal(&a, &paths) {
            Some(why) => index::scanned(why),
            None => {
                let found = index::haystacks(
                    &a,
                    &patterns,
                    &builder,
                    &cwd,
                    &paths,
                    implicit_path,
                    index_mode,
                );
                match found {
                    Ok(found) => {
                        listed = Some(found.haystacks);
                        // Offered while the search runs (the daemon answers in a moment).
                        if !found.verdicts.is_empty() {
                            let verdicts = found.verdicts;
                            offering =
                                Some(std::thread::spawn(move || index::offer_verdicts(verdicts)));
                        }
                    }
                    Err(why) => {
                        index::scanned(&why);
                        count_scan = index_mode == index::IndexMode::Auto;
                    }
                }
            }
        }
    }
    let files = FileSet {
        paths,
        implicit_path,
        threads,
        sort: a.sort,
        builder,
        listed,
        visited: Default::default(),
        stdout: if is_search {
            haystack::StdoutFile::get()
        } else {
            None
        },
    };
    let run = Run {
        mode: a.mode,
        patterns,
        files,
        color,
        quiet: a.quiet,
        quit_after_match,
        file_separator,
        path_terminator,
        is_tty,
        invert_match: a.invert_match,
        max_count: a.max_count,
        stats,
        mmap,
    };
    let reported_before = messages::reported();
    let matched = match run.mode {
        Mode::Files if kept_as_printed.is_some() => {
            let kept = kept_as_printed.unwrap_or_default();
            let mut out = io::stdout().lock();
            out.write_all(kept.as_bytes())?;
            out.flush()?;
            !kept.is_empty()
        }
        Mode::Files => {
            let printed = offered.as_ref().map(|_| Mutex::new(Vec::new()));
            let matched = list_files(&run, &a, printed.as_ref())?;
            if let (Some(listing), Some(printed)) = (&offered, printed) {
                let clean = !run.quit_after_match && messages::reported() == reported_before;
                index::store_listing(listing, &printed.into_inner().unwrap(), clean);
            }
            matched
        }
        Mode::Search(_) if !matches_possible(&run) => false,
        Mode::Search(mode) => {
            let matcher = match compiling.take().map(std::thread::JoinHandle::join) {
                Some(Ok(compiled)) => compiled?,
                _ => build_matcher(&a, &run.patterns)?,
            };
            let spec = WorkerSpec {
                run: &run,
                matcher: &matcher,
                a: &a,
                mode,
                colors: &colors,
                line_number,
                column,
                heading,
                with_filename,
            };
            if run.files.threads == 1 {
                search_sequential(&run, mode, |wtr| make_worker(spec, wtr))?
            } else {
                search_parallel(&run, mode, &|wtr| make_worker(spec, wtr))?
            }
        }
        Mode::Types => unreachable!("handled above"),
    };
    if let Some(offering) = offering {
        let _ = offering.join();
    }
    if count_scan {
        index::after_scan(&run.files.paths, run.files.visited.load(Ordering::Relaxed));
    }
    Ok(if matched && (run.quiet || !messages::errored()) {
        0
    } else if messages::errored() {
        2
    } else {
        1
    })
}

fn matches_possible(run: &Run) -> bool {
    (run.invert_match || !run.patterns.is_empty()) && run.max_count != Some(0)
}

fn build_types(a: &Args) -> io::Result<ignore::types::Types> {
    let mut b = ignore::types::TypesBuilder::new();
    b.add_defaults();
    for change in &a.type_changes {
        match change {
            TypeChange::Clear(name) => {
                b.clear(name);
            }
            TypeChange::Add(def) => {
                b.add_def(def).map_err(|e| other(e.to_string()))?;
            }
            TypeChange::Select(name) => {
                b.select(name);
            }
            TypeChange::Negate(name) => {
                b.negate(name);
            }
        }
    }
    b.build().map_err(|e| other(e.to_string()))
}

fn build_globs(a: &Args, cwd: &Path) -> io::Result<ignore::overrides::Override> {
    if a.globs.is_empty() && a.iglobs.is_empty() {
        return Ok(ignore::overrides::Override::empty());
    }
    let err = |e: ignore::Error| other(e.to_string());
    let mut b = ignore::overrides::OverrideBuilder::new(cwd);
    if a.glob_case_insensitive {
        b.case_insensitive(true).map_err(err)?;
    }
    for g in &a.globs {
        b.add(g).map_err(err)?;
    }
    b.case_insensitive(true).map_err(err)?;
    for g in &a.iglobs {
        b.add(g).map_err(err)?;
    }
    b.build().map_err(err)
}

fn print_types(types: &ignore::types::Types, color: ColorChoice) -> io::Result<i32> {
    let _ = color;
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

fn stdout(run: &Run) -> grep_cli::StandardStream {
    if run.is_tty {
        grep_cli::stdout_buffered_line(run.color)
    } else {
        grep_cli::stdout_buffered_block(run.color)
    }
}

/// Prints the files; `printed` (when given) receives each path printed, in order.
fn list_files(run: &Run, a: &Args, printed: Option<&Mutex<Vec<PathBuf>>>) -> io::Result<bool> {
    let mut printer = grep_printer::PathPrinterBuilder::new()
        .separator(a.path_separator)
        .terminator(run.path_terminator.unwrap_or(b'\n'))
        .build(stdout(run));
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
                printed.lock().unwrap().push(h.path);
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
                    printed.lock().unwrap().push(h.path);
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

fn build_matcher(a: &Args, patterns: &[String]) -> io::Result<grep_regex::RegexMatcher> {
    let mut b = grep_regex::RegexMatcherBuilder::new();
    b.multi_line(true)
        .unicode(!a.no_unicode)
        .octal(false)
        .fixed_strings(a.fixed_strings);
    match a.case {
        CaseMode::Sensitive => b.case_insensitive(false),
        CaseMode::Insensitive => b.case_insensitive(true),
        CaseMode::Smart => b.case_smart(true),
    };
    match a.boundary {
        Some(Boundary::Line) => {
            b.whole_line(true);
        }
        Some(Boundary::Word) => {
            b.word(true);
        }
        None => {}
    }
    if a.multiline {
        b.dot_matches_new_line(a.multiline_dotall);
        if a.crlf {
            b.crlf(true).line_terminator(None);
        }
    } else {
        b.line_terminator(Some(b'\n')).dot_matches_new_line(false);
        if a.crlf {
            b.crlf(true);
        }
        if a.null_data {
            b.line_terminator(Some(b'\0'));
        }
    }
    if let Some(limit) = a.regex_size_limit {
        b.size_limit(limit);
    }
    if let Some(limit) = a.dfa_size_limit {
        b.dfa_size_limit(limit);
    }
    if a.binary != BinaryMode::AsText && !a.null_data {
        b.ban_byte(Some(b'\0'));
    }
    b.build_many(patterns)
        .map_err(|e| other(suggest(e.to_string())))
}

/// ripgrep's hints after a regex error (multiline for a literal newline, text mode for NUL).
fn suggest(msg: String) -> String {
    if msg.contains("the literal") && msg.contains("not allowed") {
        format!(
            "{msg}\n\nConsider enabling multiline mode with the --multiline flag (or -U for \
             short).\nWhen multiline mode is enabled, new line characters can be matched."
        )
    } else if msg.contains("pattern contains \"\\0\"") {
        format!(
            "{msg}\n\nConsider enabling text mode with the --text flag (or -a for short). \
             Otherwise,\nbinary detection is enabled and matching a NUL byte is impossible."
        )
    } else {
        msg
    }
}

/// What a search's workers are made of: each thread makes its own, writing to its own
/// output (the terminal, or a buffer per thread).
#[derive(Clone, Copy)]
struct WorkerSpec<'a> {
    run: &'a Run,
    /// Compiled once: a Unicode class such as `\w` takes milliseconds to compile, and each
    /// thread's worker gets a clone (cheap: the compiled parts are shared).
    matcher: &'a grep_regex::RegexMatcher,
    a: &'a Args,
    mode: SearchMode,
    colors: &'a ColorSpecs,
    line_number: bool,
    column: bool,
    heading: bool,
    with_filename: bool,
}

fn make_worker<W: WriteColor>(spec: WorkerSpec<'_>, wtr: W) -> io::Result<Worker<W>> {
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
        (Some(kind), _) => Printer::Summary(
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
        (None, SearchMode::Json) => Printer::Json(
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
            Printer::Standard(b.build(wtr))
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
        Some(p) => Some(grep_cli::resolve_binary(p).map_err(|e| other(e.to_string()))?),
        None => None,
    };
    let preprocessor_globs = if a.pre_globs.is_empty() {
        ignore::overrides::Override::empty()
    } else {
        let cwd = std::env::current_dir()?;
        let mut b = ignore::overrides::OverrideBuilder::new(cwd);
        for g in &a.pre_globs {
            b.add(g).map_err(|e| other(e.to_string()))?;
        }
        b.build().map_err(|e| other(e.to_string()))?
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

fn search_sequential(
    run: &Run,
    mode: SearchMode,
    make: impl Fn(grep_cli::StandardStream) -> io::Result<Worker<grep_cli::StandardStream>>,
) -> io::Result<bool> {
    let started = std::time::Instant::now();
    let mut worker = make(stdout(run))?;
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
type MakeWorker<'a> =
    dyn Fn(termcolor::Buffer) -> io::Result<Worker<termcolor::Buffer>> + Sync + 'a;

fn search_parallel(run: &Run, mode: SearchMode, make: &MakeWorker<'_>) -> io::Result<bool> {
    let started = std::time::Instant::now();
    let mut bufwtr = termcolor::BufferWriter::stdout(run.color);
    bufwtr.separator(run.file_separator.clone());
    let matched = AtomicBool::new(false);
    let searched = AtomicBool::new(false);
    let stats = Mutex::new(run.stats.then(Stats::new));
    // Build one worker first so that a bad pattern is reported once, before the walk.
    let first = make(bufwtr.buffer())?;
    let first = Mutex::new(Some(first));
    run.files.parallel(|| {
        let (bufwtr, matched, searched, stats) = (&bufwtr, &matched, &searched, &stats);
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
            if let Err(e) = bufwtr.print(worker.printer.get_mut()) {
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
        let _ = bufwtr.print(&buf);
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
