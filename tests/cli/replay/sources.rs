//! Replay from the other sources: a file archive to a real broker, MongoDB, HLC order across pages, random refusals, per-tenant tables.

use super::*;

#[tokio::test]
async fn a_file_archive_replays_to_a_real_broker_selected_by_hlc_and_resumes_by_line() {
    let test = test_name!();
    let (schema, _conn) = PgSchema::new(test).await;
    let cfg = config_file(test, "outbox:\n  hlc_ordering: true\n");
    migrate(&schema, &["--config", &cfg]).await;
    let t = schema.rel("outbox");
    emit_events("orders", 12, r#"{"order_id": 42}"#)
        .pg(&t)
        .config(&cfg)
        .code(OK);
    let archive = out_file(&format!("{test}-archive"));
    relay_to(&schema, &cfg, "orders", &file_url(&archive));
    let lines: Vec<Value> = read(&archive)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let hlc = |i: usize| {
        lines[i]["headers"]["forze_hlc"]
            .as_str()
            .unwrap()
            .to_owned()
    };

    let from = file_url(&archive);
    let copy = out_file(&format!("{test}-copy"));
    ob(["replay", "--from", &from, "--to", &file_url(&copy)]).code(OK);
    assert_eq!(read(&copy), read(&archive), "a file replays byte for byte");
    // into itself: refused before anything is read or written (it would feed on itself)
    let r = ob(["replay", "--from", &from, "--to", &from, "--yes"]).run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("--from and --to are the same"), "{r:?}");
    assert_eq!(
        read(&archive).lines().count(),
        12,
        "the archive is untouched"
    );
    let picked = ob(["replay", "--from", &from, "--dry-run", "--format", "json"])
        .args(["--hlc-from", &hlc(3), "--hlc-to", &hlc(5)])
        .code(OK);
    assert_eq!(picked.json()["count"], 3, "{picked:?}");

    // to Redis (a stream of the test's own): the same payload and headers
    let stream = crate::common::unique_name(test);
    let client = redis::Client::open(REDIS).unwrap();
    let mut con = client.get_multiplexed_async_connection().await.unwrap();
    // empty: a failed run leaves its entries
    let _: () = redis::cmd("DEL")
        .arg(&stream)
        .query_async(&mut con)
        .await
        .unwrap();
    let to_redis = || {
        ob([
            "replay",
            "--from",
            &from,
            "--to",
            REDIS,
            "--channel",
            &stream,
        ])
    };
    let r = to_redis()
        .args(["--limit", "5", "--format", "json"])
        .code(OK);
    let cursor = r.json()["cursor"].as_str().unwrap().to_owned();
    assert!(
        cursor.starts_with("f2.") && cursor.ends_with(".5"),
        "{cursor}"
    );
    // a cursor names its archive: another file's replay refuses it rather than skip or repeat
    let r = ob([
        "replay",
        "--from",
        &file_url(&copy),
        "--dry-run",
        "--after",
        &cursor,
    ])
    .run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("was printed for another file"), "{r:?}");
    to_redis().args(["--after", &cursor]).code(OK);
    let entries: Vec<(String, Vec<(String, String)>)> = redis::cmd("XRANGE")
        .arg(&stream)
        .arg("-")
        .arg("+")
        .query_async(&mut con)
        .await
        .unwrap_or_else(|e| panic!("XRANGE {stream}: {e}"));
    let _: () = redis::cmd("DEL")
        .arg(&stream)
        .query_async(&mut con)
        .await
        .unwrap();
    assert_eq!(entries.len(), 12);
    for (i, (_, fields)) in entries.iter().enumerate() {
        let get = |k: &str| fields.iter().find(|(f, _)| f == k).map(|(_, v)| v.clone());
        assert_eq!(
            get("payload").as_deref(),
            Some(r#"{"order_id":42}"#),
            "{fields:?}"
        );
        let sorted: std::collections::BTreeMap<String, String> =
            serde_json::from_value(lines[i]["headers"].clone()).unwrap();
        assert_eq!(
            get("headers"),
            Some(serde_json::to_string(&sorted).unwrap()),
            "line {i}, in order: {fields:?}"
        );
        assert_eq!(get("key").as_deref(), lines[i]["key"].as_str());
    }
    let r = ob(["replay", "--from", &from, "--to", "stdout", "--since", "1h"]).code(ERROR);
    assert!(r.stderr.contains("does not keep"), "{r:?}");
}

