//! Where the configuration puts the outbox and the tables beside it: the outbox relation (or
//! collection), its delivery log, HLC checkpoint and relay registry, each parsed, the names
//! derived from them checked against PostgreSQL's 63 bytes, and no two naming one table.

use super::{
    Backend, ConfigError, DEFAULT_COLLECTION, DEFAULT_RELATION, PAUSES_SUFFIX, REGISTRY_SUFFIX,
    Target, invalid,
};
use crate::target::{CollectionName, NameError, QualifiedName, RelationSpec};

/// The index of pauses in force: the pauses table's name with this suffix.
pub const PAUSES_INDEX_SUFFIX: &str = "_active_idx";
/// What to do when a name derived for the registry would not fit.
pub const REGISTRY_HINT: &str = "the registry's names derive from the outbox table's: name a shorter table with outbox.registry: schema.table, or set outbox.registry: off";

/// A registry name that would not fit, with [`REGISTRY_HINT`].
fn registry_name(e: NameError) -> NameError {
    NameError::Derived {
        error: e.to_string(),
        hint: REGISTRY_HINT,
    }
}

/// `outbox.registry` as written.
enum RegistrySetting<'a> {
    Default,
    Off,
    Named(&'a str),
}

fn registry_setting(value: Option<&str>) -> RegistrySetting<'_> {
    match value.map(str::trim) {
        None => RegistrySetting::Default,
        // in any case, as YAML's own booleans go (`OFF`, `No` made a table of that name)
        Some(v) if ["off", "false", "none", "no"].contains(&v.to_ascii_lowercase().as_str()) => {
            RegistrySetting::Off
        }
        Some(name) => RegistrySetting::Named(name),
    }
}

/// Refuses two settings that name one table (or collection): a checkpoint, a log or a registry
/// written into the outbox (or into each other) would be read as what it is not, and `migrate`
/// reported one's columns under the other's name.
fn one_table_each<T: PartialEq + std::fmt::Display>(
    named: &[(&str, Option<T>)],
) -> Result<(), ConfigError> {
    for (i, (key, name)) in named.iter().enumerate() {
        let Some(name) = name else { continue };
        if let Some((other, _)) = named[i + 1..]
            .iter()
            .find(|(_, n)| n.as_ref() == Some(name))
        {
            return Err(invalid(format!(
                "{key} and {other} both name {name}: each needs a table (or collection) of its own"
            )));
        }
    }
    Ok(())
}

/// The names as the flags, the environment and the file gave them.
pub(super) struct Names<'a> {
    pub relation: Option<String>,
    pub collection: Option<String>,
    pub delivery_log: Option<String>,
    pub hlc_checkpoint: Option<String>,
    pub registry: Option<&'a str>,
}

impl Names<'_> {
    /// The target on `backend`, or what is wrong with a name.
    pub fn resolve(&self, backend: Backend) -> Result<Target, ConfigError> {
        Ok(match backend {
            Backend::Postgres => {
                if self.collection.is_some() && self.relation.is_none() {
                    return Err(invalid(
                        "outbox.collection is for MongoDB; on PostgreSQL set outbox.relation (schema.table)",
                    ));
                }
                let relation = RelationSpec::parse(
                    "relation",
                    self.relation.as_deref().unwrap_or(DEFAULT_RELATION),
                )?;
                let delivery_log = (self.delivery_log)
                    .as_deref()
                    .map(|t| RelationSpec::parse("delivery log", t))
                    .transpose()?;
                let hlc_checkpoint = (self.hlc_checkpoint)
                    .as_deref()
                    .map(|t| QualifiedName::parse("hlc checkpoint", t))
                    .transpose()?;
                let registry = match registry_setting(self.registry) {
                    RegistrySetting::Off => None,
                    RegistrySetting::Named(t) => Some(QualifiedName::parse("registry", t)?),
                    // a per-tenant relation has no one table to name it after
                    RegistrySetting::Default if relation.is_per_tenant() => None,
                    RegistrySetting::Default => Some(
                        (relation.resolve(None)?)
                            .sibling("registry", REGISTRY_SUFFIX)
                            .map_err(registry_name)?,
                    ),
                };
                if let Some(r) = &registry {
                    (r.sibling("registry pauses", PAUSES_SUFFIX))
                        .and_then(|p| p.name.with_suffix("pauses index", PAUSES_INDEX_SUFFIX))
                        .map_err(registry_name)?;
                }
                // as written: a per-tenant relation and log of one template collide for
                // every tenant
                let pauses = (registry.as_ref())
                    .and_then(|r| r.sibling("registry pauses", PAUSES_SUFFIX).ok());
                one_table_each(&[
                    ("outbox.relation", Some(relation.template())),
                    (
                        "outbox.delivery_log",
                        delivery_log.as_ref().map(RelationSpec::template),
                    ),
                    (
                        "outbox.hlc_checkpoint",
                        hlc_checkpoint.as_ref().map(QualifiedName::plain),
                    ),
                    (
                        "outbox.registry",
                        registry.as_ref().map(QualifiedName::plain),
                    ),
                    (
                        "outbox.registry's pauses",
                        pauses.as_ref().map(QualifiedName::plain),
                    ),
                ])?;
                Target::Postgres {
                    relation,
                    delivery_log,
                    hlc_checkpoint,
                    registry,
                }
            }
            Backend::Mongo => {
                if self.relation.is_some() && self.collection.is_none() {
                    return Err(invalid(
                        "outbox.relation is for PostgreSQL; on MongoDB set outbox.collection (db.collection)",
                    ));
                }
                if self.delivery_log.is_some() {
                    return Err(invalid(
                        "outbox.delivery_log is PostgreSQL-only: MongoDB keeps retain storage, which has no delivery log",
                    ));
                }
                let collection = CollectionName::parse(
                    "collection",
                    self.collection.as_deref().unwrap_or(DEFAULT_COLLECTION),
                )?;
                let hlc_checkpoint = (self.hlc_checkpoint)
                    .as_deref()
                    .map(|t| CollectionName::parse("hlc checkpoint", t))
                    .transpose()?;
                let registry = match registry_setting(self.registry) {
                    RegistrySetting::Off => None,
                    RegistrySetting::Named(t) => Some(CollectionName::parse("registry", t)?),
                    RegistrySetting::Default => Some(
                        (collection.sibling("registry", REGISTRY_SUFFIX)).map_err(registry_name)?,
                    ),
                };
                let pauses = match &registry {
                    Some(r) => {
                        Some((r.sibling("registry pauses", PAUSES_SUFFIX)).map_err(registry_name)?)
                    }
                    None => None,
                };
                one_table_each(&[
                    ("outbox.collection", Some(collection.clone())),
                    ("outbox.hlc_checkpoint", hlc_checkpoint.clone()),
                    ("outbox.registry", registry.clone()),
                    ("outbox.registry's pauses", pauses),
                ])?;
                Target::Mongo {
                    collection,
                    hlc_checkpoint,
                    registry,
                }
            }
        })
    }
}
