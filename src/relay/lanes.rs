//! The relay over its routes: routes that share a destination form a **lane** with a store
//! connection of its own, and lanes run side by side, so a destination that stalls or goes
//! away holds up only its own routes. A lane whose destination is away is **down**: its
//! routes claim nothing while a cheap probe (publishing nothing) backs off from `interval` to
//! `retry_max_backoff`; they resume once it answers. A database that cannot be reached (or a
//! connection lost) is no route's failure either: no route backs off; the lane asks the
//! database again every 100 ms doubling to 1 s, and the first answer resumes every route of
//! every lane. Also the one-shot drain, route backoff after failed passes, and the shutdown
//! drain. No terminal code here.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::join_all;
use rand::Rng;

use super::backoff::{self, Back, down_wait};
use super::engine::{Ahead, PassOptions, PassReport, RelaySettings, probe, probe_timeout};
use super::fleet::FleetView;
pub use super::route_stats::RouteStats;
pub use super::shutdown::Shutdown;
use super::shutdown::StopWatch;
use crate::destination::{Publisher, Sink};
use crate::store::{PassTarget, RelayStore};
use crate::wake::WakeSignal;

/// What the looping relay tells its caller (metrics, logs). Called from every lane.
pub trait RelayEvents: Sync {
    /// After each pass.
    fn pass(&self, _target: &PassTarget, _report: &PassReport) {}
    /// After each tick of a lane, with its routes' totals for that tick.
    fn tick(&self, _stats: &[RouteStats]) {}
    /// A lane's destination (serving `routes`) went down (`Some(reason)`) or came back (`None`).
    fn destination(&self, _destination: &str, _routes: &[PassTarget], _down: Option<&str>) {}
    /// The database went away (`Some(reason)`) or answers again (`None`).
    fn database(&self, _away: Option<&str>) {}
    /// A lane waits out the database's absence (no tick runs meanwhile).
    fn waiting(&self) {}
}

impl RelayEvents for () {}

/// Routes that share one destination, served through a store connection of their own.
pub struct Lane<S> {
    pub store: S,
    /// A second connection that claims each route's next batch while a pass delivers its own
    /// (`relay.claim_ahead`).
    pub ahead: Option<S>,
    /// The destination as logs and metrics name it (password masked).
    pub destination: String,
    pub routes: Vec<(PassTarget, Sink)>,
    /// Each route's `dead_letter_to:` destination, by route name.
    pub dead_letters: HashMap<String, Arc<dyn Publisher>>,
    /// Wakes the lane before its interval is over (`relay.wake`).
    pub wake: Arc<WakeSignal>,
}

/// Why a lane's destination (or its database) is down, and when to ask again.
#[derive(Debug, Clone)]
struct Down {
    reason: String,
    wait: Duration,
    next_probe: Instant,
    since: Instant,
}

/// While the database is away a lane asks it again after this long, doubling up to
/// [`DATABASE_PROBE_CAP`]: an outage is not a failing route, so no route backs off, and the
/// first answer resumes every route within about a second.
pub const DATABASE_PROBE_FIRST: Duration = Duration::from_millis(100);
pub const DATABASE_PROBE_CAP: Duration = Duration::from_secs(1);

/// Whether a pass was cut by its statement or lock limit.
fn timed_out(error: &str) -> bool {
    ["due to statement timeout", "due to lock timeout"]
        .iter()
        .any(|t| error.contains(t))
}

/// What a pass cut by its statement or lock limit most often waited on: the sessions holding
/// its tables locked (`holders`, as the store read them right after), or where to see them
/// (the relay said only that the statement was cancelled).
fn timed_out_hint(error: &str, holders: Option<&str>) -> Option<String> {
    timed_out(error).then(|| match holders {
        Some(who) => format!(
            "the table is locked by {who}: end that transaction, or let it finish, and the passes go on"
        ),
        None => "a lock held on the table (an ALTER TABLE or LOCK TABLE left open)? `outboxctl doctor` names who holds it".into(),
    })
}

