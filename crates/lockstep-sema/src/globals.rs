//! Global declarations: structs, typedefs, `static` and `static const`
//! values, `groupshared` memory, resources, `cbuffer` blocks and the
//! implicit `$Globals` constant buffer.

use lockstep_ir::{
    self as ir, LayoutRule, Member, PlaceRoot, ResourceKind, StaticId, Type, TypeId,
};
use lockstep_syntax::{Diagnostic, Span, ast};

use crate::context::{GlobalSym, ResourceArray, ResourceInfo, Sema, ir_span};
use crate::types::Resolved;

/// D3D12's limit on groupshared memory per thread group.
const GROUPSHARED_LIMIT: u32 = 32 * 1024;

/// The most elements a resource array may have.
const MAX_RESOURCE_ARRAY: u32 = 1 << 16;

fn has(storage: &[ast::Ident], name: &str) -> bool {
    storage.iter().any(|s| s.name == name)
}

impl<'a> Sema<'a> {
    pub fn declare_struct(&mut self, s: &'a ast::StructDecl) {
        if self.named_types.contains_key(&s.name.name)
            || self.is_type_name(&s.name.name)
            || self.struct_templates.contains_key(&s.name.name)
        {
            self.error(s.name.span, format!("redefinition of '{}'", s.name.name));
            return;
        }
        if !s.template_params.is_empty() {
            self.struct_templates.insert(s.name.name.clone(), s);
            return;
        }
        if let Some(ty) = self.struct_type(s, &s.name.name) {
            self.named_types.insert(s.name.name.clone(), ty);
        }
    }

    /// The type of struct `s` under the name `name` (an instance's name
    /// for a struct template).
    pub(crate) fn struct_type(&mut self, s: &ast::StructDecl, name: &str) -> Option<TypeId> {
        let mut members: Vec<Member> = Vec::new();
        let mut semantics = Vec::new();
        let mut modifiers = Vec::new();
        let mut resources = Vec::new();
        if let Some(base) = &s.base {
            let ty = self.resolve_value_type(base);
            match ty.map(|ty| (ty, self.get(ty))) {
                Some((ty, Type::Struct { .. })) => {
                    if let Some(inherited) = self.struct_resources.get(&ty) {
                        resources.extend(inherited.iter().cloned());
                    }
                    // The base is a first member that no name reaches:
                    // its fields are found through it (`member_path`).
                    members.push(Member {
                        name: crate::expr::BASE_MEMBER.to_string(),
                        ty,
                    });
                    semantics.push(None);
                    modifiers.push(Vec::new());
                }
                Some((ty, _)) => {
                    let shown = self.show(ty);
                    self.error(base.span, format!("base '{shown}' is not a struct"));
                }
                None => {}
            }
        }
        for f in &s.fields {
            if let Some(crate::types::Resolved::Resource(kind, element)) =
                crate::types::is_resource_name(&f.ty.name.name)
                    .then(|| self.resolve_type(&f.ty))
                    .flatten()
            {
                if !f.array_dims.is_empty() {
                    self.error(
                        f.span,
                        "not supported: arrays of resources as struct members",
                    );
                    continue;
                }
                resources.push((f.name.name.clone(), kind, element));
                continue;
            }
            let Some(ty) = self
                .resolve_value_type(&f.ty)
                .and_then(|t| self.apply_dims(t, &f.array_dims, None, f.span))
            else {
                continue;
            };
            if let Some(nested) = self.struct_resources.get(&ty).cloned() {
                if !f.array_dims.is_empty() {
                    self.error(
                        f.span,
                        "not supported: arrays of structs with resource members as struct members",
                    );
                    continue;
                }
                let prefixed = nested.into_iter().map(|(path, kind, element)| {
                    (format!("{}.{path}", f.name.name), kind, element)
                });
                resources.extend(prefixed);
            }
            let ty = if f.modifiers.iter().any(|m| m.name == "row_major") {
                self.set_orientation(ty, true)
            } else {
                ty
            };
            if self.is_void(ty) {
                self.error(f.name.span, "field has incomplete type 'void'");
                continue;
            }
            if members.iter().any(|m| m.name == f.name.name) {
                self.error(f.name.span, format!("duplicate member '{}'", f.name.name));
                continue;
            }
            members.push(Member {
                name: f.name.name.clone(),
                ty,
            });
            semantics.push(f.semantic.clone());
            modifiers.push(f.modifiers.iter().map(|m| m.name.clone()).collect());
        }
        let ty = self.intern(Type::Struct {
            name: name.to_string(),
            members,
        });
        if self.module.types.component_count(ty) > crate::types::MAX_COMPONENTS {
            self.error(s.name.span, format!("struct '{name}' is too large"));
            return None;
        }
        self.member_semantics.insert(ty, semantics);
        self.member_modifiers.insert(ty, modifiers);
        if !resources.is_empty() {
            self.struct_resources.insert(ty, resources);
        }
        Some(ty)
    }

