//! A compact S-expression dump of the AST, for tests and AST dumps.
//!
//! Declarations and statements take a line each (children indented);
//! expressions print on one line in prefix form, `(+ a (* b c))`. Spans are
//! not printed.

use std::fmt::Write;

use crate::ast::{
    Attribute, Block, CBufferDecl, CBufferKind, CaseLabel, Declarator, Expr, ExprKind, FieldDecl,
    FloatSuffix, FunctionDecl, Initializer, IntSuffix, Item, Param, ParamDirection,
    RegisterBinding, Stmt, StmtKind, StructDecl, TemplateArg, TranslationUnit, TypeExpr,
    TypedefDecl, UnaryOp, VarDecl,
};

/// The whole unit, one top-level item after another.
pub fn print_unit(unit: &TranslationUnit) -> String {
    let mut printer = Printer::default();
    for item in &unit.items {
        printer.item(item);
        printer.out.push('\n');
    }
    printer.out
}

/// One expression on one line.
pub fn print_expr(expr: &Expr) -> String {
    let mut out = String::new();
    write_expr(&mut out, expr);
    out
}

/// A type as written, e.g. `RWStructuredBuffer<vector<float, 4>>`.
pub fn print_type(ty: &TypeExpr) -> String {
    let mut out = String::new();
    write_type(&mut out, ty);
    out
}

#[derive(Default)]
struct Printer {
    out: String,
    indent: usize,
}

impl Printer {
    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
    }

    fn item(&mut self, item: &Item) {
        match item {
            Item::Function(f) => self.function(f),
            Item::Struct(s) => self.structure(s),
            Item::Typedef(t) => self.typedef(t),
            Item::Variable(v) => write_var(&mut self.out, v),
            Item::CBuffer(c) => self.cbuffer(c),
        }
    }

    fn function(&mut self, f: &FunctionDecl) {
        self.out.push_str("(fn");
        write_template_params(&mut self.out, &f.template_params);
        for attribute in &f.attributes {
            self.out.push(' ');
            write_attribute(&mut self.out, attribute);
        }
        for storage in &f.storage {
            let _ = write!(self.out, " {}", storage.name);
        }
        self.out.push(' ');
        write_type(&mut self.out, &f.return_type);
        let _ = write!(self.out, " {} (", f.name.name);
        for (i, param) in f.params.iter().enumerate() {
            if i > 0 {
                self.out.push(' ');
            }
            write_param(&mut self.out, param);
        }
        self.out.push(')');
        if let Some(semantic) = &f.semantic {
            let _ = write!(self.out, " : {}", semantic.name);
        }
        match &f.body {
            Some(body) => self.children(&body.stmts),
            None => self.out.push_str(" proto"),
        }
        self.out.push(')');
    }

    fn structure(&mut self, s: &StructDecl) {
        self.out.push_str("(struct");
        write_template_params(&mut self.out, &s.template_params);
        let _ = write!(self.out, " {}", s.name.name);
        if let Some(base) = &s.base {
            self.out.push_str(" : ");
            write_type(&mut self.out, base);
        }
        self.indent += 1;
        for field in &s.fields {
            self.newline();
            write_field(&mut self.out, field);
        }
        self.indent -= 1;
        self.out.push(')');
    }

    fn typedef(&mut self, t: &TypedefDecl) {
        self.out.push_str("(typedef ");
        write_type(&mut self.out, &t.ty);
        let _ = write!(self.out, " {}", t.name.name);
        write_dims(&mut self.out, &t.array_dims);
        self.out.push(')');
    }

    fn cbuffer(&mut self, c: &CBufferDecl) {
        let keyword = match c.kind {
            CBufferKind::CBuffer => "cbuffer",
            CBufferKind::TBuffer => "tbuffer",
        };
        let _ = write!(self.out, "({keyword} {}", c.name.name);
        if let Some(register) = &c.register {
            self.out.push(' ');
            write_register(&mut self.out, register);
        }
        self.indent += 1;
        for member in &c.members {
            self.newline();
            write_var(&mut self.out, member);
        }
        self.indent -= 1;
        self.out.push(')');
    }

    /// Statements on indented lines after the current one.
    fn children(&mut self, stmts: &[Stmt]) {
        self.indent += 1;
        for stmt in stmts {
            self.newline();
            self.stmt(stmt);
        }
        self.indent -= 1;
    }

    fn child(&mut self, stmt: &Stmt) {
        self.children(std::slice::from_ref(stmt));
    }

    fn stmt(&mut self, stmt: &Stmt) {
        for attribute in &stmt.attributes {
            write_attribute(&mut self.out, attribute);
            self.out.push(' ');
        }
        match &stmt.kind {
            StmtKind::Empty => self.out.push_str("(empty)"),
            StmtKind::Expr(e) => write_expr(&mut self.out, e),
            StmtKind::Decl(v) => write_var(&mut self.out, v),
            StmtKind::Block(b) => self.block(b),
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                self.out.push_str("(if ");
                write_expr(&mut self.out, cond);
                self.child(then_branch);
                if let Some(else_branch) = else_branch {
                    self.child(else_branch);
                }
                self.out.push(')');
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                self.out.push_str("(for ");
                self.stmt(init);
                self.out.push(' ');
                write_opt_expr(&mut self.out, cond.as_ref());
                self.out.push(' ');
                write_opt_expr(&mut self.out, step.as_ref());
                self.child(body);
                self.out.push(')');
            }
            StmtKind::While { cond, body } => {
                self.out.push_str("(while ");
                write_expr(&mut self.out, cond);
                self.child(body);
                self.out.push(')');
            }
            StmtKind::DoWhile { body, cond } => {
                self.out.push_str("(do-while ");
                write_expr(&mut self.out, cond);
                self.child(body);
                self.out.push(')');
            }
            StmtKind::Switch { selector, cases } => {
                self.out.push_str("(switch ");
                write_expr(&mut self.out, selector);
                self.indent += 1;
                for case in cases {
                    self.newline();
                    self.out.push_str("(case");
                    for label in &case.labels {
                        self.out.push(' ');
                        match label {
                            CaseLabel::Case(e) => write_expr(&mut self.out, e),
                            CaseLabel::Default(_) => self.out.push_str("default"),
                        }
                    }
                    self.children(&case.body);
                    self.out.push(')');
                }
                self.indent -= 1;
                self.out.push(')');
            }
            StmtKind::Break => self.out.push_str("(break)"),
            StmtKind::Continue => self.out.push_str("(continue)"),
            StmtKind::Discard => self.out.push_str("(discard)"),
            StmtKind::Return(value) => {
                self.out.push_str("(return");
                if let Some(value) = value {
                    self.out.push(' ');
                    write_expr(&mut self.out, value);
                }
                self.out.push(')');
            }
        }
    }

    fn block(&mut self, block: &Block) {
        self.out.push_str("(block");
        self.children(&block.stmts);
        self.out.push(')');
    }
}

