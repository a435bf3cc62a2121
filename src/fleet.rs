//! The fleet's shared facts, as the registry tables hold them: each relay's heartbeat row
//! ([`Heartbeat`] written, [`RelayRecord`] read back) and each paused route ([`Pause`],
//! [`PauseSet`]). Time is the database server's: a relay sends how long ago things happened
//! (monotonic, on its own clock) and the server turns that into timestamps, so the clocks of
//! relay hosts never matter. Pure types and rules: no I/O.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use uuid::Uuid;

/// A relay is stale once this many heartbeats are missed (judged on the server).
pub const MISSED_BEATS_STALE: u32 = 3;

/// Stopped or stale rows older than this are pruned by any relay's heartbeat.
pub const PRUNE_AFTER: Duration = Duration::from_secs(24 * 3600);

/// What a relay writes every heartbeat.
#[derive(Debug, Clone, PartialEq)]
pub struct Heartbeat {
    pub id: String,
    pub host: String,
    pub pid: u32,
    pub version: String,
    pub routes: Vec<String>,
    pub tenants: Vec<Uuid>,
    /// When the latest pass that honoured every pause finished (`None`: no pass yet). The
    /// store sends how long ago that was as it sends the statement (after any reconnect), so
    /// that the server's clock, minus that, is no later than the pass.
    pub last_pass: Option<std::time::Instant>,
    pub last_error: Option<String>,
    /// Rows published since the relay started.
    pub published: u64,
    /// Delivery lag p99 of the rows published since the previous heartbeat.
    pub lag_p99_ms: Option<f64>,
    pub metrics_addr: Option<String>,
    pub interval: Duration,
}

/// What a heartbeat reads back: the server's time and the pauses in force.
#[derive(Debug, Clone)]
pub struct BeatAnswer {
    pub server_now: DateTime<Utc>,
    pub pauses: PauseSet,
}

/// A relay as `inspect relays` shows it; ordered live, stale, stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RelayState {
    /// Heartbeating.
    Live,
    /// [`MISSED_BEATS_STALE`] heartbeats missed: killed, hung, or cut off from the database.
    Stale,
    /// Stopped and said so.
    Stopped,
}

impl RelayState {
    pub fn as_str(self) -> &'static str {
        match self {
            RelayState::Live => "live",
            RelayState::Stale => "stale",
            RelayState::Stopped => "stopped",
        }
    }

    /// The state a store reads back (`live`, `stale`, `stopped`).
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "live" => RelayState::Live,
            "stale" => RelayState::Stale,
            "stopped" => RelayState::Stopped,
            _ => return None,
        })
    }
}

/// One relay's row, its state judged by the server.
#[derive(Debug, Clone, Serialize)]
pub struct RelayRecord {
    pub id: String,
    pub host: String,
    pub pid: u32,
    pub version: String,
    pub routes: Vec<String>,
    pub tenants: Vec<Uuid>,
    pub state: RelayState,
    pub started_at: DateTime<Utc>,
    pub last_seen: DateTime<Utc>,
    pub last_pass_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub published: u64,
    pub lag_p99_ms: Option<f64>,
    pub metrics_addr: Option<String>,
}

impl RelayRecord {
    /// Whether this relay serves `route` (for `tenant`, when given) and is live.
    pub fn serves(&self, route: &str, tenant: Option<Uuid>) -> bool {
        self.state == RelayState::Live
            && self.routes.iter().any(|r| r == route)
            && tenant.is_none_or(|t| self.tenants.is_empty() || self.tenants.contains(&t))
    }

    /// Its routes, and how many configured tenants it serves them for (` ×3 tenants`).
    pub fn routes_text(&self) -> String {
        let routes = self.routes.join(",");
        match self.tenants.len() {
            0 => routes,
            n => format!("{routes} ×{n} tenants"),
        }
    }

    /// The relay in one line: id, state, host and pid, routes, its last pass (as of `now`),
    /// what it published and its last error.
    pub fn summary(&self, now: DateTime<Utc>) -> String {
        let last_pass = self.last_pass_at.map_or("no pass yet".into(), |t| {
            format!("last pass {} ago", crate::duration::age(now - t))
        });
        let mut line = format!(
            "{} {} on {} pid {} ({}): {last_pass}, {} published",
            self.id,
            self.state.as_str(),
            self.host,
            self.pid,
            self.routes_text(),
            self.published
        );
        if let Some(e) = &self.last_error {
            line.push_str(&format!(", last error: {e}"));
        }
        line
    }
}

