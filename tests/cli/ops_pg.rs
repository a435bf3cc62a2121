//! inspect, requeue, discard, emit, hlc show, storage and doctor on a real PostgreSQL.

use serde_json::Value;
use sqlx::postgres::PgConnection;

use crate::common::{
    CHECK_FAILED, ERROR, LOCK_BUSY, OK, PgSchema, REFUSED, RELAY_TO_NOWHERE, count, group_counts,
    lines, migrate, ob, out_file, pg_url, stage,
};

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

#[tokio::test]
async fn inspect_summary_counts_exactly_and_its_json_is_stable() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    seed(&mut conn, &schema.rel("outbox")).await;
    let r = cmd(&schema, &["--format", "json"], &["inspect"]);
    assert_eq!(r.code, OK, "{r:?}");
    let mut v = json(&r);
    for s in v.as_array_mut().unwrap() {
        for k in ["oldest_pending", "next_retry"] {
            if !s[k].is_null() {
                s[k] = Value::String("[timestamp]".into());
            }
        }
    }
    insta::assert_snapshot!(
        "inspect_summary_json",
        serde_json::to_string_pretty(&v).unwrap()
    );
    let r = cmd(&schema, &["--route", "b"], &["inspect", "summary"]);
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        r.stdout.contains(" b ") && !r.stdout.contains(" a "),
        "{r:?}"
    );
}

#[tokio::test]
async fn inspect_lists_with_filters_and_keyset_pages() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    seed(&mut conn, &schema.rel("outbox")).await;
    let ids = |r: &crate::common::Run| -> Vec<String> {
        r.jsonl()
            .iter()
            .map(|row| row["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let r = cmd(&schema, &["--format", "jsonl"], &["inspect", "pending"]);
    assert_eq!(ids(&r).len(), 6, "3 ripe + 2 scheduled on a, 1 on b: {r:?}");
    let r = cmd(
        &schema,
        &["--format", "jsonl", "--route", "a", "--limit", "2"],
        &["inspect", "pending"],
    );
    let page1 = ids(&r);
    assert_eq!(page1.len(), 2);
    let r = cmd(
        &schema,
        &[
            "--format", "jsonl", "--route", "a", "--limit", "10", "--after", &page1[1],
        ],
        &["inspect", "pending"],
    );
    let page2 = ids(&r);
    assert_eq!(page2.len(), 3);
    assert!(!page2.contains(&page1[0]) && !page2.contains(&page1[1]));
    let r = cmd(
        &schema,
        &["--format", "json"],
        &["inspect", "failed", "--type", "order.cancelled"],
    );
    let v = json(&r);
    assert_eq!(v.as_array().unwrap().len(), 1);
    assert_eq!(v[0]["last_error"], "HTTP 500");
    let r = cmd(
        &schema,
        &["--format", "json"],
        &["inspect", "failed", "--error-contains", "queue missing"],
    );
    assert_eq!(json(&r).as_array().unwrap().len(), 1);
    let r = cmd(
        &schema,
        &["--format", "json"],
        &["inspect", "failed", "--older-than", "1h"],
    );
    assert_eq!(
        json(&r).as_array().unwrap().len(),
        0,
        "all rows are younger than an hour"
    );
}

#[tokio::test]
async fn inspect_event_answers_did_it_go_out() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let log = schema.rel("outbox_delivered");
    migrate(&schema, &["--storage", "consume", "--delivery-log", &log]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 2, None).await;
    let events: Vec<uuid::Uuid> =
        sqlx::query_scalar(&format!("SELECT event_id FROM {t} ORDER BY created_at"))
            .fetch_all(&mut conn)
            .await
            .unwrap();
    let extra = ["--storage", "consume", "--delivery-log", log.as_str()];
    let r = cmd(
        &schema,
        &extra,
        &["inspect", "event", &events[0].to_string()],
    );
    assert!(
        r.stdout.contains("outbox row") && r.stdout.contains("pending"),
        "{r:?}"
    );
    let r = cmd(&schema, &extra, &RELAY_TO_NOWHERE);
    assert_eq!(r.code, OK, "{r:?}");
    let r = cmd(
        &schema,
        &[&extra[..], &["--format", "json"]].concat(),
        &["inspect", "event", &events[0].to_string()],
    );
    let v = json(&r);
    assert_eq!(v["rows"].as_array().unwrap().len(), 0);
    assert_eq!(v["deliveries"].as_array().unwrap().len(), 1);
    let r = cmd(
        &schema,
        &extra,
        &["inspect", "event", &uuid::Uuid::now_v7().to_string()],
    );
    assert!(r.stdout.contains("does not prove"), "{r:?}");
}

/// The operator's store on the table, and the five routes the million-row tables use.
async fn five_route_ops<'c>(
    conn: &'c mut PgConnection,
    t: &str,
) -> (outboxctl::store::postgres::ops::PgOps<'c>, Vec<String>) {
    let table = outboxctl::target::QualifiedName::parse("t", t).unwrap();
    let ops = outboxctl::store::postgres::ops::PgOps::open(conn, table)
        .await
        .unwrap();
    (ops, (0..5).map(|i| format!("route{i}")).collect())
}

