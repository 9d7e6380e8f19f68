//! Every pipeline buffer format through a whole run: the shader reads and
//! writes each type, and the pipeline's Results rules check the outputs.

use lockstep::{CompileOptions, MemoryLoader, RunOptions};

use crate::harness::WAVE_SIZES;

fn run_pipeline(source: &str, yaml: &str, opts: &CompileOptions) {
    let pipeline = lockstep::pipeline::parse(yaml).unwrap_or_else(|e| panic!("{e}"));
    let shader = lockstep::compile("test.hlsl", source, opts, &MemoryLoader::default())
        .unwrap_or_else(|e| panic!("{}", e.render(false)));
    for w in WAVE_SIZES {
        let out = lockstep::run(
            &shader,
            &pipeline,
            &RunOptions {
                wave_size: w,
                ..RunOptions::default()
            },
        )
        .unwrap();
        for o in &out.outcomes {
            assert!(o.passed, "wave size {w}:\n{}", o.render());
        }
    }
}

/// A one-group pipeline: `body` holds the Buffers and Results sections;
/// `bindings` lists (buffer, kind, register) in space 0.
fn pipeline_yaml(body: &str, bindings: &[(&str, &str, u32)]) -> String {
    let mut yaml = String::from(
        "---\nShaders:\n  - Stage: Compute\n    Entry: main\n    DispatchSize: [1, 1, 1]\n",
    );
    yaml.push_str(body.trim_start_matches('\n'));
    yaml.push_str("DescriptorSets:\n  - Resources:\n");
    for (name, kind, register) in bindings {
        yaml.push_str(&format!("    - Name: {name}\n      Kind: {kind}\n      DirectXBinding: {{ Register: {register}, Space: 0 }}\n"));
    }
    yaml
}

