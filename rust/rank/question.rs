//! Questions in words (`Workspace.search`): the files that answer a question best, by keywords
//! alone (no embeddings, no model). The question becomes terms (words and the parts of
//! identifiers, stop words dropped, light inflectional and derivational stemming); one
//! case-insensitive search of their alternation finds the candidate files (a term matches
//! inside identifiers); each file is scored by BM25F over four fields: its directories, its
//! name, the definitions on its hit lines whose names hold a term, and its hit lines; scaled by
//! the share of terms it holds, by how much its name and its directory's name are made of
//! terms, by the share of terms its best line holds, and by its role (tests, vendored and
//! generated files, prose and configuration lower). Deterministic: equal scores in path order.
use super::Reading;
use super::definitions::{self, Line};
use super::paths::{self, FileRole};
use super::words::{is_word_byte, may_define};
use crate::grep::FileHits;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// Words that say nothing about code: English function words, question words, and the words
/// every question about code uses. Kept short: anything else counts, weighed by its rarity.
pub const STOP_WORDS: &[&str] = &[
    "about",
    "all",
    "and",
    "any",
    "are",
    "can",
    "code",
    "could",
    "did",
    "does",
    "done",
    "each",
    "for",
    "from",
    "get",
    "gets",
    "has",
    "have",
    "how",
    "implement",
    "implementation",
    "implemented",
    "into",
    "its",
    "like",
    "not",
    "of",
    "our",
    "should",
    "some",
    "that",
    "the",
    "their",
    "there",
    "these",
    "this",
    "those",
    "use",
    "used",
    "uses",
    "using",
    "was",
    "were",
    "what",
    "when",
    "where",
    "which",
    "who",
    "why",
    "will",
    "with",
    "work",
    "works",
    "would",
    "you",
    "your",
];

/// Terms shorter than this are dropped (`a`, `is`, `to`, `id`: they match everywhere).
const MIN_TERM: usize = 3;
/// A suffix is stripped only when this much of the word is left.
const MIN_STEM: usize = 4;

/// BM25's constants: k1 as usual; b lower than the usual 0.75, since a long source file
/// (a module defining a whole subsystem) is more often the answer than a long document is.
const K1: f64 = 1.2;
const B: f64 = 0.5;
/// Field weights: a term in a definition's name says most, then in the path (the file's
/// name or its directories), then in text.
const DIR_WEIGHT: f64 = 3.0;
const NAME_WEIGHT: f64 = 3.0;
const SYMBOL_WEIGHT: f64 = 5.0;
const BODY_WEIGHT: f64 = 1.0;
/// A definition whose whole name is a term (`TypeAdapter` asked, `class TypeAdapter`)
/// counts this many times one whose name only holds it (`TypeAdapterFactory`).
const EXACT_SYMBOL: f64 = 3.0;
/// A path word that only contains a term (`middlewares` for `middlewar` is a stem's match,
/// `client_middlewares` a containment) counts this much of one that is the term.
const CONTAINED: f64 = 0.5;
/// A file's score is multiplied by `1 + NAME_COVER × (the share of its name's words that are
/// terms + the same share of its directory's name)`: `JsonArray.java` for "JSON array
/// operations" is about what was asked.
const NAME_COVER: f64 = 2.0;
/// And by `1 + PROXIMITY × the share of the terms its best line holds`: terms together on a
/// line are about one thing.
const PROXIMITY: f64 = 1.0;
/// Files whose definitions are looked for (the best by path and text first), at least the
/// answers asked for: parsing is most of a question's cost (30 files cost twice the time of
/// 10 on semble's benchmark, for the same answers), and a file below the answers rarely
/// climbs into them on its symbols alone once the file's name is weighed.
const FILES_PARSED: usize = 10;
/// Hit lines parsed for definitions at most, in all and in one file (those with the most
/// distinct terms first): a parse costs about half a millisecond.
const MAX_WINDOWS: usize = 256;
const MAX_WINDOWS_PER_FILE: usize = 8;
/// Lines shown per file, and their most bytes.
const LINES_SHOWN: usize = 3;
const LINE_BYTES: usize = 240;

