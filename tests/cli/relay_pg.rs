//! The relay on a real PostgreSQL: every rule of semantics.md that applies, in both storages.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::future::BoxFuture;
use outboxctl::destination::{PublishError, Publisher, Sink};
use outboxctl::model::Message;
use outboxctl::model::{KeyOrder, Storage};
use outboxctl::relay::RelaySettings;
use outboxctl::relay::engine::{PassOptions, run_pass};
use outboxctl::store::postgres::{PgStore, PgStoreOptions};
use outboxctl::store::{PassTarget, RelayStore};
use outboxctl::target::RelationSpec;
use serde_json::Value;
use sqlx::Row;
use sqlx::postgres::PgConnection;

use crate::common::{
    CHECK_FAILED, OK, PgSchema, count, lines, migrate, ob, out_file, pg_url, stage,
};

fn relay_once(schema: &PgSchema, to: &str, extra: &[&str]) -> crate::common::Run {
    ob(["relay", "--once", "--route", "orders", "--to", to])
        .pg(&schema.rel("outbox"))
        .args(extra)
        .run()
}

#[tokio::test]
async fn retain_publishes_marks_and_forwards_payload_exactly() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    sqlx::query(&format!(
        "INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, correlation_id, causation_id, execution_id, tenant_id, ordering_key)
         VALUES ('00000000-0000-7000-8000-000000000001', 'orders', '0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e', 'order.placed',
                 '2026-12-01 10:00:00+00', $1::jsonb, 'pending', now(),
                 '0190c4e2-8a6c-7e4a-9b1e-000000000001', '0190c4e2-8a6c-7e4a-9b1e-000000000002', '0190c4e2-8a6c-7e4a-9b1e-000000000003',
                 '0190c4e2-8a6c-7e4a-9b1e-00000000abcd', '')"
    ))
    .bind(r#"{"amount": 12345678901234567890.123456789, "note": "é/\"q\""}"#)
    .execute(&mut conn)
    .await
    .unwrap();
    stage(&mut conn, &t, "orders", 40, Some(3)).await;
    stage(&mut conn, &t, "other", 5, None).await;
    let path = out_file(test);
    let r = relay_once(
        &schema,
        &format!("file:{}", path.display()),
        &["--format", "json"],
    );
    assert_eq!(r.code, OK, "{r:?}");
    let summary: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(summary[0]["published"], 41, "{r:?}");
    assert_eq!(summary[0]["passes"], 1);

    let got = lines(&path);
    assert_eq!(got.len(), 41);
    let first = &got[0];
    let keys: Vec<&String> = first.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "id",
            "event_id",
            "route",
            "type",
            "key",
            "tenant_id",
            "payload",
            "headers"
        ]
    );
    let raw_first = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_owned();
    assert!(
        raw_first
            .contains(r#""payload":{"note":"é/\"q\"","amount":12345678901234567890.123456789}"#),
        "{raw_first}"
    );
    assert_eq!(
        first["key"], "0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e",
        "empty ordering_key falls back to the event id"
    );
    assert_eq!(
        first["headers"],
        serde_json::json!({
            "forze_event_id": "0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e",
            "forze_occurred_at": "2026-12-01T10:00:00+00:00",
            "forze_correlation_id": "0190c4e2-8a6c-7e4a-9b1e-000000000001",
            "forze_causation_id": "0190c4e2-8a6c-7e4a-9b1e-000000000002",
            "forze_execution_id": "0190c4e2-8a6c-7e4a-9b1e-000000000003",
            "forze_tenant_id": "0190c4e2-8a6c-7e4a-9b1e-00000000abcd"
        })
    );
    // claim order: created_at then id
    let ns: Vec<i64> = got[1..]
        .iter()
        .map(|l| l["payload"]["n"].as_i64().unwrap())
        .collect();
    assert_eq!(ns, (1..=40).collect::<Vec<_>>());
    assert!(got.iter().all(|l| l["route"] == "orders"));

    let row = sqlx::query(&format!(
        "SELECT count(*) FILTER (WHERE status = 'published' AND published_at IS NOT NULL AND processing_at IS NOT NULL AND last_error IS NULL) AS ok,
                count(*) AS all FROM {t} WHERE outbox_route = 'orders'"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(
        (row.get::<i64, _>("ok"), row.get::<i64, _>("all")),
        (41, 41)
    );
    assert_eq!(
        count(
            &mut conn,
            &format!(
                "SELECT count(*) FROM {t} WHERE outbox_route = 'other' AND status = 'pending'"
            )
        )
        .await,
        5
    );
    // nothing left: a second run publishes nothing
    let r = relay_once(&schema, &format!("file:{}", path.display()), &[]);
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(lines(&path).len(), 41);
}

#[tokio::test]
async fn claim_skips_scheduled_failed_and_processing_rows_and_takes_ripe_retries() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 10, None).await;
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET available_at = now() + interval '1 hour', attempts = 2 WHERE (payload->>'n')::int IN (1, 2);
         UPDATE {t} SET available_at = now() - interval '1 second', attempts = 1 WHERE (payload->>'n')::int = 3;
         UPDATE {t} SET status = 'failed', last_error = 'x' WHERE (payload->>'n')::int = 4;
         UPDATE {t} SET status = 'processing', processing_at = now() WHERE (payload->>'n')::int = 5;
         UPDATE {t} SET status = 'published', published_at = now() WHERE (payload->>'n')::int = 6;"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let path = out_file(test);
    let r = relay_once(&schema, &format!("file:{}", path.display()), &[]);
    assert_eq!(r.code, OK, "{r:?}");
    let mut ns: Vec<i64> = lines(&path)
        .iter()
        .map(|l| l["payload"]["n"].as_i64().unwrap())
        .collect();
    ns.sort();
    assert_eq!(ns, vec![3, 7, 8, 9, 10]);
    let attempts: i32 = sqlx::query_scalar(&format!(
        "SELECT attempts FROM {t} WHERE (payload->>'n')::int = 3"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(attempts, 1, "publishing does not touch attempts");
}

#[tokio::test]
async fn reclaim_returns_stale_processing_rows_without_touching_attempts() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 4, None).await;
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET status = 'processing', processing_at = now() - interval '10 minutes', attempts = 2 WHERE (payload->>'n')::int = 1;
         UPDATE {t} SET status = 'processing', processing_at = now() - interval '1 minute' WHERE (payload->>'n')::int = 2;"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let path = out_file(test);
    let cfg =
        crate::common::config_file("relay_reclaim_off", "relay:\n  reclaim_stale_after: null\n");
    let r = relay_once(
        &schema,
        &format!("file:{}", path.display()),
        &["--config", cfg.as_str()],
    );
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(
        lines(&path).len(),
        2,
        "reclaim off: both processing rows stay"
    );

    let r = relay_once(
        &schema,
        &format!("file:{}", path.display()),
        &["--format", "json"],
    );
    assert_eq!(r.code, OK, "{r:?}");
    let summary: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(summary[0]["reclaimed"], 1);
    let got = lines(&path);
    assert_eq!(got.len(), 3);
    assert_eq!(got[2]["payload"]["n"], 1);
    let row = sqlx::query(&format!(
        "SELECT status, attempts FROM {t} WHERE (payload->>'n')::int = 1"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(
        (row.get::<String, _>(0), row.get::<i32, _>(1)),
        ("published".into(), 2)
    );
    let status: String = sqlx::query_scalar(&format!(
        "SELECT status FROM {t} WHERE (payload->>'n')::int = 2"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(
        status, "processing",
        "a fresh processing row is not reclaimed"
    );
}

#[tokio::test]
async fn consume_deletes_and_logs_deliveries_in_one_statement() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let log = schema.rel("outbox_delivered");
    migrate(&schema, &["--storage", "consume", "--delivery-log", &log]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 250, Some(7)).await;
    let path = out_file(test);
    let r = relay_once(
        &schema,
        &format!("file:{}", path.display()),
        &[
            "--storage",
            "consume",
            "--delivery-log",
            &log,
            "--format",
            "json",
        ],
    );
    assert_eq!(r.code, OK, "{r:?}");
    let summary: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        (
            summary[0]["published"].as_u64(),
            summary[0]["passes"].as_u64()
        ),
        (Some(250), Some(3))
    );
    assert_eq!(
        count(&mut conn, &format!("SELECT count(*) FROM {t}")).await,
        0
    );
    assert_eq!(
        count(
            &mut conn,
            &format!("SELECT count(*) FROM {log} WHERE published_at > now() - interval '1 minute'")
        )
        .await,
        250
    );
    let got = lines(&path);
    let logged: Vec<uuid::Uuid> = sqlx::query_scalar(&format!("SELECT event_id FROM {log}"))
        .fetch_all(&mut conn)
        .await
        .unwrap();
    let mut file_ids: Vec<String> = got
        .iter()
        .map(|l| l["event_id"].as_str().unwrap().to_owned())
        .collect();
    let mut log_ids: Vec<String> = logged.iter().map(|u| u.to_string()).collect();
    file_ids.sort();
    log_ids.sort();
    assert_eq!(file_ids, log_ids);
}

#[tokio::test]
async fn hlc_order_nulls_last_and_headers() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &["--hlc-ordering", "--propagate-trace"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 6, None).await;
    // n=1 and n=2 have no hlc (legacy rows); others get descending hlc values
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET hlc = (1764583200000::bigint << 16) | (10 - (payload->>'n')::int) WHERE (payload->>'n')::int > 2;
         UPDATE {t} SET traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' WHERE (payload->>'n')::int = 3;"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let path = out_file(test);
    let r = relay_once(
        &schema,
        &format!("file:{}", path.display()),
        &["--hlc-ordering", "--propagate-trace"],
    );
    assert_eq!(r.code, OK, "{r:?}");
    let got = lines(&path);
    let ns: Vec<i64> = got
        .iter()
        .map(|l| l["payload"]["n"].as_i64().unwrap())
        .collect();
    assert_eq!(ns, vec![6, 5, 4, 3, 1, 2]);
    assert_eq!(got[0]["headers"]["forze_hlc"], "001764583200000.00004");
    assert_eq!(
        got[3]["headers"]["traceparent"],
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    );
    assert!(got[4]["headers"].get("forze_hlc").is_none());
}

