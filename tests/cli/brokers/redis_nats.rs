//! Redis and NATS JetStream: forze's entries and headers, dedup and order, refusals parked, a broker away is no attempt.

use super::*;

#[tokio::test]
async fn redis_stream_entry_is_forzes() {
    let (schema, mut conn, t) = worked_example_outbox("broker_redis_stream").await;
    stage(&mut conn, &t, "orders", 200, Some(5)).await;
    let key = format!("{}:orders.events", schema.name);
    let mut r = redis_conn().await;
    redis_del(&mut r, &key).await;
    let cfg = crate::common::config_file(
        "broker_redis_stream",
        &format!(
            "relay:\n  routes:\n    orders:\n      to: {REDIS}\n      channel: \"{key}\"\n      maxlen: 1000\n"
        ),
    );
    let out = relay(&schema, &cfg, &[]);
    assert_eq!(out.code, OK, "{out:?}");
    let entries: Vec<(String, Vec<String>)> = redis::cmd("XRANGE")
        .arg(&key)
        .arg("-")
        .arg("+")
        .query_async(&mut r)
        .await
        .unwrap();
    assert_eq!(entries.len(), 201);
    let mut order = KeyOrder::default();
    for (_, f) in entries.iter().filter(|(_, f)| f[5] != "order-42") {
        order.see(&f[5], payload_value(&f[1])["n"].as_i64().unwrap());
    }
    assert_eq!(order.keys(), 5);
    let fields = &entries.iter().find(|(_, f)| f[5] == "order-42").unwrap().1;
    let names: Vec<&str> = fields.iter().step_by(2).map(String::as_str).collect();
    assert_eq!(
        names,
        ["payload", "type", "key", "headers"],
        "forze's field order"
    );
    assert_eq!(
        payload_value(&fields[1]),
        payload_value(r#"{"order_id":42,"total":"19.90"}"#)
    );
    assert!(
        !fields[1].contains(": ") && !fields[1].contains(", "),
        "compact: {}",
        fields[1]
    );
    assert_eq!(fields[3], "order.placed");
    assert_eq!(fields[5], "order-42");
    assert_eq!(fields[7], WIRE_HEADERS);
    assert_eq!(fields[7].len(), 275);
    redis_del(&mut r, &key).await;
}

/// A key of the wrong type: Redis refuses every XADD (WRONGTYPE); the rows are retried, then
/// parked at `max_attempts` with Redis's error.
#[tokio::test]
async fn redis_refusal_parks_after_max_attempts() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 3, None).await;
    let key = format!("{}:refused", schema.name);
    let mut r = redis_conn().await;
    let _: () = redis::cmd("SET")
        .arg(&key)
        .arg("a string, not a stream")
        .query_async(&mut r)
        .await
        .unwrap();
    let cfg = crate::common::config_file(
        test,
        &format!(
            "relay:\n  max_attempts: 2\n  routes:\n    orders:\n      to: {REDIS}\n      channel: \"{key}\"\n"
        ),
    );
    let out = relay_plain(&schema, &cfg);
    assert_eq!(out.code, OK, "a retry is not a failure: {out:?}");
    make_due(&mut conn, &t).await;
    let out = relay_plain(&schema, &cfg);
    assert_eq!(out.code, CHECK_FAILED, "{out:?}");
    let errors = parked_errors(&mut conn, &t).await;
    assert_eq!(errors.len(), 3);
    for err in errors {
        assert!(err.contains("WRONGTYPE"), "{err}");
    }
    redis_del(&mut r, &key).await;
}

/// A stream whose messages may be 64 bytes at most: JetStream refuses the event for good, so
/// the row is parked at once with the server's error.
#[tokio::test]
async fn nats_refusal_of_an_oversized_message_parks_at_once() {
    let (schema, mut conn, t) = worked_example_outbox("broker_nats_refuse").await;
    let subject = format!("{}.small", schema.name);
    let js = async_nats::jetstream::new(
        async_nats::connect(NATS)
            .await
            .expect("NATS on 127.0.0.1:4222 (scripts/services.sh starts it)"),
    );
    let name = format!("{}_small", schema.name);
    let _ = js.delete_stream(&name).await;
    js.create_stream(async_nats::jetstream::stream::Config {
        name: name.clone(),
        subjects: vec![subject.clone()],
        max_message_size: 64,
        ..Default::default()
    })
    .await
    .unwrap();
    let cfg = crate::common::config_file(
        "broker_nats_refuse",
        &format!("relay:\n  routes:\n    orders:\n      to: {NATS}\n      channel: {subject}\n"),
    );
    let out = relay_plain(&schema, &cfg);
    assert_eq!(out.code, CHECK_FAILED, "{out:?}");
    let (status, attempts, err): (String, i32, String) =
        sqlx::query_as(&format!("SELECT status, attempts, last_error FROM {t}"))
            .fetch_one(&mut conn)
            .await
            .unwrap();
    assert_eq!((status.as_str(), attempts), ("failed", 0), "{err}");
    assert!(err.contains("message size"), "{err}");
    js.delete_stream(&name).await.unwrap();
}

