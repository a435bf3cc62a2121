//! The relay's algorithm, once, over any [`RelayStore`] and [`Sink`]: a pass (claim, publish
//! in chunks of 32 with many publishes in flight but one key at a time, mark), the one-shot
//! drain, the looping relay with route backoff, and the shutdown drain.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use futures_util::future::join_all;
use rand::Rng;
use serde::Serialize;
use tokio::sync::watch;

use super::backoff::{self, RetryDecision};
use super::destination::{PublishError, Publisher, Sink};
use crate::config::{Config, KeyOrder, Storage};
use crate::model::{Message, OutboxRow};
use crate::store::{PassTarget, RelayStore, StoreError};

/// Marks go in chunks of this many ids; in retain storage it is also the most rows ever
/// published but not yet marked.
pub const MARK_CHUNK: usize = 32;

#[derive(Debug, Clone)]
pub struct RelaySettings {
    pub storage: Storage,
    pub max_claim_rows: u32,
    pub max_batches_per_tick: u32,
    pub pass_deadline: Duration,
    pub reclaim_stale_after: Option<Duration>,
    pub max_attempts: u32,
    pub retry_base_delay: Duration,
    pub retry_max_backoff: Duration,
    pub publish_timeout: Option<Duration>,
    pub interval: Duration,
    pub jitter: f64,
    pub drain_on_shutdown: bool,
    pub shutdown_drain_timeout: Duration,
    pub key_order: KeyOrder,
    /// Publish one message at a time, as the reference relay does (benchmark baseline).
    pub one_at_a_time: bool,
}

impl RelaySettings {
    pub fn from_config(config: &Config) -> Self {
        let r = &config.relay;
        Self {
            storage: config.outbox.storage,
            max_claim_rows: r.max_claim_rows,
            max_batches_per_tick: r.max_batches_per_tick,
            pass_deadline: r.pass_deadline,
            reclaim_stale_after: r.reclaim_stale_after,
            max_attempts: r.max_attempts,
            retry_base_delay: r.retry_base_delay,
            retry_max_backoff: r.retry_max_backoff,
            publish_timeout: r.publish_timeout,
            interval: r.interval,
            jitter: r.jitter,
            drain_on_shutdown: r.drain_on_shutdown,
            shutdown_drain_timeout: r.shutdown_drain_timeout,
            key_order: r.key_order,
            one_at_a_time: false,
        }
    }
}

/// How one pass runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct PassOptions {
    /// Run reclaim before the claim (the first pass of a tick or a drain).
    pub reclaim: bool,
    /// Start no publish after this instant (consume storage always has one: `pass_deadline`).
    pub stop_publishing_at: Option<Instant>,
}

/// What one pass did.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct PassReport {
    pub reclaimed: u64,
    pub claimed: usize,
    pub published: usize,
    pub retried: usize,
    pub failed: usize,
    /// Claimed but not published nor attempted: held back by strict key order, or not
    /// reached before the deadline (consume: untouched; retain: released to pending).
    pub untouched: usize,
    /// The claim came back short: nothing more to claim right now.
    pub short: bool,
    pub committed: bool,
    pub error: Option<String>,
    /// Seconds each completed publish took (for the latency histogram).
    #[serde(skip)]
    pub publish_seconds: Vec<f64>,
}

pub type PassOutcome = Result<PassReport, PassReport>;

#[derive(Debug, Clone)]
enum Outcome {
    NotReached,
    Published,
    HeldBack,
    Failed(PublishError),
    Poison(String),
}

/// Runs one pass and commits it (or rolls it back on any store error).
pub async fn run_pass<S: RelayStore>(
    store: &mut S,
    target: &PassTarget,
    sink: &Sink,
    settings: &RelaySettings,
    options: PassOptions,
) -> PassReport {
    let mut report = PassReport::default();
    let result = pass_body(store, target, sink, settings, options, &mut report).await;
    match result {
        Ok(()) => match store.commit_pass().await {
            Ok(()) => report.committed = true,
            Err(e) => {
                report.error = Some(e.to_string());
                store.rollback_pass().await;
            }
        },
        Err(e) => {
            report.error = Some(e.to_string());
            store.rollback_pass().await;
        }
    }
    if !report.committed && settings.storage == Storage::Consume {
        // The whole pass rolled back: nothing it did stands.
        report.published = 0;
        report.retried = 0;
        report.failed = 0;
    }
    report
}

