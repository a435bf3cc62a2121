//! How the relay store's connection and transactions open: what a new connection is asked once
//! (`greet`: its backend, the session's limits and the claim functions it may call), and the opening of a consume pass (`BEGIN`
//! with its timeouts) or of a retain claim's own transaction (`BEGIN` with JIT off).

use std::collections::HashSet;

use super::PgStoreOptions;
use super::sql::{PassFunction, calls_functions, functions};
use crate::db::pgclient::{PgClient, Reply, Stmt, Value};
use crate::dburl::DatabaseUrl;

/// The limits a session starts with, in ms (0: none), read once when the relay's connection
/// opens. Behind a transaction pooler a pass may run on another server session than the one
/// read, but a pool's sessions (one database and role) start from the same settings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SessionLimits {
    pub statement_ms: i64,
    pub lock_ms: i64,
    pub idle_ms: i64,
}

/// What reads [`SessionLimits`]: each setting as `SHOW` prints it (`0`, `1500ms`, `2min`) read
/// as an interval, from `current_setting`, not from `pg_settings` (a view that builds every
/// setting of the server).
pub const SESSION_LIMITS_SQL: &str = "\
SELECT (extract(epoch FROM current_setting('statement_timeout')::interval) * 1000)::bigint,
       (extract(epoch FROM current_setting('lock_timeout')::interval) * 1000)::bigint,
       (extract(epoch FROM current_setting('idle_in_transaction_session_timeout')::interval) * 1000)::bigint";

/// How a consume pass opens, as one simple query: `BEGIN`, then the pass's timeouts for its
/// transaction only (`SET LOCAL`). Each limit is the pass's (`statement_ms` for statements and
/// locks, `idle_ms` idle in transaction) unless the session already has a stricter (smaller,
/// non-zero) one; JIT compilation is turned off too (see [`retain_begin`]). A simple query with
/// no values: the server neither plans nor answers a statement for it.
pub fn consume_begin(session: SessionLimits, statement_ms: i64, idle_ms: i64) -> String {
    format!(
        "BEGIN; SET LOCAL statement_timeout = '{}ms'; SET LOCAL lock_timeout = '{}ms'; \
         SET LOCAL idle_in_transaction_session_timeout = '{}ms'; SET LOCAL jit = off",
        stricter(session.statement_ms, statement_ms),
        stricter(session.lock_ms, statement_ms),
        stricter(session.idle_ms, idle_ms),
    )
}

/// A limit of the pass's, `want`, unless the session has a stricter (smaller, non-zero) one.
fn stricter(have: i64, want: i64) -> i64 {
    if have > 0 && have < want { have } else { want }
}

/// How a retain claim's own transaction opens, as one simple query with no values (the server
/// neither plans nor answers a statement for it): the claim's statement and lock limit, the
/// pass's (`statement_ms`) unless the session's is stricter, and JIT compilation off. The claim
/// waited behind a table lock (an `ALTER TABLE` or `LOCK TABLE` left open) for as long as that
/// lasted, the relay silent and healthy; now the pass fails, is said and backs off. JIT: the
/// claim's cost estimate grows with the table (a strict claim passed the default
/// `jit_above_cost` at 200,000 rows, and compiling it took about 45 ms for a statement that
/// runs in one or two). `SET LOCAL` ends with the transaction, so a pooler's next client never
/// sees it.
pub fn retain_begin(session: Option<SessionLimits>, statement_ms: i64) -> String {
    let session = session.unwrap_or_default();
    format!(
        "BEGIN; SET LOCAL statement_timeout = '{}ms'; SET LOCAL lock_timeout = '{}ms'; SET LOCAL jit = off",
        stricter(session.statement_ms, statement_ms),
        stricter(session.lock_ms, statement_ms),
    )
}

/// A pass's statement (and lock) limit and its idle-in-transaction limit, in ms.
pub(super) fn pass_limits(opts: &super::PgStoreOptions) -> (i64, i64) {
    let statement = super::rows::millis_ceil(opts.pass_statement_timeout) as i64;
    let idle = super::rows::millis_ceil(opts.pass_deadline + opts.pass_statement_timeout) as i64;
    (statement, idle)
}

/// The pass's timeouts as a statement, read and set inside the pass: what a pass sends when
/// its session's limits could not be read at connect (`consume_begin` otherwise).
pub const PASS_TIMEOUTS_SQL: &str = "\
SELECT set_config(w.name, (CASE WHEN s.ms > 0 AND s.ms < w.want THEN s.ms ELSE w.want END)::text || 'ms', true)
  FROM (VALUES ('statement_timeout', $1::bigint), ('lock_timeout', $1::bigint),
               ('idle_in_transaction_session_timeout', $2::bigint)) w(name, want),
       LATERAL (SELECT (extract(epoch FROM current_setting(w.name)::interval) * 1000)::bigint AS ms) s
UNION ALL SELECT set_config('jit', 'off', true)";

