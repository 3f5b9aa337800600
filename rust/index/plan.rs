//! Query planning: from a regex, the condition on the byte trigrams a unit of text must contain
//! for the regex to possibly match in it ([`plan`]), and the query algebra that states it
//! ([`Query`]).
//!
//! The analysis follows google/codesearch `index/regexp.go`. Every HIR node gets an `Info`:
//! whether it can match the empty string, and either the exact set of strings it matches or sets
//! of their possible prefixes and suffixes, plus a query every match satisfies. Concatenation
//! crosses exact sets and requires the trigrams spanning a join (`x.suffix × y.prefix`);
//! alternation unions; once a set grows too large its strings' trigrams move into the query and
//! the set shrinks to two-byte prefixes (suffixes), then shorter ones.
//!
//! Soundness is the one hard requirement: the query holds on the trigrams of every string the
//! regex matches, so it never excludes a unit that contains a match. Where codesearch's rules
//! are unsound (by a reading of `regexp.go`, it requires `bcd` for `(a+bc)?def`, which matches
//! `def`) this module differs:
//! - a prefix (suffix) set covers every non-empty match, and `can_empty` is tracked through
//!   concatenation and alternation: the prefixes of `xy` include those of `y` when `x` can be
//!   empty, and the strings of an exact `x` themselves when `y` can be empty;
//! - the trigrams spanning a join are required only when neither side can be empty, and the
//!   trigrams of a prefix (suffix) set only when the node cannot be empty;
//! - a plan for a regex that can match the empty string, or any string under three bytes, is
//!   [`Query::All`].
//!
//! Trigrams are raw bytes of the UTF-8 (or, for byte classes, raw byte) encoding: the HIR is
//! built with the scan's flags, so `(?i)k` is already the class `[Kk\u{212A}]`, and small classes
//! expand into their alternative byte strings; nothing assumes ASCII case folding. Every set,
//! cross product and the total number of trigrams is bounded; on overflow the plan weakens
//! (towards `All`), never the other way.

use std::fmt;

use regex_syntax::ast::parse::ParserBuilder;
use regex_syntax::hir::translate::TranslatorBuilder;
use regex_syntax::hir::{Class, Hir, HirKind};

/// A condition on the byte trigrams a unit of text must contain for the regex to possibly match in it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Query {
    /// No condition: every unit may contain a match.
    All,
    /// No unit can contain a match: the regex matches nothing.
    Nothing,
    /// The unit contains this trigram (packed by [`trigram`]).
    Trigram(u32),
    /// Every condition holds.
    And(Vec<Query>),
    /// At least one condition holds.
    Or(Vec<Query>),
}

/// Packs 3 bytes into a u32: (a << 16) | (b << 8) | c.
pub fn trigram(bytes: [u8; 3]) -> u32 {
    (u32::from(bytes[0]) << 16) | (u32::from(bytes[1]) << 8) | u32::from(bytes[2])
}

/// Plans `regex` (the exact regex string the scan's matcher is built from) with the scan's flags.
///
/// `regex` must be the string after grep.rs's rewriting: a literal pattern escaped, and each
/// newline made `(?:\r?\n)`. Planning `a\nb` itself would require the trigram `a\nb`, which a
/// CRLF file matched by the rewritten regex does not contain.
///
/// [`Query::All`] when nothing can be required: a regex that does not parse (the scan reports
/// the error itself), that can match a string of under three bytes, or that is too loose.
/// [`Query::Nothing`] only for a regex that matches nothing at all (`[^\s\S]`).
pub fn plan(regex: &str, case_insensitive: bool) -> Query {
    match parse(regex, case_insensitive) {
        Some(hir) => plan_hir(&hir),
        None => Query::All,
    }
}

/// The nesting limit grep.rs gives grep-regex.
const NEST_LIMIT: u32 = 250;
/// Exact sets with more strings are moved into the query (codesearch `maxExact`).
const MAX_EXACT: usize = 7;
/// Prefix and suffix sets are cut down to at most this many strings (codesearch `maxSet`).
const MAX_SET: usize = 20;
/// Classes of more characters (or bytes) are "any character" (codesearch's 100).
const MAX_CLASS: u64 = 100;
/// Cross products of more strings are not formed.
const MAX_CROSS: usize = 400;
/// Exact sets of more bytes in all are moved into the query.
const MAX_EXACT_BYTES: usize = 4096;
/// Counted repetitions expand at most this many copies; the rest is planned like `x*`.
const MAX_COPIES: u32 = 8;
/// Deeper HIR is planned as "anything" (regex-syntax's nest limit keeps real HIR shallower).
const MAX_DEPTH: usize = 1000;
/// At most this many trigrams are put into one plan; past it conditions are dropped.
const MAX_ATOMS: usize = 1 << 17;
/// Pairwise implication checks run only on nodes with at most this many compound children.
const MAX_PAIRWISE: usize = 64;
/// Steps one pairwise implication check may take.
const IMPLY_FUEL: u32 = 256;

/// The HIR grep-regex builds for `regex` (grep-regex's `ConfiguredHIR::new`: the pattern is
/// wrapped in `(?:...)` and translated with `utf8(false)`); `None` if it does not parse. The scan
/// may then strip `\r` and `\n` from classes (without multiline), which only narrows what it
/// matches, so a plan for this HIR holds for the scan too.
fn parse(regex: &str, case_insensitive: bool) -> Option<Hir> {
    let pattern = format!("(?:{regex})");
    let ast = ParserBuilder::new()
        .nest_limit(NEST_LIMIT)
        .octal(false)
        .ignore_whitespace(false)
        .build()
        .parse(&pattern)
        .ok()?;
    TranslatorBuilder::new()
        .utf8(false)
        .case_insensitive(case_insensitive)
        .multi_line(true)
        .dot_matches_new_line(false)
        .crlf(true)
        .swap_greed(false)
        .unicode(true)
        .build()
        .translate(&pattern, &ast)
        .ok()
}

fn plan_hir(hir: &Hir) -> Query {
    // A match of under three bytes contains no trigram at all. (`None`, "matches nothing", is
    // not trusted: regex-syntax 0.8 also says it for `[^\s\S]|abc`.)
    if hir.properties().minimum_len().is_some_and(|n| n < 3) {
        return Query::All;
    }
    let mut planner = Planner { budget: MAX_ATOMS };
    let mut info = planner.analyze(hir, 0);
    planner.simplify(&mut info, true);
    if info.can_empty {
        return Query::All;
    }
    planner.flush(&mut info);
    info.matches.simplify()
}

/// A set of byte strings (kept sorted and deduplicated by `simplify`).
type Set = Vec<Vec<u8>>;
/// Concatenates every string of one set with every string of another (`cross`, in some order).
type Join = fn(&[Vec<u8>], &[Vec<u8>]) -> Set;

/// What the planner knows about the strings `L` a regex node matches.
///
/// Invariants, the whole soundness argument:
/// - `can_empty` is false only if `""` is not in `L`;
/// - `exact: Some(e)`: every string of `L` is in `e` (`prefix` and `suffix` are unused);
/// - `exact: None`: every non-empty string of `L` starts with a string of `prefix` and ends with
///   a string of `suffix`;
/// - `matches` holds on the trigrams of every string of `L`.
#[derive(Clone, Debug)]
struct Info {
    can_empty: bool,
    exact: Option<Set>,
    prefix: Set,
    suffix: Set,
    matches: Query,
}

impl Info {
    fn exact(set: Set) -> Info {
        Info {
            can_empty: set.iter().any(|s| s.is_empty()),
            exact: Some(set),
            prefix: Vec::new(),
            suffix: Vec::new(),
            matches: Query::All,
        }
    }

    /// Only the empty string (also every look-around and anchor).
    fn empty() -> Info {
        Info::exact(vec![Vec::new()])
    }

    /// No string at all.
    fn no_match() -> Info {
        Info {
            matches: Query::Nothing,
            ..Info::exact(Vec::new())
        }
    }

    /// Any one character: non-empty, nothing else known.
    fn any_char() -> Info {
        Info {
            can_empty: false,
            exact: None,
            prefix: vec![Vec::new()],
            suffix: vec![Vec::new()],
            matches: Query::All,
        }
    }

    /// Nothing known at all.
    fn unknown() -> Info {
        Info {
            can_empty: true,
            ..Info::any_char()
        }
    }

    /// Strings that start every non-empty match.
    fn starts(&self) -> Set {
        self.nonempty_exact_or(&self.prefix)
    }

    /// Strings that end every non-empty match.
    fn ends(&self) -> Set {
        self.nonempty_exact_or(&self.suffix)
    }

    /// The non-empty strings of the exact set (each is a whole match, so starts and ends
    /// it), or, with none, `edge`.
    fn nonempty_exact_or(&self, edge: &Set) -> Set {
        match &self.exact {
            Some(e) => e.iter().filter(|s| !s.is_empty()).cloned().collect(),
            None => edge.clone(),
        }
    }
}

/// One planning run: the trigram budget left.
struct Planner {
    budget: usize,
}

