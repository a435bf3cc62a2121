//! `outboxctl emit`: stage events from a shell or a script, as forze stages them
//! ([`crate::ops::emit`] builds and stages them; this file reads the payload and prints).

use clap::Args;
use uuid::Uuid;

use super::Ctx;
use crate::ops::emit::{self, Emit, EmitReport};

#[derive(Debug, Args)]
pub struct EmitArgs {
    /// The outbox route
    #[arg(long, value_parser = crate::model::parse_route)]
    pub route: String,
    /// The event type, e.g. order.placed
    #[arg(long = "type", value_name = "TYPE")]
    pub event_type: String,
    /// The payload: a JSON object, @FILE, or - for standard input
    #[arg(long, value_name = "JSON|@FILE|-")]
    pub payload: String,
    /// The ordering key (default: none; the message is then keyed by its event id)
    #[arg(long, value_name = "KEY", value_parser = crate::model::parse_given)]
    pub ordering_key: Option<String>,
    /// The tenant's UUID (required when the outbox is tenant-aware)
    #[arg(long, value_name = "UUID")]
    pub tenant: Option<Uuid>,
    /// Stored in correlation_id, sent as the forze_correlation_id header
    #[arg(long, value_name = "UUID")]
    pub correlation_id: Option<Uuid>,
    /// Stored in causation_id, sent as the forze_causation_id header
    #[arg(long, value_name = "UUID")]
    pub causation_id: Option<Uuid>,
    /// Stored in execution_id, sent as the forze_execution_id header
    #[arg(long, value_name = "UUID")]
    pub execution_id: Option<Uuid>,
    /// The event id (default: a new time-ordered UUID); staging it again is deduplicated
    #[arg(long, conflicts_with = "count")]
    pub event_id: Option<Uuid>,
    /// W3C traceparent to store (needs propagate_trace)
    #[arg(long)]
    pub traceparent: Option<String>,
    /// Stage this many events (same payload, new ids), e.g. for load tests
    #[arg(long, default_value_t = 1)]
    pub count: u32,
    /// HLC checkpoint node key
    #[arg(long, default_value = "default")]
    pub node_key: String,
}

pub async fn run(ctx: &Ctx, args: EmitArgs) -> anyhow::Result<()> {
    let mut request = Emit {
        route: args.route,
        event_type: args.event_type,
        payload: String::new(),
        ordering_key: args.ordering_key,
        tenant: args.tenant,
        correlation_id: args.correlation_id,
        causation_id: args.causation_id,
        execution_id: args.execution_id,
        event_id: args.event_id,
        traceparent: args.traceparent,
        count: args.count,
        node_key: args.node_key,
    };
    request.check(&ctx.config).map_err(crate::Error::from)?;
    request.payload =
        emit::read_payload(&args.payload, std::io::stdin().lock()).map_err(crate::Error::from)?;
    let many = (request.count > 1).then_some(u64::from(request.count));
    let bar = ctx.out.progress(many, "staging");
    let report = request
        .stage(&ctx.config, ctx.connect_timeout, |n| bar.inc(n))
        .await?;
    bar.finish_and_clear();
    print(ctx, &request.route, &report);
    Ok(())
}

fn print(ctx: &Ctx, route: &str, r: &EmitReport) {
    r.warnings.iter().for_each(|w| ctx.out.warn(w));
    ctx.out.show(r, || {
        let listed = r.events.iter().filter(|_| r.events.len() <= 20);
        ctx.out.lines("", listed);
        let (staged, dedup) = (r.staged, r.deduplicated);
        let line = format!("{staged} staged, {dedup} deduplicated on route {route}");
        ctx.out.note(&line);
    });
}
