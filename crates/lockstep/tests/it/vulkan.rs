//! The same shaders on a Vulkan driver (Mesa's lavapipe, a CPU device
//! with 8-lane subgroups): the SPIR-V back end's modules give the engine's
//! results, prefix operations are exclusive on the device too, and the
//! corpus runs through `--device vulkan`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use lockstep::vulkan_device::Device;
use lockstep::{CompileOptions, DiffOptions, FsLoader, MemoryLoader, TestOptions, TestOutcome};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Lavapipe, or `None` (outside CI) to skip.
fn lavapipe() -> Option<Device> {
    match Device::open("llvmpipe") {
        Ok(d) => Some(d),
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("no lavapipe ({e}): skipping");
            None
        }
        Err(e) => panic!("CI needs lavapipe (mesa-vulkan-drivers): {e}"),
    }
}

/// A dispatch of `groups` groups over `buffers`: each `(name, kind,
/// register, fields)` with its YAML fields (`Format: UInt32, FillSize: 64`).
fn dispatch(groups: u32, buffers: &[(&str, &str, u32, &str)]) -> lockstep::pipeline::Pipeline {
    let mut text =
        format!("DispatchParameters:\n  DispatchGroupCount: [{groups}, 1, 1]\nBuffers:\n");
    for (name, _, _, fields) in buffers {
        text += &format!("  - {{ Name: {name}, {fields} }}\n");
    }
    text += "DescriptorSets:\n  - Resources:\n";
    for (name, kind, register, _) in buffers {
        text += &format!(
            "    - {{ Name: {name}, Kind: {kind}, DirectXBinding: {{ Register: {register} }} }}\n"
        );
    }
    lockstep::pipeline::parse(&text).unwrap()
}

/// `source` compiled with `opts`, named `name`.
fn shader(name: &str, source: &str, opts: &CompileOptions) -> lockstep::Shader {
    lockstep::compile(name, source, opts, &MemoryLoader::default()).unwrap()
}

const PREFIXES: &str = "
RWStructuredBuffer<uint> Sums : register(u0);
RWStructuredBuffer<uint> Counts : register(u1);
RWStructuredBuffer<float> Products : register(u2);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint lane = WaveGetLaneIndex();
    Sums[id.x] = WavePrefixSum(lane);
    Counts[id.x] = 0;
    if (lane % 3 != 1) {
        Counts[id.x] = WavePrefixCountBits(true) * 1000 + WavePrefixSum(lane);
    }
    Products[id.x] = WavePrefixProduct(lane % 4 == 0 ? 1.0 : 2.0);
}";

fn pipeline(names: &[&str], bytes: usize) -> lockstep::pipeline::Pipeline {
    let mut text = String::from("DispatchParameters:\n  DispatchGroupCount: [2, 1, 1]\nBuffers:\n");
    for n in names {
        let format = if *n == "Products" {
            "Float32"
        } else {
            "UInt32"
        };
        text += &format!("  - {{ Name: {n}, Format: {format}, FillSize: {bytes} }}\n");
    }
    text += "DescriptorSets:\n  - Resources:\n";
    for (i, n) in names.iter().enumerate() {
        text += &format!(
            "    - {{ Name: {n}, Kind: RWStructuredBuffer, DirectXBinding: {{ Register: {i} }} }}\n"
        );
    }
    lockstep::pipeline::parse(&text).unwrap()
}

