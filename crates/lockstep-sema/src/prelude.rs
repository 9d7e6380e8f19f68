//! The intrinsics written in HLSL: library functions of DXC's intrinsic
//! table that are a few operations on the ones Lockstep implements
//! natively (`degrees`, `reflect`, `pack_u8`, `msad4`, …). Each follows
//! DXC's own expansion, operation for operation, so results round alike.
//!
//! [`source`] writes the overloads of the functions a shader mentions, for
//! the front end to compile ahead of the shader's own declarations.

use std::fmt::Write as _;

/// The shader model that introduced the library intrinsic `name`, where
/// it is later than 6.0: DXC rejects a call of it under an earlier target.
pub(crate) fn shader_model(name: &str) -> Option<(u32, u32)> {
    match name {
        "dot2add" | "dot4add_u8packed" | "dot4add_i8packed" => Some((6, 4)),
        "pack_u8" | "pack_s8" | "pack_clamp_u8" | "pack_clamp_s8" | "unpack_u8u32"
        | "unpack_s8s32" | "unpack_u8u16" | "unpack_s8s16" | "IsHelperLane" => Some((6, 6)),
        _ => None,
    }
}
/// The float types the float-like intrinsics take: `float`, and `half`
/// where it is a type of its own (with 16-bit types).
fn float_types(sixteen_bit: bool) -> &'static [&'static str] {
    if sixteen_bit {
        &["float", "half"]
    } else {
        &["float"]
    }
}

/// `float`, `float2`, … `float4`.
fn shapes(scalar: &str) -> impl Iterator<Item = String> + '_ {
    (1..=4).map(move |n| {
        if n == 1 {
            scalar.to_string()
        } else {
            format!("{scalar}{n}")
        }
    })
}

/// The float-like functions written once for every shape of every float
/// type: `{t}` stands for the type (`float3`), `{s}` for its scalar.
const PER_SHAPE: &[(&str, &str)] = &[
    // 180 / pi and pi / 180, as DXC multiplies by them.
    (
        "degrees",
        "{t} degrees({t} x) { return x * ({s})57.29577951308232; }",
    ),
    (
        "radians",
        "{t} radians({t} x) { return x * ({s})0.017453292519943295; }",
    ),
    ("ldexp", "{t} ldexp({t} x, {t} e) { return x * exp2(e); }"),
    (
        "reflect",
        "{t} reflect({t} i, {t} n) { return i - ({s})2 * dot(i, n) * n; }",
    ),
    (
        "faceforward",
        "{t} faceforward({t} n, {t} i, {t} ng) { return dot(ng, i) < ({s})0 ? n : -n; }",
    ),
    // As DXC expands it: the fraction of |x / y| with the quotient's sign,
    // times y (not C's fmod: fmod(1, 0.1) is 0).
    (
        "fmod",
        "{t} fmod({t} x, {t} y) { {t} d = x / y; {t} f = frac(abs(d)); return select(d >= -d, f, -f) * y; }",
    ),
    // The whole part towards zero; the fraction keeps x's sign.
    (
        "modf",
        "{t} modf({t} x, out {t} whole) { whole = trunc(x); return x - whole; }",
    ),
    (
        "sincos",
        "void sincos({t} x, out {t} s, out {t} c) { s = sin(x); c = cos(x); }",
    ),
    (
        "refract",
        "{t} refract({t} i, {t} n, {s} eta) {
    {s} d = dot(n, i);
    {s} k = ({s})1 - eta * eta * (({s})1 - d * d);
    if (k < ({s})0) return ({t})0;
    return eta * i - (eta * d + sqrt(k)) * n;
}",
    ),
];

/// The functions of [`PER_SHAPE`] (and `frexp`) that DXC also declares on
/// matrices, with their parameters: `i` a matrix in, `o` a matrix out.
/// A matrix is done row by row, each row by the vector function.
const MATRIX_ROWWISE: &[(&str, &str)] = &[
    ("degrees", "i"),
    ("radians", "i"),
    ("ldexp", "ii"),
    ("fmod", "ii"),
    ("modf", "io"),
    ("sincos", "ioo"),
    ("frexp", "io"),
];

/// `name` on every matrix shape of `s`, row by row (`params`: see
/// [`MATRIX_ROWWISE`]; `sincos` returns nothing).
fn matrix_rowwise(out: &mut String, s: &str, name: &str, params: &str) {
    let returns = name != "sincos";
    for rows in 1..=4 {
        for cols in 1..=4 {
            let m = format!("{s}{rows}x{cols}");
            let names: Vec<String> = (0..params.len()).map(|k| format!("a{k}")).collect();
            let decl: Vec<String> = params
                .chars()
                .zip(&names)
                .map(|(p, n)| {
                    if p == 'o' {
                        format!("out {m} {n}")
                    } else {
                        format!("{m} {n}")
                    }
                })
                .collect();
            let mut body = String::new();
            for r in 0..rows {
                // A row of one column is its scalar.
                let row = |n: &str| {
                    if cols == 1 {
                        format!("{n}[{r}].x")
                    } else {
                        format!("{n}[{r}]")
                    }
                };
                let args: Vec<String> = names.iter().map(|n| row(n)).collect();
                let call = format!("{name}({})", args.join(", "));
                if returns {
                    let _ = write!(body, " {} = {call};", row("r"));
                } else {
                    let _ = write!(body, " {call};");
                }
            }
            if returns {
                let _ = writeln!(
                    out,
                    "{m} {name}({}) {{ {m} r;{body} return r; }}",
                    decl.join(", ")
                );
            } else {
                let _ = writeln!(out, "void {name}({}) {{{body} }}", decl.join(", "));
            }
        }
    }
}

/// The name the prelude's text goes by in the source map.
pub const FILE_NAME: &str = "<lockstep intrinsics>";

