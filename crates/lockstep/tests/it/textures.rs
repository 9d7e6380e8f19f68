//! Textures without sampling, end to end: pipelines with `OutputProps`,
//! texel reads and writes, `Load` with and without a mip level,
//! `GetDimensions`, per-coordinate bounds, binding errors, and a wave
//! min/max reduction over an 8×8 tile at every wave size.

use lockstep::{CompileOptions, RunOptions};

use crate::harness::{WAVE_SIZES, compile};

/// A pipeline document: `buffers` is the YAML of the `Buffers` list (items
/// indented by two spaces), `bindings` are (buffer, kind, register).
fn pipeline_yaml(groups: [u32; 3], buffers: &str, bindings: &[(&str, &str, u32)]) -> String {
    let [x, y, z] = groups;
    let mut out = format!(
        "---\nShaders:\n  - Stage: Compute\n    Entry: main\n    DispatchSize: [{x}, {y}, {z}]\nBuffers:\n{buffers}DescriptorSets:\n  - Resources:\n"
    );
    for (name, kind, register) in bindings {
        out.push_str(&format!(
            "    - Name: {name}\n      Kind: {kind}\n      DirectXBinding: {{ Register: {register}, Space: 0 }}\n"
        ));
    }
    out
}

fn try_run(source: &str, yaml: &str, wave_size: u32) -> Result<Vec<Vec<u8>>, String> {
    let shader = compile(source, &CompileOptions::default());
    let p = lockstep::pipeline::parse(yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
    let opts = RunOptions {
        wave_size,
        threads: 2,
        ..RunOptions::default()
    };
    lockstep::run(&shader, &p, &opts)
        .map(|out| out.contents.iter().map(|c| c.to_vec()).collect())
        .map_err(|e| e.message)
}

fn run(source: &str, yaml: &str, wave_size: u32) -> Vec<Vec<u8>> {
    try_run(source, yaml, wave_size).unwrap_or_else(|e| panic!("run failed: {e}"))
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn floats(bytes: &[u8]) -> Vec<f32> {
    words(bytes).into_iter().map(f32::from_bits).collect()
}

fn list<T: ToString>(values: impl IntoIterator<Item = T>) -> String {
    let items: Vec<String> = values.into_iter().map(|v| v.to_string()).collect();
    format!("[ {} ]", items.join(", "))
}

#[test]
fn texture2d_reads_with_operator_and_load() {
    // A 4×3 texture: texel (x, y) holds 1 + x + 10y. Each thread reads its
    // texel four ways, then past the right edge (x + 4, which a flat index
    // would take from the next row) and left of it through `Load`.
    let source = r#"
Texture2D<float> Tex : register(t0);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(4, 3, 1)]
void main(uint3 id : SV_GroupThreadID, uint gi : SV_GroupIndex)
{
    uint2 c = id.xy;
    Out[gi * 6 + 0] = Tex[c];
    Out[gi * 6 + 1] = Tex.Load(int3(c, 0));
    Out[gi * 6 + 2] = Tex.Load(int3(c, 1));
    Out[gi * 6 + 3] = Tex[uint2(c.x + 4, c.y)];
    Out[gi * 6 + 4] = Tex.Load(int3(int(c.x) - 4, c.y, 0));
    Out[gi * 6 + 5] = Tex[uint2(c.x, c.y + 3)];
}
"#;
    let texels: Vec<f32> = (0..3)
        .flat_map(|y| (0..4).map(move |x| (1 + x + 10 * y) as f32))
        .collect();
    let buffers = format!(
        "  - Name: Tex\n    Format: Float32\n    OutputProps: {{ Width: 4, Height: 3 }}\n    Data: {}\n  - Name: Out\n    Format: Float32\n    FillSize: 288\n    FillValue: -1\n",
        list(&texels)
    );
    let yaml = pipeline_yaml(
        [1, 1, 1],
        &buffers,
        &[("Tex", "Texture2D", 0), ("Out", "RWStructuredBuffer", 0)],
    );
    for w in WAVE_SIZES {
        let out = floats(&run(source, &yaml, w)[1]);
        let want: Vec<f32> = texels
            .iter()
            .flat_map(|&v| [v, v, 0.0, 0.0, 0.0, 0.0])
            .collect();
        assert_eq!(out, want, "wave size {w}");
    }
}

#[test]
fn rwtexture2d_uint_writes_and_reads_back() {
    // Every thread writes its texel, then tries to write past the right
    // and bottom edges (dropped, and not wrapped into the next row), then
    // reads its texel back through `Load`.
    let source = r#"
RWTexture2D<uint> Img : register(u0);
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(4, 2, 1)]
void main(uint3 id : SV_GroupThreadID, uint gi : SV_GroupIndex)
{
    Img[id.xy] = id.x * 100 + id.y;
    Img[uint2(id.x + 4, id.y)] = 999;
    Img[uint2(id.x, id.y + 2)] = 998;
    Img[uint2(0xFFFFFFFF, 0)] = 997;
    Out[gi] = Img.Load(int2(id.xy)) + 1;
}
"#;
    let buffers = "  - Name: Img\n    Format: UInt32\n    OutputProps: { Width: 4, Height: 2 }\n    FillSize: 32\n    FillValue: 7\n  - Name: Out\n    Format: UInt32\n    FillSize: 32\n";
    let yaml = pipeline_yaml(
        [1, 1, 1],
        buffers,
        &[("Img", "RWTexture2D", 0), ("Out", "RWStructuredBuffer", 1)],
    );
    for w in WAVE_SIZES {
        let out = run(source, &yaml, w);
        assert_eq!(
            words(&out[0]),
            [0, 100, 200, 300, 1, 101, 201, 301],
            "wave size {w}"
        );
        assert_eq!(
            words(&out[1]),
            [1, 101, 201, 301, 2, 102, 202, 302],
            "wave size {w}"
        );
    }
}

