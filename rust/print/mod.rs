//! What piped `codesift grep` prints, made from a search's `FileHits` as bytes: ripgrep's
//! lines (`path:line:column:text`, context as `path-line-text`, `--` between groups), `-o`'s
//! one line per match, `--vimgrep`'s `path:line:column:text` per match, `-c`/`--count-matches`
//! counts, `-l` names, and codesift's own JSON hits (the objects of `--json`'s `"matches"`,
//! as Python's `json.dumps(..., ensure_ascii=False)` writes them). One `Printer` prints a
//! whole command line (its state crosses files and paths, as the `--` separators do).
//!
//! A file whose hits span lines is not printed here in the line layouts (`needs_lines`): its
//! spanned lines are the file's, which the hits do not carry.

mod json;

use crate::grep::{FileHits, Hit, Span};
use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt;

pub use json::push_json_str;

/// What each file prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Each matching line once (its column the first match's), with context lines.
    Lines,
    /// Each match on its own line (`-o`), with context lines.
    OnlyMatching,
    /// Each match as `path:line:column:line text` (`--vimgrep`; the column in bytes, as
    /// ripgrep's; `only_matching`: the match's text, its first line, instead of the line's).
    Vimgrep { only_matching: bool },
    /// `-c`: the matching lines of each file (`per_match`: its matches, as `-c -o` and
    /// `-c -U` count).
    CountLines { per_match: bool },
    /// `--count-matches`: the matches of each file, as the search counted them.
    CountMatches,
    /// `-l`: each file's name.
    Files,
    /// The hits as codesift's JSON objects (`full`: with `byte_length`, `unique` and
    /// `encoding`, as `--json-full` has them), comma-separated after `{"matches": [`.
    Json { full: bool },
}

#[derive(Clone, Copy, Debug)]
pub struct PrintOptions {
    pub layout: Layout,
    /// The line number before the text. rg's `--column` and `--vimgrep` imply it unless
    /// `-N` is given (then the column follows the path alone): the caller's to settle.
    pub line_number: bool,
    pub column: bool,
    /// Context was asked for: `--` goes between groups of lines that do not touch.
    pub context: bool,
    /// `--null`: a NUL byte after each printed name instead of its `:` (after `-l`'s names
    /// instead of the newline).
    pub null: bool,
}

/// A match's record: the column and the text printed for it.
type RecordOf<'a> = dyn Fn(&Hit) -> (u64, Span) + 'a;

/// The ids a JSON hit is given: `prefix` and a base-36 number from `first`.
pub struct Ids<'a> {
    pub prefix: &'a str,
    pub first: u64,
}

/// One command line's printing state.
pub struct Printer {
    options: PrintOptions,
    /// Anything printed yet (a `--` separates a group from what came before it).
    printed: bool,
    /// A count whose file may still continue: its name and the total so far.
    pending_count: Option<(Option<Vec<u8>>, u64)>,
    /// `--json`: the array of hits is open (`{"matches": [` written).
    json_open: bool,
    /// `--json`: the files with hits (root-relative) and their matches, for the document's
    /// fields after the hits.
    pub json_files: Vec<std::path::PathBuf>,
    pub json_counts: Vec<u64>,
}

impl Printer {
    pub fn new(options: PrintOptions) -> Printer {
        Printer {
            options,
            printed: false,
            pending_count: None,
            json_open: false,
            json_files: Vec::new(),
            json_counts: Vec::new(),
        }
    }

    pub fn options(&self) -> PrintOptions {
        self.options
    }

    /// Whether anything was printed (set from outside when a file went out another way).
    pub fn printed(&self) -> bool {
        self.printed
    }

    pub fn set_printed(&mut self, printed: bool) {
        self.printed = printed;
    }

    /// `--json`: whether the array of hits was opened (some hit printed).
    pub fn json_open(&self) -> bool {
        self.json_open
    }

