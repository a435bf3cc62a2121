//! The relay's database goes away under a looping relay and comes back (a PostgreSQL or mongod
//! of the test's own, stopped for several of the failure backoff's steps): no route backs off,
//! `/metrics`, `/healthz` and `/readyz` say where things stand, and once the database answers
//! the first pass begins within a second plus the interval (with `wake: notify`, at once),
//! with nothing lost and no more duplicates than a rolled-back pass may leave.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::{
    CONNECT, KillOnDrop, OK, emit_events, eventually, free_port, lines, ob, out_file, own_mongod,
    own_postgres, wait_log, wait_until,
};

/// The first log line holding `needle`, as a person reads it, with what changes from run to run
/// masked: the timestamp, ports (`PORT`), digits of durations (`N`).
fn log_line(log: &Path, needle: &str) -> String {
    let text = std::fs::read_to_string(log).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no {needle:?} in the log:\n{text}"));
    // "2026-12-04T06:22:06.699647Z  WARN message": from the level on
    let line = line.split_once("Z  ").map_or(line, |(_, rest)| rest);
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("127.0.0.1:") {
        out.push_str(&rest[..at + "127.0.0.1:".len()]);
        rest = rest[at + "127.0.0.1:".len()..].trim_start_matches(|c: char| c.is_ascii_digit());
        out.push_str("PORT");
    }
    out.push_str(rest);
    // "after 9.5s away": the figure varies
    match out.split_once("after ") {
        Some((head, tail)) if tail.starts_with(|c: char| c.is_ascii_digit()) => {
            let tail = tail.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
            format!("{head}after Ns{}", tail.trim_start_matches('s'))
        }
        _ => out,
    }
}

/// One HTTP GET to the relay's endpoint: status and body.
async fn get(url: &str) -> (u16, String) {
    match reqwest::get(url).await {
        Ok(r) => (r.status().as_u16(), r.text().await.unwrap_or_default()),
        Err(e) => (0, e.to_string()),
    }
}

/// How many times each event id arrived in the file.
fn arrivals(path: &Path) -> HashMap<String, usize> {
    let mut seen = HashMap::new();
    for l in lines(&path.to_path_buf()) {
        *seen
            .entry(l["event_id"].as_str().unwrap().to_owned())
            .or_insert(0) += 1;
    }
    seen
}

/// Waits until `n` distinct events arrived in the file; on timeout the failure shows the
/// relay's log.
async fn arrived(path: &Path, n: usize, what: &str, log: &Path) {
    eventually(Duration::from_secs(60), what, async || {
        let got = arrivals(path).len();
        if got >= n {
            Ok(())
        } else {
            Err(format!(
                "{got} so far; relay log:\n{}",
                std::fs::read_to_string(log).unwrap_or_default()
            ))
        }
    })
    .await
}

