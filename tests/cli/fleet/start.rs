//! A relay that registered and then did not serve: its row in the registry says stopped (not
//! live, then stale for a day) whether its start failed (a destination it cannot open, a
//! metrics address already taken) or a signal stopped it while a destination was connecting.

use super::*;

/// A relay that registers and then cannot start (its destination's file cannot be opened)
/// leaves its row stopped, not live and then stale for a day.
#[tokio::test]
async fn a_relay_that_cannot_start_after_registering_is_listed_stopped() {
    let test = test_name!();
    let (schema, _conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let cfg = config_file(test, FAST);
    let r = ob(["relay", "--once", "--route", "orders"])
        .pg(&schema.rel("outbox"))
        .config(&cfg)
        .args(["--to", "file:/nonexistent-dir/out.jsonl"])
        .code(ERROR);
    assert!(r.stderr.contains("cannot open"), "{r:?}");
    let listed = relays(&schema, &cfg);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["state"], "stopped", "{listed:?}");
}

/// The looping relay's own start after assembling (its metrics endpoint) fails on an address
/// already taken: exit 2, naming the address, and its row says stopped.
#[tokio::test]
async fn a_relay_whose_metrics_address_is_taken_is_listed_stopped() {
    let test = test_name!();
    let (schema, _conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let cfg = config_file(test, FAST);
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let r = ob([
        "relay",
        "--loop",
        "--route",
        "orders",
        "--to",
        "file:/dev/null",
    ])
    .pg(&schema.rel("outbox"))
    .config(&cfg)
    .args(["--metrics-addr", &addr])
    .code(ERROR);
    assert!(r.stderr.contains(&addr), "{r:?}");
    let listed = relays(&schema, &cfg);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["state"], "stopped", "{listed:?}");
}

/// SIGTERM while a destination is still connecting (a NATS address that accepts and never
/// says a word): the relay registered by then stops at once, exit 0, and its row says stopped.
#[tokio::test]
async fn a_relay_stopped_while_its_destination_connects_is_listed_stopped() {
    let test = test_name!();
    let (schema, _conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let cfg = config_file(test, FAST);
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = silent.local_addr().unwrap();
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((conn, _)) = silent.accept().await {
            open.push(conn);
        }
    });
    let mut relay = ob(["relay", "--loop", "--route", "orders"])
        .pg(&schema.rel("outbox"))
        .config(&cfg)
        .args(["--to", &format!("nats://{addr}/orders")])
        .spawn(None);
    eventually(
        Duration::from_secs(30),
        "the relay registered",
        async || match relays(&schema, &cfg).as_slice() {
            [row] if row["state"] == "live" => Ok(()),
            other => Err(format!("{other:?}")),
        },
    )
    .await;
    let exit = relay.terminate_within(Duration::from_secs(20)).await;
    assert!(exit.is_some_and(|s| s.success()), "{exit:?}");
    held.abort();
    let listed = relays(&schema, &cfg);
    assert_eq!(listed[0]["state"], "stopped", "{listed:?}");
}
