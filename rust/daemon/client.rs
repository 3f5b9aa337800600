//! Asking the daemon: find the socket directory, check it is a private directory of ours and
//! the socket a socket of ours, connect without blocking (a daemon that is starting, stuck or
//! gone is no answer, never a wait), check the peer is our uid (`SO_PEERCRED`), send one
//! request and read one reply within a time limit. `ask` turns every problem into `None`:
//! the caller scans.
//!
//! Waiting never blocks a person. Every request carries the wire's protocol number and this
//! build's version; the daemon takes it with a hello (its own protocol and version) before it
//! works on it. No hello within `ACK_TIMEOUT` (a stopped, stuck or overloaded daemon): the
//! request is given up, and this process passes the daemon over (every request fails at once)
//! until it answers a ping, sent in the background at most once a second. A hello of another
//! protocol or version: the answer is not used (the caller scans), never a wrong answer from a
//! daemon of another installation. Waits are cut into slices of at most `SLICE`, each followed
//! by the caller's cancel check, so that Ctrl-C or a cancel is seen within one.

use super::dir;
use super::proto::{self, MAX_REPLY, PROTOCOL};
use super::wire::{self, Envelope, Hello, Request};
use crate::fs::dir::Dir;
use rustix::net::{AddressFamily, SocketAddrUnix, SocketFlags, SocketType};
use std::io;
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a client waits for the daemon to take a request (its hello) before passing it
/// over; `CODESIFT_DAEMON_ACK_MS` sets another (a machine under heavy load).
pub const ACK_TIMEOUT: Duration = Duration::from_millis(50);
/// The longest single wait between two cancel checks.
const SLICE: Duration = Duration::from_millis(20);
/// A passed-over daemon is pinged (in the background) at most this often.
const PING_EVERY: Duration = Duration::from_secs(1);

/// This build's version, which a daemon must share for its answers to be used.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The hello wait: `CODESIFT_DAEMON_ACK_MS` or `ACK_TIMEOUT`.
pub fn ack_timeout() -> Duration {
    std::env::var("CODESIFT_DAEMON_ACK_MS")
        .ok()
        .and_then(|ms| ms.parse::<u64>().ok())
        .filter(|ms| (1..=60_000).contains(ms))
        .map_or(ACK_TIMEOUT, Duration::from_millis)
}

/// The daemon this process passes over (by socket directory), and its background ping.
struct PassedOver {
    socket_dir: Option<PathBuf>,
    /// When the daemon was passed over.
    since: Instant,
    last_ping: Instant,
    pinging: bool,
}

static PASSED_OVER: Mutex<Option<PassedOver>> = Mutex::new(None);

/// Whether the daemon of `socket_dir` is passed over; if so, a ping is sent in the
/// background (at most once per `PING_EVERY`) whose answer ends that.
fn is_passed_over(socket_dir: &Option<PathBuf>) -> bool {
    let mut state = PASSED_OVER.lock().unwrap();
    let Some(passed) = state.as_mut().filter(|p| p.socket_dir == *socket_dir) else {
        return false;
    };
    if !passed.pinging && passed.last_ping.elapsed() >= PING_EVERY {
        passed.pinging = true;
        passed.last_ping = Instant::now();
        let spawned = std::thread::Builder::new()
            .name("codesift-daemon-ping".into())
            .spawn(|| {
                // An answer clears the state (in `ping`); none lets the next request retry.
                if ping(Duration::from_secs(2)).is_err()
                    && let Some(passed) = PASSED_OVER.lock().unwrap().as_mut()
                {
                    passed.pinging = false;
                }
            });
        if spawned.is_err() {
            passed.pinging = false;
        }
    }
    true
}

/// How long this process has passed the daemon over, if it does (for a status: the searches
/// meanwhile scan; asking this sends no ping).
pub fn passed_over_for() -> Option<Duration> {
    let socket_dir = dir::socket_dir();
    let state = PASSED_OVER.lock().unwrap();
    state
        .as_ref()
        .filter(|p| p.socket_dir == socket_dir)
        .map(|p| p.since.elapsed())
}

