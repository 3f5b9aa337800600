//! C function heads recognised without a parse: most of the windows a ranked search parses
//! in a C tree are a function's head (`static int foo_resume(struct device *dev)` and the
//! `{` opening its body) or a prototype (`int foo_resume(struct device *dev);`), and
//! tree-sitter's C parser takes some 7 to 30 µs of a core for each. A window opening with
//! such a head, in the plain form spelled out here, is a function definition (or a
//! prototype) of that name for tree-sitter and the tag query (`crate::tags`): the name is
//! answered as a "function" (or "prototype") without parsing. Any other window (a comment, a
//! keyword, nested parentheses, a body on the line, anything after the `{`, a macro word
//! where the parser may read it as something else) is left to the parser. The forms
//! accepted are checked against the parser's answers in the tests below, and over every
//! head of the Linux tree (`plain_heads_agree_with_the_parse_over_a_tree`: 808,000 heads
//! and prototypes recognised, none that the parse reads otherwise).

use super::words::WordSet;
use std::ops::Range;

/// Keywords of tree-sitter-c's grammar that may appear in a plain head (before the name, or
/// in its parameters): qualifiers, storage classes and the grammar's primitive types. Any
/// other keyword of the grammar (`typedef`, `return`, `__attribute__`, `asm`, ...) makes a
/// window the parser's.
static HEAD_KEYWORDS: WordSet<23> = WordSet::new([
    b"unsigned",
    b"signed",
    b"long",
    b"short",
    b"int",
    b"char",
    b"void",
    b"bool",
    b"float",
    b"double",
    b"size_t",
    b"ssize_t",
    b"int8_t",
    b"int16_t",
    b"int32_t",
    b"int64_t",
    b"uint8_t",
    b"uint16_t",
    b"uint32_t",
    b"uint64_t",
    b"intptr_t",
    b"uintptr_t",
    b"ptrdiff_t",
]);

/// Qualifiers and storage classes: words of a head that are no type.
static QUALIFIERS: WordSet<5> =
    WordSet::new([b"static", b"extern", b"inline", b"const", b"volatile"]);

/// `struct`, `union`, `enum`: each must name its type (no body in a plain head).
static TAG_KEYWORDS: WordSet<3> = WordSet::new([b"struct", b"union", b"enum"]);

/// Every other identifier tree-sitter-c's grammar reads as a keyword (or a literal).
static OTHER_KEYWORDS: WordSet<75> = WordSet::new([
    b"FALSE",
    b"NULL",
    b"TRUE",
    b"_Alignas",
    b"_Alignof",
    b"_Atomic",
    b"_Generic",
    b"_Nonnull",
    b"_Noreturn",
    b"__alignof",
    b"__alignof__",
    b"__asm",
    b"__asm__",
    b"__attribute",
    b"__attribute__",
    b"__based",
    b"__cdecl",
    b"__clrcall",
    b"__declspec",
    b"__except",
    b"__extension__",
    b"__fastcall",
    b"__finally",
    b"__forceinline",
    b"__inline",
    b"__inline__",
    b"__leave",
    b"__restrict",
    b"__restrict__",
    b"__sptr",
    b"__stdcall",
    b"__thiscall",
    b"__thread",
    b"__try",
    b"__unaligned",
    b"__uptr",
    b"__vectorcall",
    b"__volatile__",
    b"_alignof",
    b"_unaligned",
    b"alignas",
    b"alignof",
    b"asm",
    b"auto",
    b"break",
    b"case",
    b"char16_t",
    b"char32_t",
    b"char64_t",
    b"char8_t",
    b"charptr_t",
    b"constexpr",
    b"continue",
    b"default",
    b"defined",
    b"do",
    b"else",
    b"false",
    b"for",
    b"goto",
    b"if",
    b"max_align_t",
    b"noreturn",
    b"nullptr",
    b"nullptr_t",
    b"offsetof",
    b"register",
    b"restrict",
    b"return",
    b"sizeof",
    b"switch",
    b"thread_local",
    b"true",
    b"typedef",
    b"while",
]);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Token {
    /// An identifier that is no keyword of the grammar (a type's or a function's name).
    Name,
    /// A keyword of `HEAD_KEYWORDS` (a type).
    Plain,
    /// A keyword of `QUALIFIERS`.
    Qualifier,
    /// `struct`, `union` or `enum`.
    Tag,
    Star,
    Comma,
    Ellipsis,
    Open,
    Close,
    Brace,
    Semicolon,
}

