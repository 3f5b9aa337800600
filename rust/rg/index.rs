//! The index path of `codesift-rg`: the files to search come from the daemon's index of
//! every file under each searched directory (`select` with `walk.all_files`), and ripgrep's
//! own rules are applied to that path table at query time, so one index serves every
//! combination of ignore, hidden, glob, type, depth and size flags.
//!
//! The rules are the `ignore` crate's own, through its public `WalkBuilder::build_matchers`
//! (`IncrementalIgnore`): the same matchers a walk uses (`.gitignore`, `.ignore`,
//! `.rgignore`, git's exclude and global files, parent directories, `--ignore-file`,
//! overrides, types, hidden, depth, size), loaded once per directory. A hand-written copy of
//! the crate's private `Ignore::matched` would drift from the walk it must equal; the public
//! matcher cannot.
//!
//! `CODESIFT_RG_INDEX`: `never` scans; `auto` (the default) asks a running daemon, without
//! ever waiting for one, only about roots it already indexed, and after scanning a tree of at
//! least [`LARGE_TREE`] files asks it (starting it if need be) to index that tree for next
//! time; `force` starts the daemon, has it index each searched tree and waits (bounded) for
//! the answer. Any problem (no daemon, a timeout, a `scan` reply, a daemon killed mid-query)
//! is a scan: the index costs speed when it fails, never correctness.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::args::{Args, CaseMode, Engine, Mode, SearchMode};
use super::haystack::{Haystack, shown_path};
use super::messages;
use crate::daemon::client;
use crate::daemon::wire::{self, Reply, Request, Walk, WirePath};
// The engine's index modes, named apart from ripgrep's run mode (`args::Mode`).
use crate::index::handle::Mode as IndexMode;
use crate::index::select::FileSpans;
use crate::request::GrepRequest;

/// A scan that visits at least this many files asks the daemon to index its tree (auto).
/// Below it a scan is fast enough (tens of milliseconds) that an index and a watch per tree
/// would cost the daemon more memory than they save time.
pub const LARGE_TREE: usize = 10_000;
/// How long `auto` waits for the daemon's answer (a caught-up root answers in milliseconds).
const AUTO_TIMEOUT: Duration = Duration::from_secs(5);
/// How long `force` waits for a daemon to start and a tree to be indexed before scanning.
const FORCE_DEADLINE: Duration = Duration::from_secs(60);
/// How long `force` waits for a daemon it started to accept connections.
const FORCE_START: Duration = Duration::from_secs(15);

/// The words `CODESIFT_RG_INDEX` takes, each with the engine's index mode it means: `never`
/// scans (`Off`); `auto` answers from roots the daemon indexed already (`Auto`); `force`
/// has every searched tree indexed, waiting for it (`On`, as the engine's first search
/// builds a missing index). ripgrep's users know these words; the mode is the engine's.
const MODE_WORDS: [(&str, IndexMode); 3] = [
    ("never", IndexMode::Off),
    ("auto", IndexMode::Auto),
    ("force", IndexMode::On),
];

/// `CODESIFT_RG_INDEX` (unset or empty: `auto`), or the value that is none of its words.
pub fn mode_setting() -> Result<IndexMode, std::ffi::OsString> {
    let Some(value) = std::env::var_os("CODESIFT_RG_INDEX").filter(|v| !v.is_empty()) else {
        return Ok(IndexMode::Auto);
    };
    MODE_WORDS
        .iter()
        .find(|(word, _)| value == *word)
        .map(|(_, mode)| *mode)
        .ok_or(value)
}

/// The words of `CODESIFT_RG_INDEX`, for the message that names them.
pub fn mode_words() -> String {
    let words: Vec<&str> = MODE_WORDS.iter().map(|(word, _)| *word).collect();
    words.join(", ")
}

/// `CODESIFT_RG_INDEX` (an unknown value reads as the default, `auto`: `main` refuses one
/// before any run).
pub fn mode() -> IndexMode {
    mode_setting().unwrap_or(IndexMode::Auto)
}

