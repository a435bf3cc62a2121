//! Each broker stopped and started again, or stalled with SIGSTOP, while a looping relay runs
//! (a server of the test's own, so the shared ones stay up): the outage counts no attempt
//! and parks nothing, a stall costs at most the publishes in flight one attempt each, and
//! nothing is lost.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{
    CHECK_FAILED, OwnServer, PgSchema, assert_none_lost, config_file, create_topic,
    create_topic_if_missing, free_port, hook, make_due, migrate, ob, on_tokio, read_until,
    relay_across_restart, relay_across_stall, stable_port, stage, staged_event_ids,
};

/// A nats-server of the test's own with JetStream and a stream `restart` on
/// `restart.orders`; its URL.
async fn own_nats(test: &str) -> (OwnServer, String) {
    let port = stable_port();
    let mut nats = OwnServer::new(test, Path::new("/usr/sbin/nats-server"), port, move |dir| {
        let mut c = Command::new("/usr/sbin/nats-server");
        c.args(["-a", "127.0.0.1", "-p", &port.to_string(), "-js", "-sd"])
            .arg(dir);
        c
    });
    nats.start().await;
    let url = format!("nats://127.0.0.1:{port}");
    let js = async_nats::jetstream::new(async_nats::connect(&url).await.unwrap());
    js.create_stream(async_nats::jetstream::stream::Config {
        name: "restart".into(),
        subjects: vec!["restart.orders".into()],
        duplicate_window: std::time::Duration::from_secs(300),
        ..Default::default()
    })
    .await
    .unwrap();
    (nats, url)
}

/// A redis-server of the test's own (append-only, fsync always); its URL.
async fn own_redis(test: &str) -> (OwnServer, String) {
    let port = stable_port();
    let bin = PathBuf::from("/usr/bin/redis-server");
    let mut redis = OwnServer::new(test, &bin, port, move |dir| {
        let mut c = Command::new("/usr/bin/redis-server");
        c.args([
            "--bind",
            "127.0.0.1",
            "--port",
            &port.to_string(),
            "--save",
            "",
            "--appendonly",
            "yes",
            "--appendfsync",
            "always",
            "--dir",
        ])
        .arg(dir);
        c
    });
    redis.start().await;
    (redis, format!("redis://127.0.0.1:{port}"))
}

/// A RabbitMQ node of the test's own; its URL.
async fn own_rabbitmq(test: &str) -> (OwnServer, String) {
    let (port, dist) = (stable_port(), free_port());
    let bin = PathBuf::from("/usr/lib/rabbitmq/bin/rabbitmq-server");
    let node = format!("outboxctl{port}@localhost");
    let mut rabbit = OwnServer::new(test, &bin, port, move |dir| {
        std::fs::write(
            dir.join("rabbitmq.conf"),
            format!("listeners.tcp.local = 127.0.0.1:{port}\n"),
        )
        .unwrap();
        std::fs::write(dir.join("env.conf"), "").unwrap();
        let mut c = Command::new("/usr/lib/rabbitmq/bin/rabbitmq-server");
        c.current_dir(dir)
            .env("HOME", dir)
            .env("RABBITMQ_NODENAME", &node)
            .env("RABBITMQ_NODE_PORT", port.to_string())
            .env("RABBITMQ_DIST_PORT", dist.to_string())
            .env("RABBITMQ_MNESIA_BASE", dir.join("mnesia"))
            .env("RABBITMQ_LOG_BASE", dir.join("log"))
            .env("RABBITMQ_ENABLED_PLUGINS_FILE", dir.join("plugins"))
            .env("RABBITMQ_PID_FILE", dir.join("pid"))
            .env("RABBITMQ_CONFIG_FILE", dir.join("rabbitmq.conf"))
            .env("RABBITMQ_CONF_ENV_FILE", dir.join("env.conf"))
            .env("ERL_EPMD_ADDRESS", "127.0.0.1");
        c
    });
    rabbit.start().await;
    (rabbit, format!("amqp://guest:guest@127.0.0.1:{port}/%2f"))
}

