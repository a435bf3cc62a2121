//! MongoDB parity on a real replica set: relay, inspect, requeue, emit, the HLC checkpoint,
//! strict key order with several relays, kill -9.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use futures_util::TryStreamExt;
use mongodb::bson::{Bson, Document, doc};
use serde_json::Value;

use crate::common::{
    CHECK_FAILED, ERROR, MongoDb, OK, Ob, RELAY_TO_NOWHERE, doctor_check, group_counts, lines,
    mongo_url, ob, out_file,
};
use crate::common::{OwnMongod, own_mongod, wait_until};

mod ops;
mod relay;
mod strict;

/// A mongod of the test's own, the primary of a one-node replica set (with
/// `enableTestCommands`, so failpoints work), and a direct client to it.
async fn own_primary(name: &str, port_base: u16) -> (OwnMongod, mongodb::Client) {
    let own = own_mongod(name, port_base, false);
    own.start();
    own.primary().await;
    let url = format!("mongodb://127.0.0.1:{}/?directConnection=true", own.port);
    let client = mongodb::Client::with_uri_str(&url).await.unwrap();
    (own, client)
}

/// Sets the `failCommand` failpoint of the server `client` reaches: `mode` (`"off"`,
/// `{times: n}`, `{skip: n}`) and what the failing commands answer (`data`).
async fn fail_command(client: &mongodb::Client, mode: Bson, data: Document) {
    let set = doc! { "configureFailPoint": "failCommand", "mode": mode, "data": data };
    client.database("admin").run_command(set).await.unwrap();
}

fn cmd(db: &MongoDb, args: &[&str]) -> crate::common::Run {
    on(db, args).run()
}

/// `args` on the test database's outbox.
fn on(db: &MongoDb, args: &[&str]) -> Ob {
    ob(args).mongo(&format!("{}.outbox", db.name))
}

/// `relay --once` of route `orders` under strict key order, to `to`.
fn strict_relay_once(db: &MongoDb, to: &str) -> Ob {
    on(
        db,
        &[
            "relay",
            "--once",
            "--key-order",
            "strict",
            "--route",
            "orders",
            "--to",
            to,
        ],
    )
}

async fn setup(test: &str, extra: &[&str]) -> MongoDb {
    let db = MongoDb::new(test).await;
    let mut args = vec!["migrate", "-q"];
    args.extend_from_slice(extra);
    let r = cmd(&db, &args);
    assert_eq!(r.code, OK, "{r:?}");
    db
}

fn emit(db: &MongoDb, n: u32, key: Option<&str>, extra: &[&str]) {
    let count = n.to_string();
    let mut args = vec![
        "emit",
        "-q",
        "--route",
        "orders",
        "--type",
        "order.placed",
        "--payload",
        r#"{"order_id": 42, "total": "19.90"}"#,
        "--count",
        &count,
    ];
    if let Some(k) = key {
        args.extend(["--ordering-key", k]);
    }
    args.extend_from_slice(extra);
    let r = cmd(db, &args);
    assert_eq!(r.code, OK, "{r:?}");
}

/// Waits until no document is pending or processing.
async fn all_delivered(coll: &mongodb::Collection<Document>, limit: Duration) {
    crate::common::eventually(limit, "every document delivered", async || {
        let left = coll
            .count_documents(doc! { "status": { "$in": ["pending", "processing"] } })
            .await
            .unwrap();
        if left == 0 {
            Ok(())
        } else {
            Err(format!("{left} left"))
        }
    })
    .await
}

/// Parks the first document (in `created_at, id` order) of `key`; returns it.
async fn park_first(db: &MongoDb, key: &str, error: &str) -> Document {
    set_first(db, key, doc! { "status": "failed", "last_error": error }).await
}

/// Sets `fields` on the first document (in `created_at, id` order) of `key`; returns it as
/// it was.
async fn set_first(db: &MongoDb, key: &str, fields: Document) -> Document {
    let coll = db.db().collection::<Document>("outbox");
    let head = coll
        .find_one(doc! { "ordering_key": key })
        .sort(doc! { "created_at": 1, "id": 1 })
        .await
        .unwrap()
        .unwrap();
    coll.update_one(
        doc! { "_id": head.get("_id").unwrap() },
        doc! { "$set": fields },
    )
    .await
    .unwrap();
    head
}

async fn docs(db: &MongoDb, filter: Document) -> Vec<Document> {
    db.db()
        .collection::<Document>("outbox")
        .find(filter)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

fn spawn_relay(
    db: &MongoDb,
    mode: &str,
    path: &std::path::Path,
    extra: &[&str],
) -> std::process::Child {
    ob(["relay", mode, "--route", "orders"])
        .mongo(&format!("{}.outbox", db.name))
        .args(["--to", &format!("file:{}", path.display())])
        .args(extra)
        .spawn_piped()
}

fn count_lines(path: &std::path::Path) -> usize {
    std::fs::read(path)
        .map(|b| b.iter().filter(|&&c| c == b'\n').count())
        .unwrap_or(0)
}
