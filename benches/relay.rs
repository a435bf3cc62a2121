//! Relay throughput against its physical limit, on the real PostgreSQL.
//!
//!     cargo bench --bench relay                 # N = 20,000 and 200,000
//!     OUTBOXCTL_BENCH_N=5000 cargo bench --bench relay
//!
//! For each mode (retain, consume, consume + delivery log, HLC order) it stages N rows with
//! COPY into a fresh schema and drains them twice, interleaved: the baseline, a minimal loop
//! that issues exactly the relay's own statements through the same store (same claim, same
//! 32-id chunked marks, same transaction shape, one connection, batches of 100, no publish);
//! then the relay itself to `file:/dev/null`. It prints events/s and relay/baseline.
//!
//! Modes: retain, consume, consume with the delivery log, retain in HLC order, and consume
//! with every row staged under one `created_at` (a tie group, as one transaction's `now()`
//! gives: the claim must not read and sort it whole).
//!
//! The baseline is the physical limit: named, cached statements, one round trip each, no
//! transaction around a retain statement. The relay runs as it ships (unnamed statements, each
//! retain statement in a transaction of its own: what pgbouncer's transaction pooling needs)
//! and with `prepared_statements: true`; then, for retain and consume, through a pgbouncer in
//! transaction pooling (`scripts/pgbouncer`). Every side connects as the role
//! `outboxctl_bench`, whose `synchronous_commit = off` (commit latency on virtual disks is
//! erratic) holds through the pooler; one extra pair runs with it on.

mod common;

use std::time::{Duration, Instant};

use common::{Bouncer, Mode, base_url, bench_role, options, settings, stage, url};
use outboxctl::dburl::DatabaseUrl;
use outboxctl::relay::Relay;
use outboxctl::relay::destination::{Sink, lines::Lines};
use outboxctl::store::postgres::PgStore;
use outboxctl::store::{PassTarget, RelayStore};
use sqlx::{Connection, PgConnection};

/// The physical limit: the relay's own statements, nothing else.
async fn baseline(schema: &str, mode: Mode, sync_commit: bool) -> (usize, Duration) {
    let mut store = PgStore::connect(
        &url(sync_commit),
        Duration::from_secs(10),
        options(schema, mode, true),
    )
    .await
    .unwrap();
    let target = PassTarget {
        route: "bench".into(),
        tenant: None,
    };
    let started = Instant::now();
    let mut total = 0;
    loop {
        store.begin_pass(&target).await.unwrap();
        let claimed = store.claim(&target, 100, chrono::Utc::now()).await.unwrap();
        for chunk in claimed.rows.chunks(32) {
            let ids: Vec<uuid::Uuid> = chunk.iter().map(|r| r.id).collect();
            store
                .mark_published(&target, &ids, chrono::Utc::now())
                .await
                .unwrap();
        }
        store.commit_pass().await.unwrap();
        total += claimed.rows.len();
        if claimed.candidates < 100 {
            break;
        }
    }
    (total, started.elapsed())
}

async fn relay(schema: &str, mode: Mode, db: &DatabaseUrl, prepared: bool) -> (usize, Duration) {
    let store = PgStore::connect(db, Duration::from_secs(10), options(schema, mode, prepared))
        .await
        .unwrap();
    let sink = Sink::Publisher(std::sync::Arc::new(
        Lines::file(std::path::Path::new("/dev/null")).unwrap(),
    ));
    let target = PassTarget {
        route: "bench".into(),
        tenant: None,
    };
    let mut relay = Relay::single(store, vec![(target, sink)], settings(mode));
    let started = Instant::now();
    let stats = relay.drain_once(None, |_, _| {}).await;
    assert_eq!(stats[0].failed_passes, 0, "{:?}", stats[0].last_error);
    (stats[0].published as usize, started.elapsed())
}

/// `OUTBOXCTL_BENCH_MODES=consume,retain` runs only those modes.
fn modes() -> Vec<Mode> {
    let all = [
        Mode::Retain,
        Mode::Consume,
        Mode::ConsumeLog,
        Mode::Hlc,
        Mode::ConsumeTies,
    ];
    match std::env::var("OUTBOXCTL_BENCH_MODES") {
        Ok(v) => all
            .into_iter()
            .filter(|m| {
                v.split(',').any(|w| {
                    m.name()
                        .replace(' ', "")
                        .starts_with(&w.trim().replace(' ', ""))
                })
            })
            .collect(),
        Err(_) => all.to_vec(),
    }
}

