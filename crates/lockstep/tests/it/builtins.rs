//! Math and bit built-ins at run time, against hand-derived values.

use lockstep::pipeline::Kind;

use crate::harness::{WAVE_SIZES, buf, run_words};

/// Runs `exprs` (each a `float` expression) on one lane and returns the
/// results.
fn floats(exprs: &[&str]) -> Vec<f32> {
    let body: String = exprs
        .iter()
        .enumerate()
        .map(|(i, e)| format!("    Out[{i}] = asuint((float)({e}));\n"))
        .collect();
    let source = format!(
        "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(1, 1, 1)]\nvoid main()\n{{\n{body}}}\n"
    );
    let out = run_words(
        &source,
        [1, 1, 1],
        &[buf(
            "Out",
            Kind::RwStructuredBuffer,
            0,
            vec![0; exprs.len()],
        )],
        4,
    )
    .remove(0);
    out.iter().map(|&b| f32::from_bits(b)).collect()
}

fn uints(exprs: &[&str]) -> Vec<u32> {
    let body: String = exprs
        .iter()
        .enumerate()
        .map(|(i, e)| format!("    Out[{i}] = (uint)({e});\n"))
        .collect();
    let source = format!(
        "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(1, 1, 1)]\nvoid main()\n{{\n    int m = -3;\n    uint z = 0;\n{body}}}\n"
    );
    run_words(
        &source,
        [1, 1, 1],
        &[buf(
            "Out",
            Kind::RwStructuredBuffer,
            0,
            vec![0; exprs.len()],
        )],
        4,
    )
    .remove(0)
}

#[test]
fn float_builtins() {
    let cases: &[(&str, f32)] = &[
        ("abs(-2.5)", 2.5),
        ("min(-1.0, 2.0)", -1.0),
        ("max(-1.0, 2.0)", 2.0),
        ("clamp(5.0, 0.0, 3.0)", 3.0),
        ("saturate(1.5)", 1.0),
        ("saturate(-0.5)", 0.0),
        ("floor(-1.5)", -2.0),
        ("ceil(-1.5)", -1.0),
        ("round(2.5)", 2.0),
        ("round(3.5)", 4.0),
        ("trunc(-1.75)", -1.0),
        ("frac(-0.25)", 0.75),
        ("fmod(-7.5, 2.0)", -1.5),
        // DXC's expansion, frac(|x / y|) · y with x / y's sign, where C's
        // fmod gives 0.09999999 and -0.09999999.
        ("fmod(1.0, 0.1)", 0.0),
        ("fmod(-7.0, 0.1)", -0.0),
        ("fmod(5.5, -2.0)", 1.5),
        ("sqrt(16.0)", 4.0),
        ("rsqrt(4.0)", 0.5),
        ("rcp(4.0)", 0.25),
        ("exp2(3.0)", 8.0),
        ("log2(8.0)", 3.0),
        ("pow(2.0, 10.0)", 1024.0),
        ("exp(0.0)", 1.0),
        ("log(1.0)", 0.0),
        ("sin(0.0)", 0.0),
        ("cos(0.0)", 1.0),
        ("lerp(2.0, 4.0, 0.25)", 2.5),
        ("mad(2.0, 3.0, 4.0)", 10.0),
        ("dot(float3(1, 2, 3), float3(4, 5, 6))", 32.0),
        ("cross(float3(1, 0, 0), float3(0, 1, 0)).z", 1.0),
        ("length(float2(3, 4))", 5.0),
        ("distance(float2(1, 1), float2(4, 5))", 5.0),
        ("normalize(float2(0, 2)).y", 1.0),
        (
            "select(bool2(true, false), float2(1, 2), float2(3, 4)).y",
            4.0,
        ),
        ("asdouble(0u, 0x3FF00000u)", 1.0),
        ("f16tof32(0x4000u)", 2.0),
        ("asfloat(0x40490FDBu)", std::f32::consts::PI),
        ("sign(-3.5)", -1.0),
        ("atan2(1.0, 1.0)", 1.0f32.atan2(1.0)),
        // DXC's lowering: x == 0 gives pi/2 for y >= 0 (also 0 and -0),
        // -pi/2 below; x < 0 <= y (-0 counts) adds pi to atan(y / x).
        ("atan2(0.0, 0.0)", std::f32::consts::FRAC_PI_2),
        ("atan2(-0.0, -0.0)", std::f32::consts::FRAC_PI_2),
        ("atan2(-3.0, 0.0)", -std::f32::consts::FRAC_PI_2),
        ("atan2(-0.0, -1.0)", std::f32::consts::PI),
        // DXC's float-like functions take a double as a float: 2.5000001
        // is 2.5 as a float, which rounds to even; 0.99999999 is 1.0.
        ("round(2.5000001l)", 2.0),
        ("trunc(0.99999999l)", 1.0),
        ("frac(-0.99999999l)", 0.0),
        // rcp takes a double as it is: 1/3 less the float nearest it.
        (
            "(rcp(3.0l) - 0.333333343267440796l) * 1e9l",
            f32::from_bits(3_240_030_747),
        ),
        ("fma(2.0l, 3.0l, 1.0l)", 7.0),
        // 3·6 − 8·4.
        ("determinant(float2x2(3, 8, 4, 6))", -14.0),
        // 2·(0·5 + 1·4) + 3·(2·5 + 1·1) + 1·(2·4 − 0·1) = 8 + 33 + 8.
        ("determinant(float3x3(2, -3, 1, 2, 0, -1, 1, 4, 5))", 49.0),
        // Only row 2 has a nonzero in column 1: −1 · det of the rest (−30).
        (
            "determinant(float4x4(1, 0, 2, -1, 3, 0, 0, 5, 2, 1, 4, -3, 1, 0, 5, 0))",
            30.0,
        ),
        ("determinant((float1x1)7)", 7.0),
    ];
    let exprs: Vec<&str> = cases.iter().map(|c| c.0).collect();
    let got = floats(&exprs);
    for ((expr, want), got) in cases.iter().zip(got) {
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "{expr}: got {got}, want {want}"
        );
    }
}

