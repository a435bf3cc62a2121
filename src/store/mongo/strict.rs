//! Strict key order on MongoDB: the keys a claim skips before it runs ([`MongoStore::blockers`]),
//! the claimed rows it hands back after ([`MongoStore::hold_back`]), and where a row stands in
//! claim order ([`Position`], which replay's cursor shares).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use mongodb::bson::{Bson, Document, doc};
use mongodb::error::ErrorKind;
use mongodb::options::{FindOptions, Hint};
use uuid::Uuid;

use super::{MongoStore, bson_date, claim_sort, collect, err};
use crate::model::OutboxRow;
use crate::store::{PassTarget, RelayStore, StoreError};

impl MongoStore {
    /// Strict key order, before the claim: for each key (tenant, ordering key) whose rows wait
    /// behind a row that is failed, processing under another claim, or pending but not yet due,
    /// the first such row. The claim skips every row of the key after it, so a stuck key never
    /// fills the claim with rows that would only be handed back. One aggregation over the rows
    /// in those states (the claim index's `status` ranges).
    pub(super) async fn blockers(
        &self,
        target: &PassTarget,
        now: DateTime<Utc>,
    ) -> Result<Vec<Document>, StoreError> {
        let mut f = self.route_filter(target);
        f.extend(blocking_documents(now));
        self.first_per_key(f).await
    }

    /// The first row (in claim order) of each key among those `filter` matches: `_id` is
    /// `{t: tenant_id, k: ordering_key}`, with the row's `hlc`, `created_at` and `id`.
    async fn first_per_key(&self, filter: Document) -> Result<Vec<Document>, StoreError> {
        let pipeline = vec![
            doc! { "$match": filter },
            doc! { "$sort": claim_sort(self.opts.hlc_ordering) },
            doc! { "$group": {
                "_id": { "t": "$tenant_id", "k": "$ordering_key" },
                "hlc": { "$first": "$hlc" },
                "created_at": { "$first": "$created_at" },
                "id": { "$first": "$id" },
            } },
        ];
        collect(self.coll.aggregate(pipeline))
            .await
            .map_err(|e| err("checking key order", e))
    }

    /// The documents `filter` matches (their key and place in claim order only), read
    /// through the key index ([`key_index`]).
    async fn through_key_index(&self, filter: Document) -> mongodb::error::Result<Vec<Document>> {
        let find = FindOptions::builder()
            .projection(doc! { "_id": 0, "tenant_id": 1, "ordering_key": 1, "hlc": 1, "created_at": 1, "id": 1 })
            .hint(Hint::Name(self.key_index.clone()))
            .build();
        collect(self.coll.find(filter).with_options(find)).await
    }

    /// The index strict order's check reads through ([`MongoStore::hold_back`]), chosen when a
    /// relay starts: the partial key index ([`key_index`]); else, with a warning, the key index
    /// an earlier outboxctl made, which holds every document (as sound, since a document's
    /// entry does not move with its status, but it also reads the key's published ones); else
    /// the relay is refused, naming the migration.
    pub(super) async fn choose_key_index(&self) -> Result<String, crate::Error> {
        let listed = |e| crate::Error::mongo("listing the outbox's indexes", e);
        let indexes = crate::schema::mongo::index_facts(&self.coll)
            .await
            .map_err(listed)?;
        match pick_key_index(&indexes) {
            Some((name, true)) => Ok(name),
            Some((name, false)) => {
                tracing::warn!("{}", older_key_index(&self.opts.collection, &name));
                Ok(name)
            }
            None => Err(crate::Error::SchemaMissing(missing_key_index(
                &self.opts.collection,
            ))),
        }
    }

