//! What `outboxctl top` shows, refresh after refresh: capped counts for people, rates from two
//! readings of a counter, and a relay's state read off its `/metrics` text (destinations up or
//! down, quantiles of its histograms), all pure; and the [`Source`] that reads them: per route
//! (and tenant) the bounded counts of [`Glance`], failure groups from a sample of failed rows,
//! the table's statistics and each relay's metrics over HTTP, a route's rows, and requeueing a
//! group. No terminal: the command draws what these return.

use std::collections::HashMap;
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

mod relays;
pub use relays::{RelayView, Sample, histogram_quantile, parse_metrics};

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

/// The headline's delivered rate: every route the relays delivered on (matching the filter),
/// a route with no row left in the table too (a relay that keeps up, under consume).
fn delivered(relays: &[RelayView], filter: Option<&str>) -> Option<f64> {
    let rates: Vec<f64> = (relays.iter())
        .flat_map(|v| v.published_per_second.iter())
        .filter(|(route, _)| filter.is_none_or(|f| route.contains(f)))
        .map(|(_, r)| *r)
        .collect();
    (!rates.is_empty()).then(|| rates.iter().sum::<f64>())
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
    /// The database did not answer: why. The relays are read all the same (a relay's own
    /// `DATABASE AWAY` line is among them); the rest is the last screen's, or empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub database_away: Option<String>,
}

impl Snapshot {
    /// The first line: the outbox, its storage, what is staged and delivered per second, how
    /// long the refresh took.
    pub fn headline(&self) -> String {
        if let Some(why) = &self.database_away {
            let (outbox, storage) = (&self.outbox, &self.storage);
            return format!("outboxctl top — {outbox} ({storage} storage)  DATABASE AWAY: {why}");
        }
        format!(
            "outboxctl top — {} ({} storage)  staged {}  delivered {}  refreshed in {:.0} ms",
            self.outbox,
            self.storage,
            per_second(self.staged_per_second),
            per_second(self.delivered_per_second),
            self.refresh_ms
        )
    }

    /// The failure groups with rows on `route` (all of them without one) and, on a
    /// tenant-aware outbox, of `tenant`: a tenant's row lists its own groups, not another
    /// tenant's of the same route (whose `r` then found nothing to requeue).
    pub fn groups_on(&self, route: Option<&str>, tenant: Option<uuid::Uuid>) -> Vec<&FailureGroup> {
        groups_on(&self.groups, route, tenant)
    }
}

/// [`Snapshot::groups_on`] over `groups`.
fn groups_on<'a>(
    groups: &'a [FailureGroup],
    route: Option<&str>,
    tenant: Option<uuid::Uuid>,
) -> Vec<&'a FailureGroup> {
    let tenant = tenant.map(|t| t.to_string());
    (groups.iter())
        .filter(|g| route.is_none_or(|r| g.routes.contains_key(r)))
        .filter(|g| tenant.as_ref().is_none_or(|t| g.tenants.contains_key(t)))
        .collect()
}

