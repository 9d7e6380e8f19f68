//! The parser: recursive descent from preprocessed tokens to an
//! [`ast::TranslationUnit`](crate::ast::TranslationUnit).
//!
//! It never gives up: an error is reported once, the parser skips to a
//! point it knows (the end of the statement or declaration, or a closing
//! brace) and goes on. A step limit stops it should it ever stop making
//! progress, and nesting limits keep the recursion (and the tree) shallow
//! enough for every later pass.

mod expr;
mod item;
mod stmt;
mod types;

use std::cell::Cell;
use std::collections::{HashMap, HashSet};

use crate::ast::{Ident, TranslationUnit};
use crate::diag::{Diagnostic, Diagnostics};
use crate::lexer::{MacroOrigin, Token, TokenKind};
use crate::preprocess::{PreprocessOptions, SourceLoader, preprocess_with_pragmas};
use crate::span::{FileId, SourceMap, Span};

/// Parses preprocessed tokens (as [`preprocess`] returns them).
pub fn parse(tokens: Vec<Token>, diags: &mut Diagnostics) -> TranslationUnit {
    Parser::new(tokens, Vec::new(), diags).finish()
}

/// Preprocesses and parses `main`.
pub fn parse_file(
    map: &mut SourceMap,
    main: FileId,
    opts: &PreprocessOptions,
    loader: &dyn SourceLoader,
    diags: &mut Diagnostics,
) -> TranslationUnit {
    let (tokens, pragmas, marks) = preprocess_with_pragmas(map, main, opts, loader, diags);
    let mut tu = Parser::new(tokens, marks, diags).finish();
    tu.pragmas = pragmas;
    tu
}

/// An error at `span`, noting the macro the token there came out of.
fn diagnostic_at(
    span: Span,
    expansion: Option<&MacroOrigin>,
    message: impl Into<String>,
) -> Diagnostic {
    let d = Diagnostic::error(span, message);
    match expansion {
        Some(origin) => d.with_label(
            origin.definition,
            format!("expanded from macro '{}'", origin.name),
        ),
        None => d,
    }
}

/// Marks a failed parse whose error is already reported; the caller
/// recovers.
#[derive(Debug)]
struct Reported;

type PResult<T> = Result<T, Reported>;

/// Brackets, blocks and prefix operators nest at most this deep.
const MAX_NESTING: u32 = 256;
/// Expression trees are at most this deep (long operator chains nest
/// without recursion in the parser, but later passes recurse).
const MAX_EXPR_DEPTH: u32 = 4096;
/// Looking at tokens this many times without consuming one means the parser
/// is stuck.
const STEP_LIMIT: u32 = 100_000;

struct Parser<'d> {
    /// The tokens, always ending with an `Eof` token.
    tokens: Vec<Token>,
    pos: usize,
    /// Where `#pragma pack_matrix` makes row-major (true) or column-major
    /// packing the default, by token index.
    pack_marks: crate::preprocess::PackMarks,
    diags: &'d mut Diagnostics,
    /// Struct and typedef names declared so far.
    type_names: HashSet<String>,
    /// The namespaces around the current item, outermost first.
    namespace: Vec<String>,
    /// The qualified names (`N::f`) declared in namespaces so far.
    namespaced: HashSet<String>,
    /// `using namespace N;` so far, with the depth of namespaces it was
    /// written at: until that namespace closes, `N`'s names are found
    /// without their qualifier.
    using_namespaces: Vec<(usize, String)>,
    /// `using N::name;` so far, with the depth of namespaces it was written
    /// at: `name` is `N::name` until that namespace closes.
    using_names: Vec<(usize, String, String)>,
    /// The structs whose body is being read, innermost last, by qualified
    /// name: their `static` data members are found by name inside.
    member_scopes: Vec<String>,
    /// The function and struct templates declared so far: their names take
    /// `<arguments>`.
    template_names: HashSet<String>,
    /// The `static` member functions declared so far, as `S.f`.
    static_members: HashSet<String>,
    /// Inside the item of a `template <…>`.
    in_template: bool,
    steps: Cell<u32>,
    stuck: Cell<bool>,
    nesting: u32,
    nesting_reported: bool,
    /// How many expression entry points are active; the tree depth is
    /// checked when the outermost one returns.
    expr_level: u32,
    /// Inside template arguments, `>` closes the list instead of comparing.
    no_gt: bool,
    /// The span of the last consumed token.
    prev_span: Span,
    /// The function whose body is being read.
    function: Option<String>,
    /// How many blocks of functions of each name have declared local
    /// types: each such block is a namespace of its own (`f::S`, then
    /// `f#2::S`).
    local_scopes: HashMap<String, u32>,
    /// The length `namespace` has outside the innermost block.
    block_namespace: usize,
    /// Types declared inside function bodies, as items of the file: they
    /// go before the item that declared them.
    hoisted: Vec<crate::ast::Item>,
}

