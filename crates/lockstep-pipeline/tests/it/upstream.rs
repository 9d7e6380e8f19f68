//! The pipeline format as upstream's offload-test-suite writes it today,
//! read as LLVM's YAML reader reads it.

use expect_test::expect;
use lockstep_pipeline::{DenormMode, Rule, parse};

use crate::{dedent, pipeline};

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn rejected(text: &str) -> String {
    match parse(&dedent(text)) {
        Ok(p) => panic!("accepted: {p:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_dispatch_defaults_to_one_group() {
    let p = parse(&dedent(
        r#"
        ---
        Shaders:
          - Stage: Compute
            Entry: main
        Buffers: []
        ...
        "#,
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.dispatch, [1, 1, 1]);
    let p = parse("DispatchParameters:\n  DispatchGroupCount: [4, 2, 1]\n").unwrap();
    assert_eq!(p.dispatch, [4, 2, 1]);
    // An empty DispatchParameters mapping keeps the default.
    let p = parse("DispatchParameters:\nBuffers: []\n").unwrap();
    assert_eq!(p.dispatch, [1, 1, 1]);
}

#[test]
fn empty_flow_entries_are_skipped() {
    let p = pipeline("Buffers:\n  - { Name: F, Format: Float32, Data: [0, 0,, 15.5,] }\n");
    assert_eq!(floats(&p.buffers[0].data), [0.0, 0.0, 15.5]);
    let p = parse("DispatchParameters: { DispatchGroupCount: [2,, 1, 1] }\n").unwrap();
    assert_eq!(p.dispatch, [2, 1, 1]);
}

#[test]
fn hex_floats_and_hex_integers_in_float_buffers() {
    let p = pipeline(
        r#"
        Buffers:
          - Name: F
            Format: Float32
            Data: [ 0x1.8p1, -0x1p-1, 0x10, 0x1.e7d42cp-127 ]
          - Name: D
            Format: Float64
            Data: [ 0x0.fffffffffffffp-1022, 0x1p+0 ]
        "#,
    );
    let f = floats(&p.buffers[0].data);
    // 0x1.8p1 = 1.5 * 2; a hex integer is its value, as strtof reads it.
    assert_eq!(&f[..3], [3.0, -0.5, 16.0]);
    assert_eq!(f[3].to_bits(), 0x0079_F50B);
    let d: Vec<u64> = p.buffers[1]
        .data
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(d, [0x000F_FFFF_FFFF_FFFF, 1.0f64.to_bits()]);
}

#[test]
fn integers_take_llvm_radix_prefixes() {
    let p =
        pipeline("Buffers:\n  - { Name: I, Format: Int32, Data: [ 010, 0x10, 0b10, -0o10 ] }\n");
    let values: Vec<i32> = p.buffers[0]
        .data
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(values, [8, 16, 2, -8]);
}

#[test]
fn nested_lists_and_resource_arrays() {
    let p = pipeline(
        r#"
        Buffers:
          - Name: Flat
            Format: Int16
            Data: [ [ 1, 2 ], [ 3 ] ]
          - Name: Array
            Format: Int16
            ArraySize: 2
            Data:
              - [ 1, 2 ]
              - [ 3, 4 ]
          - Name: Filled
            Format: Int16
            ArraySize: 3
            FillSize: 4
            FillValue: 7
        "#,
    );
    assert_eq!(p.buffers[0].data, [1, 0, 2, 0, 3, 0]);
    assert_eq!(p.buffers[1].array_size, 2);
    assert_eq!(p.buffers[1].data, [1, 0, 2, 0, 3, 0, 4, 0]);
    assert_eq!(p.buffers[2].data, [7, 0].repeat(6));
    expect!["7:11: Buffers[0].Data: buffer `A`: ArraySize 2 needs 2 lists of values, found 3"]
        .assert_eq(&rejected(
            "---\nShaders: []\nBuffers:\n  - Name: A\n    Format: Int16\n    ArraySize: 2\n    Data: [ [1], [2], [3] ]\n",
        ));
    expect!["7:9: Buffers[0].Data[1]: buffer `A`: the resources of an array hold the same number of values"]
        .assert_eq(&rejected(
            "Buffers:\n  - Name: A\n    Format: Int16\n    ArraySize: 2\n    Data:\n      - [ 1, 2 ]\n      - [ 3 ]\n",
        ));
}

#[test]
fn mip_levels_count_in_the_data() {
    // 4x2, then 2x1, then 1x1: 8 + 2 + 1 texels.
    let p = pipeline(&format!(
        "Buffers:\n  - Name: T\n    Format: UInt32\n    Data: {:?}\n    \
         OutputProps: {{ Width: 4, Height: 2, Depth: 1, MipLevels: 3 }}\n",
        (0..11).collect::<Vec<u32>>()
    ));
    let props = p.buffers[0].output_props.unwrap();
    assert_eq!(
        (props.mip_levels, props.texels(), props.all_texels()),
        (3, 8, 11)
    );
}

#[test]
fn denorm_modes() {
    let p = pipeline(
        r#"
        Buffers:
          - { Name: F, Format: Float32, Data: [1] }
        Results:
          - { Result: A, Rule: BufferFloatULP, ULPT: 1, Actual: F, Expected: F }
          - { Result: B, Rule: BufferFloatULP, ULPT: 1, DenormMode: FTZ, Actual: F, Expected: F }
          - { Result: C, Rule: BufferFloatEpsilon, Epsilon: 0.5, DenormMode: Preserve, Actual: F, Expected: F }
        "#,
    );
    let modes: Vec<DenormMode> = p
        .results
        .iter()
        .map(|r| match r.rule {
            Rule::BufferFloatUlp { denorm, .. } | Rule::BufferFloatEpsilon { denorm, .. } => denorm,
            Rule::BufferExact => unreachable!(),
        })
        .collect();
    assert_eq!(
        modes,
        [DenormMode::Any, DenormMode::Ftz, DenormMode::Preserve]
    );
}

#[test]
fn unknown_keys_are_errors_with_a_suggestion() {
    expect!["5:1: unknown key `Result`; did you mean `Results`?"].assert_eq(&rejected(
        r#"
        ---
        Shaders:
          - Stage: Compute
        Buffers: []
        Result: []
        "#,
    ));
    expect!["4:5: Buffers[0]: unknown key `Fromat`; did you mean `Format`?"].assert_eq(&rejected(
        "Buffers:\n  - Name: A\n    Data: [1]\n    Fromat: Int32\n",
    ));
    expect!["3:32: DescriptorSets[0].Resources[0]: unknown key `Binding` (expected one of Name, Kind, DirectXBinding, VulkanBinding, HasCounter)"]
        .assert_eq(&rejected(
            "DescriptorSets:\n  - Resources:\n    - { Name: A, Kind: Buffer, Binding: 0 }\n",
        ));
    expect!["1:1: unknown key `Sahders`; did you mean `Shaders`?"]
        .assert_eq(&rejected("Sahders: []\n"));
    expect!["2:35: Buffers[0].Format: unknown format `Flaot32`; did you mean `Float32`?"]
        .assert_eq(&rejected(
            "Buffers:\n  - { Name: A, Data: [1], Format: Flaot32 }\n",
        ));
}

#[test]
fn references_to_missing_buffers_name_their_line() {
    expect!["5:13: result `R`: no buffer named `Outt`; did you mean `Out`?"].assert_eq(&rejected(
        "Buffers:\n  - { Name: Out, Format: Int32, Data: [1] }\nResults:\n  - Result: R\n    Actual: Outt\n    Expected: Out\n    Rule: BufferExact\n",
    ));
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let p = parse("\u{feff}---\nDispatchParameters:\n  DispatchGroupCount: [2, 1, 1]\n").unwrap();
    assert_eq!(p.dispatch, [2, 1, 1]);
}

/// `parse_file` decodes a large `Data` list from the file after the rest:
/// the same buffers as `parse`, the same places in messages, and lists
/// with nested lists or comments read whole.
#[test]
fn large_lists_are_read_from_the_file() {
    let dir = std::env::temp_dir().join(format!("lockstep-parse-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let values: Vec<String> = (0..200_000).map(|i| format!("{}.5", i % 977)).collect();
    let mut lines = String::new();
    for (i, chunk) in values.chunks(16).enumerate() {
        if i > 0 {
            lines.push_str(",\n            ");
        }
        lines.push_str(&chunk.join(", "));
    }
    let doc = |data: &str| {
        format!(
            "---\nBuffers:\n  - Name: Big\n    Format: Float32\n    Data: [ {data} ]\n  - Name: Small\n    Format: Int32\n    Data: [ 1,, 2 ]\n"
        )
    };
    let check = |text: &str| {
        let path = dir.join("p.yaml");
        std::fs::write(&path, text).unwrap();
        let from_file = lockstep_pipeline::parse_file(&path);
        let from_text = lockstep_pipeline::parse(text);
        match (from_file, from_text) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b);
                Ok(a)
            }
            (Err(a), Err(b)) => {
                assert_eq!(a.to_string(), b.to_string());
                Err(a.to_string())
            }
            (a, b) => panic!("parse_file gave {a:?}, parse gave {b:?}"),
        }
    };
    let p = check(&doc(&lines)).unwrap();
    assert_eq!(p.buffers[0].data.len(), 200_000 * 4);
    assert_eq!(p.buffers[1].data, [1, 0, 0, 0, 2, 0, 0, 0]);
    // A bad value deep in the list: the same line and column either way.
    let bad = lines.replacen("500.5", "5x0", 1);
    let e = check(&doc(&bad)).unwrap_err();
    assert!(e.contains("Buffers[0].Data[500]"), "{e}");
    // Empty entries, a comment and a nested list take the whole-list path.
    let odd = format!("{lines},, 7 # seven\n            , [ 8 ]");
    let p = check(&doc(&odd)).unwrap();
    assert_eq!(p.buffers[0].data.len(), 200_002 * 4);
    std::fs::remove_dir_all(&dir).ok();
}
