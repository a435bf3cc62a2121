//! `doctor`'s checks: the things the specification warns about, each ok / warn / fail, in one
//! [`DoctorReport`]. The drain timeout, each route's destination (checked as the relay does at
//! start, changing nothing), transactions and a pooler, then per outbox table its claim index
//! and the claim's plan, stale, failed and old pending rows, the HLC mark, vacuum and the
//! delivery log's partitions; then the HLC checkpoint's key and what holds the xmin horizon
//! ([`xmin`]). The command prints the report; nothing here does.

mod checkpoint;
mod claim_function;
mod destinations;
pub mod fleet;
mod mongo;
mod schema;
pub mod xmin;

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::config::Config;
use crate::duration::Dur;
use crate::hlc::MAX_DRIFT_MS;
use crate::schema::desired::{CLAIM_INDEX_COLUMNS, HLC_CLAIM_ORDER};
use crate::schema::partitions;
use crate::store::backend::{self, Backend, PgTarget};
use crate::store::ops::OpsStore;
use crate::store::postgres::PgStoreOptions;
use crate::{Error, db};

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Ok,
    Warn,
    Fail,
}

impl Level {
    /// The level as doctor's lines start: `ok  `, `warn`, `FAIL`.
    pub fn tag(self) -> &'static str {
        match self {
            Level::Ok => "ok  ",
            Level::Warn => "warn",
            Level::Fail => "FAIL",
        }
    }
}

/// One check's outcome.
#[derive(Debug, Serialize)]
pub struct Check {
    #[serde(rename = "check")]
    pub name: &'static str,
    pub level: Level,
    pub detail: String,
    /// What holds the xmin horizon, on that check's warn and fail lines (absent elsewhere).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holder: Option<xmin::Holder>,
}

/// Every check, in the order they ran.
#[derive(Debug, Default, Serialize)]
pub struct DoctorReport {
    pub checks: Vec<Check>,
}

impl DoctorReport {
    /// Whether any check failed.
    pub fn failed(&self) -> bool {
        self.checks.iter().any(|c| c.level == Level::Fail)
    }

    /// A failed check naming the checks that failed (each printed already).
    pub fn verdict(&self) -> Result<(), Error> {
        let failing: Vec<&str> = (self.checks.iter())
            .filter(|c| c.level == Level::Fail)
            .map(|c| c.name)
            .collect();
        if failing.is_empty() {
            return Ok(());
        }
        Err(Error::CheckFailed(format!(
            "doctor: {} check(s) failed: {}",
            failing.len(),
            failing.join(", ")
        )))
    }

    /// The longest check's name: the width of the name column, so that the details line up.
    pub fn name_width(&self) -> usize {
        self.checks.iter().map(|c| c.name.len()).max().unwrap_or(0)
    }

    fn add(&mut self, name: &'static str, level: Level, detail: impl Into<String>) {
        self.checks.push(Check {
            name,
            level,
            detail: detail.into(),
            holder: None,
        });
    }

    /// An index check: ok saying `there` when the index is there, else a fail saying `missing`.
    fn index(&mut self, name: &'static str, found: bool, there: String, missing: String) {
        if found {
            self.add(name, Level::Ok, there);
        } else {
            self.add(name, Level::Fail, missing);
        }
    }
}

/// What the checks need besides the configuration.
#[derive(Debug, Clone, Copy)]
pub struct DoctorOptions {
    /// The oldest pending row may be this old before its check fails.
    pub max_pending_age: Duration,
    /// How long to wait for the database to answer a connection.
    pub connect_timeout: Duration,
    /// What may hold the xmin horizon before it warns (past 12 times: fails).
    pub xmin: xmin::XminLimits,
}

