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
use rand::Rng;

use super::*;

fn seeds() -> Vec<u64> {
    if let Ok(s) = std::env::var("OUTBOXCTL_AHEAD_SEED") {
        return vec![s.parse().expect("OUTBOXCTL_AHEAD_SEED is a number")];
    }
    let n: u64 = std::env::var("OUTBOXCTL_AHEAD_SEEDS")
        .map(|s| s.parse().expect("OUTBOXCTL_AHEAD_SEEDS is a number"))
        .unwrap_or(2);
    assert!(
        n > 0,
        "OUTBOXCTL_AHEAD_SEEDS=0 would check nothing: give 1 or more"
    );
    let first: u64 = rand::thread_rng().gen_range(0..1_000_000);
    (first..first + n).collect()
}

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

/// What one relay run left: each key's published `n`s in publish order, each row's
/// `(n, status, attempts)`, and how many passes took rows claimed ahead.
type Outcome = (HashMap<String, Vec<i64>>, Vec<(i64, String, i32)>, usize);

/// Drains the table with or without claiming ahead, the destination failing as `seed` says,
/// retries due at once, until no row is pending.
async fn drain(schema: &PgSchema, conn: &mut PgConnection, seed: u64, ahead: bool) -> Outcome {
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
    let first = store(schema, Storage::Retain, KeyOrder::BestEffort).await;
    let sink = Sink::Publisher(flaky.clone());
    let mut relay = Relay::single(first, vec![(target(), sink)], s);
    if ahead {
        relay.lanes[0].ahead = Some(store(schema, Storage::Retain, KeyOrder::BestEffort).await);
    }
    let mut took_ahead = 0;
    let t = schema.rel("outbox");
    let pending = format!("SELECT count(*) FROM {t} WHERE status IN ('pending', 'processing')");
    let mut drains = 0;
    while count(conn, &pending).await > 0 {
        drains += 1;
        assert!(
            drains < 100,
            "seed {seed}: rows still pending after 100 drains"
        );
        let on_pass = |_: &PassTarget, r: &outboxctl::relay::engine::PassReport| {
            took_ahead += usize::from(r.claimed_ahead);
        };
        for stats in relay.drain_once(None, on_pass).await {
            assert_eq!(
                stats.failed_passes, 0,
                "seed {seed}: {:?}",
                stats.last_error
            );
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
    let rows = sqlx::query_as(&format!(
        "SELECT (payload->>'n')::bigint, status, attempts FROM {t} ORDER BY 1"
    ))
    .fetch_all(&mut *conn)
    .await
    .unwrap();
    (by_key, rows, took_ahead)
}

#[tokio::test]
async fn claiming_ahead_publishes_what_claiming_after_does_whatever_fails() {
    let test = test_name!();
    for seed in seeds() {
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
        let said = format!("seed {seed}; run again with OUTBOXCTL_AHEAD_SEED={seed}");
        let expected = drain(&after, &mut conn, seed, false).await;
        let got = drain(&ahead, &mut conn, seed, true).await;
        let retried = expected.1.iter().filter(|(_, _, a)| *a > 0).count();
        assert!(
            retried > 0,
            "{said}: no publish failed, nothing was searched"
        );
        assert_eq!(
            expected.2, 0,
            "{said}: claimed ahead without a second connection"
        );
        assert!(got.2 > 0, "{said}: no pass took rows claimed ahead");
        assert_eq!(got.1, expected.1, "{said}: the rows ended differently");
        assert_eq!(
            got.0, expected.0,
            "{said}: a key's rows went in another order"
        );
        let processing = expected
            .1
            .iter()
            .chain(&got.1)
            .filter(|r| r.1 == "processing");
        assert_eq!(processing.count(), 0, "{said}: a row was left processing");
    }
}

/// `relay --once` with `claim_ahead: true` claims ahead on a second connection: every row goes
/// once, in claim order, none is left claimed, and the summary counts the passes that took rows
/// claimed ahead.
#[tokio::test]
async fn relay_once_claims_ahead_when_configured_and_delivers_in_claim_order() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 250, Some(1)).await;
    let path = out_file(test);
    let cfg = crate::common::config_file(
        test,
        &format!(
            "relay:\n  max_claim_rows: 20\n  claim_ahead: true\n  routes:\n    orders:\n      to: \"file:{}\"\n",
            path.display()
        ),
    );
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
    let sent: Vec<i64> = lines(&path)
        .iter()
        .map(|l| l["payload"]["n"].as_i64().unwrap())
        .collect();
    assert_eq!(sent, (1..=250).collect::<Vec<i64>>(), "claim order");
    let left = format!("SELECT count(*) FROM {t} WHERE status <> 'published'");
    assert_eq!(count(&mut conn, &left).await, 0);
}
