//! `doctor`'s judgement of what holds the xmin horizon (PostgreSQL). A transaction left open,
//! a prepared transaction nobody finished, a forgotten replication slot or a standby's
//! feedback keeps vacuum from removing any row deleted after it began: the rows consume
//! deletes and retain publishes stay in the table, and the claim steps over ever more dead
//! index entries, whatever the autovacuum settings. Transactions are judged by age, slots and
//! walsenders by how many transaction ids they hold back; each holder over a limit is a check
//! of its own that names it. Pure: the store reads the catalogs
//! ([`crate::store::postgres::diagnostics::xmin_holders`]), this decides and words.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{Check, Level};
use crate::duration::Dur;
use crate::ops::top::thousands;
use crate::store::postgres::diagnostics::{
    XminBackend, XminHolders, XminPrepared, XminSlot, XminWalsender,
};
use crate::vacuum::TableHealth;

/// The check's name on every line about a holder.
pub const CHECK: &str = "xmin horizon";
/// The check's name on the line saying the role cannot see other roles' backends.
pub const VISIBILITY: &str = "xmin visibility";
/// A holder past this many times its limit fails; past the limit it warns.
pub const FAIL_FACTOR: u32 = 12;

/// The limits: `--max-xmin-age` for transactions, `--max-xmin-xids` for slots and walsenders.
#[derive(Debug, Clone, Copy)]
pub struct XminLimits {
    pub max_age: Duration,
    pub max_xids: u64,
}

/// A transaction's age against the limit: ok up to it, warn past it, fail past
/// [`FAIL_FACTOR`] times it.
pub fn by_age(age: Duration, max: Duration) -> Level {
    if age > max.saturating_mul(FAIL_FACTOR) {
        Level::Fail
    } else if age > max {
        Level::Warn
    } else {
        Level::Ok
    }
}

/// Transaction ids held back against the limit, as [`by_age`].
pub fn by_xids(xids: i64, max: u64) -> Level {
    let xids = u64::try_from(xids).unwrap_or(0);
    if xids > max.saturating_mul(u64::from(FAIL_FACTOR)) {
        Level::Fail
    } else if xids > max {
        Level::Warn
    } else {
        Level::Ok
    }
}

/// What kind of holder a line names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HolderKind {
    Backend,
    Prepared,
    Slot,
    Walsender,
}

/// The holder a line names, for `--format json` (every key always present, `null` where it
/// does not apply to the kind).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Holder {
    pub kind: HolderKind,
    /// The backend's or walsender's pid; an active slot's walsender.
    pub pid: Option<i32>,
    /// Application name (backend, walsender), gid (prepared), slot name.
    pub name: Option<String>,
    /// `host:port` of the client; `null` over a Unix socket.
    pub client: Option<String>,
    /// Backend or walsender state; `active` / `inactive` for a slot.
    pub state: Option<String>,
    /// The backend's role, the prepared transaction's owner.
    pub role: Option<String>,
    /// Seconds since its transaction began (backend) or was prepared.
    pub age_seconds: Option<f64>,
    /// Transaction ids it holds the horizon back (a slot's `xmin`).
    pub xids: Option<i64>,
    /// A slot's `catalog_xmin`, in transaction ids.
    pub catalog_xids: Option<i64>,
}

impl Holder {
    fn of(kind: HolderKind) -> Self {
        Self {
            kind,
            pid: None,
            name: None,
            client: None,
            state: None,
            role: None,
            age_seconds: None,
            xids: None,
            catalog_xids: None,
        }
    }
}

fn seconds(s: f64) -> Duration {
    Duration::try_from_secs_f64(s).unwrap_or_default()
}

fn over_age(level: Level, max: Duration) -> String {
    match level {
        Level::Fail => format!("over {FAIL_FACTOR} × {}", Dur(max)),
        _ => format!("over {}", Dur(max)),
    }
}

fn over_xids(level: Level, max: u64) -> String {
    let max = thousands(i64::try_from(max).unwrap_or(i64::MAX));
    match level {
        Level::Fail => format!("over {FAIL_FACTOR} × {max} xids"),
        _ => format!("over {max} xids"),
    }
}

