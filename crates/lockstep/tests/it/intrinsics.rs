//! Every SM 6.0 wave intrinsic at every wave size under several active sets,
//! checked against the reference model in lockstep-wave, plus the
//! specification's own tables.

use lockstep::pipeline::Kind;
use lockstep::wave::{self, Mask};
use proptest::prelude::*;

use crate::harness::{WAVE_SIZES, buf, compile, run_compiled};

/// Threads in the one group these tests dispatch: 128 lanes make one wave
/// at the largest wave size and 32 waves at the smallest.
const THREADS: usize = 128;

/// A shader whose active lanes (those with `Active[gi] != 0`) write
/// `RESULT` (a `uint4`) for their lane.
fn shader(result: &str) -> String {
    format!(
        r#"
StructuredBuffer<uint> Active : register(t0);
StructuredBuffer<uint> Value : register(t1);
RWStructuredBuffer<uint4> Out : register(u0);

[numthreads({THREADS}, 1, 1)]
void main(uint gi : SV_GroupIndex)
{{
    uint v = Value[gi];
    if (Active[gi] != 0)
    {{
        Out[gi] = {result};
    }}
}}
"#
    )
}

/// The expected `uint4` of one lane, from the lane values of its wave.
type Reference = fn(values: &[u32], mask: Mask, lane: usize) -> [u32; 4];

struct Case {
    name: &'static str,
    result: &'static str,
    reference: Reference,
    /// The case reads lanes other than active ones (only valid when every
    /// lane is active).
    all_active_only: bool,
}

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

fn i(x: u32) -> i32 {
    x as i32
}

fn x(v: u32) -> [u32; 4] {
    [v, 0, 0, 0]
}

fn map<T>(values: &[u32], g: impl Fn(u32) -> T) -> Vec<T> {
    values.iter().map(|&v| g(v)).collect()
}

fn bools(values: &[u32]) -> Vec<bool> {
    map(values, |v| v & 1 != 0)
}

macro_rules! case {
    ($name:expr, $result:expr, |$v:ident, $m:ident, $l:ident| $body:expr) => {
        Case {
            name: $name,
            result: $result,
            reference: |$v, $m, $l| {
                let _ = (&$v, $m, $l);
                $body
            },
            all_active_only: false,
        }
    };
}

