//! Macro expansion: rescanning with hide sets, argument collection and
//! pre-expansion, `#` stringizing and `##` pasting.

use std::rc::Rc;
use std::sync::Arc;

use super::{
    HideSet, MAX_EXPANDED_TOKENS, MAX_MACRO_DEPTH, Macro, MacroKind, Mode, PpToken, Preprocessor,
};
use crate::diag::Diagnostic;
use crate::lexer::{self, LexError, MacroOrigin, Token, TokenKind};
use crate::span::Span;

fn hide_intersection(a: &HideSet, b: &HideSet) -> HideSet {
    if a.is_empty() || Rc::ptr_eq(a, b) {
        return a.clone();
    }
    Rc::new(
        a.iter()
            .copied()
            .filter(|id| b.binary_search(id).is_ok())
            .collect(),
    )
}

fn hide_union(a: &HideSet, b: &HideSet) -> HideSet {
    if b.iter().all(|id| a.binary_search(id).is_ok()) {
        return a.clone();
    }
    if a.iter().all(|id| b.binary_search(id).is_ok()) {
        return b.clone();
    }
    let mut merged = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) if x == y => {
                i += 1;
                j += 1;
                x
            }
            (Some(&x), Some(&y)) if x < y => {
                i += 1;
                x
            }
            (Some(&x), None) => {
                i += 1;
                x
            }
            (_, Some(&y)) => {
                j += 1;
                y
            }
            (None, None) => break,
        };
        merged.push(next);
    }
    Rc::new(merged)
}

