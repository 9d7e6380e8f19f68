//! Normal runs put several groups side by side (the same wave of each group
//! in one batch). Within a group that must be exactly the order of one
//! group at a time: these tests compare normal runs with checked runs
//! (which take one group at a time) and with hand-derived values, over
//! group counts that do not fill the last batch.

use lockstep::pipeline::Kind;
use lockstep::{CompileOptions, RunOptions};

use crate::harness::{WAVE_SIZES, buf, compile, pipeline};

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The `Out` buffer of a normal run and of a checked run.
fn normal_and_checked(
    source: &str,
    groups: u32,
    words_per_group: usize,
    wave_size: u32,
    threads: usize,
) -> (Vec<u32>, Vec<u32>) {
    let shader = compile(source, &CompileOptions::default());
    let p = pipeline(
        [groups, 1, 1],
        &[buf(
            "Out",
            Kind::RwStructuredBuffer,
            0,
            vec![0; groups as usize * words_per_group],
        )],
    );
    let opts = RunOptions {
        wave_size,
        threads,
        ..RunOptions::default()
    };
    let normal = lockstep::run(&shader, &p, &opts).unwrap_or_else(|e| panic!("run: {e}"));
    let (checked, report) =
        lockstep::run_checked(&shader, &p, &opts).unwrap_or_else(|e| panic!("checked: {e}"));
    assert!(
        report.findings.is_empty(),
        "the test shader must be well defined: {:?}",
        report.findings
    );
    (words(&normal.contents[0]), words(&checked.contents[0]))
}

/// Per-group groupshared memory, system values, partial waves, wave ops
/// and quad ops under divergence, loops with per-lane trip counts, early
/// returns before a barrier, and groupshared atomics whose results depend
/// on the order of the group's waves.
const EVERYTHING: &str = r#"
RWStructuredBuffer<uint> Out : register(u0);
groupshared uint g_slots[20];
groupshared uint g_order;

[numthreads(20, 1, 1)]
void main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex, uint3 dtid : SV_DispatchThreadID,
          uint3 gtid : SV_GroupThreadID)
{
    uint base = dtid.x * 12;
    uint v = (dtid.x * 2654435761u) ^ (gid.x * 40503u);
    g_slots[gi] = v;
    if (gi == 0)
        g_order = 0;
    GroupMemoryBarrierWithGroupSync();
    uint neighbour = g_slots[(gi + 7) % 20];

    uint r0 = 0, r1 = 0, r2 = 0;
    if (v & 1) {
        r0 = WavePrefixSum(v);
        r1 = WaveActiveCountBits(true) + 100 * WavePrefixCountBits(v & 8);
        uint4 b = WaveActiveBallot((v & 2) != 0);
        r2 = b.x ^ (b.y * 3) ^ (b.z * 5) ^ (b.w * 7);
    } else {
        r0 = WaveActiveMax(v) ^ WaveActiveMin(v);
        r1 = WaveReadLaneFirst(v) + (WaveIsFirstLane() ? 1u : 0u);
        r2 = WaveActiveAllTrue(v > 1000u) ? 5u : 6u;
    }

    uint q = QuadReadAcrossX(v) + QuadReadAcrossY(v) * 3 + QuadReadAcrossDiagonal(v) * 7;
    uint4 m = WaveMatch(v % 3);
    uint mp = WaveMultiPrefixSum(v, m) + WaveMultiPrefixCountBits((v & 4) != 0, m);

    uint acc = gtid.x;
    for (uint i = 0; i < (v % 7); ++i) {
        acc += WaveActiveSum(i);
        if (acc > 50)
            break;
    }

    uint ticket;
    InterlockedAdd(g_order, gi + 1, ticket);
    Out[base + 0] = neighbour;
    Out[base + 1] = r0;
    Out[base + 2] = r1;
    Out[base + 3] = r2;
    Out[base + 4] = q;
    Out[base + 5] = m.x ^ m.y ^ m.z ^ m.w;
    Out[base + 6] = mp;
    Out[base + 7] = acc;
    Out[base + 8] = ticket;
    Out[base + 9] = WaveGetLaneIndex() + 1000 * WaveGetLaneCount();
    if (gi % 5 == 3)
        return;
    GroupMemoryBarrierWithGroupSync();
    Out[base + 10] = g_order;
    Out[base + 11] = gid.x;
}
"#;

