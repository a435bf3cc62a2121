//! The MongoDB store (retain storage only), as `semantics.md` describes forze's, except that
//! marks go by the `_id`s read at the claim (forze marks by `{id: {$in: …}}`, which no
//! recommended index covers). Documents carry the row id as the string field `id`, UUIDs as
//! strings, timestamps as BSON dates, `hlc` as a 64-bit integer; `traceparent` is stored and
//! read when trace propagation is on (forze ignores it on MongoDB).

pub mod diagnostics;
pub mod ops;
pub mod registry;
pub mod replay;
mod stage;
pub(crate) mod strict;
pub mod wake;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures_util::TryStreamExt;
use mongodb::bson::{Bson, Document, doc};
use mongodb::options::FindOptions;
use mongodb::{Collection, Database};
use uuid::Uuid;

use super::{Claimed, PassTarget, RelayStore, StoreError};
use crate::model::KeyOrder;
use crate::model::{Message, OutboxRow};
use crate::target::{CollectionName, QualifiedName};
pub(crate) use strict::{Position, blocking_documents};

#[derive(Debug, Clone)]
pub struct MongoStoreOptions {
    pub collection: CollectionName,
    pub hlc_ordering: bool,
    pub propagate_trace: bool,
    pub tenant_aware: bool,
    pub key_order: KeyOrder,
}

impl MongoStoreOptions {
    /// The options a configuration asks for, for this collection.
    pub fn from_config(config: &crate::config::Config, collection: CollectionName) -> Self {
        Self {
            collection,
            hlc_ordering: config.outbox.hlc_ordering,
            propagate_trace: config.outbox.propagate_trace,
            tenant_aware: config.outbox.tenant_aware,
            key_order: config.relay.key_order,
        }
    }
}

pub struct MongoStore {
    db: Database,
    coll: Collection<Document>,
    opts: MongoStoreOptions,
    /// Row id → `_id`, for the rows of the current claim (shared with the store claiming ahead
    /// for this one: [`MongoStore::sharing`]).
    ids: Arc<Mutex<HashMap<Uuid, Bson>>>,
    /// The index strict order's check reads through, by name ([`MongoStore::choose_key_index`]).
    key_index: String,
}

fn err(context: &'static str, e: mongodb::error::Error) -> StoreError {
    StoreError {
        context,
        message: crate::db::mongo_message(&e),
        fault: crate::db::fault::Fault::of_mongo(&e),
    }
}

fn bad(context: &'static str, message: String) -> StoreError {
    StoreError::other(context, message)
}

/// Runs a query and collects its cursor, so a caller maps one error, not two.
pub async fn collect<Q>(query: Q) -> mongodb::error::Result<Vec<Document>>
where
    Q: std::future::IntoFuture<Output = mongodb::error::Result<mongodb::Cursor<Document>>>,
{
    query.await?.try_collect().await
}

pub fn bson_date(t: DateTime<Utc>) -> Bson {
    Bson::DateTime(mongodb::bson::DateTime::from_millis(t.timestamp_millis()))
}

/// The sort of a claim: `created_at, id`, or with HLC `hlc, created_at, id` (missing `hlc`
/// sorts first on MongoDB, the inverse of PostgreSQL's NULLS LAST).
pub fn claim_sort(hlc: bool) -> Document {
    if hlc {
        doc! { "hlc": 1, "created_at": 1, "id": 1 }
    } else {
        doc! { "created_at": 1, "id": 1 }
    }
}

/// What the documents a claim made at `claimed_at` still holds match: the `processing_at` it
/// wrote (a document reclaimed and claimed again since is another relay's).
fn held_by(claimed_at: DateTime<Utc>) -> Document {
    doc! { "processing_at": bson_date(claimed_at) }
}

pub(super) fn uuid_field(d: &Document, key: &str) -> Result<Option<Uuid>, String> {
    match d.get(key) {
        None | Some(Bson::Null) => Ok(None),
        Some(Bson::String(s)) => Uuid::parse_str(s)
            .map(Some)
            .map_err(|e| format!("{key} {s:?} is not a UUID: {e}")),
        Some(Bson::Binary(b)) => Uuid::from_slice(&b.bytes)
            .map(Some)
            .map_err(|e| format!("{key}: {e}")),
        Some(other) => Err(format!("{key} is {other:?}, not a UUID string")),
    }
}

