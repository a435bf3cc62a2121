//! [`OpsStore`] on PostgreSQL. Every query reaches rows through the schema's indexes: routes
//! come from a loose index scan (one index probe per distinct route), and rows are then
//! read by `outbox_route = ANY(…) AND status = …`, a range of the claim index. Plain
//! `SELECT`s take no lock a relay waits on.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use sqlx::Row;
use sqlx::postgres::{PgConnection, PgRow};
use uuid::Uuid;

use crate::Error;
use crate::store::ops::{
    CheckpointRow, Chosen, Delivery, ErrorFilter, EventLocation, NewEvent, OpsStore, RouteSummary,
    RowFilter, RowPosition, RowView, Staged,
};
use crate::target::QualifiedName;

/// Which optional columns the live table has.
#[derive(Debug, Clone, Copy, Default)]
pub struct Columns {
    pub processing_at: bool,
    pub published_at: bool,
    pub hlc: bool,
    pub traceparent: bool,
}

pub struct PgOps<'c> {
    pub conn: &'c mut PgConnection,
    pub table: QualifiedName,
    pub log: Option<QualifiedName>,
    pub checkpoint: Option<QualifiedName>,
    pub columns: Columns,
    pub hlc_ordering: bool,
    pub propagate_trace: bool,
    pub reclaim_stale_after: Option<std::time::Duration>,
    /// Under consume storage a requeue writes neither `processing_at` nor `published_at`,
    /// as forze's does, even while the columns are still there.
    pub storage: crate::model::Storage,
    /// The table's write lock was had once (see [`PgOps::writable`]).
    writable: bool,
    /// Why the table is not an outbox, said ([`PgOps::require_outbox`]).
    not_an_outbox: Option<String>,
}

