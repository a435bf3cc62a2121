//! Where the relay publishes: one [`Publisher`] per route, built from a URL. A publish
//! returns once the destination has acknowledged the message; `flush` makes what was
//! published durable before the relay marks it. `postgres-table:` is not a publisher: its
//! insert runs inside the pass, through the store.

pub mod amqp;
mod error;
pub mod http;
pub mod kafka;
pub mod lines;
pub mod naming;
pub mod nats;
pub mod redis;
pub mod webhook_sign;

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use thiserror::Error;

use crate::config::Route;
use crate::dburl::SecretText;
use crate::model::Message;
use crate::target::QualifiedName;
use crate::telemetry::SendTo;

pub use crate::desturl::DestinationUrl;
pub use error::{Cause, DestinationError};

/// Why a publish did not go through: what the relay does next depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// The destination answered but did not take the message this time (a 500, a 429):
    /// one attempt, retried with backoff.
    Transient,
    /// No answer in time while the destination seemed connected (a stalled broker): one
    /// attempt as for [`Refusal::Transient`]; no further publish of the chunk starts, and the
    /// relay probes the destination, which is marked down when the probe gets no answer.
    TimedOut,
    /// The destination refused the message for good (oversize, unroutable, a 4xx): park it
    /// as `failed` at once.
    Permanent,
    /// The destination is away (cannot connect, connection lost, out of space): the message
    /// was not judged, so no attempt counts; the row goes back to pending and the
    /// destination is marked down until a probe succeeds.
    Away,
}

#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[error("{message}")]
pub struct PublishError {
    pub message: String,
    pub kind: Refusal,
}

impl PublishError {
    pub fn transient(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            kind: Refusal::Transient,
        }
    }

    pub fn permanent(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            kind: Refusal::Permanent,
        }
    }

    pub fn timed_out(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            kind: Refusal::TimedOut,
        }
    }

    pub fn away(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            kind: Refusal::Away,
        }
    }

    pub fn is_away(&self) -> bool {
        self.kind == Refusal::Away
    }
}

impl Refusal {
    /// The `error.type` of a send span that met this refusal.
    pub fn error_type(self) -> &'static str {
        match self {
            Refusal::Transient => "transient",
            Refusal::TimedOut => "timeout",
            Refusal::Permanent => "refused",
            Refusal::Away => "unavailable",
        }
    }
}

pub trait Publisher: Send + Sync {
    /// Publishes one message; many may be in flight at once (never two of one key).
    fn publish(&self, message: Arc<Message>) -> BoxFuture<'static, Result<(), PublishError>>;
    /// Makes every publish so far durable (a file's fsync); brokers acknowledge per publish.
    fn flush(&self) -> BoxFuture<'static, Result<(), PublishError>> {
        Box::pin(async { Ok(()) })
    }
    /// Whether publishes must go one at a time (e.g. a line-oriented file keeps claim order).
    fn serial(&self) -> bool {
        false
    }
    /// Whether the channel a message goes to depends on its row's tenant (a tenant-aware Redis
    /// key or RabbitMQ queue). Only then may rows of one message key but different tenants be
    /// in flight together: elsewhere a consumer sees the key alone, so they go one at a time.
    fn channel_per_tenant(&self) -> bool {
        false
    }
    /// How long one publish (and its acknowledgement) may take when `relay.publish_timeout`
    /// is not set: every publish has a bounded wait.
    fn default_timeout(&self) -> Duration {
        Duration::from_secs(10)
    }
    /// For `doctor`: contacts the destination without publishing, `Ok(Some(what was seen))`,
    /// or `Ok(None)` where there is nothing to ask without publishing.
    fn probe(&self) -> BoxFuture<'static, Result<Option<String>, DestinationError>> {
        Box::pin(async { Ok(None) })
    }
    /// For a destination found away: whether it is back, cheaply and publishing nothing
    /// (connect and ping, a metadata request, free space). A publisher that buffers while
    /// disconnected starts afresh here, so nothing buffered goes out behind a released row.
    fn alive(&self) -> BoxFuture<'static, Result<(), DestinationError>> {
        Box::pin(async { Ok(()) })
    }
    /// How traces name the destination: `messaging.system` and `messaging.destination.name`
    /// (every destination kind names itself; the default is for test doubles).
    fn messaging(&self) -> SendTo<'_> {
        SendTo {
            system: "outboxctl",
            name: "test".into(),
        }
    }
    /// Whether the publisher records its own send spans (a batching webhook: one per POST),
    /// so that the relay and replay record none per chunk for it.
    fn traces_sends(&self) -> bool {
        false
    }
}

