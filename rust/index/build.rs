//! Building an index: the walk (through the root handle, with the workspace's rules, as a
//! scan would walk), then the files read in parallel in chunks of consecutive paths, each
//! cut into line-aligned units whose byte trigrams go into per-chunk posting lists, merged in
//! path order so that unit ids follow the order results come in.
//!
//! No file is left out silently: a binary, UTF-16, oversized or unreadable file is recorded
//! without postings and is searched from disk by every query.

use super::format::{self, BINARY, Contents, FileRecord, INDEXED, UTF8_BOM, UnitRecord};
use super::postings::PostingList;
use super::spill::{Runs, SpillFile};
use crate::fs::walk::{Batch, FileEntry, WalkState, Walker};
use rustix::fs::Stat;
use std::collections::BTreeMap;
use std::io::{self, Read};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Units are cut at the last line end before this many bytes (a longer line is one unit).
pub const UNIT_BYTES: usize = 16 * 1024;
/// Files larger than this are not indexed (always scanned).
pub const MAX_INDEXED_FILE: u64 = 64 * 1024 * 1024;
/// Consecutive files handed to one worker at a time, by bytes and by count. A worker's
/// buffers grow with its chunk's text (about 8 bytes per byte read), and chunks wait their
/// turn to merge: a small memory budget makes chunks smaller (`chunk_bytes`).
const CHUNK_BYTES: u64 = 16 * 1024 * 1024;

/// The bytes of text in one chunk under `memory_budget`.
fn chunk_bytes(memory_budget: u64) -> u64 {
    CHUNK_BYTES.min(memory_budget / 64).max(64 * 1024)
}
const CHUNK_FILES: usize = 2048;

/// What a build did.
#[derive(Debug, Default, Clone)]
pub struct BuildStats {
    pub files: usize,
    pub indexed_files: usize,
    pub units: usize,
    pub trigrams: usize,
    pub bytes_indexed: u64,
    pub index_bytes: u64,
    /// Runs of posting lists spilled to disk to keep within the memory budget.
    pub spilled_runs: usize,
    /// The most the posting lists held in memory came to (estimated, see `held_bytes`).
    pub peak_list_bytes: u64,
}

/// What the posting lists gathered in memory may take: three eighths of the build's budget
/// (counted by the bytes they hold), the rest for the walk's list of files, the file and unit
/// tables, each worker's buffers and the merge's table of trigrams. At a million files (12
/// copies of the Linux tree) those take about 600 MB: with half of the 1 GiB default for the
/// lists, the daemon's peak was 1,092 MB.
fn list_budget(memory_budget: u64) -> u64 {
    memory_budget / 8 * 3
}

/// What a list new to the build's map takes besides its bytes: its entry (trigram, list
/// header, count and last id) and the map's slack.
const NEW_LIST_BYTES: u64 = 48;

/// A file to index, with the state it had when the walk saw it.
struct Found {
    entry: FileEntry,
    stat: Stat,
}

/// What one chunk of files gave.
struct ChunkResult {
    files: Vec<FileRecord>,
    /// Per unit; `file` counts within the chunk.
    units: Vec<UnitRecord>,
    postings: ChunkPostings,
    bytes: u64,
}

/// A chunk's posting lists, flat: for each trigram in ascending order, its first and last
/// unit (chunk-relative), how many units, and where the varints of its gaps after the first
/// end in `rest` (`PostingList`'s form: they do not change when the chunk's units are moved
/// to where they start in the build, so the merge copies them as they are). One allocation
/// per chunk, made by the thread that read it.
#[derive(Default)]
struct ChunkPostings {
    lists: Vec<ChunkList>,
    rest: Vec<u8>,
}

struct ChunkList {
    trigram: u32,
    first: u32,
    last: u32,
    count: u32,
    rest_end: usize,
}

