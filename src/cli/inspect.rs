//! `outboxctl inspect [summary] | pending | failed | event ID`: what is stuck and why.

use clap::{Args, Subcommand};
use uuid::Uuid;

use super::Ctx;
use super::output::error_cell;
use crate::duration::{Dur, age};
use crate::ops::failure_groups::FailureGroup;
use crate::ops::inspect::{EventReport, Inspector, Page, RowNarrowing, blocked_notes};
use crate::store::ops::{BlockedKey, ListStatus, RouteSummary, RowView};
use crate::text::{ms, opt, with_tenant};

#[derive(Debug, Args)]
pub struct InspectArgs {
    #[command(subcommand)]
    pub command: Option<InspectCommand>,
    /// Only this route
    #[arg(long, global = true, value_parser = crate::model::parse_route)]
    pub route: Option<String>,
    /// Only this tenant (tenant-aware outboxes)
    #[arg(long, global = true)]
    pub tenant: Option<Uuid>,
}

#[derive(Debug, Subcommand)]
pub enum InspectCommand {
    /// Per route: pending (ripe, scheduled), processing (stale), failed, ages, attempts, deliveries
    Summary,
    /// Pending rows, oldest first
    Pending(ListArgs),
    /// Failed (parked) rows, oldest first; with --group, grouped by their error
    Failed(FailedArgs),
    /// Keys strict order holds back: each key's parked, in-flight or retrying head row and how
    /// many rows wait behind it, most first
    Blocked {
        /// At most this many keys
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..))]
        limit: u32,
    },
    /// The relays registered (outbox.registry): where each runs, its routes, live, stale or
    /// stopped, its last pass and error
    Relays,
    /// Where an event is: its outbox row, or its delivery-log records
    Event {
        /// The event id
        event_id: Uuid,
    },
}

#[derive(Debug, Args, Clone, Default)]
pub struct FilterArgs {
    /// Only this event type
    #[arg(long = "type", value_name = "TYPE", value_parser = crate::model::parse_given)]
    pub event_type: Option<String>,
    /// Only rows created longer ago than this
    #[arg(long, value_name = "DURATION")]
    pub older_than: Option<Dur>,
    /// Only rows whose last_error contains this text
    #[arg(long, value_name = "TEXT")]
    pub error_contains: Option<String>,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub filter: FilterArgs,
    /// At most this many rows
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..))]
    pub limit: u32,
    /// Rows after this row id (keyset pagination: pass the last id of the previous page)
    #[arg(long, value_name = "ID")]
    pub after: Option<Uuid>,
}

#[derive(Debug, Args)]
pub struct FailedArgs {
    #[command(flatten)]
    pub list: ListArgs,
    /// Group the rows by a fingerprint of their last error (numbers, ids, addresses, durations
    /// and quoted text masked), most rows first; its id serves `requeue`/`discard --group`
    #[arg(long, conflicts_with_all = ["limit", "after"])]
    pub group: bool,
    /// With --group: also rows waiting for a retry, not only parked ones
    #[arg(long, requires = "group", conflicts_with_all = ["limit", "after"])]
    pub retrying: bool,
}

impl From<&FilterArgs> for RowNarrowing {
    fn from(f: &FilterArgs) -> Self {
        RowNarrowing {
            event_type: f.event_type.clone(),
            older_than: f.older_than.map(|d| d.0),
            error_contains: f.error_contains.clone(),
        }
    }
}

impl From<&ListArgs> for Page {
    fn from(l: &ListArgs) -> Self {
        Page {
            narrowing: (&l.filter).into(),
            limit: l.limit,
            after: l.after,
        }
    }
}

pub async fn run(ctx: &Ctx, mut args: InspectArgs) -> anyhow::Result<()> {
    let command = args.command.take().unwrap_or(InspectCommand::Summary);
    if let InspectCommand::Relays = command {
        let relays = crate::ops::fleet::relays(&ctx.config, ctx.connect_timeout).await?;
        print_relays(ctx, &relays);
        return Ok(());
    }
    let mut inspector =
        Inspector::open(&ctx.config, ctx.connect_timeout, args.route, args.tenant).await?;
    inspector.warning().iter().for_each(|w| ctx.out.warn(w));
    match command {
        InspectCommand::Summary => {
            let all = inspector.summaries().await?;
            print_summary(ctx, &all, inspector.now);
        }
        InspectCommand::Pending(l) => {
            let rows = inspector.rows(ListStatus::Pending, &(&l).into()).await?;
            print_rows(ctx, &rows, l.limit);
        }
        InspectCommand::Failed(f) if f.group => {
            let groups = inspector
                .failure_groups(&(&f.list.filter).into(), f.retrying)
                .await?;
            print_groups(ctx, &groups);
        }
        InspectCommand::Failed(f) => {
            let rows = inspector
                .rows(ListStatus::Failed, &(&f.list).into())
                .await?;
            print_rows(ctx, &rows, f.list.limit);
        }
        InspectCommand::Blocked { limit } => print_blocked(ctx, &inspector.blocked(limit).await?),
        InspectCommand::Event { event_id } => print_event(ctx, &inspector.event(event_id).await?),
        InspectCommand::Relays => unreachable!("served above"),
    }
    Ok(())
}

