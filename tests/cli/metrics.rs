//! The looping relay's /metrics and /healthz, over real HTTP.

use std::io::{BufRead, BufReader};
use std::process::Child;
use std::time::Duration;

use crate::common::{PgSchema, eventually, migrate, ob, stage};

/// Starts `relay --loop` with metrics on a free port; returns the child and the base URL.
fn start(
    schema: &PgSchema,
    extra: &[&str],
) -> (Child, String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
    let mut child = ob(["relay", "--loop", "--route", "orders"])
        .pg(&schema.rel("outbox"))
        .args(["--to", "file:/dev/null", "--metrics-addr", "127.0.0.1:0"])
        .args(extra)
        .spawn_piped();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let seen: std::sync::Arc<std::sync::Mutex<Vec<String>>> = Default::default();
    let log = seen.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(rest) = line.split("on http://").nth(1) {
                let addr: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ':')
                    .collect();
                let _ = tx.send(format!("http://{addr}"));
            }
            log.lock().unwrap().push(line);
        }
    });
    let url = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the relay announced its metrics address");
    (child, url, seen)
}

async fn get(url: &str) -> (u16, String) {
    let r = reqwest::get(url).await.unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

fn stop(child: &mut Child) {
    std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(child.wait().unwrap().success());
}

#[tokio::test]
async fn metrics_count_what_the_loop_did_and_healthz_is_ok() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    stage(&mut conn, &schema.rel("outbox"), "orders", 20, None).await;
    let (mut child, base, log) = start(&schema, &["--log-format", "json"]);
    let body = eventually(
        Duration::from_secs(30),
        "20 published in /metrics",
        async || {
            let (status, body) = get(&format!("{base}/metrics")).await;
            assert_eq!(status, 200);
            if body.contains("outboxctl_published_total{route=\"orders\",tenant=\"\"} 20") {
                Ok(body)
            } else {
                Err(body)
            }
        },
    )
    .await;
    assert!(
        body.contains("# TYPE outboxctl_publish_duration_seconds histogram"),
        "{body}"
    );
    assert!(
        body.contains("outboxctl_publish_duration_seconds_count 20"),
        "{body}"
    );
    assert!(
        body.contains("# TYPE outboxctl_delivery_lag_seconds histogram")
            && body.contains("outboxctl_delivery_lag_seconds_count{route=\"orders\",tenant=\"\"} 20")
            && body.contains(
                "outboxctl_delivery_lag_seconds_bucket{route=\"orders\",tenant=\"\",le=\"21600\"} 20"
            ),
        "{body}"
    );
    assert!(
        body.contains("outboxctl_pending{route=\"orders\",tenant=\"\"} 0"),
        "{body}"
    );
    assert!(
        body.contains("outboxctl_failed_passes_total{route=\"orders\",tenant=\"\"} 0"),
        "{body}"
    );
    assert_eq!(get(&format!("{base}/healthz")).await, (200, "ok\n".into()));
    assert_eq!(get(&format!("{base}/nope")).await.0, 404);
    stop(&mut child);
    let lines = log.lock().unwrap().clone();
    assert!(lines.len() >= 2, "{lines:?}");
    for l in &lines {
        let v: serde_json::Value = serde_json::from_str(l)
            .unwrap_or_else(|e| panic!("--log-format json wrote {l:?}: {e}"));
        assert!(v["level"].is_string() && v["message"].is_string(), "{l}");
    }
}

#[tokio::test]
async fn healthz_fails_when_a_route_keeps_failing() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let log = schema.rel("outbox_delivered");
    migrate(&schema, &["--storage", "consume", "--delivery-log", &log]).await;
    // no partition at all: every pass fails
    crate::common::drop_all_partitions(&mut conn, &log).await;
    stage(&mut conn, &schema.rel("outbox"), "orders", 5, None).await;
    let (mut child, base, _) = start(
        &schema,
        &[
            "--storage",
            "consume",
            "--delivery-log",
            &log,
            "--health-max-failing",
            "300ms",
        ],
    );
    // 503, naming the route: each poll until it does
    let body = eventually(Duration::from_secs(30), "/healthz to say 503", async || {
        let (status, body) = get(&format!("{base}/healthz")).await;
        if status == 503 && body.contains("orders") {
            Ok(body)
        } else {
            Err(format!("healthz {status}: {body}"))
        }
    })
    .await;
    assert!(body.contains("failing"), "{body}");
    let (_, metrics) = get(&format!("{base}/metrics")).await;
    assert!(
        !metrics.contains("outboxctl_failed_passes_total{route=\"orders\",tenant=\"\"} 0"),
        "{metrics}"
    );
    assert!(
        !metrics.contains("outboxctl_route_backoff_seconds{route=\"orders\",tenant=\"\"} 0\n"),
        "{metrics}"
    );
    assert!(
        metrics.contains("outboxctl_pending{route=\"orders\",tenant=\"\"} 5"),
        "{metrics}"
    );
    stop(&mut child);
}

