//! The relay registry and route pauses on PostgreSQL. A heartbeat is one statement, sent on the
//! relay's one-batch client ([`PgClient`]: one round trip, no transaction around it): it prunes
//! rows stopped or stale for a day, upserts the relay's row with `last_seen = now()`, and reads
//! the pauses in force with the server's time, so a relay learns of a pause without another
//! round trip. Staleness is judged by the server in the read ([`PgRegistry::relays`]); the relay sends how
//! long ago its last pass finished, never a timestamp of its own clock.

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, Row};
use uuid::Uuid;

use std::sync::Arc;

use crate::Error;
use crate::db::pg::query;
use crate::db::pgclient::{PgClient, Reply, Stmt, Value};
use crate::fleet::{
    BeatAnswer, Heartbeat, MISSED_BEATS_STALE, PRUNE_AFTER, Pause, PauseRecord, PauseSet,
    RelayRecord, RelayState,
};
use crate::schema::registry::RegistryNames;

/// The registry's statements over one connection.
pub struct PgRegistry {
    pub names: RegistryNames,
}

/// What failed on the registry; `migrate` named as the fix only when the table is missing (it
/// was named for any failure, a pooler's refusal too, where the registry was there).
fn what(names: &RegistryNames, doing: &str, sqlstate: Option<&str>) -> String {
    let hint = match sqlstate {
        Some(crate::db::sqlstate::UNDEFINED_TABLE) => " (`outboxctl migrate` adds it)",
        _ => "",
    };
    format!(
        "{doing} the relay registry {}{hint}",
        names.registry.plain()
    )
}

/// A command's statement on the registry failed while `doing`.
fn failed(names: &RegistryNames, doing: &str, e: sqlx::Error) -> Error {
    let code = e.as_database_error().and_then(|d| d.code());
    Error::pg(what(names, doing, code.as_deref()), e)
}

/// The relay's own client failed on the registry while `doing`.
fn client_failed(
    names: &RegistryNames,
    doing: &str,
    e: std::sync::Arc<tokio_postgres::Error>,
) -> Error {
    let code = e.as_db_error().map(|d| d.code().code());
    Error::pg_client(what(names, doing, code), e)
}

/// The active-pause row's columns, as [`pause_of`] reads them.
const PAUSE_COLUMNS: &str = "p.route, p.tenant_id, p.reason, p.paused_by, p.paused_at";

/// A pause from a row with [`PAUSE_COLUMNS`], of either driver (both rows read by column
/// name with `try_get`): the commands' sqlx rows, the heartbeat's tokio-postgres ones.
macro_rules! read_pause {
    ($row:expr) => {
        Pause {
            route: $row.try_get("route")?,
            tenant: $row.try_get("tenant_id")?,
            reason: $row.try_get("reason")?,
            by: $row.try_get("paused_by")?,
            since: $row.try_get("paused_at")?,
        }
    };
}

fn pause_of(row: &sqlx::postgres::PgRow) -> Result<Pause, sqlx::Error> {
    Ok(read_pause!(row))
}

