//! Elements of resource arrays chosen per lane (`a[NonUniformResourceIndex(i)]`):
//! each use of one becomes a choice, lane by lane, among the array's
//! resources.
//!
//! While a function is lowered, such an element is a placeholder resource
//! (see [`crate::context::DynamicResource`]). When the body is done, every
//! expression that uses a placeholder directly (a load, store, atomic,
//! resource query, or a call with the element as an `out` argument) is
//! rewritten as: its element index and operands evaluated once, on all of
//! its lanes, into temporaries; then `k == 0 ? use(a[0]) : k == 1 ? … :
//! use(a[n - 1])`, where only the memory access itself runs per choice.
//! Wave operations among the operands therefore see the same lanes as on a
//! GPU. An index past the end uses the last element (the specification
//! leaves it undefined).

use lockstep_ir::{
    self as ir, Access, BinaryOp, Block, CallArg, Expr, ExprKind, Place, PlaceRoot, ResourceId,
    ScalarType, Stmt,
};

use crate::context::{DYNAMIC_RESOURCE_BASE, Sema};

impl Sema<'_> {
    /// Resolves the placeholders in a function body just lowered.
    pub(crate) fn resolve_dynamic_resources(&mut self, block: &mut Block) {
        if !self.dynamic_resources.is_empty() {
            self.dynamic_block(block);
        }
    }

    fn dynamic_block(&mut self, block: &mut Block) {
        for stmt in &mut block.stmts {
            match stmt {
                Stmt::Expr(e) | Stmt::Return(Some(e)) => self.dynamic_expr(e),
                Stmt::If {
                    cond,
                    accept,
                    reject,
                } => {
                    self.dynamic_expr(cond);
                    self.dynamic_block(accept);
                    self.dynamic_block(reject);
                }
                Stmt::Loop {
                    body, continuing, ..
                } => {
                    self.dynamic_block(body);
                    self.dynamic_block(continuing);
                }
                Stmt::Switch { selector, cases } => {
                    self.dynamic_expr(selector);
                    for case in cases {
                        self.dynamic_block(&mut case.body);
                    }
                }
                Stmt::Return(None) | Stmt::Break | Stmt::Continue | Stmt::Barrier(_) => {}
            }
        }
    }

    fn dynamic_expr(&mut self, e: &mut Expr) {
        for child in children(e) {
            self.dynamic_expr(child);
        }
        if let Some(placeholder) = placeholder_of(e) {
            self.expand(e, placeholder);
        }
    }

    /// Rewrites `e`, which uses `placeholder`, as a choice among the
    /// array's elements.
    fn expand(&mut self, e: &mut Expr, placeholder: ResourceId) {
        let dynamic =
            self.dynamic_resources[(placeholder.0 - DYNAMIC_RESOURCE_BASE) as usize].clone();
        let span = e.span;
        let uint = self.scalar(ScalarType::UInt32);
        let bool_ty = self.scalar(ScalarType::Bool);
        let mut setup = Vec::new();
        let index = self.temporary(dynamic.index, &mut setup);
        for child in children(e) {
            if needs_temporary(child) {
                let value = std::mem::replace(child, constant(0, uint, span));
                *child = self.temporary(value, &mut setup);
            }
        }
        let mut chain: Option<Expr> = None;
        for k in (0..dynamic.count).rev() {
            let mut arm = e.clone();
            replace_resource(&mut arm, placeholder, ResourceId(dynamic.first.0 + k));
            // Another placeholder of the same expression.
            if let Some(other) = placeholder_of(&arm) {
                self.expand(&mut arm, other);
            }
            chain = Some(match chain {
                None => arm,
                Some(rest) => {
                    let cond = Expr {
                        kind: ExprKind::Binary(
                            BinaryOp::Eq,
                            Box::new(index.clone()),
                            Box::new(constant(k, uint, span)),
                        ),
                        ty: bool_ty,
                        span,
                    };
                    Expr {
                        kind: ExprKind::Conditional {
                            cond: Box::new(cond),
                            accept: Box::new(arm),
                            reject: Box::new(rest),
                        },
                        ty: e.ty,
                        span,
                    }
                }
            });
        }
        let Some(chain) = chain else { return };
        *e = setup.into_iter().rev().fold(chain, |rest, first| Expr {
            ty: rest.ty,
            span,
            kind: ExprKind::Sequence(Box::new(first), Box::new(rest)),
        });
    }

    /// A new local holding `value`: the assignment goes to `setup`, the
    /// load of the local is returned.
    pub(crate) fn temporary(&mut self, value: Expr, setup: &mut Vec<Expr>) -> Expr {
        let span = value.span;
        let ty = value.ty;
        let Some(fcx) = self.fcx.as_mut() else {
            return value;
        };
        let id = ir::LocalId(fcx.locals.len() as u32);
        fcx.locals.push(ir::Variable {
            name: format!("resource.{}", id.0),
            ty,
            span,
        });
        setup.push(assign_local(id, value, false));
        Expr {
            kind: ExprKind::Load(Place {
                root: PlaceRoot::Local(id),
                path: Vec::new(),
                ty,
            }),
            ty,
            span,
        }
    }
}

