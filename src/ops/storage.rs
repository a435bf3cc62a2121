//! The move from retain to consume storage (`outboxctl storage`), on PostgreSQL: where each
//! outbox table stands, which step comes next and what blocks it, step 2's wait and step 3's
//! drop of `processing_at` and `published_at` under a lock, retried while the lock is busy.
//! The command confirms, shows progress and prints; nothing here talks to a terminal.
//!
//! 1. Deploy relays with `storage: consume`, keeping reclaim on (cannot be observed: confirm).
//! 2. Wait until no `processing` row is left and the retention job has removed published rows.
//! 3. With reclaim off, drop `processing_at`, `published_at` and the indexes on them, in one
//!    transaction that first locks the table and re-checks step 2 (under a statement timeout,
//!    so the lock is never held long), so no row slips in between.
//!
//! With a per-tenant relation (`{tenant}`) every configured tenant's table is checked and
//! reported, and a step is taken only when every table allows it.

use std::time::{Duration, Instant};

use serde::Serialize;
use sqlx::PgConnection;

use crate::Error;
use crate::config::Config;
use crate::db::retry::{self, LockRetryError};
use crate::duration::Dur;
use crate::store::backend::Backend;
use crate::store::postgres::consume_move;
pub use crate::store::postgres::consume_move::DropColumns;
use crate::target::QualifiedName;
pub use report::{Dropped, StepReport, step_1_asks};

mod report;

/// Published rows are counted up to this many (an exact count of millions is not needed).
pub const PUBLISHED_CAP: i64 = 100_000;

/// Where one outbox table stands in the move.
#[derive(Debug, Serialize)]
pub struct StorageStatus {
    pub table: String,
    /// The tenant whose table this is (per-tenant relations).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tenant: Option<uuid::Uuid>,
    pub configured_storage: String,
    pub has_processing_at: bool,
    pub has_published_at: bool,
    pub processing: i64,
    /// Capped at 100,000 (`published_capped` says when it was reached).
    pub published: i64,
    pub published_capped: bool,
    pub reclaim_on: bool,
    /// Indexes that use processing_at or published_at (step 3 drops them with the columns).
    pub indexes_on_dropped_columns: Vec<String>,
    /// What else depends on them (a view, a policy, a trigger, a function): step 3 is blocked
    /// until they are dropped or changed.
    pub depending_on_dropped_columns: Vec<String>,
    pub next_step: Option<u8>,
    pub blockers: Vec<String>,
    /// A consume-only table, and this configuration says retain or has reclaim on: its relays'
    /// passes fail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mismatch: Option<&'static str>,
}

/// [`StorageStatus::mismatch`]'s words.
const MISMATCH: &str = "this configuration (storage: retain, or reclaim on) cannot run on a consume-only table, its relays' passes fail: set outbox.storage: consume and relay.reclaim_stale_after: null";

