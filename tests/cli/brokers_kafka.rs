//! The Kafka destination against a real Kafka-protocol broker (tansu on 127.0.0.1:19092,
//! started by scripts/services.sh): forze-wire §4's record (key, value, headers in order),
//! the partition forze's murmur2 partitioner picks, per-key order, topic checks, retries while
//! the broker is away, parking on refusal.

use std::collections::HashMap;
use std::time::Duration;

use crate::common::{
    CHECK_FAILED, ERROR, KAFKA_ADDR, OK, PgSchema, Record, config_file, count, create_topic,
    delete_topic, kafka_url, make_due, migrate, read_records, stage, tansu,
};
use crate::common::{
    KeyOrder, WORKED_EXAMPLE_HEADERS, payload_value, relay, relay_plain, worked_example_outbox,
};

fn topic_config(test: &str, topic: &str, extra: &str) -> String {
    config_file(
        test,
        &format!(
            "relay:\n  routes:\n    orders:\n      to: {}\n      channel: {topic}\n{extra}",
            kafka_url()
        ),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_record_is_forzes_partitioned_like_forze_in_key_order() {
    let (schema, mut conn, t) = worked_example_outbox("broker_kafka").await;
    stage(&mut conn, &t, "orders", 200, Some(7)).await;
    let topic = format!("{}.orders", schema.name);
    delete_topic(KAFKA_ADDR, &topic).await;
    delete_topic(KAFKA_ADDR, &format!("{topic}7")).await;

    // no topic: a configuration error naming the fix, nothing claimed
    let cfg = topic_config("broker_kafka", &topic, "");
    let out = relay(&schema, &cfg, &[]);
    assert_eq!(out.code, ERROR, "{out:?}");
    assert!(
        out.stderr.contains("does not exist") && out.stderr.contains("create_topic"),
        "{out:?}"
    );
    let pending = count(
        &mut conn,
        &format!("SELECT count(*) FROM {t} WHERE status = 'pending'"),
    )
    .await;
    assert_eq!(pending, 201);

    create_topic(KAFKA_ADDR, &topic, 5).await;
    let out = relay(&schema, &cfg, &[]);
    assert_eq!(out.code, OK, "{out:?}");
    let records = read_records(KAFKA_ADDR, &topic, 5, 201);
    assert_eq!(records.len(), 201);

    // forze-wire §4.5, field by field
    let example: Vec<&Record> = records.iter().filter(|r| r.key == "order-42").collect();
    assert_eq!(example.len(), 1, "{records:?}");
    let r = example[0];
    assert_eq!(
        r.partition, 4,
        "murmur2(\"order-42\") = 0x1DDEFD00 → partition 4 of 5"
    );
    assert_eq!(
        payload_value(&r.value),
        payload_value(r#"{"order_id":42,"total":"19.90"}"#)
    );
    let expected: Vec<(&str, &str)> = WORKED_EXAMPLE_HEADERS
        .into_iter()
        .chain([("forze_type", "order.placed")])
        .collect();
    let got: Vec<(&str, &str)> = r
        .headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(got, expected, "headers in forze's order, forze_type last");

    // each key on one partition, its events in staging order
    let mut partition_of: HashMap<&str, i32> = HashMap::new();
    let mut order = KeyOrder::default();
    for r in records.iter().filter(|r| r.key != "order-42") {
        let p = *partition_of.entry(&r.key).or_insert(r.partition);
        assert_eq!(p, r.partition, "key {} on two partitions", r.key);
        let n = payload_value(&r.value)["n"].as_i64().unwrap();
        order.see(&r.key, n);
    }
    assert_eq!(order.keys(), 7);

    // create_topic: the relay creates a 7-partition topic; order-42 lands on partition 1
    let seven = format!("{topic}7");
    let cfg7 = topic_config(
        "broker_kafka7",
        &seven,
        "      create_topic: true\n      partitions: 7\n",
    );
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET status = 'pending' WHERE ordering_key = 'order-42'"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let out = relay(&schema, &cfg7, &[]);
    assert_eq!(out.code, OK, "{out:?}");
    assert!(out.stderr.contains("created topic"), "{out:?}");
    let again = read_records(KAFKA_ADDR, &seven, 7, 1);
    assert_eq!((again[0].key.as_str(), again[0].partition), ("order-42", 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_away_is_no_attempt_then_delivers_and_refusal_parks() {
    let test = test_name!();
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 5, Some(2)).await;
    let away = config_file(
        test,
        "relay:\n  publish_timeout: 1s\n  routes:\n    orders:\n      to: kafka://127.0.0.1:1\n      channel: nowhere\n",
    );
    let out = relay_plain(&schema, &away);
    assert!(out.stderr.contains("Kafka is unreachable"), "{out:?}");
    assert_eq!(out.code, CHECK_FAILED, "a destination down: {out:?}");
    assert!(out.stdout.contains("destination down"), "{out:?}");
    assert!(
        out.stderr.contains(
            "error: relay --once: failed rows, failed passes or a destination down on orders"
        ),
        "one line sums it up: {out:?}"
    );
    crate::common::assert_no_attempts(&mut conn, &t).await;

    // back: the same rows go out; a record over the producer's 1 MB limit is parked at once
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET available_at = NULL;
         INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, ordering_key)
         VALUES (gen_random_uuid(), 'orders', gen_random_uuid(), 'big', now(),
                 jsonb_build_object('blob', repeat('x', 1100000)), 'pending', now(), 'big')"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let topic = format!("{}.orders", schema.name);
    delete_topic(KAFKA_ADDR, &topic).await;
    create_topic(KAFKA_ADDR, &topic, 2).await;
    let back = topic_config("broker_kafka_back", &topic, "");
    let out = relay_plain(&schema, &back);
    assert_eq!(out.code, CHECK_FAILED, "a parked row: exit 1 {out:?}");
    let published = count(
        &mut conn,
        &format!("SELECT count(*) FROM {t} WHERE status = 'published'"),
    )
    .await;
    assert_eq!(published, 5, "{out:?}");
    let (status, attempts, error): (String, i32, String) = sqlx::query_as(&format!(
        "SELECT status, attempts, last_error FROM {t} WHERE ordering_key = 'big'"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(
        (status.as_str(), attempts),
        ("failed", 0),
        "parked at once: {error}"
    );
    assert!(error.to_lowercase().contains("too large"), "{error}");
    assert_eq!(read_records(KAFKA_ADDR, &topic, 2, 5).len(), 5);
}

/// A Kafka broker down at the start of a looping relay: its routes connect at once, each
/// costing the check's 5 s together rather than one after another (four routes kept the relay,
/// its file route and its endpoint from starting for 20 s), and the log loses no line: each
/// route says `route ready`. (With the log filter as the log layer's own, lines logged while
/// librdkafka's threads logged were lost, `route ready` among them.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kafka_broker_down_at_start_holds_the_start_once_and_loses_no_log_line() {
    let test = test_name!();
    let (schema, _conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let (path, log) = (
        crate::common::out_file(test),
        crate::common::out_file(&format!("{test}-log")),
    );
    let kafka: String = (1..=4)
        .map(|i| format!("    k{i}:\n      to: kafka://127.0.0.1:1\n      channel: nowhere{i}\n"))
        .collect();
    let cfg = config_file(
        test,
        &format!(
            "relay:\n  routes:\n{kafka}    f:\n      to: file:{}\n",
            path.display()
        ),
    );
    let started = std::time::Instant::now();
    let relay = crate::common::ob(["relay", "--loop"])
        .pg(&schema.rel("outbox"))
        .config(&cfg)
        .spawn(Some(&log));
    let read = || std::fs::read_to_string(&log).unwrap_or_default();
    crate::common::wait_until(Duration::from_secs(30), "the relay started", || {
        read().contains("relay started")
    })
    .await;
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(15),
        "started after {took:?}: the routes connected one by one"
    );
    let text = read();
    for route in ["k1", "k2", "k3", "k4", "f"] {
        let ready = format!("route ready route={route} ");
        assert!(text.contains(&ready), "no `{ready}`:\n{text}");
    }
    assert_eq!(text.matches("Kafka is unreachable").count(), 4, "{text}");
    assert!(relay.terminate().success());
}

/// Routes connect at once, so a later route may create its topic while an earlier one cannot
/// start: the relay stops (exit 2, the failing route named) and still says what it created,
/// which a rerun would find there and never mention.
#[tokio::test]
async fn a_route_that_cannot_start_still_lets_the_others_say_what_they_created() {
    let test = test_name!();
    let (schema, _conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let topic = format!("{}.created", schema.name);
    delete_topic(KAFKA_ADDR, &topic).await;
    let cfg = config_file(
        test,
        &format!(
            "relay:\n  routes:\n    a_bad:\n      to: file:/no/such/folder/x.jsonl\n    b_new:\n      to: {}\n      channel: {topic}\n      create_topic: true\n",
            kafka_url()
        ),
    );
    let out = relay_plain(&schema, &cfg);
    assert_eq!(out.code, ERROR, "{out:?}");
    assert!(out.stderr.contains("/no/such/folder"), "{out:?}");
    let created = format!("route b_new: created topic {topic}");
    assert!(out.stderr.contains(&created), "{out:?}");
    delete_topic(KAFKA_ADDR, &topic).await;
}

/// A self-signed certificate for 127.0.0.1 (`cert.pem`, `key.pem` in `dir`), by the openssl CLI.
fn self_signed(dir: &std::path::Path) -> std::path::PathBuf {
    let status = std::process::Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            "key.pem",
            "-out",
            "cert.pem",
        ])
        .current_dir(dir)
        .stderr(std::process::Stdio::null())
        .status()
        .expect("the openssl CLI (apt-get install openssl; scripts/services.sh installs it)");
    assert!(status.success());
    dir.join("cert.pem")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_over_tls_verifies_the_broker_certificate() {
    let test = test_name!();
    use crate::common::{OwnServer, free_port};
    use std::path::PathBuf;
    // tansu 0.6's TLS options cannot be combined on its command line, so a socat TLS front
    // ends the connections; tansu advertises the front's port, so every client goes through it.
    let (inner, outer) = (free_port(), free_port());
    let mut tansu = OwnServer::new(
        "tls_tansu",
        &crate::restarts::tansu_bin(),
        inner,
        move |dir| tansu(dir, inner, outer, "memory://tansu/"),
    );
    let mut front = OwnServer::new(
        "tls_front",
        &PathBuf::from("/usr/bin/socat"),
        outer,
        move |dir| {
            let cert = self_signed(dir);
            let mut c = std::process::Command::new("/usr/bin/socat");
            c.arg(format!(
                "OPENSSL-LISTEN:{outer},bind=127.0.0.1,reuseaddr,fork,cert={},key={},verify=0",
                cert.display(),
                dir.join("key.pem").display()
            ))
            .arg(format!("TCP:127.0.0.1:{inner}"));
            c
        },
    );
    tansu.start().await;
    front.start().await;
    let ca = front.dir.join("cert.pem");
    let trusted = format!(
        "kafkas://127.0.0.1:{outer}?ssl_ca_location={}",
        ca.display()
    );
    let topic = "tls.orders";
    create_topic(&trusted, topic, 2).await;

    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 20, Some(4)).await;
    let published_sql = format!("SELECT count(*) FROM {t} WHERE status = 'published'");

    // the system's CAs do not trust the self-signed certificate: nothing is published
    let untrusted = config_file(
        "broker_kafka_tls_untrusted",
        &format!(
            "relay:\n  publish_timeout: 2s\n  routes:\n    orders:\n      to: kafkas://127.0.0.1:{outer}\n      channel: {topic}\n"
        ),
    );
    let out = relay_plain(&schema, &untrusted);
    assert_eq!(out.code, CHECK_FAILED, "a destination down: {out:?}");
    assert!(out.stderr.contains("certificate verify failed"), "{out:?}");
    assert!(out.stdout.contains("destination down"), "{out:?}");
    let published = count(&mut conn, &published_sql).await;
    assert_eq!(published, 0, "{out:?}");

    // with the CA: every event, read back over TLS
    make_due(&mut conn, &t).await;
    let cfg = config_file(
        test,
        &format!(
            "relay:\n  routes:\n    orders:\n      to: \"{trusted}\"\n      channel: {topic}\n"
        ),
    );
    let out = relay_plain(&schema, &cfg);
    assert_eq!(out.code, OK, "{out:?}");
    let published = count(&mut conn, &published_sql).await;
    assert_eq!(published, 20, "{out:?}");
    let records = tokio::task::spawn_blocking(move || read_records(&trusted, topic, 2, 20))
        .await
        .unwrap();
    assert_eq!(records.len(), 20);
}

/// SASL/SCRAM-SHA-512 against a tansu of the test's own that requires authentication (the user
/// is created while authentication is off, then the broker restarts with it on; SQLite storage
/// keeps the user).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_sasl_scram_authenticates_and_wrong_password_is_refused() {
    let test = test_name!();
    use crate::common::{OwnServer, free_port};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let port = free_port();
    let tansu_bin = crate::restarts::tansu_bin();
    let auth = Arc::new(AtomicBool::new(false));
    let auth_on = auth.clone();
    let mut tansu = OwnServer::new("sasl_tansu", &tansu_bin, port, move |dir| {
        let mut c = tansu(dir, port, port, "sqlite://tansu.db");
        if auth_on.load(Ordering::SeqCst) {
            c.arg("--authentication");
        }
        c
    });
    tansu.start().await;
    let created = std::process::Command::new(&tansu_bin)
        .args([
            "user",
            "create",
            "--broker",
            &format!("tcp://127.0.0.1:{port}"),
        ])
        .args(["relay", "s3cret", "--mechanism", "scram512"])
        .output()
        .unwrap();
    assert!(created.status.success(), "{created:?}");
    let topic = "sasl.orders";
    create_topic(&format!("127.0.0.1:{port}"), topic, 1).await;
    tansu.stop();
    auth.store(true, Ordering::SeqCst);
    tansu.start().await;

    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 10, Some(2)).await;
    let published_sql = format!("SELECT count(*) FROM {t} WHERE status = 'published'");
    let url = |password: &str| {
        format!("kafka://relay:{password}@127.0.0.1:{port}?sasl_mechanism=SCRAM-SHA-512")
    };
    let cfg = |name: &str, password: &str| {
        config_file(
            name,
            &format!(
                "relay:\n  publish_timeout: 2s\n  routes:\n    orders:\n      to: \"{}\"\n      channel: {topic}\n",
                url(password)
            ),
        )
    };
    let out = relay_plain(&schema, &cfg("broker_kafka_sasl_wrong", "wrong"));
    assert_eq!(
        out.code, ERROR,
        "refused credentials: a configuration error: {out:?}"
    );
    assert!(out.stderr.contains("refused the credentials"), "{out:?}");
    assert!(
        !out.stderr.contains("wrong@"),
        "the password is never printed: {out:?}"
    );
    let published = count(&mut conn, &published_sql).await;
    assert_eq!(published, 0, "{out:?}");
    make_due(&mut conn, &t).await;
    let out = relay_plain(&schema, &cfg(test, "s3cret"));
    assert_eq!(out.code, OK, "{out:?}");
    let published = count(&mut conn, &published_sql).await;
    assert_eq!(published, 10, "{out:?}");
    let broker = url("s3cret");
    let records = tokio::task::spawn_blocking(move || read_records(&broker, topic, 1, 10))
        .await
        .unwrap();
    assert_eq!(records.len(), 10);
}

/// `create_topic` with the brokers away at start: the relay creates the topic on its first
/// unknown-topic error once they are back, and delivers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_create_topic_when_the_broker_comes_later() {
    let test = test_name!();
    use crate::common::wait_rows;
    use crate::common::{OwnServer, spawn_loop_relay, stable_port};
    let port = stable_port();
    let mut broker = OwnServer::new(
        "late_tansu",
        &crate::restarts::tansu_bin(),
        port,
        move |dir| tansu(dir, port, port, "memory://tansu/"),
    );
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 10, Some(3)).await;
    let cfg = config_file(
        test,
        &format!(
            "relay:\n  interval: 100ms\n  retry_base_delay: 200ms\n  retry_max_backoff: 1s\n  max_attempts: 50\n  publish_timeout: 1s\n  routes:\n    orders:\n      to: kafka://127.0.0.1:{port}\n      channel: late.orders\n      create_topic: true\n      partitions: 2\n"
        ),
    );
    let log = broker.dir.join("relay.log");
    let relay = spawn_loop_relay(&t, &cfg, &log);
    crate::common::wait_log(&log, "destination down", 1).await;
    broker.start().await;
    let published = format!("SELECT count(*) FROM {t} WHERE status = 'published'");
    wait_rows(&mut conn, &published, 10).await;
    assert!(relay.terminate().success());
    let addr = format!("127.0.0.1:{port}");
    let records = tokio::task::spawn_blocking(move || read_records(&addr, "late.orders", 2, 10))
        .await
        .unwrap();
    assert_eq!(records.len(), 10);
}
