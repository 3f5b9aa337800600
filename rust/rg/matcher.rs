//! The regex matcher a search runs, built from ripgrep's pattern flags with the engine chosen
//! (`--engine`, `-P`: Rust's regex or PCRE2, as ripgrep 15 built with PCRE2 chooses), and
//! ripgrep's hints after a pattern that does not compile.

use std::io;

use grep_matcher::{ByteSet, Captures, LineMatchKind, LineTerminator, Match, Matcher};

use super::args::{Args, BinaryMode, Boundary, CaseMode, Engine};

/// The matcher of one engine or the other: one type for the searcher and the printers, so
/// that the workers need not be generic over the engine (each call is one branch).
#[derive(Clone, Debug)]
pub enum RgMatcher {
    Rust(grep_regex::RegexMatcher),
    Pcre2(grep_pcre2::RegexMatcher),
}

impl RgMatcher {
    /// The engine this matcher runs (what `auto` settled on).
    pub fn engine(&self) -> Engine {
        match self {
            RgMatcher::Rust(_) => Engine::Default,
            RgMatcher::Pcre2(_) => Engine::Pcre2,
        }
    }
}

/// The capture groups of an [`RgMatcher`]'s match, of the same engine.
#[derive(Clone, Debug)]
pub enum RgCaptures {
    Rust(grep_regex::RegexCaptures),
    Pcre2(grep_pcre2::RegexCaptures),
}

impl Captures for RgCaptures {
    fn len(&self) -> usize {
        match self {
            RgCaptures::Rust(c) => c.len(),
            RgCaptures::Pcre2(c) => c.len(),
        }
    }

    fn get(&self, i: usize) -> Option<Match> {
        match self {
            RgCaptures::Rust(c) => c.get(i),
            RgCaptures::Pcre2(c) => c.get(i),
        }
    }
}

/// Runs `$call` on the engine's matcher `$m`, its error made an `io::Error` (Rust's regex
/// never fails while searching; PCRE2 can, e.g. when its match limit is hit).
macro_rules! on_engine {
    ($self:expr, |$m:ident| $call:expr) => {
        match $self {
            RgMatcher::Rust($m) => $call.map_err(io::Error::from),
            RgMatcher::Pcre2($m) => $call.map_err(io::Error::other),
        }
    };
}

impl Matcher for RgMatcher {
    type Captures = RgCaptures;
    type Error = io::Error;

    fn find_at(&self, haystack: &[u8], at: usize) -> io::Result<Option<Match>> {
        on_engine!(self, |m| m.find_at(haystack, at))
    }

    fn new_captures(&self) -> io::Result<RgCaptures> {
        match self {
            RgMatcher::Rust(m) => m
                .new_captures()
                .map(RgCaptures::Rust)
                .map_err(io::Error::from),
            RgMatcher::Pcre2(m) => m
                .new_captures()
                .map(RgCaptures::Pcre2)
                .map_err(io::Error::other),
        }
    }

    fn capture_count(&self) -> usize {
        match self {
            RgMatcher::Rust(m) => m.capture_count(),
            RgMatcher::Pcre2(m) => m.capture_count(),
        }
    }

    fn capture_index(&self, name: &str) -> Option<usize> {
        match self {
            RgMatcher::Rust(m) => m.capture_index(name),
            RgMatcher::Pcre2(m) => m.capture_index(name),
        }
    }

    fn try_find_iter<F, E>(&self, haystack: &[u8], matched: F) -> io::Result<Result<(), E>>
    where
        F: FnMut(Match) -> Result<bool, E>,
    {
        on_engine!(self, |m| m.try_find_iter(haystack, matched))
    }

    fn try_find_iter_at<F, E>(
        &self,
        haystack: &[u8],
        at: usize,
        matched: F,
    ) -> io::Result<Result<(), E>>
    where
        F: FnMut(Match) -> Result<bool, E>,
    {
        on_engine!(self, |m| m.try_find_iter_at(haystack, at, matched))
    }

    fn captures_at(&self, haystack: &[u8], at: usize, caps: &mut RgCaptures) -> io::Result<bool> {
        match (self, &mut *caps) {
            (RgMatcher::Rust(m), RgCaptures::Rust(c)) => {
                m.captures_at(haystack, at, c).map_err(io::Error::from)
            }
            (RgMatcher::Pcre2(m), RgCaptures::Pcre2(c)) => {
                m.captures_at(haystack, at, c).map_err(io::Error::other)
            }
            // Captures of the other engine (never made by this matcher): made anew.
            _ => {
                *caps = self.new_captures()?;
                self.captures_at(haystack, at, caps)
            }
        }
    }

