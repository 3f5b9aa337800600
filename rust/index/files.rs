//! Which files an indexed search reads, in path order: the candidates the index vouches for,
//! the files it has no postings for, and those changed since the build, as a caught-up watch
//! tells (no walk) or a walk that `stat`s every file finds (catching a watch up on the way).

use super::build::stat_ns;
use super::format::{BINARY, INDEXED, IndexFile, UTF8_BOM};
use super::fresh::Watch;
use super::select::{self, Reach};
use super::watched::{put_back, rule_names, take};
use crate::fs::walk::{Batch, DirHook, DirWork, FileEntry, WalkState, Walker};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Whether the search's include, exclude and type patterns accept a file (workspace-relative).
pub type Accepts<'a> = &'a (dyn Fn(&Path) -> bool + Sync);

/// Counts an unchanged binary file passed over unread, as the search counts one it read.
pub type CountBinary<'a> = &'a (dyn Fn() + Sync);

/// What chooses the files an indexed search reads: the index, the files with candidate units,
/// the search's patterns, and the count of binary files passed over unread.
#[derive(Clone, Copy)]
pub struct Chooser<'a> {
    pub index: &'a IndexFile,
    pub candidates: &'a roaring::RoaringBitmap,
    pub accepts: Accepts<'a>,
    pub binary: CountBinary<'a>,
}

/// The files of an indexed search, handed to `search` in path order. A file is searched when
/// the index has no postings for it (new, unindexed), when it changed since the build, or
/// when it is a candidate; every other file is an unchanged indexed file without a candidate
/// unit, which holds no match (an unchanged binary file is counted as binary unread, as the
/// scan would skip it).
///
/// What changed is learnt from the watch when it is caught up (no walk at all), otherwise by
/// walking the tree and `stat`ing every file; a walk of the whole tree, unpruned, catches the
/// watch up (it watches every directory before listing it).
pub fn search_indexed<R>(
    walker: Walker,
    start: DirWork,
    chooser: Chooser<'_>,
    watch: Option<&Mutex<Option<Watch>>>,
    search: impl FnOnce(&Walker, &mut dyn Iterator<Item = ToSearch>) -> R,
) -> (R, Walker) {
    let (index, accepts, binary) = (chooser.index, chooser.accepts, chooser.binary);
    let taken = watch.and_then(|slot| take(slot, index));
    let search_dir = start.rel().to_path_buf();
    let scopes = [search_dir.clone()];
    let (outcome, walker, taken) = match taken {
        Some(w) if select::answers(&w, &walker, &scopes) => {
            let reach = Reach::new(&search_dir, walker.dir_filter());
            let (extras, walker, w) =
                watched_extras(walker, &search_dir, index, accepts, binary, w, false);
            select::replay_skips(&w, &scopes, walker.dir_filter(), walker.stats());
            let outcome = {
                let mut files = merge_by_path(
                    extras,
                    candidate_paths(
                        index,
                        |first| chooser.candidates.range(first..),
                        &search_dir,
                        accepts,
                        &w,
                        reach,
                    ),
                );
                search(&walker, &mut files)
            };
            (outcome, walker, Some(w))
        }
        Some(w) if w.trusted() => {
            // Where the watch has not been (inside an ignored directory): walked without it.
            let (files, walker, _) = from_walk(walker, start, chooser, None, false);
            let mut files = files
                .into_iter()
                .map(|(entry, known)| ToSearch::Entry(entry, known));
            (search(&walker, &mut files), walker, Some(w))
        }
        stale => {
            // A broken watch starts over; a walk of the whole tree catches a new one up.
            let whole = search_dir.as_os_str().is_empty() && !walker.has_dir_filter();
            let fresh = match stale {
                Some(w) if !w.broken => Some(w),
                _ if watch.is_some() && whole => {
                    Watch::new(rule_names(&walker)).ok().map(|mut w| {
                        w.add_git_info(walker.root());
                        w.generation = index.build_start_ns;
                        w
                    })
                }
                _ => None,
            };
            let (files, walker, watch) = from_walk(walker, start, chooser, fresh, whole);
            let mut files = files
                .into_iter()
                .map(|(entry, known)| ToSearch::Entry(entry, known));
            let outcome = search(&walker, &mut files);
            (outcome, walker, watch)
        }
    };
    if let (Some(slot), Some(w)) = (watch, taken) {
        put_back(slot, w);
    }
    (outcome, walker)
}

