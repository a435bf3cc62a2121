//! The stores' side of `outboxctl replay`: opening the source a [`Plan`] names (the backend
//! hands it out: [`crate::store::replay`]), and, under consume storage where nothing keeps delivered
//! events, looking events up in the delivery log to prove their delivery. The replay itself
//! (count, publish) is [`crate::replay`]'s. No terminal code.

use std::time::Duration;

use serde::Serialize;
use uuid::Uuid;

use crate::Error;
use crate::config::Config;
use crate::replay::request::Plan;
use crate::store::backend::Backend;
use crate::store::ops::{EventLocation, OpsStore};
pub use crate::store::replay::Source;

/// Opens the plan's source, positioned after its cursor.
pub async fn open(
    config: &Config,
    connect_timeout: Duration,
    plan: &Plan,
) -> Result<Source, Error> {
    Backend::of(config, connect_timeout)
        .replay_source(plan)
        .await
}

/// Under consume storage: why no event can be replayed, and where the delivery log has the
/// events asked for.
#[derive(Debug, Serialize)]
pub struct DeliveryProof {
    /// Always false: nothing holds the events.
    pub replayable: bool,
    pub reason: String,
    pub events: Vec<EventLocation>,
}

/// Consume storage: delivered rows are gone. With a delivery log, `event_ids` and a dry run,
/// looks each event up there (in each outbox table served, once) to prove delivery; otherwise
/// the error says what keeps events instead.
pub async fn delivered(
    config: &Config,
    connect_timeout: Duration,
    tenant: Option<Uuid>,
    event_ids: &[Uuid],
    dry_run: bool,
) -> Result<DeliveryProof, Error> {
    let backend = Backend::of(config, connect_timeout);
    let Backend::Postgres(pg) = &backend else {
        unreachable!("MongoDB keeps retain storage")
    };
    let delivery_log = pg.delivery_log;
    let log_note = match delivery_log {
        Some(log) => format!(", and the delivery log {log} keeps ids but no payload"),
        None => String::new(),
    };
    let reason = format!(
        "nothing holds the events to replay: storage: consume deletes delivered rows{log_note}; replay from a postgres-table destination (--from postgres-table:SCHEMA.TABLE) or a file: archive (--from file:PATH), configured as a route's destination or dead_letter_to"
    );
    if delivery_log.is_none() || event_ids.is_empty() || !dry_run {
        let hint = if delivery_log.is_some() {
            "; to prove delivery, look events up in the delivery log with --event-id ID… --dry-run"
        } else {
            ""
        };
        return Err(Error::Usage(format!("{reason}{hint}")));
    }
    let mut outboxes = backend.outboxes(tenant).await?;
    let mut events = Vec::new();
    let mut seen = Vec::new();
    for i in 0..outboxes.len() {
        let table = outboxes.target(i).table().cloned();
        if seen.contains(&table) {
            continue;
        }
        seen.push(table);
        let mut ops = outboxes.open(i).await?;
        for id in event_ids {
            events.push(ops.find_event(*id).await?);
        }
    }
    Ok(DeliveryProof {
        replayable: false,
        reason,
        events,
    })
}
