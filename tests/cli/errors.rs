//! Bad input: one-line errors, documented exit codes, nothing changed, no password printed.

use crate::common::{CHECK_FAILED, CONNECT, ERROR, PgSchema, ob, pg_url};

#[test]
fn unsupported_url_scheme_exits_2_and_masks_the_password() {
    let r = ob(["migrate", "--database-url", "mysql://root:Hunter2Pw@db/x"]).run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("mysql://root:****@db/x"), "{r:?}");
    assert!(!r.stderr.contains("Hunter2Pw") && !r.stdout.contains("Hunter2Pw"));
    assert_eq!(r.stderr.lines().count(), 1, "one line: {r:?}");
    // libpq's key=value form, refused: it was said with its password
    let keywords = "host=127.0.0.1 user=postgres password=Hunter2Pw dbname=test";
    let r = ob(["inspect", "--database-url", keywords]).run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("password=**** dbname=test"), "{r:?}");
    assert!(!r.stderr.contains("Hunter2Pw") && !r.stdout.contains("Hunter2Pw"));
}

#[test]
fn unreachable_postgres_exits_3_without_the_password() {
    let r = ob([
        "migrate",
        "--connect-timeout",
        "2s",
        "--database-url",
        "postgres://app:S3cretPw@127.0.0.1:1/test",
    ])
    .run();
    assert_eq!(r.code, CONNECT, "{r:?}");
    assert!(
        r.stderr
            .contains("cannot connect to postgres://app:****@127.0.0.1:1/test"),
        "{r:?}"
    );
    assert!(
        !r.stderr.contains("S3cretPw") && !r.stdout.contains("S3cretPw"),
        "{r:?}"
    );
    // a password given as a query parameter, as libpq and sqlx take one
    let r = ob(["relay", "--once", "--route", "orders", "--to", "stdout"])
        .args(["--connect-timeout", "2s", "--database-url"])
        .args(["postgres://app@127.0.0.1:1/test?password=S3cretPw"])
        .run();
    assert_eq!(r.code, CONNECT, "{r:?}");
    assert!(r.stderr.contains("password=****"), "{r:?}");
    assert!(!r.stderr.contains("S3cretPw"), "{r:?}");
}

/// A password with a raw `#`, `/` or `?`, or PostgreSQL's several hosts: exit 2 with what to
/// change, on one line, before any connection (the drivers said "invalid port number", and
/// MongoDB's error came with its `labels: {}, source: None`).
#[test]
fn an_unreadable_url_says_what_to_change() {
    let cases = [
        (
            "postgres://app:Se/cRet9@127.0.0.1:5432/test",
            "percent-encode",
        ),
        ("mongodb://app:Se/cRet9@127.0.0.1:27018/", "percent-encode"),
        (
            "postgres://app:Se-cRet9@db1:5432,db2:5432/test",
            "several hosts",
        ),
        // URLs that parse, but not as written: a host list, a password cut at a raw / # or ?
        // (the driver dialled the user as a host, exit 3, and named no fix)
        ("postgres://app:Se-cRet9@db1,db2/test", "several hosts"),
        ("postgres://app:1234/cRet9@127.0.0.1/test", "percent-encode"),
        ("postgres://app:1234#cRet9@127.0.0.1/test", "percent-encode"),
        ("postgres://app:99?cRet9@127.0.0.1/test", "percent-encode"),
    ];
    for (url, fix) in cases {
        let r = ob(["inspect", "--database-url", url]).run();
        assert_eq!(r.code, ERROR, "{url}: {r:?}");
        assert_eq!(r.stderr.lines().count(), 1, "one line: {r:?}");
        assert!(r.stderr.contains("invalid database URL"), "{r:?}");
        assert!(
            r.stderr.contains(fix) && !r.stderr.contains("labels:"),
            "{r:?}"
        );
        assert!(!r.stderr.contains("cRet9"), "{r:?}");
    }
}

/// A `mongodb+srv://` name that does not resolve is the database out of reach (exit 3), as a
/// host that does not resolve is; it exited 2, "invalid database URL", and cron read a DNS blip
/// as a configuration to fix.
#[test]
fn an_srv_name_that_does_not_resolve_exits_3() {
    let r = ob(["migrate", "--connect-timeout", "3s", "--database-url"])
        .args(["mongodb+srv://app:S3cretPw@nosuch.invalid/"])
        .run();
    assert_eq!(r.code, CONNECT, "{r:?}");
    assert!(r.stderr.contains("cannot connect to"), "{r:?}");
    assert!(!r.stderr.contains("S3cretPw"), "{r:?}");
}

