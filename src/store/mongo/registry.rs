//! The relay registry and route pauses on MongoDB: a document per relay (`_id` its id) and a
//! document per pause (`active` while in force). Times are the server's (`$$NOW`); a relay
//! sends how long ago its last pass finished. A heartbeat upserts the relay's document and
//! reads the pauses in force (and prunes, every few beats); the relays' states are judged in
//! an aggregation on the server.

use chrono::{DateTime, Utc};
use futures_util::TryStreamExt;
use mongodb::bson::{Bson, Document, doc};
use mongodb::options::ReturnDocument;
use mongodb::{Client, Collection};
use uuid::Uuid;

use super::{date_field, str_field, uuid_field};
use crate::Error;
use crate::fleet::{
    BeatAnswer, Heartbeat, MISSED_BEATS_STALE, PRUNE_AFTER, Pause, PauseRecord, PauseSet,
    RelayRecord, RelayState,
};
use crate::target::CollectionName;

/// The registry's collections.
#[derive(Clone)]
pub struct MongoRegistry {
    client: Client,
    relays: Collection<Document>,
    pauses: Collection<Document>,
    /// The registry's collection was found: not looked for again (`route pause` reads it
    /// twice, `top` at each refresh).
    found: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

fn date(d: &Document, key: &str) -> Option<DateTime<Utc>> {
    date_field(d, key).ok().flatten()
}

fn number(d: &Document, key: &str) -> Option<f64> {
    match d.get(key)? {
        Bson::Int32(i) => Some(f64::from(*i)),
        Bson::Int64(i) => Some(*i as f64),
        Bson::Double(f) => Some(*f),
        _ => None,
    }
}

fn tenant_of(d: &Document) -> Option<Uuid> {
    uuid_field(d, "tenant_id").ok().flatten()
}

fn pause_of(d: &Document) -> Pause {
    Pause {
        route: str_field(d, "route").unwrap_or_default(),
        tenant: tenant_of(d),
        reason: str_field(d, "reason").unwrap_or_default(),
        by: str_field(d, "paused_by").unwrap_or_default(),
        since: date(d, "paused_at").unwrap_or_default(),
    }
}

fn tenant_bson(tenant: Option<Uuid>) -> Bson {
    tenant.map_or(Bson::Null, |t| Bson::String(t.to_string()))
}

impl MongoRegistry {
    /// The registry's collection exists (`migrate` made it). Without it a read finds nothing
    /// (`route list` said no pause, `inspect relays` no relay), and a pause would make its
    /// collection in whatever database the URL names, a mistyped one too.
    async fn require(&self) -> Result<(), Error> {
        use std::sync::atomic::Ordering;
        if self.found.load(Ordering::Relaxed) {
            return Ok(());
        }
        // the pauses' collection too: a pause would make it, without its index (one went in
        // where migrate had not been run since it was dropped)
        for ns in [self.relays.namespace(), self.pauses.namespace()] {
            let found = crate::db::mongo_collection_exists(&self.client, &ns.db, &ns.coll).await;
            if !found.map_err(|e| Error::mongo("looking for the relay registry", e))? {
                return Err(Error::SchemaMissing(format!(
                    "the relay registry {ns} does not exist: run `outboxctl migrate`"
                )));
            }
        }
        self.found.store(true, Ordering::Relaxed);
        Ok(())
    }

    pub fn new(client: &Client, registry: &CollectionName, pauses: &CollectionName) -> Self {
        let coll = |c: &CollectionName| client.database(&c.db).collection(&c.collection);
        Self {
            client: client.clone(),
            relays: coll(registry),
            pauses: coll(pauses),
            found: Default::default(),
        }
    }