/// Two path-ordered sequences of files as one (a path in both is taken once).
pub(super) fn merge_by_path<'a>(
    first: Vec<ToSearch>,
    second: impl Iterator<Item = ToSearch> + 'a,
) -> impl Iterator<Item = ToSearch> + 'a {
    let mut first = first.into_iter().peekable();
    let mut second = second.peekable();
    std::iter::from_fn(move || {
        let order = match (first.peek(), second.peek()) {
            (None, None) => return None,
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some(a), Some(b)) => a.rel().as_os_str().cmp(b.rel().as_os_str()),
        };
        match order {
            std::cmp::Ordering::Less => first.next(),
            std::cmp::Ordering::Greater => second.next(),
            std::cmp::Ordering::Equal => {
                second.next();
                first.next()
            }
        }
    })
}

/// Changes to a file within this long before a build started may not show in its timestamps
/// (coarse file-system clocks): such files are searched from disk, as git treats "racily
/// clean" entries.
const RACY_MARGIN_NS: i64 = 2_000_000_000;

/// How the index decides one file it knows, given its state now: `None` to skip it, else
/// whether only its candidate units need a search (`Some(Some(i))`) or the whole file.
pub(super) fn known_file(
    index: &IndexFile,
    i: usize,
    changed: bool,
    candidates: &roaring::RoaringBitmap,
    binary: CountBinary<'_>,
) -> Option<Option<u32>> {
    let known = index.file(i);
    if changed {
        return Some(None);
    }
    if known.flags & BINARY != 0 {
        binary();
        return None;
    }
    if known.flags & INDEXED == 0 {
        return Some(None);
    }
    if !candidates.contains(i as u32) {
        return None;
    }
    Some(by_units(&known, i))
}

/// `Some(i)` when only the candidate units of the indexed file `i` (its record `known`)
/// need a search, `None` when the whole file does.
fn by_units(known: &super::format::FileRecord, i: usize) -> Option<u32> {
    let by_units = known.units > 1 && known.flags & UTF8_BOM == 0;
    by_units.then_some(i as u32)
}

/// Whether `stat` shows the file as the build saw it (and not touched around the build).
fn unchanged(index: &IndexFile, i: usize, stat: &rustix::fs::Stat) -> bool {
    let known = index.file(i);
    let racy_after = index.build_start_ns.saturating_sub(RACY_MARGIN_NS);
    let mtime = stat_ns(stat.st_mtime, stat.st_mtime_nsec as i64);
    let ctime = stat_ns(stat.st_ctime, stat.st_ctime_nsec as i64);
    known.size == stat.st_size as u64
        && known.mtime_ns == mtime
        && known.ctime_ns == ctime
        && known.ino == stat.st_ino
        && mtime < racy_after
        && ctime < racy_after
}

/// A file a walk chose to search, with its id in the index when only its candidate units
/// need a search.
type Chosen = (FileEntry, Option<u32>);

