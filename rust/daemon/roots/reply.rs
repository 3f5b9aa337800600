//! The parts of replies that root entries share: a reply with its bulk frame, the `scan` of
//! a query no entry may answer, and what a walk passed over.

use super::super::wire::{Reply, Skip, SkipPaths, WirePath};
use crate::fs::skipped::{Example, Reason};

/// A reply, and the bulk frame that follows it (its length announced as `bulk_frame`).
pub type Bulky<T> = (Reply<T>, Option<Vec<u8>>);

/// A query that no root entry may answer, and why: the client scans.
pub(super) struct NotServed(pub(super) String);

impl NotServed {
    pub(super) fn into_any<T>(self) -> Reply<T> {
        Reply::scan(self.0, None)
    }
}

/// What a walk's skip report holds: per reason, how many and some examples.
type SkipReport = [(Reason, u64, Vec<Example>)];

/// What a walk passed over, each example with its kind (a directory is shown with a `/`),
/// for clients that replay the summary field by field; the reasons counted at least once.
pub(super) fn skips(report: &SkipReport) -> Vec<Skip> {
    counted(
        report,
        |e| (WirePath::from(e.path.as_path()), e.is_dir),
        Skip,
    )
}

/// The same, the examples without their kind (`skipped`, for hand-written tools).
pub(super) fn skip_paths(report: &SkipReport) -> Vec<SkipPaths> {
    counted(report, |e| WirePath::from(e.path.as_path()), SkipPaths)
}

/// The reasons counted at least once, each made into `T` with its examples as `example` says.
fn counted<E, T>(
    report: &SkipReport,
    example: impl Fn(&Example) -> E,
    make: impl Fn(String, u64, Vec<E>) -> T,
) -> Vec<T> {
    report
        .iter()
        .filter(|(_, count, _)| *count > 0)
        .map(|(reason, count, examples)| {
            make(
                reason.name().to_string(),
                *count,
                examples.iter().map(&example).collect(),
            )
        })
        .collect()
}
