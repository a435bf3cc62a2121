//! `outboxctl relay --once | --loop`: run the relay over the configured routes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use clap::Args;

use super::Ctx;
use crate::Error;
use crate::config::{RouteFile, Target};
use crate::destination::{self, DestinationUrl, Sink};
use crate::exit_code;
use crate::relay::{Lane, PassReport, Relay, RelayEvents, RelaySettings, RouteStats, Shutdown};
use crate::store::mongo::{MongoStore, MongoStoreOptions};
use crate::store::postgres::{PgStore, PgStoreOptions};
use crate::store::{PassTarget, RelayStore};

#[derive(Debug, Args)]
#[group(id = "mode", required = true, multiple = false)]
pub struct Mode {
    /// Drain every route until a claim comes back short, print a summary, exit
    #[arg(long, group = "mode")]
    pub once: bool,
    /// Run until SIGTERM/SIGINT, then drain and exit 0
    #[arg(long = "loop", group = "mode")]
    pub run_loop: bool,
}

#[derive(Debug, Args)]
pub struct RelayArgs {
    #[command(flatten)]
    pub mode: Mode,
    /// Relay only these routes (repeatable; default: every route in relay.routes)
    #[arg(long = "route", value_name = "ROUTE")]
    pub routes: Vec<String>,
    /// Destination for the given routes: stdout, file:PATH, postgres-table:SCHEMA.TABLE
    #[arg(long, value_name = "URL")]
    pub to: Option<String>,
    /// With --once: stop each route after this many passes
    #[arg(long, value_name = "N")]
    pub max_passes: Option<u64>,
    /// With --loop: serve /metrics (Prometheus) and /healthz on this address
    #[arg(long, value_name = "ADDR", requires = "run_loop")]
    pub metrics_addr: Option<std::net::SocketAddr>,
    /// /healthz fails when a route's passes have failed for longer than this
    #[arg(long, value_name = "DURATION", default_value = "60s")]
    pub health_max_failing: crate::duration::Dur,
    /// How long a client of the metrics address may take to send its request headers
    #[arg(long, value_name = "DURATION", default_value = "5s")]
    pub metrics_header_timeout: crate::duration::Dur,
    /// At most this many connections to the metrics address at once (an idle one makes room)
    #[arg(
        long,
        value_name = "N",
        default_value_t = crate::relay::endpoint::MAX_CONNECTIONS,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=65_535)
    )]
    pub metrics_max_connections: usize,
}

/// The routes to serve and their destinations, from flags and the configuration.
pub fn route_destinations(ctx: &Ctx, args: &RelayArgs) -> Result<Vec<(String, RouteFile)>, Error> {
    let configured = &ctx.config.relay.routes;
    let names: Vec<String> = if args.routes.is_empty() {
        configured.keys().cloned().collect()
    } else {
        args.routes.clone()
    };
    if names.is_empty() {
        return Err(Error::Runtime(
            "no routes to relay: pass --route NAME (with --to URL, default stdout) or configure relay.routes".into(),
        ));
    }
    Ok(names
        .into_iter()
        .map(|name| {
            let mut dest = configured.get(&name).cloned().unwrap_or_else(|| RouteFile {
                to: "stdout".into(),
                ..Default::default()
            });
            if let Some(to) = &args.to {
                dest.to = to.clone();
            }
            (name, dest)
        })
        .collect())
}

