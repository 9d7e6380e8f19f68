//! Typed reading of [`yaml`](crate::yaml) nodes: mappings whose keys are
//! checked against the keys a section knows (a misspelt key is an error
//! with a suggestion, as LLVM's YAML reader rejects unknown keys), and
//! scalars read as strings, numbers and names. Every error carries the
//! node's location and its path in the document (`Buffers[0].Data[2]`).

use crate::error::{Location, PipelineError};
use crate::named::{self, Named};
use crate::text::parse_int;
use crate::yaml::{Node, Value};

/// The path of a node, for messages: `Buffers[0].Format`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Path(String);

impl Path {
    pub fn key(&self, key: &str) -> Path {
        if self.0.is_empty() {
            Path(key.to_owned())
        } else {
            Path(format!("{}.{key}", self.0))
        }
    }

    pub fn index(&self, index: usize) -> Path {
        Path(format!("{}[{index}]", self.0))
    }

    /// An error at `at`, prefixed with the path.
    pub fn error(&self, at: Location, message: impl std::fmt::Display) -> PipelineError {
        if self.0.is_empty() {
            PipelineError::at(at, message.to_string())
        } else {
            PipelineError::at(at, format!("{}: {message}", self.0))
        }
    }
}

/// A mapping whose keys have been checked.
pub(crate) struct Fields<'n, 'a> {
    pub at: Location,
    pub path: Path,
    entries: &'n [(Node<'a>, Node<'a>)],
}

impl<'n, 'a> Fields<'n, 'a> {
    /// Reads `node` as a mapping that may hold `known` keys (an empty value
    /// is an empty mapping). An unknown key is an error at the key, naming
    /// the closest known one; so is a key given twice.
    pub fn new(node: &'n Node<'a>, path: Path, known: &[&str]) -> Result<Self, PipelineError> {
        let entries: &[_] = match &node.value {
            Value::Map(entries) => entries,
            Value::Empty => &[],
            other => {
                return Err(path.error(
                    node.at,
                    format!("expected a mapping, found {}", other.kind()),
                ));
            }
        };
        for (index, (key, _)) in entries.iter().enumerate() {
            let Value::Scalar(name) = &key.value else {
                return Err(path.error(key.at, "a mapping key must be a scalar"));
            };
            if !known.contains(&name.as_ref()) {
                return Err(path.error(key.at, unknown_key(name, known)));
            }
            let earlier = entries[..index]
                .iter()
                .any(|(k, _)| matches!(&k.value, Value::Scalar(n) if n == name));
            if earlier {
                return Err(path.error(key.at, format!("duplicate key `{name}`")));
            }
        }
        Ok(Fields {
            at: node.at,
            path,
            entries,
        })
    }

    /// The value of `key`, when given (an empty value counts as absent).
    pub fn get(&self, key: &str) -> Option<&'n Node<'a>> {
        self.entries
            .iter()
            .find(|(k, _)| matches!(&k.value, Value::Scalar(n) if n == key))
            .map(|(_, v)| v)
            .filter(|v| !matches!(v.value, Value::Empty))
    }

    /// The value of `key`, or an error at the mapping.
    pub fn require(&self, key: &str) -> Result<&'n Node<'a>, PipelineError> {
        self.get(key)
            .ok_or_else(|| self.path.error(self.at, format!("missing key `{key}`")))
    }

    /// The value of `key` with the path that leads to it.
    pub fn get_with_path(&self, key: &str) -> Option<(&'n Node<'a>, Path)> {
        self.get(key).map(|node| (node, self.path.key(key)))
    }

    /// `key` read by `read`, when given.
    pub fn read<T>(
        &self,
        key: &str,
        read: impl FnOnce(&Node<'a>, &Path) -> Result<T, PipelineError>,
    ) -> Result<Option<T>, PipelineError> {
        self.get_with_path(key)
            .map(|(node, path)| read(node, &path))
            .transpose()
    }
}

/// "unknown key `Result`; did you mean `Results`?", or the list of keys.
fn unknown_key(name: &str, known: &[&str]) -> String {
    match suggestion(name, known) {
        Some(close) => format!("unknown key `{name}`; did you mean `{close}`?"),
        None => format!(
            "unknown key `{name}` (expected one of {})",
            known.join(", ")
        ),
    }
}

/// The known name closest to `name`, when it is close enough to be a
/// misspelling: a case-insensitive edit distance of at most a third of the
/// name's length (so short names are only matched up to case).
pub fn suggestion<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    let lower = name.to_ascii_lowercase();
    let limit = name.chars().count() / 3;
    known
        .iter()
        .map(|k| (edit_distance(&lower, &k.to_ascii_lowercase()), *k))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k)
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

