//! One root served with one set of walk options: its index handle and watch, the freshness
//! point every answer is computed at (`RootEntry::watched`), the background catch-up, and
//! its part of `status`. What it answers is in `serve`.

use super::super::listings::Listings;
use super::super::verdicts::Verdicts;
use super::super::wire::{self, Reply, WatchStatus, WirePath};
use crate::fs::root::Root;
use crate::fs::walk::{WalkOptions, Walker};
use crate::index::format::IndexFile;
use crate::index::fresh::Watch;
use crate::index::handle::{IndexHandle, Mode, one_at_a_time};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a `select` waits for another one on the same root before answering `scan`.
const SELECT_WAIT: Duration = Duration::from_secs(2);

/// File systems whose changes made elsewhere produce no inotify events (network and
/// userspace file systems): their roots are always scanned.
const NO_EVENTS: &[(i64, &str)] = &[
    (0x6969, "nfs"),
    (0x517B, "smb"),
    (0xFF53_4D42, "cifs"),
    (0xFE53_4D42, "smb2"),
    (0x6573_5546, "fuse"),
    (0x0102_1997, "9p"),
    (0x00C3_6400, "ceph"),
    (0x5346_414F, "afs"),
    (0x0BD0_0BD0, "lustre"),
    (0x4750_4653, "gpfs"),
];

/// One root served with one set of walk options.
pub(super) struct RootEntry {
    pub(super) root: Arc<Root>,
    /// The root directory's identity when it was opened: a root removed and made anew under
    /// the same path is another root.
    pub(super) ident: (u64, u64),
    pub(super) options: WalkOptions,
    pub(super) handle: Arc<IndexHandle>,
    pub(super) select_lock: Mutex<()>,
    pub(super) catching_up: AtomicBool,
    pub(super) queries: AtomicU64,
    /// Of `queries`, the globs, and those of them answered (not `scan`).
    pub(super) globs: AtomicU64,
    pub(super) globs_answered: AtomicU64,
    pub(super) last_used: Mutex<Instant>,
    /// `codesift-rg --files` lists kept for this root (`daemon::listings`), and how many
    /// lookups found one.
    pub(super) listings: Mutex<Listings>,
    pub(super) listing_hits: AtomicU64,
    /// The verdicts of ripgrep's rules that `codesift-rg` clients decided (`daemon::verdicts`).
    pub(super) verdicts: Mutex<Verdicts>,
    /// Why this root gets no events (a network file system), if so.
    pub(super) no_events: Option<String>,
    pub(super) problem: Mutex<Option<String>>,
}

/// A root directory's identity (device, inode); (0, 0) when it cannot be examined.
pub(super) fn ident_of(root: &Root) -> (u64, u64) {
    root.stat_self().map_or((0, 0), |s| (s.st_dev, s.st_ino))
}

/// Why `root` gets no inotify events for changes made elsewhere, if so.
fn no_events(root: &Root) -> Option<String> {
    let kind = root.fs_type().ok()?;
    NO_EVENTS
        .iter()
        .find(|(magic, _)| *magic == kind)
        .map(|(_, name)| {
            format!(
                "{name} file system: changes made elsewhere raise no inotify events; queries scan"
            )
        })
}

impl RootEntry {
    /// `root` served with `options`: its index handle (used when one exists: the daemon
    /// builds only when a client asks it to), no watch yet, nothing counted.
    pub(super) fn open(root: Root, options: WalkOptions) -> RootEntry {
        let handle = Arc::new(IndexHandle::new(
            root.real_path(),
            &options,
            Mode::Auto,
            true,
            false,
        ));
        RootEntry {
            no_events: no_events(&root),
            ident: ident_of(&root),
            root: Arc::new(root),
            options,
            handle,
            select_lock: Mutex::new(()),
            catching_up: AtomicBool::new(false),
            queries: AtomicU64::new(0),
            globs: AtomicU64::new(0),
            globs_answered: AtomicU64::new(0),
            last_used: Mutex::new(Instant::now()),
            listings: Mutex::new(Listings::default()),
            listing_hits: AtomicU64::new(0),
            verdicts: Mutex::new(Verdicts::default()),
            problem: Mutex::new(None),
        }
    }

    pub(super) fn walker(&self) -> Walker {
        Walker::new(self.root.clone(), self.options.clone())
    }

