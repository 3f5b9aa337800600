//! Engine errors: everything a walk, a search or a file operation can fail with, as plain
//! Rust values with messages that say what to do next.

use std::fmt;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// A failure of a whole operation. Failures on single files inside a walk are not errors:
/// they are counted in the result's statistics and the walk goes on.
#[derive(Debug)]
pub enum Error {
    /// A regex or glob that does not compile, or exceeds a limit.
    Pattern(String),
    /// A path that does not exist.
    NotFound(String),
    /// An argument outside its allowed values.
    InvalidArgument(String),
    /// A path outside the workspace, through a symlink, or denied by an access-ignore file.
    Sandbox(String),
    /// A directory, FIFO, socket or device where a regular file is needed (or the reverse).
    NotAFile(String),
    /// A binary file where text is needed.
    Binary(String),
    /// A file changed on disk between reading and writing it; nothing was written.
    Conflict(String),
    /// Any other failure of the operation, with its message.
    Io(String),
    /// The operation was cancelled through its `CancelToken` and stopped early.
    Cancelled(String),
    /// An error (the problem) with what to do next: a `Hint` each surface renders in its own
    /// words. The Python exception is that of the inner error.
    Hinted(Box<Error>, Hint),
}

/// The concepts a hint names: each surface says them in its own vocabulary (a tool's
/// parameter, a CLI flag, an HTTP field), or leaves them out where it has none.
pub mod concept {
    /// Searching for the pattern as plain text.
    pub const LITERAL: &str = "literal search";
    /// Letting a match span lines.
    pub const MULTILINE: &str = "multiline search";
    /// Narrowing a search to the files whose names match a glob.
    pub const FILE_GLOB: &str = "narrow by file glob";
    /// Listing what is in a directory.
    pub const LIST_DIR: &str = "list a directory";
    /// Finding files by name.
    pub const FIND_FILES: &str = "find files by name";
    /// Reading a file (or the region of it an error is about).
    pub const READ: &str = "read the region first";
}

/// What to do next after an error, with the options it needs named by concept, so that the
/// advice names only what the surface that shows it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hint {
    /// The advice, with `{option}` where the surface's names for `concepts` go.
    pub text: &'static str,
    /// The concepts `{option}` stands for (the surface's names joined with "or").
    pub concepts: &'static [&'static str],
    /// The advice where the surface has none of the concepts ("": no advice at all).
    pub fallback: &'static str,
    /// What joins the advice to the problem: "\n", " " (after a sentence) or "; ".
    pub separator: &'static str,
}

impl Hint {
    /// The advice in the library's own words (the names of the `codesift` tool profile):
    /// what the error's message says wherever no surface renders it.
    pub fn library_text(&self) -> String {
        let names: Vec<&str> = self.concepts.iter().map(|c| library_option(c)).collect();
        if names.is_empty() {
            return self.fallback.to_string();
        }
        self.text.replace("{option}", &names.join(" or "))
    }
}

/// The library's name for a concept.
fn library_option(concept: &str) -> &'static str {
    match concept {
        concept::LITERAL => "literal=true",
        concept::MULTILINE => "multiline=true",
        concept::FILE_GLOB => "include=\"*.ext\"",
        concept::LIST_DIR => "list_dir",
        concept::FIND_FILES => "glob",
        concept::READ => "read_file",
        _ => "",
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Pattern(msg)
            | Error::NotFound(msg)
            | Error::InvalidArgument(msg)
            | Error::Sandbox(msg)
            | Error::NotAFile(msg)
            | Error::Binary(msg)
            | Error::Conflict(msg)
            | Error::Io(msg)
            | Error::Cancelled(msg) => write!(f, "{msg}"),
            Error::Hinted(problem, hint) => {
                let advice = hint.library_text();
                if advice.is_empty() {
                    write!(f, "{problem}")
                } else {
                    write!(f, "{problem}{}{advice}", hint.separator)
                }
            }
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// How a workspace-relative path is shown in messages: `./src/a.ts` (`.` for the root; an
/// absolute path, as a caller gave it, as it is), with bytes that are not UTF-8 written as
/// `\xNN`, so nothing is lost.
pub fn shown(rel: &Path) -> String {
    let bytes = rel.as_os_str().as_bytes();
    if bytes.is_empty() {
        return ".".into();
    }
    if rel.is_absolute() {
        return escaped(bytes);
    }
    let mut out = String::from("./");
    out.push_str(&escaped(bytes));
    out
}

/// Bytes as text, with those that are not UTF-8 written as `\xNN`.
pub fn escaped(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out
}

/// Marks the I/O error of a file changed by someone else since it was read
/// (`fs::write::changed_on_disk`), so that `Error::io` makes it a `Conflict`.
#[derive(Debug)]
pub struct ChangedOnDisk;

impl std::fmt::Display for ChangedOnDisk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "changed on disk")
    }
}

impl std::error::Error for ChangedOnDisk {}

impl Error {
    /// This error with `hint` as what to do next.
    pub fn hinted(self, hint: Hint) -> Error {
        Error::Hinted(Box::new(self), hint)
    }