impl ChunkPostings {
    /// Each list and the varints of its gaps after the first, in trigram order.
    fn lists(&self) -> impl Iterator<Item = (&ChunkList, &[u8])> {
        let mut at = 0;
        self.lists.iter().map(move |list| {
            let rest = &self.rest[at..list.rest_end];
            at = list.rest_end;
            (list, rest)
        })
    }
}

/// The build's posting lists while they are gathered, in the order their trigrams first
/// came, and each trigram's place among them in a table of all 2^24 trigrams. The merge looks
/// a trigram up for every list of every chunk, and a direct table lookup costs less than a
/// hash lookup (which was a third of what merging cost); the table is 64 MiB of address
/// space, of which only the pages of trigrams that occur are ever touched (text's trigrams
/// gather in a few ranges: tens of megabytes at most).
struct Lists {
    /// Per trigram: 0, or its list's place in `lists` plus one.
    place: Vec<u32>,
    lists: Vec<(u32, PostingList)>,
}

impl Lists {
    fn new() -> Lists {
        Lists {
            place: vec![0; 1 << 24],
            lists: Vec::new(),
        }
    }

    /// The list of `trigram` (24 bits), and whether it is new.
    fn entry(&mut self, trigram: u32) -> (&mut PostingList, bool) {
        let slot = &mut self.place[trigram as usize];
        if *slot == 0 {
            self.lists.push((trigram, PostingList::default()));
            *slot = self.lists.len() as u32;
            let last = self.lists.len() - 1;
            return (&mut self.lists[last].1, true);
        }
        (&mut self.lists[*slot as usize - 1].1, false)
    }

    /// Every list in trigram order, leaving none.
    fn take_sorted(&mut self) -> Vec<(u32, PostingList)> {
        for (trigram, _) in &self.lists {
            self.place[*trigram as usize] = 0;
        }
        let mut lists = std::mem::take(&mut self.lists);
        lists.sort_unstable_by_key(|(t, _)| *t);
        lists
    }
}

/// Per-thread trigram accumulator. Which trigrams a unit already added is a bitset of all 2^24
/// trigrams (2 MiB: it stays in a core's cache, where the byte loop touches it once per
/// byte). A unit's trigrams are appended as `(trigram, unit)` pairs, sorted by trigram at the
/// end of a chunk (a stable radix sort keeps units ascending): posting to a list per trigram
/// as pairs come instead missed the cache on almost every push, most of a build's time.
struct Accumulator {
    seen: Vec<u64>,
    /// `trigram << 32 | unit`, in the order units came.
    pairs: Vec<u64>,
    scratch: Vec<u64>,
}

impl Accumulator {
    fn new() -> Accumulator {
        Accumulator {
            seen: vec![0; (1 << 24) / 64],
            pairs: Vec::new(),
            scratch: Vec::new(),
        }
    }

    fn add_unit(&mut self, unit: u32, text: &[u8]) {
        let Some((head, rest)) = text.split_at_checked(2) else {
            return;
        };
        let start = self.pairs.len();
        // A unit adds at most a pair per byte: written into room made once, without a
        // capacity check per pair (the byte loop is most of what a build thread does).
        self.pairs.reserve(rest.len());
        let room = self.pairs.spare_capacity_mut();
        let unit = u64::from(unit);
        let seen = &mut self.seen;
        let mut added = 0;
        let mut trigram = (u32::from(head[0]) << 8) | u32::from(head[1]);
        for &byte in rest {
            trigram = ((trigram << 8) | u32::from(byte)) & 0x00FF_FFFF;
            let (word, bit) = ((trigram >> 6) as usize, 1u64 << (trigram & 63));
            if seen[word] & bit == 0 {
                seen[word] |= bit;
                room[added].write((u64::from(trigram) << 32) | unit);
                added += 1;
            }
        }
        // SAFETY: the first `added` slots of the spare capacity were written just above.
        unsafe { self.pairs.set_len(start + added) };
        // Only this unit's bits are set: clearing the words of its trigrams clears them all.
        for &pair in &self.pairs[start..] {
            seen[(pair >> 38) as usize] = 0;
        }
    }

