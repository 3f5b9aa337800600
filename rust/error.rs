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
            Some(libc::ENOENT) => Error::NotFound(format!(
                "{path} does not exist; check the path with glob or list_dir"
            )),
            Some(libc::ENOTDIR) => Error::NotFound(format!(
                "{path} does not exist (a part of it is a file, not a directory); check the \
                 path with list_dir"
            )),
            Some(libc::EXDEV) => Error::Sandbox(format!(
                "{path} leads outside the workspace (through `..` or a symlink); only paths \
                 inside the workspace root can be used"
            )),
            Some(libc::ELOOP) => Error::Sandbox(format!(
                "{path} is or passes through a symlink (or a chain of too many), which codesift \
                 does not follow here; use the path the link points to"
            )),
            Some(libc::EISDIR) => Error::NotAFile(format!(
                "{path} is a directory; use list_dir to see what is in it"
            )),
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
}