fn pass_over(socket_dir: Option<PathBuf>) {
    let mut state = PASSED_OVER.lock().unwrap();
    if state.as_ref().is_none_or(|p| p.socket_dir != socket_dir) {
        *state = Some(PassedOver {
            socket_dir,
            since: Instant::now(),
            last_ping: Instant::now(),
            pinging: false,
        });
    }
}

/// Asks the daemon `{"op": "ping"}`, passed over or not; an answer ends the passing over.
pub fn ping(timeout: Duration) -> io::Result<wire::Pong> {
    let reply = administer(&Request::Ping {}, timeout).0?;
    match wire::read_reply::<wire::Pong>(&reply) {
        Ok(wire::Reply::Answer(pong)) => Ok(pong),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the daemon's answer to a ping is not a pong",
        )),
    }
}

/// Sends an administrative request (`ping`, `status`, `stop`: what a person asked, sent
/// whether or not the daemon is passed over) with the whole `timeout` allowed for the hello;
/// an answer ends the passing over. With the serving process's pid once connected.
fn administer(request: &Request, timeout: Duration) -> (io::Result<Vec<u8>>, Option<u32>) {
    let (mut stream, pid) = match connect_with_pid() {
        Ok(connected) => connected,
        Err(e) => return (Err(e), None),
    };
    let reply = exchange_with(&mut stream, request, &Wait::new(timeout).ack(timeout));
    if reply.is_ok() {
        let socket_dir = dir::socket_dir();
        let mut state = PASSED_OVER.lock().unwrap();
        if state.as_ref().is_some_and(|p| p.socket_dir == socket_dir) {
            *state = None;
        }
    }
    (reply, pid)
}

fn passed_over() -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        "the daemon did not take a request in time lately; passed over until it answers a ping",
    )
}

/// How long a request may wait, and what cancels it.
pub struct Wait<'a> {
    /// For the whole reply.
    pub reply: Duration,
    /// For the daemon's hello.
    pub ack: Duration,
    /// Checked between slices of waiting: true gives the request up.
    pub cancelled: &'a dyn Fn() -> bool,
}

impl Wait<'static> {
    pub fn new(reply: Duration) -> Wait<'static> {
        Wait {
            reply,
            ack: ack_timeout().min(reply),
            cancelled: &|| false,
        }
    }
}

impl<'a> Wait<'a> {
    /// Waits up to `ack` for the hello (a daemon just started, a forced index).
    pub fn ack(self, ack: Duration) -> Wait<'a> {
        Wait { ack, ..self }
    }

    pub fn cancelled_by<'b>(self, cancelled: &'b dyn Fn() -> bool) -> Wait<'b> {
        Wait {
            reply: self.reply,
            ack: self.ack,
            cancelled,
        }
    }
}

/// Connects to the daemon of this user, checked (see the module doc); at once `TimedOut`
/// while this process passes it over.
pub fn connect() -> io::Result<UnixStream> {
    if is_passed_over(&dir::socket_dir()) {
        return Err(passed_over());
    }
    connect_checked()
}

/// A connection whatever the passing over says (see `connect_with_pid`).
fn connect_checked() -> io::Result<UnixStream> {
    connect_with_pid().map(|(stream, _)| stream)
}

/// A checked connection, with the pid of the process serving the socket, as the kernel
/// recorded it when that process started listening (`SO_PEERCRED`): known even when the
/// daemon does not answer, since the kernel queues a connection to a stopped or stuck
/// process for it. Made whether or not this process passes the daemon over.
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
    let address = SocketAddrUnix::new(dir::socket_path(socket_dir))?;
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

