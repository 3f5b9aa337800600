//! The on-disk index: one file, written once and never modified, validated on open so that a
//! corrupt, truncated or foreign-version file is never trusted.
//!
//! Layout (little-endian): a fixed header; the path bytes; one fixed-size record per file in
//! byte order of its path; one record per unit (a line-aligned block of a file: its file, first
//! line number and byte offset, so that a search of only some units reports exact lines and
//! offsets); the posting lists (each in the smallest of three encodings, below); the trigram
//! lookup table sorted by trigram, each entry with its list's encoding, place, cardinality and
//! CRC-32; a trailer. The
//! posting lists come before the lookup table so that a build streams them out (merged from
//! spilled runs, see `build`) without holding them: the table is small and known only at the
//! end. The header holds a CRC-32 of each other section and of itself.
//!
//! Opening reads the header, paths, file and unit tables and the lookup table into memory
//! (tens of megabytes for half a million files) and verifies every checksum and offset on
//! that copy. The posting lists, most of the file, are never copied: each query reads the
//! lists it needs with `pread` (through the page cache, shared with every other reader of
//! the file) and checks each against the CRC-32 its lookup entry holds. So what a search uses
//! is always what was verified, and a file truncated or rewritten by anyone after the open can
//! only make a read come up short or fail its checksum: the index is then marked damaged
//! (`damage`) and its owner discards it. A mapping would share the page cache as well, but a
//! mapped file truncated under it raises `SIGBUS` in whichever thread touches it, and the
//! only guards (a `SIGBUS` handler jumping out of arbitrary Rust code, or a sealed copy) are
//! unsound or cost the whole file in memory.
//!
//! A lookup entry is 24 bytes: `u32` trigram in its low 24 bits and the list's encoding in its
//! top 8, `u32` list length in bytes, `u64` list offset (from the start of the lists), `u32`
//! CRC-32 of the list, `u32` cardinality (units holding the trigram). The writer stores each
//! list in whichever encoding is smallest for it:
//!
//! - `ROARING` (0): the list serialized as a roaring bitmap of unit ids (the portable format);
//!   smallest for lists dense in some ranges of units and sparse in others.
//! - `IDS` (1): the unit ids ascending as LEB128 varints of their gaps (the first id itself,
//!   then each id less the previous one less one); smallest for sparse lists, most of them.
//! - `COMPLEMENT` (2): the same for the ids of the units NOT holding the trigram, for lists
//!   holding more than half of all units (a list of every unit is empty).
//! - `PACKED` (3): the same gaps in blocks of 32, each block a byte giving its bit width
//!   (the fewest bits that hold its largest gap, 0 to 32) and then its 32 gaps in that many
//!   bits each (`bitpacking`'s `BitPacker1x` layout: `4 × width` bytes); the gaps after the
//!   last whole block (the list's length modulo 32, from its entry's cardinality) as varints.
//!   Smallest for lists of middling density, whose gaps fit in far fewer bits than a varint
//!   byte, and faster to decode than varints.
//! - `PACKED_COMPLEMENT` (4): the complement's gaps so.
//!
//! On the Linux tree this makes the posting lists 40 % smaller than roaring bitmaps alone.
//! Decoding refuses (and marks the index damaged) whatever a writer could not have written:
//! an unknown encoding (on open), a varint cut short, longer than five bytes, with bits past
//! 32 or a redundant last byte, a block cut short or of a width past 32 or wider than its
//! largest gap needs, an id past the last unit, and a count of ids that is not the entry's
//! cardinality (or, for a complement, the units less it).

use super::postings::PostingList;
use super::unit_set::UnitSet;
use bitpacking::{BitPacker, BitPacker1x};
use roaring::RoaringBitmap;
use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

pub const MAGIC: &[u8; 8] = b"CSIFTIDX";
pub const TRAILER: &[u8; 8] = b"CSIFTEND";
/// Bumped whenever the layout or the meaning of a field changes: older files are rebuilt.
pub const VERSION: u32 = 6;
const HEADER_LEN: usize = 128;
/// Where the four section checksums (paths, files, units, lookup) and the header's own
/// (computed with itself zeroed) are in the header.
const SECTION_CRCS: usize = 16 + 8 * 11;
const SECTIONS: usize = 4;
const HEADER_CRC: usize = SECTION_CRCS + 4 * 5;
const FILE_LEN: usize = 56;
const UNIT_LEN: usize = 16;
/// A lookup entry: trigram and encoding, list length, list offset (from the start of the
/// lists), the list's CRC-32 and its cardinality (see the module doc).
const LOOKUP_LEN: usize = 24;
/// Trigrams are 24 bits: the top 8 of a lookup entry's first field say how its list is encoded.
const TRIGRAM_MASK: u32 = 0x00FF_FFFF;
const ENCODING_SHIFT: u32 = 24;

/// How a posting list is stored (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Encoding {
    Roaring = 0,
    Ids = 1,
    Complement = 2,
    Packed = 3,
    PackedComplement = 4,
}

impl Encoding {
    fn from_tag(tag: u32) -> Option<Encoding> {
        match tag {
            0 => Some(Encoding::Roaring),
            1 => Some(Encoding::Ids),
            2 => Some(Encoding::Complement),
            3 => Some(Encoding::Packed),
            4 => Some(Encoding::PackedComplement),
            _ => None,
        }
    }
}

/// One entry of the lookup table.
#[derive(Clone, Copy, Debug)]
struct Entry {
    trigram: u32,
    encoding: Option<Encoding>,
    size: u32,
    off: u64,
    crc: u32,
    count: u32,
}

/// The file is indexed (its trigrams are in the postings); otherwise it is always scanned.
pub const INDEXED: u32 = 1;
/// The file holds a NUL byte: the scan skips it as binary whatever the pattern, so while it
/// is unchanged it is counted as binary without being read.
pub const BINARY: u32 = 2;
/// The file starts with a UTF-8 byte order mark (the scan searches the text after it): such a
/// file is searched whole, never unit by unit.
pub const UTF8_BOM: u32 = 4;

/// One unit as the index knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnitRecord {
    pub file: u32,
    /// The 1-based number of the unit's first line in its file.
    pub first_line: u32,
    /// Where the unit starts in its file.
    pub offset: u64,
}

/// One file as the index knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRecord {
    pub path: Vec<u8>,
    pub flags: u32,
    pub size: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub ino: u64,
    pub first_unit: u32,
    pub units: u32,
}

/// Posting lists in ascending trigram order, as a build produces them (from memory, or
/// merged from spilled runs); an error ends the write.
pub type Postings<'a> = &'a mut dyn Iterator<Item = io::Result<(u32, PostingList)>>;

/// Everything an index file holds, for writing.
pub struct Contents<'a> {
    pub options_hash: u64,
    /// When the build started (ns since the epoch): files changed at or after this moment
    /// (less a margin for coarse timestamps) are searched from disk.
    pub build_start_ns: i64,
    pub files: &'a [FileRecord],
    /// Every unit, in unit-id order.
    pub units: &'a [UnitRecord],
    /// Posting lists, sorted by trigram, streamed.
    pub postings: Postings<'a>,
    /// Threads that encode the lists (`encode_in_order`); the file is the same for any.
    pub threads: usize,
}

/// What a write produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    pub bytes: u64,
    pub trigrams: usize,
}

/// A writer that keeps a CRC-32 of what went through it since the last `section`.
struct Summed<W: Write> {
    out: W,
    crc: crc32fast::Hasher,
}

impl<W: Write> Write for Summed<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.out.write(buf)?;
        self.crc.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl<W: Write> Summed<W> {
    /// The checksum of the section written since the last call.
    fn section(&mut self) -> u32 {
        std::mem::take(&mut self.crc).finalize()
    }
}

/// Writes `contents` to `file` (a new temporary file; the caller renames it into place).
pub fn write(file: File, contents: Contents<'_>) -> io::Result<Written> {
    let mut out = Summed {
        out: BufWriter::with_capacity(1 << 20, file),
        crc: crc32fast::Hasher::new(),
    };
    let mut crcs = [0u32; SECTIONS];
    out.write_all(&[0u8; HEADER_LEN])?;
    out.section();
    let mut pos = HEADER_LEN as u64;
    let off_paths = pos;
    for record in contents.files {
        out.write_all(&record.path)?;
        pos += record.path.len() as u64;
    }
    crcs[0] = out.section();
    let off_files = pos;
    let mut path_off = 0u64;
    for record in contents.files {
        out.write_all(&path_off.to_le_bytes())?;
        out.write_all(&(record.path.len() as u32).to_le_bytes())?;
        out.write_all(&record.flags.to_le_bytes())?;
        out.write_all(&record.size.to_le_bytes())?;
        out.write_all(&record.mtime_ns.to_le_bytes())?;
        out.write_all(&record.ctime_ns.to_le_bytes())?;
        out.write_all(&record.ino.to_le_bytes())?;
        out.write_all(&record.first_unit.to_le_bytes())?;
        out.write_all(&record.units.to_le_bytes())?;
        path_off += record.path.len() as u64;
        pos += FILE_LEN as u64;
    }
    crcs[1] = out.section();
    let off_units = pos;
    for unit in contents.units {
        out.write_all(&unit.file.to_le_bytes())?;
        out.write_all(&unit.first_line.to_le_bytes())?;
        out.write_all(&unit.offset.to_le_bytes())?;
        pos += UNIT_LEN as u64;
    }
    crcs[2] = out.section();
    let off_postings = pos;
    let n_units = u32::try_from(contents.units.len())
        .map_err(|_| io::Error::other("more than 2^32 units"))?;
    let mut lookup = Vec::new();
    let mut posting_off = 0u64;
    encode_in_order(
        contents.postings,
        n_units,
        contents.threads,
        |batch: Encoded| {
            out.write_all(&batch.bytes)?;
            for list in &batch.lists {
                let tagged = list.trigram | (list.encoding as u32) << ENCODING_SHIFT;
                lookup.extend_from_slice(&tagged.to_le_bytes());
                lookup.extend_from_slice(&list.len.to_le_bytes());
                lookup.extend_from_slice(&posting_off.to_le_bytes());
                lookup.extend_from_slice(&list.crc.to_le_bytes());
                lookup.extend_from_slice(&list.count.to_le_bytes());
                posting_off += u64::from(list.len);
            }
            Ok(())
        },
    )?;
    out.section();
    pos += posting_off;
    let off_lookup = pos;
    out.write_all(&lookup)?;
    crcs[3] = out.section();
    pos += lookup.len() as u64;
    out.write_all(TRAILER)?;
    pos += TRAILER.len() as u64;
    let total = pos;
    let trigrams = lookup.len() / LOOKUP_LEN;
    let mut header = Vec::with_capacity(HEADER_LEN);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&0u32.to_le_bytes());
    for value in [
        contents.options_hash,
        contents.build_start_ns as u64,
        contents.files.len() as u64,
        contents.units.len() as u64,
        trigrams as u64,
        off_paths,
        off_files,
        off_units,
        off_postings,
        off_lookup,
        total,
    ] {
        header.extend_from_slice(&value.to_le_bytes());
    }
    for crc in crcs {
        header.extend_from_slice(&crc.to_le_bytes());
    }
    header.resize(HEADER_LEN, 0);
    let crc = crc32fast::hash(&header);
    header[HEADER_CRC..HEADER_CRC + 4].copy_from_slice(&crc.to_le_bytes());
    let mut file = out.out.into_inner().map_err(|e| e.into_error())?;
    file.seek(SeekFrom::Start(0))?;
    file.write_all(&header)?;
    file.sync_all()?;
    Ok(Written {
        bytes: total,
        trigrams,
    })
}

