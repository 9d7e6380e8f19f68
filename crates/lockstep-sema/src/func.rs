//! User functions: declarations and definitions, overload resolution, calls
//! with `in`/`out`/`inout` arguments, and the checks over the call graph
//! (undefined functions, recursion).

use std::collections::{HashMap, HashSet};

use lockstep_ir::{self as ir, CallArg, ExprKind, FunctionId};
use lockstep_syntax::{Diagnostic, Span, ast};

use crate::context::{FnCtx, FnSym, ParamSig, Sema, TExpr, ir_span};

pub(crate) fn direction(d: ast::ParamDirection) -> ir::ParamDirection {
    match d {
        ast::ParamDirection::In => ir::ParamDirection::In,
        ast::ParamDirection::Out => ir::ParamDirection::Out,
        ast::ParamDirection::InOut => ir::ParamDirection::InOut,
    }
}

impl<'a> Sema<'a> {
    pub fn lower_function(&mut self, f: &'a ast::FunctionDecl) {
        if !f.template_params.is_empty() {
            self.templates
                .entry(f.name.name.clone())
                .or_default()
                .push(f);
            return;
        }
        if let Some((base, args)) = &f.specializes {
            self.explicit_specializations
                .entry(base.clone())
                .or_default()
                .push((args, f.name.name.clone()));
        }
        if self.has_resource_params(f) {
            self.resource_functions
                .entry(f.name.name.clone())
                .or_default()
                .push(f);
            return;
        }
        let Some((result, params)) = self.function_signature(f) else {
            return;
        };
        let existing = self.functions.get(&f.name.name).and_then(|list| {
            list.iter().copied().find(|&i| {
                let sym = &self.fn_syms[i];
                sym.params.len() == params.len()
                    && sym
                        .params
                        .iter()
                        .zip(&params)
                        .all(|(a, b)| a.ty == b.ty && a.dir == b.dir)
            })
        });
        let idx = match existing {
            Some(i) => {
                if self.fn_syms[i].result != result {
                    self.error(
                        f.name.span,
                        "functions that differ only in their return type cannot be overloaded",
                    );
                    return;
                }
                if f.body.is_some() && self.fn_syms[i].defined {
                    self.error(f.name.span, format!("redefinition of '{}'", f.name.name));
                    return;
                }
                i
            }
            None => {
                let i = self.fn_syms.len();
                self.fn_syms.push(FnSym {
                    name: f.name.name.clone(),
                    params,
                    result,
                    id: None,
                    defined: false,
                    decl: f,
                });
                self.functions
                    .entry(f.name.name.clone())
                    .or_default()
                    .push(i);
                i
            }
        };
        if let Some(body) = &f.body {
            self.fn_syms[idx].defined = true;
            self.fn_syms[idx].decl = f;
            self.lower_body(idx, f, body);
        }
    }

    pub(crate) fn function_signature(
        &mut self,
        f: &'a ast::FunctionDecl,
    ) -> Option<(ir::TypeId, Vec<ParamSig<'a>>)> {
        let result = self.resolve_value_type(&f.return_type);
        let mut params = Vec::new();
        let mut ok = true;
        for p in &f.params {
            let ty = self
                .resolve_value_type(&p.ty)
                .and_then(|t| self.apply_dims(t, &p.array_dims, None, p.span));
            match ty {
                Some(ty) if self.has_resource_members(ty) => {
                    let shown = self.show(ty);
                    self.error(
                        p.span,
                        format!(
                            "not supported: parameters of '{shown}', a struct with resource members"
                        ),
                    );
                    ok = false;
                }
                Some(ty) if !self.is_void(ty) => params.push(ParamSig {
                    ty,
                    dir: direction(p.direction),
                    default: p.default.as_ref(),
                }),
                Some(_) => {
                    self.error(p.span, "parameter cannot have type 'void'");
                    ok = false;
                }
                None => ok = false,
            }
        }
        let result = result?;
        if let Some(ir::Type::Array { .. }) = Some(self.get(result)) {
            self.error(f.return_type.span, "function cannot return an array");
            return None;
        }
        ok.then_some((result, params))
    }

