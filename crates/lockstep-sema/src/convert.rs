//! Implicit and explicit conversions: literal typing, the usual arithmetic
//! conversions' ranks, splats, truncations and their IR form, and the cost
//! of a conversion for overload resolution.

use lockstep_ir::{self as ir, ExprKind, ScalarType, Type, TypeId};
use lockstep_syntax::Span;

use crate::context::{Lit, Sema, TExpr, ir_span};
use crate::types::{Shape, make_type, numeric};

/// The rank of a scalar type in the usual arithmetic conversions: the
/// operand of higher rank decides the result type.
pub(crate) fn rank(s: ScalarType) -> u8 {
    match s {
        ScalarType::Bool => 0,
        ScalarType::Int16 => 1,
        ScalarType::UInt16 => 2,
        ScalarType::Int32 => 3,
        ScalarType::UInt32 => 4,
        ScalarType::Int64 => 5,
        ScalarType::UInt64 => 6,
        ScalarType::Float16 => 7,
        ScalarType::Float32 => 8,
        ScalarType::Float64 => 9,
    }
}

/// The scalar type an operand pair converts to. Literals adopt the other
/// operand's type (a float literal only a float type); two literals stay a
/// literal (`Int64`/`Float64` stand for the literal types).
pub(crate) fn common_scalar(a: (ScalarType, Lit), b: (ScalarType, Lit)) -> (ScalarType, Lit) {
    match (a.1, b.1) {
        (Lit::None, Lit::None) => (if rank(a.0) >= rank(b.0) { a.0 } else { b.0 }, Lit::None),
        (lit, Lit::None) => (adopt(lit, b.0), Lit::None),
        (Lit::None, lit) => (adopt(lit, a.0), Lit::None),
        (Lit::Int, Lit::Int) => (ScalarType::Int64, Lit::Int),
        _ => (ScalarType::Float64, Lit::Float),
    }
}

fn adopt(lit: Lit, other: ScalarType) -> ScalarType {
    match lit {
        Lit::Float if !other.is_float() => ScalarType::Float32,
        Lit::Int if other == ScalarType::Bool => ScalarType::Int32,
        _ => other,
    }
}

