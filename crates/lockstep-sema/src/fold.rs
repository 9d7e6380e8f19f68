//! Constant folding of IR expressions: literals, `static const` values,
//! array sizes, case labels and `numthreads` arguments.
//!
//! Integer arithmetic wraps and shift amounts are masked, as at run time;
//! division by zero does not fold.

use std::collections::HashMap;

use lockstep_ir::{
    Access, BinaryOp, ExprKind, PlaceRoot, Scalar, ScalarType, StaticId, Type, TypeArena, TypeId,
    UnaryOp,
};

use lockstep_ir::Expr;

/// A scalar value in a form that is easy to compute with.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Value {
    Int(i128),
    Float(f64),
    Bool(bool),
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// The integer value of a scalar (floats truncate, bools are 0 or 1).
pub(crate) fn as_i128(s: Scalar) -> i128 {
    match value(s) {
        Value::Int(v) => v,
        Value::Float(f) => f as i128,
        Value::Bool(b) => i128::from(b),
    }
}

fn value(s: Scalar) -> Value {
    let bits = s.bits & mask(s.ty.bits());
    match s.ty {
        ScalarType::Bool => Value::Bool(bits != 0),
        ScalarType::Int16 => Value::Int(i128::from(bits as u16 as i16)),
        ScalarType::Int32 => Value::Int(i128::from(bits as u32 as i32)),
        ScalarType::Int64 => Value::Int(i128::from(bits as i64)),
        ScalarType::UInt16 | ScalarType::UInt32 | ScalarType::UInt64 => {
            Value::Int(i128::from(bits))
        }
        ScalarType::Float16 => Value::Float(f64::from(lockstep_wave::ops::f16tof32(bits as u32))),
        ScalarType::Float32 => Value::Float(f64::from(f32::from_bits(bits as u32))),
        ScalarType::Float64 => Value::Float(f64::from_bits(bits)),
    }
}

fn scalar(v: Value, ty: ScalarType) -> Scalar {
    let bits = match (v, ty) {
        (Value::Bool(b), _) => return scalar(Value::Int(i128::from(b)), ty),
        (Value::Int(i), ScalarType::Bool) => u64::from(i != 0),
        (Value::Float(f), ScalarType::Bool) => u64::from(f != 0.0),
        (Value::Int(i), t) if t.is_integer() => (i as u64) & mask(t.bits()),
        (Value::Float(f), t) if t.is_integer() => float_to_int_bits(f, t),
        // Rounded once, as the engine converts (`i as f64` first would
        // round a 64-bit integer twice).
        (Value::Int(i), ScalarType::Float32) => u64::from((i as f32).to_bits()),
        (Value::Int(i), t) => float_bits(i as f64, t),
        (Value::Float(f), t) => float_bits(f, t),
    };
    Scalar { ty, bits }
}

fn float_to_int_bits(f: f64, t: ScalarType) -> u64 {
    let v: i128 = match t {
        ScalarType::Int16 => i128::from(f as i16),
        ScalarType::UInt16 => i128::from(f as u16),
        ScalarType::Int32 => i128::from(f as i32),
        ScalarType::UInt32 => i128::from(f as u32),
        ScalarType::Int64 => i128::from(f as i64),
        _ => i128::from(f as u64),
    };
    (v as u64) & mask(t.bits())
}

/// `f`'s bits in float type `t`, rounded once to nearest even, with
/// `lockstep-wave`'s conversions (a NaN keeps what of its payload fits).
fn float_bits(f: f64, t: ScalarType) -> u64 {
    match t {
        ScalarType::Float16 => u64::from(lockstep_wave::convert::<half::f16, f64>(f).to_bits()),
        ScalarType::Float32 => u64::from((f as f32).to_bits()),
        _ => f.to_bits(),
    }
}

/// Converts a constant to another scalar type (`!= 0` for bool).
pub(crate) fn convert_scalar(s: Scalar, ty: ScalarType) -> Scalar {
    scalar(value(s), ty)
}

/// Folds `e` to its flattened constant components, if it is constant.
pub(crate) fn fold(
    types: &TypeArena,
    consts: &HashMap<StaticId, (TypeId, Vec<Scalar>)>,
    e: &Expr,
) -> Option<Vec<Scalar>> {
    Folder {
        types,
        consts,
        steps: 0,
    }
    .fold(e)
}

struct Folder<'a> {
    types: &'a TypeArena,
    consts: &'a HashMap<StaticId, (TypeId, Vec<Scalar>)>,
    steps: u32,
}

