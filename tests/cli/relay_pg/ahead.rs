//! Claiming ahead (`relay.claim_ahead`): a second connection claims a route's next batch while
//! a pass delivers its own. Searched for counterexamples with a seeded destination that fails
//! publishes at random: the relay claiming ahead must publish exactly what the relay claiming
//! after each pass publishes, each key's rows in the same order, and leave the table the same.
//!
//! `OUTBOXCTL_AHEAD_SEED` runs one seed; `OUTBOXCTL_AHEAD_SEEDS` (default 2) random ones;
//! `OUTBOXCTL_AHEAD_EVENTS` rows per seed (default 300). A failure prints its seed.

use std::collections::HashMap;
use std::sync::Mutex;

use outboxctl::relay::Relay;

use super::*;

fn events() -> i64 {
    std::env::var("OUTBOXCTL_AHEAD_EVENTS")
        .map(|s| s.parse().expect("OUTBOXCTL_AHEAD_EVENTS is a number"))
        .unwrap_or(300)
}

/// Whether the `attempt`th publish of `event` fails under `seed`: about one in ten, the same
/// in every run of the seed.
fn fails(seed: u64, event: uuid::Uuid, attempt: usize) -> bool {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (seed, event, attempt).hash(&mut h);
    h.finish() % 10 == 0
}

/// What one relay run published (each key's `n`s in publish order) and how many passes took
/// rows claimed ahead.
type Published = (HashMap<String, Vec<i64>>, usize);

/// Drains a route through `first` (claiming ahead on `second`, if given), the destination
/// failing as `seed` says and retries due at once, until a drain claims nothing.
async fn drain<S: RelayStore>(first: S, second: Option<S>, seed: u64) -> Published {
    let attempts: Mutex<HashMap<uuid::Uuid, usize>> = Mutex::default();
    let flaky = Flaky::new(move |m, _| {
        let mut seen = attempts.lock().unwrap();
        let attempt = seen.entry(m.event_id).or_insert(0);
        *attempt += 1;
        fails(seed, m.event_id, *attempt).then(|| PublishError::transient("broker busy"))
    });
    let mut s = settings(Storage::Retain);
    s.max_claim_rows = 10;
    s.retry_base_delay = Duration::ZERO;
    let sink = Sink::Publisher(flaky.clone());
    let mut relay = Relay::single(first, vec![(target(), sink)], s);
    relay.lanes[0].ahead = second;
    let mut took_ahead = 0;
    for drains in 1.. {
        assert!(
            drains <= 100,
            "seed {seed}: rows still claimed after 100 drains"
        );
        let on_pass = |_: &PassTarget, r: &outboxctl::relay::engine::PassReport| {
            took_ahead += usize::from(r.claimed_ahead);
        };
        let stats = relay.drain_once(None, on_pass).await;
        let s = &stats[0];
        assert_eq!(s.failed_passes, 0, "seed {seed}: {:?}", s.last_error);
        if s.claimed == 0 {
            break;
        }
    }
    let mut by_key: HashMap<String, Vec<i64>> = HashMap::new();
    for m in flaky.published.lock().unwrap().iter() {
        let n: Value = serde_json::from_str(m.payload.get()).unwrap();
        let key = m.ordering_key.clone().unwrap_or_default();
        by_key
            .entry(key)
            .or_default()
            .push(n["n"].as_i64().unwrap());
    }
    (by_key, took_ahead)
}

/// Each row's `(n, status, attempts)` at the end.
type Rows = Vec<(i64, String, i32)>;

/// Compares the run claiming ahead (`got`) with the run claiming after (`expected`).
fn compare(seed: u64, expected: (Published, Rows), got: (Published, Rows)) {
    let said = format!("seed {seed}; run again with OUTBOXCTL_AHEAD_SEED={seed}");
    let retried = expected.1.iter().filter(|(_, _, a)| *a > 0).count();
    assert!(
        retried > 0,
        "{said}: no publish failed, nothing was searched"
    );
    assert_eq!(
        expected.0.1, 0,
        "{said}: claimed ahead without a second connection"
    );
    assert!(got.0.1 > 0, "{said}: no pass took rows claimed ahead");
    assert_eq!(got.1, expected.1, "{said}: the rows ended differently");
    assert_eq!(
        got.0.0, expected.0.0,
        "{said}: a key's rows went in another order"
    );
    let left = expected.1.iter().chain(&got.1);
    let left = left.filter(|r| r.1 == "processing" || r.1 == "pending");
    assert_eq!(left.count(), 0, "{said}: a row was left claimed or pending");
}

