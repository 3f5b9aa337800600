//! What a match's bytes and its line say, without parsing: the identifier it names, whether
//! it is a whole word, and whether its line could define it (what is worth a parse).

pub use crate::grep::ranking::WordFit;
use std::ops::Range;

/// A byte of an identifier in the languages ranked (`$` for JavaScript and PHP).
pub fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// The identifier a match names: the match without the non-word bytes at its ends
/// (`ERR_PTR(` names `ERR_PTR`), when what is left is one word; its range in `content`.
pub fn identifier(content: &[u8]) -> Option<Range<usize>> {
    let start = content.iter().position(|&b| is_word_byte(b))?;
    let end = content.iter().rposition(|&b| is_word_byte(b))? + 1;
    let word = &content[start..end];
    let one_word = word.iter().all(|&b| is_word_byte(b));
    let not_a_number = !word[0].is_ascii_digit();
    (one_word && not_a_number).then_some(start..end)
}

/// How the bytes `range` of `line` sit among its words.
pub fn word_fit(line: &[u8], range: Range<usize>) -> WordFit {
    let before = range.start == 0 || !is_word_byte(line[range.start - 1]);
    let after = range.end >= line.len() || !is_word_byte(line[range.end]);
    match (before, after) {
        (true, true) => WordFit::Whole,
        (false, false) => WordFit::Substring,
        _ => WordFit::Partial,
    }
}

/// A set of short ASCII words (at most 15 bytes), each packed with its length into one
/// `u128`: a word of a line is looked up by integer compares, not a byte comparison with every
/// word of the set, and most words (the set has none of their length and first byte) by one
/// bit test (the shape test runs on every hit of a ranked search).
pub struct WordSet<const N: usize> {
    packed: [u128; N],
    /// Bit `b` of `starts[n]`: a word of `n` bytes starts with byte `b`.
    starts: [u128; 16],
}

impl<const N: usize> WordSet<N> {
    /// The set of `words`; a word longer than 15 bytes, or empty, or not ASCII fails the build.
    pub const fn new(words: [&[u8]; N]) -> WordSet<N> {
        let mut packed = [0u128; N];
        let mut starts = [0u128; 16];
        let mut i = 0;
        while i < N {
            let word = words[i];
            assert!(!word.is_empty() && word.len() <= 15 && word.is_ascii());
            packed[i] = pack(word);
            starts[word.len()] |= 1 << word[0];
            i += 1;
        }
        WordSet { packed, starts }
    }

    pub fn contains(&self, word: &[u8]) -> bool {
        let Some(&first) = word.first() else {
            return false;
        };
        if word.len() > 15 || first >= 128 || self.starts[word.len()] >> first & 1 == 0 {
            return false;
        }
        self.packed.contains(&pack(word))
    }
}

/// `word`'s bytes after its length, as one number (`word` has at most 15 bytes).
const fn pack(word: &[u8]) -> u128 {
    let mut packed = word.len() as u128;
    let mut i = 0;
    while i < word.len() {
        packed |= (word[i] as u128) << (8 * (i + 1));
        i += 1;
    }
    packed
}

/// Words that open a definition in one of the languages ranked, or qualify one.
static DEFINING_WORDS: WordSet<39> = WordSet::new([
    b"abstract",
    b"async",
    b"class",
    b"const",
    b"def",
    b"define",
    b"enum",
    b"export",
    b"extern",
    b"final",
    b"fn",
    b"fun",
    b"func",
    b"function",
    b"impl",
    b"inline",
    b"interface",
    b"internal",
    b"let",
    b"macro_rules",
    b"module",
    b"mod",
    b"namespace",
    b"object",
    b"override",
    b"private",
    b"protected",
    b"pub",
    b"public",
    b"record",
    b"static",
    b"struct",
    b"trait",
    b"type",
    b"typedef",
    b"union",
    b"val",
    b"var",
    b"virtual",
]);

