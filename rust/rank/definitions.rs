//! Which hits define what they match: the lines around each hit whose line may define it
//! (`words::may_define`), read from the file as it is now (only the part around each hit's
//! line) and parsed with tree-sitter's tag queries (`crate::tags`). Tagging a whole tree costs
//! far more than searching it (about 4 MB/s a core on C, 400 core-seconds for the Linux tree):
//! only these windows are parsed, each once a process (`parse_window` remembers them).

use crate::cancel::CancelToken;
use crate::fs::root::{Links, Root};
use crate::grep::Windows;
use crate::tags::{Definition, Language, definitions};
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::sync::{Arc, RwLock};

/// Lines of a window before a hit's line: its line alone, or with the line before when
/// the hit opens its line (a C head whose type is on the line above: `static int\nfoo(`).
const LINES_BEFORE_OPENING_HIT: u64 = 1;
/// Lines of a window after a hit's line: enough for a head spread over lines and the start
/// of its body, which most grammars need to see a definition.
pub(crate) const LINES_AFTER: u64 = 4;
/// Files larger than this are not read again to find definitions (their hits rank as
/// references): a generated table, not a file an agent wants a definition from.
const MAX_FILE_BYTES: u64 = 8 << 20;

/// One hit asked about: its 1-based line and where that line starts in the file, whether
/// it opens the line, and the identifier it matched.
pub struct Asked<'a> {
    pub line: u64,
    /// The byte of the file where the hit's line starts.
    pub line_offset: u64,
    pub opens_line: bool,
    pub identifier: &'a [u8],
    /// The hit's line as the search read it: a window whose line differs (the file changed
    /// since) answers nothing.
    pub line_text: &'a [u8],
    /// The kind its window gives it, when the search found the window a plain C head of it
    /// in the bytes it kept (`recognised`): what the window would answer, known already.
    pub head: Option<&'static str>,
}

/// What the search read of a file: the bytes it kept around some hits' lines, and the
/// file's size then.
pub struct Searched<'a> {
    pub windows: &'a Windows,
    pub size: u64,
}

/// For each of `asked` (hits of the file `rel`, ordered by line), the kind of definition it
/// is (`"function"`, `"macro"`, ...) or `None`. A window is cut from the bytes the search
/// kept (`read`) when they hold it, else read from the file. A file that cannot be read, is
/// too large, or is of no language tagged answers `None` throughout.
pub fn kinds(
    root: &Root,
    links: Links,
    rel: &Path,
    read: &Searched<'_>,
    asked: &[Asked<'_>],
    cancel: &CancelToken,
) -> Vec<Option<&'static str>> {
    // Every window recognised by the search: what they would answer, without the file.
    if asked.iter().all(|hit| hit.head.is_some()) && !cancel.is_cancelled() {
        return asked.iter().map(|hit| hit.head).collect();
    }
    let mut found = vec![None; asked.len()];
    let Some(language) = Language::of_path(rel) else {
        return found;
    };
    if read.size > MAX_FILE_BYTES {
        return found;
    }
    let mut file = Around {
        kept: read.windows,
        size: read.size,
        file: None,
        open: || FileRead::open(root, links, rel),
    };
    // Hits on one line (`ERR_PTR(ERR_PTR(x))`, a regex matching twice) share its window:
    // the last window parsed is kept for them (asked comes ordered by line).
    let mut last: Option<(&Asked<'_>, Option<Answer>)> = None;
    for (answer, hit) in found.iter_mut().zip(asked) {
        if cancel.is_cancelled() {
            break;
        }
        if hit.head.is_some() {
            *answer = hit.head;
            continue;
        }
        // A window recognised without a parse answers for its hit's name alone.
        let same = last.as_ref().is_some_and(|(seen, window)| {
            (seen.line_offset, seen.opens_line, seen.line_text)
                == (hit.line_offset, hit.opens_line, hit.line_text)
                && !(matches!(window, Some(Answer::Recognised(_)))
                    && seen.identifier != hit.identifier)
        });
        if !same {
            let window = file.window_definitions(language, hit);
            last = Some((hit, window));
        }
        *answer = match &last {
            Some((_, Some(Answer::Recognised(kind)))) => Some(*kind),
            Some((_, Some(Answer::Parsed(parsed)))) => parsed
                .defs
                .iter()
                .find(|d| {
                    d.line == parsed.line_in_window
                        && &parsed.window[d.name.clone()] == hit.identifier
                })
                .map(|d| d.kind),
            _ => None,
        };
    }
    found
}

/// The bytes around hits' lines: those the search kept, else read from the file (opened
/// on the first window the search did not keep).
struct Around<'a, Open> {
    kept: &'a Windows,
    /// The file's size when the search read it.
    size: u64,
    /// `None` until opened; `Some(None)` when it cannot be.
    file: Option<Option<FileRead>>,
    open: Open,
}

