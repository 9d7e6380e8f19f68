//! `#pragma lockstep …`: what a shader tells Lockstep's tools about itself.
//! Other compilers ignore these directives.
//!
//! - `#pragma lockstep unordered(Name, …)`: the named writable resources are
//!   unordered streams (appended to through an atomic counter, say). `lockstep
//!   check` then compares their contents as multisets of elements: the
//!   elements may move when waves or groups take turns in another order, but
//!   the same elements must be there.

use lockstep_ir::Module;
use lockstep_syntax::ast::Pragma;
use lockstep_syntax::lexer::TokenKind;
use lockstep_syntax::{Diagnostic, Diagnostics};

/// What the pragmas of a shader said.
#[derive(Clone, Debug, Default)]
pub struct Pragmas {
    /// Resources declared unordered, by name.
    pub unordered: Vec<String>,
}

pub(crate) fn read(pragmas: &[Pragma], module: &Module, diags: &mut Diagnostics) -> Pragmas {
    let mut out = Pragmas::default();
    for pragma in pragmas {
        let args = &pragma.args;
        let Some(first) = args.first() else {
            diags.push(Diagnostic::warning(
                pragma.span,
                "empty '#pragma lockstep': expected 'unordered(NAME, ...)'",
            ));
            continue;
        };
        if !first.is_ident("unordered") {
            diags.push(Diagnostic::warning(
                first.span,
                format!(
                    "unknown '#pragma lockstep {}': expected 'unordered(NAME, ...)'",
                    first.text
                ),
            ));
            continue;
        }
        let names = match parenthesized_names(&args[1..]) {
            Ok(names) => names,
            Err(span) => {
                diags.push(Diagnostic::warning(
                    span.unwrap_or(pragma.span),
                    "malformed '#pragma lockstep unordered': expected 'unordered(NAME, ...)'",
                ));
                continue;
            }
        };
        for (name, span) in names {
            match module.resources.iter().find(|r| r.name == name) {
                Some(r) if r.kind.is_writable() => {
                    if !out.unordered.contains(&name) {
                        out.unordered.push(name);
                    }
                }
                Some(_) => diags.push(Diagnostic::warning(
                    span,
                    format!("'{name}' is read-only: only writable resources can be unordered"),
                )),
                None => {
                    let writable: Vec<&str> = module
                        .resources
                        .iter()
                        .filter(|r| r.kind.is_writable())
                        .map(|r| r.name.as_str())
                        .collect();
                    let hint = lockstep_pipeline::suggestion(&name, &writable)
                        .map(|c| format!("; did you mean '{c}'?"))
                        .unwrap_or_default();
                    diags.push(Diagnostic::warning(
                        span,
                        format!("'{name}' names no resource of the shader{hint}"),
                    ));
                }
            }
        }
    }
    out
}

/// `( A , B , … )` with nothing after; the error is where it went wrong.
#[allow(clippy::type_complexity)]
fn parenthesized_names(
    tokens: &[lockstep_syntax::lexer::Token],
) -> Result<Vec<(String, lockstep_syntax::Span)>, Option<lockstep_syntax::Span>> {
    let mut it = tokens.iter();
    match it.next() {
        Some(t) if t.text == "(" => {}
        t => return Err(t.map(|t| t.span)),
    }
    let mut names = Vec::new();
    loop {
        match it.next() {
            Some(t) if t.kind == TokenKind::Ident => names.push((t.text.clone(), t.span)),
            t => return Err(t.map(|t| t.span)),
        }
        match it.next() {
            Some(t) if t.text == "," => {}
            Some(t) if t.text == ")" => break,
            t => return Err(t.map(|t| t.span)),
        }
    }
    match it.next() {
        None => Ok(names),
        Some(t) => Err(Some(t.span)),
    }
}
