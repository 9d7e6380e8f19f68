//! Statements and blocks.

use super::types::{is_interpolation, is_keyword, is_storage, is_type_modifier};
use super::{PResult, Parser, Reported};
use crate::ast::{Attribute, Block, CaseLabel, Item, Stmt, StmtKind, SwitchCase, VarDecl};
use crate::diag::Diagnostic;
use crate::lexer::TokenKind;
use crate::span::Span;

#[inline(never)]
fn stmt_node(attributes: Vec<Attribute>, kind: StmtKind, span: Span) -> Box<Stmt> {
    Box::new(Stmt {
        attributes,
        kind,
        span,
    })
}

/// The words that start a statement other than a declaration or an
/// expression; from `case` on, only to be reported.
const STMT_KEYWORDS: [&str; 16] = [
    "if", "for", "while", "do", "switch", "break", "continue", "discard", "return", "case",
    "default", "struct", "typedef", "using", "cbuffer", "tbuffer",
];

impl Parser<'_> {
    /// `{ statements }`; a missing `}` is reported and the block kept.
    pub(super) fn block(&mut self) -> PResult<Block> {
        self.nested(|p| {
            let open = p.expect("{", "expected '{'")?;
            let mut stmts = Vec::new();
            // Types the block declares are in a scope of the block's.
            let outer = std::mem::replace(&mut p.block_namespace, p.namespace.len());
            while !p.at("}") && !p.at_eof() {
                match p.stmt() {
                    Ok(stmt) => stmts.push(*stmt),
                    Err(Reported) => p.recover_stmt(),
                }
            }
            p.namespace.truncate(p.block_namespace);
            p.block_namespace = outer;
            // A missing `}` is reported; the block still counts.
            let _ = p.expect_closing("}", open.span);
            Ok(Block {
                stmts,
                span: open.span.to(p.prev_span),
            })
        })
    }

    /// A statement, boxed: the recursive functions pass boxes so that their
    /// stack frames stay small.
    pub(super) fn stmt(&mut self) -> PResult<Box<Stmt>> {
        if !self.enter_nesting() {
            return Err(Reported);
        }
        let result = self.stmt_inner();
        self.nesting -= 1;
        result
    }

    fn stmt_inner(&mut self) -> PResult<Box<Stmt>> {
        let start = self.peek().span;
        let attributes = self.attributes()?;
        let tok = self.peek();
        let keyword = match tok.kind {
            TokenKind::Ident => STMT_KEYWORDS.iter().copied().find(|k| *k == tok.text),
            _ => None,
        };
        let kind = if tok.is_punct("{") {
            StmtKind::Block(self.block()?)
        } else if tok.is_punct(";") {
            self.advance();
            StmtKind::Empty
        } else if tok.kind == TokenKind::Ident {
            match keyword {
                Some("if") => self.if_stmt()?,
                Some("for") => self.for_stmt()?,
                Some("while") => self.while_stmt()?,
                Some("do") => self.do_stmt()?,
                Some("switch") => self.switch_stmt()?,
                Some("break") => self.jump(StmtKind::Break, "expected ';' after break statement"),
                Some("continue") => {
                    self.jump(StmtKind::Continue, "expected ';' after continue statement")
                }
                Some("discard") => {
                    self.jump(StmtKind::Discard, "expected ';' after discard statement")
                }
                Some("return") => self.return_stmt()?,
                Some(word @ ("case" | "default")) => {
                    self.error_here(format!("'{word}' statement not in switch statement"));
                    return Err(Reported);
                }
                Some("struct" | "class" | "typedef" | "using") => {
                    self.local_type(start, attributes.clone())?
                }
                Some(word) => {
                    self.error_here(format!("local '{word}' declarations are not supported"));
                    return Err(Reported);
                }
                None => self.decl_or_expr_stmt()?,
            }
        } else {
            self.expr_stmt()?
        };
        Ok(stmt_node(attributes, kind, start.to(self.prev_span)))
    }

    /// A struct or typedef declared in a function body: an item of the
    /// file in a scope of the block's (named after the function), found
    /// by its name until the block ends. `struct S { … } s;` also declares
    /// the local `s`.
    fn local_type(&mut self, start: Span, attributes: Vec<Attribute>) -> PResult<StmtKind> {
        if self.namespace.len() == self.block_namespace {
            let function = self.function.clone().unwrap_or_default();
            let n = self.local_scopes.entry(function.clone()).or_default();
            *n += 1;
            self.namespace.push(match *n {
                1 => function,
                n => format!("{function}#{n}"),
            });
        }
        let prefix = self.namespace.join("::");
        let mut items = Vec::new();
        if self.at_kw("typedef") {
            self.typedef(&mut items)?;
        } else if self.at_kw("using") {
            self.using(&mut items)?;
        } else {
            self.struct_item(start, attributes, &mut items)?;
        }
        let mut decl = StmtKind::Empty;
        for mut item in items {
            match item {
                Item::Variable(mut v) => {
                    v.ty.name.name = self.resolve_name(&v.ty.name.name).into_owned();
                    decl = StmtKind::Decl(v);
                }
                _ => {
                    self.qualify(&mut item, &prefix);
                    self.hoisted.push(item);
                }
            }
        }
        Ok(decl)
    }

    /// Whether a statement starting here is a declaration: it starts with a
    /// modifier, or with a type name not followed by `(` (which would be a
    /// constructor call).
    fn at_decl_start(&self) -> bool {
        let tok = self.peek();
        if tok.kind != TokenKind::Ident {
            return false;
        }
        let word = tok.text.as_str();
        if is_storage(word) || is_type_modifier(word) {
            return true;
        }
        if is_interpolation(word) {
            return self.nth(1).kind == TokenKind::Ident;
        }
        self.is_type_name(word) && !self.nth(1).is_punct("(")
    }

    fn decl_or_expr_stmt(&mut self) -> PResult<StmtKind> {
        let tok = self.peek();
        let next = self.nth(1);
        let unknown_type = tok.kind == TokenKind::Ident
            && !is_keyword(&tok.text)
            && next.kind == TokenKind::Ident
            && !is_keyword(&next.text);
        if self.at_decl_start() || unknown_type {
            let decl = self.local_decl()?;
            self.expect_semi("expected ';' at end of declaration");
            return Ok(StmtKind::Decl(decl));
        }
        self.expr_stmt()
    }

    /// A local declaration without its `;`.
    fn local_decl(&mut self) -> PResult<VarDecl> {
        let start = self.peek().span;
        let specifiers = self.specifiers();
        self.check_type_start(&specifiers.type_modifiers)?;
        let ty = self.parse_type(specifiers.type_modifiers)?;
        if self.at("*") || self.at("&") {
            self.error_here("pointers and references are not supported in HLSL");
            return Err(Reported);
        }
        let name = self.ident("expected identifier")?;
        if self.at("(") {
            self.error_here("function declarations are not allowed inside a function");
            return Err(Reported);
        }
        let declarators = self.declarators(name)?;
        Ok(VarDecl {
            attributes: Vec::new(),
            storage: specifiers.storage,
            ty,
            declarators,
            span: start.to(self.prev_span),
        })
    }

    fn expr_stmt(&mut self) -> PResult<StmtKind> {
        let expr = self.expr_top()?;
        self.expect_semi("expected ';' after expression");
        Ok(StmtKind::Expr(expr))
    }

    fn jump(&mut self, kind: StmtKind, message: &str) -> StmtKind {
        self.bump();
        self.expect_semi(message);
        kind
    }

    fn return_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let value = if self.at(";") {
            None
        } else {
            Some(self.expr_top()?)
        };
        self.expect_semi("expected ';' after return statement");
        Ok(StmtKind::Return(value))
    }

    /// `( expr )` after `if`, `while` or `switch`.
    fn paren_condition(&mut self, keyword: &str) -> PResult<crate::ast::Expr> {
        let open = self.expect("(", &format!("expected '(' after '{keyword}'"))?;
        let cond = self.expr_top()?;
        self.expect_closing(")", open.span)?;
        Ok(cond)
    }

    fn if_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let cond = self.paren_condition("if")?;
        let then_branch = self.stmt()?;
        let else_branch = if self.eat_kw("else") {
            Some(self.stmt()?)
        } else {
            None
        };
        Ok(StmtKind::If {
            cond,
            then_branch,
            else_branch,
        })
    }

    fn for_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let open = self.expect("(", "expected '(' after 'for'")?;
        let init_start = self.peek().span;
        let init_kind = if self.eat(";") {
            StmtKind::Empty
        } else if self.at_decl_start() {
            let decl = self.local_decl()?;
            self.expect_semi("expected ';' in 'for' statement specifier");
            StmtKind::Decl(decl)
        } else {
            let expr = self.expr_top()?;
            self.expect_semi("expected ';' in 'for' statement specifier");
            StmtKind::Expr(expr)
        };
        let init = Box::new(Stmt {
            attributes: Vec::new(),
            kind: init_kind,
            span: init_start.to(self.prev_span),
        });
        let cond = if self.at(";") {
            None
        } else {
            Some(self.expr_top()?)
        };
        self.expect_semi("expected ';' in 'for' statement specifier");
        let step = if self.at(")") {
            None
        } else {
            Some(self.expr_top()?)
        };
        self.expect_closing(")", open.span)?;
        let body = self.stmt()?;
        Ok(StmtKind::For {
            init,
            cond,
            step,
            body,
        })
    }

    fn while_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let cond = self.paren_condition("while")?;
        let body = self.stmt()?;
        Ok(StmtKind::While { cond, body })
    }

    fn do_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let body = self.stmt()?;
        if !self.eat_kw("while") {
            self.error_here("expected 'while' in do/while loop");
            return Err(Reported);
        }
        let cond = self.paren_condition("while")?;
        self.expect_semi("expected ';' after do/while statement");
        Ok(StmtKind::DoWhile { body, cond })
    }

    /// `switch (x) { … }`: consecutive labels share one [`SwitchCase`], and
    /// a case's statements run until the next label.
    fn switch_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let selector = self.paren_condition("switch")?;
        let open = self.expect("{", "expected '{' after switch condition")?;
        let mut cases: Vec<SwitchCase> = Vec::new();
        while !self.at("}") && !self.at_eof() {
            if self.at_kw("case") || self.at_kw("default") {
                match self.case_label() {
                    Ok(label) => {
                        let label_span = match &label {
                            CaseLabel::Case(e) => e.span,
                            CaseLabel::Default(span) => *span,
                        };
                        match cases.last_mut() {
                            Some(case) if case.body.is_empty() => {
                                case.labels.push(label);
                                case.span = case.span.to(self.prev_span);
                            }
                            _ => cases.push(SwitchCase {
                                labels: vec![label],
                                body: Vec::new(),
                                span: label_span.to(self.prev_span),
                            }),
                        }
                    }
                    Err(Reported) => self.recover_stmt(),
                }
                continue;
            }
            match self.stmt() {
                Ok(stmt) => match cases.last_mut() {
                    Some(case) => {
                        case.span = case.span.to(stmt.span);
                        case.body.push(*stmt);
                    }
                    None => self.diags.push(Diagnostic::warning(
                        stmt.span,
                        "statement before the first 'case' label will never be executed",
                    )),
                },
                Err(Reported) => self.recover_stmt(),
            }
        }
        let _ = self.expect_closing("}", open.span);
        Ok(StmtKind::Switch { selector, cases })
    }

    fn case_label(&mut self) -> PResult<CaseLabel> {
        let keyword = self.bump();
        let label = if keyword.text == "case" {
            CaseLabel::Case(self.conditional_top()?)
        } else {
            CaseLabel::Default(keyword.span)
        };
        if !self.eat(":") {
            let message = format!("expected ':' after '{}'", keyword.text);
            self.error_here(message);
            return Err(Reported);
        }
        Ok(label)
    }
}
