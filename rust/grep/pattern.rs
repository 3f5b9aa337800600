//! The pattern of a search: a query's regex or literal checked against the limits that keep
//! parsing and compiling it bounded, made tolerant of `\r\n` line ends, and compiled into the
//! matcher and searcher a file is searched with; and what a search reports of each file.

use super::stop::FileLimits;
use crate::error::{Error, Hint, Result, concept};
use grep_matcher::LineTerminator;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, MmapChoice, Searcher, SearcherBuilder};
use regex_syntax::ast::{self, Ast, Span as AstSpan};

/// Longest pattern accepted (regex or literal), in bytes. Parsing costs memory in proportion
/// to the pattern (a 10 MB regex took 3.6 GB); 64 KiB is some 1,500 lines of code.
pub const MAX_PATTERN_BYTES: usize = 64 * 1024;
/// Most Unicode classes (`\w`, `\d`, `\p{..}` and their negations, alone or in brackets) in
/// one regex: each holds hundreds of ranges once parsed, so 64 KiB of `\pL` took 900 MB before
/// the compiled-size limit could refuse it. (`\s`, `.` and bracketed ranges are small and
/// not counted.)
pub const MAX_UNICODE_CLASSES: usize = 1_000;
/// Largest compiled regex (its NFA), in bytes; grep-regex's own default is 100 MiB. `\w{1000}`
/// fits; a pattern over it is refused rather than built.
pub const MAX_COMPILED_BYTES: usize = 64 * 1024 * 1024;
/// Most memory the lazy DFA of one search thread may cache, in bytes (grep-regex's default is
/// 1000 MiB); when full it is cleared, or the search goes on with a slower engine.
pub const DFA_CACHE_BYTES: usize = 256 * 1024 * 1024;
/// Deepest nesting of groups, classes and repetitions in a regex (grep-regex's default).
const NEST_LIMIT: u32 = 250;

/// The start of a long pattern, for messages: a 10 MB pattern must not make a 10 MB message.
/// Short patterns come back whole.
pub(crate) fn abbreviate(text: &str) -> std::borrow::Cow<'_, str> {
    const SHOWN: usize = 60;
    if text.len() <= SHOWN + 40 {
        return text.into();
    }
    let mut end = SHOWN;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes)", &text[..end], text.len()).into()
}

/// What to look for and how.
#[derive(Clone, Debug, Default)]
pub struct PatternOptions {
    pub pattern: String,
    pub literal: bool,
    pub case_sensitive: bool,
    /// `None`: on when the pattern contains a newline.
    pub multiline: Option<bool>,
    pub before: usize,
    pub after: usize,
}

/// What a search reports of each file: every match (`Content`), only that it matches
/// (`Files`: the scan of a file stops at its first match), or how many matches it has
/// (`Count`: every match counted, only the first materialised). In the last two the unit of
/// a search's limits is the file: `FileHits::count` is 1 and `FileHits::matches` the count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutputMode {
    #[default]
    Content,
    Files,
    Count,
}

impl OutputMode {
    pub fn parse(text: &str) -> Result<OutputMode> {
        match text {
            "content" => Ok(OutputMode::Content),
            "files" => Ok(OutputMode::Files),
            "count" => Ok(OutputMode::Count),
            other => Err(Error::InvalidArgument(format!(
                "mode must be \"content\", \"files\" or \"count\", not {:?}",
                abbreviate(other)
            ))),
        }
    }

    /// The per-file caps of a search in this mode: files need one hit; counts need every
    /// match counted and one kept.
    pub fn limits(self, limits: FileLimits) -> FileLimits {
        match self {
            OutputMode::Content => limits,
            OutputMode::Files => FileLimits {
                max_hits: 1,
                count_all: false,
            },
            OutputMode::Count => FileLimits {
                max_hits: 1,
                count_all: true,
            },
        }
    }
}

/// A matcher ready to search with.
#[derive(Clone, Debug)]
pub struct CompiledPattern {
    pub matcher: RegexMatcher,
    /// The regex the matcher was built from (literals escaped, newlines made CRLF-tolerant).
    pub regex: String,
    pub case_insensitive: bool,
    pub multiline: bool,
    pub before: usize,
    pub after: usize,
    pub mode: OutputMode,
    /// One hit per matching line (see `with_lines`).
    pub lines: bool,
    /// No hit is checked for uniqueness (see `without_unique`).
    pub skip_unique: bool,
    /// The bytes around which hits' lines are kept with the hits (see `with_windows`).
    pub windows: Option<WindowCapture>,
    /// The one text every match is, when there is one (a case-sensitive literal, written as
    /// one or as a regex without special characters, holding no line end): a file's hits
    /// are then every place that text occurs (see `exact_text`).
    pub exact: Option<Vec<u8>>,
}

