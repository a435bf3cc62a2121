//! Staging on PostgreSQL: one `INSERT … SELECT FROM UNNEST` for a batch of events (duplicates of
//! `(outbox_route, event_id)` skipped, as forze's `ON CONFLICT DO NOTHING`), stamped from the HLC
//! checkpoint and advancing it in the caller's transaction.

use chrono::{DateTime, Utc};
use sqlx::postgres::PgConnection;
use uuid::Uuid;

use super::ops::PgOps;
use crate::hlc::{Hlc, HlcTimestamp};
use crate::store::ops::{NewEvent, Staged};
use crate::target::QualifiedName;

/// Advances the HLC mark with `GREATEST`, so concurrent writers never lower it.
pub async fn advance_checkpoint(
    conn: &mut PgConnection,
    checkpoint: &QualifiedName,
    node_key: &str,
    mark: HlcTimestamp,
) -> Result<(), sqlx::Error> {
    crate::db::pg::query(&format!(
        "INSERT INTO {checkpoint} AS c (node_key, hlc) VALUES ($1, $2)
         ON CONFLICT (node_key) DO UPDATE SET hlc = GREATEST(c.hlc, EXCLUDED.hlc)"
    ))
    .bind(node_key)
    .bind(mark.pack())
    .execute(conn)
    .await
    .map(drop)
}

/// The largest mark over every node key.
pub async fn load_checkpoint(
    conn: &mut PgConnection,
    checkpoint: &QualifiedName,
) -> Result<Option<HlcTimestamp>, sqlx::Error> {
    let max: Option<i64> =
        crate::db::pg::query_scalar(&format!("SELECT max(hlc) FROM {checkpoint}"))
            .fetch_one(conn)
            .await?;
    Ok(max.and_then(|m| HlcTimestamp::unpack(m).ok()))
}

impl PgOps<'_> {
    /// Stages events on a connection that already has a transaction open (the caller commits
    /// or rolls back: the checkpoint moves with the rows or not at all).
    pub async fn stage_in_transaction(
        conn: &mut PgConnection,
        table: &QualifiedName,
        checkpoint: Option<&QualifiedName>,
        hlc: bool,
        traceparent: bool,
        events: &[NewEvent],
        node_key: &str,
    ) -> Result<Vec<Staged>, sqlx::Error> {
        let mut stamps: Vec<Option<HlcTimestamp>> = vec![None; events.len()];
        if hlc {
            let mut clock = Hlc::default();
            if let Some(cp) = checkpoint {
                if let Some(mark) = load_checkpoint(conn, cp).await? {
                    clock.resume(mark);
                }
            }
            let wall = Utc::now().timestamp_millis().max(0) as u64;
            for s in &mut stamps {
                // a stamp no BIGINT packs cannot be written: the value's error, exit 2
                *s = Some(
                    clock
                        .now(wall)
                        .map_err(|e| sqlx::Error::Encode(Box::new(e)))?,
                );
            }
        }
        let mut cols = "id, outbox_route, event_id, event_type, tenant_id, execution_id, correlation_id, causation_id, occurred_at, payload, status, created_at, attempts, available_at, ordering_key".to_owned();
        let mut select = "u.id, u.r, u.e, u.t, u.tn, u.ex, u.co, u.ca, u.oc, u.p::jsonb, 'pending', u.cr, 0, NULL, u.k".to_owned();
        if hlc {
            cols.push_str(", hlc");
            select.push_str(", u.h");
        }
        if traceparent {
            cols.push_str(", traceparent");
            select.push_str(", u.tp");
        }
        let sql = format!(
            "INSERT INTO {table} ({cols})
SELECT {select} FROM UNNEST($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::uuid[], $6::uuid[], $7::uuid[], $8::uuid[],
                           $9::timestamptz[], $10::text[], $11::timestamptz[], $12::text[], $13::bigint[], $14::text[])
     AS u(id, r, e, t, tn, ex, co, ca, oc, p, cr, k, h, tp)
ON CONFLICT (outbox_route, event_id) DO NOTHING
RETURNING id"
        );
        let now = Utc::now();
        let inserted: Vec<Uuid> = crate::db::pg::query_scalar(&sql)
            .bind(events.iter().map(|e| e.id).collect::<Vec<_>>())
            .bind(events.iter().map(|e| e.route.clone()).collect::<Vec<_>>())
            .bind(events.iter().map(|e| e.event_id).collect::<Vec<_>>())
            .bind(
                events
                    .iter()
                    .map(|e| e.event_type.clone())
                    .collect::<Vec<_>>(),
            )
            .bind(events.iter().map(|e| e.tenant_id).collect::<Vec<_>>())
            .bind(events.iter().map(|e| e.execution_id).collect::<Vec<_>>())
            .bind(events.iter().map(|e| e.correlation_id).collect::<Vec<_>>())
            .bind(events.iter().map(|e| e.causation_id).collect::<Vec<_>>())
            .bind(events.iter().map(|e| e.occurred_at).collect::<Vec<_>>())
            .bind(events.iter().map(|e| e.payload.clone()).collect::<Vec<_>>())
            .bind(events.iter().map(|_| now).collect::<Vec<DateTime<Utc>>>())
            .bind(
                events
                    .iter()
                    .map(|e| e.ordering_key.clone())
                    .collect::<Vec<_>>(),
            )
            .bind(
                stamps
                    .iter()
                    .map(|s| s.map(HlcTimestamp::pack))
                    .collect::<Vec<_>>(),
            )
            .bind(
                events
                    .iter()
                    .map(|e| e.traceparent.clone())
                    .collect::<Vec<_>>(),
            )
            .fetch_all(&mut *conn)
            .await?;
        if let (Some(cp), Some(Some(max))) = (checkpoint, stamps.iter().max()) {
            advance_checkpoint(conn, cp, node_key, *max).await?;
        }
        Ok(events
            .iter()
            .zip(stamps)
            .map(|(e, s)| {
                let hlc = s.map(HlcTimestamp::encode);
                Staged::new(e.id, e.event_id, inserted.contains(&e.id), hlc)
            })
            .collect())
    }
}
