//! Normal runs turn runs of 32-bit operations into `Block32`s (with machine
//! code where the CPU has AVX2), compile `mad`, `lerp`, `clamp` and the
//! like into those operations, and run the cheap arms of a `?:` (and the
//! cheap right side of `&&` and `||`) on every lane and select; checked
//! runs do one operation at a time and branch for every `?:`, `&&` and
//! `||`, and for every `if` (which normal runs compile to selects where
//! its branches only assign cheap values to locals). Random `float` expressions, with integer operations reached
//! through conversions and bit casts, `?:` and `select`, on lanes holding
//! zeros, NaNs, infinities and subnormals, alone and under a branch, give
//! the same bits both ways at every wave size.

use lockstep::pipeline::Kind;
use lockstep::{CompileOptions, RunOptions};
use proptest::prelude::*;

use crate::harness::{WAVE_SIZES, buf, compile, pipeline};

/// A random `float` expression over `a`, `b` and `c`.
fn float_expr() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("a".to_string()),
        Just("b".to_string()),
        Just("c".to_string()),
        prop::sample::select(vec![
            "0.5f", "-2.0f", "3.0f", "1e30f", "0.0f", "-0.0f", "1e-40f"
        ])
        .prop_map(str::to_string),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        let one = prop::sample::select(vec![
            "-({0})",
            "abs({0})",
            "sqrt({0})",
            "floor({0})",
            "ceil({0})",
            "round({0})",
            "trunc({0})",
            "frac({0})",
            "saturate({0})",
            "rcp({0})",
            "rsqrt({0})",
            "(float)(int)({0})",
            "(float)(uint)({0})",
            "(float)((uint)({0}) ^ 0x55u)",
            "(float)(((int)({0}) >> 1) + min((int)({0}), 7))",
            "asfloat(asuint({0}) & 0xFF7FFFFFu)",
            "(float)(~(uint)({0}) >> 9)",
            "(float)sign({0})",
            "(float)(countbits(asuint({0})) + firstbitlow((int)({0})))",
            "asfloat(reversebits(asuint({0})))",
            "(float)(firstbithigh(asuint({0})) ^ (uint)firstbithigh(asint({0})))",
        ]);
        let two = prop::sample::select(vec![
            "({0} + {1})",
            "({0} - {1})",
            "({0} * {1})",
            "({0} / {1})",
            "min({0}, {1})",
            "max({0}, {1})",
            "(float)({0} < {1})",
            "(float)({0} != {1}) + (float)({0} >= {1})",
            "(float)(max((uint)({0}), (uint)({1})))",
            "({0} >= 0.0f ? {0} : -({1}))",
            "step({0}, {1})",
            "(float)({0} != {0} || {1} > 0.5f)",
            "(float)(isnan({0}) | isinf({1})) + (float)!isfinite({0} * {1})",
            "(float)(({0} < {1}) == !({1} < 0.0f)) + (float)any(float2({0}, {1}) > 1.0f)",
            "(float)((uint)({0}) > (uint)({1}) ? (uint)({0}) - (uint)({1}) : 7u)",
        ]);
        let three = prop::sample::select(vec![
            "mad({0}, {1}, {2})",
            "lerp({0}, {1}, {2})",
            "clamp({0}, {1}, {2})",
            "({0} < {1} ? {1} : {2})",
            "select({0} > {2}, {1}, {2})",
            "smoothstep({0}, {1}, {2})",
            "({0} < {1} && {1} < {2} ? {0} : {2})",
            // Arms that must keep their branch: a wave op sees only the
            // lanes that take it.
            "((uint)({0}) % 3u == 0u ? {1} : WaveReadLaneFirst({2}))",
        ]);
        prop_oneof![
            (one, inner.clone()).prop_map(|(f, x)| f.replace("{0}", &x)),
            (two, inner.clone(), inner.clone())
                .prop_map(|(f, x, y)| f.replace("{0}", &x).replace("{1}", &y)),
            (three, inner.clone(), inner.clone(), inner).prop_map(|(f, x, y, z)| f
                .replace("{0}", &x)
                .replace("{1}", &y)
                .replace("{2}", &z)),
        ]
    })
}

/// A lane's word: often a special `float`, else any bits.
fn word() -> impl Strategy<Value = u32> {
    prop_oneof![
        2 => any::<u32>(),
        1 => 0x3F00_0000u32..0x4100_0000,
        1 => prop::sample::select(vec![
            0u32, 0x8000_0000, 0x3F80_0000, 0xBF80_0000, 0x7F80_0000, 0xFF80_0000,
            0x7FC0_0000, 0xFFC1_2345, 0x7F80_0001, 1, 0x0040_0000, 0x4F80_0000, 0xCF00_0000,
        ]),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn float_blocks_give_the_bits_of_one_operation_at_a_time(
        whole in float_expr(),
        branch in float_expr(),
        small in float_expr(),
        lanes in prop::collection::vec(word(), 3 * 64),
    ) {
        let source = format!(
            r#"
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{{
    float a = asfloat(In[id.x * 3]);
    float b = asfloat(In[id.x * 3 + 1]);
    float c = asfloat(In[id.x * 3 + 2]);
    float r = c;
    if (In[id.x * 3] & 1)
    {{
        r = {branch};
    }}
    // Two branches, a negated condition, two variables.
    float s = b;
    uint k = asuint(c);
    if (!(a < {small}))
    {{
        s = {small};
        k ^= 5u;
    }}
    else
        s = s * 2.0f;
    // A read that a lane makes only where it picks it.
    uint m = (asuint(a) & 3u) == 0u ? In[(id.x * 3 + (asuint(b) & 0xFFu)) % 192u] : 7u;
    Out[id.x * 5] = asuint({whole});
    Out[id.x * 5 + 1] = asuint(r);
    Out[id.x * 5 + 2] = asuint(s);
    Out[id.x * 5 + 3] = k;
    Out[id.x * 5 + 4] = m;
}}
"#
        );
        let shader = compile(&source, &CompileOptions::default());
        let p = pipeline(
            [1, 1, 1],
            &[
                buf("In", Kind::StructuredBuffer, 0, lanes.clone()),
                buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 5 * 64]),
            ],
        );
        for wave_size in WAVE_SIZES {
            let opts = RunOptions {
                wave_size,
                threads: 1,
                ..RunOptions::default()
            };
            let normal = lockstep::run(&shader, &p, &opts).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let (checked, report) =
                lockstep::run_checked(&shader, &p, &opts).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(report.findings.is_empty(), "{:?}", report.findings);
            prop_assert_eq!(
                &normal.contents[1],
                &checked.contents[1],
                "wave {}: {} / {} / {}",
                wave_size,
                whole,
                branch,
                small
            );
        }
    }
}
