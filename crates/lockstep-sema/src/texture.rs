//! Textures without sampling: texel access (`tex[coord]`, `tex.Load`) and
//! `GetDimensions`.
//!
//! A texel is addressed by `uint` (1D), `uint2` (2D) or `uint3` (2D array:
//! x, y, slice; 3D: x, y, z) coordinates. `Load` on a read-only texture
//! takes one more (signed) component, the mip level; a level past the
//! texture's last reads 0.

use lockstep_ir::{
    self as ir, BinaryOp, ExprKind, PlaceRoot, ResourceKind, ResourceQuery, Scalar, ScalarType,
    Type, TypeId,
};
use lockstep_syntax::{Span, ast};

use crate::context::{ResourceInfo, Sema, TExpr};
use crate::types::{Shape, numeric};

/// The outputs of `GetDimensions` (without the mip level and level count).
/// A 1D array's slices are the rows of a 2D texture; a cube array's
/// elements are its slices over six (see `texture_dimensions`).
fn dimension_queries(kind: ResourceKind) -> &'static [ResourceQuery] {
    match kind {
        ResourceKind::TextureCube => &[ResourceQuery::Width, ResourceQuery::Height],
        ResourceKind::Texture2DArray
        | ResourceKind::RWTexture2DArray
        | ResourceKind::TextureCubeArray => &[
            ResourceQuery::Width,
            ResourceQuery::Height,
            ResourceQuery::Elements,
        ],
        _ => match kind.texture_coords() {
            Some(1) => &[ResourceQuery::Width],
            Some(2) => &[ResourceQuery::Width, ResourceQuery::Height],
            _ => &[
                ResourceQuery::Width,
                ResourceQuery::Height,
                ResourceQuery::Depth,
            ],
        },
    }
}

/// How the coordinate components of a texture are spelled in messages.
fn coordinate_names(kind: ResourceKind) -> &'static str {
    match kind {
        ResourceKind::Texture1DArray | ResourceKind::RWTexture1DArray => "x, slice",
        ResourceKind::Texture2DArray | ResourceKind::RWTexture2DArray => "x, y, slice",
        ResourceKind::TextureCube | ResourceKind::TextureCubeArray => "x, y, face",
        _ => match kind.texture_coords() {
            Some(1) => "x",
            Some(2) => "x, y",
            _ => "x, y, z",
        },
    }
}

