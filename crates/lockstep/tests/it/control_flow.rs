//! Divergence and reconvergence: which lanes a wave op sees inside if/else,
//! switch fallthrough, loops with break and continue, early return and
//! short-circuit operators. Expectations are derived by hand or by a plain
//! lane-by-lane simulation written here.

use lockstep::pipeline::Kind;

use crate::harness::{WAVE_SIZES, buf, run_words};

fn out_only(source: &str, threads: usize, w: u32) -> Vec<u32> {
    run_words(
        source,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; threads])],
        w,
    )
    .remove(0)
}

#[test]
fn if_else_then_reconverge() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(16, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint r;
    if (gi % 2 == 0)
        r = WaveActiveCountBits(true);
    else
        r = WavePrefixCountBits(true) + 100;
    Out[gi] = r * 1000 + WaveActiveCountBits(true);
}
"#;
    let out = out_only(source, 16, 8);
    // Even lanes see the 4 even lanes of their wave; odd lanes count the odd
    // lanes below them; after the if all 8 lanes are active again.
    let want: Vec<u32> = (0..16)
        .map(|t| if t % 2 == 0 { 4 } else { 100 + (t % 8) / 2 } * 1000 + 8)
        .collect();
    assert_eq!(out, want);
}

#[test]
fn switch_with_fallthrough() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint r = 0;
    switch (gi % 4)
    {
    case 0:
        r += 1;
    case 1:
        r += WaveActiveCountBits(true) * 10;
        break;
    case 2:
        r = 7;
        break;
    default:
        r = WaveActiveCountBits(true) * 100;
    }
    Out[gi] = r;
}
"#;
    // Case 1's body runs for the lanes of case 0 (falling through) and of
    // case 1: lanes 0, 1, 4, 5.
    assert_eq!(out_only(source, 8, 8), [41, 40, 7, 200, 41, 40, 7, 200]);
    // At wave size 4 each wave has one lane per case.
    assert_eq!(out_only(source, 8, 4), [21, 20, 7, 100, 21, 20, 7, 100]);
}

/// A plain simulation of the loop below: per wave, the lanes that reach
/// the wave op in each iteration.
fn loop_reference(threads: usize, w: usize) -> Vec<u32> {
    let mut out = vec![0u32; threads];
    for wave in 0..threads.div_ceil(w) {
        let lanes: Vec<usize> = (wave * w..((wave + 1) * w).min(threads)).collect();
        let mut running: Vec<usize> = lanes.clone();
        for i in 0..10u32 {
            // `continue` skips the rest of this iteration; `break` leaves.
            let not_continued: Vec<usize> = running
                .iter()
                .copied()
                .filter(|&t| i != t as u32 % 5)
                .collect();
            let broke: Vec<usize> = not_continued
                .iter()
                .copied()
                .filter(|&t| i > t as u32 % 7 + 2)
                .collect();
            let reached: Vec<usize> = not_continued
                .iter()
                .copied()
                .filter(|t| !broke.contains(t))
                .collect();
            for &t in &reached {
                out[t] += reached.len() as u32;
            }
            running.retain(|t| !broke.contains(t));
        }
    }
    out
}

#[test]
fn loop_with_break_and_continue() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(24, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint acc = 0;
    for (uint i = 0; i < 10; i++)
    {
        if (i == gi % 5)
            continue;
        if (i > gi % 7 + 2)
            break;
        acc += WaveActiveCountBits(true);
    }
    Out[gi] = acc;
}
"#;
    for w in WAVE_SIZES {
        assert_eq!(
            out_only(source, 24, w),
            loop_reference(24, w as usize),
            "wave size {w}"
        );
    }
}

