//! The `codesift-rg` command line: ripgrep 15's flags parsed with `lexopt` into [`Args`], or
//! the first flag this engine does not serve (the caller then hands the argv to the real rg).

use std::ffi::OsString;
use std::path::PathBuf;

/// What a run does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Search(SearchMode),
    Files,
    Types,
}

/// How search results are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchMode {
    Standard,
    Json,
    Count,
    CountMatches,
    FilesWithMatches,
    FilesWithoutMatch,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaseMode {
    Sensitive,
    Insensitive,
    Smart,
}

/// The regex engine (`--engine`, `-P`, `--auto-hybrid-regex`): Rust's regex (`default`),
/// PCRE2, or `auto` (Rust's regex when the patterns compile there, else PCRE2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Default,
    Pcre2,
    Auto,
}

/// What ripgrep prints instead of searching: `-V`, `--version`, `--pcre2-version` (the last
/// one given wins, whatever else is on the command line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    VersionShort,
    VersionLong,
    VersionPcre2,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Boundary {
    Word,
    Line,
}

/// `-A/-B/-C` as ripgrep keeps them: `-A`/`-B` win over `-C` whatever their order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    Passthru,
    Limited {
        before: Option<usize>,
        after: Option<usize>,
        both: Option<usize>,
    },
}

