//! The root handle: one open directory descriptor on the workspace root, and the resolution
//! of workspace-relative paths beneath it.
//!
//! Resolution tries `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS)`
//! first: one syscall, and the kernel guarantees the result is beneath the root. When the path
//! holds a symlink that may be followed (one whose target stays inside the root), or when
//! `openat2` is unavailable (old kernels, seccomp filters), the path is resolved one component
//! at a time from the root handle (as cap-std's manual resolver does): each step opens a
//! single name with `O_NOFOLLOW` relative to the directory handle reached so far, a symlink is
//! read with `readlinkat` and its target spliced into the remaining path, `..` pops the stack
//! of handles (popping past the root is an escape), and an absolute target is accepted only
//! when it names a place under the root's real path, which is then resolved from the root
//! handle. `RESOLVE_BENEATH` alone cannot do that last part: it refuses every absolute link.
//!
//! rustix provides the syscalls (`openat2`, `readlinkat`, `mkdirat`, `statat`); cap-std's
//! `Dir` was the other candidate, but it does not expose `RESOLVE_NO_SYMLINKS` nor report the
//! real location a path resolved to, which the access-ignore verdict needs.

use super::read::Opened;
use rustix::fs::{AtFlags, FileType, Mode, OFlags, ResolveFlags, Stat};
use rustix::io::Errno;
use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether symlinks met while resolving a path are followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Links {
    /// Any symlink along the path (the last component included) fails with `ELOOP`.
    Refuse,
    /// Symlinks are followed when their target resolves beneath the root; one that leads
    /// outside fails with `EXDEV`.
    Inside,
}

/// An open path and where it really is.
#[derive(Debug)]
pub struct Resolved {
    pub fd: OwnedFd,
    /// The real location relative to the root: no symlink, `.` or `..` in it ("" is the root).
    pub real: PathBuf,
}

/// An open directory handle on the workspace root.
#[derive(Debug)]
pub struct Root {
    fd: OwnedFd,
    real: PathBuf,
}

/// Set once `openat2` turned out to be missing, so later resolutions go straight to the
/// manual resolver.
static NO_OPENAT2: AtomicBool = AtomicBool::new(false);

/// Symlinks followed in one resolution at most (Linux's own limit).
const MAX_LINKS: usize = 40;

pub const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);
/// Opening a file to read: non-blocking, so a FIFO swapped in cannot hang the open.
pub const READ_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC)
    .union(OFlags::NONBLOCK);

impl Root {
    /// Opens the directory `path` (which may itself be reached through symlinks: that is the
    /// caller's choice of root) and records its real path.
    pub fn open(path: &Path) -> io::Result<Root> {
        let fd = rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        let real = real_path_of(fd.as_fd()).or_else(|_| path.canonicalize())?;
        Ok(Root { fd, real })
    }

    pub(in crate::fs) fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// The metadata of the root directory itself (what is open, whatever its path is now).
    pub fn stat_self(&self) -> io::Result<Stat> {
        Ok(rustix::fs::fstat(&self.fd)?)
    }

    /// The type (magic number) of the file system the root is on.
    pub fn fs_type(&self) -> io::Result<i64> {
        #[allow(clippy::unnecessary_cast)] // `f_type`'s type differs between targets
        Ok(rustix::fs::fstatfs(&self.fd)?.f_type as i64)
    }

    /// Opens the regular file `rel` to read it (see `open_file_at`), reached beneath the root
    /// as `links` says.
    pub fn open_file(&self, rel: &Path, links: Links) -> io::Result<File> {
        let found = self.resolve(rel, links, READ_FLAGS)?;
        regular_file(found.fd)
    }

    /// `open_file` for a search (see `open_to_search_at`): the descriptor stays non-blocking
    /// and the `fstat` that checked it comes along.
    pub fn open_to_search(&self, rel: &Path, links: Links) -> io::Result<Opened> {
        searchable(self.resolve(rel, links, READ_FLAGS)?.fd)
    }

