//! What a search answered by the index's watch (no walk) selects and reports, so that it
//! equals a scan of the same scope: whether the watch may answer at all, which directories a
//! scan's walk would enter (exclude globs prune whole directories), and what the walk would
//! have passed over (gitignored, hidden, links, files too large, unreadable), replayed from
//! the walk that caught the watch up; and the selection such a search makes for another
//! process to read (`select_watched`).

use super::files::{ToSearch, candidate_paths, merge_by_path, watched_extras};
use super::format::IndexFile;
use super::fresh::Watch;
use super::query::Narrowed;
use crate::fs::rules::Verdict;
use crate::fs::skipped::{Example, Passed, Reason, Skipped};
use crate::fs::walk::{DirFilter, WalkStats, Walker};
use crate::grep::CompiledPattern;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Whether the watch may answer for walks of `scopes`: it vouches for the tree, and every
/// scope is where a walk of the whole tree goes. An explicit path inside an ignored or hidden
/// directory is searched by a scan (as ripgrep does) but was never walked nor watched.
pub fn answers(watch: &Watch, walker: &Walker, scopes: &[PathBuf]) -> bool {
    watch.trusted() && scopes.iter().all(|scope| walker.walkable(scope))
}

/// Whether a walk started at `scope` enters `dir`: every directory below `scope` down to
/// `dir` passes the walk's directory filter (the start itself is never filtered).
pub fn entered(filter: &DirFilter, scope: &Path, dir: &Path) -> bool {
    let mut at = Some(dir);
    while let Some(d) = at {
        if d == scope || d.as_os_str().is_empty() || !d.starts_with(scope) {
            break;
        }
        if !filter(d) {
            return false;
        }
        at = d.parent();
    }
    true
}

/// Whether a walk of one scope reaches paths below it, for paths asked in order (the
/// verdict of the last parent is kept: files of one directory come together).
pub struct Reach {
    scope: PathBuf,
    filter: Option<DirFilter>,
    last: Option<(PathBuf, bool)>,
}

impl Reach {
    pub fn new(scope: &Path, filter: Option<DirFilter>) -> Reach {
        Reach {
            scope: scope.to_path_buf(),
            filter,
            last: None,
        }
    }

    /// Whether the walk enters every directory above `rel` (below the scope).
    pub fn reaches(&mut self, rel: &Path) -> bool {
        let Some(filter) = &self.filter else {
            return true;
        };
        let parent = rel.parent().unwrap_or(Path::new(""));
        if let Some((dir, verdict)) = &self.last
            && dir == parent
        {
            return *verdict;
        }
        let verdict = entered(filter, &self.scope, parent);
        self.last = Some((parent.to_path_buf(), verdict));
        verdict
    }
}

/// Records in `stats` what walks of `scopes` would pass over outside the dirty paths (those
/// are looked at anew, see `fresh::dirty_files`), as the catch-up walk found it; entries
/// below a directory `filter` keeps out are not reached.
pub fn replay_skips(
    watch: &Watch,
    scopes: &[PathBuf],
    filter: Option<DirFilter>,
    stats: &WalkStats,
) {
    for scope in scopes {
        let mut reach = Reach::new(scope, filter.clone());
        for passed in watch.skips_below(scope) {
            if !watch.is_dirty(&passed.path) && reach.reaches(&passed.path) {
                replay(stats, passed);
            }
        }
    }
}

/// Counts one entry passed over as the walk counted it.
fn replay(stats: &WalkStats, passed: &Passed) {
    let (path, is_dir) = (&passed.path, passed.is_dir);
    match passed.reason {
        Reason::Gitignored => stats.add_ignored(Verdict::Hidden, path, is_dir),
        Reason::Denied => stats.add_ignored(Verdict::Denied, path, is_dir),
        Reason::Unreadable => stats.add_error_at(path, is_dir),
        reason => stats.skipped.record(reason, path, is_dir),
    }
}

/// Adds what another walk (of the same search) passed over to `into`.
pub fn absorb(into: &WalkStats, from: &WalkStats) {
    into.ignored.fetch_add(from.ignored(), Ordering::Relaxed);
    into.errors.fetch_add(from.errors(), Ordering::Relaxed);
    add_skipped(&into.skipped, &from.skipped);
}

fn add_skipped(into: &Skipped, from: &Skipped) {
    for (reason, count, examples) in from.report() {
        for example in &examples {
            into.record(reason, &example.path, example.is_dir);
        }
        into.add(reason, count.saturating_sub(examples.len() as u64));
    }
}

