//! Expression checking: one small function per AST expression form, all
//! reached from [`Sema::lower_expr`].

use lockstep_ir::{self as ir, ExprKind, Place, PlaceRoot, Scalar, ScalarType};
use lockstep_syntax::{Span, ast};

use crate::context::{GlobalSym, Lit, Sema, TExpr};

impl Sema<'_> {
    /// Checks an expression and lowers it; `None` after a diagnostic.
    pub fn lower_expr(&mut self, e: &ast::Expr) -> Option<TExpr> {
        if !self.enter(e.span) {
            return None;
        }
        let result = self.lower_expr_kind(e);
        self.leave();
        result
    }

    /// `sizeof` of type `ty`: its bytes as buffers lay it out (no padding
    /// to 16-byte rows), a `uint` constant.
    fn size_of(&mut self, ty: lockstep_ir::TypeId, span: Span) -> TExpr {
        let size = lockstep_ir::layout::size_align(
            &self.module.types,
            ty,
            lockstep_ir::LayoutRule::Packed,
        )
        .size;
        TExpr::of(self.u32_const(size, span))
    }

    /// Checks an expression whose value is used.
    pub fn lower_value(&mut self, e: &ast::Expr) -> Option<TExpr> {
        let t = self.lower_expr(e)?;
        self.rvalue(t, e.span)
    }

    fn lower_expr_kind(&mut self, e: &ast::Expr) -> Option<TExpr> {
        let span = e.span;
        match &e.kind {
            ast::ExprKind::IntLit { value, suffix } => {
                Some(self.int_literal(*value, *suffix, span))
            }
            ast::ExprKind::FloatLit { value, suffix } => {
                Some(self.float_literal(*value, *suffix, span))
            }
            ast::ExprKind::BoolLit(b) => Some(self.bool_literal(*b, span)),
            ast::ExprKind::StringLit(_) => {
                self.error(span, "string literals are not supported in expressions");
                None
            }
            ast::ExprKind::SizeOf(ty) => {
                // The bytes of the type as buffers lay it out (no padding
                // to 16-byte rows). `sizeof(v)` of a variable is its
                // type's size.
                let variable = ty.args.is_empty()
                    && ty.modifiers.is_empty()
                    && !self.is_type_name(&ty.name.name)
                    && (self.lookup_local(&ty.name.name).is_some()
                        || self.lookup_static_local(&ty.name.name).is_some()
                        || self.globals.contains_key(&ty.name.name));
                let ty = if variable {
                    let value = ast::Expr {
                        kind: ast::ExprKind::Ident(ty.name.clone()),
                        span: ty.span,
                    };
                    self.lower_expr(&value)?.ty()
                } else {
                    self.resolve_value_type(ty)?
                };
                Some(self.size_of(ty, span))
            }
            ast::ExprKind::SizeOfExpr(e) => {
                // Only the type counts: the expression is lowered and
                // dropped, never run.
                let ty = self.lower_expr(e)?.ty();
                Some(self.size_of(ty, span))
            }
            ast::ExprKind::Ident(id) => self.lower_ident(id),
            ast::ExprKind::Unary { op, operand } => self.lower_unary(*op, operand, span),
            ast::ExprKind::Binary { op, lhs, rhs } => self.lower_binary(*op, lhs, rhs, span),
            ast::ExprKind::Assign { op, lhs, rhs } => self.lower_assign(*op, lhs, rhs, span),
            ast::ExprKind::Conditional {
                cond,
                then_expr,
                else_expr,
            } => self.lower_conditional(cond, then_expr, else_expr, span),
            ast::ExprKind::Call { callee, args } => self.lower_call(callee, args, span),
            ast::ExprKind::MethodCall {
                receiver,
                method,
                template_args,
                args,
            } => self.lower_method_call(receiver, method, template_args, args, span),
            ast::ExprKind::Member { base, member } => self.lower_member(base, member, span),
            ast::ExprKind::Index { base, index } => self.lower_index(base, index, span),
            ast::ExprKind::Cast {
                ty,
                array_dims,
                operand,
            } => self.lower_cast(ty, array_dims, operand, span),
            ast::ExprKind::Comma { lhs, rhs } => self.lower_comma(lhs, rhs, span),
        }
    }

    pub fn constant(&mut self, s: ScalarType, bits: u64, span: Span) -> TExpr {
        let ty = self.scalar(s);
        TExpr::new(ExprKind::Const(vec![Scalar { ty: s, bits }]), ty, span)
    }

    fn int_literal(&mut self, value: u64, suffix: ast::IntSuffix, span: Span) -> TExpr {
        let s = match suffix {
            ast::IntSuffix::None if i64::try_from(value).is_ok() => {
                let mut t = self.constant(ScalarType::Int64, value, span);
                t.lit = Lit::Int;
                return t;
            }
            ast::IntSuffix::None | ast::IntSuffix::UL | ast::IntSuffix::ULL => ScalarType::UInt64,
            ast::IntSuffix::U => ScalarType::UInt32,
            ast::IntSuffix::L | ast::IntSuffix::LL => ScalarType::Int64,
        };
        if s == ScalarType::UInt32 && value > u64::from(u32::MAX) {
            self.warning(
                span,
                "integer literal is too large to be represented in type 'uint'",
            );
        }
        let bits = value
            & if s == ScalarType::UInt32 {
                u64::from(u32::MAX)
            } else {
                u64::MAX
            };
        self.constant(s, bits, span)
    }

    fn float_literal(&mut self, value: f64, suffix: ast::FloatSuffix, span: Span) -> TExpr {
        let s = match suffix {
            ast::FloatSuffix::None => {
                let mut t = self.constant(ScalarType::Float64, value.to_bits(), span);
                t.lit = Lit::Float;
                return t;
            }
            ast::FloatSuffix::F => ScalarType::Float32,
            ast::FloatSuffix::H if self.opts.enable_16bit_types => ScalarType::Float16,
            ast::FloatSuffix::H => ScalarType::Float32,
            ast::FloatSuffix::L => ScalarType::Float64,
        };
        let double = Scalar {
            ty: ScalarType::Float64,
            bits: value.to_bits(),
        };
        let bits = crate::fold::convert_scalar(double, s).bits;
        self.constant(s, bits, span)
    }

    fn bool_literal(&mut self, b: bool, span: Span) -> TExpr {
        self.constant(ScalarType::Bool, u64::from(b), span)
    }

    pub fn load(
        &mut self,
        root: PlaceRoot,
        path: Vec<ir::Access>,
        ty: ir::TypeId,
        span: Span,
    ) -> TExpr {
        TExpr::new(ExprKind::Load(Place { root, path, ty }), ty, span)
    }

    fn lower_ident(&mut self, id: &ast::Ident) -> Option<TExpr> {
        if let Some(local) = self.lookup_local(&id.name) {
            let ty = self.fcx.as_ref()?.locals[local.index()].ty;
            return Some(self.load(PlaceRoot::Local(local), Vec::new(), ty, id.span));
        }
        if let Some((s, ty)) = self.lookup_static_local(&id.name) {
            return Some(self.load(PlaceRoot::Static(s), Vec::new(), ty, id.span));
        }
        // A constant parameter of the template instance being compiled.
        if let Some(crate::templates::TemplateValue::Value(value)) = self.template_binding(&id.name)
        {
            let ty = self.scalar(value.ty);
            let e = self.wrap(ExprKind::Const(vec![value]), ty, id.span);
            return Some(TExpr::of(e));
        }
        // In a member function, a field of the object (`n` for `this.n`).
        if self
            .this_struct()
            .is_some_and(|(_, members)| members.contains(&id.name))
        {
            let member = ast::Expr {
                kind: ast::ExprKind::Member {
                    base: Box::new(this_expr(id.span)),
                    member: id.clone(),
                },
                span: id.span,
            };
            return self.lower_expr(&member);
        }
        match self.globals.get(&id.name).cloned() {
            Some(GlobalSym::Static { id: s, ty, .. }) => {
                Some(self.load(PlaceRoot::Static(s), Vec::new(), ty, id.span))
            }
            Some(GlobalSym::Groupshared { id: g, ty }) => {
                Some(self.load(PlaceRoot::Groupshared(g), Vec::new(), ty, id.span))
            }
            Some(GlobalSym::CBufferMember {
                resource,
                field,
                ty,
            }) => Some(self.load(
                PlaceRoot::ConstantBuffer { resource },
                vec![ir::Access::Field(field)],
                ty,
                id.span,
            )),
            Some(GlobalSym::Resource(info)) if info.kind == ir::ResourceKind::ConstantBuffer => {
                Some(self.load(
                    PlaceRoot::ConstantBuffer { resource: info.id },
                    Vec::new(),
                    info.element,
                    id.span,
                ))
            }
            Some(GlobalSym::Resource(_)) => {
                self.error(
                    id.span,
                    format!("resource '{}' cannot be used as a value", id.name),
                );
                None
            }
            Some(GlobalSym::ResourceArray(array)) => {
                let dims: String = array.dims.iter().map(|d| format!("[{d}]")).collect();
                self.error(
                    id.span,
                    format!(
                        "'{}' is an array of resources{dims}: index it to use one of them",
                        id.name
                    ),
                );
                None
            }
            None if self.lookup_resource_alias(&id.name).is_some() => {
                self.error(
                    id.span,
                    format!(
                        "resource '{}' cannot be used as a value (a local resource variable names one resource for good)",
                        id.name
                    ),
                );
                None
            }
            None if self.functions.contains_key(&id.name) => {
                self.error(
                    id.span,
                    format!("function '{}' cannot be used as a value", id.name),
                );
                None
            }
            None => {
                self.undeclared(id);
                None
            }
        }
    }

    fn lower_cast(
        &mut self,
        ty: &ast::TypeExpr,
        dims: &[Option<ast::Expr>],
        operand: &ast::Expr,
        span: Span,
    ) -> Option<TExpr> {
        let target = self.resolve_value_type(ty);
        let target = match target {
            Some(t) => self.apply_dims(t, dims, None, span),
            None => None,
        };
        let value = self.lower_expr(operand)?;
        let target = target?;
        let e = self.cast_to(value, target, span)?;
        Some(TExpr::of(e))
    }

    fn lower_comma(&mut self, lhs: &ast::Expr, rhs: &ast::Expr, span: Span) -> Option<TExpr> {
        let first = self.lower_expr(lhs);
        let second = self.lower_expr(rhs)?;
        let first = first?;
        let void = second.void;
        let second = self.default_lit(second);
        let ty = second.ty();
        let mut t = TExpr::new(
            ExprKind::Sequence(Box::new(first.e), Box::new(second.e)),
            ty,
            span,
        );
        t.void = void;
        Some(t)
    }
}

