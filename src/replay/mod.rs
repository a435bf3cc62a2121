//! `outboxctl replay`: publish again, to a destination the operator names, events that were
//! already delivered, as the relay built them (payload, headers, key), read in claim order in
//! bounded keyset pages from a source that kept them: the outbox's `published` rows (retain
//! storage), a `postgres-table` destination, or a `file:` archive. The outbox is never
//! changed. No terminal code here: the command in `cli/replay.rs` prints.

pub mod cursor;
pub mod error;
pub mod file;
pub mod request;
mod send;
mod trace;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use tracing::Instrument;
use uuid::Uuid;

pub use cursor::Cursor;
pub use error::ReplayError;
use send::{page_failure, publish_page};

use crate::Error;
use crate::destination::{self, DestinationError, DestinationUrl, Publisher, Sink};
use crate::hlc::HlcTimestamp;
use crate::model::Message;
use crate::telemetry::{KeyValue, Root};

/// Rows read per page: memory stays bounded by this many messages.
pub const PAGE: u32 = 500;

/// Keys published at once within a page (one key's messages go one after another).
const KEYS_IN_FLIGHT: usize = 64;

/// Tries after a refusal that may pass, before the replay stops at that event (`--retries`).
pub const RETRIES: u32 = 3;
const RETRY_WAIT: Duration = Duration::from_millis(200);

/// What to replay.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Routes in the order they are replayed (empty: every route the source holds; file only).
    pub routes: Vec<String>,
    /// Delivered at or after.
    pub since: Option<DateTime<Utc>>,
    /// Delivered before.
    pub until: Option<DateTime<Utc>>,
    /// The broker key (`ordering_key`, or the event id without one).
    pub key: Option<String>,
    pub tenant: Option<Uuid>,
    pub event_type: Option<String>,
    pub event_ids: Vec<Uuid>,
    /// Packed HLC bounds, inclusive.
    pub hlc_from: Option<i64>,
    pub hlc_to: Option<i64>,
}

impl Selection {
    /// Whether a message read from a source that cannot filter (a file) is selected.
    pub fn matches(&self, m: &Message, published_at: Option<DateTime<Utc>>) -> bool {
        let hlc = || {
            m.header("forze_hlc")
                .and_then(|h| HlcTimestamp::parse(h).ok())
                .map(HlcTimestamp::pack)
        };
        (self.routes.is_empty() || self.routes.contains(&m.route))
            && self.key.as_ref().is_none_or(|k| *k == m.key)
            && self.tenant.is_none_or(|t| m.tenant_id == Some(t))
            && self.event_type.as_ref().is_none_or(|t| *t == m.event_type)
            && (self.event_ids.is_empty() || self.event_ids.contains(&m.event_id))
            && self
                .since
                .is_none_or(|s| published_at.is_some_and(|p| p >= s))
            && self
                .until
                .is_none_or(|u| published_at.is_some_and(|p| p < u))
            && self.hlc_from.is_none_or(|f| hlc().is_some_and(|h| h >= f))
            && self.hlc_to.is_none_or(|t| hlc().is_some_and(|h| h <= t))
    }
}

/// One event read from a source, with where it stands.
#[derive(Debug, Clone)]
pub struct Item {
    pub message: Arc<Message>,
    pub cursor: Cursor,
    /// When it was delivered, where the source knows.
    pub published_at: Option<DateTime<Utc>>,
}

/// A source of delivered events, read forward in bounded pages from where it was opened.
#[expect(
    async_fn_in_trait,
    reason = "sources are used generically in one runtime; no Send bound is needed"
)]
pub trait ReplaySource {
    /// The next events in order (at most `limit`); empty at the end.
    async fn next_page(&mut self, limit: u32) -> Result<Vec<Item>, Error>;
}

/// The header names a message may carry, in the order the relay writes them (a
/// `postgres-table` destination stores headers as JSONB, which reorders keys).
pub const HEADER_ORDER: &[&str] = &[
    "forze_event_id",
    "forze_occurred_at",
    "forze_correlation_id",
    "forze_causation_id",
    "forze_execution_id",
    "forze_tenant_id",
    "forze_hlc",
    "traceparent",
];