#[test]
fn prefix_operations_are_exclusive_on_the_device() {
    let Some(device) = lavapipe() else { return };
    let shader = lockstep::compile(
        "prefix.hlsl",
        PREFIXES,
        &CompileOptions::default(),
        &MemoryLoader::default(),
    )
    .unwrap();
    let pipeline = pipeline(&["Sums", "Counts", "Products"], 128 * 4);
    let run = lockstep::run_vulkan(&shader, &pipeline, &device, &Default::default()).unwrap();
    let w = run.output.wave_size.size;
    assert_eq!(w, device.info.subgroup_size);
    let words = |b: usize| -> Vec<u32> {
        run.output.contents[b]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    // Hand-derived: lane l of a full wave sums 0..l, excluding itself.
    let sums = words(0);
    for (i, &s) in sums.iter().enumerate() {
        let lane = i as u32 % w;
        assert_eq!(s, lane * lane.saturating_sub(1) / 2, "Sums[{i}]");
    }
    // Lanes with l % 3 != 1 are active: count and sum those below.
    let counts = words(1);
    for (i, &c) in counts.iter().enumerate() {
        let lane = i as u32 % w;
        let want = if lane % 3 == 1 {
            0
        } else {
            let below: Vec<u32> = (0..lane).filter(|l| l % 3 != 1).collect();
            below.len() as u32 * 1000 + below.iter().sum::<u32>()
        };
        assert_eq!(c, want, "Counts[{i}]");
    }
    // And the engine agrees bit for bit, at the device's wave size.
    let report = lockstep::diff(&shader, &pipeline, &device, &DiffOptions::default()).unwrap();
    assert!(!report.differs(), "{}", report.render(&shader, false));
    assert_eq!(report.compared, 3);
}

/// Float `%` is C's `fmod`, exact, in `half`, `float` and `double` on the
/// device too (`OpFRem` may be off by a whole divisor there: `1 % 0.1`),
/// and float arithmetic is not rewritten (`inf - inf` is NaN, not 0).
#[test]
fn float_remainders_and_exact_arithmetic_match_on_the_device() {
    let Some(device) = lavapipe() else { return };
    let source = "StructuredBuffer<float> A : register(t0);
        StructuredBuffer<float> B : register(t1);
        RWStructuredBuffer<float4> Out : register(u0);
        [numthreads(16, 1, 1)]
        void main(uint3 id : SV_DispatchThreadID) {
            float a = A[id.x], b = B[id.x];
            half r16 = (half)a % (half)b;
            double r64 = (double)a % (double)b;
            Out[id.x] = float4(a % b, (float)r16, (float)r64, a - a);
        }";
    let opts = CompileOptions {
        enable_16bit_types: true,
        ..CompileOptions::default()
    };
    let shader = shader("rem.hlsl", source, &opts);
    let a = [
        1.0f32,
        -1.0,
        5.5,
        -7.25,
        1e30,
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NAN,
        1e10,
        100.0,
        0.3,
        65504.0,
        -3.0,
        2.5,
        7.0,
    ];
    let b = [
        0.1f32,
        0.1,
        2.0,
        3.0,
        7e-3,
        1.0,
        1.0,
        2.0,
        3.0,
        3e-5,
        -7.0,
        f32::INFINITY,
        0.375,
        0.0,
        f32::NAN,
        7.0,
    ];
    let data = |v: &[f32]| {
        let words: Vec<String> = v.iter().map(|x| x.to_bits().to_string()).collect();
        format!("Format: UInt32, Data: [{}]", words.join(", "))
    };
    let (a, b) = (data(&a), data(&b));
    let pipeline = dispatch(
        1,
        &[
            ("A", "StructuredBuffer", 0, &a),
            ("B", "StructuredBuffer", 1, &b),
            (
                "Out",
                "RWStructuredBuffer",
                0,
                "Format: Float32, FillSize: 256",
            ),
        ],
    );
    let report = lockstep::diff(&shader, &pipeline, &device, &DiffOptions::default()).unwrap();
    assert!(
        report.buffers.iter().all(|b| b.differing == 0),
        "{}",
        report.render(&shader, false)
    );
}

/// SM 6.6's 2×2 quads of a 2D compute group need quad derivative groups;
/// on a device without them (lavapipe) the run is refused with why, not
/// run on quads of four consecutive invocations.
#[test]
fn block_quads_need_compute_derivatives_on_the_device() {
    let Some(device) = lavapipe() else { return };
    if device.info.derivative_quads {
        return;
    }
    let source = "RWStructuredBuffer<uint> Out : register(u0);
        [numthreads(8, 2, 1)]
        void main(uint3 t : SV_GroupThreadID, uint gi : SV_GroupIndex) {
            Out[gi] = QuadReadAcrossY(t.y);
        }";
    let opts = CompileOptions {
        shader_model: (6, 6),
        ..CompileOptions::default()
    };
    let shader = shader("quads.hlsl", source, &opts);
    let pipeline = dispatch(
        1,
        &[(
            "Out",
            "RWStructuredBuffer",
            0,
            "Format: UInt32, FillSize: 64",
        )],
    );
    let err =
        lockstep::diff(&shader, &pipeline, &device, &DiffOptions::default()).expect_err("refused");
    assert!(
        err.to_string().contains("VK_NV_compute_shader_derivatives"),
        "{err}"
    );
}

/// Slots an atomic hands out across groups follow the order groups run
/// in: where the device's order puts elements elsewhere, those elements
/// change in the engine's own shuffled orders too, and the report counts
/// them as the device's order, not as unexplained differences.
#[test]
fn an_append_order_is_the_device_s_own() {
    let Some(device) = lavapipe() else { return };
    let source = "RWStructuredBuffer<uint> Out : register(u0);
        RWStructuredBuffer<uint> Counter : register(u1);
        [numthreads(64, 1, 1)]
        void main(uint3 id : SV_DispatchThreadID) {
            uint slot;
            InterlockedAdd(Counter[0], 1, slot);
            Out[slot] = id.x;
        }";
    let shader = shader("append.hlsl", source, &CompileOptions::default());
    let pipeline = dispatch(
        64,
        &[
            (
                "Out",
                "RWStructuredBuffer",
                0,
                "Format: UInt32, FillSize: 16384",
            ),
            (
                "Counter",
                "RWStructuredBuffer",
                1,
                "Format: UInt32, FillSize: 4",
            ),
        ],
    );
    let report = lockstep::diff(&shader, &pipeline, &device, &DiffOptions::default()).unwrap();
    assert_eq!(report.unexplained(), 0, "{}", report.render(&shader, false));
}

/// A device may form subgroups from other invocations than Lockstep's
/// waves (lavapipe: a row of a 2D group): where wave operations then
/// differ, the report says how the device placed the first invocation
/// that moved.
#[test]
fn a_device_s_own_subgroup_layout_is_named() {
    let Some(device) = lavapipe() else { return };
    let source = "RWStructuredBuffer<uint> Out : register(u0);
        [numthreads(4, 2, 1)]
        void main(uint gi : SV_GroupIndex) {
            Out[gi] = WaveActiveCountBits(true);
        }";
    let shader = shader("rows.hlsl", source, &CompileOptions::default());
    let pipeline = dispatch(
        1,
        &[(
            "Out",
            "RWStructuredBuffer",
            0,
            "Format: UInt32, FillSize: 32",
        )],
    );
    let opts = DiffOptions {
        wave_size: Some(8),
        ..DiffOptions::default()
    };
    let Ok(report) = lockstep::diff(&shader, &pipeline, &device, &opts) else {
        return;
    };
    let text = report.render(&shader, false);
    if report.differs() {
        let layout = report.layout.as_deref().unwrap_or_else(|| panic!("{text}"));
        assert!(layout.contains("group index 4 is lane 0"), "{text}");
        assert!(text.contains("note: "), "{text}");
    } else {
        assert!(report.layout.is_none(), "{text}");
    }
}

/// A struct of methods only runs on the device (lavapipe refuses an
/// empty struct type, so it holds one unused word).
#[test]
fn a_struct_of_methods_only_runs_on_the_device() {
    let Some(device) = lavapipe() else { return };
    let source = "RWStructuredBuffer<uint> Out : register(u0);
        struct Triple { uint f(uint x) { return x * 3; } };
        [numthreads(4, 1, 1)]
        void main(uint3 id : SV_DispatchThreadID) { Triple t; Out[id.x] = t.f(id.x); }";
    let shader = shader("methods.hlsl", source, &CompileOptions::default());
    let pipeline = dispatch(
        1,
        &[(
            "Out",
            "RWStructuredBuffer",
            0,
            "Format: UInt32, FillSize: 16",
        )],
    );
    let report = lockstep::diff(&shader, &pipeline, &device, &DiffOptions::default()).unwrap();
    assert!(!report.differs(), "{}", report.render(&shader, false));
}

/// `min` and `max` of zeros of opposite signs may return either: where
/// the device's sign differs, the report says it is the device's choice.
#[test]
fn signs_of_zero_are_the_device_s_choice() {
    let Some(device) = lavapipe() else { return };
    let source = "StructuredBuffer<float> In : register(t0);
        RWStructuredBuffer<float2> Out : register(u0);
        [numthreads(4, 1, 1)]
        void main(uint3 id : SV_DispatchThreadID) {
            float a = In[id.x];
            Out[id.x] = float2(min(a, 0.0), max(-0.0, a));
        }";
    let shader = shader("zeros.hlsl", source, &CompileOptions::default());
    let pipeline = dispatch(
        1,
        &[
            (
                "In",
                "StructuredBuffer",
                0,
                "Format: Float32, Data: [ -0.0, 0.0, -0.0, 0.0 ]",
            ),
            (
                "Out",
                "RWStructuredBuffer",
                0,
                "Format: Float32, FillSize: 32",
            ),
        ],
    );
    let report = lockstep::diff(&shader, &pipeline, &device, &DiffOptions::default()).unwrap();
    assert_eq!(report.unexplained(), 0, "{}", report.render(&shader, false));
}

#[test]
fn a_difference_is_reported_with_the_statement_that_wrote_it() {
    let Some(device) = lavapipe() else { return };
    // WaveReadLaneAt of an inactive lane: the engine reads the lane's
    // register, a device whatever it has. The checked run says so; the
    // element may or may not differ, but the report names the read.
    let source = "RWStructuredBuffer<uint> Out : register(u0);
        [numthreads(8, 1, 1)]
        void main(uint3 id : SV_DispatchThreadID) {
            uint v = id.x * 7 + 1;
            if (id.x < 4) {
                Out[id.x] = WaveReadLaneAt(v, 6);
            }
        }";
    let shader = lockstep::compile(
        "inactive.hlsl",
        source,
        &CompileOptions::default(),
        &MemoryLoader::default(),
    )
    .unwrap();
    let pipeline = lockstep::pipeline::parse(
        "DispatchParameters:\n  DispatchGroupCount: [1, 1, 1]\nBuffers:\n  - { Name: Out, Format: UInt32, FillSize: 32 }\nDescriptorSets:\n  - Resources:\n    - { Name: Out, Kind: RWStructuredBuffer, DirectXBinding: { Register: 0 } }\n",
    )
    .unwrap();
    let report = lockstep::diff(&shader, &pipeline, &device, &DiffOptions::default()).unwrap();
    assert!(
        report.findings.iter().any(|f| f
            .location
            .as_deref()
            .is_some_and(|l| l.starts_with("inactive.hlsl:6:"))),
        "{}",
        report.render(&shader, false)
    );
    for b in &report.buffers {
        assert!(
            b.written_at
                .iter()
                .all(|at| at.starts_with("inactive.hlsl:6:")),
            "{:?}",
            b.written_at
        );
        // Written by the read of an inactive lane: explained.
        assert_eq!(b.undefined, b.differing);
        // Element i is lane i's store, in group 0's only wave.
        for e in &b.first {
            assert_eq!(
                e.lane.as_deref(),
                Some(format!("group (0, 0, 0), wave 0, lane {}", e.index).as_str())
            );
        }
    }
    assert_eq!(report.unexplained(), 0);
}

#[test]
fn the_offload_corpus_runs_on_the_device() {
    let Some(device) = lavapipe() else { return };
    let opts = TestOptions {
        vulkan: Some(Arc::new(device)),
        ..TestOptions::default()
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("tests/offload"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "test"))
        .collect();
    files.sort();
    let mut failed = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let name = f.display().to_string();
        let outcome = lockstep::run_test_file(&name, &text, &FsLoader, &opts);
        match outcome {
            TestOutcome::Fail(reason) => failed.push((name, reason)),
            // Without FileCheck, tests that pipe into it are skipped, and
            // so are those marked unsupported on Vulkan.
            TestOutcome::Skip(reason) => assert!(
                reason.contains("FileCheck") || reason == "unsupported: Vulkan",
                "{name}: {reason}"
            ),
            _ => {}
        }
    }
    // Lavapipe has no VK_NV_shader_subgroup_partitioned: WaveMatch cannot
    // run there, and the error says why.
    for (name, reason) in &failed {
        assert!(
            name.ends_with("wave_match.test")
                && reason.contains("VK_NV_shader_subgroup_partitioned"),
            "{name}: {reason}"
        );
    }
    assert!(failed.len() <= 1 && files.len() >= 17, "{failed:?}");
}