    /// The root's real path, for display and for recognising absolute symlink targets.
    pub fn real_path(&self) -> &Path {
        &self.real
    }

    /// Opens `rel` beneath the root with `flags` for its last component.
    pub fn resolve(&self, rel: &Path, links: Links, flags: OFlags) -> io::Result<Resolved> {
        self.resolve_with(rel, links, flags, false)
    }

    /// Opens the directory `rel` beneath the root, creating missing directories along it
    /// (`mkdirat` one component at a time, each relative to the handle of its parent).
    pub fn create_dirs(&self, rel: &Path, links: Links) -> io::Result<Resolved> {
        self.resolve_with(rel, links, DIR_FLAGS, true)
    }

    fn resolve_with(
        &self,
        rel: &Path,
        links: Links,
        flags: OFlags,
        create: bool,
    ) -> io::Result<Resolved> {
        // A plain relative path (what walks and indexes hand over: names joined by single
        // slashes, no `.` or `..`) is its components joined already: `openat2` is given it as
        // it is, without splitting it into names and joining them again (allocations that
        // were a twentieth of an indexed search's processor time, by perf).
        let components = if is_plain(rel) {
            None
        } else {
            Some(relative_components(rel)?)
        };
        if !create && !NO_OPENAT2.load(Ordering::Relaxed) {
            let opened = match &components {
                None => open_beneath(self.fd(), rel, flags),
                Some(components) => self.fast_open(components, flags),
            };
            match opened {
                Ok(fd) => {
                    let real = match &components {
                        None => rel.to_path_buf(),
                        Some(components) => components.iter().collect(),
                    };
                    return Ok(Resolved { fd, real });
                }
                Err(Errno::LOOP) if links == Links::Refuse => return Err(Errno::LOOP.into()),
                // A symlink to follow, or the fallback cases cap-std lists: retries exhausted
                // (EAGAIN), seccomp (EPERM), an old kernel (ENOSYS).
                Err(Errno::LOOP | Errno::AGAIN | Errno::PERM | Errno::INVAL) => {}
                Err(Errno::NOSYS) => NO_OPENAT2.store(true, Ordering::Relaxed),
                Err(err) => return Err(err.into()),
            }
        }
        let components = match components {
            Some(components) => components,
            None => relative_components(rel)?,
        };
        self.manual_open(components, links, flags, create)
    }

    /// Opens `rel`, a path of any number of components, beneath the directory handle `dir`
    /// that lies at `dir_rel` beneath the root. `openat(dir, "a/b", O_NOFOLLOW)` would guard
    /// the last component only (a symlinked `a` would be followed anywhere): here `openat2`
    /// from `dir` refuses every symlink, and a path that holds one goes through the root's
    /// resolver as `dir_rel/rel`, which follows it only as `links` allows.
    pub fn open_below(
        &self,
        dir: BorrowedFd<'_>,
        dir_rel: &Path,
        rel: &Path,
        links: Links,
        flags: OFlags,
    ) -> io::Result<OwnedFd> {
        let components = relative_components(rel)?;
        if !NO_OPENAT2.load(Ordering::Relaxed) {
            match fast_open_at(dir, &components, flags) {
                Ok(fd) => return Ok(fd),
                Err(Errno::LOOP) if links == Links::Refuse => return Err(Errno::LOOP.into()),
                // `..` climbing above `dir` may still stay beneath the root: the resolver says.
                Err(Errno::LOOP | Errno::XDEV | Errno::AGAIN | Errno::PERM | Errno::INVAL) => {}
                Err(Errno::NOSYS) => NO_OPENAT2.store(true, Ordering::Relaxed),
                Err(err) => return Err(err.into()),
            }
        }
        Ok(self.resolve(&dir_rel.join(rel), links, flags)?.fd)
    }

    fn fast_open(&self, components: &[OsString], flags: OFlags) -> Result<OwnedFd, Errno> {
        fast_open_at(self.fd(), components, flags)
    }

