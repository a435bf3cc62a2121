//! Operator logic the commands call, one library call per command: doctor's checks, staging events, failure
//! groups and their selection, the HLC checkpoint, inspection, migrations, the delivery log's partitions, replay's source,
//! requeue and discard, the storage move, top's snapshot. No terminal, no tables, no clap: the
//! command line renders what these return.

pub mod browse;
pub mod doctor;
pub mod emit;
pub mod failure_groups;
pub mod fleet;
pub mod hlc;
pub mod inspect;
pub mod migrate;
pub mod partitions;
pub mod replay;
pub mod requeue;
pub mod storage;
pub mod top;
