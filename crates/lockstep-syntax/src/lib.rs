//! HLSL source handling: the preprocessor (with a source map), the lexer, the
//! parser and the AST. Knows nothing of types or execution.
//!
//! The pipeline is [`lexer::lex`] (text to tokens, per file), then
//! [`preprocess()`] (directives and macros, across `#include`d files, to one
//! token stream), then [`parse()`] (tokens to an [`ast::TranslationUnit`]);
//! [`parse_file`] runs all three. No stage fails: problems become
//! [`Diagnostic`]s with [`Span`]s into the original files of the
//! [`SourceMap`], and the tree holds whatever could be recovered.
//!
//! ```
//! use lockstep_syntax::{Diagnostics, NoIncludes, PreprocessOptions, SourceMap, parse_file};
//!
//! let mut map = SourceMap::new();
//! let main = map.add("main.hlsl", "[numthreads(64, 1, 1)] void main() {}", None);
//! let mut diags = Diagnostics::default();
//! let unit = parse_file(&mut map, main, &PreprocessOptions::default(), &NoIncludes, &mut diags);
//! assert!(!diags.has_errors());
//! assert_eq!(
//!     lockstep_syntax::ast_print::print_unit(&unit),
//!     "(fn [numthreads 64 1 1] void main ())\n"
//! );
//! ```

#![warn(missing_docs)]

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
pub use span::{FileId, LineDirective, PresumedLoc, SourceFile, SourceMap, Span};