/// Whether the line holding a whole-word match at `range` could define that word, judged
/// by its shape alone; a parse of the lines around it decides (`definitions`). True when a
/// defining word precedes the match on the line (`def`, `fn`, `class`, `#define`, `public`,
/// ...), when the match opens a parameter list on a line that is not a statement (a C, Java
/// or C# function's head: `void *ERR_PTR(long error)`, not `return ERR_PTR(-EINVAL);`), when
/// the line is not indented (a K&R head, a Ruby or Python top level), or when it closes a
/// block (`} name_t;`). A shape test, not a parse: it only chooses what is parsed.
pub fn may_define(line: &[u8], range: Range<usize>) -> bool {
    let head = &line[..range.start];
    let tail = line[range.end..].trim_ascii();
    let text = line.trim_ascii();
    if is_comment(text) {
        return false;
    }
    // A value assigned (`p = ERR_PTR(-EINVAL);`) or a statement's operand after the head
    // (`int f(void) { return ERR_PTR(-ENOSYS); }`) is no name being defined, whatever
    // defining words come before it; a chained assignment (`x = y = 0`) may define `y`.
    if (follows_assignment(head) && !assigns(tail)) || operand_of_statement(head) {
        return false;
    }
    if head
        .split(|&b| !is_word_byte(b))
        .any(|word| DEFINING_WORDS.contains(word))
    {
        return true;
    }
    if !line.first().is_some_and(|b| b.is_ascii_whitespace()) {
        return true;
    }
    if text.starts_with(b"}") {
        return true;
    }
    let statement = text.ends_with(b";") || text.ends_with(b",");
    let head = head.trim_ascii();
    let head_words = || head.split(|&b| !is_word_byte(b)).filter(|w| !w.is_empty());
    let in_code = head_words().any(|word| STATEMENT_WORDS.contains(word));
    if in_code {
        return false;
    }
    if tail.starts_with(b"(") && !statement {
        // A method of a JavaScript class or object has no word before it, but a body.
        if head.is_empty() {
            return text.ends_with(b"{");
        }
        // A head of types and modifiers (`static inline void *`, `List<T>`), not a call
        // through an object or a value (`x = `, `obj.`, `f(`).
        let typed = head
            .iter()
            .all(|&b| is_word_byte(b) || b" \t*&<>[],:".contains(&b));
        return typed && !head.ends_with(b":") && !head.ends_with(b",");
    }
    let assigned = tail.starts_with(b"=") && !tail.starts_with(b"==");
    let labelled = tail.starts_with(b":") && !tail.starts_with(b"::");
    (assigned || labelled) && head.is_empty()
}

/// Whether `head` (a line up to a match) ends with an assignment's `=` (`:=`, `+=`, ... too,
/// not a comparison), maybe with a cast or an operator after it (`= (void *)`, `= &`).
fn follows_assignment(head: &[u8]) -> bool {
    let operators = |head: &[u8]| {
        head.iter()
            .rposition(|b| !b" \t(*&!-~".contains(b))
            .map_or(0, |n| n + 1)
    };
    let mut end = operators(head);
    // A cast: `(void *)`, `(struct foo *)`.
    if head[..end].ends_with(b")")
        && let Some(open) = memchr::memrchr(b'(', &head[..end])
        && head[open + 1..end - 1]
            .iter()
            .all(|&b| is_word_byte(b) || b" \t*".contains(&b))
    {
        end = operators(&head[..open]);
    }
    match head[..end] {
        [.., b'=', b'='] | [.., b'!' | b'<' | b'>', b'='] => false,
        [.., b'='] => true,
        _ => false,
    }
}

/// Whether `tail` (a line after a match, trimmed) opens with an assignment's `=`.
fn assigns(tail: &[u8]) -> bool {
    tail.starts_with(b"=") && !tail.starts_with(b"==") && !tail.starts_with(b"=>")
}

/// Whether the last word of `head` that opens a definition or a statement opens a statement
/// whose operand follows (`return`, `throw`, `if`, ...): the match is in that operand.
fn operand_of_statement(head: &[u8]) -> bool {
    let last = head
        .split(|&b| !is_word_byte(b))
        .rev()
        .find(|word| OPERAND_WORDS.contains(word) || DEFINING_WORDS.contains(word));
    last.is_some_and(|word| OPERAND_WORDS.contains(word))
}

/// Statement words whose operand a match after them is in (not `new`, a C# modifier, nor
/// `for`, which opens Rust's `impl Trait for Type`).
static OPERAND_WORDS: WordSet<12> = WordSet::new([
    b"return", b"throw", b"yield", b"await", b"goto", b"sizeof", b"typeof", b"delete", b"assert",
    b"if", b"while", b"case",
]);

/// Whether a (trimmed) line is a comment's: it opens one (`//`, `/*`, `#` but for the C
/// preprocessor's directives that define, `--`, `<!--`) or continues a block comment (`*`).
/// A parse of a window opening inside a comment reads prose as code (`Will be an ERR_PTR()
/// on error` declares a function), so these lines are never parsed.
fn is_comment(text: &[u8]) -> bool {
    let directive = |rest: &[u8]| {
        let word = rest.trim_ascii_start();
        word.starts_with(b"define") || word.starts_with(b"undef")
    };
    match text {
        [b'/', b'/' | b'*', ..] | [b'-', b'-', ..] | [b'<', b'!', b'-', b'-', ..] => true,
        [b'*'] | [b'*', b' ' | b'\t' | b'/', ..] => true,
        [b'#', rest @ ..] => !directive(rest),
        _ => false,
    }
}

