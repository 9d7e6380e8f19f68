//! Element formats of buffer data: sizes, the text spellings of values and
//! their little-endian byte encoding.
//!
//! Every element is handled as its raw bit pattern in a `u64`; each format
//! is described by a row of [`Format::spec`] (name, size, class) and the
//! class decides how text is parsed and rendered.

use std::fmt;
use std::str::FromStr;

use half::f16;

use crate::error::PipelineError;
use crate::named::{self, Named};
use crate::text::{parse_bool, parse_float, parse_int};

/// The element format of a buffer, as named by the `Format` key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// 16-bit signed integers.
    Int16,
    /// 32-bit signed integers.
    Int32,
    /// 64-bit signed integers.
    Int64,
    /// 16-bit unsigned integers.
    UInt16,
    /// 32-bit unsigned integers.
    UInt32,
    /// 64-bit unsigned integers.
    UInt64,
    /// Half floats; `Data` spells them as bit patterns (`0x3C00` is 1.0).
    Float16,
    /// Single-precision floats.
    Float32,
    /// Double-precision floats.
    Float64,
    /// Booleans stored as 32-bit 0 or 1.
    Bool,
    /// Bytes, spelled in hex on output.
    Hex8,
    /// 16-bit integers, spelled in hex on output.
    Hex16,
    /// 32-bit integers, spelled in hex on output.
    Hex32,
    /// 64-bit integers, spelled in hex on output.
    Hex64,
}

/// How the values of a format are spelled and interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Signed,
    Unsigned,
    /// Integers spelled in hex on output, taking signed or unsigned input.
    Hex,
    Bool,
    /// IEEE floats; 16-bit ones are spelled as bit patterns.
    Float,
}

impl Format {
    /// Every format, in declaration order.
    pub const ALL: [Format; 14] = [
        Format::Int16,
        Format::Int32,
        Format::Int64,
        Format::UInt16,
        Format::UInt32,
        Format::UInt64,
        Format::Float16,
        Format::Float32,
        Format::Float64,
        Format::Bool,
        Format::Hex8,
        Format::Hex16,
        Format::Hex32,
        Format::Hex64,
    ];

    #[inline]
    const fn spec(self) -> (&'static str, usize, Class) {
        match self {
            Format::Int16 => ("Int16", 2, Class::Signed),
            Format::Int32 => ("Int32", 4, Class::Signed),
            Format::Int64 => ("Int64", 8, Class::Signed),
            Format::UInt16 => ("UInt16", 2, Class::Unsigned),
            Format::UInt32 => ("UInt32", 4, Class::Unsigned),
            Format::UInt64 => ("UInt64", 8, Class::Unsigned),
            Format::Float16 => ("Float16", 2, Class::Float),
            Format::Float32 => ("Float32", 4, Class::Float),
            Format::Float64 => ("Float64", 8, Class::Float),
            Format::Bool => ("Bool", 4, Class::Bool),
            Format::Hex8 => ("Hex8", 1, Class::Hex),
            Format::Hex16 => ("Hex16", 2, Class::Hex),
            Format::Hex32 => ("Hex32", 4, Class::Hex),
            Format::Hex64 => ("Hex64", 8, Class::Hex),
        }
    }

