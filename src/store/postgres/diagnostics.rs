//! What `doctor` asks PostgreSQL: the claim's plan (any sequential scan of the outbox) and the
//! table's estimated size, the table's statistics, and what holds the xmin horizon (backends,
//! prepared transactions, replication slots, walsenders). Catalog reads only, so they work
//! behind a pooler. The command judges; this runs the SQL.

use chrono::{DateTime, Utc};
use sqlx::Row;
use sqlx::postgres::PgConnection;
use uuid::Uuid;

use super::sql::{FunctionKind, PassFunction, claim_function_table, functions, pass_function_kind};
use super::{PgStoreOptions, claim_sql};
use crate::target::QualifiedName;

/// What the catalog holds of a function of the pass ([`PassFunction`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionState {
    Missing,
    /// A function of its name and arguments that is not outboxctl's as written
    /// ([`PassFunction::catalog_conditions`]): a relay does not call it.
    Untrusted,
    /// Outboxctl's, and whether the session's role may execute it.
    Trusted {
        executable: bool,
    },
}

/// Where `f` stands in the catalog. `migrate` and `doctor` ask.
pub async fn function_state(
    conn: &mut PgConnection,
    f: &PassFunction,
) -> Result<FunctionState, sqlx::Error> {
    let (found, trusted) = PassFunction::catalog_conditions(1);
    let sql = format!(
        "SELECT COALESCE({trusted}, false), has_function_privilege(p.oid, 'EXECUTE') FROM pg_proc p WHERE {found}"
    );
    let mut q = crate::db::pg::query(&sql);
    for v in f.catalog_values() {
        q = q.bind(v);
    }
    let Some(row) = q.fetch_optional(conn).await? else {
        return Ok(FunctionState::Missing);
    };
    Ok(match (row.try_get(0)?, row.try_get(1)?) {
        (false, _) => FunctionState::Untrusted,
        (true, executable) => FunctionState::Trusted { executable },
    })
}

/// A function of the pass outboxctl made for the outbox's table that a relay of these options
/// does not call ([`other_pass_functions`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtherFunction {
    pub kind: FunctionKind,
    pub name: QualifiedName,
    /// Its arguments as `pg_get_function_identity_arguments` prints them.
    pub arguments: String,
}

/// How `migrate`'s warning and `doctor` name [`other_pass_functions`]' finds: their number and
/// names, `2 function(s) of the pass of another version or other settings: app.outbox_claim_…,
/// …`; `None` when there are none.
pub fn others_named(others: &[OtherFunction]) -> Option<String> {
    (!others.is_empty()).then(|| {
        let names: Vec<String> = others.iter().map(|f| f.name.plain()).collect();
        format!(
            "{} function(s) of the pass of another version or other settings: {}",
            names.len(),
            names.join(", ")
        )
    })
}

/// The functions of the pass outboxctl made for the outbox's table in another version or with
/// other settings ([`pass_function_kind`]): every one in the table's schema but those a relay of
/// `opts` calls (`functions(opts)`, by name). None for a table per tenant, which gets no
/// function. `migrate` warns of them and, with `--prune-functions`, drops them.
pub async fn other_pass_functions(
    conn: &mut PgConnection,
    opts: &PgStoreOptions,
) -> Result<Vec<OtherFunction>, sqlx::Error> {
    let Some(table) = claim_function_table(opts) else {
        return Ok(Vec::new());
    };
    let ours: Vec<String> = functions(opts)
        .iter()
        .map(|f| f.name.name.name().to_owned())
        .collect();
    let rows = crate::db::pg::query(
        "SELECT p.proname::text, pg_get_function_identity_arguments(p.oid), p.prosrc FROM pg_proc p \
         WHERE p.pronamespace = (SELECT n.oid FROM pg_namespace n WHERE n.nspname = $1) \
         AND left(p.proname, length($2)) = $2 \
         AND p.prolang = (SELECT l.oid FROM pg_language l WHERE l.lanname = 'plpgsql') \
         ORDER BY 1, 2",
    )
    .bind(table.schema.name())
    .bind(table.name.name())
    .fetch_all(conn)
    .await?;
    let mut others = Vec::new();
    for row in rows {
        let (name, arguments, body): (String, String, String) =
            (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?);
        let Some(kind) = pass_function_kind(&table, &name, &body) else {
            continue;
        };
        if ours.contains(&name) {
            continue;
        }
        let Ok(ident) = crate::target::Ident::new("function", &name) else {
            continue;
        };
        others.push(OtherFunction {
            kind,
            name: QualifiedName::new(table.schema.clone(), ident),
            arguments,
        });
    }
    Ok(others)
}

