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
            "f = sin(f) + cos(f * 0.5f) * exp(f * -0.01f) + log2(abs(f) + 1.0f) + exp2(-f);",
            "f += pow(abs(f), 0.3f) + log(f) + log10(abs(f) + 2.0f);",
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
            "{ uint4 m = WaveActiveBallot(a > b); c += m.x ^ m.y ^ m.z ^ m.w; }",
            "c += WaveActiveAllEqual(a & 1u) ? 1u : 7u;",
            "c += QuadReadAcrossX(a) ^ QuadReadAcrossY(b) ^ QuadReadAcrossDiagonal(c);",
            "a += QuadReadLaneAt(b, t & 3u) + QuadReadLaneAt(c, 2u); f += QuadReadAcrossX(f);",
            "c += WaveActiveAllEqual(f) ? 2u : (WaveActiveAllEqual((int)b >> 31) ? 5u : 0u);",
            "InterlockedAdd(Count[0], a & 3u);",
            "InterlockedMax(Count[1 + (t & 3u)], b & 4095u);",
            "{ uint old; InterlockedMax(Slot[t & 3u], b & 4095u, old); c += old & 1u; }",
            "Side[t & 63u] = a;",
            "c += Side[(t + 1u) & 63u];",
            "c += Side[5u] ^ Slot[1u];",
            "z = z * 6364136223846793005ull + (uint64_t)a;",
            "z ^= z >> (a & 63u); a += (uint)(z >> 32);",
            "z = (int64_t)z < 0 ? ~z : (uint64_t)(-(int64_t)z >> 3);",
            "c ^= z > (uint64_t)b ? 1u : 0u; z -= (uint64_t)(int)c;",
            "d = d * 0.5 + (double)b - (double)(int)a; f += (float)d;",
            "c += d < (double)f ? 3u : (uint)(z & 7ull);",
            "a = mixer(a, b);",
            "c += early(b & 2047u);",
            "bump(f, (float)(c & 7u));",
            "z ^= wide(0x12345u, 0x6789Au) + wide(a, b);",
            "h = h * (half)0.5 + (half)(a & 7u); g = g * h - (half)1.0;",
            "c += (uint)(h * (half)4.0) ^ (uint)(g > h);",
            "Vec[t] = float4(f, (float)a, (float)(b & 255u), f * 0.5f);",
            "{ float4 v = Vec[t]; f += v.x - v.y * v.z + v.w; }",
            "Halves[t] = half4(h, g, (half)f, (half)(c & 15u));",
            "{ half4 q = Halves[t]; h += q.x * q.y - q.z + q.w; }",
        ])
        .to_string()
    }

    fn block(&mut self, depth: u32, in_loop: bool, out: &mut String) {
        let n = 1 + self.below(4);
        for _ in 0..n {
            let kind = if depth >= 3 { 0 } else { self.below(11) };
            match kind {
                // At any depth: inside divergent control flow too, where
                // both engines let each wave run to its next barrier.
                10 if self.1 => {
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
                    out.push_str(&format!(
                        "if ({cond}) {{ Out[t] = c ^ a ^ (uint)z; return; }}"
                    ));
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
                .replace("c += Side[(t + 1u) & 63u];", "c += Out[t] + gi;")
                .replace("c += Side[5u] ^ Slot[1u];", "c += gi;");
            ("", "")
        };
        format!(
            r#"
RWStructuredBuffer<uint> Out : register(u0);
RWStructuredBuffer<uint> Count : register(u1);
RWStructuredBuffer<float4> Vec : register(u2);
RWStructuredBuffer<half4> Halves : register(u3);
{decls}

uint mixer(uint x, uint y) {{ uint r = x * 3u + y; return r ^ (r >> 7); }}
uint early(uint x) {{ if (x > 1000u) return x - 1000u; return x + WaveActiveCountBits(true); }}
void bump(inout float v, float by) {{ v += by * 0.5f; }}
uint64_t wide(uint hi, uint lo) {{ return ((uint64_t)hi << 32) | lo; }}

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{{
    uint t = id.x;
    uint a = t * 2654435761u;
    uint b = t ^ 0x55u;
    uint c = 0u;
    float f = (float)(t & 31u);
    uint64_t z = (uint64_t)t * 0x9E3779B97F4A7C15ull;
    double d = (double)t;
    half h = (half)(t & 15u);
    half g = (half)0.25;
    {init}
{body}
    Out[t] = a ^ (b << 1) ^ (c << 2) ^ asuint(f) ^ (uint)z ^ (uint)(z >> 32) ^ asuint((float)d)
        ^ asuint((float)h) ^ (asuint((float)g) << 3);
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

/// The buffers after a run at wave size `w` in machine code, which must
/// take the shader, after checking every word against the interpreter's.
fn agreeing(shader: &lockstep::Shader, p: &lockstep::pipeline::Pipeline, w: u32) -> Vec<Vec<u32>> {
    let report = shader.program.engine_report(w, lockstep::Engine::Native);
    assert!(report.native, "wave size {w}: {:?}", report.reason);
    let (native, interpreted) = (run(shader, p, w, true), run(shader, p, w, false));
    for (b, (n, i)) in native.iter().zip(&interpreted).enumerate() {
        let diff: Vec<_> = (0..n.len()).filter(|&e| n[e] != i[e]).take(8).collect();
        let show: Vec<_> = diff.iter().map(|&e| (e, n[e], i[e])).collect();
        assert!(
            diff.is_empty(),
            "wave size {w}, buffer {b}: (word, native, interpreted) {show:?}"
        );
    }
    native
}

/// The machine code at wave size 8 hands no instruction to the
/// interpreter.
fn assert_no_callouts(shader: &lockstep::Shader) {
    let report = shader.program.engine_report(8, lockstep::Engine::Native);
    assert_eq!(report.callouts, 0, "{report:?}");
}

/// 200 programs from a fixed seed, so that every run of the suite tries the
/// same ones; `PROPTEST_RNG_SEED` and `PROPTEST_CASES` explore others.
fn random_program_config() -> ProptestConfig {
    let mut config = ProptestConfig::with_cases(200);
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        config.rng_seed = proptest::test_runner::RngSeed::Fixed(0x010c_57e9);
    }
    config
}

proptest! {
    #![proptest_config(random_program_config())]

    #[test]
    fn random_programs_agree(seed in any::<u64>()) {
        let source = Gen(seed | 1, false).program();
        let opts = CompileOptions {
            enable_16bit_types: true,
            ..CompileOptions::default()
        };
        let shader = compile(&source, &opts);
        // Five groups: the machine code runs up to four groups' waves
        // side by side, so a pass of four and a pass of one.
        let mut p = pipeline(
            [5, 1, 1],
            &[
                buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 320]),
                buf("Count", Kind::RwStructuredBuffer, 1, vec![0; 8]),
                buf("Vec", Kind::RwStructuredBuffer, 2, (0..4 * 320u32).map(|i| (i as f32 * 0.75).to_bits()).collect()),
                buf("Halves", Kind::RwStructuredBuffer, 3, (0..2 * 320u32).map(|i| (i % 97) * 0x0001_0203).collect()),
            ],
        );
        p.buffers[3].format = lockstep::pipeline::Format::Float16;
        // At wave size 128, groups of 64 threads run as waves of 64 lanes,
        // and at 4 as waves of 8 lanes, unless the program reads a lane by
        // index.
        for w in [4, 8, 16, 32, 64, 128] {
            let report = shader.program.engine_report(w, lockstep::Engine::Native);
            prop_assert!(report.native || w == 128 || w == 4, "wave size {}: {:?}\n{}", w, report.reason, source);
            // What an inactive lane's register holds depends on which
            // groups' waves ran side by side (docs/semantics.md), so a
            // program that reads one (through a wave read or a quad
            // shuffle) may differ between the engines.
            let opts = RunOptions { wave_size: w, wave_sizes: (w, w), ..RunOptions::default() };
            let (_, checked) = lockstep::run_checked(&shader, &p, &opts).expect("checked run");
            let undefined = ["inactive-lane-read", "incomplete-quad", "undefined-value"];
            if checked.findings.iter().any(|f| undefined.contains(&f.kind)) {
                continue;
            }
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
            for w in [4, 8, 16, 32, 64, 128] {
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

/// At wave size 128 a group of at most 64 threads is one wave whose lanes
/// from 64 on never exist: it runs as machine code of 64 lanes, with
/// `WaveGetLaneCount` still 128, and agrees with the interpreter's waves of
/// 128 lanes. A lane read at an index that may be 64 or more, or a group of
/// more than 64 threads, keeps the interpreter.
#[test]
fn small_groups_at_wave_size_128_run_as_machine_code() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint t : SV_GroupIndex)
{
    uint4 votes = WaveActiveBallot(t % 3u == 0u);
    uint o = id.x * 8u;
    Out[o] = WaveGetLaneCount();
    Out[o + 1u] = WavePrefixSum(t);
    Out[o + 2u] = WaveActiveSum(t & 7u);
    Out[o + 3u] = votes.x;
    Out[o + 4u] = votes.y | votes.z | votes.w;
    Out[o + 5u] = QuadReadAcrossX(t);
    Out[o + 6u] = WaveGetLaneIndex() + WaveReadLaneAt(t, 5u);
    if (t < 40u)
        Out[o + 7u] = WaveActiveMax(t) + WaveActiveCountBits(true);
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let p = pipeline(
        [3, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 3 * 64 * 8])],
    );
    let native = agreeing(&shader, &p, 128);
    let mut third = 0u64;
    for t in (0..64).step_by(3) {
        third |= 1 << t;
    }
    for g in 0..3u32 {
        for t in 0..64u32 {
            let o = ((g * 64 + t) * 8) as usize;
            let want = [
                128,
                t * t.saturating_sub(1) / 2,
                8 * 28,
                third as u32,
                (third >> 32) as u32,
                t ^ 1,
                t + 5,
                if t < 40 { 39 + 40 } else { 0 },
            ];
            assert_eq!(native[0][o..o + 8], want, "group {g}, thread {t}");
        }
    }
    // Two dimensions: quads of the group's 8 x 8 threads.
    let quads = compile(
        r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(8, 8, 1)]
void main(uint3 gt : SV_GroupThreadID, uint t : SV_GroupIndex)
{
    Out[t] = QuadReadAcrossY(gt.x + 16u * gt.y) + 1000u * WaveGetLaneIndex();
}
"#,
        &CompileOptions::default(),
    );
    agreeing_in_one_group(&quads, 128);
    // What keeps the interpreter.
    interpreted_at(
        128,
        &[
            "[numthreads(64, 1, 1)] void main(uint t : SV_GroupIndex) { Out[t] = WaveReadLaneAt(t, 100u); }",
            "[numthreads(128, 1, 1)] void main(uint t : SV_GroupIndex) { Out[t] = WaveActiveSum(t); }",
        ],
    );
}

/// [`agreeing`] for one group writing a 64-word `Out`.
fn agreeing_in_one_group(shader: &lockstep::Shader, w: u32) {
    let one = pipeline(
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 64])],
    );
    agreeing(shader, &one, w);
}

/// Each of `bodies` (after a `RWStructuredBuffer<uint> Out`) keeps the
/// interpreter at wave size `w`, with a reason.
fn interpreted_at(w: u32, bodies: &[&str]) {
    for body in bodies {
        let shader = compile(
            &format!("RWStructuredBuffer<uint> Out : register(u0);\n{body}"),
            &CompileOptions::default(),
        );
        let report = shader.program.engine_report(w, lockstep::Engine::Native);
        assert!(!report.native, "{body}");
        assert!(report.reason.is_some(), "{body}");
    }
}