/// `CODESIFT_RG_DEBUG=index`: one stderr line saying whether the index answered (tests).
pub(super) fn debug(msg: &str) {
    if debugging() {
        eprintln!("codesift-rg: index: {msg}");
    }
}

/// Whether `CODESIFT_RG_DEBUG=index` asks for the index's reasons on stderr.
pub(super) fn debugging() -> bool {
    std::env::var_os("CODESIFT_RG_DEBUG").is_some_and(|v| v == "index")
}

/// Why this run is always scanned, or `None` when the index may answer it.
pub fn refusal(a: &Args, paths: &[PathBuf]) -> Option<&'static str> {
    if a.mode == Mode::Types {
        return Some("--type-list");
    }
    if a.follow {
        return Some("-L/--follow (links are not indexed)");
    }
    if a.one_file_system {
        return Some("--one-file-system");
    }
    if a.pre.is_some() {
        return Some("--pre");
    }
    // Indexing a tree reads its files, which moves their access times (relatime): the
    // order asked for would be the daemon's reading order.
    if a.sort
        .is_some_and(|s| s.kind == super::args::SortKind::Accessed)
    {
        return Some("--sort accessed (indexing reads the files and moves their access times)");
    }
    if paths.iter().any(|p| p == Path::new("-") || !p.is_dir()) {
        return Some("a path that is not a directory (or stdin)");
    }
    None
}

/// The pattern the index narrows by, when narrowing is sound for this argv: a file it leaves
/// out must hold no match *and* need not be searched for any other reason (inverted matches,
/// files without a match, zero counts, stats all need every file). `None`: every file.
fn narrowing(a: &Args, patterns: &[String]) -> Option<(String, bool)> {
    let every_file_needed = a.invert_match
        || a.stats
        || a.include_zero
        || matches!(
            a.mode,
            Mode::Files | Mode::Search(SearchMode::FilesWithoutMatch | SearchMode::Json)
        );
    // What the searcher reads is not the file's bytes (transcoded, decompressed), or the
    // pattern means other bytes than the index's planner reads it as.
    let other_bytes =
        matches!(a.encoding, Some(Some(_))) || a.search_zip || a.null_data || a.no_unicode;
    // The planner reads Rust regex syntax: a PCRE2 pattern (`-P`, or `auto` settled on PCRE2
    // by the caller) means other things in places (`\Q..\E`, `(?x)`, possessive and
    // atomic groups, `\K`, backreferences), so no plan made from it is known to be sound.
    let other_syntax = a.engine != Engine::Default;
    if every_file_needed || other_bytes || other_syntax || patterns.is_empty() {
        return None;
    }
    let pattern = if a.fixed_strings {
        patterns
            .iter()
            .map(|p| regex_syntax::escape(p))
            .collect::<Vec<_>>()
            .join("|")
    } else if patterns.len() == 1 {
        patterns[0].clone()
    } else {
        patterns
            .iter()
            .map(|p| format!("(?:{p})"))
            .collect::<Vec<_>>()
            .join("|")
    };
    // Smart case is narrowed case-insensitively: a superset whatever the pattern holds.
    let case_insensitive = a.case != CaseMode::Sensitive;
    Some((pattern, case_insensitive))
}

/// Whether a file may be read in the parts the index says can hold a match: only when
/// nothing printed depends on the bytes outside them (context lines, byte offsets) and the
/// lines matched are the file's (no multiline match across parts).
fn span_reads(a: &Args) -> bool {
    let context = match a.context {
        super::args::Context::Passthru => true,
        super::args::Context::Limited { .. } => {
            let (before, after) = a.context.get();
            before > 0 || after > 0
        }
    };
    !(context || a.byte_offset || a.multiline || a.invert_match || a.stats)
        && matches!(a.mode, Mode::Search(m) if m != SearchMode::Json)
}