/// Bytes read around a hit's line for its window, by a positioned read of that part of
/// the file: a file is neither read whole nor counted line by line from its start to find
/// a window (hits say where their lines start).
struct FileRead {
    file: std::fs::File,
    size: u64,
    /// The part of the file last read, and where in the file it starts.
    start: u64,
    bytes: Vec<u8>,
}

/// Bytes read before and after a hit's line at first: enough for most windows' lines.
pub(crate) const AROUND_BEFORE: u64 = 256;
pub(crate) const AROUND_AFTER: u64 = 1024;

/// A window found in the bytes read: where it starts and ends, where the hit's line starts
/// and ends, all in `Around::bytes`, and the line before the hit's.
struct WindowBytes {
    window: std::ops::Range<usize>,
    own: std::ops::Range<usize>,
    previous: Option<std::ops::Range<usize>>,
}

impl<Open: FnMut() -> Option<FileRead>> Around<'_, Open> {
    /// The window of `hit` parsed, as `Source::window_definitions` parses it, or recognised
    /// as a plain head of the hit's name without a parse (nor a copy of its bytes).
    fn window_definitions(&mut self, language: Language, hit: &Asked<'_>) -> Option<Answer> {
        let (bytes, found) = self.window_bytes(language, hit)?;
        let line_in_window = match read_window(language, bytes, &found, hit)? {
            WindowRead::Head(kind) => return Some(Answer::Recognised(kind)),
            WindowRead::Parse { line_in_window } => line_in_window,
        };
        let (prefix, _) = window_prefix(language);
        let mut window = Vec::with_capacity(prefix.len() + found.window.len());
        window.extend_from_slice(prefix);
        window.extend_from_slice(&bytes[found.window]);
        let defs = parse_window(language, &window)?;
        Some(Answer::Parsed(Parsed {
            window,
            defs,
            line_in_window,
        }))
    }

    /// The bytes holding the window of `hit`'s line, and where it is in them: those the
    /// search kept when they hold it all (they are the file as the search read it), else
    /// the file's (`FileRead::window_bytes`).
    fn window_bytes(
        &mut self,
        language: Language,
        hit: &Asked<'_>,
    ) -> Option<(&[u8], WindowBytes)> {
        let (offset, opens_line) = (hit.line_offset, hit.opens_line);
        if let Some((start, bytes)) = self.kept.part_holding(offset) {
            match find_window(bytes, start, self.size, language, offset, opens_line) {
                Found::Window(found) => return Some((bytes, found)),
                Found::Changed => return None,
                Found::Wider => {}
            }
        }
        let file = self.file.get_or_insert_with(&mut self.open).as_mut()?;
        let found = file.window_bytes(language, offset, opens_line)?;
        Some((&file.bytes, found))
    }
}

impl FileRead {
    fn open(root: &Root, links: Links, rel: &Path) -> Option<FileRead> {
        let file = root.open_file(rel, links).ok()?;
        let size = file.metadata().ok()?.len();
        if size > MAX_FILE_BYTES {
            return None;
        }
        Some(FileRead {
            file,
            size,
            start: 0,
            bytes: Vec::new(),
        })
    }

    /// Where the window of the line starting at byte `offset` is in the bytes read (read
    /// again, wider, until they hold it all); `None` when the file has no line starting
    /// there (it changed since the search) or cannot be read.
    fn window_bytes(
        &mut self,
        language: Language,
        offset: u64,
        opens_line: bool,
    ) -> Option<WindowBytes> {
        // A line starting at the file's end is no line (the file ends with a line's end).
        if offset >= self.size {
            return None;
        }
        let (mut before, mut after) = (AROUND_BEFORE, AROUND_AFTER);
        loop {
            let held = self.start <= offset && offset < self.start + self.bytes.len() as u64;
            if held {
                let found = find_window(
                    &self.bytes,
                    self.start,
                    self.size,
                    language,
                    offset,
                    opens_line,
                );
                match found {
                    Found::Window(found) => return Some(found),
                    Found::Changed => return None,
                    Found::Wider => {}
                }
            }
            let whole = self.start == 0 && self.bytes.len() as u64 == self.size;
            if whole {
                return None;
            }
            if held {
                before *= 4;
                after *= 4;
            }
            let start = offset.saturating_sub(before);
            let end = offset.saturating_add(after).min(self.size);
            self.bytes.clear();
            self.bytes.resize((end - start) as usize, 0);
            use std::os::unix::fs::FileExt;
            self.file.read_exact_at(&mut self.bytes, start).ok()?;
            self.start = start;
        }
    }
}