/// Sends `request` and reads the reply (its JSON), each within `timeout` (`ping`, `status`
/// and `stop` are sent even while the daemon is passed over).
pub fn request(request: &Request, timeout: Duration) -> io::Result<Vec<u8>> {
    request_with(request, &Wait::new(timeout))
}

/// `request` with its waits as `wait` says.
pub fn request_with(request: &Request, wait: &Wait<'_>) -> io::Result<Vec<u8>> {
    if request.is_administrative() {
        return administer(request, wait.reply).0;
    }
    let mut stream = connect()?;
    exchange_with(&mut stream, request, wait)
}

/// What a reply announces to follow it: a bulk frame of a `glob` or `select`.
#[derive(serde::Deserialize)]
struct Announced {
    #[serde(default)]
    bulk_frame: Option<u64>,
}

/// `request_with` for a `glob` or `select` asking for its files in a bulk frame
/// (`"bulk": true`, see `super::bulk`): the reply, and the frame it announces
/// (`bulk_frame`: its length, checked), read within the same time limit and cancel.
pub fn request_bulk(request: &Request, wait: &Wait<'_>) -> io::Result<(Vec<u8>, Option<Vec<u8>>)> {
    let deadline = Instant::now() + wait.reply;
    let mut stream = connect()?;
    let mut envelope = Envelope::new(request.clone());
    envelope.bulk = true;
    let reply = exchange_envelope(&mut stream, &envelope, wait, proto::MAX_REQUEST)?;
    let announced: Announced = serde_json::from_slice(&reply)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let Some(announced) = announced.bulk_frame else {
        return Ok((reply, None));
    };
    let announced = usize::try_from(announced)
        .ok()
        .filter(|n| *n <= MAX_REPLY)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "a bad bulk_frame length"))?;
    let mut reader = Sliced {
        stream: &stream,
        deadline,
        cancelled: wait.cancelled,
    };
    let len = proto::read_header(&mut reader, |word| {
        let len = word as usize;
        if len == announced { Ok(len) } else { Err(len) }
    })
    .map_err(|e| match e {
        proto::FrameError::Io(e) => e,
        other => io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the daemon's bulk frame is not the length it announced: {other}"),
        ),
    })?;
    Ok((reply, Some(reader.read_body(len)?)))
}

/// `request`, with the serving process's pid once connected (see `connect_with_pid`): a
/// daemon that took no request or gave no reply in time still has one.
pub fn request_with_pid(
    request: &Request,
    timeout: Duration,
) -> (io::Result<Vec<u8>>, Option<u32>) {
    if request.is_administrative() {
        return administer(request, timeout);
    }
    if is_passed_over(&dir::socket_dir()) {
        return (Err(passed_over()), None);
    }
    match connect_with_pid() {
        Ok((mut stream, pid)) => (exchange(&mut stream, request, timeout), pid),
        Err(e) => (Err(e), None),
    }
}

/// Sends `request` (with this build's protocol and version) and reads the reply's JSON.
pub fn exchange(
    stream: &mut UnixStream,
    request: &Request,
    timeout: Duration,
) -> io::Result<Vec<u8>> {
    exchange_with(stream, request, &Wait::new(timeout))
}

pub fn exchange_with(
    stream: &mut UnixStream,
    request: &Request,
    wait: &Wait<'_>,
) -> io::Result<Vec<u8>> {
    exchange_envelope(
        stream,
        &Envelope::new(request.clone()),
        wait,
        proto::MAX_REQUEST,
    )
}

