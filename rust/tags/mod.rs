//! Definitions in source text, found with tree-sitter tag queries: which names a piece of code
//! defines (functions, classes, types, macros, ...), where, and the head of each definition.
//!
//! Built for ranked search, which asks about a few lines around a candidate hit or about a few
//! whole files: each language's query is compiled once per process and the parser is reused per
//! thread, so a call costs only the parse and the query over its own text.

mod signature;
mod window;

#[cfg(test)]
mod tests;

use std::cell::RefCell;
use std::ops::Range;
use std::path::Path;
use std::sync::OnceLock;

use tree_sitter_tags::{TagsConfiguration, TagsContext};

use crate::error::{Error, Result};

/// The languages whose definitions are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    C,
    Cpp,
    Rust,
    Go,
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Java,
    CSharp,
    Ruby,
    Php,
    Kotlin,
}

/// The bytes of `path`'s file name, as `Path::file_name` gives them: the bytes after its last
/// `/` when they are a name (as in every path a search reports), without parsing the path's
/// components (a ranked search asks for the name of every file with a hit, several times).
pub fn file_name_bytes(path: &Path) -> Option<&[u8]> {
    let bytes = path.as_os_str().as_encoded_bytes();
    let name = memchr::memrchr(b'/', bytes).map_or(bytes, |slash| &bytes[slash + 1..]);
    if name.is_empty() || name == b"." || name == b".." {
        return path.file_name().map(|name| name.as_encoded_bytes());
    }
    Some(name)
}

impl Language {
    /// Every language, in declaration order.
    pub const ALL: [Language; 13] = [
        Language::C,
        Language::Cpp,
        Language::Rust,
        Language::Go,
        Language::Python,
        Language::JavaScript,
        Language::TypeScript,
        Language::Tsx,
        Language::Java,
        Language::CSharp,
        Language::Ruby,
        Language::Php,
        Language::Kotlin,
    ];

    /// The language of a file, by its extension (`.h` is taken as C).
    pub fn of_path(path: &Path) -> Option<Language> {
        // `Path::extension`: after the name's last dot, unless the name starts with it.
        let name = file_name_bytes(path)?;
        let extension = match memchr::memrchr(b'.', name) {
            Some(dot) if dot > 0 => &name[dot + 1..],
            _ => return None,
        };
        Some(match extension {
            b"c" | b"h" => Language::C,
            b"cc" | b"cpp" | b"cxx" | b"c++" | b"hh" | b"hpp" | b"hxx" | b"h++" => Language::Cpp,
            b"rs" => Language::Rust,
            b"go" => Language::Go,
            b"py" | b"pyi" => Language::Python,
            b"js" | b"jsx" | b"mjs" | b"cjs" => Language::JavaScript,
            b"ts" | b"mts" | b"cts" => Language::TypeScript,
            b"tsx" => Language::Tsx,
            b"java" => Language::Java,
            b"cs" => Language::CSharp,
            b"rb" => Language::Ruby,
            b"php" => Language::Php,
            b"kt" | b"kts" => Language::Kotlin,
            _ => return None,
        })
    }

