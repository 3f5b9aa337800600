//! Handing an argv this engine does not serve to the real ripgrep: `CODESIFT_REAL_RG`, else
//! the first `rg` on PATH that is not this executable (same device and inode), else the
//! `ripgrep` PyPI package's binary beside the running Python environment.

use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

/// `CODESIFT_RG_FALLBACK=never` forbids handing over.
pub fn allowed() -> bool {
    std::env::var_os("CODESIFT_RG_FALLBACK").is_none_or(|v| v != "never")
}

fn identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

fn is_executable_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.mode() & 0o111 != 0)
}

/// The real rg, never this executable (by device and inode, so links and copies of the same
/// file are recognised whatever their name).
pub fn find_real_rg() -> Option<PathBuf> {
    let me = std::env::current_exe().ok().and_then(|p| identity(&p));
    let not_me = |p: &Path| is_executable_file(p) && identity(p) != me;
    if let Some(p) = std::env::var_os("CODESIFT_REAL_RG").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return not_me(&p).then_some(p);
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let p = dir.join("rg");
            if not_me(&p) {
                return Some(p);
            }
        }
    }
    // The `ripgrep` wheel installs `rg` into the environment's bin/, next to this executable
    // when both come from the same environment (PATH may not include it).
    let exe_dir = std::env::current_exe().ok()?.parent()?.to_path_buf();
    let p = exe_dir.join("rg");
    not_me(&p).then_some(p)
}

/// Replaces this process with the real rg given the same arguments; returns only on failure,
/// with the message to print.
pub fn exec(argv: &[OsString], flag: &str) -> String {
    match find_real_rg() {
        Some(rg) => {
            let err = std::process::Command::new(&rg).args(argv).exec();
            format!(
                "{flag} is not supported and running {} failed: {err}",
                rg.display()
            )
        }
        None => format!(
            "{flag} is not supported here and no real rg was found \
             (set CODESIFT_REAL_RG, put rg on PATH or pip install ripgrep)"
        ),
    }
}
