//! Handing an argv this engine does not serve to the real ripgrep: `CODESIFT_REAL_RG`, else
//! the first `rg` on PATH that is not a codesift-rg, else the `ripgrep` PyPI package's `rg`
//! (recorded by `codesift shim` beside the link this ran through, or in the Python
//! environment that holds this executable). Never this executable or another codesift-rg,
//! whatever links, copies or wrapper scripts stand between them.

use std::ffi::{OsStr, OsString};
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

/// `CODESIFT_RG_FALLBACK=never` forbids handing over.
pub fn allowed() -> bool {
    std::env::var_os("CODESIFT_RG_FALLBACK").is_none_or(|v| v != "never")
}

/// The files already handed over to along this chain of execs (`dev:ino` pairs). Each
/// codesift-rg adds itself and the program it execs before exec'ing it, and never picks one
/// of them: a wrapper script named `rg` that runs codesift-rg again, or a copy of
/// codesift-rg under another inode, then ends the chain instead of looping.
const VISITED: &str = "CODESIFT_RG_VISITED";

/// The name of the link `codesift shim` puts beside its `rg`: the `ripgrep` package's `rg`
/// of the Python environment that made the shim.
pub const RECORD: &str = ".real-rg";

type Id = (u64, u64);

fn identity(path: &Path) -> Option<Id> {
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

fn is_executable_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.mode() & 0o111 != 0)
}

fn visited() -> Vec<Id> {
    std::env::var_os(VISITED).map_or_else(Vec::new, |list| parse_visited(&list.to_string_lossy()))
}

/// `dev:ino,dev:ino`; anything malformed is left out (it can only add candidates back).
fn parse_visited(list: &str) -> Vec<Id> {
    list.split(',')
        .filter_map(|pair| {
            let (dev, ino) = pair.split_once(':')?;
            Some((dev.parse().ok()?, ino.parse().ok()?))
        })
        .collect()
}

/// What is known about this process when choosing: its own file and the chain so far.
struct Chooser {
    me: Option<Id>,
    visited: Vec<Id>,
}

impl Chooser {
    fn new() -> Self {
        let me = std::env::current_exe().ok().and_then(|p| identity(&p));
        Chooser {
            me,
            visited: visited(),
        }
    }

    fn is_me(&self, path: &Path) -> bool {
        self.me.is_some() && identity(path) == self.me
    }

    /// An executable that is neither this file, nor one already handed over to, nor (by the
    /// name its links resolve to) another codesift-rg.
    fn usable(&self, path: &Path) -> bool {
        if !is_executable_file(path) {
            return false;
        }
        let Some(id) = identity(path) else {
            return false;
        };
        if Some(id) == self.me || self.visited.contains(&id) {
            return false;
        }
        let resolved = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        resolved.file_name() != Some(OsStr::new("codesift-rg"))
    }
}

/// Where the real rg comes from, or why there is none.
#[derive(Debug, PartialEq, Eq)]
pub enum Found {
    Rg(PathBuf),
    /// `CODESIFT_REAL_RG` names something that cannot be used (the message says why).
    BadVariable(String),
    None,
}

/// The real rg, never this executable nor another codesift-rg.
pub fn find_real_rg() -> Found {
    let chooser = Chooser::new();
    if let Some(p) = std::env::var_os("CODESIFT_REAL_RG").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return if chooser.usable(&p) {
            Found::Rg(p)
        } else if !is_executable_file(&p) {
            Found::BadVariable(format!(
                "CODESIFT_REAL_RG={} is not an executable file",
                p.display()
            ))
        } else {
            Found::BadVariable(format!(
                "CODESIFT_REAL_RG={} is a codesift-rg, not ripgrep",
                p.display()
            ))
        };
    }
    let path_dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    for dir in &path_dirs {
        let p = dir.join("rg");
        if chooser.usable(&p) {
            return Found::Rg(p);
        }
    }
    // The `ripgrep` package's rg: first as recorded beside the link this ran through (a
    // command name with a slash is that link's path; else the PATH entries whose `rg` is
    // this file), which covers editable installs, then beside this environment's Python.
    let mut link_dirs: Vec<PathBuf> = std::env::args_os()
        .next()
        .map(PathBuf::from)
        .filter(|arg0| arg0.components().count() > 1)
        .and_then(|arg0| arg0.parent().map(Path::to_path_buf))
        .into_iter()
        .collect();
    link_dirs.extend(
        path_dirs
            .iter()
            .filter(|dir| chooser.is_me(&dir.join("rg")))
            .cloned(),
    );
    for dir in link_dirs {
        let p = dir.join(RECORD);
        if chooser.usable(&p) {
            return Found::Rg(p);
        }
    }
    match environment_rg() {
        Some(p) if chooser.usable(&p) => Found::Rg(p),
        _ => Found::None,
    }
}

