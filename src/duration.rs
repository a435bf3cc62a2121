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
}

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
        Ok(Dur(d))
    }
}

impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", humantime::format_duration(self.0))
    }
}

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Dur::parse(&text).map_err(serde::de::Error::custom)
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

/// An age or a wait for people, in whole seconds, `1h 2m 3s` style (a negative one reads `0s`).
pub fn age(d: chrono::Duration) -> String {
    let secs = d.num_seconds().max(0) as u64;
    humantime::format_duration(Duration::from_secs(secs)).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_in_whole_seconds() {
        assert_eq!(age(chrono::Duration::milliseconds(61_500)), "1m 1s");
        assert_eq!(age(chrono::Duration::seconds(-5)), "0s");
    }
}
