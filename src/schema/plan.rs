//! Migration planning: compare what a live database has (catalog facts, read elsewhere) with
//! what the configuration wants, and list the steps that add what is missing. Pure: no I/O,
//! so every plan can be printed, tested and applied through the same value.
//!
//! A plan only adds. What exists but differs (a column's type, an index's definition) is a
//! [`Problem`], reported and left alone.

use std::collections::BTreeMap;

use serde::Serialize;

pub use super::Problem;
use super::desired::{
    Addition, CHECKPOINT_COLUMNS, ColumnSpec, OUTBOX_COLUMNS, PgSchema, RETAIN_ONLY_COLUMNS,
};
use super::render::{MongoIndexSpec, Statement};
use crate::model::Storage;
use crate::target::QualifiedName;

// ---- catalog facts ------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnFacts {
    pub name: String,
    pub pg_type: String,
    pub not_null: bool,
    pub default: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexFacts {
    pub name: String,
    /// `pg_get_indexdef` text after `USING `, e.g. `btree (event_id)`.
    pub using: String,
    pub columns: Vec<String>,
    pub unique: bool,
    pub primary: bool,
    pub valid: bool,
}

impl IndexFacts {
    /// Whether `ON CONFLICT (columns)` takes it for its arbiter: valid, unique, over every row
    /// (no `WHERE`), on exactly `columns` in any order.
    pub fn is_arbiter_for(&self, columns: &[&str]) -> bool {
        let mut mine: Vec<&str> = self.columns.iter().map(String::as_str).collect();
        let mut wanted = columns.to_vec();
        mine.sort();
        wanted.sort();
        self.unique && self.valid && !self.using.contains(" WHERE ") && mine == wanted
    }
}

/// The delivery log's event index, as `pg_get_indexdef` shows it after `USING`.
pub const LOG_EVENT_USING: &str = "btree (event_id)";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableFacts {
    /// `r` table, `p` partitioned table, anything else is not a table.
    pub relkind: char,
    pub columns: Vec<ColumnFacts>,
    pub indexes: Vec<IndexFacts>,
    /// `pg_get_partkeydef`, e.g. `RANGE (published_at)`.
    pub partition_key: Option<String>,
    /// The name of the default partition, when the table is partitioned and has one.
    pub default_partition: Option<String>,
    /// How many partitions it has besides the default one.
    pub range_partitions: usize,
    /// Its triggers' names (not the internal ones of constraints).
    pub triggers: Vec<String>,
    /// Its storage parameters (`pg_class.reloptions`), `name=value`.
    pub reloptions: Vec<String>,
    /// A partitioned table's partitions, the default one too, by name.
    pub partitions: Vec<PartitionFacts>,
}

/// A partition and its event index (the delivery log's `btree (event_id)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionFacts {
    pub name: QualifiedName,
    /// A valid index of its on `(event_id)`, not unique, by name (one attached, if one is).
    pub event_index: Option<String>,
    /// The index of the partitioned table that one is attached to.
    pub attached_to: Option<String>,
    /// An invalid index of its on `(event_id)`: a concurrent build cut short.
    pub leftover: Option<String>,
}

impl TableFacts {
    pub fn column(&self, name: &str) -> Option<&ColumnFacts> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// A valid index of the delivery log's on `(event_id)` ([`LOG_EVENT_USING`]), whatever its
    /// name.
    pub fn has_log_event_index(&self) -> bool {
        (self.indexes.iter()).any(|i| i.using == LOG_EVENT_USING && i.valid)
    }

    fn has_index_on(&self, columns: &[&str], unique: bool, primary: bool) -> bool {
        self.indexes.iter().any(|i| {
            i.columns == columns && (!unique || i.unique) && (!primary || i.primary) && i.valid
        })
    }
}

/// What the database has, for the relations a schema names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PgCatalog {
    pub schemas: Vec<String>,
    pub tables: BTreeMap<QualifiedName, TableFacts>,
    /// Relations of any kind that exist under a name the schema wants for an index.
    pub taken_names: Vec<QualifiedName>,
}

// ---- the plan -------------------------------------------------------------------------------