/// The status as people read it: a line per fact, the next step, and what blocks it.
impl std::fmt::Display for StorageStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let yn = |b: bool| if b { "present" } else { "dropped" };
        let capped = if self.published_capped { "+" } else { "" };
        let reclaim = if self.reclaim_on { "on" } else { "off" };
        let mut lines = vec![format!("table:            {}", self.table)];
        lines.extend(self.tenant.map(|t| format!("tenant:           {t}")));
        lines.extend([
            format!("configured:       storage: {}", self.configured_storage),
            format!("processing_at:    {}", yn(self.has_processing_at)),
            format!("published_at:     {}", yn(self.has_published_at)),
            format!("processing rows:  {}", self.processing),
            format!("published rows:   {}{capped}", self.published),
            format!("reclaim (config): {reclaim}"),
        ]);
        if !self.indexes_on_dropped_columns.is_empty() {
            let indexes = self.indexes_on_dropped_columns.join(", ");
            lines.push(format!("indexes on them:  {indexes}"));
        }
        if !self.depending_on_dropped_columns.is_empty() {
            let others = self.depending_on_dropped_columns.join(", ");
            lines.push(format!("depend on them:   {others}"));
        }
        lines.push(match self.next_step {
            None => "next step:        none: the table is consume-only".into(),
            Some(2) => "next step:        2 (after step 1: relays on storage: consume with reclaim on) — wait for the table to empty of processing and published rows".into(),
            Some(n) => {
                let present = [
                    (self.has_processing_at, "processing_at"),
                    (self.has_published_at, "published_at"),
                ];
                let columns: Vec<&str> = (present.iter().filter(|(has, _)| *has))
                    .map(|(_, c)| *c)
                    .collect();
                format!("next step:        {n} — drop {}", columns.join(" and "))
            }
        });
        lines.extend(self.mismatch.map(|m| format!("mismatch:         {m}")));
        lines.extend(
            self.blockers
                .iter()
                .map(|b| format!("blocked:          {b}")),
        );
        f.write_str(&lines.join("\n"))
    }
}

/// One outbox table: the tenant it serves (per-tenant relations) and its name.
pub type Table = (Option<uuid::Uuid>, QualifiedName);

/// The move on the configured outbox: its tables (one per tenant for a per-tenant relation)
/// and a connection to their database.
pub struct StorageMove<'a> {
    config: &'a Config,
    connect_timeout: Duration,
    conn: PgConnection,
    pub tables: Vec<Table>,
}

impl<'a> StorageMove<'a> {
    /// Resolves the outbox tables, then connects within `connect_timeout`.
    pub async fn open(config: &'a Config, connect_timeout: Duration) -> Result<Self, Error> {
        let backend = Backend::of(config, connect_timeout);
        let pg = backend.postgres()?;
        let mut tables: Vec<Table> = Vec::new();
        for t in pg.targets(None)? {
            match tables.iter_mut().find(|(_, name)| *name == t.table) {
                // one table that several tenants share: moved once, for them all
                Some(shared) => shared.0 = None,
                None => tables.push((t.tenant, t.table)),
            }
        }
        if tables.is_empty() {
            return Err(Error::NotConfigured("no outbox configured"));
        }
        let conn = pg.connect().await?;
        Ok(StorageMove {
            config,
            connect_timeout,
            conn,
            tables,
        })
    }

    /// Step 1's warning when the consume claim's function that this configuration's relays
    /// would call is not in the database as outboxctl writes it: `migrate` with this
    /// configuration adds it, and without it every consume pass parses and plans its claim.
    /// `None` under retain (said apart), with `prepared_statements`, or for a table per tenant.
    pub async fn missing_consume_function(&mut self) -> Result<Option<String>, Error> {
        use crate::store::postgres::diagnostics::{FunctionState, function_state};
        use crate::store::postgres::sql::{calls_functions, claim_function};
        if self.config.outbox.storage != crate::model::Storage::Consume {
            return Ok(None);
        }
        let backend = Backend::of(self.config, self.connect_timeout);
        let opts = backend.postgres()?.store_options();
        let Some(f) = claim_function(&opts).filter(|_| calls_functions(&opts)) else {
            return Ok(None);
        };
        let state = (function_state(&mut self.conn, &f).await)
            .map_err(|e| Error::pg("reading the catalog", e))?;
        Ok((!matches!(state, FunctionState::Trusted { .. })).then(|| {
            format!(
                "the consume claim's function {} is not there as outboxctl writes it: run outboxctl migrate with this configuration before the consume relays start (without it each of their passes parses and plans its claim)",
                f.name.plain()
            )
        }))
    }

    /// Every table's status; `reclaim_disabled`: the operator says every relay runs with
    /// reclaim off.
    pub async fn statuses(&mut self, reclaim_disabled: bool) -> Result<Vec<StorageStatus>, Error> {
        statuses(self.config, &mut self.conn, &self.tables, reclaim_disabled).await
    }

