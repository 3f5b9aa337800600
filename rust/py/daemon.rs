//! The daemon's bindings: serving (the GIL released; it is taken back once a tick only to let
//! Python see its signals, so Ctrl-C and SIGTERM handlers stop the daemon), one request as
//! JSON read through the wire's types (`daemon::wire`) and sent by the checked client, starting it detached, and where its socket lives.

use crate::daemon::{client, dir, server, wire};
use crate::error::Error;
use crate::fs::spawn;
use crate::py::interrupt;
use pyo3::prelude::*;
use std::sync::Mutex;
use std::time::Duration;

/// Serves until stopped or idle for `idle` seconds: `True`, or `False` when another daemon of
/// this user already serves.
#[pyfunction]
pub fn daemon_serve(py: Python<'_>, idle: f64) -> PyResult<bool> {
    if !(idle.is_finite() && idle > 0.0) {
        return Err(
            Error::InvalidArgument("idle must be a positive number of seconds".into()).into(),
        );
    }
    let signal: Mutex<Option<PyErr>> = Mutex::new(None);
    let options = server::ServeOptions {
        idle: Duration::from_secs_f64(idle.min(1e9)),
    };
    let outcome = py.detach(|| {
        server::serve(options, &|| {
            Python::attach(|py| match py.check_signals() {
                Ok(()) => false,
                Err(e) => {
                    *signal.lock().unwrap() = Some(e);
                    true
                }
            })
        })
    });
    if let Some(e) = signal.into_inner().unwrap() {
        return Err(e);
    }
    match outcome {
        Ok(server::Outcome::Served) => Ok(true),
        Ok(server::Outcome::AlreadyRunning) => Ok(false),
        Err(e) => Err(Error::Io(format!("the daemon cannot serve: {e}")).into()),
    }
}

/// Sends one request (JSON text) to this user's daemon: `(reply, None, pid)` or `(None,
/// problem, pid)`, `pid` being the serving process's (from the kernel) once connected, else
/// `None`: a daemon that is there but does not answer is told apart from none.
#[pyfunction]
pub fn daemon_request(
    py: Python<'_>,
    request: &str,
    timeout: f64,
) -> PyResult<(Option<String>, Option<String>, Option<u32>)> {
    // Read through the wire's own types, as the daemon reads it: a request it would refuse
    // gets here the error reply it would send (never sent: nothing could come of it).
    let request = match wire::parse(request.as_bytes()).request {
        Ok(envelope) => envelope.request,
        Err(refused) => {
            let reply = serde_json::to_string(&refused)
                .map_err(|e| Error::Io(format!("cannot write an error reply: {e}")))?;
            return Ok((Some(reply), None, None));
        }
    };
    let timeout = Duration::from_secs_f64(timeout.clamp(0.001, 3600.0));
    // On a thread of its own, Ctrl-C heard while waiting: on a signal the request is left to
    // end by its own time limit (nothing of it is kept).
    let (sender, mut receiver) = std::sync::mpsc::sync_channel(1);
    std::thread::Builder::new()
        .name("codesift-daemon-request".into())
        .spawn(move || {
            let answer = match client::request_with_pid(&request, timeout) {
                (Ok(reply), pid) => (
                    Some(String::from_utf8_lossy(&reply).into_owned()),
                    None,
                    pid,
                ),
                (Err(e), pid) => (None, Some(e.to_string()), pid),
            };
            let _ = sender.send(Ok(answer));
        })
        .map_err(|e| Error::Io(format!("cannot start a thread for the request: {e}")))?;
    interrupt::wait_for(py, &mut receiver, || {}, false)
}

/// Runs `argv` as a daemon: detached, in its own session, never waited for.
#[pyfunction]
pub fn daemon_spawn(argv: Vec<String>) -> PyResult<()> {
    spawn::spawn_detached(&argv)
        .map_err(|e| Error::Io(format!("cannot start the daemon: {e}")).into())
}

/// The directory of this user's daemon socket (`None` when none can be known).
#[pyfunction]
pub fn daemon_dir() -> Option<std::path::PathBuf> {
    dir::socket_dir()
}
