//! ripgrep's walk: the `ignore` crate's `WalkBuilder` set up from ripgrep's flags ([`RgWalk`]),
//! and the globs (`-g/--iglob`) and file types (`-t/-T/--type-add/--type-clear`) it filters by.

use std::io;
use std::path::{Path, PathBuf};

use ignore::WalkBuilder;

use super::args::{Args, Sort, SortKind, TypeChange};
use super::messages;

/// ripgrep's walk of one run: its flags and the paths, threads, globs and types settled.
///
/// Not the engine's `crate::fs::walk::WalkOptions`: that walks a workspace through directory
/// handles under codesift's rules (`.gitignore` and access-ignore files, `.git` never
/// entered, links followed only inside the root). ripgrep's walk is the `ignore` crate's
/// `WalkBuilder` with ripgrep's flags (`.ignore`, `.rgignore`, parent directories, git's
/// exclude and global files, `--no-require-git`, depth, `--one-file-system`, any link
/// followed with `-L`), which ripgrep's own suite holds codesift-rg to byte for byte.
pub(super) struct RgWalk<'a> {
    pub args: &'a Args,
    pub paths: &'a [PathBuf],
    pub threads: usize,
    pub cwd: &'a Path,
    pub overrides: ignore::overrides::Override,
    pub types: ignore::types::Types,
}

impl RgWalk<'_> {
    /// The builder ripgrep's `walk_builder` makes for these flags.
    pub(super) fn builder(self) -> WalkBuilder {
        let a = self.args;
        let mut b = WalkBuilder::new(&self.paths[0]);
        for p in &self.paths[1..] {
            b.add(p);
        }
        if !a.no_ignore_files {
            for p in &a.ignore_file {
                if let Some(err) = b.add_ignore(p) {
                    messages::ignore(&err.to_string());
                }
            }
        }
        b.max_depth(a.max_depth)
            .follow_links(a.follow)
            .max_filesize(a.max_filesize)
            .threads(self.threads)
            .same_file_system(a.one_file_system)
            .overrides(self.overrides)
            .types(self.types)
            .hidden(!a.hidden)
            .parents(!a.no_ignore_parent)
            .ignore(!a.no_ignore_dot)
            .git_global(!a.no_ignore_vcs && !a.no_ignore_global)
            .git_ignore(!a.no_ignore_vcs)
            .git_exclude(!a.no_ignore_vcs && !a.no_ignore_exclude)
            .require_git(!a.no_require_git)
            .ignore_case_insensitive(a.ignore_file_case_insensitive)
            .current_dir(self.cwd);
        if !a.no_ignore_dot {
            b.add_custom_ignore_filename(".rgignore");
        }
        if let Some(Sort {
            kind: SortKind::Path,
            reverse: false,
        }) = a.sort
        {
            b.sort_by_file_name(|a, b| a.cmp(b));
        }
        b
    }
}

pub(super) fn build_types(a: &Args) -> io::Result<ignore::types::Types> {
    let mut b = ignore::types::TypesBuilder::new();
    b.add_defaults();
    for change in &a.type_changes {
        match change {
            TypeChange::Clear(name) => {
                b.clear(name);
            }
            TypeChange::Add(def) => {
                b.add_def(def)
                    .map_err(|e| io::Error::other(e.to_string()))?;
            }
            TypeChange::Select(name) => {
                b.select(name);
            }
            TypeChange::Negate(name) => {
                b.negate(name);
            }
        }
    }
    b.build().map_err(|e| io::Error::other(e.to_string()))
}

pub(super) fn build_globs(a: &Args, cwd: &Path) -> io::Result<ignore::overrides::Override> {
    if a.globs.is_empty() && a.iglobs.is_empty() {
        return Ok(ignore::overrides::Override::empty());
    }
    let err = |e: ignore::Error| io::Error::other(e.to_string());
    let mut b = ignore::overrides::OverrideBuilder::new(cwd);
    if a.glob_case_insensitive {
        b.case_insensitive(true).map_err(err)?;
    }
    for g in &a.globs {
        b.add(g).map_err(err)?;
    }
    b.case_insensitive(true).map_err(err)?;
    for g in &a.iglobs {
        b.add(g).map_err(err)?;
    }
    b.build().map_err(err)
}
