//! The sink that turns `grep-searcher` callbacks into one hit per match, with exact lines,
//! character columns and offsets, and the context lines around each hit.

use super::hit::{Context, Hit, Span, Windows, store};
use super::pattern::{CompiledPattern, OutputMode};
use super::searcher::KEEP_BUFFER;
use super::stop::{FileLimits, StopSignal};
use grep_matcher::Matcher;
use grep_searcher::{Searcher, Sink, SinkContext, SinkMatch};
use memchr::memchr_iter;
use std::collections::VecDeque;

/// What a file's search found, taken out of its sink.
pub(super) struct Taken {
    pub(super) hits: Option<(Vec<Hit>, Vec<u8>)>,
    /// Matches found in the file (those of the pieces handed out too).
    pub(super) count: u64,
    /// Matches in the pieces handed out before these hits, and how many pieces.
    pub(super) flushed: u64,
    pub(super) pieces: u64,
    pub(super) binary: bool,
    pub(super) interrupted: bool,
    pub(super) windows: Windows,
}

impl From<HitSink<'_>> for Taken {
    fn from(sink: HitSink<'_>) -> Taken {
        // Small results are copied out at their exact size (the buffers are reused); a buffer
        // past the size kept between files is handed over whole instead of copied.
        let hits = (sink.count > sink.flushed).then(|| {
            let bytes = if sink.bytes.capacity() > KEEP_BUFFER {
                std::mem::take(sink.bytes)
            } else {
                sink.bytes.to_vec()
            };
            let hits = if sink.hits.capacity() * std::mem::size_of::<Hit>() > KEEP_BUFFER {
                std::mem::take(sink.hits)
            } else {
                sink.hits.drain(..).collect()
            };
            (hits, bytes)
        });
        Taken {
            hits,
            count: sink.count,
            flushed: sink.flushed,
            pieces: sink.pieces,
            binary: sink.binary,
            interrupted: sink.interrupted,
            windows: sink.windows,
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
pub(super) struct HitSink<'a> {
    pattern: &'a CompiledPattern,
    limits: FileLimits,
    stop: &'a StopSignal,
    /// Offset of the searched text in the file (3 after a UTF-8 BOM).
    pub(super) base: u64,
    /// Lines in the file before the searched text.
    pub(super) line_base: u64,
    pub(super) hits: &'a mut Vec<Hit>,
    /// What the hits' spans point into.
    pub(super) bytes: &'a mut Vec<u8>,
    /// The line of the last hit: the hits on one line share its text and context.
    last_line: Option<HitLine>,
    count: u64,
    pub(super) binary: bool,
    pub(super) interrupted: bool,
    /// Matches found after `max_hits` while finishing the last hits' after-context.
    finishing: bool,
    /// The last `before` lines seen, with their numbers (terminators stripped).
    recent: VecDeque<(u64, Vec<u8>)>,
    /// Hits still collecting after-context lines.
    pending: Vec<usize>,
    spans: Vec<(usize, usize)>,
    /// Takes the hits gathered so far (whole lines) as a piece of the file, when there are
    /// `PIECE_HITS` of them and the next hit starts a line; false stops the search.
    pub(super) piece: Option<&'a mut PieceHook<'a>>,
    /// Matches in the pieces handed out, and how many pieces.
    flushed: u64,
    pieces: u64,
    /// The bytes around the lines of the hits the pattern wants them for
    /// (`CompiledPattern::windows`).
    windows: Windows,
    /// The line whose window was last looked at (its offset in the file).
    window_line: Option<u64>,
}

/// Receives a piece of a file's hits and the bytes they point into (both to be taken).
pub(super) type PieceHook<'a> = dyn FnMut(&mut Vec<Hit>, &mut Vec<u8>) -> bool + 'a;

/// Hits in a piece of a file (see `HitSink::piece`): what a stream holds of one file.
pub const PIECE_HITS: usize = 8192;

impl<'a> HitSink<'a> {
    /// A sink for one file's hits of `pattern`, within `limits` as its output mode caps them
    /// (`OutputMode::limits`).
    pub(super) fn new(
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
            limits: pattern.mode.limits(limits),
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
            piece: None,
            flushed: 0,
            pieces: 0,
            windows: Windows::default(),
            window_line: None,
        }
    }

    /// Keeps the shape of the match `buffer[start..end]` at character `column` of the line
    /// `buffer[line_start..line_end]` (at file offset `line_offset`; `line_end` past its
    /// terminator), and the bytes around that line when the pattern wants them for the
    /// match: the line before it and the lines after it that the capture asks for, within
    /// the buffer and the capture's bounds. The bytes once a line.
    #[allow(clippy::too_many_arguments)]
    fn keep_window(
        &mut self,
        buffer: &[u8],
        line_start: usize,
        line_end: usize,
        line_offset: u64,
        start: usize,
        end: usize,
        column: u64,
        byte_offset: u64,
    ) {
        let Some(capture) = self.pattern.windows else {
            return;
        };
        let line = without_terminator(&buffer[line_start..line_end]);
        let first_line_end = end.min(line_start + line.len());
        let (mut shape, wanted) = (capture.shape)(
            line,
            start - line_start..first_line_end - line_start,
            &buffer[start..end],
            column,
        );
        shape.byte_offset = byte_offset;
        self.windows.shapes.push(shape);
        if self.window_line == Some(line_offset) || !wanted {
            return;
        }
        self.window_line = Some(line_offset);
        let floor = line_start.saturating_sub(capture.bytes_before);
        // The line before, and the newline ending the line before it (which tells where
        // it starts).
        let from = match line_start.checked_sub(1) {
            None => 0,
            Some(own_newline) => {
                memchr::memrchr(b'\n', &buffer[floor..own_newline]).map_or(floor, |n| floor + n)
            }
        };
        let ceiling = buffer
            .len()
            .min(line_start.saturating_add(capture.bytes_after));
        let mut to = line_end.min(ceiling);
        for _ in 0..capture.lines_after {
            if to >= ceiling {
                break;
            }
            to = find_line_end(buffer, to, ceiling);
        }
        let offset = line_offset - (line_start - from) as u64;
        self.windows.add(offset, &buffer[from..to]);
    }

    /// Gathers the bytes kept around hits' lines in `windows` (empty, their room reused).
    pub(super) fn reuse_windows(&mut self, mut windows: Windows) {
        windows.bytes.clear();
        windows.parts.clear();
        windows.shapes.clear();
        self.windows = windows;
    }

    /// No more matches are wanted from this file.
    pub(super) fn done(&self) -> bool {
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
        if self.pattern.lines && (self.pieces > 0 || self.hits.len() >= EXACT_LINES) {
            // Each line's first match only: no match crosses a line end, so the search for the
            // next line's first match starts at that line.
            let mut at = range.start;
            while at < range.end {
                match self.pattern.matcher.find_at(haystack, at) {
                    Ok(Some(m)) if m.start() < range.end => {
                        spans.push((m.start(), m.end()));
                        at = find_line_end(buffer, m.start(), range.end);
                    }
                    _ => break,
                }
            }
        } else {
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
        }
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
            let mut later_on_line = true;
            let current_end = match line_end {
                Some(known) if start < known => known,
                _ => {
                    later_on_line = false;
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
            let kept = self.flushed as usize + self.hits.len();
            if self.finishing || kept >= self.limits.max_hits {
                self.finishing = true;
                if !self.limits.count_all && self.pending.is_empty() {
                    keep_going = false;
                    break;
                }
                continue;
            }
            if later_on_line && self.pattern.lines {
                // Counted; the line's first match stands for it.
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
            // A piece ends before a new line: no line is split between two (context and
            // multiline searches, whose hits share lines, keep the file whole).
            if self.hits.len() >= PIECE_HITS
                && !wants_context
                && !self.pattern.multiline
                && self
                    .last_line
                    .as_ref()
                    .is_some_and(|l| l.offset != line_offset)
                && let Some(piece) = self.piece.as_mut()
            {
                let n = self.hits.len() as u64;
                if !piece(self.hits, self.bytes) {
                    // The piece was not taken: the rest of the file must not go out after it.
                    self.hits.clear();
                    self.windows.shapes.clear();
                    self.count = self.flushed;
                    self.interrupted = true;
                    keep_going = false;
                    break;
                }
                self.hits.clear();
                self.bytes.clear();
                self.windows.shapes.clear();
                self.last_line = None;
                self.flushed += n;
                self.pieces += 1;
            }
            let byte_offset = self.base + block_offset + (start - range.start) as u64;
            self.keep_window(
                buffer,
                line_start,
                current_end,
                line_offset,
                start,
                end,
                chars + 1,
                byte_offset,
            );
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
                byte_offset,
                content,
                text,
                context,
                unique: false,
                ranking: None,
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

/// With `CompiledPattern::lines`, a file's first lines with matches count every match on
/// them; later ones count one each (their other matches are not even looked for). A result
/// below this many matches per file is counted exactly: whether it "found little" (a hint
/// about what was skipped, under 5) is told right.
const EXACT_LINES: usize = 16;

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
    use crate::grep::test_support::*;

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
}
