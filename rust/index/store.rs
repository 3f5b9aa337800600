//! Where an index lives and how a new one is published: under the user cache directory
//! (`$CODESIFT_CACHE_DIR`, else `$XDG_CACHE_HOME/codesift`, else `~/.cache/codesift`), never in
//! the tree; one directory per root (a hash of its real path), one file per set of walk options
//! (they change which files exist for a search). A build holds an exclusive `flock` on the
//! directory's lock file, writes a temporary file and renames it over the index: readers that
//! copied the old file keep it, new readers get the new one, and a build killed halfway leaves
//! the old index usable.
//!
//! The cache is another process's input, so nothing in it is trusted by its name: directories
//! are opened once and everything else relative to them (`fs::dir::Dir`), never through a
//! symlink nor blocking on a FIFO, and each directory and file must be
//! ours (`fstat` on the descriptor) and private (`0700`, `0600`). A cache directory of someone
//! else is refused; one of ours that others can enter is made private first. Names that are
//! predictable (`build.lock`, `index-*.bin`) live only in a directory nobody else can write;
//! temporary files get random names and are created with `O_EXCL`.

use crate::fs::dir::{self, Dir};
use crate::fs::walk::WalkOptions;
use rustix::fs::{FileType, Stat};
use std::fs::File;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

/// FNV-1a, 64 bits: a hash that stays the same across builds and Rust versions (std's is not
/// promised to), so an index is found again by the next process.
pub fn stable_hash(parts: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &byte in *part {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        hash ^= 0xff;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// The hash of everything that decides which files a walk sees.
pub fn options_hash(options: &WalkOptions) -> u64 {
    let max = options.max_filesize.map_or(u64::MAX, |m| m).to_le_bytes();
    let mut parts: Vec<&[u8]> = vec![
        if options.rules.gitignore {
            b"git"
        } else {
            b"nogit"
        },
        if options.hidden {
            b"hidden"
        } else {
            b"nohidden"
        },
        if options.follow_symlinks {
            b"follow"
        } else {
            b"nofollow"
        },
        &max,
    ];
    for name in &options.rules.access_files {
        parts.push(name.as_bytes());
    }
    let version = super::format::VERSION.to_le_bytes();
    parts.push(&version);
    stable_hash(&parts)
}

/// The cache directory for indexes.
pub fn cache_root() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CODESIFT_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir).join("codesift"));
    }
    std::env::var_os("HOME")
        .filter(|d| !d.is_empty())
        .map(|home| PathBuf::from(home).join(".cache").join("codesift"))
}

const LOCK_NAME: &str = "build.lock";
/// How often a build waiting for another process's looks whether it was given up.
const LOCK_POLL: std::time::Duration = std::time::Duration::from_millis(20);
const TEMP_PREFIX: &str = ".index-";
const TEMP_SUFFIX: &str = ".tmp";

/// Where the index of `root` (its real path) built with `options` is.
#[derive(Clone, Debug)]
pub struct Location {
    /// The cache directory (every root's directory is in it).
    pub cache: PathBuf,
    pub dir: PathBuf,
    pub file: PathBuf,
    pub options_hash: u64,
    dir_name: String,
    file_name: String,
}

/// What identifies one version of a published file: a file replaced, truncated or rewritten
/// in place has another.
pub type FileKey = (u64, u64, u64, i64, i64, i64, i64);

pub fn file_key(stat: &Stat) -> FileKey {
    (
        stat.st_dev,
        stat.st_ino,
        stat.st_size as u64,
        stat.st_mtime,
        stat.st_mtime_nsec as i64,
        stat.st_ctime,
        stat.st_ctime_nsec as i64,
    )
}

fn doubt(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

/// The cache directory cannot be made or opened (a file in its place, no permission, ...):
/// the message says where it is and what to do.
fn unusable_cache(cache: &Path, e: io::Error) -> io::Error {
    io::Error::new(
        e.kind(),
        format!(
            "the index cache directory {} cannot be used ({e}): make it a directory of yours, \
             or set CODESIFT_CACHE_DIR to one",
            cache.display()
        ),
    )
}

fn my_uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// Checks that `dir` (the directory at `path`) is a directory of ours, and makes it private.
fn private_dir(dir: &Dir, path: &Path) -> io::Result<()> {
    let stat = dir.stat()?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::Directory {
        return Err(doubt(format!("{} is not a directory", path.display())));
    }
    if stat.st_uid != my_uid() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "cache directory {} is not owned by you (owner uid {}): the index is not used \
                 and searches scan; set CODESIFT_CACHE_DIR to a directory of your own",
                path.display(),
                stat.st_uid
            ),
        ));
    }
    // Ours but open to others (made by hand, or by an older version): every entry is checked
    // on its own, so making the directory private is enough from here on.
    if stat.st_mode & 0o077 != 0 {
        dir.set_mode(0o700)?;
    }
    Ok(())
}

