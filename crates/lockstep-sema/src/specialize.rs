//! Functions with resource parameters (`void write(RWBuffer<uint> b, uint
//! i)`): a resource is fixed when the shader is compiled, so each call
//! compiles a copy of the function for the global resources it passes, as
//! DXC does by inlining.

use std::collections::HashMap;

use lockstep_syntax::{Span, ast};

use crate::context::{FnSym, ParamSig, ResourceInfo, Sema, TExpr};
use crate::types::Resolved;

impl<'a> Sema<'a> {
    /// Whether a parameter of `f` has a resource type.
    pub(crate) fn has_resource_params(&mut self, f: &ast::FunctionDecl) -> bool {
        f.params.iter().any(|p| {
            if resource_kind_name(&p.ty.name.name) {
                return matches!(self.resolve_type(&p.ty), Some(Resolved::Resource(..)));
            }
            // A struct with resource members: its resources are fixed per
            // call as well.
            p.array_dims.is_empty()
                && self
                    .named_types
                    .get(&p.ty.name.name)
                    .is_some_and(|&ty| self.has_resource_members(ty))
        })
    }

    /// A call to a function with resource parameters: its copy for these
    /// resources, compiled on first use.
    pub(crate) fn call_with_resources(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<TExpr> {
        let decls = self
            .resource_functions
            .get(name)
            .cloned()
            .unwrap_or_default();
        // Among overloads of one arity, the first whose resource parameters
        // take the arguments' kinds of resource.
        let candidates: Vec<&'a ast::FunctionDecl> = decls
            .iter()
            .copied()
            .filter(|f| f.params.len() == args.len() && f.body.is_some())
            .collect();
        let fits = |this: &mut Self, f: &ast::FunctionDecl| {
            f.params.iter().zip(args).all(|(p, a)| {
                if !resource_kind_name(&p.ty.name.name) {
                    return true;
                }
                match (this.resolve_type(&p.ty), this.resource_of(a)) {
                    (Some(Resolved::Resource(kind, element)), Some(info)) => {
                        info.id.0 >= crate::context::DYNAMIC_RESOURCE_BASE
                            || (info.kind == kind && info.element == element)
                    }
                    _ => true,
                }
            })
        };
        let chosen = match candidates.len() {
            0 | 1 => candidates.first().copied(),
            _ => candidates
                .iter()
                .copied()
                .find(|f| fits(self, f))
                .or(candidates.first().copied()),
        };
        let Some(f) = chosen else {
            self.error(
                span,
                format!(
                    "no matching function for call to '{name}' (a function with resource parameters takes every argument, and needs a body)"
                ),
            );
            return None;
        };
        let mut resources = HashMap::new();
        let mut key = Vec::new();
        let mut value_args = Vec::new();
        for (p, a) in f.params.iter().zip(args) {
            if !resource_kind_name(&p.ty.name.name) {
                // A struct with resource members passes its values, and
                // fixes its resources for this copy.
                if let Some(&ty) = self.named_types.get(&p.ty.name.name)
                    && let Some(members) = self.struct_resources.get(&ty).cloned()
                {
                    for (path, _, _) in &members {
                        let Some(info) = self.member_resource_of(a, path) else {
                            self.error(
                                a.span,
                                format!(
                                    "parameter '{}' takes a struct whose member '{path}' must name a resource here",
                                    p.name.name
                                ),
                            );
                            return None;
                        };
                        key.push(info.id.0);
                        resources.insert(format!("{}.{path}", p.name.name), info);
                    }
                }
                value_args.push(a.clone());
                continue;
            }
            let Some(Resolved::Resource(kind, element)) = self.resolve_type(&p.ty) else {
                value_args.push(a.clone());
                continue;
            };
            let wanted = ResourceInfo {
                id: lockstep_ir::ResourceId(0),
                kind,
                element,
            };
            let Some(info) = self.resource_of(a) else {
                let shown = self.resource_display(wanted);
                self.error(
                    a.span,
                    format!(
                        "parameter '{}' takes a resource: pass a global '{shown}'",
                        p.name.name
                    ),
                );
                return None;
            };
            if info.id.0 >= crate::context::DYNAMIC_RESOURCE_BASE {
                self.error(
                    a.span,
                    "not supported: passing a resource chosen per lane (an array element with a non-constant index) to a function",
                );
                return None;
            }
            if info.kind != kind || info.element != element {
                let (shown, given) = (self.resource_display(wanted), self.resource_display(info));
                self.error(
                    a.span,
                    format!(
                        "parameter '{}' is a '{shown}', but the argument is a '{given}'",
                        p.name.name
                    ),
                );
                return None;
            }
            key.push(info.id.0);
            resources.insert(p.name.name.clone(), info);
        }
        let idx = self.specialize(f, key, resources)?;
        let values: Vec<Option<TExpr>> = value_args.iter().map(|a| self.lower_expr(a)).collect();
        let values: Vec<TExpr> = values.into_iter().collect::<Option<_>>()?;
        self.build_call(idx, values, &value_args, span)
    }

    /// The copy of `f` whose resource parameters name `resources`.
    fn specialize(
        &mut self,
        f: &'a ast::FunctionDecl,
        key: Vec<u32>,
        resources: HashMap<String, ResourceInfo>,
    ) -> Option<usize> {
        self.specialize_instance(f, key, resources, String::new())
    }

    /// [`Sema::specialize`] for the template instance `instance` (its
    /// arguments shown; empty for a function that is no template), whose
    /// parameters the innermost template scope binds.
    pub(crate) fn specialize_instance(
        &mut self,
        f: &'a ast::FunctionDecl,
        key: Vec<u32>,
        resources: HashMap<String, ResourceInfo>,
        instance: String,
    ) -> Option<usize> {
        let cache_key = (f.span, key, instance);
        if let Some(&idx) = self.specializations.get(&cache_key) {
            return Some(idx);
        }
        let result = self.resolve_value_type(&f.return_type)?;
        let mut params = Vec::new();
        for p in f
            .params
            .iter()
            .filter(|p| !resources.contains_key(&p.name.name))
        {
            if self
                .named_types
                .get(&p.ty.name.name)
                .is_some_and(|&ty| self.has_resource_members(ty))
            {
                let ty = self.named_types[&p.ty.name.name];
                params.push(ParamSig {
                    ty,
                    dir: crate::func::direction(p.direction),
                    default: p.default.as_ref(),
                });
                continue;
            }
            let ty = self
                .resolve_value_type(&p.ty)
                .and_then(|t| self.apply_dims(t, &p.array_dims, None, p.span))?;
            params.push(ParamSig {
                ty,
                dir: crate::func::direction(p.direction),
                default: p.default.as_ref(),
            });
        }
        let idx = self.fn_syms.len();
        self.fn_syms.push(FnSym {
            name: f.name.name.clone(),
            params,
            result,
            id: None,
            defined: true,
            decl: f,
        });
        // Cached before the body, so that a recursive call finds it and the
        // call graph reports the recursion.
        self.specializations.insert(cache_key, idx);
        let body = f.body.as_ref()?;
        let outer = self.fcx.take();
        self.lower_body_with(idx, f, body, resources);
        self.fcx = outer;
        Some(idx)
    }
}

/// Whether a type name is one of the resource types (before resolving it,
/// which would report errors in ordinary types twice).
fn resource_kind_name(name: &str) -> bool {
    crate::types::is_resource_name(name)
}