fn write_opt_expr(out: &mut String, expr: Option<&Expr>) {
    match expr {
        Some(e) => write_expr(out, e),
        None => out.push('_'),
    }
}

fn write_attribute(out: &mut String, attribute: &Attribute) {
    let _ = write!(out, "[{}", attribute.name.name);
    for arg in &attribute.args {
        out.push(' ');
        write_expr(out, arg);
    }
    out.push(']');
}

fn write_param(out: &mut String, param: &Param) {
    out.push('(');
    match param.direction {
        ParamDirection::In => {}
        ParamDirection::Out => out.push_str("out "),
        ParamDirection::InOut => out.push_str("inout "),
    }
    for modifier in &param.modifiers {
        let _ = write!(out, "{} ", modifier.name);
    }
    write_type(out, &param.ty);
    if !param.name.name.is_empty() {
        let _ = write!(out, " {}", param.name.name);
    }
    write_dims(out, &param.array_dims);
    if let Some(semantic) = &param.semantic {
        let _ = write!(out, " : {}", semantic.name);
    }
    if let Some(default) = &param.default {
        out.push_str(" = ");
        write_expr(out, default);
    }
    out.push(')');
}

fn write_field(out: &mut String, field: &FieldDecl) {
    out.push_str("(field ");
    for modifier in &field.modifiers {
        let _ = write!(out, "{} ", modifier.name);
    }
    write_type(out, &field.ty);
    let _ = write!(out, " {}", field.name.name);
    write_dims(out, &field.array_dims);
    if let Some(semantic) = &field.semantic {
        let _ = write!(out, " : {}", semantic.name);
    }
    out.push(')');
}

