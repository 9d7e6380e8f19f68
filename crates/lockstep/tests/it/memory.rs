//! Groupshared memory across barriers, atomics from many groups, and
//! out-of-bounds accesses.

use lockstep::pipeline::Kind;

use lockstep::{CompileOptions, RunOptions};

use crate::harness::{WAVE_SIZES, buf, compile, pipeline, run_words, words_of};

#[test]
fn groupshared_across_barriers_between_waves() {
    let source = r#"
groupshared uint squares[64];
groupshared uint waveTotals[16];
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    squares[gi] = gi * gi;
    GroupMemoryBarrierWithGroupSync();
    uint other = squares[63 - gi];
    // A block-wide prefix sum: scan within the wave, then across waves.
    uint inWave = WavePrefixSum(gi);
    uint lanes = WaveGetLaneCount();
    if (WaveGetLaneIndex() == lanes - 1)
        waveTotals[gi / lanes] = inWave + gi;
    GroupMemoryBarrierWithGroupSync();
    uint before = 0;
    for (uint w = 0; w < gi / lanes; ++w)
        before += waveTotals[w];
    Out[gi] = other * 10000 + before + inWave;
}
"#;
    for w in [4, 8, 16, 32, 64] {
        let out = run_words(
            source,
            [1, 1, 1],
            &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 64])],
            w,
        )
        .remove(0);
        // The other lane's square, and the sum of all group indices below.
        let want: Vec<u32> = (0..64u32)
            .map(|g| (63 - g) * (63 - g) * 10000 + (0..g).sum::<u32>())
            .collect();
        assert_eq!(out, want, "wave size {w}");
    }
}

/// Every atomic operation on groupshared memory, with the original values
/// it returns. The lanes of a group update each word in group-index order
/// (in ascending lane order within a wave, the waves taking turns in index
/// order), so every original value is known by hand at every wave size,
/// and each group has words of its own.
#[test]
fn groupshared_atomics_of_every_kind_return_the_values_before() {
    let source = r#"
groupshared uint g[8];
groupshared int s;
RWStructuredBuffer<uint> Out : register(u0);
RWStructuredBuffer<uint> Final : register(u1);
[numthreads(16, 1, 1)]
void main(uint gi : SV_GroupIndex, uint3 gid : SV_GroupID)
{
    if (gi == 0) {
        g[0] = gid.x; g[1] = 0xFFFFFFFF; g[2] = 0; g[3] = 0;
        g[4] = 0; g[5] = 100 + gid.x; g[6] = 0; g[7] = 0;
        s = 0;
    }
    GroupMemoryBarrierWithGroupSync();
    uint r[8];
    InterlockedAdd(g[0], gi, r[0]);
    InterlockedMin(g[1], 1000 - gi, r[1]);
    InterlockedMax(g[2], gi * 3 % 7, r[2]);
    InterlockedOr(g[3], 1u << gi, r[3]);
    InterlockedXor(g[4], gi + 1, r[4]);
    InterlockedExchange(g[5], gi, r[5]);
    InterlockedCompareExchange(g[6], gi, gi + 2, r[6]);
    InterlockedCompareStore(g[7], gi, gi + 1);
    int before;
    InterlockedMin(s, 5 - int(gi), before);
    r[7] = asuint(before);
    for (uint k = 0; k < 8; ++k)
        Out[(gid.x * 16 + gi) * 8 + k] = r[k];
    GroupMemoryBarrierWithGroupSync();
    if (gi == 0) {
        for (uint k = 0; k < 8; ++k)
            Final[gid.x * 9 + k] = g[k];
        Final[gid.x * 9 + 8] = asuint(s);
    }
}
"#;
    const GROUPS: u32 = 12;
    let mut want_out = Vec::new();
    let mut want_final = Vec::new();
    for group in 0..GROUPS {
        for gi in 0..16u32 {
            let earlier = 0..gi;
            want_out.extend([
                group + earlier.clone().sum::<u32>(),
                if gi == 0 { u32::MAX } else { 1000 - (gi - 1) },
                earlier.clone().map(|j| j * 3 % 7).max().unwrap_or(0),
                (1u32 << gi) - 1,
                earlier.clone().fold(0, |x, j| x ^ (j + 1)),
                if gi == 0 { 100 + group } else { gi - 1 },
                // Even lanes find their own index and add 2; odd lanes find
                // the even index below plus 2.
                if gi % 2 == 0 { gi } else { gi + 1 },
                // 0 until lane 5 has stored 0; then the lane below's value.
                if gi <= 5 { 0 } else { 6 - gi as i32 } as u32,
            ]);
        }
        want_final.extend([
            group + (0..16).sum::<u32>(),
            1000 - 15,
            6,
            0xFFFF,
            (1..=16).fold(0, |x, j| x ^ j),
            15,
            16,
            16,
            (5 - 15i32) as u32,
        ]);
    }
    for w in WAVE_SIZES {
        let out = run_words(
            source,
            [GROUPS, 1, 1],
            &[
                buf(
                    "Out",
                    Kind::RwStructuredBuffer,
                    0,
                    vec![0; 16 * 8 * GROUPS as usize],
                ),
                buf(
                    "Final",
                    Kind::RwStructuredBuffer,
                    1,
                    vec![0; 9 * GROUPS as usize],
                ),
            ],
            w,
        );
        assert_eq!(out[0], want_out, "original values, wave size {w}");
        assert_eq!(out[1], want_final, "final values, wave size {w}");
    }
}

