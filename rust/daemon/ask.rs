//! A searching process asking the daemon which files to read: whether to ask at all
//! (`CODESIFT_DAEMON`, the index mode, the walk options), the `select` request for a grep, the
//! reply turned into a `search::Selected` that the scan's own searcher reads; the `glob`
//! request, whose reply is the glob's whole outcome; and starting the daemon in the
//! background when none answers (never waited for). Every problem means the caller searches
//! in-process: a dead daemon costs speed, never correctness.

use super::client;
use super::wire::{self, Globbed, Reply, Request, Selection, Skip, Walk, WirePath};
use crate::error::Result;
use crate::fs::skipped::{Example, Reason};
use crate::fs::walk::{Target, Walker};
use crate::glob::{FileBlock, GlobOutcome, PathBlock};
use crate::index::handle::{IndexHandle, Mode};
use crate::index::select::FileSpans;
use crate::index::select::Selected;
use crate::request::{GlobRequest, GrepRequest};
use crate::search::{GrepOutcome, GrepQuery};
use serde::de::DeserializeOwned;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a search waits for the daemon's selection before it searches in-process. The
/// daemon answers `scan` itself after 2 s when another query holds the root.
pub const SELECT_TIMEOUT: Duration = Duration::from_secs(3);
/// A process starts the daemon at most this often (a daemon that cannot start is not
/// started again by every search).
const SPAWN_EVERY: Duration = Duration::from_secs(10);

/// Whether clients use the daemon: `CODESIFT_DAEMON=never` turns it off (nothing is asked,
/// nothing started).
pub fn enabled() -> bool {
    std::env::var_os("CODESIFT_DAEMON").is_none_or(|v| v != "never")
}

/// What the daemon said about one search.
pub enum Answer<T = Selected> {
    /// For a grep: the files to read and what a walk would have passed over; for a glob, its
    /// outcome.
    Selected(T),
    /// It serves, but this search must be answered otherwise (why).
    Scan(String),
    /// No daemon answered (none runs, a refused socket, a timeout, a reply not understood).
    Unavailable(io::Error),
}

/// How a grep (`GrepOutcome`) or a glob (`GlobOutcome`) was answered.
pub enum Via<T> {
    /// From the daemon's selection (a grep) or the daemon's answer (a glob).
    Answered(T),
    /// In this process; `daemon_serves`: a daemon answered (it is building or catching up, or
    /// cannot narrow this search), so this process should neither build an index nor keep a
    /// watch of its own for it.
    InProcess { daemon_serves: bool },
}

/// What the caller knows besides the query.
pub struct Asking<'a> {
    pub handle: &'a IndexHandle,
    /// How to start the daemon (`None`: never started from here).
    pub spawn: Option<&'a [String]>,
}

/// The directory (root-relative, as the walk resolves it) to ask the daemon about when a
/// search of `search_path` should ask it: the workspace wants an index (`On`, or `Auto` with
/// one published), the daemon is allowed, and the daemon keeps a watch for these options.
fn asked_about(walker: &Walker, handle: &IndexHandle, search_path: &Path) -> Option<PathBuf> {
    let wanted = match handle.mode() {
        Mode::Off => false,
        Mode::On => true,
        Mode::Auto => handle.published(),
    };
    // Strict workspaces trust no watch; followed links have none in the daemon either.
    if !wanted || !enabled() || handle.strict() || walker.options().follow_symlinks {
        return None;
    }
    // A single file is searched directly; errors are the in-process search's to report.
    match walker.target(search_path) {
        Ok(Target::Dir(start)) => Some(start.rel().to_path_buf()),
        _ => None,
    }
}