#[test]
fn while_and_do_while() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint n = gi;
    uint steps = 0;
    while (n != 0) { n = n / 2; steps++; }
    uint k = 0;
    do { k += 3; } while (k < gi);
    Out[gi] = steps * 100 + k;
}
"#;
    // steps = bit length of gi; k = smallest multiple of 3 that is >= gi (at least 3).
    let want: Vec<u32> = (0..8u32)
        .map(|g| (32 - g.leading_zeros()) * 100 + (g.div_ceil(3) * 3).max(3))
        .collect();
    assert_eq!(out_only(source, 8, 4), want);
}

#[test]
fn early_return_from_entry_and_function() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
uint f(uint x)
{
    if (x % 2 == 0)
        return WaveActiveCountBits(true);
    return 100 + WaveActiveCountBits(true);
}
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    if (gi % 3 == 0)
    {
        Out[gi] = 1000 + WaveActiveCountBits(true);
        return;
    }
    // Lanes 1, 2, 4, 5, 7 remain: 2 and 4 even, 1, 5, 7 odd.
    Out[gi] = f(gi) + 10000 * WaveActiveCountBits(true);
}
"#;
    assert_eq!(
        out_only(source, 8, 8),
        [1003, 50103, 50002, 1003, 50002, 50103, 1003, 50103]
    );
}

/// A function that returns only at its end (or not at all) leaves no lane
/// behind, so its call is no construct: called in a divergent branch, it
/// writes the caller's active lanes only, and its wave operations see
/// them. A function with an early return keeps its construct.
#[test]
fn calls_that_return_at_their_end_leave_no_lanes() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
uint mix(uint a, uint b)
{
    uint t = a * 3u + WaveActiveCountBits(true);
    return t ^ b;
}
void bump(inout uint x, uint by)
{
    x += by;
}
uint capped(uint v)
{
    if (v > 20u)
        return 20u;
    return v;
}
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint r = 1000u;
    if (gi % 3 != 0)
    {
        r = mix(gi, 5u);
        bump(r, 100u);
    }
    Out[gi] = capped(r) + 10u * r;
}
"#;
    let shader = crate::harness::compile(source, &lockstep::CompileOptions::default());
    // The entry function's and `capped`'s.
    assert_eq!(shader.program.call_construct_count(), 2);
    // Lanes 1, 2, 4, 5, 7 take the branch (5 active): r = ((3 gi + 5) ^ 5)
    // + 100; lanes 0, 3, 6 keep 1000. capped(r) is 20 for all of them.
    let want: Vec<u32> = (0..8u32)
        .map(|gi| {
            let r = if gi % 3 != 0 {
                ((3 * gi + 5) ^ 5) + 100
            } else {
                1000
            };
            20 + 10 * r
        })
        .collect();
    for w in [4, 8] {
        // At wave 4, lanes 1 and 2 see 2 active lanes, lanes 4, 5 and 7 see 3.
        let want: Vec<u32> = if w == 4 {
            (0..8u32)
                .map(|gi| {
                    let active = if gi < 4 { 2 } else { 3 };
                    let r = if gi % 3 != 0 {
                        ((3 * gi + active) ^ 5) + 100
                    } else {
                        1000
                    };
                    20 + 10 * r
                })
                .collect()
        } else {
            want.clone()
        };
        assert_eq!(out_only(source, 8, w), want, "wave size {w}");
    }
}

/// Operations on constants fold, also where an inlined call's parameters
/// carry the constants: splitmix64's constant built from halves costs
/// nothing at run time, and the results are the hand-computed ones.
#[test]
fn operations_on_constants_fold_through_calls() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
uint64_t wide(uint hi, uint lo)
{
    uint64_t h = hi;
    uint64_t l = lo;
    return (h << 32) | l;
}
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint64_t k = wide(0x9E3779B9u, 0x7F4A7C15u) * 3ull;
    Out[gi] = uint(k >> 16) ^ gi;
}
"#;
    let shader = crate::harness::compile(source, &lockstep::CompileOptions::default());
    // Only the `^ gi` is left.
    assert_eq!(shader.program.operation_count(), 1);
    let k = 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(3);
    let want: Vec<u32> = (0..8u32).map(|gi| (k >> 16) as u32 ^ gi).collect();
    assert_eq!(out_only(source, 8, 8), want);
}