/// The files of a select reply, root-relative, each with the parts that can hold a match
/// when the daemon sent them (one per file, or none at all).
fn reply_files(reply: &mut wire::Selection) -> Option<Vec<(PathBuf, Option<FileSpans>)>> {
    let files = reply.files.take()?;
    let spans = match reply.spans.take() {
        Some(spans) if spans.len() == files.len() => spans,
        Some(_) => return None,
        None => vec![None; files.len()],
    };
    Some(
        files
            .into_iter()
            .zip(spans)
            .map(|(WirePath(path), spans)| (path, spans.map(FileSpans::from)))
            .collect(),
    )
}

/// The Python that hosts the daemon: `CODESIFT_PYTHON`, else `python3` on PATH.
fn python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CODESIFT_PYTHON").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("python3"))
        .find(|p| p.is_file())
}

/// Starts the daemon in the background (never waited for): the `codesift-daemon` installed
/// beside this executable (`<package>/bin/`); in a build without it, the package this
/// executable was installed with, hosted by Python (first on the daemon's import path).
fn start_daemon() {
    let native = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join("codesift-daemon")))
        .filter(|daemon| daemon.is_file())
        .and_then(|daemon| daemon.to_str().map(String::from));
    if let Some(daemon) = native {
        let _ = crate::fs::spawn::spawn_detached(&[daemon]);
        return;
    }
    let Some(python) = python() else { return };
    let package_parent = std::env::current_exe().ok().and_then(|exe| {
        let package = exe.parent()?.parent()?;
        package
            .join("__init__.py")
            .is_file()
            .then(|| package.parent().map(Path::to_path_buf))
            .flatten()
    });
    let mut code = String::from("import sys, runpy\n");
    if let Some(dir) = package_parent.as_ref().and_then(|d| d.to_str()) {
        code.push_str(&format!("sys.path.insert(0, {})\n", json!(dir)));
    }
    code.push_str("runpy.run_module('codesift', run_name='__main__', alter_sys=True)\n");
    let argv = vec![
        python.display().to_string(),
        "-c".into(),
        code,
        "daemon".into(),
        "run".into(),
        "--foreground".into(),
    ];
    let _ = crate::fs::spawn::spawn_detached(&argv);
}

fn select_request(
    root: &Path,
    narrow: &Option<(String, bool)>,
    multiline: bool,
    mode: IndexMode,
    rules: Option<&str>,
) -> wire::Select {
    let build = mode == IndexMode::On;
    // `force` lists every file even when the pattern narrows nothing (every answer goes
    // through the index's path table); otherwise a pattern the index cannot narrow is
    // answered `scan`: ripgrep's parallel walk is faster.
    let (pattern, case_insensitive) = match narrow {
        Some((p, ci)) => (p.as_str(), *ci),
        // The empty pattern narrows nothing: every file is listed.
        None => ("", false),
    };
    let mut target = wire::Target::new(
        root,
        Walk {
            list_unnarrowed: Some(build),
            ..Walk::all_files()
        },
    );
    target.path = Some(WirePath::default());
    target.build = Some(build);
    let pattern = GrepRequest {
        pattern: pattern.to_string(),
        literal: false,
        case_sensitive: !case_insensitive,
        multiline: Some(multiline),
        ..GrepRequest::default()
    };
    wire::Select {
        rules: rules.map(str::to_string),
        ..wire::Select::new(target, pattern)
    }
}

/// The positions of the files whose verdict under the rules the daemon does not know
/// (`None`: all of them), each below `count`.
fn reply_undecided(reply: &wire::Selection, count: usize) -> Result<Option<Vec<usize>>, String> {
    let Some(undecided) = &reply.undecided else {
        return Ok(None);
    };
    undecided
        .iter()
        .map(|&i| usize::try_from(i).ok().filter(|i| *i < count))
        .collect::<Option<Vec<usize>>>()
        .map(Some)
        .ok_or_else(|| "a malformed reply (undecided)".to_string())
}