/// The terms of `question`: its words (split on anything not a letter, digit or `_`) and the
/// parts of its identifiers (`HTTPServerError`: `httpservererror`, `http`, `server`,
/// `error`; `parse_config2`: `parse_config2`, `parse`, `config`), lowercased; stop words and
/// terms of 1-2 characters dropped; a plural or `-ing`/`-ed` ending and a final `e` stripped
/// (`routes`, `routing` and `routed` all search `rout`), since a term matches inside words.
/// In the order of the question, each once.
pub fn terms(question: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |term: String| {
        if term.len() >= MIN_TERM && !out.contains(&term) {
            out.push(term);
        }
    };
    for word in question
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
    {
        let parts = identifier_parts(word);
        let whole = word.to_lowercase();
        if parts.len() > 1 && !STOP_WORDS.contains(&whole.as_str()) {
            push(whole.clone());
        }
        for part in parts {
            let part = part.to_lowercase();
            if STOP_WORDS.contains(&part.as_str()) {
                continue;
            }
            push(stem(&part));
        }
    }
    out
}

/// The parts of an identifier: split at `_`, between a lower-case letter and a capital,
/// before the last capital of a run followed by a lower-case letter (`HTTPServer`: `HTTP`,
/// `Server`), and between letters and digits.
pub fn identifier_parts(word: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    for piece in word.split('_').filter(|p| !p.is_empty()) {
        let chars: Vec<(usize, char)> = piece.char_indices().collect();
        let mut start = 0;
        for i in 1..chars.len() {
            let (at, c) = chars[i];
            let prev = chars[i - 1].1;
            let next = chars.get(i + 1).map(|&(_, c)| c);
            let boundary = (prev.is_lowercase() && c.is_uppercase())
                || (prev.is_uppercase()
                    && c.is_uppercase()
                    && next.is_some_and(char::is_lowercase))
                || (prev.is_alphabetic() && c.is_numeric())
                || (prev.is_numeric() && c.is_alphabetic());
            if boundary {
                parts.push(&piece[start..at]);
                start = at;
            }
        }
        parts.push(&piece[start..]);
    }
    parts
}

/// `word` without a plural or `-ing`/`-ed` ending, then a final `e`, when at least 4 letters
/// are left (`models`: `model`, `addresses`: `address`, `dependencies`: `dependenc`,
/// `routes` and `routing`: `rout`; `class`, `string` and `name` as they are).
pub fn stem(word: &str) -> String {
    let strip = |suffix: &str| {
        word.strip_suffix(suffix)
            .filter(|rest| rest.len() >= MIN_STEM)
            .map(str::to_string)
    };
    if word.ends_with("ss") || word.ends_with("us") || word.ends_with("is") {
        return word.to_string();
    }
    let stemmed = strip("ies")
        .or_else(|| word.ends_with("sses").then(|| strip("es")).flatten())
        .or_else(|| strip("ing"))
        .or_else(|| strip("ed"))
        .or_else(|| strip("s"))
        .unwrap_or_else(|| word.to_string());
    let stemmed = derived(&stemmed);
    // A final `e` goes too, so `route` meets `routing` (`rout`), `parse` `parsing`.
    match stemmed.strip_suffix('e') {
        Some(rest) if rest.len() >= MIN_STEM => rest.to_string(),
        _ => stemmed,
    }
}

/// `word` without a derivational ending that names the same thing as its root does:
/// `serialization` `serializ`, `execution` `exec`, `reflection` and `reflective` `reflect`,
/// `validator` `valid`, `management` `manage`; each only when enough is
/// left.
fn derived(word: &str) -> String {
    let strip = |suffix: &str, keep: usize| {
        word.strip_suffix(suffix)
            .filter(|rest| rest.len() >= keep)
            .map(str::to_string)
    };
    let out = strip("ation", 4)
        .map(|rest| match rest.strip_suffix("tr") {
            Some(head) => format!("{head}t"),
            None => rest,
        })
        .or_else(|| strip("ution", 4))
        .or_else(|| strip("ion", 5))
        .or_else(|| strip("ive", 5))
        .or_else(|| strip("ator", 4))
        .or_else(|| strip("ment", 5));
    out.unwrap_or_else(|| word.to_string())
}

