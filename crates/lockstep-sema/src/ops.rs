//! Operators: unary, binary, logical, conditional, assignment and
//! increment/decrement, with HLSL's usual arithmetic conversions.

use lockstep_ir::{
    self as ir, Access, BinaryOp, Builtin, ExprKind, Place, PlaceRoot, ScalarType, Type, TypeId,
    UnaryOp,
};
use lockstep_syntax::{Span, ast};

use crate::context::{GlobalSym, Lit, Sema, TExpr};
use crate::convert::common_scalar;
use crate::types::{Shape, make_type, numeric};

/// What kind of operand types a binary operator takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OpClass {
    Arithmetic,
    Bitwise,
    Shift,
    Equality,
    Ordering,
}

fn ir_binary(op: ast::BinaryOp) -> (BinaryOp, OpClass) {
    use ast::BinaryOp as A;
    match op {
        A::Add => (BinaryOp::Add, OpClass::Arithmetic),
        A::Sub => (BinaryOp::Sub, OpClass::Arithmetic),
        A::Mul => (BinaryOp::Mul, OpClass::Arithmetic),
        A::Div => (BinaryOp::Div, OpClass::Arithmetic),
        A::Rem => (BinaryOp::Rem, OpClass::Arithmetic),
        A::Shl => (BinaryOp::Shl, OpClass::Shift),
        A::Shr => (BinaryOp::Shr, OpClass::Shift),
        A::BitAnd => (BinaryOp::BitAnd, OpClass::Bitwise),
        A::BitOr => (BinaryOp::BitOr, OpClass::Bitwise),
        A::BitXor => (BinaryOp::BitXor, OpClass::Bitwise),
        A::LogicalAnd => (BinaryOp::And, OpClass::Bitwise),
        A::LogicalOr => (BinaryOp::Or, OpClass::Bitwise),
        A::Eq => (BinaryOp::Eq, OpClass::Equality),
        A::Ne => (BinaryOp::Ne, OpClass::Equality),
        A::Lt => (BinaryOp::Lt, OpClass::Ordering),
        A::Le => (BinaryOp::Le, OpClass::Ordering),
        A::Gt => (BinaryOp::Gt, OpClass::Ordering),
        A::Ge => (BinaryOp::Ge, OpClass::Ordering),
    }
}

