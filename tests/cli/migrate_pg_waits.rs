//! `migrate` among other sessions on a real PostgreSQL: two migrates serialise on the migration
//! lock, a busy table lock is retried then given up, a relay queued behind a change keeps
//! within its limits, and a concurrent build held up by an idle transaction names it.

use std::time::Duration;

use crate::common::{LOCK_BUSY, OK, PgSchema, ob};

use super::migrate_pg::{indexdefs, migrate};

#[tokio::test]
async fn two_concurrent_migrates_serialise() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let s = &schema.name;
    // An existing table with rows, so the second run's work includes concurrent index builds.
    assert_eq!(migrate(&schema, &[]).code, OK);
    sqlx::raw_sql(&format!(
        "INSERT INTO {s}.outbox (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at)
         SELECT gen_random_uuid(), 'r', gen_random_uuid(), 't', now(), '{{}}', 'pending', now() FROM generate_series(1, 50000)"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let one_migrate = || {
        ob(["migrate", "--hlc-ordering", "--propagate-trace"])
            .pg(&schema.rel("outbox"))
            .run_async()
    };
    let (a, b) = tokio::join!(one_migrate(), one_migrate());
    assert_eq!((a.code, b.code), (OK, OK), "{a:?}\n{b:?}");
    let applied = [&a, &b]
        .iter()
        .filter(|r| r.stdout.contains("applied:"))
        .count();
    assert_eq!(
        applied, 1,
        "exactly one run applies, the other finds it done:\n{a:?}\n{b:?}"
    );
    let defs = indexdefs(&mut conn, s, "outbox").await;
    assert!(
        defs.iter().any(|d| d.contains("outbox_claim_hlc_idx")),
        "{defs:?}"
    );
    let invalid: i64 = sqlx::query_scalar(&format!(
        "SELECT count(*) FROM pg_index WHERE indrelid = '{s}.outbox'::regclass AND NOT indisvalid"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(invalid, 0);
}

/// Takes the migration lock of `key` in a transaction opened on `conn`, as a migrate would.
async fn hold_migration_lock(conn: &mut sqlx::PgConnection, key: &str) {
    sqlx::raw_sql("BEGIN").execute(&mut *conn).await.unwrap();
    let got: bool = sqlx::query_scalar(
        "SELECT pg_try_advisory_xact_lock(hashtext('outboxctl.migrate'), hashtext(current_database() || ':' || $1))",
    )
    .bind(key)
    .fetch_one(conn)
    .await
    .unwrap();
    assert!(got);
}

#[tokio::test]
async fn a_held_migration_lock_makes_migrate_give_up_with_exit_4() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let key = schema.rel("outbox");
    hold_migration_lock(&mut conn, &key).await;
    let r = migrate(&schema, &["--lock-wait", "1s"]);
    assert_eq!(r.code, LOCK_BUSY, "{r:?}");
    assert!(r.stderr.contains("migration lock"), "{r:?}");
    sqlx::raw_sql("ROLLBACK").execute(&mut conn).await.unwrap();
    let exists: bool = sqlx::query_scalar("SELECT to_regclass($1) IS NOT NULL")
        .bind(&key)
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert!(!exists, "nothing was created while the lock was held");
    assert_eq!(migrate(&schema, &[]).code, OK);
}

/// Two outboxes that share a checkpoint: a migrate of one holds the checkpoint's key too, so a
/// migrate of the other waits for it (here: gives up, exit 4, naming the checkpoint) rather
/// than create the checkpoint beside it and fail on "already exists".
#[tokio::test]
async fn a_migrate_waits_for_another_outboxs_migrate_of_a_shared_checkpoint() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let checkpoint = schema.rel("hlc_checkpoint");
    hold_migration_lock(&mut conn, &checkpoint).await;
    let shared = [
        "--hlc-ordering",
        "--hlc-checkpoint",
        &checkpoint,
        "--lock-wait",
        "1s",
    ];
    let r = migrate(&schema, &shared);
    assert_eq!(r.code, LOCK_BUSY, "{r:?}");
    assert!(r.stderr.contains(&checkpoint), "{r:?}");
    sqlx::raw_sql("ROLLBACK").execute(&mut conn).await.unwrap();
    assert_eq!(migrate(&schema, &shared).code, OK);
}

/// A table per tenant: a migrate of the per-tenant relation holds each tenant's table's key, so
/// a migrate configured with one tenant's table by name waits for it (and the other way round).
/// It used to hold only the relation's template (`…outbox_{tenant}`).
#[tokio::test]
async fn a_migrate_of_a_per_tenant_relation_waits_for_a_migrate_of_one_tenants_table() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let tenant = "0190c4e2-8a6c-7e4a-9b1e-00000000000a";
    let table = format!("{}.outbox_{}", schema.name, tenant.replace('-', ""));
    hold_migration_lock(&mut conn, &table).await;
    let cfg = crate::common::config_file(
        test,
        &format!(
            "outbox:\n  relation: {}.outbox_{{tenant}}\n  tenant_aware: true\n  tenants: [{tenant}]\n  registry: off\n",
            schema.name
        ),
    );
    let url = crate::common::pg_url();
    let r = ob(["migrate", "--lock-wait", "1s", "--database-url", &url])
        .config(&cfg)
        .run();
    assert_eq!(r.code, LOCK_BUSY, "{r:?}");
    assert!(r.stderr.contains(&table), "{r:?}");
    sqlx::raw_sql("ROLLBACK").execute(&mut conn).await.unwrap();
}