fn write_var(out: &mut String, var: &VarDecl) {
    out.push_str("(var ");
    for storage in &var.storage {
        let _ = write!(out, "{} ", storage.name);
    }
    write_type(out, &var.ty);
    for declarator in &var.declarators {
        out.push(' ');
        write_declarator(out, declarator);
    }
    out.push(')');
}

fn write_declarator(out: &mut String, d: &Declarator) {
    let plain = d.array_dims.is_empty()
        && d.register.is_none()
        && d.packoffset.is_none()
        && d.semantic.is_none()
        && d.init.is_none();
    if plain {
        out.push_str(&d.name.name);
        return;
    }
    let _ = write!(out, "({}", d.name.name);
    write_dims(out, &d.array_dims);
    if let Some(register) = &d.register {
        out.push(' ');
        write_register(out, register);
    }
    if let Some(packoffset) = &d.packoffset {
        let _ = write!(out, " packoffset({})", packoffset.name);
    }
    if let Some(semantic) = &d.semantic {
        let _ = write!(out, " : {}", semantic.name);
    }
    if let Some(init) = &d.init {
        out.push_str(" = ");
        write_initializer(out, init);
    }
    out.push(')');
}

fn write_register(out: &mut String, r: &RegisterBinding) {
    let _ = write!(out, "register({}{}, space{})", r.class, r.index, r.space);
}

fn write_initializer(out: &mut String, init: &Initializer) {
    match init {
        Initializer::Expr(e) => write_expr(out, e),
        Initializer::List(items, _) => {
            out.push('{');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_initializer(out, item);
            }
            out.push('}');
        }
    }
}

fn write_dims(out: &mut String, dims: &[Option<Expr>]) {
    for dim in dims {
        out.push('[');
        if let Some(e) = dim {
            write_expr(out, e);
        }
        out.push(']');
    }
}

/// ` template<typename T, uint N>` when there are parameters.
fn write_template_params(out: &mut String, params: &[crate::ast::TemplateParam]) {
    if params.is_empty() {
        return;
    }
    out.push_str(" template<");
    for (i, p) in params.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        match &p.value_type {
            None => out.push_str("typename "),
            Some(ty) => {
                write_type(out, ty);
                out.push(' ');
            }
        }
        out.push_str(&p.name.name);
    }
    out.push('>');
}

fn write_type(out: &mut String, ty: &TypeExpr) {
    for modifier in &ty.modifiers {
        let _ = write!(out, "{} ", modifier.name);
    }
    out.push_str(&ty.name.name);
    if ty.args.is_empty() {
        return;
    }
    out.push('<');
    for (i, arg) in ty.args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        match arg {
            TemplateArg::Type(t) => write_type(out, t),
            TemplateArg::Expr(e) => write_expr(out, e),
        }
    }
    out.push('>');
}

fn int_suffix(suffix: IntSuffix) -> &'static str {
    match suffix {
        IntSuffix::None => "",
        IntSuffix::U => "u",
        IntSuffix::L => "l",
        IntSuffix::UL => "ul",
        IntSuffix::LL => "ll",
        IntSuffix::ULL => "ull",
    }
}

fn float_suffix(suffix: FloatSuffix) -> &'static str {
    match suffix {
        FloatSuffix::None => "",
        FloatSuffix::F => "f",
        FloatSuffix::H => "h",
        FloatSuffix::L => "l",
    }
}

fn unary_name(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Neg => "-",
        UnaryOp::Plus => "+",
        UnaryOp::Not => "!",
        UnaryOp::BitNot => "~",
        UnaryOp::PreInc => "pre++",
        UnaryOp::PreDec => "pre--",
        UnaryOp::PostInc => "post++",
        UnaryOp::PostDec => "post--",
    }
}

