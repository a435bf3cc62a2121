//! Shared test set-up: server URLs, a schema or database per test (dropped when the test
//! passes, kept for inspection when it fails), and running the built binary.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use mongodb::bson::doc;
use sqlx::Connection;
use sqlx::postgres::PgConnection;

pub fn pg_url() -> String {
    std::env::var("OUTBOXCTL_TEST_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned())
}

pub fn mongo_url() -> String {
    std::env::var("OUTBOXCTL_TEST_MONGO_URL")
        .unwrap_or_else(|_| "mongodb://127.0.0.1:27018/?replicaSet=rs0".to_owned())
}

/// A short, stable name for a test's own schema or database.
pub fn unique_name(test: &str) -> String {
    let mut h = DefaultHasher::new();
    test.hash(&mut h);
    format!("t_{:016x}", h.finish())
}

pub async fn pg() -> PgConnection {
    PgConnection::connect(&pg_url()).await.unwrap_or_else(|e| {
        panic!(
            "PostgreSQL is not reachable at {} ({e}); run scripts/services.sh (or set OUTBOXCTL_TEST_PG_URL)",
            pg_url()
        )
    })
}

/// A schema of the test's own: created empty, dropped when the test passes.
pub struct PgSchema {
    pub name: String,
}

impl PgSchema {
    pub async fn new(test: &str) -> (Self, PgConnection) {
        let name = unique_name(test);
        let mut conn = pg().await;
        sqlx::raw_sql(&format!(
            "DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name}"
        ))
        .execute(&mut conn)
        .await
        .expect("create test schema");
        (Self { name }, conn)
    }

    /// The same, but the schema does not exist yet (migrate must create it).
    pub async fn absent(test: &str) -> (Self, PgConnection) {
        let name = unique_name(test);
        let mut conn = pg().await;
        sqlx::raw_sql(&format!("DROP SCHEMA IF EXISTS {name} CASCADE"))
            .execute(&mut conn)
            .await
            .expect("drop test schema");
        (Self { name }, conn)
    }

    pub fn rel(&self, table: &str) -> String {
        format!("{}.{table}", self.name)
    }
}

impl Drop for PgSchema {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("test failed: schema {} kept for inspection", self.name);
            return;
        }
        let name = self.name.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                let mut conn = pg().await;
                let _ = sqlx::raw_sql(&format!("DROP SCHEMA IF EXISTS {name} CASCADE"))
                    .execute(&mut conn)
                    .await;
            });
        })
        .join()
        .unwrap();
    }
}

/// Connects to the test replica set, initiating it on first use.
pub async fn mongo() -> mongodb::Client {
    let url = mongo_url();
    let direct = {
        let host = url
            .trim_start_matches("mongodb://")
            .split(['/', '?'])
            .next()
            .unwrap_or("127.0.0.1:27018");
        format!("mongodb://{host}/?directConnection=true&serverSelectionTimeoutMS=3000")
    };
    let admin = mongodb::Client::with_uri_str(&direct)
        .await
        .expect("mongo client");
    let deadline = Instant::now() + Duration::from_secs(30);
    let host = direct
        .trim_start_matches("mongodb://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    loop {
        match admin
            .database("admin")
            .run_command(doc! { "hello": 1 })
            .await
        {
            Ok(hello) if hello.get_bool("isWritablePrimary").unwrap_or(false) => break,
            Ok(hello) if hello.get_str("setName").is_err() => {
                // Not initiated yet: initiate (another test may race us; both are fine).
                let _ = admin
                    .database("admin")
                    .run_command(doc! {
                        "replSetInitiate": { "_id": "rs0", "members": [ { "_id": 0, "host": &host } ] }
                    })
                    .await;
            }
            Ok(_) => {}
            Err(e) => panic!(
                "MongoDB is not reachable at {direct} ({e}); run scripts/services.sh (or set OUTBOXCTL_TEST_MONGO_URL)"
            ),
        }
        assert!(
            Instant::now() < deadline,
            "replica set at {direct} did not elect a primary within 30s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    mongodb::Client::with_uri_str(&url)
        .await
        .expect("mongo client")
}

/// A database of the test's own: dropped when the test passes.
pub struct MongoDb {
    pub name: String,
    pub client: mongodb::Client,
}

impl MongoDb {
    pub async fn new(test: &str) -> Self {
        let client = mongo().await;
        let name = unique_name(test);
        client
            .database(&name)
            .drop()
            .await
            .expect("drop test database");
        Self { name, client }
    }

    pub fn db(&self) -> mongodb::Database {
        self.client.database(&self.name)
    }
}

impl Drop for MongoDb {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("test failed: database {} kept for inspection", self.name);
            return;
        }
        let (name, url) = (self.name.clone(), mongo_url());
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                let client = mongodb::Client::with_uri_str(&url).await.unwrap();
                let _ = client.database(&name).drop().await;
            });
        })
        .join()
        .unwrap();
    }
}

