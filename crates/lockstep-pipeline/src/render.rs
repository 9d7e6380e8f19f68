//! Rendering buffer contents as YAML: by default exactly as LLVM's YAML
//! writer prints a pipeline's buffers (what upstream's FileCheck lines
//! match), or in an exact form that reads back bit for bit.

use std::fmt::Write as _;

use crate::format::Format;
use crate::{BufferDesc, Pipeline};

/// How element values are spelled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Style {
    /// As the offload-test-suite's offloader prints them, through LLVM's
    /// YAML writer: floats with printf's `%g` (six significant digits),
    /// keys padded to a column, flow lists wrapped after column 70.
    #[default]
    Offloader,
    /// Every float with the shortest digits that read back as the same
    /// bits (`.nan`, `.inf` for the specials), in the pipeline's own
    /// `Buffers` layout.
    Exact,
}

/// LLVM's YAML writer wraps a flow sequence once a line passes this column.
const WRAP_COLUMN: usize = 70;

/// The `Data` spellings of the whole elements in `bytes`, in the exact
/// style.
pub fn element_strings(format: Format, bytes: &[u8]) -> Vec<String> {
    format
        .elements(bytes)
        .map(|bits| format.render_bits(bits))
        .collect()
}

/// Renders the `Buffers` of `pipeline` as a YAML document, with
/// `contents[i]` as buffer `i`'s data (its initial data where `contents`
/// has no entry). Trailing bytes that do not make a whole element are left
/// out. The text parses back with [`crate::parse`].
pub fn render_buffers<B: AsRef<[u8]>>(pipeline: &Pipeline, contents: &[B], style: Style) -> String {
    let buffers: Vec<(&BufferDesc, &[u8])> = (0..pipeline.buffers.len())
        .map(|i| (&pipeline.buffers[i], pipeline.contents(contents, i)))
        .collect();
    render(&buffers, style)
}

/// Renders one buffer, as [`render_buffers`] would list it.
pub fn render_buffer(buffer: &BufferDesc, bytes: &[u8], style: Style) -> String {
    render(&[(buffer, bytes)], style)
}

fn render(buffers: &[(&BufferDesc, &[u8])], style: Style) -> String {
    let mut out = String::from("---\n");
    if buffers.is_empty() {
        out.push_str("Buffers:         []\n");
    } else {
        out.push_str("Buffers:\n");
    }
    for (buffer, bytes) in buffers {
        render_one(&mut out, buffer, bytes, style);
    }
    out.push_str("...\n");
    out
}

/// `Key:` padded as LLVM pads it: the value starts 16 columns after the
/// key's first character, or one space after a longer key.
fn key(out: &mut String, indent: &str, name: &str) {
    let padding = 16usize.saturating_sub(name.len()).max(1);
    let _ = write!(out, "{indent}{name}:{:padding$}", "");
}

fn render_one(out: &mut String, buffer: &BufferDesc, bytes: &[u8], style: Style) {
    key(out, "  - ", "Name");
    let _ = writeln!(out, "{}", yaml_string(&buffer.name));
    key(out, "    ", "Format");
    let _ = writeln!(out, "{}", buffer.format);
    if buffer.channels != 1 {
        key(out, "    ", "Channels");
        let _ = writeln!(out, "{}", buffer.channels);
    }
    if let Some(stride) = buffer.stride {
        key(out, "    ", "Stride");
        let _ = writeln!(out, "{stride}");
    }
    let spell = |bits: u64| match style {
        Style::Offloader => buffer.format.render_offloader(bits),
        Style::Exact => buffer.format.render_bits(bits),
    };
    if buffer.array_size > 1 {
        key(out, "    ", "ArraySize");
        let _ = writeln!(out, "{}", buffer.array_size);
        out.push_str("    Data:\n");
        let per_resource = bytes.len() / buffer.array_size as usize;
        for resource in bytes.chunks(per_resource.max(1)) {
            out.push_str("      - ");
            flow_list(out, buffer.format.elements(resource).map(spell));
        }
    } else {
        key(out, "    ", "Data");
        flow_list(out, buffer.format.elements(bytes).map(spell));
    }
    let trailing = bytes.len() % buffer.format.size();
    if trailing != 0 {
        let _ = writeln!(out, "    # {trailing} trailing bytes not shown");
    }
    if let Some(props) = buffer.output_props {
        out.push_str("    OutputProps:\n");
        for (name, value) in [
            ("Height", props.height),
            ("Width", props.width),
            ("Depth", props.depth),
        ] {
            key(out, "      ", name);
            let _ = writeln!(out, "{value}");
        }
        if props.mip_levels != 1 {
            key(out, "      ", "MipLevels");
            let _ = writeln!(out, "{}", props.mip_levels);
        }
    }
}

