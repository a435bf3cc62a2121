//! Every bound PostgreSQL statement outboxctl sends goes through [`query`] or [`query_scalar`],
//! so that each one works through pgbouncer with its default settings (1.18 and later), in
//! transaction pooling as in session pooling, and on a direct connection:
//!
//! - Statements are **unnamed** (`persistent(false)`). sqlx names a statement (`sqlx_s_N`)
//!   whenever it is persistent, even with its statement cache off, and never closes it; behind
//!   transaction pooling the next client of that server connection meets it again ("prepared
//!   statement "sqlx_s_1" already exists").
//! - A bound statement **outside a transaction runs in a transaction of its own** (`BEGIN`; it;
//!   `COMMIT`). sqlx sends a bound statement as Parse/Describe/Sync, then Bind/Execute/Sync;
//!   after the first Sync the server is idle, and a transaction pooler may hand the second half
//!   to another server ("unnamed prepared statement does not exist"). Inside a transaction the
//!   pooler keeps the client on one server. Transactions must therefore be opened through sqlx
//!   (`Connection::begin` or `TransactionManager::begin`), never with a raw `BEGIN`, so that
//!   [`Connection::is_in_transaction`] tells the truth.
//! - [`Query::prepared`] keeps sqlx's named, cached statements and sends them as they are (one
//!   round trip each once cached): the relay's `prepared_statements` option, for direct
//!   connections and pgbouncer 1.21+ with `max_prepared_statements`.
//!
//! Simple-protocol statements (`sqlx::raw_sql`, no values) are one message each and need none
//! of this. Nothing here sets session state: limits go in with `set_config(…, true)` or
//! `SET LOCAL`, which end with their transaction.

use sqlx::postgres::{PgArguments, PgConnection, PgQueryResult, PgRow};
use sqlx::{Connection, Encode, Postgres, Type};

/// A bound statement (see the module's rules). Build it with [`query`].
#[must_use = "a statement does nothing until it is executed"]
pub struct Query<'q> {
    inner: sqlx::query::Query<'q, Postgres, PgArguments>,
    prepared: bool,
}

/// A bound statement that returns one column. Build it with [`query_scalar`].
#[must_use = "a statement does nothing until it is executed"]
pub struct Scalar<'q, O> {
    inner: sqlx::query::QueryScalar<'q, Postgres, O, PgArguments>,
    prepared: bool,
}

/// A statement whose values are bound with [`Query::bind`].
#[expect(
    clippy::disallowed_methods,
    reason = "the one place that builds sqlx statements"
)]
pub fn query(sql: &str) -> Query<'_> {
    Query {
        inner: sqlx::query(sql).persistent(false),
        prepared: false,
    }
}

/// A statement that returns one column.
#[expect(
    clippy::disallowed_methods,
    reason = "the one place that builds sqlx statements"
)]
pub fn query_scalar<O>(sql: &str) -> Scalar<'_, O>
where
    (O,): for<'r> sqlx::FromRow<'r, PgRow>,
{
    Scalar {
        inner: sqlx::query_scalar(sql).persistent(false),
        prepared: false,
    }
}

/// Runs `$call` on the connection, inside a transaction of its own when none is open and the
/// statement is unnamed.
macro_rules! run {
    ($self:ident, $conn:ident, $method:ident) => {{
        if $self.prepared || $conn.is_in_transaction() {
            $self.inner.$method(&mut *$conn).await
        } else {
            let mut tx = $conn.begin().await?;
            let out = $self.inner.$method(&mut *tx).await?;
            tx.commit().await?;
            Ok(out)
        }
    }};
}

impl<'q> Query<'q> {
    pub fn bind<T: 'q + Encode<'q, Postgres> + Type<Postgres>>(mut self, value: T) -> Self {
        self.inner = self.inner.bind(value);
        self
    }

    /// With `yes`: a named statement the connection caches, sent as it is (see the module).
    pub fn prepared(mut self, yes: bool) -> Self {
        self.inner = self.inner.persistent(yes);
        self.prepared = yes;
        self
    }

    pub async fn execute(self, conn: &mut PgConnection) -> Result<PgQueryResult, sqlx::Error> {
        run!(self, conn, execute)
    }

