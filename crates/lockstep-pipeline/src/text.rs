//! Parsing of the number spellings accepted in `Data` and `FillValue`.

use std::str::FromStr;

/// Parses an integer as LLVM's YAML reader does (its radix sensed from a
/// `0x`, `0o` or `0b` prefix, or a leading `0` for octal), with an
/// optional sign. Magnitudes beyond `i128` saturate, so that range checks
/// reject them rather than calling them non-numbers.
pub(crate) fn parse_int(text: &str) -> Option<i128> {
    let (negative, unsigned) = split_sign(text.trim());
    let (radix, digits) = split_radix(unsigned);
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u128::from_str_radix(digits, radix).unwrap_or(u128::MAX);
    let magnitude = i128::try_from(magnitude).unwrap_or(i128::MAX);
    Some(if negative { -magnitude } else { magnitude })
}

/// A float format: what [`parse_float`] needs to round a hex float.
pub(crate) trait Float: FromStr {
    /// Significand bits, the implicit one included.
    const PRECISION: u32;
    /// The exponent of the smallest normal value.
    const MIN_EXPONENT: i64;
    const TOTAL_BITS: u32;
    fn from_raw(bits: u64) -> Self;
}

impl Float for f32 {
    const PRECISION: u32 = 24;
    const MIN_EXPONENT: i64 = -126;
    const TOTAL_BITS: u32 = 32;
    fn from_raw(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
}

impl Float for f64 {
    const PRECISION: u32 = 53;
    const MIN_EXPONENT: i64 = -1022;
    const TOTAL_BITS: u32 = 64;
    fn from_raw(bits: u64) -> Self {
        f64::from_bits(bits)
    }
}

/// Parses a float as C's `strtod` does, which LLVM's YAML reader uses:
/// decimals (`1.5`, `2`, `1e-3`), hex floats (`0x1.8p3`, `0x10`, rounded
/// to nearest even), `nan`, `inf` and `infinity` in any case; and the
/// YAML spellings `.nan`, `.inf`, `-.inf`.
pub(crate) fn parse_float<T: Float>(text: &str) -> Option<T> {
    let trimmed = text.trim();
    let (negative, unsigned) = split_sign(trimmed);
    if let Some(hex) = unsigned
        .strip_prefix("0x")
        .or_else(|| unsigned.strip_prefix("0X"))
    {
        let bits = hex_float::<T>(hex)?;
        let sign = u64::from(negative) << (T::TOTAL_BITS - 1);
        return Some(T::from_raw(bits | sign));
    }
    match unsigned.strip_prefix('.') {
        Some(word) if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphabetic()) => {
            let sign = if negative { "-" } else { "" };
            format!("{sign}{word}").parse().ok()
        }
        _ => trimmed.parse().ok(),
    }
}

