//! The looping relay's Prometheus metrics: counters per route (and tenant) fed from pass
//! reports, a publish-latency histogram, route backoff, and gauges read at scrape time.
//! Rendering is the text exposition format, pure.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::backoff;
use super::engine::PassReport;
use super::lag::LAG_BUCKETS;
use crate::store::PassTarget;
use crate::store::ops::RouteSummary;

/// Upper bounds of the publish-latency buckets, in seconds.
pub const BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
];

#[derive(Debug, Default, Clone)]
struct Route {
    claimed: u64,
    published: u64,
    retried: u64,
    failed: u64,
    dead_lettered: u64,
    reclaimed: u64,
    passes: u64,
    passes_claimed_ahead: u64,
    failed_passes: u64,
    consecutive_failures: u32,
    failing_since: Option<Instant>,
    backoff_seconds: f64,
    /// `outboxctl_delivery_lag_seconds` counts per [`LAG_BUCKETS`] bound (not cumulative).
    lag_buckets: Vec<u64>,
    lag_sum: f64,
    lag_count: u64,
}

impl Route {
    /// It waits on something else than its passes (a pause, its destination down, the
    /// database away): no failure of its from before counts towards `/healthz`, nor is it
    /// backing off from failures (a paused route set off the backoff alert).
    fn waits(&mut self) {
        self.failing_since = None;
        self.backoff_seconds = 0.0;
    }
}

impl Inner {
    /// `t` waits on something else than its passes: [`Route::waits`].
    fn waits(&mut self, t: &PassTarget) {
        if let Some(r) = self.routes.get_mut(&key(t)) {
            r.waits();
        }
    }
}

/// A route's key in the metrics: its name and tenant (empty for none).
fn key(t: &PassTarget) -> (String, String) {
    (
        t.route.clone(),
        t.tenant.map(|t| t.to_string()).unwrap_or_default(),
    )
}

/// A counter's name, help text and how to read it off a route.
type Counter = (&'static str, &'static str, fn(&Route) -> u64);

#[derive(Debug, Default)]
struct Inner {
    routes: BTreeMap<(String, String), Route>,
    buckets: Vec<u64>,
    latency_sum: f64,
    latency_count: u64,
    /// Each destination (masked), and why it is down (`None`: up).
    destinations: BTreeMap<String, Option<String>>,
    /// The destinations whose lane has not probed them yet (the relay is starting).
    unprobed: std::collections::BTreeSet<String>,
    /// Wake-ups heard per route (`relay.wake`).
    wakes: BTreeMap<String, u64>,
    /// Why the database is away (`None`: it answers).
    database_away: Option<String>,
    /// Each route served (and tenant), paused or not (`outboxctl route pause`).
    paused: BTreeMap<(String, String), bool>,
    /// Heartbeats into the relay registry that failed.
    heartbeat_failures: u64,
}

pub struct Metrics {
    inner: Mutex<Inner>,
    interval: Duration,
    retry_max_backoff: Duration,
}