#[tokio::test]
async fn published_documents_on_mongo_go_out_again_byte_for_byte() {
    let test = test_name!();
    let db = MongoDb::new(test).await;
    let coll = format!("{}.outbox", db.name);
    let cfg = replay_config(test);
    ob(["migrate", "-q"]).mongo(&coll).config(&cfg).code(OK);
    for key in ["a", "b"] {
        emit_events("orders", 15, r#"{"order_id": 42, "total": "19.90"}"#)
            .args(["--ordering-key", key])
            .mongo(&coll)
            .config(&cfg)
            .code(OK);
    }
    let first = out_file(&format!("{test}-first"));
    ob([
        "relay",
        "--once",
        "--route",
        "orders",
        "--to",
        &file_url(&first),
    ])
    .mongo(&coll)
    .config(&cfg)
    .code(OK);
    let again = out_file(&format!("{test}-again"));
    let r = ob([
        "replay",
        "--route",
        "orders",
        "--to",
        &file_url(&again),
        "--limit",
        "11",
    ])
    .args(["--format", "json"])
    .mongo(&coll)
    .config(&cfg)
    .code(OK);
    let cursor = r.json()["cursor"].as_str().unwrap().to_owned();
    let r = ob([
        "replay",
        "--route",
        "orders",
        "--to",
        &file_url(&again),
        "--after",
        &cursor,
    ])
    .args(["--format", "json"])
    .mongo(&coll)
    .config(&cfg)
    .code(OK);
    assert_eq!(r.json()["count"], 19);
    assert_eq!(read(&again), read(&first));
    let by_key = ob([
        "replay",
        "--route",
        "orders",
        "--key",
        "b",
        "--dry-run",
        "--format",
        "json",
    ])
    .mongo(&coll)
    .config(&cfg)
    .code(OK);
    assert_eq!(by_key.json()["count"], 15);
    // without the index (the claim's, in the same order): refused with what to do
    let plain = format!("{}.plain", db.name);
    ob(["migrate", "-q"]).mongo(&plain).code(OK);
    db.db()
        .collection::<mongodb::bson::Document>("plain")
        .drop_index("outbox_route_1_status_1_created_at_1_id_1")
        .await
        .unwrap();
    let r = ob(["replay", "--route", "orders", "--to", "stdout"])
        .mongo(&plain)
        .code(REFUSED);
    assert!(
        r.stderr.contains("run outboxctl migrate (it adds it"),
        "{r:?}"
    );
}

#[tokio::test]
async fn hlc_order_holds_across_pages_and_rows_without_an_hlc_come_last() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let cfg = config_file(
        test,
        "outbox:\n  hlc_ordering: true\n  replay_index: true\nrelay:\n  routes:\n    orders:\n      to: file:/dev/null\n",
    );
    migrate(&schema, &["--config", &cfg]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 600, Some(9)).await;
    // 550 rows with HLCs against their creation order, 50 legacy rows without one
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET hlc = (1764583200000::bigint << 16) | (1000 - (payload->>'n')::int) WHERE (payload->>'n')::int > 50"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let first = out_file(&format!("{test}-first"));
    relay_to(&schema, &cfg, "orders", &file_url(&first));
    let ns: Vec<i64> = read(&first)
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["payload"]["n"]
                .as_i64()
                .unwrap()
        })
        .collect();
    assert_eq!(
        (ns[0], ns[549], ns[550], ns[599]),
        (600, 51, 1, 50),
        "claim order"
    );

    // 560 events: past a page and into the rows without an HLC; then the rest
    let again = out_file(&format!("{test}-again"));
    let r = replay(&schema, &cfg)
        .args([
            "--to",
            &file_url(&again),
            "--limit",
            "560",
            "--format",
            "json",
        ])
        .code(OK);
    let cursor = r.json()["cursor"].as_str().unwrap().to_owned();
    assert!(
        cursor.starts_with("r1.-.") && cursor.contains(".-."),
        "no HLC: {cursor}"
    );
    replay(&schema, &cfg)
        .args(["--to", &file_url(&again), "--after", &cursor])
        .code(OK);
    assert_eq!(
        read(&again),
        read(&first),
        "HLC order, then the rest, byte for byte"
    );
    let hlc = |n: i64| ((1_764_583_200_000_i64 << 16) | (1000 - n)).to_string();
    let window = replay(&schema, &cfg)
        .args([
            "--dry-run",
            "--format",
            "json",
            "--hlc-from",
            &hlc(100),
            "--hlc-to",
            &hlc(91),
        ])
        .code(OK)
        .json();
    assert_eq!(window["count"], 10, "{window}");
}

