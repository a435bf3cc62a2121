//! Putting a relay together from the configuration: the routes to serve and their destinations
//! (`relay.routes`, or the routes and destination a caller names), every destination planned
//! before any I/O, then the database first (one store per lane) and each destination connected
//! and checked, routes that share a destination grouped into one lane. The stores come from
//! the backend switch ([`Backend`]): [`AnyRelay`] is the relay over whichever store it is. No
//! terminal code: warnings go to the caller's `warn`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::fleet::FleetView;
use super::heartbeat::{HEARTBEAT_STOP_WITHIN, HeartbeatTask, Identity, Registered};
use super::{Lane, PassReport, Relay, RelayEvents, RelaySettings, RouteStats, Shutdown};
use crate::Error;
use crate::config::{Config, Route};
use crate::destination::{self, DestinationUrl, Sink};
use crate::store::backend::Backend;
use crate::store::memory::MemoryStore;
use crate::store::mongo::MongoStore;
use crate::store::postgres::PgStore;
use crate::store::{PassTarget, RelayStore};

/// What to relay.
#[derive(Debug, Clone, Default)]
pub struct RelayRequest {
    /// The routes to serve (empty: every route in `relay.routes`).
    pub routes: Vec<String>,
    /// One destination for every route served, instead of the configured ones.
    pub to: Option<crate::dburl::SecretText>,
    /// A looping relay (it logs each route as it gets ready); else a one-shot drain.
    pub looping: bool,
    /// A stop that ends the start early (a signal while destinations connect): nothing is
    /// assembled, and a relay registered by then is marked stopped.
    pub stop: Option<Shutdown>,
}

/// The routes to serve and their destinations: the configured ones, a route that is not
/// configured goes to stdout, and `to` replaces every destination.
pub fn route_destinations(
    config: &Config,
    routes: &[String],
    to: Option<&str>,
) -> Result<Vec<(String, Route)>, Error> {
    let configured = &config.relay.routes;
    let names: Vec<String> = if routes.is_empty() {
        configured.keys().cloned().collect()
    } else {
        routes.to_vec()
    };
    if names.is_empty() {
        return Err(Error::NotConfigured(
            "no routes to relay: pass --route NAME (with --to URL, default stdout) or configure relay.routes",
        ));
    }
    // empty (an unset variable), a control character, a space at either end (a quoting slip)
    for name in &names {
        crate::model::parse_route(name).map_err(|e| Error::Usage(format!("--route: {e}")))?;
    }
    // a name the configuration lacks (a typo, another --config) would go to stdout, consumed
    // there: with routes configured, only --to says where it goes
    if let Some(why) = (names.iter())
        .filter(|_| to.is_none())
        .find_map(|n| config.route_unconfigured(n))
    {
        return Err(Error::Usage(format!(
            "{why}: check the name and --config, or pass --to URL (stdout too) to relay it there"
        )));
    }
    names
        .into_iter()
        .map(|name| {
            let mut dest = configured
                .get(&name)
                .cloned()
                .unwrap_or_else(|| Route::new(DestinationUrl::Stdout));
            if let Some(to) = to {
                let url = crate::config::destination_url("--to", to, &crate::config::process_env)?;
                dest.to = url.into();
                crate::destination::keep_options_of_its_kind(&mut dest);
            }
            Ok((name, dest))
        })
        .collect()
}

/// The relay over the configured backend's store.
pub enum AnyRelay {
    Postgres(Relay<PgStore<'static>>),
    Mongo(Relay<MongoStore>),
    Memory(Relay<MemoryStore>),
}

/// The same expression over either backend's relay.
macro_rules! each {
    ($relay:expr, $r:ident => $body:expr) => {
        match $relay {
            AnyRelay::Postgres($r) => $body,
            AnyRelay::Mongo($r) => $body,
            AnyRelay::Memory($r) => $body,
        }
    };
}

impl AnyRelay {
    /// See [`Relay::drain_once`].
    pub async fn drain_once(
        &mut self,
        max_passes: Option<u64>,
        on_pass: impl FnMut(&PassTarget, &PassReport),
    ) -> Vec<RouteStats> {
        each!(self, r => r.drain_once(max_passes, on_pass).await)
    }

    /// See [`Relay::drain_once_until`].
    pub async fn drain_once_until(
        &mut self,
        max_passes: Option<u64>,
        on_pass: impl FnMut(&PassTarget, &PassReport),
        shutdown: &Shutdown,
    ) -> Vec<RouteStats> {
        each!(self, r => r.drain_once_until(max_passes, on_pass, shutdown).await)
    }