/// The pattern of the candidates' search: the terms' alternation, regex-escaped, longest
/// first (a longer term is not hidden by a shorter one it contains).
pub fn pattern(terms: &[String]) -> String {
    let mut sorted: Vec<&String> = terms.iter().collect();
    sorted.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    sorted
        .iter()
        .map(|t| regex_syntax::escape(t))
        .collect::<Vec<_>>()
        .join("|")
}

/// A question as a caller asks it (`Workspace::search_question`).
#[derive(Clone, Debug, Default)]
pub struct QuestionRequest {
    pub question: String,
    /// Workspace-relative, a directory or a file.
    pub search_path: PathBuf,
    pub max_results: i64,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    /// ripgrep file type names a file must have.
    pub types: Vec<String>,
}

/// The answer to a question: the best files, best first, and what was searched.
#[derive(Debug)]
pub struct QuestionOutcome {
    pub answers: Vec<Answer>,
    pub files_searched: u64,
    pub terms: Vec<String>,
    /// The index chose the files searched.
    pub indexed: bool,
}

/// One file that answers the question.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// Workspace-relative.
    pub path: PathBuf,
    pub score: f64,
    /// Why it is where it is, in words: `all 3 terms; defines parse_config (function);
    /// path: config`.
    pub why: String,
    /// Its best lines (most distinct terms, definitions first on a tie, then earliest):
    /// `(line, text)`, 1-based, at most `LINES_SHOWN`, each cut at `LINE_BYTES`.
    pub lines: Vec<(u64, String)>,
    /// The names of the definitions on its hit lines that hold a term, in line order.
    pub symbols: Vec<String>,
}

/// What a file holds of each term, by field.
struct Scored<'a> {
    file: &'a FileHits,
    role: FileRole,
    path_tokens: Vec<String>,
    /// Per term: the words of the path's directories and of the file's name holding it (a
    /// whole word 1, a containing one `CONTAINED`), definitions naming it, occurrences on hit
    /// lines.
    path_tf: Vec<f64>,
    name_tf: Vec<f64>,
    /// The share of the file name's words that are terms.
    name_cover: f64,
    symbol_tf: Vec<f64>,
    body_tf: Vec<f64>,
    /// Per hit line: the distinct terms on it (a bit per term) and its index in `file.hits`.
    lines: Vec<(u64, usize)>,
    /// Definitions naming a term: (line, name, kind).
    symbols: Vec<(u64, String, &'static str)>,
    score: f64,
}

/// The `max_results` files of `files` (a search of the terms' alternation, one hit per
/// matching line, path order) that answer best, best first. `files_searched` is the number
/// of files the search read (BM25's N).
pub fn answer(
    files: &[FileHits],
    terms: &[String],
    files_searched: u64,
    reading: &Reading<'_>,
    max_results: usize,
) -> Vec<Answer> {
    if terms.is_empty() || files.is_empty() {
        return Vec::new();
    }
    let terms = &terms[..terms.len().min(64)];
    let mut scored: Vec<Scored<'_>> = files.iter().map(|f| fields(f, terms)).collect();
    let idf = idf(&scored, terms.len(), files_searched);
    let average = Averages::of(&scored);
    for one in &mut scored {
        one.score = score(one, &idf, &average);
    }
    order(&mut scored);
    // The best candidates by path and text are parsed for definitions, then scored again.
    let mut windows = 0usize;
    for one in scored.iter_mut().take(FILES_PARSED.max(max_results)) {
        if reading.cancel.is_cancelled() || windows >= MAX_WINDOWS {
            break;
        }
        find_symbols(one, terms, reading, &mut windows);
        one.score = score(one, &idf, &average);
    }
    order(&mut scored);
    scored
        .iter()
        .take(max_results)
        .map(|one| present(one, terms))
        .collect()
}

/// Best first; equal scores in path order.
fn order(scored: &mut [Scored<'_>]) {
    scored.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.file.path.cmp(&b.file.path))
    });
}

