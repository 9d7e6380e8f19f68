// The lane loops and the functions that pick them. This file is included
// once per instruction set (see `alu.rs`): `isa` runs a loop compiled for
// that set.

/// A lane's new value where `keep` is all ones, its old one where it is 0.
#[inline(always)]
fn blend_lane(old: u64, new: u64, keep: u64) -> u64 {
    (old & !keep) | (new & keep)
}

// `map1`, `map2` and `map3` write `f` of the operands to every lane of
// `dst`, or, given `keep` (all ones or 0 per lane), to the lanes where it is
// all ones: a masked write in the same pass.

#[inline(always)]
fn map1<A: Val, R: Val>(dst: &mut [u64], a: &[u64], keep: Option<&[u64]>, f: impl Fn(A) -> R) {
    let f = |x: u64| f(A::from_lane(x)).to_lane();
    isa(
        #[inline(always)]
        || match keep {
            None => dst.iter_mut().zip(a).for_each(|(d, &x)| *d = f(x)),
            Some(k) => {
                for ((d, &x), &k) in dst.iter_mut().zip(a).zip(k) {
                    *d = blend_lane(*d, f(x), k);
                }
            }
        },
    )
}

#[inline(always)]
fn map2<A: Val, R: Val>(
    dst: &mut [u64],
    a: &[u64],
    b: &[u64],
    keep: Option<&[u64]>,
    f: impl Fn(A, A) -> R,
) {
    let f = |x: u64, y: u64| f(A::from_lane(x), A::from_lane(y)).to_lane();
    isa(
        #[inline(always)]
        || match keep {
            None => {
                for ((d, &x), &y) in dst.iter_mut().zip(a).zip(b) {
                    *d = f(x, y);
                }
            }
            Some(k) => {
                for (((d, &x), &y), &k) in dst.iter_mut().zip(a).zip(b).zip(k) {
                    *d = blend_lane(*d, f(x, y), k);
                }
            }
        },
    )
}

#[inline(always)]
fn map3<A: Val, R: Val>(
    dst: &mut [u64],
    a: &[u64],
    b: &[u64],
    c: &[u64],
    keep: Option<&[u64]>,
    f: impl Fn(A, A, A) -> R,
) {
    let f = |x: u64, y: u64, z: u64| f(A::from_lane(x), A::from_lane(y), A::from_lane(z)).to_lane();
    isa(
        #[inline(always)]
        || match keep {
            None => {
                for (((d, &x), &y), &z) in dst.iter_mut().zip(a).zip(b).zip(c) {
                    *d = f(x, y, z);
                }
            }
            Some(k) => {
                for ((((d, &x), &y), &z), &k) in dst.iter_mut().zip(a).zip(b).zip(c).zip(k) {
                    *d = blend_lane(*d, f(x, y, z), k);
                }
            }
        },
    )
}

/// Declares lane-loop functions `name::<T>` from a closure over `T`.
macro_rules! lane_fns {
    ($bound:path; $($name:ident($($arg:ident),+) => $body:expr;)*) => {$(
        fn $name<T: Val + $bound>(dst: &mut [u64], $($arg: &[u64]),+, keep: Option<&[u64]>) {
            lane_fns!(@map dst, $($arg),+; keep; |$($arg: T),+| $body)
        }
    )*};
    (@map $dst:ident, $a:ident; $k:ident; $f:expr) => { map1($dst, $a, $k, $f) };
    (@map $dst:ident, $a:ident, $b:ident; $k:ident; $f:expr) => { map2($dst, $a, $b, $k, $f) };
    (@map $dst:ident, $a:ident, $b:ident, $c:ident; $k:ident; $f:expr) => {
        map3($dst, $a, $b, $c, $k, $f)
    };
}

lane_fns! { Arith;
    add(a, b) => a.add(b);
    sub(a, b) => a.sub(b);
    mul(a, b) => a.mul(b);
    div(a, b) => a.div(b);
    rem(a, b) => a.rem(b);
    neg(a) => a.neg();
    min(a, b) => Arith::min(a, b);
    max(a, b) => Arith::max(a, b);
    abs(a) => a.abs();
    clamp(a, b, c) => ops::clamp(a, b, c);
    mad(a, b, c) => ops::mad(a, b, c);
    sign(a) => ops::sign(a);
}

