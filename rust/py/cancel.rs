//! The `CancelToken` class: a handle on running searches to cancel them from another thread
//! and to read how far they got.

use crate::cancel;
use pyo3::prelude::*;

/// Pass it as `cancel=` to `Engine.grep`/`Engine.glob`; `cancel()` (from any thread) stops
/// them within milliseconds, and they raise `CancelledError`. A token stays cancelled.
#[pyclass(frozen, module = "codesift._core", name = "CancelToken")]
pub struct CancelToken {
    pub token: cancel::CancelToken,
}

impl CancelToken {
    /// The engine's token for a call given `cancel=token` (or none), and whether it is the
    /// call's own. Always the call's own: a child of the given token (cancelled with it,
    /// counting in it), which the call may cancel (Ctrl-C, a stream closed) without
    /// cancelling a token the caller shares with other calls.
    pub fn engine_token(cancel: Option<PyRef<'_, CancelToken>>) -> (cancel::CancelToken, bool) {
        match cancel {
            Some(token) => (token.token.child(), true),
            None => (cancel::CancelToken::new(), true),
        }
    }
}

#[pymethods]
impl CancelToken {
    #[new]
    fn new() -> Self {
        CancelToken {
            token: cancel::CancelToken::new(),
        }
    }

    /// Stops every search using this token as soon as it next checks.
    fn cancel(&self) {
        self.token.cancel();
    }

    #[getter]
    fn cancelled(&self) -> bool {
        self.token.is_cancelled()
    }

    /// Regular files listed by the walks using this token so far.
    #[getter]
    fn files_walked(&self) -> u64 {
        self.token.files_walked()
    }

    /// Files whose contents the searches using this token have finished with so far.
    #[getter]
    fn files_searched(&self) -> u64 {
        self.token.files_searched()
    }

    fn __repr__(&self) -> String {
        format!(
            "CancelToken(cancelled={}, files_walked={}, files_searched={})",
            if self.token.is_cancelled() {
                "True"
            } else {
                "False"
            },
            self.token.files_walked(),
            self.token.files_searched()
        )
    }
}