/// Units `0..n_units`: what a complement list is taken against.
/// One posting list encoded, as its lookup entry describes it.
struct EncodedList {
    trigram: u32,
    encoding: Encoding,
    len: u32,
    crc: u32,
    count: u32,
}

/// A batch of posting lists encoded: their bytes back to back, and each list's entry.
#[derive(Default)]
struct Encoded {
    bytes: Vec<u8>,
    lists: Vec<EncodedList>,
}

/// Unit ids handed to an encoding thread at a time: enough that handing a batch over costs
/// nothing beside encoding it, few enough that the batches in flight hold little memory.
const BATCH_IDS: u64 = 1 << 20;

fn encode_batch(batch: Vec<(u32, PostingList)>, n_units: u32) -> io::Result<Encoded> {
    let mut out = Encoded {
        bytes: Vec::new(),
        lists: Vec::with_capacity(batch.len()),
    };
    for (trigram, list) in batch {
        let start = out.bytes.len();
        let encoding = encode_list(&list, n_units, &mut out.bytes)?;
        let count = list.len();
        drop(list);
        let list = &out.bytes[start..];
        out.lists.push(EncodedList {
            trigram,
            encoding,
            len: u32::try_from(list.len())
                .map_err(|_| io::Error::other("a posting list over 4 GiB"))?,
            crc: crc32fast::hash(list),
            count,
        });
    }
    Ok(out)
}

/// Encodes `postings` in batches on `threads` threads and hands the batches to `write` in
/// trigram order. Choosing and making each list's encoding (walking its bitmap, packing its
/// gaps, its checksum) is most of writing an index, and it came after every file was read,
/// on one thread while the others had nothing left to do. This thread merges the lists in
/// (from memory or spilled runs), the encoders take batches in turn, and a writer thread
/// puts them in order: the bytes are those of encoding one list after another.
fn encode_in_order(
    postings: Postings<'_>,
    n_units: u32,
    threads: usize,
    mut write: impl FnMut(Encoded) -> io::Result<()> + Send,
) -> io::Result<()> {
    let mut previous: Option<u32> = None;
    let mut in_order = |trigram: u32| {
        if trigram > TRIGRAM_MASK || previous.is_some_and(|p| p >= trigram) {
            return Err(io::Error::other("posting lists out of trigram order"));
        }
        previous = Some(trigram);
        Ok(())
    };
    // Batches of lists as they come, cut at `BATCH_IDS` unit ids.
    let mut batches = {
        let mut postings = postings.peekable();
        std::iter::from_fn(move || {
            postings.peek()?;
            let (mut batch, mut ids) = (Vec::new(), 0u64);
            while ids < BATCH_IDS {
                match postings.next() {
                    None => break,
                    Some(Err(e)) => return Some(Err(e)),
                    Some(Ok((trigram, list))) => {
                        if let Err(e) = in_order(trigram) {
                            return Some(Err(e));
                        }
                        ids += u64::from(list.len());
                        batch.push((trigram, list));
                    }
                }
            }
            Some(Ok(batch))
        })
    };
    if threads <= 1 {
        for batch in batches {
            write(encode_batch(batch?, n_units)?)?;
        }
        return Ok(());
    }
    let (work, to_encode) = crossbeam_channel::bounded::<(usize, Vec<(u32, PostingList)>)>(threads);
    let (done, encoded) = crossbeam_channel::bounded::<(usize, io::Result<Encoded>)>(threads);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (to_encode, done) = (to_encode.clone(), done.clone());
            scope.spawn(move || {
                for (seq, batch) in to_encode {
                    if done.send((seq, encode_batch(batch, n_units))).is_err() {
                        break;
                    }
                }
            });
        }
        drop((to_encode, done));
        // The writer holds batches that came early until their turn; a failure ends it, and
        // with it the encoders' sends and then this thread's.
        let writer = scope.spawn(move || -> io::Result<()> {
            let mut waiting = std::collections::BTreeMap::new();
            let mut turn = 0;
            for (seq, batch) in encoded {
                waiting.insert(seq, batch);
                while let Some(batch) = waiting.remove(&turn) {
                    write(batch?)?;
                    turn += 1;
                }
            }
            Ok(())
        });
        let mut produced = Ok(());
        for (seq, batch) in batches.by_ref().enumerate() {
            match batch {
                Ok(batch) => {
                    if work.send((seq, batch)).is_err() {
                        break;
                    }
                }
                Err(e) => {
                    produced = Err(e);
                    break;
                }
            }
        }
        drop(work);
        let written = writer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the index writer panicked")));
        produced.and(written)
    })
}

fn every_unit(n_units: u32) -> RoaringBitmap {
    let mut all = RoaringBitmap::new();
    all.insert_range(0..n_units);
    all
}

// The varint coding is written here rather than taken from a crate: the reader must refuse
// every form a writer could not have produced (a redundant last byte, bits past 32, a sixth
// byte), which general-purpose varint crates accept or leave to their callers, and the
// whole of it is the two short functions below.

/// Appends `value` as an LEB128 varint: 7 bits a byte, low bits first, the top bit set on
/// every byte but the last.
pub(super) fn put_varint(out: &mut Vec<u8>, mut value: u32) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// The bytes `value` takes as a varint.
fn varint_len(value: u32) -> usize {
    match value {
        0..0x80 => 1,
        0x80..0x4000 => 2,
        0x4000..0x20_0000 => 3,
        0x20_0000..0x1000_0000 => 4,
        _ => 5,
    }
}

/// The varint at the start of `bytes` and the bytes it took; `None` when it is cut short,
/// has more than five bytes, bits past 32 or a redundant (zero) last byte.
pub(super) fn read_varint(bytes: &[u8]) -> Option<(u32, usize)> {
    let mut value = 0u32;
    for (i, &byte) in bytes.iter().enumerate().take(5) {
        // The fifth byte holds the top 4 bits and ends the varint.
        if i == 4 && byte > 0x0F {
            return None;
        }
        value |= u32::from(byte & 0x7F) << (7 * i);
        if byte & 0x80 == 0 {
            return (byte != 0 || i == 0).then_some((value, i + 1));
        }
    }
    None
}

/// Ids a bit-packed block holds.
const BLOCK: usize = BitPacker1x::BLOCK_LEN;

/// The bytes `gaps` take as varints.
fn varints_len(gaps: &[u32]) -> usize {
    gaps.iter().copied().map(varint_len).sum()
}

/// Appends `gaps` as varints.
fn put_varints(out: &mut Vec<u8>, gaps: &[u32]) {
    gaps.iter().for_each(|&gap| put_varint(out, gap));
}

/// The bits the largest of `block`'s gaps takes.
fn block_width(block: &[u32]) -> u8 {
    let all = block.iter().fold(0, |all, &gap| all | gap);
    (u32::BITS - all.leading_zeros()) as u8
}

/// The bytes `gaps` take bit-packed: per whole block a width byte and `4 × width` bytes,
/// then the rest as varints.
fn packed_len(gaps: &[u32]) -> usize {
    let blocks = gaps.chunks_exact(BLOCK);
    let rest = varints_len(blocks.remainder());
    blocks
        .map(|block| 1 + usize::from(block_width(block)) * BLOCK / 8)
        .sum::<usize>()
        + rest
}

/// Appends `gaps` bit-packed (see `packed_len`).
fn put_packed(out: &mut Vec<u8>, gaps: &[u32]) {
    let packer = BitPacker1x::new();
    let blocks = gaps.chunks_exact(BLOCK);
    let rest = blocks.remainder();
    for block in blocks {
        let width = block_width(block);
        out.push(width);
        let start = out.len();
        out.resize(start + usize::from(width) * BLOCK / 8, 0);
        packer.compress(block, &mut out[start..], width);
    }
    put_varints(out, rest);
}

/// Appends `list` (unit ids below `n_units`) to `out` in the smallest encoding.
fn encode_list(list: &PostingList, n_units: u32, out: &mut Vec<u8>) -> io::Result<Encoding> {
    if list.last().is_some_and(|unit| unit >= n_units) {
        return Err(io::Error::other(
            "a posting list names a unit that does not exist",
        ));
    }
    let gaps = list.gaps()?;
    // Only a list of more than half of all units can be shorter as its complement.
    let dense = u64::from(list.len()) > u64::from(n_units) / 2;
    let complement = if dense {
        complement_gaps(&gaps, n_units)
    } else {
        Vec::new()
    };
    let mut choices = vec![
        (list.varints().len(), Encoding::Ids),
        (packed_len(&gaps), Encoding::Packed),
        (roaring_size(&gaps), Encoding::Roaring),
    ];
    if dense {
        choices.push((varints_len(&complement), Encoding::Complement));
        choices.push((packed_len(&complement), Encoding::PackedComplement));
    }
    // The first of the smallest: a list of fewer than 32 ids is the same bytes either way.
    let (_, encoding) = choices
        .into_iter()
        .min_by_key(|&(len, _)| len)
        .unwrap_or((0, Encoding::Ids));
    match encoding {
        Encoding::Ids => out.extend_from_slice(list.varints()),
        Encoding::Packed => put_packed(out, &gaps),
        Encoding::Complement => put_varints(out, &complement),
        Encoding::PackedComplement => put_packed(out, &complement),
        Encoding::Roaring => {
            let bitmap = RoaringBitmap::from_sorted_iter(ids_of(&gaps))
                .map_err(|_| io::Error::other("unit ids out of order"))?;
            bitmap.serialize_into(out)?
        }
    }
    Ok(encoding)
}