lane_fns! { Bits;
    bit_and(a, b) => a.and(b);
    bit_or(a, b) => a.or(b);
    bit_xor(a, b) => a.xor(b);
    bit_not(a) => a.not();
    shl(a, b) => a.shl(b);
    shr(a, b) => a.shr(b);
    countbits(a) => ops::countbits(a);
    firstbithigh(a) => ops::firstbithigh(a);
    firstbitlow(a) => ops::firstbitlow(a);
    reversebits(a) => ops::reversebits(a);
}

lane_fns! { Float;
    floor(a) => ops::floor(a);
    ceil(a) => ops::ceil(a);
    round(a) => ops::round(a);
    trunc(a) => ops::trunc(a);
    frac(a) => ops::frac(a);
    sqrt(a) => ops::sqrt(a);
    rsqrt(a) => ops::rsqrt(a);
    rcp(a) => ops::rcp(a);
    exp(a) => ops::exp(a);
    exp2(a) => ops::exp2(a);
    log(a) => ops::log(a);
    log2(a) => ops::log2(a);
    log10(a) => ops::log10(a);
    sin(a) => ops::sin(a);
    cos(a) => ops::cos(a);
    tan(a) => ops::tan(a);
    asin(a) => ops::asin(a);
    acos(a) => ops::acos(a);
    atan(a) => ops::atan(a);
    sinh(a) => ops::sinh(a);
    cosh(a) => ops::cosh(a);
    tanh(a) => ops::tanh(a);
    saturate(a) => ops::saturate(a);
    isnan(a) => ops::isnan(a);
    isinf(a) => ops::isinf(a);
    isfinite(a) => ops::isfinite(a);
    fmod(a, b) => ops::fmod(a, b);
    pow(a, b) => ops::pow(a, b);
    atan2(a, b) => ops::atan2(a, b);
    step(a, b) => ops::step(a, b);
    lerp(a, b, c) => ops::lerp(a, b, c);
    smoothstep(a, b, c) => ops::smoothstep(a, b, c);
    fma(a, b, c) => ops::fma(a, b, c);
}

lane_fns! { PartialOrd;
    eq(a, b) => a == b;
    ne(a, b) => a != b;
    lt(a, b) => a < b;
    le(a, b) => a <= b;
    gt(a, b) => a > b;
    ge(a, b) => a >= b;
}

fn logical_not(dst: &mut [u64], a: &[u64], keep: Option<&[u64]>) {
    map1(dst, a, keep, |x: bool| !x);
}

fn logical_and(dst: &mut [u64], a: &[u64], b: &[u64], keep: Option<&[u64]>) {
    map2(dst, a, b, keep, |x: bool, y: bool| x && y);
}

fn logical_or(dst: &mut [u64], a: &[u64], b: &[u64], keep: Option<&[u64]>) {
    map2(dst, a, b, keep, |x: bool, y: bool| x || y);
}

fn f32tof16(dst: &mut [u64], a: &[u64], keep: Option<&[u64]>) {
    map1(dst, a, keep, ops::f32tof16);
}

fn f16tof32(dst: &mut [u64], a: &[u64], keep: Option<&[u64]>) {
    map1(dst, a, keep, ops::f16tof32);
}

fn as_double(dst: &mut [u64], lo: &[u64], hi: &[u64], keep: Option<&[u64]>) {
    map2(dst, lo, hi, keep, |l: u64, h: u64| (l & 0xFFFF_FFFF) | (h << 32));
}

pub(crate) fn unary(op: UnaryOp, ty: ScalarType) -> Option<UnaryFn> {
    Some(match op {
        UnaryOp::Neg => with_arith!(ty, T => neg::<T>, return None),
        UnaryOp::Not => logical_not,
        UnaryOp::BitNot => with_int!(ty, T => bit_not::<T>, return None),
    })
}

