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

/// Values by client key, each with the token it was taken at, within bounds: how many keys,
/// and how large all the values together (each value's size as `size` tells).
pub struct TokenKept<V> {
    kept: HashMap<String, Kept<V>>,
    max_keys: usize,
    max_total: usize,
    size: fn(&V) -> usize,
}

impl<V: Default> TokenKept<V> {
    pub fn new(max_keys: usize, max_total: usize, size: fn(&V) -> usize) -> Self {
        TokenKept {
            kept: HashMap::new(),
            max_keys,
            max_total,
            size,
        }
    }

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

    /// Stores into the value under `key` at `token` (an empty one when there is none) with
    /// `update`, after dropping every value of another token: a store at a new token leaves
    /// none of the older states. Then the least recently used values but this one go while
    /// the whole is beyond its bounds.
    pub fn store(&mut self, key: &str, token: &str, update: impl FnOnce(&mut V)) {
        self.kept.retain(|_, k| k.token == token);
        let kept = self.kept.entry(key.to_string()).or_insert_with(|| Kept {
            token: token.to_string(),
            value: V::default(),
            used: Instant::now(),
        });
        kept.used = Instant::now();
        update(&mut kept.value);
        while self.kept.len() > self.max_keys || self.total() > self.max_total {
            let oldest = self
                .kept
                .iter()
                .filter(|(k, _)| k.as_str() != key)
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

    /// The size of all the values together.
    pub fn total(&self) -> usize {
        self.kept.values().map(|k| (self.size)(&k.value)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(max_keys: usize, max_total: usize) -> TokenKept<usize> {
        TokenKept::new(max_keys, max_total, |n| *n)
    }

    #[test]
    fn a_value_is_served_only_at_its_token_and_dropped_once_outdated() {
        let mut kept = counts(4, 100);
        assert!(kept.lookup("k", "1:0").is_none());
        kept.store("k", "1:0", |n| *n = 7);
        assert_eq!(kept.lookup("k", "1:0"), Some(&7));
        assert!(kept.lookup("other", "1:0").is_none());
        assert!(kept.lookup("k", "1:1").is_none(), "the token moved");
        assert!(kept.lookup("k", "1:0").is_none(), "dropped once outdated");
    }

    #[test]
    fn a_store_adds_to_its_key_and_one_at_a_new_token_drops_the_older_states() {
        let mut kept = counts(4, 100);
        kept.store("a", "1:0", |n| *n = 1);
        kept.store("b", "1:0", |n| *n = 2);
        kept.store("a", "1:0", |n| *n += 10);
        assert_eq!(kept.lookup("a", "1:0"), Some(&11));
        assert_eq!((kept.keys(), kept.total()), (2, 13));
        kept.store("c", "1:1", |n| *n = 3);
        assert_eq!(kept.keys(), 1);
    }

    #[test]
    fn the_least_recently_used_go_first_but_never_the_one_stored() {
        let mut kept = counts(2, 100);
        kept.store("a", "1:0", |n| *n = 1);
        kept.store("b", "1:0", |n| *n = 2);
        kept.lookup("a", "1:0");
        kept.store("c", "1:0", |n| *n = 3);
        assert!(
            kept.lookup("b", "1:0").is_none(),
            "b was used least recently"
        );
        assert_eq!(kept.total(), 4);
        kept.store("big", "1:0", |n| *n = 500);
        assert_eq!(kept.keys(), 1, "over the total alone: the others went");
        assert_eq!(
            kept.lookup("big", "1:0"),
            Some(&500),
            "the one stored stays"
        );
    }
}
