//! A build's memory budget: posting lists gathered past their share of the budget are written
//! out as a sorted run to an unnamed file next to the index, and the runs are merged trigram
//! by trigram as the index is written, as an external sort does. Without a spill (a tree whose
//! lists fit) the lists go straight from memory to the index.
//!
//! Runs hold consecutive unit ids (chunks are merged in path order, a run is everything merged
//! since the previous one), so the list of a trigram is the union of its lists in run order.

use super::postings::PostingList;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::os::unix::fs::FileExt;

/// The environment variable that sets a build's memory budget.
pub const MEMORY_VARIABLE: &str = "CODESIFT_INDEX_MEMORY";
/// The budget when none is set: 1 GiB.
pub const DEFAULT_MEMORY: u64 = 1 << 30;
/// The smallest budget taken (a smaller one would spill every chunk for nothing).
pub const MIN_MEMORY: u64 = 1 << 20;

/// Where runs go: a new, empty file, made only when the first run is spilled.
pub trait SpillTo {
    fn spill_file(&self) -> io::Result<File>;
}

impl<F: Fn() -> io::Result<File>> SpillTo for F {
    fn spill_file(&self) -> io::Result<File> {
        self()
    }
}

pub type SpillFile<'a> = &'a dyn SpillTo;

/// Unnamed files in the directory (the index's own).
impl SpillTo for crate::fs::dir::Dir {
    fn spill_file(&self) -> io::Result<File> {
        self.unnamed_file()
    }
}

/// The build's memory budget in bytes: `CODESIFT_INDEX_MEMORY` (bytes, or a number with `K`,
/// `M` or `G`), or 1 GiB.
pub fn memory_budget() -> io::Result<u64> {
    match std::env::var(MEMORY_VARIABLE) {
        Err(std::env::VarError::NotPresent) => Ok(DEFAULT_MEMORY),
        Ok(text) => parse_size(&text).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{MEMORY_VARIABLE}={text:?} is not a memory size: give bytes, or a number \
                     with K, M or G (e.g. 512M), or unset it for the default of 1G"
                ),
            )
        }),
        Err(std::env::VarError::NotUnicode(_)) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{MEMORY_VARIABLE} is not text: give a size such as 512M, or unset it"),
        )),
    }
}

/// `"512M"`, `"1g"`, `"300000"`: the bytes, at least `MIN_MEMORY`.
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().last()? {
        (at, c) if c.is_ascii_alphabetic() => (&text[..at], c.to_ascii_uppercase()),
        _ => (text, 'B'),
    };
    let shift = match unit {
        'B' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        _ => return None,
    };
    let number: u64 = digits.trim().parse().ok()?;
    number
        .checked_mul(1 << shift)
        .map(|bytes| bytes.max(MIN_MEMORY))
}

/// Posting lists in trigram order, as the index writer takes them.
pub type Lists<'a> = Box<dyn Iterator<Item = io::Result<(u32, PostingList)>> + 'a>;

/// The posting lists of a build, in memory up to a limit and in spilled runs beyond it.
pub struct Runs<'a> {
    make_file: SpillFile<'a>,
    file: Option<File>,
    /// Each run's byte range in the file.
    runs: Vec<(u64, u64)>,
    written: u64,
}

