//! Resolution of written types (`float3`, `vector<float, 3>`, `row_major
//! float4x4`, structs, typedefs, resource types) to IR types, plus the shape
//! helpers the rest of the checker uses.

use lockstep_ir::{ResourceKind, ScalarType, Type, TypeArena, TypeId};
use lockstep_syntax::{Diagnostic, Span, ast};

use crate::context::Sema;

/// A resolved type name: a value type, or a resource type (globals only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Resolved {
    Value(TypeId),
    Resource(ResourceKind, TypeId),
}

/// The shape of a numeric type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    Scalar,
    Vector(u8),
    Matrix(u8, u8),
}

impl Shape {
    pub fn count(self) -> u32 {
        match self {
            Shape::Scalar => 1,
            Shape::Vector(n) => u32::from(n),
            Shape::Matrix(r, c) => u32::from(r) * u32::from(c),
        }
    }
}

/// Scalar type and shape of a numeric type.
pub(crate) fn numeric(types: &TypeArena, ty: TypeId) -> Option<(ScalarType, Shape)> {
    match *types.get(ty) {
        Type::Scalar(s) => Some((s, Shape::Scalar)),
        Type::Vector(s, n) => Some((s, Shape::Vector(n))),
        Type::Matrix {
            scalar, rows, cols, ..
        } => Some((scalar, Shape::Matrix(rows, cols))),
        _ => None,
    }
}

pub(crate) fn make_type(s: ScalarType, shape: Shape) -> Type {
    match shape {
        Shape::Scalar => Type::Scalar(s),
        Shape::Vector(n) => Type::Vector(s, n),
        Shape::Matrix(rows, cols) => Type::Matrix {
            scalar: s,
            rows,
            cols,
            row_major: false,
        },
    }
}

/// How a scalar keyword maps to a type, before the 16-bit option is applied.
#[derive(Clone, Copy)]
enum ScalarName {
    Plain(ScalarType),
    /// Always 16-bit; an error without `-enable-16bit-types`.
    Requires16(ScalarType),
    /// `half`, `min16float`, …: 16-bit with the option, else this type.
    Min16(ScalarType, ScalarType),
}

const SCALAR_NAMES: &[(&str, ScalarName)] = &[
    ("bool", ScalarName::Plain(ScalarType::Bool)),
    ("int", ScalarName::Plain(ScalarType::Int32)),
    ("uint", ScalarName::Plain(ScalarType::UInt32)),
    ("dword", ScalarName::Plain(ScalarType::UInt32)),
    ("float", ScalarName::Plain(ScalarType::Float32)),
    ("double", ScalarName::Plain(ScalarType::Float64)),
    ("int32_t", ScalarName::Plain(ScalarType::Int32)),
    ("uint32_t", ScalarName::Plain(ScalarType::UInt32)),
    ("int64_t", ScalarName::Plain(ScalarType::Int64)),
    ("uint64_t", ScalarName::Plain(ScalarType::UInt64)),
    ("float32_t", ScalarName::Plain(ScalarType::Float32)),
    ("float64_t", ScalarName::Plain(ScalarType::Float64)),
    // Four 8-bit values packed in 32 bits (SM 6.6).
    ("uint8_t4_packed", ScalarName::Plain(ScalarType::UInt32)),
    ("int8_t4_packed", ScalarName::Plain(ScalarType::UInt32)),
    ("int16_t", ScalarName::Requires16(ScalarType::Int16)),
    ("uint16_t", ScalarName::Requires16(ScalarType::UInt16)),
    ("float16_t", ScalarName::Requires16(ScalarType::Float16)),
    (
        "half",
        ScalarName::Min16(ScalarType::Float16, ScalarType::Float32),
    ),
    (
        "min16float",
        ScalarName::Min16(ScalarType::Float16, ScalarType::Float32),
    ),
    (
        "min10float",
        ScalarName::Min16(ScalarType::Float16, ScalarType::Float32),
    ),
    (
        "min16int",
        ScalarName::Min16(ScalarType::Int16, ScalarType::Int32),
    ),
    (
        "min12int",
        ScalarName::Min16(ScalarType::Int16, ScalarType::Int32),
    ),
    (
        "min16uint",
        ScalarName::Min16(ScalarType::UInt16, ScalarType::UInt32),
    ),
];

