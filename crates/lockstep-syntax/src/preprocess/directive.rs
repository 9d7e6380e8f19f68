//! Directive handling: conditionals, `#define`/`#undef`, `#include`,
//! `#line`, `#error`/`#warning` and `#pragma`.

use std::rc::Rc;
use std::sync::Arc;

use super::{
    Cond, CondState, MAX_INCLUDE_DEPTH, MAX_INCLUDES, Macro, MacroKind, Mode, Preprocessor, expr,
};
use crate::diag::Diagnostic;
use crate::lexer::{self, LexError, MacroOrigin, Token, TokenKind};
use crate::span::Span;

impl Preprocessor<'_> {
    pub(super) fn directive(&mut self, line: &[Token]) {
        let Some(hash) = line.first() else {
            return;
        };
        let span = hash.span.to(line.last().map_or(hash.span, |t| t.span));
        let Some(name) = line.get(1) else {
            return; // The null directive.
        };
        let args = &line[2..];
        let active = self.active();
        if name.kind == TokenKind::IntLit {
            if active {
                self.report_line_errors(&line[1..]);
                self.line_directive(&line[1..], line);
            }
            return;
        }
        let directive = if name.kind == TokenKind::Ident {
            name.text.as_str()
        } else {
            ""
        };
        match directive {
            "if" | "ifdef" | "ifndef" => self.open_conditional(directive, name, args, span),
            "elif" => self.elif(name, args),
            "else" => self.else_directive(name, args),
            "endif" => self.endif(name, args),
            _ if !active => {}
            "error" | "warning" => self.user_diagnostic(directive, line, span),
            _ => {
                // A `#define`'s malformed numbers are reported where the
                // macro expands: pasting may still complete them (`0x##F`).
                let numbers = directive != "define";
                for tok in &line[1..] {
                    if numbers || !matches!(tok.error.as_deref(), Some(LexError::Number(_))) {
                        self.report_lex_error(tok);
                    }
                }
                match directive {
                    "define" => self.define(name, args),
                    "undef" => self.undef(name, args),
                    "include" => self.include(name, args, span),
                    "line" => self.line_directive(args, line),
                    "pragma" => self.pragma(args, span),
                    _ => self.error(name.span, "invalid preprocessing directive"),
                }
            }
        }
    }

    fn report_line_errors(&mut self, tokens: &[Token]) {
        for tok in tokens {
            self.report_lex_error(tok);
        }
    }

    fn extra_tokens(&mut self, directive: &str, extra: &[Token]) {
        if let Some(first) = extra.first() {
            self.warning(
                first.span,
                format!("extra tokens at end of #{directive} directive"),
            );
        }
    }

    fn push_cond(&mut self, cond: Cond) {
        if let Some(frame) = self.frames.last_mut() {
            frame.conds.push(cond);
        }
    }

    fn top_cond(&mut self) -> Option<&mut Cond> {
        self.frames.last_mut().and_then(|f| f.conds.last_mut())
    }

    fn open_conditional(&mut self, directive: &str, name: &Token, args: &[Token], span: Span) {
        let state = if !self.active() {
            CondState::ParentSkipping
        } else {
            self.report_line_errors(args);
            let value = match directive {
                "if" => self.eval_condition(name, args),
                _ => {
                    let defined = self
                        .macro_name_operand(directive, name, args)
                        .is_some_and(|n| self.macros.contains_key(&n));
                    defined == (directive == "ifdef")
                }
            };
            if value {
                CondState::Taking
            } else {
                CondState::Waiting
            }
        };
        self.push_cond(Cond {
            if_span: span,
            state,
            seen_else: false,
        });
    }

    /// The identifier operand of `#ifdef`, `#ifndef` and `#undef`.
    fn macro_name_operand(
        &mut self,
        directive: &str,
        name: &Token,
        args: &[Token],
    ) -> Option<String> {
        let Some(operand) = args.first() else {
            self.error(name.span, "macro name missing");
            return None;
        };
        if operand.kind != TokenKind::Ident {
            self.error(operand.span, "macro name must be an identifier");
            return None;
        }
        self.extra_tokens(directive, &args[1..]);
        Some(operand.text.clone())
    }

    fn elif(&mut self, name: &Token, args: &[Token]) {
        let Some(cond) = self.top_cond() else {
            self.error(name.span, "#elif without #if");
            return;
        };
        let (state, seen_else) = (cond.state, cond.seen_else);
        if seen_else {
            self.error(name.span, "#elif after #else");
        }
        let next = match state {
            CondState::Taking => CondState::Done,
            CondState::Waiting if !seen_else => {
                self.report_line_errors(args);
                if self.eval_condition(name, args) {
                    CondState::Taking
                } else {
                    CondState::Waiting
                }
            }
            other => other,
        };
        if let Some(cond) = self.top_cond() {
            cond.state = next;
        }
    }

    fn else_directive(&mut self, name: &Token, args: &[Token]) {
        let Some(cond) = self.top_cond() else {
            self.error(name.span, "#else without #if");
            return;
        };
        let seen_else = cond.seen_else;
        cond.seen_else = true;
        cond.state = match cond.state {
            CondState::Taking => CondState::Done,
            CondState::Waiting if !seen_else => CondState::Taking,
            CondState::Waiting => CondState::Done,
            other => other,
        };
        if seen_else {
            self.error(name.span, "#else after #else");
        }
        self.extra_tokens("else", args);
    }

    fn endif(&mut self, name: &Token, args: &[Token]) {
        let popped = self.frames.last_mut().and_then(|f| f.conds.pop());
        if popped.is_none() {
            self.error(name.span, "#endif without #if");
        }
        self.extra_tokens("endif", args);
    }

    fn eval_condition(&mut self, name: &Token, args: &[Token]) -> bool {
        if args.is_empty() {
            self.error(name.span, "expected value in expression");
            return false;
        }
        let tokens = args.iter().cloned().map(|t| self.pp_token(t)).collect();
        let expanded: Vec<Token> = self
            .expand_list(tokens, Mode::If, 0)
            .into_iter()
            .filter(|t| !t.placemarker)
            .map(|t| t.tok)
            .collect();
        let end = args.last().map_or(name.span, |t| t.span);
        match expr::evaluate(&expanded, end) {
            Ok(value) => value,
            Err((span, message)) => {
                self.error(span, message);
                false
            }
        }
    }

    fn define(&mut self, directive: &Token, args: &[Token]) {
        let Some(name) = args.first() else {
            self.error(directive.span, "macro name missing");
            return;
        };
        if name.kind != TokenKind::Ident {
            self.error(name.span, "macro name must be an identifier");
            return;
        }
        if name.text == "defined" {
            self.error(name.span, "'defined' cannot be used as a macro name");
            return;
        }
        let mut body_start = 1;
        let kind = match args.get(1) {
            Some(paren) if paren.is_punct("(") && !paren.leading_space => {
                let Some((params, variadic, end)) = self.macro_params(paren, args) else {
                    return;
                };
                body_start = end;
                MacroKind::Function { params, variadic }
            }
            Some(first) if !first.leading_space => {
                self.warning(first.span, "whitespace required after macro name");
                MacroKind::Object
            }
            _ => MacroKind::Object,
        };
        let body: Vec<Token> = args[body_start..]
            .iter()
            .map(|t| Token {
                line_start: false,
                ..t.clone()
            })
            .collect();
        let definition = args.first().map_or(directive.span, |n| n.span);
        let id = self.macro_id(&name.text);
        let mac = Macro {
            id,
            kind,
            body,
            origin: Arc::new(MacroOrigin {
                name: name.text.clone(),
                definition,
            }),
        };
        if !self.check_body(&mac) {
            return;
        }
        if let Some(previous) = self.macros.get(&name.text) {
            if matches!(
                previous.kind,
                MacroKind::Line | MacroKind::File | MacroKind::Counter | MacroKind::PragmaOperator
            ) {
                self.warning(name.span, "redefining builtin macro");
            } else if !previous.same_as(&mac) {
                let d = Diagnostic::warning(name.span, format!("'{}' macro redefined", name.text))
                    .with_label(previous.origin.definition, "previous definition is here");
                self.diags.push(d);
            }
        }
        self.macros.insert(name.text.clone(), Rc::new(mac));
    }

    /// Parses `(a, b, ...)` after a macro name; returns the parameters,
    /// whether the macro is variadic, and the index where the body starts.
    fn macro_params(
        &mut self,
        paren: &Token,
        args: &[Token],
    ) -> Option<(Vec<String>, bool, usize)> {
        let mut params: Vec<String> = Vec::new();
        let mut variadic = false;
        let mut i = 2;
        if args.get(i).is_some_and(|t| t.is_punct(")")) {
            return Some((params, variadic, i + 1));
        }
        loop {
            let Some(tok) = args.get(i) else {
                self.error(paren.span, "missing ')' in macro parameter list");
                return None;
            };
            if tok.is_punct("...") {
                variadic = true;
            } else if tok.kind == TokenKind::Ident && tok.text != "__VA_ARGS__" {
                if params.contains(&tok.text) {
                    self.error(
                        tok.span,
                        format!("duplicate macro parameter name '{}'", tok.text),
                    );
                    return None;
                }
                params.push(tok.text.clone());
            } else {
                self.error(tok.span, "invalid token in macro parameter list");
                return None;
            }
            i += 1;
            match args.get(i) {
                Some(t) if t.is_punct(")") => return Some((params, variadic, i + 1)),
                Some(t) if t.is_punct(",") && !variadic => i += 1,
                Some(t) => {
                    let message = if variadic {
                        "missing ')' in macro parameter list"
                    } else {
                        "expected comma in macro parameter list"
                    };
                    self.error(t.span, message);
                    return None;
                }
                None => {
                    self.error(paren.span, "missing ')' in macro parameter list");
                    return None;
                }
            }
        }
    }

    /// Checks the uses of `#` and `##` in a macro body.
    fn check_body(&mut self, mac: &Macro) -> bool {
        let body = &mac.body;
        for edge in [body.first(), body.last()].into_iter().flatten() {
            if edge.is_punct("##") {
                self.error(
                    edge.span,
                    "'##' cannot appear at either end of a macro expansion",
                );
                return false;
            }
        }
        if matches!(mac.kind, MacroKind::Function { .. }) {
            for (i, tok) in body.iter().enumerate() {
                if tok.is_punct("#") && body.get(i + 1).and_then(|t| mac.param_index(t)).is_none() {
                    self.error(tok.span, "'#' is not followed by a macro parameter");
                    return false;
                }
            }
        }
        true
    }

    fn undef(&mut self, directive: &Token, args: &[Token]) {
        if let Some(name) = self.macro_name_operand("undef", directive, args) {
            self.macros.remove(&name);
        }
    }

    fn include(&mut self, directive: &Token, args: &[Token], span: Span) {
        let Some((written, at)) = self.header_name(directive, args, true) else {
            return;
        };
        if written.is_empty() {
            self.error(at, "empty filename");
            return;
        }
        let candidates = self.include_candidates(&written);
        let found = candidates
            .into_iter()
            .find_map(|path| self.loader.load(&path).map(|text| (path, text)));
        let Some((path, text)) = found else {
            self.error(at, format!("'{written}' file not found"));
            return;
        };
        if self.once.contains(&path) {
            return;
        }
        // A file may appear again inside itself once (a header whose guard
        // then empties it); a third time, the files include each other
        // without end.
        let open: Vec<&str> = self
            .frames
            .iter()
            .map(|f| self.map.file(f.file).name.as_str())
            .collect();
        if open.iter().filter(|name| **name == path).count() >= 2 {
            let first = open.iter().position(|name| *name == path).unwrap_or(0);
            let mut cycle: Vec<&str> = open[first..].to_vec();
            if let Some(second) = cycle.iter().skip(1).position(|name| *name == path) {
                cycle.truncate(second + 1);
            }
            cycle.push(&path);
            let message = format!("#include cycle: {}", cycle.join(" includes "));
            self.fatal_error(at, message);
            return;
        }
        if self.frames.len() > MAX_INCLUDE_DEPTH {
            self.fatal_error(at, "#include nested too deeply");
            return;
        }
        self.include_count += 1;
        if self.include_count > MAX_INCLUDES {
            self.fatal_error(at, "too many files included");
            return;
        }
        let id = self.map.add(path, text, Some(span));
        let tokens = lexer::lex(id, &self.map.file(id).text);
        self.push_frame(id, tokens);
    }

    /// The file name of `#include "name"` or `#include <name>`, possibly
    /// produced by macros.
    fn header_name(
        &mut self,
        directive: &Token,
        args: &[Token],
        may_expand: bool,
    ) -> Option<(String, Span)> {
        let Some(first) = args.first() else {
            self.error(directive.span, "expected \"FILENAME\" or <FILENAME>");
            return None;
        };
        if first.kind == TokenKind::StringLit && first.error.is_none() {
            self.extra_tokens("include", &args[1..]);
            let name = first.text[1..first.text.len() - 1].to_string();
            return Some((name, first.span));
        }
        if first.is_punct("<") {
            let Some(close) = args.iter().position(|t| t.is_punct(">")) else {
                self.error(first.span, "expected '>'");
                return None;
            };
            self.extra_tokens("include", &args[close + 1..]);
            let name = self.spelling_between(&args[..=close]);
            return Some((name, first.span.to(args[close].span)));
        }
        if may_expand && first.kind == TokenKind::Ident {
            let tokens = args.iter().cloned().map(|t| self.pp_token(t)).collect();
            let expanded: Vec<Token> = self
                .expand_list(tokens, Mode::Text, 0)
                .into_iter()
                .filter(|t| !t.placemarker)
                .map(|t| t.tok)
                .collect();
            return self.header_name(directive, &expanded, false);
        }
        self.error(first.span, "expected \"FILENAME\" or <FILENAME>");
        None
    }

    /// The text between the first and last token (`<` and `>`), taken from
    /// the source when both are in one file, otherwise re-spelled.
    fn spelling_between(&self, tokens: &[Token]) -> String {
        let (Some(open), Some(close)) = (tokens.first(), tokens.last()) else {
            return String::new();
        };
        let from_source = open.expansion.is_none()
            && close.expansion.is_none()
            && open.span.file == close.span.file
            && open.span.end <= close.span.start;
        if from_source
            && let Some(text) = self.map.get(open.span.file).and_then(|f| {
                f.text
                    .get(open.span.end as usize..close.span.start as usize)
            })
        {
            return text.replace("\\\r\n", "").replace("\\\n", "");
        }
        let inner = &tokens[1..tokens.len() - 1];
        let mut name = String::new();
        for (i, t) in inner.iter().enumerate() {
            if i > 0 && t.leading_space {
                name.push(' ');
            }
            name.push_str(&t.text);
        }
        name
    }

    /// Paths to try for an included name: the including file's directory,
    /// then the `-I` directories in order.
    fn include_candidates(&self, written: &str) -> Vec<String> {
        let written = written.replace('\\', "/");
        if written.starts_with('/') || written.as_bytes().get(1) == Some(&b':') {
            return vec![normalize_path(&written)];
        }
        let mut candidates = Vec::new();
        if let Some(file) = self.current_file().and_then(|f| self.map.get(f)) {
            let dir = dir_of(&file.name).replace('\\', "/");
            candidates.push(normalize_path(&join_path(&dir, &written)));
        }
        for dir in &self.opts.include_dirs {
            let path = normalize_path(&join_path(&dir.replace('\\', "/"), &written));
            if !candidates.contains(&path) {
                candidates.push(path);
            }
        }
        candidates
    }

    /// `#line N ["name"]`, and the GNU line marker `# N "name" flags`.
    fn line_directive(&mut self, args: &[Token], line: &[Token]) {
        let expanded: Vec<Token>;
        let mut args = args;
        if args.first().is_some_and(|t| t.kind == TokenKind::Ident) {
            let tokens = args.iter().cloned().map(|t| self.pp_token(t)).collect();
            expanded = self
                .expand_list(tokens, Mode::Text, 0)
                .into_iter()
                .filter(|t| !t.placemarker)
                .map(|t| t.tok)
                .collect();
            args = &expanded;
        }
        let at = line.first().map_or(Span::default(), |t| t.span);
        if args.first().is_some_and(|t| t.error.is_some()) {
            return; // Already reported.
        }
        let number = args
            .first()
            .filter(|t| t.kind == TokenKind::IntLit && t.text.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|t| t.text.parse::<u32>().ok())
            .filter(|&n| n <= 2_147_483_647);
        let Some(number) = number else {
            let span = args.first().map_or(at, |t| t.span);
            self.error(span, "#line directive requires a positive integer argument");
            return;
        };
        let name = match args.get(1) {
            Some(t) if t.kind == TokenKind::StringLit && t.error.is_none() => {
                Some(unquote(&t.text))
            }
            Some(t) => {
                let marker = line.get(1).is_some_and(|n| n.kind == TokenKind::IntLit);
                let message = if marker {
                    "invalid filename for line marker directive"
                } else {
                    "invalid filename for #line directive"
                };
                self.error(t.span, message);
                return;
            }
            None => None,
        };
        let Some(last) = line.last() else {
            return;
        };
        let Some(file) = self.map.get(last.span.file) else {
            return;
        };
        let end = last.span.end as usize;
        let offset = file
            .text
            .get(end..)
            .and_then(|rest| rest.find('\n'))
            .map_or(file.text.len(), |i| end + i + 1);
        self.map
            .add_line_directive(last.span.file, offset as u32, number, name);
    }

    fn user_diagnostic(&mut self, directive: &str, line: &[Token], span: Span) {
        let mut message = String::new();
        if let (Some(first), Some(last)) = (line.get(2), line.last())
            && first.span.file == last.span.file
            && let Some(text) = self.map.get(first.span.file).and_then(|f| {
                f.text
                    .get(first.span.start as usize..last.span.end as usize)
            })
        {
            message = text
                .replace("\\\r\n", "")
                .replace("\\\n", "")
                .trim()
                .to_string();
        }
        if message.is_empty() {
            message = format!("#{directive}");
        }
        if directive == "error" {
            self.error(span, message);
        } else {
            self.warning(span, message);
        }
    }

    fn pragma(&mut self, args: &[Token], span: Span) {
        if args.first().is_some_and(|t| t.is_ident("once")) {
            if let Some(name) = self
                .current_file()
                .and_then(|f| self.map.get(f))
                .map(|f| f.name.clone())
            {
                self.once.insert(normalize_path(&name.replace('\\', "/")));
            }
            return;
        }
        if args.first().is_some_and(|t| t.is_ident("lockstep")) {
            self.pragmas.push(crate::ast::Pragma {
                span,
                args: args[1..].to_vec(),
            });
            return;
        }
        // The default packing of the matrices declared after it: the
        // parser reads the mark at each type.
        if args.first().is_some_and(|t| t.is_ident("pack_matrix")) {
            let row = args.iter().any(|t| t.is_ident("row_major"));
            if !row && !args.iter().any(|t| t.is_ident("column_major")) {
                self.error(span, "#pragma pack_matrix takes row_major or column_major");
                return;
            }
            self.pack_marks.push((self.out.len(), row));
            return;
        }
        self.diags.push(Diagnostic::note(span, "pragma ignored"));
    }
}

/// The contents of a string literal, with `\\` and `\"` unescaped.
fn unquote(literal: &str) -> String {
    let inner = literal
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(literal);
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The directory part of a path (`""` for a bare name).
fn dir_of(path: &str) -> &str {
    path.rfind(['/', '\\'])
        .map_or("", |i| &path[..i.max(1).min(path.len())])
}

fn join_path(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        return name.to_string();
    }
    let trimmed = dir.trim_end_matches('/');
    if trimmed.is_empty() {
        format!("/{name}")
    } else {
        format!("{trimmed}/{name}")
    }
}

/// Removes `.` components and `dir/..` pairs, lexically.
pub fn normalize_path(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            ".." if absolute => {}
            _ => parts.push(part),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}
