//! The workspace's file operations: open to read, lock for an edit (then replace or delete),
//! write, create. Each resolves its path beneath the root handle (symlinks inside the root are
//! followed), takes the access-ignore verdict on the real location the path led to, and applies the write policy:
//! nothing inside `.git`, no access-ignore file, nothing an access-ignore file denies.

use crate::error::{Error, Hint, Result, concept, shown};
use crate::fs::root::{Links, READ_FLAGS, Resolved, Root, regular_file, split_parent};
use crate::fs::rules::{RuleOptions, Rules, Verdict};
use crate::fs::write::{Fingerprint, Place, read_head};
use rustix::fs::{FileType, Stat};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Flags to resolve a path without opening what it names for reading.
const PATH_FLAGS: rustix::fs::OFlags = rustix::fs::OFlags::PATH.union(rustix::fs::OFlags::CLOEXEC);

/// The longest file name Linux file systems take, in bytes.
const NAME_MAX: usize = 255;

/// Bytes sniffed for a NUL before a file is read whole for an edit.
pub const SNIFF_LEN: usize = 8192;

/// File operations on one workspace.
pub struct Files {
    root: Arc<Root>,
    rules: RuleOptions,
}

/// A file opened to read.
pub struct Opened {
    pub file: File,
    pub real: PathBuf,
    pub stat: Stat,
}

/// A file locked for an edit, with its contents as read under the lock.
pub struct Locked {
    place: Place,
    /// Holds the `flock` until dropped.
    _file: File,
    stat: Stat,
    pub data: Vec<u8>,
    /// Whether `remove` took the file's name away.
    removed: bool,
}

impl Locked {
    pub fn real(&self) -> &Path {
        &self.place.real
    }

    pub fn mode(&self) -> u32 {
        self.stat.st_mode
    }

    /// Replaces the file with `data` (atomically; the file's mode is kept), unless someone
    /// else changed it since it was read (or since this lock last wrote it). The lock moves
    /// to the new file, so the file can be replaced again under the same lock (a rollback).
    pub fn replace(&mut self, data: &[u8]) -> Result<()> {
        self.check_present()?;
        let (file, stat) = self
            .place
            .replace_locked(data, Some(self.stat.st_mode), Fingerprint::of(&self.stat))
            .map_err(|e| Error::io(&self.place.real, "write", &e))?;
        self._file = file;
        self.stat = stat;
        Ok(())
    }

    /// Deletes the file, unless someone else changed it since it was read (or since this
    /// lock last wrote it).
    pub fn remove(&mut self) -> Result<()> {
        self.check_present()?;
        self.place
            .remove(Fingerprint::of(&self.stat))
            .map_err(|e| Error::io(&self.place.real, "delete", &e))?;
        self.removed = true;
        Ok(())
    }

    fn check_present(&self) -> Result<()> {
        if self.removed {
            return Err(Error::NotFound(format!(
                "{} was deleted under this lock",
                shown(&self.place.real)
            )));
        }
        Ok(())
    }
}

impl Files {
    pub fn new(root: Arc<Root>, rules: RuleOptions) -> Files {
        Files { root, rules }
    }

    fn rules(&self) -> Rules {
        Rules::new(self.root.clone(), self.rules.clone())
    }

    fn deny_if_denied(&self, rules: &Rules, rel: &Path, real: &Path, is_dir: bool) -> Result<()> {
        if rules.verdict_with_ancestors(real, is_dir) == Verdict::Denied {
            return Err(Error::Sandbox(format!(
                "{} is denied by an access-ignore file ({}); it cannot be read, listed or edited",
                shown(rel),
                self.rules.access_files.join(", ")
            )));
        }
        Ok(())
    }

    /// Where `rel` really is, or `None` when it cannot be resolved beneath the root (a
    /// symlink counts when it leads inside). No rule is asked: saying where a path leads
    /// reads nothing of it.
    pub fn real(&self, rel: &Path) -> Option<PathBuf> {
        let found = self.root.resolve(rel, Links::Inside, PATH_FLAGS).ok()?;
        Some(found.real)
    }

