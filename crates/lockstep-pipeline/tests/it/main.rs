//! Integration tests of pipeline parsing, buffer rendering and result checks.

mod check;
mod errors;
mod parse;
mod render;
mod textures;
mod upstream;

use lockstep_pipeline::{Pipeline, PipelineError, parse};

/// Removes the first line break and the indentation common to all
/// non-blank lines, so that YAML can be written indented in the tests.
pub fn dedent(text: &str) -> String {
    let text = text.strip_prefix('\n').unwrap_or(text);
    let indent = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    text.lines()
        .map(|l| l.get(indent..).unwrap_or("").trim_end())
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The header every test document starts with: five lines, so the
/// caller's text begins on line 6.
pub const HEADER: &str =
    "---\nShaders:\n  - Stage: Compute\n    Entry: main\n    DispatchSize: [1, 1, 1]\n";

/// A document made of [`HEADER`] and `body` (dedented).
pub fn document(body: &str) -> String {
    format!("{HEADER}{}", dedent(body))
}

/// Parses [`document`]`(body)`, failing the test on errors.
pub fn pipeline(body: &str) -> Pipeline {
    parse(&document(body)).unwrap_or_else(|e| panic!("{e}"))
}

/// Parses [`document`]`(body)`, failing the test unless it is rejected.
pub fn rejection(body: &str) -> PipelineError {
    match parse(&document(body)) {
        Ok(p) => panic!("accepted: {p:?}"),
        Err(e) => e,
    }
}
