//! Tests of the definitions each language's query finds: in whole files (every kind, and a
//! planted definition among references to it), in windows cut out of files as ranked search
//! passes them, and in texts that are not code at all.

use super::*;

/// `(line, kind, name)` of each definition found in `text`.
fn found(language: Language, text: &str) -> Vec<(u64, &'static str, String)> {
    definitions(language, text.as_bytes())
        .unwrap_or_else(|err| panic!("{}: {err}", language.name()))
        .into_iter()
        .map(|d| {
            (
                d.line,
                d.kind,
                String::from_utf8_lossy(&text.as_bytes()[d.name]).into_owned(),
            )
        })
        .collect()
}

fn assert_definitions(language: Language, text: &str, expected: &[(u64, &str, &str)]) {
    let actual = found(language, text);
    let expected: Vec<(u64, &str, String)> = expected
        .iter()
        .map(|&(line, kind, name)| (line, kind, name.to_string()))
        .collect();
    assert_eq!(
        actual,
        expected,
        "{}: expected (line, kind, name) {expected:#?}\nactual {actual:#?}",
        language.name()
    );
}

/// The definitions named `name` in `text`, as `(line, kind)`.
fn definitions_named(language: Language, text: &str, name: &str) -> Vec<(u64, &'static str)> {
    found(language, text)
        .into_iter()
        .filter(|(_, _, found_name)| found_name == name)
        .map(|(line, kind, _)| (line, kind))
        .collect()
}

/// The signature of the definition named `name` in `text`.
fn signature_of(language: Language, text: &str, name: &str) -> String {
    let definition = definitions(language, text.as_bytes())
        .unwrap()
        .into_iter()
        .find(|d| &text.as_bytes()[d.name.clone()] == name.as_bytes())
        .unwrap_or_else(|| panic!("{}: no definition of {name}", language.name()));
    String::from_utf8_lossy(&text.as_bytes()[definition.signature]).into_owned()
}

#[test]
fn every_language_query_compiles() {
    for language in Language::ALL {
        if let Err(err) = language.configuration() {
            panic!("{}: {err}", language.name());
        }
    }
}

#[test]
fn patterns_are_told_apart_as_the_query_compiler_tells_them() {
    // Split by brackets, each language's query gives the patterns tree-sitter finds in it.
    for language in Language::ALL {
        let query = language.query();
        let compiled = tree_sitter::Query::new(&language.grammar(), &query).unwrap();
        let want: Vec<&str> = (0..compiled.pattern_count())
            .map(|p| {
                let start = compiled.start_byte_for_pattern(p);
                let end = compiled.end_byte_for_pattern(p);
                query[start..end].trim_end()
            })
            .collect();
        let got = super::top_level_patterns(&query);
        assert_eq!(got, want, "{}: the patterns differ", language.name());
    }
}

#[test]
fn languages_are_known_by_their_extensions() {
    for (path, expected) in [
        ("a.c", Some(Language::C)),
        ("include/linux/err.h", Some(Language::C)),
        ("a.hpp", Some(Language::Cpp)),
        ("a.cc", Some(Language::Cpp)),
        ("a.cpp", Some(Language::Cpp)),
        ("a.cxx", Some(Language::Cpp)),
        ("a.hh", Some(Language::Cpp)),
        ("a.rs", Some(Language::Rust)),
        ("a.go", Some(Language::Go)),
        ("a.py", Some(Language::Python)),
        ("a.pyi", Some(Language::Python)),
        ("a.js", Some(Language::JavaScript)),
        ("a.jsx", Some(Language::JavaScript)),
        ("a.mjs", Some(Language::JavaScript)),
        ("a.cjs", Some(Language::JavaScript)),
        ("a.ts", Some(Language::TypeScript)),
        ("a.mts", Some(Language::TypeScript)),
        ("a.cts", Some(Language::TypeScript)),
        ("a.tsx", Some(Language::Tsx)),
        ("A.java", Some(Language::Java)),
        ("a.cs", Some(Language::CSharp)),
        ("a.rb", Some(Language::Ruby)),
        ("a.php", Some(Language::Php)),
        ("a.kt", Some(Language::Kotlin)),
        ("build.gradle.kts", Some(Language::Kotlin)),
        ("README.md", None),
        ("Makefile", None),
        ("a.C", None),
    ] {
        assert_eq!(Language::of_path(Path::new(path)), expected, "{path}");
    }
}