/// The result of running the binary.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn from(out: Output) -> Self {
        Self {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// The built binary with a clean environment: no inherited OUTBOXCTL_* or DATABASE_URL,
/// NO_COLOR set, run in an empty directory so no stray outboxctl.yaml is read.
pub fn outboxctl() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_outboxctl"));
    for (k, _) in std::env::vars() {
        if k.starts_with("OUTBOXCTL_") || k == "DATABASE_URL" {
            cmd.env_remove(k);
        }
    }
    cmd.env("NO_COLOR", "1");
    cmd.current_dir(std::env::temp_dir());
    cmd
}

pub fn run(args: &[&str]) -> Run {
    Run::from(outboxctl().args(args).output().expect("run outboxctl"))
}

/// Runs the binary asynchronously (so a test can do other things meanwhile).
pub async fn run_async(args: Vec<String>) -> Run {
    let mut cmd = tokio::process::Command::from(outboxctl());
    Run::from(cmd.args(&args).output().await.expect("run outboxctl"))
}

/// Writes a config file of the test's own; returns its path.
pub fn config_file(test: &str, yaml: &str) -> String {
    let path = std::env::temp_dir()
        .join("outboxctl-tests")
        .join(format!("{}.yaml", unique_name(test)));
    std::fs::create_dir_all(path.parent().expect("has a parent")).unwrap();
    std::fs::write(&path, yaml).unwrap();
    path.to_str().expect("utf-8 temp dir").to_owned()
}

/// Drops every partition of a delivery log (no day and no default partition left).
pub async fn drop_all_partitions(conn: &mut PgConnection, log: &str) {
    let parts: Vec<String> = sqlx::query_scalar(
        "SELECT c.oid::regclass::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass",
    )
    .bind(log)
    .fetch_all(&mut *conn)
    .await
    .unwrap();
    assert!(!parts.is_empty(), "{log} has no partitions to drop");
    for p in parts {
        sqlx::raw_sql(&format!("DROP TABLE {p}"))
            .execute(&mut *conn)
            .await
            .unwrap();
    }
}

/// Polls `check` every 20 ms until it returns `Ok`, failing the test after `limit` with `what`
/// and the last `Err` (what the condition looked like then). Every wait in the tests is this.
pub async fn eventually<T>(
    limit: Duration,
    what: &str,
    mut check: impl AsyncFnMut() -> Result<T, String>,
) -> T {
    let deadline = Instant::now() + limit;
    loop {
        match check().await {
            Ok(value) => return value,
            Err(seen) => assert!(
                Instant::now() < deadline,
                "timed out after {limit:?} waiting for {what}: {seen}"
            ),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits until the `count(*)` of `sql` is 0, e.g. "no row pending or processing".
pub async fn wait_none(conn: &mut PgConnection, sql: &str, limit: Duration) {
    eventually(limit, sql, async || {
        let left = count(&mut *conn, sql).await;
        if left == 0 {
            Ok(())
        } else {
            Err(format!("{left} left"))
        }
    })
    .await
}

/// Waits until some session matches `sql`, a `SELECT EXISTS (…)` over pg_stat_activity, e.g.
/// "a backend is waiting on a lock".
pub async fn wait_for_session(
    conn: &mut PgConnection,
    sql: &str,
    bind: Option<i32>,
    limit: Duration,
) {
    eventually(limit, sql, async || {
        let mut q = sqlx::query_scalar::<_, bool>(sql);
        if let Some(b) = bind {
            q = q.bind(b);
        }
        if q.fetch_one(&mut *conn).await.unwrap() {
            Ok(())
        } else {
            Err("no session matched".into())
        }
    })
    .await
}

/// A spawned process that is killed when the test ends early (a panic), so a looping relay
/// never outlives its test and competes for the next run's rows.
pub struct KillOnDrop(Option<std::process::Child>);

impl KillOnDrop {
    pub fn new(child: std::process::Child) -> Self {
        Self(Some(child))
    }

    /// SIGTERM (the relay's graceful drain), then its exit status.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        let mut child = self.0.take().expect("running");
        Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        child.wait().unwrap()
    }
}

impl KillOnDrop {
    /// SIGTERM, then its exit status if it exits within `limit` (`None`: still running; it is
    /// killed when dropped).
    pub async fn terminate_within(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let child = self.0.as_mut().expect("running");
        Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                self.0 = None;
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The `count(*)` (or any `bigint`) one query returns.
pub async fn count(conn: &mut PgConnection, sql: &str) -> i64 {
    sqlx::query_scalar(sql).fetch_one(conn).await.unwrap()
}

/// Makes every row of the table due now (as if its retry delay had passed).
pub async fn make_due(conn: &mut PgConnection, table: &str) {
    sqlx::raw_sql(&format!("UPDATE {table} SET available_at = NULL"))
        .execute(conn)
        .await
        .unwrap();
}