impl<'d> Parser<'d> {
    fn new(
        mut tokens: Vec<Token>,
        mut marks: crate::preprocess::PackMarks,
        diags: &'d mut Diagnostics,
    ) -> Parser<'d> {
        if tokens.last().is_none_or(|t| t.kind != TokenKind::Eof) {
            let span = tokens.last().map_or(Span::default(), |t| {
                Span::new(t.span.file, t.span.end, t.span.end)
            });
            tokens.push(Token::eof(span));
        }
        // Tokens after an `Eof` are never looked at.
        if let Some(first_eof) = tokens.iter().position(|t| t.kind == TokenKind::Eof) {
            tokens.truncate(first_eof + 1);
        }
        Parser {
            tokens: qualified_names(tokens, &mut marks),
            pack_marks: marks,
            pos: 0,
            diags,
            type_names: HashSet::new(),
            namespace: Vec::new(),
            namespaced: HashSet::new(),
            using_namespaces: Vec::new(),
            using_names: Vec::new(),
            member_scopes: Vec::new(),
            template_names: HashSet::new(),
            static_members: HashSet::new(),
            in_template: false,
            steps: Cell::new(0),
            stuck: Cell::new(false),
            nesting: 0,
            nesting_reported: false,
            expr_level: 0,
            no_gt: false,
            prev_span: Span::default(),
            function: None,
            local_scopes: HashMap::new(),
            block_namespace: 0,
            hoisted: Vec::new(),
        }
    }

    /// Parses the whole translation unit.
    fn finish(mut self) -> TranslationUnit {
        let unit = self.translation_unit();
        if self.stuck.get() {
            let span = self.peek_raw().span;
            self.diags
                .push(Diagnostic::error(span, "parser step limit exceeded"));
        }
        unit
    }

    /// The packing `#pragma pack_matrix` made the default at token `pos`
    /// (true: row-major), if a pragma comes before it.
    fn packing_at(&self, pos: usize) -> Option<bool> {
        self.pack_marks
            .iter()
            .rev()
            .find(|m| m.0 <= pos)
            .map(|m| m.1)
    }

    // ---- looking at tokens ----

    fn eof(&self) -> &Token {
        // `new` guarantees a final `Eof` token.
        &self.tokens[self.tokens.len() - 1]
    }

    /// The token `n` ahead, counting a step.
    fn nth(&self, n: usize) -> &Token {
        let steps = self.steps.get() + 1;
        self.steps.set(steps);
        if steps > STEP_LIMIT {
            self.stuck.set(true);
        }
        if self.stuck.get() {
            return self.eof();
        }
        self.tokens.get(self.pos + n).unwrap_or_else(|| self.eof())
    }

    fn peek(&self) -> &Token {
        self.nth(0)
    }

    /// The current token without counting a step.
    fn peek_raw(&self) -> &Token {
        self.tokens.get(self.pos).unwrap_or_else(|| self.eof())
    }

    fn at(&self, punct: &str) -> bool {
        self.peek().is_punct(punct)
    }

    fn at_kw(&self, keyword: &str) -> bool {
        self.peek().is_ident(keyword)
    }

    fn at_eof(&self) -> bool {
        self.peek().kind == TokenKind::Eof
    }

    /// Consumes the current token and returns it. Tokens behind `pos` are
    /// never looked at again, so it is moved out, not copied.
    fn bump(&mut self) -> Token {
        let tok = if self.peek().kind == TokenKind::Eof {
            self.eof().clone()
        } else {
            let tok = &mut self.tokens[self.pos];
            let span = tok.span;
            self.pos += 1;
            std::mem::replace(tok, Token::eof(span))
        };
        self.steps.set(0);
        self.prev_span = tok.span;
        tok
    }

    /// Consumes the current token, returning only its span.
    fn advance(&mut self) -> Span {
        let tok = self.peek();
        let span = tok.span;
        if tok.kind != TokenKind::Eof {
            self.pos += 1;
        }
        self.steps.set(0);
        self.prev_span = span;
        span
    }

    fn eat(&mut self, punct: &str) -> bool {
        if self.at(punct) {
            self.advance();
            true
        } else {
            false
        }
    }

    fn eat_kw(&mut self, keyword: &str) -> bool {
        if self.at_kw(keyword) {
            self.advance();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, punct: &str, message: &str) -> PResult<Token> {
        if self.at(punct) {
            Ok(self.bump())
        } else {
            self.error_here(message);
            Err(Reported)
        }
    }

    /// Expects the bracket closing the one at `open`, pointing back at it on
    /// error.
    fn expect_closing(&mut self, punct: &str, open: Span) -> PResult<Span> {
        if self.at(punct) {
            return Ok(self.advance());
        }
        let opening = match punct {
            ")" => "(",
            "]" => "[",
            "}" => "{",
            _ => "<",
        };
        let tok = self.peek().clone();
        let d = self
            .diagnostic(&tok, format!("expected '{punct}'"))
            .with_label(open, format!("to match this '{opening}'"));
        self.diags.push(d);
        Err(Reported)
    }

    /// Reports a missing `;` after the previous token, without failing: the
    /// parse goes on as if it were there.
    fn expect_semi(&mut self, message: &str) {
        if !self.eat(";") {
            let at = Span::new(self.prev_span.file, self.prev_span.end, self.prev_span.end);
            let d = Diagnostic::error(at, message);
            self.diags.push(d);
        }
    }

    fn ident(&mut self, message: &str) -> PResult<Ident> {
        let tok = self.peek();
        if tok.kind == TokenKind::Ident
            && !types::is_keyword(&tok.text)
            && !types::is_builtin_type(&tok.text)
        {
            let tok = self.bump();
            Ok(Ident {
                name: tok.text,
                span: tok.span,
            })
        } else {
            self.error_here(message);
            Err(Reported)
        }
    }

    // ---- diagnostics ----

    fn diagnostic(&self, tok: &Token, message: impl Into<String>) -> Diagnostic {
        diagnostic_at(tok.span, tok.expansion.as_deref(), message)
    }

    fn error_at(&mut self, tok: &Token, message: impl Into<String>) {
        let d = self.diagnostic(tok, message);
        self.diags.push(d);
    }

    fn error_here(&mut self, message: impl Into<String>) {
        let tok = self.peek().clone();
        self.error_at(&tok, message);
    }

    // ---- limits and recovery ----

    /// Runs `f` one nesting level deeper, failing past [`MAX_NESTING`].
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if !self.enter_nesting() {
            return Err(Reported);
        }
        let result = f(self);
        self.nesting -= 1;
        result
    }

    /// Goes one nesting level deeper (the caller decrements `nesting` when
    /// done); past [`MAX_NESTING`], reports once and returns false.
    fn enter_nesting(&mut self) -> bool {
        if self.nesting >= MAX_NESTING {
            if !self.nesting_reported {
                self.nesting_reported = true;
                self.error_here(format!(
                    "nesting level exceeded maximum of {MAX_NESTING} (brackets, unary operators and statements inside one another)"
                ));
            }
            return false;
        }
        self.nesting += 1;
        true
    }

    /// Skips the rest of a broken statement: through the next `;` or
    /// balanced `{ }` block, or up to a `}` closing the enclosing block.
    fn recover_stmt(&mut self) {
        let mut depth = 0u32;
        loop {
            let tok = self.peek();
            if tok.kind == TokenKind::Eof {
                return;
            }
            if tok.is_punct("}") {
                if depth == 0 {
                    return;
                }
                depth -= 1;
                self.bump();
                if depth == 0 {
                    return;
                }
                continue;
            }
            if tok.is_punct(";") && depth == 0 {
                self.bump();
                return;
            }
            if tok.is_punct("{") {
                depth += 1;
            }
            self.bump();
        }
    }

    /// Skips the rest of a broken top-level declaration.
    fn recover_item(&mut self) {
        let mut depth = 0u32;
        loop {
            let tok = self.peek();
            if tok.kind == TokenKind::Eof {
                return;
            }
            if tok.is_punct(";") && depth == 0 {
                self.bump();
                return;
            }
            if tok.is_punct("}") {
                self.bump();
                if depth <= 1 {
                    if depth == 1 {
                        self.eat(";");
                    }
                    return;
                }
                depth -= 1;
                continue;
            }
            if tok.is_punct("{") {
                depth += 1;
            }
            self.bump();
        }
    }

    /// Skips a balanced `( … )`, `[ … ]` or `{ … }` group starting at the
    /// current token.
    fn skip_balanced(&mut self) {
        let mut depth = 0u32;
        loop {
            let tok = self.peek();
            if tok.kind == TokenKind::Eof {
                return;
            }
            let opens =
                tok.kind == TokenKind::Punct && matches!(tok.text.as_str(), "(" | "[" | "{");
            let closes =
                tok.kind == TokenKind::Punct && matches!(tok.text.as_str(), ")" | "]" | "}");
            self.bump();
            if opens {
                depth += 1;
            } else if closes {
                depth = depth.saturating_sub(1);
            }
            if depth == 0 {
                return;
            }
        }
    }
}