#[test]
fn short_circuit_operators() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    bool even = gi % 2 == 0;
    bool a = even && (WaveActiveCountBits(true) == 4);
    bool o = even || (WaveActiveCountBits(true) == 4);
    uint c = (gi < 3) ? WaveActiveCountBits(true) : 50 + WaveActiveCountBits(true);
    Out[gi] = c * 100 + uint(a) * 10 + uint(o);
}
"#;
    // `&&` evaluates its right side on the 4 even lanes, `||` on the 4 odd
    // lanes; `?:` splits 3 / 5.
    let want: Vec<u32> = (0..8u32)
        .map(|g| {
            let c = if g < 3 { 3 } else { 55 };
            let a = u32::from(g % 2 == 0);
            c * 100 + a * 10 + 1
        })
        .collect();
    assert_eq!(out_only(source, 8, 8), want);
}

/// A `?:` whose arms are cheap and have no effects runs both arms on every
/// lane and picks per lane, with no branch, and so do `&&` and `||` with
/// such a right side, and an `if` whose branches only assign such values
/// to locals; an arm with a wave op, a memory read, an assignment or a
/// call keeps its branch, as does an `if` that stores to memory or does
/// more. Either way each
/// lane gets its own arm's value, and a wave op sees the lanes that take
/// its arm.
#[test]
fn cheap_conditionals_pick_without_branching() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
groupshared uint Shared[8];

uint twice(uint v) { return v * 2u; }

[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    Shared[gi] = gi * 10u;
    GroupMemoryBarrierWithGroupSync();
    float f = (float)gi - 3.5f;
    uint n = gi;
    // No branch: arithmetic, casts, builtins, vectors, nested, select().
    uint a = gi % 3u == 0u ? gi * 7u : gi + 100u;
    int b = f < 0.0f ? (int)floor(f) : (int)min(f, 2.0f);
    uint2 v = gi > 4u ? uint2(gi, 1u) : uint2(2u, gi);
    uint c = gi < 2u ? 1u : (gi < 5u ? 2u : 3u);
    uint s = select(gi >= 6u, 9u, gi);
    // `&&` and `||` with cheap right sides: no branch either.
    uint r = (gi >= 2u && gi < 6u ? 1u : 0u) + (gi == 0u || f > 3.0f ? 2u : 0u);
    // Nor `if`s that assign cheap values to locals.
    uint q = gi;
    if (gi > 4u)
        q = q * 3u;
    else
    {
        q += 1u;
        r += 100u;
    }
    if (!(q < 4u))
        q ^= 1u;
    // These keep theirs: a store to memory, too much work.
    if (gi == 7u)
        Shared[0] = 5u;
    if (q > 10u)
    {
        q = q * 5u + 1u;
        r = r * 3u + q;
        q = (q ^ r) + 2u;
    }
    // 64-bit values (not narrowed to 32 bits by the select).
    uint64_t x = ((uint64_t)gi << 40) | 3u;
    uint64_t y = 5u;
    uint64_t big = gi > 2u ? x : y;
    double dx = (double)gi + 0.25;
    double dy = 0.5;
    double d = gi > 1u ? dx : dy;
    // Branches: a wave op, a memory read, an assignment, a call.
    uint w = gi < 3u ? WaveActiveCountBits(true) : 0u;
    uint m = gi % 2u == 0u ? Shared[7u - gi] : 1u;
    uint k = gi > 5u ? n++ : 0u;
    uint t = gi > 3u ? twice(gi) : 5u;
    Out[gi] = a + (uint)(b + 10) * 1000u + v.x * 100000u + v.y * 10000000u
        + c * 100000000u + s * 11u + w * 3u + m * 13u + (k + n) * 17u + t * 19u
        + (uint)(big >> 40) * 23u + (uint)big * 29u + (uint)(d * 4.0) * 31u + r * 37u + q * 41u;
}
"#;
    let shader = crate::harness::compile(source, &lockstep::CompileOptions::default());
    assert_eq!(shader.program.branch_count(), 6);
    let want: Vec<u32> = (0..8u32)
        .map(|g| {
            let f = g as f32 - 3.5;
            let a = if g % 3 == 0 { g * 7 } else { g + 100 };
            let b = if f < 0.0 {
                f.floor() as i32
            } else {
                f.min(2.0) as i32
            };
            let (vx, vy) = if g > 4 { (g, 1) } else { (2, g) };
            let c: u32 = if g < 2 {
                1
            } else if g < 5 {
                2
            } else {
                3
            };
            let s = if g >= 6 { 9 } else { g };
            let w = if g < 3 { 3 } else { 0 };
            let m = if g % 2 == 0 { (7 - g) * 10 } else { 1 };
            let (k, n) = if g > 5 { (g, g + 1) } else { (0, g) };
            let t = if g > 3 { g * 2 } else { 5 };
            let big: u64 = if g > 2 { (u64::from(g) << 40) | 3 } else { 5 };
            let d = if g > 1 { f64::from(g) + 0.25 } else { 0.5 };
            let mut r = u32::from((2..6).contains(&g)) + 2 * u32::from(g == 0 || f > 3.0);
            let mut q = if g > 4 {
                g * 3
            } else {
                r += 100;
                g + 1
            };
            if q >= 4 {
                q ^= 1;
            }
            if q > 10 {
                q = q * 5 + 1;
                r = r * 3 + q;
                q = (q ^ r) + 2;
            }
            a.wrapping_add(((b + 10) as u32).wrapping_mul(1000))
                .wrapping_add(vx.wrapping_mul(100_000))
                .wrapping_add(vy.wrapping_mul(10_000_000))
                .wrapping_add(c.wrapping_mul(100_000_000))
                .wrapping_add(s * 11 + w * 3 + m * 13 + (k + n) * 17 + t * 19)
                .wrapping_add((big >> 40) as u32 * 23 + big as u32 * 29 + (d * 4.0) as u32 * 31)
                .wrapping_add(r * 37)
                .wrapping_add(q * 41)
        })
        .collect();
    for w in WAVE_SIZES {
        assert_eq!(out_only(source, 8, w), want, "wave {w}");
    }
}

