//! Shader Model 6.5 (`WaveMatch`, `WaveMultiPrefix*`) and the quad
//! operations: the specification's tables, its equivalence between
//! `WaveMultiPrefixSum` and a `WaveReadLaneFirst` loop, and aggregate
//! arguments of the broadcast intrinsics.

use lockstep::CompileOptions;
use lockstep::pipeline::Kind;
use lockstep::wave::{self, Mask};
use proptest::prelude::*;

use crate::harness::{WAVE_SIZES, buf, compile, diagnostics, run_compiled, run_words};

/// The WaveMatch table of the SM 6.5 specification: wave of 8, lanes 0 and
/// 4 inactive.
#[test]
fn wave_match_table() {
    let source = r#"
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<uint4> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    if (gi != 0 && gi != 4)
    {
        int input = In[gi];
        uint4 mask = WaveMatch(input);
        Out[gi] = mask;
    }
}
"#;
    let input = [0, 123, 0, 123, 0, -1, -1, 15]
        .map(|v: i32| v as u32)
        .to_vec();
    let out = run_words(
        source,
        [1, 1, 1],
        &[
            buf("In", Kind::StructuredBuffer, 0, input),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0xEE; 32]),
        ],
        8,
    );
    let x: Vec<u32> = out[1].chunks(4).map(|c| c[0]).collect();
    assert_eq!(x, [0xEE, 0x0a, 0x04, 0x0a, 0xEE, 0x60, 0x60, 0x80]);
    // Bits beyond the wave width are clear.
    for lane in [1, 2, 3, 5, 6, 7] {
        assert_eq!(&out[1][lane * 4 + 1..lane * 4 + 4], [0, 0, 0]);
    }
}

/// The WaveMultiPrefixSum table: wave of 8, lane 1 inactive; the 0x0b group
/// names lane 1, which is ignored.
#[test]
fn multi_prefix_sum_table() {
    let source = r#"
StructuredBuffer<int> Value : register(t0);
StructuredBuffer<uint> Mask : register(t1);
RWStructuredBuffer<int> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    if (gi != 1)
    {
        int value = Value[gi];
        uint4 mask = uint4(Mask[gi], 0, 0, 0);
        int output = WaveMultiPrefixSum(value, mask);
        Out[gi] = output;
    }
}
"#;
    let value = [6, 0, 0, 3, -2, 1, 4, 5].map(|v: i32| v as u32).to_vec();
    let mask = vec![0x0b, 0, 0x14, 0x09, 0x14, 0xe0, 0xe0, 0xe0];
    let out = run_words(
        source,
        [1, 1, 1],
        &[
            buf("Value", Kind::StructuredBuffer, 0, value),
            buf("Mask", Kind::StructuredBuffer, 1, mask),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![99; 8]),
        ],
        8,
    );
    assert_eq!(out[2], [0, 99, 0, 6, 0, 0, 1, 5]);
}

const EQUIVALENCE: &str = r#"
StructuredBuffer<int> Expr : register(t0);
StructuredBuffer<int> Value : register(t1);
StructuredBuffer<uint> Active : register(t2);
RWStructuredBuffer<int2> Out : register(u0);
[numthreads(128, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    if (Active[gi] == 0)
        return;
    int expr = Expr[gi];
    int value = Value[gi];
    uint4 mask = WaveMatch(expr);
    int multi = WaveMultiPrefixSum(value, mask);
    int sum = 0;
    while (true)
    {
        if (WaveReadLaneFirst(expr) == expr)
        {
            sum = WaveActiveSum(value);
            break;
        }
    }
    // The last lane of each group: its prefix plus its own value is the
    // group's total.
    int4 high = (int4)(firstbithigh(mask) | uint4(0, 0x20, 0x40, 0x60));
    uint last = (uint)max(max(max(high.x, high.y), high.z), high.w);
    Out[gi] = int2(WaveGetLaneIndex() == last ? multi + value : sum, sum);
}
"#;

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// `WaveMultiPrefixSum(value, WaveMatch(expr))` on the last lane of each
    /// group, plus that lane's value, equals the `WaveReadLaneFirst` /
    /// `WaveActiveSum` loop's result, at every wave size.
    #[test]
    fn multi_prefix_sum_equals_the_read_first_loop(
        w_log in 2u32..=7,
        exprs in prop::collection::vec(0u32..4, 128),
        values in prop::collection::vec(-1000i32..1000, 128),
        active in prop::collection::vec(prop::bool::weighted(0.8), 128),
    ) {
        let shader = compile(EQUIVALENCE, &CompileOptions::default());
        let out = run_compiled(
            &shader,
            [1, 1, 1],
            &[
                buf("Expr", Kind::StructuredBuffer, 0, exprs.clone()),
                buf("Value", Kind::StructuredBuffer, 1, values.iter().map(|&v| v as u32).collect()),
                buf("Active", Kind::StructuredBuffer, 2, active.iter().map(|&a| a as u32).collect()),
                buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 256]),
            ],
            1 << w_log,
        );
        for t in 0..128 {
            if active[t] {
                prop_assert_eq!(out[3][2 * t], out[3][2 * t + 1], "thread {}", t);
            }
        }
    }
}

