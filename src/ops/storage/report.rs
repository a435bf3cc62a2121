//! What each step of `storage to-consume` reports (`--format json` prints it; the text is its
//! `next`), and what step 1 asks before it is confirmed.

use serde::Serialize;

use super::DropPlan;
use crate::config::Config;

/// What a step of `to-consume` did, as `--format json` prints it.
#[derive(Debug, Serialize)]
pub struct StepReport {
    /// The step run (`None`: every table is consume-only already).
    pub step: Option<u8>,
    /// Step 1 confirmed, step 2's rows gone, step 3's columns dropped (not by a dry run).
    pub done: bool,
    /// Step 3: per table, the columns and indexes it dropped.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<Dropped>,
    /// Step 3 with `--dry-run`: what it would drop (it was `dropped`, read as done).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub would_drop: Vec<Dropped>,
    /// Step 3 with `--dry-run`: its SQL, and what refuses it now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocked: Vec<String>,
    /// Step 3: what it does not refuse for, but names (outboxctl's relays live on the outbox).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// What comes next, in a sentence (also the text a person reads).
    pub next: String,
}

/// Retain's columns dropped from a table, with the indexes that went with them.
#[derive(Debug, Serialize)]
pub struct Dropped {
    pub table: String,
    pub columns: Vec<&'static str>,
    pub indexes: Vec<String>,
}

impl StepReport {
    /// Step `step` done on `tables` (`None`: nothing to do, they are consume-only), with what
    /// comes next.
    pub fn done(step: Option<u8>, tables: &str) -> Self {
        let next = match step {
            None => format!("{tables}: already consume-only: nothing to do"),
            Some(1) => "step 1 confirmed; next: outboxctl storage to-consume --step 2".into(),
            Some(2) => "step 2 done: no processing and no published rows; next: retire the retention job (it reads published_at), turn reclaim off in every relay, then --step 3 --reclaim-disabled with the relays' configuration (storage: consume, reclaim_stale_after: null)".into(),
            Some(_) => "already consume-only: nothing to drop".into(),
        };
        StepReport {
            step,
            done: true,
            dropped: Vec::new(),
            would_drop: Vec::new(),
            script: None,
            blocked: Vec::new(),
            warnings: Vec::new(),
            next,
        }
    }

    /// Step 1 confirmed on `tables`, or (`dry_run`) only asked; with what this configuration
    /// (the relays', as step 1 is run with) says against it: it was confirmed for relays still
    /// on retain, or with reclaim off, without a word; and `missing`, what
    /// [`super::StorageMove::missing_consume_function`] found.
    pub fn step_1(tables: &str, dry_run: bool, config: &Config, missing: Option<String>) -> Self {
        let mut done = Self::done(Some(1), tables);
        if config.outbox.storage == crate::model::Storage::Retain {
            done.warnings.push("this configuration says storage: retain: step 1 is for relays that run with storage: consume; run it (and migrate first) with their configuration, or --storage consume".into());
        }
        done.warnings.extend(missing);
        if config.relay.reclaim_stale_after.is_none() {
            done.warnings.push("this configuration has reclaim off (relay.reclaim_stale_after: null): the processing rows retain relays left behind come back only with it on, until step 2 is done".into());
        }
        match dry_run {
            false => done,
            true => StepReport {
                done: false,
                next: "dry run: nothing confirmed; run step 1 without --dry-run to confirm it"
                    .into(),
                ..done
            },
        }
    }

    /// Step 3 over `plan`: run, or (`script`) only printed.
    pub fn dropping(plan: &DropPlan, script: Option<String>) -> Self {
        let listed: Vec<Dropped> = (plan.drops.iter())
            .map(|d| Dropped {
                table: d.table.plain(),
                columns: d.columns.clone(),
                indexes: d.indexes.clone(),
            })
            .collect();
        let next = match script {
            None => "the table is consume-only",
            Some(_) if !plan.blocked.is_empty() => {
                "step 3 would be refused now: clear what blocks it (blocked), then run it without --dry-run"
            }
            Some(_) => "run step 3 without --dry-run",
        };
        // a dry run's list is what it would drop: a script reading `dropped` read it as done
        let (dropped, would_drop) = match script {
            None => (listed, Vec::new()),
            Some(_) => (Vec::new(), listed),
        };
        StepReport {
            done: script.is_none(),
            dropped,
            would_drop,
            script,
            blocked: plan.blocked.clone(),
            warnings: plan.warnings.clone(),
            next: next.into(),
            step: Some(3),
        }
    }
}

/// What step 1 asks of a person before they confirm it.
pub fn step_1_asks(tables: &str) -> String {
    format!(
        "step 1: deploy every relay of {tables} with storage: consume, keeping reclaim_stale_after set.\n\
         Their claims take pending rows, and reclaim returns the processing rows retain relays left behind.\n\
         Relays (outboxctl's or forze's) cannot be observed from the database: confirm when they run."
    )
}
