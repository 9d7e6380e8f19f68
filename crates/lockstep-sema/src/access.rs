//! Member access, swizzles (vector and matrix) and indexing, on values and
//! on places (so that the result stays assignable).

use lockstep_ir::{self as ir, Access, ExprKind, PlaceRoot, ScalarType, Type, TypeId};
use lockstep_syntax::{Span, ast};

use crate::context::{Sema, TExpr};
use crate::types::{Shape, numeric};

/// Parses a vector swizzle (`xyzw` or `rgba`, not mixed, 1 to 4 letters).
fn vector_swizzle(name: &str) -> Result<Vec<u8>, char> {
    const SETS: [&str; 2] = ["xyzw", "rgba"];
    let first = name.chars().next().ok_or(' ')?;
    let set = SETS.iter().find(|s| s.contains(first)).ok_or(first)?;
    name.chars()
        .map(|c| set.find(c).map(|i| i as u8).ok_or(c))
        .collect()
}

/// Parses a matrix swizzle: `_m01_m10` (zero-based) or `_12_21`
/// (one-based); yields (row, column) pairs.
fn matrix_swizzle(name: &str) -> Option<Vec<(u8, u8)>> {
    let mut out = Vec::new();
    let mut rest = name;
    let mut zero_based = None;
    while !rest.is_empty() {
        let r = rest.strip_prefix('_')?;
        let (zb, digits) = match r.strip_prefix('m') {
            Some(d) => (true, d),
            None => (false, r),
        };
        if *zero_based.get_or_insert(zb) != zb {
            return None;
        }
        let b = digits.as_bytes();
        if b.len() < 2 || !b[0].is_ascii_digit() || !b[1].is_ascii_digit() {
            return None;
        }
        let (row, col) = (b[0] - b'0', b[1] - b'0');
        let (row, col) = if zb {
            (row, col)
        } else {
            (row.checked_sub(1)?, col.checked_sub(1)?)
        };
        out.push((row, col));
        rest = &digits[2..];
    }
    (!out.is_empty() && out.len() <= 4).then_some(out)
}

