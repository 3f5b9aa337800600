//! An open directory and the entries reached through it (`cap-std`'s `Dir` is the model): once
//! a directory is opened and checked, every open, create, stat, rename and unlink inside it is
//! relative to its descriptor, with the safe flags built in (no symlink followed, no blocking
//! on a FIFO, no controlling terminal, close-on-exec), so the directory or an entry swapped
//! for a symlink after the check changes nothing. For the directories codesift keeps outside
//! any workspace (the index cache, the daemon's socket directory); a workspace is reached
//! beneath its `Root` instead.

use rustix::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use rustix::fs::{AtFlags, FileType, FlockOperation, Mode, OFlags, Stat};
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

/// `prefix`, 32 random hex digits (from the kernel's random source) and `suffix`: a name no
/// one can predict, for a file created with `O_EXCL`.
pub fn random_name(prefix: &str, suffix: &str) -> io::Result<String> {
    let mut random = [0u8; 16];
    let mut filled = 0;
    while filled < random.len() {
        filled +=
            rustix::rand::getrandom(&mut random[filled..], rustix::rand::GetRandomFlags::empty())?;
    }
    Ok(format!(
        "{prefix}{:032x}{suffix}",
        u128::from_le_bytes(random)
    ))
}

/// Opening a directory: read-only, close-on-exec.
const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::CLOEXEC);

/// Opening an entry: never through a symlink, never blocking (a FIFO), never taking a terminal.
const ENTRY_FLAGS: OFlags = OFlags::NOFOLLOW
    .union(OFlags::NONBLOCK)
    .union(OFlags::CLOEXEC)
    .union(OFlags::NOCTTY);

/// An owned directory descriptor.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
}

/// A directory open elsewhere (a walk's handle, a `Dir`), lent for the length of a call.
#[derive(Clone, Copy, Debug)]
pub struct DirRef<'a> {
    fd: BorrowedFd<'a>,
}

impl<'a> DirRef<'a> {
    pub(in crate::fs) fn new(fd: BorrowedFd<'a>) -> DirRef<'a> {
        DirRef { fd }
    }

    /// Opens the subdirectory `name`, following a symlink there (as the ignore rules reach a
    /// repository's `.git`); a file at the name is an error.
    pub fn open_dir_following(&self, name: impl AsRef<OsStr>) -> io::Result<Dir> {
        let fd = rustix::fs::openat(self.fd, name.as_ref(), DIR_FLAGS, Mode::empty())?;
        Ok(Dir { fd })
    }

    /// A path to this directory through its descriptor (`/proc/self/fd/N`), for the calls
    /// that take a path only (inotify): immune to the directory being swapped.
    pub fn path_through(&self) -> PathBuf {
        PathBuf::from(format!("/proc/self/fd/{}", self.fd.as_raw_fd()))
    }

    /// The metadata of the entry `name` itself (a symlink is not followed).
    pub fn stat_entry(&self, name: impl AsRef<OsStr>) -> io::Result<Stat> {
        Ok(rustix::fs::statat(
            self.fd,
            name.as_ref(),
            AtFlags::SYMLINK_NOFOLLOW,
        )?)
    }

    /// Where this directory is now (what its descriptor's `/proc/self/fd` link names).
    pub fn current_path(&self) -> io::Result<PathBuf> {
        std::fs::read_link(self.path_through())
    }
}

impl Dir {
    pub(in crate::fs) fn from_fd(fd: OwnedFd) -> Dir {
        Dir { fd }
    }

    /// The directory lent for a call.
    pub fn borrow(&self) -> DirRef<'_> {
        DirRef::new(self.fd.as_fd())
    }

    /// Opens the directory at `path`, a path the user chose: symlinks along it, and at its
    /// end, are followed.
    pub fn open_ambient(path: &Path) -> io::Result<Dir> {
        let fd = rustix::fs::open(path, DIR_FLAGS, Mode::empty())?;
        Ok(Dir { fd })
    }

    /// Opens the directory at `path`, refusing a symlink at its last component (see
    /// `not_a_dir`).
    pub fn open_ambient_nofollow(path: &Path) -> io::Result<Dir> {
        let fd = rustix::fs::open(path, DIR_FLAGS | OFlags::NOFOLLOW, Mode::empty())?;
        Ok(Dir { fd })
    }

    /// Opens the subdirectory `name`, refusing a symlink (see `not_a_dir`).
    pub fn open_dir(&self, name: impl AsRef<OsStr>) -> io::Result<Dir> {
        let fd = rustix::fs::openat(
            &self.fd,
            name.as_ref(),
            DIR_FLAGS | OFlags::NOFOLLOW,
            Mode::empty(),
        )?;
        Ok(Dir { fd })
    }

