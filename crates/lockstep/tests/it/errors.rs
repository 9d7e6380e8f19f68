//! Bad input gets a clear diagnostic that points at the cause: snapshots of
//! the rendered messages.

use expect_test::{Expect, expect};
use lockstep::pipeline::Kind;
use lockstep::{CompileOptions, RunOptions};

use crate::harness::{buf, compile, diagnostics, pipeline};

fn check(source: &str, want: Expect) {
    want.assert_eq(&diagnostics(source, &CompileOptions::default()));
}

#[test]
fn malformed_hlsl() {
    check(
        "[numthreads(1,1,1)]\nvoid main() {\n    uint x = 1\n}\n",
        expect![[r#"
            test.hlsl:3:15: error: expected ';' at end of declaration
              |
            3 |     uint x = 1
              |               ^

        "#]],
    );
}

#[test]
fn unknown_intrinsic() {
    check(
        "[numthreads(1,1,1)]\nvoid main() {\n    uint x = WaveActiveSummm(1u);\n}\n",
        expect![[r#"
            test.hlsl:3:14: error: use of undeclared identifier 'WaveActiveSummm'
              |
            3 |     uint x = WaveActiveSummm(1u);
              |              ^^^^^^^^^^^^^^^

        "#]],
    );
}

/// Constructs Lockstep does not implement are errors that name them.
#[test]
fn unsupported_constructs_are_named() {
    check(
        "RWStructuredBuffer<uint> Out;\n[numthreads(1,1,1)]\nvoid main() {\n    RWStructuredBuffer<uint> b = ResourceDescriptorHeap[0];\n    static uint calls = WaveGetLaneIndex();\n}\n",
        expect![[r#"
            test.hlsl:4:34: error: not supported: 'ResourceDescriptorHeap' (SM 6.6 dynamic resources); bind the resource with a register instead
              |
            4 |     RWStructuredBuffer<uint> b = ResourceDescriptorHeap[0];
              |                                  ^^^^^^^^^^^^^^^^^^^^^^^^^

            test.hlsl:5:17: error: not supported: a 'static' local initialized with a value that is not a constant ('calls'); initialize it with a constant and assign it where it is first needed
              |
            5 |     static uint calls = WaveGetLaneIndex();
              |                 ^^^^^^^^^^^^^^^^^^^^^^^^^^

        "#]],
    );
}

/// C++ that HLSL does not have gets an error that says so, at the
/// construct: constructors, `virtual`, pointers, `->`, non-member
/// operators.
#[test]
fn cpp_constructs_hlsl_lacks_are_named() {
    let cases = [
        (
            "struct S { uint a; S(uint x) { a = x; } };",
            "constructors and destructors are not supported in HLSL",
        ),
        (
            "struct S { uint a; ~S() {} };",
            "constructors and destructors are not supported in HLSL",
        ),
        (
            "struct S { virtual uint get() { return 1; } };",
            "virtual functions are not supported in HLSL",
        ),
        (
            "struct S { uint a; uint get() { return this->a; } };",
            "member reference with '->': HLSL has no pointers ('this' is a reference); use '.'",
        ),
        (
            "struct S { uint a; };\nS operator+(S l, S r) { return l; }",
            "overloading a non-member operator is not allowed: declare it in the struct",
        ),
        (
            "void f() { uint a = 1; uint* p = 0; }",
            "pointers and references are not supported in HLSL",
        ),
        (
            "void f() { uint a = 1; uint b = *a; }",
            "pointer dereference is not supported: HLSL has no pointers",
        ),
        (
            "void f() { uint a = 1; uint b = &a; }",
            "the address-of operator is not supported: HLSL has no pointers",
        ),
        (
            "uint* g;",
            "pointers and references are not supported in HLSL",
        ),
    ];
    for (source, message) in cases {
        let text = diagnostics(
            &format!("{source}\n[numthreads(1, 1, 1)] void main() {{}}\n"),
            &CompileOptions::default(),
        );
        assert!(
            text.contains(&format!("error: {message}")),
            "{source}: {text}"
        );
    }
}

#[test]
fn wrong_argument_type() {
    check(
        "[numthreads(1,1,1)]\nvoid main() {\n    float x = WaveActiveBitAnd(1.5f);\n}\n",
        expect![[r#"
            test.hlsl:3:15: error: WaveActiveBitAnd requires an integer type, but argument has type 'float'
              |
            3 |     float x = WaveActiveBitAnd(1.5f);
              |               ^^^^^^^^^^^^^^^^^^^^^^

        "#]],
    );
}

#[test]
fn legacy_name_warns() {
    check(
        "RWStructuredBuffer<uint> O;\n[numthreads(1,1,1)]\nvoid main() {\n    O[0] = WaveAllSum(1u);\n}\n",
        expect![[r#"
            test.hlsl:4:12: warning: 'WaveAllSum' is deprecated: use 'WaveActiveSum' instead
              |
            4 |     O[0] = WaveAllSum(1u);
              |            ^^^^^^^^^^

        "#]],
    );
}

fn run_error(source: &str, buffers: &[crate::harness::Buf], opts: &RunOptions) -> String {
    let shader = compile(source, &CompileOptions::default());
    let p = pipeline([1, 1, 1], buffers);
    match lockstep::run(&shader, &p, opts) {
        Ok(_) => "ran".to_string(),
        Err(e) => {
            let span = e.span.map(|s| {
                lockstep::syntax::Span::new(lockstep::syntax::FileId(s.file), s.start, s.end)
            });
            match span {
                Some(span) => {
                    let mut d = lockstep::syntax::Diagnostic::error(span, e.message);
                    d.notes = e.notes;
                    lockstep::render_diagnostics(&shader.source_map, &[d], false)
                }
                None => e.message,
            }
        }
    }
}

const STORE: &str = "RWStructuredBuffer<uint4> Out : register(u0);\n[numthreads(4,1,1)]\nvoid main(uint gi : SV_GroupIndex) {\n    Out[gi] = gi;\n}\n";

#[test]
fn missing_binding() {
    let got = run_error(
        STORE,
        &[buf("Other", Kind::RwStructuredBuffer, 3, vec![0; 16])],
        &RunOptions::default(),
    );
    expect![[r#"
        test.hlsl:1:27: error: resource 'Out' (u0, space0) has no binding in the pipeline
          |
        1 | RWStructuredBuffer<uint4> Out : register(u0);
          |                           ^^^^^^^^^^^^^^^^^^
          |
          = the pipeline binds 'Other' at u3, space0

    "#]]
    .assert_eq(&got);
}

/// A resource the shader declares but never touches needs no binding, as
/// DXC drops it; one it reads still does.
#[test]
fn unused_resources_need_no_binding() {
    let source = format!(
        "StructuredBuffer<float4> Unused : register(t3);\nTexture2D<float> Tex : register(t4);\ncbuffer Params : register(b2) {{ float4 k; }};\n{STORE}"
    );
    let shader = compile(&source, &CompileOptions::default());
    let p = pipeline(
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 16])],
    );
    let out = lockstep::run(&shader, &p, &RunOptions::default()).expect("runs");
    let words: Vec<u32> = out.contents[0]
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(words, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
    let reads = source.replace("Out[gi] = gi;", "Out[gi] = gi + (uint)k.x;");
    let got = run_error(
        &reads,
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 16])],
        &RunOptions::default(),
    );
    assert!(
        got.contains("error: resource 'Params' (b2, space0) has no binding in the pipeline"),
        "{got}"
    );
}

/// Each register class numbers its registers apart: a sampler at `s0`
/// with none in the pipeline has no binding, whatever the pipeline has
/// at `u0`.
#[test]
fn registers_of_other_classes_do_not_clash() {
    let got = run_error(
        &format!(
            "SamplerState S : register(s0);\nTexture2D<float> T : register(t1);\n{}",
            STORE.replace(
                "Out[gi] = gi;",
                "Out[gi] = gi + (uint)T.SampleLevel(S, float2(0, 0), 0);"
            )
        ),
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 16])],
        &RunOptions::default(),
    );
    assert!(
        got.contains("error: resource 'S' (s0, space0) has no binding in the pipeline"),
        "{got}"
    );
}

#[test]
fn mistyped_binding() {
    let got = run_error(
        STORE,
        &[buf("Out", Kind::StructuredBuffer, 0, vec![0; 16])],
        &RunOptions::default(),
    );
    expect![[r#"
        test.hlsl:1:27: error: resource 'Out' is a RWStructuredBuffer at u0, space0 in the shader, but the pipeline binds buffer 'Out' at t0, space0 as a StructuredBuffer
          |
        1 | RWStructuredBuffer<uint4> Out : register(u0);
          |                           ^^^^^^^^^^^^^^^^^^

    "#]].assert_eq(&got);
}

#[test]
fn buffer_too_small_for_its_type() {
    let got = run_error(
        STORE,
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 6])],
        &RunOptions::default(),
    );
    expect![[r#"
        test.hlsl:1:27: error: buffer 'Out' is too small for resource 'Out': it holds 24 bytes, which is not a whole number of 'uint4' elements of 16 bytes
          |
        1 | RWStructuredBuffer<uint4> Out : register(u0);
          |                           ^^^^^^^^^^^^^^^^^^

    "#]].assert_eq(&got);
}

#[test]
fn endless_loop_stops_at_the_step_budget() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(4,1,1)]\nvoid main(uint gi : SV_GroupIndex) {\n    uint i = 0;\n    while (gi < 100) {\n        i++;\n    }\n    Out[gi] = i;\n}\n";
    let opts = RunOptions {
        step_budget: 1000,
        ..RunOptions::default()
    };
    let got = run_error(
        source,
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 4])],
        &opts,
    );
    expect![[r#"
        test.hlsl:5:5: error: loop exceeded the step budget of 1000 iterations in one wave
          |  
        5 | /     while (gi < 100) {
        6 | |         i++;
        7 | |     }
          | \-----^
          |  
          = the loop may never end; raise the budget with --max-steps if it is meant to run this long

    "#]].assert_eq(&got);
}

/// A loop that never ends in the groups from 3000 on, of 4096, on one
/// worker and on two sharing the batches: the error comes back either way.
#[test]
fn endless_loop_in_one_group_of_many_stops_the_dispatch() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex) {
    uint i = 0;
    while (gid.x >= 3000) {
        i++;
    }
    Out[gid.x * 4 + gi] = i + 1;
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let p = pipeline(
        [4096, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 4 * 4096])],
    );
    for threads in [1, 2] {
        let opts = RunOptions {
            step_budget: 100_000,
            threads,
            ..RunOptions::default()
        };
        let e = lockstep::run(&shader, &p, &opts).expect_err("the loop never ends");
        assert_eq!(
            e.message, "loop exceeded the step budget of 100000 iterations in one wave",
            "{threads} threads"
        );
    }
}