#[test]
fn batched_groups_give_the_results_of_one_group_at_a_time() {
    // 37 groups: the last batch is partial at every wave size.
    for w in WAVE_SIZES {
        for threads in [1, 2] {
            let (normal, checked) = normal_and_checked(EVERYTHING, 37, 20 * 12, w, threads);
            assert_eq!(normal, checked, "wave size {w}, {threads} threads");
            // Every group saw its own groupshared memory: the tickets sum
            // to 1 + 2 + … + 20 in each group.
            for g in 0..37 {
                let at = |gi: usize, k: usize| normal[(g * 20 + gi) * 12 + k];
                assert_eq!(at(0, 11), g as u32);
                assert_eq!(at(0, 10), 210, "group {g} at wave size {w}");
            }
        }
    }
}

/// A barrier in control flow that differs between groups (uniform within
/// each group): groups with `gid.x % 3 == 1` take it in the `if`, the
/// others in the `else`. Groupshared atomics record the order the group's
/// waves ran in.
const GROUP_DIVERGENT_BARRIER: &str = r#"
RWStructuredBuffer<uint> Out : register(u0);
groupshared uint g_counter;

[numthreads(16, 1, 1)]
void main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    if (gi == 0)
        g_counter = 0;
    GroupMemoryBarrierWithGroupSync();
    uint a, b;
    InterlockedAdd(g_counter, 1, a);
    if (gid.x % 3 == 1) {
        GroupMemoryBarrierWithGroupSync();
        InterlockedAdd(g_counter, 100, b);
    } else {
        InterlockedAdd(g_counter, 10, b);
        GroupMemoryBarrierWithGroupSync();
    }
    Out[(gid.x * 16 + gi) * 2] = a;
    Out[(gid.x * 16 + gi) * 2 + 1] = b;
}
"#;

#[test]
fn a_barrier_that_differs_between_groups_keeps_each_groups_order() {
    for w in WAVE_SIZES {
        let (normal, checked) = normal_and_checked(GROUP_DIVERGENT_BARRIER, 11, 32, w, 1);
        assert_eq!(normal, checked, "wave size {w}");
        // By hand: wave k's lane l is thread gi = k·m + l, where m =
        // min(W, 16) lanes run per wave. In the `if` groups every wave adds
        // 1 per lane before the barrier and 100 per lane after it; in the
        // others each wave adds 1 and then 10 per lane before the barrier,
        // so wave k starts at 11·k·m.
        let m = w.min(16);
        for g in 0..11u32 {
            for gi in 0..16u32 {
                let (k, l) = (gi / m, gi % m);
                let at = ((g * 16 + gi) * 2) as usize;
                let expected = if g % 3 == 1 {
                    [gi, 16 + 100 * gi]
                } else {
                    [11 * k * m + l, 11 * k * m + m + 10 * l]
                };
                assert_eq!(
                    [normal[at], normal[at + 1]],
                    expected,
                    "group {g}, thread {gi}, wave size {w}"
                );
            }
        }
    }
}

