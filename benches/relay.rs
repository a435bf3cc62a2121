//! Relay throughput against the physical limit, on the real PostgreSQL.
//!
//!     cargo bench --bench relay                      # N = 20,000 and 200,000, every mode
//!     OUTBOXCTL_BENCH_N=20000 OUTBOXCTL_BENCH_MODES=consume,retain cargo bench --bench relay
//!     OUTBOXCTL_BENCH_OTHER_BIN=/path/to/an/older/outboxctl[,another] cargo bench --bench relay
//!
//! **The limit** is what PostgreSQL itself does when one client claims full rows and deletes
//! (consume) or marks (retain) them with nothing published: the two shapes of
//! `../shared/bench/physical-limit.sh`, their SQL carried here verbatim and run in this process
//! on one connection with named prepared statements, batches of 100:
//! - *claim-delete*: `BEGIN`; `SELECT` every column `… FOR UPDATE SKIP LOCKED`; `DELETE` (retain:
//!   `UPDATE … SET status = 'published'`) the same rows; `COMMIT`: four round trips a batch;
//! - *one statement* (consume): `WITH picked AS (… FOR UPDATE SKIP LOCKED) DELETE … RETURNING`.
//!
//! The limit's claim reads only `available_at IS NULL`: it is the limit, not a legal claim. The
//! relay must still take due retries, keep retain's 32-id mark chunks and each pass's timeouts.
//! Each ratio is the relay ÷ the claim-delete shape of the same storage on the same staged table.
//! Under retain the *floor* column is a diagnostic: the same shape writing each row twice, as
//! the contract does (claim to `processing`, then 32-id marks to `published`), named; beside it
//! the relay (default) ÷ that floor; a line under each retain row gives the floor ÷ the limit
//! (the most any relay keeping the contract can reach) and both relays ÷ the floor.
//!
//! For each N and mode the sides run interleaved, three rounds, and the median counts (the
//! lowest and highest ratio within a single round printed beside it, so a figure near a target
//! shows how far the next run may land from it): the limit,
//! the relay to `file:/dev/null` as it ships (pooler-safe defaults, its claim and retain's marks
//! calls of the functions `migrate` adds), the relay with
//! `prepared_statements: true` (under retain claiming ahead on a second connection, as that
//! setting configures it by default), and, as a diagnostic only, a loop of the relay's own statements
//! through its store with nothing published. Then: the relay through a pgbouncer in transaction
//! pooling against the same relay direct; the relay as it ships against the same relay whose
//! claim and marks go as SQL (their functions dropped), every mode; two relays on the route at
//! once (a connection each) against one, and against the limit; retain with and without
//! claiming ahead, with and without named statements, against the limit; the relay as `relay --once` assembles it, with the
//! relay registry and a heartbeat every 100 ms against `outbox.registry: off`; consume on a tie group (every row one `created_at`)
//! against distinct rows; the built binary as a child (`relay --once` to `file:/dev/null`), its
//! CPU seconds and peak RSS per 100,000 events from `wait4`, beside `OUTBOXCTL_BENCH_OTHER_BIN`
//! (older builds, comma-separated) when given; and pgbench's figure for the limit when pgbench is installed.
//!
//! Every side connects as the role `outboxctl_bench`, whose `synchronous_commit = off` holds
//! through the pooler too (commit latency on virtual disks is erratic).

#![expect(
    clippy::disallowed_methods,
    reason = "the limit talks to PostgreSQL directly, with named statements"
)]

mod common;

use std::time::{Duration, Instant};

use common::{Bouncer, Mode, ROUTE, base_url, bench_role, options, settings, stage, url};
use outboxctl::dburl::DatabaseUrl;
use outboxctl::destination::{Sink, lines::Lines};
use outboxctl::model::Storage;
use outboxctl::relay::Relay;
use outboxctl::store::postgres::PgStore;
use outboxctl::store::{PassTarget, RelayStore};
use sqlx::{Connection, Executor, PgConnection};

