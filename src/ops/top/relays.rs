//! `top --relay`: a relay's `/metrics` read back (the Prometheus text format, histogram
//! quantiles) into a [`RelayView`].

use std::collections::BTreeMap;

use serde::Serialize;

use super::rate;

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

fn database_json<S: serde::Serializer>(
    db: &Option<(bool, Option<String>)>,
    s: S,
) -> Result<S::Ok, S::Error> {
    let db = db
        .as_ref()
        .map(|(up, reason)| serde_json::json!({ "up": up, "reason": reason }));
    serde::Serialize::serialize(&db, s)
}

fn destinations_json<S: serde::Serializer>(
    all: &[(String, bool, Option<String>)],
    s: S,
) -> Result<S::Ok, S::Error> {
    let each = |(d, up, reason): &(String, bool, Option<String>)| serde_json::json!({ "destination": d, "up": up, "reason": reason });
    s.collect_seq(all.iter().map(each))
}

/// A relay as its `/metrics` shows it.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct RelayView {
    pub url: String,
    /// Why it could not be read (`None`: it answered).
    pub error: Option<String>,
    /// Whether its database answers, with the reason when it does not (`None`: the relay does
    /// not say). JSON: `{"up": …, "reason": …}`.
    #[serde(serialize_with = "database_json")]
    pub database: Option<(bool, Option<String>)>,
    /// Each destination and whether it is up, with the reason when down. JSON: objects with
    /// `destination`, `up` and `reason` (arrays a script had to read by position).
    #[serde(serialize_with = "destinations_json")]
    pub destinations: Vec<(String, bool, Option<String>)>,
    /// Rows published so far, per route (all tenants).
    pub published: BTreeMap<String, f64>,
    /// Published per second per route, between this refresh and the last.
    pub published_per_second: BTreeMap<String, f64>,
    /// Rows published so far, per route and tenant (`""`: none), as the metrics label them.
    #[serde(skip)]
    pub published_by_tenant: BTreeMap<(String, String), f64>,
    /// Published per second per route and tenant, between this refresh and the last.
    #[serde(skip)]
    pub per_second_by_tenant: BTreeMap<(String, String), f64>,
    /// Quantiles of what was observed since the last refresh (since the relay started on the
    /// first, or when nothing was observed in between, or the relay restarted).
    pub publish_p50_ms: Option<f64>,
    pub publish_p99_ms: Option<f64>,
    pub lag_p50_ms: Option<f64>,
    pub lag_p99_ms: Option<f64>,
    pub wakes: f64,
    /// The histograms' cumulative buckets as read, by name: the next refresh's base.
    #[serde(skip)]
    pub histograms: BTreeMap<&'static str, Vec<(f64, f64)>>,
}

