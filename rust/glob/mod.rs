//! Glob patterns with codesift's matching rules, and the file-name search built on them.
//!
//! A pattern without `/` matches the file name at any depth (`*.md` = `**/*.md`). A pattern
//! with `/` matches the path relative to the search directory or relative to the workspace
//! root, whichever matches. `*` and `?` never cross `/`; `**` does; `{a,b}` and `[...]` work.
//! A glob of an indexed tree is answered from the index's path table (`indexed`).

use crate::error::{Error, Result};
use crate::fs::skipped::{Example, Reason};
use crate::fs::walk::{Batch, Target, WalkState, Walker, rel_bytes};
use crate::index::watched::IndexUse;
use crate::types::FileTypes;
use indexed::Picked;

pub mod indexed;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// One compiled glob with the rule for what it is matched against.
struct Rule {
    /// A set of this one glob: a set picks a matching strategy (by extension, by literal
    /// name, ...) where a lone `GlobMatcher` always runs its regex, several times slower over
    /// a path table.
    matcher: GlobSet,
    /// Matches the file name only (the pattern has no `/`).
    name_only: bool,
    /// Leading directories without glob syntax (`drivers` in `drivers/**/*.h`).
    literal_dirs: PathBuf,
    /// For `*.ext` and `**/*.ext` matched case-sensitively, `.ext`: such a glob matches
    /// exactly the files whose name ends with it, which a byte comparison answers without
    /// globset's candidate (its name, extension and hash lookup were a quarter of a glob
    /// over an index's path table).
    name_suffix: Option<Vec<u8>>,
}

/// `bytes` ends with `suffix` (a few bytes: compared in place, not by a call to `memcmp`).
fn ends_with(bytes: &[u8], suffix: &[u8]) -> bool {
    bytes.len() >= suffix.len()
        && bytes
            .iter()
            .rev()
            .zip(suffix.iter().rev())
            .all(|(a, b)| a == b)
}

/// `.ext` for a glob `*.ext` or `**/*.ext` whose extension is plain text (no glob syntax,
/// no `.`, no `/`), matched case-sensitively; `None` for any other glob. Case-insensitive
/// globs are left to globset: its case folding is Unicode's (`K` also matches U+212A).
fn name_suffix(normalized: &str, case_sensitive: bool) -> Option<Vec<u8>> {
    let name = normalized.strip_prefix("**/").unwrap_or(normalized);
    let ext = name.strip_prefix("*.")?;
    let plain = !ext.is_empty()
        && ext.bytes().all(|b| {
            !matches!(
                b,
                b'*' | b'?' | b'[' | b']' | b'{' | b'}' | b'\\' | b'/' | b'.'
            )
        });
    (case_sensitive && plain).then(|| format!(".{ext}").into_bytes())
}

/// Longest glob accepted, in bytes. A glob compiles to a regex in proportion to its length
/// (a 10 MB glob took 8.5 GB and 50 s); globset panics past its own compiled-size limit, which
/// the worst case (case-insensitive `?` or letters) reaches between 64 and 128 KiB.
pub const MAX_GLOB_BYTES: usize = 16 * 1024;
/// Most globs in one list (an `include` or `exclude`): each is a regex of its own, tried on
/// every path (100,000 globs took 1 GB).
pub const MAX_GLOBS: usize = 1_000;
/// Most bytes of all the globs of one list together.
pub const MAX_GLOB_LIST_BYTES: usize = 64 * 1024;
/// Deepest nesting of `{a,b}` alternatives. globset nests regex groups for each level and
/// panics when the regex parser refuses more than 250 levels: from 125 levels of `{x,{..}}`.
pub const MAX_BRACE_DEPTH: usize = 32;

/// A set of glob patterns; a path matches when any of them matches.
pub struct PathPattern {
    rules: Vec<Rule>,
    case_sensitive: bool,
}