/// A route's destination.
#[derive(Clone)]
pub enum Sink {
    Publisher(Arc<dyn Publisher>),
    /// `postgres-table:SCHEMA.TABLE`: inserted inside the pass's transaction.
    Table(QualifiedName),
}

/// How traces name a `postgres-table` destination.
pub fn table_messaging(table: &QualifiedName) -> SendTo<'static> {
    SendTo {
        system: "postgresql",
        name: table.plain().into(),
    }
}

/// What the relay settings mean for destinations.
#[derive(Debug, Clone, Copy)]
pub struct BuildContext {
    /// A redelivery after a crash comes this long after the first publish, at most.
    pub reclaim_stale_after: Option<std::time::Duration>,
    /// How long a broker acknowledgement may take.
    pub ack_timeout: std::time::Duration,
}

impl BuildContext {
    /// What the relay's settings mean for its destinations.
    pub fn from_config(config: &crate::config::Config) -> Self {
        Self {
            reclaim_stale_after: config.relay.reclaim_stale_after,
            ack_timeout: config
                .relay
                .publish_timeout
                .unwrap_or(std::time::Duration::from_secs(10)),
        }
    }
}

/// Calls `$then!` with every option a route's destination may take, each its field's name
/// (the key the file gives it by): the one list [`only`] checks and [`keep_options_of_its_kind`]
/// clears.
macro_rules! route_options {
    ($then:ident) => {
        $then!(
            channel,
            mode,
            maxlen,
            namespace,
            tenant_aware,
            exchange,
            declare,
            dead_letter_exchange,
            create_stream,
            create_topic,
            partitions,
            timeout,
            secret_env,
            signature,
            batch
        )
    };
}

