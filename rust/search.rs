//! Multi-file content search: which files are searched, by which threads, and how the hits
//! come out ordered by path, line and column whatever the thread count.
//!
//! Two plans. With `max_matches` (and no `count_total`) a sequential walk yields files lazily
//! in sorted order to parallel workers, and results settle in that order: once the first
//! `max_matches + 1` hits are settled, the walk and the workers stop, so the first N never
//! need the whole tree. Otherwise every file is searched by the parallel walker itself (as
//! ripgrep does) and the per-file results are sorted at the end.
//!
//! A streaming search (`grep_with` and a `Sink`) always takes the ordered plan (or the indexed
//! one, whose batches settle in order too): each file's hits go to the sink as soon as every
//! file before it is settled, and no worker runs more than a window of files ahead of that
//! point, so memory is bounded by the window whatever the number of hits.

use crate::cancel::CancelToken;
use crate::error::{Error, Result};
use crate::fs::skipped::{Example, Reason};
use crate::fs::walk::{DirFilter, DirWork, FileEntry, Target, WalkState, Walker};
use crate::glob::PathPattern;
use crate::grep::{
    CompiledPattern, Expected, FileHits, FileLimits, FileOutcome, FileSearcher, LineRange,
    OutputMode, PatternOptions, StopSignal, WindowCapture,
};
use crate::index::files::{self, ToSearch};
use crate::index::format::{FileRecord, IndexFile};
use crate::index::fresh::Watch;
use crate::index::query::Candidates;
use crate::index::select::{self, Selected, SelectionOptions};
use crate::index::watched::IndexUse;
use crate::types::FileTypes;
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// A search as the engine runs it (built and checked from a `request::GrepRequest`; the
/// defaults are an unlimited search of every match of the empty pattern under the root).
#[derive(Default)]
pub struct GrepQuery {
    pub pattern: PatternOptions,
    /// Workspace-relative: a directory or a file.
    pub search_path: PathBuf,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub max_matches: Option<usize>,
    pub count_total: bool,
    pub timeout: Option<Duration>,
    /// Every match, or files or counts only (then `max_matches` counts files).
    pub mode: OutputMode,
    /// ripgrep file types a file must have (or not have).
    pub types: Option<Arc<FileTypes>>,
    /// One hit per matching line, not per match, where that changes no line printed (see
    /// `CompiledPattern::with_lines`): what printing rg's lines needs, without a hit record
    /// per match. Only without `max_matches` (a cut counts matches) and `timeout` (whose
    /// report says how many were found).
    pub one_hit_per_line: bool,
    /// No hit is checked for uniqueness (`Hit::unique` stays false): what a printer that
    /// never shows it needs (see `CompiledPattern::without_unique`).
    pub skip_unique: bool,
    /// The bytes around which hits' lines are kept with them (`FileHits::windows`): what a
    /// ranked search parses (see `CompiledPattern::with_windows`).
    pub windows: Option<WindowCapture>,
}

impl GrepQuery {
    fn keeps_one_hit_per_line(&self) -> bool {
        self.one_hit_per_line && self.max_matches.is_none() && self.timeout.is_none()
    }

    /// The pattern as every search of this query compiles it.
    pub(crate) fn compiled(&self) -> Result<CompiledPattern> {
        Ok(CompiledPattern::new(&self.pattern)?
            .with_mode(self.mode)
            .with_lines(self.keeps_one_hit_per_line())
            .without_unique(self.skip_unique)
            .with_windows(self.windows))
    }

    /// The hits a search keeps in all (`max_matches`, else no limit), and whether it goes on
    /// counting every match past them (`count_total`: then the limit cuts the hits kept, not
    /// the search).
    pub(crate) fn hit_limit(&self) -> (usize, bool) {
        match self.max_matches {
            Some(max) if !self.count_total => (max, false),
            other => (other.unwrap_or(usize::MAX), self.count_total),
        }
    }

    /// The stop signal of a search by `walker` (its timeout from now, the walker's token
    /// cancelling it) and the counters reporting to that token.
    fn stop_and_counters(&self, walker: &Walker) -> (StopSignal, Counters) {
        let cancel = walker.cancel_token().clone();
        let stop =
            StopSignal::new(self.timeout.map(|t| Instant::now() + t)).with_cancel(cancel.clone());
        let counters = Counters {
            progress: cancel,
            ..Counters::default()
        };
        (stop, counters)
    }
}

#[derive(Debug, Default)]
pub struct GrepOutcome {
    /// Files with hits, in path order; hits in line/column order, at most `max_matches` in all.
    pub files: Vec<FileHits>,
    pub total: u64,
    pub truncated: bool,
    pub timed_out: bool,
    pub files_searched: u64,
    pub binary_files: u64,
    pub unreadable: u64,
    pub ignored: u64,
    /// The search path where it really is (symlinks along it resolved).
    pub search_path: PathBuf,
    /// The index chose the files searched.
    pub indexed: bool,
    /// What the walk and the searches passed over, by reason, with examples.
    pub skipped: Vec<(Reason, u64, Vec<Example>)>,
    /// What a token budget spent and left out (`crate::rank::budget`), with one.
    pub spent: Option<crate::rank::budget::Spent>,
}

#[derive(Default)]
struct Counters {
    searched: AtomicU64,
    binary: AtomicU64,
    unreadable: AtomicU64,
    /// The caller's token, whose count of files searched is read while the search runs.
    progress: CancelToken,
}

impl Counters {
    /// Fills in what every search's outcome says alike: the hits a streamed search sent are
    /// its total when cut (as `finish` counts a cut one), a timeout cuts it, and the files
    /// counted (the caller adds what it passed over before searching).
    fn settle(
        &self,
        outcome: &mut GrepOutcome,
        stream: Option<&Stream<'_>>,
        stop: &StopSignal,
        indexed: bool,
    ) {
        if let Some(stream) = stream
            && outcome.truncated
        {
            outcome.total = stream.emitted.load(Ordering::Relaxed) as u64;
        }
        outcome.indexed = indexed;
        outcome.timed_out = stop.timed_out();
        if outcome.timed_out {
            outcome.truncated = true;
        }
        outcome.files_searched = self.searched.load(Ordering::Relaxed);
        outcome.binary_files = self.binary.load(Ordering::Relaxed);
        outcome.unreadable = self.unreadable.load(Ordering::Relaxed);
    }

    fn record(&self, outcome: &FileOutcome) {
        self.searched.fetch_add(1, Ordering::Relaxed);
        self.progress.add_searched();
        match outcome {
            FileOutcome::Binary => self.binary.fetch_add(1, Ordering::Relaxed),
            FileOutcome::Unreadable => self.unreadable.fetch_add(1, Ordering::Relaxed),
            _ => 0,
        };
    }
}

/// Include/exclude filters on workspace-relative paths.
struct FileFilter {
    include: Option<PathPattern>,
    exclude: Option<PathPattern>,
    types: Option<Arc<FileTypes>>,
    /// The directory searched (workspace-relative): patterns may be relative to it.
    search_dir: PathBuf,
}

impl FileFilter {
    fn new(query: &GrepQuery, search_dir: PathBuf) -> Result<FileFilter> {
        let compile = |patterns: &[String]| -> Result<Option<PathPattern>> {
            if patterns.is_empty() {
                Ok(None)
            } else {
                PathPattern::new(patterns, true).map(Some)
            }
        };
        Ok(FileFilter {
            include: compile(&query.include)?,
            exclude: compile(&query.exclude)?,
            types: query.types.clone(),
            search_dir,
        })
    }

    fn accepts(&self, rel: &Path) -> bool {
        let included = self
            .include
            .as_ref()
            .is_none_or(|include| include.matches_rel(rel, &self.search_dir));
        included
            && self.types.as_ref().is_none_or(|types| types.accepts(rel))
            && !self
                .exclude
                .as_ref()
                .is_some_and(|exclude| exclude.matches_rel(rel, &self.search_dir))
    }

    fn dir_filter(self: &Arc<Self>) -> Option<DirFilter> {
        self.exclude.as_ref()?;
        let me = self.clone();
        Some(Arc::new(move |dir: &Path| {
            !me.exclude
                .as_ref()
                .is_some_and(|e| e.matches_rel(dir, &me.search_dir))
        }))
    }
}

/// Receives a streaming search's files with hits, in path order, as they settle; `false`
/// stops the search (the consumer went away).
pub type Sink<'a> = &'a (dyn Fn(FileHits) -> bool + Sync);

/// How many files past the first unsettled one a streaming search's workers may have
/// searched: what bounds the hits held while waiting for a slow file.
const STREAM_WINDOW: usize = 256;

/// The hits a streaming search's workers may hold ahead of the consumer before they wait
/// (a few big files can fill it before the window does); the file being waited for is
/// searched whatever this says.
const STREAM_HELD_HITS: usize = 100_000;

