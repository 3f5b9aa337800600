//! Directory walking: `ignore::WalkBuilder` configured from the workspace options, with the
//! workspace rules, the symlink policy and the `.git` exclusion applied to every entry.

use crate::rules::{RuleOptions, Rules, Verdict};
use ignore::{DirEntry, WalkBuilder, WalkState};
use std::cmp::Ordering;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};

/// How a workspace walks its tree.
#[derive(Clone, Debug)]
pub struct WalkOptions {
    /// Canonical workspace root.
    pub root: PathBuf,
    pub rules: RuleOptions,
    /// Include hidden (dot) files and directories.
    pub hidden: bool,
    /// Follow symlinks whose target stays inside the root.
    pub follow_symlinks: bool,
    /// Skip files larger than this many bytes.
    pub max_filesize: Option<u64>,
    /// Worker threads; 0 picks the number of CPUs.
    pub threads: usize,
}

impl WalkOptions {
    pub fn thread_count(&self) -> usize {
        if self.threads > 0 {
            self.threads
        } else {
            std::thread::available_parallelism().map_or(2, |n| n.get())
        }
    }
}

/// What a walk skipped, counted across threads.
#[derive(Default, Debug)]
pub struct WalkStats {
    /// Entries hidden by ignore rules (an ignored directory counts once).
    pub ignored: AtomicU64,
    /// Entries that could not be read (permission denied, vanished, symlink loop).
    pub errors: AtomicU64,
}

impl WalkStats {
    pub fn ignored(&self) -> u64 {
        self.ignored.load(AtomicOrdering::Relaxed)
    }
    pub fn errors(&self) -> u64 {
        self.errors.load(AtomicOrdering::Relaxed)
    }
    pub fn add_error(&self) {
        self.errors.fetch_add(1, AtomicOrdering::Relaxed);
    }
}

/// Decides whether a directory (absolute path) is entered; used for exclude globs.
pub type DirFilter = Arc<dyn Fn(&Path) -> bool + Send + Sync>;

/// A configured walker over one workspace.
pub struct Walker {
    options: WalkOptions,
    rules: Arc<Rules>,
    stats: Arc<WalkStats>,
    dir_filter: Option<DirFilter>,
}

impl Walker {
    pub fn new(options: WalkOptions) -> Walker {
        let rules = Arc::new(Rules::new(options.root.clone(), options.rules.clone()));
        Walker {
            options,
            rules,
            stats: Arc::new(WalkStats::default()),
            dir_filter: None,
        }
    }

    pub fn with_dir_filter(mut self, filter: DirFilter) -> Walker {
        self.dir_filter = Some(filter);
        self
    }

    pub fn options(&self) -> &WalkOptions {
        &self.options
    }

    pub fn stats(&self) -> &Arc<WalkStats> {
        &self.stats
    }

    pub fn rules(&self) -> &Arc<Rules> {
        &self.rules
    }

    fn builder(&self, starts: &[PathBuf]) -> WalkBuilder {
        let mut builder = WalkBuilder::new(&starts[0]);
        for start in &starts[1..] {
            builder.add(start);
        }
        builder
            .standard_filters(false)
            .hidden(!self.options.hidden)
            .parents(false)
            .follow_links(self.options.follow_symlinks)
            .max_filesize(self.options.max_filesize)
            .threads(self.options.thread_count());
        let rules = self.rules.clone();
        let stats = self.stats.clone();
        let follow = self.options.follow_symlinks;
        let dir_filter = self.dir_filter.clone();
        builder.filter_entry(move |entry| keep_entry(entry, &rules, &stats, follow, &dir_filter));
        builder
    }

    /// Visits every regular file under `starts` in parallel, in no particular order.
    /// `make_visitor` is called once per worker thread.
    pub fn visit_parallel<'s, M>(&self, starts: &[PathBuf], mut make_visitor: M)
    where
        M: FnMut() -> Box<dyn FnMut(&DirEntry) -> WalkState + Send + 's>,
    {
        let stats = &self.stats;
        self.builder(starts).build_parallel().run(|| {
            let mut visit = make_visitor();
            Box::new(move |entry| match entry {
                Ok(entry) if is_file(&entry) => visit(&entry),
                Ok(_) => WalkState::Continue,
                Err(_) => {
                    stats.add_error();
                    WalkState::Continue
                }
            })
        });
    }

