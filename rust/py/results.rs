//! Python result classes: frozen views on engine results that stay in Rust, made when asked for.
//!
//! A search keeps its hits (or files) in one shared store. `ResultList` is the sequence the
//! Python layer sees; each `GrepMatch`/`GlobMatch` it hands out is a small view (the store
//! and an index) whose fields are read from the store on access. Building a full Python
//! object per hit up front cost more than the search itself on large results (835k hits:
//! ~0.3 s, most of it allocating and zeroing fresh memory); views made during iteration are
//! freed as the loop moves on, so their memory is reused while still hot in cache.

use crate::fs::root::{Links, Root};
use crate::fs::skipped::{Example, Reason};
use crate::fs::tree::Tree;
use crate::fs::walk::Walker;
use crate::glob::{FileBlock, GlobOutcome as EngineGlobOutcome, stat_mtime_ms};
use crate::grep::{Context, FileHits, Hit, Span, TextEncoding, store};
use crate::search::GrepOutcome as EngineGrepOutcome;
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PySlice, PyString};
use std::borrow::Cow;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The hits of one grep.
pub struct HitStore {
    files: Vec<StoredFile>,
    /// Flat index of each file's first hit (ascending), to find hit `i`.
    starts: Vec<usize>,
    len: usize,
    ids: Ids,
    host: Option<Py<PyString>>,
}

struct StoredFile {
    path: Py<PyString>,
    encoding: Py<PyString>,
    size: u64,
    mtime_ns: i64,
    hits: Vec<Hit>,
    /// What the hits' spans point into.
    bytes: Vec<u8>,
    /// Set for a match built from Python, whose byte length is given, not measured.
    byte_length: Option<u64>,
}

enum Ids {
    /// Hit `i` is `prefix` + `first + i` in base 36, built when asked for.
    Serial { prefix: Py<PyString>, first: u64 },
    /// A match built from Python with its id.
    Given(Py<PyString>),
}

impl HitStore {
    fn new(files: Vec<StoredFile>, ids: Ids, host: Option<Py<PyString>>) -> HitStore {
        let mut starts = Vec::with_capacity(files.len());
        let mut len = 0;
        for file in &files {
            starts.push(len);
            len += file.hits.len();
        }
        HitStore {
            files,
            starts,
            len,
            ids,
            host,
        }
    }

    /// The view on hit `index` (0 <= index < len).
    fn view(self: &Arc<Self>, index: usize) -> GrepMatch {
        let file = self.starts.partition_point(|&start| start <= index) - 1;
        GrepMatch {
            store: self.clone(),
            file,
            hit: index - self.starts[file],
            index,
        }
    }
}

/// The files found by one glob.
pub struct FileStore {
    /// The root handle the lazy `stat`s go through, and how they treat symlinks; `None` for
    /// a match built from Python (its metadata is given).
    root: Option<(Arc<Root>, Links)>,
    /// The paths, and each one's `(mtime_ms, size)` when the walk or the index already had
    /// them.
    files: FileBlock,
    /// Else read on first access, one a file; empty when every file's is known (an indexed
    /// glob's). Apart from the known ones: making an initialised `OnceLock` for each of tens
    /// of thousands of files cost a tenth of a large glob.
    read: Vec<OnceLock<(i64, u64)>>,
    host: Option<Py<PyString>>,
}

impl FileStore {
    fn new(root: Option<(Arc<Root>, Links)>, files: FileBlock, host: Option<Py<PyString>>) -> Self {
        let all_known = files.metadata.iter().all(Option::is_some);
        let unknown = if all_known { 0 } else { files.len() };
        let read = std::iter::repeat_with(OnceLock::new)
            .take(unknown)
            .collect();
        FileStore {
            root,
            files,
            read,
            host,
        }
    }
}

/// One file found by glob.
#[pyclass(frozen, freelist = 256, module = "codesift._core")]
pub struct GlobMatch {
    store: Arc<FileStore>,
    index: usize,
}

impl GlobMatch {
    fn path_ref(&self) -> &Path {
        self.store.files.paths.get(self.index)
    }