/// The items of a sequence (block or flow), each with its path.
pub(crate) fn items<'a>(
    node: &Node<'a>,
    path: &Path,
) -> Result<Vec<(Node<'a>, Path)>, PipelineError> {
    match &node.value {
        Value::Seq(items) => Ok(items
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), path.index(i)))
            .collect()),
        Value::Flow(flow) => flow
            .items()
            .enumerate()
            .map(|(i, n)| n.map(|n| (n, path.index(i))))
            .collect(),
        Value::Empty => Ok(Vec::new()),
        other => Err(path.error(
            node.at,
            format!("expected a sequence, found {}", other.kind()),
        )),
    }
}

/// A scalar's text.
pub(crate) fn text<'n>(node: &'n Node<'_>, path: &Path) -> Result<&'n str, PipelineError> {
    match &node.value {
        Value::Scalar(text) => Ok(text),
        other => Err(path.error(
            node.at,
            format!("expected a scalar, found {}", other.kind()),
        )),
    }
}

pub(crate) fn string(node: &Node<'_>, path: &Path) -> Result<String, PipelineError> {
    text(node, path).map(str::to_owned)
}

/// An integer within `low..=high`, spelled as LLVM's YAML reader takes it.
pub(crate) fn integer(
    node: &Node<'_>,
    path: &Path,
    low: i128,
    high: i128,
) -> Result<i128, PipelineError> {
    let text = text(node, path)?;
    let value = parse_int(text)
        .ok_or_else(|| path.error(node.at, format!("expected an integer, found `{text}`")))?;
    if !(low..=high).contains(&value) {
        return Err(path.error(node.at, format!("{text} is out of range ({low} to {high})")));
    }
    Ok(value)
}

pub(crate) fn uint32(node: &Node<'_>, path: &Path) -> Result<u32, PipelineError> {
    integer(node, path, 0, u32::MAX.into()).map(|v| v as u32)
}

pub(crate) fn uint64(node: &Node<'_>, path: &Path) -> Result<u64, PipelineError> {
    integer(node, path, 0, u64::MAX.into()).map(|v| v as u64)
}

/// `true` or `false`, as LLVM spells them.
pub(crate) fn boolean(node: &Node<'_>, path: &Path) -> Result<bool, PipelineError> {
    match text(node, path)? {
        "true" | "True" | "TRUE" => Ok(true),
        "false" | "False" | "FALSE" => Ok(false),
        other => Err(path.error(node.at, format!("expected true or false, found `{other}`"))),
    }
}

/// A float (`0.001`, `1e-3`, `.nan`, hex floats).
pub(crate) fn float(node: &Node<'_>, path: &Path) -> Result<f64, PipelineError> {
    let text = text(node, path)?;
    crate::text::parse_float::<f64>(text)
        .ok_or_else(|| path.error(node.at, format!("expected a number, found `{text}`")))
}

/// One of a closed set of names.
pub(crate) fn name<T: Named>(node: &Node<'_>, path: &Path) -> Result<T, PipelineError> {
    let text = text(node, path)?;
    named::lookup(text).map_err(|message| path.error(node.at, message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_for_misspelt_keys() {
        let known = ["Shaders", "Buffers", "Results", "DescriptorSets"];
        assert_eq!(suggestion("Result", &known), Some("Results"));
        assert_eq!(suggestion("buffers", &known), Some("Buffers"));
        assert_eq!(suggestion("DescriptorSet", &known), Some("DescriptorSets"));
        assert_eq!(suggestion("Shdrs", &known), None);
        assert_eq!(suggestion("Data", &known), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
