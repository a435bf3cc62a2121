//! Replay sources on PostgreSQL: the outbox's `published` rows (retain storage), read in claim
//! order through the replay index, and a `postgres-table` destination, read in delivery order
//! through its replay index. Each page is one keyset statement (`… > cursor ORDER BY … LIMIT
//! n`), so memory and each statement stay bounded whatever the table's size.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use sqlx::Row;
use uuid::Uuid;

use super::rows::decode_sqlx as decode_row;
use super::{PgStoreOptions, columns};
use crate::Error;
use crate::model::Message;
use crate::replay::{
    Cursor, Item, ReplayError, ReplaySource, Selection, broker_key, ordered_headers,
};
use crate::target::QualifiedName;

/// A value bound to a numbered parameter.
enum Val {
    Text(String),
    Uuid(Uuid),
    Uuids(Vec<Uuid>),
    Time(DateTime<Utc>),
    Int(i64),
}

/// A `WHERE` clause built from the conditions that apply, values bound, never spliced.
#[derive(Default)]
struct Where {
    conds: Vec<String>,
    vals: Vec<Val>,
}

impl Where {
    /// Binds a value; returns its placeholder.
    fn bind(&mut self, v: Val) -> String {
        self.vals.push(v);
        format!("${}", self.vals.len())
    }

    fn and(&mut self, cond: String) {
        self.conds.push(cond);
    }

    /// The conditions every source shares: key, tenant, type, event ids, delivery time.
    fn selection(&mut self, s: &Selection) {
        if let Some(k) = &s.key {
            let p = self.bind(Val::Text(k.clone()));
            self.and(format!(
                "(CASE WHEN ordering_key <> '' THEN ordering_key ELSE event_id::text END) = {p}"
            ));
        }
        if let Some(t) = s.tenant {
            let p = self.bind(Val::Uuid(t));
            self.and(format!("tenant_id = {p}"));
        }
        if let Some(t) = &s.event_type {
            let p = self.bind(Val::Text(t.clone()));
            self.and(format!("event_type = {p}"));
        }
        if !s.event_ids.is_empty() {
            let p = self.bind(Val::Uuids(s.event_ids.clone()));
            self.and(format!("event_id = ANY({p})"));
        }
        if let Some(t) = s.since {
            let p = self.bind(Val::Time(t));
            self.and(format!("published_at >= {p}"));
        }
        if let Some(t) = s.until {
            let p = self.bind(Val::Time(t));
            self.and(format!("published_at < {p}"));
        }
    }

    fn sql(&self) -> String {
        self.conds.join(" AND ")
    }

    async fn fetch(
        self,
        conn: &mut PgConnection,
        sql: &str,
        what: &str,
    ) -> Result<Vec<sqlx::postgres::PgRow>, Error> {
        let mut q = crate::db::pg::query(sql);
        for v in self.vals {
            q = match v {
                Val::Text(t) => q.bind(t),
                Val::Uuid(u) => q.bind(u),
                Val::Uuids(u) => q.bind(u),
                Val::Time(t) => q.bind(t),
                Val::Int(i) => q.bind(i),
            };
        }
        q.fetch_all(conn).await.map_err(|e| Error::pg(what, e))
    }
}

/// Refuses a paged read that has no index to page through (each page would scan the table):
/// what to configure instead. `--event-id` look-ups read the unique index and need none.
async fn require_index(
    conn: &mut PgConnection,
    table: &QualifiedName,
    index: &crate::target::Ident,
    fix: &str,
) -> Result<(), Error> {
    let name = format!("{}.{}", table.schema, index);
    let looking = |e| Error::pg(format!("looking for index {}", index.name()), e);
    let row = crate::db::pg::query("SELECT to_regclass($1)::text AS t, to_regclass($2)::text AS i")
        .bind(table.to_string())
        .bind(name)
        .fetch_one(conn)
        .await
        .map_err(looking)?;
    let has_table: Option<String> = sqlx::Row::try_get(&row, "t").map_err(looking)?;
    let found: Option<String> = sqlx::Row::try_get(&row, "i").map_err(looking)?;
    // a table that is not there is said as every command says it (it read as an index missing,
    // exit 5)
    if has_table.is_none() {
        return Err(Error::SchemaMissing(format!(
            "table {} does not exist; check the relation, or create it with `outboxctl migrate`",
            table.plain()
        )));
    }
    if found.is_none() {
        return Err(Error::Refused(format!(
            "replay pages {} through index {}.{}, which does not exist: {fix}",
            table.plain(),
            table.schema.name(),
            index.name()
        )));
    }
    Ok(())
}