#[tokio::test]
async fn a_destination_that_always_fails_parks_rows_after_max_attempts() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 3, None).await;
    let cfg = crate::common::config_file(test, "relay:\n  max_attempts: 3\n");
    let cfg = cfg.as_str();
    for pass in 1..=3 {
        let r = relay_once(&schema, "file:/dev/full", &["--config", cfg]);
        // --once exits 1 only when a row ended failed (or a pass failed), not for retries
        assert_eq!(r.code, if pass < 3 { 0 } else { 1 }, "pass {pass}: {r:?}");
        let row = sqlx::query(&format!(
            "SELECT min(status) AS s, max(status) AS s2, min(attempts) AS a, max(attempts) AS a2, min(last_error) AS e, min(available_at) AS at
               FROM {t}"
        ))
        .fetch_one(&mut conn)
        .await
        .unwrap();
        let (s, s2): (String, String) = (row.get("s"), row.get("s2"));
        assert_eq!(s, s2);
        let (a, a2): (i32, i32) = (row.get("a"), row.get("a2"));
        assert_eq!(a, a2);
        let e: String = row.get("e");
        assert!(e.contains("No space left on device"), "{e}");
        if pass < 3 {
            assert_eq!((s.as_str(), a), ("pending", pass));
            let at: chrono::DateTime<chrono::Utc> = row.get("at");
            let delay = (at - chrono::Utc::now()).num_milliseconds();
            let raw = 1000i64 << (pass - 1);
            assert!(
                delay > raw / 2 - 1000 && delay <= raw,
                "retry {pass} scheduled {delay} ms ahead"
            );
            sqlx::raw_sql(&format!(
                "UPDATE {t} SET available_at = now() - interval '1 ms'"
            ))
            .execute(&mut conn)
            .await
            .unwrap();
        } else {
            assert_eq!(
                (s.as_str(), a),
                ("failed", 2),
                "stored attempts stay max_attempts - 1"
            );
        }
    }
    let r = relay_once(&schema, "file:/dev/full", &["--config", cfg]);
    assert_eq!(r.code, OK, "failed rows are never claimed again: {r:?}");
}

#[tokio::test]
async fn a_missing_delivery_log_partition_rolls_the_pass_back() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let log = schema.rel("outbox_delivered");
    migrate(&schema, &["--storage", "consume", "--delivery-log", &log]).await;
    let t = schema.rel("outbox");
    // no partition for today and no default (migrate attached days ahead: drop them all)
    crate::common::drop_all_partitions(&mut conn, &log).await;
    stage(&mut conn, &t, "orders", 10, None).await;
    let path = out_file(test);
    let r = relay_once(
        &schema,
        &format!("file:{}", path.display()),
        &["--storage", "consume", "--delivery-log", &log],
    );
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(r.stderr.contains("no partition of relation"), "{r:?}");
    assert_eq!(
        count(
            &mut conn,
            &format!("SELECT count(*) FROM {t} WHERE status = 'pending' AND attempts = 0")
        )
        .await,
        10,
        "nothing lost, nothing changed"
    );
    assert_eq!(
        lines(&path).len(),
        10,
        "the batch went out and will go out again"
    );
    sqlx::raw_sql(&format!(
        "CREATE TABLE {log}_default PARTITION OF {log} DEFAULT"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = relay_once(
        &schema,
        &format!("file:{}", path.display()),
        &["--storage", "consume", "--delivery-log", &log],
    );
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(
        count(&mut conn, &format!("SELECT count(*) FROM {log}")).await,
        10
    );
}

#[tokio::test]
async fn a_lock_on_the_delivery_log_times_the_pass_out_and_rolls_it_back() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let log = schema.rel("outbox_delivered");
    migrate(&schema, &["--storage", "consume", "--delivery-log", &log]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 5, None).await;
    let mut locker = crate::common::pg().await;
    sqlx::raw_sql(&format!("BEGIN; LOCK TABLE {log} IN ACCESS EXCLUSIVE MODE"))
        .execute(&mut locker)
        .await
        .unwrap();
    let cfg = crate::common::config_file(
        test,
        "relay:\n  pass_statement_timeout: 200ms\n  shutdown_drain_timeout: 1s\n",
    );
    let started = std::time::Instant::now();
    let r = relay_once(
        &schema,
        "file:/dev/null",
        &[
            "--storage",
            "consume",
            "--delivery-log",
            &log,
            "--config",
            cfg.as_str(),
        ],
    );
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    // lock_timeout and statement_timeout are both the pass statement timeout: either may fire
    assert!(
        r.stderr.contains("lock timeout") || r.stderr.contains("statement timeout"),
        "{r:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the pass gave up after its lock_timeout"
    );
    sqlx::raw_sql("ROLLBACK")
        .execute(&mut locker)
        .await
        .unwrap();
    assert_eq!(
        count(
            &mut conn,
            &format!("SELECT count(*) FROM {t} WHERE status = 'pending' AND attempts = 0")
        )
        .await,
        5
    );
}