impl Folder<'_> {
    fn fold(&mut self, e: &Expr) -> Option<Vec<Scalar>> {
        self.steps += 1;
        if self.steps > 100_000 {
            return None;
        }
        match &e.kind {
            ExprKind::Const(v) => Some(v.clone()),
            ExprKind::Load(place) => self.load(place),
            ExprKind::Construct(args) => {
                let mut out = Vec::new();
                for a in args {
                    out.extend(self.fold(a)?);
                }
                Some(out)
            }
            ExprKind::Splat(x) => {
                let v = self.fold(x)?;
                Some(vec![*v.first()?; self.types.component_count(e.ty) as usize])
            }
            ExprKind::Swizzle(x, comps) => {
                let v = self.fold(x)?;
                comps
                    .iter()
                    .map(|&c| v.get(usize::from(c)).copied())
                    .collect()
            }
            ExprKind::Field(x, i) => {
                let v = self.fold(x)?;
                let (start, len) = field_range(self.types, x.ty, *i)?;
                v.get(start..start + len).map(<[Scalar]>::to_vec)
            }
            ExprKind::Index(x, i) => {
                let v = self.fold(x)?;
                let i = as_i128(*self.fold(i)?.first()?);
                let (start, len) = index_range(self.types, x.ty, i)?;
                v.get(start..start + len).map(<[Scalar]>::to_vec)
            }
            ExprKind::Convert(x) => {
                let target = self.types.scalar_of(e.ty)?;
                Some(
                    self.fold(x)?
                        .into_iter()
                        .map(|s| convert_scalar(s, target))
                        .collect(),
                )
            }
            ExprKind::Bitcast(x) => {
                let target = self.types.scalar_of(e.ty)?;
                Some(
                    self.fold(x)?
                        .into_iter()
                        .map(|s| Scalar {
                            ty: target,
                            bits: s.bits,
                        })
                        .collect(),
                )
            }
            ExprKind::Unary(op, x) => self.fold(x)?.into_iter().map(|s| unary(*op, s)).collect(),
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (self.fold(a)?, self.fold(b)?);
                let result = self.types.scalar_of(e.ty)?;
                a.iter()
                    .zip(&b)
                    .map(|(x, y)| binary(*op, *x, *y, result))
                    .collect()
            }
            ExprKind::LogicalAnd(a, b) => self.logical(a, b, false),
            ExprKind::LogicalOr(a, b) => self.logical(a, b, true),
            ExprKind::Conditional {
                cond,
                accept,
                reject,
            } => {
                let c = self.fold(cond)?;
                if c.first()?.bits != 0 {
                    self.fold(accept)
                } else {
                    self.fold(reject)
                }
            }
            ExprKind::Select {
                cond,
                accept,
                reject,
            } => {
                let (c, a, r) = (self.fold(cond)?, self.fold(accept)?, self.fold(reject)?);
                let n = a.len();
                let pick = |i: usize| {
                    if c.get(i).or(c.first()).is_some_and(|s| s.bits != 0) {
                        a[i]
                    } else {
                        r[i]
                    }
                };
                Some((0..n).map(pick).collect())
            }
            _ => None,
        }
    }

    fn logical(&mut self, a: &Expr, b: &Expr, is_or: bool) -> Option<Vec<Scalar>> {
        let a = self.fold(a)?.first()?.bits != 0;
        if a == is_or {
            return Some(vec![Scalar {
                ty: ScalarType::Bool,
                bits: u64::from(a),
            }]);
        }
        let b = self.fold(b)?.first()?.bits != 0;
        Some(vec![Scalar {
            ty: ScalarType::Bool,
            bits: u64::from(b),
        }])
    }

    fn load(&mut self, place: &lockstep_ir::Place) -> Option<Vec<Scalar>> {
        let PlaceRoot::Static(id) = &place.root else {
            return None;
        };
        let (root_ty, values) = self.consts.get(id)?;
        let mut values = values.clone();
        // The type of what the path has reached so far; `None` once the
        // path has left the type arena (a matrix row, a swizzle).
        let mut ty = Some(*root_ty);
        let mut row_width = 0u8;
        for access in &place.path {
            let (start, len, next) = match (access, ty) {
                (Access::Field(i), Some(t)) => {
                    let (s, l) = field_range(self.types, t, *i)?;
                    let Type::Struct { members, .. } = self.types.get(t) else {
                        return None;
                    };
                    (s, l, Some(members.get(*i as usize)?.ty))
                }
                (Access::Index(i), cur) => {
                    let i = as_i128(*self.fold(i)?.first()?);
                    match cur {
                        Some(t) => {
                            let (s, l) = index_range(self.types, t, i)?;
                            if let Type::Matrix { cols, .. } = self.types.get(t) {
                                row_width = *cols;
                            }
                            let next = match self.types.get(t) {
                                Type::Array { element, .. } => Some(*element),
                                _ => None,
                            };
                            (s, l, next)
                        }
                        None => {
                            let i = usize::try_from(i)
                                .ok()
                                .filter(|&i| i < usize::from(row_width))?;
                            row_width = 0;
                            (i, 1, None)
                        }
                    }
                }
                (Access::Components(c), _) => {
                    values = c
                        .iter()
                        .map(|&c| values.get(usize::from(c)).copied())
                        .collect::<Option<_>>()?;
                    row_width = 0;
                    ty = None;
                    continue;
                }
                _ => return None,
            };
            values = values.get(start..start + len)?.to_vec();
            ty = next;
        }
        Some(values)
    }
}

