//! The daemon's server: the single-instance lock, the socket, one thread per connection
//! (bounded in number, each with read and write time limits, so a silent, slow or dead client
//! holds only its own thread), the ops (`ping`, `status`, `stop`, `select`, `glob`), and the idle
//! exit.
//!
//! Start-up order matters: the lock (`flock` on a file beside the socket) is taken before a
//! stale socket is unlinked and the new one bound. Two starters racing on the socket alone
//! could each unlink the other's freshly bound socket; with the lock, the loser leaves
//! everything as it is.

use super::dir::{self, SOCKET_NAME};
use super::proto::{self, FrameError, MAX_REQUEST};
use super::roots::{BadRequest, Roots};
use super::wire::{self, Envelope, Reply, Request};
use crate::fs::dir::Dir;
use rustix::event::{PollFd, PollFlags};
use std::io;
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Connections served at once; more are told so and closed.
pub const MAX_CONNECTIONS: usize = 64;
/// A connection that sends nothing (or not the rest of a message) for this long is closed.
const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// A whole request must arrive within this long of its first byte: a client trickling bytes
/// (each in time for `READ_TIMEOUT`) holds a connection slot no longer than that.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// A client that does not read its reply within this long is dropped.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// How often the accept loop looks at the stop flag, the idle time and the socket.
const TICK: Duration = Duration::from_millis(200);
/// Quiet for this long (no request, no background work), the daemon hands the heap its
/// requests and background jobs freed back to the kernel (see `release_freed_memory`).
const TRIM_AFTER: Duration = Duration::from_millis(500);

pub struct ServeOptions {
    /// Exit after this long without a request (and no background work).
    pub idle: Duration,
}

pub enum Outcome {
    /// Served until stopped or idle.
    Served,
    /// Another daemon holds the lock (its pid, when it answers).
    AlreadyRunning,
}

struct Shared {
    roots: Roots,
    stop: AtomicBool,
    active: AtomicUsize,
    queries: AtomicU64,
    connections: AtomicU64,
    refused: AtomicU64,
    /// A large request (a `files` store) is being read or served.
    large_request: AtomicBool,
    last_activity: Mutex<Instant>,
    started: SystemTime,
    started_at: Instant,
    idle: Duration,
    socket: String,
}

impl Shared {
    /// A daemon's state as it starts serving.
    fn new(idle: Duration, socket: String) -> Shared {
        Shared {
            roots: Roots::default(),
            stop: AtomicBool::new(false),
            active: AtomicUsize::new(0),
            queries: AtomicU64::new(0),
            connections: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            large_request: AtomicBool::new(false),
            last_activity: Mutex::new(Instant::now()),
            started: SystemTime::now(),
            started_at: Instant::now(),
            idle,
            socket,
        }
    }
}

/// Serves until stopped, idle, its socket is taken away, or `interrupted()` says so (checked
/// every tick: the host's signals).
pub fn serve(options: ServeOptions, interrupted: &dyn Fn() -> bool) -> io::Result<Outcome> {
    let path = dir::socket_dir().ok_or_else(|| {
        io::Error::other("no directory for the daemon's socket: set XDG_RUNTIME_DIR or HOME")
    })?;
    let socket_dir = dir::open_dir(&path, true)?;
    let lock = dir::open_lock(&socket_dir)?;
    if !crate::fs::dir::try_lock(&lock)? {
        return Ok(Outcome::AlreadyRunning);
    }
    // Under the lock: whatever is at the socket's name is a dead daemon's.
    match socket_dir.remove_file(SOCKET_NAME) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let listener = UnixListener::bind(dir::socket_path(&socket_dir))?;
    socket_dir.set_entry_mode(SOCKET_NAME, 0o600)?;
    let inode = dir::check_socket(&socket_dir)?;
    listener.set_nonblocking(true)?;
    let shared = Arc::new(Shared::new(
        options.idle,
        path.join(SOCKET_NAME).display().to_string(),
    ));
    let result = accept_loop(&listener, &socket_dir, inode, &shared, interrupted);
    // Still under the lock: the socket at the name is ours, unless someone replaced it.
    if dir::check_socket(&socket_dir).ok() == Some(inode) {
        let _ = socket_dir.remove_file(SOCKET_NAME);
    }
    drop(lock);
    result.map(|()| Outcome::Served)
}