    /// The name used in pipeline files.
    pub const fn name(self) -> &'static str {
        self.spec().0
    }

    /// The size of one element in bytes.
    #[inline]
    pub const fn size(self) -> usize {
        self.spec().1
    }

    const fn class(self) -> Class {
        self.spec().2
    }

    const fn bits(self) -> u32 {
        8 * self.size() as u32
    }

    /// Whether the elements are IEEE floats (`Float16`, `Float32`, `Float64`).
    pub fn is_float(self) -> bool {
        self.class() == Class::Float
    }

    /// Whether values are two's-complement signed integers.
    pub fn is_signed_integer(self) -> bool {
        self.class() == Class::Signed
    }

    /// Reads the bit pattern of one element from its little-endian bytes
    /// (`bytes` holds at most 8 bytes; missing high bytes read as zero).
    #[inline]
    pub fn read_bits(self, bytes: &[u8]) -> u64 {
        let mut wide = [0u8; 8];
        let n = bytes.len().min(self.size());
        wide[..n].copy_from_slice(&bytes[..n]);
        u64::from_le_bytes(wide)
    }

    /// Appends the little-endian bytes of one element.
    pub fn write_bits(self, bits: u64, out: &mut Vec<u8>) {
        out.extend_from_slice(&bits.to_le_bytes()[..self.size()]);
    }

    /// The bit patterns of the whole elements in `bytes`.
    #[inline]
    pub fn elements(self, bytes: &[u8]) -> impl Iterator<Item = u64> + '_ {
        bytes
            .chunks_exact(self.size())
            .map(move |c| self.read_bits(c))
    }

    /// The numeric value of a float element, `None` for other formats.
    pub fn float_value(self, bits: u64) -> Option<f64> {
        match (self.class(), self.size()) {
            (Class::Float, 2) => Some(f16::from_bits(bits as u16).to_f64()),
            (Class::Float, 4) => Some(f64::from(f32::from_bits(bits as u32))),
            (Class::Float, _) => Some(f64::from_bits(bits)),
            _ => None,
        }
    }

    /// Parses one `Data` or `FillValue` spelling into an element bit pattern.
    pub fn encode(self, text: &str) -> Result<u64, String> {
        match (self.class(), self.size()) {
            (Class::Float, 4) => parse_float::<f32>(text)
                .map(|v| u64::from(v.to_bits()))
                .ok_or_else(|| not_a_number(text)),
            (Class::Float, 8) => parse_float::<f64>(text)
                .map(f64::to_bits)
                .ok_or_else(|| not_a_number(text)),
            _ => self.encode_integer(text),
        }
    }

    fn encode_integer(self, text: &str) -> Result<u64, String> {
        let value = if self.class() == Class::Bool {
            parse_bool(text).map(i128::from)
        } else {
            parse_int(text)
        };
        let value = value.ok_or_else(|| self.not_an_integer(text))?;
        let (low, high) = self.integer_range();
        if !(low..=high).contains(&value) {
            return Err(format!(
                "{} is out of range for {self} ({low} to {high})",
                text.trim()
            ));
        }
        Ok(value as u64 & self.mask())
    }

    /// The accepted input range of integer spellings (bit patterns for
    /// Float16, either signedness for Hex formats).
    fn integer_range(self) -> (i128, i128) {
        let bits = self.bits();
        let signed_low = -(1i128 << (bits - 1));
        let signed_high = (1i128 << (bits - 1)) - 1;
        let unsigned_high = (1i128 << bits) - 1;
        match self.class() {
            Class::Signed => (signed_low, signed_high),
            Class::Hex => (signed_low, unsigned_high),
            Class::Bool => (0, 1),
            Class::Unsigned | Class::Float => (0, unsigned_high),
        }
    }

    fn mask(self) -> u64 {
        u64::MAX >> (64 - self.bits())
    }

    fn not_an_integer(self, text: &str) -> String {
        let text = text.trim();
        match self.class() {
            Class::Bool => format!("expected true, false, 0 or 1, found `{text}`"),
            Class::Float => match parse_float::<f64>(text) {
                Some(v) => format!(
                    "Float16 data are bit patterns: write {} for {text}",
                    hex(u64::from(f16::from_f64(v).to_bits()))
                ),
                None => format!("expected a Float16 bit pattern, found `{text}`"),
            },
            _ => format!("expected an integer, found `{text}`"),
        }
    }

    /// The spelling of an element as written in `Data`, which reads back as
    /// the same bits (NaN payloads aside).
    pub fn render_bits(self, bits: u64) -> String {
        match (self.class(), self.size()) {
            (Class::Signed, _) => sign_extend(bits, self.bits()).to_string(),
            (Class::Unsigned | Class::Bool, _) => bits.to_string(),
            (Class::Hex, _) | (Class::Float, 2) => hex(bits),
            (Class::Float, 4) => float_text(f32::from_bits(bits as u32)),
            (Class::Float, _) => float_text(f64::from_bits(bits)),
        }
    }

    /// The spelling LLVM's YAML writer gives an element, which is what the
    /// offload-test-suite's offloader prints: integers in decimal, hex
    /// formats and Float16 as `0x` and upper-case digits, floats with
    /// printf's `%g` (six significant digits: `0`, `13.5`, `1e+10`,
    /// `inf`, `-nan`).
    pub fn render_offloader(self, bits: u64) -> String {
        match (self.class(), self.size()) {
            (Class::Float, 4) => printf_g(f64::from(f32::from_bits(bits as u32))),
            (Class::Float, 8) => printf_g(f64::from_bits(bits)),
            _ => self.render_bits(bits),
        }
    }

    /// The spelling of an element in result reports: the `Data` spelling,
    /// with the value added for Float16 bit patterns.
    pub fn describe_bits(self, bits: u64) -> String {
        let rendered = self.render_bits(bits);
        match (self, self.float_value(bits)) {
            (Format::Float16, Some(value)) => {
                format!("{rendered} ({})", self.describe_float(value))
            }
            _ => rendered,
        }
    }

    /// A float value written with the shortest digits that identify it at
    /// this format's precision (single precision for 16 and 32 bits).
    pub fn describe_float(self, value: f64) -> String {
        if self.size() == 8 {
            float_text(value)
        } else {
            float_text(value as f32)
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = PipelineError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        named::lookup(text).map_err(PipelineError::new)
    }
}

