//! `execute/…`: how fast the engine runs a dispatch. Each benchmark checks
//! its result inside the timed loop.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
mod support;

use lockstep::pipeline::{Kind, Pipeline};
use lockstep::{CompileOptions, MemoryLoader, RunOptions};
use support::{binding, buffer, words};

/// The ordered append of the wave intrinsics specification: each thread
/// appends 0 to 3 items; one atomic per wave reserves the wave's space.
const ORDERED_APPEND: &str = r#"
StructuredBuffer<uint> ItemCounts : register(t0);
RWStructuredBuffer<uint> Output : register(u0);
RWByteAddressBuffer BufferSize : register(u1);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    uint NumberOfItemsToAppend = ItemCounts[dtid.x];
    uint appendCount = WaveActiveSum(NumberOfItemsToAppend);
    uint laneAppendOffset = WavePrefixSum(NumberOfItemsToAppend);
    uint appendOffset;
    if (WaveIsFirstLane())
        BufferSize.InterlockedAdd(0, appendCount, appendOffset);
    appendOffset = WaveReadLaneFirst(appendOffset) + laneAppendOffset;
    for (uint i = 0; i < NumberOfItemsToAppend; ++i)
        Output[appendOffset + i] = dtid.x;
}
"#;

const ELEMENTS: usize = 1 << 20;

fn ordered_append(c: &mut Criterion) {
    let counts: Vec<u32> = (0..ELEMENTS as u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) % 4)
        .collect();
    let total: u32 = counts.iter().sum();
    let pipeline = Pipeline {
        samplers: Vec::new(),
        graphics: None,
        dispatch: [(ELEMENTS / 64) as u32, 1, 1],
        entry: None,
        buffers: vec![
            buffer("ItemCounts", words(&counts)),
            buffer("Output", vec![0; ELEMENTS * 3 * 4]),
            buffer("BufferSize", vec![0; 4]),
        ],
        results: Vec::new(),
        bindings: vec![
            binding("ItemCounts", Kind::StructuredBuffer, 0),
            binding("Output", Kind::RwStructuredBuffer, 0),
            binding("BufferSize", Kind::RwByteAddressBuffer, 1),
        ],
    };
    let shader = lockstep::compile(
        "ordered_append.hlsl",
        ORDERED_APPEND,
        &CompileOptions::default(),
        &MemoryLoader::default(),
    )
    .unwrap_or_else(|e| panic!("{}", e.render(false)));
    let mut group = c.benchmark_group("execute");
    group.throughput(Throughput::Elements(ELEMENTS as u64));
    group.sample_size(10);
    for wave_size in [8, 32] {
        for threads in [1, 0] {
            let label = if threads == 1 { "1thread" } else { "allcores" };
            group.bench_function(format!("wave{wave_size}/ordered_append/{label}"), |b| {
                let opts = RunOptions {
                    wave_size,
                    threads,
                    ..RunOptions::default()
                };
                b.iter(|| {
                    let out = lockstep::run(&shader, &pipeline, &opts).expect("dispatch");
                    let size = u32::from_le_bytes(out.contents[2][..4].try_into().unwrap());
                    assert_eq!(size, total);
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, ordered_append);
criterion_main!(benches);