/// Where the name of the function whose plain head opens `window` lies in it, and its kind
/// ("function", or "prototype"), when that name is `identifier`, on 1-based line `line` of
/// the window: what tree-sitter's tag query finds for that name. `None`: not a plain head
/// (the parser decides).
///
/// A plain head is: words (a type, qualifiers, storage classes, `struct NAME`) and `*`,
/// the name, `(`, parameters made of words, `*`, `,` and `...` (or none), `)`, `{`, and
/// nothing after but spaces and line ends; or, for a prototype, `;` instead of `{` (what
/// follows it is not read). There is a type before the name; one word more (a function's)
/// is a macro (`static int __maybe_unused f(struct device *dev)`) only where the parser
/// reads it as a function's (`specifiers_and_a_macro`).
pub fn plain_function_head(
    window: &[u8],
    line: u64,
    identifier: &[u8],
) -> Option<(Range<usize>, &'static str)> {
    TOKENS.with(|tokens| match tokens.try_borrow_mut() {
        Ok(mut tokens) => {
            tokens.clear();
            head_of(window, line, identifier, &mut tokens)
        }
        Err(_) => head_of(window, line, identifier, &mut Vec::new()),
    })
}

thread_local! {
    /// The tokens of the window being read: one buffer a thread, not one a window (a
    /// ranked search reads thousands of windows).
    static TOKENS: std::cell::RefCell<Vec<(Token, Range<usize>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// `plain_function_head`, the window's tokens read into `tokens` (empty).
fn head_of(
    window: &[u8],
    line: u64,
    identifier: &[u8],
    tokens: &mut Vec<(Token, Range<usize>)>,
) -> Option<(Range<usize>, &'static str)> {
    let mut at = 0;
    while at < window.len() {
        let byte = window[at];
        let token = match byte {
            b' ' | b'\t' | b'\n' | b'\r' => {
                at += 1;
                continue;
            }
            b'A'..=b'Z' | b'a'..=b'z' | b'_' => {
                let end = window[at..]
                    .iter()
                    .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
                    .map_or(window.len(), |n| at + n);
                // A word running into a byte of another identifier (`$`, UTF-8) is not
                // one this reads.
                if window.get(end).is_some_and(|&b| b == b'$' || b >= 0x80) {
                    return None;
                }
                let word = &window[at..end];
                let token = if HEAD_KEYWORDS.contains(word) {
                    Token::Plain
                } else if QUALIFIERS.contains(word) {
                    Token::Qualifier
                } else if TAG_KEYWORDS.contains(word) {
                    Token::Tag
                } else if OTHER_KEYWORDS.contains(word) {
                    return None;
                } else {
                    Token::Name
                };
                tokens.push((token, at..end));
                at = end;
                continue;
            }
            b'*' => Token::Star,
            b',' => Token::Comma,
            b'(' => Token::Open,
            b')' => Token::Close,
            b'{' => Token::Brace,
            // A prototype's end: what follows it is not read.
            b';' => {
                tokens.push((Token::Semicolon, at..at + 1));
                break;
            }
            b'.' if window[at..].starts_with(b"...") => {
                tokens.push((Token::Ellipsis, at..at + 3));
                at += 3;
                continue;
            }
            _ => return None,
        };
        tokens.push((token, at..at + 1));
        at += 1;
    }
    // The head's end: `(` parameters `)` `{`, and nothing after; or a prototype's `;`.
    let kind = match tokens[..] {
        [.., (Token::Close, _), (Token::Brace, _)] => "function",
        [.., (Token::Close, _), (Token::Semicolon, _)] => "prototype",
        _ => return None,
    };
    let open = tokens.iter().position(|(t, _)| *t == Token::Open)?;
    let parameters = &tokens[open + 1..tokens.len() - 2];
    if !plain_parameters(parameters) {
        return None;
    }
    let (before, name) = match &tokens[..open] {
        [before @ .., (Token::Name, name)] => (before, name.clone()),
        _ => return None,
    };
    if &window[name.clone()] != identifier || line_of(window, name.start) != line {
        return None;
    }
    // `static void __maybe_unused\nf (int a)` defines `__maybe_unused` for the parser.
    let plain = plain_specifiers(before)
        || (kind == "function"
            && named_parameters(parameters)
            && specifiers_and_a_macro(before)
            && before
                .last()
                .is_some_and(|(_, last)| line_of(window, last.start) == line)
            && tokens[open].1.start == name.end);
    plain.then_some((name, kind))
}

/// Whether `tokens` are a plain head's words before its name: qualifiers, one type (a
/// word, `struct`, `union` or `enum` and a word, or a run of the grammar's primitive
/// types: `unsigned long`), then qualifiers and `*`.
fn plain_specifiers(tokens: &[(Token, Range<usize>)]) -> bool {
    plain_declaration(tokens, false)
}

/// Whether `tokens`, the words before a head's name, are those of `plain_specifiers` with
/// one word more: a macro (`__maybe_unused`, `__init`) right before the name or right
/// before a primitive type (`static __maybe_unused int`). The parser reads such a word by
/// context: as a function's only with named parameters (`named_parameters`), the macro
/// on the name's line and the name touching its `(` (`static inline void __maybe_unused
/// f(void)` defines a variable `__maybe_unused` for it), never after a `*` or before
/// `struct` (`pte_t * __init f(...)` defines nothing).
fn specifiers_and_a_macro(tokens: &[(Token, Range<usize>)]) -> bool {
    let without = |at: usize| -> Vec<(Token, Range<usize>)> {
        let mut rest = tokens.to_vec();
        rest.remove(at);
        rest
    };
    match tokens {
        [.., (Token::Star, _), (Token::Name, _)] => false,
        [.., (Token::Name, _)] => plain_specifiers(&without(tokens.len() - 1)),
        _ => tokens.windows(2).enumerate().any(|(at, pair)| {
            matches!(pair, [(Token::Name, _), (Token::Plain, _)]) && plain_specifiers(&without(at))
        }),
    }
}

/// Whether `tokens` are a plain parameter: the words of `plain_specifiers`, then maybe
/// its name.
fn plain_parameter(tokens: &[(Token, Range<usize>)]) -> bool {
    plain_declaration(tokens, true)
}

fn plain_declaration(tokens: &[(Token, Range<usize>)], named: bool) -> bool {
    #[derive(PartialEq)]
    enum State {
        BeforeType,
        AfterTag,
        InPrimitive,
        AfterType,
        Named,
    }
    let mut state = State::BeforeType;
    for (token, _) in tokens {
        state = match (state, token) {
            (State::BeforeType, Token::Qualifier) => State::BeforeType,
            (State::BeforeType, Token::Tag) => State::AfterTag,
            (State::BeforeType | State::InPrimitive, Token::Plain) => State::InPrimitive,
            (State::BeforeType | State::AfterTag, Token::Name) => State::AfterType,
            (State::InPrimitive | State::AfterType, Token::Qualifier | Token::Star) => {
                State::AfterType
            }
            (State::InPrimitive | State::AfterType, Token::Name) if named => State::Named,
            _ => return false,
        };
    }
    matches!(state, State::InPrimitive | State::AfterType | State::Named)
}

/// Whether `tokens` are plain parameters (`plain_parameter`), separated by `,`, and `...`
/// alone last.
fn plain_parameters(tokens: &[(Token, Range<usize>)]) -> bool {
    if tokens.is_empty() {
        return true;
    }
    let count = tokens.split(|(t, _)| *t == Token::Comma).count();
    tokens
        .split(|(t, _)| *t == Token::Comma)
        .enumerate()
        .all(|(n, parameter)| match parameter {
            [(Token::Ellipsis, _)] => n > 0 && n + 1 == count,
            _ => plain_parameter(parameter),
        })
}

/// Whether `tokens` are parameters, each with its name (`int a`, `struct s *b`): no call's
/// arguments can be that (a head with a macro word is read as a function by their names).
fn named_parameters(tokens: &[(Token, Range<usize>)]) -> bool {
    !tokens.is_empty()
        && tokens.split(|(t, _)| *t == Token::Comma).all(|parameter| {
            matches!(parameter, [.., (Token::Name, _)])
                && plain_parameter(parameter)
                && !plain_declaration(parameter, false)
        })
}

/// The 1-based line of byte `at` of `text`.
fn line_of(text: &[u8], at: usize) -> u64 {
    1 + memchr::memchr_iter(b'\n', &text[..at]).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tags::{Language, definitions};

    /// What tree-sitter and the tag query find in `window`: `(name, kind, line)`.
    fn parsed(window: &str) -> Vec<(String, &'static str, u64)> {
        definitions(Language::C, window.as_bytes())
            .unwrap()
            .into_iter()
            .map(|d| (window[d.name].to_string(), d.kind, d.line))
            .collect()
    }

    /// Each window's plain head answer agrees with the parse: the parse finds a definition
    /// of that name on that line, of that kind (a "function" or a "prototype").
    fn agrees(window: &str, name: &str, line: u64) -> Option<&'static str> {
        let (range, kind) = plain_function_head(window.as_bytes(), line, name.as_bytes())?;
        let parsed = parsed(window)
            .into_iter()
            .find(|(found, _, at)| found == name && *at == line)
            .map(|(_, kind, _)| kind);
        assert_eq!(
            parsed,
            Some(kind),
            "recognised {window:?} as the head of {name}, a {kind}; the parse finds {parsed:?}"
        );
        assert_eq!(&window[range], name);
        Some(kind)
    }

    /// `agrees` of each `(window, name, line)` is `expected` (else: `why`).
    fn assert_heads(expected: Option<&str>, why: &str, windows: &[(&str, &str, u64)]) {
        for &(window, name, line) in windows {
            assert_eq!(agrees(window, name, line), expected, "{why}: {window:?}");
        }
    }

    #[test]
    fn plain_heads_are_the_functions_the_parser_finds() {
        assert_heads(
            Some("function"),
            "not recognised",
            &[
                (
                    "static int foo_resume(struct device *dev)\n{\n",
                    "foo_resume",
                    1,
                ),
                (
                    "static int\nfoo_resume(struct device *dev)\n{\n",
                    "foo_resume",
                    2,
                ),
                ("int f(void) {\n", "f", 1),
                (
                    "static inline struct page **\nget_pages(unsigned long n, ...)\n{\n",
                    "get_pages",
                    2,
                ),
                (
                    "const char *name_of(const struct x *a,\n\t\tenum kind k, u32 flags)\n{\r\n",
                    "name_of",
                    1,
                ),
                (
                    "static irqreturn_t handler(int irq, void *data)\n{\n",
                    "handler",
                    1,
                ),
                ("unsigned long long\nsum(void)\n{\n", "sum", 2),
                ("void\tf2()\n{\n", "f2", 1),
                (
                    "static int __maybe_unused dev_resume(struct device *dev)\n{\n",
                    "dev_resume",
                    1,
                ),
                (
                    "static __maybe_unused int rt_resume(struct device *dev)\n{\n",
                    "rt_resume",
                    1,
                ),
                (
                    "asmlinkage void do_resume(struct pt_regs *regs, int in_syscall)\n{\n",
                    "do_resume",
                    1,
                ),
                (
                    "static const struct ops * const *table_of(int)\n{\n",
                    "table_of",
                    1,
                ),
                (
                    "u32 read_reg(u32 reg, unsigned long long v, const void *p)\n{\n",
                    "read_reg",
                    1,
                ),
            ],
        );
    }

    #[test]
    fn plain_prototypes_are_the_prototypes_the_parser_finds() {
        assert_heads(
            Some("prototype"),
            "not recognised",
            &[
                ("int foo(int a);\n", "foo", 1),
                (
                    "extern void do_resume(struct pt_regs *);\nextern int x(unsigned long);\n",
                    "do_resume",
                    1,
                ),
                (
                    "static int\nfoo_resume(struct device *dev);\n#endif\n\n/*\n",
                    "foo_resume",
                    2,
                ),
                (
                    "void cpu_do_resume(void *);\n__ADDRESSABLE(cpu_do_resume);\n#endif /* X */\n",
                    "cpu_do_resume",
                    1,
                ),
                (
                    "int hid_resume(struct hid_device *hdev);\n#else\nstatic inline int hid_resume(struct hid_device *h) { return 0; }\n",
                    "hid_resume",
                    1,
                ),
            ],
        );
        assert_heads(
            None,
            "recognised as a prototype",
            &[
                (
                    "static int __maybe_unused foo(struct device *dev);\n",
                    "foo",
                    1,
                ),
                ("typedef int foo(int a);\n", "foo", 1),
                ("\tfoo(a, b);\n", "foo", 1),
                ("return foo(a);\n", "foo", 1),
                ("int foo(int a) /* x */;\n", "foo", 1),
            ],
        );
    }

    #[test]
    fn other_windows_are_left_to_the_parser() {
        assert_heads(
            None,
            "recognised as a plain head",
            &[
                // A call, a body on the line, a macro, a typedef, no type.
                ("\tfoo(a, b);\n", "foo", 1),
                ("static int foo(void) { return 0; }\n", "foo", 1),
                ("#define foo(x) (x)\n", "foo", 1),
                ("typedef int foo(int a)\n{\n", "foo", 1),
                ("}\nfoo(int a)\n{\n", "foo", 2),
                ("foo(int a)\n{\n", "foo", 1),
                ("return foo(a)\n{\n", "foo", 1),
                // Nested parentheses, an attribute, a comment, an array, K&R parameters.
                ("static void foo(void (*cb)(int))\n{\n", "foo", 1),
                ("static int __attribute__((cold)) foo(void)\n{\n", "foo", 1),
                ("static int foo(void) /* x */\n{\n", "foo", 1),
                ("int foo(int a[4])\n{\n", "foo", 1),
                ("int foo(a, b)\nint a; int b;\n{\n", "foo", 1),
                // Another name, another line, a struct without its name, `...` alone.
                ("int foo(void)\n{\n", "bar", 1),
                ("int foo(void)\n{\n", "foo", 2),
                ("struct *foo(void)\n{\n", "foo", 1),
                ("int foo(...)\n{\n", "foo", 1),
                ("int foo(int a, ..., int b)\n{\n", "foo", 1),
                ("int foo(struct)\n{\n", "foo", 1),
                ("static *foo(void)\n{\n", "foo", 1),
                ("int foo(const *a)\n{\n", "foo", 1),
                ("int foo(,)\n{\n", "foo", 1),
                // Macros among the words where the parser reads them otherwise: `static inline
                // void __maybe_unused f(void)` is no function for it, `static int
                // __maybe_unused f(struct device *dev)` is one.
                (
                    "static void __maybe_unused\nohci_dump(const struct ohci_hcd *ohci)\n{\n",
                    "ohci_dump",
                    2,
                ),
                (
                    "pte_t * __init populate(unsigned long vaddr)\n{\n",
                    "populate",
                    1,
                ),
                (
                    "static __init struct x *find_x(struct b *bp)\n{\n",
                    "find_x",
                    1,
                ),
                (
                    "static int __init __init\nx_init(struct node *node)\n{\n",
                    "x_init",
                    2,
                ),
                (
                    "static inline void __maybe_unused wd_disable(void)\n{\n",
                    "wd_disable",
                    1,
                ),
                ("static void __init setup_x(void)\n{\n", "setup_x", 1),
                (
                    "static int x_resume(struct device *dev, char __user *buf)\n{\n",
                    "x_resume",
                    1,
                ),
                ("int foo(int a)\n{\n\tint b;\n", "foo", 1),
                ("int f$o(int a)\n{\n", "o", 1),
            ],
        );
    }
}
