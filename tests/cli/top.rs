//! `outboxctl top`: one snapshot in a pipe (PostgreSQL and MongoDB), bounded statements on a
//! million rows, and the live screen driven in tmux as a person would.

use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use crate::common::mongo::MongoDb;
use crate::common::own_server::{free_port, wait_log};
use crate::common::{OK, PgSchema, emit_events, eventually, migrate, ob, out_file, stage};

/// The local ports of the TCP connections to PostgreSQL (port 5432) of the one process whose
/// command line matches `pattern` (`pgrep -f`).
fn client_ports(pattern: &str) -> Vec<i32> {
    let out = std::process::Command::new("pgrep")
        .args(["-f", pattern])
        .output()
        .expect("pgrep (procps) runs");
    let pids = String::from_utf8(out.stdout).unwrap();
    let pid = match pids.split_whitespace().collect::<Vec<_>>()[..] {
        [pid] => pid.to_owned(),
        ref more => panic!("one process matches {pattern:?}, not {more:?}"),
    };
    let pid: u32 = pid.parse().unwrap();
    (crate::common::postgres_ports(pid).into_iter())
        .map(i32::from)
        .collect()
}

async fn park(conn: &mut sqlx::PgConnection, t: &str, route: &str, n: i64, error: &str) {
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET status = 'failed', attempts = 5, last_error = '{error}'
          WHERE id IN (SELECT id FROM {t} WHERE outbox_route = '{route}' AND status = 'pending' ORDER BY created_at LIMIT {n})"
    ))
    .execute(conn)
    .await
    .unwrap();
}

/// A configured route with no rows (consume storage deletes what it delivers) is a row of
/// zeros: it was gone from the screen once its outbox emptied.
#[tokio::test]
async fn a_configured_route_without_rows_is_a_row_of_zeros() {
    let test = test_name!();
    let (schema, _conn) = PgSchema::new(test).await;
    migrate(&schema, &["--storage", "consume"]).await;
    let cfg = crate::common::config_file(
        test,
        "outbox:\n  storage: consume\nrelay:\n  routes:\n    orders:\n      to: stdout\n",
    );
    let v = (ob(["top", "--format", "json"]).pg(&schema.rel("outbox")))
        .config(&cfg)
        .code(OK)
        .json();
    assert_eq!(v["routes"][0]["route"], "orders", "{v}");
    assert_eq!(v["routes"][0]["ripe"], 0, "{v}");
}

#[tokio::test]
async fn a_pipe_gets_one_snapshot_with_capped_counts_and_failure_groups() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 10_050, None).await;
    stage(&mut conn, &t, "billing", 12, None).await;
    park(&mut conn, &t, "billing", 3, "HTTP 503 from 10.0.0.7:8080").await;
    let r = ob(["top", "--format", "json", "--interval", "100ms"])
        .pg(&t)
        .code(OK);
    let v = r.json();
    let route = |name: &str| {
        v["routes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["route"] == name)
            .unwrap_or_else(|| panic!("{name} in {v}"))
            .clone()
    };
    assert_eq!(
        route("orders")["ripe"],
        10_001,
        "counted up to the cap + 1: {v}"
    );
    assert_eq!(route("billing")["ripe"], 9);
    assert_eq!(route("billing")["failed"], 3);
    assert!(route("orders")["oldest_ripe_age_seconds"].as_f64().unwrap() >= 0.0);
    assert_eq!(v["groups"][0]["count"], 3);
    assert_eq!(v["groups_sampled"], false);
    assert!(
        v["staged_per_second"].is_number(),
        "two readings give a rate: {v}"
    );
    let r = ob(["top"]).pg(&t).code(OK);
    assert!(
        r.stdout.contains("10,000+") && r.stdout.contains("failure groups"),
        "{r:?}"
    );
    let r = ob(["top", "--relay", "ftp://127.0.0.1:9464"]).pg(&t).run();
    assert!(r.stderr.contains("http://HOST:PORT"), "{r:?}");
    // a relay that does not answer: DOWN, and why (reqwest's own line hid it)
    let nobody = format!("http://127.0.0.1:{}", crate::common::free_port());
    let r = ob(["top", "--relay", &nobody]).pg(&t).code(OK);
    let line = format!("relay {nobody}  DOWN  error sending request for url");
    assert!(r.stdout.contains(&line), "{r:?}");
    assert!(r.stdout.contains("Connection refused"), "{r:?}");
    // the address as inspect relays gives it (it was refused), and the endpoint as Prometheus
    // scrapes it (it asked for /metrics/metrics), are the relay too
    let bare = nobody.trim_start_matches("http://");
    let r = ob(["top", "--relay", bare]).pg(&t).code(OK);
    assert!(r.stdout.contains(&line), "{r:?}");
    let scraped = format!("{nobody}/metrics");
    let r = ob(["top", "--relay", &scraped]).pg(&t).code(OK);
    assert!(r.stdout.contains(&format!("({scraped})")), "{r:?}");
    assert!(!r.stdout.contains("/metrics/metrics"), "{r:?}");
}

