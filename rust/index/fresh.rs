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
//!
//! Rule files the tree's directory watches cannot see change are watched as files
//! ([`RuleFile`]): a rule file that is a symlink (its target, in the tree or out of it), a
//! rule file with other names (hard links: a write through another name is an event of the
//! inode, never of the directory holding this name), a worktree's excludes (its `.git` is a
//! file naming a git directory elsewhere; ripgrep reads the common directory's
//! `info/exclude`), and git's global excludes file (`core.excludesFile`, which ripgrep
//! applies). Each is watched on its inode, added through a descriptor of the file itself:
//! the kernel reports a write or new attributes through any of its names there. A
//! replace-by-rename (an editor's save) or a link retargeted leads the name to another inode
//! without touching the watched one, so a file reached through a link or from outside the
//! tree is looked up again at every drain and compared by inode (this also sees a directory
//! on the way renamed or a target appearing, which a watch on the target's directory would
//! not). A change counts exactly as a write to the rule file's name in the tree would; what
//! cannot be watched (inotify needs read permission; the watch limit) distrusts what depends
//! on it: the watch gives up for a file the walk reads, the tokens never repeat for a file
//! only ripgrep reads. So for a worktree whose `gitdir` is relative: ripgrep opens it from
//! its own working directory (git from the worktree's), which only each client knows.

use crate::fs::dir::DirRef;
use crate::fs::notify::{Leads, Notify};
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

/// The mask of a rule file's own watch: [`MASK`] without `ONLYDIR` (the target of a rule
/// link may be a directory the tree also watches: one inode has one mask, so it stays the
/// tree's).
const FILE_MASK: WatchFlags = MASK.difference(WatchFlags::ONLYDIR);

/// What a change to a [`RuleFile`] counts as.
#[derive(Clone, Debug, PartialEq, Eq)]
struct RuleOf {
    /// The rule file's name in the tree (root-relative), when it has one: the change counts
    /// as a write to it (that path dirty, the watch given up for a name the walk reads).
    tree: Option<PathBuf>,
    /// The watch gives up on a change (a file the walk reads, or one that says where other
    /// rule files are: a worktree's `commondir`).
    breaks: bool,
}

