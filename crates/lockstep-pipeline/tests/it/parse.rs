//! Parsing of well-formed pipelines: the bytes each format produces, fills,
//! bindings, dispatch sizes and the keys that are ignored.

use lockstep_pipeline::{Binding, BufferDesc, DenormMode, Format, Kind, ResultRule, Rule, parse};

use crate::{dedent, pipeline};

const EXAMPLE: &str = r#"
    ---
    Shaders:
      - Stage: Compute
        Entry: main
        DispatchSize: [4, 1, 1]
    DispatchParameters:
      DispatchGroupCount: [4, 1, 1]
    RuntimeSettings:
      WaveSize: 32
    Buffers:
      - Name: In
        Format: Int32
        Stride: 4
        Data: [ 1, 2, 3, 4 ]
      - Name: Out
        Format: Float32
        Counter: true
        FillSize: 8
        FillValue: 0.5
      - Name: Expected
        Format: Float16
        Channels: 2
        ArraySize: 1
        Data: [ 0x3C00, 0x4000 ]
    Results:
      - Result: Test1
        Rule: BufferExact
        Actual: Out
        Expected: Expected
      - Result: Test2
        Rule: BufferFloatULP
        ULPT: 2
        DenormMode: Any
        Actual: Out
        Expected: Expected
      - Result: Test3
        Rule: BufferFloatEpsilon
        Epsilon: 0.001
        Actual: Out
        Expected: Expected
    DescriptorSets:
      - Resources:
        - Name: In
          Kind: StructuredBuffer
          DirectXBinding:
            Register: 0
            Space: 0
          VulkanBinding:
            Binding: 0
        - Name: Out
          Kind: RWBuffer
          DirectXBinding:
            Register: 0
            Space: 0
      - Resources:
        - Name: Expected
          Kind: CBuffer
          DirectXBinding:
            Register: 2
            Space: 1
    ...
"#;

#[test]
fn the_example_pipeline() {
    let p = parse(&dedent(EXAMPLE)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.dispatch, [4, 1, 1]);
    assert_eq!(p.entry.as_deref(), Some("main"));
    assert_eq!(
        p.buffers,
        vec![
            BufferDesc {
                name: "In".into(),
                format: Format::Int32,
                stride: Some(4),
                channels: 1,
                array_size: 1,
                data: vec![1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0],
                output_props: None,
            },
            BufferDesc {
                name: "Out".into(),
                format: Format::Float32,
                stride: None,
                channels: 1,
                array_size: 1,
                data: vec![0, 0, 0, 0x3F, 0, 0, 0, 0x3F],
                output_props: None,
            },
            BufferDesc {
                name: "Expected".into(),
                format: Format::Float16,
                stride: None,
                channels: 2,
                array_size: 1,
                data: vec![0x00, 0x3C, 0x00, 0x40],
                output_props: None,
            },
        ]
    );
    let rule = |name: &str, rule| ResultRule {
        name: name.into(),
        rule,
        actual: "Out".into(),
        expected: "Expected".into(),
    };
    assert_eq!(
        p.results,
        vec![
            rule("Test1", Rule::BufferExact),
            rule(
                "Test2",
                Rule::BufferFloatUlp {
                    ulpt: 2,
                    denorm: DenormMode::Any
                }
            ),
            rule(
                "Test3",
                Rule::BufferFloatEpsilon {
                    epsilon: 0.001,
                    denorm: DenormMode::Any
                }
            ),
        ]
    );
    let binding = |name: &str, kind, register, space, set, vulkan_binding| Binding {
        name: name.into(),
        kind,
        register,
        space,
        set,
        vulkan_binding,
    };
    assert_eq!(
        p.bindings,
        vec![
            binding("In", Kind::StructuredBuffer, 0, 0, 0, Some(0)),
            binding("Out", Kind::RwBuffer, 0, 0, 0, None),
            binding("Expected", Kind::ConstantBuffer, 2, 1, 1, None),
        ]
    );
    let registers: Vec<String> = p.bindings.iter().map(Binding::register_name).collect();
    assert_eq!(registers, ["t0, space0", "u0, space0", "b2, space1"]);
}

/// The bytes `Data` gives in `format`.
fn data_bytes(format: &str, data: &str) -> Vec<u8> {
    let p = pipeline(&format!(
        "Buffers:\n  - Name: B\n    Format: {format}\n    Data: {data}\n"
    ));
    p.buffers[0].data.clone()
}

