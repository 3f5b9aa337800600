//! Tests of the definitions each language's query finds, in whole files and in windows cut
//! out of them, and of texts that are not code at all.

use super::*;

#[test]
fn every_language_query_compiles() {
    for language in Language::ALL {
        if let Err(err) = language.configuration() {
            panic!("{}: {err}", language.name());
        }
    }
}

/// Prints the syntax tree of $TAGS_DUMP_FILE in $TAGS_DUMP_LANG (a debugging aid).
#[test]
#[ignore]
fn dump() {
    let path = std::env::var("TAGS_DUMP_FILE").unwrap();
    let text = std::fs::read(&path).unwrap();
    let language = Language::of_path(Path::new(&path)).unwrap();
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&language.grammar()).unwrap();
    let tree = parser.parse(&text, None).unwrap();
    println!("{}", tree.root_node().to_sexp());
    for d in definitions(language, &text).unwrap() {
        println!(
            "{} {} {:?} sig={:?}",
            d.line,
            d.kind,
            String::from_utf8_lossy(&text[d.name.clone()]),
            String::from_utf8_lossy(&text[d.signature.clone()])
        );
    }
}
