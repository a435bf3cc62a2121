//! The delivery log's daily partitions, step by step, for `outboxctl partitions`: list them
//! with what is wrong, add the days ahead, drop expired days, check (and with `--fix`, move
//! rows out of the default partition and fill gaps). Planning is pure in
//! [`crate::schema::partitions`]; catalog reads and changes are in
//! [`crate::store::postgres::partitions`]. No terminal: each step returns a report (its JSON
//! form is what `--format json` prints) and tells its progress through a callback.

use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;
use sqlx::PgConnection;

use crate::Error;
use crate::config::Config;
use crate::schema::partitions::{self, Bound, DayAction, Finding, Partition};
use crate::schema::postgres::LockPolicy;
use crate::store::backend::{Backend, Postgres};
use crate::store::postgres::partitions::{self as lp, LogFacts, PartitionInfo};
use crate::target::QualifiedName;

mod check;
pub use check::{CheckReport, Fix, FixStep, Moved};

/// The configured delivery logs (and their backend): the one log, or each configured
/// tenant's for a per-tenant name (`{tenant}`); or why there is none.
pub fn delivery_logs<'b, 'c>(
    backend: &'b Backend<'c>,
) -> Result<(&'b Postgres<'c>, Vec<QualifiedName>), Error> {
    let pg = match backend {
        Backend::Postgres(pg) => pg,
        Backend::Mongo(_) | Backend::Memory(_) => {
            return Err(Error::NotConfigured(
                "the delivery log is PostgreSQL-only: MongoDB keeps retain storage, which has no delivery log",
            ));
        }
    };
    match pg.delivery_log {
        None => Err(Error::NotConfigured(
            "no delivery log configured: set outbox.delivery_log (or pass --delivery-log SCHEMA.TABLE)",
        )),
        Some(log) if log.is_per_tenant() => {
            let tenants = pg.config.relation_tenants()?;
            let logs: Result<Vec<_>, _> = tenants.into_iter().map(|t| log.resolve(t)).collect();
            Ok((pg, logs?))
        }
        Some(log) => Ok((pg, vec![log.resolve(None)?])),
    }
}

/// `partitions.lock_timeout` and `partitions.retries`, unless given.
pub fn lock_policy(
    config: &Config,
    lock_timeout: Option<Duration>,
    retries: Option<u32>,
) -> LockPolicy {
    LockPolicy {
        lock_timeout: lock_timeout.unwrap_or(config.partitions.lock_timeout),
        retries: retries.unwrap_or(config.partitions.retries),
    }
}

/// The delivery log, opened: a connection, its name, its partitions as last read, and the
/// UTC day the steps count from.
pub struct DeliveryLog {
    conn: PgConnection,
    /// Each read of the catalog or the default partition waits for a lock at most this long
    /// (`partitions.lock_timeout`, `partitions.retries`): [`lp::within`].
    reads: LockPolicy,
    pub log: QualifiedName,
    pub facts: LogFacts,
    pub today: NaiveDate,
}

/// Finds the configured delivery logs, connects and reads the first one's partitions; the
/// others' names come with it ([`DeliveryLog::turn_to`] each on the same connection).
pub async fn open(
    config: &Config,
    connect_timeout: Duration,
) -> Result<(DeliveryLog, Vec<QualifiedName>), Error> {
    let backend = Backend::of(config, connect_timeout);
    let (pg, logs) = delivery_logs(&backend)?;
    let mut conn = pg.connect().await?;
    let log = logs[0].clone();
    let reads = lock_policy(config, None, None);
    let facts = lp::read(&mut conn, &log, reads).await?;
    let today = Utc::now().date_naive();
    Ok((
        DeliveryLog {
            conn,
            reads,
            log,
            facts,
            today,
        },
        logs,
    ))
}

/// Every partition and what is wrong (`partitions list`).
#[derive(Debug, Serialize)]
pub struct Listing {
    pub log: String,
    pub partitions: Vec<PartitionInfo>,
    pub default_partition: Option<String>,
    pub default_has_rows: bool,
    pub days_attached_from_today: u32,
    pub findings: Vec<Finding>,
    #[serde(skip)]
    pub today: NaiveDate,
}