/// At wave size 4 each wave runs as machine code of 8 lanes whose last
/// four never exist: `WaveGetLaneCount` still 4, and every wave operation,
/// groupshared memory across the 16 waves of a group, quads and
/// consecutive stores agree with the interpreter and with values derived
/// by hand, in groups fixed in threads or in waves. A lane read at an
/// index that may be 4 or more keeps the interpreter.
/// Waves of 4 that take turns at a barrier inside a loop run one to a
/// pass, half of each 8-lane chunk idle: the default engine interprets
/// them there, and takes machine code at wave size 8.
#[test]
fn waves_of_four_at_barriers_in_loops_are_interpreted_by_default() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
groupshared uint Tile[64];

[numthreads(64, 1, 1)]
void main(uint t : SV_GroupIndex)
{
    uint acc = 0u;
    for (uint k = 0u; k < 4u; k++) {
        Tile[t] = t * k;
        GroupMemoryBarrierWithGroupSync();
        acc += Tile[63u - t];
        GroupMemoryBarrierWithGroupSync();
    }
    Out[t] = acc;
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let auto = |w| shader.program.engine_report(w, lockstep::Engine::Auto);
    assert!(!auto(4).native, "{:?}", auto(4).reason);
    assert!(auto(4).reason.unwrap().contains("waves of 4 lanes"));
    assert!(auto(8).native, "{:?}", auto(8).reason);
    let forced = shader.program.engine_report(4, lockstep::Engine::Native);
    assert!(forced.native, "{:?}", forced.reason);
}

#[test]
fn waves_of_four_run_as_machine_code() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
groupshared uint Sums[16];

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint t : SV_GroupIndex)
{
    uint4 votes = WaveActiveBallot(t % 3u == 0u);
    uint s = WaveActiveSum(t);
    if (WaveIsFirstLane())
        Sums[t / WaveGetLaneCount()] = s;
    GroupMemoryBarrierWithGroupSync();
    uint o = id.x * 8u;
    Out[o] = WaveGetLaneCount();
    Out[o + 1u] = WavePrefixSum(t);
    Out[o + 2u] = Sums[(t / 4u + 1u) % 16u];
    Out[o + 3u] = votes.x;
    Out[o + 4u] = votes.y | votes.z | votes.w;
    Out[o + 5u] = QuadReadAcrossX(t) + 100u * QuadReadAcrossDiagonal(t);
    Out[o + 6u] = WaveGetLaneIndex() + WaveReadLaneAt(t, 2u);
    if (t % 4u != 1u)
        Out[o + 7u] = WaveActiveMax(t) + WaveActiveCountBits(true);
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let p = pipeline(
        [3, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 3 * 64 * 8])],
    );
    let native = agreeing(&shader, &p, 4);
    for g in 0..3u32 {
        for t in 0..64u32 {
            let (k, l) = (t / 4, t % 4);
            let o = ((g * 64 + t) * 8) as usize;
            let next = (k + 1) % 16;
            let votes = (0..4)
                .filter(|&m| (4 * k + m) % 3 == 0)
                .map(|m| 1 << m)
                .sum::<u32>();
            let want = [
                4,
                l * 4 * k + l * l.saturating_sub(1) / 2,
                16 * next + 6,
                votes,
                0,
                (t ^ 1) + 100 * (t ^ 3),
                l + 4 * k + 2,
                if l != 1 { 4 * k + 3 + 3 } else { 0 },
            ];
            assert_eq!(native[0][o..o + 8], want, "group {g}, thread {t}");
        }
    }
    // Two dimensions: each wave one 2 x 2 quad of the group's 8 x 8
    // threads; rows of a 16 x 4 group stored consecutively; and a group of
    // two waves whatever their size (`[numWaves(2)]`: 8 threads here).
    for body in [
        "[numthreads(8, 8, 1)] void main(uint3 gt : SV_GroupThreadID, uint t : SV_GroupIndex) { Out[t] = QuadReadAcrossY(gt.x + 16u * gt.y) + 1000u * WaveGetLaneIndex() + WavePrefixCountBits(gt.x > 2u); }",
        "[numthreads(16, 4, 1)] void main(uint3 id : SV_DispatchThreadID) { Out[id.y * 16u + id.x] = id.x * 3u + WaveActiveMin(id.y + id.x); }",
        "[numWaves(2)] void main(uint3 g : SV_GroupID) { Out[g.x * 8u + GetGroupWaveIndex() * 4u + WaveGetLaneIndex()] = WaveActiveSum(g.x + WaveGetLaneIndex()) + 100u * GetGroupWaveCount(); }",
    ] {
        let shader = compile(
            &format!("RWStructuredBuffer<uint> Out : register(u0);\n{body}"),
            &CompileOptions::default(),
        );
        agreeing_in_one_group(&shader, 4);
    }
    // What keeps the interpreter.
    interpreted_at(
        4,
        &[
            "[numthreads(64, 1, 1)] void main(uint t : SV_GroupIndex) { Out[t] = WaveReadLaneAt(t, 5u); }",
            "[numthreads(64, 1, 1)] void main(uint t : SV_GroupIndex) { Out[t] = WaveReadLaneAt(t, t); }",
        ],
    );
}

