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
use crate::config::Target;
use crate::dburl::{Backend, DatabaseUrl};
use crate::exit_code;
use crate::model::Storage;
use crate::store::backend::Conn;

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

/// What goes into the file.
#[derive(Debug, Clone)]
pub struct Answers {
    pub database_url: String,
    pub backend: Backend,
    pub outbox: String,
    pub storage: Storage,
    pub hlc_ordering: bool,
    pub propagate_trace: bool,
    pub delivery_log: Option<String>,
    pub hlc_checkpoint: Option<String>,
    pub route: Option<(String, String)>,
}

fn yaml_str(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialise")
}

/// The file's text: every key commented, the chosen values set.
pub fn render(a: &Answers) -> String {
    let mut out = String::from(
        "# outboxctl configuration (written by `outboxctl init`). See README.md for every key.\n",
    );
    out.push_str("# Precedence: flag > environment (OUTBOXCTL_*) > this file > default.\n");
    out.push_str(&format!(
        "database_url: {}   # or set OUTBOXCTL_DATABASE_URL and drop this line\n\n",
        yaml_str(&a.database_url)
    ));
    out.push_str("outbox:\n");
    match a.backend {
        Backend::Postgres => {
            out.push_str(&format!(
                "  relation: {}        # schema.table\n",
                yaml_str(&a.outbox)
            ));
            out.push_str(&format!(
                "  storage: {}                 # retain | consume\n",
                a.storage
            ));
        }
        Backend::Mongo => {
            out.push_str(&format!(
                "  collection: {}      # db.collection\n",
                yaml_str(&a.outbox)
            ));
            out.push_str("  storage: retain                 # MongoDB keeps retain storage\n");
        }
    }
    out.push_str(&format!(
        "  hlc_ordering: {}            # claim in Hybrid Logical Clock order\n",
        a.hlc_ordering
    ));
    out.push_str(&format!(
        "  propagate_trace: {}         # store and forward W3C traceparent\n",
        a.propagate_trace
    ));
    match &a.delivery_log {
        Some(l) => out.push_str(&format!(
            "  delivery_log: {}   # consume storage: what went out, partitioned by day\n",
            yaml_str(l)
        )),
        None => out.push_str("  # delivery_log: app.outbox_delivered   # consume storage only\n"),
    }
    match &a.hlc_checkpoint {
        Some(c) => out.push_str(&format!("  hlc_checkpoint: {}\n", yaml_str(c))),
        None => out.push_str("  # hlc_checkpoint: app.hlc_checkpoint\n"),
    }
    out.push_str("  # tenant_aware: false\n  # tenants: []\n");
    if a.storage == crate::model::Storage::Consume {
        out.push_str("  # autovacuum: queue        # migrate gives the table autovacuum settings for a queue\n");
    }
    out.push_str("\nrelay:\n");
    match &a.route {
        Some((name, to)) => out.push_str(&format!("  routes:\n    {}:\n      to: {}\n      # channel: {name}\n", yaml_str(name), yaml_str(to))),
        None => out.push_str("  routes: {}\n  #   orders:\n  #     to: \"nats://127.0.0.1:4222\"\n  #     channel: orders.events\n"),
    }
    out.push_str(
        "  # interval: 1s\n  # max_claim_rows: 100\n  # pass_deadline: 5s\n  # pass_statement_timeout: 1s\n  # reclaim_stale_after: 5m   # null turns reclaim off\n  # max_attempts: 5\n  # retry_base_delay: 1s\n  # retry_max_backoff: 5m\n  # shutdown_drain_timeout: 5s\n  # key_order: best-effort     # or strict\n  # prepared_statements: false # true: named statements (direct connections, pgbouncer 1.21+)\n\npartitions:\n  # ahead_days: 7\n  # keep_days: 30\n  # lock_timeout: 200ms\n",
    );
    out
}

fn ask_error(e: dialoguer::Error) -> Error {
    Error::Refused(format!("no answer: {e}"))
}

pub async fn run(ctx: &Ctx, args: InitArgs) -> anyhow::Result<u8> {
    if args.path.exists() && !args.force {
        return Err(Error::Refused(format!(
            "{} exists; pass --force to overwrite it",
            args.path.display()
        ))
        .into());
    }
    let c = &ctx.config;
    let interactive = !ctx.yes && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let mut a = Answers {
        database_url: c.database_url.as_ref().map_or_else(
            || "postgres://postgres@127.0.0.1:5432/postgres".to_owned(),
            |u| u.expose().to_owned(),
        ),
        backend: c.backend,
        outbox: match &c.outbox.target {
            Target::Postgres { relation, .. } => relation.template(),
            Target::Mongo { collection, .. } => collection.to_string(),
        },
        storage: c.outbox.storage,
        hlc_ordering: c.outbox.hlc_ordering,
        propagate_trace: c.outbox.propagate_trace,
        delivery_log: match &c.outbox.target {
            Target::Postgres { delivery_log, .. } => delivery_log.as_ref().map(|l| l.template()),
            Target::Mongo { .. } => None,
        },
        hlc_checkpoint: match &c.outbox.target {
            Target::Postgres { hlc_checkpoint, .. } => hlc_checkpoint.as_ref().map(|q| q.plain()),
            Target::Mongo { hlc_checkpoint, .. } => hlc_checkpoint.as_ref().map(|q| q.to_string()),
        },
        route: args
            .route
            .clone()
            .map(|r| (r, args.to.clone().unwrap_or_else(|| "stdout".into()))),
    };
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
        let base = a
            .outbox
            .rsplit_once('.')
            .map_or("app".to_owned(), |(s, _)| s.to_owned());
        a.hlc_checkpoint = has("hlc_checkpoint").then(|| format!("{base}.hlc_checkpoint"));
        a.delivery_log = has("delivery_log").then(|| format!("{}_delivered", a.outbox));
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
    let text = render(&a);
    // What we write must load: check it the way every command will read it.
    let file = crate::config::FileConfig::parse(&args.path.display().to_string(), &text)?;
    let config = crate::config::Config::resolve(
        file,
        Some(args.path.clone()),
        &Default::default(),
        &|_| None,
    )?;
    std::fs::write(&args.path, &text)
        .map_err(|e| Error::io(format!("writing {}", args.path.display()), e))?;
    ctx.out.note(&format!("wrote {}", args.path.display()));
    if interactive {
        let url = config.require_url()?.clone();
        // the file just written, as every command will read it
        let written = super::Ctx {
            config,
            ..ctx.clone()
        };
        let reachable = match written.backend().connect().await {
            // a pooler that cannot hold a transaction is told now, not at the first relay
            Ok(Conn::Pg(mut conn)) => crate::db::pg::check_transactions(&mut conn)
                .await
                .map_err(crate::Error::from),
            Ok(Conn::Mongo(_) | Conn::Memory(_)) => Ok(()),
            Err(e) => Err(e),
        };
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
    Ok(exit_code::OK)
}
