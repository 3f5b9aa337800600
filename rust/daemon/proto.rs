//! The daemon's framing (the messages themselves are typed in `super::wire`): each message is a 4-byte big-endian length and that many bytes
//! of JSON. Requests are capped (`MAX_REQUEST`): a longer one gets an error and the
//! connection is closed, never read into memory. The one kind of request allowed over that
//! cap (a `files` store) says so in its header (`LARGE_FLAG`), so that the daemon decides from
//! the header alone: an unmarked long request is refused at once, whether or not another large
//! one is in flight, and its body is never taken for what follows it. Replies are capped on
//! the client's side. A request that names its `protocol` is taken with a hello (`hello`)
//! before the daemon works on it: the client knows at once that it is being served, and by
//! which version.

use std::io::{self, Read, Write};

/// The wire's protocol number (the requests and replies themselves: `super::wire`).
pub use super::wire::PROTOCOL;

/// The daemon's hello: its protocol and version, sent as soon as it has read a request.
pub fn hello() -> super::wire::Hello {
    super::wire::Hello::ours()
}

/// The largest request the daemon reads (a pattern and a few globs fit easily).
pub const MAX_REQUEST: usize = 1 << 20;
/// The largest request read when it is the only large one in flight: a `files` store
/// carrying a whole tree's list (the Linux tree's is ~3 MB). One at a time, so that many
/// clients cannot make the daemon hold many of them at once.
pub const MAX_LARGE_REQUEST: usize = 64 << 20;
/// Set in a request's length word by a client sending a large request (over `MAX_REQUEST`,
/// up to `MAX_LARGE_REQUEST`) on purpose; the other 31 bits are the length. Never set in a
/// reply.
pub const LARGE_FLAG: u32 = 1 << 31;
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
    read_frame_with(reader, |word| {
        let len = word as usize;
        if len <= max { Ok(len) } else { Err(len) }
    })
}

/// A request's length word: its length, and whether the client marked it as large.
pub fn request_header(word: u32) -> (usize, bool) {
    ((word & !LARGE_FLAG) as usize, word & LARGE_FLAG != 0)
}

/// Reads one message whose header `accept` takes (before any of it is read): given the
/// length word, it answers the body's length, or refuses with the length to report.
pub fn read_frame_with(
    reader: &mut impl Read,
    accept: impl FnOnce(u32) -> Result<usize, usize>,
) -> Result<Vec<u8>, FrameError> {
    let len = read_header(reader, accept)?;
    let mut body = vec![0u8; len];
    reader.read_exact(&mut body).map_err(FrameError::Io)?;
    Ok(body)
}

/// Reads a message's length word and answers the length `accept` takes from it (see
/// `read_frame_with`); the body is left to read.
pub fn read_header(
    reader: &mut impl Read,
    accept: impl FnOnce(u32) -> Result<usize, usize>,
) -> Result<usize, FrameError> {
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
    accept(u32::from_be_bytes(header)).map_err(FrameError::TooLarge)
}

/// Writes one message (header and body in one buffer: one `send` for a small message).
pub fn frame(body: &[u8]) -> io::Result<Vec<u8>> {
    frame_with(body, 0)
}

/// A request for the daemon: marked with `LARGE_FLAG` when it is over `MAX_REQUEST` (the
/// daemon takes it only as a `files` store, up to `MAX_LARGE_REQUEST`).
pub fn request_frame(body: &[u8]) -> io::Result<Vec<u8>> {
    if body.len() > MAX_LARGE_REQUEST {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the request is over the daemon's size limit",
        ));
    }
    frame_with(
        body,
        if body.len() > MAX_REQUEST {
            LARGE_FLAG
        } else {
            0
        },
    )
}

fn frame_with(body: &[u8], flags: u32) -> io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(4 + body.len());
    out.extend_from_slice(&header_with(body.len(), flags)?);
    out.extend_from_slice(body);
    Ok(out)
}

/// The header of a message of `len` bytes (for a body sent from where it lies).
pub fn header(len: usize) -> io::Result<[u8; 4]> {
    header_with(len, 0)
}

fn header_with(len: usize, flags: u32) -> io::Result<[u8; 4]> {
    let len = u32::try_from(len)
        .ok()
        .filter(|len| len & LARGE_FLAG == 0)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "message too long"))?
        | flags;
    Ok(len.to_be_bytes())
}

pub fn write_frame(writer: &mut impl Write, body: &[u8]) -> io::Result<()> {
    writer.write_all(&frame(body)?)?;
    writer.flush()
}

/// An error reply: `{"error": {"type": ..., "message": ...}}`.
pub fn error_reply(kind: &str, message: impl Into<String>) -> super::wire::ErrorReply {
    super::wire::ErrorReply::new(kind, message)
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
    fn only_a_request_over_the_usual_cap_is_marked_large() {
        let small = request_frame(b"{}").unwrap();
        assert_eq!(small[..4], 2u32.to_be_bytes());
        let body = vec![b' '; MAX_REQUEST + 1];
        let large = request_frame(&body).unwrap();
        let word = u32::from_be_bytes(large[..4].try_into().unwrap());
        assert_eq!(request_header(word), (MAX_REQUEST + 1, true));
        assert_eq!(request_header(7), (7, false));
        let too_large = vec![b' '; MAX_LARGE_REQUEST + 1];
        assert!(request_frame(&too_large).is_err());
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
