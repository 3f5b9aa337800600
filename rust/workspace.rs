//! A workspace as the engine holds it: the root (an open directory handle), its walk options,
//! its index and how to start the index daemon; a grep or glob request runs here (the daemon,
//! the index or a scan; a grep paged), whoever asked for it.

use crate::cancel::CancelToken;
use crate::daemon::ask::{Asking, Via};
use crate::error::{Error, Result};
use crate::fs::root::Root;
use crate::fs::walk::{WalkOptions, Walker};
use crate::glob::{FileBlock, GlobOutcome};
use crate::index::handle::{IndexHandle, Mode};
use crate::index::watched::IndexUse;
use crate::rank::Reading;
use crate::rank::question::{QuestionOutcome, QuestionRequest};
use crate::request::{GlobRequest, GrepRequest};
use crate::search::{GrepOutcome, Sink, grep_with};
use std::path::Path;
use std::sync::Arc;

pub struct Workspace {
    pub root: Arc<Root>,
    pub options: WalkOptions,
    pub index: Arc<IndexHandle>,
    /// How to start the index daemon when none answers (`None`: never from here).
    pub daemon: Option<Vec<String>>,
}

/// A prepared search: run it collecting (`None`: the page asked for, or `Cancelled`), or
/// streaming into a sink.
pub type GrepRun = Box<dyn FnOnce(Option<Sink<'_>>) -> Result<GrepOutcome> + Send>;

/// The state of a workspace's index, for `codesift index status`.
#[derive(Debug, Default)]
pub struct IndexStatus {
    pub mode: &'static str,
    pub index: crate::index::handle::Status,
    /// A watch is caught up (searches need no `stat` walk).
    pub watching: bool,
    /// Paths the caught-up watch saw change since the build.
    pub changed_since_build: Option<usize>,
    pub background_rebuilds: u64,
    pub rebuilding: bool,
    pub strict: bool,
    /// How long this process has passed the host's daemon over (it did not take a request
    /// in time: searches scan until it answers a ping), if it does.
    pub daemon_passed_over_for: Option<std::time::Duration>,
}

impl Workspace {
    /// Opens the workspace at `root`; `index` is "off", "auto" or "on".
    pub fn open(
        root: &Path,
        options: WalkOptions,
        index: &str,
        watch: bool,
        strict: bool,
        daemon: Option<Vec<String>>,
    ) -> Result<Workspace> {
        let mode = Mode::parse(index).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "index must be \"off\", \"auto\" or \"on\", not {index:?}"
            ))
        })?;
        let handle = Root::open(root).map_err(|e| {
            let shown = root.display();
            match e.raw_os_error() {
                Some(libc::ENOENT) => Error::NotFound(format!(
                    "workspace root {shown} does not exist; create it or pass an existing directory"
                )),
                Some(libc::ENOTDIR) => Error::InvalidArgument(format!(
                    "workspace root {shown} is not a directory; pass a directory"
                )),
                _ => Error::Io(format!("cannot open the workspace root {shown}: {e}")),
            }
        })?;
        let index = IndexHandle::new(handle.real_path(), &options, mode, watch, strict);
        Ok(Workspace {
            root: Arc::new(handle),
            options,
            index: Arc::new(index),
            daemon,
        })
    }

    /// The walk options of one call: the workspace's, with `hidden` and `no_ignore` (which
    /// turns the `.gitignore`-style rules off; access-ignore files always apply) overridden
    /// when given; and whether they differ from the workspace's (then the persistent index,
    /// built for the workspace's options, must not answer).
    pub fn call_options(
        &self,
        hidden: Option<bool>,
        no_ignore: Option<bool>,
    ) -> (WalkOptions, bool) {
        let mut options = self.options.clone();
        if let Some(hidden) = hidden {
            options.hidden = hidden;
        }
        if let Some(no_ignore) = no_ignore {
            options.rules.gitignore = !no_ignore;
        }
        let overridden = options.hidden != self.options.hidden
            || options.rules.gitignore != self.options.rules.gitignore;
        (options, overridden)
    }

    /// The search `request` asks for, checked: `grep` and `grep_iter` run the same one, one
    /// collecting (the page asked for) and one streaming. A search of an indexed workspace
    /// asks the host's daemon first (`crate::daemon::ask`); any search the daemon does not
    /// answer runs in this process.
    pub fn grep_run(&self, request: &GrepRequest, cancel: CancelToken) -> Result<GrepRun> {
        let query = request.query()?;
        let request = request.clone();
        let (options, overridden) = self.call_options(request.hidden, request.no_ignore);
        let (index, root) = (self.index.clone(), self.root.clone());
        let daemon = self.daemon.clone();
        Ok(Box::new(move |sink: Option<Sink<'_>>| {
            // A ranked search finds every hit before any is placed: it collects, ranks,
            // then hands its hits to the stream, if any.
            let (sink, ranked_sink) = match request.ranked() {
                true => (None, sink),
                false => (sink, None),
            };
            let collect = sink.is_none();
            let (reading_root, links) = (root.clone(), options.links());
            let walker = || Walker::new(root.clone(), options.clone()).with_cancel(cancel.clone());
            // The index holds the files of the workspace's options: a call that overrides
            // them scans (and asks no daemon).
            let via = if overridden {
                Via::InProcess {
                    daemon_serves: false,
                }
            } else {
                let asking = Asking {
                    handle: &index,
                    spawn: daemon.as_deref(),
                };
                crate::daemon::ask::grep(walker, &request, &query, &asking, sink)?
            };
            let mut outcome = match via {
                Via::Answered(outcome) => {
                    // One watch per tree: the daemon's. This process's own is dropped.
                    index.watch.lock().unwrap().take();
                    outcome
                }
                Via::InProcess { daemon_serves } => {
                    // The index a search builds on first use is never cancelled: a partial
                    // index would pass for a whole one. While a daemon serves the root
                    // (building or catching up), this process builds nothing and starts no
                    // watch of its own: the published index, if any, with a `stat` walk (or
                    // a watch it already had).
                    let file = if overridden {
                        None
                    } else if daemon_serves {
                        index.existing()
                    } else {
                        index.for_search(|| Walker::new(root.clone(), options.clone()))
                    };
                    let slot = index.watch_slot();
                    let watch = if daemon_serves {
                        slot.filter(|slot| slot.lock().unwrap().is_some())
                    } else {
                        slot
                    };
                    let using = file.as_deref().map(|file| IndexUse { file, watch });
                    let outcome = grep_with(walker(), &query, using, sink)?;
                    if file.is_some() && !daemon_serves {
                        // Never cancelled either (its walker has no cancel token).
                        index.maybe_rebuild(move || Walker::new(root, options));
                    }
                    outcome
                }
            };
            if collect {
                cancel.check("grep")?;
                if request.ranked() {
                    let reading = Reading {
                        root: &reading_root,
                        links,
                        cancel: &cancel,
                    };
                    request.rank_and_page(&mut outcome, &reading)?;
                    cancel.check("grep")?;
                } else {
                    request.page(&mut outcome);
                }
            }
            if let Some(sink) = ranked_sink {
                for piece in std::mem::take(&mut outcome.files) {
                    if !sink(piece) {
                        break;
                    }
                }
            }
            Ok(outcome)
        }))
    }

    /// The files that answer `question` best (`crate::rank::question`): one search of its
    /// terms' alternation, case-insensitive, every hit, through the workspace's grep (the
    /// daemon or the index answers where there is one), then BM25F over the files found.
    pub fn search_question(
        &self,
        question: &QuestionRequest,
        cancel: CancelToken,
    ) -> Result<QuestionOutcome> {
        let terms = crate::rank::question::terms(&question.question);
        if terms.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "the question {:?} has no words to search for: stop words (how, what, the, \
                 is, ...) and words of 1-2 characters are dropped; ask with the words or \
                 names the code would use, e.g. \"where is the config file parsed\"",
                question.question
            )));
        }
        if question.max_results < 1 {
            return Err(Error::InvalidArgument(format!(
                "max_results must be at least 1, not {}",
                question.max_results
            )));
        }
        let request = GrepRequest {
            search_path: question.search_path.clone(),
            pattern: crate::rank::question::pattern(&terms),
            case_sensitive: false,
            multiline: Some(false),
            include: question.include.clone(),
            exclude: question.exclude.clone(),
            types: question.types.clone(),
            max_matches: None,
            one_hit_per_line: true,
            skip_unique: true,
            ..GrepRequest::default()
        };
        let run = self.grep_run(&request, cancel.clone())?;
        let outcome = run(None)?;
        let reading = Reading {
            root: &self.root,
            links: self.options.links(),
            cancel: &cancel,
        };
        let answers = crate::rank::question::answer(
            &outcome.files,
            &terms,
            outcome.files_searched,
            &reading,
            question.max_results as usize,
        );
        cancel.check("search")?;
        Ok(QuestionOutcome {
            answers,
            files_searched: outcome.files_searched,
            terms,
            indexed: outcome.indexed,
        })
    }

    /// The files `request` asks for. A glob of an indexed workspace asks the host's daemon
    /// first, as a grep does (`grep_run`); else it is answered from this process's loaded
    /// index when its watch is caught up (no build, no `stat` walk), else by a walk.
    pub fn glob(
        &self,
        request: &GlobRequest,
        cancel: CancelToken,
    ) -> Result<GlobOutcome<FileBlock>> {
        let query = request.query()?;
        let (options, overridden) = self.call_options(request.hidden, request.no_ignore);
        let walker = Walker::new(self.root.clone(), options).with_cancel(cancel.clone());
        let index = &self.index;
        if !overridden {
            let asking = Asking {
                handle: index,
                spawn: self.daemon.as_deref(),
            };
            // The pattern is compiled here first: a bad one is this call's error to report,
            // not a daemon's.
            crate::glob::PathPattern::new(&[query.pattern.as_str()], query.case_sensitive)?;
            if let Via::Answered(outcome) = crate::daemon::ask::glob(&walker, request, &asking)? {
                // One watch per tree: the daemon's. This process's own is dropped.
                index.watch.lock().unwrap().take();
                cancel.check("glob")?;
                return Ok(outcome);
            }
        }
        // Only a loaded index with a caught-up watch answers (no build, no walk), and only
        // for the options it was built with.
        let file = if overridden { None } else { index.loaded() };
        let using = file.as_deref().map(|file| IndexUse {
            file,
            watch: index.watch_slot(),
        });
        let outcome = crate::glob::glob(&walker, &query, using)?;
        cancel.check("glob")?;
        Ok(outcome)
    }

    /// The index's state, with what its watch and its background rebuilds say.
    pub fn index_status(&self) -> IndexStatus {
        let index = self.index.status();
        let watch = self.index.watch.lock().unwrap();
        let caught_up = watch.as_ref().filter(|w| w.trusted());
        let (background_rebuilds, rebuilding) = self.index.rebuilds();
        IndexStatus {
            mode: match self.index.mode() {
                Mode::Off => "off",
                Mode::Auto => "auto",
                Mode::On => "on",
            },
            index,
            watching: caught_up.is_some(),
            changed_since_build: caught_up.map(|w| w.dirty.len()),
            background_rebuilds,
            rebuilding,
            strict: self.index.strict(),
            daemon_passed_over_for: crate::daemon::client::passed_over_for(),
        }
    }
}
