//! A destination that goes away is not a message it refused: a webhook receiver that stops
//! listening or stalls, one destination down beside another that keeps delivering, RabbitMQ
//! URLs read as forze reads them, and what `/readyz` and the metrics say meanwhile. (The
//! brokers' own outages and stalls: `restarts`; a `file:` destination's: `file_outages`.)

use std::collections::HashSet;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::watch;

use crate::common::wait_rows;
use crate::common::wait_until;
use crate::common::{ERROR, OK, PgSchema, config_file, count, migrate, out_file, stage};
use crate::common::{
    assert_no_attempts, free_port, relay_across_stall, spawn_loop_relay, wait_log,
};

/// A webhook receiver on a fixed port that can go away (closing its listener and every
/// connection) and come back, or stall (accept, read, answer nothing). It answers 200 and
/// keeps each body.
struct Receiver {
    port: u16,
    bodies: Arc<Mutex<Vec<String>>>,
    stalled: Arc<AtomicBool>,
    /// Requests answered so far (a probe's too).
    answered: Arc<std::sync::atomic::AtomicUsize>,
    stop: Option<watch::Sender<bool>>,
}

impl Receiver {
    async fn start() -> Self {
        let mut r = Self {
            port: crate::common::own_server::stable_port(),
            bodies: Arc::default(),
            stalled: Arc::default(),
            answered: Arc::default(),
            stop: None,
        };
        r.listen().await;
        r
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hook", self.port)
    }

    async fn listen(&mut self) {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", self.port))
            .await
            .unwrap();
        let (tx, rx) = watch::channel(false);
        self.stop = Some(tx);
        let (bodies, stalled) = (self.bodies.clone(), self.stalled.clone());
        let answered = self.answered.clone();
        tokio::spawn(async move {
            let mut stop = rx.clone();
            loop {
                let sock = tokio::select! {
                    _ = stop.wait_for(|&s| s) => return,
                    accepted = listener.accept() => match accepted {
                        Ok((sock, _)) => sock,
                        Err(_) => return,
                    },
                };
                let (bodies, stalled, mut stop) = (bodies.clone(), stalled.clone(), rx.clone());
                let answered = answered.clone();
                tokio::spawn(async move {
                    tokio::select! {
                        _ = stop.wait_for(|&s| s) => {}
                        _ = serve(sock, bodies, stalled, answered) => {}
                    }
                });
            }
        });
    }

    /// Closes the listener and every open connection: the receiver is away.
    fn go_away(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(true);
        }
        let port = self.port;
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            assert!(Instant::now() < deadline, "the receiver did not close");
            std::thread::yield_now();
        }
    }

    fn delivered(&self) -> HashSet<String> {
        self.bodies
            .lock()
            .unwrap()
            .iter()
            .map(|b| {
                let v: serde_json::Value = serde_json::from_str(b).unwrap();
                v["event_id"].as_str().unwrap().to_owned()
            })
            .collect()
    }
}