/// The daemon's answer to `request` when it answers it (not `scan`, no error), with the
/// connection (a frame may follow the answer), or why not; `force` starts the daemon and
/// waits (bounded) for an index being built.
pub(super) fn ask_reply<T: DeserializeOwned>(
    request: &Request,
    mode: IndexMode,
) -> Result<(T, std::os::unix::net::UnixStream), String> {
    let deadline = Instant::now() + FORCE_DEADLINE;
    // A daemon that has not come up by then will not (no Python, a refused directory).
    let connect_deadline = Instant::now() + FORCE_START;
    let mut started = false;
    loop {
        let timeout = match mode {
            IndexMode::On => deadline.saturating_duration_since(Instant::now()),
            _ => AUTO_TIMEOUT,
        };
        let mut stream = match client::connect() {
            Ok(stream) => stream,
            Err(_) if mode == IndexMode::On && Instant::now() < connect_deadline => {
                if !started {
                    start_daemon();
                    started = true;
                }
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
            Err(e) => return Err(format!("no daemon: {e}")),
        };
        // A daemon that dies mid-query is no answer: scan (never retried, never waited for).
        // Forced: the daemon was just started or is busy building; it is waited for.
        let wait = match mode {
            IndexMode::On => client::Wait::new(timeout).ack(timeout),
            _ => client::Wait::new(timeout),
        };
        let reply = client::exchange_with(&mut stream, request, &wait)
            .map_err(|e| format!("the daemon did not answer: {e}"))?;
        match wire::read_reply::<T>(&reply) {
            Err(e) => return Err(format!("a malformed reply: {e}")),
            Ok(Reply::Error(refused)) => return Err(format!("the daemon refused: {refused}")),
            Ok(Reply::Answer(answer)) => return Ok((answer, stream)),
            Ok(Reply::Scan(scan)) => {
                // Only an index being built or a watch catching up is worth waiting for; a
                // network file system or a root inside `.git` is scanned at once.
                let passing = [
                    "being built",
                    "catching up",
                    "another query",
                    "missed changes",
                ]
                .iter()
                .any(|w| scan.scan.contains(w));
                if mode == IndexMode::On && passing && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                }
                return Err(format!("the daemon says scan: {}", scan.scan));
            }
        }
    }
}

/// What the index path found for a run: the files to search, and the verdicts of the rules
/// it decided that the daemon may keep for the next run (`offer_verdicts`).
pub struct SelectedHaystacks {
    pub haystacks: Vec<Haystack>,
    pub verdicts: Vec<Request>,
}

