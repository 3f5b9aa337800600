//! Descriptors that cross to the Python caller: a file opened beneath the root handed over as
//! a descriptor it owns, and a descriptor of the caller's written to.

use std::fs::File;
use std::io;
use std::os::fd::{BorrowedFd, IntoRawFd};

/// Hands `file` over as a raw descriptor: the receiver owns it and must close it.
pub fn hand_over(file: File) -> i32 {
    file.into_raw_fd()
}

/// Writes some of `bytes` to the caller's descriptor `fd`, returning how many were written
/// (an interrupted write is an `Interrupted` error, for the caller to handle its signals).
///
/// # Safety
///
/// `fd` must be an open descriptor for the whole call (its owner keeps it open).
pub unsafe fn write_to(fd: i32, bytes: &[u8]) -> io::Result<usize> {
    // SAFETY: the caller promises `fd` stays open for the call.
    let target = unsafe { BorrowedFd::borrow_raw(fd) };
    Ok(rustix::io::write(target, bytes)?)
}