impl Listing {
    /// The partitions by lower bound (the default and unparsed bounds first), each with its
    /// flags: `default`, `HOLDS ROWS`, `not a day range`, `today`.
    pub fn rows(&self) -> Vec<(&PartitionInfo, Vec<&'static str>)> {
        let mut sorted: Vec<&PartitionInfo> = self.partitions.iter().collect();
        sorted.sort_by_key(|p| match p.partition.bound {
            Bound::Range { from, .. } => Some(from),
            _ => None,
        });
        let today = partitions::day_start(self.today);
        sorted
            .into_iter()
            .map(|p| {
                let flags = match &p.partition.bound {
                    Bound::Default if self.default_has_rows => vec!["default", "HOLDS ROWS"],
                    Bound::Default => vec!["default"],
                    Bound::Other { .. } => vec!["not a day range"],
                    Bound::Range { from, to } if *from <= today && today < *to => vec!["today"],
                    Bound::Range { .. } => vec![],
                };
                (p, flags)
            })
            .collect()
    }

    /// What the table of partitions is followed by: the findings, where rows in the default
    /// partition are said without counting them.
    pub fn notes(&self) -> Vec<String> {
        let mut out: Vec<String> = (self.findings.iter())
            .filter(|f| !matches!(f, Finding::RowsInDefault { .. }))
            .map(Finding::to_string)
            .collect();
        if self.default_has_rows {
            let rows = Finding::RowsInDefault { rows: 1 }.to_string();
            out.push(rows.replace("holds 1 row(s)", "holds rows"));
        }
        out
    }
}

/// What adding one day came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DayResult {
    Added,
    /// `--dry-run`: it would be added.
    WouldAdd,
    Present,
    Conflict,
    /// Rows of the day are in the default partition.
    Skipped,
    /// Its lock stayed busy through every retry: the days after it are still tried.
    GaveUp,
}

impl DayResult {
    pub fn as_str(self) -> &'static str {
        match self {
            DayResult::Added => "added",
            DayResult::WouldAdd => "would add",
            DayResult::Present => "present",
            DayResult::Conflict => "conflict",
            DayResult::Skipped => "skipped",
            DayResult::GaveUp => "gave up",
        }
    }
}

/// One day's outcome.
#[derive(Debug, Serialize)]
pub struct DayOutcome {
    #[serde(flatten)]
    pub action: DayAction,
    pub result: DayResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl DayOutcome {
    /// What `add-ahead` says of the day (nothing of a day already present).
    pub fn line(&self) -> Option<String> {
        let (DayAction::Present { day, partition }
        | DayAction::Add { day, partition }
        | DayAction::Conflict { day, partition }) = &self.action;
        match self.result {
            DayResult::Added => Some(format!("added: {partition} for {day}")),
            DayResult::WouldAdd => Some(format!("would add: {partition} for {day}")),
            DayResult::Present => None,
            result => Some(format!(
                "{}: {day}: {}",
                result.as_str(),
                self.reason.as_deref().unwrap_or_default()
            )),
        }
    }
}

/// `partitions add-ahead`: each day from today.
#[derive(Debug, Serialize)]
pub struct AddAheadReport {
    pub log: String,
    /// `--dry-run`: nothing was added; `added` counts the days that would be.
    pub dry_run: bool,
    pub days: Vec<DayOutcome>,
    pub added: usize,
}

impl AddAheadReport {
    /// A line for each day added (when `added`: `-q` leaves them out) and each day skipped
    /// or in conflict.
    pub fn lines(&self, added: bool) -> Vec<String> {
        (self.days.iter())
            .filter(|d| added || d.result != DayResult::Added)
            .filter_map(DayOutcome::line)
            .collect()
    }

    /// Every day was there already: nothing added (or, dry, to add), skipped or given up on.
    pub fn nothing_to_do(&self) -> bool {
        (self.days.iter()).all(|d| d.result == DayResult::Present)
    }

    /// Days skipped or in conflict.
    pub fn problems(&self) -> usize {
        self.days
            .iter()
            .filter(|r| matches!(r.result, DayResult::Skipped | DayResult::Conflict))
            .count()
    }

