//! codesift's compiled core: the engine modules (fs: the root handle, walkers and atomic
//! writes; rules, glob, grep, search, types, files) and the one Python module `codesift._core` that
//! exposes them.

pub mod cancel;
pub mod error;
pub mod files;
pub mod fs;
pub mod glob;
pub mod grep;
pub mod index;
pub mod page;
pub mod rules;
pub mod search;
pub mod types;

mod py_cancel;
mod py_engine;
mod py_errors;
mod py_glob;
mod py_types;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<py_engine::Engine>()?;
    m.add_class::<py_cancel::CancelToken>()?;
    m.add_class::<py_engine::FileLock>()?;
    m.add_class::<py_types::GlobMatch>()?;
    m.add_class::<py_types::GrepMatch>()?;
    m.add_class::<py_types::ResultList>()?;
    m.add_class::<py_types::ResultIter>()?;
    m.add_class::<py_types::GlobOutcome>()?;
    m.add_class::<py_types::GrepOutcome>()?;
    m.add_class::<py_types::Listing>()?;
    m.add_function(wrap_pyfunction!(py_glob::file_types, m)?)?;
    m.add_class::<py_glob::GlobMatcher>()?;
    m.add_function(wrap_pyfunction!(py_glob::normalize_glob, m)?)?;
    py_errors::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
