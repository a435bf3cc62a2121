//! Replay from PostgreSQL: byte for byte in claim order, selection, resuming, pacing, without the replay index, under consume, from a table destination.

use super::*;

#[tokio::test]
async fn published_rows_go_out_again_byte_for_byte_in_claim_order_and_the_outbox_is_untouched() {
    let test = test_name!();
    let (schema, mut conn, cfg, first) = delivered(test, 1_200).await;
    let t = schema.rel("outbox");
    // a retried row keeps its later available_at: replay order is still creation order
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET available_at = now() + interval '1 hour', attempts = 2
          WHERE id = (SELECT id FROM {t} WHERE outbox_route = 'orders' ORDER BY created_at LIMIT 1)"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let before = table_state(&mut conn, &t).await;

    let again = out_file(&format!("{test}-again"));
    let r = replay(&schema, &cfg)
        .args(["--route", "orders", "--to", &file_url(&again), "--yes"])
        .args(["--format", "json"])
        .code(OK);
    let summary = r.json();
    assert_eq!(summary["count"], 1_200, "{r:?}");
    assert_eq!(summary["routes"]["orders"]["count"], 1_200);
    assert_eq!(
        read(&again),
        read(&first),
        "the replay is the first delivery, byte for byte and in the same order"
    );
    assert_eq!(table_state(&mut conn, &t).await, before, "nothing changed");
    // with --yes it counts first too: what it counted bounds the run
    let r = replay(&schema, &cfg)
        .args([
            "--route",
            "nothing-here",
            "--to",
            &file_url(&again),
            "--yes",
        ])
        .code(OK);
    assert!(r.stderr.contains("nothing to replay"), "{r:?}");

    // the plan pages through the replay index, not the table
    let plan: Vec<String> = sqlx::query_scalar(&format!(
        "EXPLAIN SELECT id FROM {t} WHERE outbox_route = 'orders' AND status = 'published'
           AND (created_at, id) > (now() - interval '1 day', gen_random_uuid())
         ORDER BY created_at, id LIMIT 500"
    ))
    .fetch_all(&mut conn)
    .await
    .unwrap();
    let plan = plan.join("\n");
    assert!(
        plan.contains("Index Only Scan using outbox_replay_idx"),
        "{plan}"
    );
}