pub(crate) fn binary(op: BinaryOp, ty: ScalarType) -> Option<BinaryFn> {
    use BinaryOp as B;
    Some(match op {
        B::Add => with_arith!(ty, T => add::<T>, return None),
        B::Sub => with_arith!(ty, T => sub::<T>, return None),
        B::Mul => with_arith!(ty, T => mul::<T>, return None),
        B::Div => with_arith!(ty, T => div::<T>, return None),
        B::Rem => with_arith!(ty, T => rem::<T>, return None),
        B::Shl => with_int!(ty, T => shl::<T>, return None),
        B::Shr => with_int!(ty, T => shr::<T>, return None),
        B::BitAnd => with_int!(ty, T => bit_and::<T>, return None),
        B::BitOr => with_int!(ty, T => bit_or::<T>, return None),
        B::BitXor => with_int!(ty, T => bit_xor::<T>, return None),
        B::And => logical_and,
        B::Or => logical_or,
        B::Eq => with_scalar!(ty, T => eq::<T>),
        B::Ne => with_scalar!(ty, T => ne::<T>),
        B::Lt => with_scalar!(ty, T => lt::<T>),
        B::Le => with_scalar!(ty, T => le::<T>),
        B::Gt => with_scalar!(ty, T => gt::<T>),
        B::Ge => with_scalar!(ty, T => ge::<T>),
    })
}


/// The lane loop of a component-wise builtin whose (first) argument has
/// scalar type `ty`; `None` for builtins the compiler expands itself or for
/// types the builtin does not take.
pub(crate) fn builtin(b: Builtin, ty: ScalarType) -> Option<BuiltinFn> {
    use Builtin as F;
    use BuiltinFn::{Binary as B2, Ternary as B3, Unary as B1};
    macro_rules! float1 {
        ($f:ident) => {
            B1(with_float!(ty, T => $f::<T>, return None))
        };
    }
    Some(match b {
        F::Abs => B1(with_arith!(ty, T => abs::<T>, return None)),
        F::Min => B2(with_arith!(ty, T => min::<T>, return None)),
        F::Max => B2(with_arith!(ty, T => max::<T>, return None)),
        F::Clamp => B3(with_arith!(ty, T => clamp::<T>, return None)),
        F::Mad => B3(with_arith!(ty, T => mad::<T>, return None)),
        F::Sign => B1(with_arith!(ty, T => sign::<T>, return None)),
        F::CountBits => B1(with_int!(ty, T => countbits::<T>, return None)),
        F::FirstBitHigh => B1(with_int!(ty, T => firstbithigh::<T>, return None)),
        F::FirstBitLow => B1(with_int!(ty, T => firstbitlow::<T>, return None)),
        F::ReverseBits => B1(with_int!(ty, T => reversebits::<T>, return None)),
        F::Floor => float1!(floor),
        F::Ceil => float1!(ceil),
        F::Round => float1!(round),
        F::Trunc => float1!(trunc),
        F::Frac => float1!(frac),
        F::Sqrt => float1!(sqrt),
        F::Rsqrt => float1!(rsqrt),
        F::Rcp => float1!(rcp),
        F::Exp => float1!(exp),
        F::Exp2 => float1!(exp2),
        F::Log => float1!(log),
        F::Log2 => float1!(log2),
        F::Log10 => float1!(log10),
        F::Sin => float1!(sin),
        F::Cos => float1!(cos),
        F::Tan => float1!(tan),
        F::Asin => float1!(asin),
        F::Acos => float1!(acos),
        F::Atan => float1!(atan),
        F::Sinh => float1!(sinh),
        F::Cosh => float1!(cosh),
        F::Tanh => float1!(tanh),
        F::Saturate => float1!(saturate),
        F::IsNan => float1!(isnan),
        F::IsInf => float1!(isinf),
        F::IsFinite => float1!(isfinite),
        F::Fmod => B2(with_float!(ty, T => fmod::<T>, return None)),
        F::Pow => B2(with_float!(ty, T => pow::<T>, return None)),
        F::Atan2 => B2(with_float!(ty, T => atan2::<T>, return None)),
        F::Step => B2(with_float!(ty, T => step::<T>, return None)),
        F::Lerp => B3(with_float!(ty, T => lerp::<T>, return None)),
        F::SmoothStep => B3(with_float!(ty, T => smoothstep::<T>, return None)),
        F::Fma => B3(with_float!(ty, T => fma::<T>, return None)),
        F::F32ToF16 => B1(f32tof16),
        F::F16ToF32 => B1(f16tof32),
        F::AsDouble => B2(as_double),
        F::Dot
        | F::Cross
        | F::Length
        | F::Distance
        | F::Normalize
        | F::All
        | F::Any
        | F::Mul
        | F::Transpose => return None,
    })
}

