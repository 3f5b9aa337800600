//! The verdicts of ripgrep's rules kept for `codesift-rg` searches, per root: for each
//! client key (its flags other than the patterns, its working directory and the state of the
//! rule files outside the tree), whether the rules keep each path the client decided on.
//!
//! Why: an indexed search applies ripgrep's rules to its candidates, which means reading the
//! ignore files of every directory they lie in (on the Linux tree, a few thousand system
//! calls: a tenth of a selective search's time). A verdict depends only on the path, the
//! flags and the rule files above it, so it holds while the watch's rules token (see
//! `index::fresh::Watch::rules_token`) stays: the daemon keeps what clients decided and
//! hands it back, and a client reads rules only for paths no client decided on yet. As with
//! the lists of `listings`, verdicts are kept only when the token did not move between the
//! select that gave them out undecided and the store.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::token_kept::TokenKept;

/// Keys (flag sets) kept per root at most.
pub const MAX_KEYS: usize = 16;
/// Verdicts kept per root at most, over every key (about 100 bytes each).
pub const MAX_VERDICTS: usize = 256 * 1024;

/// Whether the rules keep each path, by path.
pub type Keeps = HashMap<PathBuf, bool>;

/// The verdicts of one root.
pub struct Verdicts {
    kept: TokenKept<Keeps>,
}

impl Default for Verdicts {
    fn default() -> Self {
        Verdicts {
            kept: TokenKept::new(MAX_KEYS, MAX_VERDICTS, HashMap::len),
        }
    }
}

impl Verdicts {
    /// The verdicts kept under `key` at `token` (an outdated set is dropped).
    pub fn lookup(&mut self, key: &str, token: &str) -> Option<&Keeps> {
        self.kept.lookup(key, token)
    }

    /// Adds `verdicts`, decided between the select that answered `asked_at` and now
    /// (`token`), under `key`: only when the two are the same. Returns whether they were
    /// kept. The least recently used keys go to stay within bounds.
    pub fn store(
        &mut self,
        key: &str,
        asked_at: &str,
        token: &str,
        verdicts: impl IntoIterator<Item = (PathBuf, bool)>,
    ) -> bool {
        if asked_at != token {
            return false;
        }
        self.kept.store(key, token, |keeps| {
            for (path, keep) in verdicts {
                if keeps.len() >= MAX_VERDICTS {
                    break;
                }
                keeps.insert(path, keep);
            }
        });
        true
    }

    /// How many verdicts are kept, over every key.
    pub fn count(&self) -> usize {
        self.kept.total()
    }

    pub fn keys(&self) -> usize {
        self.kept.keys()
    }
}

/// `files` (with their spans) less those the rules drop, and the positions (in what is
/// returned) of those without a verdict.
pub fn apply<T>(
    keeps: &HashMap<PathBuf, bool>,
    files: Vec<(PathBuf, T)>,
) -> (Vec<(PathBuf, T)>, Vec<usize>) {
    let mut out = Vec::with_capacity(files.len());
    let mut undecided = Vec::new();
    for (path, extra) in files {
        match keeps.get(Path::new(&path)) {
            Some(false) => continue,
            Some(true) => {}
            None => undecided.push(out.len()),
        }
        out.push((path, extra));
    }
    (out, undecided)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(verdicts: &[(&str, bool)]) -> Vec<(PathBuf, bool)> {
        verdicts
            .iter()
            .map(|(p, k)| (PathBuf::from(p), *k))
            .collect()
    }

    #[test]
    fn verdicts_decided_while_the_rules_changed_are_not_kept() {
        let mut verdicts = Verdicts::default();
        assert!(!verdicts.store("k", "1:0", "1:1", paths(&[("a.c", true)])));
        assert!(verdicts.lookup("k", "1:1").is_none());
    }

    #[test]
    fn verdicts_add_up_under_one_key_and_stay_within_bounds() {
        let mut verdicts = Verdicts::default();
        assert!(verdicts.store("k", "1:0", "1:0", paths(&[("a.c", true)])));
        assert!(verdicts.store("k", "1:0", "1:0", paths(&[("b.o", false)])));
        assert_eq!(verdicts.lookup("k", "1:0").unwrap().len(), 2);
        for i in 0..MAX_KEYS + 3 {
            assert!(verdicts.store(&format!("k{i}"), "1:0", "1:0", paths(&[("x", true)])));
        }
        assert_eq!(verdicts.keys(), MAX_KEYS);
        assert!(
            verdicts.lookup("k", "1:0").is_none(),
            "the oldest went first"
        );
        let many = (0..MAX_VERDICTS + 10).map(|i| (PathBuf::from(format!("f{i}")), true));
        assert!(verdicts.store("big", "1:0", "1:0", many));
        assert!(verdicts.count() <= MAX_VERDICTS, "{}", verdicts.count());
        assert!(verdicts.lookup("big", "1:0").is_some(), "the newest stays");
        // A store at a new token drops every set of older states.
        assert!(verdicts.store("k", "1:1", "1:1", paths(&[("a.c", true)])));
        assert_eq!(verdicts.keys(), 1);
    }

    #[test]
    fn applying_verdicts_drops_what_the_rules_drop_and_says_what_is_undecided() {
        let keeps: HashMap<PathBuf, bool> = paths(&[("a.c", true), ("b.o", false)])
            .into_iter()
            .collect();
        let files = vec![
            (PathBuf::from("a.c"), 1),
            (PathBuf::from("b.o"), 2),
            (PathBuf::from("new.c"), 3),
        ];
        let (kept, undecided) = apply(&keeps, files);
        assert_eq!(
            kept,
            vec![(PathBuf::from("a.c"), 1), (PathBuf::from("new.c"), 3)]
        );
        assert_eq!(undecided, vec![1]);
    }
}
