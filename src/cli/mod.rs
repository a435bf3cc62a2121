//! The command line: clap definitions, one dispatch `match`, and the mapping of results to
//! exit codes. Tables, progress bars and prompts live only under this module.

pub mod completions;
mod confirm;
mod doctor;
mod emit;
mod hlc;
mod init;
mod inspect;
mod migrate;
pub mod output;
mod partitions;
mod relay;
mod requeue;
mod schema;
mod serve;
mod storage;

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;

use clap::{Args, Parser, Subcommand};

use crate::config::{self, Config, Dur, KeyOrder, Overrides, Storage};
use crate::dburl::Backend;
use crate::exit_code;
pub use output::{Format, Output};

#[derive(Debug, Parser)]
#[command(
    name = "outboxctl",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("OUTBOXCTL_GIT_COMMIT"), ")"),
    about = "Operate a transactional outbox on PostgreSQL and MongoDB",
    long_about = "Operate a transactional outbox on PostgreSQL and MongoDB: generate and apply its schema, \
manage the delivery log's partitions, inspect and requeue rows, and relay events to brokers.\n\n\
Exit codes: 0 ok, 1 a check found a problem, 2 error, 3 cannot connect, 4 lock busy or gave up, \
5 refused, 130 interrupted.",
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
    pub database_url: Option<String>,
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
    /// Per-key ordering of the relay [default: best-effort]
    #[arg(long, global = true, value_enum)]
    pub key_order: Option<KeyOrder>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the schema (DDL or mongosh script) for the configured outbox
    #[command(subcommand)]
    Schema(schema::SchemaCommand),
    /// Bring the database to the configured schema (only ever adds)
    Migrate(migrate::MigrateArgs),
    /// Manage the delivery log's daily partitions (PostgreSQL)
    #[command(subcommand)]
    Partitions(partitions::PartitionsCommand),
    /// What is pending, processing, failed; rows; where an event is
    Inspect(inspect::InspectArgs),
    /// Return failed rows to pending (by --id, or by filter with --all)
    Requeue(requeue::FailedRowsArgs),
    /// Delete failed rows an operator gave up on (by --id, or by filter with --all)
    Discard(requeue::FailedRowsArgs),
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
    /// Write a commented outboxctl.yaml (asks on a terminal; flags for scripts)
    Init(init::InitArgs),
    /// Print the shell completion script
    Completions(completions::CompletionsArgs),
    /// Print the man page (or write one per command with --out DIR)
    Man(completions::ManArgs),
}

/// What every command gets: the resolved configuration and how to write output.
pub struct Ctx {
    pub config: Config,
    pub out: Output,
    pub global: GlobalArgs,
}

static SECRETS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Remembers a secret so that no message printed by the CLI can contain it.
fn remember_secret(secret: &str) {
    if secret.len() >= 2 {
        SECRETS
            .lock()
            .expect("not poisoned")
            .push(secret.to_owned());
    }
}

fn scrub(message: String) -> String {
    SECRETS
        .lock()
        .expect("not poisoned")
        .iter()
        .fold(message, |m, s| m.replace(s.as_str(), "****"))
}

/// Parses the arguments, runs the command and maps the outcome to an exit code.
pub fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                exit_code::ERROR
            } else {
                exit_code::OK
            };
            let _ = e.print();
            return exit_code::to_process(code);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return exit_code::to_process(exit_code::ERROR);
        }
    };
    init_logging(&cli.global);
    let handles_signals = matches!(&cli.command, Command::Relay(r) if r.mode.run_loop);
    let code = runtime.block_on(async {
        if handles_signals {
            return match dispatch(cli).await {
                Ok(code) => code,
                Err(e) => {
                    eprintln!("error: {}", scrub(crate::error::one_line(&e)));
                    exit_code::of(&e)
                }
            };
        }
        tokio::select! {
            result = dispatch(cli) => match result {
                Ok(code) => code,
                Err(e) => {
                    eprintln!("error: {}", scrub(crate::error::one_line(&e)));
                    exit_code::of(&e)
                }
            },
            _ = tokio::signal::ctrl_c() => {
                eprintln!("interrupted");
                exit_code::INTERRUPTED
            }
        }
    });
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    exit_code::to_process(code)
}

