//! `emit` of a route the configuration's relays do not serve.

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
