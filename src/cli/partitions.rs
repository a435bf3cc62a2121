//! `outboxctl partitions list | add-ahead | drop-expired | check`: the delivery log's daily
//! partitions, made for cron (idempotent, `-q` silent on success, `--format json`).

use clap::{Args, Subcommand};

use super::Ctx;
use crate::duration::Dur;
use crate::ops::partitions::{self as ops, DayResult, DeliveryLog};
use crate::schema::partitions::{Bound, DayAction};
use crate::schema::postgres::LockPolicy;

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

impl LockArgs {
    fn policy(&self, ctx: &Ctx) -> LockPolicy {
        ops::lock_policy(&ctx.config, self.lock_timeout.map(|d| d.0), self.retries)
    }
}

pub async fn run(ctx: &Ctx, cmd: PartitionsCommand) -> anyhow::Result<()> {
    let mut log = ops::open(&ctx.config, ctx.connect_timeout).await?;
    match cmd {
        PartitionsCommand::List => list(ctx, &mut log).await,
        PartitionsCommand::AddAhead(a) => add_ahead(ctx, &mut log, &a).await,
        PartitionsCommand::DropExpired(a) => drop_expired(ctx, &mut log, &a).await,
        PartitionsCommand::Check(a) => check(ctx, &mut log, &a).await,
    }
}

async fn list(ctx: &Ctx, log: &mut DeliveryLog) -> anyhow::Result<()> {
    let listing = log.list(ctx.config.partitions.ahead_days).await?;
    if ctx.out.is_json() {
        ctx.out.json(&listing);
        return Ok(());
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
    let minute = |t: &chrono::DateTime<chrono::Utc>| t.format("%Y-%m-%d %H:%M").to_string();
    for (p, flags) in listing.rows() {
        let (from, to) = match &p.partition.bound {
            Bound::Default => (String::new(), String::new()),
            Bound::Range { from, to } => (minute(from), minute(to)),
            Bound::Other { text } => (text.clone(), String::new()),
        };
        table.add_row([
            p.partition.name.clone(),
            from,
            to,
            p.estimated_rows.to_string(),
            crate::vacuum::size(p.bytes),
            flags.join(", "),
        ]);
    }
    let mut text = table.to_string();
    for note in listing.notes() {
        text.push_str(&format!("\n{note}"));
    }
    ctx.out.data(&text);
    Ok(())
}

async fn add_ahead(ctx: &Ctx, log: &mut DeliveryLog, args: &AddAheadArgs) -> anyhow::Result<()> {
    let days = args.days.unwrap_or(ctx.config.partitions.ahead_days);
    let bar = ctx
        .out
        .progress(Some(u64::from(days) + 1), "adding partitions");
    let report = log
        .add_ahead(days, args.lock.policy(ctx), |_| bar.inc(1))
        .await?;
    bar.finish_and_clear();
    let problems = report.problems();
    if ctx.out.is_json() {
        ctx.out.json(&report);
    } else {
        for r in &report.days {
            let (DayAction::Present { day, partition }
            | DayAction::Add { day, partition }
            | DayAction::Conflict { day, partition }) = &r.action;
            match r.result {
                DayResult::Added => ctx.out.data(&format!("added: {partition} for {day}")),
                DayResult::Present => {}
                result => ctx.out.data(&format!(
                    "{}: {day}: {}",
                    result.as_str(),
                    r.reason.as_deref().unwrap_or_default()
                )),
            }
        }
        if report.added == 0 && problems == 0 {
            ctx.out.note(&format!(
                "{} days from {} already attached; nothing to do",
                days + 1,
                log.today
            ));
        }
    }
    Ok(report.verdict()?)
}

async fn drop_expired(ctx: &Ctx, log: &mut DeliveryLog, args: &DropArgs) -> anyhow::Result<()> {
    let keep = args.keep_days.unwrap_or(ctx.config.partitions.keep_days);
    let plan = log.plan_drop(keep)?;
    let cutoff = plan.cutoff.format("%Y-%m-%d");
    if plan.would_drop.is_empty() {
        if ctx.out.is_json() {
            ctx.out.json(&plan.nothing_dropped());
        } else {
            ctx.out.note(&format!(
                "no partition of {} ends at or before {cutoff}; nothing to drop",
                plan.log
            ));
        }
        return Ok(());
    }
    if args.dry_run {
        if ctx.out.is_json() {
            ctx.out.json(&plan);
        } else {
            for statement in plan.statements() {
                ctx.out.data(&statement);
            }
        }
        return Ok(());
    }
    let names = &plan.would_drop;
    super::confirm::confirm(
        ctx.yes,
        &format!(
            "drop {} partition(s) of {} ending at or before {cutoff} ({})",
            names.len(),
            plan.log,
            names.join(", ")
        ),
    )?;
    let bar = ctx
        .out
        .progress(Some(names.len() as u64), "dropping partitions");
    let report = log
        .drop_expired(&plan, args.lock.policy(ctx), || bar.inc(1))
        .await?;
    bar.finish_and_clear();
    if ctx.out.is_json() {
        ctx.out.json(&report);
    } else {
        for n in &report.dropped {
            ctx.out.data(&format!("dropped: {n}"));
        }
        for g in &report.gave_up {
            ctx.out
                .data(&format!("gave up: {}: {}", g.partition, g.reason));
        }
    }
    Ok(report.verdict()?)
}

async fn check(ctx: &Ctx, log: &mut DeliveryLog, args: &CheckArgs) -> anyhow::Result<()> {
    let min_ahead = args.min_ahead.unwrap_or(ctx.config.partitions.ahead_days);
    let fix = args.fix.then(|| args.lock.policy(ctx));
    let report = log
        .check(min_ahead, fix, |step| {
            if !ctx.out.is_json() {
                ctx.out.data(&step.to_string());
            }
        })
        .await?;
    if ctx.out.is_json() {
        ctx.out.json(&report);
    } else if report.ok {
        if !ctx.out.quiet {
            ctx.out.data(&format!(
                "ok: {}: default partition empty, {} day(s) attached from today, no gaps",
                report.log, report.days_attached_from_today
            ));
        }
    } else {
        for f in &report.findings {
            ctx.out.data(&format!("problem: {}: {f}", report.log));
        }
    }
    Ok(report.verdict()?)
}