    /// Whether `file` must be printed from its whole lines instead (a match spanning lines,
    /// in a layout that prints the lines it spans).
    pub fn needs_lines(&self, file: &FileHits) -> bool {
        matches!(self.options.layout, Layout::Lines | Layout::OnlyMatching)
            && file.hits.iter().any(|h| h.end_line != h.line)
    }

    /// Prints one piece of a file's hits (a file's pieces come in order, `continued` set on
    /// all but the first). `name` is the file as printed (None: no name), `ids` the JSON
    /// hits' ids.
    pub fn file(
        &mut self,
        file: &FileHits,
        name: Option<&[u8]>,
        ids: Option<Ids<'_>>,
        out: &mut Vec<u8>,
    ) {
        match self.options.layout {
            Layout::Lines | Layout::OnlyMatching => {
                if self.options.context {
                    self.records(file, name, out);
                } else if self.options.layout == Layout::Lines {
                    self.lines(file, name, out);
                } else {
                    self.matches(file, name, out);
                }
            }
            Layout::Vimgrep { .. } if self.options.context => self.records(file, name, out),
            Layout::Vimgrep { only_matching } => self.vimgrep(file, name, only_matching, out),
            Layout::CountLines { .. } | Layout::CountMatches => self.count(file, name, out),
            Layout::Files => {
                if !file.continued && !file.hits.is_empty() {
                    out.extend_from_slice(name.unwrap_or_default());
                    out.push(if self.options.null { 0 } else { b'\n' });
                    self.printed = true;
                }
            }
            Layout::Json { full } => self.json(file, ids, full, out),
        }
    }

