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
use crate::store::{PassTarget, StoreError};

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
    /// relay starts: the partial key index in the claim's order ([`key_index`]); else, with a
    /// warning, another index on the key ([`pick_key_index`]); else the relay is refused,
    /// naming the migration.
    pub(super) async fn choose_key_index(&self) -> Result<String, crate::Error> {
        let listed = |e| crate::Error::mongo("listing the outbox's indexes", e);
        let indexes = crate::schema::mongo::index_facts(&self.coll)
            .await
            .map_err(listed)?;
        let hlc = self.opts.hlc_ordering;
        match pick_key_index(&indexes, hlc) {
            Some(index) => {
                if let Some(cost) = index.cost(&self.opts.collection, hlc) {
                    tracing::warn!("{cost}");
                }
                Ok(index.name().to_owned())
            }
            None => Err(crate::Error::SchemaMissing(missing_key_index(
                &self.opts.collection,
                hlc,
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
    /// published, by route, key and claim order (`hlc` first under HLC order), so that it
    /// stops at the latest claimed instead of reading the keys' backlog. A MongoDB query is
    /// not one snapshot: it yields (every 10 ms or so) and goes on from fresh data. Through
    /// an index on `status` (which the planner preferred for the aggregation this replaced)
    /// it could pass `pending` while an earlier row of the key was another relay's, and reach
    /// `processing` after that relay handed it back: the row seen in neither state, and this
    /// claim's later row sent first. In the key index a row's entry stays put while it moves
    /// between pending, processing and failed, and leaves only once published (sent before
    /// then), so the scan reads every earlier row not yet published once, as it is at that
    /// moment.
    pub(super) async fn hold_back(
        &mut self,
        target: &PassTarget,
        rows: Vec<OutboxRow>,
        token: &str,
        parked: Vec<((Option<Uuid>, String), Position)>,
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
        // the latest claimed in claim order. Each key's own bound is applied here.
        let keys: Vec<&str> = last.keys().map(|(_, k)| k.as_str()).collect();
        let mut f = self.route_filter(target);
        f.insert("ordering_key", doc! { "$in": keys });
        let latest = last.values().max_by(|a, b| a.cmp_claim(b, hlc));
        f.extend(latest.expect("some key").up_to(hlc));
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
                        missing_key_index(&self.opts.collection, hlc),
                    )
                }
                _ => err("checking key order", e),
            })?;
        // the claim's own parked documents first: one read with no date in `created_at` is
        // not in the range below, yet heads its key
        let earlier = parked
            .into_iter()
            .chain(earlier.iter().filter_map(Position::of_document));
        for (key, pos) in earlier {
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
            self.release_held(&release, doc! { "claim_token": token })
                .await?;
        }
        Ok((keep, release.len()))
    }
}

/// The index strict order's check reads through: the documents not yet published by route,
/// ordering key and claim order, `outbox_key_order_unpublished` (`created_at`) or, with `hlc`,
/// `outbox_key_order_hlc_unpublished` (`hlc`, `created_at`); `migrate --key-order strict`
/// creates the one its order needs.
pub(crate) fn key_index(hlc: bool) -> crate::schema::render::MongoIndexSpec {
    crate::schema::render::mongo_key_order_indexes(hlc).remove(0)
}

/// An index on the key the check can read through, of those a collection has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KeyIndex {
    /// The partial key index in the claim's order ([`key_index`]).
    Wanted(String),
    /// The partial key index in `created_at` order under HLC order: each claim reads every
    /// document of its keys not yet published, since an earlier hlc may carry a later
    /// `created_at`.
    OtherOrder(String),
    /// An earlier outboxctl's key index, over every document: as sound, since an entry does
    /// not move with its status, but it also reads the key's published documents.
    Every(String),
}

impl KeyIndex {
    pub(crate) fn name(&self) -> &str {
        match self {
            Self::Wanted(n) | Self::OtherOrder(n) | Self::Every(n) => n,
        }
    }

    /// What reading `collection` through this index costs, and how to end it (the relay's
    /// warning at start, doctor's); `None` for the index the order needs.
    pub(crate) fn cost(
        &self,
        collection: &crate::target::CollectionName,
        hlc: bool,
    ) -> Option<String> {
        let cost = match self {
            Self::Wanted(_) => return None,
            Self::OtherOrder(_) => {
                "which is not in HLC order: each claim reads every document of its keys not yet published"
            }
            Self::Every(_) => "which holds every document, published ones too",
        };
        Some(format!(
            "strict key order reads {collection} through {}, {cost}: run {} for {}",
            self.name(),
            migrate_key_order(hlc),
            key_index(hlc).name.expect("named")
        ))
    }
}

