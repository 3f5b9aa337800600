//! The per-thread searcher of files: reads a file whole or streams it, decodes UTF-16 and
//! skips a BOM, applies the one binary rule (a NUL byte anywhere), searches either the whole
//! file or only the parts an index chose, and hands back its hits.

use super::hit::{FileHits, FileOutcome, Hit, TextEncoding, Windows};
use super::pattern::{CompiledPattern, OutputMode};
use super::sink::{HitSink, Taken};
use super::stop::{FileLimits, StopSignal};
use super::unique::{mark_unique_by, mark_unique_within, unique_budget};
use crate::fs::read::{Opened, read_exact_at, read_known_size};
use grep_searcher::Searcher;
use std::cell::{Cell, RefCell};
use std::fs::File;
use std::io::Read;
use std::path::PathBuf;

/// Files larger than this are streamed instead of read whole (no uniqueness check for them).
const WHOLE_FILE_LIMIT: u64 = 64 * 1024 * 1024;
/// A per-thread buffer grown past this by one large file is shrunk back afterwards, so a few
/// big files do not keep every thread's memory high for the rest of the walk.
pub(super) const KEEP_BUFFER: usize = 4 * 1024 * 1024;
/// The same for the buffers a file is read (or decoded) into, set higher: a buffer shrunk
/// after each large file is grown again by the next one, and every page of that growth is
/// faulted in and zeroed before the read copies into it (on a kernel tree, 35 files over
/// 4 MiB made a fifth of the bytes read, and their page faults ~6% of a scan's CPU time).
/// The peak is the same either way (one buffer as large as the largest file, per thread).
const KEEP_READ_BUFFER: usize = 32 * 1024 * 1024;
/// A search of some units proves a hit's text unique by reading a file up to this size whole
/// (larger ones: only the units the index says may hold it).
const WHOLE_READ: u64 = 256 * 1024;
/// grep-searcher looks for NUL bytes only in the first buffer of a slice (and in the lines it
/// reports); this is its size. The rest of a slice is checked here, before it is searched.
const BINARY_SNIFF_LEN: usize = 64 * 1024;
/// Bytes read at a time when checking the rest of a streamed file for a NUL byte.
const REST_CHUNK: usize = 1024 * 1024;

/// Searches files one at a time; one per thread, reusing its buffers.
///
/// One binary rule, whatever the query: a file with a NUL byte anywhere (for UTF-16 up to
/// 64 MiB, in its decoded text; a bigger one is searched raw) is `FileOutcome::Binary`, also
/// when the pattern matches nothing in it and when its search stops at the first hits (files
/// mode, a per-file cap). A file read whole is
/// checked all through before it is searched; a streamed one (over 64 MiB) is checked by the
/// searcher as it reads and then to its end. Only a search interrupted (timeout, cancel) may
/// miss a NUL, and then it returns none of a streamed file's hits (the rest was not checked).
pub struct FileSearcher {
    pattern: CompiledPattern,
    searcher: Searcher,
    /// Files up to this size are read whole (`WHOLE_FILE_LIMIT`; smaller in tests).
    whole_file_limit: u64,
    buffer: Vec<u8>,
    decoded: Vec<u8>,
    gathered: Gathered,
    /// Windows looked at by the pattern's `WindowCapture::finish` on this searcher's files.
    windows_looked: usize,
}

/// Where a file's hits and their bytes are gathered, then copied out at their exact size:
/// growing fresh vectors per file cost a chain of reallocations for every file with hits.
#[derive(Default)]
struct Gathered {
    hits: Vec<Hit>,
    bytes: Vec<u8>,
    /// The bytes and parts kept around hits' lines (`CompiledPattern::windows`), handed to
    /// each file's sink and taken back when the file's hits do not keep them (no hit wanted
    /// them, or `WindowCapture::finish` found them no longer needed: no parts left).
    windows: Windows,
}

impl Gathered {
    /// A sink gathering one file's hits of `pattern` here (`HitSink::new`).
    fn sink<'a>(
        &'a mut self,
        pattern: &'a CompiledPattern,
        limits: FileLimits,
        stop: &'a StopSignal,
    ) -> HitSink<'a> {
        let mut sink = HitSink::new(pattern, limits, stop, &mut self.hits, &mut self.bytes);
        sink.reuse_windows(std::mem::take(&mut self.windows));
        sink
    }

    /// Takes back `windows` (a file's, or its sink's) when nothing points into them: their
    /// bytes and parts are reused by the next file instead of allocated and freed again.
    fn take_back(&mut self, windows: &mut Windows) {
        let small = windows.bytes.capacity() <= KEEP_BUFFER;
        if windows.parts.is_empty()
            && small
            && windows.bytes.capacity() >= self.windows.bytes.capacity()
        {
            self.windows.bytes = std::mem::take(&mut windows.bytes);
            self.windows.bytes.clear();
            self.windows.parts = std::mem::take(&mut windows.parts);
        }
    }

    /// Frees what a file with many hits grew past `KEEP_BUFFER`.
    fn shrink(&mut self) {
        if self.bytes.capacity() > KEEP_BUFFER {
            self.bytes = Vec::new();
        }
        if self.hits.capacity() * std::mem::size_of::<Hit>() > KEEP_BUFFER {
            self.hits = Vec::new();
        }
    }
}

impl FileSearcher {
    pub fn new(pattern: &CompiledPattern) -> FileSearcher {
        FileSearcher {
            searcher: pattern.searcher(),
            pattern: pattern.clone(),
            whole_file_limit: WHOLE_FILE_LIMIT,
            buffer: Vec::new(),
            decoded: Vec::new(),
            gathered: Gathered::default(),
            windows_looked: 0,
        }
    }