    /// Makes the subdirectory `name` with `mode` (an existing one: `AlreadyExists`).
    pub fn create_dir(&self, name: impl AsRef<OsStr>, mode: u32) -> io::Result<()> {
        Ok(rustix::fs::mkdirat(
            &self.fd,
            name.as_ref(),
            Mode::from_raw_mode(mode),
        )?)
    }

    /// The directory's own metadata (of what is open, not of a name).
    pub fn stat(&self) -> io::Result<Stat> {
        Ok(rustix::fs::fstat(&self.fd)?)
    }

    /// Sets the directory's permission bits.
    pub fn set_mode(&self, mode: u32) -> io::Result<()> {
        Ok(rustix::fs::fchmod(&self.fd, Mode::from_raw_mode(mode))?)
    }

    /// Sets the permission bits of the entry `name` (one this process just made: `chmod`
    /// follows a symlink, as Linux has no other way).
    pub fn set_entry_mode(&self, name: impl AsRef<OsStr>, mode: u32) -> io::Result<()> {
        Ok(rustix::fs::chmodat(
            &self.fd,
            name.as_ref(),
            Mode::from_raw_mode(mode),
            AtFlags::empty(),
        )?)
    }

    /// The metadata of the entry `name` itself (a symlink is not followed).
    pub fn stat_entry(&self, name: impl AsRef<OsStr>) -> io::Result<Stat> {
        Ok(rustix::fs::statat(
            &self.fd,
            name.as_ref(),
            AtFlags::SYMLINK_NOFOLLOW,
        )?)
    }

    /// Opens the entry `name` as a file with `flags` (and `mode` when it creates one).
    fn open_file(&self, name: &OsStr, flags: OFlags, mode: Mode) -> io::Result<File> {
        Ok(File::from(rustix::fs::openat(&self.fd, name, flags, mode)?))
    }

    /// Opens the entry `name` to read it (see `is_symlink` for a symlink there). Whatever it
    /// is, it is opened without blocking: the caller checks its kind before reading.
    pub fn open_read(&self, name: impl AsRef<OsStr>) -> io::Result<File> {
        self.open_file(name.as_ref(), OFlags::RDONLY | ENTRY_FLAGS, Mode::empty())
    }

    /// Opens the entry `name` to read and write it, creating it with `mode` when there is
    /// none (a symlink there is refused, not followed).
    pub fn open_or_create(&self, name: impl AsRef<OsStr>, mode: u32) -> io::Result<File> {
        let flags = OFlags::RDWR | OFlags::CREATE | ENTRY_FLAGS;
        self.open_file(name.as_ref(), flags, Mode::from_raw_mode(mode))
    }

    /// Creates the entry `name` with `mode` to write it: a new file only (`O_EXCL`: never an
    /// existing file, nor a symlink, at the name).
    pub fn create_new(&self, name: impl AsRef<OsStr>, mode: u32) -> io::Result<File> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        self.open_file(name.as_ref(), flags, Mode::from_raw_mode(mode))
    }

    /// A new file in this directory that has no name (`O_TMPFILE`), to read and write, `0600`:
    /// no other process can open it, and it is gone with its last descriptor, whichever way
    /// its owner ends. Where the filesystem has no `O_TMPFILE`, a file created under a random
    /// name (`O_EXCL`) and unlinked at once.
    pub fn unnamed_file(&self) -> io::Result<File> {
        let mode = Mode::from_raw_mode(0o600);
        let flags = OFlags::RDWR | OFlags::CLOEXEC;
        match rustix::fs::openat(&self.fd, ".", flags | OFlags::TMPFILE, mode) {
            Ok(fd) => Ok(File::from(fd)),
            Err(
                rustix::io::Errno::OPNOTSUPP | rustix::io::Errno::ISDIR | rustix::io::Errno::INVAL,
            ) => {
                let name = random_name(".codesift-unnamed-", "")?;
                let create = flags | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW;
                let file = File::from(rustix::fs::openat(&self.fd, name.as_str(), create, mode)?);
                self.remove_file(&name)?;
                Ok(file)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Removes the entry `name` (a symlink is removed, never followed).
    pub fn remove_file(&self, name: impl AsRef<OsStr>) -> io::Result<()> {
        Ok(rustix::fs::unlinkat(
            &self.fd,
            name.as_ref(),
            AtFlags::empty(),
        )?)
    }

    /// Renames the entry `from` to `to`, both in this directory (replacing whatever is at
    /// `to`; a symlink there is replaced, not followed).
    pub fn rename(&self, from: impl AsRef<OsStr>, to: impl AsRef<OsStr>) -> io::Result<()> {
        Ok(rustix::fs::renameat(
            &self.fd,
            from.as_ref(),
            &self.fd,
            to.as_ref(),
        )?)
    }

    /// Flushes the directory's entries to disk (a rename made durable).
    pub fn sync(&self) -> io::Result<()> {
        Ok(rustix::fs::fsync(&self.fd)?)
    }

    /// The names of the directory's entries (`.` and `..` included).
    pub fn entry_names(&self) -> io::Result<Vec<OsString>> {
        let entries = rustix::fs::Dir::read_from(&self.fd)?;
        Ok(entries
            .flatten()
            .map(|entry| OsString::from_vec(entry.file_name().to_bytes().to_vec()))
            .collect())
    }

    /// A path to the entry `name` through this directory's descriptor
    /// (`/proc/self/fd/N/NAME`): short (a socket path must fit 108 bytes) and immune to the
    /// directory being swapped. Valid while this `Dir` is open.
    pub fn path_through(&self, name: &str) -> PathBuf {
        PathBuf::from(format!("/proc/self/fd/{}/{name}", self.fd.as_raw_fd()))
    }
}

/// Opens the file at `path` to read it, never through a symlink at its last component and
/// never waiting on a FIFO; the caller checks what it opened.
pub fn open_file_nofollow(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
}

/// Opens the regular file at `path` to read it, links followed, never waiting on a FIFO (a
/// file of someone else's that is not regular is an error, not a hang).
pub fn open_regular_following(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::other("not a regular file"));
    }
    Ok(file)
}