    /// Component-by-component resolution; see the module documentation.
    fn manual_open(
        &self,
        components: Vec<OsString>,
        links: Links,
        flags: OFlags,
        create: bool,
    ) -> io::Result<Resolved> {
        let mut queue: VecDeque<OsString> = components.into();
        // Handles of the directories reached below the root, and their names.
        let mut stack: Vec<OwnedFd> = Vec::new();
        let mut real: Vec<OsString> = Vec::new();
        let mut followed = 0;
        if queue.is_empty() {
            let fd = rustix::fs::openat(self.fd(), ".", flags | OFlags::CLOEXEC, Mode::empty())?;
            return Ok(Resolved {
                fd,
                real: PathBuf::new(),
            });
        }
        while let Some(name) = queue.pop_front() {
            if name == ".." {
                if real.pop().is_none() {
                    return Err(escape());
                }
                stack.pop();
                continue;
            }
            if name == "." || name.is_empty() {
                continue;
            }
            let last = queue.is_empty();
            let here = stack.last().map_or(self.fd(), |fd| fd.as_fd());
            let open_flags = if last {
                flags | OFlags::NOFOLLOW
            } else {
                DIR_FLAGS
            };
            let opened = match rustix::fs::openat(here, &name, open_flags, Mode::empty()) {
                Err(Errno::NOENT) if create => {
                    match rustix::fs::mkdirat(here, &name, Mode::from_raw_mode(0o777)) {
                        Ok(()) | Err(Errno::EXIST) => {}
                        Err(err) => return Err(err.into()),
                    }
                    rustix::fs::openat(here, &name, open_flags, Mode::empty())
                }
                // O_PATH | O_NOFOLLOW opens a symlink itself: treat it as the link it is.
                Ok(fd) if open_flags.contains(OFlags::PATH) && is_symlink(&fd)? => Err(Errno::LOOP),
                other => other,
            };
            match opened {
                Ok(fd) => {
                    real.push(name);
                    if last {
                        return Ok(Resolved {
                            fd,
                            real: real.iter().collect(),
                        });
                    }
                    stack.push(fd);
                }
                // A symlink: O_NOFOLLOW gives ELOOP, or ENOTDIR together with O_DIRECTORY
                // (which a file gives too: only a link can be read as one).
                Err(err @ (Errno::LOOP | Errno::NOTDIR)) => {
                    let target = match rustix::fs::readlinkat(here, &name, Vec::new()) {
                        Ok(target) => target,
                        Err(Errno::INVAL) => return Err(err.into()),
                        Err(other) => return Err(other.into()),
                    };
                    if links == Links::Refuse {
                        return Err(Errno::LOOP.into());
                    }
                    followed += 1;
                    if followed > MAX_LINKS {
                        return Err(Errno::LOOP.into());
                    }
                    let target = Path::new(OsStr::from_bytes(target.as_bytes()));
                    let mut spliced: VecDeque<OsString> = VecDeque::new();
                    let target = if target.is_absolute() {
                        // Only a target under the root's real path is followed, from the root.
                        let Ok(inside) = target.strip_prefix(&self.real) else {
                            return Err(escape());
                        };
                        stack.clear();
                        real.clear();
                        inside
                    } else {
                        target
                    };
                    for component in target.components() {
                        match component {
                            Component::Normal(c) => spliced.push_back(c.to_os_string()),
                            Component::ParentDir => spliced.push_back("..".into()),
                            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
                        }
                    }
                    while let Some(c) = spliced.pop_back() {
                        queue.push_front(c);
                    }
                    if queue.is_empty() {
                        // A link to the root itself (`loop -> .` at the top, or `-> ..` below).
                        let here = stack.last().map_or(self.fd(), |fd| fd.as_fd());
                        let fd = rustix::fs::openat(here, ".", flags, Mode::empty())?;
                        return Ok(Resolved {
                            fd,
                            real: real.iter().collect(),
                        });
                    }
                }
                Err(err) => return Err(err.into()),
            }
        }
        // Only reached when the path ended in `..` or `.`: the directory reached so far.
        let here = stack.last().map_or(self.fd(), |fd| fd.as_fd());
        let fd = rustix::fs::openat(here, ".", flags, Mode::empty())?;
        Ok(Resolved {
            fd,
            real: real.iter().collect(),
        })
    }

