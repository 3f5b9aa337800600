//! A `codesift-rg --files` run answered from the list the daemon keeps for its command line
//! (`daemon::listings`): asked for before the walk, and on a miss the list the walk printed
//! is offered, kept only if nothing in the tree changed meanwhile. Which runs may ask is
//! `index::refusal`'s and `listing_refusal`'s to say; the key names the command line and
//! every rule file outside the tree as it is now (`index::client_key`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use super::args::Args;
use super::haystack::Haystack;
use super::index::{ask_reply, client_key, debug, debugging, path_json_lossless, refusal};
use crate::daemon::client;
use crate::daemon::wire::{self, Reply, Request, Walk};
use crate::index::handle::Mode as IndexMode;

/// A `--files` run the daemon may answer from a list it keeps (`daemon::listings`).
pub struct FilesListing {
    request: Box<wire::Files>,
    /// Set on a miss: the token the walk's list is stored under.
    token: Option<String>,
    /// The most bytes the daemon keeps of a compact list (told on a miss).
    keep_bytes: usize,
}

impl FilesListing {
    /// An empty offer for what the walk prints, bounded by what the daemon would keep.
    pub fn offer(&self) -> ListingOffer {
        ListingOffer {
            encoder: crate::daemon::front_coding::Encoder::new(self.keep_bytes),
            refused: None,
        }
    }
}

/// The list a `--files` run printed, built as it prints in the compact form the daemon keeps
/// (`daemon::front_coding`); given up, and what was built freed, as soon as it cannot be
/// kept: a name that cannot be told apart in a list, or more bytes than the daemon keeps (a
/// tree too large to keep costs nothing more than ripgrep's own walk).
pub struct ListingOffer {
    encoder: crate::daemon::front_coding::Encoder,
    refused: Option<&'static str>,
}

impl ListingOffer {
    /// Adds a path as printed.
    pub fn push(&mut self, path: &Path) {
        if self.refused.is_some() {
            return;
        }
        // A name with a newline cannot be told apart in the list; `.git` is not watched.
        let text = path.to_str().filter(|t| !t.contains(['\n', '\0']));
        let Some(text) = text.filter(|_| !path.components().any(|c| c.as_os_str() == ".git"))
        else {
            self.refuse("a name not UTF-8, with a newline, or in .git");
            return;
        };
        if !self.encoder.push(text.as_bytes()) {
            self.refuse("it is over the bytes the daemon keeps of a list");
        }
    }

    fn refuse(&mut self, why: &'static str) {
        self.refused = Some(why);
        self.encoder.give_up();
    }
}

/// What the daemon said about this `--files` run.
pub enum FilesAnswer {
    /// The list kept for this command line, still the tree's (its paths as printed, each
    /// ending in a newline): print it.
    Kept(String),
    /// None kept: list as usual and offer the list (`store_listing`).
    Miss(FilesListing),
}

/// Why a `--files` run cannot use a kept list (`None`: it may).
fn listing_refusal(a: &Args, paths: &[PathBuf]) -> Option<&'static str> {
    if paths.len() != 1 {
        return Some("several paths");
    }
    if a.max_filesize.is_some() {
        return Some("--max-filesize (a write can change a file's size)");
    }
    // `--sort modified`/`created` read each file's times when printing (`FileSet::sequential`):
    // a kept list is sorted by the times of now, as a walk would be.
    None
}

/// What names a kept list: the command line, the working directory, the environment the
/// rules are found through, and every rule file outside the searched tree (parents'
/// ignore files and repository markers, the global git excludes, `--ignore-file`s) as it
/// is now. Inside the tree the daemon's watch answers for changes; outside, this does.
fn listing_key(a: &Args, cwd: &Path, dir: &Path, real: &Path) -> String {
    let argv: Vec<Value> = a
        .command_line
        .iter()
        .map(|s| path_json_lossless(Path::new(s)))
        .collect();
    client_key(json!(argv), &a.ignore_file, cwd, dir, real)
}

