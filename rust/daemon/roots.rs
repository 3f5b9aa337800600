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
use crate::fs::root::Root;
use crate::fs::rules::RuleOptions;
use crate::fs::walk::{WalkOptions, Walker};
use crate::glob::GlobQuery;
use crate::index::format::IndexFile;
use crate::index::fresh::Watch;
use crate::index::handle::{IndexHandle, Mode, one_at_a_time};
use crate::index::watched::IndexUse;
use crate::request::{GlobRequest, GrepRequest};
use crate::search::GrepQuery;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::os::unix::ffi::OsStrExt;
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

    /// The `select` reply to `request` (see docs/daemon.md), with its files in a bulk frame
    /// (`super::bulk`) when the request asks for one.
    pub fn select(&self, request: &Value) -> Result<Bulky, BadRequest> {
        let mut parsed = parse_select(request)?;
        let (entry, inside) = match self.served_below(&parsed.target)? {
            Ok(found) => found,
            Err(reply) => return Ok((reply, None)),
        };
        parsed.query.search_path = inside.join(&parsed.query.search_path);
        Ok(entry.select(&parsed, &inside, wants_bulk(request)))
    }

    /// The `glob` reply to `request` (see docs/daemon.md), with its files in a bulk frame
    /// (`super::bulk`) when the request asks for one.
    pub fn glob(&self, request: &Value) -> Result<Bulky, BadRequest> {
        let target = parse_target(request)?;
        if target.every {
            return Err(BadRequest(
                "walk.all_files is for select: a glob applies the walk options it is given".into(),
            ));
        }
        let glob = field(request, "glob").ok_or(BadRequest("glob is required".into()))?;
        let mut glob: GlobRequest =
            serde_json::from_value(glob.clone()).map_err(|e| BadRequest(format!("glob: {e}")))?;
        if glob.hidden.is_some() || glob.no_ignore.is_some() {
            return Err(BadRequest(
                "glob.hidden and glob.no_ignore are not sent: the walk options go in walk".into(),
            ));
        }
        glob.search_path = target.search_path.clone();
        let query = glob.query().map_err(|e| BadRequest(e.to_string()))?;
        let entry = match self.entry_for(&target)? {
            Ok(entry) => entry,
            Err(reply) => return Ok((reply, None)),
        };
        entry.globs.fetch_add(1, Ordering::Relaxed);
        let reply = entry.glob(&query, target.build, wants_bulk(request));
        if reply.0.get("files").is_some() || reply.1.is_some() {
            entry.globs_answered.fetch_add(1, Ordering::Relaxed);
        }
        Ok(reply)
    }

    /// The `rules` reply to `request` (see docs/daemon.md): keeps the verdicts of ripgrep's
    /// rules a client decided for the paths a select left undecided.
    pub fn rules(&self, request: &Value) -> Result<Value, BadRequest> {
        let target = rg_target(request, "rules verdicts")?;
        let key = key_field(request, "key")?.ok_or(BadRequest("key is required".into()))?;
        let token = string(request, "token")?.ok_or(BadRequest("token is required".into()))?;
        let mut verdicts = Vec::new();
        for (name, keep) in [("kept", true), ("dropped", false)] {
            let Some(paths) = field(request, name) else {
                continue;
            };
            let paths = paths
                .as_array()
                .ok_or_else(|| BadRequest(format!("{name} must be an array of paths")))?;
            for path in paths {
                let path = json_path(path)
                    .filter(|p| is_plain_relative(p))
                    .ok_or_else(|| {
                        BadRequest(format!(
                            "{name} must hold paths relative to the root, without . or .."
                        ))
                    })?;
                verdicts.push((path, keep));
            }
        }
        let (entry, inside) = match self.served_below(&target)? {
            Ok(found) => found,
            Err(reply) => return Ok(reply),
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
    pub fn files(&self, request: &Value) -> Result<Value, BadRequest> {
        let target = rg_target(request, "files lists")?;
        let key = key_field(request, "key")?.ok_or(BadRequest("key is required".into()))?;
        let store = match field(request, "store") {
            None => None,
            Some(store) => Some((
                string(store, "token")?.ok_or(BadRequest("store.token is required".into()))?,
                string(store, "files")?.ok_or(BadRequest("store.files is required".into()))?,
            )),
        };
        // A directory inside a root served already is answered by that root's watch (the
        // token covers its whole tree); `.git` is not watched.
        let covering = self.covering(&target);
        let entry = match covering {
            Some(entry) => entry,
            None => match self.entry_for(&target)? {
                Ok(entry) => entry,
                Err(reply) => return Ok(reply),
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
    ) -> Result<Result<(Arc<RootEntry>, PathBuf), Value>, BadRequest> {
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
    fn entry_for(&self, target: &Target) -> Result<Result<Arc<RootEntry>, Value>, BadRequest> {
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
            return Ok(Err(scan(
                "the root at this path is not the client's directory",
                None,
            )));
        }
        let entry = self.entry(root, target.options.clone());
        entry.queries.fetch_add(1, Ordering::Relaxed);
        Ok(Ok(entry))
    }

    pub fn status(&self) -> Vec<Value> {
        let mut entries: Vec<Arc<RootEntry>> = self.map.lock().unwrap().values().cloned().collect();
        entries.sort_by(|a, b| a.root.real_path().cmp(b.root.real_path()));
        entries.iter().map(|e| e.status()).collect()
    }
}

/// A reply, and the bulk frame that follows it (its length announced as `bulk_frame`).
pub type Bulky = (Value, Option<Vec<u8>>);

/// Whether a request asks for its files in a bulk frame: `"bulk": true` from a client of
/// protocol 3 or later (an older client never reads the frame).
fn wants_bulk(request: &Value) -> bool {
    request.get("bulk") == Some(&Value::Bool(true))
        && request
            .get("protocol")
            .and_then(Value::as_u64)
            .is_some_and(|p| p >= 3)
}

fn scan(reason: impl Into<String>, generation: Option<i64>) -> Value {
    json!({"ok": true, "scan": reason.into(), "generation": generation})
}

/// Per file, `null` or `[size, mtime_ns, ctime_ns, ino, [[offset, length, line], ...]]`:
/// the parts of an unchanged file that can hold a match (see `search::FileSpans`).
fn spans_json(spans: &[Option<crate::index::select::FileSpans>]) -> Value {
    if spans.iter().all(Option::is_none) {
        return Value::Null;
    }
    spans
        .iter()
        .map(|s| match s {
            None => Value::Null,
            Some(s) => json!([s.size, s.mtime_ns, s.ctime_ns, s.ino, s.spans]),
        })
        .collect()
}

/// A path for JSON: a string, or for a name that is not UTF-8 the list of its bytes.
pub fn path_json(path: &Path) -> Value {
    match path.to_str() {
        Some(text) => Value::from(text),
        None => Value::from(path.as_os_str().as_bytes().to_vec()),
    }
}

/// A path made of names only (no root, `.` or `..`): what a root's files are called.
fn is_plain_relative(path: &Path) -> bool {
    path.components().next().is_some()
        && path.components().all(|c| matches!(c, Component::Normal(_)))
}

/// The path `path_json` wrote (a string, or an array of bytes when not UTF-8).
pub fn json_path(value: &Value) -> Option<PathBuf> {
    match value {
        Value::String(s) => Some(PathBuf::from(s)),
        Value::Array(bytes) => {
            let bytes: Option<Vec<u8>> = bytes
                .iter()
                .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                .collect();
            Some(PathBuf::from(std::ffi::OsStr::from_bytes(&bytes?)))
        }
        _ => None,
    }
}

/// What a walk passed over, each example with its kind (a directory is shown with a `/`),
/// for clients that replay the summary field by field: `[[reason, count, [[path, is_dir],
/// ...]], ...]`, the reasons counted at least once.
fn skips(
    report: &[(
        crate::fs::skipped::Reason,
        u64,
        Vec<crate::fs::skipped::Example>,
    )],
) -> Vec<Value> {
    report
        .iter()
        .filter(|(_, count, _)| *count > 0)
        .map(|(reason, count, examples)| {
            let examples: Vec<Value> = examples
                .iter()
                .map(|e| json!([path_json(&e.path), e.is_dir]))
                .collect();
            json!([reason.name(), count, examples])
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
    fn watched(
        self: &Arc<Self>,
        build: bool,
        answer: impl FnOnce(&Arc<IndexFile>, &Mutex<Option<Watch>>, Watch) -> Value,
    ) -> Value {
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
    fn select(self: &Arc<Self>, request: &SelectRequest, inside: &Path, bulk: bool) -> Bulky {
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
                    return crate::daemon::proto::error_reply(
                        "InvalidArgumentError",
                        e.to_string(),
                    );
                }
            };
            // Read after the selection walked and watched the directories made since the last
            // one: a rule file created in one later moves the token.
            let rules_token = watch.rules_token();
            // Where `.git` entries are, below the directory asked about: a client whose
            // rules enter them (ripgrep's `--hidden`) lists them from disk.
            let git_dirs: Vec<Value> = watch
                .git_entries
                .iter()
                .filter_map(|git| git.parent()?.strip_prefix(inside).ok())
                .map(path_json)
                .collect();
            crate::index::watched::install_watch(slot, watch);
            match selected {
                Err(why) => scan(why, generation),
                Ok(mut selection) => {
                    // Files the rules drop (as decided at this token) are left out; the
                    // client applies the rules to those undecided only.
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
                            undecided = Some(open);
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
                    let skipped: Vec<Value> = stats
                        .skipped
                        .report()
                        .into_iter()
                        .filter(|(_, count, _)| *count > 0)
                        .map(|(reason, count, examples)| {
                            let examples: Vec<Value> =
                                examples.iter().map(|e| path_json(&e.path)).collect();
                            json!([reason.name(), count, examples])
                        })
                        .collect();
                    let mut reply = json!({
                        "ok": true,
                        "skips": skips(&stats.skipped.report()),
                        "spans": spans_json(&selection.spans),
                        "binary": selection.binary,
                        "ignored": stats.ignored(),
                        "unreadable": stats.errors(),
                        "skipped": skipped,
                        "generation": generation,
                        "watch_generation": watch_generation,
                        "trusted": true,
                        "rules_token": rules.map(|_| &rules_token),
                        "git_dirs": every.then_some(git_dirs),
                        "undecided": undecided,
                    });
                    if bulk {
                        let bytes =
                            super::bulk::encode(selection.files.iter().map(PathBuf::as_path), None);
                        reply["bulk_frame"] = Value::from(bytes.len());
                        frame = Some(bytes);
                    } else {
                        reply["files"] = selection.files.iter().map(|f| path_json(f)).collect();
                    }
                    reply
                }
            }
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
    ) -> Value {
        self.watched(false, |index, slot, watch| {
            let generation = Some(index.build_start_ns);
            let token = watch.rules_token();
            crate::index::watched::install_watch(slot, watch);
            let stored = self
                .verdicts
                .lock()
                .unwrap()
                .store(key, asked_at, &token, verdicts);
            json!({"ok": true, "stored": stored, "generation": generation})
        })
    }

    /// The glob's outcome as the indexed glob of a workspace with this index and watch finds
    /// it (`glob::glob_indexed`), every field; `scan` when they cannot answer it.
    fn glob(self: &Arc<Self>, query: &GlobQuery, build: bool, bulk: bool) -> Bulky {
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
            match crate::glob::glob_indexed(&walker, query, using) {
                Err(e) => crate::daemon::proto::error_reply("InvalidArgumentError", e.to_string()),
                Ok(None) => scan("the watch cannot answer this glob", generation),
                Ok(Some(outcome)) => {
                    let mut reply = json!({
                        "ok": true,
                        "total": outcome.total,
                        "truncated": outcome.truncated,
                        "ignored": outcome.ignored,
                        "errors": outcome.errors,
                        "search_path": path_json(&outcome.search_path),
                        "skips": skips(&outcome.skipped),
                        "generation": generation,
                        "watch_generation": watch_generation,
                        "trusted": true,
                    });
                    if bulk {
                        let metadata: Vec<_> = outcome.files.iter().map(|f| f.metadata).collect();
                        let bytes = super::bulk::encode(
                            outcome.files.iter().map(|f| f.path.as_path()),
                            Some(&metadata),
                        );
                        reply["bulk_frame"] = Value::from(bytes.len());
                        frame = Some(bytes);
                    } else {
                        reply["files"] = outcome
                            .files
                            .iter()
                            .map(|f| match f.metadata {
                                Some((mtime_ms, size)) => {
                                    json!([path_json(&f.path), mtime_ms, size])
                                }
                                None => json!([path_json(&f.path), null, null]),
                            })
                            .collect();
                    }
                    reply
                }
            }
        });
        (reply, frame)
    }

    /// A kept list of files, or `miss` with the token to store one under (`store`: keep the
    /// client's list, taken since the miss that gave `token`).
    fn files(self: &Arc<Self>, key: &str, store: Option<(String, String)>, build: bool) -> Value {
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
                    json!({"ok": true, "stored": stored, "generation": generation})
                }
                None => match listings.lookup(key, &token) {
                    Some(files) => {
                        self.listing_hits.fetch_add(1, Ordering::Relaxed);
                        json!({"ok": true, "files": &*files, "generation": generation})
                    }
                    None => json!({"ok": true, "miss": token, "generation": generation}),
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

    fn status(&self) -> Value {
        let index = self.handle.status();
        let watch = match (&self.no_events, self.handle.watch_slot()) {
            (Some(why), _) => json!({"state": "none", "why": why}),
            (None, None) => json!({"state": "none", "why": "symlinks are followed"}),
            (None, Some(slot)) => match slot.lock().unwrap().as_ref() {
                Some(w) if w.trusted() => {
                    json!({"state": "caught up", "dirty": w.dirty.len(), "generation": w.generation})
                }
                Some(w) if w.broken => json!({"state": "broken", "dirty": w.dirty.len()}),
                Some(_) => json!({"state": "catching up"}),
                None if self.catching_up.load(Ordering::Relaxed) => {
                    json!({"state": "catching up"})
                }
                None => json!({"state": "none"}),
            },
        };
        let (rebuilds, rebuilding) = self.handle.rebuilds();
        let (built, adopted) = self.handle.builds();
        json!({
            "root": path_json(self.root.real_path()),
            "options": {
                "gitignore": self.options.rules.gitignore,
                "hidden": self.options.hidden,
                "follow_symlinks": self.options.follow_symlinks,
                "max_filesize": self.options.max_filesize,
                "access_files": self.options.rules.access_files,
            },
            "index": {
                "path": index.path.as_deref().map(path_json),
                "exists": index.exists,
                "generation": (index.build_start_ns != 0).then_some(index.build_start_ns),
                "files": index.files,
                "bytes": index.bytes,
                "problem": index.problem,
                "built": built,
                "adopted": adopted,
            },
            "watch": watch,
            "catching_up": self.catching_up.load(Ordering::Relaxed),
            "rebuilds": rebuilds,
            "rebuilding": rebuilding,
            "queries": self.queries.load(Ordering::Relaxed),
            "glob_queries": self.globs.load(Ordering::Relaxed),
            "glob_answers": self.globs_answered.load(Ordering::Relaxed),
            "files_lists": self.listings.lock().unwrap().count(),
            "files_lists_bytes": self.listings.lock().unwrap().bytes(),
            "files_list_hits": self.listing_hits.load(Ordering::Relaxed),
            "rules_verdicts": self.verdicts.lock().unwrap().count(),
            "idle_seconds": self.last_used.lock().unwrap().elapsed().as_secs(),
            "problem": self.problem.lock().unwrap().clone(),
        })
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

fn field<'a>(object: &'a Value, name: &str) -> Option<&'a Value> {
    object.get(name).filter(|v| !v.is_null())
}

fn bool_field(object: &Value, name: &str, default: bool) -> Result<bool, BadRequest> {
    match field(object, name) {
        None => Ok(default),
        Some(v) => v
            .as_bool()
            .ok_or_else(|| BadRequest(format!("{name} must be true or false"))),
    }
}

fn strings(object: &Value, name: &str, default: &[&str]) -> Result<Vec<String>, BadRequest> {
    match field(object, name) {
        None => Ok(default.iter().map(|s| s.to_string()).collect()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| BadRequest(format!("{name} must be a list of strings")))
            })
            .collect(),
        Some(_) => Err(BadRequest(format!("{name} must be a list of strings"))),
    }
}

/// A client's key (a string of at most `MAX_KEY` bytes), if given.
fn key_field(object: &Value, name: &str) -> Result<Option<String>, BadRequest> {
    let key = string(object, name)?;
    if key.as_ref().is_some_and(|k| k.len() > MAX_KEY) {
        return Err(BadRequest(format!(
            "{name} is over the limit of {MAX_KEY} bytes"
        )));
    }
    Ok(key)
}

fn string(object: &Value, name: &str) -> Result<Option<String>, BadRequest> {
    match field(object, name) {
        None => Ok(None),
        Some(v) => v
            .as_str()
            .map(|s| Some(s.to_string()))
            .ok_or_else(|| BadRequest(format!("{name} must be a string"))),
    }
}

/// The target of a request only `codesift-rg` makes (`walk.all_files`), about `what`.
fn rg_target(request: &Value, what: &str) -> Result<Target, BadRequest> {
    let target = parse_target(request)?;
    if !target.every {
        return Err(BadRequest(format!(
            "{what} are kept for walk.all_files roots (codesift-rg)"
        )));
    }
    Ok(target)
}

fn parse_target(request: &Value) -> Result<Target, BadRequest> {
    let root =
        PathBuf::from(string(request, "root")?.ok_or(BadRequest("root is required".into()))?);
    if !root.is_absolute() {
        return Err(BadRequest("root must be an absolute path".into()));
    }
    let search_path = PathBuf::from(string(request, "path")?.unwrap_or_default());
    let empty = json!({});
    let walk = field(request, "walk").unwrap_or(&empty);
    // `all_files`: the index of every file (no ignore or access-ignore rules, hidden files,
    // links not followed; `.git` never), for a client that applies its own rules at query
    // time from the path table (`codesift-rg`). It overrides the other walk options.
    let every = bool_field(walk, "all_files", false)?;
    let options = if every {
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
            rules: RuleOptions {
                gitignore: bool_field(walk, "gitignore", true)?,
                access_files: strings(walk, "access_files", &[".clineignore", ".codesiftignore"])?,
            },
            hidden: bool_field(walk, "hidden", true)?,
            follow_symlinks: bool_field(walk, "follow_symlinks", false)?,
            max_filesize: match field(walk, "max_filesize") {
                None => None,
                Some(v) => Some(
                    v.as_u64()
                        .ok_or(BadRequest("max_filesize must be a number of bytes".into()))?,
                ),
            },
            threads: 0,
        }
    };
    let build = bool_field(request, "build", true)?;
    let ident = match field(request, "root_id") {
        None => None,
        Some(v) => Some(
            v.as_array()
                .filter(|pair| pair.len() == 2)
                .and_then(|pair| Some((pair[0].as_u64()?, pair[1].as_u64()?)))
                .ok_or(BadRequest(
                    "root_id must be [device, inode] of the root directory".into(),
                ))?,
        ),
    };
    Ok(Target {
        root,
        ident,
        search_path,
        options,
        every,
        build,
    })
}