impl Named for Format {
    const WHAT: &'static str = "format";
    const ALL: &'static [Self] = &Format::ALL;

    fn name(self) -> &'static str {
        Format::name(self)
    }
}

fn not_a_number(text: &str) -> String {
    format!("expected a number, found `{}`", text.trim())
}

fn sign_extend(bits: u64, width: u32) -> i64 {
    let shift = 64 - width;
    ((bits << shift) as i64) >> shift
}

/// `0x` and uppercase digits with no leading zeros, as LLVM's YAML writer
/// spells `Hex8` … `Hex64` (`0x5`, `0x3C00`).
fn hex(bits: u64) -> String {
    format!("0x{bits:X}")
}

/// Shortest round-tripping decimal (Rust's `Debug`), or the YAML spellings
/// of NaN and the infinities.
fn float_text<T: Into<f64> + fmt::Debug + Copy>(value: T) -> String {
    let wide: f64 = value.into();
    if wide.is_nan() {
        ".nan".to_owned()
    } else if wide.is_infinite() {
        if wide > 0.0 { ".inf" } else { "-.inf" }.to_owned()
    } else {
        format!("{value:?}")
    }
}

/// C's `printf("%g", value)`: six significant digits, trailing zeros
/// dropped, scientific notation (`1e+06`, `1.5e-05`) when the exponent is
/// below -4 or at least 6; `inf`, `nan` with their sign as glibc prints it.
pub(crate) fn printf_g(value: f64) -> String {
    const PRECISION: i32 = 6;
    let sign = if value.is_sign_negative() { "-" } else { "" };
    if value.is_nan() {
        return format!("{sign}nan");
    }
    if value.is_infinite() {
        return format!("{sign}inf");
    }
    if value == 0.0 {
        return format!("{sign}0");
    }
    // The six significant digits and the exponent after rounding, from
    // one exact conversion; the fixed form is laid out from the same digits.
    let scientific = format!("{:.*e}", (PRECISION - 1) as usize, value.abs());
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if !(-4..PRECISION).contains(&exponent) {
        let mantissa = trim_fraction(mantissa);
        let exponent_sign = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{mantissa}e{exponent_sign}{:02}", exponent.abs());
    }
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let fixed = if exponent >= 0 {
        let (whole, fraction) = digits.split_at(exponent as usize + 1);
        format!("{whole}.{fraction}")
    } else {
        format!("0.{}{digits}", "0".repeat((-exponent - 1) as usize))
    };
    format!("{sign}{}", trim_fraction(&fixed))
}