/// A streaming search's output: the sink, and the limit on hits it gets. Files reach it
/// one at a time (always under the lock that settles them), in order.
struct Stream<'a> {
    sink: Sink<'a>,
    max: usize,
    emitted: AtomicUsize,
    files: AtomicU64,
    gone: std::sync::atomic::AtomicBool,
}

impl Stream<'_> {
    /// Hands one settled file to the sink, cut to what the limit leaves (as `finish` cuts).
    /// `false` when the consumer is gone.
    fn emit(&self, mut file: FileHits) -> bool {
        if self.gone.load(Ordering::Relaxed) {
            return false;
        }
        let remaining = self.max - self.emitted.load(Ordering::Relaxed);
        if remaining == 0 || file.hits.is_empty() {
            return true;
        }
        if file.hits.len() > remaining {
            file.hits.truncate(remaining);
            file.matches = remaining as u64;
        }
        self.emitted.fetch_add(file.hits.len(), Ordering::Relaxed);
        if !file.continued {
            self.files.fetch_add(1, Ordering::Relaxed);
        }
        if (self.sink)(file) {
            true
        } else {
            self.gone.store(true, Ordering::Relaxed);
            false
        }
    }
}

/// Searches `query.search_path` with the walker's options.
/// With `index`, candidates come from it (see `indexed`); results are those of a scan.
pub fn grep(walker: Walker, query: &GrepQuery, index: Option<IndexUse<'_>>) -> Result<GrepOutcome> {
    grep_with(walker, query, index, None)
}

/// The check every search makes of `query` (the values of a caller's request are checked
/// by `crate::request`), and the stream its hits go to when `sink` is
/// given (the searches that stream: `grep_with` and `grep_selected`).
fn stream_for<'a>(query: &GrepQuery, sink: Option<Sink<'a>>) -> Result<Option<Stream<'a>>> {
    if sink.is_some() && query.count_total {
        return Err(Error::InvalidArgument(
            "count_total cannot stream: use grep for a total of every match".into(),
        ));
    }
    Ok(sink.map(|sink| Stream {
        sink,
        max: query.max_matches.unwrap_or(usize::MAX),
        emitted: AtomicUsize::new(0),
        files: AtomicU64::new(0),
        gone: Default::default(),
    }))
}

/// What a grep starts from, checked in this order: its stream (with a sink), its pattern
/// compiled, and what its search path is.
fn grep_start<'a>(
    walker: &Walker,
    query: &GrepQuery,
    sink: Option<Sink<'a>>,
) -> Result<(Option<Stream<'a>>, CompiledPattern, Target)> {
    let stream = stream_for(query, sink)?;
    Ok((
        stream,
        query.compiled()?,
        walker.target(&query.search_path)?,
    ))
}

/// `grep`, or with `sink` a streaming search: the same files with the same hits in the same
/// order go to the sink as they settle (the outcome's `files` stays empty; its `total`
/// counts the hits sent). `count_total` cannot stream (the total comes at the end).
pub fn grep_with(
    walker: Walker,
    query: &GrepQuery,
    index: Option<IndexUse<'_>>,
    sink: Option<Sink<'_>>,
) -> Result<GrepOutcome> {
    let (stream, pattern, target) = grep_start(&walker, query, sink)?;
    let stream = stream.as_ref();
    let search_path = target.real().to_path_buf();
    let search_dir = match &target {
        Target::Dir(_) => search_path.clone(),
        Target::File(_) => search_path.parent().unwrap_or(Path::new("")).to_path_buf(),
    };
    let filter = Arc::new(FileFilter::new(query, search_dir)?);
    let walker = match filter.dir_filter() {
        Some(dir_filter) => walker.with_dir_filter(dir_filter),
        None => walker,
    };
    let (stop, counters) = query.stop_and_counters(&walker);
    let candidates = match (index, &target) {
        (Some(index), Target::Dir(_)) => {
            let plan = crate::index::plan::plan(&pattern.regex, pattern.case_insensitive);
            let unit_reads = !pattern.multiline && pattern.before == 0 && pattern.after == 0;
            crate::index::query::candidates(index.file, &plan, pattern.multiline, unit_reads)
                .ok()
                .flatten()
                .map(|found| (index, found))
        }
        _ => None,
    };
    let used_index = candidates.is_some();
    let (mut outcome, walker) = match (candidates, target) {
        (Some((index, found)), Target::Dir(start)) => indexed(
            walker,
            query,
            start,
            index.file,
            &found,
            &pattern,
            &filter,
            &stop,
            &counters,
            index.watch,
            stream,
        ),
        (_, target) => (
            match (query.max_matches, stream) {
                (max, Some(stream)) => ordered(
                    &walker,
                    target,
                    &pattern,
                    &filter,
                    &stop,
                    &counters,
                    max.unwrap_or(usize::MAX),
                    Some(stream),
                ),
                (Some(max), None) if !query.count_total => ordered(
                    &walker, target, &pattern, &filter, &stop, &counters, max, None,
                ),
                _ => exhaustive(&walker, query, target, &pattern, &filter, &stop, &counters),
            },
            walker,
        ),
    };
    counters.settle(&mut outcome, stream, &stop, used_index);
    outcome.unreadable += walker.stats().errors();
    outcome.ignored = walker.stats().ignored();
    let skipped = &walker.stats().skipped;
    skipped.add(Reason::Binary, outcome.binary_files);
    skipped.add(
        Reason::Unreadable,
        counters.unreadable.load(Ordering::Relaxed),
    );
    outcome.skipped = skipped.report();
    outcome.search_path = search_path;
    Ok(outcome)
}

/// Searches one file found by the walk.
fn search_entry(
    searcher: &mut FileSearcher,
    walker: &Walker,
    entry: &FileEntry,
    limits: FileLimits,
    stop: &StopSignal,
) -> FileOutcome {
    searcher.search(
        entry.open_to_search(walker.root()),
        || entry.rel.clone(),
        limits,
        stop,
        None,
    )
}

/// The indexed search: the files the index selects (`index::files::search_indexed`) are
/// searched in path order by the scan's own searcher, so the hits are exactly the scan's.
#[allow(clippy::too_many_arguments)]
fn indexed(
    walker: Walker,
    query: &GrepQuery,
    start: DirWork,
    index: &IndexFile,
    found: &Candidates,
    pattern: &CompiledPattern,
    filter: &FileFilter,
    stop: &StopSignal,
    counters: &Counters,
    watch: Option<&Mutex<Option<Watch>>>,
    stream: Option<&Stream<'_>>,
) -> (GrepOutcome, Walker) {
    let (max, count_all) = query.hit_limit();
    let how = SortedSearch {
        units: found.units.as_ref().map(|units| (index, units)),
        pattern,
        stop,
        counters,
        max,
        count_all,
        stream,
    };
    let search = |walker: &Walker, files: &mut dyn Iterator<Item = ToSearch>| {
        search_in_batches(walker, files, how)
    };
    let chooser = files::Chooser {
        index,
        candidates: &found.files,
        accepts: &|rel| filter.accepts(rel),
        binary: &|| counters.record(&FileOutcome::Binary),
    };
    files::search_indexed(walker, start, chooser, watch, search)
}

/// How a sorted search runs: the index's candidate units (when the index narrows each file
/// to them), what it looks for, when it stops, what it counts, how many hits it settles
/// (`max`, or with `count_all` every match counted) and the stream settled files go to.
#[derive(Clone, Copy)]
struct SortedSearch<'a, 's> {
    units: Option<(&'a IndexFile, &'a roaring::RoaringBitmap)>,
    pattern: &'a CompiledPattern,
    stop: &'a StopSignal,
    counters: &'a Counters,
    max: usize,
    count_all: bool,
    stream: Option<&'a Stream<'s>>,
}

/// Searches `files` (in path order) as `search_sorted` does. For the first N hits they are
/// taken in growing batches, so that a search that stops early has not read the index's
/// tables for every candidate (what the first hits of a common word cost most).
fn search_in_batches(
    walker: &Walker,
    files: &mut dyn Iterator<Item = ToSearch>,
    how: SortedSearch<'_, '_>,
) -> GrepOutcome {
    const FIRST_BATCH: usize = 32;
    const LARGEST_BATCH: usize = 4096;
    let (max, stream) = (how.max, how.stream);
    // A stream takes batches too: the files to search are listed a batch at a time.
    if how.count_all || (max == usize::MAX && stream.is_none()) {
        let files: Vec<ToSearch> = files.collect();
        let (hits, found) = search_sorted(
            walker,
            &files,
            SortedSearch {
                stream: None,
                ..how
            },
        );
        return finish(hits, max, found, how.count_all);
    }
    let (mut hits, mut found) = (Vec::new(), 0u64);
    let mut size = FIRST_BATCH;
    loop {
        let batch: Vec<ToSearch> = (&mut *files).take(size).collect();
        if batch.is_empty() || how.stop.should_stop() {
            break;
        }
        // Every earlier batch was searched whole (it did not settle the first `max + 1`).
        let remaining = SortedSearch {
            max: max.saturating_sub(found as usize),
            count_all: false,
            ..how
        };
        let (more, n) = search_sorted(walker, &batch, remaining);
        hits.extend(more);
        found += n;
        if found > max as u64 || stream.is_some_and(|s| s.gone.load(Ordering::Relaxed)) {
            break;
        }
        size = (size * 2).min(LARGEST_BATCH);
    }
    finish(hits, max, found, false)
}

