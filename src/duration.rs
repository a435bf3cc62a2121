//! A human duration, as flags and the config file write it.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Deserializer};

/// A human duration (`500ms`, `5s`, `5m`, `1h`); always positive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Dur(pub Duration);

/// Why a duration was refused.
#[derive(Debug, thiserror::Error)]
pub enum DurationError {
    #[error("{text:?} is not a duration ({source}); write e.g. 500ms, 5s or 5m")]
    NotADuration {
        text: String,
        #[source]
        source: humantime::DurationError,
    },
    #[error("{0:?} must be longer than zero")]
    Zero(String),
    #[error("{0:?} is longer than outboxctl takes (100 years at most)")]
    TooLong(String),
    #[error("{0:?} is longer than PostgreSQL's longest timeout, {longest}", longest = Dur(PG_LONGEST))]
    TooLongForPostgres(String),
}

/// PostgreSQL's longest timeout (`statement_timeout`, `lock_timeout`): `i32::MAX` milliseconds,
/// 24.8 days.
pub const PG_LONGEST: Duration = Duration::from_millis(i32::MAX as u64);

/// A flag that becomes a PostgreSQL timeout (`--lock-timeout`, `--check-timeout`): a duration
/// of at most [`PG_LONGEST`], refused at parse, before any I/O (the server refused it later,
/// after a dry run had passed).
pub fn pg_timeout(text: &str) -> Result<Dur, DurationError> {
    match Dur::parse(text)? {
        d if d.0 > PG_LONGEST => Err(DurationError::TooLongForPostgres(text.to_owned())),
        d => Ok(d),
    }
}

/// The longest duration taken: far beyond any timeout or age that means something, and short
/// enough that no time computed from one (now minus an age, five times a timeout) overflows.
pub const LONGEST: Duration = Duration::from_secs(100 * 31_557_600); // 100 of humantime's years

impl Dur {
    pub fn parse(text: &str) -> Result<Self, DurationError> {
        let d = humantime::parse_duration(text.trim()).map_err(|source| {
            DurationError::NotADuration {
                text: text.to_owned(),
                source,
            }
        })?;
        if d.is_zero() {
            return Err(DurationError::Zero(text.to_owned()));
        }
        if d > LONGEST {
            return Err(DurationError::TooLong(text.to_owned()));
        }
        Ok(Dur(d))
    }
}

impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", humantime::format_duration(self.0))
    }
}

/// Parses inside the string's own visit, so that a YAML error names the key and its line (after
/// the scalar was read, it would name the enclosing section and its first line).
impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Text;
        impl serde::de::Visitor<'_> for Text {
            type Value = Dur;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a duration such as 500ms, 5s or 5m")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Dur, E> {
                Dur::parse(text).map_err(E::custom)
            }
        }
        d.deserialize_str(Text)
    }
}

impl serde::Serialize for Dur {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl std::str::FromStr for Dur {
    type Err = DurationError;
    fn from_str(s: &str) -> Result<Self, DurationError> {
        Dur::parse(s)
    }
}

/// An age or a wait for people, in its two largest units: `850ms`, `12s`, `4m 5s`, `3h 12m`,
/// `2d 4h` (a negative one reads `0s`). The one way outboxctl shows an age.
pub fn age(d: chrono::Duration) -> String {
    let ms = d.num_milliseconds().max(0) as u64;
    let s = ms / 1000;
    let two = |a: u64, a_unit: &str, b: u64, b_unit: &str| match b {
        0 => format!("{a}{a_unit}"),
        b => format!("{a}{a_unit} {b}{b_unit}"),
    };
    match s {
        0 if ms > 0 => format!("{ms}ms"),
        0..60 => format!("{s}s"),
        60..3600 => two(s / 60, "m", s % 60, "s"),
        3600..86400 => two(s / 3600, "h", s % 3600 / 60, "m"),
        _ => two(s / 86400, "d", s % 86400 / 3600, "h"),
    }
}

/// [`age`] of a number of seconds.
pub fn age_of_seconds(seconds: f64) -> String {
    age(chrono::Duration::milliseconds((seconds * 1000.0) as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_positive_and_at_most_a_century() {
        assert!(Dur::parse("0s").is_err());
        assert_eq!(Dur::parse("100y").unwrap().0, LONGEST);
        let e = Dur::parse("1000000y").unwrap_err().to_string();
        assert!(e.contains("100 years at most"), "{e}");
        assert!(Dur::parse("4000000000000000000s").is_err());
    }

    #[test]
    fn ages_read_in_their_two_largest_units() {
        let ms = chrono::Duration::milliseconds;
        assert_eq!(age(ms(61_500)), "1m 1s");
        assert_eq!(age(ms(-5_000)), "0s");
        assert_eq!(age(ms(0)), "0s");
        assert_eq!(age_of_seconds(0.85), "850ms");
        assert_eq!(age_of_seconds(12.9), "12s");
        assert_eq!(age_of_seconds(245.0), "4m 5s");
        assert_eq!(age_of_seconds(3600.0), "1h");
        assert_eq!(age_of_seconds(11_525.0), "3h 12m");
        assert_eq!(age_of_seconds(187_200.0), "2d 4h");
    }
}