/// Why a claim function `migrate` made now would not be trusted
/// ([`PassFunction::catalog_conditions`]): its owner would be the session's role, and that role
/// is neither a superuser nor a member of the table's owner. `None` when it would be trusted
/// (or the table does not exist yet: migrate makes it, and owns it).
pub async fn untrusted_maker(
    conn: &mut PgConnection,
    f: &PassFunction,
) -> Result<Option<(String, String)>, sqlx::Error> {
    let trusted = PassFunction::trusted_owner(
        "(SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user)",
        "c.oid = to_regclass($1)",
    );
    let sql = format!(
        "SELECT current_user::text, c.relowner::regrole::text FROM pg_class c \
         WHERE c.oid = to_regclass($1) AND NOT {trusted}"
    );
    let row = crate::db::pg::query(&sql)
        .bind(f.table.to_string())
        .fetch_optional(conn)
        .await?;
    row.map(|r| Ok((r.try_get(0)?, r.try_get(1)?))).transpose()
}

/// Whether `i` is the outbox's `UNIQUE (outbox_route, event_id)` (either column order, over
/// every row): the arbiter staging's `ON CONFLICT` infers; without one every staging fails.
pub fn is_event_key(i: &crate::schema::plan::IndexFacts) -> bool {
    i.is_arbiter_for(&["outbox_route", "event_id"])
}

/// The claim's plan, as far as `doctor` cares.
#[derive(Debug, Clone, Copy)]
pub struct ClaimPlan {
    /// Sequential scans of the outbox table in the plan.
    pub seq_scans: usize,
    /// The planner's estimate of the table's rows.
    pub estimated_rows: f64,
}

