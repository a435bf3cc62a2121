//! Delivery-log partitions on PostgreSQL: read them from the catalog (TimeZone UTC, bounds
//! from `pg_get_expr(relpartbound)`), add a day (built apart, then attached), drop a day, and
//! move rows out of the default partition. Each change is one short transaction with
//! `SET LOCAL lock_timeout` and jittered retries, so a relay's insert never waits long behind it.

use chrono::{Days, NaiveDate};
use sqlx::postgres::PgConnection;
use sqlx::{Connection, Row};

use crate::Error;
use crate::db::pg::{query, query_scalar};
use crate::partitions::{self, Bound, Partition};
use crate::schema::postgres::{LockPolicy, run_in_short_transactions};
use crate::target::{Ident, QualifiedName};

/// A partition with what the catalog estimates about it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PartitionInfo {
    #[serde(flatten)]
    pub partition: Partition,
    pub estimated_rows: i64,
    pub bytes: i64,
}

#[derive(Debug, Clone)]
pub struct LogFacts {
    pub partitions: Vec<PartitionInfo>,
    pub default: Option<QualifiedName>,
}

impl LogFacts {
    pub fn bounds(&self) -> Vec<Partition> {
        self.partitions
            .iter()
            .map(|p| p.partition.clone())
            .collect()
    }
}

fn runtime(what: &str, e: sqlx::Error) -> Error {
    Error::Runtime(format!("{what}: {}", crate::db::pg_message(&e)))
}

/// Reads the log's partitions; refuses a missing or non-partitioned log.
pub async fn read(conn: &mut PgConnection, log: &QualifiedName) -> Result<LogFacts, Error> {
    let mut tx = conn
        .begin()
        .await
        .map_err(|e| runtime("reading the delivery log", e))?;
    let facts = read_in(&mut tx, log).await?;
    tx.commit()
        .await
        .map_err(|e| runtime("reading the delivery log", e))?;
    Ok(facts)
}

/// [`read`], inside its transaction: bounds print in UTC for this transaction only.
async fn read_in(conn: &mut PgConnection, log: &QualifiedName) -> Result<LogFacts, Error> {
    sqlx::raw_sql("SET LOCAL TIME ZONE 'UTC'")
        .execute(&mut *conn)
        .await
        .map_err(|e| runtime("setting TimeZone", e))?;
    let row = query(
        "SELECT c.oid, c.relkind::text AS relkind, CASE WHEN c.relkind = 'p' THEN pg_get_partkeydef(c.oid) END AS key
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2",
    )
    .bind(log.schema.name())
    .bind(log.name.name())
    .fetch_optional(&mut *conn)
    .await
    .map_err(|e| runtime("reading the delivery log", e))?;
    let Some(row) = row else {
        return Err(Error::Runtime(format!(
            "delivery log {} does not exist; create it with `outboxctl migrate`",
            log.plain()
        )));
    };
    let key: Option<String> = row.get("key");
    if key.as_deref() != Some("RANGE (published_at)") {
        return Err(Error::Runtime(format!(
            "relation {} is not partitioned by RANGE (published_at), so it is not a delivery log outboxctl can maintain",
            log.plain()
        )));
    }
    let oid: sqlx::postgres::types::Oid = row.get("oid");
    let rows = query(
        "SELECT n.nspname::text AS schema, c.relname::text AS name, pg_get_expr(c.relpartbound, c.oid) AS bound,
                greatest(c.reltuples, 0)::bigint AS est, pg_total_relation_size(c.oid) AS bytes
           FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE i.inhparent = $1 ORDER BY c.relname",
    )
    .bind(oid)
    .fetch_all(&mut *conn)
    .await
    .map_err(|e| runtime("reading partitions", e))?;
    let mut facts = LogFacts {
        partitions: Vec::new(),
        default: None,
    };
    for r in rows {
        let name: String = r.get("name");
        let bound = partitions::parse_bound(&r.get::<String, _>("bound"));
        if bound == Bound::Default {
            let schema = Ident::new("schema", &r.get::<String, _>("schema"))
                .map_err(|e| Error::Runtime(e.to_string()))?;
            let ident =
                Ident::new("partition", &name).map_err(|e| Error::Runtime(e.to_string()))?;
            facts.default = Some(QualifiedName::new(schema, ident));
        }
        facts.partitions.push(PartitionInfo {
            partition: Partition { name, bound },
            estimated_rows: r.get("est"),
            bytes: r.get("bytes"),
        });
    }
    Ok(facts)
}

/// Exact number of rows in the default partition.
pub async fn default_rows(conn: &mut PgConnection, default: &QualifiedName) -> Result<i64, Error> {
    query_scalar(&format!("SELECT count(*) FROM {default}"))
        .fetch_one(conn)
        .await
        .map_err(|e| runtime("counting rows in the default partition", e))
}