/// `pid 42 (application billing, client 10.0.0.5:51234, role app)`.
fn backend_who(b: &XminBackend) -> String {
    format!(
        "pid {} (application {}, client {}, role {})",
        b.pid,
        if b.application_name.is_empty() {
            "unnamed"
        } else {
            &b.application_name
        },
        b.client.as_deref().unwrap_or("local socket"),
        b.role.as_deref().unwrap_or("unknown")
    )
}

/// `idle in transaction for 7m, its transaction 7m 12s old`.
fn backend_what(b: &XminBackend) -> String {
    let state = if b.state.is_empty() {
        "in a transaction"
    } else {
        &b.state
    };
    match b.state_seconds {
        Some(s) if b.state.starts_with("idle") => format!(
            "{state} for {}, its transaction {} old",
            crate::duration::age_of_seconds(s),
            crate::duration::age_of_seconds(b.age_seconds)
        ),
        _ => format!(
            "{state}, its transaction {} old",
            crate::duration::age_of_seconds(b.age_seconds)
        ),
    }
}

fn backend(b: &XminBackend, limits: XminLimits) -> (Level, String, Holder) {
    let level = by_age(seconds(b.age_seconds), limits.max_age);
    let detail = format!(
        "{}: {} ({}): vacuum keeps every row deleted since it began; SELECT pg_terminate_backend({}) ends it",
        backend_who(b),
        backend_what(b),
        over_age(level, limits.max_age),
        b.pid
    );
    let holder = Holder {
        pid: Some(b.pid),
        name: Some(b.application_name.clone()),
        client: b.client.clone(),
        state: Some(b.state.clone()),
        role: b.role.clone(),
        age_seconds: Some(b.age_seconds),
        xids: b.xids,
        ..Holder::of(HolderKind::Backend)
    };
    (level, detail, holder)
}

fn prepared(p: &XminPrepared, limits: XminLimits) -> (Level, String, Holder) {
    let level = by_age(seconds(p.age_seconds), limits.max_age);
    let detail = format!(
        "prepared transaction '{}' (owner {}): prepared {} ago ({}): vacuum keeps every row deleted since; COMMIT PREPARED or ROLLBACK PREPARED '{}' ends it",
        p.gid,
        p.owner,
        crate::duration::age_of_seconds(p.age_seconds),
        over_age(level, limits.max_age),
        p.gid
    );
    let holder = Holder {
        name: Some(p.gid.clone()),
        role: Some(p.owner.clone()),
        state: Some("prepared".into()),
        age_seconds: Some(p.age_seconds),
        xids: p.xids,
        ..Holder::of(HolderKind::Prepared)
    };
    (level, detail, holder)
}

fn slot(s: &XminSlot, limits: XminLimits) -> (Level, String, Holder) {
    let by = |x: Option<i64>| x.map_or(Level::Ok, |x| by_xids(x, limits.max_xids));
    let mut level = by(s.xmin_xids).max(by(s.catalog_xmin_xids));
    if !s.active {
        level = level.max(Level::Warn);
    }
    let held = [("xmin", s.xmin_xids), ("catalog_xmin", s.catalog_xmin_xids)]
        .into_iter()
        .filter_map(|(what, x)| x.map(|x| format!("{what} {} xids back", thousands(x))))
        .collect::<Vec<_>>()
        .join(" and ");
    let waits = if s.xmin_xids.is_some() {
        "vacuum waits on every table"
    } else {
        "vacuum waits on the catalogs"
    };
    let state = match (s.active, s.active_pid) {
        (true, Some(pid)) => format!("active, walsender pid {pid}"),
        (true, None) => "active".to_owned(),
        (false, _) => "inactive".to_owned(),
    };
    let why = match level {
        Level::Ok => "within the limit".to_owned(),
        _ if !s.active && by(s.xmin_xids).max(by(s.catalog_xmin_xids)) == Level::Ok => {
            "inactive: nothing consumes it".to_owned()
        }
        _ => over_xids(level, limits.max_xids),
    };
    let fix = if s.active {
        "its consumer lags or holds it back".to_owned()
    } else {
        format!(
            "it also keeps WAL; SELECT pg_drop_replication_slot('{}') if nothing will use it again",
            s.name
        )
    };
    let detail = format!(
        "replication slot {} ({}, {state}): holds {held} ({why}): {waits}; {fix}",
        s.name, s.kind
    );
    let holder = Holder {
        pid: s.active_pid,
        name: Some(s.name.clone()),
        state: Some(if s.active { "active" } else { "inactive" }.into()),
        xids: s.xmin_xids,
        catalog_xids: s.catalog_xmin_xids,
        ..Holder::of(HolderKind::Slot)
    };
    (level, detail, holder)
}