/// Stores to arrays of structures: whole chunks, chunks with some lanes
/// inactive, buffers that end before the last thread, and lanes going
/// backwards (no stride), against the interpreter and words the test
/// computes itself.
#[test]
fn strided_stores_agree() {
    let source = r#"
struct Three { uint a; uint b; uint c; };
struct Five { uint a; uint b; uint c; uint d; uint e; };
RWStructuredBuffer<uint2> Pairs : register(u0);
RWStructuredBuffer<Three> Threes : register(u1);
RWStructuredBuffer<Five> Fives : register(u2);
RWStructuredBuffer<uint4> Back : register(u3);

[numthreads(40, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint t = id.x;
    Pairs[t] = uint2(t * 3u, t ^ 5u);
    if ((t % 3u) != 1u) {
        Three h = { t + 100u, t * 7u, 0u - t };
        Threes[t] = h;
    }
    if (t < 70u) {
        Five f = { t, t + 1u, t + 2u, t + 3u, t * t };
        Fives[t + 2u] = f;
    }
    Back[79u - t] = uint4(t, t, t, 9u);
}
"#;
    let shader = compile(source, &CompileOptions::default());
    // 80 threads; Pairs and Threes end a few elements before the last.
    let p = pipeline(
        [2, 1, 1],
        &[
            buf("Pairs", Kind::RwStructuredBuffer, 0, vec![0xAAAA; 2 * 77]),
            buf("Threes", Kind::RwStructuredBuffer, 1, vec![0xBBBB; 3 * 75]),
            buf("Fives", Kind::RwStructuredBuffer, 2, vec![0xCCCC; 5 * 80]),
            buf("Back", Kind::RwStructuredBuffer, 3, vec![0; 4 * 80]),
        ],
    );
    let pairs: Vec<u32> = (0..77).flat_map(|t: u32| [t * 3, t ^ 5]).collect();
    let threes: Vec<u32> = (0..75u32)
        .flat_map(|t| match t % 3 {
            1 => [0xBBBB; 3],
            _ => [t + 100, t * 7, 0u32.wrapping_sub(t)],
        })
        .collect();
    let fives: Vec<u32> = (0..80u32)
        .flat_map(|e| match e.checked_sub(2) {
            Some(t) if t < 70 => [t, t + 1, t + 2, t + 3, t * t],
            _ => [0xCCCC; 5],
        })
        .collect();
    let back: Vec<u32> = (0..80u32)
        .flat_map(|e| [79 - e, 79 - e, 79 - e, 9])
        .collect();
    for w in [8, 16, 32, 64] {
        let native = agreeing(&shader, &p, w);
        assert_eq!(native[0], pairs, "wave size {w}: Pairs");
        assert_eq!(native[1], threes, "wave size {w}: Threes");
        assert_eq!(native[2], fives, "wave size {w}: Fives");
        assert_eq!(native[3], back, "wave size {w}: Back");
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

/// Barriers inside loops and branches: a Hillis–Steele scan in shared
/// memory (a barrier twice per iteration), a loop whose trip count
/// depends on the group (so groups leave it at different times), and a
/// barrier in a branch that whole groups skip. Against the interpreter
/// and sums the test computes itself.
#[test]
fn nested_barriers_agree() {
    let source = r#"
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
groupshared uint Tile[48];

[numthreads(48, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex, uint3 g : SV_GroupID)
{
    uint x = In[id.x];
    Tile[gi] = x;
    GroupMemoryBarrierWithGroupSync();
    for (uint s = 1u; s < 48u; s <<= 1)
    {
        uint v = gi >= s ? Tile[gi - s] : 0u;
        GroupMemoryBarrierWithGroupSync();
        Tile[gi] += v;
        GroupMemoryBarrierWithGroupSync();
    }
    uint scan = Tile[gi] - x;
    // Group g rotates its tile g times, one step per barrier pair.
    for (uint r = 0u; r < g.x; ++r)
    {
        uint next = Tile[(gi + 1u) % 48u];
        GroupMemoryBarrierWithGroupSync();
        Tile[gi] = next;
        GroupMemoryBarrierWithGroupSync();
    }
    if ((g.x & 1u) != 0u)
    {
        Tile[gi] += 1000u;
        GroupMemoryBarrierWithGroupSync();
    }
    Out[id.x * 2u] = scan;
    Out[id.x * 2u + 1u] = Tile[(gi + 5u) % 48u];
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let groups = 5u32;
    let n = (48 * groups) as usize;
    let input: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 20)
        .collect();
    let p = pipeline(
        [groups, 1, 1],
        &[
            buf("In", Kind::StructuredBuffer, 0, input.clone()),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 2 * n]),
        ],
    );
    for w in [8, 16, 32, 64] {
        let (native, interpreted) = (run(&shader, &p, w, true), run(&shader, &p, w, false));
        assert_eq!(native, interpreted, "wave size {w}");
        let out = &native[1];
        for g in 0..groups as usize {
            let tile = &input[g * 48..(g + 1) * 48];
            for i in 0..48 {
                let scan: u32 = tile[..i].iter().sum();
                // The inclusive scan, rotated left g times, plus 1000 in odd groups.
                let j = (i + 5) % 48;
                let k = (j + g) % 48;
                let rotated: u32 =
                    tile[..=k].iter().sum::<u32>() + if g % 2 == 1 { 1000 } else { 0 };
                let t = g * 48 + i;
                assert_eq!(out[2 * t], scan, "wave size {w}, group {g}, lane {i}");
                assert_eq!(
                    out[2 * t + 1],
                    rotated,
                    "wave size {w}, group {g}, lane {i}"
                );
            }
        }
    }
}

/// The float transcendentals the machine code calls as lane functions, on
/// inputs of every kind (subnormal, huge, infinite, NaN, negative), some
/// in a branch that only part of the lanes take: both engines give the
/// bits of `lockstep_wave`'s functions, which its own tests hold to within
/// one unit in the last place.
#[test]
fn lane_functions_agree() {
    use lockstep_wave::{math, ops};
    let source = r#"
StructuredBuffer<float> In : register(t0);
RWStructuredBuffer<float> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float x = In[id.x];
    uint o = id.x * 8u;
    Out[o] = sin(x);
    Out[o + 1u] = cos(x);
    Out[o + 2u] = exp(x);
    Out[o + 3u] = exp2(x);
    if ((id.x & 3u) != 1u)
    {
        Out[o + 4u] = log(x);
        Out[o + 5u] = log2(x);
        Out[o + 6u] = log10(x);
        Out[o + 7u] = pow(x, In[id.x ^ 5u]);
    }
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        f32::from_bits(1),
        f32::MIN_POSITIVE,
        f32::MAX,
        -f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::from_bits(0xFF80_1234),
        524_288.0,
        -524_287.97,
        1e20,
        std::f32::consts::PI,
        88.7,
        -103.9,
    ];
    let n = 256usize;
    let input: Vec<f32> = (0..n)
        .map(|i| match specials.get(i) {
            Some(&x) => x,
            None => {
                let h = (i as u32).wrapping_mul(2_654_435_761);
                f32::from_bits(h >> 1) * if h & 1 == 0 { 1.0 } else { -1e-30 }
            }
        })
        .collect();
    let p = pipeline(
        [(n / 64) as u32, 1, 1],
        &[
            buf(
                "In",
                Kind::StructuredBuffer,
                0,
                input.iter().map(|x| x.to_bits()).collect(),
            ),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![7; 8 * n]),
        ],
    );
    for w in [8, 16, 32, 64] {
        let (native, interpreted) = (run(&shader, &p, w, true), run(&shader, &p, w, false));
        assert_eq!(native, interpreted, "wave size {w}");
        let out = &native[1];
        for (i, &x) in input.iter().enumerate() {
            let mut want = vec![math::sin(x), math::cos(x), math::exp(x), math::exp2(x)];
            if i & 3 != 1 {
                let y = input[i ^ 5];
                want.extend([math::log(x), math::log2(x), math::log10(x), ops::pow(x, y)]);
            }
            let got = &out[8 * i..8 * i + want.len()];
            let want: Vec<u32> = want.iter().map(|v| v.to_bits()).collect();
            assert_eq!(got, &want[..], "wave size {w}, x = {x:e}");
            if i & 3 == 1 {
                assert_eq!(
                    &out[8 * i + 4..8 * i + 8],
                    &[7; 4],
                    "untaken lanes keep their words"
                );
            }
        }
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
    // A quad operation (adding 0): the lanes are 2×2 blocks of the group.
    uint v = Tex[id.xy] * 3u + Flat[id.y * 20u + id.x] + QuadReadLaneAt(0u, 0u);
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

/// 64-bit integers and `double`s in machine code: splitmix64 (shifts,
/// xors, wrapping adds and multiplies) against a Rust reference; signed
/// and unsigned comparisons, shifts by variable counts, conversions, a
/// divergent branch and a `?:` on 64-bit values, 64-bit loads and stores,
/// and operations the machine code hands to the interpreter, against the
/// interpreter at every wave size.
#[test]
fn wide_values_agree() {
    let source = r#"
StructuredBuffer<uint2> Keys : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
RWStructuredBuffer<uint64_t> Wide : register(u1);
RWStructuredBuffer<double> Doubles : register(u2);

uint64_t wide(uint hi, uint lo)
{
    uint64_t h = hi;
    return (h << 32) | lo;
}

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint2 k = Keys[id.x];
    uint64_t z = wide(k.y, k.x);
    z += wide(0x9E3779B9u, 0x7F4A7C15u);
    z = (z ^ (z >> 30)) * wide(0xBF58476Du, 0x1CE4E5B9u);
    z = (z ^ (z >> 27)) * wide(0x94D049BBu, 0x133111EBu);
    z ^= z >> 31;
    uint o = id.x * 8u;
    Out[o] = uint(z);
    Out[o + 1u] = uint(z >> 32);
    uint64_t q = QuadReadAcrossX(z) ^ WaveReadLaneFirst(z) ^ QuadReadAcrossY(z) ^ QuadReadAcrossDiagonal(z);

    int64_t s = int64_t(wide(k.x, k.y));
    uint n = k.x & 63u;
    int64_t t = s >> n;
    uint64_t u = (uint64_t)s >> (uint64_t)n;
    Out[o + 2u] = uint(t) ^ uint(u >> 7) ^ uint(t >> 33);
    Out[o + 3u] = (s < int64_t(z) ? 1u : 0u) | (z <= (uint64_t)s ? 2u : 0u)
        | (s >= -5 ? 4u : 0u) | (u != z ? 8u : 0u) | (u > 12345678901ull ? 16u : 0u);
    if ((k.x & 3u) == 1u)
    {
        z = -z + ~u + WaveReadLaneFirst(q);
        s = int(k.y) * (int64_t)-3;
    }
    uint64_t m = (k.y & 1u) != 0u ? z : u;
    Wide[id.x] = m + (uint64_t)s;
    Out[o + 4u] = uint(Wide[id.x ^ 1u] >> 3);

    double d = double(k.x) * 0.5 + double(int(k.y)) / 3.0;
    d += WaveReadLaneFirst(d) - QuadReadAcrossX(d);
    double e = d - (double)(float)d * 1.25;
    Doubles[id.x] = e;
    Out[o + 5u] = uint(d > e) | (uint(d == d) << 1) | (uint(e <= 0.0) << 2);
    Out[o + 6u] = asuint(float(e));
    uint lo, hi;
    asuint(d * d, lo, hi);
    Out[o + 7u] = lo ^ hi ^ countbits(z) ^ uint(clamp(s, -100, (int64_t)100));
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let n = 320usize;
    let keys: Vec<u32> = (0..2 * n as u32)
        .map(|i| match i {
            0..4 => [0, u32::MAX, 0x8000_0000, 1][i as usize],
            _ => i.wrapping_mul(0x9E37_79B9).rotate_left(i % 29),
        })
        .collect();
    let p = pipeline(
        [(n / 64) as u32, 1, 1],
        &[
            buf("Keys", Kind::StructuredBuffer, 0, keys.clone()),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 8 * n]),
            buf("Wide", Kind::RwStructuredBuffer, 1, vec![0; 2 * n]),
            buf("Doubles", Kind::RwStructuredBuffer, 2, vec![0; 2 * n]),
        ],
    );
    for w in [8, 16, 32, 64] {
        let native = agreeing(&shader, &p, w);
        for i in 0..n {
            let mut z = (u64::from(keys[2 * i + 1]) << 32 | u64::from(keys[2 * i]))
                .wrapping_add(0x9E37_79B9_7F4A_7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            let out = &native[1][8 * i..];
            assert_eq!(
                [out[0], out[1]],
                [z as u32, (z >> 32) as u32],
                "splitmix64 of key {i}"
            );
        }
    }
}

/// 64-bit loads and stores at addresses that are negative, past the end,
/// straddling it, 4-byte but not 8-byte aligned, misaligned, repeated and
/// uniform, on divergent lanes, in device and shared memory: the machine
/// code's gathers and lane-by-lane stores read 0 and drop the writes where
/// the interpreter does.
#[test]
fn wide_memory_edges_agree() {
    let source = r#"
ByteAddressBuffer Raw : register(t0);
StructuredBuffer<uint64_t> Data : register(t1);
RWStructuredBuffer<uint64_t> Out : register(u0);
RWByteAddressBuffer RawOut : register(u1);
RWStructuredBuffer<double> Scattered : register(u2);
groupshared uint64_t Shared[64];

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 group : SV_GroupID, uint gi : SV_GroupIndex)
{
    uint t = id.x;
    int k = (int)(t * 7u) - 100;
    uint64_t v = Data[k] + Raw.Load<uint64_t>(t * 4u) + Raw.Load<uint64_t>(t * 3u) + Data[3];
    Shared[gi] = v * (uint64_t)(group.x + 1u);
    GroupMemoryBarrierWithGroupSync();
    if ((t & 1u) != 0u)
        v += Data[t * 13u] ^ Shared[63u - gi];
    Out[t] = v;
    if ((t % 3u) != 0u)
        RawOut.Store<uint64_t>(t * 12u, v);
    if (gi < 50u)
        Scattered[group.x * 100u + (gi * 37u) % 100u] = (double)t * 0.5;
    if (gi > 30u)
        Scattered[group.x * 100u + (gi * gi) % 7u] = (double)Data[t & 7u];
    if (gi == 5u)
        Scattered[7] = 3.0;
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let data: Vec<u32> = (0..130u32).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
    let raw: Vec<u32> = (0..127u32).map(|i| i * 0x0101_0101).collect();
    let p = pipeline(
        [2, 1, 1],
        &[
            buf("Raw", Kind::ByteAddressBuffer, 0, raw),
            buf("Data", Kind::StructuredBuffer, 1, data),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![7; 256]),
            buf("RawOut", Kind::RwByteAddressBuffer, 1, vec![0; 301]),
            buf("Scattered", Kind::RwStructuredBuffer, 2, vec![0; 380]),
        ],
    );
    for w in [8, 16, 32, 64] {
        agreeing(&shader, &p, w);
    }
}

/// `n` words of two halves each, half `i` rounded from `f(i)`.
fn halves(n: u32, f: &dyn Fn(u32) -> f32) -> Vec<u32> {
    (0..n)
        .map(|i| {
            let lo = half::f16::from_f32(f(2 * i)).to_bits();
            let hi = half::f16::from_f32(f(2 * i + 1)).to_bits();
            u32::from(lo) | u32::from(hi) << 16
        })
        .collect()
}

/// 16-bit loads and stores (`-enable-16bit-types`): halves at even and odd
/// word positions, past the end of a buffer whose last word is half
/// there, at odd bytes, negative, repeated and uniform, on divergent
/// lanes, in device and shared memory, with `half` and `int16_t`
/// arithmetic between them: the machine code reads 0 and drops the writes
/// where the interpreter does, and every bit agrees.
#[test]
fn sixteen_bit_memory_agrees() {
    let source = r#"
ByteAddressBuffer Raw : register(t0);
StructuredBuffer<half> Data : register(t1);
StructuredBuffer<half4> Quads : register(t2);
RWStructuredBuffer<half> Out : register(u0);
RWByteAddressBuffer RawOut : register(u1);
RWStructuredBuffer<int16_t> Ints : register(u2);
groupshared half Shared[64];

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 group : SV_GroupID, uint gi : SV_GroupIndex)
{
    uint t = id.x;
    int k = (int)(t * 7u) - 100;
    half v = Data[k] + Raw.Load<half>(t * 2u) * Raw.Load<half>(t * 3u) - Data[3];
    v += Quads[t].y * Data[t + 1u] - Quads[t ^ 1u].w;
    v += QuadReadAcrossX(v) * WaveReadLaneFirst(v) - QuadReadLaneAt(v, 2u) + WaveReadLaneAt(v, t & 7u);
    Shared[gi] = v * (half)(group.x + 1u);
    GroupMemoryBarrierWithGroupSync();
    if ((t & 1u) != 0u)
        v = v / Data[t * 13u] + Shared[63u - gi];
    Out[t] = v;
    if ((t % 3u) != 0u)
        RawOut.Store<half>(t * 5u, v);
    // Each group writes its own 90 halves (the second group's last one
    // past the end); none reads what another group writes.
    int16_t n = Ints[90u + (t & 7u)];
    n ^= WaveActiveBitOr(n) ^ WaveActiveBitXor((int16_t)t) ^ (WaveActiveAllEqual(n) ? (int16_t)5 : (int16_t)9);
    n += (int16_t)WaveActiveMax((uint16_t)n) - (int16_t)WaveActiveMin((uint16_t)t);
    if (gi < 50u)
        Ints[group.x * 100u + (gi * 37u) % 90u] = (int16_t)(n * (int16_t)3 - (int16_t)t);
    if (gi > 30u)
        Ints[group.x * 100u + (gi * gi) % 7u] = (int16_t)(n >> 2) ^ (int16_t)(v < (half)2.0 ? 1 : 2);
    if (gi == 5u)
        Ints[7] = (int16_t)-3;
}
"#;
    let opts = CompileOptions {
        enable_16bit_types: true,
        ..CompileOptions::default()
    };
    let shader = compile(source, &opts);
    let data = halves(65, &|i| (i as f32 - 40.0) * 0.37);
    let raw = halves(63, &|i| {
        if i % 17 == 3 {
            f32::NAN
        } else {
            i as f32 * 0.125
        }
    });
    let quads = halves(255, &|i| (i % 37) as f32 * 0.25 - 3.0);
    let mut p = pipeline(
        [2, 1, 1],
        &[
            buf("Raw", Kind::ByteAddressBuffer, 0, raw),
            buf("Data", Kind::StructuredBuffer, 1, data),
            buf("Quads", Kind::StructuredBuffer, 2, quads),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![7; 64]),
            buf("RawOut", Kind::RwByteAddressBuffer, 1, vec![0; 150]),
            buf("Ints", Kind::RwStructuredBuffer, 2, vec![0x0005_FFF0; 95]),
        ],
    );
    // Odd element counts: the last word of each buffer is half there.
    use lockstep::pipeline::Format;
    for (b, format, bytes) in [
        (1, Format::Float16, 129 * 2),
        (2, Format::Float16, 127 * 8),
        (3, Format::Float16, 127 * 2),
        (5, Format::Int16, 189 * 2),
    ] {
        let buffer = &mut p.buffers[b];
        buffer.format = format;
        buffer.data.truncate(bytes);
    }
    for w in [8, 16, 32, 64] {
        agreeing(&shader, &p, w);
    }
}

