//! `inspect` on PostgreSQL: exact counts, filters and keyset pages, where an event went, plans on a million rows, blocked keys.

use super::*;

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
    // in every format a full page says on stderr how to ask for the next one; the last page
    // (short) does not
    let next = format!("next page: --after {}", page1[1]);
    assert!(r.stderr.contains(&next), "{r:?}");
    let table = |more: &[&str]| {
        let args = [&["--route", "a"][..], more].concat();
        cmd(&schema, &args, &["inspect", "pending"])
    };
    let r = table(&["--limit", "2"]);
    assert!(r.stderr.contains(&next), "{r:?}");
    let r = table(&["--limit", "10", "--after", &page1[1]]);
    assert!(!r.stderr.contains("next page"), "{r:?}");
    let r = cmd(
        &schema,
        &[
            "--format", "jsonl", "--route", "a", "--limit", "10", "--after", &page1[1],
        ],
        &["inspect", "pending"],
    );
    let page2 = ids(&r);
    assert_eq!(page2.len(), 3);
    assert!(!r.stderr.contains("next page"), "{r:?}");
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
    // a row's id where the event id goes is said to be one (it was "not in the outbox", and
    // "the delivery log has no record of it")
    let row: uuid::Uuid = sqlx::query_scalar(&format!("SELECT id FROM {t} LIMIT 1"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    let r = cmd(&schema, &extra, &["inspect", "event", &row.to_string()]);
    assert!(r.stdout.contains("is a row's id, not an event's"), "{r:?}");
    let as_json = [&extra[..], &["--format", "json"]].concat();
    let r = cmd(&schema, &as_json, &["inspect", "event", &row.to_string()]);
    assert_eq!(json(&r)["is_a_row_id"], true, "{r:?}");
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
    // the drained route has no row left; the summary still shows it, with its deliveries
    let r = cmd(
        &schema,
        &[&extra[..], &["--format", "json"]].concat(),
        &["inspect"],
    );
    let v = json(&r);
    assert_eq!(v[0]["route"], "orders", "{v}");
    assert_eq!(v[0]["delivered_last_hour"], 2, "{v}");
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
                    .bind(None::<chrono::DateTime<chrono::Utc>>)
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

/// `inspect blocked`: per key, the head row strict order waits on and how many rows wait
/// behind it, most first; a parked row with nothing behind it holds nothing back.
#[tokio::test]
async fn inspect_blocked_lists_each_stuck_key_with_its_head_and_backlog() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--key-order", "strict"]).await;
    let t = schema.rel("outbox");
    use crate::common::fixture::{Fixture, insert};
    // key K: a parked head (attempts 4) with three rows behind it
    let mut rows = vec![
        Fixture::failed("orders")
            .key("K")
            .created_ago(10.0)
            .error("refused")
            .attempts(4),
    ];
    for ago in [9.0, 8.0, 7.0] {
        rows.push(Fixture::pending("orders").key("K").created_ago(ago));
    }
    rows.extend([
        // key J: a head waiting for its retry, one row behind it
        Fixture::pending("orders")
            .key("J")
            .created_ago(20.0)
            .due_in(3600.0)
            .attempts(1),
        Fixture::pending("orders").key("J").created_ago(19.0),
        // key L: parked with nothing behind it; key M: ripe
        Fixture::failed("orders")
            .key("L")
            .created_ago(30.0)
            .attempts(4),
        Fixture::pending("orders").key("M").created_ago(30.0),
    ]);
    insert(&mut conn, &t, &rows).await;
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
    // what to do, by what the heads are: requeue for the parked one, wait for the retry (it
    // said requeue or discard whatever the head was)
    let said = format!("{}{}", r.stdout, r.stderr);
    assert!(
        said.contains("a parked (failed) head waits for `outboxctl requeue --id`"),
        "{r:?}"
    );
    assert!(said.contains("a pending head waits for its retry"), "{r:?}");
    assert!(!said.contains("a processing head"), "{r:?}");
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

/// Pages over several targets (two tenants of one tenant-aware table, their rows alternating)
/// come in `(created_at, id)` order across them and cover every row once; a page resumes after
/// its place; an `--after` row that is no longer in the outbox is an error that says so, not an
/// empty page.
#[tokio::test]
async fn inspect_pages_merge_the_targets_in_order() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let [a, b] = super::TENANTS;
    let t = schema.rel("outbox");
    let cfg = super::two_tenants(test, &mut conn, &t, 7).await;
    let all: Vec<String> =
        sqlx::query_scalar(&format!("SELECT id::text FROM {t} ORDER BY created_at, id"))
            .fetch_all(&mut conn)
            .await
            .unwrap();
    let page = |after: Option<&str>| {
        let mut args = vec!["inspect", "pending", "--limit", "3", "--format", "jsonl"];
        args.extend(after.map(|id| ["--after", id]).into_iter().flatten());
        ob(args).pg(&t).config(&cfg).run()
    };
    let mut listed: Vec<String> = Vec::new();
    loop {
        let r = page(listed.last().map(String::as_str));
        assert_eq!(r.code, OK, "{r:?}");
        let ids: Vec<String> = r
            .jsonl()
            .iter()
            .map(|row| row["id"].as_str().unwrap().to_owned())
            .collect();
        if ids.is_empty() {
            break;
        }
        listed.extend(ids);
    }
    assert_eq!(
        listed, all,
        "every row once, oldest first across the tenants"
    );
    // an event of tenant a: once (both tenants are targets of the one table), and not b's
    let event: String = sqlx::query_scalar(&format!(
        "SELECT event_id::text FROM {t} WHERE tenant_id = '{a}'::uuid LIMIT 1"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    for (tenant, rows) in [(None, 1), (Some(a), 1), (Some(b), 0)] {
        let mut args = vec!["inspect", "event", &event, "--format", "json"];
        args.extend(tenant.map(|t| ["--tenant", t]).into_iter().flatten());
        let v = ob(args).pg(&t).config(&cfg).code(OK).json();
        assert_eq!(v["rows"].as_array().unwrap().len(), rows, "{tenant:?}: {v}");
    }
    // the row a page ended at, delivered and gone since
    sqlx::query(&format!("DELETE FROM {t} WHERE id = $1::uuid"))
        .bind(&all[2])
        .execute(&mut conn)
        .await
        .unwrap();
    let r = page(Some(&all[2]));
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("no such row in the outbox now"), "{r:?}");
}

/// A warning to a stderr nobody reads any more (`2>&1 | jq` after jq quit) is lost, and the
/// command goes on to its own exit (it panicked: exit 101, undocumented, and a relay left its
/// registry row to go stale).
#[tokio::test]
async fn a_closed_stderr_loses_the_warning_not_the_command() {
    let (schema, _conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let cfg = crate::common::config_file(
        &schema.name,
        "relay:\n  routes:\n    orders:\n      to: file:/dev/null\n",
    );
    // a route the configuration lacks: a warning on stderr, then the summary
    let status = ob(["inspect", "--route", "elsewhere"])
        .pg(&schema.rel("outbox"))
        .config(&cfg)
        .run_with_stderr_failing();
    assert_eq!(status.code(), Some(0), "{status:?}");
    // log lines too: the logging layer's own report of a line it could not write panicked
    let status = ob(["inspect"])
        .pg(&schema.rel("outbox"))
        .env("RUST_LOG", "debug")
        .run_with_stderr_failing();
    assert_eq!(status.code(), Some(0), "{status:?}");
}