impl Planner {
    fn analyze(&mut self, hir: &Hir, depth: usize) -> Info {
        if depth > MAX_DEPTH {
            return Info::unknown();
        }
        let mut info = match hir.kind() {
            HirKind::Empty | HirKind::Look(_) => Info::empty(),
            HirKind::Literal(lit) => Info::exact(vec![lit.0.to_vec()]),
            HirKind::Class(class) => class_info(class),
            HirKind::Capture(capture) => return self.analyze(&capture.sub, depth + 1),
            HirKind::Repetition(rep) => {
                let sub = self.analyze(&rep.sub, depth + 1);
                self.repeat(sub, rep.min, rep.max)
            }
            HirKind::Concat(subs) => self.fold(subs, depth, Info::empty(), Self::concat),
            HirKind::Alternation(subs) => self.fold(subs, depth, Info::no_match(), Self::alternate),
        };
        self.simplify(&mut info, false);
        info
    }

    /// `subs` analysed in order and joined from `start` by `join` (concatenation from the
    /// empty string, alternation from no match).
    fn fold(
        &mut self,
        subs: &[Hir],
        depth: usize,
        start: Info,
        join: fn(&mut Self, Info, Info) -> Info,
    ) -> Info {
        let mut acc = start;
        for sub in subs {
            let next = self.analyze(sub, depth + 1);
            acc = join(self, acc, next);
        }
        acc
    }

    /// `x{min,max}`: `x^min` then up to `max - min` more, as an alternation of the powers when
    /// `max` is small, else as `x^min' x*` with `min' = min(min, MAX_COPIES)` (a superset), or
    /// as anything when `min` is 0.
    /// The copies carry no query of their own: `x.matches` is required once, when `min > 0`.
    fn repeat(&mut self, mut x: Info, min: u32, max: Option<u32>) -> Info {
        if max == Some(0) {
            return Info::empty();
        }
        let inner = std::mem::replace(&mut x.matches, Query::All);
        let mut power = Info::empty();
        let mut info = match max {
            Some(max) if max <= MAX_COPIES => {
                for _ in 0..min {
                    power = self.concat(power, x.clone());
                }
                let mut acc = power.clone();
                for _ in min..max {
                    power = self.concat(power, x.clone());
                    acc = self.alternate(acc, power.clone());
                }
                acc
            }
            // Like codesearch, `x*` is "anything": keeping `x`'s ends would only add
            // alternatives such as `(zde|(bcd cde))` for `abcz*def`, a bigger and hardly better plan.
            _ if min == 0 => Info::unknown(),
            _ => {
                for _ in 0..min.min(MAX_COPIES) {
                    power = self.concat(power, x.clone());
                }
                let star = self.star(&x);
                self.concat(power, star)
            }
        };
        if min > 0 {
            info.matches = and(info.matches, inner);
        }
        info
    }

    /// `x*` after at least one `x`: may be empty; a non-empty match starts (ends) like a
    /// non-empty match of `x`.
    fn star(&mut self, x: &Info) -> Info {
        let mut info = Info {
            can_empty: true,
            exact: None,
            prefix: x.starts(),
            suffix: x.ends(),
            matches: Query::All,
        };
        self.simplify(&mut info, false);
        info
    }

    /// `xy`: a match is `u·t` with `u` matching `x` and `t` matching `y`.
    fn concat(&mut self, mut x: Info, mut y: Info) -> Info {
        // Keep cross products small: flush an exact set that would cross into too much.
        if let (Some(a), Some(b)) = (&x.exact, &y.exact) {
            let bytes = bytes_of(a) * b.len() + bytes_of(b) * a.len();
            if a.len() * b.len() > MAX_CROSS || bytes > MAX_EXACT_BYTES {
                self.flush(&mut x);
                self.flush(&mut y);
            }
        }
        if let (Some(a), None) = (&x.exact, &y.exact)
            && a.len() * y.prefix.len() > MAX_CROSS
        {
            self.flush(&mut x);
        }
        if let (None, Some(b)) = (&x.exact, &y.exact)
            && x.suffix.len() * b.len() > MAX_CROSS
        {
            self.flush(&mut y);
        }
        let matches = and(
            std::mem::replace(&mut x.matches, Query::All),
            std::mem::replace(&mut y.matches, Query::All),
        );
        let mut xy = Info {
            can_empty: x.can_empty && y.can_empty,
            exact: None,
            prefix: Vec::new(),
            suffix: Vec::new(),
            matches,
        };
        match (&x.exact, &y.exact) {
            (Some(a), Some(b)) => xy.exact = Some(cross(a, b)),
            _ => {
                // A non-empty match: if `u` is non-empty it starts the match; if empty, `t` does.
                // With `x` exact, `u` is one of its strings followed by `t`'s start, or alone.
                xy.prefix = concat_edge(&x, &y, |i| &i.prefix, Info::starts, cross);
                xy.suffix = concat_edge(&y, &x, |i| &i.suffix, Info::ends, |b, s| cross(s, b));
                // Both sides non-empty: an end of `u` followed by a start of `t` is in the match.
                if x.exact.is_none()
                    && y.exact.is_none()
                    && !x.can_empty
                    && !y.can_empty
                    && x.suffix.len() * y.prefix.len() <= MAX_CROSS
                {
                    let join = self.and_trigrams(&cross(&x.suffix, &y.prefix));
                    xy.matches = and(std::mem::replace(&mut xy.matches, Query::All), join);
                }
            }
        }
        self.simplify(&mut xy, false);
        xy
    }

    /// `x|y`.
    fn alternate(&mut self, x: Info, y: Info) -> Info {
        let mut xy = Info {
            can_empty: x.can_empty || y.can_empty,
            exact: None,
            prefix: Vec::new(),
            suffix: Vec::new(),
            matches: Query::All,
        };
        match (&x.exact, &y.exact) {
            (Some(a), Some(b)) => {
                let mut union = a.clone();
                union.extend(b.iter().cloned());
                xy.exact = Some(union);
            }
            _ => {
                xy.prefix = x.starts();
                xy.prefix.extend(y.starts());
                xy.suffix = x.ends();
                xy.suffix.extend(y.ends());
            }
        }
        xy.matches = or(x.matches, y.matches);
        self.simplify(&mut xy, false);
        xy
    }

    /// Moves an exact set that grew too large (or, with `force`, one whose strings all hold a
    /// trigram) into the query, and cuts prefix and suffix sets down.
    fn simplify(&mut self, info: &mut Info, force: bool) {
        if let Some(exact) = &mut info.exact {
            exact.sort_unstable();
            exact.dedup();
            let min_len = exact.iter().map(Vec::len).min();
            if exact.len() > MAX_EXACT
                || bytes_of(exact) > MAX_EXACT_BYTES
                || min_len >= Some(4)
                || (force && min_len >= Some(3))
            {
                self.flush(info);
            }
        }
        if info.exact.is_none() {
            self.simplify_set(info, false);
            self.simplify_set(info, true);
        }
    }

    /// Requires the trigrams of the exact set, and replaces it by the two-byte prefixes and
    /// suffixes of its non-empty strings.
    fn flush(&mut self, info: &mut Info) {
        if let Some(exact) = info.exact.take() {
            let query = self.and_trigrams(&exact);
            info.matches = and(std::mem::replace(&mut info.matches, Query::All), query);
            let nonempty = exact.iter().filter(|s| !s.is_empty());
            info.prefix = nonempty
                .clone()
                .map(|s| s[..s.len().min(2)].to_vec())
                .collect();
            info.suffix = nonempty
                .map(|s| s[s.len().saturating_sub(2)..].to_vec())
                .collect();
        }
    }

    /// Requires the trigrams of the prefix (suffix) set when every match is non-empty, then
    /// shortens its strings to two bytes, and fewer while there are more than `MAX_SET`, and
    /// drops strings that extend another one.
    fn simplify_set(&mut self, info: &mut Info, is_suffix: bool) {
        let mut set = std::mem::take(if is_suffix {
            &mut info.suffix
        } else {
            &mut info.prefix
        });
        if !info.can_empty {
            let query = self.and_trigrams(&set);
            info.matches = and(std::mem::replace(&mut info.matches, Query::All), query);
        }
        let mut n = 2;
        loop {
            for s in set.iter_mut() {
                if s.len() > n {
                    if is_suffix {
                        s.drain(..s.len() - n);
                    } else {
                        s.truncate(n);
                    }
                }
            }
            set.sort_unstable();
            set.dedup();
            if set.len() <= MAX_SET || n == 0 {
                break;
            }
            n -= 1;
        }
        // In (reversed) lexicographic order every extension of a string follows it.
        if is_suffix {
            set.sort_unstable_by(|a, b| a.iter().rev().cmp(b.iter().rev()));
        }
        let mut kept: Set = Vec::with_capacity(set.len());
        for s in set {
            if let Some(last) = kept.last()
                && ((is_suffix && s.ends_with(last)) || (!is_suffix && s.starts_with(last)))
            {
                continue;
            }
            kept.push(s);
        }
        if is_suffix {
            info.suffix = kept;
        } else {
            info.prefix = kept;
        }
    }

