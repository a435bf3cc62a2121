//! `outboxctl relay` on a real PostgreSQL, end to end: what reaches a file destination, what the rows become, in both storages.

use super::*;

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

/// `--to` points a configured route elsewhere: the options of the destination it had (a NATS
/// subject, a timeout) do not follow it to one that takes none, and its errors name `--to`.
#[tokio::test]
async fn to_points_a_configured_route_elsewhere_without_its_options() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    stage(&mut conn, &schema.rel("outbox"), "orders", 2, None).await;
    let route = r#"{ to: "nats://127.0.0.1:1", channel: orders.events, timeout: 2s }"#;
    let cfg =
        crate::common::config_file(test, &format!("relay:\n  routes:\n    orders: {route}\n"));
    let r = relay_once(&schema, "stdout", &["--config", &cfg]);
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(r.stdout.lines().count(), 2, "both rows on stdout: {r:?}");
    // a destination --to gave that cannot be opened is named by the flag, not by the route's key
    let r = relay_once(&schema, "file:/nonexistent/x.jsonl", &["--config", &cfg]);
    assert_ne!(r.code, OK, "{r:?}");
    assert!(
        r.stderr.contains("--to: cannot open /nonexistent/x.jsonl"),
        "{r:?}"
    );
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
