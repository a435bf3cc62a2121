//! The fleet as an operator sees it: which relays work the outbox (`inspect relays`), and
//! pausing and resuming a route everywhere (`route pause|resume|list`). Pauses are read by
//! every outboxctl relay, looping or `--once`, with its heartbeat, so a pause holds within
//! `relay.heartbeat` (PostgreSQL with named statements: from the next pass, as the claim reads
//! them too). forze's relays do not read them. No terminal code.

use std::collections::BTreeSet;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use uuid::Uuid;

use crate::Error;
use crate::config::{Config, ConfigError};
use crate::fleet::{Pause, PauseSet, RelayRecord};
use crate::store::backend::Backend;
use crate::store::registry::{self, Registry};

/// Every relay registered, its state judged by the server: live first, then stale, then
/// stopped, each newest started first (oldest started first, the live ones came below a day's
/// stopped rows).
pub async fn relays(config: &Config, connect_timeout: Duration) -> Result<Vec<RelayRecord>, Error> {
    let mut relays = open(config, connect_timeout).await?.relays().await?;
    crate::fleet::live_first(&mut relays);
    Ok(relays)
}

/// The registry, or why there is none.
async fn open(config: &Config, connect_timeout: Duration) -> Result<Registry, Error> {
    config.require_url()?;
    Backend::of(config, connect_timeout).registry().await
}

/// A route (and tenant) to pause or resume, checked against the configuration.
#[derive(Debug, Clone)]
pub struct RouteRef {
    pub route: String,
    pub tenant: Option<Uuid>,
}

impl RouteRef {
    /// `--tenant` only on a tenant-aware outbox; a route name is never empty, nor starts or
    /// ends with a space (it was trimmed, where `emit` and `relay --route` refuse it).
    pub fn checked(config: &Config, route: &str, tenant: Option<Uuid>) -> Result<Self, Error> {
        let route = crate::model::parse_route(route)
            .map_err(|e| ConfigError::Invalid(format!("{e}: name the route to pause or resume")))?;
        if tenant.is_some() && !config.outbox.tenant_aware {
            return Err(ConfigError::Invalid(
                "--tenant needs outbox.tenant_aware: true (this outbox's routes are paused for every tenant: drop --tenant)".into(),
            )
            .into());
        }
        Ok(Self { route, tenant })
    }
}

/// "route X", or "route X for tenant T": what pause and resume say they acted on.
impl std::fmt::Display for RouteRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "route {}", self.route)?;
        match self.tenant {
            Some(t) => write!(f, " for tenant {t}"),
            None => Ok(()),
        }
    }
}

/// What `route pause` did.
#[derive(Debug, Serialize)]
pub struct Paused {
    /// The pause in force.
    pub pause: Pause,
    /// It was paused already (nothing changed).
    pub already: bool,
    /// No live relay serves the route (for that tenant): the pause waits for one.
    pub unserved: bool,
}

impl Paused {
    /// What `route pause` warns of: a route the configuration's `relay.routes` lack (when it
    /// has routes: a typo pauses what no relay serves, as `inspect` and `requeue` say), and no
    /// live relay serving it.
    pub fn warnings(&self, r: &RouteRef, config: &Config) -> Vec<String> {
        let unconfigured = (config.route_unconfigured(&r.route))
            .map(|why| format!("{why}: paused all the same (a typo pauses nothing that runs)"));
        // a tenant outside the configured ones: emit refuses it, a pause of it holds nothing
        // this configuration's relays serve
        let tenants = &config.outbox.tenants;
        let stranger = (r.tenant)
            .filter(|t| !tenants.is_empty() && !tenants.contains(t))
            .map(|t| format!("tenant {t} is not in outbox.tenants: paused all the same (a typo pauses nothing that runs)"));
        let unserved = self.unserved.then(|| {
            format!(
                "no live relay serves {r}: it is paused all the same, for any relay that starts"
            )
        });
        unconfigured
            .into_iter()
            .chain(stranger)
            .chain(unserved)
            .collect()
    }

    /// What `route pause` says it did, with the command that undoes it (a tenant's pause is
    /// ended by naming the tenant).
    pub fn line(&self, r: &RouteRef) -> String {
        let p = &self.pause;
        let tenant = r
            .tenant
            .map(|t| format!(" --tenant {t}"))
            .unwrap_or_default();
        match self.already {
            true => format!("{r} was paused already, {p}"),
            false => format!(
                "{r} paused: every outboxctl relay stops claiming it within relay.heartbeat (`outboxctl route resume {}{tenant}` to undo)",
                r.route
            ),
        }
    }
}

impl RouteRef {
    /// What `route resume` says it did (`ended`: the pause it ended).
    pub fn resumed(&self, ended: Option<&Pause>) -> String {
        match ended {
            Some(p) => {
                format!("{self} resumed (paused {p}); relays claim it again within relay.heartbeat")
            }
            None => format!("{self} was not paused: nothing to resume"),
        }
    }
}

