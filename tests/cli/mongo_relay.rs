//! MongoDB parity on a real replica set: relay, inspect, requeue, emit, the HLC checkpoint,
//! strict key order with several relays, kill -9.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use futures_util::TryStreamExt;
use mongodb::bson::{Bson, Document, doc};
use serde_json::Value;

use crate::common::{
    CHECK_FAILED, ERROR, MongoDb, OK, Ob, RELAY_TO_NOWHERE, group_counts, lines, mongo_url, ob,
    out_file,
};
use crate::common::{OwnMongod, own_mongod, wait_until};

fn cmd(db: &MongoDb, args: &[&str]) -> crate::common::Run {
    on(db, args).run()
}

/// `args` on the test database's outbox.
fn on(db: &MongoDb, args: &[&str]) -> Ob {
    ob(args).mongo(&format!("{}.outbox", db.name))
}

/// `relay --once` of route `orders` under strict key order, to `to`.
fn strict_relay_once(db: &MongoDb, to: &str) -> Ob {
    on(
        db,
        &[
            "relay",
            "--once",
            "--key-order",
            "strict",
            "--route",
            "orders",
            "--to",
            to,
        ],
    )
}

async fn setup(test: &str, extra: &[&str]) -> MongoDb {
    let db = MongoDb::new(test).await;
    let mut args = vec!["migrate", "-q"];
    args.extend_from_slice(extra);
    let r = cmd(&db, &args);
    assert_eq!(r.code, OK, "{r:?}");
    db
}

fn emit(db: &MongoDb, n: u32, key: Option<&str>, extra: &[&str]) {
    let count = n.to_string();
    let mut args = vec![
        "emit",
        "-q",
        "--route",
        "orders",
        "--type",
        "order.placed",
        "--payload",
        r#"{"order_id": 42, "total": "19.90"}"#,
        "--count",
        &count,
    ];
    if let Some(k) = key {
        args.extend(["--ordering-key", k]);
    }
    args.extend_from_slice(extra);
    let r = cmd(db, &args);
    assert_eq!(r.code, OK, "{r:?}");
}

/// Waits until no document is pending or processing.
async fn all_delivered(coll: &mongodb::Collection<Document>, limit: Duration) {
    crate::common::eventually(limit, "every document delivered", async || {
        let left = coll
            .count_documents(doc! { "status": { "$in": ["pending", "processing"] } })
            .await
            .unwrap();
        if left == 0 {
            Ok(())
        } else {
            Err(format!("{left} left"))
        }
    })
    .await
}

/// Parks the first document (in `created_at, id` order) of `key`; returns it.
async fn park_first(db: &MongoDb, key: &str, error: &str) -> Document {
    let coll = db.db().collection::<Document>("outbox");
    let head = coll
        .find_one(doc! { "ordering_key": key })
        .sort(doc! { "created_at": 1, "id": 1 })
        .await
        .unwrap()
        .unwrap();
    coll.update_one(
        doc! { "_id": head.get("_id").unwrap() },
        doc! { "$set": { "status": "failed", "last_error": error } },
    )
    .await
    .unwrap();
    head
}

