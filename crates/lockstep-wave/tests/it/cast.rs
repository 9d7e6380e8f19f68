//! Conversions between lane types against hand-derived values.

use half::f16;
use lockstep_wave::convert;

#[test]
fn float_to_integer_truncates_and_saturates() {
    assert_eq!(convert::<i32, f32>(3.7), 3);
    assert_eq!(convert::<i32, f32>(-3.7), -3);
    assert_eq!(convert::<i32, f32>(f32::NAN), 0);
    assert_eq!(convert::<i32, f32>(1e10), i32::MAX);
    assert_eq!(convert::<i32, f64>(-1e10), i32::MIN);
    assert_eq!(convert::<u32, f32>(-1.0), 0);
    assert_eq!(convert::<u16, f32>(f32::INFINITY), u16::MAX);
    assert_eq!(convert::<i64, f64>(f64::NEG_INFINITY), i64::MIN);
}

#[test]
fn integer_to_integer_truncates_or_extends() {
    assert_eq!(convert::<u32, i32>(-1), u32::MAX);
    assert_eq!(convert::<i16, u32>(0x1_2345), 0x2345);
    assert_eq!(convert::<i64, i16>(-2), -2);
    assert_eq!(convert::<i32, u16>(0xFFFF), 0xFFFF);
    assert_eq!(convert::<u64, i32>(-1), u64::MAX);
}

#[test]
fn to_float_rounds_to_nearest_even() {
    // 2^24 + 1 is halfway between two floats; the tie goes to the even 2^24.
    assert_eq!(convert::<f32, i32>(16_777_217), 16_777_216.0);
    assert_eq!(convert::<f32, i32>(16_777_219), 16_777_220.0);
    assert_eq!(convert::<f32, u64>(u64::MAX), 18_446_744_073_709_551_616.0);
    assert_eq!(convert::<f32, f64>(1.0 + 2f64.powi(-24)), 1.0);
    assert_eq!(convert::<f64, f32>(0.1), f64::from(0.1f32));
}

#[test]
fn to_half_rounds_once() {
    let h = f16::from_f32;
    assert_eq!(convert::<f16, i32>(65519), h(65504.0));
    assert_eq!(convert::<f16, i32>(65520), f16::INFINITY);
    assert_eq!(convert::<f16, i32>(2049), h(2048.0));
    assert_eq!(convert::<f16, u16>(2051), h(2052.0));
    assert_eq!(convert::<f16, i64>(i64::MIN), f16::NEG_INFINITY);
    assert_eq!(convert::<f16, u64>(u64::MAX), f16::INFINITY);
    assert_eq!(convert::<f16, f32>(0.1), h(0.1));
    // Just above the tie between 1 and 1 + 2^-10: rounding through f32 first would land exactly on
    // the tie and go down to 1; one rounding goes up.
    let above_tie = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
    assert_eq!(convert::<f16, f64>(above_tie).to_bits(), 0x3C01);
    let below_tie = 1.0 + 2f64.powi(-11) - 2f64.powi(-40);
    assert_eq!(convert::<f16, f64>(below_tie).to_bits(), 0x3C00);
    assert_eq!(convert::<f16, f64>(1.0 + 2f64.powi(-11)).to_bits(), 0x3C00);
    assert_eq!(
        convert::<f16, f64>(1.0 + 3.0 * 2f64.powi(-11)).to_bits(),
        0x3C02
    );
    assert_eq!(convert::<f16, f64>(-1e-300).to_bits(), 0x8000);
    assert_eq!(convert::<f16, f64>(1e300), f16::INFINITY);
    assert!(convert::<f16, f64>(f64::NAN).is_nan());
}

#[test]
fn from_half() {
    let h = f16::from_f32;
    assert_eq!(convert::<f32, f16>(h(0.1)), 0.099975586);
    assert_eq!(convert::<i32, f16>(h(-1.5)), -1);
    assert_eq!(convert::<u16, f16>(h(-1.0)), 0);
    assert_eq!(convert::<i32, f16>(f16::NAN), 0);
    assert_eq!(convert::<i32, f16>(f16::INFINITY), i32::MAX);
    assert_eq!(convert::<f64, f16>(f16::MAX), 65504.0);
    assert_eq!(convert::<f16, f16>(h(3.0)), h(3.0));
}

#[test]
fn bool_conversions() {
    assert_eq!(convert::<i32, bool>(true), 1);
    assert_eq!(convert::<f32, bool>(true), 1.0);
    assert_eq!(convert::<f16, bool>(false), f16::ZERO);
    assert!(convert::<bool, i32>(2));
    assert!(!convert::<bool, u64>(0));
    assert!(convert::<bool, f32>(f32::NAN));
    assert!(!convert::<bool, f32>(-0.0));
    assert!(convert::<bool, f16>(f16::MIN_POSITIVE_SUBNORMAL));
    assert!(convert::<bool, bool>(true));
}