#[test]
fn unreachable_mongo_exits_3_without_the_password() {
    let r = ob([
        "migrate",
        "--connect-timeout",
        "1s",
        "--database-url",
        "mongodb://app:S3cretPw@127.0.0.1:1/?directConnection=true",
    ])
    .run();
    assert_eq!(r.code, CONNECT, "{r:?}");
    assert!(r.stderr.contains("mongodb://app:****@127.0.0.1:1"), "{r:?}");
    // the cause, not the driver's dump of its topology
    assert!(
        r.stderr
            .contains("no MongoDB server to talk to (127.0.0.1:1: ")
            && !r.stderr.contains("Topology"),
        "{r:?}"
    );
    assert!(
        !r.stderr.contains("S3cretPw") && !r.stdout.contains("S3cretPw"),
        "{r:?}"
    );
}

#[test]
fn missing_database_exits_3_with_a_hint() {
    let url = pg_url()
        .rsplit_once('/')
        .map(|(base, _)| format!("{base}/no_such_db_outboxctl"))
        .unwrap();
    let r = ob(["migrate", "--database-url", &url]).run();
    assert_eq!(r.code, CONNECT, "{r:?}");
    assert!(r.stderr.contains("database name"), "{r:?}");
}

#[test]
fn no_database_url_says_how_to_give_one() {
    let r = ob(["migrate"]).run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(
        r.stderr.contains("--database-url") && r.stderr.contains("OUTBOXCTL_DATABASE_URL"),
        "{r:?}"
    );
    // the file it read is the one named (it named outboxctl.yaml whatever --config said)
    let cfg = crate::common::config_file(test_name!(), "relay:\n  interval: 1s\n");
    let r = ob(["migrate"]).config(&cfg).run();
    assert!(
        r.stderr.contains(&format!("add database_url to {cfg}")),
        "{r:?}"
    );
}

#[test]
fn unknown_config_key_names_key_and_line() {
    let dir = std::env::temp_dir().join(crate::common::unique_name("unknown_config_key"));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("outboxctl.yaml");
    std::fs::write(
        &path,
        "outbox:\n  relation: app.outbox\n  stroage: consume\n",
    )
    .unwrap();
    let r = ob(["schema", "print", "--config", path.to_str().unwrap()]).run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(
        r.stderr.contains("stroage") && r.stderr.contains("line 3"),
        "{r:?}"
    );
    // The same file found in the working directory, without --config.
    ob(["schema", "print"]).dir(&dir).code(ERROR);
    std::fs::remove_dir_all(&dir).unwrap();
    // a list where a mapping goes is said in the file's terms (serde named its own struct)
    for (name, text) in [("list", "- a\n"), ("section", "relay: ~\n")] {
        let cfg = crate::common::config_file(&format!("{}_{name}", test_name!()), text);
        let r = ob(["schema", "print"]).config(&cfg).code(ERROR);
        assert!(r.stderr.contains("expected a mapping of keys"), "{r:?}");
        assert!(!r.stderr.contains("struct"), "{r:?}");
    }
}

#[tokio::test]
async fn missing_privileges_exit_2_with_a_hint_and_change_nothing() {
    let (schema, mut conn) = PgSchema::absent(test_name!()).await;
    let role = format!("{}_role", schema.name);
    sqlx::raw_sql(&format!(
        "DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let url = pg_url().replace("postgres@", &format!("{role}@"));
    let r = ob([
        "migrate",
        "--database-url",
        &url,
        "--relation",
        &schema.rel("outbox"),
    ])
    .run();
    sqlx::raw_sql(&format!("DROP ROLE {role}"))
        .execute(&mut conn)
        .await
        .unwrap();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("permission denied"), "{r:?}");
    // the grant it lacks, named (the hint was the same whatever was missing)
    assert!(
        r.stderr.contains("this role needs CREATE on database ")
            && r.stderr.contains(" to create a schema"),
        "{r:?}"
    );
    let exists: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)")
            .bind(&schema.name)
            .fetch_one(&mut conn)
            .await
            .unwrap();
    assert!(!exists);
}

#[test]
fn partitions_check_dry_run_without_fix_is_refused_before_connecting() {
    let r = ob([
        "partitions",
        "check",
        "--dry-run",
        "--connect-timeout",
        "2s",
        "--database-url",
        "postgres://postgres@127.0.0.1:1/test",
        "--storage",
        "consume",
        "--delivery-log",
        "app.delivery_log",
    ])
    .run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(
        r.stderr.contains("required arguments were not provided"),
        "{r:?}"
    );
    assert!(r.stderr.contains("--fix"), "{r:?}");
    assert!(!r.stderr.contains("cannot connect"), "{r:?}");
}

