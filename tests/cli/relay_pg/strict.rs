//! Strict key order on PostgreSQL: a key waits behind its failed, unreached or timed-out rows, and only its own.

use super::*;
use crate::common::fixture::Fixture;

#[tokio::test]
async fn strict_key_order_holds_back_a_failed_key_in_the_pass_and_the_claim() {
    for storage in [Storage::Retain, Storage::Consume] {
        let name = format!("relay_strict_holdback_{storage}");
        let (schema, mut conn) = PgSchema::new(&name).await;
        migrate(
            &schema,
            &["--key-order", "strict", "--storage", &storage.to_string()],
        )
        .await;
        let t = schema.rel("outbox");
        stage(&mut conn, &t, "orders", 12, Some(3)).await; // k1: 1,4,7,10  k2: 2,5,8,11  k0: 3,6,9,12
        let flaky = Flaky::new(|m, _| {
            (m.key == "k1" && m.payload.get() == "{\"n\":4}")
                .then(|| PublishError::transient("nope"))
        });
        let mut s = store(&schema, storage, KeyOrder::Strict).await;
        assert!(
            s.claims_by_function(None).unwrap(),
            "migrate added the claim's function"
        );
        let report = run_pass(
            &mut s,
            &target(),
            &Sink::Publisher(flaky.clone()),
            &strict_settings(storage),
            PassOptions::default(),
        )
        .await;
        assert!(report.committed, "{report:?}");
        assert_eq!(
            (report.published, report.retried, report.untouched),
            (9, 1, 2),
            "{storage}: {report:?}"
        );
        let published: Vec<String> = flaky
            .published
            .lock()
            .unwrap()
            .iter()
            .map(|m| m.payload.get().to_owned())
            .collect();
        assert!(
            !published.contains(&"{\"n\":7}".to_owned())
                && !published.contains(&"{\"n\":10}".to_owned())
        );
        // held-back rows are pending with no attempt counted
        let held = sqlx::query(&format!(
            "SELECT status, attempts FROM {t} WHERE (payload->>'n')::int IN (7, 10)"
        ))
        .fetch_all(&mut conn)
        .await
        .unwrap();
        for r in held {
            assert_eq!(
                (r.get::<String, _>(0), r.get::<i32, _>(1)),
                ("pending".into(), 0),
                "{storage}"
            );
        }
        // While n=4 waits for its retry, the claim takes nothing of k1 even when its rows are due.
        stage(&mut conn, &t, "orders", 3, Some(3)).await;
        let report = run_pass(
            &mut s,
            &target(),
            &Sink::Publisher(flaky.clone()),
            &strict_settings(storage),
            PassOptions::default(),
        )
        .await;
        assert_eq!(
            report.claimed, 2,
            "{storage}: only the new k0 and k2 rows: {report:?}"
        );
        // A failed head blocks its key until requeued; other keys flow.
        sqlx::raw_sql(&format!(
            "UPDATE {t} SET status = 'failed' WHERE (payload->>'n')::int = 4 AND attempts = 1"
        ))
        .execute(&mut conn)
        .await
        .unwrap();
        let report = run_pass(
            &mut s,
            &target(),
            &Sink::Publisher(flaky.clone()),
            &strict_settings(storage),
            PassOptions::default(),
        )
        .await;
        assert_eq!(report.claimed, 0, "{storage}: {report:?}");
    }
}

/// A destination whose first flush fails (its fsync, a broker batch ack): what it had taken
/// in that chunk failed.
struct FlushFailsOnce {
    flushes: AtomicUsize,
}

impl Publisher for FlushFailsOnce {
    fn publish(&self, _message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        Box::pin(async { Ok(()) })
    }

    fn flush(&self) -> BoxFuture<'static, Result<(), PublishError>> {
        let first = self.flushes.fetch_add(1, Ordering::SeqCst) == 0;
        Box::pin(async move {
            if first {
                Err(PublishError::transient("fsync failed"))
            } else {
                Ok(())
            }
        })
    }
}

/// Strict order: a chunk whose flush fails blocks its keys for the rest of the pass, so a
/// later chunk of the same key is not delivered while the earlier rows wait for their retry.
#[tokio::test]
async fn strict_key_order_holds_back_a_key_behind_a_failed_flush() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--key-order", "strict"]).await;
    let t = schema.rel("outbox");
    stage(&mut conn, &t, "orders", 40, Some(1)).await; // one key, two chunks (32 + 8)
    let mut s = store(&schema, Storage::Retain, KeyOrder::Strict).await;
    let sink = Sink::Publisher(Arc::new(FlushFailsOnce {
        flushes: AtomicUsize::new(0),
    }));
    let report = run_pass(
        &mut s,
        &target(),
        &sink,
        &strict_settings(Storage::Retain),
        PassOptions::default(),
    )
    .await;
    assert!(report.committed, "{report:?}");
    assert_eq!(
        (report.published, report.retried, report.untouched),
        (0, 32, 8),
        "the second chunk waits behind the failed first: {report:?}"
    );
    let published = count(
        &mut conn,
        &format!("SELECT count(*) FROM {t} WHERE status = 'published'"),
    )
    .await;
    assert_eq!(published, 0);
}

