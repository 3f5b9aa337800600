//! When a search stops (a deadline, a cancel, or the orchestrator having enough) and how much
//! of one file it keeps.

use crate::cancel::CancelToken;
use crate::error::{Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Why a search should stop: a deadline, or a flag raised by the orchestrator.
pub struct StopSignal {
    flag: AtomicBool,
    timed_out: AtomicBool,
    deadline: Option<Instant>,
    cancel: CancelToken,
}

impl StopSignal {
    pub fn new(deadline: Option<Instant>) -> StopSignal {
        StopSignal {
            flag: AtomicBool::new(false),
            timed_out: AtomicBool::new(false),
            deadline,
            cancel: CancelToken::default(),
        }
    }
    /// The signal also stops when `cancel` is cancelled (from another thread).
    pub fn with_cancel(mut self, cancel: CancelToken) -> StopSignal {
        self.cancel = cancel;
        self
    }
    pub fn stop(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }
    pub fn should_stop(&self) -> bool {
        if self.flag.load(Ordering::Relaxed) {
            return true;
        }
        if self.cancel.is_cancelled() {
            self.stop();
            return true;
        }
        if let Some(deadline) = self.deadline
            && Instant::now() >= deadline
        {
            self.timed_out.store(true, Ordering::Relaxed);
            self.stop();
            return true;
        }
        false
    }
    pub fn timed_out(&self) -> bool {
        self.timed_out.load(Ordering::Relaxed)
    }
}

/// Longest grep timeout accepted, in seconds (one day, as the Python layer allows): the
/// deadline, now plus the timeout, must be a time the clock can represent (`1e300` panicked
/// converting it, `1e19` adding it).
pub const MAX_TIMEOUT_SECS: f64 = 86_400.0;

/// A timeout in seconds as a `Duration`: positive, finite and at most `MAX_TIMEOUT_SECS`.
pub fn timeout_duration(seconds: f64) -> Result<std::time::Duration> {
    if !(seconds > 0.0 && seconds.is_finite()) {
        return Err(Error::InvalidArgument(format!(
            "timeout must be a positive number of seconds, not {seconds}"
        )));
    }
    std::time::Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|_| seconds <= MAX_TIMEOUT_SECS)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "timeout must be at most {MAX_TIMEOUT_SECS} seconds (one day), not {seconds:e}; \
                 pass None (no timeout) to search without a time limit"
            ))
        })
}

/// Per-file caps.
#[derive(Clone, Copy, Debug)]
pub struct FileLimits {
    /// Hits to materialise at most.
    pub max_hits: usize,
    /// Keep counting matches past `max_hits`.
    pub count_all: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_out_of_range_are_invalid_arguments() {
        use std::time::Duration;
        assert_eq!(timeout_duration(2.5).unwrap(), Duration::from_millis(2500));
        let day = timeout_duration(MAX_TIMEOUT_SECS).unwrap();
        assert_eq!(day, Duration::from_secs(86_400));
        for bad in [
            1e300,
            86_400.5,
            1e19,
            f64::MAX,
            0.0,
            -1.0,
            f64::INFINITY,
            f64::NAN,
        ] {
            match timeout_duration(bad) {
                Err(Error::InvalidArgument(msg)) => assert!(msg.contains("timeout"), "{msg}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
        let Err(Error::InvalidArgument(msg)) = timeout_duration(1e300) else {
            panic!()
        };
        assert!(
            msg.contains("at most 86400 seconds (one day), not 1e300"),
            "{msg}"
        );
    }
}