/// The window of the line at file offset `offset` in `bytes` (the bytes of a file of `size`
/// bytes from its offset `start`), if they hold all of it: the line before it whole (or the
/// file's start), and the `LINES_AFTER` lines after it (or the file's end).
fn find_window(
    bytes: &[u8],
    start: u64,
    size: u64,
    language: Language,
    offset: u64,
    opens_line: bool,
) -> Found {
    let at = (offset - start) as usize;
    let at_file_start = start == 0;
    let at_file_end = start + bytes.len() as u64 == size;
    // The line must start at `offset`: the file's start or just after a line's end.
    let previous = if at == 0 {
        if !at_file_start {
            return Found::Wider;
        }
        None
    } else {
        if bytes[at - 1] != b'\n' {
            // Not a line's start: the file changed since the search.
            return Found::Changed;
        }
        match memchr::memrchr(b'\n', &bytes[..at - 1]) {
            Some(end) => Some(end + 1..at - 1),
            None if at_file_start => Some(0..at - 1),
            None => return Found::Wider,
        }
    };
    let own_end = match memchr::memchr(b'\n', &bytes[at..]) {
        Some(n) => at + n,
        None if at_file_end => bytes.len(),
        None => return Found::Wider,
    };
    // The window ends after the line that opens the body, at most `LINES_AFTER` lines
    // after the hit's, or at the file's end.
    let mut end = own_end;
    let mut line_start = at;
    for _ in 0..LINES_AFTER {
        if end >= bytes.len() || opens_body(language, &bytes[line_start..end]) {
            break;
        }
        line_start = end + 1;
        match memchr::memchr(b'\n', &bytes[end + 1..]) {
            Some(n) => end = end + 1 + n,
            None if at_file_end => end = bytes.len(),
            None => return Found::Wider,
        }
    }
    let end = (end + 1).min(bytes.len());
    let start = match (&previous, opens_line) {
        (Some(line), true) => line.start,
        _ => at,
    };
    Found::Window(WindowBytes {
        window: start..end,
        own: at..own_end,
        previous,
    })
}

