//! The statements of the retain-to-consume move (`outboxctl storage`), on PostgreSQL: what is
//! left that blocks it, and step 3's drop under a lock with its re-check. The command decides
//! and prints; this runs the SQL.

use std::time::Duration;

use sqlx::postgres::PgConnection;
use sqlx::{Connection, Row};

use crate::duration::Dur;
use crate::target::QualifiedName;

/// `outbox_route = ANY (…)` over the table's routes (read by [`super::ops::routes_of`]): beside
/// a condition on `status`, the rows are read through the claim index route by route, never
/// the pending backlog.
fn on_its_routes(table: &QualifiedName) -> String {
    format!(
        "outbox_route = ANY (ARRAY({}))",
        super::ops::routes_of(table)
    )
}

/// Processing rows and published rows (counted up to `published_cap`) of the table's routes,
/// in one statement.
pub async fn remaining(
    conn: &mut PgConnection,
    table: &QualifiedName,
    published_cap: i64,
) -> Result<(i64, i64), crate::Error> {
    let on = on_its_routes(table);
    let row = crate::db::pg::query(&format!(
        "SELECT (SELECT count(*) FROM {table} WHERE {on} AND status = 'processing') AS processing,
                (SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {on} AND status = 'published' LIMIT $1) p) AS published"
    ))
    .bind(published_cap)
    .fetch_one(conn)
    .await
    .map_err(|e| crate::Error::pg("", e))?;
    Ok((row.get("processing"), row.get("published")))
}

/// The indexes that go with the retain columns when step 3 drops them: every index that
/// depends on `processing_at` or `published_at` (PostgreSQL's own record), so one that names
/// them only in an expression or its `WHERE` is listed too.
pub async fn indexes_on_retain_columns(
    conn: &mut PgConnection,
    table: &QualifiedName,
) -> Result<Vec<String>, crate::Error> {
    crate::db::pg::query_scalar(
        "SELECT DISTINCT i.relname::text FROM pg_depend d
           JOIN pg_class i ON i.oid = d.objid AND i.relkind IN ('i', 'I')
           JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
          WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass
            AND d.refobjid = $1::regclass AND a.attname IN ('processing_at', 'published_at')
          ORDER BY 1",
    )
    .bind(table.to_string())
    .fetch_all(conn)
    .await
    .map_err(|e| crate::Error::pg(format!("reading the indexes of {}", table.plain()), e))
}

/// What depends on `processing_at` or `published_at` from outside the table's own indexes and
/// constraints (which `DROP COLUMN` drops with them): a view, a row security policy, a trigger
/// on the column, a function whose SQL body reads it. Each makes step 3's `DROP COLUMN` fail,
/// and step 3 never drops with `CASCADE`; named as PostgreSQL names them.
pub async fn dependents_of_retain_columns(
    conn: &mut PgConnection,
    table: &QualifiedName,
) -> Result<Vec<String>, crate::Error> {
    crate::db::pg::query_scalar(
        "SELECT DISTINCT CASE WHEN d.classid = 'pg_rewrite'::regclass
                  THEN (SELECT CASE v.relkind WHEN 'm' THEN 'materialized view ' ELSE 'view ' END || v.oid::regclass::text
                          FROM pg_rewrite r JOIN pg_class v ON v.oid = r.ev_class WHERE r.oid = d.objid)
                  ELSE pg_describe_object(d.classid, d.objid, d.objsubid) END
           FROM pg_depend d
           JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
          WHERE d.refclassid = 'pg_class'::regclass AND d.refobjid = $1::regclass
            AND a.attname IN ('processing_at', 'published_at') AND d.deptype = 'n'
            AND NOT (d.classid = 'pg_constraint'::regclass AND EXISTS
                     (SELECT 1 FROM pg_constraint c WHERE c.oid = d.objid AND c.conrelid = d.refobjid))
          ORDER BY 1",
    )
    .bind(table.to_string())
    .fetch_all(conn)
    .await
    .map_err(|e| crate::Error::pg(format!("reading what depends on {}", table.plain()), e))
}

/// What step 3 found under its lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dropped {
    /// The retain columns are gone.
    Done,
    /// A processing or published row appeared since the check: nothing was dropped.
    RowsAppeared,
}

impl std::fmt::Display for Dropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Dropped::Done => "dropped",
            Dropped::RowsAppeared => "a processing or published row appeared; nothing was dropped",
        })
    }
}

