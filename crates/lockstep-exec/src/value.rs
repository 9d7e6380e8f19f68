//! How each scalar type sits in a 64-bit register lane.
//!
//! Every register lane is a `u64` holding the value's own bit pattern,
//! zero-extended (an `int` of -1 is `0x0000_0000_FFFF_FFFF`, `true` is 1).
//! A `bool` read from memory keeps the word it was stored as: any nonzero
//! lane is true.

use half::f16;

/// A scalar type that can live in a register lane.
pub trait Val: Copy + Default + 'static {
    fn from_lane(bits: u64) -> Self;
    fn to_lane(self) -> u64;
}

impl Val for bool {
    fn from_lane(bits: u64) -> bool {
        bits != 0
    }
    fn to_lane(self) -> u64 {
        u64::from(self)
    }
}

macro_rules! int_val {
    ($($t:ty => $u:ty),*) => {$(
        impl Val for $t {
            fn from_lane(bits: u64) -> $t {
                bits as $u as $t
            }
            fn to_lane(self) -> u64 {
                self as $u as u64
            }
        }
    )*};
}
int_val!(i16 => u16, u16 => u16, i32 => u32, u32 => u32, i64 => u64, u64 => u64);

impl Val for f16 {
    fn from_lane(bits: u64) -> f16 {
        f16::from_bits(bits as u16)
    }
    fn to_lane(self) -> u64 {
        u64::from(f16::to_bits(self))
    }
}

impl Val for f32 {
    fn from_lane(bits: u64) -> f32 {
        f32::from_bits(bits as u32)
    }
    fn to_lane(self) -> u64 {
        u64::from(f32::to_bits(self))
    }
}

impl Val for f64 {
    fn from_lane(bits: u64) -> f64 {
        f64::from_bits(bits)
    }
    fn to_lane(self) -> u64 {
        f64::to_bits(self)
    }
}

/// Matches a scalar type against `Variant = RustType` pairs, binding `$T`
/// to the Rust type in `$body`; other variants give `$none` (the form
/// without `$none` must list every variant).
#[doc(hidden)]
#[macro_export]
macro_rules! scalar_match {
    ($ty:expr, $T:ident => $body:expr; $($variant:ident = $t:ty),*) => {
        match $ty {
            $(lockstep_ir::ScalarType::$variant => { type $T = $t; $body })*
        }
    };
    ($ty:expr, $T:ident => $body:expr, $none:expr; $($variant:ident = $t:ty),*) => {
        match $ty {
            $(lockstep_ir::ScalarType::$variant => { type $T = $t; $body })*
            _ => $none,
        }
    };
}

/// Expands `$body` once per scalar type, with `$T` bound to the Rust type.
#[macro_export]
macro_rules! with_scalar {
    ($ty:expr, $T:ident => $body:expr) => {
        $crate::scalar_match!($ty, $T => $body; Bool = bool, Int16 = i16, UInt16 = u16, Int32 = i32,
            UInt32 = u32, Int64 = i64, UInt64 = u64, Float16 = half::f16, Float32 = f32, Float64 = f64)
    };
}

/// Like [`with_scalar!`] for the arithmetic types; `$none` for `bool`.
#[macro_export]
macro_rules! with_arith {
    ($ty:expr, $T:ident => $body:expr, $none:expr) => {
        $crate::scalar_match!($ty, $T => $body, $none; Int16 = i16, UInt16 = u16, Int32 = i32,
            UInt32 = u32, Int64 = i64, UInt64 = u64, Float16 = half::f16, Float32 = f32, Float64 = f64)
    };
}

/// Like [`with_scalar!`] for the integer types; `$none` otherwise.
#[macro_export]
macro_rules! with_int {
    ($ty:expr, $T:ident => $body:expr, $none:expr) => {
        $crate::scalar_match!($ty, $T => $body, $none; Int16 = i16, UInt16 = u16, Int32 = i32,
            UInt32 = u32, Int64 = i64, UInt64 = u64)
    };
}

