//! Asking the daemon: find the socket directory, check it is a private directory of ours and
//! the socket a socket of ours, connect without blocking (a daemon that is starting, stuck or
//! gone is no answer, never a wait), check the peer is our uid (`SO_PEERCRED`), send one
//! request and read one reply within a time limit. `ask` turns every problem into `None`:
//! the caller scans.

use super::dir::{self, SOCKET_NAME};
use super::proto::{self, MAX_REPLY};
use crate::cancel::CancelToken;
use crate::fs::dir::Dir;
use rustix::net::{AddressFamily, SocketAddrUnix, SocketFlags, SocketType};
use serde_json::Value;
use std::io;
use std::os::unix::net::UnixStream;
use std::time::Duration;

/// Connects to the daemon of this user, checked (see the module doc).
pub fn connect() -> io::Result<UnixStream> {
    connect_with_pid().map(|(stream, _)| stream)
}

/// `connect`, with the pid of the process serving the socket, as the kernel recorded it
/// when that process started listening (`SO_PEERCRED`): known even when the daemon does not
/// answer, since the kernel queues a connection to a stopped or stuck process for it.
pub fn connect_with_pid() -> io::Result<(UnixStream, Option<u32>)> {
    let path = dir::socket_dir()
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no socket directory known"))?;
    let socket_dir = match dir::open_dir(&path, false) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "no daemon is running",
            ));
        }
        other => other?,
    };
    connect_in(&socket_dir)
}

fn connect_in(socket_dir: &Dir) -> io::Result<(UnixStream, Option<u32>)> {
    match dir::check_socket(socket_dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "no daemon is running",
            ));
        }
        other => other?,
    };
    let socket = rustix::net::socket_with(
        AddressFamily::UNIX,
        SocketType::STREAM,
        SocketFlags::CLOEXEC | SocketFlags::NONBLOCK,
        None,
    )?;
    let address = SocketAddrUnix::new(dir::through_fd(socket_dir, SOCKET_NAME))?;
    match rustix::net::connect(&socket, &address) {
        Ok(()) => {}
        // A full backlog: the daemon is not keeping up. Not waited for.
        Err(rustix::io::Errno::AGAIN | rustix::io::Errno::INPROGRESS) => {
            return Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                "the daemon is not accepting connections",
            ));
        }
        Err(rustix::io::Errno::CONNREFUSED | rustix::io::Errno::NOENT) => {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "no daemon is running (a stale socket)",
            ));
        }
        Err(e) => return Err(e.into()),
    }
    let peer = rustix::net::sockopt::socket_peercred(&socket)?;
    if peer.uid.as_raw() != dir::my_uid() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "the daemon's socket is served by uid {}, not by you",
                peer.uid.as_raw()
            ),
        ));
    }
    let stream = UnixStream::from(socket);
    stream.set_nonblocking(false)?;
    // None when the daemon is in another pid namespace (the kernel then reports no pid).
    Ok((stream, u32::try_from(peer.pid.as_raw_nonzero().get()).ok()))
}

/// Sends `request` and reads the reply, each within `timeout`.
pub fn request(request: &Value, timeout: Duration) -> io::Result<Value> {
    request_with_pid(request, timeout).0
}

/// `request`, with the serving process's pid once connected (see `connect_with_pid`): a
/// daemon that took no reply in time still has one.
pub fn request_with_pid(request: &Value, timeout: Duration) -> (io::Result<Value>, Option<u32>) {
    match connect_with_pid() {
        Ok((mut stream, pid)) => (exchange(&mut stream, request, timeout), pid),
        Err(e) => (Err(e), None),
    }
}

pub fn exchange(stream: &mut UnixStream, request: &Value, timeout: Duration) -> io::Result<Value> {
    exchange_up_to(stream, request, timeout, proto::MAX_REQUEST)
}

/// `request` for a search holding `cancel`: the wait for the reply ends (an error) as
/// soon as the token is cancelled (checked every `CANCEL_CHECK`), so a cancelled search or
/// Ctrl-C never waits out a daemon that does not answer.
pub fn request_cancellable(
    request: &Value,
    timeout: Duration,
    cancel: &CancelToken,
) -> io::Result<Value> {
    let mut stream = connect()?;
    exchange_with(
        &mut stream,
        request,
        timeout,
        proto::MAX_REQUEST,
        Some(cancel),
    )
}

/// How often a cancellable wait for the daemon looks at its token.
const CANCEL_CHECK: Duration = Duration::from_millis(20);

/// Reads from the daemon's stream until `deadline`, in slices of `CANCEL_CHECK` between
/// which `cancel` is looked at.
struct Cancellable<'a> {
    stream: &'a UnixStream,
    deadline: std::time::Instant,
    cancel: &'a CancelToken,
}

