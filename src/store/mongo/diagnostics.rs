//! What `doctor` asks MongoDB: whether it is a replica set (transactions), the collection's
//! indexes, and whether the claim's plan scans the collection.
use mongodb::Client;
use mongodb::bson::{Bson, Document, doc};

use crate::Error;
use crate::schema::plan::MongoIndexFacts;
use crate::target::CollectionName;

/// The server has transactions: a replica set member (`hello` names a set) or a `mongos`.
pub async fn has_transactions(client: &Client) -> Result<bool, Error> {
    let hello = client
        .database("admin")
        .run_command(doc! { "hello": 1 })
        .await
        .map_err(|e| Error::mongo("hello", e))?;
    Ok(hello.get_str("setName").is_ok() || hello.get_str("msg") == Ok("isdbgrid"))
}

/// Why a command that needs a transaction cannot run on a standalone server.
pub fn standalone(what: &str) -> Error {
    Error::Unsupported(format!(
        "{what} needs a transaction, and MongoDB transactions need a replica set: this server is standalone"
    ))
}

/// The indexes of `collection` (none when it cannot be listed).
pub async fn indexes_of(client: &Client, collection: &CollectionName) -> Vec<MongoIndexFacts> {
    let coll = client
        .database(&collection.db)
        .collection::<Document>(&collection.collection);
    crate::schema::mongo::index_facts(&coll)
        .await
        .unwrap_or_default()
}

/// Whether the claim's `find` (for a route of no rows, sorted as the relay sorts) plans a
/// collection scan.
pub async fn claim_scans_collection(
    client: &Client,
    collection: &CollectionName,
    hlc_ordering: bool,
) -> Result<bool, Error> {
    let sort = crate::store::mongo::claim_sort(hlc_ordering);
    let plan = client
        .database(&collection.db)
        .run_command(doc! {
            "explain": { "find": &collection.collection, "filter": { "outbox_route": "outboxctl-doctor", "status": "pending",
                "$or": [ { "available_at": Bson::Null }, { "available_at": { "$lte": mongodb::bson::DateTime::now() } } ] },
                "sort": sort, "limit": 100, "projection": { "_id": 1 } },
            "verbosity": "queryPlanner",
        })
        .await
        .map_err(|e| Error::mongo("cannot plan the claim", e))?;
    Ok(plan.to_string().contains("COLLSCAN"))
}
