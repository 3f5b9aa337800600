//! `-V`, `--version` and `--pcre2-version`: ripgrep's text (a build with PCRE2), with
//! codesift-rg named on `--version`'s last line.

use std::io::{self, Write};

use super::args::Special;

/// The ripgrep release whose command line, output and exit codes this serves.
pub const RIPGREP_VERSION: &str = "15.2.0";

/// ripgrep's `-V` and `--version` output, first line unchanged (tools parse it to check for
/// ripgrep and its version) and codesift-rg named on the last line. `features:+pcre2`: `-P`
/// is served here, by the PCRE2 library built into codesift-rg.
fn version_text(long: bool) -> String {
    let short = format!("ripgrep {RIPGREP_VERSION}");
    if !long {
        return short;
    }
    let simd = |detect: &dyn Fn(&str) -> bool| -> String {
        ["SSE2", "SSSE3", "AVX2"]
            .iter()
            .map(|f| format!("{}{f}", if detect(f) { "+" } else { "-" }))
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut out = format!("{short}\n\nfeatures:+pcre2\n");
    if cfg!(target_arch = "x86_64") {
        out += &format!("simd(compile):{}\n", simd(&compile_feature));
        out += &format!("simd(runtime):{}\n", simd(&runtime_feature));
    }
    out += &format!("\n{}\n", pcre2_text());
    out += &format!(
        "codesift-rg {}: ripgrep {RIPGREP_VERSION}'s command line on codesift's engine; \
         other command lines run the real rg",
        env!("CARGO_PKG_VERSION")
    );
    out
}

/// ripgrep's line on its PCRE2 (what `--pcre2-version` prints).
fn pcre2_text() -> String {
    let (major, minor) = grep_pcre2::version();
    // ripgrep does not use the JIT on 32-bit targets (see `matcher::build_pcre2`).
    let jit = cfg!(target_pointer_width = "64") && grep_pcre2::is_jit_available();
    format!(
        "PCRE2 {major}.{minor} is available (JIT is {})\n",
        if jit { "available" } else { "unavailable" }
    )
}

fn compile_feature(name: &str) -> bool {
    match name {
        "SSE2" => cfg!(target_feature = "sse2"),
        "SSSE3" => cfg!(target_feature = "ssse3"),
        "AVX2" => cfg!(target_feature = "avx2"),
        _ => false,
    }
}

#[cfg(target_arch = "x86_64")]
fn runtime_feature(name: &str) -> bool {
    match name {
        "SSE2" => std::arch::is_x86_feature_detected!("sse2"),
        "SSSE3" => std::arch::is_x86_feature_detected!("ssse3"),
        "AVX2" => std::arch::is_x86_feature_detected!("avx2"),
        _ => false,
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn runtime_feature(_: &str) -> bool {
    false
}

/// Prints what `special` asks for, as ripgrep prints it (trailing newlines trimmed to one).
pub(super) fn print_special(special: Special) -> i32 {
    let text = match special {
        Special::VersionShort => version_text(false),
        Special::VersionLong => version_text(true),
        Special::VersionPcre2 => pcre2_text(),
    };
    match writeln!(io::stdout(), "{}", text.trim_end()) {
        Ok(()) => 0,
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => 0,
        Err(_) => 2,
    }
}
