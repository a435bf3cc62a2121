//! Commands that change rows on PostgreSQL: requeue and discard, emit and its checkpoint, failure groups acting on their rows.

use super::*;

#[tokio::test]
async fn requeue_and_discard_change_exactly_the_selected_rows() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    seed(&mut conn, &t).await;
    let failed: Vec<uuid::Uuid> = sqlx::query_scalar(&format!(
        "SELECT id FROM {t} WHERE status = 'failed' ORDER BY created_at"
    ))
    .fetch_all(&mut conn)
    .await
    .unwrap();
    let r = cmd(&schema, &[], &["requeue", "--route", "a"]);
    assert_eq!(r.code, ERROR, "a filter without --all is refused: {r:?}");
    let r = cmd(&schema, &[], &["requeue", "--all", "--route", "a"]);
    assert_eq!(r.code, REFUSED, "no terminal and no --yes: {r:?}");
    let r = cmd(
        &schema,
        &["--format", "json"],
        &["requeue", "--all", "--error-contains", "queue", "--dry-run"],
    );
    assert_eq!(json(&r)["count"], 1);
    let still = count(
        &mut conn,
        &format!("SELECT count(*) FROM {t} WHERE status = 'failed'"),
    )
    .await;
    assert_eq!(still, 2, "dry run changed nothing");
    let before: Vec<(uuid::Uuid, String, i32)> = sqlx::query_as(&format!(
        "SELECT id, status, attempts FROM {t} WHERE status <> 'failed' ORDER BY id"
    ))
    .fetch_all(&mut conn)
    .await
    .unwrap();
    let r = cmd(
        &schema,
        &["--yes", "--format", "json"],
        &["requeue", "--id", &failed[0].to_string()],
    );
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(json(&r)["ids"], serde_json::json!([failed[0].to_string()]));
    let row: (
        String,
        i32,
        Option<String>,
        Option<chrono::DateTime<chrono::Utc>>,
    ) = sqlx::query_as(&format!(
        "SELECT status, attempts, last_error, available_at FROM {t} WHERE id = $1"
    ))
    .bind(failed[0])
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(row, ("pending".into(), 0, None, None));
    let after: Vec<(uuid::Uuid, String, i32)> = sqlx::query_as(&format!(
        "SELECT id, status, attempts FROM {t} WHERE status <> 'failed' AND id <> $1 ORDER BY id"
    ))
    .bind(failed[0])
    .fetch_all(&mut conn)
    .await
    .unwrap();
    assert_eq!(before, after, "no other row changed");
    // a non-failed id is reported, not touched: by a dry run too, which counts nothing for it
    let id = failed[0].to_string();
    let r = cmd(&schema, &[], &["requeue", "--id", &id, "--dry-run"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(
        r.stdout.contains("not a failed row") && !r.stdout.contains("would requeue: "),
        "{r:?}"
    );
    let r = cmd(
        &schema,
        &["--yes"],
        &["requeue", "--id", &failed[0].to_string()],
    );
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(r.stdout.contains("not a failed row"), "{r:?}");
    let r = cmd(
        &schema,
        &["--yes"],
        &["discard", "--all", "--type", "order.cancelled"],
    );
    assert_eq!(r.code, OK, "{r:?}");
    let left: i64 = sqlx::query_scalar(&format!("SELECT count(*) FROM {t} WHERE id = $1"))
        .bind(failed[1])
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(left, 0);
}

#[tokio::test]
async fn requeue_under_consume_without_the_retain_columns() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--storage", "consume"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "a", 3, None).await;
    sqlx::raw_sql(&format!(
        "ALTER TABLE {t} DROP COLUMN processing_at, DROP COLUMN published_at; UPDATE {t} SET status = 'failed', attempts = 4, last_error = 'x'"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = cmd(
        &schema,
        &["--storage", "consume", "--yes"],
        &["requeue", "--all"],
    );
    assert_eq!(r.code, OK, "{r:?}");
    let pending: i64 = sqlx::query_scalar(&format!(
        "SELECT count(*) FROM {t} WHERE status = 'pending' AND attempts = 0"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(pending, 3);
}

/// Under consume storage a requeue is the contract's consume statement even while the retain
/// columns are still there (mid-migration): `processing_at` and `published_at` stay as they
/// are. Under retain both are cleared. A requeue that finds nothing to change reports a run,
/// not a dry run.
#[tokio::test]
async fn requeue_under_consume_leaves_the_retain_columns_while_they_remain() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "a", 2, None).await;
    let fail = format!(
        "UPDATE {t} SET status = 'failed', attempts = 4, last_error = 'x', processing_at = now()"
    );
    let with_processing_at = async |conn: &mut PgConnection| -> i64 {
        sqlx::query_scalar(&format!(
            "SELECT count(*) FROM {t} WHERE status = 'pending' AND processing_at IS NOT NULL"
        ))
        .fetch_one(conn)
        .await
        .unwrap()
    };
    for (storage, kept) in [("consume", 2), ("retain", 0)] {
        sqlx::raw_sql(&fail).execute(&mut conn).await.unwrap();
        let r = cmd(
            &schema,
            &["--storage", storage, "--yes"],
            &["requeue", "--all"],
        );
        assert_eq!(r.code, OK, "{storage}: {r:?}");
        assert_eq!(with_processing_at(&mut conn).await, kept, "{storage}");
    }
    let r = cmd(
        &schema,
        &["--format", "json", "--yes"],
        &["requeue", "--all"],
    );
    assert_eq!(
        (r.code, json(&r)["dry_run"].clone()),
        (OK, false.into()),
        "{r:?}"
    );
    assert_eq!(json(&r)["count"], 0, "{r:?}");
}

/// On a tenant-aware table `--id` stays within the configured tenants, as `--all` does: a
/// failed row of another tenant is not a failed row of this selection (left as it is, exit 1),
/// and a row is counted once, not once per configured tenant. An unlisted `--tenant` is not
/// requeued.
#[tokio::test]
async fn requeue_by_id_keeps_to_the_tenant() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let [a, _] = super::TENANTS;
    let t = schema.rel("outbox");
    let cfg = super::two_tenants(test, &mut conn, &t, 2).await;
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET status = 'failed', last_error = 'x'"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let id_of = async |conn: &mut PgConnection, tenant: &str| -> String {
        sqlx::query_scalar(&format!(
            "SELECT id::text FROM {t} WHERE tenant_id = $1::uuid"
        ))
        .bind(tenant)
        .fetch_one(conn)
        .await
        .unwrap()
    };
    let (row_a, row_b) = (
        id_of(&mut conn, a).await,
        id_of(&mut conn, super::TENANTS[1]).await,
    );
    let only_a = crate::common::config_file(
        &format!("{test}-a"),
        &format!("outbox:\n  tenant_aware: true\n  tenants: [{a}]\n"),
    );
    let requeue = |cfg: &str, args: &[&str]| {
        ob(["--format", "json", "--yes", "requeue"])
            .args(args)
            .pg(&t)
            .config(cfg)
            .run()
    };
    let r = requeue(&only_a, &["--id", &row_b]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert_eq!(json(&r)["not_failed"][0], row_b.as_str(), "{r:?}");
    let r = ob(["--yes", "requeue", "--id", &row_b])
        .pg(&t)
        .config(&only_a)
        .run();
    let skipped = format!("skipped: {row_b} (not a failed row of the configured tenants)");
    assert!(r.stdout.contains(&skipped), "{r:?}");
    // requeued, a tenant's rows no relay serves would stay pending: refused, nothing changed;
    // read (or discarded) they may be
    let b = super::TENANTS[1];
    let r = requeue(&only_a, &["--tenant", b, "--all"]);
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(
        r.stderr
            .contains(&format!("--tenant {b} is not listed under outbox.tenants")),
        "{r:?}"
    );
    let failed = format!("SELECT count(*) FROM {t} WHERE status = 'failed'");
    assert_eq!(count(&mut conn, &failed).await, 2);
    let r = ob([
        "--format",
        "json",
        "discard",
        "--dry-run",
        "--all",
        "--tenant",
        b,
    ])
    .pg(&t)
    .config(&only_a)
    .run();
    assert_eq!((r.code, json(&r)["count"].clone()), (OK, 1.into()), "{r:?}");
    let r = requeue(&cfg, &["--id", &row_a, "--dry-run"]);
    assert_eq!(json(&r)["count"], 1, "once, not once per tenant: {r:?}");
    let r = requeue(&cfg, &["--id", &row_a, "--id", &row_b]);
    assert_eq!((r.code, json(&r)["count"].clone()), (OK, 2.into()), "{r:?}");
}

#[tokio::test]
async fn emit_refuses_bad_payloads_and_changes_nothing() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    for bad in ["{not json", "[1, 2]", "@/no/such/file"] {
        let r = cmd(
            &schema,
            &[],
            &["emit", "--route", "r", "--type", "t", "--payload", bad],
        );
        assert_eq!(r.code, ERROR, "{bad}: {r:?}");
        assert_eq!(r.stderr.lines().count(), 1, "{r:?}");
    }
    // the payload from standard input: refused the same way
    let r = ob(["emit", "--route", "r", "--type", "t", "--payload", "-"])
        .pg(&schema.rel("outbox"))
        .stdin("[1, 2]")
        .code(ERROR);
    assert!(r.stderr.contains("must be a JSON object"), "{r:?}");
    // NUL, which jsonb cannot hold (MongoDB can): said as such, not "unsupported Unicode
    // escape sequence"
    let nul = r#"{"a": "x\u0000y"}"#;
    let r = cmd(
        &schema,
        &[],
        &["emit", "--route", "r", "--type", "t", "--payload", nul],
    );
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(
        r.stderr.contains("PostgreSQL's jsonb cannot store"),
        "{r:?}"
    );
    let n = count(
        &mut conn,
        &format!("SELECT count(*) FROM {}", schema.rel("outbox")),
    )
    .await;
    assert_eq!(n, 0);
}