/// Requests held because their URL asked for it.
static HELD_BY_URL: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// One connection: requests answered 200 (a HEAD too), or held unanswered while stalled (or
/// when their URL asks for it, `?stall=1`).
async fn serve(
    sock: tokio::net::TcpStream,
    bodies: Arc<Mutex<Vec<String>>>,
    stalled: Arc<AtomicBool>,
    answered: Arc<std::sync::atomic::AtomicUsize>,
) {
    let (r, mut w) = sock.into_split();
    let mut r = BufReader::new(r);
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).await.unwrap_or(0) == 0 {
            return;
        }
        let mut len = 0;
        loop {
            let mut h = String::new();
            if r.read_line(&mut h).await.unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end().to_ascii_lowercase();
            if h.is_empty() {
                break;
            }
            if let Some(v) = h.strip_prefix("content-length:") {
                len = v.trim().parse().unwrap();
            }
        }
        let mut body = vec![0; len];
        if r.read_exact(&mut body).await.is_err() {
            return;
        }
        let asked = line.contains("stall=1");
        if asked {
            HELD_BY_URL.fetch_add(1, Ordering::Relaxed);
        }
        if stalled.load(Ordering::Relaxed) || asked {
            // the connection stays open; nothing answers
            std::future::pending::<()>().await;
        }
        if line.starts_with("POST") {
            bodies
                .lock()
                .unwrap()
                .push(String::from_utf8(body).unwrap());
        }
        if w.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
            .await
            .is_err()
        {
            return;
        }
        answered.fetch_add(1, Ordering::Relaxed);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_receiver_away_counts_no_attempt_and_everything_arrives_after() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let mut receiver = Receiver::start().await;
    stage(&mut conn, &t, "orders", 50, Some(5)).await;
    let cfg = config_file(
        test,
        &format!(
            "relay:\n  interval: 100ms\n  retry_base_delay: 100ms\n  retry_max_backoff: 500ms\n  max_attempts: 2\n  publish_timeout: 1s\n  routes:\n    orders:\n      to: {}\n",
            receiver.url()
        ),
    );
    let log = out_file(test).with_extension("log");
    let relay = spawn_loop_relay(&t, &cfg, &log);
    let published = format!("SELECT count(*) FROM {t} WHERE status = 'published'");
    wait_rows(&mut conn, &published, 50).await;
    receiver.go_away();
    let away = Instant::now();
    stage(&mut conn, &t, "orders", 50, Some(5)).await;
    wait_log(&log, "destination down", 1).await;
    // more than ten times the whole retry schedule (one retry after 50-100ms)
    wait_until(Duration::from_secs(30), "an outage of 2s", || {
        away.elapsed() >= Duration::from_secs(2)
    })
    .await;
    receiver.listen().await;
    wait_rows(&mut conn, &published, 100).await;
    assert!(relay.terminate().success());
    assert_no_attempts(&mut conn, &t).await;
    let staged: HashSet<String> = sqlx::query_scalar(&format!("SELECT event_id::text FROM {t}"))
        .fetch_all(&mut conn)
        .await
        .unwrap()
        .into_iter()
        .collect();
    assert_eq!(receiver.delivered(), staged);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_receiver_stalled_costs_the_posts_in_flight_one_attempt_and_parks_nothing() {
    let receiver = Receiver::start().await;
    let dest = format!("      to: {}\n", receiver.url());
    let log = out_file("stall_http").with_extension("log");
    let stalled = receiver.stalled.clone();
    relay_across_stall(
        "stall_http",
        &dest,
        &log,
        &mut || stalled.store(true, Ordering::Relaxed),
        &mut || stalled.store(false, Ordering::Relaxed),
    )
    .await;
}