/// Start and length, in flattened components, of member `i` of a struct.
fn field_range(types: &TypeArena, ty: lockstep_ir::TypeId, i: u32) -> Option<(usize, usize)> {
    let Type::Struct { members, .. } = types.get(ty) else {
        return None;
    };
    let start: u32 = members
        .iter()
        .take(i as usize)
        .map(|m| types.component_count(m.ty))
        .sum();
    let len = types.component_count(members.get(i as usize)?.ty);
    Some((start as usize, len as usize))
}

/// Start and length of element `i` of an array, component of a vector or
/// row of a matrix.
fn index_range(types: &TypeArena, ty: lockstep_ir::TypeId, i: i128) -> Option<(usize, usize)> {
    let (len, width) = match *types.get(ty) {
        Type::Array { element, len } => (len, types.component_count(element)),
        Type::Vector(_, n) => (u32::from(n), 1),
        Type::Matrix { rows, cols, .. } => (u32::from(rows), u32::from(cols)),
        _ => return None,
    };
    let i = u32::try_from(i).ok().filter(|&i| i < len)?;
    Some(((i * width) as usize, width as usize))
}

fn unary(op: UnaryOp, s: Scalar) -> Option<Scalar> {
    let v = match (op, value(s)) {
        (UnaryOp::Neg, Value::Int(i)) => Value::Int(i.wrapping_neg()),
        (UnaryOp::Neg, Value::Float(f)) => Value::Float(-f),
        (UnaryOp::Not, v) => Value::Bool(!truthy(v)),
        (UnaryOp::BitNot, Value::Int(i)) => Value::Int(!i),
        _ => return None,
    };
    Some(scalar(v, s.ty))
}

fn truthy(v: Value) -> bool {
    match v {
        Value::Int(i) => i != 0,
        Value::Float(f) => f != 0.0,
        Value::Bool(b) => b,
    }
}

fn binary(op: BinaryOp, a: Scalar, b: Scalar, result: ScalarType) -> Option<Scalar> {
    let bits = a.ty.bits();
    let v = match (value(a), value(b)) {
        (Value::Int(x), Value::Int(y)) => int_binary(op, x, y, bits)?,
        (Value::Float(x), Value::Float(y)) => float_binary(op, x, y)?,
        (Value::Bool(x), Value::Bool(y)) => bool_binary(op, x, y)?,
        _ => return None,
    };
    Some(scalar(v, result))
}

fn int_binary(op: BinaryOp, x: i128, y: i128, bits: u32) -> Option<Value> {
    let shift = (y as u32) & (bits - 1);
    Some(match op {
        BinaryOp::Add => Value::Int(x.wrapping_add(y)),
        BinaryOp::Sub => Value::Int(x.wrapping_sub(y)),
        BinaryOp::Mul => Value::Int(x.wrapping_mul(y)),
        BinaryOp::Div if y != 0 => Value::Int(x.wrapping_div(y)),
        BinaryOp::Rem if y != 0 => Value::Int(x.wrapping_rem(y)),
        BinaryOp::Shl => Value::Int(x << shift),
        BinaryOp::Shr => Value::Int(x >> shift),
        BinaryOp::BitAnd => Value::Int(x & y),
        BinaryOp::BitOr => Value::Int(x | y),
        BinaryOp::BitXor => Value::Int(x ^ y),
        BinaryOp::And => Value::Bool(x != 0 && y != 0),
        BinaryOp::Or => Value::Bool(x != 0 || y != 0),
        BinaryOp::Eq => Value::Bool(x == y),
        BinaryOp::Ne => Value::Bool(x != y),
        BinaryOp::Lt => Value::Bool(x < y),
        BinaryOp::Le => Value::Bool(x <= y),
        BinaryOp::Gt => Value::Bool(x > y),
        BinaryOp::Ge => Value::Bool(x >= y),
        BinaryOp::Div | BinaryOp::Rem => return None,
    })
}

fn float_binary(op: BinaryOp, x: f64, y: f64) -> Option<Value> {
    Some(match op {
        BinaryOp::Add => Value::Float(x + y),
        BinaryOp::Sub => Value::Float(x - y),
        BinaryOp::Mul => Value::Float(x * y),
        BinaryOp::Div => Value::Float(x / y),
        BinaryOp::Rem => Value::Float(x % y),
        BinaryOp::Eq => Value::Bool(x == y),
        BinaryOp::Ne => Value::Bool(x != y),
        BinaryOp::Lt => Value::Bool(x < y),
        BinaryOp::Le => Value::Bool(x <= y),
        BinaryOp::Gt => Value::Bool(x > y),
        BinaryOp::Ge => Value::Bool(x >= y),
        _ => return None,
    })
}

fn bool_binary(op: BinaryOp, x: bool, y: bool) -> Option<Value> {
    Some(Value::Bool(match op {
        BinaryOp::And | BinaryOp::BitAnd => x && y,
        BinaryOp::Or | BinaryOp::BitOr => x || y,
        BinaryOp::BitXor | BinaryOp::Ne => x != y,
        BinaryOp::Eq => x == y,
        _ => return None,
    }))
}
