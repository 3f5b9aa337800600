//! The grep and glob requests every caller sends (the library's `grep`, `grep_iter` and
//! `glob`, the remote workspace, the tools): written once here, checked once here
//! (`GrepRequest::query`, `GlobRequest::query`), and paged here (`page`), as ripgrep's
//! `HiArgs` is the one checked form of its flags.

use crate::error::{Error, Result};
use crate::glob::{GlobQuery, GlobSort};
use crate::grep::{FileHits, MAX_TIMEOUT_SECS, OutputMode, PatternOptions, timeout_duration};
use crate::rank::Reading;
use crate::search::{GrepOutcome, GrepQuery};
use crate::types::FileTypes;
use serde::{Deserialize, Deserializer, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

/// One grep request, as a caller gives it (options a caller leaves out have these defaults).
/// Adding an option: a field here, its check in `query`, and its use in the search.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct GrepRequest {
    /// Workspace-relative, a directory or a file; given apart (a path need not be UTF-8).
    #[serde(skip)]
    pub search_path: PathBuf,
    pub pattern: String,
    pub literal: bool,
    pub case_sensitive: bool,
    /// `None`: on when the pattern contains a newline.
    pub multiline: Option<bool>,
    /// Lines of context on both sides, unless `before` or `after` says otherwise.
    pub context_lines: i64,
    pub before: Option<i64>,
    pub after: Option<i64>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    /// `None`: no limit.
    pub max_matches: Option<i64>,
    pub count_total: bool,
    /// Seconds.
    #[serde(deserialize_with = "seconds")]
    pub timeout: Option<f64>,
    /// "content", "files" or "count" (then `max_matches`, `offset` and totals count files).
    pub mode: String,
    /// Results of the deterministic order skipped (paging).
    pub offset: i64,
    /// ripgrep file type names a file must have (or not have).
    pub types: Vec<String>,
    pub types_not: Vec<String>,
    /// Overrides of the workspace's walk options for this call (`None`: the workspace's).
    pub hidden: Option<bool>,
    pub no_ignore: Option<bool>,
    /// Hits are streamed as they settle (no total of every match, no paging).
    pub stream: bool,
    /// One hit per matching line, its first match, instead of one per match, where that
    /// changes no line shown (see `GrepQuery::one_hit_per_line`): what a printer of lines
    /// (the CLI's piped grep) needs.
    pub one_hit_per_line: bool,
    /// No hit is checked for uniqueness (every `unique` is false; see
    /// `GrepQuery::skip_unique`): what a printer that never shows it needs.
    pub skip_unique: bool,
    /// Hits ordered by relevance (`crate::rank`), not by path: the search finds every hit,
    /// ranks them all, then keeps the page asked for (`rank_and_page`).
    pub rank: bool,
    /// The best ranked hits whose text fits in this many tokens (`crate::rank::budget`),
    /// each with its enclosing definition's head, and what was left out. Implies `rank`.
    pub budget_tokens: Option<i64>,
}

impl Default for GrepRequest {
    fn default() -> Self {
        GrepRequest {
            search_path: PathBuf::new(),
            pattern: String::new(),
            literal: false,
            case_sensitive: false,
            multiline: None,
            context_lines: 0,
            before: None,
            after: None,
            include: Vec::new(),
            exclude: Vec::new(),
            max_matches: Some(500),
            count_total: false,
            timeout: None,
            mode: "content".into(),
            offset: 0,
            types: Vec::new(),
            types_not: Vec::new(),
            hidden: None,
            no_ignore: None,
            stream: false,
            one_hit_per_line: false,
            skip_unique: false,
            rank: false,
            budget_tokens: None,
        }
    }
}

/// A timeout in seconds, or a name of a number JSON has none for ("inf", "nan"): they are
/// refused by `query` with the message every bad timeout gets.
fn seconds<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Option<f64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Seconds {
        Number(f64),
        Named(String),
    }
    Ok(match Option::<Seconds>::deserialize(d)? {
        None => None,
        Some(Seconds::Number(n)) => Some(n),
        Some(Seconds::Named(name)) => Some(name.parse().unwrap_or(f64::NAN)),
    })
}