/// `this`, the object parameter of a member function.
pub(crate) fn this_expr(span: Span) -> ast::Expr {
    ast::Expr {
        kind: ast::ExprKind::Ident(ast::Ident {
            name: "this".to_string(),
            span,
        }),
        span,
    }
}

/// The name of a derived struct's first member, which holds its base: not
/// an identifier, so no source name reaches it directly.
pub(crate) const BASE_MEMBER: &str = ":base";

impl Sema<'_> {
    /// Inside a member function: the struct's name and the names of its
    /// members, its bases' included.
    pub(crate) fn this_struct(&self) -> Option<(String, Vec<String>)> {
        let local = self.lookup_local("this")?;
        let ty = self.fcx.as_ref()?.locals[local.index()].ty;
        let lockstep_ir::Type::Struct { name, .. } = self.get(ty) else {
            return None;
        };
        let mut names = Vec::new();
        let mut next = Some(ty);
        while let Some(ty) = next.take() {
            if let lockstep_ir::Type::Struct { members, .. } = self.get(ty) {
                for m in members {
                    if m.name == BASE_MEMBER {
                        next = Some(m.ty);
                    } else {
                        names.push(m.name.clone());
                    }
                }
            }
        }
        Some((name.clone(), names))
    }

    /// The field `name` of struct type `ty`: the member indices that lead
    /// to it (through the bases, own members first) and its type.
    pub(crate) fn member_path(
        &self,
        ty: lockstep_ir::TypeId,
        name: &str,
    ) -> Option<(Vec<u32>, lockstep_ir::TypeId)> {
        let lockstep_ir::Type::Struct { members, .. } = self.get(ty) else {
            return None;
        };
        if let Some(i) = members.iter().position(|m| m.name == name) {
            return Some((vec![i as u32], members[i].ty));
        }
        let base = members.first().filter(|m| m.name == BASE_MEMBER)?;
        let (mut path, ty) = self.member_path(base.ty, name)?;
        path.insert(0, 0);
        Some((path, ty))
    }

    /// The member function `method` of a value of type `ty`, as the
    /// function name it was declared under (`S.method`), with how many
    /// bases up it was found (0: in `ty` itself).
    pub(crate) fn member_function(
        &self,
        ty: lockstep_ir::TypeId,
        method: &str,
    ) -> Option<(String, usize)> {
        let mut ty = ty;
        let mut depth = 0;
        loop {
            let lockstep_ir::Type::Struct { name, members } = self.get(ty) else {
                return None;
            };
            let full = format!("{name}.{method}");
            if self.functions.contains_key(&full) {
                return Some((full, depth));
            }
            // A member function of a struct template's instance.
            if let Some((template, _)) = self.struct_instances.get(&ty) {
                let full = format!("{template}.{method}");
                if self.templates.contains_key(&full) {
                    return Some((full, depth));
                }
            }
            ty = members.first().filter(|m| m.name == BASE_MEMBER)?.ty;
            depth += 1;
        }
    }
}

