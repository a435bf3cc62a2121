//! `outboxctl emit`: stage events from a shell or a script, as forze stages them
//! ([`crate::ops::emit`] builds and stages them; this file reads the payload and prints).

use std::io::Read;

use clap::Args;
use uuid::Uuid;

use super::Ctx;
use crate::ops::emit::{self, Emit, EmitError, EmitReport};

#[derive(Debug, Args)]
pub struct EmitArgs {
    /// The outbox route
    #[arg(long)]
    pub route: String,
    /// The event type, e.g. order.placed
    #[arg(long = "type", value_name = "TYPE")]
    pub event_type: String,
    /// The payload: a JSON object, @FILE, or - for standard input
    #[arg(long, value_name = "JSON|@FILE|-")]
    pub payload: String,
    #[arg(long)]
    pub ordering_key: Option<String>,
    #[arg(long)]
    pub tenant: Option<Uuid>,
    #[arg(long)]
    pub correlation_id: Option<Uuid>,
    #[arg(long)]
    pub causation_id: Option<Uuid>,
    #[arg(long)]
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

/// The payload as given: inline, `@FILE` or `-` for standard input.
fn read_payload(arg: &str) -> Result<String, EmitError> {
    let read = |from: String, result: std::io::Result<String>| {
        result.map_err(|source| EmitError::Read { from, source })
    };
    let text = if arg == "-" {
        let mut s = String::new();
        read(
            "from stdin".into(),
            std::io::stdin().read_to_string(&mut s).map(|_| s),
        )?
    } else if let Some(path) = arg.strip_prefix('@') {
        read(format!("file {path}"), std::fs::read_to_string(path))?
    } else {
        arg.to_owned()
    };
    emit::payload(&text)
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
    request.payload = read_payload(&args.payload).map_err(crate::Error::from)?;
    let bar = ctx.out.progress(
        (request.count > 1).then_some(u64::from(request.count)),
        "staging",
    );
    let report = request
        .stage(&ctx.config, ctx.connect_timeout, |n| bar.inc(n))
        .await?;
    bar.finish_and_clear();
    print(ctx, &request.route, &report);
    Ok(())
}

fn print(ctx: &Ctx, route: &str, r: &EmitReport) {
    if ctx.out.is_json() {
        if r.events.len() <= 1000 {
            ctx.out.json(r);
        } else {
            ctx.out
                .json(&serde_json::json!({ "staged": r.staged, "deduplicated": r.deduplicated }));
        }
        return;
    }
    if r.events.len() <= 20 {
        for s in &r.events {
            let what = if s.inserted {
                "staged"
            } else {
                "deduplicated (already in the outbox)"
            };
            let hlc = s
                .hlc
                .as_deref()
                .map(|h| format!(" hlc {h}"))
                .unwrap_or_default();
            ctx.out
                .data(&format!("{what}: event {} row {}{hlc}", s.event_id, s.id));
        }
    }
    ctx.out.note(&format!(
        "{} staged, {} deduplicated on route {route}",
        r.staged, r.deduplicated
    ));
}
