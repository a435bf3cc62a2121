//! The outbox in memory: a third backend, for the library and the tests (no URL scheme reaches
//! it). [`MemoryOutbox`] is the table; each [`MemoryStore`] handed out by it is one connection.
//! It keeps the contract the real stores keep (the contract story runs on all three):
//!
//! - under retain every call commits on its own: a claim moves rows to `processing` at once;
//! - under consume a pass is a transaction: claimed rows are locked (another handle's claim skips
//!   them, as `FOR UPDATE SKIP LOCKED` does), marks apply to this handle's view, and a rollback
//!   undoes them and unlocks;
//! - claim order is `(created_at, id)`; strict key order holds a row back while an earlier row
//!   of its (tenant, key) is neither published nor due (parked, scheduled, in flight).
//!
//! No HLC ordering, no delivery log and no table sink: what needs a database stays with the
//! real stores. Every statement-like step is recorded ([`Table::statements`]), so tests can
//! read what the engine asked for.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use chrono::{DateTime, Utc};
use uuid::Uuid;

mod ops;

use super::ops::RowView;
use super::{Claimed, PassTarget, RelayStore, StoreError};
use crate::db::fault::Fault;
use crate::model::{KeyOrder, Message, OutboxRow, Status, Storage};
use crate::target::QualifiedName;

/// One row of the in-memory outbox.
#[derive(Debug, Clone)]
pub struct MemRow {
    pub row: OutboxRow,
    pub status: Status,
    pub available_at: Option<DateTime<Utc>>,
    pub processing_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    /// The handle whose open consume pass holds this row.
    locked_by: Option<u64>,
}

impl MemRow {
    /// The row whole, as PostgreSQL's `to_jsonb` of it names its columns.
    pub fn whole(&self) -> serde_json::Value {
        let r = &self.row;
        serde_json::json!({
            "id": r.id, "outbox_route": r.route, "event_id": r.event_id,
            "event_type": r.event_type, "tenant_id": r.tenant_id,
            "execution_id": r.execution_id, "correlation_id": r.correlation_id,
            "causation_id": r.causation_id, "occurred_at": r.occurred_at,
            "payload": serde_json::from_str::<serde_json::Value>(&r.payload).unwrap_or_default(),
            "status": self.status.as_str(), "created_at": r.created_at,
            "attempts": r.attempts, "ordering_key": r.ordering_key,
            "available_at": self.available_at, "processing_at": self.processing_at,
            "last_error": self.last_error, "hlc": r.hlc, "traceparent": r.traceparent,
        })
    }

    /// A pending row, never tried.
    pub fn pending(row: OutboxRow) -> Self {
        Self {
            row,
            status: Status::Pending,
            available_at: None,
            processing_at: None,
            last_error: None,
            locked_by: None,
        }
    }

    fn due(&self, now: DateTime<Utc>) -> bool {
        self.status == Status::Pending && self.available_at.is_none_or(|a| a <= now)
    }

    fn view(&self) -> RowView {
        RowView {
            id: self.row.id,
            event_id: self.row.event_id,
            route: self.row.route.clone(),
            event_type: self.row.event_type.clone(),
            tenant_id: self.row.tenant_id,
            ordering_key: self.row.ordering_key.clone(),
            status: self.status.as_str().to_owned(),
            attempts: self.row.attempts,
            available_at: self.available_at,
            created_at: self.row.created_at,
            last_error: self.last_error.clone(),
        }
    }

    fn order(&self) -> (DateTime<Utc>, Uuid) {
        (self.row.created_at, self.row.id)
    }

    /// A row with a non-empty ordering key, which strict order serialises.
    fn keyed(&self) -> Option<&str> {
        self.row.ordering_key.as_deref().filter(|k| !k.is_empty())
    }
}

/// The table every handle shares.
#[derive(Debug, Default)]
pub struct Table {
    pub rows: Vec<MemRow>,
    /// Every step the handles ran, in order ("begin", "claim", "published 3", …).
    pub statements: Vec<String>,
    /// Fails the next `mark_published` with a statement timeout.
    pub fail_next_mark: bool,
    next_handle: u64,
}

/// The in-memory outbox: cheap to clone (one shared table).
#[derive(Debug, Clone)]
pub struct MemoryOutbox {
    table: Arc<Mutex<Table>>,
    storage: Storage,
    key_order: KeyOrder,
    /// Processing rows older than this count as stale in summaries (as `PgOps` reports them).
    pub reclaim_stale_after: Option<Duration>,
}

