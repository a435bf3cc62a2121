//! Delivery lag: from a row's `created_at` (the writer's clock, as stored) to the
//! destination's acknowledgement. Kept two ways, both of fixed size whatever the traffic:
//! Prometheus buckets up to hours, and a fine log-scale histogram the summaries read
//! quantiles from (within about 3 %). Pure.

/// Upper bounds of `outboxctl_delivery_lag_seconds`, in seconds: milliseconds to hours.
pub const LAG_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
    300.0, 900.0, 1800.0, 3600.0, 7200.0, 21600.0,
];

/// Sub-buckets per doubling: each bucket spans a factor of 2^(1/16), about 4.4 %.
const PER_OCTAVE: f64 = 16.0;
/// The smallest lag told apart (10 µs); less counts in the first bucket.
const FLOOR_SECONDS: f64 = 1e-5;
/// Buckets up to 2^40 × 10 µs (about 127 days).
const SLOTS: usize = 40 * PER_OCTAVE as usize + 1;

/// A log-scale histogram of lags: constant memory, quantiles within half a bucket.
#[derive(Debug, Clone, PartialEq)]
pub struct LagHistogram {
    counts: Vec<u64>,
    total: u64,
    max: f64,
}

impl Default for LagHistogram {
    fn default() -> Self {
        Self {
            counts: vec![0; SLOTS],
            total: 0,
            max: 0.0,
        }
    }
}

impl LagHistogram {
    /// Counts one lag in seconds (a negative lag, a writer clock ahead of ours, counts as 0).
    pub fn record(&mut self, seconds: f64) {
        let s = if seconds.is_finite() {
            seconds.max(0.0)
        } else {
            0.0
        };
        let slot = if s <= FLOOR_SECONDS {
            0
        } else {
            ((s / FLOOR_SECONDS).log2() * PER_OCTAVE).ceil() as usize
        };
        self.counts[slot.min(SLOTS - 1)] += 1;
        self.total += 1;
        self.max = self.max.max(s);
    }

    pub fn merge(&mut self, other: &LagHistogram) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.total += other.total;
        self.max = self.max.max(other.max);
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    pub fn max(&self) -> Option<f64> {
        (self.total > 0).then_some(self.max)
    }

    /// The lag below which a fraction `q` (0..=1) of the samples fall, in seconds: the
    /// geometric middle of the bucket holding it (never above the maximum seen; 0 for lags
    /// under 10 µs).
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.total == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (slot, &n) in self.counts.iter().enumerate() {
            seen += n;
            if seen >= rank {
                if slot == 0 {
                    return Some(0.0);
                }
                let upper = FLOOR_SECONDS * (slot as f64 / PER_OCTAVE).exp2();
                let lower = FLOOR_SECONDS * ((slot as f64 - 1.0) / PER_OCTAVE).exp2();
                return Some((upper * lower).sqrt().min(self.max));
            }
        }
        Some(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_within_a_bucket_of_the_truth() {
        let mut h = LagHistogram::default();
        // 1 ms .. 1000 ms, one each
        for ms in 1..=1000 {
            h.record(f64::from(ms) / 1000.0);
        }
        for (q, truth) in [(0.5, 0.5), (0.99, 0.99), (0.01, 0.01)] {
            let got = h.quantile(q).unwrap();
            assert!((got - truth).abs() / truth < 0.03, "q{q}: {got} vs {truth}");
        }
        assert_eq!(h.max(), Some(1.0));
        assert_eq!(h.count(), 1000);
        assert!(h.quantile(1.0).unwrap() <= 1.0);
    }

    #[test]
    fn odd_inputs_stay_bounded() {
        let mut h = LagHistogram::default();
        assert_eq!(h.quantile(0.5), None);
        h.record(-3.0);
        h.record(f64::NAN);
        h.record(1e12);
        assert_eq!(h.count(), 3);
        assert_eq!(h.quantile(0.1), Some(0.0));
        let mut other = LagHistogram::default();
        other.record(0.2);
        h.merge(&other);
        assert_eq!(h.count(), 4);
    }
}