impl PathPattern {
    pub fn new<S: AsRef<str>>(patterns: &[S], case_sensitive: bool) -> Result<PathPattern> {
        check_list(patterns)?;
        let mut rules = Vec::with_capacity(patterns.len());
        for pattern in patterns {
            let original = pattern.as_ref();
            let shown = crate::grep::abbreviate(original);
            check_size(original)?;
            let normalized = normalize(original);
            if normalized.is_empty() {
                return Err(Error::Pattern(format!(
                    "invalid glob {shown:?}: the pattern is empty; use \"**\" to match every file"
                )));
            }
            let name_only = !normalized.contains('/');
            let built = std::panic::catch_unwind(|| {
                GlobBuilder::new(&normalized)
                    // A name-only rule is matched against a file name, which holds no `/`:
                    // without the separator rule the set can match `*.c` by its extension
                    // (a hash lookup) instead of running a regex on every name.
                    .literal_separator(!name_only)
                    .case_insensitive(!case_sensitive)
                    .empty_alternates(true)
                    .build()
                    .and_then(|glob| GlobSetBuilder::new().add(glob).build())
            });
            let matcher = match built {
                Ok(Ok(matcher)) => matcher,
                Ok(Err(e)) => {
                    return Err(Error::Pattern(format!(
                        "invalid glob {shown:?}: {}",
                        e.kind()
                    )));
                }
                // globset panics when the regex it makes does not compile; the limits above
                // should keep that from happening.
                Err(_) => {
                    return Err(Error::Pattern(format!(
                        "invalid glob {shown:?}: too complex to compile. Use fewer characters, \
                         wildcards (*, **) instead of long alternatives, or several globs."
                    )));
                }
            };
            rules.push(Rule {
                matcher,
                name_only,
                literal_dirs: literal_dirs(&normalized),
                name_suffix: name_suffix(&normalized, case_sensitive),
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
        self.is_match_path(Path::new(rel_search), Path::new(rel_root))
    }

    fn is_match_path(&self, rel_search: &Path, rel_root: &Path) -> bool {
        use std::os::unix::ffi::OsStrExt;
        let root_bytes = rel_root.as_os_str().as_bytes();
        // The last component by bytes: `Path::file_name` parses every component, which cost
        // more than the match itself on a glob over the index's path table.
        let name = || match memchr::memrchr(b'/', root_bytes) {
            Some(slash) if slash + 1 < root_bytes.len() => {
                Path::new(std::ffi::OsStr::from_bytes(&root_bytes[slash + 1..]))
            }
            _ => rel_root.file_name().map_or(rel_root, Path::new),
        };
        self.rules.iter().any(|rule| {
            if let Some(suffix) = &rule.name_suffix {
                // A suffix without a slash ends the name exactly when it ends the path: the
                // name is not looked for (that and the comparison by `memcmp` were half of a
                // glob's matching over the index's path table).
                ends_with(root_bytes, suffix)
            } else if rule.name_only {
                rule.matcher.is_match(name())
            } else {
                rule.matcher.is_match(rel_search)
                    || (rel_search != rel_root && rule.matcher.is_match(rel_root))
            }
        })
    }

    /// Whether the file at `rel` (workspace-relative) matches, searching `search_dir`.
    pub fn matches_rel(&self, rel: &Path, search_dir: &Path) -> bool {
        use std::os::unix::ffi::OsStrExt;
        let (bytes, dir) = (
            rel.as_os_str().as_bytes(),
            search_dir.as_os_str().as_bytes(),
        );
        // `Path::strip_prefix` by bytes (paths here are normalised: no `.`, no doubled `/`).
        let rel_search = if dir.is_empty() {
            rel
        } else if bytes.len() > dir.len() && bytes.starts_with(dir) && bytes[dir.len()] == b'/' {
            Path::new(std::ffi::OsStr::from_bytes(&bytes[dir.len() + 1..]))
        } else {
            rel.strip_prefix(search_dir).unwrap_or(rel)
        };
        self.is_match_path(rel_search, rel)
    }

    /// The directories (workspace-relative, as walked) a walk must cover to find every match
    /// under `search_dir`: fewer and deeper than `search_dir` itself when the patterns start
    /// with literal directories. They may not exist.
    pub fn walk_starts(&self, search_dir: &Path) -> Vec<PathBuf> {
        let mut starts: Vec<PathBuf> = Vec::new();
        for rule in &self.rules {
            if rule.name_only || !self.case_sensitive || rule.literal_dirs.as_os_str().is_empty() {
                return vec![search_dir.to_path_buf()];
            }
            for base in [search_dir, Path::new("")] {
                let candidate = base.join(&rule.literal_dirs);
                if candidate.starts_with(search_dir) {
                    starts.push(candidate);
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

/// Refuses a list of globs too long to compile and match in reasonable memory.
fn check_list<S: AsRef<str>>(patterns: &[S]) -> Result<()> {
    if patterns.len() > MAX_GLOBS {
        return Err(Error::Pattern(format!(
            "{} globs in one list; at most {MAX_GLOBS} are allowed. Merge them into fewer \
             patterns with wildcards or braces ({{a,b}}), or search a narrower path.",
            patterns.len()
        )));
    }
    let bytes: usize = patterns.iter().map(|p| p.as_ref().len()).sum();
    if bytes > MAX_GLOB_LIST_BYTES && patterns.len() > 1 {
        return Err(Error::Pattern(format!(
            "the globs add up to {bytes} bytes; at most {MAX_GLOB_LIST_BYTES} (64 KiB) are \
             allowed in one list. Use wildcards (*, **) rather than listing names, or search a \
             narrower path."
        )));
    }
    Ok(())
}

/// Refuses one glob too long or too deeply nested to compile.
fn check_size(pattern: &str) -> Result<()> {
    if pattern.len() > MAX_GLOB_BYTES {
        return Err(Error::Pattern(format!(
            "invalid glob {:?}: it is {} bytes long, over the limit of {MAX_GLOB_BYTES} \
             (16 KiB). Use wildcards (*, **) rather than listing names, or several shorter globs.",
            crate::grep::abbreviate(pattern),
            pattern.len()
        )));
    }
    let depth = brace_depth(pattern);
    if depth > MAX_BRACE_DEPTH {
        return Err(Error::Pattern(format!(
            "invalid glob {:?}: braces nested {depth} deep; at most {MAX_BRACE_DEPTH} levels \
             are allowed. List the alternatives flat instead ({{a,b,c}}).",
            crate::grep::abbreviate(pattern)
        )));
    }
    Ok(())
}

/// How deeply `{...}` nest in a glob, skipping escaped characters and `[...]` classes (where a
/// brace is an ordinary character).
fn brace_depth(pattern: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '[' => {
                // `]` right after `[`, `[!` or `[^` is a member, not the end.
                let mut first = true;
                for c in chars.by_ref() {
                    if c == ']' && !first {
                        break;
                    }
                    first = first && (c == '!' || c == '^');
                }
            }
            '{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
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
                "sort must be one of \"path\", \"mtime\", \"none\", not {other:?}"
            ))),
        }
    }
}

pub struct GlobQuery {
    pub pattern: String,
    /// Workspace-relative search path (a directory or a file).
    pub search_path: PathBuf,
    pub case_sensitive: bool,
    pub limit: usize,
    pub sort: GlobSort,
    /// ripgrep file types a file must have (or not have).
    pub types: Option<Arc<FileTypes>>,
}

#[derive(Clone, Debug)]
pub struct GlobFile {
    /// Relative to the workspace root.
    pub path: PathBuf,
    /// `(mtime_ms, size)` when the walk read them (to sort by mtime); otherwise the Python
    /// layer reads them when first asked: most callers want paths only, and a stat per
    /// returned file cost a third of a large glob.
    pub metadata: Option<(i64, u64)>,
}

/// Paths held as one block of bytes and where each ends: a large answer held without a
/// path allocated per file (allocating and freeing 35k of them was a third of the client's
/// time for a glob of `**/*.c` on the Linux tree). The paths start at `start` of `bytes`: a
/// daemon's frame is kept whole, its paths not copied out of it.
#[derive(Clone, Debug, Default)]
pub struct PathBlock {
    bytes: Vec<u8>,
    start: usize,
    ends: Vec<usize>,
}

impl PathBlock {
    /// The block of the paths in `bytes` from `start` on, one after another, path `i` ending
    /// at `ends[i]`; `None` unless the ends go up from `start` to the end of `bytes`.
    pub fn from_ends(bytes: Vec<u8>, start: usize, ends: Vec<usize>) -> Option<Self> {
        let mut at = start;
        for &end in &ends {
            if end < at {
                return None;
            }
            at = end;
        }
        (at == bytes.len()).then_some(PathBlock { bytes, start, ends })
    }

    pub fn push(&mut self, path: &Path) {
        self.bytes.extend_from_slice(rel_bytes(path));
        self.ends.push(self.bytes.len());
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Path `i` (0 <= i < len).
    pub fn get(&self, i: usize) -> &Path {
        use std::os::unix::ffi::OsStrExt;
        let start = if i == 0 { self.start } else { self.ends[i - 1] };
        Path::new(std::ffi::OsStr::from_bytes(
            &self.bytes[start..self.ends[i]],
        ))
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Path> + Clone {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// Blocks are equal when they hold the same paths, wherever in their bytes those start.
impl PartialEq for PathBlock {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for PathBlock {}

impl<'a> FromIterator<&'a Path> for PathBlock {
    fn from_iter<I: IntoIterator<Item = &'a Path>>(paths: I) -> Self {
        let mut block = PathBlock::default();
        for path in paths {
            block.push(path);
        }
        block
    }
}

/// A glob's files as a block: their paths, and each one's `(mtime_ms, size)` when known (see
/// `GlobFile`).
#[derive(Debug, Default)]
pub struct FileBlock {
    pub paths: PathBlock,
    pub metadata: Vec<Option<(i64, u64)>>,
}

impl FileBlock {
    /// `None` unless there is one metadata entry a path.
    pub fn new(paths: PathBlock, metadata: Vec<Option<(i64, u64)>>) -> Option<Self> {
        (paths.len() == metadata.len()).then_some(FileBlock { paths, metadata })
    }

    pub fn len(&self) -> usize {
        self.paths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// Each file's path and metadata.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&Path, Option<(i64, u64)>)> {
        self.paths.iter().zip(self.metadata.iter().copied())
    }
}

impl From<Vec<GlobFile>> for FileBlock {
    fn from(files: Vec<GlobFile>) -> Self {
        let mut block = FileBlock {
            paths: PathBlock {
                bytes: Vec::with_capacity(files.iter().map(|f| rel_bytes(&f.path).len()).sum()),
                start: 0,
                ends: Vec::with_capacity(files.len()),
            },
            metadata: Vec::with_capacity(files.len()),
        };
        for file in files {
            block.paths.push(&file.path);
            block.metadata.push(file.metadata);
        }
        block
    }
}

impl<F> GlobOutcome<F> {
    /// The same outcome with its files converted.
    pub fn map_files<G>(self, convert: impl FnOnce(F) -> G) -> GlobOutcome<G> {
        GlobOutcome {
            files: convert(self.files),
            total: self.total,
            truncated: self.truncated,
            ignored: self.ignored,
            errors: self.errors,
            search_path: self.search_path,
            skipped: self.skipped,
        }
    }
}

/// A glob's answer: its files (`F`: as handed out, or as an indexed glob picked them, see
/// `glob_indexed_picked`) and the figures of its walk.
#[derive(Debug)]
pub struct GlobOutcome<F = Vec<GlobFile>> {
    pub files: F,
    pub total: usize,
    pub truncated: bool,
    pub ignored: u64,
    pub errors: u64,
    /// The search path where it really is (symlinks along it resolved).
    pub search_path: PathBuf,
    /// What the walk passed over, by reason, with examples.
    pub skipped: Vec<(Reason, u64, Vec<Example>)>,
}

/// A glob pattern and the file types a file must have: what a glob keeps.
pub(crate) struct Wanted<'a> {
    pub(crate) pattern: &'a PathPattern,
    types: Option<&'a FileTypes>,
}

impl Wanted<'_> {
    pub(crate) fn matches(&self, rel: &Path, search_dir: &Path) -> bool {
        self.pattern.matches_rel(rel, search_dir)
            && self.types.is_none_or(|types| types.accepts(rel))
    }
}

/// Finds the files matching `query.pattern` under `query.search_path`; with an index whose
/// watch is caught up, from the index's path table and the watch's changes, without a walk.
pub fn glob(
    walker: &Walker,
    query: &GlobQuery,
    index: Option<IndexUse<'_>>,
) -> Result<GlobOutcome<FileBlock>> {
    let outcome = found(walker, query, index, true)?;
    let outcome = outcome.expect("a glob that may walk always answers");
    Ok(outcome.map_files(|files| match files {
        Found::Walked(files) => FileBlock::from(files),
        Found::Indexed(picked) => picked.into_block(),
    }))
}

/// `glob` answered from the index and its caught-up watch alone, its files left as ids into
/// the index's path table (and the few files the watch saw change), so that the index daemon
/// encodes them without a path allocated per file: `None` when they cannot answer (the watch
/// is not caught up or not trusted, the search path is a file), where `glob` would walk (a
/// walk in the daemon would only be the client's own walk, done in another process).
pub fn glob_indexed_picked<'i>(
    walker: &Walker,
    query: &GlobQuery,
    index: IndexUse<'i>,
) -> Result<Option<GlobOutcome<Picked<'i>>>> {
    Ok(
        found(walker, query, Some(index), false)?.and_then(|outcome| match outcome.files {
            Found::Indexed(_) => Some(outcome.map_files(|files| match files {
                Found::Indexed(picked) => picked,
                Found::Walked(_) => unreachable!("matched above"),
            })),
            // A glob that may not walk answers from the index or not at all.
            Found::Walked(_) => None,
        }),
    )
}

/// The files a glob found: walked, or picked from an index.
enum Found<'i> {
    Walked(Vec<GlobFile>),
    Indexed(Picked<'i>),
}

/// The glob, sorted and cut to its limit; `None` when it may not walk and the index cannot
/// answer.
fn found<'i>(
    walker: &Walker,
    query: &GlobQuery,
    index: Option<IndexUse<'i>>,
    may_walk: bool,
) -> Result<Option<GlobOutcome<Found<'i>>>> {
    let pattern = PathPattern::new(&[query.pattern.as_str()], query.case_sensitive)?;
    let wanted = Wanted {
        pattern: &pattern,
        types: query.types.as_deref(),
    };
    let target = walker.target(&query.search_path)?;
    let want_mtime = query.sort == GlobSort::Mtime;
    let found: Mutex<Vec<GlobFile>> = Mutex::new(Vec::new());
    let root = walker.root().clone();
    let search = target.real().to_path_buf();
    let picked = match (&target, index) {
        (Target::Dir(_), Some(index)) => indexed::from_index(walker, index, &wanted, &search),
        _ => None,
    };
    if let Some(mut picked) = picked {
        let total = picked.len();
        picked.sort_and_cut(query.sort, query.limit);
        return Ok(Some(outcome(
            walker,
            Found::Indexed(picked),
            total,
            query.limit,
            search,
        )));
    }
    if !may_walk {
        return Ok(None);
    }
    match target {
        Target::File(entry) => {
            if wanted.matches(&entry.rel, entry.rel.parent().unwrap_or(Path::new(""))) {
                found.lock().unwrap().push(GlobFile {
                    path: entry.rel,
                    metadata: None,
                });
            }
        }
        Target::Dir(start) => {
            let mut starts = Vec::new();
            for rel in pattern.walk_starts(&search) {
                if rel == search {
                    starts = vec![start];
                    break;
                }
                // A literal prefix is walked only where a walk from the search path would go:
                // not into `.git`, hidden or ignored directories, nor through symlinks the
                // walk would not follow (or that lead outside).
                if !walker.walkable(&rel) {
                    continue;
                }
                if let Ok(start) = walker.start(&rel, walker.options().links()) {
                    starts.push(start);
                }
            }
            if !starts.is_empty() {
                let (found, wanted, root, search) = (&found, &wanted, &root, &search);
                walker.visit_parallel(starts, || {
                    let mut batch = Batch::new(found);
                    Box::new(move |entry| {
                        if wanted.matches(&entry.rel, search) {
                            let metadata = want_mtime.then(|| {
                                entry.stat(root).map_or((0, 0), |stat| {
                                    (stat_mtime_ms(&stat), stat.st_size as u64)
                                })
                            });
                            batch.push(GlobFile {
                                path: entry.rel.clone(),
                                metadata,
                            });
                        }
                        WalkState::Continue
                    })
                });
            }
        }
    }
    let mut found = found.into_inner().unwrap();
    let total = found.len();
    let limit = query.limit;
    let by_path = |a: &GlobFile, b: &GlobFile| rel_bytes(&a.path).cmp(rel_bytes(&b.path));
    match query.sort {
        GlobSort::Path => select_sorted(&mut found, limit, by_path),
        GlobSort::Mtime => select_sorted(&mut found, limit, |a, b| {
            let mtime = |f: &GlobFile| f.metadata.map(|(mtime_ms, _)| mtime_ms);
            mtime(b).cmp(&mtime(a)).then_with(|| by_path(a, b))
        }),
        GlobSort::None => found.truncate(limit),
    }
    Ok(Some(outcome(
        walker,
        Found::Walked(found),
        total,
        limit,
        search,
    )))
}

/// A glob's outcome: `files`, `total` found before the cut to `limit`, the walk's figures.
fn outcome<F>(
    walker: &Walker,
    files: F,
    total: usize,
    limit: usize,
    search: PathBuf,
) -> GlobOutcome<F> {
    GlobOutcome {
        files,
        total,
        truncated: total > limit,
        ignored: walker.stats().ignored(),
        errors: walker.stats().errors(),
        search_path: search,
        skipped: walker.stats().skipped.report(),
    }
}

/// Keeps the first `limit` items in `cmp` order, sorted, without sorting the rest.
pub(crate) fn select_sorted<T, F>(items: &mut Vec<T>, limit: usize, cmp: F)
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

/// Milliseconds since the epoch of a file's modification time.
pub fn stat_mtime_ms(stat: &rustix::fs::Stat) -> i64 {
    stat.st_mtime * 1000 + stat.st_mtime_nsec as i64 / 1_000_000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_block_reads_its_paths_from_where_they_start_and_checks_its_ends() {
        let bytes = b"HEADa.cdir/b.c".to_vec();
        let block = PathBlock::from_ends(bytes.clone(), 4, vec![7, 14]).unwrap();
        let paths: Vec<&Path> = block.iter().collect();
        println!("{paths:?}");
        assert_eq!(paths, [Path::new("a.c"), Path::new("dir/b.c")]);
        // Equal to the same paths held from the start of their bytes.
        let same: PathBlock = [Path::new("a.c"), Path::new("dir/b.c")]
            .into_iter()
            .collect();
        assert_eq!(block, same);
        // Ends that go back, start before `start`, or stop short of the bytes' end.
        for ends in [
            vec![7, 6, 14],
            vec![3, 14],
            vec![7, 13],
            vec![7, 15],
            vec![],
        ] {
            assert!(
                PathBlock::from_ends(bytes.clone(), 4, ends.clone()).is_none(),
                "{ends:?}"
            );
        }
        assert!(PathBlock::from_ends(b"HEAD".to_vec(), 4, vec![]).is_some());
    }

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

    fn glob_error(patterns: &[String]) -> String {
        match PathPattern::new(patterns, false) {
            Err(Error::Pattern(msg)) => {
                assert!(msg.len() < 1_000, "a short message: {msg}");
                msg
            }
            Err(other) => panic!("expected a pattern error, got {other:?}"),
            Ok(_) => panic!("expected a pattern error"),
        }
    }

    #[test]
    fn deeply_nested_braces_are_a_pattern_error() {
        let deep = format!("{}a{}", "{".repeat(3_000), "}".repeat(3_000));
        let msg = glob_error(&[deep]);
        assert!(msg.contains("braces nested 3000 deep"), "{msg}");
        // The deepest that passes the check compiles (globset panicked past 250 or so).
        let ok = format!(
            "{}a,b{}",
            "{x,".repeat(MAX_BRACE_DEPTH),
            "}".repeat(MAX_BRACE_DEPTH)
        );
        assert!(PathPattern::new(&[ok], false).is_ok());
        // Braces in a class or escaped do not nest.
        assert_eq!(brace_depth(r"[{][]{]\{\{{a}"), 1);
        assert_eq!(brace_depth("[!]{]{a,{b,c}}"), 2);
    }

    #[test]
    fn long_globs_and_long_lists_are_refused() {
        let msg = glob_error(&["a".repeat(10_000_000)]);
        assert!(
            msg.contains("10000000 bytes long, over the limit of 16384"),
            "{msg}"
        );
        let many: Vec<String> = (0..100_000).map(|i| format!("f{i}.rs")).collect();
        assert!(glob_error(&many).contains("100000 globs in one list; at most 1000"));
        let wide: Vec<String> = (0..100)
            .map(|i| format!("{i}{}", "?".repeat(1_000)))
            .collect();
        assert!(glob_error(&wide).contains("add up to"));
        // At the limits, the worst kinds of glob (case-insensitive letters, `?`) compile.
        for worst in ["k", "?", "*a", "ſ", "{a,?}"] {
            let glob = worst.repeat(MAX_GLOB_BYTES / worst.len());
            assert!(PathPattern::new(&[glob], false).is_ok(), "{worst}");
        }
        let list: Vec<String> = (0..MAX_GLOBS).map(|i| format!("src/**/f{i}.rs")).collect();
        assert!(PathPattern::new(&list, true).is_ok());
    }

    #[test]
    fn an_extension_glob_answers_as_globset_does() {
        let names = [
            "a.c",
            "dir/a.c",
            ".c",
            "a.c/b",
            "a.cc",
            "a.C",
            "dir.c/x",
            "a.b.c",
            "c",
            "x.",
            "d/e/f/g.c",
            "dir/.c",
            "é.c",
            "a.c.",
            "ac",
            "x.tar",
            "x.tar.gz",
            "t/x.TAR",
        ];
        for (pattern, case_sensitive, fast) in [
            ("*.c", true, true),
            ("**/*.c", true, true),
            ("*.tar", true, true),
            ("./**/*.tar", true, true),
            ("*.c", false, false),
            ("*.tar.gz", true, false),
            ("*.[ch]", true, false),
            ("*.", true, false),
            ("dir/*.c", true, false),
        ] {
            let quick = PathPattern::new(&[pattern], case_sensitive).unwrap();
            assert_eq!(
                quick.rules[0].name_suffix.is_some(),
                fast,
                "{pattern} case_sensitive={case_sensitive}"
            );
            let mut slow = PathPattern::new(&[pattern], case_sensitive).unwrap();
            slow.rules[0].name_suffix = None;
            for name in names {
                for search in ["", "dir"] {
                    let rel = Path::new(name);
                    let (expected, actual) = (
                        slow.matches_rel(rel, Path::new(search)),
                        quick.matches_rel(rel, Path::new(search)),
                    );
                    assert_eq!(actual, expected, "{pattern} on {name} from {search:?}");
                }
            }
        }
    }

    #[test]
    fn literal_prefix_narrows_the_walk() {
        let root = Path::new("");
        let p = PathPattern::new(&["drivers/**/*.h"], true).unwrap();
        assert_eq!(p.walk_starts(root), vec![PathBuf::from("drivers")]);
        let p = PathPattern::new(&["*.h"], true).unwrap();
        assert_eq!(p.walk_starts(root), vec![PathBuf::new()]);
        let p = PathPattern::new(&["drivers/**/*.h"], true).unwrap();
        let sub = Path::new("drivers/net");
        assert_eq!(p.walk_starts(sub), vec![sub.to_path_buf()]);
    }
}