fn label(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

impl Metrics {
    pub fn new(interval: Duration, retry_max_backoff: Duration) -> Self {
        let inner = Inner {
            buckets: vec![0; BUCKETS.len()],
            ..Default::default()
        };
        Self {
            inner: Mutex::new(inner),
            interval,
            retry_max_backoff,
        }
    }

    /// Counts a pass.
    pub fn record(&self, target: &PassTarget, r: &PassReport) {
        let mut inner = self.inner.lock().expect("not poisoned");
        let route = inner.routes.entry(key(target)).or_default();
        route.passes += 1;
        route.claimed += r.claimed as u64;
        route.published += r.published as u64;
        route.retried += r.retried as u64;
        route.failed += r.failed as u64;
        route.dead_lettered += r.dead_lettered as u64;
        route.reclaimed += r.reclaimed;
        route.passes_claimed_ahead += u64::from(r.claimed_ahead);
        if route.lag_buckets.is_empty() {
            route.lag_buckets = vec![0; LAG_BUCKETS.len()];
        }
        for &s in &r.lag_seconds {
            if let Some(i) = LAG_BUCKETS.iter().position(|&b| s <= b) {
                route.lag_buckets[i] += 1;
            }
            route.lag_sum += s;
            route.lag_count += 1;
        }
        if r.committed {
            route.consecutive_failures = 0;
            route.failing_since = None;
            route.backoff_seconds = 0.0;
        } else if r.database_away.is_some() {
            // rolled back, but not the route's failure: no backoff, not failing
            route.failed_passes += 1;
        } else {
            route.failed_passes += 1;
            route.consecutive_failures += 1;
            route.failing_since.get_or_insert_with(Instant::now);
            route.backoff_seconds = backoff::route_backoff(
                route.consecutive_failures,
                self.interval,
                self.retry_max_backoff,
            )
            .as_secs_f64();
        }
        for &s in &r.publish_seconds {
            if let Some(i) = BUCKETS.iter().position(|&b| s <= b) {
                inner.buckets[i] += 1;
            }
            inner.latency_sum += s;
            inner.latency_count += 1;
        }
    }

    /// Which routes served are paused, and the registry's heartbeat failures so far.
    pub fn fleet(&self, paused: &[(PassTarget, bool)], heartbeat_failures: u64) {
        let mut inner = self.inner.lock().expect("not poisoned");
        inner.paused = paused.iter().map(|(t, p)| (key(t), *p)).collect();
        inner.heartbeat_failures = heartbeat_failures;
        // a paused route runs no pass: an operator's choice, not a failure of its passes
        for (t, _) in paused.iter().filter(|(_, p)| *p) {
            inner.waits(t);
        }
    }

    /// `route` is listened for: its wake-ups counted from 0.
    pub fn wakes_from_zero(&self, route: &str) {
        let mut inner = self.inner.lock().expect("not poisoned");
        inner.wakes.entry(route.to_owned()).or_default();
    }

    /// A wake-up for `route` was heard.
    pub fn wake(&self, route: &str) {
        let mut inner = self.inner.lock().expect("not poisoned");
        *inner.wakes.entry(route.to_owned()).or_default() += 1;
    }

    /// The destinations the relay serves, up until told otherwise, and not probed yet: the
    /// relay is not ready until each lane's start probe has answered.
    pub fn set_destinations(&self, destinations: &[String]) {
        let mut inner = self.inner.lock().expect("not poisoned");
        for d in destinations {
            inner.destinations.entry(d.clone()).or_insert(None);
            inner.unprobed.insert(d.clone());
        }
    }

    /// The destinations not probed yet.
    pub fn unprobed_destinations(&self) -> Vec<String> {
        let inner = self.inner.lock().expect("not poisoned");
        inner.unprobed.iter().cloned().collect()
    }

    /// A destination (serving `routes`) went down (`Some(reason)`) or came back (`None`). Its
    /// routes wait on it, which is not their passes failing: `/healthz` counts no failure of
    /// theirs from before it.
    pub fn destination(&self, destination: &str, routes: &[PassTarget], down: Option<&str>) {
        let mut inner = self.inner.lock().expect("not poisoned");
        inner.unprobed.remove(destination);
        inner
            .destinations
            .insert(destination.to_owned(), down.map(str::to_owned));
        if down.is_some() {
            routes.iter().for_each(|t| inner.waits(t));
        }
    }

    /// The database went away (`Some(reason)`) or answers again (`None`). Every route waits on
    /// it, which is not their passes failing.
    pub fn database(&self, away: Option<&str>) {
        let mut inner = self.inner.lock().expect("not poisoned");
        inner.database_away = away.map(str::to_owned);
        if away.is_some() {
            inner.routes.values_mut().for_each(Route::waits);
        }
    }

    /// Why the database is away, while it is.
    pub fn database_away(&self) -> Option<String> {
        self.inner
            .lock()
            .expect("not poisoned")
            .database_away
            .clone()
    }

    /// The destinations that are down, with their reasons.
    pub fn down_destinations(&self) -> Vec<(String, String)> {
        let inner = self.inner.lock().expect("not poisoned");
        inner
            .destinations
            .iter()
            .filter_map(|(d, why)| why.as_ref().map(|w| (d.clone(), w.clone())))
            .collect()
    }

    /// Routes whose passes have failed for longer than `limit` without a commit since.
    pub fn failing_longer_than(&self, limit: Duration) -> Vec<String> {
        let inner = self.inner.lock().expect("not poisoned");
        inner
            .routes
            .iter()
            .filter(|(_, r)| r.failing_since.is_some_and(|t| t.elapsed() > limit))
            .map(|((route, tenant), _)| {
                if tenant.is_empty() {
                    route.clone()
                } else {
                    format!("{route} (tenant {tenant})")
                }
            })
            .collect()
    }

    /// The text exposition: counters, backoff, latency histogram, and the gauges given.
    pub fn render(&self, gauges: &[RouteSummary], now: chrono::DateTime<chrono::Utc>) -> String {
        let inner = self.inner.lock().expect("not poisoned");
        let mut out = String::new();
        let counters: [Counter; 9] = [
            ("outboxctl_claimed_total", "Rows claimed.", |r| r.claimed),
            (
                "outboxctl_published_total",
                "Rows published and marked.",
                |r| r.published,
            ),
            (
                "outboxctl_retried_total",
                "Rows scheduled for a retry.",
                |r| r.retried,
            ),
            ("outboxctl_failed_total", "Rows parked as failed.", |r| {
                r.failed
            }),
            (
                "outboxctl_dead_lettered_total",
                "Rows published to the route's dead-letter destination, then parked.",
                |r| r.dead_lettered,
            ),
            (
                "outboxctl_reclaimed_total",
                "Stale processing rows returned to pending.",
                |r| r.reclaimed,
            ),
            ("outboxctl_passes_total", "Passes run.", |r| r.passes),
            (
                "outboxctl_passes_claimed_ahead_total",
                "Passes that took rows claimed ahead for them (relay.claim_ahead).",
                |r| r.passes_claimed_ahead,
            ),
            (
                "outboxctl_failed_passes_total",
                "Passes that failed (rolled back under consume storage).",
                |r| r.failed_passes,
            ),
        ];
        for (name, help, get) in counters {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter");
            for ((route, tenant), r) in &inner.routes {
                let _ = writeln!(
                    out,
                    "{name}{{route=\"{}\",tenant=\"{}\"}} {}",
                    label(route),
                    label(tenant),
                    get(r)
                );
            }
        }
        if !inner.wakes.is_empty() {
            let _ = writeln!(
                out,
                "# HELP outboxctl_wakes_total Wake-ups heard (relay.wake: a notification or change event naming the route).\n# TYPE outboxctl_wakes_total counter"
            );
            for (route, n) in &inner.wakes {
                let _ = writeln!(
                    out,
                    "outboxctl_wakes_total{{route=\"{}\"}} {n}",
                    label(route)
                );
            }
        }
        let _ = writeln!(
            out,
            "# HELP outboxctl_route_backoff_seconds How long a failing route is skipped.\n# TYPE outboxctl_route_backoff_seconds gauge"
        );
        for ((route, tenant), r) in &inner.routes {
            let _ = writeln!(
                out,
                "outboxctl_route_backoff_seconds{{route=\"{}\",tenant=\"{}\"}} {}",
                label(route),
                label(tenant),
                r.backoff_seconds
            );
        }
        let _ = writeln!(
            out,
            "# HELP outboxctl_route_paused Whether the route is paused (outboxctl route pause): 1 while it claims nothing.\n# TYPE outboxctl_route_paused gauge"
        );
        for ((route, tenant), paused) in &inner.paused {
            let _ = writeln!(
                out,
                "outboxctl_route_paused{{route=\"{}\",tenant=\"{}\"}} {}",
                label(route),
                label(tenant),
                u8::from(*paused)
            );
        }
        let _ = writeln!(
            out,
            "# HELP outboxctl_heartbeat_failures_total Heartbeats into the relay registry that failed (a failed heartbeat never fails a pass).\n# TYPE outboxctl_heartbeat_failures_total counter\noutboxctl_heartbeat_failures_total {}",
            inner.heartbeat_failures
        );
        let _ = writeln!(
            out,
            "# HELP outboxctl_database_up Whether the relay's database answers (0: away; every route waits, without failure backoff, until it answers a probe).\n# TYPE outboxctl_database_up gauge\noutboxctl_database_up {}",
            u8::from(inner.database_away.is_none())
        );
        let _ = writeln!(
            out,
            "# HELP outboxctl_database_away_info Why the database is away (1 while it is).\n# TYPE outboxctl_database_away_info gauge"
        );
        if let Some(why) = &inner.database_away {
            let _ = writeln!(
                out,
                "outboxctl_database_away_info{{reason=\"{}\"}} 1",
                label(why)
            );
        }
        let _ = writeln!(
            out,
            "# HELP outboxctl_destination_up Whether the destination answers (0: down, its routes claim nothing until a probe succeeds).\n# TYPE outboxctl_destination_up gauge"
        );
        // a destination not probed yet is neither: no figure until its lane's first probe
        // answers (it read 1, up, while /readyz said "not probed yet")
        for (d, why) in (inner.destinations.iter()).filter(|(d, _)| !inner.unprobed.contains(*d)) {
            let _ = writeln!(
                out,
                "outboxctl_destination_up{{destination=\"{}\"}} {}",
                label(d),
                u8::from(why.is_none())
            );
        }
        let _ = writeln!(
            out,
            "# HELP outboxctl_destination_down_info Why a destination is down (1 per down destination).\n# TYPE outboxctl_destination_down_info gauge"
        );
        for (d, why) in &inner.destinations {
            if let Some(why) = why {
                let _ = writeln!(
                    out,
                    "outboxctl_destination_down_info{{destination=\"{}\",reason=\"{}\"}} 1",
                    label(d),
                    label(why)
                );
            }
        }
        let _ = writeln!(
            out,
            "# HELP outboxctl_publish_duration_seconds Time from publish to acknowledgement.\n# TYPE outboxctl_publish_duration_seconds histogram"
        );
        let mut cumulative = 0;
        for (i, b) in BUCKETS.iter().enumerate() {
            cumulative += inner.buckets[i];
            let _ = writeln!(
                out,
                "outboxctl_publish_duration_seconds_bucket{{le=\"{b}\"}} {cumulative}"
            );
        }
        let _ = writeln!(
            out,
            "outboxctl_publish_duration_seconds_bucket{{le=\"+Inf\"}} {}",
            inner.latency_count
        );
        let _ = writeln!(
            out,
            "outboxctl_publish_duration_seconds_sum {}",
            inner.latency_sum
        );
        let _ = writeln!(
            out,
            "outboxctl_publish_duration_seconds_count {}",
            inner.latency_count
        );
        let _ = writeln!(
            out,
            "# HELP outboxctl_delivery_lag_seconds Time from a row's created_at (the writer's clock) to the destination's acknowledgement.\n# TYPE outboxctl_delivery_lag_seconds histogram"
        );
        for ((route, tenant), r) in &inner.routes {
            let labels = format!("route=\"{}\",tenant=\"{}\"", label(route), label(tenant));
            let mut cumulative = 0;
            for (i, b) in LAG_BUCKETS.iter().enumerate() {
                cumulative += r.lag_buckets.get(i).copied().unwrap_or(0);
                let _ = writeln!(
                    out,
                    "outboxctl_delivery_lag_seconds_bucket{{{labels},le=\"{b}\"}} {cumulative}"
                );
            }
            let _ = writeln!(
                out,
                "outboxctl_delivery_lag_seconds_bucket{{{labels},le=\"+Inf\"}} {}\noutboxctl_delivery_lag_seconds_sum{{{labels}}} {}\noutboxctl_delivery_lag_seconds_count{{{labels}}} {}",
                r.lag_count, r.lag_sum, r.lag_count
            );
        }
        let _ = writeln!(
            out,
            "# HELP outboxctl_pending Pending rows (due now and scheduled).\n# TYPE outboxctl_pending gauge"
        );
        for g in gauges {
            let t = g.tenant.map(|t| t.to_string()).unwrap_or_default();
            let _ = writeln!(
                out,
                "outboxctl_pending{{route=\"{}\",tenant=\"{}\"}} {}",
                label(&g.route),
                label(&t),
                g.pending_ripe + g.pending_scheduled
            );
        }
        if gauges.iter().any(|g| g.blocked_keys.is_some()) {
            let _ = writeln!(
                out,
                "# HELP outboxctl_blocked_keys Keys strict order holds back behind a parked, in-flight or retrying row (counted up to 1000).\n# TYPE outboxctl_blocked_keys gauge"
            );
            for g in gauges {
                let t = g.tenant.map(|t| t.to_string()).unwrap_or_default();
                let _ = writeln!(
                    out,
                    "outboxctl_blocked_keys{{route=\"{}\",tenant=\"{}\"}} {}",
                    label(&g.route),
                    label(&t),
                    g.blocked_keys.unwrap_or(0)
                );
            }
        }
        let _ = writeln!(
            out,
            "# HELP outboxctl_oldest_pending_age_seconds Age of the oldest pending row.\n# TYPE outboxctl_oldest_pending_age_seconds gauge"
        );
        for g in gauges {
            let t = g.tenant.map(|t| t.to_string()).unwrap_or_default();
            let age = g
                .oldest_pending
                .map_or(0.0, |o| (now - o).num_milliseconds().max(0) as f64 / 1000.0);
            let _ = writeln!(
                out,
                "outboxctl_oldest_pending_age_seconds{{route=\"{}\",tenant=\"{}\"}} {age}",
                label(&g.route),
                label(&t)
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_passes_backoff_and_latency() {
        let m = Metrics::new(Duration::from_secs(1), Duration::from_secs(300));
        let t = PassTarget {
            route: "or\"ders".into(),
            tenant: None,
        };
        let ok = PassReport {
            claimed: 3,
            published: 3,
            committed: true,
            claimed_ahead: true,
            publish_seconds: vec![0.0004, 0.02, 9.0],
            lag_seconds: vec![0.003, 0.2, 4000.0],
            ..Default::default()
        };
        m.record(&t, &ok);
        let bad = PassReport {
            committed: false,
            error: Some("x".into()),
            ..Default::default()
        };
        m.record(&t, &bad);
        m.record(&t, &bad);
        let text = m.render(&[], chrono::Utc::now());
        assert!(
            text.contains("outboxctl_published_total{route=\"or\\\"ders\",tenant=\"\"} 3"),
            "{text}"
        );
        assert!(text.contains("outboxctl_failed_passes_total{route=\"or\\\"ders\",tenant=\"\"} 2"));
        assert!(
            text.contains(
                "outboxctl_passes_claimed_ahead_total{route=\"or\\\"ders\",tenant=\"\"} 1"
            ),
            "{text}"
        );
        assert!(
            text.contains("outboxctl_route_backoff_seconds{route=\"or\\\"ders\",tenant=\"\"} 2"),
            "{text}"
        );
        assert!(text.contains("outboxctl_publish_duration_seconds_bucket{le=\"0.0005\"} 1"));
        assert!(text.contains("outboxctl_publish_duration_seconds_bucket{le=\"0.025\"} 2"));
        assert!(text.contains("outboxctl_publish_duration_seconds_bucket{le=\"+Inf\"} 3"));
        let lag = |le: &str| {
            format!(
                "outboxctl_delivery_lag_seconds_bucket{{route=\"or\\\"ders\",tenant=\"\",le=\"{le}\"}} "
            )
        };
        assert!(text.contains(&format!("{}1\n", lag("0.005"))), "{text}");
        assert!(text.contains(&format!("{}2\n", lag("0.25"))), "{text}");
        assert!(
            text.contains(&format!("{}2\n", lag("3600"))),
            "hours apart: {text}"
        );
        assert!(text.contains(&format!("{}3\n", lag("21600"))), "{text}");
        assert_eq!(
            m.failing_longer_than(Duration::from_secs(3600)),
            Vec::<String>::new()
        );
        assert_eq!(m.failing_longer_than(Duration::ZERO).len(), 1);
        m.record(&t, &ok);
        assert!(
            m.failing_longer_than(Duration::ZERO).is_empty(),
            "a committed pass clears it"
        );
    }

    #[test]
    fn the_database_away_with_its_reason_then_back() {
        let m = Metrics::new(Duration::from_secs(1), Duration::from_secs(60));
        assert!(
            m.render(&[], chrono::Utc::now())
                .contains("outboxctl_database_up 1\n")
        );
        m.database(Some("reconnecting: connection refused"));
        let text = m.render(&[], chrono::Utc::now());
        assert!(text.contains("outboxctl_database_up 0\n"), "{text}");
        assert!(
            text.contains(
                "outboxctl_database_away_info{reason=\"reconnecting: connection refused\"} 1"
            ),
            "{text}"
        );
        // a pass that failed because the database was away is not the route's failure
        let t = PassTarget {
            route: "orders".into(),
            tenant: None,
        };
        m.record(
            &t,
            &PassReport {
                database_away: Some("lost".into()),
                ..Default::default()
            },
        );
        assert!(m.failing_longer_than(Duration::ZERO).is_empty());
        m.database(None);
        let text = m.render(&[], chrono::Utc::now());
        assert!(text.contains("outboxctl_database_up 1\n"), "{text}");
        assert!(!text.contains("outboxctl_database_away_info{"), "{text}");
    }

    #[test]
    fn destinations_up_and_down_with_their_reason() {
        let m = Metrics::new(Duration::from_secs(1), Duration::from_secs(300));
        m.set_destinations(&["nats://a".into(), "redis://b".into()]);
        assert_eq!(m.unprobed_destinations(), ["nats://a", "redis://b"]);
        m.destination("nats://a", &[], Some("connection refused"));
        assert_eq!(m.unprobed_destinations(), ["redis://b"], "a probe answered");
        let text = m.render(&[], chrono::Utc::now());
        assert!(
            text.contains("outboxctl_destination_up{destination=\"nats://a\"} 0"),
            "{text}"
        );
        assert!(
            !text.contains("outboxctl_destination_up{destination=\"redis://b\"}"),
            "not probed yet: neither up nor down\n{text}"
        );
        assert!(text.contains(
            "outboxctl_destination_down_info{destination=\"nats://a\",reason=\"connection refused\"} 1"
        ));
        assert_eq!(m.down_destinations().len(), 1);
        m.destination("nats://a", &[], None);
        assert!(m.down_destinations().is_empty());
    }

    /// A route whose pass failed, then waits on something else (its destination down, the
    /// database away, a pause), is not failing: `/healthz` stays healthy, as the docs say, and
    /// its backoff gauge reads 0 (a paused route set off the backoff alert).
    #[test]
    fn a_route_that_waits_is_not_failing() {
        let failed = PassReport {
            error: Some("deadlock detected".into()),
            ..Default::default()
        };
        let t = PassTarget {
            route: "orders".into(),
            tenant: None,
        };
        let waits: [&dyn Fn(&Metrics); 3] = [
            &|m| m.destination("nats://a", std::slice::from_ref(&t), Some("refused")),
            &|m| m.database(Some("connection lost")),
            &|m| m.fleet(&[(t.clone(), true)], 0),
        ];
        for wait in waits {
            let m = Metrics::new(Duration::from_secs(1), Duration::from_secs(300));
            m.record(&t, &failed);
            assert_eq!(m.failing_longer_than(Duration::ZERO), ["orders"]);
            wait(&m);
            assert!(m.failing_longer_than(Duration::ZERO).is_empty());
            // nor backing off: the alert on the gauge stays quiet
            let text = m.render(&[], chrono::Utc::now());
            let gauge = "outboxctl_route_backoff_seconds{route=\"orders\",tenant=\"\"} 0";
            assert!(text.contains(gauge), "{text}");
        }
    }
}
