//! The stores' side of `outboxctl replay`: opening the source a [`Plan`] names (the backend
//! hands it out: [`crate::store::replay`]), and, under consume storage where nothing keeps delivered
//! events, looking events up in the delivery log to prove their delivery. A [`Replay`] counts
//! and publishes through [`crate::replay`], and keeps what it counted as the bound of what it
//! publishes. No terminal code.

use std::time::Duration;

use serde::Serialize;

use crate::Error;
use crate::config::Config;
use crate::replay::request::Plan;
use crate::replay::{Destinations, Pace, Stopped, Tally};
use crate::store::backend::Backend;
pub use crate::store::replay::Source;

/// A replay about to run: its plan, and what a count of it found.
pub struct Replay<'c> {
    config: &'c Config,
    connect_timeout: Duration,
    plan: Plan,
    /// What [`Replay::count`] found (a dry run, or the count before publishing).
    pub counted: Option<Tally>,
}

impl<'c> Replay<'c> {
    pub fn new(config: &'c Config, connect_timeout: Duration, plan: Plan) -> Self {
        Replay {
            config,
            connect_timeout,
            plan,
            counted: None,
        }
    }

    /// Reads the source to its end (or `limit`) without publishing.
    pub async fn count(&mut self, limit: Option<u64>) -> Result<&Tally, Error> {
        let mut source = open(self.config, self.connect_timeout, &self.plan).await?;
        // resumed (`--after`), the ids replayed before are not read again: none is judged
        let given = match &self.plan.after {
            None => &self.plan.selection.event_ids[..],
            Some(_) => &[],
        };
        let tally = crate::replay::count(&mut source, limit, given).await?;
        Ok(self.counted.insert(tally))
    }

    /// Publishes to `to`, after a count no more than it counted (and a person confirmed):
    /// events delivered since wait for another replay.
    pub async fn publish(
        &self,
        to: &mut Destinations,
        mut pace: Pace,
        progress: impl FnMut(&Tally),
    ) -> Result<Result<Tally, Stopped>, Error> {
        if let Some(tally) = &self.counted {
            pace.limit = Some(tally.count);
        }
        let mut source = open(self.config, self.connect_timeout, &self.plan).await?;
        let ran = crate::replay::run(&mut source, to, &pace, progress).await;
        // what the count found missing, said after the replay too, stopped or not
        let not_found = (self.counted.as_ref()).map_or_else(Vec::new, |t| t.not_found.clone());
        Ok(match ran {
            Ok(tally) => Ok(Tally { not_found, ..tally }),
            Err(mut stopped) => {
                stopped.tally.not_found = not_found;
                Err(stopped)
            }
        })
    }
}

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
    pub events: Vec<super::inspect::EventReport>,
    /// The routes asked for (`--route`; none: every route): deliveries on others are left out.
    #[serde(skip)]
    pub routes: Vec<String>,
}

impl DeliveryProof {
    /// A row per delivery of each event (one saying so for an event the log does not have):
    /// event, route, row id, when.
    pub fn rows(&self) -> Vec<Vec<String>> {
        let mut rows = Vec::new();
        for e in &self.events {
            let id = e.event_id.to_string();
            match e.deliveries.as_deref() {
                Some(ds) if !ds.is_empty() => rows.extend(ds.iter().map(|d| {
                    let at = crate::model::rfc3339(d.published_at);
                    vec![id.clone(), d.route.clone(), d.id.to_string(), at]
                })),
                _ => rows.push(vec![
                    id,
                    String::new(),
                    String::new(),
                    match self.routes.join(", ") {
                        routes if routes.is_empty() => "not in the delivery log".into(),
                        routes => format!("not in the delivery log on route(s) {routes}"),
                    },
                ]),
            }
        }
        rows
    }
}

/// Consume storage: delivered rows are gone. With a delivery log, `--event-id`s asked (with
/// the tenant and routes asked) and a dry run, looks each event up there (each tenant's records in its own log) to prove delivery; otherwise
/// the error says what keeps events instead.
pub async fn delivered(
    config: &Config,
    connect_timeout: Duration,
    asked: &crate::replay::Selection,
    dry_run: bool,
) -> Result<DeliveryProof, Error> {
    let (tenant, event_ids, routes) = (asked.tenant, &asked.event_ids, &asked.routes);
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
    for id in event_ids {
        // each target's own tenant's records, in its own log: as `inspect event` reads them
        let mut found = super::inspect::find_event(&mut outboxes, *id).await?;
        // only the routes asked for (`--route`), as a replay selects (another route's
        // delivery was listed as this one's)
        if let Some(ds) = found.deliveries.as_mut().filter(|_| !routes.is_empty()) {
            ds.retain(|d| routes.contains(&d.route));
        }
        events.push(found);
    }
    Ok(DeliveryProof {
        replayable: false,
        reason,
        events,
        routes: routes.to_vec(),
    })
}