    /// Read from the file when first asked for; a file gone since the search reads as 0, 0.
    fn metadata(&self) -> (i64, u64) {
        if let Some(known) = self.store.files.metadata[self.index] {
            return known;
        }
        *self.store.read[self.index].get_or_init(|| match &self.store.root {
            Some((root, links)) => root
                .stat(self.path_ref(), *links)
                .map_or((0, 0), |stat| (stat_mtime_ms(&stat), stat.st_size as u64)),
            None => (0, 0),
        })
    }

    fn fields(&self) -> (&Path, i64, u64, Option<&Py<PyString>>) {
        let (mtime_ms, size) = self.metadata();
        (self.path_ref(), mtime_ms, size, self.store.host.as_ref())
    }
}

#[pymethods]
impl GlobMatch {
    #[new]
    #[pyo3(signature = (path, mtime_ms, size, host = None))]
    fn new(path: PathBuf, mtime_ms: i64, size: u64, host: Option<Py<PyString>>) -> Self {
        let files = FileBlock::new(
            [path.as_path()].into_iter().collect(),
            vec![Some((mtime_ms, size))],
        )
        .expect("one path, one metadata");
        let store = FileStore::new(None, files, host);
        GlobMatch {
            store: Arc::new(store),
            index: 0,
        }
    }

    /// Workspace-relative POSIX path (a name that is not UTF-8 in `surrogateescape` form).
    #[getter]
    fn path(&self) -> &std::ffi::OsStr {
        self.path_ref().as_os_str()
    }

    /// Last modification, in milliseconds since the epoch (read when first asked for).
    #[getter]
    fn mtime_ms(&self) -> i64 {
        self.metadata().0
    }

    /// Size in bytes (read when first asked for).
    #[getter]
    fn size(&self) -> u64 {
        self.metadata().1
    }

    #[getter]
    fn host(&self, py: Python<'_>) -> Option<Py<PyString>> {
        self.store.host.as_ref().map(|h| h.clone_ref(py))
    }

    /// The JSON-ready form.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (path, mtime_ms, size, host) = self.fields();
        let d = PyDict::new(py);
        d.set_item("path", path.as_os_str())?;
        d.set_item("mtime_ms", mtime_ms)?;
        d.set_item("size", size)?;
        if let Some(host) = host {
            d.set_item("host", host)?;
        }
        Ok(d)
    }

    fn __repr__(&self) -> String {
        let (path, mtime_ms, size, _) = self.fields();
        format!(
            "GlobMatch(path={:?}, mtime_ms={mtime_ms}, size={size})",
            crate::error::escaped(path.as_os_str().as_encoded_bytes())
        )
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(other) = other.cast::<GlobMatch>() else {
            return Ok(false);
        };
        let other = other.get();
        let (a, b) = (self.fields(), other.fields());
        Ok((a.0, a.1, a.2) == (b.0, b.1, b.2) && same_host(py, a.3, b.3)?)
    }

    fn __hash__(&self) -> u64 {
        let mut hasher = DefaultHasher::new();
        self.path_ref().hash(&mut hasher);
        hasher.finish()
    }
}

fn same_host(py: Python<'_>, a: Option<&Py<PyString>>, b: Option<&Py<PyString>>) -> PyResult<bool> {
    match (a, b) {
        (None, None) => Ok(true),
        (Some(a), Some(b)) => Ok(a.bind(py).to_cow()? == b.bind(py).to_cow()?),
        _ => Ok(false),
    }
}

/// One match found by grep.
#[pyclass(frozen, freelist = 256, module = "codesift._core")]
pub struct GrepMatch {
    store: Arc<HitStore>,
    file: usize,
    hit: usize,
    /// Position in the whole result (numbers the id).
    index: usize,
}

impl GrepMatch {
    fn stored_file(&self) -> &StoredFile {
        &self.store.files[self.file]
    }

    fn hit_data(&self) -> &Hit {
        &self.stored_file().hits[self.hit]
    }

    /// The text at `span`, invalid UTF-8 replaced.
    fn decoded(&self, span: Span) -> Cow<'_, str> {
        let bytes = &self.stored_file().bytes;
        String::from_utf8_lossy(&bytes[span.start..span.start + span.len])
    }

    fn context_lines(&self, after: bool) -> Vec<Cow<'_, str>> {
        let Some(context) = &self.hit_data().context else {
            return Vec::new();
        };
        let spans = if after {
            &context.after
        } else {
            &context.before
        };
        spans.iter().map(|&span| self.decoded(span)).collect()
    }
}