    /// The metadata of `rel` itself (a symlink is not followed), beneath the root.
    pub fn lstat(&self, rel: &Path) -> io::Result<Stat> {
        let (parent, name) = split_parent(rel)?;
        let dir = self.resolve(parent, Links::Refuse, DIR_FLAGS)?;
        Ok(rustix::fs::statat(
            &dir.fd,
            name,
            AtFlags::SYMLINK_NOFOLLOW,
        )?)
    }

    /// The directory `rel` (workspace-relative), reached beneath the root as `links` says.
    pub fn open_dir(&self, rel: &Path, links: Links) -> io::Result<super::dir::Dir> {
        let resolved = self.resolve(rel, links, DIR_FLAGS)?;
        Ok(super::dir::Dir::from_fd(resolved.fd))
    }

    /// Where `rel` really is (workspace-relative), following symlinks that stay inside the
    /// root when `links` is `Inside`; what it names is not opened for reading (`O_PATH`).
    pub fn real(&self, rel: &Path, links: Links) -> io::Result<PathBuf> {
        Ok(self
            .resolve(rel, links, OFlags::PATH | OFlags::CLOEXEC)?
            .real)
    }

    /// The metadata of `rel`, following symlinks that stay inside the root when `links` is
    /// `Inside`; the file is opened with `O_PATH`, so no FIFO or device is ever opened.
    pub fn stat(&self, rel: &Path, links: Links) -> io::Result<Stat> {
        let resolved = self.resolve(rel, links, OFlags::PATH | OFlags::CLOEXEC)?;
        Ok(rustix::fs::fstat(&resolved.fd)?)
    }
}

/// Opens the file `name` in the directory `dir` to read it: one component, no symlink
/// followed, non-blocking; only a regular file is accepted.
pub fn open_file_at(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<File> {
    let fd = rustix::fs::openat(dir, name, READ_FLAGS, Mode::empty())?;
    regular_file(fd)
}

/// `open_file_at` for a search, which reads the file with `read::read_known_size`: the
/// descriptor stays non-blocking (no effect on a regular file's reads; `Opened` switches it
/// off before anything else reads it) and the `fstat` that checked it comes along, saving
/// three system calls on every file of a walk.
pub fn open_to_search_at(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<Opened> {
    searchable(rustix::fs::openat(dir, name, READ_FLAGS, Mode::empty())?)
}

/// `fd`, just opened with `READ_FLAGS`, as a file to search when it is a regular file (see
/// `open_to_search_at`); anything else is refused (see `not_regular`).
fn searchable(fd: OwnedFd) -> io::Result<Opened> {
    let stat = rustix::fs::fstat(&fd)?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
        return Err(not_regular(stat.st_mode));
    }
    Ok(Opened::new(File::from(fd), stat, true))
}

/// The open descriptor as a `File` when it is a regular file (switched back to blocking
/// reads); anything else is refused (see `not_regular`), so a FIFO or device is never read.
pub fn regular_file(fd: OwnedFd) -> io::Result<File> {
    let stat = rustix::fs::fstat(&fd)?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
        return Err(not_regular(stat.st_mode));
    }
    rustix::fs::fcntl_setfl(&fd, rustix::fs::fcntl_getfl(&fd)? - OFlags::NONBLOCK)?;
    Ok(File::from(fd))
}

/// The error for a path that is not a regular file: `EISDIR` for a directory, `ENODEV` for
/// FIFOs, sockets and devices.
pub fn not_regular(mode: u32) -> io::Error {
    if FileType::from_raw_mode(mode) == FileType::Directory {
        Errno::ISDIR.into()
    } else {
        Errno::NODEV.into()
    }
}

