//! Lists of files kept for `codesift-rg --files`, per root: the list a client's own walk
//! printed, stored under the client's key (its whole command line, working directory and
//! the state of the rule files outside the tree) and the watch's listing token.
//!
//! Why the client walks and the daemon keeps: ripgrep's listing depends on rules read from
//! the client's environment (global git excludes under its `HOME`, parent directories'
//! ignore files, `--ignore-file`), on globs and types relative to its working directory and
//! on the printed form of its paths. Only ripgrep's own walk, run by the client as ripgrep
//! would run it, equals ripgrep. The daemon's part is to say when that list is still the
//! tree's: a list is stored only when the watch's token did not move between the lookup
//! that missed (before the walk began) and the store (after it ended), and served only while
//! the token stays the same (see `index::fresh::Watch::listing_token`).

use std::sync::Arc;

use super::token_kept::TokenKept;

/// Lists kept per root at most (each key is one command line).
pub const MAX_LISTINGS: usize = 16;
/// Bytes of lists kept per root at most (the Linux tree's whole listing is ~3 MB).
pub const MAX_LISTING_BYTES: usize = 32 << 20;
/// The longest key accepted (a command line with its fingerprints fits easily).
pub const MAX_KEY: usize = 64 << 10;

/// The lists of one root.
pub struct Listings {
    kept: TokenKept<Arc<str>>,
}

impl Default for Listings {
    fn default() -> Self {
        Listings {
            kept: TokenKept::new(MAX_LISTINGS, MAX_LISTING_BYTES, |files| files.len()),
        }
    }
}

impl Listings {
    /// The list kept under `key` when it was taken at `token` (else none; an outdated one is
    /// dropped).
    pub fn lookup(&mut self, key: &str, token: &str) -> Option<Arc<str>> {
        self.kept.lookup(key, token).cloned()
    }

    /// Keeps `files` under `key`, taken between the lookup that answered `walked_at` and now
    /// (`token`): only when the two are the same, else the list may be of neither state.
    /// Returns whether it was kept. The least recently used lists go to stay within bounds.
    pub fn store(&mut self, key: &str, walked_at: &str, token: &str, files: &str) -> bool {
        if walked_at != token || files.len() > MAX_LISTING_BYTES || key.len() > MAX_KEY {
            return false;
        }
        self.kept.store(key, token, |kept| *kept = Arc::from(files));
        true
    }

    pub fn bytes(&self) -> usize {
        self.kept.total()
    }

    pub fn count(&self) -> usize {
        self.kept.keys()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_walked_while_the_tree_changed_is_not_kept() {
        let mut listings = Listings::default();
        assert!(!listings.store("k", "1:0", "1:2", "a"));
        assert!(listings.lookup("k", "1:2").is_none());
        assert!(listings.lookup("k", "1:0").is_none());
    }

    #[test]
    fn lists_stay_within_their_bounds() {
        let mut listings = Listings::default();
        for i in 0..MAX_LISTINGS + 5 {
            assert!(listings.store(&format!("k{i}"), "1:0", "1:0", "x"));
        }
        assert_eq!(listings.count(), MAX_LISTINGS);
        assert!(
            listings.lookup("k0", "1:0").is_none(),
            "the oldest went first"
        );
        let big = "y".repeat(MAX_LISTING_BYTES / 2 + 1);
        assert!(listings.store("big1", "1:0", "1:0", &big));
        assert!(listings.store("big2", "1:0", "1:0", &big));
        assert!(listings.bytes() <= MAX_LISTING_BYTES);
        assert!(listings.lookup("big2", "1:0").is_some(), "the newest stays");
        assert!(!listings.store("huge", "1:0", "1:0", &"z".repeat(MAX_LISTING_BYTES + 1)));
        // A store at a new token drops every list of older states.
        assert!(listings.store("k", "1:1", "1:1", "a"));
        assert_eq!(listings.count(), 1);
    }
}