impl MemoryOutbox {
    pub fn new(storage: Storage, key_order: KeyOrder) -> Self {
        Self {
            table: Arc::default(),
            storage,
            key_order,
            reclaim_stale_after: None,
        }
    }

    /// The table, locked: read or change rows directly (tests), read the statements.
    pub fn table(&self) -> MutexGuard<'_, Table> {
        self.table
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A new connection to this outbox.
    pub fn store(&self) -> MemoryStore {
        let handle = {
            let mut t = self.table();
            t.next_handle += 1;
            t.next_handle
        };
        MemoryStore {
            outbox: self.clone(),
            handle,
            undo: Vec::new(),
        }
    }

    /// Appends a pending row as it is (tests choose ids and times).
    pub fn insert(&self, row: OutboxRow) {
        self.table().rows.push(MemRow::pending(row));
    }

    fn consume(&self) -> bool {
        self.storage == Storage::Consume
    }
}

/// One connection to a [`MemoryOutbox`]: a [`RelayStore`] and an [`OpsStore`](crate::store::ops::OpsStore).
#[derive(Debug)]
pub struct MemoryStore {
    outbox: MemoryOutbox,
    handle: u64,
    /// Under consume, the rows the open pass changed or deleted, as they were before.
    undo: Vec<MemRow>,
}

impl MemoryStore {
    /// The outbox this handle is connected to.
    pub fn outbox(&self) -> &MemoryOutbox {
        &self.outbox
    }

    /// Shorthand for `self.outbox().table()`.
    pub fn table(&self) -> MutexGuard<'_, Table> {
        self.outbox.table()
    }

    /// Of `ids`, those the claim made at `claimed_at` still holds (consume: every one, locked
    /// by the pass's transaction).
    fn held(&self, ids: &[Uuid], claimed_at: DateTime<Utc>) -> Vec<Uuid> {
        if self.outbox.consume() {
            return ids.to_vec();
        }
        let t = self.table();
        (t.rows.iter())
            .filter(|r| r.status == Status::Processing && r.processing_at == Some(claimed_at))
            .filter(|r| ids.contains(&r.row.id))
            .map(|r| r.row.id)
            .collect()
    }

    fn in_target(r: &MemRow, target: &PassTarget) -> bool {
        r.row.route == target.route && target.tenant.is_none_or(|t| r.row.tenant_id == Some(t))
    }

    /// Applies `change` to each row of `ids` (in this pass's view), remembering the old state
    /// under consume; `delete` removes the row instead. Returns how many rows it touched.
    fn each(
        &mut self,
        target: &PassTarget,
        ids: &[Uuid],
        delete: bool,
        change: impl Fn(&mut MemRow),
    ) -> u64 {
        let consume = self.outbox.consume();
        let table = self.outbox.table.clone();
        let mut t = table.lock().unwrap_or_else(|p| p.into_inner());
        let mut touched = 0;
        for id in ids {
            let Some(i) = t
                .rows
                .iter()
                .position(|r| r.row.id == *id && Self::in_target(r, target))
            else {
                continue;
            };
            if consume {
                self.undo.push(t.rows[i].clone());
            }
            if delete {
                t.rows.remove(i);
            } else {
                change(&mut t.rows[i]);
            }
            touched += 1;
        }
        touched
    }

    fn log(&self, statement: String) {
        self.table().statements.push(statement);
    }

    /// Ends the pass: unlocks this handle's rows; `undo` puts back what it changed.
    fn end_pass(&mut self, undo: bool) {
        let changes = std::mem::take(&mut self.undo);
        let mut t = self.table();
        if undo {
            for old in changes.into_iter().rev() {
                match t.rows.iter_mut().find(|r| r.row.id == old.row.id) {
                    Some(r) => *r = old,
                    None => t.rows.push(old),
                }
            }
            // a deleted row comes back where it was
            t.rows.sort_by_key(MemRow::order);
        }
        for r in t.rows.iter_mut() {
            if r.locked_by == Some(self.handle) {
                r.locked_by = None;
            }
        }
    }
}

impl RelayStore for MemoryStore {
    async fn begin_pass(&mut self, _target: &PassTarget) -> Result<(), StoreError> {
        self.log("begin".into());
        self.undo.clear();
        Ok(())
    }

    async fn reclaim(
        &mut self,
        target: &PassTarget,
        older_than: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let mut t = self.table();
        let mut n = 0;
        for r in t.rows.iter_mut().filter(|r| {
            Self::in_target(r, target)
                && r.status == Status::Processing
                && r.processing_at.is_some_and(|at| at < older_than)
        }) {
            r.status = Status::Pending;
            r.processing_at = None;
            n += 1;
        }
        Ok(n)
    }

