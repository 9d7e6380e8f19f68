//! `kernels/<kernel>/wave<N>/<threads>`: the benchmark suite. Each kernel is
//! an `.hlsl` file in `benches/kernels/` at the repository root; its
//! pipeline (buffers of up to 2^24 elements) is built here, with the
//! expected result computed in Rust, once, outside the timed loop. Every
//! iteration runs the whole dispatch (buffers copied in and out included)
//! and checks the result. Throughput is reported in elements (threads, or
//! texels for `tile_minmax`) per second, at wave sizes 8 and 32, on one
//! thread and on one thread per core.
//!
//! ```sh
//! cargo bench -p lockstep --bench kernels
//! cargo bench -p lockstep --bench kernels -- block_scan/wave8
//! ```

use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use lockstep::pipeline::{Binding, BufferDesc, Format, Kind, OutputProps, Pipeline};
use lockstep::{CompileOptions, MemoryLoader, RunOptions, RunOutput, Shader};

const N24: u32 = 1 << 24;
const N22: u32 = 1 << 22;

/// A cheap, well-mixed hash for building inputs.
fn hash(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn word(bytes: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().unwrap())
}

/// The wrapping sum of a buffer's words.
fn word_sum(bytes: &[u8]) -> u32 {
    bytes.chunks_exact(4).fold(0u32, |s, w| {
        s.wrapping_add(u32::from_le_bytes(w.try_into().unwrap()))
    })
}

fn buffer(name: &str, format: Format, data: Vec<u8>) -> BufferDesc {
    BufferDesc {
        name: name.to_string(),
        format,
        stride: None,
        channels: 1,
        data,
        output_props: None,
    }
}

fn texture(name: &str, format: Format, data: Vec<u8>, width: u32, height: u32) -> BufferDesc {
    BufferDesc {
        output_props: Some(OutputProps {
            width,
            height,
            depth: 1,
        }),
        ..buffer(name, format, data)
    }
}

fn binding(name: &str, kind: Kind, register: u32) -> Binding {
    Binding {
        name: name.to_string(),
        kind,
        register,
        space: 0,
        set: 0,
        vulkan_binding: None,
    }
}

fn compile(name: &str, source: &str) -> Shader {
    lockstep::compile(
        name,
        source,
        &CompileOptions::default(),
        &MemoryLoader::default(),
    )
    .unwrap_or_else(|e| panic!("{}", e.render(false)))
}

/// Benchmarks one kernel at wave sizes 8 and 32, on one thread and on all
/// cores; `check` panics when a run's result is wrong.
fn bench_kernel(
    c: &mut Criterion,
    name: &str,
    source: &str,
    pipeline: &Pipeline,
    elements: u32,
    check: impl Fn(&RunOutput),
) {
    let shader = compile(&format!("{name}.hlsl"), source);
    let mut group = c.benchmark_group("kernels");
    group.throughput(Throughput::Elements(u64::from(elements)));
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(2));
    for wave_size in [8, 32] {
        for threads in [1, 0] {
            let label = if threads == 1 { "1thread" } else { "allcores" };
            let opts = RunOptions {
                wave_size,
                threads,
                ..RunOptions::default()
            };
            group.bench_function(format!("{name}/wave{wave_size}/{label}"), |b| {
                b.iter(|| {
                    let out = lockstep::run(&shader, pipeline, &opts).expect("dispatch");
                    assert_eq!(out.wave_size.size, wave_size);
                    check(&out);
                });
            });
        }
    }
    group.finish();
}

/// The compaction of the WavePrefixCountBits example: values not a multiple
/// of 3 are appended to one global stream. The count and the sum of the
/// stream are checked (the order of the waves' chunks depends on timing).
fn ordered_append(c: &mut Criterion) {
    let input: Vec<u32> = (0..N24).map(hash).collect();
    let kept = input.iter().filter(|&&v| v % 3 != 0);
    let count = kept.clone().count() as u32;
    let sum = kept.fold(0u32, |s, &v| s.wrapping_add(v));
    let pipeline = Pipeline {
        dispatch: [N24 / 64, 1, 1],
        entry: None,
        buffers: vec![
            buffer("Input", Format::UInt32, words(&input)),
            buffer("Output", Format::UInt32, vec![0; N24 as usize * 4]),
            buffer("BufferSize", Format::UInt32, vec![0; 4]),
        ],
        results: Vec::new(),
        bindings: vec![
            binding("Input", Kind::StructuredBuffer, 0),
            binding("Output", Kind::RwStructuredBuffer, 0),
            binding("BufferSize", Kind::RwByteAddressBuffer, 1),
        ],
    };
    drop(input);
    let source = include_str!("../../../benches/kernels/ordered_append.hlsl");
    bench_kernel(c, "ordered_append", source, &pipeline, N24, |out| {
        assert_eq!(word(&out.contents[2], 0), count);
        assert_eq!(word_sum(&out.contents[1]), sum);
    });
}