impl Context {
    pub fn get(&self) -> (usize, usize) {
        match *self {
            Context::Passthru => (0, 0),
            Context::Limited {
                before,
                after,
                both,
            } => {
                let both = both.unwrap_or(0);
                (before.unwrap_or(both), after.unwrap_or(both))
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryMode {
    Auto,
    SearchAndSuppress,
    AsText,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    Never,
    Auto,
    Always,
    Ansi,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortKind {
    Path,
    Modified,
    Accessed,
    Created,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sort {
    pub kind: SortKind,
    pub reverse: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatternSource {
    Regexp(String),
    File(PathBuf),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeChange {
    Clear(String),
    Add(String),
    Select(String),
    Negate(String),
}

/// Every flag this engine serves, as given (defaults are settled later, in `hi`).
#[derive(Clone, Debug)]
pub struct Args {
    pub mode: Mode,
    pub positional: Vec<OsString>,
    pub patterns: Vec<PatternSource>,
    pub binary: BinaryMode,
    pub boundary: Option<Boundary>,
    pub byte_offset: bool,
    pub case: CaseMode,
    pub color: ColorChoice,
    pub colors: Vec<String>,
    pub column: Option<bool>,
    pub context: Context,
    pub context_separator: Option<Vec<u8>>,
    pub crlf: bool,
    pub engine: Engine,
    pub field_context_separator: Vec<u8>,
    pub field_match_separator: Vec<u8>,
    pub fixed_strings: bool,
    pub follow: bool,
    pub glob_case_insensitive: bool,
    pub globs: Vec<String>,
    pub heading: Option<bool>,
    pub hidden: bool,
    pub iglobs: Vec<String>,
    pub ignore_file: Vec<PathBuf>,
    pub ignore_file_case_insensitive: bool,
    pub include_zero: bool,
    pub invert_match: bool,
    pub line_number: Option<bool>,
    pub max_columns: Option<u64>,
    pub max_columns_preview: bool,
    pub max_count: Option<u64>,
    pub max_depth: Option<usize>,
    pub max_filesize: Option<u64>,
    pub multiline: bool,
    pub multiline_dotall: bool,
    pub no_ignore_dot: bool,
    pub no_ignore_exclude: bool,
    pub no_ignore_files: bool,
    pub no_ignore_global: bool,
    pub no_ignore_messages: bool,
    pub no_ignore_parent: bool,
    pub no_ignore_vcs: bool,
    pub no_messages: bool,
    pub no_require_git: bool,
    pub no_unicode: bool,
    pub null: bool,
    pub one_file_system: bool,
    pub only_matching: bool,
    pub path_separator: Option<u8>,
    pub quiet: bool,
    pub replace: Option<Vec<u8>>,
    pub sort: Option<Sort>,
    pub stop_on_nonmatch: bool,
    pub threads: Option<usize>,
    /// `--line-buffered`: every file's lines written as soon as it is searched, even to a
    /// pipe (else piped output is gathered into blocks: `super::gather`).
    pub line_buffered: bool,
    pub trim: bool,
    pub type_changes: Vec<TypeChange>,
    pub vimgrep: bool,
    pub with_filename: Option<bool>,
    pub mmap: Option<bool>,
    pub null_data: bool,
    pub stats: bool,
    pub dfa_size_limit: Option<usize>,
    pub regex_size_limit: Option<usize>,
    /// `None`: sniff a BOM (the default); `Some(None)`: `-E none`; `Some(label)`: that encoding.
    pub encoding: Option<Option<String>>,
    pub search_zip: bool,
    pub pre: Option<PathBuf>,
    pub pre_globs: Vec<String>,
    /// `-V`, `--version` or `--pcre2-version`: print it and nothing else, as ripgrep does
    /// whatever else is given.
    pub special: Option<Special>,
    /// The whole command line parsed (configuration file arguments first): what names a
    /// `--files` list kept by the daemon.
    pub command_line: Vec<OsString>,
}

impl Default for Args {
    fn default() -> Args {
        Args {
            mode: Mode::Search(SearchMode::Standard),
            command_line: vec![],
            positional: vec![],
            patterns: vec![],
            binary: BinaryMode::Auto,
            boundary: None,
            byte_offset: false,
            case: CaseMode::Sensitive,
            color: ColorChoice::Auto,
            colors: vec![],
            column: None,
            context: Context::Limited {
                before: None,
                after: None,
                both: None,
            },
            context_separator: Some(b"--".to_vec()),
            crlf: false,
            engine: Engine::Default,
            field_context_separator: b"-".to_vec(),
            field_match_separator: b":".to_vec(),
            fixed_strings: false,
            follow: false,
            glob_case_insensitive: false,
            globs: vec![],
            heading: None,
            hidden: false,
            iglobs: vec![],
            ignore_file: vec![],
            ignore_file_case_insensitive: false,
            include_zero: false,
            invert_match: false,
            line_number: None,
            max_columns: None,
            max_columns_preview: false,
            max_count: None,
            max_depth: None,
            max_filesize: None,
            multiline: false,
            multiline_dotall: false,
            no_ignore_dot: false,
            no_ignore_exclude: false,
            no_ignore_files: false,
            no_ignore_global: false,
            no_ignore_messages: false,
            no_ignore_parent: false,
            no_ignore_vcs: false,
            no_messages: false,
            no_require_git: false,
            no_unicode: false,
            null: false,
            one_file_system: false,
            only_matching: false,
            path_separator: None,
            quiet: false,
            replace: None,
            sort: None,
            stop_on_nonmatch: false,
            threads: None,
            line_buffered: false,
            trim: false,
            type_changes: vec![],
            vimgrep: false,
            with_filename: None,
            mmap: None,
            null_data: false,
            stats: false,
            dfa_size_limit: None,
            regex_size_limit: None,
            encoding: None,
            search_zip: false,
            pre: None,
            pre_globs: vec![],
            special: None,
        }
    }
}

/// Why argv was not turned into [`Args`].
#[derive(Debug)]
pub enum ParseError {
    /// A flag (or flag value) this engine does not serve: the real rg should answer.
    Unsupported(String),
    /// An error ripgrep itself reports the same way (message without the `rg: ` prefix).
    Usage(String),
}

/// A bad value of flag `name`, in ripgrep's words.
fn usage(name: &str, why: &str) -> ParseError {
    ParseError::Usage(format!("error parsing flag {name}: {why}"))
}

fn unsupported(flag: &str) -> ParseError {
    ParseError::Unsupported(flag.to_string())
}

/// `--no-config` anywhere on the command line (config files are read only without it).
pub fn has_no_config(argv: &[OsString]) -> bool {
    for arg in argv {
        if arg == "--" {
            break;
        }
        if arg == "--no-config" {
            return true;
        }
    }
    false
}

/// Parses the arguments after the program name (config arguments first, then the command
/// line's, so later flags win as in ripgrep).
pub fn parse(argv: Vec<OsString>) -> Result<Args, ParseError> {
    use lexopt::Arg::{Long, Short, Value};
    let mut args = Args::default();
    let mut parser = lexopt::Parser::from_args(argv);
    let mut unrestricted = 0u8;
    loop {
        let arg = match parser.next() {
            Ok(Some(arg)) => arg,
            Ok(None) => break,
            Err(err) => return Err(ParseError::Usage(lexopt_message(err))),
        };
        let name: String = match arg {
            Value(v) => {
                args.positional.push(v);
                continue;
            }
            Short(c) => format!("-{c}"),
            Long(l) => format!("--{l}"),
        };
        // A flag's value: `-A3`, `-A 3`, `--after-context=3`, `--after-context 3`.
        macro_rules! value {
            () => {
                match parser.value() {
                    Ok(v) => v,
                    Err(err) => {
                        return Err(ParseError::Usage(format!(
                            "missing value for flag {name}: {}",
                            lexopt_message(err)
                        )));
                    }
                }
            };
        }
        macro_rules! string {
            () => {{
                let v = value!();
                match v.into_string() {
                    Ok(s) => s,
                    Err(_) => {
                        return Err(usage(&name, "value is not valid UTF-8"));
                    }
                }
            }};
        }
        macro_rules! number {
            () => {{
                let s = string!();
                match s.parse::<u64>() {
                    Ok(n) => n,
                    Err(err) => {
                        return Err(usage(&name, &format!("value is not a valid number: {err}")));
                    }
                }
            }};
        }
        match name.as_str() {
            // Patterns and modes.
            "-e" | "--regexp" => args.patterns.push(PatternSource::Regexp(string!())),
            "-f" | "--file" => args.patterns.push(PatternSource::File(value!().into())),
            "--files" => args.mode = Mode::Files,
            "--type-list" => args.mode = Mode::Types,
            "-c" | "--count" => args.mode = Mode::Search(SearchMode::Count),
            "--count-matches" => args.mode = Mode::Search(SearchMode::CountMatches),
            "-l" | "--files-with-matches" => args.mode = Mode::Search(SearchMode::FilesWithMatches),
            "--files-without-match" => args.mode = Mode::Search(SearchMode::FilesWithoutMatch),
            "--json" => args.mode = Mode::Search(SearchMode::Json),
            "--no-json" => {
                if args.mode == Mode::Search(SearchMode::Json) {
                    args.mode = Mode::Search(SearchMode::Standard)
                }
            }
            // Matching.
            "-i" | "--ignore-case" => args.case = CaseMode::Insensitive,
            "-s" | "--case-sensitive" => args.case = CaseMode::Sensitive,
            "-S" | "--smart-case" => args.case = CaseMode::Smart,
            "-F" | "--fixed-strings" => args.fixed_strings = true,
            "--no-fixed-strings" => args.fixed_strings = false,
            "-w" | "--word-regexp" => args.boundary = Some(Boundary::Word),
            "-x" | "--line-regexp" => args.boundary = Some(Boundary::Line),
            "-v" | "--invert-match" => args.invert_match = true,
            "--no-invert-match" => args.invert_match = false,
            "-U" | "--multiline" => args.multiline = true,
            "--no-multiline" => args.multiline = false,
            "--multiline-dotall" => args.multiline_dotall = true,
            "--no-multiline-dotall" => args.multiline_dotall = false,
            "--crlf" => args.crlf = true,
            "--no-crlf" => args.crlf = false,
            "--no-unicode" | "--no-pcre2-unicode" => args.no_unicode = true,
            "--unicode" | "--pcre2-unicode" => args.no_unicode = false,
            "-m" | "--max-count" => args.max_count = Some(number!()),
            "--stop-on-nonmatch" => args.stop_on_nonmatch = true,
            "--engine" => {
                args.engine = match string!().as_str() {
                    "default" => Engine::Default,
                    "pcre2" => Engine::Pcre2,
                    "auto" => Engine::Auto,
                    v => return Err(usage(&name, &format!("unrecognized regex engine '{v}'"))),
                }
            }
            // ripgrep: `-P` is `--engine pcre2`, its negation `--engine default` (whatever
            // engine was chosen before); likewise `--auto-hybrid-regex` and `auto`.
            "-P" | "--pcre2" => args.engine = Engine::Pcre2,
            "--auto-hybrid-regex" => args.engine = Engine::Auto,
            "--no-pcre2" | "--no-auto-hybrid-regex" => args.engine = Engine::Default,
            "--pcre2-version" => args.special = Some(Special::VersionPcre2),
            "-a" | "--text" => args.binary = BinaryMode::AsText,
            "--no-text" => {
                if args.binary == BinaryMode::AsText {
                    args.binary = BinaryMode::Auto
                }
            }
            "--binary" => args.binary = BinaryMode::SearchAndSuppress,
            "--no-binary" => {
                if args.binary == BinaryMode::SearchAndSuppress {
                    args.binary = BinaryMode::Auto
                }
            }
            // Output.
            "-n" | "--line-number" => args.line_number = Some(true),
            "-N" | "--no-line-number" => args.line_number = Some(false),
            "--column" => args.column = Some(true),
            "--no-column" => args.column = Some(false),
            "-o" | "--only-matching" => args.only_matching = true,
            "-b" | "--byte-offset" => args.byte_offset = true,
            "--no-byte-offset" => args.byte_offset = false,
            "-A" | "--after-context" => set_after(&mut args.context, number!() as usize),
            "-B" | "--before-context" => set_before(&mut args.context, number!() as usize),
            "-C" | "--context" => set_both(&mut args.context, number!() as usize),
            "--passthru" | "--passthrough" => args.context = Context::Passthru,
            "--context-separator" => args.context_separator = Some(unescape(&string!())),
            "--no-context-separator" => args.context_separator = None,
            "--field-context-separator" => args.field_context_separator = unescape(&string!()),
            "--field-match-separator" => args.field_match_separator = unescape(&string!()),
            "-q" | "--quiet" => args.quiet = true,
            "-H" | "--with-filename" => args.with_filename = Some(true),
            "-I" | "--no-filename" => args.with_filename = Some(false),
            "--heading" => args.heading = Some(true),
            "--no-heading" => args.heading = Some(false),
            "--vimgrep" => args.vimgrep = true,
            "-0" | "--null" => args.null = true,
            "--trim" => args.trim = true,
            "--no-trim" => args.trim = false,
            "-M" | "--max-columns" => {
                let n = number!();
                args.max_columns = if n == 0 { None } else { Some(n) };
            }
            "--max-columns-preview" => args.max_columns_preview = true,
            "--no-max-columns-preview" => args.max_columns_preview = false,
            "-r" | "--replace" => args.replace = Some(string!().into_bytes()),
            "--include-zero" => args.include_zero = true,
            "--no-include-zero" => args.include_zero = false,
            // ripgrep 15 knows no `--colour` (it is an unrecognized flag there).
            "--color" => {
                args.color = match string!().as_str() {
                    "never" => ColorChoice::Never,
                    "auto" => ColorChoice::Auto,
                    "always" => ColorChoice::Always,
                    "ansi" => ColorChoice::Ansi,
                    other => {
                        return Err(usage(&name, &format!("choice '{other}' is unrecognized")));
                    }
                }
            }
            // Checked here, as ripgrep checks it while parsing (before any other error).
            "--colors" => {
                let spec = string!();
                if let Err(err) = spec.parse::<grep_printer::UserColorSpec>() {
                    return Err(usage(&name, &err.to_string()));
                }
                args.colors.push(spec);
            }
            "-p" | "--pretty" => {
                args.color = ColorChoice::Always;
                args.line_number = Some(true);
                args.heading = Some(true);
            }
            "--path-separator" => {
                let raw = unescape(&string!());
                if raw.is_empty() {
                    args.path_separator = None;
                } else if raw.len() == 1 {
                    args.path_separator = Some(raw[0]);
                } else {
                    return Err(unsupported("--path-separator"));
                }
            }
            "--no-messages" => args.no_messages = true,
            "--messages" => args.no_messages = false,
            "--no-ignore-messages" => args.no_ignore_messages = true,
            "--ignore-messages" => args.no_ignore_messages = false,
            "--sort" | "--sortr" => {
                let v = string!();
                let kind = match v.as_str() {
                    "none" => None,
                    "path" => Some(SortKind::Path),
                    "modified" => Some(SortKind::Modified),
                    "accessed" => Some(SortKind::Accessed),
                    "created" => Some(SortKind::Created),
                    _ => return Err(usage(&name, &format!("choice '{v}' is unrecognized"))),
                };
                args.sort = kind.map(|kind| Sort {
                    kind,
                    reverse: name == "--sortr",
                });
            }
            "--sort-files" => {
                args.sort = Some(Sort {
                    kind: SortKind::Path,
                    reverse: false,
                })
            }
            "--no-sort-files" => args.sort = None,
            // Which files.
            "-g" | "--glob" => args.globs.push(string!()),
            "--iglob" => args.iglobs.push(string!()),
            "--glob-case-insensitive" => args.glob_case_insensitive = true,
            "--no-glob-case-insensitive" => args.glob_case_insensitive = false,
            "-t" | "--type" => args.type_changes.push(TypeChange::Select(string!())),
            "-T" | "--type-not" => args.type_changes.push(TypeChange::Negate(string!())),
            "--type-add" => args.type_changes.push(TypeChange::Add(string!())),
            "--type-clear" => args.type_changes.push(TypeChange::Clear(string!())),
            "-." | "--hidden" => args.hidden = true,
            "--no-hidden" => args.hidden = false,
            "-L" | "--follow" => args.follow = true,
            "--no-follow" => args.follow = false,
            "--no-ignore" => set_no_ignore(&mut args, true),
            "--ignore" => set_no_ignore(&mut args, false),
            "--no-ignore-vcs" => args.no_ignore_vcs = true,
            "--ignore-vcs" => args.no_ignore_vcs = false,
            "--no-ignore-dot" => args.no_ignore_dot = true,
            "--ignore-dot" => args.no_ignore_dot = false,
            "--no-ignore-exclude" => args.no_ignore_exclude = true,
            "--ignore-exclude" => args.no_ignore_exclude = false,
            "--no-ignore-files" => args.no_ignore_files = true,
            "--ignore-files" => args.no_ignore_files = false,
            "--no-ignore-global" => args.no_ignore_global = true,
            "--ignore-global" => args.no_ignore_global = false,
            "--no-ignore-parent" => args.no_ignore_parent = true,
            "--ignore-parent" => args.no_ignore_parent = false,
            "--no-require-git" => args.no_require_git = true,
            "--require-git" => args.no_require_git = false,
            "--ignore-file" => args.ignore_file.push(value!().into()),
            "--ignore-file-case-insensitive" => args.ignore_file_case_insensitive = true,
            "--no-ignore-file-case-insensitive" => args.ignore_file_case_insensitive = false,
            "-u" | "--unrestricted" => {
                // -u: no ignore files; -uu: and hidden files; -uuu: and binary files. Counted,
                // as ripgrep counts them: `--no-ignore -u` is not `-uu`.
                unrestricted += 1;
                match unrestricted {
                    1 => set_no_ignore(&mut args, true),
                    2 => args.hidden = true,
                    3 => args.binary = BinaryMode::SearchAndSuppress,
                    _ => return Err(usage(&name, "flag can only be repeated up to 3 times")),
                }
            }
            "-d" | "--max-depth" | "--maxdepth" => args.max_depth = Some(number!() as usize),
            "--max-filesize" => {
                args.max_filesize = Some(parse_size(&name, &string!())?);
            }
            "--one-file-system" => args.one_file_system = true,
            "--no-one-file-system" => args.one_file_system = false,
            "-j" | "--threads" => {
                let n = number!() as usize;
                args.threads = if n == 0 { None } else { Some(n) };
            }
            // Buffering changes how, not what, ripgrep prints: when it is written.
            "--line-buffered" => args.line_buffered = true,
            "--block-buffered" | "--no-line-buffered" => args.line_buffered = false,
            "--no-block-buffered" | "--no-config" => {}
            "--mmap" => args.mmap = Some(true),
            "--no-mmap" => args.mmap = Some(false),
            "-z" | "--search-zip" => args.search_zip = true,
            "--no-search-zip" => args.search_zip = false,
            "--pre" => {
                let v = value!();
                args.pre = if v.is_empty() { None } else { Some(v.into()) };
            }
            "--no-pre" => args.pre = None,
            "--pre-glob" => args.pre_globs.push(string!()),
            "--null-data" => args.null_data = true,
            "--stats" => args.stats = true,
            "--no-stats" => args.stats = false,
            "--dfa-size-limit" | "--regex-size-limit" => {
                let n = parse_size(&name, &string!())?;
                if name == "--dfa-size-limit" {
                    args.dfa_size_limit = Some(n as usize);
                } else {
                    args.regex_size_limit = Some(n as usize);
                }
            }
            "--hyperlink-format" => {
                let v = string!();
                if !v.is_empty() && v != "none" {
                    return Err(unsupported("--hyperlink-format"));
                }
            }
            "-E" | "--encoding" => {
                let v = string!();
                args.encoding = match v.as_str() {
                    "auto" => None,
                    "none" => Some(None),
                    label => {
                        if let Err(err) = grep_searcher::Encoding::new(label) {
                            return Err(usage(&name, &err.to_string()));
                        }
                        Some(Some(label.to_string()))
                    }
                };
            }
            "--no-encoding" => args.encoding = None,
            "-V" => args.special = Some(Special::VersionShort),
            "--version" => args.special = Some(Special::VersionLong),
            // Every short flag of ripgrep 15 is served but -h (help): any other is ripgrep's
            // own usage error, which needs no real rg (a pattern starting with '-' passed
            // positionally, as agents do, lands here).
            other if other.chars().count() == 2 && other != "-h" => {
                return Err(ParseError::Usage(format!("unrecognized flag {other}")));
            }
            other => return Err(unsupported(other)),
        }
    }
    Ok(args)
}

fn set_no_ignore(args: &mut Args, yes: bool) {
    args.no_ignore_dot = yes;
    args.no_ignore_exclude = yes;
    args.no_ignore_global = yes;
    args.no_ignore_parent = yes;
    args.no_ignore_vcs = yes;
}

/// The context counts of `ctx` to set one of: after `--passthru`, none set yet (a later
/// context flag replaces passthru).
fn limited(ctx: &mut Context) -> [&mut Option<usize>; 3] {
    if let Context::Passthru = ctx {
        *ctx = Context::Limited {
            before: None,
            after: None,
            both: None,
        };
    }
    match ctx {
        Context::Limited {
            before,
            after,
            both,
        } => [before, after, both],
        Context::Passthru => unreachable!("set to limited above"),
    }
}

fn set_before(ctx: &mut Context, n: usize) {
    let [before, _, _] = limited(ctx);
    *before = Some(n);
}

fn set_after(ctx: &mut Context, n: usize) {
    let [_, after, _] = limited(ctx);
    *after = Some(n);
}

fn set_both(ctx: &mut Context, n: usize) {
    let [_, _, both] = limited(ctx);
    *both = Some(n);
}

/// `10`, `10K`, `10M`, `10G` (ripgrep's size suffixes).
/// A size with an optional `K`, `M` or `G` suffix, parsed (and refused) as ripgrep does.
fn parse_size(name: &str, s: &str) -> Result<u64, ParseError> {
    grep_cli::parse_human_readable_size(s)
        .map_err(|err| usage(name, &format!("invalid size: {err}")))
}

/// Separators accept the escapes `grep-cli` understands (`\t`, `\x00`, ...).
fn unescape(s: &str) -> Vec<u8> {
    grep_cli::unescape(s)
}

fn lexopt_message(err: lexopt::Error) -> String {
    match err {
        lexopt::Error::UnexpectedValue { option, .. } => {
            format!("unexpected argument for option '{option}'")
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Args {
        match parse(args.iter().map(OsString::from).collect()) {
            Ok(a) => a,
            Err(e) => panic!("parse {args:?}: {e:?}"),
        }
    }

    #[test]
    fn context_flags_a_and_b_win_over_c_in_any_order() {
        assert_eq!(p(&["-A1", "-C", "3"]).context.get(), (3, 1));
        assert_eq!(p(&["-C3", "-B", "2"]).context.get(), (2, 3));
    }

    #[test]
    fn unrestricted_escalates_per_repetition() {
        let a = p(&["-uu"]);
        assert!(
            a.no_ignore_vcs && a.hidden && a.binary == BinaryMode::Auto,
            "{a:?}"
        );
        let a = p(&["-uuu"]);
        assert_eq!(a.binary, BinaryMode::SearchAndSuppress);
    }

    #[test]
    fn unknown_flag_is_unsupported_not_an_error() {
        let err = parse(vec!["--generate".into(), "man".into()]).unwrap_err();
        assert!(
            matches!(err, ParseError::Unsupported(ref f) if f == "--generate"),
            "{err:?}"
        );
    }

    #[test]
    fn version_flags_last_one_wins() {
        assert_eq!(p(&["-V"]).special, Some(Special::VersionShort));
        assert_eq!(p(&["-V", "--version"]).special, Some(Special::VersionLong));
        assert_eq!(
            p(&["--version", "foo", "-V"]).special,
            Some(Special::VersionShort)
        );
        assert_eq!(
            p(&["-V", "--pcre2-version"]).special,
            Some(Special::VersionPcre2)
        );
    }

    /// ripgrep 15's own cases (`test_pcre2`, `test_engine`, `test_auto_hybrid_regex`): the
    /// last of `-P`, `--engine`, `--auto-hybrid-regex` and their negations wins.
    #[test]
    fn engine_flags_last_one_wins_as_in_ripgrep() {
        let cases: &[(&[&str], Engine)] = &[
            (&[], Engine::Default),
            (&["-P"], Engine::Pcre2),
            (&["--pcre2"], Engine::Pcre2),
            (&["-P", "--no-pcre2"], Engine::Default),
            (&["--engine=auto", "-P", "--no-pcre2"], Engine::Default),
            (&["-P", "--engine=auto"], Engine::Auto),
            (&["--engine", "pcre2"], Engine::Pcre2),
            (&["--engine=pcre2", "--engine=default"], Engine::Default),
            (&["--auto-hybrid-regex", "--engine=pcre2"], Engine::Pcre2),
            (&["--engine=pcre2", "--auto-hybrid-regex"], Engine::Auto),
            (
                &["--engine=pcre2", "--no-auto-hybrid-regex"],
                Engine::Default,
            ),
            (&["--auto-hybrid-regex", "-P"], Engine::Pcre2),
            (&["-P", "--auto-hybrid-regex"], Engine::Auto),
            (&["-Pi", "foo"], Engine::Pcre2),
        ];
        for (argv, expected) in cases {
            let got = p(argv).engine;
            assert_eq!(
                got, *expected,
                "argv {argv:?}: expected {expected:?}, got {got:?}"
            );
        }
        let err = parse(vec!["--engine".into(), "perl".into()]).unwrap_err();
        assert!(
            matches!(err, ParseError::Usage(ref m) if m.contains("unrecognized regex engine 'perl'")),
            "{err:?}"
        );
    }

    #[test]
    fn pcre2_unicode_flags_are_no_unicode_and_unicode() {
        assert!(p(&["--no-pcre2-unicode"]).no_unicode);
        assert!(!p(&["--no-pcre2-unicode", "--pcre2-unicode"]).no_unicode);
        assert!(!p(&["--no-unicode", "--pcre2-unicode"]).no_unicode);
        assert!(!p(&["--no-pcre2-unicode", "--unicode"]).no_unicode);
    }

    #[test]
    fn dash_e_takes_values_that_look_like_flags() {
        let a = p(&["-e", "-foo", "-e--bar"]);
        assert_eq!(
            a.patterns,
            vec![
                PatternSource::Regexp("-foo".into()),
                PatternSource::Regexp("--bar".into())
            ]
        );
    }
}