/// A file's path and hit-line fields (its symbols come later, for the best files only).
fn fields<'a>(file: &'a FileHits, terms: &[String]) -> Scored<'a> {
    let path_tokens = path_tokens(&file.path);
    let dirs = path_tokens.len() - name_token_count(&file.path).min(path_tokens.len());
    let (dir_tokens, name_tokens) = path_tokens.split_at(dirs);
    let tf_in =
        |tokens: &[String], t: &str| -> f64 { tokens.iter().map(|p| token_match(p, t)).sum() };
    let path_tf = terms.iter().map(|t| tf_in(dir_tokens, t)).collect();
    let name_tf = terms.iter().map(|t| tf_in(name_tokens, t)).collect();
    let name_cover = name_cover(&file.path, terms);
    let mut body_tf = vec![0.0; terms.len()];
    let mut lines = Vec::new();
    let mut last_line = 0;
    for (index, hit) in file.hits.iter().enumerate() {
        if hit.line == last_line {
            continue;
        }
        last_line = hit.line;
        let text = file.slice(hit.text).to_ascii_lowercase();
        let text = String::from_utf8_lossy(&text);
        let mut on_line = 0u64;
        for (t, term) in terms.iter().enumerate() {
            let n = text.matches(term.as_str()).count();
            if n > 0 {
                body_tf[t] += n as f64;
                on_line |= 1 << t;
            }
        }
        lines.push((on_line, index));
    }
    Scored {
        file,
        role: paths::file_role(&file.path),
        path_tokens,
        path_tf,
        name_tf,
        name_cover,
        symbol_tf: vec![0.0; terms.len()],
        body_tf,
        lines,
        symbols: Vec::new(),
        score: 0.0,
    }
}

/// The words of a path, split like identifiers, lowercased; the file's extension left out.
fn path_tokens(path: &Path) -> Vec<String> {
    let mut tokens = Vec::new();
    let components: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = components.len().saturating_sub(1);
    for (i, component) in components.iter().enumerate() {
        let component = match (i == last, component.rsplit_once('.')) {
            (true, Some((stem, _))) if !stem.is_empty() => stem,
            _ => component.as_str(),
        };
        for word in component
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
        {
            let parts = identifier_parts(word);
            if parts.len() > 1 {
                tokens.push(word.to_lowercase());
            }
            tokens.extend(parts.into_iter().map(str::to_lowercase));
        }
    }
    tokens
}

/// How many of `path_tokens(path)`'s last tokens are the file name's.
fn name_token_count(path: &Path) -> usize {
    let Some(name) = path.file_name() else {
        return 0;
    };
    path_tokens(Path::new(name)).len()
}

/// How well a path's word holds a term: 1 when it is the term (or stems to it), a half when
/// it only contains it.
fn token_match(token: &str, term: &str) -> f64 {
    if token == term || stem(token) == term {
        1.0
    } else if token.contains(term) {
        CONTAINED
    } else {
        0.0
    }
}

/// How much the file's name and its directory's name are made of terms: the share of the
/// words of its stem (its identifier parts of 3 characters or more: `JsonArray.java` `json`,
/// `array`) that a term matches, plus the same share of its directory's name
/// (`persistence/` for "saving and loading models": a module named for what was asked).
fn name_cover(path: &Path, terms: &[String]) -> f64 {
    let stem = path.file_stem().map(|s| s.to_string_lossy());
    let dir = path
        .parent()
        .and_then(Path::file_name)
        .map(|s| s.to_string_lossy());
    [stem, dir]
        .iter()
        .flatten()
        .map(|name| words_cover(name, terms))
        .sum()
}

/// The share of `name`'s words (identifier parts of 3 characters or more) a term matches.
fn words_cover(name: &str, terms: &[String]) -> f64 {
    let parts: Vec<String> = name
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .flat_map(identifier_parts)
        .filter(|p| p.len() >= MIN_TERM)
        .map(str::to_lowercase)
        .collect();
    if parts.is_empty() {
        return 0.0;
    }
    let covered = parts
        .iter()
        .filter(|p| terms.iter().any(|t| token_match(p, t) > 0.0))
        .count();
    covered as f64 / parts.len() as f64
}

