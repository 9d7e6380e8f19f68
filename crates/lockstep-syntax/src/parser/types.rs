//! Types as written, the keyword tables that decide what is a type, and the
//! small annotations around declarations: attributes, array dimensions,
//! `register(…)` and `packoffset(…)`.

use super::{PResult, Parser, Reported};
use crate::ast::{Attribute, Expr, Ident, RegisterBinding, TemplateArg, TypeExpr};
use crate::lexer::{Token, TokenKind};

/// Words that can never name a variable or function.
pub(super) const KEYWORDS: &[&str] = &[
    "if",
    "else",
    "for",
    "while",
    "do",
    "switch",
    "case",
    "default",
    "break",
    "continue",
    "return",
    "discard",
    "struct",
    "typedef",
    "cbuffer",
    "tbuffer",
    "true",
    "false",
    "static",
    "const",
    "groupshared",
    "uniform",
    "extern",
    "in",
    "out",
    "inout",
    "inline",
    "export",
    "precise",
    "volatile",
    "shared",
    "globallycoherent",
    "namespace",
    "template",
    "class",
    "interface",
    "register",
    "unsigned",
    "signed",
    "row_major",
    "column_major",
    "snorm",
    "unorm",
];

/// Storage classes and other declaration modifiers, kept in
/// `VarDecl::storage` (or `FieldDecl::modifiers`, `Param::modifiers`).
const STORAGE: &[&str] = &[
    "static",
    "const",
    "groupshared",
    "uniform",
    "extern",
    "precise",
    "volatile",
    "shared",
    "globallycoherent",
    "inline",
    "export",
];

/// Interpolation modifiers: modifiers only when a type follows, otherwise
/// ordinary identifiers.
const INTERPOLATION: &[&str] = &[
    "nointerpolation",
    "linear",
    "centroid",
    "noperspective",
    "sample",
];

/// Modifiers that belong to the type (`TypeExpr::modifiers`).
const TYPE_MODIFIERS: &[&str] = &[
    "unsigned",
    "signed",
    "row_major",
    "column_major",
    "snorm",
    "unorm",
];

/// Scalar type names; each also has vector (`float4`) and matrix
/// (`float4x4`) forms.
const SCALARS: &[&str] = &[
    "bool",
    "int",
    "uint",
    "dword",
    "half",
    "float",
    "double",
    "min16float",
    "min10float",
    "min16int",
    "min12int",
    "min16uint",
    "int16_t",
    "uint16_t",
    "int32_t",
    "uint32_t",
    "int64_t",
    "uint64_t",
    "float16_t",
    "float32_t",
    "float64_t",
];

/// Type names taking template arguments.
const TEMPLATES: &[&str] = &[
    "vector",
    "matrix",
    "StructuredBuffer",
    "RWStructuredBuffer",
    "Buffer",
    "RWBuffer",
    "ConstantBuffer",
    "AppendStructuredBuffer",
    "ConsumeStructuredBuffer",
    "Texture1D",
    "Texture2D",
    "Texture3D",
    "Texture1DArray",
    "Texture2DArray",
    "TextureCube",
    "TextureCubeArray",
    "Texture2DMS",
    "Texture2DMSArray",
    "RWTexture1D",
    "RWTexture2D",
    "RWTexture3D",
    "RWTexture1DArray",
    "RWTexture2DArray",
    "RasterizerOrderedBuffer",
    "RasterizerOrderedStructuredBuffer",
    "RasterizerOrderedTexture1D",
    "RasterizerOrderedTexture2D",
    "RasterizerOrderedTexture3D",
    "RasterizerOrderedTexture1DArray",
    "RasterizerOrderedTexture2DArray",
];

/// Other type names, without template arguments.
const PLAIN_TYPES: &[&str] = &[
    "void",
    "string",
    "ByteAddressBuffer",
    "RWByteAddressBuffer",
    "RasterizerOrderedByteAddressBuffer",
    "SamplerState",
    "SamplerComparisonState",
    "uint8_t4_packed",
    "int8_t4_packed",
];

pub(super) fn is_keyword(word: &str) -> bool {
    KEYWORDS.contains(&word)
}