#[pymethods]
impl GrepMatch {
    #[new]
    #[pyo3(signature = (id, file, line, column, end_line, byte_offset, content, text,
        before = Vec::new(), after = Vec::new(), host = None, byte_length = None,
        unique = false, file_size = 0, file_mtime_ns = 0, encoding = "utf-8".to_string()))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        id: Py<PyString>,
        file: Py<PyString>,
        line: u64,
        column: u64,
        end_line: u64,
        byte_offset: u64,
        content: String,
        text: String,
        before: Vec<String>,
        after: Vec<String>,
        host: Option<Py<PyString>>,
        byte_length: Option<u64>,
        unique: bool,
        file_size: u64,
        file_mtime_ns: i64,
        encoding: String,
    ) -> Self {
        let byte_length = byte_length.unwrap_or(content.len() as u64);
        let mut bytes = Vec::new();
        let mut lines = |lines: Vec<String>| -> Vec<Span> {
            lines
                .iter()
                .map(|line| store(&mut bytes, line.as_bytes()))
                .collect()
        };
        let context = (!before.is_empty() || !after.is_empty()).then(|| {
            Box::new(Context {
                before: lines(before),
                after: lines(after),
            })
        });
        let hit = Hit {
            line,
            column,
            end_line,
            byte_offset,
            content: store(&mut bytes, content.as_bytes()),
            text: store(&mut bytes, text.as_bytes()),
            context,
            unique,
            ranking: None,
        };
        let file = StoredFile {
            path: file,
            encoding: PyString::new(py, &encoding).unbind(),
            size: file_size,
            mtime_ns: file_mtime_ns,
            hits: vec![hit],
            bytes,
            byte_length: Some(byte_length),
        };
        Arc::new(HitStore::new(vec![file], Ids::Given(id), host)).view(0)
    }

    /// `sr_...`: pass it to `edit_result` to replace exactly this match.
    #[getter]
    fn id(&self, py: Python<'_>) -> Py<PyString> {
        match &self.store.ids {
            Ids::Given(id) => id.clone_ref(py),
            Ids::Serial { prefix, first } => {
                let prefix = prefix.bind(py).to_cow().unwrap_or_default();
                let id = result_id(&prefix, first + self.index as u64);
                PyString::new(py, &id).unbind()
            }
        }
    }

    /// Workspace-relative POSIX path of the file.
    #[getter]
    fn file(&self, py: Python<'_>) -> Py<PyString> {
        self.stored_file().path.clone_ref(py)
    }

    /// 1-based line of the match's start.
    #[getter]
    fn line(&self) -> u64 {
        self.hit_data().line
    }

    /// 1-based, in characters.
    #[getter]
    fn column(&self) -> u64 {
        self.hit_data().column
    }

    #[getter]
    fn end_line(&self) -> u64 {
        self.hit_data().end_line
    }

    #[getter]
    fn byte_offset(&self) -> u64 {
        self.hit_data().byte_offset
    }

    /// The matched bytes exactly, decoded (invalid UTF-8 replaced).
    #[getter]
    fn content(&self) -> Cow<'_, str> {
        self.decoded(self.hit_data().content)
    }

    /// The whole first line of the match, without its terminator.
    #[getter]
    fn text(&self) -> Cow<'_, str> {
        self.decoded(self.hit_data().text)
    }

    #[getter]
    fn before(&self) -> Vec<Cow<'_, str>> {
        self.context_lines(false)
    }

    #[getter]
    fn after(&self) -> Vec<Cow<'_, str>> {
        self.context_lines(true)
    }

    #[getter]
    fn host(&self, py: Python<'_>) -> Option<Py<PyString>> {
        self.store.host.as_ref().map(|h| h.clone_ref(py))
    }

    /// Length of the matched bytes in the file.
    #[getter]
    fn byte_length(&self) -> u64 {
        let file = self.stored_file();
        file.byte_length
            .unwrap_or(file.hits[self.hit].content.len as u64)
    }

    /// The matched bytes occurred exactly once in the file when searched.
    #[getter]
    fn unique(&self) -> bool {
        self.hit_data().unique
    }

    /// A ranked hit's role: "definition" (it names a definition of what it matched) or
    /// "reference"; None unranked.
    #[getter]
    fn role(&self) -> Option<&'static str> {
        self.hit_data().ranking.as_ref().map(|r| r.role.name())
    }

    /// The kind of definition a ranked definition is ("function", "class", "macro", ...).
    #[getter]
    fn kind(&self) -> Option<&'static str> {
        self.hit_data().ranking.as_ref().and_then(|r| r.kind)
    }

    /// A ranked hit's score (higher first; see docs/search.md); None unranked.
    #[getter]
    fn score(&self) -> Option<f64> {
        self.hit_data().ranking.as_ref().map(|r| r.score)
    }

    /// The head of the definition enclosing the hit (`int f(void)`), given with a token
    /// budget; None otherwise or where none was found.
    #[getter]
    fn signature(&self) -> Option<String> {
        let ranking = self.hit_data().ranking.as_ref()?;
        ranking.enclosing.as_ref().map(|e| e.1.clone())
    }

    /// The line of the name of the definition enclosing the hit (see `signature`).
    #[getter]
    fn signature_line(&self) -> Option<u64> {
        let ranking = self.hit_data().ranking.as_ref()?;
        ranking.enclosing.as_ref().map(|e| e.0)
    }

    /// Why a ranked hit is where it is, in words ("definition (function), whole word");
    /// None unranked.
    #[getter]
    fn why(&self) -> Option<String> {
        self.hit_data().ranking.as_ref().map(|r| r.why())
    }

    #[getter]
    fn file_size(&self) -> u64 {
        self.stored_file().size
    }

    #[getter]
    fn file_mtime_ns(&self) -> i64 {
        self.stored_file().mtime_ns
    }

    /// Codec of the file ("utf-8", "utf-8-sig", "utf-16-le", "utf-16-be"); offsets of
    /// UTF-16 files refer to their UTF-8 transcoding.
    #[getter]
    fn encoding(&self, py: Python<'_>) -> Py<PyString> {
        self.stored_file().encoding.clone_ref(py)
    }

    /// The JSON-ready form (the public fields).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let hit = self.hit_data();
        let d = PyDict::new(py);
        d.set_item("id", self.id(py))?;
        d.set_item("file", &self.stored_file().path)?;
        d.set_item("line", hit.line)?;
        d.set_item("column", hit.column)?;
        d.set_item("end_line", hit.end_line)?;
        d.set_item("byte_offset", hit.byte_offset)?;
        d.set_item("content", self.decoded(hit.content))?;
        d.set_item("text", self.decoded(hit.text))?;
        d.set_item("before", self.context_lines(false))?;
        d.set_item("after", self.context_lines(true))?;
        if let Some(host) = &self.store.host {
            d.set_item("host", host)?;
        }
        if let Some(ranking) = &hit.ranking {
            d.set_item("role", ranking.role.name())?;
            if let Some(kind) = ranking.kind {
                d.set_item("kind", kind)?;
            }
            d.set_item("score", ranking.score)?;
            d.set_item("why", ranking.why())?;
            if let Some(enclosing) = &ranking.enclosing {
                d.set_item("signature", &enclosing.1)?;
                d.set_item("signature_line", enclosing.0)?;
            }
        }
        Ok(d)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let hit = self.hit_data();
        Ok(format!(
            "GrepMatch(id={:?}, file={}, line={}, column={}, content={:?})",
            self.id(py).bind(py).to_cow()?,
            self.stored_file().path.bind(py).repr()?,
            hit.line,
            hit.column,
            self.decoded(hit.content)
        ))
    }

    /// Two views are equal when every public field is.
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(other) = other.cast::<GrepMatch>() else {
            return Ok(false);
        };
        let other = other.get();
        if Arc::ptr_eq(&self.store, &other.store) && self.index == other.index {
            return Ok(true);
        }
        let (a, b) = (self.hit_data(), other.hit_data());
        let same_hit = (a.line, a.column, a.end_line, a.byte_offset)
            == (b.line, b.column, b.end_line, b.byte_offset)
            && self.decoded(a.content) == other.decoded(b.content)
            && self.decoded(a.text) == other.decoded(b.text)
            && self.context_lines(false) == other.context_lines(false)
            && self.context_lines(true) == other.context_lines(true);
        Ok(same_hit
            && self.id(py).bind(py).to_cow()? == other.id(py).bind(py).to_cow()?
            && self
                .stored_file()
                .path
                .bind(py)
                .as_any()
                .eq(other.stored_file().path.bind(py))?
            && same_host(py, self.store.host.as_ref(), other.store.host.as_ref())?)
    }

    fn __hash__(&self) -> u64 {
        let hit = self.hit_data();
        let mut hasher = DefaultHasher::new();
        (
            hit.line,
            hit.column,
            hit.byte_offset,
            self.decoded(hit.content),
        )
            .hash(&mut hasher);
        hasher.finish()
    }
}