#[tokio::test]
async fn consume_pass_timeouts_follow_the_stricter_session_value() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--storage", "consume"]).await;
    let t = schema.rel("outbox");
    let sink = schema.rel("sink");
    // A destination table whose insert takes 300 ms.
    sqlx::raw_sql(&format!(
        "CREATE TABLE {sink} (event_id UUID PRIMARY KEY, outbox_route TEXT NOT NULL, event_type TEXT NOT NULL, ordering_key TEXT,
            tenant_id UUID, payload JSONB NOT NULL, headers JSONB NOT NULL, published_at TIMESTAMPTZ NOT NULL);
         CREATE FUNCTION {s}.slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.3); RETURN NULL; END $$;
         CREATE TRIGGER slow AFTER INSERT ON {sink} FOR EACH STATEMENT EXECUTE FUNCTION {s}.slow();",
        s = schema.name
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    stage(&mut conn, &t, "orders", 3, None).await;
    let to = format!("postgres-table:{sink}");
    let strict = crate::common::config_file(
        "relay_pass_timeouts_strict",
        "relay:\n  pass_statement_timeout: 100ms\n  shutdown_drain_timeout: 1s\n",
    );
    let r = relay_once(
        &schema,
        &to,
        &["--storage", "consume", "--config", strict.as_str()],
    );
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(r.stderr.contains("statement timeout"), "{r:?}");
    assert_eq!(
        count(&mut conn, &format!("SELECT count(*) FROM {sink}")).await,
        0
    );

    // A stricter session value (from the URL's options) wins over a lax pass limit.
    let lax = crate::common::config_file(
        "relay_pass_timeouts_lax",
        "relay:\n  pass_statement_timeout: 5s\n  shutdown_drain_timeout: 25s\n",
    );
    let strict_session = format!("{}?options=-c%20statement_timeout%3D100", pg_url());
    let rel = schema.rel("outbox");
    let r = ob([
        "relay",
        "--once",
        "--database-url",
        &strict_session,
        "--relation",
        &rel,
        "--route",
        "orders",
        "--to",
        &to,
        "--storage",
        "consume",
        "--config",
        lax.as_str(),
    ])
    .run();
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(r.stderr.contains("statement timeout"), "{r:?}");

    // With no session limit, the lax pass limit lets the insert finish: delivered exactly once.
    let r = relay_once(
        &schema,
        &to,
        &["--storage", "consume", "--config", lax.as_str()],
    );
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(
        count(&mut conn, &format!("SELECT count(*) FROM {sink}")).await,
        3
    );
    assert_eq!(
        count(&mut conn, &format!("SELECT count(*) FROM {t}")).await,
        0
    );
    let headers: Value = sqlx::query_scalar(&format!("SELECT headers FROM {sink} LIMIT 1"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert!(headers["forze_event_id"].is_string());
}

#[tokio::test]
async fn migrate_creates_the_postgres_table_destination() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let sink = schema.rel("delivered_events");
    let cfg = crate::common::config_file(
        test,
        &format!("relay:\n  routes:\n    orders:\n      to: postgres-table:{sink}\n"),
    );
    let url = pg_url();
    let rel = schema.rel("outbox");
    let r = ob([
        "migrate",
        "--database-url",
        &url,
        "--relation",
        &rel,
        "--config",
        cfg.as_str(),
    ])
    .run();
    assert_eq!(r.code, OK, "{r:?}");
    assert!(r.stdout.contains("create destination table"), "{r:?}");
    stage(&mut conn, &schema.rel("outbox"), "orders", 5, None).await;
    let r = crate::common::relay_plain(&schema, &cfg);
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(
        count(&mut conn, &format!("SELECT count(*) FROM {sink}")).await,
        5
    );
}

// ---- library-level: the engine with destinations that fail on purpose ----------------------

/// A destination that fails the publishes it is told to, and records what it published.
type FailWhen = Box<dyn Fn(&Message, usize) -> Option<PublishError> + Send + Sync>;

struct Flaky {
    fail: FailWhen,
    calls: AtomicUsize,
    published: std::sync::Mutex<Vec<Message>>,
    delay: Duration,
}

impl Flaky {
    fn new(
        fail: impl Fn(&Message, usize) -> Option<PublishError> + Send + Sync + 'static,
    ) -> Arc<Self> {
        Arc::new(Self {
            fail: Box::new(fail),
            calls: AtomicUsize::new(0),
            published: Default::default(),
            delay: Duration::ZERO,
        })
    }
}

impl Publisher for Flaky {
    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        let result = match (self.fail)(&message, n) {
            Some(e) => Err(e),
            None => {
                self.published.lock().unwrap().push((*message).clone());
                Ok(())
            }
        };
        let delay = self.delay;
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            result
        })
    }
}

fn strict_settings(storage: Storage) -> RelaySettings {
    let mut s = settings(storage);
    s.key_order = KeyOrder::Strict;
    s
}

fn settings(storage: Storage) -> RelaySettings {
    let config =
        outboxctl::config::Config::resolve(Default::default(), None, &Default::default(), &|_| {
            None
        })
        .unwrap();
    let mut s = RelaySettings::from_config(&config);
    s.storage = storage;
    s
}

fn store_options(schema: &PgSchema, storage: Storage, key_order: KeyOrder) -> PgStoreOptions {
    PgStoreOptions {
        relation: RelationSpec::parse("relation", &schema.rel("outbox")).unwrap(),
        delivery_log: None,
        storage,
        hlc_ordering: false,
        propagate_trace: false,
        tenant_aware: false,
        key_order,
        pass_statement_timeout: Duration::from_secs(1),
        pass_deadline: Duration::from_secs(5),
        prepared_statements: false,
    }
}

async fn store(schema: &PgSchema, storage: Storage, key_order: KeyOrder) -> PgStore<'static> {
    let opts = store_options(schema, storage, key_order);
    let url = outboxctl::dburl::DatabaseUrl::parse(&pg_url()).unwrap();
    PgStore::connect(&url, Duration::from_secs(5), opts)
        .await
        .unwrap()
}

fn target() -> PassTarget {
    PassTarget {
        route: "orders".into(),
        tenant: None,
    }
}