/// HLSL for the prelude functions that `mentioned` says the shader names.
/// Empty when it names none.
///
/// `derivatives`: the shader may take derivatives (a compute shader of SM
/// 6.6 or later): `ddx` and its kin are written, over the quads, and
/// `Sample` takes its level of detail from them. `pixel`: the shader is a
/// pixel shader, where `IsHelperLane` is the engine's and `clip` discards.
pub fn source(
    mentioned: impl Fn(&str) -> bool,
    sixteen_bit: bool,
    derivatives: bool,
    pixel: bool,
) -> String {
    let mut out = String::new();
    let wanted = |names: &[&str]| names.iter().any(|n| mentioned(n));
    let floats = float_types(sixteen_bit);
    for &s in floats {
        for t in shapes(s) {
            for (name, template) in PER_SHAPE {
                if wanted(&[name]) {
                    out.push_str(&template.replace("{t}", &t).replace("{s}", s));
                    out.push('\n');
                }
            }
        }
        for &(name, params) in MATRIX_ROWWISE {
            if wanted(&[name]) && name != "frexp" {
                matrix_rowwise(&mut out, s, name, params);
            }
        }
    }
    // DXC declares `dst` and `lit` for float only.
    if wanted(&["dst"]) {
        for &s in &floats[..1] {
            let _ = writeln!(
                out,
                "{s}4 dst({s}4 a, {s}4 b) {{ return {s}4(({s})1, a.y * b.y, a.z, b.w); }}"
            );
        }
    }
    if wanted(&["lit"]) {
        for &s in &floats[..1] {
            let _ = writeln!(
                out,
                "{s}4 lit({s} n_dot_l, {s} n_dot_h, {s} m) {{\n\
                 \x20   {s} specular = (n_dot_l < ({s})0 || n_dot_h < ({s})0) ? ({s})0 : pow(n_dot_h, m);\n\
                 \x20   return {s}4(({s})1, max(n_dot_l, ({s})0), specular, ({s})1);\n\
                 }}"
            );
        }
    }
    if wanted(&["NonUniformResourceIndex"]) {
        out.push_str("uint NonUniformResourceIndex(uint i) { return i; }\nint NonUniformResourceIndex(int i) { return i; }\n");
    }
    if wanted(&["IsHelperLane"]) && !pixel {
        // Compute and vertex shaders have no helper lanes.
        out.push_str("bool IsHelperLane() { return false; }\n");
    }
    if wanted(&["clip"]) {
        for &s in floats {
            for t in shapes(s) {
                let _ = writeln!(out, "void clip({t} x) {{ if (any(x < ({t})0)) discard; }}");
            }
        }
    }
    if wanted(&["frexp"]) {
        frexp(&mut out, sixteen_bit);
        for &s in floats {
            matrix_rowwise(&mut out, s, "frexp", "io");
        }
    }
    if wanted(&["dot2add"]) {
        let _ = writeln!(
            out,
            "float dot2add(half2 a, half2 b, float acc) {{ return acc + (float)a.x * (float)b.x + (float)a.y * (float)b.y; }}"
        );
    }
    if wanted(&["dot4add_u8packed"]) {
        out.push_str(
            "uint dot4add_u8packed(uint a, uint b, uint acc) {\n\
             \x20   return acc + (a & 0xFF) * (b & 0xFF) + ((a >> 8) & 0xFF) * ((b >> 8) & 0xFF)\n\
             \x20       + ((a >> 16) & 0xFF) * ((b >> 16) & 0xFF) + (a >> 24) * (b >> 24);\n\
             }\n",
        );
    }
    let signed_bytes = "int4 __lockstep_s8x4(uint p) {\n\
         \x20   return int4((int)(p << 24) >> 24, (int)(p << 16) >> 24, (int)(p << 8) >> 24, (int)p >> 24);\n\
         }\n";
    let unsigned_bytes = "uint4 __lockstep_u8x4(uint p) { return uint4(p & 0xFF, (p >> 8) & 0xFF, (p >> 16) & 0xFF, p >> 24); }\n";
    let packs = [
        "pack_u8",
        "pack_s8",
        "pack_clamp_u8",
        "pack_clamp_s8",
        "unpack_u8u32",
        "unpack_s8s32",
        "unpack_u8u16",
        "unpack_s8s16",
        "dot4add_i8packed",
    ];
    if wanted(&packs) {
        out.push_str(signed_bytes);
        out.push_str(unsigned_bytes);
        packing(&mut out, sixteen_bit);
    }
    if wanted(&["msad4"]) {
        out.push_str(
            "uint __lockstep_sad(uint reference, uint window) {\n\
             \x20   uint sum = 0;\n\
             \x20   for (uint b = 0; b < 32; b += 8) {\n\
             \x20       uint r = (reference >> b) & 0xFF;\n\
             \x20       uint s = (window >> b) & 0xFF;\n\
             \x20       if (r != 0) sum += r > s ? r - s : s - r;\n\
             \x20   }\n\
             \x20   return sum;\n\
             }\n\
             uint4 msad4(uint reference, uint2 source, uint4 accum) {\n\
             \x20   return accum + uint4(__lockstep_sad(reference, source.x),\n\
             \x20       __lockstep_sad(reference, (source.x >> 8) | (source.y << 24)),\n\
             \x20       __lockstep_sad(reference, (source.x >> 16) | (source.y << 16)),\n\
             \x20       __lockstep_sad(reference, (source.x >> 24) | (source.y << 8)));\n\
             }\n",
        );
    }
    if wanted(&["AddUint64"]) {
        out.push_str(
            "uint2 AddUint64(uint2 a, uint2 b) {\n\
             \x20   uint low = a.x + b.x;\n\
             \x20   return uint2(low, a.y + b.y + (low < a.x ? 1u : 0u));\n\
             }\n\
             uint4 AddUint64(uint4 a, uint4 b) { return uint4(AddUint64(a.xy, b.xy), AddUint64(a.zw, b.zw)); }\n",
        );
    }
    if wanted(&["D3DCOLORtoUBYTE4"]) {
        out.push_str("int4 D3DCOLORtoUBYTE4(float4 c) { return (int4)(c.zyxw * 255.002f); }\n");
    }
    let derivative_names = [
        "ddx",
        "ddy",
        "ddx_coarse",
        "ddy_coarse",
        "ddx_fine",
        "ddy_fine",
        "fwidth",
    ];
    let samples = wanted(&[
        "Sample",
        "SampleLevel",
        "SampleBias",
        "SampleGrad",
        "Gather",
        "GatherRed",
        "GatherGreen",
        "GatherBlue",
        "GatherAlpha",
        "CalculateLevelOfDetail",
        "CalculateLevelOfDetailUnclamped",
        "SampleCmp",
        "SampleCmpLevelZero",
        "SampleCmpLevel",
        "GatherCmp",
        "GatherCmpRed",
    ]);
    if derivatives
        && (wanted(&derivative_names)
            || samples
            || wanted(&[
                "EvaluateAttributeCentroid",
                "EvaluateAttributeAtSample",
                "EvaluateAttributeSnapped",
            ]))
    {
        for &s in floats {
            for t in shapes(s) {
                derivative_functions(&mut out, &t);
            }
            matrix_derivatives(&mut out, s);
        }
    }
    // One sample per pixel, at its centre: the centroid and sample 0 are
    // the centre; a snapped offset (1/16 pixel steps) follows the
    // attribute's slope across the quad. Written for every stage, as DXC
    // checks them only where a pixel shader's entry point does not reach
    // them (`graphics.rs`).
    let snapped = derivatives && wanted(&["EvaluateAttributeSnapped"]);
    if wanted(&["EvaluateAttributeCentroid", "EvaluateAttributeAtSample"]) || snapped {
        for &s in floats {
            for t in shapes(s) {
                let _ = writeln!(
                    out,
                    "{t} EvaluateAttributeCentroid({t} v) {{ return v; }}\n\
                     {t} EvaluateAttributeAtSample({t} v, uint index) {{ return v; }}"
                );
                if snapped {
                    let _ = writeln!(
                        out,
                        "{t} EvaluateAttributeSnapped({t} v, int2 offset) {{ return v + ddx_fine(v) * ({s})(offset.x / 16.0f) + ddy_fine(v) * ({s})(offset.y / 16.0f); }}"
                    );
                }
            }
        }
    }
    if wanted(&[
        "GetRenderTargetSampleCount",
        "GetRenderTargetSamplePosition",
    ]) {
        out.push_str(
            "uint GetRenderTargetSampleCount() { return 1; }\n\
             float2 GetRenderTargetSamplePosition(int index) { return float2(0.0f, 0.0f); }\n",
        );
    }
    if samples {
        sampling(&mut out, derivatives, &wanted);
    }
    if wanted(&["determinant"]) {
        determinant(&mut out, floats);
    }
    if wanted(&["Barrier"]) {
        // SM 6.8's flags for `Barrier(memory, semantics)`.
        out.push_str(
            "static const uint UAV_MEMORY = 1;\n\
             static const uint GROUP_SHARED_MEMORY = 2;\n\
             static const uint NODE_INPUT_MEMORY = 4;\n\
             static const uint NODE_OUTPUT_MEMORY = 8;\n\
             static const uint ALL_MEMORY = 15;\n\
             static const uint GROUP_SYNC = 1;\n\
             static const uint GROUP_SCOPE = 2;\n\
             static const uint DEVICE_SCOPE = 4;\n",
        );
    }
    if wanted(&["CheckAccessFullyMapped"]) {
        // Every resource of a dispatch is resident: no tile is unmapped.
        out.push_str("bool CheckAccessFullyMapped(uint status) { return true; }\n");
    }
    out
}

