//! Native code against the interpreter, bit for bit: random programs in
//! the style of the Vulkan CTS reconvergence tests (nested divergent
//! branches, `switch`, loops with `break` and `continue`, early returns, wave
//! operations and atomics at every depth), the bundled examples and the
//! benchmark kernels, at every wave size native code takes. Every other
//! test of this suite compares the two as well (`harness::run_compiled`).

use std::path::Path;

use lockstep::pipeline::Kind;
use lockstep::{CompileOptions, RunOptions};
use proptest::prelude::*;

use crate::harness::{buf, compile, pipeline, words_of};

/// A small deterministic generator of program text. What one group does
/// never depends on another (atomics on device memory return nothing), as
/// the two engines take the groups in different orders. The flag: the
/// program has shared memory and group barriers.
struct Gen(u64, bool);

impl Gen {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }

    fn cond(&mut self) -> String {
        self.pick(&[
            "(a & 1u) == 0u",
            "(t % 3u) == 1u",
            "b > a",
            "(c & 4u) != 0u",
            "WaveActiveAnyTrue((a & 3u) == 0u)",
            "WaveActiveAllTrue(b != 7u)",
            "WaveIsFirstLane()",
            "(t & 5u) < 3u",
            "f > 20.0f",
            "(int)b - (int)a < 100",
        ])
        .to_string()
    }

    fn simple(&mut self) -> String {
        self.pick(&[
            "a = a * 1664525u + 1013904223u;",
            "b ^= a >> 3;",
            "c += (a & 255u) / (b % 7u + 1u);",
            "c ^= (b % 13u) << 2;",
            "a = (a << 5) | (a >> 27);",
            "b = min(b, a) + max(c, 3u);",
            "f = f * 0.75f + (float)(a & 255u);",
            "a ^= asuint(f) >> 7;",
            "b += (uint)((int)a / -3);",
            "c = countbits(a) + firstbithigh(b) + reversebits(c);",
            "b ^= f32tof16(f) ^ (f32tof16(asfloat(a)) << 16); f += f16tof32(c);",
            "c += WaveActiveSum(a & 255u);",
            "c ^= WavePrefixSum(b & 15u);",
            "c += WaveActiveCountBits((a & 1u) != 0u);",
            "b += WavePrefixCountBits(b > a);",
            "a ^= WaveReadLaneFirst(b);",
            "b += WaveActiveMax(a & 1023u);",
            "c += WaveActiveMin(b | 1u);",
            "a += WaveReadLaneAt(b, t & 7u);",
            "c ^= WaveActiveBitOr(a) ^ WaveActiveBitAnd(b) ^ WaveActiveBitXor(c);",
            "c += WaveGetLaneIndex() * 3u + WaveGetLaneCount();",
            "f += WaveActiveSum(f);",
            "f = max(f, WaveActiveMax(f * 0.5f));",
            "f = WavePrefixSum(f) - WaveActiveMin(f);",
            "c += WavePrefixProduct(a | 1u) ^ WaveActiveProduct(b & 3u);",
            "f *= WavePrefixProduct(f * 0.01f + 1.0f);",
            "a += WaveReadLaneAt(a, b);",
            "{ uint4 m = WaveActiveBallot(a > b); c += m.x ^ m.y; }",
            "InterlockedAdd(Count[0], a & 3u);",
            "InterlockedMax(Count[1 + (t & 3u)], b & 4095u);",
            "{ uint old; InterlockedMax(Slot[t & 3u], b & 4095u, old); c += old & 1u; }",
            "Side[t & 63u] = a;",
            "c += Side[(t + 1u) & 63u];",
        ])
        .to_string()
    }

    fn block(&mut self, depth: u32, in_loop: bool, out: &mut String) {
        let n = 1 + self.below(4);
        for _ in 0..n {
            let kind = if depth >= 3 { 0 } else { self.below(11) };
            match kind {
                10 if depth == 0 && self.1 => {
                    out.push_str("GroupMemoryBarrierWithGroupSync();");
                }
                0..=4 => out.push_str(&self.simple()),
                5 | 6 => {
                    let cond = self.cond();
                    out.push_str(&format!("if ({cond}) {{"));
                    self.block(depth + 1, in_loop, out);
                    if self.below(2) == 0 {
                        out.push_str("} else {");
                        self.block(depth + 1, in_loop, out);
                    }
                    out.push('}');
                }
                7 => {
                    let bound = self.pick(&["3u", "(t % 5u)", "(a & 3u) + 1u"]);
                    let var = format!("i{depth}");
                    out.push_str(&format!(
                        "for (uint {var} = 0u; {var} < {bound}; ++{var}) {{ a += {var};"
                    ));
                    self.block(depth + 1, true, out);
                    out.push('}');
                }
                8 if self.below(2) == 0 => {
                    let selector = self.pick(&["a & 3u", "(int)(t % 5u) - 2", "b >> 30"]);
                    out.push_str(&format!("switch ({selector}) {{ case 0: "));
                    self.block(depth + 1, in_loop, out);
                    out.push_str("break; case 1: case 2: ");
                    self.block(depth + 1, in_loop, out);
                    if self.below(2) == 0 {
                        out.push_str("break; default: ");
                        self.block(depth + 1, in_loop, out);
                    }
                    out.push_str("break; }");
                }
                8 if in_loop => {
                    let cond = self.cond();
                    let leave = self.pick(&["break;", "continue;"]);
                    out.push_str(&format!("if ({cond}) {leave}"));
                }
                _ => {
                    let cond = self.cond();
                    out.push_str(&format!("if ({cond}) {{ Out[t] = c ^ a; return; }}"));
                }
            }
            out.push('\n');
        }
    }

    /// A program; half of them use no shared memory and no barriers.
    fn program(&mut self) -> String {
        let shared = self.below(2) == 0;
        self.1 = shared;
        let mut body = String::new();
        self.block(0, false, &mut body);
        let (decls, init) = if shared {
            (
                "groupshared uint Side[64];\ngroupshared uint Slot[4];",
                "Side[gi] = b;\n    if (gi < 4u) Slot[gi] = 0u;",
            )
        } else {
            body = body
                .replace(
                    "{ uint old; InterlockedMax(Slot[t & 3u], b & 4095u, old); c += old & 1u; }",
                    "InterlockedMax(Count[4 + (t & 3u)], b & 4095u);",
                )
                .replace("Side[t & 63u] = a;", "Out[t] = a;")
                .replace("c += Side[(t + 1u) & 63u];", "c += Out[t] + gi;");
            ("", "")
        };
        format!(
            r#"
RWStructuredBuffer<uint> Out : register(u0);
RWStructuredBuffer<uint> Count : register(u1);
{decls}

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{{
    uint t = id.x;
    uint a = t * 2654435761u;
    uint b = t ^ 0x55u;
    uint c = 0u;
    float f = (float)(t & 31u);
    {init}
{body}
    Out[t] = a ^ (b << 1) ^ (c << 2) ^ asuint(f);
}}
"#
        )
    }
}

