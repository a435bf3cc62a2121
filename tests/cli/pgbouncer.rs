//! outboxctl through a real pgbouncer (Debian's 1.18) of the test's own, with its default
//! settings apart from the pool mode and a pool of two server connections: every command in
//! transaction pooling, four relays sharing that pool in both storages, session pooling, and
//! statement pooling refused with its reason.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::str::FromStr;
use std::time::Duration;

use serde_json::Value;
use sqlx::postgres::PgConnectOptions;

use crate::common::fixture::{Fixture, insert};
use crate::common::{
    CHECK_FAILED, ERROR, KillOnDrop, OK, PgSchema, config_file, count, lines, out_file, pg_url,
    wait_none,
};
use crate::common::{OwnServer, free_port};

/// A pgbouncer in front of the test PostgreSQL, on a free port, in a directory of its own.
pub struct PgBouncer {
    server: OwnServer,
    /// `postgres://user@127.0.0.1:PORT/db`, through the pooler.
    pub url: String,
}

impl PgBouncer {
    /// Starts one with `pool_mode` (transaction, session or statement) and
    /// `default_pool_size = 2`; everything else is pgbouncer's default (`scripts/pgbouncer`).
    pub async fn start(test: &str, pool_mode: &str) -> Self {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/pgbouncer");
        let installed = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"]
            .iter()
            .map(Path::new)
            .find(|p| p.exists())
            .unwrap_or(Path::new("/usr/sbin/pgbouncer"));
        let port = free_port();
        let target = PgConnectOptions::from_str(&pg_url()).unwrap();
        let db = target.get_database().unwrap_or("test").to_owned();
        let user = target.get_username().to_owned();
        let args: Vec<String> = vec![
            port.to_string(),
            pool_mode.to_owned(),
            target.get_host().to_owned(),
            target.get_port().to_string(),
            db.clone(),
            user.clone(),
        ];
        let mut server =
            OwnServer::new(&format!("{test}_pgbouncer"), installed, port, move |dir| {
                let mut c = Command::new(&script);
                c.arg(dir).args(&args);
                c
            });
        server.start().await;
        Self {
            server,
            url: format!("postgres://{user}@127.0.0.1:{port}/{db}"),
        }
    }

    /// Stops the pooler (its port then refuses connections).
    pub fn stop(&mut self) {
        self.server.stop();
    }
}

/// Other clients of a transaction pool, on a thread of their own: each runs one-statement
/// transactions in a loop, so the pool's server connections change hands between any two
/// transactions of the command under test (a statement split across two of them fails).
pub struct Noise {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<u64>>,
}

impl Noise {
    pub fn start(url: &str, clients: usize) -> Self {
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let (flag, url) = (stop.clone(), url.to_owned());
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let options = PgConnectOptions::from_str(&url)
                    .unwrap()
                    .extra_float_digits(None);
                let mut tasks = Vec::new();
                for _ in 0..clients {
                    let (flag, options) = (flag.clone(), options.clone());
                    tasks.push(async move {
                        use sqlx::ConnectOptions;
                        let mut conn = options.connect().await.expect("noise client connects");
                        let mut n = 0u64;
                        while !flag.load(Ordering::Relaxed) {
                            sqlx::raw_sql("SELECT pg_sleep(0.0005)")
                                .execute(&mut conn)
                                .await
                                .expect("noise statement");
                            n += 1;
                        }
                        n
                    });
                }
                futures_util::future::join_all(tasks)
                    .await
                    .into_iter()
                    .sum()
            })
        });
        Self {
            stop,
            thread: Some(thread),
        }
    }

    /// Stops the clients; how many statements they ran (so a test can tell they did).
    pub fn stop(mut self) -> u64 {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.thread.take().unwrap().join().unwrap()
    }
}

