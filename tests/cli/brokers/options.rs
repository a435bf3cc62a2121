//! Destination options and doctor: options that do not apply are refused by name, each destination checked without change.

use super::*;

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
        // names the broker would refuse, said before any I/O (NATS says only "invalid subject",
        // which read as a server away)
        (
            "to: nats://127.0.0.1:4222\n      channel: orders events",
            "subject \"orders events\" contains white space",
        ),
        (
            "to: nats://127.0.0.1:4222\n      channel: orders.>",
            "has a wildcard token",
        ),
        (
            "to: redis://127.0.0.1:6379\n      maxlen: 0",
            "maxlen must be at least 1",
        ),
        (
            "to: kafka://127.0.0.1:19092\n      channel: orders/eu",
            "topic \"orders/eu\" is not a Kafka topic name",
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
    i_file:
      to: file:/tmp/{}.jsonl
    j_file_maxlen:
      to: file:/tmp/{}.jsonl
      maxlen: 5
    k_pubsub:
      to: {REDIS}
      mode: pubsub
",
            schema.name, schema.name, schema.name, schema.name, schema.name
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
        [
            "ok", "ok", "fail", "fail", "ok", "ok", "fail", "fail", "ok", "fail", "warn"
        ],
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
    // the line names its route once (`k_pubsub → redis://…: route k_pubsub: …` before)
    assert!(found[10].1.contains("pub/sub is at-most-once"), "{found:?}");
    for (i, route) in [(7, "h_redis_away"), (10, "k_pubsub")] {
        assert_eq!(found[i].1.matches(route).count(), 1, "{found:?}");
    }
    // a file route's options are checked as the relay checks them (doctor passed what it refused)
    let refused = "relay.routes.j_file_maxlen.maxlen does not apply to a file destination";
    assert!(found[9].1.contains(refused), "{found:?}");
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
