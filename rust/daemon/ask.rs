//! A searching process asking the daemon which files to read: whether to ask at all
//! (`CODESIFT_DAEMON`, the index mode, the walk options), the `select` request for a grep, the
//! reply turned into a `search::Selected` that the scan's own searcher reads, and starting the
//! daemon in the background when none answers (never waited for). Every problem means the
//! caller searches in-process: a dead daemon costs speed, never correctness.

use super::client;
use crate::error::Result;
use crate::fs::skipped::{Example, Reason};
use crate::fs::walk::{Target, Walker};
use crate::index::handle::{IndexHandle, Mode};
use crate::search::{GrepOutcome, GrepQuery, Selected};
use serde_json::{Value, json};
use std::ffi::OsString;
use std::io;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
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
pub enum Answer {
    /// The files to read and what a walk would have passed over.
    Selected(Selected),
    /// It serves, but this search must be answered otherwise (why).
    Scan(String),
    /// No daemon answered (none runs, a refused socket, a timeout, a reply not understood).
    Unavailable(io::Error),
}

/// How a grep was answered.
pub enum Via {
    /// From the daemon's selection.
    Answered(GrepOutcome),
    /// In this process; `daemon_serves`: a daemon answered (it is building or catching up, or
    /// cannot narrow this search), so this process should neither build an index nor keep a
    /// watch of its own for it.
    InProcess { daemon_serves: bool },
}

/// What the caller knows besides the query.
pub struct Asking<'a> {
    pub handle: &'a IndexHandle,
    /// The file types as named (the query holds them compiled).
    pub types: &'a [String],
    pub types_not: &'a [String],
    /// How to start the daemon (`None`: never started from here).
    pub spawn: Option<&'a [String]>,
}

/// A grep answered from the daemon's selection when the workspace wants an index (`On`, or
/// `Auto` with one published) and a daemon answers; else `InProcess` (and the daemon is
/// started in the background when none runs).
pub fn grep(
    walker: impl Fn() -> Walker,
    query: &GrepQuery,
    asking: &Asking<'_>,
    sink: Option<crate::search::Sink<'_>>,
) -> Result<Via> {
    let in_process = Ok(Via::InProcess {
        daemon_serves: false,
    });
    let handle = asking.handle;
    let wanted = match handle.mode() {
        Mode::Off => false,
        Mode::On => true,
        Mode::Auto => handle.published(),
    };
    // Strict workspaces trust no watch; followed links have none in the daemon either.
    let walker_now = walker();
    if !wanted
        || !enabled()
        || handle.strict()
        || walker_now.options().follow_symlinks
        || query.max_matches == Some(0)
    {
        return in_process;
    }
    // A single file is searched directly; errors are the in-process search's to report.
    let real = match walker_now.target(&query.search_path) {
        Ok(Target::Dir(start)) => start.rel().to_path_buf(),
        _ => return in_process,
    };
    match select(&walker_now, &real, query, asking) {
        Answer::Selected(selected) => {
            crate::search::grep_selected(walker(), query, selected, sink).map(Via::Answered)
        }
        Answer::Scan(_) => Ok(Via::InProcess {
            daemon_serves: true,
        }),
        Answer::Unavailable(e) => {
            if e.kind() == io::ErrorKind::NotFound {
                if let Some(argv) = asking.spawn {
                    start_background(argv);
                }
            }
            in_process
        }
    }
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
    let _ = super::spawn::spawn_detached(argv);
}

fn text(path: &Path) -> Option<&str> {
    path.to_str()
}

/// The daemon's selection for `query` (searching the directory `real`, root-relative).
pub fn select(walker: &Walker, real: &Path, query: &GrepQuery, asking: &Asking<'_>) -> Answer {
    let unavailable = |why: &str| Answer::Unavailable(io::Error::other(why.to_string()));
    let root = walker.root();
    let (Some(root_text), Some(path_text)) = (text(root.real_path()), text(real)) else {
        return unavailable("a path that is not UTF-8 cannot be sent");
    };
    let options = walker.options();
    let ident = root.stat_self().map(|s| (s.st_dev, s.st_ino));
    let Ok((dev, ino)) = ident else {
        return unavailable("the root cannot be examined");
    };
    let pattern = &query.pattern;
    let request = json!({
        "op": "select",
        "root": root_text,
        "root_id": [dev, ino],
        "path": path_text,
        "walk": {
            "gitignore": options.rules.gitignore,
            "hidden": options.hidden,
            "follow_symlinks": options.follow_symlinks,
            "max_filesize": options.max_filesize,
            "access_files": options.rules.access_files,
        },
        "pattern": {
            "pattern": pattern.pattern,
            "literal": pattern.literal,
            "case_sensitive": pattern.case_sensitive,
            "multiline": pattern.multiline,
            "before": pattern.before,
            "after": pattern.after,
        },
        "include": query.include,
        "exclude": query.exclude,
        "types": asking.types,
        "types_not": asking.types_not,
    });
    match client::request(&request, SELECT_TIMEOUT) {
        Ok(reply) => parse(&reply),
        Err(e) => Answer::Unavailable(e),
    }
}

/// A `select` reply as an answer; anything not understood is `Scan` (the daemon serves, but
/// not this search).
fn parse(reply: &Value) -> Answer {
    if let Some(why) = reply.get("scan").and_then(Value::as_str) {
        return Answer::Scan(why.to_string());
    }
    if reply.get("ok") != Some(&Value::Bool(true)) {
        return Answer::Scan(format!("the daemon refused the search: {}", reply["error"]));
    }
    match selected(reply) {
        Some(selected) => Answer::Selected(selected),
        None => Answer::Scan("a selection this client does not understand".into()),
    }
}

fn path_of(value: &Value) -> Option<PathBuf> {
    match value {
        Value::String(s) => Some(PathBuf::from(s)),
        Value::Array(bytes) => {
            let bytes: Option<Vec<u8>> = bytes
                .iter()
                .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                .collect();
            Some(PathBuf::from(OsString::from_vec(bytes?)))
        }
        _ => None,
    }
}

fn reason_named(name: &str) -> Option<Reason> {
    Reason::ALL.iter().copied().find(|r| r.name() == name)
}

fn selected(reply: &Value) -> Option<Selected> {
    let files: Vec<PathBuf> = reply["files"]
        .as_array()?
        .iter()
        .map(path_of)
        .collect::<Option<_>>()?;
    // Root-relative paths in path order, nothing leaving the root: a reply breaking that is
    // not used.
    let sane = files.iter().all(|p| {
        p.is_relative()
            && p.components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
    }) && files
        .windows(2)
        .all(|w| w[0].as_os_str().as_bytes() < w[1].as_os_str().as_bytes());
    if !sane {
        return None;
    }
    let mut skipped = Vec::new();
    for entry in reply["skips"].as_array()? {
        let entry = entry.as_array()?;
        let (reason, count, examples) = (
            reason_named(entry.first()?.as_str()?)?,
            entry.get(1)?.as_u64()?,
            entry.get(2)?.as_array()?,
        );
        let examples = examples
            .iter()
            .map(|e| {
                let e = e.as_array()?;
                Some(Example {
                    path: path_of(e.first()?)?,
                    is_dir: e.get(1)?.as_bool()?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        skipped.push((reason, count, examples));
    }
    Some(Selected {
        files,
        binary: reply["binary"].as_u64()?,
        ignored: reply["ignored"].as_u64()?,
        unreadable: reply["unreadable"].as_u64()?,
        skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
