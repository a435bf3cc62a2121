//! The delivery log's part of a plan: the partitioned table with its event index and default
//! partition, and, on an existing log, the event index built without blocking the relays'
//! inserts. PostgreSQL builds no index on a partitioned table concurrently, so it is built the
//! way its documentation gives: an index on the parent alone (`ON ONLY`: invalid, no build),
//! each partition's index `CONCURRENTLY`, then each attached to it; the last attach makes it
//! valid. A run cut short leaves the parent's index invalid, and the next one goes on from the
//! partitions not yet attached.

use super::{LOG_EVENT_USING, MigrationPlan, PgCatalog, StepKind, TableFacts, check_columns};
use crate::schema::desired::{LOG_COLUMNS, PgSchema};
use crate::schema::render::Statement;
use crate::target::{Ident, QualifiedName};

pub(super) fn plan_delivery_log(want: &PgSchema, have: &PgCatalog, plan: &mut MigrationPlan) {
    let Some((log, event_idx, default)) = want.log_names() else {
        return;
    };
    let stmts = want.delivery_log_statements().expect("delivery log wanted");
    let Some(table) = have.tables.get(&log) else {
        plan.step(
            format!(
                "create delivery log {} with its event index and default partition",
                log.plain()
            ),
            StepKind::Transaction,
            stmts,
        );
        return;
    };
    if table.relkind != 'p' || table.partition_key.as_deref() != Some("RANGE (published_at)") {
        plan.problem(
            log.plain(),
            "is not partitioned by RANGE (published_at); the delivery log must be, for daily retention",
        );
        return;
    }
    check_columns(&log.plain(), table, LOG_COLUMNS.iter(), plan);
    let qualified = format!("{}.{}", log.schema.name(), event_idx.name());
    match table.indexes.iter().find(|i| i.name == event_idx.name()) {
        Some(i) if i.using != LOG_EVENT_USING => plan.problem(
            qualified,
            format!(
                "is defined as USING {}, expected USING {LOG_EVENT_USING}; left as it is",
                i.using
            ),
        ),
        Some(i) if i.valid => {}
        // an earlier build cut short: its partitions not yet attached
        Some(_) => {
            let before = (plan.steps.len(), plan.problems.len());
            attach_partitions(&log, &event_idx, table, plan);
            if (plan.steps.len(), plan.problems.len()) == before {
                plan.problem(
                    qualified,
                    "is invalid though every partition's index is attached to it (a partition dropped before it was attached leaves it so): drop it and run migrate again",
                );
            }
        }
        None if table.has_log_event_index() => {}
        None => {
            plan.step(
                format!("create index {qualified} on the log alone (ON ONLY: no build)"),
                StepKind::ShortLock,
                vec![Statement::new(format!(
                    "CREATE INDEX {event_idx} ON ONLY {log} (event_id);"
                ))],
            );
            attach_partitions(&log, &event_idx, table, plan);
        }
    }
    if table.default_partition.is_none() {
        if have.tables.contains_key(&default) {
            plan.problem(
                default.plain(),
                format!(
                    "exists but is not the default partition of the delivery log: attach it (ALTER TABLE {log} ATTACH PARTITION {default} DEFAULT; PostgreSQL checks that none of its rows belongs to a day's partition)"
                ),
            );
        } else {
            plan.step(
                format!("create default partition {}", default.plain()),
                StepKind::ShortLock,
                vec![stmts[2].clone()],
            );
        }
    }
}

/// How a partition's event index comes to be before it is attached.
enum Build {
    /// A valid one is there.
    Have,
    /// An invalid one, left by a build cut short, is rebuilt.
    Rebuild,
    /// None is there: one is built.
    Create,
}