/// The step budget counts each wave's own iterations, not its batch's nor
/// those of the waves run beside it: groups with an even id loop in the
/// first loop, the others in the second, 60 times each, under a budget of
/// 100. One wave to a group at waves of 4, 8 and 16 lanes (the machine
/// code runs several groups' waves side by side), and two waves taking
/// turns at a barrier between the loops.
#[test]
fn the_step_budget_counts_each_waves_iterations() {
    for (w, threads, barrier) in [(4, 4, false), (8, 8, false), (16, 16, false), (8, 16, true)] {
        let sync = if barrier {
            "GroupMemoryBarrierWithGroupSync();"
        } else {
            ""
        };
        let source = format!(
            r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads({threads}, 1, 1)]
void main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{{
    uint n = 0;
    for (uint i = 0; i < ((gid.x & 1) == 0 ? 60u : 0u); ++i)
        n += 1;
    {sync}
    for (uint j = 0; j < ((gid.x & 1) == 1 ? 60u : 0u); ++j)
        n += 2;
    Out[gid.x * {threads} + gi] = n;
}}
"#
        );
        let shader = compile(&source, &CompileOptions::default());
        let p = pipeline(
            [8, 1, 1],
            &[buf(
                "Out",
                Kind::RwStructuredBuffer,
                0,
                vec![0; 8 * threads],
            )],
        );
        for engine in [lockstep::Engine::Native, lockstep::Engine::Interpreter] {
            let opts = RunOptions {
                wave_size: w,
                threads: 1,
                step_budget: 100,
                engine,
                ..RunOptions::default()
            };
            let out = lockstep::run(&shader, &p, &opts)
                .unwrap_or_else(|e| panic!("wave size {w}, {engine:?}: {e}"));
            let expected: Vec<u32> = (0..8 * threads)
                .map(|t| if (t / threads) % 2 == 0 { 60 } else { 120 })
                .collect();
            assert_eq!(
                words(&out.contents[0]),
                expected,
                "wave size {w}, {engine:?}"
            );
            // One group looping past the budget still stops the run.
            let endless = source.replace("60u : 0u", "1000u : 0u");
            let shader = compile(&endless, &CompileOptions::default());
            let err = lockstep::run(&shader, &p, &opts).expect_err("past the budget");
            assert!(err.to_string().contains("step budget"), "{err}");
        }
        let report = shader.program.engine_report(w, lockstep::Engine::Native);
        assert!(report.native, "wave size {w}: {:?}", report.reason);
    }
}

/// Normal programs fuse an operation with the assignment of its result
/// (one instruction writing the active lanes); checked programs keep both.
/// Assignments under divergence, in a loop, chained (`x = y = ...`, whose
/// temporary is read again) and compound (`x ^= x >> 13`, reading the
/// variable it writes) give the hand-derived values in both.
#[test]
fn fused_assignments_write_only_the_active_lanes() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(16, 1, 1)]
void main(uint gi : SV_GroupIndex, uint3 gid : SV_GroupID)
{
    uint x = gi;
    uint y = 100;
    uint z = 7;
    for (uint i = 0; i < gi % 4; ++i)
    {
        if (gi % 2 == 0)
            x = x * 3u + 1u;
        else
            z = y = x + i;
    }
    x ^= x >> 1;
    Out[(gid.x * 16 + gi) * 3 + 0] = x;
    Out[(gid.x * 16 + gi) * 3 + 1] = y;
    Out[(gid.x * 16 + gi) * 3 + 2] = z;
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let checked_len = lockstep::exec::Program::compile_checked(&shader.module)
        .expect("checked program")
        .code_len();
    assert!(
        shader.program.code_len() < checked_len,
        "no assignment was fused: {} instructions, {checked_len} when checked",
        shader.program.code_len()
    );
    // Hand-derived, per thread.
    let want: Vec<u32> = (0..5u32)
        .flat_map(|_| {
            (0..16u32).flat_map(|gi| {
                let (mut x, mut y, mut z) = (gi, 100u32, 7u32);
                for i in 0..gi % 4 {
                    if gi % 2 == 0 {
                        x = x * 3 + 1;
                    } else {
                        y = x + i;
                        z = y;
                    }
                }
                x ^= x >> 1;
                [x, y, z]
            })
        })
        .collect();
    for w in WAVE_SIZES {
        let (normal, checked) = normal_and_checked(source, 5, 48, w, 1);
        assert_eq!(normal, want, "normal run, wave size {w}");
        assert_eq!(checked, want, "checked run, wave size {w}");
    }
}