/// The operator's spelling, e.g. `<<` for `Shl`.
pub fn binary_symbol(op: crate::ast::BinaryOp) -> &'static str {
    use crate::ast::BinaryOp::*;
    match op {
        Add => "+",
        Sub => "-",
        Mul => "*",
        Div => "/",
        Rem => "%",
        Shl => "<<",
        Shr => ">>",
        BitAnd => "&",
        BitOr => "|",
        BitXor => "^",
        LogicalAnd => "&&",
        LogicalOr => "||",
        Eq => "==",
        Ne => "!=",
        Lt => "<",
        Le => "<=",
        Gt => ">",
        Ge => ">=",
    }
}

fn write_args(out: &mut String, args: &[Expr]) {
    for arg in args {
        out.push(' ');
        write_expr(out, arg);
    }
}

fn write_expr(out: &mut String, expr: &Expr) {
    match &expr.kind {
        ExprKind::IntLit { value, suffix } => {
            let _ = write!(out, "{value}{}", int_suffix(*suffix));
        }
        ExprKind::FloatLit { value, suffix } => {
            let _ = write!(out, "{value:?}{}", float_suffix(*suffix));
        }
        ExprKind::BoolLit(b) => {
            let _ = write!(out, "{b}");
        }
        ExprKind::StringLit(s) => {
            let _ = write!(out, "{s:?}");
        }
        ExprKind::SizeOf(ty) => {
            let _ = write!(out, "(sizeof {})", ty.name.name);
        }
        ExprKind::SizeOfExpr(e) => {
            out.push_str("(sizeof ");
            write_expr(out, e);
            out.push(')');
        }
        ExprKind::Ident(name) => out.push_str(&name.name),
        ExprKind::Unary { op, operand } => {
            let _ = write!(out, "({} ", unary_name(*op));
            write_expr(out, operand);
            out.push(')');
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let _ = write!(out, "({} ", binary_symbol(*op));
            write_expr(out, lhs);
            out.push(' ');
            write_expr(out, rhs);
            out.push(')');
        }
        ExprKind::Assign { op, lhs, rhs } => {
            let _ = write!(out, "({}= ", op.map_or("", binary_symbol));
            write_expr(out, lhs);
            out.push(' ');
            write_expr(out, rhs);
            out.push(')');
        }
        ExprKind::Conditional {
            cond,
            then_expr,
            else_expr,
        } => {
            out.push_str("(? ");
            write_expr(out, cond);
            out.push(' ');
            write_expr(out, then_expr);
            out.push(' ');
            write_expr(out, else_expr);
            out.push(')');
        }
        ExprKind::Call { callee, args } => {
            match callee {
                crate::ast::Callee::Name(name) => {
                    let _ = write!(out, "(call {}", name.name);
                }
                crate::ast::Callee::Type(ty) => {
                    out.push_str("(ctor ");
                    write_type(out, ty);
                }
                crate::ast::Callee::Template { name, args } => {
                    out.push_str("(call ");
                    write_type(
                        out,
                        &TypeExpr {
                            name: name.clone(),
                            args: args.clone(),
                            modifiers: Vec::new(),
                            span: name.span,
                        },
                    );
                }
            }
            write_args(out, args);
            out.push(')');
        }
        ExprKind::MethodCall {
            receiver,
            method,
            template_args,
            args,
        } => {
            out.push_str("(method ");
            write_expr(out, receiver);
            let _ = write!(out, " {}", method.name);
            if !template_args.is_empty() {
                out.push('<');
                for (i, ty) in template_args.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_type(out, ty);
                }
                out.push('>');
            }
            write_args(out, args);
            out.push(')');
        }
        ExprKind::Member { base, member } => {
            out.push_str("(. ");
            write_expr(out, base);
            let _ = write!(out, " {})", member.name);
        }
        ExprKind::Index { base, index } => {
            out.push_str("(index ");
            write_expr(out, base);
            out.push(' ');
            write_expr(out, index);
            out.push(')');
        }
        ExprKind::Cast {
            ty,
            array_dims,
            operand,
        } => {
            out.push_str("(cast ");
            write_type(out, ty);
            write_dims(out, array_dims);
            out.push(' ');
            write_expr(out, operand);
            out.push(')');
        }
        ExprKind::Comma { lhs, rhs } => {
            out.push_str("(, ");
            write_expr(out, lhs);
            out.push(' ');
            write_expr(out, rhs);
            out.push(')');
        }
    }
}
