//! `emit`: what it stages (headers, HLC stamps, the checkpoint, deduplication) as a relay
//! delivers it, `hlc show`, and `emit`, `inspect`, `requeue` and `discard` of a route the
//! configuration's relays do not serve.

use super::*;

/// A route that is not in `relay.routes` (a typo) is staged all the same (relays of another
/// configuration may serve it) and said on stderr, in JSON too; a configured one says nothing.
#[tokio::test]
async fn emit_says_when_no_relay_of_the_configuration_serves_the_route() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let cfg =
        crate::common::config_file(test, "relay:\n  routes:\n    orders:\n      to: stdout\n");
    let emit = |route: &str| {
        ob(["emit", "--route", route, "--type", "t", "--payload", "{}"])
            .args(["--format", "json"])
            .pg(&t)
            .config(&cfg)
            .code(OK)
    };
    let r = emit("ordres");
    let said =
        "route ordres is not in relay.routes (orders): no relay of this configuration serves it";
    assert!(r.stderr.contains(said), "{r:?}");
    assert_eq!(r.json()["warnings"][0], said, "{r:?}");
    assert_eq!(
        count(&mut conn, &format!("SELECT count(*) FROM {t}")).await,
        1
    );
    let r = emit("orders");
    assert!(!r.stderr.contains("relay.routes"), "{r:?}");
    assert!(r.json().get("warnings").is_none(), "{r:?}");
}

/// `inspect`, `requeue` and `discard` with `--route` of a route not in `relay.routes` (a typo
/// reads as an empty outbox) say so on stderr and change nothing more. Requeued rows of a route
/// of another configuration's relays are requeued all the same, and said; a configured route,
/// or a discard that found rows, says nothing.
#[tokio::test]
async fn inspect_and_requeue_say_when_no_relay_of_the_configuration_serves_the_route() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    // route a: rows of every status, failed n = 8 and 9; route b: one pending row
    seed(&mut conn, &t).await;
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET status = 'failed', last_error = 'x' WHERE outbox_route = 'b'"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let cfg = crate::common::config_file(test, "relay:\n  routes:\n    a:\n      to: stdout\n");
    let run = |args: &[&str], code: i32| {
        let all = [&["--yes"][..], args].concat();
        ob(all).pg(&t).config(&cfg).code(code)
    };
    let unserved = |route: &str| format!("route {route} is not in relay.routes (a)");
    for args in [
        &["inspect", "--route", "ordres"][..],
        &["inspect", "--route", "ordres", "failed"],
    ] {
        let r = run(args, OK);
        assert!(
            r.stderr.contains(&format!(
                "{}: no relay of this configuration serves it",
                unserved("ordres")
            )),
            "{args:?}: {r:?}"
        );
    }
    let r = run(&["inspect", "--route", "a", "failed"], OK);
    assert!(!r.stderr.contains("relay.routes"), "{r:?}");
    let failed = format!("SELECT count(*) FROM {t} WHERE status = 'failed'");
    for verb in ["requeue", "discard"] {
        let r = run(&[verb, "--all", "--route", "ordres"], OK);
        assert!(r.stderr.contains(&unserved("ordres")), "{verb}: {r:?}");
        assert_eq!(count(&mut conn, &failed).await, 3, "{verb} changed nothing");
    }
    let r = run(&["requeue", "--all", "--route", "b"], OK);
    assert!(
        r.stderr.contains(&format!(
            "{}: requeued rows wait for a relay that serves it",
            unserved("b")
        )),
        "{r:?}"
    );
    assert_eq!(count(&mut conn, &failed).await, 2, "b's row was requeued");
    let r = run(
        &[
            "discard",
            "--all",
            "--route",
            "a",
            "--type",
            "order.cancelled",
        ],
        OK,
    );
    assert!(!r.stderr.contains("relay.routes"), "{r:?}");
    assert_eq!(
        count(&mut conn, &failed).await,
        1,
        "a's n = 9 was discarded"
    );
}

