//! `emit`, `inspect`, `requeue` and `discard` of a route the configuration's relays do not serve.

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
