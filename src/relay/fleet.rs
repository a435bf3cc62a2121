//! What a relay shares with its fleet, between its lanes and its heartbeat: the pauses in force
//! (lanes skip a paused route before each pass) and what the heartbeat reports (rows published,
//! the last pass, the last error, the delivery lag since the previous heartbeat). The last
//! error is a destination down, while it is (its routes run no pass that would fail), else a
//! failed pass's, until its route commits again.
//!
//! `last_pass_at` means: a pass finished, and every pass since honours the pauses made before
//! it. Where the claim itself reads the pauses (PostgreSQL with named statements), that is the
//! pass's end. Where only
//! the heartbeat reads them (MongoDB), a pass counts no later than the moment the heartbeat
//! that read its pauses was sent, and a pass run before any heartbeat read them counts not at
//! all. Lanes run passes side by side, so what is reported is also no later than what each
//! pass still running knows of the pauses. An operator who waits for every relay's
//! `last_pass_at` to pass a pause's `since` so knows nothing of the route is published
//! afterwards.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::PassReport;
use super::lag::LagHistogram;
use crate::fleet::{Pause, PauseSet};
use crate::store::PassTarget;

/// The pauses as last read, and what the heartbeat reports.
#[derive(Default)]
pub struct FleetView {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    pauses: PauseSet,
    /// When the heartbeat that read `pauses` was sent; `None` while the claim reads the pauses
    /// itself (or nothing was read).
    read_sent: Option<Instant>,
    /// The pauses are checked by the claim statement too.
    claim_checks: bool,
    last_pass: Option<Instant>,
    /// The passes running (lanes run side by side), each with what it knows of the pauses:
    /// those made before this instant (`None`: none).
    in_flight: HashMap<u64, Option<Instant>>,
    tickets: u64,
    published: u64,
    lag: LagHistogram,
    errors: HashMap<PassTarget, String>,
    /// The destinations down (as logs name them), and why.
    down: std::collections::BTreeMap<String, String>,
    metrics_addr: Option<String>,
    heartbeat_failures: u64,
    /// How old a reading of the pauses may be while the heartbeat has not run since: three of
    /// its intervals (`None`: no heartbeat).
    stale_after: Option<Duration>,
    /// When the heartbeat sent its last finished attempt, read or failed (its answer is as of
    /// then).
    last_beat: Option<Instant>,
    /// Why the relay could not start, once it could not.
    start_error: Option<String>,
}

/// Why a pass may not start.
#[derive(Debug, Clone)]
pub enum Held {
    /// The route (or its tenant) is paused.
    Paused(Pause),
    /// The pauses were read too long ago and the heartbeat has not run since (the process
    /// was stopped, `SIGSTOP`, or starved): the next heartbeat reads them first. A relay let
    /// go on after such a stop published a route paused meanwhile.
    Unread,
}

impl Inner {
    /// The pauses as last read cannot be trusted: read longer ago than three heartbeats, and
    /// no heartbeat has finished since (a heartbeat that runs and fails leaves passes going,
    /// as a failed heartbeat never fails a pass).
    fn pauses_unread(&self) -> bool {
        let (Some(stale), false) = (self.stale_after, self.claim_checks) else {
            return false;
        };
        let old = |t: Option<Instant>| t.is_some_and(|t| t.elapsed() > stale);
        old(self.read_sent) && old(self.last_beat)
    }

    /// A pass under `ticket` ends now: it counts no later than what it knew of the pauses.
    fn count_pass(&mut self, ticket: Ticket) {
        self.in_flight.remove(&ticket.id);
        let Some(knows) = ticket.knows else {
            return;
        };
        let counted = knows.min(Instant::now());
        self.last_pass = Some(self.last_pass.map_or(counted, |l| l.max(counted)));
    }

    /// A ticket for a pass starting now: it knows the pauses the claim reads (those made before
    /// now) or, without that, those the last heartbeat read.
    fn ticket(&mut self) -> Ticket {
        self.tickets += 1;
        let knows = if self.claim_checks {
            Some(Instant::now())
        } else {
            self.read_sent
        };
        Ticket {
            id: self.tickets,
            knows,
        }
    }

