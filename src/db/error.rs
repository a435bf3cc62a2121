//! The database floor's error: what could not be done on which database, with the driver's
//! error as its source where there is one. The top-level [`crate::Error`] wraps it; exit codes
//! are chosen there, from [`DbError::fault`].

use super::fault::Fault;

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The server could not be reached, or refused the credentials.
    #[error("cannot connect to {target}: {reason}")]
    Connect { target: String, reason: String },
    /// A connection was made but could not be used (the server said no for another reason).
    #[error("cannot connect to {target}: {reason}")]
    Unusable { target: String, reason: String },
    /// The database URL does not parse.
    #[error("invalid database URL {target}: {reason}")]
    BadUrl { target: String, reason: String },
    /// TLS could not be set up as the URL asks (a root certificate that cannot be read, …).
    #[error("{0}")]
    Tls(String),
    /// A PostgreSQL statement or connection failed: what outboxctl was doing, and the
    /// driver's error (its message with a hint on what to do).
    #[error("{}", joined(what, super::pg_message(source)))]
    Postgres {
        what: String,
        #[source]
        source: sqlx::Error,
    },
    /// A statement on the relay's own PostgreSQL client (tokio-postgres: the hot path and the
    /// heartbeat) failed: what outboxctl was doing, and the driver's error.
    #[error("{}", joined(what, super::pgclient::message(source)))]
    PgClient {
        what: String,
        #[source]
        source: std::sync::Arc<tokio_postgres::Error>,
    },
    /// A MongoDB command failed: what outboxctl was doing, and the driver's error in
    /// outboxctl's words (not a source of the chain: the driver's own text is a dump of its
    /// kind, labels and the server's raw reply).
    #[error("{}", joined(what, super::first_line(&super::mongo_message(driver))))]
    Mongo {
        what: String,
        driver: mongodb::error::Error,
    },
}

impl DbError {
    /// What kind of failure this is, for the relay (reconnect, database away) and exit codes.
    pub fn fault(&self) -> Fault {
        match self {
            DbError::Connect { .. } => Fault::Unreachable,
            DbError::Unusable { .. } | DbError::BadUrl { .. } | DbError::Tls(_) => Fault::Statement,
            DbError::Postgres { source, .. } => Fault::of_sqlx(source),
            DbError::PgClient { source, .. } => Fault::of_tokio_postgres(source),
            DbError::Mongo { driver, .. } => Fault::of_mongo(driver),
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
