//! The wave-size model: `[WaveSize]`, `[numWaves]`, `GetGroupWaveIndex` and
//! `GetGroupWaveCount`, and every diagnostic they bring.

use expect_test::{Expect, expect};
use lockstep::pipeline::Kind;
use lockstep::{CompileOptions, RunOptions, WavePreference};

use crate::harness::{WAVE_SIZES, buf, compile, diagnostics, pipeline, run_compiled};

fn check(source: &str, opts: &CompileOptions, want: Expect) {
    want.assert_eq(&diagnostics(source, opts));
}

fn sm(minor: u32) -> CompileOptions {
    CompileOptions {
        shader_model: (6, minor),
        ..CompileOptions::default()
    }
}

/// GetGroupWaveIndex and GetGroupWaveCount over several group shapes at
/// every wave size: the count is ceil(threads / W), the indices are
/// gi / W, so they are unique per wave, cover 0..count-1 and are uniform
/// within a wave.
#[test]
fn group_wave_index_and_count_over_group_shapes() {
    let shapes = [[1, 1, 1], [20, 1, 1], [64, 1, 1], [8, 8, 1], [3, 5, 7]];
    for ([x, y, z], quad) in shapes.into_iter().flat_map(|s| [(s, false), (s, true)]) {
        // A quad operation (adding 0) makes SM 6.6's 2×2 quads decide the
        // lanes; without one they follow SV_GroupIndex.
        let read = if quad {
            " + QuadReadLaneAt(0u, 0u)"
        } else {
            ""
        };
        let source = format!(
            r#"
RWStructuredBuffer<uint4> Out : register(u0);
[numthreads({x}, {y}, {z})]
void main(uint gi : SV_GroupIndex, uint3 gid : SV_GroupID)
{{
    uint index = GetGroupWaveIndex();
    Out[gid.x * {x} * {y} * {z} + gi] = uint4(index, GetGroupWaveCount(), WaveActiveAllEqual(index), WaveGetLaneIndex(){read});
}}
"#
        );
        let shader = compile(&source, &CompileOptions::default());
        let threads = (x * y * z) as usize;
        for w in WAVE_SIZES {
            let out = run_compiled(
                &shader,
                [2, 1, 1],
                &[buf(
                    "Out",
                    Kind::RwStructuredBuffer,
                    0,
                    vec![0; threads * 8],
                )],
                w,
            );
            let count = threads.div_ceil(w as usize) as u32;
            let mut seen = vec![false; count as usize];
            for t in 0..threads * 2 {
                let gi = (t % threads) as u32;
                // Shader model 6.10 with a quad operation: an 8×8 group's
                // quads are 2×2 blocks, four adjacent lanes each, blocks in
                // row-major order.
                let lane = if quad && x % 2 == 0 && y % 2 == 0 {
                    let (tx, ty) = (gi % x, gi / x);
                    4 * ((ty / 2) * (x / 2) + tx / 2) + (tx & 1) + 2 * (ty & 1)
                } else {
                    gi
                };
                let got = &out[0][t * 4..t * 4 + 4];
                assert_eq!(
                    got,
                    [lane / w, count, 1, lane % w],
                    "group {x}x{y}x{z}, wave size {w}, thread {t}"
                );
                seen[got[0] as usize] = true;
            }
            assert!(seen.iter().all(|&s| s), "every wave index appears");
        }
    }
}

