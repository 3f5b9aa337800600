//! Which files a run searches: the walk (ignore files, hidden, globs, types, depth, links,
//! sort) turned into [`Haystack`]s, or the haystacks the index path chose (`index`). Kept
//! apart from searching and printing so that either source feeds the same search.

use std::path::{Path, PathBuf};

use ignore::{WalkBuilder, WalkState};

use super::args::{Sort, SortKind};
use super::messages;

/// One thing to search: a file (or stdin) and the path to print for it.
#[derive(Clone, Debug)]
pub struct Haystack {
    pub path: PathBuf,
    pub is_stdin: bool,
    /// Named on the command line (binary files are then searched, not skipped).
    pub explicit: bool,
    /// From the index: only these parts of the file can hold a match (read only them when
    /// the file is still the one the index recorded).
    pub spans: Option<crate::index::select::FileSpans>,
}

/// Which files a run searches, settled: ripgrep's walk (`builder`, see `walk::RgWalk`) or
/// the index's list (`listed`), the threads that search them and the order they come in.
pub struct FileSet {
    pub paths: Vec<PathBuf>,
    pub implicit_path: bool,
    pub threads: usize,
    pub sort: Option<Sort>,
    pub builder: WalkBuilder,
    /// The haystacks the index chose (in path order), searched instead of a walk.
    pub listed: Option<Vec<Haystack>>,
    /// Files the walk showed (a large tree is worth an index next time).
    pub visited: std::sync::atomic::AtomicUsize,
    /// The file standard output writes to, when a search writes into one: never searched,
    /// whatever chose the haystacks (the walk or the index).
    pub stdout: Option<StdoutFile>,
}

/// The regular file standard output goes to (`rg pattern > out.txt`). ripgrep never searches
/// it: a search whose output lands in the tree it searches would read its own output back,
/// and with `--sort` grow the file until the disk is full. One check serves every source of
/// haystacks, so that a file list from the index passes it as the walk's entries do.
pub struct StdoutFile {
    dev: u64,
    ino: u64,
}

impl StdoutFile {
    /// Standard output's file, or `None` when it is not a regular file (a pipe or a terminal
    /// is never a haystack, so nothing needs checking then).
    pub fn get() -> Option<StdoutFile> {
        let handle = same_file::Handle::stdout().ok()?;
        let md = handle.as_file().metadata().ok()?;
        md.is_file().then(|| Self::of(&md))
    }

    fn of(md: &std::fs::Metadata) -> StdoutFile {
        use std::os::unix::fs::MetadataExt;
        StdoutFile {
            dev: md.dev(),
            ino: md.ino(),
        }
    }

    /// Whether `path` is that file. `ino`, when the caller knows it already (a walk reads it
    /// with the directory), spares a `stat` for every file but the one with the same inode.
    pub fn is(&self, path: &Path, ino: Option<u64>) -> bool {
        use std::os::unix::fs::MetadataExt;
        if ino.is_some_and(|ino| ino != self.ino) {
            return false;
        }
        std::fs::metadata(path).is_ok_and(|md| md.dev() == self.dev && md.ino() == self.ino)
    }
}

impl Haystack {
    /// A file from a list (the index's, or a kept `--files` list): not named on the command
    /// line, read in `spans` only when given.
    pub fn listed(path: PathBuf, spans: Option<crate::index::select::FileSpans>) -> Haystack {
        Haystack {
            path,
            is_stdin: false,
            explicit: false,
            spans,
        }
    }
}

/// The path printed for a file found under `path`: without its `./` when the path was
/// ripgrep's implicit `./` (no path given), as ripgrep prints it.
pub fn shown_path(path: PathBuf, implicit_path: bool) -> PathBuf {
    match path.strip_prefix("./") {
        Ok(shown) if implicit_path => shown.to_path_buf(),
        _ => path,
    }
}

impl FileSet {
    fn haystack(&self, result: Result<ignore::DirEntry, ignore::Error>) -> Option<Haystack> {
        let dent = match result {
            Ok(dent) => dent,
            Err(err) => {
                messages::err(&err.to_string());
                return None;
            }
        };
        if let Some(err) = dent.error() {
            messages::ignore(&err.to_string());
        }
        let is_stdin = dent.is_stdin();
        let ft = dent.file_type();
        let is_dir =
            ft.is_some_and(|ft| ft.is_dir()) || (dent.path_is_symlink() && dent.path().is_dir());
        let explicit = is_stdin || (dent.depth() == 0 && !is_dir);
        if !explicit && !ft.is_some_and(|ft| ft.is_file()) {
            return None;
        }
        if !is_stdin
            && self
                .stdout
                .as_ref()
                .is_some_and(|out| out.is(dent.path(), dent.ino()))
        {
            return None;
        }
        self.visited
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Some(Haystack {
            path: shown_path(dent.path().to_path_buf(), self.implicit_path),
            is_stdin,
            explicit,
            spans: None,
        })
    }

