//! Rejected pipelines: each error names its cause, with the line and column
//! where the problem can be pinned to a place (documents start with the
//! five-line header, so bodies begin on line 6).

use expect_test::{Expect, expect};
use lockstep_pipeline::{Location, parse};

use crate::{dedent, rejection};

fn check(body: &str, expected: Expect) {
    expected.assert_eq(&rejection(body).to_string());
}

fn check_whole(text: &str, expected: Expect) {
    match parse(&dedent(text)) {
        Ok(p) => panic!("accepted: {p:?}"),
        Err(e) => expected.assert_eq(&e.to_string()),
    }
}

#[test]
fn yaml_syntax_error_has_a_location() {
    let error = rejection("Buffers:\n  - Name: [unclosed\n");
    assert!(error.location.is_some_and(|l| l.line >= 7), "{error:?}");
    assert!(!error.message.contains(" at line "), "{error:?}");
}

#[test]
fn not_a_mapping() {
    check_whole(
        "just text",
        expect!["1:1: expected a mapping, found a scalar"],
    );
    check_whole(
        "- 1\n- 2",
        expect!["1:1: expected a mapping, found a sequence"],
    );
}

#[test]
fn unknown_names_point_at_the_value() {
    check(
        r#"
        Buffers:
          - Name: A
            Format: Int8
            Data: [1]
        "#,
        expect![
            "8:13: Buffers[0].Format: unknown format `Int8` (expected one of Int16, Int32, Int64, UInt16, UInt32, UInt64, Float16, Float32, Float64, Bool, Hex8, Hex16, Hex32, Hex64)"
        ],
    );
    check(
        r#"
        Buffers:
          - Name: A
            Format: Int32
            Data: [1]
        Results:
          - Result: R
            Rule: BufferFuzzy
            Actual: A
            Expected: A
        "#,
        expect![
            "12:11: Results[0].Rule: unknown rule `BufferFuzzy` (expected one of BufferExact, BufferFloatULP, BufferFloatEpsilon)"
        ],
    );
    check(
        r#"
        Buffers:
          - Name: A
            Format: Int32
            Data: [1]
        DescriptorSets:
          - Resources:
            - Name: A
              Kind: AccelerationStructure
              DirectXBinding: { Register: 0, Space: 0 }
        "#,
        expect![
            "13:13: DescriptorSets[0].Resources[0].Kind: unknown resource kind `AccelerationStructure` (expected one of StructuredBuffer, RWStructuredBuffer, Buffer, RWBuffer, ByteAddressBuffer, RWByteAddressBuffer, ConstantBuffer, Texture1D, Texture1DArray, Texture2D, Texture2DArray, Texture3D, TextureCube, TextureCubeArray, RWTexture1D, RWTexture1DArray, RWTexture2D, RWTexture2DArray, RWTexture3D, Sampler)"
        ],
    );
}

#[test]
fn data_out_of_range_names_buffer_and_element() {
    check(
        r#"
        Buffers:
          - Name: Small
            Format: Int16
            Data: [ 300, -32768, 40000 ]
        "#,
        expect![
            "9:26: Buffers[0].Data[2]: buffer `Small`: 40000 is out of range for Int16 (-32768 to 32767)"
        ],
    );
    check(
        "Buffers:\n  - { Name: U, Format: UInt32, Data: [ 1, -1 ] }\n",
        expect![
            "7:43: Buffers[0].Data[1]: buffer `U`: -1 is out of range for UInt32 (0 to 4294967295)"
        ],
    );
    check(
        "Buffers:\n  - { Name: H, Format: Hex16, Data: [ -32768, 65536 ] }\n",
        expect![
            "7:47: Buffers[0].Data[1]: buffer `H`: 65536 is out of range for Hex16 (-32768 to 65535)"
        ],
    );
    check(
        "Buffers:\n  - { Name: H, Format: Hex16, Data: [ -32769 ] }\n",
        expect![
            "7:39: Buffers[0].Data[0]: buffer `H`: -32769 is out of range for Hex16 (-32768 to 65535)"
        ],
    );
    check(
        "Buffers:\n  - { Name: H, Format: Float16, Data: [ 0x10000 ] }\n",
        expect![
            "7:41: Buffers[0].Data[0]: buffer `H`: 0x10000 is out of range for Float16 (0 to 65535)"
        ],
    );
    check(
        "Buffers:\n  - { Name: B, Format: Bool, Data: [ 2 ] }\n",
        expect!["7:38: Buffers[0].Data[0]: buffer `B`: expected true, false, 0 or 1, found `2`"],
    );
    check(
        "Buffers:\n  - { Name: U, Format: UInt64, Data: [ 18446744073709551616 ] }\n",
        expect![
            "7:40: Buffers[0].Data[0]: buffer `U`: 18446744073709551616 is out of range for UInt64 (0 to 18446744073709551615)"
        ],
    );
}

