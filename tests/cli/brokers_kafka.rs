//! The Kafka destination against a real Kafka-protocol broker (tansu on 127.0.0.1:19092,
//! started by scripts/services.sh): forze-wire §4's record (key, value, headers in order),
//! the partition forze's murmur2 partitioner picks, per-key order, topic checks, retries while
//! the broker is away, parking on refusal.

use std::collections::HashMap;
use std::time::Duration;

use rdkafka::ClientConfig;
use rdkafka::Message as _;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::Headers;
use rdkafka::{Offset, TopicPartitionList};

use crate::brokers::{
    KeyOrder, WORKED_EXAMPLE_HEADERS, payload_value, relay, relay_plain, stage_worked_example,
};
use crate::common::{PgSchema, config_file};
use crate::relay_pg::{migrate, stage};

pub const KAFKA_ADDR: &str = "127.0.0.1:19092";

fn kafka_url() -> String {
    format!("kafka://{KAFKA_ADDR}")
}

/// Creates a topic with `partitions` partitions (fails with instructions when no broker runs).
pub async fn create_topic(addr: &str, topic: &str, partitions: i32) {
    create(addr, topic, partitions, false).await
}

/// The same, when the topic may exist already (e.g. auto-created by a producer's metadata request).
pub async fn create_topic_if_missing(addr: &str, topic: &str, partitions: i32) {
    create(addr, topic, partitions, true).await
}

/// Deletes a topic left by an earlier run (tests are named deterministically).
pub async fn delete_topic(addr: &str, topic: &str) {
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", addr)
        .create()
        .unwrap();
    let _ = admin.delete_topics(&[topic], &AdminOptions::new()).await;
}

async fn create(addr: &str, topic: &str, partitions: i32, may_exist: bool) {
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", addr)
        .create()
        .unwrap();
    let results = admin
        .create_topics(
            [&NewTopic::new(topic, partitions, TopicReplication::Fixed(-1))],
            &AdminOptions::new().operation_timeout(Some(Duration::from_secs(10))),
        )
        .await
        .unwrap_or_else(|e| {
            panic!("no Kafka-protocol broker on {addr} ({e}): run scripts/services.sh (it builds and starts tansu)")
        });
    for r in results {
        match r {
            Ok(_) => {}
            Err((_, rdkafka::types::RDKafkaErrorCode::TopicAlreadyExists)) if may_exist => {}
            Err((t, code)) => panic!("creating topic {t}: {code}"),
        }
    }
}

/// One record as read back: partition, key, value, headers in order.
#[derive(Debug, Clone)]
pub struct Record {
    pub partition: i32,
    pub key: String,
    pub value: String,
    pub headers: Vec<(String, String)>,
}

/// Reads every record of the topic's partitions from the beginning until `n` have arrived.
pub fn read_records(addr: &str, topic: &str, partitions: i32, n: usize) -> Vec<Record> {
    read_until(addr, topic, partitions, |records| records.len() >= n)
}

/// Reads the topic's partitions from the beginning until `done` says so (60 s at most).
pub fn read_until(
    addr: &str,
    topic: &str,
    partitions: i32,
    mut done: impl FnMut(&[Record]) -> bool,
) -> Vec<Record> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", addr)
        .set("group.id", format!("outboxctl-test-{topic}"))
        .set("enable.auto.commit", "false")
        .create()
        .unwrap();
    let mut tpl = TopicPartitionList::new();
    for p in 0..partitions {
        tpl.add_partition_offset(topic, p, Offset::Beginning)
            .unwrap();
    }
    consumer.assign(&tpl).unwrap();
    let mut out = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !done(&out) {
        assert!(
            std::time::Instant::now() < deadline,
            "only {} records on {topic} after 60 s",
            out.len()
        );
        let Some(m) = consumer.poll(Duration::from_millis(50)) else {
            continue;
        };
        let m = m.unwrap();
        let text = |b: Option<&[u8]>| String::from_utf8(b.unwrap_or_default().to_vec()).unwrap();
        let headers = m
            .headers()
            .map(|h| {
                h.iter()
                    .map(|h| (h.key.to_owned(), text(h.value)))
                    .collect()
            })
            .unwrap_or_default();
        out.push(Record {
            partition: m.partition(),
            key: text(m.key()),
            value: text(m.payload()),
            headers,
        });
    }
    out
}

impl Record {
    pub fn event_id(&self) -> &str {
        self.headers
            .iter()
            .find(|(k, _)| k == "forze_event_id")
            .map(|(_, v)| v.as_str())
            .expect("forze_event_id header")
    }
}

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
    let (schema, mut conn) = PgSchema::new("broker_kafka").await;
    migrate(&schema, &["--hlc-ordering", "--propagate-trace"]).await;
    let t = schema.rel("outbox");
    stage_worked_example(&mut conn, &t).await;
    stage(&mut conn, &t, "orders", 200, Some(7)).await;
    let topic = format!("{}.orders", schema.name);
    delete_topic(KAFKA_ADDR, &topic).await;
    delete_topic(KAFKA_ADDR, &format!("{topic}7")).await;

    // no topic: a configuration error naming the fix, nothing claimed
    let cfg = topic_config("broker_kafka", &topic, "");
    let out = relay(&schema, &cfg, &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("does not exist") && out.stderr.contains("create_topic"),
        "{out:?}"
    );
    let pending: i64 = sqlx::query_scalar(&format!(
        "SELECT count(*) FROM {t} WHERE status = 'pending'"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(pending, 201);

    create_topic(KAFKA_ADDR, &topic, 5).await;
    let out = relay(&schema, &cfg, &[]);
    assert_eq!(out.code, 0, "{out:?}");
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
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("created topic"), "{out:?}");
    let again = read_records(KAFKA_ADDR, &seven, 7, 1);
    assert_eq!((again[0].key.as_str(), again[0].partition), ("order-42", 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_away_retries_then_delivers_and_refusal_parks() {
    let (schema, mut conn) = PgSchema::new("broker_kafka_away").await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 5, Some(2)).await;
    let away = config_file(
        "broker_kafka_away",
        "relay:\n  publish_timeout: 1s\n  routes:\n    orders:\n      to: kafka://127.0.0.1:1\n      channel: nowhere\n",
    );
    let out = relay_plain(&schema, &away);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("Kafka is unreachable"), "{out:?}");
    let (attempts, error): (i32, Option<String>) = sqlx::query_as(&format!(
        "SELECT min(attempts), min(last_error) FROM {t} WHERE status = 'pending'"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(attempts, 1, "{out:?}");
    let error = error.unwrap_or_default();
    assert!(
        error.contains("Kafka produce") || error.contains("timed out"),
        "{error}"
    );

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
    assert_eq!(out.code, 1, "a parked row: exit 1 {out:?}");
    let published: i64 = sqlx::query_scalar(&format!(
        "SELECT count(*) FROM {t} WHERE status = 'published'"
    ))
    .fetch_one(&mut conn)
    .await
    .unwrap();
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