#[tokio::test]
async fn emit_then_relay_delivers_headers_and_hlc_and_deduplicates() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let cp = schema.rel("hlc_checkpoint");
    let extra = [
        "--hlc-ordering",
        "--propagate-trace",
        "--hlc-checkpoint",
        cp.as_str(),
    ];
    migrate(&schema, &extra).await;
    let event = uuid::Uuid::now_v7().to_string();
    let payload = r#"{"order_id": 42, "total": 12345678901234567890.123456789}"#;
    let args = [
        "emit",
        "--route",
        "orders",
        "--type",
        "order.placed",
        "--payload",
        payload,
        "--ordering-key",
        "order-42",
        "--correlation-id",
        "0190c4e2-8a6c-7e4a-9b1e-000000000001",
        "--event-id",
        &event,
        "--traceparent",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    ];
    let r = cmd(
        &schema,
        &[&extra[..], &["--format", "json"]].concat(),
        &args,
    );
    assert_eq!(r.code, OK, "{r:?}");
    let v = json(&r);
    assert_eq!(
        (v["staged"].as_u64(), v["deduplicated"].as_u64()),
        (Some(1), Some(0))
    );
    // what a relay could not send as it is (forze writes W3C values only) stages nothing
    for (flag, bad, says) in [
        ("--traceparent", "garbage", "not a W3C traceparent"),
        ("--route", " ", "a route name is never empty"),
        ("--type", "", "--type must not be empty"),
    ] {
        let mut wrong = args.to_vec();
        let at = wrong.iter().position(|a| *a == flag).expect("the flag") + 1;
        wrong[at] = bad;
        let r = cmd(&schema, &extra, &wrong);
        assert_eq!(r.code, ERROR, "{flag}: {r:?}");
        assert!(r.stderr.contains(says), "{flag}: {r:?}");
    }
    let staged = count(
        &mut conn,
        &format!("SELECT count(*) FROM {}", schema.rel("outbox")),
    )
    .await;
    assert_eq!(staged, 1, "nothing more staged");
    let stamped = v["events"][0]["hlc"].as_str().unwrap().to_owned();
    let r = cmd(
        &schema,
        &[&extra[..], &["--format", "json"]].concat(),
        &args,
    );
    assert_eq!(
        json(&r)["deduplicated"],
        1,
        "same event id, same route: {r:?}"
    );
    let again = &json(&r)["events"][0];
    assert!(
        again.get("id").is_none() && again.get("hlc").is_none(),
        "a deduplicated event names no row or stamp but those stored: {r:?}"
    );
    let mark: i64 = sqlx::query_scalar(&format!("SELECT hlc FROM {cp} WHERE node_key = 'default'"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    let row_hlc: i64 = sqlx::query_scalar(&format!("SELECT hlc FROM {} ", schema.rel("outbox")))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert!(mark >= row_hlc, "the mark covers every committed stamp");
    let r = cmd(
        &schema,
        &[&extra[..], &["--format", "json"]].concat(),
        &[
            "emit",
            "--route",
            "orders",
            "--type",
            "bulk",
            "--payload",
            "{}",
            "--count",
            "1500",
        ],
    );
    assert_eq!(json(&r)["staged"], 1500, "{r:?}");

    let path = out_file(test);
    let r = cmd(
        &schema,
        &extra,
        &[
            "relay",
            "--once",
            "--route",
            "orders",
            "--to",
            &format!("file:{}", path.display()),
        ],
    );
    assert_eq!(r.code, OK, "{r:?}");
    let got = lines(&path);
    assert_eq!(got.len(), 1501);
    let first = &got[0];
    assert_eq!(first["event_id"], event.as_str());
    assert_eq!(first["key"], "order-42");
    assert_eq!(first["headers"]["forze_hlc"], stamped.as_str());
    assert_eq!(
        first["headers"]["forze_correlation_id"],
        "0190c4e2-8a6c-7e4a-9b1e-000000000001"
    );
    assert_eq!(
        first["headers"]["traceparent"],
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    );
    let raw = std::fs::read_to_string(&path).unwrap();
    assert!(
        raw.contains(r#""total":12345678901234567890.123456789"#),
        "payload precision kept"
    );
    // HLC order: the stamps in relay order never go down
    let stamps: Vec<&str> = got
        .iter()
        .map(|l| l["headers"]["forze_hlc"].as_str().unwrap())
        .collect();
    assert!(
        stamps.windows(2).all(|w| w[0] < w[1]),
        "stamps strictly increase in claim order"
    );

    let r = cmd(
        &schema,
        &[&extra[..], &["--format", "json"]].concat(),
        &["hlc", "show"],
    );
    let v = json(&r);
    assert_eq!(v["rows"][0]["node_key"], "default");
    assert_eq!(v["too_far_ahead"], false);
    // the mark as text too, exact where a reader rounds the 64-bit `hlc`
    let stamp = v["rows"][0]["stamp"].as_str().unwrap();
    let packed = outboxctl::hlc::HlcTimestamp::parse(stamp).unwrap().pack();
    assert_eq!(v["rows"][0]["hlc"].as_i64(), Some(packed), "{v}");
    // the mark is the node's: read without any outbox table (it used to need one)
    let r = ob(["hlc", "show", "--format", "json", "--hlc-checkpoint", &cp])
        .pg(&schema.rel("no_such_outbox"))
        .run();
    assert_eq!(r.code, OK, "{r:?}");
    assert_eq!(json(&r)["rows"][0]["node_key"], "default", "{r:?}");
    // a checkpoint table that does not exist says how to make it, once (the server's words
    // came twice, and no fix)
    let missing = schema.rel("no_such_checkpoint");
    let r = ob(["hlc", "show", "--hlc-checkpoint", &missing])
        .pg(&schema.rel("outbox"))
        .run();
    assert_eq!(r.code, ERROR, "{r:?}");
    let said = format!(
        "the HLC checkpoint table {missing} does not exist; create it with `outboxctl migrate`"
    );
    assert!(r.stderr.contains(&said), "{r:?}");
}

/// A checkpoint mark at the top of what a BIGINT packs (set by hand; `hlc show` only warns that
/// it is far ahead): `emit` stages nothing, exit 2, and says what to do. It wrote a stamp that
/// packed negative, first in claim order, and left the mark where it was.
#[tokio::test]
async fn emit_stages_nothing_after_the_last_mark_a_bigint_packs() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    let cp = schema.rel("hlc_checkpoint");
    let extra = ["--hlc-ordering", "--hlc-checkpoint", cp.as_str()];
    migrate(&schema, &extra).await;
    let top = format!(
        "INSERT INTO {cp} (node_key, hlc) VALUES ('top', {})",
        i64::MAX
    );
    sqlx::raw_sql(&top).execute(&mut conn).await.unwrap();
    let emit = || crate::common::emit_events("orders", 1, "{}").pg(&schema.rel("outbox"));
    let r = emit().args(extra).run();
    assert_eq!(r.code, ERROR, "{r:?}");
    assert!(r.stderr.contains("no hlc stamp can follow"), "{r:?}");
    assert!(r.stderr.contains("lower the checkpoint's mark"), "{r:?}");
    let rows = format!("SELECT count(*) FROM {}", schema.rel("outbox"));
    assert_eq!(count(&mut conn, &rows).await, 0, "nothing staged");
    let lowered = format!(
        "UPDATE {cp} SET hlc = {} WHERE node_key = 'top'",
        i64::MAX - 1
    );
    sqlx::raw_sql(&lowered).execute(&mut conn).await.unwrap();
    let r = emit().args(extra).run();
    assert_eq!(r.code, OK, "{r:?}");
    let stamp: i64 = sqlx::query_scalar(&format!("SELECT hlc FROM {}", schema.rel("outbox")))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(stamp, i64::MAX, "the one stamp left");
}