#[tokio::test]
async fn nats_restart_while_the_loop_runs_loses_nothing() {
    let (mut nats, url) = own_nats("own_nats").await;
    let dest = format!("      to: {url}\n      channel: restart.orders\n");
    let (_schema, mut conn, t) =
        relay_across_restart("restart_nats", &mut nats, &dest, &mut |_| {}, &mut |_| {}).await;
    let js = async_nats::jetstream::new(async_nats::connect(&url).await.unwrap());
    let stream = js.get_stream("restart").await.unwrap();
    let mut arrived = HashSet::new();
    let mut seq = 1;
    while let Ok(m) = stream.get_raw_message(seq).await {
        arrived.insert(m.headers.get("forze_event_id").unwrap().as_str().to_owned());
        seq += 1;
    }
    assert_eq!(
        seq - 1,
        200,
        "every event once (Nats-Msg-Id dedup), across the restart"
    );
    assert_none_lost(&staged_event_ids(&mut conn, &t).await, &arrived);
}

#[tokio::test]
async fn redis_restart_while_the_loop_runs_loses_nothing() {
    let (mut redis, url) = own_redis("own_redis").await;
    let dest = format!("      to: {url}\n      channel: restart\n");
    let (_schema, mut conn, t) =
        relay_across_restart("restart_redis", &mut redis, &dest, &mut |_| {}, &mut |_| {}).await;
    let mut r = redis::Client::open(url.as_str())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let entries: redis::streams::StreamRangeReply = redis::cmd("XRANGE")
        .arg("restart")
        .arg("-")
        .arg("+")
        .query_async(&mut r)
        .await
        .unwrap();
    let arrived: HashSet<String> = entries
        .ids
        .iter()
        .map(|e| {
            let headers: String = e.get("headers").unwrap();
            let v: serde_json::Value = serde_json::from_str(&headers).unwrap();
            v["forze_event_id"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_none_lost(&staged_event_ids(&mut conn, &t).await, &arrived);
}

#[tokio::test]
async fn rabbitmq_restart_while_the_loop_runs_loses_nothing() {
    let (mut rabbit, url) = own_rabbitmq("own_rabbitmq").await;
    let dest = format!("      to: {url}\n      channel: restart\n      declare: true\n");
    let (_schema, mut conn, t) = relay_across_restart(
        "restart_rabbitmq",
        &mut rabbit,
        &dest,
        &mut |_| {},
        &mut |_| {},
    )
    .await;
    let amqp = lapin::Connection::connect(&url, lapin::ConnectionProperties::default())
        .await
        .unwrap();
    let channel = amqp.create_channel().await.unwrap();
    let mut arrived = HashSet::new();
    while let Some(m) = channel
        .basic_get("restart", lapin::options::BasicGetOptions { no_ack: true })
        .await
        .unwrap()
    {
        let headers = m.delivery.properties.headers().clone().unwrap();
        let id = headers.inner().get("forze_event_id").unwrap();
        let lapin::types::AMQPValue::LongString(id) = id else {
            panic!("forze_event_id is {id:?}");
        };
        arrived.insert(id.to_string());
    }
    assert_none_lost(&staged_event_ids(&mut conn, &t).await, &arrived);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_restart_while_the_loop_runs_loses_nothing() {
    let port = stable_port();
    let bin = tansu_bin();
    // In-memory storage (tansu 0.6's SQLite engine panics, and stops serving, when a producer
    // that outlived the restart produces again): the broker comes back empty, so what it held
    // is read before the stop and the topic is created again after the start. The relay's
    // producer meets `UnknownProducerId` and is replaced (see kafka.rs).
    let mut tansu = OwnServer::new("own_tansu", &bin, port, move |dir| {
        crate::common::tansu(dir, port, port, "memory://tansu/")
    });
    tansu.start().await;
    let addr = format!("127.0.0.1:{port}");
    let topic = "restart.orders";
    create_topic(&addr, topic, 3).await;
    // reads until every event id the outbox marks published is on the broker
    let published_ids = |t: &str| -> HashSet<String> {
        on_tokio(async move {
            let mut conn = crate::common::pg().await;
            sqlx::query_scalar(&format!(
                "SELECT event_id::text FROM {t} WHERE status = 'published'"
            ))
            .fetch_all(&mut conn)
            .await
            .unwrap()
            .into_iter()
            .collect()
        })
    };
    let read_all = |want: &HashSet<String>| -> HashSet<String> {
        let mut seen = HashSet::new();
        read_until(&addr, topic, 3, |records| {
            seen.extend(records.iter().map(|r| r.event_id().to_owned()));
            want.is_subset(&seen)
        });
        seen
    };
    let mut arrived: HashSet<String> = HashSet::new();
    let dest = format!("      to: kafka://{addr}\n      channel: {topic}\n");
    let (_schema, mut conn, t) = relay_across_restart(
        "restart_kafka",
        &mut tansu,
        &dest,
        &mut |t| arrived.extend(read_all(&published_ids(t))),
        &mut |_| on_tokio(create_topic_if_missing(&addr, topic, 3)),
    )
    .await;
    let staged: HashSet<String> = staged_event_ids(&mut conn, &t).await.into_iter().collect();
    let rest: HashSet<String> = staged.difference(&arrived).cloned().collect();
    arrived.extend(read_all(&rest));
    assert_none_lost(&staged_event_ids(&mut conn, &t).await, &arrived);
}

/// The tansu binary scripts/services.sh builds into the cache.
pub fn tansu_bin() -> PathBuf {
    let cache = std::env::var_os("OUTBOXCTL_CACHE").map_or_else(
        || PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/outboxctl"),
        PathBuf::from,
    );
    cache.join("tansu-0.6.0/bin/tansu")
}

#[tokio::test]
async fn nats_stalled_costs_the_publishes_in_flight_one_attempt_and_parks_nothing() {
    let (nats, url) = own_nats("stall_nats").await;
    let dest = format!("      to: {url}\n      channel: restart.orders\n");
    let log = nats.dir.join("relay.log");
    relay_across_stall(
        "stall_nats",
        &dest,
        &log,
        &mut || nats.signal("-STOP"),
        &mut || nats.signal("-CONT"),
    )
    .await;
}

#[tokio::test]
async fn redis_stalled_costs_the_publishes_in_flight_one_attempt_and_parks_nothing() {
    let (redis, url) = own_redis("stall_redis").await;
    let dest = format!("      to: {url}\n      channel: stall\n");
    let log = redis.dir.join("relay.log");
    relay_across_stall(
        "stall_redis",
        &dest,
        &log,
        &mut || redis.signal("-STOP"),
        &mut || redis.signal("-CONT"),
    )
    .await;
}

#[tokio::test]
async fn rabbitmq_stalled_costs_the_publishes_in_flight_one_attempt_and_parks_nothing() {
    let (rabbit, url) = own_rabbitmq("stall_rabbitmq").await;
    let dest = format!("      to: {url}\n      channel: stall\n      declare: true\n");
    let log = rabbit.dir.join("relay.log");
    relay_across_stall(
        "stall_rabbitmq",
        &dest,
        &log,
        &mut || rabbit.signal("-STOP"),
        &mut || rabbit.signal("-CONT"),
    )
    .await;
}

/// A resource alarm on RabbitMQ (its disk free limit raised past what the disk has) blocks
/// every connection that publishes: the broker reads nothing more from it, yet a fresh
/// connection opens and declares as before. Like a stall, it costs the publishes in flight one
/// attempt each and parks nothing: the relay finds the destination down while its connection
/// is blocked, instead of probing with a fresh connection, resuming and spending an attempt
/// of every row in flight again, pass after pass.
#[tokio::test]
async fn rabbitmq_resource_alarm_costs_the_publishes_in_flight_one_attempt_and_parks_nothing() {
    let test = test_name!();
    let (rabbit, url) = own_rabbitmq(test).await;
    let dest = format!("      to: {url}\n      channel: alarm\n      declare: true\n");
    let log = rabbit.dir.join("relay.log");
    let limit = |bytes: &str| {
        let node = format!("outboxctl{}@localhost", rabbit.port);
        let status = Command::new("/usr/lib/rabbitmq/bin/rabbitmqctl")
            .args(["-n", &node, "set_disk_free_limit", bytes])
            .env("HOME", &rabbit.dir)
            .env("ERL_EPMD_ADDRESS", "127.0.0.1")
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "rabbitmqctl set_disk_free_limit {bytes}");
    };
    relay_across_stall(test, &dest, &log, &mut || limit("100000GB"), &mut || {
        limit("50MB")
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kafka_stalled_costs_the_publishes_in_flight_one_attempt_and_parks_nothing() {
    let port = free_port();
    let mut tansu = OwnServer::new("stall_tansu", &tansu_bin(), port, move |dir| {
        crate::common::tansu(dir, port, port, "memory://tansu/")
    });
    tansu.start().await;
    create_topic(&format!("127.0.0.1:{port}"), "stall.orders", 3).await;
    let dest = format!("      to: kafka://127.0.0.1:{port}\n      channel: stall.orders\n");
    let log = tansu.dir.join("relay.log");
    relay_across_stall(
        "stall_kafka",
        &dest,
        &log,
        &mut || tansu.signal("-STOP"),
        &mut || tansu.signal("-CONT"),
    )
    .await;
}

/// Dead letters to a real Redis: rows the webhook refuses for good (HTTP 400) go to the route's
/// `dead_letter_to:` (stream `orders.dead_letter`) with their error, attempts and time, and only
/// then are parked. While that Redis is stopped nothing is parked: the rows stay pending with
/// their attempts unchanged, due again after `retry_max_backoff`; once it is back the next pass
/// parks them. Nothing is lost, and nothing is parked without its dead letter.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dead_letters_go_to_redis_first_and_wait_while_it_is_down() {
    let test = test_name!();
    let (mut redis, url) = own_redis(test).await;
    let refuse = hook(vec![400; 50]).await;
    let (schema, mut conn) = PgSchema::new(test).await;
    migrate(&schema, &[]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 2, None).await;
    let cfg = config_file(
        test,
        &format!(
            "relay:\n  retry_max_backoff: 1s\n  routes:\n    orders:\n      to: {}\n      dead_letter_to: {url}\n",
            refuse.addr
        ),
    );
    let relay = || {
        ob(["relay", "--once", "--format", "json"])
            .pg(&t)
            .config(&cfg)
    };
    let states = format!("SELECT status || ' ' || attempts FROM {t} ORDER BY created_at");
    redis.stop();
    let r = relay().run();
    let parked_now: Vec<String> = sqlx::query_scalar(&states)
        .fetch_all(&mut conn)
        .await
        .unwrap();
    assert_eq!(
        parked_now,
        ["pending 0", "pending 0"],
        "nothing parked: {r:?}"
    );
    let error: String = sqlx::query_scalar(&format!("SELECT last_error FROM {t} LIMIT 1"))
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert!(
        error.starts_with("dead-letter publish failed") && error.contains("HTTP 400"),
        "{error}"
    );
    redis.start().await;
    make_due(&mut conn, &t).await;
    // rows parked: --once says so with exit 1
    let r = relay().code(CHECK_FAILED);
    assert_eq!(r.json()[0]["dead_lettered"], 2, "{r:?}");
    let parked: Vec<String> = sqlx::query_scalar(&states)
        .fetch_all(&mut conn)
        .await
        .unwrap();
    assert_eq!(parked, ["failed 0", "failed 0"]);
    let mut client = redis::Client::open(url.as_str())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let entries: redis::streams::StreamRangeReply = redis::cmd("XRANGE")
        .arg("orders.dead_letter")
        .arg("-")
        .arg("+")
        .query_async(&mut client)
        .await
        .unwrap();
    let letters: HashSet<String> = entries
        .ids
        .iter()
        .map(|e| {
            let headers: String = e.get("headers").unwrap();
            let v: serde_json::Value = serde_json::from_str(&headers).unwrap();
            assert!(
                v["outboxctl_error"]
                    .as_str()
                    .unwrap()
                    .starts_with("HTTP 400"),
                "{v}"
            );
            assert_eq!(v["outboxctl_attempts"], "1", "{v}");
            assert!(v["outboxctl_failed_at"].as_str().is_some(), "{v}");
            v["forze_event_id"].as_str().unwrap().to_owned()
        })
        .collect();
    let staged: HashSet<String> = staged_event_ids(&mut conn, &t).await.into_iter().collect();
    assert_eq!(letters, staged, "every parked row has its dead letter");
}