/// Each term's inverse document frequency among the files searched (BM25's, never below 0):
/// a file holds a term when any of its fields does.
fn idf(scored: &[Scored<'_>], terms: usize, files_searched: u64) -> Vec<f64> {
    let n = (files_searched as f64).max(scored.len() as f64);
    (0..terms)
        .map(|t| {
            let df = scored
                .iter()
                .filter(|s| s.path_tf[t] > 0.0 || s.name_tf[t] > 0.0 || s.body_tf[t] > 0.0)
                .count() as f64;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect()
}

/// The average lengths of the fields normalized by length: the file's size and its path's
/// number of words. (A file's matching definitions are few: their count is not normalized.)
struct Averages {
    size: f64,
    path: f64,
}

impl Averages {
    fn of(scored: &[Scored<'_>]) -> Averages {
        let n = scored.len().max(1) as f64;
        Averages {
            size: scored
                .iter()
                .map(|s| s.file.size.max(1) as f64)
                .sum::<f64>()
                / n,
            path: scored
                .iter()
                .map(|s| s.path_tokens.len().max(1) as f64)
                .sum::<f64>()
                / n,
        }
    }
}

/// BM25F: per term, the fields' weighted, length-normalized frequencies summed, saturated
/// once (k1), times the term's idf; summed over the terms; times the share of the terms the
/// file holds (a file with every term beats one with many hits of one) and its role's weight.
fn score(one: &Scored<'_>, idf: &[f64], average: &Averages) -> f64 {
    let norm = |length: f64, average: f64| 1.0 - B + B * length / average.max(1.0);
    let body_norm = norm(one.file.size.max(1) as f64, average.size);
    let path_norm = norm(one.path_tokens.len().max(1) as f64, average.path);
    let mut total = 0.0;
    let mut matched = 0usize;
    for (t, idf) in idf.iter().enumerate() {
        let tf = DIR_WEIGHT * one.path_tf[t] / path_norm
            + NAME_WEIGHT * one.name_tf[t]
            + SYMBOL_WEIGHT * one.symbol_tf[t]
            + BODY_WEIGHT * one.body_tf[t] / body_norm;
        if tf > 0.0 {
            matched += 1;
            total += idf * tf / (K1 + tf);
        }
    }
    let terms = idf.len() as f64;
    let coverage = matched as f64 / terms;
    let best_line = one
        .lines
        .iter()
        .map(|(bits, _)| bits.count_ones())
        .max()
        .unwrap_or(0) as f64
        / terms;
    // Prose and configuration weigh as their role says (`FileRole::Prose`).
    total
        * coverage
        * one.role.weight()
        * (1.0 + NAME_COVER * one.name_cover)
        * (1.0 + PROXIMITY * best_line)
}

/// The definitions on `one`'s hit lines whose names hold a term: the lines where a word
/// holding a term may define it (`words::may_define`) are parsed, a window each.
fn find_symbols(
    one: &mut Scored<'_>,
    terms: &[String],
    reading: &Reading<'_>,
    windows: &mut usize,
) {
    if !matches!(
        one.file.encoding,
        crate::grep::TextEncoding::Utf8 | crate::grep::TextEncoding::Utf8Bom
    ) {
        return;
    }
    let file = one.file;
    let mut by_terms: Vec<(u64, usize)> = one.lines.clone();
    by_terms.sort_by(|a, b| b.0.count_ones().cmp(&a.0.count_ones()).then(a.1.cmp(&b.1)));
    let mut asked = Vec::new();
    for &(_, index) in &by_terms {
        if *windows >= MAX_WINDOWS || asked.len() >= MAX_WINDOWS_PER_FILE {
            break;
        }
        let hit = &file.hits[index];
        let line = file.slice(hit.text);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let mut opens_line = false;
        let defining = words_of(line).any(|word| {
            let lower = line[word.clone()].to_ascii_lowercase();
            let holds = terms
                .iter()
                .any(|t| memchr::memmem::find(&lower, t.as_bytes()).is_some());
            let defines = holds && may_define(line, word.clone());
            opens_line |= defines && word.start == 0;
            defines
        });
        if defining {
            *windows += 1;
            asked.push(Line {
                line: hit.line,
                opens_line,
                line_text: line,
            });
        }
    }
    asked.sort_by_key(|line| line.line);
    if asked.is_empty() {
        return;
    }
    let found = definitions::names_on_lines(
        reading.root,
        reading.links,
        &file.path,
        &asked,
        reading.cancel,
    );
    let mut seen = BTreeSet::new();
    for (line, names) in asked.iter().zip(found) {
        for (name, kind) in names {
            let lower = name.to_lowercase();
            let holding: Vec<usize> = (0..terms.len())
                .filter(|&t| lower.contains(terms[t].as_str()))
                .collect();
            if holding.is_empty() || !seen.insert(name.clone()) {
                continue;
            }
            for t in holding {
                one.symbol_tf[t] += if lower == terms[t] { EXACT_SYMBOL } else { 1.0 };
            }
            one.symbols.push((line.line, name, kind));
        }
    }
}

/// The ranges of the words (identifiers) of `line`.
fn words_of(line: &[u8]) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let start = at + line[at..].iter().position(|&b| is_word_byte(b))?;
        let end = line[start..]
            .iter()
            .position(|&b| !is_word_byte(b))
            .map_or(line.len(), |n| start + n);
        at = end;
        Some(start..end)
    })
}

/// A scored file as its answer: its best lines, its symbols and why it is where it is.
fn present(one: &Scored<'_>, terms: &[String]) -> Answer {
    let defining: HashMap<u64, ()> = one.symbols.iter().map(|(l, _, _)| (*l, ())).collect();
    let mut best: Vec<(u32, bool, u64, usize)> = one
        .lines
        .iter()
        .map(|&(bits, index)| {
            let line = one.file.hits[index].line;
            (bits.count_ones(), defining.contains_key(&line), line, index)
        })
        .collect();
    best.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    let lines = best
        .iter()
        .take(LINES_SHOWN)
        .map(|&(_, _, line, index)| {
            let text = one.file.slice(one.file.hits[index].text);
            (line, shown_line(text))
        })
        .collect();
    Answer {
        path: one.file.path.clone(),
        score: one.score,
        why: why(one, terms),
        lines,
        symbols: one
            .symbols
            .iter()
            .map(|(_, name, _)| name.clone())
            .collect(),
    }
}

/// A line as shown: trimmed, cut at `LINE_BYTES` (on a character's boundary) with `…`.
fn shown_line(text: &[u8]) -> String {
    let text = String::from_utf8_lossy(text);
    let text = text.trim();
    if text.len() <= LINE_BYTES {
        return text.to_string();
    }
    let mut end = LINE_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// `all 3 terms; defines parse_config (function); path: config, parse; test file`.
fn why(one: &Scored<'_>, terms: &[String]) -> String {
    let held = |t: usize| {
        one.path_tf[t] > 0.0
            || one.name_tf[t] > 0.0
            || one.body_tf[t] > 0.0
            || one.symbol_tf[t] > 0.0
    };
    let missing: Vec<&str> = (0..terms.len())
        .filter(|&t| !held(t))
        .map(|t| terms[t].as_str())
        .collect();
    let mut parts = vec![if missing.is_empty() {
        match terms.len() {
            1 => "the term".to_string(),
            n => format!("all {n} terms"),
        }
    } else {
        format!(
            "{} of {} terms (not: {})",
            terms.len() - missing.len(),
            terms.len(),
            missing.join(", ")
        )
    }];
    if !one.symbols.is_empty() {
        let shown: Vec<String> = one
            .symbols
            .iter()
            .take(3)
            .map(|(_, name, kind)| format!("{name} ({kind})"))
            .collect();
        let more = one.symbols.len().saturating_sub(3);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        parts.push(format!("defines {}{more}", shown.join(", ")));
    }
    let in_path: Vec<&str> = (0..terms.len())
        .filter(|&t| one.path_tf[t] > 0.0 || one.name_tf[t] > 0.0)
        .map(|t| terms[t].as_str())
        .collect();
    if !in_path.is_empty() {
        parts.push(format!("path: {}", in_path.join(", ")));
    }
    if one.role != FileRole::Source {
        parts.push(one.role.name().to_string());
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_split_identifiers_drop_stop_words_and_stem() {
        assert_eq!(
            terms("How does HTTPServerError get raised?"),
            ["httpservererror", "http", "server", "error", "rais"]
        );
        assert_eq!(
            terms("where is parse_config2 used"),
            ["parse_config2", "pars", "config"]
        );
        assert_eq!(
            terms("skipUnknown fields"),
            ["skipunknown", "skip", "unknown", "field"]
        );
        assert_eq!(terms("what is the id of it"), Vec::<String>::new());
        assert_eq!(terms("routes routing routed"), ["rout"]);
    }

    #[test]
    fn identifier_parts_split_case_digits_and_underscores() {
        assert_eq!(
            identifier_parts("HTTPServerError"),
            ["HTTP", "Server", "Error"]
        );
        assert_eq!(identifier_parts("parseConfig"), ["parse", "Config"]);
        assert_eq!(
            identifier_parts("snake_case_name"),
            ["snake", "case", "name"]
        );
        assert_eq!(identifier_parts("utf8Decode"), ["utf", "8", "Decode"]);
        assert_eq!(identifier_parts("plain"), ["plain"]);
        assert_eq!(identifier_parts("__init__"), ["init"]);
    }

    #[test]
    fn stems_keep_enough_of_the_word() {
        let cases = [
            ("models", "model"),
            ("addresses", "address"),
            ("dependencies", "dependenc"),
            ("routing", "rout"),
            ("routes", "rout"),
            ("parse", "pars"),
            ("name", "name"),
            ("registered", "register"),
            ("class", "class"),
            ("string", "string"),
            ("status", "status"),
            ("used", "used"),
            ("serialization", "serializ"),
            ("registration", "regist"),
            ("execution", "exec"),
            ("resolution", "resol"),
            ("reflection", "reflect"),
            ("reflective", "reflect"),
            ("validators", "valid"),
            ("management", "manag"),
            ("arguments", "argument"),
            ("session", "session"),
            ("version", "version"),
        ];
        for (word, want) in cases {
            assert_eq!(stem(word), want, "{word}");
        }
    }

    #[test]
    fn path_words_match_a_term_whole_or_contained() {
        assert_eq!(token_match("routes", "rout"), 1.0, "stems to the term");
        assert_eq!(token_match("router", "rout"), CONTAINED);
        assert_eq!(token_match("json", "json"), 1.0);
        assert_eq!(token_match("jsonarray", "json"), CONTAINED);
        assert_eq!(token_match("gson", "json"), 0.0);
    }

    #[test]
    fn the_name_is_its_last_component_s_words() {
        assert_eq!(name_token_count(Path::new("gson/JsonArray.java")), 3);
        assert_eq!(name_token_count(Path::new("aiohttp/streams.py")), 1);
        assert_eq!(name_token_count(Path::new("")), 0);
    }

    #[test]
    fn name_cover_is_the_share_of_the_name_s_words_matched() {
        let terms = |q: &str| terms(q);
        let cover = |path: &str, q: &str| name_cover(Path::new(path), &terms(q));
        assert_eq!(cover("gson/JsonArray.java", "JSON array operations"), 1.0);
        assert_eq!(cover("a/web_middlewares.py", "middleware execution"), 0.5);
        assert_eq!(cover("TypeAdapterFactory.java", "TypeAdapter"), 2.0 / 3.0);
        assert_eq!(cover("a/io.c", "io"), 0.0);
        assert_eq!(cover("persistence/persistence.py", "persistence"), 2.0);
        assert_eq!(cover("src/tokenizer/model.py", "tokenizer models"), 2.0);
    }

    #[test]
    fn prose_and_configuration_are_told_from_code() {
        for path in [
            "README.md",
            "docs/guide.rst",
            "pom.xml",
            "a/b.yaml",
            "LICENSE",
        ] {
            assert!(paths::is_prose(Path::new(path)), "{path}");
        }
        for path in ["src/lib.rs", "web.py", "Makefile", "core.h"] {
            assert!(!paths::is_prose(Path::new(path)), "{path}");
        }
    }

    #[test]
    fn pattern_is_escaped_longest_first() {
        let terms = vec!["a.b".to_string(), "parse".into(), "parse_config".into()];
        assert_eq!(pattern(&terms), r"parse_config|parse|a\.b");
    }

    #[test]
    fn path_tokens_split_like_identifiers() {
        assert_eq!(
            path_tokens(Path::new("aiohttp/web_urlDispatcher.py")),
            ["aiohttp", "web_urldispatcher", "web", "url", "dispatcher"]
        );
    }
}