/// The hits of a grep or the files of a glob: a read-only sequence whose items are made when
/// indexed or iterated.
#[pyclass(frozen, sequence, module = "codesift._core")]
pub struct ResultList {
    items: Items,
}

#[derive(Clone)]
enum Items {
    Hits(Arc<HitStore>),
    Files(Arc<FileStore>),
}

impl Items {
    fn len(&self) -> usize {
        match self {
            Items::Hits(store) => store.len,
            Items::Files(store) => store.files.len(),
        }
    }

    fn item(&self, py: Python<'_>, index: usize) -> PyResult<Py<PyAny>> {
        Ok(match self {
            Items::Hits(store) => untracked(Py::new(py, store.view(index))?).into_any(),
            Items::Files(store) => {
                let view = GlobMatch {
                    store: store.clone(),
                    index,
                };
                untracked(Py::new(py, view)?).into_any()
            }
        })
    }

    fn same_store(&self, other: &Items) -> bool {
        match (self, other) {
            (Items::Hits(a), Items::Hits(b)) => Arc::ptr_eq(a, b),
            (Items::Files(a), Items::Files(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

#[pymethods]
impl ResultList {
    fn __len__(&self) -> usize {
        self.items.len()
    }

    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let len = self.items.len();
        if let Ok(slice) = key.cast::<PySlice>() {
            let range = slice.indices(len as isize)?;
            let mut items = Vec::with_capacity(range.slicelength);
            let mut i = range.start;
            for _ in 0..range.slicelength {
                items.push(self.items.item(py, i as usize)?);
                i += range.step;
            }
            return Ok(PyList::new(py, items)?.into_any().unbind());
        }
        let index: isize = key.extract()?;
        let position = if index < 0 {
            index + len as isize
        } else {
            index
        };
        if position < 0 || position as usize >= len {
            return Err(PyIndexError::new_err("result index out of range"));
        }
        self.items.item(py, position as usize)
    }

    fn __iter__(&self) -> ResultIter {
        ResultIter {
            items: self.items.clone(),
            next: 0,
            file: 0,
        }
    }

    /// Equal to any sequence with equal items (a list included), like a list is.
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        if let Ok(other) = other.cast::<ResultList>()
            && self.items.same_store(&other.get().items)
        {
            return Ok(true.into_pyobject(py)?.to_owned().into_any().unbind());
        }
        let Ok(other_len) = other.len() else {
            return Ok(py.NotImplemented());
        };
        if other.is_instance_of::<PyString>() || other_len != self.items.len() {
            return Ok(false.into_pyobject(py)?.to_owned().into_any().unbind());
        }
        let mut equal = true;
        for (i, theirs) in other.try_iter()?.enumerate() {
            if i >= other_len || !self.items.item(py, i)?.bind(py).eq(theirs?)? {
                equal = false;
                break;
            }
        }
        Ok(equal.into_pyobject(py)?.to_owned().into_any().unbind())
    }

    /// `results + other`: a list, as for two lists.
    fn __add__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(other) = other.try_iter() else {
            return Ok(py.NotImplemented());
        };
        let list = self.to_list(py)?;
        for item in other {
            list.append(item?)?;
        }
        Ok(list.into_any().unbind())
    }

    /// `other + results`: a list, as for two lists.
    fn __radd__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(other) = other.try_iter() else {
            return Ok(py.NotImplemented());
        };
        let list = PyList::empty(py);
        for item in other {
            list.append(item?)?;
        }
        for i in 0..self.items.len() {
            list.append(self.items.item(py, i)?)?;
        }
        Ok(list.into_any().unbind())
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut parts = Vec::with_capacity(self.items.len());
        for i in 0..self.items.len() {
            parts.push(self.items.item(py, i)?.bind(py).repr()?.to_string());
        }
        Ok(format!("[{}]", parts.join(", ")))
    }
}

impl ResultList {
    fn to_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for i in 0..self.items.len() {
            list.append(self.items.item(py, i)?)?;
        }
        Ok(list)
    }
}