#[test]
fn interlocked_add_from_thousands_of_groups() {
    let source = r#"
RWStructuredBuffer<uint> Counter : register(u0);
groupshared uint local;
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex, uint3 gid : SV_GroupID)
{
    if (gi == 0) local = 0;
    GroupMemoryBarrierWithGroupSync();
    InterlockedAdd(local, 1);
    GroupMemoryBarrierWithGroupSync();
    uint original;
    InterlockedAdd(Counter[0], gi + 1, original);
    if (gi == 0) InterlockedMax(Counter[1], gid.x);
    if (gi == 0) InterlockedAdd(Counter[2], local);
}
"#;
    for w in [8, 32] {
        let out = run_words(
            source,
            [4096, 1, 1],
            &[buf("Counter", Kind::RwStructuredBuffer, 0, vec![0; 3])],
            w,
        )
        .remove(0);
        assert_eq!(
            out,
            [4096 * (64 * 65 / 2), 4095, 4096 * 64],
            "wave size {w}"
        );
    }
}

/// An atomic whose original value goes into its own operand's variable
/// reads that variable: the values assigned to it before must stay, at
/// the top level (a constant and an expression) and in a branch.
#[test]
fn an_atomic_writing_its_own_operand_reads_it_first() {
    let source = r#"
RWStructuredBuffer<uint> Counter : register(u0);
[numthreads(16, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint five = 5;
    InterlockedAdd(Counter[0], five, five);
    uint v = gi + 1;
    InterlockedAdd(Counter[1], v, v);
    if (gi % 2 == 0) {
        uint w = 100;
        InterlockedAdd(Counter[2], w, w);
    }
}
"#;
    for w in [4, 8, 16] {
        let out = run_words(
            source,
            [8, 1, 1],
            &[buf("Counter", Kind::RwStructuredBuffer, 0, vec![0; 3])],
            w,
        )
        .remove(0);
        assert_eq!(
            out,
            [8 * 16 * 5, 8 * (16 * 17 / 2), 8 * 8 * 100],
            "wave size {w}"
        );
    }
}

/// An atomic whose result nothing reads may be held back by the worker and
/// folded with later ones on the same word; every later read by the
/// worker, through any binding of the buffer, must still see it, and an
/// update of the word with another operation must come after it.
#[test]
fn held_atomics_are_seen_by_every_later_read() {
    let source = r#"
RWByteAddressBuffer Counter : register(u0);
ByteAddressBuffer View : register(t0);
RWStructuredBuffer<uint> Out : register(u1);
RWByteAddressBuffer Stats : register(u2);
groupshared uint g_lanes;
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint k = gi / WaveGetLaneCount();
    InterlockedAdd(g_lanes, 1);
    if (WaveIsFirstLane())
        Counter.InterlockedAdd(0, 1);
    uint seen = View.Load(0);
    uint before;
    Counter.InterlockedAdd(4, k * uint(WaveIsFirstLane()), before);
    Out[gi] = seen * 1000 + before;
    if (WaveIsFirstLane()) {
        if (k % 2 == 0)
            Stats.InterlockedAdd(0, 5);
        else
            Stats.InterlockedMax(0, 100 / k);
    }
}
"#;
    let shader = compile(source, &CompileOptions::default());
    // The updates of `Counter` word 0 and of `Stats`; not the groupshared
    // one, nor the one whose original value is read.
    assert_eq!(shader.program.deferrable_atomics(), 3);
    let mut p = pipeline(
        [1, 1, 1],
        &[
            buf("Counter", Kind::RwByteAddressBuffer, 0, vec![0; 2]),
            buf("Out", Kind::RwStructuredBuffer, 1, vec![0; 64]),
            buf("Stats", Kind::RwByteAddressBuffer, 2, vec![0]),
        ],
    );
    // `View` is the counter buffer too, bound for reading.
    let mut view = p.bindings[0].clone();
    view.kind = Kind::ByteAddressBuffer;
    p.bindings.push(view);
    for w in [4, 8, 16, 32] {
        // The waves run one after the other in index order. Wave k reads
        // the counter after its own increment (k + 1), and word 1 of it
        // before (lane 0) or after (other lanes) its first lane adds k;
        // nothing reads `Stats`, where wave k adds 5 (k even) or takes the
        // maximum with 100 / k (k odd).
        let waves = 64 / w;
        let mut want = Vec::new();
        let mut stats = 0;
        for k in 0..waves {
            let earlier: u32 = (0..k).sum();
            for lane in 0..w {
                let before = if lane == 0 { earlier } else { earlier + k };
                want.push((k + 1) * 1000 + before);
            }
            stats = if k % 2 == 0 {
                stats + 5
            } else {
                stats.max(100 / k)
            };
        }
        for threads in [1, 2] {
            let opts = RunOptions { threads, ..opts(w) };
            let out = lockstep::run(&shader, &p, &opts).unwrap();
            let sum: u32 = (0..waves).sum();
            assert_eq!(words_of(&out.contents[0]), [waves, sum], "wave size {w}");
            assert_eq!(words_of(&out.contents[1]), want, "wave size {w}");
            assert_eq!(words_of(&out.contents[2]), [stats], "wave size {w}");
        }
    }
}

