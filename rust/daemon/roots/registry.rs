//! The registry of roots the daemon serves: one entry per root and walk options, opened on
//! a first query, the least recently used idle one dropped beyond [`MAX_ROOTS`]; each
//! request found its entry here (or a root served already whose tree holds it).

use super::super::wire::{self, Globbed, Listing, Reply, Selection, Stored, WirePath};
use super::entry::{RootEntry, ident_of};
use super::reply::{Bulky, NotServed};
use super::request::{
    BadRequest, Target, is_plain_relative, key_field, parse_select, parse_target, rg_target,
};
use crate::fs::root::Root;
use crate::fs::walk::WalkOptions;
use std::collections::HashMap;
use std::path::{Component, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Roots kept at once; the least recently used idle one is dropped beyond (memory stays
/// bounded by this many indexes and watches).
pub const MAX_ROOTS: usize = 32;

type Key = (PathBuf, u64);

/// Every root served, by its real path and the hash of its walk options.
#[derive(Default)]
pub struct Roots {
    map: Mutex<HashMap<Key, Arc<RootEntry>>>,
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
        let entry = Arc::new(RootEntry::open(root, options));
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
    /// Taken by value: a store's list (up to `MAX_LISTING_BYTES`) is kept, never copied.
    pub fn files(&self, request: wire::Files) -> Result<Reply<Listing>, BadRequest> {
        let target = rg_target(&request.target, "files lists")?;
        let key = key_field(&request.key, "key")?.ok_or(BadRequest("key is required".into()))?;
        let store = match request.store {
            None => None,
            Some(store) => Some((
                store
                    .token
                    .ok_or(BadRequest("store.token is required".into()))?,
                store
                    .compact
                    .ok_or(BadRequest(
                        "store.compact is required (the list's compact form, protocol 5)".into(),
                    ))?
                    .0,
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