/// What a new connection is asked once, in one statement ([`greet`]).
#[derive(Debug, Default)]
pub(super) struct Greeting {
    /// The server process behind the connection when it looks direct (`None` behind a pooler
    /// on another port than the server's: the backend changes from one transaction to the
    /// next).
    pub backend: Option<i32>,
    /// The session's limits.
    pub session: Option<SessionLimits>,
    /// The store's functions (`super::sql::functions`: the claim's and, under retain, the
    /// mark's) that exist as outboxctl writes them (`PassFunction::catalog_conditions`) and the
    /// relay's role may execute.
    pub functions: HashSet<String>,
}

/// How often a store whose claim could go through a function but goes as SQL asks the catalog
/// again ([`read_functions`]), so that a function `migrate` adds reaches a running relay.
pub(super) const FUNCTIONS_REREAD: std::time::Duration = std::time::Duration::from_secs(60);

/// The store's functions the relay may call, as an array expression of their names
/// (`Greeting::functions`), with its values: an empty array when its statements go as SQL.
fn functions_sql(opts: &PgStoreOptions) -> (String, Vec<Value>) {
    let mut values: Vec<Value> = Vec::new();
    let mut each = Vec::new();
    let called = calls_functions(opts).then(|| functions(opts));
    for f in called.unwrap_or_default() {
        let (found, trusted) = PassFunction::catalog_conditions(values.len() + 1);
        each.push(format!("({found} AND {trusted})"));
        values.extend(f.catalog_values().map(|v| Value::OptText(Some(v))));
    }
    if each.is_empty() {
        return ("ARRAY[]::text[]".into(), values);
    }
    let sql = format!(
        "ARRAY(SELECT p.proname::text FROM pg_proc p
              WHERE ({}) AND has_function_privilege(p.oid, 'EXECUTE'))",
        each.join(" OR ")
    );
    (sql, values)
}

/// Asks the catalog again for the store's functions (`None`: the question failed).
pub(super) async fn read_functions(
    client: &mut PgClient,
    opts: &PgStoreOptions,
) -> Option<HashSet<String>> {
    let (functions, values) = functions_sql(opts);
    let stmt = Stmt {
        sql: format!("SELECT {functions}").into(),
        values,
        rows: true,
    };
    let Ok(Reply::Rows(rows)) = client.run(&stmt).await else {
        return None;
    };
    let names: Vec<String> = rows.first()?.try_get(0).ok()?;
    Some(names.into_iter().collect())
}

/// Asks a new connection what [`Greeting`] holds, in one statement. Each part is `None` (or
/// empty) when it cannot be read: the claim is then sent as SQL, the pass's limits as a
/// statement of their own.
pub(super) async fn greet(
    client: &mut PgClient,
    url: &DatabaseUrl,
    opts: &PgStoreOptions,
) -> Greeting {
    let (functions, values) = functions_sql(opts);
    let stmt = Stmt {
        sql: format!(
            "SELECT inet_server_port(), pg_backend_pid(), l.*, {functions} FROM ({SESSION_LIMITS_SQL}) l"
        )
        .into(),
        values,
        rows: true,
    };
    let Ok(Reply::Rows(rows)) = client.run(&stmt).await else {
        return Greeting::default();
    };
    let Some(row) = rows.first() else {
        return Greeting::default();
    };
    let port: Option<i32> = row.try_get(0).ok().flatten();
    let pid: Option<i32> = row.try_get(1).ok();
    let dialled = crate::db::pg::dialled_port(url).map(i32::from);
    let limit = |i: usize| row.try_get::<_, i64>(i).ok();
    let session = (|| {
        Some(SessionLimits {
            statement_ms: limit(2)?,
            lock_ms: limit(3)?,
            idle_ms: limit(4)?,
        })
    })();
    let functions: Vec<String> = row.try_get(5).unwrap_or_default();
    Greeting {
        backend: pid.filter(|_| port.is_some() && port == dialled),
        session,
        functions: functions.into_iter().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_opens_with_its_limits_unless_the_session_has_stricter_ones() {
        let none = SessionLimits {
            statement_ms: 0,
            lock_ms: 0,
            idle_ms: 0,
        };
        assert_eq!(
            consume_begin(none, 1000, 6000),
            "BEGIN; SET LOCAL statement_timeout = '1000ms'; SET LOCAL lock_timeout = '1000ms'; SET LOCAL idle_in_transaction_session_timeout = '6000ms'; SET LOCAL jit = off"
        );
        let strict = SessionLimits {
            statement_ms: 100,
            lock_ms: 5000,
            idle_ms: 2000,
        };
        let begin = consume_begin(strict, 1000, 6000);
        assert!(begin.contains("statement_timeout = '100ms'"), "{begin}");
        assert!(begin.contains("lock_timeout = '1000ms'"), "{begin}");
        assert!(
            begin.contains("idle_in_transaction_session_timeout = '2000ms'"),
            "{begin}"
        );
    }
}