    /// The answer of `answer`, given the root's index and its watch at the freshness point
    /// (drained after the request was read in full, and trusted); `answer` returns the watch
    /// to `slot`. Anything the watch cannot vouch for is `scan`. One query per root at a time
    /// (the watch is taken out while it runs); a query that would wait long scans instead, so
    /// no client stalls another. `build`: without an index, start one (else only say `scan`).
    pub(super) fn watched<T>(
        self: &Arc<Self>,
        build: bool,
        answer: impl FnOnce(&Arc<IndexFile>, &Mutex<Option<Watch>>, Watch) -> Reply<T>,
    ) -> Reply<T> {
        if let Some(why) = &self.no_events {
            return Reply::scan(why.clone(), None);
        }
        let deadline = Instant::now() + SELECT_WAIT;
        let _guard = loop {
            match self.select_lock.try_lock() {
                Ok(guard) => break guard,
                Err(std::sync::TryLockError::Poisoned(p)) => break p.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(_) => return Reply::scan("another query on this root is being answered", None),
            }
        };
        let Some(index) = self.handle.for_search(|| self.walker()) else {
            if !build {
                return Reply::scan("this root is not indexed", None);
            }
            self.catch_up();
            return Reply::scan(
                "no usable index for this root yet: one is being built",
                None,
            );
        };
        let generation = Some(index.build_start_ns);
        let Some(slot) = self.handle.watch_slot() else {
            return Reply::scan("symlinks are followed: no watch", generation);
        };
        let Some(mut watch) = slot.lock().unwrap().take() else {
            self.catch_up();
            return Reply::scan("the watch is catching up", generation);
        };
        // The freshness point: the request has been read in full, so every change completed
        // before it was sent is queued by now.
        watch.drain();
        if !watch.trusted() {
            drop(watch);
            self.catch_up();
            return Reply::scan(
                "the watch may have missed changes (overflow, a rule file changed, a \
                 directory moved): catching up",
                generation,
            );
        }
        let reply = answer(&index, slot, watch);
        let (root, options) = (self.root.clone(), self.options.clone());
        self.handle
            .maybe_rebuild(move || Walker::new(root, options));
        reply
    }

    /// In the background: builds the index when there is none, then catches a new watch up
    /// against it (a walk of the whole tree). One at a time per root.
    pub(super) fn catch_up(self: &Arc<Self>) {
        one_at_a_time(
            self,
            |me| &me.catching_up,
            "codesift-daemon-catch-up",
            |me| {
                let problem = me.catch_up_now().err();
                *me.problem.lock().unwrap() = problem;
            },
        );
    }

    fn catch_up_now(self: &Arc<Self>) -> Result<(), String> {
        // An index a workspace or `codesift index build` published for this root and these
        // options (checked as every index is) is adopted, also when it was being built
        // while this one waited to build: one index per tree.
        let index = self
            .handle
            .adopt_or_build(&self.walker(), true)
            .map_err(|e| format!("cannot build the index: {e}"))?;
        let slot = self.handle.watch_slot().ok_or("no watch")?;
        let watch = crate::index::watched::caught_up_watch(self.walker(), &index).ok_or(
            "the watch could not be caught up (too many directories for inotify, or the \
             rules changed meanwhile)",
        )?;
        crate::index::watched::install_watch(slot, watch);
        Ok(())
    }

    pub(super) fn status(&self) -> wire::RootStatus {
        let index = self.handle.status();
        let state = |state: &str| WatchStatus {
            state: state.into(),
            ..WatchStatus::default()
        };
        let watch = match (&self.no_events, self.handle.watch_slot()) {
            (Some(why), _) => WatchStatus {
                why: Some(why.clone()),
                ..state("none")
            },
            (None, None) => WatchStatus {
                why: Some("symlinks are followed".into()),
                ..state("none")
            },
            (None, Some(slot)) => match slot.lock().unwrap().as_ref() {
                Some(w) if w.trusted() => WatchStatus {
                    dirty: Some(w.dirty.len() as u64),
                    generation: Some(w.generation),
                    ..state("caught up")
                },
                Some(w) if w.broken => WatchStatus {
                    dirty: Some(w.dirty.len() as u64),
                    ..state("broken")
                },
                Some(_) => state("catching up"),
                None if self.catching_up.load(Ordering::Relaxed) => state("catching up"),
                None => state("none"),
            },
        };
        let (rebuilds, rebuilding) = self.handle.rebuilds();
        let (built, adopted) = self.handle.builds();
        // Each lock taken and released apart (a guard in the literal below would live to its
        // end, and a second lock of the same mutex there would never return).
        let (files_lists, files_lists_bytes) = {
            let listings = self.listings.lock().unwrap();
            (listings.count() as u64, listings.bytes() as u64)
        };
        let rules_verdicts = self.verdicts.lock().unwrap().count() as u64;
        let idle_seconds = self.last_used.lock().unwrap().elapsed().as_secs();
        let problem = self.problem.lock().unwrap().clone();
        wire::RootStatus {
            root: WirePath::from(self.root.real_path()),
            options: self.options.clone(),
            index: wire::IndexStatus {
                path: index.path.as_deref().map(WirePath::from),
                exists: index.exists,
                generation: (index.build_start_ns != 0).then_some(index.build_start_ns),
                files: index.files as u64,
                bytes: index.bytes as u64,
                problem: index.problem,
                built,
                adopted,
            },
            watch,
            catching_up: self.catching_up.load(Ordering::Relaxed),
            rebuilds,
            rebuilding,
            queries: self.queries.load(Ordering::Relaxed),
            glob_queries: self.globs.load(Ordering::Relaxed),
            glob_answers: self.globs_answered.load(Ordering::Relaxed),
            files_lists,
            files_lists_bytes,
            files_list_hits: self.listing_hits.load(Ordering::Relaxed),
            rules_verdicts,
            idle_seconds,
            problem,
        }
    }
}
