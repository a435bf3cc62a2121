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
pub use plan::{MigrationPlan, Problem, Step, StepKind};
pub use render::{Sql, Statement};