/// The PostgreSQL outbox's rows at the end.
async fn pg_rows(conn: &mut PgConnection, schema: &PgSchema) -> Rows {
    sqlx::query_as(&format!(
        "SELECT (payload->>'n')::bigint, status, attempts FROM {} ORDER BY 1",
        schema.rel("outbox")
    ))
    .fetch_all(conn)
    .await
    .unwrap()
}

#[tokio::test]
async fn claiming_ahead_publishes_what_claiming_after_does_whatever_fails() {
    let test = test_name!();
    for seed in crate::common::seeds("AHEAD", 2) {
        let (after, mut conn) = PgSchema::new(&format!("{test}_{seed}_after")).await;
        let (ahead, _) = PgSchema::new(&format!("{test}_{seed}_ahead")).await;
        migrate(&after, &[]).await;
        migrate(&ahead, &[]).await;
        stage(&mut conn, &after.rel("outbox"), "orders", events(), Some(4)).await;
        sqlx::raw_sql(&format!(
            "INSERT INTO {} SELECT * FROM {}",
            ahead.rel("outbox"),
            after.rel("outbox")
        ))
        .execute(&mut conn)
        .await
        .unwrap();
        let one = || store(&after, Storage::Retain, KeyOrder::BestEffort);
        let expected = drain(one().await, None, seed).await;
        let expected = (expected, pg_rows(&mut conn, &after).await);
        let two = || store(&ahead, Storage::Retain, KeyOrder::BestEffort);
        let got = drain(two().await, Some(two().await), seed).await;
        compare(seed, expected, (got, pg_rows(&mut conn, &ahead).await));
    }
}

/// The same search on MongoDB.
#[tokio::test]
async fn claiming_ahead_on_mongodb_publishes_what_claiming_after_does_whatever_fails() {
    use mongodb::bson::{Document, doc};
    use outboxctl::store::mongo::{MongoStore, MongoStoreOptions};
    let test = test_name!();
    for seed in crate::common::seeds("AHEAD", 2) {
        let dbs = [
            crate::common::MongoDb::new(&format!("{test}_{seed}_after")).await,
            crate::common::MongoDb::new(&format!("{test}_{seed}_ahead")).await,
        ];
        let started = chrono::Utc::now();
        let docs: Vec<Document> = (1..=events())
            .map(|n| {
                let at = mongodb::bson::DateTime::from_millis(started.timestamp_millis() + n);
                doc! {
                    "id": uuid::Uuid::now_v7().to_string(), "outbox_route": "orders",
                    "event_id": uuid::Uuid::now_v7().to_string(), "event_type": "order.placed",
                    "occurred_at": at, "payload": { "n": n }, "status": "pending", "attempts": 0,
                    "created_at": at, "available_at": mongodb::bson::Bson::Null,
                    "ordering_key": format!("k{}", n % 4),
                }
            })
            .collect();
        let mut runs = Vec::new();
        for (i, db) in dbs.iter().enumerate() {
            let collection = format!("{}.outbox", db.name);
            ob(["migrate", "-q"]).mongo(&collection).code(OK);
            let coll = db.db().collection::<Document>("outbox");
            coll.insert_many(docs.clone()).await.unwrap();
            let opts = MongoStoreOptions {
                collection: outboxctl::target::CollectionName::new("c", &db.name, "outbox")
                    .unwrap(),
                hlc_ordering: false,
                propagate_trace: false,
                tenant_aware: false,
                key_order: KeyOrder::BestEffort,
            };
            let first = MongoStore::new(&db.client, opts);
            // as the relay builds it: the `_id`s read at a claim ahead serve the first's marks
            let second = (i == 1).then(|| first.sharing());
            let published = drain(first, second, seed).await;
            let mut rows: Rows = Vec::new();
            let mut cursor = coll.find(doc! {}).await.unwrap();
            while cursor.advance().await.unwrap() {
                let d = cursor.deserialize_current().unwrap();
                let n = d.get_document("payload").unwrap().get_i64("n").unwrap();
                let status = d.get_str("status").unwrap().to_owned();
                rows.push((n, status, d.get_i32("attempts").unwrap()));
            }
            rows.sort();
            runs.push((published, rows));
        }
        let got = runs.pop().unwrap();
        compare(seed, runs.pop().unwrap(), got);
    }
}