/// The haystacks of `paths` (every one a directory) from the index, with ripgrep's rules
/// applied, in path order per directory; `Err` with the reason to scan instead. The rules
/// are read only for the files whose verdict the daemon does not keep already.
#[allow(clippy::too_many_arguments)]
pub fn haystacks(
    a: &Args,
    patterns: &[String],
    builder: &ignore::WalkBuilder,
    cwd: &Path,
    paths: &[PathBuf],
    implicit_path: bool,
    mode: IndexMode,
) -> Result<SelectedHaystacks, String> {
    let narrow = narrowing(a, patterns);
    if narrow.is_none() && mode != IndexMode::On {
        // Every file is listed: applying ripgrep's rules to the path table loads every
        // directory's ignore files as a walk does, and a walk does it on every thread (on the
        // Linux tree `--files` listed from the index took 0.3 s, walked 0.1 s).
        return Err("every file is needed: a walk is faster".into());
    }
    if let Some((pattern, case_insensitive)) = narrow.as_ref().filter(|_| mode != IndexMode::On) {
        // No trigram to require (`\w+_\d+\(`): the daemon would answer `scan` after
        // compiling the pattern; a walk starts at once. (The daemon plans the pattern with
        // its newlines made `\r?\n`, which can only loosen it: a pattern planned as every
        // unit here is planned so there.)
        if crate::index::plan::plan(pattern, *case_insensitive) == crate::index::plan::Query::All {
            return Err("the pattern has no trigram the index can require".into());
        }
    }
    let mut matchers = builder.build_matchers();
    let mut out = Vec::new();
    let mut verdicts = Vec::new();
    for (dir, matcher) in paths.iter().zip(matchers.iter_mut()) {
        let real = std::fs::canonicalize(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        // A verdict that depends on a file's size (`--max-filesize`) changes with a write.
        let rules_key = a
            .max_filesize
            .is_none()
            .then(|| rules_key(a, cwd, dir, &real));
        let request = select_request(&real, &narrow, a.multiline, mode, rules_key.as_deref());
        let (mut reply, _) = ask_reply::<wire::Selection>(&Request::Select(request), mode)?;
        if reply.unreadable > 0 {
            // The walk would report those entries: only a scan prints the same messages.
            return Err("the tree has unreadable entries".into());
        }
        let files = reply_files(&mut reply).ok_or("a malformed reply")?;
        let undecided = reply_undecided(&reply, files.len())?;
        let by_spans = span_reads(a);
        // The index never holds `.git`, but a walk showing hidden entries (or whitelisted by
        // a glob) goes into it: its files are listed below, under the same rules, from the
        // directories of the files listed.
        let may_enter_git = a.hidden || !a.globs.is_empty() || !a.iglobs.is_empty();
        let mut dirs: std::collections::BTreeSet<PathBuf> = std::collections::BTreeSet::new();
        dirs.insert(PathBuf::new());
        // Those with a `.git` the daemon's watch knows of, whether or not a candidate lies
        // there: every one, as the watch that answered is trusted (a `.git` appearing breaks
        // it). Only a reply without them (an older daemon) leaves each candidate's
        // directories to look into: a set of them and a `stat` each, 6 % of a dense
        // `--hidden` search.
        let known_git_dirs = reply.git_dirs.is_some();
        let git_dirs = reply.git_dirs.take().unwrap_or_default();
        for WirePath(rel) in git_dirs.into_iter().filter(|_| may_enter_git) {
            let plain = rel
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)));
            if !plain {
                return Err("a malformed reply (git_dirs)".into());
            }
            dirs.insert(rel);
        }
        for (rel, _) in files.iter().filter(|_| may_enter_git && !known_git_dirs) {
            let mut parent = rel.parent();
            while let Some(p) = parent {
                if !dirs.insert(p.to_path_buf()) {
                    break;
                }
                parent = p.parent();
            }
        }
        // The daemon left out the files it knows the rules drop; those it knows they keep
        // need no rules read.
        let (mut kept, to_decide) = match undecided {
            None => (Vec::new(), files),
            Some(positions) => {
                let mut open = vec![false; files.len()];
                positions.iter().for_each(|&i| open[i] = true);
                files.into_iter().zip(open).fold(
                    (Vec::new(), Vec::new()),
                    |(mut known, mut unknown), (file, undecided)| {
                        if undecided {
                            unknown.push(file)
                        } else {
                            known.push(file)
                        }
                        (known, unknown)
                    },
                )
            }
        };
        debug(&format!(
            "rules: read for {} of {} files",
            to_decide.len(),
            kept.len() + to_decide.len()
        ));
        let reported_before = messages::reported();
        let keeps = verdicts_by_rules(builder, index_of(paths, dir), &to_decide, a.threads);
        if let (Some(key), Some(token)) = (&rules_key, &reply.rules_token) {
            // Verdicts that came with a message (an ignore file that does not parse) are not
            // kept: a run served from them would not print it.
            if !to_decide.is_empty() && messages::reported() == reported_before {
                verdicts.extend(verdicts_request(&real, key, token, &to_decide, &keeps));
            }
        }
        kept.extend(
            to_decide
                .into_iter()
                .zip(keeps)
                .filter_map(|(file, keep)| keep.then_some(file)),
        );
        if !by_spans {
            kept.iter_mut().for_each(|(_, spans)| *spans = None);
        }
        if may_enter_git {
            debug(&format!("git: {} directories looked into", dirs.len()));
        }
        for d in dirs.iter().filter(|_| may_enter_git) {
            let git = d.join(".git");
            if std::fs::symlink_metadata(dir.join(&git)).is_ok() {
                list_git(matcher, dir, &git, &mut kept);
            }
        }
        kept.sort_by(|a, b| a.0.cmp(&b.0));
        kept.dedup_by(|a, b| a.0 == b.0);
        if kept.is_empty() && narrow.is_some() && implicit_path {
            // "No files were searched" depends on the unnarrowed set: only a scan knows it.
            return Err("no candidates in the implicit path".into());
        }
        out.extend(kept.into_iter().map(|(rel, spans)| {
            Haystack::listed(shown_path(dir.join(&rel), implicit_path), spans)
        }));
    }
    let in_parts = out.iter().filter(|h| h.spans.is_some()).count();
    debug(&format!(
        "{} files from the index ({in_parts} read in parts)",
        out.len()
    ));
    Ok(SelectedHaystacks {
        haystacks: out,
        verdicts,
    })
}