/// The selection of the watched branch of an indexed search (`index::select::select_watched`)
/// for `query`, for a process that answers other processes' searches (the daemon). The
/// caller has drained `watch` after the query arrived; `Err(reason)` when the index and the
/// watch cannot answer (the search scans). The watch comes back, errors included (with the dirty directories
/// now watched too).
pub fn select_watched(
    walker: Walker,
    query: &GrepQuery,
    index: &IndexFile,
    watch: Watch,
) -> (Result<std::result::Result<Selected, &'static str>>, Watch) {
    match query.compiled() {
        Ok(pattern) => select_watched_with(
            walker,
            query,
            &pattern,
            index,
            watch,
            SelectionOptions::default(),
        ),
        Err(e) => (Err(e), watch),
    }
}

/// `select_watched`, listing the files `options` says (`SelectionOptions`: for a client
/// that applies its own rules, or the first files only).
pub fn select_watched_with(
    walker: Walker,
    query: &GrepQuery,
    pattern: &CompiledPattern,
    index: &IndexFile,
    watch: Watch,
    options: SelectionOptions,
) -> (Result<std::result::Result<Selected, &'static str>>, Watch) {
    let search_dir = match walker.target(&query.search_path) {
        Ok(Target::Dir(start)) => start.rel().to_path_buf(),
        Ok(Target::File(_)) => return (Ok(Err("a single file is searched directly")), watch),
        Err(e) => return (Err(e), watch),
    };
    let filter = || {
        let filter = Arc::new(FileFilter::new(query, search_dir.clone())?);
        let dir_filter = filter.dir_filter();
        Ok((move |rel: &Path| filter.accepts(rel), dir_filter))
    };
    select::select_watched(walker, &search_dir, pattern, index, watch, options, filter)
}

/// An indexed search over `selected` (the search path must be a directory): the files are
/// searched whole, in path order, by the scan's own searcher, with the limits of `grep`, and
/// the summary adds what the selection passed over, so the outcome is the in-process indexed
/// search's (and so a scan's).
pub fn grep_selected(
    walker: Walker,
    query: &GrepQuery,
    selected: Selected,
    sink: Option<Sink<'_>>,
) -> Result<GrepOutcome> {
    // Streamed as `grep_with` streams: settled files go to the sink in path order.
    let (stream, pattern, target) = grep_start(&walker, query, sink)?;
    let stream = stream.as_ref();
    if !matches!(target, Target::Dir(_)) {
        return Err(Error::InvalidArgument(
            "a selection answers the search of a directory only".into(),
        ));
    }
    let (stop, counters) = query.stop_and_counters(&walker);
    let (max, count_all) = query.hit_limit();
    // Files with known spans are read in those parts only (as the in-process indexed search
    // reads the candidate units), when the file is still the one indexed.
    let mut files = selected
        .files
        .into_iter()
        .zip(selected.spans.into_iter().chain(std::iter::repeat(None)))
        .map(|(rel, spans)| match spans {
            Some(spans) => ToSearch::Spanned(rel, spans),
            None => ToSearch::Path(rel, None),
        });
    let how = SortedSearch {
        units: None,
        pattern: &pattern,
        stop: &stop,
        counters: &counters,
        max,
        count_all,
        stream,
    };
    let mut outcome = search_in_batches(&walker, &mut files, how);
    counters.settle(&mut outcome, stream, &stop, true);
    let unreadable = outcome.unreadable;
    outcome.binary_files += selected.binary;
    outcome.unreadable += selected.unreadable;
    outcome.ignored = selected.ignored;
    let skipped = crate::fs::skipped::Skipped::default();
    for (reason, count, examples) in &selected.skipped {
        for example in examples {
            skipped.record(*reason, &example.path, example.is_dir);
        }
        skipped.add(*reason, count.saturating_sub(examples.len() as u64));
    }
    skipped.add(Reason::Binary, outcome.binary_files);
    skipped.add(Reason::Unreadable, unreadable);
    outcome.skipped = skipped.report();
    outcome.search_path = target.real().to_path_buf();
    Ok(outcome)
}

/// Waits while `waiting(state)` holds and the search is neither cut short (`cutoff` set) nor
/// stopped, waking every 20 ms to see a stop that nobody signals; returns the state locked
/// (a piece handed out under it goes out before any later file's).
fn wait_while<'a, T>(
    lock: &'a Mutex<T>,
    progressed: &Condvar,
    cutoff: &AtomicUsize,
    stop: &StopSignal,
    mut waiting: impl FnMut(&T) -> bool,
) -> std::sync::MutexGuard<'a, T> {
    let mut state = lock.lock().unwrap();
    while waiting(&state) && cutoff.load(Ordering::Relaxed) == usize::MAX && !stop.should_stop() {
        state = progressed
            .wait_timeout(state, Duration::from_millis(20))
            .unwrap()
            .0;
    }
    state
}

/// Files of a sorted search: each one's outcome once searched (`Some(None)`: no hits), and
/// how far from the start they are all searched, with the hits in that prefix.
struct Slots {
    done: Vec<Option<Option<FileHits>>>,
    /// Hits searched but not settled (a stream's measure of what it holds ahead).
    held: usize,
    settled: usize,
    settled_hits: u64,
}

/// A file as the index recorded it: what it must still be for its units to be read.
impl From<&FileRecord> for Expected {
    fn from(record: &FileRecord) -> Expected {
        Expected {
            size: record.size,
            mtime_ns: record.mtime_ns,
            ino: record.ino,
        }
    }
}

