//! Directory walks through handles: a parallel walker (work-stealing, as `ignore`'s
//! `WalkParallel`) and a lazy sorted walker, both opening every directory relative to its
//! parent's open handle with `O_NOFOLLOW` and listing it from that handle, so a directory
//! swapped for a symlink mid-walk is never entered. The workspace rules, the symlink policy,
//! the `.git` exclusion and codesift's temporary files are applied to every entry.
//!
//! The `ignore` crate still provides the gitignore matchers (see `rules`); only the walking
//! is done here, because `ignore`'s walker opens directories and files by path.
//!
//! Open directory handles are bounded by a process-wide budget (codesift runs inside its
//! host's Python process and must not exhaust its descriptors, nor push them past 1024 where
//! `select()` breaks): a directory listed while the budget is spent drops its handle, and its
//! entries are later opened from the root by their relative path, still beneath the root.

use super::dir::DirRef;
use super::read::Opened;
use super::root::{DIR_FLAGS, Links, Root, open_file_at, open_to_search_at, regular_file};
use super::skipped::{Reason, Skipped};
use super::write::is_temp_name;
use crate::cancel::CancelToken;
use crate::error::{Error, Result, shown};
use crate::fs::rules::{Chain, RuleOptions, Rules, Verdict};
use crossbeam_deque::{Steal, Stealer, Worker};
use rustix::fs::{AtFlags, FileType, Mode, OFlags, Stat};
use std::cmp::Ordering;
use std::collections::VecDeque;
use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Directory handles kept open by walks at most, process-wide.
pub const HANDLE_BUDGET: usize = 256;
static OPEN_HANDLES: AtomicUsize = AtomicUsize::new(0);

/// The threads the machine runs at once (`None` when it cannot tell), asked once a process:
/// the standard library reads the cgroup's files each time it is asked, and every search
/// asks (a twentieth of a library grep of its first hits through the daemon).
pub fn available_threads() -> Option<usize> {
    static AVAILABLE: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| std::thread::available_parallelism().ok().map(|n| n.get()))
}

/// How a workspace walks its tree. On the daemon's wire (`daemon::wire::Walk`) its fields
/// are flat (`gitignore`, `access_files`, `hidden`, `follow_symlinks`, `max_filesize`), the
/// threads not sent, and a field left out has a `Workspace`'s default (`Default`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct WalkOptions {
    #[serde(flatten)]
    pub rules: RuleOptions,
    /// Include hidden (dot) files and directories.
    pub hidden: bool,
    /// Follow symlinks whose target stays inside the root.
    pub follow_symlinks: bool,
    /// Skip files larger than this many bytes.
    pub max_filesize: Option<u64>,
    /// Worker threads; 0 picks the number of CPUs.
    #[serde(skip)]
    pub threads: usize,
}

impl Default for WalkOptions {
    /// A `Workspace`'s defaults: the rules honoured, hidden files shown, links not followed,
    /// no size limit, one thread per CPU.
    fn default() -> Self {
        WalkOptions {
            rules: RuleOptions::default(),
            hidden: true,
            follow_symlinks: false,
            max_filesize: None,
            threads: 0,
        }
    }
}

impl WalkOptions {
    /// The options the engine's unit tests walk with unless they say otherwise: `.gitignore`
    /// honoured, no access-ignore files, links not followed, no size limit.
    #[cfg(test)]
    pub(crate) fn for_tests(hidden: bool, threads: usize) -> Self {
        WalkOptions {
            rules: RuleOptions {
                gitignore: true,
                access_files: vec![],
            },
            hidden,
            follow_symlinks: false,
            max_filesize: None,
            threads,
        }
    }

    pub fn thread_count(&self) -> usize {
        if self.threads > 0 {
            self.threads
        } else {
            available_threads().unwrap_or(2)
        }
    }

    /// How explicit paths inside a walk (its start, a file's reopening) treat symlinks.
    pub fn links(&self) -> Links {
        if self.follow_symlinks {
            Links::Inside
        } else {
            Links::Refuse
        }
    }
}

/// What a walk skipped, counted across threads.
#[derive(Default, Debug)]
pub struct WalkStats {
    /// Entries hidden by ignore rules (an ignored directory counts once).
    pub ignored: AtomicU64,
    /// Entries that could not be read (permission denied, vanished, swapped for a link).
    pub errors: AtomicU64,
    /// Every entry passed over, by reason, with examples (ignored ones and errors included).
    pub skipped: Skipped,
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
        self.skipped.add(Reason::Unreadable, 1);
    }
    /// An entry that could not be read, with its path.
    pub fn add_error_at(&self, rel: &Path, is_dir: bool) {
        self.errors.fetch_add(1, AtomicOrdering::Relaxed);
        self.skipped.record(Reason::Unreadable, rel, is_dir);
    }
    /// An entry the rules hid (`Hidden`) or denied (`Denied`). A denied entry is counted
    /// without an example: an access-ignore file makes its entries invisible, names included.
    pub fn add_ignored(&self, verdict: Verdict, rel: &Path, is_dir: bool) {
        self.ignored.fetch_add(1, AtomicOrdering::Relaxed);
        if verdict == Verdict::Denied {
            self.skipped.record_unnamed(Reason::Denied, rel, is_dir);
        } else {
            self.skipped.record(Reason::Gitignored, rel, is_dir);
        }
    }
}

/// Whether a walk goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkState {
    Continue,
    Quit,
}

/// Decides whether a directory (workspace-relative) is entered; used for exclude globs.
pub type DirFilter = Arc<dyn Fn(&Path) -> bool + Send + Sync>;

