//! Whether a hit's matched text occurs exactly once in its file: what lets an edit by hit id
//! find its text again after the file changed. Proven within a budget of bytes scanned.

use super::hit::Hit;

/// Marks each hit whose matched bytes occur exactly once in `text`.
#[cfg(test)]
pub(super) fn mark_unique(hits: &mut [Hit], bytes: &[u8], text: &[u8]) {
    let mut budget = unique_budget(text.len());
    mark_unique_within(hits, bytes, text, &mut budget);
}

/// The bytes the checks of one file may scan: its text once, and `UNIQUE_SCAN_BUDGET` more.
pub(super) fn unique_budget(text_len: usize) -> usize {
    text_len.saturating_add(UNIQUE_SCAN_BUDGET)
}

/// `mark_unique` spending `budget` (left for the next hits of the same file: a file whose
/// hits are checked piece by piece spends one budget in all).
pub(super) fn mark_unique_within(hits: &mut [Hit], bytes: &[u8], text: &[u8], budget: &mut usize) {
    mark_unique_spending(hits, bytes, text.len(), budget, &mut |needle| {
        let mut found = memchr::memmem::find_iter(text, needle);
        (found.next(), found.next())
    });
}

/// The checks together scan the text once plus at most this many bytes. A hit whose bytes
/// occur once among the hits needs a scan of the whole text to prove them unique, and a
/// file with thousands of distinct hits (minified code) would otherwise cost its size per
/// hit. Hits past the budget count as not unique (a linked edit of such a hit that no
/// longer matches at its span fails as stale instead of being relocated).
const UNIQUE_SCAN_BUDGET: usize = 4 * 1024 * 1024;

/// Where the first two (non-overlapping) occurrences of a string start in a text.
type FirstTwo<'a> = dyn FnMut(&[u8]) -> (Option<usize>, Option<usize>) + 'a;

/// `mark_unique` over a text of `text_len` bytes that `first_two(needle)` searches: where the
/// first two (non-overlapping) occurrences of `needle` start.
pub(super) fn mark_unique_by(
    hits: &mut [Hit],
    bytes: &[u8],
    text_len: usize,
    first_two: &mut FirstTwo<'_>,
) {
    let mut budget = unique_budget(text_len);
    mark_unique_spending(hits, bytes, text_len, &mut budget, first_two);
}

/// `mark_unique_by` spending `budget`.
fn mark_unique_spending(
    hits: &mut [Hit],
    bytes: &[u8],
    text_len: usize,
    budget: &mut usize,
    first_two: &mut FirstTwo<'_>,
) {
    let content = |hit: &Hit| &bytes[hit.content.start..hit.content.start + hit.content.len];
    // Whether `needle` occurs once in the text; `None` when the budget is spent.
    let mut once_in_text = |needle: &[u8]| {
        if needle.is_empty() || *budget == 0 {
            return None;
        }
        // What a scan of the text for the first two would read.
        let (once, scanned) = match first_two(needle) {
            (Some(_), None) => (true, text_len),
            (Some(_), Some(second)) => (false, second + needle.len()),
            (None, _) => (false, text_len),
        };
        *budget = budget.saturating_sub(scanned);
        Some(once)
    };
    match hits {
        [] => {}
        [only] => only.unique = once_in_text(content(only)) == Some(true),
        // The usual case of a literal pattern: every hit has the same bytes, so none is unique
        // (no sorting).
        [first, rest @ ..] if rest.iter().all(|hit| content(hit) == content(first)) => {}
        _ => {
            // Hits whose bytes no other hit has, found by sorting (cheaper than hashing each).
            let mut order: Vec<usize> = (0..hits.len()).collect();
            order.sort_unstable_by(|&a, &b| content(&hits[a]).cmp(content(&hits[b])));
            let mut alone = vec![false; hits.len()];
            for run in order.chunk_by(|&a, &b| content(&hits[a]) == content(&hits[b])) {
                if let [only] = run {
                    alone[*only] = true;
                }
            }
            // In file order, so that the budget goes to the first hits.
            for (hit, alone) in hits.iter_mut().zip(alone) {
                hit.unique = alone && once_in_text(content(hit)) == Some(true);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::grep::test_support::*;

    #[test]
    fn uniqueness_is_checked_within_a_budget() {
        // Distinct hits that each occur once, in a text big enough that only the first few
        // can be proven unique within the budget; none counts as unique wrongly.
        let filler = "x".repeat(1 << 20);
        let mut text = String::new();
        for i in 0..12 {
            text.push_str(&format!("tok{i:02}\n{filler}\n"));
        }
        text.push_str("tok00 again\n");
        let h = search_all(&text, opts(r"tok\d\d"));
        assert_eq!(h.len(), 13);
        let unique: Vec<bool> = h.iter().map(|h| h.unique).collect();
        assert_eq!(unique[..2], [false, true], "tok00 twice, tok01 once");
        assert!(!unique[12]);
        assert!(!unique[11], "past the budget");
        assert!(unique.iter().filter(|&&u| u).count() < 11);
    }
}