/// A `--route` the configured routes lack (a typo, another `--config`) would have gone to
/// stdout and been consumed there: refused before any I/O unless `--to` says where. Commas
/// separate routes.
#[test]
fn relay_refuses_a_route_the_configuration_lacks_unless_told_where() {
    let cfg = crate::common::config_file(
        "relay_unknown_route",
        "relay:\n  routes:\n    orders:\n      to: stdout\n    billing:\n      to: stdout\n",
    );
    // nothing listens there: a refusal after connecting would exit 3
    let url = "postgres://app:Pw1234@127.0.0.1:1/app";
    for routes in ["ordres", "orders,ordres"] {
        let r = ob(["relay", "--once", "--route", routes, "--database-url", url])
            .config(&cfg)
            .run();
        assert_eq!(r.code, ERROR, "{r:?}");
        assert!(
            r.stderr
                .contains("route ordres is not in relay.routes (billing, orders)"),
            "{r:?}"
        );
    }
    let r = ob(["relay", "--once", "--route", "ordres", "--to", "stdout"])
        .args(["--database-url", url])
        .config(&cfg)
        .run();
    assert_eq!(r.code, CONNECT, "--to says where: {r:?}");
    // an empty name (a variable not set in a script) is no route, refused before any I/O
    for routes in ["", "orders,"] {
        let r = ob(["relay", "--once", "--route", routes, "--to", "stdout"])
            .args(["--database-url", url])
            .config(&cfg)
            .run();
        assert_eq!(r.code, ERROR, "{routes:?}: {r:?}");
        assert!(r.stderr.contains("a route name is never empty"), "{r:?}");
    }
}

/// A destination `--to` gave is named `--to` in its errors, not a `relay.routes` key the
/// operator never wrote: here before any I/O, the URL itself being wrong (once connected:
/// `relay_pg::cli`).
#[test]
fn relay_names_to_in_the_errors_of_its_destination() {
    let url = "postgres://app:Pw1234@127.0.0.1:1/app";
    let r = ob(["relay", "--once", "--route", "orders", "--to", "bogus://x"])
        .args(["--database-url", url])
        .run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(
        r.stderr
            .contains("--to: destination \"bogus://x\" is not supported"),
        "{r:?}"
    );
}

/// `Debug` of what carries a URL as given (the flags, the file, a relay's request, a route's
/// planned destination, the resolved configuration) never shows its password: a library caller
/// that logs one with `{:?}` leaks nothing.
#[test]
fn debug_never_shows_a_password() {
    let yaml = "database_url: postgres://app:s3cret@db/app\nrelay:\n  wake: notify\n  wake_url: postgres://relay:s3cret@db/app\n  routes:\n    orders:\n      to: amqp://guest:s3cret@mq:5672/%2f\n";
    let file = outboxctl::config::FileConfig::parse("t.yaml", yaml).unwrap();
    let o = outboxctl::config::Overrides {
        database_url: Some("postgres://flag:s3cret@db/app".into()),
        ..Default::default()
    };
    let request = outboxctl::relay::assemble::RelayRequest {
        to: Some("redis://:s3cret@cache:6379".into()),
        ..Default::default()
    };
    let shown = [
        format!("{file:?}"),
        format!("{o:?}"),
        format!("{request:?}"),
    ];
    let c = outboxctl::config::Config::resolve(file, None, &o, &|_| None).unwrap();
    let route = &c.relay.routes["orders"];
    let (spec, _) = outboxctl::destination::plan("orders", route).unwrap();
    for text in shown
        .into_iter()
        .chain([format!("{c:?}"), format!("{spec:?}")])
    {
        assert!(!text.contains("s3cret"), "{text}");
        assert!(text.contains("****"), "masked, not dropped: {text}");
    }
}

/// `RUST_LOG=trace` shows the broker clients' own lines, never a password: async_nats traced
/// its CONNECT (user and pass) and logged its URL at debug.
#[tokio::test]
async fn trace_logs_never_show_a_brokers_password() {
    let (schema, _conn) = PgSchema::new(test_name!()).await;
    crate::common::migrate(&schema, &[]).await;
    let to = "nats://u:s3cret@127.0.0.1:4222";
    let r = (ob(["relay", "--once", "--route", "orders", "--to", to]))
        .pg(&schema.rel("outbox"))
        .env("RUST_LOG", "trace")
        .run();
    assert!(r.stderr.contains("TRACE"), "trace lines are shown: {r:?}");
    assert!(!r.stderr.contains("s3cret"), "{r:?}");
}

