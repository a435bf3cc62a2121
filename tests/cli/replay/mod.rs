//! `outboxctl replay` on real servers: what the relay delivered goes out again byte for byte,
//! in claim order, selected, resumable, paced, from each source, and the outbox is untouched.

use std::path::{Path, PathBuf};

use serde_json::Value;
use sqlx::postgres::PgConnection;

use crate::common::brokers::{REDIS, hook};
use crate::common::mongo::MongoDb;
use crate::common::{
    ERROR, OK, Ob, PgSchema, REFUSED, config_file, count, emit_events, migrate, ob, out_file, stage,
};

mod postgres;
mod signals;
mod sources;

/// A config with the replay index on (retain storage) and routes `orders` and `other`.
fn replay_config(test: &str) -> String {
    config_file(
        test,
        "outbox:\n  replay_index: true\nrelay:\n  routes:\n    orders:\n      to: file:/dev/null\n    other:\n      to: file:/dev/null\n",
    )
}

fn replay(schema: &PgSchema, cfg: &str) -> Ob {
    ob(["replay"]).pg(&schema.rel("outbox")).config(cfg)
}

fn relay_to(schema: &PgSchema, cfg: &str, route: &str, to: &str) {
    ob(["relay", "--once", "--route", route, "--to", to])
        .pg(&schema.rel("outbox"))
        .config(cfg)
        .code(OK);
}

fn file_url(path: &Path) -> String {
    format!("file:{}", path.display())
}

/// `(key, event id)` of each line of a JSON-lines file, in order.
fn keyed_events(path: &PathBuf) -> Vec<(String, String)> {
    read(path)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["key"].as_str().unwrap().into(),
                v["event_id"].as_str().unwrap().into(),
            )
        })
        .collect()
}

fn read(path: &PathBuf) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Every column of every row, as one fingerprint: replay must leave it as it was.
async fn table_state(conn: &mut PgConnection, t: &str) -> String {
    sqlx::query_scalar(&format!(
        "SELECT md5(coalesce(string_agg(o::text, ',' ORDER BY id), '')) FROM {t} o"
    ))
    .fetch_one(conn)
    .await
    .unwrap()
}

/// An outbox with the replay index and `n` delivered rows of `orders` (keys k0..k4) and 5 of
/// `other`, each delivered to a file of its own; returns the `orders` file.
async fn delivered(test: &str, n: i64) -> (PgSchema, PgConnection, String, PathBuf) {
    let (schema, mut conn) = PgSchema::new(test).await;
    let cfg = replay_config(test);
    migrate(&schema, &["--config", &cfg]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", n, Some(5)).await;
    stage(&mut conn, &t, "other", 5, None).await;
    let first = out_file(&format!("{test}-first"));
    relay_to(&schema, &cfg, "orders", &file_url(&first));
    relay_to(
        &schema,
        &cfg,
        "other",
        &file_url(&out_file(&format!("{test}-other"))),
    );
    (schema, conn, cfg, first)
}
