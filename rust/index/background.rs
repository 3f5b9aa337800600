//! Background index work (builds, rebuilds, a watch catching up) at the lowest CPU and I/O
//! priority, so that the searches it serves, and everything else on the machine, come first:
//! the first searches after a daemon (re)starts must not be slower than a scan because the
//! daemon's catch-up competes with them for the same cores and disk.
//!
//! On Linux the nice value and the I/O priority belong to a thread, and threads inherit them
//! from the thread that starts them: lowering the thread that does the work lowers the walk
//! and build workers it starts too, and nothing else of the process.

/// The nice value of background work (the lowest priority; it still runs on an idle core).
pub const NICE: i32 = 19;
/// The best-effort I/O class at its lowest level (not the idle class, which can starve a
/// build for as long as anything else reads the disk).
const IOPRIO_CLASS_BEST_EFFORT: libc::c_int = 2;
const IOPRIO_LOWEST_LEVEL: libc::c_int = 7;
const IOPRIO_CLASS_SHIFT: libc::c_int = 13;
const IOPRIO_WHO_PROCESS: libc::c_int = 1;

/// Lowers the calling thread (and the threads it starts from now on) to background priority.
/// Failures are ignored: priority is a courtesy, never a reason not to work.
pub fn lower_this_thread() {
    // SAFETY: plain system calls on the calling thread's own id.
    unsafe {
        let tid = libc::gettid();
        libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, NICE);
        libc::syscall(
            libc::SYS_ioprio_set,
            IOPRIO_WHO_PROCESS,
            tid,
            (IOPRIO_CLASS_BEST_EFFORT << IOPRIO_CLASS_SHIFT) | IOPRIO_LOWEST_LEVEL,
        );
    }
}

/// The calling thread's nice value and I/O priority (class, level), as the kernel has them.
#[cfg(test)]
pub(crate) fn this_thread_priority() -> (i32, (i32, i32)) {
    // SAFETY: plain system calls on the calling thread's own id.
    unsafe {
        let tid = libc::gettid();
        *libc::__errno_location() = 0;
        let nice = libc::getpriority(libc::PRIO_PROCESS, tid as libc::id_t);
        let io = libc::syscall(libc::SYS_ioprio_get, IOPRIO_WHO_PROCESS, tid) as i32;
        (nice, (io >> IOPRIO_CLASS_SHIFT, io & 0xff))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lowered_thread_and_the_threads_it_starts_run_at_background_priority() {
        let before = this_thread_priority();
        let (lowered, inherited) = std::thread::spawn(|| {
            lower_this_thread();
            let lowered = this_thread_priority();
            let inherited = std::thread::spawn(this_thread_priority).join().unwrap();
            (lowered, inherited)
        })
        .join()
        .unwrap();
        let expected = (NICE, (IOPRIO_CLASS_BEST_EFFORT, IOPRIO_LOWEST_LEVEL));
        assert_eq!(lowered, expected);
        assert_eq!(inherited, expected, "a worker it starts inherits it");
        assert_eq!(
            this_thread_priority(),
            before,
            "the other threads keep theirs"
        );
    }
}
