//! What a root entry answers: `select` (the files a search reads), `glob`, `files` (a kept
//! `--files` list or a miss) and the verdicts of ripgrep's rules a client offers, each at the
//! freshness point of `RootEntry::watched`.

use super::super::front_coding::Compact;
use super::super::wire::{
    Freshness, Globbed, GlobbedFile, Listing, Reply, Selection, Stored, WirePath, WireSpans,
};
use super::entry::RootEntry;
use super::reply::{Bulky, skip_paths, skips};
use super::request::SelectRequest;
use crate::glob::GlobQuery;
use crate::index::watched::IndexUse;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

impl RootEntry {
    /// The answer to `request` (its query's search path already made this root's):
    /// `target.every` asks for the `all_files` answer (binary files listed, an unnarrowed
    /// pattern lists every file); `target.build`: without an index, start one (else only
    /// say `scan`). The files are named from `inside`, the directory asked about.
    pub(super) fn select(
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
            listed,
        } = request;
        let (every, rules) = (listed.every, rules.as_deref());
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
                *listed,
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
                Err(why) => return Reply::scan(why, generation),
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
                    let (files, open) = super::super::verdicts::apply(keeps, files);
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
            let skipped = skip_paths(&selection.skipped);
            let mut reply = Selection {
                ok: true,
                files: None,
                bulk_frame: None,
                spans: None,
                binary: selection.binary,
                ignored: selection.ignored,
                unreadable: selection.unreadable,
                skips: skips(&selection.skipped),
                skipped,
                freshness: Freshness {
                    generation,
                    watch_generation: Some(watch_generation),
                    trusted: true,
                },
                rules_token: rules.map(|_| rules_token),
                git_dirs: every.then_some(git_dirs),
                undecided,
                more: selection.more,
            };
            let any_spans = selection.spans.iter().any(Option::is_some);
            if bulk {
                let spans = any_spans.then_some(selection.spans.as_slice());
                let bytes =
                    super::super::bulk::encode(selection.files.iter().map(PathBuf::as_path), spans);
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
    pub(super) fn store_verdicts(
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
    /// it (`glob::glob_indexed_picked`), every field; `scan` when they cannot answer it.
    pub(super) fn glob(
        self: &Arc<Self>,
        query: &GlobQuery,
        build: bool,
        bulk: bool,
    ) -> Bulky<Globbed> {
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
            let outcome = match crate::glob::glob_indexed_picked(&walker, query, using) {
                Err(e) => return Reply::invalid(e.to_string()),
                Ok(None) => return Reply::scan("the watch cannot answer this glob", generation),
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
                freshness: Freshness {
                    generation,
                    watch_generation: Some(watch_generation),
                    trusted: true,
                },
            };
            if bulk {
                // Encoded from the index's path table: no path is copied out per file first.
                let picked = &outcome.files;
                let threads = walker.options().thread_count();
                let bytes = super::super::bulk::encode_parallel(
                    picked.len(),
                    |i| picked.path_at(i),
                    |i| picked.metadata_at(i),
                    threads,
                );
                reply.bulk_frame = Some(bytes.len() as u64);
                frame = Some(bytes);
            } else {
                reply.files = Some(
                    outcome
                        .files
                        .into_block()
                        .iter()
                        .map(|(path, metadata)| {
                            let (mtime_ms, size) = metadata.unzip();
                            GlobbedFile(WirePath(path.to_path_buf()), mtime_ms, size)
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
    pub(super) fn files(
        self: &Arc<Self>,
        key: &str,
        store: Option<(String, Vec<u8>)>,
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
                return Reply::scan("the watch may have missed changes: catching up", generation);
            }
            let token = watch.listing_token();
            crate::index::watched::install_watch(slot, watch);
            let mut listings = self.listings.lock().unwrap();
            match store {
                Some((walked_at, files)) => {
                    let stored = listings.store(key, &walked_at, &token, files);
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
                            compact: Some(Compact(files.to_vec())),
                            generation,
                            ..Listing::default()
                        })
                    }
                    None => Reply::Answer(Listing {
                        ok: true,
                        miss: Some(token),
                        keep_bytes: Some(listings.limit() as u64),
                        generation,
                        ..Listing::default()
                    }),
                },
            }
        })
    }
}