impl GrepRequest {
    /// The search this request asks for, every value checked (the one place they are).
    pub fn query(&self) -> Result<GrepQuery> {
        let max_matches = self
            .max_matches
            .map(|max| at_least("max_matches", max, 1))
            .transpose()?;
        let offset = at_least("offset", self.offset, 0)?;
        let context = at_least("context_lines", self.context_lines, 0)?;
        let side = |name, value: Option<i64>| value.map_or(Ok(context), |v| at_least(name, v, 0));
        let (before, after) = (side("before", self.before)?, side("after", self.after)?);
        if let Some(budget) = self.budget_tokens {
            at_least("budget_tokens", budget, 1)?;
            if self.offset > 0 || self.stream {
                return Err(Error::InvalidArgument(
                    "budget_tokens returns the best hits that fit at once: drop offset and \
                     stream, or drop budget_tokens and page with offset"
                        .into(),
                ));
            }
        }
        if self.stream && (self.count_total || self.offset > 0) {
            return Err(Error::InvalidArgument(
                "count_total and offset need the whole answer: drop them to stream, or call \
                 grep without stream"
                    .into(),
            ));
        }
        let timeout = match self.timeout {
            Some(t) if !(t > 0.0 && t <= MAX_TIMEOUT_SECS) => {
                return Err(Error::InvalidArgument(format!(
                    "timeout must be a positive number of seconds up to {MAX_TIMEOUT_SECS}, \
                     not {t:?}; pass None to search without a time limit"
                )));
            }
            Some(t) => Some(timeout_duration(t)?),
            None => None,
        };
        Ok(GrepQuery {
            pattern: PatternOptions {
                pattern: self.pattern.clone(),
                literal: self.literal,
                case_sensitive: self.case_sensitive,
                multiline: self.multiline,
                before,
                after,
            },
            search_path: self.search_path.clone(),
            include: self.include.clone(),
            exclude: self.exclude.clone(),
            // The first `offset` results are found, then dropped (`page`); a ranked search
            // finds every hit of every file (its page is cut once they are ranked).
            max_matches: match self.ranked() {
                true => None,
                false => max_matches.map(|max| max.saturating_add(offset)),
            },
            count_total: self.count_total,
            timeout,
            mode: match (self.ranked(), OutputMode::parse(&self.mode)?) {
                (true, _) => OutputMode::Content,
                (false, mode) => mode,
            },
            types: FileTypes::new(&self.types, &self.types_not)?.map(Arc::new),
            one_hit_per_line: self.one_hit_per_line && !self.ranked(),
            skip_unique: self.skip_unique,
            windows: self.ranked().then_some(crate::rank::WINDOWS),
        })
    }

    /// Whether the hits are ranked (`rank`, or a token budget, which ranks them).
    pub fn ranked(&self) -> bool {
        self.rank || self.budget_tokens.is_some()
    }

    /// The page this request asks for of `outcome`: its first `offset` hits dropped.
    pub fn page(&self, outcome: &mut GrepOutcome) {
        skip_hits(&mut outcome.files, self.offset.max(0) as usize);
    }

    /// A ranked request's answer from `outcome` (every hit, in path order): ranked, shown
    /// one hit per file (the best) in the "files" and "count" modes, then its page: `offset`
    /// results skipped and `max_matches` kept. `total` counts every result (the search was
    /// exhaustive); `truncated` says results were left past the page.
    pub fn rank_and_page(&self, outcome: &mut GrepOutcome, reading: &Reading<'_>) -> Result<()> {
        let mode = OutputMode::parse(&self.mode)?;
        let ranked = crate::rank::rank(std::mem::take(&mut outcome.files), reading);
        let mut results = match mode {
            OutputMode::Content => ranked,
            OutputMode::Files | OutputMode::Count => {
                crate::rank::best_per_file(ranked, mode == OutputMode::Count)
            }
        };
        let total: u64 = results.iter().map(|f| f.hits.len() as u64).sum();
        if let Some(budget) = self.budget_tokens {
            let (kept, spent) = crate::rank::budget::fit(results, budget.max(1) as u64, reading);
            results = kept;
            outcome.spent = Some(spent);
        }
        let offset = self.offset.max(0) as usize;
        skip_hits(&mut results, offset);
        let mut left = self
            .max_matches
            .map_or(usize::MAX, |max| max.max(0) as usize);
        results.retain_mut(|file| {
            file.hits.truncate(left);
            if mode == OutputMode::Content {
                file.count = file.hits.len() as u64;
                file.matches = file.hits.len() as u64;
            }
            left -= file.hits.len();
            !file.hits.is_empty()
        });
        let kept: u64 = results.iter().map(|f| f.hits.len() as u64).sum();
        outcome.truncated |= kept + (offset as u64).min(total) < total;
        outcome.total = total;
        outcome.files = results;
        Ok(())
    }
}

/// One glob request, as a caller gives it (options a caller leaves out have these defaults).
/// The index daemon is sent the same (`daemon::ask::glob`), without the walk overrides.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct GlobRequest {
    /// Workspace-relative, a directory or a file; given apart (a path need not be UTF-8).
    #[serde(skip)]
    pub search_path: PathBuf,
    pub pattern: String,
    pub case_sensitive: bool,
    /// Most files returned (`total` counts them all).
    pub limit: i64,
    /// "path", "mtime" (newest first) or "none".
    pub sort: String,
    /// ripgrep file type names a file must have (or not have).
    pub types: Vec<String>,
    pub types_not: Vec<String>,
    /// Overrides of the workspace's walk options for this call (`None`: the workspace's).
    pub hidden: Option<bool>,
    pub no_ignore: Option<bool>,
}

impl Default for GlobRequest {
    fn default() -> Self {
        GlobRequest {
            search_path: PathBuf::new(),
            pattern: String::new(),
            case_sensitive: true,
            limit: 2000,
            sort: "path".into(),
            types: Vec::new(),
            types_not: Vec::new(),
            hidden: None,
            no_ignore: None,
        }
    }
}