/// SIGTERM while a retain pass waits on a stalled webhook (publish timeout 30s, drain 2s): the
/// pass in flight cuts its publishes four fifths into the drain and marks them, so the relay
/// exits 0 with no row left `processing` (which would wait for `reclaim_stale_after`): each
/// row is pending again with the one attempt the cut publish counts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_during_a_stalled_retain_pass_leaves_no_row_processing() {
    let test = test_name!();
    let receiver = Receiver::start().await;
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let cfg = config_file(
        test,
        &format!(
            "relay:\n  interval: 100ms\n  publish_timeout: 30s\n  pass_statement_timeout: 200ms\n  shutdown_drain_timeout: 2s\n  routes:\n    orders:\n      to: {}\n",
            receiver.url()
        ),
    );
    let log = out_file(test).with_extension("log");
    let mut relay = spawn_loop_relay(&t, &cfg, &log);
    // the relay's probe at start is answered (it comes after "relay started"); then the
    // receiver stalls
    wait_until(Duration::from_secs(30), "the start probe answered", || {
        receiver.answered.load(Ordering::Relaxed) > 0
    })
    .await;
    receiver.stalled.store(true, Ordering::Relaxed);
    stage(&mut conn, &t, "orders", 5, None).await;
    let processing = format!("SELECT count(*) FROM {t} WHERE status = 'processing'");
    wait_rows(&mut conn, &processing, 5).await;
    let status = relay.terminate_within(Duration::from_secs(10)).await;
    let log_text = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        status.is_some_and(|s| s.success()),
        "{status:?}\n{log_text}"
    );
    let rows: Vec<(String, i32, Option<String>)> =
        sqlx::query_as(&format!("SELECT status, attempts, last_error FROM {t}"))
            .fetch_all(&mut conn)
            .await
            .unwrap();
    assert_eq!(rows.len(), 5);
    for (status, attempts, error) in &rows {
        assert_eq!(
            (status.as_str(), *attempts),
            ("pending", 1),
            "{rows:?}\n{log_text}"
        );
        let error = error.as_deref().unwrap_or_default();
        // the drain cut it, and says so (it read "publish timed out", the receiver's slowness)
        assert!(
            error.contains("publish cut by the shutdown drain after"),
            "{rows:?}"
        );
    }
    assert!(!log_text.contains("cut and rolled back"), "{log_text}");
    drop(schema);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_destination_stalled_does_not_hold_up_another() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let receiver = Receiver::start().await;
    let path = out_file(test);
    let cfg = config_file(
        test,
        &format!(
            "relay:\n  interval: 100ms\n  retry_base_delay: 100ms\n  retry_max_backoff: 500ms\n  max_attempts: 2\n  publish_timeout: 5s\n  routes:\n    hooks:\n      to: {}\n    files:\n      to: \"file:{}\"\n",
            receiver.url(),
            path.display()
        ),
    );
    let log = out_file(test).with_extension("log");
    let relay = spawn_loop_relay(&t, &cfg, &log);
    receiver.stalled.store(true, Ordering::Relaxed);
    stage(&mut conn, &t, "hooks", 10, Some(2)).await;
    // while the webhook's publishes wait out their 5s, the file route delivers on its own
    let started = Instant::now();
    stage(&mut conn, &t, "files", 100, Some(10)).await;
    let files =
        format!("SELECT count(*) FROM {t} WHERE outbox_route = 'files' AND status = 'published'");
    wait_rows(&mut conn, &files, 100).await;
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(4),
        "the file route waited for the stalled webhook: {took:?}"
    );
    wait_log(&log, "destination down", 1).await;
    receiver.stalled.store(false, Ordering::Relaxed);
    let hooks =
        format!("SELECT count(*) FROM {t} WHERE outbox_route = 'hooks' AND status = 'published'");
    wait_rows(&mut conn, &hooks, 10).await;
    assert!(relay.terminate().success());
    let failed = count(
        &mut conn,
        &format!("SELECT count(*) FROM {t} WHERE status = 'failed'"),
    )
    .await;
    assert_eq!(failed, 0);
}

