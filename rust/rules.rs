//! Ignore rules: which entries `.gitignore`-style files hide or deny, evaluated per directory
//! from the workspace root down (never from directories above the root).
//!
//! Two kinds of rule files exist. *Access-ignore* files (`.clineignore`, `.codesiftignore` by
//! default) hide entries from every search and deny reading and editing them. *Convenience*
//! files (`.gitignore`, `.ignore`, `.git/info/exclude`) only hide entries from search and
//! listing. The precedence follows the `ignore` crate (and so ripgrep): access rules first,
//! then `.ignore`, then `.gitignore`, then `.git/info/exclude`; within one kind the deepest
//! directory with a matching rule decides, and a `!` rule there can re-include an entry.

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// Identifies a `Rules` instance in the per-thread cache below.
static NEXT_RULES_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The last directory whose chain this thread looked up: a walker thread handles all the
    /// entries of one directory in a row, so this skips the shared map almost always.
    static LAST_CHAIN: RefCell<Option<(u64, PathBuf, Chain)>> = const { RefCell::new(None) };
}

/// Which rule files apply.
#[derive(Clone, Debug)]
pub struct RuleOptions {
    /// Honour `.gitignore`, `.ignore` and `.git/info/exclude`.
    pub gitignore: bool,
    /// File names of access-ignore files, always honoured.
    pub access_files: Vec<String>,
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

/// The rules of one directory that has rule files, linked to the nearest ancestor that has any.
struct DirRules {
    parent: Option<Arc<DirRules>>,
    access: Option<Gitignore>,
    dot_ignore: Option<Gitignore>,
    git: Option<Gitignore>,
    exclude: Option<Gitignore>,
}

type Chain = Option<Arc<DirRules>>;

/// Rule chains per directory, built on demand and shared by all walker threads.
pub struct Rules {
    id: u64,
    root: PathBuf,
    options: RuleOptions,
    chains: RwLock<HashMap<PathBuf, Chain>>,
}

impl Rules {
    /// `root` must be the canonical workspace root.
    pub fn new(root: PathBuf, options: RuleOptions) -> Rules {
        let id = NEXT_RULES_ID.fetch_add(1, Ordering::Relaxed);
        Rules {
            id,
            root,
            options,
            chains: RwLock::new(HashMap::new()),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The verdict for `path` (absolute, inside the root) whose parent directory is visible.
    pub fn verdict(&self, path: &Path, is_dir: bool) -> Verdict {
        match path.parent() {
            Some(parent) if path != self.root => {
                let chain = self.cached_chain(parent);
                decide(chain.as_deref(), path, is_dir)
            }
            _ => Verdict::Visible,
        }
    }

    /// The verdict for `path` taking every ancestor between the root and `path` into account:
    /// an entry inside a hidden or denied directory is hidden or denied too. Used for explicit
    /// paths (read, edit, a search path), where no walk checked the ancestors first.
    pub fn verdict_with_ancestors(&self, path: &Path, is_dir: bool) -> Verdict {
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return Verdict::Visible;
        };
        let mut current = self.root.clone();
        let mut worst = Verdict::Visible;
        let components: Vec<_> = rel.components().collect();
        for (i, component) in components.iter().enumerate() {
            current.push(component);
            let last = i + 1 == components.len();
            match self.verdict(&current, if last { is_dir } else { true }) {
                Verdict::Denied => return Verdict::Denied,
                Verdict::Hidden => worst = Verdict::Hidden,
                Verdict::Visible => {}
            }
        }
        worst
    }

    fn cached_chain(&self, dir: &Path) -> Chain {
        let hit = LAST_CHAIN.with_borrow(|last| match last {
            Some((id, last_dir, chain)) if *id == self.id && last_dir == dir => Some(chain.clone()),
            _ => None,
        });
        if let Some(chain) = hit {
            return chain;
        }
        let chain = self.chain(dir);
        LAST_CHAIN.set(Some((self.id, dir.to_path_buf(), chain.clone())));
        chain
    }

    /// The rule chain in force for entries of directory `dir`.
    fn chain(&self, dir: &Path) -> Chain {
        if !dir.starts_with(&self.root) {
            return None;
        }
        if let Some(chain) = self.chains.read().unwrap().get(dir) {
            return chain.clone();
        }
        let parent_chain = if dir == self.root {
            None
        } else {
            dir.parent().and_then(|parent| self.chain(parent))
        };
        let chain = match self.load(dir) {
            Some(mut own) => {
                own.parent = parent_chain;
                Some(Arc::new(own))
            }
            None => parent_chain,
        };
        self.chains
            .write()
            .unwrap()
            .insert(dir.to_path_buf(), chain.clone());
        chain
    }

    /// The rule files of `dir` itself, or `None` when it has none.
    fn load(&self, dir: &Path) -> Option<DirRules> {
        let access_names: Vec<&str> = self
            .options
            .access_files
            .iter()
            .map(String::as_str)
            .collect();
        let access = build_matcher(dir, dir, &access_names);
        let (dot_ignore, git, exclude) = if self.options.gitignore {
            let git_dir = dir.join(".git");
            let exclude = if git_dir.is_dir() {
                build_matcher(dir, &git_dir, &["info/exclude"])
            } else {
                None
            };
            (
                build_matcher(dir, dir, &[".ignore"]),
                build_matcher(dir, dir, &[".gitignore"]),
                exclude,
            )
        } else {
            (None, None, None)
        };
        if access.is_none() && dot_ignore.is_none() && git.is_none() && exclude.is_none() {
            return None;
        }
        Some(DirRules {
            parent: None,
            access,
            dot_ignore,
            git,
            exclude,
        })
    }
}

/// A matcher rooted at `dir` from the rule files `names` inside `source_dir`, or `None` when
/// none of them exists. Later files win over earlier ones, as within one gitignore file.
fn build_matcher(dir: &Path, source_dir: &Path, names: &[&str]) -> Option<Gitignore> {
    let mut builder: Option<GitignoreBuilder> = None;
    for name in names {
        let file = source_dir.join(name);
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        let builder = builder.get_or_insert_with(|| GitignoreBuilder::new(dir));
        for line in String::from_utf8_lossy(&bytes).lines() {
            // A malformed line is skipped, as git does; the other lines still apply.
            let _ = builder.add_line(Some(file.clone()), line);
        }
    }
    builder
        .and_then(|b| b.build().ok())
        .filter(|m| !m.is_empty())
}

fn decide(chain: Option<&DirRules>, path: &Path, is_dir: bool) -> Verdict {
    let Some(chain) = chain else {
        return Verdict::Visible;
    };
    let (mut access, mut dot_ignore, mut git, mut exclude) =
        (Match::None, Match::None, Match::None, Match::None);
    let mut level = Some(chain);
    while let Some(rules) = level {
        if access.is_none() {
            access = matched(&rules.access, path, is_dir);
        }
        if dot_ignore.is_none() {
            dot_ignore = matched(&rules.dot_ignore, path, is_dir);
        }
        if git.is_none() {
            git = matched(&rules.git, path, is_dir);
        }
        if exclude.is_none() {
            exclude = matched(&rules.exclude, path, is_dir);
        }
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

fn matched(matcher: &Option<Gitignore>, path: &Path, is_dir: bool) -> Match<()> {
    match matcher {
        Some(m) => m.matched(path, is_dir).map(|_| ()),
        None => Match::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn rules(root: &Path, gitignore: bool) -> Rules {
        Rules::new(
            root.canonicalize().unwrap(),
            RuleOptions {
                gitignore,
                access_files: vec![".clineignore".into()],
            },
        )
    }

    #[test]
    fn gitignore_hides_and_access_file_denies() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::write(root.join(".gitignore"), "*.log\nbuild/\n").unwrap();
        fs::write(root.join(".clineignore"), "secret.txt\n").unwrap();
        let r = rules(&root, true);
        assert_eq!(r.verdict(&root.join("a.log"), false), Verdict::Hidden);
        assert_eq!(r.verdict(&root.join("build"), true), Verdict::Hidden);
        assert_eq!(r.verdict(&root.join("secret.txt"), false), Verdict::Denied);
        assert_eq!(r.verdict(&root.join("a.rs"), false), Verdict::Visible);
        let off = rules(&root, false);
        assert_eq!(off.verdict(&root.join("a.log"), false), Verdict::Visible);
        assert_eq!(
            off.verdict(&root.join("secret.txt"), false),
            Verdict::Denied
        );
    }

    #[test]
    fn deeper_rules_override_and_ancestors_count() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::create_dir_all(root.join("sub/deep")).unwrap();
        fs::write(root.join(".gitignore"), "*.gen\n").unwrap();
        fs::write(root.join("sub/.gitignore"), "!keep.gen\n").unwrap();
        fs::write(root.join(".clineignore"), "sub/deep/\n").unwrap();
        let r = rules(&root, true);
        assert_eq!(r.verdict(&root.join("sub/x.gen"), false), Verdict::Hidden);
        assert_eq!(
            r.verdict(&root.join("sub/keep.gen"), false),
            Verdict::Visible
        );
        assert_eq!(
            r.verdict_with_ancestors(&root.join("sub/deep/file.txt"), false),
            Verdict::Denied
        );
        assert_eq!(
            r.verdict_with_ancestors(&root.join("sub/file.txt"), false),
            Verdict::Visible
        );
    }

    #[test]
    fn git_info_exclude_applies() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::create_dir_all(root.join(".git/info")).unwrap();
        fs::write(root.join(".git/info/exclude"), "local.txt\n").unwrap();
        let r = rules(&root, true);
        assert_eq!(r.verdict(&root.join("local.txt"), false), Verdict::Hidden);
    }
}
