//! A readable text form of a [`Module`](crate::Module), for tests and
//! `--dump-ir`.
//!
//! The form is close to HLSL: locals print as `%name`, `static` and
//! `groupshared` variables as `@name`, resources by name. Every operator is
//! parenthesized, conversions are casts (`(float)%i`), constants carry a
//! suffix (`1`, `1u`, `1.5f`, `2l`, `true`), and built-in, wave and user
//! calls show their result type (`WaveActiveSum<uint3>(%v)`).

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use crate::types::{ScalarType, Type, TypeId};
use crate::{
    Access, AtomicOp, BinaryOp, Block, Builtin, CallArg, EntryPoint, Expr, ExprKind, Function,
    Module, ParamDirection, Place, PlaceRoot, ResourceKind, ResourceQuery, Scalar, Stmt,
    SwitchCase, UnaryOp, WaveOp,
};

/// The whole module as text.
pub fn print_module(module: &Module) -> String {
    let mut p = Printer::new(module);
    p.module();
    p.out
}

/// One expression as text; locals print by index (`%3`) since no function
/// is known.
pub fn print_expr(module: &Module, expr: &Expr) -> String {
    let mut p = Printer::new(module);
    p.expr(expr);
    p.out
}

struct Printer<'a> {
    m: &'a Module,
    out: String,
    indent: usize,
    /// Names of the current function's locals, made unique.
    locals: Vec<String>,
    local_types: Vec<TypeId>,
    overloaded: HashSet<&'a str>,
}

impl<'a> Printer<'a> {
    fn new(m: &'a Module) -> Printer<'a> {
        let mut seen = HashSet::new();
        let mut overloaded = HashSet::new();
        for f in &m.functions {
            if !seen.insert(f.name.as_str()) {
                overloaded.insert(f.name.as_str());
            }
        }
        Printer {
            m,
            out: String::new(),
            indent: 0,
            locals: Vec::new(),
            local_types: Vec::new(),
            overloaded,
        }
    }

    /// A type's HLSL spelling, with `row_major` where it changes the layout.
    fn ty(&self, id: TypeId) -> String {
        match self.m.types.get(id) {
            Type::Matrix {
                row_major: true, ..
            } => format!("row_major {}", self.m.types.display(id)),
            Type::Array { element, len } => format!("{}[{len}]", self.ty(*element)),
            _ => self.m.types.display(id),
        }
    }

    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn start_line(&mut self) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
    }

    fn module(&mut self) {
        self.structs();
        for r in &self.m.resources {
            let binding = if r.explicit_binding {
                ""
            } else {
                " (implicit)"
            };
            let line = format!(
                "resource {}: {}, register({}{}, space{}){binding}",
                r.name,
                self.resource_type(r.kind, r.element),
                r.kind.register_class(),
                r.register,
                r.space
            );
            self.line(&line);
        }
        for v in &self.m.groupshared {
            let line = format!("groupshared @{}: {}", v.name, self.ty(v.ty));
            self.line(&line);
        }
        for v in &self.m.statics {
            let line = format!("static @{}: {}", v.name, self.ty(v.ty));
            self.line(&line);
        }
        if !self.m.static_init.stmts.is_empty() {
            self.line("static_init {");
            self.block_body(&self.m.static_init);
            self.line("}");
        }
        for (i, f) in self.m.functions.iter().enumerate() {
            self.function(i, f);
        }
        if let Some(e) = &self.m.entry {
            self.entry(e);
        }
    }

    fn resource_type(&self, kind: ResourceKind, element: TypeId) -> String {
        match kind {
            ResourceKind::ByteAddressBuffer | ResourceKind::RWByteAddressBuffer => {
                format!("{kind:?}")
            }
            _ => format!("{kind:?}<{}>", self.ty(element)),
        }
    }

