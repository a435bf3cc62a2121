//! What `doctor` asks PostgreSQL about the claim: its plan (any sequential scan of the outbox)
//! and the table's estimated size. The command judges; this runs the SQL.

use chrono::{DateTime, Utc};
use sqlx::postgres::PgConnection;
use uuid::Uuid;

use super::postgres::{PgStoreOptions, claim_sql};
use crate::target::QualifiedName;

/// The claim's plan, as far as `doctor` cares.
#[derive(Debug, Clone, Copy)]
pub struct ClaimPlan {
    /// Sequential scans of the outbox table in the plan.
    pub seq_scans: usize,
    /// The planner's estimate of the table's rows.
    pub estimated_rows: f64,
}

/// `EXPLAIN` of the claim for a batch of 100 of `route` (and `tenant`, when tenant-aware).
pub async fn claim_plan(
    conn: &mut PgConnection,
    table: &QualifiedName,
    opts: &PgStoreOptions,
    route: &str,
    tenant: Option<Uuid>,
    now: DateTime<Utc>,
) -> Result<ClaimPlan, sqlx::Error> {
    let plan_sql = format!("EXPLAIN (FORMAT JSON) {}", claim_sql(table, opts));
    let mut q = crate::db::pg::query_scalar::<serde_json::Value>(&plan_sql)
        .bind(route)
        .bind(100i64)
        .bind(now);
    if opts.tenant_aware {
        q = q.bind(tenant);
    }
    let plan = q.fetch_one(&mut *conn).await?;
    let mut seq_scans = 0;
    count_seq_scans(&plan[0]["Plan"], table.name.name(), &mut seq_scans);
    let estimated_rows: f64 = crate::db::pg::query_scalar(
        "SELECT greatest(reltuples, 0)::float8 FROM pg_class WHERE oid = $1::regclass",
    )
    .bind(table.to_string())
    .fetch_one(conn)
    .await
    .unwrap_or(0.0);
    Ok(ClaimPlan {
        seq_scans,
        estimated_rows,
    })
}

/// Counts sequential scans of `table` in an EXPLAIN (FORMAT JSON) plan.
fn count_seq_scans(node: &serde_json::Value, table: &str, out: &mut usize) {
    if node["Node Type"] == "Seq Scan" && node["Relation Name"] == table {
        *out += 1;
    }
    for child in node["Plans"].as_array().into_iter().flatten() {
        count_seq_scans(child, table, out);
    }
}

/// What `doctor` asks MongoDB: whether it is a replica set (transactions), the key lists of
/// the collection's indexes, and whether the claim's plan scans the collection.
pub mod mongo {
    use futures_util::TryStreamExt;
    use mongodb::Client;
    use mongodb::bson::{Bson, Document, doc};

    use crate::Error;
    use crate::target::CollectionName;

    /// The server is a replica set member (`hello` names a set): transactions work.
    pub async fn is_replica_set(client: &Client) -> Result<bool, Error> {
        let hello = client
            .database("admin")
            .run_command(doc! { "hello": 1 })
            .await
            .map_err(|e| Error::mongo("hello", e))?;
        Ok(hello.get_str("setName").is_ok())
    }

    /// Each index's key fields, in order (none when the collection cannot be listed).
    pub async fn index_keys(client: &Client, collection: &CollectionName) -> Vec<Vec<String>> {
        let coll = client
            .database(&collection.db)
            .collection::<Document>(&collection.collection);
        let models: Vec<mongodb::IndexModel> = match coll.list_indexes().await {
            Ok(c) => c.try_collect().await.unwrap_or_default(),
            Err(_) => Vec::new(),
        };
        models
            .iter()
            .map(|m| m.keys.keys().cloned().collect())
            .collect()
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
}
