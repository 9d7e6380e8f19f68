//! Groupshared memory across barriers, atomics from many groups, and
//! out-of-bounds accesses.

use lockstep::pipeline::Kind;

use crate::harness::{WAVE_SIZES, buf, run_words};

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
