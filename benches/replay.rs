//! Replay throughput against its physical limit, and its memory, on the real PostgreSQL.
//!
//!     cargo bench --bench replay                  # N = 100,000 and 1,000,000
//!     OUTBOXCTL_BENCH_N=20000 cargo bench --bench replay
//!
//! For each N it stages N delivered rows (retain storage, 500 keys) with the replay index, then
//! reads them in claim order three ways, best of two each:
//!
//! - the baseline, the physical limit: ONE statement streaming every row's columns in claim
//!   order through the replay index (no paging, no message built, nothing written);
//! - `replay::run` in this process to `file:/dev/null`: keyset pages of 500, each row's message
//!   built as the relay builds it, written as a JSON line, flushed per page;
//! - the shipped binary, `outboxctl replay --to file:/dev/null --yes`, as a child, whose peak
//!   resident memory (`ru_maxrss` from `wait4`) shows whether memory grows with N.

mod common;

use std::time::{Duration, Instant};

use common::{Mode, base_url, options, stage};
use futures_util::TryStreamExt;
use outboxctl::destination::BuildContext;
use outboxctl::replay::{self, Destinations, Pace, Selection};
use outboxctl::store::postgres::replay::{Lane, PgPublished};
use outboxctl::target::QualifiedName;
use sqlx::{Connection, PgConnection, Row};

const SCHEMA: &str = "bench_replay";

async fn deliver_all(conn: &mut PgConnection) {
    for sql in [
        format!(
            "UPDATE {SCHEMA}.outbox SET status = 'published', published_at = created_at + interval '5 ms'"
        ),
        format!(
            "CREATE INDEX outbox_replay_idx ON {SCHEMA}.outbox (outbox_route, created_at, id) WHERE status = 'published'"
        ),
        format!("VACUUM (FREEZE, ANALYZE) {SCHEMA}.outbox"),
    ] {
        sqlx::raw_sql(&sql).execute(&mut *conn).await.unwrap();
    }
}

/// One statement, every row, in claim order: what reading them cannot beat.
async fn baseline() -> (usize, Duration) {
    let mut conn = PgConnection::connect(&base_url()).await.unwrap();
    let started = Instant::now();
    let sql = format!(
        "SELECT id, outbox_route, event_id, event_type, tenant_id, execution_id, correlation_id, causation_id,
                occurred_at, attempts, ordering_key, created_at, payload::text AS payload, published_at
           FROM {SCHEMA}.outbox WHERE outbox_route = 'orders' AND status = 'published' ORDER BY created_at, id"
    );
    let mut rows = sqlx::raw_sql(&sql).fetch(&mut conn);
    let (mut n, mut bytes) = (0, 0);
    while let Some(r) = rows.try_next().await.unwrap() {
        bytes += r.get::<&str, _>("payload").len();
        n += 1;
    }
    assert!(bytes > 0);
    (n, started.elapsed())
}

/// `outboxctl replay` in this process, to /dev/null.
async fn in_process() -> (usize, Duration) {
    let conn = PgConnection::connect(&base_url()).await.unwrap();
    let table = QualifiedName::parse("relation", &format!("{SCHEMA}.outbox")).unwrap();
    let lanes = vec![Lane {
        tenant: None,
        table,
        route: common::ROUTE.into(),
    }];
    let selection = Selection {
        routes: vec![common::ROUTE.into()],
        ..Default::default()
    };
    let started = Instant::now();
    let mut source = PgPublished::open(
        conn,
        options(SCHEMA, Mode::Retain, false),
        lanes,
        selection,
        "run outboxctl migrate",
        None,
    )
    .await
    .unwrap();
    let mut to = Destinations::new(
        "file:/dev/null",
        None,
        BuildContext {
            reclaim_stale_after: None,
            ack_timeout: Duration::from_secs(10),
        },
    )
    .unwrap();
    let tally = replay::run(&mut source, &mut to, &Pace::default(), |_| {})
        .await
        .unwrap();
    (tally.count as usize, started.elapsed())
}

/// The binary as an operator runs it: events, time, peak RSS in MiB.
#[expect(
    clippy::zombie_processes,
    reason = "reaped by wait4, which also returns its resource usage"
)]
fn child() -> (usize, Duration, f64) {
    let started = Instant::now();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_outboxctl"))
        .args([
            "replay",
            "--route",
            common::ROUTE,
            "--to",
            "file:/dev/null",
            "--yes",
        ])
        .args(["--format", "json", "--database-url", &base_url()])
        .args(["--relation", &format!("{SCHEMA}.outbox")])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut stdout = child.stdout.unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut text).unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our child, not yet reaped; the pointers are to live locals.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4");
    assert_eq!(status, 0, "replay failed: {text}");
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    (
        report["count"].as_u64().unwrap() as usize,
        started.elapsed(),
        usage.ru_maxrss as f64 / 1024.0,
    )
}

fn rate(n: usize, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let sizes = common::sizes(&[100_000, 1_000_000]);
    let mut conn = PgConnection::connect(&base_url())
        .await
        .expect("PostgreSQL (run scripts/services.sh)");
    println!(
        "replay vs baseline (one statement streaming every row in claim order, nothing built or written)"
    );
    println!(
        "{:>9} {:>14} {:>14} {:>7} {:>14} {:>14}",
        "N", "baseline ev/s", "replay ev/s", "ratio", "binary ev/s", "binary RSS MiB"
    );
    for &n in &sizes {
        stage(&mut conn, SCHEMA, Mode::Retain, n).await;
        deliver_all(&mut conn).await;
        let (mut base, mut ours, mut bin, mut rss): (f64, f64, f64, f64) = (0.0, 0.0, 0.0, 0.0);
        for _round in 0..2 {
            let (count, d) = baseline().await;
            assert_eq!(count, n);
            base = base.max(rate(count, d));
            let (count, d) = in_process().await;
            assert_eq!(count, n);
            ours = ours.max(rate(count, d));
            let (count, d, peak) = child();
            assert_eq!(count, n);
            bin = bin.max(rate(count, d));
            rss = rss.max(peak);
        }
        println!(
            "{n:>9} {base:>14.0} {ours:>14.0} {:>7.2} {bin:>14.0} {rss:>14.1}",
            ours / base
        );
    }
    sqlx::raw_sql(&format!("DROP SCHEMA IF EXISTS {SCHEMA} CASCADE"))
        .execute(&mut conn)
        .await
        .unwrap();
}