    /// Strict key order, after the claim: a claimed row whose key has an earlier row that is
    /// not ours (pending outside this claim, processing under another claim, or failed) is
    /// handed back. One `find`: the claimed keys' rows not ours, up to the latest claimed;
    /// for each key, the first of them no later than its last claimed row; a claimed row
    /// after it waits. Returns the rows kept and how many were handed back.
    ///
    /// The check reads through the key index ([`key_index`]): the documents not yet
    /// published, by route, key and `created_at`. A MongoDB query is not one snapshot: it
    /// yields (every 10 ms or so) and goes on from fresh data. Through an index on `status`
    /// (which the planner preferred for the aggregation this replaced) it could pass
    /// `pending` while an earlier row of the key was another relay's, and reach `processing`
    /// after that relay handed it back: the row seen in neither state, and this claim's later
    /// row sent first. In the key index a row's entry stays put while it moves between
    /// pending, processing and failed, and leaves only once published (sent before then), so
    /// the scan reads every earlier row not yet published once, as it is at that moment.
    pub(super) async fn hold_back(
        &mut self,
        target: &PassTarget,
        rows: Vec<OutboxRow>,
        token: &str,
    ) -> Result<(Vec<OutboxRow>, usize), StoreError> {
        let hlc = self.opts.hlc_ordering;
        let mut last: HashMap<(Option<Uuid>, String), Position> = HashMap::new();
        for row in &rows {
            if let Some(key) = row.ordering_key.as_deref().filter(|k| !k.is_empty()) {
                let pos = Position::of(row);
                let at = last
                    .entry((row.tenant_id, key.to_owned()))
                    .or_insert_with(|| pos.clone());
                if pos.cmp_claim(at, hlc).is_gt() {
                    *at = pos;
                }
            }
        }
        if last.is_empty() {
            return Ok((rows, 0));
        }
        // One range of the key index: the claimed keys' documents not yet published, up to
        // the latest claimed (by `created_at`; with HLC order every one, since an earlier
        // hlc may carry a later `created_at`). Each key's own bound is applied here.
        let keys: Vec<&str> = last.keys().map(|(_, k)| k.as_str()).collect();
        let mut f = self.route_filter(target);
        f.insert("ordering_key", doc! { "$in": keys });
        if !hlc {
            let latest = last.values().map(|p| p.created_ms).max().expect("some key");
            let latest = mongodb::bson::DateTime::from_millis(latest);
            f.insert("created_at", doc! { "$lte": latest });
        }
        f.insert(
            "$or",
            vec![
                Bson::Document(doc! { "status": "failed" }),
                Bson::Document(doc! { "status": "pending" }),
                Bson::Document(doc! { "status": "processing", "claim_token": { "$ne": token } }),
            ],
        );
        let mut first: HashMap<(Option<Uuid>, String), Position> = HashMap::new();
        let earlier = self
            .through_key_index(f)
            .await
            .map_err(|e| match e.kind.as_ref() {
                ErrorKind::Command(c)
                    if c.message.contains("hint provided does not correspond") =>
                {
                    StoreError::other(
                        "checking key order",
                        missing_key_index(&self.opts.collection),
                    )
                }
                _ => err("checking key order", e),
            })?;
        for (key, pos) in earlier.iter().filter_map(Position::of_document) {
            let Some(at) = last.get(&key) else { continue };
            if pos.cmp_claim(at, hlc).is_gt() {
                continue;
            }
            match first.get_mut(&key) {
                Some(known) if pos.cmp_claim(known, hlc).is_lt() => *known = pos,
                Some(_) => {}
                None => {
                    first.insert(key, pos);
                }
            }
        }
        let (mut keep, mut release) = (Vec::with_capacity(rows.len()), Vec::new());
        for row in rows {
            let blocked = row
                .ordering_key
                .as_deref()
                .filter(|k| !k.is_empty())
                .and_then(|k| first.get(&(row.tenant_id, k.to_owned())))
                .is_some_and(|before| Position::of(&row).cmp_claim(before, hlc).is_gt());
            if blocked {
                release.push(row.id);
            } else {
                keep.push(row);
            }
        }
        if !release.is_empty() {
            self.release(target, &release).await?;
        }
        Ok((keep, release.len()))
    }
}

/// The index strict order's check reads through: `outbox_key_order_unpublished`, the
/// documents not yet published by route, ordering key and `created_at` (`migrate --key-order
/// strict` creates it).
pub(crate) fn key_index() -> crate::schema::render::MongoIndexSpec {
    crate::schema::render::mongo_key_order_indexes().remove(0)
}

/// Of `indexes` (name, keys, partial filter), the one strict order's check reads through:
/// the partial key index (`true`), else an index on its keys that holds every document
/// (`false`).
pub(crate) fn pick_key_index(
    indexes: &[crate::schema::plan::MongoIndexFacts],
) -> Option<(String, bool)> {
    let want = key_index();
    let keys: Vec<&str> = want.keys.iter().map(|(k, _)| k.as_str()).collect();
    if let Some(i) = indexes.iter().find(|i| Some(&i.name) == want.name.as_ref()) {
        return Some((i.name.clone(), true));
    }
    indexes
        .iter()
        .find(|i| i.partial.is_none() && i.on(&keys))
        .map(|i| (i.name.clone(), false))
}

/// What reading `collection` through `older`, an earlier outboxctl's key index, costs and how
/// to end it.
pub(crate) fn older_key_index(collection: &crate::target::CollectionName, older: &str) -> String {
    format!(
        "strict key order reads {collection} through {older}, which holds every document, published ones too: run outboxctl migrate --key-order strict for {}",
        key_index().name.expect("named")
    )
}