    /// A busy lock when a day was given up on (retry later), else a failed check when a day
    /// was skipped or in conflict (each printed already).
    pub fn verdict(&self) -> Result<(), Error> {
        let gave_up = (self.days.iter())
            .filter(|d| d.result == DayResult::GaveUp)
            .count();
        if gave_up > 0 {
            return Err(Error::LockBusy(format!(
                "partitions add-ahead: gave up on {gave_up} day(s) of {}, their locks stayed busy (see above); retry later",
                self.log
            )));
        }
        match self.problems() {
            0 => Ok(()),
            n => Err(Error::CheckFailed(format!(
                "partitions add-ahead: {n} day(s) of {} skipped or in conflict (see above)",
                self.log
            ))),
        }
    }
}

/// Why a day was not added.
pub const DEFAULT_HAS_ROWS: &str =
    "the default partition holds rows of this day; run `outboxctl partitions check --fix`";

/// The partitions `drop-expired` would drop; its JSON form is what `--dry-run` prints.
#[derive(Debug, Serialize)]
pub struct DropPlan {
    pub log: String,
    pub cutoff: DateTime<Utc>,
    pub would_drop: Vec<String>,
    /// The tables of `would_drop`, in its order, each in its own schema.
    #[serde(skip)]
    tables: Vec<QualifiedName>,
}

impl DropPlan {
    /// The statements dropping would run, one per partition.
    pub fn statements(&self) -> Vec<String> {
        (self.tables.iter())
            .map(|t| format!("DROP TABLE {t};"))
            .collect()
    }

    /// The report of dropping nothing.
    pub fn nothing_dropped(&self) -> DropReport {
        DropReport {
            log: self.log.clone(),
            cutoff: self.cutoff,
            dropped: Vec::new(),
            gave_up: Vec::new(),
            failed: Vec::new(),
            first_failure: None,
        }
    }
}

/// A partition `drop-expired` gave up on (its lock stayed busy) or failed to drop.
#[derive(Debug, Serialize)]
pub struct GaveUp {
    pub partition: String,
    pub reason: String,
}

/// What `drop-expired` dropped.
#[derive(Debug, Serialize)]
pub struct DropReport {
    pub log: String,
    pub cutoff: DateTime<Utc>,
    pub dropped: Vec<String>,
    pub gave_up: Vec<GaveUp>,
    /// Partitions whose drop failed for another reason (a view on one, a permission): the
    /// others are still dropped.
    pub failed: Vec<GaveUp>,
    /// The error of the first of `failed`: its exit code is the command's.
    #[serde(skip)]
    first_failure: Option<Error>,
}

impl DropReport {
    /// What was dropped (when `dropped`) and what was given up on or failed, a line each.
    pub fn lines(&self, dropped: bool) -> Vec<String> {
        let dropped = (self.dropped.iter())
            .filter(|_| dropped)
            .map(|n| format!("dropped: {n}"));
        let gave_up =
            (self.gave_up.iter()).map(|g| format!("gave up: {}: {}", g.partition, g.reason));
        let failed = (self.failed.iter()).map(|g| format!("failed: {}: {}", g.partition, g.reason));
        dropped.chain(gave_up).chain(failed).collect()
    }

    /// The first drop that failed, else lock busy when `drop-expired` gave up on a partition.
    pub fn verdict(mut self) -> Result<(), Error> {
        if let Some(e) = self.first_failure.take() {
            return Err(e);
        }
        match self.gave_up.len() {
            0 => Ok(()),
            n => Err(Error::LockBusy(format!(
                "partitions drop-expired: gave up on {n} partition(s) of {}, their locks stayed busy",
                self.log
            ))),
        }
    }
}

impl DeliveryLog {
    /// The same connection on another delivery log (a tenant's): its partitions read anew.
    pub async fn turn_to(&mut self, log: &QualifiedName) -> Result<(), Error> {
        if *log != self.log {
            self.facts = lp::read(&mut self.conn, log, self.reads).await?;
            self.log = log.clone();
        }
        Ok(())
    }

