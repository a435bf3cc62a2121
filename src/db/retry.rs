//! Retrying a short-lock step while PostgreSQL answers `55P03` (lock not available): the
//! attempt runs again after a jittered, growing delay, up to a number of retries. Which
//! failure counts as a busy lock, how many attempts that allows and how long to wait between
//! them is decided here once; the caller words the outcome. No SQL of its own.

use std::time::Duration;

use rand::Rng;

use super::{pg_code, sqlstate};

/// Sleeps a jittered, growing delay before retry `attempt` (1-based).
pub async fn backoff(attempt: u32) {
    let base = Duration::from_millis(50).saturating_mul(1 << attempt.min(4));
    let jitter = rand::thread_rng().gen_range(0.5..1.5);
    tokio::time::sleep(base.mul_f64(jitter)).await;
}

/// Why [`while_lock_busy`] stopped without a result.
#[derive(Debug)]
pub enum LockRetryError<E = sqlx::Error> {
    /// The lock stayed busy through `attempts` attempts (the first and every retry).
    Busy { attempts: u32, source: E },
    /// The attempt failed for another reason (at attempt `attempts`); no retry.
    Failed { attempts: u32, source: E },
}

/// An error that may say a lock stayed busy: what [`while_lock_busy`] retries. The driver's
/// error, and outboxctl's own (whose database error carries the driver's).
pub trait MaybeLockBusy {
    fn is_lock_busy(&self) -> bool;
}

impl MaybeLockBusy for sqlx::Error {
    fn is_lock_busy(&self) -> bool {
        is_lock_busy(self)
    }
}

/// Runs `attempt` until it succeeds, fails with anything but a busy lock, or the lock stays
/// busy through `1 + retries` attempts, with [`backoff`] between them. Returns the value and
/// the number of attempts it took.
pub async fn while_lock_busy<T, E: MaybeLockBusy>(
    retries: u32,
    mut attempt: impl AsyncFnMut() -> Result<T, E>,
) -> Result<(T, u32), LockRetryError<E>> {
    let mut attempts = 0;
    loop {
        attempts += 1;
        match attempt().await {
            Ok(value) => return Ok((value, attempts)),
            Err(source) if source.is_lock_busy() => {
                if attempts > retries {
                    return Err(LockRetryError::Busy { attempts, source });
                }
                backoff(attempts).await;
            }
            Err(source) => return Err(LockRetryError::Failed { attempts, source }),
        }
    }
}

/// Whether a statement failed because its `lock_timeout` ran out.
pub fn is_lock_busy(e: &sqlx::Error) -> bool {
    pg_code(e).as_deref() == Some(sqlstate::LOCK_NOT_AVAILABLE)
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    /// A server error with a SQLSTATE, as the driver would hand it over.
    #[derive(Debug)]
    struct Coded(&'static str);

    impl std::fmt::Display for Coded {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "sqlstate {}", self.0)
        }
    }

    impl std::error::Error for Coded {}

    impl sqlx::error::DatabaseError for Coded {
        fn message(&self) -> &str {
            "stand-in"
        }
        fn code(&self) -> Option<Cow<'_, str>> {
            Some(Cow::Borrowed(self.0))
        }
        fn as_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
            self
        }
        fn as_error_mut(&mut self) -> &mut (dyn std::error::Error + Send + Sync + 'static) {
            self
        }
        fn into_error(self: Box<Self>) -> Box<dyn std::error::Error + Send + Sync + 'static> {
            self
        }
        fn kind(&self) -> sqlx::error::ErrorKind {
            sqlx::error::ErrorKind::Other
        }
    }

    fn coded(code: &'static str) -> sqlx::Error {
        sqlx::Error::Database(Box::new(Coded(code)))
    }

    #[tokio::test]
    async fn a_busy_lock_is_retried_then_given_up() {
        let mut calls = 0;
        let out: Result<((), u32), _> = while_lock_busy(1, async || {
            calls += 1;
            Err(coded(sqlstate::LOCK_NOT_AVAILABLE))
        })
        .await;
        assert!(matches!(out, Err(LockRetryError::Busy { attempts: 2, .. })));
        assert_eq!(calls, 2);
    }

    #[tokio::test]
    async fn a_lock_freed_in_time_succeeds_on_a_later_attempt() {
        let mut calls = 0;
        let out = while_lock_busy(3, async || {
            calls += 1;
            match calls {
                1 => Err(coded(sqlstate::LOCK_NOT_AVAILABLE)),
                _ => Ok("done"),
            }
        })
        .await;
        assert!(matches!(out, Ok(("done", 2))));
    }

    #[tokio::test]
    async fn another_failure_ends_the_attempts_at_once() {
        let mut calls = 0;
        let out: Result<((), u32), _> = while_lock_busy(5, async || {
            calls += 1;
            Err(coded(sqlstate::QUERY_CANCELED))
        })
        .await;
        assert!(matches!(
            out,
            Err(LockRetryError::Failed { attempts: 1, .. })
        ));
        assert_eq!(calls, 1);
    }
}