/// The first of the relay's pass statements, as a relay with `opts` sends them (as SQL), that
/// the server cannot prepare on `table`: its step and the server's message. A column
/// `migrate` adds but the table lacks (`traceparent` under `propagate_trace`, `processing_at`
/// that reclaim reads) fails every pass; `reclaim`: the relay reclaims (its statement is
/// prepared too). Prepared only, and dropped in the same simple query (one implicit
/// transaction, so a transaction pooler keeps it on one server connection): nothing runs.
/// Errors other than the statement's own (a lost connection) are returned as such.
pub async fn unpreparable(
    conn: &mut PgConnection,
    table: &QualifiedName,
    log: Option<&QualifiedName>,
    opts: &PgStoreOptions,
    reclaim: bool,
) -> Result<Option<(&'static str, String)>, sqlx::Error> {
    let sql = super::PgSql::new(table, log, opts);
    let mut steps = vec![("claiming", sql.claim.clone())];
    if reclaim {
        steps.push(("reclaiming stale rows", sql.reclaim.clone()));
    }
    steps.push((sql.published_step, sql.published.clone()));
    steps.push(("scheduling retries", sql.retry.clone()));
    steps.push(("parking failed rows", sql.failed.clone()));
    steps.extend(sql.release.clone().map(|r| (crate::store::RELEASING, r)));
    for (step, text) in steps {
        let probe =
            format!("PREPARE outboxctl_doctor_probe AS {text}; DEALLOCATE outboxctl_doctor_probe");
        match sqlx::raw_sql(&probe).execute(&mut *conn).await {
            Ok(_) => {}
            // the statement's own fault (class 42: an undefined column, table or function)
            Err(sqlx::Error::Database(e)) if e.code().is_some_and(|c| c.starts_with("42")) => {
                return Ok(Some((step, e.message().to_owned())));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(None)
}

/// `EXPLAIN` of the claim for a batch of 100 of `route` (and `tenant`, when tenant-aware).
pub async fn claim_plan(
    conn: &mut PgConnection,
    table: &QualifiedName,
    opts: &PgStoreOptions,
    route: &str,
    tenant: Option<Uuid>,
    now: DateTime<Utc>,
) -> Result<ClaimPlan, sqlx::Error> {
    let plan_sql = format!("EXPLAIN (FORMAT JSON) {}", claim_sql(table, opts));
    let mut q = crate::db::pg::query_scalar::<serde_json::Value>(&plan_sql)
        .bind(route)
        .bind(100i64)
        .bind(now);
    if opts.tenant_aware {
        q = q.bind(tenant);
    }
    let plan = q.fetch_one(&mut *conn).await?;
    let mut seq_scans = 0;
    count_seq_scans(&plan[0]["Plan"], table.name.name(), &mut seq_scans);
    let estimated_rows: f64 = crate::db::pg::query_scalar(
        "SELECT greatest(reltuples, 0)::float8 FROM pg_class WHERE oid = $1::regclass",
    )
    .bind(table.to_string())
    .fetch_one(conn)
    .await
    .unwrap_or(0.0);
    Ok(ClaimPlan {
        seq_scans,
        estimated_rows,
    })
}

/// Counts sequential scans of `table` in an EXPLAIN (FORMAT JSON) plan.
fn count_seq_scans(node: &serde_json::Value, table: &str, out: &mut usize) {
    if node["Node Type"] == "Seq Scan" && node["Relation Name"] == table {
        *out += 1;
    }
    for child in node["Plans"].as_array().into_iter().flatten() {
        count_seq_scans(child, table, out);
    }
}

const TABLE_HEALTH_SQL: &str = "\
SELECT coalesce(s.n_live_tup, 0) AS live, coalesce(s.n_dead_tup, 0) AS dead,
       pg_total_relation_size(c.oid) AS total, s.last_vacuum, s.last_autovacuum,
       coalesce(s.vacuum_count, 0) AS vacuums, coalesce(s.autovacuum_count, 0) AS autovacuums,
       coalesce(c.reloptions, '{}')::text[] AS reloptions,
       current_setting('autovacuum') = 'on' AS autovacuum_on,
       extract(epoch FROM current_setting('autovacuum_naptime')::interval)::float8 AS naptime,
       current_setting('autovacuum_vacuum_scale_factor')::float8 AS scale_factor,
       current_setting('autovacuum_vacuum_threshold')::bigint AS threshold
  FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
 WHERE c.oid = $1::regclass";

/// The table's churn and vacuuming, from the server's statistics and settings (catalog reads
/// only: it works behind a pooler).
pub async fn table_health(
    conn: &mut PgConnection,
    table: &QualifiedName,
) -> Result<crate::vacuum::TableHealth, sqlx::Error> {
    use sqlx::Row;
    let r = crate::db::pg::query(TABLE_HEALTH_SQL)
        .bind(table.to_string())
        .fetch_one(conn)
        .await?;
    Ok(crate::vacuum::TableHealth {
        table: table.plain(),
        live_rows: r.try_get("live")?,
        dead_rows: r.try_get("dead")?,
        total_bytes: r.try_get("total")?,
        last_vacuum: r.try_get("last_vacuum")?,
        last_autovacuum: r.try_get("last_autovacuum")?,
        vacuums: r.try_get("vacuums")?,
        autovacuums: r.try_get("autovacuums")?,
        reloptions: r.try_get("reloptions")?,
        autovacuum_on: r.try_get("autovacuum_on")?,
        naptime_seconds: r.try_get("naptime")?,
        vacuum_scale_factor: r.try_get("scale_factor")?,
        vacuum_threshold: r.try_get("threshold")?,
    })
}

/// A backend of this database whose transaction holds the xmin horizon.
#[derive(Debug, Clone, PartialEq)]
pub struct XminBackend {
    pub pid: i32,
    pub application_name: String,
    /// `host:port`, or `None` over a Unix socket.
    pub client: Option<String>,
    pub role: Option<String>,
    pub state: String,
    /// Since its transaction began.
    pub age_seconds: f64,
    /// Since its state last changed (how long it has been idle in transaction).
    pub state_seconds: Option<f64>,
    /// How far back it holds the horizon, in transaction ids.
    pub xids: Option<i64>,
}

/// A prepared transaction of this database (it holds the horizon until committed or rolled back).
#[derive(Debug, Clone, PartialEq)]
pub struct XminPrepared {
    pub gid: String,
    pub owner: String,
    pub age_seconds: f64,
    pub xids: Option<i64>,
}

/// A replication slot holding `xmin` or `catalog_xmin` (any database's: slots hold them all).
#[derive(Debug, Clone, PartialEq)]
pub struct XminSlot {
    pub name: String,
    /// `physical` or `logical`.
    pub kind: String,
    pub active: bool,
    /// The walsender using it, when active.
    pub active_pid: Option<i32>,
    pub xmin_xids: Option<i64>,
    pub catalog_xmin_xids: Option<i64>,
}

/// A walsender whose standby's `hot_standby_feedback` (without a slot) holds the horizon.
#[derive(Debug, Clone, PartialEq)]
pub struct XminWalsender {
    pub pid: i32,
    pub application_name: String,
    pub client: Option<String>,
    pub state: String,
    pub xids: Option<i64>,
}

/// What holds the xmin horizon, as far as the current role can see.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct XminHolders {
    /// The current role, quoted as an identifier (for a `GRANT`).
    pub role: String,
    /// Superuser or `pg_read_all_stats` (which `pg_monitor` grants): other roles' backends show
    /// their transaction start and xmin.
    pub sees_all: bool,
    /// Backends of this database whose details the role cannot see.
    pub hidden_backends: i64,
    pub backends: Vec<XminBackend>,
    pub prepared: Vec<XminPrepared>,
    pub slots: Vec<XminSlot>,
    pub walsenders: Vec<XminWalsender>,
}

const XMIN_ROLE_SQL: &str = "\
SELECT quote_ident(current_user) AS role, pg_has_role('pg_read_all_stats', 'USAGE') AS sees_all,
       (SELECT count(*) FROM pg_stat_activity a
         WHERE a.datname = current_database() AND a.usesysid IS NOT NULL
           AND NOT pg_has_role(a.usesysid, 'USAGE')
           AND NOT pg_has_role('pg_read_all_stats', 'USAGE'))::bigint AS hidden";

// Walsenders are read from pg_stat_replication; autovacuum workers do not hold the horizon
// (vacuum's own snapshot is ignored by the others'). Other databases' backends do not hold
// this database's tables back. The statement excludes its own backend: behind a transaction
// pooler the backend changes from one statement to the next.
const XMIN_BACKENDS_SQL: &str = "\
SELECT pid, coalesce(application_name, '') AS application_name,
       CASE family(client_addr) WHEN 6 THEN '[' || host(client_addr) || ']'
            ELSE host(client_addr) END || ':' || client_port AS client, usename::text AS role,
       coalesce(state, '') AS state,
       extract(epoch FROM clock_timestamp() - xact_start)::float8 AS age_seconds,
       extract(epoch FROM clock_timestamp() - state_change)::float8 AS state_seconds,
       greatest(age(backend_xid), age(backend_xmin))::bigint AS xids
  FROM pg_stat_activity
 WHERE datname = current_database() AND pid <> pg_backend_pid()
   AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL) AND xact_start IS NOT NULL
   AND backend_type NOT IN ('walsender', 'autovacuum worker')
 ORDER BY xact_start, pid";

const XMIN_PREPARED_SQL: &str = "\
SELECT gid, owner::text AS owner,
       extract(epoch FROM clock_timestamp() - prepared)::float8 AS age_seconds,
       age(transaction)::bigint AS xids
  FROM pg_prepared_xacts
 WHERE database = current_database()
 ORDER BY prepared, gid";

const XMIN_SLOTS_SQL: &str = "\
SELECT slot_name::text AS name, slot_type AS kind, active, active_pid,
       age(xmin)::bigint AS xmin_xids, age(catalog_xmin)::bigint AS catalog_xmin_xids
  FROM pg_replication_slots
 WHERE xmin IS NOT NULL OR catalog_xmin IS NOT NULL
 ORDER BY slot_name";

const XMIN_WALSENDERS_SQL: &str = "\
SELECT pid, coalesce(application_name, '') AS application_name,
       CASE family(client_addr) WHEN 6 THEN '[' || host(client_addr) || ']'
            ELSE host(client_addr) END || ':' || client_port AS client, coalesce(state, '') AS state,
       age(backend_xmin)::bigint AS xids
  FROM pg_stat_replication
 WHERE backend_xmin IS NOT NULL
 ORDER BY pid";

/// What holds the xmin horizon: backends of this database in a transaction, its prepared
/// transactions, replication slots and walsenders, and whether the role sees other roles'
/// backends. Catalog reads only, one statement each: it works behind a pooler.
pub async fn xmin_holders(conn: &mut PgConnection) -> Result<XminHolders, sqlx::Error> {
    use crate::db::pg::query;
    use sqlx::Row;
    let r = query(XMIN_ROLE_SQL).fetch_one(&mut *conn).await?;
    let mut out = XminHolders {
        role: r.try_get("role")?,
        sees_all: r.try_get("sees_all")?,
        hidden_backends: r.try_get("hidden")?,
        ..XminHolders::default()
    };
    for r in query(XMIN_BACKENDS_SQL).fetch_all(&mut *conn).await? {
        out.backends.push(XminBackend {
            pid: r.try_get("pid")?,
            application_name: r.try_get("application_name")?,
            client: r.try_get("client")?,
            role: r.try_get("role")?,
            state: r.try_get("state")?,
            age_seconds: r.try_get("age_seconds")?,
            state_seconds: r.try_get("state_seconds")?,
            xids: r.try_get("xids")?,
        });
    }
    for r in query(XMIN_PREPARED_SQL).fetch_all(&mut *conn).await? {
        out.prepared.push(XminPrepared {
            gid: r.try_get("gid")?,
            owner: r.try_get("owner")?,
            age_seconds: r.try_get("age_seconds")?,
            xids: r.try_get("xids")?,
        });
    }
    for r in query(XMIN_SLOTS_SQL).fetch_all(&mut *conn).await? {
        out.slots.push(XminSlot {
            name: r.try_get("name")?,
            kind: r.try_get("kind")?,
            active: r.try_get("active")?,
            active_pid: r.try_get("active_pid")?,
            xmin_xids: r.try_get("xmin_xids")?,
            catalog_xmin_xids: r.try_get("catalog_xmin_xids")?,
        });
    }
    for r in query(XMIN_WALSENDERS_SQL).fetch_all(&mut *conn).await? {
        out.walsenders.push(XminWalsender {
            pid: r.try_get("pid")?,
            application_name: r.try_get("application_name")?,
            client: r.try_get("client")?,
            state: r.try_get("state")?,
            xids: r.try_get("xids")?,
        });
    }
    Ok(out)
}

/// How long an operator's command waits for a table another session holds locked before it
/// says who holds it and stops.
pub const READ_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// What a command does to the outbox table, as the lock it takes for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// `SELECT`: ACCESS SHARE, which only ACCESS EXCLUSIVE (an `ALTER TABLE`) blocks.
    Read,
    /// `INSERT`, `UPDATE`, `DELETE`: ROW EXCLUSIVE, which SHARE (a `CREATE INDEX` without
    /// `CONCURRENTLY`), SHARE ROW EXCLUSIVE, EXCLUSIVE and ACCESS EXCLUSIVE block.
    Write,
}

