//! `partitions check`'s report, and what `--fix` does (or, with `--dry-run`, would do).

use chrono::NaiveDate;
use serde::Serialize;

use super::DEFAULT_HAS_ROWS;
use crate::Error;
use crate::schema::partitions::Finding;
use crate::schema::postgres::LockPolicy;

/// What `check --fix` does: its changes, under a lock policy, or (`--dry-run`) only what they
/// would be.
#[derive(Debug, Clone, Copy)]
pub enum Fix {
    Apply(LockPolicy),
    Plan,
}

impl Fix {
    /// `--fix` (with its lock policy) or `--fix --dry-run`; none without `--fix`, and a usage
    /// error for `--dry-run` alone (a plain check changes nothing already).
    pub fn chosen(fix: bool, dry_run: bool, policy: LockPolicy) -> Result<Option<Fix>, Error> {
        match (fix, dry_run) {
            (false, true) => Err(Error::Usage(
                "--dry-run goes with --fix: partitions check alone changes nothing".into(),
            )),
            (false, false) => Ok(None),
            (true, true) => Ok(Some(Fix::Plan)),
            (true, false) => Ok(Some(Fix::Apply(policy))),
        }
    }
}

/// One change `check --fix` made (or, `planned`, would make).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "step", rename_all = "lowercase")]
pub enum FixStep {
    /// The day's rows moved out of the default partition (named) into a new partition.
    Moved {
        day: NaiveDate,
        rows: u64,
        default: String,
        planned: bool,
    },
    /// A day between partitions filled with an empty partition (`false`: skipped, the default
    /// partition holds rows of it).
    Gap {
        day: NaiveDate,
        added: bool,
        planned: bool,
    },
}

impl std::fmt::Display for FixStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (moved, added, skipped) = match self {
            FixStep::Moved { planned: true, .. } | FixStep::Gap { planned: true, .. } => {
                ("would move", "would add", "would skip")
            }
            _ => ("moved", "added", "skipped"),
        };
        match self {
            FixStep::Moved {
                day, rows, default, ..
            } => write!(
                f,
                "{moved} {rows} row(s) of {day} from {default} into the day's partition"
            ),
            FixStep::Gap {
                day, added: true, ..
            } => write!(f, "{added}: partition for {day} (a gap)"),
            FixStep::Gap {
                day, added: false, ..
            } => write!(
                f,
                "{skipped}: partition for {day} (a gap): {DEFAULT_HAS_ROWS}"
            ),
        }
    }
}

/// Rows of a day moved out of the default partition.
#[derive(Debug, Serialize)]
pub struct Moved {
    pub day: NaiveDate,
    pub rows: u64,
}

/// `partitions check`: what is wrong (nothing: ok), after what `--fix` did (`moved`, and every
/// step in `fixed`); with `--fix --dry-run`, what is wrong now and what `--fix` would do
/// (`planned`).
#[derive(Debug, Serialize)]
pub struct CheckReport {
    pub log: String,
    pub ok: bool,
    pub findings: Vec<Finding>,
    pub moved: Vec<Moved>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub planned: Vec<FixStep>,
    /// With `--fix`: every step it took (the text's `moved …` and `added …` lines), gaps too.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fixed: Vec<FixStep>,
    pub days_attached_from_today: u32,
}

impl CheckReport {
    /// The check's lines: `ok: …` (none with `quiet`), or a `problem: …` line per finding.
    pub fn lines(&self, quiet: bool) -> Vec<String> {
        let log = &self.log;
        match self.ok {
            true if quiet => Vec::new(),
            true => vec![format!(
                "ok: {log}: default partition empty, {} day(s) attached from today, no gaps",
                self.days_attached_from_today
            )],
            false => (self.findings.iter())
                .map(|f| format!("problem: {log}: {f}"))
                .collect(),
        }
    }

    /// A failed check when anything is wrong.
    pub fn verdict(&self) -> Result<(), Error> {
        if self.ok {
            return Ok(());
        }
        Err(Error::CheckFailed(format!(
            "partitions check: {} problem(s) in {}",
            self.findings.len(),
            self.log
        )))
    }
}
