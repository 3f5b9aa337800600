//! Keeping an indexed search fresh without `stat`ing the whole tree: an inotify watch on every
//! directory the walk entered, read *synchronously* at the start of each query.
//!
//! Written on rustix's inotify calls rather than the `notify` crate: notify reads events on a
//! background thread and hands them over later, so a query could start before the event of a
//! write that already finished was seen. The kernel queues an inotify event inside the writing
//! syscall itself, so draining the queue (non-blocking) when a query starts sees every change
//! completed before it — no stale result, without cookie files in the tree.
//!
//! What the watch cannot tell precisely makes it give up (`broken`) and the next query walks
//! and `stat`s the whole tree again: a queue overflow, a watched directory moved (its events
//! would carry the old path), a rule file changed (visibility of many files changes: a
//! `.gitignore`, `.ignore` or access file anywhere, a `.git` appearing or going, which makes a
//! repository boundary, the `info/exclude` of any repository in the tree), the per-user watch
//! limit reached.

use crate::fs::dir::DirRef;
use crate::fs::notify::Notify;
use crate::fs::root::Links;
use crate::fs::rules::Verdict;
use crate::fs::skipped::{Passed, Reason};
use crate::fs::walk::{Batch, DirHook, FileEntry, WalkState, Walker};
use rustix::fs::FileType;
use rustix::fs::inotify::{ReadFlags, WatchFlags};
use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A directory holding this is a repository: a boundary for the git rules above it, and
/// its `info/exclude` holds rules.
const GIT: &[u8] = b".git";

/// Tells watches apart for [`Watch::listing_token`].
static NEXT_WATCH_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// A rule file ripgrep reads that codesift's own walk does not (its changes do not break the
/// watch, but they do change what ripgrep lists).
const RG_IGNORE: &[u8] = b".rgignore";

/// The names of files and directories that hold or bound ripgrep's rules inside the tree.
const RULES_FOR_RG: [&[u8]; 5] = [b".gitignore", b".ignore", RG_IGNORE, GIT, b".jj"];

/// What a watched directory is to the watch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A directory of the tree: its events make paths dirty.
    Tree,
    /// A repository's `.git`: only its `info` matters (where `exclude` lives).
    GitDir,
    /// A repository's `.git/info`: only its `exclude` matters.
    GitInfo,
}

const MASK: WatchFlags = WatchFlags::MODIFY
    .union(WatchFlags::ATTRIB)
    .union(WatchFlags::CLOSE_WRITE)
    .union(WatchFlags::CREATE)
    .union(WatchFlags::DELETE)
    .union(WatchFlags::MOVED_FROM)
    .union(WatchFlags::MOVED_TO)
    .union(WatchFlags::DELETE_SELF)
    .union(WatchFlags::MOVE_SELF)
    .union(WatchFlags::ONLYDIR);

/// Changes seen since the watch started, relative to the index.
pub struct Watch {
    notify: Notify,
    dirs: HashMap<i32, (PathBuf, Kind)>,
    /// Paths (files or directories) that changed: an indexed file at or below one is read
    /// from disk, and one that is a file or directory now is searched.
    pub dirty: HashSet<PathBuf>,
    /// The watch may have missed something: the next query walks the whole tree.
    pub broken: bool,
    /// A full walk has run since the watch started (until then nothing can be skipped).
    pub caught_up: bool,
    /// The build (its start, ns) of the index this watch caught up against: what is not dirty
    /// is as that index has it, and as any newer one has it, never an older one.
    pub generation: i64,
    /// Names whose change makes every path's visibility uncertain (rule files).
    rule_names: Vec<Vec<u8>>,
    /// This watch among all the process has made (a watch replaced is another history).
    pub id: u64,
    /// Events since the watch started that may change which files a listing shows: any
    /// entry created, removed, moved or with new attributes, and any write to a rule file
    /// (`.rgignore` included: ripgrep reads it, codesift's walk does not). A write to a
    /// file's contents does not count: a cached list of files stays true across edits.
    pub listing_changes: u64,
    /// Events since the watch started that may change which files ripgrep's rules keep
    /// among those that exist: anything done to a directory (created, removed, moved in or
    /// out: its rule files come or go with it), and any event naming a rule file or a
    /// repository marker (`.gitignore`, `.ignore`, `.rgignore`, `.git`, `.jj`). Files
    /// created, removed or renamed and contents written do not count: a rule's verdict on a
    /// path depends on the path and the rule files above it, not on the file.
    pub rules_changes: u64,
    /// What the walk that caught the watch up passed over (gitignored, hidden, ...), sorted
    /// by path bytes: what is not dirty is still passed over, and is reported as a scan
    /// would report it.
    pub skips: Vec<Passed>,
    /// Every `.git` entry (a repository, a worktree's or submodule's link file) in the
    /// directories the watch follows, root-relative: a walk never enters them, but ripgrep
    /// with `--hidden` does, so a client that lists them from disk must know where they are.
    /// A superset while the watch is trusted (one appearing breaks it; one removed stays).
    pub git_entries: std::collections::BTreeSet<PathBuf>,
}

