//! Descriptors that cross to the Python caller: a file opened beneath the root handed over as
//! a descriptor it owns, and a descriptor of the caller's written to.

use std::fs::File;
use std::io;
use std::os::fd::{BorrowedFd, IntoRawFd};

/// Hands `file` over as a raw descriptor: the receiver owns it and must close it.
pub fn hand_over(file: File) -> i32 {
    file.into_raw_fd()
}

/// At most this much is written at once once the descriptor is writable: a pipe with room
/// for one more page takes a page without blocking (a larger write to a blocking pipe waits
/// until all of it fits).
const WRITE_CHUNK: usize = 4096;

/// Writes some of `bytes` to the caller's descriptor `fd` once it can take them, waiting at
/// most `wait`: how many were written, or 0 when it could not take any in that time (or the
/// wait was interrupted). The caller checks its signals between calls: a signal meant to
/// stop it (Ctrl-C) may be delivered to another thread, and would then never interrupt a
/// write blocked on a full pipe.
///
/// # Safety
///
/// `fd` must be an open descriptor for the whole call (its owner keeps it open).
pub unsafe fn write_to(fd: i32, bytes: &[u8], wait: std::time::Duration) -> io::Result<usize> {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    // SAFETY: the caller promises `fd` stays open for the call.
    let target = unsafe { BorrowedFd::borrow_raw(fd) };
    let mut fds = [PollFd::new(&target, PollFlags::OUT)];
    let timeout = Timespec {
        tv_sec: wait.as_secs() as i64,
        tv_nsec: wait.subsec_nanos() as i64,
    };
    match poll(&mut fds, Some(&timeout)) {
        Ok(0) | Err(rustix::io::Errno::INTR) => return Ok(0),
        Ok(_) => {}
        Err(e) => return Err(e.into()),
    }
    let chunk = &bytes[..bytes.len().min(room(target))];
    match rustix::io::write(target, chunk) {
        Err(rustix::io::Errno::INTR) => Ok(0),
        done => Ok(done?),
    }
}

/// How much a descriptor that poll found writable takes without blocking: a page (what one
/// free pipe buffer holds), or for a pipe the pages surely free (each unread byte may hold
/// a buffer of its own), so that a caught-up reader gets a file's lines in one write
/// instead of a wake-up per page. A regular file never blocks for long: all of it.
fn room(fd: BorrowedFd<'_>) -> usize {
    let Ok(capacity) = rustix::pipe::fcntl_getpipe_size(fd) else {
        return match rustix::fs::fstat(fd) {
            Ok(stat) if rustix::fs::FileType::from_raw_mode(stat.st_mode).is_file() => usize::MAX,
            _ => WRITE_CHUNK,
        };
    };
    let Ok(unread) = rustix::io::ioctl_fionread(fd) else {
        return WRITE_CHUNK;
    };
    let page = rustix::param::page_size();
    let buffers = capacity / page;
    let free = buffers.saturating_sub((unread as usize).min(buffers));
    (free * page).max(WRITE_CHUNK)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;
    use std::time::Duration;

    #[test]
    fn a_full_pipe_gives_back_control_instead_of_blocking() {
        let (mut reader, writer) = std::io::pipe().unwrap();
        let page = vec![b'x'; WRITE_CHUNK];
        let mut written = 0;
        loop {
            // SAFETY: `writer` is open for the whole test.
            let n = unsafe { write_to(writer.as_raw_fd(), &page, Duration::from_millis(5)) };
            match n.unwrap() {
                0 => break,
                n => written += n,
            }
            assert!(written < 64 << 20, "the pipe never filled up");
        }
        assert!(
            written >= WRITE_CHUNK,
            "expected the pipe to take some pages first"
        );
        let mut buf = vec![0u8; WRITE_CHUNK];
        std::io::Read::read_exact(&mut reader, &mut buf).unwrap();
        // SAFETY: as above.
        let n = unsafe { write_to(writer.as_raw_fd(), &page, Duration::from_millis(5)) };
        assert!(n.unwrap() > 0, "a pipe read from takes more again");
    }

    #[test]
    fn an_empty_pipe_takes_more_than_a_page_at_once_and_a_file_takes_all() {
        let (mut reader, writer) = std::io::pipe().unwrap();
        let lines = vec![b'x'; 8 * WRITE_CHUNK];
        // SAFETY: `writer` is open for the whole test.
        let n = unsafe { write_to(writer.as_raw_fd(), &lines, Duration::from_millis(5)) };
        assert_eq!(n.unwrap(), lines.len(), "one write into an empty pipe");
        let mut buf = vec![0u8; lines.len()];
        std::io::Read::read_exact(&mut reader, &mut buf).unwrap();
        let file = tempfile::tempfile().unwrap();
        let big = vec![b'y'; 1 << 20];
        // SAFETY: `file` is open for the whole test.
        let n = unsafe { write_to(file.as_raw_fd(), &big, Duration::from_millis(5)) };
        assert_eq!(n.unwrap(), big.len(), "a file takes all at once");
    }
}