    /// Searches `file`, opened by the caller beneath the root (an error counts it as
    /// unreadable); `rel` names it in the result (only asked for when it has hits: most files
    /// of a walk have none).
    ///
    /// With `pieces`, a file with many hits is handed out in pieces as it goes: each piece is
    /// `PIECE_HITS` hits of whole lines, in order, given to `pieces` (false stops the search);
    /// the outcome holds the rest (`FileHits::continued` after a piece), so that a file's
    /// hits are never all held at once. Only a file read whole and searched line by line
    /// without context comes in pieces (a file streamed from disk may turn out binary past
    /// its first hits; context and multiline hits share lines across a piece's end).
    /// Uniqueness is proven against the whole text for each piece, within one budget for
    /// the file.
    pub fn search(
        &mut self,
        file: std::io::Result<impl Into<Opened>>,
        rel: impl FnOnce() -> PathBuf,
        limits: FileLimits,
        stop: &StopSignal,
        pieces: Option<&mut dyn FnMut(FileHits) -> bool>,
    ) -> FileOutcome {
        let Ok(mut opened) = file.map(Into::into) else {
            return FileOutcome::Unreadable;
        };
        let Ok(meta) = opened.meta() else {
            return FileOutcome::Unreadable;
        };
        if !meta.is_file {
            return FileOutcome::Unreadable;
        }
        let size = meta.size;
        let mode = self.pattern.mode;
        let pattern_skips_unique = self.pattern.skip_unique;
        let mtime_ns = meta.mtime_ns;
        // The file's name, asked for once (by its first piece, or at the end).
        let path: RefCell<Option<PathBuf>> = RefCell::new(None);
        let rel = Cell::new(Some(rel));
        let name = || {
            path.borrow_mut()
                .get_or_insert_with(|| rel.take().map(|rel| rel()).unwrap_or_default())
                .clone()
        };
        let budget = Cell::new(0);
        let mut hand_out;
        let mut sink = self.gathered.sink(&self.pattern, limits, stop);
        let mut encoding = TextEncoding::Utf8;
        let whole = size <= self.whole_file_limit || self.pattern.multiline;
        let mut searched: std::io::Result<()>;
        // A streamed file whose end was not checked for a NUL byte (interrupted).
        let mut unchecked = false;
        if whole {
            if read_known_size(&opened.file, size, &mut self.buffer).is_err() {
                return FileOutcome::Unreadable;
            }
            // Only a file that would not be streamed is decoded from UTF-16: a streamed one is
            // searched raw (its NUL bytes make it binary), and a multiline query, which reads
            // any file whole, must see it as every other query does.
            let decode = size <= self.whole_file_limit;
            let (text, base) = match self.buffer.as_slice() {
                [0xFF, 0xFE, ..] | [0xFE, 0xFF, ..] if decode => {
                    let (codec, enc) = if self.buffer[0] == 0xFF {
                        (encoding_rs::UTF_16LE, TextEncoding::Utf16Le)
                    } else {
                        (encoding_rs::UTF_16BE, TextEncoding::Utf16Be)
                    };
                    encoding = enc;
                    let (decoded, _) = codec.decode_without_bom_handling(&self.buffer[2..]);
                    self.decoded.clear();
                    self.decoded.extend_from_slice(decoded.as_bytes());
                    (&self.decoded[..], 0)
                }
                [0xEF, 0xBB, 0xBF, ..] => {
                    encoding = TextEncoding::Utf8Bom;
                    (&self.buffer[3..], 3)
                }
                _ => (&self.buffer[..], 0),
            };
            sink.base = base;
            budget.set(unique_budget(text.len()));
            let budget = &budget;
            let name = &name;
            let mut handed = 0u64;
            hand_out = pieces.map(|pieces| {
                move |hits: &mut Vec<Hit>, bytes: &mut Vec<u8>| {
                    let (mut hits, bytes) = (std::mem::take(hits), std::mem::take(bytes));
                    if mode == OutputMode::Content && !pattern_skips_unique {
                        let mut left = budget.get();
                        mark_unique_within(&mut hits, &bytes, text, &mut left);
                        budget.set(left);
                    }
                    let n = hits.len() as u64;
                    handed += 1;
                    pieces(FileHits {
                        path: name(),
                        hits,
                        bytes,
                        count: 0,
                        matches: n,
                        size,
                        mtime_ns,
                        encoding,
                        continued: handed > 1,
                        windows: Default::default(),
                    })
                }
            });
            if let Some(hook) = hand_out.as_mut() {
                sink.piece = Some(hook);
            }
            // The searcher checks the first `BINARY_SNIFF_LEN` bytes; the rest is checked
            // first, so that a late NUL makes the file binary whatever the pattern finds
            // (nothing, or hits before it in a search that stops early), and is not searched.
            if text.len() > BINARY_SNIFF_LEN
                && memchr::memchr(0, &text[BINARY_SNIFF_LEN..]).is_some()
            {
                sink.binary = true;
                searched = Ok(());
            } else {
                searched = self
                    .searcher
                    .search_slice(&self.pattern.matcher, text, &mut sink);
            }
            // Files and counts show no text to edit by id: not worth a pass over the file.
            if !sink.binary
                && mode == OutputMode::Content
                && !self.pattern.lines
                && !self.pattern.skip_unique
            {
                let mut left = budget.get();
                mark_unique_within(sink.hits, sink.bytes, text, &mut left);
            }
        } else {
            let Ok(file) = opened.blocking() else {
                return FileOutcome::Unreadable;
            };
            searched = self
                .searcher
                .search_reader(&self.pattern.matcher, file, &mut sink);
            // The searcher checked every byte it read; it stopped reading where the sink
            // stopped it (enough hits, files mode) or at the end. The rest is checked too.
            if searched.is_ok() && !sink.binary {
                match nul_in_rest(file, &mut self.buffer, stop) {
                    Ok(Some(found)) => sink.binary = found,
                    Ok(None) => {
                        sink.interrupted = true;
                        unchecked = true;
                    }
                    // As a read error within the searcher: the file is unreadable.
                    Err(err) => searched = Err(err),
                }
            }
        }
        let mut taken = Taken::from(sink);
        if unchecked {
            taken.hits = None;
        }
        self.finish(taken, searched, name, size, mtime_ns, encoding)
    }