fn accept_loop(
    listener: &UnixListener,
    socket_dir: &Dir,
    inode: u64,
    shared: &Arc<Shared>,
    interrupted: &dyn Fn() -> bool,
) -> io::Result<()> {
    let timeout = rustix::event::Timespec {
        tv_sec: 0,
        tv_nsec: TICK.as_nanos() as i64,
    };
    // The last activity after which the heap was handed back: once per quiet spell.
    let mut trimmed_after: Option<Instant> = None;
    loop {
        if shared.stop.load(Ordering::Acquire) || interrupted() {
            return Ok(());
        }
        let last_activity = *shared.last_activity.lock().unwrap();
        let quiet = shared.active.load(Ordering::Acquire) == 0 && !shared.roots.busy();
        if quiet && last_activity.elapsed() >= shared.idle {
            return Ok(());
        }
        // glibc keeps what threads free in their arenas: a large reply, a catch-up's last
        // tables freed after its own trim, would stay resident for the daemon's life.
        if quiet && last_activity.elapsed() >= TRIM_AFTER && trimmed_after != Some(last_activity) {
            crate::index::build::release_freed_memory();
            trimmed_after = Some(last_activity);
        }
        // Removed or replaced by hand: nobody can reach this daemon any more.
        if dir::check_socket(socket_dir).ok() != Some(inode) {
            return Ok(());
        }
        let mut fds = [PollFd::new(listener, PollFlags::IN)];
        match rustix::event::poll(&mut fds, Some(&timeout)) {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
        loop {
            match listener.accept() {
                Ok((stream, _)) => accept(stream, shared),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // A connection gone before it was accepted, out of descriptors: keep serving.
                Err(_) => break,
            }
        }
    }
}

fn accept(stream: UnixStream, shared: &Arc<Shared>) {
    // Another user's process is closed on without a word.
    let peer = rustix::net::sockopt::socket_peercred(&stream);
    if peer.map(|c| c.uid.as_raw()).ok() != Some(dir::my_uid()) {
        shared.refused.fetch_add(1, Ordering::Relaxed);
        return;
    }
    shared.connections.fetch_add(1, Ordering::Relaxed);
    if shared.active.fetch_add(1, Ordering::AcqRel) >= MAX_CONNECTIONS {
        shared.active.fetch_sub(1, Ordering::AcqRel);
        let _ = stream.set_nonblocking(true);
        let reply = proto::error_reply(
            "BusyError",
            "the daemon is serving too many connections; scan meanwhile",
        );
        let _ = send(&stream, &reply);
        return;
    }
    let me = shared.clone();
    let spawned = std::thread::Builder::new()
        .name("codesift-daemon-conn".into())
        .spawn(move || {
            connection(stream, &me);
            *me.last_activity.lock().unwrap() = Instant::now();
            me.active.fetch_sub(1, Ordering::AcqRel);
        });
    if spawned.is_err() {
        shared.active.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Sends one reply, never raising SIGPIPE on a client that went away.
fn send(stream: &UnixStream, reply: &impl serde::Serialize) -> io::Result<()> {
    let body = serde_json::to_vec(reply).map_err(io::Error::other)?;
    send_frame(stream, &body)
}

fn connection(mut stream: UnixStream, shared: &Shared) {
    if stream.set_nonblocking(false).is_err()
        || stream.set_read_timeout(Some(READ_TIMEOUT)).is_err()
        || stream.set_write_timeout(Some(WRITE_TIMEOUT)).is_err()
    {
        return;
    }
    loop {
        let mut large = None;
        let mut busy = false;
        let read = proto::read_frame_with(&mut Deadline::new(&stream, REQUEST_TIMEOUT), |word| {
            let (len, marked) = proto::request_header(word);
            if len <= MAX_REQUEST {
                return Ok(len);
            }
            // Only a request its client marked as large is read past the usual cap: an
            // unmarked one is refused from its header, whatever else is in flight.
            if !marked || len > proto::MAX_LARGE_REQUEST {
                return Err(len);
            }
            large = LargeRequest::take(&shared.large_request);
            busy = large.is_none();
            large.as_ref().map(|_| len).ok_or(len)
        });
        let body = match read {
            Ok(body) => body,
            Err(FrameError::TooLarge(n)) => {
                let reply = if busy {
                    proto::error_reply(
                        "BusyError",
                        format!(
                            "a request of {n} bytes waits for another large one to be served; \
                             send it again later"
                        ),
                    )
                } else {
                    proto::error_reply(
                        "InvalidArgumentError",
                        format!(
                            "a request of {n} bytes is over the limit of {MAX_REQUEST} bytes \
                             (only a `files` store, marked as large, may be longer)"
                        ),
                    )
                };
                refuse_and_close(&mut stream, &reply);
                return;
            }
            Err(_) => return, // closed, cut short, silent or trickled too long
        };
        if stream.set_read_timeout(Some(READ_TIMEOUT)).is_err() {
            return;
        }
        *shared.last_activity.lock().unwrap() = Instant::now();
        shared.queries.fetch_add(1, Ordering::Relaxed);
        let parsed = wire::parse(&body);
        let answered = match parsed.request {
            Ok(envelope) if large.is_some() && !envelope.request.is_files_store() => {
                Answered::json(&proto::error_reply(
                    "InvalidArgumentError",
                    format!(
                        "a request of {} bytes is over the limit of {MAX_REQUEST} bytes and \
                         not a `files` store",
                        body.len()
                    ),
                ))
            }
            request => {
                // Taken at once, before any work: the client passes over a daemon that does
                // not say so within milliseconds (stopped, stuck), and checks the version.
                if parsed.hello && send(&stream, &proto::hello()).is_err() {
                    return;
                }
                match request {
                    Err(refused) => Answered::json(&refused),
                    Ok(envelope) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        dispatch(envelope, shared)
                    }))
                    .unwrap_or_else(|_| {
                        let why = "the daemon failed on this request; scan";
                        Answered::json(&proto::error_reply("InternalError", why))
                    }),
                }
            }
        };
        drop(body);
        drop(large);
        if send_frame(&stream, &answered.body).is_err() {
            return;
        }
        if let Some(frame) = answered.frame
            && send_frame(&stream, &frame).is_err()
        {
            return;
        }
    }
}

