//! What a walk or a search passed over, by reason, with a few example paths: so that a search
//! that finds nothing can say why ("2 gitignored paths hidden: build/, dist/") instead of
//! returning a silent false negative.
//!
//! Counting is an atomic add; the examples (the `EXAMPLES` top-most paths of each reason, by
//! depth then bytes, so they do not depend on the thread that saw them first) take a lock, but
//! only for entries the walk drops, never for the files it keeps.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Example paths kept per reason.
pub const EXAMPLES: usize = 3;

/// Why an entry was passed over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Hidden by `.gitignore`, `.ignore` or `.git/info/exclude` (`no_ignore` shows it).
    Gitignored,
    /// Denied by an access-ignore file (never shown; counted without examples).
    Denied,
    /// A dot file or directory while hidden files are off (`hidden` shows it).
    Hidden,
    /// A symlink not followed (or one leading outside the root).
    Symlink,
    /// Over the workspace's `max_filesize`.
    TooLarge,
    /// Contains a NUL byte: not searched as text.
    Binary,
    /// Could not be opened, listed or read (permission denied, vanished, swapped for a link).
    Unreadable,
}

impl Reason {
    pub const ALL: [Reason; 7] = [
        Reason::Gitignored,
        Reason::Denied,
        Reason::Hidden,
        Reason::Symlink,
        Reason::TooLarge,
        Reason::Binary,
        Reason::Unreadable,
    ];

    /// The key Python sees.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Gitignored => "gitignored",
            Reason::Denied => "denied",
            Reason::Hidden => "hidden",
            Reason::Symlink => "symlink",
            Reason::TooLarge => "too_large",
            Reason::Binary => "binary",
            Reason::Unreadable => "unreadable",
        }
    }

    fn slot(self) -> usize {
        self as usize
    }
}

/// An example path: workspace-relative, and whether it is a directory (shown with a `/`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Example {
    pub path: PathBuf,
    pub is_dir: bool,
}

impl Example {
    fn key(&self) -> (usize, &[u8]) {
        key(&self.path)
    }
}

/// The order of examples: fewest components first, then bytes.
fn key(path: &Path) -> (usize, &[u8]) {
    (path.iter().count(), path.as_os_str().as_bytes())
}

/// One entry passed over with its path, as logged (see `Skipped::start_log`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Passed {
    pub reason: Reason,
    pub path: PathBuf,
    pub is_dir: bool,
}

/// Counts and examples per reason, shared by the threads of a walk.
#[derive(Debug, Default)]
pub struct Skipped {
    counts: [AtomicU64; Reason::ALL.len()],
    examples: Mutex<[Vec<Example>; Reason::ALL.len()]>,
    /// Every entry recorded with its path, while logging: an index's watch keeps those of
    /// the walk that caught it up, to report them again without a walk.
    logging: AtomicBool,
    log: Mutex<Vec<Passed>>,
}

impl Skipped {
    /// From now on, also keeps every entry recorded with a path (`take_log`).
    pub fn start_log(&self) {
        self.logging.store(true, Ordering::Release);
    }

    /// The entries logged since `start_log`, and logging stops.
    pub fn take_log(&self) -> Vec<Passed> {
        self.logging.store(false, Ordering::Release);
        std::mem::take(&mut *self.log.lock().unwrap())
    }

    fn log(&self, reason: Reason, rel: &Path, is_dir: bool) {
        if self.logging.load(Ordering::Acquire) {
            self.log.lock().unwrap().push(Passed {
                reason,
                path: rel.to_path_buf(),
                is_dir,
            });
        }
    }

    /// Counts one entry passed over whose name is never shown (denied ones).
    pub fn record_unnamed(&self, reason: Reason, rel: &Path, is_dir: bool) {
        self.counts[reason.slot()].fetch_add(1, Ordering::Relaxed);
        self.log(reason, rel, is_dir);
    }

    /// Counts one entry passed over, keeping it as an example if it is among the top-most.
    pub fn record(&self, reason: Reason, rel: &Path, is_dir: bool) {
        self.counts[reason.slot()].fetch_add(1, Ordering::Relaxed);
        self.log(reason, rel, is_dir);
        let new = key(rel);
        let mut examples = self.examples.lock().unwrap();
        let kept = &mut examples[reason.slot()];
        // Most entries dropped (thousands of `*.o` beside the sources) are not among the
        // top-most: no allocation for them.
        if kept.len() == EXAMPLES && kept.last().is_some_and(|last| last.key() <= new) {
            return;
        }
        let at = kept.partition_point(|e| e.key() < new);
        if kept.get(at).is_some_and(|e| e.key() == new) {
            return;
        }
        kept.insert(
            at,
            Example {
                path: rel.to_path_buf(),
                is_dir,
            },
        );
        kept.truncate(EXAMPLES);
    }

    /// Counts `n` entries passed over without a path at hand.
    pub fn add(&self, reason: Reason, n: u64) {
        self.counts[reason.slot()].fetch_add(n, Ordering::Relaxed);
    }

    pub fn count(&self, reason: Reason) -> u64 {
        self.counts[reason.slot()].load(Ordering::Relaxed)
    }

    /// The top-most examples of `reason`, by depth then path bytes.
    pub fn examples(&self, reason: Reason) -> Vec<Example> {
        self.examples.lock().unwrap()[reason.slot()].clone()
    }

