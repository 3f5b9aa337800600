//! The binary frame that carries the bulk of a `glob` or `select` reply (protocol 3, asked
//! with `"bulk": true`): the paths as one byte block plus fixed-width little-endian arrays,
//! so that neither side builds or parses a JSON value per file (on an 86k-file tree the JSON
//! of a large glob cost more than finding its files). Layout, every integer little-endian:
//!
//! ```text
//! count: u32 | flags: u8 (bit 0: metadata follows, bit 1: spans follow)
//! path lengths: count × u32
//! [metadata present: count × u8 (0 or 1) | mtime_ms: count × i64 | size: count × u64]
//! [span counts: count × u32 | for each file with spans: size u64, mtime_ns i64,
//!  ctime_ns i64, ino u64, then its spans: (offset u64, length u64, line u64) each]
//! path bytes: the paths one after another (sum of the lengths)
//! ```
//!
//! Spans (protocol 4, `select` only) are the parts of an unchanged file that can hold a
//! match (`index::select::FileSpans`); a file with none is read whole.
//!
//! The frame must be exactly that long. Decoding trusts nothing: every length is checked
//! against the frame, and a path that is empty or holds a NUL byte is refused (callers check
//! that paths stay inside the root and are in order).

use crate::glob::PathBlock;
use crate::index::select::FileSpans;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

const HAS_METADATA: u8 = 1;
const HAS_SPANS: u8 = 2;