    pub fn declare_typedef(&mut self, t: &ast::TypedefDecl) {
        let Some(ty) = self
            .resolve_value_type(&t.ty)
            .and_then(|ty| self.apply_dims(ty, &t.array_dims, None, t.span))
        else {
            return;
        };
        match self.named_types.get(&t.name.name) {
            Some(&existing) if existing != ty => {
                self.error(
                    t.name.span,
                    format!(
                        "typedef redefinition with different types for '{}'",
                        t.name.name
                    ),
                );
            }
            _ if self.is_type_name(&t.name.name)
                && !self.named_types.contains_key(&t.name.name) =>
            {
                self.error(t.name.span, format!("redefinition of '{}'", t.name.name));
            }
            _ => {
                self.named_types.insert(t.name.name.clone(), ty);
            }
        }
    }

    fn check_global_name(&mut self, name: &ast::Ident) -> bool {
        if self.globals.contains_key(&name.name) {
            self.error(name.span, format!("redefinition of '{}'", name.name));
            return false;
        }
        true
    }

    pub fn declare_global(&mut self, v: &ast::VarDecl) {
        // A declaration rejected with an error declares its names anyway,
        // for uses to report nothing more.
        let quiet = |this: &mut Self| {
            for d in &v.declarators {
                this.quiet_names.insert(d.name.name.clone());
            }
        };
        let Some(resolved) = self.resolve_type(&v.ty) else {
            quiet(self);
            return;
        };
        let is_static = has(&v.storage, "static");
        let is_groupshared = has(&v.storage, "groupshared");
        let is_const = has(&v.storage, "const") || crate::types::has_modifier(&v.ty, "const");
        let base = match resolved {
            Resolved::Resource(kind, element) => {
                if is_static || is_groupshared {
                    self.error(v.span, "resources cannot be 'static' or 'groupshared'");
                    return;
                }
                let vulkan = self.vk_binding(&v.attributes);
                for d in &v.declarators {
                    match self.declare_resource(d, kind, element) {
                        Some(id) => self.module.resources[id.index()].vk_binding = vulkan,
                        None => {
                            self.quiet_names.insert(d.name.name.clone());
                        }
                    }
                }
                return;
            }
            Resolved::Value(base) => base,
        };
        if self.is_void(base) {
            self.error(v.ty.span, "variable has incomplete type 'void'");
            return;
        }
        let resources = self.struct_resources.get(&base).cloned();
        for d in &v.declarators {
            if !self.check_global_name(&d.name) {
                continue;
            }
            if let Some(resources) = &resources {
                if is_groupshared || is_static {
                    self.error(
                        d.span,
                        "a struct with resource members cannot be 'static' or 'groupshared'",
                    );
                    continue;
                }
                if !self.declare_struct_resources(d, resources) {
                    continue;
                }
            }
            if is_groupshared {
                self.declare_groupshared(base, d);
            } else if is_static {
                self.declare_static(base, d, is_const);
            } else {
                self.declare_globals_member(base, d);
            }
        }
    }

