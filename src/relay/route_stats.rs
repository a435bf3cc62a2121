//! A route's totals over a drain or a tick: what `relay --once` summarises, the looping
//! relay logs per tick, and metrics and the registry read.

use std::time::Duration;

use serde::Serialize;

use super::engine::PassReport;
use super::lag::LagHistogram;
use crate::store::PassTarget;

/// Totals for one route (and tenant).
#[derive(Debug, Clone, Default, Serialize)]
pub struct RouteStats {
    pub route: String,
    pub tenant: Option<uuid::Uuid>,
    pub passes: u64,
    pub claimed: u64,
    pub published: u64,
    pub retried: u64,
    pub failed: u64,
    /// Of the failed rows, those published to the route's dead-letter destination first.
    pub dead_lettered: u64,
    pub failed_passes: u64,
    pub reclaimed: u64,
    /// Passes that took rows claimed ahead for them (`relay.claim_ahead`).
    #[serde(skip_serializing_if = "is_zero")]
    pub passes_claimed_ahead: u64,
    pub seconds: f64,
    pub events_per_second: f64,
    /// Delivery lag (`created_at` to acknowledgement) of the rows published, median and 99th
    /// percentile, in milliseconds; `null` when nothing was published (the keys are always
    /// there: a script reading them found them missing).
    pub lag_p50_ms: Option<f64>,
    pub lag_p99_ms: Option<f64>,
    #[serde(skip)]
    pub lag: LagHistogram,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// A pass failed as not fitting the database ([`PassReport::unfit`]): its error.
    #[serde(skip)]
    pub unfit: Option<String>,
    /// The route's destination was away: why (its rows stayed pending, no attempt counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_down: Option<String>,
    /// The route is paused (`outboxctl route pause`): nothing was claimed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paused: Option<crate::fleet::Pause>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl RouteStats {
    /// What a summary says of the route below its figures: its last failed pass, its pause, its
    /// destination away.
    pub fn notes(&self) -> Vec<String> {
        let (route, tenant) = (self.route.clone(), self.tenant);
        let route = PassTarget { route, tenant };
        let last = (self.last_error.as_ref()).map(|e| format!("{route}: last failed pass: {e}"));
        let paused =
            (self.paused.as_ref()).map(|p| format!("{route}: nothing claimed, paused {p}"));
        let down = self.destination_down.as_ref().map(|d| {
            format!("{route}: destination down (rows it did not reach stay pending, no attempt counted): {d}")
        });
        [last, paused, down].into_iter().flatten().collect()
    }

    pub(super) fn new(target: &PassTarget) -> Self {
        Self {
            route: target.route.clone(),
            tenant: target.tenant,
            ..Default::default()
        }
    }

    pub(super) fn add(&mut self, r: &PassReport) {
        self.passes += 1;
        self.claimed += r.claimed as u64;
        self.published += r.published as u64;
        self.retried += r.retried as u64;
        self.failed += r.failed as u64;
        self.dead_lettered += r.dead_lettered as u64;
        self.reclaimed += r.reclaimed;
        self.passes_claimed_ahead += u64::from(r.claimed_ahead);
        // the lag of what was delivered: a pass that did not commit delivered nothing
        for &s in r.lag_seconds.iter().filter(|_| r.committed) {
            self.lag.record(s);
        }
        if !r.committed {
            self.failed_passes += 1;
            self.last_error.clone_from(&r.error);
            if r.unfit {
                self.unfit.clone_from(&r.error);
            }
        }
        // the destination's state after the latest pass
        self.destination_down.clone_from(&r.down);
    }

    pub(super) fn merge(&mut self, other: &RouteStats) {
        self.passes += other.passes;
        self.claimed += other.claimed;
        self.published += other.published;
        self.retried += other.retried;
        self.failed += other.failed;
        self.dead_lettered += other.dead_lettered;
        self.failed_passes += other.failed_passes;
        self.reclaimed += other.reclaimed;
        self.passes_claimed_ahead += other.passes_claimed_ahead;
        self.lag.merge(&other.lag);
        if other.last_error.is_some() {
            self.last_error.clone_from(&other.last_error);
        }
        if other.unfit.is_some() {
            self.unfit.clone_from(&other.unfit);
        }
        if other.destination_down.is_some() {
            self.destination_down.clone_from(&other.destination_down);
        }
    }

    pub(super) fn finish(&mut self, elapsed: Duration) {
        self.seconds = elapsed.as_secs_f64();
        self.events_per_second = if self.seconds > 0.0 {
            self.published as f64 / self.seconds
        } else {
            0.0
        };
        let ms = |q: f64| self.lag.quantile(q).map(|s| (s * 1e4).round() / 10.0);
        self.lag_p50_ms = ms(0.5);
        self.lag_p99_ms = ms(0.99);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pass that published and then did not commit (its rows stay pending) adds no lag: the
    /// summary gave a lag beside `published: 0`.
    #[test]
    fn a_pass_that_did_not_commit_adds_no_lag() {
        let mut stats = RouteStats::default();
        let lost = PassReport {
            lag_seconds: vec![2.0, 3.0],
            committed: false,
            ..PassReport::default()
        };
        stats.add(&lost);
        stats.finish(Duration::from_secs(1));
        assert_eq!((stats.published, stats.lag_p50_ms), (0, None));
        let kept = PassReport {
            published: 1,
            lag_seconds: vec![2.0],
            committed: true,
            ..PassReport::default()
        };
        stats.add(&kept);
        stats.finish(Duration::from_secs(1));
        assert!(stats.lag_p50_ms.is_some_and(|ms| ms > 1_000.0), "{stats:?}");
    }
}
