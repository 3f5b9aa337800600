//! Filesystem access beneath one open handle on the workspace root: path resolution that
//! cannot leave the root (`root`), the parallel and sorted walkers that read directories
//! through their handles (`walk`), what walks pass over (`skipped`), directory trees for
//! listing (`tree`), atomic, locked replacement of files (`write`), the ignore and access
//! rules that decide what a walk sees (`rules`), and the workspace's file operations with
//! their write policy (`files`); and, outside any workspace, an open directory whose entries
//! are only reached through its descriptor (`dir`: the index cache, the daemon's directory);
//! a file read whole at its known size (`read`), descriptors handed to and from the Python
//! caller (`handoff`), directories watched for changes through their handles (`notify`), and
//! a detached process whose standard streams are /dev/null (`spawn`: the daemon's start).
//!
//! Nothing in the engine opens a path by name from the process's point of view: every open,
//! listing, stat, mkdir and rename is relative to a directory descriptor that was itself
//! reached beneath the root, so a directory or file swapped for a symlink at any moment can
//! never make codesift read, list or write outside it.

pub mod dir;
pub mod files;
pub mod handoff;
pub mod notify;
pub mod read;
pub mod root;
pub mod rules;
pub mod skipped;
pub mod spawn;
pub mod tree;
pub mod walk;
pub mod write;

pub use root::{Links, Resolved, Root};