/// The columns a `postgres-table` destination keeps (`templates/postgres/sink.sql`), which
/// replay reads.
const SINK_COLUMNS: [&str; 8] = [
    "event_id",
    "outbox_route",
    "event_type",
    "ordering_key",
    "tenant_id",
    "payload",
    "headers",
    "published_at",
];

/// A replay source that is a `postgres-table` destination's table: one without its columns
/// (the outbox, its delivery log, an application's table) is said as such, exit 2 (the outbox
/// read as a destination lacking its replay index, exit 5, with advice to make it one).
async fn require_sink_columns(conn: &mut PgConnection, table: &QualifiedName) -> Result<(), Error> {
    let has: Vec<String> = crate::db::pg::query_scalar(
        "SELECT attname::text FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped",
    )
    .bind(table.to_string())
    .fetch_all(conn)
    .await
    .map_err(|e| Error::pg(format!("reading the columns of {}", table.plain()), e))?;
    // a table that is not there is said by the index check, as every command says it
    let lacking: Vec<&str> = (SINK_COLUMNS.iter().copied())
        .filter(|c| !has.iter().any(|h| h == c))
        .collect();
    match (has.is_empty(), lacking.is_empty()) {
        (true, _) | (_, true) => Ok(()),
        _ => Err(Error::SchemaMissing(format!(
            "{} is not a postgres-table destination (it has no column {}): check --from",
            table.plain(),
            lacking.join(", ")
        ))),
    }
}

/// One table and route to read, in turn.
#[derive(Debug, Clone)]
pub struct Lane {
    pub tenant: Option<Uuid>,
    pub table: QualifiedName,
    pub route: String,
}

/// Where a lane's reading stands: `(hlc, created_at, id)` of the last row read.
#[derive(Debug, Clone)]
struct RowPos {
    hlc: Option<i64>,
    created_at: DateTime<Utc>,
    id: Uuid,
}

/// The outbox's `published` rows, lane after lane, in claim order.
pub struct PgPublished {
    conn: PgConnection,
    opts: PgStoreOptions,
    lanes: Vec<Lane>,
    lane: usize,
    pos: Option<RowPos>,
    /// With HLC ordering: rows without `hlc` come after every row with one (NULLS LAST).
    null_hlc: bool,
    selection: Selection,
}

impl PgPublished {
    /// Opens the lanes (checking each table has the replay index unless `--event-id` picks
    /// rows: `fix` says how to add it), positioned after `after`.
    pub async fn open(
        mut conn: PgConnection,
        opts: PgStoreOptions,
        lanes: Vec<Lane>,
        selection: Selection,
        fix: &str,
        after: Option<&Cursor>,
    ) -> Result<Self, Error> {
        if selection.event_ids.is_empty() {
            let mut seen: Vec<&QualifiedName> = Vec::new();
            for lane in &lanes {
                if seen.contains(&&lane.table) {
                    continue;
                }
                seen.push(&lane.table);
                let idx = lane.table.name.with_suffix("replay index", "_replay_idx")?;
                let fix = format!("{fix}, or pick events with --event-id");
                require_index(&mut conn, &lane.table, &idx, &fix).await?;
            }
        }
        let mut this = Self {
            conn,
            opts,
            lanes,
            lane: 0,
            pos: None,
            null_hlc: false,
            selection,
        };
        match after {
            None => {}
            Some(Cursor::Row {
                tenant,
                route,
                hlc,
                created_at,
                id,
            }) => {
                let Some(lane) = this
                    .lanes
                    .iter()
                    .position(|l| l.tenant == *tenant && l.route == *route)
                else {
                    return Err(ReplayError::cursor_route(route, *tenant).into());
                };
                this.lane = lane;
                this.null_hlc = this.opts.hlc_ordering && hlc.is_none();
                this.pos = Some(RowPos {
                    hlc: *hlc,
                    created_at: *created_at,
                    id: *id,
                });
            }
            Some(other) => {
                return Err(ReplayError::CursorKind {
                    found: other.source_kind(),
                    expected: "the outbox's published rows",
                }
                .into());
            }
        }
        Ok(this)
    }