#[test]
fn bad_wave_sizes() {
    for w in [0, 3, 2, 256, 96] {
        let got = run_error(
            STORE,
            &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 16])],
            &RunOptions {
                wave_size: w,
                ..RunOptions::default()
            },
        );
        assert_eq!(
            got,
            format!("wave size {w} is not supported: it must be a power of two from 4 to 128")
        );
    }
}

/// More worker threads than [`lockstep::exec::MAX_THREADS`]: an error
/// before any thread starts, naming the count and the limit.
#[test]
fn too_many_worker_threads() {
    let got = run_error(
        STORE,
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 16])],
        &RunOptions {
            threads: lockstep::exec::MAX_THREADS + 1,
            ..RunOptions::default()
        },
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(
        got,
        format!(
            "cannot start 1025 worker threads: at most 1024 (this machine has {cores} cores; 0 means one per core)"
        )
    );
}

#[test]
fn huge_local_arrays_are_an_error() {
    let source = "RWStructuredBuffer<float> Out : register(u0);\n[numthreads(1,1,1)]\nvoid main() {\n    float big[100000];\n    big[3] = 1;\n    Out[0] = big[3];\n}\n";
    expect![[r#"
        test.hlsl:2:1: error: the shader needs 100000 scalar registers per lane; the limit is 65536 (large local arrays are the usual cause)
          |  
        2 | / [numthreads(1,1,1)]
        3 | | void main() {
        4 | |     float big[100000];
        5 | |     big[3] = 1;
        6 | |     Out[0] = big[3];
        7 | | }
          | \-^

    "#]].assert_eq(&diagnostics(source, &CompileOptions::default()));
}

#[test]
fn element_sizes_must_match_the_data() {
    let shader = compile(
        "StructuredBuffer<half> In : register(t0);\nRWStructuredBuffer<float> Out : register(u0);\n\
         [numthreads(2, 1, 1)]\nvoid main(uint gi : SV_GroupIndex) { Out[gi] = In[gi]; }\n",
        &CompileOptions::default(),
    );
    let mut p = pipeline(
        [1, 1, 1],
        &[
            buf("In", Kind::StructuredBuffer, 0, vec![0x4000_3C00, 0]),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 2]),
        ],
    );
    p.buffers[0].format = lockstep::pipeline::Format::Float16;
    let e = lockstep::run(&shader, &p, &RunOptions::default()).unwrap_err();
    assert_eq!(
        e.message,
        "buffer 'In' holds Float16 elements of 2 bytes, but resource 'In' reads 'float' components of 4 bytes"
    );
    assert_eq!(
        e.notes,
        [
            "without -enable-16bit-types, half is a 32-bit float: compile with -enable-16bit-types, or give the buffer Float32 data"
        ]
    );
    // With 16-bit types the same data are two halves: 1.0 and 2.0.
    let shader = compile(
        "StructuredBuffer<half> In : register(t0);\nRWStructuredBuffer<float> Out : register(u0);\n\
         [numthreads(2, 1, 1)]\nvoid main(uint gi : SV_GroupIndex) { Out[gi] = In[gi]; }\n",
        &CompileOptions {
            enable_16bit_types: true,
            shader_model: (6, 2),
            ..CompileOptions::default()
        },
    );
    let out = lockstep::run(&shader, &p, &RunOptions::default()).unwrap();
    let floats: Vec<f32> = out.contents[1]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(floats, [1.0, 2.0]);
}