/// A PostgreSQL URL's parameter the driver does not read is named in a warning, never valued:
/// sqlx logged `ignoring unrecognized connect parameter key=sslpassword value=…` in plain text
/// at every connection.
#[test]
fn a_parameter_the_driver_does_not_read_is_named_without_its_value() {
    let url = "postgres://app@127.0.0.1:1/app?sslpassword=Qwerty9&PassWord=Zx98w&sslmode=disable";
    let r = ob(["inspect", "pending", "--database-url", url]).run();
    assert_eq!(r.code, CONNECT, "{r:?}");
    assert!(
        !r.stderr.contains("Qwerty9") && !r.stderr.contains("Zx98w"),
        "{r:?}"
    );
    assert!(
        r.stderr
            .contains("parameter(s) \"sslpassword\", \"PassWord\" are ignored"),
        "{r:?}"
    );
    // a name percent-encoded is not shown as written: counted, in a sentence that reads (it
    // said `parameter(s) a parameter in the query are ignored`)
    let url = "postgres://app@127.0.0.1:1/app?Pass%77ord=Zx98w&application_nam=x";
    let r = ob(["inspect", "pending", "--database-url", url]).run();
    assert!(!r.stderr.contains("Zx98w"), "{r:?}");
    let said = "parameter(s) \"application_nam\" and 1 more are ignored";
    assert!(r.stderr.contains(said), "{r:?}");
}

/// A replay window that selects nothing (two times swapped) is refused before anything is
/// read: it ran, and said "would replay 0 event(s)", exit 0.
#[test]
fn replay_refuses_an_empty_window() {
    let url = "postgres://app@127.0.0.1:1/app";
    let replay = |window: &[&str]| {
        (ob([
            "replay",
            "--route",
            "orders",
            "--dry-run",
            "--database-url",
            url,
        ]))
        .args(window)
        .run()
    };
    for window in [
        &[
            "--since",
            "2026-12-07T00:00:00Z",
            "--until",
            "2026-12-06T00:00:00Z",
        ][..],
        &["--hlc-from", "10", "--hlc-to", "5"],
    ] {
        let r = replay(window);
        assert_eq!(r.code, ERROR, "{r:?}");
        assert!(r.stderr.contains("swap them"), "{r:?}");
    }
    // stamps typed in the header's form are said in it (they were said packed)
    let r = replay(&[
        "--hlc-from",
        "1764583200000.00003",
        "--hlc-to",
        "1764583200000.1",
    ]);
    let said = "--hlc-to (001764583200000.00001) is before --hlc-from (001764583200000.00003)";
    assert!(r.stderr.contains(said), "{r:?}");
    // two durations ago are from one instant: equal, an empty window (each flag took its own
    // now, and `--since 2h --until 2h` ran); no time ago, and past 100 years, refused
    let r = replay(&["--since", "2h", "--until", "2h"]);
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("make --until later"), "{r:?}");
    for (since, why) in [("0s", "no time ago"), ("200y", "100 years at most")] {
        let r = replay(&["--since", since]);
        assert_eq!(r.code, ERROR, "{since}: {r:?}");
        assert!(r.stderr.contains(why), "{since}: {r:?}");
    }
}

/// `inspect failed --group` shows every group: the flags that page rows are refused beside it
/// rather than ignored (a `--limit 1` once still listed every group).
#[test]
fn inspect_failed_group_refuses_the_paging_flags() {
    let url = "postgres://app:Pw1234@127.0.0.1:1/app";
    for paging in [
        &["--limit", "1"][..],
        &["--after", "0190c4e2-8a6c-7e4a-9b1e-000000000001"],
    ] {
        let r = ob(["inspect", "failed", "--group", "--database-url", url])
            .args(paging)
            .run();
        assert_eq!(r.code, ERROR, "{paging:?}: {r:?}");
        assert!(r.stderr.contains("cannot be used with"), "{r:?}");
    }
}

/// The error line to a stderr nobody reads any more (`2>&1 | jq` after jq quit) is lost, and
/// the exit code stays the error's (it panicked: exit 101, undocumented). The warnings' path:
/// `ops_pg::inspect`.
#[test]
fn a_failing_stderr_keeps_the_errors_exit_code() {
    let status = ob(["migrate", "--connect-timeout", "1s", "--database-url"])
        .args(["postgres://app@127.0.0.1:1/x"])
        .run_with_stderr_failing();
    assert_eq!(status.code(), Some(CONNECT), "{status:?}");
}