    /// Every regular file under `start`, lazily, in byte order of the path. Sequential: used
    /// where order matters more than walking speed (the walk stops as soon as it is dropped).
    pub fn sorted_files(&self, start: &Path) -> impl Iterator<Item = PathBuf> + use<> {
        self.sorted_entries(start, None)
            .filter_map(|unit| match unit {
                Unit::File(path) => Some(path),
                Unit::Dir(_) => None,
            })
    }

    /// Every regular file under `start`, lazily, in byte order of the path, walked in
    /// parallel: the sorted units, with runs of directory units expanded by one parallel walk
    /// each. Runs double in length (1, 2, 4, ... directories), so stopping early stays cheap
    /// while a full pass needs only a logarithmic number of walks.
    pub fn sorted_files_parallel(&self, start: &Path) -> SortedFiles<'_> {
        SortedFiles {
            walker: self,
            units: (Box::new(self.sorted_units(start)) as Box<dyn Iterator<Item = Unit>>)
                .peekable(),
            ready: VecDeque::new(),
            run_length: 1,
        }
    }

    /// The tree under `start` as a lazy, sorted sequence of units: the files within
    /// `UNIT_DEPTH` levels, and the directories at that depth (whole subtrees). Expanding each
    /// directory unit with `files_in` and concatenating gives every file in byte order.
    pub fn sorted_units(&self, start: &Path) -> impl Iterator<Item = Unit> + use<> {
        self.sorted_entries(start, Some(UNIT_DEPTH))
    }

    fn sorted_entries(
        &self,
        start: &Path,
        depth: Option<usize>,
    ) -> impl Iterator<Item = Unit> + use<> {
        let mut builder = self.builder(&[start.to_path_buf()]);
        let follow = self.options.follow_symlinks;
        builder
            .sort_by_file_path(move |a, b| byte_order(a, b, follow))
            .max_depth(depth);
        let stats = self.stats.clone();
        builder.build().filter_map(move |entry| match entry {
            Ok(entry) if is_file(&entry) => Some(Unit::File(entry.into_path())),
            Ok(entry)
                if Some(entry.depth()) == depth
                    && entry.file_type().is_some_and(|t| t.is_dir()) =>
            {
                Some(Unit::Dir(entry.into_path()))
            }
            Ok(_) => None,
            Err(_) => {
                stats.add_error();
                None
            }
        })
    }

    /// The visible entries of one directory, unsorted: `(name, is_dir)`, with the same rules
    /// as a walk (ignore files, hidden, `.git`, symlink policy). Links are listed as what they
    /// point to, and only when that stays inside the root.
    pub fn list_dir(&self, dir: &Path) -> std::io::Result<Vec<(String, bool)>> {
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            let Ok(entry) = entry else {
                self.stats.add_error();
                continue;
            };
            let name = entry.file_name();
            if name == ".git" || (!self.options.hidden && name.as_encoded_bytes().starts_with(b"."))
            {
                continue;
            }
            let path = entry.path();
            let Ok(mut file_type) = entry.file_type() else {
                self.stats.add_error();
                continue;
            };
            if file_type.is_symlink() {
                match (path.canonicalize(), path.metadata()) {
                    (Ok(target), Ok(meta)) if target.starts_with(self.rules.root()) => {
                        file_type = meta.file_type();
                    }
                    _ => continue,
                }
            }
            let is_dir = file_type.is_dir();
            if self.rules.verdict(&path, is_dir) != Verdict::Visible {
                self.stats.ignored.fetch_add(1, AtomicOrdering::Relaxed);
                continue;
            }
            entries.push((name.to_string_lossy().into_owned(), is_dir));
        }
        Ok(entries)
    }

    /// Every regular file under the directories `dirs`, walked in parallel, in byte order.
    pub fn files_in(&self, dirs: &[PathBuf]) -> Vec<PathBuf> {
        let found: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
        self.visit_parallel(dirs, || {
            let mut batch = Batch::new(&found);
            Box::new(move |entry| {
                batch.push(entry.path().to_path_buf());
                WalkState::Continue
            })
        });
        let mut files = found.into_inner().unwrap();
        sort_by_bytes(&mut files);
        files
    }
}

/// Depth of the directories that `sorted_units` hands out whole.
const UNIT_DEPTH: usize = 2;

/// A piece of a sorted walk: one file, or a directory to expand with `Walker::files_in`.
#[derive(Debug, PartialEq, Eq)]
pub enum Unit {
    File(PathBuf),
    Dir(PathBuf),
}

/// See `Walker::sorted_files_parallel`.
pub struct SortedFiles<'w> {
    walker: &'w Walker,
    units: std::iter::Peekable<Box<dyn Iterator<Item = Unit>>>,
    ready: VecDeque<PathBuf>,
    run_length: usize,
}

