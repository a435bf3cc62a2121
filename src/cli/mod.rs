//! The command line: one dispatch `match` and the mapping of results to exit codes; the clap
//! definitions are in [`args`]. Tables, progress bars and prompts live only under this module.

pub mod args;
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
mod replay;
mod requeue;
mod route;
mod schema;
mod storage;
mod top;
mod values;

use std::ffi::OsString;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Mutex;

use clap::Parser;

pub use args::{Cli, Command, GlobalArgs, LogFormat, TargetArgs};

use crate::config::{self, Config, Overrides};
use crate::dburl::Backend;
use crate::exit_code;
pub use output::{Format, Output};

/// What every command gets: the resolved configuration and how to write output.
#[derive(Clone)]
pub struct Ctx {
    pub config: Config,
    pub out: Output,
    /// `--connect-timeout`.
    pub connect_timeout: std::time::Duration,
    /// `--yes`: confirmations count as answered.
    pub yes: bool,
    /// `--log-format`.
    pub log_format: LogFormat,
}

impl Ctx {
    /// The one way a command reaches its database: the configured backend, connected within
    /// `--connect-timeout`.
    pub fn backend(&self) -> crate::store::backend::Backend<'_> {
        crate::store::backend::Backend::of(&self.config, self.connect_timeout)
    }
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
    let runtime = match tokio::runtime::Builder::new_current_thread()
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
    // the commands that send: their spans go out if the OTEL_* environment asks for them
    let traced = matches!(&cli.command, Command::Relay(_) | Command::Replay(_));
    if traced {
        crate::telemetry::init();
    }
    let handles_signals = matches!(&cli.command, Command::Relay(r) if r.mode.run_loop);
    let code = runtime.block_on(async {
        if handles_signals {
            return exit_code_of(dispatch(cli).await);
        }
        tokio::select! {
            result = dispatch(cli) => exit_code_of(result),
            _ = tokio::signal::ctrl_c() => {
                eprintln!("interrupted");
                exit_code::INTERRUPTED
            }
        }
    });
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    if traced {
        // bounded: a collector that is away neither delays the exit much nor changes its code
        crate::telemetry::shutdown();
    }
    exit_code::to_process(code)
}

/// The one place a command's outcome becomes an exit code: a failure is printed on one line
/// (secrets scrubbed) and its type picks the code.
fn exit_code_of(result: anyhow::Result<()>) -> u8 {
    match result {
        Ok(()) => exit_code::OK,
        Err(e) => {
            eprintln!("error: {}", scrub(crate::error::one_line(e.as_ref())));
            crate::error::exit_code_of(e.as_ref())
        }
    }
}

/// Logs go to stderr: `RUST_LOG` if set, else info (warn with `-q`, debug with `-v`).
fn init_logging(global: &GlobalArgs) {
    use tracing_subscriber::EnvFilter;
    // Broker clients log their own connection chatter; outboxctl reports what matters itself.
    let default = match (global.quiet, global.verbose) {
        (true, _) => "warn,lapin=off,async_nats=error",
        (false, 0) => "warn,outboxctl=info,lapin=off,async_nats=error",
        (false, 1) => "info,outboxctl=debug,lapin=warn",
        // async_nats's debug lines print the server's URL with its password
        (false, _) => "debug,async_nats=info",
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

async fn dispatch(cli: Cli) -> anyhow::Result<()> {
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
        data_on_stderr: false,
    };
    let ctx = Ctx {
        config,
        out,
        connect_timeout: global.connect_timeout.0,
        yes: global.yes,
        log_format: global.log_format,
    };
    match command {
        Command::Schema(cmd) => schema::run(&ctx, cmd),
        Command::Migrate(args) => migrate::run(&ctx, args).await,
        Command::Relay(args) => relay::run(&ctx, args).await,
        Command::Route(cmd) => route::run(&ctx, cmd).await,
        Command::Replay(args) => replay::run(&ctx, args).await,
        Command::Top(args) => top::run(&ctx, args).await,
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
