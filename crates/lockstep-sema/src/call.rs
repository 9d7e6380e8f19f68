//! Calls: constructors, the intrinsic catalogue's generic resolution, the
//! intrinsics with their own rules (`mul`, `select`, `asuint`, …), and
//! dispatch to user functions and `Interlocked*`.

use lockstep_ir::{self as ir, BinaryOp, Builtin, ExprKind, ScalarType, Type, TypeId, WaveOp};
use lockstep_syntax::{Diagnostic, Span, ast};

use crate::context::{Lit, Sema, TExpr};
use crate::convert::common_scalar;
use crate::intrinsics::{self, Class, Intrinsic, Op, Param, Ret, Shapes};
use crate::types::{Resolved, Shape, make_type, numeric};

impl Sema<'_> {
    pub fn lower_call(
        &mut self,
        callee: &ast::Callee,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<TExpr> {
        match callee {
            ast::Callee::Type(te) => self.lower_constructor(te, args, span),
            ast::Callee::Name(id) => self.lower_named_call(id, args, span),
            ast::Callee::Template {
                name,
                args: template_args,
            } => {
                if !self.templates.contains_key(&name.name) {
                    self.error(
                        name.span,
                        format!("'{}' is not a function template", name.name),
                    );
                    return None;
                }
                self.call_template(&name.name, Some(template_args), args, span)
            }
        }
    }

    fn lower_named_call(
        &mut self,
        id: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<TExpr> {
        let name = id.name.as_str();
        if let Some(sm) = crate::prelude::shader_model(name)
            && !self.check_shader_model(name, sm, span)
        {
            return None;
        }
        if name == "IsHelperLane"
            && args.is_empty()
            && let Some(t) = self.is_helper_lane(span)
        {
            return Some(t);
        }
        let is_variable = self.lookup_local(name).is_some() || self.globals.contains_key(name);
        if !is_variable && self.is_type_name(name) {
            let te = ast::TypeExpr {
                name: id.clone(),
                args: Vec::new(),
                modifiers: Vec::new(),
                span: id.span,
            };
            return self.lower_constructor(&te, args, span);
        }
        // In a member function, a sibling member function of the object.
        if let Some(this) = self.lookup_local("this") {
            let ty = self.fcx.as_ref()?.locals[this.index()].ty;
            if let Some((full, depth)) = self.member_function(ty, name) {
                let mut all = Vec::with_capacity(args.len() + 1);
                if self.takes_object(&full) {
                    all.push(crate::expr::base_of(crate::expr::this_expr(id.span), depth));
                }
                all.extend(args.iter().cloned());
                return self.call_user(&full, &all, span);
            }
        }
        // In a static member function of `S`, a sibling `S::f`.
        if self.lookup_local("this").is_none()
            && !name.contains("::")
            && let Some(owner) = self
                .fcx
                .as_ref()
                .and_then(|f| Some(f.name.rsplit_once('.')?.0.to_string()))
        {
            let full = format!("{owner}.{name}");
            if self.functions.contains_key(&full) {
                return self.call_user(&full, args, span);
            }
        }
        // `S::f(…)`: a member function named with its struct; inside a
        // member function of `S` or of a struct derived from it, the object
        // is `this` (or its base part).
        if let Some((scope, member)) = name.rsplit_once("::") {
            if let Some(t) = self.static_member_of_type(scope, member, args, span) {
                return t;
            }
            let full = format!("{scope}.{member}");
            if self.functions.contains_key(&full) {
                let mut all = args.to_vec();
                let this_depth = self.lookup_local("this").and_then(|this| {
                    let ty = self.fcx.as_ref()?.locals[this.index()].ty;
                    self.base_named(ty, scope)
                });
                if let (Some(depth), true) = (this_depth, self.takes_object(&full)) {
                    all.insert(
                        0,
                        crate::expr::base_of(crate::expr::this_expr(id.span), depth),
                    );
                }
                return self.call_user(&full, &all, span);
            }
        }
        if self.resource_functions.contains_key(name) {
            return self.call_with_resources(name, args, span);
        }
        if self.templates.contains_key(name) && !self.functions.contains_key(name) {
            return self.call_template(name, None, args, span);
        }
        if self.functions.contains_key(name) {
            return self.call_user(name, args, span);
        }
        let renamed = |table: &[(&'static str, &'static str)]| {
            table
                .iter()
                .find(|(old, _)| *old == name)
                .map(|&(_, current)| current)
        };
        let warning = if let Some(current) = renamed(intrinsics::LEGACY_NAMES) {
            Some((
                current,
                format!("'{name}' is deprecated: use '{current}' instead"),
            ))
        } else {
            renamed(intrinsics::NOT_HLSL_NAMES).map(|current| {
                (
                    current,
                    format!("'{name}' is not an HLSL intrinsic: use '{current}' instead"),
                )
            })
        };
        if let Some((current, message)) = warning {
            self.warning(id.span, message);
            let intrinsic = intrinsics::find(current)?;
            return self.call_intrinsic(intrinsic, name, args, span);
        }
        if let Some(intrinsic) = intrinsics::find(name) {
            return self.call_intrinsic(intrinsic, name, args, span);
        }
        if matches!(name, "printf" | "errorf") {
            return self.lower_printf(args, span);
        }
        if let Some(t) = self.group_wave_intrinsic(id, args, span) {
            return t;
        }
        if intrinsics::SPECIAL_NAMES.contains(&name) {
            return self.call_special(name, args, span);
        }
        if let Some((op, counts)) = crate::resource::interlocked_op(name) {
            return self.lower_interlocked(name, op, counts, args, span);
        }
        if intrinsics::BARRIERS.iter().any(|b| b.0 == name) {
            self.error(span, format!("'{name}' can only be called as a statement"));
            return None;
        }
        if is_variable {
            let object = ast::Expr {
                kind: ast::ExprKind::Ident(id.clone()),
                span: id.span,
            };
            let t = self.lower_expr(&object);
            // `f(x)` on a struct with a member `operator()`.
            if let Some(t) = &t
                && let Some(call) = self.overloaded_operator("()", t.ty(), &object, args, span)
            {
                return call;
            }
            let shown = t.map_or_else(|| "resource".to_string(), |t| self.show(t.ty()));
            self.error(
                span,
                format!("called object type '{shown}' is not a function"),
            );
            return None;
        }
        if let Some(reason) = intrinsics::unsupported(name) {
            self.error(
                id.span,
                format!("'{name}' is not supported by Lockstep: {reason}"),
            );
            return None;
        }
        self.undeclared(id);
        None
    }

    /// `printf(format, args…)`: accepted, its arguments checked, nothing
    /// printed.
    fn lower_printf(&mut self, args: &[ast::Expr], span: Span) -> Option<TExpr> {
        let Some((format, rest)) = args.split_first() else {
            self.error(span, "printf needs a format string");
            return None;
        };
        if !matches!(format.kind, ast::ExprKind::StringLit(_)) {
            self.error(format.span, "printf's format must be a string literal");
            return None;
        }
        for arg in rest {
            self.lower_value(arg)?;
        }
        let void = self.void();
        Some(TExpr::new(ExprKind::Const(Vec::new()), void, span))
    }

    fn lower_args(&mut self, args: &[ast::Expr]) -> Option<Vec<TExpr>> {
        let lowered: Vec<Option<TExpr>> = args.iter().map(|a| self.lower_value(a)).collect();
        lowered.into_iter().collect()
    }

    // ----- constructors -----

    pub(crate) fn lower_constructor(
        &mut self,
        te: &ast::TypeExpr,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<TExpr> {
        let target = match self.resolve_type(te)? {
            Resolved::Value(t) => t,
            Resolved::Resource(..) => {
                self.error(
                    span,
                    format!("resource type '{}' cannot be constructed", te.name.name),
                );
                return None;
            }
        };
        let values = self.lower_args(args)?;
        let Some((s, shape)) = numeric(&self.module.types, target) else {
            let shown = self.show(target);
            self.error(
                span,
                format!("no matching constructor for initialization of '{shown}'"),
            );
            return None;
        };
        if shape == Shape::Scalar && values.len() == 1 {
            let v = values.into_iter().next()?;
            return self.cast_to(v, target, span).map(TExpr::of);
        }
        let mut parts = Vec::new();
        let mut count = 0u32;
        for (v, a) in values.into_iter().zip(args) {
            let Some((_, arg_shape)) = numeric(&self.module.types, v.ty()) else {
                let shown = self.show(v.ty());
                self.error(
                    a.span,
                    format!("cannot use a value of type '{shown}' in a constructor"),
                );
                return None;
            };
            count += arg_shape.count();
            let arg_ty = self.intern(make_type(s, arg_shape));
            parts.push(self.cast_to(v, arg_ty, a.span)?);
        }
        if count != shape.count() {
            let what = if matches!(shape, Shape::Matrix(..)) {
                "matrix"
            } else {
                "vector"
            };
            let few = if count < shape.count() { "few" } else { "many" };
            self.error(
                span,
                format!("too {few} elements in {what} initialization (expected {} elements, have {count})", shape.count()),
            );
            return None;
        }
        if parts.len() == 1 && parts[0].ty == target {
            return parts.pop().map(TExpr::of);
        }
        let e = self.wrap(ExprKind::Construct(parts), target, span);
        Some(TExpr::of(self.fold_expr(e)))
    }

    // ----- catalogue intrinsics -----

    fn call_intrinsic(
        &mut self,
        i: &Intrinsic,
        shown: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<TExpr> {
        if !self.check_shader_model(shown, i.min_sm, span) {
            return None;
        }
        if args.len() != i.params.len() {
            self.wrong_arg_count(shown, &[i.params.len()], args.len(), span);
            return None;
        }
        let mut values = self.lower_args(args)?;
        let all_literal = values
            .iter()
            .zip(i.params)
            .all(|(v, p)| *p != Param::T || v.lit != Lit::None);
        if all_literal {
            values = values.into_iter().map(|v| self.default_lit(v)).collect();
        }
        let generic: Vec<&TExpr> = values
            .iter()
            .zip(i.params)
            .filter(|(_, p)| **p == Param::T)
            .map(|(v, _)| v)
            .collect();
        let t = if generic.is_empty() {
            None
        } else if let Some(t) = self.aggregate_generic(i, &generic) {
            Some(t)
        } else {
            Some(self.resolve_generic(i, shown, &generic, span)?)
        };
        let mut converted = Vec::new();
        for ((v, a), p) in values.into_iter().zip(args).zip(i.params) {
            let ty = match p {
                Param::T => t?.0,
                Param::Bool => self.scalar(ScalarType::Bool),
                Param::UInt => self.scalar(ScalarType::UInt32),
                Param::UInt4 => self.intern(Type::Vector(ScalarType::UInt32, 4)),
            };
            converted.push(self.coerce(v, ty, a.span)?);
        }
        let ret = self.intrinsic_result(i.ret, t);
        let kind = match i.op {
            Op::Builtin(b) => ExprKind::Builtin(b, converted),
            Op::Wave(w) => ExprKind::Wave(w, converted),
        };
        Some(TExpr::new(kind, ret, span))
    }

    /// Reports a feature above the compile profile; records the model the
    /// module needs otherwise.
    pub fn check_shader_model(&mut self, shown: &str, sm: (u32, u32), span: Span) -> bool {
        if self.opts.shader_model < sm {
            let (major, minor) = sm;
            self.error(
                span,
                format!("'{shown}' requires shader model {major}.{minor} or later"),
            );
            return false;
        }
        self.require_shader_model(sm);
        true
    }

    /// `GetGroupWaveIndex()` and `GetGroupWaveCount()` (SM 6.10), and the
    /// other spellings of the numWaves proposal with a warning. Under
    /// `[numWaves(n)]` the count is the constant `n`. `None` when `id` is
    /// not one of them.
    fn group_wave_intrinsic(
        &mut self,
        id: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Option<TExpr>> {
        let (current, op) = match id.name.as_str() {
            "GetGroupWaveIndex" | "GroupGetWaveIndex" => {
                ("GetGroupWaveIndex", WaveOp::GroupWaveIndex)
            }
            "GetGroupWaveCount" | "GroupGetWaveCount" | "GetGroupNumWaves" => {
                ("GetGroupWaveCount", WaveOp::GroupWaveCount)
            }
            _ => return None,
        };
        if id.name != current {
            self.warning(
                id.span,
                format!(
                    "'{}' is another spelling of '{current}': use '{current}'",
                    id.name
                ),
            );
        }
        if !args.is_empty() {
            self.wrong_arg_count(&id.name, &[0], args.len(), span);
            return Some(None);
        }
        if !self.check_shader_model(&id.name, (6, 10), span) {
            return Some(None);
        }
        let uint = self.scalar(ScalarType::UInt32);
        let kind = match (op, self.num_waves) {
            (WaveOp::GroupWaveCount, Some(n)) => ExprKind::Const(vec![lockstep_ir::Scalar {
                ty: ScalarType::UInt32,
                bits: u64::from(n),
            }]),
            _ => ExprKind::Wave(op, Vec::new()),
        };
        Some(Some(TExpr::new(kind, uint, span)))
    }

    fn intrinsic_result(&mut self, ret: Ret, t: Option<(TypeId, ScalarType, Shape)>) -> TypeId {
        let (t_ty, s, shape) = t.unwrap_or((self.void(), ScalarType::Bool, Shape::Scalar));
        match ret {
            Ret::T => t_ty,
            Ret::Bool => self.scalar(ScalarType::Bool),
            Ret::UInt => self.scalar(ScalarType::UInt32),
            Ret::UInt4 => self.intern(Type::Vector(ScalarType::UInt32, 4)),
            Ret::ShapeOf(r) => self.intern(make_type(r, shape)),
            Ret::ScalarOfT => self.scalar(s),
            Ret::Transposed => match shape {
                Shape::Matrix(r, c) => self.intern(make_type(s, Shape::Matrix(c, r))),
                _ => t_ty,
            },
        }
    }

    /// `T` for an intrinsic that takes any value, when the argument is a
    /// struct or an array: the argument's own type, used as it is. The
    /// scalar type and shape stand for the per-component results (one
    /// `bool` for `WaveActiveAllEqual`).
    fn aggregate_generic(
        &mut self,
        i: &Intrinsic,
        values: &[&TExpr],
    ) -> Option<(TypeId, ScalarType, Shape)> {
        if i.shapes != Shapes::AnyValue || values.len() != 1 {
            return None;
        }
        let ty = values[0].ty();
        matches!(self.get(ty), Type::Struct { .. } | Type::Array { .. }).then_some((
            ty,
            ScalarType::Bool,
            Shape::Scalar,
        ))
    }

    /// Finds the type of the generic parameter `T` from its arguments.
    fn resolve_generic(
        &mut self,
        i: &Intrinsic,
        shown: &str,
        values: &[&TExpr],
        span: Span,
    ) -> Option<(TypeId, ScalarType, Shape)> {
        for v in values {
            let Some((s, _)) = numeric(&self.module.types, v.ty()) else {
                self.no_matching_intrinsic(i, shown, span);
                return None;
            };
            let s = match v.lit {
                Lit::Float => ScalarType::Float32,
                Lit::Int => ScalarType::Int32,
                Lit::None => s,
            };
            let bad = match i.class {
                Class::Int => (!s.is_integer()).then_some("an integer type"),
                Class::Numeric => (s == ScalarType::Bool).then_some("a numeric type"),
                _ => None,
            };
            if let Some(need) = bad {
                self.error(
                    span,
                    format!(
                        "{shown} requires {need}, but argument has type '{}'",
                        s.name()
                    ),
                );
                return None;
            }
        }
        let Some((s, lit, shape)) = self.try_common_numeric(values) else {
            self.no_matching_intrinsic(i, shown, span);
            return None;
        };
        let s = match lit {
            Lit::Int => ScalarType::Int32,
            Lit::Float => ScalarType::Float32,
            Lit::None => s,
        };
        let s = match i.class {
            Class::Arith if s == ScalarType::Bool => ScalarType::Int32,
            Class::Float if !s.is_float() || s == ScalarType::Float64 => ScalarType::Float32,
            Class::AnyFloat if !s.is_float() => ScalarType::Float32,
            Class::Double => ScalarType::Float64,
            Class::UInt => ScalarType::UInt32,
            _ => s,
        };
        let shape_ok = match i.shapes {
            Shapes::Any | Shapes::AnyValue => true,
            Shapes::ScalarVector => !matches!(shape, Shape::Matrix(..)),
            Shapes::Vector3 => shape == Shape::Vector(3),
            Shapes::Matrix => matches!(shape, Shape::Matrix(..)),
        };
        if !shape_ok {
            self.no_matching_intrinsic(i, shown, span);
            return None;
        }
        Some((self.intern(make_type(s, shape)), s, shape))
    }

    /// Like `common_numeric`, without a diagnostic.
    pub fn try_common_numeric(&mut self, items: &[&TExpr]) -> Option<(ScalarType, Lit, Shape)> {
        let mut acc: Option<(ScalarType, Lit, Shape)> = None;
        for t in items {
            let (s, shape) = numeric(&self.module.types, t.ty())?;
            acc = Some(match acc {
                None => (s, t.lit, shape),
                Some((s0, l0, shape0)) => {
                    let (s, lit) = common_scalar((s0, l0), (s, t.lit));
                    (s, lit, self.common_shape(shape0, shape)?)
                }
            });
        }
        acc
    }

    fn no_matching_intrinsic(&mut self, i: &Intrinsic, shown: &str, span: Span) {
        self.push(
            Diagnostic::error(span, format!("no matching function for call to '{shown}'"))
                .with_note(format!("candidate: {}", intrinsics::signature(i))),
        );
    }

    // ----- intrinsics with their own rules -----

    fn call_special(&mut self, name: &str, args: &[ast::Expr], span: Span) -> Option<TExpr> {
        let counts: &[usize] = match name {
            "mul" | "and" | "or" | "asdouble" => &[2],
            "select" | "splitdouble" => &[3],
            "asuint" => &[1, 3],
            _ => &[1],
        };
        if !counts.contains(&args.len()) {
            self.wrong_arg_count(name, counts, args.len(), span);
            return None;
        }
        match name {
            "mul" => self.lower_mul(args, span),
            "select" => self.lower_select(args, span),
            "and" | "or" => self.lower_and_or(name, args, span),
            "asdouble" => self.lower_asdouble(args, span),
            "asuint" | "splitdouble" if args.len() == 3 => {
                self.lower_split_double(name, args, span)
            }
            _ => self.lower_bitcast(name, args, span),
        }
    }

    fn no_matching(&mut self, name: &str, values: &[TExpr], span: Span) {
        let shown: Vec<String> = values.iter().map(|v| self.show_t(v)).collect();
        self.push(
            Diagnostic::error(span, format!("no matching function for call to '{name}'"))
                .with_note(format!(
                    "no overload of '{name}' takes ({})",
                    shown.join(", ")
                )),
        );
    }

    fn lower_mul(&mut self, args: &[ast::Expr], span: Span) -> Option<TExpr> {
        let values = self.lower_args(args)?;
        let (Some((sa, a)), Some((sb, b))) = (
            numeric(&self.module.types, values[0].ty()),
            numeric(&self.module.types, values[1].ty()),
        ) else {
            self.no_matching("mul", &values, span);
            return None;
        };
        let (s, lit) = common_scalar((sa, values[0].lit), (sb, values[1].lit));
        let s = match (lit, s) {
            (Lit::Int, _) | (_, ScalarType::Bool) => ScalarType::Int32,
            (Lit::Float, _) => ScalarType::Float32,
            _ => s,
        };
        let as_vector = |sh: Shape| match sh {
            Shape::Vector(n) => Some(n),
            _ => None,
        };
        let result = match (a, b) {
            (Shape::Scalar, x) | (x, Shape::Scalar) => Some(x),
            (Shape::Vector(n), Shape::Vector(m)) if n == m => Some(Shape::Scalar),
            (Shape::Vector(n), Shape::Matrix(r, c)) if n == r => Some(Shape::Vector(c)),
            (Shape::Matrix(r, c), Shape::Vector(n)) if c == n => Some(Shape::Vector(r)),
            (Shape::Matrix(r, k), Shape::Matrix(k2, c)) if k == k2 => Some(Shape::Matrix(r, c)),
            _ => None,
        };
        let _ = as_vector;
        let Some(result) = result else {
            self.no_matching("mul", &values, span);
            return None;
        };
        let mut converted = Vec::new();
        for ((v, a), sh) in values.into_iter().zip(args).zip([a, b]) {
            let ty = self.intern(make_type(s, sh));
            converted.push(self.coerce(v, ty, a.span)?);
        }
        let ty = self.intern(make_type(s, result));
        Some(TExpr::new(
            ExprKind::Builtin(Builtin::Mul, converted),
            ty,
            span,
        ))
    }

    fn lower_select(&mut self, args: &[ast::Expr], span: Span) -> Option<TExpr> {
        let values = self.lower_args(args)?;
        let Some((_, cond_shape)) = numeric(&self.module.types, values[0].ty()) else {
            self.no_matching("select", &values, span);
            return None;
        };
        let Some((s, lit, shape)) = self.try_common_numeric(&[&values[1], &values[2]]) else {
            self.no_matching("select", &values, span);
            return None;
        };
        let Some(shape) = self.common_shape(cond_shape, shape) else {
            self.no_matching("select", &values, span);
            return None;
        };
        let s = match lit {
            Lit::Int => ScalarType::Int32,
            Lit::Float => ScalarType::Float32,
            Lit::None => s,
        };
        let bool_ty = self.intern(make_type(ScalarType::Bool, shape));
        let ty = self.intern(make_type(s, shape));
        let mut it = values.into_iter();
        let (c, a, b) = (it.next()?, it.next()?, it.next()?);
        let c = self.coerce(c, bool_ty, args[0].span)?;
        let a = self.coerce(a, ty, args[1].span)?;
        let b = self.coerce(b, ty, args[2].span)?;
        let kind = ExprKind::Select {
            cond: Box::new(c),
            accept: Box::new(a),
            reject: Box::new(b),
        };
        Some(TExpr::new(kind, ty, span))
    }

    fn lower_and_or(&mut self, name: &str, args: &[ast::Expr], span: Span) -> Option<TExpr> {
        let values = self.lower_args(args)?;
        let Some((_, _, shape)) = self.try_common_numeric(&[&values[0], &values[1]]) else {
            self.no_matching(name, &values, span);
            return None;
        };
        let ty = self.intern(make_type(ScalarType::Bool, shape));
        let mut it = values.into_iter();
        let (a, b) = (it.next()?, it.next()?);
        let a = self.coerce(a, ty, args[0].span)?;
        let b = self.coerce(b, ty, args[1].span)?;
        let op = if name == "and" {
            BinaryOp::And
        } else {
            BinaryOp::Or
        };
        Some(TExpr::new(
            ExprKind::Binary(op, Box::new(a), Box::new(b)),
            ty,
            span,
        ))
    }

    /// `asuint`, `asint`, `asfloat` and their 16-bit forms.
    fn lower_bitcast(&mut self, name: &str, args: &[ast::Expr], span: Span) -> Option<TExpr> {
        let target = match name {
            "asuint" => ScalarType::UInt32,
            "asint" => ScalarType::Int32,
            "asfloat" => ScalarType::Float32,
            "asuint16" => ScalarType::UInt16,
            "asint16" => ScalarType::Int16,
            _ => ScalarType::Float16,
        };
        if target.size() == 2 && !self.opts.enable_16bit_types {
            self.error(span, format!("'{name}' requires -enable-16bit-types"));
            return None;
        }
        let v = self.lower_value(&args[0])?;
        let v = self.default_lit(v);
        let fits = numeric(&self.module.types, v.ty())
            .filter(|(s, _)| *s != ScalarType::Bool && s.size() == target.size());
        let Some((_, shape)) = fits else {
            self.no_matching(name, &[v], span);
            return None;
        };
        let ty = self.intern(make_type(target, shape));
        if v.ty() == ty {
            return Some(v);
        }
        Some(TExpr::new(ExprKind::Bitcast(Box::new(v.e)), ty, span))
    }

    fn lower_asdouble(&mut self, args: &[ast::Expr], span: Span) -> Option<TExpr> {
        let values = self.lower_args(args)?;
        let Some((_, _, shape)) = self.try_common_numeric(&[&values[0], &values[1]]) else {
            self.no_matching("asdouble", &values, span);
            return None;
        };
        if matches!(shape, Shape::Matrix(..)) {
            self.no_matching("asdouble", &values, span);
            return None;
        }
        let uint_ty = self.intern(make_type(ScalarType::UInt32, shape));
        let mut converted = Vec::new();
        for (v, a) in values.into_iter().zip(args) {
            converted.push(self.coerce(v, uint_ty, a.span)?);
        }
        let ty = self.intern(make_type(ScalarType::Float64, shape));
        Some(TExpr::new(
            ExprKind::Builtin(Builtin::AsDouble, converted),
            ty,
            span,
        ))
    }

    /// `asuint(double d, out uint lo, out uint hi)`: the bits of `d` as a
    /// `uint64_t`, split into its low and high words.
    /// `asuint(double, out uint lo, out uint hi)` and its other name,
    /// `splitdouble`.
    fn lower_split_double(&mut self, name: &str, args: &[ast::Expr], span: Span) -> Option<TExpr> {
        let v = self.lower_value(&args[0])?;
        let v = self.default_lit(v);
        let Some((ScalarType::Float64, shape)) = numeric(&self.module.types, v.ty()) else {
            self.no_matching(name, &[v], span);
            return None;
        };
        let lo = self.lower_expr(&args[1])?;
        let hi = self.lower_expr(&args[2])?;
        let lo = self.out_place(&lo, args[1].span)?;
        let hi = self.out_place(&hi, args[2].span)?;
        let u64_ty = self.intern(make_type(ScalarType::UInt64, shape));
        let u32_ty = self.intern(make_type(ScalarType::UInt32, shape));
        let bits = self.wrap(ExprKind::Bitcast(Box::new(v.e)), u64_ty, span);
        let shift = ir::Scalar {
            ty: ScalarType::UInt64,
            bits: 32,
        };
        let shift = self.wrap(
            ExprKind::Const(vec![shift; shape.count() as usize]),
            u64_ty,
            span,
        );
        let high_bits = self.wrap(
            ExprKind::Binary(BinaryOp::Shr, Box::new(bits.clone()), Box::new(shift)),
            u64_ty,
            span,
        );
        let mut assigns = Vec::new();
        for (place, value) in [(lo, bits), (hi, high_bits)] {
            let value = self.wrap(ExprKind::Convert(Box::new(value)), u32_ty, span);
            let value = self.coerce(TExpr::of(value), place.ty, span)?;
            let ty = place.ty;
            let kind = ExprKind::Assign {
                place,
                value: Box::new(value),
                yield_old: false,
                init: false,
            };
            assigns.push(self.wrap(kind, ty, span));
        }
        let second = assigns.pop()?;
        let first = assigns.pop()?;
        let ty = second.ty;
        let mut t = TExpr::new(
            ExprKind::Sequence(Box::new(first), Box::new(second)),
            ty,
            span,
        );
        t.void = true;
        Some(t)
    }
}