#[tokio::test]
async fn the_checkpoint_moves_with_the_rows_and_not_on_rollback() {
    use outboxctl::store::ops::NewEvent;
    use outboxctl::store::postgres::ops::PgOps;
    use outboxctl::store::postgres::stage::advance_checkpoint;
    use sqlx::Connection;
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let cp = schema.rel("hlc_checkpoint");
    migrate(&schema, &["--hlc-ordering", "--hlc-checkpoint", &cp]).await;
    let table = outboxctl::target::QualifiedName::parse("t", &schema.rel("outbox")).unwrap();
    let cpq = outboxctl::target::QualifiedName::parse("c", &cp).unwrap();
    let event = || NewEvent {
        id: uuid::Uuid::now_v7(),
        event_id: uuid::Uuid::now_v7(),
        route: "r".into(),
        event_type: "t".into(),
        payload: "{}".into(),
        ordering_key: None,
        tenant_id: None,
        correlation_id: None,
        causation_id: None,
        execution_id: None,
        traceparent: None,
        occurred_at: chrono::Utc::now(),
    };
    // rolled back: neither rows nor mark
    let mut tx = conn.begin().await.unwrap();
    PgOps::stage_in_transaction(&mut tx, &table, Some(&cpq), true, false, &[event()], "n1")
        .await
        .unwrap();
    tx.rollback().await.unwrap();
    let marks = count(&mut conn, &format!("SELECT count(*) FROM {cp}")).await;
    assert_eq!(marks, 0);
    // committed: both
    let mut tx = conn.begin().await.unwrap();
    let staged = PgOps::stage_in_transaction(
        &mut tx,
        &table,
        Some(&cpq),
        true,
        false,
        &[event(), event()],
        "n1",
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    let mark: i64 = sqlx::query_scalar(&format!("SELECT hlc FROM {cp} WHERE node_key = 'n1'"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    let max_row: i64 = sqlx::query_scalar(&format!("SELECT max(hlc) FROM {table}"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(mark, max_row);
    assert_eq!(
        outboxctl::hlc::HlcTimestamp::unpack(mark).unwrap().encode(),
        staged[1].hlc.clone().unwrap()
    );

    // two writers on one node key, the lower one committing last: the higher mark stays
    let high = outboxctl::hlc::HlcTimestamp::new(4_000_000_000_000, 7);
    let low = outboxctl::hlc::HlcTimestamp::new(3_000_000_000_000, 0);
    let mut a = crate::common::pg().await;
    let mut b = crate::common::pg().await;
    let b_pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
        .fetch_one(&mut b)
        .await
        .unwrap();
    let mut watcher = crate::common::pg().await;
    let mut ta = a.begin().await.unwrap();
    advance_checkpoint(&mut ta, &cpq, "shared", high)
        .await
        .unwrap();
    let writer_b = async {
        let mut tb = b.begin().await.unwrap();
        advance_checkpoint(&mut tb, &cpq, "shared", low)
            .await
            .unwrap(); // waits on a's row lock
        tb.commit().await.unwrap();
    };
    let commit_a = async {
        // commit only once b is really waiting on a's row lock
        crate::common::wait_for_session(
            &mut watcher,
            "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock')",
            Some(b_pid),
            std::time::Duration::from_secs(10),
        )
        .await;
        ta.commit().await.unwrap();
    };
    tokio::join!(writer_b, commit_a);
    let mark: i64 = sqlx::query_scalar(&format!("SELECT hlc FROM {cp} WHERE node_key = 'shared'"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(mark, high.pack());
    // and a resumed clock stamps above every mark
    let mut tx = conn.begin().await.unwrap();
    let staged =
        PgOps::stage_in_transaction(&mut tx, &table, Some(&cpq), true, false, &[event()], "n2")
            .await
            .unwrap();
    tx.commit().await.unwrap();
    assert!(staged[0].hlc.clone().unwrap() > high.encode());
}

/// Failure groups on PostgreSQL: parked rows grouped by their error's fingerprint (the same
/// error with other numbers, addresses and durations is one group), rows waiting for a retry
/// with --retrying, and requeue/discard of exactly a group's rows (dry run, refusal without a
/// terminal, counts).
#[tokio::test]
async fn failure_groups_list_and_act_on_exactly_their_rows() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    // 6 rows of a 503 (other addresses, durations), 3 of a refusal, 2 retrying 503s, 1 pending
    use crate::common::fixture::{Fixture, insert};
    let mut rows: Vec<Fixture> = (1..=6)
        .map(|g| {
            Fixture::failed(if g % 2 == 0 { "a" } else { "b" })
                .event_type("order.placed")
                .created_ago(f64::from(g) * 60.0)
                .attempts(5)
                .due_in(0.0)
                .error(&format!("HTTP 503 from 10.0.0.{g}:8080 after {g}.5s"))
        })
        .collect();
    rows.extend((0..3).map(|_| {
        Fixture::failed("a")
            .event_type("order.cancelled")
            .attempts(1)
            .due_in(0.0)
            .error(&format!(
                "order {} refused: 'no stock'",
                uuid::Uuid::new_v4()
            ))
    }));
    rows.extend((0..2).map(|_| {
        Fixture::pending("a")
            .event_type("order.placed")
            .attempts(2)
            .due_in(60.0)
            .error("HTTP 503 from 10.0.0.9:8080 after 0.1s (+3 more)")
    }));
    rows.push(Fixture::pending("a").event_type("order.placed"));
    insert(&mut conn, &t, &rows).await;
    let http = outboxctl::ops::failure_groups::fingerprint("HTTP 503 from 1.2.3.4:1 after 1s");
    let refused = outboxctl::ops::failure_groups::fingerprint(
        "order 0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e refused: 'sold out'",
    );
    let groups = cmd(
        &schema,
        &["--format", "json"],
        &["inspect", "failed", "--group"],
    )
    .json();
    assert_eq!(
        group_counts(&groups),
        [(http.clone(), 6), (refused.clone(), 3)],
        "{groups}"
    );
    assert_eq!(groups[0]["routes"], serde_json::json!({"a": 3, "b": 3}));
    assert_eq!(groups[0]["attempts_min"], 5);
    assert!(
        groups[0]["sample_error"]
            .as_str()
            .unwrap()
            .starts_with("HTTP 503 from 10.0.0.")
    );
    // with --retrying the 503s waiting for their retry join the HTTP group
    let groups = cmd(
        &schema,
        &["--format", "json", "--route", "a"],
        &["inspect", "failed", "--group", "--retrying"],
    )
    .json();
    assert_eq!(groups[0]["id"], http.as_str());
    assert_eq!(
        groups[0]["count"], 5,
        "3 parked on route a + 2 retrying: {groups}"
    );
    assert_eq!(
        groups[0]["statuses"],
        serde_json::json!({"failed": 3, "pending": 2})
    );
    // the table names the group and how to act on it
    let r = cmd(&schema, &[], &["inspect", "failed", "--group"]);
    assert!(
        r.stdout.contains(&http) && r.stderr.contains("requeue --group"),
        "{r:?}"
    );

    let failed_with = |error: &'static str| {
        format!("SELECT count(*) FROM {t} WHERE status = 'failed' AND last_error LIKE '{error}%'")
    };
    // a dry run counts, and changes nothing
    let r = cmd(
        &schema,
        &["--format", "json"],
        &["requeue", "--group", &http, "--dry-run"],
    );
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(r.json()["count"], 6);
    assert_eq!(r.json()["groups"][&http], 6);
    assert_eq!(count(&mut conn, &failed_with("HTTP")).await, 6);
    // no terminal and no --yes: refused, nothing changed
    let r = cmd(&schema, &[], &["requeue", "--group", &http]);
    assert_eq!(r.code, REFUSED, "{r:?}");
    assert_eq!(count(&mut conn, &failed_with("HTTP")).await, 6);
    // narrowed by route, then the rest: exactly the group's parked rows, never the retrying ones
    let r = cmd(
        &schema,
        &["--format", "json", "--route", "b"],
        &["requeue", "--group", &http, "--yes"],
    );
    assert_eq!((r.code, r.json()["count"].as_i64()), (OK, Some(3)), "{r:?}");
    let r = cmd(&schema, &["--yes"], &["requeue", "--group", &http]);
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(count(&mut conn, &failed_with("HTTP")).await, 0);
    assert_eq!(
        count(
            &mut conn,
            &format!("SELECT count(*) FROM {t} WHERE status = 'pending' AND attempts = 2")
        )
        .await,
        2,
        "rows waiting for a retry are not requeued"
    );
    assert_eq!(count(&mut conn, &failed_with("order")).await, 3);
    // a group id that is not one is refused before anything is read
    let typo = format!("{}x", &refused[1..]);
    let r = cmd(&schema, &["--yes"], &["discard", "--group", &typo]);
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("12 hex digits"), "{r:?}");
    assert_eq!(count(&mut conn, &failed_with("order")).await, 3);
    // a group whose rows are of another route than --route's: said so (it read as gone)
    let r = cmd(
        &schema,
        &["--yes"],
        &["requeue", "--group", &refused, "--route", "b"],
    );
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    let said = format!("group {refused} has no failed rows now among those --route, --tenant");
    assert!(r.stderr.contains(&said), "{r:?}");
    assert_eq!(count(&mut conn, &failed_with("order")).await, 3);
    // discard another group; a group with no rows now is said, and fails the run as an id
    // that is not a failed row does
    let r = cmd(
        &schema,
        &["--format", "json", "--yes"],
        &["discard", "--group", &format!("{refused},{http}")],
    );
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(
        r.stderr.contains(&format!(
            "1 of the given group(s) had no failed rows to discard: {http}"
        )),
        "{r:?}"
    );
    assert_eq!(r.json()["groups"][&refused], 3);
    assert_eq!(r.json()["groups"][&http], 0);
    assert!(
        r.stderr
            .contains(&format!("group {http} has no failed rows now")),
        "{r:?}"
    );
    assert_eq!(
        count(&mut conn, &format!("SELECT count(*) FROM {t}")).await,
        9
    );
}
