//! The HLSL library intrinsics written in HLSL (`lockstep_sema::prelude`),
//! each against values worked out by hand.

use lockstep::CompileOptions;
use lockstep::pipeline::Kind;

use crate::harness::{buf, compile, run_compiled};

/// Runs a one-thread shader with `RWStructuredBuffer<float> F : u0` and
/// `RWStructuredBuffer<uint> U : u1`, 16 words each, and `prefix` before
/// its entry point.
fn run_with(prefix: &str, body: &str, opts: &CompileOptions) -> (Vec<f32>, Vec<u32>) {
    let source = format!(
        "RWStructuredBuffer<float> F : register(u0);\n\
         RWStructuredBuffer<uint> U : register(u1);\n{prefix}\
         [numthreads(1, 1, 1)]\nvoid main() {{\n{body}\n}}\n"
    );
    let shader = compile(&source, opts);
    let out = run_compiled(
        &shader,
        [1, 1, 1],
        &[
            buf("F", Kind::RwStructuredBuffer, 0, vec![0; 16]),
            buf("U", Kind::RwStructuredBuffer, 1, vec![0; 16]),
        ],
        4,
    );
    let floats = out[0].iter().map(|&w| f32::from_bits(w)).collect();
    (floats, out[1].clone())
}

fn run(body: &str, opts: &CompileOptions) -> (Vec<f32>, Vec<u32>) {
    run_with("", body, opts)
}

fn run32(body: &str) -> (Vec<f32>, Vec<u32>) {
    run(body, &CompileOptions::default())
}

#[test]
fn float_functions() {
    let (f, _) = run32(
        "F[0] = degrees(3.14159265358979);\n\
         F[1] = radians(90.0);\n\
         F[2] = ldexp(1.5, 3.0);\n\
         float e; F[3] = frexp(-8.0, e); F[4] = e;\n\
         float2 e2; float2 m2 = frexp(float2(0.0, 3.0), e2); F[5] = m2.x; F[6] = e2.x; F[7] = m2.y; F[8] = e2.y;\n\
         float w; F[9] = modf(-2.75, w); F[10] = w;\n\
         float s, c; sincos(0.0, s, c); F[11] = s; F[12] = c;",
    );
    // 8 = 0.5 * 2^4 (the sign stays on the mantissa); 3 = 0.75 * 2^2;
    // zero gives zero for both.
    assert_eq!(
        &f[..13],
        [
            180.0,
            std::f32::consts::FRAC_PI_2,
            12.0,
            -0.5,
            4.0,
            0.0,
            0.0,
            0.75,
            2.0,
            -0.75,
            -2.0,
            0.0,
            1.0
        ]
    );
}

#[test]
fn vector_geometry() {
    let (f, _) = run32(
        "float3 r = reflect(float3(1, -1, 0), float3(0, 1, 0)); F[0] = r.x; F[1] = r.y; F[2] = r.z;\n\
         float2 t = refract(float2(0.6, -0.8), float2(0, 1), 0.5); F[3] = t.x; F[4] = t.y;\n\
         float2 tir = refract(float2(0.8, -0.6), float2(0, 1), 2.0); F[5] = tir.x; F[6] = tir.y;\n\
         float3 ff = faceforward(float3(1, 2, 3), float3(0, 0, 1), float3(0, 0, -1)); F[7] = ff.x;\n\
         float4 d = dst(float4(1, 2, 3, 4), float4(5, 6, 7, 8)); F[8] = d.x; F[9] = d.y; F[10] = d.z; F[11] = d.w;\n\
         float4 l = lit(0.5, 0.25, 2.0); F[12] = l.y; F[13] = l.z; F[14] = lit(-1.0, 0.5, 2.0).z;",
    );
    // reflect: i - 2 dot(i, n) n with dot = -1.
    assert_eq!(&f[..3], [1.0, 1.0, 0.0]);
    // refract with d = -0.8, eta = 0.5: k = 1 - 0.25 * 0.36 = 0.91;
    // eta i - (eta d + sqrt k) n = (0.3, -0.4 - (-0.4 + sqrt 0.91)).
    assert_eq!(f[3], 0.3);
    assert!((f[4] - (-0.91f32.sqrt())).abs() < 1e-6, "{}", f[4]);
    // Total internal reflection: k = 1 - 4 * 0.64 < 0 gives zero.
    assert_eq!(&f[5..7], [0.0, 0.0]);
    // dot(ng, i) < 0 keeps n.
    assert_eq!(f[7], 1.0);
    assert_eq!(&f[8..12], [1.0, 12.0, 3.0, 8.0]);
    // lit: diffuse max(n.l, 0), specular n.h^m unless either is negative.
    assert_eq!(&f[12..15], [0.5, 0.0625, 0.0]);
}

