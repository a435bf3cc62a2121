//! Relay throughput on MongoDB against the physical limit, on the real replica set.
//!
//!     cargo bench --bench mongo                      # N = 20,000 documents over 200 keys
//!     OUTBOXCTL_BENCH_N=5000 OUTBOXCTL_BENCH_ROUNDS=5 cargo bench --bench mongo
//!     OUTBOXCTL_BENCH_HLC=1 cargo bench --bench mongo  # documents stamped, claims in HLC order
//!
//! **The limit** is what MongoDB itself does when one client claims documents and marks them
//! published with nothing published, batches of 100: `find` the first 100 pending `_id`s in
//! claim order, `updateMany` them to `processing`, `updateMany` them to `published`: three round
//! trips a batch, each write waiting for the deployment's default write concern as the relay's
//! do. It is the limit, not a legal claim: the relay must still read its claim back by token,
//! take due retries, mark 32 ids at a time (the crash-duplicate bound) and, under strict key
//! order, skip keys behind a held row and check each claimed key's earlier documents.
//!
//! **The relay** is `relay --once` as the command assembles it from its configuration (retain
//! storage, the registry off, to `file:/dev/null`), with best-effort and with strict key order.
//! Each side runs on freshly staged documents (N, ordering keys `k0`…`k199` in turn, one
//! `created_at` millisecond apart), interleaved, `OUTBOXCTL_BENCH_ROUNDS` rounds (default 3);
//! each ratio is the relay's median ÷ the limit's, the lowest and highest ratio within one round
//! beside it.

mod common;

use std::time::{Duration, Instant};

use futures_util::TryStreamExt;
use mongodb::bson::{Bson, Document, doc};
use mongodb::options::FindOptions;

const DB: &str = "bench_mongo";
const KEYS: usize = 200;
const BATCH: i64 = 100;

fn mongo_url() -> String {
    std::env::var("OUTBOXCTL_TEST_MONGO_URL")
        .unwrap_or_else(|_| "mongodb://127.0.0.1:27018/?replicaSet=rs0".into())
}

/// Whether the documents carry an `hlc` stamp and both sides claim in HLC order
/// (`OUTBOXCTL_BENCH_HLC=1`).
fn hlc() -> bool {
    std::env::var("OUTBOXCTL_BENCH_HLC").is_ok_and(|v| v == "1")
}

/// N pending documents as `emit` writes them, keys in turn, `created_at` a millisecond apart
/// (and, with [`hlc`], an HLC stamp of that millisecond).
async fn stage(coll: &mongodb::Collection<Document>, n: usize) {
    coll.delete_many(doc! {})
        .await
        .expect("emptying the outbox");
    let base = chrono::Utc::now().timestamp_millis();
    let docs: Vec<Document> = (0..n)
        .map(|i| {
            let at = mongodb::bson::DateTime::from_millis(base + i as i64);
            let stamp = hlc().then_some((base + i as i64) << 16);
            doc! {
                "hlc": stamp,
                "id": uuid::Uuid::now_v7().to_string(),
                "outbox_route": common::ROUTE,
                "event_id": uuid::Uuid::now_v7().to_string(),
                "event_type": "order.placed",
                "tenant_id": Bson::Null,
                "occurred_at": at,
                "payload": { "order_id": i as i64 },
                "status": "pending",
                "created_at": at,
                "attempts": 0,
                "available_at": Bson::Null,
                "ordering_key": format!("k{}", i % KEYS),
            }
        })
        .collect();
    for chunk in docs.chunks(10_000) {
        coll.insert_many(chunk.to_vec())
            .await
            .expect("staging documents");
    }
}

/// The fewest operations that claim and mark every document: see the module's comment.
async fn limit(coll: &mongodb::Collection<Document>) -> (usize, Duration) {
    let started = Instant::now();
    let mut moved = 0;
    let pending =
        doc! { "outbox_route": common::ROUTE, "status": "pending", "available_at": Bson::Null };
    let order = if hlc() {
        doc! { "hlc": 1, "created_at": 1, "id": 1 }
    } else {
        doc! { "created_at": 1, "id": 1 }
    };
    loop {
        let find = FindOptions::builder()
            .sort(order.clone())
            .limit(BATCH)
            .projection(doc! { "_id": 1 })
            .build();
        let ids: Vec<Bson> = coll
            .find(pending.clone())
            .with_options(find)
            .await
            .expect("claiming")
            .try_collect::<Vec<Document>>()
            .await
            .expect("claiming")
            .into_iter()
            .filter_map(|d| d.get("_id").cloned())
            .collect();
        if ids.is_empty() {
            break;
        }
        let mut claim = pending.clone();
        claim.insert("_id", doc! { "$in": &ids });
        let now = mongodb::bson::DateTime::now();
        coll.update_many(
            claim,
            doc! { "$set": { "status": "processing", "processing_at": now } },
        )
        .await
        .expect("claiming");
        let marked = coll
            .update_many(
                doc! { "_id": { "$in": &ids }, "status": "processing" },
                doc! { "$set": { "status": "published", "published_at": now } },
            )
            .await
            .expect("marking");
        moved += marked.modified_count as usize;
    }
    (moved, started.elapsed())
}

