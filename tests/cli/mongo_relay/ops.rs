//! Operator commands on MongoDB: emit with a checkpoint, doctor, summary, inspect blocked, failure groups.

use super::*;

/// An event to stage, of route `orders`.
pub(super) fn new_event() -> outboxctl::store::ops::NewEvent {
    outboxctl::store::ops::NewEvent {
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
    }
}

/// The store options of `db.outbox`.
pub(super) fn outbox_options(
    db: &str,
    hlc_ordering: bool,
) -> outboxctl::store::mongo::MongoStoreOptions {
    outboxctl::store::mongo::MongoStoreOptions {
        collection: outboxctl::target::CollectionName::new("c", db, "outbox").unwrap(),
        hlc_ordering,
        propagate_trace: false,
        tenant_aware: false,
        key_order: outboxctl::model::KeyOrder::BestEffort,
    }
}

#[tokio::test]
async fn two_emitters_on_one_node_key_keep_the_higher_mark() {
    use outboxctl::store::mongo::ops::MongoOps;
    use outboxctl::store::ops::{NewEvent, OpsStore};
    let db = setup("mongo_checkpoint", &["--hlc-ordering"]).await;
    let opts = outbox_options(&db.name, true);
    let cp = outboxctl::target::CollectionName::new("c", &db.name, "hlc_checkpoint").unwrap();
    let event = new_event;
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
    assert_eq!(docs(&db, doc! {}).await.len(), 30);
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
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doctor_check(&v, "claim token index")["level"], "ok");
    assert_eq!(doctor_check(&v, "claim order index")["level"], "ok");
    assert_eq!(doctor_check(&v, "event key")["level"], "ok");
    // without its unique key a duplicate event is staged (and published) again
    coll.drop_index("outbox_route_1_event_id_1").await.unwrap();
    coll.create_index(
        mongodb::IndexModel::builder()
            .keys(doc! { "event_id": 1, "outbox_route": 1 })
            .build(),
    )
    .await
    .unwrap();
    coll.drop_index("outbox_route_1_status_1_created_at_1_id_1")
        .await
        .unwrap();
    coll.drop_index("outbox_route_1_status_1_available_at_1_created_at_1")
        .await
        .unwrap();
    coll.drop_index("claim_token_1").await.unwrap();
    let r = cmd(&db, &["doctor", "--format", "json"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let level = |name: &str| doctor_check(&v, name)["level"].clone();
    assert_eq!(level("claim index"), "fail");
    assert_eq!(level("claim token index"), "fail");
    assert_eq!(level("claim order index"), "warn");
    assert_eq!(level("event key"), "fail", "not unique: {v}");
    assert_eq!(level("failed rows"), "warn");
    assert_eq!(level("transactions"), "ok");
}

/// Every query `inspect` (the summary) sends reads through an index: the server's profiler
/// records each one with its plan.
#[tokio::test]
async fn the_summary_counts_read_indexes() {
    let db = setup("mongo_summary_plans", &[]).await;
    emit(&db, 50, None, &[]);
    db.db().run_command(doc! { "profile": 2 }).await.unwrap();
    let r = cmd(&db, &["inspect", "--format", "json"]);
    db.db().run_command(doc! { "profile": 0 }).await.unwrap();
    assert_eq!(r.code, OK, "{r:?}");
    let ns = format!("{}.outbox", db.name);
    let ops: Vec<Document> = (db.db().collection::<Document>("system.profile"))
        .find(doc! { "ns": &ns })
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let plans: Vec<&str> = (ops.iter())
        .filter_map(|o| o.get_str("planSummary").ok())
        .collect();
    // routes, the attempts, six counts and two first dates at least
    assert!(plans.len() >= 9, "{ops:?}");
    assert!(plans.iter().all(|p| !p.contains("COLLSCAN")), "{plans:?}");
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
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doctor_check(&v, "transactions")["level"], "warn");
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
    // a head the relay parked because it could not read it (occurred_at gone bad) is listed
    // the same: blocked reads its place from the document as it is
    let coll = db.db().collection::<Document>("outbox");
    let set = doc! { "$set": { "occurred_at": "yesterday" } };
    coll.update_one(doc! { "status": "failed" }, set)
        .await
        .unwrap();
    let r = cmd(&db, &["inspect", "blocked", "--format", "json"]);
    assert_eq!(r.code, OK, "{r:?}");
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        (v[0]["ordering_key"].as_str(), v[0]["waiting"].as_i64()),
        (Some("K"), Some(3)),
        "{v}"
    );
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
                "HTTP 503 from 10.9.9.9:80 after 20ms (+1 more)".to_owned(),
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
    let http = outboxctl::ops::failure_groups::fingerprint("HTTP 503 from 1.2.3.4:1 after 1s");
    let refused = outboxctl::ops::failure_groups::fingerprint(
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

/// Staging's write faults, made by failpoints on a mongod of the test's own. A commit whose
/// result is unknown (the server committed, then answered with a write concern error) is tried
/// again, the commit alone: the events count as staged, with the stamps they were stored with,
/// not as duplicates of themselves found by a second run of the transaction. An insert met by
/// duplicates and a write concern error fails instead of reporting only the duplicates.
#[tokio::test]
async fn staging_takes_no_write_concern_fault_for_duplicates() {
    use outboxctl::store::mongo::ops::MongoOps;
    use outboxctl::store::ops::{NewEvent, OpsStore};
    use outboxctl::target::CollectionName;
    let (_own, client) = own_primary("own_mongod_commit", 29300).await;
    let db = client.database("own");
    for c in ["outbox", "hlc_checkpoint"] {
        db.create_collection(c).await.unwrap();
    }
    // the specification's dedupe index: staging an event again meets it
    let unique = mongodb::IndexModel::builder()
        .keys(doc! { "outbox_route": 1, "event_id": 1 })
        .options(
            mongodb::options::IndexOptions::builder()
                .unique(true)
                .build(),
        )
        .build();
    db.collection::<Document>("outbox")
        .create_index(unique)
        .await
        .unwrap();
    // twice: the driver retries a commit once by itself, and meets it again
    write_concern_fails(&client, "commitTransaction").await;
    let opts = outbox_options("own", true);
    let cp = CollectionName::new("c", "own", "hlc_checkpoint").unwrap();
    let mut ops = MongoOps::new(client.clone(), opts, Some(cp));
    let event = new_event();
    let staged = ops.stage(std::slice::from_ref(&event), "n").await.unwrap();
    assert!(
        staged[0].inserted,
        "counted as a duplicate of itself: {staged:?}"
    );
    let stored = db
        .collection::<Document>("outbox")
        .find(doc! {})
        .await
        .unwrap()
        .try_collect::<Vec<_>>()
        .await
        .unwrap();
    assert_eq!(stored.len(), 1);
    let hlc = outboxctl::hlc::HlcTimestamp::unpack(stored[0].get_i64("hlc").unwrap()).unwrap();
    assert_eq!(Some(hlc.encode()), staged[0].hlc, "the stamp stored");
    // without a checkpoint: an insert met by duplicates and a write concern error fails, rather
    // than reporting the duplicates alone as if the rest were safely written
    write_concern_fails(&client, "insert").await;
    let opts = outbox_options("own", false);
    let mut plain = MongoOps::new(client.clone(), opts, None);
    let again = NewEvent {
        id: uuid::Uuid::now_v7(),
        ..event.clone()
    };
    let fresh = NewEvent {
        id: uuid::Uuid::now_v7(),
        event_id: uuid::Uuid::now_v7(),
        ..event.clone()
    };
    let staged = plain.stage(&[again, fresh], "n").await;
    assert!(
        staged
            .as_ref()
            .is_err_and(|e| e.to_string().starts_with("staging")),
        "{staged:?}"
    );
}

/// The next two `command`s run, then answer with a write concern error (twice: the driver
/// retries such a write once by itself, and meets it again).
async fn write_concern_fails(client: &mongodb::Client, command: &str) {
    let data = doc! {
        "failCommands": [command],
        "writeConcernError": { "code": 91, "errmsg": "shutting down (a failpoint)" },
    };
    fail_command(client, Bson::Document(doc! { "times": 2 }), data).await;
}

/// `emit` in HLC order without a checkpoint (one transaction) on a server that closes the
/// connection on every insert: exit 3 (the database went away), as elsewhere. Its insert error
/// used to be rewrapped as text, losing the driver's kind: exit 2.
#[tokio::test]
async fn emit_whose_inserts_lose_the_connection_exits_3() {
    let (own, client) = own_primary("own_mongod_emit_lost", 30800).await;
    let url = format!("mongodb://127.0.0.1:{}/?replicaSet=rsr", own.port);
    let on = ["--database-url", &url, "--collection", "own.outbox"];
    ob(["migrate", "-q", "--hlc-ordering"]).args(on).code(OK);
    let data = doc! { "failCommands": ["insert"], "closeConnection": true };
    fail_command(&client, Bson::String("alwaysOn".into()), data).await;
    let r = crate::common::emit_events("orders", 1, "{}")
        .args(on)
        .args(["--hlc-ordering", "--connect-timeout", "2s"])
        .run();
    assert_eq!(r.code, crate::common::CONNECT, "{r:?}");
    fail_command(&client, Bson::String("off".into()), doc! {}).await;
}

/// `discard --save` on MongoDB: the documents deleted in one transaction, each kept whole (as
/// relaxed extended JSON, its payload too) before the transaction commits; a copy that cannot be
/// written (a full disk: /dev/full) deletes nothing.
#[tokio::test]
async fn discard_on_mongo_keeps_each_document_before_deleting_it() {
    let test = test_name!();
    let db = setup(test, &[]).await;
    emit(&db, 2, Some("k"), &[]);
    let coll = db.db().collection::<Document>("outbox");
    coll.update_many(
        doc! {},
        doc! { "$set": { "status": "failed", "last_error": "x" } },
    )
    .await
    .unwrap();
    let r = cmd(&db, &["discard", "--all", "--yes", "--save", "/dev/full"]);
    assert_eq!(r.code, ERROR, "{r:?}");
    assert_eq!(
        docs(&db, doc! { "status": "failed" }).await.len(),
        2,
        "nothing deleted"
    );
    let copy = crate::common::out_file(test).with_extension("jsonl");
    let _ = std::fs::remove_file(&copy);
    let save = copy.display().to_string();
    let r = cmd(&db, &["discard", "--all", "--yes", "--save", &save]);
    assert_eq!(r.code, OK, "{r:?}");
    assert!(docs(&db, doc! {}).await.is_empty(), "discarded");
    let kept = crate::common::lines(&copy);
    assert_eq!(kept.len(), 2, "{kept:?}");
    for d in &kept {
        assert_eq!(d["payload"]["order_id"], 42, "{d}");
        assert_eq!(
            (d["status"].as_str(), d.get("_id")),
            (Some("failed"), None),
            "{d}"
        );
    }
    std::fs::remove_file(&copy).unwrap();
}

/// A checkpoint document whose mark is not a 64-bit integer (a double, a string: BSON sorts
/// them at or above every 64-bit mark) stops `emit` and `hlc show` with exit 2, naming it and
/// staging nothing: the max read back as no mark at all, and new events were stamped from the
/// wall clock, behind events staged before them. A mark at the top of the range stops `emit`
/// too.
#[tokio::test]
async fn a_checkpoint_mark_that_is_not_64_bits_stops_emit_and_hlc_show() {
    let test = test_name!();
    let db = setup(test, &["--hlc-ordering"]).await;
    let cp = format!("{}.hlc_checkpoint", db.name);
    let emit_one = [
        "emit",
        "--route",
        "orders",
        "--type",
        "t",
        "--payload",
        "{}",
        "--hlc-ordering",
        "--hlc-checkpoint",
        &cp,
    ];
    assert_eq!(cmd(&db, &emit_one).code, OK);
    let coll = db.db().collection::<Document>("hlc_checkpoint");
    for bad in [Bson::Double(1.8e17), Bson::String("garbage".into())] {
        coll.insert_one(doc! { "_id": "bad", "hlc": bad.clone() })
            .await
            .unwrap();
        let r = cmd(&db, &emit_one);
        assert_eq!(r.code, ERROR, "{bad}: {r:?}");
        assert!(
            r.stderr
                .contains("holds a mark that is not a 64-bit integer (_id \"bad\""),
            "{r:?}"
        );
        assert_eq!(docs(&db, doc! {}).await.len(), 1, "{bad}: nothing staged");
        let r = cmd(&db, &["hlc", "show", "--hlc-checkpoint", &cp]);
        assert_eq!(r.code, ERROR, "{bad}: {r:?}");
        assert!(r.stderr.contains("not a 64-bit integer"), "{r:?}");
        let r = cmd(&db, &["doctor", "--hlc-ordering", "--hlc-checkpoint", &cp]);
        assert_eq!(r.code, CHECK_FAILED, "{bad}: {r:?}");
        assert!(r.stdout.contains("not a 64-bit integer"), "{r:?}");
        coll.delete_one(doc! { "_id": "bad" }).await.unwrap();
    }
    // the last mark a 64-bit integer holds: no stamp follows it (one packed negative, first in
    // claim order)
    coll.insert_one(doc! { "_id": "top", "hlc": i64::MAX })
        .await
        .unwrap();
    let r = cmd(&db, &emit_one);
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("no hlc stamp can follow"), "{r:?}");
    assert_eq!(docs(&db, doc! {}).await.len(), 1, "nothing staged");
    coll.delete_one(doc! { "_id": "top" }).await.unwrap();
    assert_eq!(cmd(&db, &emit_one).code, OK);
    assert_eq!(docs(&db, doc! {}).await.len(), 2);
}