pub async fn run(ctx: &Ctx, args: RelayArgs) -> anyhow::Result<u8> {
    let config = &ctx.config;
    let url = config.require_url().map_err(Error::from)?;
    let routes = route_destinations(ctx, &args)?;
    // Every route's options first, before the database or any destination is contacted.
    let planned = routes
        .iter()
        .map(|(route, dest)| {
            Ok::<_, Error>((
                destination::plan(route, dest)?,
                destination::plan_dead_letter(route, dest)?,
            ))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let to_stdout = routes
        .iter()
        .any(|(_, d)| DestinationUrl::parse(&d.to) == Ok(DestinationUrl::Stdout));
    let tenants: Vec<Option<uuid::Uuid>> = if config.outbox.tenant_aware {
        if config.outbox.tenants.is_empty() {
            return Err(Error::Runtime(
                "outbox.tenant_aware is on: list the tenants to relay under outbox.tenants".into(),
            )
            .into());
        }
        config.configured_tenants()
    } else {
        vec![None]
    };
    let settings = RelaySettings::from_config(config);
    // The database first: a pooler that cannot hold a transaction, or a server that does not
    // answer, stops the relay before any broker is contacted. Then one store per lane.
    match &config.outbox.target {
        Target::Postgres {
            relation,
            delivery_log,
            ..
        } => {
            let opts = PgStoreOptions::from_config(config, relation.clone(), delivery_log.clone());
            let timeout = ctx.connect_timeout;
            let first = PgStore::connect(url, timeout, opts.clone()).await?;
            let mut stores = vec![first];
            let lanes = build_lanes(ctx, &args, &routes, planned, &tenants).await?;
            while stores.len() < lanes.len() {
                stores.push(PgStore::connect(url, timeout, opts.clone()).await?);
            }
            drive(ctx, &args, relay_of(stores, lanes, settings), to_stdout).await
        }
        Target::Mongo { collection, .. } => {
            if routes.iter().any(|(_, d)| {
                matches!(
                    DestinationUrl::parse(&d.to),
                    Ok(DestinationUrl::PostgresTable(_))
                )
            }) {
                return Err(Error::Runtime(
                    "postgres-table destinations need the outbox on PostgreSQL".into(),
                )
                .into());
            }
            let opts = MongoStoreOptions::from_config(config, collection.clone());
            let first = MongoStore::connect(url, ctx.connect_timeout, opts).await?;
            let lanes = build_lanes(ctx, &args, &routes, planned, &tenants).await?;
            let stores = (0..lanes.len()).map(|_| first.fork()).collect();
            drive(ctx, &args, relay_of(stores, lanes, settings), to_stdout).await
        }
    }
}

/// The routes of one destination: its name as logs show it, and its routes (per tenant).
type LaneRoutes = (
    String,
    Vec<(PassTarget, Sink)>,
    HashMap<String, Arc<dyn destination::Publisher>>,
);

/// A route's destination planned, and its dead-letter destination if it has one.
type PlannedRoute = (
    (destination::RouteSpec, Vec<String>),
    Option<(destination::RouteSpec, Vec<String>)>,
);

/// A relay from one store per lane.
fn relay_of<S: RelayStore>(
    stores: Vec<S>,
    lanes: Vec<LaneRoutes>,
    settings: RelaySettings,
) -> Relay<S> {
    Relay {
        lanes: stores
            .into_iter()
            .zip(lanes)
            .map(|(store, (destination, routes, dead_letters))| Lane {
                store,
                destination,
                routes,
                dead_letters,
                wake: Arc::default(),
            })
            .collect(),
        settings,
    }
}

/// Each route's destination, connected and checked, once per tenant served, grouped into
/// lanes: routes whose `to:` names the same destination share one lane (and its down state).
async fn build_lanes(
    ctx: &Ctx,
    args: &RelayArgs,
    routes: &[(String, RouteFile)],
    planned: Vec<PlannedRoute>,
    tenants: &[Option<uuid::Uuid>],
) -> Result<Vec<LaneRoutes>, Error> {
    let config = &ctx.config;
    let stdout_lock = Arc::new(Mutex::new(()));
    let mut lanes: Vec<LaneRoutes> = Vec::new();
    let build_ctx = destination::BuildContext::from_config(config);
    for ((route, dest), ((spec, planned_warnings), dead_letter)) in routes.iter().zip(planned) {
        let shown = spec.shown();
        let (sink, mut warnings) =
            destination::connect(route, spec, &stdout_lock, build_ctx).await?;
        warnings.splice(0..0, planned_warnings);
        let dead_letter = match dead_letter {
            None => None,
            Some((spec, more)) => {
                warnings.extend(more);
                let (letters, more) =
                    destination::connect(route, spec, &stdout_lock, build_ctx).await?;
                warnings.extend(more);
                match letters {
                    Sink::Publisher(p) => Some(p),
                    Sink::Table(_) => unreachable!("refused when planned"),
                }
            }
        };
        if !args.mode.once {
            tracing::info!(
                route = %route,
                to = %shown,
                channel = dest.channel.as_deref().unwrap_or(route),
                "route ready"
            );
        }
        for w in warnings {
            ctx.out.warn(&w);
        }
        if matches!(sink, Sink::Table(_)) && config.outbox.storage == crate::model::Storage::Retain
        {
            ctx.out.warn(&format!(
                "route {route}: postgres-table under retain storage is at-least-once (each mark commits on its own); consume storage makes it exactly once"
            ));
        }
        let lane = match lanes.iter().position(|(d, _, _)| *d == shown) {
            Some(i) => i,
            None => {
                lanes.push((shown, Vec::new(), HashMap::new()));
                lanes.len() - 1
            }
        };
        if let Some(p) = dead_letter {
            lanes[lane].2.insert(route.clone(), p);
        }
        for tenant in tenants {
            lanes[lane].1.push((
                PassTarget {
                    route: route.clone(),
                    tenant: *tenant,
                },
                sink.clone(),
            ));
        }
    }
    Ok(lanes)
}

/// Runs the relay, once or in a loop, whatever the store.
async fn drive<S: RelayStore>(
    ctx: &Ctx,
    args: &RelayArgs,
    mut relay: Relay<S>,
    to_stdout: bool,
) -> anyhow::Result<u8> {
    let config = &ctx.config;
    if args.mode.once {
        let bar = ctx.out.progress(None, "relaying");
        let mut published = 0u64;
        let stats = relay
            .drain_once(args.max_passes, |target, report| {
                published += report.published as u64;
                bar.set_message(format!("{target}: {published} published"));
                if let Some(e) = &report.error {
                    bar.suspend(|| tracing::warn!(route = %target, "pass failed: {e}"));
                }
            })
            .await;
        bar.finish_and_clear();
        print_summary(ctx, &stats, to_stdout);
        let ok = stats
            .iter()
            .all(|s| s.failed_passes == 0 && s.failed == 0 && s.destination_down.is_none());
        return Ok(if ok {
            exit_code::OK
        } else {
            exit_code::CHECK_FAILED
        });
    }

    let metrics = std::sync::Arc::new(crate::relay::metrics::Metrics::new(
        relay.settings.interval,
        relay.settings.retry_max_backoff,
    ));
    let destinations: Vec<String> = relay.lanes.iter().map(|l| l.destination.clone()).collect();
    metrics.set_destinations(&destinations);
    if let Some(addr) = args.metrics_addr {
        use crate::relay::endpoint::{self, Endpoint, Limits, StoreGauges};
        let endpoint = Endpoint {
            metrics: metrics.clone(),
            gauges: std::sync::Arc::new(StoreGauges::new(
                ctx.config.clone(),
                ctx.connect_timeout,
                relay.targets(),
            )),
            health_max_failing: args.health_max_failing.0,
            limits: Limits {
                header_read_timeout: args.metrics_header_timeout.0,
                max_connections: args.metrics_max_connections,
                ..Limits::default()
            },
        };
        let bound = endpoint::spawn(addr, endpoint).await?;
        tracing::info!("serving /metrics, /healthz and /readyz on http://{bound}");
    }
    let wake = start_wake(ctx, relay.wakers(), metrics.clone()).await?;
    let shutdown = Shutdown::default();
    spawn_signal_handler(shutdown.clone());
    tracing::info!(routes = relay.targets().len(), destinations = relay.lanes.len(), storage = %config.outbox.storage, "relay started");
    let stats = relay
        .run_loop(&shutdown, &LoopEvents { metrics: &metrics })
        .await;
    if let Some(task) = wake {
        task.abort();
    }
    tracing::info!("relay stopped after draining");
    if ctx.log_format == super::LogFormat::Json {
        // stderr carries JSON log lines only
        tracing::info!(summary = %serde_json::to_string(&stats).expect("serialises"), "relay summary");
    } else {
        print_summary(ctx, &stats, true);
    }
    Ok(exit_code::OK)
}

/// `relay.wake: notify`: starts the listener that wakes lanes when rows are staged, or says
/// why the relay polls only (at `interval`, which stays the safety net either way).
async fn start_wake(
    ctx: &Ctx,
    wakers: crate::wake::Wakers,
    metrics: Arc<crate::relay::metrics::Metrics>,
) -> Result<Option<tokio::task::JoinHandle<()>>, Error> {
    let config = &ctx.config;
    if config.relay.wake != crate::model::Wake::Notify {
        return Ok(None);
    }
    let polling = crate::duration::Dur(config.relay.interval);
    // says why this run polls only
    let polls = |why: &str| {
        ctx.out.warn(&format!(
            "relay.wake: notify is off for this run, polling every {polling}: {why}"
        ));
        None
    };
    let on_wake = move |route: &str| metrics.wake(route);
    match &config.outbox.target {
        Target::Postgres { relation, .. } => {
            let main = config.require_url()?;
            let mut channels = Vec::new();
            let mut missing = Vec::new();
            let mut conn = ctx.connect_pg().await?;
            for tenant in config.relation_tenants()? {
                let table = relation
                    .resolve(tenant)
                    .map_err(|e| Error::Runtime(e.to_string()))?;
                let trigger = table
                    .name
                    .with_suffix("wake trigger", "_wake")
                    .map_err(|e| Error::Runtime(e.to_string()))?;
                let found: i64 = crate::db::pg::query_scalar(
                    "SELECT count(*) FROM pg_trigger WHERE tgrelid = to_regclass($1) AND tgname = $2",
                )
                .bind(table.to_string())
                .bind(trigger.name())
                .fetch_one(&mut conn)
                .await
                .map_err(|e| Error::pg("looking for the wake trigger", e))?;
                if found == 0 {
                    missing.push(table.plain());
                }
                channels.push(trigger.name().to_owned());
            }
            if !missing.is_empty() {
                ctx.out.warn(&format!(
                    "relay.wake: notify: {} has no wake trigger, so staging wakes nobody: run outboxctl migrate; polling every {polling} meanwhile",
                    missing.join(", ")
                ));
            }
            if config.relay.wake_url.is_none()
                && crate::db::pg::direct_backend_pid(&mut conn, main)
                    .await
                    .is_none()
            {
                return Ok(polls(
                    "the database URL goes through a pooler (the server listens on another port than the one dialled) and LISTEN needs a session of its own; set relay.wake_url to a direct or session-pooled URL",
                ));
            }
            let url = config.relay.wake_url.as_ref().unwrap_or(main);
            match crate::store::postgres::wake::listen(url, main, &channels, ctx.connect_timeout)
                .await
            {
                Ok(listener) => {
                    tracing::info!(url = %url, channels = channels.len(), "wake-up on commit: listening");
                    let on = crate::store::postgres::wake::ListenOn {
                        url: url.clone(),
                        notify_url: main.clone(),
                        channels,
                    };
                    Ok(Some(tokio::spawn(crate::store::postgres::wake::run(
                        listener, on, wakers, on_wake,
                    ))))
                }
                Err(why) => Ok(polls(&why)),
            }
        }
        Target::Mongo { collection, .. } => {
            let client = ctx.connect_mongo().await?;
            match crate::store::mongo::wake::listen(&client, collection).await {
                Ok(coll) => {
                    tracing::info!(collection = %collection, "wake-up on insert: following a change stream");
                    Ok(Some(tokio::spawn(crate::store::mongo::wake::run(
                        coll, wakers, on_wake,
                    ))))
                }
                Err(why) => Ok(polls(&why)),
            }
        }
    }
}

/// What the looping relay reports: metrics, and a log line per tick that did something.
struct LoopEvents<'a> {
    metrics: &'a crate::relay::metrics::Metrics,
}

impl RelayEvents for LoopEvents<'_> {
    fn pass(&self, target: &PassTarget, report: &PassReport) {
        self.metrics.record(target, report);
        if let Some(e) = &report.error {
            tracing::debug!(route = %target, "pass failed: {e}");
        }
    }

    fn tick(&self, stats: &[RouteStats]) {
        for s in stats
            .iter()
            .filter(|s| s.claimed > 0 || s.failed_passes > 0 || s.reclaimed > 0)
        {
            tracing::info!(
                route = %s.route, claimed = s.claimed, published = s.published, retried = s.retried,
                failed = s.failed, reclaimed = s.reclaimed, failed_passes = s.failed_passes, "tick"
            );
        }
    }

    fn destination(&self, destination: &str, down: Option<&str>) {
        self.metrics.destination(destination, down);
    }

    fn database(&self, away: Option<&str>) {
        self.metrics.database(away);
    }
}