/// A wave starts with only the system-value components its code reads:
/// here a component picked at run time (a dynamic index into the vector),
/// one overwritten before it is read, and components never read.
#[test]
fn system_values_read_by_dynamic_index_or_overwritten_first() {
    const SOURCE: &str = r#"
StructuredBuffer<uint> Pick : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(4, 2, 3)]
void main(uint3 gtid : SV_GroupThreadID, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex,
          uint3 dtid : SV_DispatchThreadID)
{
    uint flat = gi + 24 * (dtid.x / 4);
    uint k = Pick[gi % 3];
    gid.x = 7;
    Out[flat * 3] = gtid[k];
    Out[flat * 3 + 1] = gid.x * 100 + gid.y;
    Out[flat * 3 + 2] = dtid.z;
}
"#;
    let groups = 5;
    let expected: Vec<u32> = (0..groups * 24)
        .flat_map(|flat| {
            let gi = flat % 24;
            let gtid = [gi % 4, (gi / 4) % 2, gi / 8];
            [gtid[(gi % 3) as usize], 700, gtid[2]]
        })
        .collect();
    for wave_size in WAVE_SIZES {
        let out = crate::harness::run_words(
            SOURCE,
            [groups, 1, 1],
            &[
                buf("Pick", Kind::StructuredBuffer, 0, vec![0, 1, 2]),
                buf("Out", Kind::RwStructuredBuffer, 0, vec![0; expected.len()]),
            ],
            wave_size,
        );
        assert_eq!(out[1], expected, "wave size {wave_size}");
    }
}

