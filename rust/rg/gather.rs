//! Piped output of a parallel search gathered into blocks: each thread's per-file output is
//! appended to one pending block, written when it reaches `BLOCK` bytes or has waited
//! `WAIT`, and at the end.
//!
//! ripgrep writes each file's output with a write of its own. Through the index a dense
//! search prints thousands of files in a fraction of a second: a write each (3,873 for
//! `ERR_PTR` on the Linux tree) woke the reading process as often, and on a machine with two
//! cores that reader took a core from the two searching threads. A terminal, and
//! `--line-buffered`, still get every file as soon as it is searched.

use std::io::{self, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A pending block this long is written at once.
const BLOCK: usize = 64 << 10;
/// Pending output older than this is written when the next file is done: a reader sees
/// the first lines this soon after they were found (while files are being searched).
const WAIT: Duration = Duration::from_millis(10);

/// Where the search threads' output goes: a pending block (`gathered`), or straight
/// through `termcolor::BufferWriter::print`.
pub(super) struct Output<'a, W: Write> {
    direct: &'a termcolor::BufferWriter,
    gathered: Option<Mutex<Pending<W>>>,
}

struct Pending<W: Write> {
    out: W,
    block: Vec<u8>,
    since: Option<Instant>,
    /// Whether a file's output came before (the file separator goes between two).
    printed: bool,
    separator: Option<Vec<u8>>,
}

impl<'a> Output<'a, io::Stdout> {
    /// Output to standard output, gathered when `gather` (not a terminal, no
    /// `--line-buffered`).
    pub(super) fn new(
        direct: &'a termcolor::BufferWriter,
        gather: bool,
        separator: Option<Vec<u8>>,
    ) -> Self {
        Output::with(direct, gather.then(io::stdout), separator)
    }
}

impl<'a, W: Write> Output<'a, W> {
    fn with(
        direct: &'a termcolor::BufferWriter,
        gathered: Option<W>,
        separator: Option<Vec<u8>>,
    ) -> Self {
        Output {
            direct,
            gathered: gathered.map(|out| {
                Mutex::new(Pending {
                    out,
                    block: Vec::new(),
                    since: None,
                    printed: false,
                    separator,
                })
            }),
        }
    }

    /// One file's output (nothing for an empty buffer; the separator before it when a file
    /// was printed before); writes the pending block when it is due.
    pub(super) fn print(&self, buf: &termcolor::Buffer) -> io::Result<()> {
        let Some(gathered) = &self.gathered else {
            return self.direct.print(buf);
        };
        let mut pending = gathered.lock().unwrap_or_else(|e| e.into_inner());
        if !buf.is_empty() {
            let pending = &mut *pending;
            if let (Some(separator), true) = (&pending.separator, pending.printed) {
                pending.block.extend_from_slice(separator);
                pending.block.push(b'\n');
            }
            pending.block.extend_from_slice(buf.as_slice());
            pending.printed = true;
            pending.since.get_or_insert_with(Instant::now);
        }
        if pending.block.len() >= BLOCK || pending.since.is_some_and(|t| t.elapsed() >= WAIT) {
            pending.write()?;
        }
        Ok(())
    }

    /// Writes what is pending (at the end of the search, and before `--stats`).
    pub(super) fn finish(&self) -> io::Result<()> {
        match &self.gathered {
            Some(gathered) => gathered.lock().unwrap_or_else(|e| e.into_inner()).write(),
            None => Ok(()),
        }
    }
}

impl<W: Write> Pending<W> {
    fn write(&mut self) -> io::Result<()> {
        self.since = None;
        if self.block.is_empty() {
            return Ok(());
        }
        // Cleared whatever the outcome: a failed write is reported once, not repeated.
        let written = self
            .out
            .write_all(&self.block)
            .and_then(|()| self.out.flush());
        self.block.clear();
        written
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use termcolor::{BufferWriter, ColorChoice};

    fn buffer(direct: &BufferWriter, text: &[u8]) -> termcolor::Buffer {
        let mut buf = direct.buffer();
        buf.write_all(text).unwrap();
        buf
    }

    /// Counts the writes it takes, keeping their bytes.
    #[derive(Default)]
    struct Writes(Vec<Vec<u8>>);

    impl Write for &mut Writes {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.push(bytes.to_vec());
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn files_are_written_in_one_block_with_separators_between_them() {
        let direct = BufferWriter::stdout(ColorChoice::Never);
        let mut writes = Writes::default();
        {
            let out = Output::with(&direct, Some(&mut writes), Some(b"--".to_vec()));
            for text in [&b"a:1\n"[..], b"", b"b:2\nb:3\n", b"c:4\n"] {
                out.print(&buffer(&direct, text)).unwrap();
            }
            out.finish().unwrap();
            out.finish().unwrap();
        }
        assert_eq!(writes.0, vec![b"a:1\n--\nb:2\nb:3\n--\nc:4\n".to_vec()]);
    }

    #[test]
    fn a_full_block_is_written_at_once() {
        let direct = BufferWriter::stdout(ColorChoice::Never);
        let mut writes = Writes::default();
        let line = vec![b'x'; BLOCK / 2];
        {
            let out = Output::with(&direct, Some(&mut writes), None);
            for _ in 0..3 {
                out.print(&buffer(&direct, &line)).unwrap();
            }
            assert_eq!(
                out.gathered.as_ref().unwrap().lock().unwrap().block.len(),
                line.len()
            );
            out.finish().unwrap();
        }
        let sizes: Vec<usize> = writes.0.iter().map(Vec::len).collect();
        assert_eq!(sizes, vec![BLOCK, BLOCK / 2]);
    }

    #[test]
    fn output_waiting_longer_than_the_wait_is_written_with_the_next_file() {
        let direct = BufferWriter::stdout(ColorChoice::Never);
        let mut writes = Writes::default();
        {
            let out = Output::with(&direct, Some(&mut writes), None);
            out.print(&buffer(&direct, b"first\n")).unwrap();
            std::thread::sleep(WAIT + Duration::from_millis(5));
            // A file without output is enough to write what waited.
            out.print(&buffer(&direct, b"")).unwrap();
            assert!(
                out.gathered
                    .as_ref()
                    .unwrap()
                    .lock()
                    .unwrap()
                    .block
                    .is_empty()
            );
        }
        assert_eq!(writes.0, vec![b"first\n".to_vec()]);
    }
}
