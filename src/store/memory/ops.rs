//! The memory store's operator side: the counts, lists and changes the commands make, read
//! from the shared table as the real stores' statements would.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{MemRow, MemoryOutbox, MemoryStore, Table};
use crate::model::{OutboxRow, Status};
use crate::store::ops::{
    Activity, BlockedKey, CheckpointRow, Chosen, ErrorFilter, EventLocation, Glance, ListStatus,
    NewEvent, OpsStore, RouteSummary, RowFilter, RowPosition, RowView, Staged,
};

/// Rows of a route (and tenant), any status.
fn of_route<'a>(
    t: &'a Table,
    route: &'a str,
    tenant: Option<Uuid>,
) -> impl Iterator<Item = &'a MemRow> + 'a {
    t.rows
        .iter()
        .filter(move |r| r.row.route == route && tenant.is_none_or(|x| r.row.tenant_id == Some(x)))
}

fn count(rows: impl Iterator<Item = impl Sized>) -> i64 {
    i64::try_from(rows.count()).unwrap_or(i64::MAX)
}

impl MemoryOutbox {
    fn stale_cutoff(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.reclaim_stale_after
            .and_then(|d| chrono::Duration::from_std(d).ok())
            .map(|d| now - d)
    }
}

/// Whether `r` is one of `rows` as a requeue or discard takes it: failed, with the error it was
/// chosen by (when one).
fn chosen(rows: &[Chosen], r: &super::MemRow) -> bool {
    r.status == Status::Failed
        && (rows.iter())
            .any(|c| c.id == r.row.id && c.error.as_ref().is_none_or(|e| r.last_error == *e))
}

impl OpsStore for MemoryStore {
    async fn routes(&mut self) -> Result<Vec<String>, crate::Error> {
        let t = self.table();
        let routes: BTreeSet<&str> = t.rows.iter().map(|r| r.row.route.as_str()).collect();
        Ok(routes.into_iter().map(str::to_owned).collect())
    }

    async fn summary(
        &mut self,
        route: &str,
        tenant: Option<Uuid>,
        now: DateTime<Utc>,
    ) -> Result<RouteSummary, crate::Error> {
        let cutoff = self.outbox.stale_cutoff(now);
        let t = self.table();
        let rows = || of_route(&t, route, tenant);
        let pending = || rows().filter(|r| r.status == Status::Pending);
        let processing = || rows().filter(|r| r.status == Status::Processing);
        let mut attempts = std::collections::BTreeMap::new();
        for r in rows().filter(|r| r.status != Status::Published) {
            *attempts.entry(r.row.attempts).or_insert(0) += 1;
        }
        Ok(RouteSummary {
            route: route.to_owned(),
            tenant,
            pending_ripe: count(pending().filter(|r| r.due(now))),
            pending_scheduled: count(pending().filter(|r| !r.due(now))),
            processing: count(processing()),
            processing_stale: cutoff
                .map(|c| count(processing().filter(|r| r.processing_at.is_some_and(|at| at < c)))),
            failed: count(rows().filter(|r| r.status == Status::Failed)),
            oldest_pending: pending().map(|r| r.row.created_at).min(),
            next_retry: pending()
                .filter(|r| !r.due(now))
                .filter_map(|r| r.available_at)
                .min(),
            attempts,
            delivered_last_hour: None,
            delivered_last_day: None,
            blocked_keys: None,
            paused: None,
        })
    }

    async fn list(
        &mut self,
        filter: &RowFilter,
        now: DateTime<Utc>,
    ) -> Result<Vec<RowView>, crate::Error> {
        let status = match filter.status {
            ListStatus::Pending => Status::Pending,
            ListStatus::Failed => Status::Failed,
        };
        let before = filter
            .older_than
            .and_then(|d| chrono::Duration::from_std(d).ok())
            .map(|d| now - d);
        let t = self.table();
        let after = filter.after.map(|a| (a.created_at, a.id));
        let mut rows: Vec<&MemRow> = t
            .rows
            .iter()
            .filter(|r| {
                r.status == status
                    && filter.route.as_ref().is_none_or(|x| &r.row.route == x)
                    && filter.tenant.is_none_or(|x| r.row.tenant_id == Some(x))
                    && filter
                        .event_type
                        .as_ref()
                        .is_none_or(|x| &r.row.event_type == x)
                    && before.is_none_or(|b| r.row.created_at < b)
                    && filter.error_contains.as_ref().is_none_or(|x| {
                        r.last_error
                            .as_deref()
                            .is_some_and(|e| e.contains(x.as_str()))
                    })
                    && after.is_none_or(|a| r.order() > a)
            })
            .collect();
        rows.sort_by_key(|r| r.order());
        rows.truncate(filter.limit as usize);
        Ok(rows.into_iter().map(MemRow::view).collect())
    }