    /// Struct definitions reachable from the module's variables, in order of
    /// first appearance.
    fn structs(&mut self) {
        let mut order = Vec::new();
        let mut seen = HashSet::new();
        let roots = self
            .m
            .resources
            .iter()
            .map(|r| r.element)
            .chain(self.m.groupshared.iter().map(|v| v.ty))
            .chain(self.m.statics.iter().map(|v| v.ty))
            .chain(
                self.m
                    .functions
                    .iter()
                    .flat_map(|f| f.locals.iter().map(|v| v.ty)),
            )
            .chain(self.m.functions.iter().filter_map(|f| f.result));
        for ty in roots {
            collect_structs(&self.m.types, ty, &mut seen, &mut order, 0);
        }
        for ty in order {
            if let Type::Struct { name, members } = self.m.types.get(ty) {
                let fields: Vec<String> = members
                    .iter()
                    .map(|m| format!("{} {};", self.ty(m.ty), m.name))
                    .collect();
                let line = format!("struct {name} {{ {} }}", fields.join(" "));
                self.line(&line);
            }
        }
    }

    fn function(&mut self, index: usize, f: &Function) {
        self.locals = unique_names(f);
        self.local_types = f.locals.iter().map(|l| l.ty).collect();
        let params: Vec<String> = f
            .params
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let dir = match d {
                    ParamDirection::In => "in",
                    ParamDirection::Out => "out",
                    ParamDirection::InOut => "inout",
                };
                let ty = f
                    .locals
                    .get(i)
                    .map_or_else(|| "?".to_string(), |l| self.ty(l.ty));
                format!("{dir} %{}: {ty}", self.local_name(i))
            })
            .collect();
        let result = f.result.map_or_else(|| "void".to_string(), |t| self.ty(t));
        let name = if self.overloaded.contains(f.name.as_str()) {
            format!("{}#{index}", f.name)
        } else {
            f.name.clone()
        };
        let line = format!("fn {name}({}) -> {result} {{", params.join(", "));
        self.line(&line);
        self.indent += 1;
        for i in f.params.len()..f.locals.len() {
            let line = format!("local %{}: {}", self.local_name(i), self.ty(f.locals[i].ty));
            self.line(&line);
        }
        self.indent -= 1;
        self.block_body(&f.body);
        self.line("}");
        self.locals.clear();
        self.local_types.clear();
    }

    fn entry(&mut self, e: &EntryPoint) {
        let function = self
            .m
            .functions
            .get(e.function.index())
            .map_or("?", |f| f.name.as_str());
        let inputs: Vec<String> = e
            .inputs
            .iter()
            .map(|i| match (i.component, i.components) {
                (0, _) if e.inputs.iter().filter(|o| o.param == i.param).count() == 1 => {
                    format!("{:?}", i.value)
                }
                (first, n) => format!("{:?} p{}[{first}..{}]", i.value, i.param, first + n),
            })
            .collect();
        let shape = match e.group {
            crate::GroupShape::Threads([x, y, z]) => format!("numthreads({x}, {y}, {z})"),
            crate::GroupShape::Waves(n) => format!("numWaves({n})"),
        };
        let wave_size = match e.wave_size {
            Some(r) => match r.preferred {
                Some(p) => format!(", WaveSize({}, {}, {p})", r.min, r.max),
                None if r.min == r.max => format!(", WaveSize({})", r.min),
                None => format!(", WaveSize({}, {})", r.min, r.max),
            },
            None => String::new(),
        };
        let line = format!(
            "entry {}: fn {function}, {shape}{wave_size}, inputs({})",
            e.name,
            inputs.join(", ")
        );
        self.line(&line);
    }

    fn local_name(&self, i: usize) -> String {
        self.locals.get(i).cloned().unwrap_or_else(|| i.to_string())
    }

    fn block_body(&mut self, b: &Block) {
        self.indent += 1;
        for s in &b.stmts {
            self.stmt(s);
        }
        self.indent -= 1;
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Expr(e) => {
                self.start_line();
                self.top_expr(e);
                self.out.push_str(";\n");
            }
            Stmt::If {
                cond,
                accept,
                reject,
            } => self.if_stmt(cond, accept, reject),
            Stmt::Loop {
                body, continuing, ..
            } => {
                self.line("loop {");
                self.block_body(body);
                if continuing.stmts.is_empty() {
                    self.line("}");
                } else {
                    self.line("} continuing {");
                    self.block_body(continuing);
                    self.line("}");
                }
            }
            Stmt::Switch { selector, cases } => self.switch_stmt(selector, cases),
            Stmt::Break => self.line("break;"),
            Stmt::Continue => self.line("continue;"),
            Stmt::Return(None) => self.line("return;"),
            Stmt::Return(Some(e)) => {
                self.start_line();
                self.out.push_str("return ");
                self.expr(e);
                self.out.push_str(";\n");
            }
            Stmt::Barrier(flags) => {
                let mut parts = Vec::new();
                if flags.group_memory {
                    parts.push("group_memory");
                }
                if flags.device_memory {
                    parts.push("device_memory");
                }
                if flags.group_sync {
                    parts.push("group_sync");
                }
                let line = format!("barrier({});", parts.join(", "));
                self.line(&line);
            }
        }
    }

    fn if_stmt(&mut self, cond: &Expr, accept: &Block, reject: &Block) {
        self.start_line();
        self.out.push_str("if ");
        self.expr(cond);
        self.out.push_str(" {\n");
        self.block_body(accept);
        if reject.stmts.is_empty() {
            self.line("}");
        } else {
            self.line("} else {");
            self.block_body(reject);
            self.line("}");
        }
    }

    fn switch_stmt(&mut self, selector: &Expr, cases: &[SwitchCase]) {
        self.start_line();
        self.out.push_str("switch ");
        self.expr(selector);
        self.out.push_str(" {\n");
        self.indent += 1;
        let signed = self
            .m
            .types
            .scalar_of(selector.ty)
            .is_some_and(ScalarType::is_signed);
        for c in cases {
            let mut labels: Vec<String> = c
                .values
                .iter()
                .map(|&v| {
                    if signed {
                        (v as i64).to_string()
                    } else {
                        v.to_string()
                    }
                })
                .map(|v| format!("case {v}"))
                .collect();
            if c.is_default {
                labels.push("default".to_string());
            }
            let line = format!("{}: {{", labels.join(", "));
            self.line(&line);
            self.block_body(&c.body);
            self.line("}");
        }
        self.indent -= 1;
        self.line("}");
    }

    /// An expression at statement level: an assignment without parentheses.
    fn top_expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Assign {
                place,
                value,
                yield_old: false,
                ..
            } => {
                self.place(place);
                self.out.push_str(" = ");
                self.expr(value);
            }
            _ => self.expr(e),
        }
    }

    fn list(&mut self, items: &[Expr]) {
        for (i, a) in items.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.expr(a);
        }
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Const(values) => self.constant(e.ty, values),
            ExprKind::Load(place) => self.place(place),
            ExprKind::Construct(args) => {
                let _ = write!(self.out, "{}(", self.ty(e.ty));
                self.list(args);
                self.out.push(')');
            }
            ExprKind::Splat(x) => {
                let _ = write!(self.out, "splat<{}>(", self.ty(e.ty));
                self.expr(x);
                self.out.push(')');
            }
            ExprKind::Swizzle(x, comps) => {
                self.expr(x);
                let text = self.components(x.ty, comps);
                self.out.push_str(&text);
            }
            ExprKind::Field(x, i) => {
                self.expr(x);
                let name = self.member_name(x.ty, *i);
                let _ = write!(self.out, ".{name}");
            }
            ExprKind::Index(x, i) => {
                self.expr(x);
                self.out.push('[');
                self.expr(i);
                self.out.push(']');
            }
            ExprKind::Unary(op, x) => {
                self.out.push_str(match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Not => "!",
                    UnaryOp::BitNot => "~",
                });
                self.expr(x);
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b),
            ExprKind::LogicalAnd(a, b) => self.infix(a, "&&", b),
            ExprKind::LogicalOr(a, b) => self.infix(a, "||", b),
            ExprKind::Conditional {
                cond,
                accept,
                reject,
            } => {
                self.out.push('(');
                self.expr(cond);
                self.out.push_str(" ? ");
                self.expr(accept);
                self.out.push_str(" : ");
                self.expr(reject);
                self.out.push(')');
            }
            ExprKind::Select {
                cond,
                accept,
                reject,
            } => {
                let _ = write!(self.out, "select<{}>(", self.ty(e.ty));
                self.list(&[(**cond).clone(), (**accept).clone(), (**reject).clone()]);
                self.out.push(')');
            }
            ExprKind::Convert(x) => {
                let _ = write!(self.out, "({})", self.ty(e.ty));
                self.expr(x);
            }
            ExprKind::Bitcast(x) => {
                let _ = write!(self.out, "bitcast<{}>(", self.ty(e.ty));
                self.expr(x);
                self.out.push(')');
            }
            ExprKind::Builtin(b, args) => {
                let _ = write!(self.out, "{}<{}>(", builtin_name(*b), self.ty(e.ty));
                self.list(args);
                self.out.push(')');
            }
            ExprKind::Wave(w, args) => {
                let _ = write!(self.out, "{}<{}>(", wave_name(*w), self.ty(e.ty));
                self.list(args);
                self.out.push(')');
            }
            ExprKind::Call { function, args } => self.call(*function, args, e.ty),
            ExprKind::Assign {
                place,
                value,
                yield_old,
                ..
            } => {
                self.out.push('(');
                self.place(place);
                self.out.push_str(" = ");
                self.expr(value);
                if *yield_old {
                    self.out.push_str(", yield old");
                }
                self.out.push(')');
            }
            ExprKind::Atomic { op, place, args } => {
                let _ = write!(self.out, "atomic_{}(", atomic_name(*op));
                self.place(place);
                for a in args {
                    self.out.push_str(", ");
                    self.expr(a);
                }
                self.out.push(')');
            }
            ExprKind::ResourceQuery { resource, query } => {
                let name = self
                    .m
                    .resources
                    .get(resource.index())
                    .map_or("?", |r| r.name.as_str());
                let q = match query {
                    ResourceQuery::ElementCount => "element_count",
                    ResourceQuery::Stride => "stride",
                    ResourceQuery::ByteSize => "byte_size",
                    ResourceQuery::Width => "width",
                    ResourceQuery::Height => "height",
                    ResourceQuery::Depth => "depth",
                    ResourceQuery::Elements => "elements",
                    ResourceQuery::Levels => "levels",
                };
                let _ = write!(self.out, "{name}.{q}()");
            }
            ExprKind::Sequence(a, b) => {
                self.out.push('(');
                self.expr(a);
                self.out.push_str(", ");
                self.expr(b);
                self.out.push(')');
            }
        }
    }

    fn infix(&mut self, a: &Expr, op: &str, b: &Expr) {
        self.out.push('(');
        self.expr(a);
        let _ = write!(self.out, " {op} ");
        self.expr(b);
        self.out.push(')');
    }

    fn binary(&mut self, op: BinaryOp, a: &Expr, b: &Expr) {
        let symbol = match op {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::And | BinaryOp::Or => {
                let name = if op == BinaryOp::And { "and" } else { "or" };
                let _ = write!(self.out, "{name}(");
                self.expr(a);
                self.out.push_str(", ");
                self.expr(b);
                self.out.push(')');
                return;
            }
        };
        self.infix(a, symbol, b);
    }

    fn call(&mut self, function: crate::FunctionId, args: &[CallArg], ty: TypeId) {
        let name = self
            .m
            .functions
            .get(function.index())
            .map_or("?", |f| f.name.as_str());
        if self.overloaded.contains(name) {
            let _ = write!(self.out, "{name}#{}<{}>(", function.0, self.ty(ty));
        } else {
            let _ = write!(self.out, "{name}<{}>(", self.ty(ty));
        }
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            match a {
                CallArg::In(e) => self.expr(e),
                CallArg::Out(p) => {
                    self.out.push_str("out ");
                    self.place(p);
                }
                CallArg::InOut(p) => {
                    self.out.push_str("inout ");
                    self.place(p);
                }
            }
        }
        self.out.push(')');
    }

    fn constant(&mut self, ty: TypeId, values: &[Scalar]) {
        if let ([v], Type::Scalar(_)) = (values, self.m.types.get(ty)) {
            self.out.push_str(&scalar_text(*v));
            return;
        }
        let parts: Vec<String> = values.iter().map(|v| scalar_text(*v)).collect();
        let _ = write!(self.out, "{}({})", self.ty(ty), parts.join(", "));
    }

    fn place(&mut self, p: &Place) {
        let ty = match &p.root {
            PlaceRoot::Local(id) => {
                let _ = write!(self.out, "%{}", self.local_name(id.index()));
                self.local_types.get(id.index()).copied()
            }
            PlaceRoot::Static(id) => {
                let v = self.m.statics.get(id.index());
                let _ = write!(self.out, "@{}", v.map_or("?", |v| v.name.as_str()));
                v.map(|v| v.ty)
            }
            PlaceRoot::Groupshared(id) => {
                let v = self.m.groupshared.get(id.index());
                let _ = write!(self.out, "@{}", v.map_or("?", |v| v.name.as_str()));
                v.map(|v| v.ty)
            }
            PlaceRoot::BufferElement { resource, index } => {
                let r = self.m.resources.get(resource.index());
                let _ = write!(self.out, "{}[", r.map_or("?", |r| r.name.as_str()));
                self.expr(index);
                self.out.push(']');
                r.map(|r| r.element)
            }
            PlaceRoot::ByteAddress { resource, address } => {
                let r = self.m.resources.get(resource.index());
                let shown = if p.path.is_empty() {
                    self.ty(p.ty)
                } else {
                    "?".to_string()
                };
                let _ = write!(
                    self.out,
                    "{}.bytes<{shown}>[",
                    r.map_or("?", |r| r.name.as_str())
                );
                self.expr(address);
                self.out.push(']');
                None
            }
            PlaceRoot::ConstantBuffer { resource } => {
                let r = self.m.resources.get(resource.index());
                let _ = write!(self.out, "{}", r.map_or("?", |r| r.name.as_str()));
                r.map(|r| r.element)
            }
            PlaceRoot::Texel {
                resource,
                coord,
                level,
            } => {
                let r = self.m.resources.get(resource.index());
                let _ = write!(self.out, "{}", r.map_or("?", |r| r.name.as_str()));
                if let Some(level) = level {
                    self.out.push_str(".mips[");
                    self.expr(level);
                    self.out.push(']');
                }
                self.out.push('[');
                self.expr(coord);
                self.out.push(']');
                r.map(|r| r.element)
            }
        };
        self.path(&p.path, ty);
    }

    /// Prints a place's accesses; `ty` is the root's type when known (for
    /// member names and swizzle letters).
    fn path(&mut self, path: &[Access], mut ty: Option<TypeId>) {
        for a in path {
            match a {
                Access::Field(i) => {
                    let name = ty.map_or_else(|| format!("field{i}"), |t| self.member_name(t, *i));
                    let _ = write!(self.out, ".{name}");
                    ty = ty.and_then(|t| match self.m.types.get(t) {
                        Type::Struct { members, .. } => members.get(*i as usize).map(|m| m.ty),
                        _ => None,
                    });
                }
                Access::Index(e) => {
                    self.out.push('[');
                    self.expr(e);
                    self.out.push(']');
                    ty = ty.and_then(|t| match self.m.types.get(t) {
                        Type::Array { element, .. } => Some(*element),
                        _ => None,
                    });
                }
                Access::Components(c) => {
                    let text = match ty {
                        Some(t) => self.components(t, c),
                        None if c.iter().all(|&x| x < 4) => self.components_letters(c),
                        None => generic_components(c),
                    };
                    self.out.push_str(&text);
                    ty = None;
                }
            }
        }
    }

    fn member_name(&self, ty: TypeId, i: u32) -> String {
        match self.m.types.get(ty) {
            Type::Struct { members, .. } => members
                .get(i as usize)
                .map_or_else(|| format!("field{i}"), |m| m.name.clone()),
            _ => format!("field{i}"),
        }
    }

    fn components(&self, base: TypeId, comps: &[u8]) -> String {
        match self.m.types.get(base) {
            Type::Vector(..) | Type::Scalar(_) => self.components_letters(comps),
            Type::Matrix { cols, .. } => {
                let cols = (*cols).max(1);
                let parts: String = comps
                    .iter()
                    .map(|&c| format!("_m{}{}", c / cols, c % cols))
                    .collect();
                format!(".{parts}")
            }
            _ => generic_components(comps),
        }
    }
}

