//! Float element types: each computes in a native Rust float and rounds back once per operation.

use core::ops::{Add, Div, Mul, Neg, Rem, Sub};

use half::f16;

use crate::lane::{Arith, Lane};

/// A float type with native Rust arithmetic and math functions: `f32` and `f64`.
///
/// The methods forward to the standard library, so most transcendental functions have the
/// precision of the platform's math library (GPUs only promise approximations there, so no exact
/// answer exists); `f32`'s `exp`, `exp2`, `ln`, `log2`, `log10`, `sin` and `cos` are
/// [`crate::math`]'s, the same bits at every vector width.
pub trait NativeFloat:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + Neg<Output = Self>
{
    /// 1.0.
    const ONE: Self;
    /// The NaN that an invalid operation (`inf - inf`, `0 * inf`) gives on x86: the negative
    /// quiet NaN, SSE's "default NaN".
    const DEFAULT_NAN: Self;

    /// Converts a constant, rounding to nearest even.
    fn from_f64(x: f64) -> Self;
    /// Whether the value is NaN.
    fn is_nan(self) -> bool;
    /// The value with the quiet bit of its significand set: a NaN becomes the quiet NaN of the
    /// same payload, as a processor passes a signaling NaN on.
    fn quieted(self) -> Self;
    /// Whether the value is positive or negative infinity.
    fn is_infinite(self) -> bool;
    /// Whether the value is neither NaN nor infinite.
    fn is_finite(self) -> bool;
    /// Whether the sign bit is set (true for `-0.0`).
    fn is_sign_negative(self) -> bool;
    /// The value with the sign bit cleared.
    fn abs(self) -> Self;
    /// Rounds toward negative infinity.
    fn floor(self) -> Self;
    /// Rounds toward positive infinity.
    fn ceil(self) -> Self;
    /// Rounds to the nearest integer, ties to even.
    fn round_ties_even(self) -> Self;
    /// Rounds toward zero.
    fn trunc(self) -> Self;
    /// The square root.
    fn sqrt(self) -> Self;
    /// e raised to the value.
    fn exp(self) -> Self;
    /// 2 raised to the value.
    fn exp2(self) -> Self;
    /// The natural logarithm.
    fn ln(self) -> Self;
    /// The base-2 logarithm.
    fn log2(self) -> Self;
    /// The base-10 logarithm.
    fn log10(self) -> Self;
    /// The sine.
    fn sin(self) -> Self;
    /// The cosine.
    fn cos(self) -> Self;
    /// The tangent.
    fn tan(self) -> Self;
    /// The arcsine.
    fn asin(self) -> Self;
    /// The arccosine.
    fn acos(self) -> Self;
    /// The arctangent.
    fn atan(self) -> Self;
    /// The hyperbolic sine.
    fn sinh(self) -> Self;
    /// The hyperbolic cosine.
    fn cosh(self) -> Self;
    /// The hyperbolic tangent.
    fn tanh(self) -> Self;
    /// `self * a + b` with a single rounding.
    fn mul_add(self, a: Self, b: Self) -> Self;
}

/// Generates `NativeFloat` methods that forward to the inherent method of the same name.
macro_rules! forward {
    ($t:ty: $($name:ident),*) => {$(
        #[inline]
        fn $name(self) -> Self { <$t>::$name(self) }
    )*};
}

/// Generates the `NativeFloat` functions that call `$math::name` (`crate::math` for `f32`, the
/// standard library's for `f64`); `ln = log` names `crate::math::log` for `ln`.
macro_rules! transcendental {
    (math: $($name:ident $(= $own:ident)?),*) => {$(
        #[inline]
        fn $name(self) -> Self { transcendental!(@own $name $($own)?)(self) }
    )*};
    (@own $name:ident $own:ident) => { crate::math::$own };
    (@own $name:ident) => { crate::math::$name };
    (f64: $($name:ident $(= $own:ident)?),*) => { forward!(f64: $($name),*); };
}

