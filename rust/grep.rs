//! Content search of one file: the matcher built from a query, and a sink that turns
//! `grep-searcher` callbacks into one hit per match with exact offsets and context lines.

use crate::error::{Error, Result};
use grep_matcher::{LineTerminator, Matcher};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{
    BinaryDetection, MmapChoice, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch,
};
use memchr::memchr_iter;
use regex_syntax::ast::{self, Ast, Span as AstSpan};
use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::Read;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Files larger than this are streamed instead of read whole (no uniqueness check for them).
const WHOLE_FILE_LIMIT: u64 = 64 * 1024 * 1024;
/// A per-thread buffer grown past this by one large file is shrunk back afterwards, so a few
/// big files do not keep every thread's memory high for the rest of the walk.
const KEEP_BUFFER: usize = 4 * 1024 * 1024;
/// grep-searcher looks for NUL bytes only in the first buffer of a slice; this is its size.
const BINARY_SNIFF_LEN: usize = 64 * 1024;

/// What to look for and how.
#[derive(Clone, Debug)]
pub struct PatternOptions {
    pub pattern: String,
    pub literal: bool,
    pub case_sensitive: bool,
    /// `None`: on when the pattern contains a newline.
    pub multiline: Option<bool>,
    pub before: usize,
    pub after: usize,
}

/// A matcher ready to search with.
#[derive(Clone, Debug)]
pub struct CompiledPattern {
    pub matcher: RegexMatcher,
    pub multiline: bool,
    pub before: usize,
    pub after: usize,
}

impl CompiledPattern {
    pub fn new(options: &PatternOptions) -> Result<CompiledPattern> {
        let (regex, has_newline) = if options.literal {
            literal_regex(&options.pattern)
        } else {
            newline_tolerant_regex(&options.pattern)
        };
        let multiline = options.multiline.unwrap_or(has_newline);
        let mut builder = RegexMatcherBuilder::new();
        builder
            .case_insensitive(!options.case_sensitive)
            .multi_line(true)
            .crlf(true)
            .unicode(true);
        if multiline {
            // crlf() also sets a CRLF line terminator, which would ban `\r` and `\n`.
            builder.line_terminator(None);
        }
        let matcher = builder.build(&regex).map_err(|e| {
            let mut msg = format!("invalid regex /{}/: {e}", options.pattern);
            if has_newline && !multiline {
                msg.push_str("\nA pattern with a newline needs multiline=true.");
            } else if !options.literal {
                msg.push_str("\nEscape special characters with \\ or pass literal=true.");
            }
            Error::Pattern(msg)
        })?;
        Ok(CompiledPattern {
            matcher,
            multiline,
            before: options.before,
            after: options.after,
        })
    }

    pub fn searcher(&self) -> Searcher {
        let mut builder = SearcherBuilder::new();
        if !self.multiline {
            builder.line_terminator(LineTerminator::crlf());
        }
        builder
            .line_number(true)
            .multi_line(self.multiline)
            .binary_detection(BinaryDetection::quit(b'\x00'))
            .before_context(self.before)
            .after_context(self.after)
            .bom_sniffing(false)
            .memory_map(MmapChoice::never())
            .build()
    }
}

const NEWLINE: &str = "(?:\\r?\\n)";

/// A fixed string as a regex; each newline in it (`\n` or `\r\n`) matches either ending.
fn literal_regex(pattern: &str) -> (String, bool) {
    if !pattern.contains('\n') {
        return (regex_syntax::escape(pattern), false);
    }
    let pieces: Vec<String> = pattern
        .split('\n')
        .map(|line| regex_syntax::escape(line.strip_suffix('\r').unwrap_or(line)))
        .collect();
    (pieces.join(NEWLINE), true)
}

