//! The retain → consume move on PostgreSQL: refused steps, every tenant's table, a slow recheck.

use super::*;

/// This configuration's reclaim off (forze's relays are the operator's to vouch for).
pub(super) const RECLAIM_OFF: &str = "relay:\n  reclaim_stale_after: null\n";

/// Step 3's dry run, vouching that every relay runs with reclaim off.
pub(super) const STEP_3_DRY: [&str; 6] = [
    "storage",
    "to-consume",
    "--step",
    "3",
    "--dry-run",
    "--reclaim-disabled",
];

#[tokio::test]
async fn to_consume_refuses_step_3_while_rows_remain_then_leaves_a_consume_table() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &[]).await;
    // the relays' configuration, as step 3 is run with
    let off = crate::common::config_file(test_name!(), RECLAIM_OFF);
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 6, None).await;
    sqlx::raw_sql(&format!(
        "CREATE INDEX outbox_processing_idx ON {t} (outbox_route, status, processing_at);
         CREATE INDEX outbox_unpublished_idx ON {t} (created_at) WHERE published_at IS NULL;
         CREATE INDEX outbox_age_idx ON {t} ((coalesce(published_at, created_at)));
         UPDATE {t} SET status = 'processing', processing_at = now() WHERE (payload->>'n')::int = 1;
         UPDATE {t} SET status = 'published', published_at = now() WHERE (payload->>'n')::int = 2;"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = cmd(&schema, &["--format", "json"], &["storage", "status"]);
    let v = json(&r);
    assert_eq!(
        (
            v["processing"].as_i64(),
            v["published"].as_i64(),
            v["next_step"].as_i64()
        ),
        (Some(1), Some(1), Some(2))
    );
    assert_eq!(
        v["indexes_on_dropped_columns"],
        serde_json::json!([
            "outbox_age_idx",
            "outbox_processing_idx",
            "outbox_unpublished_idx"
        ]),
        "indexes on the columns, in expressions and in predicates"
    );
    let r = cmd(
        &schema,
        &["--yes", "--reclaim-disabled"],
        &["storage", "to-consume", "--step", "3"],
    );
    assert_eq!(r.code, REFUSED, "{r:?}");
    assert!(
        r.stderr.contains("processing") && r.stderr.contains("published"),
        "{r:?}"
    );
    let r = cmd(&schema, &[], &["storage", "to-consume", "--step", "2"]);
    assert_eq!(r.code, REFUSED, "{r:?}");
    // the relays drain and the retention job prunes
    sqlx::raw_sql(&format!("UPDATE {t} SET status = 'pending', processing_at = NULL WHERE status = 'processing'; DELETE FROM {t} WHERE status = 'published'"))
        .execute(&mut conn)
        .await
        .unwrap();
    // this configuration still says retain (the default): its claim writes processing_at
    let r = cmd(
        &schema,
        &["--yes", "--reclaim-disabled"],
        &["storage", "to-consume", "--step", "3"],
    );
    assert_eq!(r.code, REFUSED, "storage: retain: {r:?}");
    assert!(r.stderr.contains("--storage consume"), "{r:?}");
    let r = cmd(
        &schema,
        &["--yes", "--storage", "consume"],
        &["storage", "to-consume", "--step", "3"],
    );
    assert_eq!(r.code, REFUSED, "reclaim still on: {r:?}");
    assert!(r.stderr.contains("reclaim"), "{r:?}");
    assert!(!r.stderr.contains("storage: retain"), "{r:?}");
    let r = cmd(
        &schema,
        &["--yes", "--reclaim-disabled"],
        &["storage", "to-consume", "--step", "3", "--dry-run"],
    );
    assert!(
        r.stdout
            .contains("DROP COLUMN processing_at, DROP COLUMN published_at"),
        "{r:?}"
    );
    // a dry run exits as the step would: refused, naming why, with the script still printed
    assert_eq!(r.code, REFUSED, "{r:?}");
    assert!(
        r.stderr.contains("step 3 would be refused now") && r.stderr.contains("storage: retain"),
        "{r:?}"
    );
    // the flag vouches for every relay, but this configuration's own reclaim is on
    let r = cmd(
        &schema,
        &["--yes", "--reclaim-disabled", "--storage", "consume"],
        &["storage", "to-consume", "--step", "3"],
    );
    assert_eq!(r.code, REFUSED, "this configuration's reclaim: {r:?}");
    assert!(r.stderr.contains("relay.reclaim_stale_after: 5m"), "{r:?}");
    let r = cmd(
        &schema,
        &[
            "--reclaim-disabled",
            "--storage",
            "consume",
            "--config",
            &off,
        ],
        &["storage", "to-consume", "--step", "3"],
    );
    assert_eq!(r.code, REFUSED, "no --yes without a terminal: {r:?}");
    assert!(r.stderr.contains("--yes"), "{r:?}");
    let r = cmd(
        &schema,
        &["--reclaim-disabled", "--format", "json"],
        &["storage", "to-consume", "--step", "3", "--dry-run"],
    );
    assert_eq!(r.code, REFUSED, "{r:?}");
    let v = json(&r);
    assert_eq!(
        (v["step"].as_i64(), v["done"].as_bool()),
        (Some(3), Some(false)),
        "{r:?}"
    );
    assert!(!v["blocked"].as_array().unwrap().is_empty(), "{r:?}");
    assert!(
        v["script"]
            .as_str()
            .unwrap_or_default()
            .contains("DROP COLUMN processing_at"),
        "{r:?}"
    );
    let ready = [
        "--reclaim-disabled",
        "--storage",
        "consume",
        "--format",
        "json",
        "--config",
        &off,
    ];
    let r = cmd(
        &schema,
        &ready,
        &["storage", "to-consume", "--step", "3", "--dry-run"],
    );
    assert_eq!(r.code, OK, "nothing blocks step 3 now: {r:?}");
    let v = json(&r);
    assert_eq!(
        (v["blocked"].is_null(), v["next"].as_str()),
        (true, Some("run step 3 without --dry-run")),
        "{r:?}"
    );
    // what it would drop, not under `dropped` (a script read that as done)
    assert!(v.get("dropped").is_none(), "{r:?}");
    let columns = &v["would_drop"][0]["columns"];
    assert_eq!(
        columns,
        &serde_json::json!(["processing_at", "published_at"]),
        "{r:?}"
    );
    let r = cmd(
        &schema,
        &[&["--yes"][..], &ready].concat(),
        &["storage", "to-consume"],
    );
    assert_eq!(r.code, OK, "{r:?}");
    let v = json(&r);
    assert_eq!(
        (v["step"].as_i64(), v["done"].as_bool()),
        (Some(3), Some(true)),
        "{r:?}"
    );
    assert_eq!(
        v["dropped"][0]["columns"],
        serde_json::json!(["processing_at", "published_at"]),
        "{r:?}"
    );
    assert!(
        !r.stdout.contains("dropped:"),
        "JSON alone on stdout: {r:?}"
    );
    let r = cmd(&schema, &["--format", "json"], &["storage", "to-consume"]);
    assert_eq!(
        (json(&r)["step"].clone(), json(&r)["done"].as_bool()),
        (Value::Null, Some(true)),
        "{r:?}"
    );
    // a step asked for on a consume-only table: none is left, whichever it is (step 2 said
    // "step 2 done … then --step 3")
    let step_2 = ["storage", "to-consume", "--step", "2"];
    let r = cmd(&schema, &["--format", "json"], &step_2);
    assert_eq!(json(&r)["step"], Value::Null, "{r:?}");
    let cols: Vec<String> = sqlx::query_scalar("SELECT attname::text FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped")
        .bind(&t)
        .fetch_all(&mut conn)
        .await
        .unwrap();
    assert!(!cols.contains(&"processing_at".into()) && !cols.contains(&"published_at".into()));
    let r = cmd(&schema, &["--format", "json"], &["storage", "status"]);
    assert_eq!(json(&r)["next_step"], Value::Null);
    // the consume relay serves the table
    // reclaim reads processing_at: with it on, every pass now fails, as the specification
    // warns; a one-shot drain says so as the setup's error (exit 2), and what to set (it
    // said to run migrate, which refuses a retain configuration here)
    let fix = "run with outbox.storage: consume and relay.reclaim_stale_after: null";
    let r = cmd(&schema, &["--storage", "consume"], &RELAY_TO_NOWHERE);
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(
        r.stderr.contains("processing_at") && r.stderr.contains(fix),
        "{r:?}"
    );
    // the configuration that did not move (retain): relay, doctor and status say the same
    let r = cmd(&schema, &[], &RELAY_TO_NOWHERE);
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(
        r.stderr.contains(fix) && !r.stderr.contains("migrate`"),
        "{r:?}"
    );
    let r = cmd(&schema, &[], &["doctor"]);
    let line = r.stdout.lines().find(|l| l.contains("pass statements"));
    assert!(line.is_some_and(|l| l.contains(fix)), "{r:?}");
    let r = cmd(&schema, &[], &["storage", "status"]);
    let mismatch = "mismatch:         this configuration (storage: retain, or reclaim on)";
    assert!(r.stdout.contains(mismatch), "{r:?}");
    // and to a script: the JSON left it out
    let r = cmd(&schema, &["--format", "json"], &["storage", "status"]);
    let said = json(&r)["mismatch"].as_str().map(str::to_owned);
    assert!(
        said.is_some_and(|m| m.starts_with("this configuration (storage: retain")),
        "{r:?}"
    );
    let cfg = std::env::temp_dir()
        .join("outboxctl-tests")
        .join(format!("{}.yaml", schema.name));
    std::fs::write(&cfg, "relay:\n  reclaim_stale_after: null\n").unwrap();
    let cfg = cfg.to_str().unwrap();
    let r = cmd(
        &schema,
        &["--storage", "consume", "--format", "json", "--config", cfg],
        &RELAY_TO_NOWHERE,
    );
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(json(&r)[0]["published"], 5);
    let left = count(&mut conn, &format!("SELECT count(*) FROM {t}")).await;
    assert_eq!(left, 0);
}

/// With a per-tenant relation every configured tenant's table is checked: a processing row in
/// the second tenant's table refuses step 3 for all (naming that table), and nothing is dropped.
#[tokio::test]
async fn storage_checks_every_tenants_table() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let [a, b] = TENANTS;
    let relation = format!("{}.outbox_{{tenant}}", schema.name);
    let with = tenants_config(test, &relation, RECLAIM_OFF);
    assert_eq!(with(&["migrate"]).code, OK);
    let table_b = format!("{}.outbox_{}", schema.name, b.replace('-', ""));
    stage(&mut conn, &table_b, "orders", 2, None).await;
    sqlx::raw_sql(&format!(
        "UPDATE {table_b} SET status = 'processing', processing_at = now()"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = with(&["storage", "status", "--format", "json"]);
    assert_eq!(r.code, OK, "{r:?}");
    let v = json(&r);
    let tables = v.as_array().expect("one status per tenant");
    assert_eq!(tables.len(), 2);
    assert_eq!(tables[0]["tenant"], a);
    assert_eq!(tables[0]["next_step"], 3);
    assert_eq!(
        (
            tables[1]["tenant"].as_str(),
            tables[1]["processing"].as_i64()
        ),
        (Some(b), Some(2))
    );
    let r = with(&[
        "storage",
        "to-consume",
        "--step",
        "3",
        "--yes",
        "--reclaim-disabled",
        "--storage",
        "consume",
    ]);
    assert_eq!(r.code, REFUSED, "{r:?}");
    assert!(
        r.stderr.contains(&table_b),
        "names the blocked table: {r:?}"
    );
    let columns_left = format!(
        "SELECT count(*) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = '{}' AND a.attname = 'processing_at' AND NOT a.attisdropped",
        schema.name
    );
    assert_eq!(
        count(&mut conn, &columns_left).await,
        2,
        "both tables keep their columns"
    );
    // its --dry-run script, run as its first lines say, refuses before it drops anything too
    // (it dropped the first table's columns, then refused on the second)
    let consume_json = ["--storage", "consume", "--format", "json"];
    let r = with(&[&STEP_3_DRY[..], &consume_json].concat());
    assert_eq!(r.code, REFUSED, "{r:?}");
    let script = json(&r)["script"].as_str().unwrap().to_owned();
    let err = sqlx::raw_sql(&script).execute(&mut conn).await.unwrap_err();
    assert!(
        err.to_string()
            .contains(&format!("processing or published rows remain in {table_b}")),
        "{err}"
    );
    assert_eq!(count(&mut conn, &columns_left).await, 2, "{script}");
    // once the second table is clean too, step 3 drops the columns of both
    sqlx::raw_sql(&format!(
        "UPDATE {table_b} SET status = 'pending', processing_at = NULL"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let r = with(&[
        "storage",
        "to-consume",
        "--step",
        "3",
        "--yes",
        "--reclaim-disabled",
        "--storage",
        "consume",
    ]);
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(
        r.stdout
            .matches("dropped: processing_at, published_at")
            .count(),
        2,
        "{r:?}"
    );
}

/// One table that several tenants share is one table to move: its status once, step 3 drops
/// its columns once and exits 0 (it used to try each tenant's "table" and fail on the second).
#[tokio::test]
async fn a_table_tenants_share_is_moved_once() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let with = tenants_config(test, &schema.rel("outbox"), RECLAIM_OFF);
    assert_eq!(with(&["migrate"]).code, OK);
    let r = with(&["storage", "status", "--format", "json"]);
    assert_eq!(r.code, OK, "{r:?}");
    let v = json(&r);
    assert!(v.is_object(), "one status, not one per tenant: {v}");
    assert_eq!(v["tenant"], Value::Null, "{v}");
    let r = with(&STEP_3_DRY);
    assert_eq!(r.code, REFUSED, "this configuration says retain: {r:?}");
    assert_eq!(
        r.stdout.matches("DROP COLUMN processing_at").count(),
        1,
        "{r:?}"
    );
    let step3 = [
        "storage",
        "to-consume",
        "--step",
        "3",
        "--yes",
        "--reclaim-disabled",
        "--storage",
        "consume",
    ];
    // this configuration's reclaim is off, but forze's relays are the operator's to vouch for
    let r = with(&step3[..5]);
    assert_eq!(r.code, REFUSED, "{r:?}");
    assert!(r.stderr.contains("pass --reclaim-disabled"), "{r:?}");
    let r = with(&step3);
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(
        r.stdout
            .matches("dropped: processing_at, published_at")
            .count(),
        1,
        "{r:?}"
    );
    let left = count(
        &mut conn,
        &format!(
            "SELECT count(*) FROM pg_attribute WHERE attrelid = '{}'::regclass AND attname IN ('processing_at', 'published_at') AND NOT attisdropped",
            schema.rel("outbox")
        ),
    )
    .await;
    assert_eq!(left, 0);
}

/// Step 1's dry run confirms nothing and asks nothing (it wanted a terminal, exit 5); step 3
/// names outboxctl's relays live on the outbox, whose storage it cannot see (it dropped the
/// columns under a retain relay without a word), and with reclaim off, says nothing returns a
/// processing row (it said reclaim did).
#[tokio::test]
async fn step_1s_dry_run_confirms_nothing_and_step_3_names_the_live_relays() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let r = cmd(
        &schema,
        &["--format", "json"],
        &["storage", "to-consume", "--step", "1", "--dry-run"],
    );
    assert_eq!(r.code, OK, "{r:?}");
    let v = json(&r);
    assert_eq!(
        (v["step"].as_i64(), v["done"].as_bool()),
        (Some(1), Some(false)),
        "{r:?}"
    );
    let r = cmd(
        &schema,
        &[],
        &["storage", "to-consume", "--step", "1", "--dry-run"],
    );
    assert_eq!(r.code, OK, "{r:?}");
    assert!(r.stdout.contains("step 1: deploy every relay"), "{r:?}");
    assert!(r.stderr.contains("dry run: nothing confirmed"), "{r:?}");
    // run with a configuration still on retain: said (it confirmed without a word)
    assert!(
        r.stderr.contains("this configuration says storage: retain"),
        "{r:?}"
    );
    let r = cmd(
        &schema,
        &["--storage", "consume"],
        &["storage", "to-consume", "--step", "1", "--dry-run"],
    );
    assert!(!r.stderr.contains("says storage: retain"), "{r:?}");
    // migrate made retain's functions: the consume relays' claim function is said missing
    let missing = "the consume claim's function";
    assert!(r.stderr.contains(missing), "{r:?}");
    assert!(
        r.stderr
            .contains("run outboxctl migrate with this configuration"),
        "{r:?}"
    );
    migrate(&schema, &["--storage", "consume"]).await;
    let r = cmd(
        &schema,
        &["--storage", "consume"],
        &["storage", "to-consume", "--step", "1", "--dry-run"],
    );
    assert_eq!(r.code, OK, "{r:?}");
    assert!(!r.stderr.contains(missing), "{r:?}");
    stage(&mut conn, &t, "orders", 3, None).await;
    let processing = format!("UPDATE {t} SET status = 'processing', processing_at = now()");
    sqlx::raw_sql(&processing).execute(&mut conn).await.unwrap();
    let off = crate::common::config_file(test, RECLAIM_OFF);
    let step3 = ["storage", "to-consume", "--step", "3", "--dry-run"];
    let consume = [
        "--reclaim-disabled",
        "--storage",
        "consume",
        "--config",
        &off,
    ];
    let r = cmd(&schema, &consume, &step3);
    assert!(
        r.stderr.contains("with reclaim off nothing returns them"),
        "{r:?}"
    );
    sqlx::raw_sql(&format!("DELETE FROM {t}"))
        .execute(&mut conn)
        .await
        .unwrap();
    // a relay of the old configuration, live
    let log = out_file(test).with_extension("log");
    let relay_to_null = [
        "relay",
        "--loop",
        "--route",
        "orders",
        "--to",
        "file:/dev/null",
    ];
    let relay = ob(relay_to_null).pg(&t).spawn(Some(&log));
    crate::common::eventually(
        std::time::Duration::from_secs(30),
        "the relay registered",
        async || {
            let r = cmd(&schema, &["--format", "json"], &["inspect", "relays"]);
            match json(&r)
                .as_array()
                .map(|a| a.iter().any(|x| x["state"] == "live"))
            {
                Some(true) => Ok(()),
                _ => Err(format!("{r:?}")),
            }
        },
    )
    .await;
    let r = cmd(
        &schema,
        &[&consume[..], &["--format", "json"]].concat(),
        &step3,
    );
    assert_eq!(r.code, OK, "{r:?}");
    let host = outboxctl::store::registry::host_name();
    let named = format!(
        "1 outboxctl relay(s) are live on this outbox: {host} pid {}",
        relay.pid()
    );
    assert!(r.stderr.contains(&named), "{named}: {r:?}");
    let warnings = json(&r)["warnings"].to_string();
    assert!(warnings.contains(&named), "{r:?}");
    // dropped under it: its passes fail, and say why and what to do
    let r = cmd(&schema, &[&consume[..], &["--yes"]].concat(), &step3[..4]);
    assert_eq!(r.code, OK, "{r:?}");
    let hint = "the table has no processing_at: it is consume-only";
    crate::common::wait_log(&log, hint, 1).await;
    let once = [
        "relay",
        "--once",
        "--route",
        "orders",
        "--to",
        "file:/dev/null",
    ];
    let r = ob(once).pg(&t).code(ERROR);
    assert!(r.stderr.contains(hint), "{r:?}");
    drop(relay);
}

/// What else depends on the retain columns (a view, a trigger on one of them) blocks step 3,
/// which never drops with `CASCADE`: `status` names them, and step 3's dry run is refused as
/// step 3 would be (it said go, exit 0, and step 3 then failed on the `ALTER`, exit 2).
#[tokio::test]
async fn step_3_is_blocked_by_what_depends_on_the_retain_columns() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let (t, s) = (schema.rel("outbox"), &schema.name);
    sqlx::raw_sql(&format!(
        "CREATE VIEW {s}.late AS SELECT id, published_at FROM {t};
         CREATE TRIGGER touched BEFORE UPDATE OF processing_at ON {t}
           FOR EACH ROW EXECUTE FUNCTION suppress_redundant_updates_trigger();"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let off = crate::common::config_file(test, RECLAIM_OFF);
    let consume = ["--storage", "consume", "--config", &off];
    let r = cmd(
        &schema,
        &[&consume[..], &["--format", "json"]].concat(),
        &["storage", "status"],
    );
    let v = json(&r);
    let depending = serde_json::json!([
        format!("trigger touched on table {t}"),
        format!("view {s}.late")
    ]);
    assert_eq!(v["depending_on_dropped_columns"], depending, "{r:?}");
    let r = cmd(&schema, &consume, &STEP_3_DRY);
    assert_eq!(r.code, REFUSED, "{r:?}");
    let blocked = format!("view {s}.late depend(s) on processing_at or published_at");
    assert!(
        r.stderr.contains(&blocked) && r.stderr.contains("never drops with CASCADE"),
        "{r:?}"
    );
    let step_3 = [
        "storage",
        "to-consume",
        "--step",
        "3",
        "--reclaim-disabled",
        "--yes",
    ];
    let r = cmd(&schema, &consume, &step_3);
    assert_eq!(r.code, REFUSED, "{r:?}");
    let columns = format!(
        "SELECT count(*) FROM pg_attribute WHERE attrelid = '{t}'::regclass AND attname = 'processing_at' AND NOT attisdropped"
    );
    assert_eq!(count(&mut conn, &columns).await, 1, "nothing dropped");
    sqlx::raw_sql(&format!("DROP VIEW {s}.late; DROP TRIGGER touched ON {t}"))
        .execute(&mut conn)
        .await
        .unwrap();
    assert_eq!(cmd(&schema, &consume, &STEP_3_DRY).code, OK);
}