const SCHEMA: &str = "bench_relay";

/// `physical-limit.sh`'s columns and predicate, verbatim.
const COLS: &str = "id, outbox_route, event_id, event_type, tenant_id, execution_id, correlation_id, causation_id, occurred_at, payload, status, created_at, attempts, ordering_key";
const PRED: &str = "outbox_route = 'orders' AND status = 'pending' AND available_at IS NULL";

/// The claim-delete shape's statements for a storage: the claim, then the delete (or mark).
fn limit_sql(storage: Storage) -> (String, String) {
    let s = SCHEMA;
    let finish = match storage {
        Storage::Consume => format!("DELETE FROM {s}.outbox"),
        Storage::Retain => {
            format!("UPDATE {s}.outbox SET status = 'published', published_at = now()")
        }
    };
    (
        format!(
            "SELECT {COLS} FROM {s}.outbox WHERE {PRED} ORDER BY available_at, created_at LIMIT 100 FOR UPDATE SKIP LOCKED"
        ),
        format!(
            "{finish} WHERE id IN (SELECT id FROM {s}.outbox WHERE {PRED} ORDER BY available_at, created_at LIMIT 100 FOR UPDATE)"
        ),
    )
}

/// Retain's own floor: the limit's shape with the contract's writes, each row written twice as
/// forze writes it. The claim `UPDATE`s the picked rows to `processing` (one statement, its own
/// commit), then each 32-id chunk is marked `published` (a statement and a commit each), all
/// named. Not the baseline: it shows how much of retain's distance to the limit is the
/// contract's, not the relay's.
async fn retain_floor() -> (usize, Duration) {
    let mut conn = bench_conn().await;
    let s = SCHEMA;
    let claim = format!(
        "UPDATE {s}.outbox SET status = 'processing', processing_at = now() WHERE id IN (SELECT id FROM {s}.outbox WHERE {PRED} ORDER BY available_at, created_at LIMIT 100 FOR UPDATE SKIP LOCKED) RETURNING {COLS}"
    );
    let mark = format!(
        "UPDATE {s}.outbox SET status = 'published', published_at = now(), last_error = NULL WHERE id = ANY($1) AND status = 'processing'"
    );
    let started = Instant::now();
    let mut total = 0;
    loop {
        let rows = conn.fetch_all(sqlx::query(&claim)).await.unwrap();
        let ids: Vec<uuid::Uuid> = rows.iter().map(|r| sqlx::Row::get(r, "id")).collect();
        for chunk in ids.chunks(32) {
            conn.execute(sqlx::query(&mark).bind(chunk)).await.unwrap();
        }
        total += rows.len();
        if rows.is_empty() {
            break;
        }
    }
    (total, started.elapsed())
}

/// The one-statement shape (consume).
fn one_statement_sql() -> String {
    let s = SCHEMA;
    format!(
        "WITH picked AS (SELECT id FROM {s}.outbox WHERE {PRED} ORDER BY available_at, created_at LIMIT 100 FOR UPDATE SKIP LOCKED) DELETE FROM {s}.outbox o USING picked WHERE o.id = picked.id RETURNING o.*"
    )
}

async fn bench_conn() -> PgConnection {
    let url = url(false);
    PgConnection::connect(url.expose()).await.unwrap()
}

/// The claim-delete shape: named prepared statements (sqlx caches them; each runs in one round
/// trip once prepared), `BEGIN` and `COMMIT` as simple queries, until a claim comes back empty.
async fn limit(storage: Storage) -> (usize, Duration) {
    let mut conn = bench_conn().await;
    let (claim, finish) = limit_sql(storage);
    let started = Instant::now();
    let mut total = 0;
    loop {
        conn.execute("BEGIN").await.unwrap();
        let rows = conn.fetch_all(sqlx::query(&claim)).await.unwrap();
        conn.execute(sqlx::query(&finish)).await.unwrap();
        conn.execute("COMMIT").await.unwrap();
        total += rows.len();
        if rows.is_empty() {
            break;
        }
    }
    (total, started.elapsed())
}

