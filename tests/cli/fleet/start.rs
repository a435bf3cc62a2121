//! A relay that registered and then did not serve: its row in the registry says stopped (not
//! live, then stale for a day) whether its start failed (a destination it cannot open, a
//! metrics address already taken: its last error says so) or a signal stopped it while a
//! destination was connecting.

use super::*;

/// A migrated outbox (with the registry) of the test's own, and a configuration with fast
/// heartbeats.
async fn registered(test: &str) -> (PgSchema, sqlx::PgConnection, String) {
    let (schema, conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let cfg = config_file(test, FAST);
    (schema, conn, cfg)
}

/// Exactly one relay listed, stopped.
fn listed_stopped(schema: &PgSchema, cfg: &str) {
    let listed = relays(schema, cfg);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["state"], "stopped", "{listed:?}");
}

/// The one relay listed could not start, and its last error says why (it had none, so a
/// crash-looping relay's rows said nothing).
fn listed_unstarted(schema: &PgSchema, cfg: &str, why: &str) {
    listed_stopped(schema, cfg);
    let listed = relays(schema, cfg);
    let error = listed[0]["last_error"].as_str();
    assert!(
        error.is_some_and(|e| e.starts_with("could not start: ") && e.contains(why)),
        "{listed:?}"
    );
}

/// An address that accepts connections and never says a word (a NATS server that hangs),
/// while the task returned runs.
async fn silent() -> (std::net::SocketAddr, tokio::task::JoinHandle<()>) {
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = silent.local_addr().unwrap();
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((conn, _)) = silent.accept().await {
            open.push(conn);
        }
    });
    (addr, held)
}

/// Waits until exactly one relay is listed, live.
async fn listed_live(schema: &PgSchema, cfg: &str) {
    eventually(
        Duration::from_secs(30),
        "the relay registered",
        async || match relays(schema, cfg).as_slice() {
            [row] if row["state"] == "live" => Ok(()),
            other => Err(format!("{other:?}")),
        },
    )
    .await;
}

/// A relay that registers and then cannot start (its destination's file cannot be opened)
/// leaves its row stopped, not live and then stale for a day.
#[tokio::test]
async fn a_relay_that_cannot_start_after_registering_is_listed_stopped() {
    let (schema, _conn, cfg) = registered(test_name!()).await;
    let r = ob(["relay", "--once", "--route", "orders"])
        .pg(&schema.rel("outbox"))
        .config(&cfg)
        .args(["--to", "file:/nonexistent-dir/out.jsonl"])
        .code(ERROR);
    assert!(r.stderr.contains("cannot open"), "{r:?}");
    listed_unstarted(&schema, &cfg, "cannot open");
}

/// The looping relay's own start after assembling (its metrics endpoint) fails on an address
/// already taken: exit 2, naming the address, and its row says stopped.
#[tokio::test]
async fn a_relay_whose_metrics_address_is_taken_is_listed_stopped() {
    let (schema, _conn, cfg) = registered(test_name!()).await;
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
    listed_unstarted(&schema, &cfg, &addr);
}

/// SIGTERM while a destination is still connecting (a NATS address that accepts and never
/// says a word): the relay registered by then stops at once, exit 0, and its row says stopped.
#[tokio::test]
async fn a_relay_stopped_while_its_destination_connects_is_listed_stopped() {
    let (schema, _conn, cfg) = registered(test_name!()).await;
    let (addr, held) = silent().await;
    let mut relay = ob(["relay", "--loop", "--route", "orders"])
        .pg(&schema.rel("outbox"))
        .config(&cfg)
        .args(["--to", &format!("nats://{addr}/orders")])
        .spawn(None);
    listed_live(&schema, &cfg).await;
    let exit = relay.terminate_within(Duration::from_secs(20)).await;
    assert!(exit.is_some_and(|s| s.success()), "{exit:?}");
    held.abort();
    listed_stopped(&schema, &cfg);
    let listed = relays(&schema, &cfg);
    assert_eq!(
        listed[0]["last_error"],
        Value::Null,
        "stopped, not failed: {listed:?}"
    );
}

