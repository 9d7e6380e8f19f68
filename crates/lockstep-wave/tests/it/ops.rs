//! Scalar operators and builtins against hand-derived values.

use core::f64::consts::PI;

use half::f16;
use lockstep_wave::ops::*;
use lockstep_wave::{Arith, Bits, Cast, Float, convert};

/// Asserts that two floats have the same bit pattern, so that `-0.0` and NaN are checked exactly.
fn assert_bits<T: Float>(actual: T, expected: T) {
    assert!(actual.same_value(expected), "{actual:?} != {expected:?}");
}

/// Asserts that a transcendental result is within a few ulps, since those come from the platform's
/// math library.
fn assert_close(actual: f64, expected: f64) {
    assert!(
        (actual - expected).abs() <= 4.0 * f64::EPSILON * expected.abs().max(1.0),
        "{actual} != {expected}"
    );
}

fn h(x: f32) -> f16 {
    f16::from_f32(x)
}

#[test]
fn integer_division_and_remainder() {
    assert_eq!(7u32.div(0), 0xFFFF_FFFF);
    assert_eq!(7u32.rem(0), 0xFFFF_FFFF);
    assert_eq!(7i32.div(0), -1);
    assert_eq!((-7i32).rem(0), -1);
    assert_eq!(7u16.div(0), u16::MAX);
    assert_eq!(7i64.rem(0), -1);
    assert_eq!(i32::MIN.div(-1), i32::MIN);
    assert_eq!(i32::MIN.rem(-1), 0);
    assert_eq!(i16::MIN.div(-1), i16::MIN);
    assert_eq!((-7i32).div(2), -3);
    assert_eq!((-7i32).rem(2), -1);
    assert_eq!(7i32.rem(-2), 1);
    assert_eq!(u32::MAX.div(2), 0x7FFF_FFFF);
}

#[test]
fn integer_arithmetic_wraps() {
    assert_eq!(u32::MAX.add(1), 0);
    assert_eq!(i32::MAX.add(1), i32::MIN);
    assert_eq!(0u32.sub(1), u32::MAX);
    assert_eq!(1u32.neg(), u32::MAX);
    assert_eq!(i32::MIN.neg(), i32::MIN);
    assert_eq!(0x1_0000u32.mul(0x1_0000), 0);
    assert_eq!(i16::MAX.mul(2), -2);
    // The inherent `i32::abs` would panic on `MIN`, so the trait method is named explicitly.
    assert_eq!(Arith::abs(-5i32), 5);
    assert_eq!(Arith::abs(i32::MIN), i32::MIN);
    assert_eq!(Arith::abs(u32::MAX), u32::MAX);
    assert_eq!(Arith::min(-1i32, 1), -1);
    assert_eq!(Arith::min(u32::MAX, 1), 1);
    assert_eq!(Arith::max(-1i64, 1), 1);
}

#[test]
fn shifts_mask_the_amount() {
    assert_eq!(1u32.shl(33), 2);
    assert_eq!(1u32.shl(32), 1);
    assert_eq!(1i32.shl(-1), i32::MIN);
    assert_eq!(0x8000_0000u32.shr(31), 1);
    assert_eq!((-8i32).shr(1), -4);
    assert_eq!(i32::MIN.shr(31), -1);
    assert_eq!(1i16.shl(17), 2);
    assert_eq!(u16::MAX.shr(15), 1);
    assert_eq!(1u64.shl(65), 2);
    assert_eq!((-1i64).shr(63), -1);
    assert_eq!(0x0Fu32.not(), 0xFFFF_FFF0);
    assert_eq!(0b1100u32.and(0b1010), 0b1000);
    assert_eq!(0b1100u32.or(0b1010), 0b1110);
    assert_eq!(0b1100u32.xor(0b1010), 0b0110);
}

#[test]
fn bit_counting() {
    assert_eq!(countbits(0xF0F0u32), 8);
    assert_eq!(countbits(-1i32), 32);
    assert_eq!(countbits(u64::MAX), 64);
    assert_eq!(reversebits(1u32), 0x8000_0000);
    assert_eq!(reversebits(6u32), 0x6000_0000);
    assert_eq!(reversebits(1u64), 1 << 63);
    assert_eq!(reversebits(1i32), i32::MIN);
}

