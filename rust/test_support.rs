//! Helpers shared by the unit tests of several modules: a tree written from a table of files,
//! a path shown as listings show it, and a file's hits without text.

use crate::grep::{FileHits, Hit, Span, TextEncoding};
use std::path::{Path, PathBuf};

/// Writes each `(relative path, contents)` under `root`, making directories as needed.
pub fn write_files<T: AsRef<[u8]>>(root: &Path, files: &[(&str, T)]) {
    for (rel, contents) in files {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, contents).unwrap();
    }
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
        path: PathBuf::from(name),
        hits,
        bytes: Vec::new(),
        count: matches,
        matches,
        size: 0,
        mtime_ns: 0,
        encoding: TextEncoding::Utf8,
        continued: false,
    }
}