#[tokio::test]
async fn transient_failures_retry_with_grouped_errors_then_succeed() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 6, None).await;
    // First pass: n=1..3 fail with two different errors, the rest publish.
    let flaky = Flaky::new(|m, _| {
        let n = m
            .payload
            .get()
            .trim_start_matches("{\"n\":")
            .trim_end_matches('}')
            .parse::<i32>()
            .unwrap();
        match n {
            1 | 2 => Some(PublishError::transient("broker busy")),
            3 => Some(PublishError::transient("connection reset")),
            _ => None,
        }
    });
    let mut s = store(&schema, Storage::Retain, KeyOrder::BestEffort).await;
    let sink = Sink::Publisher(flaky.clone());
    let report = run_pass(
        &mut s,
        &target(),
        &sink,
        &settings(Storage::Retain),
        PassOptions::default(),
    )
    .await;
    assert!(report.committed, "{report:?}");
    assert_eq!((report.published, report.retried, report.failed), (3, 3, 0));
    let rows = sqlx::query(&format!("SELECT status, attempts, last_error, available_at > now() AS later FROM {t} WHERE attempts > 0"))
        .fetch_all(&mut conn)
        .await
        .unwrap();
    assert_eq!(rows.len(), 3);
    for r in &rows {
        assert_eq!(r.get::<String, _>("status"), "pending");
        assert_eq!(r.get::<i32, _>("attempts"), 1);
        assert!(r.get::<bool, _>("later"));
        assert_eq!(
            r.get::<String, _>("last_error"),
            "broker busy (+1 more)",
            "one group: first error plus the count of others"
        );
    }
    // Not yet due: a pass claims nothing.
    let ok = Flaky::new(|_, _| None);
    let sink = Sink::Publisher(ok.clone());
    let report = run_pass(
        &mut s,
        &target(),
        &sink,
        &settings(Storage::Retain),
        PassOptions::default(),
    )
    .await;
    assert_eq!(report.claimed, 0);
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET available_at = now() - interval '1 ms' WHERE attempts > 0"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let report = run_pass(
        &mut s,
        &target(),
        &sink,
        &settings(Storage::Retain),
        PassOptions::default(),
    )
    .await;
    assert_eq!((report.published, report.retried), (3, 0));
    assert_eq!(
        count(
            &mut conn,
            &format!("SELECT count(*) FROM {t} WHERE status = 'published'")
        )
        .await,
        6
    );
    let err: Option<String> = sqlx::query_scalar(&format!("SELECT max(last_error) FROM {t}"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(err, None, "publishing clears last_error");
}

#[tokio::test]
async fn a_permanent_refusal_parks_the_row_at_once() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--storage", "consume"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 2, None).await;
    let flaky = Flaky::new(|_, n| (n == 0).then(|| PublishError::permanent("HTTP 422: bad event")));
    let mut s = store(&schema, Storage::Consume, KeyOrder::BestEffort).await;
    let report = run_pass(
        &mut s,
        &target(),
        &Sink::Publisher(flaky),
        &settings(Storage::Consume),
        PassOptions::default(),
    )
    .await;
    assert_eq!(
        (report.published, report.failed, report.committed),
        (1, 1, true)
    );
    let row = sqlx::query(&format!("SELECT status, attempts, last_error FROM {t}"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(row.get::<String, _>(0), "failed");
    assert_eq!(row.get::<i32, _>(1), 0, "attempts unchanged");
    assert_eq!(row.get::<String, _>(2), "HTTP 422: bad event");
}

#[tokio::test]
async fn strict_key_order_holds_back_a_failed_key_in_the_pass_and_the_claim() {
    for storage in [Storage::Retain, Storage::Consume] {
        let name = format!("relay_strict_holdback_{storage}");
        let (schema, mut conn) = PgSchema::new(&name).await;
        migrate(
            &schema,
            &["--key-order", "strict", "--storage", &storage.to_string()],
        )
        .await;
        let t = schema.rel("outbox");
        stage(&mut conn, &t, "orders", 12, Some(3)).await; // k1: 1,4,7,10  k2: 2,5,8,11  k0: 3,6,9,12
        let flaky = Flaky::new(|m, _| {
            (m.key == "k1" && m.payload.get() == "{\"n\":4}")
                .then(|| PublishError::transient("nope"))
        });
        let mut s = store(&schema, storage, KeyOrder::Strict).await;
        let report = run_pass(
            &mut s,
            &target(),
            &Sink::Publisher(flaky.clone()),
            &strict_settings(storage),
            PassOptions::default(),
        )
        .await;
        assert!(report.committed, "{report:?}");
        assert_eq!(
            (report.published, report.retried, report.untouched),
            (9, 1, 2),
            "{storage}: {report:?}"
        );
        let published: Vec<String> = flaky
            .published
            .lock()
            .unwrap()
            .iter()
            .map(|m| m.payload.get().to_owned())
            .collect();
        assert!(
            !published.contains(&"{\"n\":7}".to_owned())
                && !published.contains(&"{\"n\":10}".to_owned())
        );
        // held-back rows are pending with no attempt counted
        let held = sqlx::query(&format!(
            "SELECT status, attempts FROM {t} WHERE (payload->>'n')::int IN (7, 10)"
        ))
        .fetch_all(&mut conn)
        .await
        .unwrap();
        for r in held {
            assert_eq!(
                (r.get::<String, _>(0), r.get::<i32, _>(1)),
                ("pending".into(), 0),
                "{storage}"
            );
        }
        // While n=4 waits for its retry, the claim takes nothing of k1 even when its rows are due.
        stage(&mut conn, &t, "orders", 3, Some(3)).await;
        let report = run_pass(
            &mut s,
            &target(),
            &Sink::Publisher(flaky.clone()),
            &strict_settings(storage),
            PassOptions::default(),
        )
        .await;
        assert_eq!(
            report.claimed, 2,
            "{storage}: only the new k0 and k2 rows: {report:?}"
        );
        // A failed head blocks its key until requeued; other keys flow.
        sqlx::raw_sql(&format!(
            "UPDATE {t} SET status = 'failed' WHERE (payload->>'n')::int = 4 AND attempts = 1"
        ))
        .execute(&mut conn)
        .await
        .unwrap();
        let report = run_pass(
            &mut s,
            &target(),
            &Sink::Publisher(flaky.clone()),
            &strict_settings(storage),
            PassOptions::default(),
        )
        .await;
        assert_eq!(report.claimed, 0, "{storage}: {report:?}");
    }
}

#[tokio::test]
async fn the_pass_deadline_cancels_a_publish_in_flight_and_leaves_the_rest_untouched() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--storage", "consume"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 10, None).await;
    let mut slow = Flaky::new(|_, _| None);
    Arc::get_mut(&mut slow).unwrap().delay = Duration::from_millis(300);
    let mut settings = settings(Storage::Consume);
    settings.pass_deadline = Duration::from_millis(700);
    settings.one_at_a_time = true;
    let mut s = store(&schema, Storage::Consume, KeyOrder::BestEffort).await;
    let report = run_pass(
        &mut s,
        &target(),
        &Sink::Publisher(slow.clone()),
        &settings,
        PassOptions::default(),
    )
    .await;
    assert!(report.committed, "{report:?}");
    assert_eq!(
        (report.published, report.retried, report.untouched),
        (2, 1, 7),
        "{report:?}"
    );
    let err: String = sqlx::query_scalar(&format!("SELECT last_error FROM {t} WHERE attempts = 1"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert!(err.starts_with("publish timed out after 0."), "{err}");
    assert_eq!(
        count(
            &mut conn,
            &format!("SELECT count(*) FROM {t} WHERE attempts = 0 AND last_error IS NULL")
        )
        .await,
        7
    );
}

#[tokio::test]
async fn a_pass_inside_the_callers_transaction_is_a_savepoint() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--storage", "consume"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 4, None).await;
    let opts = PgStoreOptions {
        relation: RelationSpec::parse("relation", &t).unwrap(),
        delivery_log: None,
        storage: Storage::Consume,
        hlc_ordering: false,
        propagate_trace: false,
        tenant_aware: false,
        key_order: KeyOrder::BestEffort,
        pass_statement_timeout: Duration::from_millis(1),
        pass_deadline: Duration::from_secs(5),
        prepared_statements: false,
    };
    let mut caller = crate::common::pg().await;
    for commit in [false, true] {
        use sqlx::Connection;
        let mut tx = caller.begin().await.unwrap();
        let mut s = PgStore::in_transaction(&mut tx, opts.clone()).unwrap();
        let ok = Flaky::new(|_, _| None);
        let report = run_pass(
            &mut s,
            &target(),
            &Sink::Publisher(ok),
            &settings(Storage::Consume),
            PassOptions::default(),
        )
        .await;
        drop(s);
        assert_eq!(report.published, 4, "{report:?}");
        // no pass timeouts were set: the caller's transaction keeps its own (none)
        let st: String = sqlx::query_scalar("SELECT current_setting('statement_timeout')")
            .fetch_one(&mut *tx)
            .await
            .unwrap();
        assert_eq!(st, "0");
        if commit {
            tx.commit().await.unwrap();
        } else {
            tx.rollback().await.unwrap();
        }
        let left = count(&mut conn, &format!("SELECT count(*) FROM {t}")).await;
        assert_eq!(left, if commit { 0 } else { 4 }, "commit={commit}");
    }
    // a connection without a transaction opened through sqlx is refused
    assert!(PgStore::in_transaction(&mut caller, opts).is_err());
}

#[tokio::test]
async fn the_claim_reads_about_a_batch_of_index_entries_whatever_the_backlog() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--hlc-ordering"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 100_000, Some(1000)).await;
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET available_at = now() + interval '1 hour', attempts = 1 WHERE (payload->>'n')::int % 50 = 0;
         UPDATE {t} SET available_at = now() - interval '1 minute', attempts = 1 WHERE (payload->>'n')::int % 997 = 0;
         UPDATE {t} SET hlc = (payload->>'n')::bigint << 16 WHERE (payload->>'n')::int % 10 <> 0;
         ANALYZE {t};"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    for (hlc, storage) in [
        (false, Storage::Retain),
        (true, Storage::Retain),
        (false, Storage::Consume),
        (true, Storage::Consume),
    ] {
        let plan = explain_claim(&mut conn, &t, storage, hlc, KeyOrder::BestEffort).await;
        let mut scans = Vec::new();
        collect_scans(&plan[0]["Plan"], &mut scans);
        assert!(
            scans.iter().all(|(node, _, _)| node != "Seq Scan"),
            "hlc={hlc}: {scans:?}"
        );
        let fresh = scans
            .iter()
            .find(|(_, cond, _)| cond.contains("available_at IS NULL"))
            .expect("fresh range scan");
        assert!(
            fresh.2 <= 200.0,
            "hlc={hlc} {storage}: the never-retried range read {} rows for a batch of 100",
            fresh.2
        );
        let total: f64 = scans.iter().map(|s| s.2).sum();
        assert!(
            total < 1000.0,
            "hlc={hlc} {storage}: index scans read {total} rows in all with 100,000 pending: {scans:?}"
        );
    }
}