    /// The last pass as it may be reported: no later than what a pass still running knows.
    fn last_pass(&self) -> Option<Instant> {
        self.in_flight
            .values()
            .try_fold(self.last_pass?, |at, knows| Some(at.min((*knows)?)))
    }
}

/// A pass allowed to start: what [`FleetView::after_pass`] needs.
#[derive(Debug, Clone, Copy)]
pub struct Ticket {
    id: u64,
    /// The pauses the pass honours: those made before this instant (`None`: none).
    knows: Option<Instant>,
}

/// What a heartbeat reports, taken from the view (the lag window restarts).
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub last_pass: Option<Instant>,
    pub published: u64,
    pub last_error: Option<String>,
    pub lag_p99_ms: Option<f64>,
    pub metrics_addr: Option<String>,
}

impl FleetView {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The claim statement reads the pauses (PostgreSQL with the pauses table).
    pub fn claim_checks_pauses(&self) {
        self.lock().claim_checks = true;
    }

    /// The heartbeat reads the pauses every `every`.
    pub fn heartbeat_every(&self, every: Duration) {
        self.lock().stale_after = Some(every.saturating_mul(3));
    }

    /// The pauses a heartbeat sent at `sent` read back; the pauses that changed (paused, resumed).
    pub fn apply(&self, pauses: PauseSet, sent: Instant) -> (Vec<Pause>, Vec<Pause>) {
        let mut inner = self.lock();
        let paused = pauses
            .0
            .iter()
            .filter(|p| !inner.pauses.0.contains(p))
            .cloned()
            .collect();
        let resumed = inner
            .pauses
            .0
            .iter()
            .filter(|p| !pauses.0.contains(p))
            .cloned()
            .collect();
        inner.pauses = pauses;
        inner.read_sent = Some(sent);
        // as of when it was sent: a heartbeat sent before a SIGSTOP and answered after it
        // read the pauses before the stop (taken as fresh, the lanes published a route paused
        // meanwhile)
        inner.last_beat = Some(sent);
        (paused, resumed)
    }

    /// The pause holding `target`, if any, or pauses too old to trust; else the ticket of a
    /// pass that may start. A pass skipped for a pause counts as a pass in `last_pass_at`: the
    /// relay is up to date with the pauses then.
    pub fn before_pass(&self, target: &PassTarget) -> Result<Ticket, Held> {
        let mut inner = self.lock();
        if inner.pauses_unread() {
            return Err(Held::Unread);
        }
        let ticket = inner.ticket();
        match inner.pauses.find(&target.route, target.tenant).cloned() {
            Some(p) => {
                inner.count_pass(ticket);
                Err(Held::Paused(p))
            }
            None => {
                inner.in_flight.insert(ticket.id, ticket.knows);
                Ok(ticket)
            }
        }
    }

    /// The pass under `ticket` takes rows claimed ahead at `claimed` (`relay.claim_ahead`):
    /// their claim read the pauses then, so the pass knows none made later.
    pub fn claimed_at(&self, mut ticket: Ticket, claimed: Instant) -> Ticket {
        ticket.knows = ticket.knows.map(|k| k.min(claimed));
        self.lock().in_flight.insert(ticket.id, ticket.knows);
        ticket
    }

    /// Whether `target` is paused now.
    pub fn paused(&self, target: &PassTarget) -> Option<Pause> {
        self.lock()
            .pauses
            .find(&target.route, target.tenant)
            .cloned()
    }

    /// A pass allowed by `ticket` ended with `report`.
    pub fn after_pass(&self, target: &PassTarget, ticket: Ticket, report: &PassReport) {
        let mut inner = self.lock();
        inner.count_pass(ticket);
        inner.published += report.published as u64;
        for &s in &report.lag_seconds {
            inner.lag.record(s);
        }
        match (&report.error, report.committed) {
            (Some(e), false) => {
                inner.errors.insert(target.clone(), e.clone());
            }
            _ => {
                inner.errors.remove(target);
            }
        }
    }

    /// A lane's destination went down (`Some(reason)`) or came back (`None`).
    pub fn destination(&self, destination: &str, down: Option<&str>) {
        let mut inner = self.lock();
        match down {
            Some(reason) => {
                inner.down.insert(destination.into(), reason.into());
            }
            None => {
                inner.down.remove(destination);
            }
        }
    }

