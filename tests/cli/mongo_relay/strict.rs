//! Strict key order on MongoDB: keys held back behind failed or foreign rows, scoped by tenant, in HLC order.

use super::*;

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

/// A document another writer left with no date in `created_at` sorts first in claim order:
/// the relay parks it (it cannot be read) and, under strict order, holds the later rows of
/// its key back in that pass and every pass after, while other keys go out; `inspect blocked`
/// lists the key behind it.
#[tokio::test]
async fn strict_key_order_holds_back_a_key_behind_a_document_without_a_date() {
    let db = setup(test_name!(), &["--key-order", "strict"]).await;
    emit(&db, 3, Some("a"), &[]);
    emit(&db, 2, Some("c"), &[]);
    let head = set_first(&db, "a", doc! { "created_at": "2026-12-01T10:00:00Z" }).await;
    let path = out_file(test_name!());
    let to = format!("file:{}", path.display());
    for pass in 0..2 {
        let r = strict_relay_once(&db, &to).run();
        let parked_now = if pass == 0 { CHECK_FAILED } else { OK };
        assert_eq!(r.code, parked_now, "pass {pass}: {r:?}");
        let keys: Vec<String> = lines(&path)
            .iter()
            .map(|l| l["key"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(keys, ["c", "c"], "pass {pass}: a's later rows wait");
    }
    let parked = docs(&db, doc! { "status": "failed" }).await;
    assert_eq!(parked.len(), 1, "{parked:?}");
    assert_eq!(parked[0].get("_id"), head.get("_id"));
    let waiting = docs(&db, doc! { "ordering_key": "a", "status": "pending" }).await;
    assert_eq!(waiting.len(), 2, "a's later rows wait, untouched");
    assert!(
        waiting
            .iter()
            .all(|d| d.get_i32("attempts").unwrap_or(0) == 0)
    );
    let r = cmd(&db, &["inspect", "blocked", "--format", "json"]);
    assert_eq!(r.code, OK, "{r:?}");
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        (v[0]["ordering_key"].as_str(), v[0]["waiting"].as_i64()),
        (Some("a"), Some(2)),
        "{v}"
    );
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
    let r = strict_relay_once(&db, &to).args(["--hlc-ordering"]).run();
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

/// One claim of up to `limit` rows of route `orders` by a strict store of its own (in HLC
/// order with `hlc`), as a relay's pass makes it.
async fn strict_claim(
    db: &MongoDb,
    hlc: bool,
    limit: u32,
) -> Result<outboxctl::store::Claimed, outboxctl::store::StoreError> {
    let mut opts = super::ops::outbox_options(&db.name, hlc);
    opts.key_order = outboxctl::model::KeyOrder::Strict;
    let mut store = outboxctl::store::mongo::MongoStore::new(&db.client, opts);
    let target = outboxctl::store::PassTarget {
        route: "orders".into(),
        tenant: None,
    };
    outboxctl::store::RelayStore::claim(&mut store, &target, limit, chrono::Utc::now()).await
}

/// Strict key order reads each key through its own index. Without any key index (a
/// collection migrated without `--key-order strict`) a relay is refused at start, naming the
/// index and the migration, and claims nothing; a claim that meets it missing fails with the
/// same words and hands its documents back; doctor fails the check. With the key index an
/// earlier outboxctl made (every document, by the same keys) the relay runs on it and warns,
/// and doctor warns, until `migrate --key-order strict` adds the partial one.
#[tokio::test]
async fn strict_key_order_without_its_index_is_refused_at_start() {
    let db = setup("mongo_strict_no_index", &[]).await;
    emit(&db, 3, Some("k"), &[]);
    let path = out_file("mongo_strict_no_index");
    let to = format!("file:{}", path.display());
    let r = strict_relay_once(&db, &to).run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(
        r.stderr.contains("outbox_key_order_unpublished")
            && r.stderr.contains("outboxctl migrate --key-order strict"),
        "{r:?}"
    );
    assert_eq!(docs(&db, doc! { "status": "pending" }).await.len(), 3);
    let claim = strict_claim(&db, false, 10).await;
    let error = claim.map(|c| c.rows.len()).unwrap_err().to_string();
    assert!(
        error.contains("outboxctl migrate --key-order strict"),
        "{error}"
    );
    assert_eq!(
        docs(&db, doc! { "status": "pending" }).await.len(),
        3,
        "handed back"
    );
    let doctor = |db: &MongoDb| {
        let r = cmd(db, &["doctor", "--format", "json", "--key-order", "strict"]);
        let v: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {r:?}"));
        doctor_check(&v, "key order index")["level"].clone()
    };
    assert_eq!(doctor(&db), "fail");
    // the key index an earlier outboxctl made: every document, by the same keys
    let older = mongodb::IndexModel::builder()
        .keys(doc! { "outbox_route": 1, "ordering_key": 1, "created_at": 1 })
        .build();
    let coll = db.db().collection::<Document>("outbox");
    coll.create_index(older).await.unwrap();
    assert_eq!(doctor(&db), "warn");
    emit(&db, 2, Some("k"), &[]);
    let r = strict_relay_once(&db, &to).run();
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        r.stderr
            .contains("outbox_route_1_ordering_key_1_created_at_1"),
        "{r:?}"
    );
    assert_eq!(lines(&path).len(), 5);
    assert_eq!(
        cmd(&db, &["migrate", "-q", "--key-order", "strict"]).code,
        OK
    );
    assert_eq!(doctor(&db), "ok");
    emit(&db, 1, Some("k"), &[]);
    let r = strict_relay_once(&db, &to).run();
    assert_eq!(r.code, OK, "{r:?}");
    assert!(!r.stderr.contains("holds every document"), "{r:?}");
    assert_eq!(lines(&path).len(), 6);
}

/// Under HLC order strict order's check reads each claimed key through the key index in HLC
/// order, and only up to the latest claimed document: a key's backlog is not read on every
/// claim. On a collection that has only the key index in `created_at` order (migrated without
/// `--hlc-ordering`) a strict HLC relay still runs, reading the backlog, and warns, as doctor
/// does, naming the migration that ends it.
#[tokio::test]
async fn strict_hlc_order_reads_each_key_only_up_to_its_latest_claimed() {
    let db = setup("mongo_strict_hlc_bound", &["--key-order", "strict"]).await;
    let coll = db.db().collection::<Document>("outbox");
    let base = chrono::Utc::now().timestamp_millis() - 3_600_000;
    // two keys in turn, 300 documents each, hlc and created_at rising together
    let staged: Vec<Document> = (0..600i64)
        .map(|i| {
            doc! {
                "id": uuid::Uuid::now_v7().to_string(), "outbox_route": "orders",
                "event_id": uuid::Uuid::now_v7().to_string(), "event_type": "order.placed",
                "tenant_id": Bson::Null, "payload": { "n": i }, "status": "pending",
                "occurred_at": mongodb::bson::DateTime::from_millis(base + i),
                "created_at": mongodb::bson::DateTime::from_millis(base + i),
                "attempts": 0, "available_at": Bson::Null,
                "ordering_key": format!("k{}", i % 2), "hlc": (base + i) << 16,
            }
        })
        .collect();
    coll.insert_many(staged).await.unwrap();
    let doctor = |db: &MongoDb| {
        let args = [
            "doctor",
            "--format",
            "json",
            "--key-order",
            "strict",
            "--hlc-ordering",
        ];
        let r = cmd(db, &args);
        let v: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {r:?}"));
        doctor_check(&v, "key order index").clone()
    };
    let check = doctor(&db);
    assert_eq!(check["level"], "warn", "{check}");
    let message = check["detail"].as_str().unwrap_or_default();
    assert!(
        message.contains("not in HLC order")
            && message.contains("outboxctl migrate --key-order strict --hlc-ordering")
            && message.contains("outbox_key_order_hlc_unpublished"),
        "{check}"
    );
    // a relay (of a route with nothing to send) starts on it, and says so
    let relay = [
        "relay",
        "--once",
        "--key-order",
        "strict",
        "--hlc-ordering",
        "--route",
        "refunds",
        "--to",
        "file:/dev/null",
    ];
    let r = cmd(&db, &relay);
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        r.stderr.contains("not in HLC order") && r.stderr.contains("--hlc-ordering"),
        "{r:?}"
    );
    let migrate = ["migrate", "-q", "--key-order", "strict", "--hlc-ordering"];
    assert_eq!(cmd(&db, &migrate).code, OK);
    let r = cmd(&db, &relay);
    assert_eq!(r.code, OK, "{r:?}");
    assert!(!r.stderr.contains("not in HLC order"), "{r:?}");
    assert_eq!(doctor(&db)["level"], "ok");

    // every operation on the test's database is recorded while the store claims once
    let database = db.db();
    let profile = |level: i32| database.run_command(doc! { "profile": level });
    profile(2).await.unwrap();
    let claimed = strict_claim(&db, true, 10).await.unwrap();
    profile(0).await.unwrap();
    assert_eq!(
        claimed.rows.len(),
        10,
        "the first 10 in HLC order, none held back"
    );
    let checks: Vec<Document> = database
        .collection::<Document>("system.profile")
        .find(doc! { "command.hint": "outbox_key_order_hlc_unpublished" })
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(
        checks.len(),
        1,
        "one check, through the HLC key index: {checks:?}"
    );
    let examined = checks[0]
        .get_i64("docsExamined")
        .or_else(|_| checks[0].get_i32("docsExamined").map(i64::from));
    // the 10 claimed (up to the latest), not the keys' 600 documents
    assert_eq!(examined, Ok(10), "{:?}", checks[0]);
}

