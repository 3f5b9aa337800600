//! The daemon's wire: every request and every reply as one Rust type, defined here once and
//! used by both ends (the daemon's `server` and `roots`, the search side `ask`, `codesift-rg`'s
//! `rg::index`, the bindings), so that neither side writes or reads a field by hand. A request
//! is an `Envelope`: the `Request` (tagged by its `op`) with the client's `protocol`,
//! `version` and whether it takes its files in a bulk frame. Where a request carries the
//! engine's own types it carries them as they are: a `select`'s `pattern` is the engine's
//! `GrepRequest`, a `glob`'s `glob` its `GlobRequest`, the walk options its `WalkOptions`.
//!
//! Parsing keeps the daemon's promises about hostile input: a body that is not JSON, an
//! unknown `op`, a field of the wrong type or an unknown field in the engine's requests are
//! each an error reply naming what is wrong (`parse`), and every value is checked again
//! where it is used (paths inside the root, the engine's own checks of its requests).
//! A reply is read in two steps (`read_reply`): its head first (an error or a `scan`), then
//! the answer of its op, so a reply of another shape is never taken for an answer.

use crate::fs::walk::WalkOptions;
use crate::index::select::FileSpans;
use crate::request::{GlobRequest, GrepRequest};
use serde::de::{self, DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The wire's protocol number: raised whenever a request or reply changes shape. A client
/// and a daemon of different protocols (or versions) never use each other's answers: the
/// client scans (see `client::check_hello`).
pub const PROTOCOL: u64 = 5;

/// The ops a daemon serves, as named in an error about an unknown one.
pub const OPS: [&str; 7] = ["ping", "status", "stop", "select", "glob", "files", "rules"];

/// A path on the wire: a string, or for a name that is not UTF-8 the list of its bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct WirePath(pub PathBuf);

impl WirePath {
    pub fn new(path: impl Into<PathBuf>) -> WirePath {
        WirePath(path.into())
    }
}

impl From<&Path> for WirePath {
    fn from(path: &Path) -> WirePath {
        WirePath(path.to_path_buf())
    }
}

impl Serialize for WirePath {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0.to_str() {
            Some(text) => s.serialize_str(text),
            None => s.collect_seq(self.0.as_os_str().as_bytes()),
        }
    }
}

impl<'de> Deserialize<'de> for WirePath {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<WirePath, D::Error> {
        struct Visitor;
        impl<'de> de::Visitor<'de> for Visitor {
            type Value = WirePath;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a path: a string, or a list of its bytes")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<WirePath, E> {
                Ok(WirePath::new(text))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<WirePath, A::Error> {
                let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
                while let Some(byte) = seq.next_element::<u8>()? {
                    bytes.push(byte);
                }
                Ok(WirePath::new(OsStr::from_bytes(&bytes)))
            }
        }
        d.deserialize_any(Visitor)
    }
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// The walk options a request names: the engine's `WalkOptions` (a field left out has the
/// default a `Workspace` has), or `all_files`: the index of every file, for a client that
/// applies its own rules (`codesift-rg`), which replaces them.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Walk {
    #[serde(default, skip_serializing_if = "is_false")]
    pub all_files: bool,
    /// With `all_files`: a pattern the index does not narrow lists every file (the default)
    /// instead of answering `scan`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_unnarrowed: Option<bool>,
    #[serde(flatten)]
    pub options: WalkOptions,
}

impl Walk {
    /// The index of every file (`codesift-rg`).
    pub fn all_files() -> Walk {
        Walk {
            all_files: true,
            ..Walk::default()
        }
    }

    /// The walk options of `options`, as a workspace walks.
    pub fn of(options: &WalkOptions) -> Walk {
        Walk {
            all_files: false,
            list_unnarrowed: None,
            options: WalkOptions {
                threads: 0,
                ..options.clone()
            },
        }
    }
}

/// What every query names: the root (absolute), the client's root directory (device,
/// inode) when it knows it, the directory searched (root-relative), the walk options, and
/// whether a root without an index has one built.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Target {
    pub root: WirePath,
    #[serde(
        default,
        deserialize_with = "root_id",
        skip_serializing_if = "Option::is_none"
    )]
    pub root_id: Option<(u64, u64)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<WirePath>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walk: Option<Walk>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<bool>,
}

