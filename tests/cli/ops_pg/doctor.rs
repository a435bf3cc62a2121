//! doctor on PostgreSQL: a name that needs quotes, the HLC claim index, processing rows with
//! reclaim off, a healthy and a broken outbox, the claim's function; on tenant-aware outboxes,
//! a table or delivery log tenants share is checked once, each tenant's own log and rows each,
//! the node's HLC mark once.

use super::*;

/// The details of every check named `name`.
fn details(v: &Value, name: &str) -> Vec<String> {
    (v["checks"].as_array().unwrap().iter())
        .filter(|c| c["check"] == name)
        .map(|c| {
            format!(
                "{} {}",
                c["level"].as_str().unwrap(),
                c["detail"].as_str().unwrap()
            )
        })
        .collect()
}

/// Doctor on a table two tenants share checks the table once (its indexes, functions, health)
/// and its rows tenant by tenant, each check naming its tenant: it used to repeat every check
/// of the table for each tenant, and its rows' checks named neither.
#[tokio::test]
async fn doctor_checks_a_shared_table_once_and_its_rows_per_tenant() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let [a, b] = TENANTS;
    let t = schema.rel("outbox");
    let with = tenants_config(test, &t, "");
    assert_eq!(with(&["migrate"]).code, OK);
    stage(&mut conn, &t, "orders", 3, None).await;
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET tenant_id = '{b}'::uuid, status = 'failed', last_error = 'boom' WHERE (payload->>'n')::int = 1"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = with(&["doctor", "--format", "json"]);
    let v = json(&r);
    let named = |check: &str| -> Vec<String> {
        (v["checks"].as_array().unwrap().iter())
            .filter(|c| c["check"] == check)
            .map(|c| c["detail"].as_str().unwrap().to_owned())
            .collect()
    };
    for once in ["claim index", "claim plan", "old functions"] {
        assert_eq!(named(once).len(), 1, "{once} once: {v}");
    }
    let failed = named("failed rows");
    assert_eq!(failed.len(), 2, "{v}");
    assert!(
        failed[0].starts_with(&format!("0 failed row(s) in {t} (tenant {a})")),
        "{failed:?}"
    );
    assert!(
        failed[1].starts_with(&format!("1 failed row(s) in {t} (tenant {b})")),
        "{failed:?}"
    );
}