#[test]
fn examples_give_the_engine_s_buffers_on_the_device() {
    let Some(device) = lavapipe() else { return };
    let mut same = 0;
    let mut differ = Vec::new();
    for name in [
        "compact_write",
        "ordered_append",
        "reserve_last_lane",
        "atomic_per_wave",
        "uniform_fast_path",
        "tile_minmax_one_wave",
        "tile_minmax_two_waves",
    ] {
        let yaml = root().join(format!("examples/{name}.yaml"));
        let hlsl = root().join(format!("examples/{name}.hlsl"));
        let pipeline = lockstep::pipeline::parse(&std::fs::read_to_string(yaml).unwrap()).unwrap();
        let source = std::fs::read_to_string(&hlsl).unwrap();
        let opts = CompileOptions {
            entry: pipeline.entry.clone().unwrap_or_else(|| "main".into()),
            ..CompileOptions::default()
        };
        let shader = lockstep::compile(name, &source, &opts, &FsLoader).unwrap();
        let report = lockstep::diff(&shader, &pipeline, &device, &DiffOptions::default()).unwrap();
        if report.differs() {
            // Each differing element names the lane that stored it:
            // uniform_fast_path's thread i writes element i, 32 threads a
            // group.
            if name == "uniform_fast_path" {
                let w = report.wave_size as usize;
                for e in &report.buffers[0].first {
                    let i = e.index;
                    let want = format!(
                        "group ({}, 0, 0), wave {}, lane {}",
                        i / 32,
                        i % 32 / w,
                        i % w
                    );
                    assert_eq!(e.lane.as_deref(), Some(want.as_str()));
                }
            }
            differ.push(name);
        } else {
            same += 1;
        }
    }
    // Lavapipe stops a loop after 65535 iterations: uniform_fast_path's
    // general path sums up to 100000 terms, so a newer Mesa may agree.
    assert!(
        differ.iter().all(|&n| n == "uniform_fast_path"),
        "{differ:?}"
    );
    assert!(same >= 6);
}

