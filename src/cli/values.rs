//! clap's `ValueEnum` for the library enums a flag takes (the library knows nothing of clap), each
//! value spelled as the enum's `as_str`, the configuration file's word.

use clap::ValueEnum;
use clap::builder::PossibleValue;

use crate::dburl::Backend;
use crate::model::{KeyOrder, Storage};

/// `ValueEnum` for a library enum with these variants, each spelled by its `as_str`.
macro_rules! spelled_by_as_str {
    ($($enum:ident: $($variant:ident),+;)+) => {$(
        impl ValueEnum for $enum {
            fn value_variants<'a>() -> &'a [Self] {
                &[$($enum::$variant),+]
            }

            fn to_possible_value(&self) -> Option<PossibleValue> {
                Some(PossibleValue::new(self.as_str()))
            }
        }
    )+};
}

spelled_by_as_str! {
    Storage: Retain, Consume;
    KeyOrder: BestEffort, Strict;
    Backend: Postgres, Mongo;
}