const UNSUPPORTED_OBJECTS: &[&str] = &[
    "Texture2DMS",
    "Texture2DMSArray",
    "RasterizerOrderedBuffer",
    "RasterizerOrderedStructuredBuffer",
    "RasterizerOrderedByteAddressBuffer",
    "FeedbackTexture2D",
    "RaytracingAccelerationStructure",
    "string",
];

/// Splits `float3` into (`float`, vector 3) and `float4x4` into (`float`,
/// matrix 4×4); a plain name is a scalar.
fn split_shape(name: &str) -> (&str, Shape) {
    let b = name.as_bytes();
    let digit = |c: u8| (b'1'..=b'4').contains(&c);
    let n = b.len();
    if n >= 4 && b[n - 2] == b'x' && digit(b[n - 1]) && digit(b[n - 3]) {
        return (
            &name[..n - 3],
            Shape::Matrix(b[n - 3] - b'0', b[n - 1] - b'0'),
        );
    }
    if n >= 2 && digit(b[n - 1]) {
        return (&name[..n - 1], Shape::Vector(b[n - 1] - b'0'));
    }
    (name, Shape::Scalar)
}

impl Sema<'_> {
    /// The scalar type a keyword names; `Some(None)` after an error.
    fn scalar_keyword(&mut self, name: &str, span: Span) -> Option<Option<ScalarType>> {
        let (_, kind) = SCALAR_NAMES.iter().find(|(n, _)| *n == name)?;
        let sixteen = self.opts.enable_16bit_types;
        Some(match *kind {
            ScalarName::Plain(s) => Some(s),
            ScalarName::Requires16(s) if sixteen => {
                self.require_shader_model((6, 2));
                Some(s)
            }
            ScalarName::Requires16(_) => {
                self.error(span, "16-bit types require -enable-16bit-types");
                None
            }
            ScalarName::Min16(s, _) if sixteen => Some(s),
            ScalarName::Min16(_, s) => Some(s),
        })
    }

    /// Resolves a value type; resources are an error here.
    pub fn resolve_value_type(&mut self, te: &ast::TypeExpr) -> Option<TypeId> {
        match self.resolve_type(te)? {
            Resolved::Value(ty) => Some(ty),
            Resolved::Resource(..) => {
                self.error(
                    te.span,
                    format!(
                        "resource type '{}' is not supported here: resources are global variables, or local variables initialized from one",
                        te.name.name
                    ),
                );
                None
            }
        }
    }

    pub fn resolve_type(&mut self, te: &ast::TypeExpr) -> Option<Resolved> {
        if !self.enter(te.span) {
            return None;
        }
        let r = self.resolve_type_inner(te);
        self.leave();
        r
    }

    fn resolve_type_inner(&mut self, te: &ast::TypeExpr) -> Option<Resolved> {
        let name = te.name.name.as_str();
        if let Some(kind) = resource_kind(name) {
            return self
                .resolve_resource(te, kind)
                .map(|(k, e)| Resolved::Resource(k, e));
        }
        let ty = match name {
            "vector" => self.resolve_vector_template(te)?,
            "matrix" => self.resolve_matrix_template(te)?,
            "void" => self.void(),
            _ => self.resolve_named(te)?,
        };
        Some(Resolved::Value(self.apply_type_modifiers(te, ty)))
    }

    fn resolve_named(&mut self, te: &ast::TypeExpr) -> Option<TypeId> {
        let name = te.name.name.as_str();
        let unsigned = has_modifier(te, "unsigned");
        let (base, shape) = split_shape(name);
        if let Some(s) = self.scalar_keyword(base, te.name.span) {
            let s = s?;
            let s = if unsigned { make_unsigned(s) } else { s };
            return Some(self.intern(make_type(s, shape)));
        }
        if let Some(crate::templates::TemplateValue::Type(ty)) = self.template_binding(name) {
            return Some(ty);
        }
        if let Some(&s) = self.struct_templates.get(name) {
            if te.args.is_empty() {
                self.error(
                    te.name.span,
                    format!("'{name}' is a template: give its arguments (`{name}<…>`)"),
                );
                return None;
            }
            return self.instantiate_struct(s, &te.args, te.span);
        }
        if let Some(&ty) = self.named_types.get(name) {
            return Some(ty);
        }
        if UNSUPPORTED_OBJECTS.contains(&name) {
            self.error(te.name.span, format!("type '{name}' is not supported"));
        } else {
            self.error(te.name.span, format!("unknown type name '{name}'"));
        }
        None
    }

    fn apply_type_modifiers(&mut self, te: &ast::TypeExpr, ty: TypeId) -> TypeId {
        let row_major = has_modifier(te, "row_major");
        let column_major = has_modifier(te, "column_major");
        if !row_major && !column_major {
            // `-Zpr` makes row-major the default.
            if self.opts.row_major_default {
                return self.set_orientation(ty, true);
            }
            return ty;
        }
        self.set_orientation(ty, row_major)
    }

    /// Applies `row_major`/`column_major` to a matrix or to the matrices of
    /// an array.
    pub fn set_orientation(&mut self, ty: TypeId, row_major: bool) -> TypeId {
        match self.get(ty).clone() {
            Type::Matrix {
                scalar, rows, cols, ..
            } => self.intern(Type::Matrix {
                scalar,
                rows,
                cols,
                row_major,
            }),
            Type::Array { element, len } => {
                let element = self.set_orientation(element, row_major);
                self.intern(Type::Array { element, len })
            }
            _ => ty,
        }
    }

    fn resolve_vector_template(&mut self, te: &ast::TypeExpr) -> Option<TypeId> {
        if te.args.is_empty() {
            return Some(self.intern(Type::Vector(ScalarType::Float32, 4)));
        }
        if te.args.len() != 2 {
            self.error(te.span, "'vector' requires a scalar type and a size");
            return None;
        }
        let s = self.template_scalar(&te.args[0], te.span)?;
        let n = self.template_count(&te.args[1], te.span, "vector size")?;
        Some(self.intern(Type::Vector(s, n)))
    }

    fn resolve_matrix_template(&mut self, te: &ast::TypeExpr) -> Option<TypeId> {
        if te.args.is_empty() {
            return Some(self.intern(make_type(ScalarType::Float32, Shape::Matrix(4, 4))));
        }
        if te.args.len() != 3 {
            self.error(
                te.span,
                "'matrix' requires a scalar type, a row count and a column count",
            );
            return None;
        }
        let s = self.template_scalar(&te.args[0], te.span)?;
        let rows = self.template_count(&te.args[1], te.span, "matrix row count")?;
        let cols = self.template_count(&te.args[2], te.span, "matrix column count")?;
        Some(self.intern(make_type(s, Shape::Matrix(rows, cols))))
    }

    fn template_scalar(&mut self, arg: &ast::TemplateArg, span: Span) -> Option<ScalarType> {
        let ty = self.template_type(arg, span)?;
        match *self.get(ty) {
            Type::Scalar(s) => Some(s),
            _ => {
                let shown = self.show(ty);
                self.error(span, format!("'{shown}' is not a scalar type"));
                None
            }
        }
    }

    /// A template argument that must be a type. An identifier the parser
    /// could not classify is taken as a type name.
    pub fn template_type(&mut self, arg: &ast::TemplateArg, span: Span) -> Option<TypeId> {
        match arg {
            ast::TemplateArg::Type(te) => self.resolve_value_type(te),
            ast::TemplateArg::Expr(ast::Expr {
                kind: ast::ExprKind::Ident(id),
                span,
            }) => {
                let te = ast::TypeExpr {
                    name: id.clone(),
                    args: Vec::new(),
                    modifiers: Vec::new(),
                    span: *span,
                };
                self.resolve_value_type(&te)
            }
            ast::TemplateArg::Expr(e) => {
                let _ = span;
                self.error(e.span, "expected a type");
                None
            }
        }
    }

    fn template_count(&mut self, arg: &ast::TemplateArg, span: Span, what: &str) -> Option<u8> {
        let expr = match arg {
            ast::TemplateArg::Expr(e) => e.clone(),
            ast::TemplateArg::Type(te) if te.args.is_empty() => ast::Expr {
                kind: ast::ExprKind::Ident(te.name.clone()),
                span: te.span,
            },
            ast::TemplateArg::Type(te) => {
                self.error(te.span, format!("expected a constant {what}"));
                return None;
            }
        };
        let n = self.const_u32(&expr, what)?;
        if !(1..=4).contains(&n) {
            let _ = span;
            self.error(
                expr.span,
                format!("{what} must be between 1 and 4, but is {n}"),
            );
            return None;
        }
        Some(n as u8)
    }

    fn resolve_resource(
        &mut self,
        te: &ast::TypeExpr,
        kind: ResourceKind,
    ) -> Option<(ResourceKind, TypeId)> {
        let name = te.name.name.as_str();
        if kind == ResourceKind::SamplerState {
            if !te.args.is_empty() {
                self.error(te.span, format!("'{name}' takes no template arguments"));
                return None;
            }
            return Some((kind, self.sampler_struct()));
        }
        let byte_address = matches!(
            kind,
            ResourceKind::ByteAddressBuffer | ResourceKind::RWByteAddressBuffer
        );
        if byte_address {
            if !te.args.is_empty() {
                self.error(te.span, format!("'{name}' takes no template arguments"));
                return None;
            }
            return Some((kind, self.scalar(ScalarType::UInt32)));
        }
        let element = match te.args.as_slice() {
            [] if matches!(kind, ResourceKind::Buffer | ResourceKind::RWBuffer)
                || kind.is_texture() =>
            {
                self.intern(Type::Vector(ScalarType::Float32, 4))
            }
            [arg] => self.template_type(arg, te.span)?,
            _ => {
                self.error(te.span, format!("'{name}' requires one template argument"));
                return None;
            }
        };
        self.check_resource_element(te, kind, element)?;
        Some((kind, element))
    }

    fn check_resource_element(
        &mut self,
        te: &ast::TypeExpr,
        kind: ResourceKind,
        element: TypeId,
    ) -> Option<()> {
        let name = &te.name.name;
        let shown = self.show(element);
        let typed =
            matches!(kind, ResourceKind::Buffer | ResourceKind::RWBuffer) || kind.is_texture();
        let ok = match kind {
            _ if typed => matches!(
                self.get(element),
                Type::Scalar(s) | Type::Vector(s, _) if *s != ScalarType::Bool
            ),
            ResourceKind::ConstantBuffer => matches!(self.get(element), Type::Struct { .. }),
            _ => !matches!(self.get(element), Type::Void),
        };
        if !ok {
            let need = match kind {
                _ if typed => "a numeric scalar or vector",
                ResourceKind::ConstantBuffer => "a struct",
                _ => "a value type",
            };
            self.error(
                te.span,
                format!("the element type of '{name}' must be {need}, but is '{shown}'"),
            );
            return None;
        }
        Some(())
    }

    /// Wraps `ty` in array types for `a[4][2]`; `unsized` replaces an
    /// outermost `[]`.
    pub fn apply_dims(
        &mut self,
        ty: TypeId,
        dims: &[Option<ast::Expr>],
        unsized_len: Option<u32>,
        span: Span,
    ) -> Option<TypeId> {
        let mut lens = Vec::with_capacity(dims.len());
        for (i, dim) in dims.iter().enumerate() {
            let len = match dim {
                Some(e) => self.const_u32(e, "array size")?,
                None if i == 0 && unsized_len.is_some() => unsized_len.unwrap_or(0),
                None => {
                    self.error(span, "array size must be given here");
                    return None;
                }
            };
            if len == 0 {
                self.error(
                    dim.as_ref().map_or(span, |e| e.span),
                    "array size must be greater than zero",
                );
                return None;
            }
            lens.push(len);
        }
        let mut ty = ty;
        for len in lens.into_iter().rev() {
            ty = self.intern(Type::Array { element: ty, len });
        }
        if self.module.types.component_count(ty) > MAX_COMPONENTS {
            self.error(span, "array is too large");
            return None;
        }
        Some(ty)
    }

    /// The first part of `e` that keeps it from being a constant: a
    /// variable that is not `const`, or a call.
    fn non_constant_part(&mut self, e: &ast::Expr) -> Option<(Span, String)> {
        use ast::ExprKind as K;
        match &e.kind {
            K::Ident(id) => {
                let t = self.lower_expr(e)?;
                let t = self.rvalue(t, e.span)?;
                self.fold(&t.e).is_none().then(|| {
                    (
                        id.span,
                        format!(
                            "'{}' is a variable, not a constant (declare it 'static const')",
                            id.name
                        ),
                    )
                })
            }
            K::Call { .. } | K::MethodCall { .. } => {
                Some((e.span, "a call is not a constant".to_string()))
            }
            K::Unary { operand, .. } => self.non_constant_part(operand),
            K::Binary { lhs, rhs, .. } => self
                .non_constant_part(lhs)
                .or_else(|| self.non_constant_part(rhs)),
            K::Conditional {
                cond,
                then_expr,
                else_expr,
            } => self
                .non_constant_part(cond)
                .or_else(|| self.non_constant_part(then_expr))
                .or_else(|| self.non_constant_part(else_expr)),
            K::Cast { operand, .. } => self.non_constant_part(operand),
            _ => None,
        }
    }

    /// Checks and lowers `e` in the current context and folds it to a
    /// non-negative integer.
    pub fn const_u32(&mut self, e: &ast::Expr, what: &str) -> Option<u32> {
        let t = self.lower_expr(e)?;
        let t = self.rvalue(t, e.span)?;
        let Some((s, Shape::Scalar)) = numeric(&self.module.types, t.ty()) else {
            let shown = self.show(t.ty());
            self.error(
                e.span,
                format!("{what} must be an integer, but has type '{shown}'"),
            );
            return None;
        };
        if !s.is_integer() {
            self.error(
                e.span,
                format!("{what} must be an integer, but has type '{}'", s.name()),
            );
            return None;
        }
        let Some(values) = self.fold(&t.e) else {
            let mut d = Diagnostic::error(e.span, format!("{what} is not a constant expression"));
            if let Some((span, why)) = self.non_constant_part(e) {
                d = d.with_label(span, why);
            }
            self.push(d);
            return None;
        };
        let value = crate::fold::as_i128(*values.first()?);
        match u32::try_from(value) {
            Ok(v) => Some(v),
            Err(_) => {
                self.error(e.span, format!("{what} {value} is out of range"));
                None
            }
        }
    }
}

