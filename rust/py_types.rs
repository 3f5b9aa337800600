//! Python result classes: frozen newtypes filled from engine results.

use crate::glob::{GlobFile, GlobOutcome as EngineGlobOutcome};
use crate::grep::{FileHits, Hit, TextEncoding};
use crate::search::GrepOutcome as EngineGrepOutcome;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

/// One file found by glob.
#[pyclass(frozen, get_all, module = "codesift._core")]
pub struct GlobMatch {
    pub path: String,
    pub mtime_ms: i64,
    pub size: u64,
    pub host: Option<String>,
}

#[pymethods]
impl GlobMatch {
    #[new]
    #[pyo3(signature = (path, mtime_ms, size, host = None))]
    fn new(path: String, mtime_ms: i64, size: u64, host: Option<String>) -> Self {
        GlobMatch {
            path,
            mtime_ms,
            size,
            host,
        }
    }

    /// The JSON-ready form.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("path", &self.path)?;
        d.set_item("mtime_ms", self.mtime_ms)?;
        d.set_item("size", self.size)?;
        if let Some(host) = &self.host {
            d.set_item("host", host)?;
        }
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "GlobMatch(path={:?}, mtime_ms={}, size={})",
            self.path, self.mtime_ms, self.size
        )
    }
}

/// One match found by grep.
#[pyclass(frozen, get_all, module = "codesift._core")]
pub struct GrepMatch {
    pub file: Py<PyString>,
    pub line: u64,
    pub column: u64,
    pub end_line: u64,
    pub byte_offset: u64,
    pub content: String,
    pub text: String,
    pub before: Vec<String>,
    pub after: Vec<String>,
    pub host: Option<String>,
    /// Length of the matched bytes in the file.
    pub byte_length: u64,
    /// The matched bytes occurred exactly once in the file when searched.
    pub unique: bool,
    pub file_size: u64,
    pub file_mtime_ns: i64,
    /// Codec of the file ("utf-8", "utf-8-sig", "utf-16-le", "utf-16-be"); offsets of
    /// UTF-16 files refer to their UTF-8 transcoding.
    pub encoding: Py<PyString>,
    /// The id is `id_prefix` + `serial` in base 36, built when asked for: most hits of a
    /// large result are never asked.
    pub id_prefix: Py<PyString>,
    pub serial: u64,
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
        id: String,
        file: String,
        line: u64,
        column: u64,
        end_line: u64,
        byte_offset: u64,
        content: String,
        text: String,
        before: Vec<String>,
        after: Vec<String>,
        host: Option<String>,
        byte_length: Option<u64>,
        unique: bool,
        file_size: u64,
        file_mtime_ns: i64,
        encoding: String,
    ) -> Self {
        let byte_length = byte_length.unwrap_or(content.len() as u64);
        GrepMatch {
            file: PyString::new(py, &file).unbind(),
            line,
            column,
            end_line,
            byte_offset,
            content,
            text,
            before,
            after,
            host,
            byte_length,
            unique,
            file_size,
            file_mtime_ns,
            encoding: PyString::new(py, &encoding).unbind(),
            id_prefix: PyString::new(py, &id).unbind(),
            serial: NO_SERIAL,
        }
    }

    /// `sr_...`: pass it to `edit_result` to replace exactly this match.
    #[getter]
    fn id(&self, py: Python<'_>) -> PyResult<Py<PyString>> {
        if self.serial == NO_SERIAL {
            return Ok(self.id_prefix.clone_ref(py));
        }
        let prefix = self.id_prefix.bind(py).to_str()?;
        Ok(PyString::new(py, &result_id(prefix, self.serial)).unbind())
    }

    /// The JSON-ready form (the public fields).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("id", self.id(py)?)?;
        d.set_item("file", &self.file)?;
        d.set_item("line", self.line)?;
        d.set_item("column", self.column)?;
        d.set_item("end_line", self.end_line)?;
        d.set_item("byte_offset", self.byte_offset)?;
        d.set_item("content", &self.content)?;
        d.set_item("text", &self.text)?;
        d.set_item("before", &self.before)?;
        d.set_item("after", &self.after)?;
        if let Some(host) = &self.host {
            d.set_item("host", host)?;
        }
        Ok(d)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "GrepMatch(id={:?}, file={:?}, line={}, column={}, content={:?})",
            self.id(py)?.bind(py).to_str()?,
            self.file.bind(py).to_str()?,
            self.line,
            self.column,
            self.content
        ))
    }
}

/// `serial` of a match built from Python with an explicit id.
const NO_SERIAL: u64 = u64::MAX;

