//! What `outboxctl top` shows, refresh after refresh: capped counts for people, rates from two
//! readings of a counter, and a relay's state read off its `/metrics` text (destinations up or
//! down, quantiles of its histograms), all pure; and the [`Source`] that reads them: per route
//! (and tenant) the bounded counts of [`Glance`], failure groups from a sample of failed rows,
//! the table's statistics and each relay's metrics over HTTP, a route's rows, and requeueing a
//! group. No terminal: the command draws what these return.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::Error;
use crate::config::Config;
use crate::ops::failure_groups::{FailureGroup, group};
use crate::ops::requeue::{self, Action, Selection};
use crate::store::any::Outboxes;
use crate::store::backend::Backend;
use crate::store::ops::{Activity, ErrorFilter, Glance, ListStatus, OpsStore, RowFilter, RowView};

/// Failed rows each refresh groups, at most (the groups are then a sample).
pub const GROUP_SAMPLE: i64 = 1_000;

/// Counts stop at this many rows (a refresh reads no more of a range).
pub const CAP: i64 = 10_000;

/// A capped count as people read it: `10,000+` past the cap.
pub fn count(n: i64) -> String {
    if n > CAP {
        format!("{}+", thousands(CAP))
    } else {
        thousands(n)
    }
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

/// A rate as people read it: `120/s`, `—` when unknown.
pub fn per_second(r: Option<f64>) -> String {
    r.map_or("—".into(), |r| format!("{r:.0}/s"))
}

/// A failure group in one line: its id, rows, routes and its error's first line.
pub fn group_line(g: &FailureGroup) -> String {
    let routes: Vec<String> = g.routes.iter().map(|(r, n)| format!("{r}:{n}")).collect();
    format!(
        "{}  {:>6}  {}  {}",
        g.id,
        thousands(g.count),
        routes.join(","),
        g.sample_error.lines().next().unwrap_or_default()
    )
}

/// Per second, from two readings of a counter `seconds` apart (`None` on the first reading, or
/// when the counter went back: a restart or a statistics reset).
pub fn rate(before: Option<f64>, now: f64, seconds: f64) -> Option<f64> {
    let b = before?;
    (now >= b && seconds > 0.0).then(|| (now - b) / seconds)
}

/// One sample of the Prometheus text format.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub value: f64,
}

impl Sample {
    pub fn label(&self, name: &str) -> &str {
        self.labels.get(name).map_or("", String::as_str)
    }
}

/// Parses the text exposition format (comments skipped; escaped label values unescaped).
pub fn parse_metrics(text: &str) -> Vec<Sample> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (head, value) = match line.rfind(' ') {
            Some(i) => (&line[..i], &line[i + 1..]),
            None => continue,
        };
        let Ok(value) = value.parse::<f64>() else {
            continue;
        };
        let (name, labels) = match head.find('{') {
            Some(i) if head.ends_with('}') => {
                (&head[..i], parse_labels(&head[i + 1..head.len() - 1]))
            }
            _ => (head, BTreeMap::new()),
        };
        out.push(Sample {
            name: name.to_owned(),
            labels,
            value,
        });
    }
    out
}

fn parse_labels(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut chars = text.chars().peekable();
    loop {
        let name: String = chars.by_ref().take_while(|&c| c != '=').collect();
        if name.is_empty() || chars.next() != Some('"') {
            return out;
        }
        let mut value = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some('n') => value.push('\n'),
                    Some(other) => value.push(other),
                    None => {}
                },
                '"' => break,
                c => value.push(c),
            }
        }
        out.insert(name.trim_start_matches(',').trim().to_owned(), value);
        if chars.peek() == Some(&',') {
            chars.next();
        }
    }
}

