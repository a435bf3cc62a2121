//! The relay's algorithm, once, over any [`RelayStore`] and [`Sink`]: a pass (claim, publish
//! in chunks of 32 with many publishes in flight but one key at a time, mark), the one-shot
//! drain, the looping relay with route backoff, and the shutdown drain.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use serde::Serialize;
use tracing::Instrument;

use super::dead_letter::Parking;
use super::deadline::Deadline;
use super::shutdown::StopWatch;
use crate::config::Config;
use crate::db::fault::Fault;
use crate::destination::{PublishError, Publisher, Refusal, Sink};
use crate::model::{KeyOrder, Storage};
use crate::model::{Message, OutboxRow};
use crate::store::{INSERTING_INTO_TABLE, PassTarget, RELEASING, RelayStore, StoreError};
use crate::telemetry::Root;

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
#[derive(Clone, Default)]
pub struct PassOptions {
    /// Run reclaim before the claim (the first pass of a tick or a drain).
    pub reclaim: bool,
    /// Start no publish after this instant (consume storage always has one: `pass_deadline`).
    pub stop_publishing_at: Option<Instant>,
    /// The looping relay's stop, which may come while the pass runs ([`StopWatch`]).
    pub stop: Option<StopWatch>,
    /// The route's `dead_letter_to:`: a row is published there before it is parked.
    pub dead_letter: Option<Arc<dyn Publisher>>,
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
    /// The destination was found away (or stalled: a probe after a failed publish did not
    /// answer): the pass stopped publishing, and what it held went back without an attempt.
    #[serde(rename = "destination_down", skip_serializing_if = "Option::is_none")]
    pub down: Option<String>,
    /// The pass failed because the database could not be reached or the connection was lost:
    /// not the route's failure (no backoff); the relay probes the database instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub database_away: Option<String>,
    /// The pass failed as not fitting the database (a missing table or column, a privilege
    /// not granted): the setup's fault, which another pass does not mend.
    #[serde(skip)]
    pub unfit: bool,
    /// The pass took rows claimed ahead for it by the pass before (`relay.claim_ahead`).
    #[serde(skip)]
    pub claimed_ahead: bool,
    /// Rows published to the route's dead-letter destination, then parked.
    #[serde(skip_serializing_if = "is_zero")]
    pub dead_lettered: usize,
    /// Seconds each completed publish took (for the latency histogram).
    #[serde(skip)]
    pub publish_seconds: Vec<f64>,
    /// Each published row's delivery lag: seconds from its `created_at` to the destination's
    /// acknowledgement (a file: its fsync; a table: the insert).
    #[serde(skip)]
    pub lag_seconds: Vec<f64>,
}

/// Seconds from a row's `created_at` to `at`.
fn lag(row: &crate::model::OutboxRow, at: chrono::DateTime<Utc>) -> f64 {
    (at - row.created_at).num_microseconds().unwrap_or(i64::MAX) as f64 / 1e6
}

pub type PassOutcome = Result<PassReport, PassReport>;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What a pass carries besides its report: whether to probe the destination after the
/// commit, and the pass's trace.
struct Flow {
    probe_after: bool,
    /// A `postgres-table:` destination's inserts each in a savepoint, sent at once (consume:
    /// the pass runs so once a refused insert rolled it back).
    careful: bool,
    trace: Root,
    /// Retain: the ids the pass claimed, in claim order; those from `unsent_from` on were never
    /// handed to the destination, and go back to pending should the pass fail.
    claimed: Vec<uuid::Uuid>,
    unsent_from: usize,
    /// The `now` of the pass's claim (retain: its rows' `processing_at`, which a release
    /// matches, to leave alone a row reclaimed and claimed by another relay meanwhile).
    claimed_at: chrono::DateTime<Utc>,
}

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
    let job = Job {
        target,
        sink,
        settings,
        options: &options,
    };
    run_pass_ahead(store, &mut ClaimAhead::none(), job).await
}