    /// What went wrong, without the advice.
    pub fn problem(&self) -> String {
        match self {
            Error::Hinted(problem, _) => problem.problem(),
            other => other.to_string(),
        }
    }

    /// What to do next, when the error says it as a `Hint`.
    pub fn hint(&self) -> Option<&Hint> {
        match self {
            Error::Hinted(_, hint) => Some(hint),
            _ => None,
        }
    }

    /// The error without its hint (its kind and problem).
    pub fn unhinted(&self) -> &Error {
        match self {
            Error::Hinted(inner, _) => inner.unhinted(),
            other => other,
        }
    }

    /// The error for an I/O failure on `rel` while doing `action` ("read", "write", ...).
    pub fn io(rel: &Path, action: &str, err: &io::Error) -> Error {
        if let Some(inner) = err.get_ref()
            && inner.is::<ChangedOnDisk>()
        {
            return Error::Conflict(format!(
                "{} changed on disk since it was read; nothing was written. Read it again \
                     and redo the edit",
                shown(rel)
            ));
        }
        let path = shown(rel);
        match err.raw_os_error() {
            Some(libc::ENOENT) => Error::NotFound(format!("{path} does not exist")).hinted(Hint {
                text: "check the path with {option}",
                concepts: &[concept::FIND_FILES, concept::LIST_DIR],
                fallback: "check the path",
                separator: "; ",
            }),
            Some(libc::ENOTDIR) => Error::NotFound(format!(
                "{path} does not exist (a part of it is a file, not a directory)"
            ))
            .hinted(Hint {
                text: "check the path with {option}",
                concepts: &[concept::LIST_DIR],
                fallback: "check the path",
                separator: "; ",
            }),
            Some(libc::EXDEV) => Error::Sandbox(format!(
                "{path} leads outside the workspace (through `..` or a symlink); only paths \
                 inside the workspace root can be used"
            )),
            Some(libc::ELOOP) => Error::Sandbox(format!(
                "{path} is or passes through a symlink (or a chain of too many), which codesift \
                 does not follow here; use the path the link points to"
            )),
            Some(libc::EISDIR) => Error::NotAFile(format!("{path} is a directory")).hinted(Hint {
                text: "use {option} to see what is in it",
                concepts: &[concept::LIST_DIR],
                fallback: "",
                separator: "; ",
            }),
            Some(libc::ENODEV | libc::ENXIO) => Error::NotAFile(format!(
                "{path} is not a regular file (a FIFO, socket or device); only files can be \
                 read or edited"
            )),
            Some(libc::ENAMETOOLONG) => Error::InvalidArgument(format!(
                "{path}: a file name (or the path) is too long; use a shorter name"
            )),
            Some(libc::EINVAL) => Error::InvalidArgument(format!(
                "{path} is not a valid path here; pass a plain relative path inside the workspace"
            )),
            Some(libc::EACCES | libc::EPERM) => Error::Io(format!(
                "permission denied to {action} {path}; check the file's permissions"
            )),
            Some(libc::ENOSPC | libc::EDQUOT) => Error::Io(format!(
                "no space left on the device to {action} {path}; nothing was written. Free \
                 some space and try again"
            )),
            Some(libc::EFBIG) => Error::Io(format!(
                "{path} would exceed the file size limit; nothing was written"
            )),
            Some(libc::EROFS) => Error::Io(format!(
                "cannot {action} {path}: the file system is read-only"
            )),
            Some(libc::ENOTEMPTY | libc::EEXIST) => Error::Io(format!(
                "cannot {action} {path}: something else is in the way ({err})"
            )),
            _ => Error::Io(format!("cannot {action} {path}: {err}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn paths_are_shown_relative_to_the_root_and_absolute_ones_as_given() {
        let non_utf8 = Path::new(OsStr::from_bytes(b"src/t\xff.txt"));
        for (path, expected) in [
            (Path::new(""), "."),
            (Path::new("src/a.ts"), "./src/a.ts"),
            (non_utf8, "./src/t\\xff.txt"),
            (Path::new("/tmp/outside"), "/tmp/outside"),
        ] {
            assert_eq!(shown(path), expected, "{path:?}");
        }
    }

    #[test]
    fn a_hinted_error_keeps_its_problem_and_hint_apart() {
        let err = Error::io(
            Path::new("src/gone.rs"),
            "read",
            &io::Error::from_raw_os_error(libc::ENOENT),
        );
        assert_eq!(err.problem(), "./src/gone.rs does not exist");
        let hint = err.hint().expect("a hint");
        assert_eq!(hint.concepts, [concept::FIND_FILES, concept::LIST_DIR]);
        assert!(matches!(err.unhinted(), Error::NotFound(_)));
        // The message in the library's words, as Python's str(exc) gives it.
        assert_eq!(
            err.to_string(),
            "./src/gone.rs does not exist; check the path with glob or list_dir"
        );
    }

    #[test]
    fn a_hint_without_concepts_or_advice_leaves_the_problem_alone() {
        let hint = Hint {
            text: "unused {option}",
            concepts: &[],
            fallback: "",
            separator: "; ",
        };
        let err = Error::InvalidArgument("bad".into()).hinted(hint);
        assert_eq!(err.to_string(), "bad");
    }
}
