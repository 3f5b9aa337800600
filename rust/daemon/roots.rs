//! The daemon's roots: one index handle and one watch per root (keyed by its real path and
//! the walk options, which decide which files the index holds), reused from `index::handle`
//! and `index::fresh`; what `select` answers (the selection itself is the indexed search's,
//! `search::select_watched`) and what `glob` answers (the indexed glob's own outcome,
//! `glob::glob_indexed`); catching a watch up (and building a missing index) in the
//! background; and the per-root part of `status`.
//!
//! Freshness: the watch is drained after the request was read in full and before the answer
//! is computed. The kernel queues an inotify event inside the system call that made the
//! change, so every change that completed before the client sent its request is in the
//! queue by then. Anything the watch cannot vouch for (not caught up, overflowed, a rule file
//! changed, a file system without events) is answered `scan`, never a stale selection.

use super::listings::{Listings, MAX_KEY};
use super::verdicts::Verdicts;
use super::wire::{
    self, Globbed, GlobbedFile, Listing, Reply, Selection, Skip, SkipPaths, Stored, WatchStatus,
    WirePath, WireSpans,
};
use crate::fs::root::Root;
use crate::fs::rules::RuleOptions;
use crate::fs::walk::{WalkOptions, Walker};
use crate::glob::GlobQuery;
use crate::index::format::IndexFile;
use crate::index::fresh::Watch;
use crate::index::handle::{IndexHandle, Mode, one_at_a_time};
use crate::index::watched::IndexUse;
use crate::request::GrepRequest;
use crate::search::GrepQuery;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Roots kept at once; the least recently used idle one is dropped beyond (memory stays
/// bounded by this many indexes and watches).
pub const MAX_ROOTS: usize = 32;
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
pub struct RootEntry {
    root: Arc<Root>,
    /// The root directory's identity when it was opened: a root removed and made anew under
    /// the same path is another root.
    ident: (u64, u64),
    options: WalkOptions,
    handle: Arc<IndexHandle>,
    select_lock: Mutex<()>,
    catching_up: AtomicBool,
    queries: AtomicU64,
    /// Of `queries`, the globs, and those of them answered (not `scan`).
    globs: AtomicU64,
    globs_answered: AtomicU64,
    last_used: Mutex<Instant>,
    /// `codesift-rg --files` lists kept for this root (`daemon::listings`), and how many
    /// lookups found one.
    listings: Mutex<Listings>,
    listing_hits: AtomicU64,
    /// The verdicts of ripgrep's rules that `codesift-rg` clients decided (`daemon::verdicts`).
    verdicts: Mutex<Verdicts>,
    /// Why this root gets no events (a network file system), if so.
    no_events: Option<String>,
    problem: Mutex<Option<String>>,
}

type Key = (PathBuf, u64);

#[derive(Default)]
pub struct Roots {
    map: Mutex<HashMap<Key, Arc<RootEntry>>>,
}

/// A request that cannot be served, as the error to reply.
pub struct BadRequest(pub String);

fn ident_of(root: &Root) -> (u64, u64) {
    root.stat_self().map_or((0, 0), |s| (s.st_dev, s.st_ino))
}

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

impl Roots {
    /// The entry of `root` with `options`, opened (or replaced) as needed.
    fn entry(&self, root: Root, options: WalkOptions) -> Arc<RootEntry> {
        let key = (
            root.real_path().to_path_buf(),
            crate::index::store::options_hash(&options),
        );
        let ident = ident_of(&root);
        let mut map = self.map.lock().unwrap();
        if let Some(entry) = map.get(&key)
            && entry.ident == ident
        {
            *entry.last_used.lock().unwrap() = Instant::now();
            return entry.clone();
        }
        if map.len() >= MAX_ROOTS && !map.contains_key(&key) {
            // Only an entry no request holds is dropped (its background work keeps its own).
            let oldest = map
                .iter()
                .filter(|(_, e)| Arc::strong_count(e) == 1)
                .min_by_key(|(_, e)| *e.last_used.lock().unwrap())
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                map.remove(&oldest);
            }
        }
        let handle = Arc::new(IndexHandle::new(
            root.real_path(),
            &options,
            Mode::Auto,
            true,
            false,
        ));
        let entry = Arc::new(RootEntry {
            no_events: no_events(&root),
            root: Arc::new(root),
            ident,
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
        });
        map.insert(key, entry.clone());
        entry
    }

    /// Whether a background build or catch-up runs (the daemon does not exit idle then).
    pub fn busy(&self) -> bool {
        self.map
            .lock()
            .unwrap()
            .values()
            .any(|e| e.catching_up.load(Ordering::Relaxed) || e.handle.rebuilds().1)
    }

    /// The `select` reply to `request` (see docs/daemon.md), with its files (and the parts
    /// of them that can hold a match) in a bulk frame (`super::bulk`) when `bulk`.
    pub fn select(
        &self,
        request: &wire::Select,
        bulk: bool,
    ) -> Result<Bulky<Selection>, BadRequest> {
        let mut parsed = parse_select(request)?;
        let (entry, inside) = match self.served_below(&parsed.target)? {
            Ok(found) => found,
            Err(reply) => return Ok((reply.into_any(), None)),
        };
        parsed.query.search_path = inside.join(&parsed.query.search_path);
        Ok(entry.select(&parsed, &inside, bulk))
    }

    /// The `glob` reply to `request` (see docs/daemon.md), with its files in a bulk frame
    /// (`super::bulk`) when `bulk`.
    pub fn glob(&self, request: &wire::Glob, bulk: bool) -> Result<Bulky<Globbed>, BadRequest> {
        let target = parse_target(&request.target)?;
        if target.every {
            return Err(BadRequest(
                "walk.all_files is for select: a glob applies the walk options it is given".into(),
            ));
        }
        let mut glob = request
            .glob
            .clone()
            .ok_or(BadRequest("glob is required".into()))?;
        if glob.hidden.is_some() || glob.no_ignore.is_some() {
            return Err(BadRequest(
                "glob.hidden and glob.no_ignore are not sent: the walk options go in walk".into(),
            ));
        }
        glob.search_path = target.search_path.clone();
        let query = glob.query().map_err(|e| BadRequest(e.to_string()))?;
        let entry = match self.entry_for(&target)? {
            Ok(entry) => entry,
            Err(reply) => return Ok((reply.into_any(), None)),
        };
        entry.globs.fetch_add(1, Ordering::Relaxed);
        let reply = entry.glob(&query, target.build, bulk);
        if matches!(reply.0, Reply::Answer(_)) {
            entry.globs_answered.fetch_add(1, Ordering::Relaxed);
        }
        Ok(reply)
    }

    /// The `rules` reply to `request` (see docs/daemon.md): keeps the verdicts of ripgrep's
    /// rules a client decided for the paths a select left undecided.
    pub fn rules(&self, request: &wire::Rules) -> Result<Reply<Stored>, BadRequest> {
        let target = rg_target(&request.target, "rules verdicts")?;
        let key = key_field(&request.key, "key")?.ok_or(BadRequest("key is required".into()))?;
        let token = request
            .token
            .clone()
            .ok_or(BadRequest("token is required".into()))?;
        let mut verdicts = Vec::new();
        for (name, paths, keep) in [
            ("kept", &request.kept, true),
            ("dropped", &request.dropped, false),
        ] {
            for WirePath(path) in paths {
                if !is_plain_relative(path) {
                    return Err(BadRequest(format!(
                        "{name} must hold paths relative to the root, without . or .."
                    )));
                }
                verdicts.push((path.clone(), keep));
            }
        }
        let (entry, inside) = match self.served_below(&target)? {
            Ok(found) => found,
            Err(reply) => return Ok(reply.into_any()),
        };
        let verdicts = verdicts
            .into_iter()
            .map(|(path, keep)| (inside.join(path), keep))
            .collect();
        Ok(entry.store_verdicts(&key, &token, verdicts))
    }

    /// The `files` reply to `request` (see docs/daemon.md): the list kept under the client's
    /// key when the tree has not changed since it was taken, else `miss` with the token the
    /// client stores its own walk's list under (`store`).
    pub fn files(&self, request: &wire::Files) -> Result<Reply<Listing>, BadRequest> {
        let target = rg_target(&request.target, "files lists")?;
        let key = key_field(&request.key, "key")?.ok_or(BadRequest("key is required".into()))?;
        let store = match &request.store {
            None => None,
            Some(store) => Some((
                store
                    .token
                    .clone()
                    .ok_or(BadRequest("store.token is required".into()))?,
                store
                    .files
                    .clone()
                    .ok_or(BadRequest("store.files is required".into()))?,
            )),
        };
        // A directory inside a root served already is answered by that root's watch (the
        // token covers its whole tree); `.git` is not watched.
        let covering = self.covering(&target);
        let entry = match covering {
            Some(entry) => entry,
            None => match self.entry_for(&target)? {
                Ok(entry) => entry,
                Err(reply) => return Ok(reply.into_any()),
            },
        };
        Ok(entry.files(&key, store, target.build))
    }

    /// For a `codesift-rg` client (`walk.all_files`): the entry of a root served already
    /// whose tree holds `target.root`, and where in it (its files are answered relative to
    /// `target.root`); else the entry of `target.root` itself (`entry_for`).
    #[allow(clippy::type_complexity)]
    fn served_below(
        &self,
        target: &Target,
    ) -> Result<Result<(Arc<RootEntry>, PathBuf), NotServed>, BadRequest> {
        if target.every
            && target.ident.is_none()
            && let Some(entry) = self.covering(target)
            && let Ok(inside) = target.root.strip_prefix(entry.root.real_path())
            && !inside.as_os_str().is_empty()
        {
            return Ok(Ok((entry.clone(), inside.to_path_buf())));
        }
        Ok(self.entry_for(target)?.map(|entry| (entry, PathBuf::new())))
    }

    /// The entry with `target`'s options whose root holds `target.root` (the innermost),
    /// when one is served and the directory is not in a `.git`.
    fn covering(&self, target: &Target) -> Option<Arc<RootEntry>> {
        // Only a plain path names a directory below by its components (`root/../other`
        // starts with `root` and is not in it).
        let plain = target
            .root
            .components()
            .all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
        if !plain {
            return None;
        }
        let options = crate::index::store::options_hash(&target.options);
        let map = self.map.lock().unwrap();
        let entry = map
            .iter()
            .filter(|((path, hash), _)| *hash == options && target.root.starts_with(path))
            .max_by_key(|((path, _), _)| path.as_os_str().len())
            .map(|(_, entry)| entry.clone())?;
        drop(map);
        let inside = target.root.strip_prefix(entry.root.real_path()).ok()?;
        if inside.components().any(|c| c.as_os_str() == ".git") {
            return None;
        }
        // A root removed and made anew under its path is not the tree the watch follows.
        let now = Root::open(entry.root.real_path()).ok()?;
        if ident_of(&now) != entry.ident {
            return None;
        }
        entry.queries.fetch_add(1, Ordering::Relaxed);
        *entry.last_used.lock().unwrap() = Instant::now();
        Some(entry)
    }

    /// The entry that answers a query about `target` (counted), or the reply when none may.
    fn entry_for(&self, target: &Target) -> Result<Result<Arc<RootEntry>, NotServed>, BadRequest> {
        let root = Root::open(&target.root).map_err(|e| {
            BadRequest(format!(
                "cannot open the root {}: {e}",
                target.root.display()
            ))
        })?;
        // A client holding another directory under that name (the root was replaced since
        // it opened it) would read other files than those selected: it scans.
        if let Some(ident) = target.ident
            && ident != ident_of(&root)
        {
            return Ok(Err(NotServed(
                "the root at this path is not the client's directory".into(),
            )));
        }
        let entry = self.entry(root, target.options.clone());
        entry.queries.fetch_add(1, Ordering::Relaxed);
        Ok(Ok(entry))
    }

    pub fn status(&self) -> Vec<wire::RootStatus> {
        let mut entries: Vec<Arc<RootEntry>> = self.map.lock().unwrap().values().cloned().collect();
        entries.sort_by(|a, b| a.root.real_path().cmp(b.root.real_path()));
        entries.iter().map(|e| e.status()).collect()
    }
}

