//! Answering from the index: a planned trigram query evaluated over the posting lists gives
//! the units (or, for multiline patterns, the files) that may hold a match; every other
//! indexed file that is unchanged since the build certainly holds none, and so does every
//! other unit of an unchanged file.

use super::format::IndexFile;
use super::plan::Query;
use roaring::RoaringBitmap;
use std::io;

/// Above this share of the indexed bytes in candidates, the scan is as fast: no index.
pub const MAX_CANDIDATE_SHARE: f64 = 0.6;
/// An alternation of more trigrams than this narrows nothing worth decoding that many lists
/// for (`[a-z]_[0-9]` is 260): it is taken as "every unit" (sound: a superset).
pub const MAX_OR_TRIGRAMS: usize = 64;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    /// A match lies within one unit (line-oriented search: units are line-aligned).
    Unit,
    /// A match may cross units (multiline): conditions hold over the whole file.
    File,
}

/// What the index narrowed a search to.
pub struct Candidates {
    /// The files (ids in the index) that may hold a match.
    pub files: RoaringBitmap,
    /// For a line-oriented search, the units that may hold one (every match lies in one).
    pub units: Option<RoaringBitmap>,
}

/// The candidates of a pattern planned as `query`, or `None` when the index cannot narrow the
/// search enough to be worth it. `unit_reads`: the search will read only the candidate units
/// of a file (else whole files), which is what the estimate of the bytes to read counts.
pub fn candidates(
    index: &IndexFile,
    query: &Query,
    multiline: bool,
    unit_reads: bool,
) -> io::Result<Option<Candidates>> {
    let level = if multiline { Level::File } else { Level::Unit };
    // A plan whose candidates are bound to be too many is not evaluated at all: an OR of
    // hundreds of trigrams (`[a-z]_[0-9]`) would decode as many lists only to scan.
    let units = index.unit_count() as u64;
    if units > 0 && estimate(index, query, units) as f64 > units as f64 * MAX_CANDIDATE_SHARE {
        return Ok(None);
    }
    let Some(found) = evaluate(index, query, level)? else {
        return Ok(None);
    };
    let (files, units) = match level {
        Level::Unit => (units_to_files(index, &found), Some(found)),
        Level::File => (found, None),
    };
    let all_bytes = index.total_bytes();
    let mut candidate_bytes = 0u64;
    for file in files.iter() {
        let record = index.file(file as usize);
        candidate_bytes += match &units {
            Some(units) if unit_reads && record.units > 1 => units
                .range(record.first_unit..record.first_unit + record.units)
                .map(|unit| index.unit_span(&record, unit).1)
                .sum(),
            _ => record.size,
        };
    }
    if all_bytes > 0 && candidate_bytes as f64 > all_bytes as f64 * MAX_CANDIDATE_SHARE {
        return Ok(None);
    }
    Ok(Some(Candidates { files, units }))
}

fn units_to_files(index: &IndexFile, units: &RoaringBitmap) -> RoaringBitmap {
    let mut files = RoaringBitmap::new();
    let mut last = None;
    for unit in units.iter() {
        let file = index.unit_file(unit);
        if last != Some(file) {
            files.insert(file);
            last = Some(file);
        }
    }
    files
}

/// An upper bound on the units `query` leaves (from the lists' sizes, nothing decoded).
fn estimate(index: &IndexFile, query: &Query, units: u64) -> u64 {
    match query {
        Query::All => units,
        Query::Nothing => 0,
        Query::Trigram(trigram) if trigram.to_be_bytes()[1..].contains(&b'\n') => units,
        Query::Trigram(trigram) => index.posting_count(*trigram),
        Query::And(children) => children
            .iter()
            .map(|c| estimate(index, c, units))
            .min()
            .unwrap_or(units),
        Query::Or(children) if children.len() > MAX_OR_TRIGRAMS => units,
        Query::Or(children) => children
            .iter()
            .map(|c| estimate(index, c, units))
            .fold(0u64, |sum, n| sum.saturating_add(n))
            .min(units),
    }
}

/// `None` stands for "every unit".
fn evaluate(index: &IndexFile, query: &Query, level: Level) -> io::Result<Option<RoaringBitmap>> {
    Ok(match query {
        Query::All => None,
        Query::Nothing => Some(RoaringBitmap::new()),
        Query::Trigram(trigram) => {
            // A trigram with a line end may span two units (units end after a `\n`): it
            // narrows nothing.
            if trigram.to_be_bytes()[1..].contains(&b'\n') {
                None
            } else {
                let units = index.postings(*trigram)?;
                Some(match level {
                    Level::Unit => units,
                    Level::File => units_to_files(index, &units),
                })
            }
        }
        Query::And(children) => {
            let mut sets = Vec::new();
            for child in children {
                if let Some(set) = evaluate(index, child, level)? {
                    if set.is_empty() {
                        return Ok(Some(set));
                    }
                    sets.push(set);
                }
            }
            // Rarest first: the running intersection only shrinks.
            sets.sort_by_key(|s| s.len());
            let mut sets = sets.into_iter();
            match sets.next() {
                None => None,
                Some(mut acc) => {
                    for set in sets {
                        acc &= set;
                        if acc.is_empty() {
                            break;
                        }
                    }
                    Some(acc)
                }
            }
        }
        Query::Or(children) if children.len() > MAX_OR_TRIGRAMS => None,
        Query::Or(children) => {
            let mut acc = RoaringBitmap::new();
            for child in children {
                match evaluate(index, child, level)? {
                    None => return Ok(None),
                    Some(set) => acc |= set,
                }
            }
            Some(acc)
        }
    })
}