/// What a search does after `answer`: the daemon's answer used by `answered`, else in this
/// process (and the daemon started in the background when none runs).
fn settle<A, T>(
    answer: Answer<A>,
    asking: &Asking<'_>,
    answered: impl FnOnce(A) -> Result<Via<T>>,
) -> Result<Via<T>> {
    match answer {
        Answer::Selected(found) => answered(found),
        Answer::Scan(_) => Ok(Via::InProcess {
            daemon_serves: true,
        }),
        Answer::Unavailable(e) => {
            if e.kind() == io::ErrorKind::NotFound
                && let Some(argv) = asking.spawn
            {
                start_background(argv);
            }
            Ok(Via::InProcess {
                daemon_serves: false,
            })
        }
    }
}

/// A grep answered from the daemon's selection when the workspace wants an index (`On`, or
/// `Auto` with one published) and a daemon answers; else `InProcess` (and the daemon is
/// started in the background when none runs).
/// `request` is the grep's request as the caller gave it (sent as it is), `query` its checked
/// form.
pub fn grep(
    walker: impl Fn() -> Walker,
    request: &GrepRequest,
    query: &GrepQuery,
    asking: &Asking<'_>,
    sink: Option<crate::search::Sink<'_>>,
) -> Result<Via<GrepOutcome>> {
    let walker_now = walker();
    let real = match asked_about(&walker_now, asking.handle, &query.search_path) {
        Some(real) if query.max_matches != Some(0) => real,
        _ => {
            return Ok(Via::InProcess {
                daemon_serves: false,
            });
        }
    };
    // A search that wants its first few hits and streams nothing asks for the first files
    // only: the daemon then works out and sends a page, not thousands of files' parts. When
    // files were left out and the page does not hold more hits than the limit (so the
    // outcome would depend on them), the search is made again over the whole selection.
    let (max, count_all) = query.hit_limit();
    if sink.is_none() && !count_all && max < FIRST_PAGE_FOR_LIMITS_UNDER {
        let first = (2 * (max + 1)).max(FIRST_PAGE_FILES);
        match select(&walker_now, &real, request, Some(first)) {
            Answer::Selected(page) if page.more => {
                let outcome = crate::search::grep_selected(walker(), query, page, None)?;
                // Out of time: the page's outcome says so, as a scan's would.
                if outcome.truncated || outcome.timed_out {
                    return Ok(Via::Answered(outcome));
                }
            }
            answer => {
                return settle(answer, asking, |selected| {
                    crate::search::grep_selected(walker(), query, selected, None).map(Via::Answered)
                });
            }
        }
    }
    settle(
        select(&walker_now, &real, request, None),
        asking,
        |selected| crate::search::grep_selected(walker(), query, selected, sink).map(Via::Answered),
    )
}

/// The fewest files a first page asks for (twice the hits wanted, when more).
const FIRST_PAGE_FILES: usize = 256;
/// Searches wanting this many hits or more ask for the whole selection at once.
const FIRST_PAGE_FOR_LIMITS_UNDER: usize = 10_000;

/// A glob answered by the daemon (from its index and caught-up watch, as an indexed glob in
/// this process would be) under the same conditions as a grep (`grep`); else `InProcess`.
/// `request` is the glob's request without its walk overrides (the caller asks only when
/// there are none).
pub fn glob(
    walker: &Walker,
    request: &GlobRequest,
    asking: &Asking<'_>,
) -> Result<Via<GlobOutcome<FileBlock>>> {
    let Some(real) = asked_about(walker, asking.handle, &request.search_path) else {
        return Ok(Via::InProcess {
            daemon_serves: false,
        });
    };
    let answer = match target(walker, &real) {
        Err(e) => Answer::Unavailable(e),
        Ok(target) => {
            // Walk overrides are never sent: the walk options are the workspace's, in `walk`.
            let glob = GlobRequest {
                hidden: None,
                no_ignore: None,
                ..request.clone()
            };
            let request = Request::Glob(wire::Glob {
                target,
                glob: Some(glob),
            });
            match ask_for(walker, &request) {
                Ok((reply, bulk)) => parse_with(&reply, |reply| globbed(reply, bulk, &real)),
                Err(e) => Answer::Unavailable(e),
            }
        }
    };
    settle(answer, asking, |outcome| Ok(Via::Answered(outcome)))
}