#[test]
fn file_names_and_languages_are_the_paths_own() {
    // As `Path::file_name` and `Path::extension` read them, whatever the path's shape.
    for path in [
        "a.c",
        "drivers/base/power/main.c",
        "a/b/",
        "a/b/.",
        "a/b/..",
        "a//b.rs",
        "./x.py",
        ".",
        "..",
        "",
        "/",
        ".bashrc",
        "dir/.hidden.c",
        "a.",
        "dir.d/Makefile",
        "x/y.tar.gz",
    ] {
        let path = Path::new(path);
        let std_name = path.file_name().map(|n| n.as_encoded_bytes());
        assert_eq!(file_name_bytes(path), std_name, "{path:?}");
        let std_language = path.extension().and_then(|e| e.to_str()).and_then(|e| {
            Language::ALL
                .into_iter()
                .find(|&l| Language::of_path(Path::new(&format!("x.{e}"))) == Some(l))
        });
        assert_eq!(Language::of_path(path), std_language, "{path:?}");
    }
}

#[test]
fn an_empty_text_has_no_definitions() {
    for language in Language::ALL {
        assert_eq!(found(language, ""), [], "{}", language.name());
    }
}

#[test]
fn binary_garbage_and_invalid_utf8_return_without_panicking() {
    // Deterministic pseudo-random bytes (xorshift), NULs and invalid UTF-8 mixed into code.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut random = Vec::with_capacity(64 * 1024);
    while random.len() < 64 * 1024 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        random.extend_from_slice(&state.to_le_bytes());
    }
    let mut mixed = b"int f(\xff\xfe) {\0\0 struct s { \xc3\x28 }; def g():\n\tclass \x80".to_vec();
    mixed.extend_from_slice(&random[..4096]);
    mixed.extend_from_slice(b"\nint planted(void) { return 0; }\n");
    let texts: [&[u8]; 5] = [
        &random,
        &mixed,
        b"\xff\xfe\xfd",
        b"\0\0\0\0",
        b"{{{{(((([[[[",
    ];
    for language in Language::ALL {
        for text in texts {
            let definitions = definitions(language, text)
                .unwrap_or_else(|err| panic!("{}: {err}", language.name()));
            for d in definitions {
                assert!(
                    d.name.start < d.name.end
                        && d.name.end <= text.len()
                        && d.range.start <= d.name.start
                        && d.name.end <= d.range.end
                        && d.range.end <= text.len()
                        && d.signature.start <= d.signature.end
                        && d.signature.end <= text.len()
                        && d.line >= 1,
                    "{}: a definition outside the text: {d:?}",
                    language.name()
                );
            }
        }
    }
}

#[test]
fn definitions_are_ordered_by_name_and_unique() {
    for language in Language::ALL {
        for text in [PLANTED[language as usize].1, PLANTED[language as usize].2] {
            let definitions = definitions(language, text.as_bytes()).unwrap();
            for pair in definitions.windows(2) {
                assert!(
                    pair[0].name.start < pair[1].name.start,
                    "{}: out of order or repeated: {pair:?}",
                    language.name()
                );
            }
        }
    }
}