/// `openat2` of `components` beneath `dir`, every symlink refused: one syscall.
fn fast_open_at(
    dir: BorrowedFd<'_>,
    components: &[OsString],
    flags: OFlags,
) -> Result<OwnedFd, Errno> {
    let path: PathBuf = if components.is_empty() {
        PathBuf::from(".")
    } else {
        components.iter().collect()
    };
    open_beneath(dir, &path, flags)
}

/// `openat2` of `path` from `dir`, staying beneath it and following no link of any kind.
fn open_beneath(dir: BorrowedFd<'_>, path: &Path, flags: OFlags) -> Result<OwnedFd, Errno> {
    let how = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS | ResolveFlags::NO_SYMLINKS;
    let mut tries = 0;
    loop {
        match rustix::fs::openat2(dir, path, flags, Mode::empty(), how) {
            Err(Errno::AGAIN) if tries < 4 => tries += 1,
            other => return other,
        }
    }
}

/// `rel` is relative and plain: names joined by single slashes, none of them `.` or `..`,
/// no NUL byte (what `relative_components` would split it into and `fast_open_at` join
/// again, unchanged).
fn is_plain(rel: &Path) -> bool {
    let bytes = rel.as_os_str().as_bytes();
    !bytes.is_empty()
        && !bytes.contains(&0)
        && bytes
            .split(|&b| b == b'/')
            .all(|name| !name.is_empty() && name != b"." && name != b"..")
}

fn is_symlink(fd: &OwnedFd) -> io::Result<bool> {
    let stat = rustix::fs::fstat(fd)?;
    Ok(FileType::from_raw_mode(stat.st_mode) == FileType::Symlink)
}

/// The error for a path that leads outside the root.
pub fn escape() -> io::Error {
    Errno::XDEV.into()
}

/// The normal components of a relative path: `.` is dropped, while `..` is kept for the
/// resolver (which never lets it climb above the root); an absolute path is an escape.
fn relative_components(rel: &Path) -> io::Result<Vec<OsString>> {
    let mut out = Vec::new();
    for component in rel.components() {
        match component {
            Component::Normal(name) => out.push(name.to_os_string()),
            Component::CurDir => {}
            Component::ParentDir => out.push("..".into()),
            Component::RootDir | Component::Prefix(_) => return Err(escape()),
        }
    }
    if out.iter().any(|c| c.as_bytes().contains(&0)) {
        return Err(Errno::INVAL.into());
    }
    Ok(out)
}

/// `rel` split into its parent directory and last name; the root itself has no name.
pub fn split_parent(rel: &Path) -> io::Result<(&Path, &OsStr)> {
    match (rel.parent(), rel.file_name()) {
        (Some(parent), Some(name)) => Ok((parent, name)),
        _ => Err(Errno::ISDIR.into()),
    }
}

