//! What operators do to an outbox besides relaying it: summarise, list, find an event,
//! requeue or discard failed rows, stage events, read the HLC checkpoint. The types here are
//! what the commands print; each backend implements [`OpsStore`].

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use uuid::Uuid;

use crate::hlc::HlcTimestamp;

/// Counts for one route (and tenant).
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct RouteSummary {
    pub route: String,
    pub tenant: Option<Uuid>,
    pub pending_ripe: i64,
    pub pending_scheduled: i64,
    pub processing: i64,
    /// Processing rows older than `reclaim_stale_after` (None when it cannot be known).
    pub processing_stale: Option<i64>,
    pub failed: i64,
    pub oldest_pending: Option<DateTime<Utc>>,
    pub next_retry: Option<DateTime<Utc>>,
    /// attempts → rows, over rows not yet published.
    pub attempts: BTreeMap<i32, i64>,
    pub delivered_last_hour: Option<i64>,
    pub delivered_last_day: Option<i64>,
    /// Keys strict order holds back (read by the relay's metrics endpoint in strict mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocked_keys: Option<i64>,
    /// The route is paused (`outboxctl route pause`), as the relay registry says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paused: Option<crate::fleet::Pause>,
}

impl RouteSummary {
    /// The retried rows by attempts: `1×40 3×2` (rows never tried left out).
    pub fn attempts_seen(&self) -> String {
        let tried = self.attempts.iter().filter(|(a, _)| **a > 0);
        tried
            .map(|(a, n)| format!("{a}×{n}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// `ROUTE (TENANT): PAUSED by … since …: reason`, for a paused route.
    pub fn paused_line(&self) -> Option<String> {
        let tenant = self.tenant.map(|t| format!(" ({t})")).unwrap_or_default();
        (self.paused.as_ref()).map(|p| format!("{}{tenant}: PAUSED {p}", self.route))
    }
}

/// One row as `inspect pending|failed` shows it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct RowView {
    pub id: Uuid,
    pub event_id: Uuid,
    pub route: String,
    pub event_type: String,
    pub tenant_id: Option<Uuid>,
    pub ordering_key: Option<String>,
    pub status: String,
    pub attempts: i32,
    pub available_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub last_error: Option<String>,
}

/// A row's place in the listing order, `(created_at, id)`: what a page resumes after, whether
/// or not that row is still there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct RowPosition {
    pub created_at: DateTime<Utc>,
    pub id: Uuid,
}

impl RowView {
    pub fn position(&self) -> RowPosition {
        RowPosition {
            created_at: self.created_at,
            id: self.id,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ListStatus {
    Pending,
    Failed,
}

impl ListStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ListStatus::Pending => "pending",
            ListStatus::Failed => "failed",
        }
    }
}

/// A key (tenant, ordering key) whose rows wait under strict key order: its first row that is
/// parked, in flight or waiting for a retry, and how many pending rows wait behind it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct BlockedKey {
    pub route: String,
    pub tenant_id: Option<Uuid>,
    pub ordering_key: String,
    pub head: RowView,
    pub waiting: i64,
}

/// Which rows: every filter is optional; results come oldest first (`created_at`, `id`).
#[derive(Debug, Clone)]
pub struct RowFilter {
    pub status: ListStatus,
    pub route: Option<String>,
    pub tenant: Option<Uuid>,
    pub event_type: Option<String>,
    pub older_than: Option<Duration>,
    pub error_contains: Option<String>,
    /// Keyset pagination: rows after this place in `(created_at, id)` order.
    pub after: Option<RowPosition>,
    pub limit: u32,
}

/// Which rows failure groups read.
#[derive(Debug, Clone, Default)]
pub struct ErrorFilter {
    pub route: Option<String>,
    pub tenant: Option<Uuid>,
    pub event_type: Option<String>,
    /// Also rows waiting for a retry, not only parked ones.
    pub retrying: bool,
    /// At most this many rows per range (a sample), or all.
    pub limit: Option<i64>,
}