/// Atomics of a batch's lanes to one word go to memory as one update, yet
/// each lane must get the original value it would have got alone, in lane
/// order (one thread: in dispatch order). Runs of lanes on one counter
/// alternate with runs on another, some lanes have returned, one access is
/// out of bounds (0 and no write), and groupshared counters are per group.
#[test]
fn atomics_of_a_batch_to_one_word_give_each_lane_its_own_original_value() {
    const SOURCE: &str = r#"
StructuredBuffer<uint> Vals : register(t0);
RWStructuredBuffer<uint> Counters : register(u0);
RWStructuredBuffer<int> Signed : register(u1);
RWStructuredBuffer<uint> Out : register(u2);
groupshared uint g_sum;

[numthreads(4, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    uint i = dtid.x;
    if (gi == 0)
        g_sum = 1000;
    GroupMemoryBarrierWithGroupSync();
    if (i % 5 == 3)
        return;
    uint v = Vals[i];
    uint c = (i / 3) % 2;
    uint r[8];
    InterlockedAdd(Counters[c], v, r[0]);
    InterlockedMin(Counters[2 + c], v, r[1]);
    InterlockedMax(Counters[4], v % 1000, r[2]);
    InterlockedOr(Counters[5], 1u << (i % 32), r[3]);
    InterlockedXor(Counters[6], v, r[4]);
    int s;
    InterlockedMin(Signed[0], int(v % 1000) - 500, s);
    r[5] = uint(s);
    InterlockedAdd(Counters[7 + 2000 * ((i / 2) % 2)], 1, r[6]);
    InterlockedAdd(g_sum, v & 0xFF, r[7]);
    for (uint k = 0; k < 8; ++k)
        Out[i * 8 + k] = r[k];
}
"#;
    let groups = 41u32;
    let n = groups * 4;
    let vals: Vec<u32> = (0..n)
        .map(|i| i.wrapping_mul(2_654_435_761) ^ (i << 7))
        .collect();
    // The lanes one at a time, in dispatch order.
    let mut counters = [0, 0, u32::MAX, u32::MAX, 0, 0, 0, 0];
    let mut signed = 0i32;
    let mut group_sum = 1000;
    let mut expected = vec![0u32; n as usize * 8];
    for i in 0..n {
        if i % 4 == 0 {
            group_sum = 1000;
        }
        if i % 5 == 3 {
            continue;
        }
        let v = vals[i as usize];
        let c = ((i / 3) % 2) as usize;
        let r = &mut expected[i as usize * 8..][..8];
        r[0] = counters[c];
        counters[c] = counters[c].wrapping_add(v);
        r[1] = counters[2 + c];
        counters[2 + c] = counters[2 + c].min(v);
        r[2] = counters[4];
        counters[4] = counters[4].max(v % 1000);
        r[3] = counters[5];
        counters[5] |= 1 << (i % 32);
        r[4] = counters[6];
        counters[6] ^= v;
        r[5] = signed as u32;
        signed = signed.min((v % 1000) as i32 - 500);
        if (i / 2) % 2 == 0 {
            r[6] = counters[7];
            counters[7] += 1;
        }
        r[7] = group_sum;
        group_sum += v & 0xFF;
    }
    let initial = vec![0, 0, u32::MAX, u32::MAX, 0, 0, 0, 0];
    let shader = compile(SOURCE, &CompileOptions::default());
    for wave_size in WAVE_SIZES {
        let p = pipeline(
            [groups, 1, 1],
            &[
                buf("Vals", Kind::StructuredBuffer, 0, vals.clone()),
                buf("Counters", Kind::RwStructuredBuffer, 0, initial.clone()),
                buf("Signed", Kind::RwStructuredBuffer, 1, vec![0]),
                buf("Out", Kind::RwStructuredBuffer, 2, vec![0; expected.len()]),
            ],
        );
        let opts = RunOptions {
            wave_size,
            threads: 1,
            ..RunOptions::default()
        };
        let out = lockstep::run(&shader, &p, &opts).unwrap_or_else(|e| panic!("run: {e}"));
        assert_eq!(words(&out.contents[1]), counters, "wave size {wave_size}");
        assert_eq!(
            words(&out.contents[2]),
            [signed as u32],
            "wave size {wave_size}"
        );
        let got = words(&out.contents[3]);
        for (i, (g, e)) in got.chunks(8).zip(expected.chunks(8)).enumerate() {
            assert_eq!(g, e, "thread {i} at wave size {wave_size}");
        }
    }
}

/// The waves of a batch each see their own active lanes, even where the
/// groups' control flow differs: lanes active by a condition on the group
/// id, and a loop whose trip count is the group's, around wave ops.
#[test]
fn each_wave_of_a_batch_sees_its_own_active_lanes() {
    const SOURCE: &str = r#"
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(16, 1, 1)]
void main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    uint r0 = 0, r1 = 0, r2 = 0, r3 = 0;
    if ((gi * 7 + gid.x * 3) % 5 <= gid.x % 4) {
        r0 = WaveActiveCountBits(true);
        r1 = WavePrefixCountBits(true);
        r2 = WaveActiveSum(gi + 1);
        r3 = WaveIsFirstLane() ? 1 : 0;
    }
    uint n = 0;
    for (uint i = 0; i < gid.x % 6; ++i)
        n += WaveActiveCountBits(gi % 3 == i % 3);
    uint at = (gid.x * 16 + gi) * 5;
    Out[at] = r0;
    Out[at + 1] = r1;
    Out[at + 2] = r2;
    Out[at + 3] = r3;
    Out[at + 4] = n;
}
"#;
    let groups = 37u32;
    for wave_size in WAVE_SIZES {
        let mut expected = Vec::new();
        for g in 0..groups {
            let active = |gi: u32| (gi * 7 + g * 3) % 5 <= g % 4;
            for gi in 0..16 {
                // The lanes of gi's wave (a wave past 16 lanes has only 16).
                let wave = (gi / wave_size * wave_size)..((gi / wave_size + 1) * wave_size).min(16);
                let r = if active(gi) {
                    let on: Vec<u32> = wave.clone().filter(|&l| active(l)).collect();
                    [
                        on.len() as u32,
                        on.iter().filter(|&&l| l < gi).count() as u32,
                        on.iter().map(|l| l + 1).sum(),
                        u32::from(on[0] == gi),
                    ]
                } else {
                    [0; 4]
                };
                let n: u32 = (0..g % 6)
                    .map(|i| wave.clone().filter(|l| l % 3 == i % 3).count() as u32)
                    .sum();
                expected.extend(r);
                expected.push(n);
            }
        }
        let out = crate::harness::run_words(
            SOURCE,
            [groups, 1, 1],
            &[buf(
                "Out",
                Kind::RwStructuredBuffer,
                0,
                vec![0; expected.len()],
            )],
            wave_size,
        );
        for (t, (got, want)) in out[0].chunks(5).zip(expected.chunks(5)).enumerate() {
            assert_eq!(got, want, "thread {t} at wave size {wave_size}");
        }
    }
}

