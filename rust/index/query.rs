//! Answering from the index: a planned trigram query evaluated over the posting lists gives
//! the units (or, for multiline patterns, the files) that may hold a match; every other
//! indexed file that is unchanged since the build certainly holds none, and so does every
//! other unit of an unchanged file.

use super::format::IndexFile;
use super::plan::Query;
use super::unit_set::UnitSet;
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
    let Some(found) = evaluated(index, query, multiline)? else {
        return Ok(None);
    };
    let (files, units) = match found {
        Found::Units(units) => (units_to_files(index, &units), Some(units)),
        Found::Files(files) => (files, None),
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

/// The candidates of a pattern planned as `query`, without weighing the bytes they hold
/// against a scan's: for a search that reads only its first few candidates (a page), where
/// adding up every candidate's bytes would cost more than the page's reads. Its files are
/// found from its units as they are read (`Narrowed::files_from`), not all at once. `None`
/// when the plan narrows nothing (or too little to be worth decoding its lists).
pub fn narrowed(index: &IndexFile, query: &Query, multiline: bool) -> io::Result<Option<Narrowed>> {
    Ok(evaluated(index, query, multiline)?.map(|found| Narrowed { found, files: None }))
}

/// What `query` leaves: units for a line-oriented search, files for a multiline one.
enum Found {
    Units(RoaringBitmap),
    Files(RoaringBitmap),
}

/// `query` evaluated, or `None` when it narrows nothing (or its candidates are bound to be
/// too many to be worth decoding the lists for).
fn evaluated(index: &IndexFile, query: &Query, multiline: bool) -> io::Result<Option<Found>> {
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
    let found = found.into_bitmap();
    Ok(Some(match level {
        Level::Unit => Found::Units(found),
        Level::File => Found::Files(found),
    }))
}

/// The candidates of a search that selects them for another to read (`select_watched`): a
/// page's (`narrowed`), a whole search's (`Candidates`) or every indexed file.
pub struct Narrowed {
    found: Found,
    /// The files of `found`'s units, where a whole selection worked them out already.
    files: Option<RoaringBitmap>,
}

impl Narrowed {
    /// Every one of `files`, read whole.
    pub fn of_files(files: RoaringBitmap) -> Narrowed {
        Narrowed {
            found: Found::Files(files),
            files: None,
        }
    }

    /// The units that may hold a match, for a line-oriented search.
    pub fn units(&self) -> Option<&RoaringBitmap> {
        match &self.found {
            Found::Units(units) => Some(units),
            Found::Files(_) => None,
        }
    }

    /// The candidate files from file `first` on, ascending (ids in the index). A page reads
    /// a few of them: its units are mapped to their files only as far as it reads (mapping
    /// every unit cost a sixth of a page's selection on the Linux tree).
    pub fn files_from<'a>(
        &'a self,
        index: &'a IndexFile,
        first: u32,
    ) -> Box<dyn Iterator<Item = u32> + 'a> {
        match (&self.found, &self.files) {
            (Found::Files(files), _) | (Found::Units(_), Some(files)) => {
                Box::new(files.range(first..))
            }
            (Found::Units(units), None) => {
                let Some(first_unit) = ((first as usize) < index.file_count())
                    .then(|| index.file(first as usize).first_unit)
                else {
                    return Box::new(std::iter::empty());
                };
                let mut last = None;
                Box::new(units.range(first_unit..).filter_map(move |unit| {
                    let file = index.unit_file(unit);
                    (last != Some(file)).then(|| {
                        last = Some(file);
                        file
                    })
                }))
            }
        }
    }
}

impl From<Candidates> for Narrowed {
    /// A whole search's candidates: its units when it has them, and its files as it found
    /// them (not found again from the units).
    fn from(candidates: Candidates) -> Narrowed {
        match candidates.units {
            Some(units) => Narrowed {
                found: Found::Units(units),
                files: Some(candidates.files),
            },
            None => Narrowed::of_files(candidates.files),
        }
    }
}