#[tokio::test]
async fn a_pipe_gets_one_snapshot_on_mongo() {
    let test = test_name!();
    let db = MongoDb::new(test).await;
    let coll = format!("{}.outbox", db.name);
    ob(["migrate", "-q"]).mongo(&coll).code(OK);
    emit_events("orders", 7, "{}").mongo(&coll).code(OK);
    let v = ob(["top", "--format", "json"]).mongo(&coll).code(OK).json();
    assert_eq!(v["routes"][0]["route"], "orders", "{v}");
    assert_eq!(v["routes"][0]["ripe"], 7, "{v}");
    assert_eq!(
        v["staged_per_second"],
        Value::Null,
        "no table statistics on MongoDB"
    );
}

/// Each refresh statement on 1,000,000 rows: no sequential scan, and few buffers (the plan's
/// own count, which does not depend on the machine's speed). The refresh's time is printed.
/// Two retries due now: one made two hours ago that came due last, one made ten minutes ago
/// that came due first. The oldest ripe row is the one made two hours ago (the due range runs in
/// the order rows came due; its head used to be taken for the oldest), on both backends.
#[tokio::test]
async fn the_oldest_ripe_row_among_due_retries_is_the_oldest_made() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 2, None).await;
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET attempts = 1,
           created_at = CASE WHEN (payload->>'n')::int = 1 THEN now() - interval '2 hours' ELSE now() - interval '10 minutes' END,
           available_at = CASE WHEN (payload->>'n')::int = 1 THEN now() - interval '1 minute' ELSE now() - interval '2 minutes' END"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let age = |v: &Value| v["routes"][0]["oldest_ripe_age_seconds"].as_f64().unwrap();
    let v = ob(["top", "--format", "json"]).pg(&t).code(OK).json();
    assert!((7_000.0..7_400.0).contains(&age(&v)), "{v}");
    let db = MongoDb::new(test).await;
    let coll = format!("{}.outbox", db.name);
    ob(["migrate", "-q"]).mongo(&coll).code(OK);
    emit_events("orders", 2, "{}").mongo(&coll).code(OK);
    let outbox = db.db().collection::<mongodb::bson::Document>("outbox");
    let ids: Vec<mongodb::bson::Bson> = outbox
        .distinct("_id", mongodb::bson::doc! {})
        .await
        .unwrap();
    let ago = |minutes: i64| {
        mongodb::bson::DateTime::from_millis(
            (chrono::Utc::now() - chrono::Duration::minutes(minutes)).timestamp_millis(),
        )
    };
    for (id, (made, due)) in ids.iter().zip([(120, 1), (10, 2)]) {
        let set = mongodb::bson::doc! { "$set": { "attempts": 1, "created_at": ago(made), "available_at": ago(due) } };
        outbox
            .update_one(mongodb::bson::doc! { "_id": id }, set)
            .await
            .unwrap();
    }
    let v = ob(["top", "--format", "json"]).mongo(&coll).code(OK).json();
    assert!((7_000.0..7_400.0).contains(&age(&v)), "{v}");
}

