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

const TABLE_HEALTH_SQL: &str = "\
SELECT coalesce(s.n_live_tup, 0) AS live, coalesce(s.n_dead_tup, 0) AS dead,
       pg_total_relation_size(c.oid) AS total, s.last_vacuum, s.last_autovacuum,
       coalesce(s.vacuum_count, 0) AS vacuums, coalesce(s.autovacuum_count, 0) AS autovacuums,
       coalesce(c.reloptions, '{}')::text[] AS reloptions,
       current_setting('autovacuum') = 'on' AS autovacuum_on,
       extract(epoch FROM current_setting('autovacuum_naptime')::interval)::float8 AS naptime,
       current_setting('autovacuum_vacuum_scale_factor')::float8 AS scale_factor,
       current_setting('autovacuum_vacuum_threshold')::bigint AS threshold
  FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
 WHERE c.oid = $1::regclass";

/// The table's churn and vacuuming, from the server's statistics and settings (catalog reads
/// only: it works behind a pooler).
pub async fn table_health(
    conn: &mut PgConnection,
    table: &QualifiedName,
) -> Result<crate::vacuum::TableHealth, sqlx::Error> {
    use sqlx::Row;
    let r = crate::db::pg::query(TABLE_HEALTH_SQL)
        .bind(table.to_string())
        .fetch_one(conn)
        .await?;
    Ok(crate::vacuum::TableHealth {
        table: table.plain(),
        live_rows: r.try_get("live")?,
        dead_rows: r.try_get("dead")?,
        total_bytes: r.try_get("total")?,
        last_vacuum: r.try_get("last_vacuum")?,
        last_autovacuum: r.try_get("last_autovacuum")?,
        vacuums: r.try_get("vacuums")?,
        autovacuums: r.try_get("autovacuums")?,
        reloptions: r.try_get("reloptions")?,
        autovacuum_on: r.try_get("autovacuum_on")?,
        naptime_seconds: r.try_get("naptime")?,
        vacuum_scale_factor: r.try_get("scale_factor")?,
        vacuum_threshold: r.try_get("threshold")?,
    })
}