/// Replay under random refusals, resumed from each stop's cursor until it completes: every
/// event arrives, and no event of a key arrives before the key's earlier events have. Seeded:
/// `OUTBOXCTL_REPLAY_SEED` replays one seed, `OUTBOXCTL_REPLAY_SEEDS` runs that many (default 1);
/// a failure prints its seed.
#[tokio::test]
async fn replay_resumed_through_random_refusals_keeps_key_order_and_loses_nothing() {
    use rand::{Rng, SeedableRng};
    let test = test_name!();
    let (schema, _conn, cfg, first) = delivered(test, 100).await;
    let want: Vec<(String, String)> = keyed_events(&first);
    let seeds: Vec<u64> = match std::env::var("OUTBOXCTL_REPLAY_SEED") {
        Ok(s) => vec![s.parse().expect("OUTBOXCTL_REPLAY_SEED: a number")],
        Err(_) => {
            let n: u64 = std::env::var("OUTBOXCTL_REPLAY_SEEDS").map_or(1, |s| s.parse().unwrap());
            assert!(
                n > 0,
                "OUTBOXCTL_REPLAY_SEEDS=0 would check nothing: give 1 or more"
            );
            (0..n).map(|_| rand::random()).collect()
        }
    };
    for seed in seeds {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        // one request in four refused, one retry: an event refused twice (1 in 16) stops it
        let script: Vec<u16> = (0..3_000)
            .map(|_| if rng.gen_ratio(1, 4) { 503 } else { 200 })
            .collect();
        let hook = hook(script).await;
        let mut after: Option<String> = None;
        let mut runs = 0;
        loop {
            runs += 1;
            assert!(runs < 200, "seed {seed}: the replay never completed");
            let mut cmd = replay(&schema, &cfg)
                .args(["--route", "orders", "--to", &hook.addr, "--yes"])
                .args(["--format", "json", "--retries", "1"]);
            if let Some(c) = &after {
                cmd = cmd.args(["--after", c]);
            }
            let r = cmd.run_async().await;
            if r.code == OK {
                break;
            }
            assert_eq!(r.code, ERROR, "seed {seed}: {r:?}");
            if let Some(c) = r.json()["cursor"].as_str() {
                after = Some(c.to_owned());
            }
        }
        // (key, event) in arrival order, refused requests excluded
        let requests = hook.requests.lock().unwrap().clone();
        let arrived: Vec<(String, String)> = requests
            .iter()
            .filter(|(h, _)| h[":status"] == "200")
            .map(|(h, _)| (h["forze_key"].clone(), h["idempotency-key"].clone()))
            .collect();
        let mut seen: std::collections::HashSet<&str> = Default::default();
        for (key, event) in &arrived {
            let earlier = want
                .iter()
                .take_while(|(_, e)| e != event)
                .filter(|(k, _)| k == key);
            for (_, e) in earlier {
                assert!(
                    seen.contains(e.as_str()),
                    "seed {seed}: {event} of key {key} arrived before {e}"
                );
            }
            seen.insert(event);
        }
        assert_eq!(seen.len(), want.len(), "seed {seed}: events lost");
        println!("seed {seed}: {runs} run(s), {} request(s)", requests.len());
    }
}

