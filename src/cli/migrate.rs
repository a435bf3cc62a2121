//! `outboxctl migrate`: read the live catalog, plan what is missing, and apply it (or print
//! it with `--dry-run`, or fail with `--check`). Only ever adds, so it asks no confirmation.
//! [`crate::ops::migrate`] plans and applies; this file prints.

use std::time::Duration;

use clap::Args;

use super::Ctx;
use crate::duration::Dur;
use crate::ops::migrate::Migration;
use crate::schema::plan::Problem;
use crate::schema::postgres::LockPolicy;

#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// Print the plan and change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Change nothing; exit 1 when the database differs from the configured schema
    #[arg(long, conflicts_with = "dry_run")]
    pub check: bool,
    /// lock_timeout for each change to an existing table
    #[arg(long, value_name = "DURATION", default_value = "2s")]
    pub lock_timeout: Dur,
    /// Attempts after the first when a lock stays busy
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub retries: u32,
    /// How long to wait for another migrate of the same outbox to finish
    #[arg(long, value_name = "DURATION", default_value = "5m")]
    pub lock_wait: Dur,
}

impl MigrateArgs {
    /// `migrate --dry-run` with the defaults.
    pub fn dry_run() -> Self {
        Self {
            dry_run: true,
            check: false,
            lock_timeout: Dur(Duration::from_secs(2)),
            retries: 5,
            lock_wait: Dur(Duration::from_secs(300)),
        }
    }
}

pub async fn run(ctx: &Ctx, args: MigrateArgs) -> anyhow::Result<()> {
    let apply = !(args.dry_run || args.check);
    let mut migration = Migration::plan(
        &ctx.config,
        ctx.connect_timeout,
        apply.then_some(args.lock_wait.0),
    )
    .await?;
    let target = migration.target.clone();
    let comment = migration.comment();
    if !ctx.out.is_json() {
        for w in &migration.warnings {
            ctx.out.warn(w);
        }
    }
    if !apply {
        let plan = &migration.plan;
        if ctx.out.is_json() {
            ctx.out.json(&migration.report(false));
        } else if plan.is_up_to_date() {
            ctx.out.note(&format!("schema of {target} is up to date"));
        } else if args.check {
            for step in &plan.steps {
                ctx.out.data(&format!("missing: {}", step.summary));
            }
            print_problems(ctx, &plan.problems);
        } else {
            ctx.out.data(&plan.script(comment));
        }
        return Ok(migration.verdict(args.check)?);
    }

    let policy = LockPolicy {
        lock_timeout: args.lock_timeout.0,
        retries: args.retries,
    };
    let bar = ctx
        .out
        .progress(Some(migration.plan.steps.len() as u64), "migrating");
    migration
        .apply(policy, |step, took| {
            bar.inc(1);
            if !ctx.out.is_json() {
                bar.suspend(|| {
                    ctx.out
                        .data(&format!("applied: {} ({})", step.summary, short(took)))
                });
            }
        })
        .await?;
    bar.finish_and_clear();
    let plan = &migration.plan;
    if ctx.out.is_json() {
        ctx.out.json(&migration.report(true));
    } else {
        if plan.steps.is_empty() && plan.problems.is_empty() {
            ctx.out.note(&format!("schema of {target} is up to date"));
        }
        print_problems(ctx, &plan.problems);
    }
    Ok(migration.verdict(false)?)
}

fn print_problems(ctx: &Ctx, problems: &[Problem]) {
    for p in problems {
        ctx.out
            .data(&format!("problem: {}: {}", p.object, p.message));
    }
}

fn short(d: Duration) -> String {
    format!("{:.2}s", d.as_secs_f64())
}
