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

use clap::Parser;

pub use args::{Cli, Command, GlobalArgs, LogFormat, TargetArgs};

use crate::config::{self, Config, Overrides};
use crate::dburl::{Backend, DatabaseUrl};
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

    /// A bar of `len` steps for `message` (see [`Output::progress`]).
    pub fn progress(&self, len: u64, message: &str) -> indicatif::ProgressBar {
        self.out.progress(Some(len), message)
    }

    /// Asks before a destructive step, unless `--yes`: a prompt on a terminal that defaults to
    /// No, else a refusal (exit 5) that says to pass `--yes`.
    pub fn confirm(&self, question: &str) -> Result<(), crate::Error> {
        confirm::confirm(self.yes, question)
    }
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
    let g = &cli.global;
    let color =
        !g.no_color && std::env::var_os("NO_COLOR").is_none() && std::io::stderr().is_terminal();
    crate::telemetry::init_logs(g.quiet, g.verbose, g.log_format == LogFormat::Json, color);
    // the commands that send: their spans go out if the OTEL_* environment asks for them
    let traced = matches!(&cli.command, Command::Relay(_) | Command::Replay(_));
    if traced {
        crate::telemetry::init();
    }
    let handles_signals = matches!(&cli.command, Command::Relay(_));
    let code = runtime.block_on(async {
        if handles_signals {
            return exit_code_of(dispatch(cli, color).await);
        }
        tokio::select! {
            result = dispatch(cli, color) => exit_code_of(result),
            _ = crate::interrupt::unhandled() => {
                crate::telemetry::stderr_line(format_args!("interrupted"));
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
            let line = crate::error::printable(e.as_ref());
            crate::telemetry::error_line(&line);
            crate::error::exit_code_of(e.as_ref())
        }
    }
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

async fn dispatch(cli: Cli, color: bool) -> anyhow::Result<()> {
    let Cli {
        global,
        target,
        command,
    } = cli;
    // a flag's password stays out of every error line, one about the configuration too
    let parse = |u: &crate::dburl::SecretText| DatabaseUrl::parse(u.expose());
    if let Some(Ok(url)) = global.database_url.as_ref().map(parse) {
        crate::error::keep_secret(&url);
    }
    let backend = match &command {
        Command::Schema(schema::SchemaCommand::Print(args)) => args.backend,
        _ => None,
    };
    let overrides = overrides(&global, &target, backend);
    // init, completions and man never read outboxctl.yaml (init may be replacing a broken one);
    // completions and man not the environment either (a DATABASE_URL of another program's)
    let generates = matches!(command, Command::Completions(_) | Command::Man(_));
    let reads_file = !generates && !matches!(command, Command::Init(_));
    let env = config::process_env_unless(generates);
    let config = Config::load_with(&overrides, reads_file, &env).map_err(crate::Error::from)?;
    if let Some(url) = &config.database_url {
        crate::error::keep_secret(url);
    }
    let out = Output {
        format: global.format,
        quiet: global.quiet,
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
        Command::Requeue(args) => requeue::run(&ctx, args, requeue::Action::Requeue, None).await,
        Command::Discard(a) => requeue::run(&ctx, a.rows, requeue::Action::Discard, a.save).await,
        Command::Emit(args) => emit::run(&ctx, args).await,
        Command::Hlc(cmd) => hlc::run(&ctx, cmd).await,
        Command::Storage(cmd) => storage::run(&ctx, cmd).await,
        Command::Doctor(args) => doctor::run(&ctx, args).await,
        Command::Init(args) => init::run(&ctx, args).await,
        Command::Completions(args) => completions::completions(&ctx, args),
        Command::Man(args) => completions::man(&ctx, args),
    }
}
