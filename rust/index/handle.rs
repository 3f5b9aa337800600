//! A workspace's index: whether searches use it (`Mode`), opening it lazily (and again when a
//! newer build was published), building (also in the background, once a watch has seen many
//! files change), status and removal.
//!
//! Any doubt about the published file (not a private regular file of ours, a checksum or bound
//! that fails, a posting list found bad during a search) discards it: searches scan, `status`
//! says why, and it is rebuilt (at once with `Mode::On`, in the background by a long-lived
//! `Mode::Auto` workspace; a rebuild renames a new file over it). The verdict is kept per
//! version of the file, so a bad file is not copied and checked again by every search.

use super::build::{BuildStats, build};
use super::format::IndexFile;
use super::fresh::Watch;
use super::store::{FileKey, Location, file_key};
use crate::fs::walk::{WalkOptions, Walker};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A watching workspace rebuilds its index in the background once this many paths changed
/// since the build (each is searched from disk until then), or this share of its files.
pub const REBUILD_DIRTY_PATHS: usize = 256;
pub const REBUILD_DIRTY_SHARE: usize = 32; // one in 32 files
/// A rebuild waits this long first: changes come in bursts (a checkout, a formatter), and a
/// file changed just before a build is "racily clean" and still searched from disk.
const REBUILD_DELAY: std::time::Duration = std::time::Duration::from_millis(2500);
/// After a rebuild that took `t`, the next one waits at least this many times `t` (and 5 s):
/// a tree that never stops changing costs a bounded share of a core, not a rebuild loop.
const REBUILD_COOLDOWN_FACTOR: u32 = 4;

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

type Loaded = (Arc<IndexFile>, FileKey);

/// The published file found unusable, and why.
struct Discarded {
    /// Which version of the file (`None`: nothing to open, e.g. a symlink).
    key: Option<FileKey>,
    reason: String,
    /// A rebuild was started for it (once per version).
    rebuild_started: bool,
}

const DISCARDED: &str = "the index was discarded";

pub struct IndexHandle {
    mode: Mode,
    location: Option<Location>,
    current: Mutex<Option<Loaded>>,
    /// Whether searches keep an inotify watch (long-lived processes; not a one-shot CLI).
    watching: bool,
    /// The watch, when one was started (taken out by the search that uses it).
    pub watch: Mutex<Option<Watch>>,
    /// Every search re-checks every file's state (no trust in a watch).
    strict: bool,
    /// A background rebuild is under way.
    rebuilding: AtomicBool,
    /// Background rebuilds finished (for status).
    rebuilds: std::sync::atomic::AtomicU64,
    /// Builds that waited for another process's and adopted its index (for status).
    adopted: std::sync::atomic::AtomicU64,
    /// Indexes built and published through this handle (for status).
    built: std::sync::atomic::AtomicU64,
    /// When the last background rebuild finished, and how long it took.
    last_rebuild: Mutex<Option<(std::time::Instant, std::time::Duration)>>,
    /// The published file last found unusable.
    discarded: Mutex<Option<Discarded>>,
}

impl IndexHandle {
    pub fn new(
        root_real: &Path,
        options: &WalkOptions,
        mode: Mode,
        watch: bool,
        strict: bool,
    ) -> IndexHandle {
        IndexHandle {
            mode,
            location: Location::new(root_real, options),
            current: Mutex::new(None),
            // Followed links would need watches on their targets too: walk instead.
            watching: watch && !strict && !options.follow_symlinks,
            watch: Mutex::new(None),
            strict,
            rebuilding: AtomicBool::new(false),
            rebuilds: std::sync::atomic::AtomicU64::new(0),
            adopted: std::sync::atomic::AtomicU64::new(0),
            built: std::sync::atomic::AtomicU64::new(0),
            last_rebuild: Mutex::new(None),
            discarded: Mutex::new(None),
        }
    }

    /// The watch for a search to use, when this index keeps one.
    pub fn watch_slot(&self) -> Option<&Mutex<Option<Watch>>> {
        self.watching.then_some(&self.watch)
    }

    pub fn strict(&self) -> bool {
        self.strict
    }

    /// Background rebuilds finished so far, and whether one is under way.
    pub fn rebuilds(&self) -> (u64, bool) {
        (
            self.rebuilds.load(Ordering::Relaxed),
            self.rebuilding.load(Ordering::Relaxed),
        )
    }

