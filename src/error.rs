//! The library's top-level error: each variant is one documented exit code, so the CLI can
//! map any failure to the code scripts expect. Module errors convert into it.

use thiserror::Error;

use crate::exit_code::{self, ExitStatus};

#[derive(Debug, Error)]
pub enum Error {
    /// Bad configuration or usage, found before any I/O.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// The server could not be reached or refused the credentials.
    #[error("cannot connect to {target}: {reason}")]
    Connect { target: String, reason: String },
    /// A lock stayed busy past the wait allowed, or retries ran out.
    #[error("{0}")]
    LockBusy(String),
    /// A destructive step was refused (declined, no terminal, or a safety check failed).
    #[error("{0}")]
    Refused(String),
    /// A check found a problem; the report has already been printed.
    #[error("{0}")]
    CheckFailed(String),
    /// Anything else at run time.
    #[error("{0}")]
    Runtime(String),
}

impl ExitStatus for Error {
    fn exit_code(&self) -> u8 {
        match self {
            Error::Config(_) | Error::Runtime(_) => exit_code::ERROR,
            Error::Connect { .. } => exit_code::CONNECT,
            Error::LockBusy(_) => exit_code::LOCK_BUSY,
            Error::Refused(_) => exit_code::REFUSED,
            Error::CheckFailed(_) => exit_code::CHECK_FAILED,
        }
    }
}