fn walsender(w: &XminWalsender, limits: XminLimits) -> (Level, String, Holder) {
    let level = w.xids.map_or(Level::Ok, |x| by_xids(x, limits.max_xids));
    let detail = format!(
        "walsender pid {} (application {}, client {}, {}): its standby's hot_standby_feedback holds xmin {} xids back ({}): the standby's queries keep vacuum waiting",
        w.pid,
        if w.application_name.is_empty() {
            "unnamed"
        } else {
            &w.application_name
        },
        w.client.as_deref().unwrap_or("local socket"),
        if w.state.is_empty() {
            "state unknown"
        } else {
            &w.state
        },
        thousands(w.xids.unwrap_or(0)),
        over_xids(level, limits.max_xids)
    );
    let holder = Holder {
        pid: Some(w.pid),
        name: Some(w.application_name.clone()),
        client: w.client.clone(),
        state: Some(w.state.clone()),
        xids: w.xids,
        ..Holder::of(HolderKind::Walsender)
    };
    (level, detail, holder)
}

/// The checks: a warning when the role cannot see other roles' backends, a line for each
/// holder past a limit (or one `ok` line naming the oldest transaction), with the outbox
/// tables' dead rows and last autovacuum beside.
pub fn assess(
    h: &XminHolders,
    limits: XminLimits,
    tables: &[TableHealth],
    now: DateTime<Utc>,
) -> Vec<Check> {
    let mut out = Vec::new();
    if !h.sees_all {
        out.push(Check {
            name: VISIBILITY,
            level: Level::Warn,
            detail: format!(
                "role {} is neither superuser nor a member of pg_monitor (pg_read_all_stats): {} backend(s) of other roles in this database hide their transaction's start and xmin, and walsenders theirs, so what they hold is not seen here; GRANT pg_monitor TO {}",
                h.role, h.hidden_backends, h.role
            ),
            holder: None,
        });
    }
    let beside = tables
        .iter()
        .map(|t| crate::vacuum::dead_rows_and_autovacuum(t, now))
        .collect::<Vec<_>>()
        .join("; ");
    let with_tables = |detail: String| {
        if beside.is_empty() {
            detail
        } else {
            format!("{detail}. Meanwhile {beside}")
        }
    };
    let judged = h
        .backends
        .iter()
        .map(|b| backend(b, limits))
        .chain(h.prepared.iter().map(|p| prepared(p, limits)))
        .chain(h.slots.iter().map(|s| slot(s, limits)))
        .chain(h.walsenders.iter().map(|w| walsender(w, limits)));
    for (level, detail, holder) in judged {
        if level != Level::Ok {
            out.push(Check {
                name: CHECK,
                level,
                detail: with_tables(detail),
                holder: Some(holder),
            });
        }
    }
    if out.iter().all(|c| c.name != CHECK) {
        out.push(Check {
            name: CHECK,
            level: Level::Ok,
            detail: with_tables(nothing_past_the_limits(h, limits)),
            holder: None,
        });
    }
    out
}

