//! Work that streams: it runs on its own thread and hands items to one consumer through a
//! bounded channel (a slow consumer pauses it at its next hand-over), then leaves its result.
//! Stopping it makes its next hand-over fail, so the work ends on its own without being
//! joined; `grep_iter` and `glob_iter` are both one of these.

use crate::cancel::CancelToken;
use crossbeam_channel::{Receiver, RecvTimeoutError};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Hands one item to the consumer; `false` once the consumer went away (the work stops).
/// `Sync`: a search's workers hand out from several threads.
pub type Handout<'a, T> = &'a (dyn Fn(T) -> bool + Sync);

/// What the consumer gets when it asks for the next item.
#[derive(Debug, PartialEq, Eq)]
pub enum Next<T, R> {
    Item(T),
    /// Nothing came within the wait: the consumer may see to other things (a Ctrl-C) and ask
    /// again.
    Waiting,
    /// The work ended and its thread is joined: its result, taken once (`None` afterwards,
    /// and after a stop).
    End(Option<R>),
}

pub struct Stream<T, R> {
    receiver: Option<Receiver<T>>,
    result: Arc<Mutex<Option<R>>>,
    thread: Option<JoinHandle<()>>,
    closed: Arc<AtomicBool>,
    cancel: CancelToken,
    /// The token is the stream's own (no caller's): stopping may cancel it.
    own_token: bool,
}

impl<T: Send + 'static, R: Send + 'static> Stream<T, R> {
    /// Starts `work` on its own thread with at most `capacity` items waiting for the
    /// consumer. `cancel` is the work's token: a stop cancels it when it is `own_token`
    /// (a caller's token is the caller's to cancel).
    pub fn start(
        capacity: usize,
        cancel: CancelToken,
        own_token: bool,
        work: impl FnOnce(Handout<'_, T>) -> R + Send + 'static,
    ) -> Self {
        let (sender, receiver) = crossbeam_channel::bounded::<T>(capacity);
        let result = Arc::new(Mutex::new(None));
        let closed = Arc::new(AtomicBool::new(false));
        let thread = {
            let (result, closed) = (result.clone(), closed.clone());
            std::thread::spawn(move || {
                let handout =
                    |item: T| !closed.load(Ordering::Relaxed) && sender.send(item).is_ok();
                let outcome = work(&handout);
                *result.lock().unwrap() = Some(outcome);
                // `sender` drops here: the consumer sees the end after the result is stored.
            })
        };
        Stream {
            receiver: Some(receiver),
            result,
            thread: Some(thread),
            closed,
            cancel,
            own_token,
        }
    }
}

impl<T, R> Stream<T, R> {
    /// The next item, waiting at most `wait` for it; at the end the thread is joined and its
    /// result handed over.
    pub fn next(&mut self, wait: Duration) -> Next<T, R> {
        let Some(receiver) = self.receiver.as_ref() else {
            return Next::End(None);
        };
        match receiver.recv_timeout(wait) {
            Ok(item) => Next::Item(item),
            Err(RecvTimeoutError::Timeout) => Next::Waiting,
            Err(RecvTimeoutError::Disconnected) => {
                self.receiver.take();
                self.join();
                Next::End(self.result.lock().unwrap().take())
            }
        }
    }

    /// Stops the work at its next hand-over without waiting for it; no more items come.
    pub fn stop(&mut self) {
        self.closed.store(true, Ordering::Relaxed);
        if self.own_token {
            self.cancel.cancel();
        }
        // Work blocked on a full channel fails its send and stops.
        self.receiver.take();
    }

    /// Stops the work and waits for its thread to finish.
    pub fn close(&mut self) {
        self.stop();
        self.join();
    }

    fn join(&mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl<T, R> Drop for Stream<T, R> {
    fn drop(&mut self) {
        // Not joined: the work notices at its next hand-over and ends on its own.
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WAIT: Duration = Duration::from_secs(10);

    /// Counts up to `n`, handing out each number; the result is how many went out.
    fn counter(n: u32, cancel: CancelToken, own_token: bool) -> Stream<u32, u32> {
        Stream::start(2, cancel, own_token, move |handout| {
            let mut sent = 0;
            for i in 0..n {
                if !handout(i) {
                    break;
                }
                sent += 1;
            }
            sent
        })
    }

    #[test]
    fn items_come_in_order_then_the_result_once() {
        let mut stream = counter(5, CancelToken::new(), true);
        let mut got = Vec::new();
        let end = loop {
            match stream.next(WAIT) {
                Next::Item(i) => got.push(i),
                Next::Waiting => {}
                Next::End(result) => break result,
            }
        };
        assert_eq!(got, [0, 1, 2, 3, 4], "items: expected 0..5, got {got:?}");
        assert_eq!(end, Some(5), "result: expected Some(5), got {end:?}");
        assert_eq!(
            stream.next(WAIT),
            Next::End(None),
            "the result is taken once"
        );
    }

    #[test]
    fn a_stop_ends_the_work_and_cancels_only_its_own_token() {
        for own_token in [true, false] {
            let cancel = CancelToken::new();
            let mut stream = counter(u32::MAX, cancel.clone(), own_token);
            assert_eq!(stream.next(WAIT), Next::Item(0));
            // Joins: the work, paused on a full channel, must end once stopped.
            stream.close();
            assert_eq!(stream.next(WAIT), Next::End(None), "no item after a stop");
            assert_eq!(
                cancel.is_cancelled(),
                own_token,
                "own_token={own_token}: cancelled {}",
                cancel.is_cancelled()
            );
        }
    }

    #[test]
    fn work_not_yet_handing_out_is_waiting_not_the_end() {
        let (go, gate) = std::sync::mpsc::channel::<()>();
        let mut stream: Stream<u32, ()> =
            Stream::start(1, CancelToken::new(), true, move |handout| {
                gate.recv().unwrap();
                handout(7);
            });
        assert_eq!(stream.next(Duration::from_millis(1)), Next::Waiting);
        go.send(()).unwrap();
        assert_eq!(stream.next(WAIT), Next::Item(7));
        assert_eq!(stream.next(WAIT), Next::End(Some(())));
    }
}
