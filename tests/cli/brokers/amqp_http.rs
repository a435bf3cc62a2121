//! RabbitMQ and the HTTP webhook: forze's message, per-key order, unroutable and unreachable, retries, batches.

use super::*;

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
    // broker away: nothing attempted, --once says why and exits 1
    let away = crate::common::config_file(
        "broker_rabbitmq_away",
        "relay:\n  routes:\n    orders:\n      to: \"amqp://guest:guest@127.0.0.1:1/%2f\"\n",
    );
    // with no row pending too: a drain that sent nothing asks the broker (it exited 0, unsaid)
    let out = relay(&schema, &away, &[]);
    assert_eq!(out.code, CHECK_FAILED, "a destination down: {out:?}");
    assert!(out.stdout.contains("destination down"), "{out:?}");
    stage(&mut conn, &t, "orders", 3, None).await;
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
    for err in parked_errors(&mut conn, &t).await {
        assert!(
            err.contains("unroutable") && err.contains("NO_ROUTE"),
            "{err}"
        );
    }
    let _ = ch.exchange_delete(&exchange, Default::default()).await;
    // an exchange that does not exist: refused at start, named, as a missing queue is (the
    // first publish's NOT_FOUND closed the channel and every publish in flight with it, which
    // then looked like a broker away; an exchange deleted while the relay runs is still a
    // refusal of the publish, an attempt: the unit test of `closed`)
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET status = 'pending', attempts = 0, available_at = NULL, last_error = NULL"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let missing = crate::common::config_file(
        &format!("{test}_missing"),
        &format!(
            "relay:\n  max_attempts: 1\n  routes:\n    orders:\n      to: \"{AMQP}\"\n      exchange: \"{exchange}.missing\"\n"
        ),
    );
    let out = relay(&schema, &missing, &[]);
    assert_eq!(out.code, ERROR, "{out:?}");
    let named = format!("exchange {exchange}.missing does not exist");
    assert!(out.stderr.contains(&named), "{out:?}");
    crate::common::assert_no_attempts(&mut conn, &t).await;
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

/// A webhook that redirects has not received the event (a followed POST arrives as a GET
/// without its body): retried, with why. The URL's password never reaches a message, the
/// summary or the row.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_webhook_redirects_and_credentials() {
    let (schema, mut conn, t) = worked_example_outbox("broker_http_odd").await;
    let row = async |conn: &mut sqlx::PgConnection| -> (String, i32, Option<String>) {
        sqlx::query_as(&format!("SELECT status, attempts, last_error FROM {t}"))
            .fetch_one(conn)
            .await
            .unwrap()
    };
    let config = |name: &str, to: &str| {
        crate::common::config_file(
            name,
            &format!("relay:\n  routes:\n    orders:\n      to: {to}\n"),
        )
    };
    let server = hook(vec![302; 4]).await;
    let out = relay_plain(&schema, &config("broker_http_302", &server.addr));
    assert_eq!(out.code, OK, "{out:?}");
    let (status, attempts, error) = row(&mut conn).await;
    assert_eq!((status.as_str(), attempts), ("pending", 1), "{error:?}");
    assert!(error.unwrap().contains("redirects are not followed"));
    let methods: Vec<String> = (server.requests.lock().unwrap().iter())
        .map(|(h, _)| h[":method"].clone())
        .collect();
    assert_eq!(methods, ["POST"], "no GET after it");
    // nothing listens: the destination is down, and says so without the password
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET available_at = NULL, last_error = NULL"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let to = "http://hookuser:Zpw12345@127.0.0.1:1/hook";
    let out = relay_plain(&schema, &config("broker_http_down", to));
    assert_eq!(out.code, CHECK_FAILED, "{out:?}");
    assert!(out.stdout.contains("destination down"), "{out:?}");
    assert!(!format!("{out:?}").contains("Zpw12345"), "{out:?}");
    assert_eq!(row(&mut conn).await.2, None);
}