#[test]
fn a_loop_past_the_step_budget_is_an_error_at_the_loop() {
    let Some(device) = lavapipe() else { return };
    let source = "RWStructuredBuffer<uint> Out : register(u0);
        [numthreads(8, 1, 1)]
        void main(uint3 id : SV_DispatchThreadID) {
            uint n = 0;
            for (uint i = 0; i < 100; i++) {
                while (Out[0] == 0) {
                    n++;
                }
            }
            Out[id.x] = n;
        }";
    let shader = lockstep::compile(
        "spin.hlsl",
        source,
        &CompileOptions::default(),
        &MemoryLoader::default(),
    )
    .unwrap();
    let pipeline = lockstep::pipeline::parse(
        "DispatchParameters:\n  DispatchGroupCount: [1, 1, 1]\nBuffers:\n  - { Name: Out, Format: UInt32, FillSize: 32 }\nDescriptorSets:\n  - Resources:\n    - { Name: Out, Kind: RWStructuredBuffer, DirectXBinding: { Register: 0 } }\n",
    )
    .unwrap();
    let opts = lockstep::VulkanOptions {
        step_budget: 1000,
        ..Default::default()
    };
    let e = lockstep::run_vulkan(&shader, &pipeline, &device, &opts).unwrap_err();
    assert!(e.message.contains("step budget of 1000"), "{}", e.message);
    let span = e.span.expect("the loop's span");
    let line = source[..span.start as usize].lines().count();
    assert_eq!(line, 6, "{}", e.message);
    // Within the budget, the same loops run to their end.
    let fine = "RWStructuredBuffer<uint> Out : register(u0);
        [numthreads(8, 1, 1)]
        void main(uint3 id : SV_DispatchThreadID) {
            uint n = 0;
            for (uint i = 0; i < 30; i++) { n += i; }
            Out[id.x] = n;
        }";
    let shader = lockstep::compile(
        "fine.hlsl",
        fine,
        &CompileOptions::default(),
        &MemoryLoader::default(),
    )
    .unwrap();
    let run = lockstep::run_vulkan(&shader, &pipeline, &device, &opts).unwrap();
    assert_eq!(&run.output.contents[0][..4], &435u32.to_le_bytes());
}

