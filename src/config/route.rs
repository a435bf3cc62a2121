//! A route as written and as resolved: `to:` and `dead_letter_to:` get their `${NAME}` from the
//! environment and are parsed into [`DestinationUrl`]s when the configuration loads, so a URL
//! outboxctl cannot publish to fails every command that reads the file. A variable this process
//! does not have is no error until the URL is used: secrets are often set only where the relay
//! runs, and `inspect` or `schema print` need no broker password.

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use thiserror::Error;

use super::{ConfigError, Env, EnvError, expand_env, invalid};
use crate::desturl::DestinationUrl;
use crate::duration::Dur;

/// One route's destination and options, as written ([`RouteFile`]: `to:` as text) or as
/// resolved ([`Route`]: `to:` a [`RouteUrl`]). Which options apply depends on the URL's
/// kind; the relay checks them when it plans the destination.
#[derive(Debug, Clone, Default, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RouteOf<To> {
    pub to: To,
    pub channel: Option<String>,
    pub mode: Option<String>,
    pub maxlen: Option<u64>,
    pub namespace: Option<String>,
    pub tenant_aware: Option<bool>,
    pub exchange: Option<String>,
    pub declare: Option<bool>,
    pub dead_letter_exchange: Option<String>,
    pub create_stream: Option<bool>,
    pub create_topic: Option<bool>,
    pub partitions: Option<u32>,
    pub batch: Option<u32>,
    pub timeout: Option<Dur>,
    pub secret_env: Option<String>,
    /// How a webhook is signed: `standard`, `outboxctl` or `both` (checked when planned).
    pub signature: Option<String>,
    /// Where a row goes before it is parked (any destination URL but postgres-table).
    pub dead_letter_to: Option<To>,
}

/// A route as the file gives it.
pub type RouteFile = RouteOf<crate::dburl::SecretText>;

/// A route as the configuration resolved it: `${NAME}` expanded, its URLs parsed.
pub type Route = RouteOf<RouteUrl>;

impl<To> RouteOf<To> {
    /// The same options with other URLs.
    pub fn with<U>(self, to: U, dead_letter_to: Option<U>) -> RouteOf<U> {
        RouteOf {
            to,
            channel: self.channel,
            mode: self.mode,
            maxlen: self.maxlen,
            namespace: self.namespace,
            tenant_aware: self.tenant_aware,
            exchange: self.exchange,
            declare: self.declare,
            dead_letter_exchange: self.dead_letter_exchange,
            create_stream: self.create_stream,
            create_topic: self.create_topic,
            partitions: self.partitions,
            batch: self.batch,
            timeout: self.timeout,
            secret_env: self.secret_env,
            signature: self.signature,
            dead_letter_to,
        }
    }
}

impl Route {
    /// A route to `to` with no options.
    pub fn new(to: DestinationUrl) -> Self {
        RouteFile::default().with(to.into(), None)
    }
}

/// A route's URL whose `${NAME}` this process does not have, under its key.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{key}: {source}")]
pub struct UnsetVariable {
    pub key: String,
    #[source]
    pub source: EnvError,
}

/// A route's URL as resolved: parsed, or waiting for an environment variable that is not set
/// here (an error only for whoever uses the URL); and as written, which reports show.
#[derive(Clone, PartialEq)]
pub struct RouteUrl {
    /// As written, `${NAME}` not expanded (so reports show no secret a variable holds).
    written: String,
    resolved: Result<DestinationUrl, UnsetVariable>,
}

impl RouteUrl {
    /// The URL, or why it cannot be used here.
    pub fn get(&self) -> Result<&DestinationUrl, UnsetVariable> {
        self.resolved.as_ref().map_err(Clone::clone)
    }

    /// The URL, when this process could resolve it.
    pub fn url(&self) -> Option<&DestinationUrl> {
        self.resolved.as_ref().ok()
    }
}

/// A URL given as such (a flag, a default): written as it shows.
impl From<DestinationUrl> for RouteUrl {
    fn from(url: DestinationUrl) -> Self {
        Self {
            written: url.to_string(),
            resolved: Ok(url),
        }
    }
}

/// The URL as written, password masked.
impl fmt::Display for RouteUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::dburl::mask(&self.written))
    }
}

impl fmt::Debug for RouteUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RouteUrl({self})")
    }
}

/// A destination URL given under `key` (`relay.routes.orders.to`, `--to`): `${NAME}` expanded
/// from `env`, then parsed.
pub fn destination_url(key: &str, text: &str, env: Env) -> Result<DestinationUrl, ConfigError> {
    let expanded = expand_env(text, env).map_err(|source| ConfigError::DestinationEnv {
        key: key.to_owned(),
        source,
    })?;
    DestinationUrl::parse(&expanded).map_err(|source| ConfigError::Destination {
        key: key.to_owned(),
        source,
    })
}

/// A route's URL under `key`, resolved when this process has its variables.
fn route_url(key: String, text: &str, env: Env) -> Result<RouteUrl, ConfigError> {
    let resolved = match destination_url(&key, text, env) {
        Ok(url) => Ok(url),
        Err(ConfigError::DestinationEnv {
            key,
            source: source @ EnvError::Unset(_),
        }) => Err(UnsetVariable { key, source }),
        Err(e) => return Err(e),
    };
    Ok(RouteUrl {
        written: text.to_owned(),
        resolved,
    })
}

/// Each route's `to:` and `dead_letter_to:` resolved ([`destination_url`]), before any I/O.
pub(super) fn resolve_routes(
    routes: BTreeMap<String, RouteFile>,
    env: Env,
) -> Result<BTreeMap<String, Route>, ConfigError> {
    routes
        .into_iter()
        .map(|(name, route)| {
            if name.is_empty() {
                return Err(invalid("relay.routes has an empty route name"));
            }
            // as `--route` refuses it: a route staged under that name is not this one
            crate::model::parse_route(&name)
                .map_err(|e| invalid(format!("relay.routes: {e}")))?;
            // a broker given an empty name makes one up (AMQP's `amq.gen-…` queue, each run
            // another) or writes to the empty key (Redis)
            if route.channel.as_deref().is_some_and(|c| c.trim().is_empty()) {
                return Err(invalid(format!(
                    "relay.routes.{name}.channel is empty: leave it out to publish on the route's name"
                )));
            }
            if route.to.expose().trim().is_empty() {
                return Err(invalid(format!("relay.routes.{name}.to is empty")));
            }
            let to = route_url(format!("relay.routes.{name}.to"), route.to.expose(), env)?;
            let dead_letter_to = route
                .dead_letter_to
                .as_ref()
                .map(crate::dburl::SecretText::expose)
                .map(|t| route_url(format!("relay.routes.{name}.dead_letter_to"), t, env))
                .transpose()?;
            Ok((name, route.with(to, dead_letter_to)))
        })
        .collect()
}