async fn pass_body<S: RelayStore>(
    store: &mut S,
    target: &PassTarget,
    sink: &Sink,
    settings: &RelaySettings,
    options: PassOptions,
    report: &mut PassReport,
) -> Result<(), StoreError> {
    store.begin_pass(target).await?;
    let began = Instant::now();
    let deadline = match settings.storage {
        Storage::Consume => Some(
            options
                .stop_publishing_at
                .map_or(began + settings.pass_deadline, |d| {
                    d.min(began + settings.pass_deadline)
                }),
        ),
        Storage::Retain => options.stop_publishing_at,
    };
    if options.reclaim {
        if let Some(stale) = settings.reclaim_stale_after {
            let older_than =
                Utc::now() - chrono::Duration::from_std(stale).unwrap_or(chrono::Duration::MAX);
            report.reclaimed = store.reclaim(target, older_than).await?;
        }
    }
    let claimed = store
        .claim(target, settings.max_claim_rows, Utc::now())
        .await?;
    let rows = claimed.rows;
    report.claimed = rows.len();
    report.short = claimed.candidates < settings.max_claim_rows as usize;

    let mut outcomes: Vec<Outcome> = vec![Outcome::NotReached; rows.len()];
    let messages: Vec<Option<Arc<Message>>> = rows
        .iter()
        .enumerate()
        .map(|(i, row)| match Message::from_row(row) {
            Ok(m) => Some(Arc::new(m)),
            Err(e) => {
                outcomes[i] = Outcome::Poison(format!("payload is not valid JSON: {e}"));
                None
            }
        })
        .collect();
    let strict = settings.key_order == KeyOrder::Strict;
    let mut blocked_keys: HashSet<String> = HashSet::new();

    // How many rows are published before their marks. Retain: one mark chunk, so a crash
    // republishes at most 32. Consume: the whole claim, since the pass's transaction already
    // bounds what a crash republishes to the claim; marks still go 32 ids at a time.
    let window = match (settings.storage, sink) {
        (Storage::Consume, Sink::Publisher(p)) if !p.serial() && !settings.one_at_a_time => {
            rows.len().max(1)
        }
        _ => MARK_CHUNK,
    };
    for start in (0..rows.len()).step_by(window) {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let chunk: Vec<usize> = (start..(start + window).min(rows.len()))
            .filter(|&i| messages[i].is_some())
            .collect();
        match sink {
            Sink::Table(table) => {
                let msgs: Vec<&Message> = chunk
                    .iter()
                    .map(|&i| messages[i].as_deref().expect("built"))
                    .collect();
                if !msgs.is_empty() {
                    store.insert_sink(table, &msgs, Utc::now()).await?;
                }
                for &i in &chunk {
                    outcomes[i] = Outcome::Published;
                }
            }
            Sink::Publisher(publisher) => {
                let results = publish_chunk(
                    publisher,
                    &rows,
                    &messages,
                    &chunk,
                    settings,
                    deadline,
                    strict,
                    &blocked_keys,
                )
                .await;
                let mut any_published = false;
                for (i, outcome, seconds) in results {
                    report.publish_seconds.extend(seconds);
                    if strict && matches!(outcome, Outcome::Failed(_) | Outcome::HeldBack) {
                        blocked_keys.insert(rows[i].key());
                    }
                    any_published |= matches!(outcome, Outcome::Published);
                    outcomes[i] = outcome;
                }
                if any_published {
                    if let Err(e) = publisher.flush().await {
                        for &i in &chunk {
                            if matches!(outcomes[i], Outcome::Published) {
                                outcomes[i] = Outcome::Failed(e.clone());
                            }
                        }
                    }
                }
            }
        }
        let ids: Vec<uuid::Uuid> = chunk
            .iter()
            .filter(|&&i| matches!(outcomes[i], Outcome::Published))
            .map(|&i| rows[i].id)
            .collect();
        for marks in ids.chunks(MARK_CHUNK) {
            store.mark_published(target, marks, Utc::now()).await?;
            report.published += marks.len();
        }
    }
    finish_marks(store, target, settings, &rows, &outcomes, report).await
}

