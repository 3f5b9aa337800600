//! codesift's compiled core: the engine modules (fs: the root handle, walkers, rules, file
//! operations and atomic writes; glob (and its stream), grep, search, print (piped grep
//! output), index, daemon, types, tags (definitions found by tree-sitter tag queries); the
//! stream that
//! `grep_iter` and `glob_iter` share; the grep request
//! and the workspace that runs it) and the one Python module `codesift._core` (bindings in
//! `py/`) that exposes them.

pub mod cancel;
pub mod daemon;
pub mod error;
pub mod fs;
pub mod glob;
pub mod glob_stream;
pub mod grep;
pub mod index;
pub mod print;
pub mod rank;
pub mod request;
pub mod rg;
pub mod search;
pub mod stream;
pub mod tags;
#[cfg(test)]
mod test_support;
pub mod threads;
pub mod types;
pub mod workspace;

#[cfg(feature = "python")]
mod py;

/// The Python module's allocator. With glibc's, the frees of one large answer (16,000 hits,
/// freed on another thread than the one that made them) were paid by the next search: its
/// first large allocation sorted every freed chunk into glibc's bins, a third of a first-100
/// search's time. mimalloc frees into per-page lists that cost nothing later.
#[cfg(feature = "python")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(feature = "python")]
use pyo3::prelude::*;

#[cfg(feature = "python")]
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<py::engine::Engine>()?;
    m.add_class::<py::request::GrepRequest>()?;
    m.add_class::<py::request::GlobRequest>()?;
    m.add_class::<py::cancel::CancelToken>()?;
    m.add_class::<py::engine::FileLock>()?;
    m.add_class::<py::results::GlobMatch>()?;
    m.add_class::<py::results::GrepMatch>()?;
    m.add_class::<py::results::ResultList>()?;
    m.add_class::<py::results::ResultIter>()?;
    m.add_class::<py::results::GlobOutcome>()?;
    m.add_class::<py::results::GrepOutcome>()?;
    m.add_class::<py::stream::GrepStream>()?;
    m.add_class::<py::print::GrepPrinter>()?;
    m.add_class::<py::glob::GlobStream>()?;
    m.add_class::<py::results::Listing>()?;
    m.add_function(wrap_pyfunction!(py::glob::file_types, m)?)?;
    m.add_class::<py::glob::GlobMatcher>()?;
    m.add_function(wrap_pyfunction!(py::glob::normalize_glob, m)?)?;
    m.add_function(wrap_pyfunction!(py::glob::check_regex, m)?)?;
    m.add_function(wrap_pyfunction!(py::daemon::daemon_serve, m)?)?;
    m.add_function(wrap_pyfunction!(py::daemon::daemon_request, m)?)?;
    m.add_function(wrap_pyfunction!(py::daemon::daemon_spawn, m)?)?;
    m.add_function(wrap_pyfunction!(py::daemon::daemon_dir, m)?)?;
    py::errors::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