/// A branch on a comparison whose result nothing else reads compares by
/// itself (the `if`s, a `for` loop's test and `if (c) break;`), on
/// integers, signed integers and floats, against registers and constants,
/// over 256 pairs of words that include NaN, both zeroes, infinities,
/// subnormals and the extremes of `int` and `uint`: every lane takes the
/// branch where the comparison holds, at every wave size (128 lanes fill
/// both halves of the lane mask). A comparison read again afterwards keeps
/// its register.
#[test]
fn branches_on_comparisons() {
    let source = r#"
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(128, 1, 1)]
void main(uint dtid : SV_DispatchThreadID)
{
    uint a = In[dtid * 2u];
    uint b = In[dtid * 2u + 1u];
    int sa = (int)a;
    int sb = (int)b;
    float fa = asfloat(a);
    float fb = asfloat(b);
    uint o = dtid * 34u;
    if (a == b) Out[o + 0u] = 1u;
    if (a != b) Out[o + 1u] = 1u;
    if (a < b) Out[o + 2u] = 1u;
    if (a <= b) Out[o + 3u] = 1u;
    if (a > b) Out[o + 4u] = 1u;
    if (a >= b) Out[o + 5u] = 1u;
    if (sa < sb) Out[o + 6u] = 1u;
    if (sa <= sb) Out[o + 7u] = 1u;
    if (sa > sb) Out[o + 8u] = 1u;
    if (sa >= sb) Out[o + 9u] = 1u;
    if (fa == fb) Out[o + 10u] = 1u;
    if (fa != fb) Out[o + 11u] = 1u;
    if (fa < fb) Out[o + 12u] = 1u;
    if (fa <= fb) Out[o + 13u] = 1u;
    if (fa > fb) Out[o + 14u] = 1u;
    if (fa >= fb) Out[o + 15u] = 1u;
    if (a == 7u) Out[o + 16u] = 1u;
    if (a != 0u) Out[o + 17u] = 1u;
    if (a < 0x80000000u) Out[o + 18u] = 1u;
    if (a >= 3u) Out[o + 19u] = 1u;
    if (sa < -2) Out[o + 20u] = 1u;
    if (sa > 0) Out[o + 21u] = 1u;
    if (sa <= 1) Out[o + 22u] = 1u;
    if (sa >= -3) Out[o + 23u] = 1u;
    if (fa < 0.5f) Out[o + 24u] = 1u;
    if (fa >= -1.0f) Out[o + 25u] = 1u;
    if (fa != 1.0f) Out[o + 26u] = 1u;
    if (fa == -0.0f) Out[o + 27u] = 1u;
    if (!(fa <= 1.0f)) Out[o + 28u] = 1u;
    uint n = 0u;
    for (uint i = 0u; i < (a & 15u); ++i)
        n += 3u;
    Out[o + 29u] = n;
    int m = 0;
    while (true)
    {
        if (m >= sb % 5)
            break;
        m++;
    }
    Out[o + 30u] = (uint)m;
    // Read again after the branch: not fused.
    bool below = b < 9u;
    if (below) Out[o + 31u] = 1u;
    Out[o + 32u] = below ? 5u : 6u;
    Out[o + 33u] = WaveActiveCountBits(sa > sb);
}
"#;
    let shader = crate::harness::compile(source, &lockstep::CompileOptions::default());
    // 29 `if`s, the `for` loop's test and the `break`.
    assert_eq!(shader.program.comparing_branch_count(), 31);
    let words: [u32; 16] = [
        0,
        1,
        3,
        7,
        0x7FFF_FFFF,
        0x8000_0000, // also -0.0
        0xFFFF_FFFF, // also a NaN
        0xFFFF_FFFD,
        0x3F00_0000, // 0.5
        0x3F80_0000, // 1.0
        0xBF80_0000, // -1.0
        0x7FC0_0000, // NaN
        0x7F80_0000, // +inf
        0xFF80_0000, // -inf
        0x0000_0008, // a subnormal
        0x8000_0009, // a negative subnormal
    ];
    let pairs: Vec<(u32, u32)> = words
        .iter()
        .flat_map(|&a| words.iter().map(move |&b| (a, b)))
        .collect();
    let input: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    let lane = |a: u32, b: u32| -> [u32; 33] {
        let (sa, sb) = (a as i32, b as i32);
        let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
        let flags = [
            a == b,
            a != b,
            a < b,
            a <= b,
            a > b,
            a >= b,
            sa < sb,
            sa <= sb,
            sa > sb,
            sa >= sb,
            fa == fb,
            fa != fb,
            fa < fb,
            fa <= fb,
            fa > fb,
            fa >= fb,
            a == 7,
            a != 0,
            a < 0x8000_0000,
            a >= 3,
            sa < -2,
            sa > 0,
            sa <= 1,
            sa >= -3,
            fa < 0.5,
            fa >= -1.0,
            fa != 1.0,
            fa == -0.0,
            // Not `fa > 1.0`: true for NaN.
            fa.partial_cmp(&1.0) != Some(std::cmp::Ordering::Less)
                && fa.partial_cmp(&1.0) != Some(std::cmp::Ordering::Equal),
        ];
        let mut out = [0; 33];
        for (o, f) in out.iter_mut().zip(flags) {
            *o = u32::from(f);
        }
        out[29] = 3 * (a & 15);
        out[30] = (sb % 5).max(0) as u32;
        out[31] = u32::from(b < 9);
        out[32] = if b < 9 { 5 } else { 6 };
        out
    };
    for w in WAVE_SIZES {
        let out = run_words(
            source,
            [2, 1, 1],
            &[
                buf("In", Kind::StructuredBuffer, 0, input.clone()),
                buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 256 * 34]),
            ],
            w,
        )
        .remove(1);
        for (t, &(a, b)) in pairs.iter().enumerate() {
            let got = &out[t * 34..t * 34 + 34];
            assert_eq!(
                got[..33],
                lane(a, b),
                "wave {w}, lane {t}: {a:#x} against {b:#x}"
            );
            // The wave's count of lanes where `sa > sb`.
            let wave = t / w as usize * w as usize;
            let count = pairs[wave..wave + w as usize]
                .iter()
                .filter(|&&(a, b)| (a as i32) > b as i32)
                .count() as u32;
            assert_eq!(got[33], count, "wave {w}, lane {t}");
        }
    }
}

