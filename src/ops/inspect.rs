//! What `outboxctl inspect` reads, over every outbox the configuration names (a table per
//! tenant, or the collection): per-route summaries, pages of pending or failed rows, the keys
//! strict order holds back, the rows failure groups are made of, and where an event is. The
//! same row selection serves `requeue` and `discard`. No terminal, no tables: the command
//! renders what these return.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use uuid::Uuid;

use crate::Error;
use crate::config::Config;
use crate::ops::failure_groups::{self, FailureGroup};
use crate::store::any::Outboxes;
use crate::store::backend::Backend;
use crate::store::ops::{
    BlockedKey, Delivery, ErrorFilter, EventLocation, ListStatus, OpsStore, RouteSummary,
    RowFilter, RowPosition, RowView,
};

/// The narrowing every row listing shares: event type, age and error text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowNarrowing {
    /// Only this event type.
    pub event_type: Option<String>,
    /// Only rows created longer ago than this.
    pub older_than: Option<Duration>,
    /// Only rows whose `last_error` contains this text.
    pub error_contains: Option<String>,
}

/// One page of rows: at most `limit`, after row id `after` (keyset pagination).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Page {
    pub narrowing: RowNarrowing,
    pub limit: u32,
    pub after: Option<Uuid>,
}

/// The store's filter for one listing.
/// Where the page after a full page of `limit` rows starts: its last row that `--after` can
/// name (a MongoDB document whose `id` is not a UUID reads as the nil UUID, which names no
/// row: the hint led nowhere, and paging stopped there).
pub fn next_page_after(rows: &[RowView], limit: u32) -> Option<Uuid> {
    let full = rows.len() >= limit as usize;
    (rows.iter().rev().map(|r| r.id)).find(|id| full && !id.is_nil())
}

pub fn filter_for(
    status: ListStatus,
    route: Option<String>,
    tenant: Option<Uuid>,
    f: &RowNarrowing,
    limit: u32,
    after: Option<RowPosition>,
) -> RowFilter {
    RowFilter {
        status,
        route,
        tenant,
        event_type: f.event_type.clone(),
        older_than: f.older_than,
        error_contains: f.error_contains.clone(),
        after,
        limit,
    }
}

/// The rows failure groups are made of, over the outboxes `which`, narrowed by the listing
/// filters that the store does not apply (age, error text).
pub async fn error_rows(
    outboxes: &mut Outboxes,
    which: std::ops::Range<usize>,
    filter: &ErrorFilter,
    more: &RowNarrowing,
    now: DateTime<Utc>,
) -> Result<Vec<RowView>, Error> {
    let before = more
        .older_than
        .and_then(|d| chrono::Duration::from_std(d).ok())
        .map(|d| now - d);
    let mut rows = Vec::new();
    for i in which {
        // an outbox of no tenant in particular narrows to the one asked for, if any
        let tenant = outboxes.target(i).tenant().or(filter.tenant);
        let mut ops = outboxes.open(i).await?;
        let f = ErrorFilter {
            tenant,
            ..filter.clone()
        };
        rows.extend(ops.error_rows(&f).await?.into_iter().filter(|r| {
            before.is_none_or(|b| r.created_at < b)
                && more
                    .error_contains
                    .as_deref()
                    .is_none_or(|text| r.last_error.as_deref().is_some_and(|e| e.contains(text)))
        }));
    }
    Ok(rows)
}

/// One connection to the outbox and the targets an inspection reads, narrowed to a route
/// and a tenant when given; `now` is the moment every answer is computed for.
pub struct Inspector {
    outboxes: Outboxes,
    /// Where the route pauses are read (the relay registry, when configured).
    config: Config,
    connect_timeout: Duration,
    route: Option<String>,
    tenant: Option<Uuid>,
    pub now: DateTime<Utc>,
}

impl Inspector {
    /// Resolves the targets (only `tenant`'s when given), then connects within
    /// `connect_timeout`.
    pub async fn open(
        config: &Config,
        connect_timeout: Duration,
        route: Option<String>,
        tenant: Option<Uuid>,
    ) -> Result<Self, Error> {
        let outboxes = Backend::of(config, connect_timeout)
            .outboxes(tenant)
            .await?;
        Ok(Self {
            outboxes,
            config: config.clone(),
            connect_timeout,
            route,
            tenant,
            now: Utc::now(),
        })
    }

    /// What the operator should hear beside the answer: the route asked for is not one this
    /// configuration serves (a typo reads as an empty outbox).
    pub fn warning(&self) -> Option<String> {
        self.config.route_unserved(self.route.as_deref()?)
    }

