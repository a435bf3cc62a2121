//! What `outboxctl emit` stages: events built as forze builds them (time-ordered ids, the same
//! payload text as given), checked before any I/O, staged in batches of 1,000 through the
//! configured backend's `OpsStore::stage` (deduplicated on `(outbox_route, event_id)`; with
//! HLC ordering the checkpoint moves in the same transaction).

use std::time::Duration;

use serde::Serialize;
use serde_json::value::RawValue;
use uuid::Uuid;

use crate::config::Config;
use crate::store::ops::{NewEvent, OpsStore, Staged};

/// Events per `stage` call.
const BATCH: u32 = 1_000;

/// Why `emit` refused, before anything was staged.
#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    #[error("--count must be at least 1")]
    NoCount,
    #[error("--traceparent needs propagate_trace (--propagate-trace or outbox.propagate_trace)")]
    TraceWithoutPropagation,
    #[error("the outbox is tenant-aware: pass --tenant")]
    TenantNeeded,
    #[error("--tenant {0} is not listed under outbox.tenants: no relay serves its rows")]
    TenantNotListed(Uuid),
    #[error("--{0} must not be empty")]
    Empty(&'static str),
    #[error(
        "--traceparent {0:?} is not a W3C traceparent (00-<32 hex trace id>-<16 hex span id>-<2 hex flags>, ids not all zeros)"
    )]
    NotTraceparent(String),
    #[error("reading the payload {from}: {source}")]
    Read {
        from: String,
        #[source]
        source: std::io::Error,
    },
    #[error("--payload is not valid JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    #[error("--payload must be a JSON object, e.g. '{{\"order_id\": 42}}'")]
    NotAnObject,
    #[error("no outbox to stage into")]
    NoOutbox,
}

impl From<EmitError> for crate::Error {
    fn from(e: EmitError) -> Self {
        crate::Error::Area(Box::new(e))
    }
}

/// The events to stage: `count` of them, alike but for their ids.
#[derive(Debug, Clone)]
pub struct Emit {
    pub route: String,
    pub event_type: String,
    /// A JSON object, as [`payload`] checked it.
    pub payload: String,
    pub ordering_key: Option<String>,
    pub tenant: Option<Uuid>,
    pub correlation_id: Option<Uuid>,
    pub causation_id: Option<Uuid>,
    pub execution_id: Option<Uuid>,
    /// The event id (a new time-ordered one per event when `None`).
    pub event_id: Option<Uuid>,
    pub traceparent: Option<String>,
    pub count: u32,
    pub node_key: String,
}

/// What was staged.
#[derive(Debug, Clone, Serialize)]
pub struct EmitReport {
    /// Rows inserted.
    pub staged: usize,
    /// Events whose `(route, event_id)` was in the outbox already.
    pub deduplicated: usize,
    /// Each event staged (left out of JSON past [`LISTED_AT_MOST`] events).
    #[serde(skip_serializing_if = "too_many")]
    pub events: Vec<Staged>,
    /// What the staging did not stop but the person should know (a route no relay of this
    /// configuration serves).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// A report lists its events as JSON up to this many (a load test stages far more).
pub const LISTED_AT_MOST: usize = 1000;

fn too_many(events: &[Staged]) -> bool {
    events.len() > LISTED_AT_MOST
}

/// The payload as given (inline, `@FILE`, or `-` for `stdin`), checked by [`payload`].
pub fn read_payload(arg: &str, stdin: impl std::io::Read) -> Result<String, EmitError> {
    let read = |from: String, result: std::io::Result<String>| {
        result.map_err(|source| EmitError::Read { from, source })
    };
    let text = match (arg, arg.strip_prefix('@')) {
        ("-", _) => read("from stdin".into(), std::io::read_to_string(stdin))?,
        (_, Some(path)) => read(format!("file {path}"), std::fs::read_to_string(path))?,
        _ => arg.to_owned(),
    };
    payload(&text)
}

impl std::fmt::Display for Staged {
    /// `staged: event E row R hlc H` (or `deduplicated (already in the outbox): event E`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.inserted {
            true => "staged",
            false => "deduplicated (already in the outbox)",
        };
        write!(f, "{what}: event {}", self.event_id)?;
        self.id.map_or(Ok(()), |id| write!(f, " row {id}"))?;
        self.hlc.as_ref().map_or(Ok(()), |h| write!(f, " hlc {h}"))
    }
}

/// Checks a payload without parsing its numbers (the text is stored as given): a JSON object.
pub fn payload(text: &str) -> Result<String, EmitError> {
    let raw: Box<RawValue> = serde_json::from_str(text.trim()).map_err(EmitError::NotJson)?;
    if !raw.get().starts_with('{') {
        return Err(EmitError::NotAnObject);
    }
    Ok(raw.get().to_owned())
}

impl Emit {
    /// What the configuration refuses, before any I/O.
    pub fn check(&self, config: &Config) -> Result<(), EmitError> {
        if self.count == 0 {
            return Err(EmitError::NoCount);
        }
        for (flag, value) in [("route", &self.route), ("type", &self.event_type)] {
            if value.trim().is_empty() {
                return Err(EmitError::Empty(flag));
            }
        }
        if let Some(tp) = &self.traceparent {
            if !config.outbox.propagate_trace {
                return Err(EmitError::TraceWithoutPropagation);
            }
            if crate::telemetry::parse_traceparent(tp).is_none() {
                return Err(EmitError::NotTraceparent(tp.clone()));
            }
        }
        if config.outbox.tenant_aware {
            match self.tenant {
                None => return Err(EmitError::TenantNeeded),
                Some(t) if config.tenant_unlisted(t) => return Err(EmitError::TenantNotListed(t)),
                Some(_) => {}
            }
        }
        Ok(())
    }

    fn events(&self, n: u32, now: chrono::DateTime<chrono::Utc>) -> Vec<NewEvent> {
        (0..n)
            .map(|_| NewEvent {
                id: Uuid::now_v7(),
                event_id: self.event_id.unwrap_or_else(Uuid::now_v7),
                route: self.route.clone(),
                event_type: self.event_type.clone(),
                payload: self.payload.clone(),
                ordering_key: self.ordering_key.clone(),
                tenant_id: self.tenant,
                correlation_id: self.correlation_id,
                causation_id: self.causation_id,
                execution_id: self.execution_id,
                traceparent: self.traceparent.clone(),
                occurred_at: now,
            })
            .collect()
    }

    /// Stages the events into the configured outbox; `progress` hears each batch's size.
    pub async fn stage(
        &self,
        config: &Config,
        connect_timeout: Duration,
        mut progress: impl FnMut(u64),
    ) -> Result<EmitReport, crate::Error> {
        self.check(config)?;
        let backend = crate::store::backend::Backend::of(config, connect_timeout);
        let mut outboxes = backend.outboxes(self.tenant).await?;
        if outboxes.is_empty() {
            return Err(EmitError::NoOutbox.into());
        }
        let mut ops = outboxes.open(0).await?;
        let now = chrono::Utc::now();
        let mut events = Vec::new();
        let mut left = self.count;
        while left > 0 {
            let n = left.min(BATCH);
            left -= n;
            events.extend(ops.stage(&self.events(n, now), &self.node_key).await?);
            progress(u64::from(n));
        }
        let staged = events.iter().filter(|s| s.inserted).count();
        // a typo of a route stages rows nothing claims: staged all the same (relays of another
        // configuration may serve it), and said
        let warnings = config.route_unserved(&self.route).into_iter().collect();
        Ok(EmitReport {
            staged,
            deduplicated: events.len() - staged,
            events,
            warnings,
        })
    }
}
