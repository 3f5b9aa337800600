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
//! would carry the old path), a rule file changed (visibility of many files changes), the
//! per-user watch limit reached.

use crate::fs::root::Links;
use crate::fs::walk::{Batch, DirHook, FileEntry, WalkState, Walker};
use crate::rules::Verdict;
use rustix::fs::FileType;
use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
use rustix::io::Errno;
use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

const GIT_INFO: &str = ".git/info";

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
    fd: OwnedFd,
    dirs: HashMap<i32, PathBuf>,
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
}

impl Watch {
    pub fn new(rule_names: Vec<Vec<u8>>) -> std::io::Result<Watch> {
        let fd = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK)?;
        Ok(Watch {
            fd,
            dirs: HashMap::new(),
            dirty: HashSet::new(),
            broken: false,
            caught_up: false,
            generation: 0,
            rule_names,
        })
    }

    /// Watches the open directory `dir` (at `rel`); called before the directory is listed,
    /// so nothing created after the listing goes unseen. The watch is added through the
    /// descriptor (`/proc/self/fd`), never through a path that could have been swapped.
    pub fn add(&mut self, rel: &Path, dir: BorrowedFd<'_>) {
        let path = format!("/proc/self/fd/{}", dir.as_raw_fd());
        match inotify::add_watch(&self.fd, path.as_str(), MASK) {
            Ok(wd) => {
                self.dirs.insert(wd, rel.to_path_buf());
            }
            // The per-user watch limit (ENOSPC) or anything else: give up on watching.
            Err(_) => self.broken = true,
        }
    }

    /// Also watches the root repository's `.git/info` (walks never enter `.git`): a change to
    /// its `exclude` file changes what is visible, so any event there breaks the watch.
    pub fn add_git_info(&mut self, root: &crate::fs::root::Root) {
        let rel = Path::new(GIT_INFO);
        if let Ok(dir) = root.resolve(rel, Links::Refuse, crate::fs::root::DIR_FLAGS) {
            self.add(rel, std::os::fd::AsFd::as_fd(&dir.fd));
        }
    }

    /// Reads every event queued so far into `dirty` (or `broken`).
    pub fn drain(&mut self) {
        let mut buffer = [MaybeUninit::<u8>::uninit(); 64 * 1024];
        let mut reader = inotify::Reader::new(&self.fd, &mut buffer);
        loop {
            let event = match reader.next() {
                Ok(event) => event,
                Err(Errno::AGAIN | Errno::INTR) => break,
                Err(_) => {
                    self.broken = true;
                    break;
                }
            };
            let mask = event.events();
            if mask.contains(ReadFlags::QUEUE_OVERFLOW) {
                self.broken = true;
                continue;
            }
            let wd = event.wd();
            if mask.contains(ReadFlags::IGNORED) {
                self.dirs.remove(&wd);
                continue;
            }
            let Some(dir) = self.dirs.get(&wd) else {
                continue;
            };
            if dir.as_os_str() == GIT_INFO {
                self.broken = true;
                continue;
            }
            match event.file_name() {
                Some(name) => {
                    let name = name.to_bytes();
                    if self.rule_names.iter().any(|r| r.as_slice() == name) {
                        self.broken = true;
                    }
                    let path = dir.join(OsStr::from_bytes(name));
                    self.dirty.insert(path);
                }
                None => {
                    // The directory itself moved: later events would carry its old path.
                    if mask.intersects(ReadFlags::MOVE_SELF) {
                        self.broken = true;
                    }
                    self.dirty.insert(dir.clone());
                }
            }
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

/// The files a walk would show now at or below the dirty paths under `search_dir` that
/// `accept` takes: a dirty file as it is now (if it is one the walk shows), a dirty directory
/// walked whole and watched (it may be new). Outermost paths first; a path inside a directory
/// already walked is skipped.
pub fn dirty_files(
    walker: Walker,
    watch: Watch,
    search_dir: &Path,
    accept: &(dyn Fn(&Path) -> bool + Sync),
) -> (Vec<FileEntry>, Walker, Watch) {
    let mut dirty: Vec<PathBuf> = watch
        .dirty
        .iter()
        .filter(|p| p.starts_with(search_dir))
        .cloned()
        .collect();
    dirty.sort();
    let mut walked: Vec<PathBuf> = Vec::new();
    let mut files = Vec::new();
    let found: Mutex<Vec<FileEntry>> = Mutex::new(Vec::new());
    let watch = Arc::new(Mutex::new(watch));
    let hook: DirHook = {
        let w = watch.clone();
        Arc::new(move |rel: &Path, fd| w.lock().unwrap().add(rel, fd))
    };
    let walker = walker.with_dir_hook(Some(hook));
    for path in &dirty {
        if walked.iter().any(|w| path.starts_with(w)) {
            continue;
        }
        let Ok(stat) = walker.root().lstat(path) else {
            continue; // gone
        };
        let visible_parent = path.parent().is_none_or(|p| walker.walkable(p));
        let visible_name = path
            .file_name()
            .is_some_and(|n| walker.visible_name(n.as_bytes()));
        if !visible_parent || !visible_name {
            continue;
        }
        match FileType::from_raw_mode(stat.st_mode) {
            FileType::Directory => {
                if walker.rules().verdict_with_ancestors(path, true) != Verdict::Visible {
                    continue;
                }
                if let Ok(start) = walker.start(path, Links::Refuse) {
                    walker.visit_parallel(vec![start], || {
                        let mut batch = Batch::new(&found);
                        Box::new(move |entry| {
                            if accept(&entry.rel) {
                                batch.push(entry.clone());
                            }
                            WalkState::Continue
                        })
                    });
                }
                walked.push(path.clone());
            }
            FileType::RegularFile => {
                let too_big = walker
                    .options()
                    .max_filesize
                    .is_some_and(|max| stat.st_size as u64 > max);
                if !too_big
                    && accept(path)
                    && walker.rules().verdict_with_ancestors(path, false) == Verdict::Visible
                {
                    files.push(path.clone());
                }
            }
            _ => {}
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
    use std::fs;
    use std::os::fd::AsFd;

    #[test]
    fn changes_are_seen_when_drained() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        let mut watch = Watch::new(vec![b".gitignore".to_vec()]).unwrap();
        let sub = fs::File::open(dir.path().join("sub")).unwrap();
        watch.add(Path::new("sub"), sub.as_fd());
        fs::write(dir.path().join("sub/a.txt"), "x").unwrap();
        watch.drain();
        assert!(watch.is_dirty(Path::new("sub/a.txt")));
        assert!(!watch.is_dirty(Path::new("sub/b.txt")));
        assert!(!watch.broken);
        fs::write(dir.path().join("sub/.gitignore"), "*.txt\n").unwrap();
        watch.drain();
        assert!(watch.broken);
    }
}