impl Sema<'_> {
    /// Whether member function `full` (`S.f`) takes the object: it is not
    /// `static`.
    pub(crate) fn takes_object(&self, full: &str) -> bool {
        let first_param = |decl: &lockstep_syntax::ast::FunctionDecl| {
            decl.params.first().is_some_and(|p| p.name.name == "this")
        };
        match self.functions.get(full) {
            Some(overloads) => overloads.iter().any(|&i| first_param(self.fn_syms[i].decl)),
            None => self
                .templates
                .get(full)
                .is_some_and(|decls| decls.iter().any(|d| first_param(d))),
        }
    }

    /// How many bases up struct `ty` is (or has as a base) the struct named
    /// `name`.
    pub(crate) fn base_named(&self, ty: lockstep_ir::TypeId, name: &str) -> Option<usize> {
        let mut ty = ty;
        let mut depth = 0;
        loop {
            let lockstep_ir::Type::Struct { name: n, members } = self.get(ty) else {
                return None;
            };
            if n == name {
                return Some(depth);
            }
            ty = members.first().filter(|m| m.name == BASE_MEMBER)?.ty;
            depth += 1;
        }
    }
}

/// `object`'s base subobject `depth` bases up.
pub(crate) fn base_of(object: ast::Expr, depth: usize) -> ast::Expr {
    (0..depth).fold(object, |object, _| {
        let span = object.span;
        ast::Expr {
            kind: ast::ExprKind::Member {
                base: Box::new(object),
                member: ast::Ident {
                    name: BASE_MEMBER.to_string(),
                    span,
                },
            },
            span,
        }
    })
}
