//! End-to-end tests of outboxctl against real servers: PostgreSQL (own schema per test) and
//! a MongoDB replica set (own database per test). `scripts/test` starts them.

// The tests talk to PostgreSQL directly (never through a pooler): plain sqlx statements.
#![expect(
    clippy::disallowed_methods,
    reason = "talks to PostgreSQL directly (never through a pooler): plain sqlx statements"
)]

#[macro_use]
mod common;

mod brokers;
mod brokers_kafka;
mod contract;
mod database_outage;
mod dead_letters;
mod docs;
mod doctor_xmin;
mod ecosystem;
mod endpoint;
mod errors;
mod errors_input;
mod failures;
mod file_outages;
mod fleet;
mod floors;
mod help_text;
mod metrics;
mod migrate_mongo;
mod migrate_pg;
mod migrate_pg_waits;
mod mongo_relay;
mod ops_pg;
mod otel;
mod outages;
mod own_postgres;
mod partitions_pg;
mod pgbouncer;
mod queue_table;
mod relay_pg;
mod relay_processes;
mod replay;
mod restarts;
mod schema_print;
mod strict_soak;
mod top;
mod wake;
mod wire_order;
