//! inspect, requeue, discard, emit, hlc show, storage and doctor on a real PostgreSQL.

use serde_json::Value;
use sqlx::postgres::PgConnection;

use crate::common::{
    CHECK_FAILED, ERROR, LOCK_BUSY, OK, PgSchema, REFUSED, RELAY_TO_NOWHERE, count, doctor_check,
    group_counts, lines, migrate, ob, out_file, pg_url, stage,
};

mod change;
mod inspect;
mod storage;

fn cmd(schema: &PgSchema, extra: &[&str], args: &[&str]) -> crate::common::Run {
    ob(args).pg(&schema.rel("outbox")).args(extra).run()
}

fn json(r: &crate::common::Run) -> Value {
    r.json()
}

/// route a: 2 never-retried + 1 ripe retry, 2 scheduled, 1 stale + 1 fresh processing,
/// 2 failed, 5 published; route b: 1 pending.
async fn seed(conn: &mut PgConnection, t: &str) {
    stage(conn, t, "a", 14, None).await;
    stage(conn, t, "b", 1, None).await;
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET attempts = 1, available_at = now() - interval '1 minute', last_error = 'boom' WHERE outbox_route = 'a' AND (payload->>'n')::int = 3;
         UPDATE {t} SET attempts = 2, available_at = now() + interval '1 hour', last_error = 'timeout' WHERE outbox_route = 'a' AND (payload->>'n')::int IN (4, 5);
         UPDATE {t} SET status = 'processing', processing_at = now() - interval '1 hour' WHERE outbox_route = 'a' AND (payload->>'n')::int = 6;
         UPDATE {t} SET status = 'processing', processing_at = now() WHERE outbox_route = 'a' AND (payload->>'n')::int = 7;
         UPDATE {t} SET status = 'failed', attempts = 4, last_error = 'broker said no: queue missing' WHERE outbox_route = 'a' AND (payload->>'n')::int = 8;
         UPDATE {t} SET status = 'failed', attempts = 4, last_error = 'HTTP 500', event_type = 'order.cancelled' WHERE outbox_route = 'a' AND (payload->>'n')::int = 9;
         UPDATE {t} SET status = 'published', published_at = now() WHERE outbox_route = 'a' AND (payload->>'n')::int >= 10;"
    ))
    .execute(conn)
    .await
    .unwrap();
}
