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
    if ctx.out.is_json() || report.rows.is_empty() {
        let none = "the checkpoint has no marks yet (created on the first stamped flush)";
        ctx.out.show(&report, || ctx.out.note(none));
        return Ok(());
    }
    let header = ["node key", "hlc (packed)", "physical (UTC)", "logical"];
    let rows = report.rows.iter().map(|r| {
        let physical = r.physical.format("%Y-%m-%d %H:%M:%S%.3f").to_string();
        vec![
            r.node_key.clone(),
            r.hlc.to_string(),
            physical,
            r.logical.to_string(),
        ]
    });
    ctx.out.table(header, rows);
    if let Some((line, warning)) = report.ahead() {
        ctx.out.data(&line);
        if let Some(w) = warning {
            ctx.out.warn(&w);
        }
    }
    Ok(())
}
