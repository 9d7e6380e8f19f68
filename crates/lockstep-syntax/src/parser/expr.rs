//! Expressions, by precedence climbing, with C's precedence and
//! associativity (assignment and `?:` to the right, comma lowest).

use super::types::{is_keyword, is_template, is_type_modifier};
use super::{MAX_EXPR_DEPTH, PResult, Parser, Reported, diagnostic_at};
use crate::ast::{
    BinaryOp, Callee, Expr, ExprKind, FloatSuffix, Ident, IntSuffix, TemplateArg, TypeExpr, UnaryOp,
};
use crate::lexer::{NumberValue, Token, TokenKind, parse_number};
use crate::span::Span;

fn binary_op(tok: &Token, no_gt: bool) -> Option<(BinaryOp, u8)> {
    if tok.kind != TokenKind::Punct {
        return None;
    }
    Some(match tok.text.as_str() {
        "||" => (BinaryOp::LogicalOr, 1),
        "&&" => (BinaryOp::LogicalAnd, 2),
        "|" => (BinaryOp::BitOr, 3),
        "^" => (BinaryOp::BitXor, 4),
        "&" => (BinaryOp::BitAnd, 5),
        "==" => (BinaryOp::Eq, 6),
        "!=" => (BinaryOp::Ne, 6),
        "<" => (BinaryOp::Lt, 7),
        ">" if !no_gt => (BinaryOp::Gt, 7),
        "<=" => (BinaryOp::Le, 7),
        ">=" => (BinaryOp::Ge, 7),
        "<<" => (BinaryOp::Shl, 8),
        ">>" if !no_gt => (BinaryOp::Shr, 8),
        "+" => (BinaryOp::Add, 9),
        "-" => (BinaryOp::Sub, 9),
        "*" => (BinaryOp::Mul, 10),
        "/" => (BinaryOp::Div, 10),
        "%" => (BinaryOp::Rem, 10),
        _ => return None,
    })
}

/// `=` gives `Some(None)`, `+=` gives `Some(Some(Add))`.
fn assign_op(tok: &Token) -> Option<Option<BinaryOp>> {
    if tok.kind != TokenKind::Punct {
        return None;
    }
    Some(match tok.text.as_str() {
        "=" => None,
        "+=" => Some(BinaryOp::Add),
        "-=" => Some(BinaryOp::Sub),
        "*=" => Some(BinaryOp::Mul),
        "/=" => Some(BinaryOp::Div),
        "%=" => Some(BinaryOp::Rem),
        "<<=" => Some(BinaryOp::Shl),
        ">>=" => Some(BinaryOp::Shr),
        "&=" => Some(BinaryOp::BitAnd),
        "|=" => Some(BinaryOp::BitOr),
        "^=" => Some(BinaryOp::BitXor),
        _ => return None,
    })
}

fn prefix_op(tok: &Token) -> Option<UnaryOp> {
    if tok.kind != TokenKind::Punct {
        return None;
    }
    Some(match tok.text.as_str() {
        "-" => UnaryOp::Neg,
        "+" => UnaryOp::Plus,
        "!" => UnaryOp::Not,
        "~" => UnaryOp::BitNot,
        "++" => UnaryOp::PreInc,
        "--" => UnaryOp::PreDec,
        _ => return None,
    })
}

/// The parser's internal result: boxed, so the recursive functions keep
/// small stack frames (the tree's children are boxes anyway).
type PBox = PResult<Box<Expr>>;

// Nodes are built out of line so that the temporaries of building them do
// not sit in the frames of the recursive functions.

#[inline(never)]
fn binary_node(op: BinaryOp, lhs: Box<Expr>, rhs: Box<Expr>) -> Box<Expr> {
    let span = lhs.span.to(rhs.span);
    Box::new(Expr {
        kind: ExprKind::Binary { op, lhs, rhs },
        span,
    })
}

#[inline(never)]
fn assign_node(op: Option<BinaryOp>, lhs: Box<Expr>, rhs: Box<Expr>) -> Box<Expr> {
    let span = lhs.span.to(rhs.span);
    Box::new(Expr {
        kind: ExprKind::Assign { op, lhs, rhs },
        span,
    })
}

#[inline(never)]
fn comma_node(lhs: Box<Expr>, rhs: Box<Expr>) -> Box<Expr> {
    let span = lhs.span.to(rhs.span);
    Box::new(Expr {
        kind: ExprKind::Comma { lhs, rhs },
        span,
    })
}

