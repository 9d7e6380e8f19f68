//! Conversions between lane types, with the semantics of HLSL casts as DXC lowers them.

use half::f16;

use crate::float::f64_to_f16;
use crate::lane::Arith;

/// A conversion from `Self` to `T` with HLSL cast semantics.
///
/// - integer to integer truncates or extends (sign-extends from signed sources), as C does;
/// - float to integer rounds toward zero and saturates, and NaN becomes 0;
/// - integer to float and float to narrower float round to nearest even, once;
/// - to `bool` is `x != 0` (`fcmp une` for floats, so NaN is true), from `bool` is 0 or 1.
pub trait Cast<T>: Copy {
    /// Converts `self` to `T`.
    fn cast(self) -> T;
}

/// Converts `x` to `T` with HLSL cast semantics; see [`Cast`].
pub fn convert<T, F: Cast<T>>(x: F) -> T {
    x.cast()
}

/// Implements `Cast` between every pair of primitive numeric types with `as`, whose semantics are
/// exactly the HLSL ones listed on [`Cast`].
macro_rules! cast_as {
    ($($from:ty),* => $to:tt) => {
        $( cast_as!(@from $from => $to); )*
    };
    (@from $from:ty => ($($to:ty),*)) => {$(
        impl Cast<$to> for $from {
            #[inline]
            fn cast(self) -> $to { self as $to }
        }
    )*};
}

cast_as!(i16, u16, i32, u32, i64, u64, f32, f64 => (i16, u16, i32, u32, i64, u64, f32, f64));

/// Implements `Cast` between `f16` and the primitive numeric types.
///
/// From `f16`, widening to `f32` is exact, so the `f32` cast decides. To `f16`, every source but
/// `f32` goes through `f64`, which holds every integer that does not overflow `f16` exactly, and
/// then rounds once.
macro_rules! cast_f16 {
    ($($t:ty),*) => {$(
        impl Cast<$t> for f16 {
            #[inline]
            fn cast(self) -> $t { self.to_f32() as $t }
        }

        impl Cast<f16> for $t {
            #[inline]
            fn cast(self) -> f16 { f64_to_f16(self as f64) }
        }
    )*};
}

cast_f16!(i16, u16, i32, u32, i64, u64, f64);

impl Cast<f32> for f16 {
    #[inline]
    fn cast(self) -> f32 {
        self.to_f32()
    }
}

impl Cast<f16> for f32 {
    #[inline]
    fn cast(self) -> f16 {
        f16::from_f32(self)
    }
}

impl Cast<f16> for f16 {
    #[inline]
    fn cast(self) -> f16 {
        self
    }
}

/// Implements `Cast` between `bool` and every arithmetic type.
macro_rules! cast_bool {
    ($($t:ty),*) => {$(
        impl Cast<$t> for bool {
            #[inline]
            fn cast(self) -> $t { if self { <$t>::ONE } else { <$t>::ZERO } }
        }

        impl Cast<bool> for $t {
            #[inline]
            fn cast(self) -> bool { self != <$t>::ZERO }
        }
    )*};
}

cast_bool!(i16, u16, i32, u32, i64, u64, f16, f32, f64);

impl Cast<bool> for bool {
    #[inline]
    fn cast(self) -> bool {
        self
    }
}
