//! Engine errors: everything a walk or a search can fail with, as plain Rust values.

use std::fmt;
use std::path::PathBuf;

/// A failure of a whole operation. Failures on single files inside a walk are not errors:
/// they are counted in the result's statistics and the walk goes on.
#[derive(Debug)]
pub enum Error {
    /// A regex or glob that does not compile.
    Pattern(String),
    /// The search path does not exist.
    NotFound(PathBuf),
    /// An argument outside its allowed values.
    InvalidArgument(String),
    /// An I/O failure that stops the operation (for example an unreadable search root).
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Pattern(msg) => write!(f, "{msg}"),
            Error::NotFound(path) => write!(f, "{} does not exist", path.display()),
            Error::InvalidArgument(msg) => write!(f, "{msg}"),
            Error::Io { path, source } => write!(f, "cannot read {}: {source}", path.display()),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;
