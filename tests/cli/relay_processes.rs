//! The relay as separate processes: kill -9 mid-drain, several relays on one route, SIGTERM.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Child;
use std::time::Duration;

use crate::common::{OK, PgSchema, lines, migrate, ob, out_file, stage, wait_until};

fn line_count(path: &Path) -> usize {
    std::fs::read(path)
        .map(|b| b.iter().filter(|&&c| c == b'\n').count())
        .unwrap_or(0)
}

fn spawn_relay(schema: &PgSchema, mode: &str, to: &Path, cfg: &str, extra: &[&str]) -> Child {
    ob(["relay", mode, "--route", "orders"])
        .pg(&schema.rel("outbox"))
        .args(["--to", &format!("file:{}", to.display()), "--config", cfg])
        .args(extra)
        .spawn_piped()
}

fn sigterm(child: &Child) {
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

async fn kill9_loses_nothing(storage: &str, per_kill_bound: usize) {
    let name = format!("relay_kill9_{storage}");
    let (schema, mut conn) = PgSchema::new(&name).await;
    migrate(&schema, &["--storage", storage]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 20_000, Some(50)).await;
    let staged: HashSet<String> =
        sqlx::query_scalar::<_, uuid::Uuid>(&format!("SELECT event_id FROM {t}"))
            .fetch_all(&mut conn)
            .await
            .unwrap()
            .into_iter()
            .map(|u| u.to_string())
            .collect();
    let path = out_file(&name);
    let cfg = crate::common::config_file(
        &name,
        "relay:\n  reclaim_stale_after: 1ms\n  interval: 100ms\n",
    );
    let kills = 3;
    for k in 1..=kills {
        let mut child = spawn_relay(&schema, "--once", &path, &cfg, &["--storage", storage]);
        let target = line_count(&path) + 1500;
        wait_until(
            Duration::from_secs(60),
            "the relay to deliver some events",
            || line_count(&path) >= target,
        )
        .await;
        assert!(
            child.try_wait().unwrap().is_none(),
            "kill {k}: the relay finished before it could be killed"
        );
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
    }
    // A killed relay's last statement may still commit on the server after the process is
    // gone (its claim, here): a looping relay reclaims on every tick, so it picks those rows
    // up too. Run one until nothing is left, then stop it.
    let mut child = spawn_relay(&schema, "--loop", &path, &cfg, &["--storage", storage]);
    let left_sql = format!("SELECT count(*) FROM {t} WHERE status IN ('pending', 'processing')");
    crate::common::wait_none(&mut conn, &left_sql, Duration::from_secs(120)).await;
    sigterm(&child);
    assert!(child.wait().unwrap().success(), "final drain failed");

    let delivered = lines(&path);
    let mut seen: HashMap<String, usize> = HashMap::new();
    for l in &delivered {
        *seen
            .entry(l["event_id"].as_str().unwrap().to_owned())
            .or_default() += 1;
    }
    let missing = staged.iter().filter(|e| !seen.contains_key(*e)).count();
    assert_eq!(missing, 0, "{storage}: events lost");
    let duplicates: usize = seen.values().map(|n| n - 1).sum();
    assert!(
        duplicates <= kills * per_kill_bound,
        "{storage}: {duplicates} duplicates after {kills} kills (bound {per_kill_bound} per kill)"
    );
    let left: i64 = sqlx::query_scalar(&format!(
        "SELECT count(*) FROM {t} WHERE status IN ('pending', 'processing')"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(left, 0);
}

#[tokio::test]
async fn kill_9_retain_loses_nothing_and_duplicates_at_most_one_chunk_per_kill() {
    kill9_loses_nothing("retain", 32).await;
}

#[tokio::test]
async fn kill_9_consume_loses_nothing_and_duplicates_at_most_one_claim_per_kill() {
    kill9_loses_nothing("consume", 100).await;
}

async fn four_relays(storage: &str, strict: bool) {
    let name = format!("relay_four_{storage}_{strict}");
    let (schema, mut conn) = PgSchema::new(&name).await;
    let key_order = if strict { "strict" } else { "best-effort" };
    migrate(&schema, &["--storage", storage, "--key-order", key_order]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 4000, Some(40)).await;
    let path = out_file(&name);
    let cfg = crate::common::config_file(&name, "relay:\n  interval: 50ms\n  max_claim_rows: 50\n");
    let mut relays: Vec<Child> = (0..4)
        .map(|_| {
            spawn_relay(
                &schema,
                "--loop",
                &path,
                &cfg,
                &["--storage", storage, "--key-order", key_order],
            )
        })
        .collect();
    let pending_sql = format!("SELECT count(*) FROM {t} WHERE status IN ('pending', 'processing')");
    crate::common::wait_none(&mut conn, &pending_sql, Duration::from_secs(90)).await;
    for r in &relays {
        sigterm(r);
    }
    for r in &mut relays {
        let status = r.wait().unwrap();
        assert!(
            status.success(),
            "a relay did not stop cleanly on SIGTERM: {status:?}"
        );
    }
    let delivered = lines(&path);
    assert_eq!(
        delivered.len(),
        4000,
        "every event exactly once (no crash, no duplicate)"
    );
    let ids: HashSet<&str> = delivered
        .iter()
        .map(|l| l["event_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 4000);
    if strict {
        let mut last: HashMap<&str, i64> = HashMap::new();
        for l in &delivered {
            let (key, n) = (
                l["key"].as_str().unwrap(),
                l["payload"]["n"].as_i64().unwrap(),
            );
            if let Some(prev) = last.insert(key, n) {
                assert!(prev < n, "key {key}: {n} delivered after {prev}");
            }
        }
    }
}

#[tokio::test]
async fn four_relays_retain_deliver_everything_once() {
    four_relays("retain", false).await;
}

#[tokio::test]
async fn four_relays_consume_strict_keep_per_key_order() {
    four_relays("consume", true).await;
}

#[tokio::test]
async fn four_relays_retain_strict_keep_per_key_order() {
    four_relays("retain", true).await;
}

#[tokio::test]
async fn sigterm_drains_and_exits_0() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let path = out_file(test);
    let cfg = crate::common::config_file(test, "relay:\n  interval: 100ms\n");
    let child = spawn_relay(&schema, "--loop", &path, &cfg, &[]);
    stage(&mut conn, &t, "orders", 300, None).await;
    wait_until(
        Duration::from_secs(30),
        "the loop to relay staged rows",
        || line_count(&path) >= 300,
    )
    .await;
    sigterm(&child);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(OK), "{stderr}");
    assert!(
        stderr.contains("draining") && stderr.contains("tick"),
        "{stderr}"
    );
    assert_eq!(line_count(&path), 300);
}

/// A file destination whose last line a relay killed with SIGKILL left half-written: the next
/// relay cuts it back before appending, so every line parses (the cut event's row was never
/// marked, and goes out again).
#[tokio::test]
async fn a_half_written_last_line_is_cut_back_before_the_next_write() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 3, None).await;
    let path = out_file(test);
    std::fs::write(&path, "{\"id\":\"whole\"}\n{\"id\":\"torn\",\"ev").unwrap();
    ob(["relay", "--once", "--route", "orders"])
        .pg(&t)
        .args(["--to", &format!("file:{}", path.display())])
        .code(OK);
    let written = lines(&path);
    assert_eq!(written.len(), 4, "the whole line and three events");
    assert_eq!(written[0]["id"], "whole");
}

/// `relay --once` stopped by SIGTERM (a `timeout`, a Kubernetes Job's end) or SIGINT while a
/// publish hangs (an HTTP endpoint that accepts and never answers): no pass starts after it,
/// the publish in flight is cut four fifths into `shutdown_drain_timeout` and counts its
/// attempt, the pass marks and commits, the registry row says stopped, and the run exits 130
/// saying so. It died at once (143 with no word on SIGTERM), its claimed rows `processing` until
/// `reclaim_stale_after`, its registry row live and then stale for a day.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signal_stops_relay_once_after_the_pass_in_flight() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 5, None).await;
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = silent.local_addr().unwrap();
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((c, _)) = silent.accept().await {
            open.push(c);
        }
    });
    let cfg = crate::common::config_file(
        test,
        &format!(
            "relay:\n  publish_timeout: 60s\n  shutdown_drain_timeout: 1s\n  pass_statement_timeout: 100ms\n  heartbeat: 200ms\n  routes:\n    orders:\n      to: http://{addr}/hook\n"
        ),
    );
    for (signal, attempts) in [("-TERM", 1), ("-INT", 2)] {
        let relay = ob(["relay", "--once"]).pg(&t).config(&cfg).spawn_piped();
        let processing = format!("SELECT count(*) FROM {t} WHERE status = 'processing'");
        crate::common::wait_rows(&mut conn, &processing, 5).await;
        let sent = std::process::Command::new("kill")
            .args([signal, &relay.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let out = relay.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{signal}: {stderr}");
        assert!(
            stderr.contains("relay --once stopped by a signal"),
            "{stderr}"
        );
        let left = crate::common::count(&mut conn, &processing).await;
        assert_eq!(left, 0, "{signal}: no row left processing: {stderr}");
        let attempted =
            format!("SELECT count(*) FROM {t} WHERE status = 'pending' AND attempts = {attempts}");
        assert_eq!(
            crate::common::count(&mut conn, &attempted).await,
            5,
            "{signal}"
        );
        let listed = ob(["inspect", "relays", "--format", "json"])
            .pg(&t)
            .code(OK)
            .json();
        let states: Vec<&serde_json::Value> = listed
            .as_array()
            .unwrap()
            .iter()
            .map(|r| &r["state"])
            .collect();
        assert!(
            !states.is_empty() && states.iter().all(|s| *s == "stopped"),
            "{signal}: {listed}"
        );
        // the next run takes them at their retry: due now
        sqlx::raw_sql(&format!("UPDATE {t} SET available_at = NULL"))
            .execute(&mut conn)
            .await
            .unwrap();
    }
    // a second signal ends it at once, and says what that leaves
    let log = out_file(test).with_extension("log");
    let mut relay = ob(["relay", "--once", "-v"])
        .pg(&t)
        .config(&cfg)
        .spawn(Some(&log));
    let processing = format!("SELECT count(*) FROM {t} WHERE status = 'processing'");
    crate::common::wait_rows(&mut conn, &processing, 5).await;
    let pid = relay.pid().to_string();
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status();
    assert!(sent.unwrap().success());
    crate::common::wait_log(&log, "stop requested", 1).await;
    let status = relay.terminate_within(Duration::from_secs(10)).await;
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(status.and_then(|s| s.code()), Some(130), "{text}");
    assert!(
        text.contains("a second signal ends the relay at once"),
        "{text}"
    );
    held.abort();
}

/// A looping relay whose destination is down the whole run ends with a summary that says so
/// of its route: no pass ran to say it, and the summary named nothing.
#[tokio::test]
async fn the_loop_summary_names_a_destination_down_to_the_end() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 1, None).await;
    let log = out_file(test).with_extension("log");
    let relay = ob([
        "relay",
        "--loop",
        "--route",
        "orders",
        "--to",
        "nats://127.0.0.1:1",
    ])
    .pg(&t)
    .spawn(Some(&log));
    crate::common::wait_log(&log, "destination down, its routes wait", 1).await;
    assert!(relay.terminate().success());
    let text = std::fs::read_to_string(&log).unwrap();
    let said = "orders: destination down (rows it did not reach stay pending, no attempt counted)";
    assert!(text.contains(said), "{text}");
}
