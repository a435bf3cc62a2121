//! A queue table's health: its churn against vacuum. The storage parameters that
//! `outbox.autovacuum: queue` makes `migrate` set (each with why), and the judgement `doctor`
//! prints from the server's statistics. Pure: no I/O.
//!
//! A consume outbox writes every event twice (an insert, then a delete) and keeps almost none:
//! between two vacuums its table is mostly dead rows, and its claim index leads with them. The
//! server's defaults vacuum a table once a fifth of it is dead, at a throttled pace, checking every
//! minute: right for tables that keep their rows, wrong for a queue.

use chrono::{DateTime, Utc};

/// `outbox.autovacuum`: which autovacuum settings `migrate` gives the outbox table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Autovacuum {
    /// The server's (and whatever the table has already): `migrate` sets nothing.
    #[default]
    Default,
    /// [`QUEUE_SETTINGS`] on the outbox table.
    Queue,
}

/// The storage parameters of a queue table: name, value, and why.
pub const QUEUE_SETTINGS: &[(&str, &str, &str)] = &[
    (
        "autovacuum_vacuum_scale_factor",
        "0",
        "count dead rows, not a share of the table: a queue's table is mostly dead rows between vacuums, so the default (a fifth of it) grows with the bloat it should prevent",
    ),
    (
        "autovacuum_vacuum_threshold",
        "1000",
        "vacuum once 1,000 rows are dead",
    ),
    (
        "autovacuum_vacuum_insert_scale_factor",
        "0",
        "the same for inserts (PostgreSQL 13 and later) ...",
    ),
    (
        "autovacuum_vacuum_insert_threshold",
        "1000",
        "... so that vacuum also runs while rows only arrive, keeping the visibility map set for the strict claim's index-only scans",
    ),
    (
        "autovacuum_analyze_scale_factor",
        "0",
        "fresh statistics as the backlog grows and shrinks ...",
    ),
    (
        "autovacuum_analyze_threshold",
        "10000",
        "... after every 10,000 changed rows, so the claim's plan knows the backlog",
    ),
    (
        "autovacuum_vacuum_cost_delay",
        "0",
        "never sleep while vacuuming this table: it has few live rows and many dead ones, and a throttled vacuum falls behind a busy relay",
    ),
];

/// Whether a table's `reloptions` (`name=value`) hold every queue setting.
pub fn has_queue_settings(reloptions: &[String]) -> bool {
    QUEUE_SETTINGS
        .iter()
        .all(|(k, v, _)| reloptions.iter().any(|o| *o == format!("{k}={v}")))
}

/// What the server's statistics and settings say about one outbox table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TableHealth {
    pub table: String,
    pub live_rows: i64,
    pub dead_rows: i64,
    /// Table, indexes and TOAST, in bytes.
    pub total_bytes: i64,
    pub last_vacuum: Option<DateTime<Utc>>,
    pub last_autovacuum: Option<DateTime<Utc>>,
    pub vacuums: i64,
    pub autovacuums: i64,
    /// The table's storage parameters, `name=value`.
    pub reloptions: Vec<String>,
    /// The server's `autovacuum` setting.
    pub autovacuum_on: bool,
    /// Server-wide: how often autovacuum looks at each database, in seconds.
    pub naptime_seconds: f64,
    pub vacuum_scale_factor: f64,
    pub vacuum_threshold: i64,
}

/// How a finding reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Ok,
    Warn,
}

/// One thing `doctor` says about the table's vacuuming.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub check: &'static str,
    pub severity: Severity,
    pub detail: String,
}

/// Dead rows outrun vacuum past this many, when they are also more than [`DEAD_PER_LIVE`] times
/// the live rows.
pub const DEAD_ROWS_WARN: i64 = 10_000;
pub const DEAD_PER_LIVE: i64 = 2;
/// A table this large for so few live rows is bloated (bytes per live row).
pub const BLOAT_BYTES_WARN: i64 = 64 << 20;
pub const BYTES_PER_LIVE_ROW_WARN: i64 = 16 << 10;

