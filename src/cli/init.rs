//! `outboxctl init`: write a commented `outboxctl.yaml` from the flags, asking on a terminal for
//! what they did not say ([`crate::config::template`]); never overwrites without `--force`.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;
use dialoguer::{Confirm, Input, MultiSelect, Select};

use super::Ctx;
use crate::Error;
use crate::config::template::Answers;
use crate::dburl::Backend;
use crate::model::Storage;

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Where to write the file [default: the --config file, else outboxctl.yaml]
    #[arg(long, value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// Overwrite an existing file
    #[arg(long)]
    pub force: bool,
    /// A first route to relay (with --to, its destination)
    #[arg(long, requires = "to")]
    pub route: Option<String>,
    /// The first route's destination (stdout, file:PATH, nats://…, amqp://…, redis://…, kafka://…, https://…)
    #[arg(long, value_name = "URL", requires = "route")]
    pub to: Option<crate::dburl::SecretText>,
}

fn ask_error(e: dialoguer::Error) -> Error {
    Error::Refused(format!("no answer: {e}"))
}

/// A line of text: Enter takes `default` (shown when there is one), a line typed replaces it;
/// an answer `check` refuses is asked again, saying why.
fn ask(
    prompt: &str,
    default: &str,
    check: impl Fn(&str) -> Result<(), String>,
) -> Result<String, Error> {
    let input = Input::<String>::new()
        .with_prompt(prompt)
        .default(default.into());
    let answer = input
        .show_default(!default.is_empty())
        .validate_with(|a: &String| check(a.trim()));
    (answer.interact_text().map(|a| a.trim().to_owned())).map_err(ask_error)
}

pub async fn run(ctx: &Ctx, args: InitArgs) -> anyhow::Result<()> {
    let path =
        Answers::target(args.path.as_deref(), &ctx.config, args.force).map_err(Error::from)?;
    let c = &ctx.config;
    let interactive = !ctx.yes && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let route = (args.route.clone()).zip(args.to.as_ref().map(|u| u.expose().to_owned()));
    let mut a = Answers::of(c, route);
    if interactive {
        let url = ask("database URL", &a.url_offered(), |u| a.check_url(u))?;
        a.set_url(c, url).map_err(Error::from)?;
        a.outbox = ask(a.outbox_question(), &a.outbox, |o| a.check_outbox(o))?;
        if a.backend == Backend::Postgres {
            let pick = Select::new()
                .with_prompt("storage")
                .items(&["retain", "consume"])
                .default(usize::from(a.storage == Storage::Consume))
                .interact()
                .map_err(ask_error)?;
            a.storage = [Storage::Retain, Storage::Consume][pick];
        }
        let items = a.features();
        let chosen = MultiSelect::new()
            .with_prompt("optional features (space to pick)")
            .items(&items)
            .interact()
            .map_err(ask_error)?;
        a.choose(&chosen.iter().map(|&i| items[i]).collect::<Vec<_>>());
        let route = ask("a first route to relay (empty: none)", "", |_| Ok(()))?;
        if !route.is_empty() {
            a.route = Some((route, ask("its destination", "stdout", |_| Ok(()))?));
        }
    }
    let config = a.write(&path, args.force, crate::destination::check_routes)?;
    ctx.out.note(&format!("wrote {}", path.display()));
    (Answers::url_note(c))
        .filter(|_| !interactive)
        .inspect(|n| ctx.out.note(n));
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