/// How a step runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// New objects, all statements in one transaction.
    Transaction,
    /// A change to an existing table: one short transaction with a `lock_timeout`, retried.
    ShortLock,
    /// An index built without blocking writes: outside any transaction, one statement.
    Concurrent,
    /// A MongoDB command.
    Mongo,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    pub summary: String,
    pub kind: StepKind,
    pub statements: Vec<Statement>,
    /// For MongoDB index steps, the index to create.
    #[serde(skip)]
    pub mongo_index: Option<MongoIndexSpec>,
    /// For MongoDB collection steps, the collection to create (`None`: the outbox's).
    #[serde(skip)]
    pub mongo_collection: Option<crate::target::CollectionName>,
    /// For a concurrent index build, the table it builds on (SQL text), by which migrate
    /// finds the build's progress whichever server connection runs it.
    #[serde(skip)]
    pub builds_on: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MigrationPlan {
    pub steps: Vec<Step>,
    pub problems: Vec<Problem>,
    /// The configured outbox is not an outbox (a typo names an application's table): the plan
    /// holds no step, and none may be added to it.
    #[serde(skip)]
    pub not_an_outbox: bool,
}

impl MigrationPlan {
    pub fn is_up_to_date(&self) -> bool {
        self.steps.is_empty() && self.problems.is_empty()
    }

    /// Whether a column of `table` (as `plain()` names it) differs from the specification's:
    /// its type, nullability or default, or it is missing.
    pub fn has_column_problem(&self, table: &str) -> bool {
        (self.problems.iter()).any(|p| {
            p.object == table
                && (p.message.starts_with("column ") || p.message.starts_with("has no column"))
        })
    }

    fn step(&mut self, summary: String, kind: StepKind, statements: Vec<Statement>) {
        self.steps.push(Step {
            summary,
            kind,
            statements,
            mongo_index: None,
            mongo_collection: None,
            builds_on: None,
        });
    }

    /// A concurrent index build on `table`, a step of its own (outside a transaction).
    fn build(&mut self, summary: String, table: &QualifiedName, statement: Statement) {
        self.step(summary, StepKind::Concurrent, vec![statement]);
        let step = self.steps.last_mut().expect("just pushed");
        step.builds_on = Some(table.to_string());
    }

    fn problem(&mut self, object: impl ToString, message: impl Into<String>) {
        self.problems.push(Problem {
            object: object.to_string(),
            message: message.into(),
        });
    }

    /// Adds `other`'s steps and problems, each once: tenants that share the outbox table but
    /// not the delivery log each plan the table's objects, which are created once.
    pub fn extend(&mut self, mut other: MigrationPlan) {
        other.steps.retain(|s| !self.steps.contains(s));
        other.problems.retain(|p| !self.problems.contains(p));
        self.steps.extend(other.steps);
        self.problems.extend(other.problems);
        self.not_an_outbox |= other.not_an_outbox;
        if self.not_an_outbox {
            self.steps.clear();
        }
    }

    /// The plan as a script: SQL (or mongosh) with each step introduced by a comment.
    pub fn script(&self, comment: &str) -> String {
        let mut out = String::new();
        for (i, step) in self.steps.iter().enumerate() {
            let how = match step.kind {
                StepKind::Transaction => " (one transaction)",
                StepKind::ShortLock => " (short lock_timeout, retried)",
                StepKind::Concurrent => " (outside a transaction)",
                StepKind::Mongo => "",
            };
            out.push_str(&format!(
                "{comment} step {}: {}{how}\n",
                i + 1,
                step.summary
            ));
            for stmt in &step.statements {
                out.push_str(&stmt.to_string());
                // each SQL statement ends, so that psql does not read the next one into it
                let sql = step.kind != StepKind::Mongo;
                if sql && !stmt.sql.trim_end().ends_with(';') {
                    out.push(';');
                }
                out.push('\n');
            }
            out.push('\n');
        }
        for p in &self.problems {
            out.push_str(&format!("{comment} problem: {p}\n"));
        }
        out
    }
}

// ---- PostgreSQL -------------------------------------------------------------------------------