    /// After a search: when the watch has seen many files change since the index was built
    /// (each one is searched from disk), builds a new index in the background, catches a new
    /// watch up against it and swaps both in. Searches meanwhile use the old index, or the new
    /// one with the old watch (whose changes are a superset of the new index's), so every
    /// result stays exact. One rebuild at a time; none for a strict or non-watching workspace.
    pub fn maybe_rebuild(self: &Arc<Self>, walker: impl FnOnce() -> Walker + Send + 'static) {
        if !self.watching || self.mode == Mode::Off {
            return;
        }
        let Some(files) = self.loaded().map(|index| index.file_count()) else {
            return;
        };
        let dirty = match self.watch.lock().unwrap().as_ref() {
            Some(w) if w.trusted() => w.dirty.len(),
            _ => return,
        };
        if dirty < REBUILD_DIRTY_PATHS.max(files / REBUILD_DIRTY_SHARE) {
            return;
        }
        self.spawn_rebuild(walker);
    }

    /// Builds and publishes a new index in the background (one at a time, after a cooldown),
    /// then catches a new watch up against it.
    fn spawn_rebuild(self: &Arc<Self>, walker: impl FnOnce() -> Walker + Send + 'static) {
        if let Some((done, took)) = *self.last_rebuild.lock().unwrap() {
            let cooldown = (took * REBUILD_COOLDOWN_FACTOR).max(std::time::Duration::from_secs(5));
            if done.elapsed() < cooldown {
                return;
            }
        }
        one_at_a_time(
            self,
            |me| &me.rebuilding,
            "codesift-index-rebuild",
            move |me| {
                std::thread::sleep(REBUILD_DELAY);
                let started = std::time::Instant::now();
                let walker = walker();
                if me.publish_new_build(&walker).is_ok() {
                    if let Ok(Some(index)) = me.open_current()
                        && let Some(watch) = super::watched::caught_up_watch(walker, &index)
                    {
                        super::watched::install_watch(&me.watch, watch);
                    }
                    me.rebuilds.fetch_add(1, Ordering::Relaxed);
                }
                *me.last_rebuild.lock().unwrap() =
                    Some((std::time::Instant::now(), started.elapsed()));
            },
        );
    }

    /// Builds and publishes a new index, keeping the watch (see `maybe_rebuild`).
    fn publish_new_build(&self, walker: &Walker) -> io::Result<BuildStats> {
        let location = self.location()?;
        let locked = location.lock()?;
        // Dropped on every way out but a publish: no temporary file stays behind.
        let (file, temp) = locked.temp_file()?;
        let stats = build(
            walker,
            locked.build_output(file)?,
            location.options_hash,
            &|_, _| {},
        )?;
        locked.publish(temp)?;
        Ok(stats)
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    fn location(&self) -> io::Result<&Location> {
        self.location.as_ref().ok_or_else(|| {
            io::Error::other("no cache directory: set HOME, XDG_CACHE_HOME or CODESIFT_CACHE_DIR")
        })
    }

    /// The published index, (re)opened when the file changed since it was last opened. An
    /// error that starts with `DISCARDED` means the file is there but not trusted.
    fn open_current(&self) -> io::Result<Option<Arc<IndexFile>>> {
        let location = self.location()?;
        let (file, stat) = match location.open_index() {
            Ok(Some(opened)) => opened,
            Ok(None) => return Ok(None),
            Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                return Err(self.discard(None, e.to_string()));
            }
            Err(e) => return Err(e),
        };
        let key = file_key(&stat);
        let mut current = self.current.lock().unwrap();
        if let Some((index, loaded)) = current.as_ref()
            && *loaded == key
        {
            match index.damage() {
                None => return Ok(Some(index.clone())),
                Some(why) => {
                    let why = why.to_string();
                    current.take();
                    return Err(self.discard(Some(key), why));
                }
            }
        }
        if let Some(known) = self.discarded.lock().unwrap().as_ref()
            && known.key == Some(key)
        {
            return Err(discarded(&known.reason));
        }
        let index = match IndexFile::from_file(file, stat.st_size as u64) {
            Ok(index) if index.options_hash != location.options_hash => {
                return Err(
                    self.discard(Some(key), "index file was built with other options".into())
                );
            }
            Ok(index) => Arc::new(index),
            Err(e) => return Err(self.discard(Some(key), e.to_string())),
        };
        *current = Some((index.clone(), key));
        self.discarded.lock().unwrap().take();
        Ok(Some(index))
    }