/// Two webhooks that differ only in their query (which logs and metrics mask alike) are two
/// destinations, named apart: while one stalls, the other delivers within its usual cadence.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_that_differ_only_in_their_query_do_not_hold_each_other_up() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let receiver = Receiver::start().await;
    let cfg = config_file(
        test,
        &format!(
            "relay:\n  interval: 100ms\n  publish_timeout: 5s\n  routes:\n    a_slow:\n      to: \"{url}?stall=1\"\n    b_fast:\n      to: \"{url}?stall=0\"\n",
            url = receiver.url(),
        ),
    );
    let log = out_file(test).with_extension("log");
    let addr = format!("127.0.0.1:{}", free_port());
    let relay = crate::common::ob(["relay", "--loop", "--metrics-addr", &addr])
        .pg(&t)
        .config(&cfg)
        .spawn(Some(&log));
    wait_log(&log, "serving /metrics", 1).await;
    // and two in the metrics: the second named apart, not one entry for both (each once its
    // lane's first probe answered)
    let up = format!(
        "outboxctl_destination_up{{destination=\"{}?****",
        receiver.url()
    );
    let metrics = crate::common::eventually(Duration::from_secs(30), "both probed", async || {
        let metrics = http_get(&addr, "/metrics").1;
        match metrics.matches(&up).count() {
            2 => Ok(metrics),
            _ => Err(metrics),
        }
    })
    .await;
    assert!(metrics.contains("?**** #2\"}"), "{metrics}");
    stage(&mut conn, &t, "a_slow", 10, Some(2)).await;
    // a_slow's pass waits on its webhook now: b_fast's rows come while it waits
    wait_until(Duration::from_secs(30), "a_slow's POST held", || {
        HELD_BY_URL.load(Ordering::Relaxed) > 0
    })
    .await;
    let started = Instant::now();
    stage(&mut conn, &t, "b_fast", 50, Some(10)).await;
    let fast =
        format!("SELECT count(*) FROM {t} WHERE outbox_route = 'b_fast' AND status = 'published'");
    wait_rows(&mut conn, &fast, 50).await;
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(4),
        "the fast webhook waited for the stalled one: {took:?}"
    );
    drop(relay);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_and_destination_up_report_a_down_destination_while_healthz_stays_ok() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let mut receiver = Receiver::start().await;
    let addr = format!("127.0.0.1:{}", free_port());
    let cfg = config_file(
        test,
        &format!(
            "relay:\n  interval: 100ms\n  retry_base_delay: 100ms\n  retry_max_backoff: 500ms\n  routes:\n    orders:\n      to: {}\n",
            receiver.url()
        ),
    );
    let log = out_file(test).with_extension("log");
    let relay = crate::common::ob(["relay", "--loop", "--metrics-addr", &addr])
        .pg(&t)
        .config(&cfg)
        .spawn(Some(&log));
    wait_log(&log, "serving /metrics", 1).await;
    let get = |path: &str| http_get(&addr, path);
    // ready once the lane's start probe has answered
    wait_until(Duration::from_secs(10), "ready", || get("/readyz").0 == 200).await;
    receiver.go_away();
    stage(&mut conn, &t, "orders", 5, None).await;
    wait_log(&log, "destination down", 1).await;
    let (status, body) = get("/readyz");
    assert_eq!(status, 503, "{body}");
    assert!(
        body.contains("is down") && body.contains("127.0.0.1"),
        "{body}"
    );
    assert_eq!(
        get("/healthz").0,
        200,
        "a destination down is no reason to restart the relay"
    );
    let metrics = get("/metrics").1;
    assert!(
        metrics.contains(&format!(
            "outboxctl_destination_up{{destination=\"{}\"}} 0",
            receiver.url()
        )),
        "{metrics}"
    );
    receiver.listen().await;
    let published = format!("SELECT count(*) FROM {t} WHERE status = 'published'");
    wait_rows(&mut conn, &published, 5).await;
    wait_until(Duration::from_secs(30), "ready again", || {
        get("/readyz").0 == 200
    })
    .await;
    assert!(get("/metrics").1.contains("} 1"));
    assert!(relay.terminate().success());
}

/// A destination away when the relay starts is down from the start: `/readyz` and its gauge
/// say so before any row is claimed (a quiet route never finds it out by publishing).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_destination_away_at_start_is_not_ready_before_any_row() {
    let test = test_name!();
    let (schema, _conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let nobody = format!("http://127.0.0.1:{}/events", free_port());
    let cfg = config_file(
        test,
        &format!("relay:\n  interval: 100ms\n  routes:\n    orders:\n      to: {nobody}\n"),
    );
    let addr = format!("127.0.0.1:{}", free_port());
    let log = out_file(test).with_extension("log");
    let relay = crate::common::ob(["relay", "--loop", "--metrics-addr", &addr])
        .pg(&schema.rel("outbox"))
        .config(&cfg)
        .spawn(Some(&log));
    wait_log(&log, "serving /metrics", 1).await;
    wait_until(Duration::from_secs(10), "not ready: down", || {
        let (status, body) = http_get(&addr, "/readyz");
        status == 503 && body.contains("is down")
    })
    .await;
    // and why: reqwest's "error sending request" alone hid it
    let (_, body) = http_get(&addr, "/readyz");
    assert!(body.contains("Connection refused"), "{body}");
    let metrics = http_get(&addr, "/metrics").1;
    let gauge = format!("outboxctl_destination_up{{destination=\"{nobody}\"}} 0");
    assert!(metrics.contains(&gauge), "{metrics}");
    assert!(relay.terminate().success());
}

