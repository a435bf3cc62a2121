//! The looping relay's HTTP endpoint, on hyper: `/metrics` (Prometheus text format), `/healthz`
//! (liveness: 503 when a route has failed its passes for longer than the limit; a database that
//! is away or a destination that is down does not make the relay unhealthy, it says so) and
//! `/readyz` (readiness: 503 while the database is away or a destination is down, with why).
//!
//! It must not become the relay's trouble: a connection has a bounded time to send its request
//! headers and a bounded life; at most `max_connections` are open at once (at the cap, the oldest
//! connection that has not sent its request makes room for a new one, so idle connections cannot
//! starve a probe); an accept that fails (out of descriptors) pauses the loop instead of spinning
//! it. `/healthz` reads only the relay's own state, so it never waits behind the database
//! connection a `/metrics` scrape holds.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use super::metrics::Metrics;
use crate::Error;
use crate::store::ops::RouteSummary;

/// How long a client may take to send its request headers, by default.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest a connection lives, by default.
pub const CONNECTION_LIFETIME: Duration = Duration::from_secs(30);
/// Connections served at once, by default.
pub const MAX_CONNECTIONS: usize = 64;
/// How long the accept loop pauses after a failed accept (out of descriptors, say).
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

/// The endpoint's bounds.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub header_read_timeout: Duration,
    pub connection_lifetime: Duration,
    pub max_connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            header_read_timeout: HEADER_READ_TIMEOUT,
            connection_lifetime: CONNECTION_LIFETIME,
            max_connections: MAX_CONNECTIONS,
        }
    }
}

/// Reads the gauges `/metrics` shows from the database (pending rows, their age, blocked keys).
pub trait Gauges: Send + Sync {
    fn read(&self) -> BoxFuture<'_, Result<Vec<RouteSummary>, Error>>;
    /// Lets go of the connection the gauges read on, if idle: the next read connects afresh
    /// (the database was away, and the old connection may be gone half-open).
    fn forget(&self) {}
}

/// What the endpoint serves.
pub struct Endpoint {
    pub metrics: Arc<Metrics>,
    pub gauges: Arc<dyn Gauges>,
    /// `/healthz` fails once a route's passes have failed for longer than this.
    pub health_max_failing: Duration,
    pub limits: Limits,
}

/// Binds now (so a taken port fails the start), then serves in the background.
pub async fn spawn(addr: SocketAddr, endpoint: Endpoint) -> Result<SocketAddr, Error> {
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| Error::io(format!("--metrics-addr {addr}"), e))?;
    let bound = listener
        .local_addr()
        .map_err(|e| Error::io(format!("--metrics-addr {addr}"), e))?;
    tokio::spawn(serve(listener, Arc::new(endpoint)));
    Ok(bound)
}

/// The connections being served, oldest first: each with whether its request has arrived, and
/// how to end it.
#[derive(Default)]
struct Served {
    next: u64,
    list: std::collections::VecDeque<(u64, Arc<AtomicBool>, tokio::task::AbortHandle)>,
}

impl Served {
    /// Ends the oldest connection that has not sent its request yet; `false` when every
    /// connection is being answered.
    fn evict_idle(&mut self) -> bool {
        match self
            .list
            .iter()
            .position(|(_, asked, _)| !asked.load(Ordering::Relaxed))
        {
            Some(i) => {
                let (_, _, task) = self.list.remove(i).expect("found");
                task.abort();
                true
            }
            None => false,
        }
    }
}