impl<'c> PgOps<'c> {
    /// Opens the operator's view of one outbox table (refusing a missing one).
    pub async fn open(
        conn: &'c mut PgConnection,
        table: QualifiedName,
    ) -> Result<PgOps<'c>, Error> {
        super::diagnostics::require_readable(conn, &table).await?;
        let facts = crate::schema::postgres::table_facts(conn, &table)
            .await
            .map_err(|e| Error::pg("reading the outbox table", e))?
            .ok_or_else(|| {
                Error::SchemaMissing(format!(
                    "outbox table {} does not exist; create it with `outboxctl migrate`",
                    table.plain()
                ))
            })?;
        // an application's table named by a typo: said as migrate says it by the commands
        // that read or write rows, not as the SQL error of the first column it lacks (doctor
        // reports it check by check)
        let not_an_outbox = crate::schema::plan::not_an_outbox(&facts).map(|why| {
            let check = "check outbox.relation (--relation)";
            format!("{} {why}: {check}", table.plain())
        });
        let has = |c: &str| facts.column(c).is_some();
        let columns = Columns {
            processing_at: has("processing_at"),
            published_at: has("published_at"),
            hlc: has("hlc"),
            traceparent: has("traceparent"),
        };
        Ok(PgOps {
            conn,
            table,
            log: None,
            checkpoint: None,
            columns,
            hlc_ordering: false,
            propagate_trace: false,
            reclaim_stale_after: None,
            storage: crate::model::Storage::Retain,
            writable: false,
            not_an_outbox,
        })
    }

    /// Refuses a table that is not an outbox (exit 2, with what to check).
    pub fn require_outbox(&self) -> Result<(), Error> {
        match &self.not_an_outbox {
            Some(why) => Err(Error::SchemaMissing(why.clone())),
            None => Ok(()),
        }
    }

    /// Before the first write: the table's write lock can be had, or a busy lock (exit 4)
    /// naming who holds it (a lock that blocks writes and not reads held requeue, discard and
    /// emit without a word). Once per view.
    async fn writable(&mut self) -> Result<(), Error> {
        use super::diagnostics::{Access, require};
        if !self.writable {
            require(self.conn, &self.table, Access::Write).await?;
            self.writable = true;
        }
        Ok(())
    }

    fn row_columns() -> &'static str {
        "id, event_id, outbox_route, event_type, tenant_id, ordering_key, status, attempts, available_at, created_at, last_error"
    }

    /// The loose index scan over `outbox_route`.
    pub fn routes_sql(&self) -> String {
        routes_of(&self.table)
    }

    /// The summary of one route: `$1` route, `$2` tenant (or NULL), `$3` now, `$4` stale cutoff.
    pub fn summary_sql(&self) -> String {
        let t = &self.table;
        let tf = "AND ($2::uuid IS NULL OR tenant_id = $2)";
        let stale = if self.columns.processing_at {
            format!(
                "(SELECT count(*) FROM {t} WHERE outbox_route = $1 AND status = 'processing' AND processing_at < $4 {tf})"
            )
        } else {
            "NULL::bigint".to_owned()
        };
        format!(
            "SELECT
  (SELECT count(*) FROM {t} WHERE outbox_route = $1 AND status = 'pending' AND available_at IS NULL {tf})
  + (SELECT count(*) FROM {t} WHERE outbox_route = $1 AND status = 'pending' AND available_at <= $3 {tf}) AS ripe,
  (SELECT count(*) FROM {t} WHERE outbox_route = $1 AND status = 'pending' AND available_at > $3 {tf}) AS scheduled,
  (SELECT count(*) FROM {t} WHERE outbox_route = $1 AND status = 'processing' {tf}) AS processing,
  {stale} AS stale,
  (SELECT count(*) FROM {t} WHERE outbox_route = $1 AND status = 'failed' {tf}) AS failed,
  (SELECT min(created_at)::timestamptz FROM {t} WHERE outbox_route = $1 AND status = 'pending' {tf}) AS oldest,
  (SELECT min(available_at)::timestamptz FROM {t} WHERE outbox_route = $1 AND status = 'pending' AND available_at > $3 {tf}) AS next_retry,
  (SELECT coalesce(jsonb_object_agg(a, n), '{{}}'::jsonb) FROM (
      SELECT attempts AS a, count(*) AS n FROM {t}
       WHERE outbox_route = $1 AND status IN ('pending', 'processing', 'failed') {tf} GROUP BY attempts) h) AS attempts"
        )
    }

    /// `top`'s counts for one route: `$1` route, `$2` tenant, `$3` now, `$4` stale cutoff, `$5`
    /// the cap + 1. Each count reads at most `$5` entries of one claim-index range; the oldest
    /// ripe row is the earlier of the fresh range's head and the oldest of the due retries'
    /// first `$5` (that range is in the order they came due, not the order they were made).
    pub fn glance_sql(&self) -> String {
        let t = &self.table;
        let tf = "AND ($2::uuid IS NULL OR tenant_id = $2)";
        let capped = |cond: &str| {
            format!(
                "(SELECT count(*) FROM (SELECT 1 FROM {t} WHERE outbox_route = $1 AND {cond} {tf} LIMIT $5) c)"
            )
        };
        let stale = if self.columns.processing_at {
            capped("status = 'processing' AND processing_at < $4")
        } else {
            "NULL::bigint".to_owned()
        };
        format!(
            "SELECT {} + {} AS ripe, {} AS scheduled, {} AS processing, {stale} AS stale, {} AS failed,
  LEAST((SELECT created_at::timestamptz FROM {t} WHERE outbox_route = $1 AND status = 'pending' AND available_at IS NULL {tf} ORDER BY available_at, created_at LIMIT 1),
        (SELECT min(created_at)::timestamptz FROM (SELECT created_at FROM {t} WHERE outbox_route = $1 AND status = 'pending' AND available_at <= $3 {tf} ORDER BY available_at, created_at LIMIT $5) d)) AS oldest",
            capped("status = 'pending' AND available_at IS NULL"),
            capped("status = 'pending' AND available_at <= $3"),
            capped("status = 'pending' AND available_at > $3"),
            capped("status = 'processing'"),
            capped("status = 'failed'"),
        )
    }

    /// Rows by filter: `$1` routes, `$2` status, `$3` tenant, `$4` type, `$5` created before,
    /// `$6` error substring, `$7` and `$8` after this place (`created_at`, `id`), `$9` limit.
    pub fn list_sql(&self) -> String {
        let t = &self.table;
        format!(
            "SELECT {} FROM {t}
 WHERE outbox_route = ANY($1) AND status = $2
   AND ($3::uuid IS NULL OR tenant_id = $3)
   AND ($4::text IS NULL OR event_type = $4)
   AND ($5::timestamptz IS NULL OR created_at < $5)
   AND ($6::text IS NULL OR strpos(last_error, $6) > 0)
   AND ($7::timestamptz IS NULL OR (created_at, id) > ($7, $8::uuid))
 ORDER BY created_at, id LIMIT $9",
            Self::row_columns()
        )
    }

    /// The failed rows, and with `retrying` the rows waiting for a retry: one statement per
    /// range of the claim index (`status = 'failed'`; `status = 'pending' AND available_at IS
    /// NOT NULL`, which rows never tried are outside of), so neither reads the pending backlog.
    pub fn error_rows_sql(&self, retrying: bool) -> Vec<String> {
        let t = &self.table;
        let filters =
            "AND ($2::uuid IS NULL OR tenant_id = $2) AND ($3::text IS NULL OR event_type = $3)";
        let mut out = vec![format!(
            "SELECT {} FROM {t} WHERE outbox_route = ANY($1) AND status = 'failed' {filters} LIMIT $4",
            Self::row_columns()
        )];
        if retrying {
            out.push(format!(
                "SELECT {} FROM {t} WHERE outbox_route = ANY($1) AND status = 'pending' AND available_at IS NOT NULL AND attempts > 0 {filters} LIMIT $4",
                Self::row_columns()
            ));
        }
        out
    }

    fn requeue_sql(&self) -> String {
        let retain = self.storage == crate::model::Storage::Retain;
        let extra = match (
            retain && self.columns.processing_at,
            retain && self.columns.published_at,
        ) {
            (true, true) => "processing_at = NULL, published_at = NULL, ",
            (true, false) => "processing_at = NULL, ",
            (false, true) => "published_at = NULL, ",
            (false, false) => "",
        };
        format!(
            "UPDATE {} t SET status = 'pending', {extra}last_error = NULL, attempts = 0, available_at = NULL
  FROM {CHOSEN} WHERE {CHOSEN_ROW} RETURNING t.id",
            self.table,
            CHOSEN = super::chosen::CHOSEN,
            CHOSEN_ROW = super::chosen::CHOSEN_ROW,
        )
    }
}