/// SIGTERM or SIGINT starts the drain; a second one exits at once with 130.
fn spawn_signal_handler(shutdown: Shutdown) {
    tokio::spawn(async move {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => return,
            };
        for n in 0.. {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            if n == 0 {
                tracing::info!("stop requested: draining (signal again to exit at once)");
                shutdown.stop();
            } else {
                std::process::exit(i32::from(exit_code::INTERRUPTED));
            }
        }
    });
}

fn print_summary(ctx: &Ctx, stats: &[RouteStats], to_stderr: bool) {
    let text = if ctx.out.is_json() {
        match ctx.out.format {
            crate::cli::Format::Jsonl => stats
                .iter()
                .map(|s| serde_json::to_string(s).expect("serialises"))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => serde_json::to_string_pretty(stats).expect("serialises"),
        }
    } else {
        let mut table = super::output::table();
        let tenant_col = stats.iter().any(|s| s.tenant.is_some());
        let mut header = vec!["route"];
        if tenant_col {
            header.push("tenant");
        }
        header.extend([
            "claimed",
            "published",
            "retried",
            "failed",
            "failed passes",
            "seconds",
            "events/s",
            "lag p50 ms",
            "lag p99 ms",
        ]);
        table.set_header(header);
        for s in stats {
            let mut row = vec![s.route.clone()];
            if tenant_col {
                row.push(s.tenant.map(|t| t.to_string()).unwrap_or_default());
            }
            row.extend([
                s.claimed.to_string(),
                s.published.to_string(),
                s.retried.to_string(),
                s.failed.to_string(),
                s.failed_passes.to_string(),
                format!("{:.2}", s.seconds),
                format!("{:.0}", s.events_per_second),
                s.lag_p50_ms.map(|v| format!("{v:.1}")).unwrap_or_default(),
                s.lag_p99_ms.map(|v| format!("{v:.1}")).unwrap_or_default(),
            ]);
            table.add_row(row);
        }
        let mut out = table.to_string();
        for s in stats.iter().filter(|s| s.last_error.is_some()) {
            out.push_str(&format!(
                "\n{}: last failed pass: {}",
                s.route,
                s.last_error.as_deref().unwrap_or_default()
            ));
        }
        for s in stats.iter().filter(|s| s.destination_down.is_some()) {
            out.push_str(&format!(
                "\n{}: destination down, nothing attempted (rows stay pending): {}",
                s.route,
                s.destination_down.as_deref().unwrap_or_default()
            ));
        }
        out
    };
    if to_stderr {
        if !ctx.out.quiet || ctx.out.is_json() {
            eprintln!("{text}");
        }
    } else {
        ctx.out.data(&text);
    }
}