/// A reply as sent: its JSON, and the frame of bytes that follows it when it announces one
/// (a `glob` or `select` reply's `bulk_frame`, a raw `files` list's `files_frame`).
struct Answered {
    body: Vec<u8>,
    frame: Option<Vec<u8>>,
}

impl Answered {
    fn json(reply: &impl serde::Serialize) -> Answered {
        Answered::with_frame(reply, None)
    }

    fn with_frame(reply: &impl serde::Serialize, frame: Option<Vec<u8>>) -> Answered {
        let body = serde_json::to_vec(reply).unwrap_or_else(|e| {
            let failed = proto::error_reply("InternalError", format!("a reply failed: {e}"));
            serde_json::to_vec(&failed).unwrap_or_default()
        });
        Answered { body, frame }
    }
}

/// Answers a request refused from its header, then closes: its body is never read as
/// requests. Closing with unread bytes would reset the connection and could destroy the reply
/// before the client reads it: a bounded amount is read and dropped first.
fn refuse_and_close(stream: &mut UnixStream, reply: &wire::ErrorReply) {
    let _ = send(stream, reply);
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let deadline = Instant::now() + Duration::from_secs(1);
    let mut left = MAX_REQUEST;
    let mut scratch = vec![0u8; 64 << 10];
    while left > 0 {
        let wait = deadline.saturating_duration_since(Instant::now());
        if wait.is_zero() || stream.set_read_timeout(Some(wait)).is_err() {
            return;
        }
        let want = left.min(scratch.len());
        match io::Read::read(stream, &mut scratch[..want]) {
            Ok(0) => return,
            Ok(n) => left -= n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

/// Reads from `stream` until `limit` after the first byte read, then fails with `TimedOut`
/// (each read waits at most what is left; the stream's own read timeout bounds the wait for
/// the first byte).
struct Deadline<'a> {
    stream: &'a UnixStream,
    limit: Duration,
    deadline: Option<Instant>,
}

impl<'a> Deadline<'a> {
    fn new(stream: &'a UnixStream, limit: Duration) -> Deadline<'a> {
        Deadline {
            stream,
            limit,
            deadline: None,
        }
    }
}

impl io::Read for Deadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(deadline) = self.deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(io::ErrorKind::TimedOut.into());
            }
            self.stream.set_read_timeout(Some(left))?;
        }
        let n = io::Read::read(&mut &*self.stream, buf)?;
        if n > 0 && self.deadline.is_none() {
            self.deadline = Some(Instant::now() + self.limit);
        }
        Ok(n)
    }
}