/// Iterator over a `ResultList`.
#[pyclass(module = "codesift._core")]
pub struct ResultIter {
    items: Items,
    next: usize,
    /// For hits: the file holding hit `next` (or an earlier one), so no search per step.
    file: usize,
}

#[pymethods]
impl ResultIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let index = self.next;
        if index >= self.items.len() {
            return Ok(None);
        }
        self.next += 1;
        let Items::Hits(store) = &self.items else {
            return self.items.item(py, index).map(Some);
        };
        while self.file + 1 < store.starts.len() && store.starts[self.file + 1] <= index {
            self.file += 1;
        }
        let view = GrepMatch {
            store: store.clone(),
            file: self.file,
            hit: index - store.starts[self.file],
            index,
        };
        Ok(Some(untracked(Py::new(py, view)?).into_any()))
    }

    fn __length_hint__(&self) -> usize {
        self.items.len().saturating_sub(self.next)
    }
}

/// What glob found, before the Python layer adds its summary.
#[pyclass(frozen, get_all, module = "codesift._core")]
pub struct GlobOutcome {
    pub files: Py<ResultList>,
    pub total: usize,
    pub truncated: bool,
    pub ignored: u64,
    pub errors: u64,
    /// The search path where it really is, workspace-relative.
    pub search_path: Py<PyString>,
    /// What the walk passed over: reason -> (count, example paths, directories with a `/`).
    pub skipped: Py<PyDict>,
}