/// Told of every directory a walk opens, before it is listed (the index's watch).
pub type DirHook = Arc<dyn Fn(&Path, DirRef<'_>) + Send + Sync>;

/// A directory a walk has listed: its handle (while the budget allows), its path as walked,
/// and the rules in force for its entries.
pub struct DirHandle {
    fd: Option<OwnedFd>,
    rel: PathBuf,
    /// The real location when the directory was reached through a followed symlink.
    real: Option<PathBuf>,
    chain: Chain,
    /// The directories above it, for symlink-loop detection (only when following links).
    ancestry: Option<Arc<Ancestry>>,
}

/// One directory on the path from a walk's start: `(dev, ino)` and its parent.
pub struct Ancestry {
    id: (u64, u64),
    parent: Option<Arc<Ancestry>>,
}

impl Ancestry {
    fn contains(&self, id: (u64, u64)) -> bool {
        let mut level = Some(self);
        while let Some(a) = level {
            if a.id == id {
                return true;
            }
            level = a.parent.as_deref();
        }
        false
    }
}

impl DirHandle {
    fn new(fd: OwnedFd, rel: PathBuf, real: Option<PathBuf>, chain: Chain) -> DirHandle {
        let kept = OPEN_HANDLES.fetch_add(1, AtomicOrdering::Relaxed) < HANDLE_BUDGET;
        if !kept {
            OPEN_HANDLES.fetch_sub(1, AtomicOrdering::Relaxed);
        }
        DirHandle {
            fd: kept.then_some(fd),
            rel,
            real,
            chain,
            ancestry: None,
        }
    }

    /// Where the directory really is, relative to the root.
    pub fn location(&self) -> &Path {
        self.real.as_deref().unwrap_or(&self.rel)
    }

    pub fn rel(&self) -> &Path {
        &self.rel
    }
}

impl Drop for DirHandle {
    fn drop(&mut self) {
        if self.fd.is_some() {
            OPEN_HANDLES.fetch_sub(1, AtomicOrdering::Relaxed);
        }
    }
}

/// A regular file found by a walk.
#[derive(Clone)]
pub struct FileEntry {
    pub dir: Arc<DirHandle>,
    /// Workspace-relative path as walked.
    pub rel: PathBuf,
    /// The real location when the file was reached through a followed symlink.
    pub real: Option<PathBuf>,
}

impl FileEntry {
    pub fn name(&self) -> &OsStr {
        self.rel.file_name().unwrap_or_default()
    }

    /// Opens the file to read: relative to its directory's handle (no symlink followed), or
    /// from the root by its real path when the handle was dropped or it is a followed link.
    pub fn open(&self, root: &Root) -> io::Result<File> {
        if self.real.is_none()
            && let Some(fd) = &self.dir.fd
        {
            return open_file_at(fd.as_fd(), self.name());
        }
        let resolved = root.resolve(&self.location(), Links::Refuse, super::root::READ_FLAGS)?;
        regular_file(resolved.fd)
    }

    /// `open` for a search (see `root::open_to_search_at`).
    pub fn open_to_search(&self, root: &Root) -> io::Result<Opened> {
        if self.real.is_none()
            && let Some(fd) = &self.dir.fd
        {
            return open_to_search_at(fd.as_fd(), self.name());
        }
        root.open_to_search(&self.location(), Links::Refuse)
    }

    /// The file's metadata, without opening it.
    pub fn stat(&self, root: &Root) -> io::Result<Stat> {
        if self.real.is_none()
            && let Some(fd) = &self.dir.fd
        {
            return Ok(rustix::fs::statat(
                fd,
                self.name(),
                AtFlags::SYMLINK_NOFOLLOW,
            )?);
        }
        root.stat(&self.location(), Links::Refuse)
    }

    fn location(&self) -> PathBuf {
        match &self.real {
            Some(real) => real.clone(),
            None => self.dir.location().join(self.name()),
        }
    }
}

/// A directory waiting to be listed.
pub struct DirWork {
    /// The directory holding it (absent for a walk's start).
    parent: Option<Arc<DirHandle>>,
    /// The rules in force in its parent.
    parent_chain: Chain,
    rel: PathBuf,
    /// Already open: a walk's start, or a followed symlink (with its real location).
    opened: Option<(OwnedFd, Option<PathBuf>)>,
    ancestry: Option<Arc<Ancestry>>,
    depth: usize,
}

impl DirWork {
    pub fn rel(&self) -> &Path {
        &self.rel
    }
}

/// An entry of a listed directory that the walk keeps.
enum Child {
    File(FileEntry),
    Dir(DirWork),
}

impl Child {
    fn name(&self) -> &[u8] {
        let rel = match self {
            Child::File(f) => &f.rel,
            Child::Dir(d) => &d.rel,
        };
        rel.file_name().map_or(&[][..], |n| n.as_bytes())
    }
}

/// A configured walker over one workspace.
pub struct Walker {
    root: Arc<Root>,
    options: WalkOptions,
    rules: Arc<Rules>,
    stats: Arc<WalkStats>,
    dir_filter: Option<DirFilter>,
    dir_hook: Option<DirHook>,
    /// Checked between directories and files: a cancelled walk stops listing and visiting.
    cancel: CancelToken,
}

impl Walker {
    pub fn new(root: Arc<Root>, options: WalkOptions) -> Walker {
        let rules = Arc::new(Rules::new(root.clone(), options.rules.clone()));
        Walker {
            root,
            options,
            rules,
            stats: Arc::new(WalkStats::default()),
            dir_filter: None,
            dir_hook: None,
            cancel: CancelToken::default(),
        }
    }

    /// The walker with `cancel` checked as it walks (and its counters kept up to date).
    pub fn with_cancel(mut self, cancel: CancelToken) -> Walker {
        self.cancel = cancel;
        self
    }

    pub fn cancel_token(&self) -> &CancelToken {
        &self.cancel
    }

    pub fn with_dir_hook(mut self, hook: Option<DirHook>) -> Walker {
        self.dir_hook = hook;
        self
    }

    pub fn has_dir_filter(&self) -> bool {
        self.dir_filter.is_some()
    }

    /// The filter deciding which directories are entered (exclude globs), if any.
    pub fn dir_filter(&self) -> Option<DirFilter> {
        self.dir_filter.clone()
    }

    /// Walk entries for files known by path (real locations; sorted here), sharing one
    /// directory handle per directory; a directory that cannot be opened counts as an error.
    pub fn files_at(&self, mut paths: Vec<PathBuf>) -> Vec<FileEntry> {
        paths.sort_unstable_by(|a, b| a.as_os_str().cmp(b.as_os_str()));
        let mut out = Vec::with_capacity(paths.len());
        let mut dir: Option<Arc<DirHandle>> = None;
        for rel in paths {
            let parent = rel.parent().unwrap_or(Path::new(""));
            if dir.as_ref().is_none_or(|d| d.rel() != parent) {
                dir = self.dir_handle(parent).ok();
            }
            match &dir {
                Some(dir) => out.push(FileEntry {
                    dir: dir.clone(),
                    rel,
                    real: None,
                }),
                None => self.stats.add_error_at(&rel, false),
            }
        }
        out
    }

    /// An open handle on the directory `rel` (a real location, no symlink followed), for
    /// files that are searched without a walk (the index's candidates).
    pub fn dir_handle(&self, rel: &Path) -> io::Result<Arc<DirHandle>> {
        let dir = self.root.resolve(rel, Links::Refuse, DIR_FLAGS)?;
        Ok(Arc::new(DirHandle::new(
            dir.fd,
            rel.to_path_buf(),
            None,
            None,
        )))
    }

    pub fn with_dir_filter(mut self, filter: DirFilter) -> Walker {
        self.dir_filter = Some(filter);
        self
    }

    pub fn options(&self) -> &WalkOptions {
        &self.options
    }

    pub fn root(&self) -> &Arc<Root> {
        &self.root
    }

    pub fn stats(&self) -> &Arc<WalkStats> {
        &self.stats
    }

    pub fn rules(&self) -> &Arc<Rules> {
        &self.rules
    }

    /// The start of a walk of the directory `rel` (a real location, already checked by the
    /// caller); `links` says whether symlinks along `rel` may be followed.
    pub fn start(&self, rel: &Path, links: Links) -> io::Result<DirWork> {
        let resolved = self.root.resolve(rel, links, DIR_FLAGS)?;
        // Reached through a followed link: judged where it really is, as a walk would.
        if resolved.real != rel
            && self.rules.verdict_with_ancestors(&resolved.real, true) == Verdict::Denied
        {
            return Err(io::ErrorKind::PermissionDenied.into());
        }
        let parent_chain = match rel.parent() {
            Some(parent) => self.rules.chain_of(parent),
            None => None,
        };
        let real = (resolved.real != rel).then(|| resolved.real.clone());
        Ok(DirWork {
            parent: None,
            parent_chain,
            rel: rel.to_path_buf(),
            opened: Some((resolved.fd, real)),
            ancestry: None,
            depth: 0,
        })
    }

    /// The file `rel` (a real location) as a walk entry, for searching one explicit file.
    pub fn file(&self, rel: &Path) -> io::Result<FileEntry> {
        let (parent, _) = super::root::split_parent(rel)?;
        let dir = self.root.resolve(parent, Links::Refuse, DIR_FLAGS)?;
        let handle = DirHandle::new(dir.fd, parent.to_path_buf(), None, None);
        Ok(FileEntry {
            dir: Arc::new(handle),
            rel: rel.to_path_buf(),
            real: None,
        })
    }

    /// Lists the directory of `work` and returns its handle and the entries the walk keeps,
    /// unsorted. `None` when it cannot be opened or listed (counted as an error).
    fn read_dir(&self, work: DirWork) -> Option<(Arc<DirHandle>, Vec<Child>)> {
        let DirWork {
            parent,
            parent_chain,
            rel,
            opened,
            ancestry,
            depth,
        } = work;
        let name = rel.file_name().unwrap_or_default();
        let (fd, real) = match opened {
            Some(opened) => opened,
            None => {
                let parent = parent.as_ref()?;
                let real = parent.real.as_ref().map(|r| r.join(name));
                let opened = match &parent.fd {
                    Some(fd) => rustix::fs::openat(fd, name, DIR_FLAGS, Mode::empty())
                        .map_err(io::Error::from),
                    None => self
                        .root
                        .resolve(&parent.location().join(name), Links::Refuse, DIR_FLAGS)
                        .map(|r| r.fd),
                };
                match opened {
                    Ok(fd) => (fd, real),
                    Err(_) => {
                        self.stats.add_error_at(&rel, true);
                        return None;
                    }
                }
            }
        };
        let follow = self.options.follow_symlinks;
        let ancestry = if follow {
            let stat = rustix::fs::fstat(&fd).ok()?;
            Some(Arc::new(Ancestry {
                id: (stat.st_dev, stat.st_ino),
                parent: ancestry,
            }))
        } else {
            None
        };
        if let Some(hook) = &self.dir_hook {
            hook(&rel, DirRef::new(fd.as_fd()));
        }
        let Ok(listing) = list(&fd) else {
            self.stats.add_error_at(&rel, true);
            return None;
        };
        let rule_names = self.rule_names_present(&listing);
        let chain = self
            .rules
            .child_chain(&parent_chain, &rel, fd.as_fd(), &|name| {
                rule_names.iter().any(|n| n.as_slice() == name)
            });
        let mut handle = DirHandle::new(fd, rel, real, chain);
        handle.ancestry = ancestry;
        let handle = Arc::new(handle);
        let mut children = Vec::with_capacity(listing.len());
        for (name, kind) in listing {
            if let Some(child) = self.child(&handle, &name, kind, depth + 1) {
                children.push(child);
            }
        }
        let files = children
            .iter()
            .filter(|c| matches!(c, Child::File(_)))
            .count();
        self.cancel.add_walked(files as u64);
        Some((handle, children))
    }

    fn rule_names_present(&self, listing: &[(Vec<u8>, FileType)]) -> Vec<Vec<u8>> {
        let rule_files = &self.options.rules.access_files;
        listing
            .iter()
            .filter(|(name, _)| {
                matches!(name.as_slice(), b".git" | b".gitignore" | b".ignore")
                    || rule_files.iter().any(|f| f.as_bytes() == name.as_slice())
            })
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// The walk's view of one entry of `dir`: kept (a file or a directory to enter) or not.
    fn child(
        &self,
        dir: &Arc<DirHandle>,
        name: &[u8],
        kind: FileType,
        depth: usize,
    ) -> Option<Child> {
        if !self.visible_name(name) {
            self.count_invisible(&dir.rel, name, kind == FileType::Directory);
            return None;
        }
        let name = OsStr::from_bytes(name);
        let rel = dir.rel.join(name);
        let mut kind = kind;
        if kind == FileType::Unknown {
            let fd = dir.fd.as_ref()?;
            kind = match rustix::fs::statat(fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(stat) => FileType::from_raw_mode(stat.st_mode),
                Err(_) => {
                    self.stats.add_error_at(&rel, false);
                    return None;
                }
            };
        }
        // A followed link: opened beneath the root, judged where it really is.
        let mut link: Option<(OwnedFd, PathBuf)> = None;
        if kind == FileType::Symlink {
            let skip_link = || {
                self.stats.skipped.record(Reason::Symlink, &rel, false);
                None
            };
            if !self.options.follow_symlinks {
                return skip_link();
            }
            let path = dir.location().join(name);
            let Ok(resolved) =
                self.root
                    .resolve(&path, Links::Inside, OFlags::PATH | OFlags::CLOEXEC)
            else {
                // Dangling, or leading outside the root.
                return skip_link();
            };
            let stat = rustix::fs::fstat(&resolved.fd).ok()?;
            kind = FileType::from_raw_mode(stat.st_mode);
            let is_dir = kind == FileType::Directory;
            let verdict = self.rules.verdict_with_ancestors(&resolved.real, is_dir);
            if verdict == Verdict::Denied {
                self.stats.add_ignored(verdict, &rel, is_dir);
                return None;
            }
            if is_dir {
                let id = (stat.st_dev, stat.st_ino);
                if dir.ancestry.as_ref().is_some_and(|a| a.contains(id)) {
                    // A loop back to a directory being walked: reported, as ripgrep does.
                    self.stats.add_error_at(&rel, true);
                    return None;
                }
                let fd = rustix::fs::openat(&resolved.fd, ".", DIR_FLAGS, Mode::empty()).ok()?;
                link = Some((fd, resolved.real));
            } else {
                link = Some((resolved.fd, resolved.real));
            }
        }
        let is_dir = kind == FileType::Directory;
        if !is_dir && kind != FileType::RegularFile {
            return None;
        }
        let verdict = Rules::decide(&dir.chain, &rel, is_dir);
        if verdict != Verdict::Visible {
            self.stats.add_ignored(verdict, &rel, is_dir);
            return None;
        }
        // Below a followed link, an entry is also judged at its real location.
        if let (Some(real), None) = (&dir.real, &link)
            && self.rules.verdict_with_ancestors(&real.join(name), is_dir) == Verdict::Denied
        {
            self.stats.add_ignored(Verdict::Denied, &rel, is_dir);
            return None;
        }
        if is_dir {
            if let Some(filter) = &self.dir_filter
                && !filter(&rel)
            {
                return None;
            }
            let opened = link.map(|(fd, real)| (fd, Some(real)));
            return Some(Child::Dir(DirWork {
                parent: Some(dir.clone()),
                parent_chain: dir.chain.clone(),
                rel,
                opened,
                ancestry: dir.ancestry.clone(),
                depth,
            }));
        }
        let real = link.map(|(_, real)| real);
        let entry = FileEntry {
            dir: dir.clone(),
            rel,
            real,
        };
        if let Some(max) = self.options.max_filesize {
            match entry.stat(&self.root) {
                Ok(stat) if stat.st_size as u64 <= max => {}
                Ok(_) => {
                    self.stats
                        .skipped
                        .record(Reason::TooLarge, &entry.rel, false);
                    return None;
                }
                Err(_) => {
                    self.stats.add_error_at(&entry.rel, false);
                    return None;
                }
            }
        }
        Some(Child::File(entry))
    }

    /// Counts an entry `visible_name` refused when it is a dot entry that `hidden` would show
    /// (`.git` and codesift's temporary files are never shown: not worth a hint).
    pub fn count_invisible(&self, dir: &Path, name: &[u8], is_dir: bool) {
        if !self.options.hidden
            && name.first() == Some(&b'.')
            && name != b".git"
            && !is_temp_name(name)
        {
            let rel = dir.join(OsStr::from_bytes(name));
            self.stats.skipped.record(Reason::Hidden, &rel, is_dir);
        }
    }

    /// Names a walk never shows: `.git`, codesift's temporary files, and dot files when
    /// hidden files are off.
    pub fn visible_name(&self, name: &[u8]) -> bool {
        name != b".git"
            && !is_temp_name(name)
            && (self.options.hidden || name.first() != Some(&b'.'))
    }

    /// Visits every regular file under `starts` in parallel, in no particular order.
    /// `make_visitor` is called once per worker thread.
    pub fn visit_parallel<'s, M>(&self, starts: Vec<DirWork>, mut make_visitor: M)
    where
        M: FnMut() -> Box<dyn FnMut(&FileEntry) -> WalkState + Send + 's>,
    {
        let threads = self.options.thread_count().max(1);
        let visitors: Vec<_> = (0..threads).map(|_| make_visitor()).collect();
        let workers: Vec<Worker<DirWork>> = (0..threads).map(|_| Worker::new_lifo()).collect();
        let stealers: Vec<Stealer<DirWork>> = workers.iter().map(Worker::stealer).collect();
        let pending = AtomicUsize::new(starts.len());
        let quit = AtomicBool::new(false);
        for start in starts {
            workers[0].push(start);
        }
        let run =
            |index: usize,
             local: Worker<DirWork>,
             mut visit: Box<dyn FnMut(&FileEntry) -> WalkState + Send + 's>| {
                let mut idle = 0u32;
                loop {
                    if quit.load(AtomicOrdering::Relaxed) || self.cancel.is_cancelled() {
                        return;
                    }
                    let Some(work) = find_work(&local, &stealers, index) else {
                        if pending.load(AtomicOrdering::Acquire) == 0 {
                            return;
                        }
                        idle += 1;
                        if idle < 64 {
                            std::thread::yield_now();
                        } else {
                            std::thread::sleep(Duration::from_micros(100));
                        }
                        continue;
                    };
                    idle = 0;
                    if let Some((_, children)) = self.read_dir(work) {
                        for child in children {
                            match child {
                                Child::File(file) => {
                                    if self.cancel.is_cancelled() || visit(&file) == WalkState::Quit
                                    {
                                        quit.store(true, AtomicOrdering::Relaxed);
                                        break;
                                    }
                                }
                                Child::Dir(dir) => {
                                    pending.fetch_add(1, AtomicOrdering::AcqRel);
                                    local.push(dir);
                                }
                            }
                        }
                    }
                    pending.fetch_sub(1, AtomicOrdering::AcqRel);
                }
            };
        // Worker 0 is the calling thread, which holds the starts: it sets to work at once
        // while the others spawn, and its warm allocator arena serves the large per-file
        // buffers (fresh threads map fresh memory: 1 ms on a tree of one 4 MB file).
        // The others are kept threads (`crate::threads`), warm from earlier calls.
        let mut pairs = workers.into_iter().zip(visitors);
        let (first_local, first_visitor) = pairs.next().unwrap();
        let helpers: Vec<_> = pairs.enumerate().collect();
        crate::threads::with_helpers(
            helpers,
            |(index, (local, visitor))| run(index + 1, local, visitor),
            || run(0, first_local, first_visitor),
        );
    }

    /// Every regular file under `start`, lazily, in byte order of the path. Sequential: used
    /// where order matters more than walking speed (the walk stops as soon as it is dropped).
    pub fn sorted_files(&self, start: DirWork) -> impl Iterator<Item = FileEntry> + '_ {
        self.sorted_units(start, None)
            .filter_map(|unit| match unit {
                Unit::File(file) => Some(file),
                Unit::Dir(_) => None,
            })
    }

    /// Every regular file under `start`, lazily, in byte order of the path, walked in
    /// parallel: the sorted units, with runs of directory units expanded by one parallel walk
    /// each. Runs double in length (1, 2, 4, ... directories), so stopping early stays cheap
    /// while a full pass needs only a logarithmic number of walks.
    pub fn sorted_files_parallel(&self, start: DirWork) -> SortedFiles<'_> {
        SortedFiles {
            walker: self,
            units: (Box::new(self.sorted_units(start, Some(UNIT_DEPTH)))
                as Box<dyn Iterator<Item = Unit> + '_>)
                .peekable(),
            ready: VecDeque::new(),
            run_length: 1,
        }
    }

    /// The tree under `start` as a lazy, sorted sequence of units: the files within `depth`
    /// levels, and the directories at that depth (whole subtrees). Expanding each directory
    /// unit with `files_in` and concatenating gives every file in byte order.
    pub fn sorted_units(&self, start: DirWork, depth: Option<usize>) -> SortedUnits<'_> {
        SortedUnits {
            walker: self,
            stack: Vec::new(),
            start: Some(start),
            depth,
        }
    }

    /// Every regular file under the directories `dirs`, walked in parallel, in byte order.
    pub fn files_in(&self, dirs: Vec<DirWork>) -> Vec<FileEntry> {
        let found: Mutex<Vec<FileEntry>> = Mutex::new(Vec::new());
        self.visit_parallel(dirs, || {
            let mut batch = Batch::new(&found);
            Box::new(move |entry| {
                batch.push(entry.clone());
                WalkState::Continue
            })
        });
        let mut files = found.into_inner().unwrap();
        files.sort_unstable_by(|a, b| {
            a.rel
                .as_os_str()
                .as_bytes()
                .cmp(b.rel.as_os_str().as_bytes())
        });
        files
    }

    /// The visible entries of the directory `rel` (a real location), unsorted: `(name,
    /// is_dir)`, with the rules of a walk. Symlinks are listed as what they point to, and
    /// only when that stays inside the root and is not denied where it really is.
    pub fn list_dir(&self, rel: &Path) -> io::Result<Vec<(Vec<u8>, bool)>> {
        Ok(self
            .list_entries(rel)?
            .into_iter()
            .map(|entry| (entry.name, entry.is_dir))
            .collect())
    }

    /// `list_dir` with whether each entry is a symlink (listed as what it points to).
    pub fn list_entries(&self, rel: &Path) -> io::Result<Vec<Listed>> {
        let resolved = self.root.resolve(rel, Links::Refuse, DIR_FLAGS)?;
        let listing = list(&resolved.fd)?;
        let rule_names = self.rule_names_present(&listing);
        let parent_chain = match rel.parent() {
            Some(parent) => self.rules.chain_of(parent),
            None => None,
        };
        let chain = self
            .rules
            .child_chain(&parent_chain, rel, resolved.fd.as_fd(), &|name| {
                rule_names.iter().any(|n| n.as_slice() == name)
            });
        let mut entries = Vec::new();
        for (name, mut kind) in listing {
            if !self.visible_name(&name) {
                self.count_invisible(rel, &name, kind == FileType::Directory);
                continue;
            }
            let os_name = OsStr::from_bytes(&name);
            let entry_rel = rel.join(os_name);
            let is_link = kind == FileType::Symlink;
            if kind == FileType::Unknown || is_link {
                let stat = if is_link {
                    let Ok(found) = self.root.resolve(
                        &entry_rel,
                        Links::Inside,
                        OFlags::PATH | OFlags::CLOEXEC,
                    ) else {
                        // Dangling, or leading outside the root.
                        self.stats
                            .skipped
                            .record(Reason::Symlink, &entry_rel, false);
                        continue;
                    };
                    let Ok(stat) = rustix::fs::fstat(&found.fd) else {
                        self.stats.add_error_at(&entry_rel, false);
                        continue;
                    };
                    let is_dir = FileType::from_raw_mode(stat.st_mode) == FileType::Directory;
                    if self.rules.verdict_with_ancestors(&found.real, is_dir) == Verdict::Denied {
                        self.stats.add_ignored(Verdict::Denied, &entry_rel, is_dir);
                        continue;
                    }
                    stat
                } else {
                    match rustix::fs::statat(&resolved.fd, os_name, AtFlags::SYMLINK_NOFOLLOW) {
                        Ok(stat) => stat,
                        Err(_) => {
                            self.stats.add_error_at(&entry_rel, false);
                            continue;
                        }
                    }
                };
                kind = FileType::from_raw_mode(stat.st_mode);
            }
            let is_dir = kind == FileType::Directory;
            let verdict = Rules::decide(&chain, &entry_rel, is_dir);
            if verdict != Verdict::Visible {
                self.stats.add_ignored(verdict, &entry_rel, is_dir);
                continue;
            }
            entries.push(Listed {
                name,
                is_dir,
                is_link,
            });
        }
        Ok(entries)
    }
}

