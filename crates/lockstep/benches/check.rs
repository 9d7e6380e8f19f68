//! `check/…`: what `lockstep check` costs against one `lockstep::run` of
//! the same dispatch. A check runs every wave size the device has (six),
//! then each again with the other orders of reductions, waves and groups
//! that could change its memory; its target is at most ten times one run.
//!
//! Five shaders: a wave scan, a groupshared tile and a tree reduction in
//! groupshared memory (a barrier in each round of its loop) that the check
//! proves free of everything checked mode reports before they run
//! (`check/run`, `check/check`, `check/tile_run`, `check/tile_check`,
//! `check/reduce_run`, `check/reduce_check`: the sizes run as `run` runs
//! them); a group sum from per-wave sums that each wave's first lane
//! stores in groupshared memory, whose groupshared memory one group's
//! checked run settles (`check/partials_run`, `check/partials_check`); and
//! a compaction into groupshared memory at slots an atomic hands out,
//! which runs in checked mode (`check/compact_run`, `check/compact_check`).
//!
//! ```sh
//! cargo bench -p lockstep --bench check
//! ```

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
mod support;

use lockstep::pipeline::{Kind, Pipeline};
use lockstep::{CompileOptions, MemoryLoader, RunOptions};
use support::{binding, buffer, words};

/// The resources every shader below binds, put before each.
const BINDINGS: &str = r#"
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
RWByteAddressBuffer Total : register(u1);
"#;

/// A scan and a reduction per wave, as user code writes them.
const SCAN: &str = r#"
[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    uint v = In[dtid.x] & 255u;
    Out[dtid.x] = WavePrefixSum(v);
    uint sum = WaveActiveSum(v);
    if (WaveIsFirstLane())
        Total.InterlockedAdd(0, sum);
}
"#;

/// Neighbours summed through a groupshared tile: each thread stores one
/// word, then reads two after the barrier.
const TILE: &str = r#"groupshared uint Tile[64];

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    Tile[gi] = In[dtid.x] & 255u;
    GroupMemoryBarrierWithGroupSync();
    Out[dtid.x] = Tile[gi] + Tile[gi ^ 1u];
}
"#;

/// A tree reduction in groupshared memory, a barrier in each step of its
/// loop: the proof walks the loop round by round.
const REDUCE: &str = r#"groupshared uint Tile[64];

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    Tile[gi] = In[dtid.x] & 255u;
    GroupMemoryBarrierWithGroupSync();
    for (uint s = 32; s > 0; s >>= 1) {
        if (gi < s)
            Tile[gi] += Tile[gi + s];
        GroupMemoryBarrierWithGroupSync();
    }
    Out[dtid.x] = Tile[0];
}
"#;

/// A group's sum from per-wave sums in groupshared memory, each stored by
/// the wave's first lane: every group stores alike, so one group's checked
/// run settles those stores.
const PARTIALS: &str = r#"groupshared uint Partial[16];

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    uint sum = WaveActiveSum(In[dtid.x] & 255u);
    if (WaveIsFirstLane())
        Partial[gi / WaveGetLaneCount()] = sum;
    GroupMemoryBarrierWithGroupSync();
    uint waves = (64 + WaveGetLaneCount() - 1) / WaveGetLaneCount();
    uint total = 0;
    for (uint w = 0; w < waves; w++)
        total += Partial[w];
    Out[dtid.x] = total;
}
"#;

/// The odd inputs of each group compacted into groupshared memory at
/// slots an atomic hands out, then summed: the slots come from memory, so
/// checked mode settles the dispatch.
const COMPACT: &str = r#"groupshared uint Kept[64];
groupshared uint Count;

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    if (gi == 0)
        Count = 0;
    GroupMemoryBarrierWithGroupSync();
    uint v = In[dtid.x] & 255u;
    if (v & 1u) {
        uint at;
        InterlockedAdd(Count, 1u, at);
        Kept[at] = v;
    }
    GroupMemoryBarrierWithGroupSync();
    uint total = 0;
    for (uint i = 0; i < Count; i++)
        total += Kept[i];
    Out[dtid.x] = total;
}
"#;

const ELEMENTS: u32 = 1 << 16;

fn check_against_run(c: &mut Criterion) {
    let input: Vec<u32> = (0..ELEMENTS).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
    let pipeline = Pipeline {
        samplers: Vec::new(),
        graphics: None,
        dispatch: [ELEMENTS / 64, 1, 1],
        entry: None,
        buffers: vec![
            buffer("In", words(&input)),
            buffer("Out", words(&vec![0; ELEMENTS as usize])),
            buffer("Total", words(&[0])),
        ],
        results: Vec::new(),
        bindings: vec![
            binding("In", Kind::StructuredBuffer, 0),
            binding("Out", Kind::RwStructuredBuffer, 0),
            binding("Total", Kind::RwByteAddressBuffer, 1),
        ],
    };
    let shader = lockstep::compile(
        "scan.hlsl",
        &format!("{BINDINGS}{SCAN}"),
        &CompileOptions::default(),
        &MemoryLoader::default(),
    )
    .expect("the benchmark shader compiles");
    let opts = RunOptions::default();
    let mut group = c.benchmark_group("check");
    group.throughput(Throughput::Elements(u64::from(ELEMENTS)));
    group.sample_size(10);
    group.bench_function("run", |b| {
        b.iter(|| lockstep::run(&shader, &pipeline, &opts).expect("the run succeeds"))
    });
    group.bench_function("check", |b| {
        b.iter(|| {
            // The prefix sums differ between wave sizes: a portability
            // issue, as the check must find.
            let report =
                lockstep::check(&shader, &pipeline, &opts, &mut |_, _| {}).expect("the check runs");
            assert_eq!(report.portability.len(), 1);
            assert_eq!(report.proven, report.wave_sizes);
        })
    });
    for (name, source, proven) in [
        ("tile", TILE, true),
        ("reduce", REDUCE, true),
        ("partials", PARTIALS, true),
        ("compact", COMPACT, false),
    ] {
        let shader = lockstep::compile(
            &format!("{name}.hlsl"),
            &format!("{BINDINGS}{source}"),
            &CompileOptions::default(),
            &MemoryLoader::default(),
        )
        .expect("the benchmark shader compiles");
        group.bench_function(format!("{name}_run"), |b| {
            b.iter(|| lockstep::run(&shader, &pipeline, &opts).expect("the run succeeds"))
        });
        group.bench_function(format!("{name}_check"), |b| {
            b.iter(|| {
                let report = lockstep::check(&shader, &pipeline, &opts, &mut |_, _| {})
                    .expect("the check runs");
                assert!(report.is_clean());
                assert_eq!(report.proven.len(), if proven { 6 } else { 0 });
            })
        });
    }
    group.finish();
}

criterion_group!(benches, check_against_run);
criterion_main!(benches);