#[tokio::test]
async fn a_refresh_reads_bounded_ranges_of_a_million_rows() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    sqlx::raw_sql(&format!(
        "INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, published_at, processing_at, attempts, available_at, last_error)
         SELECT gen_random_uuid(), 'route' || (g % 5), gen_random_uuid(), 'e', now(), '{{}}',
                CASE WHEN g % 1000 = 0 THEN 'failed' WHEN g % 50 = 1 THEN 'pending' WHEN g % 5000 = 2 THEN 'processing' ELSE 'published' END,
                now() - (g || ' seconds')::interval, now(), now() - interval '1 hour', (g % 3),
                CASE WHEN g % 300 = 1 THEN now() + interval '1 hour' END, CASE WHEN g % 1000 = 0 THEN 'x' END
           FROM generate_series(1, 1000000) g"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    // what autovacuum would have done by then: the visibility map set, statistics read
    sqlx::raw_sql(&format!("VACUUM ANALYZE {t}"))
        .execute(&mut conn)
        .await
        .unwrap();
    let ops = outboxctl::store::postgres::ops::PgOps::open(
        &mut conn,
        outboxctl::target::QualifiedName::parse("t", &t).unwrap(),
    )
    .await
    .unwrap();
    let sql = ops.glance_sql();
    let plan: Value = sqlx::query_scalar(&format!("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) {sql}"))
        .bind("route1")
        .bind(None::<uuid::Uuid>)
        .bind(chrono::Utc::now())
        .bind(chrono::Utc::now() - chrono::Duration::minutes(5))
        .bind(10_001i64)
        .fetch_one(&mut *ops.conn)
        .await
        .unwrap();
    let text = plan.to_string();
    assert!(!text.contains("\"Seq Scan\""), "{plan:#}");
    let top = &plan[0]["Plan"];
    let buffers =
        top["Shared Hit Blocks"].as_i64().unwrap() + top["Shared Read Blocks"].as_i64().unwrap();
    assert!(buffers < 2_000, "{buffers} buffers: {plan:#}");
    let v = ob(["top", "--format", "json", "--interval", "100ms"])
        .pg(&t)
        .code(OK)
        .json();
    assert_eq!(v["routes"].as_array().unwrap().len(), 5);
    println!(
        "top refresh on 1,000,000 rows (5 routes): {} ms, one glance statement: {buffers} buffers",
        v["refresh_ms"]
    );
}

/// A tmux server of the test's own.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(test: &str) -> Self {
        let socket = crate::common::unique_name(test);
        let this = Self { socket };
        this.run(&[
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            "160",
            "-y",
            "40",
            "bash",
            "--norc",
            "--noprofile",
        ]);
        this
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("tmux (scripts/services.sh installs it)");
        assert!(out.status.success(), "tmux {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "t"])
    }

    async fn wait_for(&self, what: &str, check: impl Fn(&str) -> bool) -> String {
        eventually(Duration::from_secs(30), what, async || {
            let s = self.screen();
            if check(&s) { Ok(s) } else { Err(s) }
        })
        .await
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

/// The delivered rate in the headline (`delivered 12/s`).
fn delivered(screen: &str) -> Option<f64> {
    let rest = screen.split("delivered ").nth(1)?;
    rest.split("/s").next()?.trim().parse().ok()
}

#[tokio::test]
async fn the_live_screen_in_tmux_follows_the_outbox_and_restores_the_terminal() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "billing", 5, None).await;
    park(&mut conn, &t, "billing", 3, "HTTP 503 from 10.0.0.7:8080").await;
    // the same failure group on another route: `r` on billing leaves these alone
    stage(&mut conn, &t, "shipping", 2, None).await;
    park(&mut conn, &t, "shipping", 2, "HTTP 503 from 10.0.0.9:8080").await;
    // a relay with its metrics endpoint, delivering what a stager keeps adding
    let port = free_port();
    let log = out_file(&format!("{test}-relay"));
    let _relay = ob([
        "relay",
        "--loop",
        "--route",
        "orders",
        "--to",
        "file:/dev/null",
    ])
    .args(["--metrics-addr", &format!("127.0.0.1:{port}")])
    .pg(&t)
    .env("RUST_LOG", "info")
    .spawn(Some(&log));
    wait_log(&log, "serving /metrics", 1).await;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stager = {
        let (t, stop) = (t.clone(), stop.clone());
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                let mut conn = crate::common::pg().await;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    stage(&mut conn, &t, "orders", 20, None).await;
                    // a steady trickle, not a wait on a condition
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            });
        })
    };

    let tmux = Tmux::start(test);
    let command = format!(
        "{} top --database-url {} --relation {t} --relay http://127.0.0.1:{port} --interval 300ms; echo TOP-EXITED-$?",
        env!("CARGO_BIN_EXE_outboxctl"),
        crate::common::pg_url()
    );
    tmux.keys(&[&command, "Enter"]);
    // the whole screen: headline, routes and the keys' line
    tmux.wait_for("the routes on screen", |s| {
        s.contains("outboxctl top")
            && s.contains(" routes ")
            && s.contains("orders")
            && s.contains("billing")
            && s.contains("q quit")
    })
    .await;
    let s = tmux
        .wait_for("a delivered rate above zero", |s| {
            delivered(s).is_some_and(|d| d > 0.0) && s.contains("publish p50")
        })
        .await;
    assert!(s.contains(&format!("http://127.0.0.1:{port}  up")), "{s}");

    // the server ends top's connections: the screen follows the database back
    let ports = client_ports(&format!("top --database-url .* --relation {t} "));
    let ended: i64 = sqlx::query_scalar(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE client_port = ANY($1)",
    )
    .bind(&ports)
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert!(ended > 0, "top's connections {ports:?} ended");
    stage(&mut conn, &t, "recovered", 1, None).await;
    tmux.wait_for("a route staged after the connection was lost", |s| {
        s.contains("recovered") && !s.contains("refresh failed")
    })
    .await;

    // Enter: the selected route's rows (billing sorts first)
    tmux.keys(&["Enter"]);
    let s = tmux
        .wait_for("the detail view", |s| {
            s.contains("oldest pending and failed rows")
        })
        .await;
    assert!(
        s.contains("billing") && s.contains("HTTP 503 from 10.0.0.7:8080"),
        "{s}"
    );
    tmux.keys(&["Escape"]);
    tmux.wait_for("the routes again", |s| s.contains(" routes "))
        .await;

    // / filters routes
    tmux.keys(&["/", "bill", "Enter"]);
    let s = tmux
        .wait_for("the filtered routes", |s| {
            s.contains("routes matching \"bill\"")
        })
        .await;
    assert!(s.contains("│billing") && !s.contains("│orders"), "{s}");

    // Tab to the failure groups, r, y: the group's rows on the selected route are requeued
    tmux.keys(&["Tab", "r"]);
    tmux.wait_for("the confirmation", |s| {
        s.contains("requeue the 3 failed row(s) of group") && s.contains("on billing? y/N")
    })
    .await;
    // two more rows join the group while it asks: `y` requeues the 3 it asked about
    park(&mut conn, &t, "billing", 2, "HTTP 503 from 10.0.0.8:8080").await;
    tmux.keys(&["y"]);
    tmux.wait_for("the requeue's report", |s| {
        s.contains("requeued 3 row(s)") && s.contains("on billing")
    })
    .await;
    let failed: Vec<String> = sqlx::query_scalar(&format!(
        "SELECT outbox_route FROM {t} WHERE status = 'failed' ORDER BY 1"
    ))
    .fetch_all(&mut conn)
    .await
    .unwrap();
    assert_eq!(
        failed,
        ["billing", "billing", "shipping", "shipping"],
        "the rows that joined after the question, and another route's rows of the group, stay"
    );

    // q: the shell is back, in cooked mode with echo
    tmux.keys(&["q"]);
    tmux.wait_for("top to exit 0", |s| s.contains("TOP-EXITED-0"))
        .await;
    tmux.keys(&[
        "stty -a | tr ' ' '\\n' | grep -x -e echo -e icanon | sort | tr '\\n' ,; echo STTY",
        "Enter",
    ]);
    let s = tmux
        .wait_for("stty's answer", |s| s.contains("echo,icanon,STTY"))
        .await;
    assert!(
        !s.contains("routes matching"),
        "the alternate screen is gone: {s}"
    );
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    stager.join().unwrap();
}

