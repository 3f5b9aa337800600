//! Which hits define what they match: the lines around each hit whose line may define it
//! (`words::may_define`), read from the file as it is now and parsed with tree-sitter's tag
//! queries (`crate::tags`). Tagging a whole tree costs far more than searching it (about
//! 4 MB/s a core on C, 400 core-seconds for the Linux tree): only these windows are parsed.

use crate::cancel::CancelToken;
use crate::fs::root::{Links, Root};
use crate::tags::{Language, definitions};
use std::io::Read;
use std::path::Path;

/// Lines of a window before a hit's line: its line alone, or with the line before when
/// the hit opens its line (a C head whose type is on the line above: `static int\nfoo(`).
const LINES_BEFORE_OPENING_HIT: u64 = 1;
/// Lines of a window after a hit's line: enough for a head spread over lines and the start
/// of its body, which most grammars need to see a definition.
const LINES_AFTER: u64 = 4;
/// Files larger than this are not read again to find definitions (their hits rank as
/// references): a generated table, not a file an agent wants a definition from.
const MAX_FILE_BYTES: u64 = 8 << 20;

/// One hit asked about: its 1-based line, whether it opens the line, and the identifier
/// it matched.
pub struct Asked<'a> {
    pub line: u64,
    pub opens_line: bool,
    pub identifier: &'a [u8],
    /// The hit's line as the search read it: a window whose line differs (the file changed
    /// since) answers nothing.
    pub line_text: &'a [u8],
}

/// For each of `asked` (hits of the file `rel`, ordered by line), the kind of definition it
/// is (`"function"`, `"macro"`, ...) or `None`. A file that cannot be read, is too large, or
/// is of no language tagged answers `None` throughout.
pub fn kinds(
    root: &Root,
    links: Links,
    rel: &Path,
    asked: &[Asked<'_>],
    cancel: &CancelToken,
) -> Vec<Option<&'static str>> {
    let mut found = vec![None; asked.len()];
    let Some(language) = Language::of_path(rel) else {
        return found;
    };
    let Some(text) = read(root, links, rel) else {
        return found;
    };
    let lines = LineStarts::new(&text);
    for (answer, hit) in found.iter_mut().zip(asked) {
        if cancel.is_cancelled() {
            break;
        }
        let line = Line {
            line: hit.line,
            opens_line: hit.opens_line,
            line_text: hit.line_text,
        };
        let Some((window, defs, line_in_window)) =
            window_definitions(language, &text, &lines, &line)
        else {
            continue;
        };
        *answer = defs
            .iter()
            .find(|d| d.line == line_in_window && &window[d.name.clone()] == hit.identifier)
            .map(|d| d.kind);
    }
    found
}

/// A hit's line asked about for every definition it names (`names_on_lines`).
pub struct Line<'a> {
    /// 1-based.
    pub line: u64,
    /// A definition's name may open the line (then the window starts a line earlier).
    pub opens_line: bool,
    /// The line as the search read it: a window whose line differs answers nothing.
    pub line_text: &'a [u8],
}

