//! Searching one haystack and printing its results with ripgrep's printers (standard,
//! summary for counts and file lists, JSON), binary detection chosen per haystack as
//! ripgrep does (explicit files are searched, walked binary files are skipped).

use std::io;

use grep_printer::{JSON, Standard, Stats, Summary};
use grep_searcher::{BinaryDetection, Searcher};
use termcolor::WriteColor;

use super::haystack::Haystack;
use super::matcher::RgMatcher;
use crate::index::select::FileSpans;

/// The printer of one search, as ripgrep builds it from its flags (`grep_printer`'s
/// standard, summary or JSON printer). Not the engine's `crate::print::Printer`, which
/// prints codesift's own hits for `codesift grep`: ripgrep's output is grep_printer's, to
/// the byte.
pub enum RgPrinter<W> {
    Standard(Standard<W>),
    Summary(Summary<W>),
    Json(JSON<W>),
}

impl<W: WriteColor> RgPrinter<W> {
    pub fn get_mut(&mut self) -> &mut W {
        match self {
            RgPrinter::Standard(p) => p.get_mut(),
            RgPrinter::Summary(p) => p.get_mut(),
            RgPrinter::Json(p) => p.get_mut(),
        }
    }
}

pub struct SearchResult {
    pub has_match: bool,
    pub stats: Option<Stats>,
}

/// Runs `$search` (searcher `$s` with matcher `$m` into `&mut $sink`) into a sink of the
/// worker's printer for haystack `$h`, and returns what the sink saw. A macro, not a
/// function: each printer's sink is its own type, and a search is generic over its sink.
macro_rules! printed {
    ($worker:ident, $h:expr, |$s:ident, $m:ident, $sink:ident| $search:expr) => {{
        let ($m, $s) = (&$worker.matcher, &mut $worker.searcher);
        let path = $h.path.as_path();
        match &mut $worker.printer {
            RgPrinter::Standard(p) => {
                printed!(@sink p, $m, path, $sink, $search, $sink.stats().cloned())
            }
            RgPrinter::Summary(p) => {
                printed!(@sink p, $m, path, $sink, $search, $sink.stats().cloned())
            }
            RgPrinter::Json(p) => {
                printed!(@sink p, $m, path, $sink, $search, Some($sink.stats().clone()))
            }
        }
    }};
    (@sink $p:ident, $m:ident, $path:ident, $sink:ident, $search:expr, $stats:expr) => {{
        let mut $sink = $p.sink_with_path($m, $path);
        $search?;
        Ok(SearchResult {
            has_match: $sink.has_match(),
            stats: $stats,
        })
    }};
}

/// A matcher, a searcher and a printer: what each search thread owns.
pub struct Worker<W> {
    pub matcher: RgMatcher,
    pub searcher: Searcher,
    pub printer: RgPrinter<W>,
    pub binary_explicit: BinaryDetection,
    pub binary_implicit: BinaryDetection,
    /// `-z`: compressed files are read through their decompression tool.
    pub decompress: Option<grep_cli::DecompressionReaderBuilder>,
    /// `--pre` and `--pre-glob`.
    pub preprocessor: Option<std::path::PathBuf>,
    pub preprocessor_globs: ignore::overrides::Override,
}

impl<W: WriteColor> Worker<W> {
    pub fn search(&mut self, h: &Haystack) -> io::Result<SearchResult> {
        let bin = if h.explicit {
            &self.binary_explicit
        } else {
            &self.binary_implicit
        };
        self.searcher.set_binary_detection(bin.clone());
        if h.is_stdin {
            let stdin = io::stdin();
            let mut lock = stdin.lock();
            self.search_reader(h, &mut lock)
        } else if self.should_preprocess(&h.path) {
            self.search_preprocessor(h)
        } else if self
            .decompress
            .as_ref()
            .is_some_and(|d| d.get_matcher().has_command(&h.path))
        {
            let mut rdr = self.decompress.as_ref().expect("checked").build(&h.path)?;
            let result = self.search_reader(h, &mut rdr);
            let closed = rdr.close();
            let result = result?;
            closed?;
            Ok(result)
        } else if let Some(spans) = &h.spans {
            self.search_spans(h, spans)
        } else {
            self.search_path(h)
        }
    }