pub(super) fn is_storage(word: &str) -> bool {
    STORAGE.contains(&word)
}

pub(super) fn is_interpolation(word: &str) -> bool {
    INTERPOLATION.contains(&word)
}

pub(super) fn is_type_modifier(word: &str) -> bool {
    TYPE_MODIFIERS.contains(&word)
}

pub(super) fn is_template(word: &str) -> bool {
    TEMPLATES.contains(&word)
}

/// Whether `word` is a built-in type name: a scalar, vector or matrix
/// spelling, a template name or another predefined type.
pub(super) fn is_builtin_type(word: &str) -> bool {
    if is_template(word) || PLAIN_TYPES.contains(&word) {
        return true;
    }
    SCALARS.iter().any(|scalar| {
        word.strip_prefix(scalar)
            .is_some_and(|rest| is_shape_suffix(rest.as_bytes()))
    })
}

/// `""`, `"1"`…`"4"`, or `"RxC"` with R and C in 1…4.
fn is_shape_suffix(rest: &[u8]) -> bool {
    let dim = |b: u8| (b'1'..=b'4').contains(&b);
    match rest {
        [] => true,
        [n] => dim(*n),
        [r, b'x', c] => dim(*r) && dim(*c),
        _ => false,
    }
}

impl Parser<'_> {
    pub(super) fn is_type_name(&self, word: &str) -> bool {
        let name = self.resolve_name(word);
        is_builtin_type(&name) || self.type_names.contains(&*name)
    }

    /// A name as written inside the current namespaces: the innermost
    /// `N::name` declared so far, else the name itself.
    pub(super) fn resolve_name<'w>(&self, word: &'w str) -> std::borrow::Cow<'w, str> {
        // `::name`: the global scope's.
        if let Some(global) = word.strip_prefix("::") {
            return global.into();
        }
        for scope in self.member_scopes.iter().rev() {
            let qualified = format!("{scope}::{word}");
            if self.namespaced.contains(&qualified) {
                return qualified.into();
            }
        }
        for depth in (1..=self.namespace.len()).rev() {
            let qualified = format!("{}::{word}", self.namespace[..depth].join("::"));
            if self.namespaced.contains(&qualified) {
                return qualified.into();
            }
        }
        if let Some((_, _, full)) = self.using_names.iter().rev().find(|(_, n, _)| n == word) {
            return full.clone().into();
        }
        for (_, used) in self.using_namespaces.iter().rev() {
            let qualified = format!("{used}::{word}");
            if self.namespaced.contains(&qualified) {
                return qualified.into();
            }
        }
        word.into()
    }

    /// Whether the token `n` ahead starts a type: a type name or a type
    /// modifier.
    pub(super) fn at_type_start(&self, n: usize) -> bool {
        let tok = self.nth(n);
        tok.kind == TokenKind::Ident
            && (self.is_type_name(&tok.text)
                || is_type_modifier(&tok.text)
                || tok.text == "const"
                || tok.text == "struct")
    }

    /// A type: modifiers, an optional `struct`, the name and template
    /// arguments. `modifiers` were already read by the caller.
    pub(super) fn parse_type(&mut self, mut modifiers: Vec<Ident>) -> PResult<TypeExpr> {
        let start = modifiers.first().map_or(self.peek().span, |m| m.span);
        while self.peek().kind == TokenKind::Ident
            && (is_type_modifier(&self.peek().text) || self.peek().text == "const")
        {
            let tok = self.bump();
            modifiers.push(Ident {
                name: tok.text,
                span: tok.span,
            });
        }
        // After `#pragma pack_matrix(…)`, a type without its own
        // orientation takes the pragma's (which only changes matrices).
        if let Some(row) = self.packing_at(self.pos)
            && !modifiers
                .iter()
                .any(|m| m.name == "row_major" || m.name == "column_major")
        {
            modifiers.push(Ident {
                name: if row { "row_major" } else { "column_major" }.to_string(),
                span: self.peek().span,
            });
        }
        self.eat_kw("struct");
        let sign = modifiers
            .iter()
            .any(|m| m.name == "unsigned" || m.name == "signed");
        let tok = self.peek();
        let is_name = tok.kind == TokenKind::Ident
            && (self.is_type_name(&tok.text) || (!is_keyword(&tok.text) && !sign));
        let name = if is_name {
            let tok = self.bump();
            Ident {
                name: self.resolve_name(&tok.text).into_owned(),
                span: tok.span,
            }
        } else if sign {
            // `unsigned x` means `unsigned int x`.
            let span = modifiers.last().map_or(tok.span, |m| m.span);
            Ident {
                name: "int".to_string(),
                span,
            }
        } else {
            let tok = tok.clone();
            self.error_at(&tok, "expected a type");
            return Err(Reported);
        };
        let mut args = Vec::new();
        if (is_template(&name.name) || self.template_names.contains(&name.name)) && self.at("<") {
            args = self.nested(|p| p.template_args())?;
        }
        Ok(TypeExpr {
            name,
            args,
            modifiers,
            span: start.to(self.prev_span),
        })
    }

    /// `< arg, … >` after a template type name.
    pub(super) fn template_args(&mut self) -> PResult<Vec<TemplateArg>> {
        let open = self.bump();
        let saved = self.no_gt;
        self.no_gt = true;
        let result = self.template_arg_list(&open);
        self.no_gt = saved;
        result
    }

    fn template_arg_list(&mut self, open: &Token) -> PResult<Vec<TemplateArg>> {
        let mut args = Vec::new();
        if self.at(">") {
            self.error_here("expected a type");
            return Err(Reported);
        }
        loop {
            let index = args.len();
            // The first argument is always a type; an unknown name there is
            // left for sema to report.
            let tok = self.peek();
            let plain_ident = tok.kind == TokenKind::Ident && !is_keyword(&tok.text);
            let ends = self.nth(1).is_punct(",") || self.nth(1).is_punct(">");
            let is_type = self.at_type_start(0) || (index == 0 && plain_ident && ends);
            if is_type {
                args.push(TemplateArg::Type(self.parse_type(Vec::new())?));
            } else {
                args.push(TemplateArg::Expr(self.conditional_top()?));
            }
            if !self.eat(",") {
                break;
            }
        }
        self.expect_template_close(open.span)?;
        Ok(args)
    }

    /// Consumes a `>` closing a template argument list, splitting `>>`
    /// (and `>=`, `>>=`) when needed.
    pub(super) fn expect_template_close(&mut self, open: crate::span::Span) -> PResult<()> {
        let tok = self.peek().clone();
        if tok.is_punct(">") {
            self.bump();
            return Ok(());
        }
        if tok.kind == TokenKind::Punct && tok.text.len() > 1 && tok.text.starts_with('>') {
            let span = tok.span;
            let whole = span.end.saturating_sub(span.start) as usize == tok.text.len();
            let (first, rest) = if whole {
                (
                    crate::span::Span::new(span.file, span.start, span.start + 1),
                    crate::span::Span::new(span.file, span.start + 1, span.end),
                )
            } else {
                (span, span)
            };
            self.tokens[self.pos] = Token {
                text: tok.text[1..].to_string(),
                span: rest,
                ..tok
            };
            self.steps.set(0);
            self.prev_span = first;
            return Ok(());
        }
        let d = self
            .diagnostic(&tok, "expected '>'")
            .with_label(open, "to match this '<'");
        self.diags.push(d);
        Err(Reported)
    }

    /// Attributes: `[name]`, `[name(args)]`, and `[[ns::name(args)]]`.
    pub(super) fn attributes(&mut self) -> PResult<Vec<Attribute>> {
        let mut attributes = Vec::new();
        while self.at("[") {
            let open = self.bump();
            let double = self.eat("[");
            let tok = self.peek().clone();
            if tok.kind != TokenKind::Ident {
                self.error_at(&tok, "expected attribute name");
                return Err(Reported);
            }
            self.bump();
            let mut name = Ident {
                name: tok.text,
                span: tok.span,
            };
            while double && self.at("::") {
                self.bump();
                let part = self.peek().clone();
                if part.kind != TokenKind::Ident {
                    self.error_at(&part, "expected attribute name");
                    return Err(Reported);
                }
                self.bump();
                name.name = format!("{}::{}", name.name, part.text);
                name.span = name.span.to(part.span);
            }
            let mut args = Vec::new();
            if self.at("(") {
                let paren = self.bump();
                if !self.at(")") {
                    loop {
                        args.push(self.assign_top()?);
                        if !self.eat(",") {
                            break;
                        }
                    }
                }
                self.expect_closing(")", paren.span)?;
            }
            self.expect_closing("]", open.span)?;
            if double {
                self.expect_closing("]", open.span)?;
            }
            attributes.push(Attribute {
                name,
                args,
                span: open.span.to(self.prev_span),
            });
        }
        Ok(attributes)
    }

    /// `[4][2]` or `[]` after a declarator name.
    pub(super) fn array_dims(&mut self) -> PResult<Vec<Option<Expr>>> {
        let mut dims = Vec::new();
        while self.at("[") {
            let open = self.bump();
            if self.eat("]") {
                dims.push(None);
                continue;
            }
            let size = self.expr_top()?;
            self.expect_closing("]", open.span)?;
            dims.push(Some(size));
        }
        Ok(dims)
    }

    /// `register(u0)`, `register(u0, space1)`, `register(ps_6_0, t0)`; at
    /// the `register` keyword. Invalid bindings are reported and dropped.
    pub(super) fn register(&mut self) -> PResult<Option<RegisterBinding>> {
        let keyword = self.bump();
        let open = self.expect("(", "expected '(' after 'register'")?;
        let mut parts: Vec<Token> = Vec::new();
        while !self.at(")") && !self.at_eof() {
            let tok = self.peek().clone();
            if tok.kind != TokenKind::Ident {
                self.error_at(&tok, "expected register name");
                return Err(Reported);
            }
            self.bump();
            parts.push(tok);
            if !self.eat(",") {
                break;
            }
        }
        self.expect_closing(")", open.span)?;
        let span = keyword.span.to(self.prev_span);
        // A shader-profile prefix (`ps_5_0`) is accepted and ignored.
        let parts: Vec<&Token> = parts.iter().filter(|t| !t.text.contains('_')).collect();
        let (spaces, slots): (Vec<&Token>, Vec<&Token>) =
            parts.iter().partition(|t| t.text.starts_with("space"));
        let mut space = 0;
        if let Some(tok) = spaces.first() {
            match tok.text["space".len()..].parse::<u32>() {
                Ok(n) => space = n,
                Err(_) => {
                    self.error_at(
                        tok,
                        format!(
                            "invalid space specifier '{}' used; expected 'space' followed by an integer, like space1",
                            tok.text
                        ),
                    );
                    return Ok(None);
                }
            }
        }
        let Some(slot) = slots.first() else {
            self.error_at(&keyword, "expected register name");
            return Ok(None);
        };
        let mut chars = slot.text.chars();
        let class = chars.next().map(|c| c.to_ascii_lowercase());
        let index = chars.as_str().parse::<u32>();
        match (class, index) {
            (Some(class @ ('b' | 'c' | 's' | 't' | 'u')), Ok(index)) => Ok(Some(RegisterBinding {
                class,
                index,
                space,
                span,
            })),
            _ => {
                self.error_at(
                    slot,
                    "invalid register specification, expected 'b', 'c', 's', 't', or 'u' binding",
                );
                Ok(None)
            }
        }
    }

    /// `packoffset(c0.x)`, kept as written (`c0.x`); at the keyword.
    pub(super) fn packoffset(&mut self) -> PResult<Ident> {
        self.bump();
        let open = self.expect("(", "expected '(' after 'packoffset'")?;
        let mut name = String::new();
        let mut span = None::<crate::span::Span>;
        while !self.at(")") && !self.at_eof() {
            let tok = self.peek().clone();
            if !(tok.kind == TokenKind::Ident || tok.kind == TokenKind::IntLit || tok.is_punct("."))
            {
                self.error_at(&tok, "expected packoffset component");
                return Err(Reported);
            }
            self.bump();
            name.push_str(&tok.text);
            span = Some(span.map_or(tok.span, |s| s.to(tok.span)));
        }
        self.expect_closing(")", open.span)?;
        Ok(Ident {
            name,
            span: span.unwrap_or(open.span),
        })
    }
}
