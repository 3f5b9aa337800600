//! `GlobMatcher`: codesift's glob rules for Python callers that match paths themselves (the
//! remote "shell" strategy matches the names `find` lists), so both agree with local search;
//! `file_types`, the ripgrep file types that `type=` selects; and `GlobStream`, a glob's
//! files as the walk finds them (`Workspace.glob_iter`).

use crate::fs::root::{Links, Root};
use crate::fs::walk::Walker;
use crate::glob::{GlobFile, GlobOutcome as EngineGlobOutcome, GlobQuery, PathPattern, normalize};
use crate::glob_stream::glob_sorted;
use crate::py::errors::catch_panic;
use crate::py::types::{GlobOutcome, ResultList, glob_outcome};
use crossbeam_channel::{Receiver, RecvTimeoutError};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Glob patterns with codesift's rules (see `Workspace.glob`); a path matches when any does.
#[pyclass(frozen, module = "codesift._core")]
pub struct GlobMatcher {
    pattern: PathPattern,
}

#[pymethods]
impl GlobMatcher {
    #[new]
    #[pyo3(signature = (patterns, case_sensitive = true))]
    fn new(patterns: Vec<String>, case_sensitive: bool) -> PyResult<Self> {
        let pattern = catch_panic(|| PathPattern::new(&patterns, case_sensitive))?;
        Ok(GlobMatcher { pattern })
    }

    /// Whether the file matches; `rel_search` is relative to the search directory and
    /// `rel_root` to the workspace root (both `/`-separated).
    fn is_match(&self, rel_search: &str, rel_root: &str) -> bool {
        self.pattern.is_match(rel_search, rel_root)
    }
}

/// A glob as codesift reads it: `./` and a leading `/` dropped, `dir/` meaning `dir/**`.
#[pyfunction]
pub fn normalize_glob(pattern: &str) -> String {
    normalize(pattern)
}

/// The file types `type=`/`type_not=` accept: `(name, globs)` sorted by name, ripgrep's
/// default definitions (`rg --type-list`).
#[pyfunction]
pub fn file_types() -> Vec<(String, Vec<String>)> {
    crate::types::definitions()
}

/// `Engine.glob_iter`: a glob sorted by path running on its own thread, its files coming to
/// Python in batches as the walk reaches them, through a bounded channel (a slow consumer
/// pauses the walk); closing or dropping it stops the walk.
#[pyclass(module = "codesift._core")]
pub struct GlobStream {
    receiver: Option<Receiver<Vec<GlobFile>>>,
    finished: GlobFinished,
    thread: Option<JoinHandle<()>>,
    cancel: crate::cancel::CancelToken,
    /// The token is the stream's own (no caller's): closing may cancel it.
    own_token: bool,
    closed: Arc<AtomicBool>,
    root: Arc<Root>,
    links: Links,
    outcome: Option<Py<GlobOutcome>>,
}

type GlobFinished = Arc<Mutex<Option<PyResult<EngineGlobOutcome>>>>;

/// Batches held between the walk and the consumer.
const CHANNEL_BATCHES: usize = 4;

/// How often a waiting `__next__` lets Python handle signals (Ctrl-C).
const SIGNAL_CHECK: Duration = Duration::from_millis(20);

impl GlobStream {
    pub fn start(
        walker: Walker,
        query: GlobQuery,
        cancel: crate::cancel::CancelToken,
        own_token: bool,
        links: Links,
    ) -> Self {
        let (sender, receiver) = crossbeam_channel::bounded::<Vec<GlobFile>>(CHANNEL_BATCHES);
        let finished: GlobFinished = Arc::new(Mutex::new(None));
        let closed = Arc::new(AtomicBool::new(false));
        let root = walker.root().clone();
        let thread = {
            let (finished, closed, cancel) = (finished.clone(), closed.clone(), cancel.clone());
            std::thread::spawn(move || {
                let sink = |batch: Vec<GlobFile>| {
                    !closed.load(Ordering::Relaxed) && sender.send(batch).is_ok()
                };
                let result = catch_panic(|| {
                    let outcome = glob_sorted(&walker, &query, &sink)?;
                    cancel.check("glob")?;
                    Ok(outcome)
                });
                *finished.lock().unwrap() = Some(result);
                // `sender` drops here: the consumer sees the end after the result is stored.
            })
        };
        GlobStream {
            receiver: Some(receiver),
            finished,
            thread: Some(thread),
            cancel,
            own_token,
            closed,
            root,
            links,
            outcome: None,
        }
    }

    fn stop(&mut self) {
        self.closed.store(true, Ordering::Relaxed);
        if self.own_token {
            self.cancel.cancel();
        }
        self.receiver.take();
    }
}

#[pymethods]
impl GlobStream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next files (a list of `GlobMatch`, in path order), waiting without the GIL; at the
    /// end the walk's figures are kept for `outcome`.
    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<ResultList>>> {
        let Some(receiver) = self.receiver.as_ref() else {
            return Ok(None);
        };
        loop {
            match py.detach(|| receiver.recv_timeout(SIGNAL_CHECK)) {
                Ok(files) => {
                    let outcome = glob_outcome(py, listed(files), self.root.clone(), self.links)?;
                    return Ok(Some(outcome.files));
                }
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(e) = py.check_signals() {
                        self.stop();
                        return Err(e);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.receiver.take();
                    if let Some(thread) = self.thread.take() {
                        let _ = py.detach(|| thread.join());
                    }
                    let Some(result) = self.finished.lock().unwrap().take() else {
                        return Ok(None);
                    };
                    let outcome = glob_outcome(py, result?, self.root.clone(), self.links)?;
                    self.outcome = Some(Py::new(py, outcome)?);
                    return Ok(None);
                }
            }
        }
    }

    /// Stops the walk and waits for its thread to finish (no more files come).
    fn close(&mut self, py: Python<'_>) {
        self.stop();
        if let Some(thread) = self.thread.take() {
            let _ = py.detach(|| thread.join());
        }
    }

    /// The walk's figures once every file came out (its `files` are empty), else None.
    #[getter]
    fn outcome(&self, py: Python<'_>) -> Option<Py<GlobOutcome>> {
        self.outcome.as_ref().map(|o| o.clone_ref(py))
    }
}

impl Drop for GlobStream {
    fn drop(&mut self) {
        // Not joined: the walk notices at its next file and ends on its own.
        self.stop();
    }
}

/// A batch of files as an outcome to convert (only its files are read).
fn listed(files: Vec<GlobFile>) -> EngineGlobOutcome {
    EngineGlobOutcome {
        total: files.len(),
        files,
        truncated: false,
        ignored: 0,
        errors: 0,
        search_path: PathBuf::new(),
        skipped: Vec::new(),
    }
}