/// Sends one frame of bytes, never raising SIGPIPE on a client that went away. A small body
/// goes in one buffer with its header (one `send`); a large one (a glob's or a selection's
/// bulk frame: megabytes) is sent from where it lies after its header, not copied behind it.
fn send_frame(stream: &UnixStream, body: &[u8]) -> io::Result<()> {
    const COPIED_UP_TO: usize = 64 << 10;
    if body.len() <= COPIED_UP_TO {
        return send_all(stream, &proto::frame(body)?);
    }
    send_all(stream, &proto::header(body.len())?)?;
    send_all(stream, body)
}

fn send_all(stream: &UnixStream, mut bytes: &[u8]) -> io::Result<()> {
    while !bytes.is_empty() {
        match rustix::net::send(stream, bytes, rustix::net::SendFlags::NOSIGNAL) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => bytes = &bytes[n..],
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// The one large request in flight (released when dropped).
struct LargeRequest<'a>(&'a AtomicBool);

impl<'a> LargeRequest<'a> {
    fn take(flag: &'a AtomicBool) -> Option<LargeRequest<'a>> {
        (!flag.swap(true, Ordering::AcqRel)).then_some(LargeRequest(flag))
    }
}

impl Drop for LargeRequest<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// The reply to `envelope`, with the frame of bytes it announces, if any.
fn dispatch(envelope: Envelope, shared: &Shared) -> Answered {
    let bulk = envelope.wants_bulk();
    let refused =
        |bad: BadRequest| Answered::json(&proto::error_reply("InvalidArgumentError", bad.0));
    match envelope.request {
        Request::Ping {} => Answered::json(&wire::Pong {
            ok: true,
            pid: std::process::id(),
            version: env!("CARGO_PKG_VERSION").into(),
        }),
        Request::Status {} => Answered::json(&status(shared)),
        Request::Stop {} => {
            shared.stop.store(true, Ordering::Release);
            Answered::json(&wire::Stopping {
                ok: true,
                stopping: true,
                pid: std::process::id(),
            })
        }
        Request::Select(select) => match shared.roots.select(&select, bulk) {
            Ok((reply, frame)) => Answered::with_frame(&reply, frame),
            Err(bad) => refused(bad),
        },
        Request::Glob(glob) => match shared.roots.glob(&glob, bulk) {
            Ok((reply, frame)) => Answered::with_frame(&reply, frame),
            Err(bad) => refused(bad),
        },
        Request::Files(files) => {
            let raw = files.raw;
            match shared.roots.files(files) {
                Ok(reply) => {
                    let (reply, frame) = raw_files(reply, raw);
                    Answered::with_frame(&reply, frame)
                }
                Err(bad) => refused(bad),
            }
        }
        Request::Rules(rules) => match shared.roots.rules(&rules) {
            Ok(reply) => Answered::json(&reply),
            Err(bad) => refused(bad),
        },
    }
}

/// A `files` reply asked for `raw`: its list goes out as a frame of its own after the JSON
/// (`files_frame`: its length), so that neither side escapes a whole tree's paths.
fn raw_files(reply: Reply<wire::Listing>, raw: bool) -> (Reply<wire::Listing>, Option<Vec<u8>>) {
    match reply {
        Reply::Answer(mut listing) if raw => match listing.compact.take() {
            Some(files) => {
                listing.files_frame = Some(files.0.len() as u64);
                (Reply::Answer(listing), Some(files.0))
            }
            None => (Reply::Answer(listing), None),
        },
        other => (other, None),
    }
}

/// This process's resident memory, in bytes (`/proc/self/statm`).
fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * rustix::param::page_size() as u64)
}

