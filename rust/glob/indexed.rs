//! A glob answered from an index: its path table matched in parallel pieces, the files the
//! watch saw change walked afresh, and the answer kept as ids into the path table until it
//! is handed out, so that a large glob the daemon encodes allocates nothing per file.

use super::{FileBlock, GlobFile, GlobSort, Wanted, select_sorted, stat_mtime_ms};
use crate::fs::walk::{Walker, rel_bytes};
use crate::index::format::IndexFile;
use crate::index::watched::IndexUse;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A file's `(mtime_ms, size)`, when known.
type Metadata = Option<(i64, u64)>;

/// Paths of the table matched by one thread at a time (at least).
const PIECE_PATHS: usize = 4096;

/// One file of an indexed glob: an entry of the index's path table, or a file the watch saw
/// change since the build (walked and stat'ed afresh).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Pick {
    Changed(u32),
    Indexed(u32),
}

/// The files an indexed glob found, as ids into the index's path table and the changed
/// files beside it.
pub struct Picked<'i> {
    index: &'i IndexFile,
    picks: Vec<Pick>,
    changed: Vec<GlobFile>,
}

impl<'i> Picked<'i> {
    pub fn len(&self) -> usize {
        self.picks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.picks.is_empty()
    }

    fn path(&self, pick: Pick) -> &[u8] {
        match pick {
            Pick::Indexed(id) => self.index.path(id as usize),
            Pick::Changed(at) => rel_bytes(&self.changed[at as usize].path),
        }
    }

    /// `(mtime_ms, size)`: as the index recorded it (the watch vouches that the file did not
    /// change since), or as the changed file was stat'ed.
    fn metadata(&self, pick: Pick) -> Option<(i64, u64)> {
        match pick {
            Pick::Indexed(id) => {
                let known = self.index.file(id as usize);
                Some((known.mtime_ns.div_euclid(1_000_000), known.size))
            }
            Pick::Changed(at) => self.changed[at as usize].metadata,
        }
    }

    /// The path of file `i` of the answer.
    pub fn path_at(&self, i: usize) -> &[u8] {
        self.path(self.picks[i])
    }

    /// The `(mtime_ms, size)` of file `i` of the answer.
    pub fn metadata_at(&self, i: usize) -> Metadata {
        self.metadata(self.picks[i])
    }

    /// The files as a glob's outcome holds them.
    pub fn into_block(self) -> FileBlock {
        let mut block = FileBlock::default();
        for i in 0..self.len() {
            block
                .paths
                .push(Path::new(OsStr::from_bytes(self.path_at(i))));
            block.metadata.push(self.metadata_at(i));
        }
        block
    }

    /// Keeps the first `limit` files in `sort`'s order. The files are in path order already
    /// (the table's ids come in it, and `dedup` sorted any changed file in), so a
    /// path-ordered answer is cut, not sorted.
    pub fn sort_and_cut(&mut self, sort: GlobSort, limit: usize) {
        if sort == GlobSort::Mtime {
            let mut picks = std::mem::take(&mut self.picks);
            let this = &*self;
            select_sorted(&mut picks, limit, |a, b| {
                let mtime = |p: &Pick| this.metadata(*p).map(|(mtime_ms, _)| mtime_ms);
                mtime(b)
                    .cmp(&mtime(a))
                    .then_with(|| this.path(*a).cmp(this.path(*b)))
            });
            self.picks = picks;
        }
        self.picks.truncate(limit);
    }

    /// Sorts the changed files in among the table's and drops a path found in both (the
    /// watch's view is kept: `Changed` sorts first): the count of files before any cut must
    /// hold each once.
    fn merge_changed(&mut self) {
        if self.changed.is_empty() {
            return;
        }
        let mut picks = std::mem::take(&mut self.picks);
        let this = &*self;
        picks.sort_unstable_by(|a, b| this.path(*a).cmp(this.path(*b)).then_with(|| a.cmp(b)));
        picks.dedup_by(|later, kept| this.path(*later) == this.path(*kept));
        self.picks = picks;
    }
}