impl Target {
    pub fn new(root: &Path, walk: Walk) -> Target {
        Target {
            root: root.into(),
            root_id: None,
            path: None,
            walk: Some(walk),
            build: None,
        }
    }
}

/// A root directory's (device, inode), or a clear error.
fn root_id<'de, D: Deserializer<'de>>(d: D) -> Result<Option<(u64, u64)>, D::Error> {
    Option::<(u64, u64)>::deserialize(d)
        .map_err(|_| de::Error::custom("root_id must be [device, inode] of the root directory"))
}

/// `select`: which files a grep must read (see docs/daemon.md).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Select {
    #[serde(flatten)]
    pub target: Target,
    /// The engine's grep request (on the wire `case_sensitive` defaults to true, and the
    /// options that do not choose files, such as limits and paging, are not used).
    #[serde(
        default,
        deserialize_with = "grep_pattern",
        skip_serializing_if = "Option::is_none"
    )]
    pub pattern: Option<GrepRequest>,
    /// Filters beside the pattern (hand-written requests); they replace the pattern's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub types: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub types_not: Option<Vec<String>>,
    /// A `codesift-rg` client's key for the verdicts of its rules (`daemon::verdicts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    /// Only the first this many files of the selection, in path order (a search that wants
    /// its first few hits); the reply says `more` when it left files out. Not with `rules`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<u64>,
}

impl Select {
    /// A `select` of the files `pattern` must read under `target`, with no filters beside
    /// the pattern and no rules key (what clients other than hand-written ones send).
    pub fn new(target: Target, pattern: GrepRequest) -> Select {
        Select {
            target,
            pattern: Some(pattern),
            include: None,
            exclude: None,
            types: None,
            types_not: None,
            rules: None,
            first: None,
        }
    }
}

/// A `select`'s `pattern`: the engine's `GrepRequest` with the wire's defaults (case
/// sensitive, no limit) for what it leaves out; `pattern` itself is required.
fn grep_pattern<'de, D: Deserializer<'de>>(d: D) -> Result<Option<GrepRequest>, D::Error> {
    let Some(mut fields) = Option::<serde_json::Map<String, serde_json::Value>>::deserialize(d)?
    else {
        return Ok(None);
    };
    // A null is a field left out, as everywhere on the wire.
    fields.retain(|_, v| !v.is_null());
    if !fields.contains_key("pattern") {
        return Err(de::Error::custom("pattern.pattern is required"));
    }
    fields
        .entry("case_sensitive")
        .or_insert(serde_json::Value::Bool(true));
    fields
        .entry("max_matches")
        .or_insert(serde_json::Value::Null);
    GrepRequest::deserialize(serde_json::Value::Object(fields))
        .map(Some)
        .map_err(|e| de::Error::custom(format!("pattern: {e}")))
}

/// `glob`: a glob answered whole from the root's index and watch.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Glob {
    #[serde(flatten)]
    pub target: Target,
    /// The engine's glob request, without the per-call walk overrides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glob: Option<GlobRequest>,
}

/// `files`: the list of files kept for a `codesift-rg --files` command line, or a store of
/// one.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Files {
    #[serde(flatten)]
    pub target: Target,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// The list goes in a frame of its own after the reply (`files_frame`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub raw: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<Store>,
}

/// A `files` list to keep, walked since the miss that gave `token`: its compact form
/// (`super::front_coding`, protocol 5), as base64 text.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Store {
    #[serde(default)]
    pub token: Option<String>,
    #[serde(default)]
    pub compact: Option<super::front_coding::Compact>,
}

/// `rules`: the verdicts of ripgrep's rules a `codesift-rg` client decided.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Rules {
    #[serde(flatten)]
    pub target: Target,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    #[serde(default, deserialize_with = "kept")]
    pub kept: Vec<WirePath>,
    #[serde(default, deserialize_with = "dropped")]
    pub dropped: Vec<WirePath>,
}

/// A list of paths named `name`, or a clear error; null is an empty list.
fn paths_named<'de, D: Deserializer<'de>>(d: D, name: &str) -> Result<Vec<WirePath>, D::Error> {
    Option::<Vec<WirePath>>::deserialize(d)
        .map(Option::unwrap_or_default)
        .map_err(|_| de::Error::custom(format!("{name} must be an array of paths")))
}

fn kept<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<WirePath>, D::Error> {
    paths_named(d, "kept")
}