    /// Records that the published file (version `key`) is not to be trusted; the error to
    /// report. The watch's changes were relative to an index that is gone.
    fn discard(&self, key: Option<FileKey>, reason: String) -> io::Error {
        let mut known = self.discarded.lock().unwrap();
        let new = known
            .as_ref()
            .is_none_or(|d| d.key != key || (key.is_none() && d.reason != reason));
        if new {
            *known = Some(Discarded {
                key,
                reason: reason.clone(),
                rebuild_started: false,
            });
            self.watch.lock().unwrap().take();
        }
        discarded(&reason)
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
    /// A discarded index is rebuilt at once in `On` mode; in `Auto` mode a long-lived
    /// (watching) workspace rebuilds it in the background while searches scan.
    pub fn for_search(self: &Arc<Self>, walker: impl FnOnce() -> Walker) -> Option<Arc<IndexFile>> {
        if self.mode == Mode::Off {
            return None;
        }
        match self.open_current() {
            Ok(Some(index)) => Some(index),
            _ if self.mode == Mode::On => self.adopt_or_build(&walker(), false).ok(),
            Err(_) if self.watching => {
                let start = self
                    .discarded
                    .lock()
                    .unwrap()
                    .as_mut()
                    .is_some_and(|d| !std::mem::replace(&mut d.rebuild_started, true));
                if start {
                    let walker = walker();
                    self.spawn_rebuild(move || walker);
                }
                None
            }
            _ => None,
        }
    }

    /// Whether an index file is published for this root and options (a `stat`; nothing is
    /// opened): whether an `Auto` workspace has an index for the daemon to serve.
    pub fn published(&self) -> bool {
        self.mode != Mode::Off && self.location.as_ref().is_some_and(|l| l.index_exists())
    }

    /// The published index, opened, never built (while another process builds it).
    pub fn existing(&self) -> Option<Arc<IndexFile>> {
        if self.mode == Mode::Off {
            return None;
        }
        self.open_current().ok().flatten()
    }

    /// Builds the index (one build per root at a time, across processes) and publishes it.
    pub fn build(
        &self,
        walker: &Walker,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> io::Result<BuildStats> {
        let location = self.location()?;
        let cancel = walker.cancel_token();
        let locked = location.lock_unless(&|| cancel.is_cancelled())?;
        self.build_locked(location, &locked, walker, progress)
    }

    /// The published index, checked as every index is before use; else one built and
    /// published here. One index per tree: a build that had to wait for another process's
    /// (the daemon's, a workspace's, `codesift index build`) adopts what that one published
    /// instead of building the same index again.
    ///
    /// `wait`: whether to wait while another process builds (the daemon's background work);
    /// a search does not (`WouldBlock`: it scans meanwhile, and finds the index published
    /// next time), so no search hangs on a builder that is slow, stopped or stuck.
    pub fn adopt_or_build(&self, walker: &Walker, wait: bool) -> io::Result<Arc<IndexFile>> {
        if let Ok(Some(index)) = self.open_current() {
            return Ok(index);
        }
        let location = self.location()?;
        let cancel = walker.cancel_token();
        let locked = location
            .lock_unless(&|| !wait || cancel.is_cancelled())
            .map_err(|e| match e.kind() {
                io::ErrorKind::Interrupted if !wait => io::Error::new(
                    io::ErrorKind::WouldBlock,
                    "another process is building this index; scan meanwhile",
                ),
                _ => e,
            })?;
        if let Ok(Some(index)) = self.open_current() {
            self.adopted.fetch_add(1, Ordering::Relaxed);
            return Ok(index);
        }
        self.build_locked(location, &locked, walker, &|_, _| {})?;
        self.open_current()?
            .ok_or_else(|| io::Error::other("the index just built cannot be opened"))
    }

    fn build_locked(
        &self,
        location: &super::store::Location,
        locked: &super::store::Locked<'_>,
        walker: &Walker,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> io::Result<BuildStats> {
        // Dropped on every way out but a publish: no temporary file stays behind.
        let (file, temp) = locked.temp_file()?;
        let stats = build(
            walker,
            locked.build_output(file)?,
            location.options_hash,
            progress,
        )?;
        locked.publish(temp)?;
        self.built.fetch_add(1, Ordering::Relaxed);
        self.current.lock().unwrap().take();
        // The watch's changes were relative to the old index.
        self.watch.lock().unwrap().take();
        Ok(stats)
    }

    /// Indexes built here, and builds that waited for another process's and adopted its
    /// index instead.
    pub fn builds(&self) -> (u64, u64) {
        (
            self.built.load(Ordering::Relaxed),
            self.adopted.load(Ordering::Relaxed),
        )
    }

    pub fn status(&self) -> Status {
        let Ok(location) = self.location() else {
            return Status::default();
        };
        let mut status = Status {
            path: Some(location.file.clone()),
            exists: location.index_exists(),
            ..Status::default()
        };
        match self.open_current() {
            Ok(Some(index)) => {
                status.files = index.file_count();
                status.units = index.unit_count();
                status.trigrams = index.trigram_count();
                status.bytes = index.byte_len() as usize;
                status.build_start_ns = index.build_start_ns;
            }
            Ok(None) => {}
            Err(e) if e.to_string().starts_with(DISCARDED) => {
                let next = if self.rebuilds().1 {
                    "a rebuild is under way"
                } else if self.mode == Mode::On {
                    "the next search rebuilds it"
                } else {
                    "rebuild it with `codesift index build`"
                };
                status.problem = Some(format!("{e}; searches scan meanwhile ({next})"));
            }
            Err(e) => status.problem = Some(e.to_string()),
        }
        status
    }

    pub fn drop_index(&self) -> io::Result<bool> {
        let location = self.location()?;
        let locked = location.lock()?;
        self.current.lock().unwrap().take();
        self.discarded.lock().unwrap().take();
        locked.drop_index()
    }
}

fn discarded(reason: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{DISCARDED} ({reason})"),
    )
}

/// Runs `work` on a new thread named `name` unless the one flagged `running` (a flag of
/// `owner`'s) still runs: background index work happens once at a time, at the lowest CPU
/// and I/O priority (`background`). The flag is cleared when `work` ends, or at once when no
/// thread could be started.
pub(crate) fn one_at_a_time<T: Send + Sync + 'static>(
    owner: &Arc<T>,
    running: fn(&T) -> &AtomicBool,
    name: &str,
    work: impl FnOnce(&Arc<T>) + Send + 'static,
) {
    if running(owner).swap(true, Ordering::AcqRel) {
        return;
    }
    let me = owner.clone();
    let spawned = std::thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            super::background::lower_this_thread();
            work(&me);
            // Builds and catch-up walks free hundreds of megabytes, some of it only as the
            // job's captures drop: handed back here, once the job is over.
            super::build::release_freed_memory();
            running(&me).store(false, Ordering::Release);
        });
    if spawned.is_err() {
        running(owner).store(false, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::CancelToken;
    use crate::fs::root::Root;

    fn options() -> WalkOptions {
        WalkOptions::for_tests(false, 1)
    }

    fn temp_files(dir: &Path) -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "tmp"))
            .collect()
    }

    #[test]
    fn background_work_runs_at_background_priority_and_one_at_a_time() {
        struct Owner {
            running: AtomicBool,
        }
        let owner = Arc::new(Owner {
            running: AtomicBool::new(false),
        });
        let (sender, receiver) = std::sync::mpsc::channel();
        let (release, wait) = std::sync::mpsc::channel::<()>();
        one_at_a_time(
            &owner,
            |o| &o.running,
            "test-background",
            move |_| {
                sender
                    .send(super::super::background::this_thread_priority().0)
                    .unwrap();
                wait.recv().unwrap();
            },
        );
        let nice = receiver.recv().unwrap();
        assert_eq!(nice, super::super::background::NICE);
        // While it runs, a second one is not started.
        let (second, never) = std::sync::mpsc::channel();
        one_at_a_time(
            &owner,
            |o| &o.running,
            "test-background",
            move |_| {
                second.send(()).unwrap();
            },
        );
        release.send(()).unwrap();
        assert!(
            never
                .recv_timeout(std::time::Duration::from_millis(100))
                .is_err()
        );
    }

    #[test]
    fn a_build_cancelled_while_it_indexes_keeps_the_old_index_and_no_temporary_file() {
        let tree = tempfile::tempdir().unwrap();
        let cache = tempfile::tempdir().unwrap();
        for i in 0..20 {
            std::fs::write(tree.path().join(format!("f{i}.txt")), format!("line {i}\n")).unwrap();
        }
        let real = tree.path().canonicalize().unwrap();
        let mut handle = IndexHandle::new(&real, &options(), Mode::Auto, false, false);
        let location = Location::under(cache.path().to_path_buf(), &real, &options());
        handle.location = Some(location.clone());
        let walker = || Walker::new(Arc::new(Root::open(&real).unwrap()), options());
        handle.build(&walker(), &|_, _| {}).unwrap();
        let before = std::fs::read(&location.file).unwrap();
        std::fs::write(real.join("new.txt"), "a file the old index does not have\n").unwrap();

        // Cancelled once files are being indexed: after the walk, with the file half written.
        let cancel = CancelToken::new();
        let cancelled = walker().with_cancel(cancel.clone());
        let err = handle
            .build(&cancelled, &|_, _| cancel.cancel())
            .expect_err("a cancelled build succeeded");
        assert_eq!(err.kind(), io::ErrorKind::Interrupted, "{err}");
        let after = std::fs::read(&location.file).unwrap();
        assert!(after == before, "the cancelled build replaced the index");
        let left = temp_files(&location.dir);
        assert!(left.is_empty(), "temporary files left: {left:?}");
    }
}