    /// Searches only the given parts of `file` (whole lines, in file order, holding every
    /// match: the candidate units of an index), reporting lines, offsets and uniqueness exactly
    /// as a search of the whole file would. `None` when that cannot be promised and the caller
    /// must search the whole file: the file is not as the index saw it (`expected`, or a NUL
    /// byte in a part read), or a context or multiline search (whose text is not line by line).
    /// The parts outside `ranges` are not read: the caller vouches that the file is one the
    /// index read whole without finding a NUL byte (indexed, unchanged since), so that it is
    /// not binary — the rule a whole search applies. `occurrences(needle)`
    /// gives the parts of the file that may hold `needle` (`None`: unknown), for uniqueness.
    #[allow(clippy::too_many_arguments)]
    pub fn search_ranges(
        &mut self,
        opened: &Opened,
        rel: impl FnOnce() -> PathBuf,
        limits: FileLimits,
        stop: &StopSignal,
        expected: Expected,
        ranges: &[LineRange],
        occurrences: &mut dyn FnMut(&[u8]) -> Option<Vec<LineRange>>,
    ) -> Option<FileOutcome> {
        if self.pattern.multiline || self.pattern.before > 0 || self.pattern.after > 0 {
            return None;
        }
        // The metadata its open fetched; reads go through `read_exact_at`, which copes with
        // the descriptor still being non-blocking.
        let meta = opened.meta().ok()?;
        if !meta.is_file
            || meta.size != expected.size
            || meta.mtime_ns != expected.mtime_ns
            || meta.ino != expected.ino
        {
            return None;
        }
        let (file, size, mtime_ns) = (&opened.file, meta.size, meta.mtime_ns);
        let mode = self.pattern.mode;
        let mut sink = self.gathered.sink(&self.pattern, limits, stop);
        let mut searched: std::io::Result<()> = Ok(());
        // Each part is checked for a NUL byte below, before it is searched: the searcher's
        // own check, a second pass over the same bytes, is off meanwhile (it was a fourteenth
        // of an indexed search's processor time on the Linux tree).
        let detection = self.searcher.binary_detection().clone();
        self.searcher
            .set_binary_detection(grep_searcher::BinaryDetection::none());
        // Files and counts show no text to edit by id: no uniqueness to prove.
        let proves_unique =
            mode == OutputMode::Content && !self.pattern.lines && !self.pattern.skip_unique;
        let mut nul = false;
        // Whether every part was searched to its end (the file's limit not reached): then a
        // pattern matching one exact text has a hit at each of its occurrences (see below).
        let mut whole_parts = true;
        for range in ranges {
            // Only bytes past what the buffer held before are zeroed: all are read over.
            self.buffer.resize(range.len as usize, 0);
            if let Err(err) = read_exact_at(file, &mut self.buffer, range.offset) {
                searched = Err(err);
                break;
            }
            let part = &self.buffer[..];
            // The index read the whole file and found no NUL byte; one here means the file is
            // not as it saw it (changed within its timestamps): the whole file decides.
            if memchr::memchr(0, part).is_some() {
                nul = true;
                break;
            }
            sink.base = range.offset;
            sink.line_base = range.first_line - 1;
            searched = self
                .searcher
                .search_slice(&self.pattern.matcher, part, &mut sink);
            if searched.is_err() || sink.binary || sink.interrupted || sink.done() {
                whole_parts = false;
                break;
            }
        }
        self.searcher.set_binary_detection(detection);
        if nul {
            return None;
        }
        if searched.is_ok() && !sink.binary && proves_unique {
            // A pattern whose every match is one exact text (a case-sensitive literal): each
            // place that text occurs lies in a part (the parts hold every unit with all of
            // its trigrams, and it holds no line end) and is a match, so the hits of parts
            // searched whole are all its occurrences: no more of the file is read to tell.
            let exact_hits = match &self.pattern.exact {
                Some(exact) if whole_parts => {
                    let mut offsets = sink.hits.iter().map(|hit| hit.byte_offset as usize);
                    Some((exact.as_slice(), offsets.next(), offsets.next()))
                }
                _ => None,
            };
            let buffer = &mut self.buffer;
            // The whole file, read once when a text's other places cannot be narrowed (or the
            // file is small enough that reading it beats asking the index).
            let mut whole: Option<Option<Vec<u8>>> = None;
            let mut first_two = |needle: &[u8]| -> (Option<usize>, Option<usize>) {
                if let Some((exact, first, second)) = exact_hits
                    && needle == exact
                {
                    return (first, second);
                }
                let parts = if needle.len() < 3 || needle.contains(&b'\n') || size <= WHOLE_READ {
                    None
                } else {
                    occurrences(needle)
                };
                let Some(parts) = parts else {
                    let text = whole.get_or_insert_with(|| {
                        let mut text = vec![0; size as usize];
                        read_exact_at(file, &mut text, 0).ok().map(|_| text)
                    });
                    // Unreadable: counted as not unique, as when the budget runs out.
                    let Some(text) = text else {
                        return (None, None);
                    };
                    let mut found = memchr::memmem::find_iter(text, needle);
                    return (found.next(), found.next());
                };
                let mut found = Vec::with_capacity(2);
                for part in parts {
                    buffer.clear();
                    buffer.resize(part.len as usize, 0);
                    if read_exact_at(file, buffer, part.offset).is_err() {
                        // Unknown: counted as not unique, as when the budget runs out.
                        return (None, None);
                    }
                    // Occurrences hold no line end, so none crosses from one part to the next.
                    for at in memchr::memmem::find_iter(buffer, needle) {
                        found.push(part.offset as usize + at);
                        if found.len() == 2 {
                            return (Some(found[0]), Some(found[1]));
                        }
                    }
                }
                (found.first().copied(), None)
            };
            mark_unique_by(sink.hits, sink.bytes, size as usize, &mut first_two);
        }
        let taken = Taken::from(sink);
        Some(self.finish(taken, searched, rel, size, mtime_ns, TextEncoding::Utf8))
    }