/// `local = value`; `init`: the local's initialization (a declaration).
pub(crate) fn assign_local(id: ir::LocalId, value: Expr, init: bool) -> Expr {
    let (ty, span) = (value.ty, value.span);
    Expr {
        kind: ExprKind::Assign {
            place: Place {
                root: PlaceRoot::Local(id),
                path: Vec::new(),
                ty,
            },
            value: Box::new(value),
            yield_old: false,
            init,
        },
        ty,
        span,
    }
}

fn constant(value: u32, ty: ir::TypeId, span: ir::Span) -> Expr {
    Expr {
        kind: ExprKind::Const(vec![ir::Scalar {
            ty: ScalarType::UInt32,
            bits: u64::from(value),
        }]),
        ty,
        span,
    }
}

/// Whether an operand must be computed before the choice: anything but a
/// constant or a plain local.
fn needs_temporary(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Const(_) => false,
        ExprKind::Load(place) => {
            !(matches!(place.root, PlaceRoot::Local(_))
                && place.path.iter().all(|a| !matches!(a, Access::Index(_))))
        }
        _ => true,
    }
}

fn is_placeholder(id: ResourceId) -> bool {
    id.0 >= DYNAMIC_RESOURCE_BASE
}

/// The resource a place's root names, if any.
fn root_resource(place: &Place) -> Option<ResourceId> {
    match &place.root {
        PlaceRoot::BufferElement { resource, .. }
        | PlaceRoot::ByteAddress { resource, .. }
        | PlaceRoot::ConstantBuffer { resource }
        | PlaceRoot::Texel { resource, .. } => Some(*resource),
        PlaceRoot::Local(_) | PlaceRoot::Static(_) | PlaceRoot::Groupshared(_) => None,
    }
}