/// An entry of a listed directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    pub name: Vec<u8>,
    /// A directory, or a symlink to one.
    pub is_dir: bool,
    pub is_link: bool,
}

/// An explicit search path: one file, or a directory to walk.
pub enum Target {
    File(FileEntry),
    Dir(DirWork),
}

impl Target {
    /// Where the search path really is (symlinks along it resolved).
    pub fn real(&self) -> &Path {
        match self {
            Target::File(file) => &file.rel,
            Target::Dir(dir) => &dir.rel,
        }
    }
}

impl Walker {
    /// Resolves an explicit search path beneath the root (symlinks inside the root are
    /// followed, whatever `follow_symlinks` says: the caller named the path) and checks it:
    /// nothing inside `.git`, nothing an access-ignore file denies where it really is.
    pub fn target(&self, rel: &Path) -> Result<Target> {
        let resolved = self
            .root
            .resolve(rel, Links::Inside, OFlags::PATH | OFlags::CLOEXEC)
            .map_err(|e| Error::io(rel, "search", &e))?;
        let stat =
            rustix::fs::fstat(&resolved.fd).map_err(|e| Error::io(rel, "search", &e.into()))?;
        let real = resolved.real;
        if real.iter().any(|c| c == ".git") {
            return Err(Error::Sandbox(format!(
                "{} is inside .git, which codesift never searches or lists; use git itself",
                shown(rel)
            )));
        }
        let kind = FileType::from_raw_mode(stat.st_mode);
        let is_dir = kind == FileType::Directory;
        if self.rules.verdict_with_ancestors(&real, is_dir) == Verdict::Denied {
            return Err(Error::Sandbox(format!(
                "{} is denied by an access-ignore file ({}); search elsewhere",
                shown(rel),
                self.options.rules.access_files.join(", ")
            )));
        }
        let opened = if is_dir {
            self.start(&real, Links::Refuse).map(Target::Dir)
        } else if kind == FileType::RegularFile {
            self.file(&real).map(Target::File)
        } else {
            return Err(Error::io(
                rel,
                "search",
                &super::root::not_regular(stat.st_mode),
            ));
        };
        opened.map_err(|e| Error::io(rel, "search", &e))
    }

