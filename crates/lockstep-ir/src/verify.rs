//! A verifier for modules: every handle is in range, operand types agree
//! with each node's contract, places are well formed, and `Break`/`Continue`
//! sit inside a loop or switch.
//!
//! Front ends run it in their tests; a back end may run it before trusting a
//! module. Each problem is reported as one line of text.

use crate::types::{ScalarType, Type, TypeArena, TypeId};
use crate::{
    Access, BinaryOp, Block, CallArg, Expr, ExprKind, Function, Module, ParamDirection, Place,
    PlaceRoot, Stmt, UnaryOp,
};

/// Checks the module; an empty list means it is well formed.
pub fn verify(module: &Module) -> Vec<String> {
    let mut v = Verifier {
        m: module,
        errors: Vec::new(),
        function: None,
        loops: 0,
        breakables: 0,
        depth: 0,
    };
    v.module();
    v.errors
}

struct Verifier<'a> {
    m: &'a Module,
    errors: Vec<String>,
    function: Option<&'a Function>,
    loops: u32,
    breakables: u32,
    depth: u32,
}

/// Scalar type and component count of a numeric type.
fn numeric(types: &TypeArena, ty: TypeId) -> Option<(ScalarType, u32)> {
    match *types.get(ty) {
        Type::Scalar(s) => Some((s, 1)),
        Type::Vector(s, n) => Some((s, u32::from(n))),
        Type::Matrix {
            scalar, rows, cols, ..
        } => Some((scalar, u32::from(rows) * u32::from(cols))),
        _ => None,
    }
}