impl io::Read for Cancellable<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.cancel.is_cancelled() {
                // Not `Interrupted`: readers retry on that.
                return Err(io::Error::other("cancelled while waiting for the daemon"));
            }
            let left = self
                .deadline
                .saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Err(io::ErrorKind::TimedOut.into());
            }
            self.stream.set_read_timeout(Some(left.min(CANCEL_CHECK)))?;
            match io::Read::read(&mut &*self.stream, buf) {
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => return other,
            }
        }
    }
}

/// `exchange` for a request of up to `max_request` bytes (the daemon takes one request over
/// its usual limit at a time, up to `proto::MAX_LARGE_REQUEST`).
pub fn exchange_up_to(
    stream: &mut UnixStream,
    request: &Value,
    timeout: Duration,
    max_request: usize,
) -> io::Result<Value> {
    exchange_with(stream, request, timeout, max_request, None)
}

fn exchange_with(
    stream: &mut UnixStream,
    request: &Value,
    timeout: Duration,
    max_request: usize,
    cancel: Option<&CancelToken>,
) -> io::Result<Value> {
    let waited = timeout.max(Duration::from_millis(1));
    stream.set_read_timeout(Some(waited))?;
    stream.set_write_timeout(Some(waited))?;
    let body = serde_json::to_vec(request).map_err(io::Error::other)?;
    // A request over the daemon's limit is refused here, not sent.
    if body.len() > max_request {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the request is over the daemon's size limit",
        ));
    }
    let bytes = proto::request_frame(&body)?;
    let mut rest: &[u8] = &bytes;
    while !rest.is_empty() {
        match rustix::net::send(&*stream, rest, rustix::net::SendFlags::NOSIGNAL) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => rest = &rest[n..],
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let read = match cancel {
        Some(cancel) => proto::read_frame(
            &mut Cancellable {
                stream,
                deadline: std::time::Instant::now() + waited,
                cancel,
            },
            MAX_REPLY,
        ),
        None => proto::read_frame(stream, MAX_REPLY),
    };
    let reply = read.map_err(|e| match e {
        proto::FrameError::Io(e)
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            io::Error::new(
                io::ErrorKind::TimedOut,
                format!("no reply within {:.1} s", waited.as_secs_f64()),
            )
        }
        proto::FrameError::Io(e) => e,
        other => io::Error::other(other.to_string()),
    })?;
    serde_json::from_slice(&reply).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// `request`, with any problem (no daemon, a refused directory or socket, a timeout, a
/// malformed reply) as `None`: the caller scans.
pub fn ask(request_body: &Value, timeout: Duration) -> Option<Value> {
    request(request_body, timeout).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancelled_wait_for_a_daemon_that_never_answers_ends_at_once() {
        let tmp = tempfile::tempdir().unwrap();
        let socket_dir = dir::open_dir(&tmp.path().join("codesift"), true).unwrap();
        let _listener =
            std::os::unix::net::UnixListener::bind(dir::through_fd(&socket_dir, SOCKET_NAME))
                .unwrap();
        let (mut stream, _) = connect_in(&socket_dir).unwrap();
        let cancel = CancelToken::new();
        let canceller = cancel.clone();
        let later = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            canceller.cancel();
        });
        let started = std::time::Instant::now();
        let error = exchange_with(
            &mut stream,
            &serde_json::json!({"op": "status"}),
            Duration::from_secs(600),
            proto::MAX_REQUEST,
            Some(&cancel),
        )
        .unwrap_err();
        later.join().unwrap();
        assert!(error.to_string().contains("cancelled"), "{error}");
        // Not a benchmark: the wait would otherwise last its 600 s.
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn a_daemon_that_never_answers_is_named_by_its_pid_and_times_out() {
        let tmp = tempfile::tempdir().unwrap();
        let socket_dir = dir::open_dir(&tmp.path().join("codesift"), true).unwrap();
        // Listening but never accepting, as a stopped daemon: the kernel queues the
        // connection and records who listens.
        let _listener =
            std::os::unix::net::UnixListener::bind(dir::through_fd(&socket_dir, SOCKET_NAME))
                .unwrap();
        let (mut stream, pid) = connect_in(&socket_dir).unwrap();
        assert_eq!(pid, Some(std::process::id()));
        let error = exchange(
            &mut stream,
            &serde_json::json!({"op": "status"}),
            Duration::from_millis(50),
        )
        .unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut, "{error}");
        assert!(error.to_string().contains("no reply within"), "{error}");
    }
}