/// Generates `NativeFloat` predicates that forward to the inherent method of the same name.
macro_rules! forward_predicate {
    ($t:ty: $($name:ident),*) => {$(
        #[inline]
        fn $name(self) -> bool { <$t>::$name(self) }
    )*};
}

/// Implements `NativeFloat`, `Float`, `Lane` and `Arith` for `f32` and `f64`, which are their own
/// native type.
macro_rules! impl_native_float {
    ($($t:ident($math:ident): $default_nan:expr, $quiet:expr),*) => {$(
        impl NativeFloat for $t {
            const ONE: Self = 1.0;
            const DEFAULT_NAN: Self = <$t>::from_bits($default_nan);

            #[inline]
            fn quieted(self) -> Self { <$t>::from_bits(self.to_bits() | $quiet) }

            #[inline]
            fn from_f64(x: f64) -> Self { x as $t }
            forward_predicate!($t: is_nan, is_infinite, is_finite, is_sign_negative);
            forward!($t: abs, floor, ceil, round_ties_even, trunc, sqrt, tan, asin, acos, atan,
                sinh, cosh, tanh);
            transcendental!($math: exp, exp2, ln = log, log2, log10, sin, cos);
            #[inline]
            fn mul_add(self, a: Self, b: Self) -> Self { <$t>::mul_add(self, a, b) }
        }

        impl Float for $t {
            type Native = $t;

            #[inline]
            fn widen(self) -> Self { self }
            #[inline]
            fn narrow(wide: Self) -> Self { wide }
        }

        impl_float_arith!($t: 0.0, 1.0);
    )*};
}

/// Implements `Lane` and `Arith` for a `Float` type in terms of its native type.
macro_rules! impl_float_arith {
    ($t:ty: $zero:expr, $one:expr) => {
        impl Lane for $t {
            fn same_value(self, other: Self) -> bool {
                self.to_bits() == other.to_bits()
            }
        }

        impl Arith for $t {
            const ZERO: Self = $zero;
            const ONE: Self = $one;
            const LOWEST: Self = <$t>::NEG_INFINITY;
            const HIGHEST: Self = <$t>::INFINITY;

            // The operators, negation, minNum, maxNum and `abs` are
            // inlined across crates (the engine's lane loops and wave
            // reductions vectorise them): the operators' NaNs are spelled
            // out (`arith`), and the others pick an operand or change
            // only its sign, so inlining cannot change which NaN comes
            // out.
            #[inline]
            fn add(self, o: Self) -> Self {
                arith(self, o, |a, b| a + b)
            }
            #[inline]
            fn sub(self, o: Self) -> Self {
                arith(self, o, |a, b| a - b)
            }
            #[inline]
            fn mul(self, o: Self) -> Self {
                arith(self, o, |a, b| a * b)
            }
            #[inline]
            fn div(self, o: Self) -> Self {
                arith(self, o, |a, b| a / b)
            }
            fn rem(self, o: Self) -> Self {
                arith(self, o, |a, b| a % b)
            }
            #[inline]
            fn neg(self) -> Self {
                unary(self, |a| -a)
            }
            #[inline]
            fn min(self, o: Self) -> Self {
                binary(self, o, min_num)
            }
            #[inline]
            fn max(self, o: Self) -> Self {
                binary(self, o, max_num)
            }
            #[inline]
            fn abs(self) -> Self {
                unary(self, NativeFloat::abs)
            }
        }
    };
}

/// A float element type: `f16`, `f32` or `f64`.
///
/// Every float operation widens its operands to [`Float::Native`], computes there, and narrows the
/// result with one rounding to nearest even. For `f32` and `f64` both steps are the identity; `f16`
/// computes in `f32`, which is exact for the basic operators because `f32` has more than twice
/// the precision of `f16`.
pub trait Float: Arith {
    /// The type the operations compute in.
    type Native: NativeFloat;