/// Vector loads whose lanes read elements of one aligned run of eight out
/// of order (a neighbour's, `x ^ 1`; a run reversed; a shuffle), which
/// machine code loads whole and permutes, and those that leave the run
/// (`x + 1`), reach past the end or wrap below 0, which it loads component
/// by component: every bit agrees with the interpreter, on divergent lanes
/// and partial waves too.
#[test]
fn vector_loads_within_a_run_agree() {
    let source = r#"
StructuredBuffer<float4> F4 : register(t0);
StructuredBuffer<float2> F2 : register(t1);
StructuredBuffer<half4> H4 : register(t2);
StructuredBuffer<half2> H2 : register(t3);
ByteAddressBuffer Raw : register(t4);
RWStructuredBuffer<float4> Out : register(u0);

[numthreads(60, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint t = id.x;
    float4 a = F4[t ^ 1u] + F4[(t & ~7u) | (7u - (t & 7u))] * 2.0;
    float2 b = F2[t ^ 3u] - F2[t + 1u];
    half4 c = H4[t ^ 1u] * H4[(t & ~7u) | ((t * 5u) & 7u)];
    half2 d = H2[t ^ 2u];
    float4 e = asfloat(Raw.Load4((t ^ 1u) * 16u));
    if ((t % 3u) != 0u)
        a += F4[(t ^ 4u) + 8u] + F4[t - 70u];
    if (t > 100u)
        b += F2[t ^ 1u];
    Out[t] = a + float4(b, b) + (float4)c + float4((float2)d, 1.0, 2.0) + e;
}
"#;
    let opts = CompileOptions {
        enable_16bit_types: true,
        ..CompileOptions::default()
    };
    let shader = compile(source, &opts);
    let floats =
        |n: u32| -> Vec<u32> { (0..n).map(|i| (i as f32 * 0.75 - 9.0).to_bits()).collect() };
    let mut p = pipeline(
        [3, 1, 1],
        &[
            buf("F4", Kind::StructuredBuffer, 0, floats(4 * 185)),
            buf("F2", Kind::StructuredBuffer, 1, floats(2 * 181)),
            buf(
                "H4",
                Kind::StructuredBuffer,
                2,
                halves(4 * 179, &|i| (i % 29) as f32 * 0.5 - 6.0),
            ),
            buf(
                "H2",
                Kind::StructuredBuffer,
                3,
                halves(2 * 183, &|i| (i % 13) as f32 - 4.0),
            ),
            buf("Raw", Kind::ByteAddressBuffer, 4, floats(4 * 178)),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 4 * 180]),
        ],
    );
    use lockstep::pipeline::Format;
    for (b, format) in [(2, Format::Float16), (3, Format::Float16)] {
        p.buffers[b].format = format;
    }
    let shuffled = agreeing(&shader, &p, 8);
    for w in [4, 16, 32, 64] {
        assert_eq!(agreeing(&shader, &p, w), shuffled, "wave size {w}");
    }
    // Thread 2's x: F4[3] and F4[5] (7 - 2 in the run 0..8), F4[14]
    // (2 ^ 4, plus 8), F4[2 - 70] out of bounds (0); F2[1] - F2[3];
    // H4[3] * H4[2]; H2[0]; the raw words 12..16.
    let f = |i: u32| i as f32 * 0.75 - 9.0;
    let out = f32::from_bits(shuffled[5][4 * 2]);
    let a = f(4 * 3) + f(4 * 5) * 2.0 + f(4 * 14);
    let b = f(2) - f(2 * 3);
    let c = (12.0 * 0.5 - 6.0) * (8.0 * 0.5 - 6.0);
    let d = 0.0 - 4.0;
    let e = f(12);
    let want = a + b + c + d + e;
    assert_eq!(want, 38.0);
    assert_eq!(out, want, "thread 2's x");
}

/// `GetDimensions` of structured buffers (4- and 12-byte elements, a
/// buffer that ends inside an element) and of a byte-address buffer, in
/// machine code: the same counts as the interpreter and as the buffers'
/// sizes say, and `Engine::Auto` keeps the machine code for them.
/// Runs of `half` and `int16_t` operations with no branch between them
/// run chunk by chunk with their values in vector registers: more values
/// than there are registers, values overwritten in place, read again
/// several operations later, compared, and written on divergent lanes
/// only (inside an `if` every write is masked). Every bit agrees with the
/// interpreter.
#[test]
fn chains_of_sixteen_bit_operations_agree() {
    let source = r#"
StructuredBuffer<half4> In : register(t0);
RWStructuredBuffer<half4> Out : register(u0);
RWStructuredBuffer<int16_t> Ints : register(u1);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint t = id.x;
    half4 c = In[t];
    half4 d = In[t ^ 3u];
    half a = c.w * (half)0.5;
    half b = (half)1.0 - a;
    half e = c.x * d.y - c.y * d.x + c.z * d.w - c.w * d.z;
    half f = e * e - a * b + c.x / (d.y + (half)3.0);
    half g = f - e + a - b + c.z * (half)0.25 - d.x * (half)0.125;
    half h = g * f - e * b + a;
    half4 r = c * a + d * b;
    r = r * r * (half)0.75 + (half)0.125;
    r.x = r.x * h - g;
    r.y = r.y - f * e;
    int16_t n = (int16_t)t * (int16_t)7 - (int16_t)300;
    n = n * n + (int16_t)t ^ (int16_t)0x5A5;
    if ((t % 3u) != 0u)
    {
        r.z = r.z * e + f - g * h;
        r.w = r.w * r.x - r.y * r.z + a;
        e = e * (half)2.0 + f;
        n = n * (int16_t)3 - (int16_t)t;
        n = n + n * (int16_t)5;
    }
    bool less = e < f;
    r.x += less ? h : g;
    Out[t] = r;
    Ints[t] = n + (int16_t)(e > (half)1.0 ? 1 : 0);
}
"#;
    let opts = CompileOptions {
        enable_16bit_types: true,
        ..CompileOptions::default()
    };
    let shader = compile(source, &opts);
    let input = halves(256, &|i| ((i * 37) % 61) as f32 * 0.0625 - 1.5);
    let mut p = pipeline(
        [2, 1, 1],
        &[
            buf("In", Kind::StructuredBuffer, 0, input),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 256]),
            buf("Ints", Kind::RwStructuredBuffer, 1, vec![0; 64]),
        ],
    );
    use lockstep::pipeline::Format;
    p.buffers[0].format = Format::Float16;
    p.buffers[1].format = Format::Float16;
    p.buffers[2].format = Format::Int16;
    for w in [8, 16, 32, 64] {
        let out = agreeing(&shader, &p, w);
        // Not all zero: the arithmetic ran.
        assert!(out[1].iter().any(|&x| x != 0), "wave size {w}");
    }
}

/// Products of 16-bit matrices with themselves: each product's two
/// operands are chunks the machine code holds in vector registers, and
/// loading the second must not take the first's register.
#[test]
fn sixteen_bit_matrix_products_agree() {
    let source = r#"
StructuredBuffer<half> In : register(t0);
RWStructuredBuffer<half> Out : register(u0);
RWStructuredBuffer<int16_t> Ints : register(u1);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    half2x2 m = half2x2(In[0], In[1], In[2], In[3]);
    half2x2 p = mul(m, m);
    half2x2 q = mul(m, transpose(m));
    uint o = id.x * 8u;
    Out[o] = p[0][0]; Out[o + 1u] = p[0][1]; Out[o + 2u] = p[1][0]; Out[o + 3u] = p[1][1];
    Out[o + 4u] = q[0][0]; Out[o + 5u] = q[0][1]; Out[o + 6u] = q[1][0]; Out[o + 7u] = q[1][1];
    int16_t t = (int16_t)(id.x & 7u);
    int16_t2x3 a = int16_t2x3(t, 2, 3, 4, 5, (int16_t)6 - t);
    int16_t2x2 r = mul(a, transpose(a));
    uint k = id.x * 4u;
    Ints[k] = r[0][0]; Ints[k + 1u] = r[0][1]; Ints[k + 2u] = r[1][0]; Ints[k + 3u] = r[1][1];
}
"#;
    let opts = CompileOptions {
        enable_16bit_types: true,
        ..CompileOptions::default()
    };
    let shader = compile(source, &opts);
    let mut p = pipeline(
        [1, 1, 1],
        &[
            // Rows (1, 2) and (3, 4).
            buf(
                "In",
                Kind::StructuredBuffer,
                0,
                vec![0x4000_3C00, 0x4400_4200],
            ),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 256]),
            buf("Ints", Kind::RwStructuredBuffer, 1, vec![0; 128]),
        ],
    );
    use lockstep::pipeline::Format;
    p.buffers[0].format = Format::Float16;
    p.buffers[1].format = Format::Float16;
    p.buffers[2].format = Format::Int16;
    let half = |x: f32| u32::from(half::f16::from_f32(x).to_bits());
    let halves = |w: &[u32], i: usize| (w[i / 2] >> (16 * (i % 2))) & 0xFFFF;
    for w in [8, 16, 32, 64] {
        let out = agreeing(&shader, &p, w);
        for t in 0..64usize {
            // m·m = (7, 10; 15, 22); m·mᵀ = (5, 11; 11, 25).
            let got: Vec<u32> = (0..8).map(|i| halves(&out[1], 8 * t + i)).collect();
            let want: Vec<u32> = [7., 10., 15., 22., 5., 11., 11., 25.].map(half).to_vec();
            assert_eq!(got, want, "wave size {w}, thread {t}");
            // a = (t, 2, 3; 4, 5, 6 - t): a·aᵀ = (t² + 13, 4t + 28 - 3t; …, 41 + (6 - t)²).
            let t16 = (t % 8) as i32;
            let off = 4 * t16 + 10 + 3 * (6 - t16);
            let want = [t16 * t16 + 13, off, off, 41 + (6 - t16) * (6 - t16)];
            let got: Vec<i32> = (0..4)
                .map(|i| halves(&out[2], 4 * t + i) as i16 as i32)
                .collect();
            assert_eq!(got, want, "wave size {w}, thread {t}");
        }
    }
}

