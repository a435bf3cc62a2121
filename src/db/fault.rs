//! What went wrong with a database, whichever driver said it: a small fault type that the relay
//! (reconnect, "database away") and the exit codes read, instead of driver error types or
//! their text; mapped to exit codes in [`crate::error`]. No I/O.

use super::sqlstate;

/// The kind of a database failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fault {
    /// No connection could be made (refused, unreachable, DNS, timed out while connecting).
    Unreachable,
    /// The connection was lost or cut by the server (I/O error, administrator shutdown,
    /// `idle_in_transaction_session_timeout`): the next use reconnects.
    Lost,
    /// The server refused who we are (password, role, database).
    Auth,
    /// A lock was not available in time (`lock_timeout`, `NOWAIT`).
    LockBusy,
    /// The statement was cancelled (`statement_timeout`, `pg_cancel_backend`).
    Canceled,
    /// The statement does not fit the database's definitions: an object or column it names is
    /// missing, its role lacks a privilege, a type changed (SQLSTATE class 42, and 0A000 for a
    /// cached plan whose result changed).
    Definition,
    /// The database up, it refused the data: a value its type cannot hold, a constraint, a
    /// trigger's `RAISE`, a serialization failure or deadlock (SQLSTATE classes 22, 23, 40 and
    /// P0, and 54000, a value over a limit). What one row brings on itself, unlike a disk or
    /// memory the database lacks.
    Refused,
    /// Anything else: the statement failed with the database up.
    Statement,
}

impl Fault {
    /// The database cannot be reached or the connection is gone: not the statement's fault.
    pub fn is_away(self) -> bool {
        matches!(self, Fault::Unreachable | Fault::Lost)
    }

    /// A connection could not be made, was lost, or was refused for who we are: what exit code
    /// 3 ("cannot connect or authenticate") means.
    pub fn is_connect(self) -> bool {
        matches!(self, Fault::Unreachable | Fault::Lost | Fault::Auth)
    }

    /// From a SQLSTATE.
    pub fn of_sqlstate(code: &str) -> Fault {
        match code {
            sqlstate::INVALID_PASSWORD
            | sqlstate::INVALID_AUTHORIZATION
            | sqlstate::INVALID_CATALOG_NAME => Fault::Auth,
            sqlstate::LOCK_NOT_AVAILABLE => Fault::LockBusy,
            sqlstate::QUERY_CANCELED => Fault::Canceled,
            // connection exceptions, operator intervention (admin shutdown, crash shutdown,
            // cannot connect now, idle session timeout), the idle-in-transaction timeout, and a
            // server that only reads (a standby after a failover: the connection goes, and a
            // new one may reach the primary; the relay's probe waits until one does)
            c if c.starts_with("08") || c.starts_with("57P") || c == "25P03" || c == "25006" => {
                Fault::Lost
            }
            c if c.starts_with("42") || c == "0A000" => Fault::Definition,
            // 54000: a value too large for an index row, say
            c if c == "54000" || ["22", "23", "40", "P0"].iter().any(|k| c.starts_with(k)) => {
                Fault::Refused
            }
            _ => Fault::Statement,
        }
    }

    /// From an sqlx error.
    pub fn of_sqlx(e: &sqlx::Error) -> Fault {
        match e {
            sqlx::Error::Io(_) | sqlx::Error::Tls(_) | sqlx::Error::Protocol(_) => Fault::Lost,
            sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed => Fault::Unreachable,
            // pgbouncer in statement pooling mode says 08P01 and closes the connection, but
            // it refuses every transaction again: not the database away.
            sqlx::Error::Database(db)
                if db.message().contains(super::pg::STATEMENT_POOLING_SAYS) =>
            {
                Fault::Statement
            }
            sqlx::Error::Database(db) => db
                .code()
                .map_or(Fault::Statement, |c| Fault::of_sqlstate(&c)),
            _ => Fault::Statement,
        }
    }

    /// From a MongoDB driver error. A server being shut down, stepping down or unreachable (the
    /// codes the driver itself retries on, and its network and server-selection errors) is the
    /// database away; an authentication failure is [`Fault::Auth`].
    pub fn of_mongo(e: &mongodb::error::Error) -> Fault {
        use mongodb::error::{ErrorKind, WriteFailure};
        /// The driver's retryable codes (not primary, shutting down, host unreachable, …) and
        /// the legacy "not master" (10058).
        const AWAY: [i32; 14] = [
            11600, 11602, 10107, 13435, 13436, 189, 91, 7, 6, 89, 9001, 134, 262, 10058,
        ];
        // a write error's code counts too: a primary stepping down in the middle of a write
        // can answer "not primary" or "interrupted" for the write rather than the command
        let codes: Vec<i32> = match e.kind.as_ref() {
            ErrorKind::ServerSelection { .. } | ErrorKind::DnsResolve { .. } => {
                return Fault::Unreachable;
            }
            ErrorKind::Io(_) | ErrorKind::ConnectionPoolCleared { .. } => return Fault::Lost,
            ErrorKind::Authentication { .. } => return Fault::Auth,
            ErrorKind::Command(c) => vec![c.code],
            ErrorKind::Write(WriteFailure::WriteConcernError(w)) => vec![w.code],
            ErrorKind::Write(WriteFailure::WriteError(w)) => vec![w.code],
            ErrorKind::InsertMany(m) => (m.write_concern_error.iter().map(|w| w.code))
                .chain(m.write_errors.iter().flatten().map(|w| w.code))
                .collect(),
            _ => Vec::new(),
        };
        if codes.iter().any(|c| AWAY.contains(c)) || e.contains_label("RetryableWriteError") {
            Fault::Lost
        } else {
            Fault::Statement
        }
    }