/// The engine's grep request a `select` carries: the fields of `pattern` (`pattern`,
/// `literal`, `case_sensitive`, `multiline`, `before`, `after`; a null is left out) and the
/// filters beside it (`include`, `exclude`, `types`, `types_not`). On the wire
/// `case_sensitive` defaults to true (what `codesift-rg` leaves out), and no limit applies
/// (a selection lists every file that may match).
fn grep_request(request: &Value, search_path: &Path) -> Result<GrepRequest, BadRequest> {
    let Some(Value::Object(pattern)) = field(request, "pattern") else {
        return Err(BadRequest(
            "pattern is required: an object with the pattern and its options".into(),
        ));
    };
    if field(&Value::Object(pattern.clone()), "pattern").is_none() {
        return Err(BadRequest("pattern.pattern is required".into()));
    }
    let mut flat = serde_json::Map::new();
    flat.insert("case_sensitive".into(), Value::Bool(true));
    flat.insert("max_matches".into(), Value::Null);
    for (name, value) in pattern.iter().filter(|(_, v)| !v.is_null()) {
        flat.insert(name.clone(), value.clone());
    }
    for name in ["include", "exclude", "types", "types_not"] {
        if let Some(value) = field(request, name) {
            flat.insert(name.into(), value.clone());
        }
    }
    let mut grep: GrepRequest = serde_json::from_value(Value::Object(flat))
        .map_err(|e| BadRequest(format!("pattern: {e}")))?;
    grep.search_path = search_path.to_path_buf();
    Ok(grep)
}

fn parse_select(request: &Value) -> Result<SelectRequest, BadRequest> {
    let target = parse_target(request)?;
    let empty = json!({});
    let walk = field(request, "walk").unwrap_or(&empty);
    let query = grep_request(request, &target.search_path)?
        .query()
        .map_err(|e| BadRequest(e.to_string()))?;
    // A pattern that does not compile is the client's error, before any index work.
    let pattern = query.compiled().map_err(|e| BadRequest(e.to_string()))?;
    let rules = key_field(request, "rules")?;
    if rules.is_some() && !target.every {
        return Err(BadRequest(
            "rules verdicts are kept for walk.all_files roots (codesift-rg)".into(),
        ));
    }
    Ok(SelectRequest {
        target,
        query,
        rules,
        pattern,
        list_unnarrowed: bool_field(walk, "list_unnarrowed", true)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(request: Value) -> Result<SelectRequest, String> {
        parse_select(&request).map_err(|e| e.0)
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