/// Publishes one chunk: rows of one key strictly in claim order, different keys concurrently
/// (or everything in claim order for a serial destination or `one_at_a_time`).
#[allow(clippy::too_many_arguments)]
async fn publish_chunk(
    publisher: &Arc<dyn Publisher>,
    rows: &[OutboxRow],
    messages: &[Option<Arc<Message>>],
    chunk: &[usize],
    settings: &RelaySettings,
    deadline: Option<Instant>,
    strict: bool,
    blocked: &HashSet<String>,
) -> Vec<(usize, Outcome, Option<f64>)> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    if publisher.serial() || settings.one_at_a_time {
        groups.push(chunk.to_vec());
    } else {
        let mut by_key: HashMap<String, usize> = HashMap::new();
        for &i in chunk {
            let key = rows[i].key();
            match by_key.get(&key) {
                Some(&g) => groups[g].push(i),
                None => {
                    by_key.insert(key, groups.len());
                    groups.push(vec![i]);
                }
            }
        }
    }
    let futures = groups.into_iter().map(|group| {
        let publisher = publisher.clone();
        async move {
            let mut out = Vec::with_capacity(group.len());
            let mut failed_keys: HashSet<String> = HashSet::new();
            for i in group {
                let key = rows[i].key();
                if strict && (blocked.contains(&key) || failed_keys.contains(&key)) {
                    out.push((i, Outcome::HeldBack, None));
                    continue;
                }
                let now = Instant::now();
                if deadline.is_some_and(|d| now >= d) {
                    out.push((i, Outcome::NotReached, None));
                    continue;
                }
                let limit = match (deadline, settings.publish_timeout) {
                    (Some(d), Some(t)) => Some(d.min(now + t)),
                    (Some(d), None) => Some(d),
                    (None, Some(t)) => Some(now + t),
                    (None, None) => None,
                };
                let message = messages[i].clone().expect("built");
                let publish = publisher.publish(message);
                let result = match limit {
                    Some(at) => tokio::time::timeout_at(at.into(), publish)
                        .await
                        .unwrap_or_else(|_| {
                            Err(PublishError::transient(format!(
                                "publish timed out after {:.3}s",
                                now.elapsed().as_secs_f64()
                            )))
                        }),
                    None => publish.await,
                };
                let seconds = Some(now.elapsed().as_secs_f64());
                match result {
                    Ok(()) => out.push((i, Outcome::Published, seconds)),
                    Err(e) => {
                        failed_keys.insert(key);
                        out.push((i, Outcome::Failed(e), seconds));
                    }
                }
            }
            out
        }
    });
    join_all(futures).await.into_iter().flatten().collect()
}

/// The end of a pass: retries grouped by new attempt count, then failed rows, then rows
/// to hand back untouched.
async fn finish_marks<S: RelayStore>(
    store: &mut S,
    target: &PassTarget,
    settings: &RelaySettings,
    rows: &[OutboxRow],
    outcomes: &[Outcome],
    report: &mut PassReport,
) -> Result<(), StoreError> {
    let mut retries: Vec<(i32, Vec<(usize, String)>)> = Vec::new();
    let mut failed: Vec<(String, Vec<uuid::Uuid>)> = Vec::new();
    let mut untouched = Vec::new();
    let mut fail = |error: String, id| match failed.iter_mut().find(|(e, _)| *e == error) {
        Some((_, ids)) => ids.push(id),
        None => failed.push((error, vec![id])),
    };
    for (i, outcome) in outcomes.iter().enumerate() {
        let row = &rows[i];
        match outcome {
            Outcome::Published => {}
            Outcome::NotReached | Outcome::HeldBack => untouched.push(row.id),
            Outcome::Poison(e) => fail(e.clone(), row.id),
            Outcome::Failed(e) if e.permanent => fail(e.message.clone(), row.id),
            Outcome::Failed(e) => match backoff::decide(row.attempts, settings.max_attempts) {
                RetryDecision::Fail => fail(e.message.clone(), row.id),
                RetryDecision::Retry { attempts } => {
                    match retries.iter_mut().find(|(a, _)| *a == attempts) {
                        Some((_, group)) => group.push((i, e.message.clone())),
                        None => retries.push((attempts, vec![(i, e.message.clone())])),
                    }
                }
            },
        }
    }
    for (attempts, group) in &retries {
        let first = &group[0].1;
        let others = group.iter().filter(|(_, e)| e != first).count();
        let error = if others > 0 {
            format!("{first} (+{others} more)")
        } else {
            first.clone()
        };
        let u: f64 = rand::thread_rng().r#gen();
        let delay = backoff::retry_delay(
            *attempts,
            settings.retry_base_delay,
            settings.retry_max_backoff,
            u,
        );
        let at = Utc::now() + chrono::Duration::from_std(delay).unwrap_or(chrono::Duration::MAX);
        let ids: Vec<uuid::Uuid> = group.iter().map(|(i, _)| rows[*i].id).collect();
        store
            .mark_retry(target, &ids, *attempts, at, &error)
            .await?;
        report.retried += ids.len();
    }
    for (error, ids) in &failed {
        store.mark_failed(target, ids, error).await?;
        report.failed += ids.len();
    }
    if !untouched.is_empty() {
        store.release(target, &untouched).await?;
        report.untouched = untouched.len();
    }
    Ok(())
}

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
    pub failed_passes: u64,
    pub reclaimed: u64,
    pub seconds: f64,
    pub events_per_second: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
}

