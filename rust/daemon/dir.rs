//! Where the daemon's socket lives and the checks both ends make before trusting it: one
//! directory per user (`$XDG_RUNTIME_DIR/codesift`, else `daemon` under the cache directory)
//! that must be a real directory (never followed through a symlink), owned by this user, with
//! no group or other access. The socket and the single-instance lock file live in it and are
//! only ever reached through the directory's descriptor (`/proc/self/fd/N/NAME`), so swapping
//! the directory after the check changes nothing.

use crate::fs::dir::{self, Dir};
use rustix::fs::FileType;
use std::fs::File;
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

pub const SOCKET_NAME: &str = "daemon.sock";
pub const LOCK_NAME: &str = "daemon.lock";

/// The socket directory of this user (`None`: neither `XDG_RUNTIME_DIR` nor a cache
/// directory is known).
pub fn socket_dir() -> Option<PathBuf> {
    if let Some(run) = std::env::var_os("XDG_RUNTIME_DIR") {
        let run = PathBuf::from(run);
        if run.is_absolute() && run.is_dir() {
            return Some(run.join("codesift"));
        }
    }
    crate::index::store::cache_root().map(|cache| cache.join("daemon"))
}

pub fn my_uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

fn refused(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, what)
}

/// Opens the socket directory `path` and checks it (see the module doc); with `create`, makes
/// it (and a missing parent under the cache directory) `0700` first. A directory of another
/// user, or one others can enter, is refused, never repaired: whatever is in it may have been
/// planted.
pub fn open_dir(path: &Path, create: bool) -> io::Result<Dir> {
    if create {
        if let Some(parent) = path.parent() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(parent)?;
        }
        match std::fs::DirBuilder::new().mode(0o700).create(path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    let dir = Dir::open_ambient_nofollow(path).map_err(|e| {
        if dir::not_a_dir(&e) {
            refused(format!(
                "{} is not a directory (a symlink or a file): remove it",
                path.display()
            ))
        } else {
            e
        }
    })?;
    check_private(&dir, path)?;
    Ok(dir)
}

/// The checks of `open_dir` on an open directory.
pub fn check_private(dir: &Dir, path: &Path) -> io::Result<()> {
    let stat = dir.stat()?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::Directory {
        return Err(refused(format!("{} is not a directory", path.display())));
    }
    if stat.st_uid != my_uid() {
        return Err(refused(format!(
            "the daemon directory {} is owned by uid {}, not by you (uid {}): it is not \
             used; remove it",
            path.display(),
            stat.st_uid,
            my_uid()
        )));
    }
    if stat.st_mode & 0o077 != 0 {
        return Err(refused(format!(
            "the daemon directory {} is open to other users (mode {:o}): it is not used; \
             remove it or `chmod 700` it",
            path.display(),
            stat.st_mode & 0o7777
        )));
    }
    Ok(())
}

/// The path of the socket in the open directory `dir`, through its descriptor: short (a
/// socket path must fit 108 bytes) and immune to the directory being swapped.
pub fn socket_path(dir: &Dir) -> PathBuf {
    dir.path_through(SOCKET_NAME)
}

/// The socket in `dir`: a socket of ours (not followed if it is a link), with its inode.
pub fn check_socket(dir: &Dir) -> io::Result<u64> {
    let stat = dir.stat_entry(SOCKET_NAME)?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::Socket {
        return Err(refused(format!("{SOCKET_NAME} is not a socket")));
    }
    if stat.st_uid != my_uid() {
        return Err(refused(format!(
            "{SOCKET_NAME} is owned by uid {}, not by you",
            stat.st_uid
        )));
    }
    Ok(stat.st_ino)
}

/// Opens (creating it `0600`) the lock file in `dir`: a regular file of ours.
pub fn open_lock(dir: &Dir) -> io::Result<File> {
    let file = dir.open_or_create(LOCK_NAME, 0o600)?;
    let stat = dir::file_stat(&file)?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile || stat.st_uid != my_uid() {
        return Err(refused(format!(
            "{LOCK_NAME} is not a regular file of yours: remove it"
        )));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_new_directory_is_private_and_accepted() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("a/b/codesift");
        let fd = open_dir(&path, true).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700, "mode {mode:o}");
        assert!(socket_path(&fd).as_os_str().len() < 100);
    }

    #[test]
    fn a_directory_open_to_others_or_a_link_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("codesift");
        std::fs::create_dir(&path).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        let error = open_dir(&path, true).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::PermissionDenied, "{error}");
        assert!(error.to_string().contains("chmod 700"), "{error}");
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700)).unwrap();
        let error = open_dir(&link, false).unwrap_err();
        assert!(error.to_string().contains("symlink"), "{error}");
        assert!(open_dir(&path, false).is_ok());
    }

    #[test]
    fn only_a_socket_counts_as_the_socket() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("codesift");
        let fd = open_dir(&path, true).unwrap();
        assert!(check_socket(&fd).is_err(), "nothing there");
        std::fs::write(path.join(SOCKET_NAME), "x").unwrap();
        assert!(check_socket(&fd).is_err(), "a regular file");
        std::fs::remove_file(path.join(SOCKET_NAME)).unwrap();
        let _listener = std::os::unix::net::UnixListener::bind(socket_path(&fd)).unwrap();
        assert!(check_socket(&fd).is_ok());
    }

    #[test]
    fn the_lock_is_held_by_one_opener_at_a_time() {
        let tmp = tempfile::tempdir().unwrap();
        let fd = open_dir(&tmp.path().join("codesift"), true).unwrap();
        let (first, second) = (open_lock(&fd).unwrap(), open_lock(&fd).unwrap());
        assert!(dir::try_lock(&first).unwrap());
        assert!(!dir::try_lock(&second).unwrap());
        drop(first);
        assert!(dir::try_lock(&second).unwrap());
    }
}
