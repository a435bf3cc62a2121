//! The relay: claim rows, publish them, mark them, as `semantics.md` specifies, written once
//! over [`crate::store::RelayStore`] and [`crate::destination::Publisher`].

pub mod assemble;
pub mod backoff;
pub mod dead_letter;
mod deadline;
pub mod endpoint;
pub mod engine;
pub mod fleet;
pub mod heartbeat;
pub mod lag;
pub mod lanes;
pub mod metrics;
mod route_stats;
pub mod serve;
pub mod shutdown;

pub use engine::{PassOutcome, PassReport, RelaySettings};
pub use lanes::{Lane, Relay, RelayEvents, RouteStats, Shutdown};