/// The table's routes, read through the claim index one route at a time (a loose index scan:
/// as many index descents as routes, whatever the rows).
pub fn routes_of(t: &QualifiedName) -> String {
    format!(
        "WITH RECURSIVE r AS (
    (SELECT outbox_route FROM {t} ORDER BY outbox_route LIMIT 1)
    UNION ALL
    SELECT (SELECT o.outbox_route FROM {t} o WHERE o.outbox_route > r.outbox_route ORDER BY o.outbox_route LIMIT 1)
      FROM r WHERE r.outbox_route IS NOT NULL)
SELECT outbox_route FROM r WHERE outbox_route IS NOT NULL"
    )
}

fn row_view(r: &PgRow) -> Result<RowView, sqlx::Error> {
    Ok(RowView {
        id: r.try_get("id")?,
        event_id: r.try_get("event_id")?,
        route: r.try_get("outbox_route")?,
        event_type: r.try_get("event_type")?,
        tenant_id: r.try_get("tenant_id")?,
        ordering_key: r.try_get("ordering_key")?,
        status: r.try_get("status")?,
        attempts: r.try_get("attempts")?,
        available_at: r.try_get("available_at")?,
        created_at: r.try_get("created_at")?,
        last_error: r.try_get("last_error")?,
    })
}

