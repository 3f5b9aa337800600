//! ripgrep's stderr messages (`rg: ...`): whether they are shown (`--no-messages`,
//! `--no-ignore-messages`) and whether one was an error (exit status 2).

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static MESSAGES: AtomicBool = AtomicBool::new(true);
static IGNORE_MESSAGES: AtomicBool = AtomicBool::new(true);
static ERRORED: AtomicBool = AtomicBool::new(false);

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
    if MESSAGES.load(Ordering::Relaxed) {
        eprint(msg);
    }
}

pub fn err(msg: &str) {
    ERRORED.store(true, Ordering::Relaxed);
    message(msg);
}

pub fn ignore(msg: &str) {
    if MESSAGES.load(Ordering::Relaxed) && IGNORE_MESSAGES.load(Ordering::Relaxed) {
        eprint(msg);
    }
}

pub fn errored() -> bool {
    ERRORED.load(Ordering::Relaxed)
}