/// The files of the index under `search` that `wanted` keeps, with the watch's changes, when
/// the watch is caught up with this index and vouches for every directory the glob covers;
/// `None` otherwise (the glob then walks, or the daemon says `scan`). A file the watch has
/// not seen change is as the index recorded it (the watch caught up by comparing every file
/// with the index), so its size and mtime come from there.
pub(crate) fn from_index<'i>(
    walker: &Walker,
    index: IndexUse<'i>,
    wanted: &Wanted<'_>,
    search: &Path,
) -> Option<Picked<'i>> {
    let slot = index.watch?;
    let watch = crate::index::watched::take(slot, index.file)?;
    // The directories the walk would cover (see `super::glob`).
    let starts = wanted.pattern.walk_starts(search);
    let scopes: Vec<PathBuf> = if starts.iter().any(|s| s == search) {
        vec![search.to_path_buf()]
    } else {
        starts
            .iter()
            .filter(|s| walker.walkable(s))
            .cloned()
            .collect()
    };
    if !crate::index::select::answers(&watch, walker, &scopes) {
        crate::index::watched::install_watch(slot, watch);
        return None;
    }
    let table = index.file;
    // Paths are sorted by bytes: the files under a directory are one range of them.
    let mut ranges: Vec<(usize, usize)> = starts
        .iter()
        .map(|dir| {
            let mut prefix = dir.as_os_str().as_bytes().to_vec();
            if !prefix.is_empty() {
                prefix.push(b'/');
            }
            let first = table.lower_bound(&prefix);
            let mut end = prefix.clone();
            match end.last_mut() {
                Some(last) => *last += 1, // "dir/" .. "dir0": '0' follows '/'
                None => return (first, table.file_count()),
            }
            (first, table.lower_bound(&end))
        })
        .collect();
    ranges.sort_unstable();
    // The ranges are matched in parallel pieces, kept in order (the table is sorted).
    let paths: usize = ranges.iter().map(|(a, b)| b.saturating_sub(*a)).sum();
    let threads = walker.options().thread_count().max(1);
    let piece = paths.div_ceil(threads * 4).max(PIECE_PATHS);
    let pieces: Vec<(usize, usize)> = ranges
        .iter()
        .flat_map(|&(a, b)| {
            (a..b)
                .step_by(piece)
                .map(move |start| (start, (start + piece).min(b)))
        })
        .collect();
    let next = AtomicUsize::new(0);
    let matched: Vec<Mutex<Vec<Pick>>> = pieces.iter().map(|_| Mutex::default()).collect();
    let watch_ref = &watch;
    let work = || {
        loop {
            let p = next.fetch_add(1, Ordering::Relaxed);
            let Some(&(start, end)) = pieces.get(p) else {
                break;
            };
            let mut out = Vec::new();
            for i in start..end {
                let rel = Path::new(OsStr::from_bytes(table.path(i)));
                if watch_ref.is_dirty(rel) || !wanted.matches(rel, search) {
                    continue;
                }
                out.push(Pick::Indexed(i as u32));
            }
            *matched[p].lock().unwrap() = out;
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..threads.min(pieces.len()) {
            scope.spawn(work);
        }
        work();
    });
    let mut picks = Vec::with_capacity(matched.iter().map(|m| m.lock().unwrap().len()).sum());
    for piece in matched {
        picks.append(&mut piece.into_inner().unwrap());
    }
    let fresh_walker = Walker::new(walker.root().clone(), walker.options().clone());
    let fresh_stats = fresh_walker.stats().clone();
    let (changed, _, watch) =
        crate::index::fresh::dirty_files(fresh_walker, watch, &scopes, &|rel| {
            wanted.matches(rel, search)
        });
    crate::index::select::absorb(walker.stats(), &fresh_stats);
    crate::index::select::replay_skips(&watch, &scopes, None, walker.stats());
    let root = walker.root();
    let changed: Vec<GlobFile> = changed
        .into_iter()
        .map(|entry| {
            let metadata = entry
                .stat(root)
                .map_or((0, 0), |stat| (stat_mtime_ms(&stat), stat.st_size as u64));
            GlobFile {
                path: entry.rel,
                metadata: Some(metadata),
            }
        })
        .collect();
    crate::index::watched::install_watch(slot, watch);
    picks.extend((0..changed.len() as u32).map(Pick::Changed));
    let mut picked = Picked {
        index: table,
        picks,
        changed,
    };
    picked.merge_changed();
    Some(picked)
}