impl Sema<'_> {
    /// `tex[coord]`: a texel place, writable when the texture is.
    pub fn texel(
        &mut self,
        info: ResourceInfo,
        coord: TExpr,
        coord_span: Span,
        span: Span,
    ) -> Option<TExpr> {
        self.texel_of_level(info, coord, coord_span, None, span)
    }

    /// The texel at `coord` of level `level` (level 0 where `None`).
    fn texel_of_level(
        &mut self,
        info: ResourceInfo,
        coord: TExpr,
        coord_span: Span,
        level: Option<ir::Expr>,
        span: Span,
    ) -> Option<TExpr> {
        let n = info.kind.texture_coords()?;
        self.texels_visible(info, "[]", span)?;
        self.expect_components(info, &coord, n, "coordinate", "", coord_span)?;
        let coord_ty = self.uint_vector(n);
        let coord = self.coerce(coord, coord_ty, coord_span)?;
        let root = PlaceRoot::Texel {
            resource: info.id,
            coord: Box::new(coord),
            level: level.map(Box::new),
        };
        Some(self.load(root, Vec::new(), info.element, span))
    }

    /// `tex.mips[level][coord]`: the texel at `coord` of mip level `level`.
    pub fn texel_at_level(
        &mut self,
        info: ResourceInfo,
        coord: TExpr,
        coord_span: Span,
        level: TExpr,
        span: Span,
    ) -> Option<TExpr> {
        let uint = self.scalar(ScalarType::UInt32);
        let level = self.coerce(level, uint, span)?;
        let level_zero = matches!(self.fold(&level).as_deref(), Some([Scalar { bits: 0, .. }]));
        let level = (!level_zero).then_some(level);
        self.texel_of_level(info, coord, coord_span, level, span)
    }

    /// `tex.Load(location[, offset])`: for read-only textures the
    /// location's last component is the mip level
    /// (`Texture2D.Load(int3(x, y, mip))`), and an integer offset may move
    /// the texel (not the array slice); RW textures have no level
    /// (`RWTexture2D.Load(int2(x, y))`).
    pub fn texture_load(
        &mut self,
        info: ResourceInfo,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<TExpr> {
        let n = info.kind.texture_coords()?;
        self.texels_visible(info, "Load", span)?;
        let with_level = !info.kind.is_writable();
        let (location, offset) = match args {
            [location] => (location, None),
            [location, offset] if with_level => (location, Some(offset)),
            _ => {
                let counts: &[usize] = if with_level { &[1, 2] } else { &[1] };
                self.wrong_arg_count("Load", counts, args.len(), span);
                return None;
            }
        };
        let l = self.lower_value(location)?;
        let m = n + u8::from(with_level);
        let extra = if with_level { ", mip level" } else { "" };
        self.expect_components(info, &l, m, "location", extra, location.span)?;
        // The location is an `int`/`intN`: converted to signed first, then
        // reinterpreted, so that negative coordinates are out of range.
        let int_ty = self.int_vector(ScalarType::Int32, m);
        let l = self.coerce(l, int_ty, location.span)?;
        if !with_level {
            let coord = self.reinterpret_unsigned(l);
            let root = PlaceRoot::Texel {
                resource: info.id,
                coord: Box::new(coord),
                level: None,
            };
            return Some(self.load(root, Vec::new(), info.element, span));
        }
        // The location is read twice (coordinates and level): evaluated
        // once into a temporary when it has effects.
        let mut setup = Vec::new();
        let mut boxed = Box::new(l);
        self.hoist(&mut boxed, &mut setup, location.span);
        let l = *boxed;
        let level_zero = self.component_is_zero(&l, u32::from(n));
        let mut coord = self.components(l.clone(), 0..n);
        if let Some(offset) = offset {
            coord = self.offset_texel(info.kind, l.clone(), coord, offset)?;
        }
        let coord = self.reinterpret_unsigned(coord);
        let level = if level_zero {
            None
        } else {
            let level = self.components(l, n..n + 1);
            Some(Box::new(self.reinterpret_unsigned(level)))
        };
        let root = PlaceRoot::Texel {
            resource: info.id,
            coord: Box::new(coord),
            level,
        };
        let load = self.load(root, Vec::new(), info.element, span);
        if setup.is_empty() {
            return Some(load);
        }
        Some(TExpr::of(self.sequence(setup, load.e)))
    }

    /// `GetDimensions(out width[, out height][, out elements/depth])`, and
    /// for read-only textures `GetDimensions(mipLevel, out width, …, out
    /// numberOfLevels)`: the sizes of that level, or 0 past the last.
    pub fn texture_dimensions(
        &mut self,
        info: ResourceInfo,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<TExpr> {
        let queries = dimension_queries(info.kind);
        let n = queries.len();
        let with_level = args.len() == n + 2 && !info.kind.is_writable();
        if args.len() != n && !with_level {
            let counts: &[usize] = if info.kind.is_writable() {
                &[n]
            } else {
                &[n, n + 2]
            };
            self.wrong_arg_count("GetDimensions", counts, args.len(), span);
            return None;
        }
        let uint = self.scalar(ScalarType::UInt32);
        let mut setup = Vec::new();
        // The mip level: `None` for level 0 (or no level argument).
        let mut level = None;
        let mut all = queries.to_vec();
        let outputs = if with_level {
            let l = self.lower_value(&args[0])?;
            let l = self.coerce(l, uint, args[0].span)?;
            if !matches!(self.fold(&l).as_deref(), Some([Scalar { bits: 0, .. }])) {
                let mut boxed = Box::new(l);
                self.hoist(&mut boxed, &mut setup, args[0].span);
                level = Some(*boxed);
            }
            all.push(ResourceQuery::Levels);
            &args[1..]
        } else {
            args
        };
        let mut assigns = Vec::new();
        for (arg, query) in outputs.iter().zip(all) {
            let out = self.lower_expr(arg)?;
            let place = self.out_place(&out, arg.span)?;
            let q = self.wrap(
                ExprKind::ResourceQuery {
                    resource: info.id,
                    query,
                },
                uint,
                arg.span,
            );
            // A cube array's slices are six faces an element.
            let q = if query == ResourceQuery::Elements
                && info.kind == ResourceKind::TextureCubeArray
            {
                let six = self.u32_const(6, arg.span);
                self.wrap(
                    ExprKind::Binary(BinaryOp::Div, Box::new(q), Box::new(six)),
                    uint,
                    arg.span,
                )
            } else {
                q
            };
            let q = match &level {
                Some(level) if query != ResourceQuery::Levels => {
                    // A 1D array's slices are its rows (its Height): they
                    // do not shrink.
                    let one_d_array = matches!(
                        info.kind,
                        ResourceKind::Texture1DArray | ResourceKind::RWTexture1DArray
                    );
                    let shrinks = query == ResourceQuery::Width
                        || (query == ResourceQuery::Height && !one_d_array)
                        || (query == ResourceQuery::Depth && info.kind == ResourceKind::Texture3D);
                    self.size_at_level(info, q, level.clone(), shrinks, arg.span)
                }
                _ => q,
            };
            let value = self.coerce(TExpr::of(q), place.ty, arg.span)?;
            let ty = place.ty;
            let kind = ExprKind::Assign {
                place,
                value: Box::new(value),
                yield_old: false,
                init: false,
            };
            assigns.push(self.wrap(kind, ty, arg.span));
        }
        let last = assigns.pop()?;
        setup.extend(assigns);
        let mut t = TExpr::of(self.sequence(setup, last));
        t.void = true;
        Some(t)
    }

    /// Cubes are only sampled: their texels are read by the prelude's
    /// sampling functions alone, as a 2D array of faces.
    fn texels_visible(&mut self, info: ResourceInfo, what: &str, span: Span) -> Option<()> {
        if !info.kind.is_cube() || self.library_file == Some(span.file.0) {
            return Some(());
        }
        let texture = self.texture_display(info);
        self.error(
            span,
            format!("'{texture}' has no '{what}': a cube texture is read by sampling it (Sample, SampleLevel, Gather, ...)"),
        );
        None
    }

    /// Whether component `i` of `e` is the constant 0, looking into
    /// constructors (`int3(id.xy, 0)`).
    fn component_is_zero(&self, e: &ir::Expr, i: u32) -> bool {
        if let Some(values) = self.fold(e) {
            return values.get(i as usize).is_some_and(|v| v.bits == 0);
        }
        let ExprKind::Construct(args) = &e.kind else {
            return false;
        };
        let mut i = i;
        for a in args {
            let n = self.module.types.component_count(a.ty);
            if i < n {
                return self.component_is_zero(a, i);
            }
            i -= n;
        }
        false
    }

    /// A size of mip level `level`, from level 0's `value`: halved
    /// `level` times (at least 1) where it `shrinks`, 0 past the last level
    /// (as D3D's `resinfo` gives).
    fn size_at_level(
        &mut self,
        info: ResourceInfo,
        value: ir::Expr,
        level: ir::Expr,
        shrinks: bool,
        span: Span,
    ) -> ir::Expr {
        let uint = self.scalar(ScalarType::UInt32);
        let boolean = self.scalar(ScalarType::Bool);
        let zero = self.u32_const(0, span);
        let levels = self.wrap(
            ExprKind::ResourceQuery {
                resource: info.id,
                query: ResourceQuery::Levels,
            },
            uint,
            span,
        );
        let cond = self.wrap(
            ExprKind::Binary(BinaryOp::Lt, Box::new(level.clone()), Box::new(levels)),
            boolean,
            span,
        );
        let value = if shrinks {
            let shifted = self.wrap(
                ExprKind::Binary(BinaryOp::Shr, Box::new(value), Box::new(level)),
                uint,
                span,
            );
            let one = self.u32_const(1, span);
            let is_zero = self.wrap(
                ExprKind::Binary(
                    BinaryOp::Eq,
                    Box::new(shifted.clone()),
                    Box::new(zero.clone()),
                ),
                boolean,
                span,
            );
            self.wrap(
                ExprKind::Select {
                    cond: Box::new(is_zero),
                    accept: Box::new(one),
                    reject: Box::new(shifted),
                },
                uint,
                span,
            )
        } else {
            value
        };
        self.wrap(
            ExprKind::Select {
                cond: Box::new(cond),
                accept: Box::new(value),
                reject: Box::new(zero),
            },
            uint,
            span,
        )
    }

    /// Checks that a coordinate or location has exactly `n` components.
    fn expect_components(
        &mut self,
        info: ResourceInfo,
        t: &TExpr,
        n: u8,
        what: &str,
        extra: &str,
        span: Span,
    ) -> Option<()> {
        let count = match numeric(&self.module.types, t.ty()) {
            Some((_, Shape::Scalar)) => Some(1),
            Some((_, Shape::Vector(m))) => Some(m),
            _ => None,
        };
        if count == Some(n) {
            return Some(());
        }
        let texture = self.texture_display(info);
        let shown = self.show_t(t);
        let components = if n == 1 {
            "1 component".to_string()
        } else {
            format!("{n} components")
        };
        let names = coordinate_names(info.kind);
        self.error(
            span,
            format!(
                "the {what} of '{texture}' must have {components} ({names}{extra}), but has type '{shown}'"
            ),
        );
        None
    }

    fn texture_display(&self, info: ResourceInfo) -> String {
        format!("{:?}<{}>", info.kind, self.show(info.element))
    }

    fn uint_vector(&mut self, n: u8) -> TypeId {
        self.int_vector(ScalarType::UInt32, n)
    }

    fn int_vector(&mut self, s: ScalarType, n: u8) -> TypeId {
        if n == 1 {
            self.scalar(s)
        } else {
            self.intern(Type::Vector(s, n))
        }
    }

    /// A constant texel offset must lie in -8..=7 (four bits, as DXC
    /// validates it); `None` after the error.
    pub(crate) fn check_offset_range(&mut self, o: &ir::Expr, span: Span) -> Option<()> {
        let Some(values) = self.fold(o) else {
            return Some(());
        };
        let outside: Vec<i128> = values
            .iter()
            .map(|&v| crate::fold::as_i128(v))
            .filter(|v| !(-8..=7).contains(v))
            .collect();
        if let Some(v) = outside.first() {
            self.error(
                span,
                format!("a texel offset is -8 to 7 in each component, not {v}"),
            );
            return None;
        }
        Some(())
    }

    /// `coord` (the first components of `location`) moved by the integer
    /// `offset`, which has one component per dimension of the texel (the
    /// slice of an array does not move).
    fn offset_texel(
        &mut self,
        kind: ir::ResourceKind,
        location: ir::Expr,
        coord: ir::Expr,
        offset: &ast::Expr,
    ) -> Option<ir::Expr> {
        let n = kind.texture_coords()?;
        let spatial = if kind.is_texture_array() { n - 1 } else { n };
        let o = self.lower_value(offset)?;
        let int_ty = self.int_vector(ScalarType::Int32, spatial);
        let o = self.coerce(o, int_ty, offset.span)?;
        self.check_offset_range(&o, offset.span)?;
        let moved_part = if spatial == n {
            coord
        } else {
            self.components(location.clone(), 0..spatial)
        };
        let moved = self.binary_values(
            ast::BinaryOp::Add,
            TExpr::of(moved_part),
            TExpr::of(o),
            offset.span,
        )?;
        if spatial == n {
            return Some(moved.e);
        }
        let slice = self.components(location, spatial..n);
        let ty = self.int_vector(ScalarType::Int32, n);
        let span = moved.e.span;
        Some(ir::Expr {
            kind: ExprKind::Construct(vec![moved.e, slice]),
            ty,
            span,
        })
    }

    /// Components `range` of a signed vector (a scalar when one).
    fn components(&mut self, v: ir::Expr, range: std::ops::Range<u8>) -> ir::Expr {
        let ty = self.int_vector(ScalarType::Int32, range.len() as u8);
        let span = v.span;
        ir::Expr {
            kind: ExprKind::Swizzle(Box::new(v), range.collect()),
            ty,
            span,
        }
    }

    /// The same bits as `uint`/`uintN`.
    fn reinterpret_unsigned(&mut self, v: ir::Expr) -> ir::Expr {
        let n = match *self.get(v.ty) {
            Type::Vector(_, n) => n,
            _ => 1,
        };
        let ty = self.uint_vector(n);
        let span = v.span;
        ir::Expr {
            kind: ExprKind::Bitcast(Box::new(v)),
            ty,
            span,
        }
    }
}