/// A comparison that several branches in a row read, a wave vote's exit
/// and an `if` (`more = i < n; if (!WaveActiveAnyTrue(more)) break; if
/// (more) …`), is compared by each branch and needs no register. The
/// votes decide when each wave leaves its loop, so the iteration counts
/// are each wave's; a `float` comparison with NaNs, under `AllTrue` and a
/// negated `if`, keeps its NaN lanes looping. A comparison read again
/// after its branches keeps its register.
#[test]
fn comparisons_read_by_several_branches() {
    let source = r#"
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint dtid : SV_DispatchThreadID)
{
    uint a = In[dtid * 2u];
    uint b = In[dtid * 2u + 1u];
    uint n = a % 13u;
    uint x = a;
    uint iters = 0u;
    for (uint i = 0u; ; ++i)
    {
        bool more = i < n;
        if (!WaveActiveAnyTrue(more))
            break;
        if (more)
        {
            x = x * 3u + i;
            x ^= x >> 7;
            x = (x << 3) | (x >> 29);
            x += i * 0x9E3779B9u;
        }
        iters += 1u;
    }
    float f = asfloat(b);
    float level = -2.0f;
    uint steps = 0u;
    uint rounds = 0u;
    uint acc = b;
    for (int s = 0; s < 8; ++s)
    {
        bool done = f <= level;
        if (WaveActiveAllTrue(done))
            break;
        if (!done)
        {
            steps += 1u;
            acc = acc * 5u + steps;
            acc ^= acc >> 3;
            acc += 0x1234u;
        }
        rounds += 1u;
        level += 1.0f;
    }
    bool big = a > b;
    if (big)
        x ^= 0x55u;
    Out[dtid * 6u + 0u] = x;
    Out[dtid * 6u + 1u] = iters;
    Out[dtid * 6u + 2u] = steps;
    Out[dtid * 6u + 3u] = rounds;
    Out[dtid * 6u + 4u] = big ? 7u : 9u;
    Out[dtid * 6u + 5u] = acc;
}
"#;
    let shader = crate::harness::compile(source, &lockstep::CompileOptions::default());
    // Two branches on `i < n`, the `for` test and two branches on `f <=
    // level`; `a > b` is read again. The second of each pair takes the
    // first one's lanes.
    assert_eq!(shader.program.comparing_branch_count(), 5);
    assert_eq!(shader.program.reused_test_count(), 2);
    let lanes = 128usize;
    let floats = [
        -5.0f32,
        -2.0,
        -1.5,
        0.0,
        -0.0,
        0.25,
        1.0,
        3.0,
        5.5,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    // Lanes 80 to 87 are NaN-free and all at or below -2: their waves of up
    // to 8 lanes leave the second loop at once.
    let pairs: Vec<(u32, u32)> = (0..lanes as u32)
        .map(|t| {
            let a = t.wrapping_mul(0x9E37_79B9) >> 7;
            let f = if (80..88).contains(&t) {
                -2.0 - (t % 3) as f32
            } else {
                floats[(t as usize * 7) % floats.len()]
            };
            (a, f.to_bits())
        })
        .collect();
    let input: Vec<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    for w in WAVE_SIZES {
        let w = w as usize;
        let out = two_groups_in_out(source, &input, lanes * 6, w);
        // A group of 64 threads is one wave at wave size 128.
        let ww = w.min(64);
        for (t, &(a, b)) in pairs.iter().enumerate() {
            let wave = &pairs[t / ww * ww..][..ww];
            let n = a % 13;
            // The wave loops while any of its lanes has work left.
            let iters = wave.iter().map(|&(a, _)| a % 13).max().unwrap_or(0);
            let mut x = a;
            for i in 0..n {
                x = x.wrapping_mul(3).wrapping_add(i);
                x ^= x >> 7;
                x = x.rotate_left(3);
                x = x.wrapping_add(i.wrapping_mul(0x9E37_79B9));
            }
            // The wave leaves once every lane is at or below the level.
            let f = f32::from_bits(b);
            let rounds = (0..8)
                .find(|&s| {
                    let level = -2.0 + s as f32;
                    wave.iter().all(|&(_, b)| f32::from_bits(b) <= level)
                })
                .unwrap_or(8);
            let (mut steps, mut acc) = (0u32, b);
            for s in 0..rounds {
                // Done: at or below the level (never for NaN).
                let done = matches!(
                    f.partial_cmp(&(-2.0 + s as f32)),
                    Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
                );
                if !done {
                    steps += 1;
                    acc = acc.wrapping_mul(5).wrapping_add(steps);
                    acc ^= acc >> 3;
                    acc = acc.wrapping_add(0x1234);
                }
            }
            if a > b {
                x ^= 0x55;
            }
            let want = [x, iters, steps, rounds, if a > b { 7 } else { 9 }, acc];
            assert_eq!(out[t * 6..t * 6 + 6], want, "wave {w}, lane {t}");
        }
    }
}

