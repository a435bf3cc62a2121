//! Order on the wire, searched for counterexamples: a seeded, randomized outbox where several
//! tenants share a small pool of ordering keys (some rows have none), rows are staged one to
//! three per transaction (one `created_at`), with HLC ordering on in odd seeds (then some legacy
//! rows carry no hlc and go last), relayed by one `relay --once` to Redis, RabbitMQ, NATS and
//! Kafka (tansu) at once, one route each; consumers on the far side read everything back and
//! check, per message key, that the rows arrived exactly once each and in claim order. The same
//! on MongoDB to Redis.
//!
//! Size: `OUTBOXCTL_WIRE_SEEDS` seeds (default 2: one without HLC, one with), or one seed with
//! `OUTBOXCTL_WIRE_SEED`; `OUTBOXCTL_WIRE_EVENTS` events per route (default 300). A failure
//! prints its seed.

use std::collections::HashMap;

use mongodb::bson::{Bson, Document, doc};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use sqlx::PgConnection;
use uuid::Uuid;

use crate::common::{
    AMQP, KAFKA_ADDR, MongoDb, NATS, OK, PgSchema, REDIS, amqp_channel, create_topic, delete_topic,
    kafka_url, migrate, ob, payload_value, read_records,
};

/// One staged event.
#[derive(Debug, Clone)]
struct Staged {
    seq: usize,
    tenant: Uuid,
    ordering_key: Option<String>,
    /// Transactions stage one to three rows: they share `created_at`.
    created_ms: i64,
    hlc: Option<i64>,
}

/// A seed's outbox: what is staged, in claim order, and how the relay runs.
struct Plan {
    seed: u64,
    hlc: bool,
    consume: bool,
    max_claim_rows: u32,
    /// Retain: a second connection claims each next batch (`relay.claim_ahead`).
    claim_ahead: bool,
    rows: Vec<Staged>,
}

const BASE_MS: i64 = 1_764_583_200_000;