/// An `event_type` longer than the AMQP `type` property holds (255 bytes) is refused for good
/// before it is sent: the row parks at once, the broker keeps its connection and the route's
/// other rows go out. (Sent, it broke the frame; the broker closed the connection, and the
/// relay took the route for down and claimed the row first again after every probe.)
#[tokio::test]
async fn rabbitmq_an_event_type_over_255_bytes_parks_at_once() {
    use lapin::options::{QueueDeclareOptions, QueueDeleteOptions};
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 3, None).await;
    let long = "t".repeat(300);
    sqlx::query(&format!(
        "UPDATE {t} SET event_type = $1 WHERE id = (SELECT id FROM {t} ORDER BY created_at LIMIT 1)"
    ))
    .bind(&long)
    .execute(&mut conn)
    .await
    .unwrap();
    let queue = format!("{}.orders.long", schema.name);
    let (_c, ch) = amqp_channel().await;
    let _ = ch.queue_delete(&queue, QueueDeleteOptions::default()).await;
    let durable = QueueDeclareOptions {
        durable: true,
        ..Default::default()
    };
    ch.queue_declare(&queue, durable, Default::default())
        .await
        .unwrap();
    let cfg = crate::common::config_file(
        test,
        &format!(
            "relay:\n  routes:\n    orders:\n      to: \"{AMQP}\"\n      channel: \"{queue}\"\n"
        ),
    );
    let out = relay_plain(&schema, &cfg);
    assert_eq!(out.code, CHECK_FAILED, "one row parked: {out:?}");
    assert!(!out.stdout.contains("destination down"), "{out:?}");
    let rows: Vec<(String, String, i32, Option<String>)> = sqlx::query_as(&format!(
        "SELECT event_type, status, attempts, last_error FROM {t} ORDER BY created_at"
    ))
    .fetch_all(&mut conn)
    .await
    .unwrap();
    let (_, status, attempts, error) = &rows[0];
    assert_eq!((status.as_str(), *attempts), ("failed", 0), "{rows:?}");
    assert!(
        error.as_deref().unwrap().contains("255 at most"),
        "{rows:?}"
    );
    for (kind, status, _, _) in &rows[1..] {
        assert_eq!(
            (kind.as_str(), status.as_str()),
            ("order.placed", "published")
        );
    }
    let count = ch
        .queue_declare(
            &queue,
            QueueDeclareOptions {
                passive: true,
                ..durable
            },
            Default::default(),
        )
        .await
        .unwrap()
        .message_count();
    assert_eq!(count, 2, "the route's other rows went out");
    let _ = ch.queue_delete(&queue, QueueDeleteOptions::default()).await;
}

/// A message whose headers HTTP cannot carry (an ordering key with a line break) is refused
/// for good before any request: the row parks at once, and the route's other rows go out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_webhook_parks_a_header_it_cannot_send_at_once() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 3, Some(3)).await;
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET ordering_key = E'k\\r\\nX-Injected: 1' WHERE id = (SELECT id FROM {t} ORDER BY created_at LIMIT 1)"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let server = hook(vec![]).await;
    let cfg = crate::common::config_file(
        test,
        &format!(
            "relay:\n  routes:\n    orders:\n      to: {}\n",
            server.addr
        ),
    );
    let out = relay_plain(&schema, &cfg);
    assert_eq!(out.code, CHECK_FAILED, "{out:?}");
    let rows: Vec<(String, i32, Option<String>)> = sqlx::query_as(&format!(
        "SELECT status, attempts, last_error FROM {t} ORDER BY created_at"
    ))
    .fetch_all(&mut conn)
    .await
    .unwrap();
    assert_eq!((rows[0].0.as_str(), rows[0].1), ("failed", 0), "{rows:?}");
    assert!(
        rows[0].2.as_deref().unwrap().contains("cannot be made"),
        "{rows:?}"
    );
    assert!(rows[1..].iter().all(|r| r.0 == "published"), "{rows:?}");
    let requests = server.requests.lock().unwrap().len();
    assert_eq!(requests, 2, "no request for the parked row");
}

