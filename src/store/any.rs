//! One way from a command to the database: the outboxes the configuration names (a table per
//! tenant, or the MongoDB collection), one connection to whichever backend it names, and the
//! operator's primitives ([`OpsStore`]) on either, chosen once here. No terminal code.

use std::time::Duration;

use uuid::Uuid;

use super::ops::{ErrorFilter, EventLocation, OpsStore, RouteSummary, RowFilter, RowView};
use super::postgres::ops::PgOps;
use crate::Error;
use crate::config::{Config, Target};
use crate::target::QualifiedName;

/// One outbox table to operate on (one per tenant for a per-tenant relation).
pub struct PgTarget {
    pub tenant: Option<Uuid>,
    pub table: QualifiedName,
    pub log: Option<QualifiedName>,
}

/// The PostgreSQL tables the configuration names, resolved per tenant.
pub fn pg_targets(config: &Config, only_tenant: Option<Uuid>) -> Result<Vec<PgTarget>, Error> {
    let Target::Postgres {
        relation,
        delivery_log,
        ..
    } = &config.outbox.target
    else {
        return Err(Error::Runtime(
            "this command serves PostgreSQL outboxes only (storage moves, delivery-log partitions and their checks are PostgreSQL's)".into(),
        ));
    };
    let mut tenants: Vec<Option<Uuid>> = if relation.is_per_tenant() {
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
            return Err(Error::Runtime(format!(
                "tenant {t} is not listed under outbox.tenants"
            )));
        }
    }
    tenants
        .into_iter()
        .map(|tenant| {
            Ok(PgTarget {
                tenant,
                table: relation.resolve(tenant)?,
                log: delivery_log
                    .as_ref()
                    .map(|l| l.resolve(tenant))
                    .transpose()?,
            })
        })
        .collect()
}

/// Opens the operator's view of one target.
pub async fn open_pg<'c>(
    config: &Config,
    conn: &'c mut sqlx::PgConnection,
    t: &PgTarget,
) -> Result<PgOps<'c>, Error> {
    let mut ops = PgOps::open(conn, t.table.clone()).await?;
    ops.log = t.log.clone();
    ops.hlc_ordering = config.outbox.hlc_ordering;
    ops.propagate_trace = config.outbox.propagate_trace;
    ops.reclaim_stale_after = config.relay.reclaim_stale_after;
    if let Target::Postgres { hlc_checkpoint, .. } = &config.outbox.target {
        ops.checkpoint = hlc_checkpoint.clone();
    }
    Ok(ops)
}

/// A PostgreSQL connection to the configured database.
pub async fn connect_pg(config: &Config, timeout: Duration) -> Result<sqlx::PgConnection, Error> {
    Ok(crate::db::connect_pg(config.require_url()?, timeout).await?)
}

/// A MongoDB client for a command that only runs on MongoDB.
pub async fn connect_mongo(config: &Config, timeout: Duration) -> Result<mongodb::Client, Error> {
    Ok(crate::db::connect_mongo(config.require_url()?, timeout).await?)
}

/// A connection to whichever backend the configuration names.
pub enum Conn {
    Pg(sqlx::PgConnection),
    Mongo(mongodb::Client),
}

/// One outbox to operate on: a PostgreSQL table (per tenant), or the MongoDB collection.
pub struct OpsTarget {
    pub tenant: Option<Uuid>,
    pub pg: Option<PgTarget>,
}

/// The outboxes the configuration names: a table per tenant, or the collection.
pub fn targets(config: &Config, only_tenant: Option<Uuid>) -> Result<Vec<OpsTarget>, Error> {
    match &config.outbox.target {
        Target::Postgres { .. } => Ok(pg_targets(config, only_tenant)?
            .into_iter()
            .map(|t| OpsTarget {
                tenant: t.tenant,
                pg: Some(t),
            })
            .collect()),
        Target::Mongo { .. } => {
            let tenants: Vec<Option<Uuid>> = match only_tenant {
                Some(t) => vec![Some(t)],
                None if config.outbox.tenant_aware && !config.outbox.tenants.is_empty() => {
                    config.configured_tenants()
                }
                None => vec![None],
            };
            Ok(tenants
                .into_iter()
                .map(|tenant| OpsTarget { tenant, pg: None })
                .collect())
        }
    }
}

