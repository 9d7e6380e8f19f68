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

/// A YAML scalar reading back as `text`: plain for identifier-like names
/// that YAML would not take for another type, double-quoted otherwise.
fn yaml_string(text: &str) -> String {
    const RESERVED: [&str; 11] = [
        "true", "false", "null", "yes", "no", "on", "off", "y", "n", "nan", "inf",
    ];
    let mut chars = text.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if identifier && !RESERVED.iter().any(|r| r.eq_ignore_ascii_case(text)) {
        return text.to_owned();
    }
    let mut quoted = String::from("\"");
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                quoted.push('\\');
                quoted.push(c);
            }
            c if c.is_control() => {
                let _ = write!(quoted, "\\u{:04X}", u32::from(c));
            }
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn names_are_quoted_when_needed() {
        assert_eq!(yaml_string("Out"), "Out");
        assert_eq!(yaml_string("out_2.x"), "out_2.x");
        assert_eq!(yaml_string("True"), "\"True\"");
        assert_eq!(yaml_string("1st"), "\"1st\"");
        assert_eq!(yaml_string(""), "\"\"");
        assert_eq!(yaml_string("a: \"b\"\n"), "\"a: \\\"b\\\"\\u000A\"");
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