#[test]
fn out_of_bounds_reads_are_zero_and_writes_dropped() {
    let source = r#"
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
RWStructuredBuffer<uint> Far : register(u1);
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint v = In[gi + 4];
    Out[gi] = v + 1;
    Far[gi + 6] = 100 + gi;
}
"#;
    for w in WAVE_SIZES {
        let out = run_words(
            source,
            [1, 1, 1],
            &[
                buf(
                    "In",
                    Kind::StructuredBuffer,
                    0,
                    vec![10, 11, 12, 13, 14, 15, 16, 17],
                ),
                buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 8]),
                buf("Far", Kind::RwStructuredBuffer, 1, vec![0; 8]),
            ],
            w,
        );
        // Lanes 4..7 read past the end of In: 0. Lanes 2..7 write past the
        // end of Far: dropped.
        assert_eq!(out[1], [15, 16, 17, 18, 1, 1, 1, 1], "wave size {w}");
        assert_eq!(out[2], [0, 0, 0, 0, 0, 0, 100, 101], "wave size {w}");
        assert_eq!(out[0], [10, 11, 12, 13, 14, 15, 16, 17]);
    }
}

#[test]
fn sixty_four_bit_atomics_on_groupshared_and_buffers() {
    let source = r#"
RWStructuredBuffer<uint64_t> Out : register(u0);
RWByteAddressBuffer Raw : register(u1);
groupshared uint64_t g;
groupshared int64_t smin;
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    if (gi == 0) { g = 0; smin = 0; }
    GroupMemoryBarrierWithGroupSync();
    InterlockedMax(g, (uint64_t)gi << 33);
    InterlockedMin(smin, -(int64_t)gi << 34);
    uint64_t old;
    InterlockedAdd(Out[1], 0x100000000ull, old);
    Raw.InterlockedAdd64(0, 5ull);
    Raw.InterlockedMin64(8, -(int64_t)gi);
    GroupMemoryBarrierWithGroupSync();
    if (gi == 0) { Out[0] = g; Out[2] = (uint64_t)smin; }
}
"#;
    for w in [4, 8] {
        let out = run_words(
            source,
            [1, 1, 1],
            &[
                buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 6]),
                buf("Raw", Kind::RwByteAddressBuffer, 1, vec![0; 4]),
            ],
            w,
        );
        let smin = (-7i64 << 34) as u64;
        // Words are little-endian halves of each 64-bit value.
        assert_eq!(
            out[0],
            [0, 0xE, 0, 8, smin as u32, (smin >> 32) as u32],
            "wave size {w}"
        );
        assert_eq!(out[1], [40, 0, (-7i32) as u32, u32::MAX], "wave size {w}");
    }
}

