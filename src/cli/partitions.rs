//! `outboxctl partitions list | add-ahead | drop-expired | check`: the delivery log's daily
//! partitions, made for cron (idempotent, `-q` silent on success, `--format json`).

use clap::{Args, Subcommand};

use super::Ctx;
use crate::duration::Dur;
use crate::ops::partitions::{self as ops, DeliveryLog, Fix, FixStep};
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
    #[arg(long, value_name = "DURATION", value_parser = crate::duration::pg_timeout)]
    pub lock_timeout: Option<Dur>,
    /// Attempts after the first when a lock stays busy (default: partitions.retries, 5)
    #[arg(long, value_name = "N")]
    pub retries: Option<u32>,
}

/// A day count's flag: at most [`crate::config::MAX_DAYS`].
fn day_count() -> clap::builder::RangedI64ValueParser<u32> {
    clap::value_parser!(u32).range(..=i64::from(crate::config::MAX_DAYS))
}

#[derive(Debug, Args)]
pub struct AddAheadArgs {
    /// Days after today to cover (default: partitions.ahead_days, 7)
    #[arg(long, value_name = "N", value_parser = day_count())]
    pub days: Option<u32>,
    /// Print which days would be added and change nothing
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub lock: LockArgs,
}

#[derive(Debug, Args)]
pub struct DropArgs {
    /// Days to keep (default: partitions.keep_days, 30)
    #[arg(long, value_name = "N", value_parser = day_count())]
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
    #[arg(long, value_name = "N", value_parser = day_count())]
    pub min_ahead: Option<u32>,
    /// Move rows out of the default partition into day partitions; attach empty days over gaps
    #[arg(long)]
    pub fix: bool,
    /// With --fix: print what it would move and add, and change nothing
    #[arg(long, requires = "fix")]
    pub dry_run: bool,
    #[command(flatten)]
    pub lock: LockArgs,
}

impl LockArgs {
    fn policy(&self, ctx: &Ctx) -> LockPolicy {
        ops::lock_policy(&ctx.config, self.lock_timeout.map(|d| d.0), self.retries)
    }
}

/// Each delivery log in turn (a per-tenant one: each tenant's); the first failure is kept.
pub async fn run(ctx: &Ctx, cmd: PartitionsCommand) -> anyhow::Result<()> {
    let (mut log, logs) = ops::open(&ctx.config, ctx.connect_timeout).await?;
    let mut outcome = Ok(());
    for name in &logs {
        log.turn_to(name).await?;
        outcome = outcome.and(match &cmd {
            PartitionsCommand::List => list(ctx, &mut log).await,
            PartitionsCommand::AddAhead(a) => add_ahead(ctx, &mut log, a).await,
            PartitionsCommand::DropExpired(a) => drop_expired(ctx, &mut log, a).await,
            PartitionsCommand::Check(a) => check(ctx, &mut log, a).await,
        });
    }
    outcome
}

async fn list(ctx: &Ctx, log: &mut DeliveryLog) -> anyhow::Result<()> {
    let listing = log.list(ctx.config.partitions.ahead_days).await?;
    ctx.out.show(&listing, || {
        let header = [
            "partition",
            "from (UTC)",
            "to (UTC)",
            "est. rows",
            "size",
            "flags",
        ];
        let rows = listing.rows().into_iter().map(|(p, flags)| {
            let (from, to) = p.partition.bound.span();
            let (rows, size) = (
                crate::text::opt(p.estimated_rows),
                crate::vacuum::size(p.bytes),
            );
            vec![
                p.partition.name.clone(),
                from,
                to,
                rows,
                size,
                flags.join(", "),
            ]
        });
        ctx.out.table(header, rows);
        ctx.out.lines("", listing.notes());
    });
    Ok(())
}

async fn add_ahead(ctx: &Ctx, log: &mut DeliveryLog, args: &AddAheadArgs) -> anyhow::Result<()> {
    let days = args.days.unwrap_or(ctx.config.partitions.ahead_days);
    let bar = ctx.progress(u64::from(days) + 1, "adding partitions");
    let report = log
        .add_ahead(days, args.lock.policy(ctx), args.dry_run, |_| bar.inc(1))
        .await?;
    bar.finish_and_clear();
    ctx.out.show(&report, || {
        ctx.out.lines("", report.lines(!ctx.out.quiet));
        if report.nothing_to_do() {
            let (n, today) = (days + 1, log.today);
            ctx.out.note(&format!(
                "{n} days from {today} already attached; nothing to do"
            ));
        }
    });
    Ok(report.verdict()?)
}

async fn drop_expired(ctx: &Ctx, log: &mut DeliveryLog, args: &DropArgs) -> anyhow::Result<()> {
    let keep = args.keep_days.unwrap_or(ctx.config.partitions.keep_days);
    let plan = log.plan_drop(keep)?;
    let cutoff = plan.cutoff.format("%Y-%m-%d");
    if plan.would_drop.is_empty() {
        ctx.out.show(&plan.nothing_dropped(), || {
            let log = &plan.log;
            ctx.out.note(&format!(
                "no partition of {log} ends at or before {cutoff}; nothing to drop"
            ));
        });
        return Ok(());
    }
    if args.dry_run {
        ctx.out.show(&plan, || ctx.out.lines("", plan.statements()));
        return Ok(());
    }
    let names = &plan.would_drop;
    let (n, all, name) = (names.len(), names.join(", "), &plan.log);
    ctx.confirm(&format!(
        "drop {n} partition(s) of {name} ending at or before {cutoff} ({all})"
    ))?;
    let bar = ctx.progress(names.len() as u64, "dropping partitions");
    let report = log
        .drop_expired(&plan, args.lock.policy(ctx), || bar.inc(1))
        .await?;
    bar.finish_and_clear();
    ctx.out
        .show(&report, || ctx.out.lines("", report.lines(!ctx.out.quiet)));
    Ok(report.verdict()?)
}

async fn check(ctx: &Ctx, log: &mut DeliveryLog, args: &CheckArgs) -> anyhow::Result<()> {
    let min_ahead = args.min_ahead.unwrap_or(ctx.config.partitions.ahead_days);
    let fix = Fix::chosen(args.fix, args.dry_run, args.lock.policy(ctx))?;
    let shown = !ctx.out.is_json() && !ctx.out.quiet;
    let each = |step: &FixStep| ctx.out.lines("", shown.then_some(step));
    let report = log.check(min_ahead, fix, each).await?;
    ctx.out
        .show(&report, || ctx.out.lines("", report.lines(ctx.out.quiet)));
    Ok(report.verdict()?)
}