/// The `rules` request that offers the daemon the verdicts decided for `files` (none when it
/// would be over the daemon's usual request size: a run that decided that many is rare, and
/// the next one decides them again).
fn verdicts_request(
    real: &Path,
    key: &str,
    token: &str,
    files: &[(PathBuf, Option<FileSpans>)],
    keeps: &[bool],
) -> Option<Request> {
    let (mut kept, mut dropped) = (Vec::new(), Vec::new());
    let mut bytes = key.len() + 512;
    for ((rel, _), keep) in files.iter().zip(keeps) {
        bytes += rel.as_os_str().len() * 4 + 4;
        if bytes > crate::daemon::proto::MAX_REQUEST {
            return None;
        }
        let list = if *keep { &mut kept } else { &mut dropped };
        list.push(WirePath::from(rel.as_path()));
    }
    Some(Request::Rules(wire::Rules {
        target: wire::Target::new(real, Walk::all_files()),
        key: Some(key.to_string()),
        token: Some(token.to_string()),
        kept,
        dropped,
    }))
}

/// Offers the daemon the verdicts a run decided (see `SelectedHaystacks`), each in its own request;
/// a daemon that is gone or refuses costs nothing but the next run's rules.
pub fn offer_verdicts(requests: Vec<Request>) {
    for request in requests {
        let Ok(mut stream) = client::connect() else {
            return;
        };
        let reply = client::exchange(&mut stream, &request, Duration::from_secs(2));
        let stored = matches!(
            reply.as_deref().map(wire::read_reply::<wire::Stored>),
            Ok(Ok(Reply::Answer(wire::Stored { stored: true, .. })))
        );
        debug(&format!("rules: verdicts offered, kept: {stored}"));
    }
}

/// One thread's share: each file's position and whether the rules keep it, and the
/// messages about ignore files it met.
type ShardDecisions = (Vec<(usize, bool)>, Vec<String>);

/// Which of `paths` is `dir` (the matcher of the same index applies to it).
fn index_of(paths: &[PathBuf], dir: &Path) -> usize {
    paths.iter().position(|p| p == dir).unwrap_or(0)
}