#[tokio::test]
async fn selection_narrows_by_key_type_event_id_time_and_dry_run_counts_first_and_last() {
    let test = test_name!();
    let (schema, mut conn, cfg, first) = delivered(test, 50).await;
    let t = schema.rel("outbox");
    let dry = |extra: &[&str]| {
        replay(&schema, &cfg)
            .args(["--dry-run", "--format", "json"])
            .args(extra)
            .code(OK)
            .json()
    };
    let all = dry(&[]);
    assert_eq!(all["count"], 55, "both configured routes? {all}");
    assert_eq!(all["dry_run"], true);
    // nothing was sent: no cursor to resume after (one pointed past every event counted)
    assert_eq!(all["cursor"], Value::Null, "{all}");
    // a route named twice counts once (it replayed every event twice)
    assert_eq!(dry(&["--route", "orders,orders"])["count"], 50);
    let by_key = dry(&["--route", "orders", "--key", "k3"]);
    assert_eq!(by_key["count"], 10, "{by_key}");
    let lines: Vec<Value> = read(&first)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let k3: Vec<&Value> = lines.iter().filter(|l| l["key"] == "k3").collect();
    assert_eq!(
        by_key["routes"]["orders"]["first"]["event_id"],
        k3[0]["event_id"]
    );
    assert_eq!(
        by_key["routes"]["orders"]["last"]["event_id"],
        k3[9]["event_id"]
    );
    // the event id stands in for the key of a row without one
    let other_id: String = sqlx::query_scalar(&format!(
        "SELECT event_id::text FROM {t} WHERE outbox_route = 'other' LIMIT 1"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(dry(&["--key", &other_id])["count"], 1);
    let ids = format!(
        "{},{}",
        lines[7]["event_id"].as_str().unwrap(),
        lines[3]["event_id"].as_str().unwrap()
    );
    let picked = dry(&["--route", "orders", "--event-id", &ids]);
    assert_eq!(picked["count"], 2);
    assert_eq!(
        picked["routes"]["orders"]["first"]["event_id"], lines[3]["event_id"],
        "claim order, not the order given"
    );
    assert!(picked.get("not_found").is_none(), "{picked}");
    // an id the outbox does not hold is said (a typo replayed nothing of it, without a word)
    let typo = "0190c4e2-8a6c-7e4a-9b1e-0000000000ff";
    let picked = dry(&[
        "--route",
        "orders",
        "--event-id",
        &format!("{ids},{typo},{typo}"),
    ]);
    assert_eq!(picked["count"], 2);
    assert_eq!(picked["not_found"], serde_json::json!([typo]), "{picked}");
    assert_eq!(dry(&["--type", "order.shipped"])["count"], 0);
    // delivery time: move 20 deliveries an hour back
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET published_at = now() - interval '1 hour', created_at = created_at - interval '2 hours'
          WHERE id IN (SELECT id FROM {t} WHERE outbox_route = 'orders' ORDER BY created_at LIMIT 20)"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    assert_eq!(dry(&["--route", "orders", "--since", "30m"])["count"], 30);
    assert_eq!(dry(&["--route", "orders", "--until", "30m"])["count"], 20);
    let tenant = dry(&["--tenant", "00000000-0000-0000-0000-00000000abcd"]);
    assert_eq!(tenant["count"], 0, "{tenant}");
    // a dry run needs no --to and publishes nothing
    assert!(!read(&first).is_empty());
}

#[tokio::test]
async fn an_interrupted_replay_resumes_after_its_cursor_with_nothing_lost() {
    let test = test_name!();
    let (schema, _conn, cfg, first) = delivered(test, 40).await;
    // a webhook that refuses the 26th event four times (its try and three retries): the replay
    // stops and says where
    let hook = hook([vec![200; 25], vec![503; 4]].concat()).await;
    let r = replay(&schema, &cfg)
        .args(["--route", "orders", "--to", &hook.addr, "--rate", "1000"])
        .args(["--format", "json"])
        .run_async()
        .await;
    assert_eq!(r.code, ERROR, "{r:?}");
    let cursor = r.json()["cursor"].as_str().unwrap().to_owned();
    assert!(
        r.stderr.contains(&format!(
            "(--since, --until and every filter) and --after {cursor}"
        )),
        "{r:?}"
    );
    assert_eq!(r.json()["count"], 25);
    let r = replay(&schema, &cfg)
        .args(["--route", "orders", "--to", &hook.addr, "--after", &cursor])
        .run_async()
        .await;
    assert_eq!(r.code, OK, "{r:?}");
    assert!(r.stderr.contains("replayed 15 event(s)"), "{r:?}");
    // (key, event id) in the order the webhook received them
    let sent: Vec<(String, String)> = hook
        .requests
        .lock()
        .unwrap()
        .iter()
        .map(|(h, _)| (h["forze_key"].clone(), h["idempotency-key"].clone()))
        .collect();
    let want: Vec<(String, String)> = keyed_events(&first);
    assert_eq!(
        sent.len(),
        44,
        "25 delivered, one refused four times, then 15"
    );
    assert_eq!(
        sent[..25],
        want[..25],
        "one at a time with --rate: claim order"
    );
    let refused = &sent[25];
    assert!(
        sent[25..29].iter().all(|s| s == refused),
        "retried, then given up"
    );
    let mut rest = sent[29..].to_vec();
    assert!(
        rest.contains(refused),
        "the refused event goes out on resume"
    );
    // keys go side by side without --rate; each key's events in claim order
    let per_key = |events: &[(String, String)]| {
        let mut keys: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for (k, e) in events {
            keys.entry(k.clone()).or_default().push(e.clone());
        }
        keys
    };
    assert_eq!(
        per_key(&rest),
        per_key(&want[25..]),
        "each event once, in key order"
    );
    rest.sort();
    rest.dedup();
    assert_eq!(rest.len(), 15);

    // --limit stops early and resumes the same way
    let part = out_file(&format!("{test}-part"));
    let r = replay(&schema, &cfg)
        .args([
            "--route",
            "orders",
            "--to",
            &file_url(&part),
            "--limit",
            "7",
        ])
        .args(["--format", "json"])
        .code(OK);
    let cursor = r.json()["cursor"].as_str().unwrap().to_owned();
    replay(&schema, &cfg)
        .args([
            "--route",
            "orders",
            "--to",
            &file_url(&part),
            "--after",
            &cursor,
        ])
        .code(OK);
    assert_eq!(read(&part), read(&first));
}

/// Each replayed publish is bounded by `relay.publish_timeout`, as the relay's are: to a
/// webhook that accepts and never answers, with `publish_timeout: 300ms`, the replay stops at
/// the first event naming that bound (the webhook's own default is far longer).
#[tokio::test]
async fn publish_timeout_bounds_each_replayed_publish() {
    let test = test_name!();
    let (schema, _conn, _, _) = delivered(test, 3).await;
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let to = format!("http://{}/hook", silent.local_addr().unwrap());
    let cfg = config_file(
        &format!("{test}-timeout"),
        "outbox:\n  replay_index: true\nrelay:\n  publish_timeout: 300ms\n  routes:\n    orders:\n      to: file:/dev/null\n",
    );
    let r = replay(&schema, &cfg)
        .args(["--route", "orders", "--to", &to, "--retries", "0", "--yes"])
        .run_async()
        .await;
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("no answer within 300ms"), "{r:?}");
    drop(silent);
}

#[tokio::test]
async fn rate_paces_publishes_and_large_replays_ask_first() {
    let test = test_name!();
    let (schema, _conn, cfg, first) = delivered(test, 1_001).await;
    let out = out_file(&format!("{test}-out"));
    // over the threshold, no terminal, no --yes: refused, nothing published
    let r = replay(&schema, &cfg)
        .args(["--route", "orders", "--to", &file_url(&out)])
        .code(REFUSED);
    assert!(
        r.stderr.contains("replay 1001 events (orders: 1001)") && r.stderr.contains("--yes"),
        "{r:?}"
    );
    assert!(read(&out).is_empty());
    // 21 events at 40/s: the last may start no sooner than 0.5 s after the first
    let started = std::time::Instant::now();
    let r = replay(&schema, &cfg)
        .args([
            "--route",
            "orders",
            "--to",
            &file_url(&out),
            "--limit",
            "21",
        ])
        .args(["--rate", "40/s", "--format", "json"])
        .code(OK);
    assert_eq!(r.json()["count"], 21);
    assert!(
        started.elapsed() >= std::time::Duration::from_millis(500),
        "paced: {:?}",
        started.elapsed()
    );
    let want: Vec<String> = read(&first).lines().take(21).map(str::to_owned).collect();
    let got: Vec<String> = read(&out).lines().map(str::to_owned).collect();
    assert_eq!(got, want);
}

#[tokio::test]
async fn without_the_replay_index_only_event_id_lookups_run() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 3, None).await;
    let plain = config_file(
        test,
        "relay:\n  routes:\n    orders:\n      to: file:/dev/null\n",
    );
    relay_to(&schema, &plain, "orders", "file:/dev/null");
    let r = replay(&schema, &plain)
        .args(["--route", "orders", "--to", "stdout"])
        .code(REFUSED);
    assert!(
        r.stderr.contains("outbox_replay_idx")
            && r.stderr.contains("outbox.replay_index: true")
            && r.stderr.contains("outboxctl migrate"),
        "{r:?}"
    );
    // with the setting on (the index dropped by hand, or not migrated yet): migrate alone
    let on = replay_config(&format!("{test}_on"));
    let r = replay(&schema, &on)
        .args(["--route", "orders", "--to", "stdout"])
        .code(REFUSED);
    let fix = "run outboxctl migrate to add it (outbox.replay_index is on)";
    assert!(r.stderr.contains(fix), "{r:?}");
    let id: String = sqlx::query_scalar(&format!("SELECT event_id::text FROM {t} LIMIT 1"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    let r = replay(&schema, &plain)
        .args(["--event-id", &id, "--to", "stdout", "-q"])
        .code(OK);
    let line: Value = serde_json::from_str(r.stdout.trim()).unwrap();
    assert_eq!(line["event_id"], id.as_str());
    // bad input: one line, exit 2, nothing read
    for (args, says) in [
        (vec!["--to", "gopher://x"], "--to"),
        (
            vec!["--to", "postgres-table:app.sink"],
            "keeps each event id once",
        ),
        (
            vec!["--to", "stdout", "--after", "nope"],
            "--after \"nope\"",
        ),
        (vec!["--to", "stdout", "--from", "s3://b"], "--from"),
        (vec!["--to", "stdout", "--hlc-from", "1.1"], "hlc_ordering"),
    ] {
        let r = replay(&schema, &plain).args(&args).code(ERROR);
        assert!(
            r.stderr.contains(says) && r.stderr.lines().count() == 1,
            "{args:?}: {r:?}"
        );
    }
    assert_eq!(
        count(
            &mut conn,
            &format!("SELECT count(*) FROM {t} WHERE status = 'published'")
        )
        .await,
        3
    );
}

#[tokio::test]
async fn consume_storage_says_what_keeps_events_and_looks_ids_up_in_the_delivery_log() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let log = schema.rel("delivered");
    let consume = ["--storage", "consume", "--delivery-log", &log];
    migrate(&schema, &consume).await;
    ob(["partitions", "add-ahead", "-q"])
        .pg(&schema.rel("outbox"))
        .args(consume)
        .code(OK);
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 2, None).await;
    let ids: Vec<String> = sqlx::query_scalar(&format!(
        "SELECT event_id::text FROM {t} ORDER BY created_at"
    ))
    .fetch_all(&mut conn)
    .await
    .unwrap();
    ob(crate::common::RELAY_TO_NOWHERE)
        .pg(&t)
        .args(consume)
        .code(OK);
    let r = ob(["replay", "--route", "orders", "--to", "stdout"])
        .pg(&t)
        .args(consume)
        .code(ERROR);
    assert!(
        r.stderr.contains("storage: consume deletes delivered rows")
            && r.stderr.contains("--from postgres-table:")
            && r.stderr.contains("--event-id ID… --dry-run"),
        "{r:?}"
    );
    let missing = "0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e";
    let r = ob(["replay", "--dry-run", "--format", "json"])
        .args(["--event-id", &format!("{},{missing}", ids[0])])
        .pg(&t)
        .args(consume)
        .code(OK);
    let v = r.json();
    assert_eq!(v["replayable"], false);
    assert_eq!(v["events"][0]["deliveries"][0]["route"], "orders", "{v}");
    assert_eq!(v["events"][1]["deliveries"], Value::Array(vec![]), "{v}");
    // `--route` selects as a replay does: another route's delivery is not this one's (it was
    // listed all the same)
    let r = ob([
        "replay",
        "--dry-run",
        "--route",
        "billing",
        "--event-id",
        &ids[0],
    ])
    .pg(&t)
    .args(consume)
    .code(OK);
    assert!(
        r.stdout
            .contains("not in the delivery log on route(s) billing"),
        "{r:?}"
    );
    assert!(!r.stdout.contains("orders"), "{r:?}");
}