/// Starts the daemon detached unless this process did so recently; never waits for it (two
/// starters racing are fine: the daemon's lock lets one serve, the other exits at once).
pub fn start_background(argv: &[String]) {
    // Per socket directory: a process that changes XDG_RUNTIME_DIR (tests) talks to another
    // daemon.
    static LAST: Mutex<Option<(Option<PathBuf>, Instant)>> = Mutex::new(None);
    let socket_dir = super::dir::socket_dir();
    {
        let mut last = LAST.lock().unwrap();
        if last
            .as_ref()
            .is_some_and(|(dir, at)| *dir == socket_dir && at.elapsed() < SPAWN_EVERY)
        {
            return;
        }
        *last = Some((socket_dir, Instant::now()));
    }
    let _ = crate::fs::spawn::spawn_detached(argv);
}

/// Sends a search's request, its files asked for in a bulk frame (`super::bulk`): waits up
/// to `SELECT_TIMEOUT`, ended at once by the search's cancel (Ctrl-C, `CancelToken`, an MCP
/// cancel, an HTTP client gone). The reply's JSON, and the frame.
fn ask_for(walker: &Walker, request: &Request) -> io::Result<(Vec<u8>, Option<Vec<u8>>)> {
    let token = walker.cancel_token();
    let cancelled = || token.is_cancelled();
    client::request_bulk(
        request,
        &client::Wait::new(SELECT_TIMEOUT).cancelled_by(&cancelled),
    )
}

/// The part of a request that names the root, the directory searched (`real`, root-relative)
/// and the walk options; or why it cannot be sent.
fn target(walker: &Walker, real: &Path) -> io::Result<wire::Target> {
    let root = walker.root();
    let ident = root.stat_self().map(|s| (s.st_dev, s.st_ino));
    let Ok(ident) = ident else {
        return Err(io::Error::other("the root cannot be examined"));
    };
    let mut target = wire::Target::new(root.real_path(), Walk::of(walker.options()));
    target.root_id = Some(ident);
    target.path = Some(WirePath::from(real));
    Ok(target)
}

/// The daemon's selection for the grep `request` (searching the directory `real`,
/// root-relative): its `first` files when given.
pub fn select(walker: &Walker, real: &Path, request: &GrepRequest, first: Option<usize>) -> Answer {
    let target = match target(walker, real) {
        Ok(target) => target,
        Err(e) => return Answer::Unavailable(e),
    };
    // Walk overrides are never sent: the walk options are the workspace's, in `walk`.
    let grep = GrepRequest {
        hidden: None,
        no_ignore: None,
        ..request.clone()
    };
    let request = Request::Select(wire::Select {
        first: first.map(|n| n as u64),
        ..wire::Select::new(target, grep)
    });
    match ask_for(walker, &request) {
        Ok((reply, bulk)) => parse_with(&reply, |reply| selected(reply, bulk)),
        Err(e) => Answer::Unavailable(e),
    }
}

/// A reply (its JSON) as an answer, its content read by `read`; anything not understood
/// is `Scan`.
fn parse_with<T: DeserializeOwned, U>(
    reply: &[u8],
    read: impl FnOnce(T) -> Option<U>,
) -> Answer<U> {
    match wire::read_reply::<T>(reply) {
        Ok(Reply::Scan(scan)) => Answer::Scan(scan.scan),
        Ok(Reply::Error(refused)) => {
            Answer::Scan(format!("the daemon refused the search: {refused}"))
        }
        Ok(Reply::Answer(answer)) => match read(answer) {
            Some(found) => Answer::Selected(found),
            None => Answer::Scan("an answer this client does not understand".into()),
        },
        Err(e) => Answer::Scan(format!("an answer this client does not understand: {e}")),
    }
}

fn reason_named(name: &str) -> Option<Reason> {
    Reason::ALL.iter().copied().find(|r| r.name() == name)
}