/// Encodes a `select`'s `paths`, with each file's spans when `spans` is given (one per
/// path). A glob's frame, which carries metadata instead, is `encode_parallel`'s.
pub fn encode<'a>(
    paths: impl ExactSizeIterator<Item = &'a Path> + Clone,
    spans: Option<&[Option<FileSpans>]>,
) -> Vec<u8> {
    let count = paths.len();
    let mut out = Vec::with_capacity(5 + count * 4);
    out.extend_from_slice(&(count as u32).to_le_bytes());
    out.push(if spans.is_some() { HAS_SPANS } else { 0 });
    // The paths are gone through twice: their lengths into their slots (adding them up),
    // then, once the whole frame's room is known, their bytes (three walks, one only to add
    // up the lengths, were a fifth of a daemon's glob).
    let lengths_at = out.len();
    out.resize(lengths_at + 4 * count, 0);
    let mut names = 0;
    for (slot, path) in out[lengths_at..].chunks_exact_mut(4).zip(paths.clone()) {
        let len = path.as_os_str().len();
        slot.copy_from_slice(&(len as u32).to_le_bytes());
        names += len;
    }
    let spans_width: usize = spans.map_or(0, |spans| {
        spans
            .iter()
            .map(|s| 4 + s.as_ref().map_or(0, |s| 32 + 24 * s.spans.len()))
            .sum()
    });
    out.reserve(spans_width + names);
    if let Some(spans) = spans {
        debug_assert_eq!(spans.len(), count);
        for s in spans {
            let n = s.as_ref().map_or(0, |s| s.spans.len());
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        for s in spans.iter().flatten().filter(|s| !s.spans.is_empty()) {
            out.extend_from_slice(&s.size.to_le_bytes());
            out.extend_from_slice(&s.mtime_ns.to_le_bytes());
            out.extend_from_slice(&s.ctime_ns.to_le_bytes());
            out.extend_from_slice(&s.ino.to_le_bytes());
            for (offset, len, line) in &s.spans {
                out.extend_from_slice(&offset.to_le_bytes());
                out.extend_from_slice(&len.to_le_bytes());
                out.extend_from_slice(&line.to_le_bytes());
            }
        }
    }
    for path in paths {
        out.extend_from_slice(path.as_os_str().as_bytes());
    }
    out
}

/// A glob's frame: `count` files' paths and metadata, file `i` being `path(i)` with
/// `metadata(i)`, made by up to `threads` threads at once (one a `PARALLEL_SHARE` files at
/// the least): each fills its share of the fixed-width arrays and adds up its paths'
/// lengths, then copies its paths' bytes to where the lengths before it put them. A daemon's
/// glob of 208,000 files (520,000 in the index) spent half its time encoding on one thread,
/// each file's record fetched from memory again; the same bytes on any number of threads
/// (tested).
pub fn encode_parallel<'a>(
    count: usize,
    path: impl Fn(usize) -> &'a [u8] + Sync,
    metadata: impl Fn(usize) -> Option<(i64, u64)> + Sync,
    threads: usize,
) -> Vec<u8> {
    // A small answer is encoded on the calling thread: handing it out costs more.
    let threads = threads.clamp(1, count.div_ceil(PARALLEL_SHARE).max(1));
    let share = count.div_ceil(threads).max(1);
    let lengths_at = 5;
    let fixed = lengths_at + count * (4 + 17);
    let mut out = vec![0u8; fixed];
    out[..4].copy_from_slice(&(count as u32).to_le_bytes());
    out[4] = HAS_METADATA;
    // The four arrays, each cut into the threads' shares.
    let (lengths, rest) = out[lengths_at..].split_at_mut(4 * count);
    let (present, rest) = rest.split_at_mut(count);
    let (mtimes, sizes) = rest.split_at_mut(8 * count);
    let shares: Vec<Share<'_>> = lengths
        .chunks_mut(4 * share)
        .zip(present.chunks_mut(share))
        .zip(mtimes.chunks_mut(8 * share))
        .zip(sizes.chunks_mut(8 * share))
        .enumerate()
        .map(|(at, (((lengths, present), mtimes), sizes))| Share {
            at,
            lengths,
            present,
            mtimes,
            sizes,
        })
        .collect();
    let names: Vec<AtomicUsize> = shares.iter().map(|_| AtomicUsize::new(0)).collect();
    let fill = |part: Share<'_>| {
        let mut total = 0;
        for i in 0..part.present.len() {
            let index = part.at * share + i;
            let len = path(index).len();
            total += len;
            part.lengths[4 * i..4 * i + 4].copy_from_slice(&(len as u32).to_le_bytes());
            if let Some((mtime, size)) = metadata(index) {
                part.present[i] = 1;
                part.mtimes[8 * i..8 * i + 8].copy_from_slice(&mtime.to_le_bytes());
                part.sizes[8 * i..8 * i + 8].copy_from_slice(&size.to_le_bytes());
            }
        }
        names[part.at].store(total, Ordering::Relaxed);
    };
    on_threads(shares, &fill);
    let names: Vec<usize> = names.into_iter().map(AtomicUsize::into_inner).collect();
    out.resize(fixed + names.iter().sum::<usize>(), 0);
    let mut bytes = &mut out[fixed..];
    let mut parts = Vec::with_capacity(names.len());
    for (at, &len) in names.iter().enumerate() {
        let (part, rest) = bytes.split_at_mut(len);
        parts.push((at, part));
        bytes = rest;
    }
    let copy = |(at, part): (usize, &mut [u8])| {
        let mut written = 0;
        for index in at * share..((at + 1) * share).min(count) {
            let bytes = path(index);
            part[written..written + bytes.len()].copy_from_slice(bytes);
            written += bytes.len();
        }
    };
    on_threads(parts, &copy);
    out
}

/// One thread's share of `encode_parallel`'s fixed-width arrays: share `at`'s files.
struct Share<'a> {
    at: usize,
    lengths: &'a mut [u8],
    present: &'a mut [u8],
    mtimes: &'a mut [u8],
    sizes: &'a mut [u8],
}

/// Files a thread encodes at the least (`encode_parallel`).
const PARALLEL_SHARE: usize = 16_384;

/// Runs `work` on each of `items`: the first on the calling thread, the others on kept
/// threads (`crate::threads`), all ended when it returns.
fn on_threads<T: Send>(items: Vec<T>, work: &(impl Fn(T) + Sync)) {
    let mut items = items.into_iter();
    let Some(first) = items.next() else {
        return;
    };
    crate::threads::with_helpers(items.collect(), work, || work(first));
}

/// What `encode` or `encode_parallel` wrote: the paths, and the metadata and the spans when they were sent
/// (one per path).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Decoded {
    pub paths: PathBlock,
    pub metadata: Option<Vec<Option<(i64, u64)>>>,
    pub spans: Option<Vec<Option<FileSpans>>>,
    /// Whether every path is plain (`all_plain`): the callers' test that nothing leaves the
    /// root, made once over the frame's path bytes.
    pub plain: bool,
}