#[test]
fn first_bit_high() {
    assert_eq!(firstbithigh(0x0001_0000u32), 16);
    assert_eq!(firstbithigh(1u32), 0);
    assert_eq!(firstbithigh(u32::MAX), 31);
    assert_eq!(firstbithigh(0u32), 0xFFFF_FFFF);
    assert_eq!(firstbithigh(5i32), 2);
    assert_eq!(firstbithigh(0i32), 0xFFFF_FFFF);
    // Negative values report their highest clear bit.
    assert_eq!(firstbithigh(-1i32), 0xFFFF_FFFF);
    assert_eq!(firstbithigh(-2i32), 0);
    assert_eq!(firstbithigh(-0x100i32), 7);
    assert_eq!(firstbithigh(i32::MIN), 30);
    assert_eq!(firstbithigh(1u64 << 40), 40);
    assert_eq!(firstbithigh(-1i64), 0xFFFF_FFFF);
    assert_eq!(firstbithigh(i64::MIN), 62);
}

#[test]
fn first_bit_low() {
    assert_eq!(firstbitlow(0x0001_0000u32), 16);
    assert_eq!(firstbitlow(0u32), 0xFFFF_FFFF);
    assert_eq!(firstbitlow(0x8000_0000u32), 31);
    assert_eq!(firstbitlow(-4i32), 2);
    assert_eq!(firstbitlow(0i64), 0xFFFF_FFFF);
    assert_eq!(firstbitlow(1u64 << 63), 63);
}

#[test]
fn sign_returns_an_int() {
    assert_eq!(sign(-3i32), -1);
    assert_eq!(sign(0i32), 0);
    assert_eq!(sign(5u32), 1);
    assert_eq!(sign(u64::MAX), 1);
    assert_eq!(sign(-0.0f32), 0);
    assert_eq!(sign(f32::NAN), 0);
    assert_eq!(sign(f64::NEG_INFINITY), -1);
    assert_eq!(sign(h(0.5)), 1);
}

/// The minNum/maxNum rules, checked once per float type.
fn float_min_max_rules<T: Float>()
where
    f64: Cast<T>,
{
    let c = convert::<T, f64>;
    let (nan, one, pos_zero, neg_zero) = (c(f64::NAN), c(1.0), c(0.0), c(-0.0));
    assert_bits(Arith::min(nan, one), one);
    assert_bits(Arith::min(one, nan), one);
    assert_bits(Arith::max(nan, one), one);
    assert_bits(Arith::max(one, nan), one);
    assert!(isnan(Arith::min(nan, nan)));
    assert_bits(Arith::min(neg_zero, pos_zero), neg_zero);
    assert_bits(Arith::min(pos_zero, neg_zero), neg_zero);
    assert_bits(Arith::max(neg_zero, pos_zero), pos_zero);
    assert_bits(Arith::max(pos_zero, neg_zero), pos_zero);
    assert_bits(Arith::min(c(-2.0), one), c(-2.0));
    assert_bits(Arith::max(c(-2.0), one), one);
    assert_bits(neg_zero.abs(), pos_zero);
    assert_bits(c(f64::NEG_INFINITY).abs(), c(f64::INFINITY));
}

#[test]
fn float_min_max() {
    float_min_max_rules::<f16>();
    float_min_max_rules::<f32>();
    float_min_max_rules::<f64>();
}

#[test]
fn clamp_and_saturate() {
    assert_eq!(clamp(5i32, 0, 3), 3);
    assert_eq!(clamp(-1i32, 0, 3), 0);
    assert_eq!(clamp(2u32, 0, 3), 2);
    assert_eq!(clamp(f32::NAN, 0.0, 1.0), 0.0);
    assert_eq!(saturate(1.5f32), 1.0);
    assert_eq!(saturate(-0.5f64), 0.0);
    assert_eq!(saturate(0.25f32), 0.25);
    assert_eq!(saturate(f32::NAN), 0.0);
    assert_eq!(saturate(f32::INFINITY), 1.0);
    assert_eq!(saturate(h(2.0)), h(1.0));
}

#[test]
fn rounding() {
    assert_eq!(floor(-1.5f32), -2.0);
    assert_eq!(ceil(-1.5f32), -1.0);
    assert_eq!(trunc(-1.7f32), -1.0);
    assert_eq!(round(2.5f32), 2.0);
    assert_eq!(round(-2.5f32), -2.0);
    assert_eq!(round(3.5f64), 4.0);
    assert_eq!(round(0.5f32), 0.0);
    assert_eq!(round(1.5f32), 2.0);
    assert_eq!(round(2.6f32), 3.0);
    assert_eq!(round(h(2.5)), h(2.0));
    assert_bits(round(-0.4f32), -0.0);
    assert_eq!(frac(1.25f32), 0.25);
    assert_eq!(frac(-1.25f32), 0.75);
    // The exact 1 - 1e-8 is nearer 1.0 than any float below it.
    assert_eq!(frac(-1e-8f32), 1.0);
}

