//! The daemon's wire format: each message is a 4-byte big-endian length and that many bytes
//! of JSON. Requests are capped (`MAX_REQUEST`): a longer one gets an error and the
//! connection is closed, never read into memory. Replies are capped on the client's side.
//! A request that names its `protocol` is taken with a hello (`hello`) before the daemon
//! works on it: the client knows at once that it is being served, and by which version.

use std::io::{self, Read, Write};

/// The wire's protocol number: raised whenever a request or reply changes shape.
pub const PROTOCOL: u64 = 2;

/// The daemon's hello: its protocol and version, sent as soon as it has read a request.
pub fn hello() -> serde_json::Value {
    serde_json::json!({"hello": true, "protocol": PROTOCOL, "version": env!("CARGO_PKG_VERSION")})
}

/// The largest request the daemon reads (a pattern and a few globs fit easily).
pub const MAX_REQUEST: usize = 1 << 20;
/// The largest request read when it is the only large one in flight: a `files` store
/// carrying a whole tree's list (the Linux tree's is ~3 MB). One at a time, so that many
/// clients cannot make the daemon hold many of them at once.
pub const MAX_LARGE_REQUEST: usize = 64 << 20;
/// The largest reply a client reads (a selection of every file of a large tree fits).
pub const MAX_REPLY: usize = 256 << 20;

#[derive(Debug)]
pub enum FrameError {
    /// The peer closed the connection before a new message began.
    Closed,
    /// A message announced as longer than the cap.
    TooLarge(usize),
    /// Cut short, timed out, or another I/O error.
    Io(io::Error),
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::Closed => write!(f, "the connection was closed"),
            FrameError::TooLarge(n) => write!(f, "a message of {n} bytes is over the limit"),
            FrameError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Reads one message of at most `max` bytes.
pub fn read_frame(reader: &mut impl Read, max: usize) -> Result<Vec<u8>, FrameError> {
    read_frame_with(reader, |len| len <= max)
}

/// Reads one message whose announced length `accept` takes (before any of it is read).
pub fn read_frame_with(
    reader: &mut impl Read,
    accept: impl FnOnce(usize) -> bool,
) -> Result<Vec<u8>, FrameError> {
    let mut header = [0u8; 4];
    let mut got = 0;
    while got < header.len() {
        match reader.read(&mut header[got..]) {
            Ok(0) if got == 0 => return Err(FrameError::Closed),
            Ok(0) => return Err(FrameError::Io(io::ErrorKind::UnexpectedEof.into())),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(FrameError::Io(e)),
        }
    }
    let len = u32::from_be_bytes(header) as usize;
    if !accept(len) {
        return Err(FrameError::TooLarge(len));
    }
    let mut body = vec![0u8; len];
    reader.read_exact(&mut body).map_err(FrameError::Io)?;
    Ok(body)
}

/// Writes one message (header and body in one buffer: one `send` for a small message).
pub fn frame(body: &[u8]) -> io::Result<Vec<u8>> {
    let len = u32::try_from(body.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "message too long"))?;
    let mut out = Vec::with_capacity(4 + body.len());
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(body);
    Ok(out)
}

pub fn write_frame(writer: &mut impl Write, body: &[u8]) -> io::Result<()> {
    writer.write_all(&frame(body)?)?;
    writer.flush()
}

/// An error reply: `{"error": {"type": ..., "message": ...}}`.
pub fn error_reply(kind: &str, message: impl Into<String>) -> serde_json::Value {
    serde_json::json!({"error": {"type": kind, "message": message.into()}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_round_trips() {
        let mut wire = Vec::new();
        write_frame(&mut wire, br#"{"op":"ping"}"#).unwrap();
        write_frame(&mut wire, b"").unwrap();
        let mut reader = wire.as_slice();
        assert_eq!(read_frame(&mut reader, 100).unwrap(), br#"{"op":"ping"}"#);
        assert_eq!(read_frame(&mut reader, 100).unwrap(), b"");
        assert!(matches!(
            read_frame(&mut reader, 100),
            Err(FrameError::Closed)
        ));
    }

    #[test]
    fn an_oversized_message_is_refused_before_its_body_is_read() {
        let mut wire = u32::MAX.to_be_bytes().to_vec();
        wire.extend_from_slice(b"never read");
        match read_frame(&mut wire.as_slice(), MAX_REQUEST) {
            Err(FrameError::TooLarge(n)) => assert_eq!(n, u32::MAX as usize),
            other => panic!("expected TooLarge, got {other:?}"),
        }
    }

    #[test]
    fn a_message_cut_short_is_an_error_not_a_message() {
        let mut wire = frame(b"0123456789").unwrap();
        wire.truncate(8);
        assert!(matches!(
            read_frame(&mut wire.as_slice(), 100),
            Err(FrameError::Io(_))
        ));
        assert!(matches!(
            read_frame(&mut [0u8, 0].as_slice(), 100),
            Err(FrameError::Io(_))
        ));
    }
}