/// The outage story on an outbox `base` (the database flags): 50 events delivered, the
/// database stopped (`up(false)`) for `outage`, during which the endpoint says the database is
/// away and counts the heartbeats that failed, the route takes no backoff, liveness stays 200 and readiness 503; started again (`up(true)`),
/// 20 more staged, and the time from the database answering to their delivery returned.
async fn across_an_outage(
    base: &[String],
    path: &Path,
    metrics: &str,
    relay: KillOnDrop,
    log: &Path,
    outage: Duration,
    up: &mut dyn FnMut(bool),
) -> Duration {
    let emit = |n: u32| {
        emit_events("orders", n, "{}").args(base).code(OK);
    };
    emit(50);
    arrived(path, 50, "the first 50 events", log).await;
    up(false);
    let stopped = Instant::now();
    eventually(
        Duration::from_secs(30),
        "the relay to see the database away",
        async || {
            let (_, text) = get(&format!("{metrics}/metrics")).await;
            if text.contains("outboxctl_database_up 0") {
                Ok(())
            } else {
                Err(text)
            }
        },
    )
    .await;
    // the heartbeat fails meanwhile, and /metrics counts it while the database is still away
    eventually(
        Duration::from_secs(30),
        "a failed heartbeat counted during the outage",
        async || {
            let (_, text) = get(&format!("{metrics}/metrics")).await;
            let failures = text
                .lines()
                .find_map(|l| l.strip_prefix("outboxctl_heartbeat_failures_total "))
                .and_then(|n| n.trim().parse::<u64>().ok());
            match failures {
                Some(n) if n > 0 => Ok(()),
                _ => Err(text),
            }
        },
    )
    .await;
    wait_until(
        Duration::from_secs(60),
        "an outage of several backoff steps",
        || stopped.elapsed() >= outage,
    )
    .await;
    // top pointed at the relay shows both sides of the outage, its own and the relay's, and
    // exits 3 (it exited 3 at once and showed nothing of the relay)
    let top = ob(["top", "--once", "--relay", metrics])
        .args(base)
        .code(CONNECT);
    let away = |s: &str| s.matches("DATABASE AWAY: ").count();
    assert_eq!(
        away(&top.stdout),
        2,
        "the headline and the relay's line: {top:?}"
    );
    assert!(
        top.stdout.contains(&format!("relay {metrics}  up")),
        "{top:?}"
    );
    let (status, body) = get(&format!("{metrics}/healthz")).await;
    assert_eq!(status, 200, "alive while the database is away: {body}");
    assert!(body.contains("database is away"), "{body}");
    let (status, body) = get(&format!("{metrics}/readyz")).await;
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("the database is away"), "{body}");
    let (_, text) = get(&format!("{metrics}/metrics")).await;
    assert!(
        text.contains("outboxctl_database_away_info{reason="),
        "{text}"
    );
    assert!(
        !text
            .lines()
            .any(|l| l.starts_with("outboxctl_route_backoff_seconds") && !l.ends_with(" 0")),
        "no route backs off for an outage:\n{text}"
    );
    up(true);
    let back = Instant::now();
    emit(20);
    arrived(path, 70, "the events staged after the outage", log).await;
    let took = back.elapsed();
    assert!(relay.terminate().success(), "the relay stopped cleanly");
    let seen = arrivals(path);
    assert_eq!(seen.len(), 70, "nothing lost");
    let duplicates: usize = seen.values().map(|n| n - 1).sum();
    assert!(
        duplicates <= 100,
        "{duplicates} duplicates: more than a rolled-back pass (max_claim_rows) may leave"
    );
    let text = std::fs::read_to_string(log).unwrap();
    assert!(
        !text.contains("backing off"),
        "an outage is no failing route:\n{text}"
    );
    assert_eq!(
        text.matches("the database is away").count(),
        1,
        "said once, not per probe:\n{text}"
    );
    took
}

/// The flags of a relay on `url`'s outbox, to a file, with an endpoint; its config.
fn relay(
    test: &str,
    base: &[String],
    path: &Path,
    log: &Path,
    relay_yaml: &str,
) -> (KillOnDrop, String) {
    let port = free_port();
    let cfg = crate::common::config_file(test, &format!("relay:\n{relay_yaml}"));
    let relay = ob(["relay", "--loop", "--route", "orders"])
        .args(["--to", &format!("file:{}", path.display())])
        .args(["--metrics-addr", &format!("127.0.0.1:{port}")])
        .args(base)
        .config(&cfg)
        .spawn(Some(log));
    (relay, format!("http://127.0.0.1:{port}"))
}

/// Polling every 200 ms, PostgreSQL stopped for 7 s: the failure backoff would be at 6.4 s by
/// then (and 12.8 s next); the relay is back within a second of the database instead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_away_is_no_failing_route_and_the_relay_is_back_within_a_second() {
    let test = test_name!();
    let (mut pg, url) = own_postgres(test, false).await;
    let base: Vec<String> = ["--database-url", &url, "--relation", "app.outbox"]
        .iter()
        .map(|s| s.to_string())
        .chain(["--storage".into(), "consume".into()])
        .collect();
    ob(["migrate", "-q"]).args(&base).code(OK);
    let (path, log) = (out_file(test), out_file(&format!("{test}-log")));
    let (relay, metrics) = relay(test, &base, &path, &log, "  interval: 200ms\n");
    let took = across_an_outage(
        &base,
        &path,
        &metrics,
        relay,
        &log,
        Duration::from_secs(7),
        &mut |up| {
            if up {
                crate::common::on_tokio(async {
                    pg.start().await;
                    crate::common::postgres_ready(&url).await;
                });
            } else {
                pg.stop();
            }
        },
    )
    .await;
    assert!(
        took < Duration::from_millis(2500),
        "delivered {took:?} after the database came back (probe within 1 s, interval 200 ms)"
    );
    // which step met the outage depends on when the server stopped: the line's words are
    // fixed, its cause names a step of the pass and what the driver said
    let away = log_line(&log, "the database is away");
    let (words, cause) = away.split_once("at most: ").expect("a cause");
    insta::assert_snapshot!("postgres_away", format!("{words}at most: <cause>"));
    assert!(
        [
            "reconnecting: error connecting to server: Connection refused (os error 111); is PostgreSQL running",
            "the pass: the connection was lost",
            "claiming: ",
            "reclaiming stale rows: ",
            "deleting the delivered rows: ",
            "committing the pass: ",
        ]
        .iter()
        .any(|c| cause.starts_with(c)),
        "{cause}"
    );
    insta::assert_snapshot!(
        "database_back",
        log_line(&log, "the database answers again")
    );
}

