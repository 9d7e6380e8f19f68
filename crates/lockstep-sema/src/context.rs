//! The checker's state: the module being built, the global symbol tables,
//! the function being lowered, and small helpers shared by every pass.

use std::collections::{HashMap, HashSet};

use lockstep_ir::{
    self as ir, FunctionId, GroupsharedId, LocalId, ResourceId, Scalar, ScalarType, StaticId, Type,
    TypeId,
};
use lockstep_syntax::{Diagnostic, Diagnostics, Span, ast};

use crate::CompileOptions;

/// How deep expressions and statements may nest before the checker gives up.
pub(crate) const MAX_DEPTH: u32 = 4096;

/// An HLSL literal whose type is still open: it adopts the type of the
/// other operand, or defaults to `int`/`float`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lit {
    None,
    Int,
    Float,
}

/// A checked expression: the IR it lowers to plus what the IR cannot say.
#[derive(Clone, Debug)]
pub(crate) struct TExpr {
    pub e: ir::Expr,
    pub lit: Lit,
    /// The HLSL type is `void` although the IR node carries a value (stores,
    /// atomics without an original-value argument, `GetDimensions`).
    pub void: bool,
}

impl TExpr {
    pub fn new(kind: ir::ExprKind, ty: TypeId, span: Span) -> TExpr {
        TExpr {
            e: ir::Expr {
                kind,
                ty,
                span: ir_span(span),
            },
            lit: Lit::None,
            void: false,
        }
    }

    pub fn of(e: ir::Expr) -> TExpr {
        TExpr {
            e,
            lit: Lit::None,
            void: false,
        }
    }

    pub fn ty(&self) -> TypeId {
        self.e.ty
    }

    /// The place this expression reads, if it is an lvalue.
    pub fn place(&self) -> Option<&ir::Place> {
        match &self.e.kind {
            ir::ExprKind::Load(p) => Some(p),
            _ => None,
        }
    }
}

pub(crate) fn ir_span(span: Span) -> ir::Span {
    ir::Span {
        file: span.file.0,
        start: span.start,
        end: span.end,
    }
}

/// The kind of a resource as HLSL sees it (the IR kind plus whether a
/// constant buffer is a `cbuffer` block or a `ConstantBuffer<T>` object).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ResourceInfo {
    pub id: ResourceId,
    pub kind: ir::ResourceKind,
    pub element: TypeId,
}

/// An array of resources: its elements are the module's resources
/// `first.index()..` in row-major order, all of one kind and element type.
#[derive(Clone, Debug)]
pub(crate) struct ResourceArray {
    pub first: ResourceId,
    pub dims: Vec<u32>,
    pub kind: ir::ResourceKind,
    pub element: TypeId,
}

/// An element of a resource array chosen per lane: sema writes the resource
/// as `id` (a placeholder, see [`DYNAMIC_RESOURCE_BASE`]) and resolves each
/// use into a choice among the array's resources when the function ends.
#[derive(Clone, Debug)]
pub(crate) struct DynamicResource {
    pub first: ResourceId,
    pub count: u32,
    /// The flat element index, a `uint`.
    pub index: ir::Expr,
}

/// Placeholder resource ids for [`DynamicResource`]s start here: placeholder
/// `k` is `DYNAMIC_RESOURCE_BASE + k`. No module has that many resources.
pub(crate) const DYNAMIC_RESOURCE_BASE: u32 = 1 << 31;

/// A name declared at global scope.
#[derive(Clone, Debug)]
pub(crate) enum GlobalSym {
    Static {
        id: StaticId,
        ty: TypeId,
        is_const: bool,
    },
    Groupshared {
        id: GroupsharedId,
        ty: TypeId,
    },
    Resource(ResourceInfo),
    /// An array of resources (`RWBuffer<int> a[4][2]`): one resource per
    /// element, numbered row-major from `first`.
    ResourceArray(ResourceArray),
    /// A member of a `cbuffer` block or of `$Globals`.
    CBufferMember {
        resource: ResourceId,
        field: u32,
        ty: TypeId,
    },
}

/// A user function as declared (prototype and definition share one).
#[derive(Clone, Debug)]
pub(crate) struct FnSym<'a> {
    pub name: String,
    pub params: Vec<ParamSig<'a>>,
    pub result: TypeId,
    /// Assigned when the function is defined or first called, so that the
    /// module holds no placeholder for functions that are only declared.
    pub id: Option<FunctionId>,
    pub defined: bool,
    /// The definition if there is one, else the first declaration.
    pub decl: &'a ast::FunctionDecl,
}

