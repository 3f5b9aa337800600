//! Ranked answers (`rank=True`): the hits of a search, all of them, ordered by relevance
//! instead of by path. Definitions of the matched identifier first (found by tree-sitter tag
//! queries on the lines around the hits that may define it: `definitions`), then Zoekt-like
//! scores: a whole word over part of one, a file named after the identifier, BM25 of the
//! file's matches, and test, vendored and generated files lower (`paths`). Deterministic:
//! equal scores keep the path order. Each hit carries its `Ranking`: why it is where it is.

pub mod budget;
pub mod definitions;
mod heads;
pub mod paths;
pub mod question;
pub mod words;

use crate::cancel::CancelToken;
use crate::fs::root::{Links, Root};
pub use crate::grep::ranking::{FileRole, HitShape, Ranking, Role};
use crate::grep::{Context, FileHits, Hit, Span, TextEncoding, WindowCapture, store};
use std::collections::HashMap;
use words::WordFit;

/// Points for a hit that defines its identifier: above anything a reference can score.
const DEFINITION: f64 = 10_000.0;
/// Points by how the match fits the words of its line.
const WHOLE_WORD: f64 = 500.0;
const PARTIAL_WORD: f64 = 100.0;
const INSIDE_WORD: f64 = 10.0;
/// Points for a file named after the identifier, or whose name contains it.
const NAMED_FILE: f64 = 400.0;
const NAME_CONTAINS: f64 = 100.0;
/// Most points a file's BM25 term (its match count against its size) adds.
const BM25_WEIGHT: f64 = 200.0;
/// BM25's usual constants.
const BM25_K1: f64 = 1.2;
const BM25_B: f64 = 0.75;
/// Windows parsed for definitions at most, in path order: beyond them hits rank as
/// references (a pattern matching everywhere is not a search for a definition).
pub const MAX_WINDOWS: usize = 4096;

/// What a ranked search keeps of the bytes around its hits' lines as it reads them
/// (`FileHits::windows`): around each line whose match may define it, enough for its window
/// (`definitions`), so that the windows are parsed without reading the files again.
pub const WINDOWS: WindowCapture = WindowCapture {
    shape: hit_shape,
    finish: recognise_heads,
    lines_after: definitions::LINES_AFTER as usize,
    bytes_before: definitions::AROUND_BEFORE as usize,
    bytes_after: definitions::AROUND_AFTER as usize,
};

/// The shape of a hit (`HitShape`: what `Seen::of` reads of it) whose line is `line` (its
/// `text`), whose bytes are `content`, at 1-based character `column`; and whether its match,
/// at `matched` of `line`, names an identifier that the line may define: what makes a hit's
/// window parsed (`may_define_match`, the shape's own answer where it read the same match).
fn hit_shape(
    line: &[u8],
    matched: std::ops::Range<usize>,
    content: &[u8],
    column: u64,
) -> (HitShape, bool) {
    let (seen, found) = Seen::of_line(line, content, column);
    let wants = match found {
        Some(found) if found == matched && seen.line.len() == line.len() => seen.may_define,
        _ => may_define_match(line, matched),
    };
    (seen.shape().unwrap_or_default(), wants)
}

/// The plain C heads among the windows of `file`'s hits that the ranking will ask about
/// (`score_files`), recognised as the file's search ends (`WindowCapture::finish`), in the
/// bytes the search kept (`definitions::recognised`), while they are in the processor's
/// cache: each such hit's shape carries its kind (`HitShape::head`), which the ranking
/// takes as the window's answer instead of cutting and reading the window again, later,
/// from memory gone cold. At most `MAX_WINDOWS` windows a search thread (`looked`): past
/// them the ranking asks about none but the first in path order, left to read themselves.
/// When every window the ranking will ask about is recognised, the bytes kept for them are
/// no longer needed: their parts are dropped, and the search reuses their room.
fn recognise_heads(file: &mut FileHits, looked: &mut usize) {
    let shaped = file.windows.shapes.len() == file.hits.len();
    let utf8 = matches!(file.encoding, TextEncoding::Utf8 | TextEncoding::Utf8Bom);
    if !shaped || !utf8 || *looked >= MAX_WINDOWS {
        return;
    }
    if crate::tags::Language::of_path(&file.path) != Some(crate::tags::Language::C) {
        return;
    }
    // Every hit the ranking will ask about (`score_files`) has its head.
    let mut every_one = true;
    for index in 0..file.hits.len() {
        let hit = &file.hits[index];
        let Some(seen) = Seen::of_shape(file, hit, &file.windows.shapes[index]) else {
            // The ranking reads this hit's line itself, and may ask about it.
            every_one = false;
            continue;
        };
        let (Some(identifier), true) = (seen.identifier, seen.may_define) else {
            continue;
        };
        if *looked >= MAX_WINDOWS {
            every_one = false;
            break;
        }
        *looked += 1;
        let asked = ask(hit, &seen, identifier);
        let head = definitions::recognised(&file.windows, file.size, &asked);
        every_one &= head.is_some();
        file.windows.shapes[index].head = head;
    }
    if every_one {
        file.windows.parts.clear();
    }
}

/// The question about `hit`'s window, whose line the hit may define `identifier` on.
fn ask<'a>(hit: &Hit, seen: &Seen<'a>, identifier: &'a [u8]) -> definitions::Asked<'a> {
    definitions::Asked {
        line: hit.line,
        line_offset: hit.byte_offset.saturating_sub(seen.column_bytes as u64),
        opens_line: seen.opens_line,
        identifier,
        line_text: seen.line,
        head: seen.head,
    }
}

