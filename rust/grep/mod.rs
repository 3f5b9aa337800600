//! Content search of one file: the matcher built from a query (`pattern`), what a search
//! finds (`hit`), when a search stops and how much of a file it keeps (`stop`), the
//! per-thread searcher that reads a file and decides whether it is binary (`searcher`), the
//! sink that turns `grep-searcher` callbacks into one hit per match with exact offsets and
//! context lines (`sink`), the proof that a hit's text occurs once in its file (`unique`),
//! and what a ranked hit carries (`ranking`).

mod hit;
mod pattern;
pub mod ranking;
mod searcher;
mod sink;
mod stop;
mod unique;

#[cfg(test)]
pub(crate) mod test_support;

pub use hit::{Context, FileHits, FileOutcome, Hit, Span, TextEncoding, Windows, store};
pub(crate) use pattern::abbreviate;
pub use pattern::{
    CompiledPattern, DFA_CACHE_BYTES, MAX_COMPILED_BYTES, MAX_PATTERN_BYTES, MAX_UNICODE_CLASSES,
    OutputMode, PatternOptions, WindowCapture,
};
pub use searcher::{Expected, FileSearcher, LineRange};
pub use stop::{FileLimits, MAX_TIMEOUT_SECS, StopSignal, timeout_duration};
