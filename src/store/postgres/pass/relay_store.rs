//! The relay's pass on PostgreSQL: [`RelayStore`] for [`PgStore`], each primitive one statement
//! (or none, under consume, until the pass's `COMMIT`) sent as the store's connection sends it.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::super::rows::{claimed, decode_fast, decode_sqlx, sort_claim_order};
use super::{Answer, Conn, Pass, PgStore, Step};
use crate::db::fault::Fault;
use crate::db::pgclient::{Reply, Stmt, Value};
use crate::model::{Message, Storage};
use crate::store::{Claimed, INSERTING_INTO_TABLE, PassTarget, RelayStore, StoreError};
use crate::target::QualifiedName;

/// The sessions whose granted locks on the tables (`$1`: the outbox, the delivery log) or
/// their partitions stop the pass's writes, each with its lock, state and transaction age.
const LOCK_HOLDERS_SQL: &str = "\
WITH named AS (SELECT to_regclass(n)::oid AS rel FROM unnest($1::text[]) n),
     every AS (SELECT rel FROM named
               UNION SELECT i.inhrelid FROM pg_inherits i JOIN named ON i.inhparent = named.rel)
SELECT string_agg(format('pid %s (%s on %s, %s, its transaction %s s old)', a.pid, l.mode,
                         l.relation::regclass, a.state,
                         floor(extract(epoch FROM now() - a.xact_start))),
                  ', ' ORDER BY a.xact_start, a.pid)
  FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
 WHERE l.granted AND l.locktype = 'relation' AND l.relation IN (SELECT rel FROM every)
   AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
   AND l.pid <> pg_backend_pid()
   AND l.mode IN ('ShareLock', 'ShareRowExclusiveLock', 'ExclusiveLock', 'AccessExclusiveLock')";

/// The rows a statement changed.
fn counted(answer: Answer) -> u64 {
    match answer {
        Answer::Fast(Reply::Count(n)) | Answer::Count(n) => n,
        _ => 0,
    }
}

