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

mod amqp_http;
mod amqp_urls;
mod options;
mod redis_nats;
mod webhook_signing;

/// The headers string of forze-wire.md §1.5, byte for byte (275 bytes).
const WIRE_HEADERS: &str = r#"{"forze_correlation_id":"0190c4e2-8a6c-7e4a-9b1e-000000000001","forze_event_id":"0190c4e2-8a6c-7e4a-9b1e-2f3a4b5c6d7e","forze_hlc":"001764583200000.00003","forze_occurred_at":"2026-12-01T10:00:00+00:00","traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}"#;

async fn redis_conn() -> redis::aio::MultiplexedConnection {
    redis::Client::open(REDIS)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .expect("Redis on 127.0.0.1:6379 (scripts/services.sh starts it)")
}

/// The last errors of the rows of `t`, each of which must be parked (`failed`).
async fn parked_errors(conn: &mut sqlx::PgConnection, t: &str) -> Vec<String> {
    let rows: Vec<(String, String)> =
        sqlx::query_as(&format!("SELECT status, last_error FROM {t}"))
            .fetch_all(conn)
            .await
            .unwrap();
    let parked = rows.into_iter().map(|(status, err)| {
        assert_eq!(status, "failed", "{err}");
        err
    });
    parked.collect()
}

async fn redis_del(r: &mut redis::aio::MultiplexedConnection, key: &str) {
    let _: () = redis::cmd("DEL").arg(key).query_async(r).await.unwrap();
}
