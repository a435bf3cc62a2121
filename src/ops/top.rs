//! What `outboxctl top` computes between refreshes, pure: capped counts for people, rates
//! from two readings of a counter, and a relay's state read off its `/metrics` text
//! (destinations up or down, quantiles of its histograms). No I/O, no terminal.

use std::collections::BTreeMap;

use serde::Serialize;

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

/// An age for people: `850ms`, `12s`, `4m05s`, `3h12m`, `2d04h`.
pub fn age(seconds: f64) -> String {
    let s = seconds.max(0.0);
    if s < 1.0 {
        return format!("{}ms", (s * 1000.0) as u64);
    }
    let s = s as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        3600..86400 => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
        _ => format!("{}d{:02}h", s / 86400, s % 86400 / 3600),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_ages_read_as_people_expect() {
        assert_eq!(count(9_999), "9,999");
        assert_eq!(count(10_000), "10,000");
        assert_eq!(count(10_001), "10,000+");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(0), "0");
        assert_eq!(age(0.85), "850ms");
        assert_eq!(age(245.0), "4m05s");
        assert_eq!(age(11_520.0), "3h12m");
        assert_eq!(age(187_200.0), "2d04h");
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
}