    /// Searches only the parts of the file the index says can hold a match, each preceded
    /// by as many empty lines as the file has before it (no bytes read for them), so that
    /// the printer numbers the lines as in the whole file; `span_reads` allows this only
    /// where nothing printed depends on the rest of the file. A file that is not the one the
    /// index recorded any more (or cannot be read in parts) is searched whole.
    fn search_spans(&mut self, h: &Haystack, spans: &FileSpans) -> io::Result<SearchResult> {
        use std::os::unix::fs::{FileExt, MetadataExt};
        let file = std::fs::File::open(&h.path)?;
        let md = file.metadata()?;
        let same = md.is_file()
            && md.size() == spans.size
            && md.ino() == spans.ino
            && md.mtime() * 1_000_000_000 + md.mtime_nsec() == spans.mtime_ns
            && md.ctime() * 1_000_000_000 + md.ctime_nsec() == spans.ctime_ns;
        if !same {
            return self.search_path(h);
        }
        if !spans_fit(spans) {
            return self.search_path(h);
        }
        let mut text = Vec::new();
        let mut line = 1u64;
        for &(offset, len, first_line) in &spans.spans {
            if first_line > line {
                text.resize(text.len() + (first_line - line) as usize, b'\n');
                line = first_line;
            }
            let start = text.len();
            text.resize(start + len as usize, 0);
            if file.read_exact_at(&mut text[start..], offset).is_err() {
                return self.search_path(h);
            }
            line += memchr::memchr_iter(b'\n', &text[start..]).count() as u64;
        }
        // `span_reads` never lets JSON (byte offsets) read in parts.
        if let RgPrinter::Json(_) = self.printer {
            return self.search_path(h);
        }
        printed!(self, h, |s, m, sink| s.search_slice(m, &text, &mut sink))
    }

    fn should_preprocess(&self, path: &std::path::Path) -> bool {
        self.preprocessor.is_some()
            && (self.preprocessor_globs.is_empty()
                || !self.preprocessor_globs.matched(path, false).is_ignore())
    }

    fn search_preprocessor(&mut self, h: &Haystack) -> io::Result<SearchResult> {
        let bin = self.preprocessor.as_ref().expect("checked");
        let mut cmd = std::process::Command::new(bin);
        cmd.arg(&h.path)
            .stdin(std::process::Stdio::from(std::fs::File::open(&h.path)?));
        let mut rdr = grep_cli::CommandReaderBuilder::new()
            .build(&mut cmd)
            .map_err(|err| {
                io::Error::other(format!(
                    "preprocessor command could not start: '{cmd:?}': {err}"
                ))
            })?;
        let result = self.search_reader(h, &mut rdr).map_err(|err| {
            io::Error::other(format!("preprocessor command failed: '{cmd:?}': {err}"))
        });
        let closed = rdr.close();
        let result = result?;
        closed?;
        Ok(result)
    }

    fn search_path(&mut self, h: &Haystack) -> io::Result<SearchResult> {
        printed!(self, h, |s, m, sink| s.search_path(
            m,
            h.path.as_path(),
            &mut sink
        ))
    }

    fn search_reader<R: io::Read>(&mut self, h: &Haystack, rdr: R) -> io::Result<SearchResult> {
        printed!(self, h, |s, m, sink| s.search_reader(m, rdr, &mut sink))
    }
}

/// Whether `spans` (sent by another process) describe parts of the file they came with: in
/// order, within its size, their line numbers growing no faster than the bytes skipped
/// before each (a line takes at least one byte), so that no read and no padding goes wild.
fn spans_fit(spans: &FileSpans) -> bool {
    // The line that starts at byte `line_at`, and where the last part read ends.
    let (mut line, mut line_at, mut read_to) = (1u64, 0u64, 0u64);
    for &(offset, len, first_line) in &spans.spans {
        let fits = offset >= read_to
            && offset.checked_add(len).is_some_and(|end| end <= spans.size)
            && first_line >= line
            && first_line - line <= offset - line_at;
        if !fits {
            return false;
        }
        (line, line_at, read_to) = (first_line, offset, offset + len);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(size: u64, parts: &[(u64, u64, u64)]) -> FileSpans {
        FileSpans {
            size,
            mtime_ns: 0,
            ctime_ns: 0,
            ino: 0,
            spans: parts.to_vec(),
        }
    }

    #[test]
    fn only_spans_in_order_within_the_file_are_read() {
        assert!(spans_fit(&spans(
            100,
            &[(0, 10, 1), (40, 20, 9), (90, 10, 30)]
        )));
        assert!(spans_fit(&spans(100, &[])));
        // Past the end, overlapping, out of order, overflowing.
        assert!(!spans_fit(&spans(100, &[(95, 10, 1)])));
        assert!(!spans_fit(&spans(100, &[(0, 20, 1), (10, 5, 3)])));
        assert!(!spans_fit(&spans(100, &[(50, 5, 9), (10, 5, 3)])));
        assert!(!spans_fit(&spans(100, &[(u64::MAX, 2, 1)])));
        // More lines skipped than bytes (padding that would not fit the file), or going back.
        assert!(!spans_fit(&spans(100, &[(10, 5, 1_000_000_000)])));
        assert!(!spans_fit(&spans(200, &[(0, 100, 1), (110, 10, 120)])));
        assert!(!spans_fit(&spans(100, &[(10, 5, 5), (20, 5, 4)])));
    }
}