/// The plan that brings a PostgreSQL database to `want`, given what it has.
pub fn plan_postgres(want: &PgSchema, have: &PgCatalog) -> MigrationPlan {
    let mut plan = MigrationPlan::default();
    let mut schemas: Vec<&crate::target::Ident> = vec![&want.outbox.schema];
    schemas.extend(want.checkpoint.iter().map(|c| &c.schema));
    schemas.extend(want.delivery_log.iter().map(|l| &l.schema));
    schemas.extend(want.sinks.iter().map(|l| &l.schema));
    schemas.extend(want.registry.iter().map(|l| &l.schema));
    schemas.sort();
    schemas.dedup();
    for schema in schemas {
        if !have.schemas.iter().any(|s| s == schema.name()) {
            plan.step(
                format!("create schema {}", schema.name()),
                StepKind::Transaction,
                vec![Statement::new(format!(
                    "CREATE SCHEMA IF NOT EXISTS {schema};"
                ))],
            );
        }
    }
    if !plan_outbox(want, have, &mut plan) {
        // a typo in outbox.table names an application's table: nothing is added anywhere
        plan.steps.clear();
        plan.not_an_outbox = true;
        return plan;
    }
    plan_checkpoint(want, have, &mut plan);
    plan_delivery_log(want, have, &mut plan);
    plan_registry(want, have, &mut plan);
    for sink in &want.sinks {
        match have.tables.get(sink) {
            None => plan.step(
                format!("create destination table {}", sink.plain()),
                StepKind::Transaction,
                want.sink_statements(sink),
            ),
            Some(table) => {
                // tables made before replay existed get its index
                let idx = crate::schema::desired::sink_replay_idx(sink)
                    .expect("names checked when the schema was built");
                plan_index(
                    sink,
                    table,
                    have,
                    idx.name(),
                    crate::schema::desired::SINK_REPLAY_DEF,
                    &want.sink_statements(sink)[1],
                    &mut plan,
                );
            }
        }
    }
    plan
}

fn wanted_columns(want: &PgSchema) -> impl Iterator<Item = &'static ColumnSpec> + '_ {
    OUTBOX_COLUMNS.iter().filter(move |c| match c.added_by {
        Some(Addition::Traceparent) => want.traceparent,
        Some(Addition::Hlc) => want.hlc,
        _ => !(want.storage == Storage::Consume && RETAIN_ONLY_COLUMNS.contains(&c.name)),
    })
}

/// Why a relation is not an outbox table: not a table (a view, another kind of relation), or
/// without a column of the specification's that migrate never adds (an application's table
/// named by a typo); `None` when it is one. Said by `migrate` and by `storage`, which would
/// drop columns of it.
pub fn not_an_outbox(table: &TableFacts) -> Option<String> {
    if !matches!(table.relkind, 'r' | 'p') {
        return Some("is not a table (a view or another kind of relation)".into());
    }
    let lacking: Vec<&str> = (OUTBOX_COLUMNS.iter())
        .filter(|c| c.added_by.is_none() && !RETAIN_ONLY_COLUMNS.contains(&c.name))
        .filter(|c| table.column(c.name).is_none())
        .map(|c| c.name)
        .collect();
    (!lacking.is_empty()).then(|| {
        format!(
            "is not an outbox table (it has no column {})",
            lacking.join(", ")
        )
    })
}

