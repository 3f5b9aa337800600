//! Threads kept between calls: a library call's thread (`py::interrupt`) and the helpers a
//! walk or a search works on are taken from an idle list, or started when none is idle, and
//! go back to it when their work is done. Starting a thread cost about a tenth of a
//! millisecond, a third of a small search's time, and a kept thread's allocator arena and
//! thread-local buffers (a parser, a tokenizer's) are warm for the next call.
//!
//! Work is handed over as a boxed closure. `with_helpers` lets it borrow from the caller, as
//! `std::thread::scope` does, by waiting for every helper before it returns.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Mutex;
use std::sync::mpsc::{self, Receiver, SyncSender};

/// Work handed to a kept thread.
pub type Job = Box<dyn FnOnce() + Send + 'static>;

/// The idle threads (each one's hand-over channel), with the process they belong to: a
/// forked child has none of its parent's threads, and must not hand work to them.
static IDLE: Mutex<(u32, Vec<SyncSender<Job>>)> = Mutex::new((0, Vec::new()));

/// Idle threads kept at most: twice the processors (a call's thread and a walk's or a
/// search's helpers), at least 4 and at most 64. More are started when calls overlap, and
/// end when done.
fn most_idle() -> usize {
    crate::fs::walk::available_threads().map_or(4, |n| (2 * n).clamp(4, 64))
}

/// Runs `job` on an idle thread, or on a new one (named `codesift-call`). On an error (no
/// thread could be started) the job was dropped without running.
pub fn run(job: Job) -> std::io::Result<()> {
    let mut job = job;
    loop {
        let idle = {
            let mut idle = IDLE.lock().unwrap_or_else(|e| e.into_inner());
            let pid = std::process::id();
            if idle.0 != pid {
                *idle = (pid, Vec::new());
            }
            idle.1.pop()
        };
        let Some(thread) = idle else { break };
        // A thread that ended (it never does while listed) gives the job back.
        match thread.send(job) {
            Ok(()) => return Ok(()),
            Err(mpsc::SendError(back)) => job = back,
        }
    }
    let (handover, jobs) = mpsc::sync_channel::<Job>(1);
    std::thread::Builder::new()
        .name("codesift-call".into())
        .spawn(move || {
            let mut next = Some(job);
            while let Some(job) = next.take() {
                job();
                {
                    let mut idle = IDLE.lock().unwrap_or_else(|e| e.into_inner());
                    if idle.0 != std::process::id() || idle.1.len() >= most_idle() {
                        return;
                    }
                    idle.1.push(handover.clone());
                }
                next = jobs.recv().ok();
            }
        })
        .map(|_| ())
}

/// A helper's end: the panic it ended with, if it did.
type Ended = Option<Box<dyn Any + Send>>;

/// Waits, when dropped, for every helper of a `with_helpers` to end (its channel to close):
/// the helpers borrow from the caller, however the caller's own work ends.
struct AllEnded(Receiver<Ended>);

impl Drop for AllEnded {
    fn drop(&mut self) {
        while self.0.recv().is_ok() {}
    }
}

/// Runs `work(item)` for each of `helpers` on kept threads while `main` runs on the calling
/// thread, and returns `main`'s result once every helper has ended, as `std::thread::scope`
/// with a spawned thread each would: `work` and the items may borrow from the caller. A
/// helper's panic is resumed here after all have ended; no thread to start is a panic too
/// (as `std::thread::scope`'s `spawn`).
pub fn with_helpers<T: Send, R>(
    helpers: Vec<T>,
    work: impl Fn(T) + Sync,
    main: impl FnOnce() -> R,
) -> R {
    if helpers.is_empty() {
        return main();
    }
    let (done, ended) = mpsc::channel::<Ended>();
    let all_ended = AllEnded(ended);
    let work = &work;
    for item in helpers {
        let done = done.clone();
        let job: Box<dyn FnOnce() + Send + '_> = Box::new(move || {
            let outcome = catch_unwind(AssertUnwindSafe(|| work(item)));
            let _ = done.send(outcome.err());
            // `done` is dropped last: once every helper's is, `all_ended` stops waiting.
        });
        // SAFETY: the job borrows `work` and what the items borrow, all of which outlive this
        // function. It returns (or unwinds) only after `all_ended` saw every helper's
        // `done` dropped, which a job does last, after its use of the borrows, or which
        // happens when the job is dropped without running (no thread could take it).
        let job: Job = unsafe { std::mem::transmute(job) };
        if let Err(err) = run(job) {
            panic!("cannot start a thread: {err}");
        }
    }
    drop(done);
    let result = main();
    let mut first_panic = None;
    for panic in all_ended.0.iter().flatten() {
        first_panic.get_or_insert(panic);
    }
    if let Some(panic) = first_panic {
        resume_unwind(panic);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn helpers_borrow_from_the_caller_and_all_end_before_it_returns() {
        let counted = AtomicUsize::new(0);
        let items: Vec<usize> = (1..=8).collect();
        let main = with_helpers(
            items,
            |n| {
                std::thread::sleep(std::time::Duration::from_millis(5));
                counted.fetch_add(n, Ordering::SeqCst);
            },
            || "main",
        );
        assert_eq!((main, counted.load(Ordering::SeqCst)), ("main", 36));
    }

    #[test]
    fn a_helpers_panic_comes_out_of_the_call_after_the_others_ended() {
        let finished = AtomicUsize::new(0);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            with_helpers(
                vec![0, 1, 2],
                |n| {
                    if n == 1 {
                        panic!("helper one");
                    }
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    finished.fetch_add(1, Ordering::SeqCst);
                },
                || (),
            )
        }));
        let panic = outcome.expect_err("the helper's panic");
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"helper one"));
        assert_eq!(finished.load(Ordering::SeqCst), 2, "the others ended first");
    }

    #[test]
    fn a_thread_goes_back_to_the_idle_list_for_the_next_job() {
        let (sender, receiver) = mpsc::channel();
        let first = sender.clone();
        run(Box::new(move || {
            first.send(std::thread::current().id()).unwrap()
        }))
        .unwrap();
        let first_thread = receiver.recv().unwrap();
        // Its going back to the list follows its job: wait until it is there.
        let listed = || IDLE.lock().unwrap().1.len();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while listed() == 0 && std::time::Instant::now() < deadline {
            std::thread::yield_now();
        }
        let mut seen = vec![first_thread];
        // Other tests use the list too: some later job runs on a thread seen before.
        for _ in 0..20 {
            let next = sender.clone();
            run(Box::new(move || {
                next.send(std::thread::current().id()).unwrap()
            }))
            .unwrap();
            let thread = receiver.recv().unwrap();
            if seen.contains(&thread) {
                return;
            }
            seen.push(thread);
        }
        panic!("every job ran on a new thread: {seen:?}");
    }
}
