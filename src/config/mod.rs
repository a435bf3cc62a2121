//! Configuration: `outboxctl.yaml`, environment and flags resolved into one [`Config`] before
//! any I/O, with precedence flag > env > file > default (the generic `DATABASE_URL` ranks
//! below the file, so an ambient variable never overrides an explicit config).
//!
//! This module reads the config file and nothing else; it never connects to anything. The
//! file as written is [`file`], the environment's part [`env`]; here they are resolved.

mod env;
mod file;
mod route;
mod target;
pub mod template;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;
use uuid::Uuid;

use crate::duration::Dur;
use crate::model::{KeyOrder, Storage};
pub use env::{Env, EnvError, expand_env, process_env, process_env_unless};
pub use file::{FileConfig, OutboxFile, PartitionsFile, RelayFile};
pub use route::{Route, RouteFile, RouteOf, RouteUrl, UnsetVariable, destination_url};

use crate::dburl::{Backend, DatabaseUrl, SecretText, UrlError};
use crate::desturl::DestinationUrlError;
use crate::target::{CollectionName, NameError, QualifiedName, RelationSpec};

pub const DEFAULT_CONFIG_FILE: &str = "outboxctl.yaml";
pub const DEFAULT_RELATION: &str = "app.outbox";
pub const DEFAULT_COLLECTION: &str = "app.outbox";
/// The registry's default name: the outbox's, with this suffix, beside it.
pub const REGISTRY_SUFFIX: &str = "_relays";
/// The pauses table (or collection): the registry's name with this suffix, beside it.
pub const PAUSES_SUFFIX: &str = "_pauses";
pub use target::{PAUSES_INDEX_SUFFIX, REGISTRY_HINT};

#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("config file {path}: {message}")]
    Parse { path: String, message: String },
    /// `init`'s file is there already and `--force` was not given (exit 5).
    #[error("{path} exists; pass --force to overwrite it")]
    Exists { path: String },
    #[error("writing {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Name(#[from] NameError),
    #[error(transparent)]
    Url(#[from] UrlError),
    /// A destination URL whose `${NAME}` cannot be expanded (the key or flag named): an
    /// unclosed `${`, a bad name, or (for a flag) an unset variable.
    #[error("{key}: {source}")]
    DestinationEnv {
        key: String,
        #[source]
        source: EnvError,
    },
    /// A destination URL outboxctl cannot publish to (the key or flag named).
    #[error("{key}: {source}")]
    Destination {
        key: String,
        #[source]
        source: DestinationUrlError,
    },
    #[error("{0}")]
    Invalid(String),
}

/// The first layer that sets a value: the flag, then the environment (read only when the flag
/// is absent), then the file.
fn pick<T>(flag: Option<T>, env: impl FnOnce() -> Option<T>, file: Option<T>) -> Option<T> {
    flag.or_else(env).or(file)
}

fn invalid(message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid(message.into())
}

// ---- what flags may override ------------------------------------------------------------

/// Values given on the command line (each `None` when the flag was not given).
#[derive(Debug, Default, Clone)]
pub struct Overrides {
    pub config: Option<PathBuf>,
    pub database_url: Option<SecretText>,
    pub backend: Option<Backend>,
    pub relation: Option<String>,
    pub collection: Option<String>,
    pub storage: Option<Storage>,
    pub delivery_log: Option<String>,
    pub hlc_checkpoint: Option<String>,
    pub hlc_ordering: Option<bool>,
    pub propagate_trace: Option<bool>,
    pub key_order: Option<KeyOrder>,
}

// ---- the resolved configuration -------------------------------------------------------

#[derive(Debug, Clone)]
pub struct Config {
    /// Where the file came from, if one was read; for a command that reads none (`init`), the
    /// file `--config` or `OUTBOXCTL_CONFIG` names, if either does.
    pub source: Option<PathBuf>,
    pub database_url: Option<DatabaseUrl>,
    pub backend: Backend,
    pub outbox: OutboxConfig,
    pub relay: RelayConfig,
    pub partitions: PartitionsConfig,
}

