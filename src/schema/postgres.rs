//! PostgreSQL: read the catalog facts a plan needs, serialise migrations on an advisory lock,
//! and apply a plan's steps (new objects in one transaction, changes to existing tables under
//! a short `lock_timeout` with retries, indexes built `CONCURRENTLY`).

use std::time::{Duration, Instant};

use sqlx::postgres::PgConnection;
use sqlx::{Connection, Row};

use super::desired::PgSchema;
use super::plan::{ColumnFacts, IndexFacts, PartitionFacts, PgCatalog, Step, StepKind, TableFacts};
use crate::Error;
use crate::db::pg::{query, query_scalar};
use crate::target::{Ident, QualifiedName};

const TABLE_SQL: &str = "\
SELECT c.oid, c.relkind::text AS relkind,
       CASE WHEN c.relkind = 'p' THEN pg_get_partkeydef(c.oid) END AS partkey,
       coalesce(c.reloptions, '{}')::text[] AS reloptions
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = $1 AND c.relname = $2";

const COLUMNS_SQL: &str = "\
SELECT a.attname::text AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null,
       pg_get_expr(d.adbin, d.adrelid) AS default_expr
  FROM pg_attribute a
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
 WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped
 ORDER BY a.attnum";

const INDEXES_SQL: &str = "\
SELECT i.relname::text AS name,
       coalesce(substring(pg_get_indexdef(x.indexrelid) from ' USING (.*)$'), '') AS using_def,
       ARRAY(SELECT a.attname::text
               FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
               JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
              ORDER BY k.ord) AS columns,
       x.indisunique AS is_unique, x.indisprimary AS is_primary, x.indisvalid AS is_valid
  FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
 WHERE x.indrelid = $1
 ORDER BY i.relname";

const DEFAULT_PARTITION_SQL: &str = "\
SELECT c.relname::text
  FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = $1 AND c.relpartbound IS NOT NULL
   AND pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT'";

/// A partitioned table's partitions, each with a valid index of its own on `(event_id)` (not
/// unique, over every row; one attached to an index of the table first) and the index it is
/// attached to, and an invalid such index (a concurrent build cut short).
const PARTITIONS_SQL: &str = "\
SELECT n.nspname::text AS schema, c.relname::text AS name,
       ix.name AS event_index, ix.parent AS attached_to, bad.name AS leftover
  FROM pg_inherits i
  JOIN pg_class c ON c.oid = i.inhrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN LATERAL (
       SELECT y.name, y.parent FROM (
           SELECT xi.relname::text AS name,
                  (SELECT pi.relname::text FROM pg_inherits h JOIN pg_class pi ON pi.oid = h.inhparent
                    WHERE h.inhrelid = x.indexrelid) AS parent
             FROM pg_index x JOIN pg_class xi ON xi.oid = x.indexrelid
            WHERE x.indrelid = c.oid AND x.indisvalid AND NOT x.indisunique
              AND pg_get_indexdef(x.indexrelid) LIKE '% USING btree (event_id)') y
        ORDER BY y.parent IS NULL, y.name
        LIMIT 1) ix ON true
  LEFT JOIN LATERAL (
       SELECT xi.relname::text AS name
         FROM pg_index x JOIN pg_class xi ON xi.oid = x.indexrelid
        WHERE x.indrelid = c.oid AND NOT x.indisvalid AND NOT x.indisunique
          AND pg_get_indexdef(x.indexrelid) LIKE '% USING btree (event_id)'
        ORDER BY 1
        LIMIT 1) bad ON true
 WHERE i.inhparent = $1
 ORDER BY 1, 2";