/// Tenants sharing a table, each with a delivery log of its own (`delivery_log:
/// …d_{tenant}`): a delivery is looked up in its tenant's log, once. The lookup used to read the
/// first tenant's log only, and said the second tenant's delivered event was not there.
#[tokio::test]
async fn the_delivery_lookup_reads_each_tenants_own_log_once() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let (a, b) = (
        "0190c4e2-8a6c-7e4a-9b1e-00000000000a",
        "0190c4e2-8a6c-7e4a-9b1e-00000000000b",
    );
    let t = schema.rel("outbox");
    let cfg = config_file(
        test,
        &format!(
            "outbox:\n  relation: {t}\n  storage: consume\n  delivery_log: {}.d_{{tenant}}\n  tenant_aware: true\n  tenants: [{a}, {b}]\n",
            schema.name
        ),
    );
    let with = |args: &[&str]| ob(args).pg(&t).config(&cfg).run();
    assert_eq!(with(&["migrate", "-q"]).code, OK);
    stage(&mut conn, &t, "orders", 2, None).await;
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET tenant_id = CASE WHEN (payload->>'n')::int = 1 THEN '{a}'::uuid ELSE '{b}'::uuid END"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let of = async |conn: &mut PgConnection, tenant: &str| -> String {
        sqlx::query_scalar(&format!(
            "SELECT event_id::text FROM {t} WHERE tenant_id = '{tenant}'::uuid"
        ))
        .fetch_one(conn)
        .await
        .unwrap()
    };
    let (event_a, event_b) = (of(&mut conn, a).await, of(&mut conn, b).await);
    let r = with(&crate::common::RELAY_TO_NOWHERE);
    assert_eq!(r.code, OK, "{r:?}");
    let r = with(&[
        "replay",
        "--dry-run",
        "--format",
        "json",
        "--event-id",
        &format!("{event_a},{event_b}"),
    ]);
    assert_eq!(r.code, OK, "{r:?}");
    let v = r.json();
    let events = v["events"].as_array().unwrap();
    assert_eq!(events.len(), 2, "an entry per event asked for: {v}");
    for (e, tenant) in events.iter().zip([a, b]) {
        let ds = e["deliveries"].as_array().unwrap();
        assert_eq!(ds.len(), 1, "one delivery, in its tenant's log: {v}");
        assert_eq!(ds[0]["tenant_id"], tenant, "{v}");
    }
}

