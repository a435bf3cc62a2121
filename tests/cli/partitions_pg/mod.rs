//! `partitions list | add-ahead | drop-expired | check` on a real PostgreSQL (`check --fix` in
//! `fix.rs`).

mod event_index;
mod fix;
mod tenants;

use chrono::{Days, NaiveDate, Utc};
use sqlx::Row;
use sqlx::postgres::PgConnection;

use crate::common::{
    CHECK_FAILED, ERROR, LOCK_BUSY, OK, Ob, PgSchema, REFUSED, RELAY_TO_NOWHERE, count, migrate,
    ob, pg_url, stage,
};

/// `relay --once` of route `orders` in consume storage with the delivery log, to nowhere.
fn relay_consume(schema: &PgSchema, log: &str) -> Ob {
    ob(RELAY_TO_NOWHERE).pg(&schema.rel("outbox")).args([
        "--storage",
        "consume",
        "--delivery-log",
        log,
    ])
}

fn today() -> NaiveDate {
    Utc::now().date_naive()
}

async fn log_with(test: &str) -> (PgSchema, PgConnection, String) {
    let (schema, conn) = PgSchema::new(test).await;
    let log = schema.rel("outbox_delivered");
    migrate(&schema, &["--storage", "consume", "--delivery-log", &log]).await;
    (schema, conn, log)
}

fn parts(schema: &PgSchema, log: &str, args: &[&str]) -> crate::common::Run {
    ob(["partitions"])
        .args(args)
        .pg(&schema.rel("outbox"))
        .args(["--storage", "consume", "--delivery-log", log])
        .run()
}

/// (name, lower bound, upper bound) of every range partition, read from the catalog in UTC.
async fn bounds(conn: &mut PgConnection, log: &str) -> Vec<(String, String)> {
    sqlx::raw_sql("SET TIME ZONE 'UTC'")
        .execute(&mut *conn)
        .await
        .unwrap();
    let rows = sqlx::query(
        "SELECT c.relname::text, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent = $1::regclass ORDER BY 1",
    )
    .bind(log)
    .fetch_all(conn)
    .await
    .unwrap();
    rows.iter().map(|r| (r.get(0), r.get(1))).collect()
}

/// `drop-expired` keeping 30 days, confirmed, its report in JSON.
const DROP_JSON: [&str; 6] = [
    "drop-expired",
    "--keep-days",
    "30",
    "--yes",
    "--format",
    "json",
];

/// Attaches `table` (made `LIKE` the log) to the log as the partition of `day`.
async fn attach_day(conn: &mut PgConnection, log: &str, table: &str, day: NaiveDate) {
    sqlx::raw_sql(&format!(
        "CREATE TABLE {table} (LIKE {log}); ALTER TABLE {log} ATTACH PARTITION {table}
           FOR VALUES FROM ('{} 00:00+00') TO ('{} 00:00+00')",
        day.format("%Y-%m-%d"),
        (day + Days::new(1)).format("%Y-%m-%d")
    ))
    .execute(conn)
    .await
    .unwrap();
}

fn expected_bound(day: NaiveDate) -> String {
    format!(
        "FOR VALUES FROM ('{} 00:00:00+00') TO ('{} 00:00:00+00')",
        day.format("%Y-%m-%d"),
        (day + Days::new(1)).format("%Y-%m-%d")
    )
}