/// A table's size for people: `812 bytes`, `200 kB`, `48 MB`, `12 GB` (doctor, `partitions list`).
pub fn size(bytes: i64) -> String {
    match bytes {
        b if b >= 10 << 30 => format!("{} GB", b >> 30),
        b if b >= 10 << 20 => format!("{} MB", b >> 20),
        b if b >= 10 << 10 => format!("{} kB", b >> 10),
        b => format!("{b} bytes"),
    }
}

fn ago(at: Option<DateTime<Utc>>, now: DateTime<Utc>) -> String {
    at.map_or("never".into(), |t| {
        format!("{} ago", crate::duration::age(now - t))
    })
}

/// `app.outbox has 12 dead rows, last autovacuum 3 min ago`: what `doctor` shows beside what
/// holds the xmin horizon (the rows vacuum cannot clear while it is held).
pub fn dead_rows_and_autovacuum(h: &TableHealth, now: DateTime<Utc>) -> String {
    format!(
        "{} has {} dead rows, last autovacuum {}",
        h.table,
        h.dead_rows,
        ago(h.last_autovacuum, now)
    )
}

/// What `doctor` says: the table's rows, size and vacuums; autovacuum off; dead rows outrunning
/// vacuum; a table bloated for its live rows; and its autovacuum settings.
pub fn assess(h: &TableHealth, now: DateTime<Utc>) -> Vec<Finding> {
    let mut out = Vec::new();
    let last = [h.last_vacuum, h.last_autovacuum]
        .into_iter()
        .flatten()
        .max();
    let tuned = has_queue_settings(&h.reloptions);
    let table_off = h
        .reloptions
        .iter()
        .any(|o| o == "autovacuum_enabled=false" || o == "autovacuum_enabled=off");
    out.push(Finding {
        check: "queue table",
        severity: Severity::Ok,
        detail: format!(
            "{}: {} live rows, {} dead, {}; last vacuum {} ({} autovacuum{}, {} manual)",
            h.table,
            h.live_rows,
            h.dead_rows,
            size(h.total_bytes),
            ago(last, now),
            h.autovacuums,
            if h.autovacuums == 1 { "" } else { "s" },
            h.vacuums
        ),
    });
    if !h.autovacuum_on || table_off {
        out.push(Finding {
            check: "autovacuum",
            severity: Severity::Warn,
            detail: format!(
                "autovacuum is off for {} ({}): its dead rows are never cleared; turn it on",
                h.table,
                if table_off {
                    "the table's autovacuum_enabled"
                } else {
                    "the server's autovacuum setting"
                }
            ),
        });
    }
    let advice = if tuned {
        format!(
            "the table has the queue settings; autovacuum_naptime (server-wide, now {}s) bounds how often they can act: 10s suits a busy queue",
            h.naptime_seconds
        )
    } else {
        "set outbox.autovacuum: queue (migrate then sets the table's autovacuum parameters) and consider autovacuum_naptime = 10s (server-wide)".to_owned()
    };
    if h.dead_rows > DEAD_ROWS_WARN && h.dead_rows > DEAD_PER_LIVE * h.live_rows.max(1) {
        out.push(Finding {
            check: "dead rows",
            severity: Severity::Warn,
            detail: format!(
                "dead rows outrun vacuum on {}: {} dead against {} live; {advice}",
                h.table, h.dead_rows, h.live_rows
            ),
        });
    }
    if h.total_bytes > BLOAT_BYTES_WARN
        && h.total_bytes / h.live_rows.max(1) > BYTES_PER_LIVE_ROW_WARN
    {
        out.push(Finding {
            check: "bloat",
            severity: Severity::Warn,
            detail: format!(
                "{} takes {} for {} live rows: vacuum frees the space for reuse but does not give it back; pg_repack (online) or VACUUM FULL (locks the table) in a quiet hour shrinks it",
                h.table,
                size(h.total_bytes),
                h.live_rows
            ),
        });
    }
    out.push(Finding {
        check: "autovacuum settings",
        severity: Severity::Ok,
        detail: if tuned {
            format!(
                "{} has the queue settings (outbox.autovacuum: queue); autovacuum_naptime {}s",
                h.table, h.naptime_seconds
            )
        } else {
            format!(
                "{} uses the server's: vacuum after {} dead rows plus {}% of the table, looking every {}s{}",
                h.table,
                h.vacuum_threshold,
                h.vacuum_scale_factor * 100.0,
                h.naptime_seconds,
                if h.reloptions.is_empty() {
                    String::new()
                } else {
                    format!(" (table settings: {})", h.reloptions.join(", "))
                }
            )
        },
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn health() -> TableHealth {
        TableHealth {
            table: "app.outbox".into(),
            live_rows: 120,
            dead_rows: 0,
            total_bytes: 200 << 10,
            autovacuum_on: true,
            naptime_seconds: 60.0,
            vacuum_scale_factor: 0.2,
            vacuum_threshold: 50,
            autovacuums: 3,
            ..Default::default()
        }
    }

    #[test]
    fn a_quiet_table_is_ok_and_names_the_servers_settings() {
        let now = Utc::now();
        let mut h = health();
        h.last_autovacuum = Some(now - chrono::Duration::seconds(90));
        let f = assess(&h, now);
        assert!(f.iter().all(|f| f.severity == Severity::Ok), "{f:?}");
        assert_eq!(
            f[0].detail,
            "app.outbox: 120 live rows, 0 dead, 200 kB; last vacuum 1m 30s ago (3 autovacuums, 0 manual)"
        );
        assert!(
            f[1].detail
                .contains("vacuum after 50 dead rows plus 20% of the table, looking every 60s"),
            "{f:?}"
        );
    }

    #[test]
    fn churn_that_outruns_vacuum_and_bloat_warn_with_the_fix() {
        let mut h = health();
        h.dead_rows = 555_580;
        h.total_bytes = 293 << 20;
        let f = assess(&h, Utc::now());
        let warned: Vec<&str> = f
            .iter()
            .filter(|f| f.severity == Severity::Warn)
            .map(|f| f.check)
            .collect();
        assert_eq!(warned, ["dead rows", "bloat"]);
        assert!(
            f[1].detail.contains("set outbox.autovacuum: queue"),
            "{f:?}"
        );
        // tuned already: the advice turns to the naptime
        h.reloptions = QUEUE_SETTINGS
            .iter()
            .map(|(k, v, _)| format!("{k}={v}"))
            .collect();
        let f = assess(&h, Utc::now());
        assert!(
            f[1].detail
                .contains("autovacuum_naptime (server-wide, now 60s)"),
            "{f:?}"
        );
        assert!(f.last().unwrap().detail.contains("has the queue settings"));
    }

    #[test]
    fn beside_the_xmin_horizon_go_the_dead_rows_and_the_last_autovacuum() {
        let now = Utc::now();
        let mut h = health();
        h.dead_rows = 4_200;
        assert_eq!(
            dead_rows_and_autovacuum(&h, now),
            "app.outbox has 4200 dead rows, last autovacuum never"
        );
        h.last_autovacuum = Some(now - chrono::Duration::minutes(3));
        assert!(dead_rows_and_autovacuum(&h, now).ends_with("last autovacuum 3m ago"));
    }

    #[test]
    fn autovacuum_off_warns_whoever_turned_it_off() {
        let mut h = health();
        h.reloptions = vec!["autovacuum_enabled=false".into()];
        let f = assess(&h, Utc::now());
        assert!(f.iter().any(
            |f| f.check == "autovacuum" && f.detail.contains("the table's autovacuum_enabled")
        ));
        assert!(!has_queue_settings(&h.reloptions));
    }
}
