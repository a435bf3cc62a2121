//! `outboxctl doctor`: the things the specification warns about, each ok / warn / fail
//! ([`crate::ops::doctor`] runs the checks; this file prints them). Exit 1 on any fail.

use clap::Args;

use super::Ctx;
use crate::duration::Dur;
use crate::ops::doctor::{self, DoctorOptions, DoctorReport, Level};

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Fail when the oldest pending row is older than this
    #[arg(long, value_name = "DURATION", default_value = "5m")]
    pub max_pending_age: Dur,
    /// Warn when a transaction holding the xmin horizon is older than this; fail past 12 times
    /// it (PostgreSQL)
    #[arg(long, value_name = "DURATION", default_value = "5m")]
    pub max_xmin_age: Dur,
    /// Warn when a replication slot or walsender holds the xmin horizon back more transaction
    /// ids than this; fail past 12 times it (PostgreSQL)
    #[arg(long, value_name = "XIDS", default_value_t = 1_000_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_xmin_xids: u64,
}

pub async fn run(ctx: &Ctx, args: DoctorArgs) -> anyhow::Result<()> {
    let options = DoctorOptions {
        max_pending_age: args.max_pending_age.0,
        connect_timeout: ctx.connect_timeout,
        xmin: doctor::xmin::XminLimits {
            max_age: args.max_xmin_age.0,
            max_xids: args.max_xmin_xids,
        },
    };
    let report = doctor::run(&ctx.config, options).await?;
    print(ctx, &report);
    Ok(report.verdict()?)
}

/// Prints the checks (`-q`: only those not ok).
fn print(ctx: &Ctx, report: &DoctorReport) {
    let json = serde_json::json!({ "ok": !report.failed(), "checks": report.checks });
    ctx.out.show(&json, || {
        let shown = (report.checks.iter()).filter(|c| !(ctx.out.quiet && c.level == Level::Ok));
        let width = report.name_width();
        let line =
            |c: &doctor::Check| format!("{}  {:<width$} {}", c.level.tag(), c.name, c.detail);
        ctx.out.lines("", shown.map(line));
    });
}