/// A destination URL's kind, as errors name it, and the options it takes.
fn kind_of(url: &DestinationUrl) -> (&'static str, &'static [&'static str]) {
    match url {
        DestinationUrl::Stdout => ("stdout", &[]),
        DestinationUrl::File(_) => ("file", &[]),
        DestinationUrl::PostgresTable(_) => ("postgres-table", &[]),
        DestinationUrl::Redis(_) => ("redis", redis::OPTIONS),
        DestinationUrl::Amqp(_) => ("amqp", amqp::OPTIONS),
        DestinationUrl::Nats(_) => ("nats", nats::OPTIONS),
        DestinationUrl::Http(_) => ("http", http::OPTIONS),
        DestinationUrl::Kafka(_) => ("kafka", kafka::OPTIONS),
    }
}

/// Options that only some destinations take: refuse the others, naming the key.
fn only(route: &str, url: &DestinationUrl, dest: &Route) -> Result<(), DestinationError> {
    let (kind, allowed) = kind_of(url);
    macro_rules! given {
        ($($option:ident),*) => {
            [$((stringify!($option), dest.$option.is_some())),*]
        };
    }
    for (key, set) in route_options!(given) {
        if set && !allowed.contains(&key) {
            return Err(DestinationError::NotApplicable {
                route: route.to_owned(),
                key,
                kind,
                takes: if allowed.is_empty() {
                    "no options".to_owned()
                } else {
                    allowed.join(", ")
                },
            });
        }
    }
    Ok(())
}

/// A route's destination with every option checked, before anything is contacted. Its URL is
/// masked in `Debug`.
#[derive(Debug, Clone)]
pub enum RouteSpec {
    Stdout,
    File(std::path::PathBuf),
    Table(QualifiedName),
    Redis {
        url: SecretText,
        channel: String,
        mode: redis::Mode,
        maxlen: Option<u64>,
        tenant_aware: bool,
    },
    Amqp {
        url: SecretText,
        opts: amqp::AmqpOptions,
    },
    Nats {
        url: SecretText,
        channel: String,
        create_stream: bool,
    },
    Http {
        url: SecretText,
        timeout: std::time::Duration,
        signer: Option<webhook_sign::Signer>,
        batch: Option<usize>,
    },
    Kafka {
        url: SecretText,
        topic: String,
        /// With `create_topic`: the partition count to create it with.
        create: Option<u32>,
    },
}

impl RouteSpec {
    /// The destination itself, secrets and all (never shown): routes whose specs name the
    /// same one share one lane and its down state.
    pub fn identity(&self) -> String {
        match self {
            Self::Redis { url, .. }
            | Self::Amqp { url, .. }
            | Self::Nats { url, .. }
            | Self::Http { url, .. }
            | Self::Kafka { url, .. } => url.expose().to_owned(),
            _ => self.shown(),
        }
    }

    /// The destination as logs and metrics name it (password, a NATS token and a webhook's
    /// query masked).
    pub fn shown(&self) -> String {
        match self {
            Self::Stdout => "stdout".into(),
            Self::File(path) => format!("file:{}", path.display()),
            Self::Table(table) => format!("postgres-table:{}", table.plain()),
            Self::Redis { url, .. }
            | Self::Amqp { url, .. }
            | Self::Nats { url, .. }
            | Self::Http { url, .. }
            | Self::Kafka { url, .. } => crate::dburl::mask(url.expose()),
        }
    }
}

/// Plans a route's destination (its URL resolved by the configuration): every option checked
/// against the URL's kind. No I/O, so a wrong option on any route stops the relay before the
/// first broker is contacted. Returns the spec and warnings to show.
pub fn plan(route: &str, dest: &Route) -> Result<(RouteSpec, Vec<String>), DestinationError> {
    let err = |e: DestinationError| e.for_key(format!("relay.routes.{route}.to"));
    let url = dest.to.get()?.clone();
    let channel = dest.channel.clone().unwrap_or_else(|| route.to_owned());
    let mut warnings = Vec::new();
    only(route, &url, dest)?;
    let spec = match url {
        DestinationUrl::Stdout => RouteSpec::Stdout,
        DestinationUrl::File(path) => RouteSpec::File(path),
        DestinationUrl::PostgresTable(table) => RouteSpec::Table(table),
        DestinationUrl::Redis(url) => {
            let (spec, warning) = redis::plan(url, channel, dest).map_err(err)?;
            warnings.extend(warning.map(|w| format!("route {route}: {w}")));
            spec
        }
        DestinationUrl::Amqp(url) => amqp::plan(url, channel, dest).map_err(err)?,
        DestinationUrl::Nats(url) => nats::plan(url, channel, dest).map_err(err)?,
        DestinationUrl::Http(url) => http::plan(route, url, dest)?,
        DestinationUrl::Kafka(url) => kafka::plan(url, channel, dest).map_err(err)?,
    };
    Ok((spec, warnings))
}

/// `dest` keeping only the options its destination's kind takes: `relay --to URL` points a
/// configured route elsewhere, and the options of the destination it had (a subject, an
/// exchange, a timeout) do not follow it to one that does not take them.
pub fn keep_options_of_its_kind(dest: &mut Route) {
    let Ok(url) = dest.to.get() else {
        return;
    };
    let (_, takes) = kind_of(url);
    macro_rules! keep {
        ($($option:ident),*) => {$(
            if !takes.contains(&stringify!($option)) {
                dest.$option = None;
            }
        )*};
    }
    route_options!(keep);
}

/// What a destination's warning at start says of the routes that publish there while it does
/// not answer.
pub const ROUTES_WAIT: &str = "its routes wait until it answers";

/// A warning at start of a route's dead-letter destination: its route goes on, and the rows it
/// would park are held instead (it said the routes wait, and they did not).
pub fn dead_letter_warning(warning: &str) -> String {
    warning.replace(
        ROUTES_WAIT,
        "rows to park there are held (pending, due again after relay.retry_max_backoff) until it answers; the route goes on",
    )
}

/// The channel (subject, queue, stream, topic) a route's dead letters go to.
pub fn dead_letter_channel(route: &str) -> String {
    format!("{route}.dead_letter")
}

/// Every route of `config` (and its dead letters) planned as the relay plans them at start,
/// before any I/O: the first that the relay would refuse, as a configuration error (`init`
/// checks what it writes with this).
pub fn check_routes(config: &crate::config::Config) -> Result<(), crate::config::ConfigError> {
    for (route, dest) in &config.relay.routes {
        (plan(route, dest).and_then(|_| plan_dead_letter(route, dest)))
            .map_err(|e| crate::config::ConfigError::Invalid(e.to_string()))?;
    }
    Ok(())
}

/// Resolves a route's `dead_letter_to:` like a destination of its own (channel
/// `{route}.dead_letter`, the kind's defaults), before any I/O; `None` without one.
pub fn plan_dead_letter(
    route: &str,
    dest: &Route,
) -> Result<Option<(RouteSpec, Vec<String>)>, DestinationError> {
    let Some(letters) = dead_letter_route(route, dest)? else {
        return Ok(None);
    };
    (plan(route, &letters).map(Some)).map_err(|e| dead_letter_key(e, route))
}

/// An error of a route's dead-letter destination, named by its `dead_letter_to:` key (it was
/// named `to:`, which was fine).
pub fn dead_letter_key(e: DestinationError, route: &str) -> DestinationError {
    e.given_by(route, &format!("relay.routes.{route}.dead_letter_to"))
}

/// The route its dead letters go to, as [`plan`] takes one: `dead_letter_to` with the kind's
/// channel (`{route}.dead_letter` on a broker); `None` without one.
pub fn dead_letter_route(route: &str, dest: &Route) -> Result<Option<Route>, DestinationError> {
    let Some(to) = &dest.dead_letter_to else {
        return Ok(None);
    };
    let to = to.get()?;
    let channel = match to {
        DestinationUrl::PostgresTable(_) => {
            return Err(DestinationError::invalid(
                "postgres-table cannot take dead letters (it is written inside the pass); use file:, a broker or http(s)://",
            )
            .for_key(format!("relay.routes.{route}.dead_letter_to")));
        }
        DestinationUrl::Redis(_)
        | DestinationUrl::Amqp(_)
        | DestinationUrl::Nats(_)
        | DestinationUrl::Kafka(_) => Some(dead_letter_channel(route)),
        DestinationUrl::Stdout | DestinationUrl::File(_) | DestinationUrl::Http(_) => None,
    };
    Ok(Some(Route {
        channel,
        ..Route::new(to.clone())
    }))
}

/// Builds the sink for a route (plan, then connect).
pub async fn build(
    route: &str,
    dest: &Route,
    stdout_lock: &lines::StdoutShared,
    ctx: BuildContext,
) -> Result<(Sink, Vec<String>), DestinationError> {
    let (spec, mut warnings) = plan(route, dest)?;
    let (sink, more) = connect(route, spec, stdout_lock, ctx).await?;
    warnings.extend(more);
    Ok((sink, warnings))
}

/// Connects a planned destination (checking queues, streams and topics).
pub async fn connect(
    route: &str,
    spec: RouteSpec,
    stdout_lock: &lines::StdoutShared,
    ctx: BuildContext,
) -> Result<(Sink, Vec<String>), DestinationError> {
    let err = |e: DestinationError| e.for_key(format!("relay.routes.{route}.to"));
    let mut warnings = Vec::new();
    let sink = match spec {
        RouteSpec::Stdout => Sink::Publisher(Arc::new(lines::Lines::stdout(stdout_lock.clone()))),
        RouteSpec::File(path) => {
            let lines = lines::Lines::file(&path).map_err(|e| {
                err(
                    DestinationError::local(format!("cannot open {}: {e}", path.display()))
                        .because(e),
                )
            })?;
            if let Some(w) = lines.check_at_start() {
                warnings.push(format!(
                    "route {route}: {w}: nothing goes there until a reader opens it"
                ));
            }
            Sink::Publisher(Arc::new(lines))
        }
        RouteSpec::Table(table) => Sink::Table(table),
        RouteSpec::Redis {
            url,
            channel,
            mode,
            maxlen,
            tenant_aware,
        } => {
            let publisher = redis::Redis::new(url.expose(), channel, mode, maxlen, tenant_aware)
                .map_err(err)?;
            if let Some(w) = publisher.check_at_start().await.map_err(err)? {
                warnings.push(format!("route {route}: {w}; {ROUTES_WAIT}"));
            }
            Sink::Publisher(Arc::new(publisher))
        }
        RouteSpec::Amqp { url, opts } => {
            let (publisher, warning) =
                amqp::Amqp::connect(url.expose(), opts).await.map_err(err)?;
            warnings.extend(warning);
            Sink::Publisher(Arc::new(publisher))
        }
        RouteSpec::Nats {
            url,
            channel,
            create_stream,
        } => {
            let window = ctx
                .reclaim_stale_after
                .unwrap_or(std::time::Duration::from_secs(120))
                .max(std::time::Duration::from_secs(120));
            let (publisher, check) = nats::Nats::connect(
                url.expose(),
                channel.clone(),
                create_stream,
                window,
                ctx.ack_timeout,
            )
            .await
            .map_err(err)?;
            match check {
                nats::StreamCheck::Found {
                    stream,
                    duplicate_window,
                } => {
                    if let Some(reclaim) = ctx.reclaim_stale_after {
                        if duplicate_window < reclaim {
                            warnings.push(format!(
                                "route {route}: stream {stream} drops duplicates within {}, shorter than reclaim_stale_after ({}): a redelivery after a crash would not be deduplicated",
                                crate::duration::Dur(duplicate_window),
                                crate::duration::Dur(reclaim)
                            ));
                        }
                    }
                }
                nats::StreamCheck::Created { stream } => warnings.push(format!(
                    "route {route}: created stream {stream} for subject {channel}"
                )),
                nats::StreamCheck::Unreachable(e) => warnings.push(format!(
                    "route {route}: NATS is unreachable ({e}); {ROUTES_WAIT}"
                )),
            }
            Sink::Publisher(Arc::new(publisher))
        }
        RouteSpec::Http {
            url,
            timeout,
            signer,
            batch,
        } => Sink::Publisher(Arc::new(
            http::Http::new(url.expose(), timeout, signer, batch).map_err(err)?,
        )),
        RouteSpec::Kafka { url, topic, create } => {
            let (publisher, check) =
                kafka::Kafka::connect(url.expose(), topic.clone(), create, ctx.ack_timeout)
                    .await
                    .map_err(err)?;
            match check {
                kafka::TopicCheck::Found { .. } => {}
                kafka::TopicCheck::Created { partitions } => warnings.push(format!(
                    "route {route}: created topic {topic} with {partitions} partition(s)"
                )),
                kafka::TopicCheck::Unreachable(e) => warnings.push(format!(
                    "route {route}: Kafka is unreachable ({e}); {ROUTES_WAIT}"
                )),
            }
            Sink::Publisher(Arc::new(publisher))
        }
    };
    Ok((sink, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dead_letter_destination_is_planned_like_a_route_of_its_own() {
        let route = |dl: &str| Route {
            dead_letter_to: Some(DestinationUrl::parse(dl).unwrap().into()),
            ..Route::new(DestinationUrl::Stdout)
        };
        let (spec, _) = plan_dead_letter("orders", &route("nats://127.0.0.1:4222"))
            .unwrap()
            .unwrap();
        assert!(
            matches!(&spec, RouteSpec::Nats { channel, .. } if channel == "orders.dead_letter"),
            "{}",
            spec.shown()
        );
        let e = plan_dead_letter("orders", &route("postgres-table:app.dead")).unwrap_err();
        assert!(
            e.to_string()
                .contains("relay.routes.orders.dead_letter_to: postgres-table"),
            "{e}"
        );
        assert!(matches!(e, DestinationError::Route { .. }), "{e:?}");
        assert!(
            plan_dead_letter("orders", &Route::new(DestinationUrl::Stdout))
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn an_option_of_another_kind_is_refused_naming_its_key() {
        let route = Route {
            exchange: Some("x".into()),
            ..Route::new(DestinationUrl::parse("redis://127.0.0.1:6379").unwrap())
        };
        let e = plan("orders", &route).unwrap_err();
        assert!(
            matches!(
                e,
                DestinationError::NotApplicable {
                    key: "exchange",
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(
            e.to_string()
                .starts_with("relay.routes.orders.exchange does not apply to a redis destination"),
            "{e}"
        );
    }

    /// A queue only checked keeps the arguments it was declared with: a dead-letter exchange
    /// without `declare: true` would do nothing, and is refused.
    #[test]
    fn a_dead_letter_exchange_needs_declare() {
        let route = |declare: Option<bool>| Route {
            dead_letter_exchange: Some("dlx".into()),
            declare,
            ..Route::new(DestinationUrl::parse("amqp://guest:guest@127.0.0.1:5672/%2f").unwrap())
        };
        for declare in [None, Some(false)] {
            let e = plan("orders", &route(declare)).unwrap_err().to_string();
            assert!(
                e.starts_with(
                    "relay.routes.orders.to: dead_letter_exchange applies with declare: true only"
                ),
                "{e}"
            );
        }
        assert!(plan("orders", &route(Some(true))).is_ok());
    }
}
