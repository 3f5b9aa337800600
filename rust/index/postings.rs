//! A posting list as a build gathers it: the unit ids ascending, kept as the varints of
//! their gaps (the first id itself, then each id less the one before less one: the bytes of
//! the index file's `IDS` encoding), with their count and the last id.
//!
//! A build appends each chunk's list for a trigram after the lists of the chunks before it,
//! always with larger ids, and joins spilled runs the same way. In this form both are byte
//! copies: a chunk's gaps after its first id do not depend on where the chunk's units start,
//! so the thread that reads the chunk encodes them, and the thread that merges chunks in
//! order writes one varint and copies the rest. A roaring bitmap took each id through its
//! containers one at a time, a third of a build's processor time on one thread. It also
//! holds less: most gaps take one byte, an array container two.

use super::format::{put_varint, read_varint};
use std::io::{self, Read, Write};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PostingList {
    varints: Vec<u8>,
    count: u32,
    last: u32,
}

fn out_of_order() -> io::Error {
    io::Error::other("unit ids out of order")
}

fn damaged() -> io::Error {
    io::Error::other("a posting list of the index build is damaged")
}

impl PostingList {
    /// The list of `ids` (ascending; an id not above the one before is an error).
    pub fn from_ids(ids: impl IntoIterator<Item = u32>) -> io::Result<PostingList> {
        let mut list = PostingList::default();
        for id in ids {
            list.push(id)?;
        }
        Ok(list)
    }

    /// Appends `id`, which must be above the list's last.
    pub fn push(&mut self, id: u32) -> io::Result<()> {
        let gap = match self.count {
            0 => id,
            _ => {
                id.checked_sub(self.last)
                    .filter(|g| *g > 0)
                    .ok_or_else(out_of_order)?
                    - 1
            }
        };
        put_varint(&mut self.varints, gap);
        self.count = self.count.checked_add(1).ok_or_else(out_of_order)?;
        self.last = id;
        Ok(())
    }

    /// Appends the `count` ids that start at `first`, go on by the gaps `rest` (varints, as
    /// this list keeps them) and end at `last`: a chunk's list, encoded where it was read.
    pub fn append_encoded(
        &mut self,
        first: u32,
        rest: &[u8],
        count: u32,
        last: u32,
    ) -> io::Result<()> {
        if count == 0 || last < first {
            return Err(damaged());
        }
        self.push(first)?;
        self.varints.extend_from_slice(rest);
        self.count = self.count.checked_add(count - 1).ok_or_else(damaged)?;
        self.last = last;
        Ok(())
    }

    /// Appends `other`, whose ids all come after this list's.
    pub fn append(&mut self, other: &PostingList) -> io::Result<()> {
        if other.count == 0 {
            return Ok(());
        }
        let (first, took) = read_varint(&other.varints).ok_or_else(damaged)?;
        self.append_encoded(first, &other.varints[took..], other.count, other.last)
    }