    /// Where `/metrics` is served, for the registry.
    pub fn set_metrics_addr(&self, addr: String) {
        self.lock().metrics_addr = Some(addr);
    }

    /// A heartbeat sent at `sent` failed (it never fails a pass): counted for `/metrics`.
    pub fn heartbeat_failed(&self, sent: Instant) {
        let mut inner = self.lock();
        inner.heartbeat_failures += 1;
        inner.last_beat = Some(inner.last_beat.map_or(sent, |b| b.max(sent)));
    }

    pub fn heartbeat_failures(&self) -> u64 {
        self.lock().heartbeat_failures
    }

    /// The pauses in force as last read.
    pub fn pauses(&self) -> PauseSet {
        self.lock().pauses.clone()
    }

    /// The relay could not start: `why` is its last error from now on.
    pub fn failed_to_start(&self, why: String) {
        self.lock().start_error = Some(why);
    }

    /// What the next heartbeat reports; the lag window starts again.
    pub fn report(&self) -> Report {
        let mut inner = self.lock();
        let lag = std::mem::take(&mut inner.lag);
        let mut errors: Vec<(&PassTarget, &String)> = inner.errors.iter().collect();
        errors.sort_by(|a, b| a.0.route.cmp(&b.0.route));
        // every destination down, while any is; else the first route's failed pass
        let down: Vec<String> = (inner.down.iter())
            .map(|(d, why)| format!("destination {d} is down: {why}"))
            .collect();
        let last_error = match (&inner.start_error, down.is_empty()) {
            (Some(why), _) => Some(format!("could not start: {why}")),
            (None, false) => Some(down.join("; ")),
            (None, true) => errors.first().map(|(t, e)| format!("{t}: {e}")),
        };
        Report {
            last_pass: inner.last_pass(),
            published: inner.published,
            last_error,
            lag_p99_ms: lag.quantile(0.99).map(|s| (s * 1e4).round() / 10.0),
            metrics_addr: inner.metrics_addr.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;
    use std::time::Duration;

    fn target(route: &str) -> PassTarget {
        PassTarget {
            route: route.into(),
            tenant: None,
        }
    }

    fn pause(route: &str) -> Pause {
        Pause {
            route: route.into(),
            tenant: None,
            reason: "consumer broken".into(),
            by: "ops@h".into(),
            since: Utc::now(),
        }
    }

    /// A pass that failed with `error`.
    fn failed(error: &str) -> PassReport {
        PassReport {
            error: Some(error.into()),
            ..PassReport::default()
        }
    }

    fn committed(published: usize) -> PassReport {
        PassReport {
            committed: true,
            published,
            ..PassReport::default()
        }
    }

    #[test]
    fn a_paused_route_gets_no_ticket_until_resumed() {
        let view = FleetView::default();
        let (paused, _) = view.apply(PauseSet(vec![pause("orders")]), Instant::now());
        assert_eq!(paused.len(), 1);
        assert!(view.before_pass(&target("orders")).is_err());
        assert!(view.before_pass(&target("billing")).is_ok());
        let (_, resumed) = view.apply(PauseSet::default(), Instant::now());
        assert_eq!(resumed.len(), 1);
        assert!(view.before_pass(&target("orders")).is_ok());
    }

    #[test]
    fn without_the_claims_check_a_pass_counts_no_later_than_its_pauses_read() {
        let view = FleetView::default();
        let sent = Instant::now();
        view.apply(PauseSet::default(), sent);
        let ticket = view.before_pass(&target("orders")).unwrap();
        std::thread::sleep(Duration::from_millis(30));
        view.after_pass(&target("orders"), ticket, &committed(3));
        let r = view.report();
        assert!(r.last_pass.unwrap().elapsed() >= sent.elapsed() - Duration::from_millis(1));
        assert_eq!(r.published, 3);
    }

    #[test]
    fn with_the_claims_check_a_pass_counts_when_it_ends() {
        let view = FleetView::default();
        view.claim_checks_pauses();
        view.apply(PauseSet::default(), Instant::now());
        std::thread::sleep(Duration::from_millis(30));
        let ticket = view.before_pass(&target("orders")).unwrap();
        view.after_pass(&target("orders"), ticket, &committed(1));
        assert!(view.report().last_pass.unwrap().elapsed() < Duration::from_millis(25));
    }

    /// A pass that takes rows claimed ahead knows the pauses as of their claim, not its start:
    /// a pause made in between may still be published by it.
    #[test]
    fn a_pass_on_rows_claimed_ahead_counts_no_later_than_their_claim() {
        let view = FleetView::default();
        view.claim_checks_pauses();
        view.apply(PauseSet::default(), Instant::now());
        let claimed = Instant::now()
            .checked_sub(Duration::from_millis(50))
            .unwrap();
        let ticket = view.before_pass(&target("orders")).unwrap();
        let ticket = view.claimed_at(ticket, claimed);
        view.after_pass(&target("orders"), ticket, &committed(1));
        assert_eq!(view.report().last_pass, Some(claimed));
    }

    #[test]
    fn a_pass_on_another_lane_counts_no_later_than_what_a_running_one_knows() {
        let view = FleetView::default();
        // two heartbeats' reads, 30 ms apart, both before now
        let ago = |ms| {
            Instant::now()
                .checked_sub(Duration::from_millis(ms))
                .unwrap()
        };
        let (first_read, second_read) = (ago(60), ago(30));
        view.apply(PauseSet::default(), first_read);
        // lane A's pass starts knowing the first read, and runs on
        let slow = view.before_pass(&target("orders")).unwrap();
        view.apply(PauseSet::default(), second_read);
        // lane B's pass starts and ends knowing the second read
        let fast = view.before_pass(&target("billing")).unwrap();
        view.after_pass(&target("billing"), fast, &committed(1));
        assert_eq!(
            view.report().last_pass,
            Some(first_read),
            "lane A still runs"
        );
        view.after_pass(&target("orders"), slow, &committed(1));
        assert_eq!(view.report().last_pass, Some(second_read));
    }

    #[test]
    fn a_pass_before_any_pauses_were_read_does_not_count() {
        let view = FleetView::default();
        let t = target("orders");
        view.after_pass(&t, view.before_pass(&t).unwrap(), &committed(1));
        assert_eq!(view.report().last_pass, None);
        view.apply(PauseSet::default(), Instant::now());
        view.after_pass(&t, view.before_pass(&t).unwrap(), &committed(1));
        assert!(view.report().last_pass.is_some());
    }

    #[test]
    fn a_failed_pass_is_the_last_error_until_its_route_commits() {
        let view = FleetView::default();
        let t = target("orders");
        view.after_pass(&t, view.before_pass(&t).unwrap(), &failed("broker said no"));
        assert_eq!(
            view.report().last_error.as_deref(),
            Some("orders: broker said no")
        );
        view.after_pass(&t, view.before_pass(&t).unwrap(), &committed(1));
        assert_eq!(view.report().last_error, None);
    }

    #[test]
    fn pauses_read_by_a_heartbeat_sent_before_a_stop_are_not_fresh_when_it_answers() {
        let view = FleetView::default();
        view.heartbeat_every(Duration::from_millis(100));
        let t = target("orders");
        // sent, then the process stopped a second (SIGSTOP), then the answer: as of the send
        let sent = Instant::now() - Duration::from_secs(1);
        view.apply(PauseSet::default(), sent);
        assert!(matches!(view.before_pass(&t), Err(Held::Unread)));
        view.heartbeat_failed(sent);
        assert!(
            matches!(view.before_pass(&t), Err(Held::Unread)),
            "nor a failed one"
        );
        view.apply(PauseSet::default(), Instant::now());
        assert!(view.before_pass(&t).is_ok(), "a heartbeat sent since");
    }

    #[test]
    fn a_destination_down_is_the_last_error_while_it_is() {
        let view = FleetView::default();
        let t = target("orders");
        view.after_pass(&t, view.before_pass(&t).unwrap(), &failed("broker said no"));
        view.destination("nats://broker:4222", Some("connection refused"));
        view.destination("file:/tmp/x", Some("no reader"));
        assert_eq!(
            view.report().last_error.as_deref(),
            Some(
                "destination file:/tmp/x is down: no reader; destination nats://broker:4222 is down: connection refused"
            ),
            "each destination down"
        );
        view.destination("file:/tmp/x", None);
        view.destination("nats://broker:4222", None);
        assert_eq!(
            view.report().last_error.as_deref(),
            Some("orders: broker said no"),
            "back up: the failed pass's error again"
        );
    }
}