/// Values that cross barriers while the group's waves take turns: `x` is
/// read after every barrier, `kept` was written on some lanes only before
/// them, `acc` goes round a loop with two barriers in it, and `pre` is a
/// wave op's result from before them.
const ACROSS_BARRIERS: &str = r#"
RWStructuredBuffer<uint> Out : register(u0);
groupshared uint g_sum[3];

[numthreads(24, 1, 1)]
void main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    uint x = gi * 3 + gid.x;
    uint kept = 7;
    if (gi % 3 == 0)
        kept = gi;
    uint pre = WavePrefixSum(x);
    uint acc = 0;
    for (uint round = 0; round < 3; ++round) {
        if (gi == 0)
            g_sum[round] = 0;
        GroupMemoryBarrierWithGroupSync();
        InterlockedAdd(g_sum[round], x + round);
        GroupMemoryBarrierWithGroupSync();
        acc += g_sum[round] * (round + 1);
    }
    uint at = (gid.x * 24 + gi) * 3;
    Out[at] = acc;
    Out[at + 1] = kept;
    Out[at + 2] = pre;
}
"#;

#[test]
fn registers_read_after_a_barrier_keep_their_values() {
    for w in WAVE_SIZES {
        for threads in [1, 2] {
            let (normal, checked) = normal_and_checked(ACROSS_BARRIERS, 13, 24 * 3, w, threads);
            assert_eq!(normal, checked, "wave size {w}, {threads} threads");
            // By hand: round r's sum is Σ (3·gi + g + r) = 828 + 24·g + 24·r,
            // so acc = Σ (r + 1)·(828 + 24·g + 24·r) = 5160 + 144·g; a
            // lane's prefix sums 3·j + g over the lanes j of its wave
            // before it (a wave holds min(W, 24) threads).
            let m = w.min(24);
            for g in 0..13u32 {
                for gi in 0..24u32 {
                    let at = ((g * 24 + gi) * 3) as usize;
                    let first = gi / m * m;
                    let pre: u32 = (first..gi).map(|j| 3 * j + g).sum();
                    let kept = if gi % 3 == 0 { gi } else { 7 };
                    assert_eq!(
                        normal[at..at + 3],
                        [5160 + 144 * g, kept, pre],
                        "group {g}, thread {gi}, wave size {w}, {threads} threads"
                    );
                }
            }
        }
    }
}

/// The entry function's top level assigns on every lane (the lanes it
/// skips have returned or do not exist), while an inlined function's top
/// level keeps its masks: lanes that returned from it come back in the
/// caller. Early returns, wave ops and loads assigned to variables (one
/// reading the variable it is assigned to), and a function whose
/// `return r` after an early return must not overwrite the lanes that
/// returned first.
const TOP_LEVEL: &str = r#"
RWStructuredBuffer<uint> Out : register(u0);

uint pick(uint v)
{
    if (v % 3 == 0)
        return 1000 + v;
    uint r = v * 2;
    return r;
}