#[test]
fn rwtexture2d_float4_whole_texels_and_components() {
    let source = r#"
RWTexture2D<float4> Img : register(u0);
[numthreads(2, 2, 1)]
void main(uint3 id : SV_GroupThreadID)
{
    Img[id.xy] = float4(id.x, id.y, id.x + id.y, 1);
    if (id.x == 1 && id.y == 1)
        Img[id.xy].w = 7;
    Img[id.xy][id.x] += 0.5;
}
"#;
    let buffers = "  - Name: Img\n    Format: Float32\n    Channels: 4\n    OutputProps: { Width: 2, Height: 2, Depth: 1 }\n    FillSize: 64\n";
    let yaml = pipeline_yaml([1, 1, 1], buffers, &[("Img", "RWTexture2D", 0)]);
    for w in WAVE_SIZES {
        let out = floats(&run(source, &yaml, w)[0]);
        #[rustfmt::skip]
        let want = [
            0.5, 0.0, 0.0, 1.0,   1.0, 0.5, 1.0, 1.0,
            0.5, 1.0, 1.0, 1.0,   1.0, 1.5, 2.0, 7.0,
        ];
        assert_eq!(out, want, "wave size {w}");
    }
}

#[test]
fn texture2d_array_slices() {
    // 2×2 texels in 3 slices; texel (x, y, s) holds 100s + 10y + x. The
    // fourth slice does not exist.
    let source = r#"
Texture2DArray<uint> Layers : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(2, 2, 4)]
void main(uint3 id : SV_GroupThreadID, uint gi : SV_GroupIndex)
{
    Out[gi * 2] = Layers[id];
    Out[gi * 2 + 1] = Layers.Load(int4(id, 0)) + Layers.Load(int4(id, 2));
}
"#;
    let texels: Vec<u32> = (0..3)
        .flat_map(|s| (0..2).flat_map(move |y| (0..2).map(move |x| 100 * s + 10 * y + x)))
        .collect();
    let buffers = format!(
        "  - Name: Layers\n    Format: UInt32\n    OutputProps: {{ Width: 2, Height: 2, Depth: 3 }}\n    Data: {}\n  - Name: Out\n    Format: UInt32\n    FillSize: 128\n    FillValue: 5\n",
        list(&texels)
    );
    let yaml = pipeline_yaml(
        [1, 1, 1],
        &buffers,
        &[
            ("Layers", "Texture2DArray", 0),
            ("Out", "RWStructuredBuffer", 0),
        ],
    );
    for w in WAVE_SIZES {
        let out = words(&run(source, &yaml, w)[1]);
        let mut want = Vec::new();
        for s in 0..4u32 {
            for y in 0..2u32 {
                for x in 0..2u32 {
                    let v = if s < 3 { 100 * s + 10 * y + x } else { 0 };
                    want.extend([v, v]);
                }
            }
        }
        assert_eq!(out, want, "wave size {w}");
    }
}