/// A signalling NaN comes out of each rounding quieted, its payload and
/// sign kept, as the machine's rounding instructions give it.
#[test]
fn rounding_quiets_nans() {
    let rounders: [fn(f32) -> f32; 4] = [floor, ceil, trunc, round];
    for f in rounders {
        assert_eq!(f(f32::from_bits(0x7F80_0001)).to_bits(), 0x7FC0_0001);
        assert_eq!(f(f32::from_bits(0xFF80_1234)).to_bits(), 0xFFC0_1234);
        assert_eq!(f(f32::from_bits(0x7FC0_0005)).to_bits(), 0x7FC0_0005);
    }
    assert_eq!(
        floor(f64::from_bits(0x7FF0_0000_0000_0001)).to_bits(),
        0x7FF8_0000_0000_0001
    );
}

#[test]
fn fmod_takes_the_sign_of_x() {
    assert_eq!(fmod(-7.5f32, 2.0), -1.5);
    assert_eq!(fmod(7.5f32, -2.0), 1.5);
    assert_eq!(fmod(7.5f64, 2.0), 1.5);
    assert!(isnan(fmod(1.0f32, 0.0)));
    assert_eq!(fmod(h(-7.5), h(2.0)), h(-1.5));
    assert_eq!((-7.5f32).rem(2.0), -1.5);
}

#[test]
fn roots_and_reciprocals() {
    assert_eq!(sqrt(4.0f32), 2.0);
    assert!(isnan(sqrt(-1.0f32)));
    assert_bits(sqrt(-0.0f32), -0.0);
    assert_eq!(rsqrt(4.0f32), 0.5);
    assert_eq!(rsqrt(0.0f64), f64::INFINITY);
    assert_eq!(rsqrt(h(16.0)), h(0.25));
    assert_eq!(rcp(4.0f32), 0.25);
    assert_eq!(rcp(0.0f32), f32::INFINITY);
    assert_eq!(rcp(-0.0f64), f64::NEG_INFINITY);
    assert_eq!(rcp(h(-8.0)), h(-0.125));
}

#[test]
fn exponentials_and_logarithms() {
    assert_eq!(exp(0.0f32), 1.0);
    assert_close(exp(1.0f64), core::f64::consts::E);
    assert_eq!(exp2(3.0f32), 8.0);
    assert_eq!(exp2(-1.0f64), 0.5);
    assert_eq!(exp2(f32::NEG_INFINITY), 0.0);
    assert_eq!(log(1.0f32), 0.0);
    assert_close(log(core::f64::consts::E), 1.0);
    assert_eq!(log2(8.0f32), 3.0);
    assert_eq!(log2(0.0f32), f32::NEG_INFINITY);
    assert!(isnan(log2(-1.0f32)));
    assert_close(log10(1000.0f64), 3.0);
    assert_eq!(ldexp(3.0f32, 2.0), 12.0);
    assert_eq!(ldexp(h(3.0), h(-1.0)), h(1.5));
}

#[test]
fn pow_follows_the_exp2_log2_lowering() {
    assert_eq!(pow(2.0f32, 10.0), 1024.0);
    assert_eq!(pow(4.0f64, 0.5), 2.0);
    assert_eq!(pow(0.0f32, 2.0), 0.0);
    assert_eq!(pow(h(2.0), h(3.0)), h(8.0));
    // A negative base has no logarithm, and 0 * log2(0) = 0 * -inf is NaN.
    assert!(isnan(pow(-2.0f32, 2.0)));
    assert!(isnan(pow(0.0f32, 0.0)));
}