/// Whether `stat` is of a directory.
pub fn is_dir(stat: &Stat) -> bool {
    FileType::from_raw_mode(stat.st_mode) == FileType::Directory
}

/// An open that failed because a symlink is at the name (`O_NOFOLLOW`).
pub fn is_symlink(error: &io::Error) -> bool {
    error.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
}

/// A directory open that failed because the name is a symlink or not a directory.
pub fn not_a_dir(error: &io::Error) -> bool {
    is_symlink(error) || error.raw_os_error() == Some(rustix::io::Errno::NOTDIR.raw_os_error())
}

/// The metadata of an open file (of what is open, not of a name).
pub fn file_stat(file: &File) -> io::Result<Stat> {
    Ok(rustix::fs::fstat(file)?)
}

/// Takes an exclusive `flock` on `file`, waiting for it.
pub fn lock(file: &File) -> io::Result<()> {
    Ok(rustix::fs::flock(file, FlockOperation::LockExclusive)?)
}

/// Takes an exclusive `flock` on `file` without waiting: `false` when another holds it.
pub fn try_lock(file: &File) -> io::Result<bool> {
    match rustix::fs::flock(file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(true),
        Err(rustix::io::Errno::WOULDBLOCK) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn entries_are_reached_through_the_directory_never_through_a_symlink() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        let dir = Dir::open_ambient(tmp.path()).unwrap();
        std::os::unix::fs::symlink(&outside, tmp.path().join("link")).unwrap();
        let err = dir.open_dir("link").unwrap_err();
        assert!(not_a_dir(&err), "a symlinked directory is refused: {err}");
        let err = Dir::open_ambient_nofollow(&tmp.path().join("link")).unwrap_err();
        assert!(not_a_dir(&err), "{err}");
        std::os::unix::fs::symlink(outside.join("f"), tmp.path().join("f")).unwrap();
        let err = dir.open_read("f").unwrap_err();
        assert!(is_symlink(&err), "{err}");
        let err = dir.open_or_create("f", 0o600).unwrap_err();
        assert!(is_symlink(&err), "{err}");
        let err = dir.create_new("f", 0o600).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists, "{err}");
        assert!(!outside.join("f").exists(), "nothing made through a link");
    }

    #[test]
    fn files_and_directories_are_made_with_the_modes_asked_for() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = Dir::open_ambient(tmp.path()).unwrap();
        dir.create_dir("sub", 0o700).unwrap();
        let sub = dir.open_dir("sub").unwrap();
        assert!(is_dir(&sub.stat().unwrap()));
        drop(sub.create_new("new", 0o600).unwrap());
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&tmp.path().join("sub")), 0o700);
        assert_eq!(mode(&tmp.path().join("sub/new")), 0o600);
        sub.rename("new", "renamed").unwrap();
        let names = sub.entry_names().unwrap();
        assert!(names.contains(&OsString::from("renamed")), "{names:?}");
        sub.remove_file("renamed").unwrap();
        let err = sub.remove_file("renamed").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        let lock = dir.open_or_create("lock", 0o600).unwrap();
        let other = dir.open_or_create("lock", 0o600).unwrap();
        assert!(try_lock(&lock).unwrap());
        assert!(!try_lock(&other).unwrap(), "one holder at a time");
    }
}