/// What grep found, before the Python layer adds its summary.
#[pyclass(frozen, get_all, module = "codesift._core")]
pub struct GrepOutcome {
    pub matches: Py<ResultList>,
    /// Counter of the first match's id; the others follow consecutively.
    pub first_id: u64,
    pub total: u64,
    pub truncated: bool,
    pub timed_out: bool,
    pub files_searched: u64,
    pub files_with_matches: u64,
    pub binary_files: u64,
    pub unreadable: u64,
    pub ignored: u64,
    /// The search path where it really is, workspace-relative.
    pub search_path: Py<PyString>,
    /// The index chose the files searched (the hits are a scan's all the same).
    pub indexed: bool,
    /// Matches in each file of `matches` (in order; all of them counted in count mode).
    pub counts: Vec<u64>,
    /// What the walk and the searches passed over: reason -> (count, example paths).
    pub skipped: Py<PyDict>,
    /// With a token budget: `{"budget_tokens", "tokens", "left_out": {"hits", "files",
    /// "by_file": [(path, hits)], "by_directory": [(path, hits)]}}`; else None.
    pub spent: Option<Py<PyDict>>,
}

/// A token budget's account as a dict (see `GrepOutcome::spent`).
fn spent_dict(py: Python<'_>, spent: crate::rank::budget::Spent) -> PyResult<Py<PyDict>> {
    let left = PyDict::new(py);
    left.set_item("hits", spent.left_out.hits)?;
    left.set_item("files", spent.left_out.files)?;
    let named = |list: Vec<(std::path::PathBuf, u64)>| -> PyResult<Vec<(Py<PyAny>, u64)>> {
        list.into_iter()
            .map(|(path, n)| {
                Ok((
                    path.into_os_string().into_pyobject(py)?.into_any().unbind(),
                    n,
                ))
            })
            .collect()
    };
    left.set_item("by_file", named(spent.left_out.by_file)?)?;
    left.set_item("by_directory", named(spent.left_out.by_directory)?)?;
    let d = PyDict::new(py);
    d.set_item("budget_tokens", spent.budget_tokens)?;
    d.set_item("tokens", spent.tokens)?;
    d.set_item("left_out", left)?;
    Ok(d.unbind())
}