/// An exchange deleted under a running relay is away, as a missing queue is: the routes wait,
/// no attempt is counted, and everything goes once it is declared again (each publish was a
/// refusal, an attempt: the backlog was parked within seconds).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exchange_deleted_under_a_running_relay_keeps_its_destination_down() {
    use crate::common::{assert_no_attempts, config_file, out_file, spawn_loop_relay};
    use crate::common::{wait_log, wait_rows, wait_until};
    use lapin::options::{ExchangeDeclareOptions, QueueBindOptions, QueueDeclareOptions};
    use lapin::types::FieldTable;
    use std::time::{Duration, Instant};
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    let (exchange, queue) = (format!("{}.x", schema.name), format!("{}.q", schema.name));
    let (_c, ch) = amqp_channel().await;
    let declare = async || {
        (ch.exchange_declare(
            &exchange,
            lapin::ExchangeKind::Direct,
            ExchangeDeclareOptions::default(),
            FieldTable::default(),
        ))
        .await
        .unwrap();
        (ch.queue_bind(
            &queue,
            &exchange,
            &queue,
            QueueBindOptions::default(),
            FieldTable::default(),
        ))
        .await
        .unwrap();
    };
    let durable = QueueDeclareOptions {
        durable: true,
        ..Default::default()
    };
    // a queue a run before this one left
    let _ = ch.queue_delete(&queue, Default::default()).await;
    ch.queue_declare(&queue, durable, FieldTable::default())
        .await
        .unwrap();
    declare().await;
    let cfg = config_file(
        test,
        &format!(
            "relay:\n  interval: 100ms\n  retry_base_delay: 100ms\n  retry_max_backoff: 300ms\n  max_attempts: 2\n  routes:\n    orders:\n      to: \"{AMQP}\"\n      exchange: \"{exchange}\"\n      channel: \"{queue}\"\n"
        ),
    );
    let log = out_file(test).with_extension("log");
    let relay = spawn_loop_relay(&t, &cfg, &log);
    stage(&mut conn, &t, "orders", 10, Some(2)).await;
    let published = format!("SELECT count(*) FROM {t} WHERE status = 'published'");
    wait_rows(&mut conn, &published, 10).await;
    ch.exchange_delete(&exchange, Default::default())
        .await
        .unwrap();
    stage(&mut conn, &t, "orders", 10, Some(2)).await;
    wait_log(&log, &format!("exchange {exchange} does not exist"), 1).await;
    let since = Instant::now();
    wait_until(Duration::from_secs(30), "a few probes (2s)", || {
        since.elapsed() >= Duration::from_secs(2)
    })
    .await;
    assert_no_attempts(&mut conn, &t).await;
    assert_eq!(count(&mut conn, &published).await, 10);
    declare().await;
    wait_rows(&mut conn, &published, 20).await;
    assert!(relay.terminate().success());
    assert_no_attempts(&mut conn, &t).await;
    let q = ch
        .queue_declare(
            &queue,
            QueueDeclareOptions {
                passive: true,
                ..Default::default()
            },
            FieldTable::default(),
        )
        .await
        .unwrap();
    assert_eq!(q.message_count(), 20, "every event once");
    let _ = ch.queue_delete(&queue, Default::default()).await;
    let _ = ch.exchange_delete(&exchange, Default::default()).await;
}

/// A receiver that answers its probe (`HEAD`, 200) and refuses every publish as unavailable
/// (`POST`, 503): found down again right after it came back, the route waits twice as long
/// each time (up to `retry_max_backoff`), no attempt counted; once it takes the post, the row
/// goes. It was found back and down again every interval, a warning and a line each, for as
/// long as it lasted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receiver_that_answers_its_probe_and_refuses_each_post_is_asked_less_often() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 1, None).await;
    // the probe's HEAD (200), then the pass's POST (503), six times over; then 200 for all
    let server = hook([200, 503].repeat(6)).await;
    let cfg = crate::common::config_file(
        test,
        &format!(
            "relay:\n  interval: 100ms\n  retry_max_backoff: 2s\n  routes:\n    orders:\n      to: {}\n",
            server.addr
        ),
    );
    let log = crate::common::out_file(test).with_extension("log");
    let relay = crate::common::spawn_loop_relay(&t, &cfg, &log);
    crate::common::wait_log(&log, "HTTP 503", 1).await;
    crate::common::wait_log(&log, "(asked again in 800ms)", 1).await;
    crate::common::assert_no_attempts(&mut conn, &t).await;
    let published = format!("SELECT count(*) FROM {t} WHERE status = 'published'");
    crate::common::wait_rows(&mut conn, &published, 1).await;
    assert!(relay.terminate().success());
}