#[tokio::test]
async fn a_busy_table_lock_is_retried_then_given_up_with_exit_4() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let s = &schema.name;
    assert_eq!(migrate(&schema, &[]).code, OK);
    sqlx::raw_sql(&format!(
        "BEGIN; LOCK TABLE {s}.outbox IN ACCESS SHARE MODE"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let started = std::time::Instant::now();
    let r = migrate(
        &schema,
        &[
            "--propagate-trace",
            "--lock-timeout",
            "100ms",
            "--retries",
            "2",
        ],
    );
    assert_eq!(r.code, LOCK_BUSY, "{r:?}");
    assert!(r.stderr.contains("3 attempts"), "{r:?}");
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    sqlx::raw_sql("ROLLBACK").execute(&mut conn).await.unwrap();
    assert_eq!(migrate(&schema, &["--propagate-trace"]).code, OK);
}

/// By default each change waits for its lock at most half the relays' statement timeout: a
/// relay's claim queued behind it (while a long pass holds the table) still gets its rows
/// within its own `pass_statement_timeout` (1s), where a 2s wait made it time out.
#[tokio::test]
async fn a_relay_queued_behind_a_change_waits_less_than_its_statement_timeout() {
    let (schema, mut pass) = PgSchema::new(test_name!()).await;
    let t = schema.rel("outbox");
    assert_eq!(migrate(&schema, &[]).code, OK);
    sqlx::raw_sql(&format!("BEGIN; LOCK TABLE {t} IN ACCESS SHARE MODE"))
        .execute(&mut pass)
        .await
        .unwrap();
    let change = ob(["migrate", "--propagate-trace", "--retries", "0"])
        .pg(&t)
        .run_async();
    let mut claim = crate::common::pg().await;
    let relay = async {
        crate::common::wait_for_session(
            &mut claim,
            "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'ALTER TABLE%traceparent%')",
            None,
            std::time::Duration::from_secs(10),
        )
        .await;
        sqlx::raw_sql(&format!(
            "SET statement_timeout = '1s'; SELECT id FROM {t} FOR UPDATE SKIP LOCKED LIMIT 1"
        ))
        .execute(&mut claim)
        .await
    };
    let (r, claimed) = tokio::join!(change, relay);
    assert!(
        claimed.is_ok(),
        "the claim waited past its timeout: {claimed:?}"
    );
    assert_eq!(r.code, LOCK_BUSY, "{r:?}");
    sqlx::raw_sql("ROLLBACK").execute(&mut pass).await.unwrap();
}

/// Under a default isolation of REPEATABLE READ and a short idle_in_transaction_session_timeout
/// (a role's or a database's), migrate's lock holds no snapshot (its own CREATE INDEX
/// CONCURRENTLY went on waiting on it for ever) and outlives its idle run (the server ended it
/// halfway, lock and all).
#[tokio::test]
async fn migrate_holds_no_snapshot_whatever_the_default_isolation() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    assert_eq!(migrate(&schema, &[]).code, OK);
    // rows enough that building the index takes longer than the idle timeout below
    crate::common::stage(&mut conn, &schema.rel("outbox"), "orders", 200_000, None).await;
    let run = ob(["migrate", "--hlc-ordering"])
        .pg(&schema.rel("outbox"))
        .env(
            "PGOPTIONS",
            r"-c default_transaction_isolation=repeatable\ read -c idle_in_transaction_session_timeout=100ms",
        )
        .run_async();
    let r = tokio::time::timeout(std::time::Duration::from_secs(60), run)
        .await
        .expect("migrate waited on its own lock's snapshot");
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        r.stdout.contains("CONCURRENTLY") || r.stdout.contains("applied:"),
        "{r:?}"
    );
}

/// A concurrent index build waits out every older transaction. A session left idle in one
/// held `migrate` in silence for as long as it stayed; now migrate names it (pid, state,
/// application, age, last statement) within seconds, and finishes once it ends.
#[tokio::test]
async fn a_build_held_up_by_an_idle_transaction_names_it_then_finishes() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let s = &schema.name;
    assert_eq!(migrate(&schema, &[]).code, OK);
    sqlx::raw_sql(&format!("DROP INDEX {s}.outbox_claim_idx"))
        .execute(&mut conn)
        .await
        .unwrap();
    let mut idle = crate::common::pg().await;
    sqlx::raw_sql(
        "SET application_name = 'forgotten-psql'; BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM pg_class",
    )
    .execute(&mut idle)
    .await
    .unwrap();
    let pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(&mut idle)
        .await
        .unwrap();
    let log = crate::common::out_file(test_name!()).with_extension("log");
    let mut run = ob(["migrate"]).pg(&schema.rel("outbox")).spawn(Some(&log));
    let named =
        format!("pid {pid} (idle in transaction, application forgotten-psql, its transaction");
    let said = crate::common::eventually(
        Duration::from_secs(60),
        "migrate naming the idle session",
        async || {
            let said = std::fs::read_to_string(&log).unwrap_or_default();
            match said.contains(&named) {
                true => Ok(said),
                false => Err(said),
            }
        },
    )
    .await;
    assert!(
        said.contains(&format!("create index {s}.outbox_claim_idx without blocking writes: waiting for old snapshots, held up by {named}")),
        "the step, its phase and the session: {said}"
    );
    assert!(said.contains("pg_terminate_backend"), "{said}");
    assert_eq!(said.matches(&named).count(), 1, "named once: {said}");
    sqlx::raw_sql("ROLLBACK").execute(&mut idle).await.unwrap();
    let status = run
        .exit_within(Duration::from_secs(60))
        .await
        .expect("migrate finishes once the session ends");
    assert!(
        status.success(),
        "{status:?}: {}",
        std::fs::read_to_string(&log).unwrap()
    );
    let valid: bool = sqlx::query_scalar(&format!(
        "SELECT indisvalid FROM pg_index WHERE indexrelid = '{s}.outbox_claim_idx'::regclass"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert!(valid);
}