/// Whether the match at `matched` of `line` names an identifier that the line may define:
/// what makes a hit's window parsed (`Seen::may_define`).
fn may_define_match(line: &[u8], matched: std::ops::Range<usize>) -> bool {
    let Some(word) = words::identifier(&line[matched.clone()]) else {
        return false;
    };
    let word = matched.start + word.start..matched.start + word.end;
    words::word_fit(line, word.clone()) == WordFit::Whole && words::may_define(line, word)
}

/// Points by kind of definition: a type first, as Zoekt weighs ctags kinds.
fn kind_points(kind: &str) -> f64 {
    match kind {
        "class" | "struct" | "interface" | "trait" | "type" | "enum" | "union" => 300.0,
        "function" | "method" | "macro" | "constructor" => 250.0,
        "module" | "namespace" => 200.0,
        _ => 100.0,
    }
}

/// Where a ranked search reads the files it parses, and what stops it.
pub struct Reading<'a> {
    pub root: &'a Root,
    pub links: Links,
    pub cancel: &'a CancelToken,
}

/// One hit's place: its file and position in `files`, its score.
struct Placed {
    file: usize,
    hit: usize,
    ranking: Ranking,
}

/// One hit's place in the ranked order: its file and position in `files`, its score (its
/// `Ranking` is in the hit by then: what is sorted is this much smaller key).
struct Order {
    score: f64,
    file: usize,
    hit: usize,
}

/// `files` (a search's hits in path order) ranked: every hit, in pieces of consecutive hits
/// of one file, best first; each hit's `ranking` set. A file's later pieces are marked
/// `continued`. Each piece holds its hits' bytes (`pieces`).
pub fn rank(mut files: Vec<FileHits>, reading: &Reading<'_>) -> Vec<FileHits> {
    let order = score(&mut files, reading);
    pieces(files, order)
}

/// Hits worth a thread of their own when scoring (fewer cost more to hand over than they
/// take to score). Two threads from 2,048 hits did not pay at `\w+_resume\(`'s 7,123 on the
/// Linux tree: more processor time (+18 ms against +15 for ranking, medians of 3 runs of 31
/// rounds), the same elapsed time, the threads' frees of the kept bytes contending.
const HITS_A_THREAD: usize = 4096;

/// The lines of one file to parse, the file's index in `files`, and where their hits are in
/// `placed` (slices of a run's `Asks`).
type Ask<'s, 'a> = (usize, &'s [definitions::Asked<'a>], &'s [usize]);

/// What a run of files asks about, every file's in one allocation: the lines, where their
/// hits are in `placed`, and each file's index in `files` and its lines among them.
#[derive(Default)]
struct Asks<'a> {
    asked: Vec<definitions::Asked<'a>>,
    hits: Vec<usize>,
    files: Vec<(usize, std::ops::Range<usize>)>,
}

/// A run of files, its hits' rankings in path order, and the index of its first file.
type RunRankings<'a> = (&'a mut [FileHits], Vec<Placed>, usize);

/// Every hit of `files` with its ranking set, and their order, best first. Runs of files
/// are scored on as many threads as the machine runs at once (as many as their hits are
/// worth), each run's order sorted on its thread, the runs' orders merged in path order.
fn score(files: &mut [FileHits], reading: &Reading<'_>) -> Vec<Order> {
    let total: usize = files.iter().map(|f| f.hits.len()).sum();
    let threads = cores().min(total / HITS_A_THREAD).max(1);
    score_on(files, threads, |files, asks| {
        parse_asked(files, asks, reading)
    })
}

/// `score` on `threads` threads, the definitions among the lines asked found by `parse`.
fn score_on(
    files: &mut [FileHits],
    threads: usize,
    parse: impl FnOnce(&[FileHits], &[Ask<'_, '_>]) -> Vec<(usize, &'static str)>,
) -> Vec<Order> {
    let average_size =
        files.iter().map(|f| f.size.max(1) as f64).sum::<f64>() / files.len().max(1) as f64;
    let runs = runs_of_files(files, threads);
    let shares = on_threads(runs.len(), |run| {
        let range = runs[run].clone();
        score_files(&files[range.clone()], range.start, average_size)
    });
    let mut placed: Vec<Vec<Placed>> = Vec::with_capacity(shares.len());
    let mut share_asks: Vec<Asks<'_>> = Vec::with_capacity(shares.len());
    let mut before = 0;
    for (share_placed, mut asks) in shares {
        asks.hits.iter_mut().for_each(|at| *at += before);
        before += share_placed.len();
        placed.push(share_placed);
        share_asks.push(asks);
    }
    // Windows parsed at most: the first in path order, as if scored on one thread.
    let mut windows = 0;
    let mut asks: Vec<Ask<'_, '_>> = Vec::new();
    for share in &share_asks {
        for (file, lines) in &share.files {
            let kept = lines.len().min(MAX_WINDOWS - windows);
            if kept == 0 {
                continue;
            }
            windows += kept;
            let lines = lines.start..lines.start + kept;
            asks.push((*file, &share.asked[lines.clone()], &share.hits[lines]));
        }
    }
    let starts: Vec<usize> = placed
        .iter()
        .scan(0, |at, share| {
            let start = *at;
            *at += share.len();
            Some(start)
        })
        .collect();
    for (at, kind) in parse(files, &asks) {
        let share = starts.partition_point(|&start| start <= at) - 1;
        let ranking = &mut placed[share][at - starts[share]].ranking;
        ranking.role = Role::Definition;
        ranking.kind = Some(kind);
        ranking.score += (DEFINITION + kind_points(kind)) * ranking.file_role.weight();
    }
    drop(asks);
    drop(share_asks);
    // Each run's rankings go into its hits in path order (the hits' memory read in its
    // order), and its order is sorted, on its thread.
    let mut run_files: Vec<&mut [FileHits]> = Vec::with_capacity(runs.len());
    let mut rest = files;
    for run in runs.iter().rev() {
        let (head, tail) = rest.split_at_mut(run.start);
        run_files.push(tail);
        rest = head;
    }
    run_files.reverse();
    let work: Vec<std::sync::Mutex<Option<RunRankings<'_>>>> = run_files
        .into_iter()
        .zip(placed)
        .zip(&runs)
        .map(|((files, placed), run)| std::sync::Mutex::new(Some((files, placed, run.start))))
        .collect();
    let orders = on_threads(work.len(), |run| {
        let taken = work[run].lock().map(|mut w| w.take());
        let Ok(Some((files, placed, first))) = taken else {
            return Vec::new();
        };
        let mut order = Vec::with_capacity(placed.len());
        for Placed { file, hit, ranking } in placed {
            order.push(Order {
                score: ranking.score,
                file,
                hit,
            });
            files[file - first].hits[hit].ranking = Some(Box::new(ranking));
        }
        // The bytes kept for the windows, parsed by now: freed here, on the run's thread.
        for file in files.iter_mut() {
            drop(std::mem::take(&mut file.windows));
        }
        // Equal scores keep the path, line and column order: the order's, (file, hit)
        // ascending, as a stable sort would keep it, without the stable sort's buffer.
        order.sort_unstable_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then(a.file.cmp(&b.file))
                .then(a.hit.cmp(&b.hit))
        });
        order
    });
    orders.into_iter().reduce(merge_orders).unwrap_or_default()
}