fn print_summary(ctx: &Ctx, all: &[RouteSummary], now: chrono::DateTime<chrono::Utc>) {
    let tenants = all.iter().any(|s| s.tenant.is_some());
    let logs = all.iter().any(|s| s.delivered_last_day.is_some());
    let header = "route,ripe,scheduled,processing,stale,failed,oldest pending,next retry,attempts";
    let logged = logs.then_some(",delivered 1h,delivered 24h");
    let header = with_tenant(tenants, header) + logged.unwrap_or_default();
    let dash = |n: Option<i64>| n.map_or("-".into(), |n| n.to_string());
    let listed = ctx.out.list(all, "the outbox has no rows", &header, |s| {
        let mut row = vec![s.route.clone()];
        row.extend(tenants.then(|| opt(s.tenant)));
        row.extend([s.pending_ripe, s.pending_scheduled, s.processing].map(|n| n.to_string()));
        row.extend([
            dash(s.processing_stale),
            s.failed.to_string(),
            s.oldest_pending.map_or("-".into(), |t| age(now - t)),
            (s.next_retry).map_or("-".into(), |t| format!("in {}", age(t - now))),
            s.attempts_seen(),
        ]);
        if logs {
            row.extend([dash(s.delivered_last_hour), dash(s.delivered_last_day)]);
        }
        row
    });
    ctx.out.lines(
        "",
        all.iter()
            .filter(|_| listed)
            .filter_map(RouteSummary::paused_line),
    );
}

fn print_relays(ctx: &Ctx, relays: &[crate::fleet::RelayRecord]) {
    let empty = "no relay has registered (relays register when they start, once `outboxctl migrate` has added the registry)";
    let header = "id,state,host,pid,version,routes,last seen,last pass,published,lag p99 ms,metrics,last error";
    let now = chrono::Utc::now();
    let ago = |t: chrono::DateTime<chrono::Utc>| format!("{} ago", age(now - t));
    ctx.out.list(relays, empty, header, |r| {
        vec![
            r.id.clone(),
            r.state.as_str().to_owned(),
            r.host.clone(),
            r.pid.to_string(),
            r.version.clone(),
            r.routes_text(),
            ago(r.last_seen),
            r.last_pass_at.map(ago).unwrap_or_else(|| "-".into()),
            r.published.to_string(),
            ms(r.lag_p99_ms),
            opt(r.metrics_addr.as_ref()),
            error_cell(r.last_error.as_deref()),
        ]
    });
}

fn print_blocked(ctx: &Ctx, keys: &[BlockedKey]) {
    let header = "route,tenant,key,waiting,head id,head status,attempts,last error";
    let listed = ctx.out.list(keys, "no key is held back", header, |k| {
        vec![
            k.route.clone(),
            opt(k.tenant_id),
            k.ordering_key.clone(),
            k.waiting.to_string(),
            k.head.id.to_string(),
            k.head.status.clone(),
            k.head.attempts.to_string(),
            error_cell(k.head.last_error.as_deref()),
        ]
    });
    if listed {
        for note in blocked_notes(keys, &ctx.config) {
            ctx.out.note(note);
        }
    }
}

fn print_groups(ctx: &Ctx, groups: &[FailureGroup]) {
    let header = "group,rows,routes,types,attempts,first,last,error";
    let listed = ctx.out.list(groups, "no failed rows", header, |g| {
        vec![
            g.id.clone(),
            g.count.to_string(),
            FailureGroup::spread(&g.routes),
            FailureGroup::spread(&g.event_types),
            g.attempts(),
            g.first_created_at.format(SECONDS).to_string(),
            g.last_created_at.format(SECONDS).to_string(),
            error_cell(Some(&g.sample_error)),
        ]
    });
    if listed {
        ctx.out.note(&format!(
            "{} group(s); act on one with requeue --group ID or discard --group ID",
            groups.len()
        ));
    }
}

const SECONDS: &str = "%Y-%m-%d %H:%M:%S";

/// The rows of a page of `limit`; a full page says how to ask for the next.
pub fn print_rows(ctx: &Ctx, rows: &[RowView], limit: u32) {
    let header = "id,event id,route,type,tenant,key,attempts,available at,created at,last error";
    ctx.out.list(rows, "no rows", header, |r| {
        vec![
            r.id.to_string(),
            r.event_id.to_string(),
            r.route.clone(),
            r.event_type.clone(),
            opt(r.tenant_id),
            opt(r.ordering_key.as_ref()),
            r.attempts.to_string(),
            opt(r.available_at.map(|t| t.format(SECONDS))),
            r.created_at.format(SECONDS).to_string(),
            error_cell(r.last_error.as_deref()),
        ]
    });
    // on stderr in every format: a script reading the JSON is told there is more, too
    if let Some(after) = crate::ops::inspect::next_page_after(rows, limit) {
        ctx.out.note(&format!("next page: --after {after}"));
    }
}

fn print_event(ctx: &Ctx, report: &EventReport) {
    ctx.out.show(report, || ctx.out.data(&report.to_string()));
}