/// What a pass works on: its route, destination, settings and options.
#[derive(Clone, Copy)]
pub struct Job<'a> {
    pub target: &'a PassTarget,
    pub sink: &'a Sink,
    pub settings: &'a RelaySettings,
    pub options: &'a PassOptions,
}

/// [`run_pass`] that claims ahead: it takes `ahead.prior`'s rows instead of claiming, and with
/// `ahead.store` claims the route's next batch there meanwhile, kept in `ahead.next` only when
/// this pass delivered every row it claimed (released otherwise).
pub async fn run_pass_ahead<S: RelayStore>(
    store: &mut S,
    ahead: &mut ClaimAhead<'_, S>,
    job: Job<'_>,
) -> PassReport {
    let Job {
        target,
        sink,
        settings,
        options,
    } = job;
    let mut report = PassReport::default();
    let mut flow = Flow {
        probe_after: false,
        careful: false,
        trace: trace::begin(),
        claimed: Vec::new(),
        unsent_from: 0,
        claimed_at: Utc::now(),
    };
    // log lines of the pass carry its trace and span ids (while tracing)
    let log = flow.trace.log_span();
    // Under consume a `postgres-table:` destination's insert waits for the `COMMIT`, and a row
    // the table refuses rolls back the whole pass, which the next pass would claim again, for
    // ever. So the pass runs once more, carefully (`engine_table`): the refused row gets its
    // attempt and the others go.
    let careful_after = |e: &StoreError| {
        settings.storage == Storage::Consume
            && matches!(sink, Sink::Table(_))
            && e.fault == Fault::Refused
            && e.context == INSERTING_INTO_TABLE
    };
    let failed = loop {
        let result = pass_body(store, ahead, job, &mut report, &mut flow)
            .instrument(log.clone())
            .await;
        let failed = match result {
            Ok(()) => store.commit_pass().instrument(log.clone()).await.err(),
            Err(e) => Some(e),
        };
        if flow.careful || !failed.as_ref().is_some_and(careful_after) {
            break failed;
        }
        store.rollback_pass().await;
        report = PassReport::default();
        flow.careful = true;
    };
    match failed {
        None => report.committed = true,
        Some(e) => {
            report.error = Some(e.to_string());
            report.unfit = e.fault == Fault::Definition;
            if e.connection_lost() {
                report.database_away = Some(e.to_string());
            }
            store.rollback_pass().await;
            // retain: what the pass claimed and never sent goes back to pending, untouched; it
            // waited for reclaim_stale_after, each failed pass of a looping relay stranding
            // another claim. Rows sent (published, retried, parked or not yet marked) are left
            // as they are: released, a published row whose mark failed would go again at once.
            // (Nor again after the pass's own release failed: it would wait twice.)
            let unsent = flow.claimed.get(flow.unsent_from..).unwrap_or_default();
            if !unsent.is_empty() && !e.connection_lost() && e.context != RELEASING {
                if let Ok(n) = store.release(target, unsent, flow.claimed_at).await {
                    report.untouched += n as usize;
                }
            }
        }
    }
    if !report.committed && settings.storage == Storage::Consume {
        // The whole pass rolled back: nothing it did stands.
        report.published = 0;
        report.retried = 0;
        report.failed = 0;
    }
    // a stopping relay asks no more of a destination: the drain's time is for marks
    let stopping = options.stop.as_ref().is_some_and(StopWatch::is_stopped);
    if let (true, None, Sink::Publisher(p), false) =
        (flow.probe_after, &report.down, sink, stopping)
    {
        report.down = probe(p.as_ref(), probe_timeout(settings, p.as_ref())).await;
    }
    // Rows claimed ahead and not to be taken go back to pending; what their claim parked
    // (MongoDB: unreadable documents) is this pass's to count.
    let mut parked = 0;
    if let Some(prior) = ahead.prior.take() {
        // claimed ahead for this pass, which failed as it opened
        let second = ahead.store.as_deref_mut().unwrap_or(&mut *store);
        parked += ahead::release(second, target, prior).await;
    }
    if let Some(next) = ahead.next.take() {
        let delivered_all = report.committed
            && report.down.is_none()
            && report.published == report.claimed
            && !stopping;
        match (delivered_all, ahead.store.as_deref_mut()) {
            (true, _) => ahead.next = Some(next),
            (false, Some(second)) => parked += ahead::release(second, target, next).await,
            (false, None) => {}
        }
    }
    report.claimed += parked;
    report.failed += parked;
    trace::end(flow.trace, &report, target, &log);
    report
}