/// `min`, `max`, `clamp`, `saturate`, `lerp`, negation and `abs` on
/// 16-bit `half`s run as
/// machine code with no callout, and give `lockstep_wave::ops`' bits for
/// NaNs, signed zeros, infinities and subnormals.
#[test]
fn half_min_max_clamp_saturate_and_lerp_agree() {
    use half::f16;
    use lockstep::wave::{Arith, ops};
    let source = r#"
StructuredBuffer<half> In : register(t0);
RWStructuredBuffer<half> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    half x = In[id.x], y = In[(id.x * 7u + 3u) % 64u], z = In[(id.x * 5u + 1u) % 64u];
    uint o = id.x * 7u;
    Out[o] = min(x, y);
    Out[o + 1u] = max(x, y);
    Out[o + 2u] = clamp(x, y, z);
    Out[o + 3u] = saturate(x);
    Out[o + 4u] = lerp(x, y, z);
    Out[o + 5u] = -x;
    Out[o + 6u] = abs(y);
}
"#;
    let opts = CompileOptions {
        enable_16bit_types: true,
        ..CompileOptions::default()
    };
    let shader = compile(source, &opts);
    let specials = [
        0x7E00u16, 0xFE00, 0x0000, 0x8000, 0x7C00, 0xFC00, 0x0001, 0x8001, 0x3C00, 0xBC00, 0x3800,
        0x7BFF, 0x03FF, 0x4200, 0xC500, 0x7D00,
    ];
    let input: Vec<u16> = (0..64)
        .map(|i| specials[i % 16] ^ ((i / 16) as u16 & 1))
        .collect();
    let words: Vec<u32> = input
        .chunks(2)
        .map(|p| u32::from(p[0]) | u32::from(p[1]) << 16)
        .collect();
    let mut p = pipeline(
        [1, 1, 1],
        &[
            buf("In", Kind::StructuredBuffer, 0, words),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 224]),
        ],
    );
    use lockstep::pipeline::Format;
    p.buffers[0].format = Format::Float16;
    p.buffers[1].format = Format::Float16;
    assert_no_callouts(&shader);
    let h = |i: usize| f16::from_bits(input[i]);
    for w in [8, 32] {
        let out = agreeing(&shader, &p, w);
        let got = |i: usize| (out[1][i / 2] >> (16 * (i % 2))) as u16;
        for t in 0..64 {
            let (x, y, z) = (h(t), h((t * 7 + 3) % 64), h((t * 5 + 1) % 64));
            let want = [
                Arith::min(x, y),
                Arith::max(x, y),
                ops::clamp(x, y, z),
                ops::saturate(x),
                ops::lerp(x, y, z),
                Arith::neg(x),
                Arith::abs(y),
            ];
            for (k, want) in want.iter().enumerate() {
                assert_eq!(
                    got(7 * t + k),
                    want.to_bits(),
                    "wave size {w}, thread {t}, result {k}"
                );
            }
        }
    }
}

/// Signed indices scaled by a size that is no power of two (a `float3`
/// of 12 bytes, a row of 20 words), negative ones included: machine code
/// with no callout, as the interpreter computes the addresses.
#[test]
fn signed_indices_scale_by_any_size() {
    let source = r#"
RWStructuredBuffer<float> Out : register(u0);
groupshared float3 T[64];
groupshared float Rows[4][20];

[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    int i = int(gi) - 8;
    T[gi] = float3(gi, gi * 2, gi * 3);
    int r = int(gi / 20u), c = int(gi % 20u);
    if (r < 3) Rows[r + 1][c] = gi;
    GroupMemoryBarrierWithGroupSync();
    float3 v = i >= 0 ? T[i] : float3(0, 0, 0);
    // A negative row plus a column past the row's end: word 22 from every
    // lane, the negative rows on lanes 2 and 3 of each four.
    uint k = gi & 3u;
    float w = Rows[1 - int(k)][k * 20u + 2u];
    Out[gi] = v.x + v.y * 1000.0 + (r < 3 ? Rows[r + 1][c] : 0.0) * 1000000.0 + (w == 2.0 ? 0.0 : 0.5);
}
"#;
    let shader = compile(source, &CompileOptions::default());
    assert_no_callouts(&shader);
    let p = pipeline(
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 64])],
    );
    for w in [8, 32] {
        let out = agreeing(&shader, &p, w);
        for g in 0..64u32 {
            let v = if g >= 8 { (g - 8) as f32 * 2001.0 } else { 0.0 };
            let row = if g < 60 { g as f32 * 1_000_000.0 } else { 0.0 };
            assert_eq!(
                f32::from_bits(out[0][g as usize]),
                v + row,
                "wave size {w}, thread {g}"
            );
        }
    }
}

/// Local and `static const` arrays read at each lane's own index run as
/// machine code with no callout; an index past the end reads 0.
#[test]
fn local_arrays_read_at_lane_indices_agree() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
static const uint W[5] = { 10, 20, 30, 40, 50 };

[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint t[6] = { gi, gi * 2u, gi * 3u, 7u, 8u, 9u };
    uint i = gi % 7u;
    Out[gi] = t[i] + W[gi % 5u] * 1000u;
}
"#;
    let shader = compile(source, &CompileOptions::default());
    assert_no_callouts(&shader);
    let p = pipeline(
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 64])],
    );
    for w in [8, 16, 32, 64] {
        let out = agreeing(&shader, &p, w);
        for g in 0..64u32 {
            let t = [g, g * 2, g * 3, 7, 8, 9];
            let read = t.get((g % 7) as usize).copied().unwrap_or(0);
            assert_eq!(
                out[0][g as usize],
                read + [10, 20, 30, 40, 50][(g % 5) as usize] * 1000,
                "wave size {w}, thread {g}"
            );
        }
    }
}

/// `double` negation, `abs`, `min` and `max` run as machine code with no
/// callout, with `lockstep_wave`'s bits for NaNs, signed zeros and
/// infinities.
#[test]
fn double_neg_abs_min_max_agree() {
    use lockstep::wave::Arith;
    let source = r#"
StructuredBuffer<double> In : register(t0);
RWStructuredBuffer<double> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    double x = In[id.x], y = In[(id.x * 7u + 3u) % 64u];
    uint o = id.x * 4u;
    Out[o] = -x;
    Out[o + 1u] = abs(x);
    Out[o + 2u] = min(x, y);
    Out[o + 3u] = max(x, y);
}
"#;
    let shader = compile(source, &CompileOptions::default());
    assert_no_callouts(&shader);
    let specials = [
        f64::NAN.to_bits(),
        (-f64::NAN).to_bits(),
        0,
        (-0.0f64).to_bits(),
        f64::INFINITY.to_bits(),
        f64::NEG_INFINITY.to_bits(),
        1,
        1.5f64.to_bits(),
        (-2.25f64).to_bits(),
        f64::MAX.to_bits(),
        0x7FF0_0000_0000_0001,
        (-1.0e-300f64).to_bits(),
    ];
    let input: Vec<u64> = (0..64)
        .map(|i| specials[i % specials.len()] ^ (i as u64 / 12))
        .collect();
    let words: Vec<u32> = input
        .iter()
        .flat_map(|&v| [v as u32, (v >> 32) as u32])
        .collect();
    let p = pipeline(
        [1, 1, 1],
        &[
            buf("In", Kind::StructuredBuffer, 0, words),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 512]),
        ],
    );
    let d = |i: usize| f64::from_bits(input[i]);
    for w in [8, 32] {
        let out = agreeing(&shader, &p, w);
        let got = |i: usize| u64::from(out[1][2 * i + 1]) << 32 | u64::from(out[1][2 * i]);
        for t in 0..64 {
            let (x, y) = (d(t), d((t * 7 + 3) % 64));
            let want = [
                Arith::neg(x),
                Arith::abs(x),
                Arith::min(x, y),
                Arith::max(x, y),
            ];
            for (k, want) in want.iter().enumerate() {
                assert_eq!(
                    got(4 * t + k),
                    want.to_bits(),
                    "wave size {w}, thread {t}, result {k}"
                );
            }
        }
    }
}

/// Long runs of 64-bit operations with more live values than the machine
/// code keeps in registers, some on divergent lanes: every value reaches
/// its register whether a later operation overwrites it or not.
#[test]
fn long_wide_runs_agree() {
    let source = r#"
StructuredBuffer<uint2> Keys : register(t0);
RWStructuredBuffer<uint64_t> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint2 k = Keys[id.x];
    uint64_t a = ((uint64_t)k.y << 32) | k.x;
    uint64_t b = a * 3 + 1;
    uint64_t c = b ^ (a >> 7);
    uint64_t d = c * b - a;
    uint64_t e = d + (c << 5);
    uint64_t f = e ^ b ^ a;
    uint64_t g = f * d + c;
    uint64_t h = g - e * 9;
    uint64_t i = h ^ (g >> 13) ^ f;
    uint64_t j = i + a + b + c + d + e;
    if ((k.x & 1u) != 0u)
    {
        j = j * 5 + h;
        a = a ^ j;
    }
    uint64_t l = j * i + h * g - f * e + d * c - b * a;
    Out[id.x * 3u] = l;
    Out[id.x * 3u + 1u] = a ^ (j >> 1);
    // x is updated in place: its value is let go while the products are
    // made, read back, then overwritten.
    uint64_t x = l * 0x100000001B3ull;
    uint64_t y1 = x * 3, y2 = x * 5, y3 = x * 7, y4 = x * 9;
    uint64_t y5 = x * 11, y6 = x * 13, y7 = x * 15, y8 = x * 17;
    x = x + y1; x = x ^ y2; x = x + y3; x = x ^ y4;
    x = x + y5; x = x ^ y6; x = x + y7; x = x ^ y8;
    Out[id.x * 3u + 2u] = x;
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let keys: Vec<u32> = (0..128u32)
        .map(|i| i.wrapping_mul(0x9E37_79B9) ^ (i << 3))
        .collect();
    let p = pipeline(
        [1, 1, 1],
        &[
            buf("Keys", Kind::StructuredBuffer, 0, keys.clone()),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 384]),
        ],
    );
    for w in [8, 16, 32, 64] {
        let out = agreeing(&shader, &p, w);
        for t in 0..64usize {
            let (x, y) = (keys[2 * t], keys[2 * t + 1]);
            let mut a = u64::from(y) << 32 | u64::from(x);
            let b = a.wrapping_mul(3).wrapping_add(1);
            let c = b ^ (a >> 7);
            let d = c.wrapping_mul(b).wrapping_sub(a);
            let e = d.wrapping_add(c << 5);
            let f = e ^ b ^ a;
            let g = f.wrapping_mul(d).wrapping_add(c);
            let h = g.wrapping_sub(e.wrapping_mul(9));
            let i = h ^ (g >> 13) ^ f;
            let mut j = [a, b, c, d, e].iter().fold(i, |s, &v| s.wrapping_add(v));
            if x & 1 != 0 {
                j = j.wrapping_mul(5).wrapping_add(h);
                a ^= j;
            }
            let l = j
                .wrapping_mul(i)
                .wrapping_add(h.wrapping_mul(g))
                .wrapping_sub(f.wrapping_mul(e))
                .wrapping_add(d.wrapping_mul(c))
                .wrapping_sub(b.wrapping_mul(a));
            let x = l.wrapping_mul(0x0100_0000_01B3);
            let y = |k: u64| x.wrapping_mul(k);
            let x = [3, 5, 7, 9, 11, 13, 15, 17]
                .iter()
                .enumerate()
                .fold(x, |x, (n, &k)| {
                    if n % 2 == 0 {
                        x.wrapping_add(y(k))
                    } else {
                        x ^ y(k)
                    }
                });
            let word = |i: usize| u64::from(out[1][2 * i + 1]) << 32 | u64::from(out[1][2 * i]);
            assert_eq!(
                [word(3 * t), word(3 * t + 1), word(3 * t + 2)],
                [l, a ^ (j >> 1), x],
                "wave size {w}, thread {t}"
            );
        }
    }
}

