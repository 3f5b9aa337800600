//! Starting the daemon in the background so that the starter never waits for it: fork, the
//! child starts a new session and forks again, the grandchild (the daemon: no controlling
//! terminal, not the starter's child, stdio on /dev/null) execs `argv`, and the child exits at
//! once (the starter reaps it: a wait of microseconds, never for the daemon).
//!
//! Everything the children need (argv, /dev/null) is prepared before the fork: between fork
//! and exec in a process with threads only async-signal-safe calls are made.

use std::ffi::CString;
use std::io;

pub fn spawn_detached(argv: &[String]) -> io::Result<()> {
    if argv.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "nothing to run",
        ));
    }
    let args: Vec<CString> = argv
        .iter()
        .map(|a| CString::new(a.as_bytes()))
        .collect::<Result<_, _>>()
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in argv"))?;
    let mut pointers: Vec<*const libc::c_char> = args.iter().map(|a| a.as_ptr()).collect();
    pointers.push(std::ptr::null());
    let null = CString::new("/dev/null").unwrap();
    // SAFETY: plain libc calls; after fork the children only make async-signal-safe calls on
    // data prepared above, and leave by exec or `_exit`.
    unsafe {
        let devnull = libc::open(null.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        if devnull < 0 {
            return Err(io::Error::last_os_error());
        }
        let child = libc::fork();
        if child < 0 {
            let error = io::Error::last_os_error();
            libc::close(devnull);
            return Err(error);
        }
        if child == 0 {
            libc::setsid();
            let grandchild = libc::fork();
            if grandchild == 0 {
                libc::dup2(devnull, 0);
                libc::dup2(devnull, 1);
                libc::dup2(devnull, 2);
                // Nothing of the starter's stays open in the daemon (locks, sockets, pipes).
                libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
                let mut signals: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut signals);
                libc::sigprocmask(libc::SIG_SETMASK, &signals, std::ptr::null_mut());
                libc::execv(pointers[0], pointers.as_ptr());
                libc::_exit(127);
            }
            libc::_exit(if grandchild < 0 { 1 } else { 0 });
        }
        libc::close(devnull);
        let mut status = 0;
        while libc::waitpid(child, &mut status, 0) < 0 {
            if io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                break;
            }
        }
        if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
            Ok(())
        } else {
            Err(io::Error::other(
                "the daemon could not be started (fork failed)",
            ))
        }
    }
}
