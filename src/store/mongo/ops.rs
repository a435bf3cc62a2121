//! [`OpsStore`] on MongoDB, through the recommended indexes: routes by `distinct` on
//! `outbox_route`, counts and lists by `{outbox_route, status, …}`, events by
//! `{outbox_route, event_id}`, row ids by the unique `id` index `migrate` adds. Staging is in
//! `super::stage`.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use mongodb::bson::{Bson, Document, doc};
use mongodb::options::FindOptions;
use mongodb::{Client, Collection};
use uuid::Uuid;

use super::{MongoStoreOptions, bson_date};
use crate::Error;
use crate::store::ops::{
    CheckpointRow, Chosen, ErrorFilter, EventLocation, NewEvent, OpsStore, RouteSummary, RowFilter,
    RowPosition, RowView, Staged,
};
use crate::target::CollectionName;

/// How long a requeue's or discard's write waits for a document another transaction holds, as
/// PostgreSQL's wait for a row lock.
const WRITE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// MongoDB's `MaxTimeMSExpired`.
const MAX_TIME_EXPIRED: i32 = 50;

pub struct MongoOps {
    pub client: Client,
    pub coll: Collection<Document>,
    pub opts: MongoStoreOptions,
    pub checkpoint: Option<CollectionName>,
    pub reclaim_stale_after: Option<std::time::Duration>,
}

impl MongoOps {
    pub fn new(
        client: Client,
        opts: MongoStoreOptions,
        checkpoint: Option<CollectionName>,
    ) -> Self {
        let coll = client
            .database(&opts.collection.db)
            .collection(&opts.collection.collection);
        Self {
            client,
            coll,
            opts,
            checkpoint,
            reclaim_stale_after: None,
        }
    }

    fn tenant(&self, f: &mut Document, tenant: Option<Uuid>) {
        if let Some(t) = tenant {
            f.insert("tenant_id", t.to_string());
        }
    }

    /// A document as a row for people, read field by field: one the relay parked because it
    /// could not be decoded is shown too (what it lacks left blank, its error saying why),
    /// never failing the listing it is in.
    fn view(&self, d: &Document) -> RowView {
        let uuid = |key: &str| super::uuid_field(d, key).ok().flatten();
        let date = |key: &str| super::date_field(d, key).ok().flatten();
        RowView {
            id: uuid("id").unwrap_or_default(),
            event_id: uuid("event_id").unwrap_or_default(),
            route: super::str_field(d, "outbox_route").unwrap_or_default(),
            event_type: super::str_field(d, "event_type").unwrap_or_default(),
            tenant_id: uuid("tenant_id"),
            ordering_key: super::str_field(d, "ordering_key"),
            status: d.get_str("status").unwrap_or_default().to_owned(),
            attempts: super::attempts_field(d),
            available_at: date("available_at"),
            created_at: date("created_at").unwrap_or_default(),
            last_error: super::str_field(d, "last_error"),
        }
    }

    async fn count(&self, f: Document) -> Result<i64, Error> {
        self.coll
            .count_documents(f)
            .await
            .map(|n| n as i64)
            .map_err(|e| Error::mongo("counting", e))
    }

    /// Counts at most `limit` documents (the count stops there).
    async fn count_capped(&self, f: Document, limit: i64) -> Result<i64, Error> {
        self.coll
            .count_documents(f)
            .limit(limit as u64)
            .await
            .map(|n| n as i64)
            .map_err(|e| Error::mongo("counting", e))
    }

    /// `field` of the first document in `field` order.
    async fn first_date(&self, f: Document, field: &str) -> Result<Option<DateTime<Utc>>, Error> {
        self.earliest_of_first(f, field, doc! { field: 1 }, 1).await
    }

    /// The earliest `field` among the first `limit` documents of `f` in `sort` order (with a
    /// limit of 1, the first document's): bounded as the capped counts are.
    async fn earliest_of_first(
        &self,
        f: Document,
        field: &str,
        sort: Document,
        limit: i64,
    ) -> Result<Option<DateTime<Utc>>, Error> {
        let pipeline = vec![
            doc! { "$match": f },
            doc! { "$sort": sort },
            doc! { "$limit": limit },
            doc! { "$group": { "_id": Bson::Null, "m": { "$min": format!("${field}") } } },
        ];
        let docs = super::collect(self.coll.aggregate(pipeline))
            .await
            .map_err(|e| Error::mongo("reading", e))?;
        Ok(docs
            .first()
            .and_then(|d| d.get_datetime("m").ok())
            .and_then(|t| DateTime::from_timestamp_millis(t.timestamp_millis())))
    }