    /// From a tokio-postgres error.
    pub fn of_tokio_postgres(e: &tokio_postgres::Error) -> Fault {
        if let Some(db) = e.as_db_error() {
            if db.message().contains(super::pg::STATEMENT_POOLING_SAYS) {
                return Fault::Statement;
            }
            return Fault::of_sqlstate(db.code().code());
        }
        if e.is_closed() {
            return Fault::Lost;
        }
        // an I/O error somewhere in the chain: the connection is gone
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            if s.is::<std::io::Error>() {
                return Fault::Lost;
            }
            source = s.source();
        }
        Fault::Statement
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlstates_map_to_faults() {
        assert_eq!(Fault::of_sqlstate("57P01"), Fault::Lost, "admin shutdown");
        assert_eq!(Fault::of_sqlstate("08006"), Fault::Lost);
        assert_eq!(
            Fault::of_sqlstate("25P03"),
            Fault::Lost,
            "idle in transaction"
        );
        assert_eq!(Fault::of_sqlstate("55P03"), Fault::LockBusy);
        assert_eq!(Fault::of_sqlstate("57014"), Fault::Canceled);
        assert_eq!(Fault::of_sqlstate("28P01"), Fault::Auth);
        assert_eq!(Fault::of_sqlstate("23514"), Fault::Refused, "a check");
        assert_eq!(Fault::of_sqlstate("22001"), Fault::Refused, "too long");
        assert_eq!(Fault::of_sqlstate("P0001"), Fault::Refused, "a RAISE");
        assert_eq!(Fault::of_sqlstate("40P01"), Fault::Refused, "deadlock");
        assert_eq!(Fault::of_sqlstate("53100"), Fault::Statement, "disk full");
        assert_eq!(Fault::of_sqlstate("XX000"), Fault::Statement);
        assert_eq!(
            Fault::of_sqlstate("42883"),
            Fault::Definition,
            "no such function"
        );
        assert_eq!(
            Fault::of_sqlstate("42501"),
            Fault::Definition,
            "no privilege"
        );
        assert!(Fault::Lost.is_away() && Fault::Unreachable.is_away());
        assert!(!Fault::Canceled.is_away());
    }

    /// A driver error of a kind, from the server's reply as the driver reads it.
    fn mongo(kind: mongodb::error::ErrorKind) -> mongodb::error::Error {
        kind.into()
    }

    fn reply<T: serde::de::DeserializeOwned>(code: i32) -> T {
        let reply = mongodb::bson::doc! { "code": code, "index": 0, "errmsg": "from the server" };
        mongodb::bson::from_document(reply).unwrap()
    }

    #[test]
    fn a_stepping_down_mongod_is_away_however_the_write_reports_it() {
        use mongodb::error::{ErrorKind, InsertManyError, WriteFailure};
        let not_primary = 10107;
        let interrupted = 11602;
        let legacy_not_master = 10058;
        let duplicate_key = 11000;
        assert_eq!(
            Fault::of_mongo(&mongo(ErrorKind::Command(reply(not_primary)))),
            Fault::Lost
        );
        assert_eq!(
            Fault::of_mongo(&mongo(ErrorKind::Command(reply(legacy_not_master)))),
            Fault::Lost
        );
        let write = |code| ErrorKind::Write(WriteFailure::WriteError(reply(code)));
        assert_eq!(Fault::of_mongo(&mongo(write(interrupted))), Fault::Lost);
        assert_eq!(
            Fault::of_mongo(&mongo(write(duplicate_key))),
            Fault::Statement
        );
        let insert = |codes: &[i32]| {
            let mut m: InsertManyError =
                mongodb::bson::from_document(mongodb::bson::doc! {}).unwrap();
            m.write_errors = Some(codes.iter().map(|&c| reply(c)).collect());
            ErrorKind::InsertMany(m)
        };
        assert_eq!(
            Fault::of_mongo(&mongo(insert(&[duplicate_key, not_primary]))),
            Fault::Lost
        );
        assert_eq!(
            Fault::of_mongo(&mongo(insert(&[duplicate_key]))),
            Fault::Statement
        );
    }
}