#[test]
fn integer_and_bit_builtins() {
    let cases: &[(&str, u32)] = &[
        ("abs(m)", 3),
        ("min(m, 2)", (-3i32) as u32),
        ("max(7u, 9u)", 9),
        ("clamp(m, -1, 1)", (-1i32) as u32),
        ("sign(m)", (-1i32) as u32),
        ("countbits(0xF0F0u)", 8),
        ("firstbithigh(0x10000u)", 16),
        ("firstbithigh(z)", 0xFFFF_FFFF),
        ("firstbitlow(0x18u)", 3),
        ("reversebits(1u)", 0x8000_0000),
        ("f32tof16(1.0)", 0x3C00),
        ("asuint(1.0)", 0x3F80_0000),
        ("asint(-2.0)", 0xC000_0000),
        ("isnan(asfloat(0x7FC00000u))", 1),
        ("isinf(asfloat(0xFF800000u))", 1),
        ("isfinite(1.0)", 1),
        ("all(bool3(true, true, false))", 0),
        ("any(bool3(false, true, false))", 1),
        ("and(true, false)", 0),
        ("or(false, true)", 1),
        ("7u / z", 0xFFFF_FFFF),
        ("1u << 33u", 2),
        ("m >> 1", (-2i32) as u32),
        ("m % 2", (-1i32) as u32),
        ("(uint)(-1.5)", 0),
        ("(int)(-1.5)", (-1i32) as u32),
    ];
    let exprs: Vec<&str> = cases.iter().map(|c| c.0).collect();
    let got = uints(&exprs);
    for ((expr, want), got) in cases.iter().zip(got) {
        assert_eq!(got, *want, "{expr}: got {got:#x}, want {want:#x}");
    }
}

