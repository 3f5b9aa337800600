//! A workspace's index: whether searches use it (`Mode`), opening it lazily (and again when a
//! newer build was published), building, status and removal.

use super::build::{BuildStats, build};
use super::format::IndexFile;
use super::fresh::Watch;
use super::store::Location;
use crate::fs::walk::{WalkOptions, Walker};
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// When searches use an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Never: every search scans.
    Off,
    /// When one exists for this root and these options.
    Auto,
    /// Always: the first search builds it when missing.
    On,
}

impl Mode {
    pub fn parse(text: &str) -> Option<Mode> {
        match text {
            "off" => Some(Mode::Off),
            "auto" => Some(Mode::Auto),
            "on" => Some(Mode::On),
            _ => None,
        }
    }
}

/// What `status` reports.
#[derive(Clone, Debug, Default)]
pub struct Status {
    pub path: Option<PathBuf>,
    pub exists: bool,
    pub files: usize,
    pub units: usize,
    pub trigrams: usize,
    pub bytes: usize,
    pub build_start_ns: i64,
    /// Why an index file present could not be used.
    pub problem: Option<String>,
}

type Loaded = (Arc<IndexFile>, (u64, u64));

pub struct IndexHandle {
    mode: Mode,
    location: Option<Location>,
    current: Mutex<Option<Loaded>>,
    /// Whether searches keep an inotify watch (long-lived processes; not a one-shot CLI).
    watching: bool,
    /// The watch, when one was started (taken out by the search that uses it).
    pub watch: Mutex<Option<Watch>>,
}

impl IndexHandle {
    pub fn new(root_real: &Path, options: &WalkOptions, mode: Mode, watch: bool) -> IndexHandle {
        IndexHandle {
            mode,
            location: Location::new(root_real, options),
            current: Mutex::new(None),
            // Followed links would need watches on their targets too: walk instead.
            watching: watch && !options.follow_symlinks,
            watch: Mutex::new(None),
        }
    }

    /// The watch for a search to use, when this index keeps one.
    pub fn watch_slot(&self) -> Option<&Mutex<Option<Watch>>> {
        self.watching.then_some(&self.watch)
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    fn location(&self) -> io::Result<&Location> {
        self.location.as_ref().ok_or_else(|| {
            io::Error::other("no cache directory: set HOME, XDG_CACHE_HOME or CODESIFT_CACHE_DIR")
        })
    }

    /// The published index, (re)opened when the file changed since it was last opened.
    fn open_current(&self) -> io::Result<Option<Arc<IndexFile>>> {
        let location = self.location()?;
        let meta = match std::fs::metadata(&location.file) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let id = (meta.dev(), meta.ino());
        let mut current = self.current.lock().unwrap();
        if let Some((index, loaded_id)) = current.as_ref() {
            if *loaded_id == id {
                return Ok(Some(index.clone()));
            }
        }
        let index = Arc::new(IndexFile::open(&location.file)?);
        if index.options_hash != location.options_hash {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "index file was built with other options",
            ));
        }
        *current = Some((index.clone(), id));
        Ok(Some(index))
    }

    /// The index already opened, if any (nothing is opened or built).
    pub fn loaded(&self) -> Option<Arc<IndexFile>> {
        if self.mode == Mode::Off {
            return None;
        }
        self.current
            .lock()
            .unwrap()
            .as_ref()
            .map(|(index, _)| index.clone())
    }

    /// The index a search should use: none when off, or when auto and there is none (or it is
    /// unusable: it is then rebuilt only in `On` mode, never trusted).
    pub fn for_search(&self, walker: impl FnOnce() -> Walker) -> Option<Arc<IndexFile>> {
        if self.mode == Mode::Off {
            return None;
        }
        match self.open_current() {
            Ok(Some(index)) => Some(index),
            _ if self.mode == Mode::On => {
                self.build(&walker(), &|_, _| {}).ok()?;
                self.open_current().ok().flatten()
            }
            _ => None,
        }
    }

    /// Builds the index (one build per root at a time, across processes) and publishes it.
    pub fn build(
        &self,
        walker: &Walker,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> io::Result<BuildStats> {
        let location = self.location()?;
        let _lock = location.lock()?;
        let temp = location.temp_file();
        let built = build(walker, &temp, location.options_hash, progress);
        match built {
            Ok(stats) => {
                location.publish(&temp)?;
                self.current.lock().unwrap().take();
                // The watch's changes were relative to the old index.
                self.watch.lock().unwrap().take();
                Ok(stats)
            }
            Err(e) => {
                let _ = std::fs::remove_file(&temp);
                Err(e)
            }
        }
    }

    pub fn status(&self) -> Status {
        let Ok(location) = self.location() else {
            return Status::default();
        };
        let mut status = Status {
            path: Some(location.file.clone()),
            exists: location.file.exists(),
            ..Status::default()
        };
        match self.open_current() {
            Ok(Some(index)) => {
                status.files = index.file_count();
                status.units = index.unit_count();
                status.trigrams = index.trigram_count();
                status.bytes = index.byte_len();
                status.build_start_ns = index.build_start_ns;
            }
            Ok(None) => {}
            Err(e) => status.problem = Some(e.to_string()),
        }
        status
    }

    pub fn drop_index(&self) -> io::Result<bool> {
        let location = self.location()?;
        let _lock = location.lock()?;
        self.current.lock().unwrap().take();
        location.drop_index()
    }
}