    /// `rel` resolved beneath the root (a symlink followed when it leads inside) and opened
    /// with `flags`; a failure says what could not be done to it (`action`: "read", "list").
    fn resolve(&self, rel: &Path, flags: rustix::fs::OFlags, action: &str) -> Result<Resolved> {
        self.root
            .resolve(rel, Links::Inside, flags)
            .map_err(|e| Error::io(rel, action, &e))
    }

    /// Opens the regular file `rel` to read it.
    pub fn open_read(&self, rel: &Path) -> Result<Opened> {
        let io = |e: &std::io::Error| Error::io(rel, "read", e);
        let resolved = self.resolve(rel, READ_FLAGS, "read")?;
        let real = resolved.real;
        let file = regular_file(resolved.fd).map_err(|e| io(&e))?;
        self.deny_if_denied(&self.rules(), rel, &real, false)?;
        let stat = rustix::fs::fstat(&file).map_err(|e| io(&e.into()))?;
        Ok(Opened { file, real, stat })
    }

    /// The directory `rel` where it really is, checked for listing: not in `.git`, not denied.
    pub fn list_target(&self, rel: &Path) -> Result<PathBuf> {
        let resolved = self.resolve(rel, PATH_FLAGS, "list")?;
        let stat =
            rustix::fs::fstat(&resolved.fd).map_err(|e| Error::io(rel, "list", &e.into()))?;
        if FileType::from_raw_mode(stat.st_mode) != FileType::Directory {
            return Err(
                Error::NotAFile(format!("{} is a file, not a directory", shown(rel))).hinted(
                    Hint {
                        text: "read it with {option}",
                        concepts: &[concept::READ],
                        fallback: "",
                        separator: "; ",
                    },
                ),
            );
        }
        if in_git(&resolved.real) {
            return Err(Error::Sandbox(format!(
                "{} is inside .git, which codesift never lists or searches; use git itself",
                shown(rel)
            )));
        }
        self.deny_if_denied(&self.rules(), rel, &resolved.real, true)?;
        Ok(resolved.real)
    }

    /// Checks that `real` (a path where a file is or will be) may be written.
    fn check_writable(&self, rules: &Rules, rel: &Path, real: &Path) -> Result<()> {
        let Some(name) = real.file_name() else {
            return Err(Error::NotAFile(
                "the workspace root is a directory; choose a file path".into(),
            ));
        };
        if in_git(real) {
            return Err(Error::Sandbox(format!(
                "{} is inside .git, which codesift never writes; use git itself",
                shown(rel)
            )));
        }
        if self.rules.is_access_file(name) {
            return Err(Error::Sandbox(format!(
                "{} is an access-ignore file; codesift never writes or edits those (they \
                 decide what it may touch)",
                shown(rel)
            )));
        }
        self.deny_if_denied(rules, rel, real, false)
    }

    /// Locks the file `rel` for an edit and reads it. Binary files (a NUL in the first
    /// `SNIFF_LEN` bytes, UTF-16 excepted) and files over `max_bytes` are refused before
    /// they are read whole.
    pub fn lock(&self, rel: &Path, max_bytes: u64) -> Result<Locked> {
        let io = |e: &std::io::Error| Error::io(rel, "edit", e);
        let rules = self.rules();
        let place = Place::find(&self.root, rel, false).map_err(|e| io(&e))?;
        self.check_writable(&rules, rel, &place.real)?;
        let (mut file, stat) = place.lock().map_err(|e| io(&e))?;
        let mut data = read_head(&mut file, SNIFF_LEN).map_err(|e| io(&e))?;
        let utf16 = data.starts_with(b"\xff\xfe") || data.starts_with(b"\xfe\xff");
        if !utf16 && data.contains(&0) {
            return Err(Error::Binary(format!(
                "{} is a binary file (it contains NUL bytes); it cannot be read or edited as text",
                shown(rel)
            )));
        }
        let size = stat.st_size as u64;
        if size > max_bytes {
            return Err(Error::InvalidArgument(format!(
                "{} is too large to edit ({size} bytes; the limit is {max_bytes}); edit it with \
                 other tools or split it",
                shown(rel)
            )));
        }
        data.reserve(size.saturating_sub(data.len() as u64) as usize);
        (&mut file)
            .take(max_bytes + 1 - data.len() as u64)
            .read_to_end(&mut data)
            .map_err(|e| io(&e))?;
        if data.len() as u64 > max_bytes {
            return Err(Error::InvalidArgument(format!(
                "{} grew past the edit size limit ({max_bytes} bytes) while being read",
                shown(rel)
            )));
        }
        Ok(Locked {
            place,
            _file: file,
            stat,
            data,
            removed: false,
        })
    }

