//! `outboxctl partitions list | add-ahead | drop-expired | check`: the delivery log's daily
//! partitions, made for cron (idempotent, `-q` silent on success, `--format json`).

use clap::{Args, Subcommand};
use serde::Serialize;

use super::Ctx;
use crate::Error;
use crate::config::Target;
use crate::duration::Dur;
use crate::exit_code;
use crate::schema::partitions::{self, Bound, DayAction, Finding};
use crate::schema::postgres::LockPolicy;
use crate::store::postgres::partitions::{self as lp, LogFacts};
use crate::target::QualifiedName;

#[derive(Debug, Subcommand)]
pub enum PartitionsCommand {
    /// Every partition with its bounds (from the catalog), size and flags
    List,
    /// Attach a partition for each missing UTC day from today to today + N
    AddAhead(AddAheadArgs),
    /// Drop day partitions whose upper bound is at or before today - N (destructive)
    DropExpired(DropArgs),
    /// Exit 1 when the default partition holds rows, days ahead are missing, or there are gaps
    Check(CheckArgs),
}

#[derive(Debug, Args)]
pub struct LockArgs {
    /// lock_timeout of each change (default: partitions.lock_timeout, 200ms)
    #[arg(long, value_name = "DURATION")]
    pub lock_timeout: Option<Dur>,
    /// Attempts after the first when a lock stays busy (default: partitions.retries, 5)
    #[arg(long, value_name = "N")]
    pub retries: Option<u32>,
}

#[derive(Debug, Args)]
pub struct AddAheadArgs {
    /// Days after today to cover (default: partitions.ahead_days, 7)
    #[arg(long, value_name = "N")]
    pub days: Option<u32>,
    #[command(flatten)]
    pub lock: LockArgs,
}

#[derive(Debug, Args)]
pub struct DropArgs {
    /// Days to keep (default: partitions.keep_days, 30)
    #[arg(long, value_name = "N")]
    pub keep_days: Option<u32>,
    /// Print what would be dropped and change nothing
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub lock: LockArgs,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Days from today that must be attached (today counts; default: partitions.ahead_days)
    #[arg(long, value_name = "N")]
    pub min_ahead: Option<u32>,
    /// Move rows out of the default partition into proper day partitions
    #[arg(long)]
    pub fix: bool,
    #[command(flatten)]
    pub lock: LockArgs,
}

fn policy(ctx: &Ctx, lock: &LockArgs) -> LockPolicy {
    LockPolicy {
        lock_timeout: lock
            .lock_timeout
            .map_or(ctx.config.partitions.lock_timeout, |d| d.0),
        retries: lock.retries.unwrap_or(ctx.config.partitions.retries),
    }
}

/// The configured delivery log, or why there is none.
pub fn delivery_log(ctx: &Ctx) -> Result<QualifiedName, Error> {
    match &ctx.config.outbox.target {
        Target::Mongo { .. } => Err(Error::Runtime(
            "the delivery log is PostgreSQL-only: MongoDB keeps retain storage, which has no delivery log".into(),
        )),
        Target::Postgres { delivery_log: None, .. } => Err(Error::Runtime(
            "no delivery log configured: set outbox.delivery_log (or pass --delivery-log SCHEMA.TABLE)".into(),
        )),
        Target::Postgres { delivery_log: Some(log), .. } if log.is_per_tenant() => Err(Error::Runtime(
            "a per-tenant delivery log ({tenant}) is not supported by partitions yet; name one log".into(),
        )),
        Target::Postgres { delivery_log: Some(log), .. } => {
            log.resolve(None).map_err(|e| Error::Runtime(e.to_string()))
        }
    }
}

#[derive(Serialize)]
struct Report<T: Serialize> {
    log: String,
    #[serde(flatten)]
    body: T,
}

pub async fn run(ctx: &Ctx, cmd: PartitionsCommand) -> anyhow::Result<u8> {
    let log = delivery_log(ctx)?;
    let mut conn = ctx.connect_pg().await?;
    let facts = lp::read(&mut conn, &log).await?;
    let today = chrono::Utc::now().date_naive();
    match cmd {
        PartitionsCommand::List => list(ctx, &mut conn, &log, &facts, today).await,
        PartitionsCommand::AddAhead(a) => add_ahead(ctx, &mut conn, &log, &facts, today, &a).await,
        PartitionsCommand::DropExpired(a) => {
            drop_expired(ctx, &mut conn, &log, &facts, today, &a).await
        }
        PartitionsCommand::Check(a) => check(ctx, &mut conn, &log, facts, today, &a).await,
    }
}