/// `WindowCapture::shape`: a hit's shape from its line, its match's range on it, its bytes
/// and its column; and whether it wants the bytes around its line.
pub type ShapeOf = fn(
    line: &[u8],
    matched: std::ops::Range<usize>,
    content: &[u8],
    column: u64,
) -> (crate::grep::ranking::HitShape, bool);

/// `WindowCapture::finish`: what is worked out on a file's hits once its search ended, and
/// the windows looked at so far by the search thread.
pub type FinishOf = fn(file: &mut crate::grep::FileHits, looked: &mut usize);

/// Which hits' lines a search keeps the bytes around (`FileHits::windows`), and how many:
/// the line before the hit's and `lines_after` lines after it, within `bytes_before` bytes
/// before the hit's line and `bytes_after` after its start (a part cut short by them, or by
/// the end of what was read, is what it is: its reader reads the file for what it lacks).
#[derive(Clone, Copy, Debug)]
pub struct WindowCapture {
    /// The shape of the hit whose match is at `matched` (its first line) of `line` (without
    /// its terminator), its bytes `content` at 1-based character `column` (kept with the
    /// file's hits: `Windows::shapes`), and whether it wants the bytes around its line.
    pub shape: ShapeOf,
    /// Worked out on a file's hits once its search ended (`FileSearcher`), while their
    /// bytes are in the cache: `rank::recognise_heads`. The count is the windows the
    /// search thread looked at so far, which it caps.
    pub finish: FinishOf,
    pub lines_after: usize,
    pub bytes_before: usize,
    pub bytes_after: usize,
}

impl CompiledPattern {
    /// With `lines`, a content search without context or multiline matching keeps one hit
    /// per matching line: its first match, with no uniqueness. Those are the lines rg
    /// prints, without a hit record per match. A file counts every match on its first
    /// matching lines, one per line after them (see `EXACT_LINES` in the sink): a total
    /// exact when small, a lower bound otherwise. Other searches are unchanged: their hits
    /// may span lines or need context.
    pub fn with_lines(mut self, lines: bool) -> CompiledPattern {
        self.lines = lines
            && self.mode == OutputMode::Content
            && !self.multiline
            && self.before == 0
            && self.after == 0;
        self
    }

    /// With `skip`, no hit is checked for uniqueness (each has `unique` false): a printer
    /// that shows no hit's uniqueness spares the sort and the scans it costs.
    pub fn without_unique(mut self, skip: bool) -> CompiledPattern {
        self.skip_unique = skip;
        self
    }

    /// With `capture`, the bytes around the lines of the hits it wants are kept with the
    /// file's hits (`FileHits::windows`), as the search read them: a ranked search parses
    /// them instead of reading the files again. A search without it keeps none.
    pub fn with_windows(mut self, capture: Option<WindowCapture>) -> CompiledPattern {
        self.windows = capture;
        self
    }

    /// The pattern reporting files or counts instead of every match (no context lines then).
    pub fn with_mode(mut self, mode: OutputMode) -> CompiledPattern {
        self.mode = mode;
        if mode != OutputMode::Content {
            self.before = 0;
            self.after = 0;
        }
        self
    }

    pub fn new(options: &PatternOptions) -> Result<CompiledPattern> {
        let pattern = &options.pattern;
        if pattern.len() > MAX_PATTERN_BYTES {
            let what = if options.literal {
                "search string"
            } else {
                "regex"
            };
            return Err(Error::Pattern(format!(
                "the {what} is {} bytes long, over the limit of {MAX_PATTERN_BYTES} (64 KiB): \
                 {:?}. Search for a shorter part of it that is distinctive enough.",
                pattern.len(),
                abbreviate(pattern)
            )));
        }
        let (regex, has_newline) = if options.literal {
            literal_regex(pattern)
        } else {
            newline_tolerant_regex(pattern)?
        };
        let multiline = options.multiline.unwrap_or(has_newline);
        let mut builder = RegexMatcherBuilder::new();
        builder
            .case_insensitive(!options.case_sensitive)
            .multi_line(true)
            .crlf(true)
            .unicode(true)
            .nest_limit(NEST_LIMIT)
            .size_limit(MAX_COMPILED_BYTES)
            .dfa_size_limit(DFA_CACHE_BYTES);
        if multiline {
            // crlf() also sets a CRLF line terminator, which would ban `\r` and `\n`.
            builder.line_terminator(None);
        }
        let matcher = builder
            .build(&regex)
            .map_err(|e| regex_error(options, &e, has_newline && !multiline))?;
        let exact = exact_text(&regex, !options.case_sensitive, multiline);
        Ok(CompiledPattern {
            matcher,
            exact,
            regex,
            case_insensitive: !options.case_sensitive,
            multiline,
            before: options.before,
            after: options.after,
            mode: OutputMode::Content,
            lines: false,
            skip_unique: false,
            windows: None,
        })
    }

