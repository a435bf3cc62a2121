//! Delivery-log partitions on PostgreSQL: read them from the catalog (TimeZone UTC, bounds
//! from `pg_get_expr(relpartbound)`), add a day (built apart, then attached), drop a day, and
//! move rows out of the default partition. Each change is one short transaction with
//! `SET LOCAL lock_timeout` and jittered retries, so a relay's insert never waits long behind it.

use chrono::{Days, NaiveDate};
use sqlx::postgres::PgConnection;
use sqlx::{Connection, Row};

use crate::Error;
use crate::db::pg::{query, query_scalar};
use crate::schema::partitions::{self, Bound, Partition};
use crate::schema::postgres::{LockPolicy, in_bounded_transactions, run_in_short_transactions};
use crate::target::{Ident, QualifiedName};

/// A partition with what the catalog estimates about it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PartitionInfo {
    #[serde(flatten)]
    pub partition: Partition,
    /// The planner's estimate; `None` (JSON `null`, an empty cell) for a partition never
    /// analysed, which read as 0 rows however many it held.
    pub estimated_rows: Option<i64>,
    pub bytes: i64,
    /// Its schema and name as the catalog has them (a partition may live in another schema
    /// than its log's); `None` for a name outboxctl would not quote.
    #[serde(skip)]
    pub table: Option<QualifiedName>,
}

#[derive(Debug, Clone)]
pub struct LogFacts {
    pub partitions: Vec<PartitionInfo>,
    pub default: Option<QualifiedName>,
    /// Days whose table (`<log>_YYYYMMDD`) exists in the log's schema but is not attached:
    /// a move out of the default partition cut short leaves one, holding the rows it moved.
    pub unattached: Vec<(NaiveDate, QualifiedName)>,
}

impl LogFacts {
    /// The names of [`LogFacts::unattached`], for [`partitions::check`].
    pub fn unattached_names(&self) -> Vec<String> {
        self.unattached.iter().map(|(_, t)| t.plain()).collect()
    }

    /// Whether `day`'s table exists unattached.
    pub fn is_unattached(&self, day: NaiveDate) -> bool {
        self.unattached.iter().any(|(d, _)| *d == day)
    }

    pub fn bounds(&self) -> Vec<Partition> {
        self.partitions
            .iter()
            .map(|p| p.partition.clone())
            .collect()
    }
}

/// Reads the log's partitions; refuses a missing or non-partitioned log.
pub async fn read(
    conn: &mut PgConnection,
    log: &QualifiedName,
    policy: LockPolicy,
) -> Result<LogFacts, Error> {
    let what = format!("reading the partitions of {}", log.plain());
    within(conn, policy, &what, async |tx| read_in(tx, log).await).await
}

/// [`read`], and the default partition's exact row count (none without one), each read
/// bounded by `policy`: what `doctor` checks.
pub async fn read_counted(
    conn: &mut PgConnection,
    log: &QualifiedName,
    policy: LockPolicy,
) -> Result<(LogFacts, Option<i64>), Error> {
    let facts = read(conn, log, policy).await?;
    let rows = match &facts.default {
        Some(d) => Some(default_rows(conn, d, policy).await?),
        None => None,
    };
    Ok((facts, rows))
}

/// Runs `read` in a transaction under `policy`'s `lock_timeout`, again while a lock stays busy
/// (up to its retries; then exit 4). `pg_get_expr` and `pg_total_relation_size` take a
/// partition's ACCESS SHARE lock, and so does a count of the default partition: a session
/// holding one locked held every partitions command (hourly cron jobs piling up) and `doctor`
/// for as long as it liked.
pub async fn within<T>(
    conn: &mut PgConnection,
    policy: LockPolicy,
    what: &str,
    read: impl AsyncFnMut(&mut PgConnection) -> Result<T, Error>,
) -> Result<T, Error> {
    use crate::db::retry::LockRetryError;
    let db = |e| Error::pg(format!("{what} failed"), e);
    match in_bounded_transactions(conn, policy, db, read).await {
        Ok((value, _)) => Ok(value),
        Err(LockRetryError::Busy { attempts, .. }) => Err(Error::LockBusy(format!(
            "gave up on {what}: a lock stayed busy through {attempts} attempts of {} lock_timeout each (a session holds the log or a partition of it locked); retry later, or raise partitions.lock_timeout or partitions.retries",
            crate::duration::Dur(policy.lock_timeout)
        ))),
        Err(LockRetryError::Failed { source, .. }) => Err(source),
    }
}