    /// The IR id of a function, assigned on first use.
    pub fn function_id(&mut self, idx: usize) -> FunctionId {
        if let Some(id) = self.fn_syms[idx].id {
            return id;
        }
        let id = FunctionId(self.module.functions.len() as u32);
        let sym = &self.fn_syms[idx];
        let result =
            (!matches!(self.module.types.get(sym.result), ir::Type::Void)).then_some(sym.result);
        self.module.functions.push(ir::Function {
            name: sym.name.clone(),
            params: sym.params.iter().map(|p| p.dir).collect(),
            locals: Vec::new(),
            result,
            body: ir::Block::default(),
            span: ir_span(sym.decl.span),
            library: false,
        });
        self.fn_syms[idx].id = Some(id);
        id
    }

    pub(crate) fn lower_body(&mut self, idx: usize, f: &ast::FunctionDecl, body: &ast::Block) {
        self.lower_body_with(idx, f, body, HashMap::new());
    }

    /// Lowers a body with some of its parameters naming global resources.
    pub(crate) fn lower_body_with(
        &mut self,
        idx: usize,
        f: &ast::FunctionDecl,
        body: &ast::Block,
        resources: HashMap<String, crate::context::ResourceInfo>,
    ) {
        let id = self.function_id(idx);
        let sym = self.fn_syms[idx].clone();
        self.fcx = Some(FnCtx {
            name: sym.name.clone(),
            id,
            result: sym.result,
            locals: Vec::new(),
            const_locals: HashSet::new(),
            scopes: vec![HashMap::new()],
            resource_scopes: vec![resources.clone()],
            static_scopes: vec![HashMap::new()],
            breakables: Vec::new(),
        });
        let values = f
            .params
            .iter()
            .filter(|p| !resources.contains_key(&p.name.name));
        for (p, sig) in values.zip(&sym.params) {
            self.declare_local(&p.name, sig.ty, false);
        }
        self.call_graph.entry(id).or_default();
        let errors = self.error_count();
        let mut block = self.lower_block(body);
        self.resolve_dynamic_resources(&mut block);
        // A function with a result whose end may be reached returns an
        // undefined value there (once per definition, not per instance).
        let library = self.library_file == Some(f.span.file.0);
        // (A statement that failed to lower is missing from `block`.)
        if !library
            && self.error_count() == errors
            && !self.is_void(sym.result)
            && may_reach_end(&block.stmts)
            && self.missing_returns.insert(f.span)
        {
            let end = lockstep_syntax::Span::new(
                body.span.file,
                body.span.end.saturating_sub(1),
                body.span.end,
            );
            self.warning(
                end,
                format!(
                    "control may reach the end of non-void function '{}': its result is undefined there",
                    f.name.name
                ),
            );
        }
        let Some(fcx) = self.fcx.take() else {
            return;
        };
        let function = &mut self.module.functions[id.index()];
        function.locals = fcx.locals;
        function.body = block;
        function.span = ir_span(f.span);
    }

    fn signature_text(&self, sym: &FnSym) -> String {
        let params: Vec<String> = sym
            .params
            .iter()
            .map(|p| {
                let dir = match p.dir {
                    ir::ParamDirection::In => "",
                    ir::ParamDirection::Out => "out ",
                    ir::ParamDirection::InOut => "inout ",
                };
                format!("{dir}{}", self.show(p.ty))
            })
            .collect();
        format!(
            "{} {}({})",
            self.show(sym.result),
            sym.name,
            params.join(", ")
        )
    }

    /// The cost of calling `sym` with these arguments; `None` if not viable.
    pub(crate) fn candidate_cost(&self, sym: &FnSym, values: &[TExpr]) -> Option<u32> {
        let required = sym
            .params
            .iter()
            .take_while(|p| p.default.is_none())
            .count();
        if values.len() < required || values.len() > sym.params.len() {
            return None;
        }
        let mut cost = 0;
        for (v, p) in values.iter().zip(&sym.params) {
            cost += match p.dir {
                ir::ParamDirection::In => self.conversion_cost(v, p.ty)?,
                // Copied in and out through a temporary of the
                // parameter's type, converted both ways.
                _ if v.place().is_some() && v.ty() != p.ty => self.conversion_cost(v, p.ty)? + 1,
                _ => 0,
            };
        }
        Some(cost)
    }

    /// DXC's float-like intrinsics take a `double` as a `float`: where
    /// the library's `float` and `half` overloads tie (a `double` argument
    /// with 16-bit types), the `float` one is called.
    fn float_like_overload(&self, winners: Vec<usize>) -> Vec<usize> {
        let library = |i: usize| self.library_file == Some(self.fn_syms[i].decl.span.file.0);
        if winners.len() < 2 || !winners.iter().all(|&i| library(i)) {
            return winners;
        }
        let float: Vec<usize> = winners
            .iter()
            .copied()
            .filter(|&i| {
                self.fn_syms[i].params.first().is_some_and(|p| {
                    self.module.types.scalar_of(p.ty) == Some(ir::ScalarType::Float32)
                })
            })
            .collect();
        if float.len() == 1 { float } else { winners }
    }

