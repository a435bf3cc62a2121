//! The relay on MongoDB: publish and mark by id, HLC order, retries, reclaim, kill -9, several relays, mongod restarts.

use super::*;

#[tokio::test]
async fn relay_once_publishes_marks_by_id_and_forwards_headers() {
    let db = setup("mongo_relay_basic", &["--propagate-trace"]).await;
    let r = cmd(
        &db,
        &[
            "emit",
            "--route",
            "orders",
            "--type",
            "order.placed",
            "--payload",
            r#"{"order_id": 42, "total": "19.90", "nested": {"z": 1, "a": [1.5, "x"]}}"#,
            "--ordering-key",
            "order-42",
            "--correlation-id",
            "0190c4e2-8a6c-7e4a-9b1e-000000000001",
            "--propagate-trace",
            "--traceparent",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        ],
    );
    assert_eq!(r.code, OK, "{r:?}");
    emit(&db, 40, None, &[]);
    let stored = docs(&db, doc! { "ordering_key": "order-42" }).await;
    assert!(
        matches!(stored[0].get("_id"), Some(Bson::ObjectId(_))),
        "MongoDB assigns _id; the row id is the string field id"
    );
    assert!(stored[0].get_str("id").is_ok() && stored[0].get_str("event_id").is_ok());
    assert!(matches!(
        stored[0].get("occurred_at"),
        Some(Bson::DateTime(_))
    ));
    let path = out_file("mongo_relay_basic");
    let r = cmd(
        &db,
        &[
            "relay",
            "--once",
            "--route",
            "orders",
            "--to",
            &format!("file:{}", path.display()),
            "--propagate-trace",
            "--format",
            "json",
        ],
    );
    assert_eq!(r.code, OK, "{r:?}");
    let got = lines(&path);
    assert_eq!(got.len(), 41);
    let raw = std::fs::read_to_string(&path).unwrap();
    assert!(
        raw.lines().next().unwrap().contains(
            r#""payload":{"order_id":42,"total":"19.90","nested":{"z":1,"a":[1.5,"x"]}}"#
        ),
        "document order kept: {raw}"
    );
    assert_eq!(
        got[0]["headers"]["traceparent"], "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "forze drops it on MongoDB; outboxctl does not"
    );
    assert_eq!(
        got[0]["headers"]["forze_correlation_id"],
        "0190c4e2-8a6c-7e4a-9b1e-000000000001"
    );
    let occurred = got[0]["headers"]["forze_occurred_at"].as_str().unwrap();
    assert!(
        occurred.ends_with("000+00:00") || !occurred.contains('.'),
        "millisecond precision as 6 digits: {occurred}"
    );
    let published = docs(&db, doc! { "status": "published", "published_at": { "$ne": Bson::Null }, "last_error": Bson::Null }).await;
    assert_eq!(published.len(), 41);
}

