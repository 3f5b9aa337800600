//! Content search of one file: the matcher built from a query, and a sink that turns
//! `grep-searcher` callbacks into one hit per match with exact offsets and context lines.

use crate::cancel::CancelToken;
use crate::error::{Error, Result};
use grep_matcher::{LineTerminator, Matcher};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{
    BinaryDetection, MmapChoice, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch,
};
use memchr::memchr_iter;
use regex_syntax::ast::{self, Ast, Span as AstSpan};
use std::collections::VecDeque;
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
/// A search of some units proves a hit's text unique by reading a file up to this size whole
/// (larger ones: only the units the index says may hold it).
const WHOLE_READ: u64 = 256 * 1024;
/// grep-searcher looks for NUL bytes only in the first buffer of a slice (and in the lines it
/// reports); this is its size. The rest of a slice is checked here, before it is searched.
const BINARY_SNIFF_LEN: usize = 64 * 1024;
/// Bytes read at a time when checking the rest of a streamed file for a NUL byte.
const REST_CHUNK: usize = 1024 * 1024;

/// Longest pattern accepted (regex or literal), in bytes. Parsing costs memory in proportion
/// to the pattern (a 10 MB regex took 3.6 GB); 64 KiB is some 1,500 lines of code.
pub const MAX_PATTERN_BYTES: usize = 64 * 1024;
/// Most Unicode classes (`\w`, `\d`, `\p{..}` and their negations, alone or in brackets) in
/// one regex: each holds hundreds of ranges once parsed, so 64 KiB of `\pL` took 900 MB before
/// the compiled-size limit could refuse it. (`\s`, `.` and bracketed ranges are small and
/// not counted.)
pub const MAX_UNICODE_CLASSES: usize = 1_000;
/// Largest compiled regex (its NFA), in bytes; grep-regex's own default is 100 MiB. `\w{1000}`
/// fits; a pattern over it is refused rather than built.
pub const MAX_COMPILED_BYTES: usize = 64 * 1024 * 1024;
/// Most memory the lazy DFA of one search thread may cache, in bytes (grep-regex's default is
/// 1000 MiB); when full it is cleared, or the search goes on with a slower engine.
pub const DFA_CACHE_BYTES: usize = 256 * 1024 * 1024;
/// Deepest nesting of groups, classes and repetitions in a regex (grep-regex's default).
const NEST_LIMIT: u32 = 250;

/// The start of a long pattern, for messages: a 10 MB pattern must not make a 10 MB message.
/// Short patterns come back whole.
pub(crate) fn abbreviate(text: &str) -> std::borrow::Cow<'_, str> {
    const SHOWN: usize = 60;
    if text.len() <= SHOWN + 40 {
        return text.into();
    }
    let mut end = SHOWN;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes)", &text[..end], text.len()).into()
}

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

/// What a search reports of each file: every match (`Content`), only that it matches
/// (`Files`: the scan of a file stops at its first match), or how many matches it has
/// (`Count`: every match counted, only the first materialised). In the last two the unit of
/// a search's limits is the file: `FileHits::count` is 1 and `FileHits::matches` the count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutputMode {
    #[default]
    Content,
    Files,
    Count,
}

impl OutputMode {
    pub fn parse(text: &str) -> Result<OutputMode> {
        match text {
            "content" => Ok(OutputMode::Content),
            "files" => Ok(OutputMode::Files),
            "count" => Ok(OutputMode::Count),
            other => Err(Error::InvalidArgument(format!(
                "mode must be \"content\", \"files\" or \"count\", not {:?}",
                abbreviate(other)
            ))),
        }
    }

    /// The per-file caps of a search in this mode: files need one hit; counts need every
    /// match counted and one kept.
    pub fn limits(self, limits: FileLimits) -> FileLimits {
        match self {
            OutputMode::Content => limits,
            OutputMode::Files => FileLimits {
                max_hits: 1,
                count_all: false,
            },
            OutputMode::Count => FileLimits {
                max_hits: 1,
                count_all: true,
            },
        }
    }
}

/// A matcher ready to search with.
#[derive(Clone, Debug)]
pub struct CompiledPattern {
    pub matcher: RegexMatcher,
    /// The regex the matcher was built from (literals escaped, newlines made CRLF-tolerant).
    pub regex: String,
    pub case_insensitive: bool,
    pub multiline: bool,
    pub before: usize,
    pub after: usize,
    pub mode: OutputMode,
}

impl CompiledPattern {
    /// The pattern reporting files or counts instead of every match (no context lines then).
    pub fn with_mode(mut self, mode: OutputMode) -> CompiledPattern {
        self.mode = mode;
        if mode != OutputMode::Content {
            self.before = 0;
            self.after = 0;
        }
        self
    }

