//! HLSL scalar builtins as pure functions, following how DXC lowers each one.
//!
//! The operators (`+ - * / %`, unary `-`, `& | ^ ~ << >>`) and `abs`, `min` and `max` are
//! methods of [`Arith`] and [`Bits`]; conversions are [`Cast`](crate::Cast). This module holds the
//! rest, generic over the lane traits so that each rule is written once for every type. Float
//! functions compute in the type's native float and round once, except where DXC lowers a builtin
//! to several operations: those (`frac`, `lerp`, `mad`, `pow`, `smoothstep`, …) are composed of
//! the same operations here, so `f16` rounds after each step as it would on the GPU.

use half::f16;

use crate::float::{Float, NativeFloat, unary};
use crate::lane::{Arith, Bits};

/// HLSL `countbits(x)`: the number of set bits.
pub fn countbits<T: Bits>(x: T) -> u32 {
    x.count_ones()
}

/// HLSL `reversebits(x)`: the bits in reverse order, so `reversebits(1) = 0x80000000`.
pub fn reversebits<T: Bits>(x: T) -> T {
    x.reverse_bits()
}

/// HLSL `firstbithigh(x)`: the index, counted from the least significant bit, of the highest set
/// bit; `0xFFFFFFFF` when no bit is set.
///
/// For a negative signed value the highest *clear* bit is reported instead, as DXIL's
/// `FirstbitSHi` does, so both `0` and `-1` give `0xFFFFFFFF`. 64-bit inputs give a `u32` too.
pub fn firstbithigh<T: Bits>(x: T) -> u32 {
    let magnitude = if x < T::ZERO { x.not() } else { x };
    match magnitude.leading_zeros() {
        zeros if zeros == T::BITS => u32::MAX,
        zeros => T::BITS - 1 - zeros,
    }
}

/// HLSL `firstbitlow(x)`: the index of the lowest set bit; `0xFFFFFFFF` when no bit is set.
pub fn firstbitlow<T: Bits>(x: T) -> u32 {
    match x.trailing_zeros() {
        zeros if zeros == T::BITS => u32::MAX,
        zeros => zeros,
    }
}

/// HLSL `sign(x)`: `-1`, `0` or `1` as an `int`; `sign(NaN) = 0` and `sign(-0.0) = 0`.
pub fn sign<T: Arith>(x: T) -> i32 {
    if x > T::ZERO {
        1
    } else if x < T::ZERO {
        -1
    } else {
        0
    }
}

/// HLSL `clamp(x, lo, hi)`, which DXC lowers to `min(max(x, lo), hi)`; for floats that is
/// maxNum then minNum, so `clamp(NaN, lo, hi) = lo`.
pub fn clamp<T: Arith>(x: T, lo: T, hi: T) -> T {
    x.max(lo).min(hi)
}

/// HLSL `mad(a, b, c)`: `a * b + c` with two roundings for floats and wrapping for integers.
pub fn mad<T: Arith>(a: T, b: T, c: T) -> T {
    a.mul(b).add(c)
}

/// HLSL `fma(a, b, c)`: `a * b + c` with a single rounding.
///
/// HLSL only has it for `double`. For `f16` the fused result is rounded to `f32` first, which can
/// round twice in rare halfway cases.
pub fn fma<T: Float>(a: T, b: T, c: T) -> T {
    T::narrow(a.widen().mul_add(b.widen(), c.widen()))
}

/// A float constant, rounded to nearest even in `T`.
fn constant<T: Float>(c: f64) -> T {
    T::narrow(T::Native::from_f64(c))
}