impl Drop for Noise {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// outboxctl with `--config cfg` and `args`.
fn ob(cfg: &str, args: &[&str]) -> crate::common::Run {
    crate::common::ob(["--config", cfg]).args(args).run()
}

#[track_caller]
fn ok(r: crate::common::Run) -> crate::common::Run {
    assert_eq!(r.code, OK, "{r:?}");
    r
}

fn json(r: &crate::common::Run) -> Value {
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {r:?}"))
}

/// The configuration every transaction-pooling test shares: consume storage with a delivery
/// log, HLC order with a checkpoint, strict key order, through the pooler.
fn consume_config(test: &str, url: &str, schema: &PgSchema, to: &Path) -> String {
    config_file(
        test,
        &format!(
            "database_url: {url}\noutbox:\n  relation: {t}\n  storage: consume\n  delivery_log: {log}\n  hlc_ordering: true\n  hlc_checkpoint: {cp}\nrelay:\n  key_order: strict\n  interval: 50ms\n  routes:\n    orders:\n      to: \"file:{to}\"\npartitions:\n  ahead_days: 2\n",
            t = schema.rel("outbox"),
            log = schema.rel("outbox_delivered"),
            cp = schema.rel("hlc_checkpoint"),
            to = to.display(),
        ),
    )
}

#[tokio::test]
async fn every_command_works_through_transaction_pooling() {
    let test = "pgbouncer_commands";
    let bouncer = PgBouncer::start(test, "transaction").await;
    let (schema, mut conn) = PgSchema::absent(test).await;
    let t = schema.rel("outbox");
    let log = schema.rel("outbox_delivered");
    let path = out_file(test);
    let cfg = consume_config(test, &bouncer.url, &schema, &path);
    let noise = Noise::start(&bouncer.url, 3);

    // migrate: the new objects in one transaction, then nothing left to do
    ok(ob(&cfg, &["migrate"]));
    let r = ok(ob(&cfg, &["migrate", "--check"]));
    assert!(r.stderr.contains("up to date"), "{r:?}");
    // on the existing table an index is built CONCURRENTLY (no transaction around it); a table
    // migrated for strict order before the strict claim index existed gets it the same way
    sqlx::raw_sql(&format!(
        "DROP INDEX {t}_key_idx; DROP INDEX {t}_strict_claim_idx"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = ok(ob(&cfg, &["migrate"]));
    assert!(r.stdout.contains("without blocking writes"), "{r:?}");
    assert_eq!(
        count(
            &mut conn,
            &format!(
                "SELECT count(*) FROM pg_indexes WHERE schemaname = '{}' AND indexname IN ('outbox_key_idx', 'outbox_strict_claim_idx')",
                schema.name
            ),
        )
        .await,
        2
    );

    // emit with the HLC checkpoint advanced in the same transaction, and a deduplicated repeat
    let event = "0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e";
    for key in ["k1", "k2", "k1"] {
        ok(ob(
            &cfg,
            &[
                "emit",
                "--route",
                "orders",
                "--type",
                "order.placed",
                "--payload",
                "{\"n\": 1}",
                "--ordering-key",
                key,
            ],
        ));
    }
    let r = ok(ob(
        &cfg,
        &[
            "emit",
            "--route",
            "orders",
            "--type",
            "order.placed",
            "--payload",
            "{}",
            "--event-id",
            event,
            "--format",
            "json",
        ],
    ));
    assert!(r.stdout.contains("\"deduplicated\": 0"), "{r:?}");
    let r = ok(ob(
        &cfg,
        &[
            "emit",
            "--route",
            "orders",
            "--type",
            "order.placed",
            "--payload",
            "{}",
            "--event-id",
            event,
            "--format",
            "json",
        ],
    ));
    assert!(r.stdout.contains("\"deduplicated\": 1"), "{r:?}");
    let r = ok(ob(&cfg, &["hlc", "show", "--format", "json"]));
    assert!(r.stdout.contains("\"node_key\": \"default\""), "{r:?}");

    // inspect
    let summary = json(&ok(ob(&cfg, &["inspect", "--format", "json"])));
    assert_eq!(summary[0]["pending_ripe"], 4, "{summary}");
    let pending = json(&ok(ob(&cfg, &["inspect", "pending", "--format", "json"])));
    assert_eq!(pending.as_array().unwrap().len(), 4, "{pending}");

    // relay: consume with the delivery log and strict order, exactly once into the file
    let r = ob(&cfg, &["relay", "--once"]);
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(lines(&path).len(), 4);
    assert_eq!(
        count(&mut conn, &format!("SELECT count(*) FROM {t}")).await,
        0
    );
    assert_eq!(
        count(&mut conn, &format!("SELECT count(*) FROM {log}")).await,
        4
    );
    let r = ok(ob(&cfg, &["inspect", "event", event, "--format", "json"]));
    assert!(r.stdout.contains("published_at"), "{r:?}");

    // failed rows: listed, requeued (dry run first), parked again, discarded
    let boom = Fixture::failed("orders")
        .event_type("order.placed")
        .attempts(4)
        .error("boom");
    insert(&mut conn, &t, &[boom.clone(), boom.clone(), boom]).await;
    let failed = json(&ok(ob(&cfg, &["inspect", "failed", "--format", "json"])));
    assert_eq!(failed.as_array().unwrap().len(), 3, "{failed}");
    let r = ok(ob(
        &cfg,
        &["requeue", "--all", "--route", "orders", "--dry-run"],
    ));
    assert!(r.stdout.contains('3'), "{r:?}");
    ok(ob(
        &cfg,
        &["requeue", "--all", "--route", "orders", "--yes"],
    ));
    let failed_sql = format!("SELECT count(*) FROM {t} WHERE status = 'failed'");
    assert_eq!(count(&mut conn, &failed_sql).await, 0);
    sqlx::raw_sql(&format!("UPDATE {t} SET status = 'failed'"))
        .execute(&mut conn)
        .await
        .unwrap();
    ok(ob(
        &cfg,
        &["discard", "--all", "--route", "orders", "--yes"],
    ));
    assert_eq!(
        count(&mut conn, &format!("SELECT count(*) FROM {t}")).await,
        0
    );

    // partitions
    let r = ok(ob(&cfg, &["partitions", "list", "--format", "json"]));
    assert!(r.stdout.contains("outbox_delivered_default"), "{r:?}");
    ok(ob(&cfg, &["partitions", "add-ahead", "--days", "4"]));
    ok(ob(
        &cfg,
        &["partitions", "drop-expired", "--keep-days", "30", "--yes"],
    ));
    ok(ob(&cfg, &["partitions", "check", "--min-ahead", "4"]));

    // doctor: it runs every check through the pooler and says it is behind one
    let r = ob(&cfg, &["doctor", "--format", "json"]);
    assert!(r.code == OK || r.code == CHECK_FAILED, "{r:?}");
    assert!(r.stdout.contains("behind a pooler"), "{r:?}");
    assert!(!r.stdout.contains("\"fail\""), "{r:?}");

    // storage: a retain table moved to consume, step 3 through the pooler
    let legacy = schema.rel("legacy");
    let legacy_cfg = config_file(
        "pgbouncer_commands_legacy",
        &format!(
            "database_url: {}\noutbox:\n  relation: {legacy}\nrelay:\n  reclaim_stale_after: null\n",
            bouncer.url
        ),
    );
    ok(ob(&legacy_cfg, &["migrate"]));
    let r = ok(ob(&legacy_cfg, &["storage", "status", "--format", "json"]));
    assert!(r.stdout.contains("\"next_step\": 3"), "{r:?}");
    ok(ob(
        &legacy_cfg,
        &[
            "storage",
            "to-consume",
            "--step",
            "3",
            "--reclaim-disabled",
            "--storage",
            "consume",
            "--yes",
        ],
    ));
    assert_eq!(
        count(
            &mut conn,
            &format!(
                "SELECT count(*) FROM information_schema.columns WHERE table_schema = '{}' AND table_name = 'legacy' AND column_name IN ('processing_at', 'published_at')",
                schema.name
            ),
        )
        .await,
        0
    );
    assert!(noise.stop() > 0, "the other clients ran");
}

/// Four looping relays through a pool of two server connections: every event delivered exactly
/// once (nothing crashes, so no duplicate), each key in claim order, no failed pass.
async fn four_relays_on_a_pool_of_two(storage: &str) {
    let test = format!("pgbouncer_four_relays_{storage}");
    let bouncer = PgBouncer::start(&test, "transaction").await;
    let (schema, mut conn) = PgSchema::new(&test).await;
    let t = schema.rel("outbox");
    let path = out_file(&test);
    let log_line = if storage == "consume" {
        format!("  delivery_log: {}\n", schema.rel("outbox_delivered"))
    } else {
        String::new()
    };
    let cfg = config_file(
        &test,
        &format!(
            "database_url: {url}\noutbox:\n  relation: {t}\n  storage: {storage}\n{log_line}  hlc_ordering: true\nrelay:\n  key_order: strict\n  interval: 50ms\n  max_claim_rows: 50\n  routes:\n    orders:\n      to: \"file:{to}\"\n",
            url = bouncer.url,
            to = path.display(),
        ),
    );
    ok(ob(&cfg, &["migrate"]));
    let n = 3000;
    sqlx::raw_sql(&format!(
        "INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, ordering_key, hlc)
         SELECT gen_random_uuid(), 'orders', gen_random_uuid(), 'order.placed', now(), jsonb_build_object('n', g),
                'pending', now() + g * interval '1 microsecond', 'k' || (g % 40), (1764583200000::bigint << 16) + g
           FROM generate_series(1, {n}) g"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let dir = std::env::temp_dir().join(crate::common::unique_name(&test));
    std::fs::create_dir_all(&dir).unwrap();
    let relays: Vec<(KillOnDrop, PathBuf)> = (0..4)
        .map(|i| {
            let log = dir.join(format!("relay{i}.log"));
            let relay = crate::common::ob(["relay", "--loop"])
                .config(&cfg)
                .spawn(Some(&log));
            (relay, log)
        })
        .collect();
    let left = match storage {
        "consume" => format!("SELECT count(*) FROM {t}"),
        _ => format!("SELECT count(*) FROM {t} WHERE status <> 'published'"),
    };
    wait_none(&mut conn, &left, Duration::from_secs(120)).await;
    for (relay, log) in relays {
        let status = relay.terminate();
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(status.success(), "{storage}: a relay failed: {text}");
        assert!(
            !text.contains("pass failed") && !text.contains("ERROR"),
            "{storage}: a relay's pass failed through the pooler: {text}"
        );
    }
    let delivered = lines(&path);
    let mut seen: HashMap<String, Vec<i64>> = HashMap::new();
    let mut ids: HashMap<String, usize> = HashMap::new();
    for l in &delivered {
        *ids.entry(l["event_id"].as_str().unwrap().to_owned())
            .or_default() += 1;
        seen.entry(l["key"].as_str().unwrap().to_owned())
            .or_default()
            .push(l["payload"]["n"].as_i64().unwrap());
    }
    assert_eq!(ids.len(), n, "{storage}: every event delivered");
    assert!(ids.values().all(|&c| c == 1), "{storage}: no duplicate");
    for (key, ns) in &seen {
        assert!(
            ns.windows(2).all(|w| w[0] < w[1]),
            "{storage}: key {key} out of order: {ns:?}"
        );
    }
    if storage == "consume" {
        let logged = count(
            &mut conn,
            &format!(
                "SELECT count(DISTINCT event_id) FROM {}",
                schema.rel("outbox_delivered")
            ),
        )
        .await;
        assert_eq!(logged, n as i64);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn four_retain_relays_share_a_transaction_pool_of_two() {
    four_relays_on_a_pool_of_two("retain").await;
}

#[tokio::test]
async fn four_consume_relays_share_a_transaction_pool_of_two() {
    four_relays_on_a_pool_of_two("consume").await;
}

#[tokio::test]
async fn session_pooling_runs_migrate_emit_inspect_and_the_relay() {
    let test = "pgbouncer_session";
    let bouncer = PgBouncer::start(test, "session").await;
    let (schema, mut conn) = PgSchema::absent(test).await;
    let path = out_file(test);
    let cfg = consume_config(test, &bouncer.url, &schema, &path);
    ok(ob(&cfg, &["migrate"]));
    ok(ob(
        &cfg,
        &[
            "emit",
            "--route",
            "orders",
            "--type",
            "t",
            "--payload",
            "{}",
            "--count",
            "50",
        ],
    ));
    let summary = json(&ok(ob(&cfg, &["inspect", "--format", "json"])));
    assert_eq!(summary[0]["pending_ripe"], 50, "{summary}");
    ok(ob(&cfg, &["relay", "--once"]));
    assert_eq!(lines(&path).len(), 50);
    assert_eq!(
        count(
            &mut conn,
            &format!("SELECT count(*) FROM {}", schema.rel("outbox"))
        )
        .await,
        0
    );
}

/// Session pooling with a pool of two and a relay of three destinations (three lanes, each a
/// client holding a server connection for its session): the third lane's first statement
/// waits for a server connection that never comes free. Bounded by `--connect-timeout` and
/// said, exit 3 (the relay hung at start without a word, its metrics address never bound).
#[tokio::test]
async fn a_session_pool_too_small_for_the_relay_is_said_at_start() {
    let test = "pgbouncer_session_small";
    let bouncer = PgBouncer::start(test, "session").await;
    let (schema, _conn) = PgSchema::absent(test).await;
    let path = out_file(test);
    let to = |n: u32| format!("      to: \"file:{}.{n}\"\n", path.display());
    let cfg = config_file(
        test,
        &format!(
            "database_url: {}\noutbox:\n  relation: {}\nrelay:\n  routes:\n    a:\n{}    b:\n{}    c:\n{}",
            bouncer.url,
            schema.rel("outbox"),
            to(1),
            to(2),
            to(3)
        ),
    );
    ok(ob(&cfg, &["migrate"]));
    let r = ob(&cfg, &["relay", "--once", "--connect-timeout", "2s"]);
    assert_eq!(r.code, crate::common::CONNECT, "{r:?}");
    assert!(
        r.stderr
            .contains("its first statement had no answer within 2s"),
        "{r:?}"
    );
    assert!(r.stderr.contains("default_pool_size"), "{r:?}");
}

#[tokio::test]
async fn statement_pooling_is_refused_with_its_reason() {
    let test = "pgbouncer_statement";
    let bouncer = PgBouncer::start(test, "statement").await;
    let (schema, _conn) = PgSchema::absent(test).await;
    let path = out_file(test);
    let cfg = consume_config(test, &bouncer.url, &schema, &path);
    let reason = "pgbouncer in statement pooling mode cannot run outboxctl: use transaction or session pooling";
    let commands: [&[&str]; 9] = [
        &["migrate"],
        &["relay", "--once"],
        &["relay", "--loop"],
        &["inspect"],
        &[
            "emit",
            "--route",
            "orders",
            "--type",
            "t",
            "--payload",
            "{}",
        ],
        &["requeue", "--all", "--route", "orders", "--yes"],
        &["hlc", "show"],
        &["partitions", "list"],
        &["storage", "status"],
    ];
    for args in commands {
        let r = ob(&cfg, args);
        assert_eq!(r.code, ERROR, "{args:?}: {r:?}");
        assert!(r.stderr.contains(reason), "{args:?}: {r:?}");
        assert_eq!(
            r.stderr.trim().lines().count(),
            1,
            "{args:?}: one line: {r:?}"
        );
    }
    let r = ob(&cfg, &["doctor"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(r.stdout.contains(reason), "{r:?}");
    // the registry's commands: the pooler is named, not migrate (which it named for any
    // failure, while the registry was there all along)
    let r = ob(&cfg, &["route", "pause", "orders", "--reason", "x"]);
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(
        r.stderr.contains(reason) && !r.stderr.contains("migrate"),
        "{r:?}"
    );
}

#[tokio::test]
async fn init_tests_its_connection_through_transaction_pooling() {
    let bouncer = PgBouncer::start("pgbouncer_init", "transaction").await;
    crate::ecosystem::init_on_a_pseudo_terminal(&bouncer.url, "pgbouncer_init");
}

#[tokio::test]
async fn prepared_statements_relay_both_storages_on_a_direct_connection() {
    for storage in ["retain", "consume"] {
        let test = format!("prepared_statements_{storage}");
        let (schema, mut conn) = PgSchema::new(&test).await;
        let t = schema.rel("outbox");
        let path = out_file(&test);
        let cfg = config_file(
            &test,
            &format!(
                "database_url: {}\noutbox:\n  relation: {t}\n  storage: {storage}\nrelay:\n  prepared_statements: true\n  routes:\n    orders:\n      to: \"file:{}\"\n",
                pg_url(),
                path.display()
            ),
        );
        ok(ob(&cfg, &["migrate"]));
        crate::common::stage(&mut conn, &t, "orders", 250, Some(7)).await;
        ok(ob(&cfg, &["relay", "--once"]));
        assert_eq!(lines(&path).len(), 250, "{storage}");
        let left = match storage {
            "consume" => format!("SELECT count(*) FROM {t}"),
            _ => format!("SELECT count(*) FROM {t} WHERE status <> 'published'"),
        };
        assert_eq!(count(&mut conn, &left).await, 0, "{storage}");
    }
}