impl RelayStore for PgStore<'_> {
    async fn begin_pass(&mut self, target: &PassTarget) -> Result<(), StoreError> {
        use sqlx::TransactionManager;
        use sqlx::postgres::PgTransactionManager;
        self.reread_functions(target.tenant).await;
        self.sql_for(target.tenant)?;
        self.queued.clear();
        if self.opts.storage == Storage::Retain {
            return Ok(());
        }
        match &mut self.conn {
            Conn::Owned { .. } => {
                // BEGIN and the timeouts go out with the pass's first statement. From then on
                // the pass is open, so a failure of any later statement rolls it back.
                self.pass = Pass::Opening;
                Ok(())
            }
            Conn::InTransaction(conn) => {
                // a savepoint inside the caller's transaction; no timeouts
                PgTransactionManager::begin(conn, None)
                    .await
                    .map_err(|e| StoreError::pg("opening the pass", &e))?;
                self.pass = Pass::Open;
                Ok(())
            }
        }
    }

    async fn reclaim(
        &mut self,
        target: &PassTarget,
        older_than: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let sql = self.sql_for(target.tenant)?;
        let mut values = vec![Value::Text(target.route.clone()), Value::Time(older_than)];
        if let Some(t) = self.tenant_param(target) {
            values.push(Value::Uuid(Some(t)));
        }
        let step = Self::step(&sql.reclaim, values, false, "reclaiming stale rows");
        Ok(counted(self.bounded(step).await?))
    }

    async fn claim(
        &mut self,
        target: &PassTarget,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<Claimed, StoreError> {
        let sql = self.sql_for(target.tenant)?;
        let mut values = vec![
            Value::Text(target.route.clone()),
            Value::Int8(i64::from(limit)),
            Value::Time(now),
        ];
        if let Some(t) = self.tenant_param(target) {
            values.push(Value::Uuid(Some(t)));
        }
        let again = sql.claim_by_function.then(|| values.clone());
        let answer = match (self.send_claim(&sql, values).await, again) {
            (Err(e), Some(values)) if e.fault == Fault::Definition => {
                self.by_sql("claim", &e).await;
                let sql = self.sql_for(target.tenant)?;
                self.send_claim(&sql, values).await?
            }
            (answer, _) => answer?,
        };
        let counts = sql.claim_counts;
        let (mut rows, candidates) = match answer {
            Answer::Fast(Reply::Rows(rows)) => {
                claimed(&rows, counts, |r| decode_fast(r, &self.opts))
            }
            Answer::Rows(rows) => claimed(&rows, counts, |r| decode_sqlx(r, &self.opts)),
            _ => Ok((Vec::new(), 0)),
        }?;
        sort_claim_order(&mut rows, self.opts.hlc_ordering);
        Ok(Claimed {
            candidates: (candidates as usize).max(rows.len()),
            rows,
            parked: 0,
        })
    }

    async fn mark_published(
        &mut self,
        target: &PassTarget,
        ids: &[Uuid],
        at: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let step = |sql: &super::super::PgSql| {
            let mut values = vec![Value::Uuids(ids.to_vec())];
            if sql.published_takes_time {
                values.push(Value::Time(at));
            }
            // a call of the mark function answers with a row: its count
            let rows = sql.published_by_function;
            Self::step(&sql.published, values, rows, sql.published_step)
        };
        let sql = self.sql_for(target.tenant)?;
        match self.write(step(&sql), true).await {
            Err(e) if sql.published_by_function && e.fault == Fault::Definition => {
                self.by_sql("mark", &e).await;
                let sql = self.sql_for(target.tenant)?;
                self.write(step(&sql), true).await
            }
            marked => marked,
        }
    }

    async fn mark_retry(
        &mut self,
        target: &PassTarget,
        ids: &[Uuid],
        attempts: i32,
        available_at: DateTime<Utc>,
        error: &str,
        claimed_at: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let sql = self.sql_for(target.tenant)?;
        let mut values = vec![
            Value::Uuids(ids.to_vec()),
            Value::Int4(attempts),
            Value::Time(available_at),
            Value::Text(error.to_owned()),
        ];
        values.extend(self.held_by(claimed_at));
        let step = Self::step(&sql.retry, values, false, "scheduling retries");
        self.write(step, false).await
    }

    async fn mark_failed(
        &mut self,
        target: &PassTarget,
        ids: &[Uuid],
        error: &str,
        claimed_at: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let sql = self.sql_for(target.tenant)?;
        let mut values = vec![Value::Uuids(ids.to_vec()), Value::Text(error.to_owned())];
        values.extend(self.held_by(claimed_at));
        let step = Self::step(&sql.failed, values, false, "parking failed rows");
        self.write(step, false).await
    }

    async fn release(
        &mut self,
        target: &PassTarget,
        ids: &[Uuid],
        claimed_at: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let sql = self.sql_for(target.tenant)?;
        let Some(release) = sql.release.as_ref().filter(|_| !ids.is_empty()) else {
            return Ok(0);
        };
        let step = Self::step(
            release,
            vec![Value::Uuids(ids.to_vec()), Value::Time(claimed_at)],
            false,
            crate::store::RELEASING,
        );
        // bounded as the claim is: a pass that failed behind a table lock releases its rows
        // after it, and must not wait on that lock for as long as it lasts
        Ok(counted(self.bounded(step).await?))
    }

    async fn insert_sink(
        &mut self,
        table: &QualifiedName,
        messages: &[&Message],
        at: DateTime<Utc>,
        guarded: bool,
    ) -> Result<u64, StoreError> {
        let sql: Arc<str> = format!(
            "INSERT INTO {table} (event_id, outbox_route, event_type, ordering_key, tenant_id, payload, headers, published_at)
SELECT e, r, t, k, tn, p::jsonb, h::jsonb, $8
  FROM UNNEST($1::uuid[], $2::text[], $3::text[], $4::text[], $5::uuid[], $6::text[], $7::text[]) AS m(e, r, t, k, tn, p, h)
ON CONFLICT (event_id) DO NOTHING"
        )
        .into();
        let texts = |f: &dyn Fn(&Message) -> Option<String>| {
            Value::Texts(messages.iter().map(|m| f(m)).collect())
        };
        let values = vec![
            Value::Uuids(messages.iter().map(|m| m.event_id).collect()),
            texts(&|m| Some(m.route.clone())),
            texts(&|m| Some(m.event_type.clone())),
            texts(&|m| m.ordering_key.clone()),
            Value::OptUuids(messages.iter().map(|m| m.tenant_id).collect()),
            texts(&|m| Some(m.payload.get().to_owned())),
            texts(&|m| Some(m.headers_json())),
            Value::Time(at),
        ];
        let step = Self::step(&sql, values, false, INSERTING_INTO_TABLE);
        // a guard is a savepoint: only inside a transaction (retain on the store's own
        // connection has none, and its write stands on its own)
        let in_transaction =
            self.pass != Pass::Closed || matches!(self.conn, Conn::InTransaction(_));
        if guarded && in_transaction {
            self.guarded(step).await?;
        } else {
            self.write(step, false).await?;
        }
        Ok(messages.len() as u64)
    }

    async fn commit_pass(&mut self) -> Result<(), StoreError> {
        use sqlx::TransactionManager;
        use sqlx::postgres::PgTransactionManager;
        if self.opts.storage == Storage::Retain || self.pass == Pass::Closed {
            return Ok(());
        }
        match &mut self.conn {
            Conn::InTransaction(conn) => {
                self.pass = Pass::Closed;
                PgTransactionManager::commit(conn)
                    .await
                    .map_err(|e| StoreError::pg("committing the pass", &e))
            }
            Conn::Owned { .. } if self.pass == Pass::Opening && self.queued.is_empty() => {
                // nothing was sent: nothing to commit
                self.pass = Pass::Closed;
                Ok(())
            }
            Conn::Owned { .. } => {
                let steps = std::mem::take(&mut self.queued);
                self.send(steps, true).await.map(drop)
            }
        }
    }

    async fn rollback_pass(&mut self) {
        use sqlx::TransactionManager;
        use sqlx::postgres::PgTransactionManager;
        self.queued.clear();
        let was = std::mem::replace(&mut self.pass, Pass::Closed);
        if self.opts.storage == Storage::Retain || was != Pass::Open {
            return;
        }
        let failed = match &mut self.conn {
            Conn::InTransaction(conn) => PgTransactionManager::rollback(conn).await.is_err(),
            Conn::Owned {
                client: Some(c), ..
            } => c.simple("ROLLBACK").await.is_err(),
            Conn::Owned { client: None, .. } => false,
        };
        if failed {
            // A connection that cannot roll back cannot be trusted for the next pass.
            self.drop_connection();
        }
    }

    async fn abandon(&mut self) {
        if let Conn::Owned {
            client: Some(client),
            ..
        } = &self.conn
        {
            // best effort, and bounded: a shutdown that cuts a pass must not wait on a database
            // that does not answer (the dropped connection ends the backend's work anyway)
            let within = Duration::from_secs(2);
            let _ = tokio::time::timeout(within, client.cancel()).await;
        }
        self.drop_connection();
    }

    /// A session whose own `idle_in_transaction_session_timeout` is shorter than the pass's
    /// would be ended while the pass publishes (the transaction idles then): publishing stops
    /// at four fifths of it.
    fn publish_window(&self) -> Option<Duration> {
        let (_, idle_wanted) = super::super::session::pass_limits(&self.opts);
        let idle = self.session?.idle_ms;
        (idle > 0 && idle < idle_wanted).then(|| Duration::from_millis(idle as u64 * 4 / 5))
    }

    async fn lock_holders(&mut self, target: &PassTarget) -> Option<String> {
        if !matches!(self.conn, Conn::Owned { .. }) {
            return None;
        }
        let resolve =
            |r: &crate::target::RelationSpec| Some(r.resolve(target.tenant).ok()?.to_string());
        let mut names = vec![resolve(&self.opts.relation)];
        names.extend(self.opts.delivery_log.as_ref().map(resolve));
        let step = Step {
            stmt: Stmt {
                sql: LOCK_HOLDERS_SQL.into(),
                values: vec![Value::Texts(names)],
                rows: true,
            },
            name: "naming who holds the table locked",
        };
        self.pass = Pass::Closed;
        // asked right after the server was slow enough to cut a pass: bounded as a pass is,
        // and a connection cut mid-reply is not used again
        let limit = self.opts.pass_statement_timeout;
        match tokio::time::timeout(limit, self.one(step)).await {
            Ok(Ok(Answer::Fast(Reply::Rows(rows)))) => rows.first()?.get::<_, Option<String>>(0),
            Ok(_) => None,
            Err(_) => {
                self.drop_connection();
                None
            }
        }
    }

    async fn probe(&mut self) -> Result<(), StoreError> {
        if !matches!(self.conn, Conn::Owned { .. }) {
            return Ok(());
        }
        // a server that only reads (a standby, or a session read-only by default) is not back:
        // its connection goes, and the next probe connects anew (after a failover, perhaps to
        // the primary)
        let step = Step {
            stmt: Stmt {
                sql: "SELECT pg_is_in_recovery() OR current_setting('transaction_read_only')::bool"
                    .into(),
                values: Vec::new(),
                rows: true,
            },
            name: "probing the database",
        };
        self.pass = Pass::Closed;
        let read_only = match self.one(step).await? {
            Answer::Fast(Reply::Rows(rows)) => rows.first().is_some_and(|r| r.get::<_, bool>(0)),
            _ => false,
        };
        if read_only {
            self.drop_connection();
            return Err(StoreError {
                context: "probing the database",
                message: "the server only reads (a standby, or default_transaction_read_only): waiting for one that writes".into(),
                fault: crate::db::fault::Fault::Lost,
            });
        }
        Ok(())
    }
}