impl Plan {
    fn new(seed: u64, events: usize) -> Self {
        let mut rng = StdRng::seed_from_u64(seed);
        let hlc = seed % 2 == 1;
        let tenants: Vec<Uuid> = (0..3).map(|_| Uuid::from_u128(rng.r#gen())).collect();
        let keys = rng.gen_range(3..=8);
        let mut rows = Vec::with_capacity(events);
        let mut created_ms = BASE_MS;
        let mut logical = 0;
        while rows.len() < events {
            created_ms += rng.gen_range(1..=3);
            for _ in 0..rng.gen_range(1..=3) {
                if rows.len() == events {
                    break;
                }
                let keyless = rng.gen_bool(0.15);
                logical += 1;
                rows.push(Staged {
                    seq: rows.len(),
                    tenant: tenants[rng.gen_range(0..tenants.len())],
                    ordering_key: (!keyless).then(|| format!("cust-{}", rng.gen_range(0..keys))),
                    created_ms,
                    // a packed HLC (physical ms << 16 | logical), rising with the staging order;
                    // some legacy rows have none and are claimed last
                    hlc: (hlc && !rng.gen_bool(0.1)).then_some((created_ms << 16) | logical),
                });
            }
        }
        Self {
            seed,
            hlc,
            consume: rng.gen_bool(0.5),
            max_claim_rows: [7, 40, 100][rng.gen_range(0..3)],
            claim_ahead: rng.gen_bool(0.5),
            rows,
        }
    }

    /// The rows in claim order: `created_at, id`, or with HLC `hlc NULLS LAST, created_at, id`
    /// (ids rise with `seq`).
    fn claim_order(&self) -> Vec<usize> {
        let mut order: Vec<&Staged> = self.rows.iter().collect();
        if self.hlc {
            order.sort_by_key(|r| (r.hlc.is_none(), r.hlc, r.created_ms, r.seq));
        } else {
            order.sort_by_key(|r| (r.created_ms, r.seq));
        }
        order.into_iter().map(|r| r.seq).collect()
    }

    /// The row's id on a route: rising with `seq`, unique across routes.
    fn id(route: usize, seq: usize) -> Uuid {
        Uuid::from_u128(
            (0x0190_c4e2_0000_7000_8000_u128 << 48) | ((route as u128) << 32) | seq as u128,
        )
    }

    fn event_id(route: usize, seq: usize) -> Uuid {
        Uuid::from_u128((0xe0e0_u128 << 112) | ((route as u128) << 32) | seq as u128)
    }

    fn describe(&self) -> String {
        format!(
            "seed {} (hlc {}, {}, max_claim_rows {}, {} events); run again with OUTBOXCTL_WIRE_SEED={}",
            self.seed,
            self.hlc,
            match (self.consume, self.claim_ahead) {
                (true, _) => "consume",
                (false, true) => "retain claiming ahead",
                (false, false) => "retain",
            },
            self.max_claim_rows,
            self.rows.len(),
            self.seed
        )
    }

    /// Checks what one broker delivered, `(message key, seq)` in arrival order (per key, or
    /// per partition that holds the key): every row exactly once, and per message key in
    /// claim order.
    fn check(&self, route: usize, broker: &str, arrived: &[(String, usize)]) {
        let mut expected: HashMap<String, Vec<usize>> = HashMap::new();
        for seq in self.claim_order() {
            let r = &self.rows[seq];
            let key = r
                .ordering_key
                .clone()
                .unwrap_or_else(|| Self::event_id(route, seq).to_string());
            expected.entry(key).or_default().push(seq);
        }
        let mut got: HashMap<String, Vec<usize>> = HashMap::new();
        for (key, seq) in arrived {
            got.entry(key.clone()).or_default().push(*seq);
        }
        assert_eq!(
            arrived.len(),
            self.rows.len(),
            "{broker}: {} messages for {} rows; {}",
            arrived.len(),
            self.rows.len(),
            self.describe()
        );
        for (key, want) in &expected {
            let have = got.get(key).map(Vec::as_slice).unwrap_or_default();
            if have != want.as_slice() {
                let tenants: Vec<String> = have
                    .iter()
                    .map(|&s| format!("{}@{}", s, &self.rows[s].tenant.to_string()[..4]))
                    .collect();
                panic!(
                    "{broker}: key {key} arrived as {tenants:?} (seq@tenant), claim order is {want:?}; {}",
                    self.describe()
                );
            }
        }
    }
}

fn events() -> usize {
    std::env::var("OUTBOXCTL_WIRE_EVENTS")
        .map(|s| s.parse().expect("OUTBOXCTL_WIRE_EVENTS is a number"))
        .unwrap_or(300)
}

/// Stages the plan for `route` (its index names its ids), one transaction per `created_at`.
async fn stage_pg(conn: &mut PgConnection, table: &str, plan: &Plan, route: (usize, &str)) {
    let sql = format!(
        "INSERT INTO {table} (id, outbox_route, event_id, event_type, tenant_id, occurred_at, payload, status, created_at, ordering_key, hlc)
         SELECT * FROM UNNEST($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::uuid[], $6::timestamptz[], $7::jsonb[], $8::text[], $9::timestamptz[], $10::text[], $11::bigint[])"
    );
    let ms = |m: i64| chrono::DateTime::from_timestamp_millis(m).unwrap();
    let mut start = 0;
    while start < plan.rows.len() {
        let at = plan.rows[start].created_ms;
        let end = start
            + plan.rows[start..]
                .iter()
                .take_while(|r| r.created_ms == at)
                .count();
        let rows = &plan.rows[start..end];
        sqlx::query(&sql)
            .bind(
                rows.iter()
                    .map(|r| Plan::id(route.0, r.seq))
                    .collect::<Vec<_>>(),
            )
            .bind(vec![route.1.to_owned(); rows.len()])
            .bind(
                rows.iter()
                    .map(|r| Plan::event_id(route.0, r.seq))
                    .collect::<Vec<_>>(),
            )
            .bind(vec!["order.placed".to_owned(); rows.len()])
            .bind(rows.iter().map(|r| r.tenant).collect::<Vec<_>>())
            .bind(rows.iter().map(|r| ms(r.created_ms)).collect::<Vec<_>>())
            .bind(
                rows.iter()
                    .map(|r| serde_json::json!({ "n": r.seq }))
                    .collect::<Vec<_>>(),
            )
            .bind(vec!["pending".to_owned(); rows.len()])
            .bind(rows.iter().map(|r| ms(r.created_ms)).collect::<Vec<_>>())
            .bind(
                rows.iter()
                    .map(|r| r.ordering_key.clone())
                    .collect::<Vec<_>>(),
            )
            .bind(rows.iter().map(|r| r.hlc).collect::<Vec<_>>())
            .execute(&mut *conn)
            .await
            .unwrap();
        start = end;
    }
}

async fn redis_conn() -> redis::aio::MultiplexedConnection {
    redis::Client::open(REDIS)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .expect("Redis on 127.0.0.1:6379 (scripts/services.sh starts it)")
}

/// Every entry of a Redis stream: (its `key` field, the payload's `n`).
async fn read_redis(stream: &str) -> Vec<(String, usize)> {
    let entries: Vec<(String, Vec<String>)> = redis::cmd("XRANGE")
        .arg(stream)
        .arg("-")
        .arg("+")
        .query_async(&mut redis_conn().await)
        .await
        .unwrap();
    let _: () = redis::cmd("DEL")
        .arg(stream)
        .query_async(&mut redis_conn().await)
        .await
        .unwrap();
    entries
        .iter()
        .map(|(_, f)| {
            let field = |name: &str| {
                let at = f.iter().position(|x| x == name).expect(name);
                f[at + 1].clone()
            };
            (field("key"), seq_of(&field("payload")))
        })
        .collect()
}

fn seq_of(payload: &str) -> usize {
    payload_value(payload)["n"].as_u64().expect("n") as usize
}

/// One relay, four brokers: a route each.
#[tokio::test]
async fn each_message_key_reaches_every_broker_in_claim_order_whatever_its_tenant() {
    use lapin::options::{BasicGetOptions, QueueDeleteOptions};
    use lapin::types::AMQPValue;
    let test = test_name!();
    for seed in crate::common::seeds("WIRE", 2) {
        let plan = Plan::new(seed, events());
        eprintln!("wire order: {}", plan.describe());
        let (schema, mut conn) = PgSchema::new(&format!("{test}_{seed}")).await;
        let mut flags = vec!["--storage", if plan.consume { "consume" } else { "retain" }];
        // the hlc column is there either way; the relay orders by it only with HLC ordering
        migrate(&schema, &[&flags[..], &["--hlc-ordering"]].concat()).await;
        if plan.hlc {
            flags.push("--hlc-ordering");
        }
        let t = schema.rel("outbox");
        let routes = ["to-redis", "to-amqp", "to-nats", "to-kafka"];
        for (i, route) in routes.iter().enumerate() {
            stage_pg(&mut conn, &t, &plan, (i, route)).await;
        }
        let channel = format!("{}.wire", schema.name);
        // the far side, empty
        let _: () = redis::cmd("DEL")
            .arg(&channel)
            .query_async(&mut redis_conn().await)
            .await
            .unwrap();
        let (_amqp, ch) = amqp_channel().await;
        let _ = ch
            .queue_delete(&channel, QueueDeleteOptions::default())
            .await;
        let js = async_nats::jetstream::new(
            async_nats::connect(NATS)
                .await
                .expect("NATS on 127.0.0.1:4222 (scripts/services.sh starts it)"),
        );
        let _ = js.delete_stream(&schema.name).await;
        js.create_stream(async_nats::jetstream::stream::Config {
            name: schema.name.clone(),
            subjects: vec![channel.clone()],
            ..Default::default()
        })
        .await
        .unwrap();
        delete_topic(KAFKA_ADDR, &channel).await;
        create_topic(KAFKA_ADDR, &channel, 3).await;
        let cfg = crate::common::config_file(
            &format!("{test}_{seed}"),
            &format!(
                "relay:
  max_claim_rows: {}
  claim_ahead: {}
  routes:
    to-redis: {{ to: \"{REDIS}\", channel: \"{channel}\" }}
    to-amqp: {{ to: \"{AMQP}\", channel: \"{channel}\", declare: true }}
    to-nats: {{ to: \"{NATS}\", channel: \"{channel}\" }}
    to-kafka: {{ to: \"{}\", channel: \"{channel}\" }}
",
                plan.max_claim_rows,
                plan.claim_ahead && !plan.consume,
                kafka_url()
            ),
        );
        let mut args = vec!["relay", "--once"];
        args.extend(&flags);
        let r = ob(args).pg(&t).config(&cfg).run();
        assert_eq!(r.code, OK, "{r:?}\n{}", plan.describe());

        plan.check(0, "Redis", &read_redis(&channel).await);

        let mut amqp = Vec::new();
        while let Some(m) = ch
            .basic_get(&channel, BasicGetOptions { no_ack: true })
            .await
            .unwrap()
        {
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
                other => panic!("forze_key is {other:?}"),
            };
            amqp.push((key, seq_of(std::str::from_utf8(&m.delivery.data).unwrap())));
        }
        let _ = ch
            .queue_delete(&channel, QueueDeleteOptions::default())
            .await;
        plan.check(1, "RabbitMQ", &amqp);

        let mut stream = js.get_stream(&schema.name).await.unwrap();
        let count = stream.info().await.unwrap().state.messages;
        let mut nats = Vec::new();
        for n in 1..=count {
            let m = stream.get_raw_message(n).await.unwrap();
            let key = m
                .headers
                .get("forze_key")
                .expect("forze_key")
                .as_str()
                .to_owned();
            nats.push((key, seq_of(std::str::from_utf8(&m.payload).unwrap())));
        }
        js.delete_stream(&schema.name).await.unwrap();
        plan.check(2, "NATS", &nats);

        // a key lands on one partition: per partition, offset order is the consumer's order
        let records = tokio::task::spawn_blocking({
            let channel = channel.clone();
            let n = plan.rows.len();
            move || read_records(KAFKA_ADDR, &channel, 3, n)
        })
        .await
        .unwrap();
        let mut kafka: Vec<(String, usize)> = Vec::new();
        for p in 0..3 {
            kafka.extend(
                records
                    .iter()
                    .filter(|r| r.partition == p)
                    .map(|r| (r.key.clone(), seq_of(&r.value))),
            );
        }
        delete_topic(KAFKA_ADDR, &channel).await;
        plan.check(3, "Kafka", &kafka);
        drop(schema);
    }
}

/// The same on MongoDB (retain storage, its claim order: a missing hlc sorts first), to Redis.
#[tokio::test]
async fn each_message_key_reaches_redis_in_claim_order_from_mongodb() {
    let test = test_name!();
    for seed in crate::common::seeds("WIRE", 2) {
        let mut plan = Plan::new(seed, events());
        plan.consume = false;
        eprintln!("wire order on MongoDB: {}", plan.describe());
        let db = MongoDb::new(&format!("{test}_{seed}")).await;
        let collection = format!("{}.outbox", db.name);
        let mut flags = vec![];
        if plan.hlc {
            flags.push("--hlc-ordering");
        }
        let mut args = vec!["migrate", "-q"];
        args.extend(&flags);
        ob(args).mongo(&collection).code(OK);
        let coll = db.db().collection::<Document>("outbox");
        let date = mongodb::bson::DateTime::from_millis;
        let docs: Vec<Document> = plan
            .rows
            .iter()
            .map(|r| {
                let mut d = doc! {
                    "id": Plan::id(0, r.seq).to_string(), "outbox_route": "to-redis",
                    "event_id": Plan::event_id(0, r.seq).to_string(), "event_type": "order.placed",
                    "tenant_id": r.tenant.to_string(), "occurred_at": date(r.created_ms),
                    "payload": { "n": r.seq as i64 }, "status": "pending", "attempts": 0,
                    "created_at": date(r.created_ms), "available_at": Bson::Null,
                    "ordering_key": r.ordering_key.clone().map_or(Bson::Null, Bson::String),
                };
                if let Some(h) = r.hlc {
                    d.insert("hlc", h);
                }
                d
            })
            .collect();
        coll.insert_many(docs).await.unwrap();
        // MongoDB sorts a missing hlc first: the claim order this check expects
        for r in &mut plan.rows {
            if plan.hlc && r.hlc.is_none() {
                r.hlc = Some(i64::MIN);
            }
        }
        let channel = format!("{}.wire", db.name);
        // the far side, empty (a failed run leaves its entries)
        let _: () = redis::cmd("DEL")
            .arg(&channel)
            .query_async(&mut redis_conn().await)
            .await
            .unwrap();
        let cfg = crate::common::config_file(
            &format!("{test}_{seed}"),
            &format!(
                "relay:\n  max_claim_rows: {}\n  claim_ahead: {}\n  routes:\n    to-redis: {{ to: \"{REDIS}\", channel: \"{channel}\" }}\n",
                plan.max_claim_rows, plan.claim_ahead
            ),
        );
        let mut args = vec!["relay", "--once"];
        args.extend(&flags);
        let r = ob(args).mongo(&collection).config(&cfg).run();
        assert_eq!(r.code, OK, "{r:?}\n{}", plan.describe());
        plan.check(0, "Redis (from MongoDB)", &read_redis(&channel).await);
    }
}
