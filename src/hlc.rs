//! Hybrid Logical Clock, as forze implements it: a timestamp `(physical_ms, logical)` packed
//! into a BIGINT as `physical_ms << 16 | logical`, rendered in headers as `%015d.%05d`.
//! Pure: the wall clock is passed in.

use std::fmt;

use thiserror::Error;

/// A remote stamp further ahead of the wall clock than this is rejected.
pub const MAX_DRIFT_MS: u64 = 5 * 60 * 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct HlcTimestamp {
    pub physical_ms: u64,
    pub logical: u16,
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum HlcError {
    #[error("hlc value {0} is negative")]
    Negative(i64),
    #[error("hlc stamp {remote_ms} ms is more than 5 minutes ahead of the wall clock {wall_ms} ms")]
    TooFarAhead { remote_ms: u64, wall_ms: u64 },
    #[error("hlc header {0:?} is not of the form PHYSICAL.LOGICAL")]
    Parse(String),
    /// The clock stands at the top of what a BIGINT packs: a checkpoint mark set that high.
    #[error(
        "no hlc stamp can follow {0}: it is the last a BIGINT packs (physical {MAX_PHYSICAL_MS} ms); lower the checkpoint's mark (outboxctl hlc show names it), then stage again"
    )]
    Exhausted(HlcTimestamp),
}

/// The largest physical part a stamp packs into a positive BIGINT (`2^47 - 1` ms, the year
/// 6429).
pub const MAX_PHYSICAL_MS: u64 = (1 << 47) - 1;

impl HlcTimestamp {
    pub fn new(physical_ms: u64, logical: u16) -> Self {
        Self {
            physical_ms,
            logical,
        }
    }

    pub fn pack(self) -> i64 {
        ((self.physical_ms << 16) | u64::from(self.logical)) as i64
    }

    pub fn unpack(packed: i64) -> Result<Self, HlcError> {
        if packed < 0 {
            return Err(HlcError::Negative(packed));
        }
        let p = packed as u64;
        Ok(Self {
            physical_ms: p >> 16,
            logical: (p & 0xFFFF) as u16,
        })
    }

    /// The header form, `%015d.%05d`.
    pub fn encode(self) -> String {
        format!("{:015}.{:05}", self.physical_ms, self.logical)
    }

    /// Parses leniently, as forze's consumers do (no padding required).
    pub fn parse(text: &str) -> Result<Self, HlcError> {
        let err = || HlcError::Parse(text.to_owned());
        let (p, l) = text.split_once('.').ok_or_else(err)?;
        if l.is_empty() {
            return Err(err());
        }
        Ok(Self {
            physical_ms: p.parse().map_err(|_| err())?,
            logical: l.parse().map_err(|_| err())?,
        })
    }

    /// The next stamp; none past [`MAX_PHYSICAL_MS`] (it would pack negative).
    fn successor(self) -> Result<Self, HlcError> {
        match self.logical.checked_add(1) {
            Some(l) => Ok(Self::new(self.physical_ms, l)),
            None if self.physical_ms < MAX_PHYSICAL_MS => Ok(Self::new(self.physical_ms + 1, 0)),
            None => Err(HlcError::Exhausted(self)),
        }
    }
}

impl fmt::Display for HlcTimestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.encode())
    }
}

/// The clock: the last timestamp issued or observed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hlc {
    last: HlcTimestamp,
}

impl Hlc {
    pub fn last(&self) -> HlcTimestamp {
        self.last
    }

    /// A new stamp, strictly above every stamp issued or observed; an error when none packs
    /// (the clock resumed from a mark at the top of the range).
    pub fn now(&mut self, wall_ms: u64) -> Result<HlcTimestamp, HlcError> {
        self.last = if wall_ms > self.last.physical_ms && wall_ms <= MAX_PHYSICAL_MS {
            HlcTimestamp::new(wall_ms, 0)
        } else {
            self.last.successor()?
        };
        Ok(self.last)
    }

    /// Merges a remote stamp (e.g. a consumed event's `forze_hlc`).
    pub fn update(&mut self, remote: HlcTimestamp, wall_ms: u64) -> Result<HlcTimestamp, HlcError> {
        if remote.physical_ms > wall_ms + MAX_DRIFT_MS {
            return Err(HlcError::TooFarAhead {
                remote_ms: remote.physical_ms,
                wall_ms,
            });
        }
        let last = self.last;
        let physical = last.physical_ms.max(remote.physical_ms).max(wall_ms);
        let next = if physical == last.physical_ms && physical == remote.physical_ms {
            HlcTimestamp::new(physical, last.logical.max(remote.logical)).successor()?
        } else if physical == last.physical_ms {
            last.successor()?
        } else if physical == remote.physical_ms {
            remote.successor()?
        } else {
            HlcTimestamp::new(physical, 0)
        };
        self.last = next;
        Ok(next)
    }