/// A directory tree for `list_dir`, before the Python layer adds its summary.
#[pyclass(frozen, get_all, module = "codesift._core")]
pub struct Listing {
    /// `(path relative to the listed directory, is_dir, is_link)`, in pre-order.
    pub entries: Vec<(Py<PyString>, bool, bool)>,
    pub total: usize,
    pub truncated: bool,
    /// Entries the ignore rules hid.
    pub ignored: u64,
    /// The listed directory where it really is, workspace-relative.
    pub path: Py<PyString>,
    /// What the listing passed over: reason -> (count, example paths).
    pub skipped: Py<PyDict>,
}

/// `reason -> (count, examples)` for Python; an example directory ends with `/`.
fn skipped_dict(py: Python<'_>, report: Vec<(Reason, u64, Vec<Example>)>) -> PyResult<Py<PyDict>> {
    let d = PyDict::new(py);
    for (reason, count, examples) in report {
        let shown: Vec<std::ffi::OsString> = examples
            .into_iter()
            .map(|example| {
                let mut path = example.path.into_os_string();
                if example.is_dir {
                    path.push("/");
                }
                path
            })
            .collect();
        d.set_item(reason.name(), (count, shown))?;
    }
    Ok(d.unbind())
}

pub fn tree_listing(
    py: Python<'_>,
    tree: Tree,
    walker: &Walker,
    real: PathBuf,
) -> PyResult<Listing> {
    let entries = tree
        .entries
        .into_iter()
        .map(|e| {
            let Ok(path) = e.rel.into_os_string().into_pyobject(py);
            (path.unbind(), e.is_dir, e.is_link)
        })
        .collect();
    Ok(Listing {
        entries,
        total: tree.total,
        truncated: tree.truncated,
        ignored: walker.stats().ignored(),
        path: real.into_os_string().into_pyobject(py)?.unbind(),
        skipped: skipped_dict(py, walker.stats().skipped.report())?,
    })
}

/// Takes a view out of the cyclic GC's lists: it holds no Python object that could be part of
/// a cycle, and untracked objects cost the collector nothing.
fn untracked<T>(object: Py<T>) -> Py<T> {
    // SAFETY: the object is alive and the GIL is held (we own a reference to a new object);
    // untracking twice is harmless, and dealloc does not require the object to be tracked.
    unsafe { pyo3::ffi::PyObject_GC_UnTrack(object.as_ptr().cast()) };
    object
}

pub fn glob_outcome(
    py: Python<'_>,
    outcome: EngineGlobOutcome<FileBlock>,
    root: Arc<Root>,
    links: Links,
) -> PyResult<GlobOutcome> {
    let store = FileStore::new(Some((root, links)), outcome.files, None);
    Ok(GlobOutcome {
        files: Py::new(
            py,
            ResultList {
                items: Items::Files(Arc::new(store)),
            },
        )?,
        total: outcome.total,
        truncated: outcome.truncated,
        ignored: outcome.ignored,
        errors: outcome.errors,
        search_path: outcome
            .search_path
            .into_os_string()
            .into_pyobject(py)?
            .unbind(),
        skipped: skipped_dict(py, outcome.skipped)?,
    })
}

/// The hits of `files` as a result list, ids from `id_start` (a stream's batch).
pub fn hit_list(
    py: Python<'_>,
    files: Vec<FileHits>,
    id_prefix: &str,
    id_start: u64,
) -> PyResult<Py<ResultList>> {
    let outcome = EngineGrepOutcome {
        files,
        ..EngineGrepOutcome::default()
    };
    Ok(grep_outcome(py, outcome, id_prefix, id_start)?.matches)
}