    /// One heartbeat: the relay's document upserted at the server's time, stale documents
    /// pruned (when `prune`), the pauses in force read.
    pub async fn beat(&self, hb: &Heartbeat, prune: bool) -> Result<BeatAnswer, Error> {
        // an upsert would make the registry's collection, where `migrate` did not (a mistyped
        // database too): the relay says it does not register instead, as on PostgreSQL
        self.require().await?;
        let fail = |e| Error::mongo("heartbeat into the relay registry", e);
        let last_pass = match hb.last_pass.map(|t| t.elapsed()) {
            Some(ago) => Bson::Document(
                doc! { "$subtract": ["$$NOW", i64::try_from(ago.as_millis()).unwrap_or(i64::MAX)] },
            ),
            None => Bson::String("$last_pass_at".into()),
        };
        let set = doc! {
            "host": literal(&hb.host),
            "pid": i64::from(hb.pid),
            "version": literal(&hb.version),
            "routes": literal(&hb.routes),
            "tenants": hb.tenants.iter().map(Uuid::to_string).collect::<Vec<_>>(),
            "started_at": { "$ifNull": ["$started_at", "$$NOW"] },
            "last_seen": "$$NOW",
            "last_pass_at": last_pass,
            "last_error": hb.last_error.as_deref().map_or(Bson::Null, literal),
            "published": i64::try_from(hb.published).unwrap_or(i64::MAX),
            "lag_p99_ms": hb.lag_p99_ms.map_or(Bson::Null, Bson::Double),
            "metrics_addr": hb.metrics_addr.as_deref().map_or(Bson::Null, literal),
            "heartbeat_ms": i64::try_from(hb.interval.as_millis()).unwrap_or(i64::MAX),
            "stopped_at": Bson::Null,
        };
        let row = self
            .relays
            .find_one_and_update(doc! { "_id": &hb.id }, vec![doc! { "$set": set }])
            .upsert(true)
            .return_document(ReturnDocument::After)
            .await
            .map_err(fail)?;
        let server_now = row
            .as_ref()
            .and_then(|d| date(d, "last_seen"))
            .unwrap_or_else(Utc::now);
        if prune {
            let old = i64::try_from(PRUNE_AFTER.as_millis()).unwrap_or(i64::MAX);
            self.relays
                .delete_many(doc! {
                    "_id": { "$ne": &hb.id },
                    "$expr": { "$lt": ["$last_seen", { "$subtract": ["$$NOW", old] }] },
                })
                .await
                .map_err(fail)?;
        }
        let pauses = self.find_pauses(doc! { "active": true }).await?;
        Ok(BeatAnswer {
            server_now,
            pauses: PauseSet(pauses.iter().map(pause_of).collect()),
        })
    }

    /// Marks the relay's document stopped.
    pub async fn stop(&self, id: &str) -> Result<(), Error> {
        self.relays
            .update_one(
                doc! { "_id": id },
                vec![doc! { "$set": { "stopped_at": "$$NOW", "last_seen": "$$NOW" } }],
            )
            .await
            .map(drop)
            .map_err(|e| Error::mongo("stopping a relay in the relay registry", e))
    }

    /// Every relay registered, its state judged on the server.
    pub async fn relays(&self) -> Result<Vec<RelayRecord>, Error> {
        self.require().await?;
        let fail = |e| Error::mongo("reading the relay registry", e);
        let stale_after = doc! { "$multiply": ["$heartbeat_ms", i64::from(MISSED_BEATS_STALE)] };
        let pipeline = vec![
            doc! { "$addFields": { "state": { "$switch": { "branches": [
                { "case": { "$ne": [{ "$ifNull": ["$stopped_at", Bson::Null] }, Bson::Null] }, "then": "stopped" },
                { "case": { "$lt": ["$last_seen", { "$subtract": ["$$NOW", stale_after] }] }, "then": "stale" },
            ], "default": "live" } } } },
            doc! { "$sort": { "started_at": 1, "_id": 1 } },
        ];
        let docs: Vec<Document> = self
            .relays
            .aggregate(pipeline)
            .await
            .map_err(fail)?
            .try_collect()
            .await
            .map_err(fail)?;
        Ok(docs
            .iter()
            .map(|d| RelayRecord {
                id: str_field(d, "_id").unwrap_or_default(),
                host: str_field(d, "host").unwrap_or_default(),
                pid: number(d, "pid").map_or(0, |p| p as u32),
                version: str_field(d, "version").unwrap_or_default(),
                routes: strings(d, "routes"),
                tenants: strings(d, "tenants")
                    .iter()
                    .filter_map(|t| Uuid::parse_str(t).ok())
                    .collect(),
                state: str_field(d, "state")
                    .and_then(|s| RelayState::parse(&s))
                    .unwrap_or(RelayState::Stale),
                started_at: date(d, "started_at").unwrap_or_default(),
                last_seen: date(d, "last_seen").unwrap_or_default(),
                last_pass_at: date(d, "last_pass_at"),
                last_error: str_field(d, "last_error"),
                published: number(d, "published").map_or(0, |p| p as u64),
                lag_p99_ms: number(d, "lag_p99_ms"),
                metrics_addr: str_field(d, "metrics_addr"),
            })
            .collect())
    }