/// Headers as read back from storage, put in the relay's order; a name the relay never writes
/// is refused (the stored message is not one outboxctl delivered).
pub fn ordered_headers(
    pairs: Vec<(String, String)>,
) -> Result<Vec<(&'static str, String)>, ReplayError> {
    let mut out: Vec<(usize, &'static str, String)> = Vec::with_capacity(pairs.len());
    for (name, value) in pairs {
        let Some(i) = HEADER_ORDER.iter().position(|h| *h == name) else {
            return Err(ReplayError::Value(format!(
                "header {name:?} is not one the relay writes"
            )));
        };
        out.push((i, HEADER_ORDER[i], value));
    }
    out.sort_by_key(|(i, _, _)| *i);
    Ok(out.into_iter().map(|(_, n, v)| (n, v)).collect())
}

/// The broker key of a row: its ordering key, or the event id without one.
pub fn broker_key(ordering_key: Option<&str>, event_id: Uuid) -> String {
    match ordering_key {
        Some(k) if !k.is_empty() => k.to_owned(),
        _ => event_id.to_string(),
    }
}

/// The first or last event of a route, for summaries.
#[derive(Debug, Clone, Serialize)]
pub struct Edge {
    pub event_id: Uuid,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published_at: Option<DateTime<Utc>>,
}

/// The event id, then when it was delivered where known.
impl std::fmt::Display for Edge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.published_at {
            Some(at) => write!(f, "{} {}", self.event_id, crate::model::rfc3339(at)),
            None => write!(f, "{}", self.event_id),
        }
    }
}

/// What a replay did (or, dry, would do) for one route.
#[derive(Debug, Clone, Serialize, Default)]
pub struct RouteTally {
    pub count: u64,
    pub first: Option<Edge>,
    pub last: Option<Edge>,
}

/// The outcome of a replay run.
#[derive(Debug, Default, Serialize)]
pub struct Tally {
    pub count: u64,
    pub routes: BTreeMap<String, RouteTally>,
    /// Where the last event handed over stands: `--after` resumes after it.
    pub cursor: Option<String>,
    /// The `--event-id`s given that are not among the events selected (the source does not
    /// hold them, or the other filters leave them out); known once the source was read to its
    /// end from its start.
    pub not_found: Vec<Uuid>,
}

impl Tally {
    fn add(&mut self, item: &Item) {
        self.count += 1;
        let edge = Edge {
            event_id: item.message.event_id,
            published_at: item.published_at,
        };
        let r = self.routes.entry(item.message.route.clone()).or_default();
        r.count += 1;
        if r.first.is_none() {
            r.first = Some(edge.clone());
        }
        r.last = Some(edge);
        self.cursor = Some(item.cursor.encode());
    }

    /// Events per route, as a confirmation names them: `orders: 3, billing: 1`.
    pub fn per_route(&self) -> String {
        self.routes
            .iter()
            .map(|(r, t)| format!("{r}: {}", t.count))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The summary of a replay that ran (or, dry, counted) for `elapsed`.
    pub fn summary(
        &self,
        dry_run: bool,
        to: Option<String>,
        elapsed: Duration,
        stopped: Option<String>,
    ) -> Summary<'_> {
        Summary {
            dry_run,
            to,
            count: self.count,
            routes: &self.routes,
            // a dry run's count resumes nothing: its last event was never sent
            cursor: self.cursor.as_deref().filter(|_| !dry_run),
            elapsed_ms: elapsed.as_millis(),
            stopped,
            not_found: &self.not_found,
        }
    }
}

/// A replay's summary as `--format json` prints it.
#[derive(Debug, Serialize)]
pub struct Summary<'a> {
    pub dry_run: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    pub count: u64,
    pub routes: &'a BTreeMap<String, RouteTally>,
    /// `--after` this resumes after the last event replayed (with the same selection);
    /// `null` for a dry run.
    pub cursor: Option<&'a str>,
    pub elapsed_ms: u128,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// The `--event-id`s given that are not among the events selected (a typo replayed
    /// nothing of it, and said nothing).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub not_found: &'a [Uuid],
}