/// `[ a, b, ... ]` as LLVM writes a flow sequence: once the line passes
/// column 70 after an item's `, `, the next item starts a new line,
/// indented two past the `[`.
fn flow_list(out: &mut String, items: impl Iterator<Item = String>) {
    let line_start = out.rfind('\n').map_or(0, |i| i + 1);
    let start_column = out.len() - line_start;
    out.push_str("[ ");
    let mut column = start_column + 2;
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push_str(", ");
            column += 2;
        }
        if column > WRAP_COLUMN {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', start_column + 2));
            column = start_column + 2;
        }
        out.push_str(&item);
        column += item.len();
    }
    out.push_str(" ]\n");
}

/// How LLVM's YAML writer (`yaml::needsQuotes`) quotes a scalar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Quoting {
    None,
    Single,
    Double,
}

/// `text` as the offloader's YAML writer prints it: plain where LLVM's
/// `needsQuotes` allows, else single-quoted (a quote doubled), or
/// double-quoted with `yaml::escape`'s escapes for line breaks and control
/// characters.
fn yaml_string(text: &str) -> String {
    match needs_quotes(text) {
        Quoting::None => text.to_owned(),
        Quoting::Single => format!("'{}'", text.replace('\'', "''")),
        Quoting::Double => {
            let mut quoted = String::from("\"");
            for c in text.chars() {
                match c {
                    '\0' => quoted.push_str("\\0"),
                    '\u{7}' => quoted.push_str("\\a"),
                    '\u{8}' => quoted.push_str("\\b"),
                    '\t' => quoted.push_str("\\t"),
                    '\n' => quoted.push_str("\\n"),
                    '\u{b}' => quoted.push_str("\\v"),
                    '\u{c}' => quoted.push_str("\\f"),
                    '\r' => quoted.push_str("\\r"),
                    '\u{1b}' => quoted.push_str("\\e"),
                    '"' => quoted.push_str("\\\""),
                    '\\' => quoted.push_str("\\\\"),
                    '\u{85}' => quoted.push_str("\\N"),
                    '\u{a0}' => quoted.push_str("\\_"),
                    '\u{2028}' => quoted.push_str("\\L"),
                    '\u{2029}' => quoted.push_str("\\P"),
                    c if u32::from(c) < 0x20 => {
                        let _ = write!(quoted, "\\x{:02X}", u32::from(c));
                    }
                    c => quoted.push(c),
                }
            }
            quoted.push('"');
            quoted
        }
    }
}

/// LLVM's `yaml::needsQuotes`.
fn needs_quotes(s: &str) -> Quoting {
    let Some(first) = s.bytes().next() else {
        return Quoting::Single;
    };
    let space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r');
    let mut most = Quoting::None;
    let reserved = [
        "null", "Null", "NULL", "~", "true", "True", "TRUE", "false", "False", "FALSE",
    ];
    if space(first) || s.bytes().last().is_some_and(space) || reserved.contains(&s) || is_numeric(s)
    {
        most = Quoting::Single;
    }
    // Plain scalars must not begin with most indicators.
    if "-?:\\,[]{}#&*!|>'\"%@`".as_bytes().contains(&first) {
        most = Quoting::Single;
    }
    for c in s.bytes() {
        match c {
            c if c.is_ascii_alphanumeric() => {}
            b'_' | b'-' | b'^' | b'.' | b',' | b' ' | b'\t' => {}
            b'\n' | b'\r' | 0x7F => return Quoting::Double,
            c if c <= 0x1F || c & 0x80 != 0 => return Quoting::Double,
            _ => most = Quoting::Single,
        }
    }
    most
}