    /// The language's name, as messages and documentation say it.
    pub fn name(self) -> &'static str {
        match self {
            Language::C => "C",
            Language::Cpp => "C++",
            Language::Rust => "Rust",
            Language::Go => "Go",
            Language::Python => "Python",
            Language::JavaScript => "JavaScript",
            Language::TypeScript => "TypeScript",
            Language::Tsx => "TSX",
            Language::Java => "Java",
            Language::CSharp => "C#",
            Language::Ruby => "Ruby",
            Language::Php => "PHP",
            Language::Kotlin => "Kotlin",
        }
    }

    fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::C => tree_sitter_c::LANGUAGE.into(),
            Language::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            Language::Rust => tree_sitter_rust::LANGUAGE.into(),
            Language::Go => tree_sitter_go::LANGUAGE.into(),
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Language::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Language::Java => tree_sitter_java::LANGUAGE.into(),
            Language::CSharp => tree_sitter_c_sharp::LANGUAGE.into(),
            Language::Ruby => tree_sitter_ruby::LANGUAGE.into(),
            Language::Php => tree_sitter_php::LANGUAGE_PHP.into(),
            Language::Kotlin => tree_sitter_kotlin_ng::LANGUAGE.into(),
        }
    }

    /// How the language's definitions open their bodies (where a signature ends).
    fn body(self) -> signature::Body {
        match self {
            Language::Python => signature::Body::Colon,
            Language::Ruby => signature::Body::Line,
            _ => signature::Body::Brace,
        }
    }

    /// The tag query: ours first, then the grammar crates'. Where two patterns tag the same
    /// name, tree-sitter-tags keeps the earlier pattern's tag, so ours (the whole definition as
    /// its range, the precise kind) win and the crates' fill in what ours leave out.
    fn query(self) -> String {
        let c = c_query();
        let ours: &[&str] = match self {
            Language::C => &[&c],
            // The C++ grammar extends C's: C's definitions are C++ definitions too.
            Language::Cpp => &[&c, include_str!("queries/cpp.scm")],
            Language::Rust => &[include_str!("queries/rust.scm")],
            Language::Go => &[include_str!("queries/go.scm")],
            Language::Python => &[include_str!("queries/python.scm")],
            Language::JavaScript => &[ECMASCRIPT_QUERY, include_str!("queries/javascript.scm")],
            Language::TypeScript | Language::Tsx => {
                &[include_str!("queries/typescript.scm"), ECMASCRIPT_QUERY]
            }
            Language::Java => &[include_str!("queries/java.scm")],
            Language::CSharp => &[include_str!("queries/csharp.scm")],
            Language::Ruby => &[include_str!("queries/ruby.scm")],
            Language::Php => &[include_str!("queries/php.scm")],
            Language::Kotlin => &[include_str!("queries/kotlin.scm")],
        };
        let mut query = String::new();
        for part in ours.iter().chain(self.crate_queries()) {
            query.push('\n');
            query.push_str(part);
        }
        query
    }

    /// The tag queries the grammar crates ship for the language.
    fn crate_queries(self) -> &'static [&'static str] {
        match self {
            Language::C => &[tree_sitter_c::TAGS_QUERY],
            Language::Cpp => &[tree_sitter_cpp::TAGS_QUERY],
            Language::Rust => &[tree_sitter_rust::TAGS_QUERY],
            Language::Go => &[tree_sitter_go::TAGS_QUERY],
            Language::Python => &[tree_sitter_python::TAGS_QUERY],
            Language::JavaScript => &[tree_sitter_javascript::TAGS_QUERY],
            // The TypeScript crate's query covers only what TypeScript adds to JavaScript.
            Language::TypeScript | Language::Tsx => &[
                tree_sitter_javascript::TAGS_QUERY,
                tree_sitter_typescript::TAGS_QUERY,
            ],
            Language::Java => &[tree_sitter_java::TAGS_QUERY],
            Language::CSharp => &[tree_sitter_c_sharp::TAGS_QUERY],
            Language::Ruby => &[tree_sitter_ruby::TAGS_QUERY],
            Language::Php => &[tree_sitter_php::TAGS_QUERY],
            // tree-sitter-kotlin-ng ships no tag query: ours is all of it.
            Language::Kotlin => &[],
        }
    }

    /// The language's compiled tag configuration, built on first use.
    fn configuration(self) -> Result<&'static TagsConfiguration> {
        static CONFIGURATIONS: [OnceLock<std::result::Result<TagsConfiguration, String>>; 13] =
            [const { OnceLock::new() }; 13];
        let slot = &CONFIGURATIONS[self as usize];
        slot.get_or_init(|| build_configuration(self))
            .as_ref()
            .map_err(|message| Error::Io(message.clone()))
    }
}

