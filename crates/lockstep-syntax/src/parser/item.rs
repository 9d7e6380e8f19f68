//! Top-level declarations: functions, global variables, structs, typedefs
//! and constant buffers; also the declarator syntax they share with local
//! declarations.

use super::types::{is_interpolation, is_keyword, is_storage, is_type_modifier};
use super::{PResult, Parser, Reported};
use crate::ast::{
    Attribute, BinaryOp, CBufferDecl, CBufferKind, Declarator, Expr, ExprKind, FieldDecl,
    FunctionDecl, Ident, Initializer, IntSuffix, Item, Param, ParamDirection, StructDecl,
    TemplateArg, TemplateParam, TranslationUnit, TypeExpr, TypedefDecl, VarDecl,
};
use crate::diag::Diagnostic;
use crate::lexer::TokenKind;
use crate::span::Span;

/// Modifiers read before a type: those the declaration keeps, and those
/// that belong to the type.
pub(super) struct Specifiers {
    pub(super) storage: Vec<Ident>,
    pub(super) type_modifiers: Vec<Ident>,
}

impl Parser<'_> {
    pub(super) fn translation_unit(&mut self) -> TranslationUnit {
        let mut items = Vec::new();
        while !self.at_eof() {
            let before = self.pos;
            let first = items.len();
            if self.item(&mut items).is_err() {
                self.recover_item();
            }
            items.splice(first..first, std::mem::take(&mut self.hoisted));
            if self.pos == before && !self.at_eof() {
                self.bump();
            }
        }
        TranslationUnit {
            items,
            pragmas: Vec::new(),
        }
    }

    fn item(&mut self, items: &mut Vec<Item>) -> PResult<()> {
        let start = self.peek().span;
        let attributes = self.attributes()?;
        let tok = self.peek().clone();
        if tok.is_punct(";") {
            self.bump();
            return Ok(());
        }
        if tok.is_punct("}") {
            self.bump();
            self.error_at(&tok, "extraneous closing brace ('}')");
            return Ok(());
        }
        match tok.text.as_str() {
            // HLSL's classes are structs: every member is public.
            "struct" | "class" if tok.kind == TokenKind::Ident => {
                self.struct_item(start, attributes, items)
            }
            "typedef" if tok.kind == TokenKind::Ident => self.typedef(items),
            "using" if tok.kind == TokenKind::Ident => self.using(items),
            "cbuffer" | "tbuffer" if tok.kind == TokenKind::Ident => {
                let mut c = self.cbuffer()?;
                c.attributes = attributes;
                items.push(Item::CBuffer(c));
                Ok(())
            }
            "namespace" if tok.kind == TokenKind::Ident => self.namespace_item(items),
            "enum" if tok.kind == TokenKind::Ident => self.enum_item(items),
            "template" if tok.kind == TokenKind::Ident => self.template_item(items),
            "interface" if tok.kind == TokenKind::Ident => {
                self.error_at(
                    &tok,
                    format!("'{}' declarations are not supported", tok.text),
                );
                Err(Reported)
            }
            _ => {
                let specifiers = self.specifiers();
                // `static struct S { … } s;`: the struct, then its
                // variables with the storage classes read before it.
                if (self.at_kw("struct") || self.at_kw("class"))
                    && self.nth(2).is_punct("{")
                    && specifiers.type_modifiers.is_empty()
                {
                    let first = items.len();
                    self.struct_item(start, attributes, items)?;
                    for item in &mut items[first..] {
                        if let Item::Variable(v) = item {
                            v.storage = specifiers.storage.clone();
                        }
                    }
                    return Ok(());
                }
                self.check_type_start(&specifiers.type_modifiers)?;
                let ty = self.parse_type(specifiers.type_modifiers)?;
                let item = self.declaration_rest(start, attributes, specifiers.storage, ty)?;
                items.push(item);
                Ok(())
            }
        }
    }

    /// Reads storage classes and type modifiers (in any order).
    pub(super) fn specifiers(&mut self) -> Specifiers {
        let mut specifiers = Specifiers {
            storage: Vec::new(),
            type_modifiers: Vec::new(),
        };
        loop {
            let tok = self.peek();
            if tok.kind != TokenKind::Ident {
                break;
            }
            let word = tok.text.as_str();
            let storage = is_storage(word)
                || (is_interpolation(word) && self.nth(1).kind == TokenKind::Ident);
            let type_modifier = is_type_modifier(word);
            if !storage && !type_modifier {
                break;
            }
            let tok = self.bump();
            let ident = Ident {
                name: tok.text,
                span: tok.span,
            };
            if storage {
                specifiers.storage.push(ident);
            } else {
                specifiers.type_modifiers.push(ident);
            }
        }
        specifiers
    }

    /// Reports a declaration that does not start with a type; an unknown
    /// name followed by a name (`flaot x;`) is reported and parsed on.
    pub(super) fn check_type_start(&mut self, type_modifiers: &[Ident]) -> PResult<()> {
        // `unsigned x` means `unsigned int x`.
        let implicit_int = type_modifiers
            .iter()
            .any(|m| m.name == "unsigned" || m.name == "signed");
        if self.at_type_start(0) || implicit_int {
            return Ok(());
        }
        let tok = self.peek().clone();
        let unsupported = match tok.text.as_str() {
            "virtual" => Some("virtual functions are not supported in HLSL"),
            "explicit" | "friend" | "mutable" => {
                Some("this C++ specifier is not supported in HLSL")
            }
            "public" | "private" | "protected" if self.nth(1).is_punct(":") => Some(
                "access specifiers are not supported: every member of an HLSL struct is public",
            ),
            "operator" => {
                Some("overloading a non-member operator is not allowed: declare it in the struct")
            }
            "~" => Some("constructors and destructors are not supported in HLSL"),
            _ => None,
        };
        if let Some(message) =
            unsupported.filter(|_| tok.kind == TokenKind::Ident || tok.text == "~")
        {
            self.error_at(&tok, message);
            return Err(Reported);
        }
        if tok.kind == TokenKind::Ident && !is_keyword(&tok.text) {
            let next = self.nth(1);
            if next.kind == TokenKind::Ident && !is_keyword(&next.text) {
                self.error_at(&tok, format!("unknown type name '{}'", tok.text));
                return Ok(());
            }
        }
        self.error_at(&tok, "expected a type");
        Err(Reported)
    }

    /// After the type of a top-level declaration: a function or variables.
    fn declaration_rest(
        &mut self,
        start: Span,
        attributes: Vec<Attribute>,
        storage: Vec<Ident>,
        ty: TypeExpr,
    ) -> PResult<Item> {
        if self.at("*") || self.at("&") {
            self.error_here("pointers and references are not supported in HLSL");
            return Err(Reported);
        }
        if self.at_kw("operator") {
            self.error_here(
                "overloading a non-member operator is not allowed: declare it in the struct",
            );
            return Err(Reported);
        }
        let mut name = self.ident("expected identifier")?;
        // `template <> T f<T>(…)`: the arguments of an explicit
        // specialization.
        let mut specializes = None;
        if self.at("<") && self.template_names.contains(&name.name) {
            let args = self.nested(|p| p.template_args())?;
            let base = name.name.clone();
            name.name = format!("{base}<#{}>", self.pos);
            specializes = Some((base, args));
        }
        if self.at("(") {
            let mut f = self.function(start, attributes, storage, ty, name)?;
            f.specializes = specializes;
            // `float S::f() { … }`: a member function of `S` defined
            // outside it.
            if let Some((owner, _)) = f.name.name.rsplit_once("::")
                && !self.type_names.contains(owner)
                && !self.namespaced.contains(&f.name.name)
            {
                self.diags.push(Diagnostic::error(
                    f.name.span,
                    format!(
                        "'{owner}' names no struct or namespace that declares '{}'",
                        f.name.name
                    ),
                ));
                return Err(Reported);
            }
            if let Some((owner, member)) = f.name.name.rsplit_once("::")
                && self.type_names.contains(owner)
            {
                let owner = Ident {
                    name: owner.to_string(),
                    span: f.name.span,
                };
                f.name.name = format!("{}.{member}", owner.name);
                if !self.static_members.contains(&f.name.name) {
                    f.params.insert(0, this_param(&owner, f.name.span));
                }
            }
            return Ok(Item::Function(f));
        }
        // Vulkan's `[[vk::binding(…)]]` and its kind are kept (DXC reads
        // them for SPIR-V and passes over them for DXIL); others do nothing.
        let (vulkan, others): (Vec<Attribute>, Vec<Attribute>) = attributes
            .into_iter()
            .partition(|a| a.name.name.starts_with("vk::"));
        if let Some(attribute) = others.first() {
            self.diags.push(Diagnostic::warning(
                attribute.span,
                "attributes on variable declarations are ignored",
            ));
        }
        let declarators = self.declarators(name)?;
        // `SamplerState s { Filter = …; };`: an effect state block, which
        // DXC ignores with a warning.
        if self.at("{") {
            let at = self.peek().span;
            self.skip_balanced();
            self.diags.push(Diagnostic::warning(
                at.to(self.prev_span),
                "effect state block ignored: effect syntax is deprecated (samplers take their state from the pipeline)",
            ));
        }
        self.expect_semi("expected ';' after top level declarator");
        Ok(Item::Variable(VarDecl {
            attributes: vulkan,
            storage,
            ty,
            declarators,
            span: start.to(self.prev_span),
        }))
    }

    fn function(
        &mut self,
        start: Span,
        attributes: Vec<Attribute>,
        storage: Vec<Ident>,
        mut return_type: TypeExpr,
        name: Ident,
    ) -> PResult<FunctionDecl> {
        // `const` before a return type qualifies the type.
        let (consts, storage): (Vec<Ident>, Vec<Ident>) =
            storage.into_iter().partition(|s| s.name == "const");
        return_type.modifiers.splice(0..0, consts);
        // A function template may name itself with arguments in its body.
        if self.in_template {
            self.template_names.insert(name.name.clone());
        }
        let open = self.bump();
        let mut params = Vec::new();
        if self.at_kw("void") && self.nth(1).is_punct(")") {
            self.bump();
        }
        if !self.at(")") {
            loop {
                match self.nested(|p| p.param()) {
                    Ok(param) => params.push(param),
                    Err(Reported) if self.recover_param() => continue,
                    Err(Reported) => break,
                }
                if !self.eat(",") {
                    break;
                }
            }
        }
        self.expect_closing(")", open.span)?;
        // A member function that leaves its object as it is.
        self.eat_kw("const");
        let semantic = if self.eat(":") {
            Some(self.ident("expected semantic name")?)
        } else {
            None
        };
        let body = if self.at("{") {
            // A member function's body inside a local struct returns to
            // the enclosing function's.
            let outer = self.function.replace(name.name.clone());
            let body = self.block();
            self.function = outer;
            Some(body?)
        } else if self.eat(";") {
            None
        } else {
            self.error_here("expected function body after function declarator");
            return Err(Reported);
        };
        Ok(FunctionDecl {
            attributes,
            storage,
            return_type,
            name,
            params,
            semantic,
            body,
            template_params: Vec::new(),
            specializes: None,
            span: start.to(self.prev_span),
        })
    }

    fn param(&mut self) -> PResult<Param> {
        let start = self.peek().span;
        let mut direction = ParamDirection::In;
        let mut modifiers = Vec::new();
        let mut type_modifiers = Vec::new();
        // Whether the previous token was `in` (for `in out`).
        let mut after_in = false;
        loop {
            let tok = self.peek();
            if tok.kind != TokenKind::Ident {
                break;
            }
            let word = tok.text.as_str();
            let is_in = word == "in";
            match word {
                "in" => {
                    direction = if direction == ParamDirection::Out {
                        ParamDirection::InOut
                    } else {
                        direction
                    }
                }
                "out" => {
                    direction = if direction == ParamDirection::In && after_in {
                        ParamDirection::InOut
                    } else {
                        ParamDirection::Out
                    }
                }
                "inout" => direction = ParamDirection::InOut,
                _ if is_storage(word)
                    || (is_interpolation(word) && self.nth(1).kind == TokenKind::Ident) =>
                {
                    let tok = self.bump();
                    modifiers.push(Ident {
                        name: tok.text,
                        span: tok.span,
                    });
                    after_in = false;
                    continue;
                }
                _ if is_type_modifier(word) => {
                    let tok = self.bump();
                    type_modifiers.push(Ident {
                        name: tok.text,
                        span: tok.span,
                    });
                    after_in = false;
                    continue;
                }
                _ => break,
            }
            after_in = is_in;
            self.advance();
        }
        self.check_type_start(&type_modifiers)?;
        let ty = self.parse_type(type_modifiers)?;
        let name = if self.peek().kind == TokenKind::Ident && !is_keyword(&self.peek().text) {
            self.ident("expected identifier")?
        } else {
            // An unnamed parameter, as in a prototype.
            Ident {
                name: String::new(),
                span: Span::new(ty.span.file, ty.span.end, ty.span.end),
            }
        };
        let array_dims = self.array_dims()?;
        let semantic = if self.eat(":") {
            Some(self.ident("expected semantic name")?)
        } else {
            None
        };
        let default = if self.eat("=") {
            Some(self.assign_top()?)
        } else {
            None
        };
        Ok(Param {
            direction,
            modifiers,
            ty,
            name,
            array_dims,
            semantic,
            default,
            span: start.to(self.prev_span),
        })
    }

    /// Skips the rest of a broken parameter: up to the next `,` (consumed)
    /// or the closing `)`, without leaving the parameter list. Returns
    /// whether a `,` was consumed (another parameter follows).
    fn recover_param(&mut self) -> bool {
        let mut depth = 0u32;
        loop {
            let tok = self.peek();
            if tok.kind == TokenKind::Eof || tok.is_punct("{") || tok.is_punct(";") {
                return false;
            }
            if depth == 0 && tok.is_punct(")") {
                return false;
            }
            if depth == 0 && tok.is_punct(",") {
                self.bump();
                return true;
            }
            if tok.is_punct("(") || tok.is_punct("[") {
                depth += 1;
            } else if tok.is_punct(")") || tok.is_punct("]") {
                depth = depth.saturating_sub(1);
            }
            self.bump();
        }
    }

    /// `name [dims] [: annotations] [= init], …` with the first name read.
    pub(super) fn declarators(&mut self, first: Ident) -> PResult<Vec<Declarator>> {
        let mut declarators = vec![self.declarator_rest(first)?];
        while self.eat(",") {
            let name = self.ident("expected identifier")?;
            declarators.push(self.declarator_rest(name)?);
        }
        Ok(declarators)
    }

    fn declarator_rest(&mut self, name: Ident) -> PResult<Declarator> {
        let array_dims = self.array_dims()?;
        let mut register = None;
        let mut packoffset = None;
        let mut semantic = None;
        while self.eat(":") {
            if self.at_kw("register") {
                register = self.register()?;
            } else if self.at_kw("packoffset") && self.nth(1).is_punct("(") {
                packoffset = Some(self.packoffset()?);
            } else {
                semantic = Some(self.ident("expected semantic name")?);
            }
        }
        let init = if self.eat("=") {
            Some(self.initializer()?)
        } else {
            None
        };
        let span = name.span.to(self.prev_span);
        Ok(Declarator {
            name,
            array_dims,
            register,
            packoffset,
            semantic,
            init,
            span,
        })
    }

    /// An expression or a `{ … }` list.
    fn initializer(&mut self) -> PResult<Initializer> {
        if !self.at("{") {
            return Ok(Initializer::Expr(self.assign_top()?));
        }
        self.nested(|p| {
            let open = p.bump();
            let mut items = Vec::new();
            while !p.at("}") {
                items.push(p.initializer()?);
                if !p.eat(",") {
                    break;
                }
            }
            p.expect_closing("}", open.span)?;
            Ok(Initializer::List(items, open.span.to(p.prev_span)))
        })
    }

    /// `struct S { … };`, `struct S { … } s;`, `struct S;` or `struct S s;`.
    pub(super) fn struct_item(
        &mut self,
        start: Span,
        attributes: Vec<Attribute>,
        items: &mut Vec<Item>,
    ) -> PResult<()> {
        self.bump();
        if self.at("{") {
            self.error_here("anonymous structs are not supported");
            self.skip_balanced();
            return Err(Reported);
        }
        let name = self.ident("expected identifier")?;
        self.declare_type_name(&name.name);
        if self.eat(";") {
            return Ok(());
        }
        let ty = TypeExpr {
            name: name.clone(),
            args: Vec::new(),
            modifiers: Vec::new(),
            span: name.span,
        };
        let base = if self.eat(":") {
            // `public` is the only access HLSL has, and the default.
            if self.at("public") {
                self.bump();
            }
            let base = self.parse_type(Vec::new())?;
            if self.at(",") {
                self.error_here("a struct may have only one base");
                return Err(Reported);
            }
            Some(base)
        } else {
            None
        };
        if !self.at("{") {
            if base.is_some() {
                self.error_here("expected '{' after the base of a struct");
                return Err(Reported);
            }
            // `struct S s;`: a declaration naming the type C-style.
            let item = self.declaration_rest(start, attributes, Vec::new(), ty)?;
            items.push(item);
            return Ok(());
        }
        self.member_scopes.push(self.qualified(&name.name));
        let body = self.struct_body();
        self.member_scopes.pop();
        let (fields, methods) = body?;
        items.push(Item::Struct(StructDecl {
            name: name.clone(),
            base,
            template_params: Vec::new(),
            fields,
            span: start.to(self.prev_span),
        }));
        self.member_functions(&name, methods, items);
        let next = self.peek();
        if next.kind == TokenKind::Ident
            && !is_keyword(&next.text)
            && !self.is_type_name(&next.text)
        {
            let var_start = self.peek().span;
            let first = self.ident("expected identifier")?;
            let declarators = self.declarators(first)?;
            items.push(Item::Variable(VarDecl {
                attributes: Vec::new(),
                storage: Vec::new(),
                ty,
                declarators,
                span: var_start.to(self.prev_span),
            }));
        }
        self.expect_semi("expected ';' after struct");
        Ok(())
    }

    fn struct_body(&mut self) -> PResult<(Vec<FieldDecl>, Vec<FunctionDecl>)> {
        let open = self.bump();
        let mut fields = Vec::new();
        let mut methods = Vec::new();
        while !self.at("}") && !self.at_eof() {
            if self.fields(&mut fields, &mut methods).is_err() {
                self.recover_stmt();
            }
        }
        self.expect_closing("}", open.span)?;
        Ok((fields, methods))
    }

    /// A struct's member functions as functions of their own, after the
    /// struct: `S.f`, taking the object as an `inout S this` first
    /// parameter (`static` ones take none). Every one is declared before
    /// any is defined, so that they may call each other in any order.
    fn member_functions(
        &mut self,
        name: &Ident,
        methods: Vec<FunctionDecl>,
        items: &mut Vec<Item>,
    ) {
        let functions: Vec<FunctionDecl> = methods
            .into_iter()
            .map(|mut f| {
                f.name = Ident {
                    name: format!("{}.{}", name.name, f.name.name),
                    span: f.name.span,
                };
                if let Some(at) = f.storage.iter().position(|s| s.name == "static") {
                    f.storage.remove(at);
                    self.static_members.insert(f.name.name.clone());
                } else {
                    f.params.insert(0, this_param(name, f.name.span));
                }
                f
            })
            .collect();
        for f in &functions {
            items.push(Item::Function(FunctionDecl {
                body: None,
                ..f.clone()
            }));
        }
        items.extend(functions.into_iter().map(Item::Function));
    }

    /// One field line: `[modifiers] type a [: SEM], b[2];`, or a member
    /// function.
    fn fields(
        &mut self,
        fields: &mut Vec<FieldDecl>,
        methods: &mut Vec<FunctionDecl>,
    ) -> PResult<()> {
        let start = self.peek().span;
        let specifiers = self.specifiers();
        self.check_type_start(&specifiers.type_modifiers)?;
        let ty = self.parse_type(specifiers.type_modifiers)?;
        if specifiers.storage.iter().any(|s| s.name == "static") && !self.nth(1).is_punct("(") {
            return self.static_data_member(start, specifiers.storage, ty);
        }
        // `S(…)` or `~S()` in `struct S`: a constructor or destructor.
        let own = self
            .member_scopes
            .last()
            .is_some_and(|scope| scope.rsplit("::").next() == Some(ty.name.name.as_str()));
        if own && self.at("(") {
            self.error_here("constructors and destructors are not supported in HLSL");
            return Err(Reported);
        }
        if self.at("*") || self.at("&") {
            self.error_here("pointers and references are not supported in HLSL");
            return Err(Reported);
        }
        loop {
            let mut name = self.ident("expected member name")?;
            if name.name == "operator" {
                name = self.operator_name(name)?;
            }
            if self.at("(") {
                // A member function's name is no template name of its own.
                let outer = std::mem::replace(&mut self.in_template, false);
                let method = self.function(start, Vec::new(), specifiers.storage, ty, name);
                self.in_template = outer;
                methods.push(method?);
                return Ok(());
            }
            let array_dims = self.array_dims()?;
            if self.at(":") && self.nth(1).kind == TokenKind::IntLit {
                self.bump();
                self.error_here("not supported: bit fields");
                return Err(Reported);
            }
            let semantic = if self.eat(":") {
                Some(self.ident("expected semantic name")?)
            } else {
                None
            };
            if self.at("=") {
                self.error_here("struct fields cannot have initializers");
                return Err(Reported);
            }
            fields.push(FieldDecl {
                modifiers: specifiers.storage.clone(),
                ty: ty.clone(),
                name,
                array_dims,
                semantic,
                span: start.to(self.prev_span),
            });
            if !self.eat(",") {
                break;
            }
        }
        self.expect_semi("expected ';' at end of declaration list");
        Ok(())
    }

    /// After `operator` in a struct: the operator a member function
    /// overloads, as its name (`operator+`, `operator[]`, `operator()`).
    fn operator_name(&mut self, keyword: Ident) -> PResult<Ident> {
        const OPERATORS: &[&str] = &[
            "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "==", "!=", "<", "<=", ">", ">=",
            "!", "~",
        ];
        let tok = self.peek().clone();
        let symbol = if tok.is_punct("[") && self.nth(1).is_punct("]") {
            self.bump();
            self.bump();
            "[]".to_string()
        } else if tok.is_punct("(") && self.nth(1).is_punct(")") && self.nth(2).is_punct("(") {
            self.bump();
            self.bump();
            "()".to_string()
        } else if tok.kind == TokenKind::Punct && OPERATORS.contains(&tok.text.as_str()) {
            self.bump();
            tok.text.clone()
        } else {
            self.error_here(
                "not supported: overloading this operator (arithmetic, bitwise, comparison, '!', '~', '[]' and '()' can be)",
            );
            return Err(Reported);
        };
        Ok(Ident {
            name: format!("operator{symbol}"),
            span: keyword.span.to(self.prev_span),
        })
    }

    /// `static [const] type name = value;` in a struct: a global of the
    /// file named `S::name`, found as `name` inside the struct's body and as
    /// `S::name` outside it.
    fn static_data_member(
        &mut self,
        start: Span,
        storage: Vec<Ident>,
        ty: TypeExpr,
    ) -> PResult<()> {
        let scope = self.member_scopes.last().cloned().unwrap_or_default();
        let first = self.ident("expected member name")?;
        let mut declarators = self.declarators(first)?;
        self.expect_semi("expected ';' at end of declaration list");
        for d in &mut declarators {
            d.name.name = format!("{scope}::{}", d.name.name);
            self.namespaced.insert(d.name.name.clone());
        }
        self.hoisted.push(Item::Variable(VarDecl {
            attributes: Vec::new(),
            storage,
            ty,
            declarators,
            span: start.to(self.prev_span),
        }));
        Ok(())
    }

    /// `typedef type name [dims], …;`: one item per name.
    pub(super) fn typedef(&mut self, items: &mut Vec<Item>) -> PResult<()> {
        let start = self.bump().span;
        self.check_type_start(&[])?;
        let ty = self.parse_type(Vec::new())?;
        loop {
            let name = self.ident("expected identifier")?;
            let array_dims = self.array_dims()?;
            self.declare_type_name(&name.name);
            items.push(Item::Typedef(TypedefDecl {
                ty: ty.clone(),
                name,
                array_dims,
                span: start.to(self.prev_span),
            }));
            if !self.eat(",") {
                break;
            }
        }
        self.expect_semi("expected ';' after typedef");
        Ok(())
    }

    /// `using namespace N;` (`N`'s names found without `N::` until the
    /// namespace around it closes) or `using Name = type;` (a typedef).
    pub(super) fn using(&mut self, items: &mut Vec<Item>) -> PResult<()> {
        let start = self.bump().span;
        if self.at_kw("namespace") {
            self.bump();
            let tok = self.peek().clone();
            let name = self.ident("expected namespace name")?;
            let resolved = self.resolve_namespace(&name.name);
            if resolved.is_none() {
                self.error_at(&tok, format!("no namespace named '{}'", name.name));
            }
            self.using_namespaces
                .push((self.namespace.len(), resolved.unwrap_or(name.name)));
            self.expect_semi("expected ';' after using directive");
            return Ok(());
        }
        let name = self.ident("expected identifier or 'namespace' after 'using'")?;
        // `using N::name;`: `name` stands for `N::name` from here.
        if let Some((_, short)) = name.name.rsplit_once("::")
            && self.at(";")
        {
            let full = name
                .name
                .strip_prefix("::")
                .unwrap_or(&name.name)
                .to_string();
            self.using_names
                .push((self.namespace.len(), short.to_string(), full));
            self.expect_semi("expected ';' after using declaration");
            return Ok(());
        }
        if !self.eat("=") {
            self.error_here("expected '=' after the alias's name");
            return Err(Reported);
        }
        self.check_type_start(&[])?;
        let ty = self.parse_type(Vec::new())?;
        let array_dims = self.array_dims()?;
        self.declare_type_name(&name.name);
        items.push(Item::Typedef(TypedefDecl {
            ty,
            name,
            array_dims,
            span: start.to(self.prev_span),
        }));
        self.expect_semi("expected ';' after alias declaration");
        Ok(())
    }

    /// The namespace `name` names from here (`N`, or `Outer::N` inside
    /// `Outer`), where one was declared.
    fn resolve_namespace(&self, name: &str) -> Option<String> {
        let name = name.strip_prefix("::").unwrap_or(name);
        let prefix = format!("{name}::");
        let declared = |n: &String| {
            self.namespaced
                .iter()
                .any(|q| q.starts_with(&format!("{n}::")))
        };
        (0..=self.namespace.len())
            .rev()
            .map(|depth| {
                let outer = self.namespace[..depth].join("::");
                if outer.is_empty() {
                    name.to_string()
                } else {
                    format!("{outer}::{name}")
                }
            })
            .find(|n| declared(n))
            .or_else(|| {
                self.namespaced
                    .iter()
                    .any(|q| q.starts_with(&prefix))
                    .then(|| name.to_string())
            })
    }

    /// `template <typename T, uint N> item`: a function or struct with
    /// template parameters. A struct's member functions take its
    /// parameters too, with the object as `S<T, N>`.
    fn template_item(&mut self, items: &mut Vec<Item>) -> PResult<()> {
        let keyword = self.bump();
        let open = self.peek().span;
        if !self.eat("<") {
            self.error_here("expected '<' after 'template'");
            return Err(Reported);
        }
        let mut params = Vec::new();
        let saved = self.no_gt;
        self.no_gt = true;
        let list = self.template_params(&mut params);
        self.no_gt = saved;
        list?;
        self.expect_closing(">", open)?;
        // A struct template's name takes arguments inside its own body.
        if (self.at_kw("struct") || self.at_kw("class")) && self.nth(1).kind == TokenKind::Ident {
            let name = self.nth(1).text.clone();
            self.template_names.insert(self.qualified(&name));
        }
        let added: Vec<String> = params
            .iter()
            .filter(|p| p.value_type.is_none() && !self.type_names.contains(&p.name.name))
            .map(|p| p.name.name.clone())
            .collect();
        self.type_names.extend(added.iter().cloned());
        let mut inner = Vec::new();
        let outer = std::mem::replace(&mut self.in_template, true);
        let result = self.item(&mut inner);
        self.in_template = outer;
        for name in &added {
            self.type_names.remove(name);
        }
        result?;
        let struct_name = inner.iter().find_map(|item| match item {
            Item::Struct(s) => Some(s.name.name.clone()),
            _ => None,
        });
        for mut item in inner {
            match &mut item {
                Item::Function(f) => {
                    f.template_params = params.clone();
                    if let (Some(this), Some(name)) = (f.params.first_mut(), &struct_name)
                        && this.name.name == "this"
                    {
                        this.ty.args = params
                            .iter()
                            .map(|p| {
                                let span = p.name.span;
                                let named = TypeExpr {
                                    name: p.name.clone(),
                                    args: Vec::new(),
                                    modifiers: Vec::new(),
                                    span,
                                };
                                match p.value_type {
                                    None => TemplateArg::Type(named),
                                    Some(_) => TemplateArg::Expr(Expr {
                                        kind: ExprKind::Ident(p.name.clone()),
                                        span,
                                    }),
                                }
                            })
                            .collect();
                        this.ty.name.name.clone_from(name);
                    } else {
                        self.template_names.insert(f.name.name.clone());
                        self.template_names.insert(self.qualified(&f.name.name));
                    }
                }
                Item::Struct(s) => s.template_params = params.clone(),
                Item::Typedef(_) | Item::Variable(_) | Item::CBuffer(_) => {
                    self.diags.push(Diagnostic::error(
                        keyword.span,
                        "only functions and structs can be templates",
                    ));
                    return Ok(());
                }
            }
            items.push(item);
        }
        Ok(())
    }

    /// `typename T, uint N` (also `class T`).
    fn template_params(&mut self, params: &mut Vec<TemplateParam>) -> PResult<()> {
        // `template <>`: an explicit specialization.
        if self.at(">") {
            return Ok(());
        }
        loop {
            let value_type = if self.eat_kw("typename") || self.eat_kw("class") {
                None
            } else {
                Some(self.parse_type(Vec::new())?)
            };
            let name = self.ident("expected template parameter name")?;
            let default = if !self.eat("=") {
                None
            } else if value_type.is_none() {
                Some(TemplateArg::Type(self.parse_type(Vec::new())?))
            } else {
                Some(TemplateArg::Expr(self.conditional_top()?))
            };
            params.push(TemplateParam {
                name,
                value_type,
                default,
            });
            if !self.eat(",") {
                return Ok(());
            }
        }
    }

    /// `name` with the current namespaces before it.
    fn qualified(&self, name: &str) -> String {
        if self.namespace.is_empty() {
            name.to_string()
        } else {
            format!("{}::{name}", self.namespace.join("::"))
        }
    }

    /// A struct or typedef name, also under its qualified name inside a
    /// namespace.
    fn declare_type_name(&mut self, name: &str) {
        self.type_names.insert(name.to_string());
        if !self.namespace.is_empty() {
            let qualified = format!("{}::{name}", self.namespace.join("::"));
            self.type_names.insert(qualified.clone());
            self.namespaced.insert(qualified);
        }
    }

    /// `namespace N { items }`: the items, each name declared as `N::name`
    /// (nested namespaces add their own part). Inside, a name declared
    /// earlier in the namespace is found without its qualifier.
    fn namespace_item(&mut self, items: &mut Vec<Item>) -> PResult<()> {
        self.bump();
        let name = self.ident("expected namespace name")?;
        let open = self.peek().span;
        if !self.eat("{") {
            self.error_here("expected '{' after the namespace name");
            return Err(Reported);
        }
        self.namespace.push(name.name);
        let prefix = self.namespace.join("::");
        while !self.at("}") && !self.at_eof() {
            let mut inner = Vec::new();
            let before = self.pos;
            if self.item(&mut inner).is_err() {
                self.recover_item();
            }
            if self.pos == before {
                self.bump();
            }
            for mut item in inner {
                self.qualify(&mut item, &prefix);
                items.push(item);
            }
        }
        self.namespace.pop();
        let depth = self.namespace.len();
        self.using_namespaces.retain(|&(at, _)| at <= depth);
        self.using_names.retain(|&(at, _, _)| at <= depth);
        self.expect_closing("}", open)?;
        Ok(())
    }

    /// Gives `item`'s names the namespace `prefix` (unless a nested
    /// namespace already did) and records them.
    pub(super) fn qualify(&mut self, item: &mut Item, prefix: &str) {
        let mut qualify = |name: &mut Ident| {
            if !name.name.starts_with(&format!("{prefix}::")) {
                name.name = format!("{prefix}::{}", name.name);
            }
            self.namespaced.insert(name.name.clone());
        };
        match item {
            Item::Function(f) => {
                qualify(&mut f.name);
                // A member function's object is of the struct's new name.
                if let Some(this) = f.params.first_mut()
                    && this.name.name == "this"
                    && !this.ty.name.name.contains("::")
                {
                    this.ty.name.name = format!("{prefix}::{}", this.ty.name.name);
                }
            }
            Item::Struct(s) => qualify(&mut s.name),
            Item::Typedef(t) => qualify(&mut t.name),
            Item::Variable(v) => v.declarators.iter_mut().for_each(|d| qualify(&mut d.name)),
            Item::CBuffer(c) => c
                .members
                .iter_mut()
                .flat_map(|m| m.declarators.iter_mut())
                .for_each(|d| qualify(&mut d.name)),
        }
    }

    /// `enum [class] E [: type] { A [= value], B, … };`: the type `E` (its
    /// underlying type, `int` unless given) and a `static const E` for each
    /// enumerator, one more than the one before unless given. The
    /// enumerators of a scoped enum (`enum class`) are `E::A`; those of a
    /// plain enum are both `A` and `E::A`.
    fn enum_item(&mut self, items: &mut Vec<Item>) -> PResult<()> {
        let start = self.bump().span;
        let scoped = self.eat_kw("class") || self.eat_kw("struct");
        // An unnamed enum declares its enumerators only.
        let name = if self.at("{") && !scoped {
            Ident {
                name: format!(":enum{}", start.start),
                span: start,
            }
        } else {
            self.ident("expected enum name")?
        };
        let underlying = if self.eat(":") {
            self.parse_type(Vec::new())?
        } else {
            TypeExpr {
                name: Ident {
                    name: "int".to_string(),
                    span: name.span,
                },
                args: Vec::new(),
                modifiers: Vec::new(),
                span: name.span,
            }
        };
        self.declare_type_name(&name.name);
        items.push(Item::Typedef(TypedefDecl {
            ty: underlying,
            name: name.clone(),
            array_dims: Vec::new(),
            span: start.to(self.prev_span),
        }));
        let open = self.peek().span;
        if !self.eat("{") {
            self.error_here("expected '{' after the enum name");
            return Err(Reported);
        }
        let ty = TypeExpr {
            name: Ident {
                name: self.resolve_name(&name.name).into_owned(),
                span: name.span,
            },
            args: Vec::new(),
            modifiers: Vec::new(),
            span: name.span,
        };
        let mut previous: Option<Ident> = None;
        // The earlier enumerators, by the name a value may give them, with
        // the name they are declared under.
        let mut earlier: Vec<(String, Ident)> = Vec::new();
        while !self.at("}") && !self.at_eof() {
            let enumerator = self.ident("expected enumerator name")?;
            let value = if self.eat("=") {
                let mut value = self.conditional_top()?;
                name_enumerators(&mut value, &earlier);
                value
            } else {
                let span = enumerator.span;
                let literal = |value: u64| Expr {
                    kind: ExprKind::IntLit {
                        value,
                        suffix: IntSuffix::None,
                    },
                    span,
                };
                match &previous {
                    None => literal(0),
                    Some(prev) => Expr {
                        kind: ExprKind::Binary {
                            op: BinaryOp::Add,
                            lhs: Box::new(Expr {
                                kind: ExprKind::Ident(prev.clone()),
                                span,
                            }),
                            rhs: Box::new(literal(1)),
                        },
                        span,
                    },
                }
            };
            let qualified = Ident {
                name: format!("{}::{}", name.name, enumerator.name),
                span: enumerator.span,
            };
            // How the next enumerator's value names this one, namespace
            // included.
            let reference = Ident {
                name: match self.namespace.is_empty() {
                    true => qualified.name.clone(),
                    false => format!("{}::{}", self.namespace.join("::"), qualified.name),
                },
                span: enumerator.span,
            };
            let names = if scoped {
                vec![qualified.clone()]
            } else {
                vec![enumerator.clone(), qualified.clone()]
            };
            for declared in names {
                items.push(Item::Variable(VarDecl {
                    attributes: Vec::new(),
                    storage: vec![
                        Ident {
                            name: "static".to_string(),
                            span: enumerator.span,
                        },
                        Ident {
                            name: "const".to_string(),
                            span: enumerator.span,
                        },
                    ],
                    ty: ty.clone(),
                    declarators: vec![Declarator {
                        name: declared,
                        array_dims: Vec::new(),
                        register: None,
                        packoffset: None,
                        semantic: None,
                        init: Some(Initializer::Expr(value.clone())),
                        span: enumerator.span,
                    }],
                    span: enumerator.span,
                }));
            }
            earlier.push((enumerator.name.clone(), reference.clone()));
            previous = Some(reference);
            if !self.eat(",") {
                break;
            }
        }
        self.expect_closing("}", open)?;
        self.eat(";");
        Ok(())
    }

    /// `cbuffer Name [: register(b0)] { members } [;]`, also `tbuffer`.
    fn cbuffer(&mut self) -> PResult<CBufferDecl> {
        let keyword = self.bump();
        let kind = if keyword.text == "tbuffer" {
            CBufferKind::TBuffer
        } else {
            CBufferKind::CBuffer
        };
        let name = self.ident("expected identifier")?;
        let mut register = None;
        if self.eat(":") {
            if self.at_kw("register") {
                register = self.register()?;
            } else {
                self.error_here("expected 'register'");
                return Err(Reported);
            }
        }
        let open = self.expect("{", "expected '{'")?;
        let mut members = Vec::new();
        while !self.at("}") && !self.at_eof() {
            match self.cbuffer_member() {
                Ok(member) => members.push(member),
                Err(Reported) => self.recover_stmt(),
            }
        }
        self.expect_closing("}", open.span)?;
        let span = keyword.span.to(self.prev_span);
        self.eat(";");
        Ok(CBufferDecl {
            attributes: Vec::new(),
            kind,
            name,
            register,
            members,
            span,
        })
    }

    /// One declaration inside a `cbuffer`.
    fn cbuffer_member(&mut self) -> PResult<VarDecl> {
        let start = self.peek().span;
        let specifiers = self.specifiers();
        if self.at_kw("struct") && self.nth(2).is_punct("{") {
            self.error_here("struct definitions inside a cbuffer are not supported");
            return Err(Reported);
        }
        self.check_type_start(&specifiers.type_modifiers)?;
        let ty = self.parse_type(specifiers.type_modifiers)?;
        let name = self.ident("expected identifier")?;
        let declarators = self.declarators(name)?;
        self.expect_semi("expected ';' at end of declaration");
        Ok(VarDecl {
            attributes: Vec::new(),
            storage: specifiers.storage,
            ty,
            declarators,
            span: start.to(self.prev_span),
        })
    }
}

