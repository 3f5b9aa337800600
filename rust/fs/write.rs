//! Atomic, locked replacement of files beneath the root.
//!
//! A file is replaced by writing its new contents to an unnamed `O_TMPFILE` in the same
//! directory (nothing is left behind if the process dies while writing), linking it under a
//! temporary name and renaming that over the target: readers see the old file or the new
//! one, never a partial one. The file and the directory are fsynced (cap-tempfile, which this
//! follows, does not).
//!
//! Read-modify-write (an edit) holds an exclusive `flock` on the target from before it is read
//! until after the new file is renamed into place, so edits by several codesift workspaces or
//! processes are serialised and none is lost. The lock is on the inode: after acquiring it,
//! the path must still name the locked inode (another editor may have replaced the file while
//! this one waited), otherwise the lock is dropped and taken again on the new file. Writers
//! that are not codesift take no lock; the stat fingerprint checked just before the rename
//! catches their changes ("changed on disk").

use super::root::{DIR_FLAGS, Links, READ_FLAGS, Root, not_regular, split_parent};
use rustix::fs::{AtFlags, FileType, FlockOperation, Mode, OFlags, Stat};
use rustix::io::Errno;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Marks the temporary names codesift links new files under; the walker hides them.
pub const TEMP_MARK: &[u8] = b".codesift-";
/// How many times a lock is retaken because the file was replaced while waiting for it.
const LOCK_RETRIES: usize = 1000;

/// Whether `name` is one of codesift's temporary files (`.NAME.codesift-XXXXXXXX.tmp`).
pub fn is_temp_name(name: &[u8]) -> bool {
    name.first() == Some(&b'.')
        && name.ends_with(b".tmp")
        && memchr::memmem::find(name, TEMP_MARK).is_some()
}

/// A file's identity and state, to tell whether it changed between two moments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    dev: u64,
    ino: u64,
    size: i64,
    mtime: (i64, u64),
    ctime: (i64, u64),
}

impl Fingerprint {
    pub fn of(stat: &Stat) -> Fingerprint {
        Fingerprint {
            dev: stat.st_dev,
            ino: stat.st_ino,
            size: stat.st_size,
            mtime: (stat.st_mtime, stat.st_mtime_nsec),
            ctime: (stat.st_ctime, stat.st_ctime_nsec),
        }
    }
}

/// The directory a file lives in, opened beneath the root, and the file's name in it.
pub struct Place {
    pub dir: OwnedFd,
    pub name: OsString,
    /// The file's real location relative to the root.
    pub real: PathBuf,
}

impl Place {
    /// Where `rel` really is: symlinks along it (and `rel` itself, when it is a link) are
    /// followed while they stay inside the root. With `create_dirs`, missing parent
    /// directories are created (only when `rel` itself does not exist yet).
    pub fn find(root: &Root, rel: &Path, create_dirs: bool) -> io::Result<Place> {
        // An existing path (through links or not) is replaced where it really is.
        match root.resolve(rel, Links::Inside, OFlags::PATH | OFlags::CLOEXEC) {
            Ok(found) => {
                let (parent, name) = split_parent(&found.real)?;
                let dir = root.resolve(parent, Links::Refuse, DIR_FLAGS)?;
                return Ok(Place {
                    dir: dir.fd,
                    name: name.to_os_string(),
                    real: found.real,
                });
            }
            Err(err) if err.raw_os_error() == Some(libc::ENOENT) => {}
            Err(err) => return Err(err),
        }
        let (parent, name) = split_parent(rel)?;
        let dir = if create_dirs {
            root.create_dirs(parent, Links::Inside)?
        } else {
            root.resolve(parent, Links::Inside, DIR_FLAGS)?
        };
        let real = dir.real.join(name);
        Ok(Place {
            dir: dir.fd,
            name: name.to_os_string(),
            real,
        })
    }

