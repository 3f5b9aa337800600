//! Ignore rules: which entries `.gitignore`-style files hide or deny, evaluated per directory
//! from the workspace root down (never from directories above the root).
//!
//! Two kinds of rule files exist. *Access-ignore* files (`.clineignore`, `.codesiftignore` by
//! default) hide entries from every search and deny reading and editing them. *Convenience*
//! files (`.gitignore`, `.ignore`, `.git/info/exclude`) only hide entries from search and
//! listing. The precedence follows the `ignore` crate (and so ripgrep): access rules first,
//! then `.ignore`, then `.gitignore`, then `.git/info/exclude`; within one kind the deepest
//! directory with a matching rule decides, and a `!` rule there can re-include an entry.
//! As in git (and ripgrep), `.gitignore` and `exclude` rules stop at the boundary of a nested
//! repository: a directory holding `.git` does not see the git rules of the directories above
//! it. `.ignore` and access-ignore rules are not git's and apply all the way down.
//!
//! Paths here are workspace-relative. Rule files are read through directory handles beneath
//! the root, only when they are regular files (a FIFO named `.gitignore` is skipped, never
//! opened for a blocking read), and at most `MAX_RULE_FILE` bytes of each.

use crate::fs::root::{DIR_FLAGS, Links, READ_FLAGS, Root, regular_file};
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use rustix::fs::Mode;
use std::collections::HashMap;
use std::ffi::OsStr;
use std::io::Read;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

/// Bytes read of one rule file at most; the rest is ignored.
pub const MAX_RULE_FILE: u64 = 8 * 1024 * 1024;

/// Which rule files apply.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct RuleOptions {
    /// Honour `.gitignore`, `.ignore` and `.git/info/exclude`.
    pub gitignore: bool,
    /// File names of access-ignore files, always honoured.
    pub access_files: Vec<String>,
}

/// The access-ignore files a `Workspace` honours unless told otherwise.
pub const DEFAULT_ACCESS_FILES: [&str; 2] = [".clineignore", ".codesiftignore"];

impl Default for RuleOptions {
    /// A `Workspace`'s defaults: `.gitignore` honoured, the default access-ignore files.
    fn default() -> Self {
        RuleOptions {
            gitignore: true,
            access_files: DEFAULT_ACCESS_FILES.map(String::from).to_vec(),
        }
    }
}

impl RuleOptions {
    /// Whether `name` is an access-ignore file (which codesift never writes).
    pub fn is_access_file(&self, name: &OsStr) -> bool {
        self.access_files
            .iter()
            .any(|f| f.as_bytes() == name.as_bytes())
    }
}

/// What the rules say about one entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Visible,
    /// Hidden from search and listing by a convenience rule (`.gitignore` and friends).
    Hidden,
    /// Hidden and denied by an access-ignore rule.
    Denied,
}

/// The rules of one directory that has rule files (or is a git repository), linked to the
/// nearest ancestor that has any.
pub struct DirRules {
    parent: Option<Arc<DirRules>>,
    access: Option<Gitignore>,
    dot_ignore: Option<Gitignore>,
    git: Option<Gitignore>,
    exclude: Option<Gitignore>,
    /// The directory holds `.git`: git rules of its ancestors do not apply below it.
    has_git: bool,
}

/// The rules in force for the entries of one directory.
pub type Chain = Option<Arc<DirRules>>;

/// Rule chains per directory, loaded through the root handle.
pub struct Rules {
    root: Arc<Root>,
    options: RuleOptions,
    /// Chains of directories looked up by path (explicit paths; walks carry theirs along).
    chains: RwLock<HashMap<PathBuf, Chain>>,
}

impl Rules {
    pub fn new(root: Arc<Root>, options: RuleOptions) -> Rules {
        Rules {
            root,
            options,
            chains: RwLock::new(HashMap::new()),
        }
    }

