//! The `Engine` class: a workspace's walk options, and glob/grep/rule checks run without the GIL.

use crate::error::Error;
use crate::fs::files::{Files, Locked};
use crate::fs::rules::RuleOptions;
use crate::fs::walk::{WalkOptions, Walker};
use crate::glob::{GlobSort, PathPattern};
use crate::py::cancel::CancelToken;
use crate::py::errors::detached;
use crate::py::glob::GlobStream;
use crate::py::interrupt::interruptible;
use crate::py::request::{GlobRequest, GrepRequest};
use crate::py::results::{
    GlobOutcome, GrepOutcome, Listing as TreeListing, glob_outcome, grep_outcome, tree_listing,
};
use crate::py::stream::GrepStream;
use crate::rank::question::QuestionRequest;
use crate::workspace::Workspace;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// A question's answer for Python: `(answers, files_searched, terms, indexed)`, each answer
/// `(path, score, why, lines, symbols)`.
type QuestionAnswer = (
    Vec<(OsString, f64, String, Vec<(u64, String)>, Vec<String>)>,
    u64,
    Vec<String>,
    bool,
);

/// A listing for Python: `(name, is_dir)` entries, entries hidden by rules, the real path.
type Listing = (Vec<(OsString, bool)>, u64, OsString);

/// Search engine bound to one workspace root, held open as a directory handle: every path it
/// is given is workspace-relative and resolved beneath that handle.
#[pyclass(frozen, module = "codesift._core")]
pub struct Engine {
    ws: Workspace,
    id_prefix: String,
    /// Number of the next search-result id; reserved atomically, a block per search.
    next_id: AtomicU64,
}

impl Engine {
    pub fn id_prefix_str(&self) -> &str {
        &self.id_prefix
    }

    /// Reserves `count` result ids; returns the first.
    pub fn reserve_ids(&self, count: u64) -> u64 {
        self.next_id.fetch_add(count, Ordering::Relaxed)
    }

    fn files(&self) -> Files {
        Files::new(self.ws.root.clone(), self.ws.options.rules.clone())
    }

    fn walker(&self) -> Walker {
        Walker::new(self.ws.root.clone(), self.ws.options.clone())
    }
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(signature = (root, *, gitignore = true, access_files = vec![".clineignore".to_string(), ".codesiftignore".to_string()],
        hidden = true, follow_symlinks = false, max_filesize = None, threads = None, id_prefix = "sr_".to_string(),
        index = "off", watch = true, strict = false, daemon = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        root: PathBuf,
        gitignore: bool,
        access_files: Vec<String>,
        hidden: bool,
        follow_symlinks: bool,
        max_filesize: Option<u64>,
        threads: Option<usize>,
        id_prefix: String,
        index: &str,
        watch: bool,
        strict: bool,
        daemon: Option<Vec<String>>,
    ) -> PyResult<Self> {
        let options = WalkOptions {
            rules: RuleOptions {
                gitignore,
                access_files,
            },
            hidden,
            follow_symlinks,
            max_filesize,
            threads: threads.unwrap_or(0),
        };
        Ok(Engine {
            ws: Workspace::open(&root, options, index, watch, strict, daemon)?,
            id_prefix,
            next_id: AtomicU64::new(0),
        })
    }

    /// The root's real path (as it was when the handle was opened).
    #[getter]
    fn root(&self) -> OsString {
        self.ws.root.real_path().as_os_str().to_os_string()
    }

    /// Every search-result id of this engine starts with this.
    #[getter]
    fn id_prefix(&self) -> &str {
        &self.id_prefix
    }

    /// The files `request` asks for (`GlobRequest`).
    #[pyo3(signature = (request, *, cancel = None))]
    fn glob(
        &self,
        py: Python<'_>,
        request: &GlobRequest,
        cancel: Option<PyRef<'_, CancelToken>>,
    ) -> PyResult<GlobOutcome> {
        let links = self.ws.options.links();
        let outcome =
            interruptible_call(py, cancel, |cancel| self.ws.glob(&request.request, cancel))?;
        glob_outcome(py, outcome, self.ws.root.clone(), links)
    }

    /// The matches `request` asks for: the page of its `offset` and `max_matches`.
    #[pyo3(signature = (request, *, cancel = None))]
    fn grep(
        &self,
        py: Python<'_>,
        request: &GrepRequest,
        cancel: Option<PyRef<'_, CancelToken>>,
    ) -> PyResult<GrepOutcome> {
        let outcome = interruptible_call(py, cancel, |cancel| {
            self.ws.grep_run(&request.request, cancel)?(None)
        })?;
        let count: usize = outcome.files.iter().map(|f| f.hits.len()).sum();
        let first_id = self.reserve_ids(count as u64);
        grep_outcome(py, outcome, &self.id_prefix, first_id)
    }

    /// The files that best answer `question` under `search_path`
    /// (`crate::rank::question`): `(answers, files_searched, terms, indexed)`, each answer
    /// `(path, score, why, [(line, text)], [symbol])`, best first.
    #[pyo3(signature = (question, search_path, *, max_results = 10, include = vec![], exclude = vec![], types = vec![], cancel = None))]
    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        py: Python<'_>,
        question: String,
        search_path: PathBuf,
        max_results: i64,
        include: Vec<String>,
        exclude: Vec<String>,
        types: Vec<String>,
        cancel: Option<PyRef<'_, CancelToken>>,
    ) -> PyResult<QuestionAnswer> {
        let request = QuestionRequest {
            question,
            search_path,
            max_results,
            include,
            exclude,
            types,
        };
        let outcome = interruptible_call(py, cancel, |cancel| {
            self.ws.search_question(&request, cancel)
        })?;
        let answers = outcome
            .answers
            .into_iter()
            .map(|a| (a.path.into_os_string(), a.score, a.why, a.lines, a.symbols))
            .collect();
        Ok((
            answers,
            outcome.files_searched,
            outcome.terms,
            outcome.indexed,
        ))
    }