impl Sema<'_> {
    /// Rejects a `void` expression used as a value.
    pub fn rvalue(&mut self, t: TExpr, span: Span) -> Option<TExpr> {
        if t.void || self.is_void(t.ty()) {
            self.error(span, "expression of type 'void' cannot be used as a value");
            return None;
        }
        Some(t)
    }

    /// Gives a literal its default type: `int` (`uint` when the value only
    /// fits there, else `int64_t`) or `float`.
    pub fn default_lit(&mut self, t: TExpr) -> TExpr {
        let Some((_, shape)) = numeric(&self.module.types, t.ty()) else {
            return t;
        };
        let s = match t.lit {
            Lit::None => return t,
            Lit::Float => ScalarType::Float32,
            Lit::Int => match self
                .fold(&t.e)
                .and_then(|v| v.first().map(|s| crate::fold::as_i128(*s)))
            {
                Some(v) if i32::try_from(v).is_ok() => ScalarType::Int32,
                Some(v) if u32::try_from(v).is_ok() => ScalarType::UInt32,
                Some(_) => ScalarType::Int64,
                None => ScalarType::Int32,
            },
        };
        let ty = self.intern(make_type(s, shape));
        let span = t.e_span();
        let e = ir::Expr {
            kind: ExprKind::Convert(Box::new(t.e)),
            ty,
            span,
        };
        TExpr::of(self.fold_expr(e))
    }

    /// Implicit conversion to `target` (assignment, argument, return).
    pub fn coerce(&mut self, t: TExpr, target: TypeId, span: Span) -> Option<ir::Expr> {
        let t = self.rvalue(t, span)?;
        self.convert_value(t, target, false, span)
    }

    /// Explicit conversion (`(float3)x`, `float(x)`).
    pub fn cast_to(&mut self, t: TExpr, target: TypeId, span: Span) -> Option<ir::Expr> {
        let t = self.rvalue(t, span)?;
        self.convert_value(t, target, true, span)
    }

    /// Converts to a scalar `bool` (conditions, `&&`, `||`).
    pub fn bool_condition(&mut self, t: TExpr, span: Span) -> Option<ir::Expr> {
        let t = self.rvalue(t, span)?;
        match numeric(&self.module.types, t.ty()) {
            Some((_, shape)) if shape.count() == 1 => {
                let b = self.scalar(ScalarType::Bool);
                self.convert_value(t, b, false, span)
            }
            _ => {
                let shown = self.show(t.ty());
                self.error(
                    span,
                    format!("value of type '{shown}' is not contextually convertible to 'bool'"),
                );
                None
            }
        }
    }

    fn convert_value(
        &mut self,
        t: TExpr,
        target: TypeId,
        explicit: bool,
        span: Span,
    ) -> Option<ir::Expr> {
        if t.ty() == target {
            return Some(t.e);
        }
        if let Some(depth) = self.base_depth(t.ty(), target) {
            // A derived struct converts to its base: the base subobject.
            let mut e = t.e;
            for _ in 0..depth {
                let ty = match self.get(e.ty) {
                    Type::Struct { members, .. } => members[0].ty,
                    _ => unreachable!("base_depth leads through structs"),
                };
                e = self.wrap(ExprKind::Field(Box::new(e), 0), ty, span);
            }
            return Some(e);
        }
        let fold_result = t.lit != Lit::None || matches!(t.e.kind, ExprKind::Const(_));
        let from_ty = t.ty();
        let from = numeric(&self.module.types, t.ty());
        let to = numeric(&self.module.types, target);
        let converted = match (from, to) {
            (Some(f), Some(to)) => self.reshape(t.e, f, to, target, explicit, span),
            (Some((_, Shape::Scalar)), None) if explicit => {
                match self.splat_aggregate(&t.e, target) {
                    Some(e) => Some(e),
                    None => self.flat_cast(t, target, span),
                }
            }
            (_, None) | (None, _) if explicit => self.flat_cast(t, target, span),
            _ => None,
        };
        let Some(e) = converted else {
            let from_shown = self.show(from_ty);
            let to_shown = self.show(target);
            self.error(
                span,
                format!("cannot convert from '{from_shown}' to '{to_shown}'"),
            );
            return None;
        };
        Some(if fold_result { self.fold_expr(e) } else { e })
    }

    /// `(S)0`: a constant scalar repeated into every component of an
    /// aggregate.
    fn splat_aggregate(&mut self, e: &ir::Expr, target: TypeId) -> Option<ir::Expr> {
        let value = self.fold(e)?;
        let mut slots = Vec::new();
        self.module.types.flatten(target, &mut slots);
        let values = slots
            .into_iter()
            .map(|s| {
                crate::fold::convert_scalar(
                    value
                        .first()
                        .copied()
                        .unwrap_or(ir::Scalar { ty: s, bits: 0 }),
                    s,
                )
            })
            .collect();
        Some(ir::Expr {
            kind: ExprKind::Const(values),
            ty: target,
            span: e.span,
        })
    }

    /// The IR of a numeric conversion between shapes; `None` when the shapes
    /// do not convert.
    fn reshape(
        &mut self,
        e: ir::Expr,
        (s, shape): (ScalarType, Shape),
        (to_s, to_shape): (ScalarType, Shape),
        target: TypeId,
        explicit: bool,
        span: Span,
    ) -> Option<ir::Expr> {
        if shape == to_shape {
            return Some(self.wrap(ExprKind::Convert(Box::new(e)), target, span));
        }
        if shape.count() == 1 {
            let scalar = self.first_component(e, s, shape, span);
            let to_scalar = self.scalar(to_s);
            let scalar = self.convert_scalar_type(scalar, to_scalar, span);
            if to_shape == Shape::Scalar {
                return Some(scalar);
            }
            return Some(self.wrap(ExprKind::Splat(Box::new(scalar)), target, span));
        }
        let truncated = match (shape, to_shape) {
            (_, Shape::Scalar) => Some(self.first_component(e.clone(), s, shape, span)),
            (Shape::Vector(n), Shape::Vector(m)) if m < n => {
                let ty = self.intern(Type::Vector(s, m));
                Some(self.wrap(
                    ExprKind::Swizzle(Box::new(e.clone()), (0..m).collect()),
                    ty,
                    span,
                ))
            }
            (Shape::Matrix(r, c), Shape::Matrix(r2, c2)) if r2 <= r && c2 <= c => {
                let ty = self.intern(make_type(s, to_shape));
                let elements = (0..r2)
                    .flat_map(|i| (0..c2).map(move |j| i * c + j))
                    .collect();
                Some(self.wrap(ExprKind::Swizzle(Box::new(e.clone()), elements), ty, span))
            }
            _ => None,
        };
        if let Some(truncated) = truncated {
            if !explicit {
                let what = if matches!(shape, Shape::Matrix(..)) {
                    "matrix"
                } else {
                    "vector"
                };
                self.warning(span, format!("implicit truncation of {what} type"));
            }
            return Some(self.convert_scalar_type(truncated, target, span));
        }
        if shape.count() == to_shape.count() {
            // A vector and a matrix of the same size: rebuild component-wise.
            let same_shape = self.intern(make_type(to_s, shape));
            let arg = self.convert_scalar_type(e, same_shape, span);
            return Some(self.wrap(ExprKind::Construct(vec![arg]), target, span));
        }
        None
    }

    fn first_component(
        &mut self,
        e: ir::Expr,
        s: ScalarType,
        shape: Shape,
        span: Span,
    ) -> ir::Expr {
        if shape == Shape::Scalar {
            return e;
        }
        let ty = self.scalar(s);
        self.wrap(ExprKind::Swizzle(Box::new(e), vec![0]), ty, span)
    }

    /// `Convert` to `target` unless the type is already right.
    pub fn convert_scalar_type(&mut self, e: ir::Expr, target: TypeId, span: Span) -> ir::Expr {
        if e.ty == target {
            return e;
        }
        self.wrap(ExprKind::Convert(Box::new(e)), target, span)
    }

    pub fn wrap(&mut self, kind: ExprKind, ty: TypeId, span: Span) -> ir::Expr {
        ir::Expr {
            kind,
            ty,
            span: ir_span(span),
        }
    }

    /// How costly converting `t` to `target` is for overload resolution
    /// (0 = exact); `None` when it does not convert implicitly.
    pub fn conversion_cost(&self, t: &TExpr, target: TypeId) -> Option<u32> {
        if t.ty() == target {
            return Some(0);
        }
        if let Some(depth) = self.base_depth(t.ty(), target) {
            return Some(60 + depth as u32);
        }
        let (s, shape) = numeric(&self.module.types, t.ty())?;
        let (to_s, to_shape) = numeric(&self.module.types, target)?;
        let shape_cost = match (shape, to_shape) {
            (a, b) if a == b => 0,
            (a, _) if a.count() == 1 => 3,
            (Shape::Vector(n), Shape::Vector(m)) if m < n => 4,
            (_, Shape::Scalar) => 4,
            (Shape::Matrix(r, c), Shape::Matrix(r2, c2)) if r2 <= r && c2 <= c => 4,
            (a, b) if a.count() == b.count() => 5,
            _ => return None,
        };
        let scalar_cost = match t.lit {
            Lit::Int if to_s == ScalarType::Int32 => 0,
            Lit::Float if to_s == ScalarType::Float32 => 0,
            Lit::Int | Lit::Float => 1,
            Lit::None if s == to_s => 0,
            Lit::None if same_kind_widening(s, to_s) => 1,
            Lit::None => 2,
        };
        Some(shape_cost * 10 + scalar_cost)
    }
}

impl Sema<'_> {
    /// How many bases up struct `from` has `target` as a base, when it does.
    fn base_depth(&self, from: TypeId, target: TypeId) -> Option<usize> {
        let mut ty = from;
        let mut depth = 0;
        while ty != target {
            let Type::Struct { members, .. } = self.get(ty) else {
                return None;
            };
            ty = members
                .first()
                .filter(|m| m.name == crate::expr::BASE_MEMBER)?
                .ty;
            depth += 1;
        }
        (depth > 0).then_some(depth)
    }
}

fn same_kind_widening(from: ScalarType, to: ScalarType) -> bool {
    let same_kind = from.is_float() == to.is_float() && from.is_signed() == to.is_signed();
    same_kind && to.size() >= from.size() && from != ScalarType::Bool
}

impl TExpr {
    pub fn e_span(&self) -> ir::Span {
        self.e.span
    }
}