impl Access {
    fn lock_mode(self) -> &'static str {
        match self {
            Access::Read => "ACCESS SHARE",
            Access::Write => "ROW EXCLUSIVE",
        }
    }

    /// The modes (as `pg_locks` names them) that block this access.
    fn blocked_by(self) -> &'static [&'static str] {
        match self {
            Access::Read => &["AccessExclusiveLock"],
            Access::Write => &[
                "ShareLock",
                "ShareRowExclusiveLock",
                "ExclusiveLock",
                "AccessExclusiveLock",
            ],
        }
    }

    /// What the lock lets through: "reads" or "writes".
    pub fn against(self) -> &'static str {
        match self {
            Access::Read => "reads",
            Access::Write => "writes",
        }
    }
}

/// Stops with a busy lock (exit 4) that names who holds it when `table` cannot be read within
/// [`READ_LOCK_WAIT`]: an operator's command said so instead of waiting behind an `ALTER TABLE`
/// left open for as long as that lasts.
pub async fn require_readable(
    conn: &mut PgConnection,
    table: &QualifiedName,
) -> Result<(), crate::Error> {
    require(conn, table, Access::Read).await
}

/// The lock `access` takes on `table`, had within [`READ_LOCK_WAIT`], or a busy lock (exit 4)
/// naming who holds it. For a command that writes (`requeue`, `discard`, `emit`) a lock that
/// lets reads through and blocks writes (`LOCK TABLE … IN EXCLUSIVE MODE`, a `CREATE INDEX`
/// left open) held it without a word.
pub async fn require(
    conn: &mut PgConnection,
    table: &QualifiedName,
    access: Access,
) -> Result<(), crate::Error> {
    let who = match blocked_by(conn, table, access, READ_LOCK_WAIT).await {
        Ok(None) => return Ok(()),
        Ok(Some(who)) => who,
        Err(e) => return Err(crate::Error::pg(format!("reading {}", table.plain()), e)),
    };
    Err(crate::Error::LockBusy(format!(
        "{} is locked against {} by {who}: its lock could not be had within {}; end that transaction (or let it finish), then run this again",
        table.plain(),
        access.against(),
        crate::duration::Dur(READ_LOCK_WAIT)
    )))
}