/// Whole `float4`, `uint2`, `half4` and `half2` elements stored per lane:
/// in order, on divergent lanes, at overlapping elements (two lanes to an
/// element), past the end of the buffer, at a misaligned element, in
/// shared memory and in partial groups. Every bit agrees with the
/// interpreter, including which lane's write stays where two write one
/// element.
#[test]
fn vector_stores_agree() {
    let source = r#"
RWStructuredBuffer<float4> Fours : register(u0);
RWStructuredBuffer<uint2> Twos : register(u1);
RWStructuredBuffer<half4> Halves : register(u2);
RWStructuredBuffer<half2> Pairs : register(u3);
RWByteAddressBuffer Raw : register(u4);
groupshared float4 Shared[40];

[numthreads(40, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    uint t = id.x;
    float f = (float)t * 0.5f - 3.0f;
    float4 v = float4(f, f * 2.0f, -f, f + 0.25f);
    Fours[t] = v;
    if ((t % 3u) != 0u)
        Fours[t + 130u] = v * 3.0f;
    Fours[260u + t / 2u] = v + (float)(t & 1u);
    Twos[t] = uint2(t * 7u, t ^ 0x55u);
    Twos[t + 120u] = uint2(t, t + 1u);
    Halves[t] = (half4)v;
    if (t < 50u)
        Pairs[t] = half2((half)f, (half)(f * 0.5f));
    Raw.Store4(t * 16u + 4u, asuint(v));
    Shared[gi] = v * 2.0f;
    GroupMemoryBarrierWithGroupSync();
    Fours[330u + t] = Shared[(gi + 1u) % 40u];
}
"#;
    let opts = CompileOptions {
        enable_16bit_types: true,
        ..CompileOptions::default()
    };
    let shader = compile(source, &opts);
    let mut p = pipeline(
        [3, 1, 1],
        &[
            buf("Fours", Kind::RwStructuredBuffer, 0, vec![7; 4 * 440]),
            buf("Twos", Kind::RwStructuredBuffer, 1, vec![7; 2 * 200]),
            buf("Halves", Kind::RwStructuredBuffer, 2, vec![7; 2 * 120]),
            buf("Pairs", Kind::RwStructuredBuffer, 3, vec![7; 45]),
            buf("Raw", Kind::RwByteAddressBuffer, 4, vec![7; 4 * 121]),
        ],
    );
    use lockstep::pipeline::Format;
    p.buffers[0].format = Format::Float32;
    p.buffers[2].format = Format::Float16;
    p.buffers[3].format = Format::Float16;
    for w in [8, 16, 32, 64] {
        let out = agreeing(&shader, &p, w);
        // Lane 5's float4 and uint2, as the source writes them.
        let f = 5.0f32 * 0.5 - 3.0;
        let want = [f, f * 2.0, -f, f + 0.25].map(f32::to_bits);
        assert_eq!(out[0][20..24], want, "wave size {w}");
        assert_eq!(out[1][10..12], [35, 5 ^ 0x55], "wave size {w}");
    }
}

/// Whole `float4`, `uint2`, `half4` and `half2` elements loaded per lane:
/// in order, on divergent lanes (the others keep their values), past the
/// end of the buffer, reversed, two lanes to an element, at a misaligned
/// element, from shared memory and in partial groups. Every bit agrees
/// with the interpreter, and lane 5's values are the buffer's.
#[test]
fn vector_loads_agree() {
    let source = r#"
StructuredBuffer<float4> Fours : register(t0);
StructuredBuffer<uint2> Twos : register(t1);
StructuredBuffer<half4> Halves : register(t2);
StructuredBuffer<half2> Pairs : register(t3);
ByteAddressBuffer Raw : register(t4);
RWStructuredBuffer<float4> Out : register(u0);
RWStructuredBuffer<uint4> Words : register(u1);
groupshared float4 Shared[40];

[numthreads(40, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    uint t = id.x;
    float4 a = Fours[t];
    float4 b = float4(1.0f, 2.0f, 3.0f, 4.0f);
    if ((t % 3u) != 0u)
        b = Fours[t + 70u];
    float4 c = Fours[119u - t] + Fours[t / 2u];
    uint2 u = Twos[t];
    uint2 v = Twos[t + 60u];
    float4 h = (float4)Halves[t];
    float2 p = (float2)Pairs[t];
    uint4 r = Raw.Load4(t * 16u + 4u);
    Shared[gi] = a * 2.0f;
    GroupMemoryBarrierWithGroupSync();
    float4 s = Shared[(gi + 1u) % 40u];
    Out[t] = a + b * 2.0f + c * 3.0f + h * 5.0f + s * 7.0f + float4(p, p * 0.5f);
    Words[t] = uint4(u.x ^ v.y, u.y + v.x, r.x ^ r.w, r.y + r.z);
}
"#;
    let opts = CompileOptions {
        enable_16bit_types: true,
        ..CompileOptions::default()
    };
    let shader = compile(source, &opts);
    let floats: Vec<u32> = (0..4 * 150u32)
        .map(|i| ((i * 37 % 101) as f32 * 0.25 - 7.0).to_bits())
        .collect();
    let halves: Vec<u32> = (0..2 * 110u32)
        .map(|i| {
            let h = |x: u32| u32::from(half::f16::from_f32((x % 23) as f32 * 0.5 - 4.0).to_bits());
            h(2 * i) | h(2 * i + 1) << 16
        })
        .collect();
    let mut p = pipeline(
        [3, 1, 1],
        &[
            buf("Fours", Kind::StructuredBuffer, 0, floats.clone()),
            buf(
                "Twos",
                Kind::StructuredBuffer,
                1,
                (0..2 * 150u32)
                    .map(|i| i.wrapping_mul(2_654_435_761))
                    .collect(),
            ),
            buf("Halves", Kind::StructuredBuffer, 2, halves.clone()),
            buf("Pairs", Kind::StructuredBuffer, 3, halves[..100].to_vec()),
            buf(
                "Raw",
                Kind::ByteAddressBuffer,
                4,
                floats[..4 * 100].to_vec(),
            ),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 4 * 120]),
            buf("Words", Kind::RwStructuredBuffer, 1, vec![0; 4 * 120]),
        ],
    );
    use lockstep::pipeline::Format;
    p.buffers[2].format = Format::Float16;
    p.buffers[3].format = Format::Float16;
    for w in [8, 16, 32, 64] {
        let out = agreeing(&shader, &p, w);
        // Lane 0 of `Words`: u = Twos[0], v = Twos[60], r = Raw words 1..5.
        let twos = |i: u32| i.wrapping_mul(2_654_435_761);
        let (u, v) = ([twos(0), twos(1)], [twos(120), twos(121)]);
        let r = &floats[1..5];
        let want = [
            u[0] ^ v[1],
            u[1].wrapping_add(v[0]),
            r[0] ^ r[3],
            r[1].wrapping_add(r[2]),
        ];
        assert_eq!(out[6][..4], want, "wave size {w}");
    }
}

#[test]
fn resource_queries_agree() {
    let source = r#"
struct Item { uint a; float b; uint c; };
StructuredBuffer<uint> Words : register(t0);
StructuredBuffer<Item> Items : register(t1);
ByteAddressBuffer Raw : register(t2);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint n, stride, m, items, bytes;
    Words.GetDimensions(n, stride);
    Items.GetDimensions(items, m);
    Raw.GetDimensions(bytes);
    if ((id.x & 1u) != 0u)
        Out[id.x] = Words[id.x % n] + n * 1000u + stride * 100u + items * 10u + m + bytes * 100000u;
    else
        Out[id.x] = n ^ items;
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let p = pipeline(
        [2, 1, 1],
        &[
            buf("Words", Kind::StructuredBuffer, 0, (0..37).collect()),
            buf("Items", Kind::StructuredBuffer, 1, vec![5; 3 * 7]),
            buf("Raw", Kind::ByteAddressBuffer, 2, vec![1; 11]),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 128]),
        ],
    );
    for w in [8, 16, 32, 64] {
        let report = shader.program.engine_report(w, lockstep::Engine::Auto);
        assert!(report.native, "wave size {w}: {:?}", report.reason);
        let out = &agreeing(&shader, &p, w)[3];
        assert_eq!(out[0], 37 ^ 7);
        assert_eq!(out[5], 5 + 37 * 1000 + 400 + 70 + 12 + 44 * 100_000);
    }
}

/// Atomics whose results nothing reads, at constant addresses, held by the
/// machine code and applied when a worker's batch ends (one operation per
/// buffer, as holding asks): every fold on two threads against totals the
/// test computes, and against the interpreter.
#[test]
fn held_atomics_apply_every_update() {
    let source = r#"
RWByteAddressBuffer Sums : register(u0);
RWByteAddressBuffer Ors : register(u1);
RWByteAddressBuffer Maxima : register(u2);
RWByteAddressBuffer Minima : register(u3);
RWByteAddressBuffer Xors : register(u4);
RWByteAddressBuffer Ands : register(u5);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint v = id.x * 2654435761u;
    uint s = WaveActiveSum(id.x);
    if (WaveIsFirstLane())
        Sums.InterlockedAdd(0, s);
    Sums.InterlockedAdd(4, 1u);
    Ors.InterlockedOr(0, 1u << (id.x % 31u));
    Maxima.InterlockedMax(0, v);
    Minima.InterlockedMin(0, v);
    Xors.InterlockedXor(0, v);
    Ands.InterlockedAnd(0, ~(1u << (id.x % 29u + 2u)) | (id.x & 1u));
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let groups = 300u32;
    let threads = 64 * groups;
    let p = pipeline(
        [groups, 1, 1],
        &[
            buf("Sums", Kind::RwByteAddressBuffer, 0, vec![0, 7]),
            buf("Ors", Kind::RwByteAddressBuffer, 1, vec![0]),
            buf("Maxima", Kind::RwByteAddressBuffer, 2, vec![0]),
            buf("Minima", Kind::RwByteAddressBuffer, 3, vec![u32::MAX]),
            buf("Xors", Kind::RwByteAddressBuffer, 4, vec![0]),
            buf("Ands", Kind::RwByteAddressBuffer, 5, vec![u32::MAX]),
        ],
    );
    let v = |t: u32| t.wrapping_mul(2_654_435_761);
    let want = vec![
        vec![(0..threads).fold(0u32, u32::wrapping_add), 7 + threads],
        vec![(0..threads).fold(0, |a, t| a | 1 << (t % 31))],
        vec![(0..threads).map(v).max().unwrap()],
        vec![(0..threads).map(v).min().unwrap()],
        vec![(0..threads).fold(0, |a, t| a ^ v(t))],
        vec![(0..threads).fold(u32::MAX, |a, t| a & (!(1 << (t % 29 + 2)) | (t & 1)))],
    ];
    for w in [8, 32] {
        for (threads, engine) in [
            (2, lockstep::Engine::Native),
            (1, lockstep::Engine::Native),
            (2, lockstep::Engine::Interpreter),
        ] {
            let opts = RunOptions {
                wave_size: w,
                wave_sizes: (w, w),
                threads,
                engine,
                ..RunOptions::default()
            };
            let out = lockstep::run(&shader, &p, &opts).expect("the run succeeds");
            let got: Vec<Vec<u32>> = out.contents.iter().map(|b| words_of(b)).collect();
            assert_eq!(got, want, "wave size {w}, {threads} threads, {engine:?}");
        }
    }
}