impl RouteStats {
    fn new(target: &PassTarget) -> Self {
        Self {
            route: target.route.clone(),
            tenant: target.tenant,
            ..Default::default()
        }
    }

    fn add(&mut self, r: &PassReport) {
        self.passes += 1;
        self.claimed += r.claimed as u64;
        self.published += r.published as u64;
        self.retried += r.retried as u64;
        self.failed += r.failed as u64;
        self.reclaimed += r.reclaimed;
        if !r.committed {
            self.failed_passes += 1;
            self.last_error.clone_from(&r.error);
        }
    }

    fn finish(&mut self, elapsed: Duration) {
        self.seconds = elapsed.as_secs_f64();
        self.events_per_second = if self.seconds > 0.0 {
            self.published as f64 / self.seconds
        } else {
            0.0
        };
    }
}

/// Stops a looping relay: `stop()` starts the shutdown drain.
#[derive(Clone)]
pub struct Shutdown {
    tx: Arc<watch::Sender<bool>>,
    rx: watch::Receiver<bool>,
}

impl Default for Shutdown {
    fn default() -> Self {
        let (tx, rx) = watch::channel(false);
        Self {
            tx: Arc::new(tx),
            rx,
        }
    }
}

impl Shutdown {
    pub fn stop(&self) {
        let _ = self.tx.send(true);
    }

    pub fn is_stopped(&self) -> bool {
        *self.rx.borrow()
    }

    /// Sleeps `d`, returning early (true) when stopped.
    pub async fn sleep(&self, d: Duration) -> bool {
        let mut rx = self.rx.clone();
        tokio::select! {
            _ = tokio::time::sleep(d) => self.is_stopped(),
            _ = rx.wait_for(|&s| s) => true,
        }
    }
}

/// A relay over one store and a destination per route.
pub struct Relay<S> {
    pub store: S,
    pub routes: Vec<(PassTarget, Sink)>,
    pub settings: RelaySettings,
}

impl<S: RelayStore> Relay<S> {
    /// `--once`: drains each route until a claim comes back short (or `max_passes`); a failed
    /// pass ends that route's drain.
    pub async fn drain_once(
        &mut self,
        max_passes: Option<u64>,
        mut on_pass: impl FnMut(&PassTarget, &PassReport),
    ) -> Vec<RouteStats> {
        let mut all = Vec::new();
        for (target, sink) in &self.routes {
            let started = Instant::now();
            let mut stats = RouteStats::new(target);
            loop {
                let options = PassOptions {
                    reclaim: stats.passes == 0,
                    stop_publishing_at: None,
                };
                let report = run_pass(&mut self.store, target, sink, &self.settings, options).await;
                stats.add(&report);
                on_pass(target, &report);
                if !report.committed
                    || report.short
                    || max_passes.is_some_and(|m| stats.passes >= m)
                {
                    break;
                }
            }
            stats.finish(started.elapsed());
            all.push(stats);
        }
        all
    }

