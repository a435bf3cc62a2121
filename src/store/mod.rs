//! The store trait the relay is written against: a few primitives (claim, mark, retry, fail,
//! reclaim, release, commit) that each backend implements with its own statements, so the
//! relay's algorithm exists once. `postgres` implements it with sqlx, `mongo` with the MongoDB
//! driver; `backend` is the switch between them, chosen once, and `any` how a command
//! reaches the outboxes on it.

pub mod any;
pub mod backend;
pub mod memory;
pub mod mongo;
pub mod ops;
pub mod postgres;
pub mod registry;
pub mod replay;
pub mod wake;

use chrono::{DateTime, Utc};
use thiserror::Error;
use uuid::Uuid;

use crate::db::fault::Fault;
use crate::model::{Message, OutboxRow};
use crate::target::QualifiedName;

/// The step a `postgres-table:` destination's insert fails as.
pub const INSERTING_INTO_TABLE: &str = "inserting into the destination table";

/// The context of a release's error ([`RelayStore::release`]).
pub const RELEASING: &str = "releasing rows";

/// A store step that failed: which step (named as the storage does it: "deleting the delivered
/// rows", not "marking published", under consume), the driver's message, and its [`Fault`].
#[derive(Debug, Error)]
#[error("{context}: {message}")]
pub struct StoreError {
    pub context: &'static str,
    pub message: String,
    pub fault: Fault,
}

impl StoreError {
    pub fn pg(context: &'static str, e: &sqlx::Error) -> Self {
        Self {
            context,
            message: crate::db::pg_message(e),
            fault: Fault::of_sqlx(e),
        }
    }

    pub fn tokio_pg(context: &'static str, e: &tokio_postgres::Error) -> Self {
        Self {
            context,
            message: crate::db::pgclient::message(e),
            fault: Fault::of_tokio_postgres(e),
        }
    }

    /// A failure that is not the database's (a relation that cannot be resolved, a row that
    /// cannot be read).
    pub fn other(context: &'static str, message: impl Into<String>) -> Self {
        Self {
            context,
            message: message.into(),
            fault: Fault::Statement,
        }
    }

    /// The connection is gone (or never came): the store reconnects before the next pass.
    pub fn connection_lost(&self) -> bool {
        self.fault.is_away()
    }
}

/// Which rows a pass serves.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PassTarget {
    pub route: String,
    pub tenant: Option<Uuid>,
}

impl std::fmt::Display for PassTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.tenant {
            Some(t) => write!(f, "{} (tenant {t})", self.route),
            None => f.write_str(&self.route),
        }
    }
}

/// What a claim returned: the rows (in claim order), and how many candidates it looked at
/// before strict key order held some back (a claim is short when `candidates < limit`).
#[derive(Debug, Default)]
pub struct Claimed {
    pub rows: Vec<OutboxRow>,
    pub candidates: usize,
    /// Claimed documents that could not be read, parked as `failed` by the store.
    pub parked: usize,
}

/// The primitives of a relay pass. Under consume storage everything between `begin_pass`
/// and `commit_pass` is one transaction; under retain each call commits on its own.
#[expect(
    async_fn_in_trait,
    reason = "the stores are used generically in one runtime; no Send bound is needed"
)]
pub trait RelayStore {
    /// Opens a pass (a transaction with the pass timeouts under consume storage).
    async fn begin_pass(&mut self, target: &PassTarget) -> Result<(), StoreError>;
    /// Returns stale `processing` rows to `pending`; returns how many.
    async fn reclaim(
        &mut self,
        target: &PassTarget,
        older_than: DateTime<Utc>,
    ) -> Result<u64, StoreError>;
    async fn claim(
        &mut self,
        target: &PassTarget,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<Claimed, StoreError>;
    /// Marks published rows (consume: deletes them, logging to the delivery log if configured).
    async fn mark_published(
        &mut self,
        target: &PassTarget,
        ids: &[Uuid],
        at: DateTime<Utc>,
    ) -> Result<u64, StoreError>;
    /// Schedules rows for a retry. Under retain, as [`RelayStore::release`] and
    /// [`RelayStore::mark_failed`], only rows still held by the claim made at `claimed_at`
    /// (the `now` it was given, which it wrote to `processing_at`): a row that reclaim
    /// returned meanwhile and another relay claimed since is that relay's, and stays as it
    /// is (put back to pending or parked, that relay's mark would miss it). Returns how many
    /// rows it changed.
    async fn mark_retry(
        &mut self,
        target: &PassTarget,
        ids: &[Uuid],
        attempts: i32,
        available_at: DateTime<Utc>,
        error: &str,
        claimed_at: DateTime<Utc>,
    ) -> Result<u64, StoreError>;
    /// Parks rows (`failed`), those the claim made at `claimed_at` still holds (retain).
    async fn mark_failed(
        &mut self,
        target: &PassTarget,
        ids: &[Uuid],
        error: &str,
        claimed_at: DateTime<Utc>,
    ) -> Result<u64, StoreError>;
    /// Returns claimed rows to `pending` untouched (retain: rows held back or not reached),
    /// those the claim made at `claimed_at` still holds.
    async fn release(
        &mut self,
        target: &PassTarget,
        ids: &[Uuid],
        claimed_at: DateTime<Utc>,
    ) -> Result<u64, StoreError>;
    /// Inserts messages into a table in the same database, inside the pass (its error's
    /// context: [`INSERTING_INTO_TABLE`]). `guarded`: in a savepoint of its own, sent now, so
    /// that under consume a refusal leaves the pass's transaction usable (otherwise the insert
    /// may wait for the pass's `COMMIT`, where a refusal rolls the whole pass back).
    async fn insert_sink(
        &mut self,
        table: &QualifiedName,
        messages: &[&Message],
        at: DateTime<Utc>,
        guarded: bool,
    ) -> Result<u64, StoreError>;
    async fn commit_pass(&mut self) -> Result<(), StoreError>;
    /// Rolls the pass back (consume: every claimed row is pending again). Never fails loudly.
    async fn rollback_pass(&mut self);
    /// A pass in progress was cut (the shutdown drain's time is over): stop what may still run
    /// on the server, which dropping the future does not, and forget the connection.
    async fn abandon(&mut self);
    /// Whether the database answers now: (re)connects if need be and runs a trivial statement.
    /// The relay asks while the database is away, instead of failing passes.
    async fn probe(&mut self) -> Result<(), StoreError>;
    /// Who holds `target`'s tables locked against the pass (an `ALTER TABLE` or `LOCK TABLE`
    /// left open), in words, asked after a pass its statement or lock limit cut; `None` when
    /// no one does now or the store cannot tell.
    async fn lock_holders(&mut self, _target: &PassTarget) -> Option<String> {
        None
    }
    /// How long a consume pass may publish at most, when the store knows a bound stricter than
    /// the relay's `pass_deadline` (a session's own idle-in-transaction limit, which would end
    /// the session in the middle of a longer one).
    fn publish_window(&self) -> Option<std::time::Duration> {
        None
    }
}
