//! Broker destinations against the real servers on this machine (NATS JetStream 4222,
//! RabbitMQ 5672, Redis 6379) and an HTTP server in the test: forze's bytes on the wire,
//! per-key order, dedup, retries when the broker is away, parking on refusal.

use std::collections::HashMap;

use futures_util::StreamExt;
use serde_json::Value;

use crate::common::{
    AMQP, CHECK_FAILED, ERROR, KeyOrder, NATS, OK, PgSchema, REDIS, WORKED_EXAMPLE_HEADERS,
    amqp_channel, count, hook, make_due, migrate, ob, payload_value, pg_url, relay, relay_plain,
    stage, worked_example_outbox,
};

/// The headers string of forze-wire.md §1.5, byte for byte (275 bytes).
const WIRE_HEADERS: &str = r#"{"forze_correlation_id":"0190c4e2-8a6c-7e4a-9b1e-000000000001","forze_event_id":"0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e","forze_hlc":"001764583200000.00003","forze_occurred_at":"2026-12-01T10:00:00+00:00","traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}"#;

async fn redis_conn() -> redis::aio::MultiplexedConnection {
    redis::Client::open(REDIS)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .expect("Redis on 127.0.0.1:6379 (scripts/services.sh starts it)")
}

async fn redis_del(r: &mut redis::aio::MultiplexedConnection, key: &str) {
    let _: () = redis::cmd("DEL").arg(key).query_async(r).await.unwrap();
}

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
    let rows: Vec<(String, String)> =
        sqlx::query_as(&format!("SELECT status, last_error FROM {t}"))
            .fetch_all(&mut conn)
            .await
            .unwrap();
    assert_eq!(rows.len(), 3);
    for (status, err) in rows {
        assert_eq!(status, "failed");
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
async fn rabbitmq_message_is_forzes_and_keeps_per_key_order() {
    use lapin::options::{BasicGetOptions, QueueDeclareOptions, QueueDeleteOptions};
    use lapin::types::{AMQPValue, FieldTable};
    let (schema, mut conn, t) = worked_example_outbox("broker_rabbitmq").await;
    stage(&mut conn, &t, "orders", 300, Some(7)).await;
    let queue = format!("{}.orders.events", schema.name);
    let (_c, ch) = amqp_channel().await;
    let _ = ch.queue_delete(&queue, QueueDeleteOptions::default()).await;
    let cfg = crate::common::config_file(
        "broker_rabbitmq",
        &format!(
            "relay:\n  routes:\n    orders:\n      to: \"{AMQP}\"\n      channel: \"{queue}\"\n"
        ),
    );
    let out = relay(&schema, &cfg, &[]);
    assert_eq!(
        out.code, ERROR,
        "a missing queue is a configuration error: {out:?}"
    );
    assert!(
        out.stderr.contains("does not exist") && out.stderr.contains("declare: true"),
        "{out:?}"
    );
    assert!(
        !out.stderr.contains("guest:guest"),
        "no password printed: {out:?}"
    );
    ch.queue_declare(
        &queue,
        QueueDeclareOptions {
            durable: true,
            ..Default::default()
        },
        FieldTable::default(),
    )
    .await
    .unwrap();
    let out = relay(&schema, &cfg, &[]);
    assert_eq!(out.code, OK, "{out:?}");
    let first = ch
        .basic_get(&queue, BasicGetOptions { no_ack: true })
        .await
        .unwrap()
        .expect("a message");
    let p = &first.delivery.properties;
    assert_eq!(
        p.content_type().as_ref().map(|s| s.as_str()),
        Some("application/json")
    );
    assert_eq!(*p.delivery_mode(), Some(2));
    assert_eq!(p.kind().as_ref().map(|s| s.as_str()), Some("order.placed"));
    let id = p.message_id().as_ref().unwrap().as_str().to_owned();
    assert!(
        id.len() == 32 && id.chars().all(|c| c.is_ascii_hexdigit()),
        "random hex message_id: {id}"
    );
    assert!(
        p.timestamp().is_none() && p.correlation_id().is_none() && p.content_encoding().is_none()
    );
    let headers: HashMap<String, String> = p
        .headers()
        .as_ref()
        .unwrap()
        .inner()
        .iter()
        .map(|(k, v)| match v {
            AMQPValue::LongString(s) => (
                k.to_string(),
                String::from_utf8(s.as_bytes().to_vec()).unwrap(),
            ),
            other => panic!("header {k} is {other:?}, not a long string"),
        })
        .collect();
    let want: HashMap<String, String> = WORKED_EXAMPLE_HEADERS
        .into_iter()
        .chain([("forze_key", "order-42")])
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    assert_eq!(headers, want);
    assert_eq!(
        payload_value(std::str::from_utf8(&first.delivery.data).unwrap()),
        payload_value(r#"{"order_id":42,"total":"19.90"}"#)
    );
    assert!(
        first.delivery.routing_key.as_str() == queue && first.delivery.exchange.as_str().is_empty()
    );
    // the rest: complete and in per-key order
    let mut order = KeyOrder::default();
    let mut n = 0;
    while let Some(m) = ch
        .basic_get(&queue, BasicGetOptions { no_ack: true })
        .await
        .unwrap()
    {
        let v = payload_value(std::str::from_utf8(&m.delivery.data).unwrap());
        let key = match m
            .delivery
            .properties
            .headers()
            .as_ref()
            .unwrap()
            .inner()
            .get("forze_key")
        {
            Some(AMQPValue::LongString(s)) => String::from_utf8(s.as_bytes().to_vec()).unwrap(),
            _ => panic!("no forze_key"),
        };
        let seq = v["n"].as_i64().unwrap();
        order.see(&key, seq);
        n += 1;
    }
    assert_eq!(n, 300);
    let _ = ch.queue_delete(&queue, QueueDeleteOptions::default()).await;
}

#[tokio::test]
async fn rabbitmq_unroutable_is_a_failed_publish_and_unreachable_is_no_attempt() {
    let test = test_name!();
    use lapin::options::ExchangeDeclareOptions;
    use lapin::types::FieldTable;
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &["--hlc-ordering", "--propagate-trace"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 3, None).await;
    // broker away: nothing attempted, --once says why and exits 1
    let away = crate::common::config_file(
        "broker_rabbitmq_away",
        "relay:\n  routes:\n    orders:\n      to: \"amqp://guest:guest@127.0.0.1:1/%2f\"\n",
    );
    let out = relay(&schema, &away, &[]);
    assert_eq!(out.code, CHECK_FAILED, "a destination down: {out:?}");
    assert!(out.stderr.contains("unreachable"), "{out:?}");
    assert!(out.stdout.contains("destination down"), "{out:?}");
    crate::common::assert_no_attempts(&mut conn, &t).await;
    // an exchange with no binding: mandatory publish comes back, the row parks after max_attempts
    let exchange = format!("{}.nowhere", schema.name);
    let (_c, ch) = amqp_channel().await;
    ch.exchange_declare(
        &exchange,
        lapin::ExchangeKind::Direct,
        ExchangeDeclareOptions::default(),
        FieldTable::default(),
    )
    .await
    .unwrap();
    make_due(&mut conn, &t).await;
    let refuse = crate::common::config_file(
        test,
        &format!(
            "relay:\n  max_attempts: 1\n  routes:\n    orders:\n      to: \"{AMQP}\"\n      exchange: \"{exchange}\"\n"
        ),
    );
    let out = relay(&schema, &refuse, &[]);
    assert_eq!(out.code, CHECK_FAILED, "{out:?}");
    let rows: Vec<(String, String)> =
        sqlx::query_as(&format!("SELECT status, last_error FROM {t}"))
            .fetch_all(&mut conn)
            .await
            .unwrap();
    for (status, err) in rows {
        assert_eq!(status, "failed");
        assert!(
            err.contains("unroutable") && err.contains("NO_ROUTE"),
            "{err}"
        );
    }
    let _ = ch.exchange_delete(&exchange, Default::default()).await;
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
    let js = async_nats::jetstream::new(async_nats::connect(NATS).await.unwrap());
    let name = subject.replace('.', "_");
    let mut stream = js.get_stream(&name).await.unwrap();
    let info = stream.info().await.unwrap();
    assert_eq!(info.state.messages, 5);
    assert!(
        info.config.duplicate_window >= std::time::Duration::from_secs(300),
        "window covers reclaim_stale_after"
    );
    js.delete_stream(&name).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_webhook_posts_the_message_retries_5xx_and_parks_4xx() {
    let (schema, mut conn, t) = worked_example_outbox("broker_http").await;
    // a 503 says the receiver is away: nothing attempted, --once exits 1 saying so
    let unavailable = hook(vec![503]).await;
    let cfg = crate::common::config_file(
        "broker_http_503",
        &format!(
            "relay:\n  routes:\n    orders:\n      to: {}\n",
            unavailable.addr
        ),
    );
    let out = relay_plain(&schema, &cfg);
    assert_eq!(out.code, CHECK_FAILED, "{out:?}");
    assert!(out.stdout.contains("destination down"), "{out:?}");
    assert!(out.stdout.contains("HTTP 503"), "{out:?}");
    crate::common::assert_no_attempts(&mut conn, &t).await;
    let server = hook(vec![500]).await;
    let cfg = crate::common::config_file(
        "broker_http",
        &format!(
            "relay:\n  routes:\n    orders:\n      to: {}\n      secret_env: OUTBOXCTL_TEST_HOOK_SECRET\n      timeout: 2s\n",
            server.addr
        ),
    );
    // the relay with the webhook's secret in its environment
    let relay = || {
        ob(["relay", "--once", "--hlc-ordering", "--propagate-trace"])
            .pg(&schema.rel("outbox"))
            .config(&cfg)
            .env("OUTBOXCTL_TEST_HOOK_SECRET", "s3cret")
    };
    relay().code(OK);
    let (attempts, err): (i32, String) =
        sqlx::query_as(&format!("SELECT attempts, last_error FROM {t}"))
            .fetch_one(&mut conn)
            .await
            .unwrap();
    assert_eq!(
        (attempts, err.as_str()),
        (1, "HTTP 500: the service said no")
    );
    make_due(&mut conn, &t).await;
    relay().code(OK);
    let status: String = sqlx::query_scalar(&format!("SELECT status FROM {t}"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(status, "published");
    let reqs = server.requests.lock().unwrap().clone();
    assert_eq!(reqs.len(), 2);
    let (h, body) = &reqs[1];
    assert_eq!(h["idempotency-key"], "0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e");
    assert_eq!(h["forze_event_id"], "0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e");
    assert_eq!(h["forze_hlc"], "001764583200000.00003");
    assert_eq!(h["content-type"], "application/json");
    assert_eq!(
        h["x-outboxctl-signature"],
        outboxctl::destination::http::signature(b"s3cret", body.as_bytes())
    );
    let v: Value = serde_json::from_str(body).unwrap();
    assert_eq!(v["type"], "order.placed");
    assert_eq!(v["key"], "order-42");
    assert_eq!(
        v["payload"],
        payload_value(r#"{"order_id":42,"total":"19.90"}"#)
    );

    // a 422 parks the row at once, with the status and an excerpt of the body
    stage(&mut conn, &t, "orders", 1, None).await;
    let server = hook(vec![422]).await;
    let cfg = crate::common::config_file(
        "broker_http_422",
        &format!(
            "relay:\n  routes:\n    orders:\n      to: {}\n",
            server.addr
        ),
    );
    let out = relay_plain(&schema, &cfg);
    assert_eq!(out.code, CHECK_FAILED, "{out:?}");
    let (status, attempts, err): (String, i32, String) =
        sqlx::query_as(&format!("SELECT status, attempts, last_error FROM {t} WHERE event_type <> 'order.placed' OR status <> 'published'")).fetch_one(&mut conn).await.unwrap();
    assert_eq!(
        (status.as_str(), attempts, err.as_str()),
        ("failed", 0, "HTTP 422: the service said no")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_webhook_batches_post_arrays_and_share_the_outcome() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 100, Some(10)).await;
    let server = hook(vec![]).await;
    let cfg = crate::common::config_file(
        test,
        &format!(
            "relay:\n  routes:\n    orders:\n      to: {}\n      batch: 25\n",
            server.addr
        ),
    );
    let out = relay_plain(&schema, &cfg);
    assert_eq!(out.code, OK, "{out:?}");
    let published = count(
        &mut conn,
        &format!("SELECT count(*) FROM {t} WHERE status = 'published'"),
    )
    .await;
    assert_eq!(published, 100);
    let reqs = server.requests.lock().unwrap().clone();
    assert!(
        reqs.len() < 100,
        "{} requests for 100 events: not batched",
        reqs.len()
    );
    let mut seen = std::collections::HashSet::new();
    let mut order = KeyOrder::default();
    let mut keys = std::collections::HashSet::new();
    for (h, body) in &reqs {
        let items: Vec<Value> = serde_json::from_str(body).unwrap();
        assert!(!items.is_empty() && items.len() <= 25, "{}", items.len());
        assert_eq!(h["x-outboxctl-batch-size"], items.len().to_string());
        assert_eq!(h["content-type"], "application/json");
        assert!(
            keys.insert(h["idempotency-key"].clone()),
            "one key per batch"
        );
        let mut digest = <sha2::Sha256 as sha2::Digest>::new();
        for v in &items {
            let id: uuid::Uuid = v["event_id"].as_str().unwrap().parse().unwrap();
            sha2::Digest::update(&mut digest, id.as_bytes());
        }
        let want: String = sha2::Digest::finalize(digest)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(h["idempotency-key"], want, "SHA-256 of the event ids");
        for v in items {
            assert!(seen.insert(v["event_id"].as_str().unwrap().to_owned()));
            let key = v["key"].as_str().unwrap().to_owned();
            let n = v["payload"]["n"].as_i64().unwrap();
            order.see(&key, n);
        }
    }
    assert_eq!(seen.len(), 100, "every event once");

    // a refused batch parks every event in it
    stage(&mut conn, &t, "refused", 3, None).await;
    let server = hook(vec![422, 422, 422]).await;
    let cfg = crate::common::config_file(
        "broker_http_batch_422",
        &format!(
            "relay:\n  routes:\n    refused:\n      to: {}\n      batch: 10\n",
            server.addr
        ),
    );
    let out = relay_plain(&schema, &cfg);
    assert_eq!(out.code, CHECK_FAILED, "{out:?}");
    let parked = count(&mut conn, &format!("SELECT count(*) FROM {t} WHERE outbox_route = 'refused' AND status = 'failed' AND last_error = 'HTTP 422: the service said no'")).await;
    assert_eq!(parked, 3, "{out:?}");
}

#[test]
fn options_that_do_not_apply_are_refused_by_name() {
    let cases = [
        (
            "to: redis://127.0.0.1:6379\n      exchange: x",
            "relay.routes.orders.exchange does not apply to a redis destination",
        ),
        (
            "to: kafka://127.0.0.1:19092\n      partitions: 3",
            "partitions applies with create_topic: true only",
        ),
        (
            "to: \"nats://relay:${OUTBOXCTL_TEST_UNSET}@127.0.0.1:4222\"",
            "relay.routes.orders.to: ${OUTBOXCTL_TEST_UNSET} is not set in the environment",
        ),
    ];
    for (i, (route, expected)) in cases.into_iter().enumerate() {
        let cfg = crate::common::config_file(
            &format!("broker_bad_option_{i}"),
            &format!("relay:\n  routes:\n    orders:\n      {route}\n"),
        );
        let out = ob([
            "relay",
            "--once",
            "--database-url",
            &pg_url(),
            "--config",
            &cfg,
        ])
        .run();
        assert_eq!(out.code, ERROR, "{out:?}");
        assert!(out.stderr.contains(expected), "{out:?}");
    }
}

/// `doctor` connects to each route's broker as the relay would, and changes nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_checks_each_destination_without_changing_it() {
    let test = test_name!();
    use crate::common::{KAFKA_ADDR, client, create_topic, delete_topic};
    use rdkafka::consumer::{BaseConsumer, Consumer};
    let (schema, _conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let there = format!("{}.there", schema.name);
    let later = format!("{}.later", schema.name);
    delete_topic(KAFKA_ADDR, &there).await;
    delete_topic(KAFKA_ADDR, &later).await;
    create_topic(KAFKA_ADDR, &there, 1).await;
    let cfg = crate::common::config_file(
        test,
        &format!(
            "relay:
  routes:
    a_there:
      to: kafka://{KAFKA_ADDR}
      channel: {there}
    b_later:
      to: kafka://{KAFKA_ADDR}
      channel: {later}
      create_topic: true
    c_nostream:
      to: {NATS}
      channel: {}.nostream
    d_away:
      to: kafka://127.0.0.1:1
      channel: x
    e_hook:
      to: http://127.0.0.1:1/hook
    f_redis:
      to: {REDIS}
      channel: {}:fresh
    g_wrongtype:
      to: {REDIS}
      channel: {}:string
    h_redis_away:
      to: redis://127.0.0.1:1
",
            schema.name, schema.name, schema.name
        ),
    );
    let mut r = redis_conn().await;
    let string_key = format!("{}:string", schema.name);
    let _: () = redis::cmd("SET")
        .arg(&string_key)
        .arg("x")
        .query_async(&mut r)
        .await
        .unwrap();
    let (url, rel) = (pg_url(), schema.rel("outbox"));
    let out = ob([
        "doctor",
        "--format",
        "json",
        "--database-url",
        &url,
        "--relation",
        &rel,
        "--config",
        &cfg,
    ])
    .run();
    assert_eq!(out.code, CHECK_FAILED, "{out:?}");
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let found: Vec<(String, String)> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["check"] == "destination")
        .map(|c| {
            (
                c["level"].as_str().unwrap().to_owned(),
                c["detail"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let levels: Vec<&str> = found.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(
        levels,
        ["ok", "ok", "fail", "fail", "ok", "ok", "fail", "fail"],
        "{found:#?}"
    );
    assert!(found[0].1.contains("reachable"), "{found:?}");
    assert!(found[1].1.contains("will create"), "{found:?}");
    assert!(found[2].1.contains("no JetStream stream"), "{found:?}");
    assert!(found[3].1.contains("unreachable"), "{found:?}");
    assert!(found[4].1.contains("not contacted"), "{found:?}");
    assert!(
        found[5].1.contains("will be created by the first XADD"),
        "{found:?}"
    );
    assert!(found[6].1.contains("holds a string"), "{found:?}");
    assert!(found[7].1.contains("Redis is unreachable"), "{found:?}");
    redis_del(&mut r, &string_key).await;
    // nothing was created
    let consumer: BaseConsumer = client(KAFKA_ADDR).create().unwrap();
    let later2 = later.clone();
    let metadata = tokio::task::spawn_blocking(move || {
        consumer
            .fetch_metadata(Some(&later2), std::time::Duration::from_secs(10))
            .unwrap()
    })
    .await
    .unwrap();
    let topic = &metadata.topics()[0];
    assert!(
        topic.error().is_some() || topic.partitions().is_empty(),
        "doctor created {later}"
    );
    delete_topic(KAFKA_ADDR, &there).await;
}

/// Every route's options are checked before any destination is contacted: a wrong option on
/// the fourth route stops the relay (exit 2, naming it) without a connection attempt to the
/// first three.
#[tokio::test]
async fn a_wrong_option_on_a_later_route_fails_before_any_broker_is_contacted() {
    let test = test_name!();
    let (schema, _conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let cfg = crate::common::config_file(
        test,
        "relay:\n  routes:\n    r1:\n      to: nats://127.0.0.1:1\n    r2:\n      to: \"amqp://guest:guest@127.0.0.1:1/\"\n    r3:\n      to: kafka://127.0.0.1:1\n    r4:\n      to: stdout\n      channel: nope\n",
    );
    let out = relay_plain(&schema, &cfg);
    assert_eq!(out.code, ERROR, "{out:?}");
    assert!(out.stderr.contains("relay.routes.r4.channel"), "{out:?}");
    assert!(
        !out.stderr.contains("unreachable"),
        "no destination was contacted: {out:?}"
    );
}
