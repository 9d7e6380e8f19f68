//! The error type of pipeline parsing, with an optional source location.

use std::fmt;

/// A 1-based line and column in the pipeline text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    pub line: usize,
    pub column: usize,
}

/// Why a pipeline file was rejected.
///
/// `location` is set when the problem can be pinned to a place in the text
/// (YAML syntax and type errors, unknown names, bad data values, bad group
/// counts, buffer-level problems); checks that relate several parts of the
/// file (unknown buffer names, duplicates) carry no location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineError {
    pub message: String,
    pub location: Option<Location>,
}

impl PipelineError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        PipelineError {
            message: message.into(),
            location: None,
        }
    }

    pub(crate) fn from_yaml(error: &serde_norway::Error) -> Self {
        let location = error.location().map(|l| Location {
            line: l.line(),
            column: l.column(),
        });
        let mut message = error.to_string();
        if let Some(l) = location {
            let suffix = format!(" at line {} column {}", l.line, l.column);
            message = message.replacen(&suffix, "", 1);
        }
        PipelineError { message, location }
    }
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.location {
            Some(l) => write!(f, "{}:{}: {}", l.line, l.column, self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for PipelineError {}