/// Checks that `file` (the cache file `name`) is a regular file of ours that only we can read.
fn private_file(file: &File, name: &str) -> io::Result<Stat> {
    let stat = dir::file_stat(file)?;
    let kind = FileType::from_raw_mode(stat.st_mode);
    if kind != FileType::RegularFile {
        return Err(doubt(format!("{name} is not a regular file ({kind:?})")));
    }
    if stat.st_uid != my_uid() {
        return Err(doubt(format!(
            "{name} is owned by uid {}, not by you",
            stat.st_uid
        )));
    }
    if stat.st_mode & 0o077 != 0 {
        return Err(doubt(format!(
            "{name} can be read or written by others (mode {:o})",
            stat.st_mode & 0o777
        )));
    }
    Ok(stat)
}

/// Opens a cache file for reading without following a symlink or blocking on a FIFO.
fn open_nofollow(dir: &Dir, name: &str) -> io::Result<File> {
    dir.open_read(name).map_err(|e| {
        if dir::is_symlink(&e) {
            doubt(format!("{name} is a symbolic link"))
        } else {
            e
        }
    })
}

impl Location {
    pub fn new(root_real: &Path, options: &WalkOptions) -> Option<Location> {
        Some(Location::under(cache_root()?, root_real, options))
    }

    /// Where the index is in the cache directory `cache`.
    pub fn under(cache: PathBuf, root_real: &Path, options: &WalkOptions) -> Location {
        let dir_name = format!("{:016x}", stable_hash(&[root_real.as_os_str().as_bytes()]));
        let options_hash = options_hash(options);
        let file_name = format!("index-{options_hash:016x}.bin");
        let dir = cache.join(&dir_name);
        Location {
            file: dir.join(&file_name),
            dir,
            cache,
            options_hash,
            dir_name,
            file_name,
        }
    }

    /// The root's cache directory, checked (`None` when it does not exist and `create` is
    /// false). Directories created along the way are `0700`.
    fn open_dir(&self, create: bool) -> io::Result<Option<Dir>> {
        if create {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&self.cache)
                .map_err(|e| unusable_cache(&self.cache, e))?;
        }
        // The cache path itself is the user's to choose (it may go through symlinks).
        let cache = match Dir::open_ambient(&self.cache) {
            Ok(dir) => dir,
            Err(e) if e.kind() == io::ErrorKind::NotFound && !create => return Ok(None),
            Err(e) => return Err(unusable_cache(&self.cache, e)),
        };
        private_dir(&cache, &self.cache)?;
        let open = || cache.open_dir(&self.dir_name);
        let dir = match open() {
            Ok(dir) => dir,
            Err(e) if e.kind() == io::ErrorKind::NotFound && !create => return Ok(None),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                match cache.create_dir(&self.dir_name, 0o700) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(e),
                }
                open()?
            }
            Err(e) if dir::not_a_dir(&e) => {
                return Err(doubt(format!(
                    "{} is not a directory (a symlink or a file): remove it",
                    self.dir.display()
                )));
            }
            Err(e) => return Err(e),
        };
        private_dir(&dir, &self.dir)?;
        Ok(Some(dir))
    }

    /// Opens the published index for reading: a regular file of ours, private (`None` when
    /// there is none). Anything else at its name is an error: a doubt, never followed.
    pub fn open_index(&self) -> io::Result<Option<(File, Stat)>> {
        let Some(dir) = self.open_dir(false)? else {
            return Ok(None);
        };
        let file = match open_nofollow(&dir, &self.file_name) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let stat = private_file(&file, &self.file_name)?;
        Ok(Some((file, stat)))
    }

    /// Whether anything (even a symlink or a FIFO) is at the index's name.
    pub fn index_exists(&self) -> bool {
        std::fs::symlink_metadata(&self.file).is_ok()
    }

    /// Takes the build lock (blocking): one build per root at a time.
    pub fn lock(&self) -> io::Result<Locked<'_>> {
        self.lock_unless(&|| false)
    }

    /// Takes the build lock, waiting while another process builds, unless `given_up()` says
    /// so (checked every `LOCK_POLL`): then `Interrupted`. A cancelled or interrupted build
    /// never hangs on a builder that is stopped or stuck.
    pub fn lock_unless(&self, given_up: &dyn Fn() -> bool) -> io::Result<Locked<'_>> {
        let dir = self.open_dir(true)?.expect("created");
        let lock = open_lock(&dir)?;
        while !dir::try_lock(&lock)? {
            if given_up() {
                return Err(io::Error::new(
                    io::ErrorKind::Interrupted,
                    "another process is building this index",
                ));
            }
            std::thread::sleep(LOCK_POLL);
        }
        let locked = Locked {
            location: self,
            dir,
            _lock: lock,
        };
        locked.remove_stale_temps();
        Ok(locked)
    }
}