impl Watch {
    pub fn new(rule_names: Vec<Vec<u8>>) -> std::io::Result<Watch> {
        Ok(Watch {
            notify: Notify::new()?,
            dirs: HashMap::new(),
            dirty: HashSet::new(),
            broken: false,
            caught_up: false,
            generation: 0,
            rule_names,
            id: NEXT_WATCH_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            listing_changes: 0,
            rules_changes: 0,
            skips: Vec::new(),
            git_entries: Default::default(),
        })
    }

    /// Names the tree's listing as this watch last saw it: equal tokens (read after
    /// `drain`) mean no entry was created, removed, moved or re-permitted and no rule file
    /// written in between, so a list of files taken between them is still the list.
    pub fn listing_token(&self) -> String {
        format!("{}:{}", self.id, self.listing_changes)
    }

    /// Names the rules' verdicts as this watch last saw the tree (see `rules_changes`): equal
    /// tokens (read after `drain`) mean every path's verdict under ripgrep's rules is
    /// the same, given the same rule files outside the tree and the same flags.
    pub fn rules_token(&self) -> String {
        format!("{}:{}", self.id, self.rules_changes)
    }

    /// Whether the watch vouches for the tree: caught up by a full walk, and nothing missed
    /// since (else the next search walks).
    pub fn trusted(&self) -> bool {
        self.caught_up && !self.broken
    }

    /// Marks the watch caught up by a walk of the whole tree that passed over `skips`.
    pub fn catch_up(&mut self, mut skips: Vec<Passed>) {
        skips.sort_unstable_by(|a, b| a.path.as_os_str().cmp(b.path.as_os_str()));
        self.skips = skips;
        self.caught_up = true;
    }

    /// The entries passed over strictly below `dir`, from the catch-up walk.
    pub fn skips_below(&self, dir: &Path) -> &[Passed] {
        let mut prefix = dir.as_os_str().as_bytes().to_vec();
        if prefix.is_empty() {
            return &self.skips;
        }
        prefix.push(b'/');
        fn bytes(p: &Passed) -> &[u8] {
            p.path.as_os_str().as_bytes()
        }
        let first = self.skips.partition_point(|p| bytes(p) < prefix.as_slice());
        *prefix.last_mut().unwrap() = b'/' + 1; // "dir/" .. "dir0": '0' follows '/'
        let end = self.skips.partition_point(|p| bytes(p) < prefix.as_slice());
        &self.skips[first..end.max(first)]
    }

    /// Watches the open directory `dir` (at `rel`); called before the directory is listed,
    /// so nothing created after the listing goes unseen. The watch is added through the
    /// descriptor (`/proc/self/fd`), never through a path that could have been swapped.
    /// A repository's `.git` and `.git/info` in it are watched too (walks never enter
    /// `.git`): `info/exclude` holds rules.
    pub fn add(&mut self, rel: &Path, dir: DirRef<'_>) {
        self.add_kind(rel, dir, Kind::Tree);
        self.add_git(rel, dir);
    }

    fn add_kind(&mut self, rel: &Path, dir: DirRef<'_>, kind: Kind) {
        match self.notify.add(dir, MASK) {
            Ok(wd) => {
                let before = self.dirs.insert(wd, (rel.to_path_buf(), kind));
                // One directory both in the tree and a repository's (a `.git` that is a link
                // into the tree): its events cannot be told apart.
                if before.is_some_and(|(_, k)| k != kind) {
                    self.broken = true;
                }
            }
            // The per-user watch limit (ENOSPC) or anything else: give up on watching.
            Err(_) => self.broken = true,
        }
    }