#[cfg(test)]
mod tests {
    use crate::glob::{FileBlock, GlobQuery, GlobSort, glob, glob_indexed_picked};
    use crate::index::watched::{IndexUse, caught_up_watch};
    use crate::test_support::{build_index, temp_tree, test_walker};
    use std::path::{Path, PathBuf};
    use std::sync::Mutex;

    /// Each file's path, with its `(mtime_ms, size)` when `metadata` asks for it.
    fn listed<'a>(
        files: impl Iterator<Item = (&'a Path, Option<(i64, u64)>)>,
        metadata: bool,
    ) -> Vec<(PathBuf, Option<(i64, u64)>)> {
        files
            .map(|(path, known)| (path.to_path_buf(), known.filter(|_| metadata)))
            .collect()
    }

    #[test]
    fn an_indexed_glob_answers_as_a_walk_after_the_tree_changed() {
        let dir = temp_tree(&[
            ("src/a.rs", "a"),
            ("src/b.rs", "b"),
            ("src/deep/c.rs", "c"),
            ("docs/x.md", "x"),
            ("z.rs", "z"),
        ]);
        let store = tempfile::tempdir().unwrap();
        // Past the racy window: files as old as the build are re-read, not trusted.
        std::thread::sleep(std::time::Duration::from_millis(2_100));
        let index = build_index(dir.path(), &store.path().join("index"));
        let watch = caught_up_watch(test_walker(dir.path()), &index).expect("a caught-up watch");
        // A new file sorting between indexed ones, one in a new directory, a changed one
        // (the watch's size and time, not the index's), a removed one.
        crate::test_support::write_files(
            dir.path(),
            &[
                ("src/aa.rs", "new"),
                ("src/new/d.rs", "d"),
                ("src/b.rs", "now longer"),
            ],
        );
        std::fs::remove_file(dir.path().join("src/deep/c.rs")).unwrap();
        let slot = Mutex::new(Some(watch));
        for pattern in ["**/*.rs", "src/**", "*.md", "**/*", "src/*.rs"] {
            for sort in [GlobSort::Path, GlobSort::Mtime, GlobSort::None] {
                for limit in [0, 1, 3, 100] {
                    let query = GlobQuery {
                        pattern: pattern.into(),
                        search_path: PathBuf::new(),
                        case_sensitive: true,
                        limit,
                        sort,
                        types: None,
                    };
                    let case = format!("{pattern} {sort:?} limit {limit}");
                    let walked = glob(&test_walker(dir.path()), &query, None).unwrap();
                    let using = IndexUse {
                        file: &index,
                        watch: Some(&slot),
                    };
                    let indexed = glob_indexed_picked(&test_walker(dir.path()), &query, using)
                        .unwrap()
                        .expect("the caught-up watch answers");
                    // A walk reads sizes and times only to sort by them.
                    let by_mtime = sort == GlobSort::Mtime;
                    let mut expected = listed(walked.files.iter(), by_mtime);
                    let block: FileBlock = indexed.files.into_block();
                    let mut actual = listed(block.iter(), by_mtime);
                    if sort == GlobSort::None {
                        // No order: a walk's is its threads'. Only the number kept, and all
                        // of them when none is cut.
                        assert_eq!(actual.len(), expected.len(), "{case}");
                        if walked.truncated {
                            continue;
                        }
                        actual.sort();
                        expected.sort();
                    }
                    println!("{case}\n expected {expected:?}\n actual   {actual:?}");
                    assert_eq!(actual, expected, "{case}");
                    assert_eq!(
                        (indexed.total, indexed.truncated),
                        (walked.total, walked.truncated),
                        "{case}"
                    );
                    // The index's own metadata is the file's, changed or not.
                    for (path, known) in block.iter() {
                        let stat = std::fs::metadata(dir.path().join(path)).unwrap();
                        assert_eq!(known.map(|(_, size)| size), Some(stat.len()), "{case}");
                    }
                }
            }
        }
    }
}