/// `exchange` for a request of up to `max_request` bytes (the daemon takes one request over
/// its usual limit at a time, up to `proto::MAX_LARGE_REQUEST`).
pub fn exchange_up_to(
    stream: &mut UnixStream,
    request: &Request,
    timeout: Duration,
    max_request: usize,
) -> io::Result<Vec<u8>> {
    // The daemon says its hello once it has read and parsed the request: for a large one
    // (a `files` store of a million files' list) that takes longer than the usual hello
    // wait, so the hello is waited for as long as the reply. A ping first, on the same
    // connection and with the usual hello wait, finds a stopped or stuck daemon in that
    // time (and passes it over) instead of after the long one: a store at the end of a
    // `--files` run held the run's exit for the whole wait. The pong is due as soon as the
    // hello: a daemon that says hello and then stalls is passed over as fast.
    if max_request > proto::MAX_REQUEST {
        let ping = Wait::new((2 * ack_timeout()).min(timeout));
        exchange_with(stream, &Request::Ping {}, &ping)?;
    }
    exchange_envelope(
        stream,
        &Envelope::new(request.clone()),
        &Wait::new(timeout).ack(timeout),
        max_request,
    )
}

fn exchange_envelope(
    stream: &mut UnixStream,
    envelope: &Envelope,
    wait: &Wait<'_>,
    max_request: usize,
) -> io::Result<Vec<u8>> {
    let started = Instant::now();
    stream.set_write_timeout(Some(wait.reply.max(Duration::from_millis(1))))?;
    let body = serde_json::to_vec(envelope).map_err(io::Error::other)?;
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
    // The hello is due once the request is sent whole: sending a large one (a `files` store
    // of a whole tree's list) takes as long as the daemon takes to read it.
    let sent = Instant::now();
    let hello = match read_message(stream, sent + wait.ack, wait.cancelled, 4096) {
        Err(e) if e.kind() == io::ErrorKind::TimedOut => {
            pass_over(dir::socket_dir());
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "no reply within {} (the daemon did not take the request); passed over \
                     until it answers a ping",
                    shown(wait.ack)
                ),
            ));
        }
        other => other?,
    };
    check_hello(&hello)?;
    let deadline = started + wait.reply;
    let reply = match read_message(stream, deadline, wait.cancelled, MAX_REPLY) {
        Err(e) if e.kind() == io::ErrorKind::TimedOut => {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("no reply within {}", shown(wait.reply)),
            ));
        }
        other => other?,
    };
    // A frame the caller reads next (a `files` list) waits what is left, as before.
    let left = deadline.saturating_duration_since(Instant::now());
    stream.set_read_timeout(Some(left.max(Duration::from_millis(1))))?;
    Ok(reply)
}

/// A wait as a person reads it: `50 ms`, `5.0 s`.
fn shown(wait: Duration) -> String {
    if wait < Duration::from_secs(1) {
        format!("{} ms", wait.as_millis())
    } else {
        format!("{:.1} s", wait.as_secs_f64())
    }
}

/// A hello of this protocol and version, or why the answer must not be used.
fn check_hello(message: &[u8]) -> io::Result<()> {
    let hello = match serde_json::from_slice::<Hello>(message) {
        Ok(hello) if hello.hello => hello,
        _ => {
            // A reply without a hello: a daemon of an older build, or a refusal before it
            // read the request ("too many connections").
            let why = match wire::read_reply::<Hello>(message) {
                Ok(wire::Reply::Error(refused)) => format!("the daemon refused: {refused}"),
                _ => "a daemon of another codesift version (no hello)".to_string(),
            };
            return Err(io::Error::other(why));
        }
    };
    if hello.protocol != PROTOCOL || hello.version != version() {
        return Err(io::Error::other(format!(
            "the daemon is codesift {} (protocol {}), this is {} (protocol {PROTOCOL}): its \
             answers are not used; `codesift daemon stop` lets this version start its own",
            hello.version,
            hello.protocol,
            version(),
        )));
    }
    Ok(())
}

/// Reads one message of at most `max` bytes by `deadline`, checking `cancelled` between
/// slices of waiting.
fn read_message(
    stream: &mut UnixStream,
    deadline: Instant,
    cancelled: &dyn Fn() -> bool,
    max: usize,
) -> io::Result<Vec<u8>> {
    let mut reader = Sliced {
        stream,
        deadline,
        cancelled,
    };
    proto::read_frame(&mut reader, max).map_err(|e| match e {
        proto::FrameError::Io(e) => e,
        other => io::Error::other(other.to_string()),
    })
}

