//! Helpers shared by the unit tests of the grep modules: default options, and hits resolved
//! into their text for assertions; a file's hits as made by hand, and planted hits for the
//! modules that order them.

use super::hit::{FileOutcome, Hit, Span};
use super::pattern::{CompiledPattern, PatternOptions};
use super::sink::HitSink;
use super::stop::{FileLimits, StopSignal};
use super::unique::mark_unique;

/// File `path`'s hits, their text in `bytes`, each standing for one match (size and mtime
/// 0, UTF-8).
pub(crate) fn file_hits(
    path: impl Into<std::path::PathBuf>,
    hits: Vec<Hit>,
    bytes: Vec<u8>,
) -> super::FileHits {
    super::FileHits {
        path: path.into(),
        count: hits.len() as u64,
        matches: hits.len() as u64,
        hits,
        bytes,
        size: 0,
        mtime_ns: 0,
        encoding: super::TextEncoding::Utf8,
        continued: false,
        windows: Default::default(),
    }
}

/// A file's hits as a search would give them: each `(line, text, word)` a hit on `line` whose
/// line is `text`, matching `word` at its first occurrence there.
pub(crate) fn planted(path: &str, hits: &[(u64, &str, &str)]) -> super::FileHits {
    let mut bytes = Vec::new();
    let hits = hits
        .iter()
        .map(|&(line, text, word)| {
            let at = text.find(word).expect("the word is on its line");
            Hit {
                line,
                column: at as u64 + 1,
                end_line: line,
                byte_offset: 0,
                content: super::store(&mut bytes, word.as_bytes()),
                text: super::store(&mut bytes, text.as_bytes()),
                context: None,
                unique: false,
                ranking: None,
            }
        })
        .collect::<Vec<_>>();
    super::FileHits {
        size: 1000,
        ..file_hits(path, hits, bytes)
    }
}

pub(super) fn opts(pattern: &str) -> PatternOptions {
    PatternOptions {
        pattern: pattern.into(),
        case_sensitive: true,
        ..Default::default()
    }
}

/// A hit with its text resolved, for assertions.
pub(super) struct Resolved {
    pub(super) line: u64,
    pub(super) column: u64,
    pub(super) end_line: u64,
    pub(super) byte_offset: u64,
    pub(super) content: Vec<u8>,
    pub(super) text: String,
    pub(super) before: Vec<String>,
    pub(super) after: Vec<String>,
    pub(super) unique: bool,
}

pub(super) fn hits(outcome: FileOutcome) -> Vec<Resolved> {
    let FileOutcome::Matched(file) = outcome else {
        panic!("expected hits");
    };
    resolve(&file.hits, &file.bytes)
}

/// Every hit of `options` in `text` through the sink alone (as a whole file is searched),
/// with the bytes the hits' spans point into.
pub(super) fn sink_hits(text: &[u8], options: &PatternOptions) -> (Vec<Hit>, Vec<u8>) {
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

pub(super) fn resolve(hits: &[Hit], bytes: &[u8]) -> Vec<Resolved> {
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

pub(super) fn search_all(text: &str, options: PatternOptions) -> Vec<Resolved> {
    let (hits, bytes) = sink_hits(text.as_bytes(), &options);
    resolve(&hits, &bytes)
}