/// A route's state as `top` shows it at each refresh, read with bounded statements: each
/// count stops at `cap + 1` rows (more than `cap` reads as "cap+").
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Glance {
    pub route: String,
    pub tenant: Option<Uuid>,
    pub ripe: i64,
    pub scheduled: i64,
    pub processing: i64,
    /// Processing rows older than `reclaim_stale_after` (None when it cannot be known).
    pub stale: Option<i64>,
    pub failed: i64,
    /// `created_at` of the oldest row due now, as the claim index finds its heads: the oldest
    /// never-tried row, or the first retry that fell due.
    pub oldest_ripe: Option<DateTime<Utc>>,
}

/// Rows inserted, updated and deleted since statistics began (PostgreSQL's
/// `pg_stat_user_tables`), for rates between two refreshes; they count every writer, forze's
/// relay included, and deletes under consume storage are deliveries.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct Activity {
    pub inserted: i64,
    pub updated: i64,
    pub deleted: i64,
}

/// A delivery-log record.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Delivery {
    pub id: Uuid,
    pub route: String,
    pub tenant_id: Option<Uuid>,
    pub published_at: DateTime<Utc>,
}

/// Where an event is.
#[derive(Debug, Clone, Serialize)]
pub struct EventLocation {
    pub event_id: Uuid,
    pub rows: Vec<RowView>,
    /// `None` when no delivery log is configured.
    pub deliveries: Option<Vec<Delivery>>,
}

/// An event to stage.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub id: Uuid,
    pub event_id: Uuid,
    pub route: String,
    pub event_type: String,
    /// JSON text; validated before it gets here.
    pub payload: String,
    pub ordering_key: Option<String>,
    pub tenant_id: Option<Uuid>,
    pub correlation_id: Option<Uuid>,
    pub causation_id: Option<Uuid>,
    pub execution_id: Option<Uuid>,
    pub traceparent: Option<String>,
    pub occurred_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Staged {
    /// The row staged; `None` for a deduplicated event whose row was not read (the event is
    /// in the outbox already, under a row of its own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    pub event_id: Uuid,
    /// False when `(route, event_id)` was already in the outbox (deduplicated).
    pub inserted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hlc: Option<String>,
}

