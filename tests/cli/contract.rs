//! One backend-agnostic story run against PgStore, MongoStore and the memory store, so none
//! can drift from the others:
//! stage → claim → a concurrent claim gets nothing → publish → mark → stats → stale →
//! reclaim → retry → fail → requeue.

use std::time::Duration;

use chrono::Utc;
use futures_util::future::LocalBoxFuture;
use outboxctl::model::{KeyOrder, Storage};
use outboxctl::store::ops::{ListStatus, NewEvent, OpsStore, RowFilter};
use outboxctl::store::{PassTarget, RelayStore};

use crate::common::{MongoDb, OK, PgSchema, mongo_url, ob, pg_url};

fn event(n: i64) -> NewEvent {
    NewEvent {
        id: uuid::Uuid::now_v7(),
        event_id: uuid::Uuid::now_v7(),
        route: "contract".into(),
        event_type: "story".into(),
        payload: format!("{{\"n\": {n}}}"),
        ordering_key: None,
        tenant_id: None,
        correlation_id: None,
        causation_id: None,
        execution_id: None,
        traceparent: None,
        occurred_at: Utc::now(),
    }
}

async fn claim<S: RelayStore>(s: &mut S, t: &PassTarget) -> Vec<outboxctl::model::OutboxRow> {
    claim_at(s, t, Utc::now()).await
}

async fn claim_at<S: RelayStore>(
    s: &mut S,
    t: &PassTarget,
    at: chrono::DateTime<Utc>,
) -> Vec<outboxctl::model::OutboxRow> {
    s.begin_pass(t).await.unwrap();
    let c = s.claim(t, 10, at).await.unwrap();
    s.commit_pass().await.unwrap();
    c.rows
}

async fn story<S: RelayStore, O: OpsStore>(
    backend: &str,
    store: &mut S,
    other: &mut S,
    ops: &mut O,
    mut make_stale: impl FnMut() -> LocalBoxFuture<'static, ()>,
) {
    let t = PassTarget {
        route: "contract".into(),
        tenant: None,
    };
    let staged = ops
        .stage(&[event(1), event(2), event(3)], "default")
        .await
        .unwrap();
    assert!(staged.iter().all(|s| s.inserted), "{backend}");
    // staging the same event id again is deduplicated
    let mut again = event(1);
    again.event_id = staged[0].event_id;
    assert!(
        !ops.stage(&[again], "default").await.unwrap()[0].inserted,
        "{backend}"
    );

    let first_at = Utc::now();
    let rows = claim_at(store, &t, first_at).await;
    assert_eq!(
        rows.iter()
            .map(|r| r.payload.replace(' ', ""))
            .collect::<Vec<_>>(),
        ["{\"n\":1}", "{\"n\":2}", "{\"n\":3}"],
        "{backend}: claim order"
    );
    assert!(
        claim(other, &t).await.is_empty(),
        "{backend}: a concurrent claim gets nothing"
    );

    store.begin_pass(&t).await.unwrap();
    assert_eq!(
        store
            .mark_published(&t, &[rows[0].id], Utc::now())
            .await
            .unwrap(),
        1,
        "{backend}"
    );
    store.commit_pass().await.unwrap();
    let s = ops.summary("contract", None, Utc::now()).await.unwrap();
    assert_eq!(
        (s.pending_ripe, s.processing, s.failed),
        (0, 2, 0),
        "{backend}: {s:?}"
    );

    make_stale().await;
    store.begin_pass(&t).await.unwrap();
    assert_eq!(
        store
            .reclaim(&t, Utc::now() - chrono::Duration::minutes(1))
            .await
            .unwrap(),
        2,
        "{backend}"
    );
    store.commit_pass().await.unwrap();
    let s = ops.summary("contract", None, Utc::now()).await.unwrap();
    assert_eq!((s.pending_ripe, s.processing), (2, 0), "{backend}: {s:?}");

    let at = Utc::now();
    let rows = claim_at(store, &t, at).await;
    assert_eq!(rows.len(), 2, "{backend}");
    // reclaimed and claimed again, the rows are no longer the first claim's: a retry, park or
    // release made for it (a pass that outlived reclaim_stale_after) changes none of them
    let ids: Vec<uuid::Uuid> = rows.iter().map(|r| r.id).collect();
    store.begin_pass(&t).await.unwrap();
    let later = Utc::now() + chrono::Duration::hours(1);
    let retried = store.mark_retry(&t, &ids, 1, later, "late", first_at);
    assert_eq!(retried.await.unwrap(), 0, "{backend}");
    let parked = store.mark_failed(&t, &ids, "late", first_at).await.unwrap();
    assert_eq!(parked, 0, "{backend}");
    assert_eq!(store.release(&t, &ids, first_at).await.unwrap(), 0);
    store.commit_pass().await.unwrap();
    store.begin_pass(&t).await.unwrap();
    let due = Utc::now() - chrono::Duration::seconds(1);
    let retried = store.mark_retry(&t, &ids[..1], 1, due, "boom", at);
    assert_eq!(retried.await.unwrap(), 1, "{backend}");
    let parked = store.mark_failed(&t, &ids[1..], "nope", at).await.unwrap();
    assert_eq!(parked, 1, "{backend}");
    store.commit_pass().await.unwrap();
    let s = ops.summary("contract", None, Utc::now()).await.unwrap();
    assert_eq!((s.pending_ripe, s.failed), (1, 1), "{backend}: {s:?}");
    assert_eq!(s.attempts.get(&1), Some(&1), "{backend}: {s:?}");

    let filter = RowFilter {
        status: ListStatus::Failed,
        route: None,
        tenant: None,
        event_type: None,
        older_than: None,
        error_contains: Some("no".into()),
        after: None,
        limit: 10,
    };
    let failed = ops.list(&filter, Utc::now()).await.unwrap();
    assert_eq!(failed.len(), 1, "{backend}");
    assert_eq!(failed[0].last_error.as_deref(), Some("nope"), "{backend}");
    // chosen by its error, a row is requeued only while it still has that error
    let chosen = |error: Option<&str>| outboxctl::store::ops::Chosen {
        id: failed[0].id,
        error: Some(error.map(str::to_owned)),
    };
    for other in [Some("another error"), None] {
        let left = ops.requeue(&[chosen(other)]).await.unwrap();
        assert!(left.is_empty(), "{backend}, chosen by {other:?}: {left:?}");
    }
    assert_eq!(
        ops.requeue(&[chosen(Some("nope"))]).await.unwrap(),
        vec![failed[0].id],
        "{backend}"
    );
    let s = ops.summary("contract", None, Utc::now()).await.unwrap();
    assert_eq!((s.pending_ripe, s.failed), (2, 0), "{backend}: {s:?}");
    let rows = claim(store, &t).await;
    let mut attempts: Vec<i32> = rows.iter().map(|r| r.attempts).collect();
    attempts.sort();
    assert_eq!(
        attempts,
        [0, 1],
        "{backend}: requeue resets attempts, retry kept its count"
    );
}