impl GlobRequest {
    /// The glob this request asks for, every value checked (the glob itself is compiled by
    /// the search, which reports a bad one).
    pub fn query(&self) -> Result<GlobQuery> {
        Ok(GlobQuery {
            pattern: self.pattern.clone(),
            search_path: self.search_path.clone(),
            case_sensitive: self.case_sensitive,
            limit: at_least("limit", self.limit, 0)?,
            sort: GlobSort::parse(&self.sort)?,
            types: FileTypes::new(&self.types, &self.types_not)?.map(Arc::new),
        })
    }
}

/// `value` as a count, when it is at least `minimum`.
fn at_least(name: &str, value: i64, minimum: i64) -> Result<usize> {
    if value < minimum {
        return Err(Error::InvalidArgument(format!(
            "{name} must be at least {minimum}, not {value}"
        )));
    }
    usize::try_from(value).map_err(|_| Error::InvalidArgument(format!("{name} is too large")))
}

/// Drops the first `offset` hits of `files` (in order; a file left without hits goes).
fn skip_hits(files: &mut Vec<FileHits>, offset: usize) {
    let mut left = offset;
    let mut drop_files = 0;
    for file in files.iter_mut() {
        if left == 0 {
            break;
        }
        if file.hits.len() <= left {
            left -= file.hits.len();
            drop_files += 1;
        } else {
            file.hits.drain(..left);
            left = 0;
        }
    }
    files.drain(..drop_files);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, lines: &[u64]) -> FileHits {
        let hits: Vec<_> = lines.iter().map(|&line| (line, "", "")).collect();
        crate::grep::test_support::planted(name, &hits)
    }

    fn flat(files: &[FileHits]) -> Vec<(String, u64)> {
        files
            .iter()
            .flat_map(|f| {
                f.hits
                    .iter()
                    .map(|h| (f.path.to_string_lossy().into_owned(), h.line))
            })
            .collect()
    }

    #[test]
    fn skipping_equals_slicing_the_flat_order() {
        let all = || vec![file("a", &[1, 2, 3]), file("b", &[4]), file("c", &[5, 6])];
        let everything = flat(&all());
        for offset in 0..=everything.len() + 1 {
            let mut files = all();
            skip_hits(&mut files, offset);
            let expected: Vec<_> = everything.iter().skip(offset).cloned().collect();
            assert_eq!(flat(&files), expected, "offset {offset}");
            assert!(files.iter().all(|f| !f.hits.is_empty()));
        }
    }

    fn refused(request: GrepRequest) -> String {
        match request.query() {
            Err(Error::InvalidArgument(msg)) => msg,
            other => panic!("expected InvalidArgument, got {:?}", other.map(|_| ())),
        }
    }

    #[test]
    fn values_are_checked_once_with_what_is_allowed() {
        let ok = GrepRequest::default();
        assert!(ok.query().is_ok());
        let msg = refused(GrepRequest {
            max_matches: Some(0),
            ..GrepRequest::default()
        });
        assert!(msg.contains("max_matches must be at least 1"), "{msg}");
        for t in [
            0.0,
            -1.0,
            f64::NAN,
            f64::INFINITY,
            1e300,
            MAX_TIMEOUT_SECS + 1.0,
        ] {
            let msg = refused(GrepRequest {
                timeout: Some(t),
                ..GrepRequest::default()
            });
            assert!(
                msg.contains("positive number of seconds up to 86400"),
                "{t}: {msg}"
            );
        }
        let msg = refused(GrepRequest {
            stream: true,
            offset: 2,
            ..GrepRequest::default()
        });
        assert!(msg.contains("need the whole answer"), "{msg}");
        let msg = refused(GrepRequest {
            mode: "lines".into(),
            ..GrepRequest::default()
        });
        assert!(msg.contains("mode must be"), "{msg}");
    }

    #[test]
    fn a_glob_request_is_checked_with_what_is_allowed() {
        let query = GlobRequest::default().query().unwrap();
        assert_eq!((query.limit, query.sort), (2000, GlobSort::Path));
        assert!(query.case_sensitive);
        for (request, expected) in [
            (
                GlobRequest {
                    limit: -1,
                    ..GlobRequest::default()
                },
                "limit must be at least 0, not -1",
            ),
            (
                GlobRequest {
                    sort: "size".into(),
                    ..GlobRequest::default()
                },
                "sort must be one of",
            ),
            (
                GlobRequest {
                    types: vec!["no-such-type".into()],
                    ..GlobRequest::default()
                },
                "no-such-type",
            ),
        ] {
            let msg = match request.query() {
                Err(e) => e.to_string(),
                Ok(_) => panic!("expected {expected:?} to be refused"),
            };
            assert!(msg.contains(expected), "expected {expected:?} in {msg:?}");
        }
    }

    #[test]
    fn context_lines_fill_the_sides_not_given_and_offset_extends_the_limit() {
        let query = GrepRequest {
            context_lines: 2,
            after: Some(0),
            offset: 3,
            max_matches: Some(5),
            ..GrepRequest::default()
        }
        .query()
        .unwrap();
        assert_eq!((query.pattern.before, query.pattern.after), (2, 0));
        assert_eq!(query.max_matches, Some(8));
    }
}