/// The coalesced `InterlockedOr` example runs at every wave size.
#[test]
fn coalesced_or_example_at_every_wave_size() {
    let source = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/coalesced_or.hlsl"
    ))
    .unwrap();
    let shader = compile(&source, &CompileOptions::default());
    // Location k = x + 4y, packed as x | y << 16.
    let keys: Vec<u32> = (0..256u32).map(|t| (t * 7 + t / 5) % 16).collect();
    let packed: Vec<u32> = keys.iter().map(|k| (k % 4) | (k / 4) << 16).collect();
    let bits: Vec<u32> = (0..256u32).map(|t| 1 << (t % 32)).collect();
    let mut want = vec![0u32; 16];
    for t in 0..256 {
        want[keys[t] as usize] |= bits[t];
    }
    for w in WAVE_SIZES {
        let out = run_compiled(
            &shader,
            [2, 1, 1],
            &[
                buf("Keys", Kind::StructuredBuffer, 0, packed.clone()),
                buf("Bits", Kind::StructuredBuffer, 1, bits.clone()),
                buf("Mem", Kind::RwStructuredBuffer, 0, vec![0; 16]),
            ],
            w,
        );
        assert_eq!(out[2], want, "wave size {w}");
    }
}

#[test]
fn quad_operations() {
    let source = r#"
RWStructuredBuffer<uint4> Out : register(u0);
[numthreads(16, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint v = gi * 10;
    Out[gi] = uint4(QuadReadAcrossX(v), QuadReadAcrossY(v), QuadReadAcrossDiagonal(v), QuadReadLaneAt(v, (gi + 1) % 4));
}
"#;
    for w in WAVE_SIZES {
        let out = run_words(
            source,
            [1, 1, 1],
            &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 64])],
            w,
        )
        .remove(0);
        for t in 0..16u32 {
            let quad = t & !3;
            let want = [
                (t ^ 1) * 10,
                (t ^ 2) * 10,
                (t ^ 3) * 10,
                (quad + (t + 1) % 4) * 10,
            ];
            assert_eq!(
                &out[t as usize * 4..t as usize * 4 + 4],
                want,
                "wave size {w}, lane {t}"
            );
        }
    }
}

#[test]
fn quad_any_and_all() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    bool b = gi == 1 || gi >= 4;
    Out[gi] = QuadAny(b) * 10 + QuadAll(b);
}
"#;
    let out = run_words(
        source,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 8])],
        8,
    )
    .remove(0);
    assert_eq!(out, [10, 10, 10, 10, 11, 11, 11, 11]);
}

