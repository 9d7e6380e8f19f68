//! Lookup of the enumerated names that pipeline files spell out (formats,
//! resource kinds, rules), shared by parsing and `FromStr`.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, Visitor};

/// A closed set of values, each with the name used in pipeline files.
pub(crate) trait Named: Copy + 'static {
    /// What the values are called in messages ("format", "kind").
    const WHAT: &'static str;
    const ALL: &'static [Self];
    /// Alternative spellings accepted on input.
    const ALIASES: &'static [(&'static str, Self)] = &[];

    fn name(self) -> &'static str;
}

/// Finds the value spelled `text`, or explains which spellings exist.
pub(crate) fn lookup<T: Named>(text: &str) -> Result<T, String> {
    let exact = T::ALL.iter().copied().find(|v| v.name() == text);
    let alias = || T::ALIASES.iter().find(|(a, _)| *a == text).map(|&(_, v)| v);
    exact.or_else(alias).ok_or_else(|| {
        let names: Vec<&str> = T::ALL.iter().map(|v| v.name()).collect();
        format!(
            "unknown {} `{text}` (expected one of {})",
            T::WHAT,
            names.join(", ")
        )
    })
}

/// Deserializes a [`Named`] value from its name, reporting unknown names at
/// the scalar's location.
pub(crate) struct ByName<T>(pub T);

impl<'de, T: Named> Deserialize<'de> for ByName<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(NameVisitor(PhantomData))
    }
}

struct NameVisitor<T>(PhantomData<T>);

impl<T: Named> Visitor<'_> for NameVisitor<T> {
    type Value = ByName<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a {} name", T::WHAT)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        lookup(text).map(ByName).map_err(E::custom)
    }
}