#[tokio::test]
async fn migrate_attaches_days_ahead_and_add_ahead_is_idempotent_in_any_time_zone() {
    let (schema, mut conn, log) = log_with("partitions_add_ahead").await;
    let got = bounds(&mut conn, &log).await;
    let mut want: Vec<(String, String)> = (0..=7)
        .map(|o| {
            let d = today() + Days::new(o);
            (
                format!("outbox_delivered_{}", d.format("%Y%m%d")),
                expected_bound(d),
            )
        })
        .collect();
    want.push(("outbox_delivered_default".into(), "DEFAULT".into()));
    want.sort();
    assert_eq!(got, want, "migrate attached today and 7 days ahead");

    // A session in another time zone: bounds are still UTC days.
    let ny = format!("{}?options=-c%20TimeZone%3DAmerica/New_York", pg_url());
    let rel = schema.rel("outbox");
    let r = ob([
        "partitions",
        "add-ahead",
        "--days",
        "10",
        "--database-url",
        &ny,
        "--relation",
        &rel,
        "--storage",
        "consume",
        "--delivery-log",
        &log,
    ])
    .run();
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(
        r.stdout.lines().filter(|l| l.starts_with("added:")).count(),
        3,
        "{r:?}"
    );
    let got = bounds(&mut conn, &log).await;
    for o in 0..=10 {
        let d = today() + Days::new(o);
        assert!(
            got.contains(&(
                format!("outbox_delivered_{}", d.format("%Y%m%d")),
                expected_bound(d)
            )),
            "{d}: {got:?}"
        );
    }
    let r = parts(&schema, &log, &["add-ahead", "--days", "10"]);
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        r.stdout.is_empty() && r.stderr.contains("nothing to do"),
        "{r:?}"
    );
    let r = parts(&schema, &log, &["add-ahead", "--days", "10", "-q"]);
    assert!(
        r.stdout.is_empty() && r.stderr.is_empty(),
        "-q is silent: {r:?}"
    );

    let r = parts(&schema, &log, &["list", "--format", "json"]);
    assert_eq!(r.code, OK, "{r:?}");
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["partitions"].as_array().unwrap().len(), 12);
    assert_eq!(v["days_attached_from_today"], 11);
    assert_eq!(v["default_has_rows"], false);
    // never analysed: the planner knows no count (it read as 0 rows, however many it held)
    assert!(v["partitions"][1]["estimated_rows"].is_null(), "{v}");
    // cron's -q: silent when it adds days too
    let r = parts(&schema, &log, &["add-ahead", "--days", "12", "-q"]);
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        r.stdout.is_empty() && r.stderr.is_empty(),
        "-q is silent: {r:?}"
    );
    assert_eq!(bounds(&mut conn, &log).await.len(), 14, "two days added");
}

#[tokio::test]
async fn drop_expired_drops_exactly_the_expired_days_and_keeps_the_default() {
    let (schema, mut conn, log) = log_with("partitions_drop_expired").await;
    let s = &schema.name;
    let old = |ago: u64| today() - Days::new(ago);
    for ago in [40u64, 32, 31, 30, 29] {
        attach_day(&mut conn, &log, &format!("{s}.keep_{ago}"), old(ago)).await;
    }
    // names say nothing: bounds decide (keep_31 ends at today-30: expired with --keep-days 30)
    let r = parts(
        &schema,
        &log,
        &["drop-expired", "--keep-days", "30", "--dry-run"],
    );
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(r.stdout.lines().count(), 3, "{r:?}");
    let r = parts(&schema, &log, &["drop-expired", "--keep-days", "30"]);
    assert_eq!(r.code, REFUSED, "no terminal, no --yes: refused: {r:?}");
    assert!(r.stderr.contains("--yes"), "{r:?}");
    assert_eq!(
        bounds(&mut conn, &log).await.len(),
        5 + 9,
        "nothing dropped yet"
    );
    let r = parts(&schema, &log, &DROP_JSON);
    assert_eq!(r.code, OK, "{r:?}");
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        v["dropped"],
        serde_json::json!(["keep_40", "keep_32", "keep_31"])
    );
    let names: Vec<String> = bounds(&mut conn, &log)
        .await
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert!(names.contains(&"keep_30".to_owned()) && names.contains(&"keep_29".to_owned()));
    assert!(names.contains(&"outbox_delivered_default".to_owned()));
    assert!(
        !names
            .iter()
            .any(|n| n == "keep_31" || n == "keep_32" || n == "keep_40")
    );
    let r = parts(
        &schema,
        &log,
        &["drop-expired", "--keep-days", "30", "--yes"],
    );
    assert_eq!(r.code, OK, "{r:?}");
    assert!(r.stderr.contains("nothing to drop"), "{r:?}");
}