    /// `grep` as a stream (`GrepStream`): the same files with the same hits in the same
    /// order, each file's hits as soon as every file before it is settled.
    #[pyo3(signature = (request, *, cancel = None))]
    fn grep_iter(
        slf: &Bound<'_, Self>,
        request: &GrepRequest,
        cancel: Option<PyRef<'_, CancelToken>>,
    ) -> PyResult<GrepStream> {
        let (cancel, own_token) = CancelToken::engine_token(cancel);
        let run = slf.get().ws.grep_run(&request.request, cancel.clone())?;
        Ok(GrepStream::start(
            slf.clone().unbind(),
            run,
            cancel,
            own_token,
        ))
    }

    /// `glob` sorted by path as a stream (`GlobStream`): the same files in the same order,
    /// in batches as a sorted walk finds them (no index: the walk is what streams). A bad
    /// pattern or a missing path raises here, before anything is walked.
    #[pyo3(signature = (request, *, cancel = None))]
    fn glob_iter(
        &self,
        py: Python<'_>,
        request: &GlobRequest,
        cancel: Option<PyRef<'_, CancelToken>>,
    ) -> PyResult<GlobStream> {
        let request = &request.request;
        let mut query = request.query()?;
        // Only path order streams (an mtime order needs every file's time first).
        query.sort = GlobSort::Path;
        let (options, _) = self.ws.call_options(request.hidden, request.no_ignore);
        let (cancel, own_token) = CancelToken::engine_token(cancel);
        let walker = Walker::new(self.ws.root.clone(), options).with_cancel(cancel.clone());
        detached(py, || {
            PathPattern::new(&[query.pattern.as_str()], query.case_sensitive)?;
            walker.target(&query.search_path).map(drop)
        })?;
        let links = self.ws.options.links();
        Ok(GlobStream::start(walker, query, cancel, own_token, links))
    }

    /// The visible entries of directory `path` (workspace-relative) as `(name, is_dir)` pairs,
    /// unsorted, the number of entries ignore rules hid, and where the directory really is.
    fn list_dir(&self, py: Python<'_>, path: PathBuf) -> PyResult<Listing> {
        let walker = self.walker();
        let files = self.files();
        detached(py, move || {
            let real = files.list_target(&path)?;
            let entries = walker
                .list_dir(&real)
                .map_err(|e| Error::io(&path, "list", &e))?;
            let entries = entries
                .into_iter()
                .map(|(name, is_dir)| (bytes_name(name), is_dir))
                .collect();
            Ok((entries, walker.stats().ignored(), real.into_os_string()))
        })
    }

    /// The tree under directory `path` (workspace-relative): `depth` levels (1: its own
    /// entries; `None`: all), at most `limit` entries, in pre-order, each directory's
    /// subdirectories before its files; see `TreeListing`.
    /// `hidden` and `no_ignore` override the workspace's options for this listing.
    #[pyo3(signature = (path, *, depth = None, limit = 1000, hidden = None, no_ignore = None))]
    fn list_tree(
        &self,
        py: Python<'_>,
        path: PathBuf,
        depth: Option<usize>,
        limit: usize,
        hidden: Option<bool>,
        no_ignore: Option<bool>,
    ) -> PyResult<TreeListing> {
        if depth == Some(0) {
            return Err(Error::InvalidArgument("depth must be at least 1".into()).into());
        }
        let walker = Walker::new(
            self.ws.root.clone(),
            self.ws.call_options(hidden, no_ignore).0,
        );
        let files = self.files();
        let (tree, real, walker) = detached(py, move || {
            let real = files.list_target(&path)?;
            let tree = crate::fs::tree::tree(&walker, &real, depth, limit)
                .map_err(|e| Error::io(&path, "list", &e))?;
            Ok((tree, real, walker))
        })?;
        tree_listing(py, tree, &walker, real)
    }

