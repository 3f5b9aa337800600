//! What a file's path says about its hits: a test, vendored or generated file (ranked
//! lower, as Zoekt orders them last), and a file named after the searched identifier.

pub use crate::grep::ranking::FileRole;
use std::path::Path;

/// Directories whose files are someone else's code, copied in.
const VENDORED_DIRS: &[&str] = &[
    "vendor",
    "vendored",
    "third_party",
    "third-party",
    "thirdparty",
    "node_modules",
    "bower_components",
];

/// Directories of tests and their data.
const TEST_DIRS: &[&str] = &[
    "test",
    "tests",
    "testing",
    "__tests__",
    "__mocks__",
    "spec",
    "specs",
    "testdata",
    "test_data",
    "fixtures",
];

/// File name endings of generated code (by convention of the tools that write them).
const GENERATED_SUFFIXES: &[&str] = &[
    ".pb.go",
    ".pb.cc",
    ".pb.h",
    "_pb2.py",
    "_pb2_grpc.py",
    ".min.js",
    ".min.css",
    ".g.dart",
    ".designer.cs",
    ".generated.cs",
    ".generated.ts",
    ".gen.go",
    "_generated.go",
    "_generated.rs",
];

/// File name endings and beginnings of tests in the languages ranked.
const TEST_SUFFIXES: &[&str] = &[
    "_test.go",
    "_test.py",
    "_test.rb",
    "_spec.rb",
    "_test.c",
    "_test.cc",
    "_test.cpp",
    "_test.rs",
    "_tests.rs",
    ".test.js",
    ".test.jsx",
    ".test.ts",
    ".test.tsx",
    ".spec.js",
    ".spec.jsx",
    ".spec.ts",
    ".spec.tsx",
    "test.java",
    "tests.java",
    "test.kt",
    "tests.kt",
    "test.cs",
    "tests.cs",
    "test.php",
];

/// The role of the file at `path` (workspace-relative), from its name and directories alone
/// (its content is not read for this: a search reads only the lines it reports).
pub fn file_role(path: &Path) -> FileRole {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if GENERATED_SUFFIXES.iter().any(|s| name.ends_with(s)) {
        return FileRole::Generated;
    }
    let dirs: Vec<String> = path
        .parent()
        .into_iter()
        .flat_map(|p| p.components())
        .map(|c| c.as_os_str().to_string_lossy().to_ascii_lowercase())
        .collect();
    if dirs.iter().any(|d| VENDORED_DIRS.contains(&d.as_str())) {
        return FileRole::Vendored;
    }
    let test_name = name.starts_with("test_")
        || TEST_SUFFIXES.iter().any(|s| name.ends_with(s))
        || name == "conftest.py";
    if test_name || dirs.iter().any(|d| TEST_DIRS.contains(&d.as_str())) {
        return FileRole::Test;
    }
    if is_prose(path) {
        return FileRole::Prose;
    }
    FileRole::Source
}

/// Prose and configuration (documentation, manifests, data): a question about code is
/// answered by code first, and a name by its definition in code.
pub fn is_prose(path: &Path) -> bool {
    const PROSE: &[&str] = &[
        "md",
        "markdown",
        "rst",
        "txt",
        "adoc",
        "asciidoc",
        "html",
        "htm",
        "yml",
        "yaml",
        "json",
        "toml",
        "xml",
        "csv",
        "lock",
        "cfg",
        "ini",
        "in",
        "tt",
        "svg",
        "properties",
    ];
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| PROSE.contains(&e.to_ascii_lowercase().as_str()))
        || path.file_name().is_some_and(|n| {
            let n = n.to_string_lossy().to_ascii_lowercase();
            n.starts_with("license") || n.starts_with("changelog") || n == "authors"
        })
}

/// A file's stem lowercased once, for every hit of the file to be matched against
/// (`name_match`): a file with thousands of hits pays for one lowercasing.
pub struct Stem(Vec<u8>);

impl Stem {
    pub fn of(path: &Path) -> Stem {
        let stem = path
            .file_stem()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        Stem(stem.into_bytes())
    }

    /// How the file's name relates to `identifier`: 2 when its stem is the identifier (case
    /// ignored: `Kmalloc.java`, `kmalloc.c`), 1 when the stem contains it, else 0. The
    /// identifier is compared as text (bytes that are not UTF-8 as U+FFFD), without copying
    /// it when it is UTF-8.
    pub fn name_match(&self, identifier: &[u8]) -> u8 {
        if identifier.is_empty() || identifier.len() > self.0.len() {
            return 0;
        }
        let identifier = String::from_utf8_lossy(identifier);
        let wanted = identifier.as_bytes();
        if self.0.eq_ignore_ascii_case(wanted) {
            2
        } else if self
            .0
            .windows(wanted.len())
            .any(|part| part.eq_ignore_ascii_case(wanted))
        {
            1
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_come_from_names_and_directories() {
        let cases = [
            ("src/lib.rs", FileRole::Source),
            ("tools/testing/selftests/x.c", FileRole::Test),
            ("pkg/server_test.go", FileRole::Test),
            ("tests/unit/a.py", FileRole::Test),
            ("test_api.py", FileRole::Test),
            ("web/app.spec.ts", FileRole::Test),
            ("src/FooTest.java", FileRole::Test),
            ("vendor/github.com/x/y.go", FileRole::Vendored),
            ("node_modules/a/index.js", FileRole::Vendored),
            ("api/v1/types.pb.go", FileRole::Generated),
            ("static/app.min.js", FileRole::Generated),
            // A directory named like a test only counts as a directory.
            ("src/testing.rs", FileRole::Source),
            ("contest/main.c", FileRole::Source),
        ];
        for (path, want) in cases {
            assert_eq!(file_role(Path::new(path)), want, "{path}");
        }
    }

    fn name_match(path: &Path, identifier: &str) -> u8 {
        Stem::of(path).name_match(identifier.as_bytes())
    }

    #[test]
    fn name_matches_by_stem() {
        assert_eq!(name_match(Path::new("mm/kmalloc.c"), "kmalloc"), 2);
        assert_eq!(name_match(Path::new("mm/Kmalloc.java"), "kmalloc"), 2);
        assert_eq!(name_match(Path::new("mm/kmalloc_test.c"), "kmalloc"), 1);
        assert_eq!(name_match(Path::new("mm/slab.c"), "kmalloc"), 0);
        assert_eq!(name_match(Path::new("kmalloc/slab.c"), "kmalloc"), 0);
        assert_eq!(name_match(Path::new("a.c"), ""), 0);
        // One stem for many identifiers, as a file's hits use it.
        let stem = Stem::of(Path::new("drivers/base/Power_Resume.c"));
        assert_eq!(stem.name_match(b"power_resume"), 2);
        assert_eq!(stem.name_match(b"POWER"), 1);
        assert_eq!(stem.name_match(b"resume_power"), 0);
        assert_eq!(stem.name_match(b"power_resume_all"), 0);
        assert_eq!(stem.name_match(b"\xff"), 0);
        let lossy = Stem::of(Path::new("caf\u{e9}.c"));
        assert_eq!(lossy.name_match("CAF\u{e9}".as_bytes()), 2);
    }
}