impl Summary<'_> {
    /// Whether the replayed events went to stdout (the summary then goes to stderr), by name
    /// or as a file (`file:/dev/stdout`).
    pub fn to_stdout(&self) -> bool {
        self.to.as_deref().is_some_and(writes_to_stdout)
    }

    /// The summary in a sentence: how many, where, how fast, and the `--after` that resumes.
    pub fn line(&self) -> String {
        let (n, seconds) = (self.count, self.elapsed_ms as f64 / 1000.0);
        let not_found = match self.not_found {
            [] => String::new(),
            ids => {
                let ids: Vec<String> = ids.iter().map(Uuid::to_string).collect();
                let n = ids.len();
                format!(
                    "; {n} event id(s) given are not among the events selected: {}",
                    ids.join(", ")
                )
            }
        };
        if self.dry_run {
            return format!("would replay {n} event(s){not_found}");
        }
        let (to, rate) = (
            self.to.as_deref().unwrap_or_default(),
            n as f64 / seconds.max(1e-3),
        );
        let what =
            format!("replayed {n} event(s) to {to} in {seconds:.1} s ({rate:.0}/s){not_found}");
        match self.cursor {
            Some(c) => {
                format!("{what}; the next replay resumes with the same flags and --after {c}")
            }
            None => what,
        }
    }

    /// Per route: its name, its count, its first and last event.
    pub fn rows(&self) -> Vec<Vec<String>> {
        let edge = |e: &Option<Edge>| e.as_ref().map_or(String::new(), Edge::to_string);
        let row = |(route, t): (&String, &RouteTally)| {
            vec![
                route.clone(),
                t.count.to_string(),
                edge(&t.first),
                edge(&t.last),
            ]
        };
        self.routes.iter().map(row).collect()
    }
}

/// How a replay goes.
#[derive(Debug, Clone, Default)]
pub struct Pace {
    /// Events per second at most (publishes go one at a time).
    pub rate: Option<f64>,
    /// Events at most.
    pub limit: Option<u64>,
    /// How each event is tried.
    pub tries: Tries,
}

/// How one event is tried: a refusal that may pass (not a permanent one) is tried again
/// `retries` times; each try waits `timeout` at most (`relay.publish_timeout`, else the
/// destination's own default, as the relay's publishes do).
#[derive(Debug, Clone, Copy, Default)]
pub struct Tries {
    pub retries: u32,
    pub timeout: Option<Duration>,
}

/// Reads a source to its end (or `limit`) without publishing: what a dry run shows and what
/// the confirmation counts.
/// Reads the source to its end (or `limit`); `given`: the `--event-id`s asked for, of which
/// those the source turned out not to hold are the tally's `not_found` (when it was read from
/// its start to its end).
pub async fn count(
    source: &mut impl ReplaySource,
    limit: Option<u64>,
    given: &[Uuid],
) -> Result<Tally, Error> {
    let mut tally = Tally::default();
    let mut seen = std::collections::HashSet::new();
    loop {
        let page = source.next_page(PAGE).await?;
        if page.is_empty() {
            // once each, in the order given
            for id in given.iter().filter(|id| !seen.contains(*id)) {
                if !tally.not_found.contains(id) {
                    tally.not_found.push(*id);
                }
            }
            return Ok(tally);
        }
        for item in &page {
            if limit.is_some_and(|l| tally.count >= l) {
                return Ok(tally);
            }
            if !given.is_empty() {
                seen.insert(item.message.event_id);
            }
            tally.add(item);
        }
    }
}

/// Where replayed messages go: `--to` for every route, a publisher per distinct destination
/// (the channel is the route's name unless `--channel` names one), connected on first use.
pub struct Destinations {
    to: String,
    url: DestinationUrl,
    channel: Option<String>,
    ctx: destination::BuildContext,
    stdout: destination::lines::StdoutShared,
    by_route: HashMap<String, Arc<dyn Publisher>>,
    by_spec: HashMap<String, Arc<dyn Publisher>>,
    pub warnings: Vec<String>,
}

impl Destinations {
    /// Checks `--to` before anything is read: a URL of a kind the relay publishes to.
    pub fn new(
        to: &str,
        channel: Option<String>,
        ctx: destination::BuildContext,
    ) -> Result<Self, Error> {
        // a replay redelivers nothing after a crash: the relay's reclaim window (which a NATS
        // stream's duplicate window is checked against) says nothing of it
        let ctx = destination::BuildContext {
            reclaim_stale_after: None,
            ..ctx
        };
        let this = Self {
            to: to.to_owned(),
            url: crate::config::destination_url("--to", to, &crate::config::process_env)?,
            channel,
            ctx,
            stdout: Arc::default(),
            by_route: HashMap::new(),
            by_spec: HashMap::new(),
            warnings: Vec::new(),
        };
        this.spec("replay")?;
        Ok(this)
    }