/// How long a probe of a destination may take: the publish timeout, at most 5 s.
pub fn probe_timeout(settings: &RelaySettings, publisher: &dyn Publisher) -> Duration {
    publish_timeout(settings, publisher).min(Duration::from_secs(5))
}

/// The bound on one publish: `relay.publish_timeout`, or the destination's own default.
pub fn publish_timeout(settings: &RelaySettings, publisher: &dyn Publisher) -> Duration {
    settings
        .publish_timeout
        .unwrap_or_else(|| publisher.default_timeout())
}

/// Asks a destination whether it answers; `Some(reason)` when it does not.
pub async fn probe(publisher: &dyn Publisher, timeout: Duration) -> Option<String> {
    match tokio::time::timeout(timeout, publisher.alive()).await {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(e.to_string()),
        Err(_) => Some(format!(
            "no answer to a probe within {}",
            crate::duration::Dur(timeout)
        )),
    }
}

async fn pass_body<S: RelayStore>(
    store: &mut S,
    ahead: &mut ClaimAhead<'_, S>,
    job: Job<'_>,
    report: &mut PassReport,
    flow: &mut Flow,
) -> Result<(), StoreError> {
    let Job {
        target,
        settings,
        options,
        ..
    } = job;
    // (rows claimed ahead for this pass are taken once it opens; `run_pass_ahead` releases
    // them if it cannot)
    store.begin_pass(target).await?;
    let began = Instant::now();
    let fixed = match settings.storage {
        Storage::Consume => {
            let window = (store.publish_window())
                .map_or(settings.pass_deadline, |w| w.min(settings.pass_deadline));
            let end = began + window;
            Some(options.stop_publishing_at.map_or(end, |d| d.min(end)))
        }
        Storage::Retain => options.stop_publishing_at,
    };
    let deadline = Deadline {
        fixed,
        stop: options.stop.as_ref(),
    };
    let claimed = match ahead.prior.take() {
        Some(prior) => {
            report.claimed_ahead = true;
            flow.claimed_at = prior.at;
            prior.claimed
        }
        None => {
            if options.reclaim {
                if let Some(stale) = settings.reclaim_stale_after {
                    let older_than = Utc::now()
                        - chrono::Duration::from_std(stale).unwrap_or(chrono::Duration::MAX);
                    report.reclaimed = store.reclaim(target, older_than).await?;
                }
            }
            flow.claimed_at = Utc::now();
            store
                .claim(target, settings.max_claim_rows, flow.claimed_at)
                .await?
        }
    };
    let rows = claimed.rows;
    if settings.storage == Storage::Retain {
        flow.claimed = rows.iter().map(|r| r.id).collect();
    }
    report.claimed = rows.len() + claimed.parked;
    report.failed += claimed.parked;
    report.short = claimed.candidates < settings.max_claim_rows as usize;
    trace::claimed(&mut flow.trace, target, report);
    // the route's next batch, claimed on the second connection while this one is delivered
    // (retain, best-effort order: what the configuration allows; see `engine_ahead.rs`)
    let second = (ahead.store.as_deref_mut()).filter(|_| {
        !report.short
            && settings.storage == Storage::Retain
            && settings.key_order == KeyOrder::BestEffort
    });
    let Some(second) = second else {
        return deliver(store, job, deadline, rows, report, flow).await;
    };
    let next = ahead::claim_next(second, target, settings.max_claim_rows);
    let (delivered, next) = tokio::join!(deliver(store, job, deadline, rows, report, flow), next);
    ahead.next = next;
    delivered
}

