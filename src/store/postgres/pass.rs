//! The PostgreSQL relay store: a pass's statements ([`super::sql`]) sent the fewest times.
//!
//! On a connection of its own (tokio-postgres, [`PgClient`]) each statement is one round trip.
//! Under consume storage a pass is one transaction whose opening (`BEGIN` and its timeouts) goes
//! out with its first statement, and whose writes (the delivered rows' `DELETE`, merged into one
//! statement for the whole pass, the retries, the parked rows, a `postgres-table` destination's
//! inserts) wait and go out with its `COMMIT`: a pass is two round trips plus its publishes. Under
//! retain every statement commits on its own, at once (a mark must stand before the next chunk is
//! published). Inside a caller's sqlx transaction a pass is a savepoint and its statements run
//! one by one, as the caller's driver sends them.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::postgres::{PgConnection, PgRow};
use uuid::Uuid;

use super::rows::{claimed, decode_fast, decode_sqlx, sort_claim_order};
use super::session::{
    PASS_TIMEOUTS_SQL, RETAIN_BEGIN, SessionLimits, consume_begin, greet, pass_limits,
};
use super::{PgSql, PgStoreOptions};
use crate::db::fault::Fault;
use crate::db::pgclient::{PgClient, Reply, Stmt, Value};
use crate::dburl::DatabaseUrl;
use crate::model::{Message, Storage};
use crate::store::{Claimed, PassTarget, RelayStore, StoreError};
use crate::target::QualifiedName;

/// Where the store's connection comes from.
enum Conn<'a> {
    /// A connection of its own, reopened after it is lost.
    Owned {
        url: DatabaseUrl,
        connect_timeout: Duration,
        client: Option<Box<PgClient>>,
    },
    /// A caller's connection with a transaction open: each pass is a savepoint in it and sets
    /// no timeouts; the caller's rollback returns every row.
    InTransaction(&'a mut PgConnection),
}

/// Where a pass stands on its connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// No transaction of the store's is open (retain storage, or between passes).
    Closed,
    /// Consume storage on its own connection: `BEGIN` and the pass's timeouts wait to go out
    /// with the pass's first statement.
    Opening,
    /// The pass's transaction (or savepoint) is open.
    Open,
}

/// A statement of the pass with the step it does (what an error names).
struct Step {
    stmt: Stmt,
    name: &'static str,
}

/// What a statement gave back, from either driver.
enum Answer {
    Fast(Reply),
    Rows(Vec<PgRow>),
    Count(u64),
}

