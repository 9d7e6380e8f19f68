//! Per-lane arithmetic: picks the monomorphised lane loop for an operator
//! and a scalar type. The semantics themselves come from `lockstep-wave`.
//!
//! Every lane loop exists twice: compiled for the baseline instruction set
//! (`base`) and, on x86-64, for AVX2 (`avx2`, picked at run time when the
//! CPU has it). Both come from the same source, `alu/loops.rs`, and give
//! the same bits: AVX2 only widens the vectors the loops are compiled to
//! (it does not allow fused multiply-adds or other contractions).

use crate::bytecode::{
    BinaryFn, BinaryImmFn, Op32, Slot32Fn, Slot32ImmFn, Slot32SelectFn, TernaryFn, UnaryFn,
};
use lockstep_ir::{BinaryOp, Builtin, ScalarType, UnaryOp};

pub(crate) use crate::simd::avx2_available;

/// A component-wise builtin's lane loop, by arity.
pub enum BuiltinFn {
    Unary(UnaryFn),
    Binary(BinaryFn),
    Ternary(TernaryFn),
}

/// The lane loops for the baseline instruction set.
pub(crate) mod base {
    use crate::bytecode::{
        BinaryFn, BinaryImmFn, Op32, Slot32Fn, Slot32ImmFn, Slot32SelectFn, UnaryFn,
    };
    use crate::value::{Val, convert_bits};
    use crate::{with_arith, with_float, with_int, with_scalar};
    use lockstep_ir::{BinaryOp, Builtin, ScalarType, UnaryOp};
    use lockstep_wave::{Arith, Bits, Float, ops};

    use super::BuiltinFn;

    #[inline(always)]
    fn isa(f: impl FnOnce()) {
        f()
    }

    include!("alu/loops.rs");
}

/// The lane loops compiled for AVX2: only handed out when the CPU has it.
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use crate::bytecode::{
        BinaryFn, BinaryImmFn, Op32, Slot32Fn, Slot32ImmFn, Slot32SelectFn, UnaryFn,
    };
    use crate::value::{Val, convert_bits};
    use crate::{with_arith, with_float, with_int, with_scalar};
    use lockstep_ir::{BinaryOp, Builtin, ScalarType, UnaryOp};
    use lockstep_wave::{Arith, Bits, Float, ops};

    use super::BuiltinFn;

    #[inline(always)]
    fn isa(f: impl FnOnce()) {
        // SAFETY: this module's functions are only picked (by `super::unary`
        // and the others) when `avx2_available()` found AVX2 on this CPU.
        unsafe { crate::simd::with_avx2(f) }
    }

    include!("alu/loops.rs");
}