    /// Declares one resource (the id, where it is one) or array of them.
    fn declare_resource(
        &mut self,
        d: &ast::Declarator,
        kind: ResourceKind,
        element: TypeId,
    ) -> Option<ir::ResourceId> {
        if !self.check_global_name(&d.name) {
            return None;
        }
        if d.init.is_some() {
            self.error(d.span, "resources cannot have an initializer");
            return None;
        }
        if !d.array_dims.is_empty() {
            self.declare_resource_array(d, kind, element);
            return None;
        }
        let id = self.add_resource(&d.name.name, kind, element, d.register.clone(), d.span);
        self.globals.insert(
            d.name.name.clone(),
            GlobalSym::Resource(ResourceInfo { id, kind, element }),
        );
        Some(id)
    }

    /// `[[vk::binding(binding[, set])]]` among `attributes`, as (binding,
    /// set); the set is 0 where not written.
    fn vk_binding(&mut self, attributes: &[ast::Attribute]) -> Option<(u32, u32)> {
        let a = attributes.iter().find(|a| a.name.name == "vk::binding")?;
        match a.args.as_slice() {
            [b] => Some((self.const_u32(b, "binding")?, 0)),
            [b, s] => Some((self.const_u32(b, "binding")?, self.const_u32(s, "set")?)),
            _ => {
                self.error(
                    a.span,
                    "vk::binding takes a binding and, optionally, a descriptor set",
                );
                None
            }
        }
    }

    /// The resources of a global variable of a struct type with resource
    /// members: one per member (per element of an array of such structs),
    /// named by its path (`a.Buf`, `arr[1].Buf`). A `register(u2)` on the
    /// variable binds its resources of that class from `u2` on, in member
    /// order; the others take free registers. `false` after an error.
    fn declare_struct_resources(
        &mut self,
        d: &ast::Declarator,
        resources: &[(String, ResourceKind, TypeId)],
    ) -> bool {
        let Some((dims, count)) =
            self.resource_dims(d, "an array of structs with resource members")
        else {
            return false;
        };
        let mut next_register = d.register.as_ref().map(|r| r.index);
        for k in 0..count {
            let prefix = element_name(&d.name.name, &dims, k);
            for (path, kind, element) in resources {
                let name = format!("{prefix}.{path}");
                let register = match (&d.register, next_register) {
                    (Some(r), Some(index)) if r.class == kind.register_class() => {
                        next_register = Some(index.saturating_add(1));
                        Some(ast::RegisterBinding { index, ..r.clone() })
                    }
                    _ => None,
                };
                let id = self.add_resource(&name, *kind, *element, register, d.span);
                self.resource_paths.insert(
                    name,
                    ResourceInfo {
                        id,
                        kind: *kind,
                        element: *element,
                    },
                );
            }
        }
        true
    }

    /// The dimensions of an array of resources (or of structs holding
    /// them), each a constant of at least 1, and their element count, at
    /// most [`MAX_RESOURCE_ARRAY`]; `what` names the array in messages.
    fn resource_dims(&mut self, d: &ast::Declarator, what: &str) -> Option<(Vec<u32>, u32)> {
        let mut dims = Vec::with_capacity(d.array_dims.len());
        for dim in &d.array_dims {
            let Some(dim) = dim else {
                self.error(
                    d.span,
                    format!("not supported: {what} without a size (`[]`)"),
                );
                return None;
            };
            let len = self.const_u32(dim, "array size")?;
            if len == 0 {
                self.error(dim.span, "array size must be greater than zero");
                return None;
            }
            dims.push(len);
        }
        let count = dims.iter().try_fold(1u32, |n, &d| n.checked_mul(d));
        let Some(count) = count.filter(|&n| n <= MAX_RESOURCE_ARRAY) else {
            self.error(
                d.span,
                format!("{what} has at most {MAX_RESOURCE_ARRAY} elements"),
            );
            return None;
        };
        Some((dims, count))
    }