#[tokio::test]
async fn the_story_holds_on_postgres() {
    use outboxctl::store::postgres::ops::PgOps;
    use outboxctl::store::postgres::{PgStore, PgStoreOptions};
    let (schema, _conn) = PgSchema::new(test_name!()).await;
    crate::common::migrate(&schema, &[]).await;
    let table = schema.rel("outbox");
    let opts = PgStoreOptions {
        relation: outboxctl::target::RelationSpec::parse("r", &table).unwrap(),
        delivery_log: None,
        storage: Storage::Retain,
        hlc_ordering: false,
        propagate_trace: false,
        tenant_aware: false,
        key_order: KeyOrder::BestEffort,
        pass_statement_timeout: Duration::from_secs(1),
        pass_deadline: Duration::from_secs(5),
        prepared_statements: false,
        pauses: None,
    };
    let url = outboxctl::dburl::DatabaseUrl::parse(&pg_url()).unwrap();
    let mut a = PgStore::connect(&url, Duration::from_secs(5), opts.clone())
        .await
        .unwrap();
    let mut b = PgStore::connect(&url, Duration::from_secs(5), opts)
        .await
        .unwrap();
    let mut conn = crate::common::pg().await;
    let mut ops = PgOps::open(
        &mut conn,
        outboxctl::target::QualifiedName::parse("t", &table).unwrap(),
    )
    .await
    .unwrap();
    ops.reclaim_stale_after = Some(Duration::from_secs(300));
    let stale_sql = format!(
        "UPDATE {table} SET processing_at = now() - interval '10 minutes' WHERE status = 'processing'"
    );
    story("postgres", &mut a, &mut b, &mut ops, move || {
        let sql = stale_sql.clone();
        Box::pin(async move {
            let mut c = crate::common::pg().await;
            sqlx::raw_sql(&sql).execute(&mut c).await.unwrap();
        })
    })
    .await;
}

#[tokio::test]
async fn the_story_holds_on_mongo() {
    use mongodb::bson::{Document, doc};
    use outboxctl::store::mongo::ops::MongoOps;
    use outboxctl::store::mongo::{MongoStore, MongoStoreOptions};
    let db = MongoDb::new(test_name!()).await;
    let coll = format!("{}.outbox", db.name);
    let r = ob([
        "migrate",
        "-q",
        "--database-url",
        &mongo_url(),
        "--collection",
        &coll,
    ])
    .run();
    assert_eq!(r.code, OK, "{r:?}");
    let opts = MongoStoreOptions {
        collection: outboxctl::target::CollectionName::parse("c", &coll).unwrap(),
        hlc_ordering: false,
        propagate_trace: false,
        tenant_aware: false,
        key_order: KeyOrder::BestEffort,
    };
    let mut a = MongoStore::new(&db.client, opts.clone());
    let mut b = MongoStore::new(&db.client, opts.clone());
    let mut ops = MongoOps::new(db.client.clone(), opts, None);
    ops.reclaim_stale_after = Some(Duration::from_secs(300));
    let c = db.db().collection::<Document>("outbox");
    story("mongo", &mut a, &mut b, &mut ops, move || {
        let c = c.clone();
        Box::pin(async move {
            let old = mongodb::bson::DateTime::from_millis(
                mongodb::bson::DateTime::now().timestamp_millis() - 600_000,
            );
            c.update_many(
                doc! { "status": "processing" },
                doc! { "$set": { "processing_at": old } },
            )
            .await
            .unwrap();
        })
    })
    .await;
}

#[tokio::test]
async fn the_story_holds_on_the_memory_store() {
    use outboxctl::store::memory::MemoryOutbox;
    let mut outbox = MemoryOutbox::new(Storage::Retain, KeyOrder::BestEffort);
    outbox.reclaim_stale_after = Some(Duration::from_secs(300));
    let mut a = outbox.store();
    let mut b = outbox.store();
    let mut ops = outbox.store();
    let aged = outbox.clone();
    story("memory", &mut a, &mut b, &mut ops, move || {
        for r in aged.table().rows.iter_mut() {
            if let Some(at) = r.processing_at.as_mut() {
                *at -= chrono::Duration::minutes(10);
            }
        }
        Box::pin(async {})
    })
    .await;
}
