//! A request as a root entry reads it: what it names (`Target`: the root, the directory,
//! the walk options), a `select`'s grep request, and the fields checked, each refusal a
//! `BadRequest` saying what is wrong.

use super::super::listings::MAX_KEY;
use super::super::wire;
use crate::fs::rules::RuleOptions;
use crate::fs::walk::WalkOptions;
use crate::index::select::SelectionOptions;
use crate::request::GrepRequest;
use crate::search::GrepQuery;
use std::path::{Component, Path, PathBuf};

/// A request that cannot be served, as the error to reply.
pub struct BadRequest(pub String);

/// A path made of names only (no root, `.` or `..`): what a root's files are called.
pub(super) fn is_plain_relative(path: &Path) -> bool {
    path.components().next().is_some()
        && path.components().all(|c| matches!(c, Component::Normal(_)))
}

/// What every query names: the root, the directory searched and the walk options.
pub(super) struct Target {
    pub(super) root: PathBuf,
    /// The client's root directory (device, inode), when it says.
    pub(super) ident: Option<(u64, u64)>,
    /// The directory searched, root-relative.
    pub(super) search_path: PathBuf,
    pub(super) options: WalkOptions,
    /// `walk.all_files`: the index of every file.
    pub(super) every: bool,
    /// Without an index, start one (else only say `scan`).
    pub(super) build: bool,
}

pub(super) struct SelectRequest {
    pub(super) target: Target,
    pub(super) query: GrepQuery,
    /// A `codesift-rg` client's key for the verdicts of its rules (`daemon::verdicts`).
    pub(super) rules: Option<String>,
    /// Compiled once, when the request is checked (a Unicode class takes milliseconds).
    pub(super) pattern: crate::grep::CompiledPattern,
    /// Which files are listed: `every` is the target's; with it, whether a pattern the index
    /// does not narrow lists every file (else: `scan`); the `first` files only
    /// (`wire::Select::first`).
    pub(super) listed: SelectionOptions,
}

/// A client's key (a string of at most `MAX_KEY` bytes), if given.
pub(super) fn key_field(key: &Option<String>, name: &str) -> Result<Option<String>, BadRequest> {
    if key.as_ref().is_some_and(|k| k.len() > MAX_KEY) {
        return Err(BadRequest(format!(
            "{name} is over the limit of {MAX_KEY} bytes"
        )));
    }
    Ok(key.clone())
}

/// The target of a request only `codesift-rg` makes (`walk.all_files`), about `what`.
pub(super) fn rg_target(request: &wire::Target, what: &str) -> Result<Target, BadRequest> {
    let target = parse_target(request)?;
    if !target.every {
        return Err(BadRequest(format!(
            "{what} are kept for walk.all_files roots (codesift-rg)"
        )));
    }
    Ok(target)
}

pub(super) fn parse_target(request: &wire::Target) -> Result<Target, BadRequest> {
    let root = request.root.0.clone();
    if !root.is_absolute() {
        return Err(BadRequest("root must be an absolute path".into()));
    }
    let search_path = request.path.clone().unwrap_or_default().0;
    let walk = request.walk.clone().unwrap_or_default();
    // `all_files`: the index of every file (no ignore or access-ignore rules, hidden files,
    // links not followed; `.git` never), for a client that applies its own rules at query
    // time from the path table (`codesift-rg`). It overrides the other walk options.
    let options = if walk.all_files {
        WalkOptions {
            rules: RuleOptions {
                gitignore: false,
                access_files: vec![],
            },
            hidden: true,
            follow_symlinks: false,
            max_filesize: None,
            threads: 0,
        }
    } else {
        WalkOptions {
            threads: 0,
            ..walk.options
        }
    };
    Ok(Target {
        root,
        ident: request.root_id,
        search_path,
        options,
        every: walk.all_files,
        build: request.build.unwrap_or(true),
    })
}

/// The engine's grep request a `select` carries (`pattern`), with the filters beside it
/// when given (hand-written requests and `codesift-rg` put them there), the search path
/// the request names, and none of the options that do not choose files: no limit (a
/// selection lists every file that may match), no paging, no time limit.
fn grep_request(request: &wire::Select, search_path: &Path) -> Result<GrepRequest, BadRequest> {
    let Some(mut grep) = request.pattern.clone() else {
        return Err(BadRequest(
            "pattern is required: an object with the pattern and its options".into(),
        ));
    };
    if grep.hidden.is_some() || grep.no_ignore.is_some() {
        return Err(BadRequest(
            "pattern.hidden and pattern.no_ignore are not sent: the walk options go in walk".into(),
        ));
    }
    for (beside, field) in [
        (&request.include, &mut grep.include),
        (&request.exclude, &mut grep.exclude),
        (&request.types, &mut grep.types),
        (&request.types_not, &mut grep.types_not),
    ] {
        if let Some(beside) = beside {
            *field = beside.clone();
        }
    }
    grep.max_matches = None;
    grep.offset = 0;
    grep.count_total = false;
    grep.stream = false;
    grep.timeout = None;
    grep.search_path = search_path.to_path_buf();
    Ok(grep)
}

