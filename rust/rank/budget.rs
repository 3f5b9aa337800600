//! A token budget (`budget_tokens`): the best ranked hits whose text fits in it, each with the
//! head of the definition enclosing it, and what was left out, by file and by directory.

use super::Reading;
use super::definitions::{Source, enclosing};
use crate::grep::{FileHits, Hit};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Bytes a token stands for: the usual estimate for code and English with the tokenizers of
/// today's models (no tokenizer is shipped: the budget is an estimate, said so in the docs).
pub const BYTES_PER_TOKEN: usize = 4;
/// Bytes every hit costs besides its texts: the id, line and column numbers, separators.
const HIT_OVERHEAD: usize = 24;
/// Files and directories named in what was left out, at most (the rest are counted).
const LEFT_OUT_NAMED: usize = 10;
/// Bytes of files kept read for the heads of the hits still to come: a file's hits come in
/// several pieces, each would read it again; past this the kept files are dropped.
const SOURCES_KEPT_BYTES: usize = 64 << 20;

/// What a budget left out: hits not returned, and where they are.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct LeftOut {
    pub hits: u64,
    pub files: u64,
    /// The files with the most hits left out, most first (ties by path).
    pub by_file: Vec<(PathBuf, u64)>,
    /// The directories (two levels deep) with the most hits left out, most first.
    pub by_directory: Vec<(PathBuf, u64)>,
}

/// What a budgeted answer spent and left out.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Spent {
    pub budget_tokens: u64,
    pub tokens: u64,
    pub left_out: LeftOut,
}

/// The tokens `hit` of `file` costs shown without a signature: its path, its line and its
/// context lines, at `BYTES_PER_TOKEN` (a signature's tokens are added once per definition).
fn cost(file: &FileHits, hit: &Hit) -> u64 {
    let context: usize = hit.context.as_ref().map_or(0, |c| {
        c.before.iter().chain(&c.after).map(|s| s.len + 8).sum()
    });
    let bytes = file.path.as_os_str().len() + hit.text.len + context + HIT_OVERHEAD;
    bytes.div_ceil(BYTES_PER_TOKEN) as u64
}

/// `ranked` (pieces, best first) cut to the hits that fit in `budget` tokens, taken best
/// first: a hit that does not fit in what is left is left out and the next ones are tried
/// (a long line does not hide the short ones after it). Each kept hit's ranking gets its
/// enclosing definition's head, paid for once per definition (and left off a hit it would
/// not fit with). Returns the kept pieces and what was spent and left out.
pub fn fit(ranked: Vec<FileHits>, budget: u64, reading: &Reading<'_>) -> (Vec<FileHits>, Spent) {
    let mut kept: Vec<FileHits> = Vec::new();
    let mut tokens = 0u64;
    let mut left: HashMap<PathBuf, u64> = HashMap::new();
    let mut left_hits = 0u64;
    // A signature is paid for once: hits in the same definition share it.
    let mut shown_heads: std::collections::HashSet<(PathBuf, u64)> = Default::default();
    let mut sources = Sources::default();
    for mut piece in ranked {
        let hits = std::mem::take(&mut piece.hits);
        let mut fitting = Vec::new();
        for mut hit in hits {
            let bare = cost(&piece, &hit);
            if tokens + bare > budget {
                left_hits += 1;
                *left.entry(piece.path.clone()).or_default() += 1;
                continue;
            }
            let mut price = bare;
            let line_text = first_line(piece.slice(hit.text));
            let head = sources
                .of(reading, &piece.path)
                .and_then(|source| enclosing(source, hit.line, line_text))
                .filter(|(line, head)| {
                    let new = !shown_heads.contains(&(piece.path.clone(), *line));
                    let extra = if new {
                        head.len().div_ceil(BYTES_PER_TOKEN) as u64
                    } else {
                        0
                    };
                    // A head that does not fit is left off; the hit is shown without it.
                    let fits = tokens + bare + extra <= budget;
                    if fits {
                        price = bare + extra;
                    }
                    fits
                });
            if let Some((line, _)) = &head {
                shown_heads.insert((piece.path.clone(), *line));
            }
            tokens += price;
            if let Some(ranking) = hit.ranking.as_mut() {
                ranking.enclosing = head.map(Box::new);
            }
            fitting.push(hit);
        }
        if !fitting.is_empty() {
            piece.count = fitting.len() as u64;
            piece.matches = fitting.len() as u64;
            piece.hits = fitting;
            kept.push(piece);
        }
    }
    // A file's later pieces continue it only if an earlier piece of it was kept.
    let mut seen = std::collections::HashSet::new();
    for piece in &mut kept {
        piece.continued = !seen.insert(piece.path.clone());
    }
    let spent = Spent {
        budget_tokens: budget,
        tokens,
        left_out: left_out(left, left_hits),
    };
    (kept, spent)
}

