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
/// (its content is not read for this: a search reads only the lines it reports). Names are
/// compared with ASCII case ignored, without copying them (the role is asked for every file
/// with a hit).
pub fn file_role(path: &Path) -> FileRole {
    let name = crate::tags::file_name_bytes(path).unwrap_or_default();
    role_in(name, directories_role(path.parent()))
}

/// The roles of files asked for in path order, as `file_role` gives them: what the
/// directories say is worked out once for each run of files in one directory.
#[derive(Default)]
pub struct FileRoles<'a> {
    /// The bytes of the directory last asked about, and what it says.
    last: Option<(&'a [u8], Option<FileRole>)>,
}

impl<'a> FileRoles<'a> {
    pub fn of(&mut self, path: &'a Path) -> FileRole {
        let name = crate::tags::file_name_bytes(path).unwrap_or_default();
        // The path's bytes before its name (the directory and a separator): files with the
        // same are in the same directory. A path whose bytes do not end with its name
        // (`a/b/.`) is not remembered.
        let bytes = path.as_os_str().as_encoded_bytes();
        let Some(directory) = bytes.strip_suffix(name) else {
            return role_in(name, directories_role(path.parent()));
        };
        let dirs = match self.last {
            Some((last, dirs)) if last == directory => dirs,
            _ => {
                let dirs = directories_role(path.parent());
                self.last = Some((directory, dirs));
                dirs
            }
        };
        role_in(name, dirs)
    }
}

/// What the directories `parent` says of its files: vendored, tests, or nothing.
fn directories_role(parent: Option<&Path>) -> Option<FileRole> {
    let dirs = || {
        parent
            .into_iter()
            .flat_map(|p| p.components())
            .map(|c| c.as_os_str().as_encoded_bytes())
    };
    let one_of =
        |dir: &[u8], names: &[&str]| names.iter().any(|n| dir.eq_ignore_ascii_case(n.as_bytes()));
    if dirs().any(|d| one_of(d, VENDORED_DIRS)) {
        Some(FileRole::Vendored)
    } else if dirs().any(|d| one_of(d, TEST_DIRS)) {
        Some(FileRole::Test)
    } else {
        None
    }
}

/// The role of a file named `name` in directories that say `dirs` of it.
fn role_in(name: &[u8], dirs: Option<FileRole>) -> FileRole {
    if GENERATED_SUFFIXES
        .iter()
        .any(|s| ends_with_ignoring_case(name, s))
    {
        return FileRole::Generated;
    }
    if dirs == Some(FileRole::Vendored) {
        return FileRole::Vendored;
    }
    let test_name = starts_with_ignoring_case(name, "test_")
        || TEST_SUFFIXES
            .iter()
            .any(|s| ends_with_ignoring_case(name, s))
        || name.eq_ignore_ascii_case(b"conftest.py");
    if test_name || dirs == Some(FileRole::Test) {
        return FileRole::Test;
    }
    if is_prose_name(name) {
        return FileRole::Prose;
    }
    FileRole::Source
}

