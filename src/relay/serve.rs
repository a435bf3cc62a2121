//! A looping relay's surroundings: its metrics, the HTTP endpoint that serves them
//! (`/metrics`, `/healthz`, `/readyz`), the wake-up listener of `relay.wake: notify` (or why
//! this run polls only), and the events the loop reports into them. [`start`] sets them up,
//! [`Serving::run`] loops until the shutdown and drains. No terminal code, no signal
//! handling: the caller stops the [`Shutdown`] it passes and says what a warning looks like.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use super::assemble::{AnyRelay, Assembled};
use super::endpoint::{self, Endpoint, Limits, StoreGauges};
use super::fleet::FleetView;
use super::heartbeat::{HEARTBEAT_STOP_WITHIN, HeartbeatTask};
use super::metrics::Metrics;
use super::{PassReport, RelayEvents, RouteStats, Shutdown};
use crate::Error;
use crate::config::Config;
use crate::store::PassTarget;
use crate::store::backend::Backend;

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
    heartbeat: Option<HeartbeatTask>,
    metrics: Arc<Metrics>,
    wake: Option<crate::store::wake::Listener>,
    storage: crate::model::Storage,
}

/// Sets up the metrics (and their endpoint, when asked: a taken address fails the start) and
/// the wake-up listener. `None`: `stop` came first. Either way short of serving, the relay's
/// row in the registry is marked stopped.
pub async fn start(
    config: &Config,
    connect_timeout: Duration,
    relay: AnyRelay,
    heartbeat: Option<HeartbeatTask>,
    options: &LoopOptions,
    warn: &mut dyn FnMut(&str),
    stop: &Shutdown,
) -> Result<Option<Serving>, Error> {
    let settings = relay.settings();
    let metrics = Arc::new(Metrics::new(settings.interval, settings.retry_max_backoff));
    metrics.set_destinations(&relay.destinations());
    let surroundings = async {
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
            relay.fleet().set_metrics_addr(bound.to_string());
            tracing::info!("serving /metrics, /healthz and /readyz on http://{bound}");
        }
        start_wake(
            config,
            connect_timeout,
            relay.wakers(),
            metrics.clone(),
            warn,
        )
        .await
    };
    let started = stop.unless_stopped_starting(surroundings).await;
    let Some(Ok(wake)) = started else {
        if let Some(heartbeat) = heartbeat {
            heartbeat
                .stop_as(started.as_ref(), HEARTBEAT_STOP_WITHIN)
                .await;
        }
        return started.transpose().map(|_| None);
    };
    Ok(Some(Serving {
        relay,
        heartbeat,
        metrics,
        wake,
        storage: config.outbox.storage,
    }))
}

impl Serving {
    /// Every lane ticks until `shutdown`, then drains; the totals per route.
    pub async fn run(mut self, shutdown: &Shutdown) -> Vec<RouteStats> {
        tracing::info!(routes = self.relay.targets().len(), destinations = self.relay.destinations().len(), storage = %self.storage, "relay started");
        let events = LoopEvents {
            metrics: &self.metrics,
            fleet: self.relay.fleet(),
            targets: self.relay.targets(),
        };
        events.fleet_gauges();
        let stats = self.relay.run_loop(shutdown, &events).await;
        if let Some(task) = self.wake {
            task.abort();
        }
        if let Some(heartbeat) = self.heartbeat {
            heartbeat.stop(HEARTBEAT_STOP_WITHIN).await;
        }
        tracing::info!("relay stopped after draining");
        stats
    }
}

/// `relay.wake: notify`: the backend's listener that wakes lanes when rows are staged, or
/// (through `warn`) why the relay polls only.
async fn start_wake(
    config: &Config,
    connect_timeout: Duration,
    wakers: crate::wake::Wakers,
    metrics: Arc<Metrics>,
    warn: &mut dyn FnMut(&str),
) -> Result<Option<crate::store::wake::Listener>, Error> {
    if config.relay.wake != crate::model::Wake::Notify {
        return Ok(None);
    }
    // each served route's counter from 0, as the other per-route counters are (the family
    // was missing until a first wake-up)
    for routes in wakers.0.iter().map(|(routes, _)| routes) {
        routes.iter().for_each(|r| metrics.wakes_from_zero(r));
    }
    Backend::of(config, connect_timeout)
        .wake_listener(wakers, move |route: &str| metrics.wake(route), warn)
        .await
}

