//! The compact form of a kept `codesift-rg --files` list (protocol 5): front coding. Each
//! path is the number of bytes it shares with the path before it, then the length of the
//! rest and the rest's bytes (both numbers LEB128 varints); the first path shares nothing.
//! A listing is in walk order, where neighbours share their directory: on the Linux tree the
//! compact list is about a fifth of the printed text, so a million files' list fits where
//! the text (~75 MB) would not.
//!
//! The client encodes what it printed and decodes what the daemon returns; the daemon keeps
//! the bytes as they are (and counts them against its bound). Decoding trusts nothing: a
//! shared length longer than the path before, a truncated or overlong varint, a rest running
//! past the end, a path holding a newline or a NUL byte, or one that is not UTF-8, refuses
//! the whole list. On the wire the store carries it as base64 text inside the JSON request
//! (`Compact`); the reply carries it as a frame of its own (`files_frame`).

use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

/// Builds the compact form of a list one path at a time, giving up (and freeing what it
/// built) once the result would be longer than `limit` bytes.
pub struct Encoder {
    out: Vec<u8>,
    previous: Vec<u8>,
    limit: usize,
    over: bool,
}

impl Encoder {
    pub fn new(limit: usize) -> Self {
        Encoder {
            out: Vec::new(),
            previous: Vec::new(),
            limit,
            over: false,
        }
    }

    /// Adds `path`; false once the list is over the limit (then nothing more is kept).
    pub fn push(&mut self, path: &[u8]) -> bool {
        if self.over {
            return false;
        }
        let shared = path
            .iter()
            .zip(&self.previous)
            .take_while(|(a, b)| a == b)
            .count();
        let rest = &path[shared..];
        put_varint(&mut self.out, shared as u64);
        put_varint(&mut self.out, rest.len() as u64);
        self.out.extend_from_slice(rest);
        if self.out.len() > self.limit {
            self.give_up();
            return false;
        }
        self.previous.truncate(shared);
        self.previous.extend_from_slice(rest);
        true
    }

    /// Stops here: what was built is freed and nothing more is kept (`finish` gives none).
    pub fn give_up(&mut self) {
        self.over = true;
        self.out = Vec::new();
        self.previous = Vec::new();
    }

    /// Whether the list went over the limit (or was given up).
    pub fn over(&self) -> bool {
        self.over
    }

    /// The bytes so far (none once over the limit).
    pub fn len(&self) -> usize {
        self.out.len()
    }

    pub fn is_empty(&self) -> bool {
        self.out.is_empty()
    }

    /// The compact list (`None` when it went over the limit).
    pub fn finish(self) -> Option<Vec<u8>> {
        (!self.over).then_some(self.out)
    }
}

/// The compact form of `paths` (no limit).
pub fn encode<'a>(paths: impl IntoIterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut encoder = Encoder::new(usize::MAX);
    for path in paths {
        encoder.push(path);
    }
    encoder.finish().unwrap_or_default()
}

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// The varint at `*at`, moving past it: `None` when truncated or over 64 bits.
fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    // Almost every number of a listing is below 128: one byte, read without the loop.
    if let Some(&byte) = bytes.get(*at).filter(|b| **b < 0x80) {
        *at += 1;
        return Some(u64::from(byte));
    }
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        let bits = u64::from(byte & 0x7f);
        if shift == 63 && bits > 1 {
            return None;
        }
        value |= bits << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// The paths of a compact list as text, each followed by a newline (the way `--files`