    fn spec(&self, route: &str) -> Result<destination::RouteSpec, Error> {
        let file = crate::config::Route {
            channel: self.channel.clone(),
            ..crate::config::Route::new(self.url.clone())
        };
        let (spec, _) = destination::plan(route, &file).map_err(|e| as_flag(e, route, "--to"))?;
        if matches!(spec, destination::RouteSpec::Table(_)) {
            return Err(ReplayError::Selection(
                "--to postgres-table: is not a replay destination: it keeps each event id once, so every replayed event would be dropped; use file:, stdout, a broker or http(s)://",
            )
            .into());
        }
        Ok(spec)
    }

    /// The destination's name, password masked.
    pub fn shown(&self) -> String {
        crate::dburl::mask(&self.to)
    }

    async fn get(&mut self, route: &str) -> Result<Arc<dyn Publisher>, Error> {
        if let Some(p) = self.by_route.get(route) {
            return Ok(p.clone());
        }
        let spec = self.spec(route)?;
        // the destination itself and every option it was planned with: routes whose channels
        // differ get publishers of their own
        let id = format!("{} {spec:?}", spec.identity());
        let publisher = match self.by_spec.get(&id) {
            Some(p) => p.clone(),
            None => {
                let (sink, warnings) = destination::connect(route, spec, &self.stdout, self.ctx)
                    .await
                    .map_err(|e| as_flag(e, route, &format!("--to (route {route})")))?;
                self.warnings.extend(warnings);
                let Sink::Publisher(p) = sink else {
                    unreachable!("postgres-table is refused in spec()")
                };
                self.by_spec.insert(id, p.clone());
                p
            }
        };
        self.by_route.insert(route.to_owned(), publisher.clone());
        Ok(publisher)
    }
}

/// A destination error as the relay words it (`relay.routes.ROUTE.to: …`), named by the flag
/// that gave the URL instead.
fn as_flag(e: DestinationError, route: &str, flag: &str) -> Error {
    e.given_by(route, flag).into()
}

/// Whether a destination (as shown) is this process's stdout: `stdout`, or a file that is it.
fn writes_to_stdout(to: &str) -> bool {
    crate::desturl::DestinationUrl::parse(to).is_ok_and(|d| d.is_stdout())
}

/// Why a replay stopped before its end, with what it had done.
#[derive(Debug)]
pub struct Stopped {
    pub tally: Tally,
    pub error: Error,
}

impl Stopped {
    /// How to go on: resume after the last event replayed, or, when none was, after `after`
    /// (where this run started).
    pub fn resume(&self, after: Option<&str>) -> String {
        match self.tally.cursor.as_deref().or(after) {
            Some(c) => format!(
                "resume with the same flags (--since, --until and every filter) and --after {c}"
            ),
            None => "nothing was replayed; run it again".into(),
        }
    }

    /// Stdout's reader quit (`replay --to stdout | head`): a closed pipe, exit 0 as for any
    /// command, with nothing more said.
    pub fn reader_quit(&self) -> bool {
        matches!(&self.error, Error::Area(e) if matches!(e.downcast_ref(), Some(ReplayError::ReaderQuit)))
    }

    /// The error, followed by how to resume; a database that could not be reached, or whose
    /// connection was lost, stays that error (and its exit code, 3).
    pub fn into_error(self, resume: &str) -> Error {
        use crate::db::{DbError, fault::Fault};
        match self.error {
            Error::Db(DbError::Connect { target, reason }) => Error::Db(DbError::Connect {
                target,
                reason: format!("{reason}; {resume}"),
            }),
            Error::Db(mut e) if matches!(e.fault(), Fault::Lost | Fault::Unreachable) => {
                if let DbError::Postgres { what, .. }
                | DbError::PgClient { what, .. }
                | DbError::Mongo { what, .. } = &mut e
                {
                    *what = format!("{what} ({resume})");
                }
                Error::Db(e)
            }
            Error::Interrupted(why) => Error::Interrupted(format!("{why}; {resume}")),
            e => ReplayError::Stopped {
                error: e.to_string(),
                resume: resume.to_owned(),
            }
            .into(),
        }
    }
}