    /// Watches `.git` and `.git/info` of the directory `dir` (at `rel`) when it has them,
    /// reached as the rules reach them (a `.git` link is followed).
    fn add_git(&mut self, rel: &Path, dir: DirRef<'_>) {
        let git_rel = rel.join(OsStr::from_bytes(GIT));
        let git = match dir.open_dir_following(OsStr::from_bytes(GIT)) {
            Ok(git) => git,
            Err(e) => {
                // A file (a worktree's link) has no `info/exclude` to read, but is an entry.
                if e.kind() != std::io::ErrorKind::NotFound {
                    self.git_entries.insert(git_rel);
                }
                return;
            }
        };
        self.git_entries.insert(git_rel.clone());
        self.add_kind(&git_rel, git.borrow(), Kind::GitDir);
        if let Ok(info) = git.borrow().open_dir_following("info") {
            self.add_kind(&git_rel.join("info"), info.borrow(), Kind::GitInfo);
        }
    }

    /// Also watches the root repository's `.git` and `.git/info` before a walk (the walk
    /// watches those of every directory it lists, the root's included).
    pub fn add_git_info(&mut self, root: &crate::fs::root::Root) {
        if let Ok(dir) = root.open_dir(Path::new(""), Links::Refuse) {
            self.add_git(Path::new(""), dir.borrow());
        }
    }

    /// Reads every event queued so far into `dirty` (or `broken`).
    pub fn drain(&mut self) {
        let Watch {
            notify,
            dirs,
            dirty,
            broken,
            rule_names,
            listing_changes,
            rules_changes,
            ..
        } = self;
        let read = notify.for_each_queued(|event| {
            let mask = event.events();
            if mask.contains(ReadFlags::QUEUE_OVERFLOW) {
                *broken = true;
                return;
            }
            let wd = event.wd();
            if mask.contains(ReadFlags::IGNORED) {
                dirs.remove(&wd);
                return;
            }
            let Some((dir, kind)) = dirs.get(&wd) else {
                return;
            };
            if *kind != Kind::Tree {
                // Git's own files change all the time; only the way to `info/exclude` counts.
                let wanted: &[u8] = if *kind == Kind::GitDir {
                    b"info"
                } else {
                    b"exclude"
                };
                let relevant = match event.file_name() {
                    Some(name) => name.to_bytes() == wanted,
                    None => mask.intersects(ReadFlags::DELETE_SELF | ReadFlags::MOVE_SELF),
                };
                *broken |= relevant;
                return;
            }
            let contents_only = (mask - ReadFlags::ISDIR)
                .difference(ReadFlags::MODIFY | ReadFlags::CLOSE_WRITE)
                .is_empty();
            let rule_file = event.file_name().is_some_and(|n| n.to_bytes() == RG_IGNORE);
            if !contents_only || rule_file {
                *listing_changes += 1;
            }
            let names_a_rule = event.file_name().is_none_or(|n| {
                let n = n.to_bytes();
                RULES_FOR_RG.contains(&n) || rule_names.iter().any(|r| r.as_slice() == n)
            });
            if (!contents_only && mask.contains(ReadFlags::ISDIR)) || names_a_rule {
                *rules_changes += 1;
            }
            match event.file_name() {
                Some(name) => {
                    let name = name.to_bytes();
                    if name == GIT || rule_names.iter().any(|r| r.as_slice() == name) {
                        *broken = true;
                    }
                    let path = dir.join(OsStr::from_bytes(name));
                    dirty.insert(path);
                }
                None => {
                    // The directory itself moved: later events would carry its old path.
                    if mask.intersects(ReadFlags::MOVE_SELF) {
                        *broken = true;
                    }
                    dirty.insert(dir.clone());
                }
            }
        });
        if !read {
            *broken = true;
        }
    }

    /// Whether `rel` or one of its ancestors changed.
    pub fn is_dirty(&self, rel: &Path) -> bool {
        if self.dirty.is_empty() {
            return false;
        }
        let mut path = Some(rel);
        while let Some(p) = path {
            if p.as_os_str().is_empty() {
                break;
            }
            if self.dirty.contains(p) {
                return true;
            }
            path = p.parent();
        }
        false
    }
}

