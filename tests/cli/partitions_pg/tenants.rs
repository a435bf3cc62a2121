//! The partitions commands on a delivery log per tenant (`delivery_log: app.d_{tenant}`): each
//! configured tenant's log in turn.

use super::*;

#[tokio::test]
async fn each_tenants_log_is_kept_in_turn() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    let (a, b) = (
        "0190c4e2-8a6c-7e4a-9b1e-00000000000a",
        "0190c4e2-8a6c-7e4a-9b1e-00000000000b",
    );
    let cfg = crate::common::config_file(
        test,
        &format!(
            "outbox:\n  relation: {}\n  storage: consume\n  delivery_log: {s}.d_{{tenant}}\n  tenant_aware: true\n  tenants: [{a}, {b}]\n",
            schema.rel("outbox"),
            s = schema.name
        ),
    );
    let parts = |args: &[&str]| {
        ob(["partitions"])
            .args(args)
            .pg(&schema.rel("outbox"))
            .config(&cfg)
            .run()
    };
    assert_eq!(
        ob(["migrate", "-q"])
            .pg(&schema.rel("outbox"))
            .config(&cfg)
            .run()
            .code,
        OK
    );
    let log_of = |t: &str| format!("{}.d_{}", schema.name, t.replace('-', ""));
    // migrate attached today and the days ahead; add-ahead goes further on both logs
    let r = parts(&["add-ahead", "--days", "20", "--format", "json"]);
    assert_eq!(r.code, OK, "{r:?}");
    for t in [a, b] {
        let far = format!(
            "{}_{}",
            log_of(t),
            (today() + Days::new(20)).format("%Y%m%d")
        );
        let n = count(
            &mut conn,
            &format!("SELECT count(*) FROM pg_class WHERE oid = to_regclass('{far}')"),
        )
        .await;
        assert_eq!(n, 1, "{far} attached: {r:?}");
    }
    assert_eq!(parts(&["check"]).code, OK);
    // a row in the second tenant's default partition: check names that log, --fix moves it
    let forty_days_ago = Utc::now() - chrono::Duration::days(40);
    crate::common::log_delivery(&mut conn, &log_of(b), Some(b), forty_days_ago).await;
    let r = parts(&["check"]);
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    assert!(r.stdout.contains(&format!("ok: {}", log_of(a))), "{r:?}");
    assert!(
        r.stdout.contains(&format!("problem: {}", log_of(b))),
        "{r:?}"
    );
    assert_eq!(parts(&["check", "--fix"]).code, OK);
    let left = count(
        &mut conn,
        &format!("SELECT count(*) FROM {}_default", log_of(b)),
    )
    .await;
    assert_eq!(left, 0);
}
