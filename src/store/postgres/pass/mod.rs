//! The PostgreSQL relay store: a pass's statements ([`super::sql`]) sent the fewest times.
//!
//! On a connection of its own (tokio-postgres, [`PgClient`]) each statement is one round trip.
//! Under consume storage a pass is one transaction whose opening (`BEGIN` and its timeouts) goes
//! out with its first statement, and whose writes (the delivered rows' `DELETE`, merged into one
//! statement for the whole pass, the retries, the parked rows, a `postgres-table` destination's
//! inserts) wait and go out with its `COMMIT`: a pass is two round trips plus its publishes. Under
//! retain every statement commits on its own, at once (a mark must stand before the next chunk is
//! published). Inside a caller's sqlx transaction a pass is a savepoint and its statements run
//! one by one, as the caller's driver sends them. This file holds the store and how it sends;
//! `relay_store.rs` the pass's primitives.

mod relay_store;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use sqlx::postgres::{PgConnection, PgRow};
use uuid::Uuid;

use super::session::{
    FUNCTIONS_REREAD, PASS_TIMEOUTS_SQL, SessionLimits, consume_begin, greet, pass_limits,
    read_functions, retain_begin,
};
use super::sql::calls_functions;
use super::{PgSql, PgStoreOptions};
use crate::db::fault::Fault;
use crate::db::pgclient::{PgClient, Reply, Stmt, Value};
use crate::dburl::DatabaseUrl;
use crate::model::Storage;
use crate::store::{PassTarget, RelayStore, StoreError};

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
    /// The backend of an owned connection that looks direct (the server's port is the one
    /// dialled), for diagnostics only: an abandoned pass is cancelled by the protocol's cancel
    /// request ([`PgClient::cancel`]), which a pooler on the server's port cannot misdirect.
    backend: Option<i32>,
    /// The owned connection's session limits, read when it opened (`None`: not read; a
    /// consume pass then reads them itself).
    session: Option<SessionLimits>,
    /// The claim functions of the table that exist, read when the connection opens and again
    /// between passes while the claim goes as SQL (`FUNCTIONS_REREAD`).
    functions: HashSet<String>,
    /// When `functions` was read, and how often it is read again while the claim goes as SQL.
    functions_read: (Instant, Duration),
}