impl Printer<'_> {
    fn components_letters(&self, comps: &[u8]) -> String {
        let letters: String = comps
            .iter()
            .map(|&c| b"xyzw".get(usize::from(c)).map_or('?', |&b| b as char))
            .collect();
        format!(".{letters}")
    }
}

fn generic_components(comps: &[u8]) -> String {
    let parts: Vec<String> = comps.iter().map(u8::to_string).collect();
    format!(".<{}>", parts.join(","))
}

fn collect_structs(
    types: &crate::TypeArena,
    ty: TypeId,
    seen: &mut HashSet<TypeId>,
    order: &mut Vec<TypeId>,
    depth: u32,
) {
    if depth > 64 {
        return;
    }
    match types.get(ty) {
        Type::Array { element, .. } => collect_structs(types, *element, seen, order, depth + 1),
        Type::Struct { members, .. } => {
            for m in members {
                collect_structs(types, m.ty, seen, order, depth + 1);
            }
            if seen.insert(ty) {
                order.push(ty);
            }
        }
        _ => {}
    }
}

/// Local names made unique within a function: a name used twice gets its
/// index (`%x.3`).
fn unique_names(f: &Function) -> Vec<String> {
    let mut counts: HashMap<&str, u32> = HashMap::new();
    for l in &f.locals {
        *counts.entry(l.name.as_str()).or_default() += 1;
    }
    f.locals
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if l.name.is_empty() {
                i.to_string()
            } else if counts[l.name.as_str()] > 1 {
                format!("{}.{i}", l.name)
            } else {
                l.name.clone()
            }
        })
        .collect()
}