/// The part of the resident memory that is shared memory: the indexes' sealed in-memory
/// copies (the daemon maps no other shared memory), shown apart so that what the daemon
/// itself holds is visible.
fn rss_shared_bytes() -> Option<u64> {
    proc_status_bytes("RssShmem:")
}

/// A size field of `/proc/self/status` (given in KiB there), in bytes.
fn proc_status_bytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn status(shared: &Shared) -> wire::Status {
    let roots = shared.roots.status();
    let index_bytes: u64 = roots.iter().map(|r| r.index.bytes).sum();
    wire::Status {
        ok: true,
        pid: std::process::id(),
        uid: dir::my_uid(),
        version: env!("CARGO_PKG_VERSION").into(),
        socket: shared.socket.clone(),
        started: shared
            .started
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        uptime_seconds: shared.started_at.elapsed().as_secs(),
        idle_exit_seconds: shared.idle.as_secs_f64(),
        queries: shared.queries.load(Ordering::Relaxed),
        connections: wire::Connections {
            taken: shared.connections.load(Ordering::Relaxed),
            active: shared.active.load(Ordering::Relaxed) as u64,
            refused: shared.refused.load(Ordering::Relaxed),
        },
        memory: wire::Memory {
            rss_bytes: rss_bytes(),
            rss_index_copies_bytes: rss_shared_bytes(),
            peak_rss_bytes: proc_status_bytes("VmHWM:"),
            index_bytes,
        },
        max_roots: super::roots::MAX_ROOTS as u64,
        roots,
    }
}

#[cfg(test)]
mod raw_tests {
    use super::*;
    use serde_json::{Value, json};

    fn shared_for_test() -> Shared {
        Shared::new(Duration::from_secs(60), String::new())
    }

    /// Serves `connection` on one end of a pair; the other end is returned, with a read
    /// timeout well under the daemon's whole-request limit (a wait for a body that never
    /// comes would show as a timeout).
    fn served_pair() -> (UnixStream, std::thread::JoinHandle<()>) {
        let (server, client) = UnixStream::pair().unwrap();
        client.set_read_timeout(Some(REQUEST_TIMEOUT / 3)).unwrap();
        let serving = std::thread::spawn(move || connection(server, &shared_for_test()));
        (client, serving)
    }

    fn reply_of(client: &mut UnixStream) -> Result<Value, FrameError> {
        proto::read_frame(client, proto::MAX_REPLY)
            .map(|body| serde_json::from_slice(&body).unwrap())
    }

    #[test]
    fn frames_small_and_large_are_read_back_whole() {
        let (server, mut client) = UnixStream::pair().unwrap();
        let bodies: Vec<Vec<u8>> = [10usize, 64 << 10, (64 << 10) + 1, 3 << 20]
            .iter()
            .map(|&n| (0..n).map(|i| (i % 251) as u8).collect())
            .collect();
        let sent = bodies.clone();
        let sender = std::thread::spawn(move || {
            for body in &sent {
                send_frame(&server, body).unwrap();
            }
        });
        for body in &bodies {
            let read = proto::read_frame(&mut client, proto::MAX_REPLY).unwrap();
            assert_eq!(read.len(), body.len());
            assert!(
                read == *body,
                "a frame of {} bytes came back changed",
                body.len()
            );
        }
        sender.join().unwrap();
    }

