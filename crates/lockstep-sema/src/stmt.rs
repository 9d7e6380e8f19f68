//! Statements: declarations, control flow (lowered to the IR's structured
//! `If`/`Loop`/`Switch`), jumps, returns and barriers.

use std::collections::HashMap;

use lockstep_ir::{self as ir, BarrierFlags, ExprKind, PlaceRoot, ScalarType, UnaryOp};
use lockstep_syntax::{Diagnostic, Span, ast};

use crate::context::{Breakable, Sema};
use crate::intrinsics::BARRIERS;
use crate::types::{Shape, numeric};

impl Sema<'_> {
    /// A `{ … }` block with its own scope.
    pub fn lower_block(&mut self, b: &ast::Block) -> ir::Block {
        self.push_scope();
        let mut out = Vec::new();
        for s in &b.stmts {
            self.lower_stmt(s, &mut out);
        }
        self.pop_scope();
        ir::Block::new(out)
    }

    /// A statement used as the body of a construct, in its own scope.
    fn lower_sub(&mut self, s: &ast::Stmt) -> ir::Block {
        self.push_scope();
        let mut out = Vec::new();
        self.lower_stmt(s, &mut out);
        self.pop_scope();
        ir::Block::new(out)
    }

    pub fn lower_stmt(&mut self, s: &ast::Stmt, out: &mut Vec<ir::Stmt>) {
        if !self.enter(s.span) {
            return;
        }
        self.lower_stmt_kind(s, out);
        self.leave();
    }

    fn lower_stmt_kind(&mut self, s: &ast::Stmt, out: &mut Vec<ir::Stmt>) {
        match &s.kind {
            ast::StmtKind::Empty => {}
            ast::StmtKind::Expr(e) => self.lower_expr_stmt(e, out),
            ast::StmtKind::Decl(v) => self.lower_local_decl(v, out),
            ast::StmtKind::Block(b) => {
                let block = self.lower_block(b);
                out.extend(block.stmts);
            }
            ast::StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => self.lower_if(cond, then_branch, else_branch.as_deref(), out),
            ast::StmtKind::For {
                init,
                cond,
                step,
                body,
            } => self.lower_for(init, cond.as_ref(), step.as_ref(), body, s.span, out),
            ast::StmtKind::While { cond, body } => self.lower_while(cond, body, s.span, out),
            ast::StmtKind::DoWhile { body, cond } => self.lower_do_while(body, cond, s.span, out),
            ast::StmtKind::Switch { selector, cases } => self.lower_switch(selector, cases, out),
            ast::StmtKind::Break => self.lower_break(s.span, out),
            ast::StmtKind::Continue => self.lower_continue(s.span, out),
            ast::StmtKind::Return(value) => self.lower_return(value.as_ref(), s.span, out),
            ast::StmtKind::Discard => self.lower_discard(s.span, out),
        }
    }

    fn lower_expr_stmt(&mut self, e: &ast::Expr, out: &mut Vec<ir::Stmt>) {
        if let Some(flags) = self.barrier_call(e) {
            out.extend(flags.map(ir::Stmt::Barrier));
            return;
        }
        if let Some(t) = self.lower_expr(e) {
            out.push(ir::Stmt::Expr(t.e));
        }
    }

    /// `Some(flags)` when `e` is a barrier call (`Some(None)` after an error).
    fn barrier_call(&mut self, e: &ast::Expr) -> Option<Option<BarrierFlags>> {
        let ast::ExprKind::Call {
            callee: ast::Callee::Name(id),
            args,
        } = &e.kind
        else {
            return None;
        };
        if self.functions.contains_key(&id.name) {
            return None;
        }
        if id.name == "Barrier" {
            return Some(self.sm68_barrier(args, e.span));
        }
        let &(name, group_memory, device_memory, group_sync) =
            BARRIERS.iter().find(|b| b.0 == id.name)?;
        if !args.is_empty() {
            self.wrong_arg_count(name, &[0], args.len(), e.span);
            return Some(None);
        }
        Some(Some(BarrierFlags {
            group_memory,
            device_memory,
            group_sync,
            span: crate::context::ir_span(e.span),
        }))
    }

    /// SM 6.8's `Barrier(memory, semantics)`: both constants, made of
    /// `UAV_MEMORY` (1), `GROUP_SHARED_MEMORY` (2), `ALL_MEMORY` and
    /// `GROUP_SYNC` (1), `GROUP_SCOPE` (2), `DEVICE_SCOPE` (4). The memory
    /// may also be a resource, which orders device memory.
    fn sm68_barrier(
        &mut self,
        args: &[ast::Expr],
        span: lockstep_syntax::Span,
    ) -> Option<BarrierFlags> {
        if !self.check_shader_model("Barrier", (6, 8), span) {
            return None;
        }
        let [memory, semantics] = args else {
            self.wrong_arg_count("Barrier", &[2], args.len(), span);
            return None;
        };
        let memory = match self.resource_of(memory) {
            Some(_) => 1,
            None => self.const_u32(memory, "Barrier's memory flags")?,
        };
        let semantics = self.const_u32(semantics, "Barrier's semantic flags")?;
        Some(BarrierFlags {
            group_memory: memory & 2 != 0,
            device_memory: memory & 1 != 0,
            group_sync: semantics & 1 != 0,
            span: crate::context::ir_span(span),
        })
    }

    /// A `static` local that is not `const`: a thread-private global
    /// named after its function, set to its (constant) initializer, or to
    /// zero, once before the entry point runs, as DXC initializes it.
    fn lower_static_local(&mut self, v: &ast::VarDecl) {
        let Some(crate::types::Resolved::Value(base)) = self.resolve_type(&v.ty) else {
            if matches!(
                self.resolve_type(&v.ty),
                Some(crate::types::Resolved::Resource(..))
            ) {
                self.error(
                    v.ty.span,
                    "not supported: 'static' local resource variables",
                );
            }
            return;
        };
        let function = self.fcx.as_ref().map_or(String::new(), |f| f.name.clone());
        for d in &v.declarators {
            let Some((ty, value)) = self.declarator_value(base, d) else {
                continue;
            };
            let value = match value {
                Err(()) => continue,
                Ok(None) => self.zero_value(ty, d.span),
                Ok(Some(value)) => match self.fold(&value) {
                    Some(values) => self.wrap(ExprKind::Const(values.to_vec()), ty, d.span),
                    None => {
                        self.error(
                            d.span,
                            format!(
                                "not supported: a 'static' local initialized with a value that is not a constant ('{}'); initialize it with a constant and assign it where it is first needed",
                                d.name.name
                            ),
                        );
                        continue;
                    }
                },
            };
            let id = ir::StaticId(self.module.statics.len() as u32);
            self.module.statics.push(ir::Variable {
                name: format!("{function}::{}", d.name.name),
                ty,
                span: crate::context::ir_span(d.span),
            });
            let place = ir::Place {
                root: PlaceRoot::Static(id),
                path: Vec::new(),
                ty,
            };
            let init = self.wrap(
                ExprKind::Assign {
                    place,
                    value: Box::new(value),
                    yield_old: false,
                    init: true,
                },
                ty,
                d.span,
            );
            self.module.static_init.stmts.push(ir::Stmt::Expr(init));
            if let Some(scope) = self.fcx.as_mut().and_then(|f| f.static_scopes.last_mut()) {
                scope.insert(d.name.name.clone(), (id, ty));
            }
        }
    }

    fn lower_local_decl(&mut self, v: &ast::VarDecl, out: &mut Vec<ir::Stmt>) {
        let is_const = v.storage.iter().any(|s| s.name == "const")
            || crate::types::has_modifier(&v.ty, "const");
        for storage in &v.storage {
            // A `static const` local holds the same value at every call:
            // a `const` local initialized where it is declared.
            match storage.name.as_str() {
                "static" if is_const => {}
                "static" => {
                    self.lower_static_local(v);
                    return;
                }
                "groupshared" => {
                    self.error(
                        storage.span,
                        "'groupshared' variables must be declared at file scope",
                    );
                    return;
                }
                _ => {}
            }
        }
        // A declaration that fails leaves its names quiet: their uses
        // would only repeat the error.
        let quiet = |this: &mut Self, names: &mut dyn Iterator<Item = &ast::Declarator>| {
            for d in names {
                this.quiet_names.insert(d.name.name.clone());
            }
        };
        let resolved = self.resolve_type(&v.ty);
        if let Some(crate::types::Resolved::Resource(kind, element)) = resolved {
            for d in &v.declarators {
                if self.declare_resource_alias(kind, element, d, out).is_none() {
                    quiet(self, &mut std::iter::once(d));
                }
            }
            return;
        }
        let Some(crate::types::Resolved::Value(base)) = resolved else {
            quiet(self, &mut v.declarators.iter());
            return;
        };
        if self.is_void(base) {
            self.error(v.ty.span, "variable has incomplete type 'void'");
            quiet(self, &mut v.declarators.iter());
            return;
        }
        let resource_members = self.has_resource_members(base);
        for d in &v.declarators {
            if resource_members {
                if !d.array_dims.is_empty() {
                    self.error(
                        d.span,
                        "not supported: local arrays of structs with resource members",
                    );
                    continue;
                }
                // `S t = s;` names the resources `s` names.
                if let Some(ast::Initializer::Expr(init)) = &d.init {
                    self.copy_resource_members(base, &d.name.name, init);
                }
            }
            let Some((ty, value)) = self.declarator_value(base, d) else {
                quiet(self, &mut std::iter::once(d));
                continue;
            };
            let Some(id) = self.declare_local(&d.name, ty, is_const) else {
                continue;
            };
            match value {
                Err(()) => {}
                Ok(Some(value)) => {
                    let place = ir::Place {
                        root: PlaceRoot::Local(id),
                        path: Vec::new(),
                        ty,
                    };
                    let kind = ExprKind::Assign {
                        place,
                        value: Box::new(value),
                        yield_old: false,
                        init: true,
                    };
                    let e = self.wrap(kind, ty, d.span);
                    out.push(ir::Stmt::Expr(e));
                }
                Ok(None) if is_const => {
                    self.error(
                        d.name.span,
                        format!("const variable '{}' must be initialized", d.name.name),
                    );
                }
                Ok(None) => {}
            }
        }
    }

    /// `RWBuffer<float> b = gBuffer;`: a local name for a global resource,
    /// fixed where it is declared (for an array element chosen per lane,
    /// its index is computed there).
    fn declare_resource_alias(
        &mut self,
        kind: ir::ResourceKind,
        element: ir::TypeId,
        d: &ast::Declarator,
        out: &mut Vec<ir::Stmt>,
    ) -> Option<()> {
        if !d.array_dims.is_empty() {
            self.error(d.span, "arrays of resources are not supported yet");
            return None;
        }
        let Some(ast::Initializer::Expr(init)) = &d.init else {
            self.error(
                d.name.span,
                format!(
                    "local resource variable '{}' must be initialized with a global resource",
                    d.name.name
                ),
            );
            return None;
        };
        let heap = match &init.kind {
            ast::ExprKind::Index { base, .. } => match &base.kind {
                ast::ExprKind::Ident(id)
                    if matches!(
                        id.name.as_str(),
                        "ResourceDescriptorHeap" | "SamplerDescriptorHeap"
                    ) =>
                {
                    Some(id.name.clone())
                }
                _ => None,
            },
            _ => None,
        };
        if let Some(heap) = heap {
            self.error(
                init.span,
                format!("not supported: '{heap}' (SM 6.6 dynamic resources); bind the resource with a register instead"),
            );
            return None;
        }
        let Some(info) = self.resource_of(init) else {
            self.error(
                init.span,
                "a local resource variable must be initialized with a global resource or an element of a resource array",
            );
            return None;
        };
        if let Some(k) = info.id.0.checked_sub(crate::context::DYNAMIC_RESOURCE_BASE) {
            self.fix_dynamic_index(k as usize, &d.name, out);
        }
        if info.kind != kind || info.element != element {
            let wanted = self.resource_display(crate::context::ResourceInfo {
                kind,
                element,
                ..info
            });
            let given = self.resource_display(info);
            self.error(
                init.span,
                format!("cannot initialize a '{wanted}' with a '{given}'"),
            );
            return None;
        }
        if let Some(f) = self.fcx.as_mut()
            && let Some(scope) = f.resource_scopes.last_mut()
        {
            scope.insert(d.name.name.clone(), info);
        }
        Some(())
    }

    /// Computes placeholder `k`'s element index once, into a local named
    /// after `name`, so that later uses do not compute it again.
    fn fix_dynamic_index(&mut self, k: usize, name: &ast::Ident, out: &mut Vec<ir::Stmt>) {
        let index = self.dynamic_resources[k].index.clone();
        let ty = index.ty;
        let Some(fcx) = self.fcx.as_mut() else {
            return;
        };
        let id = ir::LocalId(fcx.locals.len() as u32);
        fcx.locals.push(ir::Variable {
            name: format!("{}.index", name.name),
            ty,
            span: index.span,
        });
        let place = ir::Place {
            root: PlaceRoot::Local(id),
            path: Vec::new(),
            ty,
        };
        let span = index.span;
        out.push(ir::Stmt::Expr(ir::Expr {
            kind: ExprKind::Assign {
                place: place.clone(),
                value: Box::new(index),
                yield_old: false,
                init: true,
            },
            ty,
            span,
        }));
        self.dynamic_resources[k].index = ir::Expr {
            kind: ExprKind::Load(place),
            ty,
            span,
        };
    }

    fn lower_if(
        &mut self,
        cond: &ast::Expr,
        then_branch: &ast::Stmt,
        else_branch: Option<&ast::Stmt>,
        out: &mut Vec<ir::Stmt>,
    ) {
        let c = self.condition(cond);
        let accept = self.lower_sub(then_branch);
        let reject = else_branch.map(|s| self.lower_sub(s)).unwrap_or_default();
        if let Some(cond) = c {
            out.push(ir::Stmt::If {
                cond,
                accept,
                reject,
            });
        }
    }

    fn condition(&mut self, cond: &ast::Expr) -> Option<ir::Expr> {
        let t = self.lower_value(cond)?;
        self.bool_condition(t, cond.span)
    }

    /// `if (!cond) break;`, the loop exit test.
    fn exit_unless(&mut self, cond: ir::Expr) -> ir::Stmt {
        let ty = cond.ty;
        let span = cond.span;
        let not = ir::Expr {
            kind: ExprKind::Unary(UnaryOp::Not, Box::new(cond)),
            ty,
            span,
        };
        ir::Stmt::If {
            cond: not,
            accept: ir::Block::new(vec![ir::Stmt::Break]),
            reject: ir::Block::default(),
        }
    }

    fn loop_body(&mut self, body: &ast::Stmt) -> ir::Block {
        if let Some(f) = self.fcx.as_mut() {
            f.breakables.push(Breakable::Loop);
        }
        let block = self.lower_sub(body);
        if let Some(f) = self.fcx.as_mut() {
            f.breakables.pop();
        }
        block
    }

    fn lower_for(
        &mut self,
        init: &ast::Stmt,
        cond: Option<&ast::Expr>,
        step: Option<&ast::Expr>,
        body: &ast::Stmt,
        span: Span,
        out: &mut Vec<ir::Stmt>,
    ) {
        self.push_scope();
        self.lower_stmt(init, out);
        let c = cond.map(|c| self.condition(c));
        let step = step.and_then(|s| self.lower_expr(s));
        let body = self.loop_body(body);
        self.pop_scope();
        let mut stmts = Vec::new();
        match c {
            Some(Some(c)) => stmts.push(self.exit_unless(c)),
            Some(None) => return,
            None => {}
        }
        stmts.extend(body.stmts);
        let continuing = step.map(|t| vec![ir::Stmt::Expr(t.e)]).unwrap_or_default();
        out.push(ir::Stmt::Loop {
            body: ir::Block::new(stmts),
            continuing: ir::Block::new(continuing),
            span: crate::context::ir_span(span),
        });
    }

    fn lower_while(
        &mut self,
        cond: &ast::Expr,
        body: &ast::Stmt,
        span: Span,
        out: &mut Vec<ir::Stmt>,
    ) {
        let c = self.condition(cond);
        let body = self.loop_body(body);
        let Some(c) = c else { return };
        let mut stmts = vec![self.exit_unless(c)];
        stmts.extend(body.stmts);
        out.push(ir::Stmt::Loop {
            body: ir::Block::new(stmts),
            continuing: ir::Block::default(),
            span: crate::context::ir_span(span),
        });
    }

    fn lower_do_while(
        &mut self,
        body: &ast::Stmt,
        cond: &ast::Expr,
        span: Span,
        out: &mut Vec<ir::Stmt>,
    ) {
        let body = self.loop_body(body);
        let Some(c) = self.condition(cond) else {
            return;
        };
        let exit = self.exit_unless(c);
        out.push(ir::Stmt::Loop {
            body,
            continuing: ir::Block::new(vec![exit]),
            span: crate::context::ir_span(span),
        });
    }

    fn lower_switch(
        &mut self,
        selector: &ast::Expr,
        cases: &[ast::SwitchCase],
        out: &mut Vec<ir::Stmt>,
    ) {
        let sel = self.switch_selector(selector);
        if let Some(f) = self.fcx.as_mut() {
            f.breakables.push(Breakable::Switch);
        }
        self.push_scope();
        let mut seen: HashMap<u64, Span> = HashMap::new();
        let mut default_seen: Option<Span> = None;
        let mut ir_cases = Vec::new();
        for case in cases {
            let mut values = Vec::new();
            let mut is_default = false;
            for label in &case.labels {
                match label {
                    ast::CaseLabel::Default(span) => {
                        if let Some(previous) = default_seen {
                            let d =
                                Diagnostic::error(*span, "multiple default labels in one switch")
                                    .with_label(previous, "previous default label is here");
                            self.push(d);
                        }
                        default_seen = Some(*span);
                        is_default = true;
                    }
                    ast::CaseLabel::Case(e) => {
                        if let Some(value) = sel
                            .as_ref()
                            .and_then(|s| self.case_value(e, s.1, &mut seen))
                        {
                            values.push(value);
                        }
                    }
                }
            }
            let mut body = Vec::new();
            for s in &case.body {
                self.lower_stmt(s, &mut body);
            }
            ir_cases.push(ir::SwitchCase {
                values,
                is_default,
                body: ir::Block::new(body),
            });
        }
        self.pop_scope();
        if let Some(f) = self.fcx.as_mut() {
            f.breakables.pop();
        }
        if let Some((selector, _)) = sel {
            out.push(ir::Stmt::Switch {
                selector,
                cases: ir_cases,
            });
        }
    }

    fn switch_selector(&mut self, selector: &ast::Expr) -> Option<(ir::Expr, ScalarType)> {
        let t = self.lower_value(selector)?;
        let t = self.default_lit(t);
        match numeric(&self.module.types, t.ty()) {
            Some((s, shape)) if shape.count() == 1 && s.is_integer() => {
                let ty = self.scalar(s);
                let e = self.coerce(t, ty, selector.span)?;
                Some((e, s))
            }
            Some((ScalarType::Bool, Shape::Scalar)) => {
                let ty = self.scalar(ScalarType::Int32);
                let e = self.coerce(t, ty, selector.span)?;
                Some((e, ScalarType::Int32))
            }
            _ => {
                let shown = self.show(t.ty());
                self.error(
                    selector.span,
                    format!("statement requires expression of integer type ('{shown}' invalid)"),
                );
                None
            }
        }
    }

    /// A case label's value as the IR stores it (sign-extended for signed
    /// selectors).
    fn case_value(
        &mut self,
        e: &ast::Expr,
        s: ScalarType,
        seen: &mut HashMap<u64, Span>,
    ) -> Option<u64> {
        let t = self.lower_value(e)?;
        let ty = self.scalar(s);
        let v = self.coerce(t, ty, e.span)?;
        let Some(values) = self.fold(&v) else {
            self.error(e.span, "case value is not a constant expression");
            return None;
        };
        let &first = values.first()?;
        let value = crate::fold::as_i128(first);
        let bits = value as i64 as u64;
        if let Some(&previous) = seen.get(&bits) {
            let d = Diagnostic::error(e.span, format!("duplicate case value '{value}'"))
                .with_label(previous, "previous case defined here");
            self.push(d);
            return None;
        }
        seen.insert(bits, e.span);
        Some(bits)
    }

    fn lower_break(&mut self, span: Span, out: &mut Vec<ir::Stmt>) {
        let ok = self.fcx.as_ref().is_some_and(|f| !f.breakables.is_empty());
        if !ok {
            self.error(span, "'break' statement not in loop or switch statement");
            return;
        }
        out.push(ir::Stmt::Break);
    }

    fn lower_continue(&mut self, span: Span, out: &mut Vec<ir::Stmt>) {
        let ok = self
            .fcx
            .as_ref()
            .is_some_and(|f| f.breakables.contains(&Breakable::Loop));
        if !ok {
            self.error(span, "'continue' statement not in loop statement");
            return;
        }
        out.push(ir::Stmt::Continue);
    }

    fn lower_return(&mut self, value: Option<&ast::Expr>, span: Span, out: &mut Vec<ir::Stmt>) {
        let Some((name, result)) = self.fcx.as_ref().map(|f| (f.name.clone(), f.result)) else {
            return;
        };
        let is_void = self.is_void(result);
        match (value, is_void) {
            (None, true) => out.push(ir::Stmt::Return(None)),
            (None, false) => self.error(
                span,
                format!("non-void function '{name}' should return a value"),
            ),
            (Some(e), true) => {
                let Some(t) = self.lower_expr(e) else { return };
                if t.void || self.is_void(t.ty()) {
                    out.push(ir::Stmt::Expr(t.e));
                    out.push(ir::Stmt::Return(None));
                } else {
                    self.error(
                        e.span,
                        format!("void function '{name}' should not return a value"),
                    );
                }
            }
            (Some(e), false) => {
                let Some(t) = self.lower_expr(e) else { return };
                if let Some(v) = self.coerce(t, result, e.span) {
                    out.push(ir::Stmt::Return(Some(v)));
                }
            }
        }
    }
}
