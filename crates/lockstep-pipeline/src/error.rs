//! The error type of pipeline parsing, with an optional source location.

use std::fmt;

/// A 1-based line and column in the pipeline text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Location {
    /// The line, counting from 1.
    pub line: usize,
    /// The byte column in the line, counting from 1.
    pub column: usize,
}

/// Why a pipeline file was rejected.
///
/// `location` is set when the problem can be pinned to a place in the text,
/// which is nearly always: YAML syntax, unknown keys and names, bad values,
/// references to buffers that do not exist, duplicates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineError {
    /// What is wrong with the file.
    pub message: String,
    /// Where in the text the problem is, when known.
    pub location: Option<Location>,
}

impl PipelineError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        PipelineError {
            message: message.into(),
            location: None,
        }
    }

    pub(crate) fn at(at: Location, message: String) -> Self {
        PipelineError {
            message,
            location: Some(at),
        }
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