    /// `RWBuffer<int> a[4] : register(u2)`: a resource per element, `a[k]`
    /// at register `u(2 + k)` (row-major for more dimensions).
    fn declare_resource_array(&mut self, d: &ast::Declarator, kind: ResourceKind, element: TypeId) {
        let Some((dims, count)) = self.resource_dims(d, "a resource array") else {
            return;
        };
        let first = ir::ResourceId(self.module.resources.len() as u32);
        for k in 0..count {
            let name = element_name(&d.name.name, &dims, k);
            let register = d.register.clone().map(|mut r| {
                r.index = r.index.saturating_add(k);
                r
            });
            self.add_resource(&name, kind, element, register, d.span);
        }
        self.resource_arrays.push((first.index(), count));
        self.globals.insert(
            d.name.name.clone(),
            GlobalSym::ResourceArray(ResourceArray {
                first,
                dims,
                kind,
                element,
            }),
        );
    }

    fn add_resource(
        &mut self,
        name: &str,
        kind: ResourceKind,
        element: TypeId,
        register: Option<ast::RegisterBinding>,
        span: Span,
    ) -> ir::ResourceId {
        let id = ir::ResourceId(self.module.resources.len() as u32);
        self.module.resources.push(ir::Resource {
            name: name.to_string(),
            kind,
            element,
            register: 0,
            space: 0,
            explicit_binding: register.is_some(),
            vk_binding: None,
            counter_of: None,
            span: ir_span(span),
        });
        self.resource_bindings.push(register);
        id
    }

    fn declare_groupshared(&mut self, base: TypeId, d: &ast::Declarator) {
        if d.init.is_some() {
            self.error(d.span, "groupshared variables cannot have an initializer");
            return;
        }
        let Some(ty) = self.apply_dims(base, &d.array_dims, None, d.span) else {
            return;
        };
        let id = ir::GroupsharedId(self.module.groupshared.len() as u32);
        self.module.groupshared.push(ir::Variable {
            name: d.name.name.clone(),
            ty,
            span: ir_span(d.span),
        });
        self.globals
            .insert(d.name.name.clone(), GlobalSym::Groupshared { id, ty });
    }

    /// A `static` global: initialized in `static_init` (zero when it has no
    /// initializer); a `static const` with a constant value is also folded.
    fn declare_static(&mut self, base: TypeId, d: &ast::Declarator, is_const: bool) {
        let Some((ty, value)) = self.declarator_value(base, d) else {
            return;
        };
        let Ok(value) = value else {
            let id = StaticId(self.module.statics.len() as u32);
            self.module.statics.push(ir::Variable {
                name: d.name.name.clone(),
                ty,
                span: ir_span(d.span),
            });
            self.globals
                .insert(d.name.name.clone(), GlobalSym::Static { id, ty, is_const });
            return;
        };
        if is_const && value.is_none() {
            self.error(
                d.name.span,
                format!("const variable '{}' must be initialized", d.name.name),
            );
        }
        let value = value.unwrap_or_else(|| self.zero_value(ty, d.span));
        let id = StaticId(self.module.statics.len() as u32);
        self.module.statics.push(ir::Variable {
            name: d.name.name.clone(),
            ty,
            span: ir_span(d.span),
        });
        if is_const && let Some(values) = self.fold(&value) {
            self.const_values.insert(id, (ty, values));
        }
        self.globals
            .insert(d.name.name.clone(), GlobalSym::Static { id, ty, is_const });
        let place = ir::Place {
            root: PlaceRoot::Static(id),
            path: Vec::new(),
            ty,
        };
        let kind = ir::ExprKind::Assign {
            place,
            value: Box::new(value),
            yield_old: false,
            init: false,
        };
        let e = self.wrap(kind, ty, d.span);
        self.module.static_init.stmts.push(ir::Stmt::Expr(e));
    }