/// Whether `name` ends with `suffix` (ASCII), case ignored.
fn ends_with_ignoring_case(name: &[u8], suffix: &str) -> bool {
    name.len() >= suffix.len()
        && name[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
}

/// Whether `name` starts with `prefix` (ASCII), case ignored.
fn starts_with_ignoring_case(name: &[u8], prefix: &str) -> bool {
    name.len() >= prefix.len() && name[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// File name extensions of prose and configuration (`is_prose`).
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

/// Prose and configuration (documentation, manifests, data): a question about code is
/// answered by code first, and a name by its definition in code.
pub fn is_prose(path: &Path) -> bool {
    let name = crate::tags::file_name_bytes(path).unwrap_or_default();
    is_prose_name(name)
}

/// `is_prose` of a file named `name`.
fn is_prose_name(name: &[u8]) -> bool {
    // `Path::extension`: after the last dot, unless the name starts with it (`.bashrc`).
    let extension = match memchr::memrchr(b'.', name) {
        Some(dot) if dot > 0 && name != b".." => Some(&name[dot + 1..]),
        _ => None,
    };
    extension.is_some_and(|e| PROSE.iter().any(|p| e.eq_ignore_ascii_case(p.as_bytes())))
        || starts_with_ignoring_case(name, "license")
        || starts_with_ignoring_case(name, "changelog")
        || name.eq_ignore_ascii_case(b"authors")
}

/// A file's stem as text (bytes that are not UTF-8 as U+FFFD), for every hit of the file to
/// be matched against (`name_match`): borrowed from the path when it is UTF-8, else made once.
pub struct Stem<'a>(std::borrow::Cow<'a, [u8]>);

impl<'a> Stem<'a> {
    pub fn of(path: &'a Path) -> Stem<'a> {
        // `Path::file_stem`: the name before its last dot, unless the name starts with it.
        let name = crate::tags::file_name_bytes(path).unwrap_or_default();
        let stem = match memchr::memrchr(b'.', name) {
            Some(dot) if dot > 0 && name != b".." => &name[..dot],
            _ => name,
        };
        Stem(match String::from_utf8_lossy(stem) {
            std::borrow::Cow::Borrowed(text) => std::borrow::Cow::Borrowed(text.as_bytes()),
            std::borrow::Cow::Owned(text) => std::borrow::Cow::Owned(text.into_bytes()),
        })
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
            // Case is ignored in names and directories, as are bytes that are not UTF-8.
            ("Vendor/x/y.go", FileRole::Vendored),
            ("src/Tests/a.c", FileRole::Test),
            ("API/TYPES.PB.GO", FileRole::Generated),
            ("Test_api.py", FileRole::Test),
            ("docs/README.MD", FileRole::Prose),
            ("LICENSE-MIT", FileRole::Prose),
            ("Authors", FileRole::Prose),
            ("src/authors.rs", FileRole::Source),
            ("b.txtx", FileRole::Source),
        ];
        for (path, want) in cases {
            assert_eq!(file_role(Path::new(path)), want, "{path}");
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let odd = |bytes: &[u8]| file_role(Path::new(std::ffi::OsStr::from_bytes(bytes)));
            assert_eq!(odd(b"t\xffests/a.c"), FileRole::Source);
            assert_eq!(odd(b"tests/\xff.c"), FileRole::Test);
            assert_eq!(odd(b"x/\xff_test.go"), FileRole::Test);
            assert_eq!(odd(b"x/\xffmd"), FileRole::Source);
        }
    }

    #[test]
    fn roles_in_path_order_are_each_files_role() {
        let paths = [
            "a/tests/x.c",
            "a/tests/y_test.go",
            "a/tests/z.md",
            "a/tests2/x.c",
            "a/vendor/tests/x.c",
            "a/vendor/tests/x.pb.go",
            "b/README.md",
            "b/x.c",
            "b/x.c/y.c",
            "b/tests/.",
            "b/tests//x.c",
            "b/tests/x.c/",
            "b/tests/x.c",
            "b/x.c",
            "x.c",
            "test_x.py",
            "vendor",
            "/abs/tests/x.c",
            "",
        ];
        let mut roles = FileRoles::default();
        for path in paths {
            let path = Path::new(path);
            assert_eq!(roles.of(path), file_role(path), "{}", path.display());
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
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let path = Path::new(std::ffi::OsStr::from_bytes(b"Caf\xff.c"));
            assert_eq!(Stem::of(path).name_match("caf\u{fffd}".as_bytes()), 2);
            assert_eq!(Stem::of(path).name_match(b"caf\xfe"), 2);
            assert_eq!(Stem::of(path).name_match(b"CAF"), 1);
        }
        // The stem is `Path::file_stem`'s, whatever the path's shape.
        for path in [
            "a.c",
            "a/b.tar.gz",
            ".bashrc",
            "a/.x.c",
            "a.",
            "a/b/",
            "a/b/.",
            "a/..",
            "..",
            ".",
            "",
            "a//b.rs",
            "Makefile",
        ] {
            let path = Path::new(path);
            let want = path.file_stem().map_or(&[][..], |s| s.as_encoded_bytes());
            assert_eq!(&Stem::of(path).0[..], want, "{path:?}");
        }
    }
}
