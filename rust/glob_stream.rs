//! A glob that streams: the files `glob` returns sorted by path, handed to a sink in batches
//! as a sorted walk reaches them, so the first comes at once and memory holds one batch and
//! the walk's stack whatever the number of files.

use crate::error::Result;
use crate::fs::walk::{Target, Walker, rel_bytes};
use crate::glob::{GlobFile, GlobOutcome, GlobQuery, PathPattern};
use std::path::{Path, PathBuf};

/// Files per batch: few enough that the first batch comes at once, enough that handing them
/// over costs little.
pub const GLOB_BATCH: usize = 256;

/// Receives batches of files in path order; `false` stops the walk (the consumer went away).
pub type GlobSink<'a> = &'a dyn Fn(Vec<GlobFile>) -> bool;

/// `glob` sorted by path, streamed: the same files in the same order go to `sink` (the
/// outcome's `files` stays empty). The walk stops once `query.limit` files went out and one
/// more was found (then `truncated`, and `total` is the files sent: the rest is not
/// counted); otherwise `total` is every file found. `query.sort` is not read: only path
/// order streams (an mtime order needs every file's time before the first).
pub fn glob_sorted(walker: &Walker, query: &GlobQuery, sink: GlobSink<'_>) -> Result<GlobOutcome> {
    let pattern = PathPattern::new(&[query.pattern.as_str()], query.case_sensitive)?;
    let types = query.types.as_deref();
    let target = walker.target(&query.search_path)?;
    let search = target.real().to_path_buf();
    let wanted = |rel: &Path, search_dir: &Path| {
        pattern.matches_rel(rel, search_dir) && types.is_none_or(|types| types.accepts(rel))
    };
    let mut sent = 0usize;
    let mut truncated = false;
    let mut batch: Vec<GlobFile> = Vec::new();
    // Adds a file; false once the walk should stop (the limit passed, or the consumer left).
    let mut add = |rel: PathBuf, batch: &mut Vec<GlobFile>| -> bool {
        if sent == query.limit {
            truncated = true;
            return false;
        }
        sent += 1;
        batch.push(GlobFile {
            path: rel,
            metadata: None,
        });
        batch.len() < GLOB_BATCH || sink(std::mem::take(batch))
    };
    match target {
        Target::File(entry) => {
            if wanted(&entry.rel, entry.rel.parent().unwrap_or(Path::new(""))) {
                add(entry.rel, &mut batch);
            }
        }
        Target::Dir(start) => {
            // The directories `glob` walks (see `PathPattern::walk_starts`), in the order of
            // the paths beneath them: none is inside another, so each one's files are one run
            // of the byte order, and `dir/` sorts where its files do.
            let mut starts = Vec::new();
            let mut whole = Some(start);
            for rel in pattern.walk_starts(&search) {
                if rel == search {
                    starts = whole.take().into_iter().collect();
                    break;
                }
                if !walker.walkable(&rel) {
                    continue;
                }
                if let Ok(start) = walker.start(&rel, walker.options().links()) {
                    starts.push(start);
                }
            }
            let key = |dir: &crate::fs::walk::DirWork| {
                let mut key = rel_bytes(dir.rel()).to_vec();
                key.push(b'/');
                key
            };
            starts.sort_by_cached_key(key);
            'walk: for start in starts {
                for entry in walker.sorted_files(start) {
                    if wanted(&entry.rel, &search) && !add(entry.rel, &mut batch) {
                        break 'walk;
                    }
                }
            }
        }
    }
    if !batch.is_empty() {
        sink(batch);
    }
    Ok(GlobOutcome {
        files: Vec::new(),
        total: sent,
        truncated,
        ignored: walker.stats().ignored(),
        errors: walker.stats().errors(),
        search_path: search,
        skipped: walker.stats().skipped.report(),
    })
}
