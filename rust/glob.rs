//! Glob patterns with codesift's matching rules, and the file-name search built on them.
//!
//! A pattern without `/` matches the file name at any depth (`*.md` = `**/*.md`). A pattern
//! with `/` matches the path relative to the search directory or relative to the workspace
//! root, whichever matches. `*` and `?` never cross `/`; `**` does; `{a,b}` and `[...]` work.

use crate::error::{Error, Result};
use crate::walk::{Batch, Walker, relative};
use globset::{GlobBuilder, GlobMatcher};
use ignore::WalkState;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::UNIX_EPOCH;

/// One compiled glob with the rule for what it is matched against.
struct Rule {
    matcher: GlobMatcher,
    /// Matches the file name only (the pattern has no `/`).
    name_only: bool,
    /// Leading directories without glob syntax (`drivers` in `drivers/**/*.h`).
    literal_dirs: PathBuf,
}

/// A set of glob patterns; a path matches when any of them matches.
pub struct PathPattern {
    rules: Vec<Rule>,
    case_sensitive: bool,
}

impl PathPattern {
    pub fn new<S: AsRef<str>>(patterns: &[S], case_sensitive: bool) -> Result<PathPattern> {
        let mut rules = Vec::with_capacity(patterns.len());
        for pattern in patterns {
            let original = pattern.as_ref();
            let normalized = normalize(original);
            if normalized.is_empty() {
                return Err(Error::Pattern(format!(
                    "invalid glob {original:?}: the pattern is empty; use \"**\" to match every file"
                )));
            }
            let matcher = GlobBuilder::new(&normalized)
                .literal_separator(true)
                .case_insensitive(!case_sensitive)
                .empty_alternates(true)
                .build()
                .map_err(|e| Error::Pattern(format!("invalid glob {original:?}: {}", e.kind())))?
                .compile_matcher();
            let name_only = !normalized.contains('/');
            rules.push(Rule {
                matcher,
                name_only,
                literal_dirs: literal_dirs(&normalized),
            });
        }
        Ok(PathPattern {
            rules,
            case_sensitive,
        })
    }

    /// Whether the entry matches. `rel_search` is relative to the search directory,
    /// `rel_root` to the workspace root.
    pub fn is_match(&self, rel_search: &str, rel_root: &str) -> bool {
        let name = rel_root.rsplit('/').next().unwrap_or(rel_root);
        self.rules.iter().any(|rule| {
            if rule.name_only {
                rule.matcher.is_match(name)
            } else {
                rule.matcher.is_match(rel_search)
                    || (rel_search != rel_root && rule.matcher.is_match(rel_root))
            }
        })
    }

    /// Whether the file at `path` matches, building relative paths only when a rule needs
    /// them (a name-only rule reads the file name alone).
    pub fn matches_path(&self, path: &Path, search_dir: &Path, root: &Path) -> bool {
        let name = path.file_name().map(|n| n.to_string_lossy());
        let mut rels: Option<(String, String)> = None;
        self.rules.iter().any(|rule| {
            if rule.name_only {
                return name.as_deref().is_some_and(|n| rule.matcher.is_match(n));
            }
            let (rel_search, rel_root) =
                rels.get_or_insert_with(|| (relative(search_dir, path), relative(root, path)));
            rule.matcher.is_match(rel_search.as_str())
                || (rel_search != rel_root && rule.matcher.is_match(rel_root.as_str()))
        })
    }

