//! The regex matcher a search runs, built from ripgrep's pattern flags, and ripgrep's hints
//! after a pattern that does not compile.

use std::io;

use super::args::{Args, BinaryMode, Boundary, CaseMode};

/// The matcher of ripgrep's regex flags for `patterns` (all of them, as alternatives).
pub(super) fn build_matcher(a: &Args, patterns: &[String]) -> io::Result<grep_regex::RegexMatcher> {
    let mut b = grep_regex::RegexMatcherBuilder::new();
    b.multi_line(true)
        .unicode(!a.no_unicode)
        .octal(false)
        .fixed_strings(a.fixed_strings);
    match a.case {
        CaseMode::Sensitive => b.case_insensitive(false),
        CaseMode::Insensitive => b.case_insensitive(true),
        CaseMode::Smart => b.case_smart(true),
    };
    match a.boundary {
        Some(Boundary::Line) => {
            b.whole_line(true);
        }
        Some(Boundary::Word) => {
            b.word(true);
        }
        None => {}
    }
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
    b.build_many(patterns)
        .map_err(|e| io::Error::other(suggest(e.to_string())))
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