    /// The next page of the current lane (empty when the lane is done).
    async fn lane_page(&mut self, limit: u32) -> Result<Vec<Item>, Error> {
        let lane = &self.lanes[self.lane];
        let hlc = self.opts.hlc_ordering;
        let s = &self.selection;
        if self.null_hlc && (s.hlc_from.is_some() || s.hlc_to.is_some()) {
            return Ok(Vec::new());
        }
        let mut w = Where::default();
        let route = w.bind(Val::Text(lane.route.clone()));
        w.and(format!("outbox_route = {route} AND status = 'published'"));
        if let Some(tenant) = lane.tenant {
            // a tenant's table holds only what the relay delivered for that tenant
            let p = w.bind(Val::Uuid(tenant));
            w.and(format!("tenant_id = {p}"));
        }
        let order = if hlc && !self.null_hlc {
            w.and("hlc IS NOT NULL".into());
            if let Some(p) = &self.pos {
                let (h, c, i) = (
                    w.bind(Val::Int(p.hlc.unwrap_or(i64::MIN))),
                    w.bind(Val::Time(p.created_at)),
                    w.bind(Val::Uuid(p.id)),
                );
                w.and(format!("(hlc, created_at, id) > ({h}, {c}, {i})"));
            }
            "hlc, created_at, id"
        } else {
            if hlc {
                w.and("hlc IS NULL".into());
            }
            if let Some(p) = &self.pos {
                let (c, i) = (w.bind(Val::Time(p.created_at)), w.bind(Val::Uuid(p.id)));
                w.and(format!("(created_at, id) > ({c}, {i})"));
            }
            "created_at, id"
        };
        if let Some(h) = s.hlc_from {
            let p = w.bind(Val::Int(h));
            w.and(format!("hlc >= {p}"));
        }
        if let Some(h) = s.hlc_to {
            let p = w.bind(Val::Int(h));
            w.and(format!("hlc <= {p}"));
        }
        w.selection(s);
        if let Some(t) = s.until {
            // delivered before `until` means created before it: the read stops there
            let p = w.bind(Val::Time(t));
            w.and(format!("created_at < {p}"));
        }
        let limit = w.bind(Val::Int(i64::from(limit)));
        let sql = format!(
            "SELECT {}, published_at FROM {} WHERE {} ORDER BY {order} LIMIT {limit}",
            columns(&self.opts, ""),
            lane.table,
            w.sql()
        );
        let what = format!("reading published rows of {}", lane.table.plain());
        let rows = w.fetch(&mut self.conn, &sql, &what).await?;
        let mut page = Vec::with_capacity(rows.len());
        for r in &rows {
            let row = decode_row(r, &self.opts).map_err(|e| Error::pg(what.clone(), e))?;
            let published_at: Option<DateTime<Utc>> = r.get("published_at");
            let message = Message::from_row(&row).map_err(|e| {
                ReplayError::record(
                    format!("row {} of {}", row.id, lane.table.plain()),
                    format!("its payload is not JSON ({e})"),
                )
            })?;
            self.pos = Some(RowPos {
                hlc: row.hlc,
                created_at: row.created_at,
                id: row.id,
            });
            page.push(Item {
                message: Arc::new(message),
                cursor: Cursor::Row {
                    tenant: lane.tenant,
                    route: lane.route.clone(),
                    hlc: row.hlc,
                    created_at: row.created_at,
                    id: row.id,
                },
                published_at,
            });
        }
        Ok(page)
    }
}

impl ReplaySource for PgPublished {
    async fn next_page(&mut self, limit: u32) -> Result<Vec<Item>, Error> {
        while self.lane < self.lanes.len() {
            let page = self.lane_page(limit).await?;
            if !page.is_empty() {
                return Ok(page);
            }
            if self.opts.hlc_ordering && !self.null_hlc {
                // then the rows without an HLC, from the start
                self.null_hlc = true;
                self.pos = None;
                continue;
            }
            self.lane += 1;
            self.pos = None;
            self.null_hlc = false;
        }
        Ok(Vec::new())
    }
}

/// A `postgres-table` destination's rows, route after route, in `(published_at, event_id)`
/// order. The table keeps no outbox row id: messages read from it carry the nil UUID as `id`
/// (only JSON lines show it).
pub struct PgTable {
    conn: PgConnection,
    table: QualifiedName,
    /// The table's [`crate::replay::cursor::table_id`], which its cursors carry.
    source: String,
    routes: Vec<String>,
    route: usize,
    pos: Option<(DateTime<Utc>, Uuid)>,
    selection: Selection,
}