#[derive(Debug, Clone)]
pub struct OutboxConfig {
    pub target: Target,
    pub storage: Storage,
    pub hlc_ordering: bool,
    pub propagate_trace: bool,
    pub tenant_aware: bool,
    pub tenants: Vec<Uuid>,
    /// `migrate` adds the replay index (retain storage).
    pub replay_index: bool,
    /// The outbox table's autovacuum settings (PostgreSQL).
    pub autovacuum: crate::vacuum::Autovacuum,
}

#[derive(Debug, Clone)]
pub enum Target {
    Postgres {
        relation: RelationSpec,
        delivery_log: Option<RelationSpec>,
        hlc_checkpoint: Option<QualifiedName>,
        /// The relay registry (`outbox.registry`); its pauses live beside it.
        registry: Option<QualifiedName>,
    },
    Mongo {
        collection: CollectionName,
        hlc_checkpoint: Option<CollectionName>,
        registry: Option<CollectionName>,
    },
}

/// The outbox as people name it: `app.outbox` (PostgreSQL) or `app.outbox` (MongoDB).
impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Postgres { relation, .. } => write!(f, "{relation}"),
            Target::Mongo { collection, .. } => write!(f, "{collection}"),
        }
    }
}

#[derive(Debug, Clone)]
pub struct RelayConfig {
    pub routes: BTreeMap<String, Route>,
    pub interval: Duration,
    pub jitter: f64,
    pub max_claim_rows: u32,
    pub max_batches_per_tick: u32,
    pub pass_deadline: Duration,
    pub pass_statement_timeout: Duration,
    pub reclaim_stale_after: Option<Duration>,
    pub max_attempts: u32,
    pub retry_base_delay: Duration,
    pub retry_max_backoff: Duration,
    pub publish_timeout: Option<Duration>,
    pub drain_on_shutdown: bool,
    pub shutdown_drain_timeout: Duration,
    pub key_order: KeyOrder,
    /// PostgreSQL: named, cached statements (direct connections, pgbouncer 1.21+).
    pub prepared_statements: bool,
    /// Retain, best-effort order: each pass claims the route's next batch on a second
    /// connection while it publishes and marks its own (`relay.claim_ahead`; by default on
    /// with `prepared_statements` where it applies).
    pub claim_ahead: bool,
    /// Wake-up on commit besides polling (`LISTEN`/`NOTIFY`, or a MongoDB change stream).
    pub wake: crate::model::Wake,
    /// How often a relay writes its registry row.
    pub heartbeat: Duration,
    /// PostgreSQL: where to `LISTEN` (a direct or session-pooled URL) when the database URL
    /// goes through a transaction pooler. `Err`: it names a `${NAME}` this process does not
    /// have, an error only for the relay that listens (a secret set only where relays run).
    pub wake_url: Option<Result<DatabaseUrl, UnsetVariable>>,
}

/// The most days any day count of the partition commands may span (100 years): more is a
/// typo, and dates far enough out do not exist.
pub const MAX_DAYS: u32 = 36_500;

#[derive(Debug, Clone)]
pub struct PartitionsConfig {
    pub ahead_days: u32,
    pub keep_days: u32,
    pub lock_timeout: Duration,
    pub retries: u32,
}

const fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

impl Config {
    /// [`Config::load`], or with `read_file` false from flags and environment alone (for a
    /// command such as `init`, which may be replacing a broken file).
    pub fn load_with(o: &Overrides, read_file: bool, env: Env<'_>) -> Result<Self, ConfigError> {
        match read_file {
            true => Self::load(o, env),
            false => Self::resolve(FileConfig::default(), Self::named_file(o, env), o, env),
        }
    }

    /// The file `--config` names, else `OUTBOXCTL_CONFIG`.
    fn named_file(o: &Overrides, env: Env<'_>) -> Option<PathBuf> {
        (o.config.clone()).or_else(|| env("OUTBOXCTL_CONFIG").map(PathBuf::from))
    }