    /// `--loop`: ticks until `shutdown`, then the shutdown drain. Failed passes back their
    /// route off (`route_backoff`); a committed pass resets it; waking early does not.
    pub async fn run_loop(
        &mut self,
        shutdown: &Shutdown,
        mut on_pass: impl FnMut(&PassTarget, &PassReport),
        mut on_tick: impl FnMut(&[RouteStats]),
    ) -> Vec<RouteStats> {
        let mut totals: Vec<RouteStats> = self
            .routes
            .iter()
            .map(|(t, _)| RouteStats::new(t))
            .collect();
        let mut failures: HashMap<PassTarget, (u32, Instant)> = HashMap::new();
        let started = Instant::now();
        while !shutdown.is_stopped() {
            let mut tick: Vec<RouteStats> = Vec::new();
            for (idx, (target, sink)) in self.routes.iter().enumerate() {
                if failures
                    .get(target)
                    .is_some_and(|(_, until)| Instant::now() < *until)
                {
                    continue;
                }
                let mut stats = RouteStats::new(target);
                let tick_started = Instant::now();
                for n in 0..self.settings.max_batches_per_tick {
                    if shutdown.is_stopped() {
                        break;
                    }
                    let options = PassOptions {
                        reclaim: n == 0,
                        stop_publishing_at: None,
                    };
                    let report =
                        run_pass(&mut self.store, target, sink, &self.settings, options).await;
                    stats.add(&report);
                    totals[idx].add(&report);
                    on_pass(target, &report);
                    if !report.committed {
                        let count = failures.get(target).map_or(0, |(n, _)| *n) + 1;
                        let wait = backoff::route_backoff(
                            count,
                            self.settings.interval,
                            self.settings.retry_max_backoff,
                        );
                        failures.insert(target.clone(), (count, Instant::now() + wait));
                        tracing::warn!(
                            route = %target, failures = count, backoff_ms = wait.as_millis() as u64,
                            "pass failed, backing off: {}", report.error.as_deref().unwrap_or("unknown error")
                        );
                        break;
                    }
                    failures.remove(target);
                    if report.short {
                        break;
                    }
                }
                stats.finish(tick_started.elapsed());
                tick.push(stats);
            }
            on_tick(&tick);
            let u: f64 = rand::thread_rng().r#gen();
            if shutdown
                .sleep(backoff::jittered(
                    self.settings.interval,
                    self.settings.jitter,
                    u,
                ))
                .await
            {
                break;
            }
        }
        if self.settings.drain_on_shutdown {
            let drained = self.shutdown_drain(&mut on_pass).await;
            for (t, d) in totals.iter_mut().zip(drained) {
                t.passes += d.passes;
                t.claimed += d.claimed;
                t.published += d.published;
                t.retried += d.retried;
                t.failed += d.failed;
                t.failed_passes += d.failed_passes;
            }
        }
        for t in &mut totals {
            t.finish(started.elapsed());
        }
        totals
    }

    /// Strict passes for at most `shutdown_drain_timeout`: no reclaim, one delivery attempt
    /// per row (a route stops after a pass that retried or failed a row), and publishing stops
    /// when a fifth of the remaining budget is left, so the last pass commits.
    pub async fn shutdown_drain(
        &mut self,
        on_pass: &mut impl FnMut(&PassTarget, &PassReport),
    ) -> Vec<RouteStats> {
        let end = Instant::now() + self.settings.shutdown_drain_timeout;
        let mut out = Vec::new();
        for (target, sink) in &self.routes {
            let mut stats = RouteStats::new(target);
            loop {
                let now = Instant::now();
                if now >= end {
                    break;
                }
                let stop = now + (end - now).mul_f64(0.8);
                let options = PassOptions {
                    reclaim: false,
                    stop_publishing_at: Some(stop),
                };
                let report = run_pass(&mut self.store, target, sink, &self.settings, options).await;
                stats.add(&report);
                on_pass(target, &report);
                if !report.committed || report.short || report.retried > 0 || report.failed > 0 {
                    break;
                }
            }
            out.push(stats);
        }
        out
    }
}