/// The object parameter of a member function of struct `owner`: `inout
/// owner this`.
fn this_param(owner: &Ident, span: Span) -> Param {
    Param {
        direction: ParamDirection::InOut,
        modifiers: Vec::new(),
        ty: TypeExpr {
            name: owner.clone(),
            args: Vec::new(),
            modifiers: Vec::new(),
            span,
        },
        name: Ident {
            name: "this".to_string(),
            span,
        },
        array_dims: Vec::new(),
        semantic: None,
        default: None,
        span,
    }
}

/// Rewrites the names in an enumerator's value that name an earlier
/// enumerator of the same enum (`B = A << 1`) to the name it is declared
/// under, which its namespace or its scoped enum would otherwise hide.
fn name_enumerators(e: &mut Expr, earlier: &[(String, Ident)]) {
    match &mut e.kind {
        ExprKind::Ident(id) => {
            if let Some((_, declared)) = earlier.iter().rev().find(|(n, _)| *n == id.name) {
                *id = Ident {
                    name: declared.name.clone(),
                    span: id.span,
                };
            }
        }
        ExprKind::Unary { operand, .. } | ExprKind::Cast { operand, .. } => {
            name_enumerators(operand, earlier);
        }
        ExprKind::Binary { lhs, rhs, .. }
        | ExprKind::Assign { lhs, rhs, .. }
        | ExprKind::Comma { lhs, rhs } => {
            name_enumerators(lhs, earlier);
            name_enumerators(rhs, earlier);
        }
        ExprKind::Conditional {
            cond,
            then_expr,
            else_expr,
        } => {
            name_enumerators(cond, earlier);
            name_enumerators(then_expr, earlier);
            name_enumerators(else_expr, earlier);
        }
        ExprKind::Call { args, .. } => args.iter_mut().for_each(|a| name_enumerators(a, earlier)),
        ExprKind::Index { base, index } => {
            name_enumerators(base, earlier);
            name_enumerators(index, earlier);
        }
        _ => {}
    }
}