    /// Per route (and tenant): counts, ages, attempts and deliveries, and the pause that holds
    /// it (read from the relay registry when there is one).
    pub async fn summaries(&mut self) -> Result<Vec<RouteSummary>, Error> {
        let mut all = Vec::new();
        let pauses = crate::ops::fleet::pauses_if_any(&self.config, self.connect_timeout).await;
        for i in 0..self.outboxes.len() {
            let tenant = self.outboxes.target(i).tenant();
            let mut ops = self.outboxes.open(i).await?;
            let routes = match &self.route {
                Some(r) => vec![r.clone()],
                None => {
                    // a route drained under consume storage is in the delivery log only
                    let day = self.now - chrono::Duration::days(1);
                    let mut routes = ops.routes().await?;
                    routes.extend(ops.delivered_routes(day, tenant).await?);
                    routes.sort();
                    routes.dedup();
                    routes
                }
            };
            for route in routes {
                let mut summary = ops.summary(&route, tenant, self.now).await?;
                summary.paused = pauses.find(&route, summary.tenant).cloned();
                all.push(summary);
            }
        }
        Ok(all)
    }

    /// One page of pending or failed rows, oldest first, over every target (each target's
    /// first `limit`, merged in order), after the place of the row `page.after` names.
    pub async fn rows(&mut self, status: ListStatus, page: &Page) -> Result<Vec<RowView>, Error> {
        let after = match page.after {
            Some(id) => Some(self.position_of(id).await?),
            None => None,
        };
        let mut rows = Vec::new();
        for i in 0..self.outboxes.len() {
            let tenant = self.outboxes.target(i).tenant();
            let mut ops = self.outboxes.open(i).await?;
            let f = filter_for(
                status,
                self.route.clone(),
                tenant,
                &page.narrowing,
                page.limit,
                after,
            );
            rows.extend(ops.list(&f, self.now).await?);
        }
        rows.sort_by_key(RowView::position);
        rows.truncate(page.limit as usize);
        Ok(rows)
    }

    /// Where row `id` stands, in whichever target holds it; an error when none does now.
    async fn position_of(&mut self, id: Uuid) -> Result<RowPosition, Error> {
        for i in 0..self.outboxes.len() {
            let mut ops = self.outboxes.open(i).await?;
            if let Some(at) = ops.position_of(id).await? {
                return Ok(at);
            }
        }
        Err(Error::Usage(format!(
            "--after {id}: no such row in the outbox now (delivered or discarded since that page was listed); list from the first page again"
        )))
    }

    /// Failed rows (with `retrying`, also rows waiting for a retry) grouped by their error.
    pub async fn failure_groups(
        &mut self,
        narrowing: &RowNarrowing,
        retrying: bool,
    ) -> Result<Vec<FailureGroup>, Error> {
        let filter = ErrorFilter {
            route: self.route.clone(),
            tenant: self.tenant,
            event_type: narrowing.event_type.clone(),
            retrying,
            limit: None,
        };
        let all = 0..self.outboxes.len();
        let rows = error_rows(&mut self.outboxes, all, &filter, narrowing, self.now).await?;
        Ok(failure_groups::group(&rows))
    }

    /// The keys strict order holds back, most rows waiting first, at most `limit`.
    pub async fn blocked(&mut self, limit: u32) -> Result<Vec<BlockedKey>, Error> {
        let mut all = Vec::new();
        for i in 0..self.outboxes.len() {
            let tenant = self.outboxes.target(i).tenant();
            let mut ops = self.outboxes.open(i).await?;
            all.extend(
                ops.blocked(self.route.as_deref(), tenant, self.now, limit)
                    .await?,
            );
        }
        all.sort_by_key(|k| std::cmp::Reverse(k.waiting));
        all.truncate(limit as usize);
        Ok(all)
    }

    /// Where an event is: its outbox rows and delivery-log records over every target.
    pub async fn event(&mut self, event_id: Uuid) -> Result<EventReport, Error> {
        find_event(&mut self.outboxes, event_id).await
    }
}

/// Where an event is over every target of `outboxes`: each target's own rows and delivery-log
/// records only (tenants sharing a table, or a log, are targets of that one table or log).
pub async fn find_event(outboxes: &mut Outboxes, event_id: Uuid) -> Result<EventReport, Error> {
    let (mut found, mut row_id) = (Vec::new(), false);
    for i in 0..outboxes.len() {
        let tenant = outboxes.target(i).tenant();
        let mut ops = outboxes.open(i).await?;
        let mut here = ops.find_event(event_id).await?;
        if let Some(t) = tenant {
            here.rows.retain(|r| r.tenant_id == Some(t));
            for d in here.deliveries.iter_mut() {
                d.retain(|d| d.tenant_id == Some(t));
            }
        }
        let nowhere = here.rows.is_empty() && here.deliveries.iter().flatten().next().is_none();
        // the id of a row, given where an event id goes (both are listed side by side)
        row_id |= nowhere && ops.position_of(event_id).await?.is_some();
        found.push(here);
    }
    let mut report = EventReport::merge(event_id, found);
    report.is_a_row_id = row_id && report.rows.is_empty();
    Ok(report)
}