/// Opens (creating it `0600`) the lock file. Anything else planted at its name (a symlink, a
/// FIFO, a file of another user or open to others) is removed, never followed or waited on:
/// a real lock is always a private regular file of ours, so no build holding one is affected.
fn open_lock(dir: &Dir) -> io::Result<File> {
    let mut last = None;
    for _ in 0..3 {
        match dir.open_or_create(LOCK_NAME, 0o600) {
            Ok(file) => match private_file(&file, LOCK_NAME) {
                Ok(_) => return Ok(file),
                Err(e) => last = Some(e),
            },
            Err(e) => last = Some(e),
        }
        match dir.remove_file(LOCK_NAME) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(io::Error::other(format!(
                    "cannot replace what is at {LOCK_NAME} ({}): {e}",
                    last.map_or_else(String::new, |l| l.to_string())
                )));
            }
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("cannot create the build lock")))
}

/// The build lock, held: what may be written in the cache directory while no other build runs.
pub struct Locked<'a> {
    location: &'a Location,
    dir: Dir,
    _lock: File,
}

/// A temporary file a build writes, named at random: removed when dropped unless published,
/// so no way out of a build (an error, a cancel, a panic, a failed rename) leaves it behind.
/// Only a killed process leaves one, for the next build to remove when it takes the lock.
pub struct Temp<'a> {
    dir: &'a Dir,
    name: String,
    published: bool,
}

impl Drop for Temp<'_> {
    fn drop(&mut self) {
        if !self.published {
            let _ = self.dir.remove_file(&self.name);
        }
    }
}

