//! `codesift-rg`: ripgrep 15's command line served by ripgrep's own crates (argv parsing in
//! `args`, config in `config`, which files in `haystack` and `walk`, search and print in
//! `search` and `worker`), and the hand-over to the real rg for anything it does not serve
//! (`fallback`).
//!
//! `entry` is the executable's entry (`main`), `version` its `--version`; `run` settles one
//! run's defaults and chooses its files; `matcher` builds the regex, `listing` prints
//! `--files` and `--type-list`, `worker` searches on one thread or many; `messages` are its
//! stderr lines.
//!
//! Which files: a walk (`haystack`, `walk`), or the daemon's index of every file with
//! ripgrep's rules applied at query time (`index`, `CODESIFT_RG_INDEX=never|auto|force`);
//! searching and printing are the same for both. A `--files` run may print the list the
//! daemon keeps for its command line instead (`kept_list`).

mod args;
mod config;
mod entry;
mod fallback;
mod gather;
mod haystack;
mod index;
mod kept_list;
mod listing;
mod matcher;
mod messages;
mod run;
mod search;
mod version;
mod walk;
mod worker;

pub use entry::main;
pub use version::RIPGREP_VERSION;