/// Where an event is, over every target. The fields are in alphabetical order: the JSON
/// reads as it always has.
#[derive(Debug, Clone, Serialize)]
pub struct EventReport {
    /// `None` when no delivery log is configured.
    pub deliveries: Option<Vec<Delivery>>,
    pub event_id: Uuid,
    /// No event has this id, a row has: the id given was a row's (omitted when not).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_a_row_id: bool,
    pub rows: Vec<RowView>,
}

/// Where the event is, in sentences: each outbox row and what its status means, each delivery
/// the log proves, or why nothing was found.
impl std::fmt::Display for EventReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (rows, event_id) = (&self.rows, self.event_id);
        let log_configured = self.deliveries.is_some();
        let deliveries = self.deliveries.as_deref().unwrap_or_default();
        let mut lines = Vec::new();
        for r in rows {
            let what = match r.status.as_str() {
                "published" => "published (retain storage keeps the row)".to_owned(),
                "failed" => format!(
                    "parked as failed after {} attempt(s): {}",
                    r.attempts,
                    r.last_error.as_deref().unwrap_or("")
                ),
                "pending" if r.available_at.is_some_and(|a| a > chrono::Utc::now()) => {
                    format!(
                        "pending, retry {} scheduled for {}",
                        r.attempts,
                        r.available_at
                            .expect("checked")
                            .format("%Y-%m-%d %H:%M:%S UTC")
                    )
                }
                other => other.to_owned(),
            };
            lines.push(format!("outbox row {} on route {}: {what}", r.id, r.route));
        }
        for d in deliveries {
            lines.push(format!(
                "delivered on route {} at {} (outbox row {})",
                d.route,
                d.published_at.format("%Y-%m-%d %H:%M:%S%.3f UTC"),
                d.id
            ));
        }
        if rows.is_empty() && deliveries.is_empty() && self.is_a_row_id {
            lines.push(format!("{event_id} is a row's id, not an event's: `inspect event` takes the event id (`inspect pending` and `inspect failed` list both)"));
        } else if rows.is_empty() && deliveries.is_empty() {
            lines.push(format!("event {event_id} is not in the outbox"));
            if log_configured {
                lines.push("and the delivery log has no record of it. A missing log row does not prove the event was not delivered: a pass that published and then rolled back logs nothing, and days past retention are dropped.".into());
            } else {
                lines.push("(no delivery log is configured: under retain storage a delivered row stays until the retention job prunes it; under consume storage a delivered event leaves no trace)".into());
            }
        } else if rows.is_empty() && log_configured {
            lines
                .push("its outbox row is gone: each log record proves a committed delivery".into());
        }
        f.write_str(&lines.join("\n"))
    }
}

impl EventReport {
    /// One report from each target's answer.
    pub fn merge(event_id: Uuid, found: Vec<EventLocation>) -> Self {
        let log_configured = found.iter().any(|f| f.deliveries.is_some());
        let mut rows = Vec::new();
        let mut deliveries = Vec::new();
        for f in found {
            rows.extend(f.rows);
            deliveries.extend(f.deliveries.into_iter().flatten());
        }
        EventReport {
            deliveries: log_configured.then_some(deliveries),
            event_id,
            is_a_row_id: false,
            rows,
        }
    }
}

/// What to do about the held keys listed, by what their heads are: a parked head waits for an
/// operator, a processing one for its relay (or reclaim, when `config` has it on), a pending
/// one for its retry. (It said requeue or discard whatever the head was: requeue refuses a row
/// that is not failed.)
pub fn blocked_notes(keys: &[BlockedKey], config: &Config) -> Vec<&'static str> {
    let has = |status: &str| keys.iter().any(|k| k.head.status == status);
    let processing = match config.relay.reclaim_stale_after.is_some() {
        true => {
            "a processing head is being published, or (its relay gone) goes back to pending once reclaim_stale_after passes: wait, no requeue"
        }
        false => {
            "a processing head is being published; with reclaim off, one whose relay is gone stays processing until reclaim runs (set relay.reclaim_stale_after)"
        }
    };
    [
        (has("failed")).then_some("a parked (failed) head waits for `outboxctl requeue --id` or `discard --id`; its key's rows go once it is delivered"),
        (has("processing")).then_some(processing),
        (has("pending")).then_some("a pending head waits for its retry (available_at) and goes by itself when due"),
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The next page starts after the page's last row that `--after` can name.
    #[test]
    fn the_next_page_starts_after_a_row_that_can_be_named() {
        let row = |id: Uuid| RowView {
            id,
            event_id: Uuid::new_v4(),
            route: "orders".into(),
            event_type: "t".into(),
            tenant_id: None,
            ordering_key: None,
            status: "failed".into(),
            attempts: 0,
            available_at: None,
            created_at: Utc::now(),
            last_error: None,
        };
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        assert_eq!(next_page_after(&[row(a), row(b)], 2), Some(b));
        assert_eq!(next_page_after(&[row(a), row(Uuid::nil())], 2), Some(a));
        assert_eq!(
            next_page_after(&[row(a), row(b)], 3),
            None,
            "not a full page"
        );
        assert_eq!(next_page_after(&[row(Uuid::nil())], 1), None);
    }
}
