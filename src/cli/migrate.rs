//! `outboxctl migrate`: read the live catalog, plan what is missing, and apply it (or print
//! it with `--dry-run`, or fail with `--check`). Only ever adds, so it asks no confirmation.
//! [`crate::ops::migrate`] plans and applies; this file prints.

use std::time::Duration;

use clap::Args;
use serde::Serialize;

use super::Ctx;
use crate::dburl::Backend;
use crate::duration::Dur;
use crate::ops::migrate::Migration;
use crate::schema::plan::{self, MigrationPlan, Problem};
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

#[derive(Debug, Serialize)]
struct MigrateReport<'a> {
    status: &'static str,
    backend: Backend,
    target: String,
    steps: &'a [plan::Step],
    problems: &'a [Problem],
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

    let report = |status: &'static str, plan: &MigrationPlan| {
        if ctx.out.is_json() {
            ctx.out.json(&MigrateReport {
                status,
                backend: ctx.config.backend,
                target: target.clone(),
                steps: &plan.steps,
                problems: &plan.problems,
            });
        }
    };

    if !apply {
        let plan = &migration.plan;
        let status = if plan.is_up_to_date() {
            "up_to_date"
        } else {
            "pending"
        };
        report(status, plan);
        if !ctx.out.is_json() {
            if plan.is_up_to_date() {
                ctx.out.note(&format!("schema of {target} is up to date"));
            } else if args.check {
                for step in &plan.steps {
                    ctx.out.data(&format!("missing: {}", step.summary));
                }
                print_problems(ctx, &plan.problems);
            } else {
                ctx.out.data(&plan.script(comment));
            }
        }
        let missing = if args.check { plan.steps.len() } else { 0 };
        return verdict(&target.to_string(), missing, plan.problems.len());
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
    report(
        if plan.steps.is_empty() {
            "up_to_date"
        } else {
            "applied"
        },
        plan,
    );
    if !ctx.out.is_json() {
        if plan.steps.is_empty() && plan.problems.is_empty() {
            ctx.out.note(&format!("schema of {target} is up to date"));
        }
        print_problems(ctx, &plan.problems);
    }
    verdict(&target.to_string(), 0, plan.problems.len())
}

/// A failed check (exit 1) when `--check` found steps missing or the plan holds problems
/// migrate cannot fix; they are printed already, the error line sums them up.
fn verdict(target: &str, missing: usize, problems: usize) -> anyhow::Result<()> {
    let mut found = Vec::new();
    if missing > 0 {
        found.push(format!("{missing} step(s) missing"));
    }
    if problems > 0 {
        found.push(format!("{problems} problem(s) migrate cannot fix"));
    }
    if found.is_empty() {
        return Ok(());
    }
    Err(crate::Error::CheckFailed(format!("schema of {target}: {}", found.join(", "))).into())
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