/// The migration that adds strict order's key index.
fn migrate_key_order(hlc: bool) -> &'static str {
    if hlc {
        "outboxctl migrate --key-order strict --hlc-ordering"
    } else {
        "outboxctl migrate --key-order strict"
    }
}

/// Of `indexes` (name, keys, partial filter), the one strict order's check reads through: the
/// partial key index in the claim's order; else, under HLC order, the one in `created_at`
/// order; else an index on the `created_at` key index's keys that holds every document.
pub(crate) fn pick_key_index(
    indexes: &[crate::schema::plan::MongoIndexFacts],
    hlc: bool,
) -> Option<KeyIndex> {
    let named = |spec: crate::schema::render::MongoIndexSpec| {
        let name = spec.name.expect("named");
        indexes.iter().any(|i| i.name == name).then_some(name)
    };
    if let Some(name) = named(key_index(hlc)) {
        return Some(KeyIndex::Wanted(name));
    }
    let plain = key_index(false);
    if let Some(name) = named(plain.clone()).filter(|_| hlc) {
        return Some(KeyIndex::OtherOrder(name));
    }
    let keys: Vec<&str> = plain.keys.iter().map(|(k, _)| k.as_str()).collect();
    indexes
        .iter()
        .find(|i| i.partial.is_none() && i.on(&keys))
        .map(|i| KeyIndex::Every(i.name.clone()))
}

/// Why strict order cannot run on `collection`: its key index is missing.
pub(crate) fn missing_key_index(collection: &crate::target::CollectionName, hlc: bool) -> String {
    format!(
        "strict key order reads {collection} through the index {}, which does not exist: run {}",
        key_index(hlc).name.expect("named"),
        migrate_key_order(hlc)
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

    /// The position `d` carries in its `hlc`, `created_at` and `id` fields. A document
    /// another writer left without a date in `created_at` (missing, null, a string) sorts
    /// before every dated one, as MongoDB sorts it, and an `id` that is not a string before
    /// every id: such a document is the head of its key, not a document to skip.
    pub(crate) fn in_document(d: &Document) -> Position {
        let hlc = match d.get("hlc") {
            Some(Bson::Int64(h)) => Some(*h),
            Some(Bson::Int32(h)) => Some(i64::from(*h)),
            _ => None,
        };
        Position {
            hlc,
            created_ms: (d.get_datetime("created_at").ok())
                .map_or(i64::MIN, |c| c.timestamp_millis()),
            id: d.get_str("id").unwrap_or_default().to_owned(),
        }
    }

    /// The key and position of a document read with them.
    pub(super) fn of_document(d: &Document) -> Option<((Option<Uuid>, String), Position)> {
        let tenant = d
            .get_str("tenant_id")
            .ok()
            .and_then(|t| Uuid::parse_str(t).ok());
        let key = d.get_str("ordering_key").ok()?.to_owned();
        Some(((tenant, key), Self::in_document(d)))
    }

    /// The key and position of a [`MongoStore::first_per_key`] result (its key in `_id`).
    pub(super) fn keyed(d: &Document) -> Option<((Option<Uuid>, String), Position)> {
        let key = d.get_document("_id").ok()?;
        let tenant = key.get_str("t").ok().and_then(|t| Uuid::parse_str(t).ok());
        Some((
            (tenant, key.get_str("k").ok()?.to_owned()),
            Self::in_document(d),
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

    /// A filter for the rows up to this position in claim order, and some after it, as one
    /// range of the key index in that order: with HLC order every row whose `hlc` is not above
    /// this one's (rows without `hlc` sort first, and `$not` keeps them), else every row up to
    /// its `created_at`. The relay compares the rest.
    fn up_to(&self, hlc: bool) -> Document {
        let at = mongodb::bson::DateTime::from_millis(self.created_ms);
        match (hlc, self.hlc) {
            (true, Some(h)) => doc! { "hlc": { "$not": { "$gt": h } } },
            (true, None) => doc! { "hlc": Bson::Null, "created_at": { "$lte": at } },
            (false, _) => doc! { "created_at": { "$lte": at } },
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
