//! The per-user index daemon: one process that keeps, for every root its clients search, one
//! index and one inotify watch, and answers which files a search must read. `dir` finds and
//! checks the private socket directory, `proto` frames messages, `wire` types every request
//! and reply (one definition for both ends), `server` accepts and serves
//! them, `roots` holds the per-root state and answers `select` (and `files` from the lists
//! `listings` keeps, and the verdicts of ripgrep's rules `verdicts` keeps), `client` asks it (the bulk of large replies
//! framed by `bulk`),
//! `ask` turns a search into a `select` and its reply into files to search, and starts the
//! daemon in the background (`crate::fs::spawn`) without anyone waiting for it; `cli` is the
//! `codesift-daemon` executable's command line. See docs/daemon.md.

pub mod ask;
pub mod bulk;
pub mod cli;
pub mod client;
pub mod dir;
pub mod front_coding;
pub mod listings;
pub mod proto;
pub mod roots;
pub mod server;
pub mod token_kept;
pub mod verdicts;
pub mod wire;
