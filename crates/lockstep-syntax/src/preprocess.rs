//! The preprocessor: works on tokens, like clang's, and produces the token
//! stream the parser reads.
//!
//! Every output token keeps a span into an original file. A token written in
//! a file keeps its own span; a token that comes out of a macro body gets the
//! span of the macro invocation (so errors point at the use) and records the
//! macro in [`Token::expansion`]. Macro arguments keep their own spans.
//! `#line` directives are recorded in the [`SourceMap`] and change only the
//! reported locations, never the spans.
//!
//! Expansion follows the C standard's rescanning rules with hide sets
//! (Prosser's algorithm), so a macro never expands inside its own expansion.

mod expr;

use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

use crate::diag::{Diagnostic, Diagnostics};
use crate::lexer::{self, LexError, MacroOrigin, Token, TokenKind};
use crate::span::{FileId, SourceMap, Span};

/// Reads included files for the preprocessor; the caller decides what a path
/// means (a file system, an in-memory map, …).
pub trait SourceLoader {
    /// Reads a file; `path` is a path string built by joining the including
    /// file's directory (or an include dir) with the written name. Returns
    /// None when it does not exist.
    fn load(&self, path: &str) -> Option<String>;
}

/// An in-memory file system: path to contents.
impl SourceLoader for HashMap<String, String> {
    fn load(&self, path: &str) -> Option<String> {
        self.get(path).cloned()
    }
}

/// A loader that finds no file, for sources without includes.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoIncludes;