/// A constant with a suffix naming its type.
pub fn scalar_text(s: Scalar) -> String {
    match s.ty {
        ScalarType::Bool => (s.bits != 0).to_string(),
        ScalarType::Int16 => format!("{}s", s.bits as u16 as i16),
        ScalarType::UInt16 => format!("{}us", s.bits as u16),
        ScalarType::Int32 => format!("{}", s.bits as u32 as i32),
        ScalarType::UInt32 => format!("{}u", s.bits as u32),
        ScalarType::Int64 => format!("{}l", s.bits as i64),
        ScalarType::UInt64 => format!("{}ul", s.bits),
        ScalarType::Float16 => {
            format!("{}h", float_text(f64::from(f16_bits_to_f32(s.bits as u16))))
        }
        ScalarType::Float32 => format!("{}f", float_text(f64::from(f32::from_bits(s.bits as u32)))),
        ScalarType::Float64 => format!("{}L", float_text(f64::from_bits(s.bits))),
    }
}

fn float_text(f: f64) -> String {
    if f.is_finite() && f == f.trunc() && f.abs() < 1e15 {
        format!("{f:.1}")
    } else {
        format!("{f:?}")
    }
}

fn f16_bits_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f32::from(h & 0x3ff);
    match exp {
        0 => sign * frac * (2f32).powi(-24),
        0x1f if frac == 0.0 => sign * f32::INFINITY,
        0x1f => f32::NAN,
        _ => sign * (1.0 + frac / 1024.0) * (2f32).powi(exp - 15),
    }
}

