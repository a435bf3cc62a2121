//! The PostgreSQL store: the relay's statements, exactly as `semantics.md` gives them, for
//! retain and consume storage, with the claim written to read about `limit` index entries
//! whatever the backlog (see [`claim_sql`]).

pub mod consume_move;
pub mod diagnostics;
pub mod ops;
pub mod partitions;
pub mod replay;
pub mod wake;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::Row;
use sqlx::postgres::{PgConnection, PgRow};
use uuid::Uuid;

use super::{Claimed, PassTarget, RelayStore, StoreError};
use crate::dburl::DatabaseUrl;
use crate::model::{KeyOrder, Storage};
use crate::model::{Message, OutboxRow};
use crate::target::{QualifiedName, RelationSpec};

/// What shapes the statements.
#[derive(Debug, Clone)]
pub struct PgStoreOptions {
    pub relation: RelationSpec,
    pub delivery_log: Option<RelationSpec>,
    pub storage: Storage,
    pub hlc_ordering: bool,
    pub propagate_trace: bool,
    pub tenant_aware: bool,
    pub key_order: KeyOrder,
    /// Consume storage: `statement_timeout` / `lock_timeout` of a pass.
    pub pass_statement_timeout: Duration,
    /// Consume storage: `idle_in_transaction_session_timeout` is this plus the statement timeout.
    pub pass_deadline: Duration,
    /// Named, cached statements sent as they are (one round trip each) instead of unnamed
    /// ones in a transaction each: for direct connections and pgbouncer 1.21+ (see
    /// [`crate::db::pg`]).
    pub prepared_statements: bool,
}

impl PgStoreOptions {
    /// The options a configuration asks for, for this relation and delivery log.
    pub fn from_config(
        config: &crate::config::Config,
        relation: RelationSpec,
        delivery_log: Option<RelationSpec>,
    ) -> Self {
        Self {
            relation,
            delivery_log,
            storage: config.outbox.storage,
            hlc_ordering: config.outbox.hlc_ordering,
            propagate_trace: config.outbox.propagate_trace,
            tenant_aware: config.outbox.tenant_aware,
            key_order: config.relay.key_order,
            pass_statement_timeout: config.relay.pass_statement_timeout,
            pass_deadline: config.relay.pass_deadline,
            prepared_statements: config.relay.prepared_statements,
        }
    }
}

/// The statements for one relation.
#[derive(Debug, Clone)]
pub struct PgSql {
    pub claim: String,
    pub reclaim: String,
    pub published: String,
    /// Whether `published` takes the publish time as `$2` (not for a bare consume DELETE).
    pub published_takes_time: bool,
    pub retry: String,
    pub failed: String,
    /// Retain only: consume claims write nothing, so a row not published is untouched.
    pub release: Option<String>,
}

pub(crate) fn columns(opts: &PgStoreOptions, prefix: &str) -> String {
    let mut cols: Vec<String> = [
        "id",
        "outbox_route",
        "event_id",
        "event_type",
        "tenant_id",
        "execution_id",
        "correlation_id",
        "causation_id",
        "occurred_at",
        "attempts",
        "ordering_key",
        "created_at",
    ]
    .iter()
    .map(|c| format!("{prefix}{c}"))
    .collect();
    cols.push(format!("{prefix}payload::text AS payload"));
    if opts.hlc_ordering {
        cols.push(format!("{prefix}hlc"));
    }
    if opts.propagate_trace {
        cols.push(format!("{prefix}traceparent"));
    }
    cols.join(", ")
}

/// The rows strict order waits behind (`alias` names the table; `$3` is now): a row with an
/// ordering key that is processing, failed, or pending but not yet due. Shared by the claim
/// and `inspect blocked`.
pub fn blocking_rows(alias: &str) -> String {
    format!(
        "{alias}.ordering_key <> '' AND ({alias}.status IN ('processing', 'failed') OR ({alias}.status = 'pending' AND {alias}.available_at > $3))"
    )
}

