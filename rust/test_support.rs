//! Helpers shared by the unit tests of several modules: a tree written from a table of files
//! (in a new temporary directory or under a given one), a FIFO, a walker over it and its index, a path shown as listings show it, and
//! a file's hits (with their text, or without).

use crate::grep::{FileHits, Hit};
use std::path::Path;

/// Writes each `(relative path, contents)` under `root`, making directories as needed; a
/// path ending in `/` is a directory (its contents are not used).
pub fn write_files<T: AsRef<[u8]>>(root: &Path, files: &[(&str, T)]) {
    for (rel, contents) in files {
        let path = root.join(rel);
        if rel.ends_with('/') {
            std::fs::create_dir_all(&path).unwrap();
            continue;
        }
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, contents).unwrap();
    }
}

/// Makes a FIFO at `path` (for the tests that a FIFO is never opened as a file to read).
pub fn make_fifo(path: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
}

/// A new temporary directory holding `files` (as `write_files` writes them).
pub fn temp_tree<T: AsRef<[u8]>>(files: &[(&str, T)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), files);
    dir
}

/// A walker over `root` as the tests walk (ignore rules on, hidden files off, 2 threads).
pub fn test_walker(root: &Path) -> crate::fs::walk::Walker {
    crate::fs::walk::Walker::new(
        std::sync::Arc::new(crate::fs::root::Root::open(root).unwrap()),
        crate::fs::walk::WalkOptions::for_tests(false, 2),
    )
}

/// The index of `root` (walked by `test_walker`), written to `out` and opened.
pub fn build_index(root: &Path, out: &Path) -> crate::index::format::IndexFile {
    let output = crate::index::build::Output {
        index: std::fs::File::create(out).unwrap(),
        spill: &tempfile::tempfile,
        memory_budget: crate::index::spill::DEFAULT_MEMORY,
    };
    crate::index::build::build(&test_walker(root), output, 0, &|_, _| {}).unwrap();
    crate::index::format::IndexFile::open(out).unwrap()
}

/// `path` as a listing shows it: a directory with a trailing `/`.
pub fn shown_entry(path: &Path, is_dir: bool) -> String {
    let mut shown = path.to_string_lossy().into_owned();
    if is_dir {
        shown.push('/');
    }
    shown
}

/// The hits of file `name` at `lines` (column 1, no text, none unique), standing for `matches`
/// matches: what paging and totals see of a file.
pub fn blank_hits(name: &str, lines: &[u64], matches: u64) -> FileHits {
    let hits = lines
        .iter()
        .map(|&line| Hit {
            line,
            column: 1,
            end_line: line,
            ..Hit::default()
        })
        .collect();
    FileHits {
        count: matches,
        matches,
        ..crate::grep::test_support::file_hits(name, hits, Vec::new())
    }
}