/// Searches `files` (in path order) in parallel; with a limit, files are taken in order and
/// the search stops once the first `max + 1` hits are settled in that order. Returns the files
/// with hits in order and the number of matches found. With a `stream`, files go to it as
/// they settle (none are returned) and no worker runs more than `STREAM_WINDOW` files ahead.
fn search_sorted(
    walker: &Walker,
    files: &[ToSearch],
    how: SortedSearch<'_, '_>,
) -> (Vec<FileHits>, u64) {
    let SortedSearch {
        max,
        count_all,
        stop,
        stream,
        ..
    } = how;
    let limits = FileLimits {
        max_hits: max.saturating_add(1),
        count_all,
    };
    let wanted = (max as u64).saturating_add(1);
    let next = AtomicUsize::new(0);
    let cutoff = AtomicUsize::new(usize::MAX);
    let slots = Mutex::new(Slots {
        done: (0..files.len()).map(|_| None).collect(),
        held: 0,
        settled: 0,
        settled_hits: 0,
    });
    let progressed = Condvar::new();
    let threads = walker
        .options()
        .thread_count()
        .max(1)
        .min(files.len().max(1));
    let work = || {
        let mut searcher = FileSearcher::new(how.pattern);
        let mut postings = PostingCache::default();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= files.len() || i > cutoff.load(Ordering::Relaxed) || stop.should_stop() {
                break;
            }
            if stream.is_some() {
                drop(wait_while(&slots, &progressed, &cutoff, stop, |s| {
                    i >= s.settled + STREAM_WINDOW || (i > s.settled && s.held > STREAM_HELD_HITS)
                }));
            }
            let file = &files[i];
            let rel = || file.rel().to_path_buf();
            let opened = file.open(walker);
            let by_units = match (&opened, how.units, file.by_units()) {
                (Ok(handle), Some((index, units)), Some(id)) => {
                    let record = index.file(id as usize);
                    let unit_ranges =
                        |chosen: &mut dyn Iterator<Item = u32>| line_ranges(index, &record, chosen);
                    let ranges = unit_ranges(
                        &mut units.range(record.first_unit..record.first_unit + record.units),
                    );
                    let mut occurrences = |needle: &[u8]| {
                        postings
                            .units_holding(index, &record, needle)
                            .map(|held| unit_ranges(&mut held.into_iter()))
                    };
                    let expected = Expected::from(&record);
                    searcher.search_ranges(
                        handle,
                        rel,
                        limits,
                        stop,
                        expected,
                        &ranges,
                        &mut occurrences,
                    )
                }
                (Ok(handle), _, _) => match file.spans() {
                    Some(known) => {
                        let ranges: Vec<LineRange> = known
                            .spans
                            .iter()
                            .map(|&(offset, len, first_line)| LineRange {
                                offset,
                                len,
                                first_line,
                            })
                            .collect();
                        // Where else a hit's text occurs is not known without the index: the
                        // whole file is read when that is asked.
                        searcher.search_ranges(
                            handle,
                            rel,
                            limits,
                            stop,
                            Expected {
                                size: known.size,
                                mtime_ns: known.mtime_ns,
                                ino: known.ino,
                            },
                            &ranges,
                            &mut |_| None,
                        )
                    }
                    None => None,
                },
                _ => None,
            };
            let outcome = match (by_units, stream) {
                (Some(outcome), _) => outcome,
                // A file with many hits goes out in pieces once it is first in line.
                (None, Some(stream)) => {
                    let mut hand_out = |piece: FileHits| {
                        let s = wait_while(&slots, &progressed, &cutoff, stop, |s| s.settled < i);
                        s.settled == i && stream.emit(piece)
                    };
                    searcher.search(opened, rel, limits, stop, Some(&mut hand_out))
                }
                (None, None) => searcher.search(opened, rel, limits, stop, None),
            };
            how.counters.record(&outcome);
            let hits = match outcome {
                FileOutcome::Matched(hits) | FileOutcome::Interrupted(Some(hits)) => Some(hits),
                _ => None,
            };
            let mut s = slots.lock().unwrap();
            s.held += hits.as_ref().map_or(0, |h| h.hits.len());
            s.done[i] = Some(hits);
            if stream.is_none() && (count_all || max == usize::MAX) {
                continue;
            }
            let before = s.settled;
            while s.settled < s.done.len() && s.settled_hits < wanted {
                let at = s.settled;
                let Some(done) = &mut s.done[at] else {
                    break;
                };
                let count = done.as_ref().map_or(0, |h| h.count);
                let mut released = 0;
                let sent = match (stream, done.take()) {
                    (Some(stream), Some(hits)) => {
                        released = hits.hits.len();
                        stream.emit(hits)
                    }
                    (None, taken) => {
                        *done = taken;
                        true
                    }
                    (Some(_), None) => true,
                };
                s.held = s.held.saturating_sub(released);
                s.settled_hits += count;
                if s.settled_hits >= wanted || !sent {
                    cutoff.store(at, Ordering::Relaxed);
                }
                s.settled += 1;
                if !sent {
                    break;
                }
            }
            if s.settled != before {
                progressed.notify_all();
            }
        }
    };
    crate::threads::with_helpers(vec![(); threads - 1], |()| work(), work);
    let slots = slots.into_inner().unwrap();
    let last = cutoff.load(Ordering::Relaxed);
    if let Some(stream) = stream {
        // What settled went out; what a timeout left unsettled goes out in order too.
        let mut found = slots.settled_hits;
        for (i, slot) in slots.done.into_iter().enumerate().skip(slots.settled) {
            if i > last {
                break;
            }
            if let Some(Some(hits)) = slot {
                found += hits.count;
                stream.emit(hits);
            }
        }
        return (Vec::new(), found);
    }
    let slots = slots.done;
    let mut out = Vec::new();
    let mut found = 0u64;
    for (i, slot) in slots.into_iter().enumerate() {
        if i > last {
            break;
        }
        if let Some(Some(hits)) = slot {
            found += hits.count;
            out.push(hits);
        }
    }
    (out, found)
}

/// The byte ranges of `units` (of the file `record`, in order), adjacent ones joined.
fn line_ranges(
    index: &IndexFile,
    record: &FileRecord,
    units: &mut dyn Iterator<Item = u32>,
) -> Vec<LineRange> {
    let mut out: Vec<LineRange> = Vec::new();
    for unit in units {
        let (offset, len, first_line) = index.unit_span(record, unit);
        match out.last_mut() {
            Some(last) if last.offset + last.len == offset => last.len += len,
            _ => out.push(LineRange {
                offset,
                len,
                first_line,
            }),
        }
    }
    out
}

/// One search thread's posting lists, each read once per query: which units of a file may
/// hold a given string (for the uniqueness of a hit's text).
#[derive(Default)]
struct PostingCache {
    lists: HashMap<u32, roaring::RoaringBitmap>,
}

impl PostingCache {
    /// The most trigrams of a string checked (its rarest): fewer only let more units through.
    const MOST_TRIGRAMS: usize = 3;

    /// The units of `record` holding every trigram of `needle` (a superset of those holding
    /// `needle`), or `None` when the index cannot tell.
    fn units_holding(
        &mut self,
        index: &IndexFile,
        record: &FileRecord,
        needle: &[u8],
    ) -> Option<Vec<u32>> {
        let mut trigrams: Vec<u32> = needle
            .windows(3)
            .map(|w| crate::index::plan::trigram([w[0], w[1], w[2]]))
            .collect();
        trigrams.sort_unstable();
        trigrams.dedup();
        // The rarest, by the sizes in the lists' headers: small lists decode fast and
        // narrow most.
        trigrams.sort_by_cached_key(|&t| index.posting_count(t));
        trigrams.truncate(Self::MOST_TRIGRAMS);
        for &trigram in &trigrams {
            if let std::collections::hash_map::Entry::Vacant(slot) = self.lists.entry(trigram) {
                slot.insert(index.postings(trigram).ok()?);
            }
        }
        let lists: Vec<&roaring::RoaringBitmap> = trigrams.iter().map(|t| &self.lists[t]).collect();
        let (first, rest) = lists.split_first()?;
        Some(
            first
                .range(record.first_unit..record.first_unit + record.units)
                .filter(|unit| rest.iter().all(|list| list.contains(*unit)))
                .collect(),
        )
    }
}

/// Results settling in walk order: slot `i` is file `i` of the sorted walk.
struct Settle {
    waiting: HashMap<usize, Option<FileHits>>,
    /// Hits in `waiting`.
    held: usize,
    next: usize,
    settled: Vec<FileHits>,
    settled_hits: u64,
}

