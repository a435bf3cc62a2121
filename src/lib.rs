//! outboxctl: operate a transactional outbox on PostgreSQL and MongoDB.
//!
//! The library holds everything but the terminal: configuration, validated names, schema
//! planning and application, and (in `cli`) the command-line layer that `main.rs` calls.

pub mod cli;
pub mod config;
pub mod db;
pub mod dburl;
pub mod destination;
pub mod desturl;
pub mod duration;
pub mod error;
pub mod exit_code;
pub mod fleet;
pub mod hlc;
pub mod interrupt;
pub mod model;
pub mod ops;
pub mod relay;
pub mod replay;
pub mod schema;
pub mod store;
pub mod target;
pub mod telemetry;
pub mod text;
pub mod vacuum;
pub mod wake;

pub use error::Error;