/// The parts of an indexed file that can hold a match (its candidate units, adjacent ones
/// joined), with the file as the index recorded it: a reader checks that the file it opened
/// is still that one before reading only these parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileSpans {
    pub size: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub ino: u64,
    /// `(offset, length, number of the first line)`, in file order; every span starts at a
    /// line start and ends at a line end (or the end of the file).
    pub spans: Vec<(u64, u64, u64)>,
}

/// The candidate units of the unchanged indexed file `i` as spans, or `None` when they
/// cover the whole file.
fn file_spans(index: &IndexFile, i: u32, units: &roaring::RoaringBitmap) -> Option<FileSpans> {
    let record = index.file(i as usize);
    let mut spans: Vec<(u64, u64, u64)> = Vec::new();
    for unit in units.range(record.first_unit..record.first_unit + record.units) {
        let (offset, len, line) = index.unit_span(&record, unit);
        match spans.last_mut() {
            Some(last) if last.0 + last.1 == offset => last.1 += len,
            _ => spans.push((offset, len, line)),
        }
    }
    if spans.iter().map(|s| s.1).sum::<u64>() >= record.size {
        return None;
    }
    Some(FileSpans {
        size: record.size,
        mtime_ns: record.mtime_ns,
        ctime_ns: record.ctime_ns,
        ino: record.ino,
        spans,
    })
}

/// Which files a watched selection (`select_watched`) lists.
/// The default is what an in-process search selects: its files, all of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SelectionOptions {
    /// Binary files are listed (the client decides how to read them) and, with
    /// `list_unnarrowed`, a pattern the index does not narrow lists every file: a client that
    /// applies its own rules (`codesift-rg`) gets the path table without a walk.
    pub every: bool,
    pub list_unnarrowed: bool,
    /// Only the first this many files, in path order (`Selected::more` says whether any
    /// were left out).
    pub first: Option<usize>,
}

/// The selection of the watched branch of an indexed search (`files::search_indexed`), for a
/// process that answers other processes' searches (the daemon): the search of `pattern`
/// under `search_dir`. `filter` makes the search's file filter and the directory filter its
/// walk applies (once the watch is known to be of this index). The caller has drained `watch`
/// after the query arrived; `Err(reason)` when the index and the watch cannot answer (the
/// search scans). The watch comes back, errors included (with the dirty directories now
/// watched too).
///
/// `options` says which files are listed (`SelectionOptions`).
pub fn select_watched<F: Fn(&Path) -> bool + Sync>(
    walker: Walker,
    search_dir: &Path,
    pattern: &CompiledPattern,
    index: &IndexFile,
    watch: Watch,
    options: SelectionOptions,
    filter: impl FnOnce() -> crate::error::Result<(F, Option<DirFilter>)>,
) -> (crate::error::Result<Result<Selected, &'static str>>, Watch) {
    let SelectionOptions {
        every,
        list_unnarrowed,
        first,
    } = options;
    if watch.generation > index.build_start_ns {
        return (Ok(Err("the watch belongs to a newer index")), watch);
    }
    // The watch goes back on every path, errors included: a caller that lost it would
    // have to walk the whole tree again before its next answer.
    let (accepts, dir_filter) = match filter() {
        Ok(made) => made,
        Err(e) => return (Err(e), watch),
    };
    let walker = match dir_filter {
        Some(dir_filter) => walker.with_dir_filter(dir_filter),
        None => walker,
    };
    let search_dir = search_dir.to_path_buf();
    let scopes = [search_dir.clone()];
    if !answers(&watch, &walker, &scopes) {
        let why = if watch.trusted() {
            "the search path is where a walk does not go (ignored or hidden)"
        } else {
            "the watch is not caught up"
        };
        return (Ok(Err(why)), watch);
    }
    let plan = super::plan::plan(&pattern.regex, pattern.case_insensitive);
    let unit_reads = !pattern.multiline && pattern.before == 0 && pattern.after == 0;
    // A page (the first files only) reads a few candidates whatever their total: the share
    // of the tree they hold, which decides between the index and a scan for a whole search,
    // is not worth adding up (a fifth of a page's time on Linux).
    let found = match first {
        Some(_) => super::query::narrowed(index, &plan, pattern.multiline),
        None => super::query::candidates(index, &plan, pattern.multiline, unit_reads)
            .map(|found| found.map(Narrowed::from)),
    };
    let found = found.ok().flatten();
    let Some(found) = found.or_else(|| {
        // Every indexed file; the others (binary, UTF-16, ...) come with the extras. A client
        // that would rather walk than read every file says `list_unnarrowed: false`.
        (every && list_unnarrowed).then(|| {
            let mut files: roaring::RoaringBitmap = (0..index.file_count() as u32).collect();
            files -= index
                .unindexed()
                .iter()
                .copied()
                .collect::<roaring::RoaringBitmap>();
            Narrowed::of_files(files)
        })
    }) else {
        return (Ok(Err("the index does not narrow this pattern")), watch);
    };
    let binary = AtomicU64::new(0);
    let count_binary = || {
        binary.fetch_add(1, Ordering::Relaxed);
    };
    let reach = Reach::new(&search_dir, walker.dir_filter());
    let (extras, walker, watch) = watched_extras(
        walker,
        &search_dir,
        index,
        &accepts,
        &count_binary,
        watch,
        every,
    );
    replay_skips(&watch, &scopes, walker.dir_filter(), walker.stats());
    let (mut files, mut spans) = (Vec::new(), Vec::new());
    let mut more = false;
    let first = first.unwrap_or(usize::MAX);
    for file in merge_by_path(
        extras,
        candidate_paths(
            index,
            |first| found.files_from(index, first),
            &search_dir,
            &accepts,
            &watch,
            reach,
        ),
    ) {
        // The files past `first` cost nothing more than being found: the counts above are
        // the whole selection's already.
        if files.len() == first {
            more = true;
            break;
        }
        let known = match (&file, found.units()) {
            (ToSearch::Path(_, Some(i)), Some(units)) if unit_reads => file_spans(index, *i, units),
            _ => None,
        };
        files.push(file.rel().to_path_buf());
        spans.push(known);
    }
    let stats = walker.stats();
    let selection = Selected {
        files,
        spans,
        binary: binary.load(Ordering::Relaxed),
        ignored: stats.ignored(),
        unreadable: stats.errors(),
        skipped: stats.skipped.report(),
        more,
    };
    (Ok(Ok(selection)), watch)
}