/// Generates float builtins that are a single native operation, rounded once.
macro_rules! unary_float_fns {
    ($($(#[$doc:meta])* $name:ident => $native:ident;)*) => {$(
        $(#[$doc])*
        #[inline]
        pub fn $name<T: Float>(x: T) -> T {
            unary(x, <T::Native as NativeFloat>::$native)
        }
    )*};
}

/// Generates the float builtins that round to an integer: a NaN comes out quieted, as the
/// machine's rounding instructions give it (a library's `floor` may return a signalling NaN as
/// it is).
macro_rules! rounding_fns {
    ($($(#[$doc:meta])* $name:ident => $native:ident;)*) => {$(
        $(#[$doc])*
        #[inline]
        pub fn $name<T: Float>(x: T) -> T {
            unary(x, |v| {
                if v.is_nan() {
                    v.quieted()
                } else {
                    <T::Native as NativeFloat>::$native(v)
                }
            })
        }
    )*};
}

rounding_fns! {
    /// HLSL `floor(x)`: rounds toward negative infinity.
    floor => floor;
    /// HLSL `ceil(x)`: rounds toward positive infinity.
    ceil => ceil;
    /// HLSL `round(x)`: rounds to the nearest integer with ties to even, so `round(2.5) = 2` and
    /// `round(-2.5) = -2`.
    round => round_ties_even;
    /// HLSL `trunc(x)`: rounds toward zero.
    trunc => trunc;
}

unary_float_fns! {
    /// HLSL `sqrt(x)`.
    sqrt => sqrt;
    /// HLSL `exp(x)`: e raised to `x`.
    exp => exp;
    /// HLSL `exp2(x)`: 2 raised to `x`.
    exp2 => exp2;
    /// HLSL `log(x)`: the natural logarithm.
    log => ln;
    /// HLSL `log2(x)`.
    log2 => log2;
    /// HLSL `log10(x)`.
    log10 => log10;
    /// HLSL `sin(x)`.
    sin => sin;
    /// HLSL `cos(x)`.
    cos => cos;
    /// HLSL `tan(x)`.
    tan => tan;
    /// HLSL `asin(x)`.
    asin => asin;
    /// HLSL `acos(x)`.
    acos => acos;
    /// HLSL `atan(x)`.
    atan => atan;
    /// HLSL `sinh(x)`.
    sinh => sinh;
    /// HLSL `cosh(x)`.
    cosh => cosh;
    /// HLSL `tanh(x)`.
    tanh => tanh;
}

/// HLSL `rsqrt(x)`: `1 / sqrt(x)`, computed as one operation (DXIL `Rsqrt`) in the native type.
pub fn rsqrt<T: Float>(x: T) -> T {
    unary(x, |w| T::Native::ONE / w.sqrt())
}

/// HLSL `rcp(x)`: `1 / x`.
pub fn rcp<T: Float>(x: T) -> T {
    T::ONE.div(x)
}

/// HLSL `atan2(y, x)`: the angle of the point `(x, y)`, in `[-pi, pi]`, as DXC lowers it:
/// `atan(y / x)`, then `+ pi` where `x < 0 <= y`, `- pi` where both are negative, and `-pi/2` or
/// `pi/2` where `x == 0` (`y < 0`, or `y >= 0`), every comparison ordered and every step rounded in
/// `T`. So `atan2(0, 0)` and `atan2(-0, -0)` are `pi/2`, `atan2(-0, -1)` is `pi`, and a NaN operand
/// gives NaN.
pub fn atan2<T: Float>(y: T, x: T) -> T {
    let constant = |k: f64| T::narrow(T::Native::from_f64(k));
    let (yw, xw, zero) = (y.widen(), x.widen(), T::Native::from_f64(0.0));
    let angle = atan(y.div(x));
    if xw == zero {
        return if yw < zero {
            constant(-core::f64::consts::FRAC_PI_2)
        } else if yw >= zero {
            constant(core::f64::consts::FRAC_PI_2)
        } else {
            angle
        };
    }
    match (xw < zero, yw >= zero, yw < zero) {
        (true, true, _) => angle.add(constant(core::f64::consts::PI)),
        (true, _, true) => angle.sub(constant(core::f64::consts::PI)),
        _ => angle,
    }
}

/// HLSL `pow(x, y)`, lowered as DXC does to `exp2(y * log2(x))`.
///
/// This keeps the GPU's domain: a negative `x` gives NaN (even for an integral `y`), and
/// `pow(0, 0)` is NaN because `0 * -inf` is.
#[inline]
pub fn pow<T: Float>(x: T, y: T) -> T {
    exp2(y.mul(log2(x)))
}

/// The operator `%` on floats (C's `fmod`, LLVM's `frem`): `x - y * trunc(x / y)` computed
/// exactly, so the result has the sign of `x` (`-7.5 % 2 = -1.5`); the same as `Arith::rem` on
/// floats. The intrinsic `fmod` is DXC's expansion over `frac` (the prelude's).
pub fn fmod<T: Float>(x: T, y: T) -> T {
    x.rem(y)
}

/// HLSL `frac(x)`: `x - floor(x)`, so a tiny negative `x` gives 1.0 after rounding.
pub fn frac<T: Float>(x: T) -> T {
    x.sub(floor(x))
}

/// HLSL `saturate(x)`: `clamp(x, 0, 1)`, so NaN gives 0.
pub fn saturate<T: Float>(x: T) -> T {
    clamp(x, T::ZERO, T::ONE)
}

/// HLSL `lerp(a, b, t)`: `a + t * (b - a)`, one rounding per operation.
pub fn lerp<T: Float>(a: T, b: T, t: T) -> T {
    a.add(t.mul(b.sub(a)))
}

/// HLSL `step(y, x)`: 0 when `x < y`, else 1 (so 1 when either is NaN), as DXC selects it.
pub fn step<T: Float>(y: T, x: T) -> T {
    if x < y { T::ZERO } else { T::ONE }
}

/// HLSL `smoothstep(lo, hi, x)`: with `t = saturate((x - lo) / (hi - lo))`, the Hermite curve
/// `t * (t * (3 - 2 * t))`, multiplied in DXC's order.
pub fn smoothstep<T: Float>(lo: T, hi: T, x: T) -> T {
    let t = saturate(x.sub(lo).div(hi.sub(lo)));
    t.mul(t.mul(constant::<T>(3.0).sub(t.mul(constant::<T>(2.0)))))
}

/// HLSL `degrees(x)`: `x * (180 / pi)`.
pub fn degrees<T: Float>(x: T) -> T {
    x.mul(constant(180.0 / core::f64::consts::PI))
}

/// HLSL `radians(x)`: `x * (pi / 180)`.
pub fn radians<T: Float>(x: T) -> T {
    x.mul(constant(core::f64::consts::PI / 180.0))
}

/// HLSL `ldexp(x, e)`: `x * exp2(e)`, as DXC lowers it.
pub fn ldexp<T: Float>(x: T, e: T) -> T {
    x.mul(exp2(e))
}

/// HLSL `isnan(x)`.
pub fn isnan<T: Float>(x: T) -> bool {
    x.widen().is_nan()
}

/// HLSL `isinf(x)`: true for either infinity.
pub fn isinf<T: Float>(x: T) -> bool {
    x.widen().is_infinite()
}

/// HLSL `isfinite(x)`: neither NaN nor infinite.
pub fn isfinite<T: Float>(x: T) -> bool {
    x.widen().is_finite()
}

/// HLSL `f32tof16(x)`: the binary16 bits of `x` rounded to nearest even, in the low 16 bits;
/// overflow gives infinity (`f32tof16(65520.0) = 0x7C00`), a NaN stays a NaN (quiet, with the
/// top 10 bits of its payload).
///
/// The same bits as `half::f16::from_f32` for every input, computed without branches (each
/// case's result, then a choice among them) so that a loop over lanes vectorises.
pub fn f32tof16(x: f32) -> u32 {
    // 2^-14 (the smallest normal binary16) and 2^16 (past the largest, 65504, and the
    // values that round up to infinity).
    const MIN_NORMAL: u32 = 113 << 23;
    const OVERFLOW: u32 = 143 << 23;
    // Adding 0.5 (exponent 126) puts a subnormal result's 10 bits at the bottom of the
    // mantissa, rounded to nearest even by the float adder.
    const SUBNORMAL_MAGIC: u32 = 126 << 23;
    let bits = x.to_bits();
    let sign = (bits >> 16) & 0x8000;
    let abs = bits & 0x7FFF_FFFF;
    let nan = 0x7E00 | ((abs >> 13) & 0x03FF);
    let subnormal = (f32::from_bits(abs) + f32::from_bits(SUBNORMAL_MAGIC))
        .to_bits()
        .wrapping_sub(SUBNORMAL_MAGIC);
    // Rebias the exponent (127 to 15) and round to nearest even: add just under half a
    // unit of the last place, and one more when the kept mantissa is odd.
    let odd = (abs >> 13) & 1;
    let normal = abs
        .wrapping_sub((127 - 15) << 23)
        .wrapping_add(0x0FFF + odd)
        >> 13;
    let magnitude = if abs > 0x7F80_0000 {
        nan
    } else if abs >= OVERFLOW {
        0x7C00
    } else if abs < MIN_NORMAL {
        subnormal
    } else {
        normal
    };
    sign | magnitude
}

/// HLSL `f16tof32(x)`: the binary16 value in the low 16 bits of `x`, exactly; the high bits are
/// ignored.
pub fn f16tof32(x: u32) -> f32 {
    f16::from_bits(x as u16).to_f32()
}
