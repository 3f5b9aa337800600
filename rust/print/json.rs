//! JSON strings as codesift's `--json` writes them: Python's `json.dumps(...,
//! ensure_ascii=False)` (characters as they are, `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`,
//! other control characters as `\u00XX`), a name's bytes that are not UTF-8 as the `\udcXX`
//! escapes of their `surrogateescape` form.

/// Appends `bytes` (a file name: raw bytes) as a JSON string, each byte that is not UTF-8
/// written as `\udcXX` (its lone surrogate in Python, escaped).
pub fn push_json_str(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'"');
    for chunk in bytes.utf8_chunks() {
        push_escaped(out, chunk.valid().as_bytes());
        for &b in chunk.invalid() {
            out.extend_from_slice(b"\\udc");
            push_hex2(out, b);
        }
    }
    out.push(b'"');
}

/// Appends text read from a file as a JSON string, invalid UTF-8 replaced by U+FFFD (the
/// decoded text Python's JSON holds). `valid`: the caller knows the bytes are UTF-8.
pub fn push_json_text(out: &mut Vec<u8>, bytes: &[u8], valid: bool) {
    out.push(b'"');
    if valid {
        push_escaped(out, bytes);
        out.push(b'"');
        return;
    }
    for chunk in bytes.utf8_chunks() {
        push_escaped(out, chunk.valid().as_bytes());
        if !chunk.invalid().is_empty() {
            out.extend_from_slice("\u{FFFD}".as_bytes());
        }
    }
    out.push(b'"');
}

/// Bytes JSON escapes: `"`, `\\` and the control characters.
const ESCAPED: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

fn push_escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    if !bytes.iter().any(|&b| ESCAPED[usize::from(b)]) {
        out.extend_from_slice(bytes);
        return;
    }
    let mut plain = 0;
    for (at, &b) in bytes.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[plain..at]);
        plain = at + 1;
        if escape.is_empty() {
            out.extend_from_slice(b"\\u00");
            push_hex2(out, b);
        } else {
            out.extend_from_slice(escape);
        }
    }
    out.extend_from_slice(&bytes[plain..]);
}

fn push_hex2(out: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(HEX[usize::from(b >> 4)]);
    out.push(HEX[usize::from(b & 15)]);
}