/// codesift's C definitions (see c.scm's comment for why), with the patterns written once for
/// several nodes: the names a typedef and a struct field declare (`c_declarator.scm`), the
/// functions a definition and a prototype name (`c_function.scm`), and the file-scope
/// variable pattern once for each node a declaration is at file scope in: the top level, or
/// a preprocessor conditional there (`c_variable.scm`).
fn c_query() -> String {
    let declarator = include_str!("queries/c_declarator.scm");
    let function = include_str!("queries/c_function.scm");
    let variable = include_str!("queries/c_variable.scm");
    let mut query = String::from(include_str!("queries/c.scm"));
    for (parent, name, kind) in [
        ("type_definition", "type_identifier", "type"),
        ("field_declaration", "field_identifier", "field"),
    ] {
        query.push_str(&filled(
            declarator,
            &[("PARENT", parent), ("NAME", name), ("KIND", kind)],
        ));
    }
    for (parent, kind) in [
        ("function_definition", "function"),
        ("declaration", "prototype"),
    ] {
        query.push_str(&filled(function, &[("PARENT", parent), ("KIND", kind)]));
    }
    for parent in [
        "translation_unit",
        "preproc_if",
        "preproc_ifdef",
        "preproc_else",
        "preproc_elif",
    ] {
        query.push_str(&filled(variable, &[("PARENT", parent)]));
    }
    query
}

/// A query written for several nodes (`queries/c_*.scm`), each of its placeholders (`PARENT`:
/// the node, `NAME`: its name's node, `KIND`: the definition's kind) filled in.
fn filled(template: &str, values: &[(&str, &str)]) -> String {
    let mut query = template.to_string();
    for (placeholder, value) in values {
        query = query.replace(placeholder, value);
    }
    query
}

/// codesift's definitions shared by JavaScript and TypeScript.
const ECMASCRIPT_QUERY: &str = include_str!("queries/ecmascript.scm");

/// A definition found in a text: all positions are byte offsets into that text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    /// The defined name.
    pub name: Range<usize>,
    /// What it defines: "function", "method", "class", "struct", "macro", ... (the KIND of the
    /// query's `@definition.KIND` capture).
    pub kind: &'static str,
    /// The 1-based line of the name.
    pub line: u64,
    /// The whole definition.
    pub range: Range<usize>,
    /// Its head: from the definition's start up to its body's opening `{` (or Python's `:`),
    /// at most 3 lines, trimmed; the name's line where there is no such body.
    pub signature: Range<usize>,
}

/// The definitions in `text` (in `language`), ordered by where their names start, one per name.
/// `text` may be a window cut out of a file (a few lines around a hit): what it leaves open is
/// closed for the parser (see `window`), and PHP without its `<?php` is read as PHP. Text that
/// does not parse (binary data) yields the definitions that the parser could still recognise.
pub fn definitions(language: Language, text: &[u8]) -> Result<Vec<Definition>> {
    let configuration = language.configuration()?;
    let prefix: &[u8] =
        if language == Language::Php && memchr::memmem::find(text, b"<?php").is_none() {
            b"<?php\n"
        } else {
            b""
        };
    let suffix = window::closing(language, text);
    let whole;
    let parsed = if prefix.is_empty() && suffix.is_empty() {
        text
    } else {
        whole = [prefix, text, &suffix].concat();
        &whole[..]
    };
    thread_local! {
        static CONTEXT: RefCell<TagsContext> = RefCell::new(TagsContext::new());
    }
    let tagged = CONTEXT.with(|context| {
        // tree-sitter's code is C and Rust we did not write: a panic in it must not take the
        // caller down, and a context it left half-used is replaced.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut context = context.borrow_mut();
            tag(&mut context, language, configuration, parsed)
        }));
        outcome.unwrap_or_else(|_| {
            *context.borrow_mut() = TagsContext::new();
            Err(format!(
                "tree-sitter failed on this {} text",
                language.name()
            ))
        })
    });
    let tagged = tagged.map_err(|reason| {
        Error::Io(format!(
            "cannot find the definitions in this {} text: {reason}",
            language.name()
        ))
    })?;
    let shift = prefix.len();
    let prefix_lines = memchr::memchr_iter(b'\n', prefix).count() as u64;
    let within = |range: &Range<usize>| {
        range.start.clamp(shift, shift + text.len()) - shift
            ..range.end.clamp(shift, shift + text.len()) - shift
    };
    let mut found: Vec<Definition> = tagged
        .into_iter()
        .filter(|d| d.name.start >= shift && d.name.end <= shift + text.len())
        .map(|d| Definition {
            name: within(&d.name),
            kind: d.kind,
            line: d.line - prefix_lines,
            range: within(&d.range),
            signature: within(&d.signature),
        })
        .collect();
    found.sort_by_key(|definition| (definition.name.start, definition.name.end));
    found.dedup_by_key(|definition| definition.name.clone());
    Ok(found)
}