/// Publishes what the source yields, page by page, in order: one key's messages one after
/// another, up to `KEYS_IN_FLIGHT` keys at once (one message at a time with a rate or a
/// serial destination). A page is flushed before its events count as replayed; the first
/// failure stops the replay at the last event that went out with all before it. Ctrl-C stops
/// it too: no publish starts after it, those in flight finish, what went out is flushed, and
/// the replay stops at the last event acknowledged with all before it (events of other keys
/// acknowledged after it go again on resume, as after a failure).
pub async fn run(
    source: &mut impl ReplaySource,
    to: &mut Destinations,
    pace: &Pace,
    mut progress: impl FnMut(&Tally),
) -> Result<Tally, Stopped> {
    let mut tally = Tally::default();
    // with a rate: when the last send started (the next waits 1/rate after it)
    let mut last_send: Option<tokio::time::Instant> = None;
    let stop = |tally, error| Stopped { tally, error };
    // listening before taking Ctrl-C over: none falls between the two
    let interrupted = crate::interrupt::next();
    let _taken = crate::interrupt::take();
    tokio::pin!(interrupted);
    loop {
        let left = pace.limit.map(|l| l.saturating_sub(tally.count));
        if left == Some(0) {
            return Ok(tally);
        }
        let want = left.map_or(PAGE, |l| l.min(u64::from(PAGE)) as u32);
        let page = match source.next_page(want).await {
            Ok(p) => p,
            Err(e) => return Err(stop(tally, e)),
        };
        if page.is_empty() {
            return Ok(tally);
        }
        let mut publishers = Vec::with_capacity(page.len());
        for item in &page {
            match to.get(&item.message.route).await {
                Ok(p) => publishers.push(p),
                Err(e) => return Err(stop(tally, e)),
            }
        }
        let serial = pace.rate.is_some() || publishers.iter().any(|p| p.serial());
        let mut trace = Root::begin("replay page");
        if trace.is_on() {
            trace.start(vec![KeyValue::new(
                "outboxctl.replay.events",
                page.len() as i64,
            )]);
        }
        let began = trace.now();
        // set on Ctrl-C: no publish of the page starts after it, those in flight finish
        let halt = AtomicBool::new(false);
        let publishing = trace.attach(publish_page(
            &page,
            &publishers,
            serial,
            pace.tries,
            pace.rate
                .map(|rate| (Duration::from_secs_f64(1.0 / rate), &mut last_send)),
            &halt,
        ));
        let publishing = publishing.instrument(trace.log_span());
        tokio::pin!(publishing);
        let outcome = tokio::select! {
            // a Ctrl-C heard while the page was read: nothing of it starts
            biased;
            _ = &mut interrupted => {
                halt.store(true, Ordering::SeqCst);
                publishing.await
            }
            o = &mut publishing => o,
        };
        let interrupted_now = halt.load(Ordering::SeqCst);
        let (done, failed) = outcome;
        let outcome = failed.map_or(Ok(()), Err);
        // What went out is durable before it counts (a file is fsynced).
        let mut unique: Vec<&Arc<dyn Publisher>> = Vec::new();
        for p in &publishers {
            if !unique.iter().any(|u| Arc::ptr_eq(u, p)) {
                unique.push(p);
            }
        }
        let mut flushed = Ok(());
        for p in unique {
            if let Err(e) = p.flush().await {
                flushed = Err((p, e));
                break;
            }
        }
        if let Some(began) = began {
            let sent = trace::PageOutcome {
                done,
                failed: outcome.as_ref().err().map(|(_, e)| e),
                flush: flushed.as_ref().err().map(|(p, e)| (*p, e)),
            };
            trace::page_sends(&trace, began, &page, &publishers, &sent);
        }
        let failure = match (&flushed, &outcome) {
            (Err((_, e)), _)
                if crate::destination::lines::reader_quit(e) && writes_to_stdout(&to.shown()) =>
            {
                Some(Error::from(ReplayError::ReaderQuit))
            }
            (Err((_, e)), _) => Some(Error::from(ReplayError::Publish {
                what: format!("flushing {}", to.shown()),
                reason: e.to_string(),
            })),
            (_, Err((i, e))) => Some(page_failure(&page, *i, e)),
            _ => None,
        };
        trace.end(
            vec![KeyValue::new("outboxctl.replay.sent", done as i64)],
            failure.as_ref().map(ToString::to_string).as_deref(),
        );
        if flushed.is_err() {
            return Err(stop(tally, failure.expect("a failed flush")));
        }
        for item in &page[..done] {
            tally.add(item);
        }
        progress(&tally);
        if let Some(e) = failure {
            return Err(stop(tally, e));
        }
        if interrupted_now {
            let e = Error::Interrupted("interrupted (Ctrl-C)".into());
            return Err(stop(tally, e));
        }
    }
}

#[cfg(test)]
mod tests;