    /// The directories a walk must cover to find every match under `search_dir`: fewer and
    /// deeper than `search_dir` itself when the patterns start with literal directories.
    pub fn walk_starts(&self, root: &Path, search_dir: &Path) -> Vec<PathBuf> {
        let mut starts: Vec<PathBuf> = Vec::new();
        for rule in &self.rules {
            if rule.name_only || !self.case_sensitive || rule.literal_dirs.as_os_str().is_empty() {
                return vec![search_dir.to_path_buf()];
            }
            for base in [search_dir, root] {
                let candidate = base.join(&rule.literal_dirs);
                if candidate.starts_with(search_dir) {
                    if candidate.is_dir() {
                        starts.push(candidate);
                    }
                } else if search_dir.starts_with(&candidate) {
                    starts.push(search_dir.to_path_buf());
                }
            }
        }
        starts.sort();
        starts.dedup();
        // Keep only the outermost start of nested ones; sorted order puts a parent first.
        let mut outer: Vec<PathBuf> = Vec::new();
        for start in starts {
            if !outer.iter().any(|o| start.starts_with(o)) {
                outer.push(start);
            }
        }
        outer
    }
}

/// A glob as codesift reads it: `./` and leading `/` dropped, `dir/` meaning `dir/**`, `.` meaning `**`.
pub fn normalize(pattern: &str) -> String {
    let mut p = pattern.trim();
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    let p = p.trim_start_matches('/');
    if p == "." {
        return "**".to_string();
    }
    match p.strip_suffix('/') {
        // "dir/" asks for the files in dir.
        Some(dir) if !dir.is_empty() => format!("{dir}/**"),
        _ => p.to_string(),
    }
}

