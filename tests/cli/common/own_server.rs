//! A broker of the test's own (nats-server, redis-server, RabbitMQ, tansu) on free ports in a
//! directory of its own, in its own process group, so a test can stop and start it without
//! touching the machine's shared servers. And the restart story every broker goes through.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mongodb::bson::doc;
use sqlx::postgres::PgConnection;

use crate::common::wait_until;
use crate::common::{KillOnDrop, PgSchema, config_file, migrate, ob, stage, unique_name};

/// A port for a server the test will stop and start again: outside the range the kernel hands
/// out for `bind(0)` (32768–60999 here), so that while the server is down no other test's
/// [`free_port`] can take it. Chosen from the test process's id (nextest: one process per
/// test), and never twice in one process (`cargo test`: every test in one), so a port freed
/// while one test's server is down is not another's.
pub fn stable_port() -> u16 {
    static GIVEN: std::sync::Mutex<std::collections::BTreeSet<u16>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    let mut given = GIVEN.lock().unwrap();
    let base = 21_000 + (std::process::id() % 2_000) as u16 * 3;
    let port = (base..27_000)
        .chain(21_000..base)
        .find(|&p| !given.contains(&p) && std::net::TcpListener::bind(("127.0.0.1", p)).is_ok())
        .unwrap_or_else(free_port);
    given.insert(port);
    port
}

/// A port nothing listens on right now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub struct OwnServer {
    pub port: u16,
    pub dir: PathBuf,
    command: Box<dyn Fn(&Path) -> Command + Send>,
    child: Option<Child>,
}

impl OwnServer {
    /// `command` builds the server's command line (given the server's directory); the server
    /// must listen on `port`. Fails with instructions when `program` is missing.
    pub fn new(
        test: &str,
        program: &Path,
        port: u16,
        command: impl Fn(&Path) -> Command + Send + 'static,
    ) -> Self {
        assert!(
            program.exists(),
            "{} is missing: run scripts/services.sh (it installs or builds the test servers)",
            program.display()
        );
        let dir = std::env::temp_dir().join(unique_name(test));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self {
            port,
            dir,
            command: Box::new(command),
            child: None,
        }
    }

    /// Starts the server and waits until its port accepts connections.
    pub async fn start(&mut self) {
        let log = std::fs::File::create(self.dir.join("server.log")).unwrap();
        let child = (self.command)(&self.dir)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .process_group(0)
            .spawn()
            .unwrap();
        self.child = Some(child);
        let port = self.port;
        wait_until(
            Duration::from_secs(90),
            "the test's own server to listen",
            || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok(),
        )
        .await;
    }

    /// SIGSTOP (`pause`) or SIGCONT to the server's whole process group: a stalled server
    /// keeps its connections open and answers nothing.
    pub fn signal(&self, signal: &str) {
        let c = self.child.as_ref().expect("started");
        let status = Command::new("kill")
            .args([signal, "--", &format!("-{}", c.id())])
            .status()
            .unwrap();
        assert!(status.success(), "kill {signal}");
    }

    /// SIGSTOP or SIGCONT to a PostgreSQL of the test's own: its postmaster and every backend
    /// (each in a session of its own, outside the group [`OwnServer::signal`] reaches), so
    /// that open connections stall too.
    pub fn signal_postgres(&self, signal: &str) {
        let pid = std::fs::read_to_string(self.dir.join("data/postmaster.pid")).unwrap();
        let postmaster = pid.lines().next().unwrap().trim().to_owned();
        for args in [vec![signal, "-P", &postmaster], vec![signal, &postmaster]] {
            let program = if args.len() == 3 { "pkill" } else { "kill" };
            Command::new(program).args(&args).status().unwrap();
        }
    }

    /// SIGTERM to the server's whole process group, then waits for it.
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            Command::new("kill")
                .args(["-TERM", "--", &format!("-{}", c.id())])
                .status()
                .unwrap();
            c.wait().unwrap();
            // A wrapper script may exit before the server it started: wait for the port too.
            let deadline = std::time::Instant::now() + Duration::from_secs(60);
            while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                assert!(std::time::Instant::now() < deadline, "server did not stop");
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}