impl Sema<'_> {
    pub fn lower_member(
        &mut self,
        base: &ast::Expr,
        member: &ast::Ident,
        span: Span,
    ) -> Option<TExpr> {
        let t = match self.resource_of(base) {
            // The sampling functions of the prelude read a sampler's state.
            Some(info)
                if info.kind == ir::ResourceKind::SamplerState
                    && member.name.starts_with(crate::sample::STATE_PREFIX) =>
            {
                self.load(
                    PlaceRoot::ConstantBuffer { resource: info.id },
                    Vec::new(),
                    info.element,
                    base.span,
                )
            }
            Some(info) if info.kind != ir::ResourceKind::ConstantBuffer => {
                self.error(
                    member.span,
                    format!(
                        "no member named '{}' in resource '{}'",
                        member.name,
                        ident_name(base)
                    ),
                );
                return None;
            }
            Some(info) => self.load(
                PlaceRoot::ConstantBuffer { resource: info.id },
                Vec::new(),
                info.element,
                base.span,
            ),
            None => self.lower_value(base)?,
        };
        let t = self.default_lit(t);
        // Only a struct's type holds heap data; it is looked at in place.
        if let Type::Struct { name, .. } = self.get(t.ty()) {
            let Some((path, ty)) = self.member_path(t.ty(), &member.name) else {
                let message = format!("no member named '{}' in '{name}'", member.name);
                self.error(member.span, message);
                return None;
            };
            let mut t = t;
            for (i, &field) in path.iter().enumerate() {
                let field_ty = if i + 1 == path.len() {
                    ty
                } else {
                    match self.get(t.ty()) {
                        Type::Struct { members, .. } => members[field as usize].ty,
                        _ => unreachable!("member_path leads through structs"),
                    }
                };
                t = self.project(t, Access::Field(field), field_ty, span);
            }
            return Some(t);
        }
        match self.get(t.ty()).clone() {
            Type::Scalar(s) => self.scalar_swizzle(t, s, member, span),
            Type::Vector(s, n) => self.swizzle(t, s, n, member, span),
            Type::Matrix {
                scalar, rows, cols, ..
            } => self.matrix_member(t, scalar, (rows, cols), member, span),
            _ => {
                let shown = self.show(t.ty());
                self.error(
                    member.span,
                    format!("member reference base type '{shown}' is not a structure"),
                );
                None
            }
        }
    }

    /// Applies an access to a place (keeping it assignable) or to a value.
    pub fn project(&mut self, mut t: TExpr, access: Access, ty: TypeId, span: Span) -> TExpr {
        if let (ExprKind::Swizzle(_, prev), Access::Components(c)) = (&mut t.e.kind, &access) {
            *prev = c
                .iter()
                .map(|&i| prev.get(usize::from(i)).copied().unwrap_or(i))
                .collect();
            t.e.ty = ty;
            t.e.span = crate::context::ir_span(span);
            return t;
        }
        match t.e.kind {
            ExprKind::Load(mut place) => {
                // Swizzles of swizzles compose into one component list.
                match (place.path.last_mut(), access) {
                    (Some(Access::Components(prev)), Access::Components(c)) => {
                        *prev = c
                            .iter()
                            .map(|&i| prev.get(usize::from(i)).copied().unwrap_or(i))
                            .collect();
                    }
                    (_, access) => place.path.push(access),
                }
                place.ty = ty;
                TExpr::new(ExprKind::Load(place), ty, span)
            }
            kind => {
                let base = ir::Expr {
                    kind,
                    ty: t.e.ty,
                    span: t.e.span,
                };
                let kind = match access {
                    Access::Field(i) => ExprKind::Field(Box::new(base), i),
                    Access::Index(i) => ExprKind::Index(Box::new(base), i),
                    Access::Components(c) => ExprKind::Swizzle(Box::new(base), c),
                };
                TExpr::new(kind, ty, span)
            }
        }
    }

    fn swizzle(
        &mut self,
        t: TExpr,
        s: ScalarType,
        n: u8,
        member: &ast::Ident,
        span: Span,
    ) -> Option<TExpr> {
        let comps = match vector_swizzle(&member.name) {
            Ok(c) if c.len() <= 4 => c,
            Ok(_) => {
                self.error(
                    member.span,
                    format!(
                        "vector swizzle '{}' has more than 4 components",
                        member.name
                    ),
                );
                return None;
            }
            Err(c) => {
                self.error(member.span, format!("illegal vector component name '{c}'"));
                return None;
            }
        };
        if comps.iter().any(|&c| c >= n) {
            let shown = self.show(t.ty());
            self.error(
                member.span,
                format!("vector component access exceeds type '{shown}'"),
            );
            return None;
        }
        let ty = self.components_type(s, comps.len());
        Some(self.project(t, Access::Components(comps), ty, span))
    }

    fn components_type(&mut self, s: ScalarType, count: usize) -> TypeId {
        if count == 1 {
            self.scalar(s)
        } else {
            self.intern(Type::Vector(s, count as u8))
        }
    }

    /// `f.x`, `f.xxx`: a scalar read as a vector.
    fn scalar_swizzle(
        &mut self,
        t: TExpr,
        s: ScalarType,
        member: &ast::Ident,
        span: Span,
    ) -> Option<TExpr> {
        let comps = match vector_swizzle(&member.name) {
            Ok(c) if c.iter().all(|&c| c == 0) && c.len() <= 4 => c,
            Ok(_) => {
                let shown = self.show(t.ty());
                self.error(
                    member.span,
                    format!("vector component access exceeds type '{shown}'"),
                );
                return None;
            }
            Err(c) => {
                self.error(member.span, format!("illegal vector component name '{c}'"));
                return None;
            }
        };
        if comps.len() == 1 {
            return Some(t);
        }
        let ty = self.intern(Type::Vector(s, comps.len() as u8));
        let e = self.wrap(ExprKind::Splat(Box::new(t.e)), ty, span);
        Some(TExpr::of(e))
    }

    fn matrix_member(
        &mut self,
        t: TExpr,
        s: ScalarType,
        (rows, cols): (u8, u8),
        member: &ast::Ident,
        span: Span,
    ) -> Option<TExpr> {
        let Some(elements) = matrix_swizzle(&member.name) else {
            let shown = self.show(t.ty());
            self.error(
                member.span,
                format!("invalid matrix swizzle '{}' on '{shown}'", member.name),
            );
            return None;
        };
        if elements.iter().any(|&(r, c)| r >= rows || c >= cols) {
            let shown = self.show(t.ty());
            self.error(
                member.span,
                format!(
                    "matrix swizzle '{}' is out of bounds for '{shown}'",
                    member.name
                ),
            );
            return None;
        }
        let comps: Vec<u8> = elements.iter().map(|&(r, c)| r * cols + c).collect();
        let ty = self.components_type(s, comps.len());
        Some(self.project(t, Access::Components(comps), ty, span))
    }

    pub fn lower_index(
        &mut self,
        base: &ast::Expr,
        index: &ast::Expr,
        span: Span,
    ) -> Option<TExpr> {
        if let Some(array) = self.indexed_resource_array(base)
            && index_depth(base) < array.dims.len()
        {
            // `a[i]` of a resource array, used as a value: only a constant
            // buffer is one.
            let whole = ast::Expr {
                kind: ast::ExprKind::Index {
                    base: Box::new(base.clone()),
                    index: Box::new(index.clone()),
                },
                span,
            };
            let info = self.resource_of(&whole)?;
            if info.kind == ir::ResourceKind::ConstantBuffer {
                return Some(self.load(
                    PlaceRoot::ConstantBuffer { resource: info.id },
                    Vec::new(),
                    info.element,
                    span,
                ));
            }
            self.error(span, "a resource cannot be used as a value");
            return None;
        }
        if let Some(info) = self.resource_of(base) {
            let i = self.lower_value(index)?;
            return self.buffer_element(info, i, index.span, span);
        }
        // `tex.mips[level][coord]`.
        if let ast::ExprKind::Index {
            base: mips,
            index: level,
        } = &base.kind
            && let ast::ExprKind::Member {
                base: texture,
                member,
            } = &mips.kind
            && member.name == "mips"
            && let Some(info) = self.resource_of(texture)
            && info.kind.is_texture()
            && !info.kind.is_writable()
        {
            let coord = self.lower_value(index)?;
            let level = self.lower_value(level)?;
            return self.texel_at_level(info, coord, index.span, level, span);
        }
        if self.indexed_resource_array(base).is_some() {
            // An element of a resource array that could not be resolved:
            // already reported.
            return None;
        }
        let t = self.lower_value(base);
        if let Some(t) = &t
            && let Some(call) =
                self.overloaded_operator("[]", t.ty(), base, std::slice::from_ref(index), span)
        {
            return call;
        }
        let i = self.lower_value(index);
        let (t, i) = (t?, i?);
        let (len, element) = match self.get(t.ty()).clone() {
            Type::Array { element, len } => (len, element),
            Type::Vector(s, n) => (u32::from(n), self.scalar(s)),
            Type::Matrix {
                scalar, rows, cols, ..
            } => (u32::from(rows), self.intern(Type::Vector(scalar, cols))),
            _ => {
                self.error(span, "subscripted value is not an array, matrix, or vector");
                return None;
            }
        };
        let constant = self.fold(&i.e).and_then(|v| v.first().copied());
        let i = self.index_value(i, index.span)?;
        if let Some(v) = constant {
            let v = crate::fold::as_i128(v);
            if v < 0 || v >= i128::from(len) {
                self.error(
                    index.span,
                    format!("index {v} is out of bounds (the size is {len})"),
                );
                return None;
            }
        }
        Some(self.project(t, Access::Index(Box::new(i)), element, span))
    }

    /// An index converted to an integer scalar (`uint` for literals and
    /// non-integers).
    pub fn index_value(&mut self, i: TExpr, span: Span) -> Option<ir::Expr> {
        let uint = self.scalar(ScalarType::UInt32);
        match numeric(&self.module.types, i.ty()) {
            Some((s, Shape::Scalar)) if s.is_integer() && i.lit == crate::context::Lit::None => {
                Some(i.e)
            }
            Some((s, shape))
                if shape.count() == 1 && (s.is_integer() || i.lit == crate::context::Lit::Int) =>
            {
                self.coerce(i, uint, span)
            }
            _ => {
                let shown = self.show_t(&i);
                self.error(
                    span,
                    format!("array subscript is not an integer (has type '{shown}')"),
                );
                None
            }
        }
    }
}

fn ident_name(e: &ast::Expr) -> &str {
    match &e.kind {
        ast::ExprKind::Ident(id) => &id.name,
        _ => "",
    }
}

/// How many subscripts `e` applies (`a[i][j]`: 2).
fn index_depth(e: &ast::Expr) -> usize {
    match &e.kind {
        ast::ExprKind::Index { base, .. } => 1 + index_depth(base),
        _ => 0,
    }
}