/// prints them), or why the list is refused.
///
/// A path holding a newline or a NUL byte is found once over the whole text (a newline
/// more than the paths counted, or any NUL) rather than path by path: two `memchr` passes
/// over megabytes cost less than two short searches a path (half a million at 6 copies of
/// the Linux tree).
pub fn decode_lines(bytes: &[u8]) -> Result<String, &'static str> {
    let mut text: Vec<u8> = Vec::with_capacity(bytes.len() * 8);
    // Where the previous path begins in `text` (it ends before the last newline).
    let mut previous = 0..0;
    let mut at = 0;
    let mut paths = 0usize;
    while at < bytes.len() {
        let shared = get_varint(bytes, &mut at).ok_or("a truncated shared length")?;
        let rest = get_varint(bytes, &mut at).ok_or("a truncated length")?;
        let shared = usize::try_from(shared)
            .ok()
            .filter(|s| *s <= previous.len())
            .ok_or("a shared length longer than the path before")?;
        let end = usize::try_from(rest)
            .ok()
            .and_then(|r| at.checked_add(r))
            .filter(|end| *end <= bytes.len())
            .ok_or("a path running past the end")?;
        let start = text.len();
        text.extend_from_within(previous.start..previous.start + shared);
        text.extend_from_slice(&bytes[at..end]);
        at = end;
        previous = start..text.len();
        text.push(b'\n');
        paths += 1;
    }
    if memchr::memchr_iter(b'\n', &text).count() != paths || memchr::memchr(0, &text).is_some() {
        return Err("a path holding a newline or a NUL byte");
    }
    String::from_utf8(text).map_err(|_| "a path that is not UTF-8")
}

/// Bytes carried as base64 text in JSON (standard alphabet, padded).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Compact(pub Vec<u8>);

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pub fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Each byte's six bits in base64, or `INVALID`.
const INVALID: u8 = 0xff;
const DECODE: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut i = 0;
    while i < 64 {
        table[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    table
};

/// The bytes of base64 text (`None` when it is not): a table lookup a character, since the
/// daemon decodes a million files' list before it answers.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.as_bytes();
    if !text.len().is_multiple_of(4) {
        return None;
    }
    let pad = text
        .iter()
        .rev()
        .take(2)
        .take_while(|c| **c == b'=')
        .count();
    let (body, tail) = text.split_at(text.len() - if pad > 0 { 4 } else { 0 });
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    for chunk in body.chunks_exact(4) {
        let [a, b, c, d] = [0, 1, 2, 3].map(|i| DECODE[chunk[i] as usize]);
        if (a | b | c | d) == INVALID || (a | b | c | d) > 63 {
            return None;
        }
        let n = (u32::from(a) << 18) | (u32::from(b) << 12) | (u32::from(c) << 6) | u32::from(d);
        out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8]);
    }
    if pad > 0 {
        let mut n = 0u32;
        for &c in &tail[..4 - pad] {
            let v = DECODE[c as usize];
            if v > 63 {
                return None;
            }
            n = (n << 6) | u32::from(v);
        }
        n <<= 6 * pad as u32;
        out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8][..3 - pad]);
    }
    Some(out)
}