#[tokio::test]
async fn inspect_queries_read_indexes_on_a_million_rows() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    // a year of history: mostly published, a few routes, some pending, retries and failures
    sqlx::raw_sql(&format!(
        "INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, published_at, attempts, available_at, last_error)
         SELECT gen_random_uuid(), 'route' || (g % 5), gen_random_uuid(), 'e', now(), '{{}}',
                CASE WHEN g % 1000 = 0 THEN 'failed' WHEN g % 100 = 1 THEN 'pending' ELSE 'published' END,
                now() - (g || ' seconds')::interval, now(), (g % 3),
                CASE WHEN g % 300 = 1 THEN now() + interval '1 hour' END, CASE WHEN g % 1000 = 0 THEN 'x' END
           FROM generate_series(1, 1000000) g;
         ANALYZE {t};"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let (ops, routes) = five_route_ops(&mut conn, &t).await;
    let queries = [
        (ops.routes_sql(), vec![]),
        (ops.summary_sql(), vec!["route1"]),
        (ops.list_sql(), vec!["list"]),
    ];
    let sqls: Vec<(String, Vec<&str>)> = queries.into_iter().collect();
    let conn = ops.conn;
    for (sql, kind) in sqls {
        let explain = format!("EXPLAIN (FORMAT JSON) {sql}");
        let mut q = sqlx::query_scalar::<_, Value>(&explain);
        match kind.first().copied() {
            Some("route1") => {
                q = q
                    .bind("route1")
                    .bind(None::<uuid::Uuid>)
                    .bind(chrono::Utc::now())
                    .bind(chrono::Utc::now() - chrono::Duration::minutes(5));
            }
            Some("list") => {
                q = q
                    .bind(&routes)
                    .bind("failed")
                    .bind(None::<uuid::Uuid>)
                    .bind(None::<String>)
                    .bind(None::<chrono::DateTime<chrono::Utc>>)
                    .bind(None::<String>)
                    .bind(None::<uuid::Uuid>)
                    .bind(50i64);
            }
            _ => {}
        }
        let plan = q.fetch_one(&mut *conn).await.unwrap();
        let text = plan.to_string();
        assert!(
            !text.contains("\"Seq Scan\""),
            "a sequential scan in:\n{sql}\n{}",
            serde_json::to_string_pretty(&plan).unwrap()
        );
    }
}

#[tokio::test]
async fn requeue_and_discard_change_exactly_the_selected_rows() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    seed(&mut conn, &t).await;
    let failed: Vec<uuid::Uuid> = sqlx::query_scalar(&format!(
        "SELECT id FROM {t} WHERE status = 'failed' ORDER BY created_at"
    ))
    .fetch_all(&mut conn)
    .await
    .unwrap();
    let r = cmd(&schema, &[], &["requeue", "--route", "a"]);
    assert_eq!(r.code, ERROR, "a filter without --all is refused: {r:?}");
    let r = cmd(&schema, &[], &["requeue", "--all", "--route", "a"]);
    assert_eq!(r.code, REFUSED, "no terminal and no --yes: {r:?}");
    let r = cmd(
        &schema,
        &["--format", "json"],
        &["requeue", "--all", "--error-contains", "queue", "--dry-run"],
    );
    assert_eq!(json(&r)["count"], 1);
    let still = count(
        &mut conn,
        &format!("SELECT count(*) FROM {t} WHERE status = 'failed'"),
    )
    .await;
    assert_eq!(still, 2, "dry run changed nothing");
    let before: Vec<(uuid::Uuid, String, i32)> = sqlx::query_as(&format!(
        "SELECT id, status, attempts FROM {t} WHERE status <> 'failed' ORDER BY id"
    ))
    .fetch_all(&mut conn)
    .await
    .unwrap();
    let r = cmd(
        &schema,
        &["--yes", "--format", "json"],
        &["requeue", "--id", &failed[0].to_string()],
    );
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(json(&r)["ids"], serde_json::json!([failed[0].to_string()]));
    let row: (
        String,
        i32,
        Option<String>,
        Option<chrono::DateTime<chrono::Utc>>,
    ) = sqlx::query_as(&format!(
        "SELECT status, attempts, last_error, available_at FROM {t} WHERE id = $1"
    ))
    .bind(failed[0])
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(row, ("pending".into(), 0, None, None));
    let after: Vec<(uuid::Uuid, String, i32)> = sqlx::query_as(&format!(
        "SELECT id, status, attempts FROM {t} WHERE status <> 'failed' AND id <> $1 ORDER BY id"
    ))
    .bind(failed[0])
    .fetch_all(&mut conn)
    .await
    .unwrap();
    assert_eq!(before, after, "no other row changed");
    // a non-failed id is reported, not touched
    let r = cmd(
        &schema,
        &["--yes"],
        &["requeue", "--id", &failed[0].to_string()],
    );
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(r.stdout.contains("not a failed row"), "{r:?}");
    let r = cmd(
        &schema,
        &["--yes"],
        &["discard", "--all", "--type", "order.cancelled"],
    );
    assert_eq!(r.code, OK, "{r:?}");
    let left: i64 = sqlx::query_scalar(&format!("SELECT count(*) FROM {t} WHERE id = $1"))
        .bind(failed[1])
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(left, 0);
}

