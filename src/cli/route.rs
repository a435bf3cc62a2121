//! `outboxctl route pause|resume|list`: stop one route on every relay in an incident (its rows stay
//! pending), resume it later ([`crate::ops::fleet`] keeps every pause and resume as history).

use clap::Subcommand;
use uuid::Uuid;

use super::Ctx;
use crate::ops::fleet::{self, RouteRef, RouteState};
use crate::text::opt;

#[derive(Debug, Subcommand)]
pub enum RouteCommand {
    /// Stop claiming a route on every outboxctl relay within one relay.heartbeat (a pass in
    /// flight finishes); its rows stay pending
    Pause {
        /// The route
        route: String,
        /// Only this tenant's rows (tenant-aware outboxes)
        #[arg(long)]
        tenant: Option<Uuid>,
        /// Why (shown by route list, inspect, top and the relays' logs)
        #[arg(long, value_name = "TEXT")]
        reason: String,
    },
    /// Claim a paused route again
    Resume {
        /// The route
        route: String,
        /// The pause of this tenant (tenant-aware outboxes)
        #[arg(long)]
        tenant: Option<Uuid>,
    },
    /// Routes configured or served, paused or active; with --history every pause and resume
    List {
        /// Every pause and resume ever made, oldest first
        #[arg(long)]
        history: bool,
    },
}

pub async fn run(ctx: &Ctx, cmd: RouteCommand) -> anyhow::Result<()> {
    match cmd {
        RouteCommand::Pause {
            route,
            tenant,
            reason,
        } => {
            let target = RouteRef::checked(&ctx.config, &route, tenant)?;
            let done = fleet::pause(&ctx.config, ctx.connect_timeout, &target, &reason).await?;
            (done.warnings(&target, &ctx.config).iter()).for_each(|w| ctx.out.warn(w));
            ctx.out.show(&done, || ctx.out.note(&done.line(&target)));
        }
        RouteCommand::Resume { route, tenant } => {
            let target = RouteRef::checked(&ctx.config, &route, tenant)?;
            let ended = fleet::resume(&ctx.config, ctx.connect_timeout, &target).await?;
            let json = serde_json::json!({ "resumed": ended.is_some(), "pause": ended });
            ctx.out
                .show(&json, || ctx.out.note(&target.resumed(ended.as_ref())));
        }
        RouteCommand::List { history } => {
            let rows = fleet::list(&ctx.config, ctx.connect_timeout, history).await?;
            print_routes(ctx, &rows);
        }
    }
    Ok(())
}

fn print_routes(ctx: &Ctx, rows: &[RouteState]) {
    let empty = "no routes: none configured, none served by a live relay, none ever paused";
    let header = "route,tenant,state,since,by,reason";
    ctx.out.list(rows, empty, header, |r| {
        vec![
            r.route.clone(),
            opt(r.tenant),
            r.state.to_owned(),
            opt(r.since.map(|s| s.format("%Y-%m-%d %H:%M:%SZ"))),
            opt(r.by.as_ref()),
            opt(r.reason.as_ref()),
        ]
    });
}