/// `histogram_quantile`: the `q` quantile of a histogram given as cumulative `(le, count)`
/// buckets (`+Inf` last), interpolated linearly within the bucket, as Prometheus does.
pub fn histogram_quantile(q: f64, buckets: &[(f64, f64)]) -> Option<f64> {
    let total = buckets.last()?.1;
    if total <= 0.0 {
        return None;
    }
    let rank = q.clamp(0.0, 1.0) * total;
    let mut prev = (0.0, 0.0);
    for &(le, n) in buckets {
        if n >= rank {
            if le.is_infinite() {
                return Some(prev.0);
            }
            let width = n - prev.1;
            let within = if width > 0.0 {
                (rank - prev.1) / width
            } else {
                1.0
            };
            return Some(prev.0 + (le - prev.0) * within);
        }
        prev = (le, n);
    }
    Some(prev.0)
}

/// Buckets of histogram `name` summed over every other label, cumulative, in `le` order.
fn buckets(samples: &[Sample], name: &str) -> Vec<(f64, f64)> {
    let mut by_le: BTreeMap<u64, (f64, f64)> = BTreeMap::new();
    let bucket = format!("{name}_bucket");
    for s in samples.iter().filter(|s| s.name == bucket) {
        let le = match s.label("le") {
            "+Inf" => f64::INFINITY,
            v => match v.parse::<f64>() {
                Ok(x) => x,
                Err(_) => continue,
            },
        };
        let e = by_le.entry(le.to_bits()).or_insert((le, 0.0));
        e.1 += s.value;
    }
    let mut out: Vec<(f64, f64)> = by_le.into_values().collect();
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out
}

/// A relay as its `/metrics` shows it.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct RelayView {
    pub url: String,
    /// Why it could not be read (`None`: it answered).
    pub error: Option<String>,
    /// Whether its database answers, with the reason when it does not (`None`: the relay does
    /// not say).
    pub database: Option<(bool, Option<String>)>,
    /// Each destination and whether it is up, with the reason when down.
    pub destinations: Vec<(String, bool, Option<String>)>,
    /// Rows published so far, per route (all tenants).
    pub published: BTreeMap<String, f64>,
    /// Published per second per route, between this refresh and the last.
    pub published_per_second: BTreeMap<String, f64>,
    pub publish_p50_ms: Option<f64>,
    pub publish_p99_ms: Option<f64>,
    pub lag_p50_ms: Option<f64>,
    pub lag_p99_ms: Option<f64>,
    pub wakes: f64,
}

impl RelayView {
    /// The relay in one line: up or down, its database, publish and lag quantiles, and its
    /// destinations.
    pub fn line(&self) -> String {
        let r = self;
        if let Some(e) = &r.error {
            return format!("{}  DOWN  {e}", r.url);
        }
        let ms = |v: Option<f64>| v.map_or("—".into(), |v| format!("{v:.1}ms"));
        let down: Vec<String> = r
            .destinations
            .iter()
            .filter(|(_, up, _)| !up)
            .map(|(d, _, why)| format!("{d} down: {}", why.as_deref().unwrap_or("?")))
            .collect();
        let database = match &r.database {
            Some((false, why)) => format!(
                "  DATABASE AWAY: {}",
                why.as_deref().unwrap_or("no reason given")
            ),
            _ => String::new(),
        };
        format!(
            "{}  up{database}  publish p50 {} p99 {}  lag p50 {} p99 {}  destinations {} ({})",
            r.url,
            ms(r.publish_p50_ms),
            ms(r.publish_p99_ms),
            ms(r.lag_p50_ms),
            ms(r.lag_p99_ms),
            r.destinations.len(),
            if down.is_empty() {
                "all up".into()
            } else {
                down.join("; ")
            }
        )
    }