    /// Drops what was gathered (a cancelled build's).
    fn clear(&mut self) {
        self.pairs.clear();
    }

    /// The posting lists of the units added since the last call, sorted by trigram; empty
    /// once `cancelled` says so (checked between steps: a chunk's sort and lists take a few
    /// hundred milliseconds, which a Ctrl-C must not wait for).
    fn take(&mut self, cancelled: &dyn Fn() -> bool) -> ChunkPostings {
        // Two stable counting passes of 12 bits each over the 24-bit trigram.
        for shift in [32u32, 44] {
            if cancelled() {
                self.clear();
                return ChunkPostings::default();
            }
            let mut counts = vec![0usize; 1 << 12];
            for &pair in &self.pairs {
                counts[((pair >> shift) & 0xFFF) as usize] += 1;
            }
            let mut at = 0;
            for count in counts.iter_mut() {
                let n = *count;
                *count = at;
                at += n;
            }
            self.scratch.clear();
            self.scratch.resize(self.pairs.len(), 0);
            for &pair in &self.pairs {
                let slot = &mut counts[((pair >> shift) & 0xFFF) as usize];
                self.scratch[*slot] = pair;
                *slot += 1;
            }
            std::mem::swap(&mut self.pairs, &mut self.scratch);
        }
        if cancelled() {
            self.clear();
            return ChunkPostings::default();
        }
        let mut out = ChunkPostings {
            lists: Vec::new(),
            // Most gaps within a chunk take a byte, and a list's first takes none.
            rest: Vec::with_capacity(self.pairs.len()),
        };
        for run in self.pairs.chunk_by(|a, b| a >> 32 == b >> 32) {
            let first = run[0] as u32;
            let mut last = first;
            for &pair in &run[1..] {
                let unit = pair as u32;
                // Units of a trigram come once each, ascending (the sort is stable).
                super::format::put_varint(&mut out.rest, unit - last - 1);
                last = unit;
            }
            out.lists.push(ChunkList {
                trigram: (run[0] >> 32) as u32,
                first,
                last,
                count: run.len() as u32,
                rest_end: out.rest.len(),
            });
        }
        // Both buffers are kept for the thread's next chunk: made anew, each chunk's pages
        // (tens of megabytes, mapped fresh past glibc's threshold) were faulted in and
        // zeroed again.
        self.pairs.clear();
        out
    }
}

/// Cuts `text` into line-aligned units of about `UNIT_BYTES`: `(start, end)` byte ranges.
pub fn units(text: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + UNIT_BYTES).min(text.len());
        if end < text.len() {
            end = match memchr::memrchr(b'\n', &text[start..end]) {
                Some(nl) => start + nl + 1,
                // A line longer than a unit is a unit of its own.
                None => memchr::memchr(b'\n', &text[end..]).map_or(text.len(), |nl| end + nl + 1),
            };
        }
        out.push((start, end));
        start = end;
    }
    out
}

fn record(found: &Found, path: Vec<u8>, flags: u32, first_unit: u32, units: u32) -> FileRecord {
    FileRecord {
        path,
        flags,
        size: found.stat.st_size as u64,
        mtime_ns: stat_ns(found.stat.st_mtime, found.stat.st_mtime_nsec as i64),
        ctime_ns: stat_ns(found.stat.st_ctime, found.stat.st_ctime_nsec as i64),
        ino: found.stat.st_ino,
        first_unit,
        units,
    }
}

pub fn stat_ns(secs: i64, nsecs: i64) -> i64 {
    secs.saturating_mul(1_000_000_000).saturating_add(nsecs)
}