impl Down {
    /// A destination found down: probed again after `wait`.
    fn destination(reason: &str, wait: Duration) -> Self {
        Down {
            reason: reason.to_owned(),
            wait,
            next_probe: Instant::now() + wait,
            since: Instant::now(),
        }
    }

    fn database(reason: &str) -> Self {
        Down {
            reason: reason.to_owned(),
            wait: DATABASE_PROBE_FIRST,
            next_probe: Instant::now() + DATABASE_PROBE_FIRST,
            since: Instant::now(),
        }
    }
}

impl<S: RelayStore> Lane<S> {
    /// The distinct publishers of the lane (a route served for several tenants shares one).
    fn publishers(&self) -> Vec<Arc<dyn Publisher>> {
        let mut out: Vec<Arc<dyn Publisher>> = Vec::new();
        for (_, sink) in &self.routes {
            if let Sink::Publisher(p) = sink {
                if !out.iter().any(|q| Arc::ptr_eq(q, p)) {
                    out.push(p.clone());
                }
            }
        }
        out
    }

    /// Probes every publisher of the lane; the first that does not answer says why.
    async fn probe(&self, settings: &RelaySettings) -> Option<String> {
        for p in self.publishers() {
            if let Some(reason) = probe(p.as_ref(), probe_timeout(settings, p.as_ref())).await {
                return Some(reason);
            }
        }
        None
    }

    /// `--once` for this lane: each route until a claim comes back short (or `max_passes`).
    /// A failed pass ends that route's drain; a destination found away ends the lane's. After
    /// `shutdown` no pass starts; the one in flight stops publishing four fifths into
    /// `shutdown_drain_timeout`, marks and commits, and is cut at its end.
    async fn drain_once(
        &mut self,
        settings: &RelaySettings,
        fleet: &FleetView,
        max_passes: Option<u64>,
        on_pass: &mut impl FnMut(&PassTarget, &PassReport),
        shutdown: &Shutdown,
    ) -> Vec<RouteStats> {
        let stop = StopWatch::new(shutdown, settings.shutdown_drain_timeout);
        let mut down: Option<String> = None;
        // whether the destination's state is known: a route sent it rows, or it was asked
        let mut known = false;
        let mut all = Vec::new();
        for (target, sink) in &self.routes {
            let started = Instant::now();
            let mut stats = RouteStats::new(target);
            stats.paused = fleet.paused(target);
            let mut prior: Option<Ahead> = None;
            while down.is_none() && !shutdown.is_stopped() {
                let Some(ticket) = ticket(fleet, target, prior.as_ref()) else {
                    break;
                };
                let reclaim = stats.passes == 0;
                let dead_letter = self.dead_letters.get(&target.route).cloned();
                let mut pass =
                    PassRun::watched(target, sink, settings, reclaim, &stop, dead_letter);
                // a pass follows unless this is the last one allowed
                pass.ahead = max_passes.is_none_or(|m| stats.passes + 1 < m);
                let cut = stop.drain_over();
                let Some(report) =
                    pass_unless_cut(&mut self.store, self.ahead.as_mut(), &mut prior, pass, cut)
                        .await
                else {
                    stats.finish(started.elapsed());
                    all.push(stats);
                    return all;
                };
                fleet.after_pass(target, ticket, &report);
                stats.add(&report);
                on_pass(target, &report);
                down.clone_from(&report.down);
                if !report.committed
                    || report.short
                    || report.down.is_some()
                    || max_passes.is_some_and(|m| stats.passes >= m)
                {
                    break;
                }
            }
            release_ahead(self.ahead.as_mut(), target, prior, &mut [&mut stats]).await;
            // nothing to send says nothing of the destination: a drain that sent it nothing
            // asks it once (a broker down at start with no rows pending exited 0, unsaid)
            known |= stats.claimed > 0 || shutdown.is_stopped();
            if let (Sink::Publisher(p), None, false) = (sink, &down, known) {
                if stats.paused.is_none() {
                    known = true;
                    down = probe(p.as_ref(), probe_timeout(settings, p.as_ref())).await;
                }
            }
            stats.destination_down.clone_from(&down);
            stats.finish(started.elapsed());
            all.push(stats);
        }
        // the registry's last word says it (a cron run's row showed no error)
        fleet.destination(&self.destination, down.as_deref());
        all
    }