/// The machine's threads that run at once.
fn cores() -> usize {
    crate::fs::walk::available_threads().unwrap_or(1)
}

/// `files` cut into at most `count` runs of consecutive files, about as many hits in each.
fn runs_of_files(files: &[FileHits], count: usize) -> Vec<std::ops::Range<usize>> {
    let total: usize = files.iter().map(|f| f.hits.len()).sum();
    let mut runs = Vec::with_capacity(count);
    let mut start = 0;
    let mut hits = 0;
    for (index, file) in files.iter().enumerate() {
        hits += file.hits.len();
        // The run ends once it holds its share of the hits.
        if runs.len() + 1 < count && hits * count >= total * (runs.len() + 1) {
            runs.push(start..index + 1);
            start = index + 1;
        }
    }
    runs.push(start..files.len());
    runs
}

/// `work(0..count)`, each on a thread of its own (the first on this one), in that order.
fn on_threads<T: Send>(count: usize, work: impl Fn(usize) -> T + Sync) -> Vec<T> {
    if count <= 1 {
        return (0..count).map(&work).collect();
    }
    let work = &work;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (1..count)
            .map(|share| scope.spawn(move || work(share)))
            .collect();
        let mut all = vec![work(0)];
        for handle in handles {
            all.push(
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        all
    })
}

/// Two orders, best first, merged: on equal scores `first`'s hits come first (they come
/// first in path order), as one stable sort of both would put them.
fn merge_orders(first: Vec<Order>, second: Vec<Order>) -> Vec<Order> {
    let mut merged = Vec::with_capacity(first.len() + second.len());
    let mut first = first.into_iter().peekable();
    let mut second = second.into_iter().peekable();
    while let (Some(a), Some(b)) = (first.peek(), second.peek()) {
        let take_second = b.score.total_cmp(&a.score) == std::cmp::Ordering::Greater;
        merged.extend(if take_second {
            second.next()
        } else {
            first.next()
        });
    }
    merged.extend(first);
    merged.extend(second);
    merged
}

/// The hits of `files` (the files from `first_file` on in the search's) scored as
/// references, and the lines of theirs that may define what they match, every one of them.
fn score_files(
    files: &[FileHits],
    first_file: usize,
    average_size: f64,
) -> (Vec<Placed>, Asks<'_>) {
    let mut placed = Vec::with_capacity(files.iter().map(|f| f.hits.len()).sum());
    let mut asks = Asks::default();
    let mut roles = paths::FileRoles::default();
    for (index, file) in files.iter().enumerate() {
        let file_index = first_file + index;
        let file_role = roles.of(&file.path);
        let stem = paths::Stem::of(&file.path);
        let matches = file.matches.max(file.hits.len() as u64) as f64;
        let norm = 1.0 - BM25_B + BM25_B * file.size.max(1) as f64 / average_size;
        let bm25 =
            BM25_WEIGHT * matches * (BM25_K1 + 1.0) / (matches + BM25_K1 * norm) / (BM25_K1 + 1.0);
        let first_asked = asks.asked.len();
        // A file's hits mostly name one identifier (a literal's): its name match is kept.
        let mut last_name_match: Option<(&[u8], u8)> = None;
        // The hits' shapes, as the search worked them out (a search that kept none, or not
        // one a hit, leaves them to be read here).
        let shapes = &file.windows.shapes;
        let shaped = shapes.len() == file.hits.len();
        for (hit_index, hit) in file.hits.iter().enumerate() {
            let seen = shaped
                .then(|| Seen::of_shape(file, hit, &shapes[hit_index]))
                .flatten()
                .unwrap_or_else(|| Seen::of(file, hit));
            let name_match = seen.identifier.map_or(0, |id| match last_name_match {
                Some((last, matched)) if last == id => matched,
                _ => {
                    let matched = stem.name_match(id);
                    last_name_match = Some((id, matched));
                    matched
                }
            });
            let base = match seen.fit {
                WordFit::Whole => WHOLE_WORD,
                WordFit::Partial => PARTIAL_WORD,
                WordFit::Substring => INSIDE_WORD,
            } + match name_match {
                2 => NAMED_FILE,
                1 => NAME_CONTAINS,
                _ => 0.0,
            } + bm25;
            if let (Some(identifier), true) = (seen.identifier, seen.may_define)
                && matches!(file.encoding, TextEncoding::Utf8 | TextEncoding::Utf8Bom)
            {
                asks.asked.push(ask(hit, &seen, identifier));
                asks.hits.push(placed.len());
            }
            placed.push(Placed {
                file: file_index,
                hit: hit_index,
                ranking: Ranking {
                    role: Role::Reference,
                    kind: None,
                    score: base * file_role.weight(),
                    fit: seen.fit,
                    file_role,
                    name_match,
                    enclosing: None,
                },
            });
        }
        if asks.asked.len() > first_asked {
            asks.files.push((file_index, first_asked..asks.asked.len()));
        }
    }
    (placed, asks)
}