/// The regex with every literal newline (`\n`, a raw newline, `\x0A`, ...) outside a class
/// replaced by `(?:\r?\n)`, so that patterns written for `\n` files also match `\r\n` files.
fn newline_tolerant_regex(pattern: &str) -> (String, bool) {
    let Ok(parsed) = ast::parse::Parser::new().parse(pattern) else {
        // Let the regex builder report the syntax error with its full message.
        return (pattern.to_string(), pattern.contains('\n'));
    };
    struct Newlines(Vec<AstSpan>);
    impl ast::Visitor for Newlines {
        type Output = Vec<AstSpan>;
        type Err = ();
        fn finish(self) -> std::result::Result<Vec<AstSpan>, ()> {
            Ok(self.0)
        }
        fn visit_pre(&mut self, ast: &Ast) -> std::result::Result<(), ()> {
            if let Ast::Literal(lit) = ast {
                if lit.c == '\n' {
                    self.0.push(lit.span);
                }
            }
            Ok(())
        }
    }
    let spans = ast::visit(&parsed, Newlines(Vec::new())).unwrap_or_default();
    if spans.is_empty() {
        return (pattern.to_string(), false);
    }
    let mut out = String::with_capacity(pattern.len() + spans.len() * 8);
    let mut last = 0;
    for span in &spans {
        out.push_str(&pattern[last..span.start.offset]);
        out.push_str(NEWLINE);
        last = span.end.offset;
    }
    out.push_str(&pattern[last..]);
    (out, true)
}

/// How a file's text is encoded; offsets of UTF-16 files refer to their UTF-8 transcoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextEncoding {
    Utf8,
    Utf8Bom,
    Utf16Le,
    Utf16Be,
}

impl TextEncoding {
    /// The Python codec name.
    pub fn name(self) -> &'static str {
        match self {
            TextEncoding::Utf8 => "utf-8",
            TextEncoding::Utf8Bom => "utf-8-sig",
            TextEncoding::Utf16Le => "utf-16-le",
            TextEncoding::Utf16Be => "utf-16-be",
        }
    }
}

/// A range of bytes in the `bytes` of the `FileHits` a hit belongs to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub len: usize,
}

/// One match. Its text lives in its file's `FileHits::bytes`: one buffer per file instead of
/// two or more allocations per hit, which on large results cost more than the scan.
#[derive(Clone, Debug)]
pub struct Hit {
    pub line: u64,
    /// 1-based, in characters.
    pub column: u64,
    pub end_line: u64,
    pub byte_offset: u64,
    /// The matched bytes exactly.
    pub content: Span,
    /// The whole first line of the match, without its terminator (raw bytes; decoded, with
    /// invalid UTF-8 replaced, when shown).
    pub text: Span,
    /// Context lines, when any were asked for.
    pub context: Option<Box<Context>>,
    /// The matched bytes occur exactly once in the file.
    pub unique: bool,
}

/// The lines around a hit, without terminators.
#[derive(Clone, Debug, Default)]
pub struct Context {
    pub before: Vec<Span>,
    pub after: Vec<Span>,
}

/// The hits of one file.
#[derive(Debug)]
pub struct FileHits {
    /// Relative to the workspace root (raw bytes: names need not be UTF-8).
    pub path: PathBuf,
    pub hits: Vec<Hit>,
    /// The bytes the hits' spans point into.
    pub bytes: Vec<u8>,
    /// Matches found in the file (may exceed `hits.len()` when hits were capped).
    pub count: u64,
    pub size: u64,
    pub mtime_ns: i64,
    pub encoding: TextEncoding,
}

impl FileHits {
    pub fn slice(&self, span: Span) -> &[u8] {
        &self.bytes[span.start..span.start + span.len]
    }
}

/// Appends `data` to `bytes`, returning where it went.
pub fn store(bytes: &mut Vec<u8>, data: &[u8]) -> Span {
    let span = Span {
        start: bytes.len(),
        len: data.len(),
    };
    bytes.extend_from_slice(data);
    span
}

pub enum FileOutcome {
    Matched(FileHits),
    NoMatch,
    Binary,
    Unreadable,
    /// Stopped before finishing (timeout or the search no longer needs this file).
    Interrupted(Option<FileHits>),
}

/// Why a search should stop: a deadline, or a flag raised by the orchestrator.
pub struct StopSignal {
    flag: AtomicBool,
    timed_out: AtomicBool,
    deadline: Option<Instant>,
}

impl StopSignal {
    pub fn new(deadline: Option<Instant>) -> StopSignal {
        StopSignal {
            flag: AtomicBool::new(false),
            timed_out: AtomicBool::new(false),
            deadline,
        }
    }
    pub fn stop(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }
    pub fn should_stop(&self) -> bool {
        if self.flag.load(Ordering::Relaxed) {
            return true;
        }
        if let Some(deadline) = self.deadline {
            if Instant::now() >= deadline {
                self.timed_out.store(true, Ordering::Relaxed);
                self.stop();
                return true;
            }
        }
        false
    }
    pub fn timed_out(&self) -> bool {
        self.timed_out.load(Ordering::Relaxed)
    }
}