    /// `partitions list`: the partitions, whether the default one holds rows, and what
    /// `check` would find with `ahead_days` from today (its default `--min-ahead`; rows in the
    /// default partition aside).
    pub async fn list(&mut self, ahead_days: u32) -> Result<Listing, Error> {
        let default_has_rows = match &self.facts.default {
            Some(d) => lp::default_span(&mut self.conn, d, self.reads)
                .await?
                .is_some(),
            None => false,
        };
        let bounds = self.facts.bounds();
        Ok(Listing {
            log: self.log.plain(),
            partitions: self.facts.partitions.clone(),
            default_partition: self.facts.default.as_ref().map(QualifiedName::plain),
            default_has_rows,
            days_attached_from_today: partitions::days_covered_from(self.today, &bounds),
            findings: partitions::check(
                self.today,
                ahead_days,
                &bounds,
                Some(0),
                &self.facts.unattached_names(),
            ),
            today: self.today,
        })
    }

    /// `partitions add-ahead`: adds each missing day from today to today + `days`, one short
    /// transaction per day; `on_day` hears of each. `dry_run`: says which it would add,
    /// changing nothing (a day whose rows sit in the default partition is still found).
    pub async fn add_ahead(
        &mut self,
        days: u32,
        policy: LockPolicy,
        dry_run: bool,
        mut on_day: impl FnMut(&DayOutcome),
    ) -> Result<AddAheadReport, Error> {
        let plan = partitions::plan_add_ahead(&self.log, self.today, days, &self.facts.bounds())?;
        let mut out = Vec::new();
        for action in plan {
            let r = match &action {
                DayAction::Present { .. } => DayOutcome {
                    action,
                    result: DayResult::Present,
                    reason: None,
                },
                DayAction::Conflict { partition, .. } => {
                    let reason = Some(format!(
                        "partition {partition} overlaps this day without covering it"
                    ));
                    DayOutcome {
                        action,
                        result: DayResult::Conflict,
                        reason,
                    }
                }
                DayAction::Add { day, .. } => {
                    let added = self.try_day(*day, policy, dry_run).await;
                    let (result, reason) = match added {
                        Ok(lp::Added::Attached(_)) if dry_run => (DayResult::WouldAdd, None),
                        Ok(lp::Added::Attached(_)) => (DayResult::Added, None),
                        Ok(lp::Added::DefaultHasRows) => {
                            (DayResult::Skipped, Some(DEFAULT_HAS_ROWS.to_owned()))
                        }
                        // said with the days done, as drop-expired says it (nothing was said
                        // of the days added before it, and JSON printed nothing)
                        Err(Error::LockBusy(why)) => (DayResult::GaveUp, Some(why)),
                        Err(e) => return Err(e),
                        Ok(lp::Added::OutsideTheDay) => {
                            let table = partitions::day_name(&self.log, *day)?.plain();
                            (
                                DayResult::Skipped,
                                Some(format!(
                                    "{table}, there unattached, holds rows outside this day: move them into their days' partitions (or delete them), then run add-ahead again"
                                )),
                            )
                        }
                    };
                    DayOutcome {
                        action,
                        result,
                        reason,
                    }
                }
            };
            on_day(&r);
            out.push(r);
        }
        let added = (out.iter())
            .filter(|r| matches!(r.result, DayResult::Added | DayResult::WouldAdd))
            .count();
        Ok(AddAheadReport {
            log: self.log.plain(),
            dry_run,
            days: out,
            added,
        })
    }

    /// The day partitions ending at or before today - `keep_days`, oldest first.
    pub fn plan_drop(&self, keep_days: u32) -> Result<DropPlan, Error> {
        let plan = partitions::plan_drop_expired(self.today, keep_days, &self.facts.bounds());
        let table = |name: &str| match (self.facts.partitions.iter())
            .find(|p| p.partition.name == name)
            .and_then(|p| p.table.clone())
        {
            Some(t) => Ok(t),
            None => lp::qualified(&self.log, name),
        };
        Ok(DropPlan {
            log: self.log.plain(),
            cutoff: partitions::day_start(self.today - chrono::Days::new(u64::from(keep_days))),
            tables: (plan.iter())
                .map(|p| table(&p.name))
                .collect::<Result<_, _>>()?,
            would_drop: plan.into_iter().map(|p| p.name).collect(),
        })
    }

