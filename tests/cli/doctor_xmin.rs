//! `doctor` names what holds the xmin horizon, on real servers: a transaction left idle (warn
//! past `--max-xmin-age`, fail past 12 times it) named by its pid, directly and through
//! pgbouncer's transaction pooling; a role without `pg_monitor` told what it cannot see; and,
//! on a PostgreSQL of the test's own (`max_prepared_transactions` and `wal_level = logical`,
//! which the shared server lacks), a prepared transaction and a forgotten logical slot.

use std::path::PathBuf;
use std::process::Command;
use std::str::FromStr;
use std::time::Duration;

use serde_json::Value;
use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::{ConnectOptions, Connection};

use crate::common::{
    CHECK_FAILED, OK, OwnServer, PgSchema, Run, eventually, free_port, migrate, ob, pg_url,
    postgres_ready,
};

/// A connection named `application` holding a transaction with an xid (`BEGIN; SELECT
/// txid_current()`), left idle in it; and its backend's pid.
async fn hold_transaction(url: &str, application: &str) -> (PgConnection, i32) {
    let mut conn = PgConnectOptions::from_str(url)
        .unwrap()
        .application_name(application)
        .connect()
        .await
        .unwrap();
    let pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    sqlx::raw_sql("BEGIN; SELECT txid_current()")
        .execute(&mut conn)
        .await
        .unwrap();
    (conn, pid)
}

/// Waits until backend `pid`'s transaction is older than `seconds`, as the server sees it.
async fn wait_older_than(conn: &mut PgConnection, pid: i32, seconds: f64) {
    eventually(
        Duration::from_secs(30),
        "the held transaction to age",
        async || {
            let age: Option<f64> = sqlx::query_scalar(
                "SELECT extract(epoch FROM clock_timestamp() - xact_start)::float8 FROM pg_stat_activity WHERE pid = $1",
            )
            .bind(pid)
            .fetch_one(&mut *conn)
            .await
            .map_err(|e| e.to_string())?;
            match age {
                Some(a) if a > seconds => Ok(()),
                other => Err(format!("{other:?}s old")),
            }
        },
    )
    .await
}

/// doctor's checks from `--format json` output.
#[track_caller]
fn checks(r: &Run) -> Vec<Value> {
    r.json()["checks"].as_array().expect("checks").clone()
}

/// The xmin horizon check naming backend `pid`, if any.
fn naming(checks: &[Value], pid: i32) -> Option<Value> {
    checks
        .iter()
        .find(|c| c["check"] == "xmin horizon" && c["holder"]["pid"] == pid)
        .cloned()
}

/// Other tests share the server: whatever fails must be a holder of theirs, not this outbox.
#[track_caller]
fn only_others_fail(r: &Run, pid: i32) {
    assert!(r.code == OK || r.code == CHECK_FAILED, "{r:?}");
    for c in checks(r).iter().filter(|c| c["level"] == "fail") {
        assert!(
            c["check"] == "xmin horizon" && c["holder"]["pid"] != pid,
            "{c}\n{r:?}"
        );
    }
}

#[tokio::test]
async fn doctor_names_a_transaction_holding_the_xmin_horizon_by_its_pid() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let application = format!("{}_held", schema.name);
    let (held, pid) = hold_transaction(&pg_url(), &application).await;
    wait_older_than(&mut conn, pid, 1.0).await;
    // past --max-xmin-age (and well under 12 times it): warn, named, the outbox beside
    let r = ob(["doctor", "--format", "json", "--max-xmin-age", "1s"])
        .pg(&t)
        .run();
    only_others_fail(&r, pid);
    let c = naming(&checks(&r), pid).unwrap_or_else(|| panic!("pid {pid} not named: {r:?}"));
    assert_eq!(c["level"], "warn", "{c}");
    let detail = c["detail"].as_str().unwrap();
    assert!(
        detail.starts_with(&format!(
            "pid {pid} (application {application}, client 127.0.0.1:"
        )) && detail.contains("role postgres): idle in transaction for ")
            && detail.contains("(over 1s)")
            && detail.contains(&format!("{t} has 0 dead rows, last autovacuum ")),
        "{detail}"
    );
    assert_eq!(c["holder"]["kind"], "backend");
    assert_eq!(c["holder"]["name"], application.as_str());
    assert_eq!(c["holder"]["state"], "idle in transaction");
    assert!(c["holder"]["age_seconds"].as_f64().unwrap() > 1.0, "{c}");
    // past 12 × --max-xmin-age: fail, exit 1, one line naming it
    wait_older_than(&mut conn, pid, 1.3).await;
    let r = ob(["doctor", "--max-xmin-age", "100ms"])
        .pg(&t)
        .code(CHECK_FAILED);
    let line = r
        .stdout
        .lines()
        .find(|l| l.contains(&format!("pid {pid} (")))
        .unwrap_or_else(|| panic!("pid {pid} not named: {r:?}"));
    assert!(
        line.starts_with("FAIL  xmin horizon") && line.contains("(over 12 × 100ms)"),
        "{line}"
    );
    assert!(r.stderr.contains("xmin horizon"), "{r:?}");
    // ended: no longer named
    held.close().await.unwrap();
    let r = ob(["doctor", "--format", "json", "--max-xmin-age", "1s"])
        .pg(&t)
        .run();
    only_others_fail(&r, pid);
    assert!(naming(&checks(&r), pid).is_none(), "{r:?}");
}

