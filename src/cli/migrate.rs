//! `outboxctl migrate`: [`crate::ops::migrate`] plans what is missing and applies it (or prints it
//! with `--dry-run`, or fails with `--check`); it only adds, and asks no confirmation, unless
//! `--prune-functions` drops the functions of the pass the configuration's relay does not call.

use std::time::{Duration, Instant};

use clap::Args;

use super::Ctx;
use crate::duration::Dur;
use crate::ops::migrate::{BuildWaits, Migration};
use crate::schema::plan::Step;

#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// Print the plan and change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Change nothing; exit 1 when the database differs from the configured schema
    #[arg(long, conflicts_with = "dry_run")]
    pub check: bool,
    /// lock_timeout for each change to an existing table (default: half relay.pass_statement_timeout)
    #[arg(long, value_name = "DURATION", value_parser = crate::duration::pg_timeout)]
    pub lock_timeout: Option<Dur>,
    /// Attempts after the first when a lock stays busy
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub retries: u32,
    /// How long to wait for another migrate of the same outbox to finish
    #[arg(long, value_name = "DURATION", default_value = "5m")]
    pub lock_wait: Dur,
    /// Also drop the functions of the pass this configuration's relay does not call (asks first)
    #[arg(long)]
    pub prune_functions: bool,
}

impl MigrateArgs {
    /// `migrate --dry-run` with the defaults (clap's own).
    pub fn dry_run() -> Self {
        #[derive(clap::Parser)]
        struct Only {
            #[command(flatten)]
            args: MigrateArgs,
        }
        <Only as clap::Parser>::parse_from(["migrate", "--dry-run"]).args
    }
}

pub async fn run(ctx: &Ctx, args: MigrateArgs) -> anyhow::Result<()> {
    let apply = !(args.dry_run || args.check);
    let policy = Migration::lock_policy(&ctx.config, args.lock_timeout.map(|d| d.0), args.retries);
    let mut migration = Migration::plan(
        &ctx.config,
        ctx.connect_timeout,
        apply.then_some(args.lock_wait.0),
        args.prune_functions,
        policy,
    )
    .await?;
    let target = migration.target.clone();
    let comment = migration.comment();
    if !ctx.out.is_json() {
        migration.warnings.iter().for_each(|w| ctx.out.warn(w));
    }
    if !apply {
        let plan = &migration.plan;
        ctx.out.show(&migration.report(false), || {
            if plan.is_up_to_date() {
                ctx.out.note(&format!("schema of {target} is up to date"));
            } else if args.check {
                ctx.out
                    .lines("missing: ", plan.steps.iter().map(|s| &s.summary));
                ctx.out.lines("problem: ", plan.problems.iter());
            } else {
                ctx.out.data(&plan.script(comment));
            }
        });
        return Ok(migration.verdict(args.check)?);
    }

    if let Some(question) = migration.prune_question() {
        ctx.confirm(&question)?;
    }
    let bar = ctx.progress(migration.plan.steps.len() as u64, "migrating");
    let mut waits = BuildWaits::default();
    let applied = |step: &Step, took: Duration| {
        bar.inc(1);
        bar.set_message("migrating");
        let line = format!("applied: {} ({:.2}s)", step.summary, took.as_secs_f64());
        if !ctx.out.is_json() && !ctx.out.quiet {
            bar.suspend(|| ctx.out.data(&line));
        }
    };
    let building = |step: &Step, p: &_| {
        let (shown, named) = waits.saw(&step.summary, p, Instant::now());
        bar.set_message(shown);
        named.inspect(|line| bar.suspend(|| ctx.out.warn(line)));
    };
    migration.apply(policy, applied, building).await?;
    bar.finish_and_clear();
    let plan = &migration.plan;
    ctx.out.show(&migration.report(true), || {
        if plan.steps.is_empty() && plan.problems.is_empty() {
            ctx.out.note(&format!("schema of {target} is up to date"));
        }
        ctx.out.lines("problem: ", plan.problems.iter());
    });
    Ok(migration.verdict(false)?)
}