#[test]
fn sixteen_bit_types() {
    let source = r#"
StructuredBuffer<half> H : register(t0);
StructuredBuffer<int16_t> S : register(t1);
StructuredBuffer<uint16_t> U : register(t2);
RWStructuredBuffer<half> HOut : register(u0);
RWStructuredBuffer<int16_t> SOut : register(u1);
RWStructuredBuffer<uint16_t> UOut : register(u2);
[numthreads(4, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    HOut[gi] = WaveActiveSum(H[gi]);
    SOut[gi] = WavePrefixSum(S[gi]);
    UOut[gi] = WaveActiveMax(U[gi]) + (uint16_t)gi;
}
"#;
    // Half: 2048 + 1 + 1 + 0.5 rounds at each step in binary16: 2048.
    // int16: prefix sums of -30000, -30000, 5, 1 wrap: 0, -30000, 5536, 5541.
    let yaml = pipeline_yaml(
        r#"
Buffers:
  - Name: H
    Format: Float16
    Data: [ 0x6800, 0x3C00, 0x3C00, 0x3800 ]
  - Name: S
    Format: Int16
    Data: [ -30000, -30000, 5, 1 ]
  - Name: U
    Format: UInt16
    Data: [ 1, 65000, 3, 4 ]
  - Name: HOut
    Format: Float16
    FillSize: 8
  - Name: SOut
    Format: Int16
    FillSize: 8
  - Name: UOut
    Format: UInt16
    FillSize: 8
  - Name: HWant
    Format: Float16
    Data: [ 0x6800, 0x6800, 0x6800, 0x6800 ]
  - Name: SWant
    Format: Int16
    Data: [ 0, -30000, 5536, 5541 ]
  - Name: UWant
    Format: UInt16
    Data: [ 65000, 65001, 65002, 65003 ]
Results:
  - Result: H
    Rule: BufferExact
    Actual: HOut
    Expected: HWant
  - Result: S
    Rule: BufferExact
    Actual: SOut
    Expected: SWant
  - Result: U
    Rule: BufferExact
    Actual: UOut
    Expected: UWant
"#,
        &[
            ("H", "StructuredBuffer", 0),
            ("S", "StructuredBuffer", 1),
            ("U", "StructuredBuffer", 2),
            ("HOut", "RWStructuredBuffer", 0),
            ("SOut", "RWStructuredBuffer", 1),
            ("UOut", "RWStructuredBuffer", 2),
        ],
    );
    run_pipeline(
        source,
        &yaml,
        &CompileOptions {
            enable_16bit_types: true,
            ..CompileOptions::default()
        },
    );
}

#[test]
fn sixty_four_bit_types_and_bool() {
    let source = r#"
StructuredBuffer<double> D : register(t0);
StructuredBuffer<int64_t> I : register(t1);
StructuredBuffer<bool> B : register(t2);
RWStructuredBuffer<double> DOut : register(u0);
RWStructuredBuffer<uint64_t> IOut : register(u1);
RWStructuredBuffer<bool> BOut : register(u2);
[numthreads(4, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    DOut[gi] = WaveActiveSum(D[gi]);
    IOut[gi] = (uint64_t)WaveActiveMin(I[gi]);
    BOut[gi] = WaveActiveAnyTrue(B[gi]) && !WaveActiveAllTrue(B[gi]);
}
"#;
    // 1e15 + 1 + 1 + 2 keeps every unit in double (in float the ones would
    // be lost): 1000000000000004.
    let yaml = pipeline_yaml(
        r#"
Buffers:
  - Name: D
    Format: Float64
    Data: [ 1e15, 1, 1, 2 ]
  - Name: I
    Format: Int64
    Data: [ 5, -9000000000, 7, 0 ]
  - Name: B
    Format: Bool
    Data: [ 0, 1, 0, 0 ]
  - Name: DOut
    Format: Float64
    FillSize: 32
  - Name: IOut
    Format: Hex64
    FillSize: 32
  - Name: BOut
    Format: Bool
    FillSize: 16
  - Name: DWant
    Format: Float64
    Data: [ 1000000000000004, 1000000000000004, 1000000000000004, 1000000000000004 ]
  - Name: IWant
    Format: Hex64
    Data: [ 0xFFFFFFFDE78EE600, 0xFFFFFFFDE78EE600, 0xFFFFFFFDE78EE600, 0xFFFFFFFDE78EE600 ]
  - Name: BWant
    Format: Bool
    Data: [ 1, 1, 1, 1 ]
Results:
  - Result: D
    Rule: BufferExact
    Actual: DOut
    Expected: DWant
  - Result: I
    Rule: BufferExact
    Actual: IOut
    Expected: IWant
  - Result: B
    Rule: BufferExact
    Actual: BOut
    Expected: BWant
"#,
        &[
            ("D", "StructuredBuffer", 0),
            ("I", "StructuredBuffer", 1),
            ("B", "StructuredBuffer", 2),
            ("DOut", "RWStructuredBuffer", 0),
            ("IOut", "RWStructuredBuffer", 1),
            ("BOut", "RWStructuredBuffer", 2),
        ],
    );
    run_pipeline(source, &yaml, &CompileOptions::default());
}

#[test]
fn matrices_and_structs_in_structured_buffers() {
    // float2x3 is column-major in memory: columns (m00 m10) (m01 m11)
    // (m02 m12). The struct packs a uint, a float2x2 and a double at 8.
    let source = r#"
struct Rec { uint id; float2x2 m; double d; };
StructuredBuffer<float2x3> M : register(t0);
StructuredBuffer<Rec> R : register(t1);
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(1, 1, 1)]
void main()
{
    float2x3 m = M[0];
    Rec r = R[1];
    Out[0] = float4(m[0][1], m[1][0], m._m12, (float)r.d);
    Out[1] = float4(r.m[0][1], r.m[1][1], (float)r.id, 0);
}
"#;
    let yaml = pipeline_yaml(
        r#"
Buffers:
  - Name: M
    Format: Float32
    Data: [ 0, 10, 1, 11, 2, 12 ]
  - Name: R
    Format: Hex32
    Stride: 32
    Data: [ 0, 0, 0, 0, 0, 0, 0, 0,
            7, 0x3F800000, 0x40000000, 0x40400000, 0x40800000, 0, 0, 0x40140000 ]
  - Name: Out
    Format: Float32
    FillSize: 32
  - Name: Want
    Format: Float32
    Data: [ 1, 10, 12, 5, 3, 4, 7, 0 ]
Results:
  - Result: Out
    Rule: BufferExact
    Actual: Out
    Expected: Want
"#,
        &[
            ("M", "StructuredBuffer", 0),
            ("R", "StructuredBuffer", 1),
            ("Out", "RWStructuredBuffer", 0),
        ],
    );
    run_pipeline(source, &yaml, &CompileOptions::default());
}

#[test]
fn typed_buffers_with_channels() {
    let source = r#"
Buffer<float4> In : register(t0);
RWBuffer<float2> Out : register(u0);
[numthreads(2, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    float4 v = In[gi];
    Out[gi] = v.wx + WaveActiveSum(v.y);
}
"#;
    let yaml = pipeline_yaml(
        r#"
Buffers:
  - Name: In
    Format: Float32
    Channels: 4
    Data: [ 1, 2, 3, 4, 5, 6, 7, 8 ]
  - Name: Out
    Format: Float32
    Channels: 2
    FillSize: 16
  - Name: Want
    Format: Float32
    Channels: 2
    Data: [ 12, 9, 16, 13 ]
Results:
  - Result: Out
    Rule: BufferFloatULP
    ULPT: 0
    Actual: Out
    Expected: Want
"#,
        &[("In", "Buffer", 0), ("Out", "RWBuffer", 0)],
    );
    run_pipeline(source, &yaml, &CompileOptions::default());
}