fn cases() -> Vec<Case> {
    vec![
        case!(
            "WaveIsFirstLane",
            "uint4(WaveIsFirstLane(), 0, 0, 0)",
            |v, m, l| x(wave::is_first_lane(m, l) as u32)
        ),
        case!(
            "WaveGetLaneIndex",
            "uint4(WaveGetLaneIndex(), 0, 0, 0)",
            |v, m, l| x(l as u32)
        ),
        case!(
            "WaveGetLaneCount",
            "uint4(WaveGetLaneCount(), 0, 0, 0)",
            |v, m, l| x(v.len() as u32)
        ),
        case!(
            "WaveActiveAnyTrue",
            "uint4(WaveActiveAnyTrue((v & 1) != 0), 0, 0, 0)",
            |v, m, l| x(wave::active_any_true(&bools(v), m) as u32)
        ),
        case!(
            "WaveActiveAllTrue",
            "uint4(WaveActiveAllTrue((v & 1) != 0), 0, 0, 0)",
            |v, m, l| x(wave::active_all_true(&bools(v), m) as u32)
        ),
        case!(
            "WaveActiveBallot",
            "WaveActiveBallot((v & 1) != 0)",
            |v, m, l| wave::active_ballot(&bools(v), m)
        ),
        case!(
            "WaveReadLaneFirst uint",
            "uint4(WaveReadLaneFirst(v), 0, 0, 0)",
            |v, m, l| x(wave::read_lane_first(v, m).unwrap())
        ),
        case!(
            "WaveReadLaneFirst float3",
            "asuint(float4(WaveReadLaneFirst(float3(asfloat(v), 1.5, -asfloat(v))), 0))",
            |v, m, l| {
                let first = f(wave::read_lane_first(v, m).unwrap());
                [first.to_bits(), 1.5f32.to_bits(), (-first).to_bits(), 0]
            }
        ),
        case!(
            "WaveReadLaneAt uniform",
            "uint4(WaveReadLaneAt(v, WaveReadLaneFirst(WaveGetLaneIndex())), 0, 0, 0)",
            |v, m, l| {
                x(wave::read_lane_at(
                    v,
                    wave::first_active_lane(m).unwrap() as u32,
                ))
            }
        ),
        Case {
            name: "WaveReadLaneAt shuffle",
            result: "uint4(WaveReadLaneAt(v, WaveGetLaneIndex() ^ 1), 0, 0, 0)",
            reference: |v, _m, l| x(wave::read_lane_at(v, (l ^ 1) as u32)),
            all_active_only: true,
        },
        case!(
            "WaveActiveAllEqual uint2",
            "uint4(WaveActiveAllEqual(uint2(v & 1, 7)), 0, 0)",
            |v, m, l| {
                [
                    wave::active_all_equal(&map(v, |a| a & 1), m) as u32,
                    1,
                    0,
                    0,
                ]
            }
        ),
        case!(
            "WaveActiveCountBits",
            "uint4(WaveActiveCountBits((v & 1) != 0), 0, 0, 0)",
            |v, m, l| x(wave::active_count_bits(&bools(v), m))
        ),
        case!(
            "WaveActiveSum uint",
            "uint4(WaveActiveSum(v), 0, 0, 0)",
            |v, m, l| x(wave::active_sum(v, m))
        ),
        case!(
            "WaveActiveSum int2",
            "uint4(asuint(WaveActiveSum(int2(asint(v), -asint(v)))), 0, 0)",
            |v, m, l| {
                let s = wave::active_sum(&map(v, i), m);
                [s as u32, s.wrapping_neg() as u32, 0, 0]
            }
        ),
        case!(
            "WaveActiveSum float",
            "uint4(asuint(WaveActiveSum(asfloat(v))), 0, 0, 0)",
            |v, m, l| x(wave::active_sum(&map(v, f), m).to_bits())
        ),
        case!(
            "WaveActiveProduct uint",
            "uint4(WaveActiveProduct(v), 0, 0, 0)",
            |v, m, l| x(wave::active_product(v, m))
        ),
        case!(
            "WaveActiveProduct float",
            "uint4(asuint(WaveActiveProduct(asfloat(v))), 0, 0, 0)",
            |v, m, l| x(wave::active_product(&map(v, f), m).to_bits())
        ),
        case!(
            "WaveActiveBitAnd uint",
            "uint4(WaveActiveBitAnd(v), 0, 0, 0)",
            |v, m, l| x(wave::active_bit_and(v, m))
        ),
        case!(
            "WaveActiveBitOr int",
            "uint4(asuint(WaveActiveBitOr(asint(v))), 0, 0, 0)",
            |v, m, l| x(wave::active_bit_or(&map(v, i), m) as u32)
        ),
        case!(
            "WaveActiveBitXor uint3",
            "uint4(WaveActiveBitXor(uint3(v, v >> 3, 5)), 0)",
            |v, m, l| {
                [
                    wave::active_bit_xor(v, m),
                    wave::active_bit_xor(&map(v, |a| a >> 3), m),
                    wave::active_bit_xor(&vec![5; v.len()], m),
                    0,
                ]
            }
        ),
        case!(
            "WaveActiveMin int",
            "uint4(asuint(WaveActiveMin(asint(v))), 0, 0, 0)",
            |v, m, l| x(wave::active_min(&map(v, i), m) as u32)
        ),
        case!(
            "WaveActiveMin float",
            "uint4(asuint(WaveActiveMin(asfloat(v))), 0, 0, 0)",
            |v, m, l| x(wave::active_min(&map(v, f), m).to_bits())
        ),
        case!(
            "WaveActiveMax uint",
            "uint4(WaveActiveMax(v), 0, 0, 0)",
            |v, m, l| x(wave::active_max(v, m))
        ),
        case!(
            "WaveActiveMax float",
            "uint4(asuint(WaveActiveMax(asfloat(v))), 0, 0, 0)",
            |v, m, l| x(wave::active_max(&map(v, f), m).to_bits())
        ),
        case!(
            "WavePrefixCountBits",
            "uint4(WavePrefixCountBits((v & 1) != 0), 0, 0, 0)",
            |v, m, l| x(wave::prefix_count_bits(&bools(v), m, l))
        ),
        case!(
            "WavePrefixSum uint",
            "uint4(WavePrefixSum(v), 0, 0, 0)",
            |v, m, l| x(wave::prefix_sum(v, m, l))
        ),
        case!(
            "WavePrefixSum float",
            "uint4(asuint(WavePrefixSum(asfloat(v))), 0, 0, 0)",
            |v, m, l| x(wave::prefix_sum(&map(v, f), m, l).to_bits())
        ),
        case!(
            "WavePrefixProduct int",
            "uint4(asuint(WavePrefixProduct(asint(v))), 0, 0, 0)",
            |v, m, l| x(wave::prefix_product(&map(v, i), m, l) as u32)
        ),
        case!(
            "WavePrefixProduct float",
            "uint4(asuint(WavePrefixProduct(asfloat(v))), 0, 0, 0)",
            |v, m, l| x(wave::prefix_product(&map(v, f), m, l).to_bits())
        ),
    ]
}

