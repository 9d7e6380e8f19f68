//! Parsing of the number spellings accepted in `Data` and `FillValue`.

use std::str::FromStr;

/// Parses a decimal, `0x` hex, `0o` octal or `0b` binary integer with an
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

/// Parses a float, accepting Rust spellings (`1.5`, `2`, `1e-3`, `nan`,
/// `inf`, `infinity`, any case) and the YAML ones (`.nan`, `.inf`, `-.inf`).
pub(crate) fn parse_float<T: FromStr>(text: &str) -> Option<T> {
    let trimmed = text.trim();
    let (negative, unsigned) = split_sign(trimmed);
    match unsigned.strip_prefix('.') {
        Some(word) if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphabetic()) => {
            let sign = if negative { "-" } else { "" };
            format!("{sign}{word}").parse().ok()
        }
        _ => trimmed.parse().ok(),
    }
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
        for text in ["", "x", "0x10", ".", "-.", "1..2"] {
            assert_eq!(parse_float::<f32>(text), None, "{text:?}");
        }
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
