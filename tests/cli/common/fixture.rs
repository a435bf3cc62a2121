//! Outbox rows a test needs, built field by field and inserted in one statement with bound
//! values, instead of an `INSERT` written out in each test:
//! `insert(&mut conn, &t, &[Fixture::pending("orders").key("J").created_ago(20.0).due_in(3600.0)]).await`.
//! Times are relative to the server's `now()`. Bulk volumes (a million rows) stay
//! `generate_series` statements in their tests.

use sqlx::postgres::PgConnection;
use uuid::Uuid;

/// One outbox row; every field not set takes what a freshly staged row has.
#[derive(Debug, Clone)]
pub struct Fixture {
    route: String,
    event_type: String,
    payload: String,
    status: &'static str,
    created_ago: f64,
    due_in: Option<f64>,
    attempts: i32,
    key: Option<String>,
    tenant: Option<Uuid>,
    hlc: Option<i64>,
    last_error: Option<String>,
}

impl Fixture {
    fn new(route: &str, status: &'static str) -> Self {
        Self {
            route: route.to_owned(),
            event_type: "x".into(),
            payload: "{}".into(),
            status,
            created_ago: 0.0,
            due_in: None,
            attempts: 0,
            key: None,
            tenant: None,
            hlc: None,
            last_error: None,
        }
    }

    pub fn pending(route: &str) -> Self {
        Self::new(route, "pending")
    }

    pub fn failed(route: &str) -> Self {
        Self::new(route, "failed")
    }

    pub fn event_type(mut self, t: &str) -> Self {
        self.event_type = t.into();
        self
    }

    /// A JSON object, as text.
    pub fn payload(mut self, json: &str) -> Self {
        self.payload = json.into();
        self
    }

    /// `created_at` this many seconds before `now()`.
    pub fn created_ago(mut self, seconds: f64) -> Self {
        self.created_ago = seconds;
        self
    }

    /// `available_at` this many seconds after `now()` (a scheduled retry).
    pub fn due_in(mut self, seconds: f64) -> Self {
        self.due_in = Some(seconds);
        self
    }

    pub fn attempts(mut self, n: i32) -> Self {
        self.attempts = n;
        self
    }

    pub fn key(mut self, key: &str) -> Self {
        self.key = Some(key.into());
        self
    }

    pub fn tenant(mut self, tenant: Uuid) -> Self {
        self.tenant = Some(tenant);
        self
    }

    pub fn hlc(mut self, hlc: i64) -> Self {
        self.hlc = Some(hlc);
        self
    }

    pub fn error(mut self, text: &str) -> Self {
        self.last_error = Some(text.into());
        self
    }
}

/// Inserts `rows` into `table` in one statement. The optional columns (`tenant_id`,
/// `available_at`, `last_error`, `hlc`) are written only when some row sets them, so a table
/// without them (consume storage, no HLC) takes rows that do not.
pub async fn insert(conn: &mut PgConnection, table: &str, rows: &[Fixture]) {
    let any = |f: fn(&Fixture) -> bool| rows.iter().any(f);
    let mut cols = vec![
        "id",
        "outbox_route",
        "event_id",
        "event_type",
        "occurred_at",
        "payload",
        "status",
        "created_at",
        "attempts",
        "ordering_key",
    ];
    let mut vals = vec![
        "gen_random_uuid()",
        "u.route",
        "gen_random_uuid()",
        "u.event_type",
        "now()",
        "u.payload::jsonb",
        "u.status",
        "now() - u.ago * interval '1 second'",
        "u.attempts",
        "u.key",
    ];
    for (col, val, used) in [
        ("tenant_id", "u.tenant", any(|r| r.tenant.is_some())),
        (
            "available_at",
            "now() + u.due * interval '1 second'",
            any(|r| r.due_in.is_some()),
        ),
        ("last_error", "u.error", any(|r| r.last_error.is_some())),
        ("hlc", "u.hlc", any(|r| r.hlc.is_some())),
    ] {
        if used {
            cols.push(col);
            vals.push(val);
        }
    }
    let sql = format!(
        "INSERT INTO {table} ({}) SELECT {} FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], \
         $5::float8[], $6::float8[], $7::int4[], $8::text[], $9::uuid[], $10::text[], $11::int8[]) \
         WITH ORDINALITY AS u(route, event_type, payload, status, ago, due, attempts, key, tenant, error, hlc, n) \
         ORDER BY u.n",
        cols.join(", "),
        vals.join(", ")
    );
    let column = |f: fn(&Fixture) -> String| rows.iter().map(f).collect::<Vec<_>>();
    sqlx::query(&sql)
        .bind(column(|r| r.route.clone()))
        .bind(column(|r| r.event_type.clone()))
        .bind(column(|r| r.payload.clone()))
        .bind(column(|r| r.status.to_owned()))
        .bind(rows.iter().map(|r| r.created_ago).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.due_in).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.attempts).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.key.clone()).collect::<Vec<_>>())
        .bind(rows.iter().map(|r| r.tenant).collect::<Vec<_>>())
        .bind(
            rows.iter()
                .map(|r| r.last_error.clone())
                .collect::<Vec<_>>(),
        )
        .bind(rows.iter().map(|r| r.hlc).collect::<Vec<_>>())
        .execute(conn)
        .await
        .unwrap_or_else(|e| panic!("inserting {} fixture row(s) into {table}: {e}", rows.len()));
}
