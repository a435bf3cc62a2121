//! `outboxctl doctor`: the things the specification warns about, each ok / warn / fail
//! ([`crate::ops::doctor`] runs the checks; this file prints them). Exit 1 on any fail.

use clap::Args;

use super::Ctx;
use crate::duration::Dur;
use crate::exit_code;
use crate::ops::doctor::{self, DoctorOptions, DoctorReport, Level};

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Fail when the oldest pending row is older than this
    #[arg(long, value_name = "DURATION", default_value = "5m")]
    pub max_pending_age: Dur,
}

pub async fn run(ctx: &Ctx, args: DoctorArgs) -> anyhow::Result<u8> {
    let options = DoctorOptions {
        max_pending_age: args.max_pending_age.0,
        connect_timeout: ctx.connect_timeout,
    };
    let report = doctor::run(&ctx.config, options).await?;
    Ok(print(ctx, &report))
}

/// Prints the checks; exit 1 on any fail.
fn print(ctx: &Ctx, report: &DoctorReport) -> u8 {
    let failed = report.failed();
    if ctx.out.is_json() {
        ctx.out
            .json(&serde_json::json!({ "ok": !failed, "checks": report.checks }));
    } else {
        for c in &report.checks {
            let tag = match c.level {
                Level::Ok => "ok  ",
                Level::Warn => "warn",
                Level::Fail => "FAIL",
            };
            if !(ctx.out.quiet && c.level == Level::Ok) {
                ctx.out.data(&format!("{tag}  {:<17} {}", c.name, c.detail));
            }
        }
    }
    if failed {
        exit_code::CHECK_FAILED
    } else {
        exit_code::OK
    }
}
