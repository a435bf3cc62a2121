//! `outboxctl storage status | to-consume`: the retain → consume move, step by step
//! ([`crate::ops::storage`] checks each step, refusing unsafe ones); this file confirms and prints.

use clap::{Args, Subcommand};

use super::Ctx;
use crate::duration::Dur;
use crate::ops::storage::{self, DropOptions, StepReport, StorageMove, StorageStatus, WaitOutcome};

#[derive(Debug, Subcommand)]
pub enum StorageCommand {
    /// Where the table stands: columns, processing and published rows, the next step
    Status,
    /// Walk the retain → consume steps (the next one, or --step N)
    ToConsume(ToConsumeArgs),
}

#[derive(Debug, Args)]
pub struct ToConsumeArgs {
    /// Run this step (default: the next one)
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=3))]
    pub step: Option<u8>,
    /// Change nothing: step 1 confirms nothing, step 3 prints its SQL
    #[arg(long)]
    pub dry_run: bool,
    /// Every relay on this table runs with reclaim off (reclaim_stale_after: null); step 3 needs it
    #[arg(long)]
    pub reclaim_disabled: bool,
    /// Step 2: wait up to this long for processing and published rows to be gone (without it:
    /// report what blocks, exit 5)
    #[arg(long, value_name = "DURATION")]
    pub wait: Option<Dur>,
    /// lock_timeout for step 3's table lock
    #[arg(long, value_name = "DURATION", value_parser = crate::duration::pg_timeout, default_value = "500ms")]
    pub lock_timeout: Dur,
    /// Attempts after the first when the lock stays busy
    #[arg(long, default_value_t = 10)]
    pub retries: u32,
    /// statement_timeout for step 3's re-check and drop while the table is locked
    #[arg(long, value_name = "DURATION", value_parser = crate::duration::pg_timeout, default_value = "2s")]
    pub check_timeout: Dur,
}

impl From<&ToConsumeArgs> for DropOptions {
    fn from(args: &ToConsumeArgs) -> Self {
        DropOptions {
            lock_timeout: args.lock_timeout.0,
            retries: args.retries,
            check_timeout: args.check_timeout.0,
        }
    }
}

/// Prints each table's status: one JSON object for one table, an array for several.
fn print_statuses(ctx: &Ctx, all: &[StorageStatus]) {
    let text = || {
        let text: Vec<String> = all.iter().map(StorageStatus::to_string).collect();
        ctx.out.data(&text.join("\n\n"));
    };
    match all {
        [one] => ctx.out.show(one, text),
        many => ctx.out.show(&many, text),
    }
}

pub async fn run(ctx: &Ctx, cmd: StorageCommand) -> anyhow::Result<()> {
    let mut outbox = StorageMove::open(&ctx.config, ctx.connect_timeout).await?;
    match cmd {
        StorageCommand::Status => {
            print_statuses(ctx, &outbox.statuses(false).await?);
            Ok(())
        }
        StorageCommand::ToConsume(args) => to_consume(ctx, &mut outbox, args).await,
    }
}

/// A step's report: as JSON, or what comes next in a sentence.
fn print_step(ctx: &Ctx, r: &StepReport) {
    ctx.out.show(r, || ctx.out.note(&r.next));
}

async fn to_consume(
    ctx: &Ctx,
    outbox: &mut StorageMove<'_>,
    args: ToConsumeArgs,
) -> anyhow::Result<()> {
    let all = outbox.statuses(args.reclaim_disabled).await?;
    let names = all.iter().map(|s| s.table.as_str()).collect::<Vec<_>>();
    let names = names.join(", ");
    let Some(step) = storage::step_to_run(args.step, &all) else {
        print_step(ctx, &StepReport::done(None, &names));
        return Ok(());
    };
    match step {
        1 => {
            let missing = outbox.missing_consume_function().await?;
            let report = StepReport::step_1(&names, args.dry_run, &ctx.config, missing);
            report.warnings.iter().for_each(|w| ctx.out.warn(w));
            if !ctx.out.is_json() {
                ctx.out.data(&storage::step_1_asks(&names));
            }
            if !args.dry_run {
                ctx.confirm(
                    "confirm that every relay now runs with storage: consume and reclaim on",
                )?;
            }
            print_step(ctx, &report);
            Ok(())
        }
        2 => {
            let bar = (ctx.out).progress(None, "waiting for processing and published rows to go");
            let shown = |processing, published| {
                bar.set_message(format!("{processing} processing, {published} published"))
            };
            let wait = args.wait.map(|w| w.0);
            let outcome = outbox
                .wait_until_empty(args.reclaim_disabled, all, wait, shown)
                .await?;
            bar.finish_and_clear();
            match &outcome {
                WaitOutcome::Done => print_step(ctx, &StepReport::done(Some(2), &names)),
                WaitOutcome::NotDone(all) => print_statuses(ctx, all),
            }
            Ok(outcome.verdict()?)
        }
        _ => step3(ctx, outbox, &all, &args).await,
    }
}

async fn step3(
    ctx: &Ctx,
    outbox: &mut StorageMove<'_>,
    all: &[StorageStatus],
    args: &ToConsumeArgs,
) -> anyhow::Result<()> {
    let plan = outbox.drop_plan(all).await;
    plan.warnings.iter().for_each(|w| ctx.out.warn(w));
    if plan.drops.is_empty() {
        print_step(ctx, &StepReport::done(Some(3), ""));
        return Ok(());
    }
    if args.dry_run {
        // the script, then the exit a run would give now ("may step 3 run?" by its code)
        let report = StepReport::dropping(&plan, Some(plan.script(args.into())));
        let script = report.script.as_deref().unwrap_or_default();
        ctx.out.show(&report, || ctx.out.data(script));
        return Ok(plan.verdict("would be refused now")?);
    }
    plan.verdict("refused")?;
    ctx.confirm(&format!("drop {} (cannot be undone)", plan.what()))?;
    let each = |d: &storage::DropColumns| ctx.out.lines("", (!ctx.out.is_json()).then_some(d));
    outbox.drop_all(&plan, args.into(), each).await?;
    print_step(ctx, &StepReport::dropping(&plan, None));
    Ok(())
}