/// The busy lock (exit 4) of a write that waited [`READ_LOCK_WAIT`] for a row another
/// transaction holds (`SELECT … FOR UPDATE` left open, an uncommitted change or insert of the
/// same key): the sessions whose open transactions hold row locks on `table`, named.
pub async fn row_lock_busy(conn: &mut PgConnection, table: &QualifiedName) -> crate::Error {
    let holders: Result<Vec<String>, _> = crate::db::pg::query_scalar(
        "SELECT format('pid %s (%s, its transaction %s s old)', a.pid, a.state,
                       floor(extract(epoch FROM now() - a.xact_start)))
           FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE l.locktype = 'relation' AND l.relation = to_regclass($1) AND l.granted
            AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND l.pid <> pg_backend_pid() AND l.mode IN ('RowShareLock', 'RowExclusiveLock')
          ORDER BY a.xact_start",
    )
    .bind(table.to_string())
    .fetch_all(&mut *conn)
    .await;
    let who = match holders {
        Ok(h) if !h.is_empty() => format!("; holding row locks on it: {}", h.join(", ")),
        _ => String::new(),
    };
    crate::Error::LockBusy(format!(
        "a row of {} this changes is locked by another transaction{who}: its lock could not be had within {}; end that transaction (or let it finish), then run this again",
        table.plain(),
        crate::duration::Dur(READ_LOCK_WAIT)
    ))
}