    /// The end of a path's search: a count still pending goes out.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        if let Some((name, total)) = self.pending_count.take() {
            self.push_count(name.as_deref(), total, out);
        }
    }

    /// Starts a new path's search: `--json` prints one document per path.
    pub fn start_path(&mut self) {
        self.json_open = false;
        self.json_files.clear();
        self.json_counts.clear();
    }

    fn count(&mut self, file: &FileHits, name: Option<&[u8]>, out: &mut Vec<u8>) {
        if !file.continued
            && let Some((shown, total)) = self.pending_count.take()
        {
            self.push_count(shown.as_deref(), total, out);
        }
        let found = match self.options.layout {
            Layout::CountMatches => file.matches,
            Layout::CountLines { per_match: true } => file.hits.len() as u64,
            _ => distinct_lines(&file.hits),
        };
        match &mut self.pending_count {
            Some((_, total)) => *total += found,
            None => self.pending_count = Some((name.map(<[u8]>::to_vec), found)),
        }
    }

    fn push_count(&mut self, name: Option<&[u8]>, total: u64, out: &mut Vec<u8>) {
        if let Some(name) = name {
            out.extend_from_slice(name);
            out.push(if self.options.null { 0 } else { b':' });
        }
        push_number(out, total);
        out.push(b'\n');
        self.printed = true;
    }

    /// `name:line:column:` as the options say (`kind` is `:` for a matching line, `-` for
    /// context, whose column is never printed).
    fn push_prefix(
        &self,
        out: &mut Vec<u8>,
        name: Option<&[u8]>,
        line: u64,
        column: u64,
        kind: u8,
    ) {
        let mut parts = false;
        if let Some(name) = name {
            out.extend_from_slice(name);
            parts = true;
            if self.options.null {
                out.push(0);
                // After a NUL the name is ended: the next part follows it directly.
                parts = false;
            }
        }
        if self.options.line_number {
            if parts {
                out.push(kind);
            }
            push_number(out, line);
            parts = true;
        }
        if self.options.column && kind == b':' {
            if parts {
                out.push(kind);
            }
            push_number(out, column);
            parts = true;
        }
        if parts {
            out.push(kind);
        }
    }

    /// Each matching line once, without context: hits come in line and column order, so
    /// the first of a line gives its column.
    fn lines(&mut self, file: &FileHits, name: Option<&[u8]>, out: &mut Vec<u8>) {
        let text = TextOf::new(file);
        let mut last = None;
        for hit in &file.hits {
            if last == Some(hit.line) {
                continue;
            }
            last = Some(hit.line);
            self.push_prefix(out, name, hit.line, hit.column, b':');
            text.push(out, hit.text);
            out.push(b'\n');
        }
        self.printed |= !file.hits.is_empty();
    }

    /// Each match on its own line, without context.
    fn matches(&mut self, file: &FileHits, name: Option<&[u8]>, out: &mut Vec<u8>) {
        let text = TextOf::new(file);
        for hit in &file.hits {
            self.push_prefix(out, name, hit.line, hit.column, b':');
            text.push(out, trim_cr(file, hit.content));
            out.push(b'\n');
        }
        self.printed |= !file.hits.is_empty();
    }

    fn vimgrep(
        &mut self,
        file: &FileHits,
        name: Option<&[u8]>,
        only_matching: bool,
        out: &mut Vec<u8>,
    ) {
        let text = TextOf::new(file);
        for hit in &file.hits {
            self.push_prefix(out, name, hit.line, byte_column(file, hit), b':');
            text.push(out, vimgrep_text(file, hit, only_matching));
            out.push(b'\n');
        }
        self.printed |= !file.hits.is_empty();
    }

    /// Lines with context: the matching lines (or matches) and the context lines the hits
    /// carry that are not matching lines, in line (then column) order, `--` between groups.
    fn records(&mut self, file: &FileHits, name: Option<&[u8]>, out: &mut Vec<u8>) {
        // Every match its own record (else every matching line), with its column and text.
        let per_match: Option<&RecordOf<'_>> = match self.options.layout {
            Layout::OnlyMatching => Some(&|hit: &Hit| (hit.column, trim_cr(file, hit.content))),
            Layout::Vimgrep { only_matching } => Some(&move |hit: &Hit| {
                (
                    byte_column(file, hit),
                    vimgrep_text(file, hit, only_matching),
                )
            }),
            _ => None,
        };
        // line -> (column, text) of each matching line, the first hit's.
        let mut selected: BTreeMap<u64, (u64, Span)> = BTreeMap::new();
        let mut matches: Vec<(u64, u64, Span)> = Vec::new();
        let mut context: BTreeMap<u64, Span> = BTreeMap::new();
        for hit in &file.hits {
            selected.entry(hit.line).or_insert((hit.column, hit.text));
            if let Some(record) = per_match {
                let (column, text) = record(hit);
                matches.push((hit.line, column, text));
            }
            if let Some(lines) = &hit.context {
                let first_before = hit.line - lines.before.len() as u64;
                for (k, &span) in lines.before.iter().enumerate() {
                    context.entry(first_before + k as u64).or_insert(span);
                }
                for (k, &span) in lines.after.iter().enumerate() {
                    context.entry(hit.end_line + 1 + k as u64).or_insert(span);
                }
            }
        }
        if per_match.is_none() {
            matches = selected
                .iter()
                .map(|(&line, &(column, text))| (line, column, text))
                .collect();
        }
        let mut records: Vec<(u64, u64, u8, Span)> = matches
            .into_iter()
            .map(|(line, column, text)| (line, column, b':', text))
            .collect();
        records.extend(
            context
                .into_iter()
                .filter(|(line, _)| !selected.contains_key(line))
                .map(|(line, text)| (line, 0, b'-', text)),
        );
        // Stable: matches at one column keep their order.
        records.sort_by_key(|&(line, column, _, _)| (line, column));
        let text = TextOf::new(file);
        let mut last: Option<u64> = None;
        for (line, column, kind, span) in records {
            if self.printed && last.is_none_or(|last| line > last + 1) {
                out.extend_from_slice(b"--\n");
            }
            self.push_prefix(out, name, line, column, kind);
            text.push(out, span);
            out.push(b'\n');
            self.printed = true;
            last = Some(line);
        }
    }

    fn json(&mut self, file: &FileHits, ids: Option<Ids<'_>>, full: bool, out: &mut Vec<u8>) {
        let valid = TextOf::new(file);
        let mut path = Vec::new();
        push_json_str(&mut path, file.path.as_os_str().as_bytes());
        // Hits on one line share its text: escaped once.
        let mut line: Option<(Span, Vec<u8>)> = None;
        for (i, hit) in file.hits.iter().enumerate() {
            out.extend_from_slice(if self.json_open {
                b", ".as_slice()
            } else {
                b"{\"matches\": [".as_slice()
            });
            self.json_open = true;
            out.extend_from_slice(b"{\"id\": \"");
            if let Some(ids) = &ids {
                out.extend_from_slice(ids.prefix.as_bytes());
                push_base36(out, ids.first + i as u64);
            }
            out.extend_from_slice(b"\", \"file\": ");
            out.extend_from_slice(&path);
            out.extend_from_slice(b", \"line\": ");
            push_number(out, hit.line);
            out.extend_from_slice(b", \"column\": ");
            push_number(out, hit.column);
            out.extend_from_slice(b", \"end_line\": ");
            push_number(out, hit.end_line);
            out.extend_from_slice(b", \"byte_offset\": ");
            push_number(out, hit.byte_offset);
            out.extend_from_slice(b", \"content\": ");
            valid.push_json(out, hit.content);
            out.extend_from_slice(b", \"text\": ");
            match &line {
                Some((span, escaped)) if *span == hit.text => out.extend_from_slice(escaped),
                _ => {
                    let mut escaped = Vec::with_capacity(hit.text.len + 2);
                    valid.push_json(&mut escaped, hit.text);
                    out.extend_from_slice(&escaped);
                    line = Some((hit.text, escaped));
                }
            }
            let (before, after) = match &hit.context {
                Some(lines) => (lines.before.as_slice(), lines.after.as_slice()),
                None => (&[][..], &[][..]),
            };
            out.extend_from_slice(b", \"before\": [");
            json_lines(out, &valid, before);
            out.extend_from_slice(b"], \"after\": [");
            json_lines(out, &valid, after);
            out.push(b']');
            if let Some(ranking) = &hit.ranking {
                push_ranking(out, ranking);
            }
            if full {
                out.extend_from_slice(b", \"byte_length\": ");
                push_number(out, hit.content.len as u64);
                out.extend_from_slice(b", \"unique\": ");
                out.extend_from_slice(if hit.unique { b"true" } else { b"false" });
                out.extend_from_slice(b", \"encoding\": \"");
                out.extend_from_slice(file.encoding.name().as_bytes());
                out.push(b'"');
            }
            out.push(b'}');
        }
        if file.continued
            && let Some(count) = self.json_counts.last_mut()
        {
            *count += file.matches;
        } else {
            self.json_files.push(file.path.clone());
            self.json_counts.push(file.matches);
        }
        self.printed |= !file.hits.is_empty();
    }
}