impl Serialize for Compact {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64_encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for Compact {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        base64_decode(&text)
            .map(Compact)
            .ok_or_else(|| de::Error::custom("store.compact must be base64 text"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift): the cases are the same on every run.
    struct Random(u64);

    impl Random {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    fn random_paths(random: &mut Random) -> Vec<String> {
        let parts = [
            "a",
            "src",
            "drivers",
            "é",
            "日本",
            "x.c",
            "long_name_",
            "",
            "🦀",
        ];
        let mut paths: Vec<String> = Vec::new();
        for _ in 0..random.below(200) {
            let mut path = match paths.last() {
                // Often a neighbour of the path before: its directory, or a long prefix.
                Some(last) if random.below(3) > 0 => {
                    let cut = random.below(last.len() + 1);
                    let mut cut_at = cut;
                    while !last.is_char_boundary(cut_at) {
                        cut_at -= 1;
                    }
                    last[..cut_at].to_string()
                }
                _ => String::new(),
            };
            for _ in 0..random.below(4) {
                path.push_str(parts[random.below(parts.len())]);
                if random.below(2) == 0 {
                    path.push('/');
                }
            }
            if random.below(5) == 0 {
                path.push_str(&"deep/".repeat(random.below(300)));
            }
            paths.push(path);
        }
        paths
    }

    fn lines(paths: &[String]) -> String {
        paths.iter().map(|p| format!("{p}\n")).collect()
    }

    #[test]
    fn random_lists_round_trip() {
        let mut random = Random(0x9e37_79b9_7f4a_7c15);
        for case in 0..500 {
            let paths = random_paths(&mut random);
            let compact = encode(paths.iter().map(|p| p.as_bytes()));
            assert_eq!(
                decode_lines(&compact).as_deref(),
                Ok(lines(&paths).as_str()),
                "case {case}: {paths:?}"
            );
            let carried = base64_encode(&compact);
            assert_eq!(base64_decode(&carried), Some(compact), "case {case}");
        }
    }

    #[test]
    fn empty_paths_and_an_empty_list_round_trip() {
        let paths = [String::new(), "a".into(), String::new(), String::new()];
        let compact = encode(paths.iter().map(|p| p.as_bytes()));
        assert_eq!(decode_lines(&compact).unwrap(), "\na\n\n\n");
        assert_eq!(decode_lines(&encode([])).unwrap(), "");
    }

    #[test]
    fn neighbours_sharing_a_directory_are_stored_once() {
        let paths: Vec<String> = (0..1000)
            .map(|i| format!("linux/drivers/net/ethernet/intel/e1000e/file{i}.c"))
            .collect();
        let text = lines(&paths);
        let compact = encode(paths.iter().map(|p| p.as_bytes()));
        assert!(
            compact.len() * 5 < text.len(),
            "compact {} bytes against {} of text",
            compact.len(),
            text.len()
        );
    }

    #[test]
    fn hostile_lists_are_refused() {
        let good = encode([b"src/a.c".as_slice(), b"src/b.c"]);
        assert_eq!(decode_lines(&good).unwrap(), "src/a.c\nsrc/b.c\n");
        let cases: [(&[u8], &str); 9] = [
            // Shares 4 bytes with nothing.
            (&[4, 1, b'a'], "a shared length longer"),
            // "ab" then shares 3 of its 2 bytes.
            (&[0, 2, b'a', b'b', 3, 0], "a shared length longer"),
            // A varint whose continuation bit runs off the end.
            (&[0x80], "a truncated shared length"),
            (&[0, 0x80], "a truncated length"),
            (&[0, 0xff, 0xff], "a truncated length"),
            // More than 64 bits.
            (&[0xff; 11], "a truncated shared length"),
            (&[0, 5, b'a', b'b'], "running past the end"),
            (&[0, 3, b'a', b'\n', b'b'], "a newline or a NUL"),
            (&[0, 3, b'a', 0, b'b'], "a newline or a NUL"),
        ];
        for (bytes, why) in cases {
            match decode_lines(bytes) {
                Err(e) => assert!(e.contains(why), "{bytes:?}: expected {why:?}, got {e:?}"),
                Ok(text) => panic!("{bytes:?}: expected {why:?}, got {text:?}"),
            }
        }
        // Not UTF-8, and a shared prefix cutting a character in two.
        assert!(decode_lines(&[0, 2, 0xc3, b'a']).is_err());
        assert!(decode_lines(&[0, 2, 0xc3, 0xa9, 1, 1, b'x']).is_err());
        // Huge lengths do not overflow.
        let mut huge = vec![0];
        put_varint(&mut huge, u64::MAX);
        assert!(decode_lines(&huge).is_err());
    }

    #[test]
    fn an_encoder_gives_up_past_its_limit() {
        let mut encoder = Encoder::new(20);
        assert!(encoder.push(b"src/a.c"));
        assert!(encoder.push(b"src/b.c"));
        assert!(!encoder.push(b"another/directory/c.c"));
        assert!(encoder.over());
        assert_eq!(encoder.len(), 0, "what was built is freed");
        assert!(!encoder.push(b"d"));
        assert_eq!(encoder.finish(), None);
        let mut exact = Encoder::new(9);
        assert!(exact.push(b"src/a.c"), "9 bytes fit a limit of 9");
        assert_eq!(exact.finish().map(|b| b.len()), Some(9));
    }

    #[test]
    fn base64_refuses_what_is_not_base64() {
        for text in ["a", "ab=c", "a===", "ab?d", "=abc", "YQ==YWI=", "Y\u{e9}=="] {
            assert_eq!(base64_decode(text), None, "{text:?}");
        }
        assert_eq!(base64_decode("").unwrap(), b"");
        assert_eq!(base64_decode("YQ==").unwrap(), b"a");
        assert_eq!(base64_decode("YWI=").unwrap(), b"ab");
        assert_eq!(base64_encode(b"abc"), "YWJj");
    }
}
