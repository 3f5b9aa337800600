//! `GlobMatcher`: codesift's glob rules for Python callers that match paths themselves (the
//! remote "shell" strategy matches the names `find` lists), so both agree with local search;
//! `file_types`, the ripgrep file types that `type=` selects; and `GlobStream`, a glob's
//! files as the walk finds them (`Workspace.glob_iter`).

use crate::fs::root::{Links, Root};
use crate::fs::walk::Walker;
use crate::glob::{
    FileBlock, GlobFile, GlobOutcome as EngineGlobOutcome, GlobQuery, PathPattern, normalize,
};
use crate::glob_stream::glob_sorted;
use crate::py::errors::catch_panic;
use crate::py::results::{GlobOutcome, ResultList, glob_outcome};
use crate::py::stream::next_item;
use crate::stream::Stream;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

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
    stream: Stream<Vec<GlobFile>, PyResult<EngineGlobOutcome>>,
    root: Arc<Root>,
    links: Links,
    outcome: Option<Py<GlobOutcome>>,
}

/// Batches held between the walk and the consumer.
const CHANNEL_BATCHES: usize = 4;

impl GlobStream {
    pub fn start(
        walker: Walker,
        query: GlobQuery,
        cancel: crate::cancel::CancelToken,
        own_token: bool,
        links: Links,
    ) -> Self {
        let root = walker.root().clone();
        let token = cancel.clone();
        let stream = Stream::start(CHANNEL_BATCHES, cancel, own_token, move |handout| {
            catch_panic(|| {
                let outcome = glob_sorted(&walker, &query, handout)?;
                token.check("glob")?;
                Ok(outcome)
            })
        });
        GlobStream {
            stream,
            root,
            links,
            outcome: None,
        }
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
        let (root, links, slot) = (&self.root, self.links, &mut self.outcome);
        let files = next_item(py, &mut self.stream, |result| {
            *slot = Some(Py::new(
                py,
                glob_outcome(py, result?.map_files(FileBlock::from), root.clone(), links)?,
            )?);
            Ok(())
        })?;
        let Some(files) = files else {
            return Ok(None);
        };
        Ok(Some(
            glob_outcome(py, listed(files), root.clone(), links)?.files,
        ))
    }

    /// Stops the walk and waits for its thread to finish (no more files come).
    fn close(&mut self, py: Python<'_>) {
        py.detach(|| self.stream.close());
    }

    /// The walk's figures once every file came out (its `files` are empty), else None.
    #[getter]
    fn outcome(&self, py: Python<'_>) -> Option<Py<GlobOutcome>> {
        self.outcome.as_ref().map(|o| o.clone_ref(py))
    }
}

/// A batch of files as an outcome to convert (only its files are read).
fn listed(files: Vec<GlobFile>) -> EngineGlobOutcome<FileBlock> {
    EngineGlobOutcome {
        total: files.len(),
        files: FileBlock::from(files),
        truncated: false,
        ignored: 0,
        errors: 0,
        search_path: PathBuf::new(),
        skipped: Vec::new(),
    }
}

/// Checks a regex as a search would compile it, raising the `PatternError` the search would
/// (its caret under the pattern given here): what lets a caller that combines patterns (the
/// CLI's `-e`, `-w`, `-x`) report each one in its user's own words, not the combination.
#[pyfunction]
pub fn check_regex(pattern: &str, case_sensitive: bool) -> PyResult<()> {
    let options = crate::grep::PatternOptions {
        pattern: pattern.to_owned(),
        literal: false,
        case_sensitive,
        multiline: None,
        before: 0,
        after: 0,
    };
    crate::grep::CompiledPattern::new(&options)
        .map(drop)
        .map_err(PyErr::from)
}
