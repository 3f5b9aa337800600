//! The daemon's roots: one index handle and one watch per root (keyed by its real path and
//! the walk options, which decide which files the index holds), reused from `index::handle`
//! and `index::fresh`; what `select` answers (the selection itself is the indexed search's,
//! `search::select_watched`) and what `glob` answers (the indexed glob's own outcome,
//! `glob::glob_indexed_picked`); catching a watch up (and building a missing index) in the
//! background; and the per-root part of `status`.
//!
//! `registry` holds the roots (`Roots`) and finds each request's entry; `entry` is one root's
//! state (`RootEntry`: index, watch, catch-up, status) and `serve` what it answers; `request`
//! reads and checks what a request names; `reply` holds the parts replies share.
//!
//! Freshness: the watch is drained after the request was read in full and before the answer
//! is computed. The kernel queues an inotify event inside the system call that made the
//! change, so every change that completed before the client sent its request is in the
//! queue by then. Anything the watch cannot vouch for (not caught up, overflowed, a rule file
//! changed, a file system without events) is answered `scan`, never a stale selection.

mod entry;
mod registry;
mod reply;
mod request;
mod serve;

pub use registry::{MAX_ROOTS, Roots};
pub use request::BadRequest;
