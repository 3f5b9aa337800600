//! Where an index lives and how a new one is published: under the user cache directory
//! (`$CODESIFT_CACHE_DIR`, else `$XDG_CACHE_HOME/codesift`, else `~/.cache/codesift`), never in
//! the tree; one directory per root (a hash of its real path), one file per set of walk options
//! (they change which files exist for a search). A build holds an exclusive `flock` on the
//! directory's lock file, writes a temporary file and renames it over the index: readers that
//! mapped the old file keep it, new readers get the new one, and a build killed halfway leaves
//! the old index usable.

use crate::fs::walk::WalkOptions;
use rustix::fs::FlockOperation;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::ffi::OsStrExt;
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

/// Where the index of `root` (its real path) built with `options` is.
#[derive(Clone, Debug)]
pub struct Location {
    pub dir: PathBuf,
    pub file: PathBuf,
    pub options_hash: u64,
}

impl Location {
    pub fn new(root_real: &Path, options: &WalkOptions) -> Option<Location> {
        let dir = cache_root()?.join(format!(
            "{:016x}",
            stable_hash(&[root_real.as_os_str().as_bytes()])
        ));
        let options_hash = options_hash(options);
        let file = dir.join(format!("index-{options_hash:016x}.bin"));
        Some(Location {
            dir,
            file,
            options_hash,
        })
    }

    /// Takes the build lock (blocking): one build per root at a time.
    pub fn lock(&self) -> io::Result<File> {
        std::fs::create_dir_all(&self.dir)?;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.dir.join("build.lock"))?;
        rustix::fs::flock(&lock, FlockOperation::LockExclusive)?;
        self.remove_stale_temps();
        Ok(lock)
    }

    /// Removes the temporary files of builds that were killed (or whose process exited during
    /// a background rebuild): builds write them only while holding the lock, so with the lock
    /// held every one of them is stale. An index is hundreds of MiB; they must not pile up.
    fn remove_stale_temps(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.as_bytes();
            if name.starts_with(b".index-") && name.ends_with(b".tmp") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }

    /// A fresh temporary path next to the index, for a build to write.
    pub fn temp_file(&self) -> PathBuf {
        let mut random = [0u8; 8];
        let _ = rustix::rand::getrandom(&mut random, rustix::rand::GetRandomFlags::empty());
        self.dir
            .join(format!(".index-{:016x}.tmp", u64::from_le_bytes(random)))
    }

    /// Publishes a finished temporary file as the index.
    pub fn publish(&self, temp: &Path) -> io::Result<()> {
        std::fs::rename(temp, &self.file)?;
        if let Ok(dir) = File::open(&self.dir) {
            let _ = dir.sync_all();
        }
        Ok(())
    }

    /// Removes the index (the caller holds the lock, which removed temporary files of killed
    /// builds).
    pub fn drop_index(&self) -> io::Result<bool> {
        let existed = self.file.exists();
        if existed {
            std::fs::remove_file(&self.file)?;
        }
        Ok(existed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taking_the_lock_removes_what_killed_builds_left() {
        let dir = tempfile::tempdir().unwrap();
        let location = Location {
            dir: dir.path().to_path_buf(),
            file: dir.path().join("index-0.bin"),
            options_hash: 0,
        };
        let stale = location.temp_file();
        std::fs::write(&stale, b"half an index").unwrap();
        std::fs::write(&location.file, b"the published index").unwrap();
        let _lock = location.lock().unwrap();
        assert!(
            !stale.exists(),
            "a killed build's temporary file stays behind"
        );
        assert!(location.file.exists(), "the published index is kept");
    }
}