    /// Converts to the native type, exactly.
    fn widen(self) -> Self::Native;
    /// Converts from the native type, rounding to nearest even.
    fn narrow(wide: Self::Native) -> Self;
}

impl_native_float!(
    f32(math): 0xFFC0_0000, 0x0040_0000,
    f64(f64): 0xFFF8_0000_0000_0000, 0x0008_0000_0000_0000
);

impl Float for f16 {
    type Native = f32;

    #[inline]
    fn widen(self) -> f32 {
        self.to_f32()
    }

    #[inline]
    fn narrow(wide: f32) -> Self {
        f16::from_f32(wide)
    }
}

impl_float_arith!(f16: f16::ZERO, f16::ONE);

/// Applies a native function to one float operand with a single rounding.
#[inline(always)]
pub(crate) fn unary<T: Float>(x: T, f: impl FnOnce(T::Native) -> T::Native) -> T {
    T::narrow(f(x.widen()))
}

/// Applies a native function to two float operands with a single rounding.
#[inline(always)]
pub(crate) fn binary<T: Float>(x: T, y: T, f: impl FnOnce(T::Native, T::Native) -> T::Native) -> T {
    T::narrow(f(x.widen(), y.widen()))
}

/// Applies a native arithmetic operator to two float operands with a single rounding, with the
/// NaN that SSE gives: the first operand's if it is a NaN, else the second's (quieted either
/// way), else, for an invalid operation, [`NativeFloat::DEFAULT_NAN`]. Spelled out, so that the
/// NaN depends neither on the order in which the compiler puts the operands of a commutative
/// operator (which it may swap once the operator is inlined) nor on the machine.
#[inline(always)]
pub(crate) fn arith<T: Float>(x: T, y: T, f: impl FnOnce(T::Native, T::Native) -> T::Native) -> T {
    let (a, b) = (x.widen(), y.widen());
    let r = f(a, b);
    T::narrow(if !r.is_nan() {
        r
    } else if a.is_nan() {
        a.quieted()
    } else if b.is_nan() {
        b.quieted()
    } else {
        T::Native::DEFAULT_NAN
    })
}

/// IEEE minNum, as DXIL's `FMin`: a NaN operand loses to a number, and `-0.0 < +0.0`.
///
/// Rust's `f32::min` leaves the order of zeros unspecified, so the zero case is spelled out.
pub(crate) fn min_num<F: NativeFloat>(a: F, b: F) -> F {
    if a.is_nan() || b < a || (b == a && b.is_sign_negative()) {
        b
    } else {
        a
    }
}

/// IEEE maxNum, as DXIL's `FMax`: a NaN operand loses to a number, and `+0.0 > -0.0`.
pub(crate) fn max_num<F: NativeFloat>(a: F, b: F) -> F {
    if a.is_nan() || b > a || (b == a && !b.is_sign_negative()) {
        b
    } else {
        a
    }
}

/// Converts `f64` to `f16` with a single rounding to nearest even.
///
/// `half::f16::from_f64` rounds through `f32` (or drops low mantissa bits), which can round twice
/// and miss the nearest value. Rounding to `f32` with round-to-odd first keeps a sticky bit, and
/// because `f32` has more than `f16`'s precision plus two bits, the second rounding is then exact.
pub(crate) fn f64_to_f16(x: f64) -> f16 {
    let nearest = x as f32;
    let inexact = f64::from(nearest) != x && !x.is_nan();
    let odd = if inexact && nearest.to_bits() & 1 == 0 {
        // Stepping the bit pattern by one moves one ulp away from or toward zero, because floats
        // are sign and magnitude; the step goes toward `x`, which lies strictly inside that ulp.
        let toward_zero = f64::from(nearest).abs() > x.abs();
        let bits = nearest.to_bits();
        f32::from_bits(if toward_zero { bits - 1 } else { bits + 1 })
    } else {
        nearest
    };
    f16::from_f32(odd)
}