    pub async fn fetch_all(self, conn: &mut PgConnection) -> Result<Vec<PgRow>, sqlx::Error> {
        run!(self, conn, fetch_all)
    }

    pub async fn fetch_one(self, conn: &mut PgConnection) -> Result<PgRow, sqlx::Error> {
        run!(self, conn, fetch_one)
    }

    pub async fn fetch_optional(
        self,
        conn: &mut PgConnection,
    ) -> Result<Option<PgRow>, sqlx::Error> {
        run!(self, conn, fetch_optional)
    }
}

impl<'q, O> Scalar<'q, O>
where
    O: Send + Unpin,
    (O,): for<'r> sqlx::FromRow<'r, PgRow>,
{
    pub fn bind<T: 'q + Encode<'q, Postgres> + Type<Postgres>>(mut self, value: T) -> Self {
        self.inner = self.inner.bind(value);
        self
    }

    /// With `yes`: a named statement the connection caches, sent as it is (see the module).
    pub fn prepared(mut self, yes: bool) -> Self {
        self.inner = self.inner.persistent(yes);
        self.prepared = yes;
        self
    }

    pub async fn fetch_all(self, conn: &mut PgConnection) -> Result<Vec<O>, sqlx::Error> {
        run!(self, conn, fetch_all)
    }

    pub async fn fetch_one(self, conn: &mut PgConnection) -> Result<O, sqlx::Error> {
        run!(self, conn, fetch_one)
    }

    pub async fn fetch_optional(self, conn: &mut PgConnection) -> Result<Option<O>, sqlx::Error> {
        run!(self, conn, fetch_optional)
    }
}

/// pgbouncer in statement pooling mode refuses every transaction (and closes the client).
pub fn is_statement_pooling(e: &sqlx::Error) -> bool {
    e.to_string().contains(STATEMENT_POOLING_SAYS)
}

/// What pgbouncer says when statement pooling refuses a transaction.
pub const STATEMENT_POOLING_SAYS: &str = "transaction blocks not allowed in statement pooling mode";

/// What outboxctl says when the pooler cannot hold a transaction.
pub const STATEMENT_POOLING: &str =
    "pgbouncer in statement pooling mode cannot run outboxctl: use transaction or session pooling";

/// The port a URL dials (PostgreSQL's default 5432 when it names none).
pub fn dialled_port(url: &crate::dburl::DatabaseUrl) -> Option<u16> {
    super::pg_options(url).ok().map(|o| o.get_port())
}

/// The port the server listens on (NULL over a Unix socket) and this session's backend pid.
pub async fn server_port_and_pid(
    conn: &mut PgConnection,
) -> Result<(Option<i32>, i32), sqlx::Error> {
    let row = query("SELECT inet_server_port(), pg_backend_pid()")
        .fetch_one(conn)
        .await?;
    use sqlx::Row;
    Ok((row.try_get(0)?, row.try_get(1)?))
}

/// The backend pid of a connection that looks direct; `None`
/// behind a pooler (the server listens on another port than the one dialled), where the
/// backend changes from one transaction to the next.
pub async fn direct_backend_pid(
    conn: &mut PgConnection,
    url: &crate::dburl::DatabaseUrl,
) -> Option<i32> {
    let (port, pid) = server_port_and_pid(conn).await.ok()?;
    (port.is_some() && port == dialled_port(url).map(i32::from)).then_some(pid)
}

/// The server's current value of a millisecond setting (`statement_timeout`, `lock_timeout`,
/// `idle_in_transaction_session_timeout`): 0 means no limit.
pub async fn setting_ms(conn: &mut PgConnection, name: &str) -> Result<i64, sqlx::Error> {
    query_scalar("SELECT setting::bigint FROM pg_settings WHERE name = $1")
        .bind(name)
        .fetch_one(conn)
        .await
}

/// Opens and commits an empty transaction, so that a connection that cannot hold one
/// (pgbouncer in statement pooling mode) is refused at once, exit 2, naming the cause.
pub async fn check_transactions(conn: &mut PgConnection) -> Result<(), super::DbError> {
    let result = async {
        let tx = conn.begin().await?;
        tx.commit().await
    }
    .await;
    result.map_err(|source| super::DbError::Postgres {
        what: String::new(),
        source,
    })
}
