//! File types by name, as ripgrep's `-t`/`-T`: the `ignore` crate's default definitions
//! (`py` = `*.py`, `*.pyi`; `rust` = `*.rs`; ...), selected and negated per search. A type
//! matches on the file name only, and never on a directory.

use crate::error::{Error, Hint, Result, concept};
use ignore::types::{Types, TypesBuilder};
use std::path::Path;

/// Most type names in one selection (there are a few hundred definitions in all).
pub const MAX_TYPES: usize = 100;

/// A selection of file types: a file passes when it has one of the selected types (if any
/// are selected) and none of the negated ones.
#[derive(Clone, Debug)]
pub struct FileTypes {
    types: Types,
}

impl FileTypes {
    /// The selection of `select` and `negate` (type names), or `None` when both are empty.
    /// An unknown name is an error naming the closest known ones.
    pub fn new(select: &[String], negate: &[String]) -> Result<Option<FileTypes>> {
        if select.is_empty() && negate.is_empty() {
            return Ok(None);
        }
        if select.len() + negate.len() > MAX_TYPES {
            return Err(Error::InvalidArgument(format!(
                "{} file types given; at most {MAX_TYPES} are allowed",
                select.len() + negate.len()
            )));
        }
        let mut builder = defaults();
        let known: Vec<String> = builder
            .definitions()
            .iter()
            .map(|d| d.name().to_string())
            .collect();
        for (names, what) in [(select, "type"), (negate, "type_not")] {
            for name in names {
                // "all" selects every defined type (ripgrep's own meaning).
                if name != "all" && !known.iter().any(|k| k == name) {
                    return Err(unknown(what, name, &known));
                }
            }
        }
        for name in select {
            builder.select(name);
        }
        for name in negate {
            builder.negate(name);
        }
        let types = builder
            .build()
            .map_err(|e| Error::InvalidArgument(format!("bad file type selection: {e}")))?;
        Ok(Some(FileTypes { types }))
    }

    /// Whether a file (workspace-relative path; only its name counts) passes.
    pub fn accepts(&self, rel: &Path) -> bool {
        !self.types.matched(rel, false).is_ignore()
    }
}

/// Every defined type as `(name, globs)`, sorted by name (ripgrep's `--type-list`).
pub fn definitions() -> Vec<(String, Vec<String>)> {
    defaults()
        .definitions()
        .into_iter()
        .map(|d| (d.name().to_string(), d.globs().to_vec()))
        .collect()
}

fn defaults() -> TypesBuilder {
    let mut builder = TypesBuilder::new();
    builder.add_defaults();
    builder
}

/// The error for an unknown type name, with the known names closest to it.
fn unknown(what: &str, name: &str, known: &[String]) -> Error {
    let shown = crate::grep::abbreviate(name);
    let close = closest(name, known);
    let hint = if close.is_empty() {
        String::new()
    } else {
        format!(" Did you mean: {}?", close.join(", "))
    };
    Error::InvalidArgument(format!(
        "unknown file type {shown:?} in {what}.{hint} Types are ripgrep's (`rg --type-list`), \
         e.g. py, rust, js, ts, go, java, c, cpp, md."
    ))
    .hinted(Hint {
        text: "Or filter by name with {option}.",
        concepts: &[concept::FILE_GLOB],
        fallback: "",
        separator: " ",
    })
}

/// Up to five known names closest to `name`: those it starts, contains or is contained in
/// first, then by edit distance (at most a third of the name, at least 2).
fn closest(name: &str, known: &[String]) -> Vec<String> {
    let lower = name.to_lowercase();
    let mut scored: Vec<(usize, &String)> = known
        .iter()
        .filter_map(|k| {
            let score = if lower.len() >= 2
                && (k.starts_with(&lower) || (k.len() >= 2 && lower.starts_with(k.as_str())))
            {
                0
            } else if lower.len() >= 3
                && (k.contains(&lower) || (k.len() >= 3 && lower.contains(k.as_str())))
            {
                1
            } else {
                let distance = edit_distance(&lower, k);
                if distance > (lower.chars().count() / 3).max(2) {
                    return None;
                }
                1 + distance
            };
            Some((score, k))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(5).map(|(_, k)| k.clone()).collect()
}

/// Levenshtein distance between short names, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn select_and_negate_like_ripgrep() {
        let py = FileTypes::new(&names(&["py"]), &[]).unwrap().unwrap();
        assert!(py.accepts(Path::new("src/a.py")));
        assert!(py.accepts(Path::new("a.pyi")));
        assert!(!py.accepts(Path::new("a.rs")));
        let not_py = FileTypes::new(&[], &names(&["py"])).unwrap().unwrap();
        assert!(!not_py.accepts(Path::new("src/a.py")));
        assert!(not_py.accepts(Path::new("a.rs")));
        assert!(not_py.accepts(Path::new("Makefile")));
        assert!(FileTypes::new(&[], &[]).unwrap().is_none());
    }

    #[test]
    fn unknown_types_name_close_ones() {
        let err = FileTypes::new(&names(&["pyhton"]), &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown file type \"pyhton\""), "{err}");
        assert!(err.contains("Did you mean: py, python?"), "{err}");
        let err = FileTypes::new(&[], &names(&["rus"]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("type_not") && err.contains("rust"), "{err}");
    }

    #[test]
    fn definitions_include_the_common_types() {
        let defs = definitions();
        let py = defs.iter().find(|(n, _)| n == "py").unwrap();
        assert!(py.1.contains(&"*.py".to_string()), "{py:?}");
        assert!(defs.windows(2).all(|w| w[0].0 <= w[1].0));
    }
}