#[tokio::test]
async fn requeue_under_consume_without_the_retain_columns() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--storage", "consume"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "a", 3, None).await;
    sqlx::raw_sql(&format!(
        "ALTER TABLE {t} DROP COLUMN processing_at, DROP COLUMN published_at; UPDATE {t} SET status = 'failed', attempts = 4, last_error = 'x'"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = cmd(
        &schema,
        &["--storage", "consume", "--yes"],
        &["requeue", "--all"],
    );
    assert_eq!(r.code, OK, "{r:?}");
    let pending: i64 = sqlx::query_scalar(&format!(
        "SELECT count(*) FROM {t} WHERE status = 'pending' AND attempts = 0"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(pending, 3);
}

#[tokio::test]
async fn emit_then_relay_delivers_headers_and_hlc_and_deduplicates() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let cp = schema.rel("hlc_checkpoint");
    let extra = [
        "--hlc-ordering",
        "--propagate-trace",
        "--hlc-checkpoint",
        cp.as_str(),
    ];
    migrate(&schema, &extra).await;
    let event = uuid::Uuid::now_v7().to_string();
    let payload = r#"{"order_id": 42, "total": 12345678901234567890.123456789}"#;
    let args = [
        "emit",
        "--route",
        "orders",
        "--type",
        "order.placed",
        "--payload",
        payload,
        "--ordering-key",
        "order-42",
        "--correlation-id",
        "0190c4e2-8a6c-7e4a-9b1e-000000000001",
        "--event-id",
        &event,
        "--traceparent",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    ];
    let r = cmd(
        &schema,
        &[&extra[..], &["--format", "json"]].concat(),
        &args,
    );
    assert_eq!(r.code, OK, "{r:?}");
    let v = json(&r);
    assert_eq!(
        (v["staged"].as_u64(), v["deduplicated"].as_u64()),
        (Some(1), Some(0))
    );
    let stamped = v["events"][0]["hlc"].as_str().unwrap().to_owned();
    let r = cmd(
        &schema,
        &[&extra[..], &["--format", "json"]].concat(),
        &args,
    );
    assert_eq!(
        json(&r)["deduplicated"],
        1,
        "same event id, same route: {r:?}"
    );
    let mark: i64 = sqlx::query_scalar(&format!("SELECT hlc FROM {cp} WHERE node_key = 'default'"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    let row_hlc: i64 = sqlx::query_scalar(&format!("SELECT hlc FROM {} ", schema.rel("outbox")))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert!(mark >= row_hlc, "the mark covers every committed stamp");
    let r = cmd(
        &schema,
        &[&extra[..], &["--format", "json"]].concat(),
        &[
            "emit",
            "--route",
            "orders",
            "--type",
            "bulk",
            "--payload",
            "{}",
            "--count",
            "1500",
        ],
    );
    assert_eq!(json(&r)["staged"], 1500, "{r:?}");

    let path = out_file(test);
    let r = cmd(
        &schema,
        &extra,
        &[
            "relay",
            "--once",
            "--route",
            "orders",
            "--to",
            &format!("file:{}", path.display()),
        ],
    );
    assert_eq!(r.code, OK, "{r:?}");
    let got = lines(&path);
    assert_eq!(got.len(), 1501);
    let first = &got[0];
    assert_eq!(first["event_id"], event.as_str());
    assert_eq!(first["key"], "order-42");
    assert_eq!(first["headers"]["forze_hlc"], stamped.as_str());
    assert_eq!(
        first["headers"]["forze_correlation_id"],
        "0190c4e2-8a6c-7e4a-9b1e-000000000001"
    );
    assert_eq!(
        first["headers"]["traceparent"],
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    );
    let raw = std::fs::read_to_string(&path).unwrap();
    assert!(
        raw.contains(r#""total":12345678901234567890.123456789"#),
        "payload precision kept"
    );
    // HLC order: the stamps in relay order never go down
    let stamps: Vec<&str> = got
        .iter()
        .map(|l| l["headers"]["forze_hlc"].as_str().unwrap())
        .collect();
    assert!(
        stamps.windows(2).all(|w| w[0] < w[1]),
        "stamps strictly increase in claim order"
    );

    let r = cmd(
        &schema,
        &[&extra[..], &["--format", "json"]].concat(),
        &["hlc", "show"],
    );
    let v = json(&r);
    assert_eq!(v["rows"][0]["node_key"], "default");
    assert_eq!(v["too_far_ahead"], false);
}

#[tokio::test]
async fn emit_refuses_bad_payloads_and_changes_nothing() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    for bad in ["{not json", "[1, 2]", "@/no/such/file"] {
        let r = cmd(
            &schema,
            &[],
            &["emit", "--route", "r", "--type", "t", "--payload", bad],
        );
        assert_eq!(r.code, ERROR, "{bad}: {r:?}");
        assert_eq!(r.stderr.lines().count(), 1, "{r:?}");
    }
    // the payload from standard input: refused the same way
    let r = ob(["emit", "--route", "r", "--type", "t", "--payload", "-"])
        .pg(&schema.rel("outbox"))
        .stdin("[1, 2]")
        .code(ERROR);
    assert!(r.stderr.contains("must be a JSON object"), "{r:?}");
    let n = count(
        &mut conn,
        &format!("SELECT count(*) FROM {}", schema.rel("outbox")),
    )
    .await;
    assert_eq!(n, 0);
}

#[tokio::test]
async fn the_checkpoint_moves_with_the_rows_and_not_on_rollback() {
    use outboxctl::store::ops::NewEvent;
    use outboxctl::store::postgres::ops::{PgOps, advance_checkpoint};
    use sqlx::Connection;
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let cp = schema.rel("hlc_checkpoint");
    migrate(&schema, &["--hlc-ordering", "--hlc-checkpoint", &cp]).await;
    let table = outboxctl::target::QualifiedName::parse("t", &schema.rel("outbox")).unwrap();
    let cpq = outboxctl::target::QualifiedName::parse("c", &cp).unwrap();
    let event = || NewEvent {
        id: uuid::Uuid::now_v7(),
        event_id: uuid::Uuid::now_v7(),
        route: "r".into(),
        event_type: "t".into(),
        payload: "{}".into(),
        ordering_key: None,
        tenant_id: None,
        correlation_id: None,
        causation_id: None,
        execution_id: None,
        traceparent: None,
        occurred_at: chrono::Utc::now(),
    };
    // rolled back: neither rows nor mark
    let mut tx = conn.begin().await.unwrap();
    PgOps::stage_in_transaction(&mut tx, &table, Some(&cpq), true, false, &[event()], "n1")
        .await
        .unwrap();
    tx.rollback().await.unwrap();
    let marks = count(&mut conn, &format!("SELECT count(*) FROM {cp}")).await;
    assert_eq!(marks, 0);
    // committed: both
    let mut tx = conn.begin().await.unwrap();
    let staged = PgOps::stage_in_transaction(
        &mut tx,
        &table,
        Some(&cpq),
        true,
        false,
        &[event(), event()],
        "n1",
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    let mark: i64 = sqlx::query_scalar(&format!("SELECT hlc FROM {cp} WHERE node_key = 'n1'"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    let max_row: i64 = sqlx::query_scalar(&format!("SELECT max(hlc) FROM {table}"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(mark, max_row);
    assert_eq!(
        outboxctl::hlc::HlcTimestamp::unpack(mark).unwrap().encode(),
        staged[1].hlc.clone().unwrap()
    );

    // two writers on one node key, the lower one committing last: the higher mark stays
    let high = outboxctl::hlc::HlcTimestamp::new(4_000_000_000_000, 7);
    let low = outboxctl::hlc::HlcTimestamp::new(3_000_000_000_000, 0);
    let mut a = crate::common::pg().await;
    let mut b = crate::common::pg().await;
    let b_pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(&mut b)
        .await
        .unwrap();
    let mut watcher = crate::common::pg().await;
    let mut ta = a.begin().await.unwrap();
    advance_checkpoint(&mut ta, &cpq, "shared", high)
        .await
        .unwrap();
    let writer_b = async {
        let mut tb = b.begin().await.unwrap();
        advance_checkpoint(&mut tb, &cpq, "shared", low)
            .await
            .unwrap(); // waits on a's row lock
        tb.commit().await.unwrap();
    };
    let commit_a = async {
        // commit only once b is really waiting on a's row lock
        crate::common::wait_for_session(
            &mut watcher,
            "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock')",
            Some(b_pid),
            std::time::Duration::from_secs(10),
        )
        .await;
        ta.commit().await.unwrap();
    };
    tokio::join!(writer_b, commit_a);
    let mark: i64 = sqlx::query_scalar(&format!("SELECT hlc FROM {cp} WHERE node_key = 'shared'"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(mark, high.pack());
    // and a resumed clock stamps above every mark
    let mut tx = conn.begin().await.unwrap();
    let staged =
        PgOps::stage_in_transaction(&mut tx, &table, Some(&cpq), true, false, &[event()], "n2")
            .await
            .unwrap();
    tx.commit().await.unwrap();
    assert!(staged[0].hlc.clone().unwrap() > high.encode());
}

#[tokio::test]
async fn to_consume_refuses_step_3_while_rows_remain_then_leaves_a_consume_table() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 6, None).await;
    sqlx::raw_sql(&format!(
        "CREATE INDEX outbox_processing_idx ON {t} (outbox_route, status, processing_at);
         UPDATE {t} SET status = 'processing', processing_at = now() WHERE (payload->>'n')::int = 1;
         UPDATE {t} SET status = 'published', published_at = now() WHERE (payload->>'n')::int = 2;"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = cmd(&schema, &["--format", "json"], &["storage", "status"]);
    let v = json(&r);
    assert_eq!(
        (
            v["processing"].as_i64(),
            v["published"].as_i64(),
            v["next_step"].as_i64()
        ),
        (Some(1), Some(1), Some(2))
    );
    assert_eq!(
        v["indexes_on_dropped_columns"],
        serde_json::json!(["outbox_processing_idx"])
    );
    let r = cmd(
        &schema,
        &["--yes", "--reclaim-disabled"],
        &["storage", "to-consume", "--step", "3"],
    );
    assert_eq!(r.code, REFUSED, "{r:?}");
    assert!(
        r.stderr.contains("processing") && r.stderr.contains("published"),
        "{r:?}"
    );
    let r = cmd(&schema, &[], &["storage", "to-consume", "--step", "2"]);
    assert_eq!(r.code, REFUSED, "{r:?}");
    // the relays drain and the retention job prunes
    sqlx::raw_sql(&format!("UPDATE {t} SET status = 'pending', processing_at = NULL WHERE status = 'processing'; DELETE FROM {t} WHERE status = 'published'"))
        .execute(&mut conn)
        .await
        .unwrap();
    let r = cmd(
        &schema,
        &["--yes"],
        &["storage", "to-consume", "--step", "3"],
    );
    assert_eq!(r.code, REFUSED, "reclaim still on: {r:?}");
    assert!(r.stderr.contains("reclaim"), "{r:?}");
    let r = cmd(
        &schema,
        &["--yes", "--reclaim-disabled"],
        &["storage", "to-consume", "--step", "3", "--dry-run"],
    );
    assert!(
        r.stdout
            .contains("DROP COLUMN processing_at, DROP COLUMN published_at"),
        "{r:?}"
    );
    let r = cmd(
        &schema,
        &["--reclaim-disabled"],
        &["storage", "to-consume", "--step", "3"],
    );
    assert_eq!(r.code, REFUSED, "no --yes without a terminal: {r:?}");
    let r = cmd(
        &schema,
        &["--yes", "--reclaim-disabled"],
        &["storage", "to-consume"],
    );
    assert_eq!(r.code, OK, "{r:?}");
    let cols: Vec<String> = sqlx::query_scalar("SELECT attname::text FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped")
        .bind(&t)
        .fetch_all(&mut conn)
        .await
        .unwrap();
    assert!(!cols.contains(&"processing_at".into()) && !cols.contains(&"published_at".into()));
    let r = cmd(&schema, &["--format", "json"], &["storage", "status"]);
    assert_eq!(json(&r)["next_step"], Value::Null);
    // the consume relay serves the table
    // reclaim reads processing_at: with it on, every pass now fails, as the specification warns
    let r = cmd(&schema, &["--storage", "consume"], &RELAY_TO_NOWHERE);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(r.stderr.contains("processing_at"), "{r:?}");
    let cfg = std::env::temp_dir()
        .join("outboxctl-tests")
        .join(format!("{}.yaml", schema.name));
    std::fs::write(&cfg, "relay:\n  reclaim_stale_after: null\n").unwrap();
    let cfg = cfg.to_str().unwrap();
    let r = cmd(
        &schema,
        &["--storage", "consume", "--format", "json", "--config", cfg],
        &RELAY_TO_NOWHERE,
    );
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(json(&r)[0]["published"], 5);
    let left = count(&mut conn, &format!("SELECT count(*) FROM {t}")).await;
    assert_eq!(left, 0);
}

#[tokio::test]
async fn doctor_passes_a_healthy_outbox_and_fails_a_broken_one() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 3, None).await;
    let r = cmd(&schema, &["--format", "json"], &["doctor"]);
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(json(&r)["ok"], true);
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET status = 'failed' WHERE (payload->>'n')::int = 1;
         UPDATE {t} SET created_at = now() - interval '1 hour' WHERE (payload->>'n')::int = 2;
         DROP INDEX {}.outbox_claim_idx;",
        schema.name
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = cmd(&schema, &["--format", "json"], &["doctor"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    let v = json(&r);
    let level = |name: &str| {
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["check"] == name)
            .unwrap()["level"]
            .clone()
    };
    assert_eq!(level("claim index"), "fail");
    assert_eq!(level("failed rows"), "warn");
    assert_eq!(level("oldest pending"), "fail");
}

/// With a per-tenant relation every configured tenant's table is checked: a processing row in
/// the second tenant's table refuses step 3 for all (naming that table), and nothing is dropped.
#[tokio::test]
async fn storage_checks_every_tenants_table() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let (a, b) = (
        "0190c4e2-8a6c-7e4a-9b1e-00000000000a",
        "0190c4e2-8a6c-7e4a-9b1e-00000000000b",
    );
    let cfg = crate::common::config_file(
        test,
        &format!(
            "outbox:\n  relation: {}.outbox_{{tenant}}\n  tenant_aware: true\n  tenants: [{a}, {b}]\nrelay:\n  reclaim_stale_after: null\n",
            schema.name
        ),
    );
    let url = pg_url();
    let with = |args: &[&str]| {
        ob([args, &["--database-url", &url, "--config", cfg.as_str()]].concat()).run()
    };
    assert_eq!(with(&["migrate"]).code, OK);
    let table_b = format!("{}.outbox_{}", schema.name, b.replace('-', ""));
    stage(&mut conn, &table_b, "orders", 2, None).await;
    sqlx::raw_sql(&format!(
        "UPDATE {table_b} SET status = 'processing', processing_at = now()"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = with(&["storage", "status", "--format", "json"]);
    assert_eq!(r.code, OK, "{r:?}");
    let v = json(&r);
    let tables = v.as_array().expect("one status per tenant");
    assert_eq!(tables.len(), 2);
    assert_eq!(tables[0]["tenant"], a);
    assert_eq!(tables[0]["next_step"], 3);
    assert_eq!(
        (
            tables[1]["tenant"].as_str(),
            tables[1]["processing"].as_i64()
        ),
        (Some(b), Some(2))
    );
    let r = with(&[
        "storage",
        "to-consume",
        "--step",
        "3",
        "--yes",
        "--reclaim-disabled",
    ]);
    assert_eq!(r.code, REFUSED, "{r:?}");
    assert!(
        r.stderr.contains(&table_b),
        "names the blocked table: {r:?}"
    );
    let dropped: i64 = count(
        &mut conn,
        &format!(
            "SELECT count(*) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE n.nspname = '{}' AND a.attname = 'processing_at' AND NOT a.attisdropped",
            schema.name
        ),
    )
    .await;
    assert_eq!(dropped, 2, "both tables keep their columns");
    // once the second table is clean too, step 3 drops the columns of both
    sqlx::raw_sql(&format!(
        "UPDATE {table_b} SET status = 'pending', processing_at = NULL"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = with(&[
        "storage",
        "to-consume",
        "--step",
        "3",
        "--yes",
        "--reclaim-disabled",
    ]);
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(
        r.stdout
            .matches("dropped: processing_at, published_at")
            .count(),
        2,
        "{r:?}"
    );
}

/// Step 3 holds an ACCESS EXCLUSIVE lock while it re-checks the table: a re-check slower than
/// `--check-timeout` gives up (exit 4) and drops nothing, instead of blocking the relays.
#[tokio::test]
async fn step_3_gives_up_when_its_recheck_under_the_lock_is_slow() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 200_000, None).await;
    let r = cmd(
        &schema,
        &["--yes", "--reclaim-disabled"],
        &[
            "storage",
            "to-consume",
            "--step",
            "3",
            "--check-timeout",
            "1ms",
        ],
    );
    assert_eq!(r.code, LOCK_BUSY, "{r:?}");
    assert!(r.stderr.contains("--check-timeout"), "{r:?}");
    let cols = count(
        &mut conn,
        &format!(
            "SELECT count(*) FROM pg_attribute WHERE attrelid = '{t}'::regclass AND attname IN ('processing_at', 'published_at') AND NOT attisdropped"
        ),
    )
    .await;
    assert_eq!(cols, 2, "nothing dropped");
}

/// `inspect blocked`: per key, the head row strict order waits on and how many rows wait
/// behind it, most first; a parked row with nothing behind it holds nothing back.
#[tokio::test]
async fn inspect_blocked_lists_each_stuck_key_with_its_head_and_backlog() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--key-order", "strict"]).await;
    let t = schema.rel("outbox");
    sqlx::raw_sql(&format!(
        "INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, ordering_key, available_at, last_error, attempts)
         SELECT gen_random_uuid(), 'orders', gen_random_uuid(), 'x', now(), '{{}}',
                CASE WHEN g = 0 THEN 'failed' ELSE 'pending' END, now() - (10 - g) * interval '1 s', 'K', NULL,
                CASE WHEN g = 0 THEN 'refused' END, CASE WHEN g = 0 THEN 4 ELSE 0 END
           FROM generate_series(0, 3) g;
         INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, ordering_key, available_at, attempts)
         VALUES (gen_random_uuid(), 'orders', gen_random_uuid(), 'x', now(), '{{}}', 'pending', now() - interval '20 s', 'J', now() + interval '1 h', 1),
                (gen_random_uuid(), 'orders', gen_random_uuid(), 'x', now(), '{{}}', 'pending', now() - interval '19 s', 'J', NULL, 0),
                (gen_random_uuid(), 'orders', gen_random_uuid(), 'x', now(), '{{}}', 'failed',  now() - interval '30 s', 'L', NULL, 4),
                (gen_random_uuid(), 'orders', gen_random_uuid(), 'x', now(), '{{}}', 'pending', now() - interval '30 s', 'M', NULL, 0);"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = cmd(&schema, &["--format", "json"], &["inspect", "blocked"]);
    assert_eq!(r.code, OK, "{r:?}");
    let v = json(&r);
    let keys: Vec<(String, i64, String)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["ordering_key"].as_str().unwrap().to_owned(),
                k["waiting"].as_i64().unwrap(),
                k["head"]["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        keys,
        [
            ("K".to_owned(), 3, "failed".to_owned()),
            ("J".to_owned(), 1, "pending".to_owned())
        ]
    );
    assert_eq!(v[0]["head"]["last_error"], "refused");
    let r = cmd(&schema, &[], &["inspect", "blocked"]);
    assert!(
        r.stdout.contains("K") && r.stdout.contains("refused"),
        "{r:?}"
    );
}

/// Failure groups on PostgreSQL: parked rows grouped by their error's fingerprint (the same
/// error with other numbers, addresses and durations is one group), rows waiting for a retry
/// with --retrying, and requeue/discard of exactly a group's rows (dry run, refusal without a
/// terminal, counts).
#[tokio::test]
async fn failure_groups_list_and_act_on_exactly_their_rows() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    // 6 rows of a 503 (other addresses, durations), 3 of a refusal, 2 retrying 503s, 1 pending
    sqlx::raw_sql(&format!(
        "INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, attempts, available_at, last_error)
         SELECT gen_random_uuid(), CASE WHEN g % 2 = 0 THEN 'a' ELSE 'b' END, gen_random_uuid(), 'order.placed', now(), '{{}}',
                'failed', now() - (g || ' minutes')::interval, 5, now(),
                'HTTP 503 from 10.0.0.' || g || ':8080 after ' || g || '.5s'
           FROM generate_series(1, 6) g;
         INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, attempts, available_at, last_error)
         SELECT gen_random_uuid(), 'a', gen_random_uuid(), 'order.cancelled', now(), '{{}}',
                'failed', now(), 1, now(), 'order ' || gen_random_uuid() || ' refused: ''no stock'''
           FROM generate_series(1, 3) g;
         INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, attempts, available_at, last_error)
         SELECT gen_random_uuid(), 'a', gen_random_uuid(), 'order.placed', now(), '{{}}',
                'pending', now(), 2, now() + interval '1 minute', 'HTTP 502 from 10.0.0.9:8080 after 0.1s (+3 more)'
           FROM generate_series(1, 2) g;
         INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at)
         VALUES (gen_random_uuid(), 'a', gen_random_uuid(), 'order.placed', now(), '{{}}', 'pending', now());"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let http = outboxctl::failure_groups::fingerprint("HTTP 1 from 1.2.3.4:1 after 1s");
    let refused = outboxctl::failure_groups::fingerprint(
        "order 0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e refused: 'sold out'",
    );
    let groups = cmd(
        &schema,
        &["--format", "json"],
        &["inspect", "failed", "--group"],
    )
    .json();
    assert_eq!(
        group_counts(&groups),
        [(http.clone(), 6), (refused.clone(), 3)],
        "{groups}"
    );
    assert_eq!(groups[0]["routes"], serde_json::json!({"a": 3, "b": 3}));
    assert_eq!(groups[0]["attempts_min"], 5);
    assert!(
        groups[0]["sample_error"]
            .as_str()
            .unwrap()
            .starts_with("HTTP 503 from 10.0.0.")
    );
    // with --retrying the 502s waiting for their retry join the HTTP group
    let groups = cmd(
        &schema,
        &["--format", "json", "--route", "a"],
        &["inspect", "failed", "--group", "--retrying"],
    )
    .json();
    assert_eq!(groups[0]["id"], http.as_str());
    assert_eq!(
        groups[0]["count"], 5,
        "3 parked on route a + 2 retrying: {groups}"
    );
    assert_eq!(
        groups[0]["statuses"],
        serde_json::json!({"failed": 3, "pending": 2})
    );
    // the table names the group and how to act on it
    let r = cmd(&schema, &[], &["inspect", "failed", "--group"]);
    assert!(
        r.stdout.contains(&http) && r.stderr.contains("requeue --group"),
        "{r:?}"
    );

    let failed_with = |error: &'static str| {
        format!("SELECT count(*) FROM {t} WHERE status = 'failed' AND last_error LIKE '{error}%'")
    };
    // a dry run counts, and changes nothing
    let r = cmd(
        &schema,
        &["--format", "json"],
        &["requeue", "--group", &http, "--dry-run"],
    );
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(r.json()["count"], 6);
    assert_eq!(r.json()["groups"][&http], 6);
    assert_eq!(count(&mut conn, &failed_with("HTTP")).await, 6);
    // no terminal and no --yes: refused, nothing changed
    let r = cmd(&schema, &[], &["requeue", "--group", &http]);
    assert_eq!(r.code, REFUSED, "{r:?}");
    assert_eq!(count(&mut conn, &failed_with("HTTP")).await, 6);
    // narrowed by route, then the rest: exactly the group's parked rows, never the retrying ones
    let r = cmd(
        &schema,
        &["--format", "json", "--route", "b"],
        &["requeue", "--group", &http, "--yes"],
    );
    assert_eq!((r.code, r.json()["count"].as_i64()), (OK, Some(3)), "{r:?}");
    let r = cmd(&schema, &["--yes"], &["requeue", "--group", &http]);
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(count(&mut conn, &failed_with("HTTP")).await, 0);
    assert_eq!(
        count(
            &mut conn,
            &format!("SELECT count(*) FROM {t} WHERE status = 'pending' AND attempts = 2")
        )
        .await,
        2,
        "rows waiting for a retry are not requeued"
    );
    assert_eq!(count(&mut conn, &failed_with("order")).await, 3);
    // discard another group; an id with no rows now is said, not an error
    let r = cmd(
        &schema,
        &["--format", "json", "--yes"],
        &["discard", "--group", &format!("{refused},{http}")],
    );
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(r.json()["groups"][&refused], 3);
    assert_eq!(r.json()["groups"][&http], 0);
    assert!(
        r.stderr
            .contains(&format!("group {http} has no failed rows now")),
        "{r:?}"
    );
    assert_eq!(
        count(&mut conn, &format!("SELECT count(*) FROM {t}")).await,
        9
    );
}

/// Grouping reads the failed rows only: on 1,000,000 rows of which 50,000 failed (and 10,000
/// wait for a retry), neither of its statements scans the table, and the whole command's
/// time is printed (not asserted: speed belongs to the benchmark).
#[tokio::test]
async fn failure_groups_read_only_the_failed_rows_of_a_million() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    sqlx::raw_sql(&format!(
        "INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, published_at, attempts, available_at, last_error)
         SELECT gen_random_uuid(), 'route' || (g % 5), gen_random_uuid(), 'e', now(), '{{}}',
                CASE WHEN g % 20 = 0 THEN 'failed' WHEN g % 100 = 1 THEN 'pending' ELSE 'published' END,
                now() - (g || ' seconds')::interval, now(), CASE WHEN g % 20 = 0 THEN 5 WHEN g % 100 = 1 THEN 1 ELSE 0 END,
                CASE WHEN g % 100 = 1 THEN now() + interval '1 hour' END,
                CASE WHEN g % 20 = 0 THEN 'HTTP ' || (500 + g % 4) || ' from 10.0.0.' || (g % 200) || ':8080'
                     WHEN g % 100 = 1 THEN 'timed out after ' || (g % 7) || 's' END
           FROM generate_series(1, 1000000) g;
         ANALYZE {t};"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let (ops, routes) = five_route_ops(&mut conn, &t).await;
    for sql in ops.error_rows_sql(true) {
        let plan: Value = sqlx::query_scalar(&format!("EXPLAIN (FORMAT JSON) {sql}"))
            .bind(&routes)
            .bind(None::<uuid::Uuid>)
            .bind(None::<String>)
            .bind(None::<i64>)
            .fetch_one(&mut *ops.conn)
            .await
            .unwrap();
        assert!(
            !plan.to_string().contains("\"Seq Scan\""),
            "a sequential scan in:\n{sql}\n{}",
            serde_json::to_string_pretty(&plan).unwrap()
        );
    }
    let started = std::time::Instant::now();
    let groups = cmd(
        &schema,
        &["--format", "json"],
        &["inspect", "failed", "--group", "--retrying"],
    )
    .json();
    println!(
        "inspect failed --group --retrying over 1,000,000 rows (50,000 failed, 10,000 retrying): {:?}",
        started.elapsed()
    );
    let counts: Vec<i64> = groups
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["count"].as_i64().unwrap())
        .collect();
    assert_eq!(counts, [50_000, 10_000], "{groups}");
}