impl SourceLoader for NoIncludes {
    fn load(&self, _path: &str) -> Option<String> {
        None
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreprocessOptions {
    /// `-D` definitions as `(name, value)`; `name` may carry a parameter
    /// list (`F(x)`). See [`PreprocessOptions::parse_define`].
    pub defines: Vec<(String, String)>,
    /// `-I` directories, searched in order after the including file's own
    /// directory.
    pub include_dirs: Vec<String>,
    /// `(major, minor)` of the target profile, e.g. `(6, 6)` for `cs_6_6`.
    pub shader_model: (u32, u32),
}

impl Default for PreprocessOptions {
    fn default() -> PreprocessOptions {
        PreprocessOptions {
            defines: Vec::new(),
            include_dirs: Vec::new(),
            shader_model: (6, 10),
        }
    }
}

impl PreprocessOptions {
    /// Splits a `-D` argument: `NAME=VALUE` gives `(NAME, VALUE)` and a bare
    /// `NAME` gives `(NAME, "1")`.
    pub fn parse_define(arg: &str) -> (String, String) {
        match arg.split_once('=') {
            Some((name, value)) => (name.to_string(), value.to_string()),
            None => (arg.to_string(), "1".to_string()),
        }
    }
}

/// Files nested deeper than this are a fatal error.
const MAX_INCLUDE_DEPTH: usize = 200;
/// At most this many `#include`s are followed in one compilation.
const MAX_INCLUDES: usize = 10_000;
/// Macro expansion may produce (or collect as arguments) at most this many
/// tokens in all.
const MAX_EXPANDED_TOKENS: usize = 1_000_000;
/// Macro arguments nest at most this deep (each level is a recursive
/// pre-expansion).
const MAX_MACRO_DEPTH: u32 = 200;

/// Runs the preprocessor over `main` (already in `map`) and returns the
/// tokens for the parser, ending with an [`TokenKind::Eof`] token. Included
/// files are added to `map`. Never fails: problems become diagnostics.
pub fn preprocess(
    map: &mut SourceMap,
    main: FileId,
    opts: &PreprocessOptions,
    loader: &dyn SourceLoader,
    diags: &mut Diagnostics,
) -> Vec<Token> {
    let Some(main_file) = map.get(main) else {
        return vec![eof_token(Span::new(main, 0, 0))];
    };
    let main_end = main_file.text.len() as u32;
    let main_tokens = lexer::lex(main, &main_file.text);
    let mut pp = Preprocessor::new(map, opts, loader, diags);
    pp.push_frame(main, main_tokens);
    if !opts.defines.is_empty() {
        let text = command_line_text(&opts.defines);
        let id = pp.map.add("<command line>", text, None);
        let tokens = lexer::lex(id, &pp.map.file(id).text);
        pp.push_frame(id, tokens);
    }
    let builtin = pp
        .map
        .add("<built-in>", builtin_text(opts.shader_model), None);
    let tokens = lexer::lex(builtin, &pp.map.file(builtin).text);
    pp.push_frame(builtin, tokens);
    pp.run();
    let mut out = pp.out;
    out.push(eof_token(Span::new(main, main_end, main_end)));
    out
}

fn eof_token(span: Span) -> Token {
    Token {
        kind: TokenKind::Eof,
        text: String::new(),
        span,
        leading_space: false,
        line_start: true,
        error: None,
        expansion: None,
    }
}

fn command_line_text(defines: &[(String, String)]) -> String {
    let mut text = String::new();
    for (name, value) in defines {
        let one_line = |s: &str| s.replace(['\n', '\r'], " ");
        text.push_str(&format!("#define {} {}\n", one_line(name), one_line(value)));
    }
    text
}

/// The predefined macros, as DXC defines them for a compute shader.
fn builtin_text((major, minor): (u32, u32)) -> String {
    let stages = [
        ("PIXEL", 0),
        ("VERTEX", 1),
        ("GEOMETRY", 2),
        ("HULL", 3),
        ("DOMAIN", 4),
        ("COMPUTE", 5),
        ("LIBRARY", 6),
        ("MESH", 13),
        ("AMPLIFICATION", 14),
    ];
    let mut text = format!(
        "#define __HLSL_VERSION 2021\n#define __SHADER_TARGET_MAJOR {major}\n\
         #define __SHADER_TARGET_MINOR {minor}\n#define __hlsl_dx_compiler 1\n"
    );
    for (stage, value) in stages {
        text.push_str(&format!("#define __SHADER_STAGE_{stage} {value}\n"));
    }
    text.push_str("#define __SHADER_TARGET_STAGE __SHADER_STAGE_COMPUTE\n");
    text
}

/// A token during expansion: the macros it may no longer expand (its hide
/// set), and whether it is a placemarker (an empty argument next to `##`).
#[derive(Clone, Debug)]
struct PpToken {
    tok: Token,
    hide: HideSet,
    placemarker: bool,
}

/// Sorted macro ids.
type HideSet = Rc<Vec<u32>>;

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

#[derive(Debug)]
struct Macro {
    id: u32,
    kind: MacroKind,
    body: Vec<Token>,
    origin: Arc<MacroOrigin>,
}

#[derive(Clone, Debug, PartialEq)]
enum MacroKind {
    Object,
    Function {
        params: Vec<String>,
        variadic: bool,
    },
    /// `__LINE__`
    Line,
    /// `__FILE__`
    File,
}

impl Macro {
    /// Whether a redefinition is allowed without a warning.
    fn same_as(&self, other: &Macro) -> bool {
        self.kind == other.kind
            && self.body.len() == other.body.len()
            && self
                .body
                .iter()
                .zip(&other.body)
                .enumerate()
                .all(|(i, (a, b))| {
                    a.text == b.text && (i == 0 || a.leading_space == b.leading_space)
                })
    }

    /// The argument index a body token names, for function-like macros.
    fn param_index(&self, tok: &Token) -> Option<usize> {
        let MacroKind::Function { params, variadic } = &self.kind else {
            return None;
        };
        if tok.kind != TokenKind::Ident {
            return None;
        }
        if *variadic && tok.text == "__VA_ARGS__" {
            return Some(params.len());
        }
        params.iter().position(|p| *p == tok.text)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CondState {
    /// The current branch is being compiled.
    Taking,
    /// No branch taken yet; a later `#elif`/`#else` may be.
    Waiting,
    /// A branch was taken; the rest are skipped.
    Done,
    /// The whole conditional is inside a skipped branch.
    ParentSkipping,
}

struct Cond {
    if_span: Span,
    state: CondState,
    seen_else: bool,
}

/// One file being read.
struct Frame {
    file: FileId,
    tokens: Vec<Token>,
    pos: usize,
    conds: Vec<Cond>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Ordinary text and `#include`/`#line` operands.
    Text,
    /// An `#if` expression: `defined` is an operator.
    If,
}

struct Preprocessor<'a> {
    map: &'a mut SourceMap,
    opts: &'a PreprocessOptions,
    loader: &'a dyn SourceLoader,
    diags: &'a mut Diagnostics,
    macros: HashMap<String, Rc<Macro>>,
    /// Macro name to id, for hide sets.
    macro_ids: HashMap<String, u32>,
    /// Files that said `#pragma once`.
    once: HashSet<String>,
    frames: Vec<Frame>,
    out: Vec<Token>,
    include_count: usize,
    expanded_count: usize,
    /// A fatal error stops preprocessing.
    fatal: bool,
    empty_hide: HideSet,
}

impl<'a> Preprocessor<'a> {
    fn new(
        map: &'a mut SourceMap,
        opts: &'a PreprocessOptions,
        loader: &'a dyn SourceLoader,
        diags: &'a mut Diagnostics,
    ) -> Preprocessor<'a> {
        let mut pp = Preprocessor {
            map,
            opts,
            loader,
            diags,
            macros: HashMap::new(),
            macro_ids: HashMap::new(),
            once: HashSet::new(),
            frames: Vec::new(),
            out: Vec::new(),
            include_count: 0,
            expanded_count: 0,
            fatal: false,
            empty_hide: Rc::new(Vec::new()),
        };
        pp.define_special("__LINE__", MacroKind::Line);
        pp.define_special("__FILE__", MacroKind::File);
        pp
    }

    fn define_special(&mut self, name: &str, kind: MacroKind) {
        let id = self.macro_id(name);
        let origin = Arc::new(MacroOrigin {
            name: name.to_string(),
            definition: Span::default(),
        });
        let mac = Macro {
            id,
            kind,
            body: Vec::new(),
            origin,
        };
        self.macros.insert(name.to_string(), Rc::new(mac));
    }

    fn macro_id(&mut self, name: &str) -> u32 {
        let next = self.macro_ids.len() as u32;
        *self.macro_ids.entry(name.to_string()).or_insert(next)
    }

    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, message));
    }

    fn warning(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::warning(span, message));
    }

    fn fatal_error(&mut self, span: Span, message: impl Into<String>) {
        self.error(span, message);
        self.fatal = true;
    }

    fn report_lex_error(&mut self, tok: &Token) {
        if let Some(error) = &tok.error {
            let message = error.to_string();
            self.error(tok.span, message);
        }
    }

    fn push_frame(&mut self, file: FileId, tokens: Vec<Token>) {
        self.frames.push(Frame {
            file,
            tokens,
            pos: 0,
            conds: Vec::new(),
        });
    }

    fn pp_token(&self, tok: Token) -> PpToken {
        PpToken {
            tok,
            hide: self.empty_hide.clone(),
            placemarker: false,
        }
    }

    fn run(&mut self) {
        while !self.fatal {
            let Some(frame) = self.frames.last() else {
                break;
            };
            let Some(tok) = frame.tokens.get(frame.pos) else {
                self.end_frame();
                continue;
            };
            if tok.line_start && tok.is_punct("#") {
                let line = self.take_line();
                self.directive(&line);
            } else if !self.active() {
                self.skip_line();
            } else {
                let text = self.take_text();
                let expanded = self.expand_list(text, Mode::Text, 0);
                self.emit(expanded);
            }
        }
    }

    fn end_frame(&mut self) {
        if let Some(frame) = self.frames.pop() {
            for cond in frame.conds {
                self.error(cond.if_span, "unterminated conditional directive");
            }
        }
    }

    /// Whether the current line is compiled (not inside a skipped branch).
    fn active(&self) -> bool {
        self.frames
            .last()
            .and_then(|f| f.conds.last())
            .is_none_or(|c| c.state == CondState::Taking)
    }

    /// Takes the tokens of the current logical line.
    fn take_line(&mut self) -> Vec<Token> {
        let Some(frame) = self.frames.last_mut() else {
            return Vec::new();
        };
        let start = frame.pos;
        let mut end = start + 1;
        while end < frame.tokens.len() && !frame.tokens[end].line_start {
            end += 1;
        }
        let end = end.min(frame.tokens.len());
        frame.pos = end;
        frame.tokens[start..end].to_vec()
    }

    /// Skips a line in a skipped branch; only an unterminated comment there
    /// is still an error.
    fn skip_line(&mut self) {
        for tok in self.take_line() {
            if tok.error == Some(LexError::UnterminatedComment) {
                self.report_lex_error(&tok);
            }
        }
    }

    /// Takes text lines up to the next directive or the end of the file.
    fn take_text(&mut self) -> Vec<PpToken> {
        let Some(frame) = self.frames.last_mut() else {
            return Vec::new();
        };
        let start = frame.pos;
        let mut end = start;
        while end < frame.tokens.len()
            && !(end > start && frame.tokens[end].line_start && frame.tokens[end].is_punct("#"))
        {
            end += 1;
        }
        frame.pos = end;
        let tokens = frame.tokens[start..end].to_vec();
        tokens
            .into_iter()
            .map(|tok| {
                self.report_lex_error(&tok);
                self.pp_token(tok)
            })
            .collect()
    }

    fn emit(&mut self, tokens: Vec<PpToken>) {
        for t in tokens {
            if !t.placemarker && t.tok.kind != TokenKind::Unknown {
                self.out.push(t.tok);
            }
        }
    }

    fn current_file(&self) -> Option<FileId> {
        self.frames.last().map(|f| f.file)
    }

    // ---- directives ----

    fn directive(&mut self, line: &[Token]) {
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
                self.report_line_errors(&line[1..]);
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
            if matches!(previous.kind, MacroKind::Line | MacroKind::File) {
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
        self.diags.push(Diagnostic::note(span, "pragma ignored"));
    }

    // ---- macro expansion ----

    /// Expands every macro in `input` (rescanning results), returning the
    /// expanded tokens.
    fn expand_list(&mut self, input: Vec<PpToken>, mode: Mode, depth: u32) -> Vec<PpToken> {
        if depth > MAX_MACRO_DEPTH {
            // Fatal: going on would rescan the rest at every level.
            let span = input.first().map_or(Span::default(), |t| t.tok.span);
            self.fatal_error(span, "macro expansion nested too deeply");
            return input;
        }
        if self.fatal {
            return input;
        }
        let mut stack = input;
        stack.reverse();
        let mut out = Vec::with_capacity(stack.len());
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
            && matches!(lexed[0].error, None | Some(LexError::Number(_)));
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
fn normalize_path(path: &str) -> String {
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