fn dropped<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<WirePath>, D::Error> {
    paths_named(d, "dropped")
}

/// Every request, by its `op` (one at a time per connection, short-lived: the size of the
/// largest is no concern).
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum Request {
    Ping {},
    Status {},
    Stop {},
    Select(Select),
    Glob(Glob),
    Files(Files),
    Rules(Rules),
}

impl Request {
    /// Whether this is what a person asked (`ping`, `status`, `stop`): sent whether or not
    /// the daemon is passed over, with the whole time limit for its hello.
    pub fn is_administrative(&self) -> bool {
        matches!(
            self,
            Request::Ping {} | Request::Status {} | Request::Stop {}
        )
    }

    /// The one request allowed over the usual size limit: a `files` store.
    pub fn is_files_store(&self) -> bool {
        matches!(self, Request::Files(Files { store: Some(_), .. }))
    }
}

/// A request as sent: the request, the client's protocol and version (the daemon says its
/// hello first when `protocol` is given), and whether its files come in a bulk frame.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Envelope {
    #[serde(flatten)]
    pub request: Request,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub bulk: bool,
}

impl Envelope {
    /// `request` as this build sends it: with its protocol and version.
    pub fn new(request: Request) -> Envelope {
        Envelope {
            request,
            protocol: Some(PROTOCOL),
            version: Some(crate::daemon::client::version().to_string()),
            bulk: false,
        }
    }

    /// Whether its files come in a bulk frame: asked, by a client of protocol 3 or later
    /// (an older one never reads the frame).
    pub fn wants_bulk(&self) -> bool {
        self.bulk && self.protocol.is_some_and(|p| p >= 3)
    }
}

/// What the daemon reads of a request before anything else: whether it says its protocol
/// (then a hello comes first), whatever the rest holds.
#[derive(Deserialize)]
struct Head {
    #[serde(default)]
    op: Option<serde_json::Value>,
    #[serde(default)]
    protocol: Option<IgnoredAny>,
}

/// A request as the daemon read it: whether its client wants a hello, and the request or
/// the error to reply.
pub struct Parsed {
    pub hello: bool,
    pub request: Result<Envelope, ErrorReply>,
}

/// Reads a request's body (see the module doc for the errors).
pub fn parse(body: &[u8]) -> Parsed {
    let value: serde_json::Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(e) => {
            return Parsed {
                hello: false,
                request: Err(ErrorReply::invalid(format!("the request is not JSON: {e}"))),
            };
        }
    };
    let head = match &value {
        serde_json::Value::Object(_) => Head::deserialize(&value).ok(),
        _ => None,
    };
    let hello = head.as_ref().is_some_and(|h| h.protocol.is_some());
    let op = head.and_then(|h| h.op);
    let op = match op.as_ref().and_then(serde_json::Value::as_str) {
        Some(op) if OPS.contains(&op) => op.to_string(),
        other => {
            let named: String = other.unwrap_or("").chars().take(40).collect();
            return Parsed {
                hello,
                request: Err(ErrorReply::invalid(format!(
                    "unknown op {named:?}: use {}",
                    OPS.join(", ")
                ))),
            };
        }
    };
    let request = Envelope::deserialize(value)
        .map_err(|e| ErrorReply::invalid(format!("{op}: {}", plain(&e))));
    Parsed { hello, request }
}

/// A serde error as a person reads it (without serde_json's position in the buffered value).
fn plain(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) if e.line() > 0 => text[..at].to_string(),
        _ => text,
    }
}

/// The daemon's hello: its protocol and version, sent as soon as it has read a request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    pub hello: bool,
    pub protocol: u64,
    pub version: String,
}

impl Hello {
    pub fn ours() -> Hello {
        Hello {
            hello: true,
            protocol: PROTOCOL,
            version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}

/// `{"error": {"type": ..., "message": ...}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorReply {
    pub error: ErrorBody,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    #[serde(rename = "type")]
    pub kind: String,
    pub message: String,
}

impl ErrorReply {
    pub fn new(kind: &str, message: impl Into<String>) -> ErrorReply {
        ErrorReply {
            error: ErrorBody {
                kind: kind.to_string(),
                message: message.into(),
            },
        }
    }