/// The derivatives of `t` values over a compute quad (SM 6.6): quad lane
/// 0 is at (x, y), 1 at (x + 1, y), 2 at (x, y + 1), 3 at (x + 1, y + 1).
/// Coarse ones take lane 1 or 2 less lane 0, for the whole quad; fine ones
/// the difference along the lane's own row or column. `ddx` and `ddy` are
/// the coarse ones, as DXC compiles them; `fwidth` is `|ddx| + |ddy|`.
fn derivative_functions(out: &mut String, t: &str) {
    let _ = write!(
        out,
        "{t} ddx_coarse({t} v) {{ return QuadReadLaneAt(v, 1) - QuadReadLaneAt(v, 0); }}\n\
         {t} ddy_coarse({t} v) {{ return QuadReadLaneAt(v, 2) - QuadReadLaneAt(v, 0); }}\n\
         {t} ddx({t} v) {{ return ddx_coarse(v); }}\n\
         {t} ddy({t} v) {{ return ddy_coarse(v); }}\n\
         {t} ddx_fine({t} v) {{\n\
         \x20   {t} top = QuadReadLaneAt(v, 1) - QuadReadLaneAt(v, 0);\n\
         \x20   {t} bottom = QuadReadLaneAt(v, 3) - QuadReadLaneAt(v, 2);\n\
         \x20   if ((WaveGetLaneIndex() & 2) != 0) top = bottom;\n\
         \x20   return top;\n\
         }}\n\
         {t} ddy_fine({t} v) {{\n\
         \x20   {t} left = QuadReadLaneAt(v, 2) - QuadReadLaneAt(v, 0);\n\
         \x20   {t} right = QuadReadLaneAt(v, 3) - QuadReadLaneAt(v, 1);\n\
         \x20   if ((WaveGetLaneIndex() & 1) != 0) left = right;\n\
         \x20   return left;\n\
         }}\n\
         {t} fwidth({t} v) {{ return abs(ddx(v)) + abs(ddy(v)); }}\n"
    );
}

/// The derivatives of a matrix of `s`, row by row.
fn matrix_derivatives(out: &mut String, s: &str) {
    for name in [
        "ddx_coarse",
        "ddy_coarse",
        "ddx",
        "ddy",
        "ddx_fine",
        "ddy_fine",
        "fwidth",
    ] {
        for rows in 1..=4 {
            for cols in 1..=4 {
                let m = format!("{s}{rows}x{cols}");
                let each: Vec<String> = (0..rows)
                    .map(|r| {
                        if cols == 1 {
                            format!("{name}(m[{r}].x)")
                        } else {
                            format!("{name}(m[{r}])")
                        }
                    })
                    .collect();
                let _ = writeln!(
                    out,
                    "{m} {name}({m} m) {{ return {m}({}); }}",
                    each.join(", ")
                );
            }
        }
    }
}

/// One kind of texture the prelude samples.
struct SampledShape {
    /// The suffix of its functions' names.
    name: &'static str,
    /// The HLSL type.
    texture: &'static str,
    /// Spatial dimensions: 1, 2 or 3 (a cube's direction has 3).
    dims: u8,
    /// An array: the location's last component picks the slice.
    array: bool,
    /// A cube: the direction picks a face, read seamlessly.
    cube: bool,
}

const SAMPLED_SHAPES: &[SampledShape] = &[
    SampledShape {
        name: "1d",
        texture: "Texture1D",
        dims: 1,
        array: false,
        cube: false,
    },
    SampledShape {
        name: "1darray",
        texture: "Texture1DArray",
        dims: 1,
        array: true,
        cube: false,
    },
    SampledShape {
        name: "2d",
        texture: "Texture2D",
        dims: 2,
        array: false,
        cube: false,
    },
    SampledShape {
        name: "2darray",
        texture: "Texture2DArray",
        dims: 2,
        array: true,
        cube: false,
    },
    SampledShape {
        name: "3d",
        texture: "Texture3D",
        dims: 3,
        array: false,
        cube: false,
    },
    SampledShape {
        name: "cube",
        texture: "TextureCube",
        dims: 3,
        array: false,
        cube: true,
    },
    SampledShape {
        name: "cubearray",
        texture: "TextureCubeArray",
        dims: 3,
        array: true,
        cube: true,
    },
];