/// Who holds `table` locked against `access` (an `ALTER TABLE` left open, a `LOCK TABLE` in a
/// session idle in its transaction), when its lock cannot be had within `wait`: each holder's
/// pid, state and transaction age. `None`: the lock can be had (or the table is not there, or
/// cannot be locked for another reason, which the checks that read it report).
pub async fn blocked_by(
    conn: &mut PgConnection,
    table: &QualifiedName,
    access: Access,
    wait: std::time::Duration,
) -> Result<Option<String>, sqlx::Error> {
    use sqlx::Connection;
    let mut tx = conn.begin().await?;
    crate::schema::postgres::set_local_lock_timeout(&mut tx, wait).await?;
    let lock = format!("LOCK TABLE {table} IN {} MODE", access.lock_mode());
    let locked = crate::db::pg::query(&lock).execute(&mut tx).await;
    tx.rollback().await?;
    match locked {
        Err(e) if crate::db::retry::is_lock_busy(&e) => {}
        _ => return Ok(None),
    }
    let holders = holders(conn, table, access.blocked_by()).await?;
    Ok(Some(match holders.is_empty() {
        true => "another session".into(),
        false => holders.join(", "),
    }))
}

/// The sessions holding `table` in one of `modes` (every mode: `&[]`), and the changes queued
/// for it (an ALTER TABLE waiting behind a long read queues every later read behind itself),
/// each with its pid, state and transaction age.
pub async fn holders(
    conn: &mut PgConnection,
    table: &QualifiedName,
    modes: &[&str],
) -> Result<Vec<String>, sqlx::Error> {
    crate::db::pg::query_scalar(
        "SELECT format('pid %s (%s, %s, its transaction %s s old)', a.pid,
                       CASE WHEN l.granted THEN 'holds it' ELSE 'queued for it' END,
                       a.state, floor(extract(epoch FROM now() - a.xact_start)))
           FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE l.locktype = 'relation' AND l.relation = to_regclass($1)
            AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND (cardinality($2::text[]) = 0 OR l.mode = ANY($2)) AND l.pid <> pg_backend_pid()
          ORDER BY l.granted DESC, a.xact_start",
    )
    .bind(table.to_string())
    .bind(modes)
    .fetch_all(&mut *conn)
    .await
}
