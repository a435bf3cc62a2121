//! Failure paths: a shutdown drain that meets a statement blocked on a lock ends on time and
//! cancels it on the server.

use std::time::Duration;

use crate::common::spawn_loop_relay;
use crate::common::wait_rows;
use crate::common::{PgSchema, config_file, eventually, migrate, out_file, stage};

/// The backend waiting on a lock with a statement like `pattern`, if any.
async fn waiting(conn: &mut sqlx::PgConnection, pattern: &str) -> Option<i32> {
    sqlx::query_scalar(
        "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1 AND pid <> pg_backend_pid()",
    )
    .bind(pattern)
    .fetch_optional(conn)
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shutdown_drain_ends_on_time_and_cancels_a_statement_blocked_on_a_lock() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 10, Some(2)).await;
    let path = out_file(test);
    let cfg = config_file(
        test,
        &format!(
            "relay:\n  interval: 100ms\n  pass_statement_timeout: 30s\n  drain_on_shutdown: false\n  shutdown_drain_timeout: 1s\n  routes:\n    orders:\n      to: \"file:{}\"\n",
            path.display()
        ),
    );
    let log = path.with_extension("log");
    let mut relay = spawn_loop_relay(&t, &cfg, &log);
    let published = format!("SELECT count(*) FROM {t} WHERE status = 'published'");
    wait_rows(&mut conn, &published, 10).await;
    // another session locks the table: the relay's next tick (its reclaim and claim, bounded
    // by pass_statement_timeout: 30s here) waits for it
    let mut locker = crate::common::pg().await;
    sqlx::raw_sql(&format!("BEGIN; LOCK TABLE {t} IN ACCESS EXCLUSIVE MODE"))
        .execute(&mut locker)
        .await
        .unwrap();
    let pattern = format!("%{}%", schema.name);
    eventually(
        Duration::from_secs(30),
        "the relay blocked on the lock",
        async || {
            waiting(&mut conn, &pattern)
                .await
                .ok_or("not yet".to_owned())
        },
    )
    .await;
    let status = relay.terminate_within(Duration::from_secs(6)).await;
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        status.is_some_and(|s| s.success()),
        "the relay stops within the drain's time, cutting the blocked pass: {status:?}\n{text}"
    );
    assert!(text.contains("the shutdown drain's time is over"), "{text}");
    // the blocked statement was cancelled on the server, not left waiting for the lock
    eventually(
        Duration::from_secs(10),
        "the blocked statement cancelled",
        async || match waiting(&mut conn, &pattern).await {
            None => Ok(()),
            Some(pid) => Err(format!("backend {pid} still waits")),
        },
    )
    .await;
    sqlx::raw_sql("COMMIT").execute(&mut locker).await.unwrap();
    let processing = crate::common::count(
        &mut conn,
        &format!("SELECT count(*) FROM {t} WHERE status = 'processing'"),
    )
    .await;
    assert_eq!(processing, 0, "the cut claim committed nothing");
}

/// A session that holds the outbox locked (an `ALTER TABLE` left open, a session idle in its
/// transaction) stops `migrate`, `--check` and `--dry-run` at their bound, exit 4: reading the
/// catalog (`pg_get_indexdef` takes the table's ACCESS SHARE lock) waited for as long as the
/// holder liked, past `--lock-timeout` and `--retries`.
#[tokio::test]
async fn migrate_gives_up_on_a_locked_table_at_its_bound_while_reading_the_catalog() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let lock = format!("BEGIN; LOCK TABLE {t} IN ACCESS EXCLUSIVE MODE");
    sqlx::raw_sql(&lock).execute(&mut conn).await.unwrap();
    for extra in [&[][..], &["--check"], &["--dry-run"]] {
        let bound = ["--lock-timeout", "100ms", "--retries", "1"];
        let r = crate::common::ob(["migrate"])
            .pg(&t)
            .args(bound)
            .args(extra)
            .run();
        assert_eq!(r.code, crate::common::LOCK_BUSY, "{extra:?}: {r:?}");
        // every table read is named (the registry is on by default)
        let said = format!(
            "gave up on reading the catalog of {t}, {t}_relays: a lock stayed busy through 2 attempts"
        );
        assert!(r.stderr.contains(&said), "{said}: {r:?}");
    }
    // doctor says who holds it, at once (it waited for as long as the holder liked)
    let started = std::time::Instant::now();
    let r = crate::common::ob(["doctor"]).pg(&t).run();
    assert_eq!(r.code, crate::common::CHECK_FAILED, "{r:?}");
    let said = format!("{t} is locked against reads by pid ");
    assert!(
        r.stdout.contains(&said) && r.stdout.contains("idle in transaction"),
        "{r:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(20), "{r:?}");
    sqlx::raw_sql("ROLLBACK").execute(&mut conn).await.unwrap();
    let r = crate::common::ob(["migrate", "--check"]).pg(&t).run();
    assert_eq!(r.code, crate::common::OK, "{r:?}");
}