    /// A request the daemon cannot serve as asked.
    pub fn invalid(message: impl Into<String>) -> ErrorReply {
        ErrorReply::new("InvalidArgumentError", message)
    }
}

impl std::fmt::Display for ErrorReply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.error.kind, self.error.message)
    }
}

/// `{"ok": true, "scan": why, "generation": ...}`: the daemon serves, but this query is
/// answered by the client's own search.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanReply {
    pub ok: bool,
    pub scan: String,
    #[serde(default)]
    pub generation: Option<i64>,
}

/// A reply: an error, `scan`, or the answer of its op.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Reply<T> {
    Error(ErrorReply),
    Scan(ScanReply),
    Answer(T),
}

impl<T> Reply<T> {
    pub fn scan(why: impl Into<String>, generation: Option<i64>) -> Reply<T> {
        Reply::Scan(ScanReply {
            ok: true,
            scan: why.into(),
            generation,
        })
    }

    pub fn invalid(message: impl Into<String>) -> Reply<T> {
        Reply::Error(ErrorReply::invalid(message))
    }
}

/// The head of a reply: an error or a `scan`, when it is one (the rest is not read).
#[derive(Deserialize)]
struct ReplyHead {
    #[serde(default)]
    error: Option<ErrorBody>,
    #[serde(default)]
    scan: Option<String>,
    #[serde(default)]
    ok: Option<bool>,
    #[serde(default)]
    generation: Option<i64>,
}

/// Reads a reply of the op whose answer is `T`: its head first (an error, a `scan`), then the
/// answer; anything else (a field missing or of another type) is an error.
pub fn read_reply<T: DeserializeOwned>(bytes: &[u8]) -> serde_json::Result<Reply<T>> {
    let head: ReplyHead = serde_json::from_slice(bytes)?;
    if let Some(error) = head.error {
        return Ok(Reply::Error(ErrorReply { error }));
    }
    if let Some(scan) = head.scan {
        return Ok(Reply::Scan(ScanReply {
            ok: head.ok.unwrap_or(false),
            scan,
            generation: head.generation,
        }));
    }
    serde_json::from_slice(bytes).map(Reply::Answer)
}

/// `ping`'s answer.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Pong {
    pub ok: bool,
    pub pid: u32,
    pub version: String,
}

/// `stop`'s answer.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Stopping {
    pub ok: bool,
    pub stopping: bool,
    pub pid: u32,
}

/// What a walk passed over for one reason: `[reason, count, [[path, is_dir], ...]]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skip(pub String, pub u64, pub Vec<(WirePath, bool)>);

/// The same, the examples without their kind: `[reason, count, [path, ...]]` (for
/// hand-written tools).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkipPaths(pub String, pub u64, pub Vec<WirePath>);

/// The parts of an unchanged file that can hold a match: `[size, mtime_ns, ctime_ns, ino,
/// [[offset, length, line], ...]]` (see `index::select::FileSpans`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireSpans(pub u64, pub i64, pub i64, pub u64, pub Vec<(u64, u64, u64)>);

impl From<&FileSpans> for WireSpans {
    fn from(s: &FileSpans) -> WireSpans {
        WireSpans(s.size, s.mtime_ns, s.ctime_ns, s.ino, s.spans.clone())
    }
}

impl From<WireSpans> for FileSpans {
    fn from(WireSpans(size, mtime_ns, ctime_ns, ino, spans): WireSpans) -> FileSpans {
        FileSpans {
            size,
            mtime_ns,
            ctime_ns,
            ino,
            spans,
        }
    }
}

/// `select`'s answer: the files to read (in `files`, or in the bulk frame announced by
/// `bulk_frame`), per file the parts that can hold a match (`spans`, or in the frame), and
/// what a walk would have passed over.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Selection {
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<WirePath>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bulk_frame: Option<u64>,
    #[serde(default)]
    pub spans: Option<Vec<Option<WireSpans>>>,
    pub binary: u64,
    pub ignored: u64,
    pub unreadable: u64,
    pub skips: Vec<Skip>,
    #[serde(default)]
    pub skipped: Vec<SkipPaths>,
    #[serde(flatten)]
    pub freshness: Freshness,
    #[serde(default)]
    pub rules_token: Option<String>,
    #[serde(default)]
    pub git_dirs: Option<Vec<WirePath>>,
    #[serde(default)]
    pub undecided: Option<Vec<u64>>,
    /// Files were left out after the `first` asked for.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub more: bool,
}