    #[test]
    fn an_unmarked_long_request_is_refused_at_its_header_not_fed_what_follows() {
        let (mut client, serving) = served_pair();
        // Announced as 3 MiB (under the large cap), a little of it sent, then a whole ping:
        // the ping must never be read as the rest of the long request.
        let mut wire = (3u32 << 20).to_be_bytes().to_vec();
        wire.extend_from_slice(&[b'{'; 1000]);
        wire.extend_from_slice(&proto::frame(br#"{"op":"ping"}"#).unwrap());
        io::Write::write_all(&mut client, &wire).unwrap();
        let reply = reply_of(&mut client);
        let message = reply
            .as_ref()
            .ok()
            .and_then(|r| r["error"]["message"].as_str())
            .unwrap_or_default()
            .to_owned();
        assert!(
            message.contains("over the limit"),
            "expected an over-the-limit error at once, got {reply:?}"
        );
        match reply_of(&mut client) {
            Err(FrameError::Closed) => {}
            Err(FrameError::Io(e)) if e.kind() == io::ErrorKind::ConnectionReset => {}
            other => panic!("expected the connection closed after the refusal, got {other:?}"),
        }
        serving.join().unwrap();
    }

    #[test]
    fn a_marked_large_request_is_read_and_must_be_a_files_store() {
        let (mut client, serving) = served_pair();
        let padding = "x".repeat(MAX_REQUEST);
        let ping = serde_json::to_vec(&json!({"op": "ping", "pad": padding})).unwrap();
        io::Write::write_all(&mut client, &proto::request_frame(&ping).unwrap()).unwrap();
        let reply = reply_of(&mut client).unwrap();
        let message = reply["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("not a `files` store"), "{reply}");
        // The connection goes on: the whole large request was read.
        io::Write::write_all(
            &mut client,
            &proto::request_frame(br#"{"op":"ping"}"#).unwrap(),
        )
        .unwrap();
        assert_eq!(reply_of(&mut client).unwrap()["ok"], json!(true));
        drop(client);
        serving.join().unwrap();
    }

    #[test]
    fn a_request_trickled_past_its_deadline_is_dropped() {
        let (server, client) = UnixStream::pair().unwrap();
        server.set_read_timeout(Some(READ_TIMEOUT)).unwrap();
        let body = vec![b'x'; 60];
        let trickler = std::thread::spawn(move || {
            let mut client = client;
            let framed = proto::frame(&body).unwrap();
            // Each byte well within the read timeout, the whole far past the deadline.
            for byte in framed {
                if io::Write::write_all(&mut client, &[byte]).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let read = proto::read_frame_with(
            &mut Deadline::new(&server, Duration::from_millis(200)),
            |word| Ok(word as usize),
        );
        match read {
            Err(FrameError::Io(e)) => assert!(
                matches!(
                    e.kind(),
                    io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
                ),
                "{e}"
            ),
            other => panic!("expected the trickled request dropped, got {other:?}"),
        }
        drop(server);
        trickler.join().unwrap();
    }

    #[test]
    fn a_request_sent_at_once_is_read_whole() {
        let (server, mut client) = UnixStream::pair().unwrap();
        server.set_read_timeout(Some(READ_TIMEOUT)).unwrap();
        proto::write_frame(&mut client, b"{\"op\":\"status\"}").unwrap();
        let read = proto::read_frame_with(
            &mut Deadline::new(&server, Duration::from_millis(200)),
            |word| Ok(word as usize),
        );
        assert_eq!(read.unwrap(), b"{\"op\":\"status\"}");
    }

    #[test]
    fn a_files_list_asked_raw_goes_in_a_frame_of_its_own() {
        let listing = wire::Listing {
            ok: true,
            compact: Some(crate::daemon::front_coding::Compact(b"a.c\nb.c\n".to_vec())),
            generation: Some(7),
            ..Default::default()
        };
        let (json_part, raw) = raw_files(Reply::Answer(listing.clone()), true);
        assert_eq!(raw.as_deref(), Some(&b"a.c\nb.c\n"[..]));
        assert_eq!(
            serde_json::to_value(&json_part).unwrap(),
            json!({"ok": true, "files_frame": 8, "generation": 7})
        );
        let (kept, raw) = raw_files(Reply::Answer(listing.clone()), false);
        assert!(raw.is_none());
        assert_eq!(
            serde_json::to_value(&kept).unwrap(),
            json!({"ok": true, "compact": "YS5jCmIuYwo=", "generation": 7})
        );
        let miss = wire::Listing {
            ok: true,
            miss: Some("1:0".into()),
            ..Default::default()
        };
        let (miss_part, raw) = raw_files(Reply::Answer(miss), true);
        assert!(raw.is_none());
        assert_eq!(
            serde_json::to_value(&miss_part).unwrap(),
            json!({"ok": true, "miss": "1:0", "generation": null})
        );
    }
}
