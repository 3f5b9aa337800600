//! The `codesift-daemon` executable's command line: serves this user's index daemon in this
//! process (no Python anywhere in it) until stopped, idle or signalled. `codesift daemon
//! start|run` and `codesift-rg` start it; `codesift daemon status|stop` talk to it.

use super::server::{self, Outcome, ServeOptions};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The idle time when none is given: the daemon exits after 15 minutes without a request.
pub const DEFAULT_IDLE_SECONDS: f64 = 900.0;

const USAGE: &str = "\
usage: codesift-daemon [--idle SECONDS]

Serves this user's codesift index daemon in this process until it is stopped
(`codesift daemon stop`, SIGTERM, SIGINT, SIGHUP) or has had no request for
SECONDS (default 900). Exits 0 when done, 1 when another daemon of this user
already serves, 2 on a usage error or when it cannot serve.
";

/// Set by the signal handler, read by the server's accept loop every tick.
static SIGNALLED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    // Async-signal-safe: one atomic store.
    SIGNALLED.store(true, Ordering::Release);
}

/// SIGTERM, SIGINT and SIGHUP stop the daemon cleanly (its socket removed, lock released).
fn handle_stop_signals() {
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        // SAFETY: installs a handler that only stores to an atomic; the struct is zeroed
        // (no flags, empty mask) as sigaction expects.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as *const () as libc::sighandler_t;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

enum Command {
    Serve { idle: f64 },
    Help,
    Version,
}

fn parse(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Command, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut idle = DEFAULT_IDLE_SECONDS;
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Long("idle") => {
                let value = parser.value().map_err(|e| e.to_string())?;
                let text = value.to_string_lossy();
                idle = text
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| {
                        format!("--idle must be a positive number of seconds, not {text:?}")
                    })?;
            }
            // Accepted for the command line `codesift daemon run --foreground` hands over.
            Long("foreground") => {}
            Short('h') | Long("help") => return Ok(Command::Help),
            Short('V') | Long("version") => return Ok(Command::Version),
            other => return Err(other.unexpected().to_string()),
        }
    }
    Ok(Command::Serve { idle })
}

/// Runs the daemon; the process's exit code.
pub fn main() -> i32 {
    let idle = match parse(std::env::args_os().skip(1)) {
        Ok(Command::Serve { idle }) => idle,
        Ok(Command::Help) => {
            print!("{USAGE}");
            return 0;
        }
        Ok(Command::Version) => {
            println!("codesift-daemon {}", env!("CARGO_PKG_VERSION"));
            return 0;
        }
        Err(why) => {
            eprintln!("codesift-daemon: {why}\n\n{USAGE}");
            return 2;
        }
    };
    crate::index::build::bound_retained_heap();
    handle_stop_signals();
    let options = ServeOptions {
        idle: Duration::from_secs_f64(idle.min(1e9)),
    };
    match server::serve(options, &|| SIGNALLED.load(Ordering::Acquire)) {
        Ok(Outcome::Served) => 0,
        Ok(Outcome::AlreadyRunning) => {
            eprintln!("codesift-daemon: another daemon of this user is already serving");
            1
        }
        Err(e) => {
            eprintln!("codesift-daemon: cannot serve: {e}");
            2
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<std::ffi::OsString> {
        list.iter().map(Into::into).collect()
    }

    #[test]
    fn the_idle_time_is_a_positive_number_of_seconds() {
        assert!(matches!(
            parse(args(&[])),
            Ok(Command::Serve { idle }) if idle == DEFAULT_IDLE_SECONDS
        ));
        assert!(matches!(
            parse(args(&["--idle", "2.5", "--foreground"])),
            Ok(Command::Serve { idle }) if idle == 2.5
        ));
        assert!(matches!(parse(args(&["--idle=7"])), Ok(Command::Serve { idle }) if idle == 7.0));
        for bad in ["0", "-1", "nan", "inf", "soon"] {
            let refused = parse(args(&["--idle", bad])).err().unwrap_or_default();
            assert!(refused.contains("--idle must be"), "{bad}: {refused}");
        }
        assert!(parse(args(&["--bogus"])).is_err());
        assert!(matches!(parse(args(&["-h"])), Ok(Command::Help)));
        assert!(matches!(parse(args(&["--version"])), Ok(Command::Version)));
    }
}