    /// The pause documents `filter` selects, oldest first.
    async fn find_pauses(&self, filter: Document) -> Result<Vec<Document>, Error> {
        let fail = |e| Error::mongo("reading the route pauses", e);
        self.pauses
            .find(filter)
            .sort(doc! { "paused_at": 1, "route": 1 })
            .await
            .map_err(fail)?
            .try_collect()
            .await
            .map_err(fail)
    }

    /// The pauses in force, or (`history`) every pause ever made, oldest first.
    pub async fn pauses(&self, history: bool) -> Result<Vec<PauseRecord>, Error> {
        self.require().await?;
        let filter = if history {
            doc! {}
        } else {
            doc! { "active": true }
        };
        Ok(self
            .find_pauses(filter)
            .await?
            .iter()
            .map(|d| PauseRecord {
                pause: pause_of(d),
                resumed_at: date(d, "resumed_at"),
                resumed_by: str_field(d, "resumed_by"),
            })
            .collect())
    }

    /// The user this client authenticated as (empty without authentication).
    async fn db_role(&self) -> String {
        let status = self
            .client
            .database("admin")
            .run_command(doc! { "connectionStatus": 1 })
            .await;
        status
            .ok()
            .and_then(|s| {
                let users = s
                    .get_document("authInfo")
                    .ok()?
                    .get_array("authenticatedUsers")
                    .ok()?;
                users
                    .first()?
                    .as_document()?
                    .get_str("user")
                    .ok()
                    .map(str::to_owned)
            })
            .unwrap_or_default()
    }

    /// Pauses `route` (for `tenant`, else every tenant). `Err(pause)`: paused already.
    pub async fn pause(
        &self,
        route: &str,
        tenant: Option<Uuid>,
        reason: &str,
        by: &str,
    ) -> Result<Result<Pause, Pause>, Error> {
        self.require().await?;
        let fail = |e| Error::mongo("pausing a route", e);
        let by = crate::fleet::actor(by, &self.db_role().await);
        let filter = doc! { "route": route, "tenant_id": tenant_bson(tenant), "active": true };
        let before = self
            .pauses
            .find_one_and_update(
                filter.clone(),
                vec![doc! { "$set": {
                    "reason": { "$ifNull": ["$reason", literal(reason)] },
                    "paused_by": { "$ifNull": ["$paused_by", literal(&by)] },
                    "paused_at": { "$ifNull": ["$paused_at", "$$NOW"] },
                } }],
            )
            .upsert(true)
            .return_document(ReturnDocument::Before)
            .await
            .map_err(fail)?;
        if let Some(existing) = before {
            return Ok(Err(pause_of(&existing)));
        }
        let made = self.pauses.find_one(filter).await.map_err(fail)?;
        Ok(Ok(made.as_ref().map(pause_of).unwrap_or_else(|| Pause {
            route: route.into(),
            tenant,
            reason: reason.into(),
            by,
            since: Utc::now(),
        })))
    }

    /// Resumes `route` (for `tenant`, else the pause of every tenant): the pause ended, or
    /// `None` when it was not paused.
    pub async fn resume(
        &self,
        route: &str,
        tenant: Option<Uuid>,
        by: &str,
    ) -> Result<Option<Pause>, Error> {
        self.require().await?;
        let fail = |e| Error::mongo("resuming a route", e);
        let by = crate::fleet::actor(by, &self.db_role().await);
        let active = doc! { "route": route, "tenant_id": tenant_bson(tenant), "active": true };
        let first = (self.pauses.find_one(active.clone()))
            .sort(doc! { "paused_at": 1 })
            .await
            .map_err(fail)?;
        if first.is_some() {
            // every pause in force: two pauses made at once can both be in force (nothing
            // unique keeps them apart), and ending one would leave the route paused
            self.pauses
                .update_many(
                    active,
                    vec![doc! { "$set": { "active": false, "resumed_at": "$$NOW", "resumed_by": literal(&by) } }],
                )
                .await
                .map_err(fail)?;
        }
        Ok(first.as_ref().map(pause_of))
    }
}

/// A value as itself in an update pipeline, where a string starting with `$` would be read as a
/// field path (a pause's reason `$5 refunds`, an error text).
fn literal(value: impl Into<Bson>) -> Bson {
    Bson::Document(doc! { "$literal": value.into() })
}

fn strings(d: &Document, key: &str) -> Vec<String> {
    d.get_array(key)
        .map(|a| {
            a.iter()
                .filter_map(|b| b.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}
