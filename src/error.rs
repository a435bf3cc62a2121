//! The library's top-level error: each variant is one documented exit code, so the CLI can
//! map any failure to the code scripts expect. Module errors convert into it.

use thiserror::Error;

use crate::db::fault::Fault;
use crate::exit_code::{self, ExitStatus};

#[derive(Debug, Error)]
pub enum Error {
    /// Bad configuration or usage, found before any I/O.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// The server could not be reached or refused the credentials.
    #[error("cannot connect to {target}: {reason}")]
    Connect { target: String, reason: String },
    /// A lock stayed busy past the wait allowed, or retries ran out.
    #[error("{0}")]
    LockBusy(String),
    /// A destructive step was refused (declined, no terminal, or a safety check failed).
    #[error("{0}")]
    Refused(String),
    /// A check found a problem; the report has already been printed.
    #[error("{0}")]
    CheckFailed(String),
    /// A PostgreSQL statement or connection failed: what outboxctl was doing, and the
    /// driver's error (its message with a hint on what to do).
    #[error("{}", joined(what, crate::db::pg_message(source)))]
    Postgres {
        what: String,
        #[source]
        source: sqlx::Error,
    },
    /// A MongoDB command failed: what outboxctl was doing, and the driver's error.
    #[error("{}", joined(what, crate::db::first_line(&source.to_string())))]
    Mongo {
        what: String,
        #[source]
        source: mongodb::error::Error,
    },
    /// Anything else at run time, in outboxctl's own words.
    #[error("{0}")]
    Runtime(String),
}

impl Error {
    /// `what` failed on PostgreSQL because of `source` ("" when the driver's message says it all).
    pub fn pg(what: impl Into<String>, source: sqlx::Error) -> Self {
        Error::Postgres {
            what: what.into(),
            source,
        }
    }

    /// `what` failed on MongoDB because of `source`.
    pub fn mongo(what: impl Into<String>, source: mongodb::error::Error) -> Self {
        Error::Mongo {
            what: what.into(),
            source,
        }
    }

    /// The SQLSTATE of a PostgreSQL error, e.g. `55P03` for a lock not available.
    pub fn sqlstate(&self) -> Option<String> {
        match self {
            Error::Postgres { source, .. } => crate::db::pg_code(source),
            _ => None,
        }
    }
}

fn joined(what: &str, message: String) -> String {
    if what.is_empty() {
        message
    } else {
        format!("{what}: {message}")
    }
}

/// An error chain on one line, as `error:` prints it: each cause after a `: `, except a cause
/// whose text the line already holds (a typed error shows its driver's message itself and
/// also carries the driver's error as its source).
pub fn one_line(error: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        let first = text.lines().next().unwrap_or_default();
        if line.contains(first) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

/// The exit code for an error chain: the first cause that knows its code (a library error, or
/// a driver error through its [`Fault`]), else [`exit_code::ERROR`].
pub fn exit_code_of(error: &anyhow::Error) -> u8 {
    for cause in error.chain() {
        if let Some(e) = cause.downcast_ref::<Error>() {
            return e.exit_code();
        }
        if let Some(e) = cause.downcast_ref::<sqlx::Error>() {
            return Fault::of_sqlx(e).exit_code();
        }
        if let Some(e) = cause.downcast_ref::<mongodb::error::Error>() {
            return Fault::of_mongo(e).exit_code();
        }
    }
    exit_code::ERROR
}

impl ExitStatus for Error {
    fn exit_code(&self) -> u8 {
        match self {
            Error::Config(_) | Error::Runtime(_) => exit_code::ERROR,
            Error::Connect { .. } => exit_code::CONNECT,
            Error::LockBusy(_) => exit_code::LOCK_BUSY,
            Error::Refused(_) => exit_code::REFUSED,
            Error::CheckFailed(_) => exit_code::CHECK_FAILED,
            Error::Postgres { source, .. } => Fault::of_sqlx(source).exit_code(),
            Error::Mongo { source, .. } => Fault::of_mongo(source).exit_code(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lost() -> sqlx::Error {
        sqlx::Error::Io(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "connection reset by peer",
        ))
    }

    #[test]
    fn a_typed_cause_prints_once_and_maps_its_exit_code() {
        let e = anyhow::Error::from(Error::pg("requeueing", lost()))
            .context("requeue on public.outbox");
        assert_eq!(
            one_line(&e),
            "requeue on public.outbox: requeueing: error communicating with database: connection reset by peer"
        );
        assert_eq!(exit_code_of(&e), exit_code::CONNECT);
        let inner = e
            .downcast_ref::<Error>()
            .expect("the typed error is in the chain");
        assert!(matches!(
            inner,
            Error::Postgres {
                source: sqlx::Error::Io(_),
                ..
            }
        ));
        assert_eq!(inner.sqlstate(), None);
    }

    #[test]
    fn an_empty_what_leaves_the_drivers_message() {
        assert_eq!(
            Error::pg("", lost()).to_string(),
            "error communicating with database: connection reset by peer"
        );
        assert_eq!(Error::Runtime("ours".into()).exit_code(), exit_code::ERROR);
    }
}