/// What a window found says before it is parsed.
enum WindowRead {
    /// A plain C head of the hit's name (`plain_head`): its kind, without a parse.
    Head(&'static str),
    /// To be parsed: the hit's line in the window (its prefix's lines counted).
    Parse { line_in_window: u64 },
}

/// What the window `found` in `bytes` says of `hit` before a parse: `None` when its line is
/// not the hit's (the file changed since the search) or continues an expression.
fn read_window(
    language: Language,
    bytes: &[u8],
    found: &WindowBytes,
    hit: &Asked<'_>,
) -> Option<WindowRead> {
    let own = &bytes[found.own.clone()];
    let own = own.strip_suffix(b"\r").unwrap_or(own);
    let previous = found.previous.clone().map(|range| {
        let line = &bytes[range];
        line.strip_suffix(b"\r").unwrap_or(line)
    });
    if own != hit.line_text || continues_expression(previous) {
        return None;
    }
    let (prefix, prefix_lines) = window_prefix(language);
    let opened_before = u64::from(hit.opens_line && found.previous.is_some());
    let line_in_window = 1 + opened_before + prefix_lines;
    if prefix.is_empty()
        && let Some(kind) = plain_head(
            language,
            &bytes[found.window.clone()],
            line_in_window,
            hit.identifier,
        )
    {
        return Some(WindowRead::Head(kind));
    }
    Some(WindowRead::Parse { line_in_window })
}

/// The kind of definition the window of `hit` (of a C file of `size` bytes) gives its name
/// when the bytes the search `kept` hold the window and it is a plain head of that name:
/// what `kinds` answers for it, worked out from the kept bytes alone (a window they do not
/// hold, or one to parse, is left to `kinds`).
pub fn recognised(kept: &Windows, size: u64, hit: &Asked<'_>) -> Option<&'static str> {
    if size > MAX_FILE_BYTES {
        return None;
    }
    let (start, bytes) = kept.part_holding(hit.line_offset)?;
    let offset = hit.line_offset;
    let Found::Window(found) = find_window(bytes, start, size, Language::C, offset, hit.opens_line)
    else {
        return None;
    };
    match read_window(Language::C, bytes, &found, hit)? {
        WindowRead::Head(kind) => Some(kind),
        WindowRead::Parse { .. } => None,
    }
}

/// What the bytes read say of a window.
enum Found {
    Window(WindowBytes),
    /// They hold only part of it: read more.
    Wider,
    /// No line starts where the hit's did.
    Changed,
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
    let Some(source) = Source::read(root, links, rel) else {
        return found;
    };
    for (answer, line) in found.iter_mut().zip(asked) {
        if cancel.is_cancelled() {
            break;
        }
        let Some(parsed) = source.window_definitions(line) else {
            continue;
        };
        *answer = parsed
            .defs
            .iter()
            .filter(|d| d.line == parsed.line_in_window)
            .map(|d| {
                (
                    String::from_utf8_lossy(&parsed.window[d.name.clone()]).into_owned(),
                    d.kind,
                )
            })
            .collect();
    }
    found
}

/// A window parsed: its bytes (with the language's prefix), its definitions, and the line
/// of the hit's line in it.
struct Parsed {
    window: Vec<u8>,
    defs: Arc<[Definition]>,
    line_in_window: u64,
}

/// What a hit's window says of its name: a plain head of it recognised without a parse (of
/// this kind: the parse's), or the window parsed.
enum Answer {
    Recognised(&'static str),
    Parsed(Parsed),
}

/// A file of a tagged language read once for every question asked about it (the windows
/// of its hits, the definitions enclosing them): its language, its bytes and where its
/// lines start.
pub struct Source {
    language: Language,
    lines: LineStarts,
}

impl Source {
    /// The file `rel` when it is of a language tagged and can be read (`read`).
    pub fn read(root: &Root, links: Links, rel: &Path) -> Option<Source> {
        let language = Language::of_path(rel)?;
        let text = read(root, links, rel)?;
        Some(Source {
            language,
            lines: LineStarts::new(text),
        })
    }

    fn text(&self) -> &[u8] {
        &self.lines.text
    }

    /// How many bytes the file holds, for a cache to weigh.
    pub fn size(&self) -> usize {
        self.text().len()
    }

    /// The window around `line` parsed; `None` when the file no longer holds that line,
    /// the line continues the one before, or the parse fails.
    fn window_definitions(&self, line: &Line<'_>) -> Option<Parsed> {
        let lines = &self.lines;
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
        let mut last = line.line;
        while last < line.line + LINES_AFTER
            && !lines
                .line(last)
                .is_some_and(|text| opens_body(self.language, text))
        {
            last += 1;
        }
        let end = lines.start(last + 1).unwrap_or(self.text().len());
        let window = self.window(start..end);
        let defs = parse_window(self.language, &window)?;
        let line_in_window = line.line - first + 1 + window_prefix(self.language).1;
        Some(Parsed {
            window,
            defs,
            line_in_window,
        })
    }

    /// The bytes `range` of the file after the language's window prefix.
    fn window(&self, range: std::ops::Range<usize>) -> Vec<u8> {
        let (prefix, _) = window_prefix(self.language);
        let mut window = Vec::with_capacity(prefix.len() + range.len());
        window.extend_from_slice(prefix);
        window.extend_from_slice(&self.text()[range]);
        window
    }
}

/// Bytes of windows whose definitions are kept (`parse_window`), at most: past this the
/// memo starts over.
const MEMO_BYTES: usize = 32 << 20;

/// A window's definitions, shared by the memo and its askers (`None`: the parse failed).
type WindowDefinitions = Option<Arc<[Definition]>>;

/// Windows parsed before, by language and bytes, with their definitions (a fast hash:
/// a warm ranked search looks up thousands of windows, and no key comes from an adversary
/// who gains by colliding them: a collision costs a comparison, not a wrong answer).
#[derive(Default)]
struct Memo {
    windows: HashMap<Language, HashMap<Box<[u8]>, WindowDefinitions, foldhash::fast::RandomState>>,
    bytes: usize,
}

/// Read-locked for lookups, which the threads of a ranked search make side by side.
static MEMO: RwLock<Option<Memo>> = RwLock::new(None);

/// The definitions of `window` (`tags::definitions`), remembered by its bytes: they depend
/// on the bytes alone, so a window met again (a search repeated or refined, another pattern
/// hitting the same line) is not parsed again, and a file that changed has other bytes.
/// `None` when the parse fails.
fn parse_window(language: Language, window: &[u8]) -> WindowDefinitions {
    // A thread that panicked holding the lock left a map still whole: it is used as is.
    if let Some(known) = MEMO
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .as_ref()
        .and_then(|memo| memo.windows.get(&language)?.get(window))
    {
        return known.clone();
    }
    let parsed: WindowDefinitions = definitions(language, window).ok().map(Arc::from);
    let mut memo = MEMO
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let memo = memo.get_or_insert_with(Memo::default);
    if memo.bytes + window.len() > MEMO_BYTES {
        *memo = Memo::default();
    }
    memo.bytes += window.len();
    memo.windows
        .entry(language)
        .or_default()
        .insert(window.into(), parsed.clone());
    parsed
}

/// The kind of definition a C `window` that is a plain function head (or prototype) named
/// `identifier` on its line `line` gives that name (`heads::plain_function_head`), as the
/// parse would, without parsing (the window's other names are the parse's).
fn plain_head(
    language: Language,
    window: &[u8],
    line: u64,
    identifier: &[u8],
) -> Option<&'static str> {
    if language != Language::C {
        return None;
    }
    super::heads::plain_function_head(window, line, identifier).map(|(_, kind)| kind)
}

/// Lines before a hit searched for the definition enclosing it: most functions are shorter;
/// a hit deeper in a longer one has no enclosing definition reported.
const ENCLOSING_LINES: u64 = 150;

/// The definition enclosing the hit on 1-based line `line` of `source` (the innermost whose
/// head starts at most `ENCLOSING_LINES` before it; a definition encloses itself): its
/// name's line and its head (`Definition::signature`). `None` where no definition is found,
/// or the line is no longer `line_text` (the file changed since the search).
pub fn enclosing(source: &Source, line: u64, line_text: &[u8]) -> Option<(u64, String)> {
    let lines = &source.lines;
    if lines.line(line)? != line_text {
        return None;
    }
    let first = line.saturating_sub(ENCLOSING_LINES).max(1);
    let start = lines.start(first)?;
    let end = lines.start(line + 1).unwrap_or(source.text().len());
    let (prefix, prefix_lines) = window_prefix(source.language);
    let window = source.window(start..end);
    let hit_line = line - first + 1 + prefix_lines;
    let defs = parse_window(source.language, &window)?;
    // Definitions come ordered by their names: the innermost enclosing one is the last whose
    // head starts on or before the hit's line and whose range reaches it (a definition cut
    // by the window's end reaches it too).
    let hit_start = prefix.len() + lines.start(line)? - start;
    let inner = defs
        .iter()
        .filter(|d| d.line <= hit_line && d.range.start <= hit_start && d.range.end > hit_start)
        .max_by_key(|d| d.range.start)?;
    let head = String::from_utf8_lossy(&window[inner.signature.clone()]).into_owned();
    Some((inner.line - prefix_lines + first - 1, head))
}

/// Whether `line` opens the body of what a window's head defines (`{` ending it): the
/// window ends there, since the rest of a body only adds bytes to parse (`window`
/// closes what is left open). A `= {` opens an initializer, which some grammars need whole
/// (its `;` closes a C variable's definition). Python and Ruby windows keep their
/// `LINES_AFTER` lines: a head there needs a body's first line to parse as one.
fn opens_body(language: Language, line: &[u8]) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line).trim_ascii_end();
    match language {
        Language::Python | Language::Ruby => false,
        _ => line
            .strip_suffix(b"{")
            .is_some_and(|head| !head.trim_ascii_end().ends_with(b"=")),
    }
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

/// A text and where its lines start, found as far as asked (hits come in line order).
struct LineStarts {
    text: Vec<u8>,
    starts: std::cell::RefCell<Vec<usize>>,
}

impl LineStarts {
    fn new(text: Vec<u8>) -> Self {
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
    fn line(&self, n: u64) -> Option<&[u8]> {
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

    /// Every word of every line of `text` (the file `name` in a new directory) asked about,
    /// opening its line or not: `kinds` (reading around each line's offset) against the
    /// windows cut by line numbers from the whole file (`Source::window_definitions`).
    fn kinds_agree_with_whole_file_windows(name: &str, text: &[u8]) -> usize {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(name), text).unwrap();
        let root = Root::open(dir.path()).unwrap();
        let cancel = CancelToken::new();
        let rel = Path::new(name);
        let mut asked = Vec::new();
        let mut offset = 0usize;
        for (n, raw) in text.split_inclusive(|&b| b == b'\n').enumerate() {
            let line = raw.strip_suffix(b"\n").unwrap_or(raw);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let mut at = 0;
            while let Some(start) = line[at..].iter().position(|&b| b.is_ascii_alphabetic()) {
                let start = at + start;
                let end = line[start..]
                    .iter()
                    .position(|&b| !crate::rank::words::is_word_byte(b))
                    .map_or(line.len(), |e| start + e);
                asked.push(Asked {
                    line: n as u64 + 1,
                    line_offset: offset as u64,
                    opens_line: start == 0,
                    identifier: &line[start..end],
                    line_text: line,
                    head: None,
                });
                at = end;
            }
            offset += raw.len();
        }
        let size = text.len() as u64;
        let nothing = Windows::default();
        let read = |windows| Searched { windows, size };
        let got = kinds(&root, Links::Refuse, rel, &read(&nothing), &asked, &cancel);
        // The whole file kept by the search, and parts around each line as a search keeps
        // them (some too short for their windows: the file is read for those).
        let mut whole = Windows::default();
        whole.add(0, text);
        let mut around = Windows::default();
        for hit in &asked {
            let at = hit.line_offset as usize;
            let from = at.saturating_sub(40 + at % 200);
            let to = text.len().min(at + 60 + at % 500);
            around.add(from as u64, &text[from..to]);
        }
        let kept = [&whole, &around]
            .map(|windows| kinds(&root, Links::Refuse, rel, &read(windows), &asked, &cancel));
        // The heads a search recognises in what it kept (C files), given with the hits.
        let is_c = Language::of_path(rel) == Some(Language::C);
        let with_heads = [&whole, &around].map(|windows| {
            let asked_with_heads: Vec<Asked<'_>> = asked
                .iter()
                .map(|hit| Asked {
                    line: hit.line,
                    line_offset: hit.line_offset,
                    opens_line: hit.opens_line,
                    identifier: hit.identifier,
                    line_text: hit.line_text,
                    head: is_c.then(|| recognised(windows, size, hit)).flatten(),
                })
                .collect();
            let heads = asked_with_heads.iter().filter(|h| h.head.is_some()).count();
            let got = kinds(
                &root,
                Links::Refuse,
                rel,
                &read(windows),
                &asked_with_heads,
                &cancel,
            );
            (got, heads)
        });
        assert!(!is_c || with_heads[0].1 > 0, "no head recognised in {name}");
        let source = Source::read(&root, Links::Refuse, rel).unwrap();
        let want: Vec<Option<&str>> = asked
            .iter()
            .map(|hit| {
                let line = Line {
                    line: hit.line,
                    opens_line: hit.opens_line,
                    line_text: hit.line_text,
                };
                let parsed = source.window_definitions(&line)?;
                parsed
                    .defs
                    .iter()
                    .find(|d| {
                        d.line == parsed.line_in_window
                            && parsed.window[d.name.clone()] == *hit.identifier
                    })
                    .map(|d| d.kind)
            })
            .collect();
        for (how, got) in [
            ("read", &got),
            ("kept whole", &kept[0]),
            ("kept around", &kept[1]),
            ("kept whole, heads recognised", &with_heads[0].0),
            ("kept around, heads recognised", &with_heads[1].0),
        ] {
            for ((hit, got), want) in asked.iter().zip(got).zip(&want) {
                assert_eq!(
                    got,
                    want,
                    "{how}: line {} {:?}: expected {want:?}, got {got:?}",
                    hit.line,
                    String::from_utf8_lossy(hit.identifier)
                );
            }
        }
        want.iter().filter(|k| k.is_some()).count()
    }

    #[test]
    fn windows_read_around_a_line_match_windows_cut_from_the_whole_file() {
        // Long lines before and after definitions (wider reads than the first), a head on
        // two lines, a continued line, CRLF endings, the last line without its end.
        let long = "x".repeat(3000);
        let mut text = String::new();
        for n in 0..40 {
            text.push_str(&format!(
                "/* {long} */\nstatic int\nfn_{n}(int a)\n{{\n\treturn a;\n}}\n"
            ));
            text.push_str(&format!("#define MACRO_{n}(x) \\\n\t(x + {n})\n"));
            text.push_str(&format!(
                "struct s_{n} {{ int a; }};\nint call_{n} = f(a,\n\tfn_{n}(1));\n"
            ));
        }
        text.push_str("int last(void) { return 0; }");
        let defined = kinds_agree_with_whole_file_windows("a.c", text.as_bytes());
        assert!(
            defined >= 120,
            "expected at least 120 definitions, got {defined}"
        );
        let crlf = text.replace('\n', "\r\n");
        kinds_agree_with_whole_file_windows("b.c", crlf.as_bytes());
        let python = "def top(x):\n    return x\n\nclass K:\n    def m(self):\n        pass\n";
        assert!(kinds_agree_with_whole_file_windows("c.py", python.as_bytes()) >= 3);
    }

    #[test]
    fn a_window_parsed_again_is_remembered_by_its_bytes() {
        let window = b"static int\nremembered_fn(int a)\n{\n\treturn a;\n";
        let first = parse_window(Language::C, window).unwrap();
        let again = parse_window(Language::C, window).unwrap();
        assert!(
            Arc::ptr_eq(&first, &again),
            "the second parse was not remembered"
        );
        assert_eq!(&first[..], &definitions(Language::C, window).unwrap()[..]);
        let other = parse_window(Language::C, b"int other_fn(void)\n{\n").unwrap();
        assert_eq!(
            other.iter().map(|d| d.kind).collect::<Vec<_>>(),
            ["function"]
        );
        // The same bytes in another language are another window.
        let python = parse_window(Language::Python, window).unwrap();
        assert!(!Arc::ptr_eq(&first, &python));
    }

    /// What `kinds` answers for `asked` in the file `a.c` of `root`, `size` bytes as the
    /// search read it, with the bytes it kept around its hits (`windows`).
    fn kinds_in_a_c(
        root: &Root,
        windows: &Windows,
        size: u64,
        asked: &[Asked<'_>],
    ) -> Vec<Option<&'static str>> {
        let read = Searched { windows, size };
        let cancel = CancelToken::new();
        kinds(root, Links::Refuse, Path::new("a.c"), &read, asked, &cancel)
    }

    #[test]
    fn a_window_whose_line_changed_answers_nothing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.c"), "int x;\nint grow(int a)\n{\n}\n").unwrap();
        let root = Root::open(dir.path()).unwrap();
        let ask = |line_offset: u64, line_text: &'static [u8]| Asked {
            line: 2,
            line_offset,
            opens_line: false,
            identifier: b"grow",
            line_text,
            head: None,
        };
        let asked = [
            ask(7, b"int grow(int a)"),
            // The line as the search read it differs.
            ask(7, b"int grow(int b)"),
            // No line starts there any more.
            ask(6, b"int grow(int a)"),
            ask(8, b"nt grow(int a)"),
            // Past the file's end.
            ask(40, b"int grow(int a)"),
        ];
        let nothing = Windows::default();
        let got = kinds_in_a_c(&root, &nothing, 21, &asked);
        assert_eq!(got, [Some("function"), None, None, None, None]);
        // The head enclosing a hit, for a budget: none when the hit's line changed.
        let source = Source::read(&root, Links::Refuse, Path::new("a.c")).unwrap();
        let head = enclosing(&source, 2, b"int grow(int a)");
        assert_eq!(head, Some((2, "int grow(int a)".to_string())));
        assert_eq!(enclosing(&source, 2, b"int grow(int b)"), None);
    }