impl Locked<'_> {
    /// Removes the temporary files of builds that were killed (or whose process exited during
    /// a background rebuild): builds write them only while holding the lock, so with the lock
    /// held every one of them is stale. An index is hundreds of MiB; they must not pile up.
    /// Only names are removed (`unlinkat` never follows a symlink).
    fn remove_stale_temps(&self) {
        let Ok(names) = self.dir.entry_names() else {
            return;
        };
        for name in names {
            let bytes = name.as_bytes();
            if bytes.starts_with(TEMP_PREFIX.as_bytes()) && bytes.ends_with(TEMP_SUFFIX.as_bytes())
            {
                let _ = self.dir.remove_file(&name);
            }
        }
    }

    /// A new temporary file next to the index, for a build to write: a random name, created
    /// exclusively (`O_EXCL`: never an existing file nor a symlink), `0600`.
    pub fn temp_file(&self) -> io::Result<(File, Temp<'_>)> {
        let name = dir::random_name(TEMP_PREFIX, TEMP_SUFFIX)?;
        let file = self.dir.create_new(&name, 0o600)?;
        Ok((
            file,
            Temp {
                dir: &self.dir,
                name,
                published: false,
            },
        ))
    }

    /// Where a build writes `index` (a `temp_file`), its spilled posting lists (unnamed files
    /// next to the index, gone when the build lets go of them: see `spill`), within the
    /// memory budget the environment sets.
    pub fn build_output(&self, index: File) -> io::Result<super::build::Output<'_>> {
        Ok(super::build::Output {
            index,
            spill: &self.dir,
            memory_budget: super::spill::memory_budget()?,
        })
    }

    /// Publishes a finished temporary file as the index (replacing whatever was at its name:
    /// `rename` never follows a symlink there). On failure the temporary file is removed.
    pub fn publish(&self, mut temp: Temp<'_>) -> io::Result<()> {
        self.dir.rename(&temp.name, &self.location.file_name)?;
        temp.published = true;
        let _ = self.dir.sync();
        Ok(())
    }

    /// Removes the index (the lock removed temporary files of killed builds).
    pub fn drop_index(&self) -> io::Result<bool> {
        match self.dir.remove_file(&self.location.file_name) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn location(cache: &Path) -> Location {
        Location {
            cache: cache.to_path_buf(),
            dir: cache.join("root"),
            file: cache.join("root").join("index-0.bin"),
            options_hash: 0,
            dir_name: "root".into(),
            file_name: "index-0.bin".into(),
        }
    }

    #[test]
    fn a_cache_path_that_is_not_a_directory_is_named_with_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("cache");
        std::fs::write(&file, b"").unwrap();
        for cache in [file.clone(), file.join("below")] {
            let location = location(&cache);
            let building = location.lock().err().expect("a file is no cache directory");
            let reading = location.open_index().expect_err("nor read as one");
            for err in [building, reading] {
                let message = err.to_string();
                assert!(
                    message.contains(&format!("{} cannot be used", cache.display()))
                        && message.contains("CODESIFT_CACHE_DIR"),
                    "{message}"
                );
            }
        }
    }

    #[test]
    fn taking_the_lock_removes_what_killed_builds_left() {
        let dir = tempfile::tempdir().unwrap();
        let location = location(dir.path());
        let stale = {
            let locked = location.lock().unwrap();
            let (_, temp) = locked.temp_file().unwrap();
            let path = location.dir.join(&temp.name);
            // As a killed build leaves it: nothing ran its clean-up.
            std::mem::forget(temp);
            path
        };
        std::fs::write(&stale, b"half an index").unwrap();
        std::fs::write(&location.file, b"the published index").unwrap();
        let _lock = location.lock().unwrap();
        assert!(
            !stale.exists(),
            "a killed build's temporary file stays behind"
        );
        assert!(location.file.exists(), "the published index is kept");
    }

    fn temp_names(location: &Location) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&location.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(TEMP_PREFIX) && n.ends_with(TEMP_SUFFIX))
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_temporary_file_not_published_is_removed_on_every_way_out() {
        let dir = tempfile::tempdir().unwrap();
        let location = location(dir.path());
        let locked = location.lock().unwrap();
        // An error or a cancel: the build returns before publishing.
        let (_, temp) = locked.temp_file().unwrap();
        assert_eq!(
            temp_names(&location).len(),
            1,
            "no temporary file was created"
        );
        drop(temp);
        assert_eq!(
            temp_names(&location),
            Vec::<String>::new(),
            "after an error"
        );
        // A panic while writing it.
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let (_file, _temp) = locked.temp_file().unwrap();
            panic!("a build that panics");
        }));
        assert!(panicked.is_err());
        assert_eq!(temp_names(&location), Vec::<String>::new(), "after a panic");
        // A publish that fails (a directory at the index's name cannot be renamed over).
        std::fs::create_dir(&location.file).unwrap();
        std::fs::write(location.file.join("x"), b"x").unwrap();
        let (_, temp) = locked.temp_file().unwrap();
        locked
            .publish(temp)
            .expect_err("a rename over a directory fails");
        assert_eq!(
            temp_names(&location),
            Vec::<String>::new(),
            "after a failed publish"
        );
        std::fs::remove_dir_all(&location.file).unwrap();
        let (_, temp) = locked.temp_file().unwrap();
        locked.publish(temp).unwrap();
        assert!(location.file.is_file(), "a published file is kept");
        assert_eq!(temp_names(&location), Vec::<String>::new());
    }

    #[test]
    fn planted_lock_and_index_names_are_neither_followed_nor_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let location = location(&dir.path().join("cache"));
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&location.dir).unwrap();
        std::os::unix::fs::symlink(&outside, location.dir.join(LOCK_NAME)).unwrap();
        std::os::unix::fs::symlink(&outside, &location.file).unwrap();
        let err = location.open_index().expect_err("a symlink is refused");
        assert!(err.to_string().contains("symbolic link"), "{err}");
        let locked = location.lock().unwrap();
        assert!(!outside.exists(), "the lock followed a planted symlink");
        let (_, temp) = locked.temp_file().unwrap();
        locked.publish(temp).unwrap();
        assert!(!outside.exists());
        let (_, stat) = location.open_index().unwrap().expect("published");
        assert_eq!(stat.st_mode & 0o777, 0o600);
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&location.dir), 0o700);
        assert_eq!(mode(&location.dir.join(LOCK_NAME)), 0o600);
    }

    #[test]
    fn files_open_to_others_are_doubted() {
        let dir = tempfile::tempdir().unwrap();
        let location = location(dir.path());
        drop(location.lock().unwrap());
        std::fs::write(&location.file, b"x").unwrap();
        std::fs::set_permissions(&location.file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = location.open_index().expect_err("refused");
        assert!(err.to_string().contains("mode 644"), "{err}");
    }
}