#[test]
fn draws_cover_the_engine_s_pixels_on_the_device() {
    let Some(device) = lavapipe() else { return };
    for name in ["triangle", "rings"] {
        let yaml = root().join(format!("examples/draw/{name}.yaml"));
        let hlsl = root().join(format!("examples/draw/{name}.hlsl"));
        let pipeline = lockstep::pipeline::parse(&std::fs::read_to_string(yaml).unwrap()).unwrap();
        let source = std::fs::read_to_string(&hlsl).unwrap();
        let stage = |stage, entry: &str| {
            let opts = CompileOptions {
                entry: entry.into(),
                stage,
                ..CompileOptions::default()
            };
            lockstep::compile(name, &source, &opts, &FsLoader).unwrap()
        };
        let vs = stage(lockstep::ir::Stage::Vertex, "VSMain");
        let ps = stage(lockstep::ir::Stage::Pixel, "PSMain");
        let gpu = lockstep::draw_vulkan(&vs, &ps, &pipeline, &device, &Default::default()).unwrap();
        let cpu = lockstep::draw(&vs, &ps, &pipeline, &lockstep::RunOptions::default()).unwrap();
        let rt = pipeline
            .buffer_index(&pipeline.graphics.as_ref().unwrap().render_target)
            .unwrap();
        // The same pixels drawn: alpha is exactly 1 where a triangle
        // covers the pixel and 0 elsewhere, on both.
        let alpha = |bytes: &[u8]| -> Vec<u32> {
            bytes
                .chunks_exact(16)
                .map(|px| u32::from_le_bytes(px[12..16].try_into().unwrap()))
                .collect()
        };
        let (a, b) = (alpha(&cpu.contents[rt]), alpha(&gpu.output.contents[rt]));
        let covered = a.iter().filter(|&&x| x != 0).count();
        assert!(covered > 1000, "{name}: {covered} pixels");
        let differ = a.iter().zip(&b).filter(|(x, y)| x != y).count();
        assert_eq!(
            differ, 0,
            "{name}: {differ} pixels covered on one side only"
        );
        // The colours within the interpolation's rounding.
        let opts = DiffOptions {
            ulps: 4096,
            ..DiffOptions::default()
        };
        let report = lockstep::diff_draw(&vs, &ps, &pipeline, &device, &opts).unwrap();
        assert!(!report.differs(), "{}", report.render(&ps, false));
    }
}