/// `relay --once` with `claim_ahead: true` claims ahead on a second connection: every row goes
/// once, in claim order, none is left claimed, and the summary counts the passes that took rows
/// claimed ahead.
#[tokio::test]
async fn relay_once_claims_ahead_when_configured_and_delivers_in_claim_order() {
    let test = test_name!();
    let (_schema, mut conn, t, path, cfg) =
        one_key_to_a_file(test, 250, "max_claim_rows: 20").await;
    let r = ob(["relay", "--once", "--format", "json"])
        .pg(&t)
        .config(&cfg)
        .run();
    assert_eq!(r.code, OK, "{r:?}");
    let summary: Value = serde_json::from_str(&r.stdout).unwrap();
    let route = &summary[0];
    assert_eq!(route["published"], 250, "{summary}");
    // 13 passes (the last one short); each after the first took the rows claimed ahead
    assert_eq!(route["passes"], 13, "{summary}");
    assert_eq!(route["passes_claimed_ahead"], 12, "{summary}");
    delivered_in_claim_order(&mut conn, &t, &path, 250).await;
}

/// An outbox of `rows` rows of one key, and a configuration that claims ahead (with `settings`
/// besides) to a file: the schema (dropped with it), a connection, the table, the file and the
/// configuration's path.
async fn one_key_to_a_file(
    test: &str,
    rows: i64,
    settings: &str,
) -> (PgSchema, PgConnection, String, std::path::PathBuf, String) {
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", rows, Some(1)).await;
    let path = out_file(test);
    let yaml = format!(
        "relay:\n  {settings}\n  claim_ahead: true\n  routes:\n    orders:\n      to: \"file:{}\"\n",
        path.display()
    );
    let cfg = crate::common::config_file(test, &yaml);
    (schema, conn, t, path, cfg)
}

/// The file holds the rows `1..=rows` once each, in claim order, and every row is published.
async fn delivered_in_claim_order(
    conn: &mut PgConnection,
    t: &str,
    path: &std::path::PathBuf,
    rows: i64,
) {
    let sent: Vec<i64> = lines(path)
        .iter()
        .map(|l| l["payload"]["n"].as_i64().unwrap())
        .collect();
    assert_eq!(
        sent,
        (1..=rows).collect::<Vec<i64>>(),
        "claim order, once each"
    );
    let left = format!("SELECT count(*) FROM {t} WHERE status <> 'published'");
    assert_eq!(count(conn, &left).await, 0);
}

/// A drain cut short by its pass budget strands no row: the last pass allowed claims nothing
/// ahead, and rows claimed ahead and not taken go back to `pending`.
#[tokio::test]
async fn a_drain_of_few_passes_leaves_nothing_claimed_ahead() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 50, Some(3)).await;
    let mut s = settings(Storage::Retain);
    s.max_claim_rows = 10;
    let two = || store(&schema, Storage::Retain, KeyOrder::BestEffort);
    let sink = Sink::Publisher(Flaky::new(|_, _| None));
    let mut relay = Relay::single(two().await, vec![(target(), sink)], s);
    relay.lanes[0].ahead = Some(two().await);
    let stats = relay.drain_once(Some(2), |_, _| {}).await;
    assert_eq!((stats[0].passes, stats[0].published), (2, 20), "{stats:?}");
    assert_eq!(stats[0].passes_claimed_ahead, 1, "{stats:?}");
    let by_status = format!(
        "SELECT count(*) FILTER (WHERE status = 'pending') * 1000 + count(*) FILTER (WHERE status = 'processing') FROM {t}"
    );
    assert_eq!(
        count(&mut conn, &by_status).await,
        30_000,
        "30 pending, none processing"
    );
}

/// A looping relay claims ahead within each tick (the tick's last pass claims nothing ahead),
/// delivers every row in claim order, and stops on SIGTERM leaving nothing claimed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_looping_relay_claims_ahead_within_its_ticks_and_stops_leaving_nothing_claimed() {
    let test = test_name!();
    let settings = "interval: 100ms\n  max_claim_rows: 10\n  max_batches_per_tick: 3";
    let (_schema, mut conn, t, path, cfg) = one_key_to_a_file(test, 200, settings).await;
    let log = path.with_extension("log");
    let mut relay = ob(["relay", "--loop", "--format", "json"])
        .pg(&t)
        .config(&cfg)
        .spawn(Some(&log));
    let published = format!("SELECT count(*) FROM {t} WHERE status = 'published'");
    crate::common::wait_rows(&mut conn, &published, 200).await;
    let status = relay.terminate_within(Duration::from_secs(10)).await;
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(status.is_some_and(|s| s.success()), "{status:?}\n{text}");
    // its summary at the stop counts the passes that took rows claimed ahead
    assert!(text.contains("\"passes_claimed_ahead\":"), "{text}");
    delivered_in_claim_order(&mut conn, &t, &path, 200).await;
}
