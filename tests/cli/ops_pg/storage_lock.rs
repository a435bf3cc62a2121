//! Step 3 of the retain → consume move under its lock: a slow re-check gives up, the re-check
//! reads the claim index, the lock waits its lock timeout, the dry-run script runs as step 3
//! does; and what is not an outbox table is refused before any step.

use super::storage::{RECLAIM_OFF, STEP_3_DRY};
use super::*;

/// Step 3 holds an ACCESS EXCLUSIVE lock while it re-checks the table: a re-check slower than
/// `--check-timeout` gives up (exit 4) and drops nothing, instead of blocking the relays. The
/// re-check reads the claim index route by route, so what makes it slow here is a route per row.
#[tokio::test]
async fn step_3_gives_up_when_its_recheck_under_the_lock_is_slow() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 200_000, None).await;
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET outbox_route = 'r' || (payload->>'n'); ANALYZE {t}"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let off = crate::common::config_file(test_name!(), RECLAIM_OFF);
    let r = cmd(
        &schema,
        &[
            "--yes",
            "--reclaim-disabled",
            "--storage",
            "consume",
            "--config",
            &off,
        ],
        &[
            "storage",
            "to-consume",
            "--step",
            "3",
            "--check-timeout",
            "1ms",
        ],
    );
    assert_eq!(r.code, LOCK_BUSY, "{r:?}");
    assert!(r.stderr.contains("--check-timeout"), "{r:?}");
    let cols = count(
        &mut conn,
        &format!(
            "SELECT count(*) FROM pg_attribute WHERE attrelid = '{t}'::regclass AND attname IN ('processing_at', 'published_at') AND NOT attisdropped"
        ),
    )
    .await;
    assert_eq!(cols, 2, "nothing dropped");
}

/// A backlog of pending rows does not slow step 3's re-check under the lock: it reads the claim
/// index for processing and published rows, route by route, never the pending rows (a plan
/// without a sequential scan of the outbox, on 200,000 pending rows).
#[tokio::test]
async fn step_3_rechecks_through_the_claim_index_whatever_the_backlog() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 200_000, None).await;
    sqlx::raw_sql(&format!("ANALYZE {t}"))
        .execute(&mut conn)
        .await
        .unwrap();
    let table = outboxctl::target::QualifiedName::parse("relation", &t).unwrap();
    let sql = outboxctl::store::postgres::consume_move::recheck_sql(&table);
    let plan: serde_json::Value = sqlx::query_scalar(&format!("EXPLAIN (FORMAT JSON) {sql}"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    let text = plan.to_string();
    assert!(!text.contains("Seq Scan"), "{plan:#}");
    assert!(text.contains("outbox_claim_idx"), "{plan:#}");
}

/// Step 3's wait for its lock is bounded by `--lock-timeout` alone (neither the check timeout
/// nor the session's `statement_timeout`): a lock held longer than
/// `--check-timeout` (a relay's pass) but released within the lock timeout lets it go on, where
/// the check timeout used to cancel the wait as if the re-check had been slow.
#[tokio::test]
async fn step_3_waits_for_its_lock_up_to_the_lock_timeout_not_the_check_timeout() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let mut pass = crate::common::pg().await;
    sqlx::raw_sql(&format!("BEGIN; LOCK TABLE {t} IN ROW EXCLUSIVE MODE"))
        .execute(&mut pass)
        .await
        .unwrap();
    // the session's own statement_timeout (300ms) is shorter than the wait too: it must not
    // cut the wait short either (it used to, reported as a slow re-check)
    let base = pg_url();
    let sep = if base.contains('?') { '&' } else { '?' };
    let url = format!("{base}{sep}options=-c%20statement_timeout%3D300ms");
    let off = crate::common::config_file(test_name!(), RECLAIM_OFF);
    // a lock held longer than step 3 waits: exit 4, naming who holds it (it said only that it
    // gave up)
    let pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(&mut pass)
        .await
        .unwrap();
    let quick = ["--lock-timeout", "100ms", "--retries", "1"];
    let r = ob(["storage", "to-consume", "--step", "3"])
        .args(["--yes", "--reclaim-disabled", "--storage", "consume"])
        .args(["--config", &off])
        .args(quick)
        .pg(&t)
        .run();
    assert_eq!(r.code, LOCK_BUSY, "{r:?}");
    assert!(
        r.stderr.contains(&format!(
            "gave up locking {t} (held by pid {pid} (holds it, idle in transaction, its transaction"
        )),
        "{r:?}"
    );
    let step3 = ob(["storage", "to-consume", "--step", "3"])
        .args(["--database-url", &url, "--relation", &t])
        .args(["--yes", "--reclaim-disabled", "--storage", "consume"])
        .args(["--config", &off])
        .args([
            "--lock-timeout",
            "20s",
            "--retries",
            "0",
            "--check-timeout",
            "200ms",
        ])
        .run_async();
    let step3 = tokio::spawn(step3);
    // held until step 3 has waited on it for longer than its check timeout
    crate::common::eventually(
        std::time::Duration::from_secs(20),
        "step 3 waiting on the lock",
        async || {
            let waited: Option<f64> = sqlx::query_scalar(
                "SELECT extract(epoch FROM now() - query_start)::float8 FROM pg_stat_activity
              WHERE wait_event_type = 'Lock' AND query = $1",
            )
            .bind(format!("LOCK TABLE {t} IN ACCESS EXCLUSIVE MODE"))
            .fetch_optional(&mut conn)
            .await
            .map_err(|e| e.to_string())?;
            match waited {
                Some(s) if s > 0.5 => Ok(()),
                other => Err(format!("waited {other:?}")),
            }
        },
    )
    .await;
    sqlx::raw_sql("ROLLBACK").execute(&mut pass).await.unwrap();
    let r = step3.await.unwrap();
    assert_eq!(r.code, OK, "{r:?}");
    assert!(
        r.stdout.contains("dropped: processing_at, published_at"),
        "{r:?}"
    );
}