    /// Finds and reads the config file (flag, then `OUTBOXCTL_CONFIG`, then `./outboxctl.yaml`
    /// if present), then resolves.
    pub fn load(overrides: &Overrides, env: Env<'_>) -> Result<Self, ConfigError> {
        let path = match Self::named_file(overrides, env) {
            Some(p) => Some(p),
            None => Some(PathBuf::from(DEFAULT_CONFIG_FILE)).filter(|p| p.is_file()),
        };
        let file = match &path {
            Some(p) => FileConfig::load(p)?,
            None => FileConfig::default(),
        };
        Self::resolve(file, path, overrides, env)
    }

    /// Merges one parsed file with the environment and the flags, then validates.
    /// One configuration from its layers: flags (`o`) over the environment over the file over
    /// the defaults, each value taken from the first layer that sets it (`pick`).
    pub fn resolve(
        file: FileConfig,
        source: Option<PathBuf>,
        o: &Overrides,
        env: Env<'_>,
    ) -> Result<Self, ConfigError> {
        let env_bool = |name: &str| -> Result<Option<bool>, ConfigError> {
            env(name)
                .map(|v| match v.to_ascii_lowercase().as_str() {
                    "1" | "true" | "yes" | "on" => Ok(true),
                    "0" | "false" | "no" | "off" => Ok(false),
                    _ => Err(invalid(format!(
                        "{name}={v:?} is not a boolean; use true or false"
                    ))),
                })
                .transpose()
        };
        let env_storage = env("OUTBOXCTL_STORAGE")
            .map(|v| match v.as_str() {
                "retain" => Ok(Storage::Retain),
                "consume" => Ok(Storage::Consume),
                _ => Err(invalid(format!(
                    "OUTBOXCTL_STORAGE={v:?} is not a storage; use retain or consume"
                ))),
            })
            .transpose()?;

        let url_text = pick(
            o.database_url.clone().map(SecretText::into_exposed),
            || env("OUTBOXCTL_DATABASE_URL"),
            file.database_url.clone().map(SecretText::into_exposed),
        )
        .or_else(|| env("DATABASE_URL"));
        let database_url = url_text.as_deref().map(DatabaseUrl::parse).transpose()?;

        let f = &file.outbox;
        let relation = pick(
            o.relation.clone(),
            || env("OUTBOXCTL_RELATION"),
            f.relation.clone(),
        );
        let collection = pick(
            o.collection.clone(),
            || env("OUTBOXCTL_COLLECTION"),
            f.collection.clone(),
        );

        let backend = match (o.backend, &database_url) {
            (Some(b), _) => b,
            (None, Some(url)) => url.backend(),
            (None, None) if collection.is_some() && relation.is_none() => Backend::Mongo,
            (None, None) => Backend::Postgres,
        };
        if let (Some(b), Some(url)) = (o.backend, &database_url) {
            if b != url.backend() {
                return Err(invalid(format!(
                    "--backend {b} contradicts the database URL, which is for {}",
                    url.backend()
                )));
            }
        }

        let storage = pick(o.storage, || env_storage, f.storage).unwrap_or(Storage::Retain);
        let env_hlc = env_bool("OUTBOXCTL_HLC_ORDERING")?;
        let hlc_ordering = pick(o.hlc_ordering, || env_hlc, f.hlc_ordering).unwrap_or(false);
        let env_trace = env_bool("OUTBOXCTL_PROPAGATE_TRACE")?;
        let propagate_trace =
            pick(o.propagate_trace, || env_trace, f.propagate_trace).unwrap_or(false);
        let delivery_log = pick(
            o.delivery_log.clone(),
            || env("OUTBOXCTL_DELIVERY_LOG"),
            f.delivery_log.clone(),
        );
        let hlc_checkpoint = pick(
            o.hlc_checkpoint.clone(),
            || env("OUTBOXCTL_HLC_CHECKPOINT"),
            f.hlc_checkpoint.clone(),
        );
        let tenant_aware = f.tenant_aware.unwrap_or(false);
        let tenants = f.tenants.clone().unwrap_or_default();
        let replay_index = f.replay_index.unwrap_or(false);
        let autovacuum = f.autovacuum.unwrap_or_default();

        let names = target::Names {
            relation,
            collection,
            delivery_log,
            hlc_checkpoint,
            registry: f.registry.as_deref(),
        };
        let target = names.resolve(backend)?;

        let r = &file.relay;
        let key_order = pick(o.key_order, || None, r.key_order).unwrap_or(KeyOrder::BestEffort);
        let prepared_statements = r.prepared_statements.unwrap_or(false);
        let relay = RelayConfig {
            routes: route::resolve_routes(r.routes.clone().unwrap_or_default(), env)?,
            interval: r.interval.map_or(secs(1), |d| d.0),
            jitter: r.jitter.unwrap_or(0.2),
            max_claim_rows: r.max_claim_rows.unwrap_or(100),
            max_batches_per_tick: r.max_batches_per_tick.unwrap_or(100),
            pass_deadline: r.pass_deadline.map_or(secs(5), |d| d.0),
            pass_statement_timeout: r.pass_statement_timeout.map_or(secs(1), |d| d.0),
            reclaim_stale_after: match r.reclaim_stale_after {
                None => Some(secs(300)),
                Some(v) => v.map(|d| d.0),
            },
            max_attempts: r.max_attempts.unwrap_or(5),
            retry_base_delay: r.retry_base_delay.map_or(secs(1), |d| d.0),
            retry_max_backoff: r.retry_max_backoff.map_or(secs(300), |d| d.0),
            publish_timeout: r.publish_timeout.flatten().map(|d| d.0),
            drain_on_shutdown: r.drain_on_shutdown.unwrap_or(true),
            shutdown_drain_timeout: r.shutdown_drain_timeout.map_or(secs(5), |d| d.0),
            key_order,
            prepared_statements,
            // on by default with named statements where it applies: a relay tuned for speed on
            // a direct connection (retain, best-effort order)
            claim_ahead: r.claim_ahead.unwrap_or(
                prepared_statements
                    && storage == Storage::Retain
                    && key_order == KeyOrder::BestEffort,
            ),
            wake: r.wake.unwrap_or_default(),
            heartbeat: r.heartbeat.map_or(secs(5), |d| d.0),
            wake_url: match r.wake_url.as_ref().map(|u| expand_env(u.expose(), env)) {
                None => None,
                // said as the wake URL's, not the database's (whose schemes it offered)
                Some(Ok(u)) => Some(Ok(DatabaseUrl::parse(&u).map_err(|UrlError::Scheme(shown)| {
                    invalid(format!("relay.wake_url {shown} is not a postgres:// URL: LISTEN needs a direct or session-pooled PostgreSQL connection"))
                })?)),
                Some(Err(source @ EnvError::Unset(_))) => Some(Err(UnsetVariable {
                    key: "relay.wake_url".into(),
                    source,
                })),
                Some(Err(e)) => return Err(invalid(format!("relay.wake_url: {e}"))),
            },
        };
        let p = &file.partitions;
        for (key, days) in [("ahead_days", p.ahead_days), ("keep_days", p.keep_days)] {
            if days.is_some_and(|d| d > MAX_DAYS) {
                return Err(invalid(format!(
                    "partitions.{key}: at most {MAX_DAYS} (100 years)"
                )));
            }
        }
        let partitions = PartitionsConfig {
            ahead_days: p.ahead_days.unwrap_or(7),
            keep_days: p.keep_days.unwrap_or(30),
            lock_timeout: p.lock_timeout.map_or(Duration::from_millis(200), |d| d.0),
            retries: p.retries.unwrap_or(5),
        };

        let config = Config {
            source,
            database_url,
            backend,
            outbox: OutboxConfig {
                target,
                storage,
                hlc_ordering,
                propagate_trace,
                tenant_aware,
                tenants,
                replay_index,
                autovacuum,
            },
            relay,
            partitions,
        };
        config.validate()?;
        Ok(config)
    }