/// Under numWaves the group is N·W lanes, GetGroupWaveCount() is a
/// compile-time constant (it sizes a groupshared array and folds into an
/// expression), and SV_GroupID with GetGroupWaveIndex and WaveGetLaneIndex
/// locate the work.
#[test]
fn num_waves_groups() {
    let source = r#"
#define TILE 8
groupshared uint g_counts[GetGroupWaveCount() - 1];
static const uint kPerWave = (TILE * TILE) / GetGroupWaveCount();
RWStructuredBuffer<uint4> Out : register(u0);
[numWaves(3)]
void main(uint3 gid : SV_GroupID)
{
    uint wave = GetGroupWaveIndex();
    uint lane = WaveGetLaneIndex();
    if (wave != 0)
        g_counts[wave - 1] = WaveActiveCountBits(true);
    GroupMemoryBarrierWithGroupSync();
    uint item = (gid.x * GetGroupWaveCount() + wave) * WaveGetLaneCount() + lane;
    Out[item] = uint4(wave, kPerWave, wave == 0 ? g_counts[0] + g_counts[1] : 0, gid.x);
}
"#;
    let shader = compile(source, &CompileOptions::default());
    for w in WAVE_SIZES {
        let w = w as usize;
        let items = 2 * 3 * w;
        let out = run_compiled(
            &shader,
            [2, 1, 1],
            &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; items * 4])],
            w as u32,
        );
        for item in 0..items {
            let (group, wave) = (item / (3 * w), item / w % 3);
            let sum = if wave == 0 { 2 * w as u32 } else { 0 };
            assert_eq!(
                &out[0][item * 4..item * 4 + 4],
                [wave as u32, 64 / 3, sum, group as u32],
                "wave size {w}, item {item}"
            );
        }
    }
}

#[test]
fn wave_size_attribute_chooses_the_dispatch_size() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64, 1, 1)]
[WaveSize(8, 32, 16)]
void main(uint gi : SV_GroupIndex)
{
    Out[gi] = WaveGetLaneCount();
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let p = pipeline(
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 64])],
    );
    let lanes = |opts: RunOptions| {
        let out = lockstep::run(&shader, &p, &opts).map_err(|e| e.message)?;
        Ok::<u32, String>(u32::from_le_bytes(out.contents[0][..4].try_into().unwrap()))
    };
    // The shader's preferred size, when the device supports it.
    assert_eq!(lanes(RunOptions::default()), Ok(16));
    // Else the device's preferred size if it is in range.
    assert_eq!(
        lanes(RunOptions {
            wave_size: 32,
            wave_sizes: (32, 64),
            ..RunOptions::default()
        }),
        Ok(32)
    );
    // Else the preference picks among the supported sizes in range.
    let narrow = RunOptions {
        wave_size: 64,
        wave_sizes: (4, 64),
        ..RunOptions::default()
    };
    assert_eq!(
        lanes(RunOptions {
            wave_sizes: (32, 64),
            ..narrow.clone()
        }),
        Ok(32)
    );
    let no16 = RunOptions {
        wave_size: 4,
        wave_sizes: (4, 8),
        ..RunOptions::default()
    };
    assert_eq!(lanes(no16.clone()), Ok(8));
    assert_eq!(
        lanes(RunOptions {
            prefer: WavePreference::Large,
            wave_size: 64,
            wave_sizes: (32, 64),
            ..no16
        }),
        Ok(32)
    );
    // A device without any size in range cannot run it.
    assert_eq!(
        lanes(RunOptions { wave_size: 64, wave_sizes: (64, 128), ..RunOptions::default() }),
        Err("the shader requires [WaveSize(8, 32, 16)], but the device supports wave sizes 64..128 only".to_string())
    );
}

#[test]
fn num_waves_beyond_the_thread_limit_is_a_run_error() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n[numWaves(64)]\nvoid main() {\n    Out[0] = 1;\n}\n";
    let shader = compile(source, &CompileOptions::default());
    let p = pipeline(
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 1])],
    );
    // 64 waves of 16 lanes fit in 1024 threads; of 32 lanes they do not.
    assert!(
        lockstep::run(
            &shader,
            &p,
            &RunOptions {
                wave_size: 16,
                ..RunOptions::default()
            }
        )
        .is_ok()
    );
    let e = lockstep::run(
        &shader,
        &p,
        &RunOptions {
            wave_size: 32,
            ..RunOptions::default()
        },
    )
    .unwrap_err();
    expect!["the group has 2048 threads at wave size 32 (64 waves), more than the device's limit of 1024"].assert_eq(&e.message);
}