/// `float`, `float2`, `float3` (and `int`…) for `n` components.
fn vector(scalar: &str, n: u8) -> String {
    if n == 1 {
        scalar.to_string()
    } else {
        format!("{scalar}{n}")
    }
}

/// Texture sampling (see `crate::sample`) for every texture kind a shader
/// names (`wanted`), of every float texel shape. The level of detail picks
/// the filter (magnification at 0 and below, else minification) and, by
/// the sampler's mip filter, the mip level or the two levels blended
/// (`Gather` reads level 0). Linear filtering
/// weighs the texels around `uv * size - 0.5` by their distance in exact
/// float arithmetic. A cube's direction picks the face whose axis is
/// largest in magnitude (x before y before z on ties), with the face
/// coordinates of Direct3D and Vulkan; texels past a face's edge are read
/// from the face beside it (seamless filtering), and a texel past a
/// corner is the mean of the three texels at the corner.
fn sampling(out: &mut String, derivatives: bool, wanted: &dyn Fn(&[&str]) -> bool) {
    out.push_str(
        "int __lockstep_address(int i, int n, uint mode) {\n\
         \x20   if (mode == 1) return ((i % n) + n) % n;\n\
         \x20   if (mode == 2) { int m = ((i % (2 * n)) + 2 * n) % (2 * n); return m < n ? m : 2 * n - 1 - m; }\n\
         \x20   if (mode == 4) return (i < 0 || i >= n) ? -1 : i;\n\
         \x20   if (mode == 5) return min(i < 0 ? -1 - i : i, n - 1);\n\
         \x20   return clamp(i, 0, n - 1);\n\
         }\n",
    );
    let shapes_wanted: Vec<&SampledShape> = SAMPLED_SHAPES
        .iter()
        .filter(|sh| wanted(&[sh.texture]))
        .collect();
    if shapes_wanted.iter().any(|sh| sh.cube) {
        cube_faces(out);
    }
    let compares = wanted(&[
        "SampleCmp",
        "SampleCmpLevelZero",
        "SampleCmpLevel",
        "GatherCmp",
        "GatherCmpRed",
    ]);
    if compares {
        out.push_str(
            "float __lockstep_compare(float reference, float texel, uint op) {\n\
             \x20   bool pass = op == 1 ? reference < texel : op == 2 ? reference == texel\n\
             \x20       : op == 3 ? reference <= texel : op == 4 ? reference > texel\n\
             \x20       : op == 5 ? reference != texel : op == 6 ? reference >= texel : op == 7;\n\
             \x20   return pass ? 1.0f : 0.0f;\n\
             }\n",
        );
    }
    for t in shapes("float") {
        for sh in &shapes_wanted {
            sampled_shape(out, sh, &t, derivatives, compares);
        }
    }
}

/// A cube's faces: the face a direction points at and the coordinates on
/// it (`s`, `t` in 0..1, the face), the direction through a point of a
/// face (`u`, `v` in -1..1), and the derivative of a face's coordinates.
fn cube_faces(out: &mut String) {
    out.push_str(
        "float3 __lockstep_cube_face(float3 r) {\n\
         \x20   float ax = abs(r.x), ay = abs(r.y), az = abs(r.z);\n\
         \x20   float sc, tc, ma, face;\n\
         \x20   if (ax >= ay && ax >= az) { ma = ax; face = r.x >= 0.0f ? 0.0f : 1.0f; sc = r.x >= 0.0f ? -r.z : r.z; tc = -r.y; }\n\
         \x20   else if (ay >= az) { ma = ay; face = r.y >= 0.0f ? 2.0f : 3.0f; sc = r.x; tc = r.y >= 0.0f ? r.z : -r.z; }\n\
         \x20   else { ma = az; face = r.z >= 0.0f ? 4.0f : 5.0f; sc = r.z >= 0.0f ? r.x : -r.x; tc = -r.y; }\n\
         \x20   return float3(0.5f * (sc / ma + 1.0f), 0.5f * (tc / ma + 1.0f), face);\n\
         }\n\
         float3 __lockstep_cube_direction(int face, float u, float v) {\n\
         \x20   if (face == 0) return float3(1.0f, -v, -u);\n\
         \x20   if (face == 1) return float3(-1.0f, -v, u);\n\
         \x20   if (face == 2) return float3(u, 1.0f, v);\n\
         \x20   if (face == 3) return float3(u, -1.0f, -v);\n\
         \x20   if (face == 4) return float3(u, -v, 1.0f);\n\
         \x20   return float3(-u, -v, -1.0f);\n\
         }\n\
         float2 __lockstep_cube_derivative(float3 r, float3 d) {\n\
         \x20   float ax = abs(r.x), ay = abs(r.y), az = abs(r.z);\n\
         \x20   float sc, tc, ma, dsc, dtc, dma;\n\
         \x20   if (ax >= ay && ax >= az) { float g = r.x >= 0.0f ? 1.0f : -1.0f; ma = ax; dma = g * d.x; sc = -g * r.z; dsc = -g * d.z; tc = -r.y; dtc = -d.y; }\n\
         \x20   else if (ay >= az) { float g = r.y >= 0.0f ? 1.0f : -1.0f; ma = ay; dma = g * d.y; sc = r.x; dsc = d.x; tc = g * r.z; dtc = g * d.z; }\n\
         \x20   else { float g = r.z >= 0.0f ? 1.0f : -1.0f; ma = az; dma = g * d.z; sc = g * r.x; dsc = g * d.x; tc = -r.y; dtc = -d.y; }\n\
         \x20   return 0.5f * float2(dsc * ma - sc * dma, dtc * ma - tc * dma) / (ma * ma);\n\
         }\n",
    );
}