#[tokio::test]
async fn per_tenant_tables_replay_tenant_by_tenant() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let (a, b) = (
        "0190c4e2-8a6c-7e4a-9b1e-00000000000a",
        "0190c4e2-8a6c-7e4a-9b1e-00000000000b",
    );
    let cfg = config_file(
        test,
        &format!(
            "outbox:\n  relation: {}.outbox_{{tenant}}\n  tenant_aware: true\n  tenants: [{a}, {b}]\n  replay_index: true\n",
            schema.name
        ),
    );
    let url = crate::common::pg_url();
    ob(["migrate", "-q", "--database-url", &url, "--config", &cfg]).code(OK);
    for (tenant, n) in [(a, 3), (b, 2)] {
        let table = format!("{}.outbox_{}", schema.name, tenant.replace('-', ""));
        stage(&mut conn, &table, "orders", n, None).await;
        sqlx::raw_sql(&format!("UPDATE {table} SET tenant_id = '{tenant}'"))
            .execute(&mut conn)
            .await
            .unwrap();
    }
    let first = out_file(&format!("{test}-first"));
    ob([
        "relay",
        "--once",
        "--route",
        "orders",
        "--to",
        &file_url(&first),
    ])
    .args(["--database-url", &url, "--config", &cfg])
    .code(OK);
    let run = |extra: &[&str]| {
        ob([
            "replay",
            "--route",
            "orders",
            "--database-url",
            &url,
            "--config",
            &cfg,
        ])
        .args(extra)
        .code(OK)
    };
    assert_eq!(run(&["--dry-run", "--format", "json"]).json()["count"], 5);
    assert_eq!(
        run(&["--dry-run", "--format", "json", "--tenant", b]).json()["count"],
        2
    );
    // resumed from inside the first tenant's table, the second follows
    let again = out_file(&format!("{test}-again"));
    let r = run(&[
        "--to",
        &file_url(&again),
        "--limit",
        "2",
        "--format",
        "json",
    ]);
    let cursor = r.json()["cursor"].as_str().unwrap().to_owned();
    assert!(cursor.starts_with(&format!("r1.{a}.")), "{cursor}");
    run(&["--to", &file_url(&again), "--after", &cursor]);
    assert_eq!(read(&again), read(&first));
}

/// A `--route` the configuration's `relay.routes` lack is named on stderr, as `inspect`,
/// `emit` and `requeue` name it: a typo replayed nothing, said nothing and exited 0.
#[tokio::test]
async fn a_route_the_configuration_lacks_is_named() {
    let test = test_name!();
    let (schema, _conn, cfg, _) = delivered(test, 3).await;
    let r = replay(&schema, &cfg)
        .args(["--route", "ordres", "--dry-run", "--format", "json"])
        .run();
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(r.json()["count"], 0, "{r:?}");
    let said = "route ordres is not in relay.routes (orders, other): a typo replays nothing";
    assert!(r.stderr.contains(said), "{r:?}");
    let r = replay(&schema, &cfg)
        .args(["--route", "orders", "--dry-run"])
        .run();
    assert!(!r.stderr.contains("not in relay.routes"), "{r:?}");
}

/// A `--from postgres-table:` that names a table without a destination's columns (the outbox
/// itself, by mistake) is refused naming what it lacks, exit 2, with or without `--event-id`:
/// it read as a destination lacking its replay index, exit 5, advising to make it one.
#[tokio::test]
async fn a_source_table_that_is_no_destination_is_named() {
    let test = test_name!();
    let (schema, _conn, cfg, _) = delivered(test, 3).await;
    let from = format!("postgres-table:{}", schema.rel("outbox"));
    for extra in [
        &[][..],
        &["--event-id", "0190c4e2-8a6c-7e4a-9b1e-000000000001"],
    ] {
        let r = replay(&schema, &cfg)
            .args(["--from", &from, "--route", "orders", "--dry-run"])
            .args(extra)
            .run();
        assert_eq!(r.code, ERROR, "{extra:?}: {r:?}");
        let said = format!(
            "{} is not a postgres-table destination (it has no column",
            schema.rel("outbox")
        );
        assert!(
            r.stderr.contains(&said) && r.stderr.contains("headers"),
            "{r:?}"
        );
        assert!(r.stderr.contains("check --from"), "{r:?}");
    }
}