/// Reads a frame `encode` or `encode_parallel` wrote; `None` if it is cut short, too long, or malformed. The
/// frame is kept as the paths' block (they are not copied out of it).
pub fn decode(frame: Vec<u8>) -> Option<Decoded> {
    let mut rest = &frame[..];
    let count = u32::from_le_bytes(take(&mut rest, 4)?.try_into().ok()?) as usize;
    let flags = *take(&mut rest, 1)?.first()?;
    if flags & !(HAS_METADATA | HAS_SPANS) != 0 {
        return None;
    }
    // Checked before anything is allocated by `count`: each file takes at least 5 bytes.
    if count > frame.len() / 5 {
        return None;
    }
    let lengths = take(&mut rest, count.checked_mul(4)?)?;
    let metadata = if flags & HAS_METADATA != 0 {
        let present = take(&mut rest, count)?;
        let mtimes = take(&mut rest, count.checked_mul(8)?)?;
        let sizes = take(&mut rest, count.checked_mul(8)?)?;
        let mut metadata = Vec::with_capacity(count);
        for i in 0..count {
            metadata.push(match present[i] {
                0 => None,
                1 => Some((
                    i64::from_le_bytes(mtimes[i * 8..i * 8 + 8].try_into().ok()?),
                    u64::from_le_bytes(sizes[i * 8..i * 8 + 8].try_into().ok()?),
                )),
                _ => return None,
            });
        }
        Some(metadata)
    } else {
        None
    };
    let spans = if flags & HAS_SPANS != 0 {
        let counts = take(&mut rest, count.checked_mul(4)?)?;
        let mut spans = Vec::with_capacity(count);
        for n in counts.chunks_exact(4) {
            let n = u32::from_le_bytes(n.try_into().ok()?) as usize;
            if n == 0 {
                spans.push(None);
                continue;
            }
            // Checked before anything is allocated by `n`: each span takes 24 bytes.
            let head = take(&mut rest, 32)?;
            let list = take(&mut rest, n.checked_mul(24)?)?;
            let word = |bytes: &[u8], at: usize| -> Option<[u8; 8]> {
                bytes.get(at..at + 8)?.try_into().ok()
            };
            spans.push(Some(FileSpans {
                size: u64::from_le_bytes(word(head, 0)?),
                mtime_ns: i64::from_le_bytes(word(head, 8)?),
                ctime_ns: i64::from_le_bytes(word(head, 16)?),
                ino: u64::from_le_bytes(word(head, 24)?),
                spans: list
                    .chunks_exact(24)
                    .map(|s| {
                        Some((
                            u64::from_le_bytes(word(s, 0)?),
                            u64::from_le_bytes(word(s, 8)?),
                            u64::from_le_bytes(word(s, 16)?),
                        ))
                    })
                    .collect::<Option<Vec<_>>>()?,
            }));
        }
        Some(spans)
    } else {
        None
    };
    let lengths = lengths
        .chunks_exact(4)
        .map(|length| u32::from_le_bytes([length[0], length[1], length[2], length[3]]) as usize);
    // One pass over the block: no path empty, none holding a NUL byte, and the lengths adding
    // up to the rest of the frame exactly.
    if lengths.clone().any(|length| length == 0) || memchr::memchr(0, rest).is_some() {
        return None;
    }
    let plain = all_plain(rest, lengths.clone());
    let start = frame.len() - rest.len();
    let mut ends = Vec::with_capacity(count);
    let mut end = start;
    for length in lengths {
        end = end.checked_add(length)?;
        ends.push(end);
    }
    let paths = PathBlock::from_ends(frame, start, ends)?;
    Some(Decoded {
        paths,
        metadata,
        spans,
        plain,
    })
}