fn index_chunk(walker: &Walker, files: &[Found], acc: &mut Accumulator) -> ChunkResult {
    use std::os::unix::ffi::OsStrExt;
    let mut result = ChunkResult {
        files: Vec::with_capacity(files.len()),
        units: Vec::new(),
        postings: ChunkPostings::default(),
        bytes: 0,
    };
    let mut buffer = Vec::new();
    for (i, found) in files.iter().enumerate() {
        // A chunk is up to 16 MiB: Ctrl-C must not wait for the rest of it (the build
        // publishes nothing once cancelled).
        if walker.cancel_token().is_cancelled() {
            break;
        }
        let path = found.entry.rel.as_os_str().as_bytes().to_vec();
        let first_unit = result.units.len() as u32;
        let readable = found.stat.st_size as u64 <= MAX_INDEXED_FILE
            && found.entry.open(walker.root()).is_ok_and(|file| {
                buffer.clear();
                file.take(MAX_INDEXED_FILE + 1)
                    .read_to_end(&mut buffer)
                    .is_ok()
            });
        // UTF-16 files are scanned (their raw bytes do not hold the trigrams of the text the
        // scan matches in them), and so are files that could not be read whole.
        let utf16 = buffer.starts_with(b"\xff\xfe") || buffer.starts_with(b"\xfe\xff");
        if !readable || buffer.len() as u64 != found.stat.st_size as u64 || utf16 {
            result.files.push(record(found, path, 0, first_unit, 0));
            continue;
        }
        // A NUL byte anywhere makes the scan skip a file as binary, whatever the pattern.
        if memchr::memchr(0, &buffer).is_some() {
            result
                .files
                .push(record(found, path, BINARY, first_unit, 0));
            continue;
        }
        let cut = units(&buffer);
        let mut line = 1u32;
        for &(start, end) in &cut {
            let unit = result.units.len() as u32;
            result.units.push(UnitRecord {
                file: i as u32,
                first_line: line,
                offset: start as u64,
            });
            let text = &buffer[start..end];
            acc.add_unit(unit, text);
            // Files are at most `MAX_INDEXED_FILE` bytes: the line count fits.
            line += memchr::memchr_iter(b'\n', text).count() as u32;
        }
        result.bytes += buffer.len() as u64;
        let bom = if buffer.starts_with(b"\xef\xbb\xbf") {
            UTF8_BOM
        } else {
            0
        };
        result.files.push(record(
            found,
            path,
            INDEXED | bom,
            first_unit,
            cut.len() as u32,
        ));
    }
    if walker.cancel_token().is_cancelled() {
        // Nothing of a cancelled build is kept: the postings are not gathered either.
        acc.clear();
        return result;
    }
    result.postings = acc.take(&|| walker.cancel_token().is_cancelled());
    result
}

/// Where a build writes: the new index file, and how to make a file for spilled runs.
pub struct Output<'a> {
    pub index: std::fs::File,
    pub spill: SpillFile<'a>,
    /// The memory budget (`spill::memory_budget`): posting lists past their share of it
    /// spill to disk.
    pub memory_budget: u64,
}

/// Builds the index of everything `walker` sees under the root and writes it to `out.index`
/// (a new temporary file). `progress(done, total)` is called as files are indexed.
pub fn build(
    walker: &Walker,
    out: Output<'_>,
    options_hash: u64,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> io::Result<BuildStats> {
    let built = build_into(walker, out, options_hash, progress);
    release_freed_memory();
    built
}

/// Hands the freed working memory of a build (posting lists, per-thread tables: several
/// times the index's size) or of a catch-up walk back to the kernel. glibc keeps freed heap in its arenas for reuse; a
/// long-lived process that builds once (the daemon, a served workspace) would otherwise keep
/// hundreds of megabytes it never touches again.
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of the allocator's own arenas.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Bounds what a long-lived process (the daemon) keeps of the heap its threads freed.
/// glibc raises its thresholds to the largest block freed (up to 32 MiB mapped, twice that
/// kept at the top of each thread's arena), and `malloc_trim` never shrinks a thread arena's
/// top: after a build, tens of megabytes per arena stayed resident for good. Fixed
/// thresholds keep blocks of 4 MiB and more in mappings of their own (returned when freed)
/// and trim each arena's top past 4 MiB.
pub fn bound_retained_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets the allocator's tunables; called before any other thread.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 4 << 20);
    }
}