/// Step 3 on one table, in one transaction: `lock_timeout` for the table's `ACCESS EXCLUSIVE`
/// lock, `statement_timeout` (`check_timeout`) for the re-check and the drop under it, then
/// `alter` unless a processing or published row appeared ([`Dropped::RowsAppeared`]).
pub async fn drop_columns_locked(
    conn: &mut PgConnection,
    table: &QualifiedName,
    alter: &str,
    lock_timeout: Duration,
    check_timeout: Duration,
) -> Result<Dropped, sqlx::Error> {
    let mut tx = conn.begin().await?;
    crate::schema::postgres::set_local_lock_timeout(&mut tx, lock_timeout).await?;
    // lock_timeout alone bounds the wait: a role's statement_timeout cutting it short would
    // read as a slow re-check
    sqlx::raw_sql("SET LOCAL statement_timeout = 0")
        .execute(&mut *tx)
        .await?;
    sqlx::raw_sql(&format!("LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE"))
        .execute(&mut *tx)
        .await?;
    // from here on, under the lock: the wait for it is lock_timeout's alone
    crate::db::pg::query("SELECT set_config('statement_timeout', $1, true)")
        .bind(format!("{}ms", super::millis_ceil(check_timeout)))
        .execute(&mut tx)
        .await?;
    let busy: bool = crate::db::pg::query_scalar(&recheck_sql(table))
        .fetch_one(&mut tx)
        .await?;
    if busy {
        tx.rollback().await?;
        return Ok(Dropped::RowsAppeared);
    }
    sqlx::raw_sql(alter).execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(Dropped::Done)
}

/// Step 3's re-check under the lock: any processing or published row, read through the claim
/// index route by route (a scan of `status` alone would read every row of a large backlog
/// while every relay waits on the lock).
pub fn recheck_sql(table: &QualifiedName) -> String {
    format!(
        "SELECT EXISTS (SELECT 1 FROM {table} WHERE {} AND status IN ('processing', 'published'))",
        on_its_routes(table)
    )
}

/// What step 3 runs on one table: the columns it drops (with the indexes on them), the
/// `ALTER` it applies and the script `--dry-run` shows.
pub struct DropColumns {
    pub table: QualifiedName,
    pub columns: Vec<&'static str>,
    pub indexes: Vec<String>,
}

/// What dropping them did: `dropped: COLUMNS from TABLE`, and the indexes that went with them.
impl std::fmt::Display for DropColumns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (columns, table) = (self.columns.join(", "), self.table.plain());
        write!(f, "dropped: {columns} from {table}")?;
        match self.indexes.is_empty() {
            true => Ok(()),
            false => write!(f, "\ndropped with them: {}", self.indexes.join(", ")),
        }
    }
}

impl DropColumns {
    /// `None` when the table has neither retain column left.
    pub fn new(
        table: &QualifiedName,
        has_processing_at: bool,
        has_published_at: bool,
        indexes: &[String],
    ) -> Option<Self> {
        let columns: Vec<&'static str> = [
            ("processing_at", has_processing_at),
            ("published_at", has_published_at),
        ]
        .into_iter()
        .filter(|(_, has)| *has)
        .map(|(c, _)| c)
        .collect();
        (!columns.is_empty()).then(|| Self {
            table: table.clone(),
            columns,
            indexes: indexes.to_vec(),
        })
    }

    pub fn alter(&self) -> String {
        format!(
            "ALTER TABLE {} {};",
            self.table,
            self.columns
                .iter()
                .map(|c| format!("DROP COLUMN {c}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }

    /// The whole of step 3 as SQL, for `--dry-run`, in the order it runs; the re-check is a
    /// `DO` block that raises, so the script pasted into psql refuses as step 3 does.
    pub fn script(&self, lock_timeout: Dur, check_timeout: Dur) -> String {
        format!(
            "BEGIN;\nSET LOCAL lock_timeout = '{}ms';\nSET LOCAL statement_timeout = 0;\nLOCK TABLE {} IN ACCESS EXCLUSIVE MODE;\nSET LOCAL statement_timeout = '{}ms';\nDO $recheck$ BEGIN IF ({}) THEN RAISE EXCEPTION 'processing or published rows remain: step 3 refused'; END IF; END $recheck$;\n{}\n-- drops with them: {}\nCOMMIT;",
            super::millis_ceil(lock_timeout.0),
            self.table,
            super::millis_ceil(check_timeout.0),
            recheck_sql(&self.table),
            self.alter(),
            if self.indexes.is_empty() {
                "no index".to_owned()
            } else {
                self.indexes.join(", ")
            }
        )
    }
}