/// Every buffer after the run, natively or interpreted, at wave size `w`.
fn run(
    shader: &lockstep::Shader,
    p: &lockstep::pipeline::Pipeline,
    w: u32,
    native: bool,
) -> Vec<Vec<u32>> {
    let engine = if native {
        lockstep::Engine::Native
    } else {
        lockstep::Engine::Interpreter
    };
    let opts = RunOptions {
        wave_size: w,
        wave_sizes: (w, w),
        threads: 1,
        engine,
        ..RunOptions::default()
    };
    let out = lockstep::run(shader, p, &opts).unwrap_or_else(|e| panic!("run failed: {e}"));
    out.contents.iter().map(|b| words_of(b)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_programs_agree(seed in any::<u64>()) {
        let source = Gen(seed | 1, false).program();
        let shader = compile(&source, &CompileOptions::default());
        // Five groups: the machine code runs up to four groups' waves
        // side by side, so a pass of four and a pass of one.
        let p = pipeline(
            [5, 1, 1],
            &[
                buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 320]),
                buf("Count", Kind::RwStructuredBuffer, 1, vec![0; 8]),
            ],
        );
        for w in [8, 16, 32, 64] {
            let native = run(&shader, &p, w, true);
            let interpreted = run(&shader, &p, w, false);
            prop_assert_eq!(native, interpreted, "wave size {}:\n{}", w, source);
        }
    }
}

