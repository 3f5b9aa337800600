//! The on-disk index: one file, written once and never modified, validated on open so that a
//! corrupt, truncated or foreign-version file is never trusted.
//!
//! Layout (little-endian): a fixed header; the path bytes; one fixed-size record per file in
//! byte order of its path; one record per unit (a line-aligned block of a file: its file, first
//! line number and byte offset, so that a search of only some units reports exact lines and
//! offsets); the trigram
//! lookup table sorted by trigram; the posting lists (roaring bitmaps of unit ids); a trailer.
//! The header holds a CRC-32 of each section and of itself.
//!
//! Opening copies the file into a sealed memfd (no shrinking, growing or writing: see
//! `private_copy`) and verifies every checksum and every offset on that copy, which is what
//! searches then read: a file truncated or rewritten by anyone after the open changes nothing
//! for them and can never raise `SIGBUS`, and what was verified is what is used. Unit ids in
//! posting lists are checked when a list is decoded; a list found bad marks the index damaged
//! (`damage`), and its owner discards it.

use roaring::RoaringBitmap;
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

pub const MAGIC: &[u8; 8] = b"CSIFTIDX";
pub const TRAILER: &[u8; 8] = b"CSIFTEND";
/// Bumped whenever the layout or the meaning of a field changes: older files are rebuilt.
pub const VERSION: u32 = 3;
const HEADER_LEN: usize = 128;
/// Where the five section checksums (paths, files, units, lookup, postings) and the header's
/// own (computed with itself zeroed) are in the header.
const SECTION_CRCS: usize = 16 + 8 * 11;
const HEADER_CRC: usize = SECTION_CRCS + 4 * 5;
const FILE_LEN: usize = 56;
const UNIT_LEN: usize = 16;
const LOOKUP_LEN: usize = 16;

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

/// Everything an index file holds, for writing.
pub struct Contents<'a> {
    pub options_hash: u64,
    /// When the build started (ns since the epoch): files changed at or after this moment
    /// (less a margin for coarse timestamps) are searched from disk.
    pub build_start_ns: i64,
    pub files: &'a [FileRecord],
    /// Every unit, in unit-id order.
    pub units: &'a [UnitRecord],
    /// Posting lists, sorted by trigram.
    pub postings: &'a [(u32, RoaringBitmap)],
}

/// A writer that sums what goes through it, section by section.
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
pub fn write(file: File, contents: &Contents<'_>) -> io::Result<u64> {
    let mut out = Summed {
        out: BufWriter::with_capacity(1 << 20, file),
        crc: crc32fast::Hasher::new(),
    };
    let mut crcs = [0u32; 5];
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
    let off_lookup = pos;
    let mut posting_off = 0u64;
    let mut sizes = Vec::with_capacity(contents.postings.len());
    for (trigram, bitmap) in contents.postings {
        let len = bitmap.serialized_size() as u64;
        out.write_all(&trigram.to_le_bytes())?;
        out.write_all(&(len as u32).to_le_bytes())?;
        out.write_all(&posting_off.to_le_bytes())?;
        posting_off += len;
        sizes.push(len);
        pos += LOOKUP_LEN as u64;
    }
    crcs[3] = out.section();
    let off_postings = pos;
    for (_, bitmap) in contents.postings {
        bitmap.serialize_into(&mut out)?;
    }
    crcs[4] = out.section();
    pos += posting_off;
    out.write_all(TRAILER)?;
    pos += TRAILER.len() as u64;
    let total = pos;
    let mut header = Vec::with_capacity(HEADER_LEN);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&0u32.to_le_bytes());
    for value in [
        contents.options_hash,
        contents.build_start_ns as u64,
        contents.files.len() as u64,
        contents.units.len() as u64,
        contents.postings.len() as u64,
        off_paths,
        off_files,
        off_units,
        off_lookup,
        off_postings,
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
    Ok(total)
}