/// Where an open descriptor really is (`/proc/self/fd`); used only to learn the real path of
/// the root when it is opened.
fn real_path_of(fd: BorrowedFd<'_>) -> io::Result<PathBuf> {
    use std::os::fd::AsRawFd;
    std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::temp_tree;
    use std::fs;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_plain_path_is_its_components_joined_and_the_others_are_not_plain() {
        for plain in ["a", "a/b/f.txt", ".hidden/x", "a.../..b", "é/ü"] {
            let rel = Path::new(plain);
            let joined: PathBuf = relative_components(rel).unwrap().iter().collect();
            assert!(is_plain(rel), "{plain} is plain");
            assert_eq!(joined, rel, "{plain}: its components joined");
        }
        for other in [
            "", ".", "..", "./a", "a/.", "a/./b", "a/..", "../a", "a//b", "a/", "/a", "a\0b",
        ] {
            let rel = Path::new(other);
            assert!(!is_plain(rel), "{other:?} is not plain");
        }
    }

    fn setup() -> (tempfile::TempDir, tempfile::TempDir, Root) {
        let dir = temp_tree(&[("a/b/f.txt", "f")]);
        let outside = temp_tree(&[("secret.txt", "s")]);
        let root = Root::open(dir.path()).unwrap();
        (dir, outside, root)
    }

    /// The error number a call failed with (none when it did not fail).
    fn errno<T>(result: io::Result<T>) -> Option<i32> {
        result.err().and_then(|e| e.raw_os_error())
    }

    fn read(root: &Root, rel: &str, links: Links) -> io::Result<(String, PathBuf)> {
        let resolved = root.resolve(Path::new(rel), links, READ_FLAGS)?;
        let real = resolved.real.clone();
        let file = regular_file(resolved.fd)?;
        Ok((std::io::read_to_string(file)?, real))
    }

    #[test]
    fn a_file_opened_to_search_by_path_keeps_its_stat_and_refuses_fifos_and_links() {
        use std::os::unix::fs::MetadataExt;
        let (dir, out, root) = setup();
        let mut opened = root
            .open_to_search(Path::new("a/b/f.txt"), Links::Refuse)
            .unwrap();
        let meta = opened.meta().unwrap();
        let std_meta = fs::metadata(dir.path().join("a/b/f.txt")).unwrap();
        assert_eq!(
            (meta.is_file, meta.size, meta.ino),
            (true, std_meta.len(), std_meta.ino())
        );
        // Still non-blocking from its open: switched only for readers that need it.
        let flags = rustix::fs::fcntl_getfl(&opened.file).unwrap();
        assert!(flags.contains(OFlags::NONBLOCK), "flags: {flags:?}");
        let mut text = [0u8; 1];
        crate::fs::read::read_exact_at(&opened.file, &mut text, 0).unwrap();
        assert_eq!(&text, b"f");
        let past_end = crate::fs::read::read_exact_at(&opened.file, &mut text, 1).unwrap_err();
        assert_eq!(past_end.kind(), io::ErrorKind::UnexpectedEof, "{past_end}");
        let flags = rustix::fs::fcntl_getfl(opened.blocking().unwrap()).unwrap();
        assert!(!flags.contains(OFlags::NONBLOCK), "flags: {flags:?}");
        // A FIFO is refused without blocking on its open; a link outside is not followed.
        crate::test_support::make_fifo(&dir.path().join("fifo"));
        let fifo = root.open_to_search(Path::new("fifo"), Links::Refuse);
        assert_eq!(errno(fifo), Some(libc::ENODEV));
        symlink(out.path().join("secret.txt"), dir.path().join("s.txt")).unwrap();
        let link = root.open_to_search(Path::new("s.txt"), Links::Refuse);
        assert_eq!(errno(link), Some(libc::ELOOP));
    }

    #[test]
    fn plain_paths_resolve_beneath_the_root() {
        let (_dir, _out, root) = setup();
        let (text, real) = read(&root, "a/b/f.txt", Links::Refuse).unwrap();
        assert_eq!((text.as_str(), real), ("f", PathBuf::from("a/b/f.txt")));
        assert_eq!(
            errno(read(&root, "a/missing.txt", Links::Inside)),
            Some(libc::ENOENT)
        );
    }

    #[test]
    fn links_inside_are_followed_only_when_asked() {
        let (dir, _out, root) = setup();
        symlink("a/b", dir.path().join("rel")).unwrap();
        symlink(dir.path().join("a"), dir.path().join("abs")).unwrap();
        symlink("../../a/b/f.txt", dir.path().join("a/b/up.txt")).unwrap();
        assert_eq!(
            errno(read(&root, "rel/f.txt", Links::Refuse)),
            Some(libc::ELOOP)
        );
        let (_, real) = read(&root, "rel/f.txt", Links::Inside).unwrap();
        assert_eq!(real, PathBuf::from("a/b/f.txt"));
        let (_, real) = read(&root, "abs/b/f.txt", Links::Inside).unwrap();
        assert_eq!(real, PathBuf::from("a/b/f.txt"));
        let (_, real) = read(&root, "a/b/up.txt", Links::Inside).unwrap();
        assert_eq!(real, PathBuf::from("a/b/f.txt"));
    }

    #[test]
    fn links_and_dots_that_leave_the_root_are_escapes() {
        let (dir, out, root) = setup();
        symlink(out.path(), dir.path().join("out")).unwrap();
        symlink("../../..", dir.path().join("a/up")).unwrap();
        symlink(out.path().join("secret.txt"), dir.path().join("s.txt")).unwrap();
        for (path, links) in [
            ("out/secret.txt", Links::Inside),
            ("s.txt", Links::Inside),
            ("a/up/x", Links::Inside),
            ("../x", Links::Inside),
            ("a/../../x", Links::Refuse),
            ("/etc/passwd", Links::Inside),
        ] {
            let err = read(&root, path, links).unwrap_err();
            assert!(
                matches!(err.raw_os_error(), Some(libc::EXDEV | libc::ELOOP)),
                "{path}: {err}"
            );
        }
        assert!(read(&root, "s.txt", Links::Refuse).is_err());
    }

    #[test]
    fn link_loops_end() {
        let (dir, _out, root) = setup();
        symlink("l2", dir.path().join("l1")).unwrap();
        symlink("l1", dir.path().join("l2")).unwrap();
        assert_eq!(errno(read(&root, "l1/x", Links::Inside)), Some(libc::ELOOP));
    }

    #[test]
    fn manual_resolution_agrees_with_openat2() {
        let (dir, _out, root) = setup();
        symlink("a/b", dir.path().join("rel")).unwrap();
        for rel in ["a/b/f.txt", "a/./b/f.txt", "a/b/../b/f.txt"] {
            let components = relative_components(Path::new(rel)).unwrap();
            let manual = root
                .manual_open(components, Links::Refuse, READ_FLAGS, false)
                .unwrap();
            assert_eq!(manual.real, PathBuf::from("a/b/f.txt"), "{rel}");
        }
        let components = relative_components(Path::new("rel/f.txt")).unwrap();
        assert_eq!(
            errno(root.manual_open(components, Links::Refuse, READ_FLAGS, false)),
            Some(libc::ELOOP)
        );
    }

    #[test]
    fn open_below_checks_every_component() {
        let (dir, out, root) = setup();
        fs::create_dir_all(out.path().join("b")).unwrap();
        fs::write(out.path().join("b/f.txt"), "outside").unwrap();
        symlink(out.path(), dir.path().join("a/out")).unwrap();
        symlink("b", dir.path().join("a/in")).unwrap();
        let a = root
            .resolve(Path::new("a"), Links::Refuse, DIR_FLAGS)
            .unwrap();
        let open = |rel: &str, links| {
            root.open_below(
                a.fd.as_fd(),
                Path::new("a"),
                Path::new(rel),
                links,
                READ_FLAGS,
            )
            .and_then(regular_file)
            .and_then(std::io::read_to_string)
        };
        assert_eq!(open("b/f.txt", Links::Refuse).unwrap(), "f");
        assert_eq!(open("in/f.txt", Links::Inside).unwrap(), "f");
        assert_eq!(open("../a/b/f.txt", Links::Refuse).unwrap(), "f");
        assert_eq!(errno(open("in/f.txt", Links::Refuse)), Some(libc::ELOOP));
        for (rel, links) in [
            ("out/b/f.txt", Links::Inside),
            ("out/b/f.txt", Links::Refuse),
            ("../../x", Links::Inside),
        ] {
            let err = open(rel, links).unwrap_err();
            assert!(
                matches!(err.raw_os_error(), Some(libc::EXDEV | libc::ELOOP)),
                "{rel}: {err}"
            );
        }
    }

    #[test]
    fn create_dirs_makes_each_level_beneath_the_handle() {
        let (dir, out, root) = setup();
        symlink(out.path(), dir.path().join("out")).unwrap();
        let made = root.create_dirs(Path::new("x/y/z"), Links::Inside).unwrap();
        assert_eq!(made.real, PathBuf::from("x/y/z"));
        assert!(dir.path().join("x/y/z").is_dir());
        assert_eq!(
            errno(root.create_dirs(Path::new("out/new"), Links::Inside)),
            Some(libc::EXDEV)
        );
        assert!(!out.path().join("new").exists());
    }
}