impl PgTable {
    pub async fn open(
        mut conn: PgConnection,
        table: QualifiedName,
        selection: Selection,
        after: Option<&Cursor>,
    ) -> Result<Self, Error> {
        require_sink_columns(&mut conn, &table).await?;
        if selection.event_ids.is_empty() {
            let idx = crate::schema::desired::sink_replay_idx(&table)?;
            require_index(
                &mut conn,
                &table,
                &idx,
                "run outboxctl migrate with the route's postgres-table destination configured (it adds the index), or pick events with --event-id",
            )
            .await?;
        }
        let routes = selection.routes.clone();
        let mut this = Self {
            conn,
            source: crate::replay::cursor::table_id(&table),
            table,
            routes,
            route: 0,
            pos: None,
            selection,
        };
        match after {
            None => {}
            Some(Cursor::Table {
                route,
                published_at,
                event_id,
                ..
            }) => {
                this.route = this
                    .routes
                    .iter()
                    .position(|r| r == route)
                    .ok_or_else(|| ReplayError::cursor_route(route, None))?;
                this.pos = Some((*published_at, *event_id));
            }
            Some(other) => {
                return Err(ReplayError::CursorKind {
                    found: other.source_kind(),
                    expected: "a postgres-table destination",
                }
                .into());
            }
        }
        Ok(this)
    }

    async fn route_page(&mut self, limit: u32) -> Result<Vec<Item>, Error> {
        let route = self.routes[self.route].clone();
        let s = &self.selection;
        let mut w = Where::default();
        let r = w.bind(Val::Text(route.clone()));
        w.and(format!("outbox_route = {r}"));
        if let Some((at, id)) = self.pos {
            let (a, i) = (w.bind(Val::Time(at)), w.bind(Val::Uuid(id)));
            w.and(format!("(published_at, event_id) > ({a}, {i})"));
        }
        // the HLC header is fixed-width text: its order is the HLC's
        let enc = |h: i64| {
            crate::hlc::HlcTimestamp::unpack(h)
                .map(|t| t.encode())
                .map_err(|e| ReplayError::record("--hlc-from/--hlc-to", e))
        };
        if let Some(h) = s.hlc_from {
            let p = w.bind(Val::Text(enc(h)?));
            w.and(format!("headers->>'forze_hlc' >= {p}"));
        }
        if let Some(h) = s.hlc_to {
            let p = w.bind(Val::Text(enc(h)?));
            w.and(format!("headers->>'forze_hlc' <= {p}"));
        }
        w.selection(s);
        let limit = w.bind(Val::Int(i64::from(limit)));
        let sql = format!(
            "SELECT event_id, outbox_route, event_type, ordering_key, tenant_id, payload::text AS payload, headers::text AS headers, published_at
  FROM {} WHERE {} ORDER BY published_at, event_id LIMIT {limit}",
            self.table,
            w.sql()
        );
        let what = format!("reading {}", self.table.plain());
        let rows = w.fetch(&mut self.conn, &sql, &what).await?;
        let mut page = Vec::with_capacity(rows.len());
        for r in &rows {
            let event_id: Uuid = r.get("event_id");
            let published_at: DateTime<Utc> = r.get("published_at");
            let message = self.message(r).map_err(|e| {
                ReplayError::record(format!("event {event_id} in {}", self.table.plain()), e)
            })?;
            self.pos = Some((published_at, event_id));
            page.push(Item {
                message: Arc::new(message),
                cursor: Cursor::Table {
                    source: Some(self.source.clone()),
                    route: route.clone(),
                    published_at,
                    event_id,
                },
                published_at: Some(published_at),
            });
        }
        Ok(page)
    }

    /// The message as the relay delivered it into the table (JSONB reorders header keys; the
    /// relay's order is restored).
    fn message(&self, r: &sqlx::postgres::PgRow) -> Result<Message, ReplayError> {
        let event_id: Uuid = r.get("event_id");
        let ordering_key: Option<String> = r.get("ordering_key");
        let payload: String = r.get("payload");
        let headers: String = r.get("headers");
        let pairs: crate::replay::file::Pairs = serde_json::from_str(&headers)
            .map_err(|e| ReplayError::Value(format!("headers: {e}")))?;
        Ok(Message {
            id: Uuid::nil(),
            event_id,
            route: r.get("outbox_route"),
            event_type: r.get("event_type"),
            key: broker_key(ordering_key.as_deref(), event_id),
            ordering_key,
            tenant_id: r.get("tenant_id"),
            payload: serde_json::value::RawValue::from_string(crate::model::compact_json(&payload))
                .map_err(|e| ReplayError::Value(format!("payload: {e}")))?,
            headers: ordered_headers(pairs.0)?,
        })
    }
}

impl ReplaySource for PgTable {
    async fn next_page(&mut self, limit: u32) -> Result<Vec<Item>, Error> {
        while self.route < self.routes.len() {
            let page = self.route_page(limit).await?;
            if !page.is_empty() {
                return Ok(page);
            }
            self.route += 1;
            self.pos = None;
        }
        Ok(Vec::new())
    }
}