/// A conversion between scalar types (HLSL rules, see
/// [`convert_bits`]), as a lane loop specialised for the type pair.
pub(crate) fn convert(from: ScalarType, to: ScalarType) -> UnaryFn {
    convert_pair(from, to)
}

fn convert_pair(from: ScalarType, to: ScalarType) -> UnaryFn {
    // Each (from, to) pair gets its own function item, so the type decoding
    // in `convert_bits` folds away.
    fn conv<A: ConvTag, B: ConvTag>(dst: &mut [u64], a: &[u64], keep: Option<&[u64]>) {
        map1(dst, a, keep, |x: u64| convert_bits(x, A::TY, B::TY));
    }
    trait ConvTag {
        const TY: ScalarType;
    }
    macro_rules! tags {
        ($($name:ident = $ty:ident),*) => {$(
            struct $name;
            impl ConvTag for $name { const TY: ScalarType = ScalarType::$ty; }
        )*};
    }
    tags!(
        TBool = Bool,
        TI16 = Int16,
        TU16 = UInt16,
        TI32 = Int32,
        TU32 = UInt32,
        TI64 = Int64,
        TU64 = UInt64,
        TF16 = Float16,
        TF32 = Float32,
        TF64 = Float64
    );
    macro_rules! inner {
        ($A:ident) => {
            match to {
                ScalarType::Bool => conv::<$A, TBool>,
                ScalarType::Int16 => conv::<$A, TI16>,
                ScalarType::UInt16 => conv::<$A, TU16>,
                ScalarType::Int32 => conv::<$A, TI32>,
                ScalarType::UInt32 => conv::<$A, TU32>,
                ScalarType::Int64 => conv::<$A, TI64>,
                ScalarType::UInt64 => conv::<$A, TU64>,
                ScalarType::Float16 => conv::<$A, TF16>,
                ScalarType::Float32 => conv::<$A, TF32>,
                ScalarType::Float64 => conv::<$A, TF64>,
            }
        };
    }
    match from {
        ScalarType::Bool => inner!(TBool),
        ScalarType::Int16 => inner!(TI16),
        ScalarType::UInt16 => inner!(TU16),
        ScalarType::Int32 => inner!(TI32),
        ScalarType::UInt32 => inner!(TU32),
        ScalarType::Int64 => inner!(TI64),
        ScalarType::UInt64 => inner!(TU64),
        ScalarType::Float16 => inner!(TF16),
        ScalarType::Float32 => inner!(TF32),
        ScalarType::Float64 => inner!(TF64),
    }
}

/// Reinterprets bits between types of one width: the register already holds
/// the bit pattern, so only the width's mask matters.
pub(crate) fn bitcast(to: ScalarType) -> UnaryFn {
    fn keep32(dst: &mut [u64], a: &[u64], keep: Option<&[u64]>) {
        map1(dst, a, keep, |x: u32| x);
    }
    fn keep16(dst: &mut [u64], a: &[u64], keep: Option<&[u64]>) {
        map1(dst, a, keep, |x: u16| x);
    }
    fn keep64(dst: &mut [u64], a: &[u64], keep: Option<&[u64]>) {
        map1(dst, a, keep, |x: u64| x);
    }
    match to.size() {
        2 => keep16,
        8 => keep64,
        _ => keep32,
    }
}