[numthreads(12, 1, 1)]
void main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    uint at = (gid.x * 12 + gi) * 5;
    uint v = gi + gid.x;
    uint p = pick(v);
    Out[at] = p;
    if (gi % 4 == 3)
        return;
    uint count = WaveActiveCountBits(true);
    uint first = WaveReadLaneFirst(v);
    uint total = 0;
    for (uint i = 0; i < v % 3; ++i)
        total += i + 1;
    uint sum = v;
    sum = WaveActiveSum(sum);
    Out[at + 1] = count;
    Out[at + 2] = first;
    Out[at + 3] = total + Out[at];
    Out[at + 4] = sum;
}
"#;

#[test]
fn the_entry_top_level_writes_every_lane_and_callees_keep_their_masks() {
    for w in WAVE_SIZES {
        for threads in [1, 2] {
            let (normal, checked) = normal_and_checked(TOP_LEVEL, 9, 12 * 5, w, threads);
            assert_eq!(normal, checked, "wave size {w}, {threads} threads");
            // By hand: a wave holds min(W, 12) threads; the lanes with
            // gi % 4 == 3 return before the wave ops and write only `p`.
            let m = w.min(12);
            for g in 0..9u32 {
                for gi in 0..12u32 {
                    let at = ((g * 12 + gi) * 5) as usize;
                    let v = gi + g;
                    let p = if v % 3 == 0 { 1000 + v } else { v * 2 };
                    let first_lane = gi / m * m;
                    let wave: Vec<u32> = (first_lane..(first_lane + m).min(12))
                        .filter(|l| l % 4 != 3)
                        .collect();
                    let want = if gi % 4 == 3 {
                        [p, 0, 0, 0, 0]
                    } else {
                        let total: u32 = (0..v % 3).map(|i| i + 1).sum();
                        let sum: u32 = wave.iter().map(|&l| l + g).sum();
                        [p, wave.len() as u32, wave[0] + g, total + p, sum]
                    };
                    assert_eq!(
                        normal[at..at + 5],
                        want,
                        "group {g}, thread {gi}, wave size {w}, {threads} threads"
                    );
                }
            }
        }
    }
}

/// Declarations with an initializer write every lane of their variable: a
/// lane that skips one reads the variable only after running it itself. A
/// declaration in a loop's branch starts a new variable on each run.
const DECLARATIONS: &str = r#"
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(12, 1, 1)]
void main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    uint at = (gid.x * 12 + gi) * 2;
    uint acc = 0;
    for (uint i = 0; i < 4; ++i)
    {
        if ((gi + i) % 2 == 0)
        {
            uint k = i * 10 + gid.x;
            acc += k;
        }
    }
    Out[at] = acc;
    Out[at + 1] = WaveActiveSum(acc);
}
"#;

#[test]
fn declarations_in_branches_and_loops() {
    for w in WAVE_SIZES {
        for threads in [1, 2] {
            let (normal, checked) = normal_and_checked(DECLARATIONS, 7, 12 * 2, w, threads);
            assert_eq!(normal, checked, "wave size {w}, {threads} threads");
            let m = w.min(12);
            let acc = |g: u32, gi: u32| -> u32 {
                (0..4u32)
                    .filter(|i| (gi + i).is_multiple_of(2))
                    .map(|i| i * 10 + g)
                    .sum()
            };
            for g in 0..7u32 {
                for gi in 0..12u32 {
                    let at = ((g * 12 + gi) * 2) as usize;
                    let first = gi / m * m;
                    let sum: u32 = (first..(first + m).min(12)).map(|l| acc(g, l)).sum();
                    assert_eq!(
                        normal[at..at + 2],
                        [acc(g, gi), sum],
                        "group {g}, thread {gi}, wave size {w}, {threads} threads"
                    );
                }
            }
        }
    }
}