#[inline(never)]
fn conditional_node(cond: Box<Expr>, then_expr: Box<Expr>, else_expr: Box<Expr>) -> Box<Expr> {
    let span = cond.span.to(else_expr.span);
    Box::new(Expr {
        kind: ExprKind::Conditional {
            cond,
            then_expr,
            else_expr,
        },
        span,
    })
}

#[inline(never)]
fn unary_node(op: UnaryOp, operand: Box<Expr>, span: Span) -> Box<Expr> {
    Box::new(Expr {
        kind: ExprKind::Unary { op, operand },
        span,
    })
}

#[inline(never)]
fn index_node(base: Box<Expr>, index: Box<Expr>, end: Span) -> Box<Expr> {
    let span = base.span.to(end);
    Box::new(Expr {
        kind: ExprKind::Index { base, index },
        span,
    })
}

#[inline(never)]
fn node(kind: ExprKind, span: Span) -> Box<Expr> {
    Box::new(Expr { kind, span })
}

impl Parser<'_> {
    // ---- entry points: the tree depth is checked at the outermost ----

    /// A full expression, commas included.
    pub(super) fn expr_top(&mut self) -> PResult<Expr> {
        self.entry(|p| p.expr())
    }

    /// An assignment expression (no top-level comma): initializers,
    /// arguments.
    pub(super) fn assign_top(&mut self) -> PResult<Expr> {
        self.entry(|p| p.assign())
    }

    /// A conditional expression: `case` labels, template arguments.
    pub(super) fn conditional_top(&mut self) -> PResult<Expr> {
        self.entry(|p| p.conditional())
    }

    fn entry(&mut self, f: impl FnOnce(&mut Self) -> PBox) -> PResult<Expr> {
        self.expr_level += 1;
        let result = f(self);
        self.expr_level -= 1;
        let expr = *result?;
        if self.expr_level == 0 && too_deep(&expr) {
            let span = expr.span;
            dismantle(expr);
            self.diags.push(crate::diag::Diagnostic::error(
                span,
                format!("expression nesting depth exceeds maximum of {MAX_EXPR_DEPTH}"),
            ));
            return Err(Reported);
        }
        Ok(expr)
    }

    /// A full expression inside brackets: one level deeper, and with `>` an
    /// operator again even inside template arguments.
    fn bracketed_expr(&mut self) -> PBox {
        if !self.enter_nesting() {
            return Err(Reported);
        }
        let saved = self.no_gt;
        self.no_gt = false;
        let result = self.expr();
        self.no_gt = saved;
        self.nesting -= 1;
        result
    }

    // ---- precedence levels ----

    fn expr(&mut self) -> PBox {
        let mut lhs = self.assign()?;
        while self.eat(",") {
            let rhs = self.assign()?;
            lhs = comma_node(lhs, rhs);
        }
        Ok(lhs)
    }

    fn assign(&mut self) -> PBox {
        let lhs = self.conditional()?;
        let Some(op) = assign_op(self.peek()) else {
            return Ok(lhs);
        };
        self.advance();
        let rhs = self.nested(|p| p.assign())?;
        Ok(assign_node(op, lhs, rhs))
    }

    fn conditional(&mut self) -> PBox {
        let cond = self.binary(1)?;
        if !self.at("?") {
            return Ok(cond);
        }
        let question = self.advance();
        let then_expr = self.bracketed_expr()?;
        if !self.at(":") {
            self.expected_colon(question);
            return Err(Reported);
        }
        self.advance();
        let else_expr = self.nested(|p| p.assign())?;
        Ok(conditional_node(cond, then_expr, else_expr))
    }

    #[inline(never)]
    fn expected_colon(&mut self, question: Span) {
        let tok = self.peek().clone();
        let d = self
            .diagnostic(&tok, "expected ':'")
            .with_label(question, "to match this '?'");
        self.diags.push(d);
    }

    fn binary(&mut self, min_precedence: u8) -> PBox {
        let mut lhs = self.unary()?;
        while let Some((op, precedence)) = binary_op(self.peek(), self.no_gt) {
            if precedence < min_precedence {
                break;
            }
            self.advance();
            let rhs = self.binary(precedence + 1)?;
            lhs = binary_node(op, lhs, rhs);
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> PBox {
        // `&x` and `*p`: HLSL has no pointers.
        if self.at("&") || self.at("*") {
            let what = if self.at("&") {
                "the address-of operator"
            } else {
                "pointer dereference"
            };
            self.error_here(format!("{what} is not supported: HLSL has no pointers"));
            return Err(Reported);
        }
        if let Some(op) = prefix_op(self.peek()) {
            let start = self.advance();
            let operand = self.nested(|p| p.unary())?;
            let span = start.to(operand.span);
            return Ok(unary_node(op, operand, span));
        }
        if self.at("(")
            && self.at_type_start(1)
            && let Some(cast) = self.try_cast()?
        {
            return Ok(cast);
        }
        let primary = self.primary()?;
        self.postfix(primary)
    }

    /// `(type[dims]) operand`, or `None` (with nothing consumed) when the
    /// parenthesis does not hold just a type.
    #[inline(never)]
    fn try_cast(&mut self) -> PResult<Option<Box<Expr>>> {
        if !self.cast_ahead() {
            return Ok(None);
        }
        let open = self.advance();
        let (ty, array_dims) = self.nested(|p| Ok((p.parse_type(Vec::new())?, p.array_dims()?)))?;
        self.expect_closing(")", open)?;
        let operand = self.nested(|p| p.unary())?;
        let span = open.to(operand.span);
        Ok(Some(node(
            ExprKind::Cast {
                ty,
                array_dims,
                operand,
            },
            span,
        )))
    }

    /// At `(` followed by a type name: whether the parenthesis holds just a
    /// type (`(float3)`, `(vector<float, 2>)`, `(uint[4])`), so that it is
    /// a cast. A scan rather than a trial parse, so that nested parentheses
    /// are never parsed twice.
    fn cast_ahead(&self) -> bool {
        let mut i = 1;
        while self.nth(i).kind == TokenKind::Ident
            && (is_type_modifier(&self.nth(i).text)
                || matches!(self.nth(i).text.as_str(), "const" | "struct"))
        {
            i += 1;
        }
        let name = self.nth(i);
        if name.kind != TokenKind::Ident || !self.is_type_name(&name.text) {
            return false;
        }
        let template = is_template(&name.text) || self.template_names.contains(&name.text);
        i += 1;
        if template && self.nth(i).is_punct("<") {
            let Some(after) = self.skip_angle_brackets(i) else {
                return false;
            };
            i = after;
        }
        while self.nth(i).is_punct("[") {
            let Some(after) = self.skip_brackets(i) else {
                return false;
            };
            i = after;
        }
        self.nth(i).is_punct(")")
    }

    /// From the `<` at `i`, the index after its matching `>`; `<` and `>`
    /// inside parentheses compare and do not count.
    fn skip_angle_brackets(&self, mut i: usize) -> Option<usize> {
        let (mut angles, mut parens) = (0i64, 0i64);
        loop {
            let tok = self.nth(i);
            i += 1;
            match (tok.kind, tok.text.as_str()) {
                (TokenKind::Eof, _) => return None,
                (TokenKind::Punct, "(" | "[") => parens += 1,
                (TokenKind::Punct, ")" | "]") => {
                    parens -= 1;
                    if parens < 0 {
                        return None;
                    }
                }
                (TokenKind::Punct, ";" | "{" | "}") => return None,
                (TokenKind::Punct, "<") if parens == 0 => angles += 1,
                (TokenKind::Punct, ">") if parens == 0 => angles -= 1,
                (TokenKind::Punct, ">>") if parens == 0 => angles -= 2,
                _ => {}
            }
            if angles == 0 && parens == 0 {
                return Some(i);
            }
            if angles < 0 {
                return None;
            }
        }
    }

    /// From the `[` at `i`, the index after its matching `]`.
    fn skip_brackets(&self, mut i: usize) -> Option<usize> {
        let mut depth = 0i64;
        loop {
            let tok = self.nth(i);
            i += 1;
            match (tok.kind, tok.text.as_str()) {
                (TokenKind::Eof, _) | (TokenKind::Punct, ";" | "{" | "}") => return None,
                (TokenKind::Punct, "(" | "[") => depth += 1,
                (TokenKind::Punct, ")" | "]") => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                return Some(i);
            }
        }
    }

    fn postfix(&mut self, mut expr: Box<Expr>) -> PBox {
        loop {
            if self.at("[") {
                let open = self.advance();
                let index = self.bracketed_expr()?;
                let close = self.expect_closing("]", open)?;
                expr = index_node(expr, index, close);
            } else if self.at(".") {
                self.advance();
                expr = self.member(expr)?;
            } else if self.at("->") {
                self.error_here(
                    "member reference with '->': HLSL has no pointers ('this' is a reference); use '.'",
                );
                return Err(Reported);
            } else if self.at("++") || self.at("--") {
                let op = if self.at("++") {
                    UnaryOp::PostInc
                } else {
                    UnaryOp::PostDec
                };
                let end = self.advance();
                let span = expr.span.to(end);
                expr = unary_node(op, expr, span);
            } else {
                return Ok(expr);
            }
        }
    }

    /// After `base.`: a member, a swizzle, or a method call (possibly with
    /// template arguments, `buf.Load<float2>(a)`).
    #[inline(never)]
    fn member(&mut self, base: Box<Expr>) -> PBox {
        if self.peek().kind != TokenKind::Ident {
            self.error_here("expected member name");
            return Err(Reported);
        }
        let tok = self.bump();
        let member = Ident {
            name: tok.text,
            span: tok.span,
        };
        let mut template_args = Vec::new();
        if self.at("<") && self.template_call_ahead() {
            template_args = self.nested(|p| p.method_template_args())?;
        }
        if !self.at("(") {
            let span = base.span.to(member.span);
            return Ok(node(ExprKind::Member { base, member }, span));
        }
        let args = self.call_args()?;
        let span = base.span.to(self.prev_span);
        Ok(node(
            ExprKind::MethodCall {
                receiver: base,
                method: member,
                template_args,
                args,
            },
            span,
        ))
    }

    /// At `<` after a method name: whether `<types>(` follows, so the `<`
    /// opens template arguments rather than comparing.
    fn template_call_ahead(&self) -> bool {
        let first = self.nth(1);
        if first.kind != TokenKind::Ident || !self.is_type_name(&first.text) {
            return false;
        }
        let mut depth: i32 = 1;
        for i in 2..64 {
            let tok = self.nth(i);
            match tok.kind {
                TokenKind::Ident | TokenKind::IntLit => {}
                TokenKind::Punct => match tok.text.as_str() {
                    "," => {}
                    "<" => depth += 1,
                    ">" => depth -= 1,
                    ">>" => depth -= 2,
                    _ => return false,
                },
                _ => return false,
            }
            if depth <= 0 {
                return depth == 0 && self.nth(i + 1).is_punct("(");
            }
        }
        false
    }

    fn method_template_args(&mut self) -> PResult<Vec<TypeExpr>> {
        let open = self.advance();
        let saved = self.no_gt;
        self.no_gt = true;
        let mut args = Vec::new();
        let result = loop {
            match self.parse_type(Vec::new()) {
                Ok(ty) => args.push(ty),
                Err(e) => break Err(e),
            }
            if !self.eat(",") {
                break self.expect_template_close(open);
            }
        };
        self.no_gt = saved;
        result.map(|()| args)
    }

    /// `( args )`.
    fn call_args(&mut self) -> PResult<Vec<Expr>> {
        let open = self.advance();
        if !self.enter_nesting() {
            return Err(Reported);
        }
        let saved = self.no_gt;
        self.no_gt = false;
        let result = self.call_arg_list(open);
        self.no_gt = saved;
        self.nesting -= 1;
        result
    }

    fn call_arg_list(&mut self, open: Span) -> PResult<Vec<Expr>> {
        let mut args = Vec::new();
        if !self.at(")") {
            loop {
                args.push(*self.assign()?);
                if !self.eat(",") {
                    break;
                }
            }
        }
        self.expect_closing(")", open)?;
        Ok(args)
    }

    fn primary(&mut self) -> PBox {
        let tok = self.peek();
        match tok.kind {
            TokenKind::IntLit | TokenKind::FloatLit => {
                let kind = number_kind(&tok.text);
                let span = self.advance();
                Ok(node(kind, span))
            }
            TokenKind::CharLit => {
                let value = char_literal_value(&tok.text);
                let span = self.advance();
                Ok(node(
                    ExprKind::IntLit {
                        value,
                        suffix: IntSuffix::None,
                    },
                    span,
                ))
            }
            TokenKind::StringLit => Ok(self.string_literal()),
            TokenKind::Ident => self.identifier_expr(),
            TokenKind::Punct if tok.text == "(" => {
                let open = self.advance();
                let inner = self.bracketed_expr()?;
                self.expect_closing(")", open)?;
                Ok(inner)
            }
            _ => {
                self.error_here("expected expression");
                Err(Reported)
            }
        }
    }

    /// Adjacent string literals, joined.
    #[inline(never)]
    fn string_literal(&mut self) -> Box<Expr> {
        let first = self.bump();
        let mut text = unescape(&first.text);
        let mut span = first.span;
        while self.peek().kind == TokenKind::StringLit {
            let next = self.bump();
            text.push_str(&unescape(&next.text));
            span = span.to(next.span);
        }
        node(ExprKind::StringLit(text), span)
    }

    #[inline(never)]
    fn identifier_expr(&mut self) -> PBox {
        if self.at_kw("sizeof") && self.nth(1).is_punct("(") && self.at_type_start(2) {
            let start = self.advance();
            let open = self.advance();
            let ty = self.parse_type(Vec::new())?;
            self.expect_closing(")", open)?;
            return Ok(node(ExprKind::SizeOf(ty), start.to(self.prev_span)));
        }
        if self.at_kw("sizeof") {
            // `sizeof(expression)` or `sizeof expression`.
            let start = self.advance();
            let operand = self.unary()?;
            let span = start.to(operand.span);
            return Ok(node(ExprKind::SizeOfExpr(operand), span));
        }
        if self.at_kw("true") || self.at_kw("false") {
            let value = self.at_kw("true");
            let span = self.advance();
            return Ok(node(ExprKind::BoolLit(value), span));
        }
        if self.at_type_start(0) {
            // The type's first token, for the error below.
            let first = self.peek();
            let (span, expansion) = (first.span, first.expansion.clone());
            let ty = self.parse_type(Vec::new())?;
            // `S<T>::f(…)`: a static member function of a struct template's
            // instance, the member function template `S.f` with the
            // struct's arguments.
            if !ty.args.is_empty() && self.at("::") && self.nth(1).kind == TokenKind::Ident {
                self.bump();
                let member = self.bump();
                if !self.at("(") {
                    self.error_here("expected '(' after the member function's name");
                    return Err(Reported);
                }
                let args = self.call_args()?;
                let span = ty.span.to(self.prev_span);
                let name = Ident {
                    name: format!("{}.{}", ty.name.name, member.text),
                    span: ty.name.span.to(member.span),
                };
                return Ok(node(
                    ExprKind::Call {
                        callee: Callee::Template {
                            name,
                            args: ty.args,
                        },
                        args,
                    },
                    span,
                ));
            }
            if !self.at("(") {
                let message = format!(
                    "unexpected type name '{}': expected expression",
                    ty.name.name
                );
                self.diags
                    .push(diagnostic_at(span, expansion.as_deref(), message));
                return Err(Reported);
            }
            let args = self.call_args()?;
            let span = ty.span.to(self.prev_span);
            return Ok(node(
                ExprKind::Call {
                    callee: Callee::Type(ty),
                    args,
                },
                span,
            ));
        }
        if is_keyword(&self.peek().text) {
            self.error_here("expected expression");
            return Err(Reported);
        }
        let tok = self.bump();
        let name = Ident {
            name: self.resolve_name(&tok.text).into_owned(),
            span: tok.span,
        };
        if self.at("<") && self.template_names.contains(&name.name) {
            let template_args = self.nested(|p| p.template_args())?;
            if !self.at("(") {
                self.error_here("expected '(' after the template's arguments");
                return Err(Reported);
            }
            let args = self.call_args()?;
            let span = name.span.to(self.prev_span);
            return Ok(node(
                ExprKind::Call {
                    callee: Callee::Template {
                        name,
                        args: template_args,
                    },
                    args,
                },
                span,
            ));
        }
        if !self.at("(") {
            return Ok(node(ExprKind::Ident(name), tok.span));
        }
        let args = self.call_args()?;
        let span = name.span.to(self.prev_span);
        Ok(node(
            ExprKind::Call {
                callee: Callee::Name(name),
                args,
            },
            span,
        ))
    }
}

/// The literal's value; a malformed literal (already reported by the
/// preprocessor) reads as 0.
fn number_kind(text: &str) -> ExprKind {
    match parse_number(text) {
        Ok(NumberValue::Int { value, suffix }) => ExprKind::IntLit { value, suffix },
        Ok(NumberValue::Float { value, suffix }) => ExprKind::FloatLit { value, suffix },
        Err(_) if crate::lexer::looks_like_float(text) => ExprKind::FloatLit {
            value: 0.0,
            suffix: FloatSuffix::None,
        },
        Err(_) => ExprKind::IntLit {
            value: 0,
            suffix: IntSuffix::None,
        },
    }
}

fn char_literal_value(text: &str) -> u64 {
    unescape(text)
        .chars()
        .next()
        .map_or(0, |c| u64::from(u32::from(c)))
}

/// The contents of a string or character literal with escapes read.
fn unescape(literal: &str) -> String {
    let mut chars = literal.chars();
    let quote = chars.next();
    let mut inner: String = chars.collect();
    if inner.ends_with(|c| Some(c) == quote) {
        inner.pop();
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// Whether the tree is deeper than [`MAX_EXPR_DEPTH`]; iterative, so any
/// depth is safe to measure.
fn too_deep(expr: &Expr) -> bool {
    let mut stack = vec![(expr, 1u32)];
    while let Some((expr, depth)) = stack.pop() {
        if depth > MAX_EXPR_DEPTH {
            return true;
        }
        for_each_child(expr, &mut |child| stack.push((child, depth + 1)));
    }
    false
}

/// Calls `f` on each direct subexpression of `expr`.
fn for_each_child<'e>(expr: &'e Expr, f: &mut impl FnMut(&'e Expr)) {
    match &expr.kind {
        ExprKind::IntLit { .. }
        | ExprKind::FloatLit { .. }
        | ExprKind::BoolLit(_)
        | ExprKind::StringLit(_)
        | ExprKind::SizeOf(_)
        | ExprKind::Ident(_) => {}
        ExprKind::Unary { operand, .. } | ExprKind::SizeOfExpr(operand) => f(operand),
        ExprKind::Binary { lhs, rhs, .. }
        | ExprKind::Assign { lhs, rhs, .. }
        | ExprKind::Comma { lhs, rhs } => {
            f(lhs);
            f(rhs);
        }
        ExprKind::Conditional {
            cond,
            then_expr,
            else_expr,
        } => {
            f(cond);
            f(then_expr);
            f(else_expr);
        }
        ExprKind::Call { callee, args } => {
            args.iter().for_each(&mut *f);
            if let Callee::Type(ty) = callee {
                type_exprs(ty, f);
            }
        }
        ExprKind::MethodCall {
            receiver,
            template_args,
            args,
            ..
        } => {
            f(receiver);
            args.iter().for_each(&mut *f);
            for ty in template_args {
                type_exprs(ty, f);
            }
        }
        ExprKind::Member { base, .. } => f(base),
        ExprKind::Index { base, index } => {
            f(base);
            f(index);
        }
        ExprKind::Cast {
            ty,
            array_dims,
            operand,
        } => {
            f(operand);
            array_dims.iter().flatten().for_each(&mut *f);
            type_exprs(ty, f);
        }
    }
}

/// Calls `f` on the expressions among a type's template arguments (types
/// nest only as deep as the parser's nesting limit allows).
fn type_exprs<'e>(ty: &'e TypeExpr, f: &mut impl FnMut(&'e Expr)) {
    for arg in &ty.args {
        match arg {
            TemplateArg::Expr(e) => f(e),
            TemplateArg::Type(t) => type_exprs(t, f),
        }
    }
}

/// Drops a tree without recursion.
fn dismantle(expr: Expr) {
    let mut stack = vec![expr];
    while let Some(expr) = stack.pop() {
        match expr.kind {
            ExprKind::Unary { operand, .. } | ExprKind::SizeOfExpr(operand) => stack.push(*operand),
            ExprKind::Binary { lhs, rhs, .. }
            | ExprKind::Assign { lhs, rhs, .. }
            | ExprKind::Comma { lhs, rhs } => {
                stack.push(*lhs);
                stack.push(*rhs);
            }
            ExprKind::Conditional {
                cond,
                then_expr,
                else_expr,
            } => {
                stack.push(*cond);
                stack.push(*then_expr);
                stack.push(*else_expr);
            }
            ExprKind::Call { args, .. } => stack.extend(args),
            ExprKind::MethodCall { receiver, args, .. } => {
                stack.push(*receiver);
                stack.extend(args);
            }
            ExprKind::Member { base, .. } => stack.push(*base),
            ExprKind::Index { base, index } => {
                stack.push(*base);
                stack.push(*index);
            }
            ExprKind::Cast {
                operand,
                array_dims,
                ..
            } => {
                stack.push(*operand);
                stack.extend(array_dims.into_iter().flatten());
            }
            ExprKind::IntLit { .. }
            | ExprKind::FloatLit { .. }
            | ExprKind::BoolLit(_)
            | ExprKind::StringLit(_)
            | ExprKind::SizeOf(_)
            | ExprKind::Ident(_) => {}
        }
    }
}