/// Runs every check for the configured outbox. An error means doctor could not run (no
/// connection, a statement failed), not that a check failed.
pub async fn run(config: &Config, options: DoctorOptions) -> Result<DoctorReport, Error> {
    let mut report = DoctorReport::default();
    let pg = match Backend::of(config, options.connect_timeout) {
        Backend::Postgres(pg) => pg,
        Backend::Mongo(mongo) => {
            drain_check(config, &mut report);
            destinations::checks(config, &mut report).await;
            mongo::mongo_checks(&mongo, options, &mut report).await?;
            fleet::checks(config, options.connect_timeout, &mut report).await;
            return Ok(report);
        }
        // nothing to check on a store in memory
        Backend::Memory(_) => {
            drain_check(config, &mut report);
            destinations::checks(config, &mut report).await;
            return Ok(report);
        }
    };
    let now = Utc::now();
    let targets = pg.targets(None)?;
    let mut conn = pg.connect().await?;
    let url = config.require_url()?;
    drain_check(config, &mut report);
    destinations::checks(config, &mut report).await;
    // pgbouncer in statement pooling refuses every transaction (and closes the connection).
    match db::pg::check_transactions(&mut conn).await {
        Err(db::DbError::Postgres { source, .. }) if db::pg::is_statement_pooling(&source) => {
            report.add("transactions", Level::Fail, db::pg::STATEMENT_POOLING);
            return Ok(report);
        }
        Err(e) => return Err(e.into()),
        Ok(()) => report.add("transactions", Level::Ok, "transactions span statements"),
    }
    let none = || "no pooler seen (the server listens on the port dialled)".into();
    let seen: String = pooler(&mut conn, url).await.unwrap_or_else(none);
    report.add("pooler", Level::Ok, seen);
    schema::check(config, options.connect_timeout, &mut report).await;
    let mut tables: Vec<crate::vacuum::TableHealth> = Vec::new();
    for (i, t) in targets.iter().enumerate() {
        // a table or log tenants share is checked once, the node's HLC mark once; the rows
        // tenant by tenant
        let seen = Seen {
            table: targets[..i].iter().any(|o| o.table == t.table),
            log: targets[..i].iter().any(|o| o.log == t.log),
            mark: i > 0,
        };
        let health = pg_table_checks(&pg, options, &mut conn, t, seen, now, &mut report).await?;
        if let Some(h) = health.filter(|h| tables.iter().all(|t| t.table != h.table)) {
            tables.push(h);
        }
    }
    if let Some(cp) = pg.hlc_checkpoint {
        checkpoint::key_check(&mut conn, cp, &mut report).await?;
    }
    use crate::store::postgres::diagnostics;
    match diagnostics::xmin_holders(&mut conn).await {
        Ok(holders) => {
            report
                .checks
                .extend(xmin::assess(&holders, options.xmin, &tables, Utc::now()))
        }
        Err(e) => report.add(
            xmin::CHECK,
            Level::Warn,
            format!(
                "cannot read what holds the xmin horizon: {}",
                db::pg_message(&e)
            ),
        ),
    }
    fleet::checks(config, options.connect_timeout, &mut report).await;
    Ok(report)
}