    /// A plain global: a member of `$Globals`, whose values come from the
    /// host; an initializer is ignored, as in DXC.
    fn declare_globals_member(&mut self, base: TypeId, d: &ast::Declarator) {
        let Some(ty) = self.apply_dims(base, &d.array_dims, None, d.span) else {
            return;
        };
        if d.init.is_some() {
            self.warning(
                d.span,
                format!("initializer of global variable '{}' is ignored: non-static globals are constant buffer members; use 'static const'", d.name.name),
            );
        }
        let resource = match self.globals_cb {
            Some(r) => r,
            None => {
                let void = self.void();
                let r =
                    self.add_resource("$Globals", ResourceKind::ConstantBuffer, void, None, d.span);
                self.globals_cb = Some(r);
                r
            }
        };
        let field = self.globals_members.len() as u32;
        self.globals_members.push(Member {
            name: d.name.name.clone(),
            ty,
        });
        self.globals.insert(
            d.name.name.clone(),
            GlobalSym::CBufferMember {
                resource,
                field,
                ty,
            },
        );
    }

    pub fn finish_globals_cbuffer(&mut self) {
        let Some(r) = self.globals_cb else {
            return;
        };
        let members = std::mem::take(&mut self.globals_members);
        let element = self.intern(Type::Struct {
            name: "$Globals".to_string(),
            members,
        });
        self.module.resources[r.index()].element = element;
    }

    pub fn declare_cbuffer(&mut self, c: &ast::CBufferDecl) {
        let void = self.void();
        let resource = self.add_resource(
            &c.name.name,
            ResourceKind::ConstantBuffer,
            void,
            c.register.clone(),
            c.span,
        );
        self.module.resources[resource.index()].vk_binding = self.vk_binding(&c.attributes);
        // Each member with its declarator and, where written, its
        // packoffset in bytes.
        let mut declared: Vec<(Member, &ast::Declarator, Option<u32>)> = Vec::new();
        for v in &c.members {
            if !v.storage.is_empty()
                && v.storage
                    .iter()
                    .any(|s| matches!(s.name.as_str(), "static" | "groupshared"))
            {
                self.error(
                    v.span,
                    "constant buffer members cannot be 'static' or 'groupshared'",
                );
                continue;
            }
            let Some(base) = self.resolve_value_type(&v.ty) else {
                continue;
            };
            for d in &v.declarators {
                if !self.check_global_name(&d.name) {
                    continue;
                }
                let Some(ty) = self.apply_dims(base, &d.array_dims, None, d.span) else {
                    continue;
                };
                let offset = match &d.packoffset {
                    Some(p) => match packoffset_bytes(&p.name) {
                        Some(offset) => Some(offset),
                        None => {
                            self.error(
                                p.span,
                                format!("invalid packoffset '{}': expected c<register>, optionally with .x, .y, .z or .w", p.name),
                            );
                            continue;
                        }
                    },
                    None => None,
                };
                let member = Member {
                    name: d.name.name.clone(),
                    ty,
                };
                declared.push((member, d, offset));
            }
        }
        let members = self.place_cbuffer_members(&mut declared, c.name.span);
        for (member, _, _) in &declared {
            let Some(field) = members.iter().position(|m| m.name == member.name) else {
                continue;
            };
            self.globals.insert(
                member.name.clone(),
                GlobalSym::CBufferMember {
                    resource,
                    field: field as u32,
                    ty: member.ty,
                },
            );
        }
        let element = self.intern(Type::Struct {
            name: c.name.name.clone(),
            members,
        });
        self.module.resources[resource.index()].element = element;
    }