/// `1.500` → `1.5`, `2.000` → `2`; text without a point stays.
fn trim_fraction(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit patterns of 32-bit floats and what C's `printf("%g")` prints
    /// for them (Python's `%` operator, which follows C), random magnitudes
    /// and the values next to where the notation or the rounding changes.
    const C_PRINTF_G: [(u32, &str); 46] = [
        (0x3DB77216, "0.0895731"),
        (0x40413235, "3.01869"),
        (0x30309F56, "6.42549e-10"),
        (0xB1389883, "-2.68622e-09"),
        (0x2EB43094, "8.19408e-11"),
        (0xB71B30D2, "-9.25009e-06"),
        (0xC182ECB0, "-16.3656"),
        (0xB8ABAADB, "-8.18574e-05"),
        (0xC2B05B16, "-88.1779"),
        (0xCAE59CF2, "-7.52396e+06"),
        (0x37DB2767, "2.61252e-05"),
        (0x4B08A143, "8.95418e+06"),
        (0x49D0D764, "1.71083e+06"),
        (0x2ED1758F, "9.5251e-11"),
        (0x2D475F34, "1.1333e-11"),
        (0xB334B968, "-4.20781e-08"),
        (0x320BCBAF, "8.13718e-09"),
        (0xCA69C96E, "-3.83036e+06"),
        (0xCFBE4D4A, "-6.38547e+09"),
        (0x49ADD6BF, "1.42409e+06"),
        (0xB62B43DF, "-2.55205e-06"),
        (0x48CF23B1, "424222"),
        (0xCB066629, "-8.80798e+06"),
        (0xB399FF0B, "-7.17101e-08"),
        (0xC80D6BD9, "-144815"),
        (0xBBE16E7E, "-0.00687963"),
        (0xC38A6AEB, "-276.835"),
        (0x3876F183, "5.88759e-05"),
        (0x51507D44, "5.59659e+10"),
        (0x2F23A8D3, "1.48847e-10"),
        (0xC4742E99, "-976.728"),
        (0x3D3BF62A, "0.0458891"),
        (0x3B0ED094, "0.00217918"),
        (0xB051F877, "-7.63868e-10"),
        (0xC28603E1, "-67.0076"),
        (0xBD8E8C11, "-0.0696031"),
        (0xC4C3C10E, "-1566.03"),
        (0xCFFBC200, "-8.44759e+09"),
        (0x480EA0F8, "146052"),
        (0xBD02F8C5, "-0.0319755"),
        (0x38D1B717, "0.0001"),
        (0x3A831266, "0.000999999"),
        (0x47C34FFA, "100000"),
        (0x497423F6, "999999"),
        (0x00000001, "1.4013e-45"),
        (0x47F12040, "123456"),
    ];

    #[test]
    fn printf_g_matches_c() {
        for (bits, text) in C_PRINTF_G {
            let value = f64::from(f32::from_bits(bits));
            assert_eq!(printf_g(value), text, "{value:e}");
        }
    }

    #[test]
    fn printf_g_spellings() {
        // Each expectation is what glibc's printf("%g") prints.
        let cases: [(f64, &str); 18] = [
            (0.0, "0"),
            (-0.0, "-0"),
            (1.0, "1"),
            (13.5, "13.5"),
            (-2.25, "-2.25"),
            (0.1, "0.1"),
            (1.0 / 3.0, "0.333333"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e+06"),
            (999999.5, "1e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (0.000123456789, "0.000123457"),
            (1e300, "1e+300"),
            (f64::from(f32::MAX), "3.40282e+38"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
        ];
        for (value, text) in cases {
            assert_eq!(printf_g(value), text, "{value:?}");
        }
        assert_eq!(printf_g(-f64::NAN), "-nan");
        assert_eq!(
            Format::Float32.render_offloader(u64::from(1.5f32.to_bits())),
            "1.5"
        );
        assert_eq!(Format::Float16.render_offloader(0x3C00), "0x3C00");
        // As LLVM's `yaml::Hex32` writes it: no leading zeros.
        assert_eq!(Format::Hex32.render_offloader(255), "0xFF");
        assert_eq!(Format::Float16.render_offloader(0x5), "0x5");
        assert_eq!(Format::Hex8.render_offloader(0xAB), "0xAB");
        assert_eq!(Format::Hex64.render_offloader(0), "0x0");
        assert_eq!(Format::Int16.render_offloader(0xFFFF), "-1");
    }

    #[test]
    fn sizes_follow_names() {
        for format in Format::ALL {
            let digits: usize = format
                .name()
                .trim_start_matches(char::is_alphabetic)
                .parse()
                .unwrap_or(32);
            assert_eq!(format.size() * 8, digits, "{format}");
        }
    }

    #[test]
    fn sign_extension() {
        assert_eq!(sign_extend(0xFFFE, 16), -2);
        assert_eq!(sign_extend(0x7FFF, 16), 32767);
        assert_eq!(sign_extend(u64::MAX, 64), -1);
    }

    #[test]
    fn float_text_spellings() {
        assert_eq!(float_text(1.0f32), "1.0");
        assert_eq!(float_text(0.1f32), "0.1");
        assert_eq!(float_text(-0.0f64), "-0.0");
        assert_eq!(float_text(1e300f64), "1e300");
        assert_eq!(float_text(f32::NAN), ".nan");
        assert_eq!(float_text(f64::NEG_INFINITY), "-.inf");
    }
}