/// Whether the rules keep each of `files`. Loading a directory's rules reads its ignore
/// files (several system calls each): the files are shared out by their directory among
/// threads, each with its own matchers, so that a directory's rules are read by one thread.
/// A message about an ignore file (one that does not parse) is printed once, as a walk does.
fn verdicts_by_rules(
    builder: &ignore::WalkBuilder,
    which: usize,
    files: &[(PathBuf, Option<FileSpans>)],
    threads: Option<usize>,
) -> Vec<bool> {
    use std::hash::{Hash, Hasher};
    let threads = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, 12)
        .min(files.len() / 256 + 1);
    let shard = |rel: &Path| {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        rel.parent().hash(&mut hasher);
        (hasher.finish() % threads as u64) as usize
    };
    {
        let results: Vec<ShardDecisions> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|me| {
                    scope.spawn(move || {
                        let mut matchers = builder.build_matchers();
                        let mut decided = Vec::new();
                        let mut errors = Vec::new();
                        if let Some(matcher) = matchers.get_mut(which) {
                            for (i, (rel, _)) in files.iter().enumerate() {
                                if shard(rel) != me {
                                    continue;
                                }
                                let (m, err) = matcher.matched_with_errors(rel, false);
                                if let Some(err) = err {
                                    errors.push(err.to_string());
                                }
                                decided.push((i, !m.is_ignore()));
                            }
                        }
                        (decided, errors)
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        let mut keeps = vec![false; files.len()];
        let mut printed = std::collections::HashSet::new();
        for (decided, errors) in results {
            for (i, keep) in decided {
                keeps[i] = keep;
            }
            for err in errors {
                if printed.insert(err.clone()) {
                    messages::ignore(&err);
                }
            }
        }
        keeps
    }
}

fn keep(matcher: &mut ignore::IncrementalIgnore, rel: &Path, is_dir: bool) -> bool {
    let (m, err) = matcher.matched_with_errors(rel, is_dir);
    if let Some(err) = err {
        messages::ignore(&err.to_string());
    }
    !m.is_ignore()
}

/// The files under the `.git` entry `git` (relative to `dir`) that the rules keep.
fn list_git(
    matcher: &mut ignore::IncrementalIgnore,
    dir: &Path,
    git: &Path,
    out: &mut Vec<(PathBuf, Option<FileSpans>)>,
) {
    let Ok(md) = std::fs::symlink_metadata(dir.join(git)) else {
        return;
    };
    if md.is_file() {
        if keep(matcher, git, false) {
            out.push((git.to_path_buf(), None));
        }
        return;
    }
    if !md.is_dir() || !keep(matcher, git, true) {
        return;
    }
    let mut stack = vec![git.to_path_buf()];
    while let Some(rel) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(dir.join(&rel)) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(ft) = entry.file_type() else { continue };
            let child = rel.join(entry.file_name());
            if ft.is_dir() {
                if keep(matcher, &child, true) {
                    stack.push(child);
                }
            } else if ft.is_file() && keep(matcher, &child, false) {
                out.push((child, None));
            }
        }
    }
}

/// After an `auto` scan that visited `files` files: a large tree is worth an index next time.
pub fn after_scan(paths: &[PathBuf], files: usize) {
    if files < LARGE_TREE {
        return;
    }
    for dir in paths {
        let Ok(real) = std::fs::canonicalize(dir) else {
            continue;
        };
        let mut request = select_request(&real, &None, false, IndexMode::On, None);
        // Only the build is asked for: a tree indexed already answers `scan` at once instead
        // of listing every file (which cost this scan tens of milliseconds on Linux).
        if let Some(walk) = request.target.walk.as_mut() {
            walk.list_unnarrowed = Some(false);
        }
        match client::connect() {
            Ok(mut stream) => {
                // The daemon starts the build in the background and answers `scan` at once.
                let request = Request::Select(request);
                let _ = client::exchange(&mut stream, &request, Duration::from_millis(500));
            }
            Err(_) => {
                start_daemon();
                return;
            }
        }
    }
}

/// Reports a scan chosen instead of the index (tests).
pub fn scanned(why: &str) {
    debug(&format!("scan: {why}"));
}