/// What a walk of each of `scopes` (directories a scan walks whole) would find now at or
/// below the dirty paths: the files `accept` takes, and what it passes over (recorded in the
/// walker's stats as the walk would record them). A dirty file as it is now; a dirty
/// directory walked whole and watched (it may be new); a scope at or below a dirty path
/// walked whole (the watch has not seen inside it). Outermost paths first; a path inside a
/// directory already walked is skipped. Entries below a directory the walker's filter keeps
/// out (an exclude glob) are left out, as the walk prunes them.
pub fn dirty_files(
    walker: Walker,
    watch: Watch,
    scopes: &[PathBuf],
    accept: &(dyn Fn(&Path) -> bool + Sync),
) -> (Vec<FileEntry>, Walker, Watch) {
    let mut dirty: Vec<(PathBuf, &Path)> = Vec::new();
    for path in &watch.dirty {
        for scope in scopes {
            if path.starts_with(scope) {
                dirty.push((path.clone(), scope));
            } else if scope.starts_with(path) {
                dirty.push((scope.clone(), scope));
            }
        }
    }
    dirty.sort();
    dirty.dedup();
    let mut walked: Vec<PathBuf> = Vec::new();
    let mut files = Vec::new();
    let found: Mutex<Vec<FileEntry>> = Mutex::new(Vec::new());
    let watch = Arc::new(Mutex::new(watch));
    let hook: DirHook = {
        let w = watch.clone();
        Arc::new(move |rel: &Path, fd| w.lock().unwrap().add(rel, fd))
    };
    let walker = walker.with_dir_hook(Some(hook));
    let filter = walker.dir_filter();
    let stats = walker.stats().clone();
    let walk = |dir: &Path| match walker.start(dir, Links::Refuse) {
        Ok(start) => walker.visit_parallel(vec![start], || {
            let mut batch = Batch::new(&found);
            Box::new(move |entry| {
                if accept(&entry.rel) {
                    batch.push(entry.clone());
                }
                WalkState::Continue
            })
        }),
        Err(_) => stats.add_error_at(dir, true),
    };
    for (path, scope) in &dirty {
        if walked.iter().any(|w| path.starts_with(w)) {
            continue;
        }
        if path == scope {
            // The caller found the scope where a walk goes; gone, it holds nothing.
            if walker
                .root()
                .lstat(path)
                .is_ok_and(|s| FileType::from_raw_mode(s.st_mode) == FileType::Directory)
            {
                walk(path);
            }
            walked.push(path.clone());
            continue;
        }
        let Ok(stat) = walker.root().lstat(path) else {
            continue; // gone
        };
        let parent = path.parent().unwrap_or(Path::new(""));
        let reached = walker.walkable(parent)
            && filter
                .as_ref()
                .is_none_or(|f| super::select::entered(f, scope, parent));
        let Some(name) = path.file_name().map(|n| n.as_bytes()) else {
            continue;
        };
        if !reached {
            continue;
        }
        let kind = FileType::from_raw_mode(stat.st_mode);
        let is_dir = kind == FileType::Directory;
        if !walker.visible_name(name) {
            walker.count_invisible(parent, name, is_dir);
            continue;
        }
        match kind {
            // Watched workspaces never follow links (see `IndexHandle::new`).
            FileType::Symlink => {
                stats.skipped.record(Reason::Symlink, path, false);
                continue;
            }
            FileType::Directory | FileType::RegularFile => {}
            _ => continue,
        }
        let verdict = walker.rules().verdict_with_ancestors(path, is_dir);
        if verdict != Verdict::Visible {
            stats.add_ignored(verdict, path, is_dir);
            continue;
        }
        if is_dir {
            if filter.as_ref().is_none_or(|f| f(path)) {
                walk(path);
            }
            walked.push(path.clone());
        } else if walker
            .options()
            .max_filesize
            .is_some_and(|max| stat.st_size as u64 > max)
        {
            stats.skipped.record(Reason::TooLarge, path, false);
        } else if accept(path) {
            files.push(path.clone());
        }
    }
    let mut entries = walker.files_at(files);
    entries.extend(found.into_inner().unwrap());
    let walker = walker.with_dir_hook(None);
    let watch = Arc::try_unwrap(watch)
        .map_err(|_| ())
        .expect("the walks are over")
        .into_inner()
        .unwrap();
    (entries, walker, watch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::dir::Dir;
    use std::fs;

    #[test]
    fn the_listing_token_moves_with_entries_and_rule_files_not_with_contents() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.txt"), "x").unwrap();
        let mut watch = Watch::new(vec![b".gitignore".to_vec()]).unwrap();
        let root = Dir::open_ambient(dir.path()).unwrap();
        watch.add(Path::new(""), root.borrow());
        let start = watch.listing_token();
        fs::write(dir.path().join("a.txt"), "new contents").unwrap();
        watch.drain();
        assert_eq!(watch.listing_token(), start, "a write to a file's contents");
        fs::write(dir.path().join("b.txt"), "x").unwrap();
        watch.drain();
        let created = watch.listing_token();
        assert_ne!(created, start, "a file created");
        fs::write(dir.path().join(".rgignore"), "*.txt\n").unwrap();
        watch.drain();
        let ruled = watch.listing_token();
        assert_ne!(ruled, created, ".rgignore written");
        fs::write(dir.path().join(".rgignore"), "*.md\n").unwrap();
        watch.drain();
        assert_ne!(watch.listing_token(), ruled, ".rgignore rewritten in place");
        let before = watch.listing_token();
        fs::rename(dir.path().join("b.txt"), dir.path().join("c.txt")).unwrap();
        watch.drain();
        assert_ne!(watch.listing_token(), before, "a rename");
        let other = Watch::new(Vec::new()).unwrap();
        assert_ne!(
            other.listing_token().split(':').next(),
            watch.listing_token().split(':').next(),
            "another watch has another history"
        );
    }

    #[test]
    fn the_rules_token_moves_with_directories_and_rule_files_not_with_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut watch = Watch::new(vec![b".gitignore".to_vec()]).unwrap();
        let root = Dir::open_ambient(dir.path()).unwrap();
        watch.add(Path::new(""), root.borrow());
        let mut token = watch.rules_token();
        type Change<'a> = (&'a str, &'a dyn Fn(&Path));
        let file_changes: [Change; 4] = [
            ("a file created", &|d| {
                fs::write(d.join("a.txt"), "x").unwrap()
            }),
            ("a file written", &|d| {
                fs::write(d.join("a.txt"), "y").unwrap()
            }),
            ("a file renamed", &|d| {
                fs::rename(d.join("a.txt"), d.join("b.txt")).unwrap()
            }),
            ("a file removed", &|d| {
                fs::remove_file(d.join("b.txt")).unwrap()
            }),
        ];
        for (what, change) in file_changes {
            change(dir.path());
            watch.drain();
            assert_eq!(watch.rules_token(), token, "{what}");
        }
        let rule_changes: [Change; 7] = [
            ("a directory created", &|d| {
                fs::create_dir(d.join("new")).unwrap()
            }),
            ("a directory moved", &|d| {
                fs::rename(d.join("new"), d.join("moved")).unwrap()
            }),
            ("a directory removed", &|d| {
                fs::remove_dir(d.join("moved")).unwrap()
            }),
            (".rgignore written", &|d| {
                fs::write(d.join(".rgignore"), "*.c\n").unwrap()
            }),
            (".rgignore rewritten", &|d| {
                fs::write(d.join(".rgignore"), "*.h\n").unwrap()
            }),
            (".ignore created", &|d| {
                fs::write(d.join(".ignore"), "x\n").unwrap()
            }),
            (".jj created", &|d| fs::create_dir(d.join(".jj")).unwrap()),
        ];
        for (what, change) in rule_changes {
            change(dir.path());
            watch.drain();
            assert_ne!(watch.rules_token(), token, "{what}");
            token = watch.rules_token();
        }
        let other = Watch::new(Vec::new()).unwrap();
        assert_ne!(
            other.rules_token().split(':').next(),
            watch.rules_token().split(':').next(),
            "another watch has another history"
        );
    }

    #[test]
    fn the_watch_knows_every_git_entry_of_the_directories_it_follows() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("repo/.git/info")).unwrap();
        fs::create_dir(dir.path().join("linked")).unwrap();
        fs::write(dir.path().join("linked/.git"), "gitdir: ../repo/.git\n").unwrap();
        fs::create_dir(dir.path().join("plain")).unwrap();
        let mut watch = Watch::new(Vec::new()).unwrap();
        for rel in ["repo", "linked", "plain"] {
            let d = Dir::open_ambient(&dir.path().join(rel)).unwrap();
            watch.add(Path::new(rel), d.borrow());
        }
        let found: Vec<&Path> = watch.git_entries.iter().map(PathBuf::as_path).collect();
        assert_eq!(
            found,
            [Path::new("linked/.git"), Path::new("repo/.git")],
            "a repository and a link file, nothing for a plain directory"
        );
    }

    #[test]
    fn changes_are_seen_when_drained() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        let mut watch = Watch::new(vec![b".gitignore".to_vec()]).unwrap();
        let sub = Dir::open_ambient(&dir.path().join("sub")).unwrap();
        watch.add(Path::new("sub"), sub.borrow());
        fs::write(dir.path().join("sub/a.txt"), "x").unwrap();
        watch.drain();
        assert!(watch.is_dirty(Path::new("sub/a.txt")));
        assert!(!watch.is_dirty(Path::new("sub/b.txt")));
        assert!(!watch.broken);
        fs::write(dir.path().join("sub/.gitignore"), "*.txt\n").unwrap();
        watch.drain();
        assert!(watch.broken);
    }

    fn watching(root: &Path, dirs: &[&str]) -> Watch {
        let mut watch = Watch::new(vec![b".gitignore".to_vec()]).unwrap();
        for rel in dirs {
            let dir = Dir::open_ambient(&root.join(rel)).unwrap();
            watch.add(Path::new(rel), dir.borrow());
        }
        watch
    }

    #[test]
    fn only_the_way_to_a_repositorys_exclude_file_breaks_the_watch() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join(".git/info")).unwrap();
        fs::create_dir_all(root.join("sub/.git")).unwrap();
        let mut watch = watching(root, &["", "sub"]);
        // Git's own files change all the time: no path is dirty, nothing breaks.
        fs::write(root.join(".git/index"), "x").unwrap();
        fs::write(root.join(".git/info/refs"), "x").unwrap();
        fs::write(root.join("sub/.git/HEAD"), "x").unwrap();
        watch.drain();
        assert!(!watch.broken && watch.dirty.is_empty(), "{:?}", watch.dirty);
        fs::write(root.join(".git/info/exclude"), "*.log\n").unwrap();
        watch.drain();
        assert!(watch.broken, "the root's exclude file changed");
        let mut watch = watching(root, &["", "sub"]);
        fs::create_dir(root.join("sub/.git/info")).unwrap();
        watch.drain();
        assert!(
            watch.broken,
            "a nested repository's info directory appeared"
        );
    }

    #[test]
    fn a_repository_appearing_or_going_breaks_the_watch() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("a")).unwrap();
        fs::create_dir_all(root.join("b/.git")).unwrap();
        let mut watch = watching(root, &["", "a", "b"]);
        fs::write(root.join("a/.git"), "gitdir: ../elsewhere\n").unwrap();
        watch.drain();
        assert!(watch.broken, "a .git file appeared");
        let mut watch = watching(root, &["", "a", "b"]);
        fs::remove_dir(root.join("b/.git")).unwrap();
        watch.drain();
        assert!(watch.broken, "a .git directory went");
    }

    #[test]
    fn skips_below_a_directory_are_one_range() {
        let mut watch = Watch::new(Vec::new()).unwrap();
        let passed = |path: &str| Passed {
            reason: Reason::Gitignored,
            path: PathBuf::from(path),
            is_dir: false,
        };
        watch.catch_up(
            ["b/x", "a", "b", "b.log", "b/y/z", "a/b", "c"]
                .into_iter()
                .map(passed)
                .collect(),
        );
        assert!(watch.trusted());
        let below = |dir: &str| -> Vec<String> {
            watch
                .skips_below(Path::new(dir))
                .iter()
                .map(|p| p.path.to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(below("b"), vec!["b/x", "b/y/z"]);
        assert_eq!(below("b/y"), vec!["b/y/z"]);
        assert_eq!(below("c"), Vec::<String>::new());
        assert_eq!(below("").len(), 7);
    }
}