    /// Reads a relay's metrics text (`before`: the last reading, for rates `seconds` ago).
    pub fn read(url: &str, text: &str, before: Option<&RelayView>, seconds: f64) -> Self {
        let samples = parse_metrics(text);
        let mut view = RelayView {
            url: url.to_owned(),
            ..Default::default()
        };
        let down: BTreeMap<&str, &str> = samples
            .iter()
            .filter(|s| s.name == "outboxctl_destination_down_info")
            .map(|s| (s.label("destination"), s.label("reason")))
            .collect();
        for s in &samples {
            match s.name.as_str() {
                "outboxctl_destination_up" => {
                    let d = s.label("destination");
                    view.destinations.push((
                        d.to_owned(),
                        s.value > 0.0,
                        down.get(d).map(|r| (*r).to_owned()),
                    ));
                }
                "outboxctl_database_up" => {
                    let why = samples
                        .iter()
                        .find(|s| s.name == "outboxctl_database_away_info")
                        .map(|s| s.label("reason").to_owned());
                    view.database = Some((s.value > 0.0, why));
                }
                "outboxctl_published_total" => {
                    *view
                        .published
                        .entry(s.label("route").to_owned())
                        .or_default() += s.value;
                }
                "outboxctl_wakes_total" => view.wakes += s.value,
                _ => {}
            }
        }
        let ms = |q: f64, name: &str| {
            histogram_quantile(q, &buckets(&samples, name)).map(|s| s * 1000.0)
        };
        view.publish_p50_ms = ms(0.5, "outboxctl_publish_duration_seconds");
        view.publish_p99_ms = ms(0.99, "outboxctl_publish_duration_seconds");
        view.lag_p50_ms = ms(0.5, "outboxctl_delivery_lag_seconds");
        view.lag_p99_ms = ms(0.99, "outboxctl_delivery_lag_seconds");
        if let Some(b) = before {
            for (route, &n) in &view.published {
                if let Some(r) = rate(b.published.get(route).copied(), n, seconds) {
                    view.published_per_second.insert(route.clone(), r);
                }
            }
        }
        view
    }
}

/// A route (and tenant) as one refresh saw it.
#[derive(Debug, Clone, Serialize)]
pub struct RouteRow {
    #[serde(flatten)]
    pub glance: Glance,
    pub oldest_ripe_age_seconds: Option<f64>,
    /// From the relays' metrics, when given.
    pub delivered_per_second: Option<f64>,
    /// The route is paused (`outboxctl route pause`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paused: Option<crate::fleet::Pause>,
}

/// One refresh.
#[derive(Debug, Clone, Serialize)]
pub struct Snapshot {
    pub outbox: String,
    pub storage: String,
    pub at: DateTime<Utc>,
    pub refresh_ms: f64,
    /// Counts stop here (`cap+`).
    pub cap: i64,
    /// Rows inserted per second (PostgreSQL's table statistics; any writer).
    pub staged_per_second: Option<f64>,
    /// Deliveries per second: the relays' metrics, else (consume storage) the table's deletes.
    pub delivered_per_second: Option<f64>,
    pub routes: Vec<RouteRow>,
    pub groups: Vec<FailureGroup>,
    /// The groups were made from the first failed rows only.
    pub groups_sampled: bool,
    pub relays: Vec<RelayView>,
    /// The relays registered (`outbox.registry`), when there is a registry.
    pub registered: Vec<crate::fleet::RelayRecord>,
}

impl Snapshot {
    /// The first line: the outbox, its storage, what is staged and delivered per second, how
    /// long the refresh took.
    pub fn headline(&self) -> String {
        format!(
            "outboxctl top — {} ({} storage)  staged {}  delivered {}  refreshed in {:.0} ms",
            self.outbox,
            self.storage,
            per_second(self.staged_per_second),
            per_second(self.delivered_per_second),
            self.refresh_ms
        )
    }

    /// The failure groups with rows on `route` (all of them without one).
    pub fn groups_on(&self, route: Option<&str>) -> Vec<&FailureGroup> {
        self.groups
            .iter()
            .filter(|g| route.is_none_or(|r| g.routes.contains_key(r)))
            .collect()
    }
}

/// What the view reads from, refresh after refresh: one connection to the outbox, and the
/// last readings rates are computed from.
pub struct Source<'a> {
    config: &'a Config,
    outboxes: Outboxes,
    relays: Vec<String>,
    http: reqwest::Client,
    /// The last table statistics and relay readings, for rates.
    last_activity: Option<(Instant, Activity)>,
    last_relays: HashMap<String, (Instant, RelayView)>,
    /// The relay registry, when the configuration has one and its table answers.
    registry: Option<crate::store::registry::Registry>,
}