/// Per-file caps.
#[derive(Clone, Copy, Debug)]
pub struct FileLimits {
    /// Hits to materialise at most.
    pub max_hits: usize,
    /// Keep counting matches past `max_hits`.
    pub count_all: bool,
}

/// Searches files one at a time; one per thread, reusing its buffers.
pub struct FileSearcher {
    pattern: CompiledPattern,
    searcher: Searcher,
    buffer: Vec<u8>,
    decoded: Vec<u8>,
    /// A file's hits and their bytes are gathered here, then copied out at their exact size:
    /// growing fresh vectors per file cost a chain of reallocations for every file with hits.
    hits: Vec<Hit>,
    hit_bytes: Vec<u8>,
}

impl FileSearcher {
    pub fn new(pattern: &CompiledPattern) -> FileSearcher {
        FileSearcher {
            searcher: pattern.searcher(),
            pattern: pattern.clone(),
            buffer: Vec::new(),
            decoded: Vec::new(),
            hits: Vec::new(),
            hit_bytes: Vec::new(),
        }
    }

    /// Searches `file`, opened by the caller beneath the root (an error counts it as
    /// unreadable); `rel` names it in the result (only asked for when it has hits: most files
    /// of a walk have none).
    pub fn search(
        &mut self,
        file: std::io::Result<File>,
        rel: impl FnOnce() -> PathBuf,
        limits: FileLimits,
        stop: &StopSignal,
    ) -> FileOutcome {
        let Ok(file) = file else {
            return FileOutcome::Unreadable;
        };
        let Ok(meta) = file.metadata() else {
            return FileOutcome::Unreadable;
        };
        if !meta.is_file() {
            return FileOutcome::Unreadable;
        }
        let size = meta.len();
        let mtime_ns = {
            use std::os::unix::fs::MetadataExt;
            meta.mtime() * 1_000_000_000 + meta.mtime_nsec()
        };
        let mut sink = HitSink::new(
            &self.pattern,
            limits,
            stop,
            &mut self.hits,
            &mut self.hit_bytes,
        );
        let mut encoding = TextEncoding::Utf8;
        let whole = size <= WHOLE_FILE_LIMIT || self.pattern.multiline;
        let searched: std::io::Result<()>;
        if whole {
            if read_known_size(&file, size, &mut self.buffer).is_err() {
                return FileOutcome::Unreadable;
            }
            let (text, base) = match self.buffer.as_slice() {
                [0xFF, 0xFE, ..] | [0xFE, 0xFF, ..] => {
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
            searched = self
                .searcher
                .search_slice(&self.pattern.matcher, text, &mut sink);
            if sink.count > 0 && !sink.binary && text.len() > BINARY_SNIFF_LEN {
                sink.binary = memchr::memchr(0, &text[BINARY_SNIFF_LEN..]).is_some();
            }
            if !sink.binary {
                mark_unique(sink.hits, sink.bytes, text);
            }
        } else {
            searched = self
                .searcher
                .search_reader(&self.pattern.matcher, &file, &mut sink);
        }
        for buffer in [&mut self.buffer, &mut self.decoded] {
            if buffer.capacity() > KEEP_BUFFER {
                buffer.clear();
                buffer.shrink_to(KEEP_BUFFER);
            }
        }
        let hits = (sink.count > 0).then(|| (sink.hits.drain(..).collect(), sink.bytes.to_vec()));
        let (count, binary, interrupted) = (sink.count, sink.binary, sink.interrupted);
        if self.hit_bytes.capacity() > KEEP_BUFFER {
            self.hit_bytes = Vec::new();
        }
        if self.hits.capacity() * std::mem::size_of::<Hit>() > KEEP_BUFFER {
            self.hits = Vec::new();
        }
        if searched.is_err() {
            return FileOutcome::Unreadable;
        }
        if binary {
            return FileOutcome::Binary;
        }
        let hits = hits.map(|(hits, bytes)| FileHits {
            path: rel(),
            count,
            hits,
            bytes,
            size,
            mtime_ns,
            encoding,
        });
        match (interrupted, hits) {
            (true, hits) => FileOutcome::Interrupted(hits),
            (false, Some(hits)) => FileOutcome::Matched(hits),
            (false, None) => FileOutcome::NoMatch,
        }
    }
}

/// Reads the `size` bytes the caller just saw in the file's metadata into `buffer` (replacing
/// its contents): usually a single `read(2)`, where `File::read_to_end` would add a statx
/// and an lseek to size its buffer plus a final read to see EOF, on every file of a walk.
/// The result is the file as of that metadata: bytes appended since are not read, a file
/// that shrank is read as it is now. A size of 0 may mean "unknown" (special files), so
/// such a file is read to its end.
fn read_known_size(file: &File, size: u64, buffer: &mut Vec<u8>) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    buffer.clear();
    if size == 0 {
        return (&*file).read_to_end(buffer).map(|_| ());
    }
    let size = usize::try_from(size).unwrap_or(usize::MAX);
    buffer.reserve(size);
    while buffer.len() < size {
        let want = size - buffer.len();
        let spare = &mut buffer.spare_capacity_mut()[..want];
        // SAFETY: `spare` is writable memory owned by `buffer`; `read` writes at most
        // `spare.len()` bytes into it and returns how many it wrote.
        let n = unsafe { libc::read(file.as_raw_fd(), spare.as_mut_ptr().cast(), spare.len()) };
        if n < 0 {
            let err = std::io::Error::last_os_error();
            if err.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(err);
        }
        if n == 0 {
            break; // the file shrank
        }
        // SAFETY: the kernel initialised exactly `n` bytes after the current length.
        unsafe { buffer.set_len(buffer.len() + n as usize) };
    }
    Ok(())
}

/// Marks each hit whose matched bytes occur exactly once in `text`.
fn mark_unique(hits: &mut [Hit], bytes: &[u8], text: &[u8]) {
    let content = |hit: &Hit| &bytes[hit.content.start..hit.content.start + hit.content.len];
    let once_in_text = |needle: &[u8]| {
        !needle.is_empty() && memchr::memmem::find_iter(text, needle).nth(1).is_none()
    };
    match hits {
        [] => {}
        [only] => only.unique = once_in_text(content(only)),
        // The usual case of a literal pattern: every hit has the same bytes, so none is unique
        // (no hashing per hit).
        [first, rest @ ..] if rest.iter().all(|hit| content(hit) == content(first)) => {}
        _ => {
            let mut seen: HashMap<&[u8], usize> = HashMap::with_capacity(hits.len());
            for hit in hits.iter() {
                *seen.entry(content(hit)).or_default() += 1;
            }
            for hit in hits.iter_mut() {
                let content = content(hit);
                hit.unique = seen[content] == 1 && once_in_text(content);
            }
        }
    }
}

/// Turns searcher callbacks into hits, keeping the context lines around each one.
struct HitSink<'a> {
    pattern: &'a CompiledPattern,
    limits: FileLimits,
    stop: &'a StopSignal,
    /// Offset of the searched text in the file (3 after a UTF-8 BOM).
    base: u64,
    hits: &'a mut Vec<Hit>,
    /// What the hits' spans point into.
    bytes: &'a mut Vec<u8>,
    /// The text of the last hit's line, by the line's offset: hits on one line share it.
    last_line: Option<(u64, Span)>,
    count: u64,
    binary: bool,
    interrupted: bool,
    /// Matches found after `max_hits` while finishing the last hits' after-context.
    finishing: bool,
    /// The last `before` lines seen, with their numbers (terminators stripped).
    recent: VecDeque<(u64, Vec<u8>)>,
    /// Hits still collecting after-context lines.
    pending: Vec<usize>,
    spans: Vec<(usize, usize)>,
}

