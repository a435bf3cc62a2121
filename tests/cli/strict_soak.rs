//! Strict key order searched for counterexamples instead of replayed: a seeded, randomized run
//! on a real server per backend. Several engines relay one outbox with many keys and tenants
//! while rows are staged (with HLC ordering some carry a higher hlc and a lower `created_at`;
//! some keys are legacy rows without hlc), the destination fails transiently, refuses for good
//! (parking rows) and fails whole flushes, an operator requeues parked rows, and engines are
//! killed mid-pass (their task aborted: the connection drops, as at kill -9). Then the faults
//! stop, parked rows are requeued, and the run must end with every event delivered and, per
//! key, the first delivery of each event in the backend's claim order (redeliveries after a
//! crash or a rolled-back pass are allowed).
//!
//! Configurations: PostgreSQL retain with HLC, PostgreSQL consume, MongoDB with and without
//! HLC. Size: `OUTBOXCTL_STRICT_SEEDS` seeds (default 1 per configuration; a fixed seed with
//! `OUTBOXCTL_STRICT_SEED`), `OUTBOXCTL_STRICT_EVENTS` events each (default 300). A failure
//! prints its seed; run it again with `OUTBOXCTL_STRICT_SEED=<seed>`.

use std::cell::Cell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use mongodb::bson::{Bson, Document, doc};
use outboxctl::destination::{PublishError, Publisher, Sink};
use outboxctl::model::Message;
use outboxctl::model::{KeyOrder, Storage};
use outboxctl::relay::RelaySettings;
use outboxctl::relay::engine::{PassOptions, run_pass};
use outboxctl::store::mongo::{MongoStore, MongoStoreOptions};
use outboxctl::store::postgres::{PgStore, PgStoreOptions};
use outboxctl::store::{PassTarget, RelayStore};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use uuid::Uuid;

use crate::common::{MongoDb, PgSchema, pg_url};

const TENANTS: [&str; 3] = [
    "0190c4e2-8a6c-7e4a-9b1e-0000000000a1",
    "0190c4e2-8a6c-7e4a-9b1e-0000000000a2",
    "0190c4e2-8a6c-7e4a-9b1e-0000000000a3",
];

/// One staged event and where it stands in claim order.
#[derive(Debug, Clone)]
struct Staged {
    event_id: Uuid,
    id: Uuid,
    tenant: Option<Uuid>,
    key: String,
    hlc: Option<i64>,
    created_ms: i64,
}

/// The destination: seeded faults while `faults` is on; records every publish it accepts, in
/// order (a publish it accepted may still be undone by a failed flush: a consumer may have seen
/// it, so it counts as a delivery).
struct Chaos {
    rng: Mutex<StdRng>,
    faults: AtomicBool,
    log: Mutex<Vec<Uuid>>,
}

impl Publisher for Chaos {
    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        let roll: f64 = self.rng.lock().unwrap().r#gen();
        let result = if self.faults.load(Ordering::Relaxed) && roll < 0.08 {
            Err(PublishError::transient("chaos: busy"))
        } else if self.faults.load(Ordering::Relaxed) && roll < 0.11 {
            Err(PublishError::permanent("chaos: refused"))
        } else {
            self.log.lock().unwrap().push(message.event_id);
            Ok(())
        };
        Box::pin(async move { result })
    }

    fn flush(&self) -> BoxFuture<'static, Result<(), PublishError>> {
        let roll: f64 = self.rng.lock().unwrap().r#gen();
        let fail = self.faults.load(Ordering::Relaxed) && roll < 0.05;
        Box::pin(async move {
            if fail {
                Err(PublishError::transient("chaos: flush failed"))
            } else {
                Ok(())
            }
        })
    }
}

/// The outbox under test: PostgreSQL (either storage) or MongoDB.
enum Backend {
    Pg {
        schema: PgSchema,
        opts: PgStoreOptions,
    },
    Mongo {
        db: MongoDb,
        opts: MongoStoreOptions,
    },
}