/// Logs go to stderr: `RUST_LOG` if set, else info (warn with `-q`, debug with `-v`).
fn init_logging(global: &GlobalArgs) {
    use tracing_subscriber::EnvFilter;
    // Broker clients log their own connection chatter; outboxctl reports what matters itself.
    let default = match (global.quiet, global.verbose) {
        (true, _) => "warn,lapin=off,async_nats=error",
        (false, 0) => "warn,outboxctl=info,lapin=off,async_nats=error",
        (false, 1) => "info,outboxctl=debug,lapin=warn",
        (false, _) => "debug",
    };
    let filter = EnvFilter::try_from_env("RUST_LOG").unwrap_or_else(|_| EnvFilter::new(default));
    let ansi = !global.no_color
        && std::env::var_os("NO_COLOR").is_none()
        && std::io::stderr().is_terminal();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false);
    let _ = match global.log_format {
        LogFormat::Text => builder.with_ansi(ansi).try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
}

fn overrides(global: &GlobalArgs, target: &TargetArgs, backend: Option<Backend>) -> Overrides {
    Overrides {
        config: global.config.clone(),
        database_url: global.database_url.clone(),
        backend,
        relation: target.relation.clone(),
        collection: target.collection.clone(),
        storage: target.storage,
        delivery_log: target.delivery_log.clone(),
        hlc_checkpoint: target.hlc_checkpoint.clone(),
        hlc_ordering: target.hlc_ordering.then_some(true),
        propagate_trace: target.propagate_trace.then_some(true),
        key_order: target.key_order,
    }
}

async fn dispatch(cli: Cli) -> anyhow::Result<u8> {
    let Cli {
        global,
        target,
        command,
    } = cli;
    if let Some(url) = &global.database_url {
        if let Ok(parsed) = crate::dburl::DatabaseUrl::parse(url) {
            parsed.password().map(remember_secret);
        }
    }
    let backend = match &command {
        Command::Schema(schema::SchemaCommand::Print(args)) => args.backend,
        _ => None,
    };
    let overrides = overrides(&global, &target, backend);
    let config = if matches!(
        command,
        Command::Init(_) | Command::Completions(_) | Command::Man(_)
    ) {
        // These never read outboxctl.yaml (init may be replacing a broken one).
        Config::resolve(
            config::FileConfig::default(),
            None,
            &overrides,
            &config::process_env,
        )
    } else {
        Config::load(&overrides, &config::process_env)
    }
    .map_err(crate::Error::from)?;
    if let Some(url) = &config.database_url {
        url.password().map(remember_secret);
    }
    let color = !global.no_color
        && std::env::var_os("NO_COLOR").is_none()
        && std::io::stderr().is_terminal();
    let out = Output {
        format: global.format,
        quiet: global.quiet,
        verbose: global.verbose,
        color,
    };
    let ctx = Ctx {
        config,
        out,
        global,
    };
    match command {
        Command::Schema(cmd) => schema::run(&ctx, cmd),
        Command::Migrate(args) => migrate::run(&ctx, args).await,
        Command::Relay(args) => relay::run(&ctx, args).await,
        Command::Partitions(cmd) => partitions::run(&ctx, cmd).await,
        Command::Inspect(args) => inspect::run(&ctx, args).await,
        Command::Requeue(args) => requeue::run(&ctx, args, requeue::Action::Requeue).await,
        Command::Discard(args) => requeue::run(&ctx, args, requeue::Action::Discard).await,
        Command::Emit(args) => emit::run(&ctx, args).await,
        Command::Hlc(cmd) => hlc::run(&ctx, cmd).await,
        Command::Storage(cmd) => storage::run(&ctx, cmd).await,
        Command::Doctor(args) => doctor::run(&ctx, args).await,
        Command::Init(args) => init::run(&ctx, args).await,
        Command::Completions(args) => completions::completions(&ctx, args),
        Command::Man(args) => completions::man(&ctx, args),
    }
}