/// A root-relative path that stays inside the root: names only, no `.` or `..`, no empty
/// name (checked on the bytes: a glob's answer holds tens of thousands of paths, and
/// `Path::components` cost more than the rest of reading them).
fn inside(path: &Path) -> bool {
    // One branch-light pass over the bytes: paths are short and hold several slashes, so
    // a vector search restarted at every slash (memchr2) cost more than this loop, as did a
    // memmem finder built per path and `Path::components`.
    let bad = |len: usize, all_dots: bool| len == 0 || (all_dots && len <= 2);
    let (mut len, mut all_dots) = (0, true);
    for &b in path.as_os_str().as_bytes() {
        if b == b'/' {
            if bad(len, all_dots) {
                return false;
            }
            (len, all_dots) = (0, true);
        } else {
            len += 1;
            all_dots &= b == b'.';
        }
    }
    !bad(len, all_dots)
}

/// Whether the root-relative `path` (checked by `inside`) lies under `dir` (`""`: the root).
fn under(path: &Path, dir: &Path) -> bool {
    let (bytes, dir) = (path.as_os_str().as_bytes(), dir.as_os_str().as_bytes());
    dir.is_empty()
        || (bytes.starts_with(dir) && (bytes.len() == dir.len() || bytes[dir.len()] == b'/'))
}

/// A `select` reply's files (and the parts of them that can hold a match): from its bulk
/// frame when it sent one, else from `files` (and `spans`).
fn selected(reply: Selection, bulk: Option<Vec<u8>>) -> Option<Selected> {
    if !reply.ok {
        return None;
    }
    let (files, spans, plain): (Vec<PathBuf>, Vec<Option<FileSpans>>, bool) = match bulk {
        Some(frame) => {
            let decoded = super::bulk::decode(frame)?;
            if decoded.metadata.is_some() {
                return None;
            }
            let count = decoded.paths.len();
            let spans = decoded.spans.unwrap_or_else(|| vec![None; count]);
            let files = decoded.paths.iter().map(Path::to_path_buf).collect();
            (files, spans, decoded.plain)
        }
        None => {
            let files: Vec<PathBuf> = reply.files?.into_iter().map(|f| f.0).collect();
            let spans = match reply.spans {
                Some(spans) => spans.into_iter().map(|s| s.map(FileSpans::from)).collect(),
                None => vec![None; files.len()],
            };
            let plain = files.iter().all(|p| inside(p));
            (files, spans, plain)
        }
    };
    // Root-relative paths in path order, nothing leaving the root, spans (when sent) one per
    // file, in file order and inside the file: a reply breaking that is not used.
    let sane = plain
        && files
            .windows(2)
            .all(|w| w[0].as_os_str().as_bytes() < w[1].as_os_str().as_bytes())
        && spans.len() == files.len()
        && spans.iter().flatten().all(spans_fit);
    if !sane {
        return None;
    }
    Some(Selected {
        files,
        spans,
        binary: reply.binary,
        ignored: reply.ignored,
        unreadable: reply.unreadable,
        skipped: skips(reply.skips)?,
        more: reply.more,
    })
}

/// Whether `spans` lie in order inside the file they describe, each a non-empty part that
/// starts at line 1 or later.
fn spans_fit(spans: &FileSpans) -> bool {
    let mut end = 0u64;
    spans.spans.iter().all(|&(offset, len, line)| {
        let fits = offset >= end
            && len > 0
            && line >= 1
            && offset.checked_add(len).is_some_and(|e| e <= spans.size);
        end = offset.saturating_add(len);
        fits
    })
}

/// `[[reason, count, [[path, is_dir], ...]], ...]`: what a walk passed over.
fn skips(given: Vec<Skip>) -> Option<Vec<(Reason, u64, Vec<Example>)>> {
    given
        .into_iter()
        .map(|Skip(reason, count, examples)| {
            let examples = examples
                .into_iter()
                .map(|(path, is_dir)| Example {
                    path: path.0,
                    is_dir,
                })
                .collect();
            Some((reason_named(&reason)?, count, examples))
        })
        .collect()
}