    /// Asks the database whether it answers again, when the wait is over (or `now`, after a
    /// wake: a wake-up listener that reconnected is an answer too). `true` once it answers:
    /// every lane (`lanes`) then runs every route.
    async fn probe_database(
        &mut self,
        away: &mut Option<Down>,
        now: bool,
        events: &dyn RelayEvents,
        lanes: &crate::wake::Wakers,
    ) -> bool {
        let Some(d) = away.as_mut() else {
            return true;
        };
        if !now && Instant::now() < d.next_probe {
            return false;
        }
        match self.store.probe().await {
            Ok(()) => {
                tracing::info!(
                    "the database answers again after {:.1}s away: every route resumes",
                    d.since.elapsed().as_secs_f64()
                );
                events.database(None);
                *away = None;
                lanes.all();
                true
            }
            Err(e) => {
                d.wait = (d.wait * 2).min(DATABASE_PROBE_CAP);
                d.next_probe = Instant::now() + d.wait;
                tracing::debug!("the database is still away: {e}");
                false
            }
        }
    }

    /// The lane's share of `--loop`: ticks until `shutdown`, then its shutdown drain. `lanes`
    /// wakes every lane (the database answered one of them again).
    async fn run_loop(
        &mut self,
        settings: &RelaySettings,
        fleet: &FleetView,
        shutdown: &Shutdown,
        events: &dyn RelayEvents,
        lanes: &crate::wake::Wakers,
    ) -> Vec<RouteStats> {
        let mut totals: Vec<RouteStats> = self
            .routes
            .iter()
            .map(|(t, _)| RouteStats::new(t))
            .collect();
        let mut failures: HashMap<PassTarget, (u32, Instant)> = HashMap::new();
        let mut down: Option<Down> = None;
        let mut database_away: Option<Down> = None;
        let mut woken = false;
        let probe_cap = settings.retry_max_backoff.max(settings.interval);
        // after a wake: the routes it named (a tick on the interval serves them all)
        let mut only: Option<std::collections::HashSet<String>> = None;
        // when the next tick of every route is due: wakes in between serve only the routes
        // they name and do not put it off, so busy routes cannot starve their lane's others
        let mut next_full = Instant::now();
        // when the destination last came back, and the wait it had (see `down_wait`)
        let mut back: Option<Back> = None;
        let targets: Vec<PassTarget> = self.routes.iter().map(|(t, _)| t.clone()).collect();
        let stop = StopWatch::new(shutdown, settings.shutdown_drain_timeout);
        // a destination away at start is down from the start: readiness and its gauge say so
        // before any row is claimed (a quiet route would otherwise never find out); a stop
        // meanwhile does not wait for its answer
        let Some(first) = shutdown.unless_stopped(self.probe(settings)).await else {
            return totals;
        };
        events.destination(&self.destination, &targets, first.as_deref());
        if let Some(reason) = first {
            tracing::warn!(destination = %self.destination, "destination down, its routes wait: {reason}");
            down = Some(Down::destination(&reason, settings.interval));
        }
        while !shutdown.is_stopped() {
            let was_away = database_away.is_some();
            // a probe of a database that does not answer must not hold the stop
            let probed = tokio::select! {
                answers = self.probe_database(
                    &mut database_away,
                    std::mem::take(&mut woken),
                    events,
                    lanes,
                ) => answers,
                () = shutdown.stopped() => break,
            };
            if probed {
                if was_away {
                    // back: every route runs now
                    only = None;
                }
            } else {
                events.waiting();
                let wait = database_away.as_ref().map_or(settings.interval, |d| {
                    d.next_probe.saturating_duration_since(Instant::now())
                });
                tokio::select! {
                    stopped = shutdown.sleep(wait) => if stopped { break },
                    // a wake of every route (a listener that reconnected, the database back for
                    // another lane) is an answer; a route's notification (a direct wake_url
                    // behind a pooler that is away) does not cut the probe's wait short
                    () = self.wake.notified() => woken = self.wake.take().is_none(),
                }
                continue;
            }
            // A destination that is down is probed when its wait is over.
            if down
                .as_ref()
                .is_some_and(|d| Instant::now() >= d.next_probe)
            {
                let Some(probed) = shutdown.unless_stopped(self.probe(settings)).await else {
                    break;
                };
                match (probed, down.take()) {
                    (None, was) => {
                        tracing::info!(destination = %self.destination, "destination is back: its routes resume");
                        events.destination(&self.destination, &targets, None);
                        back = was.map(|d| Back {
                            at: Instant::now(),
                            wait: d.wait,
                        });
                    }
                    (Some(reason), was) => {
                        let wait = was
                            .as_ref()
                            .map_or(settings.interval, |d| (d.wait * 2).min(probe_cap));
                        if was.as_ref().is_none_or(|d| d.reason != reason) {
                            tracing::warn!(destination = %self.destination, "destination down, its routes wait: {reason}");
                            events.destination(&self.destination, &targets, Some(&reason));
                        } else {
                            tracing::debug!(destination = %self.destination, "destination still down: {reason}");
                        }
                        down = Some(Down {
                            reason,
                            wait,
                            next_probe: Instant::now() + wait,
                            since: was.map_or_else(Instant::now, |d| d.since),
                        });
                    }
                }
            }
            let mut tick: Vec<RouteStats> = Vec::new();
            if down.is_none() {
                for (idx, (target, sink)) in self.routes.iter().enumerate() {
                    if only.as_ref().is_some_and(|o| !o.contains(&target.route)) {
                        continue;
                    }
                    if failures
                        .get(target)
                        .is_some_and(|(_, until)| Instant::now() < *until)
                    {
                        continue;
                    }
                    let mut stats = RouteStats::new(target);
                    let tick_started = Instant::now();
                    let mut prior: Option<Ahead> = None;
                    for n in 0..settings.max_batches_per_tick {
                        if shutdown.is_stopped() {
                            break;
                        }
                        // a paused route claims nothing from its next pass on
                        let Some(ticket) = ticket(fleet, target, prior.as_ref()) else {
                            break;
                        };
                        let dead_letter = self.dead_letters.get(&target.route).cloned();
                        let mut pass =
                            PassRun::watched(target, sink, settings, n == 0, &stop, dead_letter);
                        pass.ahead = n + 1 < settings.max_batches_per_tick;
                        let cut = stop.drain_over();
                        let Some(report) = pass_unless_cut(
                            &mut self.store,
                            self.ahead.as_mut(),
                            &mut prior,
                            pass,
                            cut,
                        )
                        .await
                        else {
                            return totals;
                        };
                        fleet.after_pass(target, ticket, &report);
                        stats.add(&report);
                        totals[idx].add(&report);
                        events.pass(target, &report);
                        if let Some(reason) = &report.database_away {
                            // not this route's failure: no backoff; every route waits for
                            // the database's answer
                            tracing::warn!(route = %target, "the database is away, every route waits (no failure backoff) and it is asked again every {} at most: {reason}", crate::duration::Dur(DATABASE_PROBE_CAP));
                            events.database(Some(reason));
                            database_away = Some(Down::database(reason));
                            break;
                        }
                        if let Some(reason) = &report.down {
                            let wait = down_wait(
                                back.take(),
                                Instant::now(),
                                settings.interval,
                                probe_cap,
                            );
                            tracing::warn!(destination = %self.destination, route = %target, "destination down, its routes wait: {reason} (asked again in {})", crate::duration::Dur(wait));
                            events.destination(&self.destination, &targets, Some(reason));
                            down = Some(Down::destination(reason, wait));
                            break;
                        }
                        if !report.committed {
                            let count = failures.get(target).map_or(0, |(n, _)| *n) + 1;
                            let wait = backoff::route_backoff(
                                count,
                                settings.interval,
                                settings.retry_max_backoff,
                            );
                            failures.insert(target.clone(), (count, Instant::now() + wait));
                            let error = report.error.as_deref().unwrap_or("unknown error");
                            let holders = match timed_out(error) {
                                true => self.store.lock_holders(target).await,
                                false => None,
                            };
                            let fix = (crate::schema::desired::consume_only_hint(error))
                                .or_else(|| timed_out_hint(error, holders.as_deref()))
                                .map_or_else(String::new, |fix| format!("; {fix}"));
                            tracing::warn!(
                                route = %target, failures = count, backoff_ms = wait.as_millis() as u64,
                                "pass failed, backing off: {error}{fix}"
                            );
                            break;
                        }
                        failures.remove(target);
                        if report.short {
                            break;
                        }
                    }
                    let both = &mut [&mut stats, &mut totals[idx]];
                    release_ahead(self.ahead.as_mut(), target, prior, both).await;
                    stats.finish(tick_started.elapsed());
                    tick.push(stats);
                    if down.is_some() || database_away.is_some() {
                        break;
                    }
                }
            }
            events.tick(&tick);
            if only.is_none() {
                let u: f64 = rand::thread_rng().r#gen();
                next_full =
                    Instant::now() + backoff::jittered(settings.interval, settings.jitter, u);
            }
            let mut sleep = next_full.saturating_duration_since(Instant::now());
            for d in [&down, &database_away].into_iter().flatten() {
                sleep = sleep.min(d.next_probe.saturating_duration_since(Instant::now()));
            }
            tokio::select! {
                stopped = shutdown.sleep(sleep) => {
                    if stopped {
                        break;
                    }
                    only = None;
                }
                () = self.wake.notified() => {
                    only = self.wake.take();
                    woken = true;
                }
            }
        }
        if settings.drain_on_shutdown && down.is_none() && database_away.is_none() {
            let drained = self.shutdown_drain(settings, fleet, shutdown, events).await;
            for (t, d) in totals.iter_mut().zip(drained) {
                t.merge(&d);
            }
        }
        // down at the end: said of each of its routes (one down the whole run ran no pass
        // that would say so, and the summary named none)
        if let Some(d) = &down {
            totals
                .iter_mut()
                .for_each(|t| t.destination_down = Some(d.reason.clone()));
        }
        totals
    }