impl SortedFiles<'_> {
    /// Stops the lazy enumeration. Returns the files already expanded (in order, next in
    /// line), and what has not been reached yet: loose files and whole directories, which all
    /// sort after the expanded files, for a caller that will search them in any order.
    pub fn split_rest(self) -> (Vec<PathBuf>, Vec<PathBuf>, Vec<PathBuf>) {
        let ready = self.ready.into_iter().collect();
        let (mut files, mut dirs) = (Vec::new(), Vec::new());
        for unit in self.units {
            match unit {
                Unit::File(path) => files.push(path),
                Unit::Dir(dir) => dirs.push(dir),
            }
        }
        (ready, files, dirs)
    }
}

impl Iterator for SortedFiles<'_> {
    type Item = PathBuf;

    fn next(&mut self) -> Option<PathBuf> {
        loop {
            if let Some(path) = self.ready.pop_front() {
                return Some(path);
            }
            match self.units.next()? {
                Unit::File(path) => return Some(path),
                Unit::Dir(dir) => {
                    // A run takes the file units between its directories along, and sorts
                    // the union: the units are disjoint and consecutive in byte order.
                    let mut dirs = vec![dir];
                    let mut files = Vec::new();
                    while dirs.len() < self.run_length {
                        match self.units.next() {
                            Some(Unit::Dir(dir)) => dirs.push(dir),
                            Some(Unit::File(file)) => files.push(file),
                            None => break,
                        }
                    }
                    self.run_length *= 2;
                    files.extend(self.walker.files_in(&dirs));
                    sort_by_bytes(&mut files);
                    self.ready.extend(files);
                }
            }
        }
    }
}

fn sort_by_bytes(paths: &mut [PathBuf]) {
    paths.sort_unstable_by(|a, b| {
        a.as_os_str()
            .as_encoded_bytes()
            .cmp(b.as_os_str().as_encoded_bytes())
    });
}

/// A walker thread's buffer: appends to a shared vector in batches (one lock per batch),
/// and flushes the rest when the walker drops its visitor at the end of the walk.
pub struct Batch<'a, T> {
    local: Vec<T>,
    shared: &'a Mutex<Vec<T>>,
}

impl<'a, T> Batch<'a, T> {
    const SIZE: usize = 256;

    pub fn new(shared: &'a Mutex<Vec<T>>) -> Self {
        Batch {
            local: Vec::with_capacity(Self::SIZE),
            shared,
        }
    }

    pub fn push(&mut self, item: T) {
        self.local.push(item);
        if self.local.len() >= Self::SIZE {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if !self.local.is_empty() {
            self.shared.lock().unwrap().append(&mut self.local);
        }
    }
}

impl<T> Drop for Batch<'_, T> {
    fn drop(&mut self) {
        self.flush();
    }
}

fn is_file(entry: &DirEntry) -> bool {
    entry.file_type().is_some_and(|t| t.is_file())
}

fn keep_entry(
    entry: &DirEntry,
    rules: &Rules,
    stats: &WalkStats,
    follow_symlinks: bool,
    dir_filter: &Option<DirFilter>,
) -> bool {
    if entry.file_name() == ".git" {
        return false;
    }
    if entry.path_is_symlink() {
        if !follow_symlinks {
            return false;
        }
        // A followed link must stay inside the workspace, wherever it points from.
        match entry.path().canonicalize() {
            Ok(target) if target.starts_with(rules.root()) => {}
            _ => return false,
        }
    }
    let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
    if rules.verdict(entry.path(), is_dir) != Verdict::Visible {
        stats.ignored.fetch_add(1, AtomicOrdering::Relaxed);
        return false;
    }
    if is_dir {
        if let Some(filter) = dir_filter {
            return filter(entry.path());
        }
    }
    true
}