    pub fn searcher(&self) -> Searcher {
        let mut builder = SearcherBuilder::new();
        if !self.multiline {
            builder.line_terminator(LineTerminator::crlf());
        }
        builder
            .line_number(true)
            .multi_line(self.multiline)
            .binary_detection(BinaryDetection::quit(b'\x00'))
            .before_context(self.before)
            .after_context(self.after)
            .bom_sniffing(false)
            .memory_map(MmapChoice::never())
            .build()
    }
}

/// The message for a pattern grep-regex refused: the problem, then what to do as a `Hint`.
fn regex_error(
    options: &PatternOptions,
    error: &grep_regex::Error,
    needs_multiline: bool,
) -> Error {
    let pattern = abbreviate(&options.pattern);
    if let grep_regex::ErrorKind::Regex(kind) = error.kind()
        && kind.starts_with("compiled regex exceeds size limit")
    {
        return Error::Pattern(format!(
            "the regex /{pattern}/ is too large once compiled (over {} MiB).",
            MAX_COMPILED_BYTES >> 20
        ))
        .hinted(Hint {
            text: "Use smaller counted repetitions ({n}), fewer Unicode classes (or ASCII ones \
                   such as (?-u:\\w)), or {option}.",
            concepts: &[concept::LITERAL],
            fallback: "Use smaller counted repetitions ({n}) or fewer Unicode classes (or ASCII \
                       ones such as (?-u:\\w)).",
            separator: " ",
        });
    }
    let detail = syntax_error(options).unwrap_or_else(|| error.to_string());
    // A syntax error shows the whole pattern with a caret under the fault; for a long pattern
    // keep the last line alone ("error: ...").
    let detail = if options.pattern.len() > 200 {
        detail.lines().last().unwrap_or_default().to_string()
    } else {
        detail
    };
    let problem = Error::Pattern(format!("invalid regex /{pattern}/: {detail}"));
    if needs_multiline {
        problem.hinted(Hint {
            text: "A pattern with a newline needs {option}.",
            concepts: &[concept::MULTILINE],
            fallback: "",
            separator: "\n",
        })
    } else if !options.literal {
        problem.hinted(Hint {
            text: "Escape special characters with \\ or pass {option}.",
            concepts: &[concept::LITERAL],
            fallback: "Escape special characters with \\.",
            separator: "\n",
        })
    } else {
        problem
    }
}

/// The syntax error of the pattern as the caller wrote it, with the caret under the fault in
/// that text; None when it parses (grep-regex refused it for another reason). grep-regex's own
/// message shows the regex inside the `(?:...)` group it wraps it in, with the caret there.
fn syntax_error(options: &PatternOptions) -> Option<String> {
    if options.literal {
        return None;
    }
    regex_syntax::ParserBuilder::new()
        .nest_limit(NEST_LIMIT)
        .unicode(true)
        .case_insensitive(!options.case_sensitive)
        .multi_line(true)
        .crlf(true)
        .build()
        .parse(&options.pattern)
        .err()
        .map(|e| e.to_string())
}

const NEWLINE: &str = "(?:\\r?\\n)";

/// A fixed string as a regex; each newline in it (`\n` or `\r\n`) matches either ending.
/// The one text every match of `regex` is, if there is one: a literal (its regex parses to
/// one literal), searched case-sensitively, not multiline and holding no line end. Such a
/// pattern matches each place its text occurs (non-overlapping, leftmost first, as a scan for
/// the text finds them), so a search that saw every line holding it saw them all.
fn exact_text(regex: &str, case_insensitive: bool, multiline: bool) -> Option<Vec<u8>> {
    if case_insensitive || multiline {
        return None;
    }
    let hir = regex_syntax::ParserBuilder::new()
        .nest_limit(NEST_LIMIT)
        .build()
        .parse(regex)
        .ok()?;
    match hir.kind() {
        regex_syntax::hir::HirKind::Literal(literal)
            if !literal.0.is_empty()
                && !literal.0.contains(&b'\n')
                && !literal.0.contains(&b'\r') =>
        {
            Some(literal.0.to_vec())
        }
        _ => None,
    }
}