    pub fn call_user(&mut self, name: &str, args: &[ast::Expr], span: Span) -> Option<TExpr> {
        if !self.functions.contains_key(name) && self.templates.contains_key(name) {
            return self.call_template(name, None, args, span);
        }
        let candidates = self.functions.get(name).cloned().unwrap_or_default();
        let values: Vec<Option<TExpr>> = args.iter().map(|a| self.lower_expr(a)).collect();
        let values: Vec<TExpr> = values.into_iter().collect::<Option<_>>()?;
        let costs: Vec<(usize, u32)> = candidates
            .iter()
            .filter_map(|&i| {
                self.candidate_cost(&self.fn_syms[i], &values)
                    .map(|c| (i, c))
            })
            .collect();
        let Some(best) = costs.iter().map(|c| c.1).min() else {
            let mut d =
                Diagnostic::error(span, format!("no matching function for call to '{name}'"));
            for &i in &candidates {
                d = d.with_note(format!(
                    "candidate function not viable: '{}'",
                    self.signature_text(&self.fn_syms[i])
                ));
            }
            self.push(d);
            return None;
        };
        // A function template of the name whose deduction matches the
        // arguments exactly beats a function that needs a conversion (the
        // function wins only a tie, as in C++).
        if best > 0 && self.templates.contains_key(name) {
            let decls = self.templates.get(name).cloned().unwrap_or_default();
            let exact: Vec<TExpr> = values.iter().map(|v| self.default_lit(v.clone())).collect();
            let deduced = decls
                .into_iter()
                .filter(|f| f.body.is_some() && f.params.len() == args.len())
                .any(|f| self.deduce(f, None, &exact).is_ok());
            if deduced {
                return self.call_template(name, None, args, span);
            }
        }
        let winners: Vec<usize> = costs.iter().filter(|c| c.1 == best).map(|c| c.0).collect();
        let winners = self.float_like_overload(winners);
        if winners.len() > 1 {
            let mut d = Diagnostic::error(span, format!("call to '{name}' is ambiguous"));
            for &i in &winners {
                d = d.with_note(format!(
                    "candidate function: '{}'",
                    self.signature_text(&self.fn_syms[i])
                ));
            }
            self.push(d);
            return None;
        }
        self.build_call(winners[0], values, args, span)
    }

