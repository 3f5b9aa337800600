//! Sets of units as a query evaluates them: a posting list as it decodes (its ids, ascending,
//! or the bitmap a dense list is stored as), intersected and joined without building a
//! bitmap for every list. A search's trigrams are mostly stored as ids: turning each into a
//! roaring bitmap before intersecting cost half of a page's selection on the Linux tree, and
//! only the result (a few thousand units) needs to be one.

use roaring::RoaringBitmap;

/// Units, in one of the forms a list decodes to.
#[derive(Clone, Debug)]
pub enum UnitSet {
    /// Strictly ascending ids.
    Ids(Vec<u32>),
    Bitmap(RoaringBitmap),
}

/// Above this ratio of lengths, the shorter list's ids are looked up in the longer one by
/// galloping instead of walking both.
const GALLOP_RATIO: usize = 16;

impl UnitSet {
    pub fn len(&self) -> u64 {
        match self {
            UnitSet::Ids(ids) => ids.len() as u64,
            UnitSet::Bitmap(bitmap) => bitmap.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The units of both.
    pub fn and(self, other: &UnitSet) -> UnitSet {
        match (self, other) {
            (UnitSet::Ids(ids), UnitSet::Ids(others)) => UnitSet::Ids(intersect(&ids, others)),
            (UnitSet::Ids(mut ids), UnitSet::Bitmap(bitmap)) => {
                ids.retain(|&id| bitmap.contains(id));
                UnitSet::Ids(ids)
            }
            (UnitSet::Bitmap(bitmap), UnitSet::Ids(ids)) => UnitSet::Ids(
                ids.iter()
                    .copied()
                    .filter(|&id| bitmap.contains(id))
                    .collect(),
            ),
            (UnitSet::Bitmap(mut bitmap), UnitSet::Bitmap(other)) => {
                bitmap &= other;
                UnitSet::Bitmap(bitmap)
            }
        }
    }

    /// The units of either (a bitmap: alternations join lists of any sizes).
    pub fn or(self, other: UnitSet) -> UnitSet {
        let mut bitmap = self.into_bitmap();
        match other {
            UnitSet::Ids(ids) => bitmap.extend(ids),
            UnitSet::Bitmap(other) => bitmap |= other,
        }
        UnitSet::Bitmap(bitmap)
    }

    pub fn into_bitmap(self) -> RoaringBitmap {
        match self {
            UnitSet::Ids(ids) => super::format::bitmap_of_ascending(&ids),
            UnitSet::Bitmap(bitmap) => bitmap,
        }
    }
}

/// The ids in both of two strictly ascending lists, ascending.
fn intersect(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let mut both = Vec::with_capacity(short.len());
    if long.len() / short.len().max(1) >= GALLOP_RATIO {
        let mut rest = long;
        for &id in short {
            // Doubling steps to a bound past `id`, then a binary search below it.
            let mut step = 1;
            while step < rest.len() && rest[step] < id {
                step *= 2;
            }
            let window = &rest[..rest.len().min(step + 1)];
            let at = window.partition_point(|&other| other < id);
            rest = &rest[at..];
            if rest.first() == Some(&id) {
                both.push(id);
            }
            if rest.is_empty() {
                break;
            }
        }
    } else {
        // Without a branch on the comparison: lists of alike sizes interleave at random, and
        // a mispredicted branch a step cost three times the step (the Linux tree's lists of
        // a search's five trigrams, 16,000 to 48,000 ids each).
        both.resize(short.len(), 0);
        let (mut i, mut j, mut k) = (0, 0, 0);
        while i < short.len() && j < long.len() {
            let (x, y) = (short[i], long[j]);
            both[k] = x;
            k += usize::from(x == y);
            i += usize::from(x <= y);
            j += usize::from(y <= x);
        }
        both.truncate(k);
    }
    both
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A strictly ascending list from a seed: ids below `max`, each kept with odds `1/every`.
    fn list(seed: u64, max: u32, every: u64) -> Vec<u32> {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..max)
            .filter(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state.is_multiple_of(every)
            })
            .collect()
    }

    fn bitmap(ids: &[u32]) -> RoaringBitmap {
        ids.iter().copied().collect()
    }

    #[test]
    fn every_form_intersects_and_joins_as_bitmaps_do() {
        // Lists of alike and of very different sizes: a walk of both and a gallop.
        let cases = [(1, 2), (1, 40), (40, 1), (3, 3), (1, 2_000), (500, 2)];
        for (seed, (every_a, every_b)) in cases.into_iter().enumerate() {
            let a = list(seed as u64 + 1, 200_000, every_a);
            let b = list(seed as u64 + 100, 200_000, every_b);
            let expected_and = bitmap(&a) & bitmap(&b);
            let expected_or = bitmap(&a) | bitmap(&b);
            let forms = |ids: &[u32]| [UnitSet::Ids(ids.to_vec()), UnitSet::Bitmap(bitmap(ids))];
            for left in forms(&a) {
                for right in forms(&b) {
                    let and = left.clone().and(&right);
                    assert_eq!(and.len(), expected_and.len());
                    assert_eq!(and.into_bitmap(), expected_and, "and, case {seed}");
                    let or = left.clone().or(right.clone());
                    assert_eq!(or.into_bitmap(), expected_or, "or, case {seed}");
                }
            }
        }
    }

    #[test]
    fn intersections_at_the_ends_and_of_empty_lists() {
        assert_eq!(intersect(&[], &[1, 2, 3]), Vec::<u32>::new());
        assert_eq!(intersect(&[5], &[]), Vec::<u32>::new());
        let long: Vec<u32> = (0..1_000).collect();
        assert_eq!(intersect(&[0, 999], &long), vec![0, 999]);
        assert_eq!(intersect(&[1_000, 2_000], &long), Vec::<u32>::new());
        assert_eq!(intersect(&long, &[0, 500, 999]), vec![0, 500, 999]);
    }
}
