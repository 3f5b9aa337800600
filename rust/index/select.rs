//! What a search answered by the index's watch (no walk) selects and reports, so that it
//! equals a scan of the same scope: whether the watch may answer at all, which directories a
//! scan's walk would enter (exclude globs prune whole directories), and what the walk would
//! have passed over (gitignored, hidden, links, files too large, unreadable), replayed from
//! the walk that caught the watch up.

use super::fresh::Watch;
use crate::fs::rules::Verdict;
use crate::fs::skipped::{Passed, Reason, Skipped};
use crate::fs::walk::{DirFilter, WalkStats, Walker};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

/// Whether the watch may answer for walks of `scopes`: it vouches for the tree, and every
/// scope is where a walk of the whole tree goes. An explicit path inside an ignored or hidden
/// directory is searched by a scan (as ripgrep does) but was never walked nor watched.
pub fn answers(watch: &Watch, walker: &Walker, scopes: &[PathBuf]) -> bool {
    watch.trusted() && scopes.iter().all(|scope| walker.walkable(scope))
}

/// Whether a walk started at `scope` enters `dir`: every directory below `scope` down to
/// `dir` passes the walk's directory filter (the start itself is never filtered).
pub fn entered(filter: &DirFilter, scope: &Path, dir: &Path) -> bool {
    let mut at = Some(dir);
    while let Some(d) = at {
        if d == scope || d.as_os_str().is_empty() || !d.starts_with(scope) {
            break;
        }
        if !filter(d) {
            return false;
        }
        at = d.parent();
    }
    true
}

/// Whether a walk of one scope reaches paths below it, for paths asked in order (the
/// verdict of the last parent is kept: files of one directory come together).
pub struct Reach {
    scope: PathBuf,
    filter: Option<DirFilter>,
    last: Option<(PathBuf, bool)>,
}

impl Reach {
    pub fn new(scope: &Path, filter: Option<DirFilter>) -> Reach {
        Reach {
            scope: scope.to_path_buf(),
            filter,
            last: None,
        }
    }

    /// Whether the walk enters every directory above `rel` (below the scope).
    pub fn reaches(&mut self, rel: &Path) -> bool {
        let Some(filter) = &self.filter else {
            return true;
        };
        let parent = rel.parent().unwrap_or(Path::new(""));
        if let Some((dir, verdict)) = &self.last {
            if dir == parent {
                return *verdict;
            }
        }
        let verdict = entered(filter, &self.scope, parent);
        self.last = Some((parent.to_path_buf(), verdict));
        verdict
    }
}

/// Records in `stats` what walks of `scopes` would pass over outside the dirty paths (those
/// are looked at anew, see `fresh::dirty_files`), as the catch-up walk found it; entries
/// below a directory `filter` keeps out are not reached.
pub fn replay_skips(
    watch: &Watch,
    scopes: &[PathBuf],
    filter: Option<DirFilter>,
    stats: &WalkStats,
) {
    for scope in scopes {
        let mut reach = Reach::new(scope, filter.clone());
        for passed in watch.skips_below(scope) {
            if !watch.is_dirty(&passed.path) && reach.reaches(&passed.path) {
                replay(stats, passed);
            }
        }
    }
}

/// Counts one entry passed over as the walk counted it.
fn replay(stats: &WalkStats, passed: &Passed) {
    let (path, is_dir) = (&passed.path, passed.is_dir);
    match passed.reason {
        Reason::Gitignored => stats.add_ignored(Verdict::Hidden, path, is_dir),
        Reason::Denied => stats.add_ignored(Verdict::Denied, path, is_dir),
        Reason::Unreadable => stats.add_error_at(path, is_dir),
        reason => stats.skipped.record(reason, path, is_dir),
    }
}

/// Adds what another walk (of the same search) passed over to `into`.
pub fn absorb(into: &WalkStats, from: &WalkStats) {
    into.ignored.fetch_add(from.ignored(), Ordering::Relaxed);
    into.errors.fetch_add(from.errors(), Ordering::Relaxed);
    add_skipped(&into.skipped, &from.skipped);
}

fn add_skipped(into: &Skipped, from: &Skipped) {
    for (reason, count, examples) in from.report() {
        for example in &examples {
            into.record(reason, &example.path, example.is_dir);
        }
        into.add(reason, count.saturating_sub(examples.len() as u64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn excluding(name: &'static str) -> DirFilter {
        Arc::new(move |dir: &Path| dir.file_name().is_none_or(|n| n != name))
    }

    #[test]
    fn a_directory_kept_out_prunes_everything_below_it() {
        let filter = excluding("vendor");
        assert!(!entered(&filter, Path::new(""), Path::new("a/vendor/b")));
        assert!(entered(&filter, Path::new(""), Path::new("a/b")));
        // The start of the walk is never filtered, nor what is above it.
        assert!(entered(&filter, Path::new("vendor"), Path::new("vendor/x")));
        assert!(entered(
            &filter,
            Path::new("a/vendor/b"),
            Path::new("a/vendor/b/c")
        ));
        let mut reach = Reach::new(Path::new("a"), Some(filter));
        assert!(reach.reaches(Path::new("a/x.txt")));
        assert!(!reach.reaches(Path::new("a/vendor/x.txt")));
        assert!(!reach.reaches(Path::new("a/vendor/y.txt")));
        assert!(reach.reaches(Path::new("a/src/y.txt")));
        assert!(Reach::new(Path::new(""), None).reaches(Path::new("vendor/x")));
    }

    #[test]
    fn absorbed_counts_and_examples_are_those_of_one_walk() {
        let (one, other, both) = (
            WalkStats::default(),
            WalkStats::default(),
            WalkStats::default(),
        );
        let entries = [
            ("z/deep/x.log", Reason::Gitignored),
            ("build", Reason::Gitignored),
            ("a.log", Reason::Gitignored),
            ("m/n.log", Reason::Gitignored),
            (".env", Reason::Hidden),
            ("secret", Reason::Denied),
        ];
        for (i, (path, reason)) in entries.iter().enumerate() {
            let passed = Passed {
                reason: *reason,
                path: PathBuf::from(path),
                is_dir: false,
            };
            replay(if i % 2 == 0 { &one } else { &other }, &passed);
            replay(&both, &passed);
        }
        absorb(&one, &other);
        assert_eq!(one.ignored(), both.ignored());
        assert_eq!(one.ignored(), 5);
        assert_eq!(one.skipped.report(), both.skipped.report());
    }
}