/// The sampling functions of one texture kind and texel type `t`.
fn sampled_shape(out: &mut String, sh: &SampledShape, t: &str, derivatives: bool, compares: bool) {
    let (shape, texture) = (sh.name, sh.texture);
    let d = sh.dims;
    let spatial = vector("float", d);
    let location = vector("float", d + u8::from(sh.array));
    // The spatial part of the location, and the slice's component.
    let xyz = ["x", "xy", "xyz"][d as usize - 1];
    let slice_c = ["x", "y", "z", "w"][d as usize];
    // Offsets move texels in the spatial dimensions; a cube takes none
    // (an `int2` is accepted and ignored, as the methods' signatures
    // share it).
    let offset_ty = if sh.cube {
        "int2".to_string()
    } else {
        vector("int", d)
    };
    let zero_offset = if sh.cube || d == 2 {
        "int2(0, 0)".to_string()
    } else if d == 1 {
        "0".to_string()
    } else {
        "int3(0, 0, 0)".to_string()
    };
    // The sizes of the texture at a mip level, and their level count.
    let (size_names, sizes) = match (d, sh.array, sh.cube) {
        (1, false, _) => ("float(w)", "w"),
        (1, true, _) => ("float(w)", "w, slices"),
        (2, false, _) => ("float2(w, h)", "w, h"),
        (2, true, _) => ("float2(w, h)", "w, h, slices"),
        (_, false, false) => ("float3(w, h, dd)", "w, h, dd"),
        (_, false, true) => ("float(w)", "w, h"),
        (_, true, _) => ("float(w)", "w, h, slices"),
    };
    let size_at = |level: &str| {
        format!("uint {sizes}, levels; t.GetDimensions((uint)({level}), {sizes}, levels);")
    };
    let size = size_at("0");
    let slice = if sh.array {
        format!("int slice = clamp((int)round(uv.{slice_c}), 0, (int)slices - 1);")
    } else {
        "int slice = 0;".to_string()
    };
    // The texel at integer coordinates `i` (of the face, for a cube), at
    // mip level `level` (`__lockstep_texel_`) or at level 0
    // (`__lockstep_texel0_`, whose loads name no level: machine code
    // addresses them without the interpreter).
    let ivec = vector("int", if sh.cube { 2 } else { d });
    let texels_from = out.len();
    if sh.cube {
        let _ = write!(
            out,
            "{t} __lockstep_cube_across_{shape}_{t}({texture}<{t}> t, int x, int y, int n, int face, int base, int level) {{\n\
             \x20   float u = (x + 0.5f) / n * 2.0f - 1.0f, v = (y + 0.5f) / n * 2.0f - 1.0f;\n\
             \x20   float3 st = __lockstep_cube_face(__lockstep_cube_direction(face, u, v));\n\
             \x20   int i = clamp((int)floor(st.x * n), 0, n - 1), j = clamp((int)floor(st.y * n), 0, n - 1);\n\
             \x20   return t.Load(int4(i, j, base + (int)st.z, __LEVEL__));\n\
             }}\n\
             {t} __lockstep_texel_{shape}_{t}({texture}<{t}> t, SamplerState s, int2 i, int n, int face, int base, int level) {{\n\
             \x20   bool outx = i.x < 0 || i.x >= n, outy = i.y < 0 || i.y >= n;\n\
             \x20   if (!outx && !outy) return t.Load(int4(i, base + face, __LEVEL__));\n\
             \x20   int cx = clamp(i.x, 0, n - 1), cy = clamp(i.y, 0, n - 1);\n\
             \x20   if (outx && outy) return (t.Load(int4(cx, cy, base + face, __LEVEL__)) + __lockstep_cube_across_{shape}_{t}(t, i.x, cy, n, face, base, level) + __lockstep_cube_across_{shape}_{t}(t, cx, i.y, n, face, base, level)) / 3.0f;\n\
             \x20   return __lockstep_cube_across_{shape}_{t}(t, i.x, i.y, n, face, base, level);\n\
             }}\n"
        );
    } else {
        let axes = ["x", "y", "z"];
        let sizes = ["w", "h", "dd"];
        let mut body = String::new();
        for k in 0..d as usize {
            let c = if d == 1 {
                String::new()
            } else {
                format!(".{}", axes[k])
            };
            let n = sizes[k];
            let _ = writeln!(
                body,
                "\x20   int a{k} = __lockstep_address(i{c}, {n}, s.__lockstep_address.{});\n",
                axes[k]
            );
        }
        let outside: Vec<String> = (0..d).map(|k| format!("a{k} < 0")).collect();
        let coords: Vec<String> = (0..d).map(|k| format!("a{k}")).collect();
        let load = match (d, sh.array) {
            (1, false) => format!("int2({}, __LEVEL__)", coords[0]),
            (1, true) | (2, false) => format!(
                "int3({}, {}__LEVEL__)",
                coords.join(", "),
                if sh.array { "slice, " } else { "" }
            ),
            (2, true) => format!("int4({}, slice, __LEVEL__)", coords.join(", ")),
            _ => format!("int4({}, __LEVEL__)", coords.join(", ")),
        };
        let params = match d {
            1 => "int w",
            2 => "int w, int h",
            _ => "int w, int h, int dd",
        };
        let _ = write!(
            out,
            "{t} __lockstep_texel_{shape}_{t}({texture}<{t}> t, SamplerState s, {ivec} i, {params}, int slice, int level) {{\n\
             {body}\
             \x20   if ({}) return ({t})s.__lockstep_border;\n\
             \x20   return t.Load({load});\n\
             }}\n",
            outside.join(" || ")
        );
    }
    let texels = out.split_off(texels_from);
    out.push_str(&texels.replace("__LEVEL__", "level"));
    out.push_str(
        &texels
            .replace("__LEVEL__", "0")
            .replace("__lockstep_texel_", "__lockstep_texel0_")
            .replace("__lockstep_cube_across_", "__lockstep_cube_across0_"),
    );
    // The texel fetch at integer coordinates `i` plus `k`.
    let (dims_args, setup) = if sh.cube {
        (
            "(int)w, face, base, level".to_string(),
            format!(
                "float3 st = __lockstep_cube_face(uv.xyz);\n\
                 \x20   int face = (int)st.z;\n\
                 \x20   int base = {};\n\
                 \x20   float2 p = st.xy * float(w);",
                if sh.array {
                    "6 * clamp((int)round(uv.w), 0, (int)slices - 1)"
                } else {
                    "0"
                }
            ),
        )
    } else {
        let args = match d {
            1 => "(int)w, slice, level",
            2 => "(int)w, (int)h, slice, level",
            _ => "(int)w, (int)h, (int)dd, slice, level",
        };
        (
            args.to_string(),
            format!("{slice}\n\x20   {spatial} p = uv.{xyz} * {size_names};"),
        )
    };
    let face_dims = if sh.cube { 2 } else { d };
    let pvec = vector("float", face_dims);
    let at = |k: [u8; 3]| -> String {
        let add: Vec<String> = (0..face_dims as usize)
            .map(|a| {
                if k[a] == 1 {
                    "1".to_string()
                } else {
                    "0".to_string()
                }
            })
            .collect();
        let shift = if face_dims == 1 {
            format!("i + {}", add[0])
        } else {
            format!("i + int{face_dims}({})", add.join(", "))
        };
        format!("__lockstep_texel_{shape}_{t}(t, s, {shift}, {dims_args})")
    };
    // `Gather` reads level 0.
    let at0 = |k: [u8; 3]| {
        at(k)
            .replace("__lockstep_texel_", "__lockstep_texel0_")
            .replace(", level)", ", 0)")
    };
    let offset_use = if sh.cube { "" } else { " + offset" };
    // Nearest filtering on a cube reads the chosen face only (a direction
    // exactly on an edge gives s or t of 1).
    let point_clamp = if sh.cube {
        "i = clamp(i, 0, (int)w - 1);"
    } else {
        ""
    };
    let linear = match face_dims {
        1 => format!("lerp({}, {}, ({t})f)", at([0, 0, 0]), at([1, 0, 0])),
        2 => format!(
            "lerp(lerp({}, {}, ({t})f.x), lerp({}, {}, ({t})f.x), ({t})f.y)",
            at([0, 0, 0]),
            at([1, 0, 0]),
            at([0, 1, 0]),
            at([1, 1, 0])
        ),
        _ => format!(
            "lerp(lerp(lerp({}, {}, ({t})f.x), lerp({}, {}, ({t})f.x), ({t})f.y), lerp(lerp({}, {}, ({t})f.x), lerp({}, {}, ({t})f.x), ({t})f.y), ({t})f.z)",
            at([0, 0, 0]),
            at([1, 0, 0]),
            at([0, 1, 0]),
            at([1, 1, 0]),
            at([0, 0, 1]),
            at([1, 0, 1]),
            at([0, 1, 1]),
            at([1, 1, 1])
        ),
    };
    // A filtering function `name` returning `rt`, with `params` (and
    // `args` to pass them on) between the location and the level of
    // detail: the texel the nearest filter reads and the weighing of those
    // linear filtering reads, at one mip level (`name_level`); between
    // levels, the nearest level or the blend of the two around the level
    // of detail, by the sampler's mip filter (nearest: level
    // `floor(lod + 0.5)`).
    let level_size = size_at("level");
    let filter_fn = |out: &mut String,
                     name: &str,
                     rt: &str,
                     extra: [&str; 2],
                     point: &str,
                     linear: &str| {
        let [params, args] = extra;
        let mut level_fn = String::new();
        let _ = write!(
            level_fn,
            "{rt} {name}_level({texture}<{t}> t, SamplerState s, {location} uv{params}, int level, uint filter, {offset_ty} offset) {{\n\
             \x20   {level_size}\n\
             \x20   {setup}\n\
             \x20   if (filter == 0) {{\n\
             \x20       {ivec} i = {ivec}(floor(p)){offset_use};\n\
             \x20       {point_clamp}\n\
             \x20       return {point};\n\
             \x20   }}\n\
             \x20   p -= 0.5f;\n\
             \x20   {pvec} f = p - floor(p);\n\
             \x20   {ivec} i = {ivec}(floor(p)){offset_use};\n\
             \x20   return {linear};\n\
             }}\n"
        );
        out.push_str(&level_fn);
        out.push_str(
            &level_fn
                .replace("__lockstep_texel_", "__lockstep_texel0_")
                .replace(&format!("{name}_level("), &format!("{name}_level0(")),
        );
        let _ = write!(
            out,
            "{rt} {name}({texture}<{t}> t, SamplerState s, {location} uv{params}, float lod, {offset_ty} offset) {{\n\
             \x20   {size}\n\
             \x20   lod = clamp(lod, s.__lockstep_min_lod, s.__lockstep_max_lod);\n\
             \x20   uint filter = lod > 0.0f ? s.__lockstep_min_filter : s.__lockstep_mag_filter;\n\
             \x20   if (lod <= 0.0f || levels <= 1) return {name}_level0(t, s, uv{args}, 0, filter, offset);\n\
             \x20   int l0 = 0;\n\
             \x20   float between = 0.0f;\n\
             \x20   if (lod > 0.0f && levels > 1) {{\n\
             \x20       float l = min(lod, (float)(levels - 1));\n\
             \x20       l0 = (int)floor(s.__lockstep_mip_filter == 0 ? l + 0.5f : l);\n\
             \x20       between = s.__lockstep_mip_filter == 0 ? 0.0f : l - (float)l0;\n\
             \x20   }}\n\
             \x20   {rt} near = ({rt})0;\n\
             \x20   for (int k = 0; k < (between == 0.0f ? 1 : 2); k++) {{\n\
             \x20       {rt} v = {name}_level(t, s, uv{args}, l0 + k, filter, offset);\n\
             \x20       near = k == 0 ? v : lerp(near, v, ({rt})between);\n\
             \x20   }}\n\
             \x20   return near;\n\
             }}\n"
        );
    };
    filter_fn(
        out,
        &format!("__lockstep_filter_{shape}_{t}"),
        t,
        ["", ""],
        &at([0, 0, 0]),
        &linear,
    );
    // The level of detail of a gradient: log2 of its longest side in
    // texels (for a cube, of the face coordinates' gradient).
    let grad_lod = if sh.cube {
        format!(
            "float __lockstep_grad_lod_{shape}_{t}({texture}<{t}> t, {location} r, float3 ddx, float3 ddy) {{\n\
             \x20   {size}\n\
             \x20   float2 a = __lockstep_cube_derivative(r.xyz, ddx) * float(w), b = __lockstep_cube_derivative(r.xyz, ddy) * float(w);\n\
             \x20   return log2(max(length(a), length(b)));\n\
             }}\n"
        )
    } else {
        format!(
            "float __lockstep_grad_lod_{shape}_{t}({texture}<{t}> t, {location} r, {spatial} ddx, {spatial} ddy) {{\n\
             \x20   {size}\n\
             \x20   {spatial} texels = {size_names};\n\
             \x20   return log2(max(length(ddx * texels), length(ddy * texels)));\n\
             }}\n"
        )
    };
    out.push_str(&grad_lod);
    // `Sample` and `SampleBias` take their level of detail from the
    // derivatives where there are any; else they sample level 0.
    let implicit = if derivatives {
        format!("__lockstep_grad_lod_{shape}_{t}(t, uv, ddx(uv.{xyz}), ddy(uv.{xyz})) + ")
    } else {
        String::new()
    };
    let grad = format!("__lockstep_grad_lod_{shape}_{t}(t, uv, ddx, ddy) + s.__lockstep_lod_bias");
    for (method, params, lod) in [
        (
            "sample",
            String::new(),
            format!("{implicit}s.__lockstep_lod_bias"),
        ),
        ("sample_level", ", float lod".to_string(), "lod".to_string()),
        (
            "sample_bias",
            ", float bias".to_string(),
            format!("{implicit}bias + s.__lockstep_lod_bias"),
        ),
        (
            "sample_grad",
            format!(", {spatial} ddx, {spatial} ddy"),
            grad,
        ),
    ] {
        let _ = write!(
            out,
            "{t} __lockstep_{method}_{shape}_{t}({texture}<{t}> t, SamplerState s, {location} uv{params}, {offset_ty} offset) {{\n\
             \x20   return __lockstep_filter_{shape}_{t}(t, s, uv, {lod}, offset);\n\
             }}\n\
             {t} __lockstep_{method}_{shape}_{t}({texture}<{t}> t, SamplerState s, {location} uv{params}) {{\n\
             \x20   return __lockstep_filter_{shape}_{t}(t, s, uv, {lod}, {zero_offset});\n\
             }}\n"
        );
    }
    // Gather (2D, 2D arrays and cubes): one component of the four texels
    // linear filtering would weigh, counterclockwise from (i0, j1): (i0,
    // j1), (i1, j1), (i1, j0), (i0, j0).
    if face_dims == 2 {
        for c in ["x", "y", "z", "w"] {
            let _ = write!(
                out,
                "float4 __lockstep_gather_{c}_{shape}_{t}({texture}<{t}> t, SamplerState s, {location} uv, int2 offset) {{\n\
                 \x20   {size}\n\
                 \x20   {setup}\n\
                 \x20   p -= 0.5f;\n\
                 \x20   int2 i = int2(floor(p)){offset_use};\n\
                 \x20   return float4({}.{c}, {}.{c}, {}.{c}, {}.{c});\n\
                 }}\n\
                 float4 __lockstep_gather_{c}_{shape}_{t}({texture}<{t}> t, SamplerState s, {location} uv) {{\n\
                 \x20   return __lockstep_gather_{c}_{shape}_{t}(t, s, uv, int2(0, 0));\n\
                 }}\n",
                at0([0, 1, 0]),
                at0([1, 1, 0]),
                at0([1, 0, 0]),
                at0([0, 0, 0])
            );
        }
    }
    // Comparison sampling (`SampleCmp*`, `GatherCmp`): each texel's first
    // component compared with the reference by the sampler's comparison
    // (1 or 0), then filtered as the texels would be. 3D textures have
    // none.
    if compares && (d != 3 || sh.cube) {
        let cmp = |texel: String| {
            format!("__lockstep_compare(reference, {texel}.x, s.__lockstep_compare)")
        };
        let cat = |k: [u8; 3]| cmp(at(k));
        let cat0 = |k: [u8; 3]| cmp(at0(k));
        let linear = match face_dims {
            1 => format!("lerp({}, {}, f)", cat([0, 0, 0]), cat([1, 0, 0])),
            _ => format!(
                "lerp(lerp({}, {}, f.x), lerp({}, {}, f.x), f.y)",
                cat([0, 0, 0]),
                cat([1, 0, 0]),
                cat([0, 1, 0]),
                cat([1, 1, 0])
            ),
        };
        filter_fn(
            out,
            &format!("__lockstep_cmpfilter_{shape}_{t}"),
            "float",
            [", float reference", ", reference"],
            &cat([0, 0, 0]),
            &linear,
        );
        let implicit_lod = if derivatives {
            format!(
                "__lockstep_grad_lod_{shape}_{t}(t, uv, ddx(uv.{xyz}), ddy(uv.{xyz})) + s.__lockstep_lod_bias"
            )
        } else {
            "s.__lockstep_lod_bias".to_string()
        };
        for (method, params, lod) in [
            ("sample_cmp", "", implicit_lod.as_str()),
            ("sample_cmp_level_zero", "", "0.0f"),
            ("sample_cmp_level", ", float lod", "lod"),
        ] {
            let _ = write!(
                out,
                "float __lockstep_{method}_{shape}_{t}({texture}<{t}> t, SamplerState s, {location} uv, float reference{params}, {offset_ty} offset) {{\n\
                 \x20   return __lockstep_cmpfilter_{shape}_{t}(t, s, uv, reference, {lod}, offset);\n\
                 }}\n\
                 float __lockstep_{method}_{shape}_{t}({texture}<{t}> t, SamplerState s, {location} uv, float reference{params}) {{\n\
                 \x20   return __lockstep_cmpfilter_{shape}_{t}(t, s, uv, reference, {lod}, {zero_offset});\n\
                 }}\n"
            );
        }
        if face_dims == 2 {
            let _ = write!(
                out,
                "float4 __lockstep_gather_cmp_{shape}_{t}({texture}<{t}> t, SamplerState s, {location} uv, float reference, int2 offset) {{\n\
                 \x20   {size}\n\
                 \x20   {setup}\n\
                 \x20   p -= 0.5f;\n\
                 \x20   int2 i = int2(floor(p)){offset_use};\n\
                 \x20   return float4({}, {}, {}, {});\n\
                 }}\n\
                 float4 __lockstep_gather_cmp_{shape}_{t}({texture}<{t}> t, SamplerState s, {location} uv, float reference) {{\n\
                 \x20   return __lockstep_gather_cmp_{shape}_{t}(t, s, uv, reference, int2(0, 0));\n\
                 }}\n",
                cat0([0, 1, 0]),
                cat0([1, 1, 0]),
                cat0([1, 0, 0]),
                cat0([0, 0, 0])
            );
        }
    }
    // CalculateLevelOfDetail(Unclamped): the level `Sample` would take,
    // without the sampler's bias; the clamped one within the sampler's
    // range and the texture's levels. The location has no array index.
    if derivatives {
        let at = if sh.array {
            format!("{location}(uv, 0)")
        } else {
            "uv".to_string()
        };
        let _ = write!(
            out,
            "float __lockstep_calculate_lod_unclamped_{shape}_{t}({texture}<{t}> t, SamplerState s, {spatial} uv) {{\n\
             \x20   return __lockstep_grad_lod_{shape}_{t}(t, {at}, ddx(uv), ddy(uv));\n\
             }}\n\
             float __lockstep_calculate_lod_{shape}_{t}({texture}<{t}> t, SamplerState s, {spatial} uv) {{\n\
             \x20   {size}\n\
             \x20   float lod = __lockstep_calculate_lod_unclamped_{shape}_{t}(t, s, uv);\n\
             \x20   return min(max(lod, max(s.__lockstep_min_lod, 0.0f)), min(s.__lockstep_max_lod, (float)(levels - 1)));\n\
             }}\n"
        );
    }
}