/// The bundled examples and the benchmark kernels: every buffer agrees.
#[test]
fn examples_and_kernels_agree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut count = 0;
    for dir in ["examples", "benches/kernels"] {
        let mut entries: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "hlsl"))
            .collect();
        entries.sort();
        for hlsl in entries {
            let yaml = hlsl.with_extension("yaml");
            let Ok(text) = std::fs::read_to_string(&yaml) else {
                continue;
            };
            let p = lockstep::pipeline::parse(&text).unwrap();
            let source = std::fs::read_to_string(&hlsl).unwrap();
            let opts = CompileOptions {
                entry: p.entry.clone().unwrap_or_else(|| "main".into()),
                ..CompileOptions::default()
            };
            let shader = compile(&source, &opts);
            let range = shader.module.entry.as_ref().and_then(|e| e.wave_size);
            for w in [8, 16, 32, 64] {
                if range.is_some_and(|r| !(r.min..=r.max).contains(&w)) {
                    continue;
                }
                let native = run(&shader, &p, w, true);
                let interpreted = run(&shader, &p, w, false);
                assert_eq!(native, interpreted, "{} at wave size {w}", hlsl.display());
                count += 1;
            }
        }
    }
    assert!(count >= 10, "only {count} runs compared");
}

/// Loads and stores at addresses that are negative, past the end,
/// misaligned, repeated and out of order, on divergent lanes: the gathers
/// and lane-by-lane stores of native code read 0 and drop the writes where
/// the interpreter does.
#[test]
fn memory_edges_agree() {
    let source = r#"
ByteAddressBuffer Raw : register(t0);
StructuredBuffer<uint> Data : register(t1);
RWStructuredBuffer<uint> Out : register(u0);
RWByteAddressBuffer RawOut : register(u1);
RWStructuredBuffer<uint> Scattered : register(u2);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 group : SV_GroupID, uint gi : SV_GroupIndex)
{
    uint t = id.x;
    int k = (int)(t * 7u) - 100;
    uint v = Data[k] + Raw.Load(t * 3u) + Raw.Load((t * 5u) & ~3u);
    if ((t & 1u) != 0u)
        v += Data[t * 13u] ^ Data[63u - (t & 63u)];
    Out[t] = v;
    if ((t % 3u) != 0u)
        RawOut.Store(t * 6u, v);
    // Each group writes its own 200 words (the last 20 of the second
    // group's are past the end), several lanes to some of them.
    if (gi < 50u)
        Scattered[group.x * 200u + (gi * 37u) % 200u] = t;
    if (gi > 30u)
        Scattered[group.x * 200u + (gi * gi) % 7u] = Data[t & 7u];
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let data: Vec<u32> = (0..64u32).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
    let raw: Vec<u32> = (0..64u32).map(|i| i * 0x0101_0101).collect();
    let p = pipeline(
        [2, 1, 1],
        &[
            buf("Raw", Kind::ByteAddressBuffer, 0, raw),
            buf("Data", Kind::StructuredBuffer, 1, data),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![7; 128]),
            buf("RawOut", Kind::RwByteAddressBuffer, 1, vec![0; 100]),
            buf("Scattered", Kind::RwStructuredBuffer, 2, vec![0; 380]),
        ],
    );
    for w in [8, 16, 32, 64] {
        let (native, interpreted) = (run(&shader, &p, w, true), run(&shader, &p, w, false));
        for (b, (n, i)) in native.iter().zip(&interpreted).enumerate() {
            for (e, (x, y)) in n.iter().zip(i).enumerate() {
                assert_eq!(x, y, "wave size {w}, buffer {b}, element {e}");
            }
        }
    }
}