    /// The OR over the strings of the AND of each string's trigrams: `All` if a string is too
    /// short to hold one (or the trigram budget is spent), `Nothing` for the empty set.
    fn and_trigrams(&mut self, set: &[Vec<u8>]) -> Query {
        if set.iter().any(|s| s.len() < 3) {
            return Query::All;
        }
        let cost: usize = set.iter().map(|s| s.len() - 2).sum();
        if cost > self.budget {
            return Query::All;
        }
        self.budget -= cost;
        let alternatives = set
            .iter()
            .map(|s| {
                let mut trigrams: Vec<Query> = s
                    .windows(3)
                    .map(|w| Query::Trigram(trigram([w[0], w[1], w[2]])))
                    .collect();
                trigrams.sort_unstable();
                trigrams.dedup();
                if trigrams.len() == 1 {
                    trigrams.pop().unwrap_or(Query::All)
                } else {
                    Query::And(trigrams)
                }
            })
            .collect::<Vec<_>>();
        match alternatives.len() {
            0 => Query::Nothing,
            1 => alternatives.into_iter().next().unwrap_or(Query::All),
            _ => Query::Or(alternatives),
        }
    }
}

/// A class of at most `MAX_CLASS` characters (bytes) is the exact set of their encodings.
fn class_info(class: &Class) -> Info {
    match class {
        Class::Unicode(class) => {
            let count: u64 = class
                .ranges()
                .iter()
                .map(|r| u64::from(u32::from(r.end()) - u32::from(r.start())) + 1)
                .sum();
            if count == 0 {
                return Info::no_match();
            }
            if count > MAX_CLASS {
                return Info::any_char();
            }
            let mut buf = [0; 4];
            let set = class
                .ranges()
                .iter()
                .flat_map(|r| r.start()..=r.end())
                .map(|c| c.encode_utf8(&mut buf).as_bytes().to_vec())
                .collect();
            Info::exact(set)
        }
        Class::Bytes(class) => {
            let count: u64 = class
                .ranges()
                .iter()
                .map(|r| u64::from(r.end() - r.start()) + 1)
                .sum();
            if count == 0 {
                return Info::no_match();
            }
            if count > MAX_CLASS {
                return Info::any_char();
            }
            let set = class
                .ranges()
                .iter()
                .flat_map(|r| r.start()..=r.end())
                .map(|b| vec![b])
                .collect();
            Info::exact(set)
        }
    }
}

fn bytes_of(set: &[Vec<u8>]) -> usize {
    set.iter().map(Vec::len).sum()
}

/// Every string of `a` followed by every string of `b`.
/// The strings that begin (or end) every non-empty match of a concatenation of two parts not
/// both exact: `near` is the part at that end, `far` the other; `edge` is the set kept for
/// that end (prefix or suffix), `bound` the strings a part's non-empty match has there, and
/// `join` concatenates `near`'s exact strings with `far`'s edge in match order. With `near`
/// exact, the match starts with one of its strings followed by `far`'s edge, or (`far` empty)
/// with `near` alone; otherwise with `near`'s edge, or (`near` empty) `far`'s.
fn concat_edge(
    near: &Info,
    far: &Info,
    edge: fn(&Info) -> &Set,
    bound: fn(&Info) -> Set,
    join: Join,
) -> Set {
    let (mut set, alone) = match &near.exact {
        Some(a) => (join(a, edge(far)), far.can_empty.then(|| bound(near))),
        None => (edge(near).clone(), near.can_empty.then(|| bound(far))),
    };
    set.extend(alone.into_iter().flatten());
    set
}