/// A file ripgrep's or the walk's rules read that the tree's directory watches do not see
/// change (see the module's doc): watched on its inode.
struct RuleFile {
    /// Where the rules find it (absolute).
    path: PathBuf,
    /// Whether `path` can come to lead to another file without an event the watch sees (it
    /// is a link, or outside the tree): looked up again at every drain.
    recheck: bool,
    /// Where `path` led when the watch was added.
    leads: Leads,
    /// The watch on the inode it led to (none when it led to no file).
    wd: Option<i32>,
    of: RuleOf,
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
    /// Rule files watched on their own inode (see the module's doc).
    rule_files: Vec<RuleFile>,
    /// The watches of `rule_files`' inodes.
    rule_wds: HashSet<i32>,
    /// A rule file only ripgrep reads could not be watched: the tokens never repeat (a kept
    /// verdict or listing is never served), as they would move at its every change.
    rules_unwatched: bool,
    /// The tree's root as a path (to find rule files again by path), once known.
    root_path: Option<PathBuf>,
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
            rule_files: Vec::new(),
            rule_wds: HashSet::new(),
            rules_unwatched: false,
            root_path: None,
        })
    }

    /// Names the tree's listing as this watch last saw it: equal tokens (read after
    /// `drain`) mean no entry was created, removed, moved or re-permitted and no rule file
    /// written in between, so a list of files taken between them is still the list.
    pub fn listing_token(&self) -> String {
        format!(
            "{}:{}{}",
            self.id,
            self.listing_changes,
            self.unwatched_suffix()
        )
    }

    /// Makes every token unique while a rule file only ripgrep reads is not watched: its
    /// changes could not move the counters.
    fn unwatched_suffix(&self) -> String {
        if self.rules_unwatched {
            let n = NEXT_WATCH_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            format!(":unwatched-{n}")
        } else {
            String::new()
        }
    }

    /// Names the rules' verdicts as this watch last saw the tree (see `rules_changes`): equal
    /// tokens (read after `drain`) mean every path's verdict under ripgrep's rules is
    /// the same, given the same rule files outside the tree and the same flags.
    pub fn rules_token(&self) -> String {
        format!(
            "{}:{}{}",
            self.id,
            self.rules_changes,
            self.unwatched_suffix()
        )
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
        if rel.as_os_str().is_empty() && self.root_path.is_none() {
            self.root_path = dir.current_path().ok();
        }
        self.add_rule_files(rel, dir);
        self.add_git(rel, dir);
    }

    /// The names of the rule files ripgrep or the walk reads in every directory.
    fn tree_rule_names(&self) -> impl Iterator<Item = &[u8]> {
        [b".gitignore".as_slice(), b".ignore", RG_IGNORE]
            .into_iter()
            .chain(self.rule_names.iter().map(Vec::as_slice))
    }

    /// Watches the inode of every rule file of the directory `dir` (at `rel`): the
    /// directory's watch sees its name change, not a write through another name (a hard
    /// link) or to a link's target. Called before the walk reads the rules.
    fn add_rule_files(&mut self, rel: &Path, dir: DirRef<'_>) {
        let names: Vec<Vec<u8>> = self.tree_rule_names().map(<[u8]>::to_vec).collect();
        let mut dir_path: Option<Option<PathBuf>> = None;
        for name in names {
            let name = OsStr::from_bytes(&name);
            let Ok(stat) = dir.stat_entry(name) else {
                continue; // none here (one created later is an event of the directory)
            };
            let Some(dir_path) = dir_path
                .get_or_insert_with(|| dir.current_path().ok())
                .clone()
            else {
                self.broken = true; // cannot name it to watch it
                return;
            };
            let is_link = FileType::from_raw_mode(stat.st_mode) == FileType::Symlink;
            let path = dir_path.join(name);
            self.add_rule_file(path, is_link, self.tree_rule_of(&rel.join(name)));
        }
    }

    /// What a change to the tree's rule file `rel` counts as: a write to it.
    fn tree_rule_of(&self, rel: &Path) -> RuleOf {
        let name = rel.file_name().map_or(&[][..], |n| n.as_bytes());
        RuleOf {
            tree: Some(rel.to_path_buf()),
            breaks: self.rule_names.iter().any(|r| r.as_slice() == name),
        }
    }

    /// Watches the inode `path` leads to (see [`RuleFile`]); replaces the watch of the same
    /// path and meaning.
    fn add_rule_file(&mut self, path: PathBuf, recheck: bool, of: RuleOf) {
        let (wd, leads) = match self.notify.add_file(&path, FILE_MASK) {
            Ok(added) => added,
            Err(_) => {
                // A file there that cannot be watched: what depends on it must not be kept.
                if of.breaks {
                    self.broken = true;
                } else {
                    self.rules_unwatched = true;
                }
                return;
            }
        };
        if let Some(wd) = wd {
            self.rule_wds.insert(wd);
        }
        let file = RuleFile {
            path,
            recheck,
            leads,
            wd,
            of,
        };
        match self
            .rule_files
            .iter_mut()
            .find(|f| f.path == file.path && f.of == file.of)
        {
            Some(known) => *known = file,
            None => self.rule_files.push(file),
        }
    }

    /// Watches the rule files outside the tree that ripgrep applies to all of it: git's
    /// global excludes file (`core.excludesFile`, else `$XDG_CONFIG_HOME/git/ignore`) as
    /// this process finds it. Only ripgrep reads it: its change moves the tokens.
    pub fn add_global_rules(&mut self) {
        if let Some(path) = ignore::gitignore::gitconfig_excludes_path() {
            let of = RuleOf {
                tree: None,
                breaks: false,
            };
            self.add_rule_file(path, true, of);
        }
    }

    /// Watches the excludes of the worktree whose `.git` file is `git_file`: ripgrep reads
    /// `info/exclude` of the common git directory its `gitdir` names (the main
    /// repository's `.git`), found through `<gitdir>/commondir`. The worktree's own
    /// `<gitdir>/info/exclude` is watched too (git reads it). Only ripgrep reads these (the
    /// walk reads `.git/info/exclude` of a `.git` directory only): a change moves the tokens;
    /// a change to `commondir` (where the excludes are) gives the watch up.
    ///
    /// ripgrep opens a relative `gitdir` (and a relative `commondir` not starting with `.`)
    /// as it is, relative to its own working directory, where git reads it relative to the
    /// directory holding `.git`: which excludes a client applies then depends on where it
    /// runs, which the watch shared by every client cannot know, so the tokens never repeat.
    fn add_worktree_rules(&mut self, git_file: &Path) {
        let Some((git_dir, from_cwd)) = worktree_git_dir(git_file) else {
            return;
        };
        if from_cwd {
            self.rules_unwatched = true;
        }
        let commondir = git_dir.join("commondir");
        let breaks = RuleOf {
            tree: None,
            breaks: true,
        };
        self.add_rule_file(commondir.clone(), true, breaks);
        let moves_tokens = RuleOf {
            tree: None,
            breaks: false,
        };
        if let Some((common, from_cwd)) = common_dir(&git_dir, &commondir) {
            if from_cwd {
                self.rules_unwatched = true;
            }
            self.add_rule_file(common.join("info/exclude"), true, moves_tokens.clone());
        }
        self.add_rule_file(git_dir.join("info/exclude"), true, moves_tokens);
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
                // A file (a worktree's link) has no `info/exclude` of its own, but is an
                // entry, and names the git directory whose excludes ripgrep reads.
                if e.kind() != std::io::ErrorKind::NotFound {
                    self.git_entries.insert(git_rel);
                    if let Ok(dir_path) = dir.current_path() {
                        self.add_worktree_rules(&dir_path.join(OsStr::from_bytes(GIT)));
                    }
                }
                return;
            }
        };
        self.git_entries.insert(git_rel.clone());
        self.add_kind(&git_rel, git.borrow(), Kind::GitDir);
        if let Ok(info) = git.borrow().open_dir_following("info") {
            self.add_kind(&git_rel.join("info"), info.borrow(), Kind::GitInfo);
            // Written through another name (a hard link, a link's target): not an event of
            // `info`. The walk reads it: a change gives the watch up, as one in `info` does.
            if let (Ok(info_path), Ok(stat)) =
                (info.borrow().current_path(), info.stat_entry("exclude"))
            {
                let is_link = FileType::from_raw_mode(stat.st_mode) == FileType::Symlink;
                let of = RuleOf {
                    tree: None,
                    breaks: true,
                };
                self.add_rule_file(info_path.join("exclude"), is_link, of);
            }
        }
    }

    /// Also watches the root repository's `.git` and `.git/info` before a walk (the walk
    /// watches those of every directory it lists, the root's included).
    pub fn add_git_info(&mut self, root: &crate::fs::root::Root) {
        self.root_path = Some(root.real_path().to_path_buf());
        if let Ok(dir) = root.open_dir(Path::new(""), Links::Refuse) {
            self.add_git(Path::new(""), dir.borrow());
        }
        self.add_global_rules();
    }

    /// Reads every event queued so far into `dirty` (or `broken`), then looks up again the
    /// rule files reached through a link or from outside the tree.
    pub fn drain(&mut self) {
        let (rules_written, tree_rules_touched) = self.read_events();
        let mut changed: Vec<usize> = Vec::new();
        for (i, file) in self.rule_files.iter().enumerate() {
            let written = file.wd.is_some_and(|wd| rules_written.contains(&wd));
            if written || (file.recheck && crate::fs::notify::leads(&file.path) != file.leads) {
                changed.push(i);
            }
        }
        for i in changed.into_iter().rev() {
            let file = self.rule_files.swap_remove(i);
            self.rule_file_changed(&file.of);
            // Watched again where it leads now, for its next change.
            self.add_rule_file(file.path, file.recheck, file.of);
        }
        // A rule file of the tree created or replaced (a new inode, maybe with other names):
        // its inode is watched from now on (one the walk reads gave the watch up already).
        if !self.broken
            && let Some(root) = self.root_path.clone()
        {
            for rel in tree_rules_touched {
                if let Ok(stat) = std::fs::symlink_metadata(root.join(&rel)) {
                    let of = self.tree_rule_of(&rel);
                    self.add_rule_file(root.join(&rel), stat.file_type().is_symlink(), of);
                }
            }
        }
    }

    /// Counts a change to a rule file watched on its inode as a write to its name in the
    /// tree would count (see `read_events`).
    fn rule_file_changed(&mut self, of: &RuleOf) {
        self.listing_changes += 1;
        self.rules_changes += 1;
        if of.breaks {
            self.broken = true;
        }
        if let Some(rel) = &of.tree {
            self.dirty.insert(rel.clone());
        }
    }

    /// Reads every event queued so far into `dirty` (or `broken`); returns the watches of
    /// rule files' inodes that had events, and the tree's rule files named by an event.
    fn read_events(&mut self) -> (HashSet<i32>, Vec<PathBuf>) {
        let mut rules_written: HashSet<i32> = HashSet::new();
        let mut tree_rules_touched: Vec<PathBuf> = Vec::new();
        let tree_rule_names: Vec<Vec<u8>> = self.tree_rule_names().map(<[u8]>::to_vec).collect();
        let Watch {
            notify,
            dirs,
            dirty,
            broken,
            rule_names,
            listing_changes,
            rules_changes,
            rule_wds,
            ..
        } = self;
        let read = notify.for_each_queued(|event| {
            let mask = event.events();
            if mask.contains(ReadFlags::QUEUE_OVERFLOW) {
                *broken = true;
                return;
            }
            let wd = event.wd();
            if rule_wds.contains(&wd) {
                // Anything done to a rule file's inode (written, new attributes, its last
                // name gone) counts: a directory as a link's target included.
                rules_written.insert(wd);
                if mask.contains(ReadFlags::IGNORED) {
                    rule_wds.remove(&wd);
                }
            }
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
                    if !contents_only && tree_rule_names.iter().any(|r| r.as_slice() == name) {
                        tree_rules_touched.push(path.clone());
                    }
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
        (rules_written, tree_rules_touched)
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

/// The git directory a worktree's `.git` file names (`gitdir: <path>`, relative to the
/// directory holding the file, as git reads it), and whether ripgrep finds it relative to
/// its own working directory instead (the path is relative), or `None` when it names none.
fn worktree_git_dir(git_file: &Path) -> Option<(PathBuf, bool)> {
    let first = first_line(git_file)?;
    let named = Path::new(first.strip_prefix("gitdir: ")?);
    Some((git_file.parent()?.join(named), named.is_relative()))
}

/// The common git directory of the worktree git directory `git_dir`, as ripgrep finds it:
/// the first line of `commondir`, relative to `git_dir` when it starts with `.`; and
/// whether ripgrep opens it relative to its own working directory (another relative path).
fn common_dir(git_dir: &Path, commondir: &Path) -> Option<(PathBuf, bool)> {
    let line = first_line(commondir)?;
    Some(if line.starts_with('.') {
        (git_dir.join(line), false)
    } else {
        let from_cwd = Path::new(&line).is_relative();
        (git_dir.join(line), from_cwd)
    })
}

/// The first line of a small file (a `.git` file, `commondir`), when it is one.
fn first_line(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    crate::fs::dir::open_regular_following(path)
        .ok()?
        .take(4096)
        .read_to_end(&mut bytes)
        .ok()?;
    let text = String::from_utf8(bytes).ok()?;
    Some(text.lines().next()?.to_string())
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
    use crate::test_support::{temp_tree, write_files};
    use std::fs;

    /// A watch whose `.gitignore` files are rule files, following `dirs` of `root`.
    fn watching(root: &Path, dirs: &[&str]) -> Watch {
        let mut watch = Watch::new(vec![b".gitignore".to_vec()]).unwrap();
        for rel in dirs {
            let dir = Dir::open_ambient(&root.join(rel)).unwrap();
            watch.add(Path::new(rel), dir.borrow());
        }
        watch
    }

    /// Asserts that the history part of a token (before its `:`) is `watch`'s own: another
    /// watch's differs.
    fn assert_history_is_its_own(watch: &Watch, token: fn(&Watch) -> String) {
        let other = Watch::new(Vec::new()).unwrap();
        assert_ne!(
            token(&other).split(':').next(),
            token(watch).split(':').next(),
            "another watch has another history"
        );
    }

    #[test]
    fn the_listing_token_moves_with_entries_and_rule_files_not_with_contents() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.txt"), "x").unwrap();
        let mut watch = watching(dir.path(), &[""]);
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
        assert_history_is_its_own(&watch, Watch::listing_token);
    }

    #[test]
    fn the_rules_token_moves_with_directories_and_rule_files_not_with_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut watch = watching(dir.path(), &[""]);
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
        assert_history_is_its_own(&watch, Watch::rules_token);
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
        let mut watch = watching(dir.path(), &["sub"]);
        fs::write(dir.path().join("sub/a.txt"), "x").unwrap();
        watch.drain();
        assert!(watch.is_dirty(Path::new("sub/a.txt")));
        assert!(!watch.is_dirty(Path::new("sub/b.txt")));
        assert!(!watch.broken);
        fs::write(dir.path().join("sub/.gitignore"), "*.txt\n").unwrap();
        watch.drain();
        assert!(watch.broken);
    }

    #[test]
    fn only_the_way_to_a_repositorys_exclude_file_breaks_the_watch() {
        let dir = temp_tree(&[(".git/info/", ""), ("sub/.git/", "")]);
        let root = dir.path();
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

    /// A watch of the tree at `root` (its root directory only), and its tokens.
    fn watching_root(root: &Path) -> Watch {
        let mut watch = Watch::new(vec![b".gitignore".to_vec(), b".ignore".to_vec()]).unwrap();
        let dir = Dir::open_ambient(root).unwrap();
        watch.add(Path::new(""), dir.borrow());
        assert!(!watch.broken);
        watch
    }

    /// Whether the rules token and the listing token repeat from one read to the next: a
    /// token the watch cannot vouch for is new at every read (nothing kept under it is
    /// ever served).
    fn repeating_tokens(watch: &Watch) -> (bool, bool) {
        (
            watch.rules_token() == watch.rules_token(),
            watch.listing_token() == watch.listing_token(),
        )
    }

    /// Whether `change` moves the watch's rules token (once the watch has read its events).
    fn rules_moved(watch: &mut Watch, change: impl FnOnce()) -> bool {
        let before = watch.rules_token();
        change();
        watch.drain();
        watch.rules_token() != before
    }

    fn rewrite(path: &Path, text: &str) {
        use std::io::Write;
        let mut f = fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(path)
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }

    #[test]
    fn a_rule_file_written_through_a_link_counts_as_written() {
        let dir = temp_tree(&[("shared/rules", "*.tmp\n")]);
        let outside = temp_tree(&[("rules", "*.tmp\n")]);
        let root = dir.path();
        std::os::unix::fs::symlink("shared/rules", root.join(".gitignore")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("rules"), root.join(".rgignore")).unwrap();
        let mut watch = watching_root(root);
        // The directory `shared` is not watched: only the link's own watch can tell.
        let (rules, listing) = (watch.rules_token(), watch.listing_token());
        rewrite(&outside.path().join("rules"), "*.log\n");
        watch.drain();
        assert!(
            !watch.broken,
            "only ripgrep reads .rgignore: the tokens move"
        );
        assert_ne!(watch.rules_token(), rules, ".rgignore's target written");
        assert_ne!(watch.listing_token(), listing, ".rgignore's target written");
        assert!(watch.is_dirty(Path::new(".rgignore")));
        assert!(
            rules_moved(&mut watch, || {
                fs::write(outside.path().join("new"), "*.c\n").unwrap();
                fs::rename(outside.path().join("new"), outside.path().join("rules")).unwrap();
            }),
            ".rgignore's target replaced by rename"
        );
        assert!(
            rules_moved(&mut watch, || {
                rewrite(&outside.path().join("rules"), "*.h\n");
            }),
            "the new target written: watched too"
        );
        assert!(!rules_moved(&mut watch, || {}), "nothing changed");
        rewrite(&root.join("shared/rules"), "*.log\n");
        watch.drain();
        assert!(
            watch.broken,
            "the walk reads .gitignore: the watch gives up"
        );
        assert!(watch.is_dirty(Path::new(".gitignore")));
    }

    #[test]
    fn a_link_retargeted_outside_the_tree_counts_as_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let outside = temp_tree(&[("a/rules", "*.tmp\n"), ("b/rules", "*.log\n")]);
        let o = outside.path();
        std::os::unix::fs::symlink(o.join("a"), o.join("current")).unwrap();
        std::os::unix::fs::symlink(o.join("current/rules"), dir.path().join(".rgignore")).unwrap();
        let mut watch = watching_root(dir.path());
        assert!(
            rules_moved(&mut watch, || {
                fs::remove_file(o.join("current")).unwrap();
                std::os::unix::fs::symlink(o.join("b"), o.join("current")).unwrap();
            }),
            "a link on the way retargeted"
        );
        assert!(
            rules_moved(&mut watch, || {
                fs::rename(o.join("b"), o.join("gone")).unwrap();
            }),
            "a directory on the way renamed"
        );
        assert!(
            rules_moved(&mut watch, || {
                fs::rename(o.join("gone"), o.join("b")).unwrap();
            }),
            "a dangling link's target appeared"
        );
    }

    #[test]
    fn a_hard_linked_rule_file_written_through_its_other_name_counts_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("rules"), "*.tmp\n").unwrap();
        fs::hard_link(outside.path().join("rules"), dir.path().join(".gitignore")).unwrap();
        let mut watch = watching_root(dir.path());
        rewrite(&outside.path().join("rules"), "*.log\n");
        watch.drain();
        assert!(
            watch.broken,
            "the other name is outside every watched directory"
        );
        // A `.rgignore` created after the walk, then linked elsewhere: watched as well.
        let mut watch = watching_root(dir.path());
        fs::write(dir.path().join(".rgignore"), "*.c\n").unwrap();
        watch.drain();
        fs::hard_link(dir.path().join(".rgignore"), outside.path().join("other")).unwrap();
        watch.drain();
        assert!(
            rules_moved(&mut watch, || {
                rewrite(&outside.path().join("other"), "*.h\n");
            }),
            "a new rule file's other name written"
        );
    }

    /// A repository `main` (its exclude `*.tmp`) and its worktree `wt`, whose `.git` names
    /// its git directory by its absolute path (returned).
    fn linked_worktree() -> (tempfile::TempDir, PathBuf) {
        let base = temp_tree(&[
            ("main/.git/info/exclude", "*.tmp\n"),
            ("main/.git/worktrees/wt/commondir", "../..\n"),
        ]);
        let git_dir = base.path().join("main/.git/worktrees/wt");
        let gitdir_line = format!("gitdir: {}\n", git_dir.display());
        write_files(base.path(), &[("wt/.git", gitdir_line)]);
        (base, git_dir)
    }

    #[test]
    fn a_worktrees_common_excludes_are_watched() {
        let (base, git_dir) = linked_worktree();
        let b = base.path();
        fs::create_dir(git_dir.join("info")).unwrap();
        let mut watch = watching_root(&b.join("wt"));
        let rules = watch.rules_token();
        rewrite(&b.join("main/.git/info/exclude"), "*.log\n");
        watch.drain();
        assert!(
            !watch.broken,
            "the walk does not read a worktree's excludes"
        );
        assert_ne!(
            watch.rules_token(),
            rules,
            "the main repository's exclude written"
        );
        assert!(
            rules_moved(&mut watch, || {
                fs::write(git_dir.join("info/exclude"), "*.c\n").unwrap();
            }),
            "the worktree's own exclude created"
        );
        fs::write(git_dir.join("commondir"), "/elsewhere\n").unwrap();
        watch.drain();
        assert!(watch.broken, "where the excludes are changed");
    }

    #[test]
    fn a_worktree_found_relative_to_ripgreps_working_directory_distrusts_the_tokens() {
        let (base, git_dir) = linked_worktree();
        let b = base.path();
        let absolute = format!("gitdir: {}\n", git_dir.display());
        let watch = watching_root(&b.join("wt"));
        assert_eq!(
            repeating_tokens(&watch),
            (true, true),
            "an absolute gitdir and a commondir relative to it are watched"
        );
        // ripgrep opens a relative gitdir from its working directory (git from `wt`).
        fs::write(b.join("wt/.git"), "gitdir: ../main/.git/worktrees/wt\n").unwrap();
        let watch = watching_root(&b.join("wt"));
        assert_eq!(
            repeating_tokens(&watch),
            (false, false),
            "a relative gitdir"
        );
        assert!(
            !watch.broken,
            "the walk does not read a worktree's excludes"
        );
        // And a relative commondir not starting with `.` likewise.
        fs::write(b.join("wt/.git"), &absolute).unwrap();
        fs::write(b.join("main/.git/worktrees/wt/commondir"), "elsewhere\n").unwrap();
        let watch = watching_root(&b.join("wt"));
        assert!(!repeating_tokens(&watch).0, "commondir `elsewhere`");
    }

    #[test]
    fn the_global_excludes_file_is_watched_and_an_unwatchable_one_distrusts_the_tokens() {
        let dir = tempfile::tempdir().unwrap();
        let global = dir.path().join("ignore");
        fs::write(&global, "*.tmp\n").unwrap();
        let mut watch = Watch::new(Vec::new()).unwrap();
        let of = RuleOf {
            tree: None,
            breaks: false,
        };
        watch.add_rule_file(global.clone(), true, of.clone());
        assert!(!rules_moved(&mut watch, || {}), "nothing changed");
        assert!(
            rules_moved(&mut watch, || rewrite(&global, "*.log\n")),
            "the global excludes written"
        );
        assert!(!watch.broken);
        // A file that cannot be watched (inotify needs permission to read it, which a test run
        // as root always has: the flag is set here as a failed watch sets it): the tokens
        // never repeat, so nothing kept under them is ever served.
        let mut watch = Watch::new(Vec::new()).unwrap();
        watch.rules_unwatched = true;
        assert_eq!(repeating_tokens(&watch), (false, false));
        assert!(!watch.broken, "the walk does not read it");
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