impl Staged {
    /// An event as staging left it, `id` and `hlc` those it was given: a deduplicated one
    /// names neither (its row and stamp are the ones stored before).
    pub fn new(id: Uuid, event_id: Uuid, inserted: bool, hlc: Option<String>) -> Self {
        Staged {
            id: inserted.then_some(id),
            event_id,
            inserted,
            hlc: hlc.filter(|_| inserted),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckpointRow {
    pub node_key: String,
    /// The packed value as stored (a 64-bit integer: JSON readers that hold numbers as
    /// doubles, jq among them, round it; read `stamp`).
    pub hlc: i64,
    /// The same mark as text, as `emit` prints a stamp and `replay --hlc-from` takes one.
    pub stamp: String,
    pub physical: DateTime<Utc>,
    pub logical: u16,
}

impl CheckpointRow {
    /// A mark as the checkpoint stores it: refused, its row named, when it is not a packed HLC
    /// stamp (negative, past the clock's range, not a whole number): left out, the largest
    /// mark shown would not be the one a new stamp must pass.
    pub fn stored(
        cp: &dyn std::fmt::Display,
        node_key: String,
        hlc: &str,
    ) -> Result<Self, crate::Error> {
        let row = hlc
            .parse()
            .ok()
            .and_then(|h| Self::new(node_key.clone(), h));
        row.ok_or_else(|| crate::Error::Data {
            what: format!(
                "the HLC checkpoint {cp} holds a mark that is not a packed HLC stamp (node_key {node_key:?}: hlc {hlc}): set it to a packed stamp or delete that row; a stamp past a mark it cannot read could go backwards"
            ),
            source: None,
        })
    }

    pub fn new(node_key: String, hlc: i64) -> Option<Self> {
        let t = HlcTimestamp::unpack(hlc).ok()?;
        let physical = DateTime::<Utc>::from_timestamp_millis(i64::try_from(t.physical_ms).ok()?)?;
        Some(Self {
            node_key,
            hlc,
            stamp: t.encode(),
            physical,
            logical: t.logical,
        })
    }
}

/// A failed row to requeue or discard: its id and, when its error chose it (a failure group,
/// `--error-contains`), that error (`Some(None)`: it had none): it is acted on only while it
/// still has it, so that a row requeued meanwhile that failed again otherwise is left alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    pub id: Uuid,
    pub error: Option<Option<String>>,
}

/// What keeps a copy of the rows `discard` deletes (see [`OpsStore::discard`]): each row as
/// JSON text, as the database writes it (PostgreSQL's `jsonb` text keeps every digit of a
/// number a double would round).
pub type Keep<'k> = dyn FnMut(&[String]) -> Result<(), crate::Error> + Send + 'k;

/// The operator's primitives, per backend.
#[expect(
    async_fn_in_trait,
    reason = "the stores are used generically in one runtime; no Send bound is needed"
)]
pub trait OpsStore {
    /// Routes present in the outbox (any status).
    async fn routes(&mut self) -> Result<Vec<String>, crate::Error>;
    /// Routes the delivery log recorded (for `tenant`) since `since`: under consume storage a
    /// drained route is there only. None without a log (MongoDB has none).
    async fn delivered_routes(
        &mut self,
        _since: DateTime<Utc>,
        _tenant: Option<Uuid>,
    ) -> Result<Vec<String>, crate::Error> {
        Ok(Vec::new())
    }
    async fn summary(
        &mut self,
        route: &str,
        tenant: Option<Uuid>,
        now: DateTime<Utc>,
    ) -> Result<RouteSummary, crate::Error>;
    async fn list(
        &mut self,
        filter: &RowFilter,
        now: DateTime<Utc>,
    ) -> Result<Vec<RowView>, crate::Error>;
    async fn find_event(&mut self, event_id: Uuid) -> Result<EventLocation, crate::Error>;
    /// Keys with pending rows behind a row that is failed, processing or not yet due (what
    /// strict key order holds back), most rows waiting first, at most `limit`.
    async fn blocked(
        &mut self,
        route: Option<&str>,
        tenant: Option<Uuid>,
        now: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<BlockedKey>, crate::Error>;
    /// The rows failure groups are made of: `failed` ones and, with `filter.retrying`, pending
    /// rows waiting for a retry (attempted, not yet due again), each with its `last_error`. Read
    /// from the claim index's failed and scheduled ranges only, in no order.
    async fn error_rows(&mut self, filter: &ErrorFilter) -> Result<Vec<RowView>, crate::Error>;
    /// A route's bounded counts for `top` (see [`Glance`]).
    async fn glance(
        &mut self,
        route: &str,
        tenant: Option<Uuid>,
        now: DateTime<Utc>,
        cap: i64,
    ) -> Result<Glance, crate::Error>;
    /// The table's write counters, where the backend keeps them (`None` on MongoDB).
    async fn activity(&mut self) -> Result<Option<Activity>, crate::Error>;
    /// Where row `id` stands in the listing order (`None`: no such row now).
    async fn position_of(&mut self, id: Uuid) -> Result<Option<RowPosition>, crate::Error>;
    /// Which of these row ids are `failed` rows now (of `tenant`'s rows, when given).
    async fn failed_among(
        &mut self,
        ids: &[Uuid],
        tenant: Option<Uuid>,
    ) -> Result<Vec<Uuid>, crate::Error>;
    /// Returns `failed` rows to `pending` (attempts 0, no error, due now); returns the ids changed.
    async fn requeue(&mut self, rows: &[Chosen]) -> Result<Vec<Uuid>, crate::Error>;
    /// Deletes `failed` rows; returns the ids deleted. With `keep`, each row deleted is handed
    /// to it whole (every column, as JSON) before the deletion commits: when it fails, nothing
    /// is deleted.
    async fn discard(
        &mut self,
        rows: &[Chosen],
        keep: Option<&mut Keep<'_>>,
    ) -> Result<Vec<Uuid>, crate::Error>;
    /// Stages events (with HLC stamps and the checkpoint advanced in the same transaction
    /// when HLC ordering is on).
    async fn stage(
        &mut self,
        events: &[NewEvent],
        node_key: &str,
    ) -> Result<Vec<Staged>, crate::Error>;
    async fn checkpoints(&mut self) -> Result<Option<Vec<CheckpointRow>>, crate::Error>;
}