/// Straight in a `switch` a case label can jump past a declaration: lanes
/// that enter at `case 2` read `t` without having run its initializer
/// (undefined in HLSL, and a finding in checked mode); a normal run gives
/// them the 0 every local starts with, while the lanes of `case 1` see
/// their 7.
#[test]
fn a_case_label_past_a_declaration_reads_the_start_value() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(12, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint seen = 0;
    switch (gi % 3)
    {
    case 1:
        uint t = 7;
    case 2:
        seen = t + 100;
        break;
    default:
        break;
    }
    Out[gi] = seen;
}
"#;
    for w in WAVE_SIZES {
        let out = crate::harness::run_words(
            source,
            [3, 1, 1],
            &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 12])],
            w,
        )
        .remove(0);
        let want: Vec<u32> = (0..12).map(|gi| [0, 107, 100][gi % 3]).collect();
        assert_eq!(out, want, "wave size {w}");
    }
}

/// A group that waits for the one before it, by a ticket or by a flag it
/// sets, goes on at every wave size and thread count, in both engines:
/// groups of one batch would otherwise wait for each other at the loop's
/// end. A loop over memory that the shader only reads does not wait.
#[test]
fn groups_that_wait_for_earlier_groups_go_on() {
    const GROUPS: u32 = 48;
    let ticket = r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    if (gi == 0) {
        uint seen = 0;
        [allow_uav_condition] while (true) {
            InterlockedAdd(Out[0], 0, seen);
            if (seen == gid.x) break;
        }
        Out[1 + gid.x] = seen * 10;
        InterlockedAdd(Out[0], 1);
    }
}
"#;
    let flags = r#"
globallycoherent RWStructuredBuffer<uint> Out : register(u0);
groupshared uint Before;
[numthreads(16, 1, 1)]
void main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    if (gi == 0) {
        uint before = 0;
        if (gid.x > 0) {
            uint f;
            do { f = Out[1 + gid.x - 1]; } while (f == 0);
            before = f;
        }
        Before = before;
    }
    GroupMemoryBarrierWithGroupSync();
    if (gi == 0) Out[1 + gid.x] = Before + 10;
}
"#;
    // Ticket: group g writes 10·g and word 0 counts the groups; flags:
    // group g writes 10·(g + 1) once the group before has written.
    for (source, first, step) in [(ticket, 0, 10), (flags, 10, 10)] {
        let shader = compile(source, &CompileOptions::default());
        assert!(shader.program.waits_on_groups());
        let p = pipeline(
            [GROUPS, 1, 1],
            &[buf(
                "Out",
                Kind::RwStructuredBuffer,
                0,
                vec![0; 1 + GROUPS as usize],
            )],
        );
        for w in WAVE_SIZES {
            for (engine, threads) in [
                (lockstep::Engine::Native, 1),
                (lockstep::Engine::Native, 2),
                (lockstep::Engine::Interpreter, 1),
                (lockstep::Engine::Interpreter, 2),
            ] {
                let opts = RunOptions {
                    wave_size: w,
                    threads,
                    step_budget: 1 << 20,
                    engine,
                    ..RunOptions::default()
                };
                let out = lockstep::run(&shader, &p, &opts)
                    .unwrap_or_else(|e| panic!("wave size {w}, {engine:?}, {threads}: {e}"));
                let got = words(&out.contents[0]);
                let written: Vec<u32> = (0..GROUPS).map(|g| first + step * g).collect();
                assert_eq!(
                    got[1..],
                    written[..],
                    "wave size {w}, {engine:?}, {threads}"
                );
                let last = if source == ticket { GROUPS } else { 0 };
                assert_eq!(got[0], last, "wave size {w}, {engine:?}, {threads}");
            }
        }
    }
    // Chasing links in a buffer the shader only reads waits for nobody.
    let chase = r#"
StructuredBuffer<uint> Next : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID)
{
    uint at = tid.x, n = 0;
    while (at != 0xFFFFFFFF) { at = Next[at]; n++; }
    Out[tid.x] = n;
}
"#;
    let shader = compile(chase, &CompileOptions::default());
    assert!(!shader.program.waits_on_groups());
}
