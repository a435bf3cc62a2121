//! The backend switch, chosen once: [`Backend::of`] reads which store the configuration names
//! (PostgreSQL or MongoDB; the memory store comes from the library and tests), and each
//! variant hands out what a command needs on it: the outboxes to operate on with one
//! connection ([`Outboxes`]), the relay's stores, the wake-up listener (see [`super::wake`]),
//! the replay source (see [`super::replay`]) and the schema's I/O. Below this switch
//! everything is per backend, so no target can name one backend while its connection is to
//! the other. No terminal code.

use std::time::Duration;

use uuid::Uuid;

use super::any::Outboxes;
pub use super::any::{PgOpsSettings, PgTarget};
use super::memory::MemoryOutbox;
use super::mongo::{MongoStore, MongoStoreOptions};
use super::postgres::ops::PgOps;
use super::postgres::{PgStore, PgStoreOptions};
use crate::Error;
use crate::config::{Config, Target};
use crate::target::RelationSpec;
use crate::target::{CollectionName, QualifiedName};

/// The configured backend, and where its outbox lives there.
pub enum Backend<'a> {
    Postgres(Postgres<'a>),
    Mongo(Mongo<'a>),
    /// The in-memory outbox (library and tests; no URL reaches it).
    Memory(MemoryOutbox),
}

/// A PostgreSQL outbox: its relation (maybe one per tenant), delivery log and checkpoint.
pub struct Postgres<'a> {
    pub config: &'a Config,
    pub connect_timeout: Duration,
    pub relation: &'a RelationSpec,
    pub delivery_log: Option<&'a RelationSpec>,
    pub hlc_checkpoint: Option<&'a QualifiedName>,
}

/// A MongoDB outbox: its collection and checkpoint.
pub struct Mongo<'a> {
    pub config: &'a Config,
    pub connect_timeout: Duration,
    pub collection: &'a CollectionName,
    pub hlc_checkpoint: Option<&'a CollectionName>,
}

/// A connection to whichever backend the configuration names.
pub enum Conn {
    Pg(sqlx::PgConnection),
    Mongo(mongodb::Client),
    Memory(MemoryOutbox),
}

impl<'a> Backend<'a> {
    /// The backend the configuration names; nothing is connected yet.
    pub fn of(config: &'a Config, connect_timeout: Duration) -> Self {
        match &config.outbox.target {
            Target::Postgres {
                relation,
                delivery_log,
                hlc_checkpoint,
                ..
            } => Backend::Postgres(Postgres {
                config,
                connect_timeout,
                relation,
                delivery_log: delivery_log.as_ref(),
                hlc_checkpoint: hlc_checkpoint.as_ref(),
            }),
            Target::Mongo {
                collection,
                hlc_checkpoint,
                ..
            } => Backend::Mongo(Mongo {
                config,
                connect_timeout,
                collection,
                hlc_checkpoint: hlc_checkpoint.as_ref(),
            }),
        }
    }

