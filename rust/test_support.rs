//! Helpers shared by the unit tests of several modules: a tree written from a table of files
//! (in a new temporary directory or under a given one), a path shown as listings show it, and
//! a file's hits (with their text, or without).

use crate::grep::{FileHits, Hit, Span};
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

/// A new temporary directory holding `files` (as `write_files` writes them).
pub fn temp_tree<T: AsRef<[u8]>>(files: &[(&str, T)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path(), files);
    dir
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
            byte_offset: 0,
            content: Span::default(),
            text: Span::default(),
            context: None,
            unique: false,
            ranking: None,
        })
        .collect();
    FileHits {
        count: matches,
        matches,
        ..crate::grep::test_support::file_hits(name, hits, Vec::new())
    }
}