/// Whether every path of `block` (the paths of `lengths` one after another) is a plain
/// root-relative path: names only, no `.` or `..`, no empty name.
///
/// Checked over the whole block at once: a glob's answer holds tens of thousands of short
/// paths, and a loop over every byte of each (the check a single path gets) was a fifth of
/// the client's time for `**/*.c` on the Linux tree. An empty, `.` or `..` name inside a
/// path shows as `//`, `/./` or `/../`; where one of those spans two paths, one of the two
/// starts with `/` or ends with `/`, `/.` or `/..`, which the per-path ends check refuses
/// anyway, so any one anywhere in the block means a path that is not plain. `/./` and `/../`
/// are found as the `/.` they start with (one pass, not two); the ends are matched as slice
/// patterns, which compile to byte tests (a `starts_with` per end called `memcmp`, a fifth
/// of a glob's time again).
pub fn all_plain(block: &[u8], lengths: impl Iterator<Item = usize>) -> bool {
    use memchr::memmem;
    if memmem::find(block, b"//").is_some() {
        return false;
    }
    let dot_name = |at: usize| matches!(block.get(at + 2..), Some([b'/', ..] | [b'.', b'/', ..]));
    if memmem::find_iter(block, b"/.").any(dot_name) {
        return false;
    }
    let mut at = 0;
    for len in lengths {
        let Some(path) = block.get(at..at + len) else {
            return false;
        };
        at += len;
        if matches!(
            path,
            [] | [b'/', ..]
                | [.., b'/']
                | [b'.']
                | [b'.', b'.']
                | [b'.', b'/', ..]
                | [b'.', b'.', b'/', ..]
                | [.., b'/', b'.']
                | [.., b'/', b'.', b'.']
        ) {
            return false;
        }
    }
    true
}