    /// The PostgreSQL backend, for a command that serves PostgreSQL outboxes only.
    pub fn postgres(&self) -> Result<&Postgres<'a>, Error> {
        match self {
            Backend::Postgres(pg) => Ok(pg),
            Backend::Mongo(_) | Backend::Memory(_) => Err(Error::NotConfigured(
                "this command serves PostgreSQL outboxes only (storage moves, delivery-log partitions and their checks are PostgreSQL's)",
            )),
        }
    }

    /// The relay registry (not connected yet on PostgreSQL), or why the configuration has
    /// none (exit 2).
    pub async fn registry(&self) -> Result<super::registry::Registry, Error> {
        use super::registry::Registry;
        match self {
            Backend::Postgres(pg) => {
                let Target::Postgres {
                    registry: Some(r), ..
                } = &pg.config.outbox.target
                else {
                    return Err(pg.config.no_registry().into());
                };
                Ok(Registry::Postgres {
                    registry: super::postgres::registry::PgRegistry {
                        names: crate::schema::registry::RegistryNames::of(r)?,
                    },
                    url: pg.config.require_url()?.clone(),
                    timeout: pg.connect_timeout,
                    conn: None,
                    client: None,
                })
            }
            Backend::Mongo(m) => {
                let Target::Mongo {
                    registry: Some(r), ..
                } = &m.config.outbox.target
                else {
                    return Err(m.config.no_registry().into());
                };
                let pauses = r.sibling("registry pauses", crate::config::PAUSES_SUFFIX)?;
                let client = m.connect().await?;
                Ok(Registry::Mongo {
                    registry: super::mongo::registry::MongoRegistry::new(&client, r, &pauses),
                    name: r.to_string(),
                    beats: 0,
                })
            }
            Backend::Memory(_) => Err(Error::NotConfigured(
                "the memory store keeps no relay registry",
            )),
        }
    }

    /// Connects once to this backend.
    pub async fn connect(&self) -> Result<Conn, Error> {
        Ok(match self {
            Backend::Postgres(pg) => Conn::Pg(pg.connect().await?),
            Backend::Mongo(m) => Conn::Mongo(m.connect().await?),
            Backend::Memory(outbox) => Conn::Memory(outbox.clone()),
        })
    }

    /// Connects once and, on PostgreSQL, checks that the connection holds a transaction (a
    /// pooler in statement mode cannot), so that a bad URL or pooler is told before any work.
    pub async fn check(&self) -> Result<(), Error> {
        match self.connect().await? {
            Conn::Pg(mut conn) => Ok(crate::db::pg::check_transactions(&mut conn).await?),
            Conn::Mongo(_) | Conn::Memory(_) => Ok(()),
        }
    }

    /// The outboxes to operate on (only `only_tenant`'s when given), with one connection to
    /// them. Each target carries the tenant whose rows it reads (the tenant rule): on a
    /// tenant-aware outbox its own tenant, or the one asked for; otherwise the one asked for.
    pub async fn outboxes(&self, only_tenant: Option<Uuid>) -> Result<Outboxes, Error> {
        Ok(match self {
            Backend::Postgres(pg) => {
                let targets = pg.targets(only_tenant)?;
                let conn = pg.connect().await?;
                Outboxes::Postgres {
                    conn,
                    targets,
                    settings: pg.ops_settings(),
                }
            }
            Backend::Mongo(m) => {
                let client = m.connect().await?;
                m.require_outbox(&client).await?;
                m.outboxes_on(client, only_tenant)
            }
            Backend::Memory(outbox) => Outboxes::Memory {
                outbox: outbox.clone(),
                tenants: vec![only_tenant],
            },
        })
    }
}

/// The tenants of a collection shared by every tenant: the one asked for, else every
/// configured one on a tenant-aware outbox, else none in particular.
fn collection_tenants(config: &Config, only_tenant: Option<Uuid>) -> Vec<Option<Uuid>> {
    match only_tenant {
        Some(t) => vec![Some(t)],
        None if config.outbox.tenant_aware && !config.outbox.tenants.is_empty() => {
            config.configured_tenants()
        }
        None => vec![None],
    }
}