/// [`read`], inside its transaction: bounds print in UTC for this transaction only.
async fn read_in(conn: &mut PgConnection, log: &QualifiedName) -> Result<LogFacts, Error> {
    sqlx::raw_sql("SET LOCAL TIME ZONE 'UTC'")
        .execute(&mut *conn)
        .await
        .map_err(|e| Error::pg("setting TimeZone", e))?;
    let row = query(
        "SELECT c.oid, c.relkind::text AS relkind, CASE WHEN c.relkind = 'p' THEN pg_get_partkeydef(c.oid) END AS key
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2",
    )
    .bind(log.schema.name())
    .bind(log.name.name())
    .fetch_optional(&mut *conn)
    .await
    .map_err(|e| Error::pg("reading the delivery log", e))?;
    let Some(row) = row else {
        return Err(Error::SchemaMissing(format!(
            "delivery log {} does not exist; create it with `outboxctl migrate`",
            log.plain()
        )));
    };
    let key: Option<String> = row.get("key");
    if key.as_deref() != Some("RANGE (published_at)") {
        return Err(Error::SchemaMissing(format!(
            "relation {} is not partitioned by RANGE (published_at), so it is not a delivery log outboxctl can maintain: point outbox.delivery_log (or --delivery-log) at the log, or name a new one and run `outboxctl migrate`",
            log.plain()
        )));
    }
    let oid: sqlx::postgres::types::Oid = row.get("oid");
    let rows = query(
        "SELECT n.nspname::text AS schema, c.relname::text AS name, pg_get_expr(c.relpartbound, c.oid) AS bound,
                CASE WHEN c.reltuples < 0 THEN NULL ELSE c.reltuples::bigint END AS est, pg_total_relation_size(c.oid) AS bytes
           FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE i.inhparent = $1 ORDER BY c.relname",
    )
    .bind(oid)
    .fetch_all(&mut *conn)
    .await
    .map_err(|e| Error::pg("reading partitions", e))?;
    let mut facts = LogFacts {
        partitions: Vec::new(),
        default: None,
        unattached: unattached(conn, log, oid).await?,
    };
    for r in rows {
        let name: String = r.get("name");
        let bound = partitions::parse_bound(&r.get::<String, _>("bound"));
        let table = |name: &str| -> Result<QualifiedName, crate::target::NameError> {
            let schema = Ident::new("schema", &r.get::<String, _>("schema"))?;
            Ok(QualifiedName::new(schema, Ident::new("partition", name)?))
        };
        if bound == Bound::Default {
            facts.default = Some(table(&name)?);
        }
        facts.partitions.push(PartitionInfo {
            table: table(&name).ok(),
            partition: Partition { name, bound },
            estimated_rows: r.get("est"),
            bytes: r.get("bytes"),
        });
    }
    Ok(facts)
}

/// Tables in the log's schema named as one of its days (`<log>_YYYYMMDD`) that are no
/// partition of anything.
async fn unattached(
    conn: &mut PgConnection,
    log: &QualifiedName,
    oid: sqlx::postgres::types::Oid,
) -> Result<Vec<(NaiveDate, QualifiedName)>, Error> {
    let prefix = format!("{}_", log.name.name());
    let names: Vec<String> = query_scalar(
        "SELECT c.relname::text FROM pg_class c
          WHERE c.relnamespace = (SELECT p.relnamespace FROM pg_class p WHERE p.oid = $1)
            AND c.relkind = 'r' AND NOT c.relispartition
            AND left(c.relname, length($2)) = $2 AND length(c.relname) = length($2) + 8
          ORDER BY 1",
    )
    .bind(oid)
    .bind(&prefix)
    .fetch_all(&mut *conn)
    .await
    .map_err(|e| Error::pg("looking for unattached day tables", e))?;
    Ok(names
        .iter()
        .filter_map(|n| {
            let day = NaiveDate::parse_from_str(&n[prefix.len()..], "%Y%m%d").ok()?;
            let table = partitions::day_name(log, day).ok()?;
            (table.name.name() == n).then_some((day, table))
        })
        .collect())
}