/// `relay --once`: drains every route (at most `max_passes` passes each; `on_pass` sees each
/// pass) until `stop` (a signal: the pass in flight ends as in a looping relay's shutdown
/// drain), then stops the heartbeat of the registry, if any.
pub async fn once(
    assembled: Assembled,
    max_passes: Option<u64>,
    on_pass: impl FnMut(&PassTarget, &PassReport),
    drained: impl FnOnce(),
    stop: &Shutdown,
) -> Vec<RouteStats> {
    let Assembled {
        mut relay,
        heartbeat,
        ..
    } = assembled;
    let stats = relay.drain_once_until(max_passes, on_pass, stop).await;
    // the drain is over: what follows (the registry row's last word, up to
    // HEARTBEAT_STOP_WITHIN) is no more relaying
    drained();
    if let Some(heartbeat) = heartbeat {
        heartbeat.stop(HEARTBEAT_STOP_WITHIN).await;
    }
    stats
}

/// A drain's outcome as a check: failed when a route had failed rows, failed passes or its
/// destination down (each route named once; the summary says which and why). A pass that
/// failed as not fitting the database (a missing table, a privilege) is the setup's error
/// instead, as it is for every other command.
pub fn once_verdict(stats: &[RouteStats], stop: &Shutdown) -> Result<(), Error> {
    if stop.is_stopped() {
        return Err(Error::Interrupted(
            "relay --once stopped by a signal: no pass started after it; the one in flight marked and committed what it had published, or, still running at shutdown_drain_timeout (a statement waiting on a lock), was cut and rolled back, its claimed rows (retain) processing until reclaim_stale_after; the rows not reached stay pending for the next run".into(),
        ));
    }
    if let Some((route, e)) = (stats.iter()).find_map(|s| Some((&s.route, s.unfit.as_ref()?))) {
        let fix = crate::schema::desired::consume_only_hint(e).unwrap_or_else(|| {
            "run `outboxctl migrate`, or check the relation and the role's grants".into()
        });
        return Err(Error::SchemaMissing(format!(
            "relay --once: route {route}: {e}; {fix}"
        )));
    }
    let mut troubled: Vec<&str> = (stats.iter())
        .filter(|s| s.failed_passes > 0 || s.failed > 0 || s.destination_down.is_some())
        .map(|s| s.route.as_str())
        .collect();
    troubled.dedup();
    if troubled.is_empty() {
        return Ok(());
    }
    Err(Error::CheckFailed(format!(
        "relay --once: failed rows, failed passes or a destination down on {} (see the summary)",
        troubled.join(", ")
    )))
}

/// What the looping relay reports: metrics, and a log line per tick that did something.
struct LoopEvents<'a> {
    metrics: &'a Metrics,
    fleet: Arc<FleetView>,
    targets: Vec<PassTarget>,
}

impl LoopEvents<'_> {
    /// `outboxctl_route_paused` and the heartbeat failures, as the heartbeat last read them.
    fn fleet_gauges(&self) {
        let paused: Vec<(PassTarget, bool)> = self
            .targets
            .iter()
            .map(|t| (t.clone(), self.fleet.paused(t).is_some()))
            .collect();
        self.metrics.fleet(&paused, self.fleet.heartbeat_failures());
    }
}

impl RelayEvents for LoopEvents<'_> {
    fn pass(&self, target: &PassTarget, report: &PassReport) {
        self.metrics.record(target, report);
        if let Some(e) = &report.error {
            tracing::debug!(route = %target, "pass failed: {e}");
        }
    }

    fn tick(&self, stats: &[RouteStats]) {
        self.fleet_gauges();
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

    fn destination(&self, destination: &str, routes: &[PassTarget], down: Option<&str>) {
        self.metrics.destination(destination, routes, down);
        self.fleet.destination(destination, down);
    }

    fn database(&self, away: Option<&str>) {
        self.metrics.database(away);
    }

    /// The heartbeat goes on while the database is away, and fails: its count stays current.
    fn waiting(&self) {
        self.fleet_gauges();
    }
}
