//! Commit-to-acknowledgement latency of a looping relay, and what the wake trigger costs the
//! writers, on the real PostgreSQL and NATS JetStream.
//!
//!     cargo bench --bench latency                       # 1,000 events/s for 30 s per run
//!     OUTBOXCTL_BENCH_SECONDS=10 OUTBOXCTL_BENCH_RATE=500 cargo bench --bench latency
//!     OUTBOXCTL_BENCH_MODES=wake OUTBOXCTL_BENCH_TO=nats OUTBOXCTL_BENCH_WRITERS=0 cargo bench --bench latency
//!
//! A stager commits one event per transaction at a steady rate from a connection of its own
//! (as `outboxctl_bench`, whose `synchronous_commit = off`: commit latency on virtual disks is
//! erratic and not what is measured) and notes when each commit returned. The shipped binary
//! runs `relay --loop` to NATS JetStream (a subscriber of the bench notes when each message
//! arrives; JetStream acknowledged it to the relay by then) and to `file:` (the bench reads the
//! file as it grows, every 200 µs, and notes when each line appears; the relay fsyncs before it
//! marks). Latency is arrival minus commit, per event, for polling at 1 s, polling at 100 ms,
//! and wake-up on commit (`relay.wake: notify`, polling at 1 s as the safety net).
//!
//! Then the trigger's cost: 8 connections committing single-row inserts as fast as they can for
//! a few seconds, with and without the wake trigger (NOTIFY takes a global lock at commit),
//! with `synchronous_commit` off and on.

mod common;

use std::collections::HashMap;
use std::io::{BufRead, Seek};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{base_url, bench_role, url};
use futures_util::StreamExt;
use sqlx::{Connection, PgConnection};
use uuid::Uuid;

const SCHEMA: &str = "bench_latency";

type Commits = Arc<Mutex<HashMap<Uuid, Instant>>>;
type Arrivals = Arc<Mutex<HashMap<Uuid, Instant>>>;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_outboxctl")
}

fn table() -> String {
    format!("{SCHEMA}.outbox")
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .map(|v| v.parse().unwrap_or_else(|_| panic!("{name}: not a number")))
        .unwrap_or(default)
}

