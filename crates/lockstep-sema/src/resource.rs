//! Resources: buffer element access, the methods of buffer objects
//! (`Load`, `Store`, `Interlocked*`, `GetDimensions`), the global
//! `Interlocked*` functions, and register assignment.

use lockstep_ir::{
    self as ir, AtomicOp, ExprKind, Place, PlaceRoot, ResourceKind, ResourceQuery, ScalarType, Type,
};
use lockstep_syntax::{Diagnostic, Span, ast};

use crate::context::{
    DYNAMIC_RESOURCE_BASE, DynamicResource, GlobalSym, Lit, ResourceArray, ResourceInfo, Sema,
    TExpr,
};

/// The most resources an array may have for an index chosen per lane: each
/// access becomes a choice among them (see `crate::dynamic`).
const MAX_DYNAMIC_RESOURCES: u32 = 256;

/// The atomic operation an `Interlocked*` name performs, with its argument
/// counts (destination included).
pub(crate) fn interlocked_op(name: &str) -> Option<(AtomicOp, &'static [usize])> {
    Some(match name {
        "InterlockedAdd" => (AtomicOp::Add, &[2, 3]),
        "InterlockedMin" => (AtomicOp::Min, &[2, 3]),
        "InterlockedMax" => (AtomicOp::Max, &[2, 3]),
        "InterlockedAnd" => (AtomicOp::And, &[2, 3]),
        "InterlockedOr" => (AtomicOp::Or, &[2, 3]),
        "InterlockedXor" => (AtomicOp::Xor, &[2, 3]),
        "InterlockedExchange" => (AtomicOp::Exchange, &[3]),
        "InterlockedCompareExchange" => (AtomicOp::CompareExchange, &[4]),
        "InterlockedCompareStore" => (AtomicOp::CompareStore, &[3]),
        // SM 6.6: floats compared and exchanged as their bits.
        "InterlockedCompareStoreFloatBitwise" => (AtomicOp::CompareStore, &[3]),
        "InterlockedCompareExchangeFloatBitwise" => (AtomicOp::CompareExchange, &[4]),
        _ => return None,
    })
}

pub(crate) fn resource_type_name(kind: ResourceKind) -> &'static str {
    match kind {
        ResourceKind::StructuredBuffer => "StructuredBuffer",
        ResourceKind::RWStructuredBuffer => "RWStructuredBuffer",
        ResourceKind::AppendStructuredBuffer => "AppendStructuredBuffer",
        ResourceKind::ConsumeStructuredBuffer => "ConsumeStructuredBuffer",
        ResourceKind::Buffer => "Buffer",
        ResourceKind::RWBuffer => "RWBuffer",
        ResourceKind::ByteAddressBuffer => "ByteAddressBuffer",
        ResourceKind::RWByteAddressBuffer => "RWByteAddressBuffer",
        ResourceKind::ConstantBuffer => "ConstantBuffer",
        ResourceKind::Texture1D => "Texture1D",
        ResourceKind::Texture1DArray => "Texture1DArray",
        ResourceKind::Texture2D => "Texture2D",
        ResourceKind::Texture2DArray => "Texture2DArray",
        ResourceKind::Texture3D => "Texture3D",
        ResourceKind::TextureCube => "TextureCube",
        ResourceKind::TextureCubeArray => "TextureCubeArray",
        ResourceKind::RWTexture1D => "RWTexture1D",
        ResourceKind::RWTexture1DArray => "RWTexture1DArray",
        ResourceKind::RWTexture2D => "RWTexture2D",
        ResourceKind::RWTexture2DArray => "RWTexture2DArray",
        ResourceKind::RWTexture3D => "RWTexture3D",
        ResourceKind::SamplerState => "SamplerState",
    }
}

fn is_byte_address(kind: ResourceKind) -> bool {
    matches!(
        kind,
        ResourceKind::ByteAddressBuffer | ResourceKind::RWByteAddressBuffer
    )
}

