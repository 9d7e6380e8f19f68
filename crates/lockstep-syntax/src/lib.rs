//! HLSL source handling: the preprocessor (with a source map), the lexer, the
//! parser and the AST. Knows nothing of types or execution.

pub mod ast;
pub mod ast_print;
pub mod diag;
pub mod lexer;
pub mod parser;
pub mod preprocess;
pub mod span;

pub use diag::{Diagnostic, Diagnostics, Severity};
pub use lexer::{Token, TokenKind};
pub use parser::{parse, parse_file};
pub use preprocess::{NoIncludes, PreprocessOptions, SourceLoader, preprocess};
pub use span::{FileId, SourceFile, SourceMap, Span};