    pub(crate) fn build_call(
        &mut self,
        idx: usize,
        values: Vec<TExpr>,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<TExpr> {
        let sym = self.fn_syms[idx].clone();
        let mut call_args = Vec::new();
        // Arguments of another type than their `out`/`inout` parameter:
        // copied in before the call, and back after it.
        let (mut before, mut after) = (Vec::new(), Vec::new());
        for (i, p) in sym.params.iter().enumerate() {
            let arg = match (values.get(i), p.dir) {
                (Some(v), ir::ParamDirection::In) => {
                    CallArg::In(self.coerce(v.clone(), p.ty, args[i].span)?)
                }
                // A member function called on a value (`make().get()`,
                // `a.twice().get()`): its object is a temporary.
                (Some(v), _)
                    if i == 0
                        && (v.place().is_none() || v.lit != crate::context::Lit::None)
                        && sym
                            .decl
                            .params
                            .first()
                            .is_some_and(|p| p.name.name == "this") =>
                {
                    let temp = self.temp_place(p.ty, args[i].span)?;
                    let value = self.coerce(v.clone(), p.ty, args[i].span)?;
                    before.push(self.wrap(
                        ExprKind::Assign {
                            place: temp.clone(),
                            value: Box::new(value),
                            yield_old: false,
                            init: false,
                        },
                        p.ty,
                        args[i].span,
                    ));
                    CallArg::InOut(temp)
                }
                (Some(v), dir) => {
                    let mut place = self.out_place(v, args[i].span)?;
                    if place.ty != p.ty {
                        let (copy_in, temp, copy_back) =
                            self.converted_out(place, p.ty, dir, args[i].span)?;
                        before.extend(copy_in);
                        after.push(copy_back);
                        place = temp;
                    }
                    if dir == ir::ParamDirection::Out {
                        CallArg::Out(place)
                    } else {
                        CallArg::InOut(place)
                    }
                }
                (None, _) => {
                    let default = p.default?;
                    let v = self.lower_value(default)?;
                    CallArg::In(self.coerce(v, p.ty, default.span)?)
                }
            };
            call_args.push(arg);
        }
        let id = self.function_id(idx);
        if let Some(fcx) = &self.fcx {
            let caller = fcx.id;
            self.call_graph.entry(caller).or_default().push((id, span));
        }
        self.called.entry(id).or_insert(span);
        let kind = ExprKind::Call {
            function: id,
            args: call_args,
        };
        let call = TExpr::new(kind, sym.result, span);
        if after.is_empty() {
            if before.is_empty() {
                return Some(call);
            }
            // Temporaries set before the call, and nothing to copy back.
            let void = matches!(self.module.types.get(sym.result), ir::Type::Void);
            let mut e = TExpr::of(self.sequence(before, call.e));
            e.void = void;
            return Some(e);
        }
        // The call, its result kept while the arguments are copied back.
        if matches!(self.module.types.get(sym.result), ir::Type::Void) {
            before.push(call.e);
            let last = after.pop()?;
            before.extend(after);
            let mut e = TExpr::of(self.sequence(before, last));
            e.void = true;
            return Some(e);
        }
        let result = self.temp_place(sym.result, span)?;
        before.push(self.wrap(
            ExprKind::Assign {
                place: result.clone(),
                value: Box::new(call.e),
                yield_old: false,
                init: false,
            },
            sym.result,
            span,
        ));
        before.extend(after);
        let last = self.wrap(ExprKind::Load(result), sym.result, span);
        Some(TExpr::of(self.sequence(before, last)))
    }

    /// A temporary local of type `ty`.
    fn temp_place(&mut self, ty: ir::TypeId, span: Span) -> Option<ir::Place> {
        let fcx = self.fcx.as_mut()?;
        let id = ir::LocalId(fcx.locals.len() as u32);
        fcx.locals.push(ir::Variable {
            name: format!("arg.{}", id.0),
            ty,
            span: crate::context::ir_span(span),
        });
        Some(ir::Place {
            root: ir::PlaceRoot::Local(id),
            path: Vec::new(),
            ty,
        })
    }

    /// An `out` or `inout` argument `place` of another type than its
    /// parameter's `ty`: what runs before the call (the place's indices
    /// evaluated once, and for `inout` the copy in), the temporary the call
    /// writes, and the assignment that copies the temporary back, each
    /// converted.
    fn converted_out(
        &mut self,
        place: ir::Place,
        ty: ir::TypeId,
        dir: ir::ParamDirection,
        span: Span,
    ) -> Option<(Vec<ir::Expr>, ir::Place, ir::Expr)> {
        let (mut before, place) = self.stabilize_place(place, span);
        let temp = self.temp_place(ty, span)?;
        let assign = |this: &mut Self, to: ir::Place, from: ir::Place| -> Option<ir::Expr> {
            let value = this.wrap(ExprKind::Load(from.clone()), from.ty, span);
            let value = this.coerce(TExpr::of(value), to.ty, span)?;
            let ty = to.ty;
            Some(this.wrap(
                ExprKind::Assign {
                    place: to,
                    value: Box::new(value),
                    yield_old: false,
                    init: false,
                },
                ty,
                span,
            ))
        };
        if dir == ir::ParamDirection::InOut {
            before.push(assign(self, temp.clone(), place.clone())?);
        }
        let copy_back = assign(self, place, temp.clone())?;
        Some((before, temp, copy_back))
    }

    /// Reports functions that are called but never defined.
    pub fn check_undefined_functions(&mut self) {
        let mut missing: Vec<(Span, String)> = Vec::new();
        for sym in &self.fn_syms {
            if let (Some(id), false) = (sym.id, sym.defined)
                && let Some(&span) = self.called.get(&id)
            {
                missing.push((span, sym.name.clone()));
            }
        }
        for (span, name) in missing {
            self.error(span, format!("function '{name}' is used but never defined"));
        }
    }

    /// HLSL has no recursion: reports each call that closes a cycle.
    pub fn check_recursion(&mut self) {
        let mut state: HashMap<FunctionId, u8> = HashMap::new();
        let mut roots: Vec<FunctionId> = self.call_graph.keys().copied().collect();
        roots.sort();
        let mut found = Vec::new();
        for root in roots {
            let mut stack = Vec::new();
            self.visit_calls(root, &mut state, &mut stack, &mut found);
        }
        for (span, cycle) in found {
            let names: Vec<&str> = cycle
                .iter()
                .map(|id| self.module.functions[id.index()].name.as_str())
                .collect();
            let d = Diagnostic::error(
                span,
                format!(
                    "recursive call to '{}' is not allowed",
                    names[names.len() - 1]
                ),
            )
            .with_note(format!("call cycle: {}", names.join(" -> ")));
            self.push(d);
        }
    }

    fn visit_calls(
        &self,
        f: FunctionId,
        state: &mut HashMap<FunctionId, u8>,
        stack: &mut Vec<FunctionId>,
        found: &mut Vec<(Span, Vec<FunctionId>)>,
    ) {
        if state.get(&f).copied().unwrap_or(0) != 0 || stack.len() > 10_000 {
            return;
        }
        state.insert(f, 1);
        stack.push(f);
        for &(callee, span) in self.call_graph.get(&f).map(Vec::as_slice).unwrap_or(&[]) {
            match state.get(&callee).copied().unwrap_or(0) {
                0 => self.visit_calls(callee, state, stack, found),
                1 => {
                    let start = stack.iter().position(|&s| s == callee).unwrap_or(0);
                    let mut cycle = stack[start..].to_vec();
                    cycle.push(callee);
                    found.push((span, cycle));
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(f, 2);
    }
}

/// Whether running `stmts` may reach their end: no statement on every path
/// returns, breaks or continues, and no loop on the way runs forever.
fn may_reach_end(stmts: &[ir::Stmt]) -> bool {
    stmts.iter().all(completes)
}

/// Whether `s` may complete and let the next statement run.
fn completes(s: &ir::Stmt) -> bool {
    match s {
        ir::Stmt::Return(_) | ir::Stmt::Break | ir::Stmt::Continue => false,
        ir::Stmt::If {
            cond,
            accept,
            reject,
        } => match constant_bool(cond) {
            Some(true) => may_reach_end(&accept.stmts),
            Some(false) => may_reach_end(&reject.stmts),
            None => may_reach_end(&accept.stmts) || may_reach_end(&reject.stmts),
        },
        // A loop ends only through a `break` of its own; its continuing
        // statements run where the body ends or continues.
        ir::Stmt::Loop {
            body, continuing, ..
        } => {
            breaks(&body.stmts)
                || ((may_reach_end(&body.stmts) || jumps(&body.stmts, &ir::Stmt::Continue))
                    && breaks(&continuing.stmts))
        }
        ir::Stmt::Switch { cases, .. } => {
            !cases.iter().any(|c| c.is_default)
                || cases.iter().any(|c| breaks(&c.body.stmts))
                || cases.last().is_none_or(|c| may_reach_end(&c.body.stmts))
        }
        ir::Stmt::Expr(_) | ir::Stmt::Barrier(_) => true,
    }
}

/// Whether `stmts` hold a `break` of the loop or switch around them (not
/// one of a loop or switch inside).
fn breaks(stmts: &[ir::Stmt]) -> bool {
    jumps(stmts, &ir::Stmt::Break)
}

/// Whether `stmts` hold `jump` (`break` or `continue`) of the construct
/// around them, outside loops and switches inside.
fn jumps(stmts: &[ir::Stmt], jump: &ir::Stmt) -> bool {
    stmts.iter().any(|s| match s {
        ir::Stmt::Break => matches!(jump, ir::Stmt::Break),
        ir::Stmt::Continue => matches!(jump, ir::Stmt::Continue),
        ir::Stmt::If {
            cond,
            accept,
            reject,
        } => match constant_bool(cond) {
            Some(true) => jumps(&accept.stmts, jump),
            Some(false) => jumps(&reject.stmts, jump),
            None => jumps(&accept.stmts, jump) || jumps(&reject.stmts, jump),
        },
        // A `continue` in a switch continues the loop around it.
        ir::Stmt::Switch { cases, .. } if matches!(jump, ir::Stmt::Continue) => {
            cases.iter().any(|c| jumps(&c.body.stmts, jump))
        }
        _ => false,
    })
}

/// A condition's value where it is a constant (`while (true)`'s exit test
/// is `!true`).
fn constant_bool(e: &ir::Expr) -> Option<bool> {
    match &e.kind {
        ir::ExprKind::Const(values) => match values[..] {
            [v] => Some(v.bits != 0),
            _ => None,
        },
        ir::ExprKind::Unary(ir::UnaryOp::Not, inner) => constant_bool(inner).map(|b| !b),
        _ => None,
    }
}