/// Strict order: /metrics counts the keys held back behind a parked row.
#[tokio::test]
async fn metrics_count_blocked_keys_under_strict_order() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--key-order", "strict"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 6, Some(2)).await; // k1: 1,3,5  k0: 2,4,6
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET status = 'failed', last_error = 'parked' WHERE (payload->>'n')::int = 1"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let (mut child, base, _log) = start(&schema, &["--key-order", "strict"]);
    let body = eventually(Duration::from_secs(30), "one blocked key", async || {
        let (_, body) = get(&format!("{base}/metrics")).await;
        if body.contains("outboxctl_blocked_keys{route=\"orders\",tenant=\"\"} 1") {
            Ok(body)
        } else {
            Err(body)
        }
    })
    .await;
    assert!(body.contains("# TYPE outboxctl_blocked_keys gauge"));
    stop(&mut child);
}

/// Continues a backend stopped with SIGSTOP when dropped (the test's server is shared).
struct Stopped(i32);

impl Drop for Stopped {
    fn drop(&mut self) {
        let _ = std::process::Command::new("kill")
            .args(["-CONT", &self.0.to_string()])
            .status();
    }
}

/// The gauges' connection going silent (its backend stopped with SIGSTOP, as a connection gone
/// half-open would be): one scrape goes without the gauges, and the next opens a connection of
/// its own and has them again, where before every scrape waited on the silent one.
#[tokio::test]
async fn a_silent_gauges_connection_is_replaced_by_the_next_scrape() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let (mut child, base, _log) = start(&schema, &[]);
    let gauge = "outboxctl_pending{route=\"orders\",tenant=\"\"}";
    let before = crate::common::postgres_ports(child.id());
    let (_, body) = get(&format!("{base}/metrics")).await;
    assert!(body.contains(gauge), "{body}");
    let opened: Vec<u16> = crate::common::postgres_ports(child.id())
        .difference(&before)
        .copied()
        .collect();
    assert_eq!(opened.len(), 1, "the gauges' connection: {opened:?}");
    let backend: i32 =
        sqlx::query_scalar("SELECT pid FROM pg_stat_activity WHERE client_port = $1")
            .bind(i32::from(opened[0]))
            .fetch_one(&mut conn)
            .await
            .unwrap();
    let status = std::process::Command::new("kill")
        .args(["-STOP", &backend.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let stopped = Stopped(backend);
    let (status, body) = get(&format!("{base}/metrics")).await;
    assert_eq!(status, 200);
    assert!(
        !body.contains(gauge),
        "the stopped backend answered: {body}"
    );
    let (_, body) = get(&format!("{base}/metrics")).await;
    assert!(
        body.contains(gauge),
        "the next scrape has no gauges: {body}"
    );
    drop(stopped);
    stop(&mut child);
}

/// Under `--log-format json` every line on stderr is a JSON object, the start's warnings too
/// (a destination unreachable at start was a plain `warning:` line, which broke a log shipper).
#[tokio::test]
async fn json_logs_carry_the_warnings_too() {
    let (schema, _conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let log = crate::common::out_file(test_name!()).with_extension("log");
    let relay = ob([
        "relay",
        "--loop",
        "--route",
        "orders",
        "--log-format",
        "json",
    ])
    .pg(&schema.rel("outbox"))
    .args(["--to", "redis://127.0.0.1:1/0"])
    .spawn(Some(&log));
    crate::common::wait_log(&log, "unreachable", 1).await;
    assert!(relay.terminate().success());
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<serde_json::Value> = (text.lines())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l:?}: {e}")))
        .collect();
    let warned = lines.iter().any(|v| {
        v["level"] == "WARN"
            && v["message"]
                .as_str()
                .is_some_and(|m| m.contains("unreachable"))
    });
    assert!(warned, "{text}");
}

/// Under `--log-format json` a command's last line, its error, is a JSON log line too, at error
/// level: it was a plain `error:` line, the one that says why a relay's pod crash-loops and the
/// one a JSON log pipeline could not read.
#[tokio::test]
async fn json_logs_end_with_the_error_as_a_json_line() {
    let (schema, _conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    // a destination URL refused at start: exit 2, with why
    let r = ob([
        "relay",
        "--once",
        "--route",
        "orders",
        "--log-format",
        "json",
        "-q",
    ])
    .pg(&schema.rel("outbox"))
    .args(["--to", "nats://127.0.0.1:4222?bogus=1"])
    .run();
    assert_eq!(r.code, crate::common::ERROR, "{r:?}");
    let lines: Vec<serde_json::Value> = (r.stderr.lines())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l:?}: {e}\n{r:?}")))
        .collect();
    let last = lines.last().expect("an error line");
    assert_eq!(last["level"], "ERROR", "{r:?}");
    assert!(
        last["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("--to: nats:// URL: unknown parameter \"bogus\"")),
        "{r:?}"
    );
    assert!(last["timestamp"].is_string(), "{r:?}");
}