#[test]
fn trigonometry() {
    assert_eq!(sin(0.0f32), 0.0);
    assert_eq!(cos(0.0f64), 1.0);
    assert_eq!(tan(0.0f32), 0.0);
    assert_close(asin(1.0f64), PI / 2.0);
    assert_eq!(acos(1.0f32), 0.0);
    assert!(isnan(acos(2.0f32)));
    assert_close(atan(1.0f64), PI / 4.0);
    assert_close(atan2(1.0f64, -1.0), 3.0 * PI / 4.0);
    assert_close(atan2(0.0f64, -1.0), PI);
    // DXC's lowering: `-0 >= 0` holds, so `atan(-0 / -1) + pi`, and
    // `x == 0` gives `pi/2` for `y >= 0`, `-pi/2` below; NaN stays NaN.
    assert_close(atan2(-0.0f64, -1.0), PI);
    assert_close(atan2(-1.0f64, -1.0), -3.0 * PI / 4.0);
    assert_eq!(atan2(0.0f32, 0.0), std::f32::consts::FRAC_PI_2);
    assert_eq!(atan2(-0.0f32, -0.0), std::f32::consts::FRAC_PI_2);
    assert_eq!(atan2(-2.0f32, 0.0), -std::f32::consts::FRAC_PI_2);
    assert_eq!(atan2(h(0.0), h(0.0)), h(std::f32::consts::FRAC_PI_2));
    assert!(isnan(atan2(f32::NAN, 0.0)));
    assert!(isnan(atan2(0.0f32, f32::NAN)));
    assert_eq!(sinh(0.0f32), 0.0);
    assert_eq!(cosh(0.0f32), 1.0);
    assert_eq!(tanh(f32::INFINITY), 1.0);
    assert_close(degrees(PI), 180.0);
    assert_close(radians(180.0f64), PI);
    assert_close(f64::from(sin(h(0.0))), 0.0);
}

#[test]
fn interpolation() {
    assert_eq!(lerp(2.0f32, 6.0, 0.25), 3.0);
    assert_eq!(lerp(h(2.0), h(6.0), h(0.75)), h(5.0));
    assert_eq!(step(0.5f32, 0.5), 1.0);
    assert_eq!(step(1.0f32, 0.5), 0.0);
    // DXC selects 0 where `x < y`: a NaN on either side gives 1.
    assert_eq!(step(f32::NAN, 1.0), 1.0);
    assert_eq!(step(1.0f32, f32::NAN), 1.0);
    // `t * (t * (3 - 2t))` at t = 0.123 rounds to 0x3D2AA934 (DXC's order);
    // `(t * t) * (3 - 2t)` gives 0x3D2AA933.
    assert_eq!(smoothstep(0.0f32, 1.0, 0.123).to_bits(), 0x3D2A_A934);
    assert_eq!(smoothstep(0.0f32, 1.0, 0.5), 0.5);
    assert_eq!(smoothstep(0.0f32, 1.0, -1.0), 0.0);
    assert_eq!(smoothstep(0.0f32, 1.0, 2.0), 1.0);
    // t = 0.25, so t * t * (3 - 2 * t) = 0.0625 * 2.5.
    assert_eq!(smoothstep(0.0f64, 2.0, 0.5), 0.15625);
}

#[test]
fn mad_rounds_twice_and_fma_once() {
    assert_eq!(mad(2i32, 3, 4), 10);
    assert_eq!(mad(u32::MAX, 2, 3), 1);
    // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24; rounding the product drops the 2^-24 (a tie, to even).
    let a = 1.0 + 2f32.powi(-12);
    assert_eq!(mad(a, a, -1.0), 2f32.powi(-11));
    assert_eq!(fma(a, a, -1.0), 2f32.powi(-11) + 2f32.powi(-24));
    assert_eq!(fma(2.0f64, 3.0, 4.0), 10.0);
}

#[test]
fn classification() {
    assert!(isnan(f32::NAN));
    assert!(!isnan(f32::INFINITY));
    assert!(isinf(f64::NEG_INFINITY));
    assert!(!isinf(1.0f32));
    assert!(isfinite(1.0f32));
    assert!(!isfinite(f32::NAN));
    assert!(isnan(f16::NAN));
    assert!(isinf(f16::INFINITY));
    assert!(isfinite(f16::MAX));
}

#[test]
fn half_conversion_builtins() {
    assert_eq!(f32tof16(1.0), 0x3C00);
    assert_eq!(f32tof16(-2.0), 0xC000);
    assert_eq!(f32tof16(65504.0), 0x7BFF);
    assert_eq!(f32tof16(65520.0), 0x7C00);
    assert_eq!(f32tof16(0.1), 0x2E66);
    // 1 + 2^-11 lies halfway between 1 and the next binary16 value; the tie goes to even.
    assert_eq!(f32tof16(1.0 + 2f32.powi(-11)), 0x3C00);
    assert_eq!(f32tof16(1.0 + 3.0 * 2f32.powi(-11)), 0x3C02);
    assert_eq!(f32tof16(2f32.powi(-24)), 0x0001);
    assert_eq!(f32tof16(2f32.powi(-25)), 0x0000);
    assert_eq!(f16tof32(0x3C00), 1.0);
    assert_eq!(f16tof32(0xFFFF_3C00), 1.0);
    assert_eq!(f16tof32(0x7C00), f32::INFINITY);
    assert_eq!(f16tof32(0x0001), 2f32.powi(-24));
    assert_eq!(f16tof32(0x8000).to_bits(), (-0.0f32).to_bits());
}