    /// Step 2: waits up to `wait` (none: looks once) for every table to hold no processing and
    /// no published row, starting from `all` and reading again every second; `progress` hears
    /// the totals (processing, published) before each wait.
    pub async fn wait_until_empty(
        &mut self,
        reclaim_disabled: bool,
        mut all: Vec<StorageStatus>,
        wait: Option<Duration>,
        mut progress: impl FnMut(i64, i64),
    ) -> Result<WaitOutcome, Error> {
        let deadline = wait.map(|w| Instant::now() + w);
        loop {
            let (processing, published) = all
                .iter()
                .fold((0, 0), |(a, b), s| (a + s.processing, b + s.published));
            if processing == 0 && published == 0 {
                return Ok(WaitOutcome::Done);
            }
            match deadline {
                Some(d) if Instant::now() < d => {
                    progress(processing, published);
                    tokio::time::sleep(Duration::from_secs(1).min(d - Instant::now())).await;
                    all = self.statuses(reclaim_disabled).await?;
                }
                _ => return Ok(WaitOutcome::NotDone(all)),
            }
        }
    }

    /// Step 3's plan from every table's status (`all` in the order of the tables).
    /// With it, what the relay registry (when there is one) says of outboxctl's relays live on
    /// the outbox: the move cannot tell what storage each runs with, so it names them.
    pub async fn drop_plan(&self, all: &[StorageStatus]) -> DropPlan {
        let mut plan = drop_plan(&self.tables, all);
        let relays = crate::ops::fleet::relays(self.config, self.connect_timeout).await;
        let live: Vec<String> = (relays.unwrap_or_default().iter())
            .filter(|r| r.state == crate::fleet::RelayState::Live)
            .map(|r| {
                format!(
                    "{} pid {} (started {})",
                    r.host,
                    r.pid,
                    r.started_at.format("%Y-%m-%d %H:%M:%S UTC")
                )
            })
            .collect();
        if !live.is_empty() && !plan.drops.is_empty() {
            plan.warnings.push(format!(
                "{} outboxctl relay(s) are live on this outbox: {}; each must run with storage: consume and reclaim off (a relay started before that change still runs the old configuration, and its every pass fails once processing_at is gone)",
                live.len(),
                live.join(", ")
            ));
        }
        plan
    }

    /// Step 3 on each table of `plan`, one after the other (each: lock it, re-check under the
    /// lock, bounded by the check timeout, drop; retried while the lock stays busy); `each`
    /// hears of every table done. When a table stops it (refused, its lock busy, its re-check
    /// slow, a statement failing), the error says which tables were done already and that
    /// running step 3 again finishes the rest.
    pub async fn drop_all(
        &mut self,
        plan: &DropPlan,
        options: DropOptions,
        mut each: impl FnMut(&DropColumns),
    ) -> Result<(), Error> {
        let mut done: Vec<String> = Vec::new();
        for d in &plan.drops {
            if let Err(e) = drop_columns(&mut self.conn, d, options).await {
                return Err(partly_done(e, &done));
            }
            each(d);
            done.push(d.table.plain());
        }
        Ok(())
    }
}

/// Step 3's error on a table after others were done: the same kind (its exit code), saying
/// which were done and that step 3 again finishes the rest.
fn partly_done(e: Error, done: &[String]) -> Error {
    if done.is_empty() {
        return e;
    }
    let add = |m: String| {
        format!(
            "{m} (step 3 already dropped the columns from {}: run it again to finish the rest)",
            done.join(", ")
        )
    };
    match e {
        Error::Refused(m) => Error::Refused(add(m)),
        Error::LockBusy(m) => Error::LockBusy(add(m)),
        Error::Db(crate::db::DbError::Postgres { what, source }) => {
            Error::Db(crate::db::DbError::Postgres {
                what: add(what),
                source,
            })
        }
        other => other,
    }
}