#[test]
fn data_that_is_not_a_number() {
    check(
        "Buffers:\n  - { Name: I, Format: Int32, Data: [ 1, 1.5 ] }\n",
        expect!["7:42: Buffers[0].Data[1]: buffer `I`: expected an integer, found `1.5`"],
    );
    check(
        "Buffers:\n  - { Name: F, Format: Float32, Data: [ 1, one ] }\n",
        expect!["7:44: Buffers[0].Data[1]: buffer `F`: expected a number, found `one`"],
    );
    check(
        "Buffers:\n  - { Name: F, Format: Float32, Data: [ { a: 1 } ] }\n",
        expect!["7:41: Buffers[0].Data[0]: expected a data value, found a mapping"],
    );
    check(
        "Buffers:\n  - { Name: F, Format: Float32, Data: 1 }\n",
        expect!["7:39: Buffers[0].Data: expected a list of data values, found a scalar"],
    );
    check(
        "Buffers:\n  - { Name: H, Format: Float16, Data: [ 1.5 ] }\n",
        expect![
            "7:41: Buffers[0].Data[0]: buffer `H`: Float16 data are bit patterns: write 0x3E00 for 1.5"
        ],
    );
}

#[test]
fn bad_data_before_format_is_reported_at_the_element() {
    check(
        r#"
        Buffers:
          - Name: Ok
            Format: Int32
            Data: [1]
          - Data: [ 1, 70000 ]
            Name: Late
            Format: UInt16
        "#,
        expect![
            "10:16: Buffers[1].Data[1]: buffer `Late`: 70000 is out of range for UInt16 (0 to 65535)"
        ],
    );
}

#[test]
fn data_and_fill_conflicts() {
    check(
        "Buffers:\n  - { Name: A, Format: Int32, Data: [1], FillSize: 4 }\n",
        expect!["7:5: Buffers[0]: buffer `A`: both Data and FillSize given"],
    );
    check(
        "Buffers:\n  - { Name: A, Format: Int32 }\n",
        expect!["7:5: Buffers[0]: buffer `A`: neither Data nor FillSize given"],
    );
    check(
        "Buffers:\n  - { Name: A, Format: Int32, FillSize: 4, ZeroInitSize: 4 }\n",
        expect!["7:5: Buffers[0]: buffer `A`: both FillSize and ZeroInitSize given"],
    );
    check(
        "Buffers:\n  - { Name: A, Format: Int32, Data: [1], FillValue: 2 }\n",
        expect!["7:5: Buffers[0]: buffer `A`: FillValue without FillSize"],
    );
    check(
        "Buffers:\n  - { Name: A, Format: Int32, FillSize: 6 }\n",
        expect![
            "7:5: Buffers[0]: buffer `A`: FillSize 6 is not a multiple of the Int32 element size 4"
        ],
    );
    check(
        "Buffers:\n  - { Name: A, Format: Int32, FillSize: 4294967296 }\n",
        expect![
            "7:5: Buffers[0]: buffer `A`: FillSize 4294967296 exceeds the limit of 1073741824 bytes"
        ],
    );
    check(
        "Buffers:\n  - { Name: A, Format: Int16, FillSize: 4, FillValue: 99999 }\n",
        expect![
            "7:55: Buffers[0].FillValue: buffer `A`: 99999 is out of range for Int16 (-32768 to 32767)"
        ],
    );
    check(
        "Buffers:\n  - { Name: A, FillSize: 4, FillValue: x, Format: Float32 }\n",
        expect!["7:40: Buffers[0].FillValue: buffer `A`: expected a number, found `x`"],
    );
}