#[tokio::test]
async fn redis_pubsub_body_is_forzes() {
    let (schema, _conn, _) = worked_example_outbox("broker_redis_pubsub").await;
    let channel = format!("{}:orders.events", schema.name);
    let mut pubsub = redis::Client::open(REDIS)
        .unwrap()
        .get_async_pubsub()
        .await
        .unwrap();
    pubsub.subscribe(&channel).await.unwrap();
    let cfg = crate::common::config_file(
        "broker_redis_pubsub",
        &format!(
            "relay:\n  routes:\n    orders:\n      to: {REDIS}\n      channel: \"{channel}\"\n      mode: pubsub\n"
        ),
    );
    let out = relay(&schema, &cfg, &[]);
    assert_eq!(out.code, OK, "{out:?}");
    let msg = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        pubsub.on_message().next(),
    )
    .await
    .unwrap()
    .unwrap();
    let body: String = msg.get_payload().unwrap();
    let v: serde_json::Map<String, Value> = serde_json::from_str(&body).unwrap();
    assert_eq!(
        v.keys().collect::<Vec<_>>(),
        ["headers", "key", "payload", "type"],
        "sorted keys"
    );
    assert_eq!(v["headers"], WIRE_HEADERS);
    assert_eq!(v["key"], "order-42");
    assert_eq!(v["type"], "order.placed");
    assert_eq!(
        payload_value(v["payload"].as_str().unwrap()),
        payload_value(r#"{"order_id":42,"total":"19.90"}"#)
    );
    assert!(
        body.starts_with(r#"{"headers":"{\"forze_correlation_id\":"#),
        "{body}"
    );
}

#[tokio::test]
async fn nats_jetstream_headers_dedup_and_order() {
    let (schema, mut conn, t) = worked_example_outbox("broker_nats").await;
    stage(&mut conn, &t, "orders", 200, Some(5)).await;
    let subject = format!("{}.orders", schema.name);
    let client = async_nats::connect(NATS)
        .await
        .expect("NATS on 127.0.0.1:4222 (scripts/services.sh starts it)");
    let js = async_nats::jetstream::new(client);
    let stream_name = schema.name.clone();
    let _ = js.delete_stream(&stream_name).await;
    let cfg = crate::common::config_file(
        "broker_nats",
        &format!("relay:\n  routes:\n    orders:\n      to: {NATS}\n      channel: {subject}\n"),
    );
    let out = relay(&schema, &cfg, &[]);
    assert_eq!(out.code, ERROR, "no stream: a configuration error: {out:?}");
    assert!(out.stderr.contains("create_stream"), "{out:?}");
    js.create_stream(async_nats::jetstream::stream::Config {
        name: stream_name.clone(),
        subjects: vec![subject.clone()],
        duplicate_window: std::time::Duration::from_secs(60),
        ..Default::default()
    })
    .await
    .unwrap();
    let out = relay(&schema, &cfg, &[]);
    assert_eq!(out.code, OK, "{out:?}");
    assert!(
        out.stderr.contains("shorter than reclaim_stale_after"),
        "a 60s window warns against a 5m reclaim: {out:?}"
    );
    let stream = js.get_stream(&stream_name).await.unwrap();
    let first = stream.get_raw_message(1).await.unwrap();
    let h = first.headers.clone();
    let get = |k: &str| h.get(k).map(|v| v.as_str().to_owned());
    assert_eq!(
        get("forze_event_id").as_deref(),
        Some("0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e")
    );
    let msg_id = h
        .get(async_nats::header::NATS_MESSAGE_ID)
        .map(|v| v.as_str().to_owned());
    assert_eq!(
        msg_id.as_deref(),
        Some("0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e")
    );
    assert_eq!(get("forze_hlc").as_deref(), Some("001764583200000.00003"));
    assert_eq!(
        get("forze_occurred_at").as_deref(),
        Some("2026-12-01T10:00:00+00:00")
    );
    assert_eq!(
        get("traceparent").as_deref(),
        Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
    );
    assert_eq!(get("forze_type").as_deref(), Some("order.placed"));
    assert_eq!(get("forze_key").as_deref(), Some("order-42"));
    assert_eq!(
        payload_value(std::str::from_utf8(&first.payload).unwrap()),
        payload_value(r#"{"order_id":42,"total":"19.90"}"#)
    );
    let mut order = KeyOrder::default();
    for seq in 2..=201 {
        let m = stream.get_raw_message(seq).await.unwrap();
        let key = m.headers.get("forze_key").unwrap().as_str().to_owned();
        let n = payload_value(std::str::from_utf8(&m.payload).unwrap())["n"]
            .as_i64()
            .unwrap();
        order.see(&key, n);
    }
    // a redelivery (as after a crash and reclaim) is dropped by the stream's duplicate window
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET status = 'pending' WHERE ordering_key = 'order-42'"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let out = relay(&schema, &cfg, &[]);
    assert_eq!(out.code, OK, "{out:?}");
    let mut stream = js.get_stream(&stream_name).await.unwrap();
    assert_eq!(
        stream.info().await.unwrap().state.messages,
        201,
        "deduplicated by Nats-Msg-Id"
    );
    // a replay to the same stream: it redelivers nothing after a crash, so the relay's reclaim
    // window is not its business (it warned of it)
    let event = "0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e";
    let out = crate::common::ob(["replay", "--event-id", event, "--to", NATS])
        .args(["--channel", &subject])
        .pg(&t)
        .config(&cfg)
        .run();
    assert_eq!(out.code, OK, "{out:?}");
    assert!(out.stderr.contains("replayed 1 event"), "{out:?}");
    assert!(!out.stderr.contains("reclaim_stale_after"), "{out:?}");
    js.delete_stream(&stream_name).await.unwrap();
}

#[tokio::test]
async fn nats_away_is_no_attempt_then_delivers_and_create_stream_works() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 5, None).await;
    let away = crate::common::config_file(
        test,
        "relay:\n  publish_timeout: 1s\n  routes:\n    orders:\n      to: nats://127.0.0.1:1\n",
    );
    let out = relay_plain(&schema, &away);
    assert_eq!(out.code, CHECK_FAILED, "{out:?}");
    assert!(out.stdout.contains("destination down"), "{out:?}");
    crate::common::assert_no_attempts(&mut conn, &t).await;
    let subject = format!("{}.created", schema.name);
    let name = subject.replace('.', "_");
    let js = async_nats::jetstream::new(async_nats::connect(NATS).await.unwrap());
    // created by the relay below: gone first (a failed run leaves it, with its messages)
    let _ = js.delete_stream(&name).await;
    let back = crate::common::config_file(
        "broker_nats_back",
        &format!(
            "relay:\n  routes:\n    orders:\n      to: {NATS}\n      channel: {subject}\n      create_stream: true\n"
        ),
    );
    let out = relay_plain(&schema, &back);
    assert_eq!(out.code, OK, "{out:?}");
    let published = count(
        &mut conn,
        &format!("SELECT count(*) FROM {t} WHERE status = 'published'"),
    )
    .await;
    assert_eq!(published, 5);
    let mut stream = js.get_stream(&name).await.unwrap();
    let info = stream.info().await.unwrap();
    assert_eq!(info.state.messages, 5);
    assert!(
        info.config.duplicate_window >= std::time::Duration::from_secs(300),
        "window covers reclaim_stale_after"
    );
    js.delete_stream(&name).await.unwrap();
}