#[allow(clippy::too_many_arguments)]
fn ordered(
    walker: &Walker,
    target: Target,
    pattern: &CompiledPattern,
    filter: &FileFilter,
    stop: &StopSignal,
    counters: &Counters,
    max: usize,
    stream: Option<&Stream<'_>>,
) -> GrepOutcome {
    let wanted = (max as u64).saturating_add(1); // one more than the limit proves truncation
    let limits = FileLimits {
        max_hits: max.saturating_add(1),
        count_all: false,
    };
    let cutoff = AtomicUsize::new(usize::MAX);
    let settle = Mutex::new(Settle {
        waiting: HashMap::new(),
        held: 0,
        next: 0,
        settled: Vec::new(),
        settled_hits: 0,
    });
    let progressed = Condvar::new();
    let threads = walker.options().thread_count().max(1);
    let rest_found: Mutex<Option<(Vec<FileHits>, u64)>> = Mutex::new(None);
    // Unbounded, so that the sorted walk runs ahead of the searches instead of taking turns
    // with them; it still stops at the cutoff, at most one run of directories late. A
    // stream bounds it: its workers wait for the consumer, and the walk waits for them.
    let (sender, receiver) = match stream {
        Some(_) => crossbeam_channel::bounded::<(usize, FileEntry)>(STREAM_WINDOW * 4),
        None => crossbeam_channel::unbounded::<(usize, FileEntry)>(),
    };
    // The searching helpers are kept threads (`crate::threads`); this thread walks.
    let helpers: Vec<_> = (0..threads).map(|_| receiver.clone()).collect();
    let search_files = |receiver: crossbeam_channel::Receiver<(usize, FileEntry)>| {
        let (settle, cutoff, progressed) = (&settle, &cutoff, &progressed);
        let mut searcher = FileSearcher::new(pattern);
        for (index, entry) in receiver {
            if index > cutoff.load(Ordering::Relaxed) || stop.should_stop() {
                continue;
            }
            if stream.is_some() {
                // The file being waited for is always inside the window: no deadlock.
                drop(wait_while(settle, progressed, cutoff, stop, |s| {
                    index >= s.next + STREAM_WINDOW || (index > s.next && s.held > STREAM_HELD_HITS)
                }));
            }
            let outcome = match stream {
                // A file with many hits goes out in pieces once it is first in line.
                Some(stream) => {
                    let mut hand_out = |piece: FileHits| {
                        let s = wait_while(settle, progressed, cutoff, stop, |s| s.next < index);
                        s.next == index && stream.emit(piece)
                    };
                    searcher.search(
                        entry.open_to_search(walker.root()),
                        || entry.rel.clone(),
                        limits,
                        stop,
                        Some(&mut hand_out),
                    )
                }
                None => search_entry(&mut searcher, walker, &entry, limits, stop),
            };
            counters.record(&outcome);
            let hits = match outcome {
                FileOutcome::Matched(hits) => Some(hits),
                FileOutcome::Interrupted(hits) => {
                    // Only a timeout interrupts; keep what was found for the report.
                    let mut s = settle.lock().unwrap();
                    s.held += hits.as_ref().map_or(0, |h| h.hits.len());
                    s.waiting.insert(index, hits);
                    continue;
                }
                _ => None,
            };
            let mut s = settle.lock().unwrap();
            s.held += hits.as_ref().map_or(0, |h| h.hits.len());
            s.waiting.insert(index, hits);
            let before = s.next;
            while s.settled_hits < wanted {
                let next = s.next;
                let Some(done) = s.waiting.remove(&next) else {
                    break;
                };
                let mut sent = true;
                if let Some(hits) = done {
                    s.held = s.held.saturating_sub(hits.hits.len());
                    s.settled_hits += hits.count;
                    match stream {
                        Some(stream) => sent = stream.emit(hits),
                        None => s.settled.push(hits),
                    }
                }
                s.next += 1;
                if s.settled_hits >= wanted || !sent {
                    cutoff.store(next, Ordering::Relaxed);
                    break;
                }
            }
            if s.next != before {
                progressed.notify_all();
            }
        }
    };
    crate::threads::with_helpers(helpers, search_files, || {
        drop(receiver);
        let send = |index: usize, entry: FileEntry| -> bool {
            cutoff.load(Ordering::Relaxed) == usize::MAX
                && !stop.should_stop()
                && sender.send((index, entry)).is_ok()
        };
        let mut index = 0;
        match target {
            Target::File(entry) => {
                send(0, entry);
            }
            Target::Dir(start) => {
                let mut files = walker.sorted_files_parallel(start);
                let mut switched = false;
                let mut checkpoint = ORDERED_PREFIX;
                loop {
                    if stream.is_none()
                        && index >= checkpoint
                        && cutoff.load(Ordering::Relaxed) == usize::MAX
                    {
                        checkpoint += ORDERED_PREFIX;
                        let (searched, hits) = {
                            let s = settle.lock().unwrap();
                            (s.next as u64, s.settled_hits)
                        };
                        // Rare: even at eight times the files searched so far, the hits seen would
                        // not add up to the first N. Workers far behind: decide at the next check.
                        if searched * 2 >= ORDERED_PREFIX as u64 && hits * 8 < wanted {
                            switched = true;
                            break;
                        }
                    }
                    let Some(entry) = files.next() else { break };
                    if filter.accepts(&entry.rel) {
                        if !send(index, entry) {
                            break;
                        }
                        index += 1;
                    }
                }
                if switched {
                    // A rare pattern: the first N did not settle early, so the rest of the tree is
                    // scanned by the parallel walker (no order needed: every file is searched and
                    // the first N kept). The files already expanded still go through the workers.
                    let (ready, loose, dirs) = files.split_rest();
                    let loose: Vec<FileEntry> = loose
                        .into_iter()
                        .filter(|f| filter.accepts(&f.rel))
                        .collect();
                    for entry in ready {
                        if filter.accepts(&entry.rel) {
                            if !send(index, entry) {
                                break;
                            }
                            index += 1;
                        }
                    }
                    drop(sender);
                    let rest = scan_unordered(
                        walker, loose, dirs, pattern, filter, stop, counters, max, false, &cutoff,
                    );
                    *rest_found.lock().unwrap() = Some(rest);
                    return;
                }
            }
        }
        drop(sender);
    });
    let mut s = settle.into_inner().unwrap();
    let mut files = std::mem::take(&mut s.settled);
    let cut = cutoff.load(Ordering::Relaxed) != usize::MAX;
    if stop.timed_out() || !cut {
        // Everything found, settled or not, in order (without a cutoff every sent file was
        // searched, so nothing is missing before the unordered rest).
        let mut rest: Vec<(usize, FileHits)> = s
            .waiting
            .into_iter()
            .filter_map(|(i, h)| h.map(|h| (i, h)))
            .collect();
        rest.sort_by_key(|(i, _)| *i);
        files.extend(rest.into_iter().map(|(_, h)| h));
    }
    let mut found: u64 = files.iter().map(|f| f.count).sum();
    if let Some(stream) = stream {
        // The settled files went out; what a timeout left unsettled goes out in order too.
        for file in files {
            stream.emit(file);
        }
        found += s.settled_hits;
        return finish(Vec::new(), max, found, false);
    }
    if !cut && let Some((rest, rest_total)) = rest_found.into_inner().unwrap() {
        files.extend(rest);
        found += rest_total;
    }
    finish(files, max, found, false)
}

/// Every this many files, an ordered search whose first N have not settled checks its hit
/// rate; a rare pattern switches to an unordered (pruned) parallel scan of the rest.
const ORDERED_PREFIX: usize = 4096;

/// Searches `loose` files (already accepted, with their relative paths) and the trees under
/// `dirs` with the parallel walker, keeping the files with the smallest paths whose hits add
/// up to `max + 1`; once those are held, files sorting after them are skipped unsearched
/// (unless `count_all`). Stops early when `cutoff` gets set (the ordered part already holds
/// the first N). Returns those files sorted by path,
/// and the number of matches found in all.
#[allow(clippy::too_many_arguments)]
fn scan_unordered(
    walker: &Walker,
    loose: Vec<FileEntry>,
    dirs: Vec<DirWork>,
    pattern: &CompiledPattern,
    filter: &FileFilter,
    stop: &StopSignal,
    counters: &Counters,
    max: usize,
    count_all: bool,
    cutoff: &AtomicUsize,
) -> (Vec<FileHits>, u64) {
    let limits = FileLimits {
        max_hits: max.saturating_add(1),
        count_all,
    };
    // Without a limit every file with hits is kept: no bookkeeping per file, one sort at the end.
    let unlimited = max == usize::MAX;
    let kept = Mutex::new(KeptFiles::new(max));
    let all: Mutex<Vec<FileHits>> = Mutex::new(Vec::new());
    let total = AtomicU64::new(0);
    let search_one = |searcher: &mut FileSearcher, entry: &FileEntry| {
        // Once the first N are held, a file sorting after all of them cannot be among them.
        if !(unlimited || count_all)
            && kept
                .lock()
                .unwrap()
                .bound()
                .is_some_and(|last| entry.rel.as_os_str() > last)
        {
            return;
        }
        let outcome = search_entry(searcher, walker, entry, limits, stop);
        counters.record(&outcome);
        if let FileOutcome::Matched(hits) | FileOutcome::Interrupted(Some(hits)) = outcome {
            total.fetch_add(hits.count, Ordering::Relaxed);
            if unlimited {
                all.lock().unwrap().push(hits);
            } else {
                kept.lock().unwrap().add(hits);
            }
        }
    };
    let done = || stop.should_stop() || cutoff.load(Ordering::Relaxed) != usize::MAX;
    let mut searcher = FileSearcher::new(pattern);
    for entry in &loose {
        if done() {
            break;
        }
        search_one(&mut searcher, entry);
    }
    if !dirs.is_empty() && !done() {
        let search_one = &search_one;
        let done = &done;
        walker.visit_parallel(dirs, || {
            let mut searcher = FileSearcher::new(pattern);
            Box::new(move |entry| {
                if done() {
                    return WalkState::Quit;
                }
                if filter.accepts(&entry.rel) {
                    search_one(&mut searcher, entry);
                }
                WalkState::Continue
            })
        });
    }
    let files = if unlimited {
        let mut files = all.into_inner().unwrap();
        files.sort_unstable_by(|a, b| a.path.as_os_str().cmp(b.path.as_os_str()));
        files
    } else {
        kept.into_inner().unwrap().into_sorted()
    };
    (files, total.load(Ordering::Relaxed))
}

fn exhaustive(
    walker: &Walker,
    query: &GrepQuery,
    target: Target,
    pattern: &CompiledPattern,
    filter: &FileFilter,
    stop: &StopSignal,
    counters: &Counters,
) -> GrepOutcome {
    let max = query.max_matches.unwrap_or(usize::MAX);
    let never = AtomicUsize::new(usize::MAX);
    let (loose, dirs) = match target {
        // An explicit file is searched whatever the filters say, as ripgrep does.
        Target::File(entry) => (vec![entry], vec![]),
        Target::Dir(start) => (vec![], vec![start]),
    };
    let (files, found) = scan_unordered(
        walker,
        loose,
        dirs,
        pattern,
        filter,
        stop,
        counters,
        max,
        query.count_total,
        &never,
    );
    finish(files, max, found, query.count_total)
}