/// Fresh schema, the outbox with the wake trigger (`with_trigger`) or without.
async fn fresh(conn: &mut PgConnection, with_trigger: bool) {
    sqlx::raw_sql(&format!("DROP SCHEMA IF EXISTS {SCHEMA} CASCADE"))
        .execute(&mut *conn)
        .await
        .unwrap();
    let mut cmd = Command::new(bin());
    cmd.args([
        "migrate",
        "-q",
        "--database-url",
        &base_url(),
        "--relation",
        &table(),
    ]);
    let cfg = config_path("migrate");
    if with_trigger {
        std::fs::write(&cfg, "relay:\n  wake: notify\n").unwrap();
        cmd.args(["--config", cfg.to_str().unwrap()]);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn config_path(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join("outboxctl-bench");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("latency-{name}.yaml"))
}

/// Starts `relay --loop` and waits until it is ready (and listening, with wake-up).
fn relay(name: &str, yaml: &str, wake: bool) -> Child {
    let cfg = config_path(name);
    std::fs::write(&cfg, yaml).unwrap();
    let mut child = Command::new(bin())
        .args(["relay", "--loop", "--database-url", url(false).expose()])
        .args(["--relation", &table(), "--config", cfg.to_str().unwrap()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut ready = Some(tx);
        for line in std::io::BufReader::new(stderr).lines() {
            let Ok(line) = line else { return };
            let done = if wake {
                line.contains("wake-up on commit: listening")
            } else {
                line.contains("relay started")
            };
            if line.contains("warning") || line.contains("ERROR") {
                eprintln!("relay: {line}");
            }
            if done {
                if let Some(tx) = ready.take() {
                    let _ = tx.send(());
                }
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(30))
        .expect("the relay to start");
    child
}

/// Commits one event per transaction at `rate`/s for `seconds`; notes each commit's return.
async fn stage(rate: u32, seconds: u64, commits: Commits) -> usize {
    let mut conn = PgConnection::connect(url(false).expose()).await.unwrap();
    let sql = format!(
        "INSERT INTO {} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at)
         VALUES ($1, 'lat', $2, 'bench.latency', now(), '{{\"n\": 1}}', 'pending', clock_timestamp())",
        table()
    );
    let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / f64::from(rate)));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let end = Instant::now() + Duration::from_secs(seconds);
    let mut n = 0;
    while Instant::now() < end {
        tick.tick().await;
        let event = Uuid::now_v7();
        outboxctl::db::pg::query(&sql)
            .prepared(true)
            .bind(Uuid::now_v7())
            .bind(event)
            .execute(&mut conn)
            .await
            .unwrap();
        commits.lock().unwrap().insert(event, Instant::now());
        n += 1;
    }
    n
}

/// Follows a JSON-lines file as it grows; notes when each event's line appears.
fn follow_file(path: PathBuf, arrivals: Arrivals, stop: Arc<std::sync::atomic::AtomicBool>) {
    std::thread::spawn(move || {
        let mut file = loop {
            if let Ok(f) = std::fs::File::open(&path) {
                break f;
            }
            std::thread::sleep(Duration::from_micros(200));
        };
        let mut pos = 0;
        let mut partial = String::new();
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            file.seek(std::io::SeekFrom::Start(pos)).unwrap();
            let mut reader = std::io::BufReader::new(&file);
            let mut line = String::new();
            let mut progressed = false;
            while reader.read_line(&mut line).unwrap() > 0 {
                pos += line.len() as u64;
                progressed = true;
                partial.push_str(&line);
                if partial.ends_with('\n') {
                    let v: serde_json::Value = serde_json::from_str(&partial).unwrap();
                    let id: Uuid = v["event_id"].as_str().unwrap().parse().unwrap();
                    arrivals.lock().unwrap().insert(id, Instant::now());
                    partial.clear();
                }
                line.clear();
            }
            if !progressed {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
    });
}

/// Subscribes to a NATS subject; notes when each event arrives.
async fn follow_nats(subject: String, arrivals: Arrivals) -> tokio::task::JoinHandle<()> {
    let client = async_nats::connect("nats://127.0.0.1:4222").await.unwrap();
    let mut sub = client.subscribe(subject).await.unwrap();
    client.flush().await.unwrap();
    tokio::spawn(async move {
        let _keep = client;
        while let Some(m) = sub.next().await {
            let at = Instant::now();
            if let Some(id) = m
                .headers
                .as_ref()
                .and_then(|h| h.get("forze_event_id"))
                .and_then(|v| v.as_str().parse::<Uuid>().ok())
            {
                arrivals.lock().unwrap().insert(id, at);
            }
        }
    })
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    let i = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

/// One run: a relay in `mode` to `dest`, the stager, the latencies in ms.
async fn run(mode: &str, dest: &str, rate: u32, seconds: u64, conn: &mut PgConnection) -> Vec<f64> {
    fresh(conn, true).await;
    let (interval, wake) = match mode {
        "poll 1s" => ("1s", false),
        "poll 100ms" => ("100ms", false),
        _ => ("1s", true),
    };
    let commits: Commits = Arc::default();
    let arrivals: Arrivals = Arc::default();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let slug = format!("{}-{}", mode.replace(' ', "-"), dest);
    let to = match dest {
        "nats" => {
            let subject = format!("bench.latency.{}", slug.replace('-', "_"));
            let _sub = follow_nats(subject.clone(), arrivals.clone()).await;
            format!(
                "to: nats://127.0.0.1:4222\n      channel: {subject}\n      create_stream: true"
            )
        }
        _ => {
            let path = std::env::temp_dir()
                .join("outboxctl-bench")
                .join(format!("latency-{slug}.jsonl"));
            let _ = std::fs::remove_file(&path);
            follow_file(path.clone(), arrivals.clone(), stop.clone());
            format!("to: file:{}", path.display())
        }
    };
    let yaml = format!(
        "relay:\n  interval: {interval}\n  jitter: 0\n  wake: {}\n  routes:\n    lat:\n      {to}\n",
        if wake { "notify" } else { "off" }
    );
    let mut child = relay(&slug, &yaml, wake);
    let n = stage(rate, seconds, commits.clone()).await;
    // every event arrives (or the run says how many did not)
    let deadline = Instant::now() + Duration::from_secs(30);
    while arrivals.lock().unwrap().len() < n && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
    let commits = commits.lock().unwrap();
    let arrivals = arrivals.lock().unwrap();
    assert_eq!(arrivals.len(), n, "{mode} to {dest}: every event arrives");
    let mut ms: Vec<f64> = commits
        .iter()
        .map(|(id, c)| arrivals[id].saturating_duration_since(*c).as_secs_f64() * 1000.0)
        .collect();
    ms.sort_by(f64::total_cmp);
    ms
}

/// Single-row commits per second from 8 connections for `seconds`.
async fn writers(sync_commit: bool, seconds: u64) -> f64 {
    let end = Instant::now() + Duration::from_secs(seconds);
    let sql = format!(
        "INSERT INTO {} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at)
         VALUES ($1, 'w', $2, 't', now(), '{{}}', 'pending', now())",
        table()
    );
    let tasks = (0..8).map(|_| {
        let sql = sql.clone();
        tokio::spawn(async move {
            let mut conn = PgConnection::connect(url(sync_commit).expose())
                .await
                .unwrap();
            let mut n = 0u64;
            while Instant::now() < end {
                outboxctl::db::pg::query(&sql)
                    .prepared(true)
                    .bind(Uuid::now_v7())
                    .bind(Uuid::now_v7())
                    .execute(&mut conn)
                    .await
                    .unwrap();
                n += 1;
            }
            n
        })
    });
    let mut total = 0;
    for t in tasks {
        total += t.await.unwrap();
    }
    total as f64 / seconds as f64
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let rate: u32 = env_or("OUTBOXCTL_BENCH_RATE", 1000);
    let seconds: u64 = env_or("OUTBOXCTL_BENCH_SECONDS", 30);
    let mut conn = PgConnection::connect(&base_url())
        .await
        .expect("PostgreSQL (run scripts/services.sh)");
    bench_role(&mut conn).await;
    println!(
        "commit to acknowledgement, {rate} events/s for {seconds} s, one commit each (synchronous_commit off)"
    );
    println!(
        "{:<12} {:<6} {:>8} {:>9} {:>9} {:>9} {:>9}",
        "mode", "to", "events", "p50 ms", "p95 ms", "p99 ms", "max ms"
    );
    // OUTBOXCTL_BENCH_MODES=wake,poll-100ms and OUTBOXCTL_BENCH_TO=nats pick runs
    let picked = |var: &str, name: &str| {
        std::env::var(var).map_or(true, |v| {
            v.split(',').any(|m| m.trim() == name.replace(' ', "-"))
        })
    };
    for dest in ["nats", "file"]
        .into_iter()
        .filter(|d| picked("OUTBOXCTL_BENCH_TO", d))
    {
        for mode in ["poll 1s", "poll 100ms", "wake"]
            .into_iter()
            .filter(|m| picked("OUTBOXCTL_BENCH_MODES", m))
        {
            let ms = run(mode, dest, rate, seconds, &mut conn).await;
            println!(
                "{mode:<12} {dest:<6} {:>8} {:>9.1} {:>9.1} {:>9.1} {:>9.1}",
                ms.len(),
                quantile(&ms, 0.5),
                quantile(&ms, 0.95),
                quantile(&ms, 0.99),
                ms[ms.len() - 1]
            );
        }
    }
    if std::env::var("OUTBOXCTL_BENCH_WRITERS").is_ok_and(|v| v == "0") {
        return;
    }
    println!();
    println!("the wake trigger's cost on writers: 8 connections, single-row commits, 5 s each");
    println!(
        "{:<22} {:>16} {:>16} {:>7}",
        "synchronous_commit", "without /s", "with trigger /s", "ratio"
    );
    for sync in [false, true] {
        let mut best = [0.0f64; 2];
        for _round in 0..2 {
            for (i, trigger) in [false, true].into_iter().enumerate() {
                fresh(&mut conn, trigger).await;
                best[i] = best[i].max(writers(sync, 5).await);
            }
        }
        println!(
            "{:<22} {:>16.0} {:>16.0} {:>7.2}",
            if sync { "on" } else { "off" },
            best[0],
            best[1],
            best[1] / best[0]
        );
    }
    sqlx::raw_sql(&format!("DROP SCHEMA IF EXISTS {SCHEMA} CASCADE"))
        .execute(&mut conn)
        .await
        .unwrap();
}