/// `int` orderings, `>>`, `/`, `%`, `min`, `max`, `~`, negation, `abs`,
/// `mad` and `clamp` (and `uint` `min`, `max` and `clamp`) on
/// lanes that hold every pair of edge values, alone, with literals, in a
/// run of operations and under a branch, against Rust's `i32` operators.
#[test]
fn signed_operators_on_every_lane() {
    let source = r#"
StructuredBuffer<uint> A : register(t0);
StructuredBuffer<uint> B : register(t1);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    int a = A[id.x];
    int b = B[id.x];
    uint o = id.x * 19;
    Out[o + 0] = a < b;
    Out[o + 1] = a <= b;
    Out[o + 2] = a > b;
    Out[o + 3] = a >= b;
    Out[o + 4] = a >> b;
    Out[o + 5] = (a < -5) + (a >= -5) * 2 + (a > 7) * 4 + (a <= 7) * 8;
    int c = ((a >> 7) + b) ^ (a >> 3);
    Out[o + 6] = c;
    Out[o + 7] = (c < a) + (b >= c) * 2 + (a > -100) * 4 + (c <= 7) * 8;
    if (a < b)
    {
        c = (c >> 2) - b;
    }
    Out[o + 8] = c;
    Out[o + 9] = (uint)a >> 28;
    Out[o + 10] = a / 3;
    Out[o + 11] = a % -4 + a / 8 * 16;
    Out[o + 12] = a / b;
    Out[o + 13] = min(a, b);
    Out[o + 14] = max(a, b) + min(a >> 1, -5);
    Out[o + 15] = min((uint)a, (uint)b) + max((uint)a, 7u);
    Out[o + 16] = ~a + abs(b) * 2 - (-a >> 1);
    Out[o + 17] = mad(a, b, 3) + clamp(a, -5, 33);
    Out[o + 18] = clamp((uint)a, 7u, (uint)b) + min(9u, (uint)b);
}
"#;
    let edges = [i32::MIN, -100, -5, -1, 0, 7, 33, i32::MAX];
    let (a, b): (Vec<i32>, Vec<i32>) = edges
        .iter()
        .flat_map(|&x| edges.iter().map(move |&y| (x, y)))
        .unzip();
    let want: Vec<u32> = a
        .iter()
        .zip(&b)
        .flat_map(|(&a, &b)| {
            let flag = |c: bool, bit: u32| u32::from(c) << bit;
            let c = (a >> 7).wrapping_add(b) ^ (a >> 3);
            let c2 = if a < b { (c >> 2).wrapping_sub(b) } else { c };
            [
                u32::from(a < b),
                u32::from(a <= b),
                u32::from(a > b),
                u32::from(a >= b),
                (a >> (b & 31)) as u32,
                flag(a < -5, 0) | flag(a >= -5, 1) | flag(a > 7, 2) | flag(a <= 7, 3),
                c as u32,
                flag(c < a, 0) | flag(b >= c, 1) | flag(a > -100, 2) | flag(c <= 7, 3),
                c2 as u32,
                a as u32 >> 28,
                (a / 3) as u32,
                ((a % -4).wrapping_add((a / 8).wrapping_mul(16))) as u32,
                // The engine's choice for a zero divisor: all ones.
                if b == 0 {
                    u32::MAX
                } else {
                    a.wrapping_div(b) as u32
                },
                a.min(b) as u32,
                a.max(b).wrapping_add((a >> 1).min(-5)) as u32,
                (a as u32).min(b as u32).wrapping_add((a as u32).max(7)),
                (!a).wrapping_add(b.wrapping_abs().wrapping_mul(2))
                    .wrapping_sub(a.wrapping_neg() >> 1) as u32,
                a.wrapping_mul(b)
                    .wrapping_add(3)
                    .wrapping_add(a.clamp(-5, 33)) as u32,
                (a as u32)
                    .max(7)
                    .min(b as u32)
                    .wrapping_add(9.min(b as u32)),
            ]
        })
        .collect();
    let words = |v: &[i32]| v.iter().map(|&x| x as u32).collect::<Vec<u32>>();
    every_lane(
        source,
        &[("A", words(&a)), ("B", words(&b))],
        19,
        &want,
        |lane| format!("{}, {}", a[lane], b[lane]),
    );
}

