//! MongoDB's part of a plan: the outbox collection, the registry's collections and the
//! recommended indexes, each index found by its name or its keys.

use super::{MigrationPlan, Step, StepKind};
use crate::schema::desired::MongoSchema;
use crate::schema::render::{self, Statement};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MongoIndexFacts {
    pub name: String,
    pub keys: Vec<(String, i64)>,
    pub unique: bool,
    pub sparse: bool,
    /// Its `partialFilterExpression`, if it has one, as BSON prints it.
    pub partial: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MongoCatalog {
    pub collection_exists: bool,
    pub indexes: Vec<MongoIndexFacts>,
    /// Of the registry's collections, those that exist (`db.collection`).
    pub registry_collections: Vec<String>,
}

pub fn plan_mongo(want: &MongoSchema, have: &MongoCatalog) -> MigrationPlan {
    let mut plan = MigrationPlan::default();
    if !have.collection_exists {
        plan.steps.push(Step {
            summary: format!("create collection {}", want.outbox),
            kind: StepKind::Mongo,
            statements: vec![Statement::new(format!(
                "db.createCollection({})",
                render::js_string(&want.outbox.collection)
            ))],
            mongo_index: None,
            mongo_collection: None,
            builds_on: None,
        });
    }
    for c in want.registry_collections() {
        if !have.registry_collections.contains(&c.to_string()) {
            plan.steps.push(Step {
                summary: format!("create collection {c}"),
                kind: StepKind::Mongo,
                statements: vec![Statement::new(format!(
                    "db.getSiblingDB({}).createCollection({})",
                    render::js_string(&c.db),
                    render::js_string(&c.collection)
                ))],
                mongo_index: None,
                mongo_collection: Some(c),
                builds_on: None,
            });
        }
    }
    for spec in &want.indexes {
        let keys: Vec<(String, i64)> = spec
            .keys
            .iter()
            .map(|(k, v)| (k.clone(), i64::from(*v)))
            .collect();
        let partial = spec.partial_filter().map(|p| p.to_string());
        // a named index is found by its name; another by its keys, among those that index
        // every document
        let found = match &spec.name {
            Some(name) => have.indexes.iter().find(|i| &i.name == name),
            None => have
                .indexes
                .iter()
                .find(|i| i.keys == keys && i.partial.is_none()),
        };
        match found {
            Some(i) if i.keys != keys || i.partial != partial => plan.problem(
                format!("{}.{}", want.outbox, i.name),
                format!(
                    "is not the index outboxctl names so (keys {{ {} }}, partial filter {}); left as it is: drop it and run migrate again",
                    (i.keys.iter())
                        .map(|(k, v)| format!("{k}: {v}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    i.partial.as_deref().unwrap_or("none")
                ),
            ),
            Some(i) if i.unique != spec.unique || i.sparse != spec.sparse => plan.problem(
                format!("{}.{}", want.outbox, i.name),
                format!(
                    "has unique: {}, sparse: {}; expected unique: {}, sparse: {}; left as it is",
                    i.unique, i.sparse, spec.unique, spec.sparse
                ),
            ),
            Some(_) => {}
            None => plan.steps.push(Step {
                summary: format!(
                    "create index {}{{ {} }}{} on {}",
                    spec.name
                        .as_ref()
                        .map(|n| format!("{n} "))
                        .unwrap_or_default(),
                    spec.keys
                        .iter()
                        .map(|(k, v)| format!("{k}: {v}"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    partial
                        .as_ref()
                        .map(|p| format!(" where {p}"))
                        .unwrap_or_default(),
                    want.outbox
                ),
                kind: StepKind::Mongo,
                statements: vec![want.create_index(spec)],
                mongo_index: Some(spec.clone()),
                mongo_collection: None,
                builds_on: None,
            }),
        }
    }
    // the outbox's statements name it `db.outbox`: the script selects its database first, as
    // `schema print` does (pasted into mongosh, they went to the shell's database)
    if let Some(first) = (plan.steps.iter_mut()).find(|s| s.mongo_collection.is_none()) {
        first.statements.insert(0, want.use_db());
    }
    plan
}