/// `f32tof16` computes the bits itself, without branches; `half` is the
/// reference: every 251st bit pattern, and every pattern around each case's
/// boundaries (zero, the subnormal results and their rounding, the smallest
/// normal, the largest finite and the overflow to infinity, infinity, NaN),
/// with both signs.
#[test]
fn f32tof16_matches_half_on_every_kind_of_input() {
    let reference = |bits: u32| u32::from(f16::from_f32(f32::from_bits(bits)).to_bits());
    let boundaries = [
        0u32,
        103 << 23, // 2^-24: the smallest subnormal binary16
        102 << 23,
        113 << 23,   // 2^-14: the smallest normal binary16
        0x477F_E000, // 65504
        0x477F_F000, // 65520: rounds to infinity
        143 << 23,
        0x7F80_0000, // infinity
        0x7F80_0001, // the NaNs
        0x7FC0_0000,
        0x7FFF_FFFF,
    ];
    let near = boundaries
        .iter()
        .flat_map(|&b| (0..=8192u32).map(move |d| [b.wrapping_add(d), b.wrapping_sub(d)]))
        .flatten();
    let strided = (0..=u32::MAX / 251).map(|i| i * 251);
    for abs in near.chain(strided) {
        let abs = abs & 0x7FFF_FFFF;
        for bits in [abs, abs | 0x8000_0000] {
            assert_eq!(
                f32tof16(f32::from_bits(bits)),
                reference(bits),
                "{bits:#010x}"
            );
        }
    }
}

#[test]
fn half_arithmetic_rounds_once_per_operation() {
    // 2049 is a tie between 2048 and 2050 in binary16; ties go to even.
    assert_eq!(h(2048.0).add(h(1.0)), h(2048.0));
    assert_eq!(h(2048.0).add(h(3.0)), h(2052.0));
    assert_eq!(h(1.0).div(h(3.0)), h(1.0 / 3.0));
    assert_eq!(h(65504.0).mul(h(2.0)), f16::INFINITY);
    assert_eq!(h(-3.0).neg(), h(3.0));
}

/// The NaN of a float operator, as SSE gives it: the first operand's NaN, else the second's, made
/// quiet; the negative quiet NaN for an invalid operation. By hand, in all three widths, with
/// the operands in both orders.
#[test]
fn operator_nans_follow_the_first_nan_operand() {
    let f = f32::from_bits;
    let (quiet, signaling, other) = (f(0x7FC0_1234), f(0x7F80_0005), f(0xFFC0_9999));
    assert_bits(Arith::add(quiet, other), quiet);
    assert_bits(Arith::add(other, quiet), other);
    assert_bits(Arith::mul(signaling, 2.0), f(0x7FC0_0005));
    assert_bits(Arith::mul(2.0, signaling), f(0x7FC0_0005));
    assert_bits(Arith::sub(1.0, other), other);
    assert_bits(Arith::div(signaling, quiet), f(0x7FC0_0005));
    assert_bits(Arith::div(quiet, signaling), quiet);
    assert_bits(Arith::sub(f32::INFINITY, f32::INFINITY), f(0xFFC0_0000));
    assert_bits(Arith::mul(0.0, f32::INFINITY), f(0xFFC0_0000));
    assert_bits(Arith::div(0.0f32, 0.0), f(0xFFC0_0000));

    let d = f64::from_bits;
    let (quiet, signaling) = (d(0x7FF8_0000_0000_0042), d(0xFFF0_0000_0000_0007));
    assert_bits(Arith::add(2.0, quiet), quiet);
    assert_bits(Arith::mul(signaling, quiet), d(0xFFF8_0000_0000_0007));
    assert_bits(Arith::mul(quiet, signaling), quiet);
    assert_bits(
        Arith::add(f64::NEG_INFINITY, f64::INFINITY),
        d(0xFFF8_0000_0000_0000),
    );

    // `half` computes in `f32` and narrows: the payload's top ten bits stay.
    let h = f16::from_bits;
    let (quiet, other) = (h(0x7E01), h(0xFE40));
    assert_bits(Arith::add(quiet, other), quiet);
    assert_bits(Arith::add(other, quiet), other);
    assert_bits(Arith::sub(f16::INFINITY, f16::INFINITY), h(0xFE00));
}
