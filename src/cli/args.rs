//! The command line's clap definitions: the flags every command takes, which outbox, and the
//! commands (each command's own flags live in its file).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use super::{
    Format, completions, doctor, emit, hlc, init, inspect, migrate, partitions, relay, replay,
    requeue, route, schema, storage, top,
};
use crate::duration::Dur;
use crate::model::{KeyOrder, Storage};

#[derive(Debug, Parser)]
#[command(
    name = "outboxctl",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("OUTBOXCTL_GIT_COMMIT"), ")"),
    about = "Operate a transactional outbox on PostgreSQL and MongoDB",
    long_about = "Operate a transactional outbox on PostgreSQL and MongoDB: generate and apply its schema, \
manage the delivery log's partitions, inspect and requeue rows, and relay events to brokers.\n\n\
Exit codes: 0 ok, 1 a check found a problem, 2 error, 3 cannot connect (or a read-only server), \
4 lock busy or gave up, 5 refused, 130 interrupted.",
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every command takes.
#[derive(Debug, Args, Clone)]
pub struct GlobalArgs {
    /// Config file [env: OUTBOXCTL_CONFIG] [default: ./outboxctl.yaml if present]
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Database URL [env: OUTBOXCTL_DATABASE_URL, then the file, then DATABASE_URL]
    #[arg(long, global = true, value_name = "URL")]
    pub database_url: Option<crate::dburl::SecretText>,
    /// Output format for data on stdout
    #[arg(long, global = true, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Answer yes to confirmations (needed for destructive steps without a terminal)
    #[arg(short = 'y', long, global = true)]
    pub yes: bool,
    /// More detail on stderr (repeat for more)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Print nothing on success but data
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Never colour output (also NO_COLOR)
    #[arg(long, global = true)]
    pub no_color: bool,
    /// Log lines on stderr as text or JSON (filter with RUST_LOG)
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// Give up connecting after this long
    #[arg(long, global = true, value_name = "DURATION", default_value = "10s")]
    pub connect_timeout: Dur,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

/// Which outbox: each flag overrides outboxctl.yaml's `outbox:` key of the same name.
#[derive(Debug, Args, Default)]
pub struct TargetArgs {
    /// PostgreSQL outbox table, schema.table [env: OUTBOXCTL_RELATION] [default: app.outbox]
    #[arg(long, global = true, value_name = "SCHEMA.TABLE")]
    pub relation: Option<String>,
    /// MongoDB outbox collection, db.collection [env: OUTBOXCTL_COLLECTION] [default: app.outbox]
    #[arg(long, global = true, value_name = "DB.COLLECTION")]
    pub collection: Option<String>,
    /// Storage mode [env: OUTBOXCTL_STORAGE] [default: retain]
    #[arg(long, global = true, value_enum)]
    pub storage: Option<Storage>,
    /// Delivery log table, schema.table (consume storage) [env: OUTBOXCTL_DELIVERY_LOG]
    #[arg(long, global = true, value_name = "SCHEMA.TABLE")]
    pub delivery_log: Option<String>,
    /// HLC checkpoint table or collection [env: OUTBOXCTL_HLC_CHECKPOINT]
    #[arg(long, global = true, value_name = "NAME")]
    pub hlc_checkpoint: Option<String>,
    /// Claim in Hybrid Logical Clock order (adds the hlc column) [env: OUTBOXCTL_HLC_ORDERING]
    #[arg(long, global = true)]
    pub hlc_ordering: bool,
    /// Store and forward W3C traceparent (adds the column) [env: OUTBOXCTL_PROPAGATE_TRACE]
    #[arg(long, global = true)]
    pub propagate_trace: bool,
    /// Per-key ordering of the relay, and the indexes migrate adds for it [default: best-effort]
    #[arg(long, global = true, value_enum)]
    pub key_order: Option<KeyOrder>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the schema (DDL or mongosh script) for the configured outbox
    #[command(subcommand)]
    Schema(schema::SchemaCommand),
    /// Bring the database to the configured schema (adds; drops only with --prune-functions)
    Migrate(migrate::MigrateArgs),
    /// Manage the delivery log's daily partitions (PostgreSQL)
    #[command(subcommand)]
    Partitions(partitions::PartitionsCommand),
    /// What is pending, processing, failed; rows; where an event is
    Inspect(inspect::InspectArgs),
    /// Return failed rows to pending (by --id, or by filter with --all)
    Requeue(requeue::FailedRowsArgs),
    /// Delete failed rows an operator gave up on (by --id, or by filter with --all)
    Discard(requeue::DiscardArgs),
    /// Stage an event (or --count N of them)
    Emit(emit::EmitArgs),
    /// The HLC checkpoint
    #[command(subcommand)]
    Hlc(hlc::HlcCommand),
    /// Check what the specification warns about: ok / warn / fail (exit 1 on a fail)
    Doctor(doctor::DoctorArgs),
    /// Retain → consume storage, step by step
    #[command(subcommand)]
    Storage(storage::StorageCommand),
    /// Relay events to their destinations, once or in a loop
    Relay(relay::RelayArgs),
    /// Pause and resume a route on every relay; list routes and their pauses
    #[command(subcommand)]
    Route(route::RouteCommand),
    /// Publish delivered events again, selected and in order, to a destination (--to)
    Replay(replay::ReplayArgs),
    /// A live view of the outbox and its relays (one snapshot in a pipe)
    Top(top::TopArgs),
    /// Write a commented outboxctl.yaml (asks on a terminal; flags for scripts)
    Init(init::InitArgs),
    /// Print the shell completion script
    Completions(completions::CompletionsArgs),
    /// Print the man page (or write one per command with --out DIR)
    Man(completions::ManArgs),
}