    /// Refuses invalid combinations, with the reason, before any I/O.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let o = &self.outbox;
        match &o.target {
            Target::Mongo { .. } if o.storage == Storage::Consume => {
                return Err(invalid(
                    "storage: consume is PostgreSQL-only; MongoDB keeps retain storage",
                ));
            }
            Target::Postgres {
                delivery_log: Some(log),
                ..
            } if o.storage == Storage::Retain => {
                return Err(invalid(format!(
                    "delivery_log {log} needs storage: consume (retain keeps published rows in the outbox itself)"
                )));
            }
            _ => {}
        }
        if let Target::Postgres {
            relation,
            delivery_log,
            ..
        } = &o.target
        {
            let per_tenant = relation.is_per_tenant()
                || delivery_log
                    .as_ref()
                    .is_some_and(RelationSpec::is_per_tenant);
            if per_tenant && !o.tenant_aware {
                return Err(invalid(format!(
                    "relation {relation} is per tenant ({{tenant}}) but outbox.tenant_aware is false"
                )));
            }
        }
        if o.replay_index && o.storage == Storage::Consume {
            return Err(invalid(
                "outbox.replay_index needs storage: retain (consume deletes delivered rows; replay from a postgres-table destination or a file: archive instead)",
            ));
        }
        if o.autovacuum == crate::vacuum::Autovacuum::Queue && self.backend == Backend::Mongo {
            return Err(invalid(
                "outbox.autovacuum: queue sets a PostgreSQL table's storage parameters; MongoDB has no autovacuum (remove it)",
            ));
        }
        if !o.tenants.is_empty() && !o.tenant_aware {
            return Err(invalid(
                "outbox.tenants is set but outbox.tenant_aware is false",
            ));
        }
        let r = &self.relay;
        if r.claim_ahead && o.storage == Storage::Consume {
            return Err(invalid(
                "relay.claim_ahead needs storage: retain (a consume pass is one transaction that claims its own rows): remove it",
            ));
        }
        if r.claim_ahead && r.key_order == KeyOrder::Strict {
            return Err(invalid(
                "relay.claim_ahead needs key_order: best-effort (strict order holds back a key whose rows are processing, so a claim made ahead would skip them): remove it",
            ));
        }
        if let Some(u) = &r.wake_url {
            if r.wake == crate::model::Wake::Off {
                return Err(invalid(
                    "relay.wake_url is set but relay.wake is off: set relay.wake: notify",
                ));
            }
            let other = u.as_ref().is_ok_and(|u| u.backend() != Backend::Postgres);
            if self.backend != Backend::Postgres || other {
                return Err(invalid(
                    "relay.wake_url is for PostgreSQL's LISTEN (a direct or session-pooled postgres:// URL); MongoDB wakes through a change stream on the database URL",
                ));
            }
        }
        if r.heartbeat < Duration::from_millis(100) {
            return Err(invalid(format!(
                "relay.heartbeat ({}) must be at least 100ms",
                Dur(r.heartbeat)
            )));
        }
        if !(0.0..1.0).contains(&r.jitter) {
            return Err(invalid(format!(
                "relay.jitter {} must be at least 0 and below 1",
                r.jitter
            )));
        }
        if r.max_claim_rows == 0 {
            return Err(invalid("relay.max_claim_rows must be at least 1"));
        }
        if r.max_batches_per_tick == 0 {
            return Err(invalid("relay.max_batches_per_tick must be at least 1"));
        }
        if r.max_attempts == 0 {
            return Err(invalid("relay.max_attempts must be at least 1"));
        }
        if r.retry_base_delay > r.retry_max_backoff {
            return Err(invalid(format!(
                "relay.retry_base_delay ({}) is longer than relay.retry_max_backoff ({})",
                Dur(r.retry_base_delay),
                Dur(r.retry_max_backoff)
            )));
        }
        let pg_max = crate::duration::PG_LONGEST;
        if r.pass_deadline + r.pass_statement_timeout > pg_max {
            return Err(invalid(format!(
                "relay.pass_deadline ({}) plus relay.pass_statement_timeout ({}) must be at most {} (PostgreSQL's longest timeout)",
                Dur(r.pass_deadline),
                Dur(r.pass_statement_timeout),
                Dur(pg_max)
            )));
        }
        if self.partitions.lock_timeout > pg_max {
            return Err(invalid(format!(
                "partitions.lock_timeout ({}) must be at most {} (PostgreSQL's longest timeout)",
                Dur(self.partitions.lock_timeout),
                Dur(pg_max)
            )));
        }
        if r.drain_on_shutdown && r.shutdown_drain_timeout < r.pass_statement_timeout * 5 {
            return Err(invalid(format!(
                "relay.shutdown_drain_timeout ({}) must be at least 5 × relay.pass_statement_timeout ({}), so the drain's last pass can commit",
                Dur(r.shutdown_drain_timeout),
                Dur(r.pass_statement_timeout)
            )));
        }
        Ok(())
    }

    /// The database URL, or an error that says how to give one.
    pub fn require_url(&self) -> Result<&DatabaseUrl, ConfigError> {
        self.database_url.as_ref().ok_or_else(|| {
            // the file this command read (--config, OUTBOXCTL_CONFIG), else the default's name
            let file = (self.source.as_deref()).unwrap_or(std::path::Path::new(DEFAULT_CONFIG_FILE));
            invalid(format!(
                "no database URL: pass --database-url, set OUTBOXCTL_DATABASE_URL or DATABASE_URL, or add database_url to {}",
                file.display()
            ))
        })
    }

    /// The tenants whose relations exist: every configured tenant for a per-tenant
    /// relation, otherwise one `None`.
    pub fn relation_tenants(&self) -> Result<Vec<Option<Uuid>>, ConfigError> {
        let per_tenant = match &self.outbox.target {
            Target::Postgres {
                relation,
                delivery_log,
                ..
            } => {
                relation.is_per_tenant()
                    || delivery_log
                        .as_ref()
                        .is_some_and(RelationSpec::is_per_tenant)
            }
            Target::Mongo { .. } => false,
        };
        if !per_tenant {
            return Ok(vec![None]);
        }
        if self.outbox.tenants.is_empty() {
            return Err(invalid(
                "the relation is per tenant ({tenant}); list the tenant ids under outbox.tenants",
            ));
        }
        Ok(self.configured_tenants())
    }

    /// Why there is no relay registry (when the target names none): a one-line error naming
    /// `outbox.registry`.
    pub fn no_registry(&self) -> ConfigError {
        if self.registry_off() {
            invalid(
                "outbox.registry is off: set it (or remove `registry: off`) to register relays and pause routes",
            )
        } else {
            invalid(
                "the relation is per tenant ({tenant}): name the relay registry's table under outbox.registry (schema.table)",
            )
        }
    }

    /// The configuration turned the registry off (`registry: off`), rather than lacking a
    /// name for it (a per-tenant relation gives none by default).
    pub fn registry_off(&self) -> bool {
        match &self.outbox.target {
            Target::Postgres {
                registry, relation, ..
            } => registry.is_none() && !relation.is_per_tenant(),
            Target::Mongo { registry, .. } => registry.is_none(),
        }
    }

    /// The configured tenant ids, each as `Some` (what per-tenant code iterates over).
    pub fn configured_tenants(&self) -> Vec<Option<Uuid>> {
        self.outbox.tenants.iter().copied().map(Some).collect()
    }

    /// Whether no relay of this configuration serves `tenant`'s rows: the outbox is
    /// tenant-aware and lists its tenants, not this one.
    pub fn tenant_unlisted(&self, tenant: Uuid) -> bool {
        let listed = &self.outbox.tenants;
        self.outbox.tenant_aware && !listed.is_empty() && !listed.contains(&tenant)
    }

    /// `route R is not in relay.routes (a, b)` when routes are configured and not `route`.
    pub fn route_unconfigured(&self, route: &str) -> Option<String> {
        let routes = &self.relay.routes;
        (!routes.is_empty() && !routes.contains_key(route)).then(|| {
            let known: Vec<&str> = routes.keys().map(String::as_str).collect();
            format!(
                "route {route} is not in relay.routes ({})",
                known.join(", ")
            )
        })
    }

    /// [`Config::route_unconfigured`] as a warning beside what was done with the route anyway
    /// (staged, inspected): relays of another configuration may serve it.
    pub fn route_unserved(&self, route: &str) -> Option<String> {
        let why = self.route_unconfigured(route)?;
        Some(format!("{why}: no relay of this configuration serves it"))
    }
}

#[cfg(test)]
mod tests;