/// Runs the tag query over `text` and keeps its definitions.
fn tag(
    context: &mut TagsContext,
    language: Language,
    configuration: &'static TagsConfiguration,
    text: &[u8],
) -> std::result::Result<Vec<Definition>, String> {
    let (tags, _has_error) = context
        .generate_tags(configuration, text, None)
        .map_err(|err| err.to_string())?;
    let mut found = Vec::new();
    for tag in tags {
        let tag = tag.map_err(|err| err.to_string())?;
        if !tag.is_definition || tag.name_range.is_empty() {
            continue;
        }
        let kind = kind_name(configuration, tag.syntax_type_id);
        found.push(Definition {
            signature: signature::head(text, &tag.range, &tag.name_range, kind, language.body()),
            line: tag.span.start.row as u64 + 1,
            name: tag.name_range,
            kind,
            range: tag.range,
        });
    }
    Ok(found)
}

/// The kind named by a tag's syntax type, as a `'static` string (the configurations live for
/// the whole process).
fn kind_name(configuration: &'static TagsConfiguration, syntax_type_id: u32) -> &'static str {
    configuration.syntax_type_name(syntax_type_id)
}

/// Compiles a language's tag query with only its patterns that tag a definition or keep a name
/// from being one (`@ignore`, where ours overrule the grammar crate's): the others (references,
/// package names) would cost time and tag nothing we keep, and some are not even valid tag
/// patterns (tree-sitter-c-sharp's `@module`). The patterns are told apart by their brackets
/// (`top_level_patterns`), not by compiling the whole query first: a compile costs about as
/// much as a thousand windows' parses, and the first ranked search of a process pays it.
fn build_configuration(language: Language) -> std::result::Result<TagsConfiguration, String> {
    let bug = |err: &dyn std::fmt::Display| {
        format!(
            "the {} definition query does not compile ({err}); this is a bug in codesift",
            language.name()
        )
    };
    let query = language.query();
    TagsConfiguration::new(language.grammar(), &definition_patterns(&query), "")
        .map_err(|err| bug(&err))
}

/// The patterns of `query` that tag a definition or an `@ignore`, one a line.
fn definition_patterns(query: &str) -> String {
    let mut kept = String::with_capacity(query.len());
    for pattern in top_level_patterns(query) {
        if pattern.contains("@definition.") || pattern.contains("@ignore") {
            kept.push_str(pattern);
            kept.push('\n');
        }
    }
    kept
}

/// The top-level patterns of a tree-sitter query's source, in order: each a bracketed node
/// (`(...)`, `[...]`) or a string, with the captures and quantifiers after it. Comments
/// (`;` to the line's end) and strings are skipped when counting brackets.
fn top_level_patterns(query: &str) -> Vec<&str> {
    let bytes = query.as_bytes();
    let mut patterns = Vec::new();
    let mut depth = 0usize;
    let mut start: Option<usize> = None;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b';' => {
                at = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |n| at + n);
                continue;
            }
            b'"' => {
                if depth == 0 {
                    if let Some(begun) = start.take() {
                        patterns.push(query[begun..at].trim_end());
                    }
                    start = Some(at);
                }
                at += 1;
                while at < bytes.len() && bytes[at] != b'"' {
                    at += if bytes[at] == b'\\' { 2 } else { 1 };
                }
            }
            b'(' | b'[' => {
                if depth == 0 {
                    if let Some(begun) = start.take() {
                        patterns.push(query[begun..at].trim_end());
                    }
                    start = Some(at);
                }
                depth += 1;
            }
            b')' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    if let Some(begun) = start {
        patterns.push(query[begun..].trim_end());
    }
    patterns
}