#[derive(Clone, Debug)]
pub(crate) struct ParamSig<'a> {
    pub ty: TypeId,
    pub dir: ir::ParamDirection,
    pub default: Option<&'a ast::Expr>,
}

/// What `break` leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Breakable {
    Loop,
    Switch,
}

/// The function whose body is being lowered.
#[derive(Debug)]
pub(crate) struct FnCtx {
    pub name: String,
    pub id: FunctionId,
    pub result: TypeId,
    pub locals: Vec<ir::Variable>,
    pub const_locals: HashSet<LocalId>,
    pub scopes: Vec<HashMap<String, LocalId>>,
    /// Local resource variables, scope by scope (with `scopes`): names for
    /// the global resource they were initialized from, resolved at compile
    /// time as DXC resolves them.
    pub resource_scopes: Vec<HashMap<String, ResourceInfo>>,
    /// `static` locals, scope by scope (with `scopes`): thread-private
    /// globals under the function's name, initialized once.
    pub static_scopes: Vec<HashMap<String, (ir::StaticId, TypeId)>>,
    pub breakables: Vec<Breakable>,
}

pub(crate) struct Sema<'a> {
    pub opts: &'a CompileOptions,
    pub diags: &'a mut Diagnostics,
    pub module: ir::Module,
    pub globals: HashMap<String, GlobalSym>,
    /// Structs and typedefs by name.
    pub named_types: HashMap<String, TypeId>,
    /// The semantic written on each member of a struct type (`uint3 id :
    /// SV_GroupThreadID;`), in member order.
    pub member_semantics: HashMap<TypeId, Vec<Option<lockstep_syntax::ast::Ident>>>,
    /// The modifiers written before each member of a struct type
    /// (`nointerpolation`, …), in member order.
    pub member_modifiers: HashMap<TypeId, Vec<Vec<String>>>,
    /// Names already reported as undeclared, or whose declaration failed:
    /// later uses are not reported again.
    pub quiet_names: std::collections::HashSet<String>,
    /// Functions already warned of a missing return, by definition.
    pub missing_returns: std::collections::HashSet<Span>,
    pub functions: HashMap<String, Vec<usize>>,
    pub fn_syms: Vec<FnSym<'a>>,
    /// Folded values of `static const` globals.
    pub const_values: HashMap<StaticId, (TypeId, Vec<Scalar>)>,
    pub resource_bindings: Vec<Option<ast::RegisterBinding>>,
    /// Resource arrays as (first resource, element count): their elements
    /// take consecutive registers.
    pub resource_arrays: Vec<(usize, u32)>,
    /// Elements of resource arrays chosen per lane, by placeholder.
    pub dynamic_resources: Vec<DynamicResource>,
    /// Function templates by name (member functions of struct templates
    /// as `S.f`).
    pub templates: HashMap<String, Vec<&'a ast::FunctionDecl>>,
    /// The explicit specializations of each function template: the
    /// arguments each is for, and the name it is declared under.
    pub explicit_specializations: HashMap<String, Vec<(&'a [ast::TemplateArg], String)>>,
    /// Struct templates by name.
    pub struct_templates: HashMap<String, &'a ast::StructDecl>,
    /// What the parameters of the template instance being compiled stand
    /// for; the innermost instance last.
    pub template_scopes: Vec<HashMap<String, crate::templates::TemplateValue>>,
    /// Compiled function template instances, by definition and arguments.
    pub function_instances: HashMap<(Span, Vec<crate::templates::TemplateValue>), usize>,
    /// Struct template instances: the template's name and arguments.
    pub struct_instances: HashMap<TypeId, (String, Vec<crate::templates::TemplateValue>)>,
    /// The resources among each struct type's members, its bases' and
    /// nested structs' included, flattened in member order: their path
    /// from the struct (`inner.Buf`), kind and element type. The struct
    /// type itself holds the other members only.
    pub struct_resources: HashMap<TypeId, Vec<(String, ir::ResourceKind, TypeId)>>,
    /// The resources of global struct variables, by their path
    /// (`a.Buf`, `arr[1].inner.Buf`).
    pub resource_paths: HashMap<String, ResourceInfo>,
    /// Struct template instances by template name and arguments.
    pub struct_instance_types: HashMap<(String, Vec<crate::templates::TemplateValue>), TypeId>,
    /// The implicit `$Globals` constant buffer, created by the first plain
    /// global, and its members.
    pub globals_cb: Option<ResourceId>,
    pub globals_members: Vec<ir::Member>,
    /// Calls made by each function, for the recursion check.
    pub call_graph: HashMap<FunctionId, Vec<(FunctionId, Span)>>,
    /// Functions with resource parameters, by name: compiled once for each
    /// set of global resources they are called with.
    pub resource_functions: HashMap<String, Vec<&'a ast::FunctionDecl>>,
    /// The hidden counter of each structured buffer that uses one.
    pub counters: HashMap<ir::ResourceId, ir::ResourceId>,
    /// The compiled copies of those functions, by definition and resources.
    pub specializations: HashMap<(Span, Vec<u32>, String), usize>,
    /// Functions that were called, with the first call site.
    pub called: HashMap<FunctionId, Span>,
    pub fcx: Option<FnCtx>,
    pub depth: u32,
    pub depth_reported: bool,
    /// The entry point's `[numWaves(n)]`, read before anything else so that
    /// `GetGroupWaveCount()` folds to `n` everywhere (array sizes included).
    pub num_waves: Option<u32>,
    /// A pixel shader's helper flag (`IsHelperLane()`, set by `discard`).
    pub helper: Option<StaticId>,
    /// A pixel shader's flag of lanes that called `discard`.
    pub discarded: Option<StaticId>,
    /// `discard` statements outside pixel shaders, reported when the entry
    /// point reaches them.
    pub discards: Vec<(FunctionId, Span)>,
    /// The source file of the library of HLSL intrinsics (the prelude).
    pub library_file: Option<u32>,
}