fn units_to_files(index: &IndexFile, units: &RoaringBitmap) -> RoaringBitmap {
    // Units ascend with their files': the files come ascending, each once, and are made a
    // bitmap at once (inserting them one by one cost a tenth of a page's selection).
    let mut files: Vec<u32> = Vec::new();
    for unit in units.iter() {
        let file = index.unit_file(unit);
        if files.last() != Some(&file) {
            files.push(file);
        }
    }
    super::format::bitmap_of_ascending(&files)
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

/// `None` stands for "every unit" (at `Level::File`, "every file").
fn evaluate(index: &IndexFile, query: &Query, level: Level) -> io::Result<Option<UnitSet>> {
    Ok(match query {
        Query::All => None,
        Query::Nothing => Some(UnitSet::Ids(Vec::new())),
        Query::Trigram(trigram) => {
            // A trigram with a line end may span two units (units end after a `\n`): it
            // narrows nothing.
            if trigram.to_be_bytes()[1..].contains(&b'\n') {
                None
            } else {
                let units = index.posting_set(*trigram)?;
                Some(match level {
                    Level::Unit => units,
                    Level::File => UnitSet::Bitmap(units_to_files(index, &units.into_bitmap())),
                })
            }
        }
        Query::And(children) => {
            // Rarest first (by the sizes the lookup table gives, nothing decoded): the
            // running intersection only shrinks, and once empty the other lists are not
            // read at all.
            let units = index.unit_count() as u64;
            let mut children: Vec<(u64, &Query)> = children
                .iter()
                .map(|child| (estimate(index, child, units), child))
                .collect();
            children.sort_by_key(|(estimate, _)| *estimate);
            let mut acc: Option<UnitSet> = None;
            // Every list is intersected: the rarest three of a literal's lists can leave ten
            // times the units all of them do (`PM_RESUME` on the Linux tree: 1,573 and 125).
            for (_, child) in children {
                let Some(set) = evaluate(index, child, level)? else {
                    continue;
                };
                let both = match acc {
                    None => set,
                    // The smaller one's ids are kept or looked up: it goes first.
                    Some(acc) if acc.len() <= set.len() => acc.and(&set),
                    Some(acc) => set.and(&acc),
                };
                if both.is_empty() {
                    return Ok(Some(both));
                }
                acc = Some(both);
            }
            acc
        }
        Query::Or(children) if children.len() > MAX_OR_TRIGRAMS => None,
        Query::Or(children) => {
            let mut acc = UnitSet::Bitmap(RoaringBitmap::new());
            for child in children {
                match evaluate(index, child, level)? {
                    None => return Ok(None),
                    Some(set) => acc = acc.or(set),
                }
            }
            Some(acc)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::root::Root;
    use crate::fs::walk::WalkOptions;
    use crate::fs::walk::Walker;
    use std::sync::Arc;

    fn index_of(files: &[(&str, &str)]) -> (tempfile::TempDir, IndexFile) {
        let tree = crate::test_support::temp_tree(files);
        let out = tree.path().join("..").join(format!(
            "{}.index",
            tree.path().file_name().unwrap().to_string_lossy()
        ));
        let output = crate::index::build::Output {
            index: std::fs::File::create(&out).unwrap(),
            spill: &tempfile::tempfile,
            memory_budget: crate::index::spill::DEFAULT_MEMORY,
        };
        let walker = Walker::new(
            Arc::new(Root::open(tree.path()).unwrap()),
            WalkOptions::for_tests(false, 1),
        );
        crate::index::build::build(&walker, output, 0, &|_, _| {}).unwrap();
        let index = IndexFile::open(&out).unwrap();
        std::fs::remove_file(&out).unwrap();
        (tree, index)
    }

    fn paths(index: &IndexFile, files: &RoaringBitmap) -> Vec<String> {
        files
            .iter()
            .map(|i| String::from_utf8_lossy(index.path(i as usize)).into_owned())
            .collect()
    }

    #[test]
    fn a_conjunction_intersects_every_list_however_long() {
        // `abc`, `bcd` and `cde` are in the same 21 files; `def`, the longest list, is the one
        // that leaves a single file.
        let mut files: Vec<(String, String)> = (0..20)
            .map(|i| (format!("near{i:02}.txt"), format!("abcdeX {i}\n")))
            .collect();
        files.extend((0..100).map(|i| (format!("def{i:03}.txt"), format!("zdefz {i}\n"))));
        files.push(("both.txt".to_string(), "abcdef\n".to_string()));
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let (_tree, index) = index_of(&files);
        let plan = crate::index::plan::plan("abcdef", false);
        let page = narrowed(&index, &plan, false).unwrap().expect("narrowed");
        let found = page.files_from(&index, 0).collect::<RoaringBitmap>();
        println!(
            "expected [\"both.txt\"]\nactual   {:?}",
            paths(&index, &found)
        );
        assert_eq!(paths(&index, &found), ["both.txt"]);
    }

    #[test]
    fn a_page_is_narrowed_where_a_whole_search_would_rather_scan() {
        // `needle` is in every unit of one large file and in no small one: a few of the
        // units, but nearly every byte. A whole search scans; a page reads its candidates
        // from the index.
        let needles = "needle needle needle\n".repeat(2_400);
        let mut files = vec![("big.txt".to_string(), needles)];
        files.extend((0..10).map(|i| (format!("s{i}.txt"), format!("no match {i} here\n"))));
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let (_tree, index) = index_of(&files);
        assert!(index.unit_count() > 12, "{} units", index.unit_count());
        let plan = crate::index::plan::plan("needle", false);
        let whole = candidates(&index, &plan, false, true).unwrap();
        assert!(whole.is_none(), "most of the bytes: the whole search scans");
        let page = narrowed(&index, &plan, false)
            .unwrap()
            .expect("a page's candidates");
        let expected = ["big.txt"];
        let page_files = page.files_from(&index, 0).collect::<RoaringBitmap>();
        println!(
            "expected {expected:?}\nactual   {:?}",
            paths(&index, &page_files)
        );
        assert_eq!(paths(&index, &page_files), expected);
        let first_unit = index.file(page_files.min().unwrap() as usize).first_unit;
        let units: Vec<u32> = page.units().unwrap().iter().collect();
        assert_eq!(
            units,
            (first_unit..first_unit + units.len() as u32).collect::<Vec<_>>()
        );
        assert!(units.len() > 2, "every unit of the large file: {units:?}");
        // Where both answer, they are the same candidates.
        let rare = crate::index::plan::plan("match 3", false);
        let whole = candidates(&index, &rare, false, true).unwrap().unwrap();
        let page = narrowed(&index, &rare, false).unwrap().unwrap();
        let page_files = page.files_from(&index, 0).collect::<RoaringBitmap>();
        assert_eq!(paths(&index, &page_files), ["s3.txt"]);
        assert_eq!(
            (page_files, page.units().cloned()),
            (whole.files.clone(), whole.units.clone())
        );
        // From a file on, as a search under a directory starts.
        let whole = Narrowed::from(whole);
        for first in 0..index.file_count() as u32 + 1 {
            let from: Vec<u32> = page.files_from(&index, first).collect();
            let expected: Vec<u32> = whole.files_from(&index, first).collect();
            assert_eq!(from, expected, "from file {first}");
        }
    }
}
