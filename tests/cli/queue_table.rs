//! A queue table that does not bloat: `outbox.autovacuum: queue` makes `migrate` set the table's
//! autovacuum parameters (shown by `--dry-run`, added to an existing table only when asked), and
//! `doctor` reports dead rows, size and vacuums, and warns when churn outruns vacuum.

use std::time::Duration;

use serde_json::Value;

use crate::common::{CHECK_FAILED, OK, PgSchema, config_file, eventually, ob, stage};

/// The outbox table's storage parameters.
async fn reloptions(conn: &mut sqlx::PgConnection, t: &str) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT coalesce(reloptions, '{}')::text[] FROM pg_class WHERE oid = $1::regclass",
    )
    .bind(t)
    .fetch_one(conn)
    .await
    .unwrap()
}

/// doctor's checks as JSON, by name: (level, detail).
fn doctor(t: &str, cfg: Option<&str>) -> Vec<(String, String, String)> {
    let mut run = ob(["doctor", "--format", "json", "--storage", "consume"]).pg(t);
    if let Some(cfg) = cfg {
        run = run.config(cfg);
    }
    let r = run.run();
    assert!(r.code == OK || r.code == CHECK_FAILED, "{r:?}");
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["check"].as_str().unwrap().to_owned(),
                c["level"].as_str().unwrap().to_owned(),
                c["detail"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn migrate_sets_a_queues_autovacuum_only_when_asked_and_doctor_sees_churn() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let t = schema.rel("outbox");
    let queue = config_file(test, "outbox:\n  storage: consume\n  autovacuum: queue\n");
    // a table made without the setting keeps the server's defaults
    ob(["migrate", "-q", "--storage", "consume"])
        .pg(&t)
        .code(OK);
    assert!(reloptions(&mut conn, &t).await.is_empty());
    // churn: 30,000 rows staged and consumed, autovacuum held off so the dead rows stay
    sqlx::raw_sql(&format!("ALTER TABLE {t} SET (autovacuum_enabled = false)"))
        .execute(&mut conn)
        .await
        .unwrap();
    stage(&mut conn, &t, "orders", 30_000, None).await;
    sqlx::raw_sql(&format!("DELETE FROM {t} WHERE (payload->>'n')::int > 10"))
        .execute(&mut conn)
        .await
        .unwrap();
    let checks = eventually(
        Duration::from_secs(30),
        "doctor to see the dead rows",
        async || {
            let checks = doctor(&t, None);
            if checks.iter().any(|(c, ..)| c == "dead rows") {
                Ok(checks)
            } else {
                Err(format!("{checks:?}"))
            }
        },
    )
    .await;
    let find = |checks: &[(String, String, String)], name: &str| {
        checks
            .iter()
            .find(|(c, ..)| c == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} check: {checks:?}"))
    };
    let (_, level, detail) = find(&checks, "dead rows");
    assert_eq!(level, "warn");
    assert!(
        detail.contains("dead rows outrun vacuum")
            && detail.contains("set outbox.autovacuum: queue"),
        "{detail}"
    );
    let (_, level, detail) = find(&checks, "autovacuum");
    assert_eq!(level, "warn");
    assert!(
        detail.contains("the table's autovacuum_enabled"),
        "{detail}"
    );
    let (_, _, detail) = find(&checks, "queue table");
    assert!(
        detail.contains("10 live rows") || detail.contains(" live rows, 29"),
        "{detail}"
    );
    let (_, _, detail) = find(&checks, "autovacuum settings");
    assert!(detail.contains("uses the server's"), "{detail}");

    // asked for: --dry-run shows the statement and why, then migrate sets it, once
    let plan = ob(["migrate", "--dry-run"]).pg(&t).config(&queue).code(OK);
    assert!(
        plan.stdout.contains("set autovacuum for a queue on")
            && plan.stdout.contains("autovacuum_vacuum_scale_factor = 0")
            && plan
                .stdout
                .contains("-- autovacuum_vacuum_cost_delay: never sleep"),
        "{plan:?}"
    );
    assert!(
        !reloptions(&mut conn, &t)
            .await
            .iter()
            .any(|o| o.contains("scale_factor"))
    );
    ob(["migrate", "-q"]).pg(&t).config(&queue).code(OK);
    let set = reloptions(&mut conn, &t).await;
    for want in [
        "autovacuum_vacuum_scale_factor=0",
        "autovacuum_vacuum_threshold=1000",
        "autovacuum_vacuum_insert_scale_factor=0",
        "autovacuum_vacuum_insert_threshold=1000",
        "autovacuum_analyze_scale_factor=0",
        "autovacuum_analyze_threshold=10000",
        "autovacuum_vacuum_cost_delay=0",
    ] {
        assert!(set.iter().any(|o| o == want), "{want} in {set:?}");
    }
    let again = ob(["migrate"]).pg(&t).config(&queue).code(OK);
    assert!(again.stderr.contains("is up to date"), "{again:?}");
    let checks = doctor(&t, Some(&queue));
    let (_, _, detail) = find(&checks, "autovacuum settings");
    assert!(detail.contains("has the queue settings"), "{detail}");
    let (_, _, detail) = find(&checks, "dead rows");
    assert!(
        detail.contains("autovacuum_naptime (server-wide"),
        "{detail}"
    );
    // a new table asked for gets them with its creation
    let (fresh, mut conn2) = PgSchema::new(&format!("{test}_fresh")).await;
    let ft = fresh.rel("outbox");
    let created = ob(["migrate"]).pg(&ft).config(&queue).code(OK);
    assert!(
        format!("{}{}", created.stdout, created.stderr)
            .contains("with autovacuum settings for a queue"),
        "{created:?}"
    );
    assert!(reloptions(&mut conn2, &ft).await.len() >= 7);
}