#[tokio::test]
async fn doctor_names_a_held_transaction_through_transaction_pooling() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let bouncer = crate::pgbouncer::PgBouncer::start(test, "transaction").await;
    let (_held, pid) = hold_transaction(&pg_url(), &format!("{}_held", schema.name)).await;
    wait_older_than(&mut conn, pid, 1.0).await;
    let r = ob(["doctor", "--format", "json", "--max-xmin-age", "1s"])
        .args(["--database-url", &bouncer.url, "--relation", &t])
        .run();
    only_others_fail(&r, pid);
    let all = checks(&r);
    assert!(
        all.iter()
            .any(|c| c["check"] == "pooler" && c["detail"].as_str().unwrap().contains("behind")),
        "{r:?}"
    );
    let c = naming(&all, pid).unwrap_or_else(|| panic!("pid {pid} not named: {r:?}"));
    assert_eq!(c["level"], "warn", "{c}");
}

#[tokio::test]
async fn doctor_without_pg_monitor_says_what_it_cannot_see() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    // a role of the test's own that may read the outbox, but not other roles' backends
    let role = format!("{}_monitor", schema.name);
    sqlx::raw_sql(&format!(
        "DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN;
         GRANT USAGE ON SCHEMA {s} TO {role};
         GRANT SELECT, UPDATE ON ALL TABLES IN SCHEMA {s} TO {role}",
        s = schema.name
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let server = PgConnectOptions::from_str(&pg_url()).unwrap();
    let url = format!(
        "postgres://{role}@{}:{}/{}",
        server.get_host(),
        server.get_port(),
        server.get_database().unwrap_or("test")
    );
    // postgres holds a transaction: the role cannot see it
    let (_held, pid) = hold_transaction(&pg_url(), &format!("{}_held", schema.name)).await;
    wait_older_than(&mut conn, pid, 1.0).await;
    let doctor = || {
        ob(["doctor", "--format", "json", "--max-xmin-age", "1s"])
            .args(["--database-url", &url, "--relation", &t])
            .run()
    };
    let r = doctor();
    let all = checks(&r);
    let seen = all
        .iter()
        .find(|c| c["check"] == "xmin visibility")
        .unwrap_or_else(|| panic!("no visibility warning: {r:?}"));
    assert_eq!(seen["level"], "warn", "{seen}");
    let detail = seen["detail"].as_str().unwrap();
    assert!(
        detail.starts_with(&format!(
            "role {role} is neither superuser nor a member of pg_monitor"
        )) && detail.contains("backend(s) of other roles in this database hide")
            && detail.ends_with(&format!("GRANT pg_monitor TO {role}")),
        "{detail}"
    );
    assert!(naming(&all, pid).is_none(), "{r:?}");
    // granted: no warning, and the transaction is named
    sqlx::raw_sql(&format!("GRANT pg_monitor TO {role}"))
        .execute(&mut conn)
        .await
        .unwrap();
    let r = doctor();
    let all = checks(&r);
    assert!(all.iter().all(|c| c["check"] != "xmin visibility"), "{r:?}");
    assert_eq!(
        naming(&all, pid).map(|c| c["level"].clone()),
        Some("warn".into()),
        "{r:?}"
    );
    crate::common::drop_role(&mut conn, &role).await;
}

/// A PostgreSQL of the test's own that allows prepared transactions and logical slots.
async fn postgres_with_prepared_and_logical(test: &str) -> (OwnServer, String) {
    let port = free_port();
    let script = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/postgres"));
    let mut pg = OwnServer::new(test, &script, port, move |dir| {
        let mut c = Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/postgres"));
        c.arg(dir.join("data")).arg(port.to_string()).env(
            "PG_SETTINGS",
            "max_prepared_transactions=4 wal_level=logical",
        );
        c
    });
    pg.start().await;
    let url = format!("postgres://postgres@127.0.0.1:{port}/postgres");
    postgres_ready(&url).await;
    (pg, url)
}

/// The xmin horizon checks of a run, by holder name: (level, detail).
fn holders(r: &Run) -> Vec<(String, String, String)> {
    checks(r)
        .iter()
        .filter(|c| c["check"] == "xmin horizon" && c["holder"].is_object())
        .map(|c| {
            (
                c["holder"]["name"].as_str().unwrap().to_owned(),
                c["level"].as_str().unwrap().to_owned(),
                c["detail"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn doctor_names_a_prepared_transaction_and_a_forgotten_slot() {
    let (_server, url) = postgres_with_prepared_and_logical(test_name!()).await;
    let on = ["--database-url", &url, "--relation", "app.outbox"];
    ob(["migrate", "-q"]).args(on).code(OK);
    let mut conn = PgConnection::connect(&url).await.unwrap();
    // a slot nobody reads (made first: a logical slot waits for running transactions)
    sqlx::raw_sql(
        "SELECT pg_create_logical_replication_slot('forgotten', 'pgoutput');
         BEGIN; SELECT txid_current(); PREPARE TRANSACTION 'outboxctl-doctor-test'",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    eventually(
        Duration::from_secs(30),
        "the prepared transaction to age",
        async || {
            let age: f64 = sqlx::query_scalar(
                "SELECT extract(epoch FROM clock_timestamp() - prepared)::float8 FROM pg_prepared_xacts",
            )
            .fetch_one(&mut conn)
            .await
            .map_err(|e| e.to_string())?;
            if age > 1.0 {
                Ok(())
            } else {
                Err(format!("{age}s old"))
            }
        },
    )
    .await;
    let doctor = |xids: &str| {
        ob(["doctor", "--format", "json", "--max-xmin-age", "1s"])
            .args(["--max-xmin-xids", xids])
            .args(on)
            .run()
    };
    let r = doctor("1000");
    assert_eq!(r.code, OK, "{r:?}");
    let found = holders(&r);
    assert_eq!(found.len(), 2, "{r:?}");
    let (name, level, detail) = &found[0];
    assert_eq!(
        (name.as_str(), level.as_str()),
        ("outboxctl-doctor-test", "warn")
    );
    assert!(
        detail.starts_with(
            "prepared transaction 'outboxctl-doctor-test' (owner postgres): prepared "
        ) && detail.contains("ROLLBACK PREPARED 'outboxctl-doctor-test'")
            && detail.contains("app.outbox has 0 dead rows"),
        "{detail}"
    );
    let (name, level, detail) = &found[1];
    assert_eq!((name.as_str(), level.as_str()), ("forgotten", "warn"));
    assert!(
        detail.starts_with("replication slot forgotten (logical, inactive): holds catalog_xmin ")
            && detail.contains("inactive: nothing consumes it"),
        "{detail}"
    );
    // transaction ids go by: past 12 × --max-xmin-xids the slot fails
    for _ in 0..15 {
        sqlx::raw_sql("SELECT txid_current()")
            .execute(&mut conn)
            .await
            .unwrap();
    }
    let r = doctor("1");
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    let found = holders(&r);
    let slot = found.iter().find(|(n, ..)| n == "forgotten").unwrap();
    assert_eq!(slot.1, "fail", "{r:?}");
    assert!(slot.2.contains("(over 12 × 1 xids)"), "{r:?}");
    // one statement each: ROLLBACK PREPARED refuses to run in a transaction block
    for ended in [
        "ROLLBACK PREPARED 'outboxctl-doctor-test'",
        "SELECT pg_drop_replication_slot('forgotten')",
    ] {
        sqlx::raw_sql(ended).execute(&mut conn).await.unwrap();
    }
    let r = doctor("1000");
    assert_eq!(r.code, OK, "{r:?}");
    assert!(holders(&r).is_empty(), "{r:?}");
}
