//! `outboxctl route pause|resume|list`: stop one route everywhere in an incident (its rows
//! stay pending, the relays and other routes go on), and resume it later; every pause and
//! resume is kept as history.

use clap::Subcommand;
use uuid::Uuid;

use super::Ctx;
use crate::ops::fleet::{self, RouteRef, RouteState};

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
            if done.unserved {
                ctx.out.warn(&format!(
                    "no live relay serves route {route}{}: it is paused all the same, for any relay that starts",
                    tenant.map(|t| format!(" for tenant {t}")).unwrap_or_default()
                ));
            }
            if ctx.out.is_json() {
                ctx.out.json(&done);
            } else if done.already {
                let p = &done.pause;
                ctx.out
                    .data(&format!("route {route} was paused already, {p}"));
            } else {
                ctx.out.data(&format!(
                    "route {route} paused: every outboxctl relay stops claiming it within relay.heartbeat (`outboxctl route resume {route}` to undo)"
                ));
            }
        }
        RouteCommand::Resume { route, tenant } => {
            let target = RouteRef::checked(&ctx.config, &route, tenant)?;
            let ended = fleet::resume(&ctx.config, ctx.connect_timeout, &target).await?;
            if ctx.out.is_json() {
                ctx.out
                    .json(&serde_json::json!({ "resumed": ended.is_some(), "pause": ended }));
            } else if let Some(p) = ended {
                ctx.out.data(&format!(
                    "route {route} resumed (paused {p}); relays claim it again within relay.heartbeat"
                ));
            } else {
                ctx.out
                    .data(&format!("route {route} was not paused: nothing to resume"));
            }
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
    let table = ctx
        .out
        .list(rows, empty, "route,tenant,state,since,by,reason", |r| {
            vec![
                r.route.clone(),
                r.tenant.map(|t| t.to_string()).unwrap_or_default(),
                r.state.to_owned(),
                (r.since.map(|s| s.format("%Y-%m-%d %H:%M:%SZ").to_string())).unwrap_or_default(),
                r.by.clone().unwrap_or_default(),
                r.reason.clone().unwrap_or_default(),
            ]
        });
    if let Some(t) = table {
        ctx.out.data(&t.to_string());
    }
}