    /// Opens the regular file `path` (workspace-relative) to read it: a descriptor the caller
    /// owns (and must close), where the file really is, and its size.
    fn open_read(&self, py: Python<'_>, path: PathBuf) -> PyResult<(i32, OsString, u64)> {
        let files = self.files();
        detached(py, move || {
            let opened = files.open_read(&path)?;
            let size = opened.stat.st_size as u64;
            Ok((
                crate::fs::handoff::hand_over(opened.file),
                opened.real.into_os_string(),
                size,
            ))
        })
    }

    /// Locks the file `path` for an edit (an exclusive `flock`, across processes) and reads
    /// it; files over `max_bytes` or binary are refused first.
    fn lock(&self, py: Python<'_>, path: PathBuf, max_bytes: u64) -> PyResult<FileLock> {
        let files = self.files();
        let locked = detached(py, move || files.lock(&path, max_bytes))?;
        Ok(FileLock::new(locked))
    }

    /// Creates the new file `path` with `data` (and the permission bits of `mode`), creating
    /// parent directories; an existing name is never replaced (`ConflictError`). Returns the
    /// new file locked.
    #[pyo3(signature = (path, data, mode = None))]
    fn create(
        &self,
        py: Python<'_>,
        path: PathBuf,
        data: Vec<u8>,
        mode: Option<u32>,
    ) -> PyResult<FileLock> {
        let files = self.files();
        let locked = detached(py, move || files.create(&path, &data, mode))?;
        Ok(FileLock::new(locked))
    }

    /// Checks, creating nothing, that `create(path, ...)` would be allowed (write policy,
    /// no symlink leading outside, no existing name); returns where the file would be.
    fn check_create(&self, py: Python<'_>, path: PathBuf) -> PyResult<OsString> {
        let files = self.files();
        detached(py, move || Ok(files.check_create(&path)?.into_os_string()))
    }

    /// Creates or replaces `path` with `data` atomically, creating parent directories.
    /// Returns where the file really is and whether it was created.
    fn write(&self, py: Python<'_>, path: PathBuf, data: Vec<u8>) -> PyResult<(OsString, bool)> {
        let files = self.files();
        detached(py, move || {
            let (real, created) = files.write(&path, &data)?;
            Ok((real.into_os_string(), created))
        })
    }

    /// Where `path` really is (workspace-relative), or `None` when it cannot be resolved.
    fn real(&self, py: Python<'_>, path: PathBuf) -> Option<OsString> {
        let files = self.files();
        py.detach(move || files.real(&path).map(PathBuf::into_os_string))
    }