/// A `glob` reply as the glob's outcome, field by field (the search of `real`): files from
/// the bulk frame when it sent one, else as `[path, mtime_ms, size]` in `files`; every
/// reason of the summary (a missing one counted 0).
fn globbed(reply: Globbed, bulk: Option<Vec<u8>>, real: &Path) -> Option<GlobOutcome<FileBlock>> {
    if !reply.ok {
        return None;
    }
    let (files, plain) = match bulk {
        Some(frame) => {
            let decoded = super::bulk::decode(frame)?;
            if decoded.spans.is_some() {
                return None;
            }
            (
                FileBlock::new(decoded.paths, decoded.metadata?)?,
                decoded.plain,
            )
        }
        None => {
            let mut paths = PathBlock::default();
            let mut metadata = Vec::new();
            for wire::GlobbedFile(path, mtime, size) in reply.files? {
                metadata.push(match (mtime, size) {
                    (None, None) => None,
                    (mtime, size) => Some((mtime?, size?)),
                });
                paths.push(&path.0);
            }
            let plain = paths.iter().all(inside);
            (FileBlock::new(paths, metadata)?, plain)
        }
    };
    // Files under the directory searched, nothing leaving the root: else not used (every
    // plain path is under the root, which is not gone through again).
    let under_real = real.as_os_str().is_empty() || files.paths.iter().all(|p| under(p, real));
    if !plain || !under_real {
        return None;
    }
    let search_path = reply.search_path.0;
    if search_path != real {
        return None;
    }
    let mut given = skips(reply.skips)?;
    let skipped = Reason::ALL
        .iter()
        .map(
            |&reason| match given.iter().position(|(r, _, _)| *r == reason) {
                Some(at) => given.swap_remove(at),
                None => (reason, 0, Vec::new()),
            },
        )
        .collect();
    Some(GlobOutcome {
        files,
        total: usize::try_from(reply.total).ok()?,
        truncated: reply.truncated,
        ignored: reply.ignored,
        errors: reply.errors,
        search_path,
        skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn bytes(reply: &Value) -> Vec<u8> {
        serde_json::to_vec(reply).unwrap()
    }

    fn parse(reply: &Value) -> Answer {
        parse_with(&bytes(reply), |r| selected(r, None))
    }

    fn frame(names: &[&str], metadata: Option<&[Option<(i64, u64)>]>) -> Vec<u8> {
        use super::super::bulk::{encode, encode_parallel};
        // A select's frame has no metadata; a glob's is made by `encode_parallel`.
        match metadata {
            None => encode(names.iter().map(Path::new), None),
            Some(metadata) => {
                let path = |i: usize| names[i].as_bytes();
                encode_parallel(names.len(), path, |i| metadata[i], 1)
            }
        }
    }

    #[test]
    fn bulk_frames_are_read_and_checked_as_json_files_are() {
        let reply = json!({
            "ok": true, "binary": 0, "ignored": 0, "unreadable": 0, "skips": [],
            "bulk_frame": 1,
        });
        let bulk = frame(&["a/b.rs", "c.rs"], None);
        let Answer::Selected(s) = parse_with(&bytes(&reply), |r| selected(r, Some(bulk))) else {
            panic!("not a selection")
        };
        assert_eq!(s.files, [PathBuf::from("a/b.rs"), PathBuf::from("c.rs")]);
        // Leaving the root, out of order, absolute, or a glob's frame: not used.
        for bad in [
            frame(&["../etc/passwd"], None),
            frame(&["b", "a"], None),
            frame(&["/abs"], None),
            frame(&["a"], Some(&[None])),
            b"\x01\x00".to_vec(),
        ] {
            let answer = parse_with(&bytes(&reply), |r| selected(r, Some(bad.clone())));
            assert!(matches!(answer, Answer::Scan(_)), "{bad:?}");
        }
        let glob_reply = json!({
            "ok": true, "total": 2, "truncated": false, "ignored": 0, "errors": 0,
            "search_path": "src", "skips": [], "bulk_frame": 1,
        });
        let bulk = frame(&["src/z.rs", "src/a.rs"], Some(&[Some((5, 6)), None]));
        let Answer::Selected(outcome) = parse_with(&bytes(&glob_reply), |r| {
            globbed(r, Some(bulk), Path::new("src"))
        }) else {
            panic!("not an answer")
        };
        assert_eq!(outcome.files.paths.get(0), PathBuf::from("src/z.rs"));
        assert_eq!(outcome.files.metadata[0], Some((5, 6)));
        assert_eq!(outcome.files.metadata[1], None);
        for bad in [
            frame(&["docs/a.md"], Some(&[None])),
            frame(&["src/../../x"], Some(&[None])),
            frame(&["src/a.rs"], None),
        ] {
            let answer = parse_with(&bytes(&glob_reply), |r| {
                globbed(r, Some(bad.clone()), Path::new("src"))
            });
            assert!(matches!(answer, Answer::Scan(_)), "{bad:?}");
        }
    }

    #[test]
    fn only_plain_paths_under_the_directory_asked_about_are_inside() {
        for good in ["a", "a/b.rs", "src/.hidden/x", "..a/b..", "a/.../b"] {
            assert!(inside(Path::new(good)), "{good}");
        }
        for bad in ["", "/abs", "a/../b", "..", "./a", "a/.", "a//b", "a/"] {
            assert!(!inside(Path::new(bad)), "{bad}");
        }
        assert!(under(Path::new("src/a.rs"), Path::new("src")));
        assert!(under(Path::new("src/a.rs"), Path::new("")));
        assert!(!under(Path::new("srcx/a.rs"), Path::new("src")));
        assert!(!under(Path::new("docs/a.md"), Path::new("src")));
    }

    #[test]
    fn a_selection_is_read_with_its_summary() {
        let reply = json!({
            "ok": true, "files": ["a/b.rs", [99, 255]], "binary": 2, "ignored": 3,
            "unreadable": 1, "skips": [["gitignored", 3, [["target", true]]]],
        });
        let Answer::Selected(s) = parse(&reply) else {
            panic!("not a selection")
        };
        assert_eq!(s.files[0], PathBuf::from("a/b.rs"));
        assert_eq!(s.files[1].as_os_str().as_bytes(), b"c\xff");
        assert_eq!((s.binary, s.ignored, s.unreadable), (2, 3, 1));
        assert_eq!(s.skipped[0].0, Reason::Gitignored);
        assert!(s.skipped[0].2[0].is_dir);
    }

    #[test]
    fn names_inside_the_root_are_told_as_names_split_by_slashes_would_be() {
        let by_names = |bytes: &[u8]| {
            !bytes.is_empty()
                && bytes
                    .split(|b| *b == b'/')
                    .all(|name| !matches!(name, b"" | b"." | b".."))
        };
        let mut paths: Vec<Vec<u8>> = [
            "a", "a/b.c", ".hidden", "a/.b", "..a", "a..", "a/..b/c", "a/b..", ".", "..", "./a",
            "../a", "a/.", "a/..", "a/./b", "a/../b", "/a", "a/", "a//b", "", "...", "a/.../b",
            ".a./..b.", "é/.ü",
        ]
        .iter()
        .map(|p| p.as_bytes().to_vec())
        .collect();
        // Every string of up to 5 of `a`, `.` and `/`.
        let mut shorter: Vec<Vec<u8>> = vec![Vec::new()];
        for _ in 0..5 {
            let longer: Vec<Vec<u8>> = shorter
                .iter()
                .flat_map(|p| {
                    b"a./".iter().map(move |&b| {
                        let mut q = p.clone();
                        q.push(b);
                        q
                    })
                })
                .collect();
            paths.extend(longer.iter().cloned());
            shorter = longer;
        }
        for bytes in &paths {
            let path = Path::new(std::ffi::OsStr::from_bytes(bytes));
            assert_eq!(inside(path), by_names(bytes), "{path:?}");
            // A bulk frame's paths are checked as one block: alone ...
            let alone = super::super::bulk::all_plain(bytes, [bytes.len()].into_iter());
            assert_eq!(alone, by_names(bytes), "{path:?}");
        }
        // ... and beside others, where a bad name could seem to span two paths.
        let short: Vec<&Vec<u8>> = paths.iter().filter(|p| p.len() <= 3).collect();
        for first in &paths {
            for second in &short {
                let block = [first.as_slice(), second.as_slice()].concat();
                let plain =
                    super::super::bulk::all_plain(&block, [first.len(), second.len()].into_iter());
                assert_eq!(
                    plain,
                    by_names(first) && by_names(second),
                    "{:?} then {:?}",
                    String::from_utf8_lossy(first),
                    String::from_utf8_lossy(second)
                );
            }
        }
    }

    #[test]
    fn a_glob_reply_is_read_field_by_field() {
        let reply = json!({
            "ok": true, "files": [["src/a.rs", 1700, 12], ["src/c\u{e9}", 5, 0], [[115, 114, 99, 47, 255], null, null]],
            "total": 7, "truncated": true, "ignored": 3, "errors": 1, "search_path": "src",
            "skips": [["gitignored", 3, [["src/target", true]]]],
        });
        let Answer::Selected(outcome) =
            parse_with(&bytes(&reply), |r| globbed(r, None, Path::new("src")))
        else {
            panic!("not an answer")
        };
        assert_eq!(outcome.files.paths.get(0), PathBuf::from("src/a.rs"));
        assert_eq!(outcome.files.metadata[0], Some((1700, 12)));
        assert_eq!(
            outcome.files.paths.get(2).as_os_str().as_bytes(),
            b"src/\xff"
        );
        assert_eq!(outcome.files.metadata[2], None);
        assert_eq!(
            (
                outcome.total,
                outcome.truncated,
                outcome.ignored,
                outcome.errors
            ),
            (7, true, 3, 1)
        );
        assert_eq!(outcome.skipped.len(), Reason::ALL.len());
        let gitignored = outcome
            .skipped
            .iter()
            .find(|s| s.0 == Reason::Gitignored)
            .unwrap();
        assert_eq!((gitignored.1, gitignored.2[0].is_dir), (3, true));
        // Another directory's files, or another search path: not used.
        for (files, search_path) in [
            (json!([["docs/a.md", 1, 1]]), "src"),
            (json!([["src/../../x", 1, 1]]), "src"),
            (json!([["src/a.rs", 1, 1]]), "docs"),
        ] {
            let mut bad = reply.clone();
            bad["files"] = files;
            bad["search_path"] = json!(search_path);
            let answer = parse_with(&bytes(&bad), |r| globbed(r, None, Path::new("src")));
            assert!(matches!(answer, Answer::Scan(_)), "{bad}");
        }
    }

    #[test]
    fn a_reply_not_understood_or_leaving_the_root_is_a_scan() {
        for reply in [
            json!({"ok": true, "scan": "catching up", "generation": null}),
            json!({"error": {"type": "InvalidArgumentError", "message": "x"}}),
            json!({"ok": true, "files": ["../etc/passwd"], "binary": 0, "ignored": 0,
                   "unreadable": 0, "skips": []}),
            json!({"ok": true, "files": ["b", "a"], "binary": 0, "ignored": 0,
                   "unreadable": 0, "skips": []}),
            json!({"ok": true, "files": ["/abs"], "binary": 0, "ignored": 0,
                   "unreadable": 0, "skips": []}),
            json!({"ok": true, "files": [], "binary": 0, "ignored": 0, "unreadable": 0}),
        ] {
            assert!(matches!(parse(&reply), Answer::Scan(_)), "{reply}");
        }
    }
}