/// Orders sibling entries so that a depth-first walk yields paths in byte order of the whole
/// path: a directory `a` sorts as `a/`, after a file `a.txt` (`.` < `/`) but before `ab`.
fn byte_order(a: &Path, b: &Path, follow_symlinks: bool) -> Ordering {
    use std::os::unix::ffi::OsStrExt;
    let an = a.file_name().map_or(&[][..], |n| n.as_bytes());
    let bn = b.file_name().map_or(&[][..], |n| n.as_bytes());
    let is_dir = |p: &Path| {
        let meta = if follow_symlinks {
            p.metadata()
        } else {
            p.symlink_metadata()
        };
        meta.is_ok_and(|m| m.is_dir())
    };
    // Only when one name is a prefix of the other followed by a byte below '/' does the
    // directory suffix change the order; that is rare, so only then is the entry stat'ed.
    if an.len() > bn.len() && an.starts_with(bn) && an[bn.len()] < b'/' {
        return if is_dir(b) {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    if bn.len() > an.len() && bn.starts_with(an) && bn[an.len()] < b'/' {
        return if is_dir(a) {
            Ordering::Greater
        } else {
            Ordering::Less
        };
    }
    an.cmp(bn)
}

/// The path of `path` relative to `root`, with `/` separators.
pub fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn options(root: &Path) -> WalkOptions {
        WalkOptions {
            root: root.canonicalize().unwrap(),
            rules: RuleOptions {
                gitignore: true,
                access_files: vec![".codesiftignore".into()],
            },
            hidden: true,
            follow_symlinks: false,
            max_filesize: None,
            threads: 2,
        }
    }

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (path, text) in [
            ("a.txt", "x"),
            ("a/b.txt", "x"),
            ("ab.txt", "x"),
            ("a-b/c.txt", "x"),
            (".hidden/h.txt", "x"),
            (".git/config", "x"),
            ("build/out.o", "x"),
            (".gitignore", "build/\n"),
        ] {
            let p = root.join(path);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
        dir
    }

    #[test]
    fn sorted_walk_is_byte_ordered_and_skips_git_and_ignored() {
        let dir = tree();
        let walker = Walker::new(options(dir.path()));
        let root = walker.options().root.clone();
        let files: Vec<String> = walker
            .sorted_files(&root)
            .map(|p| relative(&root, &p))
            .collect();
        let mut expected = files.clone();
        expected.sort();
        assert_eq!(files, expected);
        assert_eq!(
            files,
            vec![
                ".gitignore",
                ".hidden/h.txt",
                "a-b/c.txt",
                "a.txt",
                "a/b.txt",
                "ab.txt"
            ]
        );
        assert_eq!(walker.stats().ignored(), 1);
    }

    #[test]
    fn units_expand_to_the_sorted_walk() {
        let dir = tree();
        for (path, text) in [("a/b/c/d.txt", "x"), ("a/b.c", "x"), ("z/y/x/w.txt", "x")] {
            let p = dir.path().join(path);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
        let walker = Walker::new(options(dir.path()));
        let root = walker.options().root.clone();
        let mut expanded = Vec::new();
        for unit in walker.sorted_units(&root) {
            match unit {
                Unit::File(path) => expanded.push(relative(&root, &path)),
                Unit::Dir(dir) => {
                    expanded.extend(walker.files_in(&[dir]).iter().map(|p| relative(&root, p)))
                }
            }
        }
        let sorted: Vec<String> = walker
            .sorted_files(&root)
            .map(|p| relative(&root, &p))
            .collect();
        assert_eq!(expanded, sorted);
        let parallel: Vec<String> = walker
            .sorted_files_parallel(&root)
            .map(|p| relative(&root, &p))
            .collect();
        assert_eq!(parallel, sorted);
        assert!(sorted.contains(&"a/b/c/d.txt".to_string()));
    }

    #[test]
    fn parallel_walk_sees_the_same_files() {
        let dir = tree();
        let walker = Walker::new(options(dir.path()));
        let root = walker.options().root.clone();
        let seen = Mutex::new(Vec::new());
        walker.visit_parallel(std::slice::from_ref(&root), || {
            Box::new(|entry| {
                seen.lock().unwrap().push(relative(&root, entry.path()));
                WalkState::Continue
            })
        });
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        let sorted: Vec<String> = walker
            .sorted_files(&root)
            .map(|p| relative(&root, &p))
            .collect();
        assert_eq!(seen, sorted);
    }

    #[test]
    fn symlinks_followed_only_inside_root() {
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.txt"), "s").unwrap();
        let dir = tree();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("a"), dir.path().join("in")).unwrap();
        let mut opts = options(dir.path());
        let root = opts.root.clone();
        let files = |opts: &WalkOptions| -> Vec<String> {
            Walker::new(opts.clone())
                .sorted_files(&root)
                .map(|p| relative(&root, &p))
                .collect()
        };
        let plain = files(&opts);
        assert!(
            !plain
                .iter()
                .any(|f| f.starts_with("in/") || f.starts_with("out/"))
        );
        opts.follow_symlinks = true;
        let followed = files(&opts);
        assert!(followed.contains(&"in/b.txt".to_string()), "{followed:?}");
        assert!(
            !followed.iter().any(|f| f.starts_with("out/")),
            "{followed:?}"
        );
    }
}
