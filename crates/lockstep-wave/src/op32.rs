//! The 32-bit lane operations: one enum for the bytecode's blocks, the
//! interpreter's lane loops and the machine code, with their semantics
//! ([`Op32::eval`], on this crate's arithmetic) and properties in one
//! place. A new operation is added here, and every `match` on it (none
//! has a catch-all arm) asks for it.

use crate::{Arith, convert, ops};

/// An operation on two 32-bit lanes, with the engine's results: wrapping
/// arithmetic, shift counts taken modulo 32, and comparisons giving 1 or 0.
/// The `U` forms take the words as unsigned numbers, the `S` forms as
/// two's-complement signed ones (`ShrS` shifts the sign bit in), the `F`
/// forms as IEEE single-precision numbers: arithmetic rounded to nearest
/// with subnormals kept, a NaN result being the first operand's NaN,
/// quieted, else the second's, else `0xFFC0_0000`; comparisons false
/// where a NaN is involved, except `FNe`. `FMin` and `FMax` are IEEE
/// minNum and maxNum: a NaN loses to a number (of two NaNs, the second
/// is the result), and -0 is below +0.
///
/// `Not`, `INeg`, `IAbs`, `FNeg`, `FAbs`, the conversions and `FSqrt`
/// take one operand and ignore the second: `~`, wrapping negation and
/// `abs`, the sign bit flipped or cleared, `int`/`uint` to `float` rounded
/// to nearest, `float` to `int`/`uint` truncated and saturated (NaN gives
/// 0), the square root rounded to nearest (a NaN quieted, the default
/// NaN below -0), and `FFloor`, `FCeil`, `FTrunc`, `FRound` (to an
/// integer, ties to even; a NaN quieted, the sign of a zero kept).
/// `CountBits`, `ReverseBits`, `FirstBitLow` and `FirstBitHighU` are
/// HLSL's `countbits`, `reversebits`, `firstbitlow` and `firstbithigh` on
/// the word, `FirstBitHighS` is `firstbithigh` on a signed word (the
/// highest bit that differs from the sign bit); a `firstbit` with no such
/// bit gives `0xFFFF_FFFF`.
///
/// `Select` takes three: `a != 0 ? b : c` (`b` a value, not a constant).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op32 {
    /// `a + b`, wrapping.
    Add,
    /// `a - b`, wrapping.
    Sub,
    /// `a * b`, wrapping (the low 32 bits).
    Mul,
    /// `a / b`, unsigned; all ones where `b` is 0.
    UDiv,
    /// `a % b`, unsigned; all ones where `b` is 0.
    URem,
    /// `a / b`, signed, rounded toward zero (the minimum over -1 wraps to
    /// itself); all ones where `b` is 0.
    SDiv,
    /// `a % b`, signed, with the sign of `a` (0 for the minimum over -1);
    /// all ones where `b` is 0.
    SRem,
    /// `a << b`, the count taken modulo 32.
    Shl,
    /// `a >> b` with zeros shifted in.
    ShrU,
    /// `a >> b` with the sign bit shifted in.
    ShrS,
    /// `a & b`.
    And,
    /// `a | b`.
    Or,
    /// `a ^ b`.
    Xor,
    /// `a == b`.
    Eq,
    /// `a != b`.
    Ne,
    /// `a < b`, unsigned.
    LtU,
    /// `a <= b`, unsigned.
    LeU,
    /// `a > b`, unsigned.
    GtU,
    /// `a >= b`, unsigned.
    GeU,
    /// `a < b`, signed.
    LtS,
    /// `a <= b`, signed.
    LeS,
    /// `a > b`, signed.
    GtS,
    /// `a >= b`, signed.
    GeS,
    /// `a + b` as floats.
    FAdd,
    /// `a - b` as floats.
    FSub,
    /// `a * b` as floats.
    FMul,
    /// `a / b` as floats.
    FDiv,
    /// `a == b` as floats (false where a NaN is involved).
    FEq,
    /// `a != b` as floats (true where a NaN is involved).
    FNe,
    /// `a < b` as floats.
    FLt,
    /// `a <= b` as floats.
    FLe,
    /// `a > b` as floats.
    FGt,
    /// `a >= b` as floats.
    FGe,
    /// The smaller of `a` and `b`, unsigned.
    UMin,
    /// The larger of `a` and `b`, unsigned.
    UMax,
    /// The smaller of `a` and `b`, signed.
    SMin,
    /// The larger of `a` and `b`, signed.
    SMax,
    /// IEEE minNum of `a` and `b` as floats.
    FMin,
    /// IEEE maxNum of `a` and `b` as floats.
    FMax,
    /// `~a`.
    Not,
    /// `-a`, wrapping.
    INeg,
    /// `abs(a)` of a signed word, wrapping.
    IAbs,
    /// `-a` as a float: the sign bit flipped.
    FNeg,
    /// `abs(a)` as a float: the sign bit cleared.
    FAbs,
    /// `int` to `float`, rounded to nearest.
    IToF,
    /// `uint` to `float`, rounded to nearest.
    UToF,
    /// `float` to `int`, truncated and saturated (NaN gives 0).
    FToI,
    /// `float` to `uint`, truncated and saturated (NaN gives 0).
    FToU,
    /// `sqrt(a)` as a float, rounded to nearest.
    FSqrt,
    /// `floor(a)` as a float.
    FFloor,
    /// `ceil(a)` as a float.
    FCeil,
    /// `trunc(a)` as a float.
    FTrunc,
    /// `a` as a float rounded to an integer, ties to even.
    FRound,
    /// `countbits(a)`.
    CountBits,
    /// `reversebits(a)`.
    ReverseBits,
    /// `firstbitlow(a)`.
    FirstBitLow,
    /// `firstbithigh(a)` of an unsigned word.
    FirstBitHighU,
    /// `firstbithigh(a)` of a signed word: the highest bit that differs from the sign bit.
    FirstBitHighS,
    /// `f32tof16(a)`: the binary16 bits of float `a`, rounded to nearest
    /// even, in the low 16 bits; a NaN quieted, with the top 10 bits of its
    /// payload.
    F32ToF16,
    /// `f16tof32(a)`: the binary16 value in the low 16 bits of `a`, exactly
    /// (a NaN quieted).
    F16ToF32,
    /// `a != 0 ? b : c`.
    Select,
}