impl Backend {
    async fn pg(test: &str, storage: Storage, hlc: bool) -> Self {
        let (schema, _conn) = PgSchema::new(test).await;
        let mut extra = vec!["--key-order", "strict", "--storage"];
        extra.push(if storage == Storage::Consume {
            "consume"
        } else {
            "retain"
        });
        if hlc {
            extra.push("--hlc-ordering");
        }
        crate::common::migrate(&schema, &extra).await;
        let opts = PgStoreOptions {
            relation: outboxctl::target::RelationSpec::parse("relation", &schema.rel("outbox"))
                .unwrap(),
            delivery_log: None,
            storage,
            hlc_ordering: hlc,
            propagate_trace: false,
            tenant_aware: false,
            key_order: KeyOrder::Strict,
            pass_statement_timeout: Duration::from_secs(2),
            pass_deadline: Duration::from_secs(5),
            prepared_statements: false,
            pauses: None,
        };
        Self::Pg { schema, opts }
    }

    async fn mongo(test: &str, hlc: bool) -> Self {
        let db = MongoDb::new(test).await;
        let mut args = vec!["migrate", "-q", "--key-order", "strict"];
        if hlc {
            args.push("--hlc-ordering");
        }
        crate::common::ob(args)
            .mongo(&format!("{}.outbox", db.name))
            .code(crate::common::OK);
        let opts = MongoStoreOptions {
            collection: outboxctl::target::CollectionName::new("c", &db.name, "outbox").unwrap(),
            hlc_ordering: hlc,
            propagate_trace: false,
            tenant_aware: false,
            key_order: KeyOrder::Strict,
        };
        Self::Mongo { db, opts }
    }

    fn storage(&self) -> Storage {
        match self {
            Self::Pg { opts, .. } => opts.storage,
            Self::Mongo { .. } => Storage::Retain,
        }
    }

    fn hlc(&self) -> bool {
        match self {
            Self::Pg { opts, .. } => opts.hlc_ordering,
            Self::Mongo { opts, .. } => opts.hlc_ordering,
        }
    }

    async fn stage(&self, rows: &[Staged]) {
        match self {
            Self::Pg { schema, opts } => {
                let mut conn = crate::common::pg().await;
                let t = schema.rel("outbox");
                // a batch is staged in one transaction, as an application's flush is
                sqlx::raw_sql("BEGIN").execute(&mut conn).await.unwrap();
                let (col, val) = if opts.hlc_ordering {
                    (", hlc", ", $6")
                } else {
                    ("", "")
                };
                let sql = format!(
                    "INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, ordering_key, tenant_id{col})
                     VALUES ($1, 'orders', $2, 'x', now(), '{{}}', 'pending', to_timestamp($3::double precision / 1000), $4, $5{val})"
                );
                for r in rows {
                    let mut q = sqlx::query(&sql)
                        .bind(r.id)
                        .bind(r.event_id)
                        .bind(r.created_ms as f64)
                        .bind(&r.key)
                        .bind(r.tenant);
                    if opts.hlc_ordering {
                        q = q.bind(r.hlc);
                    }
                    q.execute(&mut conn).await.unwrap();
                }
                sqlx::raw_sql("COMMIT").execute(&mut conn).await.unwrap();
            }
            Self::Mongo { db, .. } => {
                let docs: Vec<Document> = rows
                    .iter()
                    .map(|r| {
                        let mut d = doc! {
                            "id": r.id.to_string(), "outbox_route": "orders",
                            "event_id": r.event_id.to_string(), "event_type": "x",
                            "tenant_id": r.tenant.map_or(Bson::Null, |t| Bson::String(t.to_string())),
                            "occurred_at": mongodb::bson::DateTime::from_millis(r.created_ms),
                            "payload": {}, "status": "pending", "attempts": 0,
                            "created_at": mongodb::bson::DateTime::from_millis(r.created_ms),
                            "available_at": Bson::Null, "ordering_key": &r.key,
                        };
                        if let Some(h) = r.hlc {
                            d.insert("hlc", h);
                        }
                        d
                    })
                    .collect();
                // one transaction per batch (the replica set has them)
                let mut session = db.client.start_session().await.unwrap();
                session.start_transaction().await.unwrap();
                db.db()
                    .collection::<Document>("outbox")
                    .insert_many(docs)
                    .session(&mut session)
                    .await
                    .unwrap();
                session.commit_transaction().await.unwrap();
            }
        }
    }

