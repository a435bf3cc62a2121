//! inspect, requeue, discard, emit, hlc show, storage and doctor on a real PostgreSQL.

use serde_json::Value;
use sqlx::postgres::PgConnection;

use crate::common::{
    CHECK_FAILED, ERROR, LOCK_BUSY, OK, PgSchema, REFUSED, RELAY_TO_NOWHERE, count, doctor_check,
    group_counts, lines, migrate, ob, out_file, pg_url, stage,
};

mod change;
mod discard_save;
mod doctor;
mod emit;
mod inspect;
mod storage;
mod storage_lock;

fn cmd(schema: &PgSchema, extra: &[&str], args: &[&str]) -> crate::common::Run {
    ob(args).pg(&schema.rel("outbox")).args(extra).run()
}

fn json(r: &crate::common::Run) -> Value {
    r.json()
}

/// The tenants of the tenant-aware tests: [`two_tenants`] gives odd rows to the first.
const TENANTS: [&str; 2] = [
    "0190c4e2-8a6c-7e4a-9b1e-00000000000a",
    "0190c4e2-8a6c-7e4a-9b1e-00000000000b",
];

/// A command on a tenant-aware outbox of [`TENANTS`] in `relation`, its configuration's
/// `more` keys appended (`"  storage: consume\n"` under `outbox:`, or a `relay:` section).
fn tenants_config(
    test: &str,
    relation: &str,
    more: &str,
) -> impl Fn(&[&str]) -> crate::common::Run + use<> {
    let [a, b] = TENANTS;
    let cfg = crate::common::config_file(
        test,
        &format!(
            "outbox:\n  relation: {relation}\n  tenant_aware: true\n  tenants: [{a}, {b}]\n{more}"
        ),
    );
    let url = pg_url();
    move |args: &[&str]| {
        ob([args, &["--database-url", &url, "--config", cfg.as_str()]].concat()).run()
    }
}

/// A tenant-aware outbox `t` serving both [`TENANTS`] (the configuration file returned),
/// migrated, with `n` rows of route `orders` staged: odd ones the first tenant's, even ones the
/// second's.
async fn two_tenants(test: &str, conn: &mut PgConnection, t: &str, n: i64) -> String {
    let [a, b] = TENANTS;
    let tenants = format!("outbox:\n  tenant_aware: true\n  tenants: [{a}, {b}]\n");
    let cfg = crate::common::config_file(test, &tenants);
    ob(["migrate", "-q"]).pg(t).config(&cfg).code(OK);
    stage(conn, t, "orders", n, None).await;
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET tenant_id = CASE WHEN (payload->>'n')::int % 2 = 1 THEN '{a}'::uuid ELSE '{b}'::uuid END"
    ))
    .execute(conn)
    .await
    .unwrap();
    cfg
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
