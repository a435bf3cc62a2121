//! The replay source on MongoDB: `published` documents, route after route, in claim order
//! through the replay index (`migrate` adds it with `outbox.replay_index`), one keyset `find`
//! per page.

use std::sync::Arc;

use futures_util::TryStreamExt;
use mongodb::bson::{Bson, Document, doc};
use mongodb::options::FindOptions;

use super::{MongoStoreOptions, Position, bson_date, claim_sort, collect, date_field, decode};
use crate::Error;
use crate::model::Message;
use crate::replay::{Cursor, Item, ReplayError, ReplaySource, Selection};

pub struct MongoPublished {
    coll: mongodb::Collection<Document>,
    opts: MongoStoreOptions,
    route: usize,
    pos: Option<Position>,
    selection: Selection,
}

impl MongoPublished {
    /// Opens the collection (checking the replay index unless `--event-id` picks documents),
    /// positioned after `after`.
    pub async fn open(
        client: &mongodb::Client,
        opts: MongoStoreOptions,
        selection: Selection,
        after: Option<&Cursor>,
    ) -> Result<Self, Error> {
        let coll = client
            .database(&opts.collection.db)
            .collection::<Document>(&opts.collection.collection);
        if selection.event_ids.is_empty() {
            let want: Vec<String> = crate::schema::render::mongo_replay_indexes(opts.hlc_ordering)
                .remove(0)
                .keys
                .into_iter()
                .map(|(k, _)| k)
                .collect();
            let models: Vec<mongodb::IndexModel> = coll
                .list_indexes()
                .await
                .map_err(|e| Error::mongo("listing the outbox's indexes", e))?
                .try_collect()
                .await
                .map_err(|e| Error::mongo("listing the outbox's indexes", e))?;
            if !models
                .iter()
                .any(|m| m.keys.keys().cloned().collect::<Vec<_>>() == want)
            {
                return Err(Error::Refused(format!(
                    "replay pages {} through an index on ({}), which does not exist: run outboxctl migrate (it adds it, whatever outbox.replay_index says), or pick events with --event-id",
                    opts.collection,
                    want.join(", ")
                )));
            }
        }
        let mut this = Self {
            coll,
            opts,
            route: 0,
            pos: None,
            selection,
        };
        match after {
            None => {}
            Some(Cursor::Row {
                route,
                hlc,
                created_at,
                id,
                ..
            }) => {
                this.route = this
                    .selection
                    .routes
                    .iter()
                    .position(|r| r == route)
                    .ok_or_else(|| ReplayError::cursor_route(route, None))?;
                this.pos = Some(Position::at(*hlc, *created_at, *id));
            }
            Some(other) => {
                return Err(ReplayError::CursorKind {
                    found: other.source_kind(),
                    expected: "the outbox's published documents",
                }
                .into());
            }
        }
        Ok(this)
    }

    fn filter(&self, route: &str) -> Document {
        let s = &self.selection;
        let mut and: Vec<Bson> = vec![Bson::Document(
            doc! { "outbox_route": route, "status": "published" },
        )];
        let mut push = |d: Document| and.push(Bson::Document(d));
        if let Some(p) = &self.pos {
            push(p.after(self.opts.hlc_ordering));
        }
        if let Some(k) = &s.key {
            push(doc! { "$or": [
                { "ordering_key": k },
                { "ordering_key": { "$in": [Bson::Null, ""] }, "event_id": k },
            ] });
        }
        if let Some(t) = s.tenant {
            push(doc! { "tenant_id": t.to_string() });
        }
        if let Some(t) = &s.event_type {
            push(doc! { "event_type": t });
        }
        if !s.event_ids.is_empty() {
            let ids: Vec<String> = s.event_ids.iter().map(ToString::to_string).collect();
            push(doc! { "event_id": { "$in": ids } });
        }
        if let Some(t) = s.since {
            push(doc! { "published_at": { "$gte": bson_date(t) } });
        }
        if let Some(t) = s.until {
            // delivered before `until` means created before it: the read stops there
            push(
                doc! { "published_at": { "$lt": bson_date(t) }, "created_at": { "$lt": bson_date(t) } },
            );
        }
        if let Some(h) = s.hlc_from {
            push(doc! { "hlc": { "$gte": h } });
        }
        if let Some(h) = s.hlc_to {
            push(doc! { "hlc": { "$lte": h } });
        }
        doc! { "$and": and }
    }
}

impl ReplaySource for MongoPublished {
    async fn next_page(&mut self, limit: u32) -> Result<Vec<Item>, Error> {
        while let Some(route) = self.selection.routes.get(self.route).cloned() {
            let find = FindOptions::builder()
                .sort(claim_sort(self.opts.hlc_ordering))
                .limit(i64::from(limit))
                .build();
            let docs = collect(self.coll.find(self.filter(&route)).with_options(find))
                .await
                .map_err(|e| Error::mongo("reading published documents", e))?;
            if docs.is_empty() {
                self.route += 1;
                self.pos = None;
                continue;
            }
            let mut page = Vec::with_capacity(docs.len());
            for d in &docs {
                let bad = |e: String| {
                    ReplayError::record(
                        match d.get("_id") {
                            Some(id) => format!("document {id} of {}", self.opts.collection),
                            None => format!("a document without _id of {}", self.opts.collection),
                        },
                        e,
                    )
                };
                let row = decode(d, &self.opts).map_err(|e| bad(e.to_string()))?;
                let message = Message::from_row(&row).map_err(|e| bad(e.to_string()))?;
                self.pos = Some(Position::of(&row));
                page.push(Item {
                    message: Arc::new(message),
                    cursor: Cursor::Row {
                        tenant: None,
                        route: route.clone(),
                        hlc: row.hlc,
                        created_at: row.created_at,
                        id: row.id,
                    },
                    published_at: date_field(d, "published_at").map_err(bad)?,
                });
            }
            return Ok(page);
        }
        Ok(Vec::new())
    }
}