impl Op32 {
    /// Every operation, in declaration order.
    pub const ALL: [Op32; 61] = {
        use Op32 as O;
        [
            O::Add,
            O::Sub,
            O::Mul,
            O::UDiv,
            O::URem,
            O::SDiv,
            O::SRem,
            O::Shl,
            O::ShrU,
            O::ShrS,
            O::And,
            O::Or,
            O::Xor,
            O::Eq,
            O::Ne,
            O::LtU,
            O::LeU,
            O::GtU,
            O::GeU,
            O::LtS,
            O::LeS,
            O::GtS,
            O::GeS,
            O::FAdd,
            O::FSub,
            O::FMul,
            O::FDiv,
            O::FEq,
            O::FNe,
            O::FLt,
            O::FLe,
            O::FGt,
            O::FGe,
            O::UMin,
            O::UMax,
            O::SMin,
            O::SMax,
            O::FMin,
            O::FMax,
            O::Not,
            O::INeg,
            O::IAbs,
            O::FNeg,
            O::FAbs,
            O::IToF,
            O::UToF,
            O::FToI,
            O::FToU,
            O::FSqrt,
            O::FFloor,
            O::FCeil,
            O::FTrunc,
            O::FRound,
            O::CountBits,
            O::ReverseBits,
            O::FirstBitLow,
            O::FirstBitHighU,
            O::FirstBitHighS,
            O::F32ToF16,
            O::F16ToF32,
            O::Select,
        ]
    };

