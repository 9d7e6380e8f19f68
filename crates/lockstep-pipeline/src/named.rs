//! Lookup of the enumerated names that pipeline files spell out (formats,
//! resource kinds, rules), shared by parsing and `FromStr`.

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
        let hint = match crate::read::suggestion(text, &names) {
            Some(close) => format!("; did you mean `{close}`?"),
            None => format!(" (expected one of {})", names.join(", ")),
        };
        format!("unknown {} `{text}`{hint}", T::WHAT)
    })
}