/// What an answer of the watched index (`select`'s, `glob`'s) was read from: the index's
/// generation (its build's start, ns), the watch's, and whether the watch vouched for it.
/// Its fields stand in the reply itself (flattened), as they always have.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Freshness {
    #[serde(default)]
    pub generation: Option<i64>,
    #[serde(default)]
    pub watch_generation: Option<i64>,
    #[serde(default)]
    pub trusted: bool,
}

/// One file of a glob's answer: `[path, mtime_ms, size]` (both null when not known).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GlobbedFile(pub WirePath, pub Option<i64>, pub Option<u64>);

/// `glob`'s answer: the glob's outcome, every field (the files in `files` or in the bulk
/// frame announced by `bulk_frame`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Globbed {
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<GlobbedFile>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bulk_frame: Option<u64>,
    pub total: u64,
    pub truncated: bool,
    pub ignored: u64,
    pub errors: u64,
    pub search_path: WirePath,
    pub skips: Vec<Skip>,
    #[serde(flatten)]
    pub freshness: Freshness,
}

/// `files`' answer: the list kept in its compact form (`super::front_coding`: as base64 in
/// `compact`, or as a frame of its own announced by `files_frame`), or `miss` with the token
/// to store one under and the most bytes a compact list kept may take (`keep_bytes`: a
/// client does not offer a longer one); a store's is `stored`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Listing {
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compact: Option<super::front_coding::Compact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_frame: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub miss: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored: Option<bool>,
    #[serde(default)]
    pub generation: Option<i64>,
}

/// `rules`' answer: whether the verdicts were kept.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Stored {
    pub ok: bool,
    pub stored: bool,
    #[serde(default)]
    pub generation: Option<i64>,
}

/// `status`'s answer. Its `connections` and `memory` stand in the reply itself (flattened),
/// field for field as they always have.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Status {
    pub ok: bool,
    pub pid: u32,
    pub uid: u32,
    pub version: String,
    pub socket: String,
    pub started: u64,
    pub uptime_seconds: u64,
    pub idle_exit_seconds: f64,
    pub queries: u64,
    #[serde(flatten)]
    pub connections: Connections,
    #[serde(flatten)]
    pub memory: Memory,
    pub max_roots: u64,
    pub roots: Vec<RootStatus>,
}

/// The connections a daemon has taken since it started, holds open now, and refused (at its
/// limit), in `status`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Connections {
    #[serde(rename = "connections")]
    pub taken: u64,
    #[serde(rename = "active_connections")]
    pub active: u64,
    #[serde(rename = "refused_connections")]
    pub refused: u64,
}

/// A daemon's memory in `status`: resident, the part of it that is the indexes' copies, its
/// peak (each `None` where the kernel does not say), and the size of the roots' indexes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    pub rss_bytes: Option<u64>,
    pub rss_index_copies_bytes: Option<u64>,
    pub peak_rss_bytes: Option<u64>,
    pub index_bytes: u64,
}

/// One root's part of `status`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RootStatus {
    pub root: WirePath,
    pub options: WalkOptions,
    pub index: IndexStatus,
    pub watch: WatchStatus,
    pub catching_up: bool,
    pub rebuilds: u64,
    pub rebuilding: bool,
    pub queries: u64,
    pub glob_queries: u64,
    pub glob_answers: u64,
    pub files_lists: u64,
    pub files_lists_bytes: u64,
    pub files_list_hits: u64,
    pub rules_verdicts: u64,
    pub idle_seconds: u64,
    pub problem: Option<String>,
}

/// A root's index in `status`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct IndexStatus {
    pub path: Option<WirePath>,
    pub exists: bool,
    /// The build's start time (ns), when there is an index.
    pub generation: Option<i64>,
    pub files: u64,
    pub bytes: u64,
    pub problem: Option<String>,
    pub built: u64,
    pub adopted: u64,
}