    /// See [`Relay::run_loop`].
    pub async fn run_loop(
        &mut self,
        shutdown: &Shutdown,
        events: &dyn RelayEvents,
    ) -> Vec<RouteStats> {
        each!(self, r => r.run_loop(shutdown, events).await)
    }

    /// Every route served, lane by lane.
    pub fn targets(&self) -> Vec<PassTarget> {
        each!(self, r => r.targets())
    }

    /// What a wake-up listener wakes.
    pub fn wakers(&self) -> crate::wake::Wakers {
        each!(self, r => r.wakers())
    }

    /// Each lane's destination, as logs and metrics name it.
    pub fn destinations(&self) -> Vec<String> {
        each!(self, r => r.lanes.iter().map(|l| l.destination.clone()).collect())
    }

    pub fn settings(&self) -> &RelaySettings {
        each!(self, r => &r.settings)
    }

    /// The pauses in force and what the heartbeat reports.
    pub fn fleet(&self) -> Arc<FleetView> {
        each!(self, r => r.fleet.clone())
    }
}

/// A relay put together, whether any route publishes to stdout (then stdout carries
/// messages only), and its heartbeat into the relay registry (when it registered).
pub struct Assembled {
    pub relay: AnyRelay,
    pub to_stdout: bool,
    pub heartbeat: Option<HeartbeatTask>,
}

/// Plans every route's destination (before the database or any destination is contacted),
/// connects the database, then the destinations, one store per lane.
pub async fn assemble(
    config: &Config,
    connect_timeout: Duration,
    request: &RelayRequest,
    warn: &mut dyn FnMut(&str),
) -> Result<Option<Assembled>, Error> {
    config.require_url()?;
    assemble_on(&Backend::of(config, connect_timeout), config, request, warn).await
}

/// [`assemble`] on a backend given (the memory store's, from the library and tests). `None`:
/// the request's stop came first.
pub async fn assemble_on(
    backend: &Backend<'_>,
    config: &Config,
    request: &RelayRequest,
    warn: &mut dyn FnMut(&str),
) -> Result<Option<Assembled>, Error> {
    let routes = route_destinations(
        config,
        &request.routes,
        request.to.as_ref().map(crate::dburl::SecretText::expose),
    )?;
    let to_flag = request.to.is_some();
    let planned = routes
        .iter()
        .map(|(route, dest)| {
            Ok::<_, Error>((
                destination::plan(route, dest).map_err(|e| given_by(e, route, to_flag))?,
                destination::plan_dead_letter(route, dest)?,
            ))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let to_stdout = (routes.iter()).any(|(_, d)| d.to.url().is_some_and(DestinationUrl::is_stdout));
    let tenants: Vec<Option<uuid::Uuid>> = if config.outbox.tenant_aware {
        if config.outbox.tenants.is_empty() {
            return Err(Error::NotConfigured(
                "outbox.tenant_aware is on: list the tenants to relay under outbox.tenants",
            ));
        }
        config.configured_tenants()
    } else {
        vec![None]
    };
    let settings = RelaySettings::from_config(config);
    // a second store per lane claims each route's next batch ahead
    let claim_ahead = config.relay.claim_ahead;
    // Registered before the first pass (after the database proved it holds a transaction),
    // so the pauses in force hold from it.
    let fleet = Arc::new(FleetView::default());
    let identity = Identity::here(
        routes.iter().map(|(r, _)| r.clone()).collect(),
        tenants.iter().flatten().copied().collect(),
    );
    let lanes = LaneBuild {
        config,
        routes: &routes,
        tenants: &tenants,
        looping: request.looping,
        to_flag,
    };
    // The database first: a pooler that cannot hold a transaction, or a server that does not
    // answer, stops the relay before any broker is contacted. Then one store per lane.
    // The heartbeat runs from registering on: connecting to the destinations may take a
    // while (a slow broker waits out its connect timeout), and meanwhile the row stays live
    // and the pauses a first pass obeys stay fresh.
    let mut heartbeat: Option<HeartbeatTask> = None;
    let built = async {
        Ok::<_, Error>(match backend {
            Backend::Postgres(pg) => {
                let mut opts = pg.store_options();
                let mut first = pg.relay_store(opts.clone()).await?;
                let registered =
                    Registered::register(backend, config, identity, fleet.clone(), warn).await;
                // With named statements the claim reads the pauses itself (free once
                // prepared), so a pause holds from the next pass; unnamed ones would plan that
                // lookup on every claim (measured: about a tenth of consume's throughput), so
                // the heartbeat's read does it.
                opts.pauses = registered
                    .as_ref()
                    .and_then(Registered::claim_pauses)
                    .filter(|_| opts.prepared_statements);
                if opts.pauses.is_some() {
                    fleet.claim_checks_pauses();
                }
                heartbeat = registered.map(Registered::spawn);
                first.read_pauses(opts.pauses.clone());
                let mut stores = vec![first];
                let lanes = lanes.build(planned, warn).await?;
                while stores.len() < lanes.len() {
                    stores.push(pg.relay_store(opts.clone()).await?);
                }
                let mut aheads = Vec::new();
                while claim_ahead && aheads.len() < lanes.len() {
                    aheads.push(pg.relay_store(opts.clone()).await?);
                }
                AnyRelay::Postgres(relay_of(stores, aheads, lanes, settings, fleet))
            }
            Backend::Mongo(mongo) => {
                refuse_table_sinks(&routes)?;
                let first = mongo.relay_store().await?;
                heartbeat = Registered::register(backend, config, identity, fleet.clone(), warn)
                    .await
                    .map(Registered::spawn);
                let lanes = lanes.build(planned, warn).await?;
                let stores: Vec<MongoStore> = (0..lanes.len()).map(|_| first.fork()).collect();
                let aheads = stores.iter().filter(|_| claim_ahead);
                let aheads = aheads.map(MongoStore::sharing).collect();
                AnyRelay::Mongo(relay_of(stores, aheads, lanes, settings, fleet))
            }
            Backend::Memory(outbox) => {
                refuse_table_sinks(&routes)?;
                let lanes = lanes.build(planned, warn).await?;
                let stores = (0..lanes.len()).map(|_| outbox.store()).collect();
                let aheads = (0..lanes.len()).filter(|_| claim_ahead);
                let aheads = aheads.map(|_| outbox.store()).collect();
                AnyRelay::Memory(relay_of(stores, aheads, lanes, settings, fleet))
            }
        })
    };
    let built = match &request.stop {
        Some(stop) => stop.unless_stopped_starting(built).await,
        None => Some(built.await),
    };
    let Some(Ok(relay)) = built else {
        // registered, then unable to start (a destination, a store) or stopped meanwhile:
        // its row says stopped (and why), not live and then stale for a day
        if let Some(h) = heartbeat {
            h.stop_as(built.as_ref(), HEARTBEAT_STOP_WITHIN).await;
        }
        return built.transpose().map(|_| None);
    };
    Ok(Some(Assembled {
        relay,
        to_stdout,
        heartbeat,
    }))
}

/// A `postgres-table` destination inserts in the outbox's own PostgreSQL database: refused on
/// another backend.
fn refuse_table_sinks(routes: &[(String, Route)]) -> Result<(), Error> {
    if routes
        .iter()
        .any(|(_, d)| matches!(d.to.url(), Some(DestinationUrl::PostgresTable(_))))
    {
        return Err(Error::NotConfigured(
            "postgres-table destinations need the outbox on PostgreSQL",
        ));
    }
    Ok(())
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

/// A relay from one store per lane, and one more per lane that claims ahead (`aheads`: none,
/// or one for each).
fn relay_of<S: RelayStore>(
    stores: Vec<S>,
    aheads: Vec<S>,
    lanes: Vec<LaneRoutes>,
    settings: RelaySettings,
    fleet: Arc<FleetView>,
) -> Relay<S> {
    let mut aheads = aheads.into_iter();
    Relay {
        lanes: stores
            .into_iter()
            .zip(lanes)
            .map(|(store, (destination, routes, dead_letters))| Lane {
                store,
                ahead: aheads.next(),
                destination,
                routes,
                dead_letters,
                wake: Arc::default(),
            })
            .collect(),
        settings,
        fleet,
    }
}

/// What grouping routes into lanes needs.
struct LaneBuild<'a> {
    config: &'a Config,
    routes: &'a [(String, Route)],
    tenants: &'a [Option<uuid::Uuid>],
    looping: bool,
    /// Every route's `to:` is `--to`'s: errors name the flag.
    to_flag: bool,
}

impl LaneBuild<'_> {
    /// Each route's destination, connected and checked, once per tenant served, grouped into
    /// lanes: routes whose `to:` names the same destination share one lane (and its down
    /// state). The routes connect at once: a broker that does not answer costs its connect
    /// timeout once, not once per route (twenty Kafka routes on a cluster that was down kept
    /// the relay, its other routes and its endpoint from starting for 100 s). A route that
    /// cannot start stops the relay, the first in the configuration's order named.
    async fn build(
        &self,
        planned: Vec<PlannedRoute>,
        warn: &mut dyn FnMut(&str),
    ) -> Result<Vec<LaneRoutes>, Error> {
        let stdout_lock = Arc::new(Mutex::new(()));
        let mut lanes: Vec<LaneRoutes> = Vec::new();
        let mut identities: Vec<String> = Vec::new();
        let build_ctx = destination::BuildContext::from_config(self.config);
        let connecting = (self.routes.iter().zip(planned))
            .map(|((route, _), planned)| self.connect(route, planned, &stdout_lock, build_ctx));
        let (connected, failed): (Vec<_>, Vec<_>) = futures_util::future::join_all(connecting)
            .await
            .into_iter()
            .partition(Result::is_ok);
        let connected = connected.into_iter().flatten();
        // a route that cannot start stops the relay; what the others did meanwhile (a topic
        // or a stream created) is still said
        if let Some(e) = failed.into_iter().find_map(Result::err) {
            connected.for_each(|c| c.warnings.iter().for_each(|w| warn(w)));
            return Err(e);
        }
        for ((route, dest), connected) in self.routes.iter().zip(connected) {
            let Connected {
                shown,
                identity,
                sink,
                warnings,
                dead_letter,
            } = connected;
            if self.looping {
                tracing::info!(
                    route = %route,
                    to = %shown,
                    channel = dest.channel.as_deref().unwrap_or(route),
                    "route ready"
                );
            }
            for w in warnings {
                warn(&w);
            }
            if matches!(sink, Sink::Table(_))
                && self.config.outbox.storage == crate::model::Storage::Retain
            {
                warn(&format!(
                    "route {route}: postgres-table under retain storage is at-least-once (each mark commits on its own); consume storage makes it exactly once"
                ));
            }
            // by the destination itself, not as shown: two webhooks that differ only in
            // their (masked) query are two lanes, and named apart (`… #2`), so their down
            // state, logs and metrics are not one destination's
            let lane = match identities.iter().position(|d| *d == identity) {
                Some(i) => i,
                None => {
                    identities.push(identity);
                    let alike = (lanes.iter())
                        .filter(|(name, ..)| name.split(" #").next() == Some(shown.as_str()))
                        .count();
                    let name = match alike {
                        0 => shown,
                        n => format!("{shown} #{}", n + 1),
                    };
                    lanes.push((name, Vec::new(), HashMap::new()));
                    lanes.len() - 1
                }
            };
            if let Some(p) = dead_letter {
                lanes[lane].2.insert(route.clone(), p);
            }
            for tenant in self.tenants {
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

    /// One route's destination (and dead-letter destination), connected and checked.
    async fn connect(
        &self,
        route: &str,
        ((spec, planned_warnings), dead_letter): PlannedRoute,
        stdout_lock: &destination::lines::StdoutShared,
        build_ctx: destination::BuildContext,
    ) -> Result<Connected, Error> {
        let (shown, identity) = (spec.shown(), spec.identity());
        let (sink, mut warnings) = destination::connect(route, spec, stdout_lock, build_ctx)
            .await
            .map_err(|e| given_by(e, route, self.to_flag))?;
        warnings.splice(0..0, planned_warnings);
        let dead_letter = match dead_letter {
            None => None,
            Some((spec, more)) => {
                warnings.extend(more);
                let (letters, more) = destination::connect(route, spec, stdout_lock, build_ctx)
                    .await
                    .map_err(|e| destination::dead_letter_key(e, route))?;
                warnings.extend(more.iter().map(|w| destination::dead_letter_warning(w)));
                match letters {
                    Sink::Publisher(p) => Some(p),
                    Sink::Table(_) => unreachable!("refused when planned"),
                }
            }
        };
        Ok(Connected {
            shown,
            identity,
            sink,
            warnings,
            dead_letter,
        })
    }
}

/// A route's destination as [`LaneBuild::connect`] left it.
struct Connected {
    shown: String,
    identity: String,
    sink: Sink,
    warnings: Vec<String>,
    dead_letter: Option<Arc<dyn destination::Publisher>>,
}

/// A destination's error named by `--to` when the flag gave every route's URL.
fn given_by(e: destination::DestinationError, route: &str, to_flag: bool) -> Error {
    match to_flag {
        true => e.given_by(route, "--to").into(),
        false => e.into(),
    }
}
