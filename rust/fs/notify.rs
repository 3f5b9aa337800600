//! Watching directories for changes (inotify): each directory is added through its open
//! descriptor, never by a path that could have been swapped, and events are read without
//! blocking.

use super::dir::DirRef;
use rustix::fd::OwnedFd;
use rustix::fs::inotify::{self, CreateFlags, Event, WatchFlags};
use rustix::io::Errno;
use std::io;
use std::mem::MaybeUninit;

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
