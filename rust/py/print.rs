//! `GrepPrinter`: the engine's printer of piped `codesift grep` output (`crate::print`) as
//! Python holds it for one command line; `GrepStream.print_files` prints with it.

use crate::print::{Layout, PrintOptions, Printer};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

#[pyclass(module = "codesift._core")]
pub struct GrepPrinter {
    pub printer: Printer,
}

impl GrepPrinter {
    /// Whether files are printed with their names (`show` is asked for them).
    pub fn wants_name(&self) -> bool {
        !matches!(self.printer.options().layout, Layout::Json { .. })
    }

    pub fn is_json(&self) -> bool {
        matches!(self.printer.options().layout, Layout::Json { .. })
    }
}

#[pymethods]
impl GrepPrinter {
    /// `layout`: "lines", "only-matching", "vimgrep", "vimgrep-only-matching", "count-lines", "count-per-match"
    /// (`-c -o`, `-c -U`), "count-matches", "files", "json" or "json-full".
    #[new]
    #[pyo3(signature = (layout, *, line_number, column, context, null = false))]
    fn new(
        layout: &str,
        line_number: bool,
        column: bool,
        context: bool,
        null: bool,
    ) -> PyResult<GrepPrinter> {
        let layout = match layout {
            "lines" => Layout::Lines,
            "only-matching" => Layout::OnlyMatching,
            "vimgrep" => Layout::Vimgrep {
                only_matching: false,
            },
            "vimgrep-only-matching" => Layout::Vimgrep {
                only_matching: true,
            },
            "count-lines" => Layout::CountLines { per_match: false },
            "count-per-match" => Layout::CountLines { per_match: true },
            "count-matches" => Layout::CountMatches,
            "files" => Layout::Files,
            "json" => Layout::Json { full: false },
            "json-full" => Layout::Json { full: true },
            other => return Err(PyValueError::new_err(format!("no layout {other:?}"))),
        };
        Ok(GrepPrinter {
            printer: Printer::new(PrintOptions {
                layout,
                line_number,
                column,
                context,
                null,
            }),
        })
    }

    /// Whether anything was printed (a file printed by the caller sets it).
    #[getter]
    fn get_printed(&self) -> bool {
        self.printer.printed()
    }

    #[setter]
    fn set_printed(&mut self, printed: bool) {
        self.printer.set_printed(printed);
    }

    /// Starts a PATH's output (`--json` prints a document per PATH).
    fn start_path(&mut self) {
        self.printer.start_path();
    }

    /// `--json`: whether `{"matches": [` was printed (a hit was).
    #[getter]
    fn json_open(&self) -> bool {
        self.printer.json_open()
    }

    /// `--json`: the files with hits (root-relative), in order, as the document lists them.
    #[getter]
    fn json_files<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(
            py,
            self.printer
                .json_files
                .iter()
                .map(|p| p.as_os_str().to_os_string()),
        )
    }

    /// `--json`: each file's matches (its pieces added up).
    #[getter]
    fn json_counts(&self) -> Vec<u64> {
        self.printer.json_counts.clone()
    }
}
