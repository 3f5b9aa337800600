//! `GrepStream`: a search running on its own thread (a `crate::stream::Stream`) whose files
//! with hits come to Python as they settle, in the order `grep` returns them, through a
//! bounded channel (a slow consumer pauses the search); closing or dropping it stops the
//! search. `next_item` is how every stream's `__next__` waits: without the GIL, Ctrl-C heard.

use crate::cancel::CancelToken;
use crate::grep::FileHits;
use crate::py::engine::Engine;
use crate::py::errors::catch_panic;
use crate::py::results::{GrepOutcome, ResultList, grep_outcome, hit_list};
use crate::search::GrepOutcome as EngineGrepOutcome;
use crate::stream::{Next, Stream};
use crate::workspace::GrepRun;
use pyo3::prelude::*;

/// Files held between the search and the consumer: with the workers' window, all the hits
/// a stream holds whatever the number found. Few, as one file can hold a million hits.
const CHANNEL_FILES: usize = 4;

pub use crate::py::interrupt::SIGNAL_CHECK;

/// The stream's next item, waiting without the GIL and letting Python handle signals
/// (Ctrl-C) meanwhile: a signal's exception stops the stream. At the end `end` is given the
/// work's result (there is none after a stop) and `None` comes back.
pub fn next_item<T: Send, R: Send>(
    py: Python<'_>,
    stream: &mut Stream<T, R>,
    end: impl FnOnce(R) -> PyResult<()>,
) -> PyResult<Option<T>> {
    loop {
        match py.detach(|| stream.next(SIGNAL_CHECK)) {
            Next::Item(item) => return Ok(Some(item)),
            Next::Waiting => {
                if let Err(e) = py.check_signals() {
                    stream.stop();
                    return Err(e);
                }
            }
            Next::End(result) => {
                if let Some(result) = result {
                    end(result)?;
                }
                return Ok(None);
            }
        }
    }
}

#[pyclass(module = "codesift._core")]
pub struct GrepStream {
    engine: Py<Engine>,
    stream: Stream<FileHits, PyResult<EngineGrepOutcome>>,
    /// Checked once the search ended: a cancelled one gives no figures.
    cancel: CancelToken,
    outcome: Option<Py<GrepOutcome>>,
    /// The matches of the last item given, and whether it continued the file before it.
    last: (u64, bool),
}

impl GrepStream {
    pub fn start(engine: Py<Engine>, run: GrepRun, cancel: CancelToken, own_token: bool) -> Self {
        let stream = Stream::start(CHANNEL_FILES, cancel.clone(), own_token, |handout| {
            catch_panic(|| run(Some(handout)))
        });
        GrepStream {
            engine,
            stream,
            cancel,
            outcome: None,
            last: (0, false),
        }
    }

    /// The next file with hits, waiting without the GIL (and handling signals meanwhile);
    /// None at the end, when the search's figures are kept for `outcome`.
    fn next_file(&mut self, py: Python<'_>) -> PyResult<Option<FileHits>> {
        let (engine, cancel, slot) = (&self.engine, &self.cancel, &mut self.outcome);
        let file = next_item(py, &mut self.stream, |result| {
            let outcome = result?;
            cancel.check("grep")?;
            let summary = grep_outcome(py, outcome, engine.get().id_prefix_str(), 0)?;
            *slot = Some(Py::new(py, summary)?);
            Ok(())
        })?;
        if let Some(file) = &file {
            self.last = (file.matches, file.continued);
        }
        Ok(file)
    }
}