const IN_TO_OUT: &str = r#"
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Out[id.x] = In[id.x] * 3 + 1;
}
"#;

fn opts(wave_size: u32) -> RunOptions {
    RunOptions {
        wave_size,
        threads: 2,
        ..RunOptions::default()
    }
}

#[test]
fn buffers_the_shader_cannot_write_are_read_in_place() {
    let shader = compile(IN_TO_OUT, &CompileOptions::default());
    let input: Vec<u32> = (0..128).map(|i| i * 7 + 2).collect();
    let p = pipeline(
        [2, 1, 1],
        &[
            buf("In", Kind::StructuredBuffer, 0, input.clone()),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 128]),
        ],
    );
    // Words can be read in place only from 4-byte aligned bytes.
    assert!(p.buffers[0].data.as_ptr().cast::<u32>().is_aligned());
    for w in [4, 8, 32] {
        let out = lockstep::run(&shader, &p, &opts(w)).unwrap();
        // The input comes back as the pipeline's own bytes: no copy.
        assert_eq!(out.contents[0].as_ptr(), p.buffers[0].data.as_ptr());
        assert_eq!(words_of(&out.contents[0]), input);
        // The output is the engine's, and the pipeline's stays zero.
        assert_ne!(out.contents[1].as_ptr(), p.buffers[1].data.as_ptr());
        let want: Vec<u32> = input.iter().map(|x| x * 3 + 1).collect();
        assert_eq!(words_of(&out.contents[1]), want, "wave size {w}");
        assert!(p.buffers[1].data.iter().all(|&b| b == 0));
    }
}

#[test]
fn a_buffer_bound_for_reading_and_for_writing_is_copied() {
    let shader = compile(IN_TO_OUT, &CompileOptions::default());
    let input: Vec<u32> = (0..64).map(|i| i * i).collect();
    let mut p = pipeline(
        [1, 1, 1],
        &[buf("Data", Kind::StructuredBuffer, 0, input.clone())],
    );
    // The same buffer at u0 too: the shader writes what it reads.
    let mut rw = p.bindings[0].clone();
    rw.kind = Kind::RwStructuredBuffer;
    p.bindings.push(rw);
    for w in [4, 16, 64] {
        let out = lockstep::run(&shader, &p, &opts(w)).unwrap();
        assert_ne!(out.contents[0].as_ptr(), p.buffers[0].data.as_ptr());
        let want: Vec<u32> = input.iter().map(|x| x * 3 + 1).collect();
        assert_eq!(words_of(&out.contents[0]), want, "wave size {w}");
        // The pipeline's bytes are as they were.
        assert_eq!(words_of(&p.buffers[0].data), input);
    }
}