/// `float` `+ - * /`, comparisons, `min`, `max`, negation, `abs`,
/// conversions to and from `int` and `uint`, `sqrt`, `floor`, `ceil`,
/// `round`, `trunc` and the builtins made of those (`mad`, `clamp`,
/// `saturate`, `lerp`, `frac`, `rcp`, `rsqrt`) on every pair of ten edge
/// values
/// (signed zeros, a subnormal, an overflow, infinities, a quiet and a
/// signalling NaN), from registers and with literals, a computed NaN on
/// either side, in a run of operations and under a branch, at every wave
/// size: against Rust's `f32` with the engine's NaN rule written out (the
/// first operand's NaN, quieted, else the second's, else `0xFFC0_0000`).
#[test]
fn float_operators_on_every_lane() {
    let source = r#"
StructuredBuffer<uint> A : register(t0);
StructuredBuffer<uint> B : register(t1);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(100, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float a = asfloat(A[id.x]);
    float b = asfloat(B[id.x]);
    uint o = id.x * 29;
    Out[o + 0] = asuint(a + b);
    Out[o + 1] = asuint(a - b);
    Out[o + 2] = asuint(a * b);
    Out[o + 3] = asuint(a / b);
    Out[o + 4] = (a < b) + (a <= b) * 2 + (a > b) * 4 + (a >= b) * 8 + (a == b) * 16
        + (a != b) * 32 + (a < 1.0f) * 64 + (a >= -2.5f) * 128;
    Out[o + 5] = asuint(a * 2.0f + b);
    Out[o + 6] = asuint((0.0f / 0.0f) * a);
    Out[o + 7] = asuint(a * (0.0f / 0.0f));
    float c = a * 3.0f;
    if (a < b)
    {
        c = c - b * 0.5f;
    }
    Out[o + 8] = asuint(c);
    Out[o + 9] = asuint(1.5f / a);
    Out[o + 10] = asuint(min(a, b));
    Out[o + 11] = asuint(max(a, b) * 2.0f);
    Out[o + 12] = asuint(min(max(a, -1.0f), b + 1.0f));
    Out[o + 13] = asuint(-a * 2.0f + abs(b));
    Out[o + 14] = (uint)(a * 0.5f) + 1u;
    Out[o + 15] = (int)(b - 1.0f) * 3;
    Out[o + 16] = asuint((float)A[id.x] + (float)(int)B[id.x]);
    Out[o + 17] = asuint(mad(a, b, 0.5f));
    Out[o + 18] = asuint(clamp(a, -1.0f, b));
    Out[o + 19] = asuint(saturate(a) + lerp(a, b, 0.25f));
    Out[o + 20] = asuint(rcp(a));
    Out[o + 21] = asuint(rsqrt(b));
    Out[o + 22] = asuint(sqrt(a) * 2.0f + max(0.5f, b));
    Out[o + 23] = asuint(floor(a) + ceil(b));
    Out[o + 24] = asuint(round(a * 0.5f) - trunc(b));
    Out[o + 25] = asuint(frac(a));
    Out[o + 26] = asuint(step(a, b) + step(b, 1.0f));
    Out[o + 27] = asuint(smoothstep(a, b, 0.5f));
    Out[o + 28] = sign(a) * 4 + sign((int)b);
}
"#;
    fn arith(x: f32, y: f32, f: fn(f32, f32) -> f32) -> f32 {
        let r = f(x, y);
        let quiet = |v: f32| f32::from_bits(v.to_bits() | 0x0040_0000);
        if !r.is_nan() {
            r
        } else if x.is_nan() {
            quiet(x)
        } else if y.is_nan() {
            quiet(y)
        } else {
            f32::from_bits(0xFFC0_0000)
        }
    }
    // minNum and maxNum: a NaN loses to a number (the second NaN of two),
    // -0 is below +0.
    fn min_num(x: f32, y: f32) -> f32 {
        match (x.is_nan(), y.is_nan()) {
            (true, _) => y,
            (false, true) => x,
            _ if x == y && x.is_sign_negative() => x,
            _ if x == y => y,
            _ => x.min(y),
        }
    }
    fn max_num(x: f32, y: f32) -> f32 {
        match (x.is_nan(), y.is_nan()) {
            (true, _) => y,
            (false, true) => x,
            _ if x == y && x.is_sign_positive() => x,
            _ if x == y => y,
            _ => x.max(y),
        }
    }
    // The square root with SSE's NaNs: a NaN quieted, the default NaN
    // below -0.
    fn sqrt(x: f32) -> f32 {
        if x.is_nan() {
            f32::from_bits(x.to_bits() | 0x0040_0000)
        } else if x < 0.0 {
            f32::from_bits(0xFFC0_0000)
        } else {
            x.sqrt()
        }
    }
    // Rounded to an integer, a NaN quieted.
    fn rounded(x: f32, f: fn(f32) -> f32) -> f32 {
        if x.is_nan() {
            f32::from_bits(x.to_bits() | 0x0040_0000)
        } else {
            f(x)
        }
    }
    fn step(y: f32, x: f32) -> f32 {
        if x < y { 0.0 } else { 1.0 }
    }
    fn sign(x: f32) -> i32 {
        i32::from(x > 0.0) - i32::from(x < 0.0)
    }
    let [add, sub, mul, div]: [fn(f32, f32) -> f32; 4] =
        [|x, y| x + y, |x, y| x - y, |x, y| x * y, |x, y| x / y];
    let edges = [
        0u32,
        0x8000_0000,
        1f32.to_bits(),
        (-2.5f32).to_bits(),
        1e30f32.to_bits(),
        1,
        f32::INFINITY.to_bits(),
        f32::NEG_INFINITY.to_bits(),
    ];
    let nans = [0x7FC0_0001u32, 0xFF80_0005];
    let edges: Vec<u32> = edges.iter().chain(&nans).copied().collect();
    let (a, b): (Vec<u32>, Vec<u32>) = edges
        .iter()
        .flat_map(|&x| edges.iter().map(move |&y| (x, y)))
        .unzip();
    // `0.0f / 0.0f`: the default NaN. A product of two NaNs is the first
    // one's, so outputs 6 and 7 differ where `a` is a NaN.
    let computed_nan = f32::from_bits(0xFFC0_0000);
    let want: Vec<u32> = a
        .iter()
        .zip(&b)
        .flat_map(|(&x, &y)| {
            let (a, b) = (f32::from_bits(x), f32::from_bits(y));
            let flag = |c: bool, bit: u32| u32::from(c) << bit;
            let c = arith(a, 3.0, mul);
            let c = if a < b {
                arith(c, arith(b, 0.5, mul), sub)
            } else {
                c
            };
            [
                arith(a, b, add).to_bits(),
                arith(a, b, sub).to_bits(),
                arith(a, b, mul).to_bits(),
                arith(a, b, div).to_bits(),
                flag(a < b, 0)
                    | flag(a <= b, 1)
                    | flag(a > b, 2)
                    | flag(a >= b, 3)
                    | flag(a == b, 4)
                    | flag(a != b, 5)
                    | flag(a < 1.0, 6)
                    | flag(a >= -2.5, 7),
                arith(arith(a, 2.0, mul), b, add).to_bits(),
                arith(computed_nan, a, mul).to_bits(),
                arith(a, computed_nan, mul).to_bits(),
                c.to_bits(),
                arith(1.5, a, div).to_bits(),
                min_num(a, b).to_bits(),
                arith(max_num(a, b), 2.0, mul).to_bits(),
                min_num(max_num(a, -1.0), arith(b, 1.0, add)).to_bits(),
                // Negation and `abs` change the sign bit alone; `as`
                // truncates and saturates (NaN to 0) and rounds to nearest.
                arith(arith(-a, 2.0, mul), b.abs(), add).to_bits(),
                (arith(a, 0.5, mul) as u32).wrapping_add(1),
                (arith(b, 1.0, sub) as i32).wrapping_mul(3) as u32,
                arith(x as f32, y as i32 as f32, add).to_bits(),
                // `lockstep_wave::ops`' definitions: `mad` and `lerp` round
                // each operation, `clamp` is `max` then `min`, `rsqrt` the
                // root and then the division.
                arith(arith(a, b, mul), 0.5, add).to_bits(),
                min_num(max_num(a, -1.0), b).to_bits(),
                arith(
                    min_num(max_num(a, 0.0), 1.0),
                    arith(a, arith(0.25, arith(b, a, sub), mul), add),
                    add,
                )
                .to_bits(),
                arith(1.0, a, div).to_bits(),
                arith(1.0, sqrt(b), div).to_bits(),
                arith(arith(sqrt(a), 2.0, mul), max_num(0.5, b), add).to_bits(),
                arith(rounded(a, f32::floor), rounded(b, f32::ceil), add).to_bits(),
                arith(
                    rounded(arith(a, 0.5, mul), f32::round_ties_even),
                    rounded(b, f32::trunc),
                    sub,
                )
                .to_bits(),
                arith(a, rounded(a, f32::floor), sub).to_bits(),
                // `step(y, x)`: 0 where `x < y`, else 1 (NaN too), as DXC
                // selects it; `smoothstep` rounds each operation of
                // `t * (t * (3 - t * 2))`, `t` saturated (NaN to 0).
                arith(step(a, b), step(b, 1.0), add).to_bits(),
                {
                    let q = arith(arith(0.5, a, sub), arith(b, a, sub), div);
                    let t = min_num(max_num(q, 0.0), 1.0);
                    let rest = arith(3.0, arith(t, 2.0, mul), sub);
                    arith(t, arith(t, rest, mul), mul).to_bits()
                },
                (sign(a) * 4 + sign(b as i32 as f32)) as u32,
            ]
        })
        .collect();
    every_lane(
        source,
        &[("A", a.clone()), ("B", b.clone())],
        29,
        &want,
        |lane| format!("{:#x}, {:#x}", a[lane], b[lane]),
    );
}