impl Postgres<'_> {
    /// A connection to the configured database.
    pub async fn connect(&self) -> Result<sqlx::PgConnection, Error> {
        Ok(crate::db::connect_pg(self.config.require_url()?, self.connect_timeout).await?)
    }

    /// The tables the configuration names, resolved per tenant (only `only_tenant`'s when
    /// given).
    pub fn targets(&self, only_tenant: Option<Uuid>) -> Result<Vec<PgTarget>, Error> {
        let config = self.config;
        let mut tenants: Vec<Option<Uuid>> = if self.relation.is_per_tenant() {
            config.relation_tenants()?
        } else if config.outbox.tenant_aware && only_tenant.is_none() {
            config.configured_tenants()
        } else {
            vec![only_tenant]
        };
        if tenants.is_empty() {
            tenants.push(None);
        }
        if let Some(t) = only_tenant {
            tenants.retain(|x| *x == Some(t));
            if tenants.is_empty() {
                return Err(Error::Usage(format!(
                    "--tenant {t} is not listed under outbox.tenants: add it there, or check the id"
                )));
            }
        }
        tenants
            .into_iter()
            .map(|tenant| {
                Ok(PgTarget {
                    tenant,
                    table: self.relation.resolve(tenant)?,
                    log: self.delivery_log.map(|l| l.resolve(tenant)).transpose()?,
                })
            })
            .collect()
    }

    /// What opening a table's operator view takes from the configuration.
    pub fn ops_settings(&self) -> PgOpsSettings {
        PgOpsSettings {
            hlc_ordering: self.config.outbox.hlc_ordering,
            propagate_trace: self.config.outbox.propagate_trace,
            reclaim_stale_after: self.config.relay.reclaim_stale_after,
            checkpoint: self.hlc_checkpoint.cloned(),
            storage: self.config.outbox.storage,
        }
    }

    /// Opens the operator's view of one target.
    pub async fn open<'c>(
        &self,
        conn: &'c mut sqlx::PgConnection,
        t: &PgTarget,
    ) -> Result<PgOps<'c>, Error> {
        self.ops_settings().open(conn, t).await
    }

    /// The relay's store options for this outbox.
    pub fn store_options(&self) -> PgStoreOptions {
        PgStoreOptions::from_config(
            self.config,
            self.relation.clone(),
            self.delivery_log.cloned(),
        )
    }

    /// One relay store (a connection of its own, checked to hold a transaction).
    pub async fn relay_store(&self, opts: PgStoreOptions) -> Result<PgStore<'static>, Error> {
        PgStore::connect(self.config.require_url()?, self.connect_timeout, opts).await
    }
}

impl Mongo<'_> {
    /// A client of the configured deployment.
    pub async fn connect(&self) -> Result<mongodb::Client, Error> {
        Ok(crate::db::connect_mongo(self.config.require_url()?, self.connect_timeout).await?)
    }

    /// The outbox collection exists (`migrate` made it, with its unique index). MongoDB would
    /// make a mistyped one at the first write, without that index, and find nothing to read
    /// or relay in it, where PostgreSQL says the table does not exist.
    pub async fn require_outbox(&self, client: &mongodb::Client) -> Result<(), Error> {
        let ns = self.collection;
        let found = crate::db::mongo_collection_exists(client, &ns.db, &ns.collection).await;
        if !found.map_err(|e| Error::mongo("looking for the outbox collection", e))? {
            return Err(Error::SchemaMissing(format!(
                "outbox collection {ns} does not exist; create it with `outboxctl migrate`"
            )));
        }
        Ok(())
    }

    /// The collection, read per tenant (only `only_tenant`'s when given), through `client`.
    pub fn outboxes_on(&self, client: mongodb::Client, only_tenant: Option<Uuid>) -> Outboxes {
        Outboxes::Mongo {
            client,
            opts: self.store_options(),
            checkpoint: self.hlc_checkpoint.cloned(),
            reclaim_stale_after: self.config.relay.reclaim_stale_after,
            tenants: collection_tenants(self.config, only_tenant),
        }
    }

    /// The relay's store options for this outbox.
    pub fn store_options(&self) -> MongoStoreOptions {
        MongoStoreOptions::from_config(self.config, self.collection.clone())
    }

    /// One relay store; more for other lanes are [`MongoStore::fork`]s of it (one client).
    pub async fn relay_store(&self) -> Result<MongoStore, Error> {
        let store = MongoStore::connect(
            self.config.require_url()?,
            self.connect_timeout,
            self.store_options(),
        )
        .await?;
        self.require_outbox(store.database().client()).await?;
        Ok(store)
    }
}