    /// Every reason with its count and examples (reasons with a count of 0 included).
    pub fn report(&self) -> Vec<(Reason, u64, Vec<Example>)> {
        Reason::ALL
            .iter()
            .map(|&r| (r, self.count(r), self.examples(r)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{shown_entry, write_files};

    #[test]
    fn keeps_the_top_most_examples_whatever_the_order() {
        let paths = [
            "a/b/c", "z", "a/x", "build", "dist", "a/b", "m/n/o/p", "dist", "b",
        ];
        let mut orders = vec![paths.to_vec()];
        let mut reversed = paths.to_vec();
        reversed.reverse();
        orders.push(reversed);
        for order in orders {
            let skipped = Skipped::default();
            for p in &order {
                skipped.record(Reason::Gitignored, Path::new(p), true);
            }
            let shown: Vec<String> = skipped
                .examples(Reason::Gitignored)
                .iter()
                .map(|e| e.path.to_string_lossy().into_owned())
                .collect();
            assert_eq!(shown, vec!["b", "build", "dist"], "order {order:?}");
            assert_eq!(skipped.count(Reason::Gitignored), paths.len() as u64);
            assert_eq!(skipped.count(Reason::Symlink), 0);
        }
    }

    fn walked(
        options: impl FnOnce(&mut crate::fs::walk::WalkOptions),
    ) -> (Vec<String>, std::sync::Arc<crate::fs::walk::WalkStats>) {
        use crate::fs::root::{Links, Root};
        use crate::fs::walk::{WalkOptions, Walker};
        use std::fs;
        use std::sync::Arc;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write_files(
            root,
            &[
                ("src/a.rs", "x"),
                ("build/deep/out.o", "x"),
                ("dist/b.js", "x"),
                ("src/gen.log", "x"),
                (".env", "x"),
                (".github/ci.yml", "x"),
                ("big.txt", "0123456789"),
                ("secret.key", "x"),
            ],
        );
        fs::write(root.join(".gitignore"), "build/\ndist/\n*.log\n").unwrap();
        fs::write(root.join(".codesiftignore"), "*.key\n").unwrap();
        std::os::unix::fs::symlink("src", root.join("lib")).unwrap();
        std::os::unix::fs::symlink("/nonexistent", root.join("dangling")).unwrap();
        let mut opts = WalkOptions::for_tests(false, 2);
        opts.rules.access_files = vec![".codesiftignore".into()];
        opts.max_filesize = Some(5);
        options(&mut opts);
        let w = Walker::new(Arc::new(Root::open(root).unwrap()), opts);
        let start = w.start(Path::new(""), Links::Refuse).unwrap();
        let files: Vec<String> = w
            .sorted_files(start)
            .map(|f| f.rel.to_string_lossy().into_owned())
            .collect();
        (files, Arc::clone(w.stats()))
    }

    fn shown(skipped: &Skipped, reason: Reason) -> Vec<String> {
        skipped
            .examples(reason)
            .iter()
            .map(|e| shown_entry(&e.path, e.is_dir))
            .collect()
    }

    #[test]
    fn a_walk_counts_what_it_passes_over_by_reason() {
        let (files, stats) = walked(|_| {});
        let skipped = &stats.skipped;
        assert_eq!(files, vec!["src/a.rs"]);
        assert_eq!(skipped.count(Reason::Gitignored), 3);
        assert_eq!(
            shown(skipped, Reason::Gitignored),
            vec!["build/", "dist/", "src/gen.log"]
        );
        assert_eq!(skipped.count(Reason::Denied), 1);
        assert!(
            skipped.examples(Reason::Denied).is_empty(),
            "denied names stay unseen"
        );
        // .gitignore and .codesiftignore are dot files too.
        assert_eq!(skipped.count(Reason::Hidden), 4);
        assert_eq!(shown(skipped, Reason::Hidden)[0], ".codesiftignore");
        assert_eq!(skipped.count(Reason::Symlink), 2);
        assert_eq!(shown(skipped, Reason::Symlink), vec!["dangling", "lib"]);
        assert_eq!(skipped.count(Reason::TooLarge), 1);
        assert_eq!(shown(skipped, Reason::TooLarge), vec!["big.txt"]);
        assert_eq!(skipped.count(Reason::Unreadable), 0);
    }

    #[test]
    fn nothing_is_counted_for_what_the_options_include() {
        let (files, stats) = walked(|o| {
            o.rules.gitignore = false;
            o.hidden = true;
            o.follow_symlinks = true;
            o.max_filesize = None;
        });
        let skipped = &stats.skipped;
        assert!(files.contains(&"build/deep/out.o".to_string()), "{files:?}");
        assert!(files.contains(&"lib/a.rs".to_string()), "{files:?}");
        assert_eq!(skipped.count(Reason::Gitignored), 0);
        assert_eq!(skipped.count(Reason::Hidden), 0);
        assert_eq!(skipped.count(Reason::TooLarge), 0);
        // The dangling link is still passed over (there is nothing to follow).
        assert_eq!(shown(skipped, Reason::Symlink), vec!["dangling"]);
        assert_eq!(skipped.count(Reason::Denied), 1);
    }

    #[test]
    fn counts_without_paths_and_reports_every_reason() {
        let skipped = Skipped::default();
        skipped.add(Reason::Binary, 4);
        skipped.record(Reason::Symlink, Path::new("lib"), false);
        let report = skipped.report();
        assert_eq!(report.len(), Reason::ALL.len());
        let binary = report.iter().find(|(r, ..)| *r == Reason::Binary).unwrap();
        assert_eq!((binary.1, binary.2.len()), (4, 0));
        let link = report.iter().find(|(r, ..)| *r == Reason::Symlink).unwrap();
        assert_eq!(link.1, 1);
        assert_eq!(link.2[0].path, PathBuf::from("lib"));
    }
}
