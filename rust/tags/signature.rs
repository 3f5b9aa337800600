//! The head of a definition (its signature): the text from the definition's start up to its
//! body, as a reader would quote it to say what is defined.

use std::ops::Range;

/// How a language's definitions open their bodies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// With `{` (C, Rust, Go, Java, JavaScript, ...).
    Brace,
    /// With a `:` at the end of the head's line (Python).
    Colon,
    /// Without a token the head ends with (Ruby's `def name(args)`): the head is the name's line.
    Line,
}

/// The most lines a head spans.
const MAX_LINES: usize = 3;

/// The head of the definition at `range` whose name is at `name`: from the definition's start
/// up to (not including) its body's opening `{` (or the `:` that ends a Python head's line),
/// trimmed. Where the definition has no such body (a macro, a constant, a Ruby method),
/// or its head is longer than `MAX_LINES` lines, the name's line (or the first `MAX_LINES` lines
/// from it).
pub fn head(
    text: &[u8],
    range: &Range<usize>,
    name: &Range<usize>,
    kind: &str,
    body: Body,
) -> Range<usize> {
    let range = range.start.min(text.len())..range.end.min(text.len());
    let name_line = line_start(text, name.start.min(text.len()));
    // A head that starts lines above its name (decorators, attributes, comments) starts at
    // the name's line instead, so that it always shows the name.
    let start = if lines_between(text, range.start, name_line) >= MAX_LINES {
        name_line
    } else {
        range.start
    };
    let is_preprocessor = text.get(start) == Some(&b'#') && kind == "macro";
    let end = if is_preprocessor || body == Body::Line {
        None
    } else {
        body_opening(text, start, range.end, body)
    };
    match end {
        Some(end) if lines_between(text, start, end) < MAX_LINES => trimmed(text, start..end),
        Some(_) => trimmed(text, start..end_of_lines(text, start, MAX_LINES)),
        None => trimmed(text, name_line..end_of_lines(text, name_line, 1)),
    }
}

/// Where the body of a definition starting at `start` opens: its first `{` (or `:` ending a
/// line) outside brackets, strings and character literals; `None` when there is none before
/// `end`.
fn body_opening(text: &[u8], start: usize, end: usize, body: Body) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote = None;
    let mut at = start;
    while at < end {
        let byte = text[at];
        if let Some(open) = quote {
            if byte == b'\\' {
                at += 1;
            } else if byte == open || byte == b'\n' {
                quote = None;
            }
            at += 1;
            continue;
        }
        match byte {
            b'"' | b'`' => quote = Some(byte),
            // A character literal ('{', '\n'); any other quote (a Rust lifetime) is skipped.
            b'\'' if text.get(at + 2) == Some(&b'\'') => at += 2,
            b'\'' if text.get(at + 1) == Some(&b'\\') => quote = Some(byte),
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            b'{' if depth == 0 && body == Body::Brace => return Some(at),
            b':' if depth == 0 && body == Body::Colon && ends_line(text, at + 1) => {
                return Some(at);
            }
            _ => {}
        }
        at += 1;
    }
    None
}

/// Whether only blanks or a `#` comment follow `at` on its line.
fn ends_line(text: &[u8], at: usize) -> bool {
    for &byte in &text[at.min(text.len())..] {
        match byte {
            b' ' | b'\t' | b'\r' => continue,
            b'\n' | b'#' => return true,
            _ => return false,
        }
    }
    true
}

/// The start of the line holding `at`.
fn line_start(text: &[u8], at: usize) -> usize {
    text[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |newline| newline + 1)
}

/// The end (before its newline) of the `lines`-th line counted from the one at `start`.
fn end_of_lines(text: &[u8], start: usize, lines: usize) -> usize {
    let mut end = start;
    for counted in 1..=lines {
        match memchr::memchr(b'\n', &text[end..]) {
            None => return text.len(),
            Some(newline) if counted == lines => return end + newline,
            Some(newline) => end += newline + 1,
        }
    }
    end
}

/// How many line breaks lie between `from` and `to`.
fn lines_between(text: &[u8], from: usize, to: usize) -> usize {
    if to <= from {
        return 0;
    }
    memchr::memchr_iter(b'\n', &text[from..to]).count()
}

/// `range` without the blanks at its ends.
fn trimmed(text: &[u8], range: Range<usize>) -> Range<usize> {
    let mut start = range.start;
    let mut end = range.end.max(start);
    while start < end && text[start].is_ascii_whitespace() {
        start += 1;
    }
    while end > start && text[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    start..end
}