impl Drop for OwnServer {
    fn drop(&mut self) {
        if let Some(c) = &self.child {
            let _ = Command::new("kill")
                .args(["-CONT", "--", &format!("-{}", c.id())])
                .status();
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", c.id())])
                .status();
            self.child.take().map(|mut c| c.wait());
        }
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Both stories' start: a looping relay with a short retry schedule (`max_attempts: 2`,
/// `retry_base_delay: 100ms`, probes backing off to 500ms) delivers 100 events of 10 keys to
/// `destination` (YAML lines of the `orders` route), its log in `log`.
async fn first_hundred(
    test: &str,
    destination: &str,
    publish_timeout: &str,
    log: &Path,
) -> (PgSchema, PgConnection, String, KillOnDrop) {
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 100, Some(10)).await;
    let cfg = config_file(
        test,
        &format!(
            "relay:\n  interval: 100ms\n  retry_base_delay: 100ms\n  retry_max_backoff: 500ms\n  max_attempts: 2\n  publish_timeout: {publish_timeout}\n  routes:\n    orders:\n{destination}"
        ),
    );
    let relay = spawn_loop_relay(&t, &cfg, log);
    wait_published(&mut conn, &t, 100, log).await;
    (schema, conn, t, relay)
}

/// A looping relay publishes 100 events to `destination` (YAML lines of the `orders` route),
/// the server stops, 100 more are staged, the relay finds the destination down, and the
/// outage lasts more than ten times the whole retry schedule (`max_attempts: 2`,
/// `retry_base_delay: 100ms`); the server starts again: every row ends `published`, and no
/// attempt was counted for the outage. The hooks (given the table) run just before the stop and
/// just after the start; they block, so a test whose hooks do I/O runs on a multi-thread
/// runtime and uses [`on_tokio`]. Returns the schema (kept alive), a connection and the table for the broker
/// side's checks.
pub async fn relay_across_restart(
    test: &str,
    server: &mut OwnServer,
    destination: &str,
    before_stop: &mut dyn FnMut(&str),
    after_start: &mut dyn FnMut(&str),
) -> (PgSchema, PgConnection, String) {
    let log = server.dir.join("relay.log");
    let (schema, mut conn, t, relay) = first_hundred(test, destination, "2s", &log).await;
    before_stop(&t);
    server.stop();
    let stopped = std::time::Instant::now();
    stage(&mut conn, &t, "orders", 100, Some(10)).await;
    // the relay finds the destination down, and probes it (backing off to 500ms)
    wait_log(&log, "destination down", 1).await;
    // the schedule (one retry after 50-100ms) fits in the outage more than ten times over
    wait_until(Duration::from_secs(30), "an outage of 2s", || {
        stopped.elapsed() >= Duration::from_secs(2)
    })
    .await;
    server.start().await;
    after_start(&t);
    wait_published(&mut conn, &t, 200, &log).await;
    assert!(relay.terminate().success());
    assert_no_attempts(&mut conn, &t).await;
    (schema, conn, t)
}

/// The stall story: a looping relay (publish timeout 1s, `max_attempts: 2`) publishes 100
/// events of 10 keys, the server is stopped with SIGSTOP (connections stay open, nothing
/// answers) and 100 more are staged. The publishes in flight time out and count one attempt
/// each, then a probe finds the destination down and nothing more is attempted: at most one
/// row per key (what can be in flight) gets +1, none is parked. After SIGCONT every row ends
/// `published`. `stall` and `resume` stop and continue the server.
pub async fn relay_across_stall(
    test: &str,
    destination: &str,
    log: &Path,
    stall: &mut dyn FnMut(),
    resume: &mut dyn FnMut(),
) -> (PgSchema, PgConnection, String) {
    let (schema, mut conn, t, relay) = first_hundred(test, destination, "1s", log).await;
    stall();
    let stalled = std::time::Instant::now();
    stage(&mut conn, &t, "orders", 100, Some(10)).await;
    wait_log(log, "destination down", 1).await;
    wait_until(Duration::from_secs(30), "a stall of 3s", || {
        stalled.elapsed() >= Duration::from_secs(3)
    })
    .await;
    let attempted_sql = format!("SELECT count(*) FROM {t} WHERE attempts > 0");
    let during = crate::common::count(&mut conn, &attempted_sql).await;
    resume();
    wait_published(&mut conn, &t, 200, log).await;
    assert!(relay.terminate().success());
    let (attempted, most, failed): (i64, Option<i32>, i64) = sqlx::query_as(&format!(
        "SELECT count(*) FILTER (WHERE attempts > 0), max(attempts), count(*) FILTER (WHERE status = 'failed') FROM {t}"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert!(
        during <= 10 && attempted <= 10,
        "at most the rows in flight (one per key) are attempted: {during} during the stall, {attempted} in all"
    );
    assert_eq!((most.unwrap_or(0) <= 1, failed), (true, 0), "none parked");
    (schema, conn, t)
}

/// Waits until `n` rows of `t` are `published`; on timeout the failure shows the rows that
/// are not (status, attempts, availability, last error) and the relay's log.
pub async fn wait_published(conn: &mut PgConnection, t: &str, n: i64, log: &Path) {
    let what = format!("{n} published rows in {t}");
    let published = format!("SELECT count(*) FROM {t} WHERE status = 'published'");
    let stragglers = format!(
        "SELECT format('%s %s attempts=%s available_at=%s error=%s', event_id, status, attempts, available_at, last_error) FROM {t} WHERE status <> 'published' ORDER BY created_at LIMIT 10"
    );
    crate::common::eventually(Duration::from_secs(60), &what, async || {
        let got = crate::common::count(&mut *conn, &published).await;
        if got >= n {
            return Ok(());
        }
        let rows: Vec<String> = sqlx::query_scalar(&stragglers)
            .fetch_all(&mut *conn)
            .await
            .unwrap();
        let text = std::fs::read_to_string(log).unwrap_or_default();
        Err(format!(
            "{got} so far; not published:\n{}\nrelay log:\n{text}",
            rows.join("\n")
        ))
    })
    .await
}

/// Waits until the relay's log holds `needle` at least `n` times.
pub async fn wait_log(log: &Path, needle: &str, n: usize) {
    let what = format!("{n} × {needle:?} in {}", log.display());
    crate::common::eventually(Duration::from_secs(60), &what, async || {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let seen = text.matches(needle).count();
        if seen >= n {
            Ok(())
        } else {
            Err(format!("{seen} so far; log:\n{text}"))
        }
    })
    .await
}

/// No row of the table was counted an attempt or parked: an outage is not a failure.
pub async fn assert_no_attempts(conn: &mut PgConnection, t: &str) {
    let (attempted, failed): (i64, i64) = sqlx::query_as(&format!(
        "SELECT count(*) FILTER (WHERE attempts > 0), count(*) FILTER (WHERE status = 'failed') FROM {t}"
    ))
    .fetch_one(conn)
    .await
    .unwrap();
    assert_eq!((attempted, failed), (0, 0), "rows attempted, rows parked");
}

/// `relay --loop` on the table with a config file, its log in `log`; killed if the test fails.
pub fn spawn_loop_relay(table: &str, cfg: &str, log: &Path) -> KillOnDrop {
    ob(["relay", "--loop"])
        .pg(table)
        .config(cfg)
        .spawn(Some(log))
}

/// The event ids of every row of the table.
pub async fn staged_event_ids(conn: &mut PgConnection, t: &str) -> Vec<String> {
    sqlx::query_scalar(&format!("SELECT event_id::text FROM {t}"))
        .fetch_all(conn)
        .await
        .unwrap()
}

/// Asserts every staged event id is among those the broker holds.
pub fn assert_none_lost(staged: &[String], arrived: &std::collections::HashSet<String>) {
    assert_eq!(staged.len(), 200);
    let missing: Vec<&String> = staged.iter().filter(|e| !arrived.contains(*e)).collect();
    assert!(missing.is_empty(), "lost across the restart: {missing:?}");
}

/// Runs a future to completion from blocking code inside a multi-thread tokio runtime.
pub fn on_tokio<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::task::block_in_place(|| tokio::runtime::Handle::current().block_on(f))
}

/// A PostgreSQL of the test's own (`scripts/postgres`: a cluster in the test's directory, on a
/// free port), started; with `ssl`, TLS on and the CA to verify it at `dir/data/root.crt`. Its
/// URL (database `postgres`, user `postgres`, trust authentication).
pub async fn own_postgres(test: &str, ssl: bool) -> (OwnServer, String) {
    let port = stable_port();
    let script = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/postgres"));
    let mut pg = OwnServer::new(test, &script, port, move |dir| {
        let mut c = Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/postgres"));
        c.arg(dir.join("data")).arg(port.to_string());
        if ssl {
            c.arg("ssl");
        }
        c
    });
    pg.start().await;
    let url = format!("postgres://postgres@127.0.0.1:{port}/postgres");
    postgres_ready(&url).await;
    (pg, url)
}

/// Waits until the server at `url` takes a connection (it listens before it is ready: "the
/// database system is starting up").
pub async fn postgres_ready(url: &str) {
    use sqlx::Connection;
    crate::common::eventually(
        Duration::from_secs(60),
        "the test's own PostgreSQL to take connections",
        async || {
            PgConnection::connect(url)
                .await
                .map(drop)
                .map_err(|e| e.to_string())
        },
    )
    .await
}

/// A mongod of the test's own, so it can be stopped and started without disturbing others.
pub struct OwnMongod {
    pub port: u16,
    pub dir: std::path::PathBuf,
    bin: std::path::PathBuf,
    /// Without a replica set: a standalone server (no transactions).
    standalone: bool,
}

impl OwnMongod {
    pub fn start(&self) {
        let status = std::process::Command::new(&self.bin)
            .args([
                "--bind_ip",
                "127.0.0.1",
                "--port",
                &self.port.to_string(),
                "--dbpath",
            ])
            .arg(self.dir.join("db"))
            .args(if self.standalone {
                &[][..]
            } else {
                &["--replSet", "rsr"][..]
            })
            .args([
                "--wiredTigerCacheSizeGB",
                "0.25",
                // failpoints (`configureFailPoint`) for the faults a test makes
                "--setParameter",
                "enableTestCommands=1",
                "--nounixsocket",
                "--fork",
                "--logpath",
            ])
            .arg(self.dir.join("mongod.log"))
            .arg("--pidfilepath")
            .arg(self.dir.join("mongod.pid"))
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(
            status.success(),
            "mongod did not start; see {}",
            self.dir.join("mongod.log").display()
        );
    }

    /// Stops it and waits until the process has exited (its files are free again: the next
    /// start, or the next run of the test, may use the same directory).
    pub fn stop(&self) {
        let pid = std::fs::read_to_string(self.dir.join("mongod.pid")).unwrap();
        let pid = pid.trim().to_owned();
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap();
        let alive = || {
            std::process::Command::new("kill")
                .args(["-0", &pid])
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        let deadline = Instant::now() + Duration::from_secs(60);
        while alive() {
            assert!(Instant::now() < deadline, "mongod {pid} did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn port_open(&self) -> bool {
        std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok()
    }

    pub async fn primary(&self) {
        let direct = format!(
            "mongodb://127.0.0.1:{}/?directConnection=true&serverSelectionTimeoutMS=2000",
            self.port
        );
        let admin = mongodb::Client::with_uri_str(&direct).await.unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(hello) = admin
                .database("admin")
                .run_command(doc! { "hello": 1 })
                .await
            {
                if hello.get_bool("isWritablePrimary").unwrap_or(false) {
                    return;
                }
                if hello.get_str("setName").is_err() {
                    let host = format!("127.0.0.1:{}", self.port);
                    let _ = admin
                        .database("admin")
                        .run_command(doc! { "replSetInitiate": { "_id": "rsr", "members": [ { "_id": 0, "host": host } ] } })
                        .await;
                }
            }
            assert!(
                Instant::now() < deadline,
                "own mongod on {} did not become primary",
                self.port
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for OwnMongod {
    fn drop(&mut self) {
        if self.port_open() {
            self.stop();
        }
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// The mongod binary scripts/services.sh installs.
pub fn mongod_bin() -> std::path::PathBuf {
    let cache = std::env::var("OUTBOXCTL_CACHE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| {
            std::path::PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/outboxctl")
        });
    let bin = cache.join("mongod-6.0.5/fiftyone/db/bin/mongod");
    assert!(
        bin.exists(),
        "{} is missing: run scripts/services.sh, which installs it",
        bin.display()
    );
    bin
}

pub fn own_mongod(name: &str, port_base: u16, standalone: bool) -> OwnMongod {
    let dir = std::env::temp_dir().join(crate::common::unique_name(name));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("db")).unwrap();
    let port = port_base + (std::process::id() % 400) as u16;
    OwnMongod {
        port,
        dir,
        bin: mongod_bin(),
        standalone,
    }
}