/// `-vv` shows the drivers' debug lines, but not a NATS URL's password (async_nats prints the
/// server's address, password and all, at debug).
#[tokio::test]
async fn nats_password_stays_out_of_the_most_verbose_logs() {
    let (schema, _conn, _t) = worked_example_outbox("broker_nats_vv").await;
    let cfg = crate::common::config_file(
        "broker_nats_vv",
        "relay:\n  routes:\n    orders:\n      to: nats://natsuser:Znatspw9@127.0.0.1:1\n",
    );
    let out = ob(["relay", "--once", "-vv"])
        .pg(&schema.rel("outbox"))
        .config(&cfg)
        .run();
    assert_eq!(out.code, CHECK_FAILED, "destination down: {out:?}");
    assert!(out.stderr.contains("DEBUG"), "debug lines shown: {out:?}");
    assert!(!format!("{out:?}").contains("Znatspw9"), "{out:?}");
}

/// A Redis that is a replica (after a failover, or the wrong address) answers PING and refuses
/// every write with READONLY: the destination is down and the rows wait with no attempt
/// counted, instead of each row spending its attempts on a server that cannot take it.
#[tokio::test]
async fn a_redis_replica_is_a_destination_down_not_a_refusal() {
    use crate::common::own_server::free_port;
    let (schema, mut conn, t) = worked_example_outbox("broker_redis_replica").await;
    let port = free_port();
    let dir = std::env::temp_dir().join(crate::common::unique_name("redis_replica"));
    std::fs::create_dir_all(&dir).unwrap();
    let replica = crate::common::KillOnDrop::new(
        std::process::Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args([
                "--replicaof",
                "127.0.0.1",
                "6379",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .arg("--dir")
            .arg(&dir)
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("redis-server (Debian's redis-server package) runs the test's replica"),
    );
    crate::common::wait_until(
        std::time::Duration::from_secs(10),
        "the replica to listen",
        || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok(),
    )
    .await;
    let cfg = crate::common::config_file(
        "broker_redis_replica",
        &format!("relay:\n  routes:\n    orders:\n      to: redis://127.0.0.1:{port}\n"),
    );
    let out = relay_plain(&schema, &cfg);
    assert_eq!(out.code, CHECK_FAILED, "{out:?}");
    assert!(out.stdout.contains("destination down"), "{out:?}");
    assert!(format!("{out:?}").contains("replica"), "{out:?}");
    crate::common::assert_no_attempts(&mut conn, &t).await;
    drop(replica);
    let _ = std::fs::remove_dir_all(&dir);
}

/// What NATS could never take is refused before it is sent, and its row parks at once with no
/// attempt counted, while the route's other rows go out: an ordering key with a line break
/// (written as it is, it ended the header and began another: a `Nats-Msg-Id` naming another
/// event made JetStream drop the message as a duplicate, acknowledged), and a message over the
/// server's `max_payload` (1 MiB; sent, the server closed the connection and every publish in
/// flight timed out, an attempt each).
#[tokio::test]
async fn nats_refuses_a_header_with_a_line_break_and_a_message_over_max_payload() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 3, Some(3)).await;
    let ids: Vec<(uuid::Uuid, uuid::Uuid)> =
        sqlx::query_as(&format!("SELECT id, event_id FROM {t} ORDER BY created_at"))
            .fetch_all(&mut conn)
            .await
            .unwrap();
    let injected = format!("k\r\nNats-Msg-Id: {}", ids[1].1);
    sqlx::query(&format!("UPDATE {t} SET ordering_key = $1 WHERE id = $2"))
        .bind(&injected)
        .bind(ids[0].0)
        .execute(&mut conn)
        .await
        .unwrap();
    sqlx::query(&format!(
        "UPDATE {t} SET payload = jsonb_build_object('blob', repeat('x', 1100000)) WHERE id = $1"
    ))
    .bind(ids[2].0)
    .execute(&mut conn)
    .await
    .unwrap();
    let subject = format!("{}.orders", schema.name);
    let js = async_nats::jetstream::new(
        async_nats::connect(NATS)
            .await
            .expect("NATS on 127.0.0.1:4222 (scripts/services.sh starts it)"),
    );
    let name = schema.name.clone();
    let _ = js.delete_stream(&name).await;
    js.create_stream(async_nats::jetstream::stream::Config {
        name: name.clone(),
        subjects: vec![subject.clone()],
        ..Default::default()
    })
    .await
    .unwrap();
    let cfg = crate::common::config_file(
        test,
        &format!("relay:\n  routes:\n    orders:\n      to: {NATS}\n      channel: {subject}\n"),
    );
    let out = relay_plain(&schema, &cfg);
    assert_eq!(out.code, CHECK_FAILED, "{out:?}");
    let rows: Vec<(String, i32, Option<String>)> = sqlx::query_as(&format!(
        "SELECT status, attempts, last_error FROM {t} ORDER BY created_at"
    ))
    .fetch_all(&mut conn)
    .await
    .unwrap();
    let error = |i: usize| rows[i].2.clone().unwrap_or_default();
    assert_eq!((rows[0].0.as_str(), rows[0].1), ("failed", 0), "{rows:?}");
    assert!(error(0).contains("line break"), "{rows:?}");
    assert_eq!(
        (rows[1].0.as_str(), rows[1].1),
        ("published", 0),
        "{rows:?}"
    );
    assert_eq!((rows[2].0.as_str(), rows[2].1), ("failed", 0), "{rows:?}");
    assert!(error(2).contains("max_payload"), "{rows:?}");
    let mut stream = js.get_stream(&name).await.unwrap();
    assert_eq!(stream.info().await.unwrap().state.messages, 1);
    let sent = stream.get_raw_message(1).await.unwrap();
    let msg_id = sent.headers.get(async_nats::header::NATS_MESSAGE_ID);
    assert_eq!(
        msg_id.map(|v| v.as_str().to_owned()),
        Some(ids[1].1.to_string())
    );
    js.delete_stream(&name).await.unwrap();
}