#[tokio::test]
async fn hlc_order_sorts_missing_hlc_first_on_mongo() {
    let db = setup("mongo_hlc_order", &["--hlc-ordering"]).await;
    emit(&db, 5, None, &["--hlc-ordering"]);
    let coll = db.db().collection::<Document>("outbox");
    // two legacy documents without hlc, staged last
    emit(&db, 2, Some("legacy"), &[]);
    let legacy: Vec<String> = docs(&db, doc! { "ordering_key": "legacy" })
        .await
        .iter()
        .map(|d| d.get_str("event_id").unwrap().to_owned())
        .collect();
    coll.update_many(
        doc! { "ordering_key": "legacy" },
        doc! { "$unset": { "hlc": "" } },
    )
    .await
    .unwrap();
    let path = out_file("mongo_hlc_order");
    let r = cmd(
        &db,
        &[
            "relay",
            "--once",
            "--route",
            "orders",
            "--to",
            &format!("file:{}", path.display()),
            "--hlc-ordering",
        ],
    );
    assert_eq!(r.code, OK, "{r:?}");
    let got = lines(&path);
    let first_two: HashSet<String> = got[..2]
        .iter()
        .map(|l| l["event_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        first_two,
        legacy.into_iter().collect(),
        "missing hlc sorts first on MongoDB"
    );
    let stamps: Vec<&str> = got[2..]
        .iter()
        .map(|l| l["headers"]["forze_hlc"].as_str().unwrap())
        .collect();
    assert!(stamps.windows(2).all(|w| w[0] < w[1]));
    // the claim reads an index, not the collection
    let plan = db
        .db()
        .run_command(doc! {
            "explain": { "find": "outbox", "filter": { "outbox_route": "orders", "status": "pending", "$or": [ { "available_at": Bson::Null }, { "available_at": { "$lte": mongodb::bson::DateTime::now() } } ] },
                         "sort": { "hlc": 1, "created_at": 1, "id": 1 }, "limit": 100, "projection": { "_id": 1 } },
            "verbosity": "queryPlanner",
        })
        .await
        .unwrap();
    let text = plan.to_string();
    assert!(
        !text.contains("COLLSCAN") && text.contains("IXSCAN"),
        "{text}"
    );
}

#[tokio::test]
async fn retries_park_after_max_attempts_then_requeue_and_inspect() {
    let db = setup("mongo_retries", &[]).await;
    emit(&db, 3, None, &[]);
    let cfg = std::env::temp_dir()
        .join("outboxctl-tests")
        .join(format!("{}.yaml", db.name));
    std::fs::write(&cfg, "relay:\n  max_attempts: 2\n").unwrap();
    let cfg = cfg.to_str().unwrap();
    let coll = db.db().collection::<Document>("outbox");
    for pass in 1..=2 {
        let r = cmd(
            &db,
            &[
                "relay",
                "--once",
                "--route",
                "orders",
                "--to",
                "file:/dev/full",
                "--config",
                cfg,
            ],
        );
        assert_eq!(r.code, if pass == 1 { 0 } else { 1 }, "{r:?}");
        coll.update_many(doc! {}, doc! { "$set": { "available_at": Bson::Null } })
            .await
            .unwrap();
    }
    let failed = docs(&db, doc! { "status": "failed", "attempts": 1 }).await;
    assert_eq!(failed.len(), 3);
    assert!(
        failed[0]
            .get_str("last_error")
            .unwrap()
            .contains("No space left")
    );
    let r = cmd(&db, &["inspect", "--format", "json"]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        (v[0]["failed"].as_i64(), v[0]["pending_ripe"].as_i64()),
        (Some(3), Some(0)),
        "{r:?}"
    );
    let r = cmd(
        &db,
        &[
            "inspect",
            "failed",
            "--format",
            "jsonl",
            "--error-contains",
            "No space",
        ],
    );
    assert_eq!(r.stdout.lines().count(), 3, "{r:?}");
    let first_id = failed[0].get_str("id").unwrap().to_owned();
    let r = cmd(&db, &["requeue", "--yes", "--id", &first_id]);
    assert_eq!(r.code, OK, "{r:?}");
    let back = docs(&db, doc! { "id": &first_id }).await;
    assert_eq!(
        (
            back[0].get_str("status").unwrap(),
            back[0].get_i32("attempts").unwrap()
        ),
        ("pending", 0)
    );
    let r = cmd(&db, &["discard", "--yes", "--all"]);
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(docs(&db, doc! {}).await.len(), 1);
    let r = cmd(
        &db,
        &["inspect", "event", back[0].get_str("event_id").unwrap()],
    );
    assert!(r.stdout.contains("pending"), "{r:?}");
}

#[tokio::test]
async fn reclaim_returns_stale_processing_documents() {
    let db = setup("mongo_reclaim", &[]).await;
    emit(&db, 2, None, &[]);
    let coll = db.db().collection::<Document>("outbox");
    let stale = mongodb::bson::DateTime::from_millis(
        mongodb::bson::DateTime::now().timestamp_millis() - 600_000,
    );
    coll.update_many(
        doc! {},
        doc! { "$set": { "status": "processing", "processing_at": stale, "attempts": 2 } },
    )
    .await
    .unwrap();
    let r = on(&db, &RELAY_TO_NOWHERE).args(["--format", "json"]).run();
    assert_eq!(r.code, OK, "{r:?}");
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        (v[0]["reclaimed"].as_u64(), v[0]["published"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(
        docs(&db, doc! { "status": "published", "attempts": 2 })
            .await
            .len(),
        2,
        "reclaim leaves attempts alone"
    );
}

#[tokio::test]
async fn kill_9_loses_nothing_and_duplicates_at_most_a_chunk() {
    let db = setup("mongo_kill9", &[]).await;
    emit(&db, 8000, None, &[]);
    let path = out_file("mongo_kill9");
    let cfg = std::env::temp_dir()
        .join("outboxctl-tests")
        .join(format!("{}.yaml", db.name));
    std::fs::write(
        &cfg,
        "relay:\n  reclaim_stale_after: 1ms\n  interval: 100ms\n",
    )
    .unwrap();
    let cfg = cfg.to_str().unwrap().to_owned();
    for _ in 0..2 {
        let mut child = spawn_relay(&db, "--once", &path, &["--config", &cfg]);
        let target = count_lines(&path) + 1000;
        wait_until(Duration::from_secs(60), "deliveries", || {
            count_lines(&path) >= target
        })
        .await;
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before the kill"
        );
        child.kill().unwrap();
        child.wait().unwrap();
    }
    // the killed relay's last update may still land after it is gone: a loop reclaims each tick
    let mut child = spawn_relay(&db, "--loop", &path, &["--config", &cfg]);
    let coll = db.db().collection::<Document>("outbox");
    all_delivered(&coll, Duration::from_secs(120)).await;
    std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(child.wait().unwrap().success());
    let mut seen: HashMap<String, usize> = HashMap::new();
    for l in lines(&path) {
        *seen
            .entry(l["event_id"].as_str().unwrap().to_owned())
            .or_default() += 1;
    }
    assert_eq!(seen.len(), 8000, "nothing lost");
    let dups: usize = seen.values().map(|n| n - 1).sum();
    assert!(dups <= 2 * 32, "{dups} duplicates after 2 kills");
}

#[tokio::test]
async fn the_relay_keeps_working_across_a_mongod_restart() {
    let own = own_mongod("own_mongod", 27100, false);
    let port = own.port;
    own.start();
    own.primary().await;
    let url = format!("mongodb://127.0.0.1:{port}/?replicaSet=rsr");
    let run_own = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend([
            "--database-url",
            &url,
            "--collection",
            "restart.outbox",
            "--connect-timeout",
            "3s",
        ]);
        ob(&all).run()
    };
    assert_eq!(run_own(&["migrate", "-q"]).code, OK);
    let emit_100 = || {
        let r = run_own(&[
            "emit",
            "-q",
            "--route",
            "orders",
            "--type",
            "t",
            "--payload",
            "{}",
            "--count",
            "100",
        ]);
        assert_eq!(r.code, OK, "{r:?}");
    };
    emit_100();
    let path = out_file("mongo_restart");
    let cfg = std::env::temp_dir()
        .join("outboxctl-tests")
        .join("mongo_restart.yaml");
    std::fs::write(&cfg, "relay:\n  interval: 100ms\n  retry_max_backoff: 1s\n").unwrap();
    let relay = ob([
        "relay",
        "--loop",
        "--database-url",
        &url,
        "--collection",
        "restart.outbox",
        "--route",
        "orders",
        "--connect-timeout",
        "3s",
        "--to",
        &format!("file:{}", path.display()),
    ])
    .config(&cfg)
    .spawn(None);
    across_a_restart(&own, &path, 100, emit_100, relay).await;
}

/// Waits for the relay to deliver `batch` events, restarts mongod, stages `batch` more with
/// `emit`, and checks that every event arrived exactly once.
async fn across_a_restart(
    own: &OwnMongod,
    path: &std::path::Path,
    batch: usize,
    emit: impl Fn(),
    relay: crate::common::KillOnDrop,
) {
    wait_until(Duration::from_secs(30), "the first events", || {
        count_lines(path) >= batch
    })
    .await;
    own.stop();
    wait_until(Duration::from_secs(30), "mongod to stop", || {
        !own.port_open()
    })
    .await;
    own.start();
    own.primary().await;
    emit();
    wait_until(
        Duration::from_secs(60),
        "the events staged after the restart",
        || count_lines(path) >= 2 * batch,
    )
    .await;
    assert!(relay.terminate().success(), "the relay stopped cleanly");
    let ids: HashSet<String> = lines(&path.to_path_buf())
        .iter()
        .map(|l| l["event_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 2 * batch, "each event once across the restart");
}

/// `relay.wake: notify` on MongoDB across a mongod restart: the change stream resumes (from its
/// token) and inserts wake the relay again; its interval is an hour, so polling cannot be what
/// delivers them.
#[tokio::test]
async fn the_change_stream_wakes_the_relay_again_after_a_mongod_restart() {
    let own = own_mongod("own_mongod_wake", 28000, false);
    let port = own.port;
    own.start();
    own.primary().await;
    let url = format!("mongodb://127.0.0.1:{port}/?replicaSet=rsr");
    let base = [
        "--database-url",
        url.as_str(),
        "--collection",
        "wake.outbox",
        "--connect-timeout",
        "3s",
    ];
    let emit_10 = || {
        crate::common::emit_events("orders", 10, "{}")
            .args(base)
            .code(OK);
    };
    ob(["migrate", "-q"]).args(base).code(OK);
    let path = out_file("mongo_wake_restart");
    let log = out_file("mongo_wake_restart-log");
    let cfg = crate::common::config_file(
        "mongo_wake_restart",
        "relay:\n  interval: 1h\n  wake: notify\n",
    );
    let relay = ob(["relay", "--loop", "--route", "orders"])
        .args(["--to", &format!("file:{}", path.display())])
        .args(base)
        .config(&cfg)
        .spawn(Some(&log));
    crate::common::own_server::wait_log(&log, "following a change stream", 1).await;
    emit_10();
    across_a_restart(&own, &path, 10, emit_10, relay).await;
}

/// One document that cannot be read (`occurred_at` stored as a string) is parked by `_id` with
/// the reason; the rest of its claim goes out in the same run instead of waiting for reclaim.
#[tokio::test]
async fn an_undecodable_document_is_parked_and_the_rest_of_its_claim_is_relayed() {
    let db = setup("mongo_poison_doc", &[]).await;
    emit(&db, 10, None, &[]);
    let coll = db.db().collection::<Document>("outbox");
    let poisoned = coll
        .find_one(doc! {})
        .sort(doc! { "created_at": 1 })
        .await
        .unwrap()
        .unwrap();
    coll.update_one(
        doc! { "_id": poisoned.get("_id").unwrap() },
        doc! { "$set": { "occurred_at": "yesterday" } },
    )
    .await
    .unwrap();
    let path = out_file("mongo_poison_doc");
    let to = format!("file:{}", path.display());
    let r = cmd(&db, &["relay", "--once", "--route", "orders", "--to", &to]);
    assert_eq!(r.code, CHECK_FAILED, "a parked document: exit 1 {r:?}");
    assert_eq!(lines(&path).len(), 9, "{r:?}");
    let parked = docs(&db, doc! { "status": "failed" }).await;
    assert_eq!(parked.len(), 1);
    assert_eq!(parked[0].get("_id"), poisoned.get("_id"));
    assert!(
        parked[0]
            .get_str("last_error")
            .unwrap()
            .contains("undecodable document"),
        "{parked:?}"
    );
    assert!(
        docs(&db, doc! { "status": { "$in": ["pending", "processing"] } })
            .await
            .is_empty()
    );
    // the operator sees it, with why, and can act on it
    let id = poisoned.get_str("id").unwrap();
    let r = cmd(&db, &["inspect", "failed", "--format", "json"]);
    assert_eq!(r.code, OK, "{r:?}");
    let listed: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(listed[0]["id"], id, "{listed}");
    assert!(
        listed[0]["last_error"]
            .as_str()
            .unwrap()
            .contains("undecodable document"),
        "{listed}"
    );
    let r = cmd(&db, &["inspect", "failed", "--group"]);
    assert_eq!(r.code, OK, "{r:?}");
    let r = cmd(&db, &["discard", "--id", id, "--yes"]);
    assert_eq!(r.code, OK, "{r:?}");
    assert!(docs(&db, doc! { "status": "failed" }).await.is_empty());
    // parked documents whose id is not a UUID cannot be named: left out and said (they were
    // listed under the nil id, counted, then reported "left" by a run that changed nothing)
    let now = mongodb::bson::DateTime::now();
    for id in ["not-a-uuid", "nor-this"] {
        let event_id = uuid::Uuid::new_v4().to_string();
        let bad = doc! { "id": id, "outbox_route": "orders", "event_id": event_id, "status": "failed", "created_at": now };
        coll.insert_one(bad).await.unwrap();
    }
    emit(&db, 1, None, &[]);
    coll.update_many(
        doc! { "status": "pending" },
        doc! { "$set": { "status": "failed" } },
    )
    .await
    .unwrap();
    let all = [
        "discard", "--all", "--route", "orders", "--yes", "--format", "json",
    ];
    let r = cmd(&db, &all);
    assert_eq!(r.code, OK, "{r:?}");
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["count"], 1, "{r:?}");
    assert!(v.get("left").is_none(), "nothing left by another: {r:?}");
    assert!(
        r.stderr
            .contains("2 failed row(s) have an id that is not a UUID"),
        "{r:?}"
    );
    assert_eq!(docs(&db, doc! { "status": "failed" }).await.len(), 2);
    // by their group too: nothing changed is not a success (it said "1 row(s)", exit 0)
    let r = cmd(&db, &["inspect", "failed", "--group", "--format", "json"]);
    let groups: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let group = groups[0]["id"].as_str().expect("a group").to_owned();
    let r = cmd(&db, &["requeue", "--group", &group, "--yes"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(r.stderr.contains("have an id that is not a UUID"), "{r:?}");
    assert_eq!(docs(&db, doc! { "status": "failed" }).await.len(), 2);
}

/// A claim cut short after its update hands its documents back: the read of the claim fails (a
/// `failCommand` failpoint on a mongod of the test's own lets the candidates' `find` through
/// and fails the next), and no document is left `processing` to wait for reclaim.
#[tokio::test]
async fn a_claim_cut_short_after_its_update_leaves_nothing_processing() {
    use outboxctl::store::mongo::MongoStore;
    use outboxctl::store::mongo::ops::MongoOps;
    use outboxctl::store::ops::OpsStore;
    use outboxctl::store::{PassTarget, RelayStore};
    let (_own, client) = own_primary("own_mongod_claim_cut", 29800).await;
    let opts = super::ops::outbox_options("own", false);
    let mut ops = MongoOps::new(client.clone(), opts.clone(), None);
    let events: Vec<_> = (0..3).map(|_| super::ops::new_event()).collect();
    ops.stage(&events, "n").await.unwrap();
    let data = || doc! { "failCommands": ["find"], "errorCode": 2, "errmsg": "a failpoint" };
    // the first find (the candidates) goes through; every one after fails
    fail_command(&client, Bson::Document(doc! { "skip": 1 }), data()).await;
    let mut store = MongoStore::new(&client, opts);
    let target = PassTarget {
        route: "orders".into(),
        tenant: None,
    };
    let claimed = store.claim(&target, 10, chrono::Utc::now()).await;
    fail_command(&client, Bson::String("off".into()), data()).await;
    let error = claimed.map(|c| c.rows.len()).unwrap_err().to_string();
    assert!(error.contains("reading the claim"), "{error}");
    let outbox = client.database("own").collection::<Document>("outbox");
    let statuses: Vec<String> = outbox
        .find(doc! {})
        .await
        .unwrap()
        .try_collect::<Vec<_>>()
        .await
        .unwrap()
        .iter()
        .map(|d| d.get_str("status").unwrap().to_owned())
        .collect();
    assert_eq!(statuses, ["pending"; 3], "the claim's documents went back");
}

/// The relay reads from the primary whatever the URL's `readPreference` asks: its claim read
/// back from a secondary could miss the documents it just claimed (left processing until
/// reclaim), and strict order would judge from a lagging copy. On this one-node replica set a
/// URL asking for secondaries once failed every pass (no secondary to read from).
#[tokio::test]
async fn a_url_asking_for_secondaries_still_claims_from_the_primary() {
    let db = setup(test_name!(), &[]).await;
    emit(&db, 10, None, &[]);
    let base = mongo_url();
    let join = if base.contains('?') { '&' } else { '?' };
    let url = format!("{base}{join}readPreference=secondary");
    let r = ob(RELAY_TO_NOWHERE)
        .args(["--connect-timeout", "2s", "--database-url", &url])
        .args(["--collection", &format!("{}.outbox", db.name)])
        .run();
    assert_eq!(r.code, OK, "{r:?}");
    let left = docs(&db, doc! { "status": { "$ne": "published" } }).await;
    assert!(left.is_empty(), "{left:?}");
}

/// A release hands back only what the claim made at its time still holds: a document
/// reclaimed and claimed again by another relay meanwhile (its `processing_at` later) stays
/// that relay's.
#[tokio::test]
async fn a_release_leaves_a_document_another_relay_claimed_since() {
    use outboxctl::store::mongo::MongoStore;
    use outboxctl::store::{PassTarget, RelayStore};
    let db = setup(test_name!(), &[]).await;
    emit(&db, 3, None, &[]);
    let mut store = MongoStore::new(&db.client, super::ops::outbox_options(&db.name, false));
    let target = PassTarget {
        route: "orders".into(),
        tenant: None,
    };
    let at = chrono::Utc::now();
    let claimed = store.claim(&target, 10, at).await.unwrap().rows;
    assert_eq!(claimed.len(), 3);
    let later = mongodb::bson::DateTime::from_millis(
        (at + chrono::Duration::minutes(6)).timestamp_millis(),
    );
    let theirs = claimed[2].id.to_string();
    let coll = db.db().collection::<Document>("outbox");
    coll.update_one(
        doc! { "id": &theirs },
        doc! { "$set": { "processing_at": later } },
    )
    .await
    .unwrap();
    let ids: Vec<uuid::Uuid> = claimed.iter().map(|r| r.id).collect();
    assert_eq!(store.release(&target, &ids, at).await.unwrap(), 2);
    let processing = docs(&db, doc! { "status": "processing" }).await;
    let ids: Vec<&str> = processing
        .iter()
        .map(|d| d.get_str("id").unwrap())
        .collect();
    assert_eq!(ids, [theirs.as_str()]);
    assert_eq!(docs(&db, doc! { "status": "pending" }).await.len(), 2);
}