fn cross(a: &[Vec<u8>], b: &[Vec<u8>]) -> Set {
    let mut out = Vec::with_capacity(a.len() * b.len());
    for x in a {
        for y in b {
            let mut s = Vec::with_capacity(x.len() + y.len());
            s.extend_from_slice(x);
            s.extend_from_slice(y);
            out.push(s);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// `a AND b`, flattened but otherwise left for [`Query::simplify`].
fn and(a: Query, b: Query) -> Query {
    combine(a, b, true)
}

/// `a OR b`, flattened but otherwise left for [`Query::simplify`].
fn or(a: Query, b: Query) -> Query {
    combine(a, b, false)
}

/// `and` (`is_and`) or `or`: the unit of the node (`All` for an AND) gives the other
/// query, its zero gives the zero, and a node of the same kind takes the other in.
fn combine(a: Query, b: Query, is_and: bool) -> Query {
    let (unit, zero) = unit_and_zero(is_and);
    if a == unit {
        return b;
    }
    if b == unit {
        return a;
    }
    if a == zero || b == zero {
        return zero;
    }
    // The children of `q` when it is a node of this kind, else `q` itself.
    let same_kind = |q: Query| match q {
        Query::And(children) if is_and => Ok(children),
        Query::Or(children) if !is_and => Ok(children),
        q => Err(q),
    };
    match (same_kind(a), same_kind(b)) {
        (Ok(mut v), Ok(w)) => {
            v.extend(w);
            node(is_and, v)
        }
        (Ok(mut v), Err(q)) | (Err(q), Ok(mut v)) => {
            v.push(q);
            node(is_and, v)
        }
        (Err(a), Err(b)) => node(is_and, vec![a, b]),
    }
}

/// The query an AND (`is_and`) or an OR of no children is, and the one that decides it
/// whatever its other children.
fn unit_and_zero(is_and: bool) -> (Query, Query) {
    if is_and {
        (Query::All, Query::Nothing)
    } else {
        (Query::Nothing, Query::All)
    }
}

impl Query {
    /// An equivalent query in normal form: nested ANDs (ORs) flattened, `All` and `Nothing`
    /// absorbed, children sorted (trigrams first) and deduplicated, children implied by others
    /// dropped (`a AND (a OR b)` is `a`), and trigrams common to all the ORs of an AND (ANDs of an
    /// OR) factored out: `(abc|def|ghi) AND (abc|def|mno)` is `abc|def|(ghi AND mno)`.
    pub fn simplify(self) -> Query {
        match self {
            Query::And(children) => simplify_node(children, true),
            Query::Or(children) => simplify_node(children, false),
            q => q,
        }
    }

    /// Evaluates the query against a unit whose trigrams are those `has` accepts.
    pub fn matches_trigrams(&self, has: &dyn Fn(u32) -> bool) -> bool {
        match self {
            Query::All => true,
            Query::Nothing => false,
            Query::Trigram(t) => has(*t),
            Query::And(children) => children.iter().all(|q| q.matches_trigrams(has)),
            Query::Or(children) => children.iter().any(|q| q.matches_trigrams(has)),
        }
    }
}

fn node(is_and: bool, children: Vec<Query>) -> Query {
    if is_and {
        Query::And(children)
    } else {
        Query::Or(children)
    }
}

/// `Query::simplify` for an AND (`is_and`) or an OR of `children`.
fn simplify_node(children: Vec<Query>, is_and: bool) -> Query {
    let (unit, zero) = unit_and_zero(is_and);
    let mut atoms: Vec<u32> = Vec::new();
    // The compound children: ORs under an AND, ANDs under an OR.
    let mut subs: Vec<Query> = Vec::new();
    for child in children {
        match child.simplify() {
            q if q == zero => return zero,
            q if q == unit => {}
            Query::Trigram(t) => atoms.push(t),
            Query::And(grand) if is_and => sort_children(grand, &mut atoms, &mut subs),
            Query::Or(grand) if !is_and => sort_children(grand, &mut atoms, &mut subs),
            q => subs.push(q),
        }
    }
    atoms.sort_unstable();
    atoms.dedup();
    subs.sort_unstable();
    subs.dedup();

    // Drop compound children the trigrams already decide.
    subs.retain(|q| !decided_by_atoms(q, &atoms, is_and));
    // Drop compound children implied by (under an OR: implying) another one.
    if subs.len() > 1 && subs.len() <= MAX_PAIRWISE {
        let mut keep = vec![true; subs.len()];
        for i in 0..subs.len() {
            for j in 0..subs.len() {
                if i == j || !keep[j] {
                    continue;
                }
                let mut fuel = IMPLY_FUEL;
                let redundant = if is_and {
                    implies(&subs[j], &subs[i], &mut fuel)
                } else {
                    implies(&subs[i], &subs[j], &mut fuel)
                };
                if redundant {
                    keep[i] = false;
                    break;
                }
            }
        }
        let mut flags = keep.into_iter();
        subs.retain(|_| flags.next().unwrap_or(true));
    }
    // Factor out the trigrams every compound child has directly.
    if subs.len() >= 2 {
        let mut common = direct_atoms(&subs[0]);
        for q in &subs[1..] {
            let theirs = direct_atoms(q);
            common.retain(|t| theirs.binary_search(t).is_ok());
            if common.is_empty() {
                break;
            }
        }
        if !common.is_empty() {
            let reduced = subs
                .into_iter()
                .map(|q| match q {
                    Query::And(v) | Query::Or(v) => node(
                        !is_and,
                        v.into_iter()
                            .filter(|c| !matches!(c, Query::Trigram(t) if common.binary_search(t).is_ok()))
                            .collect(),
                    ),
                    q => q,
                })
                .collect();
            let mut factored: Vec<Query> = common.into_iter().map(Query::Trigram).collect();
            factored.push(node(is_and, reduced));
            let mut children: Vec<Query> = atoms.into_iter().map(Query::Trigram).collect();
            children.push(node(!is_and, factored));
            return node(is_and, children).simplify();
        }
    }

    let mut children: Vec<Query> = atoms.into_iter().map(Query::Trigram).collect();
    children.extend(subs);
    match children.len() {
        0 => unit,
        1 => children.pop().unwrap_or(unit),
        _ => node(is_and, children),
    }
}

/// Files the children of a flattened (already simplified) child.
fn sort_children(children: Vec<Query>, atoms: &mut Vec<u32>, subs: &mut Vec<Query>) {
    for q in children {
        match q {
            Query::Trigram(t) => atoms.push(t),
            q => subs.push(q),
        }
    }
}

/// The sorted trigrams among the direct children of a compound query.
fn direct_atoms(q: &Query) -> Vec<u32> {
    let mut atoms: Vec<u32> = match q {
        Query::And(v) | Query::Or(v) => v
            .iter()
            .filter_map(|c| match c {
                Query::Trigram(t) => Some(*t),
                _ => None,
            })
            .collect(),
        Query::Trigram(t) => vec![*t],
        _ => Vec::new(),
    };
    atoms.sort_unstable();
    atoms
}

/// Under an AND (`under_and`): whether the AND of `atoms` (sorted) implies `q`. Under an OR:
/// whether `q` implies the OR of `atoms`, the dual (All and Nothing, AND and OR trade places).
fn decided_by_atoms(q: &Query, atoms: &[u32], under_and: bool) -> bool {
    let decided = |c: &Query| decided_by_atoms(c, atoms, under_and);
    match q {
        Query::All => under_and,
        Query::Nothing => !under_and,
        Query::Trigram(t) => atoms.binary_search(t).is_ok(),
        Query::And(v) if under_and => v.iter().all(decided),
        Query::Or(v) if !under_and => v.iter().all(decided),
        Query::And(v) | Query::Or(v) => v.iter().any(decided),
    }
}

/// Whether `a` implies `b`; false when unsure (or out of fuel).
fn implies(a: &Query, b: &Query, fuel: &mut u32) -> bool {
    if *fuel == 0 {
        return false;
    }
    *fuel -= 1;
    match (a, b) {
        (_, Query::All) | (Query::Nothing, _) => true,
        (Query::All, _) | (_, Query::Nothing) => false,
        (Query::Trigram(x), Query::Trigram(y)) => x == y,
        (_, Query::And(bs)) => bs.iter().all(|c| implies(a, c, fuel)),
        (Query::Or(as_), _) => as_.iter().all(|c| implies(c, b, fuel)),
        (Query::And(as_), Query::Or(bs)) => {
            as_.iter().any(|c| implies(c, b, fuel)) || bs.iter().any(|d| implies(a, d, fuel))
        }
        (Query::And(as_), Query::Trigram(_)) => as_.iter().any(|c| implies(c, b, fuel)),
        (Query::Trigram(_), Query::Or(bs)) => bs.iter().any(|d| implies(a, d, fuel)),
    }
}

/// codesearch's notation: `"abc" "bcd"` is an AND, `("abc"|"bcd")` an OR, `+` and `-` are
/// `All` and `Nothing`; an AND inside an OR is parenthesised: `(("abc" "bcd")|"xyz")`.
impl fmt::Display for Query {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Query::All => f.write_str("+"),
            Query::Nothing => f.write_str("-"),
            Query::Trigram(t) => {
                f.write_str("\"")?;
                for b in [(t >> 16) as u8, (t >> 8) as u8, *t as u8] {
                    match b {
                        b'"' => f.write_str("\\\"")?,
                        b'\\' => f.write_str("\\\\")?,
                        b'\n' => f.write_str("\\n")?,
                        b'\r' => f.write_str("\\r")?,
                        b'\t' => f.write_str("\\t")?,
                        0x20..=0x7e => write!(f, "{}", b as char)?,
                        _ => write!(f, "\\x{b:02x}")?,
                    }
                }
                f.write_str("\"")
            }
            Query::And(children) => {
                for (i, c) in children.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{c}")?;
                }
                Ok(())
            }
            Query::Or(children) => {
                f.write_str("(")?;
                for (i, c) in children.iter().enumerate() {
                    if i > 0 {
                        f.write_str("|")?;
                    }
                    match c {
                        Query::And(_) => write!(f, "({c})")?,
                        _ => write!(f, "{c}")?,
                    }
                }
                f.write_str(")")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grep::{CompiledPattern, PatternOptions};
    use grep_matcher::Matcher;
    use std::collections::HashSet;

    // ---- helpers -------------------------------------------------------------------------

    fn t(s: &str) -> Query {
        let b = s.as_bytes();
        assert_eq!(b.len(), 3, "{s:?}");
        Query::Trigram(trigram([b[0], b[1], b[2]]))
    }

    fn trigrams_of(text: &[u8]) -> HashSet<u32> {
        text.windows(3)
            .map(|w| trigram([w[0], w[1], w[2]]))
            .collect()
    }

    fn holds_on(q: &Query, text: &[u8]) -> bool {
        let set = trigrams_of(text);
        q.matches_trigrams(&|t| set.contains(&t))
    }

    /// Whether every unit that satisfies `q` must contain `tri`.
    fn requires(q: &Query, tri: &str) -> bool {
        let b = tri.as_bytes();
        let missing = trigram([b[0], b[1], b[2]]);
        !q.matches_trigrams(&|t| t != missing)
    }

    /// Parses the `Display` notation back (test inputs are ASCII).
    struct Reader<'a> {
        s: &'a [u8],
        i: usize,
    }

    impl Reader<'_> {
        fn peek(&self) -> Option<u8> {
            self.s.get(self.i).copied()
        }
        fn eat(&mut self, c: u8) {
            assert_eq!(self.peek(), Some(c), "at {} in {:?}", self.i, self.text());
            self.i += 1;
        }
        fn text(&self) -> String {
            String::from_utf8_lossy(self.s).into_owned()
        }
        fn trigram(&mut self) -> Query {
            self.eat(b'"');
            let mut bytes = Vec::new();
            while self.peek() != Some(b'"') {
                let c = self.peek().expect("unterminated trigram");
                self.i += 1;
                if c == b'\\' {
                    let e = self.peek().expect("bad escape");
                    self.i += 1;
                    bytes.push(match e {
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'x' => {
                            let hex = std::str::from_utf8(&self.s[self.i..self.i + 2]).unwrap();
                            self.i += 2;
                            u8::from_str_radix(hex, 16).unwrap()
                        }
                        other => other,
                    });
                } else {
                    bytes.push(c);
                }
            }
            self.eat(b'"');
            assert_eq!(bytes.len(), 3);
            Query::Trigram(trigram([bytes[0], bytes[1], bytes[2]]))
        }
        /// Items separated by `sep`: trigrams, groups in `(` `)` read by `group`, and (with
        /// `consts`) `+` for all and `-` for nothing.
        fn seq(&mut self, sep: u8, group: fn(&mut Self) -> Query, consts: bool) -> Vec<Query> {
            let mut items = Vec::new();
            loop {
                let item = match self.peek() {
                    Some(b'"') => self.trigram(),
                    Some(b'(') => {
                        self.eat(b'(');
                        let inner = group(self);
                        self.eat(b')');
                        inner
                    }
                    Some(b'+') if consts => {
                        self.i += 1;
                        Query::All
                    }
                    Some(b'-') if consts => {
                        self.i += 1;
                        Query::Nothing
                    }
                    other => panic!("unexpected {other:?} in {:?}", self.text()),
                };
                items.push(item);
                if self.peek() == Some(sep) {
                    self.i += 1;
                } else {
                    break;
                }
            }
            items
        }
        /// Space-separated items; `(` opens an OR.
        fn and_seq(&mut self) -> Query {
            let mut items = self.seq(b' ', Self::or_seq, true);
            if items.len() == 1 {
                items.pop().unwrap()
            } else {
                Query::And(items)
            }
        }
        /// `|`-separated alternatives; `(` opens an AND.
        fn or_seq(&mut self) -> Query {
            Query::Or(self.seq(b'|', Self::and_seq, false))
        }
    }

    fn read(s: &str) -> Query {
        let mut r = Reader {
            s: s.as_bytes(),
            i: 0,
        };
        let q = r.and_seq();
        assert_eq!(r.i, s.len(), "trailing text in {s:?}");
        q
    }

    fn collect_trigrams(q: &Query, out: &mut Vec<u32>) {
        match q {
            Query::Trigram(t) => out.push(*t),
            Query::And(v) | Query::Or(v) => v.iter().for_each(|c| collect_trigrams(c, out)),
            _ => {}
        }
    }

    /// Same truth table over the trigrams either mentions.
    fn equivalent(a: &Query, b: &Query) -> bool {
        let mut vars = Vec::new();
        collect_trigrams(a, &mut vars);
        collect_trigrams(b, &mut vars);
        vars.sort_unstable();
        vars.dedup();
        assert!(
            vars.len() <= 20,
            "too many trigrams to compare: {}",
            vars.len()
        );
        (0u32..1 << vars.len()).all(|mask| {
            let has = |t: u32| {
                let i = vars.binary_search(&t).unwrap();
                mask & (1 << i) != 0
            };
            a.matches_trigrams(&has) == b.matches_trigrams(&has)
        })
    }

    // ---- golden table --------------------------------------------------------------------

    /// codesearch `index/regexp_test.go`, in this module's notation (an OR of ANDs is
    /// parenthesised as a whole). Each plan must be equivalent to codesearch's answer.
    const CODESEARCH: &[(&str, &str)] = &[
        ("Abcdef", r#""Abc" "bcd" "cde" "def""#),
        ("(abc)(def)", r#""abc" "bcd" "cde" "def""#),
        ("abc.*(def|ghi)", r#""abc" ("def"|"ghi")"#),
        (
            "abc(def|ghi)",
            r#""abc" (("bcd" "cde" "def")|("bcg" "cgh" "ghi"))"#,
        ),
        ("a+hello", r#""ahe" "ell" "hel" "llo""#),
        (
            "(a+hello|b+world)",
            r#"(("ahe" "ell" "hel" "llo")|("bwo" "orl" "rld" "wor"))"#,
        ),
        ("a*bbb", r#""bbb""#),
        ("a?bbb", r#""bbb""#),
        ("(bbb)a?", r#""bbb""#),
        ("(bbb)a*", r#""bbb""#),
        ("^abc", r#""abc""#),
        ("abc$", r#""abc""#),
        ("ab[cde]f", r#"(("abc" "bcf")|("abd" "bdf")|("abe" "bef"))"#),
        ("(abc|bac)de", r#""cde" (("abc" "bcd")|("acd" "bac"))"#),
        // Not enough letters for a trigram.
        ("ab[^cde]f", "+"),
        ("ab.f", "+"),
        (".", "+"),
        ("()", "+"),
        // No matches.
        (r"[^\s\S]", "-"),
        // Factoring.
        ("(abc|abc)", r#""abc""#),
        ("(ab|ab)c", r#""abc""#),
        ("ab(cab|cat)", r#""abc" "bca" ("cab"|"cat")"#),
        ("(z*(abc|def)z*)(z*(abc|def)z*)", r#"("abc"|"def")"#),
        ("(z*abcz*defz*)|(z*abcz*defz*)", r#""abc" "def""#),
        (
            "(z*abcz*defz*(ghi|jkl)z*)|(z*abcz*defz*(mno|prs)z*)",
            r#""abc" "def" ("ghi"|"jkl"|"mno"|"prs")"#,
        ),
        (
            "(z*(abcz*def)|(ghiz*jkl)z*)|(z*(mnoz*prs)|(tuvz*wxy)z*)",
            r#"(("abc" "def")|("ghi" "jkl")|("mno" "prs")|("tuv" "wxy"))"#,
        ),
        (
            "(z*abcz*defz*)(z*(ghi|jkl)z*)",
            r#""abc" "def" ("ghi"|"jkl")"#,
        ),
        (
            "(z*abcz*defz*)|(z*(ghi|jkl)z*)",
            r#"("ghi"|"jkl"|("abc" "def"))"#,
        ),
        // Several possible prefixes and suffixes.
        (
            "[ab][cd][ef]",
            r#"("ace"|"acf"|"ade"|"adf"|"bce"|"bcf"|"bde"|"bdf")"#,
        ),
        ("ab[cd]e", r#"(("abc" "bce")|("abd" "bde"))"#),
        // Suffixes of different sizes.
        // codesearch prints `"cde" ("abc" "bcd")|("acd")`: trigrams come first here.
        ("(a|ab)cde", r#""cde" ("acd"|("abc" "bcd"))"#),
        ("(a|b|c|d)(ef|g|hi|j)", "+"),
        ("(?s).", "+"),
        // Expanding case (letters without non-ASCII case variants).
        ("(?i)a~~", r#"("A~~"|"a~~")"#),
        ("(?i)ab~", r#"("AB~"|"Ab~"|"aB~"|"ab~")"#),
        (
            "(?i)abc",
            r#"("ABC"|"ABc"|"AbC"|"Abc"|"aBC"|"aBc"|"abC"|"abc")"#,
        ),
        (
            "(?i)abc|def",
            r#"("ABC"|"ABc"|"AbC"|"Abc"|"DEF"|"DEf"|"DeF"|"Def"|"aBC"|"aBc"|"abC"|"abc"|"dEF"|"dEf"|"deF"|"def")"#,
        ),
        (
            "(?i)abcd",
            r#"("ABC"|"ABc"|"AbC"|"Abc"|"aBC"|"aBc"|"abC"|"abc") ("BCD"|"BCd"|"BcD"|"Bcd"|"bCD"|"bCd"|"bcD"|"bcd")"#,
        ),
        (
            "(?i)abc|abc",
            r#"("ABC"|"ABc"|"AbC"|"Abc"|"aBC"|"aBc"|"abC"|"abc")"#,
        ),
        // Word boundaries.
        (r"\b", "+"),
        (r"\B", "+"),
        (r"\babc", r#""abc""#),
        (r"\Babc", r#""abc""#),
        (r"abc\b", r#""abc""#),
        (r"abc\B", r#""abc""#),
        (r"ab\bc", r#""abc""#),
        (r"ab\Bc", r#""abc""#),
    ];

    #[test]
    fn codesearch_golden_table() {
        let mut failures = Vec::new();
        for &(re, want) in CODESEARCH {
            let got = plan(re, false);
            let want_q = read(want);
            if !equivalent(&got, &want_q) {
                failures.push(format!("plan({re:?}) = {got}, want {want}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// The notation round-trips, and plans print the way codesearch's do (up to the outer
    /// parentheses of an OR of ANDs).
    #[test]
    fn display_matches_codesearch_notation() {
        for &(re, want) in CODESEARCH {
            let got = plan(re, false);
            assert_eq!(read(&got.to_string()), got, "{re:?}");
            assert_eq!(got.to_string(), want, "{re:?}");
        }
    }

    // ---- soundness ------------------------------------------------------------------------

    /// xorshift64*: deterministic and dependency-free.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
            &items[self.below(items.len())]
        }
    }

    /// Pieces every text may contain: line endings, the non-ASCII case variants of `k` and `s`,
    /// other non-ASCII letters, and bytes that are not UTF-8.
    const COMMON_PIECES: &[&[u8]] = &[
        b"\r\n",
        b"\n",
        b"\r",
        b" ",
        b"\t",
        b"_",
        "\u{212A}".as_bytes(), // KELVIN SIGN, folds to k
        "\u{17F}".as_bytes(),  // LATIN SMALL LETTER LONG S, folds to s
        "é".as_bytes(),
        "É".as_bytes(),
        "α".as_bytes(),
        "Ω".as_bytes(),
        b"\xFF",
        b"\xE2\x84",
        b"(",
        b")",
        b"0",
        b"7",
    ];

    /// Text pieces taken from the regex itself: its characters (in both cases) and its runs of
    /// word characters.
    fn vocabulary(regex: &str) -> Vec<Vec<u8>> {
        let mut vocab: Vec<Vec<u8>> = COMMON_PIECES.iter().map(|p| p.to_vec()).collect();
        let mut run = String::new();
        for c in regex.chars().chain(std::iter::once(' ')) {
            if c.is_alphanumeric() || c == '_' {
                run.push(c);
            } else {
                if run.chars().count() >= 2 {
                    vocab.push(run.as_bytes().to_vec());
                }
                run.clear();
            }
            if !c.is_control() && c != ' ' {
                for v in [
                    c.to_string(),
                    c.to_uppercase().to_string(),
                    c.to_lowercase().to_string(),
                ] {
                    vocab.push(v.into_bytes());
                }
            }
        }
        vocab.sort();
        vocab.dedup();
        vocab
    }

    /// A random text over `vocab`, with occasional case flips, Kelvin signs and long s.
    fn random_text(rng: &mut Rng, vocab: &[Vec<u8>]) -> Vec<u8> {
        let mut text = Vec::new();
        for _ in 0..rng.below(14) {
            let piece = rng.pick(vocab);
            match rng.below(10) {
                0 => text.extend(piece.to_ascii_uppercase()),
                1 => text.extend(piece.to_ascii_lowercase()),
                2 => {
                    for &b in piece {
                        match b {
                            b'k' | b'K' => text.extend("\u{212A}".as_bytes()),
                            b's' | b'S' => text.extend("\u{17F}".as_bytes()),
                            _ => text.push(b),
                        }
                    }
                }
                3 => text.push(rng.next() as u8),
                _ => text.extend(piece),
            }
        }
        text
    }

    /// Appends a random string of the language of `hir` (look-arounds aside) to `out`.
    fn sample(hir: &Hir, rng: &mut Rng, out: &mut Vec<u8>) {
        match hir.kind() {
            HirKind::Empty | HirKind::Look(_) => {}
            HirKind::Literal(lit) => out.extend_from_slice(&lit.0),
            HirKind::Class(Class::Unicode(class)) => {
                if let Some(range) = class.ranges().get(rng.below(class.ranges().len().max(1))) {
                    let (lo, hi) = (u32::from(range.start()), u32::from(range.end()));
                    let c = match rng.below(4) {
                        0 => lo,
                        1 => hi,
                        _ => lo + (rng.next() % u64::from(hi - lo + 1)) as u32,
                    };
                    let c = char::from_u32(c).unwrap_or(range.start());
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                }
            }
            HirKind::Class(Class::Bytes(class)) => {
                if let Some(range) = class.ranges().get(rng.below(class.ranges().len().max(1))) {
                    let span = u64::from(range.end() - range.start()) + 1;
                    out.push(range.start() + (rng.next() % span) as u8);
                }
            }
            HirKind::Repetition(rep) => {
                let extra = rep.max.map_or(3, |max| (max - rep.min).min(3));
                let n = rep.min.min(20) + rng.below(extra as usize + 1) as u32;
                for _ in 0..n {
                    sample(&rep.sub, rng, out);
                }
            }
            HirKind::Capture(capture) => sample(&capture.sub, rng, out),
            HirKind::Concat(subs) => subs.iter().for_each(|sub| sample(sub, rng, out)),
            HirKind::Alternation(subs) => sample(rng.pick(subs), rng, out),
        }
    }

    /// The regex grep.rs's `newline_tolerant_regex` makes of `regex`: every literal newline outside
    /// a class becomes `(?:\r?\n)`.
    fn newline_tolerant(regex: &str) -> String {
        use regex_syntax::ast::{self, Ast};
        struct Newlines(Vec<ast::Span>);
        impl ast::Visitor for Newlines {
            type Output = Vec<ast::Span>;
            type Err = ();
            fn finish(self) -> Result<Vec<ast::Span>, ()> {
                Ok(self.0)
            }
            fn visit_pre(&mut self, ast: &Ast) -> Result<(), ()> {
                if let Ast::Literal(lit) = ast
                    && lit.c == '\n'
                {
                    self.0.push(lit.span);
                }
                Ok(())
            }
        }
        let Ok(parsed) = ast::parse::Parser::new().parse(regex) else {
            return regex.to_string();
        };
        let spans = ast::visit(&parsed, Newlines(Vec::new())).unwrap();
        let mut out = String::new();
        let mut last = 0;
        for span in spans {
            out.push_str(&regex[last..span.start.offset]);
            out.push_str(r"(?:\r?\n)");
            last = span.end.offset;
        }
        out.push_str(&regex[last..]);
        out
    }

    /// For every text and every match the scan's matcher (grep.rs `CompiledPattern`) finds in
    /// it, the plan holds on the match's own trigrams (a stronger check than on the whole text). Returns the number of
    /// non-empty matches checked.
    /// With `all_flags` both with and without the case-insensitive flag and multiline mode; else
    /// with one combination picked at random (compiling a matcher is the slow part).
    fn check_sound(regex: &str, rng: &mut Rng, texts: usize, all_flags: bool) -> usize {
        let vocab = vocabulary(regex);
        let mut checked = 0;
        let (ci_flags, multiline_flags) = if all_flags {
            (vec![false, true], vec![false, true])
        } else {
            (vec![rng.below(2) == 0], vec![rng.below(2) == 0])
        };
        for case_insensitive in ci_flags {
            // The scan matches the rewritten regex, so that is what is planned.
            let rewritten = newline_tolerant(regex);
            let query = plan(&rewritten, case_insensitive);
            assert_eq!(
                query.clone().simplify(),
                query,
                "{regex:?}: not in normal form"
            );
            // Texts: random pieces, with strings sampled from the regex in most of them.
            let hir = parse(&rewritten, case_insensitive);
            let texts: Vec<Vec<u8>> = (0..texts)
                .map(|_| {
                    let mut text = match rng.below(8) {
                        0 => Vec::new(),
                        _ => random_text(rng, &vocab),
                    };
                    if let Some(hir) = &hir {
                        for _ in 0..rng.below(3) {
                            sample(hir, rng, &mut text);
                            text.extend(random_text(rng, &vocab).iter().take(rng.below(4)));
                        }
                    }
                    text
                })
                .collect();
            for &multiline in &multiline_flags {
                let options = PatternOptions {
                    pattern: regex.to_string(),
                    literal: false,
                    case_sensitive: !case_insensitive,
                    multiline: Some(multiline),
                    before: 0,
                    after: 0,
                };
                let Ok(pattern) = CompiledPattern::new(&options) else {
                    continue;
                };
                for text in &texts {
                    let _ = pattern.matcher.find_iter(text, |m| {
                        let found = &text[m.start()..m.end()];
                        assert!(
                            holds_on(&query, found),
                            "unsound: plan({regex:?}, ci={case_insensitive}) = {query} \
                             rejects the match {:?} in {:?}",
                            String::from_utf8_lossy(found),
                            String::from_utf8_lossy(text),
                        );
                        checked += usize::from(!found.is_empty());
                        true
                    });
                }
            }
        }
        checked
    }

    const SOUNDNESS_REGEXES: &[&str] = &[
        // Literals.
        "PM_RESUME",
        "ERR_PTR",
        "hello world",
        "abc",
        "abcd",
        "ab",
        "a.b.c",
        r"foo\(bar\)",
        r"\$\{x\}",
        r"a\tb\tc",
        r"\x41\x42C",
        // Classes.
        "ab[cde]f",
        "[ab][cd][ef]",
        "ab[^cde]f",
        "[a-z]{3}",
        "[0-9a-f]{4}x",
        r"\d\d\d",
        r"\w\w\w",
        r"x\Wy\Wz",
        r"[[:alpha:]]bc",
        r"[^\s\S]",
        r"[^\s\S]|abc",
        r"abc[^\s\S]?def",
        // Alternation and repetition.
        "foo|bar",
        "foo|ba",
        "(abc|bac)de",
        "(a|ab)cde",
        "a+hello",
        "(a+hello|b+world)",
        "a*bbb",
        "a?bbb",
        "(bbb)a?",
        "(bbb)a*",
        "(a+bc)?def",
        "(a+bc)?(d+ef)?g+hij",
        "abc(d+)?efg",
        "e+(abc(d+)?)",
        "(ab)+c",
        "(abc){2}",
        "(abc){2,}",
        "(ab){1,3}c",
        "(ab){0,3}cd",
        "x(ab){0,9}cd",
        "(abc){12}",
        "(?:a|bc){3,5}d",
        "(z*abcz*defz*)|(z*(ghi|jkl)z*)",
        "(z*(abc|def)z*)(z*(abc|def)z*)",
        "ab(cab|cat)",
        r"\w+_resume\(",
        r"\w+_res(ume)?\(",
        r"fn\s+\w+\s*\(",
        "a.*b.*c.*d",
        ".*",
        r"\w+",
        "a{0}bcd",
        "(?:)abc(?:)",
        // Anchors and boundaries.
        "^abc",
        "abc$",
        "^abc$",
        r"\babc\b",
        r"ab\bc",
        r"ab\Bc",
        r"(?-u:\b)abc",
        r"\Aabc\z",
        "^$",
        // Unicode.
        "é",
        "éèê",
        "café",
        "[éè]té",
        r"\p{Greek}+",
        r"\p{Greek}abc",
        "αβγ",
        "Ωmega",
        r"\x{212A}elvin",
        "ſtop",
        // Case.
        "(?i)abc",
        "(?i)kelvin",
        "(?i)KELVIN",
        "(?i)sss",
        "(?i)kask",
        "(?i:pm_)resume",
        "(?i)irq_handler",
        "(?i)straße",
        "(?i)ǅemal",
        "(?i)ΣΑΣ",
        "(?-i)abc",
        "k[sk]s",
        "(?i)[a-z]ks",
        // Bytes.
        r"(?-u:\xFF)abc",
        r"(?-u:[\x80-\xFF])ab",
        r"(?-u:\xE2\x84)\xAA",
        r"(?-u:.)bc",
        r"(?-u:\w)bc",
        // Line endings.
        r"a(?:\r?\n)b",
        r"abc(?:\r?\n)def",
        r"abc$(?:\r?\n)^def",
        r"abc\r",
        r"abc\ndef",
        r"abc\x0Adef",
        r"ab[\r\n]cd",
        r"ab\scd",
        r"[^\n]abc",
        "ab.cd",
        "(?s)ab.cd",
        // Odd ones.
        r"a\.b\*c",
        "a|",
        "(|a)bcd",
        "(a|)(b|)(c|)(d|)",
        "(?x) a b c d ",
        "((((abc))))",
        "(?U)a+?bcd",
    ];

    #[test]
    fn plans_are_sound_for_hand_written_regexes() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        // The texts are built to match: a check that matches nothing proves nothing.
        let never = [r"[^\s\S]", r"ab\bc", "^$"];
        for regex in SOUNDNESS_REGEXES {
            let checked = check_sound(regex, &mut rng, 200, true);
            assert_eq!(
                checked == 0,
                never.contains(regex),
                "{regex:?} matched {checked} times"
            );
        }
    }

    /// A random regex over a small alphabet that includes case-folding traps.
    fn random_regex(rng: &mut Rng, depth: usize) -> String {
        const ATOMS: &[&str] = &[
            "a", "b", "c", "k", "K", "s", "S", "x", "_", "é", "\u{212A}", "\u{17F}", "ab", "abc",
            "bcd", "kas", "ſk", "cab",
        ];
        const CLASSES: &[&str] = &[
            "[abc]",
            "[^a]",
            "[a-c]",
            r"\w",
            r"\d",
            ".",
            r"\s",
            "[ks]",
            r"(?-u:\xFF)",
            r"(?-u:[\x80-\xFF])",
            r"[é\x{212A}]",
            r"\p{Greek}",
            "[a-z]",
            r"[^\s\S]",
            r"(?-u:\w)",
            "[[:upper:]]",
        ];
        const LOOKS: &[&str] = &["^", "$", r"\b", r"\B", r"(?-u:\b)", r"\A", r"\z"];
        const REPEATS: &[&str] = &[
            "*", "+", "?", "{2}", "{1,3}", "{0,2}", "{3,}", "{2,5}", "{0,9}", "{9,}", "*?", "{0}",
        ];
        let choices = if depth >= 4 { 4 } else { 12 };
        match rng.below(choices) {
            0 => rng.pick(ATOMS).to_string(),
            1 => rng.pick(CLASSES).to_string(),
            2 => rng.pick(LOOKS).to_string(),
            3 if rng.below(3) == 0 => r"(?:\r?\n)".to_string(),
            3 => rng.pick(ATOMS).to_string(),
            4 | 5 => (0..2 + rng.below(3))
                .map(|_| random_regex(rng, depth + 1))
                .collect(),
            6 => {
                let alts: Vec<String> = (0..2 + rng.below(2))
                    .map(|_| random_regex(rng, depth + 1))
                    .collect();
                format!("(?:{})", alts.join("|"))
            }
            7 | 8 => format!("(?:{}){}", random_regex(rng, depth + 1), rng.pick(REPEATS)),
            9 => format!("({})", random_regex(rng, depth + 1)),
            10 => format!("(?i:{})", random_regex(rng, depth + 1)),
            _ => format!("{}{}", rng.pick(ATOMS), random_regex(rng, depth + 1)),
        }
    }

    #[test]
    fn plans_are_sound_for_random_regexes() {
        let mut rng = Rng(0x0123_4567_89AB_CDEF);
        let mut matched = 0;
        let mut selective = 0;
        let count = 1000;
        for _ in 0..count {
            let regex = random_regex(&mut rng, 0);
            if plan(&regex, false) != Query::All {
                selective += 1;
            }
            if check_sound(&regex, &mut rng, 40, false) > 0 {
                matched += 1;
            }
        }
        assert!(
            matched * 2 >= count,
            "only {matched} of {count} regexes matched"
        );
        assert!(
            selective * 5 >= count,
            "only {selective} of {count} plans select"
        );
    }

    /// Literal patterns as grep.rs builds them: escaped, each newline made `(?:\r?\n)`.
    #[test]
    fn plans_are_sound_for_literal_patterns() {
        let mut rng = Rng(42);
        for literal in [
            "a.b*c",
            "PM_RESUME",
            "line one\nline two",
            "crlf\r\nnext",
            "Kelvin \u{212A} and ſ",
            "(?i)",
            "[x]",
        ] {
            let regex = literal
                .split('\n')
                .map(|line| regex_syntax::escape(line.strip_suffix('\r').unwrap_or(line)))
                .collect::<Vec<_>>()
                .join(r"(?:\r?\n)");
            let mut vocab = vocabulary(&regex);
            vocab.push(literal.as_bytes().to_vec());
            vocab.push(literal.replace('\n', "\r\n").into_bytes());
            for case_insensitive in [false, true] {
                let query = plan(&regex, case_insensitive);
                let options = PatternOptions {
                    pattern: literal.to_string(),
                    literal: true,
                    case_sensitive: !case_insensitive,
                    multiline: Some(true),
                    before: 0,
                    after: 0,
                };
                let pattern = CompiledPattern::new(&options).unwrap();
                let mut matched = 0;
                for _ in 0..300 {
                    let text = random_text(&mut rng, &vocab);
                    let _ = pattern.matcher.find_iter(&text, |m| {
                        assert!(
                            holds_on(&query, &text[m.start()..m.end()]),
                            "{literal:?}: {query}"
                        );
                        matched += 1;
                        true
                    });
                }
                assert!(matched > 0, "{literal:?} never matched");
                assert_ne!(query, Query::All, "{literal:?}");
            }
        }
    }

    // ---- selectivity -----------------------------------------------------------------------

    fn and_of(trigrams: &[&str]) -> Query {
        let mut v: Vec<Query> = trigrams.iter().map(|s| t(s)).collect();
        v.sort();
        Query::And(v)
    }

    #[test]
    fn literals_require_every_trigram() {
        assert_eq!(
            plan("PM_RESUME", false),
            and_of(&["PM_", "M_R", "_RE", "RES", "ESU", "SUM", "UME"])
        );
        assert_eq!(
            plan("ERR_PTR", false),
            and_of(&["ERR", "RR_", "R_P", "_PT", "PTR"])
        );
        // As grep.rs escapes a literal pattern.
        assert_eq!(
            plan(&regex_syntax::escape("a.b*c"), false),
            and_of(&["a.b", ".b*", "b*c"])
        );
        assert_eq!(plan("abc", false), t("abc"));
    }

    #[test]
    fn a_suffix_after_a_class_repetition_is_required() {
        let q = plan(r"\w+_resume\(", false);
        for tri in ["_re", "res", "esu", "sum", "ume", "me("] {
            assert!(requires(&q, tri), "{q} does not require {tri:?}");
        }
        assert!(holds_on(&q, b"static int pm_resume(void)"));
        assert!(!holds_on(&q, b"static int pm_resume (void)"));
    }

    #[test]
    fn case_insensitive_literals_are_ands_of_ors_of_case_variants() {
        for q in [plan("irq_handler", true), plan("(?i)irq_handler", false)] {
            let Query::And(children) = &q else {
                panic!("not an AND: {q}")
            };
            assert!(children.len() >= 5, "{q}");
            for child in children {
                let Query::Or(variants) = child else {
                    panic!("not an OR of variants: {child} in {q}")
                };
                let lower: HashSet<String> = variants
                    .iter()
                    .map(|v| match v {
                        Query::Trigram(t) => {
                            let bytes = [(*t >> 16) as u8, (*t >> 8) as u8, *t as u8];
                            String::from_utf8_lossy(&bytes).to_lowercase()
                        }
                        other => panic!("not a trigram: {other} in {q}"),
                    })
                    .collect();
                assert_eq!(
                    lower.len(),
                    1,
                    "{child} are not case variants of one trigram"
                );
            }
            for text in [
                "irq_handler",
                "IRQ_HANDLER",
                "Irq_Handler",
                "x iRq_hAnDlEr y",
            ] {
                assert!(holds_on(&q, text.as_bytes()), "{q} rejects {text:?}");
            }
            assert!(!holds_on(&q, b"irq_handle"), "{q}");
            assert!(!holds_on(&q, b"irq handler"), "{q}");
        }
    }

    #[test]
    fn case_folding_is_unicode_simple_folding_not_ascii() {
        // `k` folds to the Kelvin sign, `s` to long s: raw-byte trigrams of both must be allowed.
        let q = plan("kelvin", true);
        for text in ["kelvin", "KELVIN", "\u{212A}elvin", "\u{212A}ELVIN"] {
            assert!(holds_on(&q, text.as_bytes()), "{q} rejects {text:?}");
        }
        let q = plan("(?i)class", false);
        for text in ["class", "CLASS", "cla\u{17F}\u{17F}", "CLA\u{17F}S"] {
            assert!(holds_on(&q, text.as_bytes()), "{q} rejects {text:?}");
        }
        assert!(!holds_on(&q, b"clas"), "{q}");
        // Without the flag there is no folding.
        let q = plan("kelvin", false);
        assert!(!holds_on(&q, "\u{212A}elvin".as_bytes()), "{q}");
        // Non-ASCII letters fold too.
        let q = plan("(?i)café", false);
        assert!(holds_on(&q, "CAFÉ".as_bytes()), "{q}");
        assert!(!holds_on(&q, "CAFE".as_bytes()), "{q}");
    }

    #[test]
    fn non_ascii_trigrams_are_utf8_bytes() {
        let q = plan("café", false);
        assert_eq!(
            q,
            and_of(&["caf"])
                .clone()
                .simplify_with(&[b"af\xC3", b"f\xC3\xA9"])
        );
        // Byte classes give raw bytes.
        assert_eq!(
            plan(r"(?-u:\xFF)abc", false),
            and_of(&["abc"]).simplify_with(&[b"\xFFab"])
        );
        assert_eq!(
            plan(r"(?-u:\xFF\xFE\xFD)", false),
            Query::Trigram(0xFF_FE_FD)
        );
    }

    impl Query {
        /// This AND with the given raw trigrams added (test helper).
        fn simplify_with(self, raw: &[&[u8]]) -> Query {
            let mut v = match self {
                Query::And(v) => v,
                q => vec![q],
            };
            v.extend(
                raw.iter()
                    .map(|b| Query::Trigram(trigram([b[0], b[1], b[2]]))),
            );
            Query::And(v).simplify()
        }
    }

    #[test]
    fn newlines_match_either_line_ending() {
        let q = plan(r"abc(?:\r?\n)def", false);
        assert!(requires(&q, "abc") && requires(&q, "def"), "{q}");
        assert!(holds_on(&q, b"abc\ndef"), "{q}");
        assert!(holds_on(&q, b"abc\r\ndef"), "{q}");
        assert!(!holds_on(&q, b"abc def"), "{q}");
        // Why `plan` must get grep.rs's rewritten regex: the scan matches `abc\ndef` in a CRLF
        // file, but a plan of the pattern as typed requires `c\nd`.
        assert!(!holds_on(&plan(r"abc\ndef", false), b"abc\r\ndef"));
    }

    #[test]
    fn unselective_regexes_plan_to_all() {
        for re in [
            ".*",
            r"\w+",
            "",
            "a",
            "ab",
            "ab.",
            "(abc)?",
            "(?:abc)*",
            "(abc){0,3}",
            "abc|d",
            "a|bc|def",
            r"\babc?",
            "(a|b|c|d)(ef|g|hi|j)",
            r"\p{Greek}{5}",
            "[a-z]{10}",
            "(abc",
        ] {
            assert_eq!(plan(re, false), Query::All, "{re:?}");
        }
    }

    #[test]
    fn alternations_are_ors() {
        assert_eq!(plan("foo|bar", false), Query::Or(vec![t("bar"), t("foo")]));
        assert_eq!(
            plan("(foo|bar)baz", false),
            Query::And(vec![
                t("baz"),
                Query::Or(vec![
                    and_of(&["arb", "bar", "rba"]),
                    and_of(&["foo", "oba", "oob"])
                ]),
            ])
            .simplify()
        );
    }

    #[test]
    fn only_impossible_regexes_plan_to_nothing() {
        assert_eq!(plan(r"[^\s\S]", false), Query::Nothing);
        assert_eq!(plan(r"abc[^\s\S]def", false), Query::Nothing);
        assert_eq!(plan(r"(?:abc[^\s\S])+", false), Query::Nothing);
        assert_eq!(plan(r"[^\s\S]|abc", false), t("abc"));
        assert_eq!(plan(r"abc[^\s\S]?def", false), plan("abcdef", false));
        assert_eq!(plan(r"[^\s\S]*abc", false), t("abc"));
    }

    /// codesearch requires the join `bcd` in `(a+bc)?def` although `def` alone matches: here an
    /// optional piece contributes no trigram across its ends.
    #[test]
    fn optional_pieces_do_not_require_their_joins() {
        assert_eq!(plan("(a+bc)?def", false), t("def"));
        assert!(holds_on(&plan("abc(d+)?efg", false), b"abcefg"));
        assert!(holds_on(&plan("(a+bc)?(d+ef)?g+hij", false), b"ghij"));
        assert_eq!(plan("a{0}bcd", false), and_of(&["bcd"]).simplify());
    }

    #[test]
    fn counted_repetitions_expand() {
        assert_eq!(plan("(abc){2}", false), and_of(&["abc", "bca", "cab"]));
        assert_eq!(plan("(?:ab){3,}", false), and_of(&["aba", "bab"]));
        let q = plan("x(?:ab){0,2}cd", false);
        for text in ["xcd", "xabcd", "xababcd"] {
            assert!(holds_on(&q, text.as_bytes()), "{q} rejects {text}");
        }
        assert!(!holds_on(&q, b"xcx abc"), "{q}");
    }

    // ---- bounds ----------------------------------------------------------------------------

    /// Patterns at grep.rs's 64 KiB limit plan quickly (in the unoptimised test build too).
    #[test]
    fn huge_patterns_plan_in_bounded_time() {
        let mut rng = Rng(7);
        let letters: String = (0..65_000)
            .map(|_| (b'a' + rng.below(26) as u8) as char)
            .collect();
        let words: Vec<String> = (0..10_000)
            .map(|i| format!("w{i}x{}", &letters[i..i + 2]))
            .collect();
        let cases: Vec<(String, bool)> = vec![
            (letters.clone(), false),
            (letters.clone(), true),
            ("[a-zA-Z0-9_]".repeat(5_000), false),
            ("(?:a|b|c|d)".repeat(5_000), false),
            ("(?:abcd|efgh)?".repeat(4_000), false),
            (words.join("|"), false),
            (words.join("|"), true),
            (format!("(?:{})+", words.join(".*")), false),
            ("(?:ab){1,8}".repeat(5_000), false),
            (
                format!("{}abcd{}", "(?:".repeat(120), "){2,8}".repeat(120)),
                false,
            ),
            (
                format!("{}x{}", "(?:a".repeat(200), ")?".repeat(200)),
                false,
            ),
            (r"\p{L}{2}".repeat(500), false),
            // regex-syntax folds huge classes slowly (tens of ms each unoptimised): a few only.
            (r"[\x{100}-\x{10FFFF}]abc".repeat(10), true),
            ("(?-u:[\\x00-\\x60])".repeat(3_000), false),
            ("[a-e][a-d]x".repeat(5_000), false),
        ];
        // No clock here (no timing assertions in tests): a plan that blew up exponentially
        // would not finish, and the test run's time limit reports it.
        for (regex, case_insensitive) in cases {
            let q = plan(&regex, case_insensitive);
            let mut atoms = Vec::new();
            collect_trigrams(&q, &mut atoms);
            assert!(
                atoms.len() <= MAX_ATOMS,
                "{}...: {} trigrams",
                &regex[..40],
                atoms.len()
            );
        }
    }

    #[test]
    fn and_and_or_absorb_their_unit_and_zero_and_take_in_nodes_of_their_kind() {
        let (a, b, c, d) = (t("abc"), t("bcd"), t("cde"), t("def"));
        let (all, nothing) = (Query::All, Query::Nothing);
        let cases = [
            (and(all.clone(), a.clone()), a.clone()),
            (and(a.clone(), all.clone()), a.clone()),
            (and(all.clone(), nothing.clone()), nothing.clone()),
            (and(a.clone(), nothing.clone()), nothing.clone()),
            (or(nothing.clone(), a.clone()), a.clone()),
            (or(a.clone(), all.clone()), all.clone()),
            (
                and(a.clone(), b.clone()),
                Query::And(vec![a.clone(), b.clone()]),
            ),
            (
                and(
                    Query::And(vec![a.clone(), b.clone()]),
                    Query::And(vec![c.clone()]),
                ),
                Query::And(vec![a.clone(), b.clone(), c.clone()]),
            ),
            // The other query goes last, whichever side the node was on.
            (
                or(c.clone(), Query::Or(vec![a.clone(), b.clone()])),
                Query::Or(vec![a.clone(), b.clone(), c.clone()]),
            ),
            // A node of the other kind is one child.
            (
                or(Query::And(vec![a.clone(), b.clone()]), d.clone()),
                Query::Or(vec![Query::And(vec![a.clone(), b.clone()]), d.clone()]),
            ),
        ];
        for (i, (got, expected)) in cases.into_iter().enumerate() {
            assert_eq!(got, expected, "case {i}");
        }
    }

    #[test]
    fn simplify_normalises() {
        let (a, b, c) = (t("abc"), t("bcd"), t("cde"));
        let and = |v: Vec<Query>| Query::And(v);
        let or = |v: Vec<Query>| Query::Or(v);
        assert_eq!(and(vec![]).simplify(), Query::All);
        assert_eq!(or(vec![]).simplify(), Query::Nothing);
        assert_eq!(and(vec![a.clone(), Query::All]).simplify(), a);
        assert_eq!(
            and(vec![a.clone(), Query::Nothing]).simplify(),
            Query::Nothing
        );
        assert_eq!(or(vec![a.clone(), Query::All]).simplify(), Query::All);
        assert_eq!(or(vec![a.clone(), Query::Nothing]).simplify(), a);
        assert_eq!(
            and(vec![b.clone(), and(vec![a.clone(), b.clone()]), a.clone()]).simplify(),
            and(vec![a.clone(), b.clone()])
        );
        // a AND (a OR b) = a; a OR (a AND b) = a.
        assert_eq!(
            and(vec![a.clone(), or(vec![a.clone(), b.clone()])]).simplify(),
            a
        );
        assert_eq!(
            or(vec![a.clone(), and(vec![a.clone(), b.clone()])]).simplify(),
            a
        );
        // (a|b) AND (a|c) = a | (b AND c), and the dual: (a AND b) OR (a AND c) = a AND (b | c).
        type Join = fn(Vec<Query>) -> Query;
        let duals: [(Join, Join); 2] = [(Query::And, Query::Or), (Query::Or, Query::And)];
        for (outer, inner) in duals {
            let factored = outer(vec![
                inner(vec![a.clone(), b.clone()]),
                inner(vec![a.clone(), c.clone()]),
            ]);
            assert_eq!(
                factored.simplify(),
                inner(vec![a.clone(), outer(vec![b.clone(), c.clone()])])
            );
        }
    }

    #[test]
    fn trigram_packs_big_endian() {
        assert_eq!(trigram(*b"abc"), 0x61_62_63);
        assert_eq!(trigram([0xFF, 0, 1]), 0xFF_00_01);
        assert_eq!(t("\"\\x").to_string(), r#""\"\\x""#);
        assert_eq!(Query::Trigram(0xE2_84_0A).to_string(), r#""\xe2\x84\n""#);
    }

    fn random_query(rng: &mut Rng, depth: usize) -> Query {
        const VARS: [u32; 6] = [1, 2, 3, 4, 5, 6];
        match rng.below(if depth >= 3 { 2 } else { 6 }) {
            0 => Query::Trigram(*rng.pick(&VARS)),
            1 if rng.below(8) == 0 => [Query::All, Query::Nothing][rng.below(2)].clone(),
            1 => Query::Trigram(*rng.pick(&VARS)),
            2 | 3 => Query::And(
                (0..rng.below(5))
                    .map(|_| random_query(rng, depth + 1))
                    .collect(),
            ),
            _ => Query::Or(
                (0..rng.below(5))
                    .map(|_| random_query(rng, depth + 1))
                    .collect(),
            ),
        }
    }

    #[test]
    fn simplify_preserves_meaning_and_is_idempotent() {
        let mut rng = Rng(99);
        for _ in 0..5_000 {
            let q = random_query(&mut rng, 0);
            let simple = q.clone().simplify();
            assert!(equivalent(&q, &simple), "{q:?} became {simple}");
            assert_eq!(simple.clone().simplify(), simple, "{q:?}");
        }
    }
}
