//! Math and bit built-ins, component by component, with the formulas of
//! `docs/semantics.md` (`pow` as `exp2(y * log2(x))`, `dot` left to right,
//! `mad` rounded twice).

use lockstep_ir::{Builtin, Expr, ScalarType, Type};
use rspirv::dr::Operand;
use rspirv::spirv::{GlslStd450Op as GLOp, Op, Word};

use crate::Error;
use crate::module::{Emitter, ids};

/// The shape of a `mul` operand: rows × columns (a vector is a row on the
/// left and a column on the right).
fn shape(ty: &Type) -> Option<(u32, u32)> {
    match *ty {
        Type::Scalar(_) => None,
        Type::Vector(_, n) => Some((1, u32::from(n))),
        Type::Matrix { rows, cols, .. } => Some((u32::from(rows), u32::from(cols))),
        _ => None,
    }
}

impl Emitter<'_> {
    pub fn builtin(&mut self, b: Builtin, args: &[Expr], e: &Expr) -> Result<Vec<Word>, Error> {
        let mut a = Vec::new();
        for x in args {
            a.push(self.expr(x)?);
        }
        let flat = args.first().map(|x| self.flat_of(x)).unwrap_or_default();
        let out_flat = self.flat(e.ty);
        let s = flat.first().copied().unwrap_or(ScalarType::Float32);
        let n = a.first().map_or(0, Vec::len);
        let arg = |k: usize, i: usize| a[k].get(i).or(a[k].first()).copied().unwrap_or(0);
        let transcendental = matches!(
            b,
            Builtin::Exp
                | Builtin::Exp2
                | Builtin::Log
                | Builtin::Log2
                | Builtin::Log10
                | Builtin::Pow
                | Builtin::Sin
                | Builtin::Cos
                | Builtin::Tan
                | Builtin::Asin
                | Builtin::Acos
                | Builtin::Atan
                | Builtin::Atan2
                | Builtin::Sinh
                | Builtin::Cosh
                | Builtin::Tanh
        );
        if transcendental && s == ScalarType::Float64 {
            return Err(Error::new(
                "Vulkan has no double-precision transcendental functions",
                Some(e.span),
            ));
        }
        let each = |e: &mut Self, f: &mut dyn FnMut(&mut Self, usize) -> Word| -> Vec<Word> {
            (0..n).map(|i| f(e, i)).collect()
        };
        let t = self.scalar(s);
        Ok(match b {
            Builtin::Abs if s.is_float() => {
                each(self, &mut |e, i| e.glsl(GLOp::FAbs, t, &[arg(0, i)]))
            }
            Builtin::Abs if s.is_signed() => {
                each(self, &mut |e, i| e.glsl(GLOp::SAbs, t, &[arg(0, i)]))
            }
            Builtin::Abs => a[0].clone(),
            Builtin::Min => each(self, &mut |e, i| e.min_max(true, s, arg(0, i), arg(1, i))),
            Builtin::Max => each(self, &mut |e, i| e.min_max(false, s, arg(0, i), arg(1, i))),
            Builtin::Clamp => each(self, &mut |e, i| {
                let lo = e.min_max(false, s, arg(0, i), arg(1, i));
                e.min_max(true, s, lo, arg(2, i))
            }),
            Builtin::Saturate => each(self, &mut |e, i| {
                let (zero, one) = (e.zero(s), e.one(s));
                let lo = e.min_max(false, s, arg(0, i), zero);
                e.min_max(true, s, lo, one)
            }),
            Builtin::Sign => {
                let to = out_flat.first().copied().unwrap_or(ScalarType::Int32);
                each(self, &mut |e, i| {
                    let x = arg(0, i);
                    if s.is_float() {
                        let v = e.glsl(GLOp::FSign, t, &[x]);
                        e.convert_scalar(v, s, to)
                    } else if s.is_signed() {
                        let v = e.glsl(GLOp::SSign, t, &[x]);
                        e.convert_scalar(v, s, to)
                    } else {
                        let nz = e.convert_scalar(x, s, ScalarType::Bool);
                        e.convert_scalar(nz, ScalarType::Bool, to)
                    }
                })
            }
            Builtin::Floor => self.glsl_each(GLOp::Floor, t, &a),
            Builtin::Ceil => self.glsl_each(GLOp::Ceil, t, &a),
            Builtin::Round => self.glsl_each(GLOp::RoundEven, t, &a),
            Builtin::Trunc => self.glsl_each(GLOp::Trunc, t, &a),
            Builtin::Frac => each(self, &mut |e, i| {
                let f = e.glsl(GLOp::Floor, t, &[arg(0, i)]);
                e.op(Op::FSub, t, ids(&[arg(0, i), f]))
            }),
            Builtin::Fmod => each(self, &mut |e, i| e.float_rem(s, arg(0, i), arg(1, i))),
            Builtin::Sqrt => self.glsl_each(GLOp::Sqrt, t, &a),
            Builtin::Rsqrt => self.glsl_each(GLOp::InverseSqrt, t, &a),
            Builtin::Rcp => each(self, &mut |e, i| {
                let one = e.one(s);
                e.op(Op::FDiv, t, ids(&[one, arg(0, i)]))
            }),
            Builtin::Exp => self.glsl_each(GLOp::Exp, t, &a),
            Builtin::Exp2 => self.glsl_each(GLOp::Exp2, t, &a),
            Builtin::Log => self.glsl_each(GLOp::Log, t, &a),
            Builtin::Log2 => self.glsl_each(GLOp::Log2, t, &a),
            Builtin::Log10 => each(self, &mut |e, i| {
                let l = e.glsl(GLOp::Log2, t, &[arg(0, i)]);
                let k = e.floatc(s, std::f64::consts::LOG10_2);
                e.exact(Op::FMul, t, l, k)
            }),
            Builtin::Pow => each(self, &mut |e, i| {
                let l = e.glsl(GLOp::Log2, t, &[arg(0, i)]);
                let p = e.exact(Op::FMul, t, arg(1, i), l);
                e.glsl(GLOp::Exp2, t, &[p])
            }),
            Builtin::Sin => self.glsl_each(GLOp::Sin, t, &a),
            Builtin::Cos => self.glsl_each(GLOp::Cos, t, &a),
            Builtin::Tan => self.glsl_each(GLOp::Tan, t, &a),
            Builtin::Asin => self.glsl_each(GLOp::Asin, t, &a),
            Builtin::Acos => self.glsl_each(GLOp::Acos, t, &a),
            Builtin::Atan => self.glsl_each(GLOp::Atan, t, &a),
            Builtin::Atan2 => each(self, &mut |e, i| {
                e.glsl(GLOp::Atan2, t, &[arg(0, i), arg(1, i)])
            }),
            Builtin::Sinh => self.glsl_each(GLOp::Sinh, t, &a),
            Builtin::Cosh => self.glsl_each(GLOp::Cosh, t, &a),
            Builtin::Tanh => self.glsl_each(GLOp::Tanh, t, &a),
            Builtin::Lerp => each(self, &mut |e, i| {
                let d = e.op(Op::FSub, t, ids(&[arg(1, i), arg(0, i)]));
                let p = e.exact(Op::FMul, t, arg(2, i), d);
                e.exact(Op::FAdd, t, arg(0, i), p)
            }),
            // `!(x < y)`: 1 for a NaN, as DXC selects it.
            Builtin::Step => each(self, &mut |e, i| {
                let bool_ty = e.scalar(ScalarType::Bool);
                let lt = e.op(Op::FOrdLessThan, bool_ty, ids(&[arg(1, i), arg(0, i)]));
                let ge = e.op(Op::LogicalNot, bool_ty, ids(&[lt]));
                e.convert_scalar(ge, ScalarType::Bool, s)
            }),
            Builtin::SmoothStep => each(self, &mut |e, i| {
                e.glsl(GLOp::SmoothStep, t, &[arg(0, i), arg(1, i), arg(2, i)])
            }),
            Builtin::Mad => each(self, &mut |e, i| {
                let (mul, add) = if s.is_float() {
                    (Op::FMul, Op::FAdd)
                } else {
                    (Op::IMul, Op::IAdd)
                };
                let p = e.exact(mul, t, arg(0, i), arg(1, i));
                e.exact(add, t, p, arg(2, i))
            }),
            Builtin::Fma => each(self, &mut |e, i| {
                e.glsl(GLOp::Fma, t, &[arg(0, i), arg(1, i), arg(2, i)])
            }),
            Builtin::Dot => vec![self.dot(s, &a[0], &a[1])],
            Builtin::Cross => {
                let (x, y) = (&a[0], &a[1]);
                let mut out = Vec::new();
                for (i, j) in [(1, 2), (2, 0), (0, 1)] {
                    let p = self.exact(Op::FMul, t, x[i], y[j]);
                    let q = self.exact(Op::FMul, t, x[j], y[i]);
                    out.push(self.op(Op::FSub, t, ids(&[p, q])));
                }
                out
            }
            Builtin::Length => {
                let d = self.dot(s, &a[0], &a[0]);
                vec![self.glsl(GLOp::Sqrt, t, &[d])]
            }
            Builtin::Distance => {
                let diff: Vec<Word> = (0..n)
                    .map(|i| self.op(Op::FSub, t, ids(&[arg(0, i), arg(1, i)])))
                    .collect();
                let d = self.dot(s, &diff, &diff);
                vec![self.glsl(GLOp::Sqrt, t, &[d])]
            }
            Builtin::Normalize => {
                let d = self.dot(s, &a[0], &a[0]);
                let r = self.glsl(GLOp::InverseSqrt, t, &[d]);
                each(self, &mut |e, i| e.exact(Op::FMul, t, arg(0, i), r))
            }
            Builtin::All | Builtin::Any => {
                let bool_ty = self.scalar(ScalarType::Bool);
                let mut acc: Option<Word> = None;
                for (i, &st) in flat.iter().enumerate() {
                    let v = self.convert_scalar(arg(0, i), st, ScalarType::Bool);
                    let o = if b == Builtin::All {
                        Op::LogicalAnd
                    } else {
                        Op::LogicalOr
                    };
                    acc = Some(match acc {
                        Some(p) => self.op(o, bool_ty, ids(&[p, v])),
                        None => v,
                    });
                }
                vec![acc.unwrap_or_else(|| self.boolc(b == Builtin::All))]
            }
            Builtin::CountBits => each(self, &mut |e, i| e.count_bits(s, arg(0, i))),
            Builtin::FirstBitHigh => each(self, &mut |e, i| e.first_bit_high(s, arg(0, i))),
            Builtin::FirstBitLow => each(self, &mut |e, i| e.first_bit_low(s, arg(0, i))),
            Builtin::ReverseBits => each(self, &mut |e, i| e.reverse_bits(s, arg(0, i))),
            Builtin::F32ToF16 => each(self, &mut |e, i| {
                let u32_ty = e.scalar(ScalarType::UInt32);
                let f32_ty = e.scalar(ScalarType::Float32);
                let v2 = e.b.type_vector(f32_ty, 2);
                let zero = e.zero(ScalarType::Float32);
                let x = e.convert_scalar(arg(0, i), s, ScalarType::Float32);
                let pair = e.op(Op::CompositeConstruct, v2, ids(&[x, zero]));
                let packed = e.glsl(GLOp::PackHalf2x16, u32_ty, &[pair]);
                let ffff = e.u32c(0xFFFF);
                e.op(Op::BitwiseAnd, u32_ty, ids(&[packed, ffff]))
            }),
            Builtin::F16ToF32 => each(self, &mut |e, i| {
                let f32_ty = e.scalar(ScalarType::Float32);
                let v2 = e.b.type_vector(f32_ty, 2);
                let x = e.convert_scalar(arg(0, i), s, ScalarType::UInt32);
                let pair = e.glsl(GLOp::UnpackHalf2x16, v2, &[x]);
                e.op(
                    Op::CompositeExtract,
                    f32_ty,
                    vec![Operand::IdRef(pair), Operand::LiteralBit32(0)],
                )
            }),
            Builtin::IsNan | Builtin::IsInf | Builtin::IsFinite => each(self, &mut |e, i| {
                let bool_ty = e.scalar(ScalarType::Bool);
                let x = arg(0, i);
                match b {
                    Builtin::IsNan => e.op(Op::IsNan, bool_ty, ids(&[x])),
                    Builtin::IsInf => e.op(Op::IsInf, bool_ty, ids(&[x])),
                    _ => {
                        let nan = e.op(Op::IsNan, bool_ty, ids(&[x]));
                        let inf = e.op(Op::IsInf, bool_ty, ids(&[x]));
                        let either = e.op(Op::LogicalOr, bool_ty, ids(&[nan, inf]));
                        e.op(Op::LogicalNot, bool_ty, ids(&[either]))
                    }
                }
            }),
            Builtin::Mul => self.mul(args, &a, s, e)?,
            Builtin::Transpose => {
                let Some((rows, cols)) = shape(self.m.types.get(args[0].ty)) else {
                    return Ok(a[0].clone());
                };
                let mut out = Vec::new();
                for j in 0..cols {
                    for i in 0..rows {
                        out.push(a[0][(i * cols + j) as usize]);
                    }
                }
                out
            }
            Builtin::AsDouble => each(self, &mut |e, i| {
                let u64_ty = e.scalar(ScalarType::UInt64);
                let lo = e.op(Op::UConvert, u64_ty, ids(&[arg(0, i)]));
                let hi = e.op(Op::UConvert, u64_ty, ids(&[arg(1, i)]));
                let k32 = e.konst(ScalarType::UInt64, 32);
                let hi = e.op(Op::ShiftLeftLogical, u64_ty, ids(&[hi, k32]));
                let v = e.op(Op::BitwiseOr, u64_ty, ids(&[lo, hi]));
                e.bitcast(v, ScalarType::UInt64, ScalarType::Float64)
            }),
        })
    }

    fn glsl_each(&mut self, op: GLOp, t: Word, a: &[Vec<Word>]) -> Vec<Word> {
        a[0].clone()
            .into_iter()
            .map(|x| self.glsl(op, t, &[x]))
            .collect()
    }

    /// An arithmetic instruction the driver may not fuse with another
    /// (every float operation is `NoContraction`: [`Emitter::op`]).
    fn exact(&mut self, op: Op, t: Word, x: Word, y: Word) -> Word {
        self.op(op, t, ids(&[x, y]))
    }

    /// `min` or `max`: minNum/maxNum for floats.
    fn min_max(&mut self, min: bool, s: ScalarType, x: Word, y: Word) -> Word {
        let t = self.scalar(s);
        let op = match (min, s.is_float(), s.is_signed()) {
            (true, true, _) => GLOp::NMin,
            (false, true, _) => GLOp::NMax,
            (true, false, true) => GLOp::SMin,
            (false, false, true) => GLOp::SMax,
            (true, false, false) => GLOp::UMin,
            (false, false, false) => GLOp::UMax,
        };
        self.glsl(op, t, &[x, y])
    }

    /// The products summed left to right.
    fn dot(&mut self, s: ScalarType, x: &[Word], y: &[Word]) -> Word {
        let t = self.scalar(s);
        let (mul, add) = if s.is_float() {
            (Op::FMul, Op::FAdd)
        } else {
            (Op::IMul, Op::IAdd)
        };
        let mut acc: Option<Word> = None;
        for (&a, &b) in x.iter().zip(y) {
            let p = self.exact(mul, t, a, b);
            acc = Some(match acc {
                Some(sum) => self.exact(add, t, sum, p),
                None => p,
            });
        }
        acc.unwrap_or_else(|| self.zero(s))
    }

    fn mul(
        &mut self,
        args: &[Expr],
        a: &[Vec<Word>],
        s: ScalarType,
        e: &Expr,
    ) -> Result<Vec<Word>, Error> {
        let t = self.scalar(s);
        let mul = if s.is_float() { Op::FMul } else { Op::IMul };
        let left = shape(self.m.types.get(args[0].ty));
        let right = shape(self.m.types.get(args[1].ty));
        Ok(match (left, right) {
            (None, _) => a[1]
                .iter()
                .map(|&y| self.exact(mul, t, a[0][0], y))
                .collect(),
            (_, None) => a[0]
                .iter()
                .map(|&x| self.exact(mul, t, x, a[1][0]))
                .collect(),
            (Some((1, n)), Some((1, _)))
                if !matches!(self.m.types.get(args[1].ty), Type::Matrix { .. }) =>
            {
                let _ = n;
                vec![self.dot(s, &a[0], &a[1])]
            }
            (Some((r1, n)), Some(_)) => {
                let right_ty = self.m.types.get(args[1].ty).clone();
                // A vector on the right is a column.
                let (n2, c2) = match right_ty {
                    Type::Vector(_, k) => (u32::from(k), 1),
                    Type::Matrix { rows, cols, .. } => (u32::from(rows), u32::from(cols)),
                    _ => (0, 0),
                };
                if n != n2 {
                    return Err(Error::new("mul of mismatched shapes", Some(e.span)));
                }
                let mut out = Vec::new();
                for i in 0..r1 {
                    for j in 0..c2 {
                        let row: Vec<Word> = (0..n).map(|k| a[0][(i * n + k) as usize]).collect();
                        let col: Vec<Word> = (0..n).map(|k| a[1][(k * c2 + j) as usize]).collect();
                        out.push(self.dot(s, &row, &col));
                    }
                }
                out
            }
        })
    }

    fn count_bits(&mut self, s: ScalarType, x: Word) -> Word {
        let u32_ty = self.scalar(ScalarType::UInt32);
        match s.bits() {
            64 => {
                let (lo, hi) = self.halves(s, x);
                let a = self.op(Op::BitCount, u32_ty, ids(&[lo]));
                let b = self.op(Op::BitCount, u32_ty, ids(&[hi]));
                self.op(Op::IAdd, u32_ty, ids(&[a, b]))
            }
            _ => {
                let w = self.convert_scalar(x, s, ScalarType::UInt32);
                self.op(Op::BitCount, u32_ty, ids(&[w]))
            }
        }
    }

    /// The low and high words of a 64-bit integer.
    fn halves(&mut self, s: ScalarType, x: Word) -> (Word, Word) {
        let u32_ty = self.scalar(ScalarType::UInt32);
        let t = self.scalar(s);
        let lo = self.op(Op::UConvert, u32_ty, ids(&[x]));
        let k32 = self.konst(s, 32);
        let hi = self.op(Op::ShiftRightLogical, t, ids(&[x, k32]));
        let hi = self.op(Op::UConvert, u32_ty, ids(&[hi]));
        (lo, hi)
    }

    fn first_bit_high(&mut self, s: ScalarType, x: Word) -> Word {
        let u32_ty = self.scalar(ScalarType::UInt32);
        let bool_ty = self.scalar(ScalarType::Bool);
        let t = self.scalar(s);
        // A negative value reports its highest clear bit: the highest set
        // bit of its complement.
        let x = if s.is_signed() {
            let zero = self.zero(s);
            let neg = self.op(Op::SLessThan, bool_ty, ids(&[x, zero]));
            let inv = self.op(Op::Not, t, ids(&[x]));
            self.op(Op::Select, t, ids(&[neg, inv, x]))
        } else {
            x
        };
        if s.bits() == 64 {
            let (lo, hi) = self.halves(s, x);
            let zero = self.u32c(0);
            let k32 = self.u32c(32);
            let high = self.glsl(GLOp::FindUMsb, u32_ty, &[hi]);
            let high = self.op(Op::IAdd, u32_ty, ids(&[high, k32]));
            let low = self.glsl(GLOp::FindUMsb, u32_ty, &[lo]);
            let has_high = self.op(Op::INotEqual, bool_ty, ids(&[hi, zero]));
            self.op(Op::Select, u32_ty, ids(&[has_high, high, low]))
        } else {
            let w = self.convert_scalar(x, unsigned(s), ScalarType::UInt32);
            self.glsl(GLOp::FindUMsb, u32_ty, &[w])
        }
    }

    fn first_bit_low(&mut self, s: ScalarType, x: Word) -> Word {
        let u32_ty = self.scalar(ScalarType::UInt32);
        let bool_ty = self.scalar(ScalarType::Bool);
        if s.bits() == 64 {
            let (lo, hi) = self.halves(s, x);
            let zero = self.u32c(0);
            let k32 = self.u32c(32);
            let ones = self.u32c(u32::MAX);
            let low = self.glsl(GLOp::FindILsb, u32_ty, &[lo]);
            let high = self.glsl(GLOp::FindILsb, u32_ty, &[hi]);
            let high_at = self.op(Op::IAdd, u32_ty, ids(&[high, k32]));
            let has_hi = self.op(Op::INotEqual, bool_ty, ids(&[hi, zero]));
            let high = self.op(Op::Select, u32_ty, ids(&[has_hi, high_at, ones]));
            let has_lo = self.op(Op::INotEqual, bool_ty, ids(&[lo, zero]));
            self.op(Op::Select, u32_ty, ids(&[has_lo, low, high]))
        } else {
            let w = self.convert_scalar(x, unsigned(s), ScalarType::UInt32);
            self.glsl(GLOp::FindILsb, u32_ty, &[w])
        }
    }

    fn reverse_bits(&mut self, s: ScalarType, x: Word) -> Word {
        let u32_ty = self.scalar(ScalarType::UInt32);
        let t = self.scalar(s);
        match s.bits() {
            64 => {
                let (lo, hi) = self.halves(s, x);
                let rlo = self.op(Op::BitReverse, u32_ty, ids(&[lo]));
                let rhi = self.op(Op::BitReverse, u32_ty, ids(&[hi]));
                let new_hi = self.op(Op::UConvert, t, ids(&[rlo]));
                let new_lo = self.op(Op::UConvert, t, ids(&[rhi]));
                let k32 = self.konst(s, 32);
                let new_hi = self.op(Op::ShiftLeftLogical, t, ids(&[new_hi, k32]));
                self.op(Op::BitwiseOr, t, ids(&[new_hi, new_lo]))
            }
            16 => {
                let w = self.convert_scalar(x, unsigned(s), ScalarType::UInt32);
                let r = self.op(Op::BitReverse, u32_ty, ids(&[w]));
                let k16 = self.u32c(16);
                let r = self.op(Op::ShiftRightLogical, u32_ty, ids(&[r, k16]));
                self.op(Op::UConvert, t, ids(&[r]))
            }
            _ => self.op(Op::BitReverse, t, ids(&[x])),
        }
    }
}

/// The unsigned integer type of `s`'s width.
fn unsigned(s: ScalarType) -> ScalarType {
    match s.bits() {
        16 => ScalarType::UInt16,
        64 => ScalarType::UInt64,
        _ => ScalarType::UInt32,
    }
}