/// The one-statement shape.
async fn limit_one_statement() -> (usize, Duration) {
    let mut conn = bench_conn().await;
    let sql = one_statement_sql();
    let started = Instant::now();
    let mut total = 0;
    loop {
        let rows = conn.fetch_all(sqlx::query(&sql)).await.unwrap();
        total += rows.len();
        if rows.is_empty() {
            break;
        }
    }
    (total, started.elapsed())
}

fn target() -> PassTarget {
    PassTarget {
        route: ROUTE.into(),
        tenant: None,
    }
}

/// Diagnostic: the relay's own statements through its store (named), nothing published.
async fn own_statements(mode: Mode) -> (usize, Duration) {
    let mut store = PgStore::connect(
        &url(false),
        Duration::from_secs(10),
        options(SCHEMA, mode, true),
    )
    .await
    .unwrap();
    let started = Instant::now();
    let mut total = 0;
    loop {
        store.begin_pass(&target()).await.unwrap();
        let claimed = store
            .claim(&target(), 100, chrono::Utc::now())
            .await
            .unwrap();
        let ids: Vec<uuid::Uuid> = claimed.rows.iter().map(|r| r.id).collect();
        let chunk = match mode.storage() {
            Storage::Retain => 32,
            Storage::Consume => ids.len().max(1),
        };
        for ids in ids.chunks(chunk) {
            store
                .mark_published(&target(), ids, chrono::Utc::now())
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

/// Drops the functions `migrate` made for `mode` (the relay's default options: the claim's and,
/// under retain, the mark's), so that the relay's statements go as SQL.
async fn drop_functions(mode: Mode) {
    let mut conn = bench_conn().await;
    for f in outboxctl::store::postgres::sql::functions(&options(SCHEMA, mode, false)) {
        conn.execute(format!("DROP FUNCTION {}({})", f.name, f.arguments).as_str())
            .await
            .unwrap();
    }
}

/// The relay in this process, to `file:/dev/null`, as `relay --once` runs it.
async fn relay(mode: Mode, db: &DatabaseUrl, prepared: bool) -> (usize, Duration) {
    relays(mode, db, prepared, 1, false).await
}

/// The relay with a second connection claiming each next batch ahead (`relay.claim_ahead`).
async fn relay_ahead(mode: Mode, db: &DatabaseUrl, prepared: bool) -> (usize, Duration) {
    relays(mode, db, prepared, 1, true).await
}

/// `count` relays on the route at once, each on its own connection (as `count` processes
/// would run): the events they published together and the time until the last one was done.
/// `ahead`: each with a second connection that claims ahead.
async fn relays(
    mode: Mode,
    db: &DatabaseUrl,
    prepared: bool,
    count: usize,
    ahead: bool,
) -> (usize, Duration) {
    let mut all = Vec::new();
    for _ in 0..count {
        let connect =
            || PgStore::connect(db, Duration::from_secs(10), options(SCHEMA, mode, prepared));
        let store = connect().await.unwrap();
        let sink = Sink::Publisher(std::sync::Arc::new(
            Lines::file(std::path::Path::new("/dev/null")).unwrap(),
        ));
        let mut relay = Relay::single(store, vec![(target(), sink)], settings(mode));
        if ahead {
            relay.lanes[0].ahead = Some(connect().await.unwrap());
        }
        all.push(relay);
    }
    let started = Instant::now();
    let drains = all.iter_mut().map(|r| r.drain_once(None, |_, _| {}));
    let stats = futures_util::future::join_all(drains).await;
    let elapsed = started.elapsed();
    let mut published = 0;
    for s in stats.iter().map(|s| &s[0]) {
        assert_eq!(s.failed_passes, 0, "{:?}", s.last_error);
        published += s.published as usize;
    }
    (published, elapsed)
}

/// `OUTBOXCTL_BENCH_HEARTBEAT`: the registry side's `relay.heartbeat` (default 100ms, the floor).
fn heartbeat_interval() -> String {
    std::env::var("OUTBOXCTL_BENCH_HEARTBEAT").unwrap_or_else(|_| "100ms".into())
}

/// The relay as `relay --once` assembles it from its configuration, to `file:/dev/null`, with
/// the relay registry migrate adds heartbeating every [`heartbeat_interval`], or with
/// `outbox.registry: off`; `prepared`: named statements (the claim then reads the pauses too).
/// Timed from the first pass (the registration is part of assembling).
async fn assembled(mode: Mode, prepared: bool, registry: bool) -> (usize, Duration) {
    let mut yaml = format!(
        "database_url: {url}\noutbox:\n  relation: {SCHEMA}.outbox\n  storage: {storage}\n  hlc_ordering: {hlc}\n",
        url = url(false).expose(),
        storage = match mode.storage() {
            Storage::Consume => "consume",
            Storage::Retain => "retain",
        },
        hlc = mode.hlc(),
    );
    if mode == Mode::ConsumeLog {
        yaml += &format!("  delivery_log: {SCHEMA}.outbox_delivered\n");
    }
    if !registry {
        yaml += "  registry: off\n";
    }
    yaml += &format!(
        "relay:\n  reclaim_stale_after: null\n  heartbeat: {heartbeat}\n  prepared_statements: {prepared}\n  key_order: {}\n",
        if mode == Mode::Strict {
            "strict"
        } else {
            "best-effort"
        },
        heartbeat = heartbeat_interval(),
    );
    let file = outboxctl::config::FileConfig::parse("bench.yaml", &yaml).unwrap();
    let config =
        outboxctl::config::Config::resolve(file, None, &Default::default(), &|_| None).unwrap();
    let request = outboxctl::relay::assemble::RelayRequest {
        routes: vec![ROUTE.into()],
        to: Some("file:/dev/null".into()),
        looping: false,
        stop: None,
    };
    let mut warnings = Vec::new();
    let mut a = outboxctl::relay::assemble::assemble(
        &config,
        Duration::from_secs(10),
        &request,
        &mut |w| warnings.push(w.to_owned()),
    )
    .await
    .unwrap()
    .expect("no stop was asked for");
    assert_eq!(
        a.heartbeat.is_some(),
        registry,
        "registered: {registry}; warnings: {warnings:?}"
    );
    let started = Instant::now();
    let stats = a.relay.drain_once(None, |_, _| {}).await;
    let elapsed = started.elapsed();
    assert_eq!(stats[0].failed_passes, 0, "{:?}", stats[0].last_error);
    if let Some(h) = a.heartbeat {
        h.stop(Duration::from_secs(2)).await;
    }
    (stats[0].published as usize, elapsed)
}

/// A built binary as an operator runs it: `relay --once` to `file:/dev/null`, as a child;
/// events, wall time, CPU seconds (user + system) and peak RSS in MiB, from `wait4`.
#[expect(
    clippy::zombie_processes,
    reason = "reaped by wait4, which also returns its resource usage"
)]
fn binary(bin: &str, mode: Mode) -> (usize, Duration, f64, f64) {
    let started = Instant::now();
    let child = std::process::Command::new(bin)
        .args(["relay", "--once", "--format", "json", "--route", ROUTE])
        .args([
            "--to",
            "file:/dev/null",
            "--database-url",
            url(false).expose(),
        ])
        .args(["--relation", &format!("{SCHEMA}.outbox")])
        .args(mode.flags(SCHEMA))
        .env("RUST_LOG", "error")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut child.stdout.unwrap(), &mut text).unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our child, not yet reaped; the pointers are to live locals.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4");
    let elapsed = started.elapsed();
    assert_eq!(status, 0, "{bin} relay --once failed: {text}");
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    let published: u64 = report["routes"]
        .as_array()
        .or_else(|| report.as_array())
        .expect("a list of routes")
        .iter()
        .map(|r| r["published"].as_u64().unwrap())
        .sum();
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (
        published as usize,
        elapsed,
        secs(usage.ru_utime) + secs(usage.ru_stime),
        usage.ru_maxrss as f64 / 1024.0,
    )
}