/// `relay --once` as the command assembles it, best-effort or strict key order.
async fn relay(strict: bool) -> (usize, Duration) {
    let yaml = format!(
        "database_url: {url}\noutbox:\n  collection: {DB}.outbox\n  storage: retain\n  registry: off\n  hlc_ordering: {hlc}\nrelay:\n  reclaim_stale_after: null\n  key_order: {order}\n",
        url = mongo_url(),
        order = if strict { "strict" } else { "best-effort" },
        hlc = hlc(),
    );
    let file = outboxctl::config::FileConfig::parse("bench.yaml", &yaml).unwrap();
    let config =
        outboxctl::config::Config::resolve(file, None, &Default::default(), &|_| None).unwrap();
    let request = outboxctl::relay::assemble::RelayRequest {
        routes: vec![common::ROUTE.into()],
        to: Some("file:/dev/null".into()),
        looping: false,
        stop: None,
    };
    let mut a = outboxctl::relay::assemble::assemble(
        &config,
        Duration::from_secs(10),
        &request,
        &mut |w| eprintln!("warning: {w}"),
    )
    .await
    .expect("assembling the relay on MongoDB")
    .expect("no stop was asked for");
    let started = Instant::now();
    let stats = a.relay.drain_once(None, |_, _| {}).await;
    let elapsed = started.elapsed();
    assert_eq!(stats[0].failed_passes, 0, "{:?}", stats[0].last_error);
    (stats[0].published as usize, elapsed)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let client = mongodb::Client::with_uri_str(mongo_url())
        .await
        .expect("a MongoDB URL (run scripts/services.sh)");
    client
        .database(DB)
        .drop()
        .await
        .expect("MongoDB (run scripts/services.sh)");
    let migrated = std::process::Command::new(env!("CARGO_BIN_EXE_outboxctl"))
        .stdout(std::process::Stdio::null())
        .args(["migrate", "-q", "--key-order", "strict", "--database-url"])
        .arg(mongo_url())
        .args(["--collection", &format!("{DB}.outbox")])
        .args(hlc().then_some("--hlc-ordering"))
        .status()
        .expect("running outboxctl migrate");
    assert!(migrated.success(), "outboxctl migrate failed");
    let coll = client.database(DB).collection::<Document>("outbox");
    let rounds: usize = std::env::var("OUTBOXCTL_BENCH_ROUNDS")
        .map_or(3, |v| v.parse().expect("OUTBOXCTL_BENCH_ROUNDS: a number"));
    println!(
        "relay on MongoDB against the limit (find, claim, mark: three round trips per 100 documents); {KEYS} ordering keys; {order}; median of {rounds} interleaved rounds",
        order = if hlc() {
            "HLC order"
        } else {
            "created_at order"
        },
    );
    println!(
        "{:<24} {:>7} {:>11} {:>11} {:>6} {:>11}",
        "key order", "N", "limit ev/s", "relay ev/s", "ratio", "rounds"
    );
    for n in common::sizes(&[20_000]) {
        for strict in [false, true] {
            let (mut limits, mut relays) = (Vec::new(), Vec::new());
            for _ in 0..rounds {
                stage(&coll, n).await;
                let (moved, d) = limit(&coll).await;
                assert_eq!(moved, n, "the limit marked {moved} of {n}");
                limits.push(n as f64 / d.as_secs_f64());
                stage(&coll, n).await;
                let (published, d) = relay(strict).await;
                assert_eq!(published, n, "the relay published {published} of {n}");
                relays.push(n as f64 / d.as_secs_f64());
            }
            let ratios: Vec<f64> = relays.iter().zip(&limits).map(|(r, l)| r / l).collect();
            let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let (limit, relay) = (median(limits), median(relays));
            println!(
                "{:<24} {n:>7} {limit:>11.0} {relay:>11.0} {:>6.2} {:>11}",
                if strict { "strict" } else { "best-effort" },
                relay / limit,
                format!("{lo:.2}–{hi:.2}"),
            );
        }
    }
    client.database(DB).drop().await.ok();
}