    fn finish(
        &mut self,
        taken: Taken,
        searched: std::io::Result<()>,
        rel: impl FnOnce() -> PathBuf,
        size: u64,
        mtime_ns: i64,
        encoding: TextEncoding,
    ) -> FileOutcome {
        let Taken {
            hits,
            count,
            flushed,
            pieces,
            binary,
            interrupted,
            windows,
        } = taken;
        for buffer in [&mut self.buffer, &mut self.decoded] {
            if buffer.capacity() > KEEP_READ_BUFFER {
                buffer.clear();
                buffer.shrink_to(KEEP_READ_BUFFER);
            }
        }
        self.gathered.shrink();
        if searched.is_err() {
            return FileOutcome::Unreadable;
        }
        if binary {
            return FileOutcome::Binary;
        }
        let mode = self.pattern.mode;
        let mut windows = windows;
        let mut hits = hits.map(|(hits, bytes)| FileHits {
            path: rel(),
            count: if mode == OutputMode::Content {
                count
            } else {
                1
            },
            matches: count - flushed,
            hits,
            bytes,
            size,
            mtime_ns,
            encoding,
            continued: pieces > 0,
            windows: std::mem::take(&mut windows),
        });
        if let (Some(capture), Some(file)) = (self.pattern.windows, hits.as_mut()) {
            (capture.finish)(file, &mut self.windows_looked);
        }
        match hits.as_mut() {
            Some(file) => self.gathered.take_back(&mut file.windows),
            None => self.gathered.take_back(&mut windows),
        }
        match (interrupted, hits) {
            (true, hits) => FileOutcome::Interrupted(hits),
            (false, Some(hits)) => FileOutcome::Matched(hits),
            (false, None) => FileOutcome::NoMatch,
        }
    }
}

/// A part of a file made of whole lines: `len` bytes from `offset`, starting at line
/// `first_line` (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineRange {
    pub offset: u64,
    pub len: u64,
    pub first_line: u64,
}

/// A file's state as an index saw it.
#[derive(Clone, Copy, Debug)]
pub struct Expected {
    pub size: u64,
    pub mtime_ns: i64,
    pub ino: u64,
}