impl<'a> Source<'a> {
    /// Checks the relays' URLs, resolves the targets and connects within `connect_timeout`.
    pub async fn open(
        config: &'a Config,
        connect_timeout: Duration,
        relays: Vec<String>,
    ) -> Result<Self, Error> {
        for url in &relays {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(crate::config::ConfigError::Invalid(format!(
                    "--relay {url:?}: give the relay's metrics endpoint as http://HOST:PORT (its --metrics-addr)"
                ))
                .into());
            }
        }
        let outboxes = Backend::of(config, connect_timeout).outboxes(None).await?;
        let http = reqwest::Client::builder()
            .timeout(Duration::from_millis(800))
            .build()
            .map_err(|e| Error::io("building an HTTP client", std::io::Error::other(e)))?;
        let registry = Backend::of(config, connect_timeout).registry().await.ok();
        Ok(Self {
            config,
            outboxes,
            relays,
            http,
            last_activity: None,
            last_relays: HashMap::new(),
            registry,
        })
    }

    /// Reads one relay's metrics; a relay that does not answer is a view with its error.
    async fn relay(&mut self, url: &str) -> RelayView {
        let metrics = format!("{}/metrics", url.trim_end_matches('/'));
        let now = Instant::now();
        let before = self.last_relays.get(url);
        let text = match self.http.get(&metrics).send().await {
            Ok(r) if r.status().is_success() => r.text().await.map_err(|e| e.to_string()),
            Ok(r) => Err(format!("HTTP {}", r.status().as_u16())),
            Err(e) => Err(crate::db::first_line(&e.to_string())),
        };
        match text {
            Ok(text) => {
                let seconds = before.map_or(0.0, |(t, _)| now.duration_since(*t).as_secs_f64());
                let v = RelayView::read(url, &text, before.map(|(_, v)| v), seconds);
                self.last_relays.insert(url.to_owned(), (now, v.clone()));
                v
            }
            Err(e) => RelayView {
                url: url.to_owned(),
                error: Some(e),
                ..Default::default()
            },
        }
    }

    /// One snapshot on its own, with rates where they can be had (relays given, or
    /// PostgreSQL's statistics): a first reading, a pause of `interval` (a second at most),
    /// then the snapshot.
    pub async fn one(
        &mut self,
        filter: Option<&str>,
        interval: Duration,
    ) -> Result<Snapshot, Error> {
        if !self.relays.is_empty() || self.config.backend == crate::dburl::Backend::Postgres {
            self.snapshot(filter).await?;
            tokio::time::sleep(interval.min(Duration::from_secs(1))).await;
        }
        self.snapshot(filter).await
    }

    /// One refresh: routes whose name contains `filter` (all without one), failure groups
    /// from a sample of failed rows, rates since the last refresh, and the relays.
    pub async fn snapshot(&mut self, filter: Option<&str>) -> Result<Snapshot, Error> {
        let started = Instant::now();
        let now = Utc::now();
        let mut routes = Vec::new();
        let mut failed_rows = Vec::new();
        let mut sampled = false;
        let mut activity: Option<Activity> = None;
        // a table's statistics once, however many of its tenants are targets
        let mut counted = std::collections::HashSet::new();
        for i in 0..self.outboxes.len() {
            let target = self.outboxes.target(i);
            let (tenant, first) = (target.tenant(), counted.insert(target.table().cloned()));
            let mut ops = self.outboxes.open(i).await?;
            let read = if first { ops.activity().await? } else { None };
            if let Some(a) = read {
                let sum = activity.get_or_insert_with(Default::default);
                sum.inserted += a.inserted;
                sum.updated += a.updated;
                sum.deleted += a.deleted;
            }
            for route in ops.routes().await? {
                if filter.is_some_and(|f| !route.contains(f)) {
                    continue;
                }
                let glance = ops.glance(&route, tenant, now, CAP).await?;
                let age = glance
                    .oldest_ripe
                    .map(|o| (now - o).num_milliseconds().max(0) as f64 / 1000.0);
                routes.push(RouteRow {
                    glance,
                    oldest_ripe_age_seconds: age,
                    delivered_per_second: None,
                    paused: None,
                });
            }
            let rows = ops
                .error_rows(&ErrorFilter {
                    tenant,
                    limit: Some(GROUP_SAMPLE),
                    ..Default::default()
                })
                .await?;
            sampled |= rows.len() as i64 >= GROUP_SAMPLE;
            failed_rows.extend(
                rows.into_iter()
                    .filter(|r| filter.is_none_or(|f| r.route.contains(f))),
            );
        }
        // table-wide rates between this refresh and the last
        let at = Instant::now();
        let (mut staged, mut deleted) = (None, None);
        if let Some(a) = activity {
            if let Some((t, b)) = self.last_activity {
                let secs = at.duration_since(t).as_secs_f64();
                staged = rate(Some(b.inserted as f64), a.inserted as f64, secs);
                deleted = rate(Some(b.deleted as f64), a.deleted as f64, secs);
            }
            self.last_activity = Some((at, a));
        }
        let mut relays = Vec::new();
        for url in self.relays.clone() {
            relays.push(self.relay(&url).await);
        }
        let mut delivered_total: Option<f64> = None;
        for r in &mut routes {
            let per: Vec<f64> = relays
                .iter()
                .filter_map(|v| v.published_per_second.get(&r.glance.route).copied())
                .collect();
            if !per.is_empty() && r.glance.tenant.is_none() {
                let sum: f64 = per.iter().sum();
                r.delivered_per_second = Some(sum);
                *delivered_total.get_or_insert(0.0) += sum;
            }
        }
        // the registry is extra: a missing table or a failed read shows no relays, no pauses
        let (registered, pauses) = match &mut self.registry {
            Some(reg) => (
                reg.relays().await.unwrap_or_default(),
                reg.pauses(false).await.unwrap_or_default(),
            ),
            None => (Vec::new(), Vec::new()),
        };
        let pauses = crate::fleet::PauseSet(pauses.into_iter().map(|p| p.pause).collect());
        for r in &mut routes {
            r.paused = pauses.find(&r.glance.route, r.glance.tenant).cloned();
        }
        let consume = self.config.outbox.storage == crate::model::Storage::Consume;
        Ok(Snapshot {
            outbox: self.config.outbox.target.to_string(),
            storage: self.config.outbox.storage.to_string(),
            at: now,
            refresh_ms: started.elapsed().as_secs_f64() * 1000.0,
            cap: CAP,
            staged_per_second: staged,
            delivered_per_second: delivered_total.or(if consume { deleted } else { None }),
            routes,
            groups: group(&failed_rows),
            groups_sampled: sampled,
            relays,
            registered,
        })
    }

    /// The oldest pending and failed rows of a route, for the detail view.
    pub async fn rows(&mut self, route: &RouteRow) -> Result<Vec<RowView>, Error> {
        let mut out = Vec::new();
        for i in 0..self.outboxes.len() {
            if self.outboxes.target(i).tenant() != route.glance.tenant {
                continue;
            }
            let mut ops = self.outboxes.open(i).await?;
            for status in [ListStatus::Pending, ListStatus::Failed] {
                let f = RowFilter {
                    status,
                    route: Some(route.glance.route.clone()),
                    tenant: route.glance.tenant,
                    event_type: None,
                    older_than: None,
                    error_contains: None,
                    after: None,
                    limit: 10,
                };
                out.extend(ops.list(&f, Utc::now()).await?);
            }
        }
        Ok(out)
    }

    /// How many failed rows group `id` has on `on`'s route (and tenant) now: what `r` asks
    /// about.
    pub async fn group_rows(&mut self, id: &str, on: &Glance) -> Result<usize, Error> {
        let picked = requeue::select_in(&mut self.outboxes, &group_on(id, on)).await?;
        Ok(picked.ids.len())
    }

    /// Requeues the failed rows of group `id` on `on`'s route (and tenant) as they are now
    /// (what `requeue --group ID --route R` does); returns how many.
    pub async fn requeue_group(&mut self, id: &str, on: &Glance) -> Result<usize, Error> {
        let picked = requeue::select_in(&mut self.outboxes, &group_on(id, on)).await?;
        let done = requeue::apply_in(&mut self.outboxes, &picked, Action::Requeue, |_| {}).await?;
        Ok(done.count)
    }
}