    /// A constant buffer's members in layout order: as declared, or with
    /// `packoffset` on every member, ordered by offset with unnamed padding
    /// members before those that start later than they would.
    fn place_cbuffer_members(
        &mut self,
        declared: &mut [(Member, &ast::Declarator, Option<u32>)],
        at: Span,
    ) -> Vec<Member> {
        let given = declared.iter().filter(|d| d.2.is_some()).count();
        if given == 0 {
            return declared.iter().map(|d| d.0.clone()).collect();
        }
        if given != declared.len() {
            self.error(
                at,
                "packoffset must be given on every member of a constant buffer, or on none",
            );
            return declared.iter().map(|d| d.0.clone()).collect();
        }
        declared.sort_by_key(|d| d.2);
        let (float, float4, half_word) = (
            self.scalar(ir::ScalarType::Float32),
            self.intern(Type::Vector(ir::ScalarType::Float32, 4)),
            self.scalar(ir::ScalarType::UInt16),
        );
        let mut members = Vec::with_capacity(declared.len());
        let mut end = 0u32;
        for (member, d, want) in declared.iter() {
            let want = want.unwrap_or(0);
            loop {
                let (start, sa) = ir::layout::place_member(
                    &self.module.types,
                    member.ty,
                    end,
                    LayoutRule::CBuffer,
                );
                if start == want {
                    members.push(member.clone());
                    end = start + sa.size;
                    break;
                }
                if start > want {
                    let span = d.packoffset.as_ref().map_or(d.span, |p| p.span);
                    let shown = self.show(member.ty);
                    self.error(
                        span,
                        format!(
                            "'{}' cannot start at byte {want}: a '{shown}' there overlaps the member before it or crosses a 16-byte register (arrays, structs and matrices start on a register)",
                            member.name
                        ),
                    );
                    members.push(member.clone());
                    end = start + sa.size;
                    break;
                }
                let pad = if !end.is_multiple_of(4) {
                    half_word
                } else if end.is_multiple_of(16) && want >= end + 16 {
                    float4
                } else {
                    float
                };
                let (start, sa) =
                    ir::layout::place_member(&self.module.types, pad, end, LayoutRule::CBuffer);
                members.push(Member {
                    name: format!(":pad{}", members.len()),
                    ty: pad,
                });
                end = start + sa.size;
            }
        }
        members
    }

    pub fn check_groupshared_size(&mut self) {
        let mut total = 0u32;
        for v in &self.module.groupshared {
            let size = ir::layout::size_align(&self.module.types, v.ty, LayoutRule::Packed).size;
            total = total.saturating_add(size);
        }
        if total > GROUPSHARED_LIMIT {
            let span = self
                .module
                .groupshared
                .first()
                .map(|v| v.span)
                .unwrap_or_default();
            let span = Span::new(lockstep_syntax::FileId(span.file), span.start, span.end);
            self.push(Diagnostic::error(
                span,
                format!("total groupshared memory of {total} bytes exceeds the limit of {GROUPSHARED_LIMIT} bytes"),
            ));
        }
    }
}

/// `packoffset(c1.y)` in bytes from the buffer's start: the register times
/// 16, plus 4 per component.
fn packoffset_bytes(text: &str) -> Option<u32> {
    let rest = text.strip_prefix('c')?;
    let (register, component) = match rest.split_once('.') {
        Some((r, c)) => (r, Some(c)),
        None => (rest, None),
    };
    let register: u32 = register.parse().ok()?;
    let component = match component {
        None | Some("x" | "r") => 0,
        Some("y" | "g") => 1,
        Some("z" | "b") => 2,
        Some("w" | "a") => 3,
        Some(_) => return None,
    };
    register.checked_mul(16)?.checked_add(component * 4)
}

/// The name of element `k` (row-major) of an array `base` of dimensions
/// `dims`: `a[1][0]`.
fn element_name(base: &str, dims: &[u32], k: u32) -> String {
    let mut parts = Vec::with_capacity(dims.len());
    let mut rest = k;
    for &dim in dims.iter().rev() {
        parts.push(rest % dim);
        rest /= dim;
    }
    let mut name = base.to_string();
    for part in parts.iter().rev() {
        name.push_str(&format!("[{part}]"));
    }
    name
}
