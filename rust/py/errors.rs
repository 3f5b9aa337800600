//! Python exceptions of codesift and the conversion of engine errors into them.

use crate::error::Error;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    codesift,
    CodesiftError,
    PyException,
    "Base class of every codesift error."
);
create_exception!(
    codesift,
    SandboxError,
    CodesiftError,
    "A path outside the workspace or denied by an access-ignore file."
);
create_exception!(
    codesift,
    NotFoundError,
    CodesiftError,
    "A path that does not exist."
);
create_exception!(
    codesift,
    NotAFileError,
    CodesiftError,
    "A directory, FIFO or device where a regular file is needed."
);
create_exception!(
    codesift,
    BinaryFileError,
    CodesiftError,
    "A binary file where text is needed."
);
create_exception!(
    codesift,
    PatternError,
    CodesiftError,
    "A regex or glob that does not compile."
);
create_exception!(
    codesift,
    MatchError,
    CodesiftError,
    "An edit whose text matched nowhere, several times, or stale."
);
create_exception!(
    codesift,
    StaleResultError,
    MatchError,
    "A searchResultId that is unknown, evicted or no longer matches the file."
);
create_exception!(
    codesift,
    ConflictError,
    CodesiftError,
    "A file changed on disk between reading it and writing it; nothing was written."
);
create_exception!(
    codesift,
    InvalidArgumentError,
    CodesiftError,
    "An argument outside its allowed values."
);

create_exception!(
    codesift,
    CancelledError,
    CodesiftError,
    "A search stopped early because it was cancelled (through its CancelToken)."
);

impl From<Error> for PyErr {
    /// The exception of the error's kind, with the whole message (in the library's words) as
    /// its text, and, for an error with a hint, `problem` (what went wrong) and `hints` (what
    /// to do: `(text, concepts, fallback, separator)` tuples, `codesift.errors.Hint`) as
    /// attributes, which each surface renders in its own words.
    fn from(err: Error) -> PyErr {
        let msg = err.to_string();
        let exception = match err.unhinted() {
            Error::Pattern(_) => PatternError::new_err(msg),
            Error::NotFound(_) => NotFoundError::new_err(msg),
            Error::InvalidArgument(_) => InvalidArgumentError::new_err(msg),
            Error::Sandbox(_) => SandboxError::new_err(msg),
            Error::NotAFile(_) => NotAFileError::new_err(msg),
            Error::Binary(_) => BinaryFileError::new_err(msg),
            Error::Conflict(_) => ConflictError::new_err(msg),
            Error::Io(_) | Error::Hinted(..) => CodesiftError::new_err(msg),
            Error::Cancelled(_) => CancelledError::new_err(msg),
        };
        let Some(hint) = err.hint() else {
            return exception;
        };
        Python::attach(|py| {
            let value = exception.value(py);
            let hints = [(
                hint.text,
                hint.concepts.to_vec(),
                hint.fallback,
                hint.separator,
            )];
            // Setting an attribute on a fresh exception cannot fail; were it to, the
            // exception still carries the whole message.
            let _ = value.setattr("problem", err.problem());
            let _ = value.setattr("hints", hints);
        });
        exception
    }
}

/// Runs `f`, turning a panic into a `CodesiftError` so that none reaches Python as a
/// `PanicException` (which `except Exception` would not catch).
pub fn catch_panic<T>(f: impl FnOnce() -> Result<T, Error>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(result) => result.map_err(PyErr::from),
        Err(panic) => {
            let detail = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(CodesiftError::new_err(format!(
                "internal error in the search engine ({detail}); please report it"
            )))
        }
    }
}

/// Runs the engine's `f` without the GIL (other Python threads run meanwhile), its error or
/// panic coming back as the Python exception `catch_panic` gives.
pub fn detached<T: Send>(
    py: Python<'_>,
    f: impl FnOnce() -> Result<T, Error> + Send,
) -> PyResult<T> {
    py.detach(|| catch_panic(f))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("CodesiftError", py.get_type::<CodesiftError>())?;
    m.add("SandboxError", py.get_type::<SandboxError>())?;
    m.add("NotFoundError", py.get_type::<NotFoundError>())?;
    m.add("NotAFileError", py.get_type::<NotAFileError>())?;
    m.add("BinaryFileError", py.get_type::<BinaryFileError>())?;
    m.add("PatternError", py.get_type::<PatternError>())?;
    m.add("MatchError", py.get_type::<MatchError>())?;
    m.add("StaleResultError", py.get_type::<StaleResultError>())?;
    m.add("ConflictError", py.get_type::<ConflictError>())?;
    m.add(
        "InvalidArgumentError",
        py.get_type::<InvalidArgumentError>(),
    )?;
    m.add("CancelledError", py.get_type::<CancelledError>())?;
    Ok(())
}