/// The `ok` line: the limits, and the oldest transaction when there is one.
fn nothing_past_the_limits(h: &XminHolders, limits: XminLimits) -> String {
    let oldest = h
        .backends
        .iter()
        .map(|b| {
            (
                b.age_seconds,
                format!("{} {}", backend_who(b), backend_what(b)),
            )
        })
        .chain(h.prepared.iter().map(|p| {
            (
                p.age_seconds,
                format!(
                    "prepared transaction '{}', {} old",
                    p.gid,
                    crate::duration::age_of_seconds(p.age_seconds)
                ),
            )
        }))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let others = h.slots.len() + h.walsenders.len();
    let mut detail = format!(
        "no transaction older than {} and no replication slot or walsender over {} xids",
        Dur(limits.max_age),
        thousands(i64::try_from(limits.max_xids).unwrap_or(i64::MAX))
    );
    match oldest {
        Some((_, who)) => detail.push_str(&format!("; the oldest: {who}")),
        None => detail.push_str("; no transaction holds it"),
    }
    if others > 0 {
        detail.push_str(&format!(
            "; {others} replication slot(s) or walsender(s) within the limit"
        ));
    }
    detail
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: XminLimits = XminLimits {
        max_age: Duration::from_secs(300),
        max_xids: 1_000_000,
    };

    fn idle(pid: i32, age_seconds: f64) -> XminBackend {
        XminBackend {
            pid,
            application_name: "billing".into(),
            client: Some("10.0.0.5:51234".into()),
            role: Some("app".into()),
            state: "idle in transaction".into(),
            age_seconds,
            state_seconds: Some(age_seconds - 10.0),
            xids: Some(1_234),
        }
    }

    fn slot_holding(name: &str, active: bool, xmin: Option<i64>, catalog: Option<i64>) -> XminSlot {
        XminSlot {
            name: name.into(),
            kind: "logical".into(),
            active,
            active_pid: active.then_some(77),
            xmin_xids: xmin,
            catalog_xmin_xids: catalog,
        }
    }

    fn holders() -> XminHolders {
        XminHolders {
            role: "postgres".into(),
            sees_all: true,
            ..XminHolders::default()
        }
    }

    fn table() -> TableHealth {
        TableHealth {
            table: "app.outbox".into(),
            dead_rows: 5_000,
            ..TableHealth::default()
        }
    }

    #[test]
    fn age_warns_past_the_limit_and_fails_past_twelve_times_it() {
        let max = Duration::from_secs(300);
        assert_eq!(by_age(Duration::from_secs(300), max), Level::Ok);
        assert_eq!(by_age(Duration::from_secs(301), max), Level::Warn);
        assert_eq!(by_age(Duration::from_secs(3600), max), Level::Warn);
        assert_eq!(by_age(Duration::from_secs(3601), max), Level::Fail);
        assert_eq!(by_xids(1_000_000, 1_000_000), Level::Ok);
        assert_eq!(by_xids(1_000_001, 1_000_000), Level::Warn);
        assert_eq!(by_xids(12_000_001, 1_000_000), Level::Fail);
        assert_eq!(by_xids(-5, 1), Level::Ok);
        assert_eq!(by_age(Duration::MAX, Duration::MAX), Level::Ok);
    }

    #[test]
    fn an_idle_transaction_is_named_with_its_pid_and_the_outboxs_dead_rows_beside() {
        let mut h = holders();
        h.backends = vec![idle(4242, 420.0), idle(4343, 2.0)];
        let checks = assess(&h, LIMITS, &[table()], Utc::now());
        assert_eq!(checks.len(), 1, "{checks:?}");
        let c = &checks[0];
        assert_eq!((c.name, c.level), (CHECK, Level::Warn));
        assert!(
            c.detail.starts_with(
                "pid 4242 (application billing, client 10.0.0.5:51234, role app): idle in transaction for 6m 50s, its transaction 7m old (over 5m)"
            ),
            "{}",
            c.detail
        );
        assert!(
            c.detail.contains("pg_terminate_backend(4242)"),
            "{}",
            c.detail
        );
        assert!(
            c.detail
                .ends_with("Meanwhile app.outbox has 5000 dead rows, last autovacuum never"),
            "{}",
            c.detail
        );
        assert_eq!(
            serde_json::to_value(c).unwrap()["holder"],
            serde_json::json!({
                "kind": "backend", "pid": 4242, "name": "billing", "client": "10.0.0.5:51234",
                "state": "idle in transaction", "role": "app", "age_seconds": 420.0,
                "xids": 1234, "catalog_xids": null
            })
        );
        h.backends[0].age_seconds = 3_601.0;
        let checks = assess(&h, LIMITS, &[], Utc::now());
        assert_eq!(checks[0].level, Level::Fail);
        assert!(checks[0].detail.contains("(over 12 × 5m)"), "{checks:?}");
        assert!(!checks[0].detail.contains("Meanwhile"), "{checks:?}");
    }

    #[test]
    fn nothing_past_the_limits_is_one_ok_line_naming_the_oldest() {
        let mut h = holders();
        let checks = assess(&h, LIMITS, &[], Utc::now());
        assert_eq!(checks.len(), 1);
        assert_eq!(checks[0].level, Level::Ok);
        assert!(
            checks[0].detail.ends_with("; no transaction holds it"),
            "{checks:?}"
        );
        assert!(
            serde_json::to_value(&checks[0])
                .unwrap()
                .get("holder")
                .is_none()
        );
        h.backends = vec![idle(1, 3.0), idle(2, 30.0)];
        h.slots = vec![slot_holding("cdc", true, None, Some(10))];
        let checks = assess(&h, LIMITS, &[], Utc::now());
        assert_eq!(checks.len(), 1, "{checks:?}");
        assert!(
            checks[0].detail.contains("the oldest: pid 2 (")
                && checks[0]
                    .detail
                    .contains("1 replication slot(s) or walsender(s) within"),
            "{checks:?}"
        );
    }

    #[test]
    fn slots_are_judged_by_xids_and_an_inactive_one_always_warns() {
        let mut h = holders();
        h.slots = vec![
            slot_holding("forgotten", false, None, Some(10)),
            slot_holding("lagging", true, Some(2_000_000), None),
            slot_holding("far_behind", true, None, Some(13_000_000)),
            slot_holding("fine", true, Some(10), Some(10)),
        ];
        let checks = assess(&h, LIMITS, &[], Utc::now());
        let levels: Vec<(Level, &str)> = checks
            .iter()
            .map(|c| (c.level, c.holder.as_ref().unwrap().name.as_deref().unwrap()))
            .collect();
        assert_eq!(
            levels,
            [
                (Level::Warn, "forgotten"),
                (Level::Warn, "lagging"),
                (Level::Fail, "far_behind")
            ]
        );
        assert!(
            checks[0].detail.contains("inactive: nothing consumes it")
                && checks[0]
                    .detail
                    .contains("pg_drop_replication_slot('forgotten')"),
            "{checks:?}"
        );
        assert!(
            checks[1]
                .detail
                .contains("xmin 2,000,000 xids back (over 1,000,000 xids)"),
            "{checks:?}"
        );
        assert!(
            checks[2].detail.contains("over 12 × 1,000,000 xids"),
            "{checks:?}"
        );
    }

    #[test]
    fn prepared_transactions_and_walsenders_are_named() {
        let mut h = holders();
        h.prepared = vec![XminPrepared {
            gid: "tx-9".into(),
            owner: "app".into(),
            age_seconds: 600.0,
            xids: Some(50),
        }];
        h.walsenders = vec![XminWalsender {
            pid: 99,
            application_name: "replica1".into(),
            client: Some("10.0.0.9:40000".into()),
            state: "streaming".into(),
            xids: Some(1_500_000),
        }];
        let checks = assess(&h, LIMITS, &[], Utc::now());
        assert_eq!(checks.len(), 2, "{checks:?}");
        assert!(
            checks[0]
                .detail
                .starts_with("prepared transaction 'tx-9' (owner app): prepared 10m ago (over 5m)"),
            "{checks:?}"
        );
        assert!(
            checks[1].detail.starts_with(
                "walsender pid 99 (application replica1, client 10.0.0.9:40000, streaming)"
            ) && checks[1].detail.contains("1,500,000 xids back"),
            "{checks:?}"
        );
        assert_eq!(
            checks.iter().map(|c| c.level).collect::<Vec<_>>(),
            [Level::Warn, Level::Warn]
        );
    }

    #[test]
    fn a_role_without_pg_monitor_is_told_what_it_cannot_see_and_how_to_fix_it() {
        let mut h = holders();
        h.sees_all = false;
        h.role = "\"Monitor\"".into();
        h.hidden_backends = 3;
        let checks = assess(&h, LIMITS, &[], Utc::now());
        assert_eq!((checks[0].name, checks[0].level), (VISIBILITY, Level::Warn));
        assert!(
            checks[0].detail.contains("3 backend(s) of other roles")
                && checks[0]
                    .detail
                    .ends_with("GRANT pg_monitor TO \"Monitor\""),
            "{checks:?}"
        );
        assert_eq!((checks[1].name, checks[1].level), (CHECK, Level::Ok));
    }
}