/// Exact number of rows in the default partition, its lock waited for at most as `policy`
/// allows ([`within`]).
pub async fn default_rows(
    conn: &mut PgConnection,
    default: &QualifiedName,
    policy: LockPolicy,
) -> Result<i64, Error> {
    let what = format!("counting the rows of {}", default.plain());
    let sql = format!("SELECT count(*) FROM {default}");
    let count = async |tx: &mut PgConnection| {
        (query_scalar(&sql).fetch_one(tx).await).map_err(|e| Error::pg("counting rows", e))
    };
    within(conn, policy, &what, count).await
}

/// Whether the default partition holds rows of `day`.
pub async fn default_has_rows_on(
    conn: &mut PgConnection,
    default: &QualifiedName,
    day: NaiveDate,
    policy: LockPolicy,
) -> Result<bool, Error> {
    Ok(default_rows_on(conn, default, day, Some(1), policy).await? > 0)
}

/// How many rows of `day` the default partition holds, counting `most` at most (`None`: all),
/// its lock waited for at most as `policy` allows ([`within`]).
pub async fn default_rows_on(
    conn: &mut PgConnection,
    default: &QualifiedName,
    day: NaiveDate,
    most: Option<i64>,
    policy: LockPolicy,
) -> Result<i64, Error> {
    let what = format!("looking for rows of {day} in {}", default.plain());
    let sql = format!(
        "SELECT count(*) FROM (SELECT 1 FROM {default} WHERE published_at >= $1 AND published_at < $2 LIMIT $3) d"
    );
    let count = async |tx: &mut PgConnection| {
        (query_scalar(&sql).bind(partitions::day_start(day)))
            .bind(partitions::day_start(day + Days::new(1)))
            .bind(most)
            .fetch_one(tx)
            .await
            .map_err(|e| Error::pg("looking for rows in the default partition", e))
    };
    within(conn, policy, &what, count).await
}

/// The first and last `published_at` in the default partition.
pub async fn default_span(
    conn: &mut PgConnection,
    default: &QualifiedName,
    policy: LockPolicy,
) -> Result<Option<(chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>)>, Error> {
    let what = format!("reading {}", default.plain());
    let sql = format!("SELECT min(published_at) AS a, max(published_at) AS b FROM {default}");
    let span = async |tx: &mut PgConnection| {
        let row = (query(&sql).fetch_one(tx).await)
            .map_err(|e| Error::pg("reading the default partition", e))?;
        Ok(row
            .get::<Option<chrono::DateTime<chrono::Utc>>, _>("a")
            .zip(row.get("b")))
    };
    within(conn, policy, &what, span).await
}

/// What adding a day came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    /// Built and attached, after this many attempts.
    Attached(u32),
    /// The default partition holds rows of the day: `ATTACH` refused, inside the transaction
    /// (so a row that landed after any earlier look is caught), and nothing was created.
    DefaultHasRows,
    /// The day's table, there unattached, holds rows outside the day: `ATTACH` refused.
    OutsideTheDay,
}