/// One PostgreSQL outbox table: claim index and plan, rows, vacuum, the delivery log. Returns
/// the table's statistics when they could be read.
async fn pg_table_checks(
    pg: &backend::Postgres<'_>,
    options: DoctorOptions,
    conn: &mut sqlx::PgConnection,
    t: &PgTarget,
    seen: Seen,
    now: DateTime<Utc>,
    report: &mut DoctorReport,
) -> Result<Option<crate::vacuum::TableHealth>, Error> {
    let config = pg.config;
    let name = t.table.plain();
    let rows_of = of_tenant(&name, t.tenant.filter(|_| config.outbox.tenant_aware));
    // a table another session holds locked: said, not waited for (doctor hung behind it,
    // preparing the pass's writes behind a lock that lets reads through)
    for access in [diagnostics::Access::Read, diagnostics::Access::Write] {
        let wait = diagnostics::READ_LOCK_WAIT;
        let blocked = diagnostics::blocked_by(conn, &t.table, access, wait).await;
        if let Some(who) = blocked.map_err(|e| Error::pg(format!("reading {name}"), e))? {
            let against = access.against();
            let why = format!(
                "{name} is locked against {against} by {who}: every claim waits behind it; end that transaction, then run doctor again"
            );
            report.add("outbox table", Level::Fail, why);
            return Ok(None);
        }
    }
    let facts = crate::schema::postgres::table_facts(conn, &t.table)
        .await
        .map_err(|e| Error::pg(format!("reading {name}"), e))?;
    let Some(facts) = facts else {
        if !seen.table {
            report.add(
                "outbox table",
                Level::Fail,
                format!("{name} does not exist; run outboxctl migrate"),
            );
        }
        return Ok(None);
    };
    if seen.table {
        // its indexes, claim plan, functions and health were checked with the first tenant
        let mut ops = pg.open(conn, t).await?;
        let limit = options.max_pending_age;
        let rows = row_checks(&mut ops, &rows_of, t.tenant, limit, !seen.mark, report).await;
        rows_unread(rows, &rows_of, report);
        if let Some(log) = t.log.as_ref().filter(|_| !seen.log) {
            delivery_log_checks(config, conn, log, now, report).await?;
        }
        return Ok(None);
    }
    let valid = |def: &str| facts.indexes.iter().any(|i| i.using == def && i.valid);
    let claim_def = claim_index_def();
    let fix = schema::claim_index_fix(&facts, &t.table, &claim_def);
    report.index(
        "claim index",
        valid(&claim_def),
        format!("{name} has a valid index USING {claim_def}"),
        format!("{name} has no valid claim index: every claim reads the table; {fix}"),
    );
    // staging (forze's, emit's) skips a duplicate event by ON CONFLICT (outbox_route, event_id)
    use crate::store::postgres::diagnostics::is_event_key;
    report.index(
        "event key",
        facts.indexes.iter().any(is_event_key),
        format!("{name} has its UNIQUE (outbox_route, event_id)"),
        format!(
            "{name} has no UNIQUE (outbox_route, event_id): staging's ON CONFLICT fails on every event; add it back as the specification has it"
        ),
    );
    if config.outbox.hlc_ordering {
        // the HLC claim reads its fresh rows in this order: without the index each claim
        // sorts every fresh pending row of the route
        let hlc_def = format!("btree ({})", HLC_CLAIM_ORDER.join(", "));
        report.index(
            "hlc claim index",
            valid(&hlc_def),
            format!("{name} has a valid index USING {hlc_def}"),
            format!(
                "{name} has no valid HLC claim index (USING {hlc_def}): every claim sorts the route's pending rows; run outboxctl migrate --hlc-ordering"
            ),
        );
    }
    // every statement of the relay's pass, as this configuration's relay sends it, prepares on
    // the table: a column it needs and the table lacks fails every pass
    let reclaim = config.relay.reclaim_stale_after.is_some();
    let full = pg.store_options();
    let log = t.log.as_ref().filter(|_| full.delivery_log.is_some());
    use crate::store::postgres::diagnostics::unpreparable;
    let prepared = unpreparable(&mut *conn, &t.table, log, &full, reclaim).await;
    match prepared
        .map_err(|e| Error::pg(format!("preparing the relay's statements on {name}"), e))?
    {
        Some((step, why)) => {
            let fix = crate::schema::desired::consume_only_hint(&why)
                .unwrap_or_else(|| "run outboxctl migrate with this configuration".into());
            let detail = format!("the relay's {step} fails on {name}: {why}; {fix}");
            report.add("pass statements", Level::Fail, detail)
        }
        None => report.add(
            "pass statements",
            Level::Ok,
            format!("the relay's statements prepare on {name}"),
        ),
    }
    // the plan of the claim alone: no delivery log, no traceparent column needed (the table
    // the plan reads is `t.table`; the relation as configured, not its name re-parsed, which
    // loses a quoted name's quotes)
    let opts = PgStoreOptions {
        propagate_trace: false,
        delivery_log: None,
        ..pg.store_options()
    };
    let mut ops = pg.open(conn, t).await?;
    // a table that is not an outbox lists none (the schema check said why)
    let routes = ops.routes().await.unwrap_or_default();
    let probe_route = routes
        .first()
        .cloned()
        .unwrap_or_else(|| "outboxctl-doctor".into());
    let tenant_param = config.outbox.tenant_aware.then_some(t.tenant).flatten();
    use crate::store::postgres::diagnostics;
    let plan = diagnostics::claim_plan(
        &mut *ops.conn,
        &t.table,
        &opts,
        &probe_route,
        tenant_param,
        now,
    );
    match plan.await {
        Ok(diagnostics::ClaimPlan {
            seq_scans: n,
            estimated_rows: rows,
        }) => {
            if n > 0 && rows < 10_000.0 {
                report.add(
                    "claim plan",
                    Level::Ok,
                    format!(
                        "{name} is small (~{rows:.0} rows): the planner reads it whole; that changes as it grows"
                    ),
                );
            } else if n == 0 {
                report.add(
                    "claim plan",
                    Level::Ok,
                    format!("the claim on {name} reads through indexes"),
                );
            } else {
                report.add(
                    "claim plan",
                    Level::Fail,
                    format!("the claim on {name} plans {n} sequential scan(s)"),
                );
            }
        }
        Err(e) => report.add(
            "claim plan",
            Level::Fail,
            format!("cannot plan the claim on {name}: {}", db::pg_message(&e)),
        ),
    }
    claim_function::check(pg, &mut *ops.conn, report).await;
    let limit = options.max_pending_age;
    let rows = row_checks(&mut ops, &rows_of, t.tenant, limit, !seen.mark, report).await;
    rows_unread(rows, &rows_of, report);
    let health = match diagnostics::table_health(conn, &t.table).await {
        Ok(health) => {
            for f in crate::vacuum::assess(&health, now) {
                let level = match f.severity {
                    crate::vacuum::Severity::Ok => Level::Ok,
                    crate::vacuum::Severity::Warn => Level::Warn,
                };
                report.add(f.check, level, f.detail);
            }
            Some(health)
        }
        Err(e) => {
            report.add(
                "queue table",
                Level::Warn,
                format!("cannot read {name}'s statistics: {}", db::pg_message(&e)),
            );
            None
        }
    };
    if let Some(log) = t.log.as_ref().filter(|_| !seen.log) {
        delivery_log_checks(config, conn, log, now, report).await?;
    }
    Ok(health)
}

