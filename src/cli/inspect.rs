//! `outboxctl inspect [summary] | pending | failed | event ID`: what is stuck and why.

use std::io::IsTerminal;

use clap::{Args, Subcommand};
use serde::Serialize;
use uuid::Uuid;

use super::Ctx;
use super::Format;
use super::output::table;
use crate::duration::Dur;
use crate::exit_code;
use crate::ops::failure_groups::FailureGroup;
use crate::ops::inspect::{EventReport, Inspector, Page, RowNarrowing};
use crate::store::ops::{BlockedKey, ListStatus, RouteSummary, RowView};

#[derive(Debug, Args)]
pub struct InspectArgs {
    #[command(subcommand)]
    pub command: Option<InspectCommand>,
    /// Only this route
    #[arg(long, global = true)]
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
        #[arg(long, default_value_t = 50)]
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
    #[arg(long = "type", value_name = "TYPE")]
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
    #[arg(long, default_value_t = 50)]
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
    /// and quoted text masked), most rows first; a group's id serves `requeue --group`
    #[arg(long)]
    pub group: bool,
    /// With --group: also rows waiting for a retry, not only parked ones
    #[arg(long, requires = "group")]
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

pub async fn run(ctx: &Ctx, mut args: InspectArgs) -> anyhow::Result<u8> {
    let command = args.command.take().unwrap_or(InspectCommand::Summary);
    if let InspectCommand::Relays = command {
        let relays = crate::ops::fleet::relays(&ctx.config, ctx.connect_timeout).await?;
        print_relays(ctx, &relays);
        return Ok(exit_code::OK);
    }
    let mut inspector =
        Inspector::open(&ctx.config, ctx.connect_timeout, args.route, args.tenant).await?;
    match command {
        InspectCommand::Summary => {
            let mut all = inspector.summaries().await?;
            let pauses = crate::ops::fleet::pauses_if_any(&ctx.config, ctx.connect_timeout).await;
            for s in &mut all {
                s.paused = pauses.find(&s.route, s.tenant).cloned();
            }
            print_summary(ctx, &all, inspector.now);
        }
        InspectCommand::Pending(l) => {
            let rows = inspector.rows(ListStatus::Pending, &(&l).into()).await?;
            print_rows(ctx, &rows);
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
            print_rows(ctx, &rows);
        }
        InspectCommand::Blocked { limit } => print_blocked(ctx, &inspector.blocked(limit).await?),
        InspectCommand::Event { event_id } => print_event(ctx, &inspector.event(event_id).await?),
        InspectCommand::Relays => unreachable!("served above"),
    }
    Ok(exit_code::OK)
}

/// A list as JSON or JSON lines; `false` when the format is a table.
pub(super) fn print_json_list<T: Serialize>(ctx: &Ctx, items: &[T]) -> bool {
    match ctx.out.format {
        Format::Json => ctx.out.json(&items),
        Format::Jsonl => items
            .iter()
            .for_each(|i| ctx.out.data(&serde_json::to_string(i).expect("serialises"))),
        Format::Table => return false,
    }
    true
}

fn print_summary(ctx: &Ctx, all: &[RouteSummary], now: chrono::DateTime<chrono::Utc>) {
    if print_json_list(ctx, all) {
        return;
    }
    if all.is_empty() {
        ctx.out.note("the outbox has no rows");
        return;
    }
    let tenants = all.iter().any(|s| s.tenant.is_some());
    let logs = all.iter().any(|s| s.delivered_last_day.is_some());
    let mut t = table();
    let mut header = vec!["route"];
    if tenants {
        header.push("tenant");
    }
    header.extend([
        "ripe",
        "scheduled",
        "processing",
        "stale",
        "failed",
        "oldest pending",
        "next retry",
        "attempts",
    ]);
    if logs {
        header.extend(["delivered 1h", "delivered 24h"]);
    }
    t.set_header(header);
    for s in all {
        let mut row = vec![s.route.clone()];
        if tenants {
            row.push(s.tenant.map(|t| t.to_string()).unwrap_or_default());
        }
        row.extend([
            s.pending_ripe.to_string(),
            s.pending_scheduled.to_string(),
            s.processing.to_string(),
            s.processing_stale.map_or("-".into(), |n| n.to_string()),
            s.failed.to_string(),
            s.oldest_pending
                .map_or("-".into(), |t| crate::duration::age(now - t)),
            s.next_retry.map_or("-".into(), |t| {
                format!("in {}", crate::duration::age(t - now))
            }),
            s.attempts
                .iter()
                .filter(|(a, _)| **a > 0)
                .map(|(a, n)| format!("{a}×{n}"))
                .collect::<Vec<_>>()
                .join(" "),
        ]);
        if logs {
            row.push(s.delivered_last_hour.map_or("-".into(), |n| n.to_string()));
            row.push(s.delivered_last_day.map_or("-".into(), |n| n.to_string()));
        }
        t.add_row(row);
    }
    let mut out = t.to_string();
    for s in all {
        if let Some(p) = &s.paused {
            out.push_str(&format!(
                "\n{}{}: PAUSED by {} since {}: {}",
                s.route,
                s.tenant.map(|t| format!(" ({t})")).unwrap_or_default(),
                p.by,
                p.since.format("%Y-%m-%d %H:%M:%SZ"),
                p.reason
            ));
        }
    }
    ctx.out.data(&out);
}

fn print_relays(ctx: &Ctx, relays: &[crate::fleet::RelayRecord]) {
    if print_json_list(ctx, relays) {
        return;
    }
    if relays.is_empty() {
        ctx.out.note("no relay has registered (relays register when they start, once `outboxctl migrate` has added the registry)");
        return;
    }
    let now = chrono::Utc::now();
    let ago = |t: chrono::DateTime<chrono::Utc>| format!("{} ago", crate::duration::age(now - t));
    let mut t = table();
    t.set_header([
        "id",
        "state",
        "host",
        "pid",
        "version",
        "routes",
        "last seen",
        "last pass",
        "published",
        "lag p99 ms",
        "metrics",
        "last error",
    ]);
    let short = std::io::stdout().is_terminal();
    for r in relays {
        let mut routes = r.routes.join(",");
        if !r.tenants.is_empty() {
            routes.push_str(&format!(" ×{} tenants", r.tenants.len()));
        }
        t.add_row([
            r.id.clone(),
            r.state.as_str().to_owned(),
            r.host.clone(),
            r.pid.to_string(),
            r.version.clone(),
            routes,
            ago(r.last_seen),
            r.last_pass_at.map(ago).unwrap_or_else(|| "-".into()),
            r.published.to_string(),
            r.lag_p99_ms.map(|v| format!("{v:.1}")).unwrap_or_default(),
            r.metrics_addr.clone().unwrap_or_default(),
            error_cell(r.last_error.as_deref(), short),
        ]);
    }
    ctx.out.data(&t.to_string());
}

/// An error as a cell: whole in a pipe, on a terminal one line of 60 characters at most.
fn error_cell(text: Option<&str>, short: bool) -> String {
    let Some(text) = text else {
        return String::new();
    };
    if !short {
        return text.to_owned();
    }
    let one_line = text.replace('\n', " ");
    match one_line.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]),
        None => one_line,
    }
}

