//! Reading an open file whole at the size its metadata gave, with as few system calls as
//! the kernel allows (a search reads every file of a walk this way).

use std::fs::File;
use std::io::Read;
use std::os::fd::AsRawFd;

/// Reads the `size` bytes the caller just saw in the file's metadata into `buffer` (replacing
/// its contents): usually a single `read(2)`, where `File::read_to_end` would add a statx
/// and an lseek to size its buffer plus a final read to see EOF, on every file of a walk.
/// The result is the file as of that metadata: bytes appended since are not read, a file
/// that shrank is read as it is now. A size of 0 may mean "unknown" (special files), so
/// such a file is read to its end.
pub fn read_known_size(file: &File, size: u64, buffer: &mut Vec<u8>) -> std::io::Result<()> {
    buffer.clear();
    if size == 0 {
        return (&*file).read_to_end(buffer).map(|_| ());
    }
    let size = usize::try_from(size).unwrap_or(usize::MAX);
    buffer.reserve(size);
    while buffer.len() < size {
        let want = size - buffer.len();
        let spare = &mut buffer.spare_capacity_mut()[..want];
        // SAFETY: `spare` is writable memory owned by `buffer`; `read` writes at most
        // `spare.len()` bytes into it and returns how many it wrote.
        let n = unsafe { libc::read(file.as_raw_fd(), spare.as_mut_ptr().cast(), spare.len()) };
        if n < 0 {
            let err = std::io::Error::last_os_error();
            if err.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(err);
        }
        if n == 0 {
            break; // the file shrank
        }
        // SAFETY: the kernel initialised exactly `n` bytes after the current length.
        unsafe { buffer.set_len(buffer.len() + n as usize) };
    }
    Ok(())
}