#[test]
fn texture3d_reads_and_rwtexture3d_writes() {
    // A 3×2×2 volume: group index order is the texel order, so thread gi
    // reads texel gi. Each thread copies its texel, doubled, into the RW
    // volume, and the z = 2 slab (out of range) reads 0.
    let source = r#"
Texture3D<float> Vol : register(t0);
RWTexture3D<float> Copy : register(u0);
RWStructuredBuffer<float> Out : register(u1);
[numthreads(3, 2, 2)]
void main(uint3 id : SV_GroupThreadID, uint gi : SV_GroupIndex)
{
    Copy[id] = Vol[id] * 2;
    Copy[uint3(id.xy, id.z + 2)] = -1;
    Out[gi] = Vol[uint3(id.xy, id.z + 2)] + Vol.Load(int4(id, 0)) * 10;
}
"#;
    let texels: Vec<f32> = (0..12).map(|i| i as f32 + 0.25).collect();
    let buffers = format!(
        "  - Name: Vol\n    Format: Float32\n    OutputProps: {{ Width: 3, Height: 2, Depth: 2 }}\n    Data: {}\n  - Name: Copy\n    Format: Float32\n    OutputProps: {{ Width: 3, Height: 2, Depth: 2 }}\n    FillSize: 48\n  - Name: Out\n    Format: Float32\n    FillSize: 48\n",
        list(&texels)
    );
    let yaml = pipeline_yaml(
        [1, 1, 1],
        &buffers,
        &[
            ("Vol", "Texture3D", 0),
            ("Copy", "RWTexture3D", 0),
            ("Out", "RWStructuredBuffer", 1),
        ],
    );
    for w in WAVE_SIZES {
        let out = run(source, &yaml, w);
        let doubled: Vec<f32> = texels.iter().map(|v| v * 2.0).collect();
        let tens: Vec<f32> = texels.iter().map(|v| v * 10.0).collect();
        assert_eq!(floats(&out[1]), doubled, "wave size {w}");
        assert_eq!(floats(&out[2]), tens, "wave size {w}");
    }
}

