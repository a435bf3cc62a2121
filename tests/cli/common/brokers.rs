//! The brokers for the tests: their addresses, the worked example row of forze-wire.md, the
//! relay run against a config, and clients that read back what was delivered (AMQP, Kafka).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rdkafka::ClientConfig;
use rdkafka::Message as _;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::Headers;
use rdkafka::{Offset, TopicPartitionList};
use serde_json::Value;
use sqlx::postgres::PgConnection;

use super::{PgSchema, migrate, ob};

/// The machine's brokers (scripts/services.sh makes sure they run).
pub const REDIS: &str = "redis://127.0.0.1:6379";
pub const AMQP: &str = "amqp://guest:guest@127.0.0.1:5672/%2f";
pub const NATS: &str = "nats://127.0.0.1:4222";

/// The worked example's envelope headers in forze's order (forze-wire.md §0.3, §4.5).
pub const WORKED_EXAMPLE_HEADERS: [(&str, &str); 5] = [
    ("forze_event_id", "0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e"),
    ("forze_occurred_at", "2026-12-01T10:00:00+00:00"),
    (
        "forze_correlation_id",
        "0190c4e2-8a6c-7e4a-9b1e-000000000001",
    ),
    ("forze_hlc", "001764583200000.00003"),
    (
        "traceparent",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    ),
];

/// Stages forze-wire.md §0.8's worked example row.
/// A test's outbox migrated with HLC ordering and trace propagation, holding forze-wire.md
/// §0.8's worked example row: the schema, a connection and the table.
pub async fn worked_example_outbox(test: &str) -> (PgSchema, PgConnection, String) {
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &["--hlc-ordering", "--propagate-trace"]).await;
    let t = schema.rel("outbox");
    stage_worked_example(&mut conn, &t).await;
    (schema, conn, t)
}

