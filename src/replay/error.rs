//! Replay's own errors: a selection or cursor that does not fit the source, a source that
//! cannot be read, a record that cannot be replayed, a publish that failed. Each names what to
//! fix; all exit 2 (through [`crate::Error::Area`]), except where a database or destination
//! error keeps its own type and code.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum ReplayError {
    /// The flags select nothing this source can serve (what to pass instead is in the text).
    #[error("{0}")]
    Selection(&'static str),
    /// `--from` names no source replay reads.
    #[error("--from {text:?}: {reason}")]
    From { text: String, reason: String },
    /// `--after` is a cursor of another kind of source.
    #[error("--after is a cursor of {found}, not of {expected}")]
    CursorKind {
        found: &'static str,
        expected: &'static str,
    },
    /// `--after` stands in a route (or tenant) this replay does not select.
    #[error("--after stands in route {route:?}{tenant}, which this replay does not select")]
    CursorRoute { route: String, tenant: String },
    /// The `file:` archive cannot be opened or read.
    #[error("{what}: {source}")]
    Archive {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// A stored record cannot be replayed (where it is, and why).
    #[error("{at}: {reason}")]
    Record { at: String, reason: String },
    /// Replay stopped on an error: what it was, and how to resume.
    #[error("{error}; {resume}")]
    Stopped { error: String, resume: String },
    /// A value replay cannot read: a flag's (`--since`, `--hlc-from`, `--rate`, `--after`) or a
    /// stored message's header; the text says which, and what it should look like.
    #[error("{0}")]
    Value(String),
    /// Stdout's reader quit (`| head`): the replay ends there, exit 0, as for any command.
    #[error("stdout's reader quit")]
    ReaderQuit,
    /// A message could not be published (or flushed) to the replay's destination.
    #[error("{what}: {reason}")]
    Publish { what: String, reason: String },
}

impl ReplayError {
    /// `--after` stands in `route` (of `tenant`), which is not selected.
    pub fn cursor_route(route: &str, tenant: Option<uuid::Uuid>) -> Self {
        ReplayError::CursorRoute {
            route: route.to_owned(),
            tenant: tenant
                .map(|t| format!(" of tenant {t}"))
                .unwrap_or_default(),
        }
    }

    /// A stored record at `at` that cannot be replayed because of `reason`.
    pub fn record(at: impl Into<String>, reason: impl std::fmt::Display) -> Self {
        ReplayError::Record {
            at: at.into(),
            reason: reason.to_string(),
        }
    }
}

impl From<ReplayError> for crate::Error {
    fn from(e: ReplayError) -> Self {
        crate::Error::Area(Box::new(e))
    }
}