/// Whether the rest of `file`, from its current position to its end, holds a NUL byte (read
/// through `buffer`); `None` when `stop` says to stop first.
fn nul_in_rest(
    file: &File,
    buffer: &mut Vec<u8>,
    stop: &StopSignal,
) -> std::io::Result<Option<bool>> {
    buffer.clear();
    buffer.resize(REST_CHUNK, 0);
    loop {
        if stop.should_stop() {
            return Ok(None);
        }
        match (&*file).read(buffer) {
            Ok(0) => return Ok(Some(false)),
            Ok(n) if memchr::memchr(0, &buffer[..n]).is_some() => return Ok(Some(true)),
            Ok(_) => {}
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grep::PatternOptions;
    use crate::grep::test_support::*;
    use grep_matcher::Matcher;
    use memchr::memchr_iter;

    fn search(text: &[u8], options: PatternOptions) -> FileOutcome {
        search_mode(text, options, OutputMode::Content)
    }

    fn search_mode(text: &[u8], options: PatternOptions, mode: OutputMode) -> FileOutcome {
        search_with_mode(text, options, mode, 100, 0)
    }

    /// At most `max_hits` hits, every match not counted past them.
    fn limits(max_hits: usize) -> FileLimits {
        FileLimits {
            max_hits,
            count_all: false,
        }
    }

    /// The file at `path` as it is now, as an index would have seen it.
    fn expected_of(path: &std::path::Path) -> Expected {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path).unwrap();
        Expected {
            size: meta.len(),
            mtime_ns: meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
            ino: meta.ino(),
        }
    }

    #[test]
    fn files_mode_keeps_the_first_hit_and_counts_the_file_once() {
        let mut o = opts("x");
        o.before = 2;
        o.after = 2;
        let FileOutcome::Matched(found) = search_mode(b"a\nx1\nx2\nx3\n", o, OutputMode::Files)
        else {
            panic!("expected a match")
        };
        assert_eq!((found.count, found.matches, found.hits.len()), (1, 1, 1));
        assert_eq!(found.hits[0].line, 2);
        assert!(found.hits[0].context.is_none(), "no context in files mode");
    }

    #[test]
    fn count_mode_counts_every_match_past_any_limit() {
        let text = "x x\n".repeat(300);
        let FileOutcome::Matched(found) =
            search_mode(text.as_bytes(), opts("x"), OutputMode::Count)
        else {
            panic!("expected a match")
        };
        assert_eq!((found.count, found.matches, found.hits.len()), (1, 600, 1));
        let none = search_mode(b"abc\n", opts("x"), OutputMode::Count);
        assert!(matches!(none, FileOutcome::NoMatch));
        let binary = search_mode(b"x\0y\n", opts("x"), OutputMode::Files);
        assert!(matches!(binary, FileOutcome::Binary));
    }

    #[test]
    fn two_hits_on_one_line_with_char_columns() {
        let h = hits(search("é foo foo\n".as_bytes(), opts("foo")));
        assert_eq!(h.len(), 2);
        assert_eq!((h[0].line, h[0].column, h[0].byte_offset), (1, 3, 3));
        assert_eq!((h[1].line, h[1].column, h[1].byte_offset), (1, 7, 7));
        assert_eq!(h[0].text, "é foo foo");
        assert!(!h[0].unique);
    }

    #[test]
    fn multiline_literal_matches_crlf() {
        let mut o = opts("b\nc");
        o.literal = true;
        let h = hits(search(b"a\r\nb\r\nc\r\n", o));
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].content, b"b\r\nc");
        assert_eq!((h[0].line, h[0].end_line, h[0].byte_offset), (2, 3, 3));
        assert!(h[0].unique);
    }

    #[test]
    fn context_lines_include_matching_neighbours() {
        let mut o = opts("x");
        o.before = 1;
        o.after = 1;
        let h = hits(search(b"a\nx1\nx2\nb\n", o));
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].before, vec!["a"]);
        assert_eq!(h[0].after, vec!["x2"]);
        assert_eq!(h[1].before, vec!["x1"]);
        assert_eq!(h[1].after, vec!["b"]);
    }

    #[test]
    fn binary_files_are_skipped() {
        assert!(matches!(
            search(b"foo\0bar\n", opts("foo")),
            FileOutcome::Binary
        ));
    }

    #[test]
    fn utf16_with_bom_is_decoded() {
        let mut bytes = vec![0xFF, 0xFE];
        for unit in "hello world\n".encode_utf16() {
            bytes.extend_from_slice(&unit.to_le_bytes());
        }
        let outcome = search(&bytes, opts("world"));
        let FileOutcome::Matched(file) = outcome else {
            panic!()
        };
        assert_eq!(file.encoding, TextEncoding::Utf16Le);
        assert_eq!(file.slice(file.hits[0].text), b"hello world");
    }

    #[test]
    fn utf8_bom_keeps_file_offsets() {
        let h = hits(search(b"\xEF\xBB\xBFab\n", opts("b")));
        assert_eq!(
            (h[0].byte_offset, h[0].column, h[0].text.as_str()),
            (4, 2, "ab")
        );
    }

    /// A text of about 2.6 MB with `needle` lines at known places (one past 1 MiB).
    fn big_text() -> (Vec<u8>, Vec<(u64, u64)>) {
        let filler = b"static int filler_line_of_text(void) { return 0; }\n";
        let mut text = Vec::new();
        let mut expected = Vec::new();
        for i in 0..50_000u64 {
            let line = i + 1;
            if [10, 20_000, 49_999].contains(&i) {
                let needle: &[u8] = if i == 20_000 {
                    b"  needle two\n"
                } else {
                    b"  needle one\n"
                };
                expected.push((line, text.len() as u64 + 2));
                text.extend_from_slice(needle);
            } else {
                text.extend_from_slice(filler);
            }
        }
        assert!(text.len() > 2 << 20);
        (text, expected)
    }

    #[test]
    fn big_files_keep_lines_offsets_and_uniqueness() {
        let (text, expected) = big_text();
        let h = hits(search(&text, opts("needle (one|two)")));
        let found: Vec<(u64, u64)> = h.iter().map(|h| (h.line, h.byte_offset)).collect();
        assert_eq!(found, expected);
        assert_eq!((h[1].column, h[1].text.as_str()), (3, "  needle two"));
        // "needle one" occurs twice, "needle two" once.
        assert_eq!(
            h.iter().map(|h| h.unique).collect::<Vec<_>>(),
            [false, true, false]
        );

        let mut with_bom = b"\xEF\xBB\xBF".to_vec();
        with_bom.extend_from_slice(&text);
        let outcome = search(&with_bom, opts("needle two"));
        let FileOutcome::Matched(file) = &outcome else {
            panic!("expected hits")
        };
        assert_eq!(file.encoding, TextEncoding::Utf8Bom);
        assert_eq!(file.hits[0].byte_offset, expected[1].1 + 3);
    }

    /// A search of only the units a regex matches in (as an index would choose them) against
    /// a search of the whole file: every field of every hit, uniqueness included.
    #[test]
    fn a_search_of_some_units_equals_the_whole_files() {
        let (mut text, _) = big_text();
        // A second, different line holding "needle two" text inside it, so that uniqueness of
        // a `needle \w+` hit must look beyond the units the pattern chose.
        text.extend_from_slice(b"x = \"needle one\"; needle three\n");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.txt");
        std::fs::write(&path, &text).unwrap();
        let cut = crate::index::build::units(&text);
        let ranges_of = |keep: &dyn Fn(&[u8]) -> bool| -> Vec<LineRange> {
            let mut line = 1u64;
            let mut out = Vec::new();
            for &(start, end) in &cut {
                let unit = &text[start..end];
                if keep(unit) {
                    out.push(LineRange {
                        offset: start as u64,
                        len: (end - start) as u64,
                        first_line: line,
                    });
                }
                line += memchr_iter(b'\n', unit).count() as u64;
            }
            out
        };
        let expected = expected_of(&path);
        let stop = StopSignal::new(None);
        for (pattern, max_hits) in [
            ("needle (one|two)", 100),
            ("needle two", 100),
            ("needle one", 100),
            (r"needle \w+", 100),
            (r"needle \w+", 2),
            ("filler_line", 5),
        ] {
            let options = opts(pattern);
            let compiled = CompiledPattern::new(&options).unwrap();
            let chosen = ranges_of(&|unit| compiled.matcher.is_match(unit).unwrap());
            let chosen_bytes: u64 = chosen.iter().map(|r| r.len).sum();
            if !pattern.starts_with("filler") {
                assert!(
                    chosen_bytes * 10 < text.len() as u64,
                    "{pattern}: few units"
                );
            }
            let limits = limits(max_hits);
            let mut searcher = FileSearcher::new(&compiled);
            let whole =
                searcher.search(File::open(&path), || "big.txt".into(), limits, &stop, None);
            let mut occurrences = |needle: &[u8]| {
                Some(ranges_of(&|unit| {
                    memchr::memmem::find(unit, needle).is_some()
                }))
            };
            let file = Opened::from(File::open(&path).unwrap());
            let parts = searcher
                .search_ranges(
                    &file,
                    || "big.txt".into(),
                    limits,
                    &stop,
                    expected,
                    &chosen,
                    &mut occurrences,
                )
                .expect("the file is as expected");
            let key = |h: &Resolved| {
                (
                    h.line,
                    h.column,
                    h.end_line,
                    h.byte_offset,
                    h.content.clone(),
                    h.text.clone(),
                    h.unique,
                )
            };
            let (whole, parts) = (hits(whole), hits(parts));
            assert_eq!(
                whole.iter().map(key).collect::<Vec<_>>(),
                parts.iter().map(key).collect::<Vec<_>>(),
                "{pattern}"
            );
            assert!(!whole.is_empty(), "{pattern}");
        }
        // A file that is not as the index saw it is left to a whole search.
        let compiled = CompiledPattern::new(&opts("needle")).unwrap();
        let mut searcher = FileSearcher::new(&compiled);
        let file = Opened::from(File::open(&path).unwrap());
        let stale = Expected {
            size: expected.size + 1,
            ..expected
        };
        let limits = limits(10);
        assert!(
            searcher
                .search_ranges(
                    &file,
                    || "big.txt".into(),
                    limits,
                    &stop,
                    stale,
                    &[],
                    &mut |_| None
                )
                .is_none()
        );
    }

    #[test]
    fn big_file_stopped_early_still_checks_uniqueness_against_the_rest() {
        let (text, _) = big_text();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.txt");
        std::fs::write(&path, &text).unwrap();
        let pattern = CompiledPattern::new(&opts("needle one")).unwrap();
        let stop = StopSignal::new(None);
        let limits = limits(1);
        let outcome = FileSearcher::new(&pattern).search(
            File::open(&path),
            || "big.txt".into(),
            limits,
            &stop,
            None,
        );
        let FileOutcome::Matched(file) = outcome else {
            panic!("expected hits")
        };
        assert_eq!(file.hits.len(), 1);
        assert!(
            !file.hits[0].unique,
            "the second occurrence is after the stop"
        );
    }

    #[test]
    fn big_file_with_a_late_nul_is_binary() {
        let (mut text, _) = big_text();
        text.extend_from_slice(b"tail\0");
        assert!(matches!(search(&text, opts("needle")), FileOutcome::Binary));
    }

    /// Text well past the start the searcher sniffs for NUL bytes, with `nul` at its end.
    fn late_nul_text(head: &str, nul: &str) -> Vec<u8> {
        let mut text = head.as_bytes().to_vec();
        for i in 0..10_000 {
            text.extend_from_slice(format!("filler line {i}\n").as_bytes());
        }
        text.extend_from_slice(nul.as_bytes());
        text
    }

    #[test]
    fn a_nul_byte_anywhere_makes_a_file_binary_whatever_the_query() {
        let text = late_nul_text("needle first\n", "x\0y\nneedle last\n");
        assert!(text.len() > 2 * BINARY_SNIFF_LEN);
        for (pattern, mode) in [
            ("nothing_like_this", OutputMode::Content),
            ("needle", OutputMode::Content),
            ("needle", OutputMode::Files),
            ("needle", OutputMode::Count),
            ("filler line 9999", OutputMode::Content),
            ("needle first\nfiller", OutputMode::Files),
        ] {
            let outcome = search_mode(&text, opts(pattern), mode);
            assert!(
                matches!(outcome, FileOutcome::Binary),
                "{pattern:?} in {mode:?} mode: not binary"
            );
        }
        let stopped_early = search_with(&text, opts("needle"), 1, 0);
        assert!(matches!(stopped_early, FileOutcome::Binary));
        // A UTF-16 file is binary by its decoded text: a late U+0000.
        let decoded = String::from_utf8(late_nul_text("needle\n", "\0\n")).unwrap();
        let mut utf16 = vec![0xFF, 0xFE];
        utf16.extend(decoded.encode_utf16().flat_map(u16::to_le_bytes));
        assert!(matches!(
            search(&utf16, opts("needle")),
            FileOutcome::Binary
        ));
        let clean = late_nul_text("needle first\n", "needle last\n");
        let FileOutcome::Matched(found) = search_mode(&clean, opts("needle"), OutputMode::Files)
        else {
            panic!("a clean file has hits")
        };
        assert_eq!((found.count, found.matches), (1, 1));
    }

    #[test]
    fn a_streamed_file_stopped_at_its_first_hits_is_checked_to_its_end() {
        let text = late_nul_text("needle first\nneedle second\n", "x\0y\n");
        let clean = late_nul_text("needle first\nneedle second\n", "end\n");
        for (mode, max_hits) in [(OutputMode::Files, 100), (OutputMode::Content, 1)] {
            let binary = search_with_mode(&text, opts("needle"), mode, max_hits, 1024);
            assert!(
                matches!(binary, FileOutcome::Binary),
                "{mode:?}, {max_hits} hits: not binary"
            );
            let FileOutcome::Matched(found) =
                search_with_mode(&clean, opts("needle"), mode, max_hits, 1024)
            else {
                panic!("{mode:?}: a clean streamed file has hits")
            };
            assert_eq!(found.hits.len(), 1, "{mode:?}");
        }
        // Nothing found: the searcher read (and checked) the whole file itself.
        let nothing = search_with_mode(&text, opts("absent"), OutputMode::Content, 100, 1024);
        assert!(matches!(nothing, FileOutcome::Binary));
    }

    #[test]
    fn a_utf16_file_too_big_to_read_whole_is_the_same_for_multiline_queries() {
        let decoded = "needle one\nneedle two\n".repeat(50);
        let mut utf16 = vec![0xFF, 0xFE];
        utf16.extend(decoded.encode_utf16().flat_map(u16::to_le_bytes));
        for pattern in ["needle", "one\nneedle"] {
            let read_whole = search_with(&utf16, opts(pattern), 100, 0);
            assert!(
                matches!(read_whole, FileOutcome::Matched(_)),
                "{pattern:?}: decoded when read whole"
            );
            let streamed = search_with(&utf16, opts(pattern), 100, 64);
            assert!(
                matches!(streamed, FileOutcome::Binary),
                "{pattern:?}: over the limit, searched raw (binary)"
            );
        }
    }

    /// `search` with a cap of `max_hits` per file, streaming files over `whole_limit` bytes
    /// (0: the default limit).
    fn search_with(
        text: &[u8],
        options: PatternOptions,
        max_hits: usize,
        whole_limit: u64,
    ) -> FileOutcome {
        search_with_mode(text, options, OutputMode::Content, max_hits, whole_limit)
    }

    fn search_with_mode(
        text: &[u8],
        options: PatternOptions,
        mode: OutputMode,
        max_hits: usize,
        whole_limit: u64,
    ) -> FileOutcome {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        std::fs::write(&path, text).unwrap();
        let pattern = CompiledPattern::new(&options).unwrap().with_mode(mode);
        let mut searcher = FileSearcher::new(&pattern);
        if whole_limit > 0 {
            searcher.whole_file_limit = whole_limit;
        }
        searcher.search(
            File::open(&path),
            || "f.txt".into(),
            limits(max_hits),
            &StopSignal::new(None),
            None,
        )
    }

    /// The bytes kept around wanted hits' lines (`CompiledPattern::with_windows`) are the
    /// file's, hold the line before each wanted line and the lines after it asked for, and
    /// no others are kept; a search not asking keeps none.
    #[test]
    fn windows_kept_around_wanted_lines_are_the_files_bytes() {
        let mut text = Vec::new();
        for n in 0..2000 {
            text.extend_from_slice(
                format!("line {n} before\nwant_{n} here\nskip_{n}\nfill a\nfill b\n").as_bytes(),
            );
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.c");
        std::fs::write(&path, &text).unwrap();
        let capture = crate::grep::WindowCapture {
            shape: |line, matched, _, _| (Default::default(), line[matched].starts_with(b"want")),
            finish: |_, _| {},
            lines_after: 2,
            bytes_before: 64,
            bytes_after: 256,
        };
        let stop = StopSignal::new(None);
        let line_start = |n: usize| {
            let marker = format!("want_{n} here\n");
            memchr::memmem::find(&text, marker.as_bytes()).unwrap()
        };
        let check = |windows: &crate::grep::Windows, every_line: bool| {
            // Parts apart: the lines between two wanted lines' parts are not kept.
            assert!(windows.parts.len() > 1, "{} parts", windows.parts.len());
            for &(offset, span) in &windows.parts {
                let at = offset as usize;
                assert_eq!(
                    &windows.bytes[span.start..span.start + span.len],
                    &text[at..at + span.len],
                    "part at {offset}"
                );
            }
            for n in 0..2000 {
                let own = line_start(n);
                let held = windows.part_holding(own as u64);
                let Some((start, bytes)) = held.filter(|_| every_line) else {
                    // A search of some units keeps only what they hold.
                    assert!(!every_line, "no part holds want_{n}");
                    continue;
                };
                let end = start as usize + bytes.len();
                let before = format!("line {n} before\n");
                let after = format!("want_{n} here\nskip_{n}\nfill a\n");
                // With the newline before the line before, but at the file's start.
                let previous = (own - before.len()).saturating_sub(1);
                assert!(start as usize <= previous, "want_{n}: no line before");
                assert!(
                    end >= (own + after.len()).min(text.len()),
                    "want_{n}: short"
                );
            }
            // Nor is the line between two wanted lines' parts.
            let between = memchr::memmem::find(&text, b"fill b").unwrap();
            assert!(
                windows.part_holding(between as u64).is_none(),
                "fill b kept"
            );
        };
        let pattern = CompiledPattern::new(&opts(r"\w+_\d+")).unwrap();
        let keeping = pattern.clone().with_windows(Some(capture));
        let open = || File::open(&path);
        let mut searcher = FileSearcher::new(&keeping);
        let FileOutcome::Matched(whole) =
            searcher.search(open(), || "f.c".into(), limits(10_000), &stop, None)
        else {
            panic!("no hits");
        };
        check(&whole.windows, true);
        // A search of some units: its parts are the file's too, cut where its units are.
        let cut = crate::index::build::units(&text);
        let mut line = 1u64;
        let mut ranges = Vec::new();
        for (i, &(start, end)) in cut.iter().enumerate() {
            if i % 2 == 0 {
                ranges.push(LineRange {
                    offset: start as u64,
                    len: (end - start) as u64,
                    first_line: line,
                });
            }
            line += memchr_iter(b'\n', &text[start..end]).count() as u64;
        }
        let file = Opened::from(File::open(&path).unwrap());
        let Some(FileOutcome::Matched(parts)) = searcher.search_ranges(
            &file,
            || "f.c".into(),
            limits(10_000),
            &stop,
            expected_of(&path),
            &ranges,
            &mut |_| None,
        ) else {
            panic!("no hits in the units");
        };
        assert!(!parts.windows.parts.is_empty());
        check(&parts.windows, false);
        let mut plain = FileSearcher::new(&pattern);
        let FileOutcome::Matched(none) =
            plain.search(open(), || "f.c".into(), limits(10_000), &stop, None)
        else {
            panic!("no hits");
        };
        assert!(none.windows.parts.is_empty() && none.windows.bytes.is_empty());
    }

    #[test]
    fn an_exact_texts_uniqueness_is_told_by_its_hits_in_the_parts_without_more_reads() {
        // The parts hold every unit that can hold a match: for a pattern that is one exact
        // text they hold each occurrence, so a single hit there is unique without reading the
        // rest of the file. Given parts that leave an occurrence out (which an index never
        // does), the two ways show: the exact text trusts the parts, a regex reads the file.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.c");
        std::fs::write(&path, b"needle x\nother\nneedle x\n").unwrap();
        let first_line = [LineRange {
            offset: 0,
            len: 9,
            first_line: 1,
        }];
        let stop = StopSignal::new(None);
        let unique_by_first_line = |pattern: &str| {
            let pattern = CompiledPattern::new(&opts(pattern)).unwrap();
            let file = Opened::from(File::open(&path).unwrap());
            let expected = expected_of(&path);
            let outcome = FileSearcher::new(&pattern).search_ranges(
                &file,
                || "f.c".into(),
                limits(100),
                &stop,
                expected,
                &first_line,
                &mut |_| None,
            );
            let Some(FileOutcome::Matched(found)) = outcome else {
                panic!("the part's hit")
            };
            let shown: Vec<(u64, bool)> = found.hits.iter().map(|h| (h.line, h.unique)).collect();
            println!("{:?}: {shown:?}", pattern.regex);
            shown
        };
        assert_eq!(unique_by_first_line("needle x"), vec![(1, true)]);
        assert_eq!(unique_by_first_line("needle [xy]"), vec![(1, false)]);
    }

    #[test]
    fn a_search_of_parts_leaves_the_searchers_binary_check_as_it_was() {
        // Parts are checked for a NUL byte by `search_ranges` itself, the searcher's own
        // check off meanwhile: a whole search with the same searcher checks again.
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("a.txt");
        std::fs::write(&text, b"needle one\nneedle two\n").unwrap();
        let binary = dir.path().join("b.bin");
        std::fs::write(&binary, b"needle\0\n").unwrap();
        let pattern = CompiledPattern::new(&opts("needle")).unwrap();
        let mut searcher = FileSearcher::new(&pattern);
        let stop = StopSignal::new(None);
        // `path` searched by its one part, its first `len` bytes.
        let mut by_part = |path: &std::path::Path, len: u64| {
            let part = [LineRange {
                offset: 0,
                len,
                first_line: 1,
            }];
            let file = Opened::from(File::open(path).unwrap());
            let rel = || path.file_name().unwrap().into();
            let expected = expected_of(path);
            searcher.search_ranges(&file, rel, limits(100), &stop, expected, &part, &mut |_| {
                None
            })
        };
        let Some(FileOutcome::Matched(found)) = by_part(&text, 22) else {
            panic!("the parts' hits")
        };
        assert_eq!(found.hits.len(), 2);
        // A part with a NUL byte (the file not as the index saw it) leaves it on too.
        let parts = by_part(&binary, 8);
        assert!(parts.is_none(), "a NUL byte in a part: searched whole");
        let whole = searcher.search(
            File::open(&binary),
            || "b.bin".into(),
            limits(100),
            &stop,
            None,
        );
        assert!(
            matches!(whole, FileOutcome::Binary),
            "expected Binary, got {}",
            match whole {
                FileOutcome::Matched(_) => "Matched",
                FileOutcome::NoMatch => "NoMatch",
                _ => "another outcome",
            }
        );
    }

    #[test]
    fn files_mode_by_units_counts_one_match_and_a_nul_leaves_the_file_to_a_whole_search() {
        let text = late_nul_text("needle first\n", "needle last\n");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        std::fs::write(&path, &text).unwrap();
        let expected = expected_of(&path);
        let last_line = memchr_iter(b'\n', &text).count() as u64;
        let last_start = text.len() - "needle last\n".len();
        let ranges = [
            LineRange {
                offset: 0,
                len: 13,
                first_line: 1,
            },
            LineRange {
                offset: last_start as u64,
                len: (text.len() - last_start) as u64,
                first_line: last_line,
            },
        ];
        let limits = limits(100);
        let stop = StopSignal::new(None);
        let by_units = |mode: OutputMode| {
            let pattern = CompiledPattern::new(&opts("needle"))
                .unwrap()
                .with_mode(mode);
            let file = Opened::from(File::open(&path).unwrap());
            FileSearcher::new(&pattern).search_ranges(
                &file,
                || "f.txt".into(),
                limits,
                &stop,
                expected,
                &ranges,
                &mut |_| None,
            )
        };
        let Some(FileOutcome::Matched(files)) = by_units(OutputMode::Files) else {
            panic!("files mode: expected hits")
        };
        assert_eq!((files.count, files.matches, files.hits.len()), (1, 1, 1));
        let Some(FileOutcome::Matched(counted)) = by_units(OutputMode::Count) else {
            panic!("count mode: expected hits")
        };
        assert_eq!((counted.count, counted.matches), (1, 2));
        // The same size and times but a NUL byte in a part: not as the index saw it.
        let mut changed = text.clone();
        changed[last_start] = 0;
        std::fs::write(&path, &changed).unwrap();
        let file = Opened::from(File::open(&path).unwrap());
        {
            use std::os::unix::fs::MetadataExt;
            let meta = file.file.metadata().unwrap();
            let times = std::fs::FileTimes::new().set_modified(
                std::time::UNIX_EPOCH + std::time::Duration::from_nanos(expected.mtime_ns as u64),
            );
            File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_times(times)
                .unwrap();
            assert_eq!(meta.ino(), expected.ino);
        }
        let outcome = by_units(OutputMode::Content);
        assert!(outcome.is_none(), "a part with a NUL byte: searched whole");
    }
}