#[test]
fn packed_bytes() {
    let (_, u) = run32(
        "U[0] = dot4add_u8packed(0x01020304, 0x01010101, 10);\n\
         U[1] = (uint)dot4add_i8packed(0xFF02FF01, 0x02020202, -1);\n\
         uint8_t4_packed p = pack_u8(uint4(1, 2, 3, 0x1FF));\n\
         U[2] = p;\n\
         U[3] = pack_clamp_s8(int4(-200, 200, -5, 5));\n\
         U[4] = pack_clamp_u8(int4(-200, 200, 300, 5));\n\
         uint4 un = unpack_u8u32(p); U[5] = un.x; U[6] = un.w;\n\
         int4 sn = unpack_s8s32(pack_s8(int4(-1, 2, -3, 4))); U[7] = (uint)sn.x; U[8] = (uint)sn.w;",
    );
    assert_eq!(u[0], 10 + 4 + 3 + 2 + 1);
    // Bytes 1, -1, 2, -1 times 2 each: 2 - 2 + 4 - 2 = 2, plus -1.
    assert_eq!(u[1], 1);
    assert_eq!(u[2], 0xFF03_0201);
    // Clamped to -128, 127, -5, 5: bytes 0x80, 0x7F, 0xFB, 0x05.
    assert_eq!(u[3], 0x05FB_7F80);
    // Clamped to 0, 200, 255, 5.
    assert_eq!(u[4], 0x05FF_C800);
    assert_eq!(&u[5..7], [1, 0xFF]);
    assert_eq!(&u[7..9], [u32::MAX, 4]);
}

#[test]
fn sad_carry_and_color() {
    let (_, u) = run32(
        "uint4 m = msad4(0x01020304, uint2(0x01020304, 0x05060708), uint4(0, 0, 0, 100));\n\
         U[0] = m.x; U[1] = m.y; U[2] = m.z; U[3] = m.w;\n\
         uint4 masked = msad4(0x01000300, uint2(0x09090909, 0), uint4(0, 0, 0, 0)); U[4] = masked.x;\n\
         uint2 a = AddUint64(uint2(0xFFFFFFFF, 1), uint2(1, 2)); U[5] = a.x; U[6] = a.y;\n\
         uint4 b = AddUint64(uint4(1, 0, 0xFFFFFFFF, 0xFFFFFFFF), uint4(2, 0, 1, 0)); U[7] = b.x; U[8] = b.z; U[9] = b.w;\n\
         int4 c = D3DCOLORtoUBYTE4(float4(1, 0.5, 0, 1)); U[10] = c.x; U[11] = c.y; U[12] = c.z; U[13] = c.w;\n\
         U[14] = CheckAccessFullyMapped(0) ? 1 : 0;",
    );
    // The windows of source starting at bytes 0 to 3, low byte first:
    // 04 03 02 01, 03 02 01 08, 02 01 08 07, 01 08 07 06, against the
    // reference's bytes 04 03 02 01.
    let sad = |w: [u32; 4]| -> u32 {
        [4u32, 3, 2, 1]
            .iter()
            .zip(w)
            .map(|(&r, s)| r.abs_diff(s))
            .sum()
    };
    assert_eq!(
        &u[..4],
        [
            0,
            sad([3, 2, 1, 8]),
            sad([2, 1, 8, 7]),
            100 + sad([1, 8, 7, 6])
        ]
    );
    // Reference bytes that are 0 are masked out: only 3 and 1 count.
    assert_eq!(u[4], 6 + 8);
    assert_eq!(&u[5..7], [0, 4]);
    assert_eq!(&u[7..10], [3, 0, 0]);
    // zyxw * 255.002, truncated.
    assert_eq!(&u[10..14], [0, 127, 255, 255]);
    assert_eq!(u[14], 1);
}