/// Plans the outbox table; `false` when the relation there is not an outbox (not a table,
/// or without the specification's columns migrate never adds), reported as a problem.
fn plan_outbox(want: &PgSchema, have: &PgCatalog, plan: &mut MigrationPlan) -> bool {
    let t = &want.outbox;
    let indexes = want
        .indexes()
        .expect("names checked when the schema was built");
    let Some(table) = have.tables.get(t) else {
        let mut stmts = vec![want.create_outbox_table()];
        stmts.push(indexes[0].create.clone());
        let optional: Vec<&ColumnSpec> = wanted_columns(want)
            .filter(|c| matches!(c.added_by, Some(Addition::Traceparent | Addition::Hlc)))
            .collect();
        for c in optional {
            stmts.push(want.add_columns(&[c]));
        }
        stmts.extend(indexes[1..].iter().map(|i| i.create.clone()));
        let mut summary = format!("create table {} and its indexes", t.plain());
        if want.wake {
            stmts.extend(want.wake_statements());
            summary = format!("{summary}, {}", want.wake_objects());
        }
        if want.queue_autovacuum {
            stmts.push(want.queue_autovacuum_statement());
            summary = format!("{summary}, with autovacuum settings for a queue");
        }
        plan.step(summary, StepKind::Transaction, stmts);
        return true;
    };
    if let Some(why) = not_an_outbox(table) {
        plan.problem(
            t.plain(),
            format!(
                "{why}: migrate changes nothing; check outbox.relation (--relation), or move the table away"
            ),
        );
        return false;
    }
    check_columns(&t.plain(), table, wanted_columns(want), plan);

    // Columns outboxctl adds, grouped as the specification groups them.
    for addition in [Addition::Retries, Addition::Traceparent, Addition::Hlc] {
        let missing: Vec<&ColumnSpec> = wanted_columns(want)
            .filter(|c| c.added_by == Some(addition) && table.column(c.name).is_none())
            .collect();
        if !missing.is_empty() {
            let names: Vec<&str> = missing.iter().map(|c| c.name).collect();
            plan.step(
                format!(
                    "add column{} {} to {}",
                    if names.len() > 1 { "s" } else { "" },
                    names.join(", "),
                    t.plain()
                ),
                StepKind::ShortLock,
                vec![want.add_columns(&missing)],
            );
        }
    }
    if !table.has_index_on(&["id"], true, true) {
        plan.problem(
            t.plain(),
            "has no PRIMARY KEY (id); add it yourself: outboxctl does not rewrite tables",
        );
    }
    if !table.has_index_on(&["outbox_route", "event_id"], true, false) {
        plan.problem(
            t.plain(),
            "has no UNIQUE (outbox_route, event_id), which staging deduplicates on; add it yourself",
        );
    }
    let trigger = want
        .wake_trigger()
        .expect("names checked when the schema was built");
    if want.wake && !table.triggers.iter().any(|t| t == trigger.name()) {
        plan.step(
            format!(
                "add {} to {} (relay.wake: notify)",
                want.wake_objects(),
                t.plain()
            ),
            StepKind::ShortLock,
            want.wake_statements(),
        );
    }
    if want.queue_autovacuum && !crate::vacuum::has_queue_settings(&table.reloptions) {
        plan.step(
            format!(
                "set autovacuum for a queue on {} (outbox.autovacuum: queue)",
                t.plain()
            ),
            StepKind::ShortLock,
            vec![want.queue_autovacuum_statement()],
        );
    }
    for index in &indexes {
        plan_index(
            t,
            table,
            have,
            index.name.name(),
            &index.expected_def(),
            &index.create,
            plan,
        );
    }
    true
}

/// Reports columns whose type, nullability or default differ from the specification's.
fn check_columns<'a>(
    object: &str,
    table: &TableFacts,
    wanted: impl Iterator<Item = &'a ColumnSpec>,
    plan: &mut MigrationPlan,
) {
    for spec in wanted {
        let Some(have) = table.column(spec.name) else {
            if spec.added_by.is_none() {
                let why = if RETAIN_ONLY_COLUMNS.contains(&spec.name) {
                    " (retain storage writes it; set storage: consume if it was dropped on purpose)"
                } else {
                    ""
                };
                plan.problem(object, format!("has no column {}{why}", spec.name));
            }
            continue;
        };
        if have.pg_type != spec.pg_type {
            plan.problem(
                object,
                format!(
                    "column {} is {}, expected {}",
                    spec.name, have.pg_type, spec.pg_type
                ),
            );
        }
        if have.not_null != spec.not_null {
            let (is, want) = if have.not_null {
                ("NOT NULL", "nullable")
            } else {
                ("nullable", "NOT NULL")
            };
            plan.problem(
                object,
                format!("column {} is {is}, expected {want}", spec.name),
            );
        }
        if let Some(default) = spec.default {
            if have.default.as_deref() != Some(default) {
                plan.problem(
                    object,
                    format!(
                        "column {} has default {}, expected {default}",
                        spec.name,
                        have.default.as_deref().unwrap_or("none")
                    ),
                );
            }
        }
    }
}