/// Picks `f` from the AVX2 lane loops when the CPU has AVX2, else from the
/// baseline ones.
macro_rules! pick {
    ($name:ident($($arg:expr),*)) => {{
        #[cfg(target_arch = "x86_64")]
        {
            if avx2_available() {
                avx2::$name($($arg),*)
            } else {
                base::$name($($arg),*)
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            base::$name($($arg),*)
        }
    }};
}

/// The binary operators that are an [`Op32`] on `int` or `uint` (tests
/// run each of them).
#[cfg(test)]
pub(crate) const WHOLE_LANE_OPS: [BinaryOp; 16] = {
    use BinaryOp as B;
    [
        B::Add,
        B::Sub,
        B::Mul,
        B::Div,
        B::Rem,
        B::Shl,
        B::Shr,
        B::BitAnd,
        B::BitOr,
        B::BitXor,
        B::Eq,
        B::Ne,
        B::Lt,
        B::Le,
        B::Gt,
        B::Ge,
    ]
};

/// The binary operators that are an [`Op32`] on `float`.
#[cfg(test)]
pub(crate) const FLOAT_OPS: [BinaryOp; 10] = {
    use BinaryOp as B;
    [
        B::Add,
        B::Sub,
        B::Mul,
        B::Div,
        B::Eq,
        B::Ne,
        B::Lt,
        B::Le,
        B::Gt,
        B::Ge,
    ]
};

/// The builtins that are an [`Op32`] on each of the 32-bit types (tests
/// run each of them).
#[cfg(test)]
pub(crate) fn op32_builtins() -> Vec<(Builtin, ScalarType)> {
    let types = [ScalarType::UInt32, ScalarType::Int32, ScalarType::Float32];
    types
        .iter()
        .flat_map(|&ty| [(Builtin::Min, ty), (Builtin::Max, ty)])
        .collect()
}

/// The one-operand [`Op32`]s, each with the lane loop its instruction
/// has: negation, `~`, `abs` and the conversions (tests run each of them).
#[cfg(test)]
pub(crate) fn op32_unaries() -> Vec<(UnaryFn, Op32)> {
    use ScalarType as S;
    let mut all = Vec::new();
    for ty in [S::UInt32, S::Int32, S::Float32] {
        for op in [UnaryOp::Neg, UnaryOp::BitNot] {
            if let (Some(f), Some(op32)) = (unary(op, ty), unary_op32(op, ty)) {
                all.push((f, op32));
            }
        }
        for b in [
            Builtin::Abs,
            Builtin::Sqrt,
            Builtin::Floor,
            Builtin::Ceil,
            Builtin::Trunc,
            Builtin::Round,
            Builtin::CountBits,
            Builtin::ReverseBits,
            Builtin::FirstBitLow,
            Builtin::FirstBitHigh,
            Builtin::F32ToF16,
            Builtin::F16ToF32,
        ] {
            if let (Some(BuiltinFn::Unary(f)), Some(op32)) = (builtin(b, ty), builtin_op32(b, ty)) {
                all.push((f, op32));
            }
        }
    }
    for (from, to) in [
        (S::Int32, S::Float32),
        (S::UInt32, S::Float32),
        (S::Float32, S::Int32),
        (S::Float32, S::UInt32),
    ] {
        all.push((
            convert(from, to),
            convert_op32(from, to).expect("a conversion"),
        ));
    }
    all
}

/// Every operator and type that make an [`Op32`]: the integer operators on
/// `uint`, then on `int`, then the `float` ones.
#[cfg(test)]
pub(crate) fn op32_forms() -> Vec<(BinaryOp, ScalarType)> {
    let ints = [ScalarType::UInt32, ScalarType::Int32];
    ints.iter()
        .flat_map(|&ty| WHOLE_LANE_OPS.map(|op| (op, ty)))
        .chain(FLOAT_OPS.map(|op| (op, ScalarType::Float32)))
        .collect()
}

/// `op` on `ty` as an [`Op32`], when it is one.
pub fn op32(op: BinaryOp, ty: ScalarType) -> Option<Op32> {
    use BinaryOp as B;
    let unsigned = ty == ScalarType::UInt32;
    if ty == ScalarType::Float32 {
        return Some(match op {
            B::Add => Op32::FAdd,
            B::Sub => Op32::FSub,
            B::Mul => Op32::FMul,
            B::Div => Op32::FDiv,
            B::Eq => Op32::FEq,
            B::Ne => Op32::FNe,
            B::Lt => Op32::FLt,
            B::Le => Op32::FLe,
            B::Gt => Op32::FGt,
            B::Ge => Op32::FGe,
            _ => return None,
        });
    }
    if !matches!(ty, ScalarType::Int32 | ScalarType::UInt32) {
        return None;
    }
    Some(match op {
        B::Add => Op32::Add,
        B::Sub => Op32::Sub,
        B::Mul => Op32::Mul,
        B::Div if unsigned => Op32::UDiv,
        B::Rem if unsigned => Op32::URem,
        B::Div => Op32::SDiv,
        B::Rem => Op32::SRem,
        B::Shl => Op32::Shl,
        B::Shr if unsigned => Op32::ShrU,
        B::Shr => Op32::ShrS,
        B::BitAnd => Op32::And,
        B::BitOr => Op32::Or,
        B::BitXor => Op32::Xor,
        B::Eq => Op32::Eq,
        B::Ne => Op32::Ne,
        B::Lt if unsigned => Op32::LtU,
        B::Le if unsigned => Op32::LeU,
        B::Gt if unsigned => Op32::GtU,
        B::Ge if unsigned => Op32::GeU,
        B::Lt => Op32::LtS,
        B::Le => Op32::LeS,
        B::Gt => Op32::GtS,
        B::Ge => Op32::GeS,
        _ => return None,
    })
}

/// The unary operator `op` on `ty` as an [`Op32`], when it is one.
pub fn unary_op32(op: UnaryOp, ty: ScalarType) -> Option<Op32> {
    use ScalarType as S;
    Some(match (op, ty) {
        (UnaryOp::Neg, S::Int32 | S::UInt32) => Op32::INeg,
        (UnaryOp::Neg, S::Float32) => Op32::FNeg,
        (UnaryOp::BitNot, S::Int32 | S::UInt32) => Op32::Not,
        _ => return None,
    })
}

/// The conversion from `from` to `to` as an [`Op32`], when it is one.
pub fn convert_op32(from: ScalarType, to: ScalarType) -> Option<Op32> {
    use ScalarType as S;
    Some(match (from, to) {
        (S::Int32, S::Float32) => Op32::IToF,
        (S::UInt32, S::Float32) => Op32::UToF,
        (S::Float32, S::Int32) => Op32::FToI,
        (S::Float32, S::UInt32) => Op32::FToU,
        _ => return None,
    })
}

/// The builtin `b` on `ty` as an [`Op32`], when it is one (`min` and
/// `max` on the 32-bit types, `abs` on `int` and `float`, `sqrt`,
/// `floor`, `ceil`, `trunc` and `round` on `float`).
pub fn builtin_op32(b: Builtin, ty: ScalarType) -> Option<Op32> {
    use ScalarType as S;
    Some(match (b, ty) {
        (Builtin::Abs, S::Int32) => Op32::IAbs,
        (Builtin::Abs, S::Float32) => Op32::FAbs,
        (Builtin::Sqrt, S::Float32) => Op32::FSqrt,
        (Builtin::Floor, S::Float32) => Op32::FFloor,
        (Builtin::Ceil, S::Float32) => Op32::FCeil,
        (Builtin::Trunc, S::Float32) => Op32::FTrunc,
        (Builtin::Round, S::Float32) => Op32::FRound,
        (Builtin::CountBits, S::UInt32 | S::Int32) => Op32::CountBits,
        (Builtin::ReverseBits, S::UInt32 | S::Int32) => Op32::ReverseBits,
        (Builtin::FirstBitLow, S::UInt32 | S::Int32) => Op32::FirstBitLow,
        (Builtin::FirstBitHigh, S::UInt32) => Op32::FirstBitHighU,
        (Builtin::FirstBitHigh, S::Int32) => Op32::FirstBitHighS,
        (Builtin::F32ToF16, S::Float32) => Op32::F32ToF16,
        (Builtin::F16ToF32, S::UInt32) => Op32::F16ToF32,
        (Builtin::Min, S::UInt32) => Op32::UMin,
        (Builtin::Max, S::UInt32) => Op32::UMax,
        (Builtin::Min, S::Int32) => Op32::SMin,
        (Builtin::Max, S::Int32) => Op32::SMax,
        (Builtin::Min, S::Float32) => Op32::FMin,
        (Builtin::Max, S::Float32) => Op32::FMax,
        _ => return None,
    })
}

/// The loops of `op` on a [`crate::bytecode::Block32`]'s 32-bit slots
/// (`None` for [`Op32::Select`]: see [`select32`]).
pub fn slot32(op: Op32) -> Option<(Slot32Fn, Slot32ImmFn)> {
    pick!(slot32(op))
}

/// The loop of [`Op32::Select`] on a block's slots.
pub fn select32() -> Slot32SelectFn {
    pick!(select32_fn())
}

pub fn unary(op: UnaryOp, ty: ScalarType) -> Option<UnaryFn> {
    pick!(unary(op, ty))
}

pub fn binary(op: BinaryOp, ty: ScalarType) -> Option<BinaryFn> {
    pick!(binary(op, ty))
}

/// The lane loop of `op` on `ty` with a constant second operand, where
/// there is one.
pub fn binary_imm(op: BinaryOp, ty: ScalarType) -> Option<BinaryImmFn> {
    pick!(binary_imm(op, ty))
}

/// The lane loop of a component-wise builtin whose (first) argument has
/// scalar type `ty`; `None` for builtins the compiler expands itself or for
/// types the builtin does not take.
pub fn builtin(b: Builtin, ty: ScalarType) -> Option<BuiltinFn> {
    pick!(builtin(b, ty))
}

/// A conversion between scalar types (HLSL rules, see
/// [`crate::value::convert_bits`]), as a lane loop specialised for the
/// type pair.
pub fn convert(from: ScalarType, to: ScalarType) -> UnaryFn {
    pick!(convert(from, to))
}

/// Reinterprets bits between types of one width: the register already holds
/// the bit pattern, so only the width's mask matters.
pub fn bitcast(to: ScalarType) -> UnaryFn {
    pick!(bitcast(to))
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    //! The AVX2 lane loops against the baseline ones, bit for bit, on
    //! values that include NaNs with payloads, signed zeros, infinities,
    //! subnormals and the integer extremes.

    use super::*;
    use lockstep_ir::{BinaryOp as B, Builtin as F, UnaryOp as U};

    const TYPES: [ScalarType; 10] = [
        ScalarType::Bool,
        ScalarType::Int16,
        ScalarType::UInt16,
        ScalarType::Int32,
        ScalarType::UInt32,
        ScalarType::Int64,
        ScalarType::UInt64,
        ScalarType::Float16,
        ScalarType::Float32,
        ScalarType::Float64,
    ];

    /// 128 register lanes of `ty` (canonical: zero-extended bits), from
    /// edge values and a generator seeded with `seed`.
    fn lanes(ty: ScalarType, seed: u64) -> Vec<u64> {
        let edges: &[u64] = match ty {
            ScalarType::Float16 => &[
                0x7E00, 0x7E01, 0xFE00, 0x8000, 0, 0x7C00, 0xFC00, 1, 0x7BFF, 0x3C00,
            ],
            ScalarType::Float32 => &[
                0x7FC0_0000,
                0x7FC0_0001,
                0xFFC0_0000,
                0x8000_0000,
                0,
                0x7F80_0000,
                0xFF80_0000,
                1,
                0x7F7F_FFFF,
                0x3F80_0000,
            ],
            ScalarType::Float64 => &[
                0x7FF8_0000_0000_0000,
                0x7FF8_0000_0000_0001,
                0xFFF8_0000_0000_0000,
                1 << 63,
                0,
                0x7FF0_0000_0000_0000,
                0xFFF0_0000_0000_0000,
                1,
                0x7FEF_FFFF_FFFF_FFFF,
                0x3FF0_0000_0000_0000,
            ],
            _ => &[
                0,
                1,
                2,
                31,
                32,
                33,
                63,
                64,
                u64::MAX,
                1 << 15,
                1 << 31,
                1 << 63,
            ],
        };
        let mask = match ty.size() {
            _ if ty == ScalarType::Bool => 1,
            2 => 0xFFFF,
            4 => 0xFFFF_FFFF,
            _ => u64::MAX,
        };
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..128)
            .map(|l| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let bits = if l % 3 == 0 {
                    edges[(state as usize) % edges.len()]
                } else {
                    state
                };
                let bits = match ty {
                    // Floats near 1 as often as anywhere.
                    ScalarType::Float32 if l % 3 == 1 => 0x3F00_0000 | (bits & 0x00FF_FFFF),
                    _ => bits,
                };
                bits & mask
            })
            .collect()
    }

    type Run<'a> = dyn Fn(&mut [u64], Option<&[u64]>) + 'a;

    /// Runs the baseline loop and the AVX2 loop on every lane and under a
    /// mask: the two agree, and the masked run writes exactly the kept
    /// lanes, with the values of the unmasked run.
    fn same(name: &str, ty: ScalarType, base: &Run, avx2: &Run) {
        let (mut x, mut y) = (vec![0; 128], vec![0; 128]);
        base(&mut x, None);
        avx2(&mut y, None);
        assert_eq!(
            x, y,
            "{name} on {ty:?}: the AVX2 loop differs from the baseline"
        );
        let keep: Vec<u64> = (0..128u64)
            .map(|l| if (l * 7) % 5 < 2 { u64::MAX } else { 0 })
            .collect();
        let old: Vec<u64> = (0..128u64).map(|l| 0xA5A5_0000 + l).collect();
        for run in [base, avx2] {
            let mut m = old.clone();
            run(&mut m, Some(&keep));
            for l in 0..128 {
                let want = if keep[l] != 0 { x[l] } else { old[l] };
                assert_eq!(m[l], want, "{name} on {ty:?}, masked, lane {l}");
            }
        }
    }

    #[test]
    fn avx2_lane_loops_match_the_baseline() {
        if !std::is_x86_feature_detected!("avx2") {
            return;
        }
        let mut checked = 0;
        for (k, ty) in TYPES.into_iter().enumerate() {
            let seed = k as u64 * 3;
            let (a, b, c) = (
                lanes(ty, seed + 1),
                lanes(ty, seed + 2),
                lanes(ty, seed + 3),
            );
            for op in [U::Neg, U::Not, U::BitNot] {
                if let (Some(f), Some(g)) = (base::unary(op, ty), avx2::unary(op, ty)) {
                    same(&format!("{op:?}"), ty, &|d, k| f(d, &a, k), &|d, k| {
                        g(d, &a, k)
                    });
                    checked += 1;
                }
            }
            for op in [
                B::Add,
                B::Sub,
                B::Mul,
                B::Div,
                B::Rem,
                B::Shl,
                B::Shr,
                B::BitAnd,
                B::BitOr,
                B::BitXor,
                B::And,
                B::Or,
                B::Eq,
                B::Ne,
                B::Lt,
                B::Le,
                B::Gt,
                B::Ge,
            ] {
                if let (Some(f), Some(g)) = (base::binary(op, ty), avx2::binary(op, ty)) {
                    same(&format!("{op:?}"), ty, &|d, k| f(d, &a, &b, k), &|d, k| {
                        g(d, &a, &b, k)
                    });
                    checked += 1;
                }
            }
            for op in [
                F::Abs,
                F::Min,
                F::Max,
                F::Clamp,
                F::Saturate,
                F::Sign,
                F::Floor,
                F::Ceil,
                F::Round,
                F::Trunc,
                F::Frac,
                F::Fmod,
                F::Sqrt,
                F::Rsqrt,
                F::Rcp,
                F::Exp,
                F::Exp2,
                F::Log,
                F::Log2,
                F::Log10,
                F::Pow,
                F::Sin,
                F::Cos,
                F::Tan,
                F::Asin,
                F::Acos,
                F::Atan,
                F::Atan2,
                F::Sinh,
                F::Cosh,
                F::Tanh,
                F::Lerp,
                F::Step,
                F::SmoothStep,
                F::Mad,
                F::Fma,
                F::CountBits,
                F::FirstBitHigh,
                F::FirstBitLow,
                F::ReverseBits,
                F::F32ToF16,
                F::F16ToF32,
                F::IsNan,
                F::IsInf,
                F::IsFinite,
                F::AsDouble,
            ] {
                let name = format!("{op:?}");
                match (base::builtin(op, ty), avx2::builtin(op, ty)) {
                    (Some(BuiltinFn::Unary(f)), Some(BuiltinFn::Unary(g))) => {
                        same(&name, ty, &|d, k| f(d, &a, k), &|d, k| g(d, &a, k))
                    }
                    (Some(BuiltinFn::Binary(f)), Some(BuiltinFn::Binary(g))) => {
                        same(&name, ty, &|d, k| f(d, &a, &b, k), &|d, k| g(d, &a, &b, k))
                    }
                    (Some(BuiltinFn::Ternary(f)), Some(BuiltinFn::Ternary(g))) => {
                        same(&name, ty, &|d, k| f(d, &a, &b, &c, k), &|d, k| {
                            g(d, &a, &b, &c, k)
                        })
                    }
                    (None, None) => continue,
                    _ => panic!("{name} on {ty:?}: the two instruction sets disagree on its arity"),
                }
                checked += 1;
            }
            for to in TYPES {
                let (f, g) = (base::convert(ty, to), avx2::convert(ty, to));
                same(
                    &format!("convert to {to:?}"),
                    ty,
                    &|d, k| f(d, &a, k),
                    &|d, k| g(d, &a, k),
                );
                let (f, g) = (base::bitcast(to), avx2::bitcast(to));
                same(
                    &format!("bitcast to {to:?}"),
                    ty,
                    &|d, k| f(d, &a, k),
                    &|d, k| g(d, &a, k),
                );
                checked += 2;
            }
        }
        // Every type has its conversions, and most ops take some type.
        assert!(checked > 400, "only {checked} lane loops compared");
    }
}