/// While a lane's start probe waits on a destination that accepts and never answers, the relay
/// is not ready (it said ready before any probe had answered), and a stop does not wait for
/// the probe's timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_relay_is_not_ready_before_its_start_probe_answers_nor_held_by_it() {
    let test = test_name!();
    let (schema, _conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let hook = format!("http://{}/events", silent.local_addr().unwrap());
    let held = std::thread::spawn(move || silent.incoming().take(4).collect::<Vec<_>>());
    let cfg = config_file(
        test,
        &format!("relay:\n  publish_timeout: 30s\n  routes:\n    orders:\n      to: {hook}\n"),
    );
    let addr = format!("127.0.0.1:{}", free_port());
    let log = out_file(test).with_extension("log");
    let mut relay = crate::common::ob(["relay", "--loop", "--metrics-addr", &addr])
        .pg(&schema.rel("outbox"))
        .config(&cfg)
        .spawn(Some(&log));
    wait_log(&log, "serving /metrics", 1).await;
    let (status, body) = http_get(&addr, "/readyz");
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("not probed yet"), "{body}");
    // nor is it up in the metrics (it read 1 meanwhile)
    let metrics = http_get(&addr, "/metrics").1;
    let up = format!("outboxctl_destination_up{{destination=\"{hook}\"}}");
    assert!(!metrics.contains(&up), "{metrics}");
    let asked = Instant::now();
    let exit = relay.terminate_within(Duration::from_secs(3)).await;
    assert!(
        exit.is_some_and(|s| s.success()),
        "{exit:?} after {:?}",
        asked.elapsed()
    );
    drop(held);
}

#[tokio::test]
async fn rabbitmq_urls_name_the_vhost_as_forze_reads_them() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let queue = format!("{}.vhost", schema.name);
    for (i, url) in [
        "amqp://guest:guest@127.0.0.1:5672/",
        "amqp://guest:guest@127.0.0.1:5672",
        "amqp://guest:guest@127.0.0.1:5672/%2F",
    ]
    .iter()
    .enumerate()
    {
        stage(&mut conn, &t, "orders", 2, None).await;
        let cfg = config_file(
            &format!("outage_vhost_{i}"),
            &format!(
                "relay:\n  routes:\n    orders:\n      to: \"{url}\"\n      channel: {queue}\n      declare: true\n"
            ),
        );
        let out = crate::common::relay_plain(&schema, &cfg);
        assert_eq!(out.code, OK, "{url}: {out:?}");
        let left = count(
            &mut conn,
            &format!("SELECT count(*) FROM {t} WHERE status <> 'published'"),
        )
        .await;
        assert_eq!(left, 0, "{url}");
    }
    // an unknown vhost is a configuration error at start: exit 2, saying what to check
    stage(&mut conn, &t, "orders", 1, None).await;
    let cfg = config_file(
        "outage_vhost_missing",
        &format!(
            "relay:\n  routes:\n    orders:\n      to: \"amqp://guest:guest@127.0.0.1:5672/no-such-vhost\"\n      channel: {queue}\n"
        ),
    );
    let out = crate::common::relay_plain(&schema, &cfg);
    assert_eq!(out.code, ERROR, "{out:?}");
    assert!(out.stderr.contains("vhost"), "{out:?}");
    assert!(!out.stderr.contains("guest:guest"), "no password: {out:?}");
    assert_no_attempts(&mut conn, &t).await;
    let (_c, ch) = crate::common::amqp_channel().await;
    let _ = ch
        .queue_delete(&queue, lapin::options::QueueDeleteOptions::default())
        .await;
}