    /// The state of the name now (not following a link).
    pub fn stat(&self) -> io::Result<Stat> {
        Ok(rustix::fs::statat(
            &self.dir,
            &self.name,
            AtFlags::SYMLINK_NOFOLLOW,
        )?)
    }

    /// Opens the existing file and takes an exclusive lock on it that is sure to be on the
    /// file the name holds now (see the module documentation).
    pub fn lock(&self) -> io::Result<(File, Stat)> {
        for _ in 0..LOCK_RETRIES {
            let fd = rustix::fs::openat(&self.dir, &self.name, READ_FLAGS, Mode::empty())?;
            let stat = rustix::fs::fstat(&fd)?;
            if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
                return Err(not_regular(stat.st_mode));
            }
            rustix::fs::flock(&fd, FlockOperation::LockExclusive)?;
            match self.stat() {
                Ok(now) if now.st_ino == stat.st_ino && now.st_dev == stat.st_dev => {
                    rustix::fs::fcntl_setfl(&fd, OFlags::RDONLY)?;
                    // Re-read after the lock: an editor that held it may have changed it.
                    let stat = rustix::fs::fstat(&fd)?;
                    return Ok((File::from(fd), stat));
                }
                Ok(_) => continue,
                Err(err) if err.raw_os_error() == Some(libc::ENOENT) => continue,
                Err(err) => return Err(err),
            }
        }
        Err(Errno::AGAIN.into())
    }

    /// Replaces the file with `data` atomically. With `expected`, the name must still hold
    /// the file in that state (`ConflictError` otherwise: someone else changed it). `mode` is
    /// the permission bits of the new file (the old file's); a new file without one gets the
    /// usual `0o666` less the umask.
    ///
    /// `locked` says the caller holds the lock on the file the name holds now: then no other
    /// codesift writer can be between linking its temporary file and renaming it (both need
    /// that lock), so temporary files of this name left by killed writers are removed first.
    pub fn replace(
        &self,
        data: &[u8],
        mode: Option<u32>,
        expected: Option<Fingerprint>,
        locked: bool,
    ) -> io::Result<()> {
        let tmp = self.prepare(data, mode, false)?;
        self.rename_into_place(tmp, expected, locked).map(drop)
    }

    /// Like `replace` (the caller holds the lock on the file the name holds now), but the
    /// new file is locked before it takes the name and is returned, locked, with its state:
    /// the caller's hold on the file lasts across the replacement, so it can replace the file
    /// again (to roll back) without another codesift writer coming in between.
    pub fn replace_locked(
        &self,
        data: &[u8],
        mode: Option<u32>,
        expected: Fingerprint,
    ) -> io::Result<(File, Stat)> {
        let tmp = self.prepare(data, mode, true)?;
        let file = self.rename_into_place(tmp, Some(expected), true)?;
        let stat = rustix::fs::fstat(&file)?;
        Ok((file, stat))
    }

    /// Creates the file under its name with `data`, atomically: readers see no file or the
    /// whole one, and an existing name (a file, a link, anything) is never replaced
    /// (`EEXIST`). The new file is returned locked, with its state.
    pub fn create_locked(&self, data: &[u8], mode: Option<u32>) -> io::Result<(File, Stat)> {
        let tmp = self.prepare(data, mode, true)?;
        match &tmp.name {
            // A named temporary file is linked under the name; dropping `tmp` unlinks the
            // temporary name.
            Some((dir, temp_name)) => {
                rustix::fs::linkat(dir, temp_name, &self.dir, &self.name, AtFlags::empty())?
            }
            None => {
                let proc_path = format!("/proc/self/fd/{}", tmp.file.as_raw_fd());
                rustix::fs::linkat(
                    rustix::fs::CWD,
                    proc_path.as_str(),
                    &self.dir,
                    &self.name,
                    AtFlags::SYMLINK_FOLLOW,
                )?
            }
        }
        let _ = rustix::fs::fsync(&self.dir);
        let file = tmp.file.try_clone()?;
        let stat = rustix::fs::fstat(&file)?;
        Ok((file, stat))
    }

    /// Removes the name, if it still holds the file in state `expected` (`ConflictError`
    /// otherwise: someone else changed it). The caller holds the file's lock.
    pub fn remove(&self, expected: Fingerprint) -> io::Result<()> {
        match self.stat() {
            Ok(now) if Fingerprint::of(&now) == expected => {}
            _ => return Err(changed_on_disk()),
        }
        rustix::fs::unlinkat(&self.dir, &self.name, AtFlags::empty())?;
        let _ = rustix::fs::fsync(&self.dir);
        Ok(())
    }

    /// A temporary file in the directory holding `data` with `mode`, synced, and locked if
    /// `lock` (nobody else can have it yet: it has no name, or a random one).
    fn prepare(&self, data: &[u8], mode: Option<u32>, lock: bool) -> io::Result<TempFile> {
        let mut tmp = self.temp_file()?;
        tmp.file.write_all(data)?;
        if let Some(mode) = mode {
            rustix::fs::fchmod(&tmp.file, Mode::from_raw_mode(mode & 0o7777))?;
        }
        tmp.file.sync_all()?;
        if lock {
            rustix::fs::flock(&tmp.file, FlockOperation::LockExclusive)?;
        }
        Ok(tmp)
    }

    /// Gives the prepared file the name (see `replace`); returns the file.
    fn rename_into_place(
        &self,
        mut tmp: TempFile,
        expected: Option<Fingerprint>,
        locked: bool,
    ) -> io::Result<File> {
        if locked {
            self.remove_stale_temps();
        }
        let temp_name = tmp.link(self.dir.as_fd(), &self.name)?;
        #[cfg(test)]
        tests::AFTER_LINK.with(|hook| hook.take().map(|hook| hook()));
        // The check comes last, right before the rename, so that nothing else (the directory
        // listing, the link through /proc) widens the window between them.
        if let Some(expected) = expected {
            match self.stat() {
                Ok(now) if Fingerprint::of(&now) == expected => {}
                _ => {
                    let _ = rustix::fs::unlinkat(&self.dir, &temp_name, AtFlags::empty());
                    return Err(changed_on_disk());
                }
            }
            #[cfg(test)]
            tests::AFTER_CHECK.with(|hook| hook.take().map(|hook| hook()));
            if let Some(swapped) = self.exchange(&temp_name, expected)? {
                return swapped.map(|()| tmp.file.try_clone())?;
            }
        }
        let renamed = rustix::fs::renameat(&self.dir, &temp_name, &self.dir, &self.name);
        if let Err(err) = renamed {
            let _ = rustix::fs::unlinkat(&self.dir, &temp_name, AtFlags::empty());
            return Err(err.into());
        }
        let _ = rustix::fs::fsync(&self.dir);
        tmp.file.try_clone()
    }

    /// Puts the new file (linked as `temp_name`) in place by swapping the two names at once
    /// (`RENAME_EXCHANGE`), then checks the file swapped out: a writer that is not codesift
    /// and changed it after the check (in place, or by replacing it) is caught even in that
    /// window, and its file is swapped back. `None`: the file system cannot swap (the caller
    /// renames). `Some(Err)`: a change was caught; nothing of ours is left in place.
    fn exchange(
        &self,
        temp_name: &OsStr,
        expected: Fingerprint,
    ) -> io::Result<Option<io::Result<()>>> {
        use rustix::fs::RenameFlags;
        let swap = || {
            rustix::fs::renameat_with(
                &self.dir,
                temp_name,
                &self.dir,
                &self.name,
                RenameFlags::EXCHANGE,
            )
        };
        match swap() {
            Ok(()) => {}
            Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => return Ok(None),
            Err(Errno::NOENT) => {
                // Deleted by someone else since the check: a change like any other.
                let _ = rustix::fs::unlinkat(&self.dir, temp_name, AtFlags::empty());
                return Ok(Some(Err(changed_on_disk())));
            }
            Err(err) => {
                let _ = rustix::fs::unlinkat(&self.dir, temp_name, AtFlags::empty());
                return Err(err.into());
            }
        }
        // A rename moves the swapped-out file's ctime: the rest of its fingerprint is compared.
        let ours = |stat: &Stat| {
            let now = Fingerprint::of(stat);
            (now.dev, now.ino, now.size, now.mtime)
                == (expected.dev, expected.ino, expected.size, expected.mtime)
        };
        let swapped_out = rustix::fs::statat(&self.dir, temp_name, AtFlags::SYMLINK_NOFOLLOW);
        if matches!(&swapped_out, Ok(stat) if ours(stat)) {
            let _ = rustix::fs::unlinkat(&self.dir, temp_name, AtFlags::empty());
            let _ = rustix::fs::fsync(&self.dir);
            return Ok(Some(Ok(())));
        }
        // Theirs goes back under the name; ours (now under the temporary name) is removed.
        let _ = swap();
        let _ = rustix::fs::unlinkat(&self.dir, temp_name, AtFlags::empty());
        Ok(Some(Err(changed_on_disk())))
    }

    fn temp_file(&self) -> io::Result<TempFile> {
        let flags = OFlags::WRONLY | OFlags::CLOEXEC;
        let perm = Mode::from_raw_mode(0o666);
        match rustix::fs::openat(&self.dir, ".", flags | OFlags::TMPFILE, perm) {
            Ok(fd) => Ok(TempFile {
                file: File::from(fd),
                name: None,
            }),
            // Filesystems without O_TMPFILE: a named temp file from the start.
            Err(Errno::OPNOTSUPP | Errno::ISDIR | Errno::INVAL | Errno::NOENT) => {
                for _ in 0..100 {
                    let name = temp_name(&self.name);
                    let create = flags | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW;
                    match rustix::fs::openat(&self.dir, &name, create, perm) {
                        Ok(fd) => {
                            return Ok(TempFile {
                                file: File::from(fd),
                                name: Some((self.dir.try_clone()?, name)),
                            });
                        }
                        Err(Errno::EXIST) => continue,
                        Err(err) => return Err(err.into()),
                    }
                }
                Err(Errno::EXIST.into())
            }
            Err(err) => Err(err.into()),
        }
    }

    /// Removes temporary files of this name left by a process killed between linking its
    /// temporary file and renaming it (`kill -9`): a window of two syscalls. Only safe under
    /// the lock (see `replace`): after the rename another writer may already hold the lock on
    /// the new file and be linking its own temporary file.
    fn remove_stale_temps(&self) {
        let Ok(dir) = rustix::fs::Dir::read_from(&self.dir) else {
            return;
        };
        let mut prefix = b".".to_vec();
        prefix.extend_from_slice(self.name.as_bytes());
        prefix.extend_from_slice(TEMP_MARK);
        for entry in dir.flatten() {
            let name = entry.file_name().to_bytes();
            if name.starts_with(&prefix) && name.ends_with(b".tmp") {
                let _ = rustix::fs::unlinkat(&self.dir, entry.file_name(), AtFlags::empty());
            }
        }
    }
}