async fn serve(listener: TcpListener, endpoint: Arc<Endpoint>) {
    let limits = endpoint.limits;
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let served: Arc<Mutex<Served>> = Arc::default();
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // out of descriptors, say: pause, do not spin
                tracing::debug!("the metrics endpoint cannot accept: {e}; pausing");
                tokio::time::sleep(ACCEPT_PAUSE).await;
                continue;
            }
        };
        // At the cap, a connection that has not sent its request yet makes room for this one
        // (a flood of idle connections cannot keep /healthz waiting); when every slot is
        // answering a request, the new connection is closed.
        let slot = match slots.clone().try_acquire_owned() {
            Ok(slot) => slot,
            Err(_) => {
                let evicted = served.lock().expect("not poisoned").evict_idle();
                if !evicted {
                    drop(stream);
                    continue;
                }
                match slots.clone().acquire_owned().await {
                    Ok(slot) => slot,
                    Err(_) => return,
                }
            }
        };
        let asked = Arc::new(AtomicBool::new(false));
        let endpoint = endpoint.clone();
        let flag = asked.clone();
        let id = {
            let mut s = served.lock().expect("not poisoned");
            s.next += 1;
            s.next
        };
        let list = served.clone();
        let task = tokio::spawn(async move {
            let _slot = slot;
            let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                flag.store(true, Ordering::Relaxed);
                let endpoint = endpoint.clone();
                async move { Ok::<_, Infallible>(answer(&endpoint, &req).await) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_read_timeout)
                .keep_alive(false)
                .serve_connection(TokioIo::new(stream), service);
            let _ = tokio::time::timeout(limits.connection_lifetime, connection).await;
            list.lock()
                .expect("not poisoned")
                .list
                .retain(|(i, ..)| *i != id);
        });
        served
            .lock()
            .expect("not poisoned")
            .list
            .push_back((id, asked, task.abort_handle()));
    }
}

async fn answer(endpoint: &Endpoint, req: &Request<Incoming>) -> Response<Full<Bytes>> {
    // read-only: a POST (a probe misconfigured, a scanner) is told so, not served
    if !matches!(*req.method(), hyper::Method::GET | hyper::Method::HEAD) {
        return Response::builder()
            .status(StatusCode::METHOD_NOT_ALLOWED)
            .header("allow", "GET, HEAD")
            .header("content-type", "text/plain; charset=utf-8")
            .header("connection", "close")
            .body(Full::new(Bytes::from(format!(
                "method {} not allowed: /metrics, /healthz and /readyz answer GET and HEAD\n",
                req.method()
            ))))
            .expect("a valid response");
    }
    let (status, body) = match req.uri().path() {
        "/metrics" => {
            // with the database away its gauges would wait for it (up to 5 s: longer than
            // `top --relay` waits): the relay's own figures go at once, the gauges next time
            let gauges = match endpoint.metrics.database_away() {
                Some(_) => {
                    endpoint.gauges.forget();
                    Vec::new()
                }
                None => tokio::time::timeout(Duration::from_secs(5), endpoint.gauges.read())
                    .await
                    .ok()
                    .and_then(Result::ok)
                    .unwrap_or_default(),
            };
            (
                StatusCode::OK,
                endpoint.metrics.render(&gauges, chrono::Utc::now()),
            )
        }
        "/healthz" => health(endpoint),
        "/readyz" => readiness(&endpoint.metrics),
        _ => (
            StatusCode::NOT_FOUND,
            "not found: try /metrics, /healthz or /readyz\n".to_owned(),
        ),
    };
    Response::builder()
        .status(status)
        .header("content-type", "text/plain; version=0.0.4; charset=utf-8")
        .header("connection", "close")
        .body(Full::new(Bytes::from(body)))
        .expect("a valid response")
}

/// Liveness, from the relay's own state only.
fn health(endpoint: &Endpoint) -> (StatusCode, String) {
    let failing = endpoint
        .metrics
        .failing_longer_than(endpoint.health_max_failing);
    if !failing.is_empty() {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "unhealthy: passes failing for over {}: {}\n",
                crate::duration::Dur(endpoint.health_max_failing),
                failing.join(", ")
            ),
        );
    }
    match endpoint.metrics.database_away() {
        // no reason to restart the relay: it would not bring the database back
        Some(why) => (
            StatusCode::OK,
            format!(
                "ok: the database is away ({why}); every route waits and resumes when it answers\n"
            ),
        ),
        None => (StatusCode::OK, "ok\n".to_owned()),
    }
}