/// Each partition's event index built without blocking writes (unless it has one; an invalid
/// one, left by a build cut short, rebuilt) and attached to the log's `event_idx`.
fn attach_partitions(
    log: &QualifiedName,
    event_idx: &Ident,
    table: &TableFacts,
    plan: &mut MigrationPlan,
) {
    let parent = format!("{}.{}", log.schema.name(), event_idx.name());
    for p in &table.partitions {
        let (name, build) = match (&p.event_index, &p.attached_to) {
            (Some(_), Some(to)) if to == event_idx.name() => continue,
            (Some(index), Some(to)) => {
                plan.problem(
                    p.name.plain(),
                    format!("its event index {index} is attached to {to}, and an index has one parent: drop {to} and run migrate again to attach it to {parent}"),
                );
                continue;
            }
            (Some(index), None) => (Ident::new("index", index), Build::Have),
            (None, _) => match &p.leftover {
                Some(leftover) => (Ident::new("index", leftover), Build::Rebuild),
                None => (
                    (p.name.name).with_suffix("partition index", "_event_idx"),
                    Build::Create,
                ),
            },
        };
        let child = match name {
            Ok(name) => QualifiedName::new(p.name.schema.clone(), name),
            Err(e) => {
                plan.problem(
                    p.name.plain(),
                    format!("has no event index, and none can be named for it ({e}): create one on (event_id) by hand and run migrate again"),
                );
                continue;
            }
        };
        let built = match build {
            Build::Have => None,
            Build::Rebuild => Some((
                format!(
                    "rebuild invalid index {} (left by an interrupted concurrent build)",
                    child.plain()
                ),
                format!("REINDEX INDEX CONCURRENTLY {child};"),
            )),
            Build::Create => Some((
                format!("create index {} without blocking writes", child.plain()),
                format!(
                    "CREATE INDEX CONCURRENTLY {} ON {} (event_id);",
                    child.name, p.name
                ),
            )),
        };
        if let Some((summary, sql)) = built {
            plan.build(summary, &p.name, Statement::new(sql));
        }
        plan.step(
            format!("attach index {} to {parent}", child.plain()),
            StepKind::ShortLock,
            vec![Statement::new(format!(
                "ALTER INDEX {}.{event_idx} ATTACH PARTITION {child};",
                log.schema
            ))],
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Storage;
    use crate::schema::plan::{IndexFacts, PartitionFacts, plan_postgres};
    use StepKind::{Concurrent, ShortLock};

    fn partition(name: &str, index: Option<&str>, attached_to: Option<&str>) -> PartitionFacts {
        PartitionFacts {
            name: QualifiedName::parse("p", &format!("app.{name}")).unwrap(),
            event_index: index.map(str::to_owned),
            attached_to: attached_to.map(str::to_owned),
            leftover: None,
        }
    }

    /// The steps about the event index of a log with `index` (valid or not) and `partitions`,
    /// and the plan's problems.
    fn event_plan(
        index: Option<bool>,
        partitions: Vec<PartitionFacts>,
    ) -> (Vec<(StepKind, String)>, Vec<String>) {
        let want = PgSchema {
            outbox: QualifiedName::parse("r", "app.outbox").unwrap(),
            storage: Storage::Consume,
            traceparent: false,
            hlc: false,
            strict_key_order: false,
            replay: false,
            wake: false,
            queue_autovacuum: false,
            checkpoint: None,
            delivery_log: Some(QualifiedName::parse("l", "app.outbox_delivered").unwrap()),
            sinks: vec![],
            registry: None,
        };
        let log = TableFacts {
            relkind: 'p',
            columns: vec![],
            indexes: (index.iter())
                .map(|&valid| IndexFacts {
                    name: "outbox_delivered_event_idx".into(),
                    using: LOG_EVENT_USING.into(),
                    columns: vec!["event_id".into()],
                    unique: false,
                    primary: false,
                    valid,
                })
                .collect(),
            partition_key: Some("RANGE (published_at)".into()),
            default_partition: Some("outbox_delivered_default".into()),
            range_partitions: partitions.len().saturating_sub(1),
            triggers: vec![],
            reloptions: vec![],
            partitions,
        };
        let mut have = PgCatalog::default();
        have.tables.insert(want.delivery_log.clone().unwrap(), log);
        let plan = plan_postgres(&want, &have);
        let steps = (plan.steps.into_iter())
            .filter(|s| s.summary.contains("event_idx"))
            .map(|s| (s.kind, s.summary))
            .collect();
        let problems = (plan.problems.into_iter())
            .filter(|p| !p.message.contains("column"))
            .map(|p| p.message)
            .collect();
        (steps, problems)
    }

    #[test]
    fn an_existing_logs_event_index_is_built_on_the_log_alone_then_per_partition() {
        let (steps, problems) = event_plan(
            None,
            vec![
                partition("outbox_delivered_20261206", None, None),
                partition("outbox_delivered_default", Some("by_hand"), None),
            ],
        );
        let idx = "app.outbox_delivered_event_idx";
        let day = "app.outbox_delivered_20261206_event_idx";
        assert_eq!(
            steps,
            [
                (
                    ShortLock,
                    format!("create index {idx} on the log alone (ON ONLY: no build)")
                ),
                (
                    Concurrent,
                    format!("create index {day} without blocking writes")
                ),
                (ShortLock, format!("attach index {day} to {idx}")),
                (ShortLock, format!("attach index app.by_hand to {idx}")),
            ]
        );
        assert!(problems.is_empty(), "{problems:?}");
    }

    /// A run cut short left the log's index invalid: the next goes on from the partitions not
    /// attached yet, rebuilding an invalid one; a valid index needs nothing; an invalid one with
    /// nothing left to attach, or a partition attached elsewhere, is said, not hidden.
    #[test]
    fn a_build_cut_short_goes_on_from_the_partitions_not_attached() {
        let parts = || {
            let mut cut = partition("outbox_delivered_20261207", None, None);
            cut.leftover = Some("outbox_delivered_20261207_event_idx".into());
            vec![
                partition(
                    "outbox_delivered_20261206",
                    Some("outbox_delivered_20261206_event_idx"),
                    Some("outbox_delivered_event_idx"),
                ),
                cut,
                partition("outbox_delivered_default", None, None),
            ]
        };
        let (steps, problems) = event_plan(Some(false), parts());
        let kinds: Vec<StepKind> = steps.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            kinds,
            [Concurrent, ShortLock, Concurrent, ShortLock],
            "{steps:?}"
        );
        let rebuilt = "rebuild invalid index app.outbox_delivered_20261207_event_idx";
        assert!(steps[0].1.starts_with(rebuilt), "{steps:?}");
        let attached = "attach index app.outbox_delivered_default_event_idx";
        assert!(steps[3].1.starts_with(attached), "{steps:?}");
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(event_plan(Some(true), parts()), (vec![], vec![]));
        let (steps, problems) = event_plan(Some(false), parts()[..1].to_vec());
        assert!(
            steps.is_empty() && problems.len() == 1,
            "{steps:?} {problems:?}"
        );
        let elsewhere = vec![partition(
            "outbox_delivered_20261206",
            Some("x"),
            Some("by_hand"),
        )];
        let (_, problems) = event_plan(Some(false), elsewhere);
        assert!(problems[0].contains("attached to by_hand"), "{problems:?}");
    }
}