/// A resource whose atomics could be held, bound to the same buffer as
/// one that reads it: each wave reads the count that the waves before it
/// and its own first lane added, so nothing may be held back.
#[test]
fn atomics_on_a_buffer_read_through_another_binding_are_not_held() {
    let source = r#"
RWByteAddressBuffer Count : register(u0);
RWByteAddressBuffer Seen : register(u1);
RWStructuredBuffer<uint> Out : register(u2);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    if (WaveIsFirstLane())
        Count.InterlockedAdd(0, 1u);
    Out[id.x] = Seen.Load(0);
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let mut p = pipeline(
        [1, 1, 1],
        &[
            buf("Count", Kind::RwByteAddressBuffer, 0, vec![0]),
            buf("Out", Kind::RwStructuredBuffer, 2, vec![0; 64]),
        ],
    );
    // `Seen` is `Count` again.
    let mut seen = p.bindings[0].clone();
    seen.register = 1;
    p.bindings.insert(1, seen);
    let w = 8;
    let out = agreeing(&shader, &p, w);
    let want: Vec<u32> = (0..64).map(|t| t / w + 1).collect();
    assert_eq!(out[1], want);
}

/// Local arrays indexed by a variable, in loops and beside buffer
/// accesses, so that the registers of the values gathered and scattered
/// serve addresses elsewhere: the machine code takes them, and agrees with
/// the interpreter and with the values worked out by hand. An array of
/// 64-bit values gives its values either way.
#[test]
fn local_arrays_run_as_machine_code() {
    let source = r#"
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

struct Item { uint key; float weight; uint flags[4]; };

float helper(Item item, float scale)
{
    float acc = 0.0f;
    for (uint i = 0; i < 4; ++i)
    {
        if ((item.flags[i] & 1u) != 0)
            acc += item.weight * scale + float(i);
        else
            acc -= 0.5f;
    }
    return acc;
}

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Item it;
    it.key = In[id.x];
    it.weight = float(it.key & 255u) * 0.25f;
    for (uint j = 0; j < 4; ++j)
        it.flags[j] = (it.key >> j) & 1u;
    uint table[8];
    for (uint k = 0; k < 8; ++k)
        table[k] = In[(id.x + k) % 320u] ^ k;
    Out[2u * id.x] = asuint(helper(it, 1.5f));
    Out[2u * id.x + 1u] = table[it.key & 7u] + table[(it.key >> 3) & 7u];
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let n = 320usize;
    let input: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(0x9E37_79B9) >> 7)
        .collect();
    let p = pipeline(
        [(n / 64) as u32, 1, 1],
        &[
            buf("In", Kind::StructuredBuffer, 0, input.clone()),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 2 * n]),
        ],
    );
    for w in [8, 32, 64] {
        let out = &agreeing(&shader, &p, w)[1];
        for i in 0..n {
            let key = input[i];
            let weight = (key & 255) as f32 * 0.25;
            let mut acc = 0.0f32;
            for b in 0..4 {
                if (key >> b) & 1 != 0 {
                    acc += weight * 1.5 + b as f32;
                } else {
                    acc -= 0.5;
                }
            }
            let table = |k: u32| input[(i + k as usize) % n] ^ k;
            let sum = table(key & 7).wrapping_add(table((key >> 3) & 7));
            assert_eq!(
                [out[2 * i], out[2 * i + 1]],
                [acc.to_bits(), sum],
                "thread {i}"
            );
        }
    }

    let wide = r#"
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint64_t v[4];
    for (uint k = 0; k < 4; ++k)
        v[k] = ((uint64_t)(id.x + k) << 32) | k;
    uint64_t x = v[id.x & 3u];
    Out[2u * id.x] = uint(x);
    Out[2u * id.x + 1u] = uint(x >> 32);
}
"#;
    let shader = compile(wide, &CompileOptions::default());
    let p = pipeline(
        [(n / 64) as u32, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 2 * n])],
    );
    for w in [8, 32] {
        let out = &run(&shader, &p, w, true)[0];
        for i in 0..n as u32 {
            let k = i & 3;
            let at = 2 * i as usize;
            assert_eq!(
                [out[at], out[at + 1]],
                [k, i + k],
                "thread {i}, wave size {w}"
            );
        }
    }
}

/// `WaveMatch`, the `WaveMultiPrefix*` operations and the wave operations
/// the machine code has no code of its own for run once for a pass's waves
/// (the interpreter splits the pass into waves): on divergent lanes, with
/// waves of several groups side by side, they agree with the interpreter,
/// and a lane's count of the lanes below it with its key is the one worked
/// out by hand.
#[test]
fn wave_operations_run_once_for_a_pass() {
    let source = r#"
StructuredBuffer<uint> Keys : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(32, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint key = Keys[id.x];
    uint o = id.x * 8u;
    if (id.x % 3u != 0u)
    {
        uint4 m = WaveMatch(key);
        Out[o] = WaveMultiPrefixCountBits(true, m);
        Out[o + 1u] = WaveMultiPrefixSum(key, m);
        Out[o + 2u] = asuint(WaveMultiPrefixProduct(float(key & 7u) * 0.5f + 0.25f, m));
        Out[o + 3u] = WaveMultiPrefixBitOr(1u << (id.x & 31u), m) ^ WaveMultiPrefixBitXor(key * 7u, m);
        Out[o + 4u] = uint(WaveMultiPrefixSum(-int(key), m)) + WaveMultiPrefixBitAnd(~key, m);
        Out[o + 5u] = m.x ^ (m.y * 3u) ^ (m.z * 5u) ^ (m.w * 7u);
        uint4 b = WaveActiveBallot((key & 1u) != 0u);
        Out[o + 6u] = b.x ^ b.y ^ b.z ^ b.w;
        Out[o + 7u] = uint(WaveMatch(float(key & 3u) - 1.0f).x);
    }
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let n = 8 * 32usize;
    let keys: Vec<u32> = (0..n as u32).map(|i| (i * 7 + i / 5) % 5).collect();
    let p = pipeline(
        [(n / 32) as u32, 1, 1],
        &[
            buf("Keys", Kind::StructuredBuffer, 0, keys.clone()),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 8 * n]),
        ],
    );
    for w in [8, 16, 32, 64] {
        let out = &agreeing(&shader, &p, w)[1];
        for i in (0..n).filter(|i| i % 3 != 0) {
            // Waves of `w` threads; groups of 32 hold whole waves or are
            // one part of a wave of 64 (a group's threads fill its waves).
            let ws = w as usize;
            let (wave_start, lane) = if ws <= 32 {
                (i - i % ws, i % ws)
            } else {
                (i - i % 32, i % 32)
            };
            let below = (wave_start..wave_start + lane)
                .filter(|&k| k % 3 != 0 && keys[k] == keys[i])
                .count() as u32;
            assert_eq!(out[8 * i], below, "thread {i}, wave size {w}");
        }
    }
}

/// A load from one address for every lane (a groupshared scalar, a
/// buffer's first element) on lanes where the first lane of some chunks
/// of eight is inactive: every active lane gets the word, in every chunk.
#[test]
fn uniform_loads_reach_every_active_lane() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
StructuredBuffer<uint> In : register(t0);
groupshared uint g_total;

[numthreads(40, 1, 1)]
void main(uint gi : SV_GroupIndex, uint3 dtid : SV_DispatchThreadID)
{
    if (gi == 0)
        g_total = 210;
    GroupMemoryBarrierWithGroupSync();
    if (gi % 8 == 0 || gi % 5 == 3)
        return;
    Out[2u * dtid.x] = g_total;
    if (gi % 3 != 0)
        Out[2u * dtid.x + 1u] = In[0] + gi;
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let n = 3 * 40usize;
    let p = pipeline(
        [3, 1, 1],
        &[
            buf("Out", Kind::RwStructuredBuffer, 0, vec![7; 2 * n]),
            buf("In", Kind::StructuredBuffer, 0, vec![1000, 1, 2]),
        ],
    );
    for w in [8, 16, 32, 64] {
        let out = &agreeing(&shader, &p, w)[0];
        for t in 0..n {
            let gi = (t % 40) as u32;
            let gone = gi.is_multiple_of(8) || gi % 5 == 3;
            let want = [
                if gone { 7 } else { 210 },
                if gone || gi.is_multiple_of(3) {
                    7
                } else {
                    1000 + gi
                },
            ];
            assert_eq!(
                [out[2 * t], out[2 * t + 1]],
                want,
                "thread {t}, wave size {w}"
            );
        }
    }
}

/// The byte strides of the loads and stores whose lanes' addresses follow
/// each other by construction at wave 8, for a body in a group of
/// `threads` (0 for the others).
fn consecutive(threads: &str, body: &str) -> Vec<u32> {
    let source = format!(
        r#"
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads({threads})]
void main(uint3 id : SV_DispatchThreadID, uint3 gtid : SV_GroupThreadID, uint gi : SV_GroupIndex)
{{
{body}
}}
"#
    );
    compile(&source, &CompileOptions::default())
        .program
        .consecutive_strides(8)
}

/// Which addresses the machine code takes as a chunk whose lanes follow
/// each other, checking the first lane's bounds alone: the thread index
/// and what adds a value common to the chunk or scales it, where eight
/// lanes lie in one row of the group. Not where a variable is written
/// twice, or on some lanes only, or scaled by a lane's own value.
#[test]
fn addresses_are_consecutive_only_by_construction() {
    let cases: [(&str, &str, &[u32]); 15] = [
        ("64, 1, 1", "Out[id.x] = 1u;", &[4]),
        ("64, 1, 1", "Out[id.x * 2u + 1u] = 1u;", &[8]),
        ("64, 1, 1", "Out[gi * 3u] = 1u;", &[12]),
        ("64, 1, 1", "Out[gi * 9u] = 1u;", &[0]),
        ("100, 1, 1", "Out[id.x] = 1u;", &[4]),
        ("8, 3, 1", "Out[gtid.y * 8u + gtid.x] = 1u;", &[4]),
        ("8, 4, 1", "Out[gtid.y * 8u + gtid.x] = 1u;", &[4]),
        // A quad operation: the lanes are 2×2 blocks of the group.
        (
            "8, 4, 1",
            "Out[gtid.y * 8u + gtid.x] = QuadReadLaneAt(1u, 0u);",
            &[0],
        ),
        ("4, 4, 1", "Out[gtid.x] = 1u;", &[0]),
        ("64, 1, 1", "int k = (int)id.x - 5; Out[k] = 1u;", &[4]),
        ("64, 1, 1", "Out[id.x * id.x] = 1u;", &[0]),
        ("64, 1, 1", "Out[In[id.x]] = 1u;", &[4, 0]),
        (
            "64, 1, 1",
            "uint i = id.x; for (uint j = 0u; j < 3u; j++) { Out[i] = j; i = In[i]; }",
            &[0, 0],
        ),
        (
            "64, 1, 1",
            "uint i = id.x; if (In[0] == 7u) i = id.x * id.x; Out[i] = 1u;",
            &[0, 0],
        ),
        (
            "64, 1, 1",
            "uint m = 0u; if ((id.x & 1u) != 0u) m = id.x; Out[m] = 1u;",
            &[0],
        ),
    ];
    for (threads, body, expected) in cases {
        assert_eq!(
            consecutive(threads, body),
            expected,
            "[numthreads({threads})] {body}"
        );
    }
}

