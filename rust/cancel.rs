//! Cancellation of a running walk or search from another thread, and how far it got: a
//! shared flag the walker and the searchers poll between directories and files, and two
//! counters a caller can read while the search runs (to report progress).
//!
//! Cloning a `CancelToken` shares it. A walker without one is given a fresh token that
//! nobody cancels, so the checks cost one relaxed atomic load. A `child` token is one call's
//! own: cancelled with its parent or alone (Ctrl-C stops that call without cancelling a
//! token the caller shares with other calls), its counts also counted in the parent.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<State>);

#[derive(Debug, Default)]
struct State {
    cancelled: AtomicBool,
    files_walked: AtomicU64,
    files_searched: AtomicU64,
    parent: Option<CancelToken>,
}

impl CancelToken {
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// A token of its own for one call under this one: cancelled when this one is (or by
    /// itself, leaving this one as it is); what it counts is counted here too.
    pub fn child(&self) -> CancelToken {
        CancelToken(Arc::new(State {
            parent: Some(self.clone()),
            ..State::default()
        }))
    }

    /// Asks every walk and search holding this token to stop as soon as it next checks.
    pub fn cancel(&self) {
        self.0.cancelled.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(Ordering::Relaxed)
            || self
                .0
                .parent
                .as_ref()
                .is_some_and(CancelToken::is_cancelled)
    }

    /// Regular files the walks have listed so far.
    pub fn files_walked(&self) -> u64 {
        self.0.files_walked.load(Ordering::Relaxed)
    }

    /// Files whose contents a search has finished with so far.
    pub fn files_searched(&self) -> u64 {
        self.0.files_searched.load(Ordering::Relaxed)
    }

    /// `Err(Cancelled)` once the token is cancelled: a `what` ("grep", "glob") that stopped
    /// early returns no partial result.
    pub fn check(&self, what: &str) -> crate::error::Result<()> {
        if !self.is_cancelled() {
            return Ok(());
        }
        let done = if what == "grep" {
            format!("{} files searched", self.files_searched())
        } else {
            format!("{} files walked", self.files_walked())
        };
        Err(crate::error::Error::Cancelled(format!(
            "{what} was cancelled and stopped early ({done}); run it again to get a result"
        )))
    }

    pub(crate) fn add_walked(&self, files: u64) {
        if files > 0 {
            self.0.files_walked.fetch_add(files, Ordering::Relaxed);
            if let Some(parent) = &self.0.parent {
                parent.add_walked(files);
            }
        }
    }

    pub(crate) fn add_searched(&self) {
        self.0.files_searched.fetch_add(1, Ordering::Relaxed);
        if let Some(parent) = &self.0.parent {
            parent.add_searched();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_flag_and_the_counters() {
        let token = CancelToken::new();
        let other = token.clone();
        assert!(!other.is_cancelled());
        token.add_walked(3);
        token.add_searched();
        token.cancel();
        assert!(other.is_cancelled());
        assert_eq!((other.files_walked(), other.files_searched()), (3, 1));
        assert!(
            !CancelToken::new().is_cancelled(),
            "a new token is independent"
        );
    }

    #[test]
    fn a_child_is_cancelled_with_its_parent_or_alone_and_counts_in_both() {
        let parent = CancelToken::new();
        let child = parent.child();
        child.add_walked(2);
        child.add_searched();
        assert_eq!((parent.files_walked(), parent.files_searched()), (2, 1));
        child.cancel();
        assert!(child.is_cancelled() && !parent.is_cancelled());
        let second = parent.child();
        parent.cancel();
        assert!(
            second.is_cancelled(),
            "a parent's cancel reaches its children"
        );
    }

    use crate::fs::root::Root;
    use crate::fs::walk::{WalkOptions, Walker};
    use crate::glob::{GlobQuery, GlobSort, glob};
    use crate::grep::PatternOptions;
    use crate::search::{GrepQuery, grep};
    use std::path::{Path, PathBuf};

    const DIRS: usize = 200;
    const FILES_PER_DIR: usize = 10;
    const TOTAL: u64 = (DIRS * FILES_PER_DIR) as u64;

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for d in 0..DIRS {
            let sub = dir.path().join(format!("d{d:03}"));
            std::fs::create_dir(&sub).unwrap();
            for f in 0..FILES_PER_DIR {
                std::fs::write(sub.join(format!("f{f}.txt")), "nothing to see\n").unwrap();
            }
        }
        dir
    }

    /// A walker whose token is cancelled when the walk opens its 20th directory: what
    /// follows must not be walked or searched (a few directories already listed by other
    /// threads may still be).
    fn cancelling_walker(root: &Path, token: &CancelToken) -> Walker {
        let options = WalkOptions::for_tests(true, 2);
        let trigger = token.clone();
        let opened = std::sync::atomic::AtomicUsize::new(0);
        Walker::new(std::sync::Arc::new(Root::open(root).unwrap()), options)
            .with_cancel(token.clone())
            .with_dir_hook(Some(std::sync::Arc::new(move |_: &Path, _| {
                if opened.fetch_add(1, Ordering::Relaxed) == 20 {
                    trigger.cancel();
                }
            })))
    }

    fn grep_query(max_matches: Option<usize>) -> GrepQuery {
        GrepQuery {
            pattern: PatternOptions {
                pattern: "absent".into(),
                literal: true,
                ..Default::default()
            },
            max_matches,
            count_total: max_matches.is_none(),
            ..Default::default()
        }
    }

    #[test]
    fn a_cancelled_grep_stops_walking_and_searching() {
        let dir = tree();
        // Both plans: the ordered one (a limit) and the exhaustive parallel one.
        for max_matches in [Some(500), None] {
            let token = CancelToken::new();
            let walker = cancelling_walker(dir.path(), &token);
            grep(walker, &grep_query(max_matches), None).unwrap();
            assert!(token.is_cancelled());
            let searched = token.files_searched();
            assert!(
                searched < TOTAL / 2,
                "{max_matches:?}: searched {searched} of {TOTAL} files after the cancel"
            );
            assert!(
                token.files_walked() < TOTAL / 2,
                "walked {}",
                token.files_walked()
            );
        }
    }

    #[test]
    fn a_grep_that_is_not_cancelled_searches_everything() {
        let dir = tree();
        let token = CancelToken::new();
        let walker = cancelling_walker(dir.path(), &CancelToken::new()).with_cancel(token.clone());
        let outcome = grep(walker, &grep_query(Some(500)), None).unwrap();
        assert_eq!(
            (outcome.files_searched, token.files_searched()),
            (TOTAL, TOTAL)
        );
    }

    #[test]
    fn a_cancelled_glob_stops_walking() {
        let dir = tree();
        let token = CancelToken::new();
        let walker = cancelling_walker(dir.path(), &token);
        let query = GlobQuery {
            pattern: "*.txt".into(),
            search_path: PathBuf::new(),
            case_sensitive: true,
            limit: 100_000,
            sort: GlobSort::Path,
            types: None,
        };
        let outcome = glob(&walker, &query, None).unwrap();
        assert!(
            (outcome.total as u64) < TOTAL / 2 && token.files_walked() < TOTAL / 2,
            "found {} and walked {} of {TOTAL} files after the cancel",
            outcome.total,
            token.files_walked()
        );
    }
}