/// Arrays of structures read with the thread index: strides of 8 to 32
/// bytes, with lanes past the end of each buffer, indices that are not
/// the thread's, divergent lanes and partial waves.
#[test]
fn strided_loads_agree() {
    let source = r#"
struct Three { uint a; uint b; uint c; };
struct Five { uint a; uint b; uint c; uint d; uint e; };
struct Eight { uint4 lo; uint4 hi; };
StructuredBuffer<uint2> Pairs : register(t0);
StructuredBuffer<Three> Threes : register(t1);
StructuredBuffer<uint4> Quads : register(t2);
StructuredBuffer<Five> Fives : register(t3);
StructuredBuffer<Eight> Eights : register(t4);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(40, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint t = id.x;
    uint2 p = Pairs[t];
    Three h = Threes[t];
    uint4 q = Quads[t];
    uint v = p.x * 3u + p.y ^ h.a + h.b * 5u + h.c ^ q.x + q.y + q.z * 7u + q.w;
    if ((t & 3u) != 1u) {
        Five f = Fives[t + 2u];
        Eight e = Eights[t];
        v += f.a ^ f.b ^ f.c ^ f.d ^ f.e ^ e.lo.y ^ e.hi.w ^ e.hi.x;
    }
    v ^= Quads[t * 2u].y + Pairs[79u - t].x;
    Out[t] = v;
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let words = |n: u32, salt: u32| -> Vec<u32> {
        (0..n)
            .map(|i| (i ^ salt).wrapping_mul(0x9E37_79B9))
            .collect()
    };
    // 80 threads; each buffer ends a few elements before the last thread.
    let p = pipeline(
        [2, 1, 1],
        &[
            buf("Pairs", Kind::StructuredBuffer, 0, words(2 * 77, 1)),
            buf("Threes", Kind::StructuredBuffer, 1, words(3 * 75, 2)),
            buf("Quads", Kind::StructuredBuffer, 2, words(4 * 78, 3)),
            buf("Fives", Kind::StructuredBuffer, 3, words(5 * 70, 4)),
            buf("Eights", Kind::StructuredBuffer, 4, words(8 * 73, 5)),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 80]),
        ],
    );
    // Thread 0 by hand: every load in bounds (Pairs[79] is past the end:
    // 0).
    let w = |salt: u32, i: u32| (i ^ salt).wrapping_mul(0x9E37_79B9);
    let (p0, h0, q0) = (
        [w(1, 0), w(1, 1)],
        [w(2, 0), w(2, 1), w(2, 2)],
        [w(3, 0), w(3, 1), w(3, 2), w(3, 3)],
    );
    let mut v = p0[0].wrapping_mul(3).wrapping_add(p0[1])
        ^ h0[0]
            .wrapping_add(h0[1].wrapping_mul(5))
            .wrapping_add(h0[2])
        ^ q0[0]
            .wrapping_add(q0[1])
            .wrapping_add(q0[2].wrapping_mul(7))
            .wrapping_add(q0[3]);
    let f: Vec<u32> = (10..15).map(|i| w(4, i)).collect();
    v = v.wrapping_add(f[0] ^ f[1] ^ f[2] ^ f[3] ^ f[4] ^ w(5, 1) ^ w(5, 7) ^ w(5, 4));
    v ^= w(3, 1);
    for w in [8, 16, 32, 64] {
        let (native, interpreted) = (run(&shader, &p, w, true), run(&shader, &p, w, false));
        assert_eq!(interpreted[5][0], v, "wave size {w}: thread 0");
        assert_eq!(native[5][0], v, "wave size {w}: thread 0, machine code");
        assert_eq!(native, interpreted, "wave size {w}");
    }
}

/// Barriers in a group whose last wave is partial, with lanes that return
/// before a barrier and shared memory read across waves after it: the
/// machine code's turns against the interpreter, and a reduction the
/// test computes itself.
#[test]
fn barrier_turns_agree() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
groupshared uint Slots[40];
groupshared uint Total;

[numthreads(5, 8, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex, uint3 g : SV_GroupID)
{
    if (gi == 0u)
        Total = 0u;
    Slots[gi] = gi * 3u + g.x;
    GroupMemoryBarrierWithGroupSync();
    if (gi == 7u)
        return;
    uint mine = Slots[39u - gi] + WaveActiveSum(gi);
    InterlockedAdd(Total, Slots[gi]);
    GroupMemoryBarrierWithGroupSync();
    Out[g.x * 40u + gi] = mine ^ (Total << 8);
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let p = pipeline(
        [6, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 240])],
    );
    for w in [8, 16, 32, 64] {
        let (native, interpreted) = (run(&shader, &p, w, true), run(&shader, &p, w, false));
        assert_eq!(native, interpreted, "wave size {w}");
        // Group 2's total: every lane but 7 adds its slot, 3 gi + 2.
        let total: u32 = (0..40u32).filter(|&i| i != 7).map(|i| 3 * i + 2).sum();
        let out = &native[0];
        assert_eq!(out[2 * 40 + 7], 0, "the lane that returned writes nothing");
        // Lane 0: slot 39 plus the sum of its wave's lanes (but 7).
        let wave_sum: u32 = (0..w.min(40)).filter(|&i| i != 7).sum();
        let mine = (3 * 39 + 2) + wave_sum;
        assert_eq!(out[2 * 40], mine ^ (total << 8), "wave size {w}");
    }
}