impl<'a> HitSink<'a> {
    fn new(
        pattern: &'a CompiledPattern,
        limits: FileLimits,
        stop: &'a StopSignal,
        hits: &'a mut Vec<Hit>,
        bytes: &'a mut Vec<u8>,
    ) -> Self {
        hits.clear();
        bytes.clear();
        HitSink {
            pattern,
            limits,
            stop,
            base: 0,
            hits,
            bytes,
            last_line: None,
            count: 0,
            binary: false,
            interrupted: false,
            finishing: false,
            recent: VecDeque::new(),
            pending: Vec::new(),
            spans: Vec::new(),
        }
    }

    fn wants_context(&self) -> bool {
        self.pattern.before > 0 || self.pattern.after > 0
    }

    /// Records a line (matched or not) for the context of the hits around it.
    fn push_line(&mut self, number: u64, line: &[u8]) {
        if !self.wants_context() {
            return;
        }
        let line = without_terminator(line);
        let after = self.pattern.after as u64;
        let mut stored: Option<Span> = None;
        let (hits, bytes) = (&mut *self.hits, &mut *self.bytes);
        self.pending.retain(|&i| {
            let hit = &mut hits[i];
            if number > hit.end_line + after {
                return false;
            }
            if number > hit.end_line {
                let span = *stored.get_or_insert_with(|| store(bytes, line));
                hit.context.get_or_insert_default().after.push(span);
            }
            number < hit.end_line + after
        });
        if self.pattern.before > 0 {
            if self.recent.len() == self.pattern.before {
                self.recent.pop_front();
            }
            self.recent.push_back((number, line.to_vec()));
        }
    }