#[test]
fn num_waves_with_numthreads() {
    check(
        "[numthreads(64, 1, 1)]\n[numWaves(2)]\nvoid main() {}\n",
        &CompileOptions::default(),
        expect![[r#"
            test.hlsl:2:1: error: 'numWaves' and 'numthreads' cannot both be specified: a group is launched either as threads or as waves
              |
            2 | [numWaves(2)]
              | ^^^^^^^^^^^^^

        "#]],
    );
}

#[test]
fn thread_system_values_under_num_waves() {
    check(
        "[numWaves(2)]\nvoid main(uint3 d : SV_DispatchThreadID, uint3 t : SV_GroupThreadID, uint i : SV_GroupIndex, uint3 g : SV_GroupID) {}\n",
        &CompileOptions::default(),
        expect![[r#"
            test.hlsl:2:21: error: 'SV_DispatchThreadID' cannot be used in a shader with the numWaves attribute
              |
            2 | void main(uint3 d : SV_DispatchThreadID, uint3 t : SV_GroupThreadID, uint i : SV_GroupIndex, uint3 g : SV_GroupID) {}
              |                     ^^^^^^^^^^^^^^^^^^^
              |
              = use SV_GroupID, GetGroupWaveIndex() and WaveGetLaneIndex() to locate the work instead

            test.hlsl:2:52: error: 'SV_GroupThreadID' cannot be used in a shader with the numWaves attribute
              |
            2 | void main(uint3 d : SV_DispatchThreadID, uint3 t : SV_GroupThreadID, uint i : SV_GroupIndex, uint3 g : SV_GroupID) {}
              |                                                    ^^^^^^^^^^^^^^^^
              |
              = use SV_GroupID, GetGroupWaveIndex() and WaveGetLaneIndex() to locate the work instead

            test.hlsl:2:79: error: 'SV_GroupIndex' cannot be used in a shader with the numWaves attribute
              |
            2 | void main(uint3 d : SV_DispatchThreadID, uint3 t : SV_GroupThreadID, uint i : SV_GroupIndex, uint3 g : SV_GroupID) {}
              |                                                                               ^^^^^^^^^^^^^
              |
              = use SV_GroupID, GetGroupWaveIndex() and WaveGetLaneIndex() to locate the work instead

        "#]],
    );
}

#[test]
fn num_waves_must_be_a_positive_integer() {
    check(
        "[numWaves(0)]\nvoid main() {}\n",
        &CompileOptions::default(),
        expect![[r#"
        test.hlsl:1:11: error: numWaves value 0 is out of range: it must be an integer greater than zero, and at most 256 (1024 threads at wave size 4)
          |
        1 | [numWaves(0)]
          |           ^

    "#]],
    );
    check(
        "[numWaves(-1)]\nvoid main() {}\n",
        &CompileOptions::default(),
        expect![[r#"
        test.hlsl:1:11: error: numWaves argument -1 is out of range
          |
        1 | [numWaves(-1)]
          |           ^^

    "#]],
    );
    check(
        "[numWaves(1.5)]\nvoid main() {}\n",
        &CompileOptions::default(),
        expect![[r#"
        test.hlsl:1:11: error: numWaves argument must be an integer, but has type 'double'
          |
        1 | [numWaves(1.5)]
          |           ^^^

    "#]],
    );
    check(
        "[numWaves(2, 2)]\nvoid main() {}\n",
        &CompileOptions::default(),
        expect![[r#"
        test.hlsl:1:1: error: the numWaves attribute requires exactly 1 argument
          |
        1 | [numWaves(2, 2)]
          | ^^^^^^^^^^^^^^^^

    "#]],
    );
}

#[test]
fn wave_size_attribute_validation() {
    check(
        "[numthreads(64,1,1)]\n[WaveSize(24)]\nvoid main() {}\n",
        &CompileOptions::default(),
        expect![[r#"
        test.hlsl:2:11: error: WaveSize value 24 is invalid: it must be a power of two from 4 to 128
          |
        2 | [WaveSize(24)]
          |           ^^

    "#]],
    );
    check(
        "[numthreads(64,1,1)]\n[WaveSize(256)]\nvoid main() {}\n",
        &CompileOptions::default(),
        expect![[r#"
        test.hlsl:2:11: error: WaveSize value 256 is invalid: it must be a power of two from 4 to 128
          |
        2 | [WaveSize(256)]
          |           ^^^

    "#]],
    );
    check(
        "[numthreads(64,1,1)]\n[WaveSize(64, 16)]\nvoid main() {}\n",
        &CompileOptions::default(),
        expect![[r#"
        test.hlsl:2:1: error: minimum WaveSize value 64 must be less than maximum WaveSize value 16
          |
        2 | [WaveSize(64, 16)]
          | ^^^^^^^^^^^^^^^^^^

    "#]],
    );
    check(
        "[numthreads(64,1,1)]\n[WaveSize(16, 64, 8)]\nvoid main() {}\n",
        &CompileOptions::default(),
        expect![[r#"
        test.hlsl:2:1: error: WaveSize preferred value 8 is outside the range 16 to 64
          |
        2 | [WaveSize(16, 64, 8)]
          | ^^^^^^^^^^^^^^^^^^^^^

    "#]],
    );
    check(
        "[numthreads(64,1,1)]\n[WaveSize(4, 8, 16, 32)]\nvoid main() {}\n",
        &CompileOptions::default(),
        expect![[r#"
        test.hlsl:2:1: error: the WaveSize attribute requires 1 to 3 arguments
          |
        2 | [WaveSize(4, 8, 16, 32)]
          | ^^^^^^^^^^^^^^^^^^^^^^^^

    "#]],
    );
}

#[test]
fn shader_model_gating_of_the_wave_size_model() {
    check(
        "[numthreads(64,1,1)]\n[WaveSize(32)]\nvoid main() {}\n",
        &sm(5),
        expect![[r#"
        test.hlsl:2:1: error: 'WaveSize' requires shader model 6.6 or later
          |
        2 | [WaveSize(32)]
          | ^^^^^^^^^^^^^^

    "#]],
    );
    check(
        "[numthreads(64,1,1)]\n[WaveSize(16, 32)]\nvoid main() {}\n",
        &sm(7),
        expect![[r#"
        test.hlsl:2:1: error: 'WaveSize(min, max)' requires shader model 6.8 or later
          |
        2 | [WaveSize(16, 32)]
          | ^^^^^^^^^^^^^^^^^^

    "#]],
    );
    check(
        "[numWaves(2)]\nvoid main() {}\n",
        &sm(9),
        expect![[r#"
        test.hlsl:1:1: error: 'numWaves' requires shader model 6.10 or later
          |
        1 | [numWaves(2)]
          | ^^^^^^^^^^^^^

    "#]],
    );
    check(
        "RWStructuredBuffer<uint> O;\n[numthreads(64,1,1)]\nvoid main() {\n    O[0] = GetGroupWaveIndex();\n}\n",
        &sm(9),
        expect![[r#"
            test.hlsl:4:12: error: 'GetGroupWaveIndex' requires shader model 6.10 or later
              |
            4 |     O[0] = GetGroupWaveIndex();
              |            ^^^^^^^^^^^^^^^^^^^

        "#]],
    );
}

#[test]
fn other_spellings_of_the_group_wave_intrinsics_warn() {
    check(
        "RWStructuredBuffer<uint> O;\n[numWaves(2)]\nvoid main() {\n    O[0] = GroupGetWaveIndex() + GroupGetWaveCount() + GetGroupNumWaves();\n}\n",
        &CompileOptions::default(),
        expect![[r#"
            test.hlsl:4:12: warning: 'GroupGetWaveIndex' is another spelling of 'GetGroupWaveIndex': use 'GetGroupWaveIndex'
              |
            4 |     O[0] = GroupGetWaveIndex() + GroupGetWaveCount() + GetGroupNumWaves();
              |            ^^^^^^^^^^^^^^^^^

            test.hlsl:4:34: warning: 'GroupGetWaveCount' is another spelling of 'GetGroupWaveCount': use 'GetGroupWaveCount'
              |
            4 |     O[0] = GroupGetWaveIndex() + GroupGetWaveCount() + GetGroupNumWaves();
              |                                  ^^^^^^^^^^^^^^^^^

            test.hlsl:4:56: warning: 'GetGroupNumWaves' is another spelling of 'GetGroupWaveCount': use 'GetGroupWaveCount'
              |
            4 |     O[0] = GroupGetWaveIndex() + GroupGetWaveCount() + GetGroupNumWaves();
              |                                                        ^^^^^^^^^^^^^^^^

        "#]],
    );
}

#[test]
fn info_reports_the_choice() {
    let source = "groupshared uint g[GetGroupWaveCount()];\nRWStructuredBuffer<uint> Out;\nStructuredBuffer<float> In : register(t3, space1);\n[numWaves(4)]\n[WaveSize(16, 64)]\nvoid main(uint3 gid : SV_GroupID) {\n    g[GetGroupWaveIndex()] = 1;\n    Out[gid.x] = (uint)In[0];\n}\n";
    let shader = compile(source, &CompileOptions::default());
    let info = lockstep::info(&shader, &RunOptions::default().device());
    expect![[r#"
        entry point       main
        stage             compute
        group             numWaves(4)
        wave size range   [WaveSize(16, 64)]
        wave size         32 (the device's preferred wave size, within [WaveSize(16, 64)])
        per group         4 waves, 128 threads
        quads             linear: four consecutive SV_GroupIndex values
        groupshared       16 bytes
        shader model      6.10 or later (cs_6_10)
        bindings          RWStructuredBuffer Out: u0, space0 (implicit)
                          StructuredBuffer In: t3, space1
    "#]]
    .assert_eq(&info.render());
    let json = serde_json::to_string(&info).unwrap();
    assert!(json.contains(r#""wave_size":32,"#), "{json}");
}

/// The coherent-append example of the numWaves proposal keeps its promise:
/// each group's outputs are contiguous and in a fixed order (wave by wave,
/// lane by lane), at every wave size its range allows and with groups
/// running in parallel.
#[test]
fn coherent_append_outputs_are_contiguous_per_group() {
    let root = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/coherent_append"
    );
    let source = std::fs::read_to_string(format!("{root}.hlsl")).unwrap();
    let pipeline =
        lockstep::pipeline::parse(&std::fs::read_to_string(format!("{root}.yaml")).unwrap())
            .unwrap();
    let opts = CompileOptions {
        entry: "Main".into(),
        ..CompileOptions::default()
    };
    let shader = lockstep::compile(
        "coherent_append.hlsl",
        &source,
        &opts,
        &lockstep::MemoryLoader::default(),
    )
    .unwrap();
    let words = |bytes: &[u8]| {
        bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect::<Vec<u32>>()
    };
    let gbuffer = words(&pipeline.buffers[0].data);
    let marked: Vec<(u32, u32)> = (0..64u32)
        .flat_map(|y| (0..16u32).map(move |x| (y, x)))
        .filter(|&(y, x)| gbuffer[(y * 16 + x) as usize] == 1)
        .collect();
    for w in [16, 32, 64] {
        for threads in [1, 2] {
            let run = RunOptions {
                wave_size: w,
                wave_sizes: (w, w),
                threads,
                ..RunOptions::default()
            };
            let out = lockstep::run(&shader, &pipeline, &run).unwrap();
            let count = words(&out.contents[1])[0] as usize;
            assert_eq!(count, marked.len());
            let data: Vec<(u32, u32)> = words(&out.contents[2])[..count]
                .iter()
                .map(|v| (v >> 16, v & 0xFFFF))
                .collect();
            // Every marked pixel exactly once.
            let mut sorted = data.clone();
            sorted.sort();
            assert_eq!(sorted, marked, "wave size {w}");
            // A group covers rows [g·h, (g+1)·h) with h = 4·W/16.
            let tile_height = 4 * w / 16;
            let group_of = |&(y, _): &(u32, u32)| y / tile_height;
            let mut groups_seen = Vec::new();
            for run in data.chunk_by(|a, b| group_of(a) == group_of(b)) {
                let g = group_of(&run[0]);
                assert!(
                    !groups_seen.contains(&g),
                    "wave size {w}: group {g} is not contiguous"
                );
                groups_seen.push(g);
                assert!(
                    run.windows(2).all(|p| p[0] < p[1]),
                    "wave size {w}: group {g} out of order: {run:?}"
                );
            }
        }
    }
}
