//! Reading an open file whole at the size its metadata gave, with as few system calls as
//! the kernel allows (a search reads every file of a walk this way).

use rustix::fs::{OFlags, Stat};
use std::fs::File;
use std::io::{ErrorKind, Read};
use std::os::fd::AsRawFd;

/// A regular file opened to be searched, with the metadata its open already fetched (so
/// that the search does not ask again: one system call less on every file of a walk).
pub struct Opened {
    pub file: File,
    /// From the `fstat` that checked the file was regular; `None`: not fetched yet.
    stat: Option<Stat>,
    /// Still `O_NONBLOCK` from its open (see `root::READ_FLAGS`): harmless for the reads of
    /// a regular file, but switched off before the file is streamed by another reader.
    nonblocking: bool,
}

impl From<File> for Opened {
    fn from(file: File) -> Opened {
        Opened {
            file,
            stat: None,
            nonblocking: false,
        }
    }
}

/// What a search needs of a file's metadata.
#[derive(Clone, Copy, Debug)]
pub struct FileMeta {
    pub is_file: bool,
    pub size: u64,
    pub mtime_ns: i64,
    /// The inode number (an indexed search checks the file is the one the index read).
    pub ino: u64,
}

impl Opened {
    /// A regular file just checked by `stat`, its descriptor still non-blocking or not.
    pub fn new(file: File, stat: Stat, nonblocking: bool) -> Opened {
        Opened {
            file,
            stat: Some(stat),
            nonblocking,
        }
    }

    /// Its metadata: the open's, or fetched now.
    pub fn meta(&self) -> std::io::Result<FileMeta> {
        let stat = match self.stat {
            Some(stat) => stat,
            None => rustix::fs::fstat(&self.file)?,
        };
        Ok(FileMeta {
            is_file: rustix::fs::FileType::from_raw_mode(stat.st_mode)
                == rustix::fs::FileType::RegularFile,
            size: stat.st_size as u64,
            #[allow(clippy::unnecessary_cast)] // `c_long`-sized fields differ by target
            mtime_ns: stat.st_mtime as i64 * 1_000_000_000 + stat.st_mtime_nsec as i64,
            #[allow(clippy::useless_conversion)] // `st_ino`'s type differs by target
            ino: u64::from(stat.st_ino),
        })
    }

    /// The file switched to blocking reads, for readers that do not retry `EAGAIN`.
    pub fn blocking(&mut self) -> std::io::Result<&File> {
        if self.nonblocking {
            set_blocking(&self.file)?;
            self.nonblocking = false;
        }
        Ok(&self.file)
    }
}

/// Fills `buffer` from `offset` of `file` (`pread`), as `FileExt::read_exact_at` does, but
/// for a descriptor that may still be non-blocking from its open: an `EAGAIN` (which a
/// regular file normally never answers) switches it to blocking reads and reads on. Saves
/// the two `fcntl` calls of switching every searched file up front.
pub fn read_exact_at(file: &File, mut buffer: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    while !buffer.is_empty() {
        match file.read_at(buffer, offset) {
            Ok(0) => {
                return Err(std::io::Error::new(
                    ErrorKind::UnexpectedEof,
                    "the file is shorter than expected",
                ));
            }
            Ok(n) => {
                buffer = &mut buffer[n..];
                offset += n as u64;
            }
            Err(err) if err.kind() == ErrorKind::Interrupted => {}
            Err(err) if err.kind() == ErrorKind::WouldBlock => set_blocking(file)?,
            Err(err) => return Err(err),
        }
    }
    Ok(())
}

fn set_blocking(file: &File) -> std::io::Result<()> {
    rustix::fs::fcntl_setfl(file, rustix::fs::fcntl_getfl(file)? - OFlags::NONBLOCK)?;
    Ok(())
}

/// Reads the `size` bytes the caller just saw in the file's metadata into `buffer` (replacing
/// its contents): usually a single `read(2)`, where `File::read_to_end` would add a statx
/// and an lseek to size its buffer plus a final read to see EOF, on every file of a walk.
/// The result is the file as of that metadata: bytes appended since are not read, a file
/// that shrank is read as it is now. A size of 0 may mean "unknown" (special files), so
/// such a file is read to its end. A file still open non-blocking that answers `EAGAIN`
/// (a regular file normally never does) is switched to blocking reads and read on.
pub fn read_known_size(file: &File, size: u64, buffer: &mut Vec<u8>) -> std::io::Result<()> {
    buffer.clear();
    if size == 0 {
        loop {
            match (&*file).read_to_end(buffer) {
                Err(err) if err.kind() == ErrorKind::WouldBlock => set_blocking(file)?,
                other => return other.map(|_| ()),
            }
        }
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
            match err.kind() {
                ErrorKind::Interrupted => continue,
                ErrorKind::WouldBlock => {
                    set_blocking(file)?;
                    continue;
                }
                _ => return Err(err),
            }
        }
        if n == 0 {
            break; // the file shrank
        }
        // SAFETY: the kernel initialised exactly `n` bytes after the current length.
        unsafe { buffer.set_len(buffer.len() + n as usize) };
    }
    Ok(())
}
