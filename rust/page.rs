//! Paging through a search's results: the first `offset` hits of the deterministic order
//! (path, line, column) dropped, so that page N+1 starts where page N ended.

use crate::grep::FileHits;

/// Drops the first `offset` hits of `files` (in order; a file left without hits goes).
pub fn skip_hits(files: &mut Vec<FileHits>, offset: usize) {
    let mut left = offset;
    let mut drop_files = 0;
    for file in files.iter_mut() {
        if left == 0 {
            break;
        }
        if file.hits.len() <= left {
            left -= file.hits.len();
            drop_files += 1;
        } else {
            file.hits.drain(..left);
            left = 0;
        }
    }
    files.drain(..drop_files);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grep::{Hit, Span, TextEncoding};
    use std::path::PathBuf;

    fn file(name: &str, lines: &[u64]) -> FileHits {
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
            })
            .collect();
        FileHits {
            path: PathBuf::from(name),
            hits,
            bytes: Vec::new(),
            count: lines.len() as u64,
            matches: lines.len() as u64,
            size: 0,
            mtime_ns: 0,
            encoding: TextEncoding::Utf8,
        }
    }

    fn flat(files: &[FileHits]) -> Vec<(String, u64)> {
        files
            .iter()
            .flat_map(|f| {
                f.hits
                    .iter()
                    .map(|h| (f.path.to_string_lossy().into_owned(), h.line))
            })
            .collect()
    }

    #[test]
    fn skipping_equals_slicing_the_flat_order() {
        let all = || vec![file("a", &[1, 2, 3]), file("b", &[4]), file("c", &[5, 6])];
        let everything = flat(&all());
        for offset in 0..=everything.len() + 1 {
            let mut files = all();
            skip_hits(&mut files, offset);
            let expected: Vec<_> = everything.iter().skip(offset).cloned().collect();
            assert_eq!(flat(&files), expected, "offset {offset}");
            assert!(files.iter().all(|f| !f.hits.is_empty()));
        }
    }
}