/// `EXPLAIN (ANALYZE, BUFFERS)` of the claim for a batch of 100 of route `orders`, in a
/// transaction rolled back after.
async fn explain_claim(
    conn: &mut PgConnection,
    t: &str,
    storage: Storage,
    hlc: bool,
    key_order: KeyOrder,
) -> Value {
    let opts = PgStoreOptions {
        relation: RelationSpec::parse("relation", t).unwrap(),
        delivery_log: None,
        storage,
        hlc_ordering: hlc,
        propagate_trace: false,
        tenant_aware: false,
        key_order,
        pass_statement_timeout: Duration::from_secs(1),
        pass_deadline: Duration::from_secs(5),
        prepared_statements: false,
    };
    let sql = outboxctl::store::postgres::claim_sql(
        &outboxctl::target::QualifiedName::parse("r", t).unwrap(),
        &opts,
    );
    sqlx::raw_sql("BEGIN").execute(&mut *conn).await.unwrap();
    let plan = sqlx::query_scalar(&format!(
        "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) {sql}"
    ))
    .bind("orders")
    .bind(100i64)
    .bind(chrono::Utc::now())
    .fetch_one(&mut *conn)
    .await
    .unwrap();
    sqlx::raw_sql("ROLLBACK").execute(&mut *conn).await.unwrap();
    plan
}

/// Heap fetches of every index-only scan of the plan.
fn heap_fetches(node: &Value) -> f64 {
    node["Heap Fetches"].as_f64().unwrap_or(0.0)
        + node["Plans"]
            .as_array()
            .into_iter()
            .flatten()
            .map(heap_fetches)
            .sum::<f64>()
}

/// The most times any node under a subplan ran (a correlated probe runs once per outer row).
fn max_subplan_loops(node: &Value) -> u64 {
    let here = if node["Parent Relationship"] == "SubPlan" {
        node["Actual Loops"].as_u64().unwrap_or(0)
    } else {
        0
    };
    node["Plans"]
        .as_array()
        .into_iter()
        .flatten()
        .map(max_subplan_loops)
        .fold(here, u64::max)
}

fn collect_scans(node: &Value, out: &mut Vec<(String, String, f64)>) {
    let kind = node["Node Type"].as_str().unwrap_or_default().to_owned();
    if kind.contains("Scan") && node.get("Relation Name").is_some() {
        let cond = node["Index Cond"].as_str().unwrap_or_default().to_owned();
        let rows = node["Actual Rows"].as_f64().unwrap_or(0.0)
            * node["Actual Loops"].as_f64().unwrap_or(1.0);
        out.push((kind, cond, rows));
    }
    if let Some(children) = node["Plans"].as_array() {
        for c in children {
            collect_scans(c, out);
        }
    }
}