/// A `bool` read from memory is true for any nonzero word, and converts to
/// 1 (to `uint`, `int` and `float`), as DXC's `icmp ne 0` on the loaded
/// word gives; so do `&&` and `||` of such words (which pick one of them
/// without branching) and `==` between their results.
#[test]
fn bools_read_from_memory_convert_to_one() {
    let source = r#"
StructuredBuffer<bool> B : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    bool b = B[id.x];
    bool c = B[(id.x + 1) % 8];
    uint o = id.x * 8;
    Out[o + 0] = b;
    Out[o + 1] = (uint)(int)b;
    Out[o + 2] = asuint((float)b);
    Out[o + 3] = b == true;
    Out[o + 4] = !b;
    Out[o + 5] = b && c;
    Out[o + 6] = b || c;
    Out[o + 7] = (b && c) == (b || !c) ? 7u : 3u;
}
"#;
    let words = [0u32, 1, 5, 0x8000_0000, 0xFFFF_FFFF, 0, 2, 0x100];
    let want: Vec<u32> = (0..8)
        .flat_map(|i| {
            let w = words[i];
            let (x, y) = (w != 0, words[(i + 1) % 8] != 0);
            let b = u32::from(x);
            let and = x && y;
            let same = if and == (x || !y) { 7 } else { 3 };
            [
                b,
                b,
                if x { 1f32.to_bits() } else { 0 },
                b,
                1 - b,
                u32::from(and),
                u32::from(x || y),
                same,
            ]
        })
        .collect();
    let got = run_words(
        source,
        [1, 1, 1],
        &[
            buf("B", Kind::StructuredBuffer, 0, words.to_vec()),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 64]),
        ],
        8,
    )
    .remove(1);
    assert_eq!(got, want);
}

