//! `relay.wake: notify` on MongoDB: a change stream on the outbox collection (inserts, only
//! their `outbox_route`) wakes the lanes serving each route. After a lost connection it resumes
//! from the last event's token and wakes every lane once (what it missed is in the
//! collection). A standalone server has no change streams: the caller falls back to polling.

use futures_util::StreamExt;
use mongodb::bson::{Document, doc};
use mongodb::change_stream::event::ResumeToken;

use crate::wake::{Wakers, reconnect_wait};

/// MongoDB's "The $changeStream stage is only supported on replica sets".
const NOT_A_REPLICA_SET: i32 = 40573;

async fn open(
    coll: &mongodb::Collection<Document>,
    resume: Option<ResumeToken>,
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
    let mut watch = coll.watch().pipeline(pipeline);
    if let Some(token) = resume {
        watch = watch.resume_after(token);
    }
    watch.await
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
    match open(&coll, None).await {
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
    let mut resume: Option<ResumeToken> = None;
    let mut failures: u32 = 0;
    loop {
        let mut stream = match open(&coll, resume.clone()).await {
            Ok(s) => s,
            Err(e) => {
                failures += 1;
                let wait = reconnect_wait(failures);
                tracing::warn!(
                    "the change stream cannot reopen ({}); polling carries on, next try in {}",
                    crate::db::first_line(&e.to_string()),
                    crate::duration::Dur(wait)
                );
                tokio::time::sleep(wait).await;
                continue;
            }
        };
        if failures > 0 || resume.is_some() {
            // reopened: whatever arrived meanwhile is in the collection
            wakers.all();
        }
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
            resume = Some(event.id.clone());
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