/// The files with the smallest paths whose hits add up to at least `max + 1`; files beyond
/// are dropped as soon as they cannot be among the first `max` hits, bounding memory.
struct KeptFiles {
    max: usize,
    /// By path bytes (an `OsString` orders by bytes; a `PathBuf` would order by components).
    files: BTreeMap<OsString, FileHits>,
    hits: usize,
}

impl KeptFiles {
    fn new(max: usize) -> KeptFiles {
        KeptFiles {
            max,
            files: BTreeMap::new(),
            hits: 0,
        }
    }

    fn add(&mut self, file: FileHits) {
        self.hits += file.hits.len();
        self.files.insert(file.path.clone().into_os_string(), file);
        while let Some(last) = self.files.last_key_value() {
            let last_hits = last.1.hits.len();
            if self.hits - last_hits > self.max {
                self.hits -= last_hits;
                self.files.pop_last();
            } else {
                break;
            }
        }
    }

    /// The path of the last file kept, once the kept files hold more than `max` hits: no file
    /// sorting after it can be among the first `max`.
    fn bound(&self) -> Option<&std::ffi::OsStr> {
        if self.hits > self.max {
            self.files.last_key_value().map(|(k, _)| k.as_os_str())
        } else {
            None
        }
    }

    fn into_sorted(self) -> Vec<FileHits> {
        self.files.into_values().collect()
    }
}

