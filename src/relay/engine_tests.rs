//! The engine without servers: the memory store ([`crate::store::memory`]; a consume pass is
//! one transaction, its rollback undoes its marks; retain marks apply at once, as statements commit on their
//! own) and scripted publishers, so chunking, hold-back, retry grouping, deadlines and a
//! destination found away are checked in milliseconds. The contract test and the tests on real
//! servers keep the real stores honest.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures_util::future::BoxFuture;
use uuid::Uuid;

use crate::destination::{PublishError, Publisher, Sink};
use crate::model::{KeyOrder, Storage};
use crate::model::{Message, OutboxRow, Status};
use crate::relay::engine::{PassOptions, RelaySettings, run_pass};
use crate::store::PassTarget;
use crate::store::memory::{MemoryOutbox, MemoryStore};

/// A memory outbox of `storage` (strict key order or not) and one connection to it.
pub(super) fn memory(storage: Storage, strict: bool) -> MemoryStore {
    let order = if strict {
        KeyOrder::Strict
    } else {
        KeyOrder::BestEffort
    };
    MemoryOutbox::new(storage, order).store()
}

/// Stages `n` rows of route `orders`, keys by `key(i)`, one millisecond apart, with ids and
/// event ids from their number.
pub(super) fn stage(store: &MemoryStore, n: usize, key: impl Fn(usize) -> Option<String>) {
    let base = DateTime::<Utc>::from_timestamp_millis(1_764_583_200_000).unwrap();
    let start = store.table().rows.len();
    for i in start..start + n {
        store.outbox().insert(OutboxRow {
            id: Uuid::from_u128(i as u128 + 1),
            route: "orders".into(),
            event_id: Uuid::from_u128(0xE000 + i as u128),
            event_type: "t".into(),
            tenant_id: None,
            execution_id: None,
            correlation_id: None,
            causation_id: None,
            occurred_at: base,
            payload: format!("{{\"n\": {i}}}"),
            attempts: 0,
            ordering_key: key(i),
            created_at: base + chrono::Duration::milliseconds(i as i64),
            hlc: None,
            traceparent: None,
        });
    }
}

/// Row `n`'s status and attempts.
pub(super) fn status_of(store: &MemoryStore, n: usize) -> (Status, i32) {
    let t = store.table();
    (t.rows[n].status, t.rows[n].row.attempts)
}

/// A destination whose answer for each message comes from a script (by payload `n`), and that
/// records what it accepted in order.
pub(super) struct Script {
    answer: Box<dyn Fn(usize) -> Result<(), PublishError> + Send + Sync>,
    accepted: Mutex<Vec<usize>>,
    calls: AtomicUsize,
    delay: Duration,
}

impl Script {
    pub(super) fn new(
        answer: impl Fn(usize) -> Result<(), PublishError> + Send + Sync + 'static,
    ) -> Arc<Self> {
        Arc::new(Self {
            answer: Box::new(answer),
            accepted: Mutex::default(),
            calls: AtomicUsize::new(0),
            delay: Duration::ZERO,
        })
    }

    pub(super) fn accepted(&self) -> Vec<usize> {
        self.accepted.lock().unwrap().clone()
    }
}

pub(super) fn n_of(message: &Message) -> usize {
    let v: serde_json::Value = serde_json::from_str(message.payload.get()).unwrap();
    v["n"].as_u64().unwrap() as usize
}

impl Publisher for Script {
    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let n = n_of(&message);
        let result = (self.answer)(n);
        if result.is_ok() {
            self.accepted.lock().unwrap().push(n);
        }
        let delay = self.delay;
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            result
        })
    }
}

pub(super) fn settings(storage: Storage, strict: bool) -> RelaySettings {
    RelaySettings {
        storage,
        max_claim_rows: 100,
        max_batches_per_tick: 100,
        pass_deadline: Duration::from_secs(5),
        reclaim_stale_after: None,
        max_attempts: 3,
        retry_base_delay: Duration::from_secs(1),
        retry_max_backoff: Duration::from_secs(60),
        publish_timeout: Some(Duration::from_secs(5)),
        interval: Duration::from_secs(1),
        jitter: 0.0,
        drain_on_shutdown: true,
        shutdown_drain_timeout: Duration::from_secs(5),
        key_order: if strict {
            KeyOrder::Strict
        } else {
            KeyOrder::BestEffort
        },
        one_at_a_time: false,
    }
}

pub(super) fn target() -> PassTarget {
    PassTarget {
        route: "orders".into(),
        tenant: None,
    }
}