/// Tenants sharing a table, each with a delivery log of its own: doctor checks both logs (a row
/// in the second tenant's default partition fails it; that log used to go unchecked), and the
/// node's HLC mark once.
#[tokio::test]
async fn doctor_checks_each_tenants_own_log_and_the_mark_once() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let [_, b] = TENANTS;
    let t = schema.rel("outbox");
    let more = format!(
        "  storage: consume\n  delivery_log: {s}.d_{{tenant}}\n  hlc_checkpoint: {s}.hlc_checkpoint\n",
        s = schema.name
    );
    let with = tenants_config(test, &t, &more);
    assert_eq!(with(&["migrate", "-q"]).code, OK);
    let log_b = format!("{}.d_{}", schema.name, b.replace('-', ""));
    crate::common::log_delivery(
        &mut conn,
        &log_b,
        Some(b),
        "2020-01-01T12:00:00Z".parse().unwrap(),
    )
    .await;
    let r = with(&["doctor", "--format", "json"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    let v = json(&r);
    let logs = details(&v, "delivery log");
    assert_eq!(logs.len(), 2, "each tenant's log: {logs:?}");
    assert!(
        logs.iter()
            .any(|l| l.starts_with("fail") && l.contains(&log_b)),
        "{logs:?}"
    );
    assert_eq!(details(&v, "hlc mark").len(), 1, "{v}");
    // a mark ahead of the clock, within the drift allowed: said so (it said "not ahead")
    sqlx::raw_sql(&format!(
        "INSERT INTO {}.hlc_checkpoint (node_key, hlc)
         VALUES ('ahead', ((extract(epoch FROM now()) * 1000)::bigint + 180000) << 16)",
        schema.name
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let mark = details(&json(&with(&["doctor", "--format", "json"])), "hlc mark");
    assert!(
        mark.len() == 1
            && mark[0].starts_with("ok")
            && mark[0].contains("ahead of the wall clock, within"),
        "{mark:?}"
    );
    assert!(!mark[0].contains("not ahead"), "{mark:?}");
    // a checkpoint table gone is a finding like the others, not the end of the report
    sqlx::raw_sql(&format!("DROP TABLE {}.hlc_checkpoint", schema.name))
        .execute(&mut conn)
        .await
        .unwrap();
    let r = with(&["doctor", "--format", "json"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    let v = json(&r);
    let mark = details(&v, "hlc mark");
    assert!(
        mark.len() == 1 && mark[0].starts_with("fail") && mark[0].contains("outboxctl migrate"),
        "{mark:?}"
    );
    assert_eq!(
        details(&v, "delivery log").len(),
        2,
        "the rest reported: {v}"
    );
}

/// A table per tenant sharing one delivery log: the log is checked once (its failure used to be
/// reported once per tenant table).
#[tokio::test]
async fn doctor_checks_a_log_tenant_tables_share_once() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let log = schema.rel("delivered");
    let relation = format!("{}.outbox_{{tenant}}", schema.name);
    let with = tenants_config(
        test,
        &relation,
        &format!("  storage: consume\n  delivery_log: {log}\n"),
    );
    assert_eq!(with(&["migrate", "-q"]).code, OK);
    crate::common::log_delivery(
        &mut conn,
        &log,
        None,
        "2020-01-01T12:00:00Z".parse().unwrap(),
    )
    .await;
    let r = with(&["doctor", "--format", "json"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    let logs = details(&json(&r), "delivery log");
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert!(logs[0].starts_with("fail"), "{logs:?}");
}

/// Without `UNIQUE (outbox_route, event_id)` staging's `ON CONFLICT` (forze's and `emit`'s)
/// fails on every event: doctor says so.
#[tokio::test]
async fn doctor_fails_an_outbox_without_its_event_key() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let v = json(&cmd(&schema, &["--format", "json"], &["doctor"]));
    assert_eq!(
        details(&v, "event key"),
        ["ok ".to_owned() + &format!("{t} has its UNIQUE (outbox_route, event_id)")]
    );
    let key: String = sqlx::query_scalar(&format!(
        "SELECT conname::text FROM pg_constraint WHERE conrelid = '{t}'::regclass AND contype = 'u'"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    sqlx::raw_sql(&format!("ALTER TABLE {t} DROP CONSTRAINT {key}"))
        .execute(&mut conn)
        .await
        .unwrap();
    let r = cmd(&schema, &["--format", "json"], &["doctor"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    let key = details(&json(&r), "event key");
    assert!(key.len() == 1 && key[0].starts_with("fail"), "{key:?}");
}

/// Staging advances the HLC mark by `ON CONFLICT (node_key)`: a checkpoint table without a
/// unique key on `node_key` fails every such staging, and doctor says so.
#[tokio::test]
async fn doctor_fails_a_checkpoint_without_its_key() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let cp = schema.rel("hlc_checkpoint");
    let flags = ["--hlc-ordering", "--hlc-checkpoint", &cp];
    migrate(&schema, &flags).await;
    let doctor = || {
        cmd(
            &schema,
            &[&["--format", "json"][..], &flags].concat(),
            &["doctor"],
        )
    };
    let key = details(&json(&doctor()), "hlc checkpoint key");
    assert_eq!(key, [format!("ok {cp} has its PRIMARY KEY (node_key)")]);
    sqlx::raw_sql(&format!(
        "ALTER TABLE {cp} DROP CONSTRAINT hlc_checkpoint_pkey; CREATE INDEX ON {cp} (node_key)"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = doctor();
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    let key = details(&json(&r), "hlc checkpoint key");
    assert!(
        key.len() == 1 && key[0].starts_with("fail") && key[0].contains("ON CONFLICT (node_key)"),
        "{key:?}"
    );
}

/// A table whose name needs quotes (`"Order-Events"`) gets the same checks as any other: doctor
/// used to re-read the name without its quotes and stop with exit 2.
#[tokio::test]
async fn doctor_checks_an_outbox_whose_name_needs_quotes() {
    let (schema, _conn) = PgSchema::new(test_name!()).await;
    let t = format!("{}.\"Order-Events\"", schema.name);
    ob(["migrate", "-q"]).pg(&t).code(OK);
    let r = ob(["doctor", "--format", "json"]).pg(&t).run();
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(
        doctor_check(&json(&r), "claim plan")["level"],
        "ok",
        "{r:?}"
    );
}

/// With HLC ordering doctor checks the HLC claim index too (the claim's fresh rows are read in
/// its order): ok after `migrate --hlc-ordering`, a fail once it is dropped.
#[tokio::test]
async fn doctor_checks_the_hlc_claim_index() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--hlc-ordering"]).await;
    let doctor = || {
        cmd(
            &schema,
            &["--format", "json", "--hlc-ordering"],
            &["doctor"],
        )
    };
    let level = |r: &crate::common::Run| doctor_check(&json(r), "hlc claim index")["level"].clone();
    let r = doctor();
    assert_eq!((r.code, level(&r)), (OK, "ok".into()), "{r:?}");
    sqlx::raw_sql(&format!("DROP INDEX {}.outbox_claim_hlc_idx", schema.name))
        .execute(&mut conn)
        .await
        .unwrap();
    let r = doctor();
    assert_eq!((r.code, level(&r)), (CHECK_FAILED, "fail".into()), "{r:?}");
}

/// With reclaim off (`reclaim_stale_after: null`) no row is ever reclaimed, so every
/// processing row is reported (a warn), where doctor said none was older than the setting.
#[tokio::test]
async fn doctor_with_reclaim_off_reports_every_processing_row() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 2, None).await;
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET status = 'processing', processing_at = now() - interval '1 day'"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let cfg = crate::common::config_file(test, "relay:\n  reclaim_stale_after: null\n");
    let r = cmd(
        &schema,
        &["--format", "json", "--config", &cfg],
        &["doctor"],
    );
    let v = json(&r);
    let check = doctor_check(&v, "stale processing");
    assert_eq!(check["level"], "warn", "{r:?}");
    assert!(
        check["detail"]
            .as_str()
            .unwrap()
            .contains("2 processing row(s)"),
        "{r:?}"
    );
}

#[tokio::test]
async fn doctor_passes_a_healthy_outbox_and_fails_a_broken_one() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 3, None).await;
    let r = cmd(&schema, &["--format", "json"], &["doctor"]);
    assert_eq!(r.code, OK, "{r:?}");
    let v = json(&r);
    assert_eq!(v["ok"], true);
    // as text, a line a check, each detail starting one space after the longest name
    let names: Vec<&str> = (v["checks"].as_array().unwrap().iter())
        .map(|c| c["check"].as_str().unwrap())
        .collect();
    let width = names.iter().map(|n| n.len()).max().unwrap();
    let r = cmd(&schema, &[], &["doctor"]);
    assert_eq!(r.stdout.lines().count(), names.len(), "{r:?}");
    for (line, name) in r.stdout.lines().zip(&names) {
        assert_eq!(
            line.get(6..width + 7),
            Some(format!("{name:<width$} ").as_str()),
            "{r:?}"
        );
        assert_ne!(line.as_bytes()[width + 7], b' ', "{r:?}");
    }
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET status = 'failed' WHERE (payload->>'n')::int = 1;
         UPDATE {t} SET created_at = now() - interval '1 hour' WHERE (payload->>'n')::int = 2;
         DROP INDEX {}.outbox_claim_idx;",
        schema.name
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = cmd(&schema, &["--format", "json"], &["doctor"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    let v = json(&r);
    let level = |name: &str| doctor_check(&v, name)["level"].clone();
    assert_eq!(level("claim index"), "fail");
    assert_eq!(level("failed rows"), "warn");
    assert_eq!(level("oldest pending"), "fail");
    let said = doctor_check(&v, "oldest pending")["detail"].to_string();
    assert!(
        said.contains("is a relay serving its route"),
        "names where to look: {said}"
    );
    assert_eq!(level("pass statements"), "ok");
    // a relay that propagates traces needs the column migrate adds for it: every pass fails
    let r = cmd(
        &schema,
        &["--format", "json", "--propagate-trace"],
        &["doctor"],
    );
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    let pass = doctor_check(&json(&r), "pass statements")["detail"].clone();
    assert!(pass.as_str().unwrap().contains("traceparent"), "{pass}");
    // and a consume relay that reclaims, the column reclaim reads
    sqlx::raw_sql(&format!("ALTER TABLE {t} DROP COLUMN processing_at"))
        .execute(&mut conn)
        .await
        .unwrap();
    let r = cmd(
        &schema,
        &["--format", "json", "--storage", "consume"],
        &["doctor"],
    );
    let pass = doctor_check(&json(&r), "pass statements")["detail"].clone();
    assert!(
        pass.as_str().unwrap().contains("reclaiming stale rows")
            && pass.as_str().unwrap().contains("processing_at"),
        "{pass}"
    );
}

/// A claim without its function works but is planned on every pass: doctor warns until
/// `migrate` adds it, then says it is there. Each key order has its own function (its body is
/// its claim), so a migrate for best-effort order leaves strict order's missing.
#[tokio::test]
async fn doctor_warns_while_the_claim_has_no_function() {
    let (schema, _conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    let check = |order: &str| {
        let args = ["--format", "json", "--key-order", order];
        let v = json(&cmd(&schema, &args, &["doctor"]));
        let c = doctor_check(&v, "claim function");
        (
            c["level"].clone(),
            c["detail"].as_str().unwrap_or_default().to_owned(),
        )
    };
    let (level, detail) = check("best-effort");
    assert_eq!(level, "ok", "{detail}");
    assert!(detail.contains("planned once per connection"), "{detail}");
    // retain (the default) marks through a function too
    let v = json(&cmd(&schema, &["--format", "json"], &["doctor"]));
    let mark = doctor_check(&v, "mark function");
    assert_eq!(mark["level"], "ok", "{mark}");
    assert!(
        mark["detail"]
            .as_str()
            .unwrap()
            .contains("the mark is a call of"),
        "{mark}"
    );
    let (level, detail) = check("strict");
    assert_eq!(level, "warn", "{detail}");
    assert!(detail.contains("run outboxctl migrate"), "{detail}");
    migrate(&schema, &["--key-order", "strict"]).await;
    let (level, detail) = check("strict");
    assert_eq!(level, "ok", "{detail}");
    assert!(detail.contains("planned once per connection"), "{detail}");
}

/// What `migrate` leaves as it is fails doctor's schema check with the fix it needs (a column
/// of another type: the relay cannot read the rows; doctor said ok), and rows whose columns do
/// not decode as the contract's types are read without a panic: `created_at` without a time
/// zone (doctor and inspect panicked, exit 101), a checkpoint's negative mark (hidden by
/// `hlc show`, ok in doctor), a table that is not an outbox (doctor stopped, exit 2, no checks).
#[tokio::test]
async fn doctor_fails_what_migrate_leaves_and_reads_odd_columns_without_a_panic() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let cp = schema.rel("hlc_checkpoint");
    let flags = ["--format", "json", "--hlc-checkpoint", &cp];
    migrate(&schema, &flags[2..]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 2, None).await;
    let r = cmd(&schema, &flags, &["doctor"]);
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(
        details(&json(&r), "schema"),
        ["ok as migrate would make it"]
    );
    sqlx::raw_sql(&format!(
        "ALTER TABLE {t} ALTER attempts TYPE bigint, ALTER created_at TYPE timestamp;
         INSERT INTO {cp} (node_key, hlc) VALUES ('neg', -1)"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = cmd(&schema, &flags, &["doctor"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    let v = json(&r);
    let schema_lines = details(&v, "schema");
    assert!(
        schema_lines.iter().any(|l| l.starts_with("fail")
            && l.contains("column attempts is bigint, expected integer")
            && l.contains("fix it by hand")),
        "{schema_lines:?}"
    );
    let mark = details(&v, "hlc mark");
    assert!(
        mark.iter()
            .any(|l| l.starts_with("fail") && l.contains("(node_key \"neg\": hlc -1)")),
        "{mark:?}"
    );
    assert_eq!(doctor_check(&v, "oldest pending")["level"], "ok", "{v}");
    let r = cmd(&schema, &["--format", "json"], &["inspect"]);
    assert_eq!(r.code, OK, "{r:?}");
    let r = cmd(&schema, &flags[2..], &["hlc", "show"]);
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("not a packed HLC stamp"), "{r:?}");
    // a claim index made again on other columns under its name: migrate leaves it, and doctor
    // says to drop it first (it said to run migrate, which changes nothing)
    sqlx::raw_sql(&format!(
        "DROP INDEX {}.outbox_claim_idx; CREATE INDEX outbox_claim_idx ON {t} (status)",
        schema.name
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let claim = details(&json(&cmd(&schema, &flags, &["doctor"])), "claim index");
    assert!(
        claim.len() == 1 && claim[0].contains("outbox_claim_idx is USING btree (status): drop it"),
        "{claim:?}"
    );
    // an application's table named by mistake: doctor says what it is, check by check
    let app = schema.rel("orders");
    sqlx::raw_sql(&format!("CREATE TABLE {app} (id bigint PRIMARY KEY)"))
        .execute(&mut conn)
        .await
        .unwrap();
    let r = ob(["doctor", "--format", "json"]).pg(&app).run();
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    let schema_lines = details(&json(&r), "schema");
    assert!(
        schema_lines
            .iter()
            .any(|l| l.contains("is not an outbox table")),
        "{schema_lines:?}"
    );
}
