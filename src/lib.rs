//! outboxctl: operate a transactional outbox on PostgreSQL and MongoDB.
//!
//! The library holds everything but the terminal: configuration, validated names, schema
//! planning and application, and (in `cli`) the command-line layer that `main.rs` calls.

pub mod cli;
pub mod config;
pub mod db;
pub mod dburl;
pub mod duration;
pub mod error;
pub mod exit_code;
pub mod failure_groups;
pub mod schema;
pub mod target;
pub mod top;

pub use error::Error;
pub mod hlc;
pub mod model;
pub mod partitions;
pub mod relay;
pub mod replay;
pub mod store;
pub mod vacuum;