    /// Strict passes for at most `shutdown_drain_timeout`: no reclaim, one delivery attempt
    /// per row (a route stops after a pass that retried or failed a row), and publishing stops
    /// when a fifth of the remaining budget is left, so the last pass commits.
    async fn shutdown_drain(
        &mut self,
        settings: &RelaySettings,
        fleet: &FleetView,
        shutdown: &Shutdown,
        events: &dyn RelayEvents,
    ) -> Vec<RouteStats> {
        let end =
            shutdown.stopped_at().unwrap_or_else(Instant::now) + settings.shutdown_drain_timeout;
        let cut = shutdown.drain_over(settings.shutdown_drain_timeout);
        tokio::pin!(cut);
        let mut out = Vec::new();
        let mut down = false;
        for (target, sink) in &self.routes {
            let mut stats = RouteStats::new(target);
            loop {
                let now = Instant::now();
                if now >= end || down {
                    break;
                }
                let Ok(ticket) = fleet.before_pass(target) else {
                    break;
                };
                let stop = now + (end - now).mul_f64(0.8);
                let options = PassOptions {
                    reclaim: false,
                    stop_publishing_at: Some(stop),
                    stop: None,
                    dead_letter: self.dead_letters.get(&target.route).cloned(),
                };
                let pass = PassRun {
                    target,
                    sink,
                    settings,
                    options,
                    ahead: false,
                };
                let Some(report) =
                    pass_unless_cut(&mut self.store, None, &mut None, pass, cut.as_mut()).await
                else {
                    out.push(stats);
                    return out;
                };
                fleet.after_pass(target, ticket, &report);
                stats.add(&report);
                events.pass(target, &report);
                down = report.down.is_some();
                if !report.committed || report.short || report.retried > 0 || report.failed > 0 {
                    break;
                }
            }
            out.push(stats);
        }
        out
    }
}