/// Step 3's dry run is step 3 as SQL: pasted into psql it refuses while a processing row
/// exists (its re-check a `DO` block that raises) and drops the columns once none does,
/// whatever the timeouts were given as.
#[tokio::test]
async fn step_3s_dry_run_script_runs_as_step_3_does() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 2, None).await;
    let step3 = ["storage", "to-consume", "--step", "3", "--dry-run"];
    let timeouts = ["--lock-timeout", "1m", "--check-timeout", "1500ms"];
    let r = cmd(
        &schema,
        &[&["--reclaim-disabled", "--format", "json"][..], &timeouts].concat(),
        &step3,
    );
    let script = json(&r)["script"].as_str().unwrap().to_owned();
    assert!(script.contains("lock_timeout = '60000ms'"), "{script}");
    let processing = format!(
        "UPDATE {t} SET status = 'processing', processing_at = now() WHERE (payload->>'n')::int = 1"
    );
    sqlx::raw_sql(&processing).execute(&mut conn).await.unwrap();
    let err = sqlx::raw_sql(&script).execute(&mut conn).await.unwrap_err();
    assert!(err.to_string().contains("rows remain"), "{err}");
    sqlx::raw_sql(&format!(
        "ROLLBACK; UPDATE {t} SET status = 'pending', processing_at = NULL"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    sqlx::raw_sql(&script).execute(&mut conn).await.unwrap();
    let left = count(
        &mut conn,
        &format!(
            "SELECT count(*) FROM pg_attribute WHERE attrelid = '{t}'::regclass AND attname IN ('processing_at', 'published_at') AND NOT attisdropped"
        ),
    )
    .await;
    assert_eq!(left, 0);
}

/// A view, or an application's table named by a typo, is not an outbox: `storage status` and
/// every step refuse it (exit 2) naming why and what to check, as `migrate` does, and change
/// nothing. (It said `next step: 3` of a view, whose dry run passed and whose step 3 failed on
/// the ALTER; of a table it said only `column "outbox_route" does not exist`.)
#[tokio::test]
async fn what_is_not_an_outbox_table_is_refused_before_any_step() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let s = &schema.name;
    sqlx::raw_sql(&format!(
        "CREATE VIEW {s}.v AS SELECT * FROM {s}.outbox; CREATE TABLE {s}.users (id bigint PRIMARY KEY, name text)"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    for (relation, says) in [
        ("v", "is not a table (a view or another kind of relation)"),
        (
            "users",
            "is not an outbox table (it has no column outbox_route, event_id, event_type",
        ),
    ] {
        let rel = schema.rel(relation);
        for args in [
            &["storage", "status"][..],
            &STEP_3_DRY,
            &[
                "storage",
                "to-consume",
                "--step",
                "3",
                "--yes",
                "--reclaim-disabled",
            ],
        ] {
            let r = ob(args).args(["--storage", "consume"]).pg(&rel).run();
            assert_eq!(r.code, crate::common::ERROR, "{relation} {args:?}: {r:?}");
            assert!(
                r.stderr.contains(&format!("{rel} {says}"))
                    && r.stderr.contains("): check outbox.relation (--relation)"),
                "{relation} {args:?}: {r:?}"
            );
        }
    }
    let columns = format!(
        "SELECT count(*) FROM information_schema.columns WHERE table_schema = '{s}' AND table_name = 'outbox' AND column_name = 'processing_at'"
    );
    assert_eq!(count(&mut conn, &columns).await, 1, "nothing was dropped");
}
