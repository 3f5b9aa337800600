//! What a search finds: the hits of a file, each pointing into one buffer of bytes per file,
//! and how a file's search ended.

use std::path::PathBuf;

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
#[derive(Clone, Debug, Default)]
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
    /// Why a ranked search put the hit where it is (`None` unranked).
    pub ranking: Option<Box<super::ranking::Ranking>>,
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
    /// These hits continue the file's previous `FileHits` (a stream sends a file with many
    /// hits in pieces, each of whole lines, in order). Each piece's `matches` are its own
    /// (a file's pieces add up); the last piece's `count` is the whole file's, the others' 0.
    pub continued: bool,
    /// Bytes of the file around some hits' lines, as the search read them, when the pattern
    /// asked for them (`CompiledPattern::with_windows`): what a ranked search parses without
    /// reading the file again. Empty otherwise.
    pub windows: Windows,
}

/// Parts of a file as its search read it, each a run of whole or partial lines at a file
/// offset, in file order and not overlapping (`CompiledPattern::with_windows`).
#[derive(Clone, Debug, Default)]
pub struct Windows {
    /// Every part's bytes, one after the other.
    pub bytes: Vec<u8>,
    /// Each part: where it starts in the file, and where its bytes are in `bytes`.
    pub parts: Vec<(u64, Span)>,
    /// Each hit's shape, in the hits' order (`WindowCapture::shape`): what a ranked search
    /// reads of its line, worked out as the hit was found.
    pub shapes: Vec<super::ranking::HitShape>,
}

impl Windows {
    /// The part holding the file's byte `offset`: where it starts in the file and its bytes.
    pub fn part_holding(&self, offset: u64) -> Option<(u64, &[u8])> {
        let after = self.parts.partition_point(|&(start, _)| start <= offset);
        let &(start, span) = self.parts[..after].last()?;
        (offset < start + span.len as u64)
            .then(|| (start, &self.bytes[span.start..span.start + span.len]))
    }

    /// Adds the bytes `bytes`, at file offset `offset`: joined to the last part when they
    /// overlap or touch it (only what reaches past it is added), else a part of their own.
    /// Parts come in file order (a search reads forward).
    pub fn add(&mut self, offset: u64, bytes: &[u8]) {
        let end = offset + bytes.len() as u64;
        if let Some((start, span)) = self.parts.last_mut() {
            let last_end = *start + span.len as u64;
            if offset < *start {
                // Out of file order: left to the file.
                return;
            }
            if offset <= last_end {
                if end > last_end {
                    let new = &bytes[(last_end - offset) as usize..];
                    self.bytes.extend_from_slice(new);
                    span.len += new.len();
                }
                return;
            }
        }
        let span = store(&mut self.bytes, bytes);
        self.parts.push((offset, span));
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_join_parts_that_touch_and_find_the_part_holding_an_offset() {
        let text = b"0123456789abcdefghij";
        let mut windows = Windows::default();
        windows.add(2, &text[2..5]);
        // Overlapping and touching parts are joined; a part inside the last adds nothing.
        windows.add(4, &text[4..8]);
        windows.add(8, &text[8..9]);
        windows.add(3, &text[3..6]);
        // Apart, then out of order (left out).
        windows.add(12, &text[12..15]);
        windows.add(10, &text[10..11]);
        let parts: Vec<_> = windows
            .parts
            .iter()
            .map(|&(at, span)| (at, &windows.bytes[span.start..span.start + span.len]))
            .collect();
        assert_eq!(parts, [(2, &b"2345678"[..]), (12, &b"cde"[..])]);
        for offset in 0..20u64 {
            let want = match offset {
                2..=8 => Some((2, &b"2345678"[..])),
                12..=14 => Some((12, &b"cde"[..])),
                _ => None,
            };
            assert_eq!(windows.part_holding(offset), want, "offset {offset}");
        }
    }
}