/// What the view reads from, refresh after refresh: one connection to the outbox, and the
/// last readings rates are computed from.
pub struct Source<'a> {
    config: &'a Config,
    connect_timeout: Duration,
    /// None while the database is away: each refresh connects again.
    outboxes: Option<Outboxes>,
    /// Why the database could not be reached when top opened: the first refresh says so
    /// instead of waiting for a connection again.
    opened_away: Option<Error>,
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
        // a relay's address as `inspect relays` and --metrics-addr give it: HOST:PORT
        let relays: Vec<String> = (relays.into_iter())
            .map(|u| match u.contains("://") {
                true => u,
                false => format!("http://{u}"),
            })
            .collect();
        for url in &relays {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(crate::config::ConfigError::Invalid(format!(
                    "--relay {url:?}: give the relay's metrics endpoint as HOST:PORT or http://HOST:PORT (its --metrics-addr)"
                ))
                .into());
            }
        }
        let backend = Backend::of(config, connect_timeout);
        let (outboxes, opened_away) = match backend.outboxes(None).await {
            Ok(o) => (Some(o), None),
            // with relays to read, top opens without the database: their panel shows what
            // they see (a relay's DATABASE AWAY), and each refresh asks the database again
            Err(e) if !relays.is_empty() && e.is_away() => (None, Some(e)),
            Err(e) => return Err(e),
        };
        let http = reqwest::Client::builder()
            .timeout(Duration::from_millis(800))
            .build()
            .map_err(|e| Error::io("building an HTTP client", std::io::Error::other(e)))?;
        // the registry is opened with the outboxes' connection (again when that comes back)
        let registry = match outboxes {
            Some(_) => backend.registry().await.ok(),
            None => None,
        };
        Ok(Self {
            config,
            connect_timeout,
            outboxes,
            opened_away,
            relays,
            http,
            last_activity: None,
            last_relays: HashMap::new(),
            registry,
        })
    }

    /// Reads one relay's metrics; a relay that does not answer is a view with its error.
    async fn relay(&mut self, url: &str) -> RelayView {
        // the relay's address, or its endpoint as Prometheus scrapes it (`…/metrics`)
        let base = url.trim_end_matches('/');
        let metrics = format!("{}/metrics", base.strip_suffix("/metrics").unwrap_or(base));
        let now = Instant::now();
        let before = self.last_relays.get(url);
        let text = match self.http.get(&metrics).send().await {
            Ok(r) if r.status().is_success() => r.text().await.map_err(|e| e.to_string()),
            Ok(r) => Err(format!("HTTP {}", r.status().as_u16())),
            // the whole chain: reqwest's own line ("error sending request for url") hides why
            Err(e) => Err(crate::db::first_line(&crate::error::one_line(&e))),
        };
        match text {
            Ok(text) => {
                let seconds = before.map_or(0.0, |(t, _)| now.duration_since(*t).as_secs_f64());
                let v = RelayView::read(url, &text, before.map(|(_, v)| v), seconds);
                self.last_relays.insert(url.to_owned(), (now, v.clone()));
                v
            }
            Err(e) => RelayView {
                url: crate::dburl::mask(url),
                error: Some(e),
                ..Default::default()
            },
        }
    }

    /// One snapshot on its own, with rates where they can be had (relays given, or
    /// PostgreSQL's statistics): a first reading, a pause of `interval` (a second at most),
    /// then the snapshot; with the database away and relays given, their readings and why
    /// ([`Source::snapshot_or_away`]).
    pub async fn one(
        &mut self,
        filter: Option<&str>,
        interval: Duration,
    ) -> Result<(Snapshot, Option<Error>), Error> {
        if !self.relays.is_empty() || self.config.backend == crate::dburl::Backend::Postgres {
            let first = self.snapshot_or_away(filter).await?;
            if first.1.is_some() {
                return Ok(first);
            }
            tokio::time::sleep(interval.min(Duration::from_secs(1))).await;
        }
        self.snapshot_or_away(filter).await
    }

    /// A snapshot; with the database away and relays given, a snapshot of the relays alone
    /// (no routes), and the error: the relays' side of an outage is what the on-call needs.
    pub async fn snapshot_or_away(
        &mut self,
        filter: Option<&str>,
    ) -> Result<(Snapshot, Option<Error>), Error> {
        match self.snapshot(filter).await {
            Ok(s) => Ok((s, None)),
            Err(e) if !self.relays.is_empty() && e.is_away() => {
                let started = Instant::now();
                let relays = self.read_relays().await;
                let snap = Snapshot {
                    outbox: self.config.outbox.target.to_string(),
                    storage: self.config.outbox.storage.to_string(),
                    at: Utc::now(),
                    refresh_ms: started.elapsed().as_secs_f64() * 1000.0,
                    cap: CAP,
                    staged_per_second: None,
                    delivered_per_second: delivered(&relays, filter),
                    routes: Vec::new(),
                    groups: Vec::new(),
                    groups_sampled: false,
                    relays,
                    registered: Vec::new(),
                    database_away: Some(crate::error::one_line(&e)),
                };
                Ok((snap, Some(e)))
            }
            Err(e) => Err(e),
        }
    }

    /// One refresh: routes whose name contains `filter` (all without one), failure groups
    /// from a sample of failed rows, rates since the last refresh, and the relays. A lost
    /// connection (a restart, a failover, a pooler's idle timeout) is made again, once a
    /// refresh: the screen follows the database back instead of freezing on it.
    pub async fn snapshot(&mut self, filter: Option<&str>) -> Result<Snapshot, Error> {
        if let Some(e) = self.opened_away.take() {
            return Err(e);
        }
        let connected = self.outboxes.is_some();
        match self.read(filter).await {
            Err(e) if connected && e.is_away() => {
                self.outboxes = None;
                self.read(filter).await
            }
            read => read,
        }
    }

    /// Each relay's metrics, read now.
    pub async fn read_relays(&mut self) -> Vec<RelayView> {
        let mut relays = Vec::new();
        for url in self.relays.clone() {
            relays.push(self.relay(&url).await);
        }
        relays
    }

    /// The outboxes' connection, made again when there is none (the database was away); the
    /// registry is opened again then too, if it could not be.
    async fn outboxes(&mut self) -> Result<&mut Outboxes, Error> {
        let outboxes = match self.outboxes.take() {
            Some(o) => o,
            None => {
                self.last_activity = None;
                let backend = Backend::of(self.config, self.connect_timeout);
                let outboxes = backend.outboxes(None).await?;
                if self.registry.is_none() {
                    self.registry = backend.registry().await.ok();
                }
                outboxes
            }
        };
        Ok(self.outboxes.insert(outboxes))
    }

    async fn read(&mut self, filter: Option<&str>) -> Result<Snapshot, Error> {
        let started = Instant::now();
        let now = Utc::now();
        let mut routes = Vec::new();
        let mut failed_rows = Vec::new();
        let mut sampled = false;
        let mut activity: Option<Activity> = None;
        // a table's statistics once, however many of its tenants are targets
        let mut counted = std::collections::HashSet::new();
        let configured: Vec<String> = self.config.relay.routes.keys().cloned().collect();
        let outboxes = self.outboxes().await?;
        for i in 0..outboxes.len() {
            let target = outboxes.target(i);
            let (tenant, first) = (target.tenant(), counted.insert(target.table().cloned()));
            let mut ops = outboxes.open(i).await?;
            let read = if first { ops.activity().await? } else { None };
            if let Some(a) = read {
                let sum = activity.get_or_insert_with(Default::default);
                sum.inserted += a.inserted;
                sum.updated += a.updated;
                sum.deleted += a.deleted;
            }
            // a configured route without rows (consume storage deletes what it delivers) is a
            // row of zeros, not gone from the screen
            let mut names = ops.routes().await?;
            names.extend(configured.iter().cloned());
            names.sort();
            names.dedup();
            for route in names {
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
        let relays = self.read_relays().await;
        let delivered_total = delivered(&relays, filter);
        for r in &mut routes {
            // a tenant's row gets its own rate (the metrics label each tenant); else the route's
            let route = &r.glance.route;
            let per: Vec<f64> = (relays.iter())
                .filter_map(|v| match r.glance.tenant {
                    None => v.published_per_second.get(route),
                    Some(t) => v.per_second_by_tenant.get(&(route.clone(), t.to_string())),
                })
                .copied()
                .collect();
            if !per.is_empty() {
                r.delivered_per_second = Some(per.iter().sum());
            }
        }
        // the registry is extra: a failed read shows no relays, no pauses; a missing table or
        // collection (no `migrate` since the registry came) is not asked again each refresh
        let (mut registered, pauses) = match &mut self.registry {
            Some(reg) => match reg.relays().await {
                Err(e) if crate::store::registry::Registry::is_missing(&e) => {
                    self.registry = None;
                    (Vec::new(), Vec::new())
                }
                relays => (
                    relays.unwrap_or_default(),
                    reg.pauses(false).await.unwrap_or_default(),
                ),
            },
            None => (Vec::new(), Vec::new()),
        };
        crate::fleet::live_first(&mut registered);
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
            database_away: None,
        })
    }

    /// The oldest pending and failed rows of a route, for the detail view.
    pub async fn rows(&mut self, route: &RouteRow) -> Result<Vec<RowView>, Error> {
        let mut out = Vec::new();
        let outboxes = self.outboxes().await?;
        for i in 0..outboxes.len() {
            if outboxes.target(i).tenant() != route.glance.tenant {
                continue;
            }
            let mut ops = outboxes.open(i).await?;
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

    /// The failed rows group `id` has on `on`'s route (and tenant) now: what `r` asks about.
    pub async fn group_rows(&mut self, id: &str, on: &Glance) -> Result<requeue::Picked, Error> {
        requeue::select_in(self.outboxes().await?, &group_on(id, on)).await
    }

    /// Requeues the rows [`Source::group_rows`] picked, those still failed with the group's
    /// error (as `requeue --group ID --route R` acts on what it counted); returns how many.
    /// Rows that joined the group while the question was asked are not among them.
    pub async fn requeue_group(&mut self, picked: &requeue::Picked) -> Result<usize, Error> {
        let done = requeue::apply_in(
            self.outboxes().await?,
            picked,
            Action::Requeue,
            None,
            |_| {},
        )
        .await?;
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

    /// A tenant's row of the view lists the groups of its own failed rows, not another
    /// tenant's of the same route.
    #[test]
    fn a_tenants_groups_are_its_own() {
        let (a, b) = (uuid::Uuid::from_u128(0xa), uuid::Uuid::from_u128(0xb));
        let row = |tenant: uuid::Uuid, error: &str| crate::store::ops::RowView {
            id: uuid::Uuid::now_v7(),
            event_id: uuid::Uuid::now_v7(),
            route: "orders".into(),
            event_type: "t".into(),
            tenant_id: Some(tenant),
            ordering_key: None,
            status: "failed".into(),
            attempts: 5,
            available_at: None,
            created_at: Utc::now(),
            last_error: Some(error.into()),
        };
        let groups = crate::ops::failure_groups::group(&[
            row(a, "HTTP 503 from 10.0.0.7"),
            row(b, "order refused: 'sold out'"),
        ]);
        let ids = |tenant| -> Vec<&str> {
            (groups_on(&groups, Some("orders"), tenant).into_iter())
                .map(|g| g.sample_error.as_str())
                .collect()
        };
        assert_eq!(ids(Some(a)), ["HTTP 503 from 10.0.0.7"]);
        assert_eq!(ids(Some(b)), ["order refused: 'sold out'"]);
        assert_eq!(ids(None).len(), 2);
    }

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
}
