//! `route resume` of a scope that has no pause while another scope of the route has one.

use super::*;

/// With only a tenant's pause in force, resuming the whole route is refused, naming the
/// tenant's pause (it said "not paused" and exited 0 while the tenant's rows stayed held);
/// resuming another tenant says it was not paused; resuming that tenant ends it; the other way
/// round too.
#[tokio::test]
async fn resuming_the_whole_route_names_the_tenant_pauses_in_force() {
    let test = test_name!();
    let (schema, _conn) = PgSchema::new(test).await;
    let tenant = "6d1f1b3e-8f3b-4c7a-9a53-2f0f6f1c2a11";
    let other = "0190c4e2-0000-7000-8000-000000000001";
    let cfg = config_file(
        test,
        &format!("outbox:\n  tenant_aware: true\n  tenants: [{tenant}, {other}]\n"),
    );
    let t = schema.rel("outbox");
    ob(["migrate", "-q"]).pg(&t).config(&cfg).code(OK);
    let route = |args: &[&str]| ob(["route"]).args(args).pg(&t).config(&cfg);
    let paused = route(&[
        "pause",
        "orders",
        "--tenant",
        tenant,
        "--reason",
        "one tenant",
    ])
    .code(OK);
    // it names the tenant, and its undo names it too (it said `route resume orders`, which
    // is refused below)
    let said = format!("route orders for tenant {tenant} paused");
    assert!(paused.stderr.contains(&said), "{paused:?}");
    let undo = paused.stderr.split('`').nth(1).expect("an undo command");
    assert_eq!(
        undo,
        format!("outboxctl route resume orders --tenant {tenant}")
    );
    // top names the tenant's pause as the tenant's, once
    emit_events("orders", 1, "{}")
        .args(["--tenant", tenant])
        .pg(&t)
        .config(&cfg)
        .code(OK);
    let top = ob(["top"]).pg(&t).config(&cfg).code(OK);
    let line = format!("route orders (tenant {tenant}) PAUSED by");
    assert_eq!(top.stdout.matches(&line).count(), 1, "{top:?}");
    // the relay's summary names the paused tenant
    let relay = ob(["relay", "--once", "--route", "orders", "--to", "stdout"]);
    let relay = relay.pg(&t).config(&cfg);
    let relay = relay.code(OK);
    let note = format!("orders (tenant {tenant}): nothing claimed, paused by");
    assert!(relay.stderr.contains(&note), "{relay:?}");
    let r = route(&["resume", "orders"]).code(ERROR);
    assert!(
        r.stderr.contains(&format!(
            "route orders has no pause for the whole route; its pauses in force are for --tenant {tenant}"
        )),
        "{r:?}"
    );
    // another tenant is not paused, and saying so is true (it was refused, exit 2)
    let r = route(&["resume", "orders", "--tenant", other]).code(OK);
    assert!(r.stderr.contains("was not paused"), "{r:?}");
    // a tenant this configuration does not serve (a typo): paused, with a warning saying so
    let stranger = "0190c4e2-0000-7000-8000-0000000000ff";
    let r = route(&["pause", "orders", "--tenant", stranger, "--reason", "typo"]).code(OK);
    let said = format!("tenant {stranger} is not in outbox.tenants: paused all the same");
    assert!(r.stderr.contains(&said), "{r:?}");
    // -q says nothing of what went well (a cron job's resume mailed its line)
    let r = route(&["resume", "orders", "--tenant", stranger, "-q"]).code(OK);
    assert_eq!((r.stdout.as_str(), r.stderr.as_str()), ("", ""), "{r:?}");
    let r = route(&["pause", "orders", "--tenant", other, "--reason", "known"]).code(OK);
    assert!(!r.stderr.contains("is not in outbox.tenants"), "{r:?}");
    route(&["resume", "orders", "--tenant", other]).code(OK);
    let args: Vec<&str> = undo.split(' ').skip(2).collect();
    let r = route(&args).code(OK);
    let said = format!("route orders for tenant {tenant} resumed");
    assert!(r.stderr.contains(&said), "{r:?}");
    route(&["pause", "orders", "--reason", "all"]).code(OK);
    let r = route(&["resume", "orders", "--tenant", tenant]).code(ERROR);
    assert!(r.stderr.contains("the whole route (no --tenant)"), "{r:?}");
    let r = route(&["resume", "orders"]).code(OK);
    assert!(r.stderr.contains("resumed"), "{r:?}");
    let r = route(&["resume", "orders"]).code(OK);
    assert!(r.stderr.contains("was not paused"), "{r:?}");
}