    async fn find_event(&mut self, event_id: Uuid) -> Result<EventLocation, crate::Error> {
        let t = self.table();
        let mut rows: Vec<&MemRow> = t
            .rows
            .iter()
            .filter(|r| r.row.event_id == event_id)
            .collect();
        rows.sort_by_key(|r| r.order());
        Ok(EventLocation {
            event_id,
            rows: rows.into_iter().map(MemRow::view).collect(),
            deliveries: None,
        })
    }

    async fn blocked(
        &mut self,
        route: Option<&str>,
        tenant: Option<Uuid>,
        now: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<BlockedKey>, crate::Error> {
        let t = self.table();
        let mut ordered: Vec<&MemRow> = t
            .rows
            .iter()
            .filter(|r| {
                r.keyed().is_some()
                    && route.is_none_or(|x| r.row.route == x)
                    && tenant.is_none_or(|x| r.row.tenant_id == Some(x))
            })
            .collect();
        ordered.sort_by_key(|r| r.order());
        let mut heads: Vec<BlockedKey> = Vec::new();
        let mut seen = BTreeSet::new();
        for head in &ordered {
            let blocking = matches!(head.status, Status::Failed | Status::Processing)
                || (head.status == Status::Pending && !head.due(now));
            let key = (&head.row.route, head.row.tenant_id, head.keyed());
            if !blocking || !seen.insert(key) {
                continue;
            }
            let waiting = count(ordered.iter().filter(|w| {
                (&w.row.route, w.row.tenant_id, w.keyed()) == key
                    && w.status == Status::Pending
                    && w.order() > head.order()
            }));
            if waiting > 0 {
                heads.push(BlockedKey {
                    route: head.row.route.clone(),
                    tenant_id: head.row.tenant_id,
                    ordering_key: head.keyed().unwrap_or_default().to_owned(),
                    head: head.view(),
                    waiting,
                });
            }
        }
        heads.sort_by(|a, b| {
            (b.waiting, a.head.created_at, a.head.id).cmp(&(
                a.waiting,
                b.head.created_at,
                b.head.id,
            ))
        });
        heads.truncate(limit as usize);
        Ok(heads)
    }

    async fn error_rows(&mut self, filter: &ErrorFilter) -> Result<Vec<RowView>, crate::Error> {
        let t = self.table();
        let matching = |r: &&MemRow| {
            filter.route.as_ref().is_none_or(|x| &r.row.route == x)
                && filter.tenant.is_none_or(|x| r.row.tenant_id == Some(x))
                && filter
                    .event_type
                    .as_ref()
                    .is_none_or(|x| &r.row.event_type == x)
        };
        let limit = filter
            .limit
            .map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(0));
        let mut out: Vec<RowView> = t
            .rows
            .iter()
            .filter(matching)
            .filter(|r| r.status == Status::Failed)
            .take(limit)
            .map(MemRow::view)
            .collect();
        if filter.retrying {
            out.extend(
                t.rows
                    .iter()
                    .filter(matching)
                    .filter(|r| {
                        r.status == Status::Pending
                            && r.available_at.is_some()
                            && r.row.attempts > 0
                    })
                    .take(limit)
                    .map(MemRow::view),
            );
        }
        Ok(out)
    }

