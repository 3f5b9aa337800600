//! The persistent trigram index: query planning (`plan`), the file format (`format`), the
//! build (`build`), where indexes live (`store`), candidate selection (`query`), the files an
//! indexed search reads (`files`), the watch as searches share it (`watched`) and what a
//! search answered by the watch selects and reports (`select`), a build's memory budget and
//! spilled runs (`spill`), the posting lists a build gathers (`postings`), sets of units as a query
//! intersects them (`unit_set`), and the low priority of
//! background index work (`background`). Searches verify every
//! candidate with the scan's own matcher, so results are those of a scan.

pub mod background;
pub mod build;
pub mod files;
pub mod format;
pub mod fresh;
pub mod handle;
pub mod plan;
pub mod postings;
pub mod query;
pub mod select;
pub mod spill;
pub mod store;
pub mod unit_set;
pub mod watched;