/// A relay stopped (`SIGSTOP`: a hung host, a starved process) while a route is paused claims
/// nothing of it when it runs again: the pauses it read before the stop are too old, and its
/// lanes wait for the heartbeat to read them again. (Its tick, overdue, claimed and published
/// the rows staged during the pause before the heartbeat came round, right after logging that
/// the route claims nothing.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_stopped_while_a_route_is_paused_claims_nothing_of_it_when_it_runs_again() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    // ticks 300ms apart: the relay is stopped between two passes, not during one (a pass
    // that took its ticket before the pause was made honours the pauses of before it, as every
    // pass in flight does, and may publish what it claims after the stop)
    let cfg = config_file(test, "relay:\n  interval: 300ms\n  heartbeat: 100ms\n");
    let to = out_file(test);
    let log = to.with_extension("log");
    let relay = ob(["relay", "--loop", "--route", "orders"])
        .pg(&t)
        .config(&cfg)
        .args(["--to", &format!("file:{}", to.display())])
        .spawn(Some(&log));
    stage(&mut conn, &t, "orders", 5, None).await;
    let published = format!("SELECT count(*) FROM {t} WHERE status = 'published'");
    crate::common::wait_rows(&mut conn, &published, 5).await;
    let signal = |sig: &str| {
        let pid = relay.pid().to_string();
        assert!(
            std::process::Command::new("kill")
                .args([sig, &pid])
                .status()
                .unwrap()
                .success()
        );
    };
    signal("-STOP");
    let route = |args: &[&str]| ob(["route"]).args(args).pg(&t).config(&cfg).code(OK);
    route(&["pause", "orders", "--reason", "stopped relay"]);
    stage(&mut conn, &t, "orders", 20, None).await;
    // more than three heartbeats go by while it is stopped
    let stopped = std::time::Instant::now();
    crate::common::wait_until(Duration::from_secs(10), "four heartbeats (400ms)", || {
        stopped.elapsed() >= Duration::from_millis(400)
    })
    .await;
    signal("-CONT");
    crate::common::wait_log(&log, "it claims nothing until resumed", 1).await;
    // two ticks after it read the pause: still nothing of the route
    let read = std::time::Instant::now();
    crate::common::wait_until(Duration::from_secs(10), "two ticks (700ms)", || {
        read.elapsed() >= Duration::from_millis(700)
    })
    .await;
    assert_eq!(
        crate::common::count(&mut conn, &published).await,
        5,
        "nothing published while paused"
    );
    route(&["resume", "orders"]);
    crate::common::wait_rows(&mut conn, &published, 25).await;
    assert!(relay.terminate().success());
}

/// A route the configuration's `relay.routes` lack is paused all the same (relays of another
/// configuration may serve it) and named, as `inspect`, `emit` and `requeue` name it: a typo
/// said only that no live relay serves it.
#[tokio::test]
async fn a_pause_of_a_route_the_configuration_lacks_is_named() {
    let test = test_name!();
    let (schema, _conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let cfg = config_file(
        test,
        "relay:\n  routes:\n    orders:\n      to: file:/dev/null\n",
    );
    let r = ob(["route", "pause", "ordres", "--reason", "typo"])
        .pg(&schema.rel("outbox"))
        .config(&cfg)
        .run();
    assert_eq!(r.code, OK, "{r:?}");
    let said = "route ordres is not in relay.routes (orders): paused all the same";
    assert!(r.stderr.contains(said), "{r:?}");
    let r = ob(["route", "pause", "orders", "--reason", "meant"])
        .pg(&schema.rel("outbox"))
        .config(&cfg)
        .run();
    assert!(!r.stderr.contains("not in relay.routes"), "{r:?}");
}
