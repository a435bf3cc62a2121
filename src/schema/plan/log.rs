//! The delivery log's part of a plan: the partitioned table with its event index and default
//! partition, and, on an existing log, the event index built without blocking the relays'
//! inserts. PostgreSQL builds no index on a partitioned table concurrently, so it is built the
//! way its documentation gives: an index on the parent alone (`ON ONLY`: invalid, no build),
//! each partition's index `CONCURRENTLY`, then each attached to it; the last attach makes it
//! valid. A run cut short leaves the parent's index invalid, and the next one goes on from the
//! partitions not yet attached.

use super::{MigrationPlan, PartitionFacts, PgCatalog, StepKind, TableFacts, check_columns};
use crate::schema::desired::{LOG_COLUMNS, PgSchema};
use crate::schema::render::Statement;
use crate::target::{Ident, QualifiedName};

/// The event index's definition.
const EVENT_USING: &str = "btree (event_id)";

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
        Some(i) if i.using != EVENT_USING => plan.problem(
            qualified,
            format!(
                "is defined as USING {}, expected USING {EVENT_USING}; left as it is",
                i.using
            ),
        ),
        Some(i) if i.valid => {}
        // an earlier build cut short: its partitions not yet attached
        Some(_) => attach_partitions(&log, &event_idx, table, plan),
        None if table
            .indexes
            .iter()
            .any(|i| i.using == EVENT_USING && i.valid) => {}
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
                "exists but is not the default partition of the delivery log",
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

/// Each partition's event index built without blocking writes (unless it has one) and attached
/// to the log's `event_idx`.
fn attach_partitions(
    log: &QualifiedName,
    event_idx: &Ident,
    table: &TableFacts,
    plan: &mut MigrationPlan,
) {
    for p in table.partitions.iter().filter(|p| !p.attached) {
        let child = match child_index(p) {
            Ok(child) => child,
            Err(why) => {
                plan.problem(p.name.plain(), why);
                continue;
            }
        };
        let child_name = QualifiedName::new(p.name.schema.clone(), child.clone());
        if p.event_index.is_none() {
            // an invalid index of that name, left by a build cut short, goes first
            plan.step(
                format!(
                    "create index {} without blocking writes",
                    child_name.plain()
                ),
                StepKind::Concurrent,
                vec![
                    Statement::new(format!("DROP INDEX CONCURRENTLY IF EXISTS {child_name};")),
                    Statement::new(format!(
                        "CREATE INDEX CONCURRENTLY {child} ON {} (event_id);",
                        p.name
                    )),
                ],
            );
        }
        plan.step(
            format!(
                "attach index {} to {}.{}",
                child_name.plain(),
                log.schema.name(),
                event_idx.name()
            ),
            StepKind::ShortLock,
            vec![Statement::new(format!(
                "ALTER INDEX {}.{event_idx} ATTACH PARTITION {child_name};",
                log.schema
            ))],
        );
    }
}

/// The partition's event index: the one it has, else `<partition>_event_idx`.
fn child_index(p: &PartitionFacts) -> Result<Ident, String> {
    match &p.event_index {
        Some(name) => Ident::new("index", name).map_err(|e| e.to_string()),
        None => p
            .name
            .name
            .with_suffix("partition index", "_event_idx")
            .map_err(|e| {
                format!("has no event index, and its name is too long for one ({e}): create one on (event_id) by hand and run migrate again")
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Storage;
    use crate::schema::plan::{IndexFacts, plan_postgres};

    fn partition(name: &str, event_index: Option<&str>, attached: bool) -> PartitionFacts {
        PartitionFacts {
            name: QualifiedName::parse("p", &format!("app.{name}")).unwrap(),
            event_index: event_index.map(str::to_owned),
            attached,
        }
    }

    /// The steps about the event index of a log with `index` (valid or not) and `partitions`.
    fn event_steps(
        index: Option<bool>,
        partitions: Vec<PartitionFacts>,
    ) -> Vec<(StepKind, String)> {
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
                    using: EVENT_USING.into(),
                    columns: vec!["event_id".into()],
                    unique: false,
                    primary: false,
                    valid,
                })
                .collect(),
            partition_key: Some("RANGE (published_at)".into()),
            default_partition: Some("outbox_delivered_default".into()),
            range_partitions: partitions.len() - 1,
            triggers: vec![],
            reloptions: vec![],
            partitions,
        };
        let mut have = PgCatalog::default();
        have.tables.insert(want.delivery_log.clone().unwrap(), log);
        (plan_postgres(&want, &have).steps.into_iter())
            .filter(|s| s.summary.contains("event_idx"))
            .map(|s| (s.kind, s.summary))
            .collect()
    }

    #[test]
    fn an_existing_logs_event_index_is_built_on_the_log_alone_then_per_partition() {
        let steps = event_steps(
            None,
            vec![
                partition("outbox_delivered_20261206", None, false),
                partition("outbox_delivered_default", Some("by_hand"), false),
            ],
        );
        let idx = "app.outbox_delivered_event_idx";
        assert_eq!(
            steps,
            [
                (
                    StepKind::ShortLock,
                    format!("create index {idx} on the log alone (ON ONLY: no build)")
                ),
                (
                    StepKind::Concurrent,
                    "create index app.outbox_delivered_20261206_event_idx without blocking writes"
                        .into()
                ),
                (
                    StepKind::ShortLock,
                    format!("attach index app.outbox_delivered_20261206_event_idx to {idx}")
                ),
                (
                    StepKind::ShortLock,
                    format!("attach index app.by_hand to {idx}")
                ),
            ]
        );
    }

    /// A run cut short left the log's index invalid: the next goes on from the partitions not
    /// attached yet; a valid one needs nothing.
    #[test]
    fn a_build_cut_short_goes_on_from_the_partitions_not_attached() {
        let parts = || {
            vec![
                partition(
                    "outbox_delivered_20261206",
                    Some("outbox_delivered_20261206_event_idx"),
                    true,
                ),
                partition("outbox_delivered_default", None, false),
            ]
        };
        let steps = event_steps(Some(false), parts());
        let kinds: Vec<StepKind> = steps.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            kinds,
            [StepKind::Concurrent, StepKind::ShortLock],
            "{steps:?}"
        );
        assert!(
            steps[1]
                .1
                .starts_with("attach index app.outbox_delivered_default_event_idx"),
            "{steps:?}"
        );
        assert_eq!(event_steps(Some(true), parts()), []);
    }
}