/// A blocking `GET` of the relay's endpoint: status and body.
fn http_get(addr: &str, path: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut sock = std::net::TcpStream::connect(addr).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        sock,
        "GET {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    sock.read_to_string(&mut text).unwrap();
    let status = text.split_whitespace().nth(1).unwrap().parse().unwrap();
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_owned();
    (status, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_deleted_under_a_running_relay_keeps_its_destination_down_with_the_reason() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let subject = format!("{}.orders", schema.name);
    let js = async_nats::jetstream::new(
        async_nats::connect(crate::common::NATS)
            .await
            .expect("NATS on 127.0.0.1:4222 (scripts/services.sh starts it)"),
    );
    let stream = async_nats::jetstream::stream::Config {
        name: schema.name.clone(),
        subjects: vec![subject.clone()],
        duplicate_window: Duration::from_secs(300),
        ..Default::default()
    };
    let _ = js.delete_stream(&schema.name).await;
    js.create_stream(stream.clone()).await.unwrap();
    let cfg = config_file(
        test,
        &format!(
            "relay:\n  interval: 100ms\n  retry_base_delay: 100ms\n  retry_max_backoff: 300ms\n  max_attempts: 2\n  routes:\n    orders:\n      to: {}\n      channel: {subject}\n",
            crate::common::NATS
        ),
    );
    let log = out_file(test).with_extension("log");
    let relay = spawn_loop_relay(&t, &cfg, &log);
    stage(&mut conn, &t, "orders", 10, Some(2)).await;
    let published = format!("SELECT count(*) FROM {t} WHERE status = 'published'");
    wait_rows(&mut conn, &published, 10).await;
    // someone deletes the stream: a configuration error, reported once, nothing attempted
    js.delete_stream(&schema.name).await.unwrap();
    stage(&mut conn, &t, "orders", 10, Some(2)).await;
    wait_log(&log, "no JetStream stream captures subject", 1).await;
    let since = Instant::now();
    wait_until(Duration::from_secs(30), "a few probes (2s)", || {
        since.elapsed() >= Duration::from_secs(2)
    })
    .await;
    let text = std::fs::read_to_string(&log).unwrap();
    // the fix names the stream create_stream would make (it read `{name}`)
    let fix = format!(
        "nats stream add {} --subjects {subject}",
        subject.replace('.', "_")
    );
    assert!(text.contains(&fix), "{fix}:\n{text}");
    assert_eq!(
        text.matches("destination down").count(),
        1,
        "the reason is logged once while it stays the same:\n{text}"
    );
    js.create_stream(stream).await.unwrap();
    wait_rows(&mut conn, &published, 20).await;
    assert!(relay.terminate().success());
    assert_no_attempts(&mut conn, &t).await;
    js.delete_stream(&schema.name).await.unwrap();
}

#[tokio::test]
async fn refused_credentials_stop_the_relay_at_start_with_exit_2() {
    let test = test_name!();
    let port = free_port();
    let mut redis =
        crate::common::OwnServer::new(test, Path::new("/usr/bin/redis-server"), port, move |dir| {
            let mut c = Command::new("/usr/bin/redis-server");
            c.args(["--bind", "127.0.0.1", "--port", &port.to_string()])
                .args(["--save", "", "--requirepass", "right-one", "--dir"])
                .arg(dir);
            c
        });
    redis.start().await;
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 3, None).await;
    let cfg = config_file(
        test,
        &format!(
            "relay:\n  routes:\n    orders:\n      to: \"redis://:wrong-one@127.0.0.1:{port}\"\n"
        ),
    );
    let out = crate::common::relay_plain(&schema, &cfg);
    assert_eq!(out.code, ERROR, "{out:?}");
    assert!(out.stderr.contains("password"), "{out:?}");
    assert!(
        !out.stderr.contains("wrong-one"),
        "never the password: {out:?}"
    );
    assert_no_attempts(&mut conn, &t).await;
}