    fn context_before(&mut self, line: u64) -> Option<Box<Context>> {
        if !self.wants_context() {
            return None;
        }
        let first = line.saturating_sub(self.pattern.before as u64);
        let before = self
            .recent
            .iter()
            .filter(|(n, _)| *n >= first && *n < line)
            .map(|(_, text)| store(self.bytes, text))
            .collect();
        Some(Box::new(Context {
            before,
            after: Vec::new(),
        }))
    }

    fn handle_block(&mut self, mat: &SinkMatch<'_>) -> bool {
        let buffer = mat.buffer();
        let range = mat.bytes_range_in_buffer();
        let first_line = mat.line_number().unwrap_or(1);
        let block_offset = mat.absolute_byte_offset();
        self.spans.clear();
        let spans = &mut self.spans;
        // Line by line, no match crosses the block's last line terminator, so the block is
        // all the haystack needed. Searching the whole rest of the buffer instead ran on to
        // the next match beyond the block on every call: a second scan of every file with hits.
        // A multiline match may run past the block, so there the buffer stays whole.
        let haystack = if self.pattern.multiline {
            buffer
        } else {
            &buffer[..range.end]
        };
        let _ = self
            .pattern
            .matcher
            .find_iter_at(haystack, range.start, |m| {
                if m.start() >= range.end {
                    return false;
                }
                spans.push((m.start(), m.end()));
                true
            });
        // Lines of this block not yet recorded for context: next line number and its start.
        let mut next_line = first_line;
        let mut next_pos = range.start;
        // Line of the match being placed, tracked incrementally.
        let mut line = first_line;
        let mut line_start = range.start;
        let mut scanned = range.start;
        let spans = std::mem::take(&mut self.spans);
        let mut keep_going = true;
        for &(start, end) in &spans {
            for nl in memchr_iter(b'\n', &buffer[scanned..start]) {
                line += 1;
                line_start = scanned + nl + 1;
            }
            scanned = start;
            self.count += 1;
            if self.finishing || self.hits.len() >= self.limits.max_hits {
                self.finishing = true;
                if !self.limits.count_all && self.pending.is_empty() {
                    keep_going = false;
                    break;
                }
                continue;
            }
            while next_line < line {
                let line_end = line_end(buffer, next_pos, range.end);
                self.push_line(next_line, &buffer[next_pos..line_end]);
                next_line += 1;
                next_pos = line_end;
            }
            let last_byte = if end > start { end - 1 } else { start };
            let end_line = line + memchr_iter(b'\n', &buffer[start..last_byte]).count() as u64;
            let line_offset = self.base + block_offset + (line_start - range.start) as u64;
            let text_bytes =
                without_terminator(&buffer[line_start..line_end(buffer, line_start, buffer.len())]);
            let text = match self.last_line {
                Some((offset, span)) if offset == line_offset => span,
                _ => {
                    let span = store(self.bytes, text_bytes);
                    self.last_line = Some((line_offset, span));
                    span
                }
            };
            // A match within its first line is a part of that line's text.
            let content = if end <= line_start + text_bytes.len() {
                Span {
                    start: text.start + (start - line_start),
                    len: end - start,
                }
            } else {
                store(self.bytes, &buffer[start..end])
            };
            let hit = Hit {
                line,
                column: char_count(&buffer[line_start..start]) + 1,
                end_line,
                byte_offset: self.base + block_offset + (start - range.start) as u64,
                content,
                text,
                context: self.context_before(line),
                unique: false,
            };
            self.hits.push(hit);
            if self.pattern.after > 0 {
                self.pending.push(self.hits.len() - 1);
            }
        }
        self.spans = spans;
        while next_pos < range.end {
            let line_end = line_end(buffer, next_pos, range.end);
            self.push_line(next_line, &buffer[next_pos..line_end]);
            next_line += 1;
            next_pos = line_end;
        }
        if self.finishing && !self.limits.count_all && self.pending.is_empty() {
            keep_going = false;
        }
        keep_going
    }
}