/// The ids whose gaps are `gaps`.
fn ids_of(gaps: &[u32]) -> impl Iterator<Item = u32> + '_ {
    let mut next = 0u32;
    gaps.iter().map(move |&gap| {
        let id = next + gap;
        next = id.wrapping_add(1);
        id
    })
}

/// The gaps of the units below `n_units` that the ids of `gaps` leave out.
fn complement_gaps(gaps: &[u32], n_units: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity((n_units as usize).saturating_sub(gaps.len()));
    // The next unit an id may be, and the next unit the complement's gap counts from.
    let (mut next, mut from) = (0u32, 0u32);
    let mut absent = |start: u32, end: u32, out: &mut Vec<u32>| {
        if start < end {
            out.push(start - from);
            out.extend(std::iter::repeat_n(0, (end - start - 1) as usize));
            from = end;
        }
    };
    for id in ids_of(gaps) {
        absent(next, id, &mut out);
        next = id + 1;
    }
    absent(next, n_units, &mut out);
    out
}

/// The bytes the roaring bitmap of the ids of `gaps` takes serialized, as the `roaring`
/// crate makes it: a header, and per 2^16 ids a container of two bytes an id, or a bitmap of
/// 8 KiB past 4,096 ids (`RoaringBitmap::serialized_size`).
fn roaring_size(gaps: &[u32]) -> usize {
    let container = |ids: usize| 8 + (2 * ids).min(8 * 1024);
    let (mut size, mut key, mut ids) = (8, None, 0);
    for id in ids_of(gaps) {
        if key != Some(id >> 16) {
            if key.is_some() {
                size += container(ids);
            }
            (key, ids) = (Some(id >> 16), 0);
        }
        ids += 1;
    }
    if key.is_some() {
        size += container(ids);
    }
    size
}

const DAMAGED_LIST: &str = "has a damaged posting list";
const OUT_OF_RANGE: &str = "has a unit id out of range in a posting list";
const WRONG_COUNT: &str = "has a posting list whose count is not its lookup entry's";

/// The `count` ascending unit ids, each below `n_units`, that `bytes` holds as gaps:
/// bit-packed blocks (`packed`) then varints, or varints only.
fn decode_ids(
    bytes: &[u8],
    count: u64,
    n_units: u64,
    packed: bool,
) -> Result<Vec<u32>, &'static str> {
    if count > n_units {
        return Err(WRONG_COUNT);
    }
    // A varint takes at least a byte and a block at least one for 32 ids: neither a forged
    // count nor a list longer than its count (refused after the loop) can make this
    // allocate much more than the list's length.
    let mut ids = Vec::with_capacity((count as usize).min(bytes.len().saturating_mul(BLOCK)));
    let (mut at, mut next) = (0usize, 0u64);
    if packed {
        let packer = BitPacker1x::new();
        let mut block = [0u32; BLOCK];
        for _ in 0..count as usize / BLOCK {
            let &width = bytes.get(at).ok_or(DAMAGED_LIST)?;
            if width > 32 {
                return Err(DAMAGED_LIST);
            }
            let len = usize::from(width) * BLOCK / 8;
            let packed = bytes.get(at + 1..at + 1 + len).ok_or(DAMAGED_LIST)?;
            packer.decompress(packed, &mut block, width);
            if block_width(&block) != width {
                return Err(DAMAGED_LIST);
            }
            // The ids ascend: only the block's last needs the range check (in u64, where
            // 32 gaps past any u32 cannot wrap; an id cut to u32 is then refused).
            for gap in &mut block {
                let id = next + u64::from(*gap);
                *gap = id as u32;
                next = id + 1;
            }
            if next > n_units {
                return Err(OUT_OF_RANGE);
            }
            ids.extend_from_slice(&block);
            at += 1 + len;
        }
    }
    while at < bytes.len() {
        let gap = match bytes[at] {
            byte @ 0..0x80 => {
                at += 1;
                u32::from(byte)
            }
            _ => {
                let (gap, len) = read_varint(&bytes[at..]).ok_or(DAMAGED_LIST)?;
                at += len;
                gap
            }
        };
        let id = next + u64::from(gap);
        if id >= n_units {
            return Err(OUT_OF_RANGE);
        }
        ids.push(id as u32);
        next = id + 1;
    }
    if ids.len() as u64 != count {
        return Err(WRONG_COUNT);
    }
    Ok(ids)
}

/// Whether `bytes` starts as a roaring bitmap without run containers (what `serialize_into`
/// writes for a list never run-optimized, as here) whose container keys ascend. The
/// crate's deserializer takes keys in any order, and its `max()` is then the last
/// container's: a list with a container moved past the last unit would pass the range check.
fn roaring_keys_ascend(bytes: &[u8]) -> bool {
    const NO_RUNS: u32 = 12346;
    if bytes.len() < 8 || u32_at(bytes, 0) != NO_RUNS {
        return false;
    }
    let containers = u32_at(bytes, 4) as usize;
    let Some(keys) = containers
        .checked_mul(4)
        .and_then(|len| bytes.get(8..8 + len))
    else {
        return false;
    };
    keys.chunks_exact(4)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .is_sorted_by(|a, b| a < b)
}

/// The bitmap of `ids`, strictly ascending (as `decode_ids` returns them). Built as the
/// roaring crate's portable serialization and read back, which measured a fifth faster than
/// inserting the ids one by one (`from_sorted_iter`) on the Linux tree's lists.
fn bitmap_of(ids: &[u32]) -> Result<RoaringBitmap, &'static str> {
    const NO_RUNS: u32 = 12346;
    // Each container holds the ids sharing their top 16 bits.
    let mut containers: Vec<&[u32]> = Vec::new();
    let mut rest = ids;
    while let Some(&first) = rest.first() {
        let key = first >> 16;
        let len = rest.partition_point(|&id| id >> 16 == key);
        containers.push(&rest[..len]);
        rest = &rest[len..];
    }
    let array_limit = 4096;
    let body: usize = containers
        .iter()
        .map(|c| {
            if c.len() <= array_limit {
                2 * c.len()
            } else {
                8192
            }
        })
        .sum();
    let header = 8 + 8 * containers.len();
    let mut out = Vec::with_capacity(header + body);
    out.extend_from_slice(&NO_RUNS.to_le_bytes());
    out.extend_from_slice(&(containers.len() as u32).to_le_bytes());
    for c in &containers {
        out.extend_from_slice(&((c[0] >> 16) as u16).to_le_bytes());
        out.extend_from_slice(&((c.len() - 1) as u16).to_le_bytes());
    }
    let mut offset = header;
    for c in &containers {
        out.extend_from_slice(&(offset as u32).to_le_bytes());
        offset += if c.len() <= array_limit {
            2 * c.len()
        } else {
            8192
        };
    }
    for c in &containers {
        if c.len() <= array_limit {
            let start = out.len();
            out.resize(start + 2 * c.len(), 0);
            for (slot, &id) in out[start..].chunks_exact_mut(2).zip(c.iter()) {
                slot.copy_from_slice(&(id as u16).to_le_bytes());
            }
        } else {
            let mut words = [0u64; 1024];
            for &id in *c {
                let low = id & 0xFFFF;
                words[(low >> 6) as usize] |= 1 << (low & 63);
            }
            let start = out.len();
            out.resize(start + 8192, 0);
            for (slot, word) in out[start..].chunks_exact_mut(8).zip(words) {
                slot.copy_from_slice(&word.to_le_bytes());
            }
        }
    }
    // Valid by construction (keys and ids ascending, cardinalities counted): the checks of
    // `deserialize_from` would only cost time.
    RoaringBitmap::deserialize_unchecked_from(&out[..]).map_err(|_| DAMAGED_LIST)
}

/// The bitmap of `ids`, strictly ascending (`bitmap_of`; collected one by one should they
/// not be, which `decode_ids` and intersections of its lists never give).
pub(crate) fn bitmap_of_ascending(ids: &[u32]) -> RoaringBitmap {
    let ascending = ids.is_sorted_by(|a, b| a < b);
    match ascending.then(|| bitmap_of(ids)) {
        Some(Ok(bitmap)) => bitmap,
        _ => ids.iter().copied().collect(),
    }
}

/// The list `bytes` holds in `encoding`, checked against its lookup entry's `count` and the
/// index's `n_units`: an error says what is wrong with it.
fn decode_list(
    encoding: Encoding,
    bytes: &[u8],
    count: u32,
    n_units: usize,
) -> Result<RoaringBitmap, &'static str> {
    let (count, n_units) = (u64::from(count), n_units as u64);
    let list = match encoding {
        Encoding::Roaring => {
            if !roaring_keys_ascend(bytes) {
                return Err(DAMAGED_LIST);
            }
            let list = RoaringBitmap::deserialize_from(bytes).map_err(|_| DAMAGED_LIST)?;
            if list.max().is_some_and(|unit| u64::from(unit) >= n_units) {
                return Err(OUT_OF_RANGE);
            }
            list
        }
        Encoding::Ids | Encoding::Packed => bitmap_of(&decode_ids(
            bytes,
            count,
            n_units,
            encoding == Encoding::Packed,
        )?)?,
        Encoding::Complement | Encoding::PackedComplement => {
            let absent = decode_ids(
                bytes,
                n_units.checked_sub(count).ok_or(WRONG_COUNT)?,
                n_units,
                encoding == Encoding::PackedComplement,
            )?;
            let absent = bitmap_of(&absent)?;
            let n_units = u32::try_from(n_units).map_err(|_| OUT_OF_RANGE)?;
            every_unit(n_units) - absent
        }
    };
    if list.len() != count {
        return Err(WRONG_COUNT);
    }
    Ok(list)
}

/// An index file: its tables read and validated, its posting lists read on demand.
pub struct IndexFile {
    /// The file itself, for the posting lists (`pread`: never a mapping, see the module).
    file: File,
    /// The file's length when it was opened and validated.
    len: u64,
    /// The header, paths, file table and unit table: the file's first `off_postings` bytes.
    meta: Vec<u8>,
    /// The lookup table.
    lookup: Vec<u8>,
    /// Why the index turned out bad after it was opened (a posting list cut short, failing
    /// its checksum, not decoding or naming a unit that does not exist): its owner discards it.
    damage: std::sync::OnceLock<String>,
    pub options_hash: u64,
    pub build_start_ns: i64,
    n_files: usize,
    n_units: usize,
    n_trigrams: usize,
    off_paths: usize,
    off_files: usize,
    off_units: usize,
    off_postings: u64,
    /// Files without postings (binary, UTF-16, oversized, unreadable), found once on open.
    unindexed: Vec<u32>,
    /// The bytes of all files, summed once on open.
    total_bytes: u64,
}