#[path = "lanes_pass.rs"]
mod pass;
use pass::{PassRun, pass_unless_cut, release_ahead, ticket};

/// The relay: its lanes (one per destination) and settings.
pub struct Relay<S> {
    pub lanes: Vec<Lane<S>>,
    pub settings: RelaySettings,
    /// The pauses in force and what the heartbeat reports.
    pub fleet: Arc<FleetView>,
}

impl<S: RelayStore> Relay<S> {
    /// One lane over one store (a single destination, or a caller that needs no isolation).
    pub fn single(store: S, routes: Vec<(PassTarget, Sink)>, settings: RelaySettings) -> Self {
        Self {
            lanes: vec![Lane {
                store,
                ahead: None,
                destination: String::new(),
                routes,
                dead_letters: HashMap::new(),
                wake: Arc::default(),
            }],
            settings,
            fleet: Arc::default(),
        }
    }

    /// Each lane's wake-up and the routes it serves: what a listener wakes.
    pub fn wakers(&self) -> crate::wake::Wakers {
        crate::wake::Wakers(
            self.lanes
                .iter()
                .map(|l| {
                    let mut routes: Vec<String> =
                        l.routes.iter().map(|(t, _)| t.route.clone()).collect();
                    routes.dedup();
                    (routes, l.wake.clone())
                })
                .collect(),
        )
    }