/// 2D groups, whose lanes SM 6.6 lays out in 2×2 quads: a wave's loads
/// and stores at `[id.xy]` or `[id.y * pitch + id.x]` touch two rows of
/// each pair of quads. Texels past the texture's edge, partial waves,
/// masked stores, and rows that overlap within a group (lane order
/// decides), against the interpreter and values derived by hand.
#[test]
fn quad_rows_agree() {
    for (x, y, groups) in [(4, 4, [5, 3, 1]), (6, 2, [4, 6, 1]), (2, 2, [10, 6, 1])] {
        let gx = groups[0];
        let source = format!(
            r#"
Texture2D<uint> Tex : register(t0);
StructuredBuffer<uint> Flat : register(t1);
RWTexture2D<uint> OutTex : register(u0);
RWStructuredBuffer<uint> Out : register(u1);
RWStructuredBuffer<uint> Packed : register(u2);

[numthreads({x}, {y}, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 g : SV_GroupID, uint3 gt : SV_GroupThreadID)
{{
    uint v = Tex[id.xy] * 3u + Flat[id.y * 20u + id.x];
    if ((id.x + id.y) % 3u != 1u)
        OutTex[id.xy] = v;
    Out[id.y * 24u + id.x] = v ^ 5u;
    Packed[(g.y * {gx}u + g.x) * 16u + gt.y * 2u + gt.x] = v;
}}
"#
        );
        let shader = compile(&source, &CompileOptions::default());
        let words = |n: u32, salt: u32| -> Vec<u32> {
            (0..n)
                .map(|i| (i ^ salt).wrapping_mul(0x9E37_79B9))
                .collect()
        };
        let mut p = pipeline(
            groups,
            &[
                buf("Tex", Kind::Texture2D, 0, words(240, 7)),
                buf("Flat", Kind::StructuredBuffer, 1, words(250, 8)),
                buf("OutTex", Kind::RwTexture2D, 0, vec![9; 240]),
                buf("Out", Kind::RwStructuredBuffer, 1, vec![0; 24 * 12]),
                buf("Packed", Kind::RwStructuredBuffer, 2, vec![0; 60 * 16]),
            ],
        );
        for b in [0, 2] {
            p.buffers[b].output_props = Some(lockstep::pipeline::OutputProps {
                width: 20,
                height: 12,
                depth: 1,
                mip_levels: 1,
            });
        }
        // Thread (2, 0) by hand, and (21, 0) past the texture's edge (a
        // texel of 0) where the dispatch is wider than 20.
        let w = |salt: u32, i: u32| (i ^ salt).wrapping_mul(0x9E37_79B9);
        let v = w(7, 2).wrapping_mul(3).wrapping_add(w(8, 2));
        for size in [8, 16, 32, 64] {
            let (native, interpreted) =
                (run(&shader, &p, size, true), run(&shader, &p, size, false));
            let at = format!("{x}×{y}, wave size {size}");
            assert_eq!(native[2][2], v, "{at}: OutTex (2, 0)");
            assert_eq!(native[2][1], 9, "{at}: OutTex (1, 0) is not written");
            assert_eq!(native[3][2], v ^ 5, "{at}: Out[2]");
            // Packed[2] of group 0: threads (0, 1) and (2, 0), lanes 2 and 4:
            // the later lane's word stays.
            if x >= 4 {
                assert_eq!(native[4][2], v, "{at}: Packed[2]");
            }
            if groups[0] * x > 21 {
                assert_eq!(native[3][21], w(8, 21) ^ 5, "{at}: Out[21]");
            }
            assert_eq!(native, interpreted, "{at}");
        }
    }
}
