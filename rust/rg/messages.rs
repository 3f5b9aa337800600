//! ripgrep's stderr messages (`rg: ...`): whether they are shown (`--no-messages`,
//! `--no-ignore-messages`) and whether one was an error (exit status 2).

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static MESSAGES: AtomicBool = AtomicBool::new(true);
static IGNORE_MESSAGES: AtomicBool = AtomicBool::new(true);
static ERRORED: AtomicBool = AtomicBool::new(false);
/// Messages reported, shown or not (a listing that met one is not kept for later runs).
static REPORTED: AtomicUsize = AtomicUsize::new(0);

pub fn configure(messages: bool, ignore_messages: bool) {
    MESSAGES.store(messages, Ordering::Relaxed);
    IGNORE_MESSAGES.store(ignore_messages, Ordering::Relaxed);
}

/// Writes `rg: <msg>` while holding stdout's lock so that it never lands inside a line of
/// results; a closed stderr ends the process as ripgrep does.
pub fn eprint(msg: &str) {
    let stdout = std::io::stdout().lock();
    let mut stderr = std::io::stderr().lock();
    if let Err(err) = writeln!(stderr, "rg: {msg}") {
        std::process::exit(if err.kind() == std::io::ErrorKind::BrokenPipe {
            0
        } else {
            2
        });
    }
    drop(stdout);
}

pub fn message(msg: &str) {
    REPORTED.fetch_add(1, Ordering::Relaxed);
    if MESSAGES.load(Ordering::Relaxed) {
        eprint(msg);
    }
}

pub fn err(msg: &str) {
    ERRORED.store(true, Ordering::Relaxed);
    message(msg);
}

pub fn ignore(msg: &str) {
    REPORTED.fetch_add(1, Ordering::Relaxed);
    if MESSAGES.load(Ordering::Relaxed) && IGNORE_MESSAGES.load(Ordering::Relaxed) {
        eprint(msg);
    }
}

/// How many messages were reported so far (shown or not).
pub fn reported() -> usize {
    REPORTED.load(Ordering::Relaxed)
}

pub fn errored() -> bool {
    ERRORED.load(Ordering::Relaxed)
}