/// The HLSL name of a built-in.
pub fn builtin_name(b: Builtin) -> &'static str {
    match b {
        Builtin::Abs => "abs",
        Builtin::Min => "min",
        Builtin::Max => "max",
        Builtin::Clamp => "clamp",
        Builtin::Saturate => "saturate",
        Builtin::Sign => "sign",
        Builtin::Floor => "floor",
        Builtin::Ceil => "ceil",
        Builtin::Round => "round",
        Builtin::Trunc => "trunc",
        Builtin::Frac => "frac",
        Builtin::Fmod => "fmod",
        Builtin::Sqrt => "sqrt",
        Builtin::Rsqrt => "rsqrt",
        Builtin::Rcp => "rcp",
        Builtin::Exp => "exp",
        Builtin::Exp2 => "exp2",
        Builtin::Log => "log",
        Builtin::Log2 => "log2",
        Builtin::Log10 => "log10",
        Builtin::Pow => "pow",
        Builtin::Sin => "sin",
        Builtin::Cos => "cos",
        Builtin::Tan => "tan",
        Builtin::Asin => "asin",
        Builtin::Acos => "acos",
        Builtin::Atan => "atan",
        Builtin::Atan2 => "atan2",
        Builtin::Sinh => "sinh",
        Builtin::Cosh => "cosh",
        Builtin::Tanh => "tanh",
        Builtin::Lerp => "lerp",
        Builtin::Step => "step",
        Builtin::SmoothStep => "smoothstep",
        Builtin::Mad => "mad",
        Builtin::Fma => "fma",
        Builtin::Dot => "dot",
        Builtin::Cross => "cross",
        Builtin::Length => "length",
        Builtin::Distance => "distance",
        Builtin::Normalize => "normalize",
        Builtin::All => "all",
        Builtin::Any => "any",
        Builtin::CountBits => "countbits",
        Builtin::FirstBitHigh => "firstbithigh",
        Builtin::FirstBitLow => "firstbitlow",
        Builtin::ReverseBits => "reversebits",
        Builtin::F32ToF16 => "f32tof16",
        Builtin::F16ToF32 => "f16tof32",
        Builtin::IsNan => "isnan",
        Builtin::IsInf => "isinf",
        Builtin::IsFinite => "isfinite",
        Builtin::Mul => "mul",
        Builtin::Transpose => "transpose",
        Builtin::AsDouble => "asdouble",
    }
}

