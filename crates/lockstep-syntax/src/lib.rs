//! HLSL source handling: the preprocessor (with a source map), the lexer, the
//! parser and the AST. Knows nothing of types or execution.

pub mod ast;
pub mod diag;
pub mod span;

pub use diag::{Diagnostic, Diagnostics, Severity};
pub use span::{FileId, SourceFile, SourceMap, Span};