/// The bits of a positive hex float (the text after `0x`): hex digits with
/// an optional point, then an optional `p` and a decimal power of two.
fn hex_float<T: Float>(text: &str) -> Option<u64> {
    let (digits, exponent) = match text.find(['p', 'P']) {
        Some(at) => (&text[..at], text[at + 1..].parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    // The first 16 significant digits, then one sticky bit for the rest.
    let mut mantissa = 0u64;
    let mut shift = exponent.clamp(-100_000, 100_000);
    let mut significant = 0;
    for (index, c) in whole.chars().chain(fraction.chars()).enumerate() {
        let digit = u64::from(c.to_digit(16)?);
        let in_fraction = index >= whole.len();
        if significant < 16 {
            if mantissa != 0 || digit != 0 {
                significant += 1;
            }
            mantissa = mantissa << 4 | digit;
            if in_fraction {
                shift -= 4;
            }
        } else {
            mantissa |= u64::from(digit != 0);
            if !in_fraction {
                shift += 4;
            }
        }
    }
    Some(round_binary::<T>(mantissa, shift))
}

/// The bits of the float nearest `mantissa` × 2^`shift` (ties to even).
fn round_binary<T: Float>(mantissa: u64, shift: i64) -> u64 {
    if mantissa == 0 {
        return 0;
    }
    let precision = i64::from(T::PRECISION);
    let exponent = 63 - i64::from(mantissa.leading_zeros()) + shift;
    let infinity = ((1u64 << (T::TOTAL_BITS - T::PRECISION)) - 1) << (T::PRECISION - 1);
    let max_exponent = -T::MIN_EXPONENT + 1;
    if exponent > max_exponent {
        return infinity;
    }
    // The place value of the result's last bit, and how far the mantissa
    // moves right to reach it.
    let quantum = exponent.max(T::MIN_EXPONENT) - (precision - 1);
    let right = quantum - shift;
    let units = if right <= 0 {
        mantissa << (-right).min(63)
    } else if right >= 64 {
        // Less than one unit of the smallest subnormal: one unit when over
        // half of it, else zero (a tie goes to zero, the even one).
        u64::from(right == 64 && mantissa > 1 << 63)
    } else {
        let kept = mantissa >> right;
        let rest = mantissa & ((1u64 << right) - 1);
        let half = 1u64 << (right - 1);
        kept + u64::from(rest > half || (rest == half && kept & 1 == 1))
    };
    let biased = (exponent.max(T::MIN_EXPONENT) - T::MIN_EXPONENT) as u64;
    (biased << (T::PRECISION - 1))
        .saturating_add(units)
        .min(infinity)
}

/// Parses `true`/`false` in any case, or `0`/`1` in any integer spelling.
pub(crate) fn parse_bool(text: &str) -> Option<bool> {
    let trimmed = text.trim();
    if trimmed.eq_ignore_ascii_case("true") {
        return Some(true);
    }
    if trimmed.eq_ignore_ascii_case("false") {
        return Some(false);
    }
    match parse_int(trimmed)? {
        0 => Some(false),
        1 => Some(true),
        _ => None,
    }
}

fn split_sign(text: &str) -> (bool, &str) {
    if let Some(rest) = text.strip_prefix('-') {
        (true, rest)
    } else {
        (false, text.strip_prefix('+').unwrap_or(text))
    }
}

fn split_radix(text: &str) -> (u32, &str) {
    if text.len() > 1 && text.starts_with('0') && text.as_bytes()[1].is_ascii_digit() {
        return (8, &text[1..]);
    }
    const PREFIXES: [(&str, u32); 6] = [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ];
    PREFIXES
        .iter()
        .find_map(|&(prefix, radix)| text.strip_prefix(prefix).map(|rest| (radix, rest)))
        .unwrap_or((10, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_in_every_radix() {
        assert_eq!(parse_int("42"), Some(42));
        assert_eq!(parse_int(" -7 "), Some(-7));
        assert_eq!(parse_int("+7"), Some(7));
        assert_eq!(parse_int("0x3C00"), Some(0x3C00));
        assert_eq!(parse_int("0XfF"), Some(255));
        assert_eq!(parse_int("-0x10"), Some(-16));
        assert_eq!(parse_int("0o17"), Some(15));
        assert_eq!(parse_int("0b101"), Some(5));
        // A leading zero means octal, as in LLVM.
        assert_eq!(parse_int("010"), Some(8));
        assert_eq!(parse_int("-017"), Some(-15));
        assert_eq!(parse_int("0"), Some(0));
        assert_eq!(parse_int("09"), None);
    }

    #[test]
    fn integer_rejects_and_saturation() {
        for text in ["", "-", "0x", "1.5", "abc", "0x-5", "--1", "1e3", "0x1g"] {
            assert_eq!(parse_int(text), None, "{text:?}");
        }
        assert_eq!(
            parse_int("0x1_0000_0000_0000_0000_0000_0000_0000_0000"),
            None
        );
        let huge = "9".repeat(60);
        assert_eq!(parse_int(&huge), Some(i128::MAX));
        assert_eq!(parse_int(&format!("-{huge}")), Some(-i128::MAX));
    }

    #[test]
    fn float_spellings() {
        assert_eq!(parse_float::<f32>("1.5"), Some(1.5));
        assert_eq!(parse_float::<f32>("2"), Some(2.0));
        assert_eq!(parse_float::<f64>("-1e-3"), Some(-0.001));
        for text in ["inf", "+inf", ".inf", "+.inf", ".Inf", "INF", "infinity"] {
            assert_eq!(parse_float::<f32>(text), Some(f32::INFINITY), "{text:?}");
        }
        for text in ["-inf", "-.inf", "-.INF", "-Infinity"] {
            assert_eq!(
                parse_float::<f64>(text),
                Some(f64::NEG_INFINITY),
                "{text:?}"
            );
        }
        for text in ["nan", "NaN", ".nan", ".NaN", "-nan"] {
            assert!(
                parse_float::<f32>(text).is_some_and(f32::is_nan),
                "{text:?}"
            );
        }
        assert!(parse_float::<f32>("-.nan").is_some_and(|v| v.is_nan() && v.is_sign_negative()));
        for text in ["", "x", "0x", "0x.p1", ".", "-.", "1..2", "0x1.g", "0x1p"] {
            assert_eq!(parse_float::<f32>(text), None, "{text:?}");
        }
    }

    #[test]
    fn hex_floats_round_as_strtod() {
        // Values worked out by hand: 0x1.8p3 = 1.5 * 8.
        assert_eq!(parse_float::<f32>("0x1.8p3"), Some(12.0));
        assert_eq!(parse_float::<f64>("-0x1p-2"), Some(-0.25));
        // A hex integer in a float buffer is its value, not a bit pattern.
        assert_eq!(parse_float::<f32>("0x10"), Some(16.0));
        assert_eq!(parse_float::<f32>("0x7F800000"), Some(2139095040.0));
        // 0x1.e7d42cp-127 is below f32's smallest normal (2^-126): in units
        // of 2^-149 it is 0x1e7d42c * 2^(22 - 24) = 0x79F50B exactly.
        assert_eq!(
            parse_float::<f32>("0x1.e7d42cp-127").map(f32::to_bits),
            Some(0x0079_F50B)
        );
        // The largest subnormal double.
        assert_eq!(
            parse_float::<f64>("0x0.fffffffffffffp-1022").map(f64::to_bits),
            Some(0x000F_FFFF_FFFF_FFFF)
        );
        // Ties go to even: 1 + 2^-24 is halfway between 1 and 1 + 2^-23.
        assert_eq!(parse_float::<f32>("0x1.000001p0"), Some(1.0));
        assert_eq!(
            parse_float::<f32>("0x1.000003p0"),
            Some(1.0 + 2.0 * f32::EPSILON)
        );
        // Digits past the sixteenth still break a tie upwards.
        assert_eq!(
            parse_float::<f32>("0x1.0000010000000000001p0"),
            Some(1.0 + f32::EPSILON)
        );
        assert_eq!(parse_float::<f32>("0x1p128"), Some(f32::INFINITY));
        assert_eq!(parse_float::<f32>("0x1.fffffffp127"), Some(f32::INFINITY));
        assert_eq!(parse_float::<f32>("0x1p-150"), Some(0.0));
        assert_eq!(parse_float::<f32>("0x1.8p-149").map(f32::to_bits), Some(2));
        assert_eq!(parse_float::<f64>("0x0p0"), Some(0.0));
    }

    #[test]
    fn bool_spellings() {
        assert_eq!(parse_bool("true"), Some(true));
        assert_eq!(parse_bool("False"), Some(false));
        assert_eq!(parse_bool("1"), Some(true));
        assert_eq!(parse_bool("0x0"), Some(false));
        assert_eq!(parse_bool("2"), None);
        assert_eq!(parse_bool("yes"), None);
    }
}