#[tokio::test]
async fn a_postgres_table_destination_replays_what_it_received() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let sink = schema.rel("sink");
    let cfg = config_file(
        test,
        &format!(
            "outbox:\n  hlc_ordering: true\nrelay:\n  routes:\n    orders:\n      to: postgres-table:{sink}\n"
        ),
    );
    migrate(&schema, &["--config", &cfg]).await;
    let t = schema.rel("outbox");
    emit_events(
        "orders",
        30,
        r#"{"b": 1.50, "a": "é", "n": 12345678901234567890}"#,
    )
    .args(["--ordering-key", "o-1"])
    .pg(&t)
    .config(&cfg)
    .code(OK);
    // the first delivery, to a file; then the same rows again, to the table
    let first = out_file(&format!("{test}-first"));
    relay_to(&schema, &cfg, "orders", &file_url(&first));
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET status = 'pending', published_at = NULL"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    ob(["relay", "--once"]).pg(&t).config(&cfg).code(OK);
    assert_eq!(
        count(&mut conn, &format!("SELECT count(*) FROM {sink}")).await,
        30
    );

    let again = out_file(&format!("{test}-again"));
    let r = ob(["replay", "--from", &format!("postgres-table:{sink}")])
        .args(["--to", &file_url(&again), "--format", "json"])
        .pg(&t)
        .config(&cfg)
        .code(OK);
    assert_eq!(r.json()["count"], 30, "{r:?}");
    let nil = "\"id\":\"00000000-0000-0000-0000-000000000000\"";
    let without_id = |text: String| -> Vec<String> {
        text.lines()
            .map(|l| format!("{{{}", l.split_once(',').unwrap().1))
            .collect()
    };
    assert!(
        read(&again).lines().all(|l| l.contains(nil)),
        "the table keeps no row id"
    );
    assert_eq!(
        without_id(read(&again)),
        without_id(read(&first)),
        "payload, headers (in the relay's order) and key as first delivered"
    );
    // a cursor of this source resumes in it, and only in it
    let r = ob([
        "replay",
        "--from",
        &format!("postgres-table:{sink}"),
        "--limit",
        "4",
    ])
    .args(["--to", "file:/dev/null", "--format", "json"])
    .pg(&t)
    .config(&cfg)
    .code(OK);
    let cursor = r.json()["cursor"].as_str().unwrap().to_owned();
    assert!(cursor.starts_with("t2."), "{cursor}");
    let rest = ob([
        "replay",
        "--from",
        &format!("postgres-table:{sink}"),
        "--dry-run",
    ])
    .args(["--after", &cursor, "--format", "json"])
    .pg(&t)
    .config(&cfg)
    .code(OK);
    assert_eq!(rest.json()["count"], 26);
    let r = ob(["replay", "--to", "stdout", "--after", &cursor])
        .pg(&t)
        .config(&cfg)
        .code(ERROR);
    assert!(
        r.stderr.contains("not of the outbox's published rows"),
        "{r:?}"
    );
}