fn plan_index(
    table_name: &QualifiedName,
    table: &TableFacts,
    have: &PgCatalog,
    name: &str,
    expected_using: &str,
    create: &Statement,
    plan: &mut MigrationPlan,
) {
    let qualified = format!("{}.{}", table_name.schema.name(), name);
    match table.indexes.iter().find(|i| i.name == name) {
        Some(index) if index.using != expected_using => plan.problem(
            qualified,
            format!(
                "is defined as USING {}, expected USING {expected_using}; left as it is",
                index.using
            ),
        ),
        Some(index) if !index.valid => plan.build(
            format!("rebuild invalid index {qualified} (left by an interrupted concurrent build)"),
            table_name,
            Statement::new(format!(
                "REINDEX INDEX CONCURRENTLY {}.{};",
                table_name.schema,
                crate::target::Ident::new("index", name).expect("catalog names are valid")
            )),
        ),
        Some(_) => {}
        None => {
            let taken = have
                .taken_names
                .iter()
                .any(|n| n.schema == table_name.schema && n.name.name() == name);
            if taken {
                plan.problem(
                    qualified,
                    "the name is taken by another relation in the schema",
                );
            } else if table
                .indexes
                .iter()
                .any(|i| i.using == expected_using && i.valid)
            {
                // Same definition under another name (made by hand or by another tool): fine.
            } else {
                plan.build(
                    format!("create index {qualified} without blocking writes"),
                    table_name,
                    create.concurrently(),
                );
            }
        }
    }
}

fn plan_checkpoint(want: &PgSchema, have: &PgCatalog, plan: &mut MigrationPlan) {
    let Some(c) = &want.checkpoint else { return };
    match have.tables.get(c) {
        None => plan.step(
            format!("create hlc checkpoint table {}", c.plain()),
            StepKind::Transaction,
            want.checkpoint_statements().expect("checkpoint wanted"),
        ),
        Some(table) => {
            check_columns(&c.plain(), table, CHECKPOINT_COLUMNS.iter(), plan);
            if !table.has_index_on(&["node_key"], true, true) {
                plan.problem(
                    c.plain(),
                    "has no PRIMARY KEY (node_key), which the GREATEST upsert needs",
                );
            }
        }
    }
}

/// The relay registry and its pauses table, each created when missing (a table made by an
/// earlier version is left as it is).
fn plan_registry(want: &PgSchema, have: &PgCatalog, plan: &mut MigrationPlan) {
    let Some(Ok(names)) = want.registry_names() else {
        return;
    };
    let stmts = want.registry_statements().expect("registry wanted");
    if !have.tables.contains_key(&names.registry) {
        plan.step(
            format!("create relay registry {}", names.registry.plain()),
            StepKind::Transaction,
            stmts[..1].to_vec(),
        );
    }
    if !have.tables.contains_key(&names.pauses) {
        plan.step(
            format!("create route pauses {}", names.pauses.plain()),
            StepKind::Transaction,
            stmts[1..].to_vec(),
        );
    }
}

/// When a plan creates the delivery log, it also attaches today's partition and the next
/// `ahead_days` days (one short transaction each), so relays never start by filling the
/// default partition; so it does for a log that has no day at all (a migrate cut short after
/// creating it). A log with days is `partitions add-ahead`'s.
pub fn attach_days_to_new_log(
    plan: &mut MigrationPlan,
    want: &PgSchema,
    have: &PgCatalog,
    today: chrono::NaiveDate,
    ahead_days: u32,
) {
    let Some(log) = &want.delivery_log else {
        return;
    };
    let creates_log = plan.steps.iter().any(|s| {
        s.summary
            .starts_with(&format!("create delivery log {}", log.plain()))
    });
    let dayless =
        (have.tables.get(log)).is_some_and(|t| t.relkind == 'p' && t.range_partitions == 0);
    if !creates_log && !dayless {
        return;
    }
    for offset in 0..=ahead_days {
        let day = today + chrono::Days::new(u64::from(offset));
        if let Ok(stmts) = crate::schema::partitions::add_day_statements(log, day) {
            plan.step(
                format!("attach partition of {} for {day}", log.plain()),
                StepKind::ShortLock,
                stmts,
            );
        }
    }
}

// ---- MongoDB: `mongo.rs` ----------------------------------------------------------------------

mod mongo;
pub use mongo::{MongoCatalog, MongoIndexFacts, plan_mongo};

mod log;
use log::plan_delivery_log;

#[cfg(test)]
mod tests;
