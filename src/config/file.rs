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
    pub claim_ahead: Option<bool>,
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
        let parse_error = |e: serde_yaml_ng::Error| ConfigError::Parse {
            path: path.to_owned(),
            message: located(mapping_named(&e.to_string()), e.location().is_some(), text),
        };
        // serde's own check of a key written twice names the mapping and its first line only
        if let Err(e) = serde_yaml_ng::from_str::<OnceEach>(text) {
            if e.to_string().contains(WRITTEN_TWICE) {
                return Err(parse_error(e));
            }
        }
        serde_yaml_ng::from_str(text).map_err(parse_error)
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

const WRITTEN_TWICE: &str = "is written twice in its mapping";

/// serde_yaml's message for an unknown key of the top mapping, which names no line: with the
/// line where the key is written (`databse_url:` at line 1).
fn located(message: String, has_location: bool, text: &str) -> String {
    let key = (message.strip_prefix("unknown field `"))
        .and_then(|rest| rest.split_once('`'))
        .map(|(key, _)| key)
        .filter(|_| !has_location);
    let at = |key: &str| {
        (text.lines()).position(|l| {
            l.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
    };
    match key.and_then(at) {
        Some(i) => format!("{message} at line {} column 1", i + 1),
        None => message,
    }
}

/// serde's "expected struct RelayFile" in the file's terms: a mapping of keys.
fn mapping_named(message: &str) -> String {
    const STRUCT: &str = "expected struct ";
    let Some(at) = message.find(STRUCT) else {
        return message.to_owned();
    };
    let rest = &message[at + STRUCT.len()..];
    let end = rest
        .find(|c: char| !c.is_alphanumeric())
        .unwrap_or(rest.len());
    format!(
        "{}expected a mapping of keys{}",
        &message[..at],
        &rest[end..]
    )
}

/// A walk over any YAML document that fails at the second writing of a key (serde's check of a
/// struct names the mapping's first line; a map of routes would keep the later one silently).
/// The check runs inside the key's own visit, where serde_yaml names its path and line. Any
/// other error of the walk is left to the real parse.
struct OnceEach;

impl<'de> Deserialize<'de> for OnceEach {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(OnceEach)
    }
}

impl<'de> serde::de::Visitor<'de> for OnceEach {
    type Value = OnceEach;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_unit<E>(self) -> Result<Self, E> {
        Ok(self)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self, A::Error> {
        while seq.next_element::<OnceEach>()?.is_some() {}
        Ok(self)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self, A::Error> {
        let mut seen = std::collections::HashSet::new();
        while map.next_key_seed(Key(&mut seen))?.is_some() {
            map.next_value::<OnceEach>()?;
        }
        Ok(self)
    }
}

/// A mapping's key (a scalar), refused when the mapping had it already.
struct Key<'a>(&'a mut std::collections::HashSet<String>);

impl<'de> serde::de::DeserializeSeed<'de> for Key<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl serde::de::Visitor<'_> for Key<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<(), E> {
        if self.0.insert(key.to_owned()) {
            return Ok(());
        }
        Err(E::custom(format!("key `{key}` {WRITTEN_TWICE}; keep one")))
    }
    fn visit_bool<E: serde::de::Error>(self, key: bool) -> Result<(), E> {
        self.visit_str(&key.to_string())
    }
    fn visit_i64<E: serde::de::Error>(self, key: i64) -> Result<(), E> {
        self.visit_str(&key.to_string())
    }
    fn visit_u64<E: serde::de::Error>(self, key: u64) -> Result<(), E> {
        self.visit_str(&key.to_string())
    }
}
