//! `outboxctl hlc show`: the HLC checkpoint's marks, their maximum, and how far it is ahead of
//! the wall clock (a mark far in the future pins every new stamp there).

use clap::Subcommand;

use super::Ctx;
use crate::Error;
use crate::hlc::MAX_DRIFT_MS;
use crate::store::ops::OpsStore;

#[derive(Debug, Subcommand)]
pub enum HlcCommand {
    /// The checkpoint rows, the max, and its distance from the wall clock
    Show,
}

pub async fn run(ctx: &Ctx, _cmd: HlcCommand) -> anyhow::Result<()> {
    let mut outboxes = ctx.backend().outboxes(None).await?;
    if outboxes.is_empty() {
        return Err(Error::NotConfigured("no outbox configured").into());
    }
    let mut ops = outboxes.open(0).await?;
    let rows = ops.checkpoints().await?.ok_or(Error::NotConfigured(
        "no HLC checkpoint configured: set outbox.hlc_checkpoint (or pass --hlc-checkpoint SCHEMA.TABLE)",
    ))?;
    let now = chrono::Utc::now();
    let max = rows.iter().max_by_key(|r| r.hlc);
    let ahead_ms = max.map(|m| (m.physical - now).num_milliseconds());
    if ctx.out.is_json() {
        ctx.out.json(&serde_json::json!({
            "rows": rows,
            "max": max,
            "ahead_of_wall_clock_ms": ahead_ms,
            "too_far_ahead": ahead_ms.is_some_and(|a| a > MAX_DRIFT_MS as i64),
        }));
        return Ok(());
    }
    if rows.is_empty() {
        ctx.out
            .note("the checkpoint has no marks yet (created on the first stamped flush)");
        return Ok(());
    }
    let mut t = super::output::table();
    t.set_header(["node key", "hlc (packed)", "physical (UTC)", "logical"]);
    for r in &rows {
        t.add_row([
            r.node_key.clone(),
            r.hlc.to_string(),
            r.physical.format("%Y-%m-%d %H:%M:%S%.3f").to_string(),
            r.logical.to_string(),
        ]);
    }
    ctx.out.data(&t.to_string());
    if let (Some(m), Some(ahead)) = (max, ahead_ms) {
        let rel = if ahead >= 0 {
            format!(
                "{} ahead of",
                crate::duration::age(chrono::Duration::milliseconds(ahead))
            )
        } else {
            format!(
                "{} behind",
                crate::duration::age(chrono::Duration::milliseconds(-ahead))
            )
        };
        ctx.out.data(&format!(
            "max {} (node {}), {rel} the wall clock",
            m.hlc, m.node_key
        ));
        if ahead > MAX_DRIFT_MS as i64 {
            ctx.out.warn("the mark is more than 5 minutes ahead of the wall clock: every new stamp will carry it forward");
        }
    }
    Ok(())
}
