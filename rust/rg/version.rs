//! `-V` and `--version`: ripgrep's text, with codesift-rg named on the last line.

use std::io::{self, Write};

/// The ripgrep release whose command line, output and exit codes this serves.
pub const RIPGREP_VERSION: &str = "15.2.0";

/// ripgrep's `-V` and `--version` output, first line unchanged (tools parse it to check for
/// ripgrep and its version) and codesift-rg named on the last line. `features:-pcre2`: `-P`
/// is not served here (it runs the real rg when one is found).
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
    let mut out = format!("{short}\n\nfeatures:-pcre2\n");
    if cfg!(target_arch = "x86_64") {
        out += &format!("simd(compile):{}\n", simd(&compile_feature));
        out += &format!("simd(runtime):{}\n", simd(&runtime_feature));
    }
    out += "\nPCRE2 is not available in this build of ripgrep.\n\n";
    out += &format!(
        "codesift-rg {}: ripgrep {RIPGREP_VERSION}'s command line on codesift's engine; \
         other command lines run the real rg",
        env!("CARGO_PKG_VERSION")
    );
    out
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

pub(super) fn print_version(long: bool) -> i32 {
    match writeln!(io::stdout(), "{}", version_text(long)) {
        Ok(()) => 0,
        Err(err) if err.kind() == io::ErrorKind::BrokenPipe => 0,
        Err(_) => 2,
    }
}
