//! `outboxctl hlc show`: the HLC checkpoint's marks, their maximum, and how far it is ahead of
//! the wall clock (a mark far in the future pins every new stamp there).

use clap::Subcommand;

use super::Ctx;

#[derive(Debug, Subcommand)]
pub enum HlcCommand {
    /// The checkpoint rows, the max, and its distance from the wall clock
    Show,
}

pub async fn run(ctx: &Ctx, _cmd: HlcCommand) -> anyhow::Result<()> {
    let report = crate::ops::hlc::checkpoint(&ctx.config, ctx.connect_timeout).await?;
    if ctx.out.is_json() {
        ctx.out.json(&report);
        return Ok(());
    }
    if report.rows.is_empty() {
        ctx.out
            .note("the checkpoint has no marks yet (created on the first stamped flush)");
        return Ok(());
    }
    let mut t = super::output::table();
    t.set_header(["node key", "hlc (packed)", "physical (UTC)", "logical"]);
    for r in &report.rows {
        t.add_row([
            r.node_key.clone(),
            r.hlc.to_string(),
            r.physical.format("%Y-%m-%d %H:%M:%S%.3f").to_string(),
            r.logical.to_string(),
        ]);
    }
    ctx.out.data(&t.to_string());
    if let (Some(m), Some(ahead)) = (&report.max, report.ahead_of_wall_clock_ms) {
        let (by, rel) = (ahead.abs(), if ahead >= 0 { "ahead of" } else { "behind" });
        let by = crate::duration::age(chrono::Duration::milliseconds(by));
        ctx.out.data(&format!(
            "max {} (node {}), {by} {rel} the wall clock",
            m.hlc, m.node_key
        ));
        if report.too_far_ahead {
            ctx.out.warn("the mark is more than 5 minutes ahead of the wall clock: every new stamp will carry it forward");
        }
    }
    Ok(())
}