/// Conversions to and from `bool` on every kind of word, against Rust (1
/// is also the smallest subnormal), and `isnan`, `isinf`, `isfinite`: to
/// `bool`, `x != 0` (a `float` NaN is true, -0 is false); from `bool` (a
/// word read from memory, any nonzero word true), 1 or 0 (1.0 or 0.0);
/// `!`, `&`, `|`, `^`, `==`, `!=`, `and`, `or`, `all` and `any` of `bool`s.
#[test]
fn bool_conversions_on_every_lane() {
    let source = r#"
StructuredBuffer<uint> In : register(t0);
StructuredBuffer<bool> B : register(t1);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(16, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint u = In[id.x];
    float f = asfloat(u);
    bool b = B[id.x];
    bool c = B[(id.x + 3) % 16];
    uint o = id.x * 9;
    Out[o + 0] = (uint)(bool)u;
    Out[o + 1] = (uint)(bool)(int)u;
    Out[o + 2] = (uint)(bool)f;
    Out[o + 3] = (uint)!(bool)f;
    Out[o + 4] = (uint)(int)b + 2u * (uint)!b;
    Out[o + 5] = asuint((float)b);
    Out[o + 6] = asuint((float)(f < 1.0f) + (float)!(u > 5u));
    Out[o + 7] = (int)(f >= 0.0f) * 3 + (int)(bool)(u & 0x100u)
        + 4 * isnan(f) + 8 * isinf(f) + 16 * isfinite(f);
    Out[o + 8] = (uint)(b & c) + 2u * (uint)(b | c) + 4u * (uint)(b ^ c) + 8u * (uint)(b == c)
        + 16u * (uint)(b != c) + 32u * (uint)all(bool2(b, c)) + 64u * (uint)any(bool2(b, c))
        + 128u * (uint)(b == true) + 256u * (uint)and(b, c) + 512u * (uint)or(b, !c);
}
"#;
    let words: Vec<u32> = vec![
        0,
        1,
        2,
        0x100,
        0x8000_0000, // -0.0
        0x7FC0_0000, // NaN
        0xFF80_0001, // a signalling NaN
        1f32.to_bits(),
        (-2.5f32).to_bits(),
        f32::INFINITY.to_bits(),
        0xFFFF_FFFF,
        0xFF80_0000, // -infinity
        5,
        6,
        0x3F00_0000, // 0.5
        0x1_0000,
    ];
    let want: Vec<u32> = (0..16)
        .flat_map(|i| {
            let u = words[i];
            let f = f32::from_bits(u);
            let b = u != 0;
            let c = words[(i + 3) % 16] != 0;
            let bits = [
                b & c,
                b | c,
                b ^ c,
                b == c,
                b != c,
                b && c,
                b || c,
                b,
                b && c,
                b || !c,
            ];
            let one = |c: bool| if c { 1f32 } else { 0f32 };
            [
                u32::from(b),
                u32::from(b),
                u32::from(f != 0.0),
                u32::from(f == 0.0),
                u32::from(b) + 2 * u32::from(!b),
                one(b).to_bits(),
                (one(f < 1.0) + one(u <= 5)).to_bits(),
                u32::from(f >= 0.0) * 3
                    + u32::from(u & 0x100 != 0)
                    + 4 * u32::from(f.is_nan())
                    + 8 * u32::from(f.is_infinite())
                    + 16 * u32::from(f.is_finite()),
                (0..10).map(|k| u32::from(bits[k]) << k).sum(),
            ]
        })
        .collect();
    every_lane(
        source,
        &[("In", words.clone()), ("B", words.clone())],
        9,
        &want,
        |lane| format!("{:#x}", words[lane]),
    );
}