/// Replayed to one broker without `--channel`, each route goes to its own channel (its name):
/// routes share a publisher only when every option they were planned with is the same. A
/// route's events once went to the first route's stream when the key of that sharing stopped
/// naming the channel.
#[tokio::test]
async fn replayed_to_a_broker_each_route_keeps_its_own_channel() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let cfg = config_file(test, "outbox:\n  replay_index: true\n");
    migrate(&schema, &["--config", &cfg]).await;
    let t = schema.rel("outbox");
    let (a, b) = (
        crate::common::unique_name(&format!("{test}_a")),
        crate::common::unique_name(&format!("{test}_b")),
    );
    stage(&mut conn, &t, &a, 3, None).await;
    stage(&mut conn, &t, &b, 2, None).await;
    for route in [&a, &b] {
        relay_to(&schema, &cfg, route, "file:/dev/null");
    }
    let mut redis = redis::Client::open(REDIS)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    // the two streams' lengths, and then they are emptied (a failed run leaves its entries)
    let lengths_then_empty = async |redis: &mut redis::aio::MultiplexedConnection| {
        let got: (i64, i64, (), ()) = redis::pipe()
            .cmd("XLEN")
            .arg(&a)
            .cmd("XLEN")
            .arg(&b)
            .cmd("DEL")
            .arg(&a)
            .cmd("DEL")
            .arg(&b)
            .query_async(redis)
            .await
            .unwrap();
        (got.0, got.1)
    };
    lengths_then_empty(&mut redis).await;
    replay(&schema, &cfg)
        .args(["--route", &format!("{a},{b}"), "--to", REDIS, "--yes"])
        .code(OK);
    let got = lengths_then_empty(&mut redis).await;
    assert_eq!(got, (3, 2), "each route's events in its own stream");
}

/// `replay --to stdout | head`: stdout's reader quit, a closed pipe, exit 0 with nothing more
/// said, as for any command (it exited 2 saying "nothing was replayed; run it again").
#[tokio::test]
async fn a_closed_stdout_ends_the_replay_with_exit_0() {
    let test = test_name!();
    let (schema, _conn, cfg, _) = delivered(test, 1_200).await;
    // `file:/dev/stdout` too (it was opened as a reader of its own: the replay hung)
    for to in ["stdout", "file:/dev/stdout"] {
        let r = replay(&schema, &cfg)
            .args(["--route", "orders", "--to", to, "--yes"])
            .run_with_stdout_closed();
        assert_eq!(r.code, OK, "{to}: {r:?}");
        assert!(!r.stderr.contains("error"), "{to}: {r:?}");
    }
}
