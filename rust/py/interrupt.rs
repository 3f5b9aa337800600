//! Ctrl-C for every blocking call of the library: the engine's work runs on a worker thread
//! while the calling thread, without the GIL, wakes every `SIGNAL_CHECK` to let Python run
//! its signal handlers. A handler's exception (`KeyboardInterrupt`) cancels the call's own
//! token, waits for the work to stop (cancelled work stops within milliseconds) and is
//! raised: nothing partial comes back. Without this a search held the signal until it ended.
//!
//! The worker thread is a kept one (`crate::threads`), not one started for the call.

use crate::cancel::CancelToken;
use crate::error::Error;
use crate::py::errors::catch_panic;
use pyo3::prelude::*;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

/// How often a waiting call lets Python handle signals (Ctrl-C).
pub const SIGNAL_CHECK: Duration = Duration::from_millis(20);

/// Runs the engine's `f` (which stops when `cancel` is cancelled) on a worker thread, Ctrl-C
/// heard meanwhile (see the module doc). `cancel` should be the call's own token
/// (`CancelToken::child` of a caller's): a signal cancels it.
pub fn interruptible<T: Send>(
    py: Python<'_>,
    cancel: &CancelToken,
    f: impl FnOnce() -> Result<T, Error> + Send,
) -> PyResult<T> {
    let (sender, mut receiver) = mpsc::sync_channel(1);
    let job: Box<dyn FnOnce() + Send + '_> = Box::new(move || {
        let _ = sender.send(catch_panic(f));
    });
    // SAFETY: the job borrows from this call (`f`'s captures), so it must be done with them
    // before this function returns, as with a scoped thread. It is: `wait_for` below, with
    // `settle`, returns only once the job's result came through the channel, which the job
    // sends after `f` was consumed (its captures dropped), touching nothing but its own
    // `sender` after that; or once the channel is disconnected, which means the job (and
    // with it `f`) was dropped, run or not. A job that cannot be handed to a thread is
    // dropped before `run` returns its error.
    let job: crate::threads::Job = unsafe { std::mem::transmute(job) };
    if let Err(e) = crate::threads::run(job) {
        return Err(Error::Io(format!("cannot start a thread for the call: {e}")).into());
    }
    wait_for(py, &mut receiver, || cancel.cancel(), true)
}

/// Waits for the one result `receiver` brings, letting Python handle signals every
/// `SIGNAL_CHECK`. On a signal's exception `stop()` is called and, with `settle`, the result
/// is still waited for (and dropped) before the exception is raised.
pub fn wait_for<T: Send>(
    py: Python<'_>,
    receiver: &mut Receiver<PyResult<T>>,
    stop: impl FnOnce(),
    settle: bool,
) -> PyResult<T> {
    loop {
        // Moved in as `&mut` (a `Receiver` is `Send`, not `Sync`).
        let waiting = &mut *receiver;
        match py.detach(move || waiting.recv_timeout(SIGNAL_CHECK)) {
            Ok(result) => return result,
            Err(RecvTimeoutError::Disconnected) => {
                return Err(Error::Io("the call's thread ended without a result".into()).into());
            }
            Err(RecvTimeoutError::Timeout) => {
                if let Err(signal) = py.check_signals() {
                    stop();
                    if settle {
                        let waiting = &mut *receiver;
                        let _ = py.detach(move || waiting.recv());
                    }
                    return Err(signal);
                }
            }
        }
    }
}