/// `wake: notify` and an interval of an hour: only the database's answer (a probe, or the
/// wake-up listener reconnecting) can bring the relay back, and it does at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_away_with_wake_the_relay_is_back_at_once() {
    let test = test_name!();
    let (mut pg, url) = own_postgres(test, false).await;
    let base: Vec<String> = ["--database-url", &url, "--relation", "app.outbox"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let cfg = crate::common::config_file(&format!("{test}-migrate"), "relay:\n  wake: notify\n");
    ob(["migrate", "-q"]).args(&base).config(&cfg).code(OK);
    let (path, log) = (out_file(test), out_file(&format!("{test}-log")));
    let (relay, metrics) = relay(test, &base, &path, &log, "  interval: 1h\n  wake: notify\n");
    wait_log(&log, "listening", 1).await;
    let took = across_an_outage(
        &base,
        &path,
        &metrics,
        relay,
        &log,
        Duration::from_secs(5),
        &mut |up| {
            if up {
                crate::common::on_tokio(async {
                    pg.start().await;
                    crate::common::postgres_ready(&url).await;
                });
            } else {
                pg.stop();
            }
        },
    )
    .await;
    assert!(
        took < Duration::from_millis(2500),
        "delivered {took:?} after the database came back, with an interval of an hour"
    );
    insta::assert_snapshot!(
        "wake_listener_cannot_reconnect",
        log_line(&log, "the wake-up connection cannot reconnect")
    );
    // listening again wakes every route: rows staged while it was away are not left for an hour
    log_line(
        &log,
        "the wake-up connection listens again: every route runs now",
    );
}

/// The same on MongoDB (a mongod of the test's own, a replica set of one).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mongodb_away_is_no_failing_route_and_the_relay_is_back_within_a_second() {
    let test = test_name!();
    let own = own_mongod(test, 28500, false);
    own.start();
    own.primary().await;
    let url = format!("mongodb://127.0.0.1:{}/?replicaSet=rsr", own.port);
    let base: Vec<String> = [
        "--database-url",
        &url,
        "--collection",
        "outage.outbox",
        "--connect-timeout",
        "3s",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    ob(["migrate", "-q"]).args(&base).code(OK);
    let (path, log) = (out_file(test), out_file(&format!("{test}-log")));
    let (relay, metrics) = relay(test, &base, &path, &log, "  interval: 200ms\n");
    let took = across_an_outage(
        &base,
        &path,
        &metrics,
        relay,
        &log,
        Duration::from_secs(7),
        &mut |up| {
            if up {
                own.start();
                crate::common::on_tokio(own.primary());
            } else {
                own.stop();
            }
        },
    )
    .await;
    // the driver finds the primary again on its own heartbeat (every 500 ms at the quickest)
    assert!(
        took < Duration::from_secs(4),
        "delivered {took:?} after mongod came back"
    );
    // the first words mongod had for it: shutting down, or no server to talk to
    let away = log_line(&log, "the database is away");
    assert!(
        away.contains("ShutdownInProgress")
            || away.contains("InterruptedAtShutdown")
            || away.contains("no MongoDB server to talk to"),
        "{away}"
    );
    assert!(
        !away.contains("Kind:") && !away.contains("labels:"),
        "{away}"
    );
}