/// Connects once to whichever backend the configuration names.
pub async fn connect(config: &Config, timeout: Duration) -> Result<Conn, Error> {
    let url = config.require_url()?;
    Ok(match &config.outbox.target {
        Target::Postgres { .. } => Conn::Pg(crate::db::connect_pg(url, timeout).await?),
        Target::Mongo { .. } => Conn::Mongo(crate::db::connect_mongo(url, timeout).await?),
    })
}

/// The operator's primitives on any backend (the memory store: from the library and tests).
pub enum AnyOps<'c> {
    Pg(PgOps<'c>),
    Mongo(crate::store::mongo::ops::MongoOps),
    Memory(crate::store::memory::MemoryStore),
}

/// Opens the operator's primitives on one target.
pub async fn open<'c>(
    config: &Config,
    conn: &'c mut Conn,
    t: &OpsTarget,
) -> Result<AnyOps<'c>, Error> {
    match (conn, &t.pg, &config.outbox.target) {
        (Conn::Pg(c), Some(pg), _) => Ok(AnyOps::Pg(open_pg(config, c, pg).await?)),
        (
            Conn::Mongo(client),
            None,
            Target::Mongo {
                collection,
                hlc_checkpoint,
            },
        ) => {
            let opts =
                crate::store::mongo::MongoStoreOptions::from_config(config, collection.clone());
            let mut ops = crate::store::mongo::ops::MongoOps::new(
                client.clone(),
                opts,
                hlc_checkpoint.clone(),
            );
            ops.reclaim_stale_after = config.relay.reclaim_stale_after;
            Ok(AnyOps::Mongo(ops))
        }
        _ => Err(Error::Runtime(
            "the connection does not match the configured backend".into(),
        )),
    }
}

macro_rules! delegate {
    ($self:ident, $ops:ident => $call:expr) => {
        match $self {
            AnyOps::Pg($ops) => $call,
            AnyOps::Mongo($ops) => $call,
            AnyOps::Memory($ops) => $call,
        }
    };
}

impl OpsStore for AnyOps<'_> {
    async fn routes(&mut self) -> Result<Vec<String>, Error> {
        delegate!(self, o => o.routes().await)
    }
    async fn summary(
        &mut self,
        route: &str,
        tenant: Option<Uuid>,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<RouteSummary, Error> {
        delegate!(self, o => o.summary(route, tenant, now).await)
    }
    async fn list(
        &mut self,
        filter: &RowFilter,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<Vec<RowView>, Error> {
        delegate!(self, o => o.list(filter, now).await)
    }
    async fn error_rows(&mut self, filter: &ErrorFilter) -> Result<Vec<RowView>, Error> {
        delegate!(self, o => o.error_rows(filter).await)
    }

    async fn glance(
        &mut self,
        route: &str,
        tenant: Option<Uuid>,
        now: chrono::DateTime<chrono::Utc>,
        cap: i64,
    ) -> Result<super::ops::Glance, Error> {
        delegate!(self, o => o.glance(route, tenant, now, cap).await)
    }
    async fn activity(&mut self) -> Result<Option<super::ops::Activity>, Error> {
        delegate!(self, o => o.activity().await)
    }

    async fn find_event(&mut self, event_id: Uuid) -> Result<EventLocation, Error> {
        delegate!(self, o => o.find_event(event_id).await)
    }
    async fn blocked(
        &mut self,
        route: Option<&str>,
        tenant: Option<Uuid>,
        now: chrono::DateTime<chrono::Utc>,
        limit: u32,
    ) -> Result<Vec<crate::store::ops::BlockedKey>, Error> {
        delegate!(self, o => o.blocked(route, tenant, now, limit).await)
    }
    async fn requeue(&mut self, ids: &[Uuid]) -> Result<Vec<Uuid>, Error> {
        delegate!(self, o => o.requeue(ids).await)
    }
    async fn discard(&mut self, ids: &[Uuid]) -> Result<Vec<Uuid>, Error> {
        delegate!(self, o => o.discard(ids).await)
    }
    async fn stage(
        &mut self,
        events: &[crate::store::ops::NewEvent],
        node_key: &str,
    ) -> Result<Vec<crate::store::ops::Staged>, Error> {
        delegate!(self, o => o.stage(events, node_key).await)
    }
    async fn checkpoints(
        &mut self,
    ) -> Result<Option<Vec<crate::store::ops::CheckpointRow>>, Error> {
        delegate!(self, o => o.checkpoints().await)
    }
}