fn literal_regex(pattern: &str) -> (String, bool) {
    if !pattern.contains('\n') {
        return (regex_syntax::escape(pattern), false);
    }
    let pieces: Vec<String> = pattern
        .split('\n')
        .map(|line| regex_syntax::escape(line.strip_suffix('\r').unwrap_or(line)))
        .collect();
    (pieces.join(NEWLINE), true)
}

/// The regex with every literal newline (`\n`, a raw newline, `\x0A`, ...) outside a class
/// replaced by `(?:\r?\n)`, so that patterns written for `\n` files also match `\r\n` files;
/// and whether there was one. Refuses a regex with more than `MAX_UNICODE_CLASSES` classes.
fn newline_tolerant_regex(pattern: &str) -> Result<(String, bool)> {
    let parser = ast::parse::ParserBuilder::new()
        .nest_limit(NEST_LIMIT)
        .build()
        .parse(pattern);
    let Ok(parsed) = parser else {
        // Let the regex builder report the syntax error with its full message.
        return Ok((pattern.to_string(), pattern.contains('\n')));
    };
    #[derive(Default)]
    struct Scan {
        newlines: Vec<AstSpan>,
        unicode_classes: usize,
    }
    impl ast::Visitor for Scan {
        type Output = Scan;
        type Err = ();
        fn finish(self) -> std::result::Result<Scan, ()> {
            Ok(self)
        }
        fn visit_pre(&mut self, ast: &Ast) -> std::result::Result<(), ()> {
            match ast {
                Ast::Literal(lit) if lit.c == '\n' => self.newlines.push(lit.span),
                Ast::ClassPerl(class) if class.kind != ast::ClassPerlKind::Space => {
                    self.unicode_classes += 1
                }
                Ast::ClassUnicode(_) => self.unicode_classes += 1,
                _ => {}
            }
            Ok(())
        }
        fn visit_class_set_item_pre(
            &mut self,
            item: &ast::ClassSetItem,
        ) -> std::result::Result<(), ()> {
            match item {
                ast::ClassSetItem::Perl(class) if class.kind != ast::ClassPerlKind::Space => {
                    self.unicode_classes += 1
                }
                ast::ClassSetItem::Unicode(_) => self.unicode_classes += 1,
                _ => {}
            }
            Ok(())
        }
    }
    let scan = ast::visit(&parsed, Scan::default()).unwrap_or_default();
    if scan.unicode_classes > MAX_UNICODE_CLASSES {
        return Err(Error::Pattern(format!(
            "the regex /{}/ has {} Unicode classes (\\w, \\d, \\p{{..}} and their negations); at \
             most {MAX_UNICODE_CLASSES} are allowed. Use a counted repetition such as \\w{{20}}, \
             ASCII classes such as [a-z0-9_], or fewer alternatives.",
            abbreviate(pattern),
            scan.unicode_classes
        )));
    }
    let spans = scan.newlines;
    if spans.is_empty() {
        return Ok((pattern.to_string(), false));
    }
    let mut out = String::with_capacity(pattern.len() + spans.len() * 8);
    let mut last = 0;
    for span in &spans {
        out.push_str(&pattern[last..span.start.offset]);
        out.push_str(NEWLINE);
        last = span.end.offset;
    }
    out.push_str(&pattern[last..]);
    Ok((out, true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grep::test_support::*;

    #[test]
    fn the_exact_text_is_that_of_case_sensitive_literals_only() {
        let exact = |pattern: &str, literal: bool, case_sensitive: bool| {
            let options = PatternOptions {
                pattern: pattern.into(),
                literal,
                case_sensitive,
                ..Default::default()
            };
            CompiledPattern::new(&options).unwrap().exact
        };
        for (pattern, literal, expected) in [
            ("ERR_PTR", false, Some("ERR_PTR")),
            ("a.b(c)", true, Some("a.b(c)")),
            (r"a\.b", false, Some("a.b")),
            ("é", false, Some("é")),
            ("[x]y", false, Some("xy")),
            ("a.b", false, None),
            ("^ERR_PTR", false, None),
            (r"\bERR\b", false, None),
            ("(?i)err", false, None),
            ("a|b", false, None),
            ("a\nb", true, None),
        ] {
            let found = exact(pattern, literal, true);
            println!("{pattern:?} (literal: {literal}): {found:?}");
            assert_eq!(found.as_deref(), expected.map(str::as_bytes), "{pattern:?}");
        }
        assert_eq!(exact("ERR_PTR", false, false), None, "case-insensitive");
    }

    #[test]
    fn output_modes_parse_and_refuse_unknown_names() {
        assert_eq!(OutputMode::parse("files").unwrap(), OutputMode::Files);
        let err = OutputMode::parse("files_with_matches")
            .unwrap_err()
            .to_string();
        assert!(err.contains("\"content\", \"files\" or \"count\""), "{err}");
    }

    fn pattern_error(options: PatternOptions) -> String {
        match CompiledPattern::new(&options) {
            Err(err @ (Error::Pattern(_) | Error::Hinted(..))) => {
                assert!(
                    matches!(err.unhinted(), Error::Pattern(_)),
                    "a pattern error: {err:?}"
                );
                let msg = err.to_string();
                assert!(msg.len() < 1_000, "a short message: {msg}");
                msg
            }
            Err(other) => panic!("expected a pattern error, got {other:?}"),
            Ok(_) => panic!(
                "expected a pattern error for {:?}",
                abbreviate(&options.pattern)
            ),
        }
    }

    #[test]
    fn patterns_over_the_size_limit_are_refused_before_parsing() {
        let msg = pattern_error(opts(&"a".repeat(10_000_000)));
        assert!(
            msg.contains("10000000 bytes long, over the limit of 65536"),
            "{msg}"
        );
        let mut literal = opts(&"(".repeat(100_000));
        literal.literal = true;
        assert!(pattern_error(literal).contains("the search string is 100000 bytes"));
        // At the limit, a literal still compiles.
        let mut literal = opts(&"é(".repeat(MAX_PATTERN_BYTES / 3));
        literal.literal = true;
        literal.case_sensitive = false;
        assert!(CompiledPattern::new(&literal).is_ok());
    }

    #[test]
    fn deep_nesting_is_a_pattern_error_not_a_crash() {
        for pattern in [
            "(".repeat(60_000),
            "[".repeat(60_000),
            "(?:a".repeat(10_000),
        ] {
            let msg = pattern_error(opts(&pattern));
            assert!(msg.starts_with("invalid regex /"), "{msg}");
            assert!(msg.contains("Escape special characters"), "{msg}");
        }
        let closed = format!("{}a{}", "(".repeat(20_000), ")".repeat(20_000));
        let msg = pattern_error(opts(&closed));
        assert!(msg.contains("nested parentheses/brackets (250)"), "{msg}");
        // Nesting within the limit is fine.
        let nested = format!("{}a{}", "(".repeat(100), ")".repeat(100));
        assert!(CompiledPattern::new(&opts(&nested)).is_ok());
    }

    #[test]
    fn too_many_unicode_classes_are_refused() {
        let msg = pattern_error(opts(&r"\pL".repeat(MAX_UNICODE_CLASSES + 1)));
        assert!(msg.contains("1001 Unicode classes"), "{msg}");
        let msg = pattern_error(opts(&r"[\w-]".repeat(MAX_UNICODE_CLASSES + 1)));
        assert!(msg.contains("1001 Unicode classes"), "{msg}");
        // \s is small, and is not counted.
        assert!(CompiledPattern::new(&opts(&r"\s".repeat(MAX_UNICODE_CLASSES + 1))).is_ok());
    }

    #[test]
    fn a_regex_too_large_once_compiled_says_what_to_do() {
        let msg = pattern_error(opts(r"(?:\w{200}){200}"));
        assert!(
            msg.contains("too large once compiled (over 64 MiB)"),
            "{msg}"
        );
        assert!(msg.contains("literal=true"), "{msg}");
        // Counted repetitions of a usual size compile.
        assert!(CompiledPattern::new(&opts(r"\w{100}\s*\(\w{0,50}\)")).is_ok());
    }

    #[test]
    fn escaped_newline_in_regex_tolerates_crlf() {
        let (regex, has) = newline_tolerant_regex(r"a\nb[^\n]").unwrap();
        assert!(has);
        assert_eq!(regex, r"a(?:\r?\n)b[^\n]");
    }

    #[test]
    fn a_syntax_error_shows_the_pattern_as_written_with_the_caret_under_the_fault() {
        let Err(err) = CompiledPattern::new(&opts("foo(")) else {
            panic!("foo( compiled");
        };
        let problem = err.problem();
        assert_eq!(
            problem,
            "invalid regex /foo(/: regex parse error:\n    foo(\n       ^\nerror: unclosed group",
            "{problem}"
        );
        assert_eq!(err.hint().expect("a hint").concepts, [concept::LITERAL]);
    }
}