#[tokio::test]
async fn tenant_aware_relays_only_the_configured_tenants_from_per_tenant_tables() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let (a, b, c) = (
        "0190c4e2-8a6c-7e4a-9b1e-00000000000a",
        "0190c4e2-8a6c-7e4a-9b1e-00000000000b",
        "0190c4e2-8a6c-7e4a-9b1e-00000000000c",
    );
    let cfg = crate::common::config_file(
        test,
        &format!(
            "outbox:\n  relation: {}.outbox_{{tenant}}\n  tenant_aware: true\n  tenants: [{a}, {b}]\n",
            schema.name
        ),
    );
    let url = pg_url();
    let r = ob(["migrate", "--database-url", &url, "--config", cfg.as_str()]).run();
    assert_eq!(r.code, OK, "{r:?}");
    for (tenant, n) in [(a, 3), (b, 2)] {
        let table = format!("{}.outbox_{}", schema.name, tenant.replace('-', ""));
        stage(&mut conn, &table, "orders", n, None).await;
        sqlx::raw_sql(&format!("UPDATE {table} SET tenant_id = '{tenant}'"))
            .execute(&mut conn)
            .await
            .unwrap();
        // a row of another tenant in this table is not this tenant's to relay
        stage(&mut conn, &table, "orders", 1, None).await;
        sqlx::raw_sql(&format!(
            "UPDATE {table} SET tenant_id = '{c}' WHERE tenant_id IS NULL"
        ))
        .execute(&mut conn)
        .await
        .unwrap();
    }
    let path = out_file(test);
    let r = ob([
        "relay",
        "--once",
        "--database-url",
        &url,
        "--config",
        cfg.as_str(),
        "--route",
        "orders",
        "--to",
        &format!("file:{}", path.display()),
        "--format",
        "json",
    ])
    .run();
    assert_eq!(r.code, OK, "{r:?}");
    let summary: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        summary.as_array().unwrap().len(),
        2,
        "one line per tenant: {summary}"
    );
    let got = lines(&path);
    assert_eq!(got.len(), 5);
    let tenants: std::collections::HashSet<&str> = got
        .iter()
        .map(|l| l["tenant_id"].as_str().unwrap())
        .collect();
    assert_eq!(tenants, [a, b].into_iter().collect());
    assert!(
        got.iter()
            .all(|l| l["headers"]["forze_tenant_id"] == l["tenant_id"])
    );
}

#[tokio::test]
async fn ctrl_c_of_a_one_shot_relay_exits_130() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    stage(&mut conn, &schema.rel("outbox"), "orders", 50_000, None).await;
    let path = out_file(test);
    let child = ob(["relay", "--once", "--route", "orders"])
        .pg(&schema.rel("outbox"))
        .args(["--to", &format!("file:{}", path.display())])
        .spawn_piped();
    crate::common::wait_until(Duration::from_secs(30), "some deliveries", || {
        std::fs::metadata(&path)
            .map(|m| m.len() > 0)
            .unwrap_or(false)
    })
    .await;
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A consume pass's opening (`BEGIN`, its timeouts and the claim, sent together) cancelled on
/// the server (`pg_cancel_backend` while the claim waits for a lock another session holds on the
/// table): the pass fails and rolls back, and the next pass on the same connection runs,
/// instead of meeting "current transaction is aborted" forever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pass_cancelled_while_it_opens_leaves_the_connection_usable() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 5, None).await;
    let mut opts = store_options(&schema, Storage::Consume, KeyOrder::BestEffort);
    // the claim waits for the lock until it is cancelled, not for lock_timeout
    opts.pass_statement_timeout = Duration::from_secs(60);
    let url = outboxctl::dburl::DatabaseUrl::parse(&pg_url()).unwrap();
    let s = PgStore::connect(&url, Duration::from_secs(5), opts)
        .await
        .unwrap();
    let pid = s.backend_pid().expect("a direct connection");
    let ok = Flaky::new(|_, _| None);
    let sink = Sink::Publisher(ok.clone());
    // another session holds the table: the pass's claim waits for it
    let mut locker = crate::common::pg().await;
    sqlx::raw_sql(&format!("BEGIN; LOCK TABLE {t} IN ACCESS EXCLUSIVE MODE"))
        .execute(&mut locker)
        .await
        .unwrap();
    let first = tokio::spawn({
        let sink = sink.clone();
        async move {
            let mut s = s;
            let report = run_pass(
                &mut s,
                &target(),
                &sink,
                &settings(Storage::Consume),
                PassOptions::default(),
            )
            .await;
            (s, report)
        }
    });
    crate::common::eventually(
        Duration::from_secs(30),
        "the pass's claim waiting on the table",
        async || {
            let waiting: Option<i32> = sqlx::query_scalar(
                "SELECT pid FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'",
            )
            .bind(pid)
            .fetch_optional(&mut conn)
            .await
            .unwrap();
            waiting.ok_or_else(|| "not yet".to_owned())
        },
    )
    .await;
    let cancelled: bool = sqlx::query_scalar("SELECT pg_cancel_backend($1)")
        .bind(pid)
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert!(cancelled);
    let (mut s, report) = first.await.unwrap();
    assert!(!report.committed, "{report:?}");
    let error = report.error.unwrap_or_default();
    assert!(
        error.contains("claiming") && error.contains("cancel"),
        "{error}"
    );
    sqlx::raw_sql("COMMIT").execute(&mut locker).await.unwrap();
    // the same connection runs the next pass
    let report = run_pass(
        &mut s,
        &target(),
        &sink,
        &settings(Storage::Consume),
        PassOptions::default(),
    )
    .await;
    assert!(report.committed, "{report:?}");
    assert_eq!(report.published, 5);
    assert_eq!(s.backend_pid(), Some(pid), "the same connection");
    assert_eq!(
        count(&mut conn, &format!("SELECT count(*) FROM {t}")).await,
        0
    );
}

/// Rows staged in one transaction share one `created_at` (PostgreSQL's `now()`): with 50,000
/// of them at the head of the queue, the claim still reads about a batch of index entries
/// (ties go in index order) instead of reading and sorting the whole tie group.
#[tokio::test]
async fn the_claim_reads_about_a_batch_of_a_tie_group_of_one_created_at() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 50_000, Some(100)).await;
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET created_at = '2026-12-01 10:00:00+00';
         UPDATE {t} SET available_at = now() - interval '1 minute', attempts = 1 WHERE (payload->>'n')::int % 997 = 0;"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    sqlx::raw_sql(&format!("VACUUM ANALYZE {t}"))
        .execute(&mut conn)
        .await
        .unwrap();
    for storage in [Storage::Retain, Storage::Consume] {
        let plan = explain_claim(&mut conn, &t, storage, false, KeyOrder::BestEffort).await;
        let mut scans = Vec::new();
        collect_scans(&plan[0]["Plan"], &mut scans);
        let fresh = scans
            .iter()
            .find(|(_, cond, _)| cond.contains("available_at IS NULL"))
            .expect("fresh range scan");
        assert!(
            fresh.2 <= 200.0,
            "{storage}: the never-retried range read {} of a 50,000-row tie group for a batch of 100",
            fresh.2
        );
        let text = plan.to_string();
        assert!(
            !text.contains("\"Disk\""),
            "{storage}: no sort spilled to disk: {text}"
        );
    }
}