impl<'a> Runs<'a> {
    pub fn new(make_file: SpillFile<'a>) -> Runs<'a> {
        Runs {
            make_file,
            file: None,
            runs: Vec::new(),
            written: 0,
        }
    }

    /// How many runs were spilled.
    pub fn count(&self) -> usize {
        self.runs.len()
    }

    /// Writes `lists` (sorted by trigram) as one run.
    pub fn spill(&mut self, lists: impl IntoIterator<Item = (u32, PostingList)>) -> io::Result<()> {
        if self.file.is_none() {
            self.file = Some(self.make_file.spill_file()?);
        }
        let file = self.file.as_ref().expect("made above");
        let start = self.written;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        for (trigram, list) in lists {
            out.write_all(&trigram.to_le_bytes())?;
            self.written += 4 + list.write_to(&mut out)?;
        }
        out.flush()?;
        self.runs.push((start, self.written));
        Ok(())
    }

    /// Every list in trigram order: `rest` (sorted, what was gathered since the last spill)
    /// alone when nothing was spilled, else every run merged with `rest` as the last run,
    /// read from memory (written out and read back, it cost the end of a build, when one
    /// thread merges, a write and a read of up to half the budget).
    pub fn merged(mut self, rest: Vec<(u32, PostingList)>) -> io::Result<Lists<'a>> {
        if self.runs.is_empty() {
            return Ok(Box::new(rest.into_iter().map(Ok)));
        }
        let file = std::sync::Arc::new(self.file.take().expect("runs were spilled"));
        let mut readers: Vec<RunReader> = self
            .runs
            .iter()
            .map(|&(start, end)| RunReader::Spilled {
                left: end - start,
                input: BufReader::with_capacity(
                    64 << 10,
                    At {
                        file: file.clone(),
                        pos: start,
                        end,
                    },
                ),
            })
            .chain(std::iter::once(RunReader::Memory(rest.into_iter())))
            .collect();
        let mut heads = BinaryHeap::new();
        let mut pending: Vec<Option<PostingList>> = vec![None; readers.len()];
        for (i, reader) in readers.iter_mut().enumerate() {
            if let Some((trigram, list)) = reader.next_list()? {
                pending[i] = Some(list);
                heads.push(Reverse((trigram, i)));
            }
        }
        Ok(Box::new(Merge {
            readers,
            heads,
            pending,
        }))
    }
}

/// Reads a range of the runs' file from where it has got to (`pread`: runs share the file).
struct At {
    file: std::sync::Arc<File>,
    pos: u64,
    end: u64,
}