impl Sema<'_> {
    /// The resource an expression names: a global resource, a local name
    /// for one, or an element of a resource array (`a[i]`). An element
    /// chosen per lane is a placeholder that [`crate::dynamic`] resolves.
    /// The array's indices are lowered here, once.
    pub fn resource_of(&mut self, e: &ast::Expr) -> Option<ResourceInfo> {
        if let ast::ExprKind::Index { .. } = &e.kind
            && self.indexed_resource_array(e).is_some()
        {
            return self.resource_element(e);
        }
        if let ast::ExprKind::Member { .. } = &e.kind
            && let Some(key) = self.local_member_key(e)
        {
            let found = self.lookup_resource_alias(&key);
            if found.is_none() {
                self.error(
                    e.span,
                    format!("resource member '{key}' is used before a resource is assigned to it"),
                );
            }
            return found;
        }
        if matches!(
            e.kind,
            ast::ExprKind::Member { .. } | ast::ExprKind::Index { .. }
        ) {
            return self.struct_member_resource(e);
        }
        let ast::ExprKind::Ident(id) = &e.kind else {
            return None;
        };
        if let Some(info) = self.lookup_resource_alias(&id.name) {
            return Some(info);
        }
        if self.lookup_local(&id.name).is_some() {
            return None;
        }
        match self.globals.get(&id.name) {
            Some(GlobalSym::Resource(info)) => Some(*info),
            _ => None,
        }
    }

    /// `s.inner.Buf` where `s` is a local (or parameter) of a struct with
    /// resource members and the path names one of them: the path, the key
    /// its resource is recorded under in the resource scopes.
    pub(crate) fn local_member_key(&self, e: &ast::Expr) -> Option<String> {
        let mut members = Vec::new();
        let mut at = e;
        while let ast::ExprKind::Member { base, member } = &at.kind {
            members.push(member.name.as_str());
            at = base;
        }
        let ast::ExprKind::Ident(root) = &at.kind else {
            return None;
        };
        let local = self.lookup_local(&root.name)?;
        let ty = self.fcx.as_ref()?.locals[local.index()].ty;
        members.reverse();
        let path = members.join(".");
        self.struct_resources
            .get(&ty)?
            .iter()
            .any(|(p, _, _)| *p == path)
            .then(|| format!("{}.{path}", root.name))
    }

    /// The resource member `path` of the struct value `e` names: a local's
    /// (from its assignments) or a global's.
    pub(crate) fn member_resource_of(&mut self, e: &ast::Expr, path: &str) -> Option<ResourceInfo> {
        let mut member = e.clone();
        for part in path.split('.') {
            member = ast::Expr {
                span: e.span,
                kind: ast::ExprKind::Member {
                    base: Box::new(member),
                    member: ast::Ident {
                        name: part.to_string(),
                        span: e.span,
                    },
                },
            };
        }
        if let Some(key) = self.local_member_key(&member) {
            return self.lookup_resource_alias(&key);
        }
        self.struct_member_resource(&member)
    }

    /// `S t = s;` and `t = s;` with `S` a struct with resource members: `t`'s
    /// members name the resources `s`'s do, where `s` names them.
    pub(crate) fn copy_resource_members(
        &mut self,
        ty: ir::TypeId,
        target: &str,
        source: &ast::Expr,
    ) {
        let Some(members) = self.struct_resources.get(&ty).cloned() else {
            return;
        };
        for (path, _, _) in members {
            if let Some(info) = self.member_resource_of(source, &path)
                && let Some(scope) = self.fcx.as_mut().and_then(|f| f.resource_scopes.last_mut())
            {
                scope.insert(format!("{target}.{path}"), info);
            }
        }
    }

    /// `s.Buf = gBuf;` for a local `s` of a struct with resource members:
    /// from here on (in this block), `s.Buf` names `gBuf`. `None` when
    /// `lhs` is no such member.
    pub(crate) fn assign_resource_member(
        &mut self,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> Option<Option<TExpr>> {
        let key = self.local_member_key(lhs)?;
        let Some(info) = self.resource_of(rhs) else {
            self.error(
                rhs.span,
                format!("'{key}' is a resource: assign it a resource"),
            );
            return Some(None);
        };
        if info.id.0 >= DYNAMIC_RESOURCE_BASE {
            self.error(
                rhs.span,
                "not supported: assigning a resource chosen per lane (an array element with a non-constant index) to a struct member",
            );
            return Some(None);
        }
        if let Some(scope) = self.fcx.as_mut().and_then(|f| f.resource_scopes.last_mut()) {
            scope.insert(key, info);
        }
        let void = self.void();
        Some(Some(TExpr::new(ExprKind::Const(Vec::new()), void, span)))
    }

    /// `a.Buf`, `arr[1].inner.Buf`: a resource member of a global struct
    /// variable, when `e` names one.
    fn struct_member_resource(&mut self, e: &ast::Expr) -> Option<ResourceInfo> {
        let mut root = e;
        while let ast::ExprKind::Member { base, .. } | ast::ExprKind::Index { base, .. } =
            &root.kind
        {
            root = base;
        }
        let ast::ExprKind::Ident(id) = &root.kind else {
            return None;
        };
        if self.lookup_local(&id.name).is_some() {
            return None;
        }
        let Some(GlobalSym::CBufferMember { ty, .. }) = self.globals.get(&id.name) else {
            return None;
        };
        let mut ty = *ty;
        while let Type::Array { element, .. } = self.get(ty) {
            ty = *element;
        }
        if !self.struct_resources.contains_key(&ty) {
            return None;
        }
        let path = self.resource_path(e)?;
        self.resource_paths.get(&path).copied()
    }

    /// The path of a member of a global struct variable, with its array
    /// indices folded (`arr[1].Buf`).
    fn resource_path(&mut self, e: &ast::Expr) -> Option<String> {
        match &e.kind {
            ast::ExprKind::Ident(id) => Some(id.name.clone()),
            ast::ExprKind::Member { base, member } => {
                Some(format!("{}.{}", self.resource_path(base)?, member.name))
            }
            ast::ExprKind::Index { base, index } => {
                let base = self.resource_path(base)?;
                let t = self.lower_value(index)?;
                match self.fold(&t.e).as_deref() {
                    Some([v]) => Some(format!("{base}[{}]", crate::fold::as_i128(*v))),
                    _ => {
                        self.error(
                            index.span,
                            "not supported: a non-constant index into an array of structs with resource members",
                        );
                        None
                    }
                }
            }
            _ => None,
        }
    }

    /// Whether `ty` (or its element, for an array) is a struct with
    /// resource members.
    pub(crate) fn has_resource_members(&self, ty: ir::TypeId) -> bool {
        let mut ty = ty;
        while let Type::Array { element, .. } = self.get(ty) {
            ty = *element;
        }
        self.struct_resources.contains_key(&ty)
    }

    /// The kind of resource `id`, a placeholder's included.
    pub(crate) fn resource_kind(&self, id: ir::ResourceId) -> Option<ResourceKind> {
        let id = match id.0.checked_sub(DYNAMIC_RESOURCE_BASE) {
            Some(k) => self.dynamic_resources.get(k as usize)?.first,
            None => id,
        };
        Some(self.module.resources.get(id.index())?.kind)
    }

    /// The resource array that `e` indexes into, when `e` is `a[…]…` of a
    /// global resource array.
    pub(crate) fn indexed_resource_array(&self, e: &ast::Expr) -> Option<ResourceArray> {
        let mut at = e;
        while let ast::ExprKind::Index { base, .. } = &at.kind {
            at = base;
        }
        let ast::ExprKind::Ident(id) = &at.kind else {
            return None;
        };
        if self.lookup_local(&id.name).is_some() || self.lookup_resource_alias(&id.name).is_some() {
            return None;
        }
        match self.globals.get(&id.name) {
            Some(GlobalSym::ResourceArray(array)) => Some(array.clone()),
            _ => None,
        }
    }

    /// `a[i][j]` of a resource array `a`: the element itself when every
    /// index is a constant, else a placeholder for the element chosen per
    /// lane.
    fn resource_element(&mut self, e: &ast::Expr) -> Option<ResourceInfo> {
        let array = self.indexed_resource_array(e)?;
        let mut indices = Vec::new();
        let mut at = e;
        while let ast::ExprKind::Index { base, index } = &at.kind {
            indices.push(&**index);
            at = base;
        }
        indices.reverse();
        if indices.len() != array.dims.len() {
            self.error(
                e.span,
                format!(
                    "an array of resources of {} dimensions takes {} indices, found {}",
                    array.dims.len(),
                    array.dims.len(),
                    indices.len()
                ),
            );
            return None;
        }
        let uint = self.scalar(ScalarType::UInt32);
        let mut flat: Option<ir::Expr> = None;
        let mut constant = Some(0u32);
        for (index, &len) in indices.iter().zip(&array.dims) {
            let t = self.lower_value(index)?;
            let i = self.coerce(t, uint, index.span)?;
            let value = self.fold(&i).and_then(|v| v.first().copied());
            match value {
                Some(v) if v.bits >= u64::from(len) => {
                    let shown = crate::fold::as_i128(v);
                    self.error(
                        index.span,
                        format!("index {shown} is out of bounds (the size is {len})"),
                    );
                    return None;
                }
                Some(v) => constant = constant.map(|c| c * len + v.bits as u32),
                None => constant = None,
            }
            let len_const = self.u32_const(len, index.span);
            flat = Some(match flat {
                None => i,
                Some(prev) => {
                    let scaled = self.wrap(
                        ExprKind::Binary(ir::BinaryOp::Mul, Box::new(prev), Box::new(len_const)),
                        uint,
                        index.span,
                    );
                    self.wrap(
                        ExprKind::Binary(ir::BinaryOp::Add, Box::new(scaled), Box::new(i)),
                        uint,
                        index.span,
                    )
                }
            });
        }
        let count = array.dims.iter().product::<u32>();
        let id = match (constant, flat) {
            (Some(k), _) => ir::ResourceId(array.first.0 + k),
            (None, Some(_)) if count > MAX_DYNAMIC_RESOURCES => {
                self.error(
                    e.span,
                    format!(
                        "not supported: a non-constant index into an array of {count} resources (at most {MAX_DYNAMIC_RESOURCES} can be chosen per lane)"
                    ),
                );
                return None;
            }
            (None, Some(index)) => {
                let k = self.dynamic_resources.len() as u32;
                self.dynamic_resources.push(DynamicResource {
                    first: array.first,
                    count,
                    index,
                });
                ir::ResourceId(DYNAMIC_RESOURCE_BASE + k)
            }
            (None, None) => return None,
        };
        Some(ResourceInfo {
            id,
            kind: array.kind,
            element: array.element,
        })
    }

    pub(crate) fn resource_display(&self, info: ResourceInfo) -> String {
        let name = resource_type_name(info.kind);
        if is_byte_address(info.kind) {
            name.to_string()
        } else {
            format!("{name}<{}>", self.show(info.element))
        }
    }

    /// One step of a structured buffer's hidden counter: the value before
    /// an increment (`IncrementCounter`, the slot `Append` writes), or after
    /// a decrement (`DecrementCounter`, the slot `Consume` reads), as D3D
    /// defines them.
    fn counter_step(&mut self, info: ResourceInfo, increment: bool, span: Span) -> TExpr {
        let counter = self.counter_resource(info);
        let uint = self.scalar(ScalarType::UInt32);
        let place = ir::Place {
            root: PlaceRoot::ByteAddress {
                resource: counter,
                address: Box::new(self.u32_const(0, span)),
            },
            path: Vec::new(),
            ty: uint,
        };
        let delta = self.u32_const(if increment { 1 } else { u32::MAX }, span);
        let old = self.wrap(
            ExprKind::Atomic {
                op: ir::AtomicOp::Add,
                place,
                args: vec![delta],
            },
            uint,
            span,
        );
        if increment {
            return TExpr::of(old);
        }
        let minus_one = self.u32_const(u32::MAX, span);
        let new = self.wrap(
            ExprKind::Binary(ir::BinaryOp::Add, Box::new(old), Box::new(minus_one)),
            uint,
            span,
        );
        TExpr::of(new)
    }

    /// The hidden counter resource of `info`, made on first use.
    fn counter_resource(&mut self, info: ResourceInfo) -> ir::ResourceId {
        if let Some(&counter) = self.counters.get(&info.id) {
            return counter;
        }
        let base = self.module.resources[info.id.index()].clone();
        let uint = self.scalar(ScalarType::UInt32);
        let counter = ir::ResourceId(self.module.resources.len() as u32);
        self.module.resources.push(ir::Resource {
            name: format!("{}.counter", base.name),
            kind: ResourceKind::RWByteAddressBuffer,
            element: uint,
            register: 0,
            space: 0,
            explicit_binding: false,
            vk_binding: None,
            counter_of: Some(info.id),
            span: base.span,
        });
        self.resource_bindings.push(None);
        self.counters.insert(info.id, counter);
        counter
    }

    /// `buf[i]`, or `tex[coord]` for textures.
    pub fn buffer_element(
        &mut self,
        info: ResourceInfo,
        i: TExpr,
        index_span: Span,
        span: Span,
    ) -> Option<TExpr> {
        if info.kind.is_texture() {
            return self.texel(info, i, index_span, span);
        }
        if is_byte_address(info.kind)
            || matches!(
                info.kind,
                ResourceKind::ConstantBuffer
                    | ResourceKind::AppendStructuredBuffer
                    | ResourceKind::ConsumeStructuredBuffer
            )
        {
            let shown = self.resource_display(info);
            self.error(span, format!("'{shown}' cannot be indexed"));
            return None;
        }
        let uint = self.scalar(ScalarType::UInt32);
        let index = self.coerce(i, uint, index_span)?;
        let root = PlaceRoot::BufferElement {
            resource: info.id,
            index: Box::new(index),
        };
        Some(self.load(root, Vec::new(), info.element, span))
    }

    pub fn lower_method_call(
        &mut self,
        receiver: &ast::Expr,
        method: &ast::Ident,
        template_args: &[ast::TypeExpr],
        args: &[ast::Expr],
        span: Span,
    ) -> Option<TExpr> {
        let Some(info) = self.resource_of(receiver) else {
            let t = self.lower_value(receiver)?;
            if let Some((function, depth)) = self.member_function(t.ty(), &method.name) {
                // `obj.f(args)` is `S.f(obj, args)`, with the base of `obj`
                // where `f` is the base's.
                let mut all = Vec::with_capacity(args.len() + 1);
                if self.takes_object(&function) {
                    all.push(crate::expr::base_of(receiver.clone(), depth));
                }
                all.extend(args.iter().cloned());
                return self.call_user(&function, &all, span);
            }
            let shown = self.show(t.ty());
            self.error(
                method.span,
                format!("member function call on a value of type '{shown}'"),
            );
            return None;
        };
        let name = method.name.as_str();
        let counts = matches!(
            name,
            "IncrementCounter" | "DecrementCounter" | "Append" | "Consume"
        );
        if counts && info.id.0 >= DYNAMIC_RESOURCE_BASE {
            self.error(
                method.span,
                format!("not supported: '{name}' on a buffer chosen per lane (an array element with a non-constant index)"),
            );
            return None;
        }
        if name == "GetDimensions" {
            return self.get_dimensions(info, args, span);
        }
        if let Some((status, rest)) = self.status_argument(info, name, args) {
            let load = self.lower_method_call(receiver, method, template_args, rest, span)?;
            return self.with_status(load, status);
        }
        if info.kind.is_texture() && name == "Load" {
            return self.texture_load(info, args, span);
        }
        if crate::sample::is_sample_method(name)
            && info.kind.is_texture()
            && !info.kind.is_writable()
        {
            return self.texture_sample(info, receiver, name, args, span);
        }
        if info.kind == ResourceKind::RWByteAddressBuffer {
            // SM 6.6 spells the 64-bit forms `InterlockedAdd64` and so on.
            let (base, wide) = match name.strip_suffix("64") {
                Some(base) => (base, true),
                None => (name, false),
            };
            if let Some((op, counts)) = interlocked_op(base) {
                return self.byte_address_atomic(info, name, op, counts, wide, args, span);
            }
        }
        match (info.kind, name) {
            (ResourceKind::RWStructuredBuffer, "IncrementCounter" | "DecrementCounter") => {
                self.method_args::<0>(name, args, span)?;
                return Some(self.counter_step(info, name == "IncrementCounter", span));
            }
            (ResourceKind::AppendStructuredBuffer, "Append") => {
                let [value] = self.method_args::<1>(name, args, span)? else {
                    return None;
                };
                let value = self.lower_value(value)?;
                let value = self.coerce(value, info.element, args[0].span)?;
                let slot = self.counter_step(info, true, span);
                let place = ir::Place {
                    root: PlaceRoot::BufferElement {
                        resource: info.id,
                        index: Box::new(slot.e),
                    },
                    path: Vec::new(),
                    ty: info.element,
                };
                let kind = ExprKind::Assign {
                    place,
                    value: Box::new(value),
                    yield_old: false,
                    init: false,
                };
                let mut t = TExpr::new(kind, info.element, span);
                t.void = true;
                return Some(t);
            }
            (ResourceKind::ConsumeStructuredBuffer, "Consume") => {
                self.method_args::<0>(name, args, span)?;
                let slot = self.counter_step(info, false, span);
                let root = PlaceRoot::BufferElement {
                    resource: info.id,
                    index: Box::new(slot.e),
                };
                return Some(self.load(root, Vec::new(), info.element, span));
            }
            _ => {}
        }
        match (is_byte_address(info.kind), name) {
            (false, "Load") if info.kind != ResourceKind::ConstantBuffer => {
                let [index] = self.method_args::<1>(name, args, span)? else {
                    return None;
                };
                let i = self.lower_value(index)?;
                self.buffer_element(info, i, index.span, span)
            }
            (true, "Load" | "Load2" | "Load3" | "Load4") => {
                self.byte_address_load(info, name, template_args, args, span)
            }
            (true, "Store" | "Store2" | "Store3" | "Store4") if info.kind.is_writable() => {
                self.byte_address_store(info, name, template_args, args, span)
            }
            _ => {
                let shown = self.resource_display(info);
                let message = match name {
                    "IncrementCounter" | "DecrementCounter" => {
                        format!("'{name}' needs a RWStructuredBuffer, not a '{shown}'")
                    }
                    _ if crate::sample::is_sample_method(name) => {
                        format!("'{name}' needs a read-only texture, not a '{shown}'")
                    }
                    "GatherCmpGreen" | "GatherCmpBlue" | "GatherCmpAlpha" | "SampleCmpGrad"
                    | "SampleCmpBias" => format!(
                        "'{name}' is not supported by Lockstep yet (SampleCmp, SampleCmpLevelZero, SampleCmpLevel and GatherCmp are)"
                    ),
                    "GatherRaw" => format!(
                        "'{name}' (SM 6.7) is not supported by Lockstep yet: Load each of the four texels"
                    ),
                    "InterlockedExchangeFloat" | "InterlockedCompareExchangeFloat" => format!(
                        "'{name}' (SM 6.6) is not supported by Lockstep yet: use InterlockedExchange with asuint, or InterlockedCompareExchangeFloatBitwise"
                    ),
                    _ => format!("no member named '{name}' in '{shown}'"),
                };
                self.error(method.span, message);
                None
            }
        }
    }

    /// The `out uint status` a load takes after its other arguments
    /// (`buf.Load(i, status)`, `tex.Load(location, offset, status)`), and
    /// those arguments.
    fn status_argument<'e>(
        &self,
        info: ResourceInfo,
        name: &str,
        args: &'e [ast::Expr],
    ) -> Option<(&'e ast::Expr, &'e [ast::Expr])> {
        let loads = match name {
            "Load" => info.kind != ResourceKind::ConstantBuffer,
            "Load2" | "Load3" | "Load4" => is_byte_address(info.kind),
            _ => false,
        };
        // Read-only textures take an offset after the location.
        let most = if info.kind.is_texture() && !info.kind.is_writable() {
            2
        } else {
            1
        };
        let (status, rest) = args.split_last()?;
        (loads && args.len() == most + 1).then_some((status, rest))
    }

    /// `load` after writing its status: every texel and element a shader
    /// reads is resident (no resource is tiled), so `status` is 1 and
    /// `CheckAccessFullyMapped` holds for it.
    fn with_status(&mut self, load: TExpr, status: &ast::Expr) -> Option<TExpr> {
        let out = self.lower_expr(status)?;
        let place = self.out_place(&out, status.span)?;
        let one = TExpr::of(self.u32_const(1, status.span));
        let one = self.coerce(one, place.ty, status.span)?;
        let ty = place.ty;
        let assign = ExprKind::Assign {
            place,
            value: Box::new(one),
            yield_old: false,
            init: false,
        };
        let assign = self.wrap(assign, ty, status.span);
        Some(TExpr::of(self.sequence(vec![assign], load.e)))
    }

    /// Checks the argument count of a method with exactly `N` arguments.
    fn method_args<'e, const N: usize>(
        &mut self,
        name: &str,
        args: &'e [ast::Expr],
        span: Span,
    ) -> Option<&'e [ast::Expr]> {
        if args.len() != N {
            self.wrong_arg_count(name, &[N], args.len(), span);
            return None;
        }
        Some(args)
    }

    pub fn wrong_arg_count(&mut self, name: &str, counts: &[usize], given: usize, span: Span) {
        let expected = match counts {
            [n] => format!("{n} argument{}", if *n == 1 { "" } else { "s" }),
            many => {
                let parts: Vec<String> = many.iter().map(usize::to_string).collect();
                format!("{} arguments", parts.join(" or "))
            }
        };
        let provided = if given == 1 {
            "1 was".to_string()
        } else {
            format!("{given} were")
        };
        self.push(
            Diagnostic::error(span, format!("no matching function for call to '{name}'"))
                .with_note(format!(
                    "candidate function not viable: requires {expected}, but {provided} provided"
                )),
        );
    }

    fn address_place(
        &mut self,
        info: ResourceInfo,
        address: &ast::Expr,
        ty: ir::TypeId,
    ) -> Option<Place> {
        let a = self.lower_value(address)?;
        let uint = self.scalar(ScalarType::UInt32);
        let address_e = self.coerce(a, uint, address.span)?;
        Some(Place {
            root: PlaceRoot::ByteAddress {
                resource: info.id,
                address: Box::new(address_e),
            },
            path: Vec::new(),
            ty,
        })
    }

    fn byte_address_value_type(
        &mut self,
        name: &str,
        template_args: &[ast::TypeExpr],
        span: Span,
    ) -> Option<ir::TypeId> {
        let width = name
            .chars()
            .last()
            .and_then(|c| c.to_digit(10))
            .unwrap_or(1) as u8;
        match template_args {
            [] if width == 1 => Some(self.scalar(ScalarType::UInt32)),
            [] => Some(self.intern(Type::Vector(ScalarType::UInt32, width))),
            [te] if width == 1 => self.resolve_value_type(te),
            _ => {
                self.error(
                    span,
                    format!("'{name}' takes at most one template argument"),
                );
                None
            }
        }
    }

    fn byte_address_load(
        &mut self,
        info: ResourceInfo,
        name: &str,
        template_args: &[ast::TypeExpr],
        args: &[ast::Expr],
        span: Span,
    ) -> Option<TExpr> {
        let [address] = self.method_args::<1>(name, args, span)? else {
            return None;
        };
        let ty = self.byte_address_value_type(name, template_args, span)?;
        let place = self.address_place(info, address, ty)?;
        Some(TExpr::new(ExprKind::Load(place), ty, span))
    }

    fn byte_address_store(
        &mut self,
        info: ResourceInfo,
        name: &str,
        template_args: &[ast::TypeExpr],
        args: &[ast::Expr],
        span: Span,
    ) -> Option<TExpr> {
        let [address, value] = self.method_args::<2>(name, args, span)? else {
            return None;
        };
        let v = self.lower_value(value)?;
        let ty = if template_args.is_empty() && name == "Store" && v.lit == Lit::None {
            v.ty()
        } else {
            self.byte_address_value_type(name, template_args, span)?
        };
        let place = self.address_place(info, address, ty)?;
        let v = self.coerce(v, ty, value.span)?;
        let kind = ExprKind::Assign {
            place,
            value: Box::new(v),
            yield_old: false,
            init: false,
        };
        let mut t = TExpr::new(kind, ty, span);
        t.void = true;
        Some(t)
    }

    /// `Interlocked*` methods of a byte-address buffer: 32-bit, or 64-bit
    /// for the `…64` names (signed for `InterlockedMin64`/`Max64` when the
    /// value is signed).
    #[allow(clippy::too_many_arguments)]
    fn byte_address_atomic(
        &mut self,
        info: ResourceInfo,
        name: &str,
        op: AtomicOp,
        counts: &[usize],
        wide: bool,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<TExpr> {
        if !counts.contains(&args.len()) {
            self.wrong_arg_count(name, counts, args.len(), span);
            return None;
        }
        if wide && !self.check_shader_model(name, (6, 6), span) {
            return None;
        }
        // Min and max take their signedness from the value, as DXC picks
        // the `int` or the `uint` overload; a literal value, from the
        // original's variable where there is one (else it is an `int`).
        let signed = matches!(op, AtomicOp::Min | AtomicOp::Max) && {
            let value = self.lower_value(&args[1])?;
            let typed = if value.lit == crate::context::Lit::None {
                Some(value.ty())
            } else {
                match args.get(2) {
                    Some(original) => Some(self.lower_expr(original)?.ty()),
                    None => Some(self.default_lit(value).ty()),
                }
            };
            typed.is_some_and(|ty| {
                matches!(
                    self.get(ty),
                    lockstep_ir::Type::Scalar(ScalarType::Int32 | ScalarType::Int64)
                )
            })
        };
        let scalar = match (wide, signed) {
            (false, false) => ScalarType::UInt32,
            (false, true) => ScalarType::Int32,
            (true, false) => ScalarType::UInt64,
            (true, true) => ScalarType::Int64,
        };
        let ty = self.scalar(scalar);
        let place = self.address_place(info, &args[0], ty)?;
        self.atomic(op, place, &args[1..], name.ends_with("FloatBitwise"), span)
    }

    /// The global `InterlockedAdd(dest, value[, original])` family.
    pub fn lower_interlocked(
        &mut self,
        name: &str,
        op: AtomicOp,
        counts: &[usize],
        args: &[ast::Expr],
        span: Span,
    ) -> Option<TExpr> {
        if !counts.contains(&args.len()) {
            self.wrong_arg_count(name, counts, args.len(), span);
            return None;
        }
        let dest = self.lower_expr(&args[0])?;
        let place = match dest.place() {
            Some(p) if dest.lit == Lit::None && self.atomic_destination_ok(p) => p.clone(),
            _ => {
                self.error(
                    args[0].span,
                    format!("the destination of '{name}' must be an lvalue in groupshared memory or a RW buffer"),
                );
                return None;
            }
        };
        self.atomic(op, place, &args[1..], name.ends_with("FloatBitwise"), span)
    }

    fn atomic_destination_ok(&self, place: &Place) -> bool {
        match &place.root {
            PlaceRoot::Groupshared(_) => true,
            PlaceRoot::BufferElement { resource, .. }
            | PlaceRoot::ByteAddress { resource, .. }
            | PlaceRoot::Texel { resource, .. } => self
                .resource_kind(*resource)
                .is_some_and(ResourceKind::is_writable),
            _ => false,
        }
    }

    /// Builds the atomic on `place`; `rest` holds the value arguments and
    /// the optional original-value output last.
    /// `floats`: the `*FloatBitwise` forms, whose values are floats
    /// compared and stored as their bits. A `float` destination takes
    /// those and `InterlockedExchange` (SM 6.6), as its bits.
    fn atomic(
        &mut self,
        op: AtomicOp,
        mut place: Place,
        rest: &[ast::Expr],
        floats: bool,
        span: Span,
    ) -> Option<TExpr> {
        let float_dest = matches!(self.get(place.ty), Type::Scalar(ScalarType::Float32));
        let ok_type = matches!(
            self.get(place.ty),
            Type::Scalar(
                ScalarType::Int32 | ScalarType::UInt32 | ScalarType::Int64 | ScalarType::UInt64
            )
        ) || (float_dest && (floats || op == AtomicOp::Exchange));
        if !ok_type {
            let shown = self.show(place.ty);
            let hint = if float_dest {
                " (floats take InterlockedExchange, InterlockedCompareStoreFloatBitwise and InterlockedCompareExchangeFloatBitwise)"
            } else {
                ""
            };
            self.error(span, format!("atomic operations require an int or uint destination, but it has type '{shown}'{hint}"));
            return None;
        }
        let wide = matches!(
            self.get(place.ty),
            Type::Scalar(ScalarType::Int64 | ScalarType::UInt64)
        );
        if wide && !self.check_shader_model("an atomic on a 64-bit value", (6, 6), span) {
            return None;
        }
        if float_dest && !self.check_shader_model("an atomic on a float", (6, 6), span) {
            return None;
        }
        let bits = floats || float_dest;
        let float = self.scalar(ScalarType::Float32);
        if float_dest {
            place.ty = self.scalar(ScalarType::UInt32);
        }
        let value_count = match op {
            AtomicOp::CompareExchange | AtomicOp::CompareStore => 2,
            _ => 1,
        };
        let mut values = Vec::new();
        for a in &rest[..value_count.min(rest.len())] {
            let v = self.lower_value(a)?;
            let value = if bits {
                let f = self.coerce(v, float, a.span)?;
                self.wrap(ExprKind::Bitcast(Box::new(f)), place.ty, a.span)
            } else {
                self.coerce(v, place.ty, a.span)?
            };
            values.push(value);
        }
        let ty = place.ty;
        let mut atomic = TExpr::new(
            ExprKind::Atomic {
                op,
                place,
                args: values,
            },
            ty,
            span,
        );
        if bits {
            let old = self.wrap(ExprKind::Bitcast(Box::new(atomic.e)), float, span);
            atomic = TExpr::of(old);
        }
        let Some(original) = rest.get(value_count) else {
            let mut t = atomic;
            t.void = true;
            return Some(t);
        };
        let out = self.lower_expr(original)?;
        let out_place = self.out_place(&out, original.span)?;
        let value = self.coerce(atomic, out_place.ty, original.span)?;
        let out_ty = out_place.ty;
        let kind = ExprKind::Assign {
            place: out_place,
            value: Box::new(value),
            yield_old: false,
            init: false,
        };
        let mut t = TExpr::new(kind, out_ty, span);
        t.void = true;
        Some(t)
    }

    /// An `out` argument: a writable place.
    pub fn out_place(&mut self, t: &TExpr, span: Span) -> Option<Place> {
        if t.place().is_none() || t.lit != Lit::None {
            self.error(
                span,
                "cannot bind a non-lvalue argument to an out parameter",
            );
            return None;
        }
        self.assignable(t, span)
    }

    fn get_dimensions(
        &mut self,
        info: ResourceInfo,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<TExpr> {
        let queries: &[ResourceQuery] = match info.kind {
            ResourceKind::StructuredBuffer
            | ResourceKind::RWStructuredBuffer
            | ResourceKind::AppendStructuredBuffer
            | ResourceKind::ConsumeStructuredBuffer => {
                &[ResourceQuery::ElementCount, ResourceQuery::Stride]
            }
            ResourceKind::Buffer | ResourceKind::RWBuffer => &[ResourceQuery::ElementCount],
            ResourceKind::ByteAddressBuffer | ResourceKind::RWByteAddressBuffer => {
                &[ResourceQuery::ByteSize]
            }
            k if k.is_texture() => return self.texture_dimensions(info, args, span),
            _ => {
                let shown = self.resource_display(info);
                self.error(
                    span,
                    format!("no member named 'GetDimensions' in '{shown}'"),
                );
                return None;
            }
        };
        if args.len() != queries.len() {
            self.wrong_arg_count("GetDimensions", &[queries.len()], args.len(), span);
            return None;
        }
        let uint = self.scalar(ScalarType::UInt32);
        let mut assigns = Vec::new();
        for (arg, &query) in args.iter().zip(queries) {
            let out = self.lower_expr(arg)?;
            let place = self.out_place(&out, arg.span)?;
            let q = TExpr::new(
                ExprKind::ResourceQuery {
                    resource: info.id,
                    query,
                },
                uint,
                arg.span,
            );
            let value = self.coerce(q, place.ty, arg.span)?;
            let ty = place.ty;
            let kind = ExprKind::Assign {
                place,
                value: Box::new(value),
                yield_old: false,
                init: false,
            };
            assigns.push(self.wrap(kind, ty, arg.span));
        }
        let mut result = assigns.pop()?;
        while let Some(first) = assigns.pop() {
            let ty = result.ty;
            result = self.wrap(
                ExprKind::Sequence(Box::new(first), Box::new(result)),
                ty,
                span,
            );
        }
        let mut t = TExpr::of(result);
        t.void = true;
        Some(t)
    }
}