    /// Whether a walk from the root would enter the directory `rel`: no `.git`, hidden or
    /// temporary name along it, and no ignore rule hiding it or an ancestor.
    pub fn walkable(&self, rel: &Path) -> bool {
        rel.iter().all(|c| self.visible_name(c.as_bytes()))
            && self.rules.verdict_with_ancestors(rel, true) == Verdict::Visible
    }
}

/// Takes work from the thread's own deque, or steals a batch from the others.
fn find_work(
    local: &Worker<DirWork>,
    stealers: &[Stealer<DirWork>],
    index: usize,
) -> Option<DirWork> {
    if let Some(work) = local.pop() {
        return Some(work);
    }
    let n = stealers.len();
    loop {
        let mut retry = false;
        for offset in 1..n {
            match stealers[(index + offset) % n].steal_batch_and_pop(local) {
                Steal::Success(work) => return Some(work),
                Steal::Retry => retry = true,
                Steal::Empty => {}
            }
        }
        if !retry {
            return None;
        }
    }
}

/// The entries of an open directory: `(name, type)`, `.` and `..` left out.
/// Lists the directory `fd` with `getdents64` on the descriptor itself (`Dir::read_from`
/// would first duplicate it with `fcntl` and `openat(".")`: three system calls more per
/// directory). Every caller passes a handle it has just opened and lists it once, so reading
/// from its own offset sees the whole directory.
fn list(fd: &OwnedFd) -> io::Result<Vec<(Vec<u8>, FileType)>> {
    let mut entries = Vec::new();
    let mut buf = Vec::with_capacity(LIST_BUFFER);
    let mut dir = rustix::fs::RawDir::new(fd, buf.spare_capacity_mut());
    while let Some(entry) = dir.next() {
        let entry = entry?;
        let name = entry.file_name().to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        entries.push((name.to_vec(), entry.file_type()));
    }
    Ok(entries)
}

