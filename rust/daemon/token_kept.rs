//! What the daemon keeps per client key while a watch's token stays (the lists of
//! `listings`, the verdicts of `verdicts`): a value is kept only at the token it was taken
//! at, dropped once the token moves, and the least recently used go first to stay within
//! bounds.

use std::collections::HashMap;
use std::time::Instant;

struct Kept<V> {
    token: String,
    value: V,
    used: Instant,
}

/// Values by client key, each with the token it was taken at.
pub struct TokenKept<V> {
    kept: HashMap<String, Kept<V>>,
}

impl<V> Default for TokenKept<V> {
    fn default() -> Self {
        TokenKept {
            kept: HashMap::new(),
        }
    }
}

impl<V> TokenKept<V> {
    /// The value kept under `key` when it was taken at `token` (else none; an outdated one
    /// is dropped).
    pub fn lookup(&mut self, key: &str, token: &str) -> Option<&V> {
        if self.kept.get(key).is_some_and(|k| k.token != token) {
            self.kept.remove(key);
        }
        let kept = self.kept.get_mut(key)?;
        kept.used = Instant::now();
        Some(&kept.value)
    }

    /// The value under `key` at `token` to store into (made by `make` when there is none),
    /// after dropping every value of another token: a store at a new token leaves none of
    /// the older states.
    pub fn entry(&mut self, key: &str, token: &str, make: impl FnOnce() -> V) -> &mut V {
        self.kept.retain(|_, k| k.token == token);
        let kept = self.kept.entry(key.to_string()).or_insert_with(|| Kept {
            token: token.to_string(),
            value: make(),
            used: Instant::now(),
        });
        kept.used = Instant::now();
        &mut kept.value
    }

    /// Drops the least recently used values but `keep`'s while `over` says the whole is
    /// beyond its bounds.
    pub fn evict(&mut self, keep: &str, over: impl Fn(&Self) -> bool) {
        while over(self) {
            let oldest = self
                .kept
                .iter()
                .filter(|(k, _)| k.as_str() != keep)
                .min_by_key(|(_, kept)| kept.used)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => self.kept.remove(&k),
                None => break,
            };
        }
    }

    /// How many keys have a value.
    pub fn keys(&self) -> usize {
        self.kept.len()
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.kept.values().map(|k| &k.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_served_only_at_its_token_and_dropped_once_outdated() {
        let mut kept = TokenKept::default();
        assert!(kept.lookup("k", "1:0").is_none());
        *kept.entry("k", "1:0", || 0) = 7;
        assert_eq!(kept.lookup("k", "1:0"), Some(&7));
        assert!(kept.lookup("other", "1:0").is_none());
        assert!(kept.lookup("k", "1:1").is_none(), "the token moved");
        assert!(kept.lookup("k", "1:0").is_none(), "dropped once outdated");
    }

    #[test]
    fn a_store_at_a_new_token_drops_the_older_states() {
        let mut kept = TokenKept::default();
        *kept.entry("a", "1:0", || 0) = 1;
        *kept.entry("b", "1:0", || 0) = 2;
        *kept.entry("a", "1:0", || 0) += 10;
        assert_eq!(
            kept.lookup("a", "1:0"),
            Some(&11),
            "an entry adds to what is kept"
        );
        *kept.entry("c", "1:1", || 0) = 3;
        assert_eq!(kept.keys(), 1);
    }

    #[test]
    fn eviction_drops_the_least_recently_used_but_the_one_kept() {
        let mut kept = TokenKept::default();
        for (i, key) in ["a", "b", "c"].into_iter().enumerate() {
            *kept.entry(key, "1:0", || 0) = i;
        }
        kept.lookup("a", "1:0");
        kept.evict("c", |k| k.keys() > 1);
        assert_eq!(kept.values().copied().collect::<Vec<_>>(), vec![2]);
        kept.evict("c", |k| !k.values().any(|v| *v == 0));
        assert_eq!(kept.keys(), 1, "the one kept stays even when over");
    }
}