#[pymethods]
impl GrepStream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next file's hits: the id number of its first hit and the list of its `GrepMatch`
    /// (in order), waiting without the GIL.
    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<(u64, Py<ResultList>)>> {
        let Some(file) = self.next_file(py)? else {
            return Ok(None);
        };
        let engine = self.engine.get();
        let first = engine.reserve_ids(file.hits.len() as u64);
        let hits = hit_list(py, vec![file], engine.id_prefix_str(), first)?;
        Ok(Some((first, hits)))
    }

    /// The next file as piped `codesift grep` prints it (ripgrep's lines): each matching line
    /// once, as `name:line:column:text` with the parts asked for (`show(path)` gives the
    /// name, None for none), text as `GrepMatch.text` has it. A file with a match spanning
    /// lines comes back as its hits (`(first id, list)`) for the caller to print. None at
    /// the end. No ids are reserved for printed lines: nothing can refer to them. With
    /// `fd`, the lines are written there (without the GIL; a closed pipe raises
    /// `BrokenPipeError`) and True comes back instead of them.
    #[pyo3(signature = (show, line_number, column, fd = None))]
    fn next_lines(
        &mut self,
        py: Python<'_>,
        show: &Bound<'_, PyAny>,
        line_number: bool,
        column: bool,
        fd: Option<i32>,
    ) -> PyResult<Option<Py<PyAny>>> {
        let Some(file) = self.next_file(py)? else {
            return Ok(None);
        };
        if file.hits.iter().any(|h| h.end_line != h.line) {
            let engine = self.engine.get();
            let first = engine.reserve_ids(file.hits.len() as u64);
            let hits = hit_list(py, vec![file], engine.id_prefix_str(), first)?;
            return Ok(Some((first, hits).into_pyobject(py)?.into_any().unbind()));
        }
        let path = file.path.clone().into_os_string().into_pyobject(py)?;
        let name: Option<std::ffi::OsString> = show.call1((path,))?.extract()?;
        let out = py.detach(|| rg_lines(&file, name.as_deref(), line_number || column, column));
        drop(file);
        let Some(fd) = fd else {
            return Ok(Some(
                pyo3::types::PyBytes::new(py, &out).into_any().unbind(),
            ));
        };
        let mut rest: &[u8] = &out;
        while !rest.is_empty() {
            // SAFETY: the caller's descriptor stays open for the call (it holds the stream).
            match py.detach(|| unsafe { crate::fs::handoff::write_to(fd, rest, SIGNAL_CHECK) }) {
                Ok(n) => rest = &rest[n..],
                Err(e) => return Err(e.into()),
            }
            // The pipe may stay full (its reader paused): Ctrl-C must still stop us.
            if let Err(e) = py.check_signals() {
                self.stream.stop();
                return Err(e);
            }
        }
        Ok(Some(
            pyo3::types::PyBool::new(py, true)
                .to_owned()
                .into_any()
                .unbind(),
        ))
    }

    /// Stops the search and waits for its threads to finish (no more hits come).
    fn close(&mut self, py: Python<'_>) {
        py.detach(|| self.stream.close());
    }

    /// The matches found in the file of the last item given (with `continued`, in that
    /// piece only: a file's pieces add up): in count mode, every match of the file.
    #[getter]
    fn matches(&self) -> u64 {
        self.last.0
    }

    /// Whether the last item given continues the file of the item before it: a file with
    /// many hits comes in pieces (each of whole lines, in order) so that it is never held
    /// whole.
    #[getter]
    fn continued(&self) -> bool {
        self.last.1
    }

    /// The search's figures once every file came out (its `matches` are empty), else None.
    #[getter]
    fn outcome(&self, py: Python<'_>) -> Option<Py<GrepOutcome>> {
        self.outcome.as_ref().map(|o| o.clone_ref(py))
    }
}

/// One file's matching lines in ripgrep's piped form (see `GrepStream::next_lines`).
fn rg_lines(
    file: &FileHits,
    name: Option<&std::ffi::OsStr>,
    line_number: bool,
    column: bool,
) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let mut out = Vec::with_capacity(file.hits.len() * 64);
    // Checked once for the file: a line of valid bytes cut at character boundaries is valid.
    let valid = std::str::from_utf8(&file.bytes).is_ok();
    let boundary = |at: usize| file.bytes.get(at).is_none_or(|&b| (b as i8) >= -0x40);
    let mut last = None;
    for hit in &file.hits {
        // Hits come in line and column order: the first on a line gives its column.
        if last == Some(hit.line) {
            continue;
        }
        last = Some(hit.line);
        let mut parts = 0;
        if let Some(name) = name {
            out.extend_from_slice(name.as_bytes());
            parts += 1;
        }
        if line_number {
            if parts > 0 {
                out.push(b':');
            }
            push_number(&mut out, hit.line);
            parts += 1;
        }
        if column {
            if parts > 0 {
                out.push(b':');
            }
            push_number(&mut out, hit.column);
            parts += 1;
        }
        if parts > 0 {
            out.push(b':');
        }
        let text = file.slice(hit.text);
        let whole = valid && boundary(hit.text.start) && boundary(hit.text.start + hit.text.len);
        if whole || std::str::from_utf8(text).is_ok() {
            out.extend_from_slice(text);
        } else {
            out.extend_from_slice(String::from_utf8_lossy(text).as_bytes());
        }
        out.push(b'\n');
    }
    out
}

/// Appends `n` in decimal (what `write!` costs most on tens of millions of lines).
fn push_number(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_decimal() {
        for n in [0u64, 7, 10, 99, 1234567, u64::MAX] {
            let mut out = Vec::new();
            push_number(&mut out, n);
            assert_eq!(out, n.to_string().into_bytes(), "{n}");
        }
    }
}