    pub fn root(&self) -> &Arc<Root> {
        &self.root
    }

    pub fn options(&self) -> &RuleOptions {
        &self.options
    }

    /// The chain for the entries of directory `rel` (open as `dir`), given the chain of its
    /// parent; `has(name)` says whether the directory holds an entry of that name (a walk
    /// knows from its listing, so no rule file is probed in vain).
    pub fn child_chain(
        &self,
        parent: &Chain,
        rel: &Path,
        dir: BorrowedFd<'_>,
        has: &dyn Fn(&[u8]) -> bool,
    ) -> Chain {
        match self.load(rel, dir, has) {
            Some(mut own) => {
                own.parent = parent.clone();
                Some(Arc::new(own))
            }
            None => parent.clone(),
        }
    }

    /// The verdict for the entry `rel` of a directory whose rules are `chain`.
    pub fn decide(chain: &Chain, rel: &Path, is_dir: bool) -> Verdict {
        let Some(chain) = chain else {
            return Verdict::Visible;
        };
        let (mut access, mut dot_ignore, mut git, mut exclude) =
            (Match::None, Match::None, Match::None, Match::None);
        let mut past_repository = false;
        let mut level = Some(chain.as_ref());
        while let Some(rules) = level {
            if access.is_none() {
                access = matched(&rules.access, rel, is_dir);
            }
            if dot_ignore.is_none() {
                dot_ignore = matched(&rules.dot_ignore, rel, is_dir);
            }
            if !past_repository {
                if git.is_none() {
                    git = matched(&rules.git, rel, is_dir);
                }
                if exclude.is_none() {
                    exclude = matched(&rules.exclude, rel, is_dir);
                }
            }
            past_repository |= rules.has_git;
            level = rules.parent.as_deref();
        }
        if access.is_ignore() {
            return Verdict::Denied;
        }
        if access.is_whitelist() {
            return Verdict::Visible;
        }
        if dot_ignore.or(git).or(exclude).is_ignore() {
            Verdict::Hidden
        } else {
            Verdict::Visible
        }
    }

    /// The verdict for `rel` taking every ancestor between the root and `rel` into account:
    /// an entry inside a hidden or denied directory is hidden or denied too. Used for explicit
    /// paths (read, edit, a search path) and the real locations of followed links, where no
    /// walk checked the ancestors first. `rel` must be a real location (no symlinks).
    pub fn verdict_with_ancestors(&self, rel: &Path, is_dir: bool) -> Verdict {
        let components: Vec<&OsStr> = rel.iter().collect();
        let mut current = PathBuf::new();
        let mut worst = Verdict::Visible;
        for (i, component) in components.iter().enumerate() {
            let chain = self.chain_of(&current);
            current.push(component);
            let last = i + 1 == components.len();
            match Self::decide(&chain, &current, if last { is_dir } else { true }) {
                Verdict::Denied => return Verdict::Denied,
                Verdict::Hidden => worst = Verdict::Hidden,
                Verdict::Visible => {}
            }
        }
        worst
    }

    /// The chain in force for entries of the directory `dir` (relative, real), cached.
    pub fn chain_of(&self, dir: &Path) -> Chain {
        if let Some(chain) = self.chains.read().unwrap().get(dir) {
            return chain.clone();
        }
        let parent_chain = match dir.parent() {
            Some(parent) => self.chain_of(parent),
            None => None,
        };
        let chain = match self.root.resolve(dir, Links::Refuse, DIR_FLAGS) {
            Ok(opened) => self.child_chain(&parent_chain, dir, opened.fd.as_fd(), &|_| true),
            // A directory that cannot be opened has no rule files we could read.
            Err(_) => parent_chain,
        };
        self.chains
            .write()
            .unwrap()
            .insert(dir.to_path_buf(), chain.clone());
        chain
    }