fn rate(n: usize, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let sizes = common::sizes(&[20_000, 200_000]);
    let mut conn = PgConnection::connect(&base_url())
        .await
        .expect("PostgreSQL (run scripts/services.sh)");
    bench_role(&mut conn).await;
    let schema = "bench_relay";
    println!(
        "relay vs baseline (the relay's statements, named and cached, no publish); synchronous_commit = off unless noted"
    );
    println!(
        "{:<26} {:>8} {:>14} {:>14} {:>7} {:>14} {:>7}",
        "mode", "N", "baseline ev/s", "relay ev/s", "ratio", "prepared ev/s", "ratio"
    );
    let direct = url(false);
    let mut per_mode: Vec<(Mode, usize, f64, f64)> = Vec::new();
    let mut worst_ratio = f64::MAX;
    for &n in &sizes {
        for mode in modes() {
            let mut best_base: f64 = 0.0;
            let mut best_relay: f64 = 0.0;
            let mut best_prepared: f64 = 0.0;
            for _round in 0..2 {
                stage(&mut conn, schema, mode, n).await;
                let (count, d) = baseline(schema, mode, false).await;
                assert_eq!(count, n);
                best_base = best_base.max(rate(count, d));
                stage(&mut conn, schema, mode, n).await;
                let (count, d) = relay(schema, mode, &direct, false).await;
                assert_eq!(count, n);
                best_relay = best_relay.max(rate(count, d));
                stage(&mut conn, schema, mode, n).await;
                let (count, d) = relay(schema, mode, &direct, true).await;
                assert_eq!(count, n);
                best_prepared = best_prepared.max(rate(count, d));
            }
            let ratio = best_relay / best_base;
            worst_ratio = worst_ratio.min(best_prepared / best_base);
            per_mode.push((mode, n, best_relay, best_base));
            println!(
                "{:<26} {:>8} {:>14.0} {:>14.0} {:>7.2} {:>14.0} {:>7.2}",
                mode.name(),
                n,
                best_base,
                best_relay,
                ratio,
                best_prepared,
                best_prepared / best_base
            );
        }
    }
    // through pgbouncer (transaction pooling): the shipped relay against the same baseline
    let bouncer = Bouncer::start();
    let n = sizes[0];
    println!();
    println!("through pgbouncer 1.18, transaction pooling (N = {n}, best of 2)");
    println!(
        "{:<26} {:>14} {:>18} {:>7}",
        "mode", "baseline ev/s", "relay pooled ev/s", "ratio"
    );
    for mode in [Mode::Retain, Mode::Consume] {
        let (mut best_base, mut best_pooled): (f64, f64) = (0.0, 0.0);
        for _round in 0..2 {
            stage(&mut conn, schema, mode, n).await;
            let (count, d) = baseline(schema, mode, false).await;
            assert_eq!(count, n);
            best_base = best_base.max(rate(count, d));
            stage(&mut conn, schema, mode, n).await;
            let (count, d) = relay(schema, mode, &bouncer.url, false).await;
            assert_eq!(count, n);
            best_pooled = best_pooled.max(rate(count, d));
        }
        println!(
            "{:<26} {:>14.0} {:>18.0} {:>7.2}",
            mode.name(),
            best_base,
            best_pooled,
            best_pooled / best_base
        );
    }
    drop(bouncer);
    // one pair with synchronous_commit on
    let n = sizes[0];
    stage(&mut conn, schema, Mode::Consume, n).await;
    let (c, d) = baseline(schema, Mode::Consume, true).await;
    let base = rate(c, d);
    stage(&mut conn, schema, Mode::Consume, n).await;
    let (c, d) = relay(schema, Mode::Consume, &url(true), false).await;
    let rel = rate(c, d);
    println!(
        "{:<26} {:>8} {:>14.0} {:>14.0} {:>7.2}",
        "consume, sync commit ON",
        n,
        base,
        rel,
        rel / base
    );
    sqlx::raw_sql(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"))
        .execute(&mut conn)
        .await
        .unwrap();

    println!();
    println!(
        "worst prepared/baseline ratio: {worst_ratio:.2} (target >= 0.80); the relay column is the cost of pooler-safe statements"
    );
    if sizes.len() >= 2 {
        let (small, large) = (sizes[0], sizes[sizes.len() - 1]);
        for mode in modes() {
            let at = |size| {
                *per_mode
                    .iter()
                    .find(|(m, s, _, _)| *m == mode && *s == size)
                    .unwrap()
            };
            println!(
                "{:<26} relay ev/s at {large} / at {small}: {:.2} (target >= 0.80); baseline: {:.2}",
                mode.name(),
                at(large).2 / at(small).2,
                at(large).3 / at(small).3
            );
        }
    }
}
