//! Walks over the IR: every expression of a block, places' indices and
//! coordinates included, and the resources a block names.

use crate::{Access, Block, CallArg, Expr, ExprKind, Place, PlaceRoot, ResourceId, Stmt};

/// Calls `f` on every expression of `block`, outer ones before the
/// expressions inside them.
pub fn each_expr<'a>(block: &'a Block, f: &mut impl FnMut(&'a Expr)) {
    for s in &block.stmts {
        match s {
            Stmt::Expr(e) => expr(e, f),
            Stmt::If {
                cond,
                accept,
                reject,
            } => {
                expr(cond, f);
                each_expr(accept, f);
                each_expr(reject, f);
            }
            Stmt::Loop {
                body, continuing, ..
            } => {
                each_expr(body, f);
                each_expr(continuing, f);
            }
            Stmt::Switch { selector, cases } => {
                expr(selector, f);
                for c in cases {
                    each_expr(&c.body, f);
                }
            }
            Stmt::Return(Some(e)) => expr(e, f),
            Stmt::Return(None) | Stmt::Break | Stmt::Continue | Stmt::Barrier(_) => {}
        }
    }
}

fn expr<'a>(e: &'a Expr, f: &mut impl FnMut(&'a Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Const(_) | ExprKind::ResourceQuery { .. } => {}
        ExprKind::Load(p) => place(p, f),
        ExprKind::Construct(args) | ExprKind::Builtin(_, args) | ExprKind::Wave(_, args) => {
            for a in args {
                expr(a, f);
            }
        }
        ExprKind::Call { args, .. } => {
            for a in args {
                match a {
                    CallArg::In(e) => expr(e, f),
                    CallArg::Out(p) | CallArg::InOut(p) => place(p, f),
                }
            }
        }
        ExprKind::Splat(x)
        | ExprKind::Swizzle(x, _)
        | ExprKind::Field(x, _)
        | ExprKind::Unary(_, x)
        | ExprKind::Convert(x)
        | ExprKind::Bitcast(x) => expr(x, f),
        ExprKind::Index(x, i) => {
            expr(x, f);
            expr(i, f);
        }
        ExprKind::Binary(_, a, b)
        | ExprKind::LogicalAnd(a, b)
        | ExprKind::LogicalOr(a, b)
        | ExprKind::Sequence(a, b) => {
            expr(a, f);
            expr(b, f);
        }
        ExprKind::Conditional {
            cond,
            accept,
            reject,
        }
        | ExprKind::Select {
            cond,
            accept,
            reject,
        } => {
            expr(cond, f);
            expr(accept, f);
            expr(reject, f);
        }
        ExprKind::Assign {
            place: p, value, ..
        } => {
            place(p, f);
            expr(value, f);
        }
        ExprKind::Atomic { place: p, args, .. } => {
            place(p, f);
            for a in args {
                expr(a, f);
            }
        }
    }
}

/// Calls `f` on every expression of place `p` (its indices, address or
/// coordinates), outer ones first.
pub fn place_exprs<'a>(p: &'a Place, f: &mut impl FnMut(&'a Expr)) {
    place(p, f);
}

/// Whether evaluating place `p` may change a variable or memory: an
/// assignment, an atomic or a call among its expressions.
pub fn place_has_effects(p: &Place) -> bool {
    let mut effects = false;
    place(p, &mut |e| {
        effects |= matches!(
            e.kind,
            ExprKind::Assign { .. } | ExprKind::Atomic { .. } | ExprKind::Call { .. }
        );
    });
    effects
}

fn place<'a>(p: &'a Place, f: &mut impl FnMut(&'a Expr)) {
    match &p.root {
        PlaceRoot::BufferElement { index, .. } => expr(index, f),
        PlaceRoot::ByteAddress { address, .. } => expr(address, f),
        PlaceRoot::Texel { coord, level, .. } => {
            expr(coord, f);
            if let Some(level) = level {
                expr(level, f);
            }
        }
        PlaceRoot::Local(_)
        | PlaceRoot::Static(_)
        | PlaceRoot::Groupshared(_)
        | PlaceRoot::ConstantBuffer { .. } => {}
    }
    for a in &p.path {
        if let Access::Index(i) = a {
            expr(i, f);
        }
    }
}

/// The resource a place reads or writes, if any.
pub fn place_resource(p: &Place) -> Option<ResourceId> {
    match &p.root {
        PlaceRoot::BufferElement { resource, .. }
        | PlaceRoot::ByteAddress { resource, .. }
        | PlaceRoot::ConstantBuffer { resource }
        | PlaceRoot::Texel { resource, .. } => Some(*resource),
        PlaceRoot::Local(_) | PlaceRoot::Static(_) | PlaceRoot::Groupshared(_) => None,
    }
}

/// Calls `f` on every resource `block` reads, writes or measures (a
/// resource may come more than once).
pub fn each_resource(block: &Block, f: &mut impl FnMut(ResourceId)) {
    each_expr(block, &mut |e| match &e.kind {
        ExprKind::Load(p)
        | ExprKind::Assign { place: p, .. }
        | ExprKind::Atomic { place: p, .. } => {
            if let Some(r) = place_resource(p) {
                f(r);
            }
        }
        ExprKind::ResourceQuery { resource, .. } => f(*resource),
        ExprKind::Call { args, .. } => {
            for a in args {
                if let CallArg::Out(p) | CallArg::InOut(p) = a
                    && let Some(r) = place_resource(p)
                {
                    f(r);
                }
            }
        }
        _ => {}
    });
}