/// `determinant` of square matrices as DXC expands it: the 2×2 cross
/// product, the 3×3 expansion along the first row, and the 4×4 expansion
/// along the first row over 3×3 minors.
fn determinant(out: &mut String, floats: &[&str]) {
    let det3 = |m: &str, r: [u8; 3], c: [u8; 3]| {
        let e = |i: usize, j: usize| format!("{m}[{}][{}]", r[i], c[j]);
        format!(
            "({} * ({} * {} - {} * {}) + {} * ({} * {} - {} * {}) + {} * ({} * {} - {} * {}))",
            e(0, 0),
            e(1, 1),
            e(2, 2),
            e(1, 2),
            e(2, 1),
            e(0, 1),
            e(1, 2),
            e(2, 0),
            e(1, 0),
            e(2, 2),
            e(0, 2),
            e(1, 0),
            e(2, 1),
            e(1, 1),
            e(2, 0),
        )
    };
    for &s in floats {
        let _ = writeln!(out, "{s} determinant({s}1x1 m) {{ return m[0][0]; }}");
        let _ = writeln!(
            out,
            "{s} determinant({s}2x2 m) {{ return m[0][0] * m[1][1] - m[0][1] * m[1][0]; }}"
        );
        let _ = writeln!(
            out,
            "{s} determinant({s}3x3 m) {{ return {}; }}",
            det3("m", [0, 1, 2], [0, 1, 2])
        );
        let minor = |skip: u8| {
            let c: Vec<u8> = (0..4).filter(|&j| j != skip).collect();
            det3("m", [1, 2, 3], [c[0], c[1], c[2]])
        };
        let _ = writeln!(
            out,
            "{s} determinant({s}4x4 m) {{ return m[0][0] * {} - m[0][1] * {} + m[0][2] * {} - m[0][3] * {}; }}",
            minor(0),
            minor(1),
            minor(2),
            minor(3)
        );
    }
}