async fn pass(
    store: &mut MemoryStore,
    publisher: &Arc<Script>,
    s: &RelaySettings,
) -> crate::relay::PassReport {
    let sink = Sink::Publisher(publisher.clone());
    run_pass(store, &target(), &sink, s, PassOptions::default()).await
}

#[tokio::test]
async fn retain_marks_in_chunks_of_32_in_claim_order() {
    let mut store = memory(Storage::Retain, false);
    stage(&store, 70, |_| None);
    let ok = Script::new(|_| Ok(()));
    let report = pass(&mut store, &ok, &settings(Storage::Retain, false)).await;
    assert_eq!(
        (report.claimed, report.published, report.short),
        (70, 70, true)
    );
    let marks: Vec<String> = store
        .table()
        .statements
        .iter()
        .filter(|s| s.starts_with("published"))
        .cloned()
        .collect();
    assert_eq!(marks, ["published 32", "published 32", "published 6"]);
    assert!(
        store
            .table()
            .rows
            .iter()
            .all(|r| r.status == Status::Published)
    );
}

#[tokio::test]
async fn retries_are_grouped_by_attempt_with_the_first_error_and_a_count_of_others() {
    let mut store = memory(Storage::Retain, false);
    stage(&store, 5, |_| None);
    store.table().rows[3].row.attempts = 1;
    let flaky = Script::new(|n| match n {
        0 => Err(PublishError::transient("busy")),
        1 => Err(PublishError::transient("reset")),
        3 => Err(PublishError::transient("busy")),
        4 => Err(PublishError::permanent("too large")),
        _ => Ok(()),
    });
    let report = pass(&mut store, &flaky, &settings(Storage::Retain, false)).await;
    assert_eq!(
        (report.published, report.retried, report.failed),
        (1, 3, 1),
        "{report:?}"
    );
    let retries: Vec<String> = store
        .table()
        .statements
        .iter()
        .filter(|s| s.starts_with("retry"))
        .cloned()
        .collect();
    assert_eq!(
        retries,
        ["retry 2 at 1: busy (+1 more)", "retry 1 at 2: busy"]
    );
    assert_eq!(
        status_of(&store, 4),
        (Status::Failed, 0),
        "parked at once, attempts unchanged"
    );
}

#[tokio::test]
async fn strict_holds_back_a_key_behind_a_failure_in_the_pass_and_at_the_next_claim() {
    let mut store = memory(Storage::Retain, true);
    stage(&store, 9, |i| Some(format!("k{}", i % 3)));
    let flaky = Script::new(|n| {
        if n == 1 {
            Err(PublishError::transient("nope"))
        } else {
            Ok(())
        }
    });
    let s = settings(Storage::Retain, true);
    let report = pass(&mut store, &flaky, &s).await;
    assert_eq!(
        (report.published, report.retried, report.untouched),
        (6, 1, 2),
        "{report:?}"
    );
    assert!(
        !flaky.accepted().iter().any(|n| [4, 7].contains(n)),
        "k1 waits behind row 1"
    );
    // the next claim skips k1 while row 1 waits for its retry
    let again = pass(&mut store, &flaky, &s).await;
    assert_eq!(again.claimed, 0, "{again:?}");
    assert_eq!(status_of(&store, 4), (Status::Pending, 0));
}

/// Strict order: a row whose payload cannot be sent is parked, and its key's later rows in the
/// pass wait (they went out while it parked); its earlier ones and other keys go. Best-effort
/// order sends them.
#[tokio::test]
async fn strict_holds_back_a_key_behind_a_row_it_cannot_send() {
    for strict in [true, false] {
        let mut store = memory(Storage::Retain, strict);
        stage(&store, 9, |i| Some(format!("k{}", i % 3)));
        store.table().rows[4].row.payload = "{not json".into();
        let all = Script::new(|_| Ok(()));
        let s = settings(Storage::Retain, strict);
        let report = pass(&mut store, &all, &s).await;
        let (sent, held) = if strict {
            (vec![0, 1, 2, 3, 5, 6, 8], 1)
        } else {
            (vec![0, 1, 2, 3, 5, 6, 7, 8], 0)
        };
        let mut accepted = all.accepted();
        accepted.sort();
        assert_eq!(accepted, sent, "strict {strict}");
        assert_eq!((report.failed, report.untouched), (1, held), "{report:?}");
        assert_eq!(status_of(&store, 4).0, Status::Failed);
        let seventh = if strict {
            Status::Pending
        } else {
            Status::Published
        };
        assert_eq!(status_of(&store, 7).0, seventh, "strict {strict}");
    }
}