    /// The rule files of the directory itself, or `None` when it has none.
    fn load(
        &self,
        rel: &Path,
        dir: BorrowedFd<'_>,
        has: &dyn Fn(&[u8]) -> bool,
    ) -> Option<DirRules> {
        // `has` may answer yes to every name (explicit paths, without a listing): check.
        let has_git = has(b".git")
            && rustix::fs::statat(dir, ".git", rustix::fs::AtFlags::SYMLINK_NOFOLLOW).is_ok();
        let access = self.matcher(rel, dir, &self.options.access_files, has);
        let (dot_ignore, git, exclude) = if self.options.gitignore {
            let exclude = if has_git {
                self.exclude_matcher(rel, dir)
            } else {
                None
            };
            (
                self.matcher(rel, dir, &[".ignore"], has),
                self.matcher(rel, dir, &[".gitignore"], has),
                exclude,
            )
        } else {
            (None, None, None)
        };
        if access.is_none()
            && dot_ignore.is_none()
            && git.is_none()
            && exclude.is_none()
            && !has_git
        {
            return None;
        }
        Some(DirRules {
            parent: None,
            access,
            dot_ignore,
            git,
            exclude,
            has_git,
        })
    }

    /// A matcher rooted at `rel` from the rule files `names` of `dir`, or `None` when none of
    /// them exists. Later files win over earlier ones, as within one gitignore file.
    fn matcher<S: AsRef<str>>(
        &self,
        rel: &Path,
        dir: BorrowedFd<'_>,
        names: &[S],
        has: &dyn Fn(&[u8]) -> bool,
    ) -> Option<Gitignore> {
        let mut builder: Option<GitignoreBuilder> = None;
        for name in names {
            let name = name.as_ref();
            if !has(name.as_bytes()) {
                continue;
            }
            let Some(bytes) = self.read_rule_file(rel, dir, OsStr::new(name)) else {
                continue;
            };
            add_lines(
                builder.get_or_insert_with(|| GitignoreBuilder::new(rel)),
                &bytes,
            );
        }
        builder
            .and_then(|b| b.build().ok())
            .filter(|m| !m.is_empty())
    }

    fn exclude_matcher(&self, rel: &Path, dir: BorrowedFd<'_>) -> Option<Gitignore> {
        // Three components: each is checked (a `.git` linked outside the root is not read).
        let file = self
            .root
            .open_below(
                dir,
                rel,
                Path::new(".git/info/exclude"),
                Links::Inside,
                READ_FLAGS,
            )
            .ok()?;
        let bytes = read_limited(regular_file(file).ok()?)?;
        let mut builder = GitignoreBuilder::new(rel);
        add_lines(&mut builder, &bytes);
        builder.build().ok().filter(|m| !m.is_empty())
    }

    /// The rule file `name` of `dir`, when it is a regular file. A rule file that is a
    /// symlink is read where it points when that stays inside the root.
    fn read_rule_file(&self, rel: &Path, dir: BorrowedFd<'_>, name: &OsStr) -> Option<Vec<u8>> {
        let file = match rustix::fs::openat(dir, name, READ_FLAGS, Mode::empty()) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::LOOP) => {
                self.root
                    .resolve(&rel.join(name), Links::Inside, READ_FLAGS)
                    .ok()?
                    .fd
            }
            Err(_) => return None,
        };
        read_limited(regular_file(file).ok()?)
    }
}

fn read_limited(file: std::fs::File) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(MAX_RULE_FILE).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

fn add_lines(builder: &mut GitignoreBuilder, bytes: &[u8]) {
    for line in String::from_utf8_lossy(bytes).lines() {
        // A malformed line is skipped, as git does; the other lines still apply.
        let _ = builder.add_line(None, line);
    }
}