/// A reply, and the bulk frame that follows it (its length announced as `bulk_frame`).
pub type Bulky<T> = (Reply<T>, Option<Vec<u8>>);

/// A query that no root entry may answer, and why: the client scans.
pub struct NotServed(String);

impl NotServed {
    fn into_any<T>(self) -> Reply<T> {
        Reply::scan(self.0, None)
    }
}

fn scan<T>(reason: impl Into<String>, generation: Option<i64>) -> Reply<T> {
    Reply::scan(reason, generation)
}

/// A path made of names only (no root, `.` or `..`): what a root's files are called.
fn is_plain_relative(path: &Path) -> bool {
    path.components().next().is_some()
        && path.components().all(|c| matches!(c, Component::Normal(_)))
}

/// What a walk passed over, each example with its kind (a directory is shown with a `/`),
/// for clients that replay the summary field by field; the reasons counted at least once.
fn skips(
    report: &[(
        crate::fs::skipped::Reason,
        u64,
        Vec<crate::fs::skipped::Example>,
    )],
) -> Vec<Skip> {
    report
        .iter()
        .filter(|(_, count, _)| *count > 0)
        .map(|(reason, count, examples)| {
            let examples = examples
                .iter()
                .map(|e| (WirePath::from(e.path.as_path()), e.is_dir))
                .collect();
            Skip(reason.name().to_string(), *count, examples)
        })
        .collect()
}