/// The reference model agrees with the engine on WaveMatch + multi-prefix
/// ops of every kind for one random case per type of operation.
#[test]
fn multi_prefix_family_against_the_reference() {
    let source = r#"
StructuredBuffer<uint> Key : register(t0);
StructuredBuffer<uint> Value : register(t1);
RWStructuredBuffer<uint4> Out : register(u0);
RWStructuredBuffer<uint2> Out2 : register(u1);
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    if (gi % 5 == 3)
        return;
    uint v = Value[gi];
    uint4 m = WaveMatch(Key[gi]);
    Out[gi] = uint4(WaveMultiPrefixProduct(v, m), WaveMultiPrefixBitAnd(v, m), WaveMultiPrefixOr(v, m), WaveMultiPrefixXor(v, m));
    Out2[gi] = uint2(WaveMultiPrefixCountBits((v & 1) != 0, m), WaveMultiPrefixSum(v, m));
}
"#;
    let keys: Vec<u32> = (0..64u32).map(|t| (t * 13 + 5) % 3).collect();
    let values: Vec<u32> = (0..64u32)
        .map(|t| t.wrapping_mul(2654435761) >> 7)
        .collect();
    for w in WAVE_SIZES.into_iter().filter(|&w| w <= 64) {
        let out = run_words(
            source,
            [1, 1, 1],
            &[
                buf("Key", Kind::StructuredBuffer, 0, keys.clone()),
                buf("Value", Kind::StructuredBuffer, 1, values.clone()),
                buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 256]),
                buf("Out2", Kind::RwStructuredBuffer, 1, vec![0; 128]),
            ],
            w,
        );
        let w = w as usize;
        for t in (0..64).filter(|t| t % 5 != 3) {
            let base = t / w * w;
            let lane = t - base;
            let vals = &values[base..base + w];
            let mask: Mask = (0..w)
                .filter(|l| (base + l) % 5 != 3)
                .fold(0, |m, l| m | 1 << l);
            let parts: Vec<[u32; 4]> = (0..w)
                .map(|l| wave::match_mask(&keys[base..base + w], mask, l))
                .collect();
            let bools: Vec<bool> = vals.iter().map(|v| v & 1 != 0).collect();
            let want = [
                wave::multi_prefix_product(vals, mask, &parts, lane),
                wave::multi_prefix_bit_and(vals, mask, &parts, lane),
                wave::multi_prefix_bit_or(vals, mask, &parts, lane),
                wave::multi_prefix_bit_xor(vals, mask, &parts, lane),
            ];
            assert_eq!(&out[2][t * 4..t * 4 + 4], want, "wave size {w}, thread {t}");
            let want2 = [
                wave::multi_prefix_count_bits(&bools, mask, &parts, lane),
                wave::multi_prefix_sum(vals, mask, &parts, lane),
            ];
            assert_eq!(
                &out[3][t * 2..t * 2 + 2],
                want2,
                "wave size {w}, thread {t}"
            );
        }
    }
}

#[test]
fn shader_model_gating() {
    let cs60 = CompileOptions {
        shader_model: (6, 0),
        ..CompileOptions::default()
    };
    let text = diagnostics(
        "RWStructuredBuffer<uint4> O;\n[numthreads(4,1,1)]\nvoid main(uint gi : SV_GroupIndex) {\n    O[gi] = WaveMatch(gi);\n}\n",
        &cs60,
    );
    assert!(
        text.contains("test.hlsl:4:13: error: 'WaveMatch' requires shader model 6.5 or later"),
        "{text}"
    );
    let cs66 = CompileOptions {
        shader_model: (6, 6),
        ..CompileOptions::default()
    };
    let text = diagnostics(
        "RWStructuredBuffer<uint> O;\n[numthreads(4,1,1)]\nvoid main(uint gi : SV_GroupIndex) {\n    O[gi] = QuadAny(gi == 0);\n}\n",
        &cs66,
    );
    assert!(
        text.contains("'QuadAny' requires shader model 6.7 or later"),
        "{text}"
    );
    let text = diagnostics(
        "RWStructuredBuffer<uint> O;\n[numthreads(4,1,1)]\nvoid main(uint gi : SV_GroupIndex) {\n    half h = 1;\n    O[gi] = asuint16(h);\n}\n",
        &CompileOptions::default(),
    );
    assert!(text.contains("error:"), "{text}");
}

/// WaveReadLaneFirst, WaveReadLaneAt and WaveActiveAllEqual on matrices,
/// structs and arrays, component by component.
#[test]
fn broadcast_of_aggregates() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
struct S { float a; uint2 b; };
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    float2x2 m = float2x2(gi, 1, 2, 3);
    float2x2 first = WaveReadLaneFirst(m);
    bool2x2 eq = WaveActiveAllEqual(m);
    S s; s.a = gi; s.b = uint2(gi * 2, 7);
    S t = WaveReadLaneAt(s, 3);
    S same; same.a = 1; same.b = uint2(gi / 8, 5);
    uint arr[2] = { gi, 4 };
    uint arr2[2] = WaveReadLaneAt(arr, 5);
    Out[gi] = (uint)first._m00 + (uint)t.a * 10 + t.b.x * 100 + WaveActiveAllEqual(s) * 1000
        + WaveActiveAllEqual(same) * 10000 + eq._m01 * 100000 + (eq._m00 ? 1000000 : 0) + arr2[0] * 10000000;
}
"#;
    // first._m00 = 0 (lane 0), t = lane 3's struct (3, (6, 7)), s differs
    // between lanes, `same` does not, eq = ((false, true), (true, true)),
    // arr2 = lane 5's array.
    let out = run_words(
        source,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 8])],
        8,
    )
    .remove(0);
    assert_eq!(out, [50_110_630; 8]);
}