/// A consume pass holds the row locks of its claim to its end: it locks exactly the rows it
/// claims (not a second batch it will not publish), and a second relay's claim steps over
/// them and still fills up.
#[tokio::test]
async fn a_consume_claim_locks_only_what_it_returns_and_a_contended_claim_fills_up() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 300, Some(30)).await;
    // every other row is a ripe retry: both ranges of the claim have more than a batch
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET available_at = now() - interval '1 minute', attempts = 1 WHERE (payload->>'n')::int % 2 = 0"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let unlocked = format!("SELECT count(*) FROM (SELECT id FROM {t} FOR UPDATE SKIP LOCKED) x");
    let mut first = store(&schema, Storage::Consume, KeyOrder::BestEffort).await;
    first.begin_pass(&target()).await.unwrap();
    let claimed = first
        .claim(&target(), 100, chrono::Utc::now())
        .await
        .unwrap();
    assert_eq!(claimed.rows.len(), 100);
    sqlx::raw_sql("BEGIN").execute(&mut conn).await.unwrap();
    let free = count(&mut conn, &unlocked).await;
    sqlx::raw_sql("ROLLBACK").execute(&mut conn).await.unwrap();
    assert_eq!(free, 200, "the pass locks the 100 rows it claimed, no more");
    let mut second = store(&schema, Storage::Consume, KeyOrder::BestEffort).await;
    second.begin_pass(&target()).await.unwrap();
    let other = second
        .claim(&target(), 100, chrono::Utc::now())
        .await
        .unwrap();
    assert_eq!(other.rows.len(), 100, "a contended claim is not short");
    let mine: std::collections::HashSet<_> = claimed.rows.iter().map(|r| r.id).collect();
    assert!(other.rows.iter().all(|r| !mine.contains(&r.id)));
    second.rollback_pass().await;
    first.rollback_pass().await;
}

/// A destination whose first flush fails (its fsync, a broker batch ack): what it had taken
/// in that chunk failed.
struct FlushFailsOnce {
    flushes: AtomicUsize,
}

impl Publisher for FlushFailsOnce {
    fn publish(&self, _message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        Box::pin(async { Ok(()) })
    }

    fn flush(&self) -> BoxFuture<'static, Result<(), PublishError>> {
        let first = self.flushes.fetch_add(1, Ordering::SeqCst) == 0;
        Box::pin(async move {
            if first {
                Err(PublishError::transient("fsync failed"))
            } else {
                Ok(())
            }
        })
    }
}

/// Strict order: a chunk whose flush fails blocks its keys for the rest of the pass, so a
/// later chunk of the same key is not delivered while the earlier rows wait for their retry.
#[tokio::test]
async fn strict_key_order_holds_back_a_key_behind_a_failed_flush() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--key-order", "strict"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 40, Some(1)).await; // one key, two chunks (32 + 8)
    let mut s = store(&schema, Storage::Retain, KeyOrder::Strict).await;
    let sink = Sink::Publisher(Arc::new(FlushFailsOnce {
        flushes: AtomicUsize::new(0),
    }));
    let report = run_pass(
        &mut s,
        &target(),
        &sink,
        &strict_settings(Storage::Retain),
        PassOptions::default(),
    )
    .await;
    assert!(report.committed, "{report:?}");
    assert_eq!(
        (report.published, report.retried, report.untouched),
        (0, 32, 8),
        "the second chunk waits behind the failed first: {report:?}"
    );
    let published = count(
        &mut conn,
        &format!("SELECT count(*) FROM {t} WHERE status = 'published'"),
    )
    .await;
    assert_eq!(published, 0);
}

/// One strict claim in a pass that is then rolled back, and claimed rows made pending again
/// (retain), so the next storage mode starts from the same table.
async fn claim_and_undo(
    s: &mut PgStore<'static>,
    conn: &mut PgConnection,
    t: &str,
) -> Vec<outboxctl::model::OutboxRow> {
    s.begin_pass(&target()).await.unwrap();
    let claimed = s.claim(&target(), 100, chrono::Utc::now()).await.unwrap();
    s.rollback_pass().await;
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET status = 'pending', processing_at = NULL WHERE status = 'processing'"
    ))
    .execute(conn)
    .await
    .unwrap();
    claimed.rows
}

/// Strict order's keys are what the rest of the relay calls keys: an empty ordering key is no
/// key (the event's own id), and a key belongs to its tenant, so tenant A's parked `order-42`
/// does not hold back tenant B's in a shared table.
#[tokio::test]
async fn strict_key_order_treats_an_empty_key_as_none_and_scopes_keys_by_tenant() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--key-order", "strict"]).await;
    let t = schema.rel("outbox");
    let (a, b) = (
        "0190c4e2-8a6c-7e4a-9b1e-00000000000a",
        "0190c4e2-8a6c-7e4a-9b1e-00000000000b",
    );
    sqlx::raw_sql(&format!(
        "INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, ordering_key, tenant_id) VALUES
         (gen_random_uuid(), 'orders', gen_random_uuid(), 'x', now(), '{{\"n\":1}}', 'failed',  now() - interval '4 s', '',         NULL),
         (gen_random_uuid(), 'orders', gen_random_uuid(), 'x', now(), '{{\"n\":2}}', 'pending', now() - interval '3 s', '',         NULL),
         (gen_random_uuid(), 'orders', gen_random_uuid(), 'x', now(), '{{\"n\":3}}', 'failed',  now() - interval '2 s', 'order-42', '{a}'),
         (gen_random_uuid(), 'orders', gen_random_uuid(), 'x', now(), '{{\"n\":4}}', 'pending', now() - interval '1 s', 'order-42', '{b}')"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    for storage in [Storage::Retain, Storage::Consume] {
        let mut s = store(&schema, storage, KeyOrder::Strict).await;
        let rows = claim_and_undo(&mut s, &mut conn, &t).await;
        let mut ns: Vec<String> = rows.iter().map(|r| r.payload.clone()).collect();
        ns.sort();
        assert_eq!(ns, ["{\"n\": 2}", "{\"n\": 4}"], "{storage}");
    }
}

/// With HLC ordering, "earlier" is the claim order (`hlc NULLS LAST, created_at, id`), not
/// `created_at`: a reaction stamped on a replica whose clock is behind (higher hlc, lower
/// `created_at`) waits behind its parked cause.
#[tokio::test]
async fn strict_key_order_with_hlc_decides_earlier_by_the_claim_order() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--key-order", "strict", "--hlc-ordering"]).await;
    let t = schema.rel("outbox");
    sqlx::raw_sql(&format!(
        "INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, ordering_key, hlc) VALUES
         (gen_random_uuid(), 'orders', gen_random_uuid(), 'cause',    now(), '{{\"n\":1}}', 'failed',  now(),                   'k', 100),
         (gen_random_uuid(), 'orders', gen_random_uuid(), 'reaction', now(), '{{\"n\":2}}', 'pending', now() - interval '1 h', 'k', 200),
         (gen_random_uuid(), 'orders', gen_random_uuid(), 'other',    now(), '{{\"n\":3}}', 'pending', now() - interval '1 h', 'j', 300)"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let mut opts = outboxctl::store::postgres::PgStoreOptions {
        relation: outboxctl::target::RelationSpec::parse("relation", &t).unwrap(),
        delivery_log: None,
        storage: Storage::Retain,
        hlc_ordering: true,
        propagate_trace: false,
        tenant_aware: false,
        key_order: KeyOrder::Strict,
        pass_statement_timeout: Duration::from_secs(1),
        pass_deadline: Duration::from_secs(5),
        prepared_statements: false,
    };
    for storage in [Storage::Retain, Storage::Consume] {
        opts.storage = storage;
        let db = outboxctl::dburl::DatabaseUrl::parse(&pg_url()).unwrap();
        let mut s = PgStore::connect(&db, Duration::from_secs(5), opts.clone())
            .await
            .unwrap();
        let rows = claim_and_undo(&mut s, &mut conn, &t).await;
        let types: Vec<&str> = rows.iter().map(|r| r.event_type.as_str()).collect();
        assert_eq!(
            types,
            ["other"],
            "{storage}: the reaction waits behind its cause"
        );
    }
}