/// Lane values: small floats and mixed integers, so float and integer
/// interpretations are both interesting.
fn values(seed: u32) -> Vec<u32> {
    (0..THREADS as u32)
        .map(|t| {
            let h = (t.wrapping_mul(2654435761) ^ seed).rotate_left(7);
            if t % 2 == 0 {
                ((h % 17) as f32 * 0.25 - 1.5).to_bits()
            } else {
                h
            }
        })
        .collect()
}

/// Whether lane `lane` of a wave of `w` lanes is active.
type ActiveSet = fn(lane: usize, w: usize) -> bool;

fn active_sets() -> Vec<(&'static str, ActiveSet)> {
    vec![
        ("all", |_, _| true),
        ("every other lane", |lane, _| lane % 2 == 0),
        ("every third lane", |lane, _| lane % 3 == 0),
        ("only lane 0", |lane, _| lane == 0),
        ("only the last lane", |lane, w| lane == w - 1),
    ]
}

/// Runs one case and compares every active lane with the reference.
fn check_case(
    case: &Case,
    shader: &lockstep::Shader,
    w: usize,
    active: &[bool],
    vals: &[u32],
) -> Result<(), String> {
    let act: Vec<u32> = active.iter().map(|&a| a as u32).collect();
    let out = run_compiled(
        shader,
        [1, 1, 1],
        &[
            buf("Active", Kind::StructuredBuffer, 0, act),
            buf("Value", Kind::StructuredBuffer, 1, vals.to_vec()),
            buf(
                "Out",
                Kind::RwStructuredBuffer,
                0,
                vec![0xDEAD; THREADS * 4],
            ),
        ],
        w as u32,
    );
    for t in 0..THREADS {
        let (wave_index, lane) = (t / w, t % w);
        let lanes = wave_index * w..(wave_index + 1) * w;
        let mask: Mask = lanes
            .clone()
            .filter(|&u| active[u])
            .fold(0, |m, u| m | 1 << (u - wave_index * w));
        let got = &out[2][t * 4..t * 4 + 4];
        let want = if active[t] {
            (case.reference)(&vals[lanes], mask, lane)
        } else {
            [0xDEAD; 4]
        };
        if got != want {
            return Err(format!(
                "{} at wave size {w}, thread {t}: got {got:08x?}, want {want:08x?}",
                case.name
            ));
        }
    }
    Ok(())
}

#[test]
fn every_intrinsic_at_every_wave_size_and_active_set() {
    let vals = values(0x5eed);
    for case in cases() {
        let shader = compile(&shader(case.result), &Default::default());
        for w in WAVE_SIZES {
            let w = w as usize;
            for (set_name, set) in active_sets() {
                if case.all_active_only && set_name != "all" {
                    continue;
                }
                let active: Vec<bool> = (0..THREADS).map(|t| set(t % w, w)).collect();
                if let Err(e) = check_case(&case, &shader, w, &active, &vals) {
                    panic!("{e} (active set: {set_name})");
                }
            }
        }
    }
}

/// Float minimums and maximums on the values where the order of a fold
/// could show: waves of NaNs only (with different payloads and signs),
/// NaNs among numbers, and mixes of -0 and +0. The engine folds full waves
/// of numbers in any order; the reference folds in lane order.
#[test]
fn float_min_and_max_agree_with_the_reference_on_nans_and_signed_zeros() {
    let nan = |t: u32| {
        if t.is_multiple_of(3) {
            0xFFC0_0000 | t
        } else {
            0x7F80_0001 + t
        }
    };
    let hash = |t: u32| t.wrapping_mul(2654435761).rotate_left(11);
    let value = |t: u32, pattern: u32| match pattern {
        0 => nan(t),
        1 => [0x8000_0000, 0, 0, 0x8000_0000, 0][(hash(t) % 5) as usize],
        2 => {
            if hash(t).is_multiple_of(3) {
                nan(t)
            } else {
                [(hash(t) % 9) as f32 - 4.0, f32::INFINITY, f32::NEG_INFINITY][(t % 3) as usize]
                    .to_bits()
            }
        }
        _ => {
            if hash(t) % 2 == 0 {
                nan(t)
            } else {
                [0, 0x8000_0000][(t % 2) as usize]
            }
        }
    };
    let all = cases();
    for name in ["WaveActiveMin float", "WaveActiveMax float"] {
        let case = all
            .iter()
            .find(|c| c.name == name)
            .expect("the case exists");
        let shader = compile(&shader(case.result), &Default::default());
        for w in WAVE_SIZES {
            let w = w as usize;
            for rotation in 0..4 {
                let vals: Vec<u32> = (0..THREADS as u32)
                    .map(|t| value(t, (t / w as u32 + rotation) % 4))
                    .collect();
                for (set_name, set) in active_sets().into_iter().take(2) {
                    let active: Vec<bool> = (0..THREADS).map(|t| set(t % w, w)).collect();
                    if let Err(e) = check_case(case, &shader, w, &active, &vals) {
                        panic!("{e} (rotation {rotation}, active set: {set_name})");
                    }
                }
            }
        }
    }
}

