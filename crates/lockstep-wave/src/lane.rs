//! Lane element types and the per-type arithmetic that wave operations fold with.

use core::fmt::Debug;

/// A set of lanes: bit `i` set means lane `i` is active.
///
/// Callers never set bits at or above the wave size.
pub type Mask = u128;

/// An element type that wave operations move between lanes: `bool`, `i16`, `u16`, `i32`, `u32`,
/// `i64`, `u64`, `half::f16`, `f32` and `f64`.
pub trait Lane: Copy + PartialEq + Debug + Send + Sync + 'static {
    /// Whether `self` and `other` are the same value in the sense of `WaveMatch`.
    ///
    /// This is `==` for integers and `bool`. Floats override it to compare bit patterns, because
    /// `WaveMatch` promises that every lane matches itself, which `==` breaks for NaN; as a
    /// consequence `-0.0` and `+0.0` do not match, and NaNs match only NaNs with the same payload.
    #[inline]
    fn same_value(self, other: Self) -> bool {
        self == other
    }
}

/// An arithmetic element type (every lane type but `bool`), with the HLSL semantics of each
/// operator as DXC lowers it.
///
/// Integers: `add`, `sub`, `mul` and `neg` wrap; `div` and `rem` wrap too (`MIN / -1 = MIN`,
/// `MIN % -1 = 0`) and return all ones (`-1` for signed types) when the divisor is zero.
///
/// Floats: the operators are IEEE 754 with round-to-nearest-even; `rem` is the C `fmod` (the result
/// has the sign of `self`). `f16` computes each operation in `f32` and rounds to `f16` once, which
/// gives the correctly rounded binary16 result for `add`, `sub`, `mul`, `div` and `rem`.
///
/// `min` and `max` on floats are DXIL's `FMin`/`FMax`, that is IEEE minNum/maxNum: when exactly one
/// operand is NaN the other operand is returned, and between `-0.0` and `+0.0` `min` returns
/// `-0.0` and `max` returns `+0.0`.
///
/// Method-call syntax on a concrete type prefers inherent methods and is ambiguous with `Ord`, so
/// outside generic code call these as `Arith::abs(x)`, `Arith::min(a, b)`: `i32::abs` panics on
/// `i32::MIN` in debug builds and `f32::min` leaves the order of zeros unspecified.
pub trait Arith: Lane + PartialOrd {
    /// The identity of `add`.
    const ZERO: Self;
    /// The identity of `mul`.
    const ONE: Self;
    /// The smallest value, which is the identity of `max` (`-inf` for floats).
    const LOWEST: Self;
    /// The largest value, which is the identity of `min` (`+inf` for floats).
    const HIGHEST: Self;

    /// HLSL `self + o`.
    fn add(self, o: Self) -> Self;
    /// HLSL `self - o`.
    fn sub(self, o: Self) -> Self;
    /// HLSL `self * o`.
    fn mul(self, o: Self) -> Self;
    /// HLSL `self / o`.
    fn div(self, o: Self) -> Self;
    /// HLSL `self % o`.
    fn rem(self, o: Self) -> Self;
    /// HLSL unary `-self`.
    fn neg(self) -> Self;
    /// HLSL `min(self, o)`.
    fn min(self, o: Self) -> Self;
    /// HLSL `max(self, o)`.
    fn max(self, o: Self) -> Self;

    /// HLSL `abs(self)`.
    ///
    /// The default suits integers: it wraps, so `abs(i32::MIN) = i32::MIN`, and it is the identity
    /// on unsigned types. Floats override it to clear the sign bit, so `abs(-0.0) = +0.0`.
    #[inline]
    fn abs(self) -> Self {
        if self < Self::ZERO { self.neg() } else { self }
    }
}

/// An integer element type, with the HLSL bitwise operators.
pub trait Bits: Arith + Ord {
    /// The value with every bit set, which is the identity of `and`.
    const ALL_ONES: Self;
    /// The width in bits.
    const BITS: u32;

    /// HLSL `self & o`.
    fn and(self, o: Self) -> Self;
    /// HLSL `self | o`.
    fn or(self, o: Self) -> Self;
    /// HLSL `self ^ o`.
    fn xor(self, o: Self) -> Self;
    /// HLSL `self << amount`, with the amount masked to `BITS - 1` as DXC does (`x << (y & 31)`).
    fn shl(self, amount: Self) -> Self;
    /// HLSL `self >> amount`, with the amount masked like `shl`; arithmetic for signed types.
    fn shr(self, amount: Self) -> Self;
    /// The number of set bits.
    fn count_ones(self) -> u32;
    /// The number of zero bits above the highest set bit (`BITS` for zero).
    fn leading_zeros(self) -> u32;
    /// The number of zero bits below the lowest set bit (`BITS` for zero).
    fn trailing_zeros(self) -> u32;
    /// The bits in reverse order.
    fn reverse_bits(self) -> Self;

    /// HLSL `~self`.
    #[inline]
    fn not(self) -> Self {
        self.xor(Self::ALL_ONES)
    }
}

impl Lane for bool {}

/// Implements `Lane`, `Arith` and `Bits` for primitive integers by forwarding to the wrapping
/// methods of the standard library, so that every integer type shares one definition.
macro_rules! impl_int {
    ($($t:ty),*) => {$(
        impl Lane for $t {}

        impl Arith for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const LOWEST: Self = <$t>::MIN;
            const HIGHEST: Self = <$t>::MAX;

            #[inline]
            fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            #[inline]
            fn sub(self, o: Self) -> Self { self.wrapping_sub(o) }
            #[inline]
            fn mul(self, o: Self) -> Self { self.wrapping_mul(o) }
            #[inline]
            fn div(self, o: Self) -> Self {
                if o == 0 { Self::ALL_ONES } else { self.wrapping_div(o) }
            }
            #[inline]
            fn rem(self, o: Self) -> Self {
                if o == 0 { Self::ALL_ONES } else { self.wrapping_rem(o) }
            }
            #[inline]
            fn neg(self) -> Self { self.wrapping_neg() }
            #[inline]
            fn min(self, o: Self) -> Self { Ord::min(self, o) }
            #[inline]
            fn max(self, o: Self) -> Self { Ord::max(self, o) }
        }

        impl Bits for $t {
            const ALL_ONES: Self = !0;
            const BITS: u32 = <$t>::BITS;

            #[inline]
            fn and(self, o: Self) -> Self { self & o }
            #[inline]
            fn or(self, o: Self) -> Self { self | o }
            #[inline]
            fn xor(self, o: Self) -> Self { self ^ o }
            // Truncating the amount to `u32` keeps its low bits, and `wrapping_shl`/`wrapping_shr`
            // mask those to `BITS - 1`, which is exactly DXC's masking.
            #[inline]
            fn shl(self, amount: Self) -> Self { self.wrapping_shl(amount as u32) }
            #[inline]
            fn shr(self, amount: Self) -> Self { self.wrapping_shr(amount as u32) }
            #[inline]
            fn count_ones(self) -> u32 { <$t>::count_ones(self) }
            #[inline]
            fn leading_zeros(self) -> u32 { <$t>::leading_zeros(self) }
            #[inline]
            fn trailing_zeros(self) -> u32 { <$t>::trailing_zeros(self) }
            #[inline]
            fn reverse_bits(self) -> Self { <$t>::reverse_bits(self) }
        }
    )*};
}

impl_int!(i16, u16, i32, u32, i64, u64);