/// The next `n` bytes of `rest`, or `None` when fewer are left.
fn take<'a>(rest: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    if rest.len() < n {
        return None;
    }
    let (head, tail) = rest.split_at(n);
    *rest = tail;
    Some(head)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;
    use std::path::PathBuf;

    fn paths(names: &[&[u8]]) -> Vec<PathBuf> {
        names
            .iter()
            .map(|n| PathBuf::from(OsStr::from_bytes(n)))
            .collect()
    }

    fn block(paths: &[PathBuf]) -> PathBlock {
        paths.iter().map(PathBuf::as_path).collect()
    }

    /// A glob's frame of `files` with `metadata`, encoded on `threads` threads.
    fn globbed(files: &[PathBuf], metadata: &[Option<(i64, u64)>], threads: usize) -> Vec<u8> {
        let path = |i: usize| files[i].as_os_str().as_bytes();
        encode_parallel(files.len(), path, |i| metadata[i], threads)
    }

    #[test]
    fn a_frame_says_whether_its_paths_are_plain() {
        let plain = paths(&[b"a.c", b"dir/b.c", b"dir/.hidden"]);
        let frame = encode(plain.iter().map(PathBuf::as_path), None);
        assert!(decode(frame.to_vec()).unwrap().plain);
        for bad in [
            &b"../x"[..],
            b"dir/./b",
            b"dir//b",
            b"/etc/passwd",
            b"dir/..",
        ] {
            let with_bad = paths(&[b"a.c", bad, b"z.c"]);
            let frame = encode(with_bad.iter().map(PathBuf::as_path), None);
            let decoded = decode(frame.to_vec()).unwrap();
            assert_eq!(decoded.paths, block(&with_bad));
            assert!(!decoded.plain, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn paths_and_metadata_round_trip() {
        let files = paths(&[b"a.c", b"dir/b\xff.c", "é/ü.rs".as_bytes()]);
        let metadata = vec![Some((-5, 7)), None, Some((i64::MAX, u64::MAX))];
        let frame = globbed(&files, &metadata, 1);
        let decoded = |paths: Vec<PathBuf>, metadata, spans| Decoded {
            paths: block(&paths),
            metadata,
            spans,
            plain: true,
        };
        assert_eq!(
            decode(frame.to_vec()),
            Some(decoded(files.clone(), Some(metadata), None))
        );
        let frame = encode(files.iter().map(PathBuf::as_path), None);
        assert_eq!(
            decode(frame.to_vec()),
            Some(decoded(files.clone(), None, None))
        );
        let frame = globbed(&[], &[], 1);
        assert_eq!(
            decode(frame.to_vec()),
            Some(decoded(Vec::new(), Some(Vec::new()), None))
        );
        let spans = vec![
            None,
            Some(FileSpans {
                size: 900,
                mtime_ns: -3,
                ctime_ns: 4,
                ino: u64::MAX,
                spans: vec![(0, 10, 1), (500, 20, 40)],
            }),
            None,
        ];
        let frame = encode(files.iter().map(PathBuf::as_path), Some(&spans));
        assert_eq!(
            decode(frame.to_vec()),
            Some(decoded(files, None, Some(spans)))
        );
    }

    #[test]
    fn a_frame_encoded_in_parallel_is_the_one_encoded_on_one_thread() {
        // Past `PARALLEL_SHARE` files a thread, the shares go to two and three threads.
        for count in [0usize, 1, 2, 7, 1000, 2 * PARALLEL_SHARE + 5, 40_000] {
            let files = paths(
                &(0..count)
                    .map(|i| format!("dir{}/file_{}.c", i % 5, "x".repeat(i % 13)).into_bytes())
                    .collect::<Vec<_>>()
                    .iter()
                    .map(Vec::as_slice)
                    .collect::<Vec<_>>(),
            );
            let metadata: Vec<Option<(i64, u64)>> = (0..count)
                .map(|i| (i % 4 != 0).then_some((i as i64 * 1_000 - 7, i as u64 * 3)))
                .collect();
            let one = globbed(&files, &metadata, 1);
            let decoded = decode(one.clone()).unwrap();
            assert!(decoded.paths == block(&files), "{count} files' paths");
            assert!(
                decoded.metadata == Some(metadata.clone()),
                "{count} files' metadata"
            );
            for threads in [2, 3, 8] {
                let parallel = globbed(&files, &metadata, threads);
                assert!(parallel == one, "{count} files on {threads} threads");
            }
        }
    }

    #[test]
    fn a_frame_cut_short_or_too_long_is_refused() {
        let files = paths(&[b"a.c", b"src/b.c"]);
        let metadata = vec![Some((1, 2)), Some((3, 4))];
        let spans = vec![
            Some(FileSpans {
                size: 9,
                mtime_ns: 1,
                ctime_ns: 2,
                ino: 3,
                spans: vec![(0, 4, 1)],
            }),
            None,
        ];
        let spanned = encode(files.iter().map(PathBuf::as_path), Some(&spans));
        for frame in [globbed(&files, &metadata, 1), spanned] {
            assert!(decode(frame.clone()).is_some());
            for cut in 0..frame.len() {
                assert_eq!(
                    decode(frame[..cut].to_vec()),
                    None,
                    "cut at {cut} of {}",
                    frame.len()
                );
            }
            let mut longer = frame.clone();
            longer.push(b'x');
            assert_eq!(decode(longer.to_vec()), None);
        }
    }

    #[test]
    fn a_corrupt_frame_is_refused() {
        let files = paths(&[b"a.c", b"b.c"]);
        let metadata = vec![Some((1, 2)), None];
        let good = globbed(&files, &metadata, 1);
        let corrupt = |at: usize, byte: u8| {
            let mut bad = good.clone();
            bad[at] = byte;
            bad
        };
        // A count far over what the frame holds (never allocated for).
        let mut huge = good.clone();
        huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(decode(huge.to_vec()), None);
        // Unknown flags; a presence byte other than 0 or 1.
        assert_eq!(decode(corrupt(4, 0x84).to_vec()), None);
        // A span count far over what the frame holds (never allocated for).
        let one = [Some(FileSpans {
            size: 9,
            mtime_ns: 1,
            ctime_ns: 2,
            ino: 3,
            spans: vec![(0, 4, 1)],
        })];
        let mut spanned = encode([Path::new("a")].into_iter(), Some(&one));
        spanned[9..13].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(decode(spanned.to_vec()), None);
        assert_eq!(decode(corrupt(5 + 8, 2).to_vec()), None);
        // A path length pointing past the end.
        let mut long_path = good.clone();
        long_path[5..9].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(decode(long_path.to_vec()), None);
        // A NUL inside a path; an empty path.
        let last = good.len() - 1;
        assert_eq!(decode(corrupt(last, 0).to_vec()), None);
        let empty = encode([Path::new("")].into_iter(), None);
        assert_eq!(decode(empty.to_vec()), None);
    }
}