/// Pauses a route everywhere.
pub async fn pause(
    config: &Config,
    connect_timeout: Duration,
    target: &RouteRef,
    reason: &str,
) -> Result<Paused, Error> {
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(ConfigError::Invalid(
            "--reason is empty: say why the route is paused (the next on-call reads it)".into(),
        )
        .into());
    }
    let mut registry = open(config, connect_timeout).await?;
    let made = registry
        .pause(&target.route, target.tenant, reason, &registry::os_actor())
        .await?;
    // the pause is made: whether a live relay serves the route is a warning's business
    // only, and a registry that fails to say does not turn the pause into an error
    let unserved = match registry.relays().await {
        Ok(relays) => !relays
            .iter()
            .any(|r| r.serves(&target.route, target.tenant)),
        Err(e) => {
            tracing::warn!("could not list the relays to see whether one serves the route: {e}");
            false
        }
    };
    let (pause, already) = match made {
        Ok(p) => (p, false),
        Err(p) => (p, true),
    };
    Ok(Paused {
        pause,
        already,
        unserved,
    })
}

/// Resumes a route; `None` when it was not paused. A resume of the whole route while only
/// some tenants' pauses are in force (or of a tenant while the whole route's is) is refused,
/// naming them: "not paused" would send the on-call person the wrong way.
pub async fn resume(
    config: &Config,
    connect_timeout: Duration,
    target: &RouteRef,
) -> Result<Option<Pause>, Error> {
    let mut registry = open(config, connect_timeout).await?;
    let ended = (registry)
        .resume(&target.route, target.tenant, &registry::os_actor())
        .await?;
    if ended.is_some() {
        return Ok(ended);
    }
    let route = &target.route;
    let others: Vec<String> = (registry.pauses(false).await?.into_iter())
        // the whole route against a tenant's pause, or a tenant against the whole route's:
        // another tenant's pause leaves this tenant "not paused", which is true
        .filter(|p| p.pause.route == *route && p.pause.tenant != target.tenant)
        .filter(|p| target.tenant.is_none() || p.pause.tenant.is_none())
        .map(|p| match p.pause.tenant {
            Some(t) => format!("--tenant {t}"),
            None => "the whole route (no --tenant)".into(),
        })
        .collect();
    if others.is_empty() {
        return Ok(None);
    }
    Err(ConfigError::Invalid(format!(
        "route {route} has no pause {}; its pauses in force are for {}: resume those",
        match target.tenant {
            Some(t) => format!("for tenant {t}"),
            None => "for the whole route".into(),
        },
        others.join(", ")
    ))
    .into())
}

/// A route's line in `route list`: paused or active, or (history) one pause or resume.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RouteState {
    pub route: String,
    pub tenant: Option<Uuid>,
    /// `paused` or `active`; in the history, `paused` or `resumed`.
    pub state: &'static str,
    pub reason: Option<String>,
    pub by: Option<String>,
    pub since: Option<DateTime<Utc>>,
}

impl RouteState {
    fn paused(p: &Pause) -> Self {
        Self {
            route: p.route.clone(),
            tenant: p.tenant,
            state: "paused",
            reason: Some(p.reason.clone()),
            by: Some(p.by.clone()),
            since: Some(p.since),
        }
    }
}

/// Every route configured or served by a live relay, paused or active; or (`history`) every
/// pause and resume, oldest first.
pub async fn list(
    config: &Config,
    connect_timeout: Duration,
    history: bool,
) -> Result<Vec<RouteState>, Error> {
    let mut registry = open(config, connect_timeout).await?;
    let pauses = registry.pauses(history).await?;
    if history {
        let mut out = Vec::new();
        for p in pauses {
            out.push(RouteState::paused(&p.pause));
            if let Some(at) = p.resumed_at {
                out.push(RouteState {
                    route: p.pause.route,
                    tenant: p.pause.tenant,
                    state: "resumed",
                    reason: None,
                    by: p.resumed_by,
                    since: Some(at),
                });
            }
        }
        out.sort_by_key(|s| s.since);
        return Ok(out);
    }
    let relays = registry.relays().await?;
    let mut names: BTreeSet<String> = config.relay.routes.keys().cloned().collect();
    for r in relays
        .iter()
        .filter(|r| r.state == crate::fleet::RelayState::Live)
    {
        names.extend(r.routes.iter().cloned());
    }
    let mut out: Vec<RouteState> = pauses
        .iter()
        .map(|p| RouteState::paused(&p.pause))
        .collect();
    for name in names {
        if !out.iter().any(|s| s.route == name && s.tenant.is_none()) {
            out.push(RouteState {
                route: name,
                tenant: None,
                state: "active",
                reason: None,
                by: None,
                since: None,
            });
        }
    }
    out.sort_by(|a, b| (&a.route, a.tenant).cmp(&(&b.route, b.tenant)));
    Ok(out)
}

/// The pauses in force, for `inspect` and `top`: none when the configuration has no registry
/// or the database has no registry table yet.
pub async fn pauses_if_any(config: &Config, connect_timeout: Duration) -> PauseSet {
    let Ok(mut registry) = open(config, connect_timeout).await else {
        return PauseSet::default();
    };
    PauseSet(
        registry
            .pauses(false)
            .await
            .map(|ps| ps.into_iter().map(|p| p.pause).collect())
            .unwrap_or_default(),
    )
}