/// The specification's tables: a wave of 8 with lanes 0 and 4 inactive, and
/// the value 2 on every lane.
#[test]
fn spec_prefix_tables() {
    let source = r#"
RWStructuredBuffer<uint> Sum : register(u0);
RWStructuredBuffer<uint> Product : register(u1);
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    if (gi != 0 && gi != 4)
    {
        uint numToSum = 2;
        uint prefixSum = WavePrefixSum(numToSum);
        uint numToMultiply = 2;
        uint prefixProduct = WavePrefixProduct(numToMultiply);
        Sum[gi] = prefixSum;
        Product[gi] = prefixProduct;
    }
}
"#;
    let shader = compile(source, &Default::default());
    let out = run_compiled(
        &shader,
        [1, 1, 1],
        &[
            buf("Sum", Kind::RwStructuredBuffer, 0, vec![99; 8]),
            buf("Product", Kind::RwStructuredBuffer, 1, vec![99; 8]),
        ],
        8,
    );
    // Lanes 0 and 4 are inactive: their elements keep the fill value 99.
    assert_eq!(out[0], [99, 0, 2, 4, 99, 6, 8, 10]);
    assert_eq!(out[1], [99, 1, 2, 4, 99, 8, 16, 32]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random wave sizes, active sets and values: the engine agrees with
    /// the reference model for every case.
    #[test]
    fn engine_matches_reference(w_log in 2u32..=7, active_bits in prop::collection::vec(any::<bool>(), THREADS), seed in any::<u32>(), case_index in 0usize..64) {
        let all_cases = cases();
        let case = &all_cases[case_index % all_cases.len()];
        let w = 1usize << w_log;
        let mut active = active_bits;
        if case.all_active_only {
            active = vec![true; THREADS];
        }
        let shader = compile(&shader(case.result), &Default::default());
        let vals = values(seed);
        prop_assert!(check_case(case, &shader, w, &active, &vals).is_ok(), "{:?}", check_case(case, &shader, w, &active, &vals));
    }
}

/// DXC's wave reductions, scans and quad reads take `numeric<>`: a matrix
/// too, component by component.
#[test]
fn wave_operations_take_matrices() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint2x2 m = uint2x2(gi, 1, 2, gi * 2);
    uint2x2 s = WaveActiveSum(m);
    uint2x2 p = WavePrefixSum(m);
    uint2x2 q = QuadReadAcrossX(m);
    uint2x2 x = WaveMultiPrefixProduct(m + 1, uint4(0xFF, 0, 0, 0));
    Out[gi * 4] = s._11 + 1000 * s._22;
    Out[gi * 4 + 1] = p._11 + 1000 * p._12;
    Out[gi * 4 + 2] = q._22;
    Out[gi * 4 + 3] = x._22;
}
"#;
    let shader = compile(source, &lockstep::CompileOptions::default());
    let out = run_compiled(
        &shader,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 32])],
        8,
    );
    for l in 0..8u32 {
        // Sums over lanes 0..8 of l and 2l; prefix sums over the lanes
        // below; the lane across the quad's x; the product of 2l + 1 below.
        let below = 0..l;
        let product: u32 = below.clone().map(|k| 2 * k + 1).product();
        let want = [
            28 + 1000 * 56,
            below.clone().sum::<u32>() + 1000 * l,
            2 * (l ^ 1),
            product,
        ];
        assert_eq!(out[0][4 * l as usize..4 * l as usize + 4], want, "lane {l}");
    }
}