impl PgRegistry {
    /// One heartbeat (see the module's notes), on the relay's own client: the statement and its
    /// values go out as one batch, one round trip, pooler-safe without a transaction around it.
    pub async fn beat(&self, client: &mut PgClient, hb: &Heartbeat) -> Result<BeatAnswer, Error> {
        let n = &self.names;
        let sql = format!(
            "WITH pruned AS (
    DELETE FROM {reg} WHERE id <> $1 AND last_seen < now() - make_interval(secs => $13)
), beat AS (
    INSERT INTO {reg} AS r (id, host, pid, version, routes, tenants, started_at, last_seen,
                            last_pass_at, last_error, published, lag_p99_ms, metrics_addr,
                            heartbeat_ms, stopped_at)
    VALUES ($1, $2, $3, $4, $5, $6, now(), now(), now() - make_interval(secs => $7), $8, $9, $10,
            $11, $12, NULL)
    ON CONFLICT (id) DO UPDATE SET
        host = EXCLUDED.host, pid = EXCLUDED.pid, version = EXCLUDED.version,
        routes = EXCLUDED.routes, tenants = EXCLUDED.tenants, last_seen = now(),
        last_pass_at = COALESCE(EXCLUDED.last_pass_at, r.last_pass_at),
        last_error = EXCLUDED.last_error, published = EXCLUDED.published,
        lag_p99_ms = EXCLUDED.lag_p99_ms, metrics_addr = EXCLUDED.metrics_addr,
        heartbeat_ms = EXCLUDED.heartbeat_ms, stopped_at = NULL
)
SELECT now() AS server_now, {PAUSE_COLUMNS}
  FROM (SELECT 1) one LEFT JOIN {pauses} p ON p.resumed_at IS NULL",
            reg = n.registry,
            pauses = n.pauses,
        );
        let stmt = Stmt {
            sql: sql.into(),
            values: vec![
                Value::Text(hb.id.clone()),
                Value::Text(hb.host.clone()),
                Value::Int4(i32::try_from(hb.pid).unwrap_or(i32::MAX)),
                Value::Text(hb.version.clone()),
                Value::Texts(hb.routes.iter().cloned().map(Some).collect()),
                Value::Uuids(hb.tenants.clone()),
                Value::Float8(hb.last_pass.map(|t| t.elapsed().as_secs_f64())),
                Value::OptText(hb.last_error.clone()),
                Value::Int8(i64::try_from(hb.published).unwrap_or(i64::MAX)),
                Value::Float8(hb.lag_p99_ms),
                Value::OptText(hb.metrics_addr.clone()),
                Value::Int8(i64::try_from(hb.interval.as_millis()).unwrap_or(i64::MAX)),
                Value::Float8(Some(PRUNE_AFTER.as_secs_f64())),
            ],
            rows: true,
        };
        let fail = |doing: &str, e| client_failed(n, doing, e);
        let rows = match client.run(&stmt).await {
            Ok(Reply::Rows(rows)) => rows,
            Ok(Reply::Count(_)) => Vec::new(),
            Err(e) => return Err(fail("heartbeat into", e)),
        };
        let mut answer = BeatAnswer {
            server_now: Utc::now(),
            pauses: PauseSet::default(),
        };
        for row in &rows {
            let read = || -> Result<(DateTime<Utc>, Option<Pause>), tokio_postgres::Error> {
                let now = row.try_get("server_now")?;
                let route: Option<String> = row.try_get("route")?;
                let pause = match route {
                    Some(_) => Some(read_pause!(row)),
                    None => None,
                };
                Ok((now, pause))
            };
            let (now, pause) = read().map_err(|e| fail("reading", Arc::new(e)))?;
            answer.server_now = now;
            answer.pauses.0.extend(pause);
        }
        Ok(answer)
    }

    /// Marks the relay's row stopped (the heartbeat's last word, on its client).
    pub async fn stop(&self, client: &mut PgClient, id: &str) -> Result<(), Error> {
        let stmt = Stmt {
            sql: format!(
                "UPDATE {} SET stopped_at = now(), last_seen = now() WHERE id = $1",
                self.names.registry
            )
            .into(),
            values: vec![Value::Text(id.to_owned())],
            rows: false,
        };
        client
            .run(&stmt)
            .await
            .map(drop)
            .map_err(|e| client_failed(&self.names, "stopping a relay in", e))
    }

    /// Every relay registered, its state judged by the server.
    pub async fn relays(&self, conn: &mut PgConnection) -> Result<Vec<RelayRecord>, Error> {
        let sql = format!(
            "SELECT id, host, pid, version, routes, tenants,
       CASE WHEN stopped_at IS NOT NULL THEN 'stopped'
            WHEN last_seen < now() - make_interval(secs => $1 * heartbeat_ms / 1000.0) THEN 'stale'
            ELSE 'live' END AS state,
       started_at, last_seen, last_pass_at, last_error, published, lag_p99_ms, metrics_addr
  FROM {} ORDER BY started_at, id",
            self.names.registry
        );
        let rows = query(&sql)
            .bind(f64::from(MISSED_BEATS_STALE))
            .fetch_all(conn)
            .await
            .map_err(|e| failed(&self.names, "reading", e))?;
        rows.iter()
            .map(|row| {
                let state: String = row.try_get("state")?;
                let pid: i32 = row.try_get("pid")?;
                let published: i64 = row.try_get("published")?;
                Ok(RelayRecord {
                    id: row.try_get("id")?,
                    host: row.try_get("host")?,
                    pid: u32::try_from(pid).unwrap_or_default(),
                    version: row.try_get("version")?,
                    routes: row.try_get("routes")?,
                    tenants: row.try_get("tenants")?,
                    state: RelayState::parse(&state).unwrap_or(RelayState::Stale),
                    started_at: row.try_get("started_at")?,
                    last_seen: row.try_get("last_seen")?,
                    last_pass_at: row.try_get("last_pass_at")?,
                    last_error: row.try_get("last_error")?,
                    published: u64::try_from(published).unwrap_or_default(),
                    lag_p99_ms: row.try_get("lag_p99_ms")?,
                    metrics_addr: row.try_get("metrics_addr")?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| failed(&self.names, "reading", e))
    }

    /// The pauses in force, or (`history`) every pause ever made, oldest first.
    pub async fn pauses(
        &self,
        conn: &mut PgConnection,
        history: bool,
    ) -> Result<Vec<PauseRecord>, Error> {
        let sql = format!(
            "SELECT {PAUSE_COLUMNS}, p.resumed_by, p.resumed_at FROM {} p
              WHERE $1 OR p.resumed_at IS NULL ORDER BY p.paused_at, p.route",
            self.names.pauses
        );
        let rows = query(&sql)
            .bind(history)
            .fetch_all(conn)
            .await
            .map_err(|e| failed(&self.names, "reading the pauses of", e))?;
        rows.iter()
            .map(|row| {
                Ok(PauseRecord {
                    pause: pause_of(row)?,
                    resumed_at: row.try_get("resumed_at")?,
                    resumed_by: row.try_get("resumed_by")?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| failed(&self.names, "reading the pauses of", e))
    }

    /// Pauses `route` (for `tenant`, else every tenant). `Err(pause)`: it was paused already
    /// (nothing changes). `by` is the OS user@host; the database role is added by the server.
    pub async fn pause(
        &self,
        conn: &mut PgConnection,
        route: &str,
        tenant: Option<Uuid>,
        reason: &str,
        by: &str,
    ) -> Result<Result<Pause, Pause>, Error> {
        let sql = format!(
            "INSERT INTO {t} AS p (route, tenant_id, reason, paused_by, paused_at)
             VALUES ($1, $2, $3, $4 || ' as ' || current_user, now())
             ON CONFLICT (route, COALESCE(tenant_id, '00000000-0000-0000-0000-000000000000'::uuid))
                WHERE resumed_at IS NULL DO NOTHING
             RETURNING {PAUSE_COLUMNS}",
            t = self.names.pauses
        );
        let fail = |e| failed(&self.names, "pausing a route in", e);
        let made = query(&sql)
            .bind(route)
            .bind(tenant)
            .bind(reason)
            .bind(by)
            .fetch_optional(&mut *conn)
            .await
            .map_err(fail)?;
        if let Some(row) = made {
            return Ok(Ok(pause_of(&row).map_err(fail)?));
        }
        let existing = self.active(conn, route, tenant).await?;
        existing.map(Err).ok_or_else(|| {
            Error::LockBusy(format!(
                "route {route} was paused and resumed while pausing it: run the command again"
            ))
        })
    }

    /// Resumes `route` (for `tenant`, else the pause of every tenant): the pause ended, or
    /// `None` when it was not paused.
    pub async fn resume(
        &self,
        conn: &mut PgConnection,
        route: &str,
        tenant: Option<Uuid>,
        by: &str,
    ) -> Result<Option<Pause>, Error> {
        let sql = format!(
            "UPDATE {t} p SET resumed_at = now(), resumed_by = $3 || ' as ' || current_user
              WHERE p.route = $1 AND p.tenant_id IS NOT DISTINCT FROM $2 AND p.resumed_at IS NULL
             RETURNING {PAUSE_COLUMNS}",
            t = self.names.pauses
        );
        let fail = |e| failed(&self.names, "resuming a route in", e);
        let row = query(&sql)
            .bind(route)
            .bind(tenant)
            .bind(by)
            .fetch_optional(conn)
            .await
            .map_err(fail)?;
        row.map(|r| pause_of(&r)).transpose().map_err(fail)
    }

    async fn active(
        &self,
        conn: &mut PgConnection,
        route: &str,
        tenant: Option<Uuid>,
    ) -> Result<Option<Pause>, Error> {
        let sql = format!(
            "SELECT {PAUSE_COLUMNS} FROM {} p
              WHERE p.route = $1 AND p.tenant_id IS NOT DISTINCT FROM $2 AND p.resumed_at IS NULL",
            self.names.pauses
        );
        let fail = |e| failed(&self.names, "reading the pauses of", e);
        let row = query(&sql)
            .bind(route)
            .bind(tenant)
            .fetch_optional(conn)
            .await
            .map_err(fail)?;
        row.map(|r| pause_of(&r)).transpose().map_err(fail)
    }
}

/// Whether `e` says the registry's table is missing (`migrate` has not added it).
pub fn is_missing(e: &Error) -> bool {
    e.sqlstate().as_deref() == Some("42P01")
}