impl PgOps<'_> {
    /// The keys strict order holds back: each key's first row that is failed, processing or
    /// scheduled (the claim index's `status` ranges), with the pending rows behind it counted
    /// through the strict index `(outbox_route, ordering_key, created_at)`.
    pub fn blocked_sql(&self) -> String {
        let t = &self.table;
        let nil = "'00000000-0000-0000-0000-000000000000'::uuid";
        let (pos, order) = if self.hlc_ordering {
            (
                "COALESCE(hlc, 9223372036854775807)",
                "COALESCE(hlc, 9223372036854775807), created_at, id",
            )
        } else {
            ("0::bigint", "created_at, id")
        };
        let wpos = pos.replace("hlc", "w.hlc");
        let blocking = super::blocking_rows("h0");
        format!(
            "WITH heads AS (
    SELECT DISTINCT ON (outbox_route, COALESCE(tenant_id, {nil}), ordering_key)
           {}, {pos} AS pos
      FROM {t} h0
     WHERE outbox_route = ANY($1) AND ($2::uuid IS NULL OR tenant_id = $2) AND {blocking}
     ORDER BY outbox_route, COALESCE(tenant_id, {nil}), ordering_key, {order})
SELECT h.*, w.n AS waiting FROM heads h
 CROSS JOIN LATERAL (SELECT count(*) AS n FROM {t} w
     WHERE w.outbox_route = h.outbox_route AND w.ordering_key = h.ordering_key
       AND w.tenant_id IS NOT DISTINCT FROM h.tenant_id AND w.status = 'pending'
       AND ({wpos}, w.created_at, w.id) > (h.pos, h.created_at, h.id)) w
 WHERE w.n > 0
 ORDER BY w.n DESC, h.created_at, h.id LIMIT $4",
            Self::row_columns()
        )
    }
}