    async fn glance(
        &mut self,
        route: &str,
        tenant: Option<Uuid>,
        now: DateTime<Utc>,
        cap: i64,
    ) -> Result<Glance, crate::Error> {
        let cutoff = self.outbox.stale_cutoff(now);
        let t = self.table();
        let rows = || of_route(&t, route, tenant);
        let capped = |n: i64| n.min(cap.saturating_add(1));
        let ripe = || rows().filter(|r| r.due(now));
        let processing = || rows().filter(|r| r.status == Status::Processing);
        Ok(Glance {
            route: route.to_owned(),
            tenant,
            ripe: capped(count(ripe())),
            scheduled: capped(count(
                rows().filter(|r| r.status == Status::Pending && !r.due(now)),
            )),
            processing: capped(count(processing())),
            stale: cutoff.map(|c| {
                capped(count(
                    processing().filter(|r| r.processing_at.is_some_and(|at| at < c)),
                ))
            }),
            failed: capped(count(rows().filter(|r| r.status == Status::Failed))),
            oldest_ripe: ripe().map(|r| r.row.created_at).min(),
        })
    }

    async fn activity(&mut self) -> Result<Option<Activity>, crate::Error> {
        Ok(None)
    }

    async fn position_of(&mut self, id: Uuid) -> Result<Option<RowPosition>, crate::Error> {
        let t = self.table();
        let row = t.rows.iter().find(|r| r.row.id == id);
        Ok(row.map(|r| RowPosition {
            created_at: r.row.created_at,
            id,
        }))
    }

    async fn failed_among(
        &mut self,
        ids: &[Uuid],
        tenant: Option<Uuid>,
    ) -> Result<Vec<Uuid>, crate::Error> {
        let t = self.table();
        let failed = (t.rows.iter()).filter(|r| {
            r.status == Status::Failed && tenant.is_none_or(|t| r.row.tenant_id == Some(t))
        });
        Ok(failed
            .map(|r| r.row.id)
            .filter(|id| ids.contains(id))
            .collect())
    }

    async fn requeue(&mut self, rows: &[Chosen]) -> Result<Vec<Uuid>, crate::Error> {
        let mut t = self.table();
        let mut changed = Vec::new();
        for r in t.rows.iter_mut().filter(|r| chosen(rows, r)) {
            r.status = Status::Pending;
            r.row.attempts = 0;
            r.available_at = None;
            r.last_error = None;
            changed.push(r.row.id);
        }
        Ok(changed)
    }

    async fn discard(
        &mut self,
        rows: &[Chosen],
        keep: Option<&mut crate::store::ops::Keep<'_>>,
    ) -> Result<Vec<Uuid>, crate::Error> {
        let mut t = self.table();
        let gone: Vec<&MemRow> = (t.rows.iter()).filter(|r| chosen(rows, r)).collect();
        if let Some(keep) = keep {
            let whole: Vec<String> = gone.iter().map(|r| r.whole().to_string()).collect();
            keep(&whole)?;
        }
        let gone: Vec<Uuid> = gone.iter().map(|r| r.row.id).collect();
        t.rows.retain(|r| !gone.contains(&r.row.id));
        Ok(gone)
    }

    async fn stage(
        &mut self,
        events: &[NewEvent],
        _node_key: &str,
    ) -> Result<Vec<Staged>, crate::Error> {
        let mut t = self.table();
        let now = Utc::now();
        let mut staged = Vec::with_capacity(events.len());
        for e in events {
            let existing = t
                .rows
                .iter()
                .find(|r| r.row.route == e.route && r.row.event_id == e.event_id)
                .map(|r| r.row.id);
            if let Some(id) = existing {
                staged.push(Staged {
                    id: Some(id),
                    event_id: e.event_id,
                    inserted: false,
                    hlc: None,
                });
                continue;
            }
            t.rows.push(MemRow::pending(OutboxRow {
                id: e.id,
                route: e.route.clone(),
                event_id: e.event_id,
                event_type: e.event_type.clone(),
                tenant_id: e.tenant_id,
                execution_id: e.execution_id,
                correlation_id: e.correlation_id,
                causation_id: e.causation_id,
                occurred_at: e.occurred_at,
                payload: e.payload.clone(),
                attempts: 0,
                ordering_key: e.ordering_key.clone(),
                // one transaction, one created_at (as PostgreSQL's now())
                created_at: now,
                hlc: None,
                traceparent: e.traceparent.clone(),
            }));
            staged.push(Staged {
                id: Some(e.id),
                event_id: e.event_id,
                inserted: true,
                hlc: None,
            });
        }
        Ok(staged)
    }

    async fn checkpoints(&mut self) -> Result<Option<Vec<CheckpointRow>>, crate::Error> {
        Ok(None)
    }
}