    /// The operator's `requeue`: parked rows back to pending, attempts reset.
    async fn requeue(&self) {
        match self {
            Self::Pg { schema, opts } => {
                let mut conn = crate::common::pg().await;
                let retain = if opts.storage == Storage::Retain {
                    "processing_at = NULL, published_at = NULL, "
                } else {
                    ""
                };
                sqlx::raw_sql(&format!(
                    "UPDATE {} SET status = 'pending', {retain}last_error = NULL, attempts = 0, available_at = NULL WHERE status = 'failed'",
                    schema.rel("outbox")
                ))
                .execute(&mut conn)
                .await
                .unwrap();
            }
            Self::Mongo { db, .. } => {
                db.db()
                    .collection::<Document>("outbox")
                    .update_many(
                        doc! { "status": "failed" },
                        doc! { "$set": { "status": "pending", "attempts": 0, "available_at": Bson::Null, "last_error": Bson::Null, "processing_at": Bson::Null } },
                    )
                    .await
                    .unwrap();
            }
        }
    }

    /// Rows not yet delivered for good (pending, processing or failed).
    async fn open_rows(&self) -> i64 {
        match self {
            Self::Pg { schema, .. } => {
                let mut conn = crate::common::pg().await;
                crate::common::count(
                    &mut conn,
                    &format!(
                        "SELECT count(*) FROM {} WHERE status <> 'published'",
                        schema.rel("outbox")
                    ),
                )
                .await
            }
            Self::Mongo { db, .. } => db
                .db()
                .collection::<Document>("outbox")
                .count_documents(doc! { "status": { "$ne": "published" } })
                .await
                .unwrap() as i64,
        }
    }
}