fn print_blocked(ctx: &Ctx, keys: &[BlockedKey]) {
    if print_json_list(ctx, keys) {
        return;
    }
    if keys.is_empty() {
        ctx.out.note("no key is held back");
        return;
    }
    let short = std::io::stdout().is_terminal();
    let mut t = table();
    t.set_header([
        "route",
        "tenant",
        "key",
        "waiting",
        "head id",
        "head status",
        "attempts",
        "last error",
    ]);
    for k in keys {
        t.add_row([
            k.route.clone(),
            k.tenant_id.map(|t| t.to_string()).unwrap_or_default(),
            k.ordering_key.clone(),
            k.waiting.to_string(),
            k.head.id.to_string(),
            k.head.status.clone(),
            k.head.attempts.to_string(),
            error_cell(k.head.last_error.as_deref(), short),
        ]);
    }
    ctx.out.data(&t.to_string());
    ctx.out.note("a parked head waits for `outboxctl requeue --id` or `discard --id`; its key's rows go once it is delivered");
}

fn print_groups(ctx: &Ctx, groups: &[FailureGroup]) {
    if print_json_list(ctx, groups) {
        return;
    }
    if groups.is_empty() {
        ctx.out.note("no failed rows");
        return;
    }
    let short = std::io::stdout().is_terminal();
    let spread = |m: &std::collections::BTreeMap<String, i64>| {
        m.iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut t = table();
    t.set_header([
        "group", "rows", "routes", "types", "attempts", "first", "last", "error",
    ]);
    for g in groups {
        t.add_row([
            g.id.clone(),
            g.count.to_string(),
            spread(&g.routes),
            spread(&g.event_types),
            if g.attempts_min == g.attempts_max {
                g.attempts_min.to_string()
            } else {
                format!("{}-{}", g.attempts_min, g.attempts_max)
            },
            g.first_created_at.format("%Y-%m-%d %H:%M:%S").to_string(),
            g.last_created_at.format("%Y-%m-%d %H:%M:%S").to_string(),
            error_cell(Some(&g.sample_error), short),
        ]);
    }
    ctx.out.data(&t.to_string());
    ctx.out.note(&format!(
        "{} group(s); act on one with requeue --group ID or discard --group ID",
        groups.len()
    ));
}

pub fn print_rows(ctx: &Ctx, rows: &[RowView]) {
    if print_json_list(ctx, rows) {
        return;
    }
    if rows.is_empty() {
        ctx.out.note("no rows");
        return;
    }
    let short = std::io::stdout().is_terminal();
    let mut t = table();
    t.set_header([
        "id",
        "event id",
        "route",
        "type",
        "tenant",
        "key",
        "attempts",
        "available at",
        "created at",
        "last error",
    ]);
    for r in rows {
        t.add_row([
            r.id.to_string(),
            r.event_id.to_string(),
            r.route.clone(),
            r.event_type.clone(),
            r.tenant_id.map(|t| t.to_string()).unwrap_or_default(),
            r.ordering_key.clone().unwrap_or_default(),
            r.attempts.to_string(),
            r.available_at
                .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
                .unwrap_or_default(),
            r.created_at.format("%Y-%m-%d %H:%M:%S").to_string(),
            error_cell(r.last_error.as_deref(), short),
        ]);
    }
    ctx.out.data(&t.to_string());
    if rows.len() > 1 || short {
        ctx.out.note(&format!(
            "next page: --after {}",
            rows.last().expect("not empty").id
        ));
    }
}

fn print_event(ctx: &Ctx, report: &EventReport) {
    if ctx.out.is_json() {
        ctx.out.json(report);
        return;
    }
    let (rows, event_id) = (&report.rows, report.event_id);
    let log_configured = report.deliveries.is_some();
    let deliveries = report.deliveries.as_deref().unwrap_or_default();
    let mut lines = Vec::new();
    for r in rows {
        let what = match r.status.as_str() {
            "published" => "published (retain storage keeps the row)".to_owned(),
            "failed" => format!(
                "parked as failed after {} attempt(s): {}",
                r.attempts,
                r.last_error.as_deref().unwrap_or("")
            ),
            "pending" if r.available_at.is_some_and(|a| a > chrono::Utc::now()) => {
                format!(
                    "pending, retry {} scheduled for {}",
                    r.attempts,
                    r.available_at
                        .expect("checked")
                        .format("%Y-%m-%d %H:%M:%S UTC")
                )
            }
            other => other.to_owned(),
        };
        lines.push(format!("outbox row {} on route {}: {what}", r.id, r.route));
    }
    for d in deliveries {
        lines.push(format!(
            "delivered on route {} at {} (outbox row {})",
            d.route,
            d.published_at.format("%Y-%m-%d %H:%M:%S%.3f UTC"),
            d.id
        ));
    }
    if rows.is_empty() && deliveries.is_empty() {
        lines.push(format!("event {event_id} is not in the outbox"));
        if log_configured {
            lines.push("and the delivery log has no record of it. A missing log row does not prove the event was not delivered: a pass that published and then rolled back logs nothing, and days past retention are dropped.".into());
        } else {
            lines.push("(no delivery log is configured: under consume storage a delivered event leaves no trace)".into());
        }
    } else if rows.is_empty() && log_configured {
        lines.push("its outbox row is gone: each log record proves a committed delivery".into());
    }
    ctx.out.data(&lines.join("\n"));
}