#[test]
fn incomplete_or_odd_buffers() {
    check(
        "Buffers:\n  - { Format: Int32, Data: [1] }\n",
        expect!["7:5: Buffers[0]: buffer without a Name"],
    );
    check(
        "Buffers:\n  - { Name: A, Data: [1] }\n",
        expect!["7:5: Buffers[0]: buffer `A`: no Format"],
    );
    check(
        "Buffers:\n  - { Name: A, Format: Int32, Data: [1], Channels: 0 }\n",
        expect!["7:5: Buffers[0]: buffer `A`: Channels 0 is not within 1 to 4"],
    );
    check(
        "Buffers:\n  - { Name: A, Format: Int32, Data: [1], Channels: 5 }\n",
        expect!["7:5: Buffers[0]: buffer `A`: Channels 5 is not within 1 to 4"],
    );
    check(
        "Buffers:\n  - { Name: A, Format: Int32, Data: [1], Stride: 0 }\n",
        expect!["7:5: Buffers[0]: buffer `A`: Stride must be at least 1"],
    );
    check(
        "Buffers:\n  - { Name: A, Format: Int32, Data: [1], Stride: -4 }\n",
        expect!["7:50: Buffers[0].Stride: -4 is out of range (0 to 4294967295)"],
    );
    check(
        "Buffers:\n  - Name: A\n    Name: B\n    Format: Int32\n    Data: [1]\n",
        expect!["8:5: Buffers[0]: duplicate key `Name`"],
    );
}

#[test]
fn duplicate_buffer_names() {
    check(
        "Buffers:\n  - { Name: A, Format: Int32, Data: [1] }\n  - { Name: A, Format: Int16, Data: [1] }\n",
        expect!["8:5: duplicate buffer name `A`"],
    );
}