    /// Creates the file `rel` with `data` (and the permission bits of `mode`, if given),
    /// creating missing parent directories beneath the root. An existing name is never
    /// replaced (`ConflictError`). Returns the new file locked, as `lock` would.
    pub fn create(&self, rel: &Path, data: &[u8], mode: Option<u32>) -> Result<Locked> {
        let io = |e: &std::io::Error| Error::io(rel, "create", e);
        let place = self.writable_place(rel)?;
        let exists = || {
            Error::Conflict(format!(
                "{} already exists; nothing was written. Edit it instead, or delete it first",
                shown(rel)
            ))
        };
        if place.stat().is_ok() {
            return Err(exists());
        }
        let (file, stat) = place.create_locked(data, mode).map_err(|e| {
            if e.raw_os_error() == Some(libc::EEXIST) {
                exists()
            } else {
                io(&e)
            }
        })?;
        Ok(Locked {
            place,
            _file: file,
            stat,
            data: data.to_vec(),
            removed: false,
        })
    }

    /// Checks, creating nothing, what `create` of `rel` would check: the write policy on the
    /// path as given and on where it would really be, no symlink along it leading outside the
    /// root, and no existing name there. Returns where the file would be (workspace-relative).
    /// A dry run of a patch calls this so that it refuses what the real run would.
    pub fn check_create(&self, rel: &Path) -> Result<PathBuf> {
        let io = |e: &std::io::Error| Error::io(rel, "create", e);
        let rules = self.rules();
        let lexical: PathBuf = rel.components().collect();
        self.check_writable(&rules, rel, &lexical)?;
        if lexical.iter().any(|name| name.len() > NAME_MAX) {
            return Err(io(&rustix::io::Errno::NAMETOOLONG.into()));
        }
        let exists = || {
            Error::Conflict(format!(
                "{} already exists; nothing was written. Edit it instead, or delete it first",
                shown(rel)
            ))
        };
        match self.root.resolve(rel, Links::Inside, PATH_FLAGS) {
            Ok(_) => return Err(exists()),
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {}
            Err(e) => return Err(io(&e)),
        }
        let (parent, name) = split_parent(rel).map_err(|e| io(&e))?;
        // The deepest directory along the path that exists; the rest would be created.
        let mut existing = parent.to_path_buf();
        let mut missing = Vec::new();
        let found = loop {
            match self.root.resolve(&existing, Links::Inside, PATH_FLAGS) {
                Ok(found) => {
                    let stat = rustix::fs::fstat(&found.fd).map_err(|e| io(&e.into()))?;
                    if FileType::from_raw_mode(stat.st_mode) != FileType::Directory {
                        return Err(io(&rustix::io::Errno::NOTDIR.into()));
                    }
                    break found;
                }
                Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {
                    let Some(last) = existing.file_name() else {
                        return Err(io(&e));
                    };
                    missing.push(last.to_os_string());
                    existing.pop();
                }
                Err(e) => return Err(io(&e)),
            }
        };
        if missing.is_empty()
            && rustix::fs::statat(&found.fd, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).is_ok()
        {
            // A dangling symlink: `create` never replaces a name.
            return Err(exists());
        }
        let mut real = found.real;
        real.extend(missing.iter().rev());
        real.push(name);
        self.check_writable(&rules, rel, &real)?;
        Ok(real)
    }

