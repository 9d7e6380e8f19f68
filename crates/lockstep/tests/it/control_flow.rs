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