    /// Every route served, lane by lane.
    pub fn targets(&self) -> Vec<PassTarget> {
        self.lanes
            .iter()
            .flat_map(|l| l.routes.iter().map(|(t, _)| t.clone()))
            .collect()
    }

    /// `--once`: drains each route until a claim comes back short (or `max_passes`); a failed
    /// pass ends that route's drain; a destination that is away is reported, not retried.
    pub async fn drain_once(
        &mut self,
        max_passes: Option<u64>,
        on_pass: impl FnMut(&PassTarget, &PassReport),
    ) -> Vec<RouteStats> {
        self.drain_once_until(max_passes, on_pass, &Shutdown::default())
            .await
    }

    /// [`Relay::drain_once`] that `shutdown` stops: no pass starts after it, and the one in
    /// flight ends as a looping relay's does in its shutdown drain (`shutdown_drain_timeout`).
    pub async fn drain_once_until(
        &mut self,
        max_passes: Option<u64>,
        mut on_pass: impl FnMut(&PassTarget, &PassReport),
        shutdown: &Shutdown,
    ) -> Vec<RouteStats> {
        let (settings, fleet) = (&self.settings, &self.fleet);
        let mut all = Vec::new();
        for lane in &mut self.lanes {
            let drained = lane.drain_once(settings, fleet, max_passes, &mut on_pass, shutdown);
            all.extend(drained.await);
            if shutdown.is_stopped() {
                break;
            }
        }
        all
    }

    /// `--loop`: every lane ticks on its own until `shutdown`, then drains. Failed passes back
    /// their route off (`route_backoff`); a committed pass resets it; waking early does not.
    pub async fn run_loop(
        &mut self,
        shutdown: &Shutdown,
        events: &dyn RelayEvents,
    ) -> Vec<RouteStats> {
        let started = Instant::now();
        let wakers = self.wakers();
        let settings = &self.settings;
        let fleet = &*self.fleet;
        let lanes = self
            .lanes
            .iter_mut()
            .map(|lane| lane.run_loop(settings, fleet, shutdown, events, &wakers));
        let mut totals: Vec<RouteStats> = join_all(lanes).await.into_iter().flatten().collect();
        for t in &mut totals {
            t.finish(started.elapsed());
        }
        totals
    }
}

#[cfg(test)]
#[path = "lanes_tests.rs"]
mod tests;