/// What [`KeyWatch`] saw: keys in flight, keys found in flight twice, arrivals in order.
#[derive(Default)]
struct Watched {
    in_flight: Vec<(Option<Uuid>, String)>,
    overlapped: Vec<String>,
    arrived: Vec<(String, usize)>,
}

/// A destination that records, per message key, the order messages arrived in and whether two
/// of one key were ever in flight at once; `per_tenant` says its channel is per tenant.
#[derive(Default)]
struct KeyWatch {
    seen: Arc<Mutex<Watched>>,
    per_tenant: bool,
}

impl KeyWatch {
    fn arrived(&self) -> Vec<(String, usize)> {
        self.seen.lock().unwrap().arrived.clone()
    }

    fn overlapped(&self) -> Vec<String> {
        self.seen.lock().unwrap().overlapped.clone()
    }
}

impl Publisher for KeyWatch {
    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        let key = (
            message.tenant_id.filter(|_| self.per_tenant),
            message.key.clone(),
        );
        let seen = self.seen.clone();
        {
            let mut w = seen.lock().unwrap();
            if w.in_flight.contains(&key) {
                w.overlapped.push(message.key.clone());
            }
            w.in_flight.push(key.clone());
        }
        let n = n_of(&message);
        Box::pin(async move {
            // yield a few times, so that publishes of other keys interleave with this one
            for _ in 0..(n % 3 + 1) {
                tokio::task::yield_now().await;
            }
            let mut w = seen.lock().unwrap();
            w.in_flight.retain(|k| *k != key);
            w.arrived.push((key.1, n));
            Ok(())
        })
    }

    fn channel_per_tenant(&self) -> bool {
        self.per_tenant
    }
}

/// Three tenants share four ordering keys (and some rows have none): on the wire a key is one
/// key whatever its tenant, so its rows go one at a time in claim order, in both storages.
#[tokio::test]
async fn rows_of_one_key_go_one_at_a_time_in_claim_order_whatever_their_tenant() {
    for storage in [Storage::Consume, Storage::Retain] {
        let mut store = memory(storage, false);
        stage(&store, 90, |i| (i % 5 != 0).then(|| format!("k{}", i % 4)));
        for (i, r) in store.table().rows.iter_mut().enumerate() {
            r.row.tenant_id = Some(Uuid::from_u128(1 + (i as u128 * 7) % 3));
        }
        let watch = Arc::new(KeyWatch::default());
        let sink = Sink::Publisher(watch.clone());
        let report = run_pass(
            &mut store,
            &target(),
            &sink,
            &settings(storage, false),
            PassOptions::default(),
        )
        .await;
        assert_eq!(report.published, 90, "{storage:?}: {report:?}");
        assert!(
            watch.overlapped().is_empty(),
            "{storage:?}: two rows of one key were in flight at once: {:?}",
            watch.overlapped()
        );
        let arrived = watch.arrived();
        for k in 0..4 {
            let key = format!("k{k}");
            let seen: Vec<usize> = arrived
                .iter()
                .filter(|(a, _)| *a == key)
                .map(|(_, n)| *n)
                .collect();
            let mut sorted = seen.clone();
            sorted.sort_unstable();
            assert_eq!(seen, sorted, "{storage:?}: key {key} out of claim order");
        }
        // and different keys were in flight together: the pass still pipelines
        let order: Vec<usize> = arrived.iter().map(|(_, n)| *n).collect();
        assert_ne!(
            order,
            (0..90).collect::<Vec<_>>(),
            "{storage:?}: one at a time"
        );
    }
    // a channel per tenant: the tenants of one key need not wait for each other
    let mut store = memory(Storage::Consume, false);
    stage(&store, 6, |_| Some("k".into()));
    for (i, r) in store.table().rows.iter_mut().enumerate() {
        r.row.tenant_id = Some(Uuid::from_u128(1 + i as u128 % 2));
    }
    let watch = Arc::new(KeyWatch {
        per_tenant: true,
        ..Default::default()
    });
    let report = run_pass(
        &mut store,
        &target(),
        &Sink::Publisher(watch.clone()),
        &settings(Storage::Consume, false),
        PassOptions::default(),
    )
    .await;
    assert_eq!(report.published, 6);
    assert!(watch.overlapped().is_empty());
    let order: Vec<usize> = watch.arrived().iter().map(|(_, n)| *n).collect();
    assert_ne!(
        order,
        [0, 1, 2, 3, 4, 5],
        "two tenants' channels in flight together"
    );
}

