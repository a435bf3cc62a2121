//! The library's top-level error: each variant is one documented exit code, so the CLI can
//! map any failure to the code scripts expect. Module errors convert into it.

use thiserror::Error;

use crate::db::DbError;
use crate::db::fault::Fault;
use crate::exit_code::{self, ExitStatus};

#[derive(Debug, Error)]
pub enum Error {
    /// Bad configuration or usage, found before any I/O.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// A lock stayed busy past the wait allowed, or retries ran out.
    #[error("{0}")]
    LockBusy(String),
    /// A destructive step was refused (declined, no terminal, or a safety check failed).
    #[error("{0}")]
    Refused(String),
    /// A check found a problem; the report has already been printed.
    #[error("{0}")]
    CheckFailed(String),
    /// An area's own error (e.g. `ops::emit::EmitError`, `schema::postgres::SchemaError`),
    /// boxed so that this floor need not know the areas above it; exit 2.
    #[error(transparent)]
    Area(Box<dyn std::error::Error + Send + Sync>),
    /// A file, directory, socket or terminal could not be used: what outboxctl was doing, and
    /// the operating system's error.
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// A table, column or index the command needs is not in the database (the message says
    /// which, and what adds it).
    #[error("{0}")]
    SchemaMissing(String),
    /// Something the command needs is not configured (the message says which setting).
    #[error("{0}")]
    NotConfigured(&'static str),
    /// A name (schema, table, collection, partition) that cannot be used as an identifier.
    #[error(transparent)]
    Name(#[from] crate::target::NameError),
    /// A database could not be reached or used, or a statement on it failed.
    #[error(transparent)]
    Db(#[from] DbError),
    /// A destination refused before any I/O, could not be reached, or refused or lacks what a
    /// route needs.
    #[error(transparent)]
    Destination(#[from] crate::destination::DestinationError),
    /// The request cannot be carried out as given: nothing selected, a tenant that is not
    /// configured, a store used outside its contract (the message says what to change).
    #[error("{0}")]
    Usage(String),
    /// The server, or a pooler in front of it, cannot do what the command needs (a standalone
    /// MongoDB has no transactions; a pooler in statement mode refuses one).
    #[error("{0}")]
    Unsupported(String),
    /// A stored row or document outboxctl cannot read, or a payload it cannot store as is:
    /// what it was and why, with the parser's error as the source when there is one.
    #[error("{what}{}", .source.as_ref().map(|s| format!(": {s}")).unwrap_or_default())]
    Data {
        what: String,
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// Ctrl-C stopped the command where it could stop cleanly: where, and how to go on.
    #[error("{0}")]
    Interrupted(String),
}

impl Error {
    /// `what` failed on a file, socket or terminal because of `source`.
    pub fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            what: what.into(),
            source,
        }
    }

    /// `what` failed on PostgreSQL because of `source` ("" when the driver's message says it all).
    pub fn pg(what: impl Into<String>, source: sqlx::Error) -> Self {
        Error::Db(DbError::Postgres {
            what: what.into(),
            source,
        })
    }

    /// A statement on the relay's own PostgreSQL client failed while doing `what`.
    pub fn pg_client(
        what: impl Into<String>,
        source: std::sync::Arc<tokio_postgres::Error>,
    ) -> Self {
        Error::Db(DbError::PgClient {
            what: what.into(),
            source,
        })
    }

    /// `what` (a stored document, a payload) cannot be read or stored because of `source`.
    pub fn data(
        what: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Error::Data {
            what: what.into(),
            source: Some(source.into()),
        }
    }

    /// `what` failed on MongoDB because of `source`.
    pub fn mongo(what: impl Into<String>, source: mongodb::error::Error) -> Self {
        Error::Db(DbError::Mongo {
            what: what.into(),
            driver: source,
        })
    }

    /// The database cannot be reached or its connection is gone (not the statement's fault).
    pub fn is_away(&self) -> bool {
        matches!(self, Error::Db(e) if e.fault().is_away())
    }

    /// The SQLSTATE of a PostgreSQL error, e.g. `55P03` for a lock not available.
    pub fn sqlstate(&self) -> Option<String> {
        match self {
            Error::Db(DbError::Postgres { source, .. }) => crate::db::pg_code(source),
            Error::Db(DbError::PgClient { source, .. }) => {
                source.as_db_error().map(|d| d.code().code().to_owned())
            }
            _ => None,
        }
    }
}

/// The secrets no printed error line may contain (the passwords of the database URLs in use).
static SECRETS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Remembers a database URL's password, so that [`printable`] hides it.
pub fn keep_secret(url: &crate::dburl::DatabaseUrl) {
    if let Some(secret) = url.password().filter(|s| s.len() >= 2) {
        SECRETS
            .lock()
            .expect("not poisoned")
            .push(secret.to_owned());
    }
}

/// [`one_line`] with every remembered secret replaced by `****`.
pub fn printable(error: &(dyn std::error::Error + 'static)) -> String {
    let secrets = SECRETS.lock().expect("not poisoned");
    (secrets.iter()).fold(one_line(error), |m, s| m.replace(s.as_str(), "****"))
}

use crate::text::chain;
pub use crate::text::one_line;

/// The exit code for an error chain: the first cause that knows its code (a library error, or
/// a driver error through its [`Fault`]), else [`exit_code::ERROR`].
pub fn exit_code_of(error: &(dyn std::error::Error + 'static)) -> u8 {
    for cause in chain(error) {
        if let Some(e) = cause.downcast_ref::<Error>() {
            return e.exit_code();
        }
        if let Some(e) = cause.downcast_ref::<sqlx::Error>() {
            return fault_exit_code(Fault::of_sqlx(e));
        }
        if let Some(e) = cause.downcast_ref::<mongodb::error::Error>() {
            return fault_exit_code(Fault::of_mongo(e));
        }
    }
    exit_code::ERROR
}

/// The exit code for a command that ends on a database fault.
fn fault_exit_code(fault: Fault) -> u8 {
    match fault {
        Fault::Unreachable | Fault::Lost | Fault::Auth => exit_code::CONNECT,
        Fault::LockBusy => exit_code::LOCK_BUSY,
        Fault::Canceled | Fault::Definition | Fault::Refused | Fault::Statement => exit_code::ERROR,
    }
}

/// A lock that stayed busy, as the database said it (`55P03`): what a short-lock step retries.
impl crate::db::retry::MaybeLockBusy for Error {
    fn is_lock_busy(&self) -> bool {
        matches!(self, Error::Db(e) if e.fault() == Fault::LockBusy)
    }
}

impl ExitStatus for Error {
    fn exit_code(&self) -> u8 {
        match self {
            Error::Config(crate::config::ConfigError::Exists { .. }) => exit_code::REFUSED,
            Error::Config(_)
            | Error::Name(_)
            | Error::Area(_)
            | Error::Io { .. }
            | Error::NotConfigured(_)
            | Error::SchemaMissing(_)
            | Error::Destination(_)
            | Error::Usage(_)
            | Error::Unsupported(_)
            | Error::Data { .. } => exit_code::ERROR,
            Error::LockBusy(_) => exit_code::LOCK_BUSY,
            Error::Refused(_) => exit_code::REFUSED,
            Error::CheckFailed(_) => exit_code::CHECK_FAILED,
            Error::Interrupted(_) => exit_code::INTERRUPTED,
            Error::Db(e) => fault_exit_code(e.fault()),
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
            one_line(e.as_ref()),
            "requeue on public.outbox: requeueing: error communicating with database: connection reset by peer"
        );
        assert_eq!(exit_code_of(e.as_ref()), exit_code::CONNECT);
        let inner = e
            .downcast_ref::<Error>()
            .expect("the typed error is in the chain");
        assert!(matches!(
            inner,
            Error::Db(DbError::Postgres {
                source: sqlx::Error::Io(_),
                ..
            })
        ));
        assert_eq!(inner.sqlstate(), None);
    }

    #[test]
    fn an_empty_what_leaves_the_drivers_message() {
        assert_eq!(
            Error::pg("", lost()).to_string(),
            "error communicating with database: connection reset by peer"
        );
        assert_eq!(Error::Usage("ours".into()).exit_code(), exit_code::ERROR);
    }
}
