//! PostgreSQL for the tests: a connection, a schema of the test's own, and the helpers most
//! PostgreSQL tests share (migrate a schema, stage rows, read a `file:` destination's lines).

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use sqlx::Connection;
use sqlx::postgres::PgConnection;

use super::{OK, eventually, ob, pg_url, unique_name};

pub async fn pg() -> PgConnection {
    PgConnection::connect(&pg_url()).await.unwrap_or_else(|e| {
        panic!(
            "PostgreSQL is not reachable at {} ({e}); run scripts/services.sh (or set OUTBOXCTL_TEST_PG_URL)",
            pg_url()
        )
    })
}

/// A schema of the test's own: created empty, dropped when the test passes.
pub struct PgSchema {
    pub name: String,
}

impl PgSchema {
    pub async fn new(test: &str) -> (Self, PgConnection) {
        let name = unique_name(test);
        let mut conn = pg().await;
        sqlx::raw_sql(&format!(
            "DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name}"
        ))
        .execute(&mut conn)
        .await
        .expect("create test schema");
        (Self { name }, conn)
    }

    /// The same, but the schema does not exist yet (migrate must create it).
    pub async fn absent(test: &str) -> (Self, PgConnection) {
        let name = unique_name(test);
        let mut conn = pg().await;
        sqlx::raw_sql(&format!("DROP SCHEMA IF EXISTS {name} CASCADE"))
            .execute(&mut conn)
            .await
            .expect("drop test schema");
        (Self { name }, conn)
    }

    pub fn rel(&self, table: &str) -> String {
        format!("{}.{table}", self.name)
    }
}

impl Drop for PgSchema {
    fn drop(&mut self) {
        let name = self.name.clone();
        super::clean_up_unless_failed(&format!("schema {name}"), || async move {
            let mut conn = pg().await;
            let _ = sqlx::raw_sql(&format!("DROP SCHEMA IF EXISTS {name} CASCADE"))
                .execute(&mut conn)
                .await;
        });
    }
}

/// `migrate -q` of the schema's `outbox` (and `extra` flags), which must succeed.
pub async fn migrate(schema: &PgSchema, extra: &[&str]) {
    ob(["migrate", "-q"])
        .pg(&schema.rel("outbox"))
        .args(extra)
        .code(OK);
}

/// Stages `n` pending rows of a route, `created_at` 1 ms apart, keys `k{g % keys}` (or NULL).
pub async fn stage(conn: &mut PgConnection, table: &str, route: &str, n: i64, keys: Option<i64>) {
    let key = match keys {
        Some(k) => format!("'k' || (g % {k})"),
        None => "NULL".into(),
    };
    sqlx::raw_sql(&format!(
        "INSERT INTO {table} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, ordering_key)
         SELECT gen_random_uuid(), '{route}', gen_random_uuid(), 'order.placed', now(),
                jsonb_build_object('n', g), 'pending', clock_timestamp() + g * interval '1 millisecond', {key}
           FROM generate_series(1, {n}) g"
    ))
    .execute(conn)
    .await
    .unwrap();
}

pub fn out_file(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join("outboxctl-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{}.jsonl", unique_name(test)));
    let _ = std::fs::remove_file(&path);
    path
}

/// The JSON lines a file destination has written so far: complete lines only, since a relay
/// still running may be halfway through writing its last one (a test that waits on the count
/// read one cut at a write's end). A complete line that is not JSON fails the test.
pub fn lines(path: &PathBuf) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let complete = text.rfind('\n').map_or("", |end| &text[..end]);
    complete
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l:?}: {e}")))
        .collect()
}

/// The `count(*)` (or any `bigint`) one query returns.
/// One delivery of route `orders` recorded in the delivery log `log` (for `tenant`, a UUID's
/// text), published at `at`.
pub async fn log_delivery(
    conn: &mut PgConnection,
    log: &str,
    tenant: Option<&str>,
    at: chrono::DateTime<chrono::Utc>,
) {
    sqlx::query(&format!(
        "INSERT INTO {log} (id, outbox_route, event_id, tenant_id, published_at) VALUES (gen_random_uuid(), 'orders', gen_random_uuid(), $2::uuid, $1)"
    ))
    .bind(at)
    .bind(tenant)
    .execute(conn)
    .await
    .unwrap();
}