/// Asks the daemon for the list of files it keeps for this `--files` run; `Err` with the
/// reason to list as usual without offering the list.
pub fn files_listing(
    a: &Args,
    cwd: &Path,
    paths: &[PathBuf],
    mode: IndexMode,
) -> Result<FilesAnswer, String> {
    if let Some(why) = refusal(a, paths).or_else(|| listing_refusal(a, paths)) {
        return Err(why.into());
    }
    let dir = &paths[0];
    let real = std::fs::canonicalize(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut target = wire::Target::new(&real, Walk::all_files());
    target.build = Some(mode == IndexMode::On);
    let request = wire::Files {
        target,
        key: Some(listing_key(a, cwd, dir, &real)),
        raw: true,
        store: None,
    };
    let (reply, mut stream) = ask_reply::<wire::Listing>(&Request::Files(request.clone()), mode)?;
    if let Some(token) = reply.miss {
        debug("files: no list kept: listed and offered");
        return Ok(FilesAnswer::Miss(FilesListing {
            token: Some(token),
            request: Box::new(request),
            keep_bytes: offer_limit(reply.keep_bytes),
        }));
    }
    let compact = match (reply.compact, reply.files_frame) {
        (Some(compact), _) => compact.0,
        (None, Some(len)) => {
            // The list follows as its own frame of bytes (no JSON escaping either way).
            let raw =
                crate::daemon::proto::read_frame(&mut stream, crate::daemon::proto::MAX_REPLY)
                    .map_err(|e| format!("the daemon's list was cut short: {e}"))?;
            if raw.len() as u64 != len {
                return Err("the daemon's list is not the length it announced".into());
            }
            raw
        }
        (None, None) => return Err("a malformed reply".into()),
    };
    let files = kept_lines(&compact)?;
    // The list printed before was of the same command line: its paths already carry the
    // form it prints (the implicit `./` stripped), one a line.
    if debugging() {
        let count = memchr::memchr_iter(b'\n', files.as_bytes()).count();
        debug(&format!("files: {count} from the daemon's list"));
    }
    Ok(FilesAnswer::Kept(files))
}

/// The lines of the compact list the daemon kept, or why it is refused: the daemon's bytes
/// are not trusted, and a list that does not decode, or names an empty path, is walked
/// instead.
fn kept_lines(compact: &[u8]) -> Result<String, String> {
    let files = crate::daemon::front_coding::decode_lines(compact)
        .map_err(|why| format!("the daemon's list is refused: {why}"))?;
    if files.starts_with('\n') || files.contains("\n\n") {
        return Err("the daemon's list is refused: an empty path".into());
    }
    Ok(files)
}

/// The haystacks of a kept list (for a run that prints them otherwise than as they are
/// kept: in color, with another terminator or separator, or sorted anew).
pub fn kept_haystacks(list: &str) -> Vec<Haystack> {
    list.split('\n')
        .filter(|line| !line.is_empty())
        .map(|line| Haystack::listed(PathBuf::from(line), None))
        .collect()
}

/// The most bytes of a compact list to offer: what the daemon said it keeps (its own bound
/// when it did not say), and what fits a store request as base64 beside its key.
fn offer_limit(keep_bytes: Option<u64>) -> usize {
    use crate::daemon::listings::{MAX_KEY, MAX_LISTING_BYTES};
    let fits_request = (crate::daemon::proto::MAX_LARGE_REQUEST - 8 * MAX_KEY) / 4 * 3;
    keep_bytes
        .map_or(MAX_LISTING_BYTES, |b| {
            usize::try_from(b).unwrap_or(usize::MAX)
        })
        .min(fits_request)
}

/// Offers the daemon the list a run printed (`offer`: its paths in the order printed) to
/// keep under the token of the miss: kept only if nothing changed in the tree since then.
/// `clean`: the run reported no message and printed every file (not stopped early).
pub fn store_listing(listing: &FilesListing, offer: ListingOffer, clean: bool) {
    let Some(token) = &listing.token else { return };
    if !clean {
        debug("files: the list is not offered: the run reported a message or stopped early");
        return;
    }
    if let Some(why) = offer.refused {
        debug(&format!("files: the list is not offered: {why}"));
        return;
    }
    let Some(compact) = offer.encoder.finish() else {
        return;
    };
    let mut request = (*listing.request).clone();
    request.store = Some(wire::Store {
        token: Some(token.clone()),
        compact: Some(crate::daemon::front_coding::Compact(compact)),
    });
    let Ok(mut stream) = client::connect() else {
        return;
    };
    let reply = client::exchange_up_to(
        &mut stream,
        &Request::Files(request),
        Duration::from_secs(2),
        crate::daemon::proto::MAX_LARGE_REQUEST,
    );
    let stored = matches!(
        reply.as_deref().map(wire::read_reply::<wire::Listing>),
        Ok(Ok(Reply::Answer(wire::Listing {
            stored: Some(true),
            ..
        })))
    );
    debug(&format!("files: list offered, kept: {stored}"));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(keep_bytes: usize) -> FilesListing {
        FilesListing {
            request: Box::new(wire::Files {
                target: wire::Target::new(Path::new("/tree"), Walk::all_files()),
                key: Some("k".into()),
                raw: true,
                store: None,
            }),
            token: Some("1:0".into()),
            keep_bytes,
        }
    }

    #[test]
    fn a_list_over_what_the_daemon_keeps_is_given_up_as_it_grows() {
        let mut offer = listing(64).offer();
        for i in 0..5 {
            offer.push(Path::new(&format!("dir/file{i}.c")));
        }
        assert_eq!(offer.refused, None);
        let kept = offer.encoder.len();
        assert!(kept > 0 && kept <= 64, "{kept} bytes");
        for i in 0..100 {
            offer.push(Path::new(&format!("another/dir/file{i}.c")));
        }
        assert_eq!(
            offer.refused,
            Some("it is over the bytes the daemon keeps of a list")
        );
        assert_eq!(offer.encoder.len(), 0, "what was built is freed");
        assert!(offer.encoder.finish().is_none());
    }

    #[test]
    fn a_list_naming_what_cannot_be_kept_is_not_offered() {
        for bad in ["a\nb", "a/.git/config", "a\0b"] {
            let mut offer = listing(1 << 20).offer();
            offer.push(Path::new("ok.c"));
            offer.push(Path::new(bad));
            offer.push(Path::new("ok2.c"));
            assert!(offer.refused.is_some(), "{bad:?}");
        }
        let mut offer = listing(1 << 20).offer();
        offer.push(Path::new("src/a.c"));
        offer.push(Path::new("src/b.c"));
        let compact = offer.encoder.finish().unwrap();
        assert_eq!(
            crate::daemon::front_coding::decode_lines(&compact).unwrap(),
            "src/a.c\nsrc/b.c\n"
        );
    }

    #[test]
    fn a_kept_list_that_does_not_decode_or_names_an_empty_path_is_refused() {
        use crate::daemon::front_coding::encode;
        let good = encode([b"a.c".as_slice(), b"src/b.c"]);
        assert_eq!(kept_lines(&good).unwrap(), "a.c\nsrc/b.c\n");
        assert_eq!(kept_lines(&[]).unwrap(), "");
        for bad in [
            encode([b"".as_slice(), b"a.c"]),
            encode([b"a.c".as_slice(), b"", b"b.c"]),
            vec![5, 1, b'x'],
            vec![0, 3, b'a', b'\n', b'b'],
            vec![0x80],
        ] {
            let refused = kept_lines(&bad);
            assert!(
                refused.as_ref().is_err_and(|e| e.contains("refused")),
                "{bad:?}: {refused:?}"
            );
        }
    }

    #[test]
    fn an_offer_fits_a_store_request() {
        use crate::daemon::listings::MAX_LISTING_BYTES;
        assert_eq!(offer_limit(None), MAX_LISTING_BYTES);
        assert_eq!(offer_limit(Some(1000)), 1000);
        let most = offer_limit(Some(u64::MAX));
        assert!(most.div_ceil(3) * 4 < crate::daemon::proto::MAX_LARGE_REQUEST);
    }
}