/// What a histogram observed since `before`: bucket by bucket the difference, when the same
/// buckets grew by something; else (a first reading, a quiet interval, a restarted relay) the
/// buckets as they are.
fn since(now: Vec<(f64, f64)>, before: Option<&Vec<(f64, f64)>>) -> Vec<(f64, f64)> {
    let Some(before) = before.filter(|b| b.len() == now.len()) else {
        return now;
    };
    let delta: Vec<(f64, f64)> = (now.iter().zip(before))
        .map(|(&(le, n), &(ble, bn))| (le, if le == ble { n - bn } else { f64::NAN }))
        .collect();
    let grew = delta.last().is_some_and(|&(_, n)| n > 0.0);
    if grew && delta.iter().all(|&(_, n)| n >= 0.0) {
        delta
    } else {
        now
    }
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
            url: crate::dburl::mask(url),
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
                    let (route, tenant) = (s.label("route"), s.label("tenant"));
                    *view.published.entry(route.to_owned()).or_default() += s.value;
                    let key = (route.to_owned(), tenant.to_owned());
                    *view.published_by_tenant.entry(key).or_default() += s.value;
                }
                "outboxctl_wakes_total" => view.wakes += s.value,
                _ => {}
            }
        }
        let mut quantiles = |name: &'static str| {
            let now = buckets(&samples, name);
            let seen = since(now.clone(), before.and_then(|b| b.histograms.get(name)));
            view.histograms.insert(name, now);
            let ms = |q: f64| histogram_quantile(q, &seen).map(|s| s * 1000.0);
            (ms(0.5), ms(0.99))
        };
        (view.publish_p50_ms, view.publish_p99_ms) =
            quantiles("outboxctl_publish_duration_seconds");
        (view.lag_p50_ms, view.lag_p99_ms) = quantiles("outboxctl_delivery_lag_seconds");
        if let Some(b) = before {
            for (route, &n) in &view.published {
                if let Some(r) = rate(b.published.get(route).copied(), n, seconds) {
                    view.published_per_second.insert(route.clone(), r);
                }
            }
            for (key, &n) in &view.published_by_tenant {
                if let Some(r) = rate(b.published_by_tenant.get(key).copied(), n, seconds) {
                    view.per_second_by_tenant.insert(key.clone(), r);
                }
            }
        }
        view
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let key = |route: &str, tenant: &str| (route.to_owned(), tenant.to_owned());
        let before = RelayView {
            published: [("orders".to_owned(), 20.0)].into(),
            published_by_tenant: [(key("orders", ""), 14.0), (key("orders", "t1"), 6.0)].into(),
            ..Default::default()
        };
        let v = RelayView::read("http://r:9464", text, Some(&before), 2.0);
        assert_eq!(v.published["orders"], 40.0);
        assert_eq!(v.published["bill\"ing"], 5.0);
        assert_eq!(v.published_per_second["orders"], 10.0);
        // each tenant's own rate, for the rows of a tenant-aware outbox
        assert_eq!(v.per_second_by_tenant[&key("orders", "")], 8.0);
        assert_eq!(v.per_second_by_tenant[&key("orders", "t1")], 2.0);
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
        // shown, a relay's URL keeps its password out
        let v = RelayView::read("http://admin:s3cret@r:9464", "", None, 0.0);
        assert_eq!(v.url, "http://admin:****@r:9464");
    }

    /// The lag quantiles are those of the interval: a jump to 60 s after a day of 0.05 s shows
    /// at once (the lifetime's p99 stayed low for hours); a quiet interval or a restarted relay
    /// shows the buckets as read.
    #[test]
    fn quantiles_are_of_what_happened_since_the_last_refresh() {
        let text = |fast: u32, slow: u32| {
            let lag = "outboxctl_delivery_lag_seconds_bucket{route=\"orders\",tenant=\"\"";
            let (all, to_1s) = (fast + slow, fast);
            format!(
                "{lag},le=\"0.1\"}} {fast}\n{lag},le=\"1\"}} {to_1s}\n{lag},le=\"100\"}} {all}\n{lag},le=\"+Inf\"}} {all}\n"
            )
        };
        let first = RelayView::read("http://r:1", &text(10_000, 0), None, 0.0);
        assert!(first.lag_p99_ms.unwrap() <= 100.0, "{:?}", first.lag_p99_ms);
        let jump = RelayView::read("http://r:1", &text(10_000, 50), Some(&first), 1.0);
        assert!(jump.lag_p99_ms.unwrap() > 1_000.0, "{:?}", jump.lag_p99_ms);
        let quiet = RelayView::read("http://r:1", &text(10_000, 50), Some(&jump), 1.0);
        assert!(
            quiet.lag_p99_ms.unwrap() <= 100.0,
            "lifetime again: {:?}",
            quiet.lag_p99_ms
        );
        let restarted = RelayView::read("http://r:1", &text(5, 0), Some(&jump), 1.0);
        assert!(restarted.lag_p50_ms.unwrap() <= 100.0);
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

    #[test]
    fn its_json_names_each_field_of_the_database_and_the_destinations() {
        let r = RelayView {
            database: Some((false, Some("refused".into()))),
            destinations: vec![("nats://n:4222".into(), false, Some("no server".into()))],
            ..Default::default()
        };
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(
            v["database"],
            serde_json::json!({"up": false, "reason": "refused"})
        );
        let want = serde_json::json!([{"destination": "nats://n:4222", "up": false, "reason": "no server"}]);
        assert_eq!(v["destinations"], want);
    }
}