/// How many candidate rows locked by other relays a strict claim steps over before it stops
/// short (consume storage holds a pass's locks to its end).
const STRICT_LOCKED_SLACK: u32 = 5_000;

/// The claim. Parameters: `$1` route, `$2` limit, `$3` now, `$4` tenant (when tenant-aware).
///
/// On the claim index `(outbox_route, status, available_at, created_at)` a plain
/// `ORDER BY created_at LIMIT n` over `available_at IS NULL OR available_at <= now` sorts every
/// pending row of the route. Instead the claim reads two ranges of the index, each locking with
/// `FOR UPDATE SKIP LOCKED` in its own CTE (PostgreSQL refuses `FOR UPDATE` under `UNION`), so
/// rows other relays hold are stepped over and a contended claim still fills up:
/// - the ripe retries first (`available_at <= now`: few; scheduled ones are outside the
///   range), at most `n`;
/// - then the rows never retried (`available_at IS NULL`), at most `n` minus the ripe rows
///   taken, in index order (`available_at, created_at`: `LIMIT` stops after about that many
///   entries). Not by `id` too: the index has no `id`, and rows staged in one transaction share
///   one `created_at`, so ordering by `id` would read and sort the whole tie group on every
///   claim. Ties among them go in index order, which the specification allows (without HLC it
///   orders by `created_at` and leaves ties arbitrary; with HLC the index carries `id`).
///
/// So the claim locks exactly the rows it returns (a consume pass holds its locks to its end).
/// Ripe retries, being due, go ahead of newer rows never tried; strict key order still holds
/// (a row whose key has an earlier row pending outside the claim is held back).
pub fn claim_sql(table: &QualifiedName, opts: &PgStoreOptions) -> String {
    let tenant = if opts.tenant_aware {
        " AND c.tenant_id = $4"
    } else {
        ""
    };
    let strict = opts.key_order == KeyOrder::Strict;
    let (order, index_order, hlc_col) = if opts.hlc_ordering {
        (
            "hlc, created_at, id",
            "c.available_at, c.hlc, c.created_at, c.id",
            ", c.hlc",
        )
    } else if strict {
        // Strict order delivers a key's rows by (created_at, id): the claim takes them in that
        // order too, so a key's first row is never beyond the limit behind its later ones.
        ("created_at, id", "c.available_at, c.created_at, c.id", "")
    } else {
        ("created_at, id", "c.available_at, c.created_at", "")
    };
    // "Earlier" in claim order: with HLC, `hlc NULLS LAST, created_at, id`.
    let earlier = |e: &str, c: &str| {
        if opts.hlc_ordering {
            format!(
                "(COALESCE({e}.hlc, 9223372036854775807), {e}.created_at, {e}.id) < (COALESCE({c}.hlc, 9223372036854775807), {c}.created_at, {c}.id)"
            )
        } else {
            format!("({e}.created_at, {e}.id) < ({c}.created_at, {c}.id)")
        }
    };
    // A key is (tenant, ordering key); an empty or NULL ordering key is no key (the event's
    // own id), so such rows never wait for each other.
    // Strict key order, at the scan: skip a row while an earlier row of its key is processing,
    // failed, or pending but not yet due. Those rows are found first, once per claim (the
    // claim index's `status` ranges: few rows), keeping each key's first; the scan then steps
    // over a blocked key's rows with a hashed anti-join, not a probe per row, so a stuck key's
    // backlog costs the rows scanned, not a lookup each. (Earlier pending rows that are due are
    // claimed first, in this claim or, if another relay holds them, checked below.)
    const NO_TENANT: &str = "'00000000-0000-0000-0000-000000000000'::uuid";
    let hlc_first = if opts.hlc_ordering {
        ", COALESCE(b.hlc, 9223372036854775807) AS hlc"
    } else {
        ""
    };
    let blockers = if strict {
        let btenant = if opts.tenant_aware {
            " AND b.tenant_id = $4"
        } else {
            ""
        };
        let border = if opts.hlc_ordering {
            "b.hlc NULLS LAST, b.created_at, b.id"
        } else {
            "b.created_at, b.id"
        };
        format!(
            "blockers AS MATERIALIZED (
    SELECT DISTINCT ON (COALESCE(b.tenant_id, {NO_TENANT}), b.ordering_key)
           COALESCE(b.tenant_id, {NO_TENANT}) AS tenant, b.ordering_key AS key, b.created_at, b.id{hlc_first}
      FROM {table} b
     WHERE b.outbox_route = $1{btenant} AND {}
     ORDER BY COALESCE(b.tenant_id, {NO_TENANT}), b.ordering_key, {border}),
",
            blocking_rows("b")
        )
    } else {
        String::new()
    };
    let held_back = if strict {
        let earlier_blocker = if opts.hlc_ordering {
            "(e.hlc, e.created_at, e.id) < (COALESCE(c.hlc, 9223372036854775807), c.created_at, c.id)"
        } else {
            "(e.created_at, e.id) < (c.created_at, c.id)"
        };
        format!(
            " AND NOT EXISTS (SELECT 1 FROM blockers e
                WHERE e.key = c.ordering_key AND e.tenant = COALESCE(c.tenant_id, {NO_TENANT})
                  AND {earlier_blocker})"
        )
    } else {
        String::new()
    };
    let picked = if strict {
        // ... and after locking: no earlier row of the key may be left pending outside this
        // claim (locked by another relay, or beyond the limit).
        format!(
            "SELECT r.id FROM ranked r WHERE NULLIF(r.ordering_key, '') IS NULL OR NOT EXISTS (
                SELECT 1 FROM {table} e
                 WHERE e.outbox_route = $1 AND e.ordering_key = r.ordering_key
                   AND e.tenant_id IS NOT DISTINCT FROM r.tenant_id
                   AND e.status <> 'published' AND {}
                   AND e.status IN ('pending', 'processing', 'failed')
                   AND e.id NOT IN (SELECT id FROM ranked))",
            earlier("e", "r")
        )
    } else {
        "SELECT id FROM ranked".to_owned()
    };
    let fresh = if strict {
        // Strict order steps over a stuck key's rows in claim order. It judges them from the
        // index alone (the strict claim index carries the key: an index-only scan, no heap
        // fetch per stepped-over row) and locks only the rows it keeps, fetched again by id:
        // the candidates are a subquery, so the lock needs no row position from them (a
        // joined table would need its `ctid`, which an index-only scan cannot give). The
        // subquery's own limit makes the planner choose the ordered scan that stops early
        // rather than a sort of the whole range; it is `$2` plus the rows other relays may
        // hold (skipped, so a contended claim still fills up).
        let outer = index_order.replace("c.", "cand.");
        format!(
            "SELECT t.id, t.created_at, t.ordering_key, t.tenant_id{} FROM (
        SELECT c.id, c.available_at, c.created_at{hlc_col} FROM {table} c
         WHERE c.outbox_route = $1 AND c.status = 'pending' AND c.available_at IS NULL{tenant}{held_back}
         ORDER BY {index_order} LIMIT $2 + {STRICT_LOCKED_SLACK}) cand
      JOIN {table} t ON t.id = cand.id AND t.status = 'pending' AND t.available_at IS NULL
     ORDER BY {outer} LIMIT $2 - (SELECT count(*) FROM ripe) FOR UPDATE OF t SKIP LOCKED",
            hlc_col.replace("c.", "t.")
        )
    } else {
        format!(
            "SELECT c.id, c.created_at, c.ordering_key, c.tenant_id{hlc_col} FROM {table} c
     WHERE c.outbox_route = $1 AND c.status = 'pending' AND c.available_at IS NULL{tenant}
     ORDER BY {index_order} LIMIT $2 - (SELECT count(*) FROM ripe) FOR UPDATE SKIP LOCKED"
        )
    };
    let ctes = format!(
        "WITH {blockers}ripe AS (
    SELECT c.id, c.created_at, c.ordering_key, c.tenant_id{hlc_col} FROM {table} c
     WHERE c.outbox_route = $1 AND c.status = 'pending' AND c.available_at <= $3{tenant}{held_back}
     ORDER BY {order} LIMIT $2 FOR UPDATE SKIP LOCKED),
