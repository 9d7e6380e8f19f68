//! Robustness: no input makes the checker panic, and deep nesting ends in a
//! diagnostic instead of a stack overflow.

use expect_test::expect;

use crate::{body, check, compile};

const SAMPLES: &[&str] = &[
    "struct S { float3 p; uint n[2]; };
    StructuredBuffer<S> items : register(t0);
    RWStructuredBuffer<uint> out_buf;
    RWByteAddressBuffer raw;
    cbuffer C { float k; uint4 mask; };
    groupshared uint counter;
    static const uint N = 4;
    static float w[2] = { 1, 2 };
    float f(float x, out int y, inout float3 z) { y = (int)x; z.xy += x; return x * k; }
    [numthreads(N, 1, 1)]
    void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex) {
        S s = items[id.x];
        int y; float3 z = s.p;
        float r = f(s.p.x, y, z);
        for (uint i = 0; i < N; ++i) { if (i == 2) continue; r += w[i % 2]; }
        switch (gi) { case 0: r = 1; case 1: break; default: r = -r; }
        uint old; InterlockedAdd(counter, 1, old);
        raw.Store(0, asuint(r)); raw.InterlockedOr(4, mask.x);
        out_buf[id.x] = WaveActiveSum(old) + WavePrefixCountBits(r > 0) + (uint)dot(z, z);
        GroupMemoryBarrierWithGroupSync();
        do { r *= 0.5; } while (r > 1 && WaveActiveAnyTrue(r > 2));
        float4x4 m = (float4x4)0; float4 v = mul(m, float4(z, 1)); v.xz = v.yw;
    }",
    "typedef uint2 pair;
    static const int table[3] = { 1, 2, 3 };
    int g(int a) { return a < 0 ? -a : table[a % 3]; }
    [numthreads(8, 8, 1)]
    void main(uint3 t : SV_GroupThreadID) {
        pair p = t.xy; int acc = 0;
        while (acc < 10) { acc += g(p.x) << 1; if (WaveIsFirstLane()) break; }
        bool4 b = select(p.xyxy > 2, true, false); acc |= all(b) ? 1 : 0;
    }",
];

/// Every prefix and every line deletion of the samples compiles without a
/// panic (and, when it has no error, produces IR that verifies).
#[test]
fn truncated_and_damaged_sources() {
    for sample in SAMPLES {
        let boundaries: Vec<usize> = sample.char_indices().map(|(i, _)| i).step_by(3).collect();
        for end in boundaries {
            compile(&sample[..end], &Default::default());
        }
        let lines: Vec<&str> = sample.lines().collect();
        for skip in 0..lines.len() {
            let damaged: Vec<&str> = lines
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != skip)
                .map(|(_, l)| *l)
                .collect();
            compile(&damaged.join("\n"), &Default::default());
        }
    }
}

#[test]
fn deep_expression_nesting() {
    let deep = format!("int x = {}1{};", "(".repeat(300), ")".repeat(300));
    let out = compile(&body(&deep), &Default::default());
    assert!(out.contains("error"), "{out}");
    let negations = format!("int x = {}1;", "-".repeat(400));
    let out = compile(&body(&negations), &Default::default());
    assert!(out.contains("error"), "{out}");
}

#[test]
fn deep_statement_nesting() {
    let blocks = format!("{}{}", "{".repeat(300), "}".repeat(300));
    let out = compile(&body(&blocks), &Default::default());
    assert!(out.contains("error"), "{out}");
    let ifs = format!("int x; {} x = 1;", "if (x) ".repeat(300));
    let out = compile(&body(&ifs), &Default::default());
    assert!(out.contains("error"), "{out}");
}

#[test]
fn moderate_nesting_is_fine() {
    let nested = format!("int x = {}1{};", "(".repeat(50), ")".repeat(50));
    check(
        &body(&nested),
        expect![[r#"
            fn main() -> void {
              local %x: int
              %x = 1;
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn samples_compile() {
    for sample in SAMPLES {
        let out = compile(sample, &Default::default());
        assert!(!out.contains("error"), "{out}");
    }
}