async fn list(
    ctx: &Ctx,
    conn: &mut sqlx::PgConnection,
    log: &QualifiedName,
    facts: &LogFacts,
    today: chrono::NaiveDate,
) -> anyhow::Result<u8> {
    let default_has_rows = match &facts.default {
        Some(d) => lp::default_span(conn, d).await?.is_some(),
        None => false,
    };
    let findings = partitions::check(
        today,
        ctx.config.partitions.ahead_days + 1,
        &facts.bounds(),
        Some(0),
    );
    if ctx.out.is_json() {
        #[derive(Serialize)]
        struct Body<'a> {
            partitions: &'a [lp::PartitionInfo],
            default_partition: Option<String>,
            default_has_rows: bool,
            days_attached_from_today: u32,
            findings: Vec<Finding>,
        }
        ctx.out.json(&Report {
            log: log.plain(),
            body: Body {
                partitions: &facts.partitions,
                default_partition: facts.default.as_ref().map(QualifiedName::plain),
                default_has_rows,
                days_attached_from_today: partitions::days_covered_from(today, &facts.bounds()),
                findings,
            },
        });
        return Ok(exit_code::OK);
    }
    let mut table = super::output::table();
    table.set_header([
        "partition",
        "from (UTC)",
        "to (UTC)",
        "est. rows",
        "size",
        "flags",
    ]);
    let mut sorted: Vec<&lp::PartitionInfo> = facts.partitions.iter().collect();
    sorted.sort_by_key(|p| match p.partition.bound {
        Bound::Range { from, .. } => Some(from),
        _ => None,
    });
    for p in sorted {
        let (from, to, mut flags) = match &p.partition.bound {
            Bound::Default => ("".into(), "".into(), vec!["default".to_owned()]),
            Bound::Range { from, to } => (
                from.format("%Y-%m-%d %H:%M").to_string(),
                to.format("%Y-%m-%d %H:%M").to_string(),
                vec![],
            ),
            Bound::Other { text } => (
                text.clone(),
                String::new(),
                vec!["not a day range".to_owned()],
            ),
        };
        if p.partition.bound == Bound::Default && default_has_rows {
            flags.push("HOLDS ROWS".into());
        }
        if let Bound::Range { from, to } = p.partition.bound {
            if from <= partitions::day_start(today) && partitions::day_start(today) < to {
                flags.push("today".into());
            }
        }
        table.add_row([
            p.partition.name.clone(),
            from,
            to,
            p.estimated_rows.to_string(),
            human_bytes(p.bytes),
            flags.join(", "),
        ]);
    }
    let mut text = table.to_string();
    for f in findings
        .iter()
        .filter(|f| !matches!(f, Finding::RowsInDefault { .. }))
    {
        text.push_str(&format!("\n{f}"));
    }
    if default_has_rows {
        text.push_str(
            &format!("\n{}", Finding::RowsInDefault { rows: 1 })
                .replace("holds 1 row(s)", "holds rows"),
        );
    }
    ctx.out.data(&text);
    Ok(exit_code::OK)
}

fn human_bytes(b: i64) -> String {
    match b {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 => format!("{:.0} KiB", b as f64 / 1024.0),
        b => format!("{b} B"),
    }
}

