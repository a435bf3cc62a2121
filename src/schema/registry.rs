//! outboxctl's own relay registry beside the outbox (`outbox.registry`): its table and the
//! route pauses table named after it (PostgreSQL), or its two collections (MongoDB), and the
//! statements that create them. Not the specification's objects: `schema print` adds them only
//! with `--with registry`; `migrate` adds them by the configuration. Pure: no I/O.

use super::desired::{MongoSchema, PgSchema};
use super::render::{self, Statement};
use crate::target::{CollectionName, Ident, NameError, QualifiedName};

/// The relay registry's objects, named after its table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryNames {
    pub registry: QualifiedName,
    pub pauses: QualifiedName,
    pub active_idx: Ident,
}

impl RegistryNames {
    pub fn of(registry: &QualifiedName) -> Result<Self, NameError> {
        let pauses = registry.sibling("registry pauses", crate::config::PAUSES_SUFFIX)?;
        let active_idx =
            (pauses.name).with_suffix("pauses index", crate::config::PAUSES_INDEX_SUFFIX)?;
        Ok(Self {
            registry: registry.clone(),
            pauses,
            active_idx,
        })
    }
}

impl PgSchema {
    /// The registry, its pauses table and the index of pauses in force.
    pub fn registry_names(&self) -> Option<Result<RegistryNames, NameError>> {
        let registry = self.registry.as_ref()?;
        Some(RegistryNames::of(registry))
    }

    /// The relay registry's DDL, as `schema print --with registry` appends it (outboxctl's own
    /// tables, not the specification's: `print` leaves them out).
    pub fn print_registry(&self) -> Option<String> {
        self.registry_statements().map(|s| render::join(&s))
    }

    /// The registry and its pauses table (with the index of pauses in force).
    pub fn registry_statements(&self) -> Option<Vec<Statement>> {
        let n = self.registry_names()?.expect("checked in from_config");
        Some(render::render(
            render::REGISTRY_SQL,
            &[
                ("registry", (&n.registry).into()),
                ("pauses", (&n.pauses).into()),
                ("pauses_active_idx", (&n.active_idx).into()),
            ],
        ))
    }
}

impl MongoSchema {
    /// The relay registry's collections, as `schema print --with registry` appends them.
    pub fn print_registry(&self) -> Option<String> {
        let stmts: Vec<Statement> = self
            .registry_collections()
            .iter()
            .map(|c| {
                Statement::new(format!(
                    "db.getSiblingDB({}).createCollection({});",
                    render::js_string(&c.db),
                    render::js_string(&c.collection)
                ))
            })
            .collect();
        (!stmts.is_empty()).then(|| {
            format!(
                "// outboxctl's relay registry and route pauses\n{}",
                render::join_js(&stmts)
            )
        })
    }

    /// The registry's collection and its pauses', when there is a registry.
    pub fn registry_collections(&self) -> Vec<CollectionName> {
        let Some(r) = &self.registry else {
            return vec![];
        };
        let pauses = r
            .sibling("registry pauses", crate::config::PAUSES_SUFFIX)
            .expect("checked when the configuration was read");
        vec![r.clone(), pauses]
    }
}
