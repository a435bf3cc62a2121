//! Daily partitions of the delivery log, planned from catalog facts and a date: which days to
//! add ahead, which to drop, what `check` reports. Pure: no I/O, no clock (today is passed in).
//!
//! Bounds are UTC days `[D 00:00+00, D+1 00:00+00)`, read from `pg_get_expr(relpartbound)` on a
//! session whose TimeZone is UTC, never guessed from partition names.

use chrono::{DateTime, Days, NaiveDate, TimeZone, Utc};
use serde::Serialize;

use crate::schema::render::Statement;
use crate::target::{Ident, NameError, QualifiedName};

/// A partition's bound, as the catalog states it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Bound {
    Default,
    Range {
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    },
    /// Anything else (MINVALUE/MAXVALUE, another partitioning): shown, never touched.
    Other {
        text: String,
    },
}

impl Bound {
    /// Where the partition starts and ends, to the minute (UTC); empty where it does not say.
    pub fn span(&self) -> (String, String) {
        let minute = |t: &DateTime<Utc>| t.format("%Y-%m-%d %H:%M").to_string();
        match self {
            Bound::Default => (String::new(), String::new()),
            Bound::Range { from, to } => (minute(from), minute(to)),
            Bound::Other { text } => (text.clone(), String::new()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Partition {
    pub name: String,
    pub bound: Bound,
}

/// Parses `pg_get_expr(relpartbound)` written with TimeZone UTC, e.g.
/// `FOR VALUES FROM ('2026-10-18 00:00:00+00') TO ('2026-10-19 00:00:00+00')`.
pub fn parse_bound(text: &str) -> Bound {
    if text.trim() == "DEFAULT" {
        return Bound::Default;
    }
    let other = || Bound::Other {
        text: text.to_owned(),
    };
    let Some(rest) = text.trim().strip_prefix("FOR VALUES FROM ('") else {
        return other();
    };
    let Some((from, rest)) = rest.split_once("') TO ('") else {
        return other();
    };
    let Some(to) = rest.strip_suffix("')") else {
        return other();
    };
    match (parse_ts(from), parse_ts(to)) {
        (Some(from), Some(to)) => Bound::Range { from, to },
        _ => other(),
    }
}

fn parse_ts(text: &str) -> Option<DateTime<Utc>> {
    // PostgreSQL writes "+00" for UTC; chrono wants "+0000".
    let fixed = if text.ends_with("+00") {
        format!("{text}00")
    } else {
        text.to_owned()
    };
    DateTime::parse_from_str(&fixed, "%Y-%m-%d %H:%M:%S%.f%z")
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

pub fn day_start(day: NaiveDate) -> DateTime<Utc> {
    Utc.from_utc_datetime(&day.and_hms_opt(0, 0, 0).expect("midnight exists"))
}

/// `<log>_YYYYMMDD`, in the log's schema.
pub fn day_name(log: &QualifiedName, day: NaiveDate) -> Result<QualifiedName, NameError> {
    log.sibling("day partition", &format!("_{}", day.format("%Y%m%d")))
}

/// A timestamp literal for a partition bound: `'2026-10-18 00:00+00'`. Bounds are DDL, which
/// takes no parameters; this is built from a date, never from text.
pub fn bound_literal(day: NaiveDate) -> String {
    format!("'{} 00:00+00'", day.format("%Y-%m-%d"))
}

fn ranges(existing: &[Partition]) -> Vec<(DateTime<Utc>, DateTime<Utc>, &str)> {
    let mut r: Vec<_> = existing
        .iter()
        .filter_map(|p| match p.bound {
            Bound::Range { from, to } => Some((from, to, p.name.as_str())),
            _ => None,
        })
        .collect();
    r.sort();
    r
}

/// What `add-ahead` does for one day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum DayAction {
    /// A partition covers the day already.
    Present {
        day: NaiveDate,
        partition: String,
    },
    Add {
        day: NaiveDate,
        partition: String,
    },
    /// A partition overlaps the day without covering it exactly: left for a person.
    Conflict {
        day: NaiveDate,
        partition: String,
    },
}

/// Days `today ..= today + days`, each present, to add, or in conflict.
pub fn plan_add_ahead(
    log: &QualifiedName,
    today: NaiveDate,
    days: u32,
    existing: &[Partition],
) -> Result<Vec<DayAction>, NameError> {
    let ranges = ranges(existing);
    let mut out = Vec::new();
    for offset in 0..=days {
        let day = today + Days::new(u64::from(offset));
        let (start, end) = (day_start(day), day_start(day + Days::new(1)));
        let covering = ranges.iter().find(|(f, t, _)| *f <= start && end <= *t);
        let overlapping = ranges.iter().find(|(f, t, _)| *f < end && start < *t);
        out.push(match (covering, overlapping) {
            (Some((_, _, name)), _) => DayAction::Present {
                day,
                partition: (*name).to_owned(),
            },
            (None, Some((_, _, name))) => DayAction::Conflict {
                day,
                partition: (*name).to_owned(),
            },
            (None, None) => DayAction::Add {
                day,
                partition: day_name(log, day)?.name.name().to_owned(),
            },
        });
    }
    Ok(out)
}

/// Day partitions (a range of one UTC day, midnight to midnight) whose upper bound is at or
/// before `today - keep_days` (midnight UTC), oldest first. Never the default partition, never
/// an unparsed bound, never a range of another length: a hand-made archive of a month was
/// dropped, its rows with it, by the cron line that keeps days.
pub fn plan_drop_expired(
    today: NaiveDate,
    keep_days: u32,
    existing: &[Partition],
) -> Vec<Partition> {
    let cutoff = day_start(today - Days::new(u64::from(keep_days)));
    let mut out: Vec<Partition> = existing
        .iter()
        .filter(|p| match p.bound {
            Bound::Range { from, to } => {
                to <= cutoff && from == day_start(from.date_naive()) && to == from + Days::new(1)
            }
            _ => false,
        })
        .cloned()
        .collect();
    out.sort_by_key(|p| match p.bound {
        Bound::Range { from, .. } => from,
        _ => DateTime::<Utc>::MIN_UTC,
    });
    out
}

/// What `check` found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "problem", rename_all = "snake_case")]
pub enum Finding {
    NoDefaultPartition,
    RowsInDefault {
        rows: i64,
    },
    FewDaysAhead {
        attached: u32,
        wanted: u32,
    },
    Gap {
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    },
    /// A day's table in the log's schema, by the log's naming, that is not attached: what a
    /// move out of the default partition leaves when it is cut short before its last step.
    Unattached {
        partition: String,
    },
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Finding::NoDefaultPartition => write!(
                f,
                "no default partition: a day nobody added fails every relay pass; run `outboxctl migrate` (it creates one, and names the table of its name if one is there, detached)"
            ),
            Finding::RowsInDefault { rows } => write!(
                f,
                "the default partition holds {rows} row(s): days are missing; run `outboxctl partitions check --fix`"
            ),
            // add-ahead --days N attaches today and N days after it
            Finding::FewDaysAhead { attached, wanted } => write!(
                f,
                "only {attached} day(s) from today are attached, fewer than {wanted}; run `outboxctl partitions add-ahead --days {}`",
                wanted.saturating_sub(1)
            ),
            Finding::Unattached { partition } => write!(
                f,
                "{partition} is a day's table that is not attached, so the rows in it are not in the log (a move out of the default partition was cut short); run `outboxctl partitions check --fix`"
            ),
            Finding::Gap { from, to } => write!(
                f,
                "gap between partitions: nothing covers {} to {}",
                from.format("%Y-%m-%d %H:%M"),
                to.format("%Y-%m-%d %H:%M")
            ),
        }
    }
}

/// Consecutive days from today that are covered (today counts as the first).
pub fn days_covered_from(today: NaiveDate, existing: &[Partition]) -> u32 {
    let ranges = ranges(existing);
    let mut n = 0;
    loop {
        let day = today + Days::new(u64::from(n));
        let (start, end) = (day_start(day), day_start(day + Days::new(1)));
        if !ranges.iter().any(|(f, t, _)| *f <= start && end <= *t) {
            return n;
        }
        n += 1;
        if n > 3660 {
            return n;
        }
    }
}

/// `check`: the default partition is present and empty, at least `min_ahead` days from today
/// are attached (today and the days after it), no gap lies between partitions, and no day's
/// table (`unattached`, by name) is left unattached.
pub fn check(
    today: NaiveDate,
    min_ahead: u32,
    existing: &[Partition],
    default_rows: Option<i64>,
    unattached: &[String],
) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(unattached.iter().map(|p| Finding::Unattached {
        partition: p.clone(),
    }));
    match default_rows {
        None => out.push(Finding::NoDefaultPartition),
        Some(rows) if rows > 0 => out.push(Finding::RowsInDefault { rows }),
        Some(_) => {}
    }
    let attached = days_covered_from(today, existing);
    if attached < min_ahead {
        out.push(Finding::FewDaysAhead {
            attached,
            wanted: min_ahead,
        });
    }
    let ranges = ranges(existing);
    for w in ranges.windows(2) {
        if w[0].1 < w[1].0 {
            out.push(Finding::Gap {
                from: w[0].1,
                to: w[1].0,
            });
        }
    }
    out
}

/// The UTC days that rows in the default partition fall on, from their min and max.
pub fn days_between(first: DateTime<Utc>, last: DateTime<Utc>) -> Vec<NaiveDate> {
    let mut out = Vec::new();
    let mut d = first.date_naive();
    while d <= last.date_naive() {
        out.push(d);
        d = d + Days::new(1);
    }
    out
}

/// Build a day's partition apart (`CREATE TABLE … (LIKE …)`), then attach it.
pub fn add_day_statements(
    log: &QualifiedName,
    day: NaiveDate,
) -> Result<Vec<Statement>, NameError> {
    let part = day_name(log, day)?;
    Ok(vec![
        built_apart(&part, log, ""),
        Statement::new(format!(
            "ALTER TABLE {log} ATTACH PARTITION {part}\n    FOR VALUES FROM ({}) TO ({});",
            bound_literal(day),
            bound_literal(day + Days::new(1))
        )),
    ])
}

/// The table of `day` built apart to take rows moved out of the default partition: with the
/// log's indexes, built while nothing waits on it, which `ATTACH` then adopts instead of
/// building them under the default partition's lock.
pub fn day_table_with_indexes(log: &QualifiedName, day: NaiveDate) -> Result<Statement, NameError> {
    Ok(built_apart(&day_name(log, day)?, log, " INCLUDING INDEXES"))
}

/// `CREATE TABLE part (LIKE log …)`: a day's table built apart from the log, with its
/// defaults and constraints and what `more` adds.
fn built_apart(part: &impl std::fmt::Display, log: &QualifiedName, more: &str) -> Statement {
    Statement::new(format!(
        "CREATE TABLE {part} (LIKE {log} INCLUDING DEFAULTS INCLUDING CONSTRAINTS{more});"
    ))
}

/// The name of the log's default partition, `<log>_default`.
pub fn default_name(log: &QualifiedName) -> Result<Ident, NameError> {
    log.name.with_suffix("default partition", "_default")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).unwrap()
    }

    fn part(name: &str, from: NaiveDate, to: NaiveDate) -> Partition {
        Partition {
            name: name.into(),
            bound: Bound::Range {
                from: day_start(from),
                to: day_start(to),
            },
        }
    }

    fn log() -> QualifiedName {
        QualifiedName::parse("log", "app.outbox_delivered").unwrap()
    }

    #[test]
    fn parses_catalog_bounds() {
        assert_eq!(parse_bound("DEFAULT"), Bound::Default);
        assert_eq!(
            parse_bound("FOR VALUES FROM ('2026-10-18 00:00:00+00') TO ('2026-10-19 00:00:00+00')"),
            Bound::Range {
                from: day_start(d(2026, 10, 18)),
                to: day_start(d(2026, 10, 19))
            }
        );
        assert_eq!(
            parse_bound(
                "FOR VALUES FROM ('2026-10-18 06:30:00.5+00') TO ('2026-10-19 00:00:00+00')"
            ),
            Bound::Range {
                from: day_start(d(2026, 10, 18))
                    + chrono::Duration::milliseconds(6 * 3600 * 1000 + 30 * 60 * 1000 + 500),
                to: day_start(d(2026, 10, 19))
            }
        );
        assert!(matches!(
            parse_bound("FOR VALUES FROM (MINVALUE) TO ('2026-01-01 00:00:00+00')"),
            Bound::Other { .. }
        ));
    }

    #[test]
    fn add_ahead_across_month_and_year_ends() {
        let plan = plan_add_ahead(
            &log(),
            d(2026, 12, 30),
            3,
            &[part("x", d(2026, 12, 30), d(2026, 12, 31))],
        )
        .unwrap();
        assert_eq!(
            plan,
            vec![
                DayAction::Present {
                    day: d(2026, 12, 30),
                    partition: "x".into()
                },
                DayAction::Add {
                    day: d(2026, 12, 31),
                    partition: "outbox_delivered_20261231".into()
                },
                DayAction::Add {
                    day: d(2027, 1, 1),
                    partition: "outbox_delivered_20270101".into()
                },
                DayAction::Add {
                    day: d(2027, 1, 2),
                    partition: "outbox_delivered_20270102".into()
                },
            ]
        );
    }

    #[test]
    fn add_ahead_through_a_leap_day() {
        let plan = plan_add_ahead(&log(), d(2028, 2, 28), 2, &[]).unwrap();
        let days: Vec<NaiveDate> = plan
            .iter()
            .map(|a| match a {
                DayAction::Add { day, .. } => *day,
                _ => panic!(),
            })
            .collect();
        assert_eq!(days, vec![d(2028, 2, 28), d(2028, 2, 29), d(2028, 3, 1)]);
    }

    #[test]
    fn days_are_utc_days_across_dst_changes() {
        // 2026-03-29 is the EU switch to summer time, 2026-11-01 the US switch back: a UTC day
        // is 24 hours whatever a local clock did.
        for day in [d(2026, 3, 29), d(2026, 11, 1)] {
            let plan = plan_add_ahead(&log(), day, 0, &[]).unwrap();
            assert!(matches!(plan[0], DayAction::Add { .. }));
            assert_eq!(
                day_start(day + Days::new(1)) - day_start(day),
                chrono::Duration::hours(24)
            );
        }
        assert_eq!(bound_literal(d(2026, 3, 29)), "'2026-03-29 00:00+00'");
    }

    #[test]
    fn a_wider_or_shifted_partition_is_present_or_a_conflict() {
        let week = part("week", d(2026, 1, 5), d(2026, 1, 12));
        let shifted = Partition {
            name: "shifted".into(),
            bound: Bound::Range {
                from: day_start(d(2026, 1, 12)) + chrono::Duration::hours(6),
                to: day_start(d(2026, 1, 13)),
            },
        };
        let plan = plan_add_ahead(&log(), d(2026, 1, 11), 1, &[week, shifted]).unwrap();
        assert!(matches!(&plan[0], DayAction::Present { partition, .. } if partition == "week"));
        assert!(
            matches!(&plan[1], DayAction::Conflict { partition, .. } if partition == "shifted")
        );
    }

    #[test]
    fn drop_expired_uses_bounds_and_keeps_default() {
        let existing = vec![
            Partition {
                name: "outbox_delivered_default".into(),
                bound: Bound::Default,
            },
            part("b", d(2026, 11, 2), d(2026, 11, 3)),
            part("a", d(2026, 11, 1), d(2026, 11, 2)),
            part("misnamed_20200101", d(2026, 11, 3), d(2026, 11, 4)),
            // a hand-made month, long expired: not a day's partition, left
            part("archive_sept", d(2026, 9, 1), d(2026, 10, 1)),
            Partition {
                name: "odd".into(),
                bound: Bound::Other {
                    text: "MINVALUE".into(),
                },
            },
        ];
        // today 2026-12-03, keep 30 days: cutoff 2026-11-03 00:00; upper bound <= cutoff goes
        let dropped: Vec<String> = plan_drop_expired(d(2026, 12, 3), 30, &existing)
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(dropped, vec!["a", "b"]);
        // across a year end
        let dropped = plan_drop_expired(
            d(2027, 1, 1),
            0,
            &[part("y", d(2026, 12, 31), d(2027, 1, 1))],
        );
        assert_eq!(dropped.len(), 1);
    }

    #[test]
    fn check_finds_default_rows_gaps_and_missing_days() {
        let today = d(2026, 12, 2);
        let existing = vec![
            part("a", d(2026, 12, 1), d(2026, 12, 2)),
            part("b", d(2026, 12, 2), d(2026, 12, 3)),
            part("c", d(2026, 12, 3), d(2026, 12, 4)),
            part("e", d(2026, 12, 5), d(2026, 12, 6)),
        ];
        assert_eq!(days_covered_from(today, &existing), 2);
        let findings = check(today, 3, &existing, Some(4), &[]);
        assert_eq!(
            findings,
            vec![
                Finding::RowsInDefault { rows: 4 },
                Finding::FewDaysAhead {
                    attached: 2,
                    wanted: 3
                },
                Finding::Gap {
                    from: day_start(d(2026, 12, 4)),
                    to: day_start(d(2026, 12, 5))
                },
            ]
        );
        assert!(check(today, 2, &existing[..3], Some(0), &[]).is_empty());
        let stranded = ["outbox_delivered_20261201".to_owned()];
        assert_eq!(
            check(today, 2, &existing[..3], Some(0), &stranded),
            [Finding::Unattached {
                partition: stranded[0].clone()
            }]
        );
        assert_eq!(
            check(today, 0, &[], None, &[]),
            vec![Finding::NoDefaultPartition]
        );
    }
}