fresh AS (
    {fresh}),
ranked AS (
    SELECT * FROM (SELECT * FROM fresh UNION ALL SELECT * FROM ripe) u ORDER BY {order} LIMIT $2),
picked AS ({picked})"
    );
    match opts.storage {
        Storage::Retain => format!(
            "{ctes}
UPDATE {table} t SET status = 'processing', processing_at = $3 FROM picked WHERE t.id = picked.id
RETURNING {}, (SELECT count(*) FROM ranked) AS candidates",
            columns(opts, "t.")
        ),
        Storage::Consume => format!(
            "{ctes}
SELECT {}, (SELECT count(*) FROM ranked) AS candidates FROM {table} t
 WHERE t.id IN (SELECT id FROM picked) ORDER BY {}",
            columns(opts, "t."),
            order
                .split(", ")
                .map(|c| format!("t.{c}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

impl PgSql {
    pub fn new(table: &QualifiedName, log: Option<&QualifiedName>, opts: &PgStoreOptions) -> Self {
        let tenant = if opts.tenant_aware {
            " AND tenant_id = $3"
        } else {
            ""
        };
        let reclaim = format!(
            "UPDATE {table} SET status = 'pending', processing_at = NULL
 WHERE outbox_route = $1 AND status = 'processing' AND processing_at IS NOT NULL AND processing_at < $2{tenant}"
        );
        match opts.storage {
            Storage::Retain => Self {
                claim: claim_sql(table, opts),
                reclaim,
                published: format!(
                    "UPDATE {table} SET status = 'published', published_at = $2, last_error = NULL WHERE id = ANY($1) AND status = 'processing'"
                ),
                retry: format!(
                    "UPDATE {table} SET status = 'pending', processing_at = NULL, attempts = $2, available_at = $3, last_error = $4 WHERE id = ANY($1) AND status = 'processing'"
                ),
                published_takes_time: true,
                failed: format!(
                    "UPDATE {table} SET status = 'failed', last_error = $2 WHERE id = ANY($1) AND status = 'processing'"
                ),
                release: Some(format!(
                    "UPDATE {table} SET status = 'pending', processing_at = NULL WHERE id = ANY($1) AND status = 'processing'"
                )),
            },
            Storage::Consume => Self {
                claim: claim_sql(table, opts),
                reclaim,
                published: match log {
                    None => format!("DELETE FROM {table} WHERE id = ANY($1) AND status = 'pending'"),
                    Some(log) => format!(
                        "WITH consumed AS (DELETE FROM {table} WHERE id = ANY($1) AND status = 'pending'
                           RETURNING id, outbox_route, event_id, tenant_id)
INSERT INTO {log} (id, outbox_route, event_id, tenant_id, published_at)
SELECT id, outbox_route, event_id, tenant_id, $2 FROM consumed"
                    ),
                },
                published_takes_time: log.is_some(),
                retry: format!(
                    "UPDATE {table} SET attempts = $2, available_at = $3, last_error = $4 WHERE id = ANY($1) AND status = 'pending'"
                ),
                failed: format!(
                    "UPDATE {table} SET status = 'failed', last_error = $2 WHERE id = ANY($1) AND status = 'pending'"
                ),
                release: None,
            },
        }
    }
}

pub(crate) fn decode_row(r: &PgRow, opts: &PgStoreOptions) -> Result<OutboxRow, sqlx::Error> {
    Ok(OutboxRow {
        id: r.try_get("id")?,
        route: r.try_get("outbox_route")?,
        event_id: r.try_get("event_id")?,
        event_type: r.try_get("event_type")?,
        tenant_id: r.try_get("tenant_id")?,
        execution_id: r.try_get("execution_id")?,
        correlation_id: r.try_get("correlation_id")?,
        causation_id: r.try_get("causation_id")?,
        occurred_at: r.try_get("occurred_at")?,
        payload: r.try_get("payload")?,
        attempts: r.try_get("attempts")?,
        ordering_key: r.try_get("ordering_key")?,
        created_at: r.try_get("created_at")?,
        hlc: if opts.hlc_ordering {
            r.try_get("hlc")?
        } else {
            None
        },
        traceparent: if opts.propagate_trace {
            r.try_get("traceparent")?
        } else {
            None
        },
    })
}

/// Sorts claimed rows into claim order (`RETURNING` loses the CTE's order).
pub fn sort_claim_order(rows: &mut [OutboxRow], hlc_ordering: bool) {
    if hlc_ordering {
        // NULLS LAST, as PostgreSQL sorts ascending
        rows.sort_by_key(|r| (r.hlc.is_none(), r.hlc, r.created_at, r.id));
    } else {
        rows.sort_by_key(|r| (r.created_at, r.id));
    }
}

/// Where the store's connection comes from.
enum Conn<'a> {
    /// A connection of its own, reopened after it is lost.
    Owned {
        url: DatabaseUrl,
        connect_timeout: Duration,
        conn: Option<PgConnection>,
    },
    /// A caller's connection with a transaction open: each pass is a savepoint in it and sets
    /// no timeouts; the caller's rollback returns every row.
    InTransaction(&'a mut PgConnection),
}

pub struct PgStore<'a> {
    conn: Conn<'a>,
    opts: PgStoreOptions,
    sql: HashMap<Option<Uuid>, Arc<PgSql>>,
    in_pass: bool,
    /// The backend of an owned, direct connection (not through a pooler), for
    /// `pg_cancel_backend` when a pass is abandoned.
    backend: Option<i32>,
}

/// Rounds up to whole milliseconds, never to 0.
pub fn millis_ceil(d: Duration) -> u64 {
    let ms = d.as_nanos().div_ceil(1_000_000) as u64;
    ms.max(1)
}

/// The pass's timeouts, set for its transaction only. Each limit is the pass's (`$1` statement
/// and lock, `$2` idle in transaction, in ms) unless the server already has a stricter
/// (smaller, non-zero) one for this session, read here, inside the pass: behind a transaction
/// pooler the session a pass runs on is not the one the relay connected to.
pub const PASS_TIMEOUTS_SQL: &str = "\
WITH s AS (SELECT name, setting::bigint AS v FROM pg_settings
            WHERE name IN ('statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout')),
     l AS (SELECT name, CASE WHEN v > 0 AND v < want THEN v ELSE want END AS ms
             FROM s, LATERAL (SELECT CASE WHEN name = 'idle_in_transaction_session_timeout'
                                          THEN $2::bigint ELSE $1::bigint END AS want) w)
SELECT set_config(name, ms::text || 'ms', true) FROM l";

impl<'a> PgStore<'a> {
    /// The server process behind an owned, direct connection (`None` behind a pooler, or
    /// inside a caller's transaction): what `pg_cancel_backend` targets.
    pub fn backend_pid(&self) -> Option<i32> {
        self.backend
    }

    /// A store over a connection of its own (opened now, reopened after a loss). Fails at
    /// once, exit 2, when the connection cannot hold a transaction (pgbouncer in statement
    /// pooling mode).
    pub async fn connect(
        url: &DatabaseUrl,
        connect_timeout: Duration,
        opts: PgStoreOptions,
    ) -> Result<PgStore<'static>, crate::Error> {
        let mut conn = crate::db::connect_pg(url, connect_timeout).await?;
        crate::db::pg::check_transactions(&mut conn).await?;
        let backend = crate::db::pg::direct_backend_pid(&mut conn, url).await;
        Ok(PgStore {
            backend,
            conn: Conn::Owned {
                url: url.clone(),
                connect_timeout,
                conn: Some(conn),
            },
            opts,
            sql: HashMap::new(),
            in_pass: false,
        })
    }

    /// A store whose passes run as savepoints inside the caller's open transaction, which
    /// must have been opened through sqlx (`Connection::begin`), so that the store knows it
    /// is inside it.
    pub fn in_transaction(
        conn: &'a mut PgConnection,
        opts: PgStoreOptions,
    ) -> Result<PgStore<'a>, crate::Error> {
        use sqlx::Connection;
        if !conn.is_in_transaction() {
            return Err(crate::Error::Runtime(
                "PgStore::in_transaction needs a connection with a transaction open through sqlx (Connection::begin)".into(),
            ));
        }
        Ok(PgStore {
            conn: Conn::InTransaction(conn),
            opts,
            sql: HashMap::new(),
            in_pass: false,
            backend: None,
        })
    }

    pub fn options(&self) -> &PgStoreOptions {
        &self.opts
    }

    async fn conn(&mut self) -> Result<&mut PgConnection, StoreError> {
        match &mut self.conn {
            Conn::InTransaction(c) => Ok(c),
            Conn::Owned {
                url,
                connect_timeout,
                conn,
            } => {
                if conn.is_none() {
                    let mut c =
                        crate::db::connect_pg(url, *connect_timeout)
                            .await
                            .map_err(|e| StoreError {
                                context: "reconnecting",
                                message: e.to_string(),
                                connection_lost: true,
                            })?;
                    self.backend = crate::db::pg::direct_backend_pid(&mut c, url).await;
                    *conn = Some(c);
                }
                Ok(conn.as_mut().expect("just connected"))
            }
        }
    }

    fn sql_for(&mut self, tenant: Option<Uuid>) -> Result<Arc<PgSql>, StoreError> {
        if let Some(sql) = self.sql.get(&tenant) {
            return Ok(sql.clone());
        }
        let bad = |e: crate::target::NameError| StoreError {
            context: "resolving the relation",
            message: e.to_string(),
            connection_lost: false,
        };
        let table = self.opts.relation.resolve(tenant).map_err(bad)?;
        let log = self
            .opts
            .delivery_log
            .as_ref()
            .map(|l| l.resolve(tenant))
            .transpose()
            .map_err(bad)?;
        let sql = Arc::new(PgSql::new(&table, log.as_ref(), &self.opts));
        self.sql.insert(tenant, sql.clone());
        Ok(sql)
    }

    /// Marks the connection lost (so the next pass reconnects) when an error says so.
    fn note(&mut self, e: StoreError) -> StoreError {
        if e.connection_lost {
            self.drop_connection();
        }
        e
    }

    /// Forgets the connection (an owned one is reopened by the next pass).
    fn drop_connection(&mut self) {
        if let Conn::Owned { conn, .. } = &mut self.conn {
            *conn = None;
        }
        self.in_pass = false;
    }

    fn tenant_param(&self, target: &PassTarget) -> Option<Uuid> {
        if self.opts.tenant_aware {
            target.tenant
        } else {
            None
        }
    }

    /// A statement of the pass, named and cached with `prepared_statements`.
    fn stmt<'q>(&self, sql: &'q str) -> crate::db::pg::Query<'q> {
        crate::db::pg::query(sql).prepared(self.opts.prepared_statements)
    }
}

