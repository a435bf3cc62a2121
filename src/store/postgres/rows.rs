//! Claimed rows: decoded from either driver's row type by column name, and put back into claim
//! order after statements that lose it; and the millisecond rounding of pass limits.

use std::time::Duration;

use sqlx::postgres::PgRow;

use super::PgStoreOptions;
use crate::model::OutboxRow;
use crate::store::StoreError;

/// Rounds up to whole milliseconds, never to 0.
pub fn millis_ceil(d: Duration) -> u64 {
    let ms = d.as_nanos().div_ceil(1_000_000) as u64;
    ms.max(1)
}

/// Sorts claimed rows into claim order (`RETURNING` and `UNION ALL` lose the ranges' order).
pub fn sort_claim_order(rows: &mut [OutboxRow], hlc_ordering: bool) {
    if hlc_ordering {
        // NULLS LAST, as PostgreSQL sorts ascending
        rows.sort_by_key(|r| (r.hlc.is_none(), r.hlc, r.created_at, r.id));
    } else {
        rows.sort_by_key(|r| (r.created_at, r.id));
    }
}

/// A claimed row from either driver's row type (both have `try_get` by column name).
macro_rules! outbox_row {
    ($r:expr, $opts:expr) => {
        OutboxRow {
            id: $r.try_get("id")?,
            route: $r.try_get("outbox_route")?,
            event_id: $r.try_get("event_id")?,
            event_type: $r.try_get("event_type")?,
            tenant_id: $r.try_get("tenant_id")?,
            execution_id: $r.try_get("execution_id")?,
            correlation_id: $r.try_get("correlation_id")?,
            causation_id: $r.try_get("causation_id")?,
            occurred_at: $r.try_get("occurred_at")?,
            payload: $r.try_get("payload")?,
            attempts: $r.try_get("attempts")?,
            ordering_key: $r.try_get("ordering_key")?,
            created_at: $r.try_get("created_at")?,
            hlc: if $opts.hlc_ordering {
                $r.try_get("hlc")?
            } else {
                None
            },
            traceparent: if $opts.propagate_trace {
                $r.try_get("traceparent")?
            } else {
                None
            },
        }
    };
}

pub(super) fn decode_fast(
    r: &tokio_postgres::Row,
    opts: &PgStoreOptions,
) -> Result<OutboxRow, tokio_postgres::Error> {
    Ok(outbox_row!(r, opts))
}

pub(crate) fn decode_sqlx(r: &PgRow, opts: &PgStoreOptions) -> Result<OutboxRow, sqlx::Error> {
    use sqlx::Row;
    Ok(outbox_row!(r, opts))
}

/// A claim's rows from either driver: decoded, and how many candidates the claim saw (its
/// `candidates` column when `counts`, else the rows' number).
pub(super) fn claimed<R: ClaimRow, E: std::fmt::Display>(
    rows: &[R],
    counts: bool,
    decode: impl Fn(&R) -> Result<OutboxRow, E>,
) -> Result<(Vec<OutboxRow>, i64), StoreError> {
    let reading =
        |e: &dyn std::fmt::Display| StoreError::other("reading claimed rows", e.to_string());
    let candidates = match (counts, rows.first()) {
        (true, Some(r)) => r.candidates().map_err(|e| reading(&e))?,
        _ => rows.len() as i64,
    };
    let rows = rows
        .iter()
        .map(|r| decode(r).map_err(|e| reading(&e)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((rows, candidates))
}

/// A row of either driver, as far as a claim's count goes.
pub(super) trait ClaimRow {
    type Error: std::fmt::Display;
    fn candidates(&self) -> Result<i64, Self::Error>;
}

impl ClaimRow for tokio_postgres::Row {
    type Error = tokio_postgres::Error;
    fn candidates(&self) -> Result<i64, Self::Error> {
        self.try_get("candidates")
    }
}

impl ClaimRow for PgRow {
    type Error = sqlx::Error;
    fn candidates(&self) -> Result<i64, Self::Error> {
        sqlx::Row::try_get(self, "candidates")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_round_up_to_whole_milliseconds_never_to_zero() {
        assert_eq!(millis_ceil(Duration::from_micros(1_234_100)), 1235);
        assert_eq!(millis_ceil(Duration::from_nanos(1)), 1);
        assert_eq!(millis_ceil(Duration::from_secs(1)), 1000);
    }
}