/// The files to search found by walking under `start` and `stat`ing every file. With a
/// watch, every directory walked is watched first, and every file that differs from the
/// index (or that the index has and the walk did not find) is recorded as dirty; a walk of the
/// `whole` tree leaves the watch caught up.
pub(super) fn from_walk(
    walker: Walker,
    start: DirWork,
    chooser: Chooser<'_>,
    watch: Option<Watch>,
    whole: bool,
) -> (Vec<Chosen>, Walker, Option<Watch>) {
    use std::os::unix::ffi::OsStrExt;
    let Chooser {
        index,
        candidates,
        accepts,
        binary,
    } = chooser;
    let watch = watch.map(|w| Arc::new(Mutex::new(w)));
    let hook: Option<DirHook> = watch
        .clone()
        .map(|w| -> DirHook { Arc::new(move |rel: &Path, fd| w.lock().unwrap().add(rel, fd)) });
    let walker = walker.with_dir_hook(hook);
    let catching_up = whole && watch.is_some();
    if catching_up {
        walker.stats().skipped.start_log();
    }
    let chosen: Mutex<Vec<Chosen>> = Mutex::new(Vec::new());
    let dirty: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    let seen: Mutex<roaring::RoaringBitmap> = Mutex::new(roaring::RoaringBitmap::new());
    let root = walker.root().clone();
    walker.visit_parallel(vec![start], || {
        let (mut batch, mut dirty, root) = (Batch::new(&chosen), Batch::new(&dirty), &root);
        let mut flush_seen = Flush(roaring::RoaringBitmap::new(), &seen);
        Box::new(move |entry| {
            let found = index.find(entry.rel.as_os_str().as_bytes());
            let changed = match (found, entry.stat(root)) {
                (Some(i), Ok(stat)) => {
                    flush_seen.0.insert(i as u32);
                    !unchanged(index, i, &stat)
                }
                _ => true,
            };
            if changed {
                dirty.push(entry.rel.clone());
            }
            if accepts(&entry.rel) {
                let search = match found {
                    Some(i) => known_file(index, i, changed, candidates, binary),
                    None => Some(None),
                };
                if let Some(known) = search {
                    batch.push((entry.clone(), known));
                }
            }
            WalkState::Continue
        })
    });
    let walker = walker.with_dir_hook(None);
    let skips = if catching_up {
        walker.stats().skipped.take_log()
    } else {
        Vec::new()
    };
    // A cancelled walk did not see (nor watch) the whole tree.
    let whole = whole && !walker.cancel_token().is_cancelled();
    let watch = watch.map(|w| {
        let mut w = Arc::try_unwrap(w)
            .map_err(|_| ())
            .expect("the walk is over")
            .into_inner()
            .unwrap();
        w.dirty.extend(dirty.into_inner().unwrap());
        if whole && !w.broken {
            let seen = seen.into_inner().unwrap();
            for i in 0..index.file_count() {
                if !seen.contains(i as u32) {
                    w.dirty
                        .insert(PathBuf::from(std::ffi::OsStr::from_bytes(index.path(i))));
                }
            }
            w.catch_up(skips);
        }
        w
    });
    let mut files = chosen.into_inner().unwrap();
    files.sort_unstable_by(|a, b| a.0.rel.as_os_str().cmp(b.0.rel.as_os_str()));
    (files, walker, watch)
}

/// A walker thread's set of seen files, merged into the shared one when the thread is done.
struct Flush<'a>(roaring::RoaringBitmap, &'a Mutex<roaring::RoaringBitmap>);

impl Drop for Flush<'_> {
    fn drop(&mut self) {
        *self.1.lock().unwrap() |= std::mem::take(&mut self.0);
    }
}

/// The files to search under `search_dir` when the watch is caught up (no walk), besides the
/// candidates (`candidate_paths`): the files without postings and the dirty paths (a file
/// searched if the walk would show it, a directory walked whole and watched), in path order.
/// Indexed files not under a dirty path are unchanged since the watch caught up (and
/// differed from the index then only if dirty).
pub(super) fn watched_extras(
    walker: Walker,
    search_dir: &Path,
    index: &IndexFile,
    accepts: Accepts<'_>,
    count_binary: CountBinary<'_>,
    watch: Watch,
    binary: bool,
) -> (Vec<ToSearch>, Walker, Watch) {
    use std::os::unix::ffi::OsStrExt;
    let nothing = roaring::RoaringBitmap::new();
    let mut files: Vec<ToSearch> = Vec::new();
    let mut reach = Reach::new(search_dir, walker.dir_filter());
    for &i in index.unindexed() {
        let rel = Path::new(std::ffi::OsStr::from_bytes(index.path(i as usize)));
        if !rel.starts_with(search_dir)
            || !accepts(rel)
            || watch.is_dirty(rel)
            || !reach.reaches(rel)
        {
            continue;
        }
        if binary {
            files.push(ToSearch::Path(rel.to_path_buf(), None));
        } else if let Some(known) = known_file(index, i as usize, false, &nothing, count_binary) {
            files.push(ToSearch::Path(rel.to_path_buf(), known));
        }
    }
    let (changed, walker, watch) =
        crate::index::fresh::dirty_files(walker, watch, &[search_dir.to_path_buf()], accepts);
    files.extend(
        changed
            .into_iter()
            .map(|entry| ToSearch::Entry(entry, None)),
    );
    files.sort_unstable_by(|a, b| a.rel().as_os_str().cmp(b.rel().as_os_str()));
    files.dedup_by(|a, b| a.rel() == b.rel());
    (files, walker, watch)
}