/// A new file being written: unnamed (`O_TMPFILE`) until it is linked, or already named.
struct TempFile {
    file: File,
    name: Option<(OwnedFd, OsString)>,
}

impl TempFile {
    /// Gives the file its temporary name in `dir` and returns it.
    fn link(&mut self, dir: BorrowedFd<'_>, target: &OsStr) -> io::Result<OsString> {
        if let Some((_, name)) = self.name.take() {
            return Ok(name);
        }
        // linkat(AT_EMPTY_PATH) needs CAP_DAC_READ_SEARCH; the /proc path works for anyone.
        let proc_path = format!("/proc/self/fd/{}", self.file.as_raw_fd());
        for _ in 0..100 {
            let name = temp_name(target);
            match rustix::fs::linkat(
                rustix::fs::CWD,
                proc_path.as_str(),
                dir,
                &name,
                AtFlags::SYMLINK_FOLLOW,
            ) {
                Ok(()) => return Ok(name),
                Err(Errno::EXIST) => continue,
                Err(err) => return Err(err.into()),
            }
        }
        Err(Errno::EXIST.into())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if let Some((dir, name)) = &self.name {
            let _ = rustix::fs::unlinkat(dir, name, AtFlags::empty());
        }
    }
}

fn temp_name(target: &OsStr) -> OsString {
    let mut random = [0u8; 4];
    let _ = rustix::rand::getrandom(&mut random, rustix::rand::GetRandomFlags::empty());
    let mut name = b".".to_vec();
    name.extend_from_slice(target.as_bytes());
    name.extend_from_slice(TEMP_MARK);
    for byte in random {
        name.extend_from_slice(format!("{byte:02x}").as_bytes());
    }
    name.extend_from_slice(b".tmp");
    OsStr::from_bytes(&name).to_os_string()
}

