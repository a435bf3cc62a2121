//! What `doctor` asks PostgreSQL about the claim: its plan (any sequential scan of the outbox)
//! and the table's estimated size. The command judges; this runs the SQL.

use chrono::{DateTime, Utc};
use sqlx::postgres::PgConnection;
use uuid::Uuid;

use super::{PgStoreOptions, claim_sql};
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
