//! `GlobMatcher`: codesift's glob rules for Python callers that match paths themselves (the
//! remote "shell" strategy matches the names `find` lists), so both agree with local search;
//! and `file_types`, the ripgrep file types that `type=` selects.

use crate::glob::{PathPattern, normalize};
use crate::py::errors::catch_panic;
use pyo3::prelude::*;

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