#[test]
fn a_buffer_of_a_length_words_cannot_cover_is_copied() {
    // Three 16-bit elements (6 bytes): the last word is partial, so the
    // memory is a zero-padded copy.
    let source = r#"
StructuredBuffer<uint16_t> Short : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Out[id.x] = Short[id.x];
}
"#;
    let shader = compile(
        source,
        &CompileOptions {
            enable_16bit_types: true,
            ..CompileOptions::default()
        },
    );
    let mut p = pipeline(
        [1, 1, 1],
        &[
            buf("Short", Kind::StructuredBuffer, 0, vec![0]),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![9; 4]),
        ],
    );
    p.buffers[0].format = lockstep::pipeline::Format::UInt16;
    p.buffers[0].data = vec![1, 2, 3, 4, 5, 6];
    let out = lockstep::run(&shader, &p, &opts(4)).unwrap();
    assert_ne!(out.contents[0].as_ptr(), p.buffers[0].data.as_ptr());
    assert_eq!(&out.contents[0][..], &[1, 2, 3, 4, 5, 6]);
    // The fourth element is past the buffer: it reads 0.
    assert_eq!(words_of(&out.contents[1]), [0x0201, 0x0403, 0x0605, 0]);
}

/// SM 6.6's float atomics compare and exchange bits (so -0.0 is not 0.0),
/// in groupshared memory and a byte-address buffer, in steps that SM 6.8's
/// `Barrier(…, GROUP_SYNC)` separates.
#[test]
fn float_bitwise_atomics_and_sm68_barriers() {
    let source = "RWStructuredBuffer<float> Out : register(u0);\n\
        RWByteAddressBuffer B : register(u1);\n\
        groupshared float g;\n\
        [numthreads(4, 1, 1)]\n\
        void main(uint gi : SV_GroupIndex) {\n\
            if (gi == 0) g = 1.5;\n\
            Barrier(GROUP_SHARED_MEMORY, GROUP_SYNC | GROUP_SCOPE);\n\
            float old = 0;\n\
            if (gi == 1) InterlockedCompareExchangeFloatBitwise(g, 1.5, 2.5, old);\n\
            Barrier(GROUP_SHARED_MEMORY, GROUP_SYNC);\n\
            if (gi == 2) InterlockedCompareStoreFloatBitwise(g, 9.0, 7.0);\n\
            Barrier(ALL_MEMORY, GROUP_SYNC);\n\
            float prev = 0;\n\
            if (gi == 3) InterlockedExchange(g, -0.0, prev);\n\
            Barrier(GROUP_SHARED_MEMORY, GROUP_SYNC);\n\
            if (gi == 0) Out[0] = g;\n\
            if (gi == 1) Out[1] = old;\n\
            if (gi == 3) Out[3] = prev;\n\
            if (gi == 2) {\n\
                float o = 1;\n\
                B.InterlockedCompareExchangeFloatBitwise(0, 0.0, 4.25, o);\n\
                Out[2] = o;\n\
            }\n\
        }\n";
    let opts = CompileOptions {
        shader_model: (6, 8),
        ..CompileOptions::default()
    };
    let shader = compile(source, &opts);
    let bufs = [
        buf("Out", Kind::RwStructuredBuffer, 0, vec![7; 4]),
        buf("B", Kind::RwByteAddressBuffer, 1, vec![0; 1]),
    ];
    let f = |x: f32| x.to_bits();
    for wave_size in [4, 8] {
        let out = crate::harness::run_compiled(&shader, [1, 1, 1], &bufs, wave_size);
        // g: 1.5, exchanged for 2.5 (1.5 matched), kept (9.0 did not),
        // exchanged for -0.0. B[0]: 0.0 matched, so 4.25.
        assert_eq!(out[0], [f(-0.0), f(1.5), f(0.0), f(2.5)]);
        assert_eq!(out[1], [f(4.25)]);
    }
}
