//! The binary frame that carries the bulk of a `glob` or `select` reply (protocol 3, asked
//! with `"bulk": true`): the paths as one byte block plus fixed-width little-endian arrays,
//! so that neither side builds or parses a JSON value per file (on an 86k-file tree the JSON
//! of a large glob cost more than finding its files). Layout, every integer little-endian:
//!
//! ```text
//! count: u32 | flags: u8 (bit 0: metadata follows) | path lengths: count × u32
//! [metadata present: count × u8 (0 or 1) | mtime_ms: count × i64 | size: count × u64]
//! path bytes: the paths one after another (sum of the lengths)
//! ```
//!
//! The frame must be exactly that long. Decoding trusts nothing: every length is checked
//! against the frame, and a path that is empty or holds a NUL byte is refused (callers check
//! that paths stay inside the root and are in order).

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

const HAS_METADATA: u8 = 1;

/// Encodes `paths`, with each file's `(mtime_ms, size)` when `metadata` is given (one per
/// path).
pub fn encode<'a>(
    paths: impl ExactSizeIterator<Item = &'a Path> + Clone,
    metadata: Option<&[Option<(i64, u64)>]>,
) -> Vec<u8> {
    let count = paths.len();
    let bytes: usize = paths.clone().map(|p| p.as_os_str().len()).sum();
    let meta_width = if metadata.is_some() { 17 } else { 0 };
    let mut out = Vec::with_capacity(5 + count * (4 + meta_width) + bytes);
    out.extend_from_slice(&(count as u32).to_le_bytes());
    out.push(if metadata.is_some() { HAS_METADATA } else { 0 });
    for path in paths.clone() {
        out.extend_from_slice(&(path.as_os_str().len() as u32).to_le_bytes());
    }
    if let Some(metadata) = metadata {
        debug_assert_eq!(metadata.len(), count);
        out.extend(metadata.iter().map(|m| u8::from(m.is_some())));
        for m in metadata {
            out.extend_from_slice(&m.map_or(0, |(mtime, _)| mtime).to_le_bytes());
        }
        for m in metadata {
            out.extend_from_slice(&m.map_or(0, |(_, size)| size).to_le_bytes());
        }
    }
    for path in paths {
        out.extend_from_slice(path.as_os_str().as_bytes());
    }
    out
}

/// What `encode` wrote: the paths, and the metadata when it was sent (one per path); `None`
/// for a frame of any other shape.
pub type Decoded = (Vec<PathBuf>, Option<Vec<Option<(i64, u64)>>>);

/// Reads a frame `encode` wrote; `None` if it is cut short, too long, or malformed.
pub fn decode(frame: &[u8]) -> Option<Decoded> {
    let mut rest = frame;
    let count = u32::from_le_bytes(take(&mut rest, 4)?.try_into().ok()?) as usize;
    let flags = *take(&mut rest, 1)?.first()?;
    if flags & !HAS_METADATA != 0 {
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
    let mut paths = Vec::with_capacity(count);
    for length in lengths.chunks_exact(4) {
        let length = u32::from_le_bytes(length.try_into().ok()?) as usize;
        let bytes = take(&mut rest, length)?;
        if bytes.is_empty() || bytes.contains(&0) {
            return None;
        }
        paths.push(PathBuf::from(OsStr::from_bytes(bytes)));
    }
    if !rest.is_empty() {
        return None;
    }
    Some((paths, metadata))
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

    fn paths(names: &[&[u8]]) -> Vec<PathBuf> {
        names
            .iter()
            .map(|n| PathBuf::from(OsStr::from_bytes(n)))
            .collect()
    }

    #[test]
    fn paths_and_metadata_round_trip() {
        let files = paths(&[b"a.c", b"dir/b\xff.c", "é/ü.rs".as_bytes()]);
        let metadata = vec![Some((-5, 7)), None, Some((i64::MAX, u64::MAX))];
        let frame = encode(files.iter().map(PathBuf::as_path), Some(&metadata));
        assert_eq!(decode(&frame), Some((files.clone(), Some(metadata))));
        let frame = encode(files.iter().map(PathBuf::as_path), None);
        assert_eq!(decode(&frame), Some((files, None)));
        let frame = encode(std::iter::empty(), Some(&[]));
        assert_eq!(decode(&frame), Some((Vec::new(), Some(Vec::new()))));
    }

    #[test]
    fn a_frame_cut_short_or_too_long_is_refused() {
        let files = paths(&[b"a.c", b"src/b.c"]);
        let metadata = vec![Some((1, 2)), Some((3, 4))];
        let frame = encode(files.iter().map(PathBuf::as_path), Some(&metadata));
        for cut in 0..frame.len() {
            assert_eq!(
                decode(&frame[..cut]),
                None,
                "cut at {cut} of {}",
                frame.len()
            );
        }
        let mut longer = frame.clone();
        longer.push(b'x');
        assert_eq!(decode(&longer), None);
    }

    #[test]
    fn a_corrupt_frame_is_refused() {
        let files = paths(&[b"a.c", b"b.c"]);
        let metadata = vec![Some((1, 2)), None];
        let good = encode(files.iter().map(PathBuf::as_path), Some(&metadata));
        let corrupt = |at: usize, byte: u8| {
            let mut bad = good.clone();
            bad[at] = byte;
            bad
        };
        // A count far over what the frame holds (never allocated for).
        let mut huge = good.clone();
        huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(decode(&huge), None);
        // Unknown flags; a presence byte other than 0 or 1.
        assert_eq!(decode(&corrupt(4, 0x81)), None);
        assert_eq!(decode(&corrupt(5 + 8, 2)), None);
        // A path length pointing past the end.
        let mut long_path = good.clone();
        long_path[5..9].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(decode(&long_path), None);
        // A NUL inside a path; an empty path.
        let last = good.len() - 1;
        assert_eq!(decode(&corrupt(last, 0)), None);
        let empty = encode([Path::new("")].into_iter(), None);
        assert_eq!(decode(&empty), None);
    }
}