/// What an indexed search reads, chosen by a caught-up watch without any walk
/// (`select_watched`), as the daemon sends it to a client: the files to read in path order
/// (each with the parts that can hold a match, when they are less than the whole file and
/// a reader may read only them: no context lines, not multiline), the unchanged binary
/// files passed over (a scan counts them), and what a walk would have passed over (ignored,
/// unreadable, by reason with examples).
#[derive(Debug, Default)]
pub struct Selected {
    pub files: Vec<PathBuf>,
    /// One per file.
    pub spans: Vec<Option<FileSpans>>,
    pub binary: u64,
    pub ignored: u64,
    pub unreadable: u64,
    pub skipped: Vec<(Reason, u64, Vec<Example>)>,
    /// Files were left out after the first ones asked for.
    pub more: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn excluding(name: &'static str) -> DirFilter {
        Arc::new(move |dir: &Path| dir.file_name().is_none_or(|n| n != name))
    }

    #[test]
    fn a_directory_kept_out_prunes_everything_below_it() {
        let filter = excluding("vendor");
        assert!(!entered(&filter, Path::new(""), Path::new("a/vendor/b")));
        assert!(entered(&filter, Path::new(""), Path::new("a/b")));
        // The start of the walk is never filtered, nor what is above it.
        assert!(entered(&filter, Path::new("vendor"), Path::new("vendor/x")));
        assert!(entered(
            &filter,
            Path::new("a/vendor/b"),
            Path::new("a/vendor/b/c")
        ));
        let mut reach = Reach::new(Path::new("a"), Some(filter));
        assert!(reach.reaches(Path::new("a/x.txt")));
        assert!(!reach.reaches(Path::new("a/vendor/x.txt")));
        assert!(!reach.reaches(Path::new("a/vendor/y.txt")));
        assert!(reach.reaches(Path::new("a/src/y.txt")));
        assert!(Reach::new(Path::new(""), None).reaches(Path::new("vendor/x")));
    }

    #[test]
    fn absorbed_counts_and_examples_are_those_of_one_walk() {
        let (one, other, both) = (
            WalkStats::default(),
            WalkStats::default(),
            WalkStats::default(),
        );
        let entries = [
            ("z/deep/x.log", Reason::Gitignored),
            ("build", Reason::Gitignored),
            ("a.log", Reason::Gitignored),
            ("m/n.log", Reason::Gitignored),
            (".env", Reason::Hidden),
            ("secret", Reason::Denied),
        ];
        for (i, (path, reason)) in entries.iter().enumerate() {
            let passed = Passed {
                reason: *reason,
                path: PathBuf::from(path),
                is_dir: false,
            };
            replay(if i % 2 == 0 { &one } else { &other }, &passed);
            replay(&both, &passed);
        }
        absorb(&one, &other);
        assert_eq!(one.ignored(), both.ignored());
        assert_eq!(one.ignored(), 5);
        assert_eq!(one.skipped.report(), both.skipped.report());
    }
}