/// The candidate files under `search_dir` that are unchanged since the watch caught up, in
/// path order, looked up in the index as they are asked for.
pub(super) fn candidate_paths<'a, I: Iterator<Item = u32> + 'a>(
    index: &'a IndexFile,
    candidates_from: impl FnOnce(u32) -> I,
    search_dir: &'a Path,
    accepts: Accepts<'a>,
    watch: &'a Watch,
    mut reach: Reach,
) -> impl Iterator<Item = ToSearch> + 'a {
    use std::os::unix::ffi::OsStrExt;
    // Paths are sorted by bytes: the files under the search directory are one range, those
    // whose path starts with the directory's and a slash (the index's paths are normalised:
    // the bytes compare as `Path::starts_with` would, without parsing components).
    let mut prefix = search_dir.as_os_str().as_bytes().to_vec();
    if !prefix.is_empty() {
        prefix.push(b'/');
    }
    let first = index.lower_bound(&prefix) as u32;
    candidates_from(first)
        .map_while(move |i| {
            let path = index.path(i as usize);
            (prefix.is_empty() || path.starts_with(&prefix))
                .then(|| (i, Path::new(std::ffi::OsStr::from_bytes(path))))
        })
        .filter_map(move |(i, rel)| {
            if !accepts(rel) || watch.is_dirty(rel) || !reach.reaches(rel) {
                return None;
            }
            // What `known_file` decides of an unchanged candidate, without looking it up
            // among the candidates it comes from.
            let known = index.file(i as usize);
            if known.flags & BINARY != 0 {
                return None;
            }
            let by_units = if known.flags & INDEXED == 0 {
                None
            } else {
                by_units(&known, i as usize)
            };
            Some(ToSearch::Path(rel.to_path_buf(), by_units))
        })
}

/// A file for an indexed search: found by a walk, or known by its path from the index (opened
/// from the root only when its turn comes, so a search that stops early opens no more); with
/// its id in the index when it is unchanged since the build and only its candidate units need
/// a search; or known by its path with the parts another process's index says can hold a
/// match (read only those while the file is still the one indexed).
pub enum ToSearch {
    Entry(FileEntry, Option<u32>),
    Path(PathBuf, Option<u32>),
    Spanned(PathBuf, super::select::FileSpans),
}

impl ToSearch {
    pub fn rel(&self) -> &Path {
        match self {
            ToSearch::Entry(entry, _) => &entry.rel,
            ToSearch::Path(rel, _) | ToSearch::Spanned(rel, _) => rel,
        }
    }

    pub fn by_units(&self) -> Option<u32> {
        match self {
            ToSearch::Entry(_, known) | ToSearch::Path(_, known) => *known,
            ToSearch::Spanned(..) => None,
        }
    }

    /// The parts another process's index says can hold a match.
    pub fn spans(&self) -> Option<&super::select::FileSpans> {
        match self {
            ToSearch::Spanned(_, spans) => Some(spans),
            _ => None,
        }
    }

    /// Opens the file to search it: still non-blocking, its `fstat` kept (see
    /// `Root::open_to_search`).
    pub fn open(&self, walker: &Walker) -> std::io::Result<crate::fs::read::Opened> {
        match self {
            ToSearch::Entry(entry, _) => entry.open_to_search(walker.root()),
            ToSearch::Path(rel, _) | ToSearch::Spanned(rel, _) => walker
                .root()
                .open_to_search(rel, crate::fs::root::Links::Refuse),
        }
    }
}