/// A route paused (for every tenant, or for one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pause {
    pub route: String,
    pub tenant: Option<Uuid>,
    pub reason: String,
    /// Who paused it: the OS user@host and the database role.
    pub by: String,
    pub since: DateTime<Utc>,
}

/// "by WHO since WHEN: REASON".
impl std::fmt::Display for Pause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let since = self.since.format("%Y-%m-%d %H:%M:%SZ");
        write!(f, "by {} since {since}: {}", self.by, self.reason)
    }
}

/// A pause as history keeps it: when it ended, and who ended it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PauseRecord {
    #[serde(flatten)]
    pub pause: Pause,
    pub resumed_at: Option<DateTime<Utc>>,
    pub resumed_by: Option<String>,
}

/// The pauses in force.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PauseSet(pub Vec<Pause>);

impl PauseSet {
    /// The pause that holds `route` for `tenant` (one for every tenant first), if any.
    pub fn find(&self, route: &str, tenant: Option<Uuid>) -> Option<&Pause> {
        let of_route = || self.0.iter().filter(move |p| p.route == route);
        of_route()
            .find(|p| p.tenant.is_none())
            .or_else(|| of_route().find(|p| tenant.is_some() && p.tenant == tenant))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Who acts: `user@host`, and the database role, as a pause records them.
pub fn actor(os: &str, db_role: &str) -> String {
    if db_role.is_empty() {
        os.to_owned()
    } else {
        format!("{os} as {db_role}")
    }
}

/// Registered relays as the on-call reads them: live ones first (a stopped relay is kept for a
/// day, and a panel of a few lines showed only those), then stale, then stopped; in each, the
/// newest started first, in an order that holds from one refresh to the next (by the last
/// heartbeat, live relays changed places at every refresh).
pub fn live_first(registered: &mut [RelayRecord]) {
    registered.sort_by(|a, b| (a.state, b.started_at, &a.id).cmp(&(b.state, a.started_at, &b.id)));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pause(route: &str, tenant: Option<Uuid>) -> Pause {
        Pause {
            route: route.into(),
            tenant,
            reason: "r".into(),
            by: "u@h".into(),
            since: Utc::now(),
        }
    }

    #[test]
    fn a_route_pause_holds_every_tenant_and_a_tenant_pause_only_its_own() {
        let a = Uuid::from_u128(1);
        let b = Uuid::from_u128(2);
        let set = PauseSet(vec![pause("orders", None), pause("billing", Some(a))]);
        assert!(set.find("orders", None).is_some());
        assert!(set.find("orders", Some(b)).is_some());
        assert!(set.find("billing", Some(a)).is_some());
        assert!(set.find("billing", Some(b)).is_none());
        assert!(set.find("billing", None).is_none());
        assert!(set.find("other", Some(a)).is_none());
    }

    #[test]
    fn a_relay_serves_its_routes_only_while_live() {
        let mut r = RelayRecord {
            id: "x".into(),
            host: "h".into(),
            pid: 1,
            version: "v".into(),
            routes: vec!["orders".into()],
            tenants: vec![],
            state: RelayState::Live,
            started_at: Utc::now(),
            last_seen: Utc::now(),
            last_pass_at: None,
            last_error: None,
            published: 0,
            lag_p99_ms: None,
            metrics_addr: None,
        };
        assert!(r.serves("orders", None));
        assert!(r.serves("orders", Some(Uuid::from_u128(3))));
        assert!(!r.serves("billing", None));
        r.tenants = vec![Uuid::from_u128(1)];
        assert!(!r.serves("orders", Some(Uuid::from_u128(3))));
        r.state = RelayState::Stale;
        assert!(!r.serves("orders", None));
    }

    #[test]
    fn states_round_trip() {
        for s in [RelayState::Live, RelayState::Stale, RelayState::Stopped] {
            assert_eq!(RelayState::parse(s.as_str()), Some(s));
        }
        assert_eq!(RelayState::parse("gone"), None);
    }
}