    /// The operation on one lane: `a` and `b` (the second ignored by the
    /// one-operand operations), and `c` for [`Op32::Select`] alone.
    #[inline(always)]
    pub fn eval(self, a: u32, b: u32, c: u32) -> u32 {
        use Op32 as O;
        let f = f32::from_bits;
        match self {
            O::Add => a.wrapping_add(b),
            O::Sub => a.wrapping_sub(b),
            O::Mul => a.wrapping_mul(b),
            O::UDiv => Arith::div(a, b),
            O::URem => Arith::rem(a, b),
            O::SDiv => Arith::div(a as i32, b as i32) as u32,
            O::SRem => Arith::rem(a as i32, b as i32) as u32,
            O::Shl => a << (b & 31),
            O::ShrU => a >> (b & 31),
            O::ShrS => ((a as i32) >> (b & 31)) as u32,
            O::And => a & b,
            O::Or => a | b,
            O::Xor => a ^ b,
            O::Eq => u32::from(a == b),
            O::Ne => u32::from(a != b),
            O::LtU => u32::from(a < b),
            O::LeU => u32::from(a <= b),
            O::GtU => u32::from(a > b),
            O::GeU => u32::from(a >= b),
            O::LtS => u32::from((a as i32) < (b as i32)),
            O::LeS => u32::from((a as i32) <= (b as i32)),
            O::GtS => u32::from((a as i32) > (b as i32)),
            O::GeS => u32::from((a as i32) >= (b as i32)),
            O::FAdd => Arith::add(f(a), f(b)).to_bits(),
            O::FSub => Arith::sub(f(a), f(b)).to_bits(),
            O::FMul => Arith::mul(f(a), f(b)).to_bits(),
            O::FDiv => Arith::div(f(a), f(b)).to_bits(),
            O::FEq => u32::from(f(a) == f(b)),
            O::FNe => u32::from(f(a) != f(b)),
            O::FLt => u32::from(f(a) < f(b)),
            O::FLe => u32::from(f(a) <= f(b)),
            O::FGt => u32::from(f(a) > f(b)),
            O::FGe => u32::from(f(a) >= f(b)),
            O::UMin => Ord::min(a, b),
            O::UMax => Ord::max(a, b),
            O::SMin => Ord::min(a as i32, b as i32) as u32,
            O::SMax => Ord::max(a as i32, b as i32) as u32,
            O::FMin => Arith::min(f(a), f(b)).to_bits(),
            O::FMax => Arith::max(f(a), f(b)).to_bits(),
            O::Not => !a,
            O::INeg => a.wrapping_neg(),
            O::IAbs => Arith::abs(a as i32) as u32,
            O::FNeg => Arith::neg(f(a)).to_bits(),
            O::FAbs => Arith::abs(f(a)).to_bits(),
            O::IToF => convert::<f32, i32>(a as i32).to_bits(),
            O::UToF => convert::<f32, u32>(a).to_bits(),
            O::FToI => convert::<i32, f32>(f(a)) as u32,
            O::FToU => convert::<u32, f32>(f(a)),
            O::FSqrt => ops::sqrt(f(a)).to_bits(),
            O::FFloor => ops::floor(f(a)).to_bits(),
            O::FCeil => ops::ceil(f(a)).to_bits(),
            O::FTrunc => ops::trunc(f(a)).to_bits(),
            O::FRound => ops::round(f(a)).to_bits(),
            O::CountBits => ops::countbits(a),
            O::ReverseBits => ops::reversebits(a),
            O::FirstBitLow => ops::firstbitlow(a),
            O::FirstBitHighU => ops::firstbithigh(a),
            O::FirstBitHighS => ops::firstbithigh(a as i32),
            O::F32ToF16 => ops::f32tof16(f(a)),
            O::F16ToF32 => ops::f16tof32(a).to_bits(),
            O::Select => {
                if a != 0 {
                    b
                } else {
                    c
                }
            }
        }
    }

    /// Whether the operation takes one operand (and ignores the second).
    pub fn is_unary(self) -> bool {
        use Op32 as O;
        matches!(
            self,
            O::Not
                | O::INeg
                | O::IAbs
                | O::FNeg
                | O::FAbs
                | O::IToF
                | O::UToF
                | O::FToI
                | O::FToU
                | O::FSqrt
                | O::FFloor
                | O::FCeil
                | O::FTrunc
                | O::FRound
                | O::CountBits
                | O::ReverseBits
                | O::FirstBitLow
                | O::FirstBitHighU
                | O::FirstBitHighS
                | O::F32ToF16
                | O::F16ToF32
        )
    }
    /// Whether `op(a, b)` is `op(b, a)` (for `float`, up to which of two
    /// NaNs comes out).
    pub fn commutes(self) -> bool {
        use Op32 as O;
        matches!(
            self,
            O::Add
                | O::Mul
                | O::And
                | O::Or
                | O::Xor
                | O::Eq
                | O::Ne
                | O::UMin
                | O::UMax
                | O::SMin
                | O::SMax
                | O::FAdd
                | O::FMul
                | O::FEq
                | O::FNe
                | O::FMin
                | O::FMax
        )
    }

    /// Whether the operation takes `float` operands.
    pub fn is_float(self) -> bool {
        use Op32 as O;
        matches!(
            self,
            O::FAdd
                | O::FSub
                | O::FMul
                | O::FDiv
                | O::FEq
                | O::FNe
                | O::FLt
                | O::FLe
                | O::FGt
                | O::FGe
                | O::FMin
                | O::FMax
                | O::FNeg
                | O::FAbs
                | O::FToI
                | O::FToU
                | O::FSqrt
                | O::FFloor
                | O::FCeil
                | O::FTrunc
                | O::FRound
                | O::F32ToF16
        )
    }
}
