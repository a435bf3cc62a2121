//! A consume outbox under full churn, with and without `outbox.autovacuum: queue`: how large
//! its table grows and how many dead rows it carries.
//!
//!     cargo bench --bench bloat                         # 1,000,000 events per run
//!     OUTBOXCTL_BENCH_N=200000 OUTBOXCTL_BENCH_NAPTIME=10s cargo bench --bench bloat
//!
//! Each run starts a PostgreSQL of its own (`scripts/postgres`, `autovacuum_naptime` from
//! `OUTBOXCTL_BENCH_NAPTIME`, default 10s: the interval is server-wide, and the server default
//! of a minute lets a fast queue run for a minute between looks whatever the table's settings),
//! migrates a consume outbox (the second run with `autovacuum: queue`), and stages N events in
//! batches of 1,000 as fast as one connection can while `outboxctl relay --loop` (the built
//! binary, `file:/dev/null`, `interval: 100ms`) drains them at its full speed. Every 250 ms it
//! samples the table's total size (`pg_total_relation_size`), dead rows (`n_dead_tup`) and live
//! rows (`n_live_tup`: the backlog); it reports the peaks, the figures when the last event is
//! delivered, and the autovacuums seen.

#![expect(
    clippy::disallowed_methods,
    reason = "the bench stages and samples on a PostgreSQL of its own, directly"
)]

use std::os::unix::process::CommandExt;
use std::time::{Duration, Instant};

use sqlx::{Connection, PgConnection, Row};

/// A PostgreSQL of the bench's own, stopped when dropped.
struct OwnPg {
    child: std::process::Child,
    dir: std::path::PathBuf,
    url: String,
}

impl OwnPg {
    fn start(naptime: &str) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let dir = std::env::temp_dir().join(format!("outboxctl-bench-bloat-{port}"));
        let _ = std::fs::remove_dir_all(&dir);
        let child =
            std::process::Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/postgres"))
                .arg(dir.join("data"))
                .arg(port.to_string())
                .env("PG_SETTINGS", format!("autovacuum_naptime={naptime}"))
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .process_group(0)
                .spawn()
                .expect(
                    "scripts/postgres (PostgreSQL's server binaries: apt-get install postgresql)",
                );
        let deadline = Instant::now() + Duration::from_secs(60);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "the bench's PostgreSQL did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Self {
            child,
            dir,
            url: format!("postgres://postgres@127.0.0.1:{port}/postgres"),
        }
    }
}

impl Drop for OwnPg {
    fn drop(&mut self) {
        let _ = std::process::Command::new("kill")
            .args(["-TERM", "--", &format!("-{}", self.child.id())])
            .status();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// What one run saw.
#[derive(Debug, Default)]
struct Seen {
    seconds: f64,
    peak_bytes: i64,
    peak_dead: i64,
    peak_live: i64,
    end_bytes: i64,
    end_dead: i64,
    autovacuums: i64,
}

async fn sample(conn: &mut PgConnection) -> (i64, i64, i64, i64) {
    let r = sqlx::query(
        "SELECT pg_total_relation_size('app.outbox'), coalesce(n_dead_tup, 0), coalesce(n_live_tup, 0),
                coalesce(autovacuum_count, 0)
           FROM pg_stat_user_tables WHERE relid = 'app.outbox'::regclass",
    )
    .fetch_one(conn)
    .await
    .unwrap();
    (r.get(0), r.get(1), r.get(2), r.get(3))
}

async fn run(n: usize, naptime: &str, queue: bool) -> Seen {
    let pg = OwnPg::start(naptime);
    let bin = env!("CARGO_BIN_EXE_outboxctl");
    let cfg =
        std::env::temp_dir().join(format!("outboxctl-bench-bloat-{}.yaml", std::process::id()));
    std::fs::write(
        &cfg,
        format!(
            "outbox:\n  relation: app.outbox\n  storage: consume\n  autovacuum: {}\nrelay:\n  interval: 100ms\n",
            if queue { "queue" } else { "default" }
        ),
    )
    .unwrap();
    let migrated = std::process::Command::new(bin)
        .args(["migrate", "-q", "--database-url", &pg.url, "--config"])
        .arg(&cfg)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(migrated.success());
    let mut relay = std::process::Command::new(bin)
        .args([
            "relay",
            "--loop",
            "--route",
            "orders",
            "--to",
            "file:/dev/null",
        ])
        .args(["--database-url", &pg.url, "--config"])
        .arg(&cfg)
        .env("RUST_LOG", "error")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stager = PgConnection::connect(&pg.url).await.unwrap();
    let mut sampler = PgConnection::connect(&pg.url).await.unwrap();
    let started = Instant::now();
    let mut seen = Seen::default();
    let mut staged = 0;
    let mut next_sample = Instant::now();
    loop {
        if staged < n {
            let batch = 1_000.min(n - staged);
            sqlx::query(
                "INSERT INTO app.outbox (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, ordering_key)
                 SELECT gen_random_uuid(), 'orders', gen_random_uuid(), 'order.placed', now(),
                        jsonb_build_object('order_id', g, 'total', '19.90'), 'pending', clock_timestamp(), 'key-' || (g % 50)
                   FROM generate_series(1, $1) g",
            )
            .bind(batch as i32)
            .execute(&mut stager)
            .await
            .unwrap();
            staged += batch;
        } else {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if Instant::now() >= next_sample {
            next_sample += Duration::from_millis(250);
            let (bytes, dead, live, autovacuums) = sample(&mut sampler).await;
            seen.peak_bytes = seen.peak_bytes.max(bytes);
            seen.peak_dead = seen.peak_dead.max(dead);
            seen.peak_live = seen.peak_live.max(live);
            seen.autovacuums = autovacuums;
            if staged == n && live == 0 {
                let left: i64 = sqlx::query_scalar("SELECT count(*) FROM app.outbox")
                    .fetch_one(&mut sampler)
                    .await
                    .unwrap();
                if left == 0 {
                    seen.seconds = started.elapsed().as_secs_f64();
                    seen.end_bytes = bytes;
                    seen.end_dead = dead;
                    break;
                }
            }
        }
    }
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &relay.id().to_string()])
        .status();
    let _ = relay.wait();
    let _ = std::fs::remove_file(&cfg);
    seen
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let n: usize = std::env::var("OUTBOXCTL_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let naptime = std::env::var("OUTBOXCTL_BENCH_NAPTIME").unwrap_or_else(|_| "10s".into());
    println!(
        "a consume outbox under full churn: {n} events staged in batches of 1,000 while relay --loop drains them; autovacuum_naptime = {naptime}"
    );
    println!(
        "{:<26} {:>9} {:>12} {:>14} {:>14} {:>12} {:>14} {:>12}",
        "table settings",
        "seconds",
        "peak size",
        "peak dead rows",
        "peak live rows",
        "end size",
        "end dead rows",
        "autovacuums"
    );
    for queue in [false, true] {
        let s = run(n, &naptime, queue).await;
        let mb = |b: i64| format!("{:.1} MB", b as f64 / 1048576.0);
        println!(
            "{:<26} {:>9.1} {:>12} {:>14} {:>14} {:>12} {:>14} {:>12}",
            if queue {
                "autovacuum: queue"
            } else {
                "server defaults"
            },
            s.seconds,
            mb(s.peak_bytes),
            s.peak_dead,
            s.peak_live,
            mb(s.end_bytes),
            s.end_dead,
            s.autovacuums
        );
    }
}
