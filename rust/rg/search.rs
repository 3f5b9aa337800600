//! Searching one haystack and printing its results with ripgrep's printers (standard,
//! summary for counts and file lists, JSON), binary detection chosen per haystack as
//! ripgrep does (explicit files are searched, walked binary files are skipped).

use std::io;

use grep_printer::{Standard, Stats, Summary, JSON};
use grep_regex::RegexMatcher;
use grep_searcher::{BinaryDetection, Searcher};
use termcolor::WriteColor;

use super::haystack::Haystack;

pub enum Printer<W> {
    Standard(Standard<W>),
    Summary(Summary<W>),
    Json(JSON<W>),
}

impl<W: WriteColor> Printer<W> {
    pub fn get_mut(&mut self) -> &mut W {
        match self {
            Printer::Standard(p) => p.get_mut(),
            Printer::Summary(p) => p.get_mut(),
            Printer::Json(p) => p.get_mut(),
        }
    }
}

pub struct SearchResult {
    pub has_match: bool,
    pub stats: Option<Stats>,
}

/// A matcher, a searcher and a printer: what each search thread owns.
pub struct Worker<W> {
    pub matcher: RegexMatcher,
    pub searcher: Searcher,
    pub printer: Printer<W>,
    pub binary_explicit: BinaryDetection,
    pub binary_implicit: BinaryDetection,
}

impl<W: WriteColor> Worker<W> {
    pub fn search(&mut self, h: &Haystack) -> io::Result<SearchResult> {
        let bin = if h.explicit { &self.binary_explicit } else { &self.binary_implicit };
        self.searcher.set_binary_detection(bin.clone());
        if h.is_stdin {
            let stdin = io::stdin();
            let mut lock = stdin.lock();
            self.search_reader(h, &mut lock)
        } else {
            self.search_path(h)
        }
    }

    fn search_path(&mut self, h: &Haystack) -> io::Result<SearchResult> {
        let (m, s) = (&self.matcher, &mut self.searcher);
        let path = h.path.as_path();
        match &mut self.printer {
            Printer::Standard(p) => {
                let mut sink = p.sink_with_path(m, path);
                s.search_path(m, path, &mut sink)?;
                Ok(SearchResult { has_match: sink.has_match(), stats: sink.stats().cloned() })
            }
            Printer::Summary(p) => {
                let mut sink = p.sink_with_path(m, path);
                s.search_path(m, path, &mut sink)?;
                Ok(SearchResult { has_match: sink.has_match(), stats: sink.stats().cloned() })
            }
            Printer::Json(p) => {
                let mut sink = p.sink_with_path(m, path);
                s.search_path(m, path, &mut sink)?;
                Ok(SearchResult { has_match: sink.has_match(), stats: Some(sink.stats().clone()) })
            }
        }
    }

    fn search_reader<R: io::Read>(&mut self, h: &Haystack, rdr: R) -> io::Result<SearchResult> {
        let (m, s) = (&self.matcher, &mut self.searcher);
        let path = h.path.as_path();
        match &mut self.printer {
            Printer::Standard(p) => {
                let mut sink = p.sink_with_path(m, path);
                s.search_reader(m, rdr, &mut sink)?;
                Ok(SearchResult { has_match: sink.has_match(), stats: sink.stats().cloned() })
            }
            Printer::Summary(p) => {
                let mut sink = p.sink_with_path(m, path);
                s.search_reader(m, rdr, &mut sink)?;
                Ok(SearchResult { has_match: sink.has_match(), stats: sink.stats().cloned() })
            }
            Printer::Json(p) => {
                let mut sink = p.sink_with_path(m, path);
                s.search_reader(m, rdr, &mut sink)?;
                Ok(SearchResult { has_match: sink.has_match(), stats: Some(sink.stats().clone()) })
            }
        }
    }
}