/// Words that put a match in a statement, not in a definition's head.
static STATEMENT_WORDS: WordSet<20> = WordSet::new([
    b"return", b"new", b"await", b"yield", b"throw", b"case", b"else", b"if", b"while", b"for",
    b"in", b"not", b"and", b"or", b"print", b"goto", b"sizeof", b"typeof", b"delete", b"assert",
]);

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: &str, word: &str) -> Range<usize> {
        let start = line.find(word).unwrap();
        start..start + word.len()
    }

    #[test]
    fn identifiers_are_one_word_without_their_punctuation() {
        let cases: [(&str, Option<&str>); 6] = [
            ("ERR_PTR", Some("ERR_PTR")),
            ("ERR_PTR(", Some("ERR_PTR")),
            (" foo_resume(", Some("foo_resume")),
            ("a.b", None),
            ("42", None),
            ("(", None),
        ];
        for (content, want) in cases {
            let got = identifier(content.as_bytes()).map(|r| &content[r]);
            assert_eq!(got, want, "{content:?}");
        }
    }

    #[test]
    fn word_sets_hold_their_words_only() {
        static SET: WordSet<4> = WordSet::new([b"fn", b"static", b"__attribute__", b"a"]);
        for word in [&b"fn"[..], b"static", b"__attribute__", b"a"] {
            assert!(SET.contains(word), "{:?}", String::from_utf8_lossy(word));
        }
        let others = [
            &b""[..],
            b"f",
            b"fn_",
            b"Static",
            b"stati",
            b"__attribute__x",
            b"a\0",
            b"a_very_long_word_of_twenty",
            b"\xff",
        ];
        for word in others {
            assert!(!SET.contains(word), "{:?}", String::from_utf8_lossy(word));
        }
        // Every word of the shape test's sets is found, and no longer word ending like one.
        for word in [&b"macro_rules"[..], b"typedef", b"return", b"assert"] {
            assert!(DEFINING_WORDS.contains(word) || STATEMENT_WORDS.contains(word));
            assert!(!DEFINING_WORDS.contains(&[word, b"x"].concat()));
        }
    }

    #[test]
    fn word_fits() {
        let line = b"x = kmalloc_node(kmalloc, 1)";
        assert_eq!(word_fit(line, 4..11), WordFit::Partial);
        assert_eq!(word_fit(line, 17..24), WordFit::Whole);
        assert_eq!(word_fit(line, 6..11), WordFit::Substring);
        assert_eq!(word_fit(b"a = re_parse(x)", 7..12), WordFit::Partial);
    }

    #[test]
    fn definition_shapes() {
        let yes = [
            (
                "static inline void * __must_check ERR_PTR(long error)",
                "ERR_PTR",
            ),
            ("#define kmalloc(x) foo", "kmalloc"),
            ("    def parse(self):", "parse"),
            ("    public int Parse(string s) {", "Parse"),
            ("\tfn parse(&self) -> u8 {", "parse"),
            ("  parse(text) {", "parse"),
            ("} parser_t;", "parser_t"),
            ("ERR_PTR(long error)", "ERR_PTR"),
            ("  parse: function (x) {", "parse"),
            ("    limit = 10", "limit"),
            // A chained assignment, a named function expression, a C# `new` modifier, a
            // Rust `impl ... for`, a type assigned an object type.
            ("x = y = 0", "y"),
            ("const handler = function irq_handler(irq) {", "irq_handler"),
            ("    public new void Parse(string s) {", "Parse"),
            ("impl Display for Parser {", "Parser"),
            ("type Api = { parse(text: string): void }", "parse"),
            ("static int foo_resume(struct device *dev)", "foo_resume"),
            ("const struct ops *parse_ops(void) {", "parse_ops"),
        ];
        for (line, word) in yes {
            assert!(may_define(line.as_bytes(), at(line, word)), "{line}");
        }
        let no = [
            ("\treturn ERR_PTR(-EINVAL);", "ERR_PTR"),
            ("\t\terr = request_irq(irq, handler,", "request_irq"),
            ("    if x == limit:", "limit"),
            ("    x = parse(text)", "parse"),
            ("\tfoo::bar::parse();", "parse"),
            ("\tcase LIMIT:", "LIMIT"),
            (" * Return: Will be an ERR_PTR() on error or", "ERR_PTR"),
            ("// ERR_PTR(x) makes one", "ERR_PTR"),
            ("# parse(text) is called", "parse"),
            ("/* parse(text) */", "parse"),
            ("    obj.parse(text)", "parse"),
            ("    if (parse(text)) {", "parse"),
            // Values assigned, after defining words or not.
            ("\tstruct sk_buff *segs = ERR_PTR(-EINVAL);", "ERR_PTR"),
            (
                "struct clk *clk = ERR_PTR(-EOPNOTSUPP), *parent;",
                "ERR_PTR",
            ),
            ("static void *p = (void *)kmalloc(8, 0);", "kmalloc"),
            ("	x := parse(text)", "parse"),
            ("const x = parse(text);", "parse"),
            ("let limit = parse(text)", "parse"),
            ("    val total: Int = parse(text)", "parse"),
            // A statement's operand in a one-line body.
            (
                "static inline void *f(void) { return ERR_PTR(-ENOSYS); }",
                "ERR_PTR",
            ),
            ("{ return ERR_PTR(-ENODEV); }", "ERR_PTR"),
            ("pub fn f() -> u8 { if parse(x) { 1 } else { 0 } }", "parse"),
        ];
        for (line, word) in no {
            assert!(!may_define(line.as_bytes(), at(line, word)), "{line}");
        }
    }
}
