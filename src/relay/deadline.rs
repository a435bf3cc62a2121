//! When a pass stops publishing: a fixed instant (consume storage's `pass_deadline`, a drain
//! pass's share of the drain), a stop of the looping relay that may come while the pass runs
//! ([`StopWatch`]), or both; the earlier wins.

use std::future::Future;
use std::time::Instant;

use super::shutdown::StopWatch;

#[derive(Clone, Copy, Default)]
pub(super) struct Deadline<'a> {
    pub fixed: Option<Instant>,
    pub stop: Option<&'a StopWatch>,
}

impl Deadline<'_> {
    /// The instant publishing ends, as known now.
    pub fn at(&self) -> Option<Instant> {
        let stop = self.stop.and_then(StopWatch::publishing_ends);
        match (self.fixed, stop) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether publishing has ended at `now`.
    pub fn passed(&self, now: Instant) -> bool {
        self.at().is_some_and(|d| now >= d)
    }

    /// Whether the relay's stop ended publishing by `now` (its drain cut what was in flight),
    /// rather than a bound of the pass or the publish.
    pub fn stopped_by(&self, now: Instant) -> bool {
        (self.stop.and_then(StopWatch::publishing_ends)).is_some_and(|d| now >= d)
    }

    /// `limit` (a publish's own bound), brought forward to the deadline.
    pub fn bound(&self, limit: Instant) -> Instant {
        self.at().map_or(limit, |d| d.min(limit))
    }

    /// Runs `work` unless a stop that comes while it runs ends publishing first (`None`). A
    /// deadline known when `work` starts is the caller's to apply ([`Deadline::bound`]).
    pub async fn unless_stopped<F: Future>(&self, work: F) -> Option<F::Output> {
        match self.stop {
            Some(stop) if !stop.is_stopped() => tokio::select! {
                biased;
                out = work => Some(out),
                () = stop.publishing_over() => None,
            },
            _ => Some(work.await),
        }
    }
}
