//! The documented exit codes (an API: scripts and cron depend on them). Errors map to them in
//! one place ([`crate::error::exit_code_of`]).

use std::process::ExitCode;

/// Success.
pub const OK: u8 = 0;
/// A check found a problem (`migrate --check`, `partitions check`, `doctor`, failed rows with `--once`).
pub const CHECK_FAILED: u8 = 1;
/// Usage, configuration, or a database or broker error at run time.
pub const ERROR: u8 = 2;
/// Cannot connect or authenticate.
pub const CONNECT: u8 = 3;
/// A lock was busy, or the command gave up after its retries.
pub const LOCK_BUSY: u8 = 4;
/// Refused: confirmation declined, no terminal and no `--yes`, or a safety precondition not met.
pub const REFUSED: u8 = 5;
/// A one-shot command interrupted by Ctrl-C.
pub const INTERRUPTED: u8 = 130;

/// An error that knows which exit code it means. Library errors implement it; the CLI walks
/// the error chain and takes the first code it finds (default [`ERROR`]):
/// [`crate::error::exit_code_of`].
pub trait ExitStatus {
    fn exit_code(&self) -> u8;
}

pub fn to_process(code: u8) -> ExitCode {
    ExitCode::from(code)
}
