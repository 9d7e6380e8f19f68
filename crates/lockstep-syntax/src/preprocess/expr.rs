//! Evaluation of `#if` / `#elif` expressions: C integer constant
//! expressions over 64-bit values, after macro expansion and `defined`.

use crate::ast::IntSuffix;
use crate::lexer::{NumberValue, Token, TokenKind, parse_number};
use crate::span::Span;

/// Parentheses and unary operators nest at most this deep.
const MAX_DEPTH: u32 = 256;

/// An intermediate value: the bits of an `intmax_t` or `uintmax_t`.
#[derive(Clone, Copy, Debug)]
struct Value {
    bits: u64,
    unsigned: bool,
}

impl Value {
    fn signed(bits: i64) -> Value {
        Value {
            bits: bits as u64,
            unsigned: false,
        }
    }

    fn truth(b: bool) -> Value {
        Value::signed(i64::from(b))
    }

    fn is_true(self) -> bool {
        self.bits != 0
    }
}

type Error = (Span, String);

/// Evaluates the expanded tokens of an `#if`; `end` is where a missing
/// operand is reported. Identifiers left after expansion are 0.
pub(super) fn evaluate(tokens: &[Token], end: Span) -> Result<bool, Error> {
    let mut eval = Eval {
        tokens,
        pos: 0,
        end,
        depth: 0,
    };
    let value = eval.comma(true)?;
    if let Some(extra) = eval.peek() {
        let message = if extra.is_punct(")") {
            "expected end of line in preprocessor expression"
        } else {
            "token is not a valid binary operator in a preprocessor subexpression"
        };
        return Err((extra.span, message.to_string()));
    }
    Ok(value.is_true())
}

struct Eval<'t> {
    tokens: &'t [Token],
    pos: usize,
    end: Span,
    depth: u32,
}

/// Binary operators and their precedence (higher binds tighter).
fn binary_precedence(tok: &Token) -> Option<u8> {
    if tok.kind != TokenKind::Punct {
        return None;
    }
    Some(match tok.text.as_str() {
        "||" => 1,
        "&&" => 2,
        "|" => 3,
        "^" => 4,
        "&" => 5,
        "==" | "!=" => 6,
        "<" | ">" | "<=" | ">=" => 7,
        "<<" | ">>" => 8,
        "+" | "-" => 9,
        "*" | "/" | "%" => 10,
        _ => return None,
    })
}

