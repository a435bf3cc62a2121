//! `outboxctl hlc show`'s reading: the HLC checkpoint's marks, their maximum, and how far that
//! maximum is ahead of the wall clock (a mark far in the future pins every new stamp there).

use std::time::Duration;

use serde::Serialize;

use crate::Error;
use crate::config::Config;
use crate::hlc::MAX_DRIFT_MS;
use crate::store::backend::Backend;
use crate::store::ops::{CheckpointRow, OpsStore};
use crate::store::postgres::ops::checkpoint_rows;

/// The checkpoint as read now.
#[derive(Debug, Serialize)]
pub struct CheckpointReport {
    pub rows: Vec<CheckpointRow>,
    pub max: Option<CheckpointRow>,
    /// How far the maximum's physical time is ahead of the wall clock (negative: behind).
    pub ahead_of_wall_clock_ms: Option<i64>,
    /// Ahead by more than [`MAX_DRIFT_MS`]: every new stamp carries the mark forward.
    pub too_far_ahead: bool,
}

impl CheckpointReport {
    /// `max H (node N), 3 seconds ahead of the wall clock`, and a warning when it is too far.
    pub fn ahead(&self) -> Option<(String, Option<String>)> {
        let (m, ahead) = (self.max.as_ref()?, self.ahead_of_wall_clock_ms?);
        let rel = if ahead >= 0 { "ahead of" } else { "behind" };
        let by = crate::duration::age(chrono::Duration::milliseconds(ahead.abs()));
        let line = format!(
            "max {} (node {}), {by} {rel} the wall clock",
            m.hlc, m.node_key
        );
        let minutes = MAX_DRIFT_MS / 60_000;
        let warning = self.too_far_ahead.then(|| format!("the mark is more than {minutes} minutes ahead of the wall clock: every new stamp will carry it forward"));
        Some((line, warning))
    }
}

/// Reads the configured outbox's HLC checkpoint.
pub async fn checkpoint(
    config: &Config,
    connect_timeout: Duration,
) -> Result<CheckpointReport, Error> {
    let backend = Backend::of(config, connect_timeout);
    let none = Error::NotConfigured(match backend {
        Backend::Postgres(_) => {
            "no HLC checkpoint configured: set outbox.hlc_checkpoint (or pass --hlc-checkpoint SCHEMA.TABLE)"
        }
        _ => {
            "no HLC checkpoint configured: set outbox.hlc_checkpoint (or pass --hlc-checkpoint DB.COLLECTION)"
        }
    });
    let rows = match &backend {
        // the node's mark: read without the outbox table, or resolving a tenant's
        Backend::Postgres(pg) => {
            let cp = pg.hlc_checkpoint.ok_or(none)?;
            checkpoint_rows(&mut pg.connect().await?, cp).await?
        }
        _ => {
            let mut outboxes = backend.outboxes(None).await?;
            if outboxes.is_empty() {
                return Err(Error::NotConfigured("no outbox configured"));
            }
            outboxes.open(0).await?.checkpoints().await?.ok_or(none)?
        }
    };
    let now = chrono::Utc::now();
    let max = rows.iter().max_by_key(|r| r.hlc).cloned();
    let ahead = max.as_ref().map(|m| (m.physical - now).num_milliseconds());
    Ok(CheckpointReport {
        too_far_ahead: ahead.is_some_and(|a| a > MAX_DRIFT_MS as i64),
        ahead_of_wall_clock_ms: ahead,
        max,
        rows,
    })
}