#[tokio::test]
async fn a_destination_found_away_releases_what_the_pass_holds_without_an_attempt() {
    let mut store = memory(Storage::Retain, false);
    stage(&store, 40, |i| Some(format!("k{}", i % 4)));
    let away = Script::new(|n| {
        if n == 2 {
            Err(PublishError::away("connection refused"))
        } else {
            Ok(())
        }
    });
    let report = pass(&mut store, &away, &settings(Storage::Retain, false)).await;
    assert!(report.committed, "{report:?}");
    assert_eq!(report.down.as_deref(), Some("connection refused"));
    assert_eq!(
        (report.retried, report.failed),
        (0, 0),
        "no attempt counted"
    );
    assert!(report.published < 32, "the first chunk at most: {report:?}");
    assert!(
        store
            .table()
            .rows
            .iter()
            .all(|r| r.row.attempts == 0 && matches!(r.status, Status::Pending | Status::Published)),
        "released rows are pending again, untouched"
    );
}

#[tokio::test]
async fn a_consume_pass_that_fails_a_mark_rolls_everything_back() {
    let mut store = memory(Storage::Consume, false);
    stage(&store, 10, |_| None);
    store.table().fail_next_mark = true;
    let ok = Script::new(|_| Ok(()));
    let report = pass(&mut store, &ok, &settings(Storage::Consume, false)).await;
    assert!(!report.committed);
    assert_eq!((report.published, report.retried, report.failed), (0, 0, 0));
    assert_eq!(
        store.table().rows.len(),
        10,
        "every claimed row is pending again"
    );
    assert_eq!(
        ok.accepted().len(),
        10,
        "though the destination had them: duplicates follow"
    );
    assert_eq!(
        store.table().statements.last().map(String::as_str),
        Some("rollback")
    );
}

/// A retain pass that fails after its claim hands back only the rows its claim still holds.
/// A pass that outlived `reclaim_stale_after` may find rows it never sent reclaimed and
/// claimed by another relay: put back to pending, they would miss that relay's marks (which
/// match `processing`) and go out a third time.
#[tokio::test]
async fn a_failed_retain_pass_leaves_the_rows_another_relay_claimed_since() {
    for taken_over in [false, true] {
        let mut store = memory(Storage::Retain, false);
        stage(&store, 40, |_| None);
        let outbox = store.outbox().clone();
        let theirs = Utc::now() + chrono::Duration::minutes(6);
        // while the first chunk goes out, the rows of the second change hands
        let script = Script::new(move |n| {
            if taken_over && n == 0 {
                for r in outbox.table().rows.iter_mut().skip(32) {
                    r.processing_at = Some(theirs);
                }
            }
            Ok(())
        });
        store.table().fail_next_mark = true;
        let report = pass(&mut store, &script, &settings(Storage::Retain, false)).await;
        assert!(!report.committed, "{report:?}");
        let (released, kept) = if taken_over { (0, 8) } else { (8, 0) };
        assert_eq!(report.untouched, released, "taken over: {taken_over}");
        let t = store.table();
        let unsent = &t.rows[32..];
        let pending = unsent.iter().filter(|r| r.status == Status::Pending);
        assert_eq!(pending.count(), released, "taken over: {taken_over}");
        let held = unsent
            .iter()
            .filter(|r| r.status == Status::Processing && r.processing_at == Some(theirs));
        assert_eq!(held.count(), kept, "taken over: {taken_over}");
    }
}

#[tokio::test]
async fn no_publish_starts_after_the_pass_deadline() {
    let mut store = memory(Storage::Consume, false);
    stage(&store, 6, |_| Some("one key".into()));
    let slow = Arc::new(Script {
        answer: Box::new(|_| Ok(())),
        accepted: Mutex::default(),
        calls: AtomicUsize::new(0),
        delay: Duration::from_millis(40),
    });
    let mut s = settings(Storage::Consume, false);
    s.pass_deadline = Duration::from_millis(100);
    let report = pass(&mut store, &slow, &s).await;
    assert!(report.committed, "{report:?}");
    let calls = slow.calls.load(Ordering::SeqCst);
    assert!((2..6).contains(&calls), "{calls} publishes started");
    // the publish in flight at the deadline is cancelled and counts as a failed attempt
    assert_eq!(report.retried, 1, "{report:?}");
    assert_eq!(
        report.published + report.retried + report.untouched,
        6,
        "{report:?}"
    );
    assert_eq!(store.table().rows.len(), 6 - report.published);
    let untouched = store
        .table()
        .rows
        .iter()
        .filter(|r| r.row.attempts == 0)
        .count();
    assert_eq!(
        untouched, report.untouched,
        "rows not reached stay untouched"
    );
}