fn build_into(
    walker: &Walker,
    out: Output<'_>,
    options_hash: u64,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> io::Result<BuildStats> {
    let build_start_ns = now_ns();
    let found: Mutex<Vec<Found>> = Mutex::new(Vec::new());
    let start = walker.start(Path::new(""), crate::fs::root::Links::Refuse)?;
    let root = walker.root().clone();
    walker.visit_parallel(vec![start], || {
        let root = &root;
        let mut batch = Batch::new(&found);
        Box::new(move |entry| {
            if let Ok(stat) = entry.stat(root) {
                batch.push(Found {
                    entry: entry.clone(),
                    stat,
                });
            }
            WalkState::Continue
        })
    });
    let cancel = walker.cancel_token();
    // A cancelled build publishes nothing (a partial index would pass for a whole one): the
    // caller's temporary file is removed and the previous index stays.
    let cancelled = || io::Error::new(io::ErrorKind::Interrupted, "the index build was cancelled");
    if cancel.is_cancelled() {
        return Err(cancelled());
    }
    let mut found = found.into_inner().unwrap();
    found.sort_unstable_by(|a, b| a.entry.rel.as_os_str().cmp(b.entry.rel.as_os_str()));
    let total = found.len();

    // Chunks of consecutive files; workers take them in turn, results merge in order.
    let mut chunks = Vec::new();
    let (mut start, mut bytes) = (0, 0u64);
    let chunk_bytes = chunk_bytes(out.memory_budget);
    for (i, f) in found.iter().enumerate() {
        bytes += f.stat.st_size as u64;
        if bytes >= chunk_bytes || i + 1 - start >= CHUNK_FILES {
            chunks.push(start..i + 1);
            start = i + 1;
            bytes = 0;
        }
    }
    if start < found.len() {
        chunks.push(start..found.len());
    }
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let threads = walker
        .options()
        .thread_count()
        .max(1)
        .min(chunks.len().max(1));
    let (sender, receiver) = crossbeam_channel::bounded::<(usize, ChunkResult)>(threads * 2);
    let mut files: Vec<FileRecord> = Vec::with_capacity(total);
    let mut unit_table: Vec<UnitRecord> = Vec::new();
    let mut merged = Lists::new();
    let mut runs = Runs::new(out.spill);
    let list_budget = list_budget(out.memory_budget);
    let mut held = 0u64;
    let mut stats = BuildStats {
        files: total,
        ..BuildStats::default()
    };
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let sender = sender.clone();
            let (chunks, found, next, done) = (&chunks, &found, &next, &done);
            scope.spawn(move || {
                let mut acc = Accumulator::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(range) = chunks.get(i) else { break };
                    if cancel.is_cancelled() {
                        break;
                    }
                    let result = index_chunk(walker, &found[range.clone()], &mut acc);
                    let n = done.fetch_add(range.len(), Ordering::Relaxed) + range.len();
                    progress(n, total);
                    if sender.send((i, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        // Merge in chunk order, holding early arrivals until their turn.
        let mut waiting: BTreeMap<usize, ChunkResult> = BTreeMap::new();
        let mut turn = 0;
        for (i, result) in receiver {
            // Ends the merge (and, the channel closed, the workers): nothing is kept.
            if cancel.is_cancelled() {
                break;
            }
            waiting.insert(i, result);
            while let Some(result) = waiting.remove(&turn) {
                let (base_file, base_unit) = (files.len() as u32, unit_table.len() as u32);
                for mut record in result.files {
                    record.first_unit += base_unit;
                    if record.flags & INDEXED != 0 {
                        stats.indexed_files += 1;
                    }
                    files.push(record);
                }
                unit_table.extend(result.units.iter().map(|u| UnitRecord {
                    file: u.file + base_file,
                    ..*u
                }));
                for (n, (chunk, rest)) in result.postings.lists().enumerate() {
                    // A chunk's lists take tens of milliseconds to merge.
                    if n % 4096 == 0 && cancel.is_cancelled() {
                        break;
                    }
                    let (list, new_list) = merged.entry(chunk.trigram);
                    if new_list {
                        held += NEW_LIST_BYTES;
                    }
                    let before = list.held_bytes();
                    list.append_encoded(
                        chunk.first + base_unit,
                        rest,
                        chunk.count,
                        chunk.last + base_unit,
                    )?;
                    held += (list.held_bytes() - before) as u64;
                }
                if cancel.is_cancelled() {
                    break;
                }
                stats.bytes_indexed += result.bytes;
                stats.peak_list_bytes = stats.peak_list_bytes.max(held);
                turn += 1;
                if held > list_budget {
                    runs.spill(merged.take_sorted())?;
                    held = 0;
                    release_freed_memory();
                }
            }
        }
        Ok::<(), io::Error>(())
    })?;
    if cancel.is_cancelled() {
        return Err(cancelled());
    }
    // The walk's list is not needed any more: its memory goes to the merge and the write.
    drop(found);
    stats.spilled_runs = runs.count();
    let mut postings = runs.merged(merged.take_sorted())?;
    drop(merged);
    stats.units = unit_table.len();
    let written = format::write(
        out.index,
        Contents {
            options_hash,
            build_start_ns,
            files: &files,
            units: &unit_table,
            postings: &mut postings,
            threads: walker.options().thread_count().max(1),
        },
    )?;
    stats.trigrams = written.trigrams;
    stats.index_bytes = written.bytes;
    // A cancel that came while the file was written still keeps the previous index.
    if cancel.is_cancelled() {
        return Err(cancelled());
    }
    Ok(stats)
}

pub fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_line_aligned_and_cover_the_text() {
        let mut text = Vec::new();
        for i in 0..5000 {
            text.extend_from_slice(format!("line number {i}\n").as_bytes());
        }
        text.extend_from_slice(&vec![b'x'; 40_000]);
        text.extend_from_slice(b"\ntail");
        let cut = units(&text);
        assert_eq!(cut.first().unwrap().0, 0);
        assert_eq!(cut.last().unwrap().1, text.len());
        for pair in cut.windows(2) {
            assert_eq!(pair[0].1, pair[1].0);
            assert_eq!(text[pair[0].1 - 1], b'\n');
        }
        assert!(
            cut.iter().any(|(s, e)| e - s > UNIT_BYTES),
            "the long line is one unit"
        );
    }

    /// Each trigram's units, as the chunk's lists hold them.
    fn units_of(postings: &ChunkPostings) -> Vec<(u32, Vec<u32>)> {
        postings
            .lists()
            .map(|(chunk, rest)| {
                let mut list = PostingList::default();
                list.append_encoded(chunk.first, rest, chunk.count, chunk.last)
                    .unwrap();
                let mut next = 0;
                let units = list.gaps().unwrap().into_iter().map(|gap| {
                    next += gap + 1;
                    next - 1
                });
                (chunk.trigram, units.collect())
            })
            .collect()
    }

    #[test]
    fn postings_hold_exactly_each_units_trigrams() {
        let mut acc = Accumulator::new();
        let texts: Vec<Vec<u8>> = (0..20u32)
            .map(|u| {
                (0..300u32)
                    .map(|i| b"ab\ncd\xff"[((i * 7 + u * 13) % 6) as usize])
                    .collect()
            })
            .collect();
        for (unit, text) in texts.iter().enumerate() {
            acc.add_unit(unit as u32, text);
        }
        let postings = acc.take(&|| false);
        let lists: Vec<(u32, Vec<u32>)> = units_of(&postings);
        for (trigram, units) in &lists {
            let (trigram, units) = (*trigram, &units[..]);
            let expected: Vec<u32> = texts
                .iter()
                .enumerate()
                .filter(|(_, t)| {
                    t.windows(3)
                        .any(|w| crate::index::plan::trigram([w[0], w[1], w[2]]) == trigram)
                })
                .map(|(u, _)| u as u32)
                .collect();
            assert_eq!(units, &expected[..], "{trigram:06x}");
        }
        let distinct: std::collections::HashSet<u32> = texts
            .iter()
            .flat_map(|t| {
                t.windows(3)
                    .map(|w| crate::index::plan::trigram([w[0], w[1], w[2]]))
            })
            .collect();
        assert_eq!(lists.len(), distinct.len());
    }

    #[test]
    fn trigrams_are_recorded_once_per_unit() {
        let mut acc = Accumulator::new();
        acc.add_unit(0, b"abcabc");
        acc.add_unit(1, b"xabc");
        let postings = acc.take(&|| false);
        let lists = units_of(&postings);
        let abc = lists.iter().find(|(t, _)| *t == 0x616263).unwrap();
        assert_eq!(abc.1, [0, 1]);
        assert!(acc.pairs.is_empty());
        assert!(acc.seen.iter().all(|&w| w == 0));
    }

    fn generated_tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        // Enough distinct text that the lists of a few chunks pass a 1 MiB budget.
        let mut seed = 7u64;
        for f in 0..400 {
            let mut text = String::new();
            for line in 0..300 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                text.push_str(&format!("fn item_{f}_{line}(x{:x}) {{ }}\n", seed >> 20));
            }
            let path = dir.path().join(format!("d{}/f{f}.rs", f % 7));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    fn built(root: &Path, out: &Path, memory_budget: u64) -> (BuildStats, format::IndexFile) {
        let walker = Walker::new(
            std::sync::Arc::new(crate::fs::root::Root::open(root).unwrap()),
            crate::fs::walk::WalkOptions::for_tests(false, 2),
        );
        let output = Output {
            index: std::fs::File::create(out).unwrap(),
            spill: &tempfile::tempfile,
            memory_budget,
        };
        let stats = build(&walker, output, 0, &|_, _| {}).unwrap();
        (stats, format::IndexFile::open(out).unwrap())
    }

    #[test]
    fn a_small_budget_spills_and_builds_the_same_index() {
        let tree = generated_tree();
        let out = tempfile::tempdir().unwrap();
        let (whole, expected) = built(tree.path(), &out.path().join("whole"), 1 << 30);
        let budget = super::super::spill::MIN_MEMORY;
        let (spilled, index) = built(tree.path(), &out.path().join("spilled"), budget);
        println!("in memory: {whole:?}\nspilled: {spilled:?}");
        assert_eq!(whole.spilled_runs, 0);
        assert!(spilled.spilled_runs > 1, "{spilled:?}");
        assert!(
            spilled.peak_list_bytes <= list_budget(budget) + whole.peak_list_bytes / 4,
            "the lists held stay near their share of the budget: {spilled:?}"
        );
        assert!(whole.peak_list_bytes > list_budget(budget), "{whole:?}");
        assert_eq!(
            (
                index.file_count(),
                index.unit_count(),
                index.trigram_count()
            ),
            (
                expected.file_count(),
                expected.unit_count(),
                expected.trigram_count()
            )
        );
        for i in 0..index.file_count() {
            assert_eq!(index.path(i), expected.path(i));
            let (mut a, mut b) = (index.file(i), expected.file(i));
            (a.mtime_ns, b.mtime_ns, a.ctime_ns, b.ctime_ns) = (0, 0, 0, 0);
            assert_eq!(a, b);
        }
        for unit in 0..index.unit_count() as u32 {
            assert_eq!(index.unit(unit), expected.unit(unit));
        }
        assert!(index.trigrams().eq(expected.trigrams()));
        for trigram in expected.trigrams() {
            assert_eq!(
                index.posting_count(trigram),
                expected.posting_count(trigram)
            );
            assert_eq!(
                index.postings(trigram).unwrap(),
                expected.postings(trigram).unwrap(),
                "{trigram:06x}"
            );
        }
    }
}
