//! `outboxctl schema print`: the DDL (PostgreSQL) or mongosh script (MongoDB) for the
//! configured outbox, exactly the specification's text for the specification's names.

use clap::{Args, Subcommand, ValueEnum};

use super::Ctx;
use crate::dburl::Backend;
use crate::schema::desired::Extras;

#[derive(Debug, Subcommand)]
pub enum SchemaCommand {
    /// Print the schema, ready to paste into a migration file
    Print(PrintArgs),
}

#[derive(Debug, Args)]
pub struct PrintArgs {
    /// Backend to print for (default: from the database URL, else postgres)
    #[arg(long, value_enum)]
    pub backend: Option<Backend>,
    /// Optional parts to include beyond the configuration's
    #[arg(long, value_enum, value_delimiter = ',', value_name = "PART,…")]
    pub with: Vec<Part>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Part {
    Hlc,
    Traceparent,
    Checkpoint,
    DeliveryLog,
    Replay,
    Wake,
    /// outboxctl's relay registry and route pauses (migrate adds them by outbox.registry)
    Registry,
    /// hlc, traceparent, checkpoint and delivery-log (outboxctl's own parts only when named)
    All,
}

pub fn run(ctx: &Ctx, cmd: SchemaCommand) -> anyhow::Result<()> {
    let SchemaCommand::Print(args) = cmd;
    let has = |p: Part| args.with.contains(&p) || args.with.contains(&Part::All);
    let extras = Extras {
        hlc: has(Part::Hlc),
        traceparent: has(Part::Traceparent),
        checkpoint: has(Part::Checkpoint),
        delivery_log: has(Part::DeliveryLog),
        // outboxctl's own additions, only when named (`all` is the specification's parts)
        replay: args.with.contains(&Part::Replay),
        wake: args.with.contains(&Part::Wake),
    };
    if ctx.config.backend == Backend::Mongo && args.with.contains(&Part::DeliveryLog) {
        return Err(crate::Error::NotConfigured(
            "the delivery log is PostgreSQL-only: MongoDB keeps retain storage",
        )
        .into());
    }
    let registry = args.with.contains(&Part::Registry);
    let text = crate::schema::script(&ctx.config, extras, registry, &mut |n| ctx.out.note(n))?;
    let json = serde_json::json!({ "backend": ctx.config.backend, "script": text });
    ctx.out.show(&json, || ctx.out.data(&text));
    Ok(())
}