/// A graphics pipeline takes a draw: a dispatch of a compute shader over
/// it is refused, and so is a pixel shader run as a dispatch.
#[test]
fn graphics_pipelines_are_drawn_not_dispatched() {
    let yaml = "Shaders:\n  - { Stage: Vertex, Entry: main }\n  - { Stage: Pixel, Entry: main }\n\
        Buffers:\n  - { Name: V, Format: Float32, Data: [0, 0, 0, 1, 0, 0, 0, 1, 0] }\n\
        \x20 - { Name: T, Format: Float32, Channels: 4, FillSize: 64, OutputProps: { Width: 2, Height: 2, Depth: 1 } }\n\
        Bindings:\n  VertexBuffer: V\n  VertexAttributes:\n    - { Format: Float32, Channels: 3, Offset: 0, Name: POSITION }\n  RenderTarget: T\n";
    let pipeline = lockstep::pipeline::parse(yaml).unwrap_or_else(|e| panic!("{e}"));
    let shader = lockstep::compile(
        "s.hlsl",
        "RWStructuredBuffer<uint> U;\n[numthreads(1, 1, 1)] void main() { U[0] = 1; }\n",
        &lockstep::CompileOptions::default(),
        &lockstep::MemoryLoader::default(),
    )
    .unwrap();
    let e = lockstep::run(&shader, &pipeline, &lockstep::RunOptions::default()).unwrap_err();
    assert_eq!(
        e.message,
        "this pipeline draws 3 vertices from 'V' into 'T': give it a vertex and a pixel shader (lockstep run PIPELINE VS.hlsl PS.hlsl)"
    );
    let compute = lockstep::pipeline::parse(
        "Buffers:\n  - { Name: U, Format: UInt32, FillSize: 4 }\n\
         DescriptorSets:\n  - Resources:\n    - { Name: U, Kind: RWStructuredBuffer, DirectXBinding: { Register: 0 } }\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let pixel = lockstep::compile(
        "p.hlsl",
        "float4 main() : SV_Target { return 1; }\n",
        &lockstep::CompileOptions {
            stage: lockstep::ir::Stage::Pixel,
            ..lockstep::CompileOptions::default()
        },
        &lockstep::MemoryLoader::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let e = lockstep::run(&pixel, &compute, &lockstep::RunOptions::default()).unwrap_err();
    assert_eq!(
        e.message,
        "'main' is a pixel shader: a dispatch runs a compute shader (-T cs_6_x); a draw needs a graphics pipeline and both shaders"
    );
    let e =
        lockstep::draw(&shader, &pixel, &pipeline, &lockstep::RunOptions::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the first shader of a draw is its vertex shader, but 'main' is a compute shader (compile it with -T vs_6_x)"
    );
}

/// Intrinsics newer than the target shader model are errors that name the
/// model, as DXC's are, and `info` reports the model they need.
#[test]
fn newer_intrinsics_name_their_shader_model() {
    let source = "RWStructuredBuffer<uint64_t> W : register(u0);\n\
        RWStructuredBuffer<uint> Out : register(u1);\n\
        [numthreads(4, 1, 1)]\n\
        void main(uint3 tid : SV_DispatchThreadID) {\n\
            InterlockedMax(W[0], (uint64_t)tid.x);\n\
            Out[0] = pack_u8(uint4(1, 2, 3, 4));\n\
            Out[1] = dot4add_u8packed(1u, 2u, 3u);\n\
        }\n";
    let at = |minor| CompileOptions {
        shader_model: (6, minor),
        ..CompileOptions::default()
    };
    let text = diagnostics(source, &at(3));
    for wanted in [
        "5:1: error: 'an atomic on a 64-bit value' requires shader model 6.6 or later",
        "6:10: error: 'pack_u8' requires shader model 6.6 or later",
        "7:10: error: 'dot4add_u8packed' requires shader model 6.4 or later",
    ] {
        assert!(text.contains(wanted), "missing {wanted:?} in:\n{text}");
    }
    let text = diagnostics(source, &at(4));
    assert!(!text.contains("dot4add_u8packed"), "{text}");
    let shader = compile(source, &at(6));
    assert_eq!(shader.module.required_shader_model, (6, 6));
}

/// Texture and wave-size features of SM 6.6 to 6.8: `SampleCmpLevel` is
/// 6.7's; derivatives in a compute shader make the model 6.6 in `info`; a
/// `[WaveSize]` range must have its minimum below its maximum.
#[test]
fn texture_and_wave_size_features_name_their_shader_model() {
    let at = |minor| CompileOptions {
        shader_model: (6, minor),
        ..CompileOptions::default()
    };
    let source = "Texture2D<float> T : register(t0);\n\
        SamplerComparisonState S : register(s0);\n\
        RWStructuredBuffer<float> Out : register(u0);\n\
        [numthreads(4, 1, 1)]\n\
        void main(uint gi : SV_GroupIndex) {\n\
            Out[gi] = T.SampleCmpLevel(S, float2(0.5, 0.5), 0.25, 0.0);\n\
        }\n";
    let text = diagnostics(source, &at(6));
    assert!(
        text.contains("6:11: error: 'SampleCmpLevel' requires shader model 6.7 or later"),
        "{text}"
    );
    assert_eq!(compile(source, &at(7)).module.required_shader_model, (6, 7));
    let derivatives = "RWStructuredBuffer<float> Out : register(u0);\n\
        [numthreads(4, 4, 1)]\n\
        void main(uint gi : SV_GroupIndex) { Out[gi] = ddx((float)gi); }\n";
    assert_eq!(
        compile(derivatives, &at(8)).module.required_shader_model,
        (6, 6)
    );
    let range = "RWStructuredBuffer<uint> Out : register(u0);\n\
        [WaveSize(16, 16)]\n\
        [numthreads(16, 1, 1)]\n\
        void main(uint gi : SV_GroupIndex) { Out[gi] = gi; }\n";
    let text = diagnostics(range, &at(8));
    assert!(
        text.contains(
            "error: minimum WaveSize value 16 must be less than maximum WaveSize value 16"
        ),
        "{text}"
    );
}

/// A pixel shader compiled as the default compute shader: the notes name
/// the file's own functions (not the library's `ddx`) and the profile to
/// give.
#[test]
fn a_pixel_shader_without_its_profile_is_told_so() {
    let source = "float4 PSMain(float4 pos : SV_Position) : SV_Target { return ddx(pos.x); }\n";
    let text = diagnostics(source, &CompileOptions::default());
    assert!(
        text.contains("no function has [numthreads]; the file defines PSMain (a vertex or pixel shader needs its profile, -T vs_6_0 or -T ps_6_0)"),
        "{text}"
    );
    let opts = CompileOptions {
        entry: "PSMain".into(),
        ..CompileOptions::default()
    };
    let text = diagnostics(source, &opts);
    assert!(
        text.contains("= for a vertex or pixel shader, give its profile: -T vs_6_0 or -T ps_6_0"),
        "{text}"
    );
}

/// A `[WaveSize]` the device cannot give is an error at the attribute.
#[test]
fn unsupported_wave_size_points_at_the_attribute() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n[WaveSize(32)]\n[numthreads(32, 1, 1)]\nvoid main(uint gi : SV_GroupIndex) {\n    Out[gi] = gi;\n}\n";
    let opts = RunOptions {
        wave_size: 8,
        wave_sizes: (4, 16),
        ..RunOptions::default()
    };
    let got = run_error(
        source,
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 32])],
        &opts,
    );
    expect![[r#"
        test.hlsl:2:1: error: the shader requires [WaveSize(32)], but the device supports wave sizes 4..16 only
          |
        2 | [WaveSize(32)]
          | ^^^^^^^^^^^^^^
          |
          = choose the device's wave sizes with --wave-size and --wave-sizes MIN..MAX

    "#]].assert_eq(&got);
}

/// A declaration rejected as unsupported reports once: its uses add no
/// "undeclared identifier".
#[test]
fn rejected_declarations_report_once() {
    for (source, message) in [
        (
            "Texture2DMS<float4> T : register(t0);\nRWStructuredBuffer<float4> Out : register(u0);\n[numthreads(1, 1, 1)] void main() { Out[0] = T.Load(int2(0, 0), 0); }\n",
            "type 'Texture2DMS' is not supported",
        ),
        (
            "Texture2D<float> T[] : register(t0);\nRWStructuredBuffer<float> Out : register(u0);\n[numthreads(1, 1, 1)] void main() { Out[0] = T[0].Load(int3(0, 0, 0)); }\n",
            "not supported: a resource array without a size",
        ),
    ] {
        let text = diagnostics(source, &CompileOptions::default());
        assert!(text.contains(message), "{text}");
        assert!(!text.contains("undeclared identifier"), "{text}");
    }
}

/// A function with a result whose end may be reached gets a warning at its
/// closing brace, once per definition; ends no path reaches (a loop
/// without a break, a switch whose cases all return, a `do` whose body
/// returns) get none.
#[test]
fn missing_returns_warn() {
    let warned = "uint f(uint x) { if (x > 0) return 1; }\n\
        template <typename T> T g(T x) { while (x > 0) { return x; } }\n\
        RWStructuredBuffer<uint> Out : register(u0);\n\
        [numthreads(1, 1, 1)] void main() { Out[0] = f(0) + g(1u) + g(2); }\n";
    let text = diagnostics(warned, &CompileOptions::default());
    assert!(
        text.contains("1:39: warning: control may reach the end of non-void function 'f'"),
        "{text}"
    );
    assert_eq!(text.matches("non-void function 'g'").count(), 1, "{text}");
    let fine = "uint a(uint x) { for (;;) { if (x > 3) return x; x++; } }\n\
        uint b(uint x) { switch (x) { case 0: return 1; default: return 2; } }\n\
        uint c(uint x) { do { return x; } while (x > 0); }\n\
        uint d(uint x) { if (x > 0) return 1; else return 2; }\n\
        uint e(uint x) { while (true) { if (x == 0) continue; return x; } }\n\
        RWStructuredBuffer<uint> Out : register(u0);\n\
        [numthreads(1, 1, 1)] void main() { Out[0] = a(0) + b(0) + c(0) + d(0) + e(1); }\n";
    let text = diagnostics(fine, &CompileOptions::default());
    assert!(!text.contains("control may reach"), "{text}");
}