/// Adds one day in its own short transaction; `create: false` attaches its table, which
/// exists unattached ([`LogFacts::unattached`]).
pub async fn add_day(
    conn: &mut PgConnection,
    log: &QualifiedName,
    day: NaiveDate,
    policy: LockPolicy,
    create: bool,
) -> Result<Added, Error> {
    let sql: Vec<String> = partitions::add_day_statements(log, day)?
        .into_iter()
        .skip(usize::from(!create))
        .map(|s| s.sql)
        .collect();
    let what = format!("adding the partition for {day}");
    match run_in_short_transactions(conn, &sql, policy, &what).await {
        Ok(attempts) => Ok(Added::Attached(attempts)),
        // attaching the day re-checks the default partition's constraint (rows of that day
        // there violate it) and the day's own (an unattached table's rows outside the day);
        // the error's table says which
        Err(e) if e.sqlstate().as_deref() == Some(crate::db::sqlstate::CHECK_VIOLATION) => {
            let day_table = partitions::day_name(log, day)?;
            Ok(match violated_table(&e) {
                Some(t) if t == day_table.name.name() => Added::OutsideTheDay,
                _ => Added::DefaultHasRows,
            })
        }
        Err(e) => Err(e),
    }
}

/// The table a server error names (its `TABLE NAME` field).
fn violated_table(e: &Error) -> Option<String> {
    let Error::Db(crate::db::DbError::Postgres { source, .. }) = e else {
        return None;
    };
    let db = source.as_database_error()?;
    let pg = db.try_downcast_ref::<sqlx::postgres::PgDatabaseError>()?;
    pg.table().map(str::to_owned)
}

/// Whether `table` (a day's table, not attached) holds a row outside `day`, which `ATTACH`
/// would refuse; its lock waited for at most as `policy` allows ([`within`]).
pub async fn rows_outside_the_day(
    conn: &mut PgConnection,
    table: &QualifiedName,
    day: NaiveDate,
    policy: LockPolicy,
) -> Result<bool, Error> {
    let what = format!("reading {}", table.plain());
    let sql = format!(
        "SELECT EXISTS (SELECT 1 FROM {table} WHERE published_at IS NULL OR published_at < $1 OR published_at >= $2)"
    );
    let outside = async |tx: &mut PgConnection| {
        (query_scalar(&sql).bind(partitions::day_start(day)))
            .bind(partitions::day_start(day + Days::new(1)))
            .fetch_one(tx)
            .await
            .map_err(|e| Error::pg(format!("reading {}", table.plain()), e))
    };
    within(conn, policy, &what, outside).await
}

/// Drops one partition in its own short transaction.
pub async fn drop_partition(
    conn: &mut PgConnection,
    partition: &QualifiedName,
    policy: LockPolicy,
) -> Result<u32, Error> {
    let sql = vec![format!("DROP TABLE {partition}")];
    run_in_short_transactions(
        conn,
        &sql,
        policy,
        &format!("dropping {}", partition.plain()),
    )
    .await
}

/// Rows moved per transaction while the relays go on writing (only the last, small remainder
/// is moved under a lock of the default partition).
pub const MOVE_BATCH: i64 = 10_000;

/// The log's columns, in order, quoted: rows are moved by name, never by position (a
/// default partition attached with another column order would swap columns).
async fn columns_of(conn: &mut PgConnection, table: &QualifiedName) -> Result<String, Error> {
    let names: Vec<String> = query_scalar(
        "SELECT quote_ident(attname) FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
    )
    .bind(table.to_string())
    .fetch_all(conn)
    .await
    .map_err(|e| Error::pg("reading the delivery log's columns", e))?;
    Ok(names.join(", "))
}

