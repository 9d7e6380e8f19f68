//! Declarators with initializers: `T x = e;` and brace lists `{ … }`, which
//! flatten into scalar components and refill the declared type the way
//! HLSL does (`float2x2 m = { v.xy, 0, 1 };`, `S a[2] = { 1, 2, 3, 4 };`).

use std::collections::VecDeque;

use lockstep_ir::{self as ir, Access, ExprKind, ScalarType, Type, TypeId};
use lockstep_syntax::{Span, ast};

use crate::context::{Sema, TExpr};
use crate::types::{make_type, numeric};

/// An initializer value being consumed component by component.
struct Leaf {
    t: TExpr,
    /// Components already taken.
    offset: u32,
}

impl Sema<'_> {
    /// The declared type of a declarator (an unsized `[]` takes its length
    /// from the initializer) and its initial value; `Err` when the
    /// initializer had an error but the type is known.
    pub fn declarator_value(
        &mut self,
        base: TypeId,
        d: &ast::Declarator,
    ) -> Option<(TypeId, Result<Option<ir::Expr>, ()>)> {
        let open_dim = matches!(d.array_dims.first(), Some(None));
        let Some(init) = &d.init else {
            let ty = self.apply_dims(base, &d.array_dims, None, d.span)?;
            return Some((ty, Ok(None)));
        };
        if let (ast::Initializer::Expr(e), false) = (init, open_dim) {
            let ty = self.apply_dims(base, &d.array_dims, None, d.span)?;
            let value = self.lower_value(e).and_then(|t| self.coerce(t, ty, e.span));
            return Some((ty, value.map(Some).ok_or(())));
        }
        let Some(leaves) = self.initializer_leaves(init) else {
            if open_dim {
                return None;
            }
            let ty = self.apply_dims(base, &d.array_dims, None, d.span)?;
            return Some((ty, Err(())));
        };
        let total: u32 = leaves
            .iter()
            .map(|t| self.module.types.component_count(t.ty()))
            .sum();
        let unsized_len = if open_dim {
            let element = self.apply_dims(base, &d.array_dims[1..], None, d.span)?;
            let per = self.module.types.component_count(element).max(1);
            if !total.is_multiple_of(per) || total == 0 {
                let shown = self.show(element);
                self.error(d.span, format!("initializer list of {total} elements does not fill whole elements of '{shown}'"));
                return None;
            }
            Some(total / per)
        } else {
            None
        };
        let ty = self.apply_dims(base, &d.array_dims, unsized_len, d.span)?;
        let value = self.build_from_leaves(leaves, ty, total, init_span(init));
        Some((ty, value.map(Some).ok_or(())))
    }

    fn initializer_leaves(&mut self, init: &ast::Initializer) -> Option<Vec<TExpr>> {
        let mut out = Vec::new();
        let mut ok = true;
        self.collect_leaves(init, &mut out, &mut ok, 0);
        ok.then_some(out)
    }

    fn collect_leaves(
        &mut self,
        init: &ast::Initializer,
        out: &mut Vec<TExpr>,
        ok: &mut bool,
        depth: u32,
    ) {
        match init {
            ast::Initializer::Expr(e) => match self.lower_value(e) {
                Some(t) => {
                    if matches!(self.get(t.ty()), Type::Void) {
                        *ok = false;
                    }
                    out.push(t);
                }
                None => *ok = false,
            },
            ast::Initializer::List(items, span) => {
                if depth > crate::context::MAX_DEPTH {
                    self.error(*span, "initializer list is nested too deeply");
                    *ok = false;
                    return;
                }
                for item in items {
                    self.collect_leaves(item, out, ok, depth + 1);
                }
            }
        }
    }

    fn build_from_leaves(
        &mut self,
        leaves: Vec<TExpr>,
        ty: TypeId,
        total: u32,
        span: Span,
    ) -> Option<ir::Expr> {
        let expected = self.module.types.component_count(ty);
        if total != expected {
            let few = if total < expected { "few" } else { "many" };
            self.error(span, format!("too {few} elements in initializer list (expected {expected} elements, have {total})"));
            return None;
        }
        let mut queue: VecDeque<Leaf> = leaves.into_iter().map(|t| Leaf { t, offset: 0 }).collect();
        self.build_value(&mut queue, ty, span, 0)
    }

    fn build_value(
        &mut self,
        q: &mut VecDeque<Leaf>,
        ty: TypeId,
        span: Span,
        depth: u32,
    ) -> Option<ir::Expr> {
        if depth > crate::context::MAX_DEPTH {
            return None;
        }
        if let Some(front) = q.front()
            && front.offset == 0
            && front.t.ty() == ty
            && front.t.lit == crate::context::Lit::None
        {
            return q.pop_front().map(|l| l.t.e);
        }
        match self.get(ty).clone() {
            Type::Struct { members, .. } => {
                let mut parts = Vec::new();
                for m in members {
                    parts.push(self.build_value(q, m.ty, span, depth + 1)?);
                }
                Some(self.wrap(ExprKind::Construct(parts), ty, span))
            }
            Type::Array { element, len } => {
                let mut parts = Vec::new();
                for _ in 0..len {
                    parts.push(self.build_value(q, element, span, depth + 1)?);
                }
                Some(self.wrap(ExprKind::Construct(parts), ty, span))
            }
            _ => self.build_numeric(q, ty, span),
        }
    }

    fn build_numeric(
        &mut self,
        q: &mut VecDeque<Leaf>,
        ty: TypeId,
        span: Span,
    ) -> Option<ir::Expr> {
        let (s, _) = numeric(&self.module.types, ty)?;
        let mut need = self.module.types.component_count(ty);
        let mut parts = Vec::new();
        while need > 0 {
            let leaf = q.pop_front()?;
            let Some((leaf_s, leaf_shape)) = numeric(&self.module.types, leaf.t.ty()) else {
                self.expand_aggregate(q, leaf, span);
                continue;
            };
            let available = leaf_shape.count() - leaf.offset;
            let take = available.min(need).min(4);
            if leaf.offset == 0 && take == available {
                let part_ty = self.intern(make_type(s, leaf_shape));
                parts.push(self.cast_to(leaf.t, part_ty, span)?);
            } else {
                let comps: Vec<u8> = (leaf.offset..leaf.offset + take).map(|c| c as u8).collect();
                let piece_ty = if take == 1 {
                    self.scalar(leaf_s)
                } else {
                    self.intern(Type::Vector(leaf_s, take as u8))
                };
                let mut piece =
                    self.project(leaf.t.clone(), Access::Components(comps), piece_ty, span);
                piece.lit = leaf.t.lit;
                let target = if take == 1 {
                    self.scalar(s)
                } else {
                    self.intern(Type::Vector(s, take as u8))
                };
                parts.push(self.cast_to(piece, target, span)?);
                if leaf.offset + take < leaf_shape.count() {
                    q.push_front(Leaf {
                        t: leaf.t,
                        offset: leaf.offset + take,
                    });
                }
            }
            need -= take;
        }
        if parts.len() == 1 && parts[0].ty == ty {
            return parts.pop();
        }
        let e = self.wrap(ExprKind::Construct(parts), ty, span);
        Some(self.fold_expr(e))
    }

    /// Replaces a struct or array leaf by its members or elements.
    fn expand_aggregate(&mut self, q: &mut VecDeque<Leaf>, leaf: Leaf, span: Span) {
        let parts: Vec<TExpr> = match self.get(leaf.t.ty()).clone() {
            Type::Struct { members, .. } => members
                .iter()
                .enumerate()
                .map(|(i, m)| self.project(leaf.t.clone(), Access::Field(i as u32), m.ty, span))
                .collect(),
            Type::Array { element, len } => (0..len)
                .map(|i| {
                    let index = self.u32_const(i, span);
                    self.project(
                        leaf.t.clone(),
                        Access::Index(Box::new(index)),
                        element,
                        span,
                    )
                })
                .collect(),
            _ => Vec::new(),
        };
        for t in parts.into_iter().rev() {
            q.push_front(Leaf { t, offset: 0 });
        }
    }

    /// An explicit cast that goes component by component, as DXC casts
    /// aggregates: a scalar to every component of a struct or array
    /// (`(S)x`), or a value's components, in order, to the target's
    /// (`(float4)s`, `(S)v`, `(T)s`), where the value has at least as many.
    /// `None` where the cast is not one of those.
    pub(crate) fn flat_cast(&mut self, t: TExpr, target: TypeId, span: Span) -> Option<ir::Expr> {
        let from = self.module.types.component_count(t.ty());
        let to = self.module.types.component_count(target);
        let numeric_slots = |this: &Self, ty: TypeId| {
            let mut slots = Vec::new();
            this.module.types.flatten(ty, &mut slots);
            !slots.is_empty()
        };
        if from == 0 || to == 0 || (from != 1 && from < to) || !numeric_slots(self, t.ty()) {
            return None;
        }
        let mut setup = Vec::new();
        let mut value = Box::new(t.e);
        self.hoist(&mut value, &mut setup, span);
        let leaf = TExpr { e: *value, ..t };
        let copies = if from == 1 { to as usize } else { 1 };
        let mut queue: VecDeque<Leaf> = (0..copies)
            .map(|_| Leaf {
                t: leaf.clone(),
                offset: 0,
            })
            .collect();
        let built = self.build_value(&mut queue, target, span, 0)?;
        Some(if setup.is_empty() {
            built
        } else {
            self.sequence(setup, built)
        })
    }

    /// The zero value of a type.
    pub fn zero_value(&mut self, ty: TypeId, span: Span) -> ir::Expr {
        let mut slots = Vec::new();
        self.module.types.flatten(ty, &mut slots);
        let values = slots
            .into_iter()
            .map(|s: ScalarType| ir::Scalar { ty: s, bits: 0 })
            .collect();
        self.wrap(ExprKind::Const(values), ty, span)
    }
}

fn init_span(init: &ast::Initializer) -> Span {
    match init {
        ast::Initializer::Expr(e) => e.span,
        ast::Initializer::List(_, span) => *span,
    }
}