/// `<prefix>/bin/rg` when this executable is `<prefix>/lib/pythonX.Y/site-packages/codesift/
/// bin/codesift-rg`, as a wheel installs it (the `ripgrep` wheel puts `rg` in that bin/).
fn environment_rg() -> Option<PathBuf> {
    let exe = std::fs::canonicalize(std::env::current_exe().ok()?).ok()?;
    rg_beside_environment(&exe)
}

fn rg_beside_environment(exe: &Path) -> Option<PathBuf> {
    let bin = exe.parent()?;
    let package = bin.parent()?;
    let site = package.parent()?;
    let python = site.parent()?;
    let lib = python.parent()?;
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    let layout = name(bin)? == "bin"
        && name(package)? == "codesift"
        && matches!(name(site)?.as_str(), "site-packages" | "dist-packages")
        && name(python)?.starts_with("python")
        && matches!(name(lib)?.as_str(), "lib" | "lib64");
    layout.then(|| lib.parent().map(|prefix| prefix.join("bin").join("rg")))?
}

/// Replaces this process with the real rg given the same arguments; returns only on failure,
/// with the message to print.
pub fn exec(argv: &[OsString], flag: &str) -> String {
    match find_real_rg() {
        Found::Rg(rg) => {
            let mut chain: Vec<String> = std::env::var(VISITED)
                .ok()
                .filter(|v| !v.is_empty())
                .into_iter()
                .collect();
            let me = std::env::current_exe().ok().and_then(|p| identity(&p));
            for (dev, ino) in me.into_iter().chain(identity(&rg)) {
                chain.push(format!("{dev}:{ino}"));
            }
            let err = std::process::Command::new(&rg)
                .args(argv)
                .env(VISITED, chain.join(","))
                .exec();
            format!(
                "{flag} is not supported and running {} failed: {err}",
                rg.display()
            )
        }
        Found::BadVariable(why) => format!("{flag} is not supported here and {why}"),
        Found::None => format!(
            "{flag} is not supported here and no real rg was found (codesift-rg never runs \
             itself): set CODESIFT_REAL_RG to ripgrep's path, put ripgrep's rg on PATH after \
             the shim, or pip install ripgrep and run `codesift shim` again"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_rg_is_found_only_from_an_installed_package_layout() {
        let installed = Path::new("/venv/lib/python3.12/site-packages/codesift/bin/codesift-rg");
        assert_eq!(
            rg_beside_environment(installed),
            Some(PathBuf::from("/venv/bin/rg"))
        );
        let debian = Path::new("/usr/lib/python3/dist-packages/codesift/bin/codesift-rg");
        assert_eq!(
            rg_beside_environment(debian),
            Some(PathBuf::from("/usr/bin/rg"))
        );
        // A source checkout (an editable install) has no environment above it.
        let checkout = Path::new("/home/me/codesift/python/codesift/bin/codesift-rg");
        assert_eq!(rg_beside_environment(checkout), None);
    }

    #[test]
    fn visited_list_keeps_well_formed_pairs() {
        assert_eq!(
            parse_visited("1:2,bad,3:x,,4:5"),
            vec![(1, 2), (4, 5)],
            "malformed entries are dropped"
        );
        assert_eq!(parse_visited(""), vec![]);
    }
}
