//! A looping relay's surroundings: its metrics, the HTTP endpoint that serves them
//! (`/metrics`, `/healthz`, `/readyz`), the wake-up listener of `relay.wake: notify` (or why
//! this run polls only), and the events the loop reports into them. [`start`] sets them up,
//! [`Serving::run`] loops until the shutdown and drains. No terminal code, no signal
//! handling: the caller stops the [`Shutdown`] it passes and says what a warning looks like.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use super::assemble::AnyRelay;
use super::endpoint::{self, Endpoint, Limits, StoreGauges};
use super::metrics::Metrics;
use super::{PassReport, RelayEvents, RouteStats, Shutdown};
use crate::Error;
use crate::config::{Config, Target};
use crate::store::PassTarget;

/// How the looping relay serves its metrics.
#[derive(Debug, Clone)]
pub struct LoopOptions {
    /// Serve `/metrics` and `/healthz` here.
    pub metrics_addr: Option<SocketAddr>,
    /// `/healthz` fails when a route's passes have failed for longer than this.
    pub health_max_failing: Duration,
    /// How long a client of the metrics address may take to send its request headers.
    pub header_read_timeout: Duration,
    /// Connections to the metrics address at once, at most.
    pub max_connections: usize,
}

/// A looping relay set up, ready to run.
pub struct Serving {
    relay: AnyRelay,
    metrics: Arc<Metrics>,
    wake: Option<tokio::task::JoinHandle<()>>,
    storage: crate::model::Storage,
}

/// Sets up the metrics (and their endpoint, when asked: a taken address fails the start) and
/// the wake-up listener.
pub async fn start(
    config: &Config,
    connect_timeout: Duration,
    relay: AnyRelay,
    options: &LoopOptions,
    warn: &mut dyn FnMut(&str),
) -> Result<Serving, Error> {
    let settings = relay.settings();
    let metrics = Arc::new(Metrics::new(settings.interval, settings.retry_max_backoff));
    metrics.set_destinations(&relay.destinations());
    if let Some(addr) = options.metrics_addr {
        let endpoint = Endpoint {
            metrics: metrics.clone(),
            gauges: Arc::new(StoreGauges::new(
                config.clone(),
                connect_timeout,
                relay.targets(),
            )),
            health_max_failing: options.health_max_failing,
            limits: Limits {
                header_read_timeout: options.header_read_timeout,
                max_connections: options.max_connections,
                ..Limits::default()
            },
        };
        let bound = endpoint::spawn(addr, endpoint).await?;
        tracing::info!("serving /metrics, /healthz and /readyz on http://{bound}");
    }
    let wake = start_wake(
        config,
        connect_timeout,
        relay.wakers(),
        metrics.clone(),
        warn,
    )
    .await?;
    Ok(Serving {
        relay,
        metrics,
        wake,
        storage: config.outbox.storage,
    })
}

impl Serving {
    /// Every lane ticks until `shutdown`, then drains; the totals per route.
    pub async fn run(mut self, shutdown: &Shutdown) -> Vec<RouteStats> {
        tracing::info!(routes = self.relay.targets().len(), destinations = self.relay.destinations().len(), storage = %self.storage, "relay started");
        let stats = self
            .relay
            .run_loop(
                shutdown,
                &LoopEvents {
                    metrics: &self.metrics,
                },
            )
            .await;
        if let Some(task) = self.wake {
            task.abort();
        }
        tracing::info!("relay stopped after draining");
        stats
    }
}

/// `relay.wake: notify`: starts the listener that wakes lanes when rows are staged, or says
/// (through `warn`) why the relay polls only (at `interval`, which stays the safety net
/// either way).
async fn start_wake(
    config: &Config,
    connect_timeout: Duration,
    wakers: crate::wake::Wakers,
    metrics: Arc<Metrics>,
    warn: &mut dyn FnMut(&str),
) -> Result<Option<tokio::task::JoinHandle<()>>, Error> {
    if config.relay.wake != crate::model::Wake::Notify {
        return Ok(None);
    }
    let polling = crate::duration::Dur(config.relay.interval);
    let on_wake = move |route: &str| metrics.wake(route);
    match &config.outbox.target {
        Target::Postgres { relation, .. } => {
            let main = config.require_url()?;
            let mut channels = Vec::new();
            let mut missing = Vec::new();
            let mut conn = crate::store::any::connect_pg(config, connect_timeout).await?;
            for tenant in config.relation_tenants()? {
                let table = relation
                    .resolve(tenant)
                    .map_err(|e| Error::Runtime(e.to_string()))?;
                let trigger = table
                    .name
                    .with_suffix("wake trigger", "_wake")
                    .map_err(|e| Error::Runtime(e.to_string()))?;
                if !crate::store::postgres::wake::has_trigger(&mut conn, &table, trigger.name())
                    .await?
                {
                    missing.push(table.plain());
                }
                channels.push(trigger.name().to_owned());
            }
            if !missing.is_empty() {
                warn(&format!(
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
                    warn,
                    polling,
                    "the database URL goes through a pooler (the server listens on another port than the one dialled) and LISTEN needs a session of its own; set relay.wake_url to a direct or session-pooled URL",
                ));
            }
            let url = config.relay.wake_url.as_ref().unwrap_or(main);
            match crate::store::postgres::wake::listen(url, main, &channels, connect_timeout).await
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
                Err(why) => Ok(polls(warn, polling, &why)),
            }
        }
        Target::Mongo { collection, .. } => {
            let client = crate::store::any::connect_mongo(config, connect_timeout).await?;
            match crate::store::mongo::wake::listen(&client, collection).await {
                Ok(coll) => {
                    tracing::info!(collection = %collection, "wake-up on insert: following a change stream");
                    Ok(Some(tokio::spawn(crate::store::mongo::wake::run(
                        coll, wakers, on_wake,
                    ))))
                }
                Err(why) => Ok(polls(warn, polling, &why)),
            }
        }
    }
}

/// Says why this run polls only: no listener.
fn polls(
    warn: &mut dyn FnMut(&str),
    polling: crate::duration::Dur,
    why: &str,
) -> Option<tokio::task::JoinHandle<()>> {
    warn(&format!(
        "relay.wake: notify is off for this run, polling every {polling}: {why}"
    ));
    None
}

/// What the looping relay reports: metrics, and a log line per tick that did something.
struct LoopEvents<'a> {
    metrics: &'a Metrics,
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