/// Strict order over many seeds in memory (the real-server run, `tests/cli/strict_soak.rs`,
/// keeps the stores honest): rows staged while relaying, transient and permanent refusals and
/// failed flushes, parked rows requeued; every event delivered, and per key the first delivery
/// of each event in claim order. `OUTBOXCTL_STRICT_MEMORY_SEEDS` (default 100) seeds.
#[tokio::test]
async fn strict_order_holds_for_many_seeds_in_memory() {
    use rand::{Rng, SeedableRng};
    let seeds: u64 = std::env::var("OUTBOXCTL_STRICT_MEMORY_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    for seed in 0..seeds {
        let rng = Arc::new(Mutex::new(rand::rngs::StdRng::seed_from_u64(seed)));
        let faults = Arc::new(std::sync::atomic::AtomicBool::new(true));
        let (r, f) = (rng.clone(), faults.clone());
        let chaos = Arc::new(Chaotic {
            script: Script::new(move |_| {
                let roll: f64 = r.lock().unwrap().r#gen();
                match (f.load(Ordering::Relaxed), roll) {
                    (true, x) if x < 0.10 => Err(PublishError::transient("busy")),
                    (true, x) if x < 0.13 => Err(PublishError::permanent("refused")),
                    _ => Ok(()),
                }
            }),
            rng: rng.clone(),
            faults: faults.clone(),
        });
        let mut store = memory(Storage::Retain, true);
        let mut s = settings(Storage::Retain, true);
        s.max_claim_rows = 10;
        let keys = |rng: &Arc<Mutex<rand::rngs::StdRng>>| {
            let k: u8 = rng.lock().unwrap().gen_range(0..6);
            move |_| Some(format!("k{k}"))
        };
        let sink = Sink::Publisher(chaos.clone());
        let mut passes = 0;
        loop {
            passes += 1;
            assert!(passes < 5_000, "seed {seed}: no end");
            if passes < 40 && passes % 4 == 1 {
                let key = keys(&rng);
                stage(&store, 5, key);
            }
            if passes == 40 {
                faults.store(false, Ordering::Relaxed);
            }
            run_pass(&mut store, &target(), &sink, &s, PassOptions::default()).await;
            // time passes: retries come due; the operator requeues what is parked
            let requeue = passes >= 40 || rng.lock().unwrap().gen_bool(0.2);
            for r in &mut store.table().rows {
                r.available_at = None;
                if requeue && r.status == Status::Failed {
                    r.status = Status::Pending;
                    r.row.attempts = 0;
                }
            }
            if passes > 40
                && store
                    .table()
                    .rows
                    .iter()
                    .all(|r| r.status == Status::Published)
            {
                break;
            }
        }
        // first deliveries per key follow (created_at, id)
        let log = chaos.script.accepted();
        let mut first: std::collections::HashMap<usize, usize> = Default::default();
        for (i, n) in log.iter().enumerate() {
            first.entry(*n).or_insert(i);
        }
        let mut by_key: std::collections::BTreeMap<String, Vec<usize>> = Default::default();
        for (n, r) in store.table().rows.iter().enumerate() {
            by_key.entry(r.row.key()).or_default().push(n);
        }
        for (key, ns) in by_key {
            for pair in ns.windows(2) {
                let (a, b) = (first[&pair[0]], first[&pair[1]]);
                assert!(
                    a < b,
                    "seed {seed}: key {key}: row {} first delivered after row {}",
                    pair[0],
                    pair[1]
                );
            }
        }
    }
}

/// [`Script`], plus flushes that fail now and then while faults are on.
struct Chaotic {
    script: Arc<Script>,
    rng: Arc<Mutex<rand::rngs::StdRng>>,
    faults: Arc<std::sync::atomic::AtomicBool>,
}

impl Publisher for Chaotic {
    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        self.script.publish(message)
    }

    fn flush(&self) -> BoxFuture<'static, Result<(), PublishError>> {
        let roll: f64 = rand::Rng::r#gen(&mut *self.rng.lock().unwrap());
        let fail = self.faults.load(Ordering::Relaxed) && roll < 0.05;
        Box::pin(async move {
            if fail {
                Err(PublishError::transient("flush failed"))
            } else {
                Ok(())
            }
        })
    }
}

/// Row `n`'s status and attempts, wherever it sits (consume storage deletes published rows).
pub(super) fn of(store: &MemoryStore, n: usize) -> (Status, i32) {
    let t = store.table();
    let r = t
        .rows
        .iter()
        .find(|r| r.row.payload == format!("{{\"n\": {n}}}"))
        .expect("row n");
    (r.status, r.row.attempts)
}
