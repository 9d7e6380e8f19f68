//! Integration tests of lockstep-syntax: data-driven checks of the lexer,
//! the preprocessor and the parser through their public API, plus no-panic
//! fuzzing of the whole pipeline. Expectations refresh with
//! `UPDATE_EXPECT=1 cargo test -p lockstep-syntax`.

mod data;
mod fuzz;
mod lex;
mod parse;
mod pp;

use std::collections::HashMap;

use expect_test::Expect;
use lockstep_syntax::ast::TranslationUnit;
use lockstep_syntax::ast_print::print_unit;
use lockstep_syntax::lexer::TokenKind;
use lockstep_syntax::{
    Diagnostics, PreprocessOptions, SourceMap, Span, Token, parse_file, preprocess,
};

/// The name the main file of every test has; diagnostics in it print as
/// `line:col`, those in other files as `name:line:col`.
pub const MAIN: &str = "main.hlsl";

/// `line:col` (or `name:line:col` outside the main file) of a span, after
/// `#line` directives.
pub fn location(map: &SourceMap, span: Span) -> String {
    if map.get(span.file).is_none() {
        return "?".to_string();
    }
    let loc = map.presumed_location(span);
    if loc.name == MAIN {
        format!("{}:{}", loc.line, loc.col)
    } else {
        format!("{}:{}:{}", loc.name, loc.line, loc.col)
    }
}

/// Diagnostics as a compiler prints their first lines, with labels, notes
/// and the include chain indented below.
pub fn render_diags(map: &SourceMap, diags: &Diagnostics) -> String {
    let mut out = String::new();
    for d in &diags.items {
        let severity = format!("{:?}", d.severity).to_lowercase();
        out.push_str(&format!(
            "{}: {severity}: {}\n",
            location(map, d.span),
            d.message
        ));
        for (span, label) in &d.labels {
            out.push_str(&format!("  {}: note: {label}\n", location(map, *span)));
        }
        if map.get(d.span.file).is_some() {
            for site in map.include_chain(d.span.file) {
                out.push_str(&format!(
                    "  in file included from {}\n",
                    location(map, site)
                ));
            }
        }
        for note in &d.notes {
            out.push_str(&format!("  note: {note}\n"));
        }
    }
    out
}

/// Parses `files[0]` (named [`MAIN`]) with the others loadable by name.
pub fn parse_files(
    files: &[(&str, &str)],
    opts: &PreprocessOptions,
) -> (TranslationUnit, SourceMap, Diagnostics) {
    let mut map = SourceMap::new();
    let main = map.add(MAIN, files[0].1, None);
    let loader: HashMap<String, String> = files[1..]
        .iter()
        .map(|(name, text)| (name.to_string(), text.to_string()))
        .collect();
    let mut diags = Diagnostics::default();
    let unit = parse_file(&mut map, main, opts, &loader, &mut diags);
    (unit, map, diags)
}

pub fn ast_and_diags(files: &[(&str, &str)], opts: &PreprocessOptions) -> String {
    let (unit, map, diags) = parse_files(files, opts);
    let mut out = print_unit(&unit);
    let rendered = render_diags(&map, &diags);
    if !rendered.is_empty() {
        out.push_str("---\n");
        out.push_str(&rendered);
    }
    out
}

/// Parses `input` and compares the S-expression tree and the diagnostics.
pub fn check(input: &str, expect: Expect) {
    expect.assert_eq(&ast_and_diags(
        &[(MAIN, input)],
        &PreprocessOptions::default(),
    ));
}

/// Like [`check`], with more files and options.
pub fn check_with(files: &[(&str, &str)], opts: &PreprocessOptions, expect: Expect) {
    expect.assert_eq(&ast_and_diags(files, opts));
}

/// Preprocesses `files[0]` and returns the tokens, one output line per
/// source line of the main file, and the diagnostics.
pub fn preprocess_files(files: &[(&str, &str)], opts: &PreprocessOptions) -> String {
    let mut map = SourceMap::new();
    let main = map.add(MAIN, files[0].1, None);
    let loader: HashMap<String, String> = files[1..]
        .iter()
        .map(|(name, text)| (name.to_string(), text.to_string()))
        .collect();
    let mut diags = Diagnostics::default();
    let tokens = preprocess(&mut map, main, opts, &loader, &mut diags);
    let mut out = token_lines(&map, &tokens);
    let rendered = render_diags(&map, &diags);
    if !rendered.is_empty() {
        out.push_str("---\n");
        out.push_str(&rendered);
    }
    out
}

/// Token spellings, a new line whenever the (real) line or file changes.
fn token_lines(map: &SourceMap, tokens: &[Token]) -> String {
    let mut out = String::new();
    let mut last: Option<(u32, u32)> = None;
    for tok in tokens {
        if tok.kind == TokenKind::Eof {
            break;
        }
        let line = (
            tok.span.file.0,
            map.file(tok.span.file).line_col(tok.span.start).0,
        );
        if last.is_some() && last != Some(line) {
            out.push('\n');
        } else if last.is_some() {
            out.push(' ');
        }
        last = Some(line);
        out.push_str(&tok.text);
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

pub fn check_pp(input: &str, expect: Expect) {
    expect.assert_eq(&preprocess_files(
        &[(MAIN, input)],
        &PreprocessOptions::default(),
    ));
}

pub fn check_pp_with(files: &[(&str, &str)], opts: &PreprocessOptions, expect: Expect) {
    expect.assert_eq(&preprocess_files(files, opts));
}