/// What glob found, before the Python layer adds its summary.
#[pyclass(frozen, get_all, module = "codesift._core")]
pub struct GlobOutcome {
    pub files: Vec<Py<GlobMatch>>,
    pub total: usize,
    pub truncated: bool,
    pub ignored: u64,
    pub errors: u64,
}

/// What grep found, before the Python layer adds its summary.
#[pyclass(frozen, get_all, module = "codesift._core")]
pub struct GrepOutcome {
    pub matches: Vec<Py<GrepMatch>>,
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
}

/// Pauses Python's cyclic garbage collector while it lives. Creating hundreds of thousands
/// of result objects otherwise triggers collection after collection, each traversing every
/// young object (most of the conversion time); these objects cannot form cycles.
struct GcPause {
    was_enabled: bool,
}

impl GcPause {
    fn new(_py: Python<'_>) -> GcPause {
        // SAFETY: called with the GIL held (the `Python` token proves it).
        GcPause {
            was_enabled: unsafe { pyo3::ffi::PyGC_Disable() } == 1,
        }
    }
}

impl Drop for GcPause {
    fn drop(&mut self) {
        if self.was_enabled {
            // SAFETY: the GIL is still held: the pause never outlives the conversion.
            unsafe { pyo3::ffi::PyGC_Enable() };
        }
    }
}

/// Takes a result object out of the cyclic GC's lists: it holds only strings, so it can never
/// be part of a cycle, and a large result would otherwise be traversed by every collection.
fn untracked<T>(object: Py<T>) -> Py<T> {
    // SAFETY: the object is alive and the GIL is held (we own a reference to a new object);
    // untracking twice is harmless, and dealloc does not require the object to be tracked.
    unsafe { pyo3::ffi::PyObject_GC_UnTrack(object.as_ptr().cast()) };
    object
}

pub fn glob_outcome(py: Python<'_>, outcome: EngineGlobOutcome) -> PyResult<GlobOutcome> {
    let _pause = GcPause::new(py);
    let files = outcome
        .files
        .into_iter()
        .map(
            |GlobFile {
                 path,
                 mtime_ms,
                 size,
             }| {
                Py::new(
                    py,
                    GlobMatch {
                        path,
                        mtime_ms,
                        size,
                        host: None,
                    },
                )
            },
        )
        .collect::<PyResult<_>>()?;
    Ok(GlobOutcome {
        files,
        total: outcome.total,
        truncated: outcome.truncated,
        ignored: outcome.ignored,
        errors: outcome.errors,
    })
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
    let _pause = GcPause::new(py);
    let count: usize = outcome.files.iter().map(|f| f.hits.len()).sum();
    let mut matches = Vec::with_capacity(count);
    let mut serial = id_start;
    let files_with_matches = outcome.files.len() as u64;
    let prefix = PyString::intern(py, id_prefix).unbind();
    let mut encodings: Vec<(TextEncoding, Py<PyString>)> = Vec::new();
    for file in outcome.files {
        let FileHits {
            path,
            hits,
            size,
            mtime_ns,
            encoding,
            ..
        } = file;
        // One Python string per file and per encoding, shared by its hits.
        let file_name = PyString::new(py, &path).unbind();
        let encoding = match encodings.iter().find(|(e, _)| *e == encoding) {
            Some((_, name)) => name.clone_ref(py),
            None => {
                let name = PyString::intern(py, encoding.name()).unbind();
                encodings.push((encoding, name.clone_ref(py)));
                name
            }
        };
        for hit in hits {
            let Hit {
                line,
                column,
                end_line,
                byte_offset,
                content,
                text,
                before,
                after,
                unique,
            } = hit;
            let byte_length = content.len() as u64;
            let content = match String::from_utf8(content) {
                Ok(s) => s,
                Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
            };
            matches.push(untracked(Py::new(
                py,
                GrepMatch {
                    file: file_name.clone_ref(py),
                    line,
                    column,
                    end_line,
                    byte_offset,
                    content,
                    text,
                    before,
                    after,
                    host: None,
                    byte_length,
                    unique,
                    file_size: size,
                    file_mtime_ns: mtime_ns,
                    encoding: encoding.clone_ref(py),
                    id_prefix: prefix.clone_ref(py),
                    serial,
                },
            )?));
            serial += 1;
        }
    }
    Ok(GrepOutcome {
        matches,
        first_id: id_start,
        total: outcome.total,
        truncated: outcome.truncated,
        timed_out: outcome.timed_out,
        files_searched: outcome.files_searched,
        files_with_matches,
        binary_files: outcome.binary_files,
        unreadable: outcome.unreadable,
        ignored: outcome.ignored,
    })
}
