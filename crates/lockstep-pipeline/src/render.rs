//! Rendering buffer contents back into the `Buffers:` YAML of a pipeline.

use std::fmt::Write as _;

use crate::format::Format;
use crate::{BufferDesc, Pipeline};

/// Lines longer than this wrap inside the `Data` flow list.
const LINE_WIDTH: usize = 80;

/// The `Data` spellings of the whole elements in `bytes`.
pub fn element_strings(format: Format, bytes: &[u8]) -> Vec<String> {
    format
        .elements(bytes)
        .map(|bits| format.render_bits(bits))
        .collect()
}

/// Renders a `Buffers:` section listing every buffer of `pipeline` with
/// `contents[i]` as buffer `i`'s data (its initial data where `contents` has
/// no entry). Trailing bytes that do not make a whole element are left out
/// and noted in a comment. The text parses back with [`crate::parse`] when
/// it takes the place of a pipeline's `Buffers:` section.
pub fn render_buffers<B: AsRef<[u8]>>(pipeline: &Pipeline, contents: &[B]) -> String {
    if pipeline.buffers.is_empty() {
        return "Buffers: []\n".to_owned();
    }
    let mut out = String::from("Buffers:\n");
    for (index, buffer) in pipeline.buffers.iter().enumerate() {
        render_buffer(&mut out, buffer, pipeline.contents(contents, index));
    }
    out
}

fn render_buffer(out: &mut String, buffer: &BufferDesc, bytes: &[u8]) {
    let _ = writeln!(out, "  - Name: {}", yaml_string(&buffer.name));
    let _ = writeln!(out, "    Format: {}", buffer.format);
    if let Some(stride) = buffer.stride {
        let _ = writeln!(out, "    Stride: {stride}");
    }
    if buffer.channels != 1 {
        let _ = writeln!(out, "    Channels: {}", buffer.channels);
    }
    if let Some(props) = buffer.output_props {
        let _ = writeln!(out, "    OutputProps:");
        let _ = writeln!(out, "      Height: {}", props.height);
        let _ = writeln!(out, "      Width: {}", props.width);
        let _ = writeln!(out, "      Depth: {}", props.depth);
    }
    flow_list(out, "    Data: ", &element_strings(buffer.format, bytes));
    let trailing = bytes.len() % buffer.format.size();
    if trailing != 0 {
        let _ = writeln!(out, "    # {trailing} trailing bytes not shown");
    }
}

/// Writes `prefix` and `[ a, b, ... ]`, wrapping long lists with the
/// continuation lines aligned after the bracket.
fn flow_list(out: &mut String, prefix: &str, items: &[String]) {
    out.push_str(prefix);
    if items.is_empty() {
        out.push_str("[]\n");
        return;
    }
    out.push_str("[ ");
    let indent = prefix.len() + 2;
    let mut column = indent;
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            // Room for the separator, the item and a closing ` ]`.
            if column + 2 + item.len() + 2 > LINE_WIDTH {
                out.push_str(",\n");
                out.extend(std::iter::repeat_n(' ', indent));
                column = indent;
            } else {
                out.push_str(", ");
                column += 2;
            }
        }
        out.push_str(item);
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
    use expect_test::expect;

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
    fn long_lists_wrap() {
        let items: Vec<String> = (0..40).map(|i| (i * 1000).to_string()).collect();
        let mut out = String::new();
        flow_list(&mut out, "Data: ", &items);
        expect![[r#"
            Data: [ 0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000, 11000,
                    12000, 13000, 14000, 15000, 16000, 17000, 18000, 19000, 20000, 21000,
                    22000, 23000, 24000, 25000, 26000, 27000, 28000, 29000, 30000, 31000,
                    32000, 33000, 34000, 35000, 36000, 37000, 38000, 39000 ]
        "#]]
        .assert_eq(&out);
    }
}