/// Strict order's check after the claim reads one key's documents while other relays move
/// them. Key K has 100 published documents, then A, then B. Another relay keeps taking A and
/// handing it back (`processing` under its token, then `pending`) while this store claims. A
/// is never published, so no claim may keep B without A. The mongod yields (going on from
/// fresh data) after every document a query reads and waits 1 ms there, so a check that is not
/// one snapshot, scanning by status, can see A in neither state: it passes `pending` while A is
/// `processing`, and `processing` once A is `pending` again (16 claims in 60 did, when the
/// check was an aggregation the planner read through the status index).
#[tokio::test]
async fn strict_check_sees_an_earlier_document_that_moves_while_it_reads() {
    use outboxctl::store::mongo::MongoStore;
    use outboxctl::store::{PassTarget, RelayStore};
    let (own, client) = own_primary("own_mongod_moving", 30300).await;
    let url = format!("mongodb://127.0.0.1:{}/?directConnection=true", own.port);
    let r = ob(["migrate", "-q", "--key-order", "strict"])
        .args(["--database-url", &url, "--collection", "own.outbox"])
        .run();
    assert_eq!(r.code, OK, "{r:?}");
    let outbox = client.database("own").collection::<Document>("outbox");
    let at = mongodb::bson::DateTime::now().timestamp_millis();
    let document = |n: i64, status: &str| {
        doc! {
            "id": uuid::Uuid::now_v7().to_string(),
            "event_id": uuid::Uuid::now_v7().to_string(),
            "outbox_route": "orders",
            "event_type": "t",
            "payload": "{}",
            "ordering_key": "K",
            "tenant_id": Bson::Null,
            "occurred_at": mongodb::bson::DateTime::from_millis(at),
            "created_at": mongodb::bson::DateTime::from_millis(at + n),
            "status": status,
            "attempts": 0,
            "available_at": Bson::Null,
        }
    };
    let mut docs: Vec<Document> = (0..100).map(|n| document(n, "published")).collect();
    let (a, b) = (document(100, "pending"), document(101, "pending"));
    let (a_id, b_id) = (
        a.get_str("id").unwrap().to_owned(),
        b.get_str("id").unwrap().to_owned(),
    );
    docs.extend([a, b]);
    outbox.insert_many(docs).await.unwrap();
    let admin = client.database("admin");
    admin
        .run_command(doc! { "setParameter": 1, "internalQueryExecYieldIterations": 1 })
        .await
        .unwrap();
    admin
        .run_command(doc! {
            "configureFailPoint": "setYieldAllLocksWait",
            "mode": "alwaysOn",
            "data": { "namespace": "own.outbox", "waitForMillis": 1 },
        })
        .await
        .unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let other = {
        let (outbox, stop, a_id) = (outbox.clone(), stop.clone(), a_id.clone());
        tokio::spawn(async move {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                // takes A only while it is pending, and hands back only what it took
                let take = (
                    doc! { "id": &a_id, "status": "pending" },
                    doc! { "status": "processing", "claim_token": "another-relay", "processing_at": mongodb::bson::DateTime::now() },
                );
                let hand_back = (
                    doc! { "id": &a_id, "status": "processing", "claim_token": "another-relay" },
                    doc! { "status": "pending", "processing_at": Bson::Null },
                );
                for (filter, set) in [take, hand_back] {
                    outbox
                        .update_one(filter, doc! { "$set": set })
                        .await
                        .unwrap();
                }
            }
        })
    };
    let mut opts = super::ops::outbox_options("own", false);
    opts.key_order = outboxctl::model::KeyOrder::Strict;
    let mut store = MongoStore::new(&client, opts);
    let target = PassTarget {
        route: "orders".into(),
        tenant: None,
    };
    let (mut kept_b_alone, mut calls) = (0, 0);
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while calls < 60 && std::time::Instant::now() < deadline {
        calls += 1;
        let at = chrono::Utc::now();
        let rows = store.claim(&target, 10, at).await.unwrap().rows;
        let ids: Vec<String> = rows.iter().map(|r| r.id.to_string()).collect();
        if ids.contains(&b_id) && !ids.contains(&a_id) {
            kept_b_alone += 1;
        }
        if !rows.is_empty() {
            let all: Vec<uuid::Uuid> = rows.iter().map(|r| r.id).collect();
            store.release(&target, &all, at).await.unwrap();
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    other.await.unwrap();
    assert!(calls >= 20, "only {calls} claims in 15 s: too few to tell");
    assert_eq!(
        kept_b_alone, 0,
        "claims that kept B while A was another relay's or pending, of {calls}"
    );
}