#[test]
fn sixteen_bit_forms() {
    let opts = CompileOptions {
        enable_16bit_types: true,
        shader_model: (6, 6),
        ..CompileOptions::default()
    };
    let (f, u) = run(
        "half h = degrees((half)3.140625); F[0] = h;\n\
         half e; F[1] = frexp((half)-6.0, e); F[2] = e;\n\
         F[3] = dot2add(half2(1, 2), half2(3, 4), 0.5);\n\
         uint16_t4 v = unpack_u8u16(pack_u8(uint16_t4(5, 6, 7, 8))); U[0] = v.w;\n\
         int16_t4 s = unpack_s8s16(pack_s8(int16_t4(-5, 6, 7, 8))); U[1] = (uint)(int)s.x;",
        &opts,
    );
    // 3.140625 * 57.3 in half precision: 179.875 (the nearest halves are
    // 179.875 and 180.0; 3.140625 * 57.2958 = 179.945 rounds to 179.875).
    assert_eq!(f[0], 179.875);
    // -6 = -0.75 * 2^3.
    assert_eq!(&f[1..4], [-0.75, 3.0, 11.5]);
    assert_eq!(&u[..2], [8, (-5i32) as u32]);
    // A double argument takes the float overloads of the library's
    // float-like functions, as without 16-bit types: 5.5 - 2 * 2, and
    // 5.5 * 2^1.
    let (f, _) = run(
        "double x = 5.5, y = 2.0; F[0] = fmod(x, y); F[1] = radians(x) * 0.0 + ldexp(x, 1.0);",
        &opts,
    );
    assert_eq!(&f[..2], [1.5, 11.0]);
}

#[test]
fn printf_is_accepted_and_unsupported_intrinsics_say_so() {
    let (_, u) = run32("printf(\"lane %d\\n\", 3); U[0] = 1;");
    assert_eq!(u[0], 1);
    let source = "RWStructuredBuffer<float> F : register(u0);\n\
                  [numthreads(1, 1, 1)] void main() { clip(F[0]); }\n";
    let e = match lockstep::compile(
        "t.hlsl",
        source,
        &CompileOptions::default(),
        &lockstep::MemoryLoader::default(),
    ) {
        Ok(_) => panic!("compiled"),
        Err(e) => e.render(false),
    };
    assert!(
        e.contains("'clip' discards the pixel, and only pixel shaders have pixels; this is a compute shader"),
        "{e}"
    );
    let source = "RWStructuredBuffer<uint> F : register(u0);\nStructuredBuffer<uint> R : register(t0);\n\
                  [numthreads(1, 1, 1)] void main() { F[0] = R.IncrementCounter(); }\n";
    let e = lockstep::compile(
        "t.hlsl",
        source,
        &CompileOptions::default(),
        &lockstep::MemoryLoader::default(),
    )
    .map(drop)
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("'IncrementCounter' needs a RWStructuredBuffer, not a 'StructuredBuffer<uint>'"),
        "{e}"
    );
}

/// A shader's own function of an intrinsic's name is the one it calls.
#[test]
fn a_shader_may_define_a_library_name_itself() {
    let (f, _) = run_with(
        "float degrees(float r) { return r + 1.0; }\n",
        "F[0] = degrees(2.0); F[1] = radians(180.0);",
        &CompileOptions::default(),
    );
    assert_eq!(f[0], 3.0);
    assert_eq!(f[1], std::f32::consts::PI);
}