pub async fn count(conn: &mut PgConnection, sql: &str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(conn).await.unwrap()
}

/// Drops a role a test made, and everything it owns.
pub async fn drop_role(conn: &mut PgConnection, role: &str) {
    sqlx::raw_sql(&format!("DROP OWNED BY {role}; DROP ROLE {role}"))
        .execute(conn)
        .await
        .unwrap();
}

/// Makes every row of the table due now (as if its retry delay had passed).
pub async fn make_due(conn: &mut PgConnection, table: &str) {
    sqlx::raw_sql(&format!("UPDATE {table} SET available_at = NULL"))
        .execute(conn)
        .await
        .unwrap();
}

/// Drops every partition of a delivery log (no day and no default partition left).
pub async fn drop_all_partitions(conn: &mut PgConnection, log: &str) {
    let parts: Vec<String> = sqlx::query_scalar(
        "SELECT c.oid::regclass::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass",
    )
    .bind(log)
    .fetch_all(&mut *conn)
    .await
    .unwrap();
    assert!(!parts.is_empty(), "{log} has no partitions to drop");
    for p in parts {
        sqlx::raw_sql(&format!("DROP TABLE {p}"))
            .execute(&mut *conn)
            .await
            .unwrap();
    }
}

/// Waits until the `count(*)` of `sql` is 0, e.g. "no row pending or processing".
pub async fn wait_none(conn: &mut PgConnection, sql: &str, limit: Duration) {
    eventually(limit, sql, async || {
        let left = count(&mut *conn, sql).await;
        if left == 0 {
            Ok(())
        } else {
            Err(format!("{left} left"))
        }
    })
    .await
}

/// Waits until some session matches `sql`, a `SELECT EXISTS (…)` over pg_stat_activity, e.g.
/// "a backend is waiting on a lock".
pub async fn wait_for_session(
    conn: &mut PgConnection,
    sql: &str,
    bind: Option<i32>,
    limit: Duration,
) {
    eventually(limit, sql, async || {
        let mut q = sqlx::query_scalar::<_, bool>(sql);
        if let Some(b) = bind {
            q = q.bind(b);
        }
        if q.fetch_one(&mut *conn).await.unwrap() {
            Ok(())
        } else {
            Err("no session matched".into())
        }
    })
    .await
}

/// Polls a `count(*)` until it reaches `n` (60 s at most).
pub async fn wait_rows(conn: &mut PgConnection, sql: &str, n: i64) {
    let what = format!("{n} rows: {sql}");
    crate::common::eventually(std::time::Duration::from_secs(60), &what, async || {
        let got = count(&mut *conn, sql).await;
        if got >= n {
            Ok(())
        } else {
            Err(format!("{got} so far"))
        }
    })
    .await
}

/// The local ports of `pid`'s TCP connections to port 5432 (from `/proc`).
pub fn postgres_ports(pid: u32) -> std::collections::HashSet<u16> {
    let inodes: std::collections::HashSet<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter_map(|l| {
            let l = l.to_string_lossy().into_owned();
            Some(l.strip_prefix("socket:[")?.strip_suffix(']')?.to_owned())
        })
        .collect();
    let mut ports = std::collections::HashSet::new();
    for table in ["tcp", "tcp6"] {
        let text = std::fs::read_to_string(format!("/proc/{pid}/net/{table}")).unwrap();
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let port = |a: &str| u16::from_str_radix(a.rsplit(':').next().unwrap(), 16).unwrap();
            if port(f[2]) == 5432 && inodes.contains(f[9]) {
                ports.insert(port(f[1]));
            }
        }
    }
    ports
}