/// The hits of `asks` that are definitions (their index in `placed`, their kind): each
/// file's windows parsed (`definitions::kinds`), the files shared among as many threads as
/// the machine runs at once (the parses are what a ranked search spends most on).
fn parse_asked(
    files: &[FileHits],
    asks: &[Ask<'_, '_>],
    reading: &Reading<'_>,
) -> Vec<(usize, &'static str)> {
    let threads = cores().min(asks.len().div_ceil(8).max(1));
    let work = |share: usize| {
        let mut found = Vec::with_capacity(
            asks.iter()
                .skip(share)
                .step_by(threads)
                .map(|(_, asked, _)| asked.len())
                .sum(),
        );
        for (file_index, asked, asked_hits) in asks.iter().skip(share).step_by(threads) {
            let path = &files[*file_index].path;
            let file = &files[*file_index];
            let read = definitions::Searched {
                windows: &file.windows,
                size: file.size,
            };
            let kinds = definitions::kinds(
                reading.root,
                reading.links,
                path,
                &read,
                asked,
                reading.cancel,
            );
            for (&at, kind) in asked_hits.iter().zip(kinds) {
                if let Some(kind) = kind {
                    found.push((at, kind));
                }
            }
        }
        found
    };
    if threads == 1 {
        return work(0);
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|share| scope.spawn(move || work(share)))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// What a hit's bytes and line say about it.
struct Seen<'a> {
    /// The identifier the match names, if it names one.
    identifier: Option<&'a [u8]>,
    fit: WordFit,
    may_define: bool,
    /// The identifier opens its line (no indentation, nothing before it).
    opens_line: bool,
    /// The hit's line, without a carriage return.
    line: &'a [u8],
    /// Bytes of the line before the match.
    column_bytes: usize,
    /// The kind the hit's window gives it, when the search recognised it (`HitShape::head`).
    head: Option<&'static str>,
}

impl<'a> Seen<'a> {
    fn of(file: &'a FileHits, hit: &Hit) -> Seen<'a> {
        Seen::of_line(file.slice(hit.text), file.slice(hit.content), hit.column).0
    }

    /// What the hit with `line` (its `text`), `content` and `column` says, and where its
    /// match's first line is in `line` when the line holds it at its column.
    fn of_line(
        line: &'a [u8],
        content: &[u8],
        column: u64,
    ) -> (Seen<'a>, Option<std::ops::Range<usize>>) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let unknown = Seen {
            identifier: None,
            fit: WordFit::Substring,
            may_define: false,
            opens_line: false,
            line,
            column_bytes: 0,
            head: None,
        };
        let first_line = content.split(|&b| b == b'\n').next().unwrap_or_default();
        let Some(at) = match_start(line, column, first_line) else {
            return (unknown, None);
        };
        let matched = at..at + first_line.len();
        let unknown = Seen {
            column_bytes: at,
            ..unknown
        };
        let Some(word) = words::identifier(first_line) else {
            let seen = Seen {
                fit: words::word_fit(line, matched.clone()),
                ..unknown
            };
            return (seen, Some(matched));
        };
        let word = matched.start + word.start..matched.start + word.end;
        let fit = words::word_fit(line, word.clone());
        let seen = Seen {
            identifier: Some(&line[word.clone()]),
            fit,
            may_define: fit == WordFit::Whole && words::may_define(line, word.clone()),
            opens_line: word.start == 0,
            line,
            column_bytes: at,
            head: None,
        };
        (seen, Some(matched))
    }

    /// `self` kept as a hit's shape (`HitShape`, its `byte_offset` left to the search);
    /// `None` for a line too long to be one.
    fn shape(&self) -> Option<HitShape> {
        let offset = |part: &[u8]| {
            let at = (part.as_ptr() as usize).checked_sub(self.line.as_ptr() as usize)?;
            u32::try_from(at).ok()
        };
        let identifier = match self.identifier {
            Some(word) => {
                let start = offset(word)?;
                Some((start, start.checked_add(u32::try_from(word.len()).ok()?)?))
            }
            None => None,
        };
        Some(HitShape {
            byte_offset: 0,
            line_len: u32::try_from(self.line.len()).ok()?,
            column_bytes: u32::try_from(self.column_bytes).ok()?,
            identifier,
            fit: self.fit,
            may_define: self.may_define,
            opens_line: self.opens_line,
            head: None,
        })
    }