    /// How many ids the list holds.
    pub fn len(&self) -> u32 {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The largest id.
    pub fn last(&self) -> Option<u32> {
        (self.count > 0).then_some(self.last)
    }

    /// The list's bytes in the `IDS` encoding.
    pub fn varints(&self) -> &[u8] {
        &self.varints
    }

    /// The memory the list's bytes take (what a build counts against its budget).
    pub fn held_bytes(&self) -> usize {
        self.varints.capacity()
    }

    /// The gaps, checked against the count and last id the list was made with (a spilled
    /// run read back may have been damaged on disk).
    pub fn gaps(&self) -> io::Result<Vec<u32>> {
        let mut gaps = Vec::with_capacity(self.count as usize);
        let (mut at, mut next) = (0, 0u64);
        while at < self.varints.len() {
            let (gap, took) = read_varint(&self.varints[at..]).ok_or_else(damaged)?;
            at += took;
            next += u64::from(gap) + 1;
            gaps.push(gap);
        }
        let ends_at_last = match self.count {
            0 => true,
            _ => next.checked_sub(1) == Some(u64::from(self.last)),
        };
        if gaps.len() != self.count as usize || !ends_at_last {
            return Err(damaged());
        }
        Ok(gaps)
    }

    /// Writes the list as a spilled run holds it: its count, last id, the length of its
    /// bytes (each a little-endian `u32`), and the bytes.
    pub fn write_to(&self, out: &mut impl Write) -> io::Result<u64> {
        let len = u32::try_from(self.varints.len())
            .map_err(|_| io::Error::other("a posting list over 4 GiB"))?;
        out.write_all(&self.count.to_le_bytes())?;
        out.write_all(&self.last.to_le_bytes())?;
        out.write_all(&len.to_le_bytes())?;
        out.write_all(&self.varints)?;
        Ok(12 + u64::from(len))
    }

    /// Reads a list `write_to` wrote, and the bytes it took; at most `left` bytes are read.
    pub fn read_from(input: &mut impl Read, left: u64) -> io::Result<(PostingList, u64)> {
        let mut head = [0u8; 12];
        input.read_exact(&mut head)?;
        let word = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().unwrap());
        let (count, last, len) = (word(0), word(4), u64::from(word(8)));
        if 12 + len > left {
            return Err(damaged());
        }
        let mut varints = vec![0u8; len as usize];
        input.read_exact(&mut varints)?;
        let list = PostingList {
            varints,
            count,
            last,
        };
        Ok((list, 12 + len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(list: &PostingList) -> Vec<u32> {
        let mut next = 0u32;
        list.gaps()
            .unwrap()
            .into_iter()
            .map(|gap| {
                let id = next + gap;
                // The id after u32::MAX is never read: no list goes past it.
                next = id.wrapping_add(1);
                id
            })
            .collect()
    }

    #[test]
    fn ids_come_back_as_they_went_in() {
        for case in [
            vec![],
            vec![0],
            vec![5],
            vec![0, 1, 2],
            vec![127, 128, 300, 16_511, 16_512, 2_000_000, u32::MAX],
        ] {
            let list = PostingList::from_ids(case.iter().copied()).unwrap();
            assert_eq!(ids(&list), case);
            assert_eq!(list.len() as usize, case.len());
            assert_eq!(list.last(), case.last().copied());
        }
    }

    #[test]
    fn ids_out_of_order_are_refused() {
        for case in [vec![3, 3], vec![4, 2], vec![0, 0]] {
            let err = PostingList::from_ids(case.iter().copied()).unwrap_err();
            assert_eq!(err.to_string(), "unit ids out of order", "{case:?}");
        }
    }

    #[test]
    fn lists_appended_are_the_list_of_all_their_ids() {
        let parts: [&[u32]; 4] = [&[1, 5, 9], &[], &[10], &[200, 201, 70_000]];
        let mut whole = PostingList::default();
        for part in parts {
            whole
                .append(&PostingList::from_ids(part.iter().copied()).unwrap())
                .unwrap();
        }
        let expected: Vec<u32> = parts.concat();
        assert_eq!(
            whole,
            PostingList::from_ids(expected.iter().copied()).unwrap()
        );
        let before = PostingList::from_ids([3]).unwrap();
        let mut later = PostingList::from_ids([7]).unwrap();
        assert!(later.append(&before).is_err(), "ids before the list's last");
    }

    #[test]
    fn a_chunk_list_appended_encoded_is_its_ids_moved_by_the_chunks_start() {
        // A chunk's ids 2, 3, 10 (gaps after the first: 0, 6), its units starting at 100.
        let chunk = PostingList::from_ids([2, 3, 10]).unwrap();
        let (_, took) = read_varint(chunk.varints()).unwrap();
        let mut list = PostingList::from_ids([0, 50]).unwrap();
        list.append_encoded(102, &chunk.varints()[took..], 3, 110)
            .unwrap();
        assert_eq!(ids(&list), [0, 50, 102, 103, 110]);
    }

    #[test]
    fn a_list_read_back_is_checked_against_its_count_and_last() {
        let list = PostingList::from_ids([4, 9, 1000]).unwrap();
        let mut bytes = Vec::new();
        let wrote = list.write_to(&mut bytes).unwrap();
        assert_eq!(wrote, bytes.len() as u64);
        let (read, took) = PostingList::read_from(&mut &bytes[..], wrote).unwrap();
        assert_eq!((read.clone(), took), (list, wrote));
        assert!(PostingList::read_from(&mut &bytes[..], wrote - 1).is_err());
        // A count or last id that is not the bytes' is found when the gaps are read.
        for at in [0, 4] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 1;
            let (read, _) = PostingList::read_from(&mut &damaged[..], wrote).unwrap();
            assert!(read.gaps().is_err(), "field at {at}");
        }
        assert!(read.gaps().is_ok());
    }
}
