//! The outbox's schema: what the configuration wants ([`desired`]), how it is written out
//! ([`render`], from `templates/`), what differs from a live database ([`plan`], pure), and
//! the backend code that reads catalogs and applies a plan ([`postgres`], [`mongo`]), and the
//! delivery log's daily partitions, planned ([`partitions`], pure).

pub mod desired;
pub mod mongo;
pub mod partitions;
pub mod plan;
pub mod postgres;
pub mod registry;
pub mod render;

pub use desired::{MongoSchema, PgSchema};
pub use plan::{MigrationPlan, Step, StepKind};
pub use render::{Sql, Statement};

/// What exists but differs from the configured schema, which a plan reports and leaves alone.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    pub object: String,
    pub message: String,
}

/// `object: message`, as `migrate` prints it.
impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.object, self.message)
    }
}

/// Said when `--with registry` finds none to print (it printed nothing, exit 0, without a word).
const NO_REGISTRY_PG: &str = "-- note: no relay registry to print: outbox.registry is off, or the relation is per tenant ({tenant}) with no outbox.registry named";

/// `schema print`'s text for the configured backend: the DDL (each table's, with the registry's
/// when asked) or the mongosh script (MongoDB has no delivery log). `notes` hears what a reader should know about it.
pub fn script(
    config: &crate::config::Config,
    extras: desired::Extras,
    registry: bool,
    notes: &mut dyn FnMut(&str),
) -> Result<String, crate::Error> {
    match config.backend {
        crate::dburl::Backend::Postgres => {
            let schemas = PgSchema::from_config(config, extras)?;
            if extras.delivery_log && config.outbox.storage != crate::model::Storage::Consume {
                notes("-- note: the delivery log is for storage: consume");
            }
            let mut parts: Vec<String> = Vec::new();
            // tenants sharing the outbox table (a delivery log each) print its DDL once
            for section in schemas.iter().flat_map(PgSchema::sections) {
                if !parts.contains(&section) {
                    parts.push(section);
                }
            }
            if registry {
                let printed = schemas.iter().filter_map(PgSchema::print_registry);
                let before = parts.len();
                parts.extend(printed);
                if parts.len() == before {
                    notes(NO_REGISTRY_PG);
                }
            }
            Ok(parts.join("\n"))
        }
        crate::dburl::Backend::Mongo => {
            let schema = MongoSchema::from_config(config, extras)?;
            // asked for, they add nothing here: said so, not left to be wondered at
            if extras.wake {
                notes(
                    "// note: wake needs nothing on MongoDB: relays under relay.wake: notify wake on a change stream of the outbox (a replica set)",
                );
            }
            if extras.replay {
                let hlc = config.outbox.hlc_ordering || extras.hlc;
                let index = render::mongo_replay_indexes(hlc).swap_remove(0);
                let keys: Vec<&str> = index.keys.iter().map(|(k, _)| k.as_str()).collect();
                notes(&format!(
                    "// note: replay on MongoDB reads through the claim-order index ({}) printed here",
                    keys.join(", ")
                ));
            }
            let mut text = schema.print();
            match schema.print_registry().filter(|_| registry) {
                Some(r) => text.push_str(&r),
                None if registry => notes(&NO_REGISTRY_PG.replacen("--", "//", 1)),
                None => {}
            }
            Ok(text)
        }
    }
}