    #[test]
    fn windows_kept_by_the_search_are_parsed_without_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let text = b"int x;\nstatic int\nkept_fn(int a)\n{\n\treturn a;\n}\n";
        let root = Root::open(dir.path()).unwrap();
        let asked = [Asked {
            line: 3,
            line_offset: 18,
            opens_line: true,
            identifier: b"kept_fn",
            line_text: b"kept_fn(int a)",
            head: None,
        }];
        // The file is gone: only what the search kept answers (from the end of the line
        // before the line before the hit's, which tells where that line starts).
        let mut kept = Windows::default();
        kept.add(6, &text[6..]);
        let got = kinds_in_a_c(&root, &kept, text.len() as u64, &asked);
        assert_eq!(got, [Some("function")]);
        // Kept bytes without the line before (the type of an opening head): the file is
        // read for it, and is gone.
        let mut short = Windows::default();
        short.add(18, &text[18..]);
        let got = kinds_in_a_c(&root, &short, text.len() as u64, &asked);
        assert_eq!(got, [None]);
        std::fs::write(dir.path().join("a.c"), text).unwrap();
        let got = kinds_in_a_c(&root, &short, text.len() as u64, &asked);
        assert_eq!(got, [Some("function")]);
    }

    #[test]
    fn names_sharing_a_recognised_line_are_each_answered() {
        // The window of `foo` is recognised without a parse, for `foo` alone: `bar`, on
        // the same line, is the parse's.
        let dir = tempfile::tempdir().unwrap();
        let text = "int foo(int a); int bar(int b);\nstatic int\nbaz(void)\n{\n}\n";
        std::fs::write(dir.path().join("a.c"), text).unwrap();
        let root = Root::open(dir.path()).unwrap();
        let line = b"int foo(int a); int bar(int b);";
        let ask = |identifier: &'static [u8]| Asked {
            line: 1,
            line_offset: 0,
            opens_line: false,
            identifier,
            line_text: line,
            head: None,
        };
        let asked = [
            ask(b"foo"),
            ask(b"bar"),
            ask(b"int"),
            Asked {
                line: 3,
                line_offset: 43,
                opens_line: true,
                identifier: b"baz",
                line_text: b"baz(void)",
                head: None,
            },
        ];
        let nothing = Windows::default();
        let got = kinds_in_a_c(&root, &nothing, text.len() as u64, &asked);
        let want = [Some("prototype"), Some("prototype"), None, Some("function")];
        assert_eq!(got, want, "expected {want:?}, got {got:?}");
    }

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
    fn a_window_ends_at_the_line_opening_the_body() {
        for (language, line, opens) in [
            (Language::C, "int grow(int a) {", true),
            (Language::C, "{", true),
            (Language::C, "  {\r", true),
            (Language::Rust, "fn grow(&self) -> u8 {  ", true),
            (Language::Go, "func (t *T) Grow() error {", true),
            (Language::JavaScript, "const grow = (a) => {", true),
            (Language::Java, "class Grow extends Base {", true),
            (Language::C, "int grow(int a,", false),
            (Language::C, "static const struct ops grow_ops = {", false),
            (Language::C, "#define GROW(x) do { \\", false),
            (Language::JavaScript, "const grow ={", false),
            (Language::Python, "def grow(a):", false),
            (Language::Ruby, "def grow(a) {", false),
        ] {
            assert_eq!(
                opens_body(language, line.as_bytes()),
                opens,
                "{language:?} {line:?}"
            );
        }
        // The window parsed for `grow` holds its head up to `{`, not the body after it.
        let dir = tempfile::tempdir().unwrap();
        let text = "static int\ngrow(int a,\n\tint b)\n{\n\tint c = a;\n\treturn c;\n}\n";
        std::fs::write(dir.path().join("a.c"), text).unwrap();
        let root = Root::open(dir.path()).unwrap();
        let source = Source::read(&root, Links::Refuse, Path::new("a.c")).unwrap();
        let line = Line {
            line: 2,
            opens_line: true,
            line_text: b"grow(int a,",
        };
        let parsed = source.window_definitions(&line).unwrap();
        let window = String::from_utf8_lossy(&parsed.window);
        assert_eq!(window, "static int\ngrow(int a,\n\tint b)\n{\n");
        let kinds: Vec<_> = parsed.defs.iter().map(|d| d.kind).collect();
        assert_eq!(kinds, ["function"]);
    }

    #[test]
    fn line_starts() {
        let text = b"a\nbb\n\nccc";
        let lines = LineStarts::new(text.to_vec());
        assert_eq!(lines.line(1), Some(&b"a"[..]));
        assert_eq!(lines.line(2), Some(&b"bb"[..]));
        assert_eq!(lines.line(3), Some(&b""[..]));
        assert_eq!(lines.line(4), Some(&b"ccc"[..]));
        assert_eq!(lines.line(5), None);
        assert_eq!(lines.line(0), None);
        let ended = LineStarts::new(b"a\r\nb\n".to_vec());
        assert_eq!(ended.line(1), Some(&b"a"[..]));
        assert_eq!(ended.line(2), Some(&b"b"[..]));
        assert_eq!(ended.line(3), None);
    }
}