/// `Out` (`out_words` words, zeroed) after two groups of `source` at wave
/// size `w`, reading `In`.
fn two_groups_in_out(source: &str, input: &[u32], out_words: usize, w: usize) -> Vec<u32> {
    run_words(
        source,
        [2, 1, 1],
        &[
            buf("In", Kind::StructuredBuffer, 0, input.to_vec()),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; out_words]),
        ],
        w as u32,
    )
    .remove(1)
}

/// A branch right after another with the same test takes that one's lanes
/// rather than comparing again, before the first one's vote: a run of
/// three (a vote to leave, a vote to enter, a plain `if`) on `i < n`, and
/// next to it branches that must compare for themselves (another
/// ordering, another operand), against Rust at every wave size.
#[test]
fn branches_take_the_lanes_of_the_branch_before() {
    let source = r#"
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint dtid : SV_DispatchThreadID)
{
    uint n = In[dtid] % 11u;
    uint m = In[dtid] % 7u;
    uint full = 0u;
    uint x = In[dtid];
    for (uint i = 0u; ; ++i)
    {
        bool more = i < n;
        if (!WaveActiveAnyTrue(more))
            break;
        if (WaveActiveAllTrue(more))
        {
            if (more)
                full += WaveActiveCountBits(true);
        }
        if (more)
            x = x * 3u + i;
    }
    uint y = 0u;
    uint z = 0u;
    for (uint j = 0u; ; ++j)
    {
        if (!WaveActiveAnyTrue(j < n))
            break;
        if (j <= n)
        {
            if (j < m)
                z += j + 1u;
            y += j;
        }
    }
    Out[dtid * 4u + 0u] = full;
    Out[dtid * 4u + 1u] = x;
    Out[dtid * 4u + 2u] = y;
    Out[dtid * 4u + 3u] = z;
}
"#;
    let shader = crate::harness::compile(source, &lockstep::CompileOptions::default());
    // `if (WaveActiveAllTrue(more))` and `if (more)` inside it take the
    // lanes of the vote to leave; the `if (more)` after them follows an
    // `IfEnd` (and becomes a select). `j <= n` compares for itself.
    assert_eq!(shader.program.reused_test_count(), 2);
    let lanes = 128usize;
    let input: Vec<u32> = (0..lanes as u32)
        .map(|t| t.wrapping_mul(0x9E37_79B9) >> 9)
        .collect();
    for w in WAVE_SIZES {
        let w = w as usize;
        let out = two_groups_in_out(source, &input, lanes * 4, w);
        // A group of 64 threads is one wave at wave size 128.
        let ww = w.min(64);
        for (t, &v) in input.iter().enumerate() {
            let wave = &input[t / ww * ww..][..ww];
            let (n, m) = (v % 11, v % 7);
            // Both loops run while some lane of the wave has `i < n`.
            let rounds = wave.iter().map(|&v| v % 11).max().unwrap_or(0);
            // Every lane of the wave is still looping, so all are true
            // while `i` is below the wave's smallest `n`, and each such
            // round counts the wave's lanes (64 at wave 128: one group).
            let full = wave.iter().map(|&v| v % 11).min().unwrap_or(0) * ww as u32;
            let mut x = v;
            for i in 0..n {
                x = x.wrapping_mul(3).wrapping_add(i);
            }
            let y: u32 = (0..rounds).filter(|&j| j <= n).sum();
            let z: u32 = (0..rounds)
                .filter(|&j| j <= n && j < m)
                .map(|j| j + 1)
                .sum();
            assert_eq!(out[t * 4..t * 4 + 4], [full, x, y, z], "wave {w}, lane {t}");
        }
    }
}