#[tokio::test]
async fn tenants_are_rows_under_their_route() {
    let test = test_name!();
    let (schema, _conn) = PgSchema::new(test).await;
    let (a, b) = (
        "0190c4e2-8a6c-7e4a-9b1e-00000000000a",
        "0190c4e2-8a6c-7e4a-9b1e-00000000000b",
    );
    let cfg = crate::common::config_file(
        test,
        &format!("outbox:\n  tenant_aware: true\n  tenants: [{a}, {b}]\n"),
    );
    let t = schema.rel("outbox");
    ob(["migrate", "-q"]).pg(&t).config(&cfg).code(OK);
    for (tenant, n) in [(a, 3), (b, 2)] {
        emit_events("orders", n, "{}")
            .args(["--tenant", tenant])
            .pg(&t)
            .config(&cfg)
            .code(OK);
    }
    let v = ob(["top", "--format", "json"])
        .pg(&t)
        .config(&cfg)
        .code(OK)
        .json();
    let ripe = |tenant: &str| {
        v["routes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["route"] == "orders" && r["tenant"] == tenant)
            .unwrap_or_else(|| panic!("{tenant} in {v}"))["ripe"]
            .clone()
    };
    assert_eq!((ripe(a), ripe(b)), (3.into(), 2.into()));
    let r = ob(["top"]).pg(&t).config(&cfg).code(OK);
    assert!(r.stdout.contains("tenant") && r.stdout.contains(a), "{r:?}");
}

#[tokio::test]
async fn the_live_screen_in_tmux_on_mongo() {
    let test = test_name!();
    let db = MongoDb::new(test).await;
    let coll = format!("{}.outbox", db.name);
    ob(["migrate", "-q"]).mongo(&coll).code(OK);
    emit_events("orders", 4, "{}").mongo(&coll).code(OK);
    let tmux = Tmux::start(test);
    let command = format!(
        "{} top --database-url '{}' --collection {coll} --interval 300ms; echo TOP-EXITED-$?",
        env!("CARGO_BIN_EXE_outboxctl"),
        crate::common::mongo_url()
    );
    tmux.keys(&[&command, "Enter"]);
    tmux.wait_for("the route on screen", |s| {
        s.contains(" routes ") && s.contains("│orders") && s.contains("q quit")
    })
    .await;
    tmux.keys(&["Enter"]);
    tmux.wait_for("the detail view", |s| {
        s.contains("oldest pending and failed rows") && s.matches("pending ").count() >= 4
    })
    .await;
    tmux.keys(&["q"]);
    tmux.wait_for("top to exit 0", |s| s.contains("TOP-EXITED-0"))
        .await;
}