/// Like [`with_scalar!`] for the float types; `$none` otherwise.
#[macro_export]
macro_rules! with_float {
    ($ty:expr, $T:ident => $body:expr, $none:expr) => {
        $crate::scalar_match!($ty, $T => $body, $none; Float16 = half::f16, Float32 = f32, Float64 = f64)
    };
}

/// Whether converting `from` to `to` leaves every lane's bits as they
/// are (a lane holds a value zero-extended): between the signed and
/// unsigned integers of one width, which wrap to the same bit pattern, and
/// from an unsigned integer to a wider integer. Not from `bool`: a `bool`
/// read from memory holds the word it was stored as, any nonzero word
/// being true, and converts to 1.
pub fn same_lane_bits(from: lockstep_ir::ScalarType, to: lockstep_ir::ScalarType) -> bool {
    use lockstep_ir::ScalarType as S;
    // Bits and signedness of the integer types.
    let int = |ty| match ty {
        S::Int16 => Some((16, true)),
        S::UInt16 => Some((16, false)),
        S::Int32 => Some((32, true)),
        S::UInt32 => Some((32, false)),
        S::Int64 => Some((64, true)),
        S::UInt64 => Some((64, false)),
        S::Bool | S::Float16 | S::Float32 | S::Float64 => None,
    };
    match (int(from), int(to)) {
        (Some((a, signed)), Some((b, _))) => a == b || (!signed && a < b),
        _ => from == to,
    }
}

/// Converts a value between scalar types with HLSL's rules (see
/// `lockstep_wave::Cast`): float to integer saturates (NaN gives 0), integer
/// to float and narrowing float conversions round to nearest even, anything
/// to bool is `!= 0`, bool to number is 0 or 1.
#[inline]
pub fn convert_bits(bits: u64, from: lockstep_ir::ScalarType, to: lockstep_ir::ScalarType) -> u64 {
    if from == to {
        return bits;
    }
    with_scalar!(from, A => {
        let value = A::from_lane(bits);
        with_scalar!(to, B => lockstep_wave::convert::<B, A>(value).to_lane())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use lockstep_ir::ScalarType as S;

    /// `same_lane_bits` holds for exactly the pairs whose conversion
    /// leaves every lane it was tried on as it was.
    #[test]
    fn same_lane_bits_are_the_conversions_that_change_no_lane() {
        let types = [
            S::Bool,
            S::Int16,
            S::UInt16,
            S::Int32,
            S::UInt32,
            S::Int64,
            S::UInt64,
            S::Float16,
            S::Float32,
            S::Float64,
        ];
        // Bit patterns of each type's lanes: small numbers, sign bits,
        // ones, and 1.0, -2.0 and NaN of each float width.
        let patterns: [u64; 14] = [
            0,
            1,
            2,
            0x7F,
            0x8000,
            0xFFFF,
            0x3C00,
            0xC000,
            0x8000_0000,
            0xFFFF_FFFF,
            0x3F80_0000,
            0x7FC0_0000,
            0x3FF0_0000_0000_0000,
            u64::MAX,
        ];
        for from in types {
            // A `bool` lane holds any word (as loaded from memory).
            let bits = match from {
                S::Bool => 32,
                S::Int16 | S::UInt16 | S::Float16 => 16,
                S::Int32 | S::UInt32 | S::Float32 => 32,
                _ => 64,
            };
            let lanes: Vec<u64> = patterns
                .iter()
                .map(|&p| if bits == 64 { p } else { p & ((1 << bits) - 1) })
                .collect();
            for to in types {
                let unchanged = lanes.iter().all(|&x| convert_bits(x, from, to) == x);
                assert_eq!(same_lane_bits(from, to), unchanged, "{from:?} to {to:?}");
            }
        }
        // By hand.
        assert!(same_lane_bits(S::Int32, S::UInt32) && same_lane_bits(S::UInt16, S::Int64));
        assert!(!same_lane_bits(S::Int32, S::Int64) && !same_lane_bits(S::UInt32, S::UInt16));
        assert!(!same_lane_bits(S::Float32, S::UInt32) && !same_lane_bits(S::Int32, S::Bool));
        assert!(!same_lane_bits(S::Bool, S::UInt32) && same_lane_bits(S::Bool, S::Bool));
    }
}