    async fn claim(
        &mut self,
        target: &PassTarget,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<Claimed, StoreError> {
        let consume = self.outbox.consume();
        let strict = self.outbox.key_order == KeyOrder::Strict;
        let me = self.handle;
        let mut t = self.table();
        t.statements.push("claim".into());
        let free = |r: &MemRow| r.locked_by.is_none_or(|h| h == me);
        let mut order: Vec<usize> = (0..t.rows.len())
            .filter(|&i| {
                let r = &t.rows[i];
                Self::in_target(r, target) && r.due(now) && free(r)
            })
            .collect();
        order.sort_by_key(|&i| t.rows[i].order());
        if strict {
            // a row waits while an earlier row of its key is neither published nor claimable now
            order.retain(|&i| {
                let me_row = &t.rows[i];
                me_row.keyed().is_none()
                    || !t.rows.iter().any(|e| {
                        e.row.order_key() == me_row.row.order_key()
                            && e.row.route == me_row.row.route
                            && e.order() < me_row.order()
                            && e.status != Status::Published
                            && !(e.due(now) && free(e))
                    })
            });
        }
        order.truncate(limit as usize);
        let candidates = order.len();
        let mut rows = Vec::with_capacity(order.len());
        for i in order {
            let r = &mut t.rows[i];
            if consume {
                r.locked_by = Some(me);
            } else {
                r.status = Status::Processing;
                r.processing_at = Some(now);
            }
            rows.push(r.row.clone());
        }
        Ok(Claimed {
            rows,
            candidates,
            parked: 0,
        })
    }

    async fn mark_published(
        &mut self,
        target: &PassTarget,
        ids: &[Uuid],
        _at: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        {
            let mut t = self.table();
            t.statements.push(format!("published {}", ids.len()));
            if std::mem::take(&mut t.fail_next_mark) {
                return Err(StoreError {
                    context: "marking published",
                    message: "canceling statement due to statement timeout".into(),
                    fault: Fault::Canceled,
                });
            }
        }
        let consume = self.outbox.consume();
        Ok(self.each(target, ids, consume, |r| {
            r.status = Status::Published;
            r.processing_at = None;
        }))
    }

    async fn mark_retry(
        &mut self,
        target: &PassTarget,
        ids: &[Uuid],
        attempts: i32,
        available_at: DateTime<Utc>,
        error: &str,
        claimed_at: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        self.log(format!("retry {} at {attempts}: {error}", ids.len()));
        let ids = self.held(ids, claimed_at);
        Ok(self.each(target, &ids, false, |r| {
            r.status = Status::Pending;
            r.row.attempts = attempts;
            r.available_at = Some(available_at);
            r.processing_at = None;
            r.last_error = Some(error.into());
        }))
    }

    async fn mark_failed(
        &mut self,
        target: &PassTarget,
        ids: &[Uuid],
        error: &str,
        claimed_at: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        self.log(format!("failed {}: {error}", ids.len()));
        let ids = self.held(ids, claimed_at);
        Ok(self.each(target, &ids, false, |r| {
            r.status = Status::Failed;
            r.processing_at = None;
            r.last_error = Some(error.into());
        }))
    }

    async fn release(
        &mut self,
        target: &PassTarget,
        ids: &[Uuid],
        claimed_at: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        self.log(format!("release {}", ids.len()));
        if self.outbox.consume() {
            // the rollback or commit unlocks them
            return Ok(ids.len() as u64);
        }
        let ours = self.held(ids, claimed_at);
        Ok(self.each(target, &ours, false, |r| {
            r.status = Status::Pending;
            r.processing_at = None;
        }))
    }

    async fn insert_sink(
        &mut self,
        table: &QualifiedName,
        _messages: &[&Message],
        _at: DateTime<Utc>,
        _guarded: bool,
    ) -> Result<u64, StoreError> {
        Err(StoreError::other(
            crate::store::INSERTING_INTO_TABLE,
            format!("the memory store has no table {table}"),
        ))
    }

    async fn commit_pass(&mut self) -> Result<(), StoreError> {
        self.log("commit".into());
        self.end_pass(false);
        Ok(())
    }

    async fn rollback_pass(&mut self) {
        self.log("rollback".into());
        self.end_pass(true);
    }

    async fn abandon(&mut self) {
        self.rollback_pass().await;
    }

    async fn probe(&mut self) -> Result<(), StoreError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests;
