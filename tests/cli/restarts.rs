//! Each broker stopped and started again while a looping relay runs (a server of the test's
//! own, so the shared ones stay up): the relay reconnects and nothing is lost.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::brokers_kafka::{read_records, record_count};
use crate::own_server::{
    OwnServer, assert_none_lost, free_port, relay_across_restart, staged_event_ids,
};

#[tokio::test]
async fn nats_restart_while_the_loop_runs_loses_nothing() {
    let port = free_port();
    let mut nats = OwnServer::new(
        "own_nats",
        Path::new("/usr/sbin/nats-server"),
        port,
        move |dir| {
            let mut c = Command::new("/usr/sbin/nats-server");
            c.args(["-a", "127.0.0.1", "-p", &port.to_string(), "-js", "-sd"])
                .arg(dir);
            c
        },
    );
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
    let dest = format!("      to: {url}\n      channel: restart.orders\n");
    let (_schema, mut conn, t) = relay_across_restart("restart_nats", &mut nats, &dest).await;
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
    let port = free_port();
    let bin = PathBuf::from("/usr/bin/redis-server");
    let mut redis = OwnServer::new("own_redis", &bin, port, move |dir| {
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
    let url = format!("redis://127.0.0.1:{port}");
    let dest = format!("      to: {url}\n      channel: restart\n");
    let (_schema, mut conn, t) = relay_across_restart("restart_redis", &mut redis, &dest).await;
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
    let (port, dist) = (free_port(), free_port());
    let bin = PathBuf::from("/usr/lib/rabbitmq/bin/rabbitmq-server");
    let node = format!("outboxctl{port}@localhost");
    let mut rabbit = OwnServer::new("own_rabbitmq", &bin, port, move |dir| {
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
    let url = format!("amqp://guest:guest@127.0.0.1:{port}/%2f");
    let dest = format!("      to: {url}\n      channel: restart\n      declare: true\n");
    let (_schema, mut conn, t) = relay_across_restart("restart_rabbitmq", &mut rabbit, &dest).await;
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
    let port = free_port();
    let cache = std::env::var_os("OUTBOXCTL_CACHE").map_or_else(
        || PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/outboxctl"),
        PathBuf::from,
    );
    let bin = cache.join("tansu-0.6.0/bin/tansu");
    let program = bin.clone();
    // SQLite storage, so the topic and its records survive the restart
    let mut tansu = OwnServer::new("own_tansu", &bin, port, move |dir| {
        let listen = format!("tcp://127.0.0.1:{port}");
        let mut c = Command::new(&program);
        c.args([
            "broker",
            "--listener-url",
            &listen,
            "--advertised-listener-url",
            &listen,
        ])
        .arg("--storage-engine")
        .arg(format!("sqlite://{}/tansu.db", dir.display()));
        c
    });
    tansu.start().await;
    let addr = format!("127.0.0.1:{port}");
    crate::brokers_kafka::create_topic(&addr, "restart.orders", 3).await;
    let dest = format!("      to: kafka://{addr}\n      channel: restart.orders\n");
    let (_schema, mut conn, t) = relay_across_restart("restart_kafka", &mut tansu, &dest).await;
    let records = tokio::task::spawn_blocking(move || {
        let n = record_count(&addr, "restart.orders", 3);
        read_records(&addr, "restart.orders", 3, n)
    })
    .await
    .unwrap();
    let arrived: HashSet<String> = records
        .iter()
        .filter_map(|r| r.headers.iter().find(|(k, _)| k == "forze_event_id"))
        .map(|(_, v)| v.clone())
        .collect();
    assert_none_lost(&staged_event_ids(&mut conn, &t).await, &arrived);
}