fn readiness(metrics: &Metrics) -> (StatusCode, String) {
    let mut lines: Vec<String> = metrics
        .database_away()
        .map(|why| format!("the database is away: {why}"))
        .into_iter()
        .collect();
    lines.extend(
        metrics
            .down_destinations()
            .iter()
            .map(|(d, why)| format!("destination {d} is down: {why}")),
    );
    lines.extend(
        (metrics.unprobed_destinations().iter())
            .map(|d| format!("destination {d} not probed yet (starting)")),
    );
    if lines.is_empty() {
        (StatusCode::OK, "ready\n".to_owned())
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("not ready: {}\n", lines.join("; ")),
        )
    }
}

/// The gauges read from the relay's database through a connection of their own, reopened
/// after an error; one scrape at a time.
pub struct StoreGauges {
    pub config: crate::config::Config,
    pub connect_timeout: Duration,
    /// The routes (and tenants) the relay serves.
    pub targets: Vec<crate::store::PassTarget>,
    outboxes: tokio::sync::Mutex<Option<crate::store::any::Outboxes>>,
}

/// How long a scrape's read of the gauges may take, once connected (the scrape itself gives
/// up after 5 s).
const GAUGES_WITHIN: Duration = Duration::from_secs(4);

/// Blocked keys are counted up to this many per route at each scrape.
const BLOCKED_CAP: u32 = 1000;

impl StoreGauges {
    pub fn new(
        config: crate::config::Config,
        connect_timeout: Duration,
        targets: Vec<crate::store::PassTarget>,
    ) -> Self {
        Self {
            config,
            connect_timeout,
            targets,
            outboxes: tokio::sync::Mutex::default(),
        }
    }

    async fn read_now(&self) -> Result<Vec<RouteSummary>, Error> {
        use crate::store::ops::OpsStore;
        let mut guard = self.outboxes.lock().await;
        if guard.is_none() {
            let backend = crate::store::backend::Backend::of(&self.config, self.connect_timeout);
            *guard = Some(backend.outboxes(None).await?);
        }
        let outboxes = guard.as_mut().expect("connected");
        let config = &self.config;
        let result = async {
            let mut out = Vec::new();
            for i in 0..outboxes.len() {
                let tenant = outboxes.target(i).tenant();
                let mut ops = outboxes.open(i).await?;
                for target in self
                    .targets
                    .iter()
                    .filter(|p| p.tenant == tenant || !config.outbox.tenant_aware)
                {
                    let now = chrono::Utc::now();
                    let mut summary = ops.summary(&target.route, target.tenant, now).await?;
                    if config.relay.key_order == crate::model::KeyOrder::Strict {
                        let blocked = ops
                            .blocked(Some(&target.route), target.tenant, now, BLOCKED_CAP)
                            .await?;
                        summary.blocked_keys = Some(blocked.len() as i64);
                    }
                    out.push(summary);
                }
            }
            Ok(out)
        };
        // a read cut here drops its connection (it may be gone half-open, which nothing else
        // would notice): the next scrape opens a new one
        let result = match tokio::time::timeout(GAUGES_WITHIN, result).await {
            Ok(read) => read,
            Err(_) => Err(Error::io(
                "reading the gauges",
                std::io::Error::new(std::io::ErrorKind::TimedOut, "no answer within 4s"),
            )),
        };
        if result.is_err() {
            *guard = None;
        }
        result
    }
}

impl Gauges for StoreGauges {
    fn read(&self) -> BoxFuture<'_, Result<Vec<RouteSummary>, Error>> {
        Box::pin(self.read_now())
    }

    fn forget(&self) {
        if let Ok(mut outboxes) = self.outboxes.try_lock() {
            *outboxes = None;
        }
    }
}