#[test]
fn partial_last_wave() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(20, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    Out[gi] = WaveActiveCountBits(true) * 1000 + WaveGetLaneCount() * 10 + (WaveActiveBallot(true).x == 0xF);
}
"#;
    // 20 threads at wave size 8: waves of 8, 8 and 4 lanes.
    let want: Vec<u32> = (0..20).map(|t| if t < 16 { 8080 } else { 4081 }).collect();
    assert_eq!(out_only(source, 20, 8), want);
}

/// `if (!c)` runs its branch on the lanes where `c` is false, and its else
/// branch on the others; an `if` without an else (or with an empty one)
/// reconverges all the same, including when no lane takes it.
#[test]
fn negated_conditions_and_missing_else_branches() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(16, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    bool low = (gi % 8) < 3;
    uint r = 0;
    if (!low)
        r = WaveActiveCountBits(true);
    else
        r = 100 + WavePrefixCountBits(true);
    if (!(gi < 100)) {
        r += 5000;
    }
    if (!low) {
        r += 10000 * WaveActiveCountBits(true);
    } else {
    }
    uint n = 0;
    for (uint i = 0; ; ++i) {
        if (!WaveActiveAnyTrue(i < gi % 4))
            break;
        ++n;
    }
    Out[gi] = r + 1000 * WaveActiveCountBits(true) + 100000 * n;
}
"#;
    for w in [4, 8, 16] {
        let out = out_only(source, 16, w);
        // Lanes with (gi % 8) >= 3 count themselves per wave; the others
        // count the low lanes below them. Every wave's loop runs as often as
        // its largest gi % 4 (3 once a wave has a lane with gi % 4 == 3).
        let want: Vec<u32> = (0..16u32)
            .map(|gi| {
                let wave: Vec<u32> = (gi / w * w..(gi / w + 1) * w).collect();
                let low = |t: u32| t % 8 < 3;
                let r = if low(gi) {
                    100 + wave.iter().filter(|&&t| t < gi && low(t)).count() as u32
                } else {
                    let highs = wave.iter().filter(|&&t| !low(t)).count() as u32;
                    highs + 10000 * highs
                };
                let n = wave.iter().map(|t| t % 4).max().unwrap_or(0);
                r + 1000 * w + 100000 * n
            })
            .collect();
        assert_eq!(out, want, "wave size {w}");
    }
}
