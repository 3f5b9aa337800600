//! One run: ripgrep's defaults settled from the command line (patterns, paths, tty, colors,
//! threads, separators), the files chosen (a walk, or the index through `index`), then the
//! files listed or searched, and the exit status.

use std::collections::HashSet;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::Ordering;

use grep_printer::{ColorSpecs, UserColorSpec};

use super::args::{self, Args, ColorChoice, Context, Engine, Mode, PatternSource, SearchMode};
use super::haystack::{self, FileSet};
use super::walk::{self, RgWalk};
use super::{index, kept_list, listing, matcher, messages, worker};
use crate::index::handle::Mode as IndexMode;

/// Everything a run needs, with ripgrep's defaults settled (tty, stdin, implicit path).
pub(super) struct Run {
    pub(super) mode: Mode,
    pub(super) patterns: Vec<String>,
    pub(super) files: FileSet,
    pub(super) color: termcolor::ColorChoice,
    pub(super) quiet: bool,
    pub(super) quit_after_match: bool,
    pub(super) file_separator: Option<Vec<u8>>,
    pub(super) path_terminator: Option<u8>,
    pub(super) is_tty: bool,
    /// Whether a parallel search's output is gathered into blocks (`super::gather`):
    /// not on a terminal, nor with `--line-buffered`.
    pub(super) gather: bool,
    pub(super) invert_match: bool,
    pub(super) max_count: Option<u64>,
    pub(super) stats: bool,
    pub(super) mmap: grep_searcher::MmapChoice,
}

pub(super) fn run(mut a: Args) -> io::Result<i32> {
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
        return listing::print_types(&walk::build_types(&a)?);
    }
    let is_tty = io::stdout().is_terminal();
    let cwd = std::env::current_dir()
        .map_err(|e| io::Error::other(format!("failed to get current working directory: {e}")))?;
    let is_search = matches!(a.mode, Mode::Search(_));

    // Patterns: -e/-f, else the first positional argument.
    let mut stdin_consumed = false;
    let mut patterns = vec![];
    if is_search {
        if a.patterns.is_empty() {
            if a.positional.is_empty() {
                return Err(io::Error::other(
                    "ripgrep requires at least one pattern to execute a search",
                ));
            }
            let pat = a.positional.remove(0);
            patterns.push(
                pat.into_string()
                    .map_err(|_| io::Error::other("pattern given is not valid UTF-8"))?,
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
                            return Err(io::Error::other(
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
            return Err(io::Error::other(
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
    let types = walk::build_types(&a)?;

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
                .map_err(|e| io::Error::other(format!("error parsing flag --colors: {e}")))?,
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

    let overrides = walk::build_globs(&a, &cwd)?;
    let builder = RgWalk {
        args: &a,
        paths: &paths,
        threads,
        cwd: &cwd,
        overrides,
        types,
    }
    .builder();
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
    if index_mode != IndexMode::Off && a.mode == Mode::Files {
        match kept_list::files_listing(&a, &cwd, &paths, index_mode) {
            Ok(kept_list::FilesAnswer::Kept(kept)) => {
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
                    listed = Some(kept_list::kept_haystacks(&kept));
                }
            }
            Ok(kept_list::FilesAnswer::Miss(listing)) => offered = Some(listing),
            Err(why) => index::scanned(&format!("files: {why}")),
        }
    }
    let answered = listed.is_some() || kept_as_printed.is_some();
    // While the daemon selects (milliseconds), the matcher compiles on another thread: a
    // Unicode class such as `\w` takes as long to compile as the daemon takes to answer.
    let mut compiling = None;
    let mut compiled = None;
    let mut offering = None;
    if index_mode != IndexMode::Off && searches && !answered {
        if matches!(a.mode, Mode::Search(_)) {
            if a.engine == Engine::Auto {
                // `auto` is settled before the index is asked: it narrows by Rust regex
                // patterns only (a PCRE2 pattern is not planned from another syntax's parse).
                let built = matcher::build_matcher(&a, &patterns);
                if let Ok(m) = &built {
                    a.engine = m.engine();
                }
                compiled = Some(built);
            } else {
                let (a, patterns) = (a.clone(), patterns.clone());
                compiling = Some(std::thread::spawn(move || {
                    matcher::build_matcher(&a, &patterns)
                }));
            }
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
                        count_scan = index_mode == IndexMode::Auto;
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
        gather: !is_tty && !a.line_buffered,
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
            let printed = offered.as_ref().map(|o| Mutex::new(o.offer()));
            let matched = listing::list_files(&run, &a, printed.as_ref())?;
            if let (Some(listing), Some(printed)) = (&offered, printed) {
                let clean = !run.quit_after_match && messages::reported() == reported_before;
                kept_list::store_listing(listing, printed.into_inner().unwrap(), clean);
            }
            matched
        }
        Mode::Search(_) if !matches_possible(&run) => false,
        Mode::Search(mode) => {
            let matcher = match (compiled.take(), compiling.take().map(|c| c.join())) {
                (Some(built), _) | (None, Some(Ok(built))) => built?,
                _ => matcher::build_matcher(&a, &run.patterns)?,
            };
            let spec = worker::WorkerSpec {
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
                worker::search_sequential(&run, mode, |wtr| worker::make_worker(spec, wtr))?
            } else {
                worker::search_parallel(&run, mode, &|wtr| worker::make_worker(spec, wtr))?
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

impl Run {
    /// Standard output as ripgrep buffers it: by line on a terminal, by block otherwise.
    pub(super) fn stdout(&self) -> grep_cli::StandardStream {
        if self.is_tty {
            grep_cli::stdout_buffered_line(self.color)
        } else {
            grep_cli::stdout_buffered_block(self.color)
        }
    }
}