/// Whether the default partition holds rows of `day`.
pub async fn default_has_rows_on(
    conn: &mut PgConnection,
    default: &QualifiedName,
    day: NaiveDate,
) -> Result<bool, Error> {
    query_scalar(&format!(
        "SELECT EXISTS (SELECT 1 FROM {default} WHERE published_at >= $1 AND published_at < $2)"
    ))
    .bind(partitions::day_start(day))
    .bind(partitions::day_start(day + Days::new(1)))
    .fetch_one(conn)
    .await
    .map_err(|e| runtime("looking for rows in the default partition", e))
}

/// The first and last `published_at` in the default partition.
pub async fn default_span(
    conn: &mut PgConnection,
    default: &QualifiedName,
) -> Result<Option<(chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>)>, Error> {
    let row = query(&format!(
        "SELECT min(published_at) AS a, max(published_at) AS b FROM {default}"
    ))
    .fetch_one(conn)
    .await
    .map_err(|e| runtime("reading the default partition", e))?;
    Ok(row
        .get::<Option<chrono::DateTime<chrono::Utc>>, _>("a")
        .zip(row.get("b")))
}

/// Adds one day in its own short transaction; returns the attempts it took.
pub async fn add_day(
    conn: &mut PgConnection,
    log: &QualifiedName,
    day: NaiveDate,
    policy: LockPolicy,
) -> Result<u32, Error> {
    let sql: Vec<String> = partitions::add_day_statements(log, day)
        .map_err(|e| Error::Runtime(e.to_string()))?
        .into_iter()
        .map(|s| s.sql)
        .collect();
    run_in_short_transactions(
        conn,
        &sql,
        policy,
        &format!("adding the partition for {day}"),
    )
    .await
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

/// Moves `day`'s rows out of the default partition into a new day partition and attaches it,
/// in one transaction that first locks the default partition against new rows. Returns how
/// many rows moved.
pub async fn move_default_day(
    conn: &mut PgConnection,
    log: &QualifiedName,
    default: &QualifiedName,
    day: NaiveDate,
    policy: LockPolicy,
) -> Result<u64, Error> {
    let part = partitions::day_name(log, day).map_err(|e| Error::Runtime(e.to_string()))?;
    let (from, to) = (
        partitions::day_start(day),
        partitions::day_start(day + Days::new(1)),
    );
    let stmts =
        partitions::add_day_statements(log, day).map_err(|e| Error::Runtime(e.to_string()))?;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let result: Result<u64, sqlx::Error> = async {
            let mut tx = conn.begin().await?;
            crate::schema::postgres::set_local_lock_timeout(&mut tx, policy.lock_timeout).await?;
            sqlx::raw_sql(&format!("LOCK TABLE {default} IN SHARE ROW EXCLUSIVE MODE")).execute(&mut *tx).await?;
            sqlx::raw_sql(&stmts[0].sql).execute(&mut *tx).await?;
            let moved = query(&format!(
                "WITH moved AS (DELETE FROM {default} WHERE published_at >= $1 AND published_at < $2 RETURNING *)
                 INSERT INTO {part} SELECT * FROM moved"
            ))
            .bind(from)
            .bind(to)
            .execute(&mut tx)
            .await?
            .rows_affected();
            sqlx::raw_sql(&stmts[1].sql).execute(&mut *tx).await?;
            tx.commit().await?;
            Ok(moved)
        }
        .await;
        match result {
            Ok(moved) => return Ok(moved),
            Err(e)
                if crate::db::pg_code(&e).as_deref()
                    == Some(crate::db::sqlstate::LOCK_NOT_AVAILABLE)
                    && attempt <= policy.retries =>
            {
                crate::schema::postgres::backoff(attempt).await;
            }
            Err(e)
                if crate::db::pg_code(&e).as_deref()
                    == Some(crate::db::sqlstate::LOCK_NOT_AVAILABLE) =>
            {
                return Err(Error::LockBusy(format!(
                    "gave up moving {day}'s rows out of {}: its lock stayed busy through {attempt} attempts",
                    default.plain()
                )));
            }
            Err(e) => {
                return Err(runtime(
                    &format!("moving {day}'s rows out of {}", default.plain()),
                    e,
                ));
            }
        }
    }
}

/// The qualified name of a partition listed by [`read`].
pub fn qualified(log: &QualifiedName, name: &str) -> Result<QualifiedName, Error> {
    Ident::new("partition", name)
        .map(|n| QualifiedName::new(log.schema.clone(), n))
        .map_err(|e| Error::Runtime(e.to_string()))
}