impl RootEntry {
    fn walker(&self) -> Walker {
        Walker::new(self.root.clone(), self.options.clone())
    }

    /// The answer of `answer`, given the root's index and its watch at the freshness point
    /// (drained after the request was read in full, and trusted); `answer` returns the watch
    /// to `slot`. Anything the watch cannot vouch for is `scan`. One query per root at a time
    /// (the watch is taken out while it runs); a query that would wait long scans instead, so
    /// no client stalls another. `build`: without an index, start one (else only say `scan`).
    fn watched<T>(
        self: &Arc<Self>,
        build: bool,
        answer: impl FnOnce(&Arc<IndexFile>, &Mutex<Option<Watch>>, Watch) -> Reply<T>,
    ) -> Reply<T> {
        if let Some(why) = &self.no_events {
            return scan(why.clone(), None);
        }
        let deadline = Instant::now() + SELECT_WAIT;
        let _guard = loop {
            match self.select_lock.try_lock() {
                Ok(guard) => break guard,
                Err(std::sync::TryLockError::Poisoned(p)) => break p.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(_) => return scan("another query on this root is being answered", None),
            }
        };
        let Some(index) = self.handle.for_search(|| self.walker()) else {
            if !build {
                return scan("this root is not indexed", None);
            }
            self.catch_up();
            return scan(
                "no usable index for this root yet: one is being built",
                None,
            );
        };
        let generation = Some(index.build_start_ns);
        let Some(slot) = self.handle.watch_slot() else {
            return scan("symlinks are followed: no watch", generation);
        };
        let Some(mut watch) = slot.lock().unwrap().take() else {
            self.catch_up();
            return scan("the watch is catching up", generation);
        };
        // The freshness point: the request has been read in full, so every change completed
        // before it was sent is queued by now.
        watch.drain();
        if !watch.trusted() {
            drop(watch);
            self.catch_up();
            return scan(
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

    /// The answer to `request` (its query's search path already made this root's):
    /// `target.every` asks for the `all_files` answer (binary files listed, an unnarrowed
    /// pattern lists every file); `target.build`: without an index, start one (else only
    /// say `scan`). The files are named from `inside`, the directory asked about.
    fn select(
        self: &Arc<Self>,
        request: &SelectRequest,
        inside: &Path,
        bulk: bool,
    ) -> Bulky<Selection> {
        let SelectRequest {
            target,
            query,
            rules,
            pattern,
            list_unnarrowed,
        } = request;
        let (every, list_unnarrowed, rules) = (target.every, *list_unnarrowed, rules.as_deref());
        let mut frame = None;
        let reply = self.watched(target.build, |index, slot, watch| {
            let generation = Some(index.build_start_ns);
            let watch_generation = watch.generation;
            let (selected, watch) = crate::search::select_watched_with(
                self.walker(),
                query,
                pattern,
                index,
                watch,
                every,
                list_unnarrowed,
            );
            let selected = match selected {
                Ok(selected) => selected,
                Err(e) => {
                    // A bad search path costs the root nothing: its watch stays.
                    crate::index::watched::install_watch(slot, watch);
                    return Reply::invalid(e.to_string());
                }
            };
            // Read after the selection walked and watched the directories made since the last
            // one: a rule file created in one later moves the token.
            let rules_token = watch.rules_token();
            // Where `.git` entries are, below the directory asked about: a client whose
            // rules enter them (ripgrep's `--hidden`) lists them from disk.
            let git_dirs: Vec<WirePath> = watch
                .git_entries
                .iter()
                .filter_map(|git| git.parent()?.strip_prefix(inside).ok())
                .map(WirePath::from)
                .collect();
            crate::index::watched::install_watch(slot, watch);
            let mut selection = match selected {
                Err(why) => return scan(why, generation),
                Ok(selection) => selection,
            };
            // Files the rules drop (as decided at this token) are left out; the client
            // applies the rules to those undecided only.
            let mut undecided = None;
            if let Some(key) = rules {
                let mut verdicts = self.verdicts.lock().unwrap();
                if let Some(keeps) = verdicts.lookup(key, &rules_token) {
                    let files = std::mem::take(&mut selection.files)
                        .into_iter()
                        .zip(std::mem::take(&mut selection.spans))
                        .collect();
                    let (files, open) = super::verdicts::apply(keeps, files);
                    (selection.files, selection.spans) = files.into_iter().unzip();
                    undecided = Some(open.into_iter().map(|i| i as u64).collect());
                }
            }
            // Asked about a directory inside this root: its files, named from there.
            if !inside.as_os_str().is_empty() {
                for file in &mut selection.files {
                    if let Ok(rel) = file.strip_prefix(inside) {
                        *file = rel.to_path_buf();
                    }
                }
            }
            let stats = selection.walker.stats();
            let report = stats.skipped.report();
            let skipped = report
                .iter()
                .filter(|(_, count, _)| *count > 0)
                .map(|(reason, count, examples)| {
                    let examples = examples
                        .iter()
                        .map(|e| WirePath::from(e.path.as_path()))
                        .collect();
                    SkipPaths(reason.name().to_string(), *count, examples)
                })
                .collect();
            let mut reply = Selection {
                ok: true,
                files: None,
                bulk_frame: None,
                spans: None,
                binary: selection.binary,
                ignored: stats.ignored(),
                unreadable: stats.errors(),
                skips: skips(&report),
                skipped,
                generation,
                watch_generation: Some(watch_generation),
                trusted: true,
                rules_token: rules.map(|_| rules_token),
                git_dirs: every.then_some(git_dirs),
                undecided,
            };
            let any_spans = selection.spans.iter().any(Option::is_some);
            if bulk {
                let spans = any_spans.then_some(selection.spans.as_slice());
                let bytes = super::bulk::encode_with(
                    selection.files.iter().map(PathBuf::as_path),
                    None,
                    spans,
                );
                reply.bulk_frame = Some(bytes.len() as u64);
                frame = Some(bytes);
            } else {
                reply.files = Some(selection.files.into_iter().map(WirePath).collect());
                reply.spans = any_spans.then(|| {
                    selection
                        .spans
                        .iter()
                        .map(|s| s.as_ref().map(WireSpans::from))
                        .collect()
                });
            }
            Reply::Answer(reply)
        });
        (reply, frame)
    }

    /// Keeps the verdicts a client decided since the select that answered `asked_at`, when
    /// the rules token has not moved since (see `daemon::verdicts`).
    fn store_verdicts(
        self: &Arc<Self>,
        key: &str,
        asked_at: &str,
        verdicts: Vec<(PathBuf, bool)>,
    ) -> Reply<Stored> {
        self.watched(false, |index, slot, watch| {
            let generation = Some(index.build_start_ns);
            let token = watch.rules_token();
            crate::index::watched::install_watch(slot, watch);
            let stored = self
                .verdicts
                .lock()
                .unwrap()
                .store(key, asked_at, &token, verdicts);
            Reply::Answer(Stored {
                ok: true,
                stored,
                generation,
            })
        })
    }

    /// The glob's outcome as the indexed glob of a workspace with this index and watch finds
    /// it (`glob::glob_indexed`), every field; `scan` when they cannot answer it.
    fn glob(self: &Arc<Self>, query: &GlobQuery, build: bool, bulk: bool) -> Bulky<Globbed> {
        let mut frame = None;
        let reply = self.watched(build, |index, slot, watch| {
            let generation = Some(index.build_start_ns);
            let watch_generation = watch.generation;
            crate::index::watched::install_watch(slot, watch);
            let walker = self.walker();
            let using = IndexUse {
                file: index,
                watch: Some(slot),
            };
            let outcome = match crate::glob::glob_indexed(&walker, query, using) {
                Err(e) => return Reply::invalid(e.to_string()),
                Ok(None) => return scan("the watch cannot answer this glob", generation),
                Ok(Some(outcome)) => outcome,
            };
            let mut reply = Globbed {
                ok: true,
                files: None,
                bulk_frame: None,
                total: outcome.total as u64,
                truncated: outcome.truncated,
                ignored: outcome.ignored,
                errors: outcome.errors,
                search_path: WirePath(outcome.search_path.clone()),
                skips: skips(&outcome.skipped),
                generation,
                watch_generation: Some(watch_generation),
                trusted: true,
            };
            if bulk {
                let metadata: Vec<_> = outcome.files.iter().map(|f| f.metadata).collect();
                let bytes = super::bulk::encode(
                    outcome.files.iter().map(|f| f.path.as_path()),
                    Some(&metadata),
                );
                reply.bulk_frame = Some(bytes.len() as u64);
                frame = Some(bytes);
            } else {
                reply.files = Some(
                    outcome
                        .files
                        .into_iter()
                        .map(|f| {
                            let (mtime_ms, size) = f.metadata.unzip();
                            GlobbedFile(WirePath(f.path), mtime_ms, size)
                        })
                        .collect(),
                );
            }
            Reply::Answer(reply)
        });
        (reply, frame)
    }

    /// A kept list of files, or `miss` with the token to store one under (`store`: keep the
    /// client's list, taken since the miss that gave `token`).
    fn files(
        self: &Arc<Self>,
        key: &str,
        store: Option<(String, String)>,
        build: bool,
    ) -> Reply<Listing> {
        self.watched(build, |index, slot, watch| {
            let generation = Some(index.build_start_ns);
            // The token vouches only for directories the watch follows: a directory created
            // or moved in since the last walk is walked and watched first (else a file made
            // inside it later would move no token).
            let (_, _, mut watch) =
                crate::index::fresh::dirty_files(self.walker(), watch, &[PathBuf::new()], &|_| {
                    false
                });
            watch.drain();
            if !watch.trusted() {
                crate::index::watched::install_watch(slot, watch);
                self.catch_up();
                return scan("the watch may have missed changes: catching up", generation);
            }
            let token = watch.listing_token();
            crate::index::watched::install_watch(slot, watch);
            let mut listings = self.listings.lock().unwrap();
            match store {
                Some((walked_at, files)) => {
                    let stored = listings.store(key, &walked_at, &token, &files);
                    Reply::Answer(Listing {
                        ok: true,
                        stored: Some(stored),
                        generation,
                        ..Listing::default()
                    })
                }
                None => match listings.lookup(key, &token) {
                    Some(files) => {
                        self.listing_hits.fetch_add(1, Ordering::Relaxed);
                        Reply::Answer(Listing {
                            ok: true,
                            files: Some(files.to_string()),
                            generation,
                            ..Listing::default()
                        })
                    }
                    None => Reply::Answer(Listing {
                        ok: true,
                        miss: Some(token),
                        generation,
                        ..Listing::default()
                    }),
                },
            }
        })
    }

    /// In the background: builds the index when there is none, then catches a new watch up
    /// against it (a walk of the whole tree). One at a time per root.
    fn catch_up(self: &Arc<Self>) {
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
        crate::index::build::release_freed_memory();
        Ok(())
    }

    fn status(&self) -> wire::RootStatus {
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

/// What every query names: the root, the directory searched and the walk options.
struct Target {
    root: PathBuf,
    /// The client's root directory (device, inode), when it says.
    ident: Option<(u64, u64)>,
    /// The directory searched, root-relative.
    search_path: PathBuf,
    options: WalkOptions,
    /// `walk.all_files`: the index of every file.
    every: bool,
    /// Without an index, start one (else only say `scan`).
    build: bool,
}

struct SelectRequest {
    target: Target,
    query: GrepQuery,
    /// A `codesift-rg` client's key for the verdicts of its rules (`daemon::verdicts`).
    rules: Option<String>,
    /// Compiled once, when the request is checked (a Unicode class takes milliseconds).
    pattern: crate::grep::CompiledPattern,
    /// With `every`: a pattern the index does not narrow lists every file (else: `scan`).
    list_unnarrowed: bool,
}

/// A client's key (a string of at most `MAX_KEY` bytes), if given.
fn key_field(key: &Option<String>, name: &str) -> Result<Option<String>, BadRequest> {
    if key.as_ref().is_some_and(|k| k.len() > MAX_KEY) {
        return Err(BadRequest(format!(
            "{name} is over the limit of {MAX_KEY} bytes"
        )));
    }
    Ok(key.clone())
}

/// The target of a request only `codesift-rg` makes (`walk.all_files`), about `what`.
fn rg_target(request: &wire::Target, what: &str) -> Result<Target, BadRequest> {
    let target = parse_target(request)?;
    if !target.every {
        return Err(BadRequest(format!(
            "{what} are kept for walk.all_files roots (codesift-rg)"
        )));
    }
    Ok(target)
}

fn parse_target(request: &wire::Target) -> Result<Target, BadRequest> {
    let root = request.root.0.clone();
    if !root.is_absolute() {
        return Err(BadRequest("root must be an absolute path".into()));
    }
    let search_path = request.path.clone().unwrap_or_default().0;
    let walk = request.walk.clone().unwrap_or_default();
    // `all_files`: the index of every file (no ignore or access-ignore rules, hidden files,
    // links not followed; `.git` never), for a client that applies its own rules at query
    // time from the path table (`codesift-rg`). It overrides the other walk options.
    let options = if walk.all_files {
        WalkOptions {
            rules: RuleOptions {
                gitignore: false,
                access_files: vec![],
            },
            hidden: true,
            follow_symlinks: false,
            max_filesize: None,
            threads: 0,
        }
    } else {
        WalkOptions {
            threads: 0,
            ..walk.options
        }
    };
    Ok(Target {
        root,
        ident: request.root_id,
        search_path,
        options,
        every: walk.all_files,
        build: request.build.unwrap_or(true),
    })
}

/// The engine's grep request a `select` carries (`pattern`), with the filters beside it
/// when given (hand-written requests and `codesift-rg` put them there), the search path
/// the request names, and none of the options that do not choose files: no limit (a
/// selection lists every file that may match), no paging, no time limit.
fn grep_request(request: &wire::Select, search_path: &Path) -> Result<GrepRequest, BadRequest> {
    let Some(mut grep) = request.pattern.clone() else {
        return Err(BadRequest(
            "pattern is required: an object with the pattern and its options".into(),
        ));
    };
    if grep.hidden.is_some() || grep.no_ignore.is_some() {
        return Err(BadRequest(
            "pattern.hidden and pattern.no_ignore are not sent: the walk options go in walk".into(),
        ));
    }
    for (beside, field) in [
        (&request.include, &mut grep.include),
        (&request.exclude, &mut grep.exclude),
        (&request.types, &mut grep.types),
        (&request.types_not, &mut grep.types_not),
    ] {
        if let Some(beside) = beside {
            *field = beside.clone();
        }
    }
    grep.max_matches = None;
    grep.offset = 0;
    grep.count_total = false;
    grep.stream = false;
    grep.timeout = None;
    grep.search_path = search_path.to_path_buf();
    Ok(grep)
}

fn parse_select(request: &wire::Select) -> Result<SelectRequest, BadRequest> {
    let target = parse_target(&request.target)?;
    let query = grep_request(request, &target.search_path)?
        .query()
        .map_err(|e| BadRequest(e.to_string()))?;
    // A pattern that does not compile is the client's error, before any index work.
    let pattern = query.compiled().map_err(|e| BadRequest(e.to_string()))?;
    let rules = key_field(&request.rules, "rules")?;
    if rules.is_some() && !target.every {
        return Err(BadRequest(
            "rules verdicts are kept for walk.all_files roots (codesift-rg)".into(),
        ));
    }
    let list_unnarrowed = request
        .target
        .walk
        .as_ref()
        .and_then(|w| w.list_unnarrowed)
        .unwrap_or(true);
    Ok(SelectRequest {
        target,
        query,
        rules,
        pattern,
        list_unnarrowed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn parsed(mut request: Value) -> Result<SelectRequest, String> {
        request["op"] = json!("select");
        let body = serde_json::to_vec(&request).unwrap();
        match wire::parse(&body).request {
            Ok(wire::Envelope {
                request: wire::Request::Select(select),
                ..
            }) => parse_select(&select).map_err(|e| e.0),
            Ok(other) => panic!("{request} read as {other:?}"),
            Err(refused) => Err(refused.error.message),
        }
    }

    #[test]
    fn a_select_carries_the_engines_grep_request_with_the_wires_defaults() {
        // As codesift-rg asks: no case_sensitive means case-sensitive, no limit.
        let rg = parsed(json!({
            "op": "select", "root": "/r", "path": "",
            "walk": {"all_files": true, "list_unnarrowed": false}, "build": false,
            "pattern": {"pattern": "foo", "literal": false, "multiline": false},
        }))
        .unwrap();
        assert!(rg.query.pattern.case_sensitive);
        assert_eq!(rg.query.max_matches, None);
        assert!(rg.target.every && !rg.target.build && !rg.list_unnarrowed);
        // As the engine's client asks (nulls are left out; filters beside the pattern).
        let client = parsed(json!({
            "op": "select", "root": "/r", "path": "sub",
            "pattern": {"pattern": "x", "literal": true, "case_sensitive": false,
                        "multiline": null, "before": 2, "after": null},
            "include": ["*.rs"], "exclude": [], "types": ["c"], "types_not": [],
        }))
        .unwrap();
        let pattern = &client.query.pattern;
        assert!(pattern.literal && !pattern.case_sensitive);
        assert_eq!(
            (pattern.multiline, pattern.before, pattern.after),
            (None, 2, 0)
        );
        assert_eq!(client.query.include, vec!["*.rs".to_string()]);
        assert!(client.query.types.is_some());
        assert_eq!(client.query.search_path, PathBuf::from("sub"));
    }

    #[test]
    fn a_select_with_bad_fields_is_refused_with_what_is_wrong() {
        for (request, expected) in [
            (json!({"root": "/r"}), "pattern is required"),
            (
                json!({"root": "/r", "pattern": {}}),
                "pattern.pattern is required",
            ),
            (
                json!({"root": "/r", "pattern": {"pattern": "x", "colour": 1}}),
                "unknown field",
            ),
            (
                json!({"root": "/r", "pattern": {"pattern": "x", "before": -1}}),
                "before must be at least 0",
            ),
            (json!({"root": "/r", "pattern": {"pattern": "("}}), "("),
            (
                json!({"root": "/r", "pattern": {"pattern": "x"}, "types": ["nope"]}),
                "nope",
            ),
            (
                json!({"root": "rel", "pattern": {"pattern": "x"}}),
                "absolute",
            ),
        ] {
            let message = match parsed(request.clone()) {
                Err(message) => message,
                Ok(_) => panic!("{request} was accepted"),
            };
            assert!(message.contains(expected), "{request}: {message}");
        }
    }
}