pub(super) fn parse_select(request: &wire::Select) -> Result<SelectRequest, BadRequest> {
    let target = parse_target(&request.target)?;
    let query = grep_request(request, &target.search_path)?
        .query()
        .map_err(|e| BadRequest(e.to_string()))?;
    // A pattern that does not compile is the client's error, before any index work.
    let pattern = query.compiled().map_err(|e| BadRequest(e.to_string()))?;
    let rules = key_field(&request.rules, "rules")?;
    if rules.is_some() && !target.every {
        return Err(BadRequest(
            "rules verdicts are kept for walk.all_files roots (codesift-rg)".into(),
        ));
    }
    if request.first.is_some() && rules.is_some() {
        return Err(BadRequest(
            "first is not asked with rules: the verdicts apply to the whole selection".into(),
        ));
    }
    let first = match request.first {
        Some(0) => return Err(BadRequest("first must be at least 1".into())),
        Some(n) => Some(usize::try_from(n).unwrap_or(usize::MAX)),
        None => None,
    };
    let list_unnarrowed = request
        .target
        .walk
        .as_ref()
        .and_then(|w| w.list_unnarrowed)
        .unwrap_or(true);
    let listed = SelectionOptions {
        every: target.every,
        list_unnarrowed,
        first,
    };
    Ok(SelectRequest {
        target,
        query,
        rules,
        pattern,
        listed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn parsed(mut request: Value) -> Result<SelectRequest, String> {
        request["op"] = json!("select");
        let body = serde_json::to_vec(&request).unwrap();
        match wire::parse(&body).request {
            Ok(wire::Envelope {
                request: wire::Request::Select(select),
                ..
            }) => parse_select(&select).map_err(|e| e.0),
            Ok(other) => panic!("{request} read as {other:?}"),
            Err(refused) => Err(refused.error.message),
        }
    }

    #[test]
    fn a_select_carries_the_engines_grep_request_with_the_wires_defaults() {
        // As codesift-rg asks: no case_sensitive means case-sensitive, no limit.
        let rg = parsed(json!({
            "op": "select", "root": "/r", "path": "",
            "walk": {"all_files": true, "list_unnarrowed": false}, "build": false,
            "pattern": {"pattern": "foo", "literal": false, "multiline": false},
        }))
        .unwrap();
        assert!(rg.query.pattern.case_sensitive);
        assert_eq!(rg.query.max_matches, None);
        assert!(rg.target.every && !rg.target.build && !rg.listed.list_unnarrowed);
        // As the engine's client asks (nulls are left out; filters beside the pattern).
        let client = parsed(json!({
            "op": "select", "root": "/r", "path": "sub",
            "pattern": {"pattern": "x", "literal": true, "case_sensitive": false,
                        "multiline": null, "before": 2, "after": null},
            "include": ["*.rs"], "exclude": [], "types": ["c"], "types_not": [],
        }))
        .unwrap();
        let pattern = &client.query.pattern;
        assert!(pattern.literal && !pattern.case_sensitive);
        assert_eq!(
            (pattern.multiline, pattern.before, pattern.after),
            (None, 2, 0)
        );
        assert_eq!(client.query.include, vec!["*.rs".to_string()]);
        assert!(client.query.types.is_some());
        assert_eq!(client.query.search_path, PathBuf::from("sub"));
    }

    #[test]
    fn a_select_with_bad_fields_is_refused_with_what_is_wrong() {
        for (request, expected) in [
            (json!({"root": "/r"}), "pattern is required"),
            (
                json!({"root": "/r", "pattern": {}}),
                "pattern.pattern is required",
            ),
            (
                json!({"root": "/r", "pattern": {"pattern": "x", "colour": 1}}),
                "unknown field",
            ),
            (
                json!({"root": "/r", "pattern": {"pattern": "x", "before": -1}}),
                "before must be at least 0",
            ),
            (json!({"root": "/r", "pattern": {"pattern": "("}}), "("),
            (
                json!({"root": "/r", "pattern": {"pattern": "x"}, "types": ["nope"]}),
                "nope",
            ),
            (
                json!({"root": "rel", "pattern": {"pattern": "x"}}),
                "absolute",
            ),
        ] {
            let message = match parsed(request.clone()) {
                Err(message) => message,
                Ok(_) => panic!("{request} was accepted"),
            };
            assert!(message.contains(expected), "{request}: {message}");
        }
    }
}
