//! The `Engine` class: a workspace's walk options, and glob/grep/rule checks run without the GIL.

use crate::error::Error;
use crate::glob::{GlobQuery, GlobSort, glob};
use crate::grep::PatternOptions;
use crate::py_errors::catch_panic;
use crate::py_types::{GlobOutcome, GrepOutcome, glob_outcome, grep_outcome};
use crate::rules::{RuleOptions, Rules, Verdict};
use crate::search::{GrepQuery, grep};
use crate::walk::{WalkOptions, Walker};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Search engine bound to one canonical workspace root.
#[pyclass(frozen, module = "codesift._core")]
pub struct Engine {
    options: WalkOptions,
    id_prefix: String,
    /// Number of the next search-result id; reserved atomically, a block per search.
    next_id: AtomicU64,
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(signature = (root, *, gitignore = true, access_files = vec![".clineignore".to_string(), ".codesiftignore".to_string()],
        hidden = true, follow_symlinks = false, max_filesize = None, threads = None, id_prefix = "sr_".to_string()))]
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
    ) -> Self {
        Engine {
            options: WalkOptions {
                root,
                rules: RuleOptions {
                    gitignore,
                    access_files,
                },
                hidden,
                follow_symlinks,
                max_filesize,
                threads: threads.unwrap_or(0),
            },
            id_prefix,
            next_id: AtomicU64::new(0),
        }
    }

    #[getter]
    fn root(&self) -> PathBuf {
        self.options.root.clone()
    }

    /// Every search-result id of this engine starts with this.
    #[getter]
    fn id_prefix(&self) -> &str {
        &self.id_prefix
    }

    /// Files under `search_path` (absolute, inside the root) matching `pattern`.
    #[pyo3(signature = (search_path, pattern, *, case_sensitive = true, limit = 2000, sort = "path"))]
    fn glob(
        &self,
        py: Python<'_>,
        search_path: PathBuf,
        pattern: String,
        case_sensitive: bool,
        limit: usize,
        sort: &str,
    ) -> PyResult<GlobOutcome> {
        let sort = GlobSort::parse(sort)?;
        let options = self.options.clone();
        let root = options.root.clone();
        let query = GlobQuery {
            pattern,
            search_path,
            case_sensitive,
            limit,
            sort,
        };
        let outcome = py.detach(move || {
            catch_panic(|| {
                ensure_exists(&query.search_path)?;
                glob(&Walker::new(options), &query)
            })
        })?;
        glob_outcome(py, outcome, root)
    }

    /// Matches of `pattern` under `search_path` (absolute, inside the root; file or directory).
    #[pyo3(signature = (search_path, pattern, *, literal = false, case_sensitive = false,
        multiline = None, before = 0, after = 0, include = Vec::new(), exclude = Vec::new(),
        max_matches = Some(500), count_total = false, timeout = None))]
    #[allow(clippy::too_many_arguments)]
    fn grep(
        &self,
        py: Python<'_>,
        search_path: PathBuf,
        pattern: String,
        literal: bool,
        case_sensitive: bool,
        multiline: Option<bool>,
        before: usize,
        after: usize,
        include: Vec<String>,
        exclude: Vec<String>,
        max_matches: Option<usize>,
        count_total: bool,
        timeout: Option<f64>,
    ) -> PyResult<GrepOutcome> {
        let timeout: Option<Duration> = timeout.map(crate::grep::timeout_duration).transpose()?;
        let options = self.options.clone();
        let query = GrepQuery {
            pattern: PatternOptions {
                pattern,
                literal,
                case_sensitive,
                multiline,
                before,
                after,
            },
            search_path,
            include,
            exclude,
            max_matches,
            count_total,
            timeout,
        };
        let outcome = py.detach(move || {
            catch_panic(|| {
                ensure_exists(&query.search_path)?;
                grep(Walker::new(options), &query)
            })
        })?;
        let count: usize = outcome.files.iter().map(|f| f.hits.len()).sum();
        let first_id = self.next_id.fetch_add(count as u64, Ordering::Relaxed);
        grep_outcome(py, outcome, &self.id_prefix, first_id)
    }

    /// The visible entries of directory `path` (absolute, inside the root) as
    /// `(name, is_dir)` pairs, unsorted, and the number of entries ignore rules hid.
    fn list_dir(&self, py: Python<'_>, path: PathBuf) -> PyResult<(Vec<(String, bool)>, u64)> {
        let options = self.options.clone();
        py.detach(move || {
            catch_panic(|| {
                let walker = Walker::new(options);
                let entries = walker.list_dir(&path).map_err(|source| Error::Io {
                    path: path.clone(),
                    source,
                })?;
                Ok((entries, walker.stats().ignored()))
            })
        })
    }

    /// What the ignore rules say of `path` (absolute, inside the root), ancestors included:
    /// "visible", "hidden" (by .gitignore and friends) or "denied" (by an access-ignore file).
    #[pyo3(signature = (path, is_dir = false))]
    fn verdict(&self, py: Python<'_>, path: PathBuf, is_dir: bool) -> PyResult<&'static str> {
        let options = self.options.clone();
        let verdict = py.detach(move || {
            catch_panic(|| {
                let rules = Rules::new(options.root.clone(), options.rules.clone());
                Ok(rules.verdict_with_ancestors(&path, is_dir))
            })
        })?;
        Ok(match verdict {
            Verdict::Visible => "visible",
            Verdict::Hidden => "hidden",
            Verdict::Denied => "denied",
        })
    }
}

fn ensure_exists(path: &std::path::Path) -> Result<(), Error> {
    if path.exists() {
        Ok(())
    } else {
        Err(Error::NotFound(path.to_path_buf()))
    }
}