/// Bytes of directory entries asked for per `getdents64` (glibc's `readdir` asks for 32 KiB).
const LIST_BUFFER: usize = 32 * 1024;

/// Depth of the directories that `sorted_files_parallel` hands out whole.
const UNIT_DEPTH: usize = 2;

/// A piece of a sorted walk: one file, or a directory to expand with `Walker::files_in`.
pub enum Unit {
    File(FileEntry),
    Dir(DirWork),
}

/// See `Walker::sorted_units`.
pub struct SortedUnits<'w> {
    walker: &'w Walker,
    /// Directories being walked, each with its sorted remaining children (reversed, so the
    /// next one is popped from the end).
    stack: Vec<Vec<Child>>,
    start: Option<DirWork>,
    depth: Option<usize>,
}

impl SortedUnits<'_> {
    fn descend(&mut self, work: DirWork) {
        if let Some((_, mut children)) = self.walker.read_dir(work) {
            children.sort_unstable_by(|a, b| byte_order(b, a));
            self.stack.push(children);
        }
    }
}

impl Iterator for SortedUnits<'_> {
    type Item = Unit;

    fn next(&mut self) -> Option<Unit> {
        if let Some(start) = self.start.take() {
            self.descend(start);
        }
        loop {
            if self.walker.cancel.is_cancelled() {
                return None;
            }
            let top = self.stack.last_mut()?;
            let Some(child) = top.pop() else {
                self.stack.pop();
                continue;
            };
            match child {
                Child::File(file) => return Some(Unit::File(file)),
                Child::Dir(dir) => {
                    if self.depth.is_some_and(|d| dir.depth >= d) {
                        return Some(Unit::Dir(dir));
                    }
                    self.descend(dir);
                }
            }
        }
    }
}

