//! Texture buffers: `OutputProps` (parsing, checks, rendering) and the
//! texture resource kinds.

use expect_test::{Expect, expect};
use lockstep_pipeline::{Kind, OutputProps, Style, parse, render_buffers};

use crate::{pipeline, rejection};

fn check_error(body: &str, expected: Expect) {
    expected.assert_eq(&rejection(body).to_string());
}

#[test]
fn output_props_in_any_order_with_depth_defaulting_to_1() {
    let p = pipeline(
        r#"
        Buffers:
          - Name: A
            Format: Float32
            Channels: 4
            FillSize: 96
            OutputProps:
              Height: 2
              Width: 3
              Depth: 1
          - Name: B
            Format: UInt32
            Data: [ 1, 2, 3, 4, 5, 6, 7, 8 ]
            OutputProps: { Depth: 2, Width: 2, Height: 2 }
          - Name: C
            OutputProps: { Width: 4, Height: 1 }
            Format: Int16
            Data: [ 1, 2, 3, 4 ]
          - Name: Plain
            Format: Int32
            Data: [ 1 ]
        "#,
    );
    let props: Vec<Option<OutputProps>> = p.buffers.iter().map(|b| b.output_props).collect();
    assert_eq!(
        props,
        [
            Some(OutputProps {
                width: 3,
                height: 2,
                depth: 1,
                mip_levels: 1,
            }),
            Some(OutputProps {
                width: 2,
                height: 2,
                depth: 2,
                mip_levels: 1,
            }),
            Some(OutputProps {
                width: 4,
                height: 1,
                depth: 1,
                mip_levels: 1,
            }),
            None,
        ]
    );
    assert_eq!(p.buffers[0].texel_size(), 16);
    assert_eq!(props[1].map(|p| p.texels()), Some(8));
}

#[test]
fn texture_kinds_parse_with_their_register_classes() {
    let names = [
        ("Texture1D", Kind::Texture1D, 't'),
        ("Texture2D", Kind::Texture2D, 't'),
        ("Texture2DArray", Kind::Texture2DArray, 't'),
        ("Texture3D", Kind::Texture3D, 't'),
        ("RWTexture1D", Kind::RwTexture1D, 'u'),
        ("RWTexture2D", Kind::RwTexture2D, 'u'),
        ("RWTexture2DArray", Kind::RwTexture2DArray, 'u'),
        ("RWTexture3D", Kind::RwTexture3D, 'u'),
    ];
    for (name, kind, class) in names {
        assert_eq!(name.parse::<Kind>(), Ok(kind));
        assert_eq!(kind.name(), name);
        assert_eq!(kind.register_class(), class, "{name}");
        assert!(kind.is_texture());
        let p = pipeline(&format!(
            r#"
            Buffers:
              - Name: T
                Format: Float32
                Data: [ 1, 2 ]
                OutputProps: {{ Width: 2, Height: 1 }}
            DescriptorSets:
              - Resources:
                - Name: T
                  Kind: {name}
                  DirectXBinding: {{ Register: 3, Space: 1 }}
            "#
        ));
        assert_eq!(p.bindings[0].kind, kind);
        assert_eq!(p.bindings[0].register_name(), format!("{class}3, space1"));
    }
    assert!(!Kind::RwBuffer.is_texture());
}

#[test]
fn a_texture_binding_needs_output_props() {
    check_error(
        r#"
        Buffers:
          - Name: Tex
            Format: Float32
            Data: [ 1, 2, 3, 4 ]
        DescriptorSets:
          - Resources:
            - Name: Tex
              Kind: RWTexture2D
              DirectXBinding: { Register: 0, Space: 0 }
        "#,
        expect![
            "13:13: descriptor set 0: buffer `Tex` is bound as a RWTexture2D but has no OutputProps giving its Width, Height and Depth"
        ],
    );
}

#[test]
fn output_props_must_match_the_data() {
    check_error(
        r#"
        Buffers:
          - Name: Tex
            Format: Float32
            Channels: 4
            FillSize: 48
            OutputProps: { Width: 2, Height: 2 }
        "#,
        expect![
            "7:5: Buffers[0]: buffer `Tex`: OutputProps 2x2x1 (Width x Height x Depth) texels of 16 bytes (Float32 x 4 channels) take 64 bytes, but the data holds 48"
        ],
    );
    check_error(
        r#"
        Buffers:
          - Name: Tex
            Format: UInt32
            Data: [ 1, 2 ]
            OutputProps: { Width: 2, Height: 0 }
        "#,
        expect!["7:5: Buffers[0]: buffer `Tex`: OutputProps Height must be at least 1"],
    );
}

#[test]
fn malformed_output_props() {
    check_error(
        r#"
        Buffers:
          - Name: Tex
            Format: UInt32
            Data: [ 1, 2 ]
            OutputProps: { Width: 2 }
        "#,
        expect!["10:18: Buffers[0].OutputProps: missing key `Height`"],
    );
    check_error(
        r#"
        Buffers:
          - Name: Tex
            Format: UInt32
            Data: [ 1, 2 ]
            OutputProps: { Width: 2, Height: 1, Slices: 1 }
        "#,
        expect![
            "10:41: Buffers[0].OutputProps: unknown key `Slices` (expected one of Height, Width, Depth, MipLevels)"
        ],
    );
    check_error(
        r#"
        Buffers:
          - Name: Tex
            Format: UInt32
            Data: [ 1, 2 ]
            OutputProps: { Width: -2, Height: 1 }
        "#,
        expect!["10:27: Buffers[0].OutputProps.Width: -2 is out of range (0 to 4294967295)"],
    );
}

#[test]
fn output_props_render_back() {
    let p = pipeline(
        r#"
        Buffers:
          - Name: Tex
            Format: Float32
            Channels: 2
            Data: [ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 ]
            OutputProps: { Width: 3, Height: 1, Depth: 2 }
          - Name: Plain
            Format: Int32
            Data: [ 7 ]
        "#,
    );
    let rendered = render_buffers::<Vec<u8>>(&p, &[], Style::Exact);
    expect![[r#"
        ---
        Buffers:
          - Name:            Tex
            Format:          Float32
            Channels:        2
            Data:            [ 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 
                               11.0, 12.0 ]
            OutputProps:
              Height:          1
              Width:           3
              Depth:           2
          - Name:            Plain
            Format:          Int32
            Data:            [ 7 ]
        ...
    "#]]
    .assert_eq(&rendered);
    let back = parse(&rendered).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back.buffers, p.buffers);
}