fn json_lines(out: &mut Vec<u8>, text: &TextOf<'_>, lines: &[Span]) {
    for (k, &span) in lines.iter().enumerate() {
        if k > 0 {
            out.extend_from_slice(b", ");
        }
        text.push_json(out, span);
    }
}

/// The matching lines among hits in line order (a match spanning lines counts its first).
fn distinct_lines(hits: &[Hit]) -> u64 {
    let mut last = None;
    let mut n = 0;
    for hit in hits {
        if last != Some(hit.line) {
            n += 1;
            last = Some(hit.line);
        }
    }
    n
}

/// A match's text without the `\r`s that end it (a CRLF line's match of its end).
fn trim_cr(file: &FileHits, span: Span) -> Span {
    let bytes = file.slice(span);
    let kept = bytes.len() - bytes.iter().rev().take_while(|&&b| b == b'\r').count();
    Span {
        start: span.start,
        len: kept,
    }
}

/// What `--vimgrep` prints of a hit: its line, or its match up to the first line's end.
fn vimgrep_text(file: &FileHits, hit: &Hit, only_matching: bool) -> Span {
    if !only_matching {
        return hit.text;
    }
    let content = file.slice(hit.content);
    let first = content
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(content.len());
    trim_cr(
        file,
        Span {
            start: hit.content.start,
            len: first,
        },
    )
}