/// One engine: passes until `stop`, reclaiming now and then (a killed engine's rows).
async fn engine<S: RelayStore>(
    mut store: S,
    sink: Sink,
    settings: RelaySettings,
    stop: Rc<Cell<bool>>,
) {
    let target = PassTarget {
        route: "orders".into(),
        tenant: None,
    };
    let mut n = 0u64;
    while !stop.get() {
        let options = PassOptions {
            reclaim: n % 4 == 0,
            ..PassOptions::default()
        };
        let report = run_pass(&mut store, &target, &sink, &settings, options).await;
        n += 1;
        if report.short || !report.committed {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

fn settings(storage: Storage) -> RelaySettings {
    let config =
        outboxctl::config::Config::resolve(Default::default(), None, &Default::default(), &|_| {
            None
        })
        .unwrap();
    let mut s = RelaySettings::from_config(&config);
    s.storage = storage;
    s.key_order = KeyOrder::Strict;
    s.max_claim_rows = 20;
    s.max_attempts = 3;
    s.retry_base_delay = Duration::from_millis(10);
    s.retry_max_backoff = Duration::from_millis(40);
    s.reclaim_stale_after = Some(Duration::from_millis(500));
    s
}

/// The events of a run: per key, later rows later in claim order. With HLC, hlc-stamped keys
/// get rising stamps and `created_at` that may go back (a replica's clock behind); legacy keys
/// (no hlc) get rising `created_at`.
fn generate(rng: &mut StdRng, n: usize, batch: usize, hlc: bool) -> Vec<Staged> {
    let base = chrono::Utc::now().timestamp_millis() - 60_000;
    let mut clock = 0i64;
    let mut stamp = 1i64 << 40;
    let keys: Vec<(Option<Uuid>, String, bool)> = (0..24)
        .map(|k| {
            let tenant = match k % 4 {
                3 => None,
                t => Some(Uuid::parse_str(TENANTS[t]).unwrap()),
            };
            // the same key name under every tenant (separate keys); k5 is a legacy key
            (tenant, format!("k{}", k / 4), hlc && k / 4 != 5)
        })
        .collect();
    (0..n)
        .map(|i| {
            let (tenant, key, stamped) = keys[rng.gen_range(0..keys.len())].clone();
            // ties happen within a batch (one transaction's now()), never across batches
            clock += if i % batch == 0 {
                1
            } else {
                rng.gen_range(0..3)
            };
            stamp += rng.gen_range(1..5);
            let created_ms = if stamped {
                base + clock - rng.gen_range(0..2000)
            } else {
                base + clock
            };
            Staged {
                event_id: Uuid::new_v4(),
                id: Uuid::new_v4(),
                tenant,
                key,
                hlc: stamped.then_some(stamp),
                created_ms,
            }
        })
        .collect()
}

/// Sorts one key's events in the backend's claim order.
fn claim_order(events: &mut [&Staged], hlc: bool, mongo: bool) {
    events.sort_by(|a, b| {
        let tail = |s: &Staged| (s.created_ms, s.id.to_string());
        if !hlc {
            return tail(a).cmp(&tail(b));
        }
        // PostgreSQL: hlc NULLS LAST; MongoDB: a missing hlc sorts first
        let h = |s: &Staged| match (s.hlc, mongo) {
            (Some(h), _) => (1, h),
            (None, true) => (0, 0),
            (None, false) => (2, 0),
        };
        (h(a), tail(a)).cmp(&(h(b), tail(b)))
    });
}

async fn run_one(backend: &Backend, seed: u64, events: usize) {
    let mut rng = StdRng::seed_from_u64(seed);
    let batch = events.div_ceil(10);
    let staged = generate(&mut rng, events, batch, backend.hlc());
    let chaos = Arc::new(Chaos {
        rng: Mutex::new(StdRng::seed_from_u64(seed ^ 0x5eed)),
        faults: AtomicBool::new(true),
        log: Mutex::default(),
    });
    let sink = Sink::Publisher(chaos.clone());
    let settings = settings(backend.storage());
    let local = tokio::task::LocalSet::new();
    local
        .run_until(async {
            let stop = Rc::new(Cell::new(false));
            let spawn = |stop: Rc<Cell<bool>>| {
                let (sink, settings) = (sink.clone(), settings.clone());
                match backend {
                    Backend::Pg { opts, .. } => {
                        let opts = opts.clone();
                        tokio::task::spawn_local(async move {
                            let db = outboxctl::dburl::DatabaseUrl::parse(&pg_url()).unwrap();
                            let mut store = PgStore::connect(&db, Duration::from_secs(5), opts)
                                .await
                                .unwrap();
                            // migrate added the claim's function: the soak runs through it
                            assert!(store.claims_by_function(None).unwrap());
                            engine(store, sink, settings, stop).await
                        })
                    }
                    Backend::Mongo { db, opts } => {
                        let store = MongoStore::new(&db.client, opts.clone());
                        tokio::task::spawn_local(engine(store, sink, settings, stop))
                    }
                }
            };
            let mut engines: Vec<_> = (0..3).map(|_| spawn(stop.clone())).collect();
            // faults on: stage in batches, requeue now and then, kill an engine now and then
            let mut kills = 0;
            for batch in staged.chunks(batch) {
                backend.stage(batch).await;
                tokio::time::sleep(Duration::from_millis(rng.gen_range(20..80))).await;
                if rng.gen_bool(0.3) {
                    backend.requeue().await;
                }
                if rng.gen_bool(0.3) {
                    let victim = rng.gen_range(0..engines.len());
                    engines[victim].abort();
                    engines[victim] = spawn(stop.clone());
                    kills += 1;
                }
            }
            // the engines work on the last batch with the faults still on (the operator
            // requeueing, so parked heads do not stop every key)
            let before = chaos.log.lock().unwrap().len();
            crate::common::eventually(Duration::from_secs(30), "more deliveries", async || {
                backend.requeue().await;
                let n = chaos.log.lock().unwrap().len();
                if n >= before + 20 || n >= events {
                    Ok(())
                } else {
                    Err(format!("{} since the last batch", n - before))
                }
            })
            .await;
            // faults off: requeue what is parked until nothing is left open
            chaos.faults.store(false, Ordering::Relaxed);
            let deadline = Instant::now() + Duration::from_secs(90);
            loop {
                backend.requeue().await;
                let open = backend.open_rows().await;
                if open == 0 {
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "seed {seed}: the run did not terminate ({open} rows still open)"
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            stop.set(true);
            for e in engines {
                let _ = e.await;
            }
            println!("seed {seed}: {events} events, {kills} engine(s) killed");
        })
        .await;
    check(&staged, &chaos.log.lock().unwrap(), backend, seed);
}

/// Every event delivered; per key, first deliveries in claim order.
fn check(staged: &[Staged], log: &[Uuid], backend: &Backend, seed: u64) {
    let mut first: HashMap<Uuid, usize> = HashMap::new();
    for (i, e) in log.iter().enumerate() {
        first.entry(*e).or_insert(i);
    }
    let missing = staged
        .iter()
        .filter(|s| !first.contains_key(&s.event_id))
        .count();
    assert_eq!(
        missing, 0,
        "seed {seed}: {missing} event(s) never delivered"
    );
    let mut by_key: HashMap<(Option<Uuid>, String), Vec<&Staged>> = HashMap::new();
    for s in staged {
        by_key.entry((s.tenant, s.key.clone())).or_default().push(s);
    }
    let mongo = matches!(backend, Backend::Mongo { .. });
    for (key, mut events) in by_key {
        claim_order(&mut events, backend.hlc(), mongo);
        for pair in events.windows(2) {
            let (a, b) = (first[&pair[0].event_id], first[&pair[1].event_id]);
            assert!(
                a < b,
                "seed {seed}: key {key:?}: {:?} (claim order before) first delivered at {a}, after {:?} at {b}",
                pair[0],
                pair[1]
            );
        }
    }
}

/// The seeds to run: `OUTBOXCTL_STRICT_SEED`, else `OUTBOXCTL_STRICT_SEEDS` fresh ones (1).
fn seeds() -> Vec<u64> {
    if let Some(seed) = std::env::var("OUTBOXCTL_STRICT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        return vec![seed];
    }
    let n: usize = std::env::var("OUTBOXCTL_STRICT_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    assert!(
        n > 0,
        "OUTBOXCTL_STRICT_SEEDS=0 would check nothing: give 1 or more"
    );
    (0..n).map(|_| rand::thread_rng().r#gen()).collect()
}

fn events() -> usize {
    std::env::var("OUTBOXCTL_STRICT_EVENTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300)
}

#[tokio::test(flavor = "current_thread")]
async fn strict_order_holds_under_faults_on_postgres_retain_with_hlc() {
    for seed in seeds() {
        println!("seed {seed} (replay with OUTBOXCTL_STRICT_SEED={seed})");
        let backend = Backend::pg("strict_soak_pg_retain", Storage::Retain, true).await;
        run_one(&backend, seed, events()).await;
    }
}

#[tokio::test(flavor = "current_thread")]
async fn strict_order_holds_under_faults_on_postgres_consume() {
    for seed in seeds() {
        println!("seed {seed} (replay with OUTBOXCTL_STRICT_SEED={seed})");
        let backend = Backend::pg("strict_soak_pg_consume", Storage::Consume, false).await;
        run_one(&backend, seed, events()).await;
    }
}

#[tokio::test(flavor = "current_thread")]
async fn strict_order_holds_under_faults_on_mongo_with_hlc() {
    for seed in seeds() {
        println!("seed {seed} (replay with OUTBOXCTL_STRICT_SEED={seed})");
        let backend = Backend::mongo("strict_soak_mongo", true).await;
        run_one(&backend, seed, events()).await;
    }
}

/// Without HLC ordering, as the four-relay MongoDB test runs: claim order is `created_at, id`.
#[tokio::test(flavor = "current_thread")]
async fn strict_order_holds_under_faults_on_mongo() {
    for seed in seeds() {
        println!("seed {seed} (replay with OUTBOXCTL_STRICT_SEED={seed})");
        let backend = Backend::mongo("strict_soak_mongo_plain", false).await;
        run_one(&backend, seed, events()).await;
    }
}