/// What a target shares with the targets checked before it: its table (tenants of one
/// table), its delivery log, and the node's HLC mark (every target after the first).
#[derive(Debug, Clone, Copy)]
struct Seen {
    table: bool,
    log: bool,
    mark: bool,
}

/// What follows `USING` in `pg_get_indexdef` for the claim index.
fn claim_index_def() -> String {
    format!("btree ({})", CLAIM_INDEX_COLUMNS.join(", "))
}

/// The delivery log's partitions: the default one empty, days ahead attached, no gaps.
async fn delivery_log_checks(
    config: &Config,
    conn: &mut sqlx::PgConnection,
    log: &crate::target::QualifiedName,
    now: DateTime<Utc>,
    report: &mut DoctorReport,
) -> Result<(), Error> {
    use crate::store::postgres::partitions as stored;
    let reads = crate::ops::partitions::lock_policy(config, None, None);
    // a lock that stays busy is the check's finding (it stopped doctor, or held it)
    let (facts, rows) = match stored::read_counted(conn, log, reads).await {
        Ok(read) => read,
        Err(e) => {
            report.add("delivery log", Level::Fail, e.to_string());
            return Ok(());
        }
    };
    // a delivery looked up by event id (replay, an operator's query) reads every day without it
    let indexed = crate::schema::postgres::table_facts(conn, log)
        .await
        .map_err(|e| Error::pg(format!("reading {}", log.plain()), e))?
        .is_some_and(|t| t.has_log_event_index());
    if !indexed {
        report.add(
            "log event index",
            Level::Warn,
            format!(
                "{} has no valid index on (event_id): a delivery looked up by event id reads every day; run outboxctl migrate",
                log.plain()
            ),
        );
    }
    let findings = partitions::check(
        now.date_naive(),
        config.partitions.ahead_days,
        &facts.bounds(),
        rows,
        &facts.unattached_names(),
    );
    if findings.is_empty() {
        report.add(
            "delivery log",
            Level::Ok,
            format!(
                "{}: default partition empty, days ahead attached, no gaps",
                log.plain()
            ),
        );
    }
    for f in findings {
        let level = match f {
            partitions::Finding::FewDaysAhead { attached, .. } if attached > 0 => Level::Warn,
            partitions::Finding::Gap { .. } => Level::Warn,
            _ => Level::Fail,
        };
        report.add("delivery log", level, format!("{}: {f}", log.plain()));
    }
    Ok(())
}