impl<'a> Sema<'a> {
    pub fn new(opts: &'a CompileOptions, diags: &'a mut Diagnostics) -> Sema<'a> {
        Sema {
            opts,
            diags,
            module: ir::Module::default(),
            globals: HashMap::new(),
            named_types: HashMap::new(),
            member_semantics: HashMap::new(),
            member_modifiers: HashMap::new(),
            quiet_names: std::collections::HashSet::new(),
            missing_returns: std::collections::HashSet::new(),
            functions: HashMap::new(),
            fn_syms: Vec::new(),
            const_values: HashMap::new(),
            resource_bindings: Vec::new(),
            resource_arrays: Vec::new(),
            dynamic_resources: Vec::new(),
            templates: HashMap::new(),
            explicit_specializations: HashMap::new(),
            struct_templates: HashMap::new(),
            template_scopes: Vec::new(),
            function_instances: HashMap::new(),
            struct_instances: HashMap::new(),
            struct_resources: HashMap::new(),
            resource_paths: HashMap::new(),
            struct_instance_types: HashMap::new(),
            globals_cb: None,
            globals_members: Vec::new(),
            call_graph: HashMap::new(),
            resource_functions: HashMap::new(),
            specializations: HashMap::new(),
            counters: HashMap::new(),
            called: HashMap::new(),
            fcx: None,
            depth: 0,
            depth_reported: false,
            num_waves: None,
            helper: None,
            discarded: None,
            discards: Vec::new(),
            library_file: None,
        }
    }

    /// Records that the module uses a feature of shader model `sm`.
    pub fn require_shader_model(&mut self, sm: (u32, u32)) {
        let current = &mut self.module.required_shader_model;
        *current = (*current).max(sm);
    }

    pub fn lower_item(&mut self, item: &'a ast::Item) {
        match item {
            ast::Item::Function(f) => self.lower_function(f),
            ast::Item::Struct(s) => self.declare_struct(s),
            ast::Item::Typedef(t) => self.declare_typedef(t),
            ast::Item::Variable(v) => self.declare_global(v),
            ast::Item::CBuffer(c) => self.declare_cbuffer(c),
        }
    }

    /// Assigns bindings, checks the entry point and the call graph, and
    /// hands back the module.
    pub fn finish(mut self) -> ir::Module {
        self.require_shader_model((6, 0));
        self.finish_globals_cbuffer();
        self.assign_bindings();
        self.check_undefined_functions();
        self.check_recursion();
        self.check_groupshared_size();
        self.lower_entry_point();
        self.module
    }

    // ----- diagnostics -----

    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, message));
    }

    pub fn warning(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::warning(span, message));
    }

    pub fn push(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// Errors reported so far.
    pub(crate) fn error_count(&self) -> usize {
        self.diags.items.iter().filter(|d| d.is_error()).count()
    }

    /// Reports a use of an undeclared name, once per name.
    pub fn undeclared(&mut self, id: &lockstep_syntax::ast::Ident) {
        if self.quiet_names.insert(id.name.clone()) {
            self.error(
                id.span,
                format!("use of undeclared identifier '{}'", id.name),
            );
        }
    }

    /// Enters one level of nesting; `false` (after one diagnostic) when the
    /// limit is reached.
    pub fn enter(&mut self, span: Span) -> bool {
        if self.depth >= MAX_DEPTH {
            if !self.depth_reported {
                self.depth_reported = true;
                self.error(span, "code is nested too deeply");
            }
            return false;
        }
        self.depth += 1;
        true
    }

    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    // ----- types -----

    pub fn intern(&mut self, ty: Type) -> TypeId {
        self.module.types.intern(ty)
    }

    pub fn scalar(&mut self, s: ScalarType) -> TypeId {
        self.module.types.scalar(s)
    }

    pub fn void(&mut self) -> TypeId {
        self.module.types.void()
    }

    pub fn get(&self, id: TypeId) -> &Type {
        self.module.types.get(id)
    }

    pub fn show(&self, id: TypeId) -> String {
        self.module.types.display(id)
    }

    /// The type of a checked expression as a message shows it (a literal
    /// as `int` or `float`).
    pub fn show_t(&self, t: &TExpr) -> String {
        match t.lit {
            Lit::Int => "int".to_string(),
            Lit::Float => "float".to_string(),
            Lit::None => self.show(t.ty()),
        }
    }

    pub fn is_void(&self, id: TypeId) -> bool {
        matches!(self.get(id), Type::Void)
    }

    // ----- scopes -----

    pub fn lookup_local(&self, name: &str) -> Option<LocalId> {
        let fcx = self.fcx.as_ref()?;
        fcx.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    /// A `static` local in scope.
    pub fn lookup_static_local(&self, name: &str) -> Option<(ir::StaticId, TypeId)> {
        let fcx = self.fcx.as_ref()?;
        fcx.static_scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name).copied())
    }

    pub fn push_scope(&mut self) {
        if let Some(f) = self.fcx.as_mut() {
            f.scopes.push(HashMap::new());
            f.resource_scopes.push(HashMap::new());
            f.static_scopes.push(HashMap::new());
        }
    }

    pub fn pop_scope(&mut self) {
        if let Some(f) = self.fcx.as_mut() {
            f.scopes.pop();
            f.resource_scopes.pop();
            f.static_scopes.pop();
        }
    }

    /// The global resource a local resource variable names.
    pub fn lookup_resource_alias(&self, name: &str) -> Option<ResourceInfo> {
        let fcx = self.fcx.as_ref()?;
        fcx.resource_scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name).copied())
    }

    /// Declares a local in the innermost scope; `None` outside a function.
    pub fn declare_local(
        &mut self,
        name: &ast::Ident,
        ty: TypeId,
        is_const: bool,
    ) -> Option<LocalId> {
        let Some(fcx) = self.fcx.as_mut() else {
            self.error(name.span, "local variable outside of a function");
            return None;
        };
        let id = LocalId(fcx.locals.len() as u32);
        let redefined = fcx
            .scopes
            .last()
            .is_some_and(|s| s.contains_key(&name.name));
        fcx.locals.push(ir::Variable {
            name: name.name.clone(),
            ty,
            span: ir_span(name.span),
        });
        if is_const {
            fcx.const_locals.insert(id);
        }
        if let Some(scope) = fcx.scopes.last_mut() {
            scope.insert(name.name.clone(), id);
        }
        if redefined {
            self.error(name.span, format!("redefinition of '{}'", name.name));
        }
        Some(id)
    }

    pub fn u32_const(&mut self, value: u32, span: Span) -> ir::Expr {
        let ty = self.scalar(ScalarType::UInt32);
        ir::Expr {
            kind: ir::ExprKind::Const(vec![Scalar {
                ty: ScalarType::UInt32,
                bits: u64::from(value),
            }]),
            ty,
            span: ir_span(span),
        }
    }

    /// Attempts to fold an IR expression to constants.
    pub fn fold(&self, e: &ir::Expr) -> Option<Vec<Scalar>> {
        crate::fold::fold(&self.module.types, &self.const_values, e)
    }

    /// Folds `e` into a `Const` node when possible.
    pub fn fold_expr(&self, e: ir::Expr) -> ir::Expr {
        match self.fold(&e) {
            Some(values) => ir::Expr {
                kind: ir::ExprKind::Const(values),
                ty: e.ty,
                span: e.span,
            },
            None => e,
        }
    }
}
