//! `outboxctl init`: write a commented `outboxctl.yaml`. On a terminal it asks for what the
//! flags did not say (database URL, outbox, storage, optional features, a first route), tests
//! the connection and offers `migrate --dry-run`; with `--yes` or without a terminal it uses
//! the flags alone. It never overwrites a file without `--force`.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;
use dialoguer::{Confirm, Input, MultiSelect, Select};

use super::Ctx;
use crate::Error;
use crate::config::template::Answers;
use crate::dburl::{Backend, DatabaseUrl};
use crate::model::Storage;

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Where to write the file
    #[arg(long, value_name = "PATH", default_value = "outboxctl.yaml")]
    pub path: PathBuf,
    /// Overwrite an existing file
    #[arg(long)]
    pub force: bool,
    /// A first route to relay (with --to)
    #[arg(long)]
    pub route: Option<String>,
    /// The first route's destination (stdout, file:PATH, nats://…, amqp://…, redis://…, kafka://…, https://…)
    #[arg(long, value_name = "URL", requires = "route")]
    pub to: Option<String>,
}

fn ask_error(e: dialoguer::Error) -> Error {
    Error::Refused(format!("no answer: {e}"))
}

pub async fn run(ctx: &Ctx, args: InitArgs) -> anyhow::Result<()> {
    if args.path.exists() && !args.force {
        return Err(Error::Refused(format!(
            "{} exists; pass --force to overwrite it",
            args.path.display()
        ))
        .into());
    }
    let c = &ctx.config;
    let interactive = !ctx.yes && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let route =
        (args.route.clone()).map(|r| (r, args.to.clone().unwrap_or_else(|| "stdout".into())));
    let mut a = Answers::of(c, route);
    if interactive {
        let url: String = Input::new()
            .with_prompt("database URL")
            .with_initial_text(&a.database_url)
            .interact_text()
            .map_err(ask_error)?;
        let parsed = DatabaseUrl::parse(&url).map_err(crate::config::ConfigError::from)?;
        a.backend = parsed.backend();
        a.database_url = url;
        let default_outbox = if a.backend == c.backend {
            a.outbox.clone()
        } else {
            "app.outbox".into()
        };
        let what = if a.backend == Backend::Postgres {
            "outbox table (schema.table)"
        } else {
            "outbox collection (db.collection)"
        };
        a.outbox = Input::new()
            .with_prompt(what)
            .with_initial_text(default_outbox)
            .interact_text()
            .map_err(ask_error)?;
        if a.backend == Backend::Postgres {
            let pick = Select::new()
                .with_prompt("storage")
                .items(&["retain", "consume"])
                .default(usize::from(a.storage == Storage::Consume))
                .interact()
                .map_err(ask_error)?;
            a.storage = if pick == 1 {
                Storage::Consume
            } else {
                Storage::Retain
            };
        } else {
            a.storage = Storage::Retain;
        }
        let mut items = vec!["hlc_ordering", "propagate_trace", "hlc_checkpoint"];
        if a.storage == Storage::Consume {
            items.push("delivery_log");
        }
        let chosen = MultiSelect::new()
            .with_prompt("optional features (space to pick)")
            .items(&items)
            .interact()
            .map_err(ask_error)?;
        let has = |name: &str| chosen.iter().any(|&i| items[i] == name);
        a.hlc_ordering = has("hlc_ordering");
        a.propagate_trace = has("propagate_trace");
        a.name_optional_tables(has("hlc_checkpoint"), has("delivery_log"));
        let route: String = Input::new()
            .with_prompt("a first route to relay (empty: none)")
            .allow_empty(true)
            .interact_text()
            .map_err(ask_error)?;
        if !route.trim().is_empty() {
            let to: String = Input::new()
                .with_prompt("its destination")
                .with_initial_text("stdout")
                .interact_text()
                .map_err(ask_error)?;
            a.route = Some((route.trim().to_owned(), to));
        }
    }
    let config = a.write(&args.path, args.force)?;
    ctx.out.note(&format!("wrote {}", args.path.display()));
    if interactive {
        let url = config.require_url()?.clone();
        // the file just written, as every command will read it
        let written = super::Ctx {
            config,
            ..ctx.clone()
        };
        // a pooler that cannot hold a transaction is told now, not at the first relay
        let reachable = written.backend().check().await;
        match reachable {
            Ok(()) => {
                ctx.out.note(&format!("connected to {url}"));
                if Confirm::new()
                    .with_prompt("show what `outboxctl migrate` would do (dry run)?")
                    .default(true)
                    .interact()
                    .map_err(ask_error)?
                {
                    let dry = super::migrate::MigrateArgs::dry_run();
                    super::migrate::run(&written, dry).await?;
                }
            }
            Err(e) => ctx.out.warn(&format!("could not connect: {e}")),
        }
    }
    Ok(())
}