/// Joins each `A::B::C` (names and `::`, spaces allowed between them) into
/// one name token `A::B::C`: qualified names are names. A `::` before a
/// name that follows no name (`::x`, the global scope's `x`; `return ::x`)
/// stays on the name, `::x`, which is looked up in the global scope only.
fn qualified_names(tokens: Vec<Token>, marks: &mut crate::preprocess::PackMarks) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len());
    let mut tokens = tokens.into_iter().enumerate().peekable();
    // The marks move with the tokens they stand before.
    let mut pending = marks.iter_mut().peekable();
    while let Some((i, tok)) = tokens.next() {
        while let Some(mark) = pending.next_if(|m| m.0 <= i) {
            mark.0 = out.len();
        }
        let tokens_peek = tokens.peek().map(|(_, t)| t);
        let name = |t: &Token| {
            t.kind == TokenKind::Ident && !crate::parser::types::KEYWORDS.contains(&t.text.as_str())
        };
        let after_name = out.last().is_some_and(name);
        let before_name = tokens_peek.is_some_and(name);
        // `S<T>::f` keeps its `::`.
        let after_template = out.last().is_some_and(|t| t.is_punct(">"));
        if tok.is_punct("::")
            && before_name
            && !after_name
            && !after_template
            && let Some((_, next)) = tokens.next()
        {
            out.push(Token {
                text: format!("::{}", next.text),
                span: tok.span.to(next.span),
                leading_space: tok.leading_space,
                line_start: tok.line_start,
                ..next
            });
            continue;
        }
        let joins = tok.is_punct("::") && after_name && before_name;
        if joins && let (Some(prev), Some((_, next))) = (out.last_mut(), tokens.next()) {
            prev.text = format!("{}::{}", prev.text, next.text);
            prev.span = prev.span.to(next.span);
            continue;
        }
        out.push(tok);
    }
    for mark in pending {
        mark.0 = out.len();
    }
    out
}