/// The failed rows of group `id` on one row of the view: its route and tenant, not the group's
/// rows elsewhere (the view shows the groups of the selected route).
fn group_on(id: &str, on: &Glance) -> Selection {
    Selection {
        groups: vec![id.to_owned()],
        route: Some(on.route.clone()),
        tenant: on.tenant,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_rates_read_as_people_expect() {
        assert_eq!(count(9_999), "9,999");
        assert_eq!(count(10_000), "10,000");
        assert_eq!(count(10_001), "10,000+");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(0), "0");
        assert_eq!(rate(Some(10.0), 40.0, 2.0), Some(15.0));
        assert_eq!(rate(None, 40.0, 2.0), None);
        assert_eq!(rate(Some(50.0), 40.0, 2.0), None, "a reset is not a rate");
    }

    #[test]
    fn a_relays_metrics_read_back() {
        let text = r#"# HELP outboxctl_published_total Rows published and marked.
# TYPE outboxctl_published_total counter
outboxctl_published_total{route="orders",tenant=""} 30
outboxctl_published_total{route="orders",tenant="t1"} 10
outboxctl_published_total{route="bill\"ing",tenant=""} 5
outboxctl_destination_up{destination="nats://a"} 0
outboxctl_destination_up{destination="file:/x"} 1
outboxctl_destination_down_info{destination="nats://a",reason="connection refused"} 1
outboxctl_publish_duration_seconds_bucket{le="0.001"} 50
outboxctl_publish_duration_seconds_bucket{le="0.01"} 100
outboxctl_publish_duration_seconds_bucket{le="+Inf"} 100
outboxctl_delivery_lag_seconds_bucket{route="orders",tenant="",le="0.1"} 10
outboxctl_delivery_lag_seconds_bucket{route="orders",tenant="",le="1"} 20
outboxctl_delivery_lag_seconds_bucket{route="orders",tenant="",le="+Inf"} 20
outboxctl_wakes_total{route="orders"} 7
outboxctl_database_up 0
outboxctl_database_away_info{reason="reconnecting: connection refused"} 1
"#;
        let before = RelayView {
            published: [("orders".to_owned(), 20.0)].into(),
            ..Default::default()
        };
        let v = RelayView::read("http://r:9464", text, Some(&before), 2.0);
        assert_eq!(v.published["orders"], 40.0);
        assert_eq!(v.published["bill\"ing"], 5.0);
        assert_eq!(v.published_per_second["orders"], 10.0);
        assert_eq!(
            v.destinations[0],
            ("nats://a".into(), false, Some("connection refused".into()))
        );
        assert!(v.destinations[1].1);
        assert!((v.publish_p50_ms.unwrap() - 1.0).abs() < 1e-9);
        assert!((v.publish_p99_ms.unwrap() - 9.82).abs() < 1e-6);
        assert!((v.lag_p50_ms.unwrap() - 100.0).abs() < 1e-6);
        assert_eq!(v.wakes, 7.0);
        assert_eq!(
            v.database,
            Some((false, Some("reconnecting: connection refused".into())))
        );
        assert_eq!(histogram_quantile(0.5, &[]), None);
    }

    #[test]
    fn a_relays_line_says_when_its_database_is_away() {
        let mut r = RelayView {
            url: "http://r:9464".into(),
            database: Some((true, None)),
            ..Default::default()
        };
        assert!(!r.line().contains("DATABASE"), "{}", r.line());
        r.database = Some((false, Some("reconnecting: connection refused".into())));
        assert!(
            r.line().starts_with(
                "http://r:9464  up  DATABASE AWAY: reconnecting: connection refused  publish"
            ),
            "{}",
            r.line()
        );
    }
}
