//! Templates (HLSL 2021): function and struct templates, compiled once for
//! each set of arguments they are used with. A call's template arguments
//! that are not written are deduced from its argument types: a parameter
//! of type `T`, `vector<T, N>`, `matrix<T, R, C>` or `S<T, …>` (an instance
//! of struct template `S`) gives them.

use std::collections::HashMap;

use lockstep_ir::{self as ir, ScalarType, Type, TypeId};
use lockstep_syntax::{Span, ast};

use crate::context::{FnSym, ResourceInfo, Sema, TExpr};

/// How deeply template instances may instantiate others.
const MAX_TEMPLATE_DEPTH: usize = 64;

/// What a template parameter stands for in one instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum TemplateValue {
    /// `typename T`: a type.
    Type(TypeId),
    /// `uint N`: a constant.
    Value(ir::Scalar),
}

impl<'a> Sema<'a> {
    /// What `name` stands for in the template instance being compiled.
    pub(crate) fn template_binding(&self, name: &str) -> Option<TemplateValue> {
        self.template_scopes.last()?.get(name).copied()
    }

    /// A call of function template `name`, with the template arguments
    /// `explicit` where written (`f<float>(x)`).
    pub(crate) fn call_template(
        &mut self,
        name: &str,
        explicit: Option<&[ast::TemplateArg]>,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<TExpr> {
        let decls = self.templates.get(name).cloned().unwrap_or_default();
        // Resources pass as themselves (each call a copy of the function
        // for them); the other arguments as values.
        let resources: Vec<Option<ResourceInfo>> = args
            .iter()
            .map(|a| match &a.kind {
                ast::ExprKind::Ident(_)
                | ast::ExprKind::Index { .. }
                | ast::ExprKind::Member { .. } => self.resource_of(a),
                _ => None,
            })
            .collect();
        let value_args: Vec<ast::Expr> = args
            .iter()
            .zip(&resources)
            .filter(|(_, r)| r.is_none())
            .map(|(a, _)| a.clone())
            .collect();
        let values: Vec<Option<TExpr>> = value_args.iter().map(|a| self.lower_expr(a)).collect();
        let values: Vec<TExpr> = values.into_iter().collect::<Option<_>>()?;
        let values: Vec<TExpr> = values.into_iter().map(|v| self.default_lit(v)).collect();
        let mut reasons = Vec::new();
        let mut viable = Vec::new();
        // Prototypes declare; the definitions are what is instantiated.
        for f in decls.into_iter().filter(|f| f.body.is_some()) {
            let required = f.params.iter().take_while(|p| p.default.is_none()).count();
            if args.len() > f.params.len() || args.len() < required {
                let count = if required == f.params.len() {
                    required.to_string()
                } else {
                    format!("{required} to {}", f.params.len())
                };
                reasons.push(format!(
                    "candidate template takes {count} arguments, but {} were given",
                    args.len()
                ));
                continue;
            }
            // A resource argument for each resource parameter, and only
            // there.
            // A parameter whose type is a template parameter takes either.
            let fits = f.params.iter().zip(&resources).all(|(p, r)| {
                let generic = p.ty.args.is_empty()
                    && f.template_params
                        .iter()
                        .any(|t| t.name.name == p.ty.name.name);
                generic || crate::types::is_resource_name(&p.ty.name.name) == r.is_some()
            });
            if !fits {
                reasons.push(
                    "candidate template takes resources where the call passes values, or the reverse"
                        .to_string(),
                );
                continue;
            }
            match self.deduce_with(f, explicit, &values, &resources) {
                Ok(bindings) => viable.push((f, bindings)),
                Err(reason) => reasons.push(reason),
            }
        }
        // Of the templates whose deduction succeeds, the one whose
        // parameters take the arguments with the fewest conversions, as for
        // functions; of a tie, the more specialized (fewer parameters that
        // are a bare template parameter: `f(vector<T, 2>)` over `f(T)`),
        // then the first declared.
        if viable.len() > 1 && resources.iter().all(Option::is_none) {
            let ranks: Vec<Option<(u32, usize)>> = viable
                .iter()
                .map(|(f, bindings)| {
                    let cost = self.template_cost(f, bindings, &values)?;
                    let generic = f
                        .params
                        .iter()
                        .filter(|p| {
                            p.ty.args.is_empty()
                                && f.template_params
                                    .iter()
                                    .any(|t| t.name.name == p.ty.name.name)
                        })
                        .count();
                    Some((cost, generic))
                })
                .collect();
            if let Some(best) = ranks.iter().flatten().min().copied() {
                let at = ranks.iter().position(|&r| r == Some(best)).unwrap_or(0);
                viable.swap(0, at);
            }
        }
        let chosen = viable.into_iter().next();
        let Some((f, bindings)) = chosen else {
            let mut d = lockstep_syntax::Diagnostic::error(
                span,
                format!("no matching function template for call to '{name}'"),
            );
            for reason in reasons {
                d = d.with_note(reason);
            }
            self.push(d);
            return None;
        };
        // An explicit specialization for these arguments replaces the
        // template's own body.
        let specializations = self
            .explicit_specializations
            .get(name)
            .cloned()
            .unwrap_or_default();
        for (written, special) in specializations {
            let matches = written.len() == bindings.len()
                && written
                    .iter()
                    .zip(&f.template_params)
                    .zip(&bindings)
                    .all(|((arg, param), bound)| self.template_arg(arg, param) == Some(*bound));
            if matches {
                return self.call_user(&special, args, span);
            }
        }
        if resources.iter().any(Option::is_some) {
            let idx = self.instantiate_with_resources(f, bindings, args, &resources)?;
            return self.build_call(idx, values, &value_args, span);
        }
        let idx = self.instantiate_function(f, bindings)?;
        self.build_call(idx, values, args, span)
    }

    /// The copy of template `f` for `bindings` whose resource parameters
    /// name the call's resources (`resources`, by argument).
    fn instantiate_with_resources(
        &mut self,
        f: &'a ast::FunctionDecl,
        bindings: Vec<TemplateValue>,
        args: &[ast::Expr],
        resources: &[Option<ResourceInfo>],
    ) -> Option<usize> {
        let mut named = HashMap::new();
        let mut key = Vec::new();
        for ((p, r), a) in f.params.iter().zip(resources).zip(args) {
            let Some(info) = *r else { continue };
            if info.id.0 >= crate::context::DYNAMIC_RESOURCE_BASE {
                self.error(
                    a.span,
                    "not supported: passing a resource chosen per lane (an array element with a non-constant index) to a function",
                );
                return None;
            }
            key.push(info.id.0);
            named.insert(p.name.name.clone(), info);
        }
        let scope: HashMap<String, TemplateValue> = f
            .template_params
            .iter()
            .map(|p| p.name.name.clone())
            .zip(bindings.iter().copied())
            .collect();
        let instance = self.show_template_values(&bindings);
        self.template_scopes.push(scope);
        let idx = self.specialize_instance(f, key, named, instance);
        self.template_scopes.pop();
        idx
    }

    /// `T::f(…)` where type name `scope` (a typedef) stands for a struct
    /// or a struct template's instance with a `static` member function
    /// `member`: the call, or `None` where it does not.
    pub(crate) fn static_member_of_type(
        &mut self,
        scope: &str,
        member: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Option<TExpr>> {
        if !self.is_type_name(scope) || self.functions.contains_key(&format!("{scope}.{member}")) {
            return None;
        }
        let te = ast::TypeExpr {
            name: ast::Ident {
                name: scope.to_string(),
                span,
            },
            args: Vec::new(),
            modifiers: Vec::new(),
            span,
        };
        let ty = self.resolve_value_type(&te)?;
        if let Type::Struct { name, .. } = self.get(ty) {
            let full = format!("{name}.{member}");
            if self.functions.contains_key(&full) && !self.takes_object(&full) {
                return Some(self.call_user(&full, args, span));
            }
        }
        let (template, bindings) = self.struct_instances.get(&ty)?.clone();
        let full = format!("{template}.{member}");
        if self.takes_object(&full) {
            return None;
        }
        let decls = self.templates.get(&full)?.clone();
        let f = decls
            .into_iter()
            .find(|f| f.body.is_some() && f.params.len() == args.len())?;
        let values: Vec<Option<TExpr>> = args.iter().map(|a| self.lower_expr(a)).collect();
        let Some(values) = values.into_iter().collect::<Option<Vec<TExpr>>>() else {
            return Some(None);
        };
        let values: Vec<TExpr> = values.into_iter().map(|v| self.default_lit(v)).collect();
        let Some(idx) = self.instantiate_function(f, bindings) else {
            return Some(None);
        };
        Some(self.build_call(idx, values, args, span))
    }

    /// The template arguments of `f` for a call with `values`.
    pub(crate) fn deduce(
        &mut self,
        f: &ast::FunctionDecl,
        explicit: Option<&[ast::TemplateArg]>,
        values: &[TExpr],
    ) -> Result<Vec<TemplateValue>, String> {
        self.deduce_with(f, explicit, values, &[])
    }

    /// [`Sema::deduce`] where the arguments marked in `resources` are
    /// resources (`values` holding the others): a resource parameter's
    /// template argument (`T` of `StructuredBuffer<T>`) is deduced from
    /// the resource's element type.
    fn deduce_with(
        &mut self,
        f: &ast::FunctionDecl,
        explicit: Option<&[ast::TemplateArg]>,
        values: &[TExpr],
        resources: &[Option<ResourceInfo>],
    ) -> Result<Vec<TemplateValue>, String> {
        let params = &f.template_params;
        let mut bound: Vec<Option<TemplateValue>> = vec![None; params.len()];
        let explicit = explicit.unwrap_or_default();
        if explicit.len() > params.len() {
            return Err(format!(
                "candidate template takes {} template arguments, but {} were given",
                params.len(),
                explicit.len()
            ));
        }
        for (i, arg) in explicit.iter().enumerate() {
            bound[i] = Some(self.template_arg(arg, &params[i]).ok_or_else(|| {
                format!(
                    "invalid argument for template parameter '{}'",
                    params[i].name.name
                )
            })?);
        }
        // Arguments written are not deduced: the call's arguments convert.
        let mut fixed: Vec<bool> = (0..params.len()).map(|i| i < explicit.len()).collect();
        // A member function of a struct template takes the struct's
        // parameters from its object (`this`, first), and the other
        // arguments convert to them.
        let object = f.params.first().is_some_and(|p| p.name.name == "this");
        let mut values = values.iter();
        for (i, p) in f.params.iter().enumerate() {
            let (te, ty) = match resources.get(i).copied().flatten() {
                // `TEX t` given a resource: TEX stands for the resource,
                // bound to its element type (the body names the resource
                // through `t`).
                Some(info) if p.ty.args.is_empty() => (&p.ty, info.element),
                Some(info) => match p.ty.args.first() {
                    Some(ast::TemplateArg::Type(te)) => (te, info.element),
                    _ => continue,
                },
                None => match values.next() {
                    Some(v) => (&p.ty, v.ty()),
                    None => break,
                },
            };
            if let Some(name) = self.deduce_from(te, ty, params, &fixed, &mut bound) {
                return Err(format!(
                    "template parameter '{name}' is deduced as two different types or values"
                ));
            }
            if i == 0 && object {
                for (fixed, bound) in fixed.iter_mut().zip(&bound) {
                    *fixed |= bound.is_some();
                }
            }
        }
        let mut bindings = Vec::with_capacity(params.len());
        for (i, (b, p)) in bound.into_iter().zip(params).enumerate() {
            let value = b.or_else(|| self.template_default(params, &bindings, i));
            bindings.push(
                value.ok_or_else(|| {
                    format!("could not deduce template parameter '{}'", p.name.name)
                })?,
            );
        }
        Ok(bindings)
    }

    /// The default of template parameter `i` of `params`, where it has one,
    /// with the parameters before it bound to `before`.
    fn template_default(
        &mut self,
        params: &[ast::TemplateParam],
        before: &[TemplateValue],
        i: usize,
    ) -> Option<TemplateValue> {
        let default = params[i].default.as_ref()?;
        let scope = params
            .iter()
            .map(|p| p.name.name.clone())
            .zip(before.iter().copied())
            .collect();
        self.template_scopes.push(scope);
        let value = self.template_arg(default, &params[i]);
        self.template_scopes.pop();
        value
    }

    /// The value of one written template argument for `param`.
    fn template_arg(
        &mut self,
        arg: &ast::TemplateArg,
        param: &ast::TemplateParam,
    ) -> Option<TemplateValue> {
        match (arg, &param.value_type) {
            // A resource type stands for the resource a parameter of this
            // type takes, bound as deduction binds it: its element type.
            (ast::TemplateArg::Type(te), None) if crate::types::is_resource_name(&te.name.name) => {
                match self.resolve_type(te)? {
                    crate::types::Resolved::Resource(_, element) => {
                        Some(TemplateValue::Type(element))
                    }
                    _ => None,
                }
            }
            (ast::TemplateArg::Type(te), None) => {
                self.resolve_value_type(te).map(TemplateValue::Type)
            }
            (ast::TemplateArg::Expr(e), Some(ty)) => self.template_constant(e, ty),
            // A name in the first place reads as a type: `f<N>(x)`.
            (ast::TemplateArg::Type(te), Some(ty)) if te.args.is_empty() => {
                let e = ast::Expr {
                    kind: ast::ExprKind::Ident(te.name.clone()),
                    span: te.span,
                };
                self.template_constant(&e, ty)
            }
            _ => None,
        }
    }

    /// A constant template argument converted to its parameter's type.
    fn template_constant(&mut self, e: &ast::Expr, ty: &ast::TypeExpr) -> Option<TemplateValue> {
        let ty = self.resolve_value_type(ty)?;
        let t = self.lower_expr(e)?;
        let converted = self.coerce(t, ty, e.span)?;
        match self.fold(&converted).as_deref() {
            Some([value]) => Some(TemplateValue::Value(*value)),
            _ => {
                self.error(e.span, "a template argument must be a constant");
                None
            }
        }
    }

    /// Binds the template parameters that parameter type `te` names, given
    /// that the argument has type `ty`; the name of a parameter bound to
    /// something else before, if any.
    fn deduce_from(
        &mut self,
        te: &ast::TypeExpr,
        ty: TypeId,
        params: &[ast::TemplateParam],
        fixed: &[bool],
        bound: &mut [Option<TemplateValue>],
    ) -> Option<String> {
        let position = |name: &str| {
            params
                .iter()
                .position(|p| p.name.name == name)
                .filter(|&i| !fixed[i])
        };
        let mut conflict = None;
        let mut bind = |name: &str, value: TemplateValue, bound: &mut [Option<TemplateValue>]| {
            if let Some(i) = position(name) {
                match bound[i] {
                    None => bound[i] = Some(value),
                    Some(old) if old != value => conflict = Some(name.to_string()),
                    Some(_) => {}
                }
            }
        };
        let uint = |n: u8| {
            TemplateValue::Value(ir::Scalar {
                ty: ScalarType::UInt32,
                bits: u64::from(n),
            })
        };
        let arg_name = |arg: &ast::TemplateArg| match arg {
            ast::TemplateArg::Type(t) if t.args.is_empty() => Some(t.name.name.clone()),
            ast::TemplateArg::Expr(ast::Expr {
                kind: ast::ExprKind::Ident(id),
                ..
            }) => Some(id.name.clone()),
            _ => None,
        };
        if te.args.is_empty() {
            if position(&te.name.name).is_some_and(|i| params[i].value_type.is_none()) {
                bind(&te.name.name, TemplateValue::Type(ty), bound);
            }
            return conflict;
        }
        let pieces: Vec<(Option<&ast::TemplateArg>, TemplateValue)> =
            match (te.name.name.as_str(), self.get(ty).clone()) {
                ("vector", Type::Vector(s, n)) => vec![
                    (te.args.first(), TemplateValue::Type(self.scalar(s))),
                    (te.args.get(1), uint(n)),
                ],
                (
                    "matrix",
                    Type::Matrix {
                        scalar, rows, cols, ..
                    },
                ) => vec![
                    (te.args.first(), TemplateValue::Type(self.scalar(scalar))),
                    (te.args.get(1), uint(rows)),
                    (te.args.get(2), uint(cols)),
                ],
                (name, _) => match self.struct_instances.get(&ty) {
                    Some((template, values)) if template == name => {
                        let values = values.clone();
                        te.args.iter().map(Some).zip(values).collect()
                    }
                    _ => Vec::new(),
                },
            };
        for (arg, value) in pieces {
            let Some(arg) = arg else { continue };
            match (arg, value) {
                (ast::TemplateArg::Type(inner), TemplateValue::Type(t))
                    if !inner.args.is_empty() =>
                {
                    if let Some(name) = self.deduce_from(inner, t, params, fixed, bound) {
                        return Some(name);
                    }
                }
                _ => {
                    if let Some(name) = arg_name(arg) {
                        bind(&name, value, bound);
                    }
                }
            }
        }
        conflict
    }

    /// The instance of function template `f` for `bindings`, compiled on
    /// first use.
    fn instantiate_function(
        &mut self,
        f: &'a ast::FunctionDecl,
        bindings: Vec<TemplateValue>,
    ) -> Option<usize> {
        let key = (f.span, bindings.clone());
        if let Some(&idx) = self.function_instances.get(&key) {
            return Some(idx);
        }
        if self.template_scopes.len() >= MAX_TEMPLATE_DEPTH {
            self.error(
                f.name.span,
                format!(
                    "template instances are nested more than {MAX_TEMPLATE_DEPTH} deep (instantiating '{}')",
                    f.name.name
                ),
            );
            return None;
        }
        let scope = self.template_scope(f, &bindings)?;
        self.template_scopes.push(scope);
        let signature = self.function_signature(f);
        let name = format!("{}<{}>", f.name.name, self.show_template_values(&bindings));
        let Some((result, params)) = signature else {
            self.template_scopes.pop();
            return None;
        };
        let idx = self.fn_syms.len();
        self.fn_syms.push(FnSym {
            name,
            params,
            result,
            id: None,
            defined: true,
            decl: f,
        });
        self.function_instances.insert(key, idx);
        if let Some(body) = &f.body {
            let outer = self.fcx.take();
            self.lower_body(idx, f, body);
            self.fcx = outer;
        }
        self.template_scopes.pop();
        Some(idx)
    }

    /// What the names of template `f` stand for with `bindings`.
    fn template_scope(
        &mut self,
        f: &ast::FunctionDecl,
        bindings: &[TemplateValue],
    ) -> Option<HashMap<String, TemplateValue>> {
        let mut scope: HashMap<String, TemplateValue> = f
            .template_params
            .iter()
            .map(|p| p.name.name.clone())
            .zip(bindings.iter().copied())
            .collect();
        // In a member function of a struct template, the struct's own name
        // is this instance.
        if let Some(this) = f.params.first().filter(|p| p.name.name == "this") {
            self.template_scopes.push(scope.clone());
            let instance = self.resolve_value_type(&this.ty);
            self.template_scopes.pop();
            scope.insert(this.ty.name.name.clone(), TemplateValue::Type(instance?));
        }
        Some(scope)
    }

    /// The conversions a call of template `f` with `bindings` makes of
    /// the arguments `values` (as [`Sema::candidate_cost`]); `None` where
    /// they do not convert. Nothing is reported.
    fn template_cost(
        &mut self,
        f: &'a ast::FunctionDecl,
        bindings: &[TemplateValue],
        values: &[TExpr],
    ) -> Option<u32> {
        let diagnostics = self.diags.items.len();
        let scope = self.template_scope(f, bindings);
        let signature = scope.and_then(|scope| {
            self.template_scopes.push(scope);
            let signature = self.function_signature(f);
            self.template_scopes.pop();
            signature
        });
        self.diags.items.truncate(diagnostics);
        let (result, params) = signature?;
        let sym = FnSym {
            name: f.name.name.clone(),
            params,
            result,
            id: None,
            defined: false,
            decl: f,
        };
        self.candidate_cost(&sym, values)
    }

    /// The instance of struct template `s` for the arguments `args`.
    pub(crate) fn instantiate_struct(
        &mut self,
        s: &'a ast::StructDecl,
        args: &[ast::TemplateArg],
        span: Span,
    ) -> Option<TypeId> {
        let params = &s.template_params;
        let required = params.iter().take_while(|p| p.default.is_none()).count();
        if args.len() > params.len() || args.len() < required {
            let count = if required == params.len() {
                params.len().to_string()
            } else {
                format!("{required} to {}", params.len())
            };
            self.error(
                span,
                format!(
                    "'{}' takes {count} template arguments, but {} were given",
                    s.name.name,
                    args.len()
                ),
            );
            return None;
        }
        let mut bindings = Vec::with_capacity(params.len());
        for (i, param) in params.iter().enumerate() {
            // A default may name the parameters before it.
            let value = match args.get(i) {
                Some(arg) => self.template_arg(arg, param),
                None => self.template_default(params, &bindings, i),
            };
            let Some(value) = value else {
                self.error(
                    span,
                    format!(
                        "invalid argument for template parameter '{}'",
                        param.name.name
                    ),
                );
                return None;
            };
            bindings.push(value);
        }
        let key = (s.name.name.clone(), bindings.clone());
        if let Some(&ty) = self.struct_instance_types.get(&key) {
            return Some(ty);
        }
        if self.template_scopes.len() >= MAX_TEMPLATE_DEPTH {
            self.error(
                span,
                format!(
                    "template instances are nested more than {MAX_TEMPLATE_DEPTH} deep (instantiating '{}')",
                    s.name.name
                ),
            );
            return None;
        }
        let name = format!("{}<{}>", s.name.name, self.show_template_values(&bindings));
        let scope = params
            .iter()
            .map(|p| p.name.name.clone())
            .zip(bindings.iter().copied())
            .collect();
        self.template_scopes.push(scope);
        let ty = self.struct_type(s, &name);
        self.template_scopes.pop();
        let ty = ty?;
        self.struct_instance_types.insert(key, ty);
        self.struct_instances
            .insert(ty, (s.name.name.clone(), bindings));
        Some(ty)
    }

    fn show_template_values(&self, values: &[TemplateValue]) -> String {
        values
            .iter()
            .map(|v| match v {
                TemplateValue::Type(t) => self.show(*t),
                TemplateValue::Value(s) => match s.ty.is_signed() {
                    true => crate::fold::as_i128(*s).to_string(),
                    false => s.bits.to_string(),
                },
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}