/// One table's status. `reclaim_disabled`: the operator says every relay runs with reclaim off.
async fn status(
    config: &Config,
    conn: &mut PgConnection,
    (tenant, table): &Table,
    reclaim_disabled: bool,
) -> Result<StorageStatus, Error> {
    crate::store::postgres::diagnostics::require_readable(conn, table).await?;
    let facts = crate::schema::postgres::table_facts(conn, table)
        .await
        .map_err(|e| Error::pg(format!("reading {}", table.plain()), e))?
        .ok_or_else(|| {
            Error::SchemaMissing(format!(
                "outbox table {} does not exist; create it with `outboxctl migrate`",
                table.plain()
            ))
        })?;
    // the move drops columns: a view, or an application's table named by a typo, is refused
    // here as migrate refuses it (step 3 would have tried the ALTER)
    if let Some(why) = crate::schema::plan::not_an_outbox(&facts) {
        let table = table.plain();
        return Err(Error::SchemaMissing(format!(
            "{table} {why}: check outbox.relation (--relation)"
        )));
    }
    let has_processing_at = facts.column("processing_at").is_some();
    let has_published_at = facts.column("published_at").is_some();
    let indexes = consume_move::indexes_on_retain_columns(conn, table).await?;
    let depending = consume_move::dependents_of_retain_columns(conn, table).await?;
    let (processing, published) = consume_move::remaining(conn, table, PUBLISHED_CAP).await?;
    let reclaim_on = config.relay.reclaim_stale_after.is_some();
    let mut blockers = Vec::new();
    let next_step = if !has_processing_at && !has_published_at {
        None
    } else if processing > 0 || published > 0 {
        if processing > 0 {
            blockers.push(match reclaim_disabled {
                false => format!("{processing} row(s) are processing: reclaim (on in the consume relays) returns them"),
                true => format!("{processing} row(s) are processing, and with reclaim off nothing returns them: keep reclaim on in the consume relays (step 2) until they are gone"),
            });
        }
        if published > 0 {
            let n = if published >= PUBLISHED_CAP {
                format!("at least {published}")
            } else {
                published.to_string()
            };
            blockers.push(format!(
                "{n} published row(s) remain: let the retention job remove them"
            ));
        }
        Some(2)
    } else {
        // every relay's reclaim, forze's too, is the operator's to vouch for: this
        // configuration's being off says nothing of theirs
        if !reclaim_disabled {
            blockers.push("reclaim may be on: set relay.reclaim_stale_after: null in every relay, then pass --reclaim-disabled; dropping processing_at while a relay reclaims fails every pass".into());
        } else if let Some(stale) = config.relay.reclaim_stale_after {
            // the relays' configuration, as step 3 is run with, cannot have it on
            blockers.push(format!("--reclaim-disabled, but this configuration has reclaim on (relay.reclaim_stale_after: {}), and a relay run with it fails every pass once processing_at is gone: run step 3 with the relays' configuration, which sets relay.reclaim_stale_after: null", crate::duration::Dur(stale)));
        }
        if config.outbox.storage == crate::model::Storage::Retain {
            blockers.push("this configuration says storage: retain, whose claim writes processing_at: run step 3 with the relays' configuration (outbox.storage: consume, or --storage consume)".into());
        }
        if !depending.is_empty() {
            blockers.push(format!(
                "{} depend(s) on processing_at or published_at, and DROP COLUMN would fail: drop them or change them not to read those columns (step 3 never drops with CASCADE)",
                depending.join(", ")
            ));
        }
        Some(3)
    };
    let retain = config.outbox.storage == crate::model::Storage::Retain;
    let mismatch = (next_step.is_none() && (retain || reclaim_on)).then_some(MISMATCH);
    Ok(StorageStatus {
        table: table.plain(),
        tenant: *tenant,
        configured_storage: config.outbox.storage.to_string(),
        has_processing_at,
        has_published_at,
        processing,
        published,
        published_capped: published >= PUBLISHED_CAP,
        reclaim_on,
        indexes_on_dropped_columns: indexes,
        depending_on_dropped_columns: depending,
        next_step,
        blockers,
        mismatch,
    })
}