/// Moves `day`'s rows out of the default partition into the day's partition, then attaches it.
/// The partition is built apart first; rows move in transactions of [`MOVE_BATCH`] that lock
/// only those rows, so the relays' inserts never wait on the move, into the log's indexes built
/// with the table (`ATTACH` adopts them); then one short transaction
/// locks the default partition against new rows (`SHARE ROW EXCLUSIVE`, under the lock
/// policy), moves what arrived meanwhile, and attaches. Returns how many rows moved.
pub async fn move_default_day(
    conn: &mut PgConnection,
    log: &QualifiedName,
    default: &QualifiedName,
    day: NaiveDate,
    policy: LockPolicy,
) -> Result<u64, Error> {
    let part = partitions::day_name(log, day)?;
    let (from, to) = (
        partitions::day_start(day),
        partitions::day_start(day + Days::new(1)),
    );
    let stmts = partitions::add_day_statements(log, day)?;
    let what = format!("moving {day}'s rows out of {}", default.plain());
    let cols = columns_of(conn, log).await?;
    let exists: bool = query_scalar("SELECT to_regclass($1) IS NOT NULL")
        .bind(part.to_string())
        .fetch_one(&mut *conn)
        .await
        .map_err(|e| Error::pg(&what, e))?;
    if !exists {
        // built apart, with its indexes (a run cut short before may have left it, with rows
        // moved into it)
        sqlx::raw_sql(&partitions::day_table_with_indexes(log, day)?.sql)
            .execute(&mut *conn)
            .await
            .map_err(|e| Error::pg(&what, e))?;
    }
    let batch = format!(
        "WITH moved AS (DELETE FROM {default} WHERE ctid = ANY (ARRAY(
             SELECT ctid FROM {default} WHERE published_at >= $1 AND published_at < $2 LIMIT $3)) RETURNING {cols})
         INSERT INTO {part} ({cols}) SELECT {cols} FROM moved"
    );
    let mut moved = 0;
    loop {
        let n = query(&batch)
            .bind(from)
            .bind(to)
            .bind(MOVE_BATCH)
            .execute(&mut *conn)
            .await
            .map_err(|e| Error::pg(&what, e))?
            .rows_affected();
        moved += n;
        if n < MOVE_BATCH as u64 {
            break;
        }
    }
    let rest = format!(
        "WITH moved AS (DELETE FROM {default} WHERE published_at >= $1 AND published_at < $2 RETURNING {cols})
         INSERT INTO {part} ({cols}) SELECT {cols} FROM moved"
    );
    // A CHECK that implies the partition constraint lets ATTACH skip scanning the day's rows
    // under the default partition's lock: the table is validated here, outside it, where no
    // relay waits on it. Dropped again once attached.
    let bound = Ident::new("constraint", "outboxctl_day_bound")?;
    let (lo, hi) = (
        partitions::bound_literal(day),
        partitions::bound_literal(day + Days::new(1)),
    );
    sqlx::raw_sql(&format!(
        "ALTER TABLE {part} DROP CONSTRAINT IF EXISTS {bound}, ADD CONSTRAINT {bound}
           CHECK (published_at IS NOT NULL AND published_at >= {lo} AND published_at < {hi})"
    ))
    .execute(&mut *conn)
    .await
    .map_err(|e| Error::pg(&what, e))?;
    use crate::db::retry::{LockRetryError, while_lock_busy};
    let result = while_lock_busy(policy.retries, async || {
        let mut tx = conn.begin().await?;
        crate::schema::postgres::set_local_lock_timeout(&mut tx, policy.lock_timeout).await?;
        sqlx::raw_sql(&format!("LOCK TABLE {default} IN SHARE ROW EXCLUSIVE MODE"))
            .execute(&mut *tx)
            .await?;
        let last = query(&rest)
            .bind(from)
            .bind(to)
            .execute(&mut tx)
            .await?
            .rows_affected();
        sqlx::raw_sql(&stmts[1].sql).execute(&mut *tx).await?;
        sqlx::raw_sql(&format!("ALTER TABLE {part} DROP CONSTRAINT {bound}"))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(last)
    })
    .await;
    match result {
        Ok((last, _)) => Ok(moved + last),
        Err(LockRetryError::Busy { attempts, .. }) => Err(Error::LockBusy(format!(
            "gave up moving {day}'s rows out of {}: its lock stayed busy through {attempts} attempts ({moved} row(s) moved so far into {}; run it again to finish)",
            default.plain(),
            part.plain()
        ))),
        Err(LockRetryError::Failed { source, .. }) => Err(Error::pg(&what, source)),
    }
}

/// The qualified name of a partition listed by [`read`].
pub fn qualified(log: &QualifiedName, name: &str) -> Result<QualifiedName, Error> {
    Ok(Ident::new("partition", name).map(|n| QualifiedName::new(log.schema.clone(), n))?)
}