#[tokio::test]
async fn drop_expired_gives_up_instead_of_blocking_the_relay() {
    let (schema, mut conn, log) = log_with("partitions_drop_gives_up").await;
    let s = &schema.name;
    let ancient = format!("{s}.ancient");
    attach_day(&mut conn, &log, &ancient, today() - Days::new(60)).await;
    stage(&mut conn, &schema.rel("outbox"), "orders", 20, None).await;
    // A long reader holds ACCESS SHARE on the log: DROP must wait for it.
    let mut reader = crate::common::pg().await;
    sqlx::raw_sql(&format!("BEGIN; SELECT count(*) FROM {log}"))
        .execute(&mut reader)
        .await
        .unwrap();
    let drop = ob([
        "partitions",
        "drop-expired",
        "--keep-days",
        "30",
        "--yes",
        "--lock-timeout",
        "200ms",
        "--retries",
        "8",
    ])
    .pg(&schema.rel("outbox"))
    .args(["--storage", "consume", "--delivery-log", &log])
    .run_async();
    let mut watcher = crate::common::pg().await;
    let relay = async {
        // relay once the drop is queued behind the reader's lock (it then times out and retries)
        crate::common::wait_for_session(
            &mut watcher,
            "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'DROP TABLE %ancient%')",
            None,
            std::time::Duration::from_secs(10),
        )
        .await;
        let started = std::time::Instant::now();
        let r = relay_consume(&schema, &log).run_async().await;
        (r, started.elapsed())
    };
    let (d, (r, took)) = tokio::join!(drop, relay);
    assert_eq!(
        r.code, OK,
        "the relay's pass was not held up past its statement timeout: {r:?}"
    );
    assert!(
        took < std::time::Duration::from_secs(3),
        "relay took {took:?}"
    );
    assert_eq!(d.code, LOCK_BUSY, "{d:?}");
    assert!(d.stdout.contains("gave up: ancient"), "{d:?}");
    assert!(
        d.stderr
            .contains("error: partitions drop-expired: gave up on 1 partition(s)"),
        "one line sums it up: {d:?}"
    );
    sqlx::raw_sql("ROLLBACK")
        .execute(&mut reader)
        .await
        .unwrap();
    let delivered = count(&mut conn, &format!("SELECT count(*) FROM {log}")).await;
    assert_eq!(delivered, 20);
}