/// A stop while PostgreSQL stalls (SIGSTOP: connections stay open, nothing is answered) ends
/// within the drain's budget and a bounded cancel of the pass it cuts, not after
/// --connect-timeout (30 s here), so a service manager's stop timeout need not kill it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_while_postgres_stalls_ends_within_the_drain_and_a_bounded_cancel() {
    let test = test_name!();
    let (pg, url) = own_postgres(test, false).await;
    let base: Vec<String> = [
        "--database-url",
        &url,
        "--relation",
        "app.outbox",
        "--connect-timeout",
        "30s",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    ob(["migrate", "-q"]).args(&base).code(OK);
    let (path, log) = (out_file(test), out_file(&format!("{test}-log")));
    let yaml = "  interval: 200ms\n  pass_statement_timeout: 400ms\n  shutdown_drain_timeout: 2s\n";
    let (mut relay, _metrics) = relay(test, &base, &path, &log, yaml);
    emit_events("orders", 1, "{}").args(&base).code(OK);
    arrived(&path, 1, "the relay running", &log).await;
    // the relay's open connection stalls too
    pg.signal_postgres("-STOP");
    let stopped = relay.terminate_within(Duration::from_secs(12)).await;
    pg.signal_postgres("-CONT");
    let status = stopped.unwrap_or_else(|| {
        panic!(
            "still running 12 s after SIGTERM (drain 2 s); relay log:\n{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        )
    });
    assert!(status.success(), "{status:?}");
}

/// A stop while the looping relay is still starting (here: connecting to a server that
/// accepts and never answers, under a 30 s connect timeout) ends it at once with 0, as a stop
/// once it runs does; before, SIGTERM's default action killed it (143).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_while_the_relay_starts_ends_it_at_once_with_0() {
    let test = test_name!();
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("postgres://postgres@{}/test", silent.local_addr().unwrap());
    let cfg =
        crate::common::config_file(test, "relay:\n  routes:\n    orders:\n      to: stdout\n");
    let mut relay = ob(["relay", "--loop", "--connect-timeout", "30s"])
        .args(["--database-url", &url, "--relation", "app.outbox"])
        .config(&cfg)
        .spawn(Some(&out_file(&format!("{test}-log"))));
    // held open, never answered
    let (_held, _) = silent.accept().unwrap();
    let status = relay.terminate_within(Duration::from_secs(5)).await;
    let status = status.expect("still starting 5 s after SIGTERM");
    assert!(status.success(), "{status:?}");
}

/// A server that only reads (here a role read-only by default; after a failover, the old
/// primary come back as a standby): the relay takes it for a database away, drops the
/// connection and probes until a new one writes, where it kept the read-only connection and
/// failed every pass for good; once connections write again it delivers, without a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_only_reads_is_waited_out_and_the_relay_delivers_after() {
    let test = test_name!();
    let (schema, mut conn) = crate::common::PgSchema::new(test).await;
    crate::common::migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let role = format!("ro_{}", schema.name);
    let s = &schema.name;
    sqlx::raw_sql(&format!(
        "DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN;
         GRANT USAGE ON SCHEMA {s} TO {role}; GRANT ALL ON ALL TABLES IN SCHEMA {s} TO {role};
         ALTER ROLE {role} SET default_transaction_read_only = on"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    crate::common::stage(&mut conn, &t, "orders", 5, None).await;
    let url = crate::common::pg_url().replacen("://postgres@", &format!("://{role}@"), 1);
    let base: Vec<String> = ["--database-url", &url, "--relation", &t]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let (path, log) = (out_file(test), out_file(&format!("{test}-log")));
    let (relay, _metrics) = relay(test, &base, &path, &log, "  interval: 100ms\n");
    wait_log(&log, "the database is away", 1).await;
    assert!(
        log_line(&log, "the database is away").contains("read-only transaction"),
        "{}",
        std::fs::read_to_string(&log).unwrap()
    );
    sqlx::raw_sql(&format!(
        "ALTER ROLE {role} RESET default_transaction_read_only"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    arrived(&path, 5, "the rows once connections write", &log).await;
    assert!(relay.terminate().success());
    crate::common::drop_role(&mut conn, &role).await;
}

/// PostgreSQL stalled (SIGSTOP: connections stay open, the kernel acknowledges what is sent,
/// nothing is answered) is an outage as a stopped server is: the pass and the heartbeat are
/// bounded from the client's side, so `/metrics` says the database is away and counts the
/// heartbeats that failed, readiness is 503, and the relay delivers once it answers again. It
/// hung with every signal green (`outboxctl_database_up 1`, `/readyz` 200, no failed beat) for
/// as long as the stall lasted: `statement_timeout` cannot fire in a stopped server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_stalled_is_an_outage_the_relay_sees_and_outlasts() {
    let test = test_name!();
    let (pg, url) = own_postgres(test, false).await;
    let base: Vec<String> = ["--database-url", &url, "--relation", "app.outbox"]
        .iter()
        .map(|s| s.to_string())
        .chain(["--connect-timeout".into(), "2s".into()])
        .collect();
    ob(["migrate", "-q"]).args(&base).code(OK);
    let (path, log) = (out_file(test), out_file(&format!("{test}-log")));
    let yaml = "  interval: 200ms\n  pass_statement_timeout: 400ms\n  pass_deadline: 1s\n  heartbeat: 500ms\n";
    let (relay, metrics) = relay(test, &base, &path, &log, yaml);
    across_an_outage(
        &base,
        &path,
        &metrics,
        relay,
        &log,
        Duration::from_secs(4),
        &mut |up| pg.signal_postgres(if up { "-CONT" } else { "-STOP" }),
    )
    .await;
    let away = log_line(&log, "the database is away");
    assert!(
        away.contains("stalls") || away.contains("no answer"),
        "{away}"
    );
}
