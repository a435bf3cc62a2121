//! `outboxctl.yaml` as written: every key optional, unknown keys refused (with the line).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Deserializer};
use uuid::Uuid;

use super::ConfigError;
use super::route::RouteFile;
use crate::dburl::SecretText;
use crate::duration::Dur;
use crate::model::{KeyOrder, Storage};

/// Distinguishes a key set to `null` (`Some(None)`) from a key left out (`None`).
fn explicit_null<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub database_url: Option<SecretText>,
    #[serde(default)]
    pub outbox: OutboxFile,
    #[serde(default)]
    pub relay: RelayFile,
    #[serde(default)]
    pub partitions: PartitionsFile,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutboxFile {
    pub relation: Option<String>,
    pub collection: Option<String>,
    pub storage: Option<Storage>,
    pub hlc_ordering: Option<bool>,
    pub propagate_trace: Option<bool>,
    pub delivery_log: Option<String>,
    pub hlc_checkpoint: Option<String>,
    pub tenant_aware: Option<bool>,
    pub tenants: Option<Vec<Uuid>>,
    /// `migrate` adds the index `outboxctl replay` reads published rows through.
    pub replay_index: Option<bool>,
    /// `queue`: `migrate` gives the outbox table autovacuum settings for a queue.
    pub autovacuum: Option<crate::vacuum::Autovacuum>,
    /// The relay registry's table (`schema.table`, or `db.collection`), or `off`.
    pub registry: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelayFile {
    pub routes: Option<BTreeMap<String, RouteFile>>,
    pub interval: Option<Dur>,
    pub jitter: Option<f64>,
    pub max_claim_rows: Option<u32>,
    pub max_batches_per_tick: Option<u32>,
    pub pass_deadline: Option<Dur>,
    pub pass_statement_timeout: Option<Dur>,
    #[serde(default, deserialize_with = "explicit_null")]
    pub reclaim_stale_after: Option<Option<Dur>>,
    pub max_attempts: Option<u32>,
    pub retry_base_delay: Option<Dur>,
    pub retry_max_backoff: Option<Dur>,
    #[serde(default, deserialize_with = "explicit_null")]
    pub publish_timeout: Option<Option<Dur>>,
    pub drain_on_shutdown: Option<bool>,
    pub shutdown_drain_timeout: Option<Dur>,
    pub key_order: Option<KeyOrder>,
    pub prepared_statements: Option<bool>,
    pub wake: Option<crate::model::Wake>,
    pub wake_url: Option<SecretText>,
    pub heartbeat: Option<Dur>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartitionsFile {
    pub ahead_days: Option<u32>,
    pub keep_days: Option<u32>,
    pub lock_timeout: Option<Dur>,
    pub retries: Option<u32>,
}

impl FileConfig {
    pub fn parse(path: &str, text: &str) -> Result<Self, ConfigError> {
        if text.trim().is_empty() {
            return Ok(Self::default());
        }
        serde_yaml_ng::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_owned(),
            message: e.to_string(),
        })
    }

    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: shown.clone(),
            source,
        })?;
        Self::parse(&shown, &text)
    }
}