/// One strict claim in a pass that is then rolled back, and claimed rows made pending again
/// (retain), so the next storage mode starts from the same table.
async fn claim_and_undo(
    s: &mut PgStore<'static>,
    conn: &mut PgConnection,
    t: &str,
) -> Vec<outboxctl::model::OutboxRow> {
    s.begin_pass(&target()).await.unwrap();
    let claimed = s.claim(&target(), 100, chrono::Utc::now()).await.unwrap();
    s.rollback_pass().await;
    sqlx::raw_sql(&format!(
        "UPDATE {t} SET status = 'pending', processing_at = NULL WHERE status = 'processing'"
    ))
    .execute(conn)
    .await
    .unwrap();
    claimed.rows
}

/// Strict order's keys are what the rest of the relay calls keys: an empty ordering key is no
/// key (the event's own id), and a key belongs to its tenant, so tenant A's parked `order-42`
/// does not hold back tenant B's in a shared table.
#[tokio::test]
async fn strict_key_order_treats_an_empty_key_as_none_and_scopes_keys_by_tenant() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--key-order", "strict"]).await;
    let t = schema.rel("outbox");
    let (a, b) = (
        "0190c4e2-8a6c-7e4a-9b1e-00000000000a",
        "0190c4e2-8a6c-7e4a-9b1e-00000000000b",
    );
    let (a, b) = (a.parse().unwrap(), b.parse().unwrap());
    crate::common::fixture::insert(
        &mut conn,
        &t,
        &[
            Fixture::failed("orders")
                .payload(r#"{"n":1}"#)
                .created_ago(4.0)
                .key(""),
            Fixture::pending("orders")
                .payload(r#"{"n":2}"#)
                .created_ago(3.0)
                .key(""),
            Fixture::failed("orders")
                .payload(r#"{"n":3}"#)
                .created_ago(2.0)
                .key("order-42")
                .tenant(a),
            Fixture::pending("orders")
                .payload(r#"{"n":4}"#)
                .created_ago(1.0)
                .key("order-42")
                .tenant(b),
        ],
    )
    .await;
    for storage in [Storage::Retain, Storage::Consume] {
        let mut s = store(&schema, storage, KeyOrder::Strict).await;
        let rows = claim_and_undo(&mut s, &mut conn, &t).await;
        let mut ns: Vec<String> = rows.iter().map(|r| r.payload.clone()).collect();
        ns.sort();
        assert_eq!(ns, ["{\"n\": 2}", "{\"n\": 4}"], "{storage}");
    }
}

/// With HLC ordering, "earlier" is the claim order (`hlc NULLS LAST, created_at, id`), not
/// `created_at`: a reaction stamped on a replica whose clock is behind (higher hlc, lower
/// `created_at`) waits behind its parked cause.
#[tokio::test]
async fn strict_key_order_with_hlc_decides_earlier_by_the_claim_order() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--key-order", "strict", "--hlc-ordering"]).await;
    let t = schema.rel("outbox");
    crate::common::fixture::insert(
        &mut conn,
        &t,
        &[
            Fixture::failed("orders")
                .event_type("cause")
                .payload(r#"{"n":1}"#)
                .key("k")
                .hlc(100),
            Fixture::pending("orders")
                .event_type("reaction")
                .payload(r#"{"n":2}"#)
                .created_ago(3600.0)
                .key("k")
                .hlc(200),
            Fixture::pending("orders")
                .event_type("other")
                .payload(r#"{"n":3}"#)
                .created_ago(3600.0)
                .key("j")
                .hlc(300),
        ],
    )
    .await;
    let mut opts = outboxctl::store::postgres::PgStoreOptions {
        hlc_ordering: true,
        ..store_options(&schema, Storage::Retain, KeyOrder::Strict)
    };
    for storage in [Storage::Retain, Storage::Consume] {
        opts.storage = storage;
        let db = outboxctl::dburl::DatabaseUrl::parse(&pg_url()).unwrap();
        let mut s = PgStore::connect(&db, Duration::from_secs(5), opts.clone())
            .await
            .unwrap();
        let rows = claim_and_undo(&mut s, &mut conn, &t).await;
        let types: Vec<&str> = rows.iter().map(|r| r.event_type.as_str()).collect();
        assert_eq!(
            types,
            ["other"],
            "{storage}: the reaction waits behind its cause"
        );
    }
}

/// Publishes key `J`'s message with no answer (a timeout) at once, and key `K`'s after a pause:
/// `K`'s rows in the chunk are not reached once the timeout stops the chunk.
struct TimeoutOnJ {
    published: std::sync::Mutex<Vec<String>>,
}

impl Publisher for TimeoutOnJ {
    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>> {
        if message.key == "J" {
            return Box::pin(async { Err(PublishError::timed_out("publish timed out")) });
        }
        self.published
            .lock()
            .unwrap()
            .push(message.payload.get().to_owned());
        Box::pin(async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            Ok(())
        })
    }
}

/// Strict order: rows a timeout left unreached hold their key back for the rest of the pass,
/// so the next chunk does not deliver the key's later rows before them.
#[tokio::test]
async fn strict_key_order_holds_back_rows_a_timeout_left_unreached() {
    let (schema, mut conn) = PgSchema::new(test_name!()).await;
    migrate(&schema, &["--key-order", "strict"]).await;
    let t = schema.rel("outbox");
    sqlx::raw_sql(&format!(
        "INSERT INTO {t} (id, outbox_route, event_id, event_type, occurred_at, payload, status, created_at, ordering_key)
         SELECT gen_random_uuid(), 'orders', gen_random_uuid(), 'x', now(), jsonb_build_object('n', g), 'pending',
                '2026-12-01 00:00:00+00'::timestamptz + g * interval '1 ms', CASE WHEN g = 0 THEN 'J' ELSE 'K' END
           FROM generate_series(0, 39) g"
    ))
    .execute(&mut conn)
    .await
    .unwrap();
    let publisher = Arc::new(TimeoutOnJ {
        published: Default::default(),
    });
    let mut s = store(&schema, Storage::Retain, KeyOrder::Strict).await;
    let report = run_pass(
        &mut s,
        &target(),
        &Sink::Publisher(publisher.clone()),
        &strict_settings(Storage::Retain),
        PassOptions::default(),
    )
    .await;
    assert!(report.committed, "{report:?}");
    let published = publisher.published.lock().unwrap().clone();
    assert!(
        published.is_empty(),
        "K's rows wait behind the ones the timeout left unreached: {published:?} {report:?}"
    );
    assert_eq!((report.retried, report.untouched), (1, 39), "{report:?}");
}

/// Strict order with another relay holding a key's earlier row (its claim's lock, the row still
/// pending): the claim steps over the locked row and must then hold back the key's later rows,
/// whether the locked row is never retried (a gap among the candidates) or a due retry (the
/// ripe range, where the claim sees no gap of its own). Other keys flow.
#[tokio::test]
async fn strict_key_order_holds_back_a_key_whose_earlier_row_another_relay_holds() {
    use sqlx::Connection;
    for storage in [Storage::Retain, Storage::Consume] {
        for ripe in [false, true] {
            let name = format!("relay_strict_locked_{storage}_{ripe}");
            let (schema, mut conn) = PgSchema::new(&name).await;
            let storage_flag = storage.to_string();
            migrate(
                &schema,
                &["--key-order", "strict", "--storage", &storage_flag],
            )
            .await;
            let t = schema.rel("outbox");
            stage(&mut conn, &t, "orders", 12, Some(3)).await; // k1: 1,4,7,10
            if ripe {
                let retry = format!(
                    "UPDATE {t} SET available_at = now() - interval '1 minute', attempts = 1 WHERE (payload->>'n')::int = 1"
                );
                sqlx::raw_sql(&retry).execute(&mut conn).await.unwrap();
            }
            // the other relay: a transaction holding row 1 as its claim would
            let mut other = sqlx::PgConnection::connect(&pg_url()).await.unwrap();
            let hold =
                format!("BEGIN; SELECT id FROM {t} WHERE (payload->>'n')::int = 1 FOR UPDATE");
            sqlx::raw_sql(&hold).execute(&mut other).await.unwrap();
            let mut s = store(&schema, storage, KeyOrder::Strict).await;
            s.begin_pass(&target()).await.unwrap();
            let claimed = s.claim(&target(), 100, chrono::Utc::now()).await.unwrap();
            let n = |payload: &str| {
                serde_json::from_str::<serde_json::Value>(payload).unwrap()["n"].as_i64()
            };
            let mut got: Vec<i64> = claimed.rows.iter().filter_map(|r| n(&r.payload)).collect();
            got.sort();
            let want = [2, 3, 5, 6, 8, 9, 11, 12];
            assert_eq!(
                got, want,
                "{storage}, ripe {ripe}: k1's rows wait behind row 1"
            );
            s.rollback_pass().await;
            sqlx::raw_sql("ROLLBACK").execute(&mut other).await.unwrap();
        }
    }
}