#[test]
fn integer_formats_are_little_endian_twos_complement() {
    assert_eq!(
        data_bytes("Int16", "[-2, 32767, -32768]"),
        [0xFE, 0xFF, 0xFF, 0x7F, 0x00, 0x80]
    );
    assert_eq!(
        data_bytes("Int32", "[-2, 0x10]"),
        [0xFE, 0xFF, 0xFF, 0xFF, 0x10, 0, 0, 0]
    );
    assert_eq!(data_bytes("Int64", "[-1]"), [0xFF; 8]);
    assert_eq!(data_bytes("UInt16", "[65535, 1]"), [0xFF, 0xFF, 0x01, 0x00]);
    assert_eq!(
        data_bytes("UInt32", "[0xDEADBEEF]"),
        [0xEF, 0xBE, 0xAD, 0xDE]
    );
    assert_eq!(data_bytes("UInt64", "[18446744073709551615]"), [0xFF; 8]);
    assert_eq!(
        data_bytes("UInt64", "[0x0102030405060708]"),
        [8, 7, 6, 5, 4, 3, 2, 1]
    );
}

#[test]
fn hex_formats_take_signed_and_unsigned_spellings() {
    assert_eq!(
        data_bytes("Hex16", "[0xFFFF, -1, 0x1234, -32768]"),
        [0xFF, 0xFF, 0xFF, 0xFF, 0x34, 0x12, 0x00, 0x80]
    );
    assert_eq!(
        data_bytes("Hex32", "[0x12345678, 4294967295]"),
        [0x78, 0x56, 0x34, 0x12, 0xFF, 0xFF, 0xFF, 0xFF]
    );
    assert_eq!(
        data_bytes("Hex64", "[-2]"),
        [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    );
    assert_eq!(data_bytes("Hex64", "[0xFFFFFFFFFFFFFFFF]"), [0xFF; 8]);
}

#[test]
fn float16_data_are_bit_patterns() {
    // 0x3C00 is 1.0, 15360 the same pattern in decimal, 0xC000 is -2.0.
    assert_eq!(
        data_bytes("Float16", "[0x3C00, 15360, 0xC000, 0x7E00]"),
        [0x00, 0x3C, 0x00, 0x3C, 0x00, 0xC0, 0x00, 0x7E]
    );
}

#[test]
fn float32_and_float64_values() {
    // 1.5 = 0x3FC00000, -2 = 0xC0000000, 0.1 = 0x3DCCCCCD.
    assert_eq!(
        data_bytes("Float32", "[1.5, -2, 0.1]"),
        [
            0x00, 0x00, 0xC0, 0x3F, 0x00, 0x00, 0x00, 0xC0, 0xCD, 0xCC, 0xCC, 0x3D
        ]
    );
    // 1.5 = 0x3FF8000000000000, -0.0 = 0x8000000000000000.
    assert_eq!(
        data_bytes("Float64", "[1.5, -0.0]"),
        [0, 0, 0, 0, 0, 0, 0xF8, 0x3F, 0, 0, 0, 0, 0, 0, 0, 0x80]
    );
}

#[test]
fn float_nan_and_infinity_spellings() {
    let bits = |data: &str| -> Vec<u32> {
        data_bytes("Float32", data)
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    assert_eq!(bits("[inf, .inf, +.inf, .Inf, Infinity]"), [0x7F80_0000; 5]);
    assert_eq!(bits("[-inf, -.inf, -.INF]"), [0xFF80_0000; 3]);
    assert_eq!(bits("[nan, .nan, NaN, .NaN]"), [0x7FC0_0000; 4]);
    assert_eq!(bits("[-.nan]"), [0xFFC0_0000]);
    assert_eq!(
        data_bytes("Float64", "[.inf]"),
        [0, 0, 0, 0, 0, 0, 0xF0, 0x7F]
    );
}

#[test]
fn bool_is_32_bit_zero_or_one() {
    assert_eq!(
        data_bytes("Bool", "[true, false, 1, 0, True]"),
        [1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]
    );
}

#[test]
fn quoted_values_and_empty_data() {
    assert_eq!(
        data_bytes("Int16", r#"["0x10", '-1']"#),
        [0x10, 0x00, 0xFF, 0xFF]
    );
    assert_eq!(data_bytes("Float32", "[]"), []);
    assert_eq!(data_bytes("UInt16", "\n      - 7\n      - 8"), [7, 0, 8, 0]);
}

#[test]
fn fill_size_and_fill_value() {
    let p = pipeline(
        r#"
        Buffers:
          - Name: Zeros
            Format: Int32
            FillSize: 8
          - Name: Halves
            Format: Float32
            FillSize: 12
            FillValue: 0.5
          - Name: Ones
            Format: Float16
            FillSize: 4
            FillValue: 0x3C00
          - Name: Minus
            Format: Int16
            FillValue: -2
            FillSize: 4
          - Name: Empty
            Format: Float64
            FillSize: 0
          - Name: Older
            Format: UInt32
            ZeroInitSize: 8
        "#,
    );
    let data: Vec<&[u8]> = p.buffers.iter().map(|b| b.data.as_slice()).collect();
    assert_eq!(data[0], [0; 8]);
    // `ZeroInitSize`, the older spelling, fills with zeros.
    assert_eq!(data[5], [0; 8]);
    assert_eq!(data[1], [0, 0, 0, 0x3F].repeat(3));
    assert_eq!(data[2], [0x00, 0x3C, 0x00, 0x3C]);
    assert_eq!(data[3], [0xFE, 0xFF, 0xFE, 0xFF]);
    assert_eq!(data[4], []);
    let counts: Vec<usize> = p.buffers.iter().map(BufferDesc::element_count).collect();
    assert_eq!(counts, [2, 3, 2, 2, 0, 2]);
}

#[test]
fn format_may_follow_data() {
    let p = pipeline(
        r#"
        Buffers:
          - Data: [ -2, 3 ]
            Name: Late
            Format: Int16
        "#,
    );
    assert_eq!(p.buffers[0].name, "Late");
    assert_eq!(p.buffers[0].data, [0xFE, 0xFF, 0x03, 0x00]);
}

#[test]
fn dispatch_size_from_either_spelling() {
    let from_parameters = parse(&dedent(
        r#"
        DispatchParameters:
          DispatchGroupCount: [2, 3, 65535]
        Buffers: []
        "#,
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(from_parameters.dispatch, [2, 3, 65535]);
    assert_eq!(from_parameters.entry, None);

    let both = parse(&dedent(
        r#"
        Shaders:
          - Stage: Compute
            Entry: CSMain
            DispatchSize: [8, 1, 2]
        DispatchParameters:
          DispatchGroupCount: [8, 1, 2]
        "#,
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(both.dispatch, [8, 1, 2]);
    assert_eq!(both.entry.as_deref(), Some("CSMain"));
    assert!(both.buffers.is_empty() && both.results.is_empty() && both.bindings.is_empty());
}

#[test]
fn other_stages_are_never_run_as_compute() {
    let error = parse(&dedent(
        r#"
        Shaders:
          - Stage: Compute
            Entry: cs
          - Stage: Pixel
            Entry: ps
        "#,
    ))
    .expect_err("a pixel shader");
    assert_eq!(
        error.to_string(),
        "1:1: Shaders: a pipeline runs a compute shader or a Vertex and a Pixel shader, not both"
    );
    let vertex =
        parse("Shaders:\n  - { Stage: Vertex, Entry: vs }\n").expect_err("a vertex shader");
    assert_eq!(
        vertex.to_string(),
        "1:1: Shaders: a graphics pipeline needs both a Vertex and a Pixel shader"
    );
}

/// A graphics pipeline as upstream writes it: the vertex and pixel
/// shaders, `Bindings` with the vertex buffer, its attributes, the render
/// target and the topology; the vertex count defaults to the vertex
/// buffer's bytes over one vertex's.
#[test]
fn graphics_pipelines() {
    let text = dedent(
        r#"
        Shaders:
          - Stage: Vertex
            Entry: VSMain
          - Stage: Pixel
            Entry: PSMain
        Buffers:
          - Name: Vertices
            Format: Float32
            Data: [ 0, 1, 0, 1, 0, 0,  1, -1, 0, 0, 1, 0,  -1, -1, 0, 0, 0, 1 ]
          - Name: Target
            Format: Float32
            Channels: 4
            FillSize: 256
            OutputProps: { Width: 4, Height: 4, Depth: 1 }
        Bindings:
          VertexBuffer: Vertices
          VertexAttributes:
            - Format: Float32
              Channels: 3
              Offset: 0
              Name: POSITION
            - Format: Float32
              Channels: 3
              Offset: 12
              Name: COLOR
          RenderTarget: Target
        "#,
    );
    let p = parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let g = p.graphics.expect("a graphics pipeline");
    assert_eq!(g.vertex_entry.as_deref(), Some("VSMain"));
    assert_eq!(g.pixel_entry.as_deref(), Some("PSMain"));
    assert_eq!(
        (g.vertex_buffer.as_deref(), g.render_target.as_str()),
        (Some("Vertices"), "Target")
    );
    assert_eq!(g.topology, lockstep_pipeline::Topology::TriangleList);
    // 72 bytes of 24-byte vertices.
    assert_eq!(g.vertex_count, 3);
    assert_eq!(g.attributes[1].name, "COLOR");
    assert_eq!(g.attributes[1].offset, 12);
    let strip = text.replace(
        "  RenderTarget: Target",
        "  RenderTarget: Target\n  Topology: TriangleStrip",
    );
    let strip = parse(&strip).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        strip.graphics.unwrap().topology,
        lockstep_pipeline::Topology::TriangleStrip
    );
    let too_many = text.replace(
        "Buffers:",
        "DispatchParameters:\n  VertexCount: 4\nBuffers:",
    );
    assert_eq!(
        parse(&too_many).unwrap_err().to_string(),
        "7:16: VertexCount 4 exceeds the 3 vertices of `Vertices` (72 bytes, 24 per vertex)"
    );
    // An attribute past the end leaves no whole vertex: an error, not a
    // blank draw.
    let past_end = text.replace("Offset: 12", "Offset: 4000");
    let message = parse(&past_end).unwrap_err().to_string();
    assert!(
        message.contains("`Vertices` (72 bytes) holds 0 whole vertices of 4012 bytes"),
        "{message}"
    );
    let wrong_depth = text.replace(
        "  RenderTarget: Target",
        "  RenderTarget: Target\n  DepthTarget: Target",
    );
    assert!(
        parse(&wrong_depth)
            .unwrap_err()
            .to_string()
            .ends_with("Bindings.DepthTarget: depth target `Target` must be Float32 with one channel and OutputProps { Width: 4, Height: 4 }, as the render target"),
    );
    let no_target = text.replace("RenderTarget: Target", "RenderTarget: Targte");
    assert!(
        parse(&no_target)
            .unwrap_err()
            .to_string()
            .ends_with("Bindings.RenderTarget: no buffer named `Targte`; did you mean `Target`?"),
    );
    let compute = "Shaders:\n  - Stage: Compute\nBindings:\n  RenderTarget: X\n";
    assert_eq!(
        parse(compute).unwrap_err().to_string(),
        "4:3: Bindings: Bindings belong to graphics pipelines, but Shaders has no Vertex and Pixel shader"
    );
}

#[test]
fn every_kind_and_its_register_class() {
    let table: Vec<(String, bool, char)> = Kind::ALL
        .iter()
        .map(|k| (k.to_string(), k.is_writable(), k.register_class()))
        .collect();
    let expected = [
        ("StructuredBuffer", false, 't'),
        ("RWStructuredBuffer", true, 'u'),
        ("Buffer", false, 't'),
        ("RWBuffer", true, 'u'),
        ("ByteAddressBuffer", false, 't'),
        ("RWByteAddressBuffer", true, 'u'),
        ("ConstantBuffer", false, 'b'),
        ("Texture1D", false, 't'),
        ("Texture1DArray", false, 't'),
        ("Texture2D", false, 't'),
        ("Texture2DArray", false, 't'),
        ("Texture3D", false, 't'),
        ("TextureCube", false, 't'),
        ("TextureCubeArray", false, 't'),
        ("RWTexture1D", true, 'u'),
        ("RWTexture1DArray", true, 'u'),
        ("RWTexture2D", true, 'u'),
        ("RWTexture2DArray", true, 'u'),
        ("RWTexture3D", true, 'u'),
        ("Sampler", false, 's'),
    ];
    let expected: Vec<(String, bool, char)> = expected
        .iter()
        .map(|&(n, w, c)| (n.to_owned(), w, c))
        .collect();
    assert_eq!(table, expected);
    for kind in Kind::ALL {
        assert_eq!(kind.name().parse::<Kind>(), Ok(kind));
    }
    assert_eq!("CBuffer".parse::<Kind>(), Ok(Kind::ConstantBuffer));
}

#[test]
fn format_names_sizes_and_classes() {
    let table: Vec<String> = Format::ALL
        .iter()
        .map(|f| {
            format!(
                "{f} {} {}",
                f.size(),
                if f.is_float() { "float" } else { "-" }
            )
        })
        .collect();
    assert_eq!(
        table,
        [
            "Int16 2 -",
            "Int32 4 -",
            "Int64 8 -",
            "UInt16 2 -",
            "UInt32 4 -",
            "UInt64 8 -",
            "Float16 2 float",
            "Float32 4 float",
            "Float64 8 float",
            "Bool 4 -",
            "Hex8 1 -",
            "Hex16 2 -",
            "Hex32 4 -",
            "Hex64 8 -",
        ]
    );
    for format in Format::ALL {
        assert_eq!(format.name().parse::<Format>(), Ok(format));
    }
    let error = "Int8".parse::<Format>().unwrap_err();
    assert_eq!(
        error.message,
        "unknown format `Int8` (expected one of Int16, Int32, Int64, UInt16, UInt32, UInt64, \
         Float16, Float32, Float64, Bool, Hex8, Hex16, Hex32, Hex64)"
    );
}

#[test]
fn buffer_lookup() {
    let p = pipeline(
        "Buffers:\n  - { Name: A, Format: Int32, Data: [1] }\n  - { Name: B, Format: Int32, Data: [2] }\n",
    );
    assert_eq!(p.buffer_index("B"), Some(1));
    assert_eq!(p.buffer_index("C"), None);
    assert_eq!(
        p.buffer("A").map(|b| b.data.clone()),
        Some(vec![1, 0, 0, 0])
    );
}