    /// Whether a haystack the index chose is searched: all but standard output's file.
    fn searched(&self, h: &Haystack) -> bool {
        h.is_stdin
            || !self
                .stdout
                .as_ref()
                .is_some_and(|out| out.is(&h.path, None))
    }

    /// Visits every haystack in order on this thread (sorted when `--sort` asks);
    /// `visit` returns false to stop.
    pub fn sequential(&self, mut visit: impl FnMut(Haystack) -> bool) {
        let walk: Box<dyn Iterator<Item = Haystack>> = match &self.listed {
            Some(listed) => Box::new(listed.iter().filter(|h| self.searched(h)).cloned()),
            None => Box::new(self.builder.build().filter_map(|r| self.haystack(r))),
        };
        match self.sort {
            None
            | Some(Sort {
                kind: SortKind::Path,
                reverse: false,
            }) => {
                for h in walk {
                    if !visit(h) {
                        return;
                    }
                }
            }
            Some(Sort {
                kind: SortKind::Path,
                reverse: true,
            }) => {
                let mut all: Vec<Haystack> = walk.collect();
                all.sort_by(|a, b| b.path.cmp(&a.path));
                for h in all {
                    if !visit(h) {
                        return;
                    }
                }
            }
            Some(Sort { kind, reverse }) => {
                let mut all: Vec<(Haystack, Option<std::time::SystemTime>)> = walk
                    .map(|h| {
                        let md = h.path.metadata();
                        let t = md.and_then(|m| match kind {
                            SortKind::Modified => m.modified(),
                            SortKind::Accessed => m.accessed(),
                            _ => m.created(),
                        });
                        (h, t.ok())
                    })
                    .collect();
                all.sort_by(|(ha, a), (hb, b)| {
                    // Entries whose time is unknown go last in ascending order.
                    let o = match (a, b) {
                        (Some(a), Some(b)) => a.cmp(b),
                        (Some(_), None) => std::cmp::Ordering::Less,
                        (None, Some(_)) => std::cmp::Ordering::Greater,
                        (None, None) => std::cmp::Ordering::Equal,
                    };
                    // Equal times in path order, whichever source listed the files (ripgrep
                    // leaves them in its walk's directory order, which no one can rely on).
                    let o = if reverse { o.reverse() } else { o };
                    o.then_with(|| ha.path.cmp(&hb.path))
                });
                for (h, _) in all {
                    if !visit(h) {
                        return;
                    }
                }
            }
        }
    }

    /// Visits haystacks from `threads` walker threads; each thread gets its own visitor.
    pub fn parallel<'v, F>(&self, mut make: F)
    where
        F: FnMut() -> Box<dyn FnMut(Haystack) -> bool + Send + 'v>,
    {
        if let Some(listed) = &self.listed {
            return parallel_listed(listed, self.threads, |h| self.searched(h), make);
        }
        self.builder.build_parallel().run(|| {
            let mut visit = make();
            Box::new(move |result| match self.haystack(result) {
                Some(h) => {
                    if visit(h) {
                        WalkState::Continue
                    } else {
                        WalkState::Quit
                    }
                }
                None => WalkState::Continue,
            })
        });
    }
}

/// The index's haystacks searched by `threads` threads, each taking the next file of the list
/// (a shared counter: files differ wildly in size, so fixed shares would leave a thread idle).
/// Without `--sort` ripgrep promises no order either; with it the run is sequential.
fn parallel_listed<'v, F>(
    listed: &[Haystack],
    threads: usize,
    searched: impl Fn(&Haystack) -> bool + Sync,
    mut make: F,
) where
    F: FnMut() -> Box<dyn FnMut(Haystack) -> bool + Send + 'v>,
{
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let quit = AtomicBool::new(false);
    let threads = threads.clamp(1, listed.len().max(1));
    let visitors: Vec<_> = (0..threads).map(|_| make()).collect();
    std::thread::scope(|scope| {
        for mut visit in visitors {
            let (next, quit, searched) = (&next, &quit, &searched);
            scope.spawn(move || {
                while !quit.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(h) = listed.get(i) else { break };
                    if !searched(h) {
                        continue;
                    }
                    if !visit(h.clone()) {
                        quit.store(true, Ordering::Relaxed);
                    }
                }
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::temp_tree;

    #[test]
    fn the_output_file_is_known_by_any_name_and_no_other_file_is() {
        let dir = temp_tree(&[("out.txt", ""), ("other.txt", "")]);
        let out = dir.path().join("out.txt");
        std::fs::hard_link(&out, dir.path().join("link.txt")).unwrap();
        let stdout = StdoutFile::of(&std::fs::metadata(&out).unwrap());
        assert!(stdout.is(&out, None));
        assert!(
            stdout.is(&dir.path().join("link.txt"), None),
            "a hard link is the same file"
        );
        assert!(!stdout.is(&dir.path().join("other.txt"), None));
        assert!(!stdout.is(&dir.path().join("missing.txt"), None));
        // A known inode that differs settles it without a stat.
        assert!(!stdout.is(&out, Some(stdout.ino + 1)));
    }
}