/// An index file, copied (see `private_copy`) and validated.
pub struct IndexFile {
    map: memmap2::Mmap,
    /// Why the index turned out bad after it was opened (a posting list that does not decode
    /// or names a unit that does not exist): its owner discards it.
    damage: std::sync::OnceLock<String>,
    pub options_hash: u64,
    pub build_start_ns: i64,
    n_files: usize,
    n_units: usize,
    n_trigrams: usize,
    off_paths: usize,
    off_files: usize,
    off_units: usize,
    off_lookup: usize,
    off_postings: usize,
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

/// The most bytes an index copy may take: half of this machine's memory.
fn copy_limit() -> u64 {
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

/// A private, immutable copy of the first `len` bytes of `file`, mapped. A sealed memfd
/// (`F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL`) cannot change under the
/// mapping, so reading it never faults, whoever truncates or rewrites the original. The copy is
/// in-kernel (`copy_file_range`, else `sendfile`, through `std::io::copy`). Without memfds (an
/// old kernel, a seccomp filter) the copy goes to anonymous memory instead: equally private.
fn private_copy(file: &File, len: u64) -> io::Result<memmap2::Mmap> {
    use rustix::fs::{MemfdFlags, SealFlags};
    let short = || corrupt("changed while it was read");
    match rustix::fs::memfd_create(
        "codesift-index",
        MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING,
    ) {
        Ok(fd) => {
            let mut copy = File::from(fd);
            let copied = io::copy(&mut Read::take(file, len), &mut copy)?;
            if copied != len || copy.metadata()?.len() != len {
                return Err(short());
            }
            rustix::fs::fcntl_add_seals(
                &copy,
                SealFlags::SHRINK | SealFlags::GROW | SealFlags::WRITE | SealFlags::SEAL,
            )?;
            // SAFETY: the memfd is ours alone and sealed: its size and bytes can never change.
            unsafe { memmap2::Mmap::map(&copy) }
        }
        Err(_) => {
            let size = usize::try_from(len).map_err(|_| corrupt("is too large"))?;
            let mut map = memmap2::MmapMut::map_anon(size)?;
            std::os::unix::fs::FileExt::read_exact_at(file, &mut map, 0).map_err(|e| {
                if e.kind() == io::ErrorKind::UnexpectedEof {
                    short()
                } else {
                    e
                }
            })?;
            map.make_read_only()
        }
    }
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
        IndexFile::from_file(&file, meta.len())
    }

    /// Copies `len` bytes of `file` (its size when it was checked) and validates the copy:
    /// checksums, then every offset and id.
    pub fn from_file(file: &File, len: u64) -> io::Result<IndexFile> {
        if len < (HEADER_LEN + TRAILER.len()) as u64 {
            return Err(corrupt("is not a codesift index"));
        }
        // The header is checked on the file before anything is copied: the copy costs the
        // file's length in memory, and a planted sparse file of any length is free to make.
        let mut header = [0u8; HEADER_LEN];
        std::os::unix::fs::FileExt::read_exact_at(file, &mut header, 0)
            .map_err(|_| corrupt("is not a codesift index"))?;
        check_header(&header, len)?;
        // A header can be forged too: whatever it says, no copy may take more than half of
        // this machine's memory (such an index could not be used anyway).
        if len > copy_limit() {
            return Err(corrupt("is larger than half of this machine's memory"));
        }
        let map = private_copy(file, len)?;
        let bytes = &map[..];
        if bytes.len() < HEADER_LEN + TRAILER.len() {
            return Err(corrupt("is not a codesift index"));
        }
        // Again on the copy: the file may have changed since.
        check_header(&bytes[..HEADER_LEN], bytes.len() as u64)?;
        if &bytes[bytes.len() - 8..] != TRAILER {
            return Err(corrupt("is truncated"));
        }
        let field = |i: usize| u64_at(bytes, 16 + 8 * i);
        let as_usize = |v: u64| usize::try_from(v).map_err(|_| corrupt("is too large"));
        let index = IndexFile {
            options_hash: field(0),
            build_start_ns: field(1) as i64,
            n_files: as_usize(field(2))?,
            n_units: as_usize(field(3))?,
            n_trigrams: as_usize(field(4))?,
            off_paths: as_usize(field(5))?,
            off_files: as_usize(field(6))?,
            off_units: as_usize(field(7))?,
            off_lookup: as_usize(field(8))?,
            off_postings: as_usize(field(9))?,
            map,
            damage: std::sync::OnceLock::new(),
            unindexed: Vec::new(),
            total_bytes: 0,
        };
        let mut index = index;
        index.validate()?;
        index.unindexed = (0..index.n_files)
            .filter(|&i| index.file(i).flags & INDEXED == 0)
            .map(|i| i as u32)
            .collect();
        index.total_bytes = (0..index.n_files).map(|i| index.file(i).size).sum();
        Ok(index)
    }

    fn validate(&self) -> io::Result<()> {
        let len = self.map.len() - TRAILER.len();
        let section = |start: usize, count: usize, size: usize, next: usize| {
            count
                .checked_mul(size)
                .and_then(|n| n.checked_add(start))
                .is_some_and(|end| start <= end && end == next && next <= len)
        };
        if !(self.off_paths == HEADER_LEN
            && self.off_paths <= self.off_files
            && section(self.off_files, self.n_files, FILE_LEN, self.off_units)
            && section(self.off_units, self.n_units, UNIT_LEN, self.off_lookup)
            && section(
                self.off_lookup,
                self.n_trigrams,
                LOOKUP_LEN,
                self.off_postings,
            ))
        {
            return Err(corrupt("has inconsistent sections"));
        }
        let sections = [
            ("paths", self.off_paths, self.off_files),
            ("file table", self.off_files, self.off_units),
            ("unit table", self.off_units, self.off_lookup),
            ("lookup table", self.off_lookup, self.off_postings),
            ("posting lists", self.off_postings, len),
        ];
        for (i, (name, start, end)) in sections.into_iter().enumerate() {
            if crc32fast::hash(&self.map[start..end]) != u32_at(&self.map, SECTION_CRCS + 4 * i) {
                return Err(corrupt(&format!("has damaged {name} (checksum)")));
            }
        }
        let paths_len = self.off_files - self.off_paths;
        let mut previous: Option<&[u8]> = None;
        let mut next_unit = 0u64;
        for i in 0..self.n_files {
            let at = self.off_files + i * FILE_LEN;
            let (off, plen) = (u64_at(&self.map, at), u32_at(&self.map, at + 8) as u64);
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
        let postings_len = len - self.off_postings;
        let mut previous_trigram = None;
        for i in 0..self.n_trigrams {
            let at = self.off_lookup + i * LOOKUP_LEN;
            let trigram = u32_at(&self.map, at);
            let size = u32_at(&self.map, at + 4) as u64;
            let off = u64_at(&self.map, at + 8);
            if previous_trigram.is_some_and(|p| p >= trigram)
                || off
                    .checked_add(size)
                    .is_none_or(|end| end > postings_len as u64)
            {
                return Err(corrupt("has a bad lookup table"));
            }
            previous_trigram = Some(trigram);
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

    pub fn byte_len(&self) -> usize {
        self.map.len()
    }

    /// The path of file `i` (workspace-relative bytes).
    pub fn path(&self, i: usize) -> &[u8] {
        let at = self.off_files + i * FILE_LEN;
        let off = self.off_paths + u64_at(&self.map, at) as usize;
        let len = u32_at(&self.map, at + 8) as usize;
        &self.map[off..off + len]
    }

    pub fn file(&self, i: usize) -> FileRecord {
        let at = self.off_files + i * FILE_LEN;
        let m = &self.map;
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
        u32_at(&self.map, self.off_units + unit as usize * UNIT_LEN)
    }

    pub fn unit(&self, unit: u32) -> UnitRecord {
        let at = self.off_units + unit as usize * UNIT_LEN;
        UnitRecord {
            file: u32_at(&self.map, at),
            first_line: u32_at(&self.map, at + 4),
            offset: u64_at(&self.map, at + 8),
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

    /// Where the posting list of `trigram` lies in the map, if the index has one.
    fn posting_bytes(&self, trigram: u32) -> Option<&[u8]> {
        let (mut lo, mut hi) = (0, self.n_trigrams);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let at = self.off_lookup + mid * LOOKUP_LEN;
            let found = u32_at(&self.map, at);
            match found.cmp(&trigram) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let size = u32_at(&self.map, at + 4) as usize;
                    let off = self.off_postings + u64_at(&self.map, at + 8) as usize;
                    return Some(&self.map[off..off + size]);
                }
            }
        }
        None
    }

    /// The units holding `trigram`. A list that does not decode, or that names a unit the
    /// index does not have, is an error (and marks the index damaged), never guessed at.
    pub fn postings(&self, trigram: u32) -> io::Result<RoaringBitmap> {
        let Some(bytes) = self.posting_bytes(trigram) else {
            return Ok(RoaringBitmap::new());
        };
        let what = match RoaringBitmap::deserialize_from(bytes) {
            Ok(list) if list.max().is_none_or(|unit| (unit as usize) < self.n_units) => {
                return Ok(list);
            }
            Ok(_) => "has a unit id out of range in a posting list",
            Err(_) => "has a damaged posting list",
        };
        let _ = self.damage.set(format!("index file {what}"));
        Err(corrupt(what))
    }

    /// Why the index was found bad after it was opened, if it was.
    pub fn damage(&self) -> Option<&str> {
        self.damage.get().map(String::as_str)
    }

    /// How many units hold `trigram`, read from the list's container headers without
    /// decoding it (the roaring portable format: a cookie, then a key and a cardinality - 1
    /// per container): what a query plan's cost is estimated with.
    pub fn posting_count(&self, trigram: u32) -> u64 {
        const NO_RUNS: u32 = 12346;
        const WITH_RUNS: u32 = 12347;
        let Some(bytes) = self.posting_bytes(trigram) else {
            return 0;
        };
        let read_u32 = |at: usize| bytes.get(at..at + 4).map(|b| u32_at(b, 0));
        let headers = match read_u32(0) {
            Some(NO_RUNS) => read_u32(4).map(|n| (n as usize, 8)),
            Some(cookie) if cookie & 0xFFFF == WITH_RUNS => {
                let n = (cookie >> 16) as usize + 1;
                Some((n, 4 + n.div_ceil(8)))
            }
            _ => None,
        };
        let counted = headers.and_then(|(n, at)| {
            (0..n)
                .map(|i| {
                    let pair = at + 4 * i;
                    bytes
                        .get(pair + 2..pair + 4)
                        .map(|c| u64::from(u16::from_le_bytes([c[0], c[1]])) + 1)
                })
                .sum::<Option<u64>>()
        });
        counted.unwrap_or_else(|| self.postings(trigram).map_or(0, |b| b.len()))
    }

    /// The number of units holding `trigram`, without decoding its list (0 when none).
    pub fn posting_len(&self, trigram: u32) -> u64 {
        self.posting_count(trigram)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Sample = (Vec<FileRecord>, Vec<UnitRecord>, Vec<(u32, RoaringBitmap)>);

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

    #[test]
    fn round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index");
        let (files, units, postings) = sample();
        write(
            File::create(&path).unwrap(),
            &Contents {
                options_hash: 42,
                build_start_ns: 99,
                files: &files,
                units: &units,
                postings: &postings,
            },
        )
        .unwrap();
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
    }

    #[test]
    fn posting_counts_are_read_from_the_headers() {
        let dir = tempfile::tempdir().unwrap();
        // Dense and sparse lists spanning several containers.
        let big = RoaringBitmap::from_iter((0..200_000u32).filter(|u| u % 3 == 0));
        let sparse = RoaringBitmap::from_iter([1u32, 70_000, 140_000]);
        let postings = vec![(0x010203, big.clone()), (0x040506, sparse.clone())];
        let (path, _) = written_with(dir.path(), &postings);
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
        written_with(dir, &sample().2)
    }

    /// `written` with other posting lists.
    fn written_with(
        dir: &Path,
        postings: &[(u32, RoaringBitmap)],
    ) -> (std::path::PathBuf, Vec<u8>) {
        let path = dir.join("index");
        let (files, units, _) = sample();
        let contents = Contents {
            options_hash: 1,
            build_start_ns: 1,
            files: &files,
            units: &units,
            postings,
        };
        write(File::create(&path).unwrap(), &contents).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        (path, bytes)
    }

    fn header_field(bytes: &[u8], i: usize) -> usize {
        u64_at(bytes, 16 + 8 * i) as usize
    }

    /// Recomputes every checksum, as a writer with a bug would leave them.
    fn reseal(bytes: &mut [u8]) {
        let end = bytes.len() - TRAILER.len();
        let bounds = [5, 6, 7, 8, 9].map(|i| header_field(bytes, i));
        for i in 0..5 {
            let stop = bounds.get(i + 1).copied().unwrap_or(end);
            let crc = crc32fast::hash(&bytes[bounds[i]..stop]);
            bytes[SECTION_CRCS + 4 * i..SECTION_CRCS + 4 * i + 4]
                .copy_from_slice(&crc.to_le_bytes());
        }
        bytes[HEADER_CRC..HEADER_CRC + 4].fill(0);
        let crc = crc32fast::hash(&bytes[..HEADER_LEN]);
        bytes[HEADER_CRC..HEADER_CRC + 4].copy_from_slice(&crc.to_le_bytes());
    }

    #[test]
    fn a_flipped_byte_in_any_section_fails_its_checksum() {
        let dir = tempfile::tempdir().unwrap();
        let (path, good) = written(dir.path());
        let end = good.len() - TRAILER.len();
        let starts = [5, 6, 7, 8, 9].map(|i| header_field(&good, i));
        let names = [
            "paths",
            "file table",
            "unit table",
            "lookup table",
            "posting lists",
        ];
        for (i, name) in names.iter().enumerate() {
            let stop = starts.get(i + 1).copied().unwrap_or(end);
            let mut bytes = good.clone();
            bytes[(starts[i] + stop) / 2] ^= 0x10;
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
        let lookup = header_field(&good, 8);
        posting_off[lookup + 8..lookup + 16].copy_from_slice(&(u64::MAX - 2).to_le_bytes());
        let mut posting_len = good.clone();
        posting_len[lookup + 4..lookup + 8].copy_from_slice(&u32::MAX.to_le_bytes());
        for (i, mut bytes) in [path_off, posting_off, posting_len].into_iter().enumerate() {
            reseal(&mut bytes);
            std::fs::write(&path, &bytes).unwrap();
            assert!(IndexFile::open(&path).is_err(), "case {i}");
        }
    }

    #[test]
    fn unit_ids_out_of_range_are_never_used() {
        let dir = tempfile::tempdir().unwrap();
        let (path, mut bytes) = written(dir.path());
        // The first list's only container moves to key 0x7fff: ids above 2^31.
        let postings = header_field(&bytes, 9);
        assert_eq!(
            u32_at(&bytes, postings),
            12346,
            "a list without run containers"
        );
        bytes[postings + 8..postings + 10].copy_from_slice(&0x7fffu16.to_le_bytes());
        reseal(&mut bytes);
        std::fs::write(&path, &bytes).unwrap();
        let index = IndexFile::open(&path).expect("checksums hold");
        assert!(index.damage().is_none());
        let err = index.postings(0x616263).expect_err("ids out of range");
        assert!(err.to_string().contains("out of range"), "{err}");
        assert!(
            index.damage().is_some_and(|d| d.contains("out of range")),
            "the index is marked damaged: {:?}",
            index.damage()
        );
        assert_eq!(
            index.postings(0x646566).unwrap().len(),
            1,
            "other lists still decode"
        );
    }

    #[test]
    fn the_copy_searches_read_survives_the_file_shrinking() {
        let dir = tempfile::tempdir().unwrap();
        let (path, _) = written(dir.path());
        let index = IndexFile::open(&path).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(0)
            .unwrap();
        assert_eq!(index.path(1), b"b/c.bin");
        assert_eq!(index.postings(0x616263).unwrap().len(), 2);
    }

    #[test]
    fn a_file_whose_header_does_not_match_its_length_is_refused_before_it_is_copied() {
        // A planted sparse file costs nothing to make; copying it whole before looking at
        // its header would fill memory (a terabyte of holes takes the process down).
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
            let mut file = File::open(target).unwrap();
            let err = IndexFile::from_file(&file, grown).err().expect("refused");
            let read = file.stream_position().unwrap();
            assert!(
                read <= HEADER_LEN as u64,
                "{name}: {read} bytes were read to refuse it ({err})"
            );
            assert!(
                err.to_string().contains("truncated")
                    || err.to_string().contains("not a codesift index"),
                "{name}: {err}"
            );
        }
    }

    #[test]
    fn a_forged_header_cannot_make_a_copy_larger_than_half_the_memory() {
        // The header of a real index, its recorded length and checksum rewritten to claim a
        // sparse file past half of the memory: refused before any copy.
        let dir = tempfile::tempdir().unwrap();
        let (path, good) = written(dir.path());
        let claimed = copy_limit() + 4096;
        let mut header = good[..HEADER_LEN].to_vec();
        header[16 + 8 * 10..16 + 8 * 11].copy_from_slice(&claimed.to_le_bytes());
        header[HEADER_CRC..HEADER_CRC + 4].fill(0);
        let crc = crc32fast::hash(&header);
        header[HEADER_CRC..HEADER_CRC + 4].copy_from_slice(&crc.to_le_bytes());
        check_header(&header, claimed).expect("the forged header passes its own checks");
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::os::unix::fs::FileExt::write_all_at(&file, &header, 0).unwrap();
        file.set_len(claimed).unwrap();
        let file = File::open(&path).unwrap();
        let err = IndexFile::from_file(&file, claimed).err().expect("refused");
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
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert!(IndexFile::open(&fifo).is_err());
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert!(IndexFile::open(&link).is_err());
    }
}