/// Reads the facts about one relation, or `None` when it does not exist.
pub async fn table_facts(
    conn: &mut PgConnection,
    name: &QualifiedName,
) -> Result<Option<TableFacts>, sqlx::Error> {
    let Some(row) = query(TABLE_SQL)
        .bind(name.schema.name())
        .bind(name.name.name())
        .fetch_optional(&mut *conn)
        .await?
    else {
        return Ok(None);
    };
    let oid: sqlx::postgres::types::Oid = row.try_get("oid")?;
    let relkind: String = row.try_get("relkind")?;
    let partition_key: Option<String> = row.try_get("partkey")?;
    let reloptions: Vec<String> = row.try_get("reloptions")?;
    let columns = query(COLUMNS_SQL)
        .bind(oid)
        .fetch_all(&mut *conn)
        .await?
        .iter()
        .map(|r| {
            Ok(ColumnFacts {
                name: r.try_get("name")?,
                pg_type: r.try_get("type")?,
                not_null: r.try_get("not_null")?,
                default: r.try_get("default_expr")?,
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    let indexes = query(INDEXES_SQL)
        .bind(oid)
        .fetch_all(&mut *conn)
        .await?
        .iter()
        .map(|r| {
            Ok(IndexFacts {
                name: r.try_get("name")?,
                using: r.try_get("using_def")?,
                columns: r.try_get("columns")?,
                unique: r.try_get("is_unique")?,
                primary: r.try_get("is_primary")?,
                valid: r.try_get("is_valid")?,
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    let partitions = if relkind == "p" {
        (query(PARTITIONS_SQL)
            .bind(oid)
            .fetch_all(&mut *conn)
            .await?
            .iter())
        .map(|r| {
            let (schema, name): (String, String) = (r.try_get("schema")?, r.try_get("name")?);
            let name = (Ident::new("partition", &schema)
                .and_then(|s| Ok(QualifiedName::new(s, Ident::new("partition", &name)?))))
            .map_err(|e| sqlx::Error::Decode(e.into()))?;
            Ok(PartitionFacts {
                name,
                event_index: r.try_get("event_index")?,
                attached_to: r.try_get("attached_to")?,
                leftover: r.try_get("leftover")?,
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?
    } else {
        Vec::new()
    };
    let (default_partition, range_partitions) = if relkind == "p" {
        let default = query_scalar(DEFAULT_PARTITION_SQL)
            .bind(oid)
            .fetch_optional(&mut *conn)
            .await?;
        let all: i64 = query_scalar("SELECT count(*) FROM pg_inherits WHERE inhparent = $1")
            .bind(oid)
            .fetch_one(&mut *conn)
            .await?;
        let others = usize::try_from(all).unwrap_or(0);
        (
            default.clone(),
            others.saturating_sub(usize::from(default.is_some())),
        )
    } else {
        (None, 0)
    };
    let triggers = query_scalar(
        "SELECT tgname::text FROM pg_trigger WHERE tgrelid = $1 AND NOT tgisinternal ORDER BY 1",
    )
    .bind(oid)
    .fetch_all(&mut *conn)
    .await?;
    Ok(Some(TableFacts {
        relkind: relkind.chars().next().unwrap_or('?'),
        columns,
        indexes,
        partition_key,
        default_partition,
        range_partitions,
        triggers,
        reloptions,
        partitions,
    }))
}

/// Reads what a plan for `want` needs to know.
pub async fn introspect(
    conn: &mut PgConnection,
    want: &PgSchema,
) -> Result<PgCatalog, sqlx::Error> {
    let mut relations = vec![want.outbox.clone()];
    relations.extend(want.checkpoint.iter().cloned());
    relations.extend(want.sinks.iter().cloned());
    if let Some(Ok(names)) = want.registry_names() {
        relations.push(names.registry);
        relations.push(names.pauses);
    }
    if let Some((log, _, default)) = want.log_names() {
        relations.push(log);
        relations.push(default);
    }
    let mut schemas: Vec<String> = relations
        .iter()
        .map(|r| r.schema.name().to_owned())
        .collect();
    schemas.sort();
    schemas.dedup();
    let existing: Vec<String> =
        query_scalar("SELECT nspname::text FROM pg_namespace WHERE nspname = ANY($1)")
            .bind(&schemas)
            .fetch_all(&mut *conn)
            .await?;
    let mut catalog = PgCatalog {
        schemas: existing,
        ..Default::default()
    };
    for r in relations {
        if let Some(facts) = table_facts(conn, &r).await? {
            catalog.tables.insert(r, facts);
        }
    }
    let index_names: Vec<String> = want
        .indexes()
        .map_err(|e| sqlx::Error::Protocol(e.to_string()))?
        .iter()
        .map(|i| i.name.name().to_owned())
        .collect();
    let taken: Vec<String> = query_scalar(
        "SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = $1 AND c.relname = ANY($2)
            AND NOT EXISTS (SELECT 1 FROM pg_index x WHERE x.indexrelid = c.oid
                             AND x.indrelid = (SELECT oid FROM pg_class t
                                                WHERE t.relnamespace = n.oid AND t.relname = $3))",
    )
    .bind(want.outbox.schema.name())
    .bind(&index_names)
    .bind(want.outbox.name.name())
    .fetch_all(&mut *conn)
    .await?;
    catalog.taken_names = taken
        .iter()
        .filter_map(|n| Ident::new("index", n).ok())
        .map(|n| QualifiedName::new(want.outbox.schema.clone(), n))
        .collect();
    Ok(catalog)
}

/// What applying a PostgreSQL plan refuses.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    #[error("a MongoDB step in a PostgreSQL plan")]
    MongoStep,
    #[error(
        "{what}: {setting} is {value} for this role, which would cut CREATE INDEX CONCURRENTLY and leave an invalid index; run migrate as a role without it (ALTER ROLE … SET {setting} = 0) or, on a direct connection, add ?options=-c%20{setting}%3D0 to the database URL"
    )]
    TimeoutCutsConcurrentIndex {
        what: String,
        setting: &'static str,
        value: crate::duration::Dur,
    },
}

impl From<SchemaError> for Error {
    fn from(e: SchemaError) -> Self {
        Error::Area(Box::new(e))
    }
}

/// How hard to try when a lock is busy.
#[derive(Debug, Clone, Copy)]
pub struct LockPolicy {
    /// `lock_timeout` for each attempt of a change to an existing table.
    pub lock_timeout: Duration,
    /// How many more attempts after the first.
    pub retries: u32,
}

pub use crate::db::retry::backoff;

/// Sets a `lock_timeout` for the current transaction only (value bound, never spliced).
pub async fn set_local_lock_timeout(
    conn: &mut PgConnection,
    timeout: Duration,
) -> Result<(), sqlx::Error> {
    let ms = timeout.as_millis().max(1).to_string() + "ms";
    query("SELECT set_config('lock_timeout', $1, true)")
        .bind(ms)
        .execute(conn)
        .await?;
    Ok(())
}

/// Runs statements in one transaction under a short `lock_timeout`, retrying when the lock
/// stays busy. Returns how many attempts it took.
pub async fn run_in_short_transactions(
    conn: &mut PgConnection,
    sql: &[String],
    policy: LockPolicy,
    what: &str,
) -> Result<u32, Error> {
    let run = async |tx: &mut PgConnection| {
        for s in sql {
            sqlx::raw_sql(s).execute(&mut *tx).await?;
        }
        Ok(())
    };
    in_short_transactions(conn, policy, what, run)
        .await
        .map(|((), attempts)| attempts)
}

/// Reads the catalog as [`introspect`] does, in a transaction under the policy's
/// `lock_timeout`, retried while a lock stays busy: `pg_get_indexdef` and `pg_get_expr` take
/// a table's ACCESS SHARE lock, so a session holding the table locked held `migrate` (and
/// `--check`) for as long as it liked, past every bound the flags set.
pub async fn introspect_within(
    conn: &mut PgConnection,
    want: &PgSchema,
    policy: LockPolicy,
) -> Result<PgCatalog, Error> {
    // every table the plan reads, the log's days with it: a lock on any of them holds the
    // read (a day of the log locked was said as the outbox's)
    let mut tables = vec![want.outbox.plain()];
    tables.extend(want.checkpoint.iter().map(QualifiedName::plain));
    let log = |l: &QualifiedName| format!("{} (and its partitions)", l.plain());
    tables.extend(want.delivery_log.iter().map(log));
    tables.extend(want.registry.iter().map(QualifiedName::plain));
    tables.extend(want.sinks.iter().map(QualifiedName::plain));
    let what = format!("reading the catalog of {}", tables.join(", "));
    let read = async |tx: &mut PgConnection| introspect(tx, want).await;
    in_short_transactions(conn, policy, &what, read)
        .await
        .map(|(catalog, _)| catalog)
}

/// Runs `work` in a transaction under the policy's `lock_timeout`, again while the lock stays
/// busy (up to its retries): its value and the attempts it took, or the outcome in outboxctl's
/// words (a lock that stayed busy is exit 4).
async fn in_short_transactions<T>(
    conn: &mut PgConnection,
    policy: LockPolicy,
    what: &str,
    work: impl AsyncFnMut(&mut PgConnection) -> Result<T, sqlx::Error>,
) -> Result<(T, u32), Error> {
    let result = in_bounded_transactions(conn, policy, |e| e, work).await;
    worded(result, policy, what)
}

/// Runs `work` in a transaction under the policy's `lock_timeout`, again while the lock stays
/// busy (up to its retries), for work whose errors are `E` (`db` makes one of the driver's: of
/// `BEGIN`, the `lock_timeout`, `COMMIT`): its value and the attempts it took, or why it
/// stopped, for the caller to word.
pub async fn in_bounded_transactions<T, E: crate::db::retry::MaybeLockBusy>(
    conn: &mut PgConnection,
    policy: LockPolicy,
    db: impl Fn(sqlx::Error) -> E,
    mut work: impl AsyncFnMut(&mut PgConnection) -> Result<T, E>,
) -> Result<(T, u32), crate::db::retry::LockRetryError<E>> {
    crate::db::retry::while_lock_busy(policy.retries, async || {
        let mut tx = conn.begin().await.map_err(&db)?;
        (set_local_lock_timeout(&mut tx, policy.lock_timeout).await).map_err(&db)?;
        let value = work(&mut tx).await?;
        tx.commit().await.map_err(&db)?;
        Ok(value)
    })
    .await
}

/// A retried attempt's outcome in outboxctl's words: a lock that stayed busy is exit 4.
fn worded<T>(
    result: Result<T, crate::db::retry::LockRetryError>,
    policy: LockPolicy,
    what: &str,
) -> Result<T, Error> {
    use crate::db::retry::LockRetryError;
    match result {
        Ok(value) => Ok(value),
        Err(LockRetryError::Busy { attempts, .. }) => Err(Error::LockBusy(format!(
            "gave up on {what}: a lock stayed busy through {attempts} attempts of {} lock_timeout each; retry later, or raise --lock-timeout / --retries",
            crate::duration::Dur(policy.lock_timeout)
        ))),
        Err(LockRetryError::Failed { source, .. }) => {
            Err(Error::pg(format!("{what} failed"), source))
        }
    }
}

/// Applies one step of a plan.
pub async fn apply_step(
    conn: &mut PgConnection,
    step: &Step,
    policy: LockPolicy,
) -> Result<(), Error> {
    let sql: Vec<String> = step.statements.iter().map(|s| s.sql.clone()).collect();
    match step.kind {
        StepKind::Transaction | StepKind::ShortLock => {
            run_in_short_transactions(conn, &sql, policy, &step.summary)
                .await
                .map(drop)
        }
        StepKind::Concurrent => {
            // A concurrent build runs outside any transaction, so no SET LOCAL can lift a
            // timeout for it, and a session SET would outlive this command behind a pooler
            // (the next client of that server would inherit it). A timeout would cut the
            // build and leave an invalid index: refuse before starting one.
            refuse_build_timeouts(conn, &step.summary).await?;
            for s in &sql {
                sqlx::raw_sql(s)
                    .execute(&mut *conn)
                    .await
                    .map_err(|e| Error::pg(format!("{} failed", step.summary), e))?;
            }
            Ok(())
        }
        StepKind::Mongo => Err(SchemaError::MongoStep.into()),
    }
}

/// Where a concurrent index build stands, read on a connection of its own while
/// [`apply_step`] runs it (`pg_stat_progress_create_index`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildProgress {
    /// `waiting for old snapshots`, `building index: scanning table`, …
    pub phase: String,
    /// In a waiting phase, the session the build waits for: its pid, and the pid with its
    /// state, application, transaction age and last statement, in words.
    pub waits_for: Option<(i32, String)>,
    /// Per cent of the blocks of its current scan done, while it scans.
    pub percent: Option<i64>,
}

const BUILD_PROGRESS_SQL: &str = "\
SELECT p.phase, a.pid,
       format('pid %s (%s%s, its transaction %s s old%s)', a.pid, a.state,
              coalesce(', application ' || nullif(a.application_name, ''), ''),
              floor(extract(epoch FROM now() - a.xact_start)),
              coalesce(', last statement: ' || left(regexp_replace(a.query, '\\s+', ' ', 'g'), 80), '')),
       CASE WHEN p.blocks_total > 0 THEN p.blocks_done * 100 / p.blocks_total END
  FROM pg_stat_progress_create_index p
  LEFT JOIN pg_stat_activity a ON a.pid = nullif(p.current_locker_pid, 0)
 WHERE p.datid = (SELECT oid FROM pg_database WHERE datname = current_database())
   AND p.command LIKE '%CONCURRENTLY' AND ($1 = 0 OR p.pid = $1)
   AND ($2::text IS NULL OR p.relid = to_regclass($2))
 ORDER BY p.pid
 LIMIT 1";

/// The concurrent build on `table` (SQL text) that `builder` runs, when no build runs; without
/// `builder` (a pooled connection, whose backend is not known) the build on `table`.
pub async fn build_progress(
    conn: &mut PgConnection,
    builder: Option<i32>,
    table: Option<&str>,
) -> Result<Option<BuildProgress>, sqlx::Error> {
    let row = query(BUILD_PROGRESS_SQL)
        .bind(builder.unwrap_or(0))
        .bind(table)
        .fetch_optional(conn)
        .await?;
    row.map(|r| {
        let pid: Option<i32> = r.try_get(1)?;
        let who: Option<String> = r.try_get(2)?;
        Ok(BuildProgress {
            phase: r.try_get(0)?,
            waits_for: pid.zip(who),
            percent: r.try_get(3)?,
        })
    })
    .transpose()
}

/// Refuses a concurrent index build that a `statement_timeout` or `lock_timeout` of the
/// session would cut.
async fn refuse_build_timeouts(conn: &mut PgConnection, what: &str) -> Result<(), Error> {
    for name in ["statement_timeout", "lock_timeout"] {
        let ms = crate::db::pg::setting_ms(conn, name)
            .await
            .map_err(|e| Error::pg(what, e))?;
        if ms > 0 {
            return Err(SchemaError::TimeoutCutsConcurrentIndex {
                what: what.to_owned(),
                setting: name,
                value: crate::duration::Dur(Duration::from_millis(ms as u64)),
            }
            .into());
        }
    }
    Ok(())
}

/// A migration lock: an open transaction, on a connection of its own, that holds a
/// transaction-scoped advisory lock. Ending the transaction (or the connection, if the
/// process dies) releases it, on every path. No snapshot is held while it waits, so a
/// `CREATE INDEX CONCURRENTLY` run by the holder never waits on it.
pub struct MigrationLock {
    conn: PgConnection,
}

impl MigrationLock {
    /// Takes the lock for each of `keys` (the outbox, and each object it may share with other
    /// outboxes: the checkpoint, the delivery log, the registry, a destination table), all or
    /// none, polling until `wait` has passed (then exit code 4). A migrate of another outbox
    /// that shares an object so waits for this one, then finds the object there, where both
    /// would have created it and one failed on "already exists".
    pub async fn acquire(
        mut conn: PgConnection,
        keys: &[String],
        wait: Duration,
    ) -> Result<Self, Error> {
        use sqlx::TransactionManager;
        use sqlx::postgres::PgTransactionManager;
        let deadline = Instant::now() + wait;
        let mut attempt = 0;
        loop {
            attempt += 1;
            // READ COMMITTED whatever the role's default: a snapshot held here would make the
            // holder's own CREATE INDEX CONCURRENTLY wait on it for ever
            PgTransactionManager::begin(
                &mut conn,
                Some("BEGIN ISOLATION LEVEL READ COMMITTED".into()),
            )
            .await
            .map_err(runtime)?;
            // idle for the whole run: a role's idle_in_transaction_session_timeout would end
            // it, and the lock with it, halfway
            sqlx::raw_sql("SET LOCAL idle_in_transaction_session_timeout = 0")
                .execute(&mut conn)
                .await
                .map_err(runtime)?;
            let mut busy = None;
            for key in keys {
                let got: bool = query_scalar(
                    "SELECT pg_try_advisory_xact_lock(hashtext('outboxctl.migrate'), hashtext(current_database() || ':' || $1))",
                )
                .bind(key)
                .fetch_one(&mut conn)
                .await
                .map_err(runtime)?;
                if !got {
                    busy = Some(key);
                    break;
                }
            }
            let Some(key) = busy else {
                return Ok(Self { conn });
            };
            PgTransactionManager::rollback(&mut conn)
                .await
                .map_err(runtime)?;
            if Instant::now() >= deadline {
                return Err(Error::LockBusy(format!(
                    "another outboxctl migrate holds the migration lock for {key}; it was still held after {}",
                    crate::duration::Dur(wait)
                )));
            }
            backoff(attempt.min(3)).await;
        }
    }

    pub async fn release(mut self) -> Result<(), Error> {
        use sqlx::TransactionManager;
        use sqlx::postgres::PgTransactionManager;
        PgTransactionManager::commit(&mut self.conn)
            .await
            .map_err(runtime)
    }
}

fn runtime(e: sqlx::Error) -> Error {
    Error::pg("migration lock", e)
}
