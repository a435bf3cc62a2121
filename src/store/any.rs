//! One way from a command to its outboxes: [`Outboxes`] is one connection to the configured
//! backend bound to the outboxes on it (a table per tenant, or the collection), handed out by
//! [`super::backend::Backend::outboxes`]; each opens as [`AnyOps`], the operator's primitives
//! ([`OpsStore`]) on whichever backend it is. A target and its connection are one backend's
//! by construction. No terminal code.

use std::time::Duration;

use uuid::Uuid;

use super::memory::MemoryOutbox;
use super::mongo::MongoStoreOptions;
use super::ops::{ErrorFilter, EventLocation, OpsStore, RouteSummary, RowFilter, RowView};
use super::postgres::ops::PgOps;
use crate::Error;
use crate::target::{CollectionName, QualifiedName};

/// One outbox table to operate on (one per tenant for a per-tenant relation).
#[derive(Debug, Clone)]
pub struct PgTarget {
    pub tenant: Option<Uuid>,
    pub table: QualifiedName,
    pub log: Option<QualifiedName>,
}

/// What opening the operator's view of a PostgreSQL table takes from the configuration.
#[derive(Debug, Clone)]
pub struct PgOpsSettings {
    pub hlc_ordering: bool,
    pub propagate_trace: bool,
    pub reclaim_stale_after: Option<Duration>,
    pub checkpoint: Option<QualifiedName>,
    pub storage: crate::model::Storage,
}

impl PgOpsSettings {
    /// Opens the operator's view of one target.
    pub async fn open<'c>(
        &self,
        conn: &'c mut sqlx::PgConnection,
        t: &PgTarget,
    ) -> Result<PgOps<'c>, Error> {
        let mut ops = PgOps::open(conn, t.table.clone()).await?;
        ops.log = t.log.clone();
        ops.hlc_ordering = self.hlc_ordering;
        ops.propagate_trace = self.propagate_trace;
        ops.reclaim_stale_after = self.reclaim_stale_after;
        ops.checkpoint = self.checkpoint.clone();
        ops.storage = self.storage;
        Ok(ops)
    }
}

/// One connection to the configured backend and the outboxes on it.
pub enum Outboxes {
    /// The tables (one per tenant for a per-tenant relation).
    Postgres {
        conn: sqlx::PgConnection,
        targets: Vec<PgTarget>,
        settings: PgOpsSettings,
    },
    /// The collection, read per tenant.
    Mongo {
        client: mongodb::Client,
        opts: MongoStoreOptions,
        checkpoint: Option<CollectionName>,
        reclaim_stale_after: Option<std::time::Duration>,
        tenants: Vec<Option<Uuid>>,
    },
    /// The in-memory outbox, read per tenant.
    Memory {
        outbox: MemoryOutbox,
        tenants: Vec<Option<Uuid>>,
    },
}

/// One outbox to operate on: a PostgreSQL table (per tenant), or the collection.
#[derive(Debug, Clone, Copy)]
pub enum OpsTarget<'t> {
    Postgres(&'t PgTarget),
    Mongo { tenant: Option<Uuid> },
    Memory { tenant: Option<Uuid> },
}

impl OpsTarget<'_> {
    /// The tenant whose rows this target reads (the tenant rule, applied when the targets
    /// were resolved: on a tenant-aware outbox the target's own tenant, or the one asked for;
    /// otherwise the one asked for).
    pub fn tenant(self) -> Option<Uuid> {
        match self {
            OpsTarget::Postgres(t) => t.tenant,
            OpsTarget::Mongo { tenant } | OpsTarget::Memory { tenant } => tenant,
        }
    }

    /// The table, on PostgreSQL.
    pub fn table(&self) -> Option<&QualifiedName> {
        match self {
            OpsTarget::Postgres(t) => Some(&t.table),
            OpsTarget::Mongo { .. } | OpsTarget::Memory { .. } => None,
        }
    }
}

impl Outboxes {
    /// How many outboxes.
    pub fn len(&self) -> usize {
        match self {
            Outboxes::Postgres { targets, .. } => targets.len(),
            Outboxes::Mongo { tenants, .. } | Outboxes::Memory { tenants, .. } => tenants.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`th outbox.
    pub fn target(&self, i: usize) -> OpsTarget<'_> {
        match self {
            Outboxes::Postgres { targets, .. } => OpsTarget::Postgres(&targets[i]),
            Outboxes::Mongo { tenants, .. } => OpsTarget::Mongo { tenant: tenants[i] },
            Outboxes::Memory { tenants, .. } => OpsTarget::Memory { tenant: tenants[i] },
        }
    }

    /// Every outbox, in order.
    pub fn targets(&self) -> impl Iterator<Item = OpsTarget<'_>> {
        (0..self.len()).map(|i| self.target(i))
    }

    /// Opens the operator's primitives on the `i`th outbox (a PostgreSQL table that is not an
    /// outbox refused).
    pub async fn open(&mut self, i: usize) -> Result<AnyOps<'_>, Error> {
        Ok(match self {
            Outboxes::Postgres {
                conn,
                targets,
                settings,
            } => {
                let ops = settings.open(conn, &targets[i]).await?;
                ops.require_outbox()?;
                AnyOps::Pg(ops)
            }
            Outboxes::Mongo {
                client,
                opts,
                checkpoint,
                reclaim_stale_after,
                ..
            } => {
                let mut ops = crate::store::mongo::ops::MongoOps::new(
                    client.clone(),
                    opts.clone(),
                    checkpoint.clone(),
                );
                ops.reclaim_stale_after = *reclaim_stale_after;
                AnyOps::Mongo(ops)
            }
            Outboxes::Memory { outbox, .. } => AnyOps::Memory(outbox.store()),
        })
    }
}

/// The operator's primitives on any backend (the memory store: from the library and tests).
pub enum AnyOps<'c> {
    Pg(PgOps<'c>),
    Mongo(crate::store::mongo::ops::MongoOps),
    Memory(crate::store::memory::MemoryStore),
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
    async fn delivered_routes(
        &mut self,
        since: chrono::DateTime<chrono::Utc>,
        tenant: Option<Uuid>,
    ) -> Result<Vec<String>, Error> {
        delegate!(self, o => o.delivered_routes(since, tenant).await)
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
    async fn position_of(
        &mut self,
        id: Uuid,
    ) -> Result<Option<crate::store::ops::RowPosition>, Error> {
        delegate!(self, o => o.position_of(id).await)
    }
    async fn failed_among(
        &mut self,
        ids: &[Uuid],
        tenant: Option<Uuid>,
    ) -> Result<Vec<Uuid>, Error> {
        delegate!(self, o => o.failed_among(ids, tenant).await)
    }
    async fn requeue(&mut self, rows: &[super::ops::Chosen]) -> Result<Vec<Uuid>, Error> {
        delegate!(self, o => o.requeue(rows).await)
    }
    async fn discard(
        &mut self,
        rows: &[super::ops::Chosen],
        keep: Option<&mut super::ops::Keep<'_>>,
    ) -> Result<Vec<Uuid>, Error> {
        delegate!(self, o => o.discard(rows, keep).await)
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