    /// What adding `day` comes to (`dry_run`: would come to): refused when the default
    /// partition holds rows of it, or its table, there unattached, rows of other days (a move
    /// cut short, one made by hand: ATTACH would refuse it); a busy lock (of a read too) is the
    /// error, which `add_ahead` says and goes on past.
    async fn try_day(
        &mut self,
        day: NaiveDate,
        policy: LockPolicy,
        dry_run: bool,
    ) -> Result<lp::Added, Error> {
        if let Some(d) = &self.facts.default {
            if lp::default_has_rows_on(&mut self.conn, d, day, self.reads).await? {
                return Ok(lp::Added::DefaultHasRows);
            }
        }
        if let Some((_, t)) = self.facts.unattached.iter().find(|(d, _)| *d == day) {
            if lp::rows_outside_the_day(&mut self.conn, t, day, self.reads).await? {
                return Ok(lp::Added::OutsideTheDay);
            }
        }
        if dry_run {
            return Ok(lp::Added::Attached(0));
        }
        // ATTACH checks the default partition again inside its transaction: a row that lands
        // there after the look above is caught too
        let create = !self.facts.is_unattached(day);
        lp::add_day(&mut self.conn, &self.log, day, policy, create).await
    }

    /// `partitions drop-expired`: drops what `plan` lists, each in its own short transaction;
    /// a partition whose lock stays busy is given up on, one whose drop fails otherwise is
    /// reported, and the others are still dropped. `on_each` hears of each partition done.
    pub async fn drop_expired(
        &mut self,
        plan: &DropPlan,
        policy: LockPolicy,
        mut on_each: impl FnMut(),
    ) -> Result<DropReport, Error> {
        let mut report = plan.nothing_dropped();
        for (n, partition) in plan.would_drop.iter().zip(&plan.tables) {
            match lp::drop_partition(&mut self.conn, partition, policy).await {
                Ok(_) => report.dropped.push(n.clone()),
                Err(Error::LockBusy(reason)) => report.gave_up.push(GaveUp {
                    partition: n.clone(),
                    reason,
                }),
                Err(e) => {
                    report.failed.push(GaveUp {
                        partition: n.clone(),
                        reason: e.to_string(),
                    });
                    report.first_failure.get_or_insert(e);
                }
            }
            on_each();
        }
        Ok(report)
    }

    /// `partitions check`: the default partition empty, `min_ahead` days from today
    /// attached, no gaps. With `fix`, first moves each day's rows out of the default partition
    /// into a partition of its own, then fills gaps between partitions with empty days;
    /// `on_fix` hears of each change. [`Fix::Plan`] changes nothing: `on_fix` hears of what
    /// would change, and the report names it (`planned`) beside what is wrong now.
    pub async fn check(
        &mut self,
        min_ahead: u32,
        fix: Option<Fix>,
        mut on_fix: impl FnMut(&FixStep),
    ) -> Result<CheckReport, Error> {
        let mut moved = Vec::new();
        let (mut planned, mut fixed) = (Vec::new(), Vec::new());
        let mut heard = |step: &FixStep| {
            match fix {
                Some(Fix::Plan) => planned.push(step.clone()),
                _ => fixed.push(step.clone()),
            }
            on_fix(step)
        };
        if let Some(fix) = fix {
            let days = self.move_default_rows(fix, &mut moved, &mut heard).await?;
            self.fill_gaps(fix, &days, &mut heard).await?;
            self.facts = lp::read(&mut self.conn, &self.log, self.reads).await?;
        }
        let default_rows = match &self.facts.default {
            Some(d) => Some(lp::default_rows(&mut self.conn, d, self.reads).await?),
            None => None,
        };
        let bounds = self.facts.bounds();
        let unattached = self.facts.unattached_names();
        let findings = partitions::check(self.today, min_ahead, &bounds, default_rows, &unattached);
        Ok(CheckReport {
            log: self.log.plain(),
            ok: findings.is_empty(),
            findings,
            moved,
            planned,
            fixed,
            days_attached_from_today: partitions::days_covered_from(self.today, &bounds),
        })
    }