/// WaveActiveSum, one InterlockedAdd per wave: the total is checked.
fn wave_reduce(c: &mut Criterion) {
    let input: Vec<u32> = (0..N24).map(hash).collect();
    let total = input.iter().fold(0u32, |s, &v| s.wrapping_add(v));
    let pipeline = Pipeline {
        dispatch: [N24 / 256, 1, 1],
        entry: None,
        buffers: vec![
            buffer("Input", Format::UInt32, words(&input)),
            buffer("Total", Format::UInt32, vec![0; 4]),
        ],
        results: Vec::new(),
        bindings: vec![
            binding("Input", Kind::StructuredBuffer, 0),
            binding("Total", Kind::RwByteAddressBuffer, 0),
        ],
    };
    drop(input);
    let source = include_str!("../../../benches/kernels/wave_reduce.hlsl");
    bench_kernel(c, "wave_reduce", source, &pipeline, N24, |out| {
        assert_eq!(word(&out.contents[1], 0), total);
    });
}

/// Exclusive prefix sum of each block of 256: the whole output is checked.
fn block_scan(c: &mut Criterion) {
    let input: Vec<u32> = (0..N24).map(|i| hash(i) & 0xFFFF).collect();
    let expected: Vec<u32> = input
        .chunks_exact(256)
        .flat_map(|block| {
            block.iter().scan(0u32, |s, &v| {
                let before = *s;
                *s = s.wrapping_add(v);
                Some(before)
            })
        })
        .collect();
    let expected = words(&expected);
    let pipeline = Pipeline {
        dispatch: [N24 / 256, 1, 1],
        entry: None,
        buffers: vec![
            buffer("Input", Format::UInt32, words(&input)),
            buffer("Output", Format::UInt32, vec![0; N24 as usize * 4]),
        ],
        results: Vec::new(),
        bindings: vec![
            binding("Input", Kind::StructuredBuffer, 0),
            binding("Output", Kind::RwStructuredBuffer, 0),
        ],
    };
    drop(input);
    let source = include_str!("../../../benches/kernels/block_scan.hlsl");
    bench_kernel(c, "block_scan", source, &pipeline, N24, |out| {
        assert!(out.contents[1] == expected, "block_scan: wrong output");
    });
}

/// Min/max depth per 8×8 tile of a 4096×4096 depth buffer: every tile is
/// checked. Depths are multiples of 1/1024 below 1, exact as halfs.
fn tile_minmax(c: &mut Criterion) {
    const SIZE: u32 = 4096;
    const TILES: u32 = SIZE / 8;
    let depth: Vec<f32> = (0..SIZE * SIZE)
        .map(|i| (hash(i) % 1024) as f32 / 1024.0)
        .collect();
    let mut expected = vec![0u32; (TILES * TILES) as usize];
    for ty in 0..TILES {
        for tx in 0..TILES {
            let (mut lo, mut hi) = (f32::MAX, 0.0f32);
            for y in ty * 8..ty * 8 + 8 {
                for x in tx * 8..tx * 8 + 8 {
                    let z = depth[(y * SIZE + x) as usize];
                    lo = lo.min(z);
                    hi = hi.max(z);
                }
            }
            let half = |v: f32| u32::from(half::f16::from_f32(v).to_bits());
            expected[(ty * TILES + tx) as usize] = (half(hi) << 16) | half(lo);
        }
    }
    let expected = words(&expected);
    let depth_bytes: Vec<u8> = depth.iter().flat_map(|z| z.to_le_bytes()).collect();
    drop(depth);
    let pipeline = Pipeline {
        dispatch: [TILES, TILES, 1],
        entry: None,
        buffers: vec![
            texture("Depth", Format::Float32, depth_bytes, SIZE, SIZE),
            texture(
                "TileMinMaxDepthUAV",
                Format::UInt32,
                vec![0; (TILES * TILES * 4) as usize],
                TILES,
                TILES,
            ),
        ],
        results: Vec::new(),
        bindings: vec![
            binding("Depth", Kind::Texture2D, 0),
            binding("TileMinMaxDepthUAV", Kind::RwTexture2D, 0),
        ],
    };
    let source = include_str!("../../../benches/kernels/tile_minmax.hlsl");
    bench_kernel(c, "tile_minmax", source, &pipeline, SIZE * SIZE, |out| {
        assert!(out.contents[1] == expected, "tile_minmax: wrong output");
    });
}