impl<'a> Verifier<'a> {
    fn types(&self) -> &'a TypeArena {
        &self.m.types
    }

    fn fail(&mut self, message: String) {
        let prefix = self
            .function
            .map_or_else(|| "module".to_string(), |f| format!("fn {}", f.name));
        self.errors.push(format!("{prefix}: {message}"));
    }

    fn show(&self, ty: TypeId) -> String {
        self.m.types.display(ty)
    }

    fn module(&mut self) {
        self.block(&self.m.static_init);
        for f in &self.m.functions {
            self.function = Some(f);
            if f.params.len() > f.locals.len() {
                self.fail("more parameters than locals".to_string());
            }
            self.loops = 0;
            self.breakables = 0;
            self.block(&f.body);
        }
        self.function = None;
        if let Some(e) = &self.m.entry {
            match self.m.functions.get(e.function.index()) {
                Some(f) if e.inputs.iter().all(|i| (i.param as usize) < f.params.len()) => {}
                Some(_) => self.fail("entry point inputs do not match its parameters".to_string()),
                None => self.fail("entry point names a missing function".to_string()),
            }
        }
    }

    fn block(&mut self, b: &'a Block) {
        for s in &b.stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &'a Stmt) {
        match s {
            Stmt::Expr(e) => self.expr(e),
            Stmt::If {
                cond,
                accept,
                reject,
            } => {
                self.expect_bool_scalar(cond, "if condition");
                self.block(accept);
                self.block(reject);
            }
            Stmt::Loop {
                body, continuing, ..
            } => {
                self.loops += 1;
                self.breakables += 1;
                self.block(body);
                self.block(continuing);
                self.loops -= 1;
                self.breakables -= 1;
            }
            Stmt::Switch { selector, cases } => {
                self.expr(selector);
                if !matches!(self.types().get(selector.ty), Type::Scalar(s) if s.is_integer()) {
                    self.fail(format!(
                        "switch selector has type '{}'",
                        self.show(selector.ty)
                    ));
                }
                self.breakables += 1;
                for c in cases {
                    self.block(&c.body);
                }
                self.breakables -= 1;
            }
            Stmt::Break if self.breakables == 0 => {
                self.fail("'break' outside a loop or switch".to_string())
            }
            Stmt::Continue if self.loops == 0 => self.fail("'continue' outside a loop".to_string()),
            Stmt::Break | Stmt::Continue | Stmt::Barrier(_) => {}
            Stmt::Return(value) => self.return_stmt(value.as_ref()),
        }
    }

    fn return_stmt(&mut self, value: Option<&'a Expr>) {
        let expected = self.function.and_then(|f| f.result);
        match (value, expected) {
            (None, None) => {}
            (Some(e), Some(t)) => {
                self.expr(e);
                if e.ty != t {
                    self.fail(format!(
                        "return of '{}' from a function returning '{}'",
                        self.show(e.ty),
                        self.show(t)
                    ));
                }
            }
            _ if self.function.is_none() => self.fail("return outside a function".to_string()),
            _ => self.fail("return value does not match the function's result".to_string()),
        }
    }

    fn expect_bool_scalar(&mut self, e: &'a Expr, what: &str) {
        self.expr(e);
        if !matches!(self.types().get(e.ty), Type::Scalar(ScalarType::Bool)) {
            self.fail(format!(
                "{what} has type '{}', expected 'bool'",
                self.show(e.ty)
            ));
        }
    }

    fn expect_same(&mut self, a: TypeId, b: TypeId, what: &str) {
        if a != b {
            self.fail(format!(
                "{what}: '{}' does not match '{}'",
                self.show(a),
                self.show(b)
            ));
        }
    }

    fn expr(&mut self, e: &'a Expr) {
        self.depth += 1;
        if self.depth > 2000 {
            self.fail("expression nested too deeply".to_string());
        } else {
            self.expr_kind(e);
        }
        self.depth -= 1;
    }

    fn expr_kind(&mut self, e: &'a Expr) {
        match &e.kind {
            ExprKind::Const(values) => self.constant(e, values),
            ExprKind::Load(p) => {
                self.place(p);
                self.expect_same(p.ty, e.ty, "load type");
            }
            ExprKind::Construct(args) => self.construct(e, args),
            ExprKind::Splat(x) => {
                self.expr(x);
                let ok = matches!(
                    (numeric(self.types(), x.ty), numeric(self.types(), e.ty)),
                    (Some((s, 1)), Some((t, _))) if s == t
                );
                if !ok {
                    self.fail(format!(
                        "splat of '{}' to '{}'",
                        self.show(x.ty),
                        self.show(e.ty)
                    ));
                }
            }
            ExprKind::Swizzle(x, comps) => self.swizzle(e, x, comps),
            ExprKind::Field(x, i) => {
                self.expr(x);
                match self.types().get(x.ty) {
                    Type::Struct { members, .. }
                        if members.get(*i as usize).is_some_and(|m| m.ty == e.ty) => {}
                    _ => self.fail(format!("field {i} of '{}'", self.show(x.ty))),
                }
            }
            ExprKind::Index(x, i) => {
                self.expr(x);
                self.index(i);
                if !self.index_result_ok(x.ty, e.ty) {
                    self.fail(format!(
                        "index of '{}' typed '{}'",
                        self.show(x.ty),
                        self.show(e.ty)
                    ));
                }
            }
            ExprKind::Unary(op, x) => self.unary(e, *op, x),
            ExprKind::Binary(op, a, b) => self.binary(e, *op, a, b),
            ExprKind::LogicalAnd(a, b) | ExprKind::LogicalOr(a, b) => {
                self.expect_bool_scalar(a, "logical operand");
                self.expect_bool_scalar(b, "logical operand");
            }
            ExprKind::Conditional {
                cond,
                accept,
                reject,
            } => {
                self.expect_bool_scalar(cond, "conditional");
                self.expr(accept);
                self.expr(reject);
                self.expect_same(accept.ty, e.ty, "conditional arm");
                self.expect_same(reject.ty, e.ty, "conditional arm");
            }
            ExprKind::Select {
                cond,
                accept,
                reject,
            } => {
                self.expr(cond);
                self.expr(accept);
                self.expr(reject);
                self.expect_same(accept.ty, e.ty, "select arm");
                self.expect_same(reject.ty, e.ty, "select arm");
                let shapes = (numeric(self.types(), cond.ty), numeric(self.types(), e.ty));
                if !matches!(shapes, (Some((ScalarType::Bool, n)), Some((_, m))) if n == m) {
                    self.fail(format!(
                        "select condition '{}' for '{}'",
                        self.show(cond.ty),
                        self.show(e.ty)
                    ));
                }
            }
            ExprKind::Convert(x) | ExprKind::Bitcast(x) => self.conversion(e, x),
            ExprKind::Builtin(_, args) | ExprKind::Wave(_, args) => {
                for a in args {
                    self.expr(a);
                }
            }
            ExprKind::Call { function, args } => self.call(e, *function, args),
            ExprKind::Assign { place, value, .. } => {
                self.place(place);
                self.expr(value);
                self.expect_same(value.ty, place.ty, "assigned value");
                self.expect_same(e.ty, place.ty, "assignment type");
            }
            ExprKind::Atomic { place, args, .. } => {
                self.place(place);
                if !matches!(self.types().get(place.ty), Type::Scalar(s) if s.is_integer() && s.size() >= 4)
                {
                    self.fail(format!("atomic on '{}'", self.show(place.ty)));
                }
                for a in args {
                    self.expr(a);
                    self.expect_same(a.ty, place.ty, "atomic operand");
                }
            }
            ExprKind::ResourceQuery { resource, .. } => {
                if self.m.resources.get(resource.index()).is_none() {
                    self.fail(format!("resource {} out of range", resource.0));
                }
            }
            ExprKind::Sequence(a, b) => {
                self.expr(a);
                self.expr(b);
                self.expect_same(b.ty, e.ty, "sequence type");
            }
        }
    }

    fn constant(&mut self, e: &Expr, values: &[crate::Scalar]) {
        let mut slots = Vec::new();
        self.types().flatten(e.ty, &mut slots);
        let ok = slots.len() == values.len() && slots.iter().zip(values).all(|(s, v)| *s == v.ty);
        if !ok {
            self.fail(format!(
                "constant does not match its type '{}'",
                self.show(e.ty)
            ));
        }
    }

    fn construct(&mut self, e: &'a Expr, args: &'a [Expr]) {
        let mut total = 0u32;
        for a in args {
            self.expr(a);
            total = total.saturating_add(self.types().component_count(a.ty));
        }
        if total != self.types().component_count(e.ty) {
            self.fail(format!(
                "construct of '{}' from {total} components",
                self.show(e.ty)
            ));
        }
        let mut want = Vec::new();
        self.types().flatten(e.ty, &mut want);
        let mut have = Vec::new();
        for a in args {
            self.types().flatten(a.ty, &mut have);
        }
        if want != have {
            self.fail(format!(
                "construct of '{}' from mismatched scalar types",
                self.show(e.ty)
            ));
        }
    }

    fn swizzle(&mut self, e: &'a Expr, x: &'a Expr, comps: &[u8]) {
        self.expr(x);
        let ok = match (numeric(self.types(), x.ty), numeric(self.types(), e.ty)) {
            (Some((s, n)), Some((t, m))) => {
                s == t && m as usize == comps.len() && comps.iter().all(|&c| u32::from(c) < n)
            }
            _ => false,
        };
        if !ok {
            self.fail(format!(
                "swizzle {comps:?} of '{}' typed '{}'",
                self.show(x.ty),
                self.show(e.ty)
            ));
        }
    }

    fn unary(&mut self, e: &'a Expr, op: UnaryOp, x: &'a Expr) {
        self.expr(x);
        self.expect_same(x.ty, e.ty, "unary operand");
        let s = numeric(self.types(), x.ty).map(|(s, _)| s);
        let ok = match op {
            UnaryOp::Neg => s.is_some_and(|s| s != ScalarType::Bool),
            UnaryOp::Not => s == Some(ScalarType::Bool),
            UnaryOp::BitNot => s.is_some_and(ScalarType::is_integer),
        };
        if !ok {
            self.fail(format!("{op:?} on '{}'", self.show(x.ty)));
        }
    }

    fn binary(&mut self, e: &'a Expr, op: BinaryOp, a: &'a Expr, b: &'a Expr) {
        self.expr(a);
        self.expr(b);
        self.expect_same(a.ty, b.ty, "binary operands");
        let compare = matches!(
            op,
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
        );
        if compare {
            let ok = matches!(
                (numeric(self.types(), a.ty), numeric(self.types(), e.ty)),
                (Some((_, n)), Some((ScalarType::Bool, m))) if n == m
            );
            if !ok {
                self.fail(format!(
                    "comparison of '{}' typed '{}'",
                    self.show(a.ty),
                    self.show(e.ty)
                ));
            }
            return;
        }
        self.expect_same(a.ty, e.ty, "binary result");
        let s = numeric(self.types(), a.ty).map(|(s, _)| s);
        let ok = match op {
            BinaryOp::And | BinaryOp::Or => s == Some(ScalarType::Bool),
            BinaryOp::Shl
            | BinaryOp::Shr
            | BinaryOp::BitAnd
            | BinaryOp::BitOr
            | BinaryOp::BitXor => s.is_some_and(ScalarType::is_integer),
            _ => s.is_some_and(|s| s != ScalarType::Bool),
        };
        if !ok {
            self.fail(format!("{op:?} on '{}'", self.show(a.ty)));
        }
    }

    fn conversion(&mut self, e: &'a Expr, x: &'a Expr) {
        self.expr(x);
        let bitcast = matches!(e.kind, ExprKind::Bitcast(_));
        let ok = match (self.types().get(x.ty), self.types().get(e.ty)) {
            (Type::Scalar(a), Type::Scalar(b)) => !bitcast || a.size() == b.size(),
            (Type::Vector(a, n), Type::Vector(b, m)) => {
                n == m && (!bitcast || a.size() == b.size())
            }
            (
                Type::Matrix {
                    scalar: a,
                    rows: r,
                    cols: c,
                    ..
                },
                Type::Matrix {
                    scalar: b,
                    rows: r2,
                    cols: c2,
                    ..
                },
            ) => r == r2 && c == c2 && (!bitcast || a.size() == b.size()),
            _ => false,
        };
        if !ok {
            self.fail(format!(
                "conversion from '{}' to '{}'",
                self.show(x.ty),
                self.show(e.ty)
            ));
        }
    }

    fn call(&mut self, e: &'a Expr, function: crate::FunctionId, args: &'a [CallArg]) {
        let Some(callee) = self.m.functions.get(function.index()) else {
            self.fail(format!("call of missing function {}", function.0));
            return;
        };
        if callee.params.len() != args.len() {
            self.fail(format!(
                "call of '{}' with {} arguments",
                callee.name,
                args.len()
            ));
            return;
        }
        let void = matches!(self.types().get(e.ty), Type::Void);
        if callee.result != (!void).then_some(e.ty) {
            self.fail(format!(
                "call of '{}' typed '{}'",
                callee.name,
                self.show(e.ty)
            ));
        }
        for (i, (a, dir)) in args.iter().zip(&callee.params).enumerate() {
            let param_ty = callee.locals.get(i).map(|l| l.ty);
            let (ty, ok_dir) = match a {
                CallArg::In(x) => {
                    self.expr(x);
                    (x.ty, *dir == ParamDirection::In)
                }
                CallArg::Out(p) => {
                    self.place(p);
                    (p.ty, *dir == ParamDirection::Out)
                }
                CallArg::InOut(p) => {
                    self.place(p);
                    (p.ty, *dir == ParamDirection::InOut)
                }
            };
            if !ok_dir || param_ty.is_some_and(|t| t != ty) {
                self.fail(format!(
                    "argument {i} of '{}' does not match its parameter",
                    callee.name
                ));
            }
        }
    }

    fn index(&mut self, i: &'a Expr) {
        self.expr(i);
        if !matches!(self.types().get(i.ty), Type::Scalar(s) if s.is_integer()) {
            self.fail(format!("index of type '{}'", self.show(i.ty)));
        }
    }

    /// Whether `result` is what indexing a `base` yields: an array element,
    /// a vector component or a matrix row.
    fn index_result_ok(&self, base: TypeId, result: TypeId) -> bool {
        match (self.types().get(base), self.types().get(result)) {
            (Type::Array { element, .. }, _) => *element == result,
            (Type::Vector(s, _), Type::Scalar(t)) => s == t,
            (Type::Matrix { scalar, cols, .. }, Type::Vector(t, n)) => scalar == t && cols == n,
            _ => false,
        }
    }

    fn root_type(&mut self, p: &'a Place) -> Option<TypeId> {
        match &p.root {
            PlaceRoot::Local(id) => {
                let ty = self
                    .function
                    .and_then(|f| f.locals.get(id.index()))
                    .map(|l| l.ty);
                if ty.is_none() {
                    self.fail(format!("local {} out of range", id.0));
                }
                ty
            }
            PlaceRoot::Static(id) => self.m.statics.get(id.index()).map(|v| v.ty),
            PlaceRoot::Groupshared(id) => self.m.groupshared.get(id.index()).map(|v| v.ty),
            PlaceRoot::BufferElement { resource, index } => {
                self.index(index);
                self.m.resources.get(resource.index()).map(|r| r.element)
            }
            PlaceRoot::ByteAddress { resource, address } => {
                self.index(address);
                self.m.resources.get(resource.index())?;
                None
            }
            PlaceRoot::ConstantBuffer { resource } => {
                self.m.resources.get(resource.index()).map(|r| r.element)
            }
            PlaceRoot::Texel {
                resource,
                coord,
                level,
            } => {
                self.expr(coord);
                if let Some(level) = level {
                    self.expr(level);
                    if !matches!(self.types().get(level.ty), Type::Scalar(ScalarType::UInt32)) {
                        self.fail(format!("mip level of type '{}'", self.show(level.ty)));
                    }
                }
                let r = self.m.resources.get(resource.index())?;
                let Some(n) = r.kind.texture_coords() else {
                    self.fail(format!("texel of '{}', which is not a texture", r.name));
                    return None;
                };
                let ok = match *self.types().get(coord.ty) {
                    Type::Scalar(ScalarType::UInt32) => n == 1,
                    Type::Vector(ScalarType::UInt32, m) => m == n && n > 1,
                    _ => false,
                };
                if !ok {
                    self.fail(format!(
                        "texel coordinate of type '{}' for '{}'",
                        self.show(coord.ty),
                        r.name
                    ));
                }
                Some(r.element)
            }
        }
    }

    fn place(&mut self, p: &'a Place) {
        let byte_address = matches!(p.root, PlaceRoot::ByteAddress { .. });
        let Some(mut ty) = self.root_type(p) else {
            if !byte_address {
                self.fail("place root out of range".to_string());
            }
            return;
        };
        // The shape reached so far, for accesses that leave the arena.
        let mut shape: Option<(ScalarType, u32)> = None;
        for a in &p.path {
            match (a, shape) {
                (Access::Field(i), None) => match self.types().get(ty) {
                    Type::Struct { members, .. } if (*i as usize) < members.len() => {
                        ty = members[*i as usize].ty
                    }
                    _ => return self.fail(format!("field {i} of '{}'", self.show(ty))),
                },
                (Access::Index(i), None) => {
                    self.index(i);
                    match *self.types().get(ty) {
                        Type::Array { element, .. } => ty = element,
                        Type::Vector(s, _) => shape = Some((s, 1)),
                        Type::Matrix { scalar, cols, .. } => {
                            shape = Some((scalar, u32::from(cols)))
                        }
                        _ => return self.fail(format!("index into '{}'", self.show(ty))),
                    }
                }
                (Access::Index(i), Some((s, n))) if n > 1 => {
                    self.index(i);
                    shape = Some((s, 1));
                }
                (Access::Components(c), None) => match numeric(self.types(), ty) {
                    Some((s, n))
                        if c.iter().all(|&x| u32::from(x) < n)
                            && !matches!(self.types().get(ty), Type::Scalar(_)) =>
                    {
                        shape = Some((s, c.len() as u32));
                    }
                    _ => return self.fail(format!("components {c:?} of '{}'", self.show(ty))),
                },
                (Access::Components(c), Some((s, n))) if c.iter().all(|&x| u32::from(x) < n) => {
                    shape = Some((s, c.len() as u32));
                }
                _ => return self.fail("malformed place path".to_string()),
            }
        }
        let ok = match shape {
            None => ty == p.ty,
            Some((s, n)) => {
                numeric(self.types(), p.ty) == Some((s, n))
                    && !matches!(self.types().get(p.ty), Type::Matrix { .. })
            }
        };
        if !ok {
            self.fail(format!(
                "place typed '{}' does not match its path",
                self.show(p.ty)
            ));
        }
    }
}
