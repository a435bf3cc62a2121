//! The stores' side of `outboxctl replay`: opening the source a [`Plan`] names (the outbox's
//! published rows on PostgreSQL or MongoDB, a `postgres-table` destination, or a `file:`
//! archive) as one [`ReplaySource`], and, under consume storage where nothing keeps delivered
//! events, looking events up in the delivery log to prove their delivery. The replay itself
//! (count, publish) is [`crate::replay`]'s. No terminal code.

use std::time::Duration;

use serde::Serialize;
use uuid::Uuid;

use crate::Error;
use crate::config::{Config, Target};
use crate::replay::file::FileSource;
use crate::replay::request::{Origin, Plan};
use crate::replay::{Item, ReplaySource};
use crate::store::mongo::replay::MongoPublished;
use crate::store::ops::{EventLocation, OpsStore};
use crate::store::postgres::replay::{Lane, PgPublished, PgTable};
use crate::target::QualifiedName;

/// Any of the sources, opened.
pub enum Source {
    Published(PgPublished),
    Table(PgTable),
    Mongo(MongoPublished),
    File(Box<FileSource>),
}

impl ReplaySource for Source {
    async fn next_page(&mut self, limit: u32) -> Result<Vec<Item>, Error> {
        match self {
            Source::Published(s) => s.next_page(limit).await,
            Source::Table(s) => s.next_page(limit).await,
            Source::Mongo(s) => s.next_page(limit).await,
            Source::File(s) => s.next_page(limit).await,
        }
    }
}

/// Opens the plan's source, positioned after its cursor.
pub async fn open(
    config: &Config,
    connect_timeout: Duration,
    plan: &Plan,
) -> Result<Source, Error> {
    let after = plan.after.as_ref();
    let selection = plan.selection.clone();
    let connect_pg = || crate::store::any::connect_pg(config, connect_timeout);
    match (&plan.origin, &config.outbox.target) {
        (Origin::File(path), _) => Ok(Source::File(Box::new(FileSource::open(
            path, selection, after,
        )?))),
        (Origin::Table(table), Target::Postgres { .. }) => Ok(Source::Table(
            PgTable::open(connect_pg().await?, table.clone(), selection, after).await?,
        )),
        (Origin::Table(_), Target::Mongo { .. }) => Err(Error::Runtime(
            "--from postgres-table: reads a table in the configured PostgreSQL database; this configuration names MongoDB".into(),
        )),
        (Origin::Published, Target::Postgres { relation, .. }) => {
            let targets = crate::store::any::pg_targets(config, selection.tenant)?;
            let mut tables: Vec<(Option<Uuid>, QualifiedName)> = Vec::new();
            for t in targets {
                if !tables.iter().any(|(_, table)| *table == t.table) {
                    tables.push((t.tenant.filter(|_| relation.is_per_tenant()), t.table));
                }
            }
            let lanes = tables
                .into_iter()
                .flat_map(|(tenant, table)| {
                    selection.routes.iter().map(move |route| Lane {
                        tenant,
                        table: table.clone(),
                        route: route.clone(),
                    })
                })
                .collect();
            let opts =
                crate::store::postgres::PgStoreOptions::from_config(config, relation.clone(), None);
            Ok(Source::Published(
                PgPublished::open(connect_pg().await?, opts, lanes, selection, after).await?,
            ))
        }
        (Origin::Published, Target::Mongo { collection, .. }) => {
            let opts = crate::store::mongo::MongoStoreOptions::from_config(config, collection.clone());
            let client = crate::store::any::connect_mongo(config, connect_timeout).await?;
            Ok(Source::Mongo(
                MongoPublished::open(&client, opts, selection, after).await?,
            ))
        }
    }
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
    let Target::Postgres { delivery_log, .. } = &config.outbox.target else {
        unreachable!("MongoDB keeps retain storage")
    };
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
        return Err(Error::Runtime(format!("{reason}{hint}")));
    }
    let targets = crate::store::any::targets(config, tenant)?;
    let mut conn = crate::store::any::connect(config, connect_timeout).await?;
    let mut events = Vec::new();
    let mut seen = Vec::new();
    for t in &targets {
        let table = t.pg.as_ref().map(|p| p.table.clone());
        if seen.contains(&table) {
            continue;
        }
        seen.push(table);
        let mut ops = crate::store::any::open(config, &mut conn, t).await?;
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