/// A stream read in waits of at most `SLICE`, the caller's cancel checked before each.
struct Sliced<'a> {
    stream: &'a UnixStream,
    deadline: Instant,
    cancelled: &'a dyn Fn() -> bool,
}

impl Sliced<'_> {
    /// A message's body of `len` bytes, received straight into the vector's spare room: a
    /// glob's frame of megabytes was zeroed first, then overwritten (a thirtieth of a
    /// library glob's processor time).
    fn read_body(&mut self, len: usize) -> io::Result<Vec<u8>> {
        let mut body: Vec<u8> = Vec::with_capacity(len);
        while body.len() < len {
            let want = len - body.len();
            let got = self.waiting(|stream| {
                let spare = &mut body.spare_capacity_mut()[..want];
                rustix::net::recv(stream, spare, rustix::net::RecvFlags::empty())
                    .map(|((filled, _), _)| filled.len())
                    .map_err(io::Error::from)
            })?;
            if got == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            // SAFETY: `recv` initialised the first `got` bytes of the spare room (at most
            // `want`, which is within the capacity reserved).
            unsafe { body.set_len(body.len() + got) };
        }
        Ok(body)
    }

    /// Runs `op` on the stream in waits of at most `SLICE` until it does not time out,
    /// the caller's cancel and the deadline checked before each.
    fn waiting<T>(&mut self, mut op: impl FnMut(&UnixStream) -> io::Result<T>) -> io::Result<T> {
        loop {
            if (self.cancelled)() {
                // Not `Interrupted`: readers retry that.
                return Err(io::Error::other("cancelled while waiting for the daemon"));
            }
            let left = self.deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(io::ErrorKind::TimedOut.into());
            }
            self.stream.set_read_timeout(Some(left.min(SLICE)))?;
            match op(self.stream) {
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock
                            | io::ErrorKind::TimedOut
                            | io::ErrorKind::Interrupted
                    ) => {}
                other => return other,
            }
        }
    }
}

