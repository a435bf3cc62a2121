//! The memory store's own semantics: consume locks and rollbacks, strict hold-back.

use super::*;
use crate::store::ops::OpsStore;

fn row(n: u128) -> OutboxRow {
    let at = DateTime::<Utc>::from_timestamp_millis(1_764_583_200_000).unwrap();
    OutboxRow {
        id: Uuid::from_u128(n),
        route: "r".into(),
        event_id: Uuid::from_u128(0xE000 + n),
        event_type: "t".into(),
        tenant_id: None,
        execution_id: None,
        correlation_id: None,
        causation_id: None,
        occurred_at: at,
        payload: "{}".into(),
        attempts: 0,
        ordering_key: None,
        created_at: at + chrono::Duration::milliseconds(n as i64),
        hlc: None,
        traceparent: None,
    }
}

fn ids(c: &Claimed) -> Vec<u128> {
    c.rows.iter().map(|r| r.id.as_u128()).collect()
}

#[tokio::test]
async fn a_consume_pass_locks_what_it_claims_and_a_rollback_undoes_its_deletes() {
    let outbox = MemoryOutbox::new(Storage::Consume, KeyOrder::BestEffort);
    for n in 1..=3 {
        outbox.insert(row(n));
    }
    let t = PassTarget {
        route: "r".into(),
        tenant: None,
    };
    let now = Utc::now();
    let (mut a, mut b) = (outbox.store(), outbox.store());
    a.begin_pass(&t).await.unwrap();
    let mine = a.claim(&t, 2, now).await.unwrap();
    assert_eq!(ids(&mine), [1, 2]);
    b.begin_pass(&t).await.unwrap();
    assert_eq!(
        ids(&b.claim(&t, 10, now).await.unwrap()),
        [3],
        "skips locked rows"
    );
    b.rollback_pass().await;
    let gone = a.mark_published(&t, &[mine.rows[0].id], now).await.unwrap();
    assert_eq!(gone, 1);
    assert_eq!(outbox.table().rows.len(), 2, "deleted inside the pass");
    a.rollback_pass().await;
    assert_eq!(outbox.table().rows.len(), 3, "the rollback puts it back");
    b.begin_pass(&t).await.unwrap();
    assert_eq!(
        ids(&b.claim(&t, 10, now).await.unwrap()),
        [1, 2, 3],
        "unlocked"
    );
    b.mark_published(&t, &[Uuid::from_u128(2)], now)
        .await
        .unwrap();
    b.commit_pass().await.unwrap();
    let left: Vec<u128> = outbox
        .table()
        .rows
        .iter()
        .map(|r| r.row.id.as_u128())
        .collect();
    assert_eq!(left, [1, 3], "a commit keeps the delete");
}

#[tokio::test]
async fn strict_order_holds_a_key_behind_its_parked_head() {
    let outbox = MemoryOutbox::new(Storage::Retain, KeyOrder::Strict);
    for n in 1..=3 {
        let mut r = row(n);
        r.ordering_key = Some(if n == 3 { "other" } else { "k" }.into());
        outbox.insert(r);
    }
    outbox.table().rows[0].status = Status::Failed;
    let t = PassTarget {
        route: "r".into(),
        tenant: None,
    };
    let mut s = outbox.store();
    assert_eq!(ids(&s.claim(&t, 10, Utc::now()).await.unwrap()), [3]);
    let blocked = s.blocked(None, None, Utc::now(), 10).await.unwrap();
    assert_eq!(blocked.len(), 1);
    assert_eq!(
        (blocked[0].ordering_key.as_str(), blocked[0].waiting),
        ("k", 1)
    );
}