/// Why strict order cannot run on `collection`: its key index is missing.
pub(crate) fn missing_key_index(collection: &crate::target::CollectionName) -> String {
    format!(
        "strict key order reads {collection} through the index {}, which does not exist: run outboxctl migrate --key-order strict",
        key_index().name.expect("named")
    )
}

/// `place` (a filter on claim order) narrowed to one key's documents: its tenant and ordering key.
pub(super) fn of_key(mut place: Document, tenant: Option<Uuid>, key: &str) -> Bson {
    place.insert("ordering_key", key);
    let tenant = tenant.map_or(Bson::Null, |t| Bson::String(t.to_string()));
    place.insert("tenant_id", tenant);
    Bson::Document(place)
}

/// The documents strict order waits behind: with an ordering key, and failed, processing, or
/// pending but not yet due. Shared by the claim and `inspect blocked`.
pub(crate) fn blocking_documents(now: DateTime<Utc>) -> Document {
    doc! {
        "ordering_key": { "$nin": [Bson::Null, ""] },
        "$or": [
            { "status": { "$in": ["failed", "processing"] } },
            { "status": "pending", "available_at": { "$gt": bson_date(now) } },
        ],
    }
}

/// Where a row stands in claim order: `(hlc, created_at, id)` with HLC ordering (a row
/// without `hlc` sorts first, as MongoDB sorts a missing field), else `(created_at, id)`.
#[derive(Debug, Clone)]
pub(crate) struct Position {
    hlc: Option<i64>,
    created_ms: i64,
    id: String,
}

impl Position {
    /// The position a replay cursor names.
    pub(crate) fn at(hlc: Option<i64>, created_at: DateTime<Utc>, id: Uuid) -> Self {
        Self {
            hlc,
            created_ms: created_at.timestamp_millis(),
            id: id.to_string(),
        }
    }

    pub(crate) fn of(row: &OutboxRow) -> Self {
        Self {
            hlc: row.hlc,
            created_ms: row.created_at.timestamp_millis(),
            id: row.id.to_string(),
        }
    }

    /// The position `d` carries in its `hlc`, `created_at` and `id` fields.
    fn in_document(d: &Document) -> Option<Position> {
        let hlc = match d.get("hlc") {
            Some(Bson::Int64(h)) => Some(*h),
            Some(Bson::Int32(h)) => Some(i64::from(*h)),
            _ => None,
        };
        Some(Position {
            hlc,
            created_ms: d.get_datetime("created_at").ok()?.timestamp_millis(),
            id: d.get_str("id").ok()?.to_owned(),
        })
    }

    /// The key and position of a document read with them.
    fn of_document(d: &Document) -> Option<((Option<Uuid>, String), Position)> {
        let tenant = d
            .get_str("tenant_id")
            .ok()
            .and_then(|t| Uuid::parse_str(t).ok());
        let key = d.get_str("ordering_key").ok()?.to_owned();
        Some(((tenant, key), Self::in_document(d)?))
    }

    /// The key and position of a [`MongoStore::first_per_key`] result (its key in `_id`).
    pub(super) fn keyed(d: &Document) -> Option<((Option<Uuid>, String), Position)> {
        let key = d.get_document("_id").ok()?;
        let tenant = key.get_str("t").ok().and_then(|t| Uuid::parse_str(t).ok());
        Some((
            (tenant, key.get_str("k").ok()?.to_owned()),
            Self::in_document(d)?,
        ))
    }

    fn cmp_claim(&self, other: &Self, hlc: bool) -> std::cmp::Ordering {
        let tail = |p: &Self| (p.created_ms, p.id.clone());
        if hlc {
            (self.hlc, tail(self)).cmp(&(other.hlc, tail(other)))
        } else {
            tail(self).cmp(&tail(other))
        }
    }

    /// A filter for the rows strictly after this position in claim order.
    pub(crate) fn after(&self, hlc: bool) -> Document {
        let at = mongodb::bson::DateTime::from_millis(self.created_ms);
        let tail = vec![
            Bson::Document(doc! { "created_at": { "$gt": at } }),
            Bson::Document(doc! { "created_at": at, "id": { "$gt": &self.id } }),
        ];
        match (hlc, self.hlc) {
            (false, _) => doc! { "$or": tail },
            (true, Some(h)) => doc! { "$or": [
                { "hlc": { "$gt": h } },
                { "hlc": h, "$or": tail },
            ] },
            (true, None) => doc! { "$or": [
                { "hlc": { "$ne": Bson::Null } },
                { "hlc": Bson::Null, "$or": tail },
            ] },
        }
    }
}