/// The files read for heads, each read once while they fit in `SOURCES_KEPT_BYTES`.
#[derive(Default)]
struct Sources {
    read: HashMap<PathBuf, Option<Source>>,
    bytes: usize,
}

impl Sources {
    /// The file `rel` read (`None`: of no language tagged, or unreadable).
    fn of(&mut self, reading: &Reading<'_>, rel: &Path) -> Option<&Source> {
        if !self.read.contains_key(rel) {
            if self.bytes > SOURCES_KEPT_BYTES {
                self.read.clear();
                self.bytes = 0;
            }
            let source = Source::read(reading.root, reading.links, rel);
            self.bytes += source.as_ref().map_or(0, Source::size);
            self.read.insert(rel.to_path_buf(), source);
        }
        self.read.get(rel)?.as_ref()
    }
}

/// A hit's first line (a multiline hit's text holds several), without its line ending.
fn first_line(text: &[u8]) -> &[u8] {
    let line = text.split(|&b| b == b'\n').next().unwrap_or_default();
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The hits left out, by file and by directory two levels deep, most first.
fn left_out(by_file: HashMap<PathBuf, u64>, hits: u64) -> LeftOut {
    let mut by_directory: HashMap<PathBuf, u64> = HashMap::new();
    for (path, count) in &by_file {
        *by_directory.entry(directory_of(path)).or_default() += count;
    }
    let most = |map: HashMap<PathBuf, u64>| {
        let mut list: Vec<(PathBuf, u64)> = map.into_iter().collect();
        list.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        list.truncate(LEFT_OUT_NAMED);
        list
    };
    LeftOut {
        hits,
        files: by_file.len() as u64,
        by_file: most(by_file),
        by_directory: most(by_directory),
    }
}

/// The directory a file is counted under: its first two directories (`drivers/gpu`), or
/// `.` for a file at the top.
fn directory_of(path: &Path) -> PathBuf {
    let dirs: Vec<_> = path
        .parent()
        .into_iter()
        .flat_map(|p| p.components())
        .take(2)
        .collect();
    if dirs.is_empty() {
        PathBuf::from(".")
    } else {
        dirs.iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn left_out_counts_by_file_and_directory() {
        let map: HashMap<PathBuf, u64> = [
            ("drivers/gpu/a.c", 5),
            ("drivers/gpu/drm/b.c", 3),
            ("fs/c.c", 4),
            ("top.c", 1),
        ]
        .into_iter()
        .map(|(p, n)| (PathBuf::from(p), n))
        .collect();
        let out = left_out(map, 13);
        assert_eq!(out.hits, 13);
        assert_eq!(out.files, 4);
        let dirs: Vec<_> = out
            .by_directory
            .iter()
            .map(|(p, n)| (p.to_string_lossy().into_owned(), *n))
            .collect();
        assert_eq!(
            dirs,
            [("drivers/gpu".into(), 8), ("fs".into(), 4), (".".into(), 1)]
        );
        assert_eq!(out.by_file[0], (PathBuf::from("drivers/gpu/a.c"), 5));
    }
}