/// A partition whose drop fails (a view depends on it) is reported and the others are still
/// dropped: retention is not held up by one table, and the report names what was dropped.
#[tokio::test]
async fn drop_expired_goes_on_past_a_partition_it_cannot_drop() {
    let (schema, mut conn, log) = log_with("partitions_drop_past_failure").await;
    let s = &schema.name;
    for ago in [42u64, 41, 40] {
        let day = today() - Days::new(ago);
        attach_day(&mut conn, &log, &format!("{s}.old_{ago}"), day).await;
    }
    sqlx::raw_sql(&format!(
        "CREATE VIEW {s}.audit AS SELECT * FROM {s}.old_41"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = parts(&schema, &log, &DROP_JSON);
    assert_eq!(r.code, ERROR, "{r:?}");
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("a report");
    assert_eq!(
        v["dropped"],
        serde_json::json!(["old_42", "old_40"]),
        "{r:?}"
    );
    assert_eq!(v["failed"][0]["partition"], "old_41", "{r:?}");
    assert!(
        v["failed"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("depend on it"),
        "{r:?}"
    );
    let left: Vec<String> = bounds(&mut conn, &log)
        .await
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert!(
        left.contains(&"old_41".to_owned()) && !left.contains(&"old_40".to_owned()),
        "{left:?}"
    );
    // cron's -q: what failed is still said, what was dropped is not
    let quiet = ["drop-expired", "--keep-days", "30", "--yes", "-q"];
    let r = parts(&schema, &log, &quiet);
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stdout.starts_with("failed: old_41"), "{r:?}");
    sqlx::raw_sql(&format!("DROP VIEW {s}.audit"))
        .execute(&mut conn)
        .await
        .unwrap();
    let r = parts(&schema, &log, &quiet);
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        r.stdout.is_empty() && r.stderr.is_empty(),
        "-q is silent: {r:?}"
    );
}

#[tokio::test]
async fn a_consume_pass_logs_while_another_day_is_being_attached() {
    let (schema, mut conn, log) = log_with("partitions_attach_concurrent").await;
    let s = &schema.name;
    stage(&mut conn, &schema.rel("outbox"), "orders", 10, None).await;
    let d = today() + Days::new(30);
    let mut attacher = crate::common::pg().await;
    sqlx::raw_sql(&format!(
        "BEGIN; CREATE TABLE {s}.future (LIKE {log}); ALTER TABLE {log} ATTACH PARTITION {s}.future
           FOR VALUES FROM ('{} 00:00+00') TO ('{} 00:00+00')",
        d.format("%Y-%m-%d"),
        (d + Days::new(1)).format("%Y-%m-%d")
    ))
    .execute(&mut attacher)
    .await
    .unwrap();
    let started = std::time::Instant::now();
    let r = relay_consume(&schema, &log).run();
    assert_eq!(r.code, OK, "{r:?}");
    assert!(started.elapsed() < std::time::Duration::from_secs(3));
    sqlx::raw_sql("ROLLBACK")
        .execute(&mut attacher)
        .await
        .unwrap();
    let logged = count(&mut conn, &format!("SELECT count(*) FROM {log}")).await;
    assert_eq!(logged, 10);
}

#[tokio::test]
async fn add_ahead_does_not_attach_a_day_whose_rows_sit_in_the_default() {
    let (schema, mut conn, log) = log_with("partitions_add_ahead_default_rows").await;
    let d = today() + Days::new(9);
    crate::common::log_delivery(&mut conn, &log, None, at(d, 1)).await;
    let r = parts(&schema, &log, &["add-ahead", "--days", "10"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(
        r.stdout.contains(&format!("skipped: {d}")) && r.stdout.contains("check --fix"),
        "{r:?}"
    );
    assert!(
        r.stderr
            .contains("error: partitions add-ahead: 1 day(s) of"),
        "one line sums it up: {r:?}"
    );
    assert!(
        r.stdout.contains("added:"),
        "the other days are added: {r:?}"
    );
}

#[tokio::test]
async fn partition_commands_refuse_a_missing_or_plain_log_and_mongo() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let plain = schema.rel("plain_log");
    sqlx::raw_sql(&format!(
        "CREATE TABLE {plain} (id uuid, published_at timestamptz)"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    for cmd in [
        &["list"][..],
        &["add-ahead"],
        &["drop-expired", "--yes"],
        &["check"],
    ] {
        let r = parts(&schema, &plain, cmd);
        assert_eq!(r.code, ERROR, "{cmd:?}: {r:?}");
        assert!(
            r.stderr.contains("not partitioned by RANGE (published_at)"),
            "{r:?}"
        );
        let r = parts(&schema, &schema.rel("nope"), cmd);
        assert_eq!(r.code, ERROR, "{cmd:?}: {r:?}");
        assert!(r.stderr.contains("does not exist"), "{r:?}");
    }
    let r = ob([
        "partitions",
        "list",
        "--database-url",
        "mongodb://127.0.0.1:1/",
    ])
    .run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("PostgreSQL-only"), "{r:?}");
    let r = ob(["partitions", "list", "--database-url", &pg_url()]).run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("no delivery log configured"), "{r:?}");
}

fn at(day: NaiveDate, hour: u32) -> chrono::DateTime<Utc> {
    chrono::DateTime::<Utc>::from_naive_utc_and_offset(day.and_hms_opt(hour, 0, 0).unwrap(), Utc)
}

/// A row can land in the default partition after add-ahead looked: `ATTACH` itself finds it,
/// inside the transaction, and the day is skipped (nothing created) rather than failing.
#[tokio::test]
async fn adding_a_day_whose_rows_are_in_the_default_is_refused_inside_the_transaction() {
    use outboxctl::store::postgres::partitions::{self as lp, Added};
    let (_schema, mut conn, log) = log_with("partitions_attach_race").await;
    let d = today() + Days::new(12);
    crate::common::log_delivery(&mut conn, &log, None, at(d, 1)).await;
    let name = outboxctl::target::QualifiedName::parse("log", &log).unwrap();
    let policy = outboxctl::schema::postgres::LockPolicy {
        lock_timeout: std::time::Duration::from_millis(200),
        retries: 2,
    };
    let added = lp::add_day(&mut conn, &name, d, policy, true)
        .await
        .unwrap();
    assert_eq!(added, Added::DefaultHasRows);
    let made: bool = sqlx::query_scalar("SELECT to_regclass($1) IS NOT NULL")
        .bind(format!("{log}_{}", d.format("%Y%m%d")))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert!(!made, "the transaction rolled back: no table left behind");
}

/// A partition can live in another schema than its log: drop-expired drops that table, by its
/// own schema, never a table of the same name in the log's schema.
#[tokio::test]
async fn drop_expired_drops_a_partition_in_its_own_schema() {
    let (schema, mut conn, log) = log_with("partitions_drop_other_schema").await;
    let (s, archive) = (&schema.name, format!("{}_archive", schema.name));
    let d = today() - Days::new(60);
    sqlx::raw_sql(&format!(
        "DROP SCHEMA IF EXISTS {archive} CASCADE; CREATE SCHEMA {archive};
         CREATE TABLE {archive}.old_day (LIKE {log});
         ALTER TABLE {log} ATTACH PARTITION {archive}.old_day FOR VALUES FROM ('{} 00:00+00') TO ('{} 00:00+00');
         CREATE TABLE {s}.old_day (note text)",
        d.format("%Y-%m-%d"),
        (d + Days::new(1)).format("%Y-%m-%d")
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = parts(
        &schema,
        &log,
        &["drop-expired", "--keep-days", "30", "--dry-run"],
    );
    assert!(
        r.stdout.contains(&format!("DROP TABLE {archive}.old_day;")),
        "{r:?}"
    );
    let r = parts(
        &schema,
        &log,
        &["drop-expired", "--keep-days", "30", "--yes"],
    );
    assert_eq!(r.code, OK, "{r:?}");
    let exists = async |conn: &mut PgConnection, t: &str| -> bool {
        sqlx::query_scalar("SELECT to_regclass($1) IS NOT NULL")
            .bind(t)
            .fetch_one(conn)
            .await
            .unwrap()
    };
    assert!(
        !exists(&mut conn, &format!("{archive}.old_day")).await,
        "{r:?}"
    );
    assert!(
        exists(&mut conn, &format!("{s}.old_day")).await,
        "the log schema's namesake stays: {r:?}"
    );
    sqlx::raw_sql(&format!("DROP SCHEMA {archive} CASCADE"))
        .execute(&mut conn)
        .await
        .unwrap();
}

/// A session holding a day of the log locked (an `ALTER`, a `LOCK TABLE` left open) holds no
/// partitions command past `partitions.lock_timeout` and its retries: each gives up, exit 4,
/// naming what it was reading. `pg_get_expr` and `pg_total_relation_size` wait for the day's
/// ACCESS SHARE lock, and every command (hourly cron jobs among them) waited as long as the
/// lock lasted. `doctor` says so and goes on.
#[tokio::test]
async fn no_partitions_command_waits_on_a_locked_day_past_its_lock_timeout() {
    let (schema, _conn, log) = log_with(test_name!()).await;
    let day = format!("{log}_{}", today().format("%Y%m%d"));
    let mut holder = crate::common::pg().await;
    let lock = format!("BEGIN; LOCK TABLE {day} IN ACCESS EXCLUSIVE MODE");
    sqlx::raw_sql(&lock).execute(&mut holder).await.unwrap();
    let run = |args: &[&str]| {
        ob(["partitions"])
            .args(args)
            .pg(&schema.rel("outbox"))
            .args(["--storage", "consume", "--delivery-log", &log])
            .run_async()
    };
    let (list, check, add, drop) = tokio::join!(
        run(&["list"]),
        run(&["check"]),
        run(&["add-ahead", "--days", "1"]),
        run(&["drop-expired", "--keep-days", "30", "--yes"]),
    );
    let gave_up = format!("gave up on reading the partitions of {log}: a lock stayed busy");
    for r in [list, check, add, drop] {
        assert_eq!(r.code, LOCK_BUSY, "{r:?}");
        assert!(r.stderr.contains(&gave_up), "{r:?}");
    }
    let doctor = ob(["doctor"])
        .pg(&schema.rel("outbox"))
        .args(["--storage", "consume", "--delivery-log", &log])
        .run_async()
        .await;
    assert!(doctor.stdout.contains(&gave_up), "{doctor:?}");
    sqlx::raw_sql("ROLLBACK")
        .execute(&mut holder)
        .await
        .unwrap();
    assert_eq!(parts(&schema, &log, &["list"]).code, OK);
}

/// A day whose `ATTACH` waits past its lock timeout and retries (a session holds the log in a
/// mode reads pass and `ATTACH` waits on) is given up on and said, and the others are still
/// tried; the run ends with exit 4 and, in JSON, every day's outcome (it stopped at the first,
/// exit 4 with nothing printed, JSON neither, the days added before it unsaid).
#[tokio::test]
async fn add_ahead_says_each_day_it_gave_up_on_and_tries_the_rest() {
    let (schema, _conn, log) = log_with(test_name!()).await;
    let mut holder = crate::common::pg().await;
    let lock = format!("BEGIN; LOCK TABLE {log} IN SHARE UPDATE EXCLUSIVE MODE");
    sqlx::raw_sql(&lock).execute(&mut holder).await.unwrap();
    let add = [
        "add-ahead",
        "--days",
        "10",
        "--lock-timeout",
        "50ms",
        "--retries",
        "0",
    ];
    let r = parts(&schema, &log, &add);
    assert_eq!(r.code, LOCK_BUSY, "{r:?}");
    let gave_up = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("gave up: "))
        .count();
    assert_eq!(
        gave_up, 3,
        "the 3 days migrate did not attach, each tried: {r:?}"
    );
    assert!(r.stderr.contains("gave up on 3 day(s) of"), "{r:?}");
    assert!(!r.stderr.contains("nothing to do"), "{r:?}");
    let r = parts(&schema, &log, &[&["--format", "json"][..], &add].concat());
    assert_eq!(r.code, LOCK_BUSY, "{r:?}");
    let v: serde_json::Value =
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {r:?}"));
    let results: Vec<&str> = (v["days"].as_array().unwrap().iter())
        .filter_map(|d| d["result"].as_str())
        .filter(|r| *r != "present")
        .collect();
    assert_eq!(results, ["gave_up"; 3], "{v}");
    sqlx::raw_sql("ROLLBACK")
        .execute(&mut holder)
        .await
        .unwrap();
    assert_eq!(parts(&schema, &log, &add).code, OK);
}