impl io::Read for Sliced<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.waiting(|stream| io::Read::read(&mut &*stream, buf))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_a_hello_of_this_protocol_and_version_is_believed() {
        assert!(check_hello(&serde_json::to_vec(&proto::hello()).unwrap()).is_ok());
        let others = [
            json!({"hello": true, "protocol": PROTOCOL, "version": "0.0.0-other"}),
            json!({"hello": true, "protocol": PROTOCOL + 1, "version": version()}),
            json!({"hello": true, "version": version()}),
            json!({"ok": true, "pid": 1}),
            json!({"ok": false, "error": {"type": "BusyError"}}),
        ];
        for other in others {
            let body = serde_json::to_vec(&other).unwrap();
            assert!(check_hello(&body).is_err(), "{other}");
        }
    }

    #[test]
    fn a_wait_ends_at_its_deadline_or_at_once_on_a_cancel() {
        let (mut client, _silent) = UnixStream::pair().unwrap();
        let started = Instant::now();
        let timed_out = read_message(
            &mut client,
            started + Duration::from_millis(60),
            &|| false,
            64,
        );
        assert_eq!(timed_out.unwrap_err().kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() >= Duration::from_millis(60));
        let cancelled_at = Instant::now() + Duration::from_millis(40);
        let far = Instant::now() + Duration::from_secs(600);
        let cancelled = read_message(&mut client, far, &|| Instant::now() >= cancelled_at, 64);
        let err = cancelled.unwrap_err();
        assert!(err.to_string().contains("cancelled"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(60));
    }

    #[test]
    fn a_reply_split_across_slices_is_read_whole() {
        let (mut client, mut daemon) = UnixStream::pair().unwrap();
        let bytes = proto::frame(br#"{"ok": true}"#).unwrap();
        let writer = std::thread::spawn(move || {
            for byte in bytes {
                io::Write::write_all(&mut daemon, &[byte]).unwrap();
                std::thread::sleep(Duration::from_millis(3));
            }
            daemon
        });
        let far = Instant::now() + Duration::from_secs(60);
        let reply = read_message(&mut client, far, &|| false, 64).unwrap();
        assert_eq!(reply, br#"{"ok": true}"#);
        drop(writer.join().unwrap());
    }

    #[test]
    fn a_body_received_in_pieces_is_read_whole_and_one_cut_short_is_refused() {
        let (client, mut daemon) = UnixStream::pair().unwrap();
        // Larger than a socket's buffer, written in uneven pieces with pauses; then 10
        // bytes of a 20-byte body, and the daemon gone.
        let body: Vec<u8> = (0..600_000u32).map(|i| (i % 251) as u8).collect();
        let sent = body.clone();
        let writer = std::thread::spawn(move || {
            for piece in sent.chunks(77_777) {
                io::Write::write_all(&mut daemon, piece).unwrap();
                std::thread::sleep(Duration::from_millis(5));
            }
            io::Write::write_all(&mut daemon, &[7; 10]).unwrap();
        });
        let mut reader = Sliced {
            stream: &client,
            deadline: Instant::now() + Duration::from_secs(60),
            cancelled: &|| false,
        };
        let read = reader.read_body(body.len()).unwrap();
        assert!(read == body, "the body read differs from the one sent");
        writer.join().unwrap();
        let cut = reader.read_body(20).unwrap_err();
        assert_eq!(cut.kind(), io::ErrorKind::UnexpectedEof, "{cut}");
    }

    /// A socket under `tmp` listening but never accepting, as a stopped daemon (the kernel
    /// queues the connection and records who listens), and a client connected to it.
    fn connected_to_a_daemon_that_never_accepts(
        tmp: &std::path::Path,
    ) -> (std::os::unix::net::UnixListener, UnixStream, Option<u32>) {
        let socket_dir = dir::open_dir(&tmp.join("codesift"), true).unwrap();
        let listener =
            std::os::unix::net::UnixListener::bind(dir::socket_path(&socket_dir)).unwrap();
        let (stream, pid) = connect_in(&socket_dir).unwrap();
        (listener, stream, pid)
    }

    #[test]
    fn a_cancelled_wait_for_a_daemon_that_never_answers_ends_at_once() {
        let tmp = tempfile::tempdir().unwrap();
        let (_listener, mut stream, _) = connected_to_a_daemon_that_never_accepts(tmp.path());
        let cancel = crate::cancel::CancelToken::new();
        let canceller = cancel.clone();
        let later = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            canceller.cancel();
        });
        let started = Instant::now();
        let cancelled = || cancel.is_cancelled();
        let long = Duration::from_secs(600);
        let wait = Wait::new(long).ack(long).cancelled_by(&cancelled);
        let error = exchange_with(&mut stream, &Request::Status {}, &wait).unwrap_err();
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
        let (_listener, mut stream, pid) = connected_to_a_daemon_that_never_accepts(tmp.path());
        assert_eq!(pid, Some(std::process::id()));
        let wait = Wait::new(Duration::from_millis(50)).ack(Duration::from_millis(50));
        let error = exchange_with(&mut stream, &Request::Status {}, &wait).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut, "{error}");
        assert!(error.to_string().contains("no reply within"), "{error}");
    }

    #[test]
    fn a_large_request_waits_for_a_hello_the_daemon_says_after_reading_it_long() {
        let (mut client, mut daemon) = UnixStream::pair().unwrap();
        let slow_daemon = std::thread::spawn(move || {
            answer_a_ping(&mut daemon);
            proto::read_frame(&mut daemon, proto::MAX_LARGE_REQUEST).unwrap();
            // Parsing a million files' list takes longer than the usual hello wait.
            std::thread::sleep(ack_timeout() + Duration::from_millis(150));
            proto::write_frame(&mut daemon, &serde_json::to_vec(&proto::hello()).unwrap()).unwrap();
            proto::write_frame(&mut daemon, br#"{"ok": true, "stored": true}"#).unwrap();
            daemon
        });
        let reply = exchange_up_to(
            &mut client,
            &Request::Status {},
            Duration::from_secs(30),
            proto::MAX_LARGE_REQUEST,
        );
        assert_eq!(
            reply.as_deref().map_err(|e| e.to_string()),
            Ok(&br#"{"ok": true, "stored": true}"#[..])
        );
        drop(slow_daemon.join().unwrap());
    }

    /// Reads a ping and answers it as the daemon does (a hello, then a pong).
    fn answer_a_ping(daemon: &mut UnixStream) {
        let ping = proto::read_frame(daemon, proto::MAX_REQUEST).unwrap();
        let ping: Envelope = serde_json::from_slice(&ping).unwrap();
        assert!(matches!(ping.request, Request::Ping {}), "{ping:?}");
        proto::write_frame(daemon, &serde_json::to_vec(&proto::hello()).unwrap()).unwrap();
        proto::write_frame(daemon, br#"{"ok": true}"#).unwrap();
    }

    #[test]
    fn a_large_request_is_not_sent_to_a_daemon_that_says_hello_and_stalls_before_its_pong() {
        let (mut client, mut daemon) = UnixStream::pair().unwrap();
        let stalled = std::thread::spawn(move || {
            let ping = proto::read_frame(&mut daemon, proto::MAX_REQUEST).unwrap();
            let ping: Envelope = serde_json::from_slice(&ping).unwrap();
            assert!(matches!(ping.request, Request::Ping {}), "{ping:?}");
            proto::write_frame(&mut daemon, &serde_json::to_vec(&proto::hello()).unwrap()).unwrap();
            // The pong comes long after the hello, well within the request's own wait: a
            // client still waiting for it then sends its request.
            std::thread::sleep(Duration::from_secs(3));
            let _ = proto::write_frame(&mut daemon, br#"{"ok": true}"#);
            daemon.set_nonblocking(true).unwrap();
            std::thread::sleep(Duration::from_millis(200));
            proto::read_frame(&mut daemon, proto::MAX_LARGE_REQUEST).is_ok()
        });
        let reply = exchange_up_to(
            &mut client,
            &Request::Status {},
            Duration::from_secs(30),
            proto::MAX_LARGE_REQUEST,
        );
        let error = reply.unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut, "{error}");
        let request_sent = stalled.join().unwrap();
        assert!(
            !request_sent,
            "the request went to a daemon that stalled on its ping"
        );
    }

    #[test]
    fn a_large_request_is_not_sent_to_a_daemon_that_does_not_answer_a_ping() {
        let (mut client, mut daemon) = UnixStream::pair().unwrap();
        let error = exchange_up_to(
            &mut client,
            &Request::Status {},
            Duration::from_secs(5),
            proto::MAX_LARGE_REQUEST,
        )
        .unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::TimedOut, "{error}");
        // All the daemon was sent: one ping (the request waited on the ping's hello, not on
        // its own 5 s one).
        daemon.set_nonblocking(true).unwrap();
        let ping = proto::read_frame(&mut daemon, proto::MAX_REQUEST).unwrap();
        let ping: Envelope = serde_json::from_slice(&ping).unwrap();
        assert!(matches!(ping.request, Request::Ping {}), "{ping:?}");
        let mut rest = Vec::new();
        let more = io::Read::read_to_end(&mut daemon, &mut rest);
        assert_eq!(more.map_err(|e| e.kind()), Err(io::ErrorKind::WouldBlock));
        assert!(rest.is_empty(), "{} more bytes", rest.len());
    }
}
