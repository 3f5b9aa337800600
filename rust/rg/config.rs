//! `RIPGREP_CONFIG_PATH`: one argument a line, blank lines and `#` comments skipped, read
//! before the command line unless `--no-config` is given (ripgrep's rules).

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;

/// The config file's arguments, and the warnings ripgrep prints for an unreadable file.
pub fn args() -> (Vec<OsString>, Vec<String>) {
    let path = match std::env::var_os("RIPGREP_CONFIG_PATH") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => return (vec![], vec![]),
    };
    let data = match std::fs::read(&path) {
        Ok(data) => data,
        Err(err) => {
            return (
                vec![],
                vec![format!(
                    "failed to read the file specified in RIPGREP_CONFIG_PATH: {}: {}",
                    path.display(),
                    err
                )],
            );
        }
    };
    (parse(&data), vec![])
}

fn parse(data: &[u8]) -> Vec<OsString> {
    data.split(|&b| b == b'\n')
        .map(|line| line.trim_ascii())
        .filter(|line| !line.is_empty() && line[0] != b'#')
        .map(|line| OsString::from_vec(line.to_vec()))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn skips_comments_and_blank_lines_and_trims() {
        let got = super::parse(b"# c\n\n  --smart-case \r\n-g\n*.rs\n");
        assert_eq!(got, vec!["--smart-case", "-g", "*.rs"], "got {got:?}");
    }
}