/// A NATS URL's credentials reach the server: `nats://user:password@host` as a user and
/// password, `nats://token@host` as a token (the client ignores a URL's user information by
/// itself). A wrong password is refused at start (exit 2); neither secret is printed, even by
/// `-vv`.
#[tokio::test]
async fn nats_credentials_in_the_url_are_sent_and_never_shown() {
    use crate::common::{OwnServer, stable_port};
    use std::path::Path;
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    for (auth, secret, url_userinfo) in [
        (
            ["--user", "relay", "--pass", "Zpw5ecret"],
            "Zpw5ecret",
            "relay:Zpw5ecret",
        ),
        (["--auth", "Tok3nZq9", "", ""], "Tok3nZq9", "Tok3nZq9"),
    ] {
        let port = stable_port();
        let args: Vec<String> = auth
            .iter()
            .filter(|a| !a.is_empty())
            .map(|a| a.to_string())
            .collect();
        let mut nats = OwnServer::new(test, Path::new("/usr/sbin/nats-server"), port, move |dir| {
            let mut c = std::process::Command::new("/usr/sbin/nats-server");
            c.args(["-a", "127.0.0.1", "-p", &port.to_string(), "-js", "-sd"])
                .arg(dir)
                .args(&args);
            c
        });
        nats.start().await;
        let url = format!("nats://{url_userinfo}@127.0.0.1:{port}");
        let options = match url_userinfo.split_once(':') {
            Some((u, p)) => async_nats::ConnectOptions::with_user_and_password(u.into(), p.into()),
            None => async_nats::ConnectOptions::with_token(secret.into()),
        };
        let client = options.connect(format!("127.0.0.1:{port}")).await.unwrap();
        let js = async_nats::jetstream::new(client);
        js.create_stream(async_nats::jetstream::stream::Config {
            name: "auth".into(),
            subjects: vec!["auth.orders".into()],
            ..Default::default()
        })
        .await
        .unwrap();
        stage(&mut conn, &t, "orders", 2, None).await;
        let cfg = crate::common::config_file(
            test,
            &format!(
                "relay:\n  routes:\n    orders:\n      to: \"{url}\"\n      channel: auth.orders\n"
            ),
        );
        let out = ob(["relay", "--once", "-vv"]).pg(&t).config(&cfg).run();
        assert_eq!(out.code, OK, "{out:?}");
        assert!(!format!("{out:?}").contains(secret), "{out:?}");
        let mut stream = js.get_stream("auth").await.unwrap();
        assert_eq!(stream.info().await.unwrap().state.messages, 2);
        // a wrong secret is the server's refusal, at start
        stage(&mut conn, &t, "orders", 1, None).await;
        let wrong = url.replace(secret, "Wr0ngZz");
        let cfg = crate::common::config_file(
            test,
            &format!(
                "relay:\n  routes:\n    orders:\n      to: \"{wrong}\"\n      channel: auth.orders\n"
            ),
        );
        let out = ob(["relay", "--once"]).pg(&t).config(&cfg).run();
        assert_eq!(out.code, ERROR, "{out:?}");
        assert!(out.stderr.contains("check the credentials"), "{out:?}");
        assert!(!out.stderr.contains("Wr0ngZz"), "{out:?}");
        sqlx::raw_sql(&format!("DELETE FROM {t}"))
            .execute(&mut conn)
            .await
            .unwrap();
        nats.stop();
    }
}