impl<'a> PgStore<'a> {
    /// The server process behind an owned connection that looks direct (`None` behind a
    /// pooler on another port, or inside a caller's transaction).
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
        // a pooler in statement mode refuses a transaction (and closes the client); one whose
        // server connections are all held (session mode, a small pool) lets the first statement
        // wait for one: bounded, and said (the relay hung at start without a word)
        let first = async {
            for sql in ["BEGIN", "COMMIT"] {
                client.simple(sql).await?;
            }
            Ok::<(), tokio_postgres::Error>(())
        };
        match tokio::time::timeout(connect_timeout, first).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                let said = url.scrub(&crate::db::pgclient::message(&e));
                return Err(crate::Error::Unsupported(said));
            }
            Err(_) => {
                return Err(crate::db::DbError::Connect {
                    target: url.to_string(),
                    reason: format!(
                        "connected, but its first statement had no answer within {}: a pooler with every server connection held? (pgbouncer in session mode gives each client one for its whole session, and a relay takes one per destination (two with relay.claim_ahead), one for the registry and one to wake on: raise default_pool_size or use transaction pooling)",
                        crate::duration::Dur(connect_timeout)
                    ),
                }
                .into());
            }
        }
        let greeting = greet(&mut client, url, &opts).await;
        Ok(PgStore {
            backend: greeting.backend,
            session: greeting.session,
            functions: greeting.functions,
            functions_read: (Instant::now(), FUNCTIONS_REREAD),
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
            functions_read: (Instant::now(), FUNCTIONS_REREAD),
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
            self.functions_read.0 = Instant::now();
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
    /// ([`super::sql::claim_function`]) rather than as its SQL.
    pub fn claims_by_function(&mut self, tenant: Option<Uuid>) -> Result<bool, StoreError> {
        Ok(self.sql_for(tenant)?.claim_by_function)
    }

    /// Whether retain's marks go out as calls of their function
    /// ([`super::sql::mark_function`]) rather than as their SQL.
    pub fn marks_by_function(&mut self, tenant: Option<Uuid>) -> Result<bool, StoreError> {
        Ok(self.sql_for(tenant)?.published_by_function)
    }

    /// How often the catalog is asked again for the claim function while the claim goes as SQL
    /// (default a minute): between passes, one short statement.
    pub fn reread_functions_every(mut self, every: Duration) -> Self {
        self.functions_read.1 = every;
        self
    }

    /// Asks the catalog again, between passes, for the functions of a store whose statements
    /// could go through them but go as SQL: a function `migrate` added meanwhile reaches a
    /// running relay without a reconnect.
    async fn reread_functions(&mut self, tenant: Option<Uuid>) {
        let (read, every) = self.functions_read;
        if read.elapsed() < every || self.pass != Pass::Closed {
            return;
        }
        self.functions_read.0 = Instant::now();
        let retain = self.opts.storage == Storage::Retain;
        let by_sql = self
            .sql_for(tenant)
            .is_ok_and(|s| !s.claim_by_function || (retain && !s.published_by_function));
        let Conn::Owned {
            client: Some(c), ..
        } = &mut self.conn
        else {
            return;
        };
        if !by_sql || !calls_functions(&self.opts) {
            return;
        }
        match read_functions(c, &self.opts).await {
            Some(functions) if functions != self.functions => {
                self.functions = functions;
                self.sql.clear();
            }
            _ => {}
        }
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
    /// (`BEGIN`, its limits, the claim, `COMMIT`: one round trip), else as the pass's statement.
    async fn send_claim(&mut self, sql: &PgSql, values: Vec<Value>) -> Result<Answer, StoreError> {
        self.bounded(Self::step(&sql.claim, values, true, "claiming"))
            .await
    }

    /// Sends `step` as the pass's statement; under retain on the store's own connection in a
    /// transaction of its own, with the pass's statement and lock limit ([`retain_begin`]), in
    /// one round trip: the claim, and the reclaim before a tick's (or a drain's) first pass,
    /// which waited behind a table lock for as long as that lasted.
    async fn bounded(&mut self, step: Step) -> Result<Answer, StoreError> {
        if self.opts.storage == Storage::Retain && matches!(self.conn, Conn::Owned { .. }) {
            self.pass = Pass::Opening;
            let answers = self.send(vec![step], true).await;
            self.pass = Pass::Closed;
            return Ok(answers?.pop().expect("one answer"));
        }
        self.one(step).await
    }

    /// A statement through its function failed as not fitting the database (a dropped
    /// function, EXECUTE revoked, a changed table): every statement's SQL goes instead, from
    /// now until the functions are read again (at the next connection, or between passes once
    /// a minute). A consume pass's aborted transaction (a claim's: consume has no mark function)
    /// opens again, without the pass's reclaim (the next tick's reclaim repeats it).
    async fn by_sql(&mut self, what: &str, e: &StoreError) {
        tracing::warn!("the {what} through its function failed, its SQL goes instead: {e}");
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
    /// retain (a claim's own transaction) [`retain_begin`]; under consume the pass's timeouts
    /// and JIT off, in the same simple query when the session's limits were read at connect
    /// ([`consume_begin`]), else as a statement after `BEGIN`.
    fn opening(&self) -> (Cow<'static, str>, Option<Step>) {
        if self.opts.storage == Storage::Retain {
            let (statement, _) = pass_limits(&self.opts);
            return (retain_begin(self.session, statement).into(), None);
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
        let within = answer_within(&self.opts);
        let client = match self.client().await {
            Ok(c) => c,
            Err(e) => return Err(self.note(e)),
        };
        // a server, or a pooler in front of it, that keeps the connection open and answers
        // nothing (stopped, a VM paused) is bounded here: its statement_timeout cannot fire,
        // and the kernel still acknowledges what is sent, so the pass (and every signal of the
        // relay) hung for as long as it lasted; a connection cut mid-reply is not used again
        let pipelined = client.pipeline(begin.as_deref(), &stmts, end);
        let Ok(sent) = tokio::time::timeout(within, pipelined).await else {
            self.drop_connection();
            return Err(StoreError {
                context: all.first().map_or("the pass", |s| s.name),
                message: format!(
                    "no answer within {}: the server, or a pooler in front of it, stalls",
                    crate::duration::Dur(within)
                ),
                fault: crate::db::fault::Fault::Lost,
            });
        };
        let mut first: Option<StoreError> = None;
        let mut fail = |e: StoreError| {
            first.get_or_insert(e);
        };
        // once its opening went out the pass counts as open even when that failed: a part
        // after `BEGIN` that failed leaves an aborted transaction only a `ROLLBACK` ends (one
        // outside a transaction is a mere warning)
        if opening {
            self.pass = Pass::Open;
        }
        if let Some(Err(e)) = &sent.begin {
            fail(StoreError::tokio_pg("opening the pass", e));
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
                // a call of a function that returns its count
                Answer::Fast(Reply::Rows(rows)) => rows
                    .first()
                    .and_then(|r| r.try_get::<_, Option<i64>>(0).ok().flatten())
                    .map_or(0, |n| n as u64),
                Answer::Rows(_) => 0,
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

    /// A write of the open pass in a savepoint of its own, sent now (`SAVEPOINT`, the write,
    /// `RELEASE`: one round trip). When the database refuses it ([`Fault::Refused`]) the pass
    /// goes back to before it and stays usable (a second round trip); the refusal is the
    /// answer. Any other failure is the pass's.
    async fn guarded(&mut self, step: Step) -> Result<(), StoreError> {
        let plain = |sql: &'static str, name| Self::step(&Arc::from(sql), Vec::new(), false, name);
        let set = plain("SAVEPOINT outboxctl_guard", "opening a savepoint");
        let release = || plain("RELEASE SAVEPOINT outboxctl_guard", "releasing a savepoint");
        let refusal = match self.send(vec![set, step, release()], false).await {
            Ok(_) => return Ok(()),
            Err(e) if e.fault == Fault::Refused => e,
            Err(e) => return Err(e),
        };
        let back = plain(
            "ROLLBACK TO SAVEPOINT outboxctl_guard",
            "going back to a savepoint",
        );
        self.send(vec![back, release()], false).await?;
        Err(refusal)
    }

    /// The value a retain retry or park matches `processing_at` with (the pass's claim time;
    /// consume's statements have no such parameter: the pass's transaction holds its rows).
    fn held_by(&self, claimed_at: DateTime<Utc>) -> Option<Value> {
        (self.opts.storage == Storage::Retain).then_some(Value::Time(claimed_at))
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

/// How long a round trip of the pass may go unanswered before the connection counts as lost:
/// well past what the server's own limits allow a statement (`pass_statement_timeout`), and a
/// pass's publishing (`pass_deadline`), so only a server that stalls meets it.
fn answer_within(opts: &PgStoreOptions) -> std::time::Duration {
    (opts.pass_statement_timeout + opts.pass_deadline) * 2
}
