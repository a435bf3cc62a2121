//! The PostgreSQL store: the relay's statements ([`sql`]) sent by its store ([`pass`]), and the
//! operator's, diagnostic, partition, replay and wake-up parts.

mod chosen;
pub mod consume_move;
pub mod diagnostics;
pub mod ops;
pub mod partitions;
pub mod pass;
pub mod registry;
pub mod replay;
mod rows;
mod session;
pub mod sql;
pub mod stage;
pub mod wake;

use std::time::Duration;

pub use pass::PgStore;
pub use rows::{millis_ceil, sort_claim_order};
pub use session::PASS_TIMEOUTS_SQL;
pub(crate) use sql::columns;
pub use sql::{PgSql, blocking_rows, claim_sql};

use crate::model::{KeyOrder, Storage};
use crate::target::RelationSpec;

/// What shapes the statements.
#[derive(Debug, Clone)]
pub struct PgStoreOptions {
    pub relation: RelationSpec,
    pub delivery_log: Option<RelationSpec>,
    pub storage: Storage,
    pub hlc_ordering: bool,
    pub propagate_trace: bool,
    pub tenant_aware: bool,
    pub key_order: KeyOrder,
    /// Consume storage: `statement_timeout` / `lock_timeout` of a pass.
    pub pass_statement_timeout: Duration,
    /// Consume storage: `idle_in_transaction_session_timeout` is this plus the statement timeout.
    pub pass_deadline: Duration,
    /// Named, cached statements sent as they are (one round trip each) instead of unnamed
    /// ones in a transaction each: for direct connections and pgbouncer 1.21+ (see
    /// [`crate::db::pg`]).
    pub prepared_statements: bool,
    /// The route pauses table (`outbox.registry`'s): the claim takes nothing of a paused
    /// route, so a pause holds from the next pass without a statement of its own.
    pub pauses: Option<crate::target::QualifiedName>,
}

impl PgStoreOptions {
    /// The options a configuration asks for, for this relation and delivery log.
    pub fn from_config(
        config: &crate::config::Config,
        relation: RelationSpec,
        delivery_log: Option<RelationSpec>,
    ) -> Self {
        Self {
            relation,
            delivery_log,
            storage: config.outbox.storage,
            hlc_ordering: config.outbox.hlc_ordering,
            propagate_trace: config.outbox.propagate_trace,
            tenant_aware: config.outbox.tenant_aware,
            key_order: config.relay.key_order,
            pass_statement_timeout: config.relay.pass_statement_timeout,
            pass_deadline: config.relay.pass_deadline,
            prepared_statements: config.relay.prepared_statements,
            pauses: None,
        }
    }
}