/// The error for a file changed by someone else since it was read.
pub fn changed_on_disk() -> io::Error {
    io::Error::other(crate::error::ChangedOnDisk)
}

/// Reads at most `limit` bytes from the start of `file`.
pub fn read_head(file: &mut File, limit: usize) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(limit);
    file.take(limit as u64).read_to_end(&mut head)?;
    Ok(head)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::temp_tree;
    use std::fs;

    #[test]
    fn replace_keeps_mode_and_leaves_no_temp_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = temp_tree(&[("f.sh", "old")]);
        let path = dir.path().join("f.sh");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o750)).unwrap();
        let root = Root::open(dir.path()).unwrap();
        let place = Place::find(&root, Path::new("f.sh"), false).unwrap();
        let (_lock, stat) = place.lock().unwrap();
        place
            .replace(
                b"new",
                Some(stat.st_mode),
                Some(Fingerprint::of(&stat)),
                true,
            )
            .unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o750);
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn a_change_by_another_writer_is_a_conflict() {
        let (done, now, _) = replace_while(None, |path| {
            fs::write(path, "someone else, longer").unwrap()
        });
        assert!(is_conflict(&done), "{done:?}");
        assert_eq!(now.as_deref(), Some("someone else, longer"));
    }

    thread_local! {
        /// Runs once, in the writer's thread, after the temporary file is linked: where a
        /// writer that is not codesift may come in.
        pub static AFTER_LINK: std::cell::Cell<Option<Box<dyn FnOnce()>>> =
            const { std::cell::Cell::new(None) };
        /// Runs once, in the writer's thread, after the last check and before the swap.
        pub static AFTER_CHECK: std::cell::Cell<Option<Box<dyn FnOnce()>>> =
            const { std::cell::Cell::new(None) };
    }

    type Hook = std::thread::LocalKey<std::cell::Cell<Option<Box<dyn FnOnce()>>>>;

    /// `place.replace` of f.txt ("old") with "mine" while `theirs` runs at `hook` (`None`:
    /// after the lock is taken, before the replace starts): what it returned, what f.txt then
    /// holds (None: gone) and every name left in the directory.
    fn replace_while(
        hook: Option<&'static Hook>,
        theirs: impl FnOnce(&Path) + 'static,
    ) -> (io::Result<()>, Option<String>, Vec<OsString>) {
        let dir = temp_tree(&[("f.txt", "old")]);
        let path = dir.path().join("f.txt");
        let root = Root::open(dir.path()).unwrap();
        let place = Place::find(&root, Path::new("f.txt"), false).unwrap();
        let (_lock, stat) = place.lock().unwrap();
        let target = path.clone();
        match hook {
            Some(hook) => hook.with(|hook| hook.set(Some(Box::new(move || theirs(&target))))),
            None => theirs(&target),
        }
        let done = place.replace(
            b"mine",
            Some(stat.st_mode),
            Some(Fingerprint::of(&stat)),
            true,
        );
        let now = fs::read_to_string(&path).ok();
        let mut names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        (done, now, names)
    }

    fn is_conflict(done: &io::Result<()>) -> bool {
        done.as_ref()
            .err()
            .and_then(|e| e.get_ref())
            .is_some_and(|e| e.is::<crate::error::ChangedOnDisk>())
    }

    fn replaced_by_them(path: &Path) {
        let tmp = path.with_file_name("theirs.new");
        fs::write(&tmp, "replaced by them").unwrap();
        fs::rename(&tmp, path).unwrap();
    }

    #[test]
    fn a_change_while_the_new_file_is_linked_is_a_conflict() {
        let (done, now, names) = replace_while(Some(&AFTER_LINK), replaced_by_them);
        assert!(is_conflict(&done), "expected a conflict, got {done:?}");
        assert_eq!(
            now.as_deref(),
            Some("replaced by them"),
            "their change was lost"
        );
        assert_eq!(names, ["f.txt"], "temporary files left behind");
    }

    #[test]
    fn a_change_between_the_last_check_and_the_swap_is_kept() {
        let in_place = |path: &Path| fs::write(path, "written in place").unwrap();
        let deleted = |path: &Path| fs::remove_file(path).unwrap();
        for (what, theirs, expected) in [
            (
                "replaced",
                Box::new(replaced_by_them) as Box<dyn FnOnce(&Path)>,
                Some("replaced by them"),
            ),
            (
                "written in place",
                Box::new(in_place),
                Some("written in place"),
            ),
            ("deleted", Box::new(deleted), None),
        ] {
            let (done, now, names) = replace_while(Some(&AFTER_CHECK), theirs);
            assert!(
                is_conflict(&done),
                "{what}: expected a conflict, got {done:?}"
            );
            assert_eq!(now.as_deref(), expected, "{what}: their change was lost");
            let left: Vec<OsString> = expected.iter().map(|_| "f.txt".into()).collect();
            assert_eq!(names, left, "{what}: temporary files left behind");
        }
    }

    #[test]
    fn a_swap_with_nothing_changed_puts_the_new_file_in_place() {
        let (done, now, names) = replace_while(Some(&AFTER_CHECK), |_| {});
        assert!(done.is_ok(), "{done:?}");
        assert_eq!(now.as_deref(), Some("mine"));
        assert_eq!(names, ["f.txt"], "temporary files left behind");
    }

    #[test]
    fn stale_temp_files_of_the_name_are_removed() {
        let dir = temp_tree(&[
            ("a.txt", "a"),
            (".a.txt.codesift-0011aabb.tmp", "left"),
            (".b.txt.codesift-0011aabb.tmp", "other"),
        ]);
        let root = Root::open(dir.path()).unwrap();
        let place = Place::find(&root, Path::new("a.txt"), false).unwrap();
        let (_lock, _) = place.lock().unwrap();
        place.replace(b"new", Some(0o644), None, true).unwrap();
        assert!(!dir.path().join(".a.txt.codesift-0011aabb.tmp").exists());
        assert!(dir.path().join(".b.txt.codesift-0011aabb.tmp").exists());
        assert!(is_temp_name(b".a.txt.codesift-0011aabb.tmp"));
        assert!(!is_temp_name(b"a.txt"));
    }

    #[test]
    fn new_files_get_their_parent_directories() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        let place = Place::find(&root, Path::new("x/y/new.txt"), true).unwrap();
        assert_eq!(place.real, PathBuf::from("x/y/new.txt"));
        place.replace(b"hi", None, None, false).unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("x/y/new.txt")).unwrap(),
            "hi"
        );
    }
}
