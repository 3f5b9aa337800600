//! A directory tree for listing: entries in pre-order (each directory's subdirectories first,
//! then its files, each group in byte order, as `list_dir` shows one level), down to a depth,
//! with a cap on the entries returned. Symlinks are shown as what they point to but never
//! entered (no loops, nothing outside the root).

use super::walk::{Listed, Walker};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// One entry of a tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeEntry {
    /// Relative to the listed directory.
    pub rel: PathBuf,
    /// A directory, or a symlink to one.
    pub is_dir: bool,
    pub is_link: bool,
}

#[derive(Debug, Default)]
pub struct Tree {
    pub entries: Vec<TreeEntry>,
    /// Entries of the directories listed: all of them when not truncated, else at least.
    pub total: usize,
    pub truncated: bool,
}

/// The tree under `dir` (workspace-relative, a real location): `depth` levels (1: the
/// directory's own entries; `None`: all), at most `limit` entries. A subdirectory that cannot
/// be listed is shown, empty, and counted by the walker as unreadable.
pub fn tree(
    walker: &Walker,
    dir: &Path,
    depth: Option<usize>,
    limit: usize,
) -> std::io::Result<Tree> {
    let mut out = Tree::default();
    let first = sorted(walker.list_entries(dir)?);
    out.total = first.len();
    // Each level: the directory's path (relative to `dir`) and its entries still to show,
    // reversed so that the next one pops off the end.
    let mut stack: Vec<(PathBuf, Vec<Listed>)> = vec![(PathBuf::new(), reversed(first))];
    while let Some((prefix, pending)) = stack.last_mut() {
        let Some(entry) = pending.pop() else {
            stack.pop();
            continue;
        };
        if out.entries.len() >= limit {
            out.truncated = true;
            break;
        }
        let rel = prefix.join(OsStr::from_bytes(&entry.name));
        out.entries.push(TreeEntry {
            rel: rel.clone(),
            is_dir: entry.is_dir,
            is_link: entry.is_link,
        });
        let level = stack.len();
        if entry.is_dir && !entry.is_link && depth.is_none_or(|d| level < d) {
            let real = dir.join(&rel);
            match walker.list_entries(&real) {
                Ok(children) => {
                    out.total += children.len();
                    stack.push((rel, reversed(sorted(children))));
                }
                Err(_) => walker.stats().add_error_at(&real, true),
            }
        }
    }
    Ok(out)
}

/// Directories first, then files, each by the bytes of the name (a directory's name with its
/// `/`, as `list_dir` sorts `a-b/` before `a/`).
fn sorted(mut entries: Vec<Listed>) -> Vec<Listed> {
    entries.sort_unstable_by(|a, b| b.is_dir.cmp(&a.is_dir).then_with(|| key(a).cmp(key(b))));
    entries
}

fn key(entry: &Listed) -> impl Iterator<Item = u8> + Clone + '_ {
    entry
        .name
        .iter()
        .copied()
        .chain(entry.is_dir.then_some(b'/'))
}

fn reversed(mut entries: Vec<Listed>) -> Vec<Listed> {
    entries.reverse();
    entries
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::root::Root;
    use crate::fs::walk::WalkOptions;
    use crate::test_support::{shown_entry, temp_tree};
    use std::sync::Arc;

    fn walker(root: &Path) -> Walker {
        Walker::new(
            Arc::new(Root::open(root).unwrap()),
            WalkOptions::for_tests(true, 1),
        )
    }

    fn shown(tree: &Tree) -> Vec<String> {
        tree.entries
            .iter()
            .map(|e| shown_entry(&e.rel, e.is_dir))
            .collect()
    }

    fn sample() -> tempfile::TempDir {
        let dir = temp_tree(&[
            ("a/x.txt", "x"),
            ("a/b/y.txt", "x"),
            ("a-b/z.txt", "x"),
            ("top.txt", "x"),
            ("build/out.o", "x"),
            (".gitignore", "build/\n"),
        ]);
        std::os::unix::fs::symlink("a", dir.path().join("link")).unwrap();
        dir
    }

    #[test]
    fn pre_order_dirs_first_with_depth_and_links_not_entered() {
        let dir = sample();
        let w = walker(dir.path());
        let all = tree(&w, Path::new(""), None, 100).unwrap();
        assert_eq!(
            shown(&all),
            vec![
                "a-b/",
                "a-b/z.txt",
                "a/",
                "a/b/",
                "a/b/y.txt",
                "a/x.txt",
                "link/",
                ".gitignore",
                "top.txt"
            ]
        );
        assert!(!all.truncated);
        assert_eq!(all.total, all.entries.len());
        assert!(
            all.entries
                .iter()
                .any(|e| e.is_link && e.rel == Path::new("link"))
        );
        let one = tree(&w, Path::new(""), Some(1), 100).unwrap();
        assert_eq!(
            shown(&one),
            vec!["a-b/", "a/", "link/", ".gitignore", "top.txt"]
        );
        let two = tree(&w, Path::new(""), Some(2), 100).unwrap();
        assert!(shown(&two).contains(&"a/b/".to_string()));
        assert!(!shown(&two).contains(&"a/b/y.txt".to_string()));
    }

    #[test]
    fn the_cap_truncates() {
        let dir = sample();
        let w = walker(dir.path());
        let capped = tree(&w, Path::new(""), None, 3).unwrap();
        assert_eq!(shown(&capped), vec!["a-b/", "a-b/z.txt", "a/"]);
        assert!(capped.truncated);
        let exact = tree(&w, Path::new(""), None, 9).unwrap();
        assert!(!exact.truncated, "{:?}", shown(&exact));
    }
}
