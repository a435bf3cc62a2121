//! `relay.wake: notify` on MongoDB: a change stream on the outbox collection (inserts, only
//! their `outbox_route`) wakes the lanes serving each route. Each time the stream opens (the
//! first time too: an insert between the check at start and this open has no event) it wakes
//! every lane once, since what it missed is in the collection; so it never resumes from a
//! token, which an idle route would let fall out of the oplog and which then could never
//! open again. A standalone server has no change streams: the caller falls back to polling.

use futures_util::StreamExt;
use mongodb::bson::{Document, doc};

use crate::wake::{Wakers, reconnect_wait};

/// MongoDB's "The $changeStream stage is only supported on replica sets".
const NOT_A_REPLICA_SET: i32 = 40573;

async fn open(
    coll: &mongodb::Collection<Document>,
) -> mongodb::error::Result<
    mongodb::change_stream::ChangeStream<
        mongodb::change_stream::event::ChangeStreamEvent<Document>,
    >,
> {
    let pipeline = vec![
        doc! { "$match": { "operationType": "insert" } },
        // `operationType` stays: the driver cannot read an event without it
        doc! { "$project": { "operationType": 1, "fullDocument.outbox_route": 1 } },
    ];
    coll.watch().pipeline(pipeline).await
}

/// Opens the change stream; `Err` says why it cannot (a standalone server).
pub async fn listen(
    client: &mongodb::Client,
    collection: &crate::target::CollectionName,
) -> Result<mongodb::Collection<Document>, crate::wake::NoListener> {
    use crate::wake::NoListener;
    let coll = client
        .database(&collection.db)
        .collection::<Document>(&collection.collection);
    match open(&coll).await {
        Ok(_) => Ok(coll),
        Err(e) if matches!(*e.kind, mongodb::error::ErrorKind::Command(ref c) if c.code == NOT_A_REPLICA_SET) => {
            Err(NoListener(
                "change streams need a replica set (this server is standalone)".into(),
            ))
        }
        Err(e) => Err(NoListener(format!(
            "cannot open a change stream on {collection}: {}",
            crate::db::first_line(&e.to_string())
        ))),
    }
}

/// Follows the change stream until the task is dropped.
pub async fn run(coll: mongodb::Collection<Document>, wakers: Wakers, on_wake: impl Fn(&str)) {
    let mut failures: u32 = 0;
    // one warning per outage, then debug lines
    let mut warned = false;
    loop {
        let mut stream = match open(&coll).await {
            Ok(s) => s,
            Err(e) => {
                failures += 1;
                let wait = reconnect_wait(failures);
                let cap = crate::duration::Dur(crate::wake::RECONNECT_CAP);
                let why = crate::db::first_line(&e.to_string()).to_owned();
                if warned {
                    tracing::debug!("the change stream still cannot reopen ({why})");
                } else {
                    tracing::warn!(
                        "the change stream cannot reopen ({why}); polling carries on, retrying every {cap} at most"
                    );
                    warned = true;
                }
                tokio::time::sleep(wait).await;
                continue;
            }
        };
        warned = false;
        // whatever arrived before it opened is in the collection
        wakers.all();
        while let Some(event) = stream.next().await {
            let event = match event {
                Ok(event) => event,
                Err(e) => {
                    let e = crate::db::first_line(&e.to_string()).to_owned();
                    tracing::warn!("the change stream failed: {e}");
                    break;
                }
            };
            failures = 0;
            let Some(route) = event
                .full_document
                .as_ref()
                .and_then(|d| d.get_str("outbox_route").ok())
            else {
                continue;
            };
            // counted for the routes this relay serves only (one metrics series each)
            if wakers.route(route) {
                on_wake(route);
            }
        }
        failures += 1;
        let wait = reconnect_wait(failures);
        tracing::warn!(
            "the change stream ended: reopening it in {}",
            crate::duration::Dur(wait)
        );
        tokio::time::sleep(wait).await;
    }
}
