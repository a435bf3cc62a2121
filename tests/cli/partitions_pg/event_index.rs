//! `migrate` adds the delivery log's event index to a log that has rows without blocking the
//! relays' inserts: on the log alone, each partition's built concurrently, then attached.

use std::time::Duration;

use super::*;
use crate::common::{eventually, log_delivery, pg};

/// While `migrate` builds a large day's event index, an insert into the log waits for no lock
/// (a plain `CREATE INDEX` on the partitioned table held `SHARE` on every partition through
/// the build, and the relays' inserts waited it out); the index ends valid on the log and on
/// every partition, and a second run has nothing to do. Doctor warns while it is missing.
#[tokio::test]
async fn migrate_builds_a_logs_event_index_without_blocking_inserts() {
    let test = test_name!();
    let (schema, mut conn, log) = log_with(test).await;
    let idx = format!("{}.outbox_delivered_event_idx", schema.name);
    sqlx::raw_sql(&format!(
        "DROP INDEX {idx};
         INSERT INTO {log} (id, outbox_route, event_id, published_at)
         SELECT gen_random_uuid(), 'orders', gen_random_uuid(), now() FROM generate_series(1, 1000000)"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let migrate = || {
        ob(["migrate"]).pg(&schema.rel("outbox")).args([
            "--storage",
            "consume",
            "--delivery-log",
            &log,
        ])
    };
    let doctor = || {
        let r = ob(["doctor", "--format", "json"])
            .pg(&schema.rel("outbox"))
            .args(["--storage", "consume", "--delivery-log", &log])
            .run();
        let v = r.json();
        let checks = v["checks"].as_array().unwrap().clone();
        (checks.into_iter())
            .filter(|c| c["check"] == "log event index")
            .map(|c| c["level"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(doctor(), ["warn"], "doctor says the index is missing");
    let mut child = migrate().spawn_piped();
    let mut watcher = pg().await;
    eventually(
        Duration::from_secs(60),
        "migrate to build a day's event index",
        async || {
            let building: i64 = sqlx::query_scalar(
                "SELECT count(*) FROM pg_stat_progress_create_index p
                   JOIN pg_class c ON c.oid = p.relid JOIN pg_namespace n ON n.oid = c.relnamespace
                  WHERE n.nspname = $1 AND p.phase LIKE 'building index%'",
            )
            .bind(&schema.name)
            .fetch_one(&mut watcher)
            .await
            .unwrap();
            (building > 0)
                .then_some(())
                .ok_or("no build yet".to_owned())
        },
    )
    .await;
    sqlx::raw_sql("SET lock_timeout = '300ms'")
        .execute(&mut conn)
        .await
        .unwrap();
    log_delivery(&mut conn, &log, None, Utc::now()).await;
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let valid: bool = sqlx::query_scalar(&format!(
        "SELECT indisvalid FROM pg_index WHERE indexrelid = '{idx}'::regclass"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert!(valid, "the log's event index is valid");
    let (partitions, attached) = (
        format!("SELECT count(*) FROM pg_inherits WHERE inhparent = '{log}'::regclass"),
        format!("SELECT count(*) FROM pg_inherits WHERE inhparent = '{idx}'::regclass"),
    );
    let partitions = count(&mut conn, &partitions).await;
    assert!(partitions > 1, "today, days ahead and the default");
    assert_eq!(count(&mut conn, &attached).await, partitions);
    let r = migrate().code(OK);
    assert!(r.stderr.contains("up to date"), "{r:?}");
    assert_eq!(
        doctor(),
        Vec::<String>::new(),
        "and then says nothing of it"
    );
}

/// A build cut short (the log's index made `ON ONLY`, one day's attached, the rest not): the
/// next `migrate` goes on from the partitions not attached, and the index ends valid.
#[tokio::test]
async fn migrate_finishes_a_logs_event_index_left_half_attached() {
    let test = test_name!();
    let (schema, mut conn, log) = log_with(test).await;
    let s = &schema.name;
    let day = format!("{s}.outbox_delivered_{}", today().format("%Y%m%d"));
    sqlx::raw_sql(&format!(
        "DROP INDEX {s}.outbox_delivered_event_idx;
         CREATE INDEX outbox_delivered_event_idx ON ONLY {log} (event_id);
         CREATE INDEX day_eid ON {day} (event_id);
         ALTER INDEX {s}.outbox_delivered_event_idx ATTACH PARTITION {s}.day_eid;"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let valid = format!(
        "SELECT indisvalid::int::bigint FROM pg_index WHERE indexrelid = '{s}.outbox_delivered_event_idx'::regclass"
    );
    assert_eq!(count(&mut conn, &valid).await, 0, "half attached: invalid");
    let r = ob(["migrate"])
        .pg(&schema.rel("outbox"))
        .args(["--storage", "consume", "--delivery-log", &log])
        .code(OK);
    assert!(
        !r.stdout.contains("day_eid"),
        "the attached day is left as it is: {r:?}"
    );
    assert_eq!(count(&mut conn, &valid).await, 1, "{r:?}");
}