/// pgbench on the claim-delete shape, as `physical-limit.sh` runs it (events/s), if installed.
fn pgbench(storage: Storage, n: usize) -> Option<f64> {
    let (claim, finish) = limit_sql(storage);
    let file =
        std::env::temp_dir().join(format!("outboxctl-bench-limit-{}.sql", std::process::id()));
    std::fs::write(&file, format!("BEGIN;\n{claim};\n{finish};\nCOMMIT;\n")).unwrap();
    let out = std::process::Command::new("pgbench")
        .args(["-n", "-M", "prepared", "-c", "1", "-t"])
        .arg(n.div_ceil(100).to_string())
        .arg("-f")
        .arg(&file)
        .arg(url(false).expose())
        .output()
        .ok()?;
    let _ = std::fs::remove_file(&file);
    let text = String::from_utf8_lossy(&out.stdout);
    let tps: f64 = text
        .lines()
        .find(|l| l.starts_with("tps"))?
        .split_whitespace()
        .nth(2)?
        .parse()
        .ok()?;
    Some(tps * 100.0)
}

/// `OUTBOXCTL_BENCH_MODES=consume,retain` runs only those modes (names without spaces:
/// `consume`, `retain`, `consume+deliverylog`, `retainHLCorder`, `consumestrictorder`).
fn modes() -> Vec<Mode> {
    let all = [
        Mode::Consume,
        Mode::Retain,
        Mode::ConsumeLog,
        Mode::Hlc,
        Mode::Strict,
    ];
    let squash = |s: &str| s.replace(' ', "").to_lowercase();
    match std::env::var("OUTBOXCTL_BENCH_MODES") {
        Ok(v) => all
            .into_iter()
            .filter(|m| v.split(',').any(|w| squash(w) == squash(m.name())))
            .collect(),
        Err(_) => all.to_vec(),
    }
}