pub(super) fn date_field(d: &Document, key: &str) -> Result<Option<DateTime<Utc>>, String> {
    match d.get(key) {
        None | Some(Bson::Null) => Ok(None),
        Some(Bson::DateTime(t)) => Ok(DateTime::<Utc>::from_timestamp_millis(t.timestamp_millis())),
        Some(other) => Err(format!("{key} is {other:?}, not a date")),
    }
}

pub(super) fn str_field(d: &Document, key: &str) -> Option<String> {
    d.get_str(key).ok().map(str::to_owned)
}

/// `ordering_key`: a string, or absent or null. Another type is no key this relay can send in
/// order (it was read as none, and the event went out keyed by its id, out of its key's order).
fn key_field(d: &Document) -> Result<Option<String>, String> {
    match d.get("ordering_key") {
        None | Some(Bson::Null) => Ok(None),
        Some(Bson::String(k)) => Ok(Some(k.clone())),
        Some(other) => Err(format!(
            "ordering_key is {other} ({:?}), not a string",
            other.element_type()
        )),
    }
}

/// `attempts`, whatever number type a writer stored it as (0 when absent).
pub(super) fn attempts_field(d: &Document) -> i32 {
    match d.get("attempts") {
        Some(Bson::Int32(i)) => *i,
        Some(Bson::Int64(i)) => *i as i32,
        Some(Bson::Double(f)) => *f as i32,
        _ => 0,
    }
}

/// The payload sub-document as JSON text, key order kept.
pub fn payload_json(d: &Document) -> String {
    match d.get("payload") {
        Some(b) => b.clone().into_relaxed_extjson().to_string(),
        None => "null".into(),
    }
}

/// A document that is not an outbox row as the specification lays one out: which field, and why.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct DecodeError(String);

/// The outbox row a document holds.
pub fn decode(d: &Document, opts: &MongoStoreOptions) -> Result<OutboxRow, DecodeError> {
    fields(d, opts).map_err(DecodeError)
}

fn fields(d: &Document, opts: &MongoStoreOptions) -> Result<OutboxRow, String> {
    let req = |r: Option<Uuid>, k: &str| r.ok_or_else(|| format!("{k} is missing"));
    Ok(OutboxRow {
        id: req(uuid_field(d, "id")?, "id")?,
        route: str_field(d, "outbox_route").ok_or("outbox_route is missing")?,
        event_id: req(uuid_field(d, "event_id")?, "event_id")?,
        event_type: str_field(d, "event_type").ok_or("event_type is missing")?,
        tenant_id: uuid_field(d, "tenant_id")?,
        execution_id: uuid_field(d, "execution_id")?,
        correlation_id: uuid_field(d, "correlation_id")?,
        causation_id: uuid_field(d, "causation_id")?,
        occurred_at: date_field(d, "occurred_at")?.ok_or("occurred_at is missing")?,
        payload: payload_json(d),
        attempts: attempts_field(d),
        ordering_key: key_field(d)?,
        created_at: date_field(d, "created_at")?.ok_or("created_at is missing")?,
        hlc: if opts.hlc_ordering {
            match d.get("hlc") {
                Some(Bson::Int64(i)) => Some(*i),
                Some(Bson::Int32(i)) => Some(i64::from(*i)),
                _ => None,
            }
        } else {
            None
        },
        traceparent: if opts.propagate_trace {
            str_field(d, "traceparent")
        } else {
            None
        },
    })
}

impl MongoStore {
    pub async fn connect(
        url: &crate::dburl::DatabaseUrl,
        timeout: Duration,
        opts: MongoStoreOptions,
    ) -> Result<Self, crate::Error> {
        let client = crate::db::connect_mongo(url, timeout).await?;
        let mut store = Self::new(&client, opts);
        if store.opts.key_order == KeyOrder::Strict {
            store.key_index = store.choose_key_index().await?;
        }
        Ok(store)
    }