/// Cuts the ordered files to `max` hits and works out `total` and `truncated` from the
/// number of matches `found` (all of them when `counted`).
///
/// A file cut here (content mode: only a file with more hits than the limit leaves) counts, as
/// `FileHits::matches`, the hits it keeps unless every match was `counted`: how far its search
/// went past them depends on the plan (a scan caps each file at the limit, an indexed search
/// at what the files before it left), so it is no part of the result. Then the counts add up
/// to `total`, as the hits do.
fn finish(mut files: Vec<FileHits>, max: usize, found: u64, counted: bool) -> GrepOutcome {
    let truncated = found > max as u64;
    let mut remaining = max;
    files.retain_mut(|file| {
        if remaining == 0 {
            return false;
        }
        if file.hits.len() > remaining {
            file.hits.truncate(remaining);
            if !counted {
                file.matches = remaining as u64;
            }
        }
        remaining -= file.hits.len();
        !file.hits.is_empty()
    });
    let returned: u64 = files.iter().map(|f| f.hits.len() as u64).sum();
    GrepOutcome {
        files,
        total: if truncated && !counted {
            returned
        } else {
            found
        },
        truncated,
        ..GrepOutcome::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::blank_hits;

    fn file(name: &str, hits: usize, matches: u64) -> FileHits {
        blank_hits(name, &vec![1; hits], matches)
    }

    fn counts(outcome: &GrepOutcome) -> Vec<(usize, u64)> {
        outcome
            .files
            .iter()
            .map(|f| (f.hits.len(), f.matches))
            .collect()
    }

    #[test]
    fn a_limit_stops_the_search_unless_every_match_is_counted() {
        for (max_matches, count_total, expected) in [
            (None, false, (usize::MAX, false)),
            (Some(5), false, (5, false)),
            (Some(5), true, (5, true)),
            (None, true, (usize::MAX, true)),
        ] {
            let query = GrepQuery {
                max_matches,
                count_total,
                ..GrepQuery::default()
            };
            let got = query.hit_limit();
            assert_eq!(got, expected, "{max_matches:?}, count_total {count_total}");
        }
    }

    #[test]
    fn a_settled_outcome_counts_the_hits_streamed_when_cut_and_a_timeout_cuts_it() {
        let counters = Counters::default();
        for outcome in [
            FileOutcome::Binary,
            FileOutcome::Unreadable,
            FileOutcome::NoMatch,
        ] {
            counters.record(&outcome);
        }
        let sink = |_: FileHits| true;
        let stream = stream_for(&GrepQuery::default(), Some(&sink))
            .unwrap()
            .unwrap();
        stream.emit(file("a", 4, 4));
        let running = StopSignal::new(None);
        let mut cut = GrepOutcome {
            total: 9,
            truncated: true,
            ..GrepOutcome::default()
        };
        counters.settle(&mut cut, Some(&stream), &running, true);
        let figures = |o: &GrepOutcome| {
            (
                o.total,
                o.truncated,
                o.timed_out,
                o.indexed,
                o.files_searched,
                o.binary_files,
                o.unreadable,
            )
        };
        assert_eq!(figures(&cut), (4, true, false, true, 3, 1, 1));
        // Past its deadline: timed out, so cut; a whole outcome keeps its own total.
        let late = StopSignal::new(Some(Instant::now()));
        assert!(late.should_stop());
        let mut whole = GrepOutcome {
            total: 9,
            ..GrepOutcome::default()
        };
        counters.settle(&mut whole, Some(&stream), &late, false);
        assert_eq!(figures(&whole), (9, true, true, false, 3, 1, 1));
    }

    /// However far past the limit a plan searched the file cut by it (a scan caps each file
    /// at the limit, an indexed search at what the files before left), the result is the same.
    #[test]
    fn a_file_cut_by_the_limit_counts_the_hits_it_keeps_unless_all_were_counted() {
        // (b's hits searched, b's matches, matches found, all counted) and what is kept of b,
        // the total and whether it is cut.
        for (searched, matches, found, counted, kept, total, truncated) in [
            (3, 4, 7, false, (1, 1), 3, true),
            (7, 8, 11, false, (1, 1), 3, true),
            (12, 13, 16, false, (1, 1), 3, true),
            (4, 20, 22, true, (1, 20), 22, true),
            (1, 1, 3, false, (1, 1), 3, false),
        ] {
            let files = vec![file("a", 2, 2), file("b", searched, matches)];
            let outcome = finish(files, 3, found, counted);
            let case = format!("searched {searched}, found {found}, counted {counted}");
            assert_eq!(counts(&outcome), vec![(2, 2), kept], "{case}");
            let figures = (outcome.total, outcome.truncated);
            assert_eq!(figures, (total, truncated), "{case}");
        }
    }
}

/// The searches of whole trees built in temporary directories: the plans agree on the hits and
/// their order, limits cut where they say, binary files are passed over, the index selects
/// what a scan finds, and a cancelled search stops.
#[cfg(test)]
mod tree_tests {
    use super::*;
    use crate::index::select::FileSpans;
    use crate::index::watched::{caught_up_watch, install_watch};
    use crate::test_support::build_index;
    use std::os::unix::ffi::OsStrExt;

    /// A tree with `files` (relative path, contents), directories made as needed.
    fn tree(files: &[(&str, &[u8])]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        crate::test_support::write_files(dir.path(), files);
        dir
    }

    fn walker(root: &Path) -> Walker {
        crate::test_support::test_walker(root)
    }

    /// The one place a query is made (its fields are the query type's; tests change them).
    fn query(pattern: &str) -> GrepQuery {
        GrepQuery {
            pattern: PatternOptions {
                pattern: pattern.into(),
                case_sensitive: true,
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// (path, line, column) of every hit, in the order the outcome has them.
    fn hit_list(outcome: &GrepOutcome) -> Vec<(String, u64, u64)> {
        outcome
            .files
            .iter()
            .flat_map(|f| {
                let path = f.path.to_string_lossy().into_owned();
                f.hits.iter().map(move |h| (path.clone(), h.line, h.column))
            })
            .collect()
    }

    /// Everything a caller sees of an outcome but how many files were read: the hits with
    /// their bytes, the counts and the summary of what was passed over.
    #[allow(clippy::type_complexity)]
    fn seen(
        outcome: &GrepOutcome,
    ) -> (
        Vec<(PathBuf, Vec<(u64, u64, u64, Vec<u8>, bool)>, u64)>,
        (u64, bool, u64, u64, u64),
        Vec<(Reason, u64, Vec<Example>)>,
    ) {
        let files = outcome
            .files
            .iter()
            .map(|f| {
                let hits = f
                    .hits
                    .iter()
                    .map(|h| {
                        let content = f.slice(h.content).to_vec();
                        (h.line, h.column, h.byte_offset, content, h.unique)
                    })
                    .collect();
                (f.path.clone(), hits, f.matches)
            })
            .collect();
        let counts = (
            outcome.total,
            outcome.truncated,
            outcome.binary_files,
            outcome.unreadable,
            outcome.ignored,
        );
        (files, counts, outcome.skipped.clone())
    }

    fn key(path: &str, line: u64, column: u64) -> (String, u64, u64) {
        (path.to_string(), line, column)
    }

    #[test]
    fn a_scan_returns_hits_in_path_line_and_column_order_in_every_plan() {
        let dir = tree(&[
            ("b.txt", b"x hit hit\nno\nhit\n"),
            ("a/z.txt", b"hit\n"),
            ("a/b.txt", b"none\n\nnone hit\n"),
            ("c/d/e.txt", b"  hit\n"),
            ("c/d.txt", b"hit at the start\n"),
            ("ignored.txt", b"hit\n"),
            (".gitignore", b"ignored.txt\n"),
            ("nothing.txt", b"nothing\n"),
        ]);
        let expected = vec![
            key("a/b.txt", 3, 6),
            key("a/z.txt", 1, 1),
            key("b.txt", 1, 3),
            key("b.txt", 1, 7),
            key("b.txt", 3, 1),
            key("c/d.txt", 1, 1),
            key("c/d/e.txt", 1, 3),
        ];
        // The exhaustive parallel plan (no limit; a total), and the ordered one (a limit).
        for (max_matches, count_total) in [(None, false), (None, true), (Some(100), false)] {
            let mut q = query("hit");
            q.max_matches = max_matches;
            q.count_total = count_total;
            let outcome = grep(walker(dir.path()), &q, None).unwrap();
            let plan = format!("max_matches={max_matches:?} count_total={count_total}");
            assert_eq!(hit_list(&outcome), expected, "{plan}");
            assert_eq!(
                (outcome.total, outcome.truncated, outcome.indexed),
                (7, false, false),
                "{plan}: total, truncated, indexed"
            );
            // Every visible file but .gitignore (hidden) is searched; the ignored one is not.
            assert_eq!(
                (outcome.files_searched, outcome.ignored),
                (6, 1),
                "{plan}: files searched, ignored"
            );
            let b = &outcome.files[2];
            assert_eq!(
                (b.path.as_path(), b.matches, b.slice(b.hits[0].text)),
                (Path::new("b.txt"), 3, &b"x hit hit"[..]),
                "{plan}: a file's matches and its hit's line"
            );
        }
        // A streamed search sends the same files in the same order.
        let sent = Mutex::new(Vec::new());
        let sink = |file: FileHits| {
            sent.lock().unwrap().push(file);
            true
        };
        let outcome = grep_with(walker(dir.path()), &query("hit"), None, Some(&sink)).unwrap();
        let streamed = GrepOutcome {
            files: sent.into_inner().unwrap(),
            ..GrepOutcome::default()
        };
        assert_eq!(hit_list(&streamed), expected, "streamed");
        assert!(outcome.files.is_empty(), "a stream keeps no files");
    }

    #[test]
    fn max_matches_cuts_the_last_file_to_what_the_limit_leaves() {
        let dir = tree(&[
            ("a.txt", b"hit\nhit\nhit\n"),
            ("b.txt", b"hit hit\nhit\nhit\n"),
            ("c.txt", b"hit\nhit\n"),
        ]);
        let mut q = query("hit");
        q.max_matches = Some(5);
        let outcome = grep(walker(dir.path()), &q, None).unwrap();
        let per_file: Vec<(String, usize, u64)> = outcome
            .files
            .iter()
            .map(|f| (f.path.to_string_lossy().into(), f.hits.len(), f.matches))
            .collect();
        assert_eq!(
            per_file,
            [("a.txt".into(), 3, 3), ("b.txt".into(), 2, 2)],
            "(path, hits, matches) per file"
        );
        assert_eq!((outcome.total, outcome.truncated), (5, true));
        assert_eq!(
            hit_list(&outcome)[3..],
            [key("b.txt", 1, 1), key("b.txt", 1, 5)],
            "the first hits of the cut file"
        );
        // With a total, every match is counted, and the cut file keeps its count.
        q.count_total = true;
        let outcome = grep(walker(dir.path()), &q, None).unwrap();
        let last = outcome.files.last().unwrap();
        assert_eq!(
            (outcome.files.len(), last.hits.len(), last.matches),
            (2, 2, 4),
            "(files, hits of the cut file, its matches)"
        );
        assert_eq!((outcome.total, outcome.truncated), (9, true));
        // Exactly the limit is not truncated.
        q.count_total = false;
        q.max_matches = Some(9);
        let outcome = grep(walker(dir.path()), &q, None).unwrap();
        assert_eq!((outcome.total, outcome.truncated), (9, false));
        // A limit of files in files mode.
        q.max_matches = Some(2);
        q.mode = OutputMode::Files;
        let outcome = grep(walker(dir.path()), &q, None).unwrap();
        assert_eq!(
            hit_list(&outcome),
            [key("a.txt", 1, 1), key("b.txt", 1, 1)],
            "files mode: the first hit of the first two files"
        );
        assert_eq!((outcome.total, outcome.truncated), (2, true));
    }

    #[test]
    fn binary_files_are_counted_and_their_hits_not_reported() {
        let mut late_nul = b"hit early\n".to_vec();
        late_nul.extend(std::iter::repeat_n(b'a', 200 * 1024));
        late_nul.extend_from_slice(b"\n\0\n");
        let dir = tree(&[
            ("a.bin", b"hit\0hit\n"),
            ("b.txt", b"hit\n"),
            ("c.late", &late_nul),
            ("d.bin", b"\0no match at all\n"),
        ]);
        for max_matches in [None, Some(10)] {
            let mut q = query("hit");
            q.max_matches = max_matches;
            let outcome = grep(walker(dir.path()), &q, None).unwrap();
            assert_eq!(
                hit_list(&outcome),
                [key("b.txt", 1, 1)],
                "{max_matches:?}: only the text file's hit"
            );
            assert_eq!(
                (outcome.binary_files, outcome.files_searched),
                (3, 4),
                "{max_matches:?}: (binary, searched)"
            );
            let binary = outcome
                .skipped
                .iter()
                .find(|(reason, ..)| *reason == Reason::Binary)
                .map(|(_, count, _)| *count);
            assert_eq!(binary, Some(3), "{max_matches:?}: the summary");
        }
    }

    /// Files written before this long before a build are not "racily clean": the index vouches
    /// for them (else it reads every file from disk, as a scan).
    const RACY: Duration = Duration::from_millis(2_100);

    /// A tree to index: files that hold `needle` in different ways, many that do not, binary,
    /// ignored and hidden files.
    fn indexed_tree() -> tempfile::TempDir {
        let mut files: Vec<(String, Vec<u8>)> = vec![
            (
                "src/a.rs".into(),
                b"fn one_needle() {}\nlet x = needle;\n".to_vec(),
            ),
            ("src/b.rs".into(), b"nothing here\n".to_vec()),
            ("src/deep/c.rs".into(), b"fn two_needle() {}\n".to_vec()),
            (
                "docs/readme.md".into(),
                b"Needle two, in capitals\n".to_vec(),
            ),
            ("data.bin".into(), b"needle\0binary\n".to_vec()),
            (".gitignore".into(), b"ignored/\n*.log\n".to_vec()),
            ("ignored/x.rs".into(), b"needle\n".to_vec()),
            ("app.log".into(), b"needle\n".to_vec()),
            (".hidden/h.rs".into(), b"needle\n".to_vec()),
        ];
        for i in 0..40 {
            files.push((
                format!("filler/f{i:02}.txt"),
                format!("filler line {i}\n").into_bytes(),
            ));
        }
        let refs: Vec<(&str, &[u8])> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_slice()))
            .collect();
        tree(&refs)
    }

    #[test]
    fn a_selection_with_spans_reads_only_those_parts_while_the_file_is_unchanged() {
        use std::os::unix::fs::MetadataExt;
        let mut text = b"needle one\n".to_vec();
        for i in 0..2000 {
            text.extend_from_slice(format!("filler line {i}\n").as_bytes());
        }
        text.extend_from_slice(b"needle two\n");
        let dir = tree(&[("big.txt", &text)]);
        let meta = std::fs::metadata(dir.path().join("big.txt")).unwrap();
        // As the daemon vouches for an unchanged file: only its first line can hold a match.
        let spans = FileSpans {
            size: meta.len(),
            mtime_ns: meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
            ctime_ns: meta.ctime() * 1_000_000_000 + meta.ctime_nsec(),
            ino: meta.ino(),
            spans: vec![(0, 11, 1)],
        };
        let selection = |spans: FileSpans| Selected {
            files: vec![PathBuf::from("big.txt")],
            spans: vec![Some(spans)],
            ..Selected::default()
        };
        let q = query("needle");
        let read = grep_selected(walker(dir.path()), &q, selection(spans.clone()), None).unwrap();
        assert_eq!(
            hit_list(&read),
            vec![("big.txt".to_string(), 1, 1)],
            "only the span was read (the daemon said the rest holds no match)"
        );
        // Not the file the index saw (another size): read whole.
        let other = FileSpans {
            size: spans.size + 1,
            ..spans
        };
        let read = grep_selected(walker(dir.path()), &q, selection(other), None).unwrap();
        assert_eq!(
            hit_list(&read),
            vec![
                ("big.txt".to_string(), 1, 1),
                ("big.txt".to_string(), 2002, 1)
            ]
        );
    }

    /// The patterns the index narrows, and what each must find after the tree changed.
    const NARROWED: [(&str, usize); 4] = [
        ("needle", 3),
        (r"fn \w+_needle", 2),
        ("(?i)needle two", 1),
        ("absent_from_every_file", 0),
    ];

    #[test]
    fn the_index_selects_the_files_a_scan_finds_hits_in() {
        let dir = indexed_tree();
        let store = tempfile::tempdir().unwrap();
        std::thread::sleep(RACY);
        let index = build_index(dir.path(), &store.path().join("index"));
        let watch = caught_up_watch(walker(dir.path()), &index).expect("a caught-up watch");
        // Changes since the build: a new file, a changed one, a removed one, a new binary.
        std::fs::write(dir.path().join("src/new.rs"), b"fn new_needle() {}\n").unwrap();
        std::fs::write(dir.path().join("src/b.rs"), b"now a needle\n").unwrap();
        std::fs::remove_file(dir.path().join("src/deep/c.rs")).unwrap();
        std::fs::write(dir.path().join("new.bin"), b"needle\0\n").unwrap();
        let slot = Mutex::new(Some(watch));
        for (pattern, files_with_hits) in NARROWED {
            let q = query(pattern);
            let scan = grep(walker(dir.path()), &q, None).unwrap();
            assert!(!scan.indexed);
            assert_eq!(scan.files.len(), files_with_hits, "{pattern}: the scan");
            assert!(scan.ignored > 0 && scan.binary_files == 2, "{pattern}");
            // Without a watch: a walk that stats every file.
            let walked = IndexUse {
                file: &index,
                watch: None,
            };
            let by_walk = grep(walker(dir.path()), &q, Some(walked)).unwrap();
            assert!(by_walk.indexed, "{pattern}: the index was used");
            assert_eq!(seen(&by_walk), seen(&scan), "{pattern}: indexed by a walk");
            // The selection a caught-up watch makes with no walk, searched as a client does.
            let mut watch = slot.lock().unwrap().take().expect("the watch is back");
            watch.drain();
            let (selection, watch) = select_watched(walker(dir.path()), &q, &index, watch);
            let selection = selection.unwrap();
            install_watch(&slot, watch);
            let selection = selection.expect("the watch answers");
            let names: Vec<&[u8]> = selection
                .files
                .iter()
                .map(|p| p.as_os_str().as_bytes())
                .collect();
            assert!(
                !names.iter().any(|n| n.starts_with(b"filler/")),
                "{pattern}: narrowed, not every file: {names:?}"
            );
            for file in &scan.files {
                assert!(
                    selection.files.contains(&file.path),
                    "{pattern}: {:?} has hits but was not selected: {names:?}",
                    file.path
                );
            }
            let by_selection = grep_selected(walker(dir.path()), &q, selection, None).unwrap();
            assert!(by_selection.indexed);
            assert_eq!(
                seen(&by_selection),
                seen(&scan),
                "{pattern}: the selection's search"
            );
            // In process, with the watch: the same again.
            let watched = IndexUse {
                file: &index,
                watch: Some(&slot),
            };
            let by_watch = grep(walker(dir.path()), &q, Some(watched)).unwrap();
            assert_eq!(
                seen(&by_watch),
                seen(&scan),
                "{pattern}: indexed by the watch"
            );
            assert!(
                by_watch.files_searched < scan.files_searched,
                "{pattern}: searched {} files, the scan {}",
                by_watch.files_searched,
                scan.files_searched
            );
        }
        // A limit settles the same first hits through the index.
        let mut q = query("needle");
        q.max_matches = Some(2);
        let scan = grep(walker(dir.path()), &q, None).unwrap();
        let walked = IndexUse {
            file: &index,
            watch: None,
        };
        let by_walk = grep(walker(dir.path()), &q, Some(walked)).unwrap();
        assert_eq!(seen(&by_walk), seen(&scan), "a limit through the index");
        assert!(scan.truncated);
    }

    #[test]
    fn a_selection_of_its_first_files_is_the_whole_one_cut_and_says_so() {
        let dir = indexed_tree();
        let store = tempfile::tempdir().unwrap();
        let index = build_index(dir.path(), &store.path().join("index"));
        let mut watch = Some(caught_up_watch(walker(dir.path()), &index).expect("a watch"));
        let q = query("needle");
        let pattern = q.compiled().unwrap();
        let mut select = |first: Option<usize>| {
            let taken = watch.take().unwrap();
            let (selection, back) = select_watched_with(
                walker(dir.path()),
                &q,
                &pattern,
                &index,
                taken,
                SelectionOptions {
                    first,
                    ..SelectionOptions::default()
                },
            );
            watch = Some(back);
            selection.unwrap().expect("the watch answers")
        };
        let whole = select(None);
        assert!(whole.files.len() > 2 && !whole.more, "{:?}", whole.files);
        let page = select(Some(2));
        assert_eq!(
            page.files,
            whole.files[..2],
            "the first files, in path order"
        );
        assert_eq!(page.spans, whole.spans[..2]);
        assert!(page.more, "files were left out");
        assert_eq!((page.binary, &page.skipped), (whole.binary, &whole.skipped));
        let exact = select(Some(whole.files.len()));
        assert_eq!(exact.files, whole.files);
        assert!(!exact.more, "nothing was left out");
    }

    #[test]
    fn a_pattern_the_index_cannot_narrow_is_left_to_a_scan() {
        let dir = indexed_tree();
        let store = tempfile::tempdir().unwrap();
        let index = build_index(dir.path(), &store.path().join("index"));
        let watch = caught_up_watch(walker(dir.path()), &index).expect("a caught-up watch");
        let q = query(r"\w");
        let scan = grep(walker(dir.path()), &q, None).unwrap();
        let walked = IndexUse {
            file: &index,
            watch: None,
        };
        let with_index = grep(walker(dir.path()), &q, Some(walked)).unwrap();
        assert!(!with_index.indexed, "no candidates: a scan");
        assert_eq!(seen(&with_index), seen(&scan));
        let (selection, watch) = select_watched(walker(dir.path()), &q, &index, watch);
        let selection = selection.unwrap();
        assert_eq!(
            selection.err(),
            Some("the index does not narrow this pattern")
        );
        // A client that applies its own rules asks for every file instead.
        let (selection, _) = select_watched_with(
            walker(dir.path()),
            &q,
            &q.compiled().unwrap(),
            &index,
            watch,
            SelectionOptions {
                every: true,
                list_unnarrowed: true,
                first: None,
            },
        );
        let selection = selection.unwrap().expect("every file is listed");
        let mut visible: Vec<PathBuf> = scan
            .files
            .iter()
            .map(|f| f.path.clone())
            .chain([PathBuf::from("data.bin")])
            .collect();
        visible.sort();
        assert_eq!(
            selection.files, visible,
            "every visible file, binary included"
        );
    }

    #[test]
    fn a_cancelled_search_stops_searching() {
        let files: Vec<(String, &[u8])> = (0..2_000)
            .map(|i| (format!("d{:02}/f{i:04}.txt", i % 50), &b"hit\n"[..]))
            .collect();
        let refs: Vec<(&str, &[u8])> = files.iter().map(|(p, t)| (p.as_str(), *t)).collect();
        let dir = tree(&refs);
        // A stream whose consumer cancels at its first file.
        let token = CancelToken::new();
        let received = AtomicUsize::new(0);
        let sink = |_: FileHits| {
            received.fetch_add(1, Ordering::Relaxed);
            token.cancel();
            true
        };
        let w = walker(dir.path()).with_cancel(token.clone());
        let outcome = grep_with(w, &query("hit"), None, Some(&sink)).unwrap();
        let received = received.load(Ordering::Relaxed);
        assert!(
            received < 1_000 && outcome.files_searched < 1_000,
            "received {received} files and searched {} of 2000 after the cancel",
            outcome.files_searched
        );
        // A selection searched after a cancel reads nothing.
        let token = CancelToken::new();
        token.cancel();
        let w = walker(dir.path()).with_cancel(token);
        let selection = Selected {
            files: files.iter().map(|(p, _)| PathBuf::from(p)).collect(),
            ..Selected::default()
        };
        let outcome = grep_selected(w, &query("hit"), selection, None).unwrap();
        assert_eq!(
            (outcome.files_searched, outcome.files.len()),
            (0, 0),
            "(searched, with hits) after a cancel"
        );
        // A consumer that goes away stops the stream too.
        let received = AtomicUsize::new(0);
        let sink = |_: FileHits| received.fetch_add(1, Ordering::Relaxed) < 2;
        grep_with(walker(dir.path()), &query("hit"), None, Some(&sink)).unwrap();
        assert_eq!(
            received.load(Ordering::Relaxed),
            3,
            "files sent until refused"
        );
    }
}
