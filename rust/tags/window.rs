//! Windows cut out of files: the text ranked search passes (a few lines around a hit) often
//! ends inside a definition, and tree-sitter gives up on a construct it never sees closed.
//! This module says what to append to close it.

use super::Language;

/// What closes every bracket `text` leaves open (innermost first), in Python the head of a
/// `def` or `class` whose parameters are left open (`:` and a `pass` body: a long signature
/// outgrows the window), and in Ruby every block (`end`): appended to a window cut out of a
/// file, it lets the parser see whole definitions. Empty where nothing is left open.
pub fn closing(language: Language, text: &[u8]) -> Vec<u8> {
    let mut open = Vec::new();
    let hash_comments = matches!(language, Language::Python | Language::Ruby | Language::Php);
    let mut at = 0;
    while at < text.len() {
        match text[at] {
            // In Rust a quote is a lifetime (`&'a str`) unless it is a character literal.
            b'\'' if language == Language::Rust && !is_char_literal(text, at) => at += 1,
            b'"' | b'\'' | b'`' => at = past_quoted(text, at),
            b'/' if text.get(at + 1) == Some(&b'/') => at = line_end(text, at),
            b'#' if hash_comments => at = line_end(text, at),
            b'/' if text.get(at + 1) == Some(&b'*') => {
                at = memchr::memmem::find(&text[at + 2..], b"*/")
                    .map_or(text.len(), |end| at + 2 + end + 2);
            }
            byte @ (b'(' | b'[' | b'{') => {
                open.push((byte, at));
                at += 1;
            }
            byte @ (b')' | b']' | b'}') => {
                if let Some(position) = open.iter().rposition(|&(o, _)| closer(o) == byte) {
                    open.truncate(position);
                }
                at += 1;
            }
            _ => at += 1,
        }
    }
    let mut suffix = Vec::new();
    if let Some(&(_, outermost)) = open.first() {
        suffix.push(b'\n');
        suffix.extend(open.iter().rev().map(|&(o, _)| closer(o)));
        if language == Language::Python && opens_a_python_head(text, outermost) {
            suffix.extend_from_slice(b":\n    pass\n");
        }
    }
    if language == Language::Ruby {
        for _ in 0..unclosed_ruby_blocks(text) {
            suffix.extend_from_slice(b"\nend");
        }
    }
    suffix
}

/// Whether the line holding `at` is the head of a Python `def` or `class`.
fn opens_a_python_head(text: &[u8], at: usize) -> bool {
    let start = memchr::memrchr(b'\n', &text[..at]).map_or(0, |n| n + 1);
    let line = text[start..at].trim_ascii_start();
    [&b"def "[..], b"async def ", b"class "]
        .iter()
        .any(|head| line.starts_with(head))
}

/// Whether the quote at `at` starts a character literal (`'{'`, `'\n'`, `'\''`).
fn is_char_literal(text: &[u8], at: usize) -> bool {
    text.get(at + 1) == Some(&b'\\') || text.get(at + 2) == Some(&b'\'')
}

fn closer(opener: u8) -> u8 {
    match opener {
        b'(' => b')',
        b'[' => b']',
        _ => b'}',
    }
}

/// Just past the string or character literal that starts at `at` (or the end of its line).
fn past_quoted(text: &[u8], at: usize) -> usize {
    let quote = text[at];
    let mut next = at + 1;
    while next < text.len() {
        match text[next] {
            b'\\' => next += 2,
            b'\n' if quote != b'`' => return next,
            byte if byte == quote => return next + 1,
            _ => next += 1,
        }
    }
    text.len()
}

fn line_end(text: &[u8], at: usize) -> usize {
    memchr::memchr(b'\n', &text[at..]).map_or(text.len(), |newline| at + newline)
}

/// How many Ruby blocks (`def`, `class`, `if`, `do`, ...) the text opens and does not `end`.
fn unclosed_ruby_blocks(text: &[u8]) -> usize {
    const OPENERS: [&[u8]; 11] = [
        b"def", b"class", b"module", b"if", b"unless", b"while", b"until", b"case", b"begin",
        b"for", b"do",
    ];
    let mut depth = 0usize;
    for line in text.split(|&b| b == b'\n') {
        let line = line.trim_ascii();
        let first_word = line
            .split(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
            .next()
            .unwrap_or_default();
        if OPENERS.contains(&first_word) || contains_word(line, b"do") {
            depth += 1;
        }
        if first_word == b"end" {
            depth = depth.saturating_sub(1);
        }
    }
    depth
}

fn contains_word(line: &[u8], word: &[u8]) -> bool {
    line.split(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .any(|w| w == word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_python_head_left_open_gets_its_colon_and_a_body() {
        let head = "def Field(  # noqa: C901\n    default: Any = X,\n    *,\n    alias: str = (\n";
        let closed = closing(Language::Python, head.as_bytes());
        assert_eq!(String::from_utf8_lossy(&closed), "\n)):\n    pass\n");
        // `definitions` closes a window itself: the head is found as a function.
        let found: Vec<_> = crate::tags::definitions(Language::Python, head.as_bytes())
            .unwrap()
            .into_iter()
            .map(|d| (&head[d.name], d.kind, d.line))
            .collect();
        assert_eq!(found, [("Field", "function", 1)]);
        // A call left open is closed, nothing more.
        let call = closing(Language::Python, b"x = Field(\n    1,\n");
        assert_eq!(String::from_utf8_lossy(&call), "\n)");
    }

    #[test]
    fn open_brackets_are_closed_innermost_first() {
        for (text, expected) in [
            ("fn f() {\n  if x {\n", "\n}}"),
            ("foo(function () {\n  a[1", "\n]})"),
            ("int f() { return \"{(\"; // {\n/* { */", "\n}"),
            ("char c = '{';\n", ""),
            ("done() {}\n", ""),
        ] {
            let actual = closing(Language::C, text.as_bytes());
            assert_eq!(
                String::from_utf8_lossy(&actual),
                expected,
                "closing {text:?}"
            );
        }
    }

    #[test]
    fn rust_lifetimes_are_not_quotes() {
        let text =
            b"impl<'a> W<'a> {\n    fn f(&'a self, c: char) -> &'a str {\n        if c == '{' {\n";
        assert_eq!(
            String::from_utf8_lossy(&closing(Language::Rust, text)),
            "\n}}}"
        );
    }

    #[test]
    fn ruby_blocks_are_ended() {
        let text = b"class A\n  def f(x)\n    if x\n      y\n    end\n    [1].each do |v|\n";
        assert_eq!(
            String::from_utf8_lossy(&closing(Language::Ruby, text)),
            "\nend\nend\nend"
        );
    }
}