/// Ids are `prefix` + a base-36 counter: short, and unique within one workspace.
pub fn result_id(prefix: &str, n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut digits = Vec::new();
    let mut n = n;
    loop {
        digits.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    digits.reverse();
    let mut id = String::with_capacity(prefix.len() + digits.len());
    id.push_str(prefix);
    id.push_str(std::str::from_utf8(&digits).unwrap_or_default());
    id
}

pub fn grep_outcome(
    py: Python<'_>,
    outcome: EngineGrepOutcome,
    id_prefix: &str,
    id_start: u64,
) -> PyResult<GrepOutcome> {
    // A ranked answer holds a file in several pieces: the first counts.
    let files_with_matches = outcome.files.iter().filter(|f| !f.continued).count() as u64;
    // One count a file, in the order files first come (a ranked answer's later pieces of a
    // file add to its count).
    // For a ranked answer, each piece's file (its index among `counts`): the pieces of one
    // file share one Python string for its path (a ranked answer has up to a piece a hit).
    let mut file_of_piece: Vec<usize> = Vec::new();
    let counts: Vec<u64> = if outcome.files.iter().any(|f| f.continued) {
        let mut counts = Vec::new();
        file_of_piece.reserve(outcome.files.len());
        // Keyed by the path's bytes: `Path`'s own hash parses its components, which cost
        // more than the rest of this conversion (the paths are the engine's, normalised);
        // hashed by foldhash, which is several times SipHash's speed on short keys.
        let mut count_of: std::collections::HashMap<&[u8], usize, foldhash::fast::RandomState> =
            Default::default();
        for file in &outcome.files {
            let key = std::os::unix::ffi::OsStrExt::as_bytes(file.path.as_os_str());
            match count_of.get(key) {
                Some(&at) if file.continued => {
                    counts[at] += file.matches;
                    file_of_piece.push(at);
                }
                _ => {
                    count_of.insert(key, counts.len());
                    file_of_piece.push(counts.len());
                    counts.push(file.matches);
                }
            }
        }
        counts
    } else {
        // Each file in one piece (every answer but a ranked one): no path is looked up.
        outcome.files.iter().map(|f| f.matches).collect()
    };
    let mut encodings: Vec<(TextEncoding, Py<PyString>)> = Vec::new();
    let mut files = Vec::with_capacity(outcome.files.len());
    let mut path_of_file: Vec<Option<Py<PyString>>> = Vec::new();
    if !file_of_piece.is_empty() {
        path_of_file.resize_with(counts.len(), || None);
    }
    for (piece, file) in outcome.files.into_iter().enumerate() {
        let FileHits {
            path,
            hits,
            bytes,
            size,
            mtime_ns,
            encoding,
            ..
        } = file;
        // One Python string per file and per encoding, shared by its hits.
        let encoding = match encodings.iter().find(|(e, _)| *e == encoding) {
            Some((_, name)) => name.clone_ref(py),
            None => {
                let name = PyString::intern(py, encoding.name()).unbind();
                encodings.push((encoding, name.clone_ref(py)));
                name
            }
        };
        let path = match file_of_piece.get(piece) {
            Some(&at) => match &path_of_file[at] {
                Some(shared) => shared.clone_ref(py),
                None => {
                    let made = path.into_os_string().into_pyobject(py)?.unbind();
                    path_of_file[at] = Some(made.clone_ref(py));
                    made
                }
            },
            None => path.into_os_string().into_pyobject(py)?.unbind(),
        };
        files.push(StoredFile {
            path,
            encoding,
            size,
            mtime_ns,
            hits,
            bytes,
            byte_length: None,
        });
    }
    let ids = Ids::Serial {
        prefix: PyString::intern(py, id_prefix).unbind(),
        first: id_start,
    };
    let store = HitStore::new(files, ids, None);
    Ok(GrepOutcome {
        matches: Py::new(
            py,
            ResultList {
                items: Items::Hits(Arc::new(store)),
            },
        )?,
        first_id: id_start,
        total: outcome.total,
        truncated: outcome.truncated,
        timed_out: outcome.timed_out,
        files_searched: outcome.files_searched,
        files_with_matches,
        binary_files: outcome.binary_files,
        unreadable: outcome.unreadable,
        ignored: outcome.ignored,
        search_path: outcome
            .search_path
            .into_os_string()
            .into_pyobject(py)?
            .unbind(),
        indexed: outcome.indexed,
        counts,
        skipped: skipped_dict(py, outcome.skipped)?,
        spent: outcome
            .spent
            .map(|spent| spent_dict(py, spent))
            .transpose()?,
    })
}