    /// Where the file `rel` is or will be, its parent directories created beneath the root,
    /// checked against the write policy (before and after the directories exist).
    fn writable_place(&self, rel: &Path) -> Result<Place> {
        let io = |e: &std::io::Error| Error::io(rel, "write", e);
        let rules = self.rules();
        // The path as given is checked before any directory is created for it.
        let lexical: PathBuf = rel.components().collect();
        self.check_writable(&rules, rel, &lexical)?;
        if lexical.iter().any(|name| name.len() > NAME_MAX) {
            return Err(Error::io(
                rel,
                "write",
                &rustix::io::Errno::NAMETOOLONG.into(),
            ));
        }
        let place = Place::find(&self.root, rel, true).map_err(|e| io(&e))?;
        self.check_writable(&rules, rel, &place.real)?;
        Ok(place)
    }

    /// Creates or replaces the file `rel` with `data`, creating missing parent directories
    /// beneath the root. Returns where it really is and whether it was created.
    pub fn write(&self, rel: &Path, data: &[u8]) -> Result<(PathBuf, bool)> {
        let io = |e: &std::io::Error| Error::io(rel, "write", e);
        let place = self.writable_place(rel)?;
        match place.stat() {
            Ok(stat) => {
                if FileType::from_raw_mode(stat.st_mode) == FileType::Directory {
                    return Err(Error::NotAFile(format!(
                        "{} is a directory; choose a file path",
                        shown(rel)
                    )));
                }
                // Serialised with edits of the file; its mode is kept.
                let (_lock, stat) = place.lock().map_err(|e| io(&e))?;
                place
                    .replace(data, Some(stat.st_mode), None, true)
                    .map_err(|e| io(&e))?;
                Ok((place.real, false))
            }
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {
                place.replace(data, None, None, false).map_err(|e| io(&e))?;
                Ok((place.real, true))
            }
            Err(e) => Err(io(&e)),
        }
    }
}