#[test]
fn bad_group_counts() {
    let dispatch =
        |size: &str| format!("---\nShaders:\n  - Stage: Compute\n    DispatchSize: {size}\n");
    let show = |size: &str| {
        parse(&dispatch(size))
            .map(|p| p.dispatch)
            .map_err(|e| e.to_string())
    };
    assert_eq!(show("[1, 1, 65535]"), Ok([1, 1, 65535]));
    expect![[r#"
        Err(
            "4:20: Shaders[0].DispatchSize[0]: group count 0 must be at least 1",
        )
    "#]]
    .assert_debug_eq(&show("[0, 1, 1]"));
    expect![[r#"
        Err(
            "4:23: Shaders[0].DispatchSize[1]: group count 65536 exceeds the D3D12 limit of 65535",
        )
    "#]]
    .assert_debug_eq(&show("[1, 65536, 1]"));
    expect![[r#"
        Err(
            "4:26: Shaders[0].DispatchSize[2]: group count -1 must be at least 1",
        )
    "#]]
    .assert_debug_eq(&show("[1, 1, -1]"));
    expect![[r#"
        Err(
            "4:19: Shaders[0].DispatchSize: expected three group counts, found 2",
        )
    "#]]
    .assert_debug_eq(&show("[1, 1]"));
    expect![[r#"
        Err(
            "4:19: Shaders[0].DispatchSize: expected three group counts, found 4",
        )
    "#]]
    .assert_debug_eq(&show("[1, 1, 1, 1]"));
    expect![[r#"
        Err(
            "4:23: Shaders[0].DispatchSize[1]: expected an integer, found `x`",
        )
    "#]]
    .assert_debug_eq(&show("[1, x, 1]"));
}

#[test]
fn disagreeing_dispatch_sizes() {
    check_whole(
        r#"
        Shaders:
          - Stage: Compute
            DispatchSize: [4, 1, 1]
        DispatchParameters:
          DispatchGroupCount: [2, 1, 1]
        "#,
        expect![
            "3:19: dispatch sizes disagree: DispatchSize [4, 1, 1], DispatchGroupCount [2, 1, 1]"
        ],
    );
}

#[test]
fn bindings_must_name_buffers_and_registers_once() {
    check(
        r#"
        Buffers:
          - { Name: A, Format: Int32, Data: [1] }
        DescriptorSets:
          - Resources:
            - Name: B
              Kind: RWBuffer
              DirectXBinding: { Register: 0, Space: 0 }
        "#,
        expect!["10:13: descriptor set 0: no buffer named `B`"],
    );
    check(
        r#"
        Buffers:
          - { Name: A, Format: Int32, Data: [1] }
          - { Name: B, Format: Int32, Data: [1] }
        DescriptorSets:
          - Resources:
            - Name: A
              Kind: RWStructuredBuffer
              DirectXBinding: { Register: 3, Space: 1 }
          - Resources:
            - Name: B
              Kind: RWByteAddressBuffer
              DirectXBinding: { Register: 3, Space: 1 }
        "#,
        expect!["17:23: register u3, space1 is bound to both `A` and `B`"],
    );
    check(
        r#"
        Buffers:
          - { Name: A, Format: Int32, Data: [1] }
        DescriptorSets:
          - Resources:
            - Name: A
              Kind: Buffer
        "#,
        expect!["10:7: DescriptorSets[0].Resources[0]: missing key `DirectXBinding`"],
    );
}

#[test]
fn same_register_number_in_other_classes_or_spaces_is_fine() {
    let p = crate::pipeline(
        r#"
        Buffers:
          - { Name: A, Format: Int32, Data: [1] }
        DescriptorSets:
          - Resources:
            - { Name: A, Kind: Buffer, DirectXBinding: { Register: 0 } }
            - { Name: A, Kind: RWBuffer, DirectXBinding: { Register: 0 } }
            - { Name: A, Kind: ConstantBuffer, DirectXBinding: { Register: 0 } }
            - { Name: A, Kind: StructuredBuffer, DirectXBinding: { Register: 0, Space: 1 } }
        "#,
    );
    assert_eq!(p.bindings.len(), 4);
}

const RESULT_BUFFERS: &str = r#"
    Buffers:
      - { Name: F, Format: Float32, Data: [1] }
      - { Name: I, Format: Int32, Data: [1] }
    Results:
"#;

fn check_result(result: &str, expected: Expect) {
    check(
        &format!("{}{}", dedent(RESULT_BUFFERS), dedent(result)),
        expected,
    );
}

#[test]
fn result_errors() {
    check_result(
        "  - { Result: R, Rule: BufferExact, Actual: X, Expected: F }",
        expect!["10:43: result `R`: no buffer named `X`"],
    );
    check_result(
        "  - { Result: R, Rule: BufferExact, Actual: F, Expected: Y }",
        expect!["10:56: result `R`: no buffer named `Y`"],
    );
    check_result(
        "  - { Result: R, Rule: BufferFloatULP, Actual: F, Expected: F }",
        expect!["10:3: result `R`: BufferFloatULP needs ULPT"],
    );
    check_result(
        "  - { Result: R, Rule: BufferFloatEpsilon, Actual: F, Expected: F }",
        expect!["10:3: result `R`: BufferFloatEpsilon needs Epsilon"],
    );
    check_result(
        "  - { Result: R, Rule: BufferFloatEpsilon, Epsilon: -0.5, Actual: F, Expected: F }",
        expect!["10:3: result `R`: Epsilon -0.5 is not a non-negative number"],
    );
    check_result(
        "  - { Result: R, Rule: BufferFloatEpsilon, Epsilon: .nan, Actual: F, Expected: F }",
        expect!["10:3: result `R`: Epsilon NaN is not a non-negative number"],
    );
    check_result(
        "  - { Result: R, Rule: BufferFloatULP, ULPT: 1, Actual: I, Expected: F }",
        expect![
            "10:3: result `R`: BufferFloatULP needs float buffers, but Actual buffer `I` is Int32"
        ],
    );
    check_result(
        "  - { Result: R, Rule: BufferFloatEpsilon, Epsilon: 1, Actual: F, Expected: I }",
        expect![
            "10:3: result `R`: BufferFloatEpsilon needs float buffers, but Expected buffer `I` is Int32"
        ],
    );
    check_result(
        "  - { Result: R, Rule: BufferExact, Actual: F }",
        expect!["10:3: Results[0]: missing key `Expected`"],
    );
}

#[test]
fn locations_are_one_based() {
    let error = rejection("Buffers:\n  - { Name: A, Format: Int32, Data: [ 1, x ] }\n");
    assert_eq!(
        error.location,
        Some(Location {
            line: 7,
            column: 42
        })
    );
}

#[test]
fn sampler_levels_of_detail_must_be_numbers_in_range() {
    for (fields, message) in [
        ("MinLOD: 5, MaxLOD: 1", "MinLOD 5 is above MaxLOD 1"),
        ("MinLOD: .nan", "MinLOD is NaN"),
        (
            "MipLODBias: 1e300",
            "MipLODBias inf is outside -16 to 15.99",
        ),
        ("MipLODBias: -17", "MipLODBias -17 is outside -16 to 15.99"),
    ] {
        let error = rejection(&format!("Samplers:\n  - {{ Name: S, {fields} }}\n"));
        assert!(
            error
                .to_string()
                .contains(&format!("sampler `S`: {message}")),
            "{fields}: {error}"
        );
    }
}