    /// The document of a row to requeue or discard, while it is failed (with its error, when
    /// that chose it).
    fn chosen_filter(&self, r: &Chosen) -> Document {
        let mut f = self.failed_filter(&[r.id], None);
        if let Some(e) = &r.error {
            // null matches a document without the field too
            f.insert("last_error", e.as_deref().map_or(Bson::Null, Bson::from));
        }
        f
    }

    /// `discard` with a copy: the documents deleted in a transaction, handed to `keep` (as
    /// relaxed extended JSON, `_id` left out), then committed.
    async fn discard_keeping(
        &mut self,
        rows: &[Chosen],
        keep: &mut crate::store::ops::Keep<'_>,
    ) -> Result<Vec<Uuid>, Error> {
        let failed = |e| Error::mongo("discarding", e);
        let mut session = self.client.start_session().await.map_err(failed)?;
        session.start_transaction().await.map_err(failed)?;
        let mut changed = Vec::new();
        let mut whole = Vec::new();
        let mut deleted = Ok(());
        for r in rows {
            let hit = (self.coll.find_one_and_delete(self.chosen_filter(r)))
                .projection(doc! { "_id": 0 })
                .session(&mut session)
                .await;
            match hit {
                Ok(Some(d)) => {
                    changed.push(r.id);
                    whole.push(Bson::Document(d).into_relaxed_extjson().to_string());
                }
                Ok(None) => {}
                Err(e) => {
                    deleted = Err(failed(e));
                    break;
                }
            }
        }
        // aborted here, not left to the session's drop: a process that exits on the error
        // would leave the transaction open on the server, its documents locked for a minute
        if let Err(e) = deleted.and_then(|()| keep(&whole)) {
            let _ = session.abort_transaction().await;
            return Err(e);
        }
        session.commit_transaction().await.map_err(failed)?;
        Ok(changed)
    }

    /// A requeue's or discard's write that ran out of [`WRITE_WAIT`] (a document another
    /// transaction holds): a busy lock, exit 4; any other failure as it is.
    fn held(&self, what: &'static str, e: mongodb::error::Error) -> Error {
        let expired =
            matches!(&*e.kind, mongodb::error::ErrorKind::Command(c) if c.code == MAX_TIME_EXPIRED);
        match expired {
            true => Error::LockBusy(format!(
                "a document of {} this changes is held by another transaction: it could not be changed within {}; end that transaction (or let it finish), then run this again",
                self.opts.collection,
                crate::duration::Dur(WRITE_WAIT)
            )),
            false => Error::mongo(what, e),
        }
    }

    /// The `failed` documents of these ids (of `tenant`'s, when given), by id.
    fn failed_filter(&self, ids: &[Uuid], tenant: Option<Uuid>) -> Document {
        let ids: Vec<String> = ids.iter().map(Uuid::to_string).collect();
        let mut f = doc! { "id": { "$in": ids }, "status": "failed" };
        self.tenant(&mut f, tenant);
        f
    }
}

