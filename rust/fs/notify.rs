//! Watching directories for changes (inotify): each directory is added through its open
//! descriptor, never by a path that could have been swapped, and events are read without
//! blocking.

use super::dir::DirRef;
use rustix::fd::{AsRawFd, OwnedFd};
use rustix::fs::inotify::{self, CreateFlags, Event, WatchFlags};
use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;
use std::io;
use std::mem::MaybeUninit;
use std::path::Path;

/// A file as the kernel knows it: its device and inode (the same for all its names).
pub type FileId = (u64, u64);

/// Where a path leads now (links followed): a file, nowhere (missing, a dangling link, a
/// component that is not a directory), or an error that stops the lookup (a loop, a
/// directory on the way that cannot be searched), by its `errno`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leads {
    To(FileId),
    Nowhere,
    Failed(i32),
}

/// Opens what `path` leads to without reading it (`O_PATH`: no blocking on a FIFO, no
/// permission to read needed).
fn open_path(path: &Path) -> Result<Option<OwnedFd>, Errno> {
    match rustix::fs::open(path, OFlags::PATH | OFlags::CLOEXEC, Mode::empty()) {
        Ok(fd) => Ok(Some(fd)),
        Err(Errno::NOENT | Errno::NOTDIR) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Where `path` leads now (see [`Leads`]).
pub fn leads(path: &Path) -> Leads {
    match rustix::fs::stat(path) {
        Ok(stat) => Leads::To((stat.st_dev, stat.st_ino)),
        Err(Errno::NOENT | Errno::NOTDIR) => Leads::Nowhere,
        Err(e) => Leads::Failed(e.raw_os_error()),
    }
}

/// An inotify instance.
#[derive(Debug)]
pub struct Notify {
    fd: OwnedFd,
}

impl Notify {
    pub fn new() -> io::Result<Notify> {
        let fd = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK)?;
        Ok(Notify { fd })
    }

    /// Watches `dir` for `mask`; returns the watch descriptor its events carry.
    pub fn add(&self, dir: DirRef<'_>, mask: WatchFlags) -> io::Result<i32> {
        Ok(inotify::add_watch(&self.fd, dir.path_through(), mask)?)
    }

    /// Watches the file `path` leads to now (links followed) for `mask`, through a descriptor
    /// of that very file: the watch and the identity returned are of one inode even when the
    /// path changes meanwhile. A watch on a file's inode reports writes and new attributes
    /// through any of its names (hard links). `Ok((None, leads))` when it leads to no file
    /// (nothing to watch: `leads` says why); `Err` when there is a file but it cannot be
    /// watched (inotify needs permission to read it; the per-user watch limit).
    pub fn add_file(&self, path: &Path, mask: WatchFlags) -> io::Result<(Option<i32>, Leads)> {
        let fd = match open_path(path) {
            Ok(Some(fd)) => fd,
            Ok(None) => return Ok((None, Leads::Nowhere)),
            Err(e) => return Ok((None, Leads::Failed(e.raw_os_error()))),
        };
        let stat = rustix::fs::fstat(&fd)?;
        let through = format!("/proc/self/fd/{}", fd.as_raw_fd());
        let wd = inotify::add_watch(&self.fd, through, mask)?;
        Ok((Some(wd), Leads::To((stat.st_dev, stat.st_ino))))
    }

    /// Calls `each` on every event queued so far; `false` when reading failed (events may
    /// have been lost).
    pub fn for_each_queued(&self, mut each: impl FnMut(&Event<'_>)) -> bool {
        let mut buffer = [MaybeUninit::<u8>::uninit(); 64 * 1024];
        let mut reader = inotify::Reader::new(&self.fd, &mut buffer);
        loop {
            match reader.next() {
                Ok(event) => each(&event),
                Err(Errno::AGAIN | Errno::INTR) => return true,
                Err(_) => return false,
            }
        }
    }
}