/// The places that `e` itself reads or writes (not those of its operands).
fn own_places(e: &mut Expr) -> Vec<&mut Place> {
    match &mut e.kind {
        ExprKind::Load(place) | ExprKind::Assign { place, .. } | ExprKind::Atomic { place, .. } => {
            vec![place]
        }
        ExprKind::Call { args, .. } => args
            .iter_mut()
            .filter_map(|a| match a {
                CallArg::In(_) => None,
                CallArg::Out(place) | CallArg::InOut(place) => Some(place),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The first placeholder that `e` uses directly.
fn placeholder_of(e: &Expr) -> Option<ResourceId> {
    let own: Vec<&Place> = match &e.kind {
        ExprKind::ResourceQuery { resource, .. } => {
            return is_placeholder(*resource).then_some(*resource);
        }
        ExprKind::Load(place) | ExprKind::Assign { place, .. } | ExprKind::Atomic { place, .. } => {
            vec![place]
        }
        ExprKind::Call { args, .. } => args
            .iter()
            .filter_map(|a| match a {
                CallArg::In(_) => None,
                CallArg::Out(place) | CallArg::InOut(place) => Some(place),
            })
            .collect(),
        _ => Vec::new(),
    };
    own.into_iter()
        .filter_map(root_resource)
        .find(|&r| is_placeholder(r))
}

/// Replaces `from` by `to` where `e` itself uses it.
fn replace_resource(e: &mut Expr, from: ResourceId, to: ResourceId) {
    if let ExprKind::ResourceQuery { resource, .. } = &mut e.kind
        && *resource == from
    {
        *resource = to;
    }
    for place in own_places(e) {
        match &mut place.root {
            PlaceRoot::BufferElement { resource, .. }
            | PlaceRoot::ByteAddress { resource, .. }
            | PlaceRoot::ConstantBuffer { resource }
            | PlaceRoot::Texel { resource, .. } => {
                if *resource == from {
                    *resource = to;
                }
            }
            PlaceRoot::Local(_) | PlaceRoot::Static(_) | PlaceRoot::Groupshared(_) => {}
        }
    }
}

/// The operands of a place: its root's index, address or coordinates, and
/// the indices of its path.
fn place_operands(place: &mut Place) -> Vec<&mut Expr> {
    let mut operands: Vec<&mut Expr> = match &mut place.root {
        PlaceRoot::BufferElement { index, .. } => vec![&mut **index],
        PlaceRoot::ByteAddress { address, .. } => vec![&mut **address],
        PlaceRoot::Texel { coord, level, .. } => {
            let mut v = vec![&mut **coord];
            if let Some(level) = level {
                v.push(&mut **level);
            }
            v
        }
        PlaceRoot::ConstantBuffer { .. }
        | PlaceRoot::Local(_)
        | PlaceRoot::Static(_)
        | PlaceRoot::Groupshared(_) => Vec::new(),
    };
    for access in &mut place.path {
        if let Access::Index(e) = access {
            operands.push(&mut **e);
        }
    }
    operands
}

/// The operands of `e`, in the order they are evaluated.
fn children(e: &mut Expr) -> Vec<&mut Expr> {
    match &mut e.kind {
        ExprKind::Const(_) | ExprKind::ResourceQuery { .. } => Vec::new(),
        ExprKind::Load(place) => place_operands(place),
        ExprKind::Construct(es) | ExprKind::Builtin(_, es) | ExprKind::Wave(_, es) => {
            es.iter_mut().collect()
        }
        ExprKind::Splat(a)
        | ExprKind::Swizzle(a, _)
        | ExprKind::Field(a, _)
        | ExprKind::Unary(_, a)
        | ExprKind::Convert(a)
        | ExprKind::Bitcast(a) => vec![&mut **a],
        ExprKind::Index(a, b)
        | ExprKind::Binary(_, a, b)
        | ExprKind::LogicalAnd(a, b)
        | ExprKind::LogicalOr(a, b)
        | ExprKind::Sequence(a, b) => vec![&mut **a, &mut **b],
        ExprKind::Conditional {
            cond,
            accept,
            reject,
        }
        | ExprKind::Select {
            cond,
            accept,
            reject,
        } => vec![&mut **cond, &mut **accept, &mut **reject],
        ExprKind::Call { args, .. } => {
            let mut operands = Vec::new();
            for arg in args {
                match arg {
                    CallArg::In(e) => operands.push(e),
                    CallArg::Out(place) | CallArg::InOut(place) => {
                        operands.extend(place_operands(place));
                    }
                }
            }
            operands
        }
        ExprKind::Assign { place, value, .. } => {
            let mut operands = place_operands(place);
            operands.push(&mut **value);
            operands
        }
        ExprKind::Atomic { place, args, .. } => {
            let mut operands = place_operands(place);
            operands.extend(args.iter_mut());
            operands
        }
    }
}