#[test]
fn texture1d_load_and_atomics_on_rwtexture1d() {
    let source = r#"
Texture1D<int> Line : register(t0);
RWTexture1D<uint> Counts : register(u0);
RWStructuredBuffer<int> Out : register(u1);
[numthreads(16, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    InterlockedAdd(Counts[gi % 4], gi);
    uint old;
    InterlockedAdd(Counts[gi + 4], 1, old);
    Out[gi] = Line.Load(int2(gi, 0)) + Line[gi] + (int)old;
}
"#;
    let buffers = "  - Name: Line\n    Format: Int32\n    OutputProps: { Width: 5, Height: 1 }\n    Data: [ -1, -2, -3, -4, -5 ]\n  - Name: Counts\n    Format: UInt32\n    OutputProps: { Width: 4, Height: 1 }\n    FillSize: 16\n  - Name: Out\n    Format: Int32\n    FillSize: 64\n";
    let yaml = pipeline_yaml(
        [1, 1, 1],
        buffers,
        &[
            ("Line", "Texture1D", 0),
            ("Counts", "RWTexture1D", 0),
            ("Out", "RWStructuredBuffer", 1),
        ],
    );
    for w in WAVE_SIZES {
        let out = run(source, &yaml, w);
        // Counts[k] = sum of gi ≡ k (mod 4) = 4k + 24; the atomics past the
        // end change nothing and return 0.
        assert_eq!(words(&out[1]), [24, 28, 32, 36], "wave size {w}");
        let want: Vec<u32> = (0..16)
            .map(|g: i32| if g < 5 { (-2 * (g + 1)) as u32 } else { 0 })
            .collect();
        assert_eq!(words(&out[2]), want, "wave size {w}");
    }
}

#[test]
fn get_dimensions_with_and_without_mip_level() {
    let source = r#"
Texture1D<float> T1 : register(t0);
Texture2D<float4> T2 : register(t1);
Texture2DArray<uint> TA : register(t2);
Texture3D<int2> T3 : register(t3);
RWTexture2D<float> RW2 : register(u0);
RWTexture2DArray<uint> RWA : register(u1);
RWStructuredBuffer<uint> Out : register(u2);
[numthreads(2, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint w, h, d, levels;
    uint base = gi * 24;
    T1.GetDimensions(w);
    Out[base + 0] = w;
    T2.GetDimensions(w, h);
    Out[base + 1] = w; Out[base + 2] = h;
    TA.GetDimensions(w, h, d);
    Out[base + 3] = w; Out[base + 4] = h; Out[base + 5] = d;
    T3.GetDimensions(w, h, d);
    Out[base + 6] = w; Out[base + 7] = h; Out[base + 8] = d;
    RW2.GetDimensions(w, h);
    Out[base + 9] = w; Out[base + 10] = h;
    RWA.GetDimensions(w, h, d);
    Out[base + 11] = w; Out[base + 12] = h; Out[base + 13] = d;
    // With a mip level: thread 0 asks for level 0, thread 1 for level 1,
    // which does not exist (sizes 0); the level count is 1.
    T1.GetDimensions(gi, w, levels);
    Out[base + 14] = w; Out[base + 15] = levels;
    float fw, fh, fd;
    TA.GetDimensions(gi, fw, fh, fd, levels);
    Out[base + 16] = (uint)(fw * 10); Out[base + 17] = (uint)fh; Out[base + 18] = (uint)fd; Out[base + 19] = levels;
    T3.GetDimensions(gi, w, h, d, levels);
    Out[base + 20] = w; Out[base + 21] = h; Out[base + 22] = d; Out[base + 23] = levels;
}
"#;
    let buffers = r#"
  - Name: T1
    Format: Float32
    OutputProps: { Width: 5, Height: 1 }
    FillSize: 20
  - Name: T2
    Format: Float32
    Channels: 4
    OutputProps: { Width: 4, Height: 3 }
    FillSize: 192
  - Name: TA
    Format: UInt32
    OutputProps: { Width: 2, Height: 2, Depth: 3 }
    FillSize: 48
  - Name: T3
    Format: Int32
    Channels: 2
    OutputProps: { Width: 3, Height: 2, Depth: 2 }
    FillSize: 96
  - Name: RW2
    Format: Float32
    OutputProps: { Width: 6, Height: 1 }
    FillSize: 24
  - Name: RWA
    Format: UInt32
    OutputProps: { Width: 1, Height: 2, Depth: 4 }
    FillSize: 32
  - Name: Out
    Format: UInt32
    FillSize: 192
"#;
    let yaml = pipeline_yaml(
        [1, 1, 1],
        buffers.trim_start_matches('\n'),
        &[
            ("T1", "Texture1D", 0),
            ("T2", "Texture2D", 1),
            ("TA", "Texture2DArray", 2),
            ("T3", "Texture3D", 3),
            ("RW2", "RWTexture2D", 0),
            ("RWA", "RWTexture2DArray", 1),
            ("Out", "RWStructuredBuffer", 2),
        ],
    );
    for w in WAVE_SIZES {
        let out = words(&run(source, &yaml, w)[6]);
        let sizes = [5, 4, 3, 2, 2, 3, 3, 2, 2, 6, 1, 1, 2, 4];
        let mut want: Vec<u32> = sizes.to_vec();
        want.extend([5, 1, 20, 2, 3, 1, 3, 2, 2, 1]);
        want.extend(sizes);
        want.extend([0, 1, 0, 0, 0, 1, 0, 0, 0, 1]);
        assert_eq!(out, want, "wave size {w}");
    }
}

#[test]
fn tile_min_max_with_wave_reductions_at_every_wave_size() {
    // Two 8×8 tiles side by side in a 16×8 texture, one group per tile.
    // Texel (x, y) of tile t holds 8·(x mod 8) + y + 64t − 31.5: down a
    // column the values rise by 1, along a row by 8. Each wave reduces the
    // texels of its lanes (lane order is x fastest, so a wave of W ≥ 8
    // lanes covers rows [W·w/8, W·(w+1)/8) and a wave of 4 half a row) and
    // its first lane writes (min, max) to texel (wave index, tile).
    let source = r#"
Texture2D<float> Depth : register(t0);
RWTexture2D<float2> MinMax : register(u0);
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex, uint3 tile : SV_GroupID)
{
    uint2 coord = tile.xy * 8 + uint2(gi % 8, gi / 8);
    float z = Depth[coord];
    float lo = WaveActiveMin(z);
    float hi = WaveActiveMax(z);
    if (WaveIsFirstLane())
        MinMax[uint2(gi / WaveGetLaneCount(), tile.x)] = float2(lo, hi);
}
"#;
    let mut texels = Vec::new();
    for y in 0..8 {
        for x in 0..16 {
            texels.push(8.0 * f64::from(x % 8) + f64::from(y) + 64.0 * f64::from(x / 8) - 31.5);
        }
    }
    let buffers = format!(
        "  - Name: Depth\n    Format: Float32\n    OutputProps: {{ Width: 16, Height: 8 }}\n    Data: {}\n  - Name: MinMax\n    Format: Float32\n    Channels: 2\n    OutputProps: {{ Width: 16, Height: 2 }}\n    FillSize: 256\n    FillValue: 1000\n",
        list(&texels)
    );
    let yaml = pipeline_yaml(
        [2, 1, 1],
        &buffers,
        &[("Depth", "Texture2D", 0), ("MinMax", "RWTexture2D", 0)],
    );
    for w in WAVE_SIZES {
        let out = floats(&run(source, &yaml, w)[1]);
        let waves = 64usize.div_ceil(w as usize);
        for tile in 0..2 {
            let offset = 64.0 * tile as f32 - 31.5;
            for wave in 0..16 {
                let at = (tile * 16 + wave) * 2;
                let got = (out[at], out[at + 1]);
                let want = if wave >= waves {
                    (1000.0, 1000.0)
                } else if w == 4 {
                    // Half of row `wave / 2`: columns 0–3 or 4–7.
                    let row = (wave / 2) as f32;
                    let first_col = 4.0 * (wave % 2) as f32;
                    (8.0 * first_col + row, 8.0 * (first_col + 3.0) + row)
                } else {
                    // Rows [r0, r1), all eight columns.
                    let rows = (w / 8) as usize;
                    let r0 = (wave * rows) as f32;
                    let r1 = (((wave + 1) * rows).min(8)) as f32;
                    (r0, 56.0 + r1 - 1.0)
                };
                let want = if wave >= waves {
                    want
                } else {
                    (want.0 + offset, want.1 + offset)
                };
                assert_eq!(got, want, "wave size {w}, tile {tile}, wave {wave}");
            }
        }
    }
}

#[test]
fn texture_binding_errors() {
    let source = r#"
Texture2D<float4> Tex : register(t0);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main() { Out[0] = Tex[uint2(0, 0)].x; }
"#;
    let out = "  - Name: Out\n    Format: Float32\n    FillSize: 4\n";
    let bind = [("Tex", "Texture2D", 0), ("Out", "RWStructuredBuffer", 0)];
    // Texels of 4 bytes for a float4 texture.
    let yaml = pipeline_yaml(
        [1, 1, 1],
        &format!(
            "  - Name: Tex\n    Format: Float32\n    OutputProps: {{ Width: 2, Height: 2 }}\n    FillSize: 16\n{out}"
        ),
        &bind,
    );
    assert_eq!(
        try_run(source, &yaml, 32).unwrap_err(),
        "buffer 'Tex' has texels of 4 bytes (Format Float32 x Channels 1), but the texel type 'float4' of Texture2D 'Tex' takes 16"
    );
    // A 2D texture with two slices.
    let yaml = pipeline_yaml(
        [1, 1, 1],
        &format!(
            "  - Name: Tex\n    Format: Float32\n    Channels: 4\n    OutputProps: {{ Width: 1, Height: 1, Depth: 2 }}\n    FillSize: 32\n{out}"
        ),
        &bind,
    );
    assert_eq!(
        try_run(source, &yaml, 32).unwrap_err(),
        "buffer 'Tex' has OutputProps Width 1, Height 1, Depth 2, but Texture2D 'Tex' needs a Depth of 1"
    );
    // Bound as a read-write texture.
    let yaml = pipeline_yaml(
        [1, 1, 1],
        &format!(
            "  - Name: Tex\n    Format: Float32\n    Channels: 4\n    OutputProps: {{ Width: 1, Height: 1 }}\n    FillSize: 16\n{out}"
        ),
        &[("Tex", "RWTexture2D", 1), ("Out", "RWStructuredBuffer", 0)],
    );
    assert_eq!(
        try_run(source, &yaml, 32).unwrap_err(),
        "resource 'Tex' is a Texture2D at t0, space0 in the shader, but the pipeline binds buffer 'Tex' at u1, space0 as a RWTexture2D"
    );
    // More mip levels than a 2×1 texture has (2: 2×1, then 1×1).
    let yaml = pipeline_yaml(
        [1, 1, 1],
        &format!(
            "  - Name: Tex\n    Format: Float32\n    Channels: 4\n    OutputProps: {{ Width: 2, Height: 1, MipLevels: 3 }}\n    FillSize: 64\n{out}"
        ),
        &bind,
    );
    assert_eq!(
        try_run(source, &yaml, 32).unwrap_err(),
        "buffer 'Tex' has MipLevels 3, but a 2x1 texture has at most 2 (down to 1x1)"
    );
    // An RW texture views one level.
    let rw = source.replace(
        "Texture2D<float4> Tex : register(t0)",
        "RWTexture2D<float4> Tex : register(u1)",
    );
    let yaml = pipeline_yaml(
        [1, 1, 1],
        &format!(
            "  - Name: Tex\n    Format: Float32\n    Channels: 4\n    OutputProps: {{ Width: 2, Height: 1, MipLevels: 2 }}\n    FillSize: 48\n{out}"
        ),
        &[("Tex", "RWTexture2D", 1), ("Out", "RWStructuredBuffer", 0)],
    );
    assert_eq!(
        try_run(&rw, &yaml, 32).unwrap_err(),
        "buffer 'Tex' has MipLevels 2, but RWTexture2D 'Tex' takes one: an RW texture views one mip level"
    );
    // Bound as a typed buffer.
    let yaml = pipeline_yaml(
        [1, 1, 1],
        &format!("  - Name: Tex\n    Format: Float32\n    Channels: 4\n    FillSize: 16\n{out}"),
        &[("Tex", "Buffer", 0), ("Out", "RWStructuredBuffer", 0)],
    );
    assert_eq!(
        try_run(source, &yaml, 32).unwrap_err(),
        "resource 'Tex' is a Texture2D in the shader, but the pipeline binds buffer 'Tex' at t0, space0 as a Buffer"
    );
}

#[test]
fn a_texture_buffer_built_without_output_props_is_an_error() {
    use lockstep::pipeline::Kind;
    let source = r#"
RWTexture1D<uint> Img : register(u0);
[numthreads(1, 1, 1)]
void main() { Img[0] = 1; }
"#;
    let shader = compile(source, &CompileOptions::default());
    let p = crate::harness::pipeline(
        [1, 1, 1],
        &[crate::harness::buf("Img", Kind::RwTexture1D, 0, vec![0; 4])],
    );
    let e = lockstep::run(&shader, &p, &RunOptions::default()).unwrap_err();
    assert_eq!(
        e.message,
        "buffer 'Img' is bound to RWTexture1D 'Img' but has no OutputProps giving its Width, Height and Depth"
    );
    let mut p = p;
    p.buffers[0].output_props = Some(lockstep::pipeline::OutputProps {
        width: 2,
        height: 2,
        depth: 1,
        mip_levels: 1,
    });
    let e = lockstep::run(&shader, &p, &RunOptions::default()).unwrap_err();
    assert_eq!(
        e.message,
        "buffer 'Img' has OutputProps Width 2, Height 2, Depth 1, but RWTexture1D 'Img' needs a Height and Depth of 1"
    );
    p.buffers[0].output_props = Some(lockstep::pipeline::OutputProps {
        width: 3,
        height: 1,
        depth: 1,
        mip_levels: 1,
    });
    let e = lockstep::run(&shader, &p, &RunOptions::default()).unwrap_err();
    assert_eq!(
        e.message,
        "buffer 'Img' holds 16 bytes, but its OutputProps give 3 texels of 4 bytes (12 bytes)"
    );
}

/// A texture as a PNG, as offloader writes render targets: 16-bit RGBA,
/// each float `clamp(floor(v · 65536), 0, 65535)`, top row first; a
/// missing alpha is 1.
#[test]
fn textures_as_png() {
    let buffer = lockstep::pipeline::parse(
        "Buffers:\n  - Name: T\n    Format: Float32\n    Channels: 3\n    \
         Data: [ 0, 0.5, 1, 2, -1, 0.25, 0.75, 1e-6, nan, 0.1, 0.2, 0.3 ]\n    \
         OutputProps: { Width: 2, Height: 2, Depth: 1 }\n",
    )
    .unwrap()
    .buffers
    .remove(0);
    let png = lockstep::texture_png(&buffer, &buffer.data).unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((info.width, info.height), (2, 2));
    assert_eq!(info.bit_depth, png::BitDepth::Sixteen);
    assert_eq!(info.color_type, png::ColorType::Rgba);
    let words: Vec<u16> = pixels
        .chunks(2)
        .map(|b| u16::from_be_bytes([b[0], b[1]]))
        .collect();
    // 0.5 · 65536 = 32768; 1 and 2 clamp to 65535, -1 to 0; 0.25 · 65536
    // = 16384; 0.75 → 49152; 1e-6 · 65536 = 0.066 → 0; NaN → 0; 0.1 ·
    // 65536 = 6553.6 → 6553; 0.2 → 13107; 0.3 → 19660.
    assert_eq!(
        words,
        [
            0, 32768, 65535, 65535, //
            65535, 0, 16384, 65535, //
            49152, 0, 0, 65535, //
            6553, 13107, 19660, 65535,
        ]
    );
    let int = lockstep::pipeline::parse(
        "Buffers:\n  - Name: I\n    Format: Int32\n    Data: [ 1 ]\n    OutputProps: { Width: 1, Height: 1, Depth: 1 }\n",
    )
    .unwrap()
    .buffers
    .remove(0);
    let e = lockstep::texture_png(&int, &int.data).unwrap_err();
    assert_eq!(
        e,
        "buffer 'I' holds Int32 values: a PNG is written from float texels"
    );
}

/// `Load(location, offset)` moves the texel by the offset, not the array
/// slice; a texel moved out of the texture reads 0.
#[test]
fn load_takes_an_offset() {
    // 4×3 texels in 2 slices; texel (x, y, s) holds 100s + 10y + x + 1.
    let source = r#"
Texture2D<float> Tex : register(t0);
Texture2DArray<float> Layers : register(t1);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(4, 3, 2)]
void main(uint3 id : SV_GroupThreadID, uint gi : SV_GroupIndex)
{
    Out[gi * 2] = Tex.Load(int3(id.xy, 0), int2(1, -1));
    Out[gi * 2 + 1] = Layers.Load(int4(id, 0), int2(-1, 0));
}
"#;
    let texel = |x: i32, y: i32, s: i32| -> f32 {
        if (0..4).contains(&x) && (0..3).contains(&y) {
            (100 * s + 10 * y + x + 1) as f32
        } else {
            0.0
        }
    };
    let flat: Vec<f32> = (0..2)
        .flat_map(|s| (0..3).flat_map(move |y| (0..4).map(move |x| texel(x, y, s))))
        .collect();
    let buffers = format!(
        "  - Name: Tex\n    Format: Float32\n    OutputProps: {{ Width: 4, Height: 3 }}\n    Data: {}\n  - Name: Layers\n    Format: Float32\n    OutputProps: {{ Width: 4, Height: 3, Depth: 2 }}\n    Data: {}\n  - Name: Out\n    Format: Float32\n    FillSize: 192\n    FillValue: -1\n",
        list(&flat[..12]),
        list(&flat)
    );
    let yaml = pipeline_yaml(
        [1, 1, 1],
        &buffers,
        &[
            ("Tex", "Texture2D", 0),
            ("Layers", "Texture2DArray", 1),
            ("Out", "RWStructuredBuffer", 0),
        ],
    );
    let mut want = Vec::new();
    for s in 0..2 {
        for y in 0..3 {
            for x in 0..4 {
                want.extend([texel(x + 1, y - 1, 0), texel(x - 1, y, s)]);
            }
        }
    }
    for w in [4, 8, 32] {
        assert_eq!(floats(&run(source, &yaml, w)[2]), want, "wave size {w}");
    }
}