/// Arrays may hold at most this many scalar components.
pub(crate) const MAX_COMPONENTS: u32 = 1 << 20;

pub(crate) fn has_modifier(te: &ast::TypeExpr, name: &str) -> bool {
    te.modifiers.iter().any(|m| m.name == name)
}

fn make_unsigned(s: ScalarType) -> ScalarType {
    match s {
        ScalarType::Int16 => ScalarType::UInt16,
        ScalarType::Int32 => ScalarType::UInt32,
        ScalarType::Int64 => ScalarType::UInt64,
        other => other,
    }
}

/// Whether `name` names a resource type.
pub(crate) fn is_resource_name(name: &str) -> bool {
    resource_kind(name).is_some()
}

fn resource_kind(name: &str) -> Option<ResourceKind> {
    Some(match name {
        "StructuredBuffer" => ResourceKind::StructuredBuffer,
        "RWStructuredBuffer" => ResourceKind::RWStructuredBuffer,
        "AppendStructuredBuffer" => ResourceKind::AppendStructuredBuffer,
        "ConsumeStructuredBuffer" => ResourceKind::ConsumeStructuredBuffer,
        "Buffer" => ResourceKind::Buffer,
        "RWBuffer" => ResourceKind::RWBuffer,
        "ByteAddressBuffer" => ResourceKind::ByteAddressBuffer,
        "RWByteAddressBuffer" => ResourceKind::RWByteAddressBuffer,
        "ConstantBuffer" => ResourceKind::ConstantBuffer,
        "Texture1D" => ResourceKind::Texture1D,
        "Texture1DArray" => ResourceKind::Texture1DArray,
        "Texture2D" => ResourceKind::Texture2D,
        "Texture2DArray" => ResourceKind::Texture2DArray,
        "Texture3D" => ResourceKind::Texture3D,
        "TextureCube" => ResourceKind::TextureCube,
        "TextureCubeArray" => ResourceKind::TextureCubeArray,
        "RWTexture1D" => ResourceKind::RWTexture1D,
        "RWTexture1DArray" => ResourceKind::RWTexture1DArray,
        "RWTexture2D" => ResourceKind::RWTexture2D,
        "RWTexture2DArray" => ResourceKind::RWTexture2DArray,
        "RWTexture3D" => ResourceKind::RWTexture3D,
        "SamplerState" | "SamplerComparisonState" => ResourceKind::SamplerState,
        _ => return None,
    })
}

impl Sema<'_> {
    /// Whether `name` names a type (for `float4(...)` written as a call).
    pub fn is_type_name(&self, name: &str) -> bool {
        let (base, _) = split_shape(name);
        SCALAR_NAMES.iter().any(|(n, _)| *n == base)
            || matches!(name, "vector" | "matrix")
            || self.named_types.contains_key(name)
            || self.struct_templates.contains_key(name)
            || matches!(
                self.template_binding(name),
                Some(crate::templates::TemplateValue::Type(_))
            )
    }
}