#[test]
fn the_same_text_gives_the_same_definitions_on_every_thread() {
    let expected = found(Language::Rust, PLANTED[Language::Rust as usize].1);
    let threads: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(|| {
                (0..20)
                    .map(|_| found(Language::Rust, PLANTED[Language::Rust as usize].1))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for thread in threads {
        for actual in thread.join().unwrap() {
            assert_eq!(actual, expected);
        }
    }
}

/// Per language (in `Language::ALL` order): a file with a definition of `planted` and several
/// references to it, every definition it has as `(line, kind, name)`, then a window cut out of
/// a file as ranked search passes it (from a line or two before the definition to a few
/// lines into its body, which is left unclosed) and the line and kind of `planted` in it.
const PLANTED: [Planted; 13] = [
    (
        Language::C,
        "#include \"planted.h\"\n\
         static int planted(int n)\n\
         {\n\
         \treturn n ? planted(n - 1) : 0;\n\
         }\n\
         int caller(void)\n\
         {\n\
         \tint (*f)(int) = planted;\n\
         \treturn planted(1) + f(2);\n\
         }\n",
        "\tcount++;\n\
         \n\
         static inline void * __must_check planted(long error)\n\
         {\n\
         \tif (error > 0)\n\
         \t\treturn planted(error - 1);\n\
         \tpr_info(\"planted %ld\", error);\n\
         \treturn (void *) error;\n",
        &[(2, "function", "planted"), (6, "function", "caller")],
        (3, "function"),
    ),
    (
        Language::Cpp,
        "namespace app {\n\
         int Widget::planted(int n) const {\n\
         \x20   return n ? planted(n - 1) : 0;\n\
         }\n\
         int caller(Widget &w) { return w.planted(1) + app::Widget().planted(2); }\n\
         }\n",
        "// the widget's depth\n\
         template <typename T>\n\
         T *Widget<T>::planted(int n) {\n\
         \x20   if (n > 0)\n\
         \x20       return planted(n - 1);\n\
         \x20   log(\"planted\");\n\
         \x20   return nullptr;\n",
        &[
            (1, "namespace", "app"),
            (2, "method", "planted"),
            (5, "function", "caller"),
        ],
        (3, "method"),
    ),
    (
        Language::Rust,
        "use crate::planted;\n\
         pub fn planted(n: u32) -> u32 {\n\
         \x20   if n == 0 { 0 } else { planted(n - 1) }\n\
         }\n\
         fn caller() -> u32 {\n\
         \x20   let f = planted;\n\
         \x20   planted(1) + f(2)\n\
         }\n",
        "\n\
         impl Widget {\n\
         \x20   pub fn planted<'a>(&'a self, n: u32) -> &'a str {\n\
         \x20       if n > 0 {\n\
         \x20           return self.planted(n - 1);\n\
         \x20       }\n\
         \x20       let planted = \"planted\";\n",
        &[(2, "function", "planted"), (5, "function", "caller")],
        (3, "method"),
    ),
    (
        Language::Go,
        "package app\n\
         \n\
         func planted(n int) int {\n\
         \tif n == 0 {\n\
         \t\treturn 0\n\
         \t}\n\
         \treturn planted(n - 1)\n\
         }\n\
         \n\
         func caller() int {\n\
         \tf := planted\n\
         \treturn planted(1) + f(2)\n\
         }\n",
        "}\n\
         \n\
         func (w *Widget) planted(n int) int {\n\
         \tif n > 0 {\n\
         \t\treturn w.planted(n - 1)\n\
         \t}\n\
         \tlog.Print(\"planted\")\n",
        &[(3, "function", "planted"), (10, "function", "caller")],
        (3, "method"),
    ),
    (
        Language::Python,
        "from app import planted as other\n\
         \n\
         def planted(n):\n\
         \x20   return planted(n - 1) if n else 0\n\
         \n\
         def caller():\n\
         \x20   f = planted\n\
         \x20   return planted(1) + f(2)\n",
        "\n\
         class Widget:\n\
         \x20   def planted(self, n: int) -> int:\n\
         \x20       if n > 0:\n\
         \x20           return self.planted(n - 1)\n\
         \x20       planted = 'planted'\n\
         \x20       return n\n",
        &[(3, "function", "planted"), (6, "function", "caller")],
        (3, "method"),
    ),
    (
        Language::JavaScript,
        "import { planted as other } from './planted.js';\n\
         function planted(n) {\n\
         \x20 return n ? planted(n - 1) : 0;\n\
         }\n\
         function caller() {\n\
         \x20 const f = planted;\n\
         \x20 return planted(1) + f(2);\n\
         }\n",
        "\n\
         export const planted = async (n) => {\n\
         \x20 if (n > 0) {\n\
         \x20   return planted(n - 1);\n\
         \x20 }\n\
         \x20 console.log('planted');\n",
        &[(2, "function", "planted"), (5, "function", "caller")],
        (2, "function"),
    ),
    (
        Language::TypeScript,
        "import { planted as other } from './planted';\n\
         export interface planted {\n\
         \x20 depth: number;\n\
         }\n\
         function caller(p: planted): planted {\n\
         \x20 const q: planted = p;\n\
         \x20 return q as planted;\n\
         }\n",
        "\n\
         export function planted<T>(n: number, value: T): T {\n\
         \x20 if (n > 0) {\n\
         \x20   return planted(n - 1, value);\n\
         \x20 }\n\
         \x20 console.log('planted');\n",
        &[
            (2, "interface", "planted"),
            (3, "field", "depth"),
            (5, "function", "caller"),
        ],
        (2, "function"),
    ),
    (
        Language::Tsx,
        "import { planted as other } from './planted';\n\
         export type planted = { depth: number };\n\
         function Caller(p: planted) {\n\
         \x20 const q: planted = p;\n\
         \x20 return <div title={String(q as planted)} />;\n\
         }\n",
        "\n\
         export const planted = ({ depth }: Props): JSX.Element => {\n\
         \x20 if (depth > 0) {\n\
         \x20   return <Planted depth={depth - 1} />;\n\
         \x20 }\n\
         \x20 return <div className=\"planted\">\n",
        &[
            (2, "type", "planted"),
            (2, "field", "depth"),
            (3, "function", "Caller"),
        ],
        (2, "function"),
    ),
    (
        Language::Java,
        "import static app.Util.planted;\n\
         class Widget {\n\
         \x20   int planted(int n) {\n\
         \x20       return n > 0 ? planted(n - 1) : 0;\n\
         \x20   }\n\
         \x20   int caller() { return this.planted(1) + planted(2); }\n\
         }\n",
        "\n\
         \x20   @Override\n\
         \x20   public <T> List<T> planted(int n) throws IOException {\n\
         \x20       if (n > 0) {\n\
         \x20           return planted(n - 1);\n\
         \x20       }\n\
         \x20       log.info(\"planted\");\n",
        &[
            (2, "class", "Widget"),
            (3, "method", "planted"),
            (6, "method", "caller"),
        ],
        (3, "method"),
    ),
    (
        Language::CSharp,
        "using static App.Util;\n\
         class Widget {\n\
         \x20   int Planted(int n) {\n\
         \x20       return n > 0 ? Planted(n - 1) : 0;\n\
         \x20   }\n\
         \x20   int Caller() { return this.Planted(1) + Planted(2); }\n\
         }\n",
        "\n\
         \x20   [Obsolete]\n\
         \x20   public async Task<int> Planted(int n) {\n\
         \x20       if (n > 0) {\n\
         \x20           return await Planted(n - 1);\n\
         \x20       }\n\
         \x20       Log(\"Planted\");\n",
        &[
            (2, "class", "Widget"),
            (3, "method", "Planted"),
            (6, "method", "Caller"),
        ],
        (3, "function"),
    ),
    (
        Language::Ruby,
        "require 'planted'\n\
         def planted(n)\n\
         \x20 n > 0 ? planted(n - 1) : 0\n\
         end\n\
         def caller\n\
         \x20 planted(1) + self.planted(2)\n\
         end\n",
        "\n\
         \x20 def self.planted(n)\n\
         \x20   if n > 0\n\
         \x20     return planted(n - 1)\n\
         \x20   end\n\
         \x20   puts 'planted'\n",
        &[(2, "method", "planted"), (5, "method", "caller")],
        (2, "method"),
    ),
    (
        Language::Php,
        "<?php\n\
         use function App\\planted;\n\
         function planted($n) {\n\
         \x20   return $n > 0 ? planted($n - 1) : 0;\n\
         }\n\
         function caller() {\n\
         \x20   return planted(1) + \\App\\planted(2);\n\
         }\n",
        "<?php\n\
         \x20   public static function planted(int $n): int {\n\
         \x20       if ($n > 0) {\n\
         \x20           return self::planted($n - 1);\n\
         \x20       }\n\
         \x20       echo 'planted';\n",
        &[(3, "function", "planted"), (6, "function", "caller")],
        // Cut out of its class, a method reads as a function (also in C# and Kotlin).
        (2, "function"),
    ),
    (
        Language::Kotlin,
        "import app.planted\n\
         fun planted(n: Int): Int {\n\
         \x20   return if (n > 0) planted(n - 1) else 0\n\
         }\n\
         fun caller(): Int {\n\
         \x20   val f = ::planted\n\
         \x20   return planted(1) + f(2)\n\
         }\n",
        "\n\
         \x20   override suspend fun <T> planted(n: Int, value: T): T {\n\
         \x20       if (n > 0) {\n\
         \x20           return planted(n - 1, value)\n\
         \x20       }\n\
         \x20       println(\"planted\")\n",
        &[(2, "function", "planted"), (5, "function", "caller")],
        (2, "function"),
    ),
];

#[test]
fn signatures_are_definition_heads() {
    let c = "static inline void * __must_check ERR_PTR(long error)\n{\n\treturn (void *) error;\n}\n\
             int\nmulti(int a,\n      int b)\n{\n\treturn a;\n}\n\
             #define LIMIT { 1, 2 }\n";
    let python = "class A(Base):\n    def f(self, d: Dict[str, int] = {}) -> int:  # note\n        return 1\n";
    let rust = "fn longest<'a>(x: &'a str, y: &'a str) -> &'a str {\n    x\n}\n";
    let java = "class A {\n    @Override\n    public String toString() {\n        return \"{\";\n    }\n}\n";
    let long_head =
        "int\nlong_head(int a,\n          int b,\n          int c,\n          int d)\n{\n}\n";
    for (language, text, name, expected) in [
        (
            Language::C,
            c,
            "ERR_PTR",
            "static inline void * __must_check ERR_PTR(long error)",
        ),
        (Language::C, c, "multi", "int\nmulti(int a,\n      int b)"),
        (Language::C, c, "LIMIT", "#define LIMIT { 1, 2 }"),
        (
            Language::C,
            long_head,
            "long_head",
            "int\nlong_head(int a,\n          int b,",
        ),
        (Language::Python, python, "A", "class A(Base)"),
        (
            Language::Python,
            python,
            "f",
            "def f(self, d: Dict[str, int] = {}) -> int",
        ),
        (
            Language::Rust,
            rust,
            "longest",
            "fn longest<'a>(x: &'a str, y: &'a str) -> &'a str",
        ),
        (
            Language::Java,
            java,
            "toString",
            "@Override\n    public String toString()",
        ),
        (
            Language::Ruby,
            "def area(w, h)\n  {w: w}\nend\n",
            "area",
            "def area(w, h)",
        ),
    ] {
        assert_eq!(
            signature_of(language, text, name),
            expected,
            "{}: the signature of {name}",
            language.name()
        );
    }
}

/// A language, a file, its definitions as `(line, kind, name)`, a window, and `planted`'s
/// `(line, kind)` in the window.
type Planted = (
    Language,
    &'static str,
    &'static str,
    &'static [(u64, &'static str, &'static str)],
    (u64, &'static str),
);

#[test]
fn a_planted_definition_is_found_among_its_references() {
    for (language, file, _, expected, _) in PLANTED {
        assert_definitions(language, file, expected);
    }
}

#[test]
fn a_definition_is_found_in_a_window_that_cuts_it_off() {
    let mut failures = Vec::new();
    for (language, _, window, _, expected) in PLANTED {
        let actual = definitions_named(language, window, "planted");
        let actual_any_case = definitions_named(language, window, "Planted");
        let actual = if actual.is_empty() {
            actual_any_case
        } else {
            actual
        };
        if actual != [expected] {
            failures.push(format!(
                "{}: expected [{expected:?}], actual {actual:?}",
                language.name()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn c_definitions_of_every_kind() {
    let text = r#"#define MAX_ERRNO 4095
#define IS_ERR_VALUE(x) unlikely((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)
static inline void * __must_check ERR_PTR(long error)
{
	return (void *) error;
}
static inline long __must_check PTR_ERR(__force const void *ptr)
{
	return (long) ptr;
}
struct foo { int a; int (*open)(int); };
union u { int a; };
enum color { RED, GREEN };
typedef struct foo foo_t;
typedef int (*cb_t)(int);
int counter = 0;
static const struct file_operations my_fops = { .open = 0 };
int proto(int x);
char *strdup2(const char *s) { return 0; }
union u var_u;
enum color var_c;
"#;
    assert_definitions(
        Language::C,
        text,
        &[
            (1, "macro", "MAX_ERRNO"),
            (2, "macro", "IS_ERR_VALUE"),
            (3, "function", "ERR_PTR"),
            (7, "function", "PTR_ERR"),
            (11, "struct", "foo"),
            (11, "field", "a"),
            (11, "field", "open"),
            (12, "union", "u"),
            (12, "field", "a"),
            (13, "enum", "color"),
            (13, "constant", "RED"),
            (13, "constant", "GREEN"),
            (14, "type", "foo_t"),
            (15, "type", "cb_t"),
            (16, "variable", "counter"),
            (17, "variable", "my_fops"),
            (18, "prototype", "proto"),
            (19, "function", "strdup2"),
            (20, "variable", "var_u"),
            (21, "variable", "var_c"),
        ],
    );
}

#[test]
fn cpp_definitions_of_every_kind() {
    let text = r#"namespace ns {
class Widget : public Base {
public:
    Widget();
    ~Widget();
    int size() const { return n_; }
    void draw(int x);
private:
    int n_;
};
}
void ns::Widget::draw(int x) {
}
Widget::~Widget() {}
std::string &name_of(Widget *w) { return w->name; }
template <typename T> T max_of(T a, T b) { return a > b ? a : b; }
using Alias = std::vector<int>;
class Fwd;
"#;
    assert_definitions(
        Language::Cpp,
        text,
        &[
            (1, "namespace", "ns"),
            (2, "class", "Widget"),
            (4, "prototype", "Widget"),
            (6, "method", "size"),
            (7, "prototype", "draw"),
            (9, "field", "n_"),
            (12, "method", "draw"),
            (14, "method", "~Widget"),
            (15, "function", "name_of"),
            (16, "function", "max_of"),
            (17, "type", "Alias"),
        ],
    );
}

#[test]
fn rust_definitions_of_every_kind() {
    let text = r#"pub struct Point { pub x: i32, y: i32 }
enum Shape { Circle, Square }
union U { a: u32 }
type Alias = Vec<u8>;
pub trait Draw { type Out; fn draw(&self) -> u32; fn done(&self) {} }
const MAX: usize = 3;
static COUNT: u32 = 0;
macro_rules! my_macro { () => {} }
mod inner;
impl Draw for Point {
    type Out = ();
    fn draw<'a>(&self, s: &'a str) -> &'a str { s }
}
pub fn free(x: i32) -> i32 where i32: Copy {
    x
}
"#;
    assert_definitions(
        Language::Rust,
        text,
        &[
            (1, "struct", "Point"),
            (1, "field", "x"),
            (1, "field", "y"),
            (2, "enum", "Shape"),
            (3, "union", "U"),
            (3, "field", "a"),
            (4, "type", "Alias"),
            (5, "trait", "Draw"),
            (5, "type", "Out"),
            (5, "method", "draw"),
            (5, "method", "done"),
            (6, "constant", "MAX"),
            (7, "variable", "COUNT"),
            (8, "macro", "my_macro"),
            (9, "module", "inner"),
            (11, "type", "Out"),
            (12, "method", "draw"),
            (14, "function", "free"),
        ],
    );
}

#[test]
fn go_definitions_of_every_kind() {
    let text = r#"package main

const Max = 3
var Global int
var (
	A = 1
	B = 2
)
type Point struct {
	X int
}
type Shape interface {
	Area() float64
}
type Alias = int
type ID int

func Free(x int) int {
	y := 3
	return x + y
}

func (p *Point) Move(dx int) {
}
"#;
    assert_definitions(
        Language::Go,
        text,
        &[
            (3, "constant", "Max"),
            (4, "variable", "Global"),
            (6, "variable", "A"),
            (7, "variable", "B"),
            (9, "struct", "Point"),
            (10, "field", "X"),
            (12, "interface", "Shape"),
            (13, "method", "Area"),
            (15, "type", "Alias"),
            (16, "type", "ID"),
            (18, "function", "Free"),
            (23, "method", "Move"),
        ],
    );
}

#[test]
fn python_definitions_of_every_kind() {
    let text = r#"MAX = 3

class Widget(Base):
    size = 3

    def __init__(self, x: int) -> None:
        self.x = x

    @property
    def area(self) -> Dict[str, int]:  # comment
        return {}

def free(a, b={"k": 1}):
    def inner():
        pass
    return a
"#;
    assert_definitions(
        Language::Python,
        text,
        &[
            (1, "constant", "MAX"),
            (3, "class", "Widget"),
            (4, "field", "size"),
            (6, "method", "__init__"),
            (10, "method", "area"),
            (13, "function", "free"),
            (14, "function", "inner"),
        ],
    );
}

#[test]
fn javascript_definitions_of_every_kind() {
    let text = r#"const MAX = 3;
export const helper = (a) => a + 1;
function free(x) {
  return x;
}
class Widget extends Base {
  count = 0;
  constructor() { super(); }
  draw(ctx) {
    return ctx;
  }
}
var old = function () {};
module.exports.run = () => {};
let plain;
"#;
    assert_definitions(
        Language::JavaScript,
        text,
        &[
            (1, "variable", "MAX"),
            (2, "function", "helper"),
            (3, "function", "free"),
            (6, "class", "Widget"),
            (7, "field", "count"),
            (9, "method", "draw"),
            (13, "function", "old"),
            (14, "function", "run"),
            (15, "variable", "plain"),
        ],
    );
}

#[test]
/// TSX is TypeScript with JSX: the same file gives the same definitions in both.
fn typescript_and_tsx_definitions_of_every_kind() {
    let text = r#"export interface Shape {
  area(): number;
  name: string;
}
export type Alias = string | number;
enum Color { Red, Green }
namespace NS { export const x = 1; }
export class Widget implements Shape {
  private count: number = 0;
  area(): number { return 1; }
}
export const helper = (a: number): string => {
  return "";
};
export function free<T>(x: T): T { return x; }
abstract class Base { abstract run(): void; }
declare function ext(a: string): void;
"#;
    for language in [Language::TypeScript, Language::Tsx] {
        assert_definitions(
            language,
            text,
            &[
                (1, "interface", "Shape"),
                (2, "method", "area"),
                (3, "field", "name"),
                (5, "type", "Alias"),
                (6, "enum", "Color"),
                (7, "namespace", "NS"),
                (8, "class", "Widget"),
                (9, "field", "count"),
                (10, "method", "area"),
                (12, "function", "helper"),
                (15, "function", "free"),
                (16, "class", "Base"),
                (16, "method", "run"),
                (17, "function", "ext"),
            ],
        );
    }
}

#[test]
fn java_definitions_of_every_kind() {
    let text = r#"package p;
@interface Marker {}
public class Widget extends Base implements Shape {
    private int count = 0;
    static final int MAX = 3;
    public Widget() {}
    @Override
    public int area(int x) {
        return x;
    }
}
interface Shape { int area(int x); int K = 1; }
enum Color { RED, GREEN; void f() {} }
record Pair(int a, int b) {}
"#;
    assert_definitions(
        Language::Java,
        text,
        &[
            (2, "interface", "Marker"),
            (3, "class", "Widget"),
            (4, "field", "count"),
            (5, "field", "MAX"),
            (6, "constructor", "Widget"),
            (8, "method", "area"),
            (12, "interface", "Shape"),
            (12, "method", "area"),
            (12, "constant", "K"),
            (13, "enum", "Color"),
            (13, "constant", "RED"),
            (13, "constant", "GREEN"),
            (13, "method", "f"),
            (14, "class", "Pair"),
        ],
    );
}

#[test]
fn csharp_definitions_of_every_kind() {
    let text = r#"namespace App.Core {
public class Widget : Base, IShape {
    private int count = 0;
    public int Size { get; set; }
    public Widget() {}
    public int Area(int x) { return x; }
}
interface IShape { int Area(int x); }
struct Point { public int X; }
enum Color { Red, Green }
record Pair(int A, int B);
delegate void Handler(int x);
}
"#;
    assert_definitions(
        Language::CSharp,
        text,
        &[
            (1, "namespace", "App.Core"),
            (2, "class", "Widget"),
            (3, "field", "count"),
            (4, "property", "Size"),
            (5, "constructor", "Widget"),
            (6, "method", "Area"),
            (8, "interface", "IShape"),
            (8, "method", "Area"),
            (9, "struct", "Point"),
            (9, "field", "X"),
            (10, "enum", "Color"),
            (10, "constant", "Red"),
            (10, "constant", "Green"),
            (11, "class", "Pair"),
            (12, "type", "Handler"),
        ],
    );
}

#[test]
fn ruby_definitions_of_every_kind() {
    let text = r#"module Shapes
  MAX = 10
  class Widget < Base
    def initialize(x)
      @x = x
    end

    def self.build
      new(1)
    end

    def area
      {a: 1}
    end
  end
end
"#;
    assert_definitions(
        Language::Ruby,
        text,
        &[
            (1, "module", "Shapes"),
            (2, "constant", "MAX"),
            (3, "class", "Widget"),
            (4, "method", "initialize"),
            (8, "method", "build"),
            (12, "method", "area"),
        ],
    );
}

#[test]
fn php_definitions_of_every_kind() {
    let text = r#"<?php
namespace App\Core;
const LIMIT = 5;
interface Shape { function area(); }
trait Greets { public function hello() {} }
enum Suit { case Hearts; }
class Widget extends Base implements Shape {
    const MAX = 3;
    public $count = 0;
    public function area() {
        return 1;
    }
}
function free($x) {
    return $x;
}
"#;
    assert_definitions(
        Language::Php,
        text,
        &[
            (2, "namespace", "App\\Core"),
            (3, "constant", "LIMIT"),
            (4, "interface", "Shape"),
            (4, "method", "area"),
            (5, "trait", "Greets"),
            (5, "method", "hello"),
            (6, "enum", "Suit"),
            (7, "class", "Widget"),
            (8, "constant", "MAX"),
            (9, "field", "count"),
            (10, "method", "area"),
            (14, "function", "free"),
        ],
    );
}

#[test]
fn kotlin_definitions_of_every_kind() {
    let text = r#"package p

typealias Alias = List<Int>
interface Shape { fun area(): Int }
enum class Color { RED, GREEN }
object Registry { val items = 1 }
data class Pair(val a: Int, val b: Int)
class Widget(val x: Int) : Shape {
    var count: Int = 0
    override fun area(): Int {
        return x
    }
    companion object Factory { fun make() = Widget(1) }
}
val top = 3
fun free(x: Int): Int = x
fun <T> generic(x: T): T {
    return x
}
"#;
    assert_definitions(
        Language::Kotlin,
        text,
        &[
            (3, "type", "Alias"),
            (4, "interface", "Shape"),
            (4, "method", "area"),
            (5, "enum", "Color"),
            (5, "constant", "RED"),
            (5, "constant", "GREEN"),
            (6, "object", "Registry"),
            (6, "property", "items"),
            (7, "class", "Pair"),
            (8, "class", "Widget"),
            (9, "property", "count"),
            (10, "method", "area"),
            (13, "object", "Factory"),
            (13, "method", "make"),
            (15, "property", "top"),
            (16, "function", "free"),
            (17, "function", "generic"),
        ],
    );
}
