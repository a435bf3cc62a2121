//! MongoDB: read the collection and its indexes, and apply a plan (create the collection and
//! any missing index; both are idempotent, so concurrent runs are safe without a lock).

use futures_util::TryStreamExt;
use mongodb::IndexModel;
use mongodb::bson::{Bson, Document};
use mongodb::options::IndexOptions;

use super::desired::MongoSchema;
use super::plan::{MongoCatalog, MongoIndexFacts, Step};
use crate::Error;

/// Error code for "collection already exists".
const NAMESPACE_EXISTS: i32 = 48;

fn key_value(v: &Bson) -> i64 {
    match v {
        Bson::Int32(i) => i64::from(*i),
        Bson::Int64(i) => *i,
        Bson::Double(d) => *d as i64,
        _ => 0,
    }
}

pub async fn introspect(
    client: &mongodb::Client,
    want: &MongoSchema,
) -> Result<MongoCatalog, mongodb::error::Error> {
    use crate::db::mongo_collection_exists as exists;
    let mut registry_collections = Vec::new();
    for c in want.registry_collections() {
        if exists(client, &c.db, &c.collection).await? {
            registry_collections.push(c.to_string());
        }
    }
    let db = client.database(&want.outbox.db);
    if !exists(client, &want.outbox.db, &want.outbox.collection).await? {
        return Ok(MongoCatalog {
            registry_collections,
            ..MongoCatalog::default()
        });
    }
    let indexes = index_facts(&db.collection::<Document>(&want.outbox.collection)).await?;
    Ok(MongoCatalog {
        collection_exists: true,
        indexes,
        registry_collections,
    })
}

/// The indexes of `coll` (none for a collection that does not exist): what `migrate` plans
/// against, `doctor` checks and strict order's choice of its key index reads.
pub async fn index_facts(
    coll: &mongodb::Collection<Document>,
) -> Result<Vec<MongoIndexFacts>, mongodb::error::Error> {
    const NAMESPACE_NOT_FOUND: i32 = 26;
    let models: Vec<IndexModel> = match coll.list_indexes().await {
        Ok(c) => c.try_collect().await?,
        Err(e) if matches!(e.kind.as_ref(), mongodb::error::ErrorKind::Command(c) if c.code == NAMESPACE_NOT_FOUND) => {
            Vec::new()
        }
        Err(e) => return Err(e),
    };
    Ok(models
        .into_iter()
        .map(|m| {
            let options = m.options.unwrap_or_default();
            MongoIndexFacts {
                name: options.name.clone().unwrap_or_default(),
                keys: m
                    .keys
                    .iter()
                    .map(|(k, v)| (k.clone(), key_value(v)))
                    .collect(),
                unique: options.unique.unwrap_or(false),
                sparse: options.sparse.unwrap_or(false),
                partial: options.partial_filter_expression.map(|p| p.to_string()),
            }
        })
        .collect())
}

impl MongoIndexFacts {
    /// Whether its key fields are `keys`, in that order.
    pub fn on(&self, keys: &[&str]) -> bool {
        self.keys
            .iter()
            .map(|(k, _)| k.as_str())
            .eq(keys.iter().copied())
    }
}

pub async fn apply_step(
    client: &mongodb::Client,
    want: &MongoSchema,
    step: &Step,
) -> Result<(), Error> {
    let db = client.database(&want.outbox.db);
    let fail = |e: mongodb::error::Error| Error::mongo(format!("{} failed", step.summary), e);
    match &step.mongo_index {
        None => match match &step.mongo_collection {
            Some(c) => {
                client
                    .database(&c.db)
                    .create_collection(&c.collection)
                    .await
            }
            None => db.create_collection(&want.outbox.collection).await,
        } {
            Ok(()) => Ok(()),
            Err(e) if matches!(*e.kind, mongodb::error::ErrorKind::Command(ref c) if c.code == NAMESPACE_EXISTS) => {
                Ok(())
            }
            Err(e) => Err(fail(e)),
        },
        Some(spec) => {
            let mut keys = Document::new();
            for (k, v) in &spec.keys {
                keys.insert(k.clone(), *v);
            }
            let options = IndexOptions::builder()
                .name(spec.name.clone())
                .unique(spec.unique.then_some(true))
                .sparse(spec.sparse.then_some(true))
                .partial_filter_expression(spec.partial_filter())
                .build();
            let model = IndexModel::builder().keys(keys).options(options).build();
            db.collection::<Document>(&want.outbox.collection)
                .create_index(model)
                .await
                .map(drop)
                .map_err(fail)
        }
    }
}