impl Preprocessor<'_> {
    /// Expands every macro in `input` (rescanning results), returning the
    /// expanded tokens.
    pub(super) fn expand_list(
        &mut self,
        input: Vec<PpToken>,
        mode: Mode,
        depth: u32,
    ) -> Vec<PpToken> {
        if depth > MAX_MACRO_DEPTH {
            // Fatal: going on would rescan the rest at every level.
            let span = input.first().map_or(Span::default(), |t| t.tok.span);
            self.fatal_error(span, "macro expansion nested too deeply");
            return input;
        }
        if self.fatal {
            return input;
        }
        // Most text names no macro: it is returned as it is, and otherwise
        // the tokens before the first macro name are kept where they are.
        let first = input.iter().position(|t| {
            t.tok.kind == TokenKind::Ident
                && ((mode == Mode::If && t.tok.text == "defined")
                    || self.macros.contains_key(&t.tok.text))
        });
        let Some(first) = first else {
            return input;
        };
        let mut out = input;
        let mut stack = out.split_off(first);
        stack.reverse();
        out.reserve(stack.len());
        while let Some(tok) = stack.pop() {
            if self.fatal {
                out.push(tok);
                out.extend(stack.drain(..).rev());
                break;
            }
            if tok.tok.kind != TokenKind::Ident {
                out.push(tok);
                continue;
            }
            if mode == Mode::If && tok.tok.text == "defined" {
                let value = self.defined_operator(&tok, &mut stack);
                out.push(value);
                continue;
            }
            let Some(mac) = self.macros.get(&tok.tok.text).cloned() else {
                out.push(tok);
                continue;
            };
            if tok.hide.binary_search(&mac.id).is_ok() {
                out.push(tok);
                continue;
            }
            match &mac.kind {
                MacroKind::Line => {
                    let line = self.map.presumed_location(tok.tok.span).line;
                    out.push(self.generated(&tok, TokenKind::IntLit, line.to_string()));
                }
                MacroKind::File => {
                    let name = self.map.presumed_location(tok.tok.span).name;
                    out.push(self.generated(&tok, TokenKind::StringLit, quote(&name)));
                }
                MacroKind::PragmaOperator => {
                    if !stack.last().is_some_and(|t| t.tok.is_punct("(")) {
                        out.push(tok);
                        continue;
                    }
                    // Its one operand, a string, and nothing in its place.
                    let _ = self.collect_args(&tok, &mut stack, 1, false);
                }
                MacroKind::Counter => {
                    let n = self.counter;
                    self.counter += 1;
                    out.push(self.generated(&tok, TokenKind::IntLit, n.to_string()));
                }
                MacroKind::Object => {
                    let span = tok.tok.span;
                    let body = self.substitute(&mac, &tok, span, &[], mode, depth);
                    stack.extend(body.into_iter().rev());
                }
                MacroKind::Function { params, variadic } => {
                    if !stack.last().is_some_and(|t| t.tok.is_punct("(")) {
                        out.push(tok);
                        continue;
                    }
                    if let Some((args, close)) =
                        self.collect_args(&tok, &mut stack, params.len(), *variadic)
                    {
                        let span = tok.tok.span.to(close.tok.span);
                        // The invocation's hide set is what both its name and
                        // its `)` hide (C's rescanning rule, as in Prosser's
                        // algorithm).
                        let name = PpToken {
                            hide: hide_intersection(&tok.hide, &close.hide),
                            ..tok
                        };
                        let body = self.substitute(&mac, &name, span, &args, mode, depth);
                        stack.extend(body.into_iter().rev());
                    }
                }
            }
        }
        out
    }

    /// A token made by the preprocessor in place of `at`.
    fn generated(&self, at: &PpToken, kind: TokenKind, text: String) -> PpToken {
        PpToken {
            tok: Token {
                kind,
                text,
                error: None,
                ..at.tok.clone()
            },
            hide: at.hide.clone(),
            placemarker: false,
        }
    }

    /// `defined X` or `defined(X)` in an `#if`; the operand is not expanded.
    fn defined_operator(&mut self, tok: &PpToken, stack: &mut Vec<PpToken>) -> PpToken {
        let mut operand = stack.pop();
        let paren = operand.as_ref().is_some_and(|t| t.tok.is_punct("("));
        if paren {
            operand = stack.pop();
        }
        let Some(name) = operand.filter(|t| t.tok.kind == TokenKind::Ident) else {
            self.error(tok.tok.span, "macro name must be an identifier");
            return self.generated(tok, TokenKind::IntLit, "0".to_string());
        };
        if paren {
            if stack.last().is_some_and(|t| t.tok.is_punct(")")) {
                stack.pop();
            } else {
                self.error(name.tok.span, "missing ')' after 'defined'");
            }
        }
        let value = if self.macros.contains_key(&name.tok.text) {
            "1"
        } else {
            "0"
        };
        self.generated(tok, TokenKind::IntLit, value.to_string())
    }

    /// Reads `( args )` of a function-like macro invocation from the stack.
    /// Returns `None` (after an error) when the invocation is malformed.
    fn collect_args(
        &mut self,
        name: &PpToken,
        stack: &mut Vec<PpToken>,
        param_count: usize,
        variadic: bool,
    ) -> Option<(Vec<Vec<PpToken>>, PpToken)> {
        stack.pop(); // `(`
        let mut args: Vec<Vec<PpToken>> = vec![Vec::new()];
        let mut depth = 0u32;
        let close = loop {
            let Some(tok) = stack.pop() else {
                self.error(name.tok.span, "unterminated function-like macro invocation");
                return None;
            };
            if tok.tok.is_punct("(") {
                depth += 1;
            } else if tok.tok.is_punct(")") {
                if depth == 0 {
                    break tok;
                }
                depth -= 1;
            } else if tok.tok.is_punct(",") && depth == 0 && !(variadic && args.len() > param_count)
            {
                args.push(Vec::new());
                continue;
            }
            if let Some(last) = args.last_mut() {
                last.push(tok);
            }
        };
        // Collecting arguments is work too: nested invocations collect the
        // same tokens once per level.
        self.count_expansion_work(args.iter().map(Vec::len).sum(), name.tok.span);
        if param_count == 0 && !variadic && args.len() == 1 && args[0].is_empty() {
            args.clear();
        }
        if variadic && args.len() == param_count {
            args.push(Vec::new());
        }
        let expected = param_count + usize::from(variadic);
        if args.len() != expected {
            let message = if args.len() < expected {
                "too few arguments provided to function-like macro invocation"
            } else {
                "too many arguments provided to function-like macro invocation"
            };
            let d = Diagnostic::error(name.tok.span, message);
            let d = match self.macros.get(&name.tok.text) {
                Some(m) => d.with_label(m.origin.definition, "macro defined here"),
                None => d,
            };
            self.diags.push(d);
            return None;
        }
        Some((args, close))
    }

    /// The body of `mac` with arguments substituted, `#` and `##` applied,
    /// and hide sets extended; ready to be rescanned.
    fn substitute(
        &mut self,
        mac: &Macro,
        name: &PpToken,
        span: Span,
        args: &[Vec<PpToken>],
        mode: Mode,
        depth: u32,
    ) -> Vec<PpToken> {
        let origin = name
            .tok
            .expansion
            .clone()
            .unwrap_or_else(|| mac.origin.clone());
        let body_token = |t: &Token, hide: &HideSet| PpToken {
            tok: Token {
                span,
                line_start: false,
                expansion: Some(origin.clone()),
                ..t.clone()
            },
            hide: hide.clone(),
            placemarker: false,
        };
        let placemarker = |hide: &HideSet| PpToken {
            tok: Token {
                kind: TokenKind::Unknown,
                text: String::new(),
                span,
                leading_space: false,
                line_start: false,
                error: None,
                expansion: None,
            },
            hide: hide.clone(),
            placemarker: true,
        };
        let empty = self.empty_hide.clone();
        let variadic_index = match &mac.kind {
            MacroKind::Function {
                params,
                variadic: true,
            } => Some(params.len()),
            _ => None,
        };
        let mut expanded_args: Vec<Option<Vec<PpToken>>> = vec![None; args.len()];
        let mut out: Vec<PpToken> = Vec::with_capacity(mac.body.len());
        let body = &mac.body;
        let mut i = 0;
        while i < body.len() {
            let t = &body[i];
            let param = mac.param_index(t).filter(|&p| p < args.len());
            if t.is_punct("#")
                && let Some(p) = body
                    .get(i + 1)
                    .and_then(|n| mac.param_index(n))
                    .filter(|&p| p < args.len())
            {
                out.push(stringize(&args[p], body_token(t, &empty)));
                i += 2;
                continue;
            }
            if t.is_punct("##") && i > 0 && i + 1 < body.len() {
                let next = &body[i + 1];
                let next_param = mac.param_index(next).filter(|&p| p < args.len());
                if next_param.is_some()
                    && next_param == variadic_index
                    && out.last().is_some_and(|l| l.tok.is_punct(","))
                {
                    // GNU `, ## __VA_ARGS__`: the comma goes when there are
                    // no variadic arguments.
                    let p = next_param.unwrap_or_default();
                    if args[p].is_empty() {
                        out.pop();
                    } else {
                        out.extend(args[p].iter().cloned());
                    }
                    i += 2;
                    continue;
                }
                let mut rhs = match next_param {
                    Some(p) if args[p].is_empty() => vec![placemarker(&empty)],
                    Some(p) => args[p].clone(),
                    None => vec![body_token(next, &empty)],
                }
                .into_iter();
                let lhs = out.pop().unwrap_or_else(|| placemarker(&empty));
                if let Some(first) = rhs.next() {
                    let pasted = self.paste(lhs, first, span, &origin);
                    out.extend(pasted);
                }
                out.extend(rhs);
                i += 2;
                continue;
            }
            if let Some(p) = param {
                if body.get(i + 1).is_some_and(|n| n.is_punct("##")) {
                    if args[p].is_empty() {
                        out.push(placemarker(&empty));
                    } else {
                        out.extend(args[p].iter().cloned());
                    }
                } else {
                    if expanded_args[p].is_none() {
                        let expanded = self.expand_list(args[p].clone(), mode, depth + 1);
                        expanded_args[p] = Some(expanded);
                    }
                    if let Some(expanded) = &expanded_args[p] {
                        out.extend(expanded.iter().cloned());
                    }
                }
                i += 1;
                continue;
            }
            out.push(body_token(t, &empty));
            i += 1;
        }
        out.retain(|t| !t.placemarker);
        let added = hide_union(&name.hide, &Rc::new(vec![mac.id]));
        for t in &mut out {
            t.hide = hide_union(&t.hide, &added);
        }
        self.count_expansion_work(out.len(), span);
        out
    }

    /// Counts tokens handled by macro expansion; past the budget, stops
    /// with a fatal error (exponential macros would otherwise run for ever).
    fn count_expansion_work(&mut self, tokens: usize, span: Span) {
        self.expanded_count += tokens;
        if self.expanded_count > MAX_EXPANDED_TOKENS && !self.fatal {
            self.fatal_error(span, "macro expansion is too large");
        }
    }

    /// `lhs ## rhs`: glues the spellings and lexes the result again.
    fn paste(
        &mut self,
        lhs: PpToken,
        rhs: PpToken,
        span: Span,
        origin: &Arc<MacroOrigin>,
    ) -> Vec<PpToken> {
        if lhs.placemarker {
            return vec![rhs];
        }
        if rhs.placemarker {
            return vec![lhs];
        }
        let text = format!("{}{}", lhs.tok.text, rhs.tok.text);
        let mut lexed = lexer::lex(span.file, &text);
        let valid = lexed.len() == 1
            && lexed[0].text == text
            && matches!(lexed[0].error.as_deref(), None | Some(LexError::Number(_)));
        match lexed.pop() {
            Some(tok) if valid => vec![PpToken {
                tok: Token {
                    span,
                    leading_space: lhs.tok.leading_space,
                    line_start: false,
                    expansion: Some(origin.clone()),
                    ..tok
                },
                hide: lhs.hide,
                placemarker: false,
            }],
            _ => {
                let message = format!("pasting formed '{text}', an invalid preprocessing token");
                let label = format!("expanded from macro '{}'", origin.name);
                let d = Diagnostic::error(span, message).with_label(origin.definition, label);
                self.diags.push(d);
                vec![lhs, rhs]
            }
        }
    }
}

/// `#x`: the argument's spelling as a string literal.
fn stringize(arg: &[PpToken], mut at: PpToken) -> PpToken {
    let mut text = String::from("\"");
    for (i, t) in arg.iter().enumerate() {
        if i > 0 && t.tok.leading_space {
            text.push(' ');
        }
        if matches!(t.tok.kind, TokenKind::StringLit | TokenKind::CharLit) {
            for c in t.tok.text.chars() {
                if c == '"' || c == '\\' {
                    text.push('\\');
                }
                text.push(c);
            }
        } else {
            text.push_str(&t.tok.text);
        }
    }
    text.push('"');
    at.tok.kind = TokenKind::StringLit;
    at.tok.text = text;
    at.tok.error = None;
    at
}

/// A string literal spelling for `s`.
fn quote(s: &str) -> String {
    let mut text = String::from("\"");
    for c in s.chars() {
        if c == '"' || c == '\\' {
            text.push('\\');
        }
        text.push(c);
    }
    text.push('"');
    text
}