pub struct PgStore<'a> {
    conn: Conn<'a>,
    opts: PgStoreOptions,
    sql: HashMap<Option<Uuid>, Arc<PgSql>>,
    pass: Pass,
    /// Consume storage on its own connection: the pass's writes, sent with its `COMMIT`.
    queued: Vec<Step>,
    /// The backend of an owned, direct connection (not through a pooler), for
    /// `pg_cancel_backend` when a pass is abandoned.
    backend: Option<i32>,
    /// The owned connection's session limits, read when it opened (`None`: not read; a
    /// consume pass then reads them itself).
    session: Option<SessionLimits>,
    /// The claim functions of the table that exist, read when the connection opens.
    functions: HashSet<String>,
}

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
        let mut client = PgClient::connect(url, connect_timeout, opts.prepared_statements).await?;
        // a pooler in statement mode refuses a transaction (and closes the client)
        for sql in ["BEGIN", "COMMIT"] {
            if let Err(e) = client.simple(sql).await {
                return Err(crate::Error::Unsupported(
                    url.scrub(&crate::db::pgclient::message(&e)),
                ));
            }
        }
        let greeting = greet(&mut client, url, &opts).await;
        Ok(PgStore {
            backend: greeting.backend,
            session: greeting.session,
            functions: greeting.functions,
            conn: Conn::Owned {
                url: url.clone(),
                connect_timeout,
                client: Some(Box::new(client)),
            },
            opts,
            sql: HashMap::new(),
            pass: Pass::Closed,
            queued: Vec::new(),
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
            return Err(crate::Error::Usage(
                "PgStore::in_transaction needs a connection with a transaction open through sqlx (Connection::begin)".into(),
            ));
        }
        Ok(PgStore {
            conn: Conn::InTransaction(conn),
            opts,
            sql: HashMap::new(),
            pass: Pass::Closed,
            queued: Vec::new(),
            backend: None,
            session: None,
            functions: HashSet::new(),
        })
    }

    pub fn options(&self) -> &PgStoreOptions {
        &self.opts
    }

    /// The route pauses table the claim reads from now on (`None`: none).
    pub fn read_pauses(&mut self, pauses: Option<crate::target::QualifiedName>) {
        self.opts.pauses = pauses;
        self.sql.clear();
    }

    /// The store's own connection, opened (again) when there is none or it was lost.
    async fn client(&mut self) -> Result<&mut PgClient, StoreError> {
        let Conn::Owned {
            url,
            connect_timeout,
            client,
        } = &mut self.conn
        else {
            unreachable!("only an owned connection has a client");
        };
        if client.as_ref().is_some_and(|c| c.is_closed()) {
            *client = None;
        }
        if client.is_none() {
            if self.pass == Pass::Open {
                // the pass's transaction went with the connection: it must not go on
                // outside one
                return Err(StoreError {
                    context: "the pass",
                    message: "the connection was lost; the server rolled the pass back".into(),
                    fault: crate::db::fault::Fault::Lost,
                });
            }
            let mut c = PgClient::connect(url, *connect_timeout, self.opts.prepared_statements)
                .await
                .map_err(|e| StoreError {
                    context: "reconnecting",
                    message: match e {
                        crate::db::DbError::Connect { reason, .. } => reason,
                        other => other.to_string(),
                    },
                    fault: crate::db::fault::Fault::Unreachable,
                })?;
            let greeting = greet(&mut c, url, &self.opts).await;
            (self.backend, self.session) = (greeting.backend, greeting.session);
            if greeting.functions != self.functions {
                // `migrate` added (or replaced) a claim function meanwhile
                self.functions = greeting.functions;
                self.sql.clear();
            }
            *client = Some(Box::new(c));
        }
        Ok(client.as_mut().expect("just connected"))
    }

    fn sql_for(&mut self, tenant: Option<Uuid>) -> Result<Arc<PgSql>, StoreError> {
        if let Some(sql) = self.sql.get(&tenant) {
            return Ok(sql.clone());
        }
        let bad = |e: crate::target::NameError| {
            StoreError::other("resolving the relation", e.to_string())
        };
        let table = self.opts.relation.resolve(tenant).map_err(bad)?;
        let log = self
            .opts
            .delivery_log
            .as_ref()
            .map(|l| l.resolve(tenant))
            .transpose()
            .map_err(bad)?;
        let sql = PgSql::new(&table, log.as_ref(), &self.opts).calling(
            &table,
            &self.opts,
            &self.functions,
        );
        let sql = Arc::new(sql);
        self.sql.insert(tenant, sql.clone());
        Ok(sql)
    }

    /// Whether the claim goes out as a call of its function
    /// ([`claim_function`](super::sql::claim_function)) rather than as its SQL.
    pub fn claims_by_function(&mut self, tenant: Option<Uuid>) -> Result<bool, StoreError> {
        Ok(self.sql_for(tenant)?.claim_by_function)
    }

    /// Marks the connection lost (so the next pass reconnects) when an error says so.
    fn note(&mut self, e: StoreError) -> StoreError {
        if e.connection_lost() {
            self.drop_connection();
        }
        e
    }

    /// Forgets the connection (an owned one is reopened by the next pass).
    fn drop_connection(&mut self) {
        if let Conn::Owned { client, .. } = &mut self.conn {
            *client = None;
        }
        self.pass = Pass::Closed;
        self.queued.clear();
    }

    /// Sends the claim: under retain on the store's own connection in a transaction of its own
    /// (`BEGIN`, JIT off, the claim, `COMMIT`: one round trip), else as the pass's statement.
    async fn send_claim(&mut self, sql: &PgSql, values: Vec<Value>) -> Result<Answer, StoreError> {
        let step = Self::step(&sql.claim, values, true, "claiming");
        if self.opts.storage == Storage::Retain && matches!(self.conn, Conn::Owned { .. }) {
            self.pass = Pass::Opening;
            let answers = self.send(vec![step], true).await;
            self.pass = Pass::Closed;
            return Ok(answers?.pop().expect("one answer"));
        }
        self.one(step).await
    }

    /// A claim through its function failed as not fitting the database (a dropped function,
    /// EXECUTE revoked, a changed table): the claim's SQL goes instead, from this pass until the
    /// next connection reads the functions again. A consume pass's aborted transaction opens
    /// again, without the pass's reclaim (the next tick's reclaim repeats it).
    async fn claim_by_sql(&mut self, e: &StoreError) {
        tracing::warn!("the claim through its function failed, its SQL goes instead: {e}");
        self.functions.clear();
        self.sql.clear();
        if self.opts.storage == Storage::Consume {
            self.rollback_pass().await;
            self.pass = Pass::Opening;
        }
    }

    fn tenant_param(&self, target: &PassTarget) -> Option<Uuid> {
        target.tenant.filter(|_| self.opts.tenant_aware)
    }

    /// How a transaction of the store's opens: `BEGIN` and what it needs set first. Under
    /// retain (a claim's own transaction) [`RETAIN_BEGIN`]; under consume the pass's timeouts
    /// and JIT off, in the same simple query when the session's limits were read at connect
    /// ([`consume_begin`]), else as a statement after `BEGIN`.
    fn opening(&self) -> (Cow<'static, str>, Option<Step>) {
        if self.opts.storage == Storage::Retain {
            return (RETAIN_BEGIN.into(), None);
        }
        match self.session {
            Some(session) => {
                let (statement, idle) = pass_limits(&self.opts);
                (consume_begin(session, statement, idle).into(), None)
            }
            None => ("BEGIN".into(), Some(self.timeouts())),
        }
    }

    /// The pass's timeouts, as a statement.
    fn timeouts(&self) -> Step {
        let (statement, idle) = pass_limits(&self.opts);
        Step {
            stmt: Stmt {
                sql: PASS_TIMEOUTS_SQL.into(),
                values: vec![Value::Int8(statement), Value::Int8(idle)],
                rows: true,
            },
            name: "setting the pass timeouts",
        }
    }

    /// Sends `steps` and, with `commit`, the pass's `COMMIT`, in one round trip; a pass still
    /// opening opens first (`BEGIN` and its timeouts, in the same round trip). The answer of
    /// each step, or the first error, named by its step.
    async fn send(&mut self, steps: Vec<Step>, commit: bool) -> Result<Vec<Answer>, StoreError> {
        if let Conn::InTransaction(conn) = &mut self.conn {
            let mut out = Vec::with_capacity(steps.len());
            for s in steps {
                let mut q =
                    crate::db::pg::query(&s.stmt.sql).prepared(self.opts.prepared_statements);
                for v in &s.stmt.values {
                    q = v.bind_to(q);
                }
                let answer = if s.stmt.rows {
                    q.fetch_all(conn).await.map(Answer::Rows)
                } else {
                    q.execute(conn)
                        .await
                        .map(|r| Answer::Count(r.rows_affected()))
                };
                out.push(answer.map_err(|e| StoreError::pg(s.name, &e))?);
            }
            return Ok(out);
        }
        let opening = self.pass == Pass::Opening;
        let (begin, set_first) = if opening {
            let (begin, step) = self.opening();
            (Some(begin), step)
        } else {
            (None, None)
        };
        let settings = usize::from(set_first.is_some());
        let mut all = Vec::with_capacity(steps.len() + settings);
        all.extend(set_first);
        all.extend(steps);
        let stmts: Vec<&Stmt> = all.iter().map(|s| &s.stmt).collect();
        let end = commit.then_some("COMMIT");
        let client = match self.client().await {
            Ok(c) => c,
            Err(e) => return Err(self.note(e)),
        };
        let sent = client.pipeline(begin.as_deref(), &stmts, end).await;
        let mut first: Option<StoreError> = None;
        let mut fail = |e: StoreError| {
            first.get_or_insert(e);
        };
        if let Some(Err(e)) = &sent.begin {
            fail(StoreError::tokio_pg("opening the pass", e));
        } else if opening {
            self.pass = Pass::Open;
        }
        let mut answers = Vec::with_capacity(all.len());
        for (step, reply) in all.iter().zip(sent.steps) {
            match reply {
                Ok(r) => answers.push(Answer::Fast(r)),
                Err(e) => fail(StoreError::tokio_pg(step.name, &e)),
            }
        }
        match sent.end {
            // COMMIT ends the transaction even when a statement before it failed (the server
            // then rolls back): the pass is over either way
            Some(Ok(())) => self.pass = Pass::Closed,
            Some(Err(e)) => fail(StoreError::tokio_pg("committing the pass", &e)),
            None => {}
        }
        match first {
            Some(e) => Err(self.note(e)),
            None => {
                // the settings' answer is nobody's business
                answers.drain(..settings);
                Ok(answers)
            }
        }
    }

    /// One statement, now (within the pass's opening when it is still to go out).
    async fn one(&mut self, step: Step) -> Result<Answer, StoreError> {
        Ok(self
            .send(vec![step], false)
            .await?
            .pop()
            .expect("one answer"))
    }

    /// A write of the pass: under consume on the store's own connection it waits for the
    /// `COMMIT` (the delivered rows' ids joining one `DELETE`); otherwise it runs now.
    async fn write(&mut self, step: Step, published: bool) -> Result<u64, StoreError> {
        let deferred = self.opts.storage == Storage::Consume
            && matches!(self.conn, Conn::Owned { .. })
            && self.pass != Pass::Closed;
        if !deferred {
            return Ok(match self.one(step).await? {
                Answer::Fast(Reply::Count(n)) | Answer::Count(n) => n,
                _ => 0,
            });
        }
        let ids = match step.stmt.values.first() {
            Some(Value::Uuids(ids)) => ids.len() as u64,
            _ => 0,
        };
        let same = |q: &Step| q.stmt.sql == step.stmt.sql;
        match self.queued.iter_mut().find(|q| published && same(q)) {
            Some(q) => {
                if let (Some(Value::Uuids(all)), Some(Value::Uuids(more))) =
                    (q.stmt.values.first_mut(), step.stmt.values.first())
                {
                    all.extend_from_slice(more);
                }
                // the latest publish time stands for the merged rows
                if let (Some(at), Some(later)) = (q.stmt.values.get_mut(1), step.stmt.values.get(1))
                {
                    *at = later.clone();
                }
            }
            None => self.queued.push(step),
        }
        Ok(ids)
    }

    fn step(sql: &Arc<str>, values: Vec<Value>, rows: bool, name: &'static str) -> Step {
        Step {
            stmt: Stmt {
                sql: sql.clone(),
                values,
                rows,
            },
            name,
        }
    }
}