    /// Resumes from a persisted high-water mark: never below it.
    pub fn resume(&mut self, mark: HlcTimestamp) {
        self.last = self.last.max(mark);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock resumed from the last mark a BIGINT packs issues nothing: its successor packed
    /// negative, a stamp that sorted before every other row. The one before it still follows.
    #[test]
    fn no_stamp_follows_the_top_of_the_range() {
        let top = HlcTimestamp::unpack(i64::MAX).unwrap();
        assert_eq!(top, HlcTimestamp::new(MAX_PHYSICAL_MS, u16::MAX));
        let mut c = Hlc::default();
        c.resume(HlcTimestamp::new(MAX_PHYSICAL_MS, u16::MAX - 1));
        assert_eq!(c.now(1_000).unwrap().pack(), i64::MAX);
        assert_eq!(c.now(1_000), Err(HlcError::Exhausted(top)));
        assert_eq!(
            c.update(top, MAX_PHYSICAL_MS),
            Err(HlcError::Exhausted(top))
        );
        assert_eq!(c.last(), top, "the clock stays where it was");
    }

    #[test]
    fn worked_example_packs_and_encodes() {
        let t = HlcTimestamp::new(1_764_583_200_000, 3);
        assert_eq!(t.pack(), 115_643_724_595_200_003);
        assert_eq!(t.pack(), 0x019A_D95A_D500_0003);
        assert_eq!(t.encode(), "001764583200000.00003");
        assert_eq!(HlcTimestamp::unpack(115_643_724_595_200_003).unwrap(), t);
        assert_eq!(HlcTimestamp::parse("1764583200000.3").unwrap(), t);
        assert!(HlcTimestamp::parse("1764583200000.").is_err());
        assert!(HlcTimestamp::unpack(-1).is_err());
    }

    #[test]
    fn now_is_strictly_monotonic_and_carries() {
        let mut c = Hlc::default();
        assert_eq!(c.now(100).unwrap(), HlcTimestamp::new(100, 0));
        assert_eq!(c.now(100).unwrap(), HlcTimestamp::new(100, 1));
        assert_eq!(
            c.now(90).unwrap(),
            HlcTimestamp::new(100, 2),
            "wall clock went back"
        );
        c.resume(HlcTimestamp::new(100, 65535));
        assert_eq!(
            c.now(100).unwrap(),
            HlcTimestamp::new(101, 0),
            "logical carries into physical"
        );
        assert_eq!(c.now(200).unwrap(), HlcTimestamp::new(200, 0));
    }

    #[test]
    fn update_follows_the_rules() {
        let mut c = Hlc::default();
        c.now(100).unwrap();
        // remote ahead of both: remote.l + 1
        assert_eq!(
            c.update(HlcTimestamp::new(150, 7), 120).unwrap(),
            HlcTimestamp::new(150, 8)
        );
        // equal physical on both sides: max(l) + 1
        assert_eq!(
            c.update(HlcTimestamp::new(150, 2), 120).unwrap(),
            HlcTimestamp::new(150, 9)
        );
        // only last's: last.l + 1
        assert_eq!(
            c.update(HlcTimestamp::new(10, 50), 120).unwrap(),
            HlcTimestamp::new(150, 10)
        );
        // wall ahead of both: (wall, 0)
        assert_eq!(
            c.update(HlcTimestamp::new(10, 50), 500).unwrap(),
            HlcTimestamp::new(500, 0)
        );
        // too far ahead: rejected, clock unchanged
        assert!(
            c.update(HlcTimestamp::new(500 + MAX_DRIFT_MS + 1, 0), 500)
                .is_err()
        );
        assert_eq!(c.last(), HlcTimestamp::new(500, 0));
    }

    #[test]
    fn resume_never_goes_back() {
        let mut c = Hlc::default();
        c.now(1000).unwrap();
        c.resume(HlcTimestamp::new(10, 0));
        assert_eq!(c.last(), HlcTimestamp::new(1000, 0));
        c.resume(HlcTimestamp::new(2000, 5));
        assert_eq!(c.now(1500).unwrap(), HlcTimestamp::new(2000, 6));
    }
}