/// A relation that names an application's table (a typo in `outbox.relation`) is not an outbox:
/// `migrate` says so, exit 1, and changes nothing in it or beside it (it added the retry
/// columns to it, then failed on the claim index).
#[tokio::test]
async fn migrate_changes_nothing_in_a_table_that_is_not_an_outbox() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let t = schema.rel("orders");
    let app = format!("CREATE TABLE {t} (id int PRIMARY KEY, note text)");
    sqlx::raw_sql(&app).execute(&mut conn).await.unwrap();
    for extra in [&["--dry-run"][..], &[]] {
        let r = ob(["migrate"]).pg(&t).args(extra).run();
        assert_eq!(r.code, CHECK_FAILED, "{r:?}");
        let said = "is not an outbox table (it has no column outbox_route, event_id";
        assert!(r.stdout.contains(said), "{r:?}");
        assert!(
            r.stdout.contains("check outbox.relation (--relation)"),
            "{r:?}"
        );
        assert!(!r.stdout.contains("applied"), "{r:?}");
    }
    // for scripts: nothing to apply, a problem left: "problems", not "up_to_date"
    let r = ob(["migrate", "--format", "json"]).pg(&t).run();
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert_eq!(r.json()["status"], "problems", "{r:?}");
    let columns: Vec<String> = sqlx::query_scalar(
        "SELECT attname::text FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 ORDER BY attnum",
    )
    .bind(&t)
    .fetch_all(&mut conn)
    .await
    .unwrap();
    assert_eq!(columns, ["id", "note"], "left as it was");
    let relations: i64 =
        sqlx::query_scalar("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1")
            .bind(&schema.name)
            .fetch_one(&mut conn)
            .await
            .unwrap();
    assert_eq!(
        relations, 2,
        "the table and its primary key, nothing beside them"
    );
    // the operator's commands say it too (they gave the SQL error of the first column missing)
    let id = "0190c4e2-8a6c-7e4a-9b1e-000000000001";
    for args in [
        &["inspect"][..],
        &["inspect", "failed"],
        &["requeue", "--id", id, "--yes"],
        &["emit", "--route", "r", "--type", "t", "--payload", "{}"],
    ] {
        let r = ob(args).pg(&t).run();
        assert_eq!(r.code, ERROR, "{args:?}: {r:?}");
        let said = format!("{t} is not an outbox table (it has no column outbox_route");
        assert!(r.stderr.contains(&said), "{args:?}: {r:?}");
        assert!(
            r.stderr.contains("check outbox.relation (--relation)"),
            "{r:?}"
        );
    }
}

/// `replay` of an outbox table that is not there says so, exit 2, as every command does (it
/// said the replay index was missing, exit 5).
#[test]
fn replay_of_a_missing_outbox_says_the_table_is_missing() {
    let t = "outboxctl_no_such_schema.outbox";
    let r = (ob(["replay", "--to", "stdout", "--route", "orders", "--dry-run"]))
        .pg(t)
        .run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(
        r.stderr.contains(&format!("table {t} does not exist")),
        "{r:?}"
    );
}

/// A MongoDB error carries outboxctl's own words, not the driver's decorations (`Kind:`,
/// `labels: {}`, `source: None`).
#[tokio::test]
async fn a_mongodb_error_is_one_plain_line() {
    let db = crate::common::MongoDb::new(test_name!()).await;
    let coll = format!("{}.outbox", db.name);
    // HLC order stages in a transaction, whose callback carried the error out as the driver's
    let cfg = crate::common::config_file(test_name!(), "outbox:\n  hlc_ordering: true\n");
    let migrated = ob(["migrate", "-q"]).mongo(&coll).config(&cfg).run();
    assert_eq!(migrated.code, crate::common::OK, "{migrated:?}");
    let payload = r#"{"a":0.12345678901234567890}"#;
    let emit = [
        "emit",
        "--route",
        "orders",
        "--type",
        "t",
        "--payload",
        payload,
    ];
    let r = ob(emit).mongo(&coll).config(&cfg).run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(
        r.stderr.contains("cannot be stored exactly in MongoDB"),
        "{r:?}"
    );
    assert!(
        !r.stderr.contains("labels:") && !r.stderr.contains("Kind:"),
        "{r:?}"
    );
    // no checkpoint to show: the flag is named in MongoDB's terms (it said SCHEMA.TABLE)
    let r = ob(["hlc", "show"]).mongo(&coll).run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("--hlc-checkpoint DB.COLLECTION"), "{r:?}");
}