impl RelayStore for PgStore<'_> {
    async fn begin_pass(&mut self, target: &PassTarget) -> Result<(), StoreError> {
        use sqlx::TransactionManager;
        use sqlx::postgres::PgTransactionManager;
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
        match self.one(step).await? {
            Answer::Fast(Reply::Count(n)) | Answer::Count(n) => Ok(n),
            _ => Ok(0),
        }
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
                self.claim_by_sql(&e).await;
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
        let sql = self.sql_for(target.tenant)?;
        let mut values = vec![Value::Uuids(ids.to_vec())];
        if sql.published_takes_time {
            values.push(Value::Time(at));
        }
        let step = Self::step(&sql.published, values, false, sql.published_step);
        self.write(step, true).await
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
        let values = vec![
            Value::Uuids(ids.to_vec()),
            Value::Int4(attempts),
            Value::Time(available_at),
            Value::Text(error.to_owned()),
        ];
        let step = Self::step(&sql.retry, values, false, "scheduling retries");
        self.write(step, false).await
    }

    async fn mark_failed(
        &mut self,
        target: &PassTarget,
        ids: &[Uuid],
        error: &str,
    ) -> Result<u64, StoreError> {
        let sql = self.sql_for(target.tenant)?;
        let values = vec![Value::Uuids(ids.to_vec()), Value::Text(error.to_owned())];
        let step = Self::step(&sql.failed, values, false, "parking failed rows");
        self.write(step, false).await
    }

    async fn release(&mut self, target: &PassTarget, ids: &[Uuid]) -> Result<u64, StoreError> {
        let sql = self.sql_for(target.tenant)?;
        let Some(release) = sql.release.as_ref().filter(|_| !ids.is_empty()) else {
            return Ok(0);
        };
        let step = Self::step(
            release,
            vec![Value::Uuids(ids.to_vec())],
            false,
            "releasing rows",
        );
        self.write(step, false).await
    }

    async fn insert_sink(
        &mut self,
        table: &QualifiedName,
        messages: &[&Message],
        at: DateTime<Utc>,
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
        let step = Self::step(&sql, values, false, "inserting into the destination table");
        self.write(step, false).await?;
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
        if let (
            Conn::Owned {
                url,
                connect_timeout,
                client: Some(_),
            },
            Some(pid),
        ) = (&self.conn, self.backend)
        {
            crate::db::pg::cancel_backend(url, *connect_timeout, pid).await;
        }
        // Behind a pooler the connection is only dropped: the pooler closes its server link.
        self.drop_connection();
    }

    async fn probe(&mut self) -> Result<(), StoreError> {
        if !matches!(self.conn, Conn::Owned { .. }) {
            return Ok(());
        }
        let step = Step {
            stmt: Stmt {
                sql: "SELECT 1".into(),
                values: Vec::new(),
                rows: true,
            },
            name: "probing the database",
        };
        self.pass = Pass::Closed;
        self.one(step).await.map(drop)
    }
}