async fn docs(db: &MongoDb, filter: Document) -> Vec<Document> {
    db.db()
        .collection::<Document>("outbox")
        .find(filter)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

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
async fn two_emitters_on_one_node_key_keep_the_higher_mark() {
    use outboxctl::store::mongo::MongoStoreOptions;
    use outboxctl::store::mongo::ops::MongoOps;
    use outboxctl::store::ops::{NewEvent, OpsStore};
    let db = setup("mongo_checkpoint", &["--hlc-ordering"]).await;
    let opts = MongoStoreOptions {
        collection: outboxctl::target::CollectionName::new("c", &db.name, "outbox").unwrap(),
        hlc_ordering: true,
        propagate_trace: false,
        tenant_aware: false,
        key_order: outboxctl::model::KeyOrder::BestEffort,
    };
    let cp = outboxctl::target::CollectionName::new("c", &db.name, "hlc_checkpoint").unwrap();
    let event = || NewEvent {
        id: uuid::Uuid::now_v7(),
        event_id: uuid::Uuid::now_v7(),
        route: "orders".into(),
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
    // Many concurrent emitters on one node key: each commits (retrying write conflicts), and
    // the mark ends at the highest stamp any of them committed.
    let mut tasks = Vec::new();
    for _ in 0..6 {
        let mut ops = MongoOps::new(db.client.clone(), opts.clone(), Some(cp.clone()));
        let batch: Vec<NewEvent> = (0..5).map(|_| event()).collect();
        tasks.push(tokio::spawn(async move {
            ops.stage(&batch, "shared").await.unwrap()
        }));
    }
    let mut max_stamp = String::new();
    for t in tasks {
        for s in t.await.unwrap() {
            assert!(s.inserted);
            max_stamp = max_stamp.max(s.hlc.unwrap());
        }
    }
    let mark = db
        .db()
        .collection::<Document>("hlc_checkpoint")
        .find_one(doc! { "_id": "shared" })
        .await
        .unwrap()
        .unwrap();
    let mark = outboxctl::hlc::HlcTimestamp::unpack(mark.get_i64("hlc").unwrap()).unwrap();
    assert_eq!(mark.encode(), max_stamp);
    // a lower $max never lowers it
    db.db()
        .collection::<Document>("hlc_checkpoint")
        .update_one(doc! { "_id": "shared" }, doc! { "$max": { "hlc": 5i64 } })
        .await
        .unwrap();
    let again = db
        .db()
        .collection::<Document>("hlc_checkpoint")
        .find_one(doc! { "_id": "shared" })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again.get_i64("hlc").unwrap(), mark.pack());
    assert_eq!(docs(&db, doc! {}).await.len(), 30);
}

fn spawn_relay(
    db: &MongoDb,
    mode: &str,
    path: &std::path::Path,
    extra: &[&str],
) -> std::process::Child {
    ob(["relay", mode, "--route", "orders"])
        .mongo(&format!("{}.outbox", db.name))
        .args(["--to", &format!("file:{}", path.display())])
        .args(extra)
        .spawn_piped()
}

fn count_lines(path: &std::path::Path) -> usize {
    std::fs::read(path)
        .map(|b| b.iter().filter(|&&c| c == b'\n').count())
        .unwrap_or(0)
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
async fn four_relays_with_strict_key_order_deliver_once_in_key_order() {
    let db = setup("mongo_four_strict", &["--key-order", "strict"]).await;
    for k in 0..20 {
        emit(&db, 25, Some(&format!("k{k}")), &[]);
    }
    // interleave keys in staging order: re-stamp created_at so keys alternate
    let coll = db.db().collection::<Document>("outbox");
    let all = docs(&db, doc! {}).await;
    let mut by_key: HashMap<String, Vec<Document>> = HashMap::new();
    for d in all {
        by_key
            .entry(d.get_str("ordering_key").unwrap().to_owned())
            .or_default()
            .push(d);
    }
    let base = mongodb::bson::DateTime::now().timestamp_millis();
    for (k, ds) in &by_key {
        let kn: i64 = k[1..].parse().unwrap();
        for (i, d) in ds.iter().enumerate() {
            let at = mongodb::bson::DateTime::from_millis(base + (i as i64) * 20 + kn);
            coll.update_one(
                doc! { "_id": d.get("_id").unwrap() },
                doc! { "$set": { "created_at": at, "seq": i as i64 } },
            )
            .await
            .unwrap();
        }
    }
    let path = out_file("mongo_four_strict");
    let cfg = std::env::temp_dir()
        .join("outboxctl-tests")
        .join(format!("{}.yaml", db.name));
    std::fs::write(&cfg, "relay:\n  interval: 50ms\n  max_claim_rows: 30\n").unwrap();
    let cfg = cfg.to_str().unwrap().to_owned();
    let mut relays: Vec<_> = (0..4)
        .map(|_| {
            spawn_relay(
                &db,
                "--loop",
                &path,
                &["--config", &cfg, "--key-order", "strict"],
            )
        })
        .collect();
    all_delivered(&coll, Duration::from_secs(90)).await;
    for r in &relays {
        std::process::Command::new("kill")
            .args(["-TERM", &r.id().to_string()])
            .status()
            .unwrap();
    }
    for r in &mut relays {
        assert!(r.wait().unwrap().success());
    }
    let got = lines(&path);
    assert_eq!(got.len(), 500, "each event exactly once");
    let seqs: HashMap<String, i64> = docs(&db, doc! {})
        .await
        .iter()
        .map(|d| {
            (
                d.get_str("event_id").unwrap().to_owned(),
                d.get_i64("seq").unwrap(),
            )
        })
        .collect();
    let mut last: HashMap<String, i64> = HashMap::new();
    for l in &got {
        let (key, seq) = (
            l["key"].as_str().unwrap().to_owned(),
            seqs[l["event_id"].as_str().unwrap()],
        );
        if let Some(prev) = last.insert(key.clone(), seq) {
            assert!(prev < seq, "key {key}: {seq} after {prev}");
        }
    }
}

#[test]
fn consume_and_delivery_log_are_refused_on_mongo() {
    let r = ob([
        "relay",
        "--once",
        "--database-url",
        &mongo_url(),
        "--storage",
        "consume",
        "--route",
        "x",
    ])
    .run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("PostgreSQL-only"), "{r:?}");
    let r = ob([
        "inspect",
        "--database-url",
        &mongo_url(),
        "--delivery-log",
        "a.b",
    ])
    .run();
    assert_eq!(r.code, ERROR, "{r:?}");
}

#[tokio::test]
async fn doctor_on_mongo_checks_indexes_plans_and_rows() {
    let db = setup("mongo_doctor", &[]).await;
    emit(&db, 3, None, &[]);
    let r = cmd(&db, &["doctor", "--format", "json"]);
    assert_eq!(r.code, OK, "{r:?}");
    let coll = db.db().collection::<Document>("outbox");
    coll.update_one(doc! {}, doc! { "$set": { "status": "failed" } })
        .await
        .unwrap();
    coll.drop_index("outbox_route_1_status_1_available_at_1_created_at_1")
        .await
        .unwrap();
    let r = cmd(&db, &["doctor", "--format", "json"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
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
    assert_eq!(level("transactions"), "ok");
}

#[tokio::test]
async fn the_summary_counts_read_indexes() {
    let db = setup("mongo_summary_plans", &[]).await;
    emit(&db, 50, None, &[]);
    let now = mongodb::bson::DateTime::now();
    for query in [
        doc! { "outbox_route": "orders", "status": "pending", "available_at": { "$gt": now } },
        doc! { "outbox_route": "orders", "status": "processing" },
        doc! { "outbox_route": "orders", "status": "failed" },
        doc! { "outbox_route": "orders", "status": "pending", "$or": [ { "available_at": Bson::Null }, { "available_at": { "$lte": now } } ] },
    ] {
        let plan = db.db().run_command(doc! { "explain": { "count": "outbox", "query": query.clone() }, "verbosity": "queryPlanner" }).await.unwrap();
        let text = plan.to_string();
        assert!(!text.contains("COLLSCAN"), "{query}: {text}");
    }
}

#[tokio::test]
async fn emit_with_a_checkpoint_on_a_standalone_server_says_it_needs_a_replica_set() {
    let own = own_mongod("own_mongod_standalone", 27600, true);
    own.start();
    wait_until(
        Duration::from_secs(30),
        "standalone mongod to listen",
        || own.port_open(),
    )
    .await;
    let url = format!(
        "mongodb://127.0.0.1:{}/?directConnection=true&retryWrites=false",
        own.port
    );
    let base = [
        "--database-url",
        url.as_str(),
        "--collection",
        "solo.outbox",
        "--hlc-ordering",
    ];
    let r = ob([&["migrate", "-q"][..], &base].concat()).run();
    assert_eq!(r.code, OK, "{r:?}");
    let r = ob([
        &[
            "emit",
            "--route",
            "r",
            "--type",
            "t",
            "--payload",
            "{}",
            "--hlc-checkpoint",
            "solo.hlc_checkpoint",
        ][..],
        &base,
    ]
    .concat())
    .run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(
        r.stderr.contains("replica set") && r.stderr.contains("standalone"),
        "{r:?}"
    );
    let r = ob([&["doctor", "--format", "json"][..], &base].concat()).run();
    assert!(r.stdout.contains("standalone"), "{r:?}");
    // without a checkpoint there is nothing to keep atomic: staging works
    let r = ob([
        &[
            "emit",
            "-q",
            "--route",
            "r",
            "--type",
            "t",
            "--payload",
            "{}",
        ][..],
        &base,
    ]
    .concat())
    .run();
    assert_eq!(r.code, OK, "{r:?}");
    // no change streams on a standalone server: the looping relay says so and polls
    let cfg = crate::common::config_file(
        "own_mongod_standalone_wake",
        "relay:\n  wake: notify\n  interval: 50ms\n  routes:\n    r:\n      to: file:/dev/null\n",
    );
    let log = out_file("own_mongod_standalone_wake");
    let _relay = ob([&["relay", "--loop", "--config", &cfg][..], &base].concat()).spawn(Some(&log));
    crate::common::own_server::wait_log(&log, "change streams need a replica set", 1).await;
    crate::common::own_server::wait_log(&log, "polling every 50ms", 1).await;
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

/// Strict key order on MongoDB in one process: a key whose first row is `failed`, or held by
/// another relay's claim, keeps its later rows back; other keys go out.
#[tokio::test]
async fn strict_key_order_holds_back_keys_behind_a_failed_or_foreign_row() {
    let db = setup("mongo_strict_hold", &["--key-order", "strict"]).await;
    for key in ["a", "b", "c"] {
        emit(&db, 3, Some(key), &[]);
    }
    let coll = db.db().collection::<Document>("outbox");
    let first = |key: &'static str| {
        let coll = coll.clone();
        async move {
            coll.find_one(doc! { "ordering_key": key })
                .sort(doc! { "created_at": 1, "id": 1 })
                .await
                .unwrap()
                .unwrap()
        }
    };
    let a = first("a").await;
    coll.update_one(
        doc! { "_id": a.get("_id").unwrap() },
        doc! { "$set": { "status": "failed", "last_error": "parked" } },
    )
    .await
    .unwrap();
    let b = first("b").await;
    coll.update_one(
        doc! { "_id": b.get("_id").unwrap() },
        doc! { "$set": {
            "status": "processing",
            "claim_token": "another-relay",
            "processing_at": mongodb::bson::DateTime::now(),
        } },
    )
    .await
    .unwrap();
    let path = out_file("mongo_strict_hold");
    let to = format!("file:{}", path.display());
    let r = strict_relay_once(&db, &to).run();
    assert_eq!(r.code, OK, "{r:?}");
    let keys: Vec<String> = lines(&path)
        .iter()
        .map(|l| l["key"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(keys, ["c", "c", "c"], "only the free key went out");
    let waiting = docs(
        &db,
        doc! { "ordering_key": { "$in": ["a", "b"] }, "status": "pending" },
    )
    .await;
    assert_eq!(waiting.len(), 4, "a's and b's later rows wait, untouched");
    assert!(
        waiting
            .iter()
            .all(|d| d.get_i32("attempts").unwrap_or(0) == 0)
    );
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
}

/// Staging an event id that is already staged, with the HLC checkpoint (one transaction on
/// the replica set): deduplicated and reported as such, instead of a duplicate-key error that
/// aborts the transaction and fails the command.
#[tokio::test]
async fn emit_with_a_checkpoint_deduplicates_an_event_id_already_staged() {
    let db = setup("mongo_emit_dup", &["--hlc-ordering"]).await;
    let cp = format!("{}.hlc_checkpoint", db.name);
    let event = uuid::Uuid::now_v7().to_string();
    let args = [
        "emit",
        "--format",
        "json",
        "--route",
        "orders",
        "--type",
        "order.placed",
        "--payload",
        "{}",
        "--event-id",
        &event,
        "--hlc-ordering",
        "--hlc-checkpoint",
        &cp,
    ];
    let first = cmd(&db, &args);
    assert_eq!(first.code, OK, "{first:?}");
    let v: Value = serde_json::from_str(&first.stdout).unwrap();
    assert_eq!(
        (v["staged"].as_u64(), v["deduplicated"].as_u64()),
        (Some(1), Some(0))
    );
    let again = cmd(&db, &args);
    assert_eq!(again.code, OK, "{again:?}");
    let v: Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(
        (v["staged"].as_u64(), v["deduplicated"].as_u64()),
        (Some(0), Some(1)),
        "{again:?}"
    );
    assert_eq!(docs(&db, doc! { "event_id": &event }).await.len(), 1);
}

/// One stuck key does not stop the route: key K's head is parked, 150 more K documents wait
/// behind it at the head of the queue, then 50 of key L. The claim skips K's rows at the scan,
/// so L goes out and `--once` ends, instead of claiming and handing back K's rows forever.
#[tokio::test]
async fn strict_key_order_a_stuck_key_does_not_stop_the_route() {
    let db = setup("mongo_strict_stuck", &["--key-order", "strict"]).await;
    emit(&db, 151, Some("K"), &[]);
    emit(&db, 50, Some("L"), &[]);
    park_first(&db, "K", "parked").await;
    let path = out_file("mongo_strict_stuck");
    let to = format!("file:{}", path.display());
    let relay = strict_relay_once(&db, &to).run_async();
    let r = tokio::time::timeout(Duration::from_secs(60), relay)
        .await
        .expect("relay --once ends");
    assert_eq!(r.code, OK, "{r:?}");
    let keys: Vec<String> = lines(&path)
        .iter()
        .map(|l| l["key"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(keys, vec!["L".to_owned(); 50], "L flows, K waits");
    let waiting = docs(&db, doc! { "ordering_key": "K", "status": "pending" }).await;
    assert_eq!(waiting.len(), 150, "K's rows wait, untouched");
    assert!(docs(&db, doc! { "status": "processing" }).await.is_empty());
}

/// Keys are scoped by tenant on MongoDB too, and with HLC ordering "earlier" is the claim
/// order: a reaction with a higher hlc but an earlier `created_at` waits behind its parked cause.
#[tokio::test]
async fn strict_key_order_on_mongo_scopes_keys_by_tenant_and_follows_hlc_order() {
    let db = setup(
        "mongo_strict_hlc",
        &["--key-order", "strict", "--hlc-ordering"],
    )
    .await;
    let coll = db.db().collection::<Document>("outbox");
    let (a, b) = (
        "0190c4e2-8a6c-7e4a-9b1e-00000000000a",
        "0190c4e2-8a6c-7e4a-9b1e-00000000000b",
    );
    let now = chrono::Utc::now();
    let row = |n: i32, status: &str, key: &str, tenant: Option<&str>, hlc: i64, ago_s: i64| {
        doc! {
            "id": uuid::Uuid::now_v7().to_string(), "outbox_route": "orders",
            "event_id": uuid::Uuid::now_v7().to_string(), "event_type": format!("t{n}"),
            "tenant_id": tenant.map_or(Bson::Null, |t| Bson::String(t.into())),
            "occurred_at": mongodb::bson::DateTime::from_millis(now.timestamp_millis()),
            "payload": { "n": n }, "status": status, "attempts": 0,
            "created_at": mongodb::bson::DateTime::from_millis((now - chrono::Duration::seconds(ago_s)).timestamp_millis()),
            "available_at": Bson::Null, "ordering_key": key, "hlc": hlc,
        }
    };
    coll.insert_many([
        row(1, "failed", "k", None, 100, 0),     // the cause, parked
        row(2, "pending", "k", None, 200, 3600), // its reaction: later hlc, earlier created_at
        row(3, "failed", "order-42", Some(a), 300, 20),
        row(4, "pending", "order-42", Some(b), 400, 10), // another tenant's order-42
    ])
    .await
    .unwrap();
    let path = out_file("mongo_strict_hlc");
    let to = format!("file:{}", path.display());
    let r = cmd(
        &db,
        &[
            "relay",
            "--once",
            "--key-order",
            "strict",
            "--hlc-ordering",
            "--route",
            "orders",
            "--to",
            &to,
        ],
    );
    assert_eq!(r.code, OK, "{r:?}");
    let types: Vec<String> = lines(&path)
        .iter()
        .map(|l| l["type"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        types,
        ["t4"],
        "only tenant b's order-42 goes; the reaction waits"
    );
}

/// `inspect blocked` on MongoDB: the key behind a parked document, with its backlog.
#[tokio::test]
async fn inspect_blocked_on_mongo_lists_the_stuck_key() {
    let db = setup("mongo_blocked", &["--key-order", "strict"]).await;
    emit(&db, 4, Some("K"), &[]);
    emit(&db, 2, Some("L"), &[]);
    park_first(&db, "K", "refused").await;
    let r = cmd(&db, &["inspect", "blocked", "--format", "json"]);
    assert_eq!(r.code, OK, "{r:?}");
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let keys = v.as_array().unwrap();
    assert_eq!(keys.len(), 1, "{v}");
    assert_eq!(
        (
            keys[0]["ordering_key"].as_str(),
            keys[0]["waiting"].as_i64()
        ),
        (Some("K"), Some(3))
    );
    assert_eq!(keys[0]["head"]["last_error"], "refused");
}

/// Failure groups on MongoDB: the same ids as on PostgreSQL for the same errors, retrying
/// documents with --retrying, and requeue of exactly a group's documents.
#[tokio::test]
async fn failure_groups_on_mongo_match_postgres_ids_and_requeue_their_documents() {
    let db = setup(test_name!(), &[]).await;
    emit(&db, 7, None, &[]);
    let coll = db.db().collection::<Document>("outbox");
    let all = docs(&db, doc! {}).await;
    for (i, d) in all.iter().enumerate() {
        let (status, attempts, error) = match i {
            0..=3 => (
                "failed",
                5,
                format!("HTTP 503 from 10.0.0.{i}:8080 after {i}.5s"),
            ),
            4 | 5 => (
                "failed",
                1,
                format!("order {} refused: 'no stock'", uuid::Uuid::now_v7()),
            ),
            _ => (
                "pending",
                2,
                "HTTP 502 from 10.9.9.9:80 after 20ms (+1 more)".to_owned(),
            ),
        };
        let mut set = doc! { "status": status, "attempts": attempts, "last_error": error };
        if status == "pending" {
            set.insert("available_at", mongodb::bson::DateTime::now());
        }
        coll.update_one(doc! { "_id": d.get("_id").unwrap() }, doc! { "$set": set })
            .await
            .unwrap();
    }
    let http = outboxctl::failure_groups::fingerprint("HTTP 1 from 1.2.3.4:1 after 1s");
    let refused = outboxctl::failure_groups::fingerprint(
        "order 0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e refused: 'sold out'",
    );
    let groups = cmd(&db, &["inspect", "failed", "--group", "--format", "json"]).json();
    assert_eq!(
        group_counts(&groups),
        [(http.clone(), 4), (refused.clone(), 2)],
        "{groups}"
    );
    let groups = cmd(
        &db,
        &[
            "inspect",
            "failed",
            "--group",
            "--retrying",
            "--format",
            "json",
        ],
    )
    .json();
    assert_eq!(
        (groups[0]["id"].as_str(), groups[0]["count"].as_i64()),
        (Some(http.as_str()), Some(5))
    );
    let r = cmd(
        &db,
        &["requeue", "--group", &refused, "--yes", "--format", "json"],
    );
    assert_eq!((r.code, r.json()["count"].as_i64()), (OK, Some(2)), "{r:?}");
    let failed = docs(&db, doc! { "status": "failed" }).await;
    assert_eq!(failed.len(), 4, "only the HTTP group is left parked");
    assert!(
        failed
            .iter()
            .all(|d| d.get_str("last_error").unwrap().starts_with("HTTP 503"))
    );
}