    pub fn new(client: &mongodb::Client, opts: MongoStoreOptions) -> Self {
        let db = client.database(&opts.collection.db);
        let coll = db.collection::<Document>(&opts.collection.collection);
        let key_index = strict::key_index(opts.hlc_ordering).name.expect("named");
        Self {
            db,
            coll,
            opts,
            ids: Arc::default(),
            key_index,
        }
    }

    /// Another store over the same client (its own claim state), for another lane.
    pub fn fork(&self) -> Self {
        Self {
            db: self.db.clone(),
            coll: self.coll.clone(),
            opts: self.opts.clone(),
            ids: Arc::default(),
            key_index: self.key_index.clone(),
        }
    }

    /// Another store over the same client that claims ahead for this one
    /// (`relay.claim_ahead`): the `_id`s it reads at its claims serve this store's marks.
    pub fn sharing(&self) -> Self {
        Self {
            ids: self.ids.clone(),
            ..self.fork()
        }
    }

    fn ids(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, Bson>> {
        self.ids
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn database(&self) -> &Database {
        &self.db
    }

    fn route_filter(&self, target: &PassTarget) -> Document {
        let mut f = doc! { "outbox_route": &target.route };
        if self.opts.tenant_aware {
            f.insert(
                "tenant_id",
                target
                    .tenant
                    .map_or(Bson::Null, |t| Bson::String(t.to_string())),
            );
        }
        f
    }

    /// `$set` on claimed rows that are still `processing` (the marks of retain storage).
    async fn set_processing(
        &mut self,
        ids: &[Uuid],
        set: Document,
        context: &'static str,
    ) -> Result<u64, StoreError> {
        self.set_held(ids, Document::new(), set, context).await
    }

    /// Returns to pending the `processing` documents of `ids` that `held` (one claim's mark)
    /// still matches.
    async fn release_held(&mut self, ids: &[Uuid], held: Document) -> Result<u64, StoreError> {
        let set = doc! { "status": "pending", "processing_at": Bson::Null };
        self.set_held(ids, held, set, crate::store::RELEASING).await
    }

    /// `$set` on the documents of `ids` still `processing` and matching `held`.
    async fn set_held(
        &mut self,
        ids: &[Uuid],
        held: Document,
        set: Document,
        context: &'static str,
    ) -> Result<u64, StoreError> {
        if ids.is_empty() {
            return Ok(0);
        }
        let mut filter = self.by_ids(ids);
        filter.insert("status", "processing");
        filter.extend(held);
        let r = self
            .coll
            .update_many(filter, doc! { "$set": set })
            .await
            .map_err(|e| err(context, e))?;
        Ok(r.modified_count)
    }

    /// Selects rows by the `_id`s read at their claim (forgetting them: each row is marked
    /// once), or by the unique `id` field for rows this store did not claim.
    fn by_ids(&mut self, ids: &[Uuid]) -> Document {
        let mut known = Vec::new();
        let mut unknown = Vec::new();
        for id in ids {
            match self.ids().remove(id) {
                Some(oid) => known.push(oid),
                None => unknown.push(Bson::String(id.to_string())),
            }
        }
        match (known.is_empty(), unknown.is_empty()) {
            (_, true) => doc! { "_id": { "$in": known } },
            (true, false) => doc! { "id": { "$in": unknown } },
            (false, false) => {
                doc! { "$or": [ { "_id": { "$in": known } }, { "id": { "$in": unknown } } ] }
            }
        }
    }

    /// The claim's rows, read back by its token (parking a document that cannot be read), and
    /// with strict order those handed back. `candidates` is how many the claim took.
    async fn read_claim(
        &mut self,
        target: &PassTarget,
        token: &str,
        mut candidates: usize,
    ) -> Result<Claimed, StoreError> {
        let strict = self.opts.key_order == KeyOrder::Strict;
        let read = FindOptions::builder()
            .sort(claim_sort(self.opts.hlc_ordering))
            .build();
        let docs: Vec<Document> = collect(
            self.coll
                .find(doc! { "claim_token": token })
                .with_options(read),
        )
        .await
        .map_err(|e| err("reading the claim", e))?;
        let mut rows = Vec::with_capacity(docs.len());
        let mut parked = 0;
        // under strict order a parked document fails its key like a failed publish
        let mut parked_keys = Vec::new();
        for d in &docs {
            let oid = d.get("_id").cloned().unwrap_or(Bson::Null);
            match decode(d, &self.opts) {
                Ok(row) => {
                    self.ids().insert(row.id, oid);
                    rows.push(row);
                }
                // A document that cannot be read is poison: parked by `_id`, as PostgreSQL
                // parks a row whose payload does not decode; the rest of the claim goes on.
                Err(m) => {
                    self.coll
                        .update_one(
                            doc! { "_id": oid, "claim_token": token },
                            doc! { "$set": { "status": "failed", "last_error": format!("undecodable document: {m}") } },
                        )
                        .await
                        .map_err(|e| err("parking an undecodable document", e))?;
                    parked += 1;
                    parked_keys
                        .extend(Position::of_document(d).filter(|((_, k), _)| !k.is_empty()));
                }
            }
        }
        // A claim whose rows were handed back counts as short: the next one, not this pass's
        // drain, looks again (a key whose earlier row another relay holds resolves by then).
        if strict {
            let (kept, released) = self.hold_back(target, rows, token, parked_keys).await?;
            rows = kept;
            candidates -= released;
        }
        Ok(Claimed {
            rows,
            candidates,
            parked,
        })
    }

    /// A claim cut short after its update (the read or strict order's check failed): its
    /// documents go back to pending at once, rather than wait `processing` for
    /// `reclaim_stale_after`. Best effort: a database that failed the claim may fail this too,
    /// and then reclaim takes them back.
    async fn hand_back(&self, token: &str) {
        let back = self.coll.update_many(
            doc! { "claim_token": token, "status": "processing" },
            doc! { "$set": { "status": "pending", "processing_at": Bson::Null } },
        );
        if let Err(e) = back.await {
            tracing::warn!("a claim cut short stays processing until reclaim: {e}");
        }
    }
}

impl RelayStore for MongoStore {
    async fn begin_pass(&mut self, _target: &PassTarget) -> Result<(), StoreError> {
        // Rows of an earlier pass that were never marked (a failed pass) are not kept forever.
        let mut ids = self.ids();
        if ids.len() > 100_000 {
            ids.clear();
        }
        Ok(())
    }

    async fn reclaim(
        &mut self,
        target: &PassTarget,
        older_than: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let mut f = self.route_filter(target);
        f.insert("status", "processing");
        f.insert(
            "processing_at",
            doc! { "$ne": Bson::Null, "$lt": bson_date(older_than) },
        );
        let r = self
            .coll
            .update_many(
                f,
                doc! { "$set": { "status": "pending", "processing_at": Bson::Null } },
            )
            .await
            .map_err(|e| err("reclaiming stale rows", e))?;
        Ok(r.modified_count)
    }

    async fn claim(
        &mut self,
        target: &PassTarget,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<Claimed, StoreError> {
        let strict = self.opts.key_order == KeyOrder::Strict;
        let mut f = self.route_filter(target);
        f.insert("status", "pending");
        f.insert(
            "$or",
            vec![
                Bson::Document(doc! { "available_at": Bson::Null }),
                Bson::Document(doc! { "available_at": { "$lte": bson_date(now) } }),
            ],
        );
        if strict {
            let blocked: Vec<Bson> = self
                .blockers(target, now)
                .await?
                .iter()
                .filter_map(Position::keyed)
                .map(|((tenant, key), at)| {
                    strict::of_key(at.after(self.opts.hlc_ordering), tenant, &key)
                })
                .collect();
            if !blocked.is_empty() {
                f.insert("$nor", blocked);
            }
        }
        let find = FindOptions::builder()
            .sort(claim_sort(self.opts.hlc_ordering))
            .limit(i64::from(limit))
            .projection(doc! { "_id": 1 })
            .build();
        let candidates: Vec<Document> = collect(self.coll.find(f.clone()).with_options(find))
            .await
            .map_err(|e| err("claiming", e))?;
        let ids: Vec<Bson> = candidates
            .iter()
            .filter_map(|d| d.get("_id").cloned())
            .collect();
        if ids.is_empty() {
            return Ok(Claimed::default());
        }
        let token = Uuid::now_v7().to_string();
        // the whole filter again: a candidate another relay claimed, failed and scheduled for
        // a retry meanwhile is pending but not due, and waits for its backoff
        f.insert("_id", doc! { "$in": &ids });
        self.coll
            .update_many(
                f,
                doc! { "$set": { "status": "processing", "processing_at": bson_date(now), "claim_token": &token } },
            )
            .await
            .map_err(|e| err("claiming", e))?;
        let claimed = self.read_claim(target, &token, ids.len()).await;
        if claimed.is_err() {
            self.hand_back(&token).await;
        }
        claimed
    }

    async fn mark_published(
        &mut self,
        _target: &PassTarget,
        ids: &[Uuid],
        at: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let set =
            doc! { "status": "published", "published_at": bson_date(at), "last_error": Bson::Null };
        self.set_processing(ids, set, "marking published").await
    }

    async fn mark_retry(
        &mut self,
        _target: &PassTarget,
        ids: &[Uuid],
        attempts: i32,
        available_at: DateTime<Utc>,
        error: &str,
        claimed_at: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let set = doc! { "status": "pending", "processing_at": Bson::Null, "attempts": attempts, "available_at": bson_date(available_at), "last_error": error };
        self.set_held(ids, held_by(claimed_at), set, "scheduling retries")
            .await
    }

    async fn mark_failed(
        &mut self,
        _target: &PassTarget,
        ids: &[Uuid],
        error: &str,
        claimed_at: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let set = doc! { "status": "failed", "last_error": error };
        self.set_held(ids, held_by(claimed_at), set, "marking failed")
            .await
    }

    async fn release(
        &mut self,
        _target: &PassTarget,
        ids: &[Uuid],
        claimed_at: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        self.release_held(ids, held_by(claimed_at)).await
    }

    async fn insert_sink(
        &mut self,
        table: &QualifiedName,
        _messages: &[&Message],
        _at: DateTime<Utc>,
        _guarded: bool,
    ) -> Result<u64, StoreError> {
        Err(bad(
            "postgres-table destination",
            format!(
                "{} is a PostgreSQL table; the outbox is on MongoDB",
                table.plain()
            ),
        ))
    }

    async fn commit_pass(&mut self) -> Result<(), StoreError> {
        Ok(())
    }

    async fn rollback_pass(&mut self) {}

    /// Each MongoDB operation has its own server-side bound; nothing to cancel.
    async fn abandon(&mut self) {}

    async fn probe(&mut self) -> Result<(), StoreError> {
        // the driver reconnects by itself; a ping says whether a server is selectable now (a
        // short wait, not the driver's server selection timeout: the relay asks again soon)
        let ping = self.db.run_command(mongodb::bson::doc! { "ping": 1 });
        match tokio::time::timeout(std::time::Duration::from_secs(1), ping).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(err("probing the database", e)),
            Err(_) => Err(StoreError {
                context: "probing the database",
                message: "no server answered a ping within 1s".into(),
                fault: crate::db::fault::Fault::Unreachable,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ordering_key_that_is_not_a_string_is_no_key() {
        let with = |key: Bson| doc! { "ordering_key": key };
        assert_eq!(key_field(&doc! {}), Ok(None));
        assert_eq!(key_field(&with(Bson::Null)), Ok(None));
        assert_eq!(key_field(&with("K".into())), Ok(Some("K".into())));
        let e = key_field(&with(Bson::Int32(123))).unwrap_err();
        assert!(
            e.starts_with("ordering_key is 123") && e.contains("not a string"),
            "{e}"
        );
    }
}