/// One day's outcome (public so `migrate` can report it).
#[derive(Debug, Serialize)]
pub struct DayOutcome {
    #[serde(flatten)]
    pub action: DayAction,
    /// added, present, conflict, or skipped (rows of the day in the default partition)
    pub result: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Why a day was not added.
const DEFAULT_HAS_ROWS: &str =
    "the default partition holds rows of this day; run `outboxctl partitions check --fix`";

/// Adds the missing days; shared by `partitions add-ahead` and `migrate`.
pub async fn add_days(
    conn: &mut sqlx::PgConnection,
    log: &QualifiedName,
    facts: &LogFacts,
    today: chrono::NaiveDate,
    days: u32,
    policy: LockPolicy,
    mut on_day: impl FnMut(&DayOutcome),
) -> Result<Vec<DayOutcome>, Error> {
    let plan = partitions::plan_add_ahead(log, today, days, &facts.bounds())
        .map_err(|e| Error::Runtime(e.to_string()))?;
    let mut out = Vec::new();
    for action in plan {
        let r = match &action {
            DayAction::Present { .. } => DayOutcome {
                action,
                result: "present",
                reason: None,
            },
            DayAction::Conflict { partition, .. } => {
                let reason = Some(format!(
                    "partition {partition} overlaps this day without covering it"
                ));
                DayOutcome {
                    action,
                    result: "conflict",
                    reason,
                }
            }
            DayAction::Add { day, .. } => {
                let blocked = match &facts.default {
                    Some(d) => lp::default_has_rows_on(conn, d, *day).await?,
                    None => false,
                };
                // ATTACH checks the default partition again inside its transaction: a row
                // that lands there after this look is caught too.
                let added = if blocked {
                    lp::Added::DefaultHasRows
                } else {
                    lp::add_day(conn, log, *day, policy).await?
                };
                match added {
                    lp::Added::DefaultHasRows => DayOutcome {
                        action,
                        result: "skipped",
                        reason: Some(DEFAULT_HAS_ROWS.into()),
                    },
                    lp::Added::Attached(_) => DayOutcome {
                        action,
                        result: "added",
                        reason: None,
                    },
                }
            }
        };
        on_day(&r);
        out.push(r);
    }
    Ok(out)
}

async fn add_ahead(
    ctx: &Ctx,
    conn: &mut sqlx::PgConnection,
    log: &QualifiedName,
    facts: &LogFacts,
    today: chrono::NaiveDate,
    args: &AddAheadArgs,
) -> anyhow::Result<u8> {
    let days = args.days.unwrap_or(ctx.config.partitions.ahead_days);
    let bar = ctx
        .out
        .progress(Some(u64::from(days) + 1), "adding partitions");
    let results = add_days(
        conn,
        log,
        facts,
        today,
        days,
        policy(ctx, &args.lock),
        |_| bar.inc(1),
    )
    .await?;
    bar.finish_and_clear();
    let problems = results
        .iter()
        .filter(|r| matches!(r.result, "skipped" | "conflict"))
        .count();
    let added = results.iter().filter(|r| r.result == "added").count();
    if ctx.out.is_json() {
        ctx.out.json(&Report {
            log: log.plain(),
            body: serde_json::json!({ "days": results, "added": added }),
        });
    } else {
        for r in &results {
            let (day, name) = match &r.action {
                DayAction::Present { day, partition }
                | DayAction::Add { day, partition }
                | DayAction::Conflict { day, partition } => (day, partition),
            };
            match r.result {
                "added" => ctx.out.data(&format!("added: {name} for {day}")),
                "present" => {}
                _ => ctx.out.data(&format!(
                    "{}: {day}: {}",
                    r.result,
                    r.reason.as_deref().unwrap_or_default()
                )),
            }
        }
        if added == 0 && problems == 0 {
            ctx.out.note(&format!(
                "{} days from {today} already attached; nothing to do",
                days + 1
            ));
        }
    }
    Ok(if problems > 0 {
        exit_code::CHECK_FAILED
    } else {
        exit_code::OK
    })
}

async fn drop_expired(
    ctx: &Ctx,
    conn: &mut sqlx::PgConnection,
    log: &QualifiedName,
    facts: &LogFacts,
    today: chrono::NaiveDate,
    args: &DropArgs,
) -> anyhow::Result<u8> {
    let keep = args.keep_days.unwrap_or(ctx.config.partitions.keep_days);
    let plan = partitions::plan_drop_expired(today, keep, &facts.bounds());
    let cutoff = partitions::day_start(today - chrono::Days::new(u64::from(keep)));
    if plan.is_empty() {
        if ctx.out.is_json() {
            ctx.out.json(&Report {
                log: log.plain(),
                body: serde_json::json!({ "cutoff": cutoff, "dropped": [], "gave_up": [] }),
            });
        } else {
            ctx.out.note(&format!(
                "no partition of {} ends at or before {}; nothing to drop",
                log.plain(),
                cutoff.format("%Y-%m-%d")
            ));
        }
        return Ok(exit_code::OK);
    }
    let names: Vec<String> = plan.iter().map(|p| p.name.clone()).collect();
    if args.dry_run {
        if ctx.out.is_json() {
            ctx.out.json(&Report {
                log: log.plain(),
                body: serde_json::json!({ "cutoff": cutoff, "would_drop": names }),
            });
        } else {
            for n in &names {
                ctx.out
                    .data(&format!("DROP TABLE {};", lp::qualified(log, n)?));
            }
        }
        return Ok(exit_code::OK);
    }
    super::confirm::confirm(
        ctx.yes,
        &format!(
            "drop {} partition(s) of {} ending at or before {} ({})",
            names.len(),
            log.plain(),
            cutoff.format("%Y-%m-%d"),
            names.join(", ")
        ),
    )?;
    let policy = policy(ctx, &args.lock);
    let (mut dropped, mut gave_up) = (Vec::new(), Vec::new());
    let bar = ctx
        .out
        .progress(Some(names.len() as u64), "dropping partitions");
    for n in &names {
        match lp::drop_partition(conn, &lp::qualified(log, n)?, policy).await {
            Ok(_) => dropped.push(n.clone()),
            Err(Error::LockBusy(reason)) => gave_up.push((n.clone(), reason)),
            Err(e) => return Err(e.into()),
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    if ctx.out.is_json() {
        let gave: Vec<_> = gave_up
            .iter()
            .map(|(n, r)| serde_json::json!({ "partition": n, "reason": r }))
            .collect();
        ctx.out.json(&Report {
            log: log.plain(),
            body: serde_json::json!({ "cutoff": cutoff, "dropped": dropped, "gave_up": gave }),
        });
    } else {
        for n in &dropped {
            ctx.out.data(&format!("dropped: {n}"));
        }
        for (n, r) in &gave_up {
            ctx.out.data(&format!("gave up: {n}: {r}"));
        }
    }
    Ok(if gave_up.is_empty() {
        exit_code::OK
    } else {
        exit_code::LOCK_BUSY
    })
}

async fn check(
    ctx: &Ctx,
    conn: &mut sqlx::PgConnection,
    log: &QualifiedName,
    mut facts: LogFacts,
    today: chrono::NaiveDate,
    args: &CheckArgs,
) -> anyhow::Result<u8> {
    let min_ahead = args.min_ahead.unwrap_or(ctx.config.partitions.ahead_days);
    let mut moved_total = Vec::new();
    if args.fix {
        if let Some(default) = facts.default.clone() {
            if let Some((first, last)) = lp::default_span(conn, &default).await? {
                let policy = policy(ctx, &args.lock);
                for day in partitions::days_between(first, last) {
                    let conflict = partitions::plan_add_ahead(log, day, 0, &facts.bounds())
                        .map_err(|e| Error::Runtime(e.to_string()))?
                        .into_iter()
                        .any(|a| !matches!(a, DayAction::Add { .. }));
                    if conflict || !lp::default_has_rows_on(conn, &default, day).await? {
                        continue;
                    }
                    let moved = lp::move_default_day(conn, log, &default, day, policy).await?;
                    moved_total.push((day, moved));
                    if !ctx.out.is_json() {
                        ctx.out.data(&format!(
                            "moved {moved} row(s) of {day} from {} into a new partition",
                            default.plain()
                        ));
                    }
                }
                facts = lp::read(conn, log).await?;
            }
        }
        // Fill gaps between partitions with empty days, so check has nothing left to report.
        for finding in partitions::check(today, 0, &facts.bounds(), Some(0)) {
            if let Finding::Gap { from, to } = finding {
                for day in partitions::days_between(from, to - chrono::Duration::nanoseconds(1)) {
                    let added = lp::add_day(conn, log, day, policy(ctx, &args.lock)).await?;
                    if ctx.out.is_json() {
                        continue;
                    }
                    match added {
                        lp::Added::Attached(_) => {
                            ctx.out.data(&format!("added: partition for {day} (a gap)"));
                        }
                        lp::Added::DefaultHasRows => ctx.out.data(&format!(
                            "skipped: partition for {day} (a gap): {DEFAULT_HAS_ROWS}"
                        )),
                    }
                }
            }
        }
        facts = lp::read(conn, log).await?;
    }
    let default_rows = match &facts.default {
        Some(d) => Some(lp::default_rows(conn, d).await?),
        None => None,
    };
    let findings = partitions::check(today, min_ahead, &facts.bounds(), default_rows);
    if ctx.out.is_json() {
        let moved: Vec<_> = moved_total
            .iter()
            .map(|(d, n)| serde_json::json!({ "day": d, "rows": n }))
            .collect();
        ctx.out.json(&Report {
            log: log.plain(),
            body: serde_json::json!({
                "ok": findings.is_empty(),
                "findings": findings,
                "moved": moved,
                "days_attached_from_today": partitions::days_covered_from(today, &facts.bounds()),
            }),
        });
    } else if findings.is_empty() {
        if !ctx.out.quiet {
            ctx.out.data(&format!(
                "ok: {}: default partition empty, {} day(s) attached from today, no gaps",
                log.plain(),
                partitions::days_covered_from(today, &facts.bounds())
            ));
        }
    } else {
        for f in &findings {
            ctx.out.data(&format!("problem: {}: {f}", log.plain()));
        }
    }
    Ok(if findings.is_empty() {
        exit_code::OK
    } else {
        exit_code::CHECK_FAILED
    })
}
