//! Texture sampling through `SamplerState`: filters, address modes, the
//! border color, offsets and the level of detail that picks the filter,
//! against values derived by hand from a 2×2 texture.

use lockstep::{CompileOptions, RunOptions};

use crate::harness::{compile, diagnostics};

/// Runs `source`, compiled for shader model 6.`minor`, over `yaml` and
/// returns the `Out` buffer as floats.
fn run_floats_sm(source: &str, yaml: &str, minor: u32) -> Vec<f32> {
    let opts = CompileOptions {
        shader_model: (6, minor),
        ..CompileOptions::default()
    };
    let shader = compile(source, &opts);
    let pipeline = lockstep::pipeline::parse(yaml).unwrap_or_else(|e| panic!("{e}"));
    let opts = RunOptions {
        wave_size: 4,
        threads: 1,
        ..RunOptions::default()
    };
    let out =
        lockstep::run(&shader, &pipeline, &opts).unwrap_or_else(|e| panic!("run failed: {e}"));
    let index = pipeline.buffer_index("Out").expect("an Out buffer");
    out.contents[index]
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Runs `source` as a shader model 6.5 compute shader: no derivatives.
fn run_floats(source: &str, yaml: &str) -> Vec<f32> {
    run_floats_sm(source, yaml, 5)
}

/// The declarations that [`PIPELINE`] binds.
const HEADER: &str = "Texture2D<float> Tex : register(t0);\n\
    SamplerState LinearClamp : register(s0);\n\
    SamplerState PointWrap : register(s1);\n\
    SamplerState PointBorder : register(s2);\n\
    SamplerState Mixed : register(s3);\n";

/// The 2×2 texture [[0, 10], [20, 30]] (x fastest) and four samplers.
const PIPELINE: &str = "\
Shaders:
  - Stage: Compute
    Entry: main
Buffers:
  - Name: Tex
    Format: Float32
    Data: [ 0, 10, 20, 30 ]
    OutputProps: { Width: 2, Height: 2, Depth: 1 }
  - Name: Out
    Format: Float32
    FillSize: 64
Samplers:
  - Name: LinearClamp
  - Name: PointWrap
    Filter: Nearest
    Address: Wrap
  - Name: PointBorder
    Filter: Point
    Address: Border
    BorderColor: [ 1, 2, 3, 4 ]
  - Name: Mixed
    MinFilter: Nearest
    MagFilter: Linear
DescriptorSets:
  - Resources:
    - Name: Tex
      Kind: Texture2D
      DirectXBinding: { Register: 0, Space: 0 }
    - Name: LinearClamp
      Kind: Sampler
      DirectXBinding: { Register: 0, Space: 0 }
    - Name: PointWrap
      Kind: Sampler
      DirectXBinding: { Register: 1, Space: 0 }
    - Name: PointBorder
      Kind: Sampler
      DirectXBinding: { Register: 2, Space: 0 }
    - Name: Mixed
      Kind: Sampler
      DirectXBinding: { Register: 3, Space: 0 }
    - Name: Out
      Kind: RWStructuredBuffer
      DirectXBinding: { Register: 0, Space: 0 }
";

#[test]
fn filters_addresses_and_levels() {
    let source = HEADER.to_string()
        + "        RWStructuredBuffer<float> Out : register(u0);\n\
        [numthreads(1, 1, 1)]\n\
        void main() {\n\
            Out[0] = Tex.SampleLevel(LinearClamp, float2(0.5, 0.5), 0);\n\
            Out[1] = Tex.SampleLevel(LinearClamp, float2(0.25, 0.25), 0);\n\
            Out[2] = Tex.SampleLevel(LinearClamp, float2(1, 0.25), 0);\n\
            Out[3] = Tex.SampleLevel(PointWrap, float2(0.75, 0.25), 0);\n\
            Out[4] = Tex.SampleLevel(PointWrap, float2(1.25, 0.25), 0);\n\
            Out[5] = Tex.SampleLevel(PointWrap, float2(-0.25, 0.75), 0);\n\
            Out[6] = Tex.SampleLevel(PointBorder, float2(1.5, 0.5), 0);\n\
            Out[7] = Tex.SampleGrad(Mixed, float2(0.5, 0.5), float2(2, 0), float2(0, 0));\n\
            Out[8] = Tex.SampleGrad(Mixed, float2(0.5, 0.5), float2(0.25, 0), float2(0, 0));\n\
            Out[9] = Tex.SampleLevel(Mixed, float2(0.5, 0.5), 1);\n\
            Out[10] = Tex.SampleLevel(Mixed, float2(0.5, 0.5), 0);\n\
            Out[11] = Tex.SampleLevel(PointWrap, float2(0.25, 0.25), 0, int2(1, 1));\n\
            Out[12] = Tex.SampleLevel(Mixed, float2(0.5, 0.5), 0 + 1.0);\n\
            Out[13] = Tex.SampleLevel(LinearClamp, float2(0.375, 0.5), 0);\n\
        }\n";
    let out = run_floats(&source, PIPELINE);
    let expected = [
        // The centre: the four texels weigh 1/4 each.
        15.0, // Texel (0, 0)'s centre: its value alone.
        0.0,  // Past the right edge, clamped: texel (1, 0) twice.
        10.0, // Nearest at (1.5, 0.5): texel (1, 0).
        10.0, // (2.5, 0.5) wraps to texel (0, 0).
        0.0,  // (-0.5, 1.5) wraps to texel (1, 1).
        30.0, // Outside, with a border: the border's red.
        1.0,
        // A gradient of 2 texture widths is 4 texels: LOD 2, minified with
        // the nearest texel, (1, 1).
        30.0, // A gradient of half a texel: LOD -1, magnified linearly.
        15.0, // LOD 1: the nearest filter.
        30.0, // Sample in compute is level 0: magnified.
        15.0, // Texel (0, 0) moved by (1, 1).
        30.0, // Bias 1: LOD 1, nearest.
        30.0,
        // (0.25, 0.5) from texel (0, 0): 0.75·(0.5·0 + 0.5·20) + 0.25·(0.5·10
        // + 0.5·30) = 7.5 + 5.
        12.5,
    ];
    assert_eq!(out[..14], expected);
}

/// A sampler in another register class, a sampled RW texture, and a
/// sampler the pipeline does not describe are errors that name them.
#[test]
fn sampling_errors() {
    let text = diagnostics(
        "RWTexture2D<float> T;\n\
         Texture2D<int> I;\n\
         Texture2D<float> F;\n\
         SamplerState S;\n\
         RWStructuredBuffer<float> Out;\n\
         [numthreads(1, 1, 1)]\n\
         void main() {\n\
             Out[0] = T.SampleLevel(S, float2(0, 0), 0);\n\
             Out[1] = I.SampleLevel(S, float2(0, 0), 0);\n\
             Out[2] = F.SampleLevel(Out, float2(0, 0), 0);\n\
             Out[3] = F.SampleCmpGrad(S, float2(0, 0), 0, 0, 0);\n\
         }\n",
        &CompileOptions::default(),
    );
    // Below SM 6.6 a compute shader takes no derivatives, as DXC says.
    let sm65 = CompileOptions {
        shader_model: (6, 5),
        ..CompileOptions::default()
    };
    let implicit = diagnostics(
        "Texture2D<float> F;\n\
         SamplerState S;\n\
         RWStructuredBuffer<float> Out;\n\
         [numthreads(2, 2, 1)]\n\
         void main() {\n\
             Out[0] = F.Sample(S, float2(0, 0)) + F.SampleBias(S, float2(0, 0), 1);\n\
         }\n",
        &sm65,
    );
    for wanted in [
        "6:10: error: 'Sample' takes derivatives: it needs a pixel shader, or a compute shader of shader model 6.6",
        "6:38: error: 'SampleBias' takes derivatives",
    ] {
        assert!(
            implicit.contains(wanted),
            "missing {wanted:?} in:\n{implicit}"
        );
    }
    for wanted in [
        "'SampleLevel' needs a read-only texture, not a 'RWTexture2D<float>'",
        "'SampleLevel' on a texture of integer texels ('Texture2D<int>') is not supported by Lockstep yet: Load the texels",
        "the first argument of 'SampleLevel' must be a SamplerState",
        "'SampleCmpGrad' is not supported by Lockstep yet",
    ] {
        assert!(text.contains(wanted), "missing {wanted:?} in:\n{text}");
    }
    let yaml = PIPELINE.replace(
        "    - Name: Mixed\n      Kind: Sampler",
        "    - Name: Mixd\n      Kind: Sampler",
    );
    let err = lockstep::pipeline::parse(&yaml).unwrap_err().to_string();
    assert!(
        err.contains("no sampler named `Mixd`; did you mean `Mixed`?"),
        "{err}"
    );
}

/// A `Texture2DArray` of `float2` texels: the slice is `round(uv.z)`,
/// clamped to the slices there are; vector texels are weighed alike.
#[test]
fn array_slices_and_vector_texels() {
    let source = "Texture2DArray<float2> Tex : register(t0);\n\
        SamplerState S : register(s0);\n\
        RWStructuredBuffer<float2> Out : register(u0);\n\
        [numthreads(1, 1, 1)]\n\
        void main() {\n\
            Out[0] = Tex.SampleLevel(S, float3(0.5, 0.5, 0.6), 0);\n\
            Out[1] = Tex.SampleLevel(S, float3(0.75, 0.5, 0), 0);\n\
            Out[2] = Tex.SampleLevel(S, float3(0.5, 0.5, 7), 0);\n\
        }\n";
    let yaml = "\
Shaders:
  - Stage: Compute
    Entry: main
Buffers:
  - Name: Tex
    Format: Float32
    Channels: 2
    Data: [ 0, 1, 4, 5, 10, 11, 14, 15 ]
    OutputProps: { Width: 2, Height: 1, Depth: 2 }
  - Name: Out
    Format: Float32
    FillSize: 24
Samplers:
  - Name: S
DescriptorSets:
  - Resources:
    - Name: Tex
      Kind: Texture2DArray
      DirectXBinding: { Register: 0, Space: 0 }
    - Name: S
      Kind: Sampler
      DirectXBinding: { Register: 0, Space: 0 }
    - Name: Out
      Kind: RWStructuredBuffer
      DirectXBinding: { Register: 0, Space: 0 }
";
    let out = run_floats(source, yaml);
    // Slice 1 is [(10, 11), (14, 15)]: its centre is their mean. At
    // x = 0.75 · 2 − 0.5 = 1, texel 1 of slice 0 alone. z = 7 clamps to 1.
    assert_eq!(out, [12.0, 13.0, 4.0, 5.0, 12.0, 13.0]);
}

/// From SM 6.6, `Sample` in a compute shader takes its level of detail from
/// the derivatives of the coordinates over each 2×2 quad: steps of 2 in uv
/// are 4 texels (LOD 2, the nearest filter), steps of 1/100 magnify.
#[test]
fn sm66_sample_takes_the_level_from_the_quad() {
    let source = HEADER.to_string()
        + "        RWStructuredBuffer<float> Out : register(u0);\n\
        [numthreads(2, 2, 1)]\n\
        void main(uint2 id : SV_GroupThreadID, uint gi : SV_GroupIndex) {\n\
            if (gi == 0) {\n\
                Out[0] = 0;\n\
            }\n\
            float far = Tex.Sample(Mixed, 0.5 + id * 2.0);\n\
            float near = Tex.Sample(Mixed, 0.5 + id * 0.01);\n\
            if (gi == 0) {\n\
                Out[0] = far;\n\
                Out[1] = near;\n\
                Out[2] = fwidth(id.x * 3.0 + id.y);\n\
            }\n\
        }\n";
    let out = run_floats_sm(&source, PIPELINE, 6);
    // At (0.5, 0.5): the nearest texel (1, 1), or the four weighed alike;
    // fwidth is |3| + |1|.
    assert_eq!(out[..3], [30.0, 15.0, 4.0]);
    let text = diagnostics(
        "Texture2D<float> T;\nSamplerState S;\nRWStructuredBuffer<float> Out;\n\
         [numthreads(3, 1, 1)]\nvoid main() { Out[0] = T.Sample(S, float2(0, 0)); }\n",
        &CompileOptions::default(),
    );
    assert!(
        text.contains("numthreads(3, 1, 1) makes none (X and Y must be even, or X a multiple of 4 with Y = Z = 1)"),
        "{text}"
    );
    // Derivatives the entry point reaches through a function of its own
    // count; explicit-LOD sampling, gathers and functions it never calls
    // do not.
    let derivatives = |body: &str| {
        diagnostics(
            &format!(
                "Texture2D<float> T;\nSamplerState S;\nRWStructuredBuffer<float4> Out;\n\
                 float Edge(float x) {{ return fwidth(x); }}\n\
                 float Unused(float2 uv) {{ return T.Sample(S, uv) + ddx(uv.x); }}\n\
                 [numthreads(1, 64, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {{ {body} }}\n"
            ),
            &CompileOptions::default(),
        )
        .contains("makes none")
    };
    assert!(derivatives("Out[id.y] = Edge(id.y);"));
    assert!(derivatives("Out[id.y] = T.Sample(S, float2(0, id.y));"));
    for body in [
        "Out[id.y] = T.SampleLevel(S, float2(0.5, id.y / 64.0), 0);",
        "Out[id.y] = T.GatherRed(S, float2(0.5, id.y / 64.0));",
        "Out[id.y] = T.SampleGrad(S, float2(0.5, id.y / 64.0), float2(1, 0), float2(0, 1));",
        "Out[id.y] = T.Load(int3(0, id.y, 0));",
    ] {
        assert!(!derivatives(body), "{body}");
    }
}

/// `Gather` returns the four texels linear filtering would weigh, from
/// (i0, j1) counterclockwise, after the sampler's address modes.
#[test]
fn gather_returns_the_four_texels() {
    let source = HEADER.to_string()
        + "        RWStructuredBuffer<float4> Out : register(u0);\n\
        [numthreads(1, 1, 1)]\n\
        void main() {\n\
            Out[0] = Tex.Gather(LinearClamp, float2(0.5, 0.5));\n\
            Out[1] = Tex.GatherRed(PointWrap, float2(0, 0));\n\
            Out[2] = Tex.Gather(PointBorder, float2(0.5, 0.5), int2(1, 0));\n\
        }\n";
    let out = run_floats(&source, PIPELINE);
    assert_eq!(
        out[..12],
        [
            // Texels (0, 1), (1, 1), (1, 0), (0, 0).
            20.0, 30.0, 10.0, 0.0,
            // Around (-1, -1), wrapped: (1, 0), (0, 0), (0, 1), (1, 1).
            10.0, 0.0, 20.0, 30.0,
            // Moved right by one: the right column is outside, the border.
            30.0, 1.0, 1.0, 10.0,
        ]
    );
    let text = diagnostics(
        "Texture2D<float> T;\nSamplerState S;\nRWStructuredBuffer<float4> Out;\n\
         [numthreads(1, 1, 1)]\nvoid main() { Out[0] = T.GatherGreen(S, float2(0, 0)); }\n",
        &CompileOptions::default(),
    );
    assert!(
        text.contains(
            "'GatherGreen' reads a component that the texels of 'Texture2D<float>' do not have"
        ),
        "{text}"
    );
}

/// Cubes, 3D, 1D and 1D-array textures, each value derived by hand from
/// the face table of Direct3D and Vulkan (face, s = (sc / |ma| + 1) / 2,
/// t = (tc / |ma| + 1) / 2) and the texels around `uv * size - 0.5`.
#[test]
fn cubes_volumes_and_one_dimensional_textures() {
    let source = "TextureCube<float> C : register(t0);\n\
        Texture3D<float> V : register(t1);\n\
        Texture1D<float> L : register(t2);\n\
        Texture1DArray<float> LA : register(t3);\n\
        TextureCube<float> K : register(t4);\n\
        SamplerState P : register(s0);\n\
        SamplerState Lin : register(s1);\n\
        SamplerState Wrap : register(s2);\n\
        RWStructuredBuffer<float> Out : register(u0);\n\
        [numthreads(1, 1, 1)]\n\
        void main() {\n\
            float3 d[8] = { float3(1, 0, 0), float3(1, 0.5, -0.5), float3(-1, 0.2, 0.3),\n\
                float3(0.1, 1, 0.9), float3(0.3, -0.8, 0.1), float3(0.5, 0.5, 0.5),\n\
                float3(-0.2, 0.1, -1), float3(0.1, 0.1, 1) };\n\
            for (int i = 0; i < 8; i++) Out[i] = C.SampleLevel(P, d[i], 0);\n\
            Out[8] = K.SampleLevel(Lin, float3(1, 0, 1), 0);\n\
            Out[9] = K.SampleLevel(Lin, float3(1, 1, 1), 0);\n\
            Out[10] = C.SampleLevel(Lin, float3(1, 0, 0.8), 0);\n\
            Out[11] = V.SampleLevel(Lin, float3(0.5, 0.5, 0.5), 0);\n\
            Out[12] = V.SampleLevel(Lin, float3(0.6, 0.3, 0.7), 0);\n\
            Out[13] = L.SampleLevel(Lin, 0.3, 0);\n\
            Out[14] = L.SampleLevel(Wrap, 0.05, 0);\n\
            Out[15] = LA.SampleLevel(Lin, float2(0.3, 1), 0);\n\
            uint w, h; C.GetDimensions(w, h);\n\
            Out[16] = w * 10 + h;\n\
            Out[17] = L.SampleLevel(P, 0.6, 0, 1);\n\
            Out[18] = C.GatherRed(Lin, float3(1, 0, 0.8)).x;\n\
            Out[19] = LA.Load(int3(2, 2, 0)) + LA[uint2(1, 1)] * 100;\n\
        }\n";
    // C: face f's texel (i, j) holds 10f + 2j + i (2×2 faces); K: face f
    // is f everywhere; V: texel (x, y, z) holds x + 2y + 4z; L: 0, 10,
    // 20, 30; LA: slice k holds k + 10x.
    let cube: Vec<String> = (0..24).map(|n| (n / 4 * 10 + n % 4).to_string()).collect();
    let konst: Vec<String> = (0..24).map(|n| (n / 4).to_string()).collect();
    let volume: Vec<String> = (0..8).map(|n| n.to_string()).collect();
    let rows: Vec<String> = (0..12)
        .map(|n| (n / 4 + 10 * (n % 4)).to_string())
        .collect();
    let texture = |name: &str, data: &[String], props: &str| {
        format!(
            "  - Name: {name}\n    Format: Float32\n    Data: [ {} ]\n    OutputProps: {{ {props} }}\n",
            data.join(", ")
        )
    };
    let mut yaml = "Shaders:\n  - Stage: Compute\n    Entry: main\nBuffers:\n".to_string();
    yaml += &texture("C", &cube, "Width: 2, Height: 2, Depth: 6");
    yaml += &texture("V", &volume, "Width: 2, Height: 2, Depth: 2");
    yaml += &texture(
        "L",
        &["0", "10", "20", "30"].map(String::from),
        "Width: 4, Height: 1, Depth: 1",
    );
    yaml += &texture("LA", &rows, "Width: 4, Height: 1, Depth: 3");
    yaml += &texture("K", &konst, "Width: 2, Height: 2, Depth: 6");
    yaml += "  - Name: Out\n    Format: Float32\n    FillSize: 80\nSamplers:\n\
        \x20 - Name: P\n    Filter: Nearest\n  - Name: Lin\n  - Name: Wrap\n    Address: Wrap\n\
        DescriptorSets:\n  - Resources:\n";
    for (i, (name, kind)) in [
        ("C", "TextureCube"),
        ("V", "Texture3D"),
        ("L", "Texture1D"),
        ("LA", "Texture1DArray"),
        ("K", "TextureCube"),
    ]
    .into_iter()
    .enumerate()
    {
        yaml += &format!(
            "    - Name: {name}\n      Kind: {kind}\n      DirectXBinding: {{ Register: {i}, Space: 0 }}\n"
        );
    }
    for (i, name) in ["P", "Lin", "Wrap"].into_iter().enumerate() {
        yaml += &format!(
            "    - Name: {name}\n      Kind: Sampler\n      DirectXBinding: {{ Register: {i}, Space: 0 }}\n"
        );
    }
    yaml += "    - Name: Out\n      Kind: RWStructuredBuffer\n      DirectXBinding: { Register: 0, Space: 0 }\n";
    let out = run_floats(source, &yaml);
    let expected = [
        3.0,    // +X at its centre: face 0, (s, t) = (0.5, 0.5), texel (1, 1).
        1.0,    // (1, 0.5, -0.5): face 0, sc = 0.5, tc = -0.5: texel (1, 0).
        11.0,   // (-1, 0.2, 0.3): face 1, sc = 0.3, tc = -0.2: texel (1, 0).
        23.0,   // (0.1, 1, 0.9): face 2 (|y| >= |z|), sc = 0.1, tc = 0.9: (1, 1).
        31.0,   // (0.3, -0.8, 0.1): face 3, sc = 0.3, tc = -0.1: texel (1, 0).
        0.0,    // (0.5, 0.5, 0.5): a tie goes to x: face 0, texel (0, 0).
        51.0,   // (-0.2, 0.1, -1): face 5, sc = 0.2, tc = -0.1: texel (1, 0).
        41.0,   // (0.1, 0.1, 1): face 4, sc = 0.1, tc = -0.1: texel (1, 0).
        2.0,    // On the +X/+Z edge: half face 0, half face 4.
        2.0,    // At the +X/+Y/+Z corner: the corner texel is (0 + 4 + 2) / 3.
        13.3,   // Near +X's left edge: column -1 is +Z's right column (41, 43).
        3.5,    // The centre of the volume: 0.5 + 2·0.5 + 4·0.5.
        4.5,    // x + 2y + 4z at (0.7, 0.1, 0.9).
        7.0,    // 1D at 0.3: 0.7 of the way from 0 to 10.
        9.0,    // 1D at 0.05, wrapped: 0.7 of the way from 30 to 0.
        8.0,    // Slice 1 at 0.3: 1 + 7.
        22.0,   // GetDimensions: 2 × 2 faces.
        30.0,   // Nearest at 0.6 (texel 2), offset by 1: texel 3.
        43.0,   // Gather's first texel (i0, j1) = (-1, 1): +Z's texel (1, 1).
        1122.0, // LA.Load(x 2, slice 2) = 22; LA[(1, 1)] = 11.
    ];
    for (i, (&got, &want)) in out.iter().zip(&expected).enumerate() {
        assert!(
            (got - want).abs() < 1e-4,
            "Out[{i}]: {got}, expected {want}"
        );
    }
}

#[test]
fn cube_errors() {
    let text = diagnostics(
        "TextureCube<float4> C;\n\
         Texture3D<float4> V;\n\
         SamplerState S;\n\
         RWStructuredBuffer<float4> Out;\n\
         [numthreads(1, 1, 1)]\n\
         void main() {\n\
             Out[0] = C.Load(int4(0, 0, 0, 0));\n\
             Out[1] = C[uint3(0, 0, 0)];\n\
             Out[2] = C.SampleLevel(S, float3(1, 0, 0), 0, int2(1, 1));\n\
             Out[3] = V.Gather(S, float3(0, 0, 0));\n\
         }\n",
        &CompileOptions::default(),
    );
    for wanted in [
        "7:10: error: 'TextureCube<float4>' has no 'Load': a cube texture is read by sampling it",
        "8:10: error: 'TextureCube<float4>' has no '[]'",
        "9:10: error: 'SampleLevel' on a cube takes 3 arguments (cubes take no offset), not 4",
        "10:10: error: no member named 'Gather' in 'Texture3D<float4>'",
    ] {
        assert!(text.contains(wanted), "missing {wanted:?} in:\n{text}");
    }
}

/// Comparison sampling: each texel (0.2, 0.4, 0.6, 0.8) compared with the
/// reference by the sampler's `ComparisonFunc` (reference OP texel) gives
/// 1 or 0, then filters as the texels would.
#[test]
fn comparison_sampling_filters_the_comparisons() {
    let source = "Texture2D<float> Depth : register(t0);\n\
        SamplerComparisonState Le : register(s0);\n\
        SamplerComparisonState Gt : register(s1);\n\
        SamplerComparisonState PointLe : register(s2);\n\
        RWStructuredBuffer<float> Out : register(u0);\n\
        [numthreads(1, 1, 1)]\n\
        void main() {\n\
            Out[0] = Depth.SampleCmpLevelZero(Le, float2(0.5, 0.5), 0.5);\n\
            Out[1] = Depth.SampleCmpLevelZero(PointLe, float2(0.25, 0.25), 0.5);\n\
            Out[2] = Depth.SampleCmpLevelZero(Gt, float2(0.25, 0.25), 0.5);\n\
            float4 g = Depth.GatherCmp(Le, float2(0.5, 0.5), 0.5);\n\
            Out[3] = g.x * 1000 + g.y * 100 + g.z * 10 + g.w;\n\
            Out[4] = Depth.SampleCmpLevel(Le, float2(0.5, 0.5), 0.7, 0);\n\
            Out[5] = Depth.SampleCmpLevelZero(PointLe, float2(0.25, 0.25), 0.1, int2(1, 1));\n\
        }\n";
    let yaml = "Shaders:\n  - Stage: Compute\n    Entry: main\n\
        Buffers:\n  - Name: Depth\n    Format: Float32\n    Data: [ 0.2, 0.4, 0.6, 0.8 ]\n    \
        OutputProps: { Width: 2, Height: 2, Depth: 1 }\n\
        \x20 - Name: Out\n    Format: Float32\n    FillSize: 24\n\
        Samplers:\n  - Name: Le\n  - Name: Gt\n    ComparisonFunc: Greater\n\
        \x20 - Name: PointLe\n    Filter: Point\n    ComparisonFunc: LessEqual\n\
        DescriptorSets:\n  - Resources:\n\
        \x20   - { Name: Depth, Kind: Texture2D, DirectXBinding: { Register: 0, Space: 0 } }\n\
        \x20   - { Name: Le, Kind: Sampler, DirectXBinding: { Register: 0, Space: 0 } }\n\
        \x20   - { Name: Gt, Kind: Sampler, DirectXBinding: { Register: 1, Space: 0 } }\n\
        \x20   - { Name: PointLe, Kind: Sampler, DirectXBinding: { Register: 2, Space: 0 } }\n\
        \x20   - { Name: Out, Kind: RWStructuredBuffer, DirectXBinding: { Register: 0, Space: 0 } }\n";
    // SampleCmpLevel is SM 6.7's.
    let out = run_floats_sm(source, yaml, 7);
    assert_eq!(
        out,
        [
            0.5,    // LessEqual at the centre: 0.6 and 0.8 pass, weighed 1/4 each.
            0.0,    // Point at texel (0, 0): 0.5 <= 0.2 fails.
            1.0,    // Greater at texel (0, 0)'s centre: 0.5 > 0.2.
            1100.0, // Gather (i0, j1), (i1, j1), (i1, j0), (i0, j0): 0.6, 0.8 pass.
            0.25,   // 0.7 <= 0.8 only.
            1.0,    // Offset to texel (1, 1): 0.1 <= 0.8.
        ]
    );
}

/// A texture of three mip levels: 4×2 texels [[0, 1, 2, 3], [4, 5, 6, 7]],
/// then 2×1 [10, 12], then 1×1 [20], stored one level after the other;
/// a 2×2 array of two slices and two levels; a cube of two levels.
#[test]
fn mip_levels_are_loaded_measured_and_sampled() {
    let source = "Texture2D<float> T : register(t0);\n\
        Texture2DArray<float> A : register(t1);\n\
        TextureCube<float> C : register(t2);\n\
        SamplerState Lin : register(s0);\n\
        SamplerState NearestMip : register(s1);\n\
        SamplerState Capped : register(s2);\n\
        RWStructuredBuffer<float> Out : register(u0);\n\
        [numthreads(1, 1, 1)]\n\
        void main() {\n\
            float2 uv = float2(0.5, 0.5);\n\
            Out[0] = T.SampleLevel(Lin, uv, 0);\n\
            Out[1] = T.SampleLevel(Lin, uv, 1);\n\
            Out[2] = T.SampleLevel(Lin, uv, 2);\n\
            Out[3] = T.SampleLevel(Lin, uv, 1.5);\n\
            Out[4] = T.SampleLevel(Lin, uv, 0.25);\n\
            Out[5] = T.SampleLevel(Lin, uv, 7);\n\
            Out[6] = T.SampleLevel(NearestMip, uv, 1.5);\n\
            Out[7] = T.SampleLevel(NearestMip, uv, 0.25);\n\
            Out[8] = T.SampleLevel(Capped, uv, 2);\n\
            Out[9] = T.Load(int3(1, 0, 1)) + T.Load(int3(0, 0, 2)) * 100;\n\
            Out[10] = T.Load(int3(0, 1, 1)) + T.Load(int3(0, 0, 3));\n\
            Out[11] = T.mips[1][uint2(1, 0)];\n\
            uint w, h, n;\n\
            T.GetDimensions(1, w, h, n);\n\
            Out[12] = w * 100 + h * 10 + n;\n\
            T.GetDimensions(3, w, h, n);\n\
            Out[13] = w * 100 + h * 10 + n;\n\
            uint aw, ah, slices, an;\n\
            A.GetDimensions(1, aw, ah, slices, an);\n\
            Out[14] = aw * 1000 + ah * 100 + slices * 10 + an;\n\
            Out[15] = A.Load(int4(0, 0, 1, 1));\n\
            Out[16] = A.SampleLevel(Lin, float3(0.5, 0.5, 1), 0.5);\n\
            Out[17] = C.SampleLevel(Lin, float3(0, 0, -1), 1);\n\
            Out[18] = C.SampleLevel(Lin, float3(0, 0, -1), 0.5);\n\
        }\n";
    // A: slice k of level 0 holds k + 10x + 20y; level 1 (1×1) holds 100,
    // 200. C: face f holds f at level 0 (2×2) and 10f at level 1 (1×1).
    let array = "0, 10, 20, 30, 1, 11, 21, 31, 100, 200";
    let cube: Vec<String> = (0..24)
        .map(|n| (n / 4).to_string())
        .chain((0..6).map(|f| (10 * f).to_string()))
        .collect();
    let yaml = format!(
        "Shaders:\n  - Stage: Compute\n    Entry: main\nBuffers:\n\
         \x20 - Name: T\n    Format: Float32\n    Data: [ 0, 1, 2, 3, 4, 5, 6, 7, 10, 12, 20 ]\n\
         \x20   OutputProps: {{ Width: 4, Height: 2, Depth: 1, MipLevels: 3 }}\n\
         \x20 - Name: A\n    Format: Float32\n    Data: [ {array} ]\n\
         \x20   OutputProps: {{ Width: 2, Height: 2, Depth: 2, MipLevels: 2 }}\n\
         \x20 - Name: C\n    Format: Float32\n    Data: [ {} ]\n\
         \x20   OutputProps: {{ Width: 2, Height: 2, Depth: 6, MipLevels: 2 }}\n\
         \x20 - Name: Out\n    Format: Float32\n    FillSize: 76\n\
         Samplers:\n  - Name: Lin\n  - Name: NearestMip\n    MipFilter: Point\n\
         \x20 - Name: Capped\n    MaxLOD: 1\n\
         DescriptorSets:\n  - Resources:\n\
         \x20   - {{ Name: T, Kind: Texture2D, DirectXBinding: {{ Register: 0, Space: 0 }} }}\n\
         \x20   - {{ Name: A, Kind: Texture2DArray, DirectXBinding: {{ Register: 1, Space: 0 }} }}\n\
         \x20   - {{ Name: C, Kind: TextureCube, DirectXBinding: {{ Register: 2, Space: 0 }} }}\n\
         \x20   - {{ Name: Lin, Kind: Sampler, DirectXBinding: {{ Register: 0, Space: 0 }} }}\n\
         \x20   - {{ Name: NearestMip, Kind: Sampler, DirectXBinding: {{ Register: 1, Space: 0 }} }}\n\
         \x20   - {{ Name: Capped, Kind: Sampler, DirectXBinding: {{ Register: 2, Space: 0 }} }}\n\
         \x20   - {{ Name: Out, Kind: RWStructuredBuffer, DirectXBinding: {{ Register: 0, Space: 0 }} }}\n",
        cube.join(", ")
    );
    let expected = [
        3.5,    // Level 0 at (1.5, 0.5) after the half-texel shift: (1 + 2 + 5 + 6) / 4.
        11.0,   // Level 1 (2×1) at x 0.5: halfway from 10 to 12.
        20.0,   // Level 2: its one texel.
        15.5,   // Linear between levels 1 and 2.
        5.375,  // A quarter of the way from level 0 (3.5) to level 1 (11).
        20.0,   // The level of detail stops at the last level.
        20.0,   // Nearest level: floor(1.5 + 0.5) = 2.
        3.5,    // Nearest level: floor(0.25 + 0.5) = 0.
        11.0,   // MaxLOD 1 caps the level.
        2012.0, // Level 1's texel (1, 0) = 12; level 2's (0, 0) = 20.
        0.0,    // y 1 is past level 1's one row; level 3 does not exist.
        12.0,   // mips[1][(1, 0)].
        213.0,  // Level 1: 2 × 1 texels, 3 levels.
        3.0,    // Level 3 is past the last: every size 0, the count still 3.
        1122.0, // A's level 1: 1 × 1 texels, 2 slices, 2 levels.
        200.0,  // A's level 1, slice 1.
        108.0,  // Slice 1 halfway between level 0 (centre: (1 + 11 + 21 + 31) / 4 = 16) and 200.
        50.0,   // -Z (face 5) at level 1.
        27.5,   // -Z halfway between level 0 (5) and level 1 (50).
    ];
    let out = run_floats(source, &yaml);
    for (i, (&got, &want)) in out.iter().zip(&expected).enumerate() {
        assert!(
            (got - want).abs() < 1e-4,
            "Out[{i}]: {got}, expected {want}"
        );
    }
}

/// Sampling a texture or with a sampler chosen from an array by an index
/// known only when the shader runs: uniform, per lane, or through a
/// local alias; each lane samples its own element.
#[test]
fn textures_and_samplers_chosen_by_a_runtime_index_are_sampled() {
    let source = "Texture2D<float> T[2] : register(t0);\n\
        SamplerState S[2] : register(s0);\n\
        RWStructuredBuffer<float> Out : register(u0);\n\
        cbuffer C : register(b0) { uint chosen; };\n\
        [numthreads(4, 1, 1)]\n\
        void main(uint i : SV_GroupIndex) {\n\
            float2 uv = float2(0.5, 0.5);\n\
            Out[i] = T[chosen].SampleLevel(S[0], uv, 0);\n\
            Out[4 + i] = T[NonUniformResourceIndex(i & 1)].SampleLevel(S[0], uv, 0);\n\
            Texture2D<float> t = T[NonUniformResourceIndex(i >> 1)];\n\
            Out[8 + i] = t.SampleLevel(S[i & 1], uv * (i + 1), 0);\n\
            Out[12 + i] = T[i].Gather(S[0], uv).x;\n\
        }\n";
    // T[0] = [[0, 10], [20, 30]], T[1] = that plus 100; S[0] linear,
    // S[1] nearest, both clamping.
    let yaml = "Shaders:\n  - Stage: Compute\n    Entry: main\nBuffers:\n\
        \x20 - Name: A\n    Format: Float32\n    Data: [ 0, 10, 20, 30 ]\n\
        \x20   OutputProps: { Width: 2, Height: 2, Depth: 1 }\n\
        \x20 - Name: B\n    Format: Float32\n    Data: [ 100, 110, 120, 130 ]\n\
        \x20   OutputProps: { Width: 2, Height: 2, Depth: 1 }\n\
        \x20 - Name: C\n    Format: UInt32\n    Data: [ 1, 0, 0, 0 ]\n\
        \x20 - Name: Out\n    Format: Float32\n    FillSize: 64\n\
        Samplers:\n  - Name: Lin\n  - Name: Near\n    Filter: Nearest\n\
        DescriptorSets:\n  - Resources:\n\
        \x20   - { Name: A, Kind: Texture2D, DirectXBinding: { Register: 0, Space: 0 } }\n\
        \x20   - { Name: B, Kind: Texture2D, DirectXBinding: { Register: 1, Space: 0 } }\n\
        \x20   - { Name: Lin, Kind: Sampler, DirectXBinding: { Register: 0, Space: 0 } }\n\
        \x20   - { Name: Near, Kind: Sampler, DirectXBinding: { Register: 1, Space: 0 } }\n\
        \x20   - { Name: C, Kind: ConstantBuffer, DirectXBinding: { Register: 0, Space: 0 } }\n\
        \x20   - { Name: Out, Kind: RWStructuredBuffer, DirectXBinding: { Register: 0, Space: 0 } }\n";
    let expected = [
        // T[1] at its centre, every lane.
        115.0, 115.0, 115.0, 115.0, // T[i & 1] at its centre.
        15.0, 115.0, 15.0, 115.0,
        // T[i >> 1] at uv · (i + 1), linear for even lanes, nearest for
        // odd ones: (0.5, 0.5) linear 15; (1, 1) nearest: texel (1, 1) of
        // T[0] = 30 (clamped); (1.5, 1.5) linear, clamped: T[1]'s 130;
        // (2, 2) nearest: 130.
        15.0, 30.0, 130.0, 130.0,
        // Gather's (i0, j1) texel at the centre: (0, 1), of T[i], the
        // index past the end taking the last element.
        20.0, 120.0, 120.0, 120.0,
    ];
    let out = run_floats(source, yaml);
    for (i, (&got, &want)) in out.iter().zip(&expected).enumerate() {
        assert!(
            (got - want).abs() < 1e-4,
            "Out[{i}]: {got}, expected {want}"
        );
    }
}

/// A 1D array's slices do not shrink with the mip level: 8 texels in 4
/// slices over 3 levels, texel (level l, slice s, x) = 100l + 10s + x.
#[test]
fn one_dimensional_array_slices_keep_their_count_at_every_level() {
    let source = "Texture1DArray<float> T : register(t0);\n\
        SamplerState P : register(s0);\n\
        RWStructuredBuffer<float> Out : register(u0);\n\
        [numthreads(12, 1, 1)]\n\
        void main(uint i : SV_GroupIndex) {\n\
            uint mip = i / 4, slice = i % 4;\n\
            uint w, elements, levels;\n\
            T.GetDimensions(mip, w, elements, levels);\n\
            Out[i] = T.SampleLevel(P, float2(0.3, slice), mip) * 1000 + w * 100 + elements * 10 + levels;\n\
        }\n";
    let data: Vec<String> = (0..3u32)
        .flat_map(|l| (0..4u32).flat_map(move |s| (0..(8 >> l)).map(move |x| 100 * l + 10 * s + x)))
        .map(|v| v.to_string())
        .collect();
    let yaml = format!(
        "Shaders:\n  - Stage: Compute\n    Entry: main\nBuffers:\n\
         \x20 - Name: T\n    Format: Float32\n    Data: [ {} ]\n\
         \x20   OutputProps: {{ Width: 8, Height: 1, Depth: 4, MipLevels: 3 }}\n\
         \x20 - Name: Out\n    Format: Float32\n    FillSize: 48\n\
         Samplers:\n  - Name: P\n    Filter: Nearest\n\
         DescriptorSets:\n  - Resources:\n\
         \x20   - {{ Name: T, Kind: Texture1DArray, DirectXBinding: {{ Register: 0, Space: 0 }} }}\n\
         \x20   - {{ Name: P, Kind: Sampler, DirectXBinding: {{ Register: 0, Space: 0 }} }}\n\
         \x20   - {{ Name: Out, Kind: RWStructuredBuffer, DirectXBinding: {{ Register: 0, Space: 0 }} }}\n",
        data.join(", ")
    );
    let out = run_floats(source, &yaml);
    // Nearest at 0.3: texel 2 of 8, 1 of 4, 0 of 2; widths 8, 4, 2; 4
    // slices and 3 levels at each.
    for (i, &got) in out.iter().enumerate() {
        let (l, s) = (i as u32 / 4, i as u32 % 4);
        let texel = 100 * l + 10 * s + [2, 1, 0][l as usize];
        let want = (texel * 1000 + (8 >> l) * 100 + 4 * 10 + 3) as f32;
        assert_eq!(got, want, "Out[{i}]");
    }
}

/// A vertex shader has no derivatives: `CalculateLevelOfDetail` there is
/// an error naming the method; `[WaveOpsIncludeHelperLanes]` needs
/// shader model 6.7.
#[test]
fn vertex_derivatives_and_helper_lane_waves_are_errors() {
    let vertex = CompileOptions {
        stage: lockstep::ir::Stage::Vertex,
        entry: "main".to_string(),
        ..CompileOptions::default()
    };
    let text = diagnostics(
        "Texture2D<float4> T;\nSamplerState S;\n\
         float4 main(float4 p : POSITION) : SV_Position { return p * T.CalculateLevelOfDetail(S, p.xy); }\n",
        &vertex,
    );
    assert!(
        text.contains(
            "error: 'CalculateLevelOfDetail' takes derivatives, which vertex shaders do not have"
        ),
        "{text}"
    );
    let pixel = CompileOptions {
        stage: lockstep::ir::Stage::Pixel,
        shader_model: (6, 6),
        ..vertex
    };
    let text = diagnostics(
        "[WaveOpsIncludeHelperLanes]\nfloat4 main(float4 p : SV_Position) : SV_Target { return WaveActiveCountBits(true); }\n",
        &pixel,
    );
    assert!(text.contains("WaveOpsIncludeHelperLanes"), "{text}");
    assert!(text.contains("6.7"), "{text}");
}

/// An immediate texel offset lies in -8..=7 in each component, as DXC
/// validates it: `Load` and the sampling methods refuse others at the
/// offset.
#[test]
fn texel_offsets_outside_four_bits_are_errors() {
    let shader = |call: &str| {
        format!(
            "Texture2D<float> T : register(t0);\nSamplerState S : register(s0);\n\
             RWStructuredBuffer<float> Out : register(u0);\n\
             [numthreads(1, 1, 1)] void main() {{ Out[0] = {call}; }}\n"
        )
    };
    let opts = CompileOptions::default();
    for call in [
        "T.Load(int3(0, 0, 0), int2(8, 0))",
        "T.Load(int3(0, 0, 0), int2(0, -9))",
        "T.SampleLevel(S, float2(0, 0), 0, int2(12, 0))",
    ] {
        let text = diagnostics(&shader(call), &opts);
        assert!(
            text.contains("error: a texel offset is -8 to 7 in each component"),
            "{call}: {text}"
        );
    }
    for call in [
        "T.Load(int3(0, 0, 0), int2(7, -8))",
        "T.SampleLevel(S, float2(0, 0), 0, int2(-8, 7))",
    ] {
        let text = diagnostics(&shader(call), &opts);
        assert!(!text.contains("error"), "{call}: {text}");
    }
}