    pub fn new(options: &PatternOptions) -> Result<CompiledPattern> {
        let pattern = &options.pattern;
        if pattern.len() > MAX_PATTERN_BYTES {
            let what = if options.literal {
                "search string"
            } else {
                "regex"
            };
            return Err(Error::Pattern(format!(
                "the {what} is {} bytes long, over the limit of {MAX_PATTERN_BYTES} (64 KiB): \
                 {:?}. Search for a shorter part of it that is distinctive enough.",
                pattern.len(),
                abbreviate(pattern)
            )));
        }
        let (regex, has_newline) = if options.literal {
            literal_regex(pattern)
        } else {
            newline_tolerant_regex(pattern)?
        };
        let multiline = options.multiline.unwrap_or(has_newline);
        let mut builder = RegexMatcherBuilder::new();
        builder
            .case_insensitive(!options.case_sensitive)
            .multi_line(true)
            .crlf(true)
            .unicode(true)
            .nest_limit(NEST_LIMIT)
            .size_limit(MAX_COMPILED_BYTES)
            .dfa_size_limit(DFA_CACHE_BYTES);
        if multiline {
            // crlf() also sets a CRLF line terminator, which would ban `\r` and `\n`.
            builder.line_terminator(None);
        }
        let matcher = builder
            .build(&regex)
            .map_err(|e| regex_error(options, &e, has_newline && !multiline))?;
        Ok(CompiledPattern {
            matcher,
            regex,
            case_insensitive: !options.case_sensitive,
            multiline,
            before: options.before,
            after: options.after,
            mode: OutputMode::Content,
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

/// The message for a pattern grep-regex refused.
fn regex_error(
    options: &PatternOptions,
    error: &grep_regex::Error,
    needs_multiline: bool,
) -> Error {
    let pattern = abbreviate(&options.pattern);
    let detail = error.to_string();
    if let grep_regex::ErrorKind::Regex(kind) = error.kind() {
        if kind.starts_with("compiled regex exceeds size limit") {
            return Error::Pattern(format!(
                "the regex /{pattern}/ is too large once compiled (over {} MiB). Use smaller \
                 counted repetitions ({{n}}), fewer Unicode classes (or ASCII ones such as \
                 (?-u:\\w)), or literal=true.",
                MAX_COMPILED_BYTES >> 20
            ));
        }
    }
    // A syntax error shows the whole pattern with a caret under the fault; for a long pattern
    // keep the last line alone ("error: ...").
    let detail = if options.pattern.len() > 200 {
        detail.lines().last().unwrap_or_default().to_string()
    } else {
        detail
    };
    let mut msg = format!("invalid regex /{pattern}/: {detail}");
    if needs_multiline {
        msg.push_str("\nA pattern with a newline needs multiline=true.");
    } else if !options.literal {
        msg.push_str("\nEscape special characters with \\ or pass literal=true.");
    }
    Error::Pattern(msg)
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
/// replaced by `(?:\r?\n)`, so that patterns written for `\n` files also match `\r\n` files;
/// and whether there was one. Refuses a regex with more than `MAX_UNICODE_CLASSES` classes.
fn newline_tolerant_regex(pattern: &str) -> Result<(String, bool)> {
    let parser = ast::parse::ParserBuilder::new()
        .nest_limit(NEST_LIMIT)
        .build()
        .parse(pattern);
    let Ok(parsed) = parser else {
        // Let the regex builder report the syntax error with its full message.
        return Ok((pattern.to_string(), pattern.contains('\n')));
    };
    #[derive(Default)]
    struct Scan {
        newlines: Vec<AstSpan>,
        unicode_classes: usize,
    }
    impl ast::Visitor for Scan {
        type Output = Scan;
        type Err = ();
        fn finish(self) -> std::result::Result<Scan, ()> {
            Ok(self)
        }
        fn visit_pre(&mut self, ast: &Ast) -> std::result::Result<(), ()> {
            match ast {
                Ast::Literal(lit) if lit.c == '\n' => self.newlines.push(lit.span),
                Ast::ClassPerl(class) if class.kind != ast::ClassPerlKind::Space => {
                    self.unicode_classes += 1
                }
                Ast::ClassUnicode(_) => self.unicode_classes += 1,
                _ => {}
            }
            Ok(())
        }
        fn visit_class_set_item_pre(
            &mut self,
            item: &ast::ClassSetItem,
        ) -> std::result::Result<(), ()> {
            match item {
                ast::ClassSetItem::Perl(class) if class.kind != ast::ClassPerlKind::Space => {
                    self.unicode_classes += 1
                }
                ast::ClassSetItem::Unicode(_) => self.unicode_classes += 1,
                _ => {}
            }
            Ok(())
        }
    }
    let scan = ast::visit(&parsed, Scan::default()).unwrap_or_default();
    if scan.unicode_classes > MAX_UNICODE_CLASSES {
        return Err(Error::Pattern(format!(
            "the regex /{}/ has {} Unicode classes (\\w, \\d, \\p{{..}} and their negations); at \
             most {MAX_UNICODE_CLASSES} are allowed. Use a counted repetition such as \\w{{20}}, \
             ASCII classes such as [a-z0-9_], or fewer alternatives.",
            abbreviate(pattern),
            scan.unicode_classes
        )));
    }
    let spans = scan.newlines;
    if spans.is_empty() {
        return Ok((pattern.to_string(), false));
    }
    let mut out = String::with_capacity(pattern.len() + spans.len() * 8);
    let mut last = 0;
    for span in &spans {
        out.push_str(&pattern[last..span.start.offset]);
        out.push_str(NEWLINE);
        last = span.end.offset;
    }
    out.push_str(&pattern[last..]);
    Ok((out, true))
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
    /// What the file adds to the search's limits and total: its matches found (may exceed
    /// `hits.len()` when hits were capped), or 1 when files are the unit (see `OutputMode`).
    pub count: u64,
    /// Matches found in the file: all of them in `OutputMode::Count`.
    pub matches: u64,
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
    cancel: CancelToken,
}

impl StopSignal {
    pub fn new(deadline: Option<Instant>) -> StopSignal {
        StopSignal {
            flag: AtomicBool::new(false),
            timed_out: AtomicBool::new(false),
            deadline,
            cancel: CancelToken::default(),
        }
    }
    /// The signal also stops when `cancel` is cancelled (from another thread).
    pub fn with_cancel(mut self, cancel: CancelToken) -> StopSignal {
        self.cancel = cancel;
        self
    }
    pub fn stop(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }
    pub fn should_stop(&self) -> bool {
        if self.flag.load(Ordering::Relaxed) {
            return true;
        }
        if self.cancel.is_cancelled() {
            self.stop();
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

/// Longest grep timeout accepted, in seconds (one day, as the Python layer allows): the
/// deadline, now plus the timeout, must be a time the clock can represent (`1e300` panicked
/// converting it, `1e19` adding it).
pub const MAX_TIMEOUT_SECS: f64 = 86_400.0;

/// A timeout in seconds as a `Duration`: positive, finite and at most `MAX_TIMEOUT_SECS`.
pub fn timeout_duration(seconds: f64) -> Result<std::time::Duration> {
    if !(seconds > 0.0 && seconds.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "timeout must be a positive number of seconds, not {seconds}"
        )));
    }
    std::time::Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|_| seconds <= MAX_TIMEOUT_SECS)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "timeout must be at most {MAX_TIMEOUT_SECS} seconds (one day), not {seconds:e}; \
                 pass None (no timeout) to search without a time limit"
            ))
        })
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
            whole_file_limit: WHOLE_FILE_LIMIT,
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
        let mode = self.pattern.mode;
        let limits = mode.limits(limits);
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
        let whole = size <= self.whole_file_limit || self.pattern.multiline;
        let mut searched: std::io::Result<()>;
        // A streamed file whose end was not checked for a NUL byte (interrupted).
        let mut unchecked = false;
        if whole {
            if read_known_size(&file, size, &mut self.buffer).is_err() {
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
            if !sink.binary && mode == OutputMode::Content {
                mark_unique(sink.hits, sink.bytes, text);
            }
        } else {
            searched = self
                .searcher
                .search_reader(&self.pattern.matcher, &file, &mut sink);
            // The searcher checked every byte it read; it stopped reading where the sink
            // stopped it (enough hits, files mode) or at the end. The rest is checked too.
            if searched.is_ok() && !sink.binary {
                match nul_in_rest(&file, &mut self.buffer, stop) {
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
        self.finish(taken, searched, rel, size, mtime_ns, encoding)
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
        file: &File,
        rel: impl FnOnce() -> PathBuf,
        limits: FileLimits,
        stop: &StopSignal,
        expected: Expected,
        ranges: &[LineRange],
        occurrences: &mut dyn FnMut(&[u8]) -> Option<Vec<LineRange>>,
    ) -> Option<FileOutcome> {
        use std::os::unix::fs::{FileExt, MetadataExt};
        if self.pattern.multiline || self.pattern.before > 0 || self.pattern.after > 0 {
            return None;
        }
        let meta = file.metadata().ok()?;
        let mtime_ns = meta.mtime() * 1_000_000_000 + meta.mtime_nsec();
        if !meta.is_file()
            || meta.len() != expected.size
            || mtime_ns != expected.mtime_ns
            || meta.ino() != expected.ino
        {
            return None;
        }
        let size = meta.len();
        let mode = self.pattern.mode;
        let limits = mode.limits(limits);
        let mut sink = HitSink::new(
            &self.pattern,
            limits,
            stop,
            &mut self.hits,
            &mut self.hit_bytes,
        );
        let mut searched: std::io::Result<()> = Ok(());
        for range in ranges {
            self.buffer.clear();
            self.buffer.resize(range.len as usize, 0);
            if let Err(err) = file.read_exact_at(&mut self.buffer, range.offset) {
                searched = Err(err);
                break;
            }
            // The index read the whole file and found no NUL byte; one here means the file is
            // not as it saw it (changed within its timestamps): the whole file decides.
            if memchr::memchr(0, &self.buffer).is_some() {
                return None;
            }
            sink.base = range.offset;
            sink.line_base = range.first_line - 1;
            searched = self
                .searcher
                .search_slice(&self.pattern.matcher, &self.buffer, &mut sink);
            if searched.is_err() || sink.binary || sink.interrupted || sink.done() {
                break;
            }
        }
        // Files and counts show no text to edit by id: no uniqueness to prove.
        if searched.is_ok() && !sink.binary && mode == OutputMode::Content {
            let buffer = &mut self.buffer;
            // The whole file, read once when a text's other places cannot be narrowed (or the
            // file is small enough that reading it beats asking the index).
            let mut whole: Option<Option<Vec<u8>>> = None;
            let mut first_two = |needle: &[u8]| -> (Option<usize>, Option<usize>) {
                let parts = if needle.len() < 3 || needle.contains(&b'\n') || size <= WHOLE_READ {
                    None
                } else {
                    occurrences(needle)
                };
                let Some(parts) = parts else {
                    let text = whole.get_or_insert_with(|| {
                        let mut text = vec![0; size as usize];
                        file.read_exact_at(&mut text, 0).ok().map(|_| text)
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
                    if file.read_exact_at(buffer, part.offset).is_err() {
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
            binary,
            interrupted,
        } = taken;
        for buffer in [&mut self.buffer, &mut self.decoded] {
            if buffer.capacity() > KEEP_BUFFER {
                buffer.clear();
                buffer.shrink_to(KEEP_BUFFER);
            }
        }
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
        let mode = self.pattern.mode;
        let hits = hits.map(|(hits, bytes)| FileHits {
            path: rel(),
            count: if mode == OutputMode::Content {
                count
            } else {
                1
            },
            matches: count,
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

/// What a file's search found, taken out of its sink.
struct Taken {
    hits: Option<(Vec<Hit>, Vec<u8>)>,
    count: u64,
    binary: bool,
    interrupted: bool,
}

impl From<HitSink<'_>> for Taken {
    fn from(sink: HitSink<'_>) -> Taken {
        // Small results are copied out at their exact size (the buffer is reused); a buffer
        // past the size kept between files is handed over whole instead of copied.
        let hits = (sink.count > 0).then(|| {
            let bytes = if sink.bytes.capacity() > KEEP_BUFFER {
                std::mem::take(sink.bytes)
            } else {
                sink.bytes.to_vec()
            };
            (sink.hits.drain(..).collect(), bytes)
        });
        Taken {
            hits,
            count: sink.count,
            binary: sink.binary,
            interrupted: sink.interrupted,
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
    mark_unique_by(hits, bytes, text.len(), &mut |needle| {
        let mut found = memchr::memmem::find_iter(text, needle);
        (found.next(), found.next())
    });
}

/// Where the first two (non-overlapping) occurrences of a string start in a text.
type FirstTwo<'a> = dyn FnMut(&[u8]) -> (Option<usize>, Option<usize>) + 'a;

/// `mark_unique` over a text of `text_len` bytes that `first_two(needle)` searches: where the
/// first two (non-overlapping) occurrences of `needle` start.
fn mark_unique_by(hits: &mut [Hit], bytes: &[u8], text_len: usize, first_two: &mut FirstTwo<'_>) {
    /// The checks together scan the text once plus at most this many bytes. A hit whose bytes
    /// occur once among the hits needs a scan of the whole text to prove them unique, and a
    /// file with thousands of distinct hits (minified code) would otherwise cost its size per
    /// hit. Hits past the budget count as not unique (a linked edit of such a hit that no
    /// longer matches at its span fails as stale instead of being relocated).
    const UNIQUE_SCAN_BUDGET: usize = 4 * 1024 * 1024;
    let content = |hit: &Hit| &bytes[hit.content.start..hit.content.start + hit.content.len];
    let mut budget = text_len.saturating_add(UNIQUE_SCAN_BUDGET);
    // Whether `needle` occurs once in the text; `None` when the budget is spent.
    let mut once_in_text = |needle: &[u8]| {
        if needle.is_empty() || budget == 0 {
            return None;
        }
        // What a scan of the text for the first two would read.
        let (once, scanned) = match first_two(needle) {
            (Some(_), None) => (true, text_len),
            (Some(_), Some(second)) => (false, second + needle.len()),
            (None, _) => (false, text_len),
        };
        budget = budget.saturating_sub(scanned);
        Some(once)
    };
    match hits {
        [] => {}
        [only] => only.unique = once_in_text(content(only)) == Some(true),
        // The usual case of a literal pattern: every hit has the same bytes, so none is unique
        // (no sorting).
        [first, rest @ ..] if rest.iter().all(|hit| content(hit) == content(first)) => {}
        _ => {
            // Hits whose bytes no other hit has, found by sorting (cheaper than hashing each).
            let mut order: Vec<usize> = (0..hits.len()).collect();
            order.sort_unstable_by(|&a, &b| content(&hits[a]).cmp(content(&hits[b])));
            let mut alone = vec![false; hits.len()];
            for run in order.chunk_by(|&a, &b| content(&hits[a]) == content(&hits[b])) {
                if let [only] = run {
                    alone[*only] = true;
                }
            }
            // In file order, so that the budget goes to the first hits.
            for (hit, alone) in hits.iter_mut().zip(alone) {
                hit.unique = alone && once_in_text(content(hit)) == Some(true);
            }
        }
    }
}

/// What the hits on one line share, stored once for the line: a line with thousands of hits
/// (minified code) must not cost its length per hit.
struct HitLine {
    /// Offset of the line's first byte in the file.
    offset: u64,
    /// The line without its terminator, in the sink's bytes.
    text: Span,
    /// The lines before it, when context was asked for.
    before: Option<Vec<Span>>,
}

/// Turns searcher callbacks into hits, keeping the context lines around each one.
struct HitSink<'a> {
    pattern: &'a CompiledPattern,
    limits: FileLimits,
    stop: &'a StopSignal,
    /// Offset of the searched text in the file (3 after a UTF-8 BOM).
    base: u64,
    /// Lines in the file before the searched text.
    line_base: u64,
    hits: &'a mut Vec<Hit>,
    /// What the hits' spans point into.
    bytes: &'a mut Vec<u8>,
    /// The line of the last hit: the hits on one line share its text and context.
    last_line: Option<HitLine>,
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
            line_base: 0,
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

    /// No more matches are wanted from this file.
    fn done(&self) -> bool {
        self.finishing && !self.limits.count_all && self.pending.is_empty()
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

    /// The lines before line `line`, stored (once per line: its hits share them).
    fn context_before(&mut self, line: u64) -> Option<Vec<Span>> {
        if !self.wants_context() {
            return None;
        }
        let first = line.saturating_sub(self.pattern.before as u64);
        Some(
            self.recent
                .iter()
                .filter(|(n, _)| *n >= first && *n < line)
                .map(|(_, text)| store(self.bytes, text))
                .collect(),
        )
    }

    /// The shared part of the hits on line `number` (its text without terminator, at `offset`
    /// in the file): stored and its context gathered once per line.
    fn hit_line(&mut self, text: &[u8], offset: u64, number: u64) -> &HitLine {
        if self.last_line.as_ref().is_none_or(|l| l.offset != offset) {
            let text = store(self.bytes, text);
            let before = self.context_before(number);
            self.last_line = Some(HitLine {
                offset,
                text,
                before,
            });
        }
        self.last_line.as_ref().expect("set above")
    }

    fn handle_block(&mut self, mat: &SinkMatch<'_>) -> bool {
        let buffer = mat.buffer();
        let range = mat.bytes_range_in_buffer();
        let first_line = mat.line_number().unwrap_or(1) + self.line_base;
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
        let wants_context = self.wants_context();
        // The line of the match being placed, tracked incrementally: its number, where it
        // starts and ends (after its `\n`; found at its first hit), and how many characters
        // precede `counted` on it. Every per-hit step goes on from the previous hit on the
        // line, never back to the line's start: a 4 MB line with thousands of hits (minified
        // code) must cost its length once, not once per hit.
        let mut line = first_line;
        let mut line_start = range.start;
        let mut line_end: Option<usize> = None;
        let mut counted = range.start;
        let mut chars = 0u64;
        let spans = std::mem::take(&mut self.spans);
        let mut keep_going = true;
        for &(start, end) in &spans {
            let current_end = match line_end {
                Some(known) if start < known => known,
                _ => {
                    // The first hit, or one on a later line: count the newlines up to it from
                    // the last one known.
                    let mut from = range.start;
                    if let Some(known) = line_end {
                        line += 1;
                        line_start = known;
                        from = known;
                    }
                    for nl in memchr_iter(b'\n', &buffer[from..start]) {
                        line += 1;
                        line_start = from + nl + 1;
                    }
                    counted = line_start;
                    chars = 0;
                    *line_end.insert(find_line_end(buffer, start, buffer.len()))
                }
            };
            self.count += 1;
            if self.finishing || self.hits.len() >= self.limits.max_hits {
                self.finishing = true;
                if !self.limits.count_all && self.pending.is_empty() {
                    keep_going = false;
                    break;
                }
                continue;
            }
            while wants_context && next_line < line {
                let end = find_line_end(buffer, next_pos, range.end);
                self.push_line(next_line, &buffer[next_pos..end]);
                next_line += 1;
                next_pos = end;
            }
            chars += char_count(&buffer[counted..start]);
            counted = start;
            let last_byte = if end > start { end - 1 } else { start };
            let end_line = line + memchr_iter(b'\n', &buffer[start..last_byte]).count() as u64;
            let line_offset = self.base + block_offset + (line_start - range.start) as u64;
            let line_text = without_terminator(&buffer[line_start..current_end]);
            let shared = self.hit_line(line_text, line_offset, line);
            let text = shared.text;
            let context = shared.before.as_ref().map(|before| {
                Box::new(Context {
                    before: before.clone(),
                    after: Vec::new(),
                })
            });
            // A match within its first line is a part of that line's text.
            let content = if end <= line_start + text.len {
                Span {
                    start: text.start + (start - line_start),
                    len: end - start,
                }
            } else {
                store(self.bytes, &buffer[start..end])
            };
            let hit = Hit {
                line,
                column: chars + 1,
                end_line,
                byte_offset: self.base + block_offset + (start - range.start) as u64,
                content,
                text,
                context,
                unique: false,
            };
            self.hits.push(hit);
            if self.pattern.mode == OutputMode::Files {
                // Settled: a search of several parts of the file (`search_ranges`) must not
                // go on to count a match of the next part.
                self.finishing = true;
                keep_going = false;
                break;
            }
            if self.pattern.after > 0 {
                self.pending.push(self.hits.len() - 1);
            }
        }
        self.spans = spans;
        while wants_context && next_pos < range.end {
            let end = find_line_end(buffer, next_pos, range.end);
            self.push_line(next_line, &buffer[next_pos..end]);
            next_line += 1;
            next_pos = end;
        }
        if self.finishing && !self.limits.count_all && self.pending.is_empty() {
            keep_going = false;
        }
        keep_going
    }
}

/// End of the line holding `buffer[start]` (after its `\n`), or `limit`.
fn find_line_end(buffer: &[u8], start: usize, limit: usize) -> usize {
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
/// Counted in runs of 255 bytes into a `u8`, which the compiler turns into byte-wide vector
/// adds: several times faster than counting into a `usize` on multi-megabyte lines.
fn char_count(bytes: &[u8]) -> u64 {
    bytes
        .chunks(255)
        .map(|run| {
            // Continuation bytes are 0x80..=0xBF, that is -128..=-65 as an i8.
            run.iter()
                .fold(0u8, |n, &b| n.wrapping_add(u8::from(b as i8 >= -0x40)))
        })
        .map(u64::from)
        .sum()
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
            self.push_line(number + self.line_base, ctx.bytes());
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

    fn search_mode(text: &[u8], options: PatternOptions, mode: OutputMode) -> FileOutcome {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        std::fs::write(&path, text).unwrap();
        let pattern = CompiledPattern::new(&options).unwrap().with_mode(mode);
        let mut searcher = FileSearcher::new(&pattern);
        searcher.search(
            File::open(&path),
            || "f.txt".into(),
            FileLimits {
                max_hits: 100,
                count_all: false,
            },
            &StopSignal::new(None),
        )
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
    fn output_modes_parse_and_refuse_unknown_names() {
        assert_eq!(OutputMode::parse("files").unwrap(), OutputMode::Files);
        let err = OutputMode::parse("files_with_matches")
            .unwrap_err()
            .to_string();
        assert!(err.contains("\"content\", \"files\" or \"count\""), "{err}");
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
        resolve(&file.hits, &file.bytes)
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
        let meta = std::fs::metadata(&path).unwrap();
        let expected = {
            use std::os::unix::fs::MetadataExt;
            Expected {
                size: meta.len(),
                mtime_ns: meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
                ino: meta.ino(),
            }
        };
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
            let limits = FileLimits {
                max_hits,
                count_all: false,
            };
            let mut searcher = FileSearcher::new(&compiled);
            let whole = searcher.search(File::open(&path), || "big.txt".into(), limits, &stop);
            let mut occurrences = |needle: &[u8]| {
                Some(ranges_of(&|unit| {
                    memchr::memmem::find(unit, needle).is_some()
                }))
            };
            let file = File::open(&path).unwrap();
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
        let file = File::open(&path).unwrap();
        let stale = Expected {
            size: expected.size + 1,
            ..expected
        };
        let limits = FileLimits {
            max_hits: 10,
            count_all: false,
        };
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
            FileLimits {
                max_hits,
                count_all: false,
            },
            &StopSignal::new(None),
        )
    }

    #[test]
    fn files_mode_by_units_counts_one_match_and_a_nul_leaves_the_file_to_a_whole_search() {
        let text = late_nul_text("needle first\n", "needle last\n");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        std::fs::write(&path, &text).unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        let expected = {
            use std::os::unix::fs::MetadataExt;
            Expected {
                size: meta.len(),
                mtime_ns: meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
                ino: meta.ino(),
            }
        };
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
        let limits = FileLimits {
            max_hits: 100,
            count_all: false,
        };
        let stop = StopSignal::new(None);
        let by_units = |mode: OutputMode| {
            let pattern = CompiledPattern::new(&opts("needle"))
                .unwrap()
                .with_mode(mode);
            let file = File::open(&path).unwrap();
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
        let file = File::open(&path).unwrap();
        {
            use std::os::unix::fs::MetadataExt;
            let meta = file.metadata().unwrap();
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
        let pattern = CompiledPattern::new(&opts("needle")).unwrap();
        let outcome = FileSearcher::new(&pattern).search_ranges(
            &file,
            || "f.txt".into(),
            limits,
            &stop,
            expected,
            &ranges,
            &mut |_| None,
        );
        assert!(outcome.is_none(), "a part with a NUL byte: searched whole");
    }

    /// Hits the plain way, for comparison: every match of `pattern` in `text` (which has no
    /// match across lines), with its line, character column, offset and line text.
    fn oracle(text: &str, pattern: &str) -> Vec<(u64, u64, u64, String, String)> {
        let matcher = CompiledPattern::new(&opts(pattern)).unwrap().matcher;
        let line_starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        // Characters before each byte offset that starts one.
        let mut chars_before = vec![0u64; text.len() + 1];
        for (n, (i, c)) in text.char_indices().enumerate() {
            chars_before[i] = n as u64;
            chars_before[i + c.len_utf8()] = n as u64 + 1;
        }
        let mut found = Vec::new();
        let _ = matcher.find_iter(text.as_bytes(), |m| {
            let line = line_starts.partition_point(|&s| s <= m.start());
            let line_start = line_starts[line - 1];
            let line_end = line_starts.get(line).map_or(text.len(), |&next| next - 1);
            found.push((
                line as u64,
                chars_before[m.start()] - chars_before[line_start] + 1,
                m.start() as u64,
                text[m.start()..m.end()].to_string(),
                text[line_start..line_end]
                    .trim_end_matches('\r')
                    .to_string(),
            ));
            true
        });
        found
    }

    /// Every hit of `options` in `text` through the sink alone (as a whole file is searched),
    /// with the bytes the hits' spans point into.
    fn sink_hits(text: &[u8], options: &PatternOptions) -> (Vec<Hit>, Vec<u8>) {
        let pattern = CompiledPattern::new(options).unwrap();
        let limits = FileLimits {
            max_hits: usize::MAX,
            count_all: false,
        };
        let stop = StopSignal::new(None);
        let (mut hits, mut bytes) = (Vec::new(), Vec::new());
        let mut sink = HitSink::new(&pattern, limits, &stop, &mut hits, &mut bytes);
        pattern
            .searcher()
            .search_slice(&pattern.matcher, text, &mut sink)
            .unwrap();
        mark_unique(&mut hits, &bytes, text);
        (hits, bytes)
    }

    fn resolve(hits: &[Hit], bytes: &[u8]) -> Vec<Resolved> {
        let slice = |span: Span| &bytes[span.start..span.start + span.len];
        let text = |span: Span| String::from_utf8_lossy(slice(span)).into_owned();
        let context = |hit: &Hit, after: bool| -> Vec<String> {
            hit.context.as_ref().map_or_else(Vec::new, |c| {
                let spans = if after { &c.after } else { &c.before };
                spans.iter().map(|&span| text(span)).collect()
            })
        };
        hits.iter()
            .map(|hit| Resolved {
                line: hit.line,
                column: hit.column,
                end_line: hit.end_line,
                byte_offset: hit.byte_offset,
                content: slice(hit.content).to_vec(),
                text: text(hit.text),
                before: context(hit, false),
                after: context(hit, true),
                unique: hit.unique,
            })
            .collect()
    }

    fn search_all(text: &str, options: PatternOptions) -> Vec<Resolved> {
        let (hits, bytes) = sink_hits(text.as_bytes(), &options);
        resolve(&hits, &bytes)
    }

    const HITS_PER_LINE: usize = 1_500;

    /// A minified-style text: long lines with thousands of hits among multibyte characters.
    fn long_lines() -> String {
        let mut text = String::new();
        for line in 0..3 {
            for i in 0..HITS_PER_LINE {
                text.push_str(["é€", "ab", "𝄞x", "ü"][(i + line) % 4]);
                text.push_str(&format!("return id{i};"));
                text.push_str(&"é ".repeat(i % 7));
            }
            text.push_str(if line == 1 { "\r\n" } else { "\n" });
            text.push_str("plain line\n");
        }
        text
    }

    #[test]
    fn many_hits_on_long_lines_have_exact_columns_and_offsets() {
        let text = long_lines();
        for pattern in ["return", r"id\d+;", "x?r"] {
            let expected = oracle(&text, pattern);
            assert!(
                expected.len() >= 3 * HITS_PER_LINE,
                "{pattern}: {}",
                expected.len()
            );
            let found = search_all(&text, opts(pattern));
            assert_eq!(found.len(), expected.len(), "{pattern}");
            for (hit, (line, column, offset, content, line_text)) in found.iter().zip(&expected) {
                assert_eq!(
                    (hit.line, hit.end_line, hit.column, hit.byte_offset),
                    (*line, *line, *column, *offset),
                    "{pattern} at {offset}"
                );
                assert_eq!(hit.content, content.as_bytes());
                assert_eq!(&hit.text, line_text);
            }
        }
    }

    #[test]
    fn hits_on_one_long_line_share_its_text_and_context() {
        let text = long_lines();
        let mut o = opts("return");
        o.before = 1;
        o.after = 1;
        let (hits, bytes) = sink_hits(text.as_bytes(), &o);
        // Each line and each context line is stored once, whatever the hits on it.
        assert!(bytes.len() < text.len() + 100, "{}", bytes.len());
        let found = resolve(&hits, &bytes);
        assert_eq!(found.len(), 3 * HITS_PER_LINE);
        let plain = "plain line".to_string();
        let (first, rest) = found.split_at(HITS_PER_LINE);
        assert!(first.iter().all(|h| h.before.is_empty()));
        assert!(rest.iter().all(|h| h.before == [plain.clone()]));
        assert!(found.iter().all(|h| h.after == [plain.clone()]));
    }

    #[test]
    fn columns_go_on_after_a_multiline_match_ends_mid_line() {
        let text = "é a\nbé a é a\nzzz é a\n";
        let mut o = opts(r"a\nb");
        o.multiline = Some(true);
        let h = search_all(text, o);
        assert_eq!(h.len(), 1);
        assert_eq!((h[0].line, h[0].end_line, h[0].column), (1, 2, 3));
        // Two patterns in one: a match spanning lines, then matches later on its last line.
        let mut o = opts(r"a\nb|a");
        o.multiline = Some(true);
        let h = search_all(text, o);
        let got: Vec<_> = h
            .iter()
            .map(|h| (h.line, h.column, h.byte_offset))
            .collect();
        assert_eq!(got, [(1, 3, 3), (2, 4, 9), (2, 8, 14), (3, 7, 23)]);
        assert_eq!(h[1].text, "bé a é a");
    }

    #[test]
    fn uniqueness_is_checked_within_a_budget() {
        // Distinct hits that each occur once, in a text big enough that only the first few
        // can be proven unique within the budget; none counts as unique wrongly.
        let filler = "x".repeat(1 << 20);
        let mut text = String::new();
        for i in 0..12 {
            text.push_str(&format!("tok{i:02}\n{filler}\n"));
        }
        text.push_str("tok00 again\n");
        let h = search_all(&text, opts(r"tok\d\d"));
        assert_eq!(h.len(), 13);
        let unique: Vec<bool> = h.iter().map(|h| h.unique).collect();
        assert_eq!(unique[..2], [false, true], "tok00 twice, tok01 once");
        assert!(!unique[12]);
        assert!(!unique[11], "past the budget");
        assert!(unique.iter().filter(|&&u| u).count() < 11);
    }

    fn pattern_error(options: PatternOptions) -> String {
        match CompiledPattern::new(&options) {
            Err(Error::Pattern(msg)) => {
                assert!(msg.len() < 1_000, "a short message: {msg}");
                msg
            }
            Err(other) => panic!("expected a pattern error, got {other:?}"),
            Ok(_) => panic!(
                "expected a pattern error for {:?}",
                abbreviate(&options.pattern)
            ),
        }
    }

    #[test]
    fn patterns_over_the_size_limit_are_refused_before_parsing() {
        let msg = pattern_error(opts(&"a".repeat(10_000_000)));
        assert!(
            msg.contains("10000000 bytes long, over the limit of 65536"),
            "{msg}"
        );
        let mut literal = opts(&"(".repeat(100_000));
        literal.literal = true;
        assert!(pattern_error(literal).contains("the search string is 100000 bytes"));
        // At the limit, a literal still compiles.
        let mut literal = opts(&"é(".repeat(MAX_PATTERN_BYTES / 3));
        literal.literal = true;
        literal.case_sensitive = false;
        assert!(CompiledPattern::new(&literal).is_ok());
    }

    #[test]
    fn deep_nesting_is_a_pattern_error_not_a_crash() {
        for pattern in [
            "(".repeat(60_000),
            "[".repeat(60_000),
            "(?:a".repeat(10_000),
        ] {
            let msg = pattern_error(opts(&pattern));
            assert!(msg.starts_with("invalid regex /"), "{msg}");
            assert!(msg.contains("Escape special characters"), "{msg}");
        }
        let closed = format!("{}a{}", "(".repeat(20_000), ")".repeat(20_000));
        let msg = pattern_error(opts(&closed));
        assert!(msg.contains("nested parentheses/brackets (250)"), "{msg}");
        // Nesting within the limit is fine.
        let nested = format!("{}a{}", "(".repeat(100), ")".repeat(100));
        assert!(CompiledPattern::new(&opts(&nested)).is_ok());
    }

    #[test]
    fn too_many_unicode_classes_are_refused() {
        let msg = pattern_error(opts(&r"\pL".repeat(MAX_UNICODE_CLASSES + 1)));
        assert!(msg.contains("1001 Unicode classes"), "{msg}");
        let msg = pattern_error(opts(&r"[\w-]".repeat(MAX_UNICODE_CLASSES + 1)));
        assert!(msg.contains("1001 Unicode classes"), "{msg}");
        // \s is small, and is not counted.
        assert!(CompiledPattern::new(&opts(&r"\s".repeat(MAX_UNICODE_CLASSES + 1))).is_ok());
    }

    #[test]
    fn a_regex_too_large_once_compiled_says_what_to_do() {
        let msg = pattern_error(opts(r"(?:\w{200}){200}"));
        assert!(
            msg.contains("too large once compiled (over 64 MiB)"),
            "{msg}"
        );
        assert!(msg.contains("literal=true"), "{msg}");
        // Counted repetitions of a usual size compile.
        assert!(CompiledPattern::new(&opts(r"\w{100}\s*\(\w{0,50}\)")).is_ok());
    }

    #[test]
    fn timeouts_out_of_range_are_invalid_arguments() {
        use std::time::Duration;
        assert_eq!(timeout_duration(2.5).unwrap(), Duration::from_millis(2500));
        let day = timeout_duration(MAX_TIMEOUT_SECS).unwrap();
        assert_eq!(day, Duration::from_secs(86_400));
        for bad in [
            1e300,
            86_400.5,
            1e19,
            f64::MAX,
            0.0,
            -1.0,
            f64::INFINITY,
            f64::NAN,
        ] {
            match timeout_duration(bad) {
                Err(Error::InvalidArgument(msg)) => assert!(msg.contains("timeout"), "{msg}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
        let Err(Error::InvalidArgument(msg)) = timeout_duration(1e300) else {
            panic!()
        };
        assert!(
            msg.contains("at most 86400 seconds (one day), not 1e300"),
            "{msg}"
        );
    }

    #[test]
    fn escaped_newline_in_regex_tolerates_crlf() {
        let (regex, has) = newline_tolerant_regex(r"a\nb[^\n]").unwrap();
        assert!(has);
        assert_eq!(regex, r"a(?:\r?\n)b[^\n]");
    }
}