impl Eval<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn at(&self, punct: &str) -> bool {
        self.peek().is_some_and(|t| t.is_punct(punct))
    }

    fn here(&self) -> Span {
        self.peek().map_or(self.end, |t| t.span)
    }

    fn enter(&mut self) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err((
                self.here(),
                "preprocessor expression nested too deeply".to_string(),
            ));
        }
        Ok(())
    }

    fn comma(&mut self, live: bool) -> Result<Value, Error> {
        let mut value = self.conditional(live)?;
        while self.at(",") {
            self.pos += 1;
            value = self.conditional(live)?;
        }
        Ok(value)
    }

    fn conditional(&mut self, live: bool) -> Result<Value, Error> {
        let cond = self.binary(1, live)?;
        if !self.at("?") {
            return Ok(cond);
        }
        self.pos += 1;
        self.enter()?;
        let then_value = self.comma(live && cond.is_true())?;
        if !self.at(":") {
            return Err((
                self.here(),
                "expected ':' in preprocessor expression".to_string(),
            ));
        }
        self.pos += 1;
        let else_value = self.conditional(live && !cond.is_true())?;
        self.depth -= 1;
        let unsigned = then_value.unsigned || else_value.unsigned;
        let chosen = if cond.is_true() {
            then_value
        } else {
            else_value
        };
        Ok(Value {
            bits: chosen.bits,
            unsigned,
        })
    }

    fn binary(&mut self, min_precedence: u8, live: bool) -> Result<Value, Error> {
        let mut lhs = self.unary(live)?;
        while let Some(op) = self
            .peek()
            .filter(|t| binary_precedence(t).is_some_and(|p| p >= min_precedence))
        {
            let precedence = binary_precedence(op).unwrap_or(u8::MAX);
            let (op, span) = (op.text.clone(), op.span);
            self.pos += 1;
            let rhs_live = match op.as_str() {
                "&&" => live && lhs.is_true(),
                "||" => live && !lhs.is_true(),
                _ => live,
            };
            let rhs = self.binary(precedence + 1, rhs_live)?;
            lhs = apply(&op, lhs, rhs, live, span)?;
        }
        Ok(lhs)
    }

    fn unary(&mut self, live: bool) -> Result<Value, Error> {
        let Some(tok) = self.peek() else {
            return Err((self.end, "expected value in expression".to_string()));
        };
        if tok.kind == TokenKind::Punct && matches!(tok.text.as_str(), "+" | "-" | "~" | "!" | "(")
        {
            let op = tok.text.clone();
            self.pos += 1;
            self.enter()?;
            let value = if op == "(" {
                let inner = self.comma(live)?;
                if !self.at(")") {
                    return Err((
                        self.here(),
                        "expected ')' in preprocessor expression".to_string(),
                    ));
                }
                self.pos += 1;
                inner
            } else {
                let operand = self.unary(live)?;
                match op.as_str() {
                    "+" => operand,
                    "-" => Value {
                        bits: operand.bits.wrapping_neg(),
                        ..operand
                    },
                    "~" => Value {
                        bits: !operand.bits,
                        ..operand
                    },
                    _ => Value::truth(!operand.is_true()),
                }
            };
            self.depth -= 1;
            return Ok(value);
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Value, Error> {
        let Some(tok) = self.peek() else {
            return Err((self.end, "expected value in expression".to_string()));
        };
        let value = match tok.kind {
            TokenKind::IntLit => match parse_number(&tok.text) {
                Ok(NumberValue::Int { value, suffix }) => Value {
                    bits: value,
                    unsigned: matches!(suffix, IntSuffix::U | IntSuffix::UL | IntSuffix::ULL)
                        || value > i64::MAX as u64,
                },
                _ => {
                    return Err((
                        tok.span,
                        "invalid integer constant in preprocessor expression".to_string(),
                    ));
                }
            },
            TokenKind::FloatLit => {
                return Err((
                    tok.span,
                    "floating point literal in preprocessor expression".to_string(),
                ));
            }
            TokenKind::CharLit => Value::signed(char_value(&tok.text)),
            TokenKind::Ident => Value::truth(tok.text == "true"),
            _ if tok.is_punct(")") || tok.kind == TokenKind::Eof => {
                return Err((tok.span, "expected value in expression".to_string()));
            }
            _ => {
                return Err((
                    tok.span,
                    "invalid token at start of a preprocessor expression".to_string(),
                ));
            }
        };
        self.pos += 1;
        Ok(value)
    }
}

/// The value of a character literal: its first character, escapes read.
fn char_value(text: &str) -> i64 {
    let inner = text.strip_prefix('\'').unwrap_or(text);
    let mut chars = inner.chars();
    match chars.next() {
        Some('\\') => match chars.next() {
            Some('n') => 10,
            Some('t') => 9,
            Some('r') => 13,
            Some('0') => 0,
            Some(c) => i64::from(u32::from(c)),
            None => 0,
        },
        Some(c) if c != '\'' => i64::from(u32::from(c)),
        _ => 0,
    }
}

fn apply(op: &str, lhs: Value, rhs: Value, live: bool, span: Span) -> Result<Value, Error> {
    let unsigned = lhs.unsigned || rhs.unsigned;
    let (l, r) = (lhs.bits, rhs.bits);
    let ordering = if unsigned {
        l.cmp(&r)
    } else {
        (l as i64).cmp(&(r as i64))
    };
    let arith = |bits: u64| Value { bits, unsigned };
    Ok(match op {
        "*" => arith(l.wrapping_mul(r)),
        "/" | "%" => {
            if r == 0 {
                if live {
                    return Err((
                        span,
                        "division by zero in preprocessor expression".to_string(),
                    ));
                }
                arith(0)
            } else if unsigned {
                arith(if op == "/" { l / r } else { l % r })
            } else {
                let (a, b) = (l as i64, r as i64);
                arith(if op == "/" {
                    a.wrapping_div(b)
                } else {
                    a.wrapping_rem(b)
                } as u64)
            }
        }
        "+" => arith(l.wrapping_add(r)),
        "-" => arith(l.wrapping_sub(r)),
        "<<" => Value {
            bits: if r >= 64 { 0 } else { l << r },
            ..lhs
        },
        ">>" => Value {
            bits: match (lhs.unsigned, r >= 64) {
                (true, true) => 0,
                (true, false) => l >> r,
                (false, big) => ((l as i64) >> if big { 63 } else { r }) as u64,
            },
            ..lhs
        },
        "<" => Value::truth(ordering.is_lt()),
        ">" => Value::truth(ordering.is_gt()),
        "<=" => Value::truth(ordering.is_le()),
        ">=" => Value::truth(ordering.is_ge()),
        "==" => Value::truth(l == r),
        "!=" => Value::truth(l != r),
        "&" => arith(l & r),
        "^" => arith(l ^ r),
        "|" => arith(l | r),
        "&&" => Value::truth(lhs.is_true() && rhs.is_true()),
        "||" => Value::truth(lhs.is_true() || rhs.is_true()),
        _ => lhs,
    })
}