fn corrupt(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("index file {what}"))
}

/// The header's magic, version and checksum, and the total length it records against `len`.
fn check_header(header: &[u8], len: u64) -> io::Result<()> {
    if &header[..8] != MAGIC {
        return Err(corrupt("is not a codesift index"));
    }
    if u32_at(header, 8) != VERSION {
        return Err(corrupt("has another format version"));
    }
    let mut zeroed = header[..HEADER_LEN].to_vec();
    zeroed[HEADER_CRC..HEADER_CRC + 4].fill(0);
    if crc32fast::hash(&zeroed) != u32_at(header, HEADER_CRC) {
        return Err(corrupt("has a damaged header (checksum)"));
    }
    if u64_at(header, 16 + 8 * 10) != len {
        return Err(corrupt("is truncated"));
    }
    Ok(())
}

/// The most bytes an index's tables may take in memory: half of this machine's memory.
fn memory_limit() -> u64 {
    let info = rustix::system::sysinfo();
    let memory = (info.totalram as u64).saturating_mul(u64::from(info.mem_unit));
    if memory == 0 { u64::MAX } else { memory / 2 }
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}

/// `len` bytes of `file` at `at`, or an error naming the file as changed when it has fewer.
fn read_at(file: &File, at: u64, len: usize) -> io::Result<Vec<u8>> {
    let mut bytes = vec![0u8; len];
    file.read_exact_at(&mut bytes, at).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            corrupt("changed while it was read")
        } else {
            e
        }
    })?;
    Ok(bytes)
}

impl IndexFile {
    /// Opens the index at `path` (never through a symlink, never waiting on a FIFO); the
    /// caller checked who owns it, or it is a test's.
    pub fn open(path: &Path) -> io::Result<IndexFile> {
        let file = crate::fs::dir::open_file_nofollow(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(corrupt("is not a regular file"));
        }
        IndexFile::from_file(file, meta.len())
    }

    /// Reads the tables of `file` (`len` bytes long when it was checked) and validates them:
    /// checksums, then every offset and id. The posting lists are read when asked for.
    pub fn from_file(file: File, len: u64) -> io::Result<IndexFile> {
        if len < (HEADER_LEN + TRAILER.len()) as u64 {
            return Err(corrupt("is not a codesift index"));
        }
        // The header is checked before anything else is read: the tables cost their length
        // in memory, and a planted sparse file of any length is free to make.
        let mut header = [0u8; HEADER_LEN];
        file.read_exact_at(&mut header, 0)
            .map_err(|_| corrupt("is not a codesift index"))?;
        check_header(&header, len)?;
        let field = |i: usize| u64_at(&header, 16 + 8 * i);
        let as_usize = |v: u64| usize::try_from(v).map_err(|_| corrupt("is too large"));
        let (n_files, n_units, n_trigrams) = (
            as_usize(field(2))?,
            as_usize(field(3))?,
            as_usize(field(4))?,
        );
        let (off_paths, off_files, off_units) = (
            as_usize(field(5))?,
            as_usize(field(6))?,
            as_usize(field(7))?,
        );
        // Unit ids are u32s throughout (posting lists, file records).
        if u32::try_from(n_units).is_err() {
            return Err(corrupt("has more units than it can name"));
        }
        let (off_postings, off_lookup) = (field(8), field(9));
        let end = |start: usize, count: usize, size: usize| {
            count
                .checked_mul(size)
                .and_then(|n| n.checked_add(start))
                .map(|n| n as u64)
        };
        let lookup_len = n_trigrams.checked_mul(LOOKUP_LEN);
        if !(off_paths == HEADER_LEN
            && off_paths <= off_files
            && end(off_files, n_files, FILE_LEN) == Some(off_units as u64)
            && end(off_units, n_units, UNIT_LEN) == Some(off_postings)
            && off_postings <= off_lookup
            && lookup_len.and_then(|n| off_lookup.checked_add(n as u64))
                == Some(len - TRAILER.len() as u64))
        {
            return Err(corrupt("has inconsistent sections"));
        }
        let lookup_len = lookup_len.unwrap_or(usize::MAX);
        // A header can be forged too: whatever it says, the tables may not take more than
        // half of this machine's memory (such an index could not be used anyway).
        if off_postings.saturating_add(lookup_len as u64) > memory_limit() {
            return Err(corrupt("is larger than half of this machine's memory"));
        }
        let meta = read_at(&file, 0, as_usize(off_postings)?)?;
        let lookup = read_at(&file, off_lookup, lookup_len)?;
        let trailer = read_at(&file, len - TRAILER.len() as u64, TRAILER.len())?;
        // Again on what was read: the file may have changed since the header was checked.
        if meta[..HEADER_LEN] != header || trailer != TRAILER {
            return Err(corrupt("changed while it was read"));
        }
        let mut index = IndexFile {
            file,
            len,
            meta,
            lookup,
            damage: std::sync::OnceLock::new(),
            options_hash: field(0),
            build_start_ns: field(1) as i64,
            n_files,
            n_units,
            n_trigrams,
            off_paths,
            off_files,
            off_units,
            off_postings,
            unindexed: Vec::new(),
            total_bytes: 0,
        };
        index.validate(off_lookup - off_postings)?;
        index.unindexed = (0..index.n_files)
            .filter(|&i| index.file(i).flags & INDEXED == 0)
            .map(|i| i as u32)
            .collect();
        index.total_bytes = (0..index.n_files).map(|i| index.file(i).size).sum();
        Ok(index)
    }

    fn validate(&self, postings_len: u64) -> io::Result<()> {
        let sections: [(&str, &[u8]); SECTIONS] = [
            ("paths", &self.meta[self.off_paths..self.off_files]),
            ("file table", &self.meta[self.off_files..self.off_units]),
            ("unit table", &self.meta[self.off_units..]),
            ("lookup table", &self.lookup),
        ];
        for (i, (name, bytes)) in sections.into_iter().enumerate() {
            if crc32fast::hash(bytes) != u32_at(&self.meta, SECTION_CRCS + 4 * i) {
                return Err(corrupt(&format!("has damaged {name} (checksum)")));
            }
        }
        let paths_len = self.off_files - self.off_paths;
        let mut previous: Option<&[u8]> = None;
        let mut next_unit = 0u64;
        for i in 0..self.n_files {
            let at = self.off_files + i * FILE_LEN;
            let (off, plen) = (u64_at(&self.meta, at), u32_at(&self.meta, at + 8) as u64);
            if off
                .checked_add(plen)
                .is_none_or(|end| end > paths_len as u64)
            {
                return Err(corrupt("has a path out of bounds"));
            }
            let path = self.path(i);
            if previous.is_some_and(|p| p >= path) {
                return Err(corrupt("has paths out of order"));
            }
            previous = Some(path);
            let record = self.file(i);
            if record.first_unit as u64 != next_unit
                || next_unit + u64::from(record.units) > self.n_units as u64
            {
                return Err(corrupt("has units out of order"));
            }
            // A unit search reads the byte ranges and trusts the line numbers given here.
            let mut last: Option<UnitRecord> = None;
            for u in record.first_unit..record.first_unit + record.units {
                let unit = self.unit(u);
                let in_order = match last {
                    None => unit.offset == 0 && unit.first_line == 1,
                    Some(l) => unit.offset > l.offset && unit.first_line > l.first_line,
                };
                if unit.file as usize != i || !in_order || unit.offset >= record.size {
                    return Err(corrupt("has a bad unit table"));
                }
                last = Some(unit);
            }
            next_unit += record.units as u64;
        }
        if next_unit != self.n_units as u64 {
            return Err(corrupt("has a unit count that does not add up"));
        }
        let mut previous_trigram = None;
        for i in 0..self.n_trigrams {
            // The cardinality is only checked when the list is read (it must match it).
            let entry = self.lookup_entry(i);
            if previous_trigram.is_some_and(|p| p >= entry.trigram)
                || entry.encoding.is_none()
                || entry
                    .off
                    .checked_add(u64::from(entry.size))
                    .is_none_or(|end| end > postings_len)
            {
                return Err(corrupt("has a bad lookup table"));
            }
            previous_trigram = Some(entry.trigram);
        }
        Ok(())
    }

    /// The size of all files the index knows, in bytes.
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    /// The files without postings, which every search must consider.
    pub fn unindexed(&self) -> &[u32] {
        &self.unindexed
    }

    pub fn file_count(&self) -> usize {
        self.n_files
    }

    pub fn unit_count(&self) -> usize {
        self.n_units
    }

    pub fn trigram_count(&self) -> usize {
        self.n_trigrams
    }

    /// The index file's length on disk.
    pub fn byte_len(&self) -> u64 {
        self.len
    }

    /// The bytes this index holds in memory (its tables; the posting lists stay on disk).
    pub fn memory_bytes(&self) -> usize {
        self.meta.len() + self.lookup.len()
    }

    /// The path of file `i` (workspace-relative bytes).
    pub fn path(&self, i: usize) -> &[u8] {
        let at = self.off_files + i * FILE_LEN;
        let off = self.off_paths + u64_at(&self.meta, at) as usize;
        let len = u32_at(&self.meta, at + 8) as usize;
        &self.meta[off..off + len]
    }

    pub fn file(&self, i: usize) -> FileRecord {
        let at = self.off_files + i * FILE_LEN;
        let m = &self.meta;
        FileRecord {
            path: Vec::new(),
            flags: u32_at(m, at + 12),
            size: u64_at(m, at + 16),
            mtime_ns: u64_at(m, at + 24) as i64,
            ctime_ns: u64_at(m, at + 32) as i64,
            ino: u64_at(m, at + 40),
            first_unit: u32_at(m, at + 48),
            units: u32_at(m, at + 52),
        }
    }

    /// The file a unit belongs to.
    pub fn unit_file(&self, unit: u32) -> u32 {
        u32_at(&self.meta, self.off_units + unit as usize * UNIT_LEN)
    }

    pub fn unit(&self, unit: u32) -> UnitRecord {
        let at = self.off_units + unit as usize * UNIT_LEN;
        UnitRecord {
            file: u32_at(&self.meta, at),
            first_line: u32_at(&self.meta, at + 4),
            offset: u64_at(&self.meta, at + 8),
        }
    }