/// `countbits`, `reversebits`, `firstbitlow` and `firstbithigh` on `uint`
/// and `int` (for a negative `int`, the highest bit that differs from the
/// sign bit) on every lane, inside runs of 32-bit operations, against
/// Rust, over words that include 0, all ones, the sign bit alone,
/// alternating bits, and `2^25 - 1` (which a `float` rounds up).
#[test]
fn bit_builtins_on_every_lane() {
    let source = r#"
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint u = In[id.x];
    int s = (int)u;
    uint o = id.x * 6;
    Out[o + 0] = countbits(u) + (countbits(s) << 8) + (firstbitlow(u) << 16)
        + ((uint)firstbitlow(s) << 24);
    Out[o + 1] = reversebits(u);
    Out[o + 2] = (uint)reversebits(s) ^ 0x5A5A5A5Au;
    Out[o + 3] = firstbithigh(u);
    Out[o + 4] = (uint)firstbithigh(s);
    Out[o + 5] = (firstbithigh(u ^ 0xFFFFu) + countbits(reversebits(u) & 0xFF00FF00u)) * 3u;
}
"#;
    let mut words: Vec<u32> = vec![
        0,
        1,
        0xFFFF_FFFF,
        0x8000_0000,
        0x7FFF_FFFF,
        0xAAAA_AAAA,
        0x5555_5555,
        0x01FF_FFFF,
        0x00FF_FFFF,
        0xFFFF_FFFE,
        0x1234_5678,
        0x0001_0000,
        0x8000_0001,
        0xFF00_0000,
        0x0000_FF00,
        0x4000_0000,
    ];
    let mut x = 0x9E37_79B9u32;
    while words.len() < 64 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        words.push(x >> (words.len() % 31));
    }
    let low = |v: u32| if v == 0 { u32::MAX } else { v.trailing_zeros() };
    let high = |v: u32| {
        if v == 0 {
            u32::MAX
        } else {
            31 - v.leading_zeros()
        }
    };
    let high_signed = |v: u32| high(if (v as i32) < 0 { !v } else { v });
    let want: Vec<u32> = words
        .iter()
        .flat_map(|&u| {
            [
                (u.count_ones() + (u.count_ones() << 8))
                    .wrapping_add(low(u) << 16)
                    .wrapping_add(low(u) << 24),
                u.reverse_bits(),
                u.reverse_bits() ^ 0x5A5A_5A5A,
                high(u),
                high_signed(u),
                high(u ^ 0xFFFF)
                    .wrapping_add((u.reverse_bits() & 0xFF00_FF00).count_ones())
                    .wrapping_mul(3),
            ]
        })
        .collect();
    every_lane(source, &[("In", words.clone())], 6, &want, |lane| {
        format!("{:#x}", words[lane])
    });
}

/// Runs `source` (one group) at every wave size with the `inputs` bound as
/// `StructuredBuffer`s at `t0`, `t1`, … and `Out` at `u0`, and compares
/// `Out` with `want`, `outputs` words per lane (`describe` names a lane's
/// inputs when one differs).
fn every_lane(
    source: &str,
    inputs: &[(&'static str, Vec<u32>)],
    outputs: usize,
    want: &[u32],
    describe: impl Fn(usize) -> String,
) {
    for wave_size in WAVE_SIZES {
        let mut buffers: Vec<_> = (0u32..)
            .zip(inputs)
            .map(|(register, (name, words))| {
                buf(name, Kind::StructuredBuffer, register, words.clone())
            })
            .collect();
        buffers.push(buf("Out", Kind::RwStructuredBuffer, 0, vec![0; want.len()]));
        let got = run_words(source, [1, 1, 1], &buffers, wave_size).remove(inputs.len());
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            let (lane, slot) = (i / outputs, i % outputs);
            assert_eq!(
                g,
                w,
                "wave {wave_size}, lane {lane} ({}), output {slot}: {g:#x}, want {w:#x}",
                describe(lane)
            );
        }
    }
}