/// An operator's command on a table another session holds locked stops with exit 4 and says
/// who holds it: `inspect`, `requeue` and `storage status` waited behind an `ALTER TABLE` left
/// open for as long as it lasted. A change queued for the lock (behind a long read) is named
/// as queued: every later read waits behind it too.
#[tokio::test]
async fn operator_commands_name_who_holds_the_table_locked() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let lock = format!("BEGIN; LOCK TABLE {t} IN ACCESS EXCLUSIVE MODE");
    sqlx::raw_sql(&lock).execute(&mut conn).await.unwrap();
    let commands: [&[&str]; 4] = [
        &["inspect"],
        &["inspect", "failed"],
        &["requeue", "--all", "--yes"],
        &["storage", "status"],
    ];
    for args in commands {
        let r = crate::common::ob(args).pg(&t).run();
        assert_eq!(r.code, crate::common::LOCK_BUSY, "{args:?}: {r:?}");
        let said = format!("{t} is locked against reads by pid ");
        assert!(
            r.stderr.contains(&said) && r.stderr.contains("(holds it, idle in transaction"),
            "{args:?}: {r:?}"
        );
    }
    sqlx::raw_sql("ROLLBACK").execute(&mut conn).await.unwrap();
    // a lock that lets reads through and blocks writes (a CREATE INDEX left open takes SHARE):
    // the commands that write say so, those that read go on (they all waited without a word)
    stage(&mut conn, &t, "orders", 2, None).await;
    let failed = format!("UPDATE {t} SET status = 'failed', last_error = 'x'");
    sqlx::raw_sql(&failed).execute(&mut conn).await.unwrap();
    let share = format!("BEGIN; LOCK TABLE {t} IN SHARE MODE");
    sqlx::raw_sql(&share).execute(&mut conn).await.unwrap();
    let writers: [&[&str]; 3] = [
        &["requeue", "--all", "--yes"],
        &["discard", "--all", "--yes"],
        &[
            "emit",
            "--route",
            "orders",
            "--type",
            "t",
            "--payload",
            "{}",
        ],
    ];
    for args in writers {
        let r = crate::common::ob(args).pg(&t).run();
        assert_eq!(r.code, crate::common::LOCK_BUSY, "{args:?}: {r:?}");
        let said = format!("{t} is locked against writes by pid ");
        assert!(r.stderr.contains(&said), "{args:?}: {r:?}");
    }
    crate::common::ob(["inspect"])
        .pg(&t)
        .code(crate::common::OK);
    let r = crate::common::ob(["doctor"]).pg(&t).run();
    assert_eq!(r.code, crate::common::CHECK_FAILED, "{r:?}");
    assert!(
        r.stdout.contains("is locked against writes by pid "),
        "{r:?}"
    );
    sqlx::raw_sql("ROLLBACK").execute(&mut conn).await.unwrap();
    // a row another transaction holds (SELECT … FOR UPDATE left open): requeue and discard
    // wait for it 2 s, then name who holds row locks on the table (they waited for ever)
    let held = format!("BEGIN; SELECT id FROM {t} FOR UPDATE");
    sqlx::raw_sql(&held).execute(&mut conn).await.unwrap();
    for args in &writers[..2] {
        let r = crate::common::ob(*args).pg(&t).run();
        assert_eq!(r.code, crate::common::LOCK_BUSY, "{args:?}: {r:?}");
        let said = format!(
            "a row of {t} this changes is locked by another transaction; holding row locks on it: pid "
        );
        assert!(r.stderr.contains(&said), "{args:?}: {r:?}");
    }
    sqlx::raw_sql("ROLLBACK").execute(&mut conn).await.unwrap();
    let still: i64 =
        sqlx::query_scalar(&format!("SELECT count(*) FROM {t} WHERE status = 'failed'"))
            .fetch_one(&mut conn)
            .await
            .unwrap();
    assert_eq!(still, 2, "nothing changed");
    // a long read holds ACCESS SHARE; an ALTER TABLE queues for ACCESS EXCLUSIVE behind it
    sqlx::raw_sql(&format!("BEGIN; SELECT count(*) FROM {t}"))
        .execute(&mut conn)
        .await
        .unwrap();
    let mut other = crate::common::pg().await;
    let alter = format!("ALTER TABLE {t} ADD COLUMN queued_change int");
    let queued = tokio::spawn(async move {
        sqlx::Executor::execute(&mut other, alter.as_str())
            .await
            .map(|_| ())
    });
    // watched from a third session: a transaction sees pg_stat_activity as it first read it
    let mut watch = crate::common::pg().await;
    eventually(
        Duration::from_secs(10),
        "the ALTER TABLE waits for its lock",
        async || {
            waiting(&mut watch, "ALTER TABLE%queued_change%")
                .await
                .ok_or("not yet".to_owned())
        },
    )
    .await;
    let r = crate::common::ob(["inspect"]).pg(&t).run();
    assert_eq!(r.code, crate::common::LOCK_BUSY, "{r:?}");
    assert!(r.stderr.contains("(queued for it, active"), "{r:?}");
    sqlx::raw_sql("COMMIT").execute(&mut conn).await.unwrap();
    queued.await.unwrap().unwrap();
    crate::common::ob(["inspect"])
        .pg(&t)
        .code(crate::common::OK);
}