    /// What `shape` (the search's, for `hit`) says of `hit`: `Seen::of(file, hit)`, without
    /// reading the hit's line. `None` when the shape is not the hit's (another offset, a
    /// line longer than the hit's, or none kept: an empty line's).
    fn of_shape(file: &'a FileHits, hit: &Hit, shape: &HitShape) -> Option<Seen<'a>> {
        let line_len = shape.line_len as usize;
        if shape.byte_offset != hit.byte_offset || line_len == 0 || line_len > hit.text.len {
            return None;
        }
        let line = file.bytes.get(hit.text.start..hit.text.start + line_len)?;
        let identifier = match shape.identifier {
            Some((from, to)) => Some(line.get(from as usize..to as usize)?),
            None => None,
        };
        Some(Seen {
            identifier,
            fit: shape.fit,
            may_define: shape.may_define,
            opens_line: shape.opens_line,
            line,
            column_bytes: shape.column_bytes as usize,
            head: shape.head,
        })
    }
}

/// Where in `line` a match of `first_line` (its bytes on that line) starts, given its
/// 1-based column in characters; `None` when the line does not hold it there.
fn match_start(line: &[u8], column: u64, first_line: &[u8]) -> Option<usize> {
    let skip = usize::try_from(column.checked_sub(1)?).ok()?;
    // Before an ASCII column (most lines) characters are bytes.
    if line.get(..skip).is_some_and(|before| before.is_ascii()) {
        return line[skip..].starts_with(first_line).then_some(skip);
    }
    // The byte where character `skip` starts (a character: a byte that does not continue one).
    let at = line
        .iter()
        .enumerate()
        .filter(|(_, b)| (**b & 0xC0) != 0x80)
        .map(|(i, _)| i)
        .chain(std::iter::once(line.len()))
        .nth(skip)?;
    line[at..].starts_with(first_line).then_some(at)
}

/// The hits of `files` in the order `order`, in pieces of consecutive hits of one file. A
/// file whose hits all come in one piece, in their order (most files: a file's hits score
/// alike), is that piece: its hits and bytes are moved, not copied. A file cut into pieces
/// (its definition first, its references later) gives its bytes to its largest piece, whose
/// hits are moved and keep their spans; only the other pieces' hits are copied, each piece
/// holding their bytes alone.
fn pieces(files: Vec<FileHits>, order: Vec<Order>) -> Vec<FileHits> {
    let whole = files_in_one_piece(&files, &order);
    let largest = largest_pieces(&files, &order, &whole);
    let piece_count = 1 + order.windows(2).filter(|w| w[0].file != w[1].file).count();
    let mut out: Vec<FileHits> = Vec::with_capacity(piece_count);
    let mut files: Vec<Option<FileHits>> = files.into_iter().map(Some).collect();
    // Each split file's pieces so far, and which of `out` takes the file's bytes.
    let mut pieces_of = vec![0u32; files.len()];
    let mut takes_bytes: Vec<(usize, usize)> = Vec::new();
    let mut moving = false;
    let mut last_file = usize::MAX;
    for Order { file, hit, .. } in order {
        if whole[file] {
            if file != last_file {
                let moved = files[file]
                    .take()
                    .expect("a file in one piece is moved once");
                let count = moved.hits.len() as u64;
                out.push(FileHits {
                    count,
                    matches: count,
                    continued: false,
                    // Read for the ranking: the answer holds the hits' bytes only.
                    windows: Default::default(),
                    ..moved
                });
                last_file = file;
            }
            continue;
        }
        let Some(source) = files[file].as_mut() else {
            continue;
        };
        if file != last_file {
            let ordinal = pieces_of[file];
            pieces_of[file] += 1;
            moving = largest[file] == ordinal;
            if moving {
                takes_bytes.push((out.len(), file));
            }
            out.push(FileHits {
                path: source.path.clone(),
                hits: Vec::new(),
                bytes: Vec::new(),
                count: 0,
                matches: 0,
                size: source.size,
                mtime_ns: source.mtime_ns,
                encoding: source.encoding,
                continued: ordinal > 0,
                windows: Default::default(),
            });
            last_file = file;
        }
        let piece = out.last_mut().expect("a piece was just pushed");
        // Each hit comes once in the order: its ranking is moved, not cloned.
        let hit = if moving {
            std::mem::replace(&mut source.hits[hit], moved_away())
        } else {
            let ranking = source.hits[hit].ranking.take();
            copy_hit(source, &source.hits[hit], ranking, &mut piece.bytes)
        };
        piece.hits.push(hit);
        piece.count += 1;
        piece.matches += 1;
    }
    // The other pieces copied their hits' bytes from the files': now they are given away.
    for (piece, file) in takes_bytes {
        if let Some(source) = files[file].as_mut() {
            out[piece].bytes = std::mem::take(&mut source.bytes);
        }
    }
    out
}

/// For each of `files` cut into pieces by `order` (not `whole`), which of its pieces (0 for
/// its first) holds most of its hits: the first of them on a tie.
fn largest_pieces(files: &[FileHits], order: &[Order], whole: &[bool]) -> Vec<u32> {
    // Each file's pieces so far, and its largest: its ordinal and its hits.
    let mut pieces_of = vec![0u32; files.len()];
    let mut largest = vec![(0u32, 0usize); files.len()];
    let mut at = 0;
    while at < order.len() {
        let file = order[at].file;
        let run = order[at..].iter().take_while(|o| o.file == file).count();
        if !whole[file] {
            let ordinal = pieces_of[file];
            pieces_of[file] += 1;
            if run > largest[file].1 {
                largest[file] = (ordinal, run);
            }
        }
        at += run;
    }
    largest.into_iter().map(|(ordinal, _)| ordinal).collect()
}

/// What is left of a hit moved into its piece: a hit of no bytes, never read.
fn moved_away() -> Hit {
    Hit::default()
}

/// For each of `files`, whether `order` puts its hits in one run, in their own order.
fn files_in_one_piece(files: &[FileHits], order: &[Order]) -> Vec<bool> {
    // The next hit each file's run expects, or `usize::MAX` once the run broke.
    let mut next = vec![0usize; files.len()];
    let mut last_file = usize::MAX;
    for p in order {
        let expected = &mut next[p.file];
        let continues = *expected == 0 || last_file == p.file;
        *expected = if continues && p.hit == *expected {
            *expected + 1
        } else {
            usize::MAX
        };
        last_file = p.file;
    }
    files
        .iter()
        .zip(next)
        .map(|(file, next)| next == file.hits.len() && !file.hits.is_empty())
        .collect()
}

/// Ranked `pieces` as the "files" and "count" modes show them: one result a file, its best
/// hit, files in the order of their best hits; `matches` the file's number of hits when
/// `counted`, else 1 (a file's first match, as an unranked "files" search counts it).
pub fn best_per_file(pieces: Vec<FileHits>, counted: bool) -> Vec<FileHits> {
    let mut hits_of: HashMap<std::path::PathBuf, u64> = HashMap::new();
    for piece in &pieces {
        *hits_of.entry(piece.path.clone()).or_default() += piece.hits.len() as u64;
    }
    pieces
        .into_iter()
        .filter(|piece| !piece.continued)
        .map(|mut piece| {
            piece.hits.truncate(1);
            piece.count = 1;
            piece.matches = if counted { hits_of[&piece.path] } else { 1 };
            piece
        })
        .collect()
}

/// `hit` of `source` with its bytes copied into `bytes`, and `ranking`.
fn copy_hit(
    source: &FileHits,
    hit: &Hit,
    ranking: Option<Box<Ranking>>,
    bytes: &mut Vec<u8>,
) -> Hit {
    let mut copy = |span: Span| store(bytes, source.slice(span));
    let context = hit.context.as_ref().map(|c| {
        Box::new(Context {
            before: c.before.iter().map(|s| copy(*s)).collect(),
            after: c.after.iter().map(|s| copy(*s)).collect(),
        })
    });
    Hit {
        line: hit.line,
        column: hit.column,
        end_line: hit.end_line,
        byte_offset: hit.byte_offset,
        content: copy(hit.content),
        text: copy(hit.text),
        context,
        unique: hit.unique,
        ranking,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file's hits, each a line of text with `word` at its first occurrence.
    fn file(path: &str, lines: &[&str], word: &str) -> FileHits {
        let hits: Vec<_> = (1..)
            .zip(lines)
            .map(|(line, text)| (line, *text, word))
            .collect();
        crate::grep::test_support::planted(path, &hits)
    }

    fn ranked(files: Vec<FileHits>) -> Vec<FileHits> {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        let cancel = CancelToken::new();
        let reading = Reading {
            root: &root,
            links: Links::Refuse,
            cancel: &cancel,
        };
        rank(files, &reading)
    }

    fn order(pieces: &[FileHits]) -> Vec<(String, u64, String)> {
        pieces
            .iter()
            .flat_map(|piece| {
                piece.hits.iter().map(|hit| {
                    (
                        piece.path.to_string_lossy().into_owned(),
                        hit.line,
                        String::from_utf8_lossy(piece.slice(hit.text)).into_owned(),
                    )
                })
            })
            .collect()
    }

    #[test]
    fn whole_words_first_tests_last_pieces_hold_their_bytes() {
        let files = vec![
            file(
                "a.c",
                &["x parse_thingy y", "call parse_thing here"],
                "parse_thing",
            ),
            file("tests/b.c", &["call parse_thing here"], "parse_thing"),
            file("c.c", &["reparse_thingy"], "parse_thing"),
            file("parse_thing.c", &["so parse_thing"], "parse_thing"),
        ];
        let pieces = ranked(files);
        let got = order(&pieces);
        let want = [
            ("parse_thing.c", 1, "so parse_thing"),
            ("a.c", 2, "call parse_thing here"),
            ("tests/b.c", 1, "call parse_thing here"),
            ("a.c", 1, "x parse_thingy y"),
            ("c.c", 1, "reparse_thingy"),
        ];
        let want: Vec<_> = want
            .iter()
            .map(|(p, l, t)| (p.to_string(), *l, t.to_string()))
            .collect();
        assert_eq!(got, want);
        // `a.txt` comes twice: its second piece continues it.
        let continued: Vec<_> = pieces.iter().map(|p| p.continued).collect();
        assert_eq!(continued, [false, false, false, true, false]);
        let first = &pieces[0].hits[0];
        let ranking = first.ranking.as_ref().unwrap();
        assert_eq!(ranking.role, Role::Reference);
        assert_eq!(ranking.why(), "reference, whole word, file named after it");
        assert_eq!(pieces[0].slice(first.content), b"parse_thing");
        let test = pieces[2].hits[0].ranking.as_ref().unwrap();
        assert_eq!(test.file_role, FileRole::Test);
        assert!(test.why().ends_with("test file"), "{}", test.why());
    }

    #[test]
    fn prose_comes_below_the_code_it_describes() {
        let files = vec![
            file("README.md", &["call parse_thing here"], "parse_thing"),
            file("src/lib.c", &["call parse_thing here"], "parse_thing"),
        ];
        let pieces = ranked(files);
        let got: Vec<_> = order(&pieces).into_iter().map(|(p, _, _)| p).collect();
        assert_eq!(got, ["src/lib.c", "README.md"]);
        let prose = pieces[1].hits[0].ranking.as_ref().unwrap();
        assert_eq!(prose.file_role, FileRole::Prose);
        assert!(
            prose.why().ends_with("documentation or data file"),
            "{}",
            prose.why()
        );
    }

    #[test]
    fn equal_scores_keep_path_order_and_best_per_file_counts() {
        let files = vec![
            file("a.txt", &["one word", "two word"], "word"),
            file("b.txt", &["three word"], "word"),
        ];
        let pieces = ranked(files);
        let got: Vec<_> = order(&pieces).into_iter().map(|(p, l, _)| (p, l)).collect();
        assert_eq!(
            got,
            [
                ("a.txt".into(), 1),
                ("a.txt".into(), 2),
                ("b.txt".into(), 1)
            ]
        );
        let best = best_per_file(
            ranked(vec![
                file("a.txt", &["one words", "two word"], "word"),
                file("b.txt", &["word"], "word"),
            ]),
            true,
        );
        let got: Vec<_> = best
            .iter()
            .map(|f| {
                (
                    f.path.to_string_lossy().into_owned(),
                    f.hits[0].line,
                    f.matches,
                )
            })
            .collect();
        assert_eq!(got, [("a.txt".into(), 2, 2), ("b.txt".into(), 1, 1)]);
    }

    #[test]
    fn a_file_in_one_piece_is_moved_and_one_split_is_copied() {
        let placed = |order: &[(usize, usize)]| -> Vec<Order> {
            order
                .iter()
                .map(|&(file, hit)| Order {
                    score: 0.0,
                    file,
                    hit,
                })
                .collect()
        };
        // Hits ranked, as `score` leaves them.
        let ranking = ranked(vec![file("x.txt", &["word"], "word")])[0].hits[0]
            .ranking
            .clone();
        let files = || {
            let mut files = vec![
                file("a.txt", &["word one", "word two"], "word"),
                file("b.txt", &["word three", "word four"], "word"),
                file("c.txt", &["word five"], "word"),
            ];
            for hit in files.iter_mut().flat_map(|f| f.hits.iter_mut()) {
                hit.ranking = ranking.clone();
            }
            files
        };
        // b's hits out of their order, a's split by c's: only c is one piece in order.
        let order = [(0, 0), (2, 0), (1, 1), (1, 0), (0, 1)];
        assert_eq!(
            files_in_one_piece(&files(), &placed(&order)),
            [false, false, true]
        );
        let got: Vec<_> = pieces(files(), placed(&order))
            .iter()
            .map(|piece| {
                let lines: Vec<_> = piece
                    .hits
                    .iter()
                    .map(|h| String::from_utf8_lossy(piece.slice(h.text)).into_owned())
                    .collect();
                (
                    piece.path.to_string_lossy().into_owned(),
                    lines,
                    piece.count,
                    piece.continued,
                )
            })
            .collect();
        let want: Vec<(String, Vec<String>, u64, bool)> = [
            ("a.txt", &["word one"][..], 1, false),
            ("c.txt", &["word five"][..], 1, false),
            ("b.txt", &["word four", "word three"][..], 2, false),
            ("a.txt", &["word two"][..], 1, true),
        ]
        .iter()
        .map(|(p, l, c, k)| {
            (
                p.to_string(),
                l.iter().map(|s| s.to_string()).collect(),
                *c,
                *k,
            )
        })
        .collect();
        assert_eq!(got, want);
        assert!(
            pieces(files(), placed(&order))
                .iter()
                .all(|piece| piece.hits.iter().all(|h| h.ranking.is_some()))
        );
        let in_order = [(1, 0), (1, 1), (0, 0), (0, 1), (2, 0)];
        assert_eq!(
            files_in_one_piece(&files(), &placed(&in_order)),
            [true, true, true]
        );
    }

    #[test]
    fn a_split_files_largest_piece_takes_its_bytes_and_the_others_copy_theirs() {
        let order = |hits: &[(usize, usize)]| -> Vec<Order> {
            hits.iter()
                .map(|&(file, hit)| Order {
                    score: 0.0,
                    file,
                    hit,
                })
                .collect()
        };
        let lines = ["w one", "w two", "w three", "w four", "w five", "w six"];
        let files = || {
            vec![
                file("a.txt", &lines, "w"),
                file("b.txt", &["w seven"], "w"),
                file("c.txt", &["w eight"], "w"),
            ]
        };
        let bytes_of_a = files()[0].bytes.clone();
        // a's pieces: 1 hit, 3 (the largest, out of their order), 2; b and c between them.
        let order = order(&[
            (0, 3),
            (1, 0),
            (0, 2),
            (0, 0),
            (0, 1),
            (2, 0),
            (0, 4),
            (0, 5),
        ]);
        assert_eq!(
            largest_pieces(&files(), &order, &[false, true, true]),
            [1, 0, 0]
        );
        let got = pieces(files(), order);
        let texts: Vec<Vec<&[u8]>> = got
            .iter()
            .map(|piece| piece.hits.iter().map(|h| piece.slice(h.text)).collect())
            .collect();
        let want: [&[&[u8]]; 5] = [
            &[b"w four"],
            &[b"w seven"],
            &[b"w three", b"w one", b"w two"],
            &[b"w eight"],
            &[b"w five", b"w six"],
        ];
        assert_eq!(texts, want);
        let continued: Vec<_> = got.iter().map(|p| p.continued).collect();
        assert_eq!(continued, [false, false, true, false, true]);
        // The largest piece holds a's bytes, its hits' spans unchanged; the others copied
        // their hits' bytes alone.
        assert_eq!(got[2].bytes, bytes_of_a);
        assert_eq!(got[0].bytes, b"ww four");
        assert_eq!(got[4].bytes, b"ww fiveww six");
    }

    #[test]
    fn scored_on_threads_as_on_one() {
        // Files of 1 to 9 hits, some of whose lines may define the word.
        let lines = [
            "\treturn word(x);",
            "int word(int x)",
            "x = word;",
            "static void word(void)",
        ];
        let files = || -> Vec<FileHits> {
            (0..3000)
                .map(|n| {
                    let hits: Vec<&str> = (0..1 + n % 9).map(|i| lines[(n + i) % 4]).collect();
                    let mut file = file(&format!("d{}/f{n}.c", n % 7), &hits, "word");
                    file.size = 100 + (n as u64 * 37) % 5000;
                    file
                })
                .collect()
        };
        // Every line asked defines the word: the windows' cap decides which are definitions.
        let every_asked = |_: &[FileHits], asks: &[Ask<'_, '_>]| -> Vec<(usize, &'static str)> {
            asks.iter()
                .flat_map(|(_, _, hits)| hits.iter().map(|&at| (at, "function")))
                .collect()
        };
        let outcome = |threads: usize| {
            let mut files = files();
            let order = score_on(&mut files, threads, every_asked);
            order
                .iter()
                .map(|o| {
                    let ranking = files[o.file].hits[o.hit].ranking.as_deref().cloned();
                    (o.file, o.hit, o.score, format!("{ranking:?}"))
                })
                .collect::<Vec<_>>()
        };
        let one = outcome(1);
        let definitions = one.iter().filter(|o| o.3.contains("Definition")).count();
        assert_eq!(
            definitions, MAX_WINDOWS,
            "definitions at most as windows parsed"
        );
        for threads in [2, 3, 8] {
            let many = outcome(threads);
            assert_eq!(many.len(), one.len());
            if let Some(at) = (0..one.len()).find(|&i| one[i] != many[i]) {
                panic!(
                    "{threads} threads: at {at} expected {:?}, got {:?}",
                    one[at], many[at]
                );
            }
        }
    }

    #[test]
    fn runs_of_files_share_the_hits() {
        let files: Vec<FileHits> = (0..10)
            .map(|n| file(&format!("f{n}"), &["w"; 3], "w"))
            .collect();
        assert_eq!(runs_of_files(&files, 1), vec![0..10; 1]);
        assert_eq!(runs_of_files(&files, 2), [0..5, 5..10]);
        assert_eq!(runs_of_files(&files, 3), [0..4, 4..7, 7..10]);
        assert_eq!(runs_of_files(&[], 2), vec![0..0; 1]);
        let order = |scores: &[f64], file: usize| -> Vec<Order> {
            (0..)
                .zip(scores)
                .map(|(hit, &score)| Order { score, file, hit })
                .collect()
        };
        let merged = merge_orders(order(&[3.0, 2.0, 2.0, 1.0], 0), order(&[3.0, 2.5, 2.0], 1));
        let got: Vec<_> = merged.iter().map(|o| (o.file, o.hit)).collect();
        assert_eq!(
            got,
            [(0, 0), (1, 0), (1, 1), (0, 1), (0, 2), (1, 2), (0, 3)]
        );
    }

    #[test]
    fn a_hits_shape_reads_as_its_line_does() {
        // Lines as a search finds them: a head, a call, a carriage return, characters before
        // the match, a match inside a word, one the column misses, a comment.
        let lines = [
            ("static int foo_resume(struct device *dev)", "foo_resume("),
            ("\tret = foo_resume(dev);", "foo_resume("),
            ("int foo_resume(void)\r", "foo_resume"),
            ("int foo_resume(void)\r", "foo_resume(void)\r"),
            ("\u{e9}t\u{e9} foo_resume(x)", "foo_resume"),
            ("x = refoo_resumex;", "foo_resume"),
            (" * foo_resume() is called", "foo_resume"),
            ("foo_resume", "foo_resume"),
            ("", ""),
        ];
        let hits: Vec<(u64, &str, &str)> = (1..).zip(lines).map(|(n, (l, w))| (n, l, w)).collect();
        let mut file = crate::grep::test_support::planted("a.c", &hits);
        for (n, hit) in file.hits.iter_mut().enumerate() {
            hit.byte_offset = 100 * n as u64;
        }
        let shapes: Vec<HitShape> = file
            .hits
            .iter()
            .map(|hit| {
                let line = file.slice(hit.text);
                let content = file.slice(hit.content);
                let at = line
                    .windows(content.len().max(1))
                    .position(|w| content.starts_with(w))
                    .unwrap_or(0);
                let matched = at..(at + content.len()).min(line.len());
                let (mut shape, wants) = hit_shape(line, matched.clone(), content, hit.column);
                assert_eq!(wants, may_define_match(line, matched), "{line:?}");
                shape.byte_offset = hit.byte_offset;
                shape
            })
            .collect();
        let read = |seen: &Seen<'_>| {
            (
                seen.identifier.map(<[u8]>::to_vec),
                seen.fit,
                seen.may_define,
                seen.opens_line,
                seen.line.to_vec(),
                seen.column_bytes,
            )
        };
        for (hit, shape) in file.hits.iter().zip(&shapes) {
            let line = String::from_utf8_lossy(file.slice(hit.text));
            let of_line = read(&Seen::of(&file, hit));
            match Seen::of_shape(&file, hit, shape) {
                Some(seen) => assert_eq!(read(&seen), of_line, "{line:?}"),
                None => assert!(line.is_empty(), "no shape for {line:?}"),
            }
            // A shape at another offset is not the hit's.
            let moved = HitShape {
                byte_offset: hit.byte_offset + 1,
                ..*shape
            };
            assert!(Seen::of_shape(&file, hit, &moved).is_none());
        }
        assert!(!read(&Seen::of(&file, &file.hits[1])).2);
        assert!(read(&Seen::of(&file, &file.hits[0])).2);
    }

    #[test]
    fn match_starts_count_characters() {
        assert_eq!(match_start(b"let x = foo(1)", 9, b"foo"), Some(8));
        assert_eq!(match_start("é = foo".as_bytes(), 5, b"foo"), Some(5));
        assert_eq!(match_start(b"abc", 2, b"x"), None);
        assert_eq!(match_start(b"abc", 0, b"a"), None);
        assert_eq!(match_start(b"abc", 4, b""), Some(3));
        assert_eq!(match_start(b"abc", 5, b""), None);
        // Characters after the match do not count; before it, each is one column.
        assert_eq!(match_start("foo é".as_bytes(), 1, b"foo"), Some(0));
        assert_eq!(match_start("aé foo".as_bytes(), 4, b"foo"), Some(4));
        assert_eq!(match_start("aé foo".as_bytes(), 5, b"foo"), None);
    }
}