impl RelayStore for PgStore<'_> {
    async fn begin_pass(&mut self, target: &PassTarget) -> Result<(), StoreError> {
        use sqlx::TransactionManager;
        use sqlx::postgres::PgTransactionManager;
        self.sql_for(target.tenant)?;
        if self.opts.storage == Storage::Retain {
            return Ok(());
        }
        let in_caller_tx = matches!(self.conn, Conn::InTransaction(_));
        let statement = millis_ceil(self.opts.pass_statement_timeout) as i64;
        let idle = millis_ceil(self.opts.pass_deadline + self.opts.pass_statement_timeout) as i64;
        let conn = self.conn().await?;
        // BEGIN, or a savepoint inside the caller's transaction. From here on the pass is
        // open, so a failure of any later statement (its timeouts included) rolls it back.
        let begun = PgTransactionManager::begin(conn, None).await;
        if let Err(e) = begun {
            let e = StoreError::pg("opening the pass", &e);
            return Err(self.note(e));
        }
        self.in_pass = true;
        if in_caller_tx {
            return Ok(());
        }
        let q = self.stmt(PASS_TIMEOUTS_SQL).bind(statement).bind(idle);
        let conn = self.conn().await?;
        let set = q.execute(conn).await;
        set.map(drop)
            .map_err(|e| self.note(StoreError::pg("setting the pass timeouts", &e)))
    }

    async fn reclaim(
        &mut self,
        target: &PassTarget,
        older_than: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let sql = self.sql_for(target.tenant)?;
        let tenant = self.tenant_param(target);
        let mut q = self.stmt(&sql.reclaim).bind(&target.route).bind(older_than);
        if tenant.is_some() {
            q = q.bind(tenant);
        }
        let conn = self.conn().await?;
        let r = q
            .execute(conn)
            .await
            .map_err(|e| StoreError::pg("reclaiming stale rows", &e));
        r.map(|r| r.rows_affected()).map_err(|e| self.note(e))
    }

    async fn claim(
        &mut self,
        target: &PassTarget,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<Claimed, StoreError> {
        let sql = self.sql_for(target.tenant)?;
        let tenant = self.tenant_param(target);
        let opts = self.opts.clone();
        let mut q = self
            .stmt(&sql.claim)
            .bind(&target.route)
            .bind(i64::from(limit))
            .bind(now);
        if tenant.is_some() {
            q = q.bind(tenant);
        }
        let conn = self.conn().await?;
        let result = q
            .fetch_all(conn)
            .await
            .map_err(|e| StoreError::pg("claiming", &e));
        let rows = result.map_err(|e| self.note(e))?;
        let candidates = rows.first().map_or(0, |r| {
            r.try_get::<i64, _>("candidates").unwrap_or(0) as usize
        });
        let mut out = rows
            .iter()
            .map(|r| decode_row(r, &opts))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| StoreError::pg("reading claimed rows", &e))?;
        sort_claim_order(&mut out, opts.hlc_ordering);
        Ok(Claimed {
            candidates: candidates.max(out.len()),
            rows: out,
            parked: 0,
        })
    }

    async fn mark_published(
        &mut self,
        target: &PassTarget,
        ids: &[Uuid],
        at: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let sql = self.sql_for(target.tenant)?;
        let mut q = self.stmt(&sql.published).bind(ids);
        if sql.published_takes_time {
            q = q.bind(at);
        }
        let conn = self.conn().await?;
        let r = q.execute(conn).await;
        r.map(|r| r.rows_affected())
            .map_err(|e| self.note(StoreError::pg("marking published", &e)))
    }

    async fn mark_retry(
        &mut self,
        target: &PassTarget,
        ids: &[Uuid],
        attempts: i32,
        available_at: DateTime<Utc>,
        error: &str,
    ) -> Result<u64, StoreError> {
        let sql = self.sql_for(target.tenant)?;
        let q = self
            .stmt(&sql.retry)
            .bind(ids)
            .bind(attempts)
            .bind(available_at)
            .bind(error);
        let conn = self.conn().await?;
        let r = q.execute(conn).await;
        r.map(|r| r.rows_affected())
            .map_err(|e| self.note(StoreError::pg("scheduling retries", &e)))
    }

    async fn mark_failed(
        &mut self,
        target: &PassTarget,
        ids: &[Uuid],
        error: &str,
    ) -> Result<u64, StoreError> {
        let sql = self.sql_for(target.tenant)?;
        let q = self.stmt(&sql.failed).bind(ids).bind(error);
        let conn = self.conn().await?;
        let r = q.execute(conn).await;
        r.map(|r| r.rows_affected())
            .map_err(|e| self.note(StoreError::pg("marking failed", &e)))
    }

    async fn release(&mut self, target: &PassTarget, ids: &[Uuid]) -> Result<u64, StoreError> {
        let sql = self.sql_for(target.tenant)?;
        let Some(release) = sql.release.as_deref().filter(|_| !ids.is_empty()) else {
            return Ok(0);
        };
        let q = self.stmt(release).bind(ids);
        let conn = self.conn().await?;
        let r = q.execute(conn).await;
        r.map(|r| r.rows_affected())
            .map_err(|e| self.note(StoreError::pg("releasing rows", &e)))
    }

    async fn insert_sink(
        &mut self,
        table: &QualifiedName,
        messages: &[&Message],
        at: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let sql = format!(
            "INSERT INTO {table} (event_id, outbox_route, event_type, ordering_key, tenant_id, payload, headers, published_at)
SELECT e, r, t, k, tn, p::jsonb, h::jsonb, $8
  FROM UNNEST($1::uuid[], $2::text[], $3::text[], $4::text[], $5::uuid[], $6::text[], $7::text[]) AS m(e, r, t, k, tn, p, h)
ON CONFLICT (event_id) DO NOTHING"
        );
        let q = crate::db::pg::query(&sql)
            .bind(messages.iter().map(|m| m.event_id).collect::<Vec<_>>())
            .bind(messages.iter().map(|m| m.route.clone()).collect::<Vec<_>>())
            .bind(
                messages
                    .iter()
                    .map(|m| m.event_type.clone())
                    .collect::<Vec<_>>(),
            )
            .bind(
                messages
                    .iter()
                    .map(|m| m.ordering_key.clone())
                    .collect::<Vec<_>>(),
            )
            .bind(messages.iter().map(|m| m.tenant_id).collect::<Vec<_>>())
            .bind(
                messages
                    .iter()
                    .map(|m| m.payload.get().to_owned())
                    .collect::<Vec<_>>(),
            )
            .bind(
                messages
                    .iter()
                    .map(|m| m.headers_json())
                    .collect::<Vec<_>>(),
            )
            .bind(at);
        let conn = self.conn().await?;
        let r = q.execute(conn).await;
        r.map(|r| r.rows_affected())
            .map_err(|e| self.note(StoreError::pg("inserting into the destination table", &e)))
    }

    async fn commit_pass(&mut self) -> Result<(), StoreError> {
        use sqlx::TransactionManager;
        use sqlx::postgres::PgTransactionManager;
        if self.opts.storage == Storage::Retain || !self.in_pass {
            return Ok(());
        }
        self.in_pass = false;
        let conn = self.conn().await?;
        let r = PgTransactionManager::commit(conn).await;
        r.map_err(|e| self.note(StoreError::pg("committing the pass", &e)))
    }

    async fn rollback_pass(&mut self) {
        use sqlx::TransactionManager;
        use sqlx::postgres::PgTransactionManager;
        if self.opts.storage == Storage::Retain || !self.in_pass {
            return;
        }
        self.in_pass = false;
        if let Ok(conn) = self.conn().await {
            if PgTransactionManager::rollback(conn).await.is_err() {
                // A connection that cannot roll back cannot be trusted for the next pass.
                self.drop_connection();
            }
        }
    }

    async fn abandon(&mut self) {
        if let (
            Conn::Owned {
                url,
                connect_timeout,
                conn: Some(_),
            },
            Some(pid),
        ) = (&self.conn, self.backend)
        {
            crate::db::pg::cancel_backend(url, *connect_timeout, pid).await;
        }
        // Behind a pooler the connection is only dropped: the pooler closes its server link.
        self.drop_connection();
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