    /// Moves each day's rows out of the default partition, where no partition overlaps the
    /// day, and finishes each move cut short (a day's table left unattached); reads the
    /// partitions again after. [`Fix::Plan`] counts each day's rows instead, and gives back
    /// the days that would get a partition.
    async fn move_default_rows(
        &mut self,
        fix: Fix,
        moved: &mut Vec<Moved>,
        on_fix: &mut impl FnMut(&FixStep),
    ) -> Result<Vec<NaiveDate>, Error> {
        let mut planned = Vec::new();
        let Some(default) = self.facts.default.clone() else {
            return Ok(planned);
        };
        let mut days: Vec<NaiveDate> = self.facts.unattached.iter().map(|(d, _)| *d).collect();
        if let Some((first, last)) = lp::default_span(&mut self.conn, &default, self.reads).await? {
            for day in partitions::days_between(first, last) {
                if !days.contains(&day)
                    && lp::default_has_rows_on(&mut self.conn, &default, day, self.reads).await?
                {
                    days.push(day);
                }
            }
        }
        days.sort();
        for day in days {
            if self.overlaps(day, &self.facts.bounds())? {
                continue;
            }
            let rows = match fix {
                Fix::Apply(policy) => {
                    let conn = &mut self.conn;
                    let rows = lp::move_default_day(conn, &self.log, &default, day, policy).await?;
                    moved.push(Moved { day, rows });
                    rows
                }
                Fix::Plan => {
                    planned.push(day);
                    let reads = self.reads;
                    lp::default_rows_on(&mut self.conn, &default, day, None, reads).await? as u64
                }
            };
            on_fix(&FixStep::Moved {
                day,
                rows,
                default: default.plain(),
                planned: matches!(fix, Fix::Plan),
            });
        }
        self.facts = lp::read(&mut self.conn, &self.log, self.reads).await?;
        Ok(planned)
    }

    /// Whether a partition of `bounds` covers part of `day`, so that no partition of the day can
    /// be added. (Ranges only: a partition of another range that took the day's name makes the
    /// add fail, naming it, as `add-ahead` does.)
    fn overlaps(&self, day: NaiveDate, bounds: &[Partition]) -> Result<bool, Error> {
        Ok(partitions::plan_add_ahead(&self.log, day, 0, bounds)?
            .into_iter()
            .any(|a| !matches!(a, DayAction::Add { .. })))
    }

    /// Fills gaps between partitions with empty days, so check has nothing left to report.
    /// [`Fix::Plan`] takes the days `moving` (which the move would give a partition) as
    /// partitions, and says of each gap day whether it would be added.
    async fn fill_gaps(
        &mut self,
        fix: Fix,
        moving: &[NaiveDate],
        on_fix: &mut impl FnMut(&FixStep),
    ) -> Result<(), Error> {
        let mut bounds = self.facts.bounds();
        bounds.extend(moving.iter().map(|&day| Partition {
            name: day.to_string(),
            bound: Bound::Range {
                from: partitions::day_start(day),
                to: partitions::day_start(day + chrono::Days::new(1)),
            },
        }));
        for finding in partitions::check(self.today, 0, &bounds, Some(0), &[]) {
            if let Finding::Gap { from, to } = finding {
                for day in partitions::days_between(from, to - chrono::Duration::nanoseconds(1)) {
                    // a hand-made partition over part of the day: adding it would fail (and
                    // end the fix); check goes on reporting the gap
                    if self.overlaps(day, &bounds)? {
                        continue;
                    }
                    let added = match (fix, &self.facts.default) {
                        (Fix::Apply(policy), _) => {
                            let create = !self.facts.is_unattached(day);
                            let conn = &mut self.conn;
                            let added = lp::add_day(conn, &self.log, day, policy, create).await?;
                            matches!(added, lp::Added::Attached(_))
                        }
                        (Fix::Plan, Some(d)) => {
                            !lp::default_has_rows_on(&mut self.conn, d, day, self.reads).await?
                        }
                        (Fix::Plan, None) => true,
                    };
                    let planned = matches!(fix, Fix::Plan);
                    on_fix(&FixStep::Gap {
                        day,
                        added,
                        planned,
                    });
                }
            }
        }
        Ok(())
    }
}