pub async fn stage_worked_example(conn: &mut PgConnection, t: &str) {
    sqlx::query(&format!(
        "INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, ordering_key, correlation_id, hlc, traceparent)
         VALUES (gen_random_uuid(), 'orders', '0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e', 'order.placed', '2026-12-01 10:00:00+00',
                 $1::jsonb, 'pending', now(), 'order-42', '0190c4e2-8a6c-7e4a-9b1e-000000000001', 115643724595200003,
                 '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')"
    ))
    .bind(r#"{"order_id": 42, "total": "19.90"}"#)
    .execute(conn)
    .await
    .unwrap();
}

pub fn relay(schema: &PgSchema, cfg: &str, extra: &[&str]) -> crate::common::Run {
    ob(["relay", "--once", "--hlc-ordering", "--propagate-trace"])
        .pg(&schema.rel("outbox"))
        .config(cfg)
        .args(extra)
        .run()
}

/// `relay --once` on the test's outbox with a config file, nothing else.
pub fn relay_plain(schema: &PgSchema, cfg: &str) -> crate::common::Run {
    ob(["relay", "--once"])
        .pg(&schema.rel("outbox"))
        .config(cfg)
        .run()
}

/// Checks that each key's `n` values arrive in increasing order.
#[derive(Default)]
pub struct KeyOrder(HashMap<String, i64>);

impl KeyOrder {
    pub fn see(&mut self, key: &str, n: i64) {
        if let Some(prev) = self.0.insert(key.to_owned(), n) {
            assert!(prev < n, "key {key}: {n} after {prev}");
        }
    }

    pub fn keys(&self) -> usize {
        self.0.len()
    }
}

pub fn payload_value(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

pub async fn amqp_channel() -> (lapin::Connection, lapin::Channel) {
    let conn = lapin::Connection::connect(AMQP, lapin::ConnectionProperties::default())
        .await
        .expect("RabbitMQ on 127.0.0.1:5672 (scripts/services.sh starts it)");
    let ch = conn.create_channel().await.unwrap();
    (conn, ch)
}

/// The Kafka-protocol broker (tansu) scripts/services.sh starts.
pub const KAFKA_ADDR: &str = "127.0.0.1:19092";

pub fn kafka_url() -> String {
    format!("kafka://{KAFKA_ADDR}")
}

/// `tansu broker` listening on `listen`, advertising `advertised` (the port clients are told
/// to use), with `storage` (`memory://tansu/`, or `sqlite://NAME`, relative to `dir`).
pub fn tansu(
    dir: &std::path::Path,
    listen: u16,
    advertised: u16,
    storage: &str,
) -> std::process::Command {
    let mut c = std::process::Command::new(crate::restarts::tansu_bin());
    c.current_dir(dir).args([
        "broker",
        "--listener-url",
        &format!("tcp://127.0.0.1:{listen}"),
        "--advertised-listener-url",
        &format!("tcp://127.0.0.1:{advertised}"),
        "--storage-engine",
        storage,
    ]);
    c
}

/// A client's settings for `broker`: `host:port` (plaintext) or a URL as outboxctl takes it
/// (`kafkas://host:port?ssl_ca_location=…`).
pub fn client(broker: &str) -> ClientConfig {
    if broker.contains("://") {
        outboxctl::destination::kafka::KafkaUrl::parse(broker)
            .unwrap()
            .client_config()
    } else {
        let mut c = ClientConfig::new();
        c.set("bootstrap.servers", broker);
        c
    }
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
    let admin: AdminClient<DefaultClientContext> = client(addr).create().unwrap();
    let _ = admin.delete_topics(&[topic], &AdminOptions::new()).await;
}

pub async fn create(addr: &str, topic: &str, partitions: i32, may_exist: bool) {
    let admin: AdminClient<DefaultClientContext> = client(addr).create().unwrap();
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
    let consumer: BaseConsumer = client(addr)
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

/// A tiny HTTP/1.1 server: records requests (with the status it answered, as `:status`),
/// answers with scripted statuses (then 200).
pub type Requests = Arc<Mutex<Vec<(HashMap<String, String>, String)>>>;

pub struct Hook {
    pub addr: String,
    pub requests: Requests,
}

pub async fn hook(script: Vec<u16>) -> Hook {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = format!("http://{}/hook", listener.local_addr().unwrap());
    let requests: Requests = Arc::default();
    let script = Arc::new(Mutex::new(std::collections::VecDeque::from(script)));
    let (reqs, script2) = (requests.clone(), script.clone());
    tokio::spawn(async move {
        loop {
            let Ok((sock, _)) = listener.accept().await else {
                return;
            };
            let (reqs, script) = (reqs.clone(), script2.clone());
            tokio::spawn(async move {
                let (r, mut w) = sock.into_split();
                let mut r = BufReader::new(r);
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).await.unwrap_or(0) == 0 {
                        return;
                    }
                    let mut headers = HashMap::new();
                    loop {
                        let mut h = String::new();
                        r.read_line(&mut h).await.unwrap();
                        let h = h.trim_end();
                        if h.is_empty() {
                            break;
                        }
                        let (k, v) = h.split_once(':').unwrap();
                        headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
                    }
                    let len: usize = headers
                        .get("content-length")
                        .map_or(0, |v| v.parse().unwrap());
                    let mut body = vec![0; len];
                    r.read_exact(&mut body).await.unwrap();
                    let method = line.split(' ').next().unwrap_or_default();
                    headers.insert(":method".into(), method.to_owned());
                    let status = script.lock().unwrap().pop_front().unwrap_or(200);
                    // the answer, recorded with the request it answers
                    headers.insert(":status".into(), status.to_string());
                    reqs.lock()
                        .unwrap()
                        .push((headers, String::from_utf8(body).unwrap()));
                    let text = if status == 200 {
                        "ok"
                    } else {
                        "the service said no"
                    };
                    // a redirect points back at the hook: a client that follows it asks again
                    let location = if (300..400).contains(&status) {
                        "location: /hook\r\n"
                    } else {
                        ""
                    };
                    let resp = format!(
                        "HTTP/1.1 {status} X\r\n{location}content-length: {}\r\n\r\n{text}",
                        text.len()
                    );
                    if w.write_all(resp.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    let _ = script;
    Hook { addr, requests }
}