/// Accesses consecutive by construction where the fast path must step
/// aside: a first lane below 0, chunks that run past the end of a buffer
/// (loads read 0 there, stores drop), a partial last group of a 1D group
/// whose size is no multiple of 8, divergent lanes, and strided stores.
#[test]
fn consecutive_accesses_at_the_edges_agree() {
    let source = r#"
StructuredBuffer<uint> In : register(t0);
StructuredBuffer<uint2> Pairs : register(t1);
RWStructuredBuffer<uint> Out : register(u0);
RWStructuredBuffer<uint> Spread : register(u1);

[numthreads(100, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    uint t = id.x;
    int k = (int)t - 5;
    uint v = In[k] + In[t + 150u] * 3u + Pairs[t].y * 5u;
    if ((t % 3u) != 1u)
        v += In[t * 2u + 1u] * 7u;
    Out[t] = v;
    if ((t & 4u) == 0u)
        Spread[gi * 2u + 1u] = t;
}
"#;
    let shader = compile(source, &CompileOptions::default());
    assert!(
        shader
            .program
            .consecutive_strides(8)
            .iter()
            .filter(|&&s| s > 0)
            .count()
            >= 5,
        "{:?}",
        shader.program.consecutive_strides(8)
    );
    let input: Vec<u32> = (0..190u32)
        .map(|i| i.wrapping_mul(0x9E37_79B9) >> 8)
        .collect();
    let pairs: Vec<u32> = (0..2 * 150u32).map(|i| i * 11 + 1).collect();
    // 200 threads; Out ends at thread 195, Spread in the middle of a chunk.
    let p = pipeline(
        [2, 1, 1],
        &[
            buf("In", Kind::StructuredBuffer, 0, input.clone()),
            buf("Pairs", Kind::StructuredBuffer, 1, pairs.clone()),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 195]),
            buf("Spread", Kind::RwStructuredBuffer, 1, vec![0; 203]),
        ],
    );
    let load = |buffer: &[u32], i: i64| {
        usize::try_from(i)
            .ok()
            .and_then(|i| buffer.get(i))
            .copied()
            .unwrap_or(0)
    };
    let mut out = vec![0u32; 195];
    let mut spread = vec![0u32; 203];
    for t in 0..200u32 {
        let mut v = load(&input, i64::from(t) - 5)
            .wrapping_add(load(&input, i64::from(t) + 150).wrapping_mul(3))
            .wrapping_add(load(&pairs, 2 * i64::from(t) + 1).wrapping_mul(5));
        if t % 3 != 1 {
            v = v.wrapping_add(load(&input, 2 * i64::from(t) + 1).wrapping_mul(7));
        }
        if let Some(o) = out.get_mut(t as usize) {
            *o = v;
        }
        if t & 4 == 0
            && let Some(s) = spread.get_mut((t % 100 * 2 + 1) as usize)
        {
            // Both groups write the same words: the second group's last.
            *s = t;
        }
    }
    for w in [8, 16, 32, 64] {
        let buffers = agreeing(&shader, &p, w);
        assert_eq!(buffers[2], out, "wave size {w}: Out");
        assert_eq!(buffers[3], spread, "wave size {w}: Spread");
    }
}

/// A buffer larger than the caches, written past them in whole aligned
/// chunks (`lockstep::exec::streaming_store_bytes`), by two threads:
/// every word lands, next to partial chunks, misaligned chunks and lanes
/// that store nothing.
#[test]
fn streaming_stores_land() {
    let bytes = lockstep::exec::streaming_store_bytes();
    if bytes > 256 << 20 {
        eprintln!("skipped: stores stream past the caches from {bytes} bytes on");
        return;
    }
    let source = r#"
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
RWStructuredBuffer<uint> Shifted : register(u1);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint t = id.x;
    uint v = In[t & 1023u] * 3u + t;
    Out[t] = v;
    if ((t % 7u) != 3u)
        Shifted[t + 1u] = v ^ 5u;
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let n = (bytes / 4 + 1000).next_multiple_of(64) as u32;
    let input: Vec<u32> = (0..1024u32).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
    let p = pipeline(
        [n / 64, 1, 1],
        &[
            buf("In", Kind::StructuredBuffer, 0, input.clone()),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![9; n as usize]),
            buf(
                "Shifted",
                Kind::RwStructuredBuffer,
                1,
                vec![9; n as usize + 1],
            ),
        ],
    );
    let value = |t: u32| input[(t & 1023) as usize].wrapping_mul(3).wrapping_add(t);
    for w in [8, 32] {
        let opts = RunOptions {
            wave_size: w,
            wave_sizes: (w, w),
            threads: 2,
            engine: lockstep::Engine::Native,
            ..RunOptions::default()
        };
        let run = lockstep::run(&shader, &p, &opts).unwrap_or_else(|e| panic!("{e}"));
        let (out, shifted) = (words_of(&run.contents[1]), words_of(&run.contents[2]));
        for t in 0..n {
            assert_eq!(out[t as usize], value(t), "wave size {w}: Out[{t}]");
            let expected = if t % 7 == 3 { 9 } else { value(t) ^ 5 };
            assert_eq!(
                shifted[t as usize + 1],
                expected,
                "wave size {w}: Shifted[{t} + 1]"
            );
        }
        assert_eq!(shifted[0], 9, "wave size {w}: Shifted[0]");
    }
}

/// Floats at the edges (signalling and quiet NaNs with payloads, both
/// zeros, infinities, subnormals, the largest finite values, integers past
/// 2^31) through arithmetic, builtins, conversions and wave operations in
/// `float`, `half` and `double`: native code and the interpreter agree bit
/// for bit at waves of 4, 8 and 32.
#[test]
fn edge_floats_agree() {
    let source = r#"
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(32, 1, 1)]
void main(uint t : SV_GroupIndex)
{
    float x = asfloat(In[t]);
    float y = asfloat(In[(t * 7u + 3u) % 32u]);
    uint o = t * 40u;
    Out[o + 0u] = asuint(x + y);
    Out[o + 1u] = asuint(x - y);
    Out[o + 2u] = asuint(x * y);
    Out[o + 3u] = asuint(x / y);
    Out[o + 4u] = asuint(min(x, y));
    Out[o + 5u] = asuint(max(x, y));
    Out[o + 6u] = asuint(floor(x)) ^ asuint(ceil(y));
    Out[o + 7u] = asuint(trunc(x)) ^ asuint(round(y));
    Out[o + 8u] = asuint(sqrt(x));
    Out[o + 9u] = asuint(rsqrt(x));
    Out[o + 10u] = asuint(frac(x));
    Out[o + 11u] = asuint(abs(x)) ^ asuint(-y);
    Out[o + 12u] = asuint(sin(x)) ^ asuint(cos(y));
    Out[o + 13u] = asuint(exp(x)) ^ asuint(log(y));
    Out[o + 14u] = asuint(pow(x, y));
    Out[o + 15u] = asuint(exp2(x)) ^ asuint(log2(y));
    Out[o + 16u] = (uint)(int)x;
    Out[o + 17u] = (uint)x;
    Out[o + 18u] = f32tof16(x);
    Out[o + 19u] = asuint(f16tof32(In[t]));
    Out[o + 20u] = (isnan(x) ? 1u : 0u) | (isinf(x) ? 2u : 0u) | (isfinite(x) ? 4u : 0u);
    Out[o + 21u] = (x < y ? 1u : 0u) | (x <= y ? 2u : 0u) | (x == y ? 4u : 0u) | (x != y ? 8u : 0u);
    Out[o + 22u] = asuint(saturate(x));
    Out[o + 23u] = asuint(clamp(x, -1.0f, y));
    Out[o + 24u] = asuint(mad(x, y, 1.0f));
    Out[o + 25u] = asuint(lerp(x, y, 0.25f));
    Out[o + 26u] = asuint(sign(x)) ^ asuint(step(x, y));
    Out[o + 27u] = asuint(WaveActiveSum(x));
    Out[o + 28u] = asuint(WaveActiveMin(x));
    Out[o + 29u] = asuint(WaveActiveMax(x));
    Out[o + 30u] = asuint(WavePrefixSum(x));
    Out[o + 31u] = asuint(WaveActiveProduct(y));
    Out[o + 32u] = asuint(QuadReadAcrossX(x)) ^ asuint(WaveReadLaneFirst(y));
    half hx = (half)x;
    half hy = (half)y;
    Out[o + 33u] = asuint((float)(hx + hy)) ^ (asuint((float)(hx * hy)) << 1);
    Out[o + 34u] = asuint((float)min(hx, hy)) ^ asuint((float)floor(hy));
    double dx = (double)x;
    double dy = (double)y;
    uint lo, hi;
    asuint(dx * dy + dx, lo, hi);
    Out[o + 35u] = lo ^ hi;
    asuint(min(dx, dy), lo, hi);
    Out[o + 36u] = lo ^ hi;
    Out[o + 37u] = (uint)(int)(dx / dy);
    Out[o + 38u] = asuint((float)(dx - dy));
    Out[o + 39u] = asuint(x > 0.0f ? x : y);
}
"#;
    let opts = CompileOptions {
        enable_16bit_types: true,
        ..CompileOptions::default()
    };
    let shader = compile(source, &opts);
    let words: Vec<u32> = vec![
        0x7F80_0001, // signalling NaN
        0xFFC0_1234, // quiet NaN, sign and payload
        0x7FC0_0000,
        0x0000_0000,
        0x8000_0000,
        0x7F80_0000,
        0xFF80_0000,
        0x0000_0001, // the least subnormal
        0x807F_FFFF, // the largest negative subnormal
        0x7F7F_FFFF,
        0xFF7F_FFFF,
        0x4F00_0000, // 2^31
        0xCF00_0001,
        0x4F80_0000, // 2^32
        0x3F80_0000,
        0xBF80_0000,
        0x3F00_0000, // 0.5
        0x4020_0000, // 2.5
        0xC020_0000,
        0x477F_E000, // 65504, half's largest
        0x4780_0000, // 65536
        0x3380_0000, // 2^-24, half's least subnormal
        0x3300_0000,
        0x7E00_0000,
        0x4049_0FDB, // pi
        0x4B00_0001,
        0xCB7F_FFFF,
        0x3EAA_AAAB,
        0x0080_0000, // the least normal
        0x7C00_7C00,
        0x0000_7E01,
        0x1234_5678,
    ];
    let p = pipeline(
        [1, 1, 1],
        &[
            buf("In", Kind::StructuredBuffer, 0, words),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 32 * 40]),
        ],
    );
    for w in [4, 8, 32] {
        agreeing(&shader, &p, w);
    }
}
