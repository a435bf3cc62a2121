//! How the command line spells the library's choices: clap's `ValueEnum` for the library enums
//! a flag takes, written here so that the library itself knows nothing of clap. Each value is
//! the enum's own name for itself (`as_str`, the same word the configuration file uses).

use clap::ValueEnum;
use clap::builder::PossibleValue;

use crate::dburl::Backend;
use crate::model::{KeyOrder, Storage};

impl ValueEnum for Storage {
    fn value_variants<'a>() -> &'a [Self] {
        &[Storage::Retain, Storage::Consume]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.as_str()))
    }
}

impl ValueEnum for KeyOrder {
    fn value_variants<'a>() -> &'a [Self] {
        &[KeyOrder::BestEffort, KeyOrder::Strict]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.as_str()))
    }
}

impl ValueEnum for Backend {
    fn value_variants<'a>() -> &'a [Self] {
        &[Backend::Postgres, Backend::Mongo]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flag's words are the configuration file's (serde's) words, so `--storage consume`
    /// and `storage: consume` name the same thing.
    #[test]
    fn each_value_is_spelled_as_the_configuration_spells_it() {
        fn same<T: ValueEnum + serde::Serialize>() {
            for v in T::value_variants() {
                let flag = v.to_possible_value().unwrap().get_name().to_owned();
                let file = serde_json::to_value(v).unwrap();
                assert_eq!(file.as_str(), Some(flag.as_str()));
                assert!(T::from_str(&flag, false).is_ok(), "{flag}");
            }
        }
        same::<Storage>();
        same::<KeyOrder>();
        same::<Backend>();
    }
}
