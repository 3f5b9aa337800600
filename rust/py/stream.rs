//! `GrepStream`: a search running on its own thread (a `crate::stream::Stream`) whose files
//! with hits come to Python as they settle, in the order `grep` returns them, through a
//! bounded channel (a slow consumer pauses the search); closing or dropping it stops the
//! search. `next_item` is how every stream's `__next__` waits: without the GIL, Ctrl-C heard.

use crate::cancel::CancelToken;
use crate::grep::FileHits;
use crate::py::engine::Engine;
use crate::py::errors::catch_panic;
use crate::py::print::GrepPrinter;
use crate::py::results::{GrepOutcome, ResultList, grep_outcome, hit_list};
use crate::search::GrepOutcome as EngineGrepOutcome;
use crate::stream::{Next, Stream};
use crate::workspace::GrepRun;
use pyo3::prelude::*;
use std::time::Duration;

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

/// What `print_files` holds before writing it out: big enough that writes are few.
const PRINT_BUFFER: usize = 1 << 16;

/// An ended search's figures, as `outcome` gives them (a cancelled search has none: the
/// cancel is raised).
fn summary(
    py: Python<'_>,
    engine: &Py<Engine>,
    cancel: &CancelToken,
    result: PyResult<EngineGrepOutcome>,
) -> PyResult<Py<GrepOutcome>> {
    let outcome = result?;
    cancel.check("grep")?;
    let summary = grep_outcome(py, outcome, engine.get().id_prefix_str(), 0)?;
    Py::new(py, summary)
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
    /// See `files_printed`.
    files_printed: u64,
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
            files_printed: 0,
        }
    }

    /// The next file with hits, waiting without the GIL (and handling signals meanwhile);
    /// None at the end, when the search's figures are kept for `outcome`.
    fn next_file(&mut self, py: Python<'_>) -> PyResult<Option<FileHits>> {
        let (engine, cancel, slot) = (&self.engine, &self.cancel, &mut self.outcome);
        let file = next_item(py, &mut self.stream, |result| {
            *slot = Some(summary(py, engine, cancel, result)?);
            Ok(())
        })?;
        if let Some(file) = &file {
            self.last = (file.matches, file.continued);
        }
        Ok(file)
    }

    /// Keeps the ended search's figures for `outcome`.
    fn ended(&mut self, py: Python<'_>, result: PyResult<EngineGrepOutcome>) -> PyResult<()> {
        self.outcome = Some(summary(py, &self.engine, &self.cancel, result)?);
        Ok(())
    }

    /// Writes `out` whole to `fd` without the GIL, hearing Ctrl-C while a full pipe waits
    /// (the search then stops), and empties it.
    fn write_out(&mut self, py: Python<'_>, fd: i32, out: &mut Vec<u8>) -> PyResult<()> {
        let mut rest: &[u8] = out;
        while !rest.is_empty() {
            // SAFETY: the caller's descriptor stays open for the call (it holds the stream).
            match py.detach(|| unsafe { crate::fs::handoff::write_to(fd, rest, SIGNAL_CHECK) }) {
                Ok(n) => rest = &rest[n..],
                Err(e) => {
                    self.stream.stop();
                    return Err(e.into());
                }
            }
            if let Err(e) = py.check_signals() {
                self.stream.stop();
                return Err(e);
            }
        }
        out.clear();
        Ok(())
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

    /// Prints the stream's files with `printer` straight to `fd`, without the GIL and with
    /// no Python object per hit, until the end (None; the search's figures are then kept
    /// for `outcome`) or a file the printer cannot print (a match spanning lines in a line
    /// layout): its hits come back (`(first id, list)`) for the caller to print before it
    /// calls again. `show(path)` gives a file's printed name (called once a file). Output
    /// goes out whenever the search has nothing ready (each file as soon as it settles) or
    /// a buffer is full; a full pipe waits, hearing Ctrl-C, and a closed one raises
    /// `BrokenPipeError`.
    fn print_files(
        &mut self,
        py: Python<'_>,
        mut printer: PyRefMut<'_, GrepPrinter>,
        show: &Bound<'_, PyAny>,
        fd: i32,
    ) -> PyResult<Option<(u64, Py<ResultList>)>> {
        let mut out = Vec::with_capacity(PRINT_BUFFER + PRINT_BUFFER / 4);
        let mut shown: Option<(std::path::PathBuf, Option<Vec<u8>>)> = None;
        let wants_name = printer.wants_name();
        loop {
            let mut next = py.detach(|| self.stream.next(Duration::ZERO));
            if matches!(next, Next::Waiting) {
                // Nothing settled yet: what is printed goes out before the wait.
                self.write_out(py, fd, &mut out)?;
                next = loop {
                    match py.detach(|| self.stream.next(SIGNAL_CHECK)) {
                        Next::Waiting => {
                            if let Err(e) = py.check_signals() {
                                self.stream.stop();
                                return Err(e);
                            }
                        }
                        other => break other,
                    }
                };
            }
            let file = match next {
                Next::Item(file) => file,
                Next::Waiting => continue,
                Next::End(result) => {
                    printer.printer.finish(&mut out);
                    self.write_out(py, fd, &mut out)?;
                    if let Some(result) = result {
                        self.ended(py, result)?;
                    }
                    return Ok(None);
                }
            };
            self.last = (file.matches, file.continued);
            if !file.continued {
                self.files_printed += 1;
            }
            if printer.printer.needs_lines(&file) {
                self.write_out(py, fd, &mut out)?;
                let engine = self.engine.get();
                let first = engine.reserve_ids(file.hits.len() as u64);
                let hits = hit_list(py, vec![file], engine.id_prefix_str(), first)?;
                return Ok(Some((first, hits)));
            }
            let name = if !wants_name {
                None
            } else if let Some((path, name)) = &shown
                && *path == file.path
            {
                name.clone()
            } else {
                let path = file.path.clone().into_os_string().into_pyobject(py)?;
                let name: Option<std::ffi::OsString> = show.call1((path,))?.extract()?;
                let name = name.map(|n| n.into_encoded_bytes());
                shown = Some((file.path.clone(), name.clone()));
                name
            };
            let engine = self.engine.get();
            let ids = printer.is_json().then(|| crate::print::Ids {
                prefix: engine.id_prefix_str(),
                first: engine.reserve_ids(file.hits.len() as u64),
            });
            let inner = &mut printer.printer;
            py.detach(|| inner.file(&file, name.as_deref(), ids, &mut out));
            drop(file);
            if out.len() >= PRINT_BUFFER {
                self.write_out(py, fd, &mut out)?;
            }
        }
    }

    /// Files begun (not continued) that `print_files` took from the stream, printed or
    /// handed back.
    #[getter]
    fn files_printed(&self) -> u64 {
        self.files_printed
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