/// End of the line starting at `start` (after its `\n`), or `limit`.
fn line_end(buffer: &[u8], start: usize, limit: usize) -> usize {
    match memchr::memchr(b'\n', &buffer[start..limit]) {
        Some(i) => start + i + 1,
        None => limit,
    }
}

/// A line without its terminator (`\n` or `\r\n`).
fn without_terminator(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Characters in `bytes`: every byte that does not continue a UTF-8 sequence starts one.
fn char_count(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count() as u64
}

impl Sink for HitSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> std::io::Result<bool> {
        if self.stop.should_stop() {
            self.interrupted = true;
            return Ok(false);
        }
        Ok(self.handle_block(mat))
    }

    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> std::io::Result<bool> {
        if let Some(number) = ctx.line_number() {
            self.push_line(number, ctx.bytes());
        }
        if self.finishing && !self.limits.count_all && self.pending.is_empty() {
            return Ok(false);
        }
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> std::io::Result<bool> {
        self.recent.clear();
        self.pending.clear();
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> std::io::Result<bool> {
        self.binary = true;
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(text: &[u8], options: PatternOptions) -> FileOutcome {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        std::fs::write(&path, text).unwrap();
        let pattern = CompiledPattern::new(&options).unwrap();
        let mut searcher = FileSearcher::new(&pattern);
        let stop = StopSignal::new(None);
        searcher.search(
            File::open(&path),
            || "f.txt".into(),
            FileLimits {
                max_hits: 100,
                count_all: false,
            },
            &stop,
        )
    }

    fn opts(pattern: &str) -> PatternOptions {
        PatternOptions {
            pattern: pattern.into(),
            literal: false,
            case_sensitive: true,
            multiline: None,
            before: 0,
            after: 0,
        }
    }

    /// A hit with its text resolved, for assertions.
    struct Resolved {
        line: u64,
        column: u64,
        end_line: u64,
        byte_offset: u64,
        content: Vec<u8>,
        text: String,
        before: Vec<String>,
        after: Vec<String>,
        unique: bool,
    }

    fn hits(outcome: FileOutcome) -> Vec<Resolved> {
        let FileOutcome::Matched(file) = outcome else {
            panic!("expected hits");
        };
        let text = |span| String::from_utf8_lossy(file.slice(span)).into_owned();
        let context = |hit: &Hit, after: bool| -> Vec<String> {
            hit.context.as_ref().map_or_else(Vec::new, |c| {
                let spans = if after { &c.after } else { &c.before };
                spans.iter().map(|&span| text(span)).collect()
            })
        };
        file.hits
            .iter()
            .map(|hit| Resolved {
                line: hit.line,
                column: hit.column,
                end_line: hit.end_line,
                byte_offset: hit.byte_offset,
                content: file.slice(hit.content).to_vec(),
                text: text(hit.text),
                before: context(hit, false),
                after: context(hit, true),
                unique: hit.unique,
            })
            .collect()
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

    #[test]
    fn big_file_stopped_early_still_checks_uniqueness_against_the_rest() {
        let (text, _) = big_text();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.txt");
        std::fs::write(&path, &text).unwrap();
        let pattern = CompiledPattern::new(&opts("needle one")).unwrap();
        let stop = StopSignal::new(None);
        let limits = FileLimits {
            max_hits: 1,
            count_all: false,
        };
        let outcome = FileSearcher::new(&pattern).search(
            File::open(&path),
            || "big.txt".into(),
            limits,
            &stop,
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

    #[test]
    fn escaped_newline_in_regex_tolerates_crlf() {
        let (regex, has) = newline_tolerant_regex(r"a\nb[^\n]");
        assert!(has);
        assert_eq!(regex, r"a(?:\r?\n)b[^\n]");
    }
}
