//! `outboxctl emit`: stage events from a shell or a script, as forze stages them
//! (time-ordered ids, `ON CONFLICT (outbox_route, event_id) DO NOTHING`), with an HLC stamp
//! and the checkpoint advanced in the same transaction when HLC ordering is on.

use std::io::Read;

use clap::Args;
use serde_json::value::RawValue;
use uuid::Uuid;

use super::Ctx;
use crate::Error;
use crate::exit_code;
use crate::store::ops::{NewEvent, OpsStore, Staged};

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

fn read_payload(arg: &str) -> Result<String, Error> {
    let text = if arg == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| Error::Runtime(format!("reading the payload from stdin: {e}")))?;
        s
    } else if let Some(path) = arg.strip_prefix('@') {
        std::fs::read_to_string(path)
            .map_err(|e| Error::Runtime(format!("reading the payload file {path}: {e}")))?
    } else {
        arg.to_owned()
    };
    // Validate without parsing numbers: the text is stored as given.
    let raw: Box<RawValue> = serde_json::from_str(text.trim())
        .map_err(|e| Error::Runtime(format!("--payload is not valid JSON: {e}")))?;
    if !raw.get().starts_with('{') {
        return Err(Error::Runtime(
            "--payload must be a JSON object, e.g. '{\"order_id\": 42}'".into(),
        ));
    }
    Ok(raw.get().to_owned())
}

pub async fn run(ctx: &Ctx, args: EmitArgs) -> anyhow::Result<u8> {
    if args.count == 0 {
        return Err(Error::Runtime("--count must be at least 1".into()).into());
    }
    if args.traceparent.is_some() && !ctx.config.outbox.propagate_trace {
        return Err(Error::Runtime(
            "--traceparent needs propagate_trace (--propagate-trace or outbox.propagate_trace)"
                .into(),
        )
        .into());
    }
    if ctx.config.outbox.tenant_aware && args.tenant.is_none() {
        return Err(Error::Runtime("the outbox is tenant-aware: pass --tenant".into()).into());
    }
    let payload = read_payload(&args.payload)?;
    let targets = crate::store::any::targets(&ctx.config, args.tenant)?;
    let target = targets
        .first()
        .ok_or_else(|| Error::Runtime("no outbox to stage into".into()))?;
    let mut conn = ctx.connect().await?;
    let mut ops = crate::store::any::open(&ctx.config, &mut conn, target).await?;
    let now = chrono::Utc::now();
    let mut staged: Vec<Staged> = Vec::new();
    let bar = ctx
        .out
        .progress((args.count > 1).then_some(u64::from(args.count)), "staging");
    let mut left = args.count;
    while left > 0 {
        let n = left.min(1000);
        left -= n;
        let events: Vec<NewEvent> = (0..n)
            .map(|_| NewEvent {
                id: Uuid::now_v7(),
                event_id: args.event_id.unwrap_or_else(Uuid::now_v7),
                route: args.route.clone(),
                event_type: args.event_type.clone(),
                payload: payload.clone(),
                ordering_key: args.ordering_key.clone(),
                tenant_id: args.tenant,
                correlation_id: args.correlation_id,
                causation_id: args.causation_id,
                execution_id: args.execution_id,
                traceparent: args.traceparent.clone(),
                occurred_at: now,
            })
            .collect();
        staged.extend(ops.stage(&events, &args.node_key).await?);
        bar.inc(u64::from(n));
    }
    bar.finish_and_clear();
    let inserted = staged.iter().filter(|s| s.inserted).count();
    let deduplicated = staged.len() - inserted;
    if ctx.out.is_json() {
        if staged.len() <= 1000 {
            ctx.out.json(&serde_json::json!({ "staged": inserted, "deduplicated": deduplicated, "events": staged }));
        } else {
            ctx.out
                .json(&serde_json::json!({ "staged": inserted, "deduplicated": deduplicated }));
        }
    } else {
        if staged.len() <= 20 {
            for s in &staged {
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
            "{inserted} staged, {deduplicated} deduplicated on route {}",
            args.route
        ));
    }
    Ok(exit_code::OK)
}