impl OpsStore for MongoOps {
    async fn blocked(
        &mut self,
        route: Option<&str>,
        tenant: Option<Uuid>,
        now: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<crate::store::ops::BlockedKey>, Error> {
        let mut f = super::blocking_documents(now);
        if let Some(r) = route {
            f.insert("outbox_route", r);
        }
        if let Some(t) = tenant {
            f.insert("tenant_id", t.to_string());
        }
        let pipeline = vec![
            doc! { "$match": f },
            doc! { "$sort": super::claim_sort(self.opts.hlc_ordering) },
            doc! { "$group": {
                "_id": { "r": "$outbox_route", "t": "$tenant_id", "k": "$ordering_key" },
                "head": { "$first": "$$ROOT" },
            } },
        ];
        let heads = super::collect(self.coll.aggregate(pipeline))
            .await
            .map_err(|e| Error::mongo("finding blocked keys", e))?;
        let mut out = Vec::new();
        for h in &heads {
            let Ok(doc) = h.get_document("head") else {
                continue;
            };
            let head = self.view(doc);
            // read from the document as it is: a head the relay parked because it could not
            // decode it (a payload gone bad, no date in created_at) is just the head an
            // operator looks for
            let at = super::Position::in_document(doc);
            let mut behind = at.after(self.opts.hlc_ordering);
            behind.insert("outbox_route", &head.route);
            behind.insert(
                "tenant_id",
                head.tenant_id
                    .map_or(Bson::Null, |t| Bson::String(t.to_string())),
            );
            behind.insert(
                "ordering_key",
                head.ordering_key.clone().unwrap_or_default(),
            );
            behind.insert("status", "pending");
            let waiting = self
                .coll
                .count_documents(behind)
                .await
                .map_err(|e| Error::mongo("counting rows behind a blocked key", e))?;
            if waiting > 0 {
                out.push(crate::store::ops::BlockedKey {
                    route: head.route.clone(),
                    tenant_id: head.tenant_id,
                    ordering_key: head.ordering_key.clone().unwrap_or_default(),
                    head,
                    waiting: waiting as i64,
                });
            }
        }
        out.sort_by(|a, b| {
            b.waiting
                .cmp(&a.waiting)
                .then(a.head.created_at.cmp(&b.head.created_at))
        });
        out.truncate(limit as usize);
        Ok(out)
    }

    async fn routes(&mut self) -> Result<Vec<String>, Error> {
        let values = self
            .coll
            .distinct("outbox_route", doc! {})
            .await
            .map_err(|e| Error::mongo("listing routes", e))?;
        Ok(values
            .into_iter()
            .filter_map(|b| b.as_str().map(str::to_owned))
            .collect())
    }

    async fn summary(
        &mut self,
        route: &str,
        tenant: Option<Uuid>,
        now: DateTime<Utc>,
    ) -> Result<RouteSummary, Error> {
        let base = |status: &str| {
            let mut f = doc! { "outbox_route": route, "status": status };
            if let Some(t) = tenant {
                f.insert("tenant_id", t.to_string());
            }
            f
        };
        let mut ripe = base("pending");
        ripe.insert(
            "$or",
            vec![
                Bson::Document(doc! { "available_at": Bson::Null }),
                Bson::Document(doc! { "available_at": { "$lte": bson_date(now) } }),
            ],
        );
        let mut scheduled = base("pending");
        scheduled.insert("available_at", doc! { "$gt": bson_date(now) });
        let stale = match self.reclaim_stale_after {
            Some(d) => {
                let mut f = base("processing");
                f.insert("processing_at", doc! { "$lt": bson_date(now - chrono::Duration::from_std(d).unwrap_or_default()) });
                Some(self.count(f).await?)
            }
            None => None,
        };
        let mut attempts = BTreeMap::new();
        let mut f = doc! { "outbox_route": route, "status": { "$in": ["pending", "processing", "failed"] } };
        self.tenant(&mut f, tenant);
        let pipeline = vec![
            doc! { "$match": f },
            doc! { "$group": { "_id": "$attempts", "n": { "$sum": 1 } } },
        ];
        let groups: Vec<Document> = super::collect(self.coll.aggregate(pipeline))
            .await
            .map_err(|e| Error::mongo("attempts", e))?;
        for g in groups {
            let a = match g.get("_id") {
                Some(Bson::Int32(i)) => *i,
                Some(Bson::Int64(i)) => *i as i32,
                _ => 0,
            };
            let n = match g.get("n") {
                Some(Bson::Int32(i)) => i64::from(*i),
                Some(Bson::Int64(i)) => *i,
                _ => 0,
            };
            attempts.insert(a, n);
        }
        Ok(RouteSummary {
            route: route.to_owned(),
            tenant,
            pending_ripe: self.count(ripe).await?,
            pending_scheduled: self.count(scheduled.clone()).await?,
            processing: self.count(base("processing")).await?,
            processing_stale: stale,
            failed: self.count(base("failed")).await?,
            oldest_pending: self.first_date(base("pending"), "created_at").await?,
            next_retry: self.first_date(scheduled, "available_at").await?,
            attempts,
            delivered_last_hour: None,
            delivered_last_day: None,
            blocked_keys: None,
            paused: None,
        })
    }

    async fn list(&mut self, f: &RowFilter, now: DateTime<Utc>) -> Result<Vec<RowView>, Error> {
        let routes = match &f.route {
            Some(r) => vec![r.clone()],
            None => self.routes().await?,
        };
        let mut q = doc! { "outbox_route": { "$in": routes }, "status": f.status.as_str() };
        self.tenant(&mut q, f.tenant);
        if let Some(t) = &f.event_type {
            q.insert("event_type", t);
        }
        if let Some(d) = f.older_than {
            q.insert(
                "created_at",
                doc! { "$lt": bson_date(now - chrono::Duration::from_std(d).unwrap_or_default()) },
            );
        }
        if let Some(text) = &f.error_contains {
            let escaped: String = text
                .chars()
                .flat_map(|c| {
                    if c.is_alphanumeric() || c == ' ' {
                        vec![c]
                    } else {
                        vec!['\\', c]
                    }
                })
                .collect();
            q.insert("last_error", doc! { "$regex": escaped });
        }
        if let Some(after) = f.after {
            let created = bson_date(after.created_at);
            q.insert(
                "$or",
                vec![
                    Bson::Document(doc! { "created_at": { "$gt": created.clone() } }),
                    Bson::Document(
                        doc! { "created_at": created, "id": { "$gt": after.id.to_string() } },
                    ),
                ],
            );
        }
        let opts = FindOptions::builder()
            .sort(doc! { "created_at": 1, "id": 1 })
            .limit(i64::from(f.limit))
            .build();
        let docs: Vec<Document> = super::collect(self.coll.find(q).with_options(opts))
            .await
            .map_err(|e| Error::mongo("listing", e))?;
        Ok(docs.iter().map(|d| self.view(d)).collect())
    }

    async fn error_rows(&mut self, f: &ErrorFilter) -> Result<Vec<RowView>, Error> {
        let routes = match &f.route {
            Some(r) => vec![r.clone()],
            None => self.routes().await?,
        };
        let mut ranges = vec![doc! { "status": "failed" }];
        if f.retrying {
            ranges.push(
                doc! { "status": "pending", "available_at": { "$ne": Bson::Null }, "attempts": { "$gt": 0 } },
            );
        }
        let mut out = Vec::new();
        for mut q in ranges {
            q.insert("outbox_route", doc! { "$in": &routes });
            self.tenant(&mut q, f.tenant);
            if let Some(t) = &f.event_type {
                q.insert("event_type", t);
            }
            let mut find = self.coll.find(q);
            if let Some(n) = f.limit {
                find = find.limit(n);
            }
            let docs: Vec<Document> = super::collect(find)
                .await
                .map_err(|e| Error::mongo("reading failed documents", e))?;
            for d in &docs {
                out.push(self.view(d));
            }
        }
        Ok(out)
    }

    async fn glance(
        &mut self,
        route: &str,
        tenant: Option<Uuid>,
        now: DateTime<Utc>,
        cap: i64,
    ) -> Result<crate::store::ops::Glance, Error> {
        let base = |status: &str, more: Document| {
            let mut f = doc! { "outbox_route": route, "status": status };
            f.extend(more);
            if let Some(t) = tenant {
                f.insert("tenant_id", t.to_string());
            }
            f
        };
        let limit = cap + 1;
        let fresh = base("pending", doc! { "available_at": Bson::Null });
        let due = base(
            "pending",
            doc! { "available_at": { "$lte": bson_date(now) } },
        );
        let stale = match self.reclaim_stale_after {
            Some(d) => {
                let cutoff = now - chrono::Duration::from_std(d).unwrap_or_default();
                let f = base(
                    "processing",
                    doc! { "processing_at": { "$lt": bson_date(cutoff) } },
                );
                Some(self.count_capped(f, limit).await?)
            }
            None => None,
        };
        // the fresh range's head in the claim index's order; of the due retries (in the
        // order they came due) the oldest among as many as a count reads
        let by_claim = doc! { "available_at": 1, "created_at": 1 };
        let oldest = [
            self.earliest_of_first(fresh.clone(), "created_at", by_claim.clone(), 1)
                .await?,
            self.earliest_of_first(due.clone(), "created_at", by_claim, limit)
                .await?,
        ]
        .into_iter()
        .flatten()
        .min();
        Ok(crate::store::ops::Glance {
            route: route.to_owned(),
            tenant,
            ripe: self.count_capped(fresh, limit).await? + self.count_capped(due, limit).await?,
            scheduled: self
                .count_capped(
                    base(
                        "pending",
                        doc! { "available_at": { "$gt": bson_date(now) } },
                    ),
                    limit,
                )
                .await?,
            processing: self
                .count_capped(base("processing", doc! {}), limit)
                .await?,
            stale,
            failed: self.count_capped(base("failed", doc! {}), limit).await?,
            oldest_ripe: oldest,
        })
    }

    async fn activity(&mut self) -> Result<Option<crate::store::ops::Activity>, Error> {
        Ok(None)
    }

    async fn find_event(&mut self, event_id: Uuid) -> Result<EventLocation, Error> {
        let routes = self.routes().await?;
        let docs: Vec<Document> = super::collect(
            self.coll
                .find(doc! { "outbox_route": { "$in": routes }, "event_id": event_id.to_string() }),
        )
        .await
        .map_err(|e| Error::mongo("finding the event", e))?;
        let rows = docs.iter().map(|d| self.view(d)).collect();
        Ok(EventLocation {
            event_id,
            rows,
            deliveries: None,
        })
    }

    async fn position_of(&mut self, id: Uuid) -> Result<Option<RowPosition>, Error> {
        let found = self.coll.find_one(doc! { "id": id.to_string() });
        let found = found
            .await
            .map_err(|e| Error::mongo("finding the --after row", e))?;
        let created = found.and_then(|d| super::date_field(&d, "created_at").ok().flatten());
        Ok(created.map(|created_at| RowPosition { created_at, id }))
    }

    async fn failed_among(
        &mut self,
        ids: &[Uuid],
        tenant: Option<Uuid>,
    ) -> Result<Vec<Uuid>, Error> {
        let found: Vec<Document> = super::collect(
            (self.coll.find(self.failed_filter(ids, tenant))).projection(doc! { "id": 1 }),
        )
        .await
        .map_err(|e| Error::mongo("reading the given rows", e))?;
        Ok(found
            .iter()
            .filter_map(|d| d.get_str("id").ok().and_then(|s| Uuid::parse_str(s).ok()))
            .collect())
    }

    /// Each document changed on its own (`find_one_and_update`), so that what is reported
    /// changed is what this call changed, not what another operator's got to first.
    async fn requeue(&mut self, rows: &[Chosen]) -> Result<Vec<Uuid>, Error> {
        let set = doc! { "$set": { "status": "pending", "processing_at": Bson::Null, "published_at": Bson::Null, "last_error": Bson::Null, "attempts": 0, "available_at": Bson::Null } };
        let mut changed = Vec::new();
        for r in rows {
            let hit = (self
                .coll
                .find_one_and_update(self.chosen_filter(r), set.clone()))
            .projection(doc! { "id": 1 })
            .max_time(WRITE_WAIT)
            .await
            .map_err(|e| self.held("requeueing", e))?;
            changed.extend(hit.map(|_| r.id));
        }
        Ok(changed)
    }

    /// As `requeue`, one document at a time; with `keep`, in one transaction that commits once
    /// the documents deleted are kept.
    async fn discard(
        &mut self,
        rows: &[Chosen],
        keep: Option<&mut crate::store::ops::Keep<'_>>,
    ) -> Result<Vec<Uuid>, Error> {
        if let Some(keep) = keep {
            return self.discard_keeping(rows, keep).await;
        }
        let mut changed = Vec::new();
        for r in rows {
            let hit = (self.coll.find_one_and_delete(self.chosen_filter(r)))
                .projection(doc! { "id": 1 })
                .max_time(WRITE_WAIT)
                .await
                .map_err(|e| self.held("discarding", e))?;
            changed.extend(hit.map(|_| r.id));
        }
        Ok(changed)
    }

    async fn stage(&mut self, events: &[NewEvent], node_key: &str) -> Result<Vec<Staged>, Error> {
        self.stage_events(events, node_key).await
    }

    async fn checkpoints(&mut self) -> Result<Option<Vec<CheckpointRow>>, Error> {
        let Some(cp) = &self.checkpoint else {
            return Ok(None);
        };
        let coll = self
            .client
            .database(&cp.db)
            .collection::<Document>(&cp.collection);
        let docs: Vec<Document> = super::collect(coll.find(doc! {}).sort(doc! { "_id": 1 }))
            .await
            .map_err(|e| Error::mongo("reading the checkpoint", e))?;
        let mut rows = Vec::with_capacity(docs.len());
        for d in &docs {
            let node = (d.get_str("_id").map(str::to_owned))
                .unwrap_or_else(|_| d.get("_id").map_or_else(String::new, Bson::to_string));
            match (node, d.get("hlc")) {
                (node, Some(Bson::Int64(h))) => {
                    rows.push(CheckpointRow::stored(cp, node, &h.to_string())?)
                }
                (_, None | Some(Bson::Null)) => {}
                // left out, the max shown was not the one a stamp must pass
                (_, Some(other)) => {
                    let why = bad_mark(cp, d.get("_id"), other);
                    return Err(Error::Data {
                        what: why,
                        source: None,
                    });
                }
            }
        }
        Ok(Some(rows))
    }
}

/// What a checkpoint document whose mark is not a 64-bit integer says, and how to fix it.
pub(super) fn bad_mark(cp: &impl std::fmt::Display, id: Option<&Bson>, hlc: &Bson) -> String {
    let id = id.map_or_else(|| "?".to_owned(), Bson::to_string);
    format!(
        "the HLC checkpoint {cp} holds a mark that is not a 64-bit integer (_id {id}: hlc {hlc}): set it to the packed 64-bit value or remove that document; a stamp past a mark it cannot read could go backwards"
    )
}