fn rate((n, d): (usize, Duration)) -> f64 {
    n as f64 / d.as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Rounds per comparison: `OUTBOXCTL_BENCH_ROUNDS` (default 3).
fn round_count() -> usize {
    std::env::var("OUTBOXCTL_BENCH_ROUNDS")
        .map_or(3, |v| v.parse().expect("OUTBOXCTL_BENCH_ROUNDS: a number"))
}

/// Whether a part after the main table runs: `OUTBOXCTL_BENCH_PARTS` (comma-separated, of
/// `pgbouncer`, `function`, `pair`, `ahead`, `registry`, `ties`, `binary`, `pgbench`; default all).
fn part(name: &str) -> bool {
    std::env::var("OUTBOXCTL_BENCH_PARTS").map_or(true, |v| v.split(',').any(|p| p.trim() == name))
}

/// The lowest and highest of the per-round ratios `top[i] / bottom[i]` (each round runs both
/// sides on the same staged rows, one after the other): how far one median ratio may be from
/// the next run's.
fn spread(top: &[f64], bottom: &[f64]) -> String {
    let ratios: Vec<f64> = top.iter().zip(bottom).map(|(t, b)| t / b).collect();
    let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("{lo:.2}–{hi:.2}")
}

/// One row of a two-sided part: each side's median, their ratio and its spread.
fn pair_row(mode: Mode, all: &[Vec<f64>]) {
    let r = medians(all);
    println!(
        "{:<28} {:>14.0} {:>14.0} {:>7.2} {:>11}",
        mode.name(),
        r[0],
        r[1],
        r[1] / r[0],
        spread(&all[1], &all[0])
    );
}

/// The median of each side's rounds.
fn medians(all: &[Vec<f64>]) -> Vec<f64> {
    all.iter().cloned().map(median).collect()
}

/// Runs each side on a freshly staged table, interleaved, [`round_count`] times; each side's
/// rate in each round.
async fn rounds<F>(
    conn: &mut PgConnection,
    mode: Mode,
    n: usize,
    sides: usize,
    mut run: F,
) -> Vec<Vec<f64>>
where
    F: AsyncFnMut(usize) -> (usize, Duration),
{
    let mut all: Vec<Vec<f64>> = vec![Vec::new(); sides];
    for _ in 0..round_count() {
        for (side, rates) in all.iter_mut().enumerate() {
            stage(conn, SCHEMA, mode, n).await;
            let (count, d) = run(side).await;
            assert_eq!(
                count,
                n,
                "side {side} of {} moved {count} of {n} rows",
                mode.name()
            );
            rates.push(rate((count, d)));
        }
    }
    all
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let sizes = common::sizes(&[20_000, 200_000]);
    let mut conn = PgConnection::connect(&base_url())
        .await
        .expect("PostgreSQL (run scripts/services.sh)");
    bench_role(&mut conn).await;
    let direct = url(false);
    println!(
        "relay against the physical limit (claim-delete shape, named statements, one connection); median of {} interleaved rounds; synchronous_commit off",
        round_count()
    );
    println!("(ratio: of the medians; rounds: the lowest and highest ratio within one round)");
    println!(
        "{:<28} {:>8} {:>11} {:>11} {:>6} {:>11} {:>11} {:>6} {:>11} {:>14} {:>11}",
        "mode",
        "N",
        "limit ev/s",
        "relay ev/s",
        "ratio",
        "rounds",
        "prepared",
        "ratio",
        "rounds",
        "1-stmt|floor",
        "own stmts"
    );
    for &n in &sizes {
        for mode in modes() {
            let storage = mode.storage();
            let consume = storage == Storage::Consume;
            let all = rounds(&mut conn, mode, n, 5, async |side| match side {
                0 => limit(storage).await,
                1 => relay(mode, &direct, false).await,
                // as `prepared_statements: true` configures it: claiming ahead under retain
                2 => relays(mode, &direct, true, 1, !consume).await,
                3 if consume => limit_one_statement().await,
                3 => retain_floor().await,
                _ => own_statements(mode).await,
            })
            .await;
            let r = medians(&all);
            let one = if consume {
                format!("{:.0}", r[3])
            } else {
                // retain: the contract's floor, and the relay's share of it
                format!("{:.0} ({:.2})", r[3], r[1] / r[3])
            };
            println!(
                "{:<28} {:>8} {:>11.0} {:>11.0} {:>6.2} {:>11} {:>11.0} {:>6.2} {:>11} {:>14} {:>11.0}",
                mode.name(),
                n,
                r[0],
                r[1],
                r[1] / r[0],
                spread(&all[1], &all[0]),
                r[2],
                r[2] / r[0],
                spread(&all[2], &all[0]),
                one,
                r[4]
            );
            if !consume {
                // the contract caps any legal retain relay at its floor: a ratio asked of the
                // relay above the floor's own cannot be met on this machine
                println!(
                    "{:<28} the floor is {:.2} of the limit; the relay at {:.2} of it ({:.2} with prepared_statements)",
                    "",
                    r[3] / r[0],
                    r[1] / r[3],
                    r[2] / r[3]
                );
            }
        }
    }
    let n = sizes[0];

    // through pgbouncer (transaction pooling): the relay as it ships, pooled and direct
    if part("pgbouncer") {
        let bouncer = Bouncer::start();
        println!();
        println!("through pgbouncer 1.18, transaction pooling (N = {n}): the relay as it ships");
        println!(
            "{:<28} {:>14} {:>14} {:>7} {:>11}",
            "mode", "direct ev/s", "pooled ev/s", "ratio", "rounds"
        );
        for mode in [Mode::Consume, Mode::Retain] {
            let all = rounds(&mut conn, mode, n, 2, async |side| match side {
                0 => relay(mode, &direct, false).await,
                _ => relay(mode, &bouncer.url, false).await,
            })
            .await;
            pair_row(mode, &all);
        }
        drop(bouncer);
    }

    // the functions of the pass (migrate adds them): the relay as it ships against the same relay
    // with them dropped, whose claim (and retain's marks) then go as SQL, planned on every pass
    if part("function") {
        println!();
        println!(
            "the functions of the pass (N = {n}): the relay as it ships, calling them, against its claim and marks sent as SQL (functions dropped)"
        );
        println!(
            "{:<28} {:>14} {:>14} {:>7} {:>11}",
            "mode", "as SQL ev/s", "function ev/s", "ratio", "rounds"
        );
        for mode in modes() {
            let all = rounds(&mut conn, mode, n, 2, async |side| {
                if side == 0 {
                    drop_functions(mode).await;
                }
                relay(mode, &direct, false).await
            })
            .await;
            pair_row(mode, &all);
        }
    }

    // two relays on the route at once (two processes' worth, one connection each) against one,
    // and against the limit, which is one connection's
    if part("pair") {
        println!();
        println!(
            "two relays on one route at once against one relay, as it ships (N = {n}); the limit is one connection's"
        );
        println!(
            "{:<28} {:>11} {:>11} {:>11} {:>7} {:>11} {:>11}",
            "mode", "limit ev/s", "one ev/s", "two ev/s", "ratio", "rounds", "two ÷ limit"
        );
        for mode in [Mode::Consume, Mode::Retain] {
            let all = rounds(&mut conn, mode, n, 3, async |side| match side {
                0 => limit(mode.storage()).await,
                count => relays(mode, &direct, false, count, false).await,
            })
            .await;
            let r = medians(&all);
            println!(
                "{:<28} {:>11.0} {:>11.0} {:>11.0} {:>7.2} {:>11} {:>11.2}",
                mode.name(),
                r[0],
                r[1],
                r[2],
                r[2] / r[1],
                spread(&all[2], &all[1]),
                r[2] / r[0]
            );
        }
    }

    // retain with a second connection claiming each next batch while a pass delivers its own
    if part("ahead") {
        println!();
        println!(
            "retain with relay.claim_ahead (a second connection claims the next batch meanwhile) against the limit (N = {n})"
        );
        println!(
            "{:<28} {:>11} {:>11} {:>7} {:>11} {:>7} {:>11} {:>7} {:>11} {:>7}",
            "mode",
            "limit ev/s",
            "relay",
            "ratio",
            "+ ahead",
            "ratio",
            "prepared",
            "ratio",
            "+ ahead",
            "ratio"
        );
        for mode in modes()
            .into_iter()
            .filter(|m| m.storage() == Storage::Retain)
        {
            let all = rounds(&mut conn, mode, n, 5, async |side| match side {
                0 => limit(mode.storage()).await,
                1 => relay(mode, &direct, false).await,
                2 => relay_ahead(mode, &direct, false).await,
                3 => relay(mode, &direct, true).await,
                _ => relay_ahead(mode, &direct, true).await,
            })
            .await;
            let r = medians(&all);
            println!(
                "{:<28} {:>11.0} {:>11.0} {:>7.2} {:>11.0} {:>7.2} {:>11.0} {:>7.2} {:>11.0} {:>7.2}",
                mode.name(),
                r[0],
                r[1],
                r[1] / r[0],
                r[2],
                r[2] / r[0],
                r[3],
                r[3] / r[0],
                r[4],
                r[4] / r[0]
            );
            println!(
                "{:<28} rounds of + ahead ÷ limit: {} (default), {} (prepared)",
                "",
                spread(&all[2], &all[0]),
                spread(&all[4], &all[0])
            );
        }
    }

    // the relay registry: a relay heartbeating (every 100 ms) against one with the registry off
    if part("registry") {
        println!();
        println!(
            "with the relay registry (relay.heartbeat {}) against outbox.registry: off (N = {n}), assembled as relay --once",
            heartbeat_interval()
        );
        println!(
            "{:<28} {:>10} {:>10} {:>6} {:>14} {:>14} {:>6}",
            "mode", "off ev/s", "on ev/s", "ratio", "prepared off", "prepared on", "ratio"
        );
        for mode in [Mode::Consume, Mode::Retain] {
            let r = medians(
                &rounds(&mut conn, mode, n, 4, async |side| {
                    assembled(mode, side >= 2, side % 2 == 1).await
                })
                .await,
            );
            println!(
                "{:<28} {:>10.0} {:>10.0} {:>6.2} {:>14.0} {:>14.0} {:>6.2}",
                mode.name(),
                r[0],
                r[1],
                r[1] / r[0],
                r[2],
                r[3],
                r[3] / r[2]
            );
        }
    }

    // a tie group: every row one created_at, against distinct rows
    if part("ties") {
        let ties_n = 50_000.min(sizes[sizes.len() - 1]);
        let mut distinct = Vec::new();
        let mut tied = Vec::new();
        for _ in 0..round_count() {
            stage(&mut conn, SCHEMA, Mode::Consume, ties_n).await;
            distinct.push(rate(relay(Mode::Consume, &direct, false).await));
            stage(&mut conn, SCHEMA, Mode::ConsumeTies, ties_n).await;
            tied.push(rate(relay(Mode::ConsumeTies, &direct, false).await));
        }
        let (distinct, tied) = (median(distinct), median(tied));
        println!();
        println!(
            "consume, N = {ties_n}: one created_at {tied:.0} ev/s, distinct {distinct:.0} ev/s, ratio {:.2}",
            tied / distinct
        );
    }

    // the built binary as a child: CPU and memory per 100,000 events
    if part("binary") {
        println!();
        println!(
            "the binary (relay --once to file:/dev/null, N = {n}): ev/s, CPU seconds and peak RSS per 100,000 events; median of {}",
            round_count()
        );
        let mut bins = vec![(
            "this build".to_owned(),
            env!("CARGO_BIN_EXE_outboxctl").to_owned(),
        )];
        if let Ok(others) = std::env::var("OUTBOXCTL_BENCH_OTHER_BIN") {
            bins.extend(
                others
                    .split(',')
                    .map(|b| (b.trim().to_owned(), b.trim().to_owned())),
            );
        }
        for mode in [Mode::Consume, Mode::Retain] {
            let mut per_bin: Vec<(Vec<f64>, Vec<f64>, Vec<f64>)> =
                vec![Default::default(); bins.len()];
            for _ in 0..round_count() {
                for (i, (_, bin)) in bins.iter().enumerate() {
                    stage(&mut conn, SCHEMA, mode, n).await;
                    let (count, d, cpu, rss) = binary(bin, mode);
                    assert_eq!(count, n, "{bin}");
                    per_bin[i].0.push(rate((count, d)));
                    per_bin[i].1.push(cpu * 100_000.0 / n as f64);
                    per_bin[i].2.push(rss);
                }
            }
            for ((name, _), (r, cpu, rss)) in bins.iter().zip(per_bin) {
                println!(
                    "{:<28} {:<40} {:>9.0} ev/s {:>6.2} CPU s {:>6.1} MiB",
                    mode.name(),
                    name,
                    median(r),
                    median(cpu),
                    median(rss)
                );
            }
        }
    }

    // pgbench's own figure for the limit, on the same staged table
    if part("pgbench") {
        println!();
        for storage in [Storage::Consume, Storage::Retain] {
            let mode = if storage == Storage::Consume {
                Mode::Consume
            } else {
                Mode::Retain
            };
            stage(&mut conn, SCHEMA, mode, n).await;
            match pgbench(storage, n) {
                Some(r) => println!("pgbench, claim-delete shape, {}: {r:.0} ev/s", mode.name()),
                None => println!("pgbench not installed: no pgbench figure"),
            }
        }
    }

    sqlx::raw_sql(&format!("DROP SCHEMA IF EXISTS {SCHEMA} CASCADE"))
        .execute(&mut conn)
        .await
        .unwrap();
}