/// An outbox collection that is not there: `doctor` says so once and `replay` as every other
/// command does (doctor listed its indexes as missing and its claim plan as fine; replay gave
/// the driver's `ns does not exist … (NamespaceNotFound, code 26)`).
#[tokio::test]
async fn a_missing_collection_is_named_by_doctor_and_replay() {
    let db = MongoDb::new(test_name!()).await;
    let r = cmd(&db, &["doctor"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(
        r.stdout.contains("does not exist; run outboxctl migrate"),
        "{r:?}"
    );
    assert!(!r.stdout.contains("claim plan"), "{r:?}");
    let r = cmd(&db, &["replay", "--route", "orders", "--dry-run"]);
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(
        r.stderr
            .contains("does not exist; create it with `outboxctl migrate`"),
        "{r:?}"
    );
}

/// A document another transaction holds: `requeue` and `discard` wait 2 s for it, then exit 4
/// saying so and changing nothing (they waited in silence for as long as the transaction
/// lived, up to its minute).
#[tokio::test]
async fn a_document_another_transaction_holds_is_waited_for_then_named() {
    let db = setup(test_name!(), &[]).await;
    emit(&db, 1, Some("k"), &[]);
    let coll = db.db().collection::<Document>("outbox");
    let failed = doc! { "$set": { "status": "failed", "last_error": "x" } };
    coll.update_many(doc! {}, failed).await.unwrap();
    let mut session = db.client.start_session().await.unwrap();
    session.start_transaction().await.unwrap();
    (coll.update_many(doc! {}, doc! { "$set": { "attempts": 9 } }))
        .session(&mut session)
        .await
        .unwrap();
    for args in [["requeue", "--all", "--yes"], ["discard", "--all", "--yes"]] {
        let r = cmd(&db, &args);
        assert_eq!(r.code, crate::common::LOCK_BUSY, "{args:?}: {r:?}");
        assert!(r.stderr.contains("is held by another transaction"), "{r:?}");
    }
    session.abort_transaction().await.unwrap();
    let left = docs(&db, doc! { "status": "failed", "attempts": 0 }).await;
    assert_eq!(left.len(), 1, "nothing changed");
}