/// The per-lane loop of `divergent_loop.hlsl`, run `n` times.
fn divergent_lane(mut x: u32, n: u32) -> u32 {
    for i in 0..n {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        x ^= x >> 13;
        x = x.rotate_left(5);
        x = x.wrapping_add(i.wrapping_mul(0x9E37_79B9));
    }
    x
}

/// A loop with per-lane trip counts (0 to 16) and a WaveActiveAnyTrue
/// exit over 2^22 lanes: the whole output is checked.
fn divergent_loop(c: &mut Criterion) {
    let seeds: Vec<u32> = (0..N22).map(hash).collect();
    let trips: Vec<u32> = (0..N22).map(|i| hash(i ^ 0x5bd1_e995) % 17).collect();
    let expected: Vec<u32> = seeds
        .iter()
        .zip(&trips)
        .map(|(&x, &n)| divergent_lane(x, n))
        .collect();
    let expected = words(&expected);
    let pipeline = Pipeline {
        dispatch: [N22 / 64, 1, 1],
        entry: None,
        buffers: vec![
            buffer("Seeds", Format::UInt32, words(&seeds)),
            buffer("Trips", Format::UInt32, words(&trips)),
            buffer("Output", Format::UInt32, vec![0; N22 as usize * 4]),
        ],
        results: Vec::new(),
        bindings: vec![
            binding("Seeds", Kind::StructuredBuffer, 0),
            binding("Trips", Kind::StructuredBuffer, 1),
            binding("Output", Kind::RwStructuredBuffer, 0),
        ],
    };
    let source = include_str!("../../../benches/kernels/divergent_loop.hlsl");
    bench_kernel(c, "divergent_loop", source, &pipeline, N22, |out| {
        assert!(out.contents[2] == expected, "divergent_loop: wrong output");
    });
}

/// WaveMatch + WaveMultiPrefixCountBits binning of 2^24 keys into 256
/// bins. Keys drift slowly with the thread index (about four distinct keys
/// per wave), as in an image histogram; the high bits are noise the kernel
/// masks off. Every bin is checked.
fn match_histogram(c: &mut Criterion) {
    let keys: Vec<u32> = (0..N24)
        .map(|i| (((i >> 10) + (hash(i) & 3)) & 255) | (hash(!i) & 0xFFFF_FF00))
        .collect();
    let mut bins = vec![0u32; 256];
    for &k in &keys {
        bins[(k & 255) as usize] += 1;
    }
    let expected = words(&bins);
    let pipeline = Pipeline {
        dispatch: [N24 / 64, 1, 1],
        entry: None,
        buffers: vec![
            buffer("Keys", Format::UInt32, words(&keys)),
            buffer("Bins", Format::UInt32, vec![0; 256 * 4]),
        ],
        results: Vec::new(),
        bindings: vec![
            binding("Keys", Kind::StructuredBuffer, 0),
            binding("Bins", Kind::RwStructuredBuffer, 0),
        ],
    };
    drop(keys);
    let source = include_str!("../../../benches/kernels/match_histogram.hlsl");
    bench_kernel(c, "match_histogram", source, &pipeline, N24, |out| {
        assert!(out.contents[1] == expected, "match_histogram: wrong bins");
    });
}

criterion_group!(
    benches,
    ordered_append,
    wave_reduce,
    block_scan,
    tile_minmax,
    divergent_loop,
    match_histogram
);
criterion_main!(benches);