/// What the rows' checks call a table (or collection) whose rows they count for one tenant:
/// `app.outbox (tenant …)`.
fn of_tenant(name: &str, tenant: Option<uuid::Uuid>) -> String {
    match tenant {
        Some(t) => format!("{name} (tenant {t})"),
        None => name.to_owned(),
    }
}

/// The row checks that could not run (a table that does not fit, a log not made yet): a
/// failed line saying why, and doctor goes on.
fn rows_unread(read: Result<(), Error>, name: &str, report: &mut DoctorReport) {
    if let Err(e) = read {
        let why = crate::text::one_line(&e);
        report.add(
            "rows",
            Level::Fail,
            format!("cannot read {name}'s rows: {why}"),
        );
    }
}

/// The checks that read rows: stale processing, failed, oldest pending, the HLC mark.
async fn row_checks<O: OpsStore>(
    ops: &mut O,
    name: &str,
    tenant: Option<uuid::Uuid>,
    max_pending_age: Duration,
    mark: bool,
    report: &mut DoctorReport,
) -> Result<(), Error> {
    let now = Utc::now();
    let routes = ops.routes().await?;
    let mut stale = 0;
    // with reclaim off (`reclaim_stale_after: null`) nothing is stale: every processing row
    let mut processing = 0;
    let mut reclaim_off = false;
    let mut failed = 0;
    let mut oldest: Option<DateTime<Utc>> = None;
    for route in &routes {
        let s = ops.summary(route, tenant, now).await?;
        reclaim_off |= s.processing_stale.is_none();
        stale += s.processing_stale.unwrap_or(0);
        processing += s.processing;
        failed += s.failed;
        oldest = match (oldest, s.oldest_pending) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
    let (stuck, detail) = if reclaim_off {
        (
            processing,
            format!(
                "{processing} processing row(s) in {name}, and reclaim is off (reclaim_stale_after: null): a row a relay died on stays processing until an operator acts"
            ),
        )
    } else {
        (
            stale,
            format!("{stale} processing row(s) older than reclaim_stale_after in {name}"),
        )
    };
    report.add(
        "stale processing",
        if stuck > 0 { Level::Warn } else { Level::Ok },
        detail,
    );
    let hint = if failed > 0 {
        ": see outboxctl inspect failed"
    } else {
        ""
    };
    report.add(
        "failed rows",
        if failed > 0 { Level::Warn } else { Level::Ok },
        format!("{failed} failed row(s) in {name}{hint}"),
    );
    match oldest {
        Some(o) if (now - o).to_std().unwrap_or_default() > max_pending_age => report.add(
            "oldest pending",
            Level::Fail,
            format!(
                "the oldest pending row of {name} is {} old (limit {}): is a relay serving its route, its destination up? see outboxctl inspect and the playbook's \"A route or a key is stuck\"",
                crate::duration::age(now - o),
                Dur(max_pending_age)
            ),
        ),
        Some(o) => report.add(
            "oldest pending",
            Level::Ok,
            format!(
                "the oldest pending row of {name} is {} old",
                crate::duration::age(now - o)
            ),
        ),
        None => report.add(
            "oldest pending",
            Level::Ok,
            format!("nothing pending in {name}"),
        ),
    }
    // the HLC mark is the node's, not the table's or tenant's: checked once (`mark`)
    let checkpoints = match (mark, ops.checkpoints().await) {
        (false, _) => None,
        // a checkpoint table missing is a finding, as a missing outbox or log is
        (true, Err(Error::SchemaMissing(why))) => {
            report.add("hlc mark", Level::Fail, why);
            None
        }
        // a mark that cannot be read (MongoDB: not a 64-bit integer) stops every stamp
        (true, Err(Error::Data { what, .. })) => {
            report.add("hlc mark", Level::Fail, what);
            None
        }
        (true, read) => read?,
    };
    if let Some(cps) = checkpoints {
        match cps.iter().max_by_key(|c| c.hlc) {
            Some(m) if (m.physical - now).num_milliseconds() > MAX_DRIFT_MS as i64 => report.add(
                "hlc mark",
                Level::Fail,
                format!(
                    "the HLC mark of node {} is {} ahead of the wall clock: every new stamp carries it; check that node's clock (outboxctl hlc show)",
                    m.node_key,
                    crate::duration::age(m.physical - now)
                ),
            ),
            // ahead within the drift allowed, or not ahead: said as it is (it said "not ahead"
            // of a mark minutes ahead, which hlc show gave)
            Some(m) if m.physical > now => report.add(
                "hlc mark",
                Level::Ok,
                format!(
                    "the HLC mark is {} ahead of the wall clock, within the {} allowed",
                    crate::duration::age(m.physical - now),
                    crate::duration::age(chrono::Duration::milliseconds(MAX_DRIFT_MS as i64))
                ),
            ),
            Some(_) => report.add(
                "hlc mark",
                Level::Ok,
                "the HLC mark is not ahead of the wall clock",
            ),
            None => report.add("hlc mark", Level::Ok, "no HLC mark yet"),
        }
    }
    Ok(())
}

/// "Behind a pooler" where it can be told: the server listens on another port than the one
/// dialled (pgbouncer's 6432 in front of 5432). Session and transaction pooling both work.
async fn pooler(conn: &mut sqlx::PgConnection, url: &crate::dburl::DatabaseUrl) -> Option<String> {
    let dialled = db::pg::dialled_port(url)?;
    let server = db::pg::server_port_and_pid(conn).await.ok()?.0?;
    (i32::from(dialled) != server).then(|| {
        format!(
            "behind a pooler: port {dialled} dialled, the server listens on {server}; transaction and session pooling work (statement pooling cannot run outboxctl)"
        )
    })
}

/// `shutdown_drain_timeout ≥ 5 × pass_statement_timeout`, so the drain's last pass commits (the
/// configuration's own rule: without a drain there is nothing to check).
fn drain_check(config: &Config, report: &mut DoctorReport) {
    let r = &config.relay;
    if !r.drain_on_shutdown {
        report.add(
            "drain timeout",
            Level::Ok,
            "drain_on_shutdown is off: a stopped relay leaves its claims to reclaim",
        );
    } else if r.shutdown_drain_timeout >= r.pass_statement_timeout * 5 {
        report.add(
            "drain timeout",
            Level::Ok,
            format!(
                "shutdown_drain_timeout {} ≥ 5 × pass_statement_timeout {}",
                Dur(r.shutdown_drain_timeout),
                Dur(r.pass_statement_timeout)
            ),
        );
    } else {
        report.add(
            "drain timeout",
            Level::Fail,
            "shutdown_drain_timeout is under 5 × pass_statement_timeout: the drain's last pass may be cut and rolled back",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_claim_index_doctor_looks_for_is_the_one_migrate_creates() {
        assert_eq!(
            claim_index_def(),
            "btree (outbox_route, status, available_at, created_at)"
        );
        let mongo = crate::schema::render::mongo_outbox_indexes();
        assert!(mongo.iter().any(|spec| {
            spec.keys
                .iter()
                .map(|(k, _)| k.as_str())
                .eq(CLAIM_INDEX_COLUMNS.iter().copied())
        }));
    }

    #[test]
    fn a_report_fails_when_one_check_fails() {
        let mut report = DoctorReport::default();
        report.add("drain timeout", Level::Ok, "fine");
        report.add("failed rows", Level::Warn, "2 failed row(s)");
        assert!(!report.failed());
        report.add("claim index", Level::Fail, "none");
        assert!(report.failed());
        assert_eq!(
            serde_json::to_value(&report.checks[2]).unwrap(),
            serde_json::json!({ "check": "claim index", "level": "fail", "detail": "none" })
        );
    }
}
