//! The index's watch as searches share it: one slot per index, from which a search takes
//! the watch and to which it puts it back, and a new watch caught up by a walk of the whole
//! tree (for a rebuilt index to start with).

use super::files::{Chooser, from_walk};
use super::format::IndexFile;
use super::fresh::Watch;
use crate::fs::walk::Walker;
use std::path::Path;
use std::sync::Mutex;

/// An index for a search to use, and its watch when it keeps one.
#[derive(Clone, Copy)]
pub struct IndexUse<'a> {
    pub file: &'a IndexFile,
    pub watch: Option<&'a Mutex<Option<Watch>>>,
}

/// The watch in `slot` for a search of `index`, drained. A watch caught up against a newer
/// index than this search's (swapped in meanwhile by a rebuild) does not vouch for this one's
/// files: it is left to the searches that use it.
pub(crate) fn take(slot: &Mutex<Option<Watch>>, index: &IndexFile) -> Option<Watch> {
    let mut taken = {
        let mut slot = slot.lock().unwrap();
        match slot.as_ref() {
            Some(w) if w.generation > index.build_start_ns => None,
            _ => slot.take(),
        }
    };
    if let Some(w) = taken.as_mut() {
        w.drain();
    }
    taken
}

/// Returns a watch to its slot, unless a newer one (of a newer index) took its place.
pub(super) fn put_back(slot: &Mutex<Option<Watch>>, watch: Watch) {
    let mut slot = slot.lock().unwrap();
    if slot
        .as_ref()
        .is_none_or(|w| w.generation <= watch.generation)
    {
        *slot = Some(watch);
    }
}

/// A new watch caught up against `index` by a walk of the whole tree that `stat`s every file
/// (what differs from the index is dirty), for a rebuilt index to start with; `None` when a
/// watch cannot be kept (too many directories for inotify, a change of rules meanwhile).
pub fn caught_up_watch(walker: Walker, index: &IndexFile) -> Option<Watch> {
    let mut watch = Watch::new(rule_names(&walker)).ok()?;
    watch.add_git_info(walker.root());
    watch.generation = index.build_start_ns;
    let start = walker
        .start(Path::new(""), crate::fs::root::Links::Refuse)
        .ok()?;
    let nothing = roaring::RoaringBitmap::new();
    // Every file is looked at, and nothing is searched: no binary file to count.
    let chooser = Chooser {
        index,
        candidates: &nothing,
        accepts: &|_| true,
        binary: &|| {},
    };
    let (_, _, watch) = from_walk(walker, start, chooser, Some(watch), true);
    watch.filter(|w| w.trusted())
}

/// Returns `watch` to its slot for the searches to use (a newer one in the slot stays).
pub fn install_watch(slot: &Mutex<Option<Watch>>, watch: Watch) {
    put_back(slot, watch);
}

/// The names whose change makes the watch give up (rule files decide what is visible).
pub(super) fn rule_names(walker: &Walker) -> Vec<Vec<u8>> {
    let mut names: Vec<Vec<u8>> = vec![b".gitignore".to_vec(), b".ignore".to_vec()];
    names.extend(
        walker
            .options()
            .rules
            .access_files
            .iter()
            .map(|n| n.as_bytes().to_vec()),
    );
    names
}
