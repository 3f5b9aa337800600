//! The executable's entry: the config file and the command line read, `-V` answered, argv
//! this engine does not serve handed to the real rg, and a run's error turned into
//! ripgrep's exit status.

use std::ffi::OsString;
use std::io::{self, Write};

use super::args::{self, ParseError};
use super::{config, fallback, index, messages, run, version};

/// Runs `codesift-rg` with this process's arguments and returns the exit status.
pub fn main() -> i32 {
    let argv: Vec<OsString> = std::env::args_os().skip(1).collect();
    if let Err(bad) = index::mode_setting() {
        let _ = writeln!(
            io::stderr(),
            "codesift-rg: CODESIFT_RG_INDEX={} is not one of {}",
            bad.to_string_lossy(),
            index::mode_words()
        );
        return 2;
    }
    let mut full = vec![];
    let mut config_warnings = vec![];
    if !args::has_no_config(&argv) {
        let (cfg, warnings) = config::args();
        full.extend(cfg);
        config_warnings = warnings;
    }
    full.extend(argv.iter().cloned());
    let parsed = match args::parse(full.clone()) {
        Ok(parsed) => args::Args {
            command_line: full,
            ..parsed
        },
        Err(ParseError::Unsupported(flag)) => return hand_over(&argv, &flag, None),
        Err(ParseError::Usage(msg)) => return hand_over(&argv, "this command line", Some(msg)),
    };
    if let Some(special) = parsed.special {
        return version::print_special(special);
    }
    messages::configure(!parsed.no_messages, !parsed.no_ignore_messages);
    for w in config_warnings {
        messages::message(&w);
    }
    match run::run(parsed) {
        Ok(code) => code,
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => 0,
        Err(err) => {
            messages::eprint(&err.to_string());
            2
        }
    }
}

/// Execs the real rg for argv this engine does not serve; with `CODESIFT_RG_FALLBACK=never`
/// a usage error is reported as ripgrep reports it and anything else is refused.
fn hand_over(argv: &[OsString], flag: &str, usage: Option<String>) -> i32 {
    if !fallback::allowed() {
        match usage {
            Some(msg) => messages::eprint(&msg),
            None => {
                let _ = writeln!(io::stderr(), "codesift-rg: {flag} is not supported");
            }
        }
        return 2;
    }
    let msg = fallback::exec(argv, flag);
    let _ = writeln!(io::stderr(), "codesift-rg: {msg}");
    2
}
