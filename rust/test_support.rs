//! Helpers shared by the unit tests of several modules: a tree written from a table of files,
//! and a path shown as listings show it.

use std::path::Path;

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