/// Strict order's claim with a stuck key's backlog: 100,001 rows of key K behind its parked
/// head, then 10,000 due rows of 100 other keys. The claim steps over K's rows without a probe
/// per row and from the strict claim index alone (an index-only scan: no heap fetch per
/// stepped-over row), reads no table whole, and stays within a few thousand buffers (its time
/// is printed, not asserted: speed belongs to the benchmark).
#[tokio::test]
async fn strict_claim_steps_over_a_stuck_keys_backlog_cheaply() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--key-order", "strict", "--storage", "consume"]).await;
    let t = schema.rel("outbox");
    sqlx::raw_sql(&format!(
        "INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, ordering_key)
         SELECT gen_random_uuid(), 'orders', gen_random_uuid(), 'x', now(), jsonb_build_object('n', g),
                CASE WHEN g = 0 THEN 'failed' ELSE 'pending' END,
                '2026-12-01 00:00:00+00'::timestamptz + g * interval '1 ms', 'K'
           FROM generate_series(0, 100000) g;
         INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, ordering_key)
         SELECT gen_random_uuid(), 'orders', gen_random_uuid(), 'x', now(), jsonb_build_object('n', g),
                'pending', '2026-12-02 00:00:00+00'::timestamptz + g * interval '1 ms', 'o' || (g % 100)
           FROM generate_series(1, 10000) g;"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    // As autovacuum leaves a stuck key's old rows: all-visible. VACUUM cannot mark a page so
    // while another test's transaction is older than the rows, so it goes again until it can.
    let pages =
        format!("SELECT relpages - relallvisible FROM pg_class WHERE oid = '{t}'::regclass");
    crate::common::eventually(
        Duration::from_secs(60),
        "VACUUM to mark every page all-visible",
        async || {
            sqlx::raw_sql(&format!("VACUUM ANALYZE {t}"))
                .execute(&mut conn)
                .await
                .unwrap();
            match sqlx::query_scalar::<_, i32>(&pages)
                .fetch_one(&mut conn)
                .await
                .unwrap()
            {
                0 => Ok(()),
                left => Err(format!("{left} pages not all-visible")),
            }
        },
    )
    .await;
    let plan = explain_claim(&mut conn, &t, Storage::Consume, false, KeyOrder::Strict).await;
    let mut scans = Vec::new();
    collect_scans(&plan[0]["Plan"], &mut scans);
    let top = &plan[0]["Plan"];
    let buffers = top["Shared Hit Blocks"].as_f64().unwrap_or(0.0)
        + top["Shared Read Blocks"].as_f64().unwrap_or(0.0);
    println!(
        "strict claim over a 100,001-row stuck key: {} ms, {buffers} buffers, scans {scans:?}",
        plan[0]["Execution Time"]
    );
    assert!(
        scans.iter().all(|(node, _, _)| node != "Seq Scan"),
        "{scans:?}"
    );
    let stepped = scans
        .iter()
        .find(|(_, _, rows)| *rows > 100_000.0)
        .expect("one scan steps over the backlog");
    assert_eq!(
        stepped.0, "Index Only Scan",
        "the backlog is stepped over from the index: {scans:?}"
    );
    let fetches = heap_fetches(top);
    assert!(
        fetches < 1_000.0,
        "{fetches} heap fetches: the stuck key's rows were read from the table"
    );
    let loops = max_subplan_loops(top);
    assert!(
        loops <= 200,
        "a subquery ran {loops} times: a probe per scanned row instead of one anti-join"
    );
    assert!(buffers < 20_000.0, "the claim touched {buffers} buffers");
    let jit = plan[0]["JIT"]["Timing"]["Total"].as_f64().unwrap_or(0.0);
    println!("of which JIT compilation: {jit} ms");
    assert_eq!(
        top["Actual Rows"].as_f64(),
        Some(100.0),
        "a full batch of the other keys"
    );
}

/// Publishes key `J`'s message with no answer (a timeout) at once, and key `K`'s after a pause:
/// `K`'s rows in the chunk are not reached once the timeout stops the chunk.
struct TimeoutOnJ {
    published: std::sync::Mutex<Vec<String>>,
}

impl Publisher for TimeoutOnJ {
    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        if message.key == "J" {
            return Box::pin(async { Err(PublishError::timed_out("publish timed out")) });
        }
        self.published
            .lock()
            .unwrap()
            .push(message.payload.get().to_owned());
        Box::pin(async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            Ok(())
        })
    }
}

/// Strict order: rows a timeout left unreached hold their key back for the rest of the pass,
/// so the next chunk does not deliver the key's later rows before them.
#[tokio::test]
async fn strict_key_order_holds_back_rows_a_timeout_left_unreached() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--key-order", "strict"]).await;
    let t = schema.rel("outbox");
    sqlx::raw_sql(&format!(
        "INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, ordering_key)
         SELECT gen_random_uuid(), 'orders', gen_random_uuid(), 'x', now(), jsonb_build_object('n', g), 'pending',
                '2026-12-01 00:00:00+00'::timestamptz + g * interval '1 ms', CASE WHEN g = 0 THEN 'J' ELSE 'K' END
           FROM generate_series(0, 39) g"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let publisher = Arc::new(TimeoutOnJ {
        published: Default::default(),
    });
    let mut s = store(&schema, Storage::Retain, KeyOrder::Strict).await;
    let report = run_pass(
        &mut s,
        &target(),
        &Sink::Publisher(publisher.clone()),
        &strict_settings(Storage::Retain),
        PassOptions::default(),
    )
    .await;
    assert!(report.committed, "{report:?}");
    let published = publisher.published.lock().unwrap().clone();
    assert!(
        published.is_empty(),
        "K's rows wait behind the ones the timeout left unreached: {published:?} {report:?}"
    );
    assert_eq!((report.retried, report.untouched), (1, 39), "{report:?}");
}

#[tokio::test]
async fn the_summary_gives_the_delivery_lag_from_created_at() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 10, None).await;
    // staged three seconds ago (the writer's clock, as stored)
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET created_at = now() - interval '3 seconds'"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = relay_once(&schema, "file:/dev/null", &["--format", "json"]);
    assert_eq!(r.code, OK, "{r:?}");
    let s = &r.json()[0];
    let (p50, p99) = (
        s["lag_p50_ms"].as_f64().unwrap(),
        s["lag_p99_ms"].as_f64().unwrap(),
    );
    assert!((3_000.0..120_000.0).contains(&p50), "{s}");
    assert!(p99 >= p50, "{s}");
    stage(&mut conn, &t, "orders", 2, None).await;
    let r = relay_once(&schema, "file:/dev/null", &[]);
    assert!(
        r.stdout.contains("lag p50 ms") && r.stdout.contains("lag p99 ms"),
        "{r:?}"
    );
}