/// The current HLSL name of a wave or quad intrinsic.
pub fn wave_name(w: WaveOp) -> &'static str {
    match w {
        WaveOp::IsFirstLane => "WaveIsFirstLane",
        WaveOp::GetLaneCount => "WaveGetLaneCount",
        WaveOp::GetLaneIndex => "WaveGetLaneIndex",
        WaveOp::AnyTrue => "WaveActiveAnyTrue",
        WaveOp::AllTrue => "WaveActiveAllTrue",
        WaveOp::Ballot => "WaveActiveBallot",
        WaveOp::ReadLaneFirst => "WaveReadLaneFirst",
        WaveOp::ReadLaneAt => "WaveReadLaneAt",
        WaveOp::AllEqual => "WaveActiveAllEqual",
        WaveOp::CountBits => "WaveActiveCountBits",
        WaveOp::Sum => "WaveActiveSum",
        WaveOp::Product => "WaveActiveProduct",
        WaveOp::BitAnd => "WaveActiveBitAnd",
        WaveOp::BitOr => "WaveActiveBitOr",
        WaveOp::BitXor => "WaveActiveBitXor",
        WaveOp::Min => "WaveActiveMin",
        WaveOp::Max => "WaveActiveMax",
        WaveOp::PrefixCountBits => "WavePrefixCountBits",
        WaveOp::PrefixSum => "WavePrefixSum",
        WaveOp::PrefixProduct => "WavePrefixProduct",
        WaveOp::Match => "WaveMatch",
        WaveOp::MultiPrefixSum => "WaveMultiPrefixSum",
        WaveOp::MultiPrefixProduct => "WaveMultiPrefixProduct",
        WaveOp::MultiPrefixCountBits => "WaveMultiPrefixCountBits",
        WaveOp::MultiPrefixBitAnd => "WaveMultiPrefixBitAnd",
        WaveOp::MultiPrefixBitOr => "WaveMultiPrefixBitOr",
        WaveOp::MultiPrefixBitXor => "WaveMultiPrefixBitXor",
        WaveOp::QuadReadAcrossX => "QuadReadAcrossX",
        WaveOp::QuadReadAcrossY => "QuadReadAcrossY",
        WaveOp::QuadReadAcrossDiagonal => "QuadReadAcrossDiagonal",
        WaveOp::QuadReadLaneAt => "QuadReadLaneAt",
        WaveOp::QuadAny => "QuadAny",
        WaveOp::QuadAll => "QuadAll",
        WaveOp::GroupWaveIndex => "GetGroupWaveIndex",
        WaveOp::GroupWaveCount => "GetGroupWaveCount",
    }
}

fn atomic_name(op: AtomicOp) -> &'static str {
    match op {
        AtomicOp::Add => "add",
        AtomicOp::Min => "min",
        AtomicOp::Max => "max",
        AtomicOp::And => "and",
        AtomicOp::Or => "or",
        AtomicOp::Xor => "xor",
        AtomicOp::Exchange => "exchange",
        AtomicOp::CompareExchange => "compare_exchange",
        AtomicOp::CompareStore => "compare_store",
    }
}