/// The 1-based byte column of a hit's start in its line (ripgrep's `--vimgrep` column).
fn byte_column(file: &FileHits, hit: &Hit) -> u64 {
    let (text, content) = (hit.text, hit.content);
    if content.start >= text.start && content.start <= text.start + text.len {
        return (content.start - text.start) as u64 + 1;
    }
    // A match spanning lines has its own copy: its column counts characters (bytes that do
    // not continue a UTF-8 sequence) from the line's start.
    let mut chars = 0u64;
    for (at, &b) in file.slice(text).iter().enumerate() {
        if (b as i8) >= -0x40 {
            if chars + 1 == hit.column {
                return at as u64 + 1;
            }
            chars += 1;
        }
    }
    text.len as u64 + 1
}

/// Text as printed: its bytes when they are UTF-8, else with invalid sequences replaced
/// (U+FFFD), as Python prints the decoded text.
struct TextOf<'a> {
    file: &'a FileHits,
    /// The whole buffer is UTF-8: a span cut at character boundaries is too.
    valid: bool,
}

impl<'a> TextOf<'a> {
    fn new(file: &'a FileHits) -> TextOf<'a> {
        TextOf {
            file,
            valid: std::str::from_utf8(&file.bytes).is_ok(),
        }
    }

    /// Whether the text at `span` is UTF-8, known without reading it when the buffer is.
    fn is_utf8(&self, span: Span) -> bool {
        let boundary = |at: usize| self.file.bytes.get(at).is_none_or(|&b| (b as i8) >= -0x40);
        (self.valid && boundary(span.start) && boundary(span.start + span.len))
            || std::str::from_utf8(self.file.slice(span)).is_ok()
    }

    fn push(&self, out: &mut Vec<u8>, span: Span) {
        let bytes = self.file.slice(span);
        if self.is_utf8(span) {
            out.extend_from_slice(bytes);
        } else {
            out.extend_from_slice(String::from_utf8_lossy(bytes).as_bytes());
        }
    }

    /// The text at `span` as a JSON string (see `json::push_json_text`).
    fn push_json(&self, out: &mut Vec<u8>, span: Span) {
        json::push_json_text(out, self.file.slice(span), self.is_utf8(span));
    }
}

/// Appends `n` in decimal (what `write!` costs most on tens of millions of lines).
pub fn push_number(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Appends `n` in base 36 (lowercase), as result ids number hits.
pub fn push_base36(out: &mut Vec<u8>, mut n: u64) {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut digits = [0u8; 13];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = DIGITS[(n % 36) as usize];
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

#[cfg(test)]
mod tests;

/// A ranked hit's fields as `GrepMatch.to_dict` has them: `role`, `kind` (a definition's),
/// `score` (as Python prints a float: Rust's `Debug` of an `f64` is the same shortest form
/// for the scores ranking gives) and `why` (plain ASCII: nothing to escape).
fn push_ranking(out: &mut Vec<u8>, ranking: &crate::grep::ranking::Ranking) {
    out.extend_from_slice(b", \"role\": \"");
    out.extend_from_slice(ranking.role.name().as_bytes());
    if let Some(kind) = ranking.kind {
        out.extend_from_slice(b"\", \"kind\": \"");
        out.extend_from_slice(kind.as_bytes());
    }
    out.extend_from_slice(b"\", \"score\": ");
    out.extend_from_slice(format!("{:?}", ranking.score).as_bytes());
    out.extend_from_slice(b", \"why\": \"");
    out.extend_from_slice(ranking.why().as_bytes());
    out.push(b'"');
}