/// A relay under retain whose table another session holds locked (`LOCK TABLE … IN EXCLUSIVE
/// MODE` left open: reads go on, writes wait) fails its passes after `pass_statement_timeout`
/// and says so: `--once` exits 1 naming the timeout, `--loop` warns a failed pass and names the
/// session holding the table. Both waited
/// silently for as long as the lock was held, the looping relay's `/healthz` still 200.
#[tokio::test]
async fn a_retain_relay_behind_a_table_lock_fails_its_pass_and_says_so() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 3, None).await;
    let path = out_file(test);
    let cfg = config_file(
        test,
        &format!(
            "relay:\n  interval: 100ms\n  pass_statement_timeout: 300ms\n  routes:\n    orders:\n      to: \"file:{}\"\n",
            path.display()
        ),
    );
    let mut locker = crate::common::pg().await;
    sqlx::raw_sql(&format!("BEGIN; LOCK TABLE {t} IN EXCLUSIVE MODE"))
        .execute(&mut locker)
        .await
        .unwrap();
    let locker_pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(&mut locker)
        .await
        .unwrap();
    let r = crate::common::ob(["relay", "--once"])
        .pg(&t)
        .config(&cfg)
        .run();
    assert_eq!(r.code, crate::common::CHECK_FAILED, "{r:?}");
    // statement_timeout and lock_timeout are one limit: whichever the server names
    let said = |text: &str| text.contains("canceling statement due to") && text.contains("timeout");
    assert!(said(&r.stderr), "{r:?}");
    let log = path.with_extension("log");
    let relay = spawn_loop_relay(&t, &cfg, &log);
    crate::common::wait_log(&log, "pass failed, backing off", 1).await;
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(said(&text), "{text}");
    // the holder itself, read right after the pass was cut (it pointed at doctor)
    assert!(
        text.contains(&format!(
            "the table is locked by pid {locker_pid} (ExclusiveLock on {t}, idle in transaction, its transaction"
        )),
        "{text}"
    );
    sqlx::raw_sql("COMMIT").execute(&mut locker).await.unwrap();
    let published = format!("SELECT count(*) FROM {t} WHERE status = 'published'");
    wait_rows(&mut conn, &published, 3).await;
    assert!(relay.terminate().success());
}