/// The plain heads of `heads` checked over a whole tree (run by hand).
#[cfg(test)]
mod tree_tests {
    use super::*;

    /// Every plain head `heads` recognises in a C tree (`CODESIFT_HEADS_TREE`, e.g. the Linux
    /// tree), cut as ranked search cuts its windows, against the parse's definitions.
    #[test]
    #[ignore = "needs a C tree: CODESIFT_HEADS_TREE=/path cargo test --release heads_agree -- --ignored"]
    fn plain_heads_agree_with_the_parse_over_a_tree() {
        let Some(tree) = std::env::var_os("CODESIFT_HEADS_TREE") else {
            return;
        };
        let mut files = Vec::new();
        let mut dirs = vec![std::path::PathBuf::from(tree)];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let kind = entry.file_type().unwrap();
                let path = entry.path();
                if kind.is_dir() {
                    dirs.push(path);
                } else if kind.is_file() && Language::of_path(&path) == Some(Language::C) {
                    files.push(path);
                }
            }
        }
        files.sort();
        let check = |share: usize| {
            let (mut recognised, mut wrong) = (0usize, Vec::new());
            for path in files.iter().skip(share).step_by(2) {
                let text = std::fs::read(path).unwrap();
                let mut offset = 0usize;
                for raw in text.split_inclusive(|&b| b == b'\n') {
                    let line_offset = offset;
                    offset += raw.len();
                    let Some(open) = memchr::memchr(b'(', raw) else {
                        continue;
                    };
                    let head = raw[..open].trim_ascii_end();
                    let start = head
                        .iter()
                        .rposition(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
                        .map_or(0, |n| n + 1);
                    let name = &head[start..];
                    if name.is_empty() {
                        continue;
                    }
                    let opens_line = start == 0;
                    let found = find_window(
                        &text,
                        0,
                        text.len() as u64,
                        Language::C,
                        line_offset as u64,
                        opens_line,
                    );
                    let Found::Window(found) = found else {
                        continue;
                    };
                    let window = &text[found.window.clone()];
                    let line = 1 + u64::from(opens_line && found.previous.is_some());
                    let Some(fast) = plain_head(Language::C, window, line, name) else {
                        continue;
                    };
                    recognised += 1;
                    let parsed = definitions(Language::C, window)
                        .unwrap()
                        .into_iter()
                        .find(|d| d.line == line && &window[d.name.clone()] == name)
                        .map(|d| d.kind);
                    if parsed != Some(fast) {
                        wrong.push(format!(
                            "{}: {:?}: {fast}, parsed {parsed:?}",
                            path.display(),
                            String::from_utf8_lossy(window),
                        ));
                    }
                }
            }
            (recognised, wrong)
        };
        let (a, b) = std::thread::scope(|scope| {
            let a = scope.spawn(|| check(0));
            let b = scope.spawn(|| check(1));
            (a.join().unwrap(), b.join().unwrap())
        });
        let recognised = a.0 + b.0;
        let wrong: Vec<_> = a.1.into_iter().chain(b.1).collect();
        eprintln!(
            "{} files, {recognised} plain heads, {} disagree",
            files.len(),
            wrong.len()
        );
        for w in wrong.iter().take(40) {
            eprintln!("{w}");
        }
        assert!(
            wrong.is_empty(),
            "{} plain heads the parse disagrees with",
            wrong.len()
        );
    }
}