/// A load's `out uint status` is written (every resource is resident, so
/// `CheckAccessFullyMapped` holds), and `tex.mips[level][coord]` reads
/// level `level`, which past level 0 has no texels.
#[test]
fn loads_report_status_and_mips_name_levels() {
    let source = r#"
Texture2D<float> Tex : register(t0);
ByteAddressBuffer Raw : register(t1);
StructuredBuffer<uint> Elems : register(t2);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(4, 3, 1)]
void main(uint3 id : SV_GroupThreadID, uint gi : SV_GroupIndex)
{
    uint s0 = 7, s1 = 7, s2 = 7;
    float t = Tex.Load(int3(id.xy, 0), int2(0, 0), s0);
    uint r = Raw.Load(gi * 4, s1) + Elems.Load(gi, s2);
    bool mapped = CheckAccessFullyMapped(s0) && CheckAccessFullyMapped(s1)
        && CheckAccessFullyMapped(s2);
    Out[gi * 4] = t + (mapped ? 1000 : 0) + (float)(s0 + s1 + s2);
    Out[gi * 4 + 1] = (float)r;
    Out[gi * 4 + 2] = Tex.mips[0][id.xy];
    Out[gi * 4 + 3] = Tex.mips[gi % 2][uint2(3, 2)];
}
"#;
    let texel = |x: u32, y: u32| (10 * y + x + 1) as f32;
    let flat: Vec<f32> = (0..3)
        .flat_map(|y| (0..4).map(move |x| texel(x, y)))
        .collect();
    let words: Vec<String> = (0..12).map(|i| (i * 3).to_string()).collect();
    let buffers = format!(
        "  - Name: Tex\n    Format: Float32\n    OutputProps: {{ Width: 4, Height: 3 }}\n    Data: {}\n  - Name: Raw\n    Format: UInt32\n    Data: [ {} ]\n  - Name: Elems\n    Format: UInt32\n    Data: [ {} ]\n  - Name: Out\n    Format: Float32\n    FillSize: 192\n",
        list(&flat),
        words.join(", "),
        words.join(", "),
    );
    let yaml = pipeline_yaml(
        [1, 1, 1],
        &buffers,
        &[
            ("Tex", "Texture2D", 0),
            ("Raw", "ByteAddressBuffer", 1),
            ("Elems", "StructuredBuffer", 2),
            ("Out", "RWStructuredBuffer", 0),
        ],
    );
    let mut want = Vec::new();
    for y in 0..3 {
        for x in 0..4 {
            let gi = y * 4 + x;
            let corner = if gi % 2 == 0 { texel(3, 2) } else { 0.0 };
            want.extend([
                texel(x, y) + 1000.0 + 3.0,
                (6 * gi) as f32,
                texel(x, y),
                corner,
            ]);
        }
    }
    for w in [4, 8, 32] {
        assert_eq!(floats(&run(source, &yaml, w)[3]), want, "wave size {w}");
    }
}