impl Read for At {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = (self.end - self.pos).min(buf.len() as u64) as usize;
        if left == 0 {
            return Ok(0);
        }
        let n = self.file.read_at(&mut buf[..left], self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

enum RunReader {
    Spilled {
        input: BufReader<At>,
        /// The bytes of the run not read yet: a run ends there, and a file that ends before
        /// is an error (never a run taken as shorter than it was).
        left: u64,
    },
    /// The lists gathered since the last spill.
    Memory(std::vec::IntoIter<(u32, PostingList)>),
}

impl RunReader {
    fn next_list(&mut self) -> io::Result<Option<(u32, PostingList)>> {
        let (input, left) = match self {
            RunReader::Memory(lists) => return Ok(lists.next()),
            RunReader::Spilled { input, left } => (input, left),
        };
        if *left == 0 {
            return Ok(None);
        }
        let cut_short = || io::Error::other("a spilled run of the index build was cut short");
        let mut trigram = [0u8; 4];
        input.read_exact(&mut trigram).map_err(|_| cut_short())?;
        let rest = left.checked_sub(4).ok_or_else(cut_short)?;
        let (list, took) = PostingList::read_from(input, rest).map_err(|_| cut_short())?;
        *left = rest - took;
        Ok(Some((u32::from_le_bytes(trigram), list)))
    }
}

/// The k-way merge of the runs.
struct Merge {
    readers: Vec<RunReader>,
    /// Each run's next trigram (smallest first; of equal trigrams, the earlier run first).
    heads: BinaryHeap<Reverse<(u32, usize)>>,
    pending: Vec<Option<PostingList>>,
}

impl Merge {
    fn advance(&mut self, run: usize) -> io::Result<PostingList> {
        let list = self.pending[run].take().expect("a run's head is pending");
        if let Some((trigram, next)) = self.readers[run].next_list()? {
            self.pending[run] = Some(next);
            self.heads.push(Reverse((trigram, run)));
        }
        Ok(list)
    }

    fn next_list(&mut self) -> io::Result<Option<(u32, PostingList)>> {
        let Some(Reverse((trigram, run))) = self.heads.pop() else {
            return Ok(None);
        };
        let mut list = self.advance(run)?;
        while let Some(&Reverse((next, run))) = self.heads.peek() {
            if next != trigram {
                break;
            }
            self.heads.pop();
            // Runs hold consecutive units: a later run's ids follow an earlier one's.
            list.append(&self.advance(run)?)?;
        }
        Ok(Some((trigram, list)))
    }
}

impl Iterator for Merge {
    type Item = io::Result<(u32, PostingList)>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_list().transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lists(pairs: &[(u32, &[u32])]) -> Vec<(u32, PostingList)> {
        pairs
            .iter()
            .map(|(t, ids)| (*t, PostingList::from_ids(ids.iter().copied()).unwrap()))
            .collect()
    }

    /// Spills into `file` (kept open by the test to look at).
    fn spill_to(file: &File) -> impl Fn() -> io::Result<File> + use<> {
        let copy = file.try_clone().unwrap();
        move || copy.try_clone()
    }

    #[test]
    fn sizes_are_read_with_their_units() {
        assert_eq!(parse_size("512M"), Some(512 << 20));
        assert_eq!(parse_size("2g"), Some(2 << 30));
        assert_eq!(parse_size(" 3000000 "), Some(3_000_000));
        assert_eq!(parse_size("1K"), Some(MIN_MEMORY), "raised to the minimum");
        for bad in ["", "M", "12X", "-5M", "1.5G", "99999999999999G"] {
            assert_eq!(parse_size(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn without_a_spill_the_lists_come_from_memory_and_no_file_is_made() {
        let make = || -> io::Result<File> { panic!("no file is needed") };
        let runs = Runs::new(&make);
        let rest = lists(&[(1, &[0, 1]), (5, &[2])]);
        let out: Vec<_> = runs
            .merged(rest.clone())
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(out, rest);
    }

    #[test]
    fn runs_merge_into_the_lists_one_pass_would_have_made() {
        let make = || tempfile::tempfile();
        let mut runs = Runs::new(&make);
        runs.spill(lists(&[(1, &[0, 1]), (3, &[1])])).unwrap();
        runs.spill(lists(&[(2, &[5]), (3, &[4, 5])])).unwrap();
        runs.spill(Vec::new()).unwrap();
        assert_eq!(runs.count(), 3);
        let rest = lists(&[(1, &[9]), (4, &[8])]);
        let out: Vec<_> = runs.merged(rest).unwrap().map(Result::unwrap).collect();
        let expected = lists(&[(1, &[0, 1, 9]), (2, &[5]), (3, &[1, 4, 5]), (4, &[8])]);
        assert_eq!(out, expected);
    }

    #[test]
    fn the_lists_gathered_since_the_last_spill_are_merged_from_memory() {
        let file = tempfile::tempfile().unwrap();
        let make = spill_to(&file);
        let mut runs = Runs::new(&make);
        runs.spill(lists(&[(1, &[0]), (3, &[1])])).unwrap();
        let spilled = file.metadata().unwrap().len();
        let rest = lists(&[(1, &[7]), (2, &[8]), (9, &[9])]);
        let out: Vec<_> = runs.merged(rest).unwrap().map(Result::unwrap).collect();
        let expected = lists(&[(1, &[0, 7]), (2, &[8]), (3, &[1]), (9, &[9])]);
        assert_eq!(out, expected);
        assert_eq!(
            file.metadata().unwrap().len(),
            spilled,
            "the last lists were written out"
        );
    }

    #[test]
    fn a_damaged_run_is_an_error_not_a_list() {
        let file = tempfile::tempfile().unwrap();
        let make = spill_to(&file);
        let mut runs = Runs::new(&make);
        runs.spill(lists(&[(1, &[0, 1]), (2, &[3])])).unwrap();
        file.set_len(12).unwrap();
        let failed = match runs.merged(Vec::new()) {
            Err(_) => true,
            Ok(lists) => lists.collect::<Vec<_>>().iter().any(Result::is_err),
        };
        assert!(failed, "a run cut short was read as a whole one");
    }
}