    /// Builds the index of the workspace (replacing the old one); `progress(done, total)` is
    /// called with the GIL from time to time. Returns the build's figures.
    /// `cancel` stops it: the previous index stays and no temporary file is left.
    #[pyo3(signature = (progress = None, cancel = None))]
    fn index_build<'py>(
        &self,
        py: Python<'py>,
        progress: Option<Py<PyAny>>,
        cancel: Option<PyRef<'_, CancelToken>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (index, walker) = (self.ws.index.clone(), self.walker());
        let stats = interruptible_call(py, cancel, move |cancel| {
            let walker = walker.with_cancel(cancel.clone());
            let report = |done: usize, total: usize| {
                if let Some(callback) = &progress {
                    Python::attach(|py| {
                        let _ = callback.call1(py, (done, total));
                    });
                }
            };
            index.build(&walker, &report).map_err(|e| {
                if cancel.is_cancelled() {
                    Error::Cancelled(
                        "the index build was cancelled; the previous index (if any) is \
                         unchanged; run it again to build one"
                            .into(),
                    )
                } else {
                    Error::Io(format!("cannot build the index: {e}"))
                }
            })
        })?;
        let d = PyDict::new(py);
        d.set_item("files", stats.files)?;
        d.set_item("indexed_files", stats.indexed_files)?;
        d.set_item("units", stats.units)?;
        d.set_item("trigrams", stats.trigrams)?;
        d.set_item("bytes_indexed", stats.bytes_indexed)?;
        d.set_item("index_bytes", stats.index_bytes)?;
        Ok(d)
    }

    /// The index's state: path, whether it exists, its size and counts, a problem if any.
    fn index_status<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let status = py.detach(|| self.ws.index_status());
        let index = status.index;
        let d = PyDict::new(py);
        d.set_item("mode", status.mode)?;
        d.set_item("path", index.path.map(PathBuf::into_os_string))?;
        d.set_item("exists", index.exists)?;
        d.set_item("files", index.files)?;
        d.set_item("units", index.units)?;
        d.set_item("trigrams", index.trigrams)?;
        d.set_item("bytes", index.bytes)?;
        d.set_item("built_at_ns", index.build_start_ns)?;
        d.set_item("problem", index.problem)?;
        d.set_item("watching", status.watching)?;
        d.set_item("changed_since_build", status.changed_since_build)?;
        d.set_item("background_rebuilds", status.background_rebuilds)?;
        d.set_item("rebuilding", status.rebuilding)?;
        d.set_item("strict", status.strict)?;
        d.set_item(
            "daemon",
            status.daemon_passed_over_for.map(|since| {
                format!(
                    "passed over for {:.1} s: the daemon did not take a request within its \
                     hello wait; searches scan until it answers a ping (sent at most once a \
                     second)",
                    since.as_secs_f64()
                )
            }),
        )?;
        Ok(d)
    }

    /// Removes the index; returns whether there was one.
    fn index_drop(&self, py: Python<'_>) -> PyResult<bool> {
        let index = self.ws.index.clone();
        detached(py, move || {
            index
                .drop_index()
                .map_err(|e| Error::Io(format!("cannot remove the index: {e}")))
        })
    }

    /// Whether something exists at `path` (a symlink counts when it resolves inside the root).
    fn exists(&self, py: Python<'_>, path: PathBuf) -> bool {
        self.real(py, path).is_some()
    }
}

/// A file locked for an edit: its contents as read under the lock, and `replace` to write
/// the new contents before the lock is released (`release`, or leaving the `with` block).
#[pyclass(frozen, module = "codesift._core")]
pub struct FileLock {
    locked: Mutex<Option<Locked>>,
}

impl FileLock {
    fn new(locked: Locked) -> FileLock {
        FileLock {
            locked: Mutex::new(Some(locked)),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut Locked) -> PyResult<T>) -> PyResult<T> {
        let mut guard = self.locked.lock().unwrap();
        match guard.as_mut() {
            Some(locked) => f(locked),
            None => Err(Error::InvalidArgument("the file lock was already released".into()).into()),
        }
    }
}

#[pymethods]
impl FileLock {
    /// The file's bytes, as read under the lock.
    #[getter]
    fn data<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        self.with(|locked| Ok(PyBytes::new(py, &locked.data)))
    }

    /// Where the file really is, workspace-relative.
    #[getter]
    fn real(&self) -> PyResult<OsString> {
        self.with(|locked| Ok(locked.real().as_os_str().to_os_string()))
    }

    #[getter]
    fn mode(&self) -> PyResult<u32> {
        self.with(|locked| Ok(locked.mode()))
    }

    /// Replaces the file with `data` (atomically, mode kept), unless it changed on disk. The
    /// lock moves to the new file: `replace` may be called again (to roll back).
    fn replace(&self, py: Python<'_>, data: Vec<u8>) -> PyResult<()> {
        self.with(|locked| detached(py, || locked.replace(&data)))
    }

    /// Deletes the file, unless it changed on disk since it was read (or last replaced).
    fn remove(&self, py: Python<'_>) -> PyResult<()> {
        self.with(|locked| detached(py, || locked.remove()))
    }

    /// Releases the lock.
    fn release(&self) {
        self.locked.lock().unwrap().take();
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.release();
        false
    }
}

/// Runs the engine's `f` with the call's own token (`CancelToken::engine_token`: a child of
/// `cancel`, when given) on a worker thread, Ctrl-C heard meanwhile (`interruptible`).
fn interruptible_call<T: Send>(
    py: Python<'_>,
    cancel: Option<PyRef<'_, CancelToken>>,
    f: impl FnOnce(crate::cancel::CancelToken) -> Result<T, Error> + Send,
) -> PyResult<T> {
    let (cancel, _) = CancelToken::engine_token(cancel);
    let token = cancel.clone();
    interruptible(py, &cancel, move || f(token))
}

fn bytes_name(name: Vec<u8>) -> OsString {
    use std::os::unix::ffi::OsStringExt;
    OsString::from_vec(name)
}
