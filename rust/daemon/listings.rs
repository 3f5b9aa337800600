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
//!
//! A list is kept in its compact form (`super::front_coding`), as the client sent it: the
//! daemon never decodes it, and counts its bytes against `MAX_LISTING_BYTES`.

use std::sync::{Arc, OnceLock};

use super::token_kept::TokenKept;

/// Lists kept per root at most (each key is one command line).
pub const MAX_LISTINGS: usize = 16;
/// Bytes of lists kept per root at most (the Linux tree's compact listing is ~0.6 MB, a
/// million files' ~15 MB).
pub const MAX_LISTING_BYTES: usize = 32 << 20;
/// Lowers `MAX_LISTING_BYTES` (read once, when the daemon first keeps lists): for tests of
/// a list over the bound on a small tree. A value above the bound, or not a number, is
/// ignored.
pub const LISTING_BYTES_ENV: &str = "CODESIFT_LISTING_BYTES";

/// The bytes of lists kept per root: `MAX_LISTING_BYTES`, or less as `LISTING_BYTES_ENV`
/// says.
pub fn listing_bytes() -> usize {
    static LIMIT: OnceLock<usize> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        std::env::var(LISTING_BYTES_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|v| *v <= MAX_LISTING_BYTES)
            .unwrap_or(MAX_LISTING_BYTES)
    })
}
/// The longest key accepted (a command line with its fingerprints fits easily).
pub const MAX_KEY: usize = 64 << 10;

/// The lists of one root.
pub struct Listings {
    kept: TokenKept<Arc<[u8]>>,
    limit: usize,
}

impl Default for Listings {
    fn default() -> Self {
        Listings::with_limit(listing_bytes())
    }
}

impl Listings {
    /// Lists of at most `limit` bytes together.
    pub fn with_limit(limit: usize) -> Self {
        Listings {
            kept: TokenKept::new(MAX_LISTINGS, limit, |files| files.len()),
            limit,
        }
    }

    /// The most bytes a list kept may take (a client offers none longer).
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The list kept under `key` when it was taken at `token` (else none; an outdated one is
    /// dropped).
    pub fn lookup(&mut self, key: &str, token: &str) -> Option<Arc<[u8]>> {
        self.kept.lookup(key, token).cloned()
    }

    /// Keeps `files` under `key`, taken between the lookup that answered `walked_at` and now
    /// (`token`): only when the two are the same, else the list may be of neither state.
    /// Returns whether it was kept. The least recently used lists go to stay within bounds.
    pub fn store(&mut self, key: &str, walked_at: &str, token: &str, files: Vec<u8>) -> bool {
        if walked_at != token || files.len() > self.limit || key.len() > MAX_KEY {
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
        assert!(!listings.store("k", "1:0", "1:2", b"a".to_vec()));
        assert!(listings.lookup("k", "1:2").is_none());
        assert!(listings.lookup("k", "1:0").is_none());
    }

    #[test]
    fn lists_stay_within_their_bounds() {
        let mut listings = Listings::with_limit(MAX_LISTING_BYTES);
        for i in 0..MAX_LISTINGS + 5 {
            assert!(listings.store(&format!("k{i}"), "1:0", "1:0", b"x".to_vec()));
        }
        assert_eq!(listings.count(), MAX_LISTINGS);
        assert!(
            listings.lookup("k0", "1:0").is_none(),
            "the oldest went first"
        );
        let big = vec![b'y'; MAX_LISTING_BYTES / 2 + 1];
        assert!(listings.store("big1", "1:0", "1:0", big.clone()));
        assert!(listings.store("big2", "1:0", "1:0", big));
        assert!(listings.bytes() <= MAX_LISTING_BYTES);
        assert!(listings.lookup("big2", "1:0").is_some(), "the newest stays");
        let huge = vec![b'z'; MAX_LISTING_BYTES + 1];
        assert!(!listings.store("huge", "1:0", "1:0", huge));
        // A store at a new token drops every list of older states.
        assert!(listings.store("k", "1:1", "1:1", b"a".to_vec()));
        assert_eq!(listings.count(), 1);
    }

    #[test]
    fn a_lower_limit_keeps_no_longer_list() {
        let mut listings = Listings::with_limit(10);
        assert_eq!(listings.limit(), 10);
        assert!(!listings.store("k", "1:0", "1:0", vec![b'x'; 11]));
        assert!(listings.store("k", "1:0", "1:0", vec![b'x'; 10]));
        assert_eq!(listings.bytes(), 10);
    }
}