impl Sema<'_> {
    /// The common shape of two operands: a scalar (or 1-component value)
    /// takes the other's shape, vectors and matrices truncate to the smaller.
    pub fn common_shape(&mut self, a: Shape, b: Shape) -> Option<Shape> {
        Some(match (a, b) {
            (a, b) if a == b => a,
            (a, b) if a.count() == 1 && b.count() == 1 => Shape::Scalar,
            (a, b) if a.count() == 1 => b,
            (a, b) if b.count() == 1 => a,
            (Shape::Vector(n), Shape::Vector(m)) => Shape::Vector(n.min(m)),
            (Shape::Matrix(r, c), Shape::Matrix(r2, c2)) => Shape::Matrix(r.min(r2), c.min(c2)),
            _ => return None,
        })
    }

    /// The common scalar type and shape of several numeric operands, or a
    /// diagnostic naming them.
    pub fn common_numeric(
        &mut self,
        items: &[&TExpr],
        span: Span,
    ) -> Option<(ScalarType, Lit, Shape)> {
        let mut acc: Option<(ScalarType, Lit, Shape)> = None;
        for t in items {
            let Some((s, shape)) = numeric(&self.module.types, t.ty()) else {
                self.invalid_operands(items, span);
                return None;
            };
            acc = Some(match acc {
                None => (s, t.lit, shape),
                Some((s0, l0, shape0)) => {
                    let (s, lit) = common_scalar((s0, l0), (s, t.lit));
                    let Some(shape) = self.common_shape(shape0, shape) else {
                        self.invalid_operands(items, span);
                        return None;
                    };
                    (s, lit, shape)
                }
            });
        }
        acc
    }

    fn invalid_operands(&mut self, items: &[&TExpr], span: Span) {
        let shown: Vec<String> = items
            .iter()
            .map(|t| format!("'{}'", self.show_t(t)))
            .collect();
        self.error(
            span,
            format!(
                "invalid operands to binary expression ({})",
                shown.join(" and ")
            ),
        );
    }

    pub fn lower_binary(
        &mut self,
        op: ast::BinaryOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> Option<TExpr> {
        if matches!(op, ast::BinaryOp::LogicalAnd | ast::BinaryOp::LogicalOr) {
            return self.lower_logical(op, lhs, rhs, span);
        }
        let a = self.lower_value(lhs);
        if let Some(a) = &a
            && let Some(call) = self.overloaded_operator(
                lockstep_syntax::ast_print::binary_symbol(op),
                a.ty(),
                lhs,
                std::slice::from_ref(rhs),
                span,
            )
        {
            return call;
        }
        let b = self.lower_value(rhs);
        self.binary_values(op, a?, b?, span)
    }

    /// `a op b` (or `op a`, `a[i]`) where `a` is a struct whose type has a
    /// member function `operator op` (HLSL 2021): that function's call on
    /// `a`. `None` where `a` has no such operator.
    pub(crate) fn overloaded_operator(
        &mut self,
        symbol: &str,
        ty: lockstep_ir::TypeId,
        receiver: &ast::Expr,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Option<TExpr>> {
        if !matches!(self.get(ty), Type::Struct { .. }) {
            return None;
        }
        let method = format!("operator{symbol}");
        self.member_function(ty, &method)?;
        let call = ast::Expr {
            kind: ast::ExprKind::MethodCall {
                receiver: Box::new(receiver.clone()),
                method: ast::Ident { name: method, span },
                template_args: Vec::new(),
                args: args.to_vec(),
            },
            span,
        };
        Some(self.lower_expr(&call))
    }

    /// Applies a binary operator to checked operands.
    pub fn binary_values(
        &mut self,
        op: ast::BinaryOp,
        a: TExpr,
        b: TExpr,
        span: Span,
    ) -> Option<TExpr> {
        let (ir_op, class) = ir_binary(op);
        let (a, b) = if class == OpClass::Shift && (a.lit == Lit::None || b.lit == Lit::None) {
            // The shift's type is the left operand's.
            let a = self.default_lit(a);
            let b = self.default_lit(b);
            (a, b)
        } else {
            (a, b)
        };
        let (s, lit, shape) = self.common_numeric(&[&a, &b], span)?;
        let s = if class == OpClass::Shift {
            numeric(&self.module.types, a.ty()).map_or(s, |(s, _)| s)
        } else {
            s
        };
        let s = match (class, s) {
            (OpClass::Equality, s) => s,
            (_, ScalarType::Bool) => ScalarType::Int32,
            (OpClass::Bitwise | OpClass::Shift, s) if s.is_float() => {
                let (ta, tb) = (self.show_t(&a), self.show_t(&b));
                self.error(
                    span,
                    format!("invalid operands to binary expression ('{ta}' and '{tb}')"),
                );
                return None;
            }
            (_, s) => s,
        };
        let operand_ty = self.intern(make_type(s, shape));
        let operand_ty = self.keep_orientation(operand_ty, &[a.ty(), b.ty()]);
        let divisor_zero = matches!(ir_op, BinaryOp::Div | BinaryOp::Rem)
            && s.is_integer()
            && self
                .fold(&b.e)
                .is_some_and(|v| v.iter().any(|c| c.bits == 0));
        let a = self.coerce(a, operand_ty, span)?;
        let b = self.coerce(b, operand_ty, span)?;
        if divisor_zero {
            let what = if ir_op == BinaryOp::Div {
                "division"
            } else {
                "remainder"
            };
            self.warning(span, format!("{what} by zero is undefined"));
        }
        let is_compare = matches!(class, OpClass::Equality | OpClass::Ordering);
        let result_ty = if is_compare {
            self.intern(make_type(ScalarType::Bool, shape))
        } else {
            operand_ty
        };
        let kind = if ir_op == BinaryOp::Rem && s.is_float() {
            ExprKind::Builtin(Builtin::Fmod, vec![a, b])
        } else {
            ExprKind::Binary(ir_op, Box::new(a), Box::new(b))
        };
        let mut t = TExpr::new(kind, result_ty, span);
        if lit != Lit::None {
            t.e = self.fold_expr(t.e);
            if !is_compare {
                t.lit = lit;
            }
        }
        Some(t)
    }

    fn lower_logical(
        &mut self,
        op: ast::BinaryOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> Option<TExpr> {
        let a = self.lower_value(lhs);
        let b = self.lower_value(rhs);
        let (a, b) = (a?, b?);
        let scalar = |s: &Self, t: &TExpr| {
            numeric(&s.module.types, t.ty()).is_some_and(|(_, sh)| sh.count() == 1)
        };
        if !scalar(self, &a) || !scalar(self, &b) {
            let alternative = if op == ast::BinaryOp::LogicalAnd {
                "and"
            } else {
                "or"
            };
            self.error(
                span,
                format!(
                    "operands for short-circuiting logical binary operator must be scalar, for non-scalar types use '{alternative}'"
                ),
            );
            return None;
        }
        let a = self.bool_condition(a, lhs.span)?;
        let b = self.bool_condition(b, rhs.span)?;
        let ty = self.scalar(ScalarType::Bool);
        let kind = if op == ast::BinaryOp::LogicalAnd {
            ExprKind::LogicalAnd(Box::new(a), Box::new(b))
        } else {
            ExprKind::LogicalOr(Box::new(a), Box::new(b))
        };
        let e = self.wrap(kind, ty, span);
        Some(TExpr::of(self.fold_expr(e)))
    }

    pub fn lower_conditional(
        &mut self,
        cond: &ast::Expr,
        then_expr: &ast::Expr,
        else_expr: &ast::Expr,
        span: Span,
    ) -> Option<TExpr> {
        let c = self.lower_value(cond);
        let a = self.lower_value(then_expr);
        let b = self.lower_value(else_expr);
        let (c, a, b) = (c?, a?, b?);
        let scalar_cond =
            numeric(&self.module.types, c.ty()).is_some_and(|(_, sh)| sh.count() == 1);
        if !scalar_cond {
            self.error(
                cond.span,
                "condition for short-circuiting ternary operator must be scalar, for non-scalar types use 'select'",
            );
            return None;
        }
        let c = self.bool_condition(c, cond.span)?;
        // Literal arms stay literal only when the whole expression folds.
        let (a, b) = if self.fold(&c).is_some() {
            (a, b)
        } else {
            (self.default_lit(a), self.default_lit(b))
        };
        let (ty, lit) = self.branch_type(&a, &b, span)?;
        let a = self.coerce(a, ty, then_expr.span)?;
        let b = self.coerce(b, ty, else_expr.span)?;
        let kind = ExprKind::Conditional {
            cond: Box::new(c),
            accept: Box::new(a),
            reject: Box::new(b),
        };
        let mut t = TExpr::new(kind, ty, span);
        if lit != Lit::None {
            t.e = self.fold_expr(t.e);
            t.lit = lit;
        }
        Some(t)
    }

    /// The type both arms of `?:` convert to.
    fn branch_type(&mut self, a: &TExpr, b: &TExpr, span: Span) -> Option<(TypeId, Lit)> {
        if a.ty() == b.ty() && a.lit == b.lit {
            return Some((a.ty(), a.lit));
        }
        let both_numeric = numeric(&self.module.types, a.ty()).is_some()
            && numeric(&self.module.types, b.ty()).is_some();
        if !both_numeric {
            let (ta, tb) = (self.show_t(a), self.show_t(b));
            self.error(
                span,
                format!("incompatible operand types ('{ta}' and '{tb}')"),
            );
            return None;
        }
        let (s, lit, shape) = self.common_numeric(&[a, b], span)?;
        let ty = self.intern(make_type(s, shape));
        Some((self.keep_orientation(ty, &[a.ty(), b.ty()]), lit))
    }

    /// `ty`, or an operand's type that differs from it only by being
    /// `row_major`, so that arithmetic on row-major matrices stays row-major.
    pub fn keep_orientation(&self, ty: TypeId, operands: &[TypeId]) -> TypeId {
        let Type::Matrix {
            scalar, rows, cols, ..
        } = *self.get(ty)
        else {
            return ty;
        };
        let same = |t: &TypeId| matches!(*self.get(*t), Type::Matrix { scalar: s, rows: r, cols: c, .. } if s == scalar && r == rows && c == cols);
        operands.iter().copied().find(same).unwrap_or(ty)
    }

    pub fn lower_unary(
        &mut self,
        op: ast::UnaryOp,
        operand: &ast::Expr,
        span: Span,
    ) -> Option<TExpr> {
        use ast::UnaryOp as U;
        match op {
            U::PreInc | U::PreDec | U::PostInc | U::PostDec => {
                return self.lower_increment(op, operand, span);
            }
            _ => {}
        }
        let t = self.lower_value(operand)?;
        if matches!(op, U::Neg | U::Plus | U::Not | U::BitNot)
            && let Some(call) = self.overloaded_operator(
                match op {
                    U::Neg => "-",
                    U::Plus => "+",
                    U::Not => "!",
                    _ => "~",
                },
                t.ty(),
                operand,
                &[],
                span,
            )
        {
            return call;
        }
        let Some((s, shape)) = numeric(&self.module.types, t.ty()) else {
            let shown = self.show(t.ty());
            self.error(
                span,
                format!("invalid argument type '{shown}' to unary expression"),
            );
            return None;
        };
        let lit = t.lit;
        let (target_scalar, kind): (ScalarType, Option<UnaryOp>) = match op {
            U::Not => (ScalarType::Bool, Some(UnaryOp::Not)),
            U::BitNot if s.is_float() => {
                let shown = self.show_t(&t);
                self.error(
                    span,
                    format!("invalid argument type '{shown}' to unary expression"),
                );
                return None;
            }
            U::BitNot => (promote_bool(s), Some(UnaryOp::BitNot)),
            U::Neg => (promote_bool(s), Some(UnaryOp::Neg)),
            _ => (promote_bool(s), None),
        };
        let ty = self.intern(make_type(target_scalar, shape));
        let value = self.coerce(t, ty, operand.span)?;
        let e = match kind {
            Some(op) => self.wrap(ExprKind::Unary(op, Box::new(value)), ty, span),
            None => value,
        };
        let mut t = TExpr::of(e);
        if lit != Lit::None {
            t.e = self.fold_expr(t.e);
            if op != U::Not {
                t.lit = lit;
            }
        }
        Some(t)
    }

    fn lower_increment(
        &mut self,
        op: ast::UnaryOp,
        operand: &ast::Expr,
        span: Span,
    ) -> Option<TExpr> {
        use ast::UnaryOp as U;
        let target = self.lower_expr(operand)?;
        let place = self.assignable(&target, operand.span)?;
        let (setup, place) = self.stabilize_place(place, span);
        let target = TExpr::of(self.wrap(ExprKind::Load(place.clone()), target.ty(), span));
        let Some((s, shape)) =
            numeric(&self.module.types, place.ty).filter(|(s, _)| *s != ScalarType::Bool)
        else {
            let shown = self.show(place.ty);
            self.error(span, format!("cannot increment value of type '{shown}'"));
            return None;
        };
        let one_s = crate::fold::convert_scalar(
            ir::Scalar {
                ty: ScalarType::Int64,
                bits: 1,
            },
            s,
        );
        let ty = place.ty;
        let ones = vec![one_s; shape.count() as usize];
        let one = self.wrap(ExprKind::Const(ones), ty, span);
        let ir_op = if matches!(op, U::PreInc | U::PostInc) {
            BinaryOp::Add
        } else {
            BinaryOp::Sub
        };
        let value = self.wrap(
            ExprKind::Binary(ir_op, Box::new(target.e), Box::new(one)),
            ty,
            span,
        );
        let yield_old = matches!(op, U::PostInc | U::PostDec);
        let kind = ExprKind::Assign {
            place,
            value: Box::new(value),
            yield_old,
            init: false,
        };
        let assign = self.wrap(kind, ty, span);
        Some(TExpr::of(self.sequence(setup, assign)))
    }

    pub fn lower_assign(
        &mut self,
        op: Option<ast::BinaryOp>,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> Option<TExpr> {
        if op.is_none() {
            if let Some(result) = self.assign_resource_member(lhs, rhs, span) {
                return result;
            }
            // `t = s;` of a struct with resource members copies what its
            // members name too.
            if let ast::ExprKind::Ident(target) = &lhs.kind
                && let Some(local) = self.lookup_local(&target.name)
                && let Some(ty) = self.fcx.as_ref().map(|f| f.locals[local.index()].ty)
                && self.has_resource_members(ty)
            {
                self.copy_resource_members(ty, &target.name, rhs);
            }
        }
        let target = self.lower_expr(lhs);
        let value = self.lower_value(rhs);
        let target = target?;
        let place = self.assignable(&target, lhs.span)?;
        let value = value?;
        // A compound assignment reads and writes the place: its index
        // expressions must run once.
        let (setup, place) = match op {
            None => (Vec::new(), place),
            Some(_) => self.stabilize_place(place, span),
        };
        let value = match op {
            None => value,
            Some(op) => {
                let current = self.wrap(ExprKind::Load(place.clone()), target.ty(), span);
                self.binary_values(op, TExpr::of(current), value, span)?
            }
        };
        let value = self.coerce(value, place.ty, span)?;
        let ty = place.ty;
        let kind = ExprKind::Assign {
            place,
            value: Box::new(value),
            yield_old: false,
            init: false,
        };
        let assign = self.wrap(kind, ty, span);
        Some(TExpr::of(self.sequence(setup, assign)))
    }

    /// Moves every index of `place` that has side effects (`a[i++]`) into a
    /// fresh local, so that a place read and then written evaluates each
    /// index once. Returns the assignments to run first.
    pub(crate) fn stabilize_place(
        &mut self,
        mut place: Place,
        span: Span,
    ) -> (Vec<ir::Expr>, Place) {
        let mut setup = Vec::new();
        match &mut place.root {
            ir::PlaceRoot::BufferElement { index: e, .. }
            | ir::PlaceRoot::ByteAddress { address: e, .. } => {
                self.hoist(e, &mut setup, span);
            }
            ir::PlaceRoot::Texel { coord, level, .. } => {
                self.hoist(coord, &mut setup, span);
                if let Some(level) = level {
                    self.hoist(level, &mut setup, span);
                }
            }
            _ => {}
        }
        for access in &mut place.path {
            if let ir::Access::Index(e) = access {
                self.hoist(e, &mut setup, span);
            }
        }
        (setup, place)
    }

    pub(crate) fn hoist(&mut self, e: &mut Box<ir::Expr>, setup: &mut Vec<ir::Expr>, span: Span) {
        if !has_side_effects(e) {
            return;
        }
        let Some(fcx) = self.fcx.as_mut() else { return };
        let id = ir::LocalId(fcx.locals.len() as u32);
        fcx.locals.push(ir::Variable {
            name: format!("index.{}", id.0),
            ty: e.ty,
            span: e.span,
        });
        let temp = Place {
            root: ir::PlaceRoot::Local(id),
            path: Vec::new(),
            ty: e.ty,
        };
        let load = self.wrap(ExprKind::Load(temp.clone()), e.ty, span);
        let value = std::mem::replace(&mut **e, load);
        let ty = value.ty;
        setup.push(self.wrap(
            ExprKind::Assign {
                place: temp,
                value: Box::new(value),
                yield_old: false,
                init: false,
            },
            ty,
            span,
        ));
    }

    pub(crate) fn sequence(&mut self, setup: Vec<ir::Expr>, last: ir::Expr) -> ir::Expr {
        setup.into_iter().rev().fold(last, |rest, first| {
            let (ty, span) = (rest.ty, rest.span);
            ir::Expr {
                kind: ExprKind::Sequence(Box::new(first), Box::new(rest)),
                ty,
                span,
            }
        })
    }

    /// The place an assignment writes, or a diagnostic saying why `t` cannot
    /// be written.
    pub fn assignable(&mut self, t: &TExpr, span: Span) -> Option<Place> {
        let Some(place) = t.place().filter(|_| t.lit == Lit::None && !t.void) else {
            self.error(span, "cannot assign to a non-lvalue");
            return None;
        };
        if let Some(message) = self.read_only_reason(place) {
            self.error(span, message);
            return None;
        }
        let duplicate = place.path.iter().any(|a| match a {
            Access::Components(c) => c.iter().enumerate().any(|(i, x)| c[..i].contains(x)),
            _ => false,
        });
        if duplicate {
            self.error(
                span,
                "vector is not assignable (contains duplicate components)",
            );
            return None;
        }
        Some(place.clone())
    }

    fn read_only_reason(&self, place: &Place) -> Option<String> {
        match &place.root {
            PlaceRoot::Local(id) => {
                let fcx = self.fcx.as_ref()?;
                fcx.const_locals.contains(id).then(|| {
                    let name = &fcx.locals[id.index()].name;
                    format!("cannot assign to variable '{name}' with const-qualified type")
                })
            }
            PlaceRoot::Static(id) => {
                let is_const = self.globals.values().any(
                    |g| matches!(g, GlobalSym::Static { id: s, is_const: true, .. } if s == id),
                );
                is_const.then(|| {
                    let name = &self.module.statics[id.index()].name;
                    format!("cannot assign to variable '{name}' with const-qualified type")
                })
            }
            PlaceRoot::Groupshared(_) => None,
            PlaceRoot::BufferElement { resource, .. }
            | PlaceRoot::ByteAddress { resource, .. }
            | PlaceRoot::Texel { resource, .. } => {
                let kind = self.resource_kind(*resource)?;
                (!kind.is_writable()).then(|| "cannot assign to a read-only resource".to_string())
            }
            PlaceRoot::ConstantBuffer { .. } => {
                Some("cannot assign to a constant buffer member".to_string())
            }
        }
    }
}

fn promote_bool(s: ScalarType) -> ScalarType {
    if s == ScalarType::Bool {
        ScalarType::Int32
    } else {
        s
    }
}

/// Whether evaluating `e` changes any state (an assignment, a call or an
/// atomic somewhere inside).
fn has_side_effects(e: &ir::Expr) -> bool {
    use ExprKind as K;
    let any = |es: &[ir::Expr]| es.iter().any(has_side_effects);
    match &e.kind {
        K::Assign { .. } | K::Atomic { .. } | K::Call { .. } => true,
        K::Const(_) | K::ResourceQuery { .. } => false,
        K::Load(p) => place_has_side_effects(p),
        K::Construct(es) | K::Builtin(_, es) | K::Wave(_, es) => any(es),
        K::Splat(a)
        | K::Swizzle(a, _)
        | K::Field(a, _)
        | K::Unary(_, a)
        | K::Convert(a)
        | K::Bitcast(a) => has_side_effects(a),
        K::Index(a, b)
        | K::Binary(_, a, b)
        | K::LogicalAnd(a, b)
        | K::LogicalOr(a, b)
        | K::Sequence(a, b) => has_side_effects(a) || has_side_effects(b),
        K::Conditional {
            cond,
            accept,
            reject,
        }
        | K::Select {
            cond,
            accept,
            reject,
        } => has_side_effects(cond) || has_side_effects(accept) || has_side_effects(reject),
    }
}

fn place_has_side_effects(p: &Place) -> bool {
    let root = match &p.root {
        ir::PlaceRoot::BufferElement { index: e, .. }
        | ir::PlaceRoot::ByteAddress { address: e, .. } => has_side_effects(e),
        ir::PlaceRoot::Texel { coord, level, .. } => {
            has_side_effects(coord) || level.as_deref().is_some_and(has_side_effects)
        }
        _ => false,
    };
    root || p
        .path
        .iter()
        .any(|a| matches!(a, ir::Access::Index(e) if has_side_effects(e)))
}