    fn is_match_at(&self, haystack: &[u8], at: usize) -> io::Result<bool> {
        on_engine!(self, |m| m.is_match_at(haystack, at))
    }

    fn shortest_match_at(&self, haystack: &[u8], at: usize) -> io::Result<Option<usize>> {
        on_engine!(self, |m| m.shortest_match_at(haystack, at))
    }

    fn non_matching_bytes(&self) -> Option<&ByteSet> {
        match self {
            RgMatcher::Rust(m) => m.non_matching_bytes(),
            RgMatcher::Pcre2(m) => m.non_matching_bytes(),
        }
    }

    fn line_terminator(&self) -> Option<LineTerminator> {
        match self {
            RgMatcher::Rust(m) => m.line_terminator(),
            RgMatcher::Pcre2(m) => m.line_terminator(),
        }
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> io::Result<Option<LineMatchKind>> {
        on_engine!(self, |m| m.find_candidate_line(haystack))
    }
}

/// The matcher of ripgrep's regex flags for `patterns` (all of them, as alternatives), with
/// the engine `a.engine` names; `auto` is Rust's regex when the patterns compile there, else
/// PCRE2 (ripgrep's rule: no look at the pattern, only whether it compiles).
pub(super) fn build_matcher(a: &Args, patterns: &[String]) -> io::Result<RgMatcher> {
    match a.engine {
        Engine::Default => build_rust(a, patterns)
            .map(RgMatcher::Rust)
            .map_err(|msg| io::Error::other(suggest_pcre2(msg))),
        Engine::Pcre2 => build_pcre2(a, patterns)
            .map(RgMatcher::Pcre2)
            .map_err(io::Error::other),
        Engine::Auto => {
            let rust_err = match build_rust(a, patterns) {
                Ok(m) => return Ok(RgMatcher::Rust(m)),
                Err(err) => err,
            };
            let pcre_err = match build_pcre2(a, patterns) {
                Ok(m) => return Ok(RgMatcher::Pcre2(m)),
                Err(err) => err,
            };
            let divider = "~".repeat(79);
            Err(io::Error::other(format!(
                "regex could not be compiled with either the default regex engine or with \
                 PCRE2.\n\ndefault regex engine error:\n{divider}\n{rust_err}\n{divider}\n\n\
                 PCRE2 regex engine error:\n{pcre_err}"
            )))
        }
    }
}

/// Sets `a`'s case mode and boundary (`-x`, `-w`) on matcher builder `b`: the PCRE2 and
/// Rust builders name these settings alike but for case-insensitivity, `$caseless`.
macro_rules! case_and_boundary {
    ($b:ident, $a:ident, $caseless:ident) => {
        match $a.case {
            CaseMode::Sensitive => $b.$caseless(false),
            CaseMode::Insensitive => $b.$caseless(true),
            CaseMode::Smart => $b.case_smart(true),
        };
        match $a.boundary {
            Some(Boundary::Line) => {
                $b.whole_line(true);
            }
            Some(Boundary::Word) => {
                $b.word(true);
            }
            None => {}
        }
    };
}

/// PCRE2's matcher, configured as ripgrep 15 configures it (`HiArgs::matcher_pcre2`).
fn build_pcre2(a: &Args, patterns: &[String]) -> Result<grep_pcre2::RegexMatcher, String> {
    let mut b = grep_pcre2::RegexMatcherBuilder::new();
    b.multi_line(true).fixed_strings(a.fixed_strings);
    case_and_boundary!(b, a, caseless);
    // ripgrep leaves the JIT out on 32-bit targets (it fails there with "no more memory"),
    // and gives it a 10 MiB stack (PCRE2's default is 32 KiB).
    if cfg!(target_pointer_width = "64") {
        b.jit_if_available(true)
            .max_jit_stack_size(Some(10 * (1 << 20)));
    }
    if !a.no_unicode {
        b.utf(true).ucp(true);
    }
    if a.multiline {
        b.dotall(a.multiline_dotall);
    }
    if a.crlf {
        b.crlf(true);
    }
    b.build_many(patterns).map_err(|e| e.to_string())
}

/// Rust's regex matcher, configured as ripgrep 15 configures it (`HiArgs::matcher_rust`);
/// the error is ripgrep's message with its multiline and text hints.
fn build_rust(a: &Args, patterns: &[String]) -> Result<grep_regex::RegexMatcher, String> {
    let mut b = grep_regex::RegexMatcherBuilder::new();
    b.multi_line(true)
        .unicode(!a.no_unicode)
        .octal(false)
        .fixed_strings(a.fixed_strings);
    case_and_boundary!(b, a, case_insensitive);
    if a.multiline {
        b.dot_matches_new_line(a.multiline_dotall);
        if a.crlf {
            b.crlf(true).line_terminator(None);
        }
    } else {
        b.line_terminator(Some(b'\n')).dot_matches_new_line(false);
        if a.crlf {
            b.crlf(true);
        }
        if a.null_data {
            b.line_terminator(Some(b'\0'));
        }
    }
    if let Some(limit) = a.regex_size_limit {
        b.size_limit(limit);
    }
    if let Some(limit) = a.dfa_size_limit {
        b.dfa_size_limit(limit);
    }
    if a.binary != BinaryMode::AsText && !a.null_data {
        b.ban_byte(Some(b'\0'));
    }
    b.build_many(patterns).map_err(|e| suggest(e.to_string()))
}

/// ripgrep's hints after a regex error (multiline for a literal newline, text mode for NUL).
fn suggest(msg: String) -> String {
    if msg.contains("the literal") && msg.contains("not allowed") {
        format!(
            "{msg}\n\nConsider enabling multiline mode with the --multiline flag (or -U for \
             short).\nWhen multiline mode is enabled, new line characters can be matched."
        )
    } else if msg.contains("pattern contains \"\\0\"") {
        format!(
            "{msg}\n\nConsider enabling text mode with the --text flag (or -a for short). \
             Otherwise,\nbinary detection is enabled and matching a NUL byte is impossible."
        )
    } else {
        msg
    }
}

/// ripgrep's hint (in a build with PCRE2) after a Rust regex error PCRE2 would not make.
fn suggest_pcre2(msg: String) -> String {
    if msg.contains("backreferences") || msg.contains("look-around") {
        format!(
            "{msg}\n\nConsider enabling PCRE2 with the --pcre2 flag, which can handle \
             backreferences\nand look-around."
        )
    } else {
        msg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(engine: Engine) -> Args {
        Args {
            engine,
            ..Args::default()
        }
    }

    fn build(engine: Engine, pattern: &str) -> io::Result<RgMatcher> {
        build_matcher(&args(engine), &[pattern.to_string()])
    }

    #[test]
    fn auto_picks_rust_regex_when_it_compiles_else_pcre2() {
        for (pattern, expected) in [
            ("fo+", Engine::Default),
            (r"(\w+) \1", Engine::Pcre2),
            (r"(?<=the )\w+", Engine::Pcre2),
        ] {
            let got = build(Engine::Auto, pattern).map(|m| m.engine());
            assert_eq!(
                got.as_ref().ok(),
                Some(&expected),
                "auto {pattern:?}: expected {expected:?}, got {got:?}"
            );
        }
        let err = build(Engine::Auto, r"(\w+) \1(").unwrap_err().to_string();
        assert!(
            err.starts_with("regex could not be compiled with either the default regex engine")
                && err.contains("PCRE2 regex engine error:\nPCRE2: error compiling pattern"),
            "got {err:?}"
        );
    }

    #[test]
    fn default_engine_suggests_pcre2_for_backreferences_only() {
        let err = build(Engine::Default, r"(\w+) \1").unwrap_err().to_string();
        assert!(err.ends_with("Consider enabling PCRE2 with the --pcre2 flag, which can handle backreferences\nand look-around."), "got {err:?}");
        let err = build(Engine::Default, "(").unwrap_err().to_string();
        assert!(!err.contains("PCRE2"), "got {err:?}");
    }

    #[test]
    fn pcre2_matches_and_captures_through_the_one_matcher_type() {
        let m = build(Engine::Pcre2, r"(\w)(\w)\1\2").expect("compiles");
        let hay = b"xx abab";
        assert_eq!(m.find(hay).unwrap(), Some(Match::new(3, 7)));
        assert_eq!(m.capture_count(), 3);
        let mut caps = m.new_captures().unwrap();
        assert!(m.captures(hay, &mut caps).unwrap());
        assert_eq!(caps.get(2), Some(Match::new(4, 5)));
        // Captures made by the other engine's matcher are replaced, not misread.
        let rust = build(Engine::Default, "b").expect("compiles");
        let mut foreign = rust.new_captures().unwrap();
        assert!(m.captures(hay, &mut foreign).unwrap());
        assert_eq!(foreign.get(1), Some(Match::new(3, 4)));
    }
}