/// `frexp(x, out e)` as DXC expands it: the exponent field less the bias
/// (minus one), the mantissa with the exponent of 0.5 and `x`'s sign; both
/// 0 for a zero.
fn frexp(out: &mut String, sixteen_bit: bool) {
    let mut kinds = vec![(
        "float",
        "uint",
        "asuint",
        "asfloat",
        "0x7F800000",
        23,
        126,
        "0x807FFFFF",
        "0x3F000000",
    )];
    if sixteen_bit {
        kinds.push((
            "half",
            "uint16_t",
            "asuint16",
            "asfloat16",
            "0x7C00",
            10,
            14,
            "0x83FF",
            "0x3800",
        ));
    }
    for (s, u, to_bits, from_bits, exponent_mask, shift, bias, keep, half_exponent) in kinds {
        for n in 1..=4 {
            let (t, ut, it, bt) = if n == 1 {
                (
                    s.to_string(),
                    u.to_string(),
                    "int".to_string(),
                    "bool".to_string(),
                )
            } else {
                (
                    format!("{s}{n}"),
                    format!("{u}{n}"),
                    format!("int{n}"),
                    format!("bool{n}"),
                )
            };
            let _ = writeln!(
                out,
                "{t} frexp({t} x, out {t} e) {{\n\
                 \x20   {ut} bits = {to_bits}(x);\n\
                 \x20   {bt} nonzero = x != ({t})0;\n\
                 \x20   e = select(nonzero, ({t})(({it})((bits & {exponent_mask}) >> {shift}) - {bias}), ({t})0);\n\
                 \x20   return select(nonzero, {from_bits}((bits & {keep}) | {half_exponent}), ({t})0);\n\
                 }}"
            );
        }
    }
}