fn in_git(real: &Path) -> bool {
    real.iter().any(|c| c == ".git")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::temp_tree;
    use std::fs;

    fn files(root: &Path) -> Files {
        Files::new(
            Arc::new(Root::open(root).unwrap()),
            RuleOptions {
                gitignore: true,
                access_files: vec![".clineignore".into()],
            },
        )
    }

    /// A new tree of `tree`'s files (as `temp_tree` writes them) and the `Files` over it.
    fn files_in(tree: &[(&str, &str)]) -> (tempfile::TempDir, Files) {
        let dir = temp_tree(tree);
        let f = files(dir.path());
        (dir, f)
    }

    #[test]
    fn real_follows_links_inside_the_root_only() {
        let (dir, f) = files_in(&[("sub/a.txt", "x")]);
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("sub/a.txt", dir.path().join("link")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        let real = |rel: &str| f.real(Path::new(rel));
        assert_eq!(real("sub/a.txt"), Some(PathBuf::from("sub/a.txt")));
        assert_eq!(real("link"), Some(PathBuf::from("sub/a.txt")));
        assert_eq!(real("missing"), None, "a missing path");
        assert_eq!(real("out"), None, "a link leading outside the root");
    }

    #[test]
    fn edits_read_under_the_lock_and_replace() {
        let (dir, f) = files_in(&[("a.txt", "hello")]);
        let mut locked = f.lock(Path::new("a.txt"), 1 << 20).unwrap();
        assert_eq!(locked.data, b"hello");
        locked.replace(b"bye").unwrap();
        assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), "bye");
    }

    #[test]
    fn a_lock_holds_across_replacements_so_a_rollback_is_safe() {
        let (dir, f) = files_in(&[("a.txt", "one")]);
        let mut locked = f.lock(Path::new("a.txt"), 1 << 20).unwrap();
        locked.replace(b"two").unwrap();
        // The new file is locked too: a second open + flock would block.
        let other = fs::File::open(dir.path().join("a.txt")).unwrap();
        let busy = rustix::fs::flock(&other, rustix::fs::FlockOperation::NonBlockingLockExclusive);
        assert!(busy.is_err());
        locked.replace(b"one").unwrap();
        assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), "one");
        // Someone else writes: the next replace is refused.
        fs::write(dir.path().join("a.txt"), "theirs").unwrap();
        assert!(matches!(locked.replace(b"mine"), Err(Error::Conflict(_))));
        assert_eq!(
            fs::read_to_string(dir.path().join("a.txt")).unwrap(),
            "theirs"
        );
    }

    #[test]
    fn create_never_replaces_and_remove_checks_the_file() {
        let (dir, f) = files_in(&[("old.txt", "old")]);
        let root = dir.path();
        assert!(matches!(
            f.create(Path::new("old.txt"), b"x", None),
            Err(Error::Conflict(_))
        ));
        assert_eq!(fs::read_to_string(root.join("old.txt")).unwrap(), "old");
        let mut created = f
            .create(Path::new("d/new.txt"), b"new", Some(0o600))
            .unwrap();
        assert_eq!(fs::read_to_string(root.join("d/new.txt")).unwrap(), "new");
        assert_eq!(created.mode() & 0o777, 0o600);
        created.remove().unwrap();
        assert!(!root.join("d/new.txt").exists());
        assert!(matches!(created.remove(), Err(Error::NotFound(_))));
        let mut locked = f.lock(Path::new("old.txt"), 1 << 20).unwrap();
        fs::write(root.join("old.txt"), "changed by someone").unwrap();
        assert!(matches!(locked.remove(), Err(Error::Conflict(_))));
        assert!(root.join("old.txt").exists());
        assert!(matches!(
            f.create(Path::new(".clineignore"), b"x", None),
            Err(Error::Sandbox(_))
        ));
        let names: Vec<_> = fs::read_dir(root.join("d")).unwrap().collect();
        assert!(names.is_empty(), "temporary files left: {names:?}");
    }

    #[test]
    fn binary_and_oversized_files_are_refused_before_reading_them_whole() {
        let dir = tempfile::tempdir().unwrap();
        let sparse = fs::File::create(dir.path().join("sparse.bin")).unwrap();
        sparse.set_len(1 << 30).unwrap();
        fs::write(dir.path().join("big.txt"), "a".repeat(2000)).unwrap();
        let f = files(dir.path());
        assert!(matches!(
            f.lock(Path::new("sparse.bin"), 1 << 20),
            Err(Error::Binary(_))
        ));
        assert!(matches!(
            f.lock(Path::new("big.txt"), 1000),
            Err(Error::InvalidArgument(_))
        ));
    }

    #[test]
    fn the_write_policy_holds_on_the_real_location() {
        let dir = temp_tree(&[
            (".git/", ""),
            ("private/", ""),
            (".clineignore", "private/\n"),
        ]);
        let root = dir.path();
        std::os::unix::fs::symlink("private", root.join("pub")).unwrap();
        std::os::unix::fs::symlink(".clineignore", root.join("rules")).unwrap();
        let f = files(root);
        for path in [
            ".git/config",
            ".clineignore",
            "rules",
            "pub/x.txt",
            "private/x.txt",
        ] {
            assert!(
                matches!(f.write(Path::new(path), b"x"), Err(Error::Sandbox(_))),
                "{path}"
            );
        }
        assert_eq!(
            fs::read_to_string(root.join(".clineignore")).unwrap(),
            "private/\n"
        );
        assert!(!root.join("private/x.txt").exists());
        let (real, created) = f.write(Path::new("new/dir/a.txt"), b"x").unwrap();
        assert_eq!((real, created), (PathBuf::from("new/dir/a.txt"), true));
        let (_, created) = f.write(Path::new("new/dir/a.txt"), b"y").unwrap();
        assert!(!created);
    }
}
