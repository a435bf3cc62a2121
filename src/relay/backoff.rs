//! The relay's timing rules, pure: per-row retry delays, route backoff after failed passes,
//! the loop's jittered interval. Randomness comes in as a number in `[0, 1]`.

use std::time::{Duration, Instant};

/// What happens to a row whose publish failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryDecision {
    /// Retry later with this attempt count stored.
    Retry { attempts: i32 },
    /// Park as `failed` (its stored attempts stay as they are).
    Fail,
}

/// After a failed publish of a row that had `attempts` attempts: retry or park.
pub fn decide(attempts: i32, max_attempts: u32) -> RetryDecision {
    let next = attempts.saturating_add(1);
    if i64::from(next) >= i64::from(max_attempts) {
        RetryDecision::Fail
    } else {
        RetryDecision::Retry { attempts: next }
    }
}

/// `raw = min(max_backoff, base × 2^(attempts-1))`, delay uniform in `[raw/2, raw]`;
/// `u` in `[0, 1]` picks the point.
pub fn retry_delay(attempts: i32, base: Duration, max_backoff: Duration, u: f64) -> Duration {
    let exp = attempts.saturating_sub(1).clamp(0, 62) as u32;
    let raw = base
        .checked_mul(1u32.checked_shl(exp.min(31)).unwrap_or(u32::MAX))
        .unwrap_or(max_backoff)
        .min(max_backoff);
    raw.mul_f64(0.5 + 0.5 * u.clamp(0.0, 1.0))
}

/// After `failures` consecutive failed passes of a route: how long to skip it.
/// `min(max(interval, retry_max_backoff), interval × 2^(failures-1))`.
pub fn route_backoff(failures: u32, interval: Duration, retry_max_backoff: Duration) -> Duration {
    let cap = interval.max(retry_max_backoff);
    let factor = 1u32
        .checked_shl(failures.saturating_sub(1).min(31))
        .unwrap_or(u32::MAX);
    interval.checked_mul(factor).unwrap_or(cap).min(cap)
}

/// The loop's sleep: `interval × (1 ± jitter)`, `u` in `[0, 1]` (0.5 = no change).
pub fn jittered(interval: Duration, jitter: f64, u: f64) -> Duration {
    interval.mul_f64((1.0 + jitter * (2.0 * u.clamp(0.0, 1.0) - 1.0)).max(0.0))
}

/// A destination back from being down: when, and the wait it had by then.
#[derive(Debug, Clone, Copy)]
pub struct Back {
    pub at: Instant,
    pub wait: Duration,
}

/// How long a destination found down after a pass waits for its probe: `interval`, or, when it
/// came back lately (within twice the wait it had, or `interval`), twice that wait, up to
/// `cap`. A destination that answers its probe and refuses every publish as unavailable (an
/// HTTP endpoint answering `HEAD` with 200 and each `POST` with 503) was found back and down
/// again ten times a second, a warning and a line each, for as long as it lasted.
pub fn down_wait(back: Option<Back>, now: Instant, interval: Duration, cap: Duration) -> Duration {
    match back {
        Some(b) if now.duration_since(b.at) < b.wait.saturating_mul(2).max(interval) => {
            b.wait.saturating_mul(2).min(cap).max(interval)
        }
        _ => interval,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    #[test]
    fn rows_fail_when_the_next_attempt_reaches_the_maximum() {
        assert_eq!(decide(0, 5), RetryDecision::Retry { attempts: 1 });
        assert_eq!(decide(3, 5), RetryDecision::Retry { attempts: 4 });
        assert_eq!(
            decide(4, 5),
            RetryDecision::Fail,
            "stored attempts stay max_attempts - 1"
        );
        assert_eq!(decide(0, 1), RetryDecision::Fail);
    }

    #[test]
    fn retry_delay_doubles_within_its_bounds() {
        let cap = Duration::from_secs(300);
        assert_eq!(retry_delay(1, S, cap, 1.0), S);
        assert_eq!(retry_delay(1, S, cap, 0.0), S / 2);
        assert_eq!(retry_delay(3, S, cap, 1.0), 4 * S);
        assert_eq!(retry_delay(3, S, cap, 0.0), 2 * S);
        assert_eq!(retry_delay(20, S, cap, 1.0), cap, "capped");
        assert_eq!(retry_delay(1000, S, cap, 0.0), cap / 2);
        for u in [0.0, 0.3, 0.7, 1.0] {
            let d = retry_delay(2, S, cap, u);
            assert!(d >= S && d <= 2 * S, "{d:?}");
        }
    }

    #[test]
    fn route_backoff_doubles_up_to_the_larger_cap() {
        let max = Duration::from_secs(300);
        assert_eq!(route_backoff(1, S, max), S);
        assert_eq!(route_backoff(2, S, max), 2 * S);
        assert_eq!(route_backoff(4, S, max), 8 * S);
        assert_eq!(route_backoff(40, S, max), max);
        // interval above retry_max_backoff: the interval is the cap
        assert_eq!(route_backoff(3, 10 * S, 5 * S), 10 * S);
    }

    #[test]
    fn jitter_stays_in_range() {
        let i = Duration::from_secs(10);
        assert_eq!(jittered(i, 0.2, 0.5), i);
        assert_eq!(jittered(i, 0.2, 0.0), Duration::from_secs(8));
        assert_eq!(jittered(i, 0.2, 1.0), Duration::from_secs(12));
    }
}