/// Every table's status.
async fn statuses(
    config: &Config,
    conn: &mut PgConnection,
    tables: &[Table],
    reclaim_disabled: bool,
) -> Result<Vec<StorageStatus>, Error> {
    let mut all = Vec::with_capacity(tables.len());
    for t in tables {
        all.push(status(config, conn, t, reclaim_disabled).await?);
    }
    Ok(all)
}

/// The step to run: the one asked for, else the earliest any table needs; `None` when every
/// table is consume-only already.
pub fn step_to_run(asked: Option<u8>, all: &[StorageStatus]) -> Option<u8> {
    let next = all.iter().filter_map(|s| s.next_step).min();
    // every table consume-only: no step is left, whichever was asked for
    asked.filter(|_| next.is_some()).or(next)
}

/// The blockers of every table, each naming its table when there are several.
pub fn blockers(all: &[StorageStatus]) -> Vec<String> {
    all.iter()
        .flat_map(|s| {
            s.blockers.iter().map(move |b| match all.len() {
                1 => b.clone(),
                _ => format!("{}: {b}", s.table),
            })
        })
        .collect()
}

/// How step 2's wait ended.
pub enum WaitOutcome {
    /// No processing and no published row is left in any table.
    Done,
    /// The wait ran out (or none was allowed); the statuses last read.
    NotDone(Vec<StorageStatus>),
}

impl WaitOutcome {
    /// Step 2 is refused while any table still holds processing or published rows.
    pub fn verdict(&self) -> Result<(), Error> {
        match self {
            WaitOutcome::Done => Ok(()),
            WaitOutcome::NotDone(all) => Err(Error::Refused(format!(
                "step 2 is not done: {}",
                blockers(all).join("; ")
            ))),
        }
    }
}

/// What step 3 would do: the drops, one per table with a retain column left, and what
/// refuses it now (empty when it may run).
pub struct DropPlan {
    pub drops: Vec<DropColumns>,
    pub blocked: Vec<String>,
    /// What step 3 does not refuse for, but an operator should see first.
    pub warnings: Vec<String>,
}

/// Step 3's plan from every table's status (`all` in the order of `tables`).
fn drop_plan(tables: &[Table], all: &[StorageStatus]) -> DropPlan {
    let drops = tables
        .iter()
        .zip(all)
        .filter_map(|((_, table), s)| {
            DropColumns::new(
                table,
                s.has_processing_at,
                s.has_published_at,
                &s.indexes_on_dropped_columns,
            )
        })
        .collect();
    DropPlan {
        drops,
        blocked: blockers(all),
        warnings: Vec::new(),
    }
}

/// Step 3's timeouts and retries.
#[derive(Debug, Clone, Copy)]
pub struct DropOptions {
    /// `lock_timeout` for the table's lock.
    pub lock_timeout: Duration,
    /// Attempts after the first when the lock stays busy.
    pub retries: u32,
    /// `statement_timeout` for the re-check and the drop while the table is locked.
    pub check_timeout: Duration,
}

impl DropPlan {
    /// What it drops, from which table: `processing_at and published_at from app.outbox; …`.
    pub fn what(&self) -> String {
        let what: Vec<String> = self
            .drops
            .iter()
            .map(|d| format!("{} from {}", d.columns.join(" and "), d.table.plain()))
            .collect();
        what.join("; ")
    }

    /// Step 3 is refused while anything blocks it (`how`: "refused", or "would be refused now"
    /// for `--dry-run`, which exits as the step would).
    pub fn verdict(&self, how: &str) -> Result<(), Error> {
        match self.blocked.join("; ") {
            blocked if blocked.is_empty() => Ok(()),
            blocked => Err(Error::Refused(format!("step 3 {how}: {blocked}"))),
        }
    }