#[test]
fn a_pixel_shader_loop_past_the_step_budget_is_an_error_at_the_loop() {
    let Some(device) = lavapipe() else { return };
    let source = "struct V { float4 p : SV_Position; float3 c : COLOR; };
V VSMain(float3 p : POSITION, float3 c : COLOR) { V v; v.p = float4(p, 1); v.c = c; return v; }
float4 PSMain(V v) : SV_Target {
    float x = v.c.x;
    while (x >= 0) { x += 1; }
    return float4(x, 0, 0, 1);
}";
    let yaml = root().join("examples/draw/triangle.yaml");
    let pipeline = lockstep::pipeline::parse(&std::fs::read_to_string(yaml).unwrap()).unwrap();
    let stage = |stage, entry: &str| {
        let opts = CompileOptions {
            entry: entry.into(),
            stage,
            ..CompileOptions::default()
        };
        lockstep::compile("spin.hlsl", source, &opts, &MemoryLoader::default()).unwrap()
    };
    let vs = stage(lockstep::ir::Stage::Vertex, "VSMain");
    let ps = stage(lockstep::ir::Stage::Pixel, "PSMain");
    let opts = lockstep::VulkanOptions {
        step_budget: 1000,
        ..Default::default()
    };
    let e = lockstep::draw_vulkan(&vs, &ps, &pipeline, &device, &opts).unwrap_err();
    assert!(
        e.message
            .starts_with("a pixel-shader thread ran past the step budget of 1000"),
        "{}",
        e.message
    );
    let span = e.span.expect("the loop's span");
    assert_eq!(source[..span.start as usize].lines().count(), 5);
}