/// See `Walker::sorted_files_parallel`.
pub struct SortedFiles<'w> {
    walker: &'w Walker,
    units: std::iter::Peekable<Box<dyn Iterator<Item = Unit> + 'w>>,
    ready: VecDeque<FileEntry>,
    run_length: usize,
}

impl SortedFiles<'_> {
    /// Stops the lazy enumeration. Returns the files already expanded (in order, next in
    /// line), and what has not been reached yet: loose files and whole directories, which all
    /// sort after the expanded files, for a caller that will search them in any order.
    pub fn split_rest(self) -> (Vec<FileEntry>, Vec<FileEntry>, Vec<DirWork>) {
        let ready = self.ready.into_iter().collect();
        let (mut files, mut dirs) = (Vec::new(), Vec::new());
        for unit in self.units {
            match unit {
                Unit::File(file) => files.push(file),
                Unit::Dir(dir) => dirs.push(dir),
            }
        }
        (ready, files, dirs)
    }
}

impl Iterator for SortedFiles<'_> {
    type Item = FileEntry;

    fn next(&mut self) -> Option<FileEntry> {
        loop {
            if let Some(file) = self.ready.pop_front() {
                return Some(file);
            }
            match self.units.next()? {
                Unit::File(file) => return Some(file),
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
                    files.extend(self.walker.files_in(dirs));
                    files.sort_unstable_by(|a, b| {
                        a.rel
                            .as_os_str()
                            .as_bytes()
                            .cmp(b.rel.as_os_str().as_bytes())
                    });
                    self.ready.extend(files);
                }
            }
        }
    }
}