/// For each of `asked` (lines of the file `rel`, ordered by line), the definitions whose
/// names are on that line: `(name, kind)`, in the order of the line. One parse a line,
/// whatever the number of names on it; a file that cannot be read, is too large, or is of
/// no language tagged answers nothing.
pub fn names_on_lines(
    root: &Root,
    links: Links,
    rel: &Path,
    asked: &[Line<'_>],
    cancel: &CancelToken,
) -> Vec<Vec<(String, &'static str)>> {
    let mut found = vec![Vec::new(); asked.len()];
    let Some(language) = Language::of_path(rel) else {
        return found;
    };
    let Some(text) = read(root, links, rel) else {
        return found;
    };
    let lines = LineStarts::new(&text);
    for (answer, line) in found.iter_mut().zip(asked) {
        if cancel.is_cancelled() {
            break;
        }
        let Some((window, defs, line_in_window)) =
            window_definitions(language, &text, &lines, line)
        else {
            continue;
        };
        *answer = defs
            .iter()
            .filter(|d| d.line == line_in_window)
            .map(|d| {
                (
                    String::from_utf8_lossy(&window[d.name.clone()]).into_owned(),
                    d.kind,
                )
            })
            .collect();
    }
    found
}

/// The window around `line` of `text` parsed: its bytes, its definitions and the line of
/// `line` in it; `None` when the file no longer holds that line or the parse fails.
fn window_definitions(
    language: Language,
    text: &[u8],
    lines: &LineStarts<'_>,
    line: &Line<'_>,
) -> Option<(Vec<u8>, Vec<crate::tags::Definition>, u64)> {
    let before = if line.opens_line {
        LINES_BEFORE_OPENING_HIT
    } else {
        0
    };
    let first = line.line.saturating_sub(before).max(1);
    let (start, own) = (lines.start(first)?, lines.line(line.line)?);
    if own != line.line_text || continues_expression(lines.line(line.line - 1)) {
        return None;
    }
    let end = lines
        .start(line.line + LINES_AFTER + 1)
        .unwrap_or(text.len());
    let (prefix, prefix_lines) = window_prefix(language);
    let mut window = Vec::with_capacity(prefix.len() + end - start);
    window.extend_from_slice(prefix);
    window.extend_from_slice(&text[start..end]);
    let defs = definitions(language, &window).ok()?;
    let line_in_window = line.line - first + 1 + prefix_lines;
    Some((window, defs, line_in_window))
}

/// Lines before a hit searched for the definition enclosing it: most functions are shorter;
/// a hit deeper in a longer one has no enclosing definition reported.
const ENCLOSING_LINES: u64 = 150;

/// The definition enclosing `hit` of the file `rel` (the innermost whose head starts at most
/// `ENCLOSING_LINES` before it; a definition encloses itself): its name's line and its head
/// (`Definition::signature`). `None` where no definition is found, the file is of no
/// language tagged, or its line changed since the search.
pub fn enclosing(
    reading: &super::Reading<'_>,
    rel: &Path,
    hit: &crate::grep::Hit,
) -> Option<(u64, String)> {
    let language = Language::of_path(rel)?;
    let text = read(reading.root, reading.links, rel)?;
    let lines = LineStarts::new(&text);
    let first = hit.line.saturating_sub(ENCLOSING_LINES).max(1);
    let start = lines.start(first)?;
    let end = lines.start(hit.line + 1).unwrap_or(text.len());
    let (prefix, prefix_lines) = window_prefix(language);
    let mut window = Vec::with_capacity(prefix.len() + end - start);
    window.extend_from_slice(prefix);
    window.extend_from_slice(&text[start..end]);
    let hit_line = hit.line - first + 1 + prefix_lines;
    let defs = definitions(language, &window).ok()?;
    // Definitions come ordered by their names: the innermost enclosing one is the last whose
    // head starts on or before the hit's line and whose range reaches it (a definition cut
    // by the window's end reaches it too).
    let hit_start = prefix.len() + lines.start(hit.line)? - start;
    let inner = defs
        .iter()
        .filter(|d| d.line <= hit_line && d.range.start <= hit_start && d.range.end > hit_start)
        .max_by_key(|d| d.range.start)?;
    let head = String::from_utf8_lossy(&window[inner.signature.clone()]).into_owned();
    Some((inner.line - prefix_lines + first - 1, head))
}

/// Whether a line ending like `previous` leaves an expression, an argument list or a macro
/// open, so that the next line continues it: a window opening there parses half a
/// statement (`val, ERR_PTR(ret));`) as whatever it resembles.
fn continues_expression(previous: Option<&[u8]>) -> bool {
    let Some(previous) = previous else {
        return false;
    };
    let end = previous.trim_ascii_end();
    [
        &b","[..],
        b"(",
        b"[",
        b"\\",
        b"&&",
        b"||",
        b"+",
        b"-",
        b"=",
        b"?",
        b"|",
    ]
    .iter()
    .any(|open| end.ends_with(open))
}

/// What a window of `language` is parsed after, and its lines: PHP is text until `<?php`,
/// and C#'s grammar tags a method only inside a type (a bare one is a local function).
fn window_prefix(language: Language) -> (&'static [u8], u64) {
    match language {
        Language::Php => (b"<?php\n", 1),
        Language::CSharp => (b"class C {\n", 1),
        _ => (b"", 0),
    }
}

/// The file's bytes, when it is a regular file of at most `MAX_FILE_BYTES` beneath the root.
fn read(root: &Root, links: Links, rel: &Path) -> Option<Vec<u8>> {
    let file = root.open_file(rel, links).ok()?;
    let size = file.metadata().ok()?.len();
    if size > MAX_FILE_BYTES {
        return None;
    }
    let mut text = Vec::with_capacity(size as usize);
    file.take(MAX_FILE_BYTES).read_to_end(&mut text).ok()?;
    Some(text)
}

/// Where a text's lines start, found as far as asked (hits come in line order).
struct LineStarts<'a> {
    text: &'a [u8],
    starts: std::cell::RefCell<Vec<usize>>,
}

impl<'a> LineStarts<'a> {
    fn new(text: &'a [u8]) -> Self {
        LineStarts {
            text,
            starts: std::cell::RefCell::new(vec![0]),
        }
    }

    /// Where 1-based line `n` starts, if the text has it.
    fn start(&self, n: u64) -> Option<usize> {
        let n = usize::try_from(n).ok()?.checked_sub(1)?;
        let mut starts = self.starts.borrow_mut();
        while starts.len() <= n {
            let last = *starts.last()?;
            let next = memchr::memchr(b'\n', &self.text[last..])? + last + 1;
            if next > self.text.len() || (next == self.text.len() && starts.len() == n) {
                return None;
            }
            starts.push(next);
        }
        Some(starts[n])
    }

    /// Line `n` without its terminator.
    fn line(&self, n: u64) -> Option<&'a [u8]> {
        let start = self.start(n)?;
        let rest = &self.text[start..];
        let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        let line = &rest[..end];
        Some(line.strip_suffix(b"\r").unwrap_or(line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continued_lines() {
        assert!(continues_expression(Some(
            b"\t\tguc_probe_error(x, \"%pe\","
        )));
        assert!(continues_expression(Some(b"#define X(a) \\")));
        assert!(continues_expression(Some(b"\tif (a &&  ")));
        assert!(!continues_expression(Some(b" */")));
        assert!(!continues_expression(Some(b"@Override")));
        assert!(!continues_expression(Some(b"static int")));
        assert!(!continues_expression(None));
    }

    #[test]
    fn line_starts() {
        let text = b"a\nbb\n\nccc";
        let lines = LineStarts::new(text);
        assert_eq!(lines.line(1), Some(&b"a"[..]));
        assert_eq!(lines.line(2), Some(&b"bb"[..]));
        assert_eq!(lines.line(3), Some(&b""[..]));
        assert_eq!(lines.line(4), Some(&b"ccc"[..]));
        assert_eq!(lines.line(5), None);
        assert_eq!(lines.line(0), None);
        let ended = LineStarts::new(b"a\r\nb\n");
        assert_eq!(ended.line(1), Some(&b"a"[..]));
        assert_eq!(ended.line(2), Some(&b"b"[..]));
        assert_eq!(ended.line(3), None);
    }
}
