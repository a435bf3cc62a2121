//! `doctor`'s `schema` check: the tables as `migrate --check` sees them.

use std::time::Duration;

use super::{DoctorReport, Level};
use crate::config::Config;

/// The schema as `migrate --check` sees it: what differs from the specification and
/// `migrate` leaves alone (a column's type, an index of another definition) fails, with the
/// hand fix it needs; what `migrate` would add is a warning naming the steps.
pub(super) async fn check(config: &Config, connect_timeout: Duration, report: &mut DoctorReport) {
    let policy = crate::ops::migrate::Migration::lock_policy(config, None, 0);
    let planned =
        crate::ops::migrate::Migration::plan(config, connect_timeout, None, false, policy);
    let plan = match planned.await {
        Ok(m) => m.plan,
        Err(e) => return report.add(SCHEMA, Level::Warn, format!("cannot plan migrate: {e}")),
    };
    for p in &plan.problems {
        let fix = "migrate leaves it as it is: fix it by hand (outboxctl migrate --check lists every difference)";
        report.add(SCHEMA, Level::Fail, format!("{p}; {fix}"));
    }
    let steps: Vec<&str> = plan.steps.iter().map(|s| s.summary.as_str()).collect();
    match (steps.is_empty(), plan.problems.is_empty()) {
        (true, true) => report.add(SCHEMA, Level::Ok, "as migrate would make it"),
        (true, false) => {}
        (false, _) => report.add(
            SCHEMA,
            Level::Warn,
            format!("outboxctl migrate would: {}", steps.join("; ")),
        ),
    }
}

/// The name of [`check`]'s lines.
const SCHEMA: &str = "schema";

/// What fixes a missing claim index: `migrate`, unless an index of its name with another
/// definition is there (which `migrate` leaves as it is: dropped first).
pub(super) fn claim_index_fix(
    facts: &crate::schema::plan::TableFacts,
    table: &crate::target::QualifiedName,
    claim_def: &str,
) -> String {
    let name = table.name.with_suffix("claim index", "_claim_idx");
    let named = (facts.indexes.iter())
        .find(|i| name.as_ref().is_ok_and(|n| i.name == n.name()) && i.using != claim_def);
    match named {
        Some(i) => format!(
            "{} is USING {}: drop it, then run outboxctl migrate",
            i.name, i.using
        ),
        None => "run outboxctl migrate".into(),
    }
}