/// Publishes and marks the rows a pass claimed (the pass after its claim).
async fn deliver<S: RelayStore>(
    store: &mut S,
    job: Job<'_>,
    deadline: Deadline<'_>,
    rows: Vec<OutboxRow>,
    report: &mut PassReport,
    flow: &mut Flow,
) -> Result<(), StoreError> {
    let Job {
        target,
        sink,
        settings,
        options,
    } = job;

    let mut outcomes: Vec<Outcome> = vec![Outcome::NotReached; rows.len()];
    let strict = settings.key_order == KeyOrder::Strict;
    // strict: a row that cannot be sent (parked) holds its key's later rows, as a failed one
    // does from the next claim on
    let mut poisoned: HashSet<(Option<uuid::Uuid>, String)> = HashSet::new();
    let messages: Vec<Option<Arc<Message>>> = rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            if !poisoned.is_empty() && poisoned.contains(&row.order_key()) {
                outcomes[i] = Outcome::HeldBack;
                return None;
            }
            match Message::from_row(row) {
                Ok(m) => Some(Arc::new(m)),
                Err(e) => {
                    outcomes[i] = Outcome::Poison(format!("payload is not valid JSON: {e}"));
                    if strict {
                        poisoned.insert(row.order_key());
                    }
                    None
                }
            }
        })
        .collect();
    let mut blocked_keys: HashSet<(Option<uuid::Uuid>, String)> = HashSet::new();

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
        if deadline.passed(Instant::now()) {
            break;
        }
        // a publish is a send, whatever comes of it; an insert into a table of the same
        // database that fails is none (and one sent twice is taken once: ON CONFLICT)
        let end = (start + window).min(rows.len());
        flow.unsent_from = match sink {
            Sink::Table(_) => start,
            Sink::Publisher(_) => end,
        };
        let chunk: Vec<usize> = (start..end).filter(|&i| messages[i].is_some()).collect();
        match sink {
            Sink::Table(table) => {
                let job = TableChunk {
                    table,
                    rows: &rows,
                    messages: &messages,
                    chunk: &chunk,
                    guarded: settings.storage == Storage::Retain || flow.careful,
                    strict,
                };
                job.insert(store, &flow.trace, &mut outcomes, &mut blocked_keys)
                    .await?;
                flow.unsent_from = end;
                let at = Utc::now();
                for &i in &chunk {
                    if matches!(outcomes[i], Outcome::Published) {
                        report.lag_seconds.push(lag(&rows[i], at));
                    }
                }
            }
            Sink::Publisher(publisher) => {
                let began = flow.trace.now();
                let job = ChunkJob {
                    publisher,
                    rows: &rows,
                    messages: &messages,
                    chunk: &chunk,
                    settings,
                    deadline,
                    strict,
                    blocked: &blocked_keys,
                };
                let results = flow.trace.attach(publish_chunk(job)).await;
                let mut any_published = false;
                let mut timed_out = false;
                for (i, outcome, seconds) in results {
                    report.publish_seconds.extend(seconds);
                    if let Outcome::Failed(e) = &outcome {
                        match e.kind {
                            Refusal::Away => {
                                report.down.get_or_insert_with(|| e.message.clone());
                            }
                            Refusal::TimedOut => timed_out = true,
                            Refusal::Transient | Refusal::Permanent => {}
                        }
                    }
                    any_published |= matches!(outcome, Outcome::Published);
                    outcomes[i] = outcome;
                }
                if any_published {
                    // bounded like a publish: a pipe whose reader stopped holds a write for
                    // as long as it likes (it goes on; the probe waits for it)
                    let now = Instant::now();
                    let limit = deadline.bound(now + publish_timeout(settings, publisher.as_ref()));
                    let flushed = tokio::time::timeout_at(limit.into(), publisher.flush())
                        .await
                        .unwrap_or_else(|_| {
                            Err(PublishError::timed_out(format!(
                                "writing out timed out after {:.3}s",
                                now.elapsed().as_secs_f64()
                            )))
                        });
                    timed_out |= matches!(&flushed, Err(e) if e.kind == Refusal::TimedOut);
                    if flushed.is_ok() {
                        let at = Utc::now();
                        for &i in &chunk {
                            if matches!(outcomes[i], Outcome::Published) {
                                report.lag_seconds.push(lag(&rows[i], at));
                            }
                        }
                    }
                    if let Err(e) = flushed {
                        if e.is_away() {
                            report.down.get_or_insert_with(|| e.message.clone());
                        }
                        for &i in &chunk {
                            if matches!(outcomes[i], Outcome::Published) {
                                outcomes[i] = Outcome::Failed(e.clone());
                            }
                        }
                    }
                }
                if let Some(began) = began.filter(|_| !publisher.traces_sends()) {
                    let to = publisher.messaging();
                    trace::chunk_sends(&flow.trace, &to, began, &chunk, &messages, &outcomes);
                }
                if strict {
                    // a row not reached (no publish starts after a timeout or the destination
                    // going away) holds its key back like a failed one: a later chunk must
                    // not deliver the key's next row first
                    for &i in &chunk {
                        if matches!(
                            outcomes[i],
                            Outcome::Failed(_) | Outcome::HeldBack | Outcome::NotReached
                        ) {
                            blocked_keys.insert(rows[i].order_key());
                        }
                    }
                }
                // A publish that got no answer may have met a stalled broker: ask it, within
                // what the pass has left.
                if timed_out && report.down.is_none() {
                    let now = Instant::now();
                    let limit = deadline.bound(now + probe_timeout(settings, publisher.as_ref()));
                    let limit = limit.saturating_duration_since(now);
                    if limit.is_zero() {
                        flow.probe_after = true;
                    } else {
                        report.down = probe(publisher.as_ref(), limit).await;
                    }
                }
            }
        }
        let ids: Vec<uuid::Uuid> = chunk
            .iter()
            .filter(|&&i| matches!(outcomes[i], Outcome::Published))
            .map(|&i| rows[i].id)
            .collect();
        // Retain marks 32 ids at a time (the crash-duplicate bound); consume marks what the
        // window delivered in one statement (the pass's transaction is the bound).
        let marks_per_statement = match settings.storage {
            Storage::Retain => MARK_CHUNK,
            Storage::Consume => ids.len().max(1),
        };
        for marks in ids.chunks(marks_per_statement) {
            store.mark_published(target, marks, Utc::now()).await?;
            report.published += marks.len();
        }
        if report.down.is_some() {
            // The destination is away: what is left goes back untouched.
            break;
        }
    }
    let parking = Parking {
        dead_letter: (options.dead_letter.as_ref())
            .map(|dl| (dl, publish_timeout(settings, dl.as_ref()))),
        messages: &messages,
        deadline,
    };
    let claim = marks::Claim {
        target,
        at: flow.claimed_at,
    };
    let untouched = finish_marks(store, claim, settings, &rows, &outcomes, parking, report).await?;
    if !untouched.is_empty() {
        let released = store.release(target, &untouched, flow.claimed_at).await?;
        // consume: the rows stay pending as they are (the commit unlocks them); retain: those
        // the release found still this claim's
        report.untouched = match settings.storage {
            Storage::Consume => untouched.len(),
            Storage::Retain => released as usize,
        };
    }
    Ok(())
}

#[path = "engine_publish.rs"]
mod publish;
use publish::{ChunkJob, publish_chunk};

#[path = "engine_ahead.rs"]
mod ahead;
pub use ahead::{Ahead, ClaimAhead, release as release_ahead};

#[path = "engine_marks.rs"]
mod marks;
use marks::finish_marks;

#[path = "engine_table.rs"]
mod table;
use table::TableChunk;

#[path = "engine_trace.rs"]
mod trace;

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "engine_dead_letter_tests.rs"]
mod dead_letter_tests;