impl OpsStore for PgOps<'_> {
    async fn blocked(
        &mut self,
        route: Option<&str>,
        tenant: Option<Uuid>,
        now: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<crate::store::ops::BlockedKey>, Error> {
        let routes = match route {
            Some(r) => vec![r.to_owned()],
            None => self.routes().await?,
        };
        let rows = crate::db::pg::query(&self.blocked_sql())
            .bind(&routes)
            .bind(tenant)
            .bind(now)
            .bind(i64::from(limit))
            .fetch_all(&mut *self.conn)
            .await
            .map_err(|e| Error::pg("finding blocked keys", e))?;
        rows.iter()
            .map(|r| {
                let head = row_view(r)?;
                Ok(crate::store::ops::BlockedKey {
                    route: head.route.clone(),
                    tenant_id: head.tenant_id,
                    ordering_key: head.ordering_key.clone().unwrap_or_default(),
                    waiting: r.try_get("waiting")?,
                    head,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| Error::pg("reading blocked keys", e))
    }

    async fn routes(&mut self) -> Result<Vec<String>, Error> {
        crate::db::pg::query_scalar(&self.routes_sql())
            .fetch_all(&mut *self.conn)
            .await
            .map_err(|e| Error::pg("listing routes", e))
    }

    async fn delivered_routes(
        &mut self,
        since: DateTime<Utc>,
        tenant: Option<Uuid>,
    ) -> Result<Vec<String>, Error> {
        let Some(log) = &self.log else {
            return Ok(Vec::new());
        };
        let sql = format!(
            "SELECT DISTINCT outbox_route FROM {log} WHERE published_at > $1 AND ($2::uuid IS NULL OR tenant_id = $2) ORDER BY 1"
        );
        crate::db::pg::query_scalar(&sql)
            .bind(since)
            .bind(tenant)
            .fetch_all(&mut *self.conn)
            .await
            .map_err(|e| Error::pg("listing the delivery log's routes", e))
    }

    async fn summary(
        &mut self,
        route: &str,
        tenant: Option<Uuid>,
        now: DateTime<Utc>,
    ) -> Result<RouteSummary, Error> {
        let stale_cutoff = self
            .reclaim_stale_after
            .and_then(|d| chrono::Duration::from_std(d).ok())
            .map_or(now, |d| now - d);
        let r = crate::db::pg::query(&self.summary_sql())
            .bind(route)
            .bind(tenant)
            .bind(now)
            .bind(stale_cutoff)
            .fetch_one(&mut *self.conn)
            .await
            .map_err(|e| Error::pg("summarising", e))?;
        let attempts: serde_json::Value = r.get("attempts");
        let attempts: BTreeMap<i32, i64> = attempts
            .as_object()
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.parse().ok()?, v.as_i64()?)))
                    .collect()
            })
            .unwrap_or_default();
        let mut s = RouteSummary {
            route: route.to_owned(),
            tenant,
            pending_ripe: r.get("ripe"),
            pending_scheduled: r.get("scheduled"),
            processing: r.get("processing"),
            processing_stale: if self.reclaim_stale_after.is_some() {
                r.get("stale")
            } else {
                None
            },
            failed: r.get("failed"),
            oldest_pending: r.get("oldest"),
            next_retry: r.get("next_retry"),
            attempts,
            delivered_last_hour: None,
            delivered_last_day: None,
            blocked_keys: None,
            paused: None,
        };
        if let Some(log) = &self.log {
            let sql = format!(
                "SELECT count(*) FILTER (WHERE published_at > $2 - interval '1 hour'), count(*)
                   FROM {log} WHERE published_at > $2 - interval '1 day' AND outbox_route = $1 AND ($3::uuid IS NULL OR tenant_id = $3)"
            );
            let row = crate::db::pg::query(&sql)
                .bind(route)
                .bind(now)
                .bind(tenant)
                .fetch_one(&mut *self.conn)
                .await
                .map_err(|e| Error::pg("counting deliveries", e))?;
            s.delivered_last_hour = Some(row.get(0));
            s.delivered_last_day = Some(row.get(1));
        }
        Ok(s)
    }

    async fn list(&mut self, f: &RowFilter, now: DateTime<Utc>) -> Result<Vec<RowView>, Error> {
        let routes = match &f.route {
            Some(r) => vec![r.clone()],
            None => self.routes().await?,
        };
        let before = f
            .older_than
            .and_then(|d| chrono::Duration::from_std(d).ok())
            .map(|d| now - d);
        let rows = crate::db::pg::query(&self.list_sql())
            .bind(&routes)
            .bind(f.status.as_str())
            .bind(f.tenant)
            .bind(&f.event_type)
            .bind(before)
            .bind(&f.error_contains)
            .bind(f.after.map(|a| a.created_at))
            .bind(f.after.map(|a| a.id))
            .bind(i64::from(f.limit))
            .fetch_all(&mut *self.conn)
            .await
            .map_err(|e| Error::pg("listing rows", e))?;
        rows.iter()
            .map(row_view)
            .collect::<Result<_, _>>()
            .map_err(|e| Error::pg("reading rows", e))
    }

    async fn error_rows(&mut self, f: &ErrorFilter) -> Result<Vec<RowView>, Error> {
        let routes = match &f.route {
            Some(r) => vec![r.clone()],
            None => self.routes().await?,
        };
        let mut out = Vec::new();
        for range in self.error_rows_sql(f.retrying) {
            let rows = crate::db::pg::query(&range)
                .bind(&routes)
                .bind(f.tenant)
                .bind(&f.event_type)
                .bind(f.limit)
                .fetch_all(&mut *self.conn)
                .await
                .map_err(|e| Error::pg("reading failed rows", e))?;
            for r in &rows {
                out.push(row_view(r).map_err(|e| Error::pg("reading failed rows", e))?);
            }
        }
        Ok(out)
    }

    async fn glance(
        &mut self,
        route: &str,
        tenant: Option<Uuid>,
        now: DateTime<Utc>,
        cap: i64,
    ) -> Result<crate::store::ops::Glance, Error> {
        let stale_cutoff = self
            .reclaim_stale_after
            .and_then(|d| chrono::Duration::from_std(d).ok())
            .map_or(now, |d| now - d);
        let r = crate::db::pg::query(&self.glance_sql())
            .bind(route)
            .bind(tenant)
            .bind(now)
            .bind(stale_cutoff)
            .bind(cap + 1)
            .fetch_one(&mut *self.conn)
            .await
            .map_err(|e| Error::pg("reading the route's counts", e))?;
        Ok(crate::store::ops::Glance {
            route: route.to_owned(),
            tenant,
            ripe: r.get("ripe"),
            scheduled: r.get("scheduled"),
            processing: r.get("processing"),
            stale: if self.reclaim_stale_after.is_some() {
                r.get("stale")
            } else {
                None
            },
            failed: r.get("failed"),
            oldest_ripe: r.get("oldest"),
        })
    }

    async fn activity(&mut self) -> Result<Option<crate::store::ops::Activity>, Error> {
        let row = crate::db::pg::query(
            "SELECT n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_user_tables WHERE relid = to_regclass($1)",
        )
        .bind(self.table.to_string())
        .fetch_optional(&mut *self.conn)
        .await
        .map_err(|e| Error::pg("reading the table's statistics", e))?;
        Ok(row.map(|r| crate::store::ops::Activity {
            inserted: r.get(0),
            updated: r.get(1),
            deleted: r.get(2),
        }))
    }

    async fn find_event(&mut self, event_id: Uuid) -> Result<EventLocation, Error> {
        let routes = self.routes().await?;
        let sql = format!(
            "SELECT {} FROM {} WHERE outbox_route = ANY($1) AND event_id = $2 ORDER BY created_at, id",
            Self::row_columns(),
            self.table
        );
        let rows = crate::db::pg::query(&sql)
            .bind(&routes)
            .bind(event_id)
            .fetch_all(&mut *self.conn)
            .await
            .map_err(|e| Error::pg("finding the event", e))?;
        let rows = rows
            .iter()
            .map(row_view)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| Error::pg("reading rows", e))?;
        let deliveries = match &self.log {
            None => None,
            Some(log) => {
                let sql = format!(
                    "SELECT id, outbox_route, tenant_id, published_at FROM {log} WHERE event_id = $1 ORDER BY published_at"
                );
                let found = crate::db::pg::query(&sql)
                    .bind(event_id)
                    .fetch_all(&mut *self.conn)
                    .await
                    .map_err(|e| Error::pg("reading the delivery log", e))?;
                Some(
                    found
                        .iter()
                        .map(|r| Delivery {
                            id: r.get(0),
                            route: r.get(1),
                            tenant_id: r.get(2),
                            published_at: r.get(3),
                        })
                        .collect(),
                )
            }
        };
        Ok(EventLocation {
            event_id,
            rows,
            deliveries,
        })
    }

    async fn position_of(&mut self, id: Uuid) -> Result<Option<RowPosition>, Error> {
        let sql = format!("SELECT created_at FROM {} WHERE id = $1", self.table);
        let created: Option<DateTime<Utc>> = crate::db::pg::query_scalar(&sql)
            .bind(id)
            .fetch_optional(&mut *self.conn)
            .await
            .map_err(|e| Error::pg("finding the --after row", e))?;
        Ok(created.map(|created_at| RowPosition { created_at, id }))
    }

    async fn failed_among(
        &mut self,
        ids: &[Uuid],
        tenant: Option<Uuid>,
    ) -> Result<Vec<Uuid>, Error> {
        let sql = format!(
            "SELECT id FROM {} WHERE id = ANY($1) AND status = 'failed' AND ($2::uuid IS NULL OR tenant_id = $2)",
            self.table
        );
        crate::db::pg::query_scalar(&sql)
            .bind(ids)
            .bind(tenant)
            .fetch_all(&mut *self.conn)
            .await
            .map_err(|e| Error::pg("reading the given rows", e))
    }

    async fn requeue(&mut self, rows: &[Chosen]) -> Result<Vec<Uuid>, Error> {
        self.writable().await?;
        let sql = self.requeue_sql();
        super::chosen::changed(self.conn, &self.table, &sql, rows, "requeueing").await
    }

    async fn discard(
        &mut self,
        rows: &[Chosen],
        keep: Option<&mut crate::store::ops::Keep<'_>>,
    ) -> Result<Vec<Uuid>, Error> {
        self.writable().await?;
        super::chosen::discard(self.conn, &self.table, rows, keep).await
    }

    async fn stage(&mut self, events: &[NewEvent], node_key: &str) -> Result<Vec<Staged>, Error> {
        self.writable().await?;
        if self.hlc_ordering && !self.columns.hlc {
            return Err(Error::SchemaMissing(format!(
                "{} has no hlc column; run `outboxctl migrate --hlc-ordering`",
                self.table.plain()
            )));
        }
        if self.propagate_trace && !self.columns.traceparent {
            return Err(Error::SchemaMissing(format!(
                "{} has no traceparent column; run `outboxctl migrate --propagate-trace`",
                self.table.plain()
            )));
        }
        let mut tx = super::chosen::bounded(self.conn, "staging").await?;
        let staged = Self::stage_in_transaction(
            &mut tx,
            &self.table,
            self.checkpoint.as_ref(),
            self.hlc_ordering,
            self.propagate_trace,
            events,
            node_key,
        )
        .await;
        match staged {
            Ok(staged) => {
                tx.commit().await.map_err(|e| Error::pg("committing", e))?;
                Ok(staged)
            }
            Err(e) => {
                tx.rollback().await.map_err(|e| Error::pg("staging", e))?;
                use crate::db::sqlstate::UNTRANSLATABLE_CHARACTER;
                if crate::db::pg_code(&e).as_deref() == Some(UNTRANSLATABLE_CHARACTER) {
                    return Err(Error::Data {
                        what: "the payload holds \\u0000 (NUL), which PostgreSQL's jsonb cannot store: remove it from the payload".into(),
                        source: Some(Box::new(e)),
                    });
                }
                Err(super::chosen::busy_or(e, self.conn, &self.table, "staging").await)
            }
        }
    }

    async fn checkpoints(&mut self) -> Result<Option<Vec<CheckpointRow>>, Error> {
        match &self.checkpoint {
            Some(cp) => checkpoint_rows(self.conn, cp).await.map(Some),
            None => Ok(None),
        }
    }
}

/// The HLC checkpoint's marks, by node key: the node's, read without the outbox table.
pub async fn checkpoint_rows(
    conn: &mut sqlx::PgConnection,
    cp: &QualifiedName,
) -> Result<Vec<CheckpointRow>, Error> {
    // as text: a column of another type (numeric, text) is read, and refused row by row
    let sql = format!(
        "SELECT coalesce(node_key::text, ''), hlc::text FROM {cp} WHERE hlc IS NOT NULL ORDER BY node_key"
    );
    let rows = crate::db::pg::query(&sql)
        .fetch_all(conn)
        .await
        .map_err(|e| match crate::db::pg_code(&e).as_deref() {
            Some(crate::db::sqlstate::UNDEFINED_TABLE) => Error::SchemaMissing(format!(
                "the HLC checkpoint table {cp} does not exist; create it with `outboxctl migrate`"
            )),
            _ => Error::pg("reading the hlc checkpoint", e),
        })?;
    (rows.iter())
        .map(|r| CheckpointRow::stored(cp, r.get(0), r.get(1)))
        .collect()
}