    /// The whole of step 3 as SQL, for `--dry-run`.
    pub fn script(&self, options: DropOptions) -> String {
        // what step 3 checks before it runs, and what keeps a pasted script from going on
        // past a refusal (psql runs the next table's transaction after a failed one otherwise)
        let mut scripts = vec![
            "-- step 3 of the retain → consume move: every relay runs with storage: consume and reclaim_stale_after: null\n\
             -- one transaction per table, as step 3 runs them: run with psql -v ON_ERROR_STOP=1 so a refusal stops the rest"
                .to_owned(),
        ];
        // several tables: every one checked before any is dropped, as step 3 reads every
        // table's status first (the script dropped the first table's columns, then refused
        // on the second)
        if self.drops.len() > 1 {
            let checks = self.drops.iter().map(|d| {
                format!(
                    "  IF ({}) THEN RAISE EXCEPTION 'processing or published rows remain in %: step 3 refused', '{}'; END IF;",
                    consume_move::recheck_sql(&d.table),
                    d.table.plain().replace('\'', "''")
                )
            });
            let checks: Vec<String> = checks.collect();
            scripts.push(format!(
                "-- every table first: step 3 drops nothing while one has processing or published rows\nDO $precheck$ BEGIN\n{}\nEND $precheck$;",
                checks.join("\n")
            ));
        }
        scripts.extend(
            self.drops
                .iter()
                .map(|d| d.script(Dur(options.lock_timeout), Dur(options.check_timeout))),
        );
        scripts.join("\n\n")
    }
}

/// Step 3 on one table: lock it, re-check under the lock (bounded by the check timeout), drop;
/// retried while the lock stays busy.
async fn drop_columns(
    conn: &mut PgConnection,
    d: &DropColumns,
    options: DropOptions,
) -> Result<(), Error> {
    let table = &d.table;
    let alter = d.alter();
    let result = retry::while_lock_busy(options.retries, async || {
        consume_move::drop_columns_locked(
            conn,
            table,
            &alter,
            options.lock_timeout,
            options.check_timeout,
        )
        .await
    })
    .await;
    let held_by = match &result {
        Err(LockRetryError::Busy { .. }) => {
            let who = crate::store::postgres::diagnostics::holders(conn, table, &[]).await;
            who.ok()
                .filter(|w| !w.is_empty())
                .map(|w| format!(" (held by {})", w.join(", ")))
        }
        _ => None,
    };
    match result {
        Ok((consume_move::Dropped::Done, _)) => Ok(()),
        Ok((reason @ consume_move::Dropped::RowsAppeared, _)) => Err(Error::Refused(format!(
            "step 3 refused on {}: {reason}",
            table.plain()
        ))),
        Err(LockRetryError::Busy { attempts, .. }) => Err(Error::LockBusy(format!(
            "gave up locking {}{} after {attempts} attempts of {}; retry when the table is quieter",
            table.plain(),
            held_by.unwrap_or_default(),
            Dur(options.lock_timeout)
        ))),
        Err(LockRetryError::Failed { source, .. })
            if crate::db::pg_code(&source).as_deref()
                == Some(crate::db::sqlstate::QUERY_CANCELED) =>
        {
            Err(Error::LockBusy(format!(
                "the re-check of {} under its lock took longer than --check-timeout {}: nothing was dropped (is the claim index on status present?); retry, or raise --check-timeout",
                table.plain(),
                Dur(options.check_timeout)
            )))
        }
        Err(LockRetryError::Failed { source, .. }) => Err(Error::pg(
            format!("step 3 failed on {}", table.plain()),
            source,
        )),
    }
}

#[cfg(test)]
#[path = "storage_tests.rs"]
mod tests;
