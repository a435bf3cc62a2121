//! One pass of a lane's route as the lane runs it: under the shutdown drain's cut, with the
//! lane's second connection claiming ahead.

use std::sync::Arc;

use super::super::engine::{
    self, Ahead, ClaimAhead, Job, PassOptions, PassReport, RelaySettings, run_pass_ahead,
};
use super::super::fleet::{FleetView, Ticket};
use super::super::route_stats::RouteStats;
use super::super::shutdown::StopWatch;
use crate::destination::{Publisher, Sink};
use crate::store::{PassTarget, RelayStore};

/// One pass to run: its route, destination, settings and options.
pub(super) struct PassRun<'a> {
    pub target: &'a PassTarget,
    pub sink: &'a Sink,
    pub settings: &'a RelaySettings,
    pub options: PassOptions,
    /// Another pass of the route follows: claim its batch ahead (when the lane can).
    pub ahead: bool,
}

impl<'a> PassRun<'a> {
    /// A pass of a tick or of `--once`, under `stop`'s watch: it starts no publish four fifths
    /// into the drain (the loop's and `--once`'s passes, alike).
    pub(super) fn watched(
        target: &'a PassTarget,
        sink: &'a Sink,
        settings: &'a RelaySettings,
        reclaim: bool,
        stop: &StopWatch,
        dead_letter: Option<Arc<dyn Publisher>>,
    ) -> Self {
        let options = PassOptions {
            reclaim,
            stop_publishing_at: None,
            stop: Some(stop.clone()),
            dead_letter,
        };
        Self {
            target,
            sink,
            settings,
            options,
            ahead: false,
        }
    }
}

/// Runs the pass unless `cut` (the shutdown drain's end) comes first: then the pass's future is
/// dropped, the stores stop what they left running on the server ([`RelayStore::abandon`]), and
/// `None` says the lane is done. `second`: the lane's connection that claims ahead; `prior`: the
/// rows an earlier pass claimed ahead for this one, and on return those this one claimed for
/// the next.
pub(super) async fn pass_unless_cut<S: RelayStore>(
    store: &mut S,
    mut second: Option<&mut S>,
    prior: &mut Option<Ahead>,
    run: PassRun<'_>,
    cut: impl Future<Output = ()>,
) -> Option<PassReport> {
    let job = Job {
        target: run.target,
        sink: run.sink,
        settings: run.settings,
        options: &run.options,
    };
    let mut ahead = ClaimAhead {
        store: second.as_deref_mut().filter(|_| run.ahead),
        prior: prior.take(),
        next: None,
    };
    let outcome = tokio::select! {
        report = run_pass_ahead(store, &mut ahead, job) => Some(report),
        () = cut => None,
    };
    *prior = ahead.next.take();
    if outcome.is_none() {
        tracing::warn!(route = %run.target, "the shutdown drain's time is over: the pass in progress is cut and rolled back");
        store.abandon().await;
        if let Some(second) = second {
            second.abandon().await;
        }
    }
    outcome
}

/// A ticket for the route's next pass ([`FleetView::before_pass`]; `None`: it may not start);
/// one that takes rows claimed ahead (`prior`) knows no pause made after their claim.
pub(super) fn ticket(
    fleet: &FleetView,
    target: &PassTarget,
    prior: Option<&Ahead>,
) -> Option<Ticket> {
    let ticket = fleet.before_pass(target).ok()?;
    Some(match prior {
        Some(p) => fleet.claimed_at(ticket, p.sent),
        None => ticket,
    })
}

/// Returns what a route's last pass claimed ahead, unused, to `pending`; counts what that
/// claim parked (MongoDB: unreadable documents) as failed in `stats`.
pub(super) async fn release_ahead<S: RelayStore>(
    second: Option<&mut S>,
    target: &PassTarget,
    prior: Option<Ahead>,
    stats: &mut [&mut RouteStats],
) {
    if let (Some(prior), Some(second)) = (prior, second) {
        let parked = engine::release_ahead(second, target, prior).await as u64;
        for s in stats {
            s.claimed += parked;
            s.failed += parked;
        }
    }
}