fn matched(matcher: &Option<Gitignore>, path: &Path, is_dir: bool) -> Match<()> {
    match matcher {
        Some(m) => m.matched(path, is_dir).map(|_| ()),
        None => Match::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::temp_tree;

    fn rules(root: &Path, gitignore: bool) -> Rules {
        Rules::new(
            Arc::new(Root::open(root).unwrap()),
            RuleOptions {
                gitignore,
                access_files: vec![".clineignore".into()],
            },
        )
    }

    /// Asserts each `(path, verdict)`: a path ending in `/` is a directory's.
    fn assert_verdicts(r: &Rules, expected: &[(&str, Verdict)]) {
        for &(rel, want) in expected {
            let is_dir = rel.ends_with('/');
            let got = r.verdict_with_ancestors(Path::new(rel.trim_end_matches('/')), is_dir);
            assert_eq!(got, want, "{rel}");
        }
    }

    #[test]
    fn rule_files_decide_what_is_hidden_and_what_is_denied() {
        use Verdict::{Denied, Hidden, Visible};
        // (what, the tree, the verdicts in it)
        type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a [(&'a str, Verdict)]);
        let cases: [Case; 4] = [
            (
                "gitignore hides, the access file denies",
                &[
                    (".gitignore", "*.log\nbuild/\n"),
                    (".clineignore", "secret.txt\n"),
                ],
                &[
                    ("a.log", Hidden),
                    ("build/", Hidden),
                    ("secret.txt", Denied),
                    ("a.rs", Visible),
                ],
            ),
            (
                "deeper rules override, and ancestors count",
                &[
                    ("sub/deep/", ""),
                    (".gitignore", "*.gen\n"),
                    ("sub/.gitignore", "!keep.gen\n"),
                    (".clineignore", "sub/deep/\n"),
                ],
                &[
                    ("sub/x.gen", Hidden),
                    ("sub/keep.gen", Visible),
                    ("sub/deep/file.txt", Denied),
                    ("sub/file.txt", Visible),
                ],
            ),
            (
                ".git/info/exclude applies",
                &[(".git/info/exclude", "local.txt\n")],
                &[("local.txt", Hidden)],
            ),
            (
                "git rules stop at a nested repository, the others do not",
                &[
                    ("nested/.git/", ""),
                    (".gitignore", "*.log\n"),
                    (".ignore", "*.tmp\n"),
                    (".clineignore", "*.key\n"),
                ],
                &[
                    ("top.log", Hidden),
                    ("nested/a.log", Visible),
                    ("nested/a.tmp", Hidden),
                    ("nested/a.key", Denied),
                ],
            ),
        ];
        for (what, files, expected) in cases {
            eprintln!("{what}");
            let dir = temp_tree(files);
            assert_verdicts(&rules(dir.path(), true), expected);
        }
        // Without gitignore, only the access files count.
        let dir = temp_tree(cases[0].1);
        assert_verdicts(
            &rules(dir.path(), false),
            &[("a.log", Visible), ("secret.txt", Denied)],
        );
    }

    #[test]
    fn git_info_exclude_behind_a_link_outside_the_root_is_not_read() {
        let outside = temp_tree(&[("info/exclude", "local.txt\n")]);
        let dir = temp_tree(&[("sub/.git/", ""), ("in/gitdir/info/exclude", "local.txt\n")]);
        let root = dir.path();
        std::os::unix::fs::symlink(outside.path(), root.join(".git")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("info"), root.join("sub/.git/info"))
            .unwrap();
        std::os::unix::fs::symlink("gitdir", root.join("in/.git")).unwrap();
        // A link that stays inside the root is followed, as for other rule files.
        assert_verdicts(
            &rules(root, true),
            &[
                ("local.txt", Verdict::Visible),
                ("sub/local.txt", Verdict::Visible),
                ("in/local.txt", Verdict::Hidden),
            ],
        );
    }

    #[test]
    fn a_fifo_rule_file_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let fifo = std::ffi::CString::new(root.join(".gitignore").as_os_str().as_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        assert_verdicts(&rules(root, true), &[("a.txt", Verdict::Visible)]);
    }
}