/// An array of textures from one `ArraySize` buffer: each element has its
/// share of the data, each share the texels its `OutputProps` give.
#[test]
fn texture_arrays_share_one_array_size_buffer() {
    let source = r#"
Texture2D<float> T[3] : register(t0);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    Out[0] = T[0][uint2(1, 0)];
    Out[1] = T[1][uint2(0, 1)];
    Out[2] = T[2][uint2(1, 1)];
}
"#;
    let yaml = pipeline_yaml(
        [1, 1, 1],
        "  - Name: T\n    Format: Float32\n    ArraySize: 3\n    OutputProps: { Width: 2, Height: 2 }\n    Data:\n      - [ 0, 1, 2, 3 ]\n      - [ 10, 11, 12, 13 ]\n      - [ 20, 21, 22, 23 ]\n  - Name: Out\n    Format: Float32\n    FillSize: 12\n",
        &[("T", "Texture2D", 0), ("Out", "RWStructuredBuffer", 0)],
    );
    assert_eq!(floats(&run(source, &yaml, 4)[1]), [1.0, 12.0, 23.0]);
}

/// A typed buffer's view has its pipeline buffer's format: a texel of
/// another size than the shader's element is an error naming the channels
/// to give, not a reinterpretation.
#[test]
fn typed_buffers_need_texels_of_their_element_size() {
    let source = r#"
Buffer<float4> In : register(t0);
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(1, 1, 1)]
void main() { Out[0] = In[1]; }
"#;
    let out = "  - Name: Out\n    Format: Float32\n    Channels: 4\n    FillSize: 16\n";
    let bind = [("In", "Buffer", 0), ("Out", "RWStructuredBuffer", 0)];
    let one = pipeline_yaml(
        [1, 1, 1],
        &format!("  - Name: In\n    Format: Float32\n    Data: [ 1, 2, 3, 4, 5, 6, 7, 8 ]\n{out}"),
        &bind,
    );
    assert_eq!(
        try_run(source, &one, 4).unwrap_err(),
        "buffer 'In' has texels of 4 bytes (Format Float32 x Channels 1), but Buffer 'In' reads 'float4' elements of 16 bytes; a GPU's view would convert each texel, Lockstep does not: give it Channels: 4"
    );
    let four = one.replace(
        "    Format: Float32\n    Data",
        "    Format: Float32\n    Channels: 4\n    Data",
    );
    assert_eq!(floats(&run(source, &four, 4)[1]), [5.0, 6.0, 7.0, 8.0]);
}

/// A 3D texture's data with mip levels is sized as a volume's (the depth
/// shrinks too); the binding then says why it is refused.
#[test]
fn three_dimensional_mips_are_refused_for_what_they_are() {
    let source = r#"
Texture3D<float> T : register(t0);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main() { Out[0] = T[uint3(0, 0, 0)]; }
"#;
    // 4×4×4 and 2×2×2 texels: 72 floats.
    let yaml = pipeline_yaml(
        [1, 1, 1],
        "  - Name: T\n    Format: Float32\n    FillSize: 288\n    OutputProps: { Width: 4, Height: 4, Depth: 4, MipLevels: 2 }\n  - Name: Out\n    Format: Float32\n    FillSize: 4\n",
        &[("T", "Texture3D", 0), ("Out", "RWStructuredBuffer", 0)],
    );
    assert_eq!(
        try_run(source, &yaml, 4).unwrap_err(),
        "buffer 'T' has MipLevels 2, but Texture3D 'T' takes one: 3D textures with more than one mip level are not supported"
    );
}