    /// The bytes of unit `unit` of file `record` (which holds it): `(offset, length, first line)`.
    pub fn unit_span(&self, record: &FileRecord, unit: u32) -> (u64, u64, u64) {
        let this = self.unit(unit);
        let end = if unit + 1 < record.first_unit + record.units {
            self.unit(unit + 1).offset
        } else {
            record.size
        };
        (this.offset, end - this.offset, u64::from(this.first_line))
    }

    /// The first file whose path is not below `path` in byte order.
    pub fn lower_bound(&self, path: &[u8]) -> usize {
        let (mut lo, mut hi) = (0, self.n_files);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.path(mid) < path {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The index of the file whose path is `path`, by binary search over the sorted paths.
    pub fn find(&self, path: &[u8]) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.n_files);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.path(mid).cmp(path) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// Lookup entry `i`.
    fn lookup_entry(&self, i: usize) -> Entry {
        let at = i * LOOKUP_LEN;
        let l = &self.lookup;
        let tagged = u32_at(l, at);
        Entry {
            trigram: tagged & TRIGRAM_MASK,
            encoding: Encoding::from_tag(tagged >> ENCODING_SHIFT),
            size: u32_at(l, at + 4),
            off: u64_at(l, at + 8),
            crc: u32_at(l, at + 16),
            count: u32_at(l, at + 20),
        }
    }

    /// The lookup entry of `trigram`, if the index has a list for it.
    fn entry_of(&self, trigram: u32) -> Option<Entry> {
        let (mut lo, mut hi) = (0, self.n_trigrams);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let entry = self.lookup_entry(mid);
            match entry.trigram.cmp(&trigram) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(entry),
            }
        }
        None
    }

    /// Every trigram that has a list, ascending.
    pub fn trigrams(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.n_trigrams).map(|i| self.lookup_entry(i).trigram)
    }

    /// Marks the index damaged (`what` said of the index file) and returns the error.
    fn damaged(&self, what: &str) -> io::Error {
        let _ = self.damage.set(format!("index file {what}"));
        corrupt(what)
    }

    /// The units holding `trigram`, read from the file and checked against the CRC-32 the
    /// validated lookup table holds. A list cut short (the file truncated), failing its
    /// checksum (rewritten), not decoding, naming a unit the index does not have or holding
    /// another number of units than its entry says is an error and marks the index damaged,
    /// never guessed at.
    pub fn postings(&self, trigram: u32) -> io::Result<RoaringBitmap> {
        self.posting_set(trigram).map(UnitSet::into_bitmap)
    }

    /// `postings`, as the list decodes: its ids, or the bitmap a dense list is stored as
    /// (`UnitSet`: a query intersects them without a bitmap for each list).
    pub fn posting_set(&self, trigram: u32) -> io::Result<UnitSet> {
        let Some(entry) = self.entry_of(trigram) else {
            return Ok(UnitSet::Ids(Vec::new()));
        };
        let mut bytes = vec![0u8; entry.size as usize];
        if let Err(e) = self
            .file
            .read_exact_at(&mut bytes, self.off_postings + entry.off)
        {
            return Err(if e.kind() == io::ErrorKind::UnexpectedEof {
                self.damaged("was truncated after it was opened")
            } else {
                e
            });
        }
        if crc32fast::hash(&bytes) != entry.crc {
            return Err(self.damaged("has a damaged posting list (checksum)"));
        }
        // Validated on open: every entry's encoding is known.
        let encoding = entry.encoding.unwrap_or(Encoding::Roaring);
        let decoded = match encoding {
            // `decode_ids` checks the count and the range; its ids strictly ascend.
            Encoding::Ids | Encoding::Packed => decode_ids(
                &bytes,
                u64::from(entry.count),
                self.n_units as u64,
                encoding == Encoding::Packed,
            )
            .map(UnitSet::Ids),
            _ => decode_list(encoding, &bytes, entry.count, self.n_units).map(UnitSet::Bitmap),
        };
        decoded.map_err(|what| self.damaged(what))
    }

    /// Why the index was found bad after it was opened, if it was.
    pub fn damage(&self) -> Option<&str> {
        self.damage.get().map(String::as_str)
    }

    /// How many units hold `trigram` (0 when none), from its lookup entry without reading
    /// the list: what a query plan's cost is estimated with.
    pub fn posting_count(&self, trigram: u32) -> u64 {
        self.entry_of(trigram)
            .map_or(0, |entry| u64::from(entry.count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Sample = (Vec<FileRecord>, Vec<UnitRecord>, Vec<(u32, RoaringBitmap)>);

    /// Half of all ids, scattered (a hash's top bit): a list whose gaps
    /// vary, smallest as a roaring bitmap.
    fn scattered(id: u32) -> bool {
        let x = id.wrapping_mul(0x9E37_79B1);
        let x = (x ^ x >> 15).wrapping_mul(0x85EB_CA6B);
        (x ^ x >> 13) >> 31 == 1
    }

    fn sample() -> Sample {
        let files = vec![
            FileRecord {
                path: b"a.txt".to_vec(),
                flags: INDEXED,
                size: 10,
                mtime_ns: 5,
                ctime_ns: 6,
                ino: 7,
                first_unit: 0,
                units: 2,
            },
            FileRecord {
                path: b"b/c.bin".to_vec(),
                flags: 0,
                size: 3,
                mtime_ns: 1,
                ctime_ns: 2,
                ino: 3,
                first_unit: 2,
                units: 0,
            },
        ];
        let unit = |offset, first_line| UnitRecord {
            file: 0,
            first_line,
            offset,
        };
        let units = vec![unit(0, 1), unit(5, 3)];
        let postings = vec![
            (0x616263, RoaringBitmap::from_iter([0u32, 1])),
            (0x646566, RoaringBitmap::from_iter([1u32])),
        ];
        (files, units, postings)
    }

    /// The list of `bitmap`'s ids.
    fn posting(bitmap: &RoaringBitmap) -> PostingList {
        PostingList::from_ids(bitmap.iter()).unwrap()
    }

    fn as_lists(postings: &[(u32, RoaringBitmap)]) -> Vec<(u32, PostingList)> {
        postings.iter().map(|(t, l)| (*t, posting(l))).collect()
    }

    /// The gaps of ascending `ids`: the first id, then each id less the previous one less one.
    fn gaps(ids: impl Iterator<Item = u32>) -> Vec<u32> {
        let mut next = 0u32;
        ids.map(move |id| {
            let gap = id - next;
            next = id.wrapping_add(1);
            gap
        })
        .collect()
    }

    /// How the writer encoded a list when builds gathered roaring bitmaps (every choice made
    /// on the bitmap itself): the bytes and encoding `encode_list` must still give.
    fn reference_encoding(list: &RoaringBitmap, every_unit: &RoaringBitmap) -> (Vec<u8>, Encoding) {
        let n_units = every_unit.len();
        let ids = gaps(list.iter());
        let dense = list.len() > n_units / 2;
        let complement = if dense {
            gaps((every_unit - list).iter())
        } else {
            Vec::new()
        };
        let mut choices = vec![
            (varints_len(&ids), Encoding::Ids),
            (packed_len(&ids), Encoding::Packed),
            (list.serialized_size(), Encoding::Roaring),
        ];
        if dense {
            choices.push((varints_len(&complement), Encoding::Complement));
            choices.push((packed_len(&complement), Encoding::PackedComplement));
        }
        let (_, encoding) = choices.into_iter().min_by_key(|&(len, _)| len).unwrap();
        let mut out = Vec::new();
        match encoding {
            Encoding::Ids => put_varints(&mut out, &ids),
            Encoding::Packed => put_packed(&mut out, &ids),
            Encoding::Complement => put_varints(&mut out, &complement),
            Encoding::PackedComplement => put_packed(&mut out, &complement),
            Encoding::Roaring => list.serialize_into(&mut out).unwrap(),
        }
        (out, encoding)
    }

    #[test]
    fn lists_encode_as_their_roaring_bitmaps_did() {
        // Random lists of every density over several containers, runs and holes.
        let mut seed = 5u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 33
        };
        for case in 0..400 {
            let n_units = 1 + (next() % 300_000) as u32;
            let all = every_unit(n_units);
            let keep_in = 1 + next() % 12;
            let mut list = RoaringBitmap::new();
            let mut unit = (next() % 1000) as u32;
            while unit < n_units {
                if next() % keep_in != 0 {
                    list.insert(unit);
                }
                unit += match next() % 5 {
                    0 => 1 + (next() % 70_000) as u32,
                    _ => 1,
                };
            }
            if case % 7 == 0 {
                list = &all - &list;
            }
            let mut bytes = Vec::new();
            let encoding = encode_list(&posting(&list), n_units, &mut bytes).unwrap();
            assert_eq!(
                (bytes, encoding),
                reference_encoding(&list, &all),
                "case {case}: {} of {n_units} units",
                list.len()
            );
        }
    }

    #[test]
    fn round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        let (files, units, postings) = sample();
        let mut lists = as_lists(&postings).into_iter().map(Ok);
        let written = write(
            File::create(&path).unwrap(),
            Contents {
                options_hash: 42,
                build_start_ns: 99,
                files: &files,
                units: &units,
                postings: &mut lists,
                threads: 1,
            },
        )
        .unwrap();
        assert_eq!(written.trigrams, 2);
        let index = IndexFile::open(&path).unwrap();
        assert_eq!((index.options_hash, index.build_start_ns), (42, 99));
        assert_eq!(index.file_count(), 2);
        assert_eq!(index.path(1), b"b/c.bin");
        let mut second = files[1].clone();
        second.path.clear();
        assert_eq!(index.file(1), second);
        assert_eq!(index.find(b"a.txt"), Some(0));
        assert_eq!(index.find(b"zzz"), None);
        assert_eq!(index.unit_file(1), 0);
        assert_eq!(index.unit(1), units[1]);
        assert_eq!(index.unit_span(&index.file(0), 0), (0, 5, 1));
        assert_eq!(index.unit_span(&index.file(0), 1), (5, 5, 3));
        assert_eq!(
            index.postings(0x616263).unwrap(),
            RoaringBitmap::from_iter([0u32, 1])
        );
        assert!(index.postings(0x777777).unwrap().is_empty());
        for (trigram, list) in &postings {
            assert_eq!(index.posting_count(*trigram), list.len());
        }
        assert_eq!(index.posting_count(0x777777), 0);
        assert_eq!(index.byte_len(), written.bytes);
        assert!(
            index.memory_bytes() < written.bytes as usize,
            "the posting lists stay on disk"
        );
    }

    #[test]
    fn lists_out_of_order_are_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let (files, units, _) = sample();
        let list = RoaringBitmap::from_iter([0u32]);
        for order in [[2u32, 1], [1, 1]] {
            let lists = order.map(|t| (t, list.clone()));
            let err = write_index(&dir.path().join("index"), &files, &units, &lists)
                .expect_err("refused");
            assert!(err.to_string().contains("out of trigram order"), "{err}");
        }
    }

    #[test]
    fn posting_counts_are_read_from_the_lookup_table() {
        let dir = tempfile::tempdir().unwrap();
        // Dense and sparse lists spanning several containers.
        let big = RoaringBitmap::from_iter((0..200_000u32).filter(|u| u % 3 == 0));
        let sparse = RoaringBitmap::from_iter([1u32, 70_000, 140_000]);
        let postings = vec![(0x010203, big.clone()), (0x040506, sparse.clone())];
        let (path, _) = written_with(dir.path(), many_units(200_000), &postings);
        let index = IndexFile::open(&path).unwrap();
        assert_eq!(index.posting_count(0x010203), big.len());
        assert_eq!(index.posting_count(0x040506), sparse.len());
    }

    #[test]
    fn damaged_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (path, good) = written(dir.path());
        let mut cases: Vec<Vec<u8>> = vec![
            good[..good.len() - 3].to_vec(),
            Vec::new(),
            b"garbage".to_vec(),
        ];
        let mut version = good.clone();
        version[8] = 99;
        cases.push(version);
        let mut sections = good.clone();
        sections[16 + 8 * 6] ^= 1;
        cases.push(sections);
        // The second unit's first line, then its offset, out of order.
        let off_units = u64::from_le_bytes(good[16 + 8 * 7..16 + 8 * 8].try_into().unwrap());
        let second_unit = off_units as usize + UNIT_LEN;
        let mut line = good.clone();
        line[second_unit + 4..second_unit + 8].copy_from_slice(&1u32.to_le_bytes());
        cases.push(line);
        let mut offset = good.clone();
        offset[second_unit + 8..second_unit + 16].copy_from_slice(&50u64.to_le_bytes());
        cases.push(offset);
        for (i, bytes) in cases.into_iter().enumerate() {
            std::fs::write(&path, bytes).unwrap();
            assert!(IndexFile::open(&path).is_err(), "case {i}");
        }
    }

    /// The sample index written to `dir/index`, and its bytes.
    fn written(dir: &Path) -> (std::path::PathBuf, Vec<u8>) {
        let (files, units, postings) = sample();
        written_with(dir, (files, units), &postings)
    }

    /// One file of `n` units of ten bytes each.
    fn many_units(n: u32) -> (Vec<FileRecord>, Vec<UnitRecord>) {
        let file = FileRecord {
            path: b"big.txt".to_vec(),
            flags: INDEXED,
            size: u64::from(n) * 10,
            mtime_ns: 1,
            ctime_ns: 1,
            ino: 1,
            first_unit: 0,
            units: n,
        };
        let units = (0..n)
            .map(|u| UnitRecord {
                file: 0,
                first_line: u + 1,
                offset: u64::from(u) * 10,
            })
            .collect();
        (vec![file], units)
    }

    /// `written` with other files, units and posting lists.
    fn written_with(
        dir: &Path,
        (files, units): (Vec<FileRecord>, Vec<UnitRecord>),
        postings: &[(u32, RoaringBitmap)],
    ) -> (std::path::PathBuf, Vec<u8>) {
        let path = dir.join("index");
        write_index(&path, &files, &units, postings).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        (path, bytes)
    }

    #[test]
    fn the_file_is_the_same_whatever_the_threads_that_encode_it() {
        // Lists of every encoding, over several batches (`BATCH_IDS`), so that the encoders
        // finish batches out of order and the writer must put them back in order.
        let n_units = 40_000u32;
        let files = vec![FileRecord {
            path: b"a".to_vec(),
            flags: INDEXED,
            size: u64::from(n_units),
            mtime_ns: 0,
            ctime_ns: 0,
            ino: 1,
            first_unit: 0,
            units: n_units,
        }];
        let units: Vec<UnitRecord> = (0..n_units)
            .map(|u| UnitRecord {
                file: 0,
                first_line: u + 1,
                offset: u64::from(u),
            })
            .collect();
        let mut seed = 11u64;
        let postings: Vec<(u32, RoaringBitmap)> = (0..600u32)
            .map(|t| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let step = [1, 2, 3, 50, 997][(seed >> 33) as usize % 5];
                let dense_half = (seed >> 40).is_multiple_of(3);
                let list = (0..n_units)
                    .filter(|u| u % step == 0 || (dense_half && *u < n_units / 2))
                    .collect::<RoaringBitmap>();
                (t * 7 + 1, list)
            })
            .collect();
        let ids: u64 = postings.iter().map(|(_, l)| l.len()).sum();
        assert!(ids > 4 * BATCH_IDS, "{ids} ids are several batches");
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = Vec::new();
        for threads in [1, 2, 3] {
            let path = dir.path().join(format!("index{threads}"));
            let mut lists = as_lists(&postings).into_iter().map(Ok);
            let written = write_lists(&path, &files, &units, &mut lists, threads).unwrap();
            assert_eq!(written.trigrams, postings.len());
            bytes.push(std::fs::read(&path).unwrap());
        }
        assert!(bytes[1] == bytes[0], "2 threads wrote other bytes than 1");
        assert!(bytes[2] == bytes[0], "3 threads wrote other bytes than 1");
        let index = IndexFile::open(&dir.path().join("index2")).unwrap();
        for (trigram, list) in &postings {
            assert_eq!(&index.postings(*trigram).unwrap(), list, "{trigram:06x}");
        }
    }

    #[test]
    fn an_error_in_the_lists_ends_a_write_on_threads() {
        let (files, units, _) = sample();
        let mut lists = (0..5000u32)
            .map(|t| Ok((t, PostingList::from_ids([0u32, 1]).unwrap())))
            .chain(std::iter::once(Err(io::Error::other(
                "a run could not be read",
            ))))
            .chain((5000..6000u32).map(|t| Ok((t, PostingList::from_ids([0u32]).unwrap()))));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        let err = write_lists(&path, &files, &units, &mut lists, 2).unwrap_err();
        assert_eq!(err.to_string(), "a run could not be read");
    }

    /// Writes an index of `files`, `units` and `postings` at `path` (options hash and build
    /// start 1): what `write` answers, a refusal included.
    fn write_index(
        path: &Path,
        files: &[FileRecord],
        units: &[UnitRecord],
        postings: &[(u32, RoaringBitmap)],
    ) -> io::Result<Written> {
        let mut lists = as_lists(postings).into_iter().map(Ok);
        write_lists(path, files, units, &mut lists, 2)
    }

    /// Writes an index of `files`, `units` and `lists` at `path` (options hash and build
    /// start 1) encoded on `threads` threads.
    fn write_lists(
        path: &Path,
        files: &[FileRecord],
        units: &[UnitRecord],
        lists: Postings<'_>,
        threads: usize,
    ) -> io::Result<Written> {
        let contents = Contents {
            options_hash: 1,
            build_start_ns: 1,
            files,
            units,
            postings: lists,
            threads,
        };
        write(File::create(path).unwrap(), contents)
    }

    fn header_field(bytes: &[u8], i: usize) -> usize {
        u64_at(bytes, 16 + 8 * i) as usize
    }

    /// Recomputes every checksum, as a writer with a bug would leave them.
    fn reseal(bytes: &mut [u8]) {
        for (i, (start, stop)) in checked_sections(bytes).into_iter().enumerate() {
            let crc = crc32fast::hash(&bytes[start..stop]);
            bytes[SECTION_CRCS + 4 * i..SECTION_CRCS + 4 * i + 4]
                .copy_from_slice(&crc.to_le_bytes());
        }
        bytes[HEADER_CRC..HEADER_CRC + 4].fill(0);
        let crc = crc32fast::hash(&bytes[..HEADER_LEN]);
        bytes[HEADER_CRC..HEADER_CRC + 4].copy_from_slice(&crc.to_le_bytes());
    }

    /// The byte ranges of the sections the header holds checksums of, in its order.
    fn checked_sections(bytes: &[u8]) -> [(usize, usize); SECTIONS] {
        let field = |i| header_field(bytes, i);
        [
            (field(5), field(6)),
            (field(6), field(7)),
            (field(7), field(8)),
            (field(9), bytes.len() - TRAILER.len()),
        ]
    }

    #[test]
    fn a_flipped_byte_in_any_section_fails_its_checksum() {
        let dir = tempfile::tempdir().unwrap();
        let (path, good) = written(dir.path());
        let names = ["paths", "file table", "unit table", "lookup table"];
        for (name, (start, stop)) in names.iter().zip(checked_sections(&good)) {
            let mut bytes = good.clone();
            bytes[(start + stop) / 2] ^= 0x10;
            std::fs::write(&path, &bytes).unwrap();
            let err = IndexFile::open(&path)
                .err()
                .expect("a damaged section is refused");
            assert!(
                err.to_string()
                    .contains(&format!("damaged {name} (checksum)")),
                "{name}: {err}"
            );
        }
        let mut header = good.clone();
        header[16] ^= 1;
        std::fs::write(&path, &header).unwrap();
        let err = IndexFile::open(&path)
            .err()
            .expect("a damaged header is refused");
        assert!(err.to_string().contains("header"), "{err}");
    }

    #[test]
    fn offsets_past_the_end_are_refused_even_with_good_checksums() {
        let dir = tempfile::tempdir().unwrap();
        let (path, good) = written(dir.path());
        // A path offset that would wrap around when added to its length.
        let mut path_off = good.clone();
        let at = header_field(&good, 6);
        path_off[at..at + 8].copy_from_slice(&(u64::MAX - 1).to_le_bytes());
        // A posting list offset that would wrap around, and one past the end.
        let mut posting_off = good.clone();
        let lookup = header_field(&good, 9);
        posting_off[lookup + 8..lookup + 16].copy_from_slice(&(u64::MAX - 2).to_le_bytes());
        let mut posting_len = good.clone();
        posting_len[lookup + 4..lookup + 8].copy_from_slice(&u32::MAX.to_le_bytes());
        for (i, mut bytes) in [path_off, posting_off, posting_len].into_iter().enumerate() {
            reseal(&mut bytes);
            std::fs::write(&path, &bytes).unwrap();
            assert!(IndexFile::open(&path).is_err(), "case {i}");
        }
    }

    /// Lookup entry `i` of the index `bytes`: the tagged trigram, and where its list is.
    fn entry_in(bytes: &[u8], i: usize) -> (u32, usize, usize) {
        let at = header_field(bytes, 9) + i * LOOKUP_LEN;
        let start = header_field(bytes, 8) + u64_at(bytes, at + 8) as usize;
        (
            u32_at(bytes, at),
            start,
            start + u32_at(bytes, at + 4) as usize,
        )
    }

    /// Replaces list `i` of the index `bytes` by `list` of the same length, its checksum
    /// in its lookup entry as a writer with a bug would leave it, and reseals the file.
    /// Reading the list of `trigram` fails saying `problem`, and marks the index damaged
    /// saying so too.
    fn assert_list_damaged(index: &IndexFile, trigram: u32, problem: &str) {
        let err = index
            .postings(trigram)
            .expect_err("a damaged list is refused");
        assert!(
            err.to_string().contains(problem),
            "expected {problem:?}, got {err}"
        );
        assert!(
            index.damage().is_some_and(|d| d.contains(problem)),
            "the index is marked damaged with {problem:?}: {:?}",
            index.damage()
        );
    }

    fn rewrite_list(bytes: &mut [u8], i: usize, list: &[u8]) {
        let (_, start, stop) = entry_in(bytes, i);
        bytes[start..stop].copy_from_slice(list);
        let at = header_field(bytes, 9) + i * LOOKUP_LEN;
        let crc = crc32fast::hash(list);
        bytes[at + 16..at + 20].copy_from_slice(&crc.to_le_bytes());
        reseal(bytes);
    }

    #[test]
    fn unit_ids_out_of_range_are_never_used() {
        let dir = tempfile::tempdir().unwrap();
        let (path, mut bytes) = written(dir.path());
        // The second list, unit 1 of 2 as one varint, names unit 5 instead.
        let (tagged, start, stop) = entry_in(&bytes, 1);
        assert_eq!(tagged >> ENCODING_SHIFT, Encoding::Ids as u32);
        assert_eq!(&bytes[start..stop], &[1]);
        rewrite_list(&mut bytes, 1, &[5]);
        std::fs::write(&path, &bytes).unwrap();
        let index = IndexFile::open(&path).expect("checksums hold");
        assert!(index.damage().is_none());
        assert_list_damaged(&index, 0x646566, "out of range");
        assert_eq!(
            index.postings(0x616263).unwrap().len(),
            2,
            "other lists still decode"
        );
    }

    #[test]
    fn roaring_ids_out_of_range_are_never_used() {
        let dir = tempfile::tempdir().unwrap();
        // Half of 200,000 units at random: bitmap containers, smallest as roaring.
        let dense = RoaringBitmap::from_iter((0..200_000u32).filter(|&u| scattered(u)));
        let (path, mut bytes) = written_with(dir.path(), many_units(200_000), &[(0x616263, dense)]);
        let (tagged, start, stop) = entry_in(&bytes, 0);
        assert_eq!(tagged >> ENCODING_SHIFT, Encoding::Roaring as u32);
        assert_eq!(
            u32_at(&bytes, start),
            12346,
            "a list without run containers"
        );
        // Its first container moves to key 0x7fff: ids above 2^31.
        let mut list = bytes[start..stop].to_vec();
        list[8..10].copy_from_slice(&0x7fffu16.to_le_bytes());
        rewrite_list(&mut bytes, 0, &list);
        std::fs::write(&path, &bytes).unwrap();
        let index = IndexFile::open(&path).expect("checksums hold");
        // Its containers are out of order: the crate takes that, and the last container's
        // maximum is in range; the key order is what tells.
        assert_list_damaged(&index, 0x616263, "damaged posting list");
    }

    #[test]
    fn every_encoding_round_trips() {
        let n = 200_000u32;
        let all = every_unit(n);
        let mut cases: Vec<(&str, RoaringBitmap, Encoding)> = vec![
            ("empty", RoaringBitmap::new(), Encoding::Ids),
            ("one id", RoaringBitmap::from_iter([7u32]), Encoding::Ids),
            (
                "the last unit",
                RoaringBitmap::from_iter([n - 1]),
                Encoding::Ids,
            ),
            (
                "sparse, wide gaps",
                RoaringBitmap::from_iter([0u32, 127, 128, 16_511, 16_512, 199_999]),
                Encoding::Ids,
            ),
            (
                "dense",
                RoaringBitmap::from_iter((0..n).filter(|u| u % 3 == 0)),
                Encoding::Packed,
            ),
            (
                "half of the first 70,000 at random",
                RoaringBitmap::from_iter((0..n).filter(|&u| u < 70_000 && scattered(u))),
                Encoding::Roaring,
            ),
            (
                "consecutive ids: blocks of width 0",
                RoaringBitmap::from_iter(1000..1064),
                Encoding::Packed,
            ),
            (
                "a block of 32-bit-wide gaps cannot be: gaps past the units",
                RoaringBitmap::from_iter((0..64).map(|i| i * 3_000 + 7)),
                Encoding::Packed,
            ),
            ("full", all.clone(), Encoding::Complement),
            (
                "all but a few",
                RoaringBitmap::from_iter((0..n).filter(|u| u % 1000 != 5)),
                Encoding::PackedComplement,
            ),
            (
                "all but 20",
                RoaringBitmap::from_iter((0..n).filter(|u| u % 10_000 != 5)),
                Encoding::Complement,
            ),
            (
                "all but the first and last",
                RoaringBitmap::from_iter(1..n - 1),
                Encoding::Complement,
            ),
        ];
        // Lists of `count` ids `spacing` apart, on either side of a packed block's 32 ids
        // and of 128.
        for (name, count, spacing, expected) in [
            ("31 ids", 31, 5, Encoding::Ids),
            ("32 ids: one block", 32, 5, Encoding::Packed),
            ("33 ids", 33, 5, Encoding::Packed),
            ("127 ids", 127, 9, Encoding::Packed),
            ("128 ids", 128, 9, Encoding::Packed),
            ("129 ids", 129, 9, Encoding::Packed),
        ] {
            let list = RoaringBitmap::from_iter((0..count).map(|i| i * spacing));
            cases.push((name, list, expected));
        }
        for (name, list, expected) in &cases {
            let mut bytes = Vec::new();
            let encoding = encode_list(&posting(list), n, &mut bytes).unwrap();
            assert_eq!(
                (bytes.clone(), encoding),
                reference_encoding(list, &all),
                "{name}: the bytes a roaring bitmap's walk gave"
            );
            assert_eq!(encoding, *expected, "{name}");
            assert!(
                bytes.len() <= list.serialized_size(),
                "{name}: never larger"
            );
            let decoded = decode_list(encoding, &bytes, list.len() as u32, n as usize);
            assert_eq!(decoded.as_ref(), Ok(list), "{name}");
        }
        // Every encoding through a file, each entry tagged with its own.
        let dir = tempfile::tempdir().unwrap();
        let lists: Vec<(u32, RoaringBitmap)> = cases
            .iter()
            .enumerate()
            .map(|(i, (_, list, _))| (0x10_0000 + i as u32, list.clone()))
            .collect();
        let (path, bytes) = written_with(dir.path(), many_units(n), &lists);
        let index = IndexFile::open(&path).unwrap();
        for (i, ((trigram, list), (name, _, expected))) in lists.iter().zip(&cases).enumerate() {
            assert_eq!(
                entry_in(&bytes, i).0,
                trigram | (*expected as u32) << ENCODING_SHIFT
            );
            assert_eq!(&index.postings(*trigram).unwrap(), list, "{name}");
            assert_eq!(index.posting_count(*trigram), list.len(), "{name}");
        }
        assert_eq!(
            index.trigrams().collect::<Vec<_>>(),
            lists.iter().map(|l| l.0).collect::<Vec<_>>()
        );
        assert!(index.damage().is_none());
    }

    #[test]
    fn varints_round_trip_at_every_length() {
        for value in [
            0,
            1,
            0x7F,
            0x80,
            0x3FFF,
            0x4000,
            0x1F_FFFF,
            0x20_0000,
            0xFFF_FFFF,
            0x1000_0000,
            u32::MAX,
        ] {
            let mut bytes = Vec::new();
            put_varint(&mut bytes, value);
            assert_eq!(bytes.len(), varint_len(value), "{value:#x}");
            assert_eq!(
                read_varint(&bytes),
                Some((value, bytes.len())),
                "{value:#x}"
            );
        }
    }

    #[test]
    fn damaged_lists_are_refused_in_every_encoding() {
        let n = 1000usize;
        let roaring = |ids: &[u32]| {
            let mut bytes = Vec::new();
            RoaringBitmap::from_iter(ids.iter().copied())
                .serialize_into(&mut bytes)
                .unwrap();
            bytes
        };
        // Units 1 and 70,000 in two containers (keys 0 and 1), the keys then swapped.
        let mut keys_swapped = roaring(&[1, 70_000]);
        keys_swapped[8..10].copy_from_slice(&1u16.to_le_bytes());
        keys_swapped[12..14].copy_from_slice(&0u16.to_le_bytes());
        let wide = 200_000;
        assert_eq!(
            decode_list(Encoding::Roaring, &roaring(&[1, 70_000]), 2, wide).map(|l| l.len()),
            Ok(2),
            "in order, it decodes"
        );
        assert_eq!(
            decode_list(Encoding::Roaring, &keys_swapped, 2, wide),
            Err(DAMAGED_LIST)
        );
        let cases: Vec<(&str, Encoding, Vec<u8>, u32, &str)> = vec![
            (
                "a varint cut short",
                Encoding::Ids,
                vec![0x05, 0x80],
                2,
                DAMAGED_LIST,
            ),
            (
                "a sixth byte",
                Encoding::Ids,
                vec![0x80, 0x80, 0x80, 0x80, 0x80, 0x00],
                1,
                DAMAGED_LIST,
            ),
            (
                "bits past 32",
                Encoding::Ids,
                vec![0xFF, 0xFF, 0xFF, 0xFF, 0x10],
                1,
                DAMAGED_LIST,
            ),
            (
                "a redundant last byte",
                Encoding::Ids,
                vec![0x81, 0x00],
                1,
                DAMAGED_LIST,
            ),
            (
                "an id past the last unit",
                Encoding::Ids,
                vec![0xE8, 0x07],
                1,
                OUT_OF_RANGE,
            ),
            (
                "gaps adding up past the last unit",
                Encoding::Ids,
                vec![0xE7, 0x07, 0x00],
                2,
                OUT_OF_RANGE,
            ),
            (
                "a gap that would wrap",
                Encoding::Ids,
                vec![0x05, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F],
                2,
                OUT_OF_RANGE,
            ),
            (
                "fewer ids than counted",
                Encoding::Ids,
                vec![0x01, 0x02],
                3,
                WRONG_COUNT,
            ),
            (
                "more ids than counted",
                Encoding::Ids,
                vec![0x01, 0x02, 0x03],
                2,
                WRONG_COUNT,
            ),
            (
                "a count past the units",
                Encoding::Ids,
                vec![],
                1001,
                WRONG_COUNT,
            ),
            (
                "a complement of more than all",
                Encoding::Complement,
                vec![],
                1001,
                WRONG_COUNT,
            ),
            (
                "a complement of fewer ids than counted",
                Encoding::Complement,
                vec![0x01],
                998,
                WRONG_COUNT,
            ),
            (
                "a complement of more ids than counted",
                Encoding::Complement,
                vec![0x01, 0x01],
                999,
                WRONG_COUNT,
            ),
            (
                "a complement past the last unit",
                Encoding::Complement,
                vec![0xE8, 0x07],
                999,
                OUT_OF_RANGE,
            ),
            (
                "a complement cut short",
                Encoding::Complement,
                vec![0x80],
                999,
                DAMAGED_LIST,
            ),
            (
                "a block cut short",
                Encoding::Packed,
                vec![3; 12],
                32,
                DAMAGED_LIST,
            ),
            (
                "a block with no bytes",
                Encoding::Packed,
                vec![],
                32,
                DAMAGED_LIST,
            ),
            (
                "a block width past 32",
                Encoding::Packed,
                [vec![33], vec![0; 132]].concat(),
                32,
                DAMAGED_LIST,
            ),
            (
                "a block wider than its gaps",
                Encoding::Packed,
                [vec![2], vec![0x55; 7], vec![0x11]].concat(),
                32,
                DAMAGED_LIST,
            ),
            (
                "a block past the last unit",
                Encoding::Packed,
                [vec![6], vec![0xFF; 24]].concat(),
                32,
                OUT_OF_RANGE,
            ),
            (
                "a block of 32-bit gaps",
                Encoding::Packed,
                [vec![32], vec![0xFF; 128]].concat(),
                32,
                OUT_OF_RANGE,
            ),
            (
                "a tail past the last unit",
                Encoding::Packed,
                vec![0, 0xE8, 0x07],
                33,
                OUT_OF_RANGE,
            ),
            (
                "fewer packed ids than counted",
                Encoding::Packed,
                vec![0, 0x01],
                34,
                WRONG_COUNT,
            ),
            (
                "more packed ids than counted",
                Encoding::Packed,
                vec![0, 0x01, 0x01],
                33,
                WRONG_COUNT,
            ),
            (
                "a block where the count says varints",
                Encoding::Packed,
                vec![0],
                31,
                WRONG_COUNT,
            ),
            (
                "a tail varint cut short",
                Encoding::Packed,
                vec![0, 0x80],
                33,
                DAMAGED_LIST,
            ),
            (
                "a packed complement of more ids than counted",
                Encoding::PackedComplement,
                vec![0, 0x01],
                968,
                WRONG_COUNT,
            ),
            (
                "a packed complement cut short",
                Encoding::PackedComplement,
                vec![1, 0xFF],
                968,
                DAMAGED_LIST,
            ),
            (
                "a packed complement of more than all",
                Encoding::PackedComplement,
                vec![],
                1001,
                WRONG_COUNT,
            ),
            (
                "roaring of another count",
                Encoding::Roaring,
                roaring(&[1, 2, 3]),
                2,
                WRONG_COUNT,
            ),
            (
                "roaring past the last unit",
                Encoding::Roaring,
                roaring(&[1, 1000]),
                2,
                OUT_OF_RANGE,
            ),
            (
                "roaring cut short",
                Encoding::Roaring,
                roaring(&[1, 2, 3])[..9].to_vec(),
                3,
                DAMAGED_LIST,
            ),
            (
                "not roaring",
                Encoding::Roaring,
                vec![1, 2, 3],
                3,
                DAMAGED_LIST,
            ),
            (
                "roaring keys out of order",
                Encoding::Roaring,
                keys_swapped,
                2,
                DAMAGED_LIST,
            ),
        ];
        for (name, encoding, bytes, count, expected) in cases {
            let got = decode_list(encoding, &bytes, count, n);
            assert_eq!(got, Err(expected), "{name}");
        }
        // The same lists, well formed, decode.
        assert_eq!(
            decode_list(Encoding::Ids, &[0xE7, 0x07], 1, n),
            Ok(RoaringBitmap::from_iter([999u32]))
        );
        assert_eq!(
            decode_list(Encoding::Complement, &[0x01], 999, n).map(|l| l.contains(1)),
            Ok(false)
        );
        // Width 1: gaps 0 and 1 alternating (0b10 per pair, 0xAA a byte), then a varint.
        let block = [vec![1], vec![0xAA; 4], vec![0x05]].concat();
        let mut expected = Vec::new();
        let mut next = 0;
        for i in 0..32 {
            next += i % 2;
            expected.push(next);
            next += 1;
        }
        expected.push(next + 5);
        assert_eq!(
            decode_list(Encoding::Packed, &block, 33, n),
            Ok(RoaringBitmap::from_iter(expected.iter().copied()))
        );
        assert_eq!(
            decode_list(Encoding::PackedComplement, &[0], 968, n).map(|l| l.min()),
            Ok(Some(32))
        );
    }

    #[test]
    fn an_unknown_encoding_is_refused_on_open() {
        let dir = tempfile::tempdir().unwrap();
        let (path, mut bytes) = written(dir.path());
        let at = header_field(&bytes, 9) + 3;
        bytes[at] = 5;
        reseal(&mut bytes);
        std::fs::write(&path, &bytes).unwrap();
        let err = IndexFile::open(&path).err().expect("refused");
        assert!(err.to_string().contains("bad lookup table"), "{err}");
    }

    #[test]
    fn lists_naming_units_that_do_not_exist_are_never_written() {
        let dir = tempfile::tempdir().unwrap();
        let (files, units, _) = sample();
        let lists = [(1u32, RoaringBitmap::from_iter([0u32, 2]))];
        let err =
            write_index(&dir.path().join("index"), &files, &units, &lists).expect_err("refused");
        assert!(err.to_string().contains("does not exist"), "{err}");
    }

    #[test]
    fn a_file_truncated_after_the_open_marks_the_index_damaged_and_never_faults() {
        let dir = tempfile::tempdir().unwrap();
        let (path, _) = written(dir.path());
        let index = IndexFile::open(&path).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(HEADER_LEN as u64 + 8)
            .unwrap();
        assert_eq!(index.path(1), b"b/c.bin", "the tables were read on open");
        assert_list_damaged(&index, 0x646566, "truncated");
    }

    #[test]
    fn a_list_rewritten_after_the_open_fails_its_checksum() {
        let dir = tempfile::tempdir().unwrap();
        let (path, good) = written(dir.path());
        let index = IndexFile::open(&path).unwrap();
        // The second list (unit 1) says unit 0: still a valid list, and one a reader
        // trusting the file would use.
        let (_, at, _) = entry_in(&good, 1);
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.write_all_at(&[0], at as u64).unwrap();
        assert_list_damaged(&index, 0x646566, "checksum");
        assert_eq!(
            index.posting_count(0x646566),
            1,
            "counts come from the table"
        );
    }

    #[test]
    fn a_file_replaced_after_the_open_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let (path, _) = written(dir.path());
        let index = IndexFile::open(&path).unwrap();
        let other = dir.path().join("other");
        std::fs::write(&other, b"something else entirely").unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert_eq!(index.postings(0x616263).unwrap().len(), 2);
        assert!(index.damage().is_none());
    }

    #[test]
    fn a_file_whose_header_does_not_match_its_length_is_refused() {
        // A planted sparse file costs nothing to make: its header is checked first.
        let dir = tempfile::tempdir().unwrap();
        let (path, good) = written(dir.path());
        let grown = (good.len() as u64) + (64 << 20);
        let garbage = dir.path().join("garbage");
        std::fs::write(&garbage, b"not an index at all").unwrap();
        for (name, target) in [("grown", &path), ("garbage", &garbage)] {
            std::fs::OpenOptions::new()
                .write(true)
                .open(target)
                .unwrap()
                .set_len(grown)
                .unwrap();
            let file = File::open(target).unwrap();
            let err = IndexFile::from_file(file, grown).err().expect("refused");
            assert!(
                err.to_string().contains("truncated")
                    || err.to_string().contains("not a codesift index"),
                "{name}: {err}"
            );
        }
    }

    #[test]
    fn forged_tables_larger_than_half_the_memory_are_never_read() {
        // The header of a real index, its unit table and recorded length rewritten (and its
        // checksum) to claim a sparse file whose tables pass half of the memory: refused
        // before they are read.
        let dir = tempfile::tempdir().unwrap();
        let (path, good) = written(dir.path());
        let units = (memory_limit() / UNIT_LEN as u64) + 1;
        let off_postings = header_field(&good, 7) as u64 + units * UNIT_LEN as u64;
        let claimed = off_postings + 8;
        let mut header = good[..HEADER_LEN].to_vec();
        for (i, value) in [
            (3, units),
            (4, 0),
            (8, off_postings),
            (9, off_postings),
            (10, claimed),
        ] {
            header[16 + 8 * i..24 + 8 * i].copy_from_slice(&value.to_le_bytes());
        }
        header[HEADER_CRC..HEADER_CRC + 4].fill(0);
        let crc = crc32fast::hash(&header);
        header[HEADER_CRC..HEADER_CRC + 4].copy_from_slice(&crc.to_le_bytes());
        check_header(&header, claimed).expect("the forged header passes its own checks");
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::os::unix::fs::FileExt::write_all_at(&file, &header, 0).unwrap();
        file.set_len(claimed).unwrap();
        let file = File::open(&path).unwrap();
        let err = IndexFile::from_file(file, claimed).err().expect("refused");
        assert!(
            err.to_string().contains("half of this machine's memory"),
            "{err}"
        );
    }

    #[test]
    fn fifos_and_symlinks_are_not_opened_as_indexes() {
        let dir = tempfile::tempdir().unwrap();
        let (path, _) = written(dir.path());
        let fifo = dir.path().join("fifo");
        crate::test_support::make_fifo(&fifo);
        assert!(IndexFile::open(&fifo).is_err());
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert!(IndexFile::open(&link).is_err());
    }
}