/// The heartbeat runs from registering on, not from the first pass: while a slow destination
/// connects (a NATS address that accepts and never says a word: 3s), the relay's row stays
/// fresh and a pause made meanwhile holds the relay's first pass of that route. (The pauses
/// used to be read once at registering, so a route paused during a slow start was claimed; and
/// a NATS server that never says a word held the start for good: it is given up after 5s.)
#[tokio::test]
async fn a_pause_made_while_a_destination_connects_holds_the_first_pass() {
    let test = test_name!();
    let (schema, mut conn, _) = registered(test).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 5, None).await;
    let (addr, held) = silent().await;
    let to = out_file(test);
    let cfg = config_file(
        test,
        &format!(
            "{FAST}  routes:\n    a_slow:\n      to: nats://{addr}\n    orders:\n      to: \"file:{}\"\n",
            to.display()
        ),
    );
    let relay = ob(["relay", "--once", "--format", "json"])
        .pg(&t)
        .config(&cfg)
        .run_async();
    let relay = tokio::spawn(relay);
    listed_live(&schema, &cfg).await;
    ob(["route", "pause", "orders", "--reason", "during start"])
        .pg(&t)
        .code(OK);
    let r = relay.await.unwrap();
    held.abort();
    // a_slow had nothing to send, and its server never says a word: the drain asks it, and
    // says it is down
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    let all = r.json();
    let route = |name: &str| {
        let all = all.as_array().unwrap().iter();
        all.clone().find(|s| s["route"] == name).unwrap().clone()
    };
    let slow = route("a_slow");
    assert!(slow["destination_down"].is_string(), "{slow}");
    let orders = route("orders");
    assert_eq!(orders["claimed"], 0, "{orders}");
    assert_eq!(orders["paused"]["reason"], "during start", "{orders}");
    assert_eq!(line_count(&to), 0);
}

/// A destination down is the relay's last error in the registry while it is down, and gone
/// once it is back: `inspect relays` showed a live relay with no error while none of its rows
/// could go (a destination down runs no pass, and only a failed pass set the error). The
/// destination is a FIFO no process reads, then one a reader opens.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_destination_down_is_the_relays_last_error_until_it_is_back() {
    let test = test_name!();
    let (schema, _conn, cfg) = registered(test).await;
    let fifo = out_file(test).with_extension("fifo");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo {}", fifo.display());
    let relay = relay_loop(&schema, &cfg, &fifo, &[]);
    let last_error = |list: &[Value]| list.first().map(|r| r["last_error"].clone());
    eventually(
        Duration::from_secs(30),
        "the relay listed with its destination down",
        async || {
            let list = relays(&schema, &cfg);
            let e = last_error(&list).unwrap_or_default();
            match e.as_str() {
                Some(e) if e.contains("is down") && e.contains("no process reads") => Ok(()),
                _ => Err(format!("{list:?}")),
            }
        },
    )
    .await;
    // a reader: the relay's next probe opens the FIFO, and the destination is back
    let path = fifo.clone();
    let reader = std::thread::spawn(move || {
        let mut f = std::fs::File::open(path).unwrap();
        std::io::copy(&mut f, &mut std::io::sink()).unwrap()
    });
    eventually(
        Duration::from_secs(30),
        "the relay listed with no error",
        async || {
            let list = relays(&schema, &cfg);
            match last_error(&list) {
                Some(Value::Null) => Ok(()),
                _ => Err(format!("{list:?}")),
            }
        },
    )
    .await;
    drop(relay);
    reader.join().unwrap();
    std::fs::remove_file(&fifo).unwrap();
}

/// `relay --once` whose destination is down ends with its registry row's last error saying
/// so: a cron run's row said stopped with no error, and the on-call could not see why it
/// failed.
#[tokio::test]
async fn a_once_run_whose_destination_is_down_leaves_it_as_its_last_error() {
    let (schema, mut conn, cfg) = registered(test_name!()).await;
    stage(&mut conn, &schema.rel("outbox"), "orders", 1, None).await;
    let r = ob([
        "relay",
        "--once",
        "--route",
        "orders",
        "--to",
        "nats://127.0.0.1:1",
    ])
    .pg(&schema.rel("outbox"))
    .config(&cfg)
    .run();
    assert_eq!(r.code, CHECK_FAILED, "{r:?}");
    listed_stopped(&schema, &cfg);
    let listed = relays(&schema, &cfg);
    let e = listed[0]["last_error"].as_str().unwrap_or_default();
    assert!(
        e.starts_with("destination nats://127.0.0.1:1 is down"),
        "{listed:?}"
    );
}