/// `pack_u8`, `pack_s8`, their clamping forms, and the `unpack_*` family
/// (SM 6.6): four 8-bit values in one `uint`, x in the low byte.
fn packing(out: &mut String, sixteen_bit: bool) {
    let pack = |out: &mut String, name: &str, ret: &str, arg: &str, clamp: Option<(&str, &str)>| {
        let v = match clamp {
            Some((low, high)) => format!("clamp(v, {low}, {high})"),
            None => "v".to_string(),
        };
        let _ = writeln!(
            out,
            "{ret} {name}({arg} v) {{\n\
             \x20   uint4 u = (uint4){v};\n\
             \x20   return (u.x & 0xFF) | ((u.y & 0xFF) << 8) | ((u.z & 0xFF) << 16) | ((u.w & 0xFF) << 24);\n\
             }}"
        );
    };
    // The 32-bit forms, and the 16-bit ones where those types exist.
    let mut widths = vec![("uint4", "int4")];
    if sixteen_bit {
        widths.push(("uint16_t4", "int16_t4"));
    }
    for (unsigned, signed) in widths {
        pack(out, "pack_u8", "uint8_t4_packed", unsigned, None);
        pack(out, "pack_s8", "int8_t4_packed", signed, None);
        pack(
            out,
            "pack_clamp_u8",
            "uint8_t4_packed",
            signed,
            Some(("0", "255")),
        );
        pack(
            out,
            "pack_clamp_s8",
            "int8_t4_packed",
            signed,
            Some(("-128", "127")),
        );
    }
    out.push_str("uint4 unpack_u8u32(uint8_t4_packed p) { return __lockstep_u8x4(p); }\n");
    out.push_str("int4 unpack_s8s32(int8_t4_packed p) { return __lockstep_s8x4(p); }\n");
    out.push_str(
        "int dot4add_i8packed(uint a, uint b, int acc) {\n\
         \x20   int4 x = __lockstep_s8x4(a);\n\
         \x20   int4 y = __lockstep_s8x4(b);\n\
         \x20   return acc + x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w;\n\
         }\n",
    );
    if sixteen_bit {
        out.push_str(
            "uint16_t4 unpack_u8u16(uint8_t4_packed p) { return (uint16_t4)__lockstep_u8x4(p); }\n",
        );
        out.push_str(
            "int16_t4 unpack_s8s16(int8_t4_packed p) { return (int16_t4)__lockstep_s8x4(p); }\n",
        );
    }
}