#[test]
fn a_textured_draw_matches_the_engine_on_the_device() {
    let Some(device) = lavapipe() else { return };
    let triangle = std::fs::read_to_string(root().join("examples/draw/triangle.yaml")).unwrap();
    let yaml = triangle
        .replace(
            "Bindings:",
            "  - Name: Checker\n    Format: Float32\n    Data: [ 0.25, 1.0, 1.0, 0.25 ]\n    OutputProps: { Width: 2, Height: 2, Depth: 1 }\nBindings:",
        )
        .replace(
            "  RenderTarget: Target",
            "  RenderTarget: Target\nDescriptorSets:\n  - Resources:\n    - { Name: Checker, Kind: Texture2D, DirectXBinding: { Register: 0 } }",
        );
    let pipeline = lockstep::pipeline::parse(&yaml).unwrap();
    let source = "Texture2D<float> Checker : register(t0);
struct V { float4 p : SV_Position; float3 c : COLOR; };
V VSMain(float3 p : POSITION, float3 c : COLOR) { V v; v.p = float4(p, 1); v.c = c; return v; }
float4 PSMain(V v) : SV_Target {
    uint w, h;
    Checker.GetDimensions(w, h);
    uint2 at = uint2(v.p.xy / 8) % uint2(w, h);
    return float4(v.c * Checker[at], 1);
}";
    let stage = |stage, entry: &str| {
        let opts = CompileOptions {
            entry: entry.into(),
            stage,
            ..CompileOptions::default()
        };
        lockstep::compile("checker.hlsl", source, &opts, &MemoryLoader::default()).unwrap()
    };
    let vs = stage(lockstep::ir::Stage::Vertex, "VSMain");
    let ps = stage(lockstep::ir::Stage::Pixel, "PSMain");
    let opts = DiffOptions {
        ulps: 4096,
        ..DiffOptions::default()
    };
    let report = lockstep::diff_draw(&vs, &ps, &pipeline, &device, &opts).unwrap();
    assert!(!report.differs(), "{}", report.render(&ps, false));
    // The checker shows: some covered pixels are dimmed to a quarter.
    let gpu = lockstep::draw_vulkan(&vs, &ps, &pipeline, &device, &Default::default()).unwrap();
    let rt = pipeline.buffer_index("Target").unwrap();
    let reds: Vec<f32> = gpu.output.contents[rt]
        .chunks_exact(16)
        .map(|px| f32::from_le_bytes(px[0..4].try_into().unwrap()))
        .collect();
    assert!(reds.iter().any(|&r| r > 0.5) && reds.iter().any(|&r| r > 0.0 && r < 0.25));
}