/// LLVM's `yaml::isNumeric`: YAML 1.2 core schema numbers.
fn is_numeric(s: &str) -> bool {
    let digits = |t: &str| t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if s.is_empty() || s == "+" || s == "-" {
        return false;
    }
    if matches!(s, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let tail = s.strip_prefix(['-', '+']).unwrap_or(s);
    if matches!(tail, ".inf" | ".Inf" | ".INF") {
        return true;
    }
    if let Some(octal) = s.strip_prefix("0o") {
        return !octal.is_empty() && octal.bytes().all(|b| (b'0'..=b'7').contains(&b));
    }
    if let Some(hex) = s.strip_prefix("0x") {
        return !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit());
    }
    let s = tail;
    if s.starts_with('.') && !s[1..].starts_with(|c: char| c.is_ascii_digit()) {
        return false;
    }
    if s.starts_with(['e', 'E']) {
        return false;
    }
    // [0-9]* (\. [0-9]*)? ([eE] [-+]? [0-9]+)?
    let mut rest = &s[s.len() - digits(s)..];
    if let Some(after) = rest.strip_prefix('.') {
        rest = &after[after.len() - digits(after)..];
    }
    if rest.is_empty() {
        return true;
    }
    let Some(exponent) = rest.strip_prefix(['e', 'E']) else {
        return false;
    };
    let exponent = exponent.strip_prefix(['-', '+']).unwrap_or(exponent);
    !exponent.is_empty() && digits(exponent) == 0
}

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn names_are_quoted_when_needed() {
        // As LLVM 14's `obj2yaml` prints section names.
        for (name, printed) in [
            ("Out", "Out"),
            ("out_2.x", "out_2.x"),
            ("Y", "Y"),
            ("yes", "yes"),
            ("Off", "Off"),
            ("a b", "a b"),
            ("x-y", "x-y"),
            ("True", "'True'"),
            ("null", "'null'"),
            ("~", "'~'"),
            ("12", "'12'"),
            ("1e3", "'1e3'"),
            ("-1.5E+2", "'-1.5E+2'"),
            (".5", "'.5'"),
            ("0x1F", "'0x1F'"),
            (".inf", "'.inf'"),
            ("1st", "1st"),
            ("e3", "e3"),
            ("1.2.3", "1.2.3"),
            ("a/b", "'a/b'"),
            ("a:b", "'a:b'"),
            ("-x", "'-x'"),
            (" x", "' x'"),
            ("it's", "'it''s'"),
            ("", "''"),
            ("a: \"b\"\n", "\"a: \\\"b\\\"\\n\""),
            ("tab\u{1}", "\"tab\\x01\""),
            ("é", "\"é\""),
        ] {
            assert_eq!(yaml_string(name), printed, "{name:?}");
        }
    }

    #[test]
    fn long_lists_wrap_as_llvm_writes_them() {
        let mut out = String::from("    Data:            ");
        flow_list(&mut out, (0..40).map(|i| (i * 1000).to_string()));
        // LLVM leaves the `, ` before each break and indents two past the
        // `[`, which stands at column 21.
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines,
            [
                "    Data:            [ 0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, ",
                "                       9000, 10000, 11000, 12000, 13000, 14000, 15000, ",
                "                       16000, 17000, 18000, 19000, 20000, 21000, 22000, ",
                "                       23000, 24000, 25000, 26000, 27000, 28000, 29000, ",
                "                       30000, 31000, 32000, 33000, 34000, 35000, 36000, ",
                "                       37000, 38000, 39000 ]",
            ]
        );
        let mut empty = String::new();
        flow_list(&mut empty, std::iter::empty());
        assert_eq!(empty, "[  ]\n");
    }
}