/// The state of one file the rules are read from (absent, or its identity and times).
fn fingerprint(path: &Path) -> Value {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(path) {
        Ok(m) => json!([
            path_json_lossless(path),
            m.dev(),
            m.ino(),
            m.size(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
            m.mode()
        ]),
        Err(e) => json!([path_json_lossless(path), e.raw_os_error()]),
    }
}

pub(super) fn path_json_lossless(path: &Path) -> Value {
    serde_json::to_value(WirePath::from(path)).unwrap_or(Value::Null)
}

/// What names the verdicts of the rules a run applies to the files of `dir`: every flag but
/// the patterns (and the positional arguments that hold them and the paths), the directory
/// as given, and what `kept_list::listing_key` adds. Two searches for different patterns
/// with the same flags share their verdicts.
fn rules_key(a: &Args, cwd: &Path, dir: &Path, real: &Path) -> String {
    let mut flags = a.clone();
    flags.patterns.clear();
    flags.positional.clear();
    flags.command_line.clear();
    let what = json!({"flags": format!("{flags:?}"), "dir": path_json_lossless(dir)});
    client_key(what, &a.ignore_file, cwd, dir, real)
}

/// `what` a client asks about, with the working directory, the environment the rules are
/// found through, and every rule file outside the searched tree as it is now.
pub(super) fn client_key(
    what: Value,
    ignore_files: &[PathBuf],
    cwd: &Path,
    dir: &Path,
    real: &Path,
) -> String {
    let mut rule_files = Vec::new();
    let mut ancestors: Vec<PathBuf> = real.ancestors().skip(1).map(Path::to_path_buf).collect();
    ancestors.extend(cwd.join(dir).ancestors().skip(1).map(Path::to_path_buf));
    ancestors.sort();
    ancestors.dedup();
    for ancestor in &ancestors {
        for name in [
            ".gitignore",
            ".ignore",
            ".rgignore",
            ".git",
            ".jj",
            ".git/info/exclude",
        ] {
            rule_files.push(fingerprint(&ancestor.join(name)));
        }
    }
    let excludes = ignore::gitignore::gitconfig_excludes_path();
    if let Some(path) = &excludes {
        rule_files.push(fingerprint(path));
    }
    for path in ignore_files {
        rule_files.push(fingerprint(&cwd.join(path)));
    }
    let env: Vec<Value> = [
        "HOME",
        "XDG_CONFIG_HOME",
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM",
    ]
    .iter()
    .map(|name| match std::env::var_os(name) {
        Some(v) => path_json_lossless(Path::new(&v)),
        None => Value::Null,
    })
    .collect();
    json!({
        "what": what,
        "cwd": path_json_lossless(cwd),
        "env": env,
        "rule_files": rule_files,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_shared_out_among_threads_keep_what_one_matcher_keeps() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut files = Vec::new();
        for d in 0..400 {
            let sub = root.join(format!("d{d}"));
            std::fs::create_dir_all(sub.join("deep")).unwrap();
            if d % 3 == 0 {
                std::fs::write(sub.join(".ignore"), "*.log\ndeep/\n").unwrap();
            }
            for name in ["a.c", "b.log", "deep/c.c", ".hidden.c"] {
                std::fs::write(sub.join(name), "x").unwrap();
                files.push((PathBuf::from(format!("d{d}/{name}")), None));
            }
        }
        std::fs::write(root.join(".rgignore"), "d1?/a.c\n").unwrap();
        let mut builder = ignore::WalkBuilder::new(root);
        builder.add_custom_ignore_filename(".rgignore");
        let mut one = builder.build_matchers();
        let expected: Vec<PathBuf> = files
            .iter()
            .filter(|(rel, _)| !one[0].matched_with_errors(rel, false).0.is_ignore())
            .map(|(rel, _)| rel.clone())
            .collect();
        assert!(
            expected.len() > 40 && expected.len() < files.len(),
            "{expected:?}"
        );
        for threads in [1, 2, 5] {
            let keeps = verdicts_by_rules(&builder, 0, &files, Some(threads));
            let kept: Vec<PathBuf> = files
                .iter()
                .zip(keeps)
                .filter(|(_, keep)| *keep)
                .map(|((rel, _), _)| rel.clone())
                .collect();
            assert_eq!(kept, expected, "{threads} threads");
        }
    }
}