fn literal_dirs(pattern: &str) -> PathBuf {
    let components: Vec<&str> = pattern.split('/').collect();
    let mut dirs = PathBuf::new();
    for component in &components[..components.len().saturating_sub(1)] {
        if component.contains(['*', '?', '[', '{', '\\']) || component.is_empty() {
            break;
        }
        if *component == "." || *component == ".." {
            break;
        }
        dirs.push(component);
    }
    dirs
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlobSort {
    Path,
    Mtime,
    None,
}

impl GlobSort {
    pub fn parse(s: &str) -> Result<GlobSort> {
        match s {
            "path" => Ok(GlobSort::Path),
            "mtime" => Ok(GlobSort::Mtime),
            "none" => Ok(GlobSort::None),
            other => Err(Error::InvalidArgument(format!(
                "sort must be \"path\", \"mtime\" or \"none\", not {other:?}"
            ))),
        }
    }
}

pub struct GlobQuery {
    pub pattern: String,
    /// Absolute, canonical, inside the root.
    pub search_path: PathBuf,
    pub case_sensitive: bool,
    pub limit: usize,
    pub sort: GlobSort,
}

#[derive(Clone, Debug)]
pub struct GlobFile {
    /// Relative to the workspace root, `/`-separated.
    pub path: String,
    /// `(mtime_ms, size)` when the walk read them (to sort by mtime); otherwise the Python
    /// layer reads them when first asked: most callers want paths only, and a stat per
    /// returned file cost a third of a large glob.
    pub metadata: Option<(i64, u64)>,
}

#[derive(Debug)]
pub struct GlobOutcome {
    pub files: Vec<GlobFile>,
    pub total: usize,
    pub truncated: bool,
    pub ignored: u64,
    pub errors: u64,
}

/// Finds the files matching `query.pattern` under `query.search_path`.
pub fn glob(walker: &Walker, query: &GlobQuery) -> Result<GlobOutcome> {
    let pattern = PathPattern::new(&[query.pattern.as_str()], query.case_sensitive)?;
    let root = walker.options().root.clone();
    let search = &query.search_path;
    let want_mtime = query.sort == GlobSort::Mtime;
    let found: Mutex<Vec<GlobFile>> = Mutex::new(Vec::new());

    if search.is_file() {
        let rel = relative(&root, search);
        let name = rel.rsplit('/').next().unwrap_or(&rel).to_string();
        if pattern.is_match(&name, &rel) {
            found.lock().unwrap().push(GlobFile {
                path: rel,
                metadata: None,
            });
        }
    } else {
        let starts: Vec<PathBuf> = pattern
            .walk_starts(&root, search)
            .into_iter()
            .filter(|start| {
                start == search
                    || walker.rules().verdict_with_ancestors(start, true)
                        == crate::rules::Verdict::Visible
            })
            .collect();
        if !starts.is_empty() {
            let (found, pattern, root) = (&found, &pattern, &root);
            walker.visit_parallel(&starts, || {
                let mut batch = Batch::new(found);
                Box::new(move |entry| {
                    if pattern.matches_path(entry.path(), search, root) {
                        let metadata = want_mtime
                            .then(|| entry.metadata().map_or((0, 0), |m| (mtime_ms(&m), m.len())));
                        batch.push(GlobFile {
                            path: relative(root, entry.path()),
                            metadata,
                        });
                    }
                    WalkState::Continue
                })
            });
        }
    }
    let mut found = found.into_inner().unwrap();
    let total = found.len();
    let limit = query.limit;
    match query.sort {
        GlobSort::Path => select_sorted(&mut found, limit, |a, b| a.path.cmp(&b.path)),
        GlobSort::Mtime => select_sorted(&mut found, limit, |a, b| {
            let mtime = |f: &GlobFile| f.metadata.map(|(mtime_ms, _)| mtime_ms);
            mtime(b).cmp(&mtime(a)).then_with(|| a.path.cmp(&b.path))
        }),
        GlobSort::None => found.truncate(limit),
    }
    Ok(GlobOutcome {
        files: found,
        total,
        truncated: total > limit,
        ignored: walker.stats().ignored(),
        errors: walker.stats().errors(),
    })
}

/// Keeps the first `limit` items in `cmp` order, sorted, without sorting the rest.
fn select_sorted<T, F>(items: &mut Vec<T>, limit: usize, cmp: F)
where
    F: Fn(&T, &T) -> std::cmp::Ordering,
{
    if items.len() > limit {
        if limit == 0 {
            items.clear();
            return;
        }
        items.select_nth_unstable_by(limit - 1, &cmp);
        items.truncate(limit);
    }
    items.sort_unstable_by(cmp);
}

pub fn mtime_ms(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, rel_search: &str, rel_root: &str) -> bool {
        PathPattern::new(&[pattern], true)
            .unwrap()
            .is_match(rel_search, rel_root)
    }

    #[test]
    fn name_patterns_match_at_any_depth() {
        assert!(matches("*.md", "docs/a/b.md", "docs/a/b.md"));
        assert!(!matches("*.md", "docs/a/b.rs", "docs/a/b.rs"));
        assert!(matches("*.{ts,tsx}", "x.tsx", "src/x.tsx"));
    }

    #[test]
    fn path_patterns_match_relative_to_search_dir_or_root() {
        assert!(matches("src/**/*.ts", "a/b.ts", "src/a/b.ts"));
        assert!(matches("src/**/*.ts", "b.ts", "src/b.ts"));
        assert!(matches("**/*.go", "x/y.go", "internal/x/y.go"));
        assert!(!matches("src/*.ts", "a/b.ts", "src/a/b.ts"));
        assert!(matches("./src/*.ts", "src/b.ts", "src/b.ts"));
    }

    #[test]
    fn bad_glob_is_a_pattern_error() {
        let err = PathPattern::new(&["src/[a"], true).err().unwrap();
        assert!(err.to_string().contains("invalid glob"), "{err}");
    }

    #[test]
    fn literal_prefix_narrows_the_walk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("drivers/net")).unwrap();
        let p = PathPattern::new(&["drivers/**/*.h"], true).unwrap();
        assert_eq!(p.walk_starts(&root, &root), vec![root.join("drivers")]);
        let p = PathPattern::new(&["*.h"], true).unwrap();
        assert_eq!(p.walk_starts(&root, &root), vec![root.clone()]);
        let p = PathPattern::new(&["drivers/**/*.h"], true).unwrap();
        let sub = root.join("drivers/net");
        assert_eq!(p.walk_starts(&root, &sub), vec![sub.clone()]);
    }
}