/// Orders sibling entries so that a depth-first walk yields paths in byte order of the whole
/// path: a directory `a` sorts as `a/`, after a file `a.txt` (`.` < `/`) but before `ab`.
fn byte_order(a: &Child, b: &Child) -> Ordering {
    let suffix = |c: &Child| matches!(c, Child::Dir(_)).then_some(b'/');
    a.name()
        .iter()
        .copied()
        .chain(suffix(a))
        .cmp(b.name().iter().copied().chain(suffix(b)))
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

/// The bytes of a workspace-relative path: what results are ordered by (byte order of the
/// whole path, as `PathBuf`'s component order is not).
pub fn rel_bytes(rel: &Path) -> &[u8] {
    rel.as_os_str().as_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{temp_tree, write_files};
    use std::fs;

    fn options() -> WalkOptions {
        let mut options = WalkOptions::for_tests(true, 2);
        options.rules.access_files = vec![".codesiftignore".into()];
        options
    }

    fn walker(dir: &Path, options: WalkOptions) -> Walker {
        Walker::new(Arc::new(Root::open(dir).unwrap()), options)
    }

    fn tree() -> tempfile::TempDir {
        temp_tree(&[
            ("a.txt", "x"),
            ("a/b.txt", "x"),
            ("ab.txt", "x"),
            ("a-b/c.txt", "x"),
            (".hidden/h.txt", "x"),
            (".git/config", "x"),
            ("build/out.o", "x"),
            (".gitignore", "build/\n"),
            (".a.txt.codesift-0123abcd.tmp", "x"),
        ])
    }

    fn names(files: impl Iterator<Item = FileEntry>) -> Vec<String> {
        files
            .map(|f| f.rel.to_string_lossy().into_owned())
            .collect()
    }

    fn sorted(w: &Walker, start: &str) -> Vec<String> {
        let start = w.start(Path::new(start), Links::Refuse).unwrap();
        names(w.sorted_files(start))
    }

    #[test]
    fn a_directory_longer_than_one_listing_buffer_is_listed_whole() {
        let dir = tempfile::tempdir().unwrap();
        // ~300 bytes of entry each: many `getdents64` calls of `LIST_BUFFER` bytes.
        let mut expected: Vec<Vec<u8>> = (0..400)
            .map(|i| format!("{i:04}-{}", "n".repeat(250)).into_bytes())
            .collect();
        for name in &expected {
            fs::write(dir.path().join(OsStr::from_bytes(name)), "x").unwrap();
        }
        let fd = rustix::fs::open(dir.path(), DIR_FLAGS, Mode::empty()).unwrap();
        let mut listed: Vec<Vec<u8>> = list(&fd).unwrap().into_iter().map(|(n, _)| n).collect();
        listed.sort();
        expected.sort();
        assert_eq!(listed.len(), expected.len(), "entries listed");
        assert!(listed == expected, "listing differs from the names written");
    }

    #[test]
    fn a_file_opened_to_search_reads_whole_and_gives_its_metadata() {
        let dir = tempfile::tempdir().unwrap();
        let text = "line\n".repeat(50_000);
        fs::write(dir.path().join("f.txt"), &text).unwrap();
        let w = walker(dir.path(), options());
        let start = w.start(Path::new(""), Links::Refuse).unwrap();
        let entry = w.sorted_files(start).next().unwrap();
        let mut opened = entry.open_to_search(w.root()).unwrap();
        let meta = opened.meta().unwrap();
        let std_meta = fs::metadata(dir.path().join("f.txt")).unwrap();
        use std::os::unix::fs::MetadataExt;
        assert_eq!(
            (meta.is_file, meta.size, meta.mtime_ns),
            (
                true,
                std_meta.len(),
                std_meta.mtime() * 1_000_000_000 + std_meta.mtime_nsec()
            )
        );
        let mut buffer = Vec::new();
        crate::fs::read::read_known_size(&opened.file, meta.size, &mut buffer).unwrap();
        assert!(
            buffer == text.as_bytes(),
            "read {} bytes of {}",
            buffer.len(),
            text.len()
        );
        // Switched to blocking reads for readers that would not retry EAGAIN.
        let flags = rustix::fs::fcntl_getfl(opened.blocking().unwrap()).unwrap();
        assert!(!flags.contains(OFlags::NONBLOCK), "flags: {flags:?}");
    }

    #[test]
    fn a_fifo_swapped_in_is_refused_by_the_open_to_search_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("f.txt"), "x").unwrap();
        let w = walker(dir.path(), options());
        let start = w.start(Path::new(""), Links::Refuse).unwrap();
        let entry = w.sorted_files(start).next().unwrap();
        fs::remove_file(dir.path().join("f.txt")).unwrap();
        crate::test_support::make_fifo(&dir.path().join("f.txt"));
        let err = entry
            .open_to_search(w.root())
            .err()
            .expect("a FIFO refused");
        assert_eq!(err.raw_os_error(), Some(libc::ENODEV), "{err}");
    }

    #[test]
    fn sorted_walk_is_byte_ordered_and_skips_git_ignored_and_temp_files() {
        let dir = tree();
        let w = walker(dir.path(), options());
        let files = sorted(&w, "");
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
        assert_eq!(w.stats().ignored(), 1);
    }

    #[test]
    fn units_and_parallel_walks_agree_with_the_sorted_walk() {
        let dir = tree();
        write_files(
            dir.path(),
            &[("a/b/c/d.txt", "x"), ("a/b.c", "x"), ("z/y/x/w.txt", "x")],
        );
        let w = walker(dir.path(), options());
        let expected = sorted(&w, "");
        let mut expanded = Vec::new();
        let start = w.start(Path::new(""), Links::Refuse).unwrap();
        for unit in w.sorted_units(start, Some(UNIT_DEPTH)) {
            match unit {
                Unit::File(file) => expanded.push(file.rel.to_string_lossy().into_owned()),
                Unit::Dir(dir) => expanded.extend(names(w.files_in(vec![dir]).into_iter())),
            }
        }
        assert_eq!(expanded, expected);
        let start = w.start(Path::new(""), Links::Refuse).unwrap();
        assert_eq!(names(w.sorted_files_parallel(start)), expected);
        let seen = Mutex::new(Vec::new());
        let start = w.start(Path::new(""), Links::Refuse).unwrap();
        w.visit_parallel(vec![start], || {
            Box::new(|entry| {
                seen.lock()
                    .unwrap()
                    .push(entry.rel.to_string_lossy().into_owned());
                WalkState::Continue
            })
        });
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        assert_eq!(seen, expected);
    }

    #[test]
    fn symlinks_followed_only_inside_root_and_loops_end() {
        let outside = temp_tree(&[("secret.txt", "s")]);
        let dir = tree();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        std::os::unix::fs::symlink("a", dir.path().join("in")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("a"), dir.path().join("abs")).unwrap();
        std::os::unix::fs::symlink("..", dir.path().join("a/loop")).unwrap();
        let plain = sorted(&walker(dir.path(), options()), "");
        assert!(
            !plain
                .iter()
                .any(|f| f.starts_with("in/") || f.starts_with("out/"))
        );
        let mut opts = options();
        opts.follow_symlinks = true;
        let followed = sorted(&walker(dir.path(), opts), "");
        assert!(followed.contains(&"in/b.txt".to_string()), "{followed:?}");
        assert!(followed.contains(&"abs/b.txt".to_string()), "{followed:?}");
        assert!(
            !followed.iter().any(|f| f.starts_with("out/")),
            "{followed:?}"
        );
        assert!(
            !followed.iter().any(|f| f.contains("loop/")),
            "{followed:?}"
        );
    }

    #[test]
    fn a_denied_target_stays_hidden_behind_a_link() {
        let dir = temp_tree(&[
            ("private/x.txt", "s"),
            ("secret.txt", "s"),
            (".codesiftignore", "secret.txt\nprivate/\n"),
        ]);
        let root = dir.path();
        std::os::unix::fs::symlink("secret.txt", root.join("alias.txt")).unwrap();
        std::os::unix::fs::symlink("private", root.join("pub")).unwrap();
        let mut opts = options();
        opts.follow_symlinks = true;
        let w = walker(root, opts);
        assert_eq!(sorted(&w, ""), vec![".codesiftignore"]);
        let listed = w.list_dir(Path::new("")).unwrap();
        let listed: Vec<&[u8]> = listed.iter().map(|(n, _)| n.as_slice()).collect();
        assert_eq!(listed, vec![&b".codesiftignore"[..]]);
    }

    #[test]
    fn a_directory_swapped_for_a_link_is_not_entered() {
        let outside = temp_tree(&[("secret.txt", "s")]);
        let dir = temp_tree(&[("d/f.txt", "f")]);
        let w = walker(dir.path(), options());
        let start = w.start(Path::new(""), Links::Refuse).unwrap();
        let mut units = w.sorted_units(start, Some(1));
        // Listed while `d` was a directory; swapped before it is entered.
        let Some(Unit::Dir(d)) = units.next() else {
            panic!("expected the directory unit")
        };
        fs::rename(dir.path().join("d"), dir.path().join("d.old")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("d")).unwrap();
        assert!(w.files_in(vec![d]).is_empty());
        assert_eq!(w.stats().errors(), 1);
    }
}
