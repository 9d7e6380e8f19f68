//! Rendering buffers back to YAML: the exact text, and round trips through
//! `parse` for every format.

use expect_test::expect;
use lockstep_pipeline::{Format, Pipeline, Style, element_strings, parse, render_buffers};

use crate::pipeline;

/// Parses rendered buffers: a document of their own.
fn reparse(rendered: &str) -> Pipeline {
    parse(rendered).unwrap_or_else(|e| panic!("{e}\n{rendered}"))
}

#[test]
fn rendered_text() {
    let p = pipeline(
        r#"
        Buffers:
          - Name: In
            Format: Int32
            Stride: 8
            Data: [ 1, -2, 3, 4 ]
          - Name: Out
            Format: Float32
            Channels: 4
            FillSize: 16
          - Name: Halves
            Format: Float16
            Data: [ 0x3C00, 0x8001 ]
          - Name: Flags
            Format: Bool
            Data: [ true, false ]
          - Name: Bits
            Format: Hex64
            Data: [ -1, 0x10 ]
        "#,
    );
    let out = [0.5f32, -0.0, f32::NEG_INFINITY, 1e-7]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let rendered = render_buffers(&p, &[p.buffers[0].data.clone(), out], Style::Exact);
    expect![[r#"
        ---
        Buffers:
          - Name:            In
            Format:          Int32
            Stride:          8
            Data:            [ 1, -2, 3, 4 ]
          - Name:            Out
            Format:          Float32
            Channels:        4
            Data:            [ 0.5, -0.0, -.inf, 1e-7 ]
          - Name:            Halves
            Format:          Float16
            Data:            [ 0x3C00, 0x8001 ]
          - Name:            Flags
            Format:          Bool
            Data:            [ 1, 0 ]
          - Name:            Bits
            Format:          Hex64
            Data:            [ 0xFFFFFFFFFFFFFFFF, 0x10 ]
        ...
    "#]]
    .assert_eq(&rendered);
    assert_eq!(reparse(&rendered).buffers[2..], p.buffers[2..]);
}

#[test]
fn element_strings_per_format() {
    let bytes: Vec<u8> = (1..=16).collect();
    let table: Vec<String> = Format::ALL
        .iter()
        .map(|&f| format!("{f}: {}", element_strings(f, &bytes[..8]).join(" ")))
        .collect();
    expect![[r#"
        Int16: 513 1027 1541 2055
        Int32: 67305985 134678021
        Int64: 578437695752307201
        UInt16: 513 1027 1541 2055
        UInt32: 67305985 134678021
        UInt64: 578437695752307201
        Float16: 0x201 0x403 0x605 0x807
        Float32: 1.5399896e-36 4.063216e-34
        Float64: 5.447603722011605e-270
        Bool: 67305985 134678021
        Hex8: 0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8
        Hex16: 0x201 0x403 0x605 0x807
        Hex32: 0x4030201 0x8070605
        Hex64: 0x807060504030201
    "#]]
    .assert_eq(&(table.join("\n") + "\n"));
    assert_eq!(
        element_strings(Format::Int16, &[0xFE, 0xFF, 0x00, 0x80]),
        ["-2", "-32768"]
    );
    assert_eq!(element_strings(Format::UInt16, &[0xFE, 0xFF]), ["65534"]);
    assert_eq!(
        element_strings(Format::Float32, &[0, 0, 0xC0, 0x3F, 0xAA]),
        ["1.5"]
    );
}

/// Data spellings covering each format's extremes.
const SAMPLES: [(&str, &str); 13] = [
    ("Int16", "[0, 1, -1, 32767, -32768]"),
    ("Int32", "[0, -2, 2147483647, -2147483648]"),
    ("Int64", "[-9223372036854775808, 9223372036854775807, -3]"),
    ("UInt16", "[0, 65535, 0x1234]"),
    ("UInt32", "[0, 4294967295, 7]"),
    ("UInt64", "[18446744073709551615, 0, 1]"),
    (
        "Float16",
        "[0x3C00, 0x8000, 0x0001, 0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0x7D01, 0xFFFF]",
    ),
    (
        "Float32",
        "[0.1, -0.0, 1e-45, 3.4028235e38, -1.1754942e-38, .inf, -.inf, .nan, 16777217, 123456.79]",
    ),
    (
        "Float64",
        "[0.1, -0.0, 5e-324, 1.7976931348623157e308, .inf, -.inf, .nan, 1e-7, 1e16, 0.30000000000000004]",
    ),
    ("Bool", "[true, false, 0, 1]"),
    ("Hex16", "[0x0000, 0xFFFF, -32768, 0x00FF]"),
    ("Hex32", "[0xDEADBEEF, -1, 0]"),
    (
        "Hex64",
        "[0xFFFFFFFFFFFFFFFF, -9223372036854775808, 0x0123456789ABCDEF]",
    ),
];

#[test]
fn every_format_round_trips() {
    let mut body = String::from("Buffers:\n");
    for (i, (format, data)) in SAMPLES.iter().enumerate() {
        body += &format!(
            "  - {{ Name: B{i}, Format: {format}, Stride: {}, Data: {data} }}\n",
            i + 1
        );
    }
    let p = pipeline(&body);
    let rendered = render_buffers::<Vec<u8>>(&p, &[], Style::Exact);
    assert_eq!(reparse(&rendered).buffers, p.buffers, "{rendered}");
}

#[test]
fn every_float16_pattern_round_trips() {
    let all: Vec<u8> = (0..=u16::MAX).flat_map(u16::to_le_bytes).collect();
    let p = pipeline("Buffers:\n  - { Name: H, Format: Float16, FillSize: 131072 }\n");
    let contents = [all];
    let rendered = render_buffers(&p, &contents, Style::Exact);
    assert_eq!(reparse(&rendered).buffers[0].data, contents[0]);
}

#[test]
fn float_bit_patterns_round_trip() {
    // A spread of 32-bit patterns from a linear congruential sequence.
    let mut state = 12345u32;
    let patterns: Vec<u32> = (0..4096)
        .map(|_| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            state
        })
        .collect();
    let bytes: Vec<u8> = patterns.iter().flat_map(|b| b.to_le_bytes()).collect();
    let p = pipeline("Buffers:\n  - { Name: F, Format: Float32, FillSize: 16384 }\n");
    let back = reparse(&render_buffers(&p, &[bytes], Style::Exact));
    for (chunk, &original) in back.buffers[0].data.chunks(4).zip(&patterns) {
        let read = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        if f32::from_bits(original).is_nan() {
            // NaN payloads are not spelled; any NaN reads back as the
            // quiet NaN.
            assert_eq!(read, 0x7FC0_0000);
        } else {
            assert_eq!(read, original);
        }
    }
}

#[test]
fn trailing_bytes_are_left_out_with_a_note() {
    let p = pipeline("Buffers:\n  - { Name: W, Format: Int32, FillSize: 4 }\n");
    let rendered = render_buffers(&p, &[vec![1, 0, 0, 0, 2, 0]], Style::Exact);
    expect![[r#"
        ---
        Buffers:
          - Name:            W
            Format:          Int32
            Data:            [ 1 ]
            # 2 trailing bytes not shown
        ...
    "#]]
    .assert_eq(&rendered);
    assert_eq!(reparse(&rendered).buffers[0].data, [1, 0, 0, 0]);
}

#[test]
fn long_and_empty_lists_parse_back() {
    let p = pipeline(
        "Buffers:\n  - { Name: Long, Format: Float64, FillSize: 800, FillValue: 0.1 }\n  \
         - { Name: Empty, Format: Int16, Data: [] }\n",
    );
    let rendered = render_buffers::<Vec<u8>>(&p, &[], Style::Exact);
    assert!(rendered.lines().count() > 8, "{rendered}");
    assert!(rendered.lines().all(|l| l.len() <= 80), "{rendered}");
    assert!(
        rendered.ends_with("    Data:            [  ]\n...\n"),
        "{rendered}"
    );
    assert_eq!(reparse(&rendered).buffers, p.buffers);
}

#[test]
fn odd_names_are_quoted() {
    let p = pipeline(
        r#"
        Buffers:
          - { Name: "true", Format: Int16, Data: [1] }
          - { Name: "a: b", Format: Int16, Data: [1] }
          - { Name: "say \"hi\"\t", Format: Int16, Data: [1] }
        "#,
    );
    let rendered = render_buffers::<Vec<u8>>(&p, &[], Style::Exact);
    let names: Vec<&str> = rendered.lines().filter(|l| l.contains("Name:")).collect();
    assert_eq!(
        names,
        [
            // As LLVM's YAML writer quotes them.
            r#"  - Name:            'true'"#,
            r#"  - Name:            'a: b'"#,
            "  - Name:            'say \"hi\"\t'"
        ]
    );
    assert_eq!(reparse(&rendered).buffers, p.buffers);
}

#[test]
fn no_buffers() {
    let p = pipeline("Buffers: []\n");
    assert_eq!(
        render_buffers::<Vec<u8>>(&p, &[], Style::Exact),
        "---\nBuffers:         []\n...\n"
    );
}

#[test]
fn bool_values_other_than_zero_and_one_are_shown_as_numbers() {
    let p = pipeline("Buffers:\n  - { Name: B, Format: Bool, Data: [1] }\n");
    let rendered = render_buffers(&p, &[vec![2, 0, 0, 0]], Style::Exact);
    assert!(rendered.contains("Data:            [ 2 ]"), "{rendered}");
}