/// A root's watch in `status`: its `state` (`caught up`, `catching up`, `broken`, `none`),
/// the paths changed since the build, and why there is none.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct WatchStatus {
    pub state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dirty: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parsed(value: serde_json::Value) -> Result<Envelope, String> {
        parse(&serde_json::to_vec(&value).unwrap())
            .request
            .map_err(|e| e.error.message)
    }

    #[test]
    fn a_request_round_trips_through_its_type() {
        let mut grep = GrepRequest {
            pattern: "fo+".into(),
            include: vec!["*.rs".into()],
            ..GrepRequest::default()
        };
        grep.case_sensitive = true;
        let mut target = Target::new(Path::new("/r"), Walk::default());
        target.root_id = Some((1, 2));
        target.path = Some(WirePath::new("sub"));
        let sent = Envelope::new(Request::Select(Select::new(target, grep)));
        let text = serde_json::to_string(&sent).unwrap();
        let Ok(Envelope {
            request: Request::Select(select),
            protocol: Some(PROTOCOL),
            ..
        }) = parse(text.as_bytes()).request
        else {
            panic!("{text} did not come back as a select")
        };
        let pattern = select.pattern.unwrap();
        assert_eq!(pattern.pattern, "fo+");
        assert_eq!(pattern.include, vec!["*.rs".to_string()]);
        assert_eq!(select.target.root_id, Some((1, 2)));
        let walk = select.target.walk.unwrap();
        assert!(walk.options.rules.gitignore && walk.options.hidden);
        assert_eq!(
            walk.options.rules.access_files,
            WalkOptions::default().rules.access_files
        );
    }

    #[test]
    fn unknown_ops_bad_json_and_bad_fields_are_errors_that_say_so() {
        for (body, expected) in [
            (&b"not json {"[..], "not JSON"),
            (b"[1, 2]", "unknown op"),
            (br#"{"op": "launch"}"#, "unknown op \"launch\""),
            (br#"{"op": 7}"#, "unknown op"),
            (br#"{"root": "/r"}"#, "unknown op"),
        ] {
            let message = match parse(body).request {
                Err(e) => e.error.message,
                Ok(_) => panic!("{body:?} was accepted"),
            };
            assert!(message.contains(expected), "{body:?}: {message}");
        }
        for (request, expected) in [
            (json!({"op": "select", "root": 5}), "a path"),
            (
                json!({"op": "select", "root": "/r", "walk": {"hidden": "yes"}}),
                "expected a boolean",
            ),
            (
                json!({"op": "select", "root": "/r", "walk": {"max_filesize": 1e30}}),
                "expected u64",
            ),
            (
                json!({"op": "select", "root": "/r", "root_id": [1, 2, 3]}),
                "root_id",
            ),
            (
                json!({"op": "glob", "root": "/r", "glob": {"colour": 1}}),
                "unknown field",
            ),
            (
                json!({"op": "select", "root": "/r", "pattern": {}}),
                "pattern.pattern is required",
            ),
            (
                json!({"op": "rules", "root": "/r", "kept": "a.c"}),
                "kept must be an array of paths",
            ),
        ] {
            let message = match parsed(request.clone()) {
                Err(message) => message,
                Ok(_) => panic!("{request} was accepted"),
            };
            assert!(message.contains(expected), "{request}: {message}");
        }
        // Administrative requests ignore what they do not use.
        assert!(matches!(
            parsed(json!({"op": "ping", "pad": "x"})),
            Ok(Envelope {
                request: Request::Ping {},
                ..
            })
        ));
    }

    #[test]
    fn a_hello_is_owed_whenever_the_request_names_its_protocol() {
        assert!(parse(br#"{"op": "launch", "protocol": 4}"#).hello);
        assert!(parse(br#"{"op": "ping", "protocol": "x"}"#).hello);
        assert!(!parse(br#"{"op": "ping"}"#).hello);
        assert!(!parse(b"[]").hello);
    }

    #[test]
    fn paths_that_are_not_utf8_travel_as_their_bytes() {
        let path = WirePath::new(OsStr::from_bytes(b"a/\xff"));
        let text = serde_json::to_string(&path).unwrap();
        assert_eq!(text, "[97,47,255]");
        assert_eq!(serde_json::from_str::<WirePath>(&text).unwrap(), path);
        assert_eq!(
            serde_json::from_str::<WirePath>("\"a/b\"").unwrap(),
            WirePath::new("a/b")
        );
        assert!(serde_json::from_str::<WirePath>("[256]").is_err());
        assert!(serde_json::from_str::<WirePath>("{}").is_err());
    }

    /// Each reply read from its JSON and written again: the same text, field for field and in
    /// the same order (the literals are the replies as the protocol has them); a reply
    /// without its optional fields reads as their defaults.
    #[test]
    fn replies_keep_their_json_field_for_field() {
        fn again<T: Serialize + DeserializeOwned>(json: &str) -> String {
            let value: T = serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"));
            serde_json::to_string(&value).unwrap()
        }
        let selection = concat!(
            r#"{"ok":true,"files":["a.c","b/c.rs"],"bulk_frame":12,"#,
            r#""spans":[[10,20,30,40,[[0,5,1]]],null],"binary":1,"ignored":2,"unreadable":3,"#,
            r#""skips":[["binary",4,[["x.bin",false]]]],"skipped":[["ignored",5,["y"]]],"#,
            r#""generation":6,"watch_generation":7,"trusted":true,"rules_token":"tok","#,
            r#""git_dirs":["sub"],"undecided":[0,1],"more":true}"#
        );
        let bare_selection = concat!(
            r#"{"ok":true,"spans":null,"binary":0,"ignored":0,"unreadable":0,"skips":[],"#,
            r#""skipped":[],"generation":null,"watch_generation":null,"trusted":false,"#,
            r#""rules_token":null,"git_dirs":null,"undecided":null}"#
        );
        let globbed = concat!(
            r#"{"ok":true,"files":[["a.c",8,9],["b",null,null]],"bulk_frame":10,"total":2,"#,
            r#""truncated":true,"ignored":11,"errors":12,"search_path":"src","#,
            r#""skips":[["unreadable",1,[["z",true]]]],"generation":13,"#,
            r#""watch_generation":null,"trusted":false}"#
        );
        let bare_globbed = concat!(
            r#"{"ok":true,"total":0,"truncated":false,"ignored":0,"errors":0,"search_path":"","#,
            r#""skips":[],"generation":null,"watch_generation":null,"trusted":false}"#
        );
        for (json, expected) in [
            (again::<Selection>(selection), selection),
            (again::<Selection>(bare_selection), bare_selection),
            (
                again::<Selection>(
                    r#"{"ok":true,"binary":0,"ignored":0,"unreadable":0,"skips":[]}"#,
                ),
                bare_selection,
            ),
            (again::<Globbed>(globbed), globbed),
            (again::<Globbed>(bare_globbed), bare_globbed),
            (
                again::<Globbed>(
                    r#"{"ok":true,"total":0,"truncated":false,"ignored":0,"errors":0,"search_path":"","skips":[]}"#,
                ),
                bare_globbed,
            ),
        ] {
            assert_eq!(json, expected, "expected {expected}\n  actual {json}");
        }
        let default = serde_json::to_string(&Selection::default()).unwrap();
        assert_eq!(default, bare_selection.replacen("true", "false", 1));
        let status = concat!(
            r#"{"ok":true,"pid":1,"uid":2,"version":"0.1","socket":"/s","started":3,"#,
            r#""uptime_seconds":4,"idle_exit_seconds":5.5,"queries":6,"connections":7,"#,
            r#""active_connections":8,"refused_connections":9,"rss_bytes":10,"#,
            r#""rss_index_copies_bytes":null,"peak_rss_bytes":11,"index_bytes":12,"#,
            r#""max_roots":13,"roots":[]}"#
        );
        assert_eq!(again::<Status>(status), status);
    }

    #[test]
    fn a_reply_is_an_error_a_scan_or_the_answer_of_its_op() {
        let error = br#"{"error": {"type": "BusyError", "message": "later"}}"#;
        assert!(
            matches!(read_reply::<Stored>(error), Ok(Reply::Error(e)) if e.error.kind == "BusyError")
        );
        let scan = br#"{"ok": true, "scan": "catching up", "generation": null}"#;
        assert!(
            matches!(read_reply::<Stored>(scan), Ok(Reply::Scan(s)) if s.scan == "catching up")
        );
        let stored = br#"{"ok": true, "stored": true, "generation": 5}"#;
        assert!(matches!(read_reply::<Stored>(stored), Ok(Reply::Answer(s)) if s.stored));
        // An answer missing a field of its op is not an answer.
        assert!(read_reply::<Stored>(br#"{"ok": true}"#).is_err());
        let reply: Reply<Stored> = Reply::scan("why", Some(3));
        assert_eq!(
            serde_json::to_value(&reply).unwrap(),
            json!({"ok": true, "scan": "why", "generation": 3})
        );
    }
}
