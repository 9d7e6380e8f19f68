//! Draws: a vertex and a pixel shader over a graphics pipeline. Expected
//! pixels are derived by hand from Direct3D's rasterization rules (pixel
//! centres, the top-left rule, perspective-correct interpolation) and from
//! spec 000's rules for helper lanes.

use lockstep::raster::Packing;
use lockstep::{CompileOptions, MemoryLoader, RunOptions};

/// A draw of `vertices` (clip-space positions, and one float4 `ATTR` each)
/// into a `width` × `height` Float32×4 target, with `uavs` as
/// `RWStructuredBuffer<uint>`s of `width·height` zeros at u0, u1, ….
struct Scene {
    width: u32,
    height: u32,
    vertices: Vec<([f32; 4], [f32; 4])>,
    strip: bool,
    uavs: &'static [&'static str],
    /// A depth target `Depth`, the first buffer after the target.
    depth: bool,
}

impl Scene {
    fn new(width: u32, height: u32, vertices: Vec<([f32; 4], [f32; 4])>) -> Scene {
        Scene {
            width,
            height,
            vertices,
            strip: false,
            uavs: &[],
            depth: false,
        }
    }

    fn yaml(&self) -> String {
        let data: Vec<String> = self
            .vertices
            .iter()
            .flat_map(|(p, a)| p.iter().chain(a).map(|v| format!("{v:?}")))
            .collect();
        let pixels = self.width * self.height;
        let mut text = format!(
            "Shaders:\n  - Stage: Vertex\n    Entry: VSMain\n  - Stage: Pixel\n    Entry: PSMain\n\
             Buffers:\n  - Name: Vertices\n    Format: Float32\n    Data: [ {} ]\n\
             \x20 - Name: Target\n    Format: Float32\n    Channels: 4\n    FillSize: {}\n    \
             OutputProps: {{ Width: {}, Height: {}, Depth: 1 }}\n",
            data.join(", "),
            pixels * 16,
            self.width,
            self.height
        );
        if self.depth {
            text += &format!(
                "  - Name: Depth\n    Format: Float32\n    FillSize: {}\n    OutputProps: {{ Width: {}, Height: {}, Depth: 1 }}\n",
                pixels * 4,
                self.width,
                self.height
            );
        }
        for name in self.uavs {
            text += &format!(
                "  - Name: {name}\n    Format: UInt32\n    FillSize: {}\n",
                pixels * 4
            );
        }
        text += "Bindings:\n  VertexBuffer: Vertices\n  VertexAttributes:\n    \
                 - { Format: Float32, Channels: 4, Offset: 0, Name: POSITION }\n    \
                 - { Format: Float32, Channels: 4, Offset: 16, Name: ATTR }\n  RenderTarget: Target\n";
        if self.strip {
            text += "  Topology: TriangleStrip\n";
        }
        if self.depth {
            text += "  DepthTarget: Depth\n";
        }
        if !self.uavs.is_empty() {
            text += "DescriptorSets:\n  - Resources:\n";
            for (i, name) in self.uavs.iter().enumerate() {
                text += &format!(
                    "    - {{ Name: {name}, Kind: RWStructuredBuffer, DirectXBinding: {{ Register: {i}, Space: 0 }} }}\n"
                );
            }
        }
        text
    }
}

/// The pixel shader's source: `body` is `PSMain`'s, with `i` (`float4
/// pos : SV_Position`, `float4 attr : ATTR`, …) in scope; the vertex shader
/// passes POSITION and ATTR through.
fn source(body: &str, inputs: &str) -> String {
    format!(
        "struct V {{ float4 pos : SV_Position; {inputs} }};\n\
         V VSMain(float4 pos : POSITION, float4 attr : ATTR) {{ V o; o.pos = pos; o.attr = attr; return o; }}\n\
         float4 PSMain(V i, uint prim : SV_PrimitiveID) : SV_Target {{\n{body}\n}}\n"
    )
}

const ATTR: &str = "float4 attr : ATTR;";

/// `src`'s `VSMain` and `PSMain` as a draw's vertex and pixel shaders.
fn stages(src: &str) -> (lockstep::Shader, lockstep::Shader) {
    let compile = |entry: &str, stage| {
        let opts = CompileOptions {
            entry: entry.to_string(),
            stage,
            ..CompileOptions::default()
        };
        lockstep::compile("draw.hlsl", src, &opts, &MemoryLoader::default())
            .unwrap_or_else(|e| panic!("{e}"))
    };
    (
        compile("VSMain", lockstep::ir::Stage::Vertex),
        compile("PSMain", lockstep::ir::Stage::Pixel),
    )
}

/// Renders `scene`; the target's pixels and each UAV's words.
fn render(scene: &Scene, src: &str, wave: u32, packing: Packing) -> (Vec<[f32; 4]>, Vec<Vec<u32>>) {
    let pipeline = lockstep::pipeline::parse(&scene.yaml()).unwrap_or_else(|e| panic!("{e}"));
    let (vs, ps) = stages(src);
    let opts = RunOptions {
        wave_size: wave,
        ..RunOptions::default()
    };
    let out = lockstep::draw_packed(&vs, &ps, &pipeline, &opts, packing)
        .unwrap_or_else(|e| panic!("{e}"));
    let words = |b: &[u8]| -> Vec<u32> {
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let image = words(&out.contents[1])
        .chunks_exact(4)
        .map(|c| std::array::from_fn(|k| f32::from_bits(c[k])))
        .collect();
    let uavs = out.contents[2..].iter().map(|c| words(c)).collect();
    (image, uavs)
}

/// The render target's floats after drawing `src` with the pipeline
/// `yaml` (one that binds textures or samplers of its own).
fn target_floats(yaml: &str, src: &str) -> Vec<f32> {
    let pipeline = lockstep::pipeline::parse(yaml).unwrap_or_else(|e| panic!("{e}"));
    let (vs, ps) = stages(src);
    let out = lockstep::draw(&vs, &ps, &pipeline, &RunOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let target = pipeline.buffer_index("Target").unwrap();
    out.contents[target]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn v(x: f32, y: f32) -> ([f32; 4], [f32; 4]) {
    ([x, y, 0.0, 1.0], [0.0; 4])
}

/// The full 4×4 target as two triangles: A (top-left) and B
/// (bottom-right), sharing the diagonal from (4, 0) to (0, 4) on the
/// target.
fn two_triangles() -> Vec<([f32; 4], [f32; 4])> {
    vec![
        v(-1.0, 1.0),
        v(1.0, 1.0),
        v(-1.0, -1.0),
        v(1.0, 1.0),
        v(1.0, -1.0),
        v(-1.0, -1.0),
    ]
}

/// Which triangle covers pixel (x, y) of `two_triangles`: the centres on
/// the diagonal (x + y = 3) lie on an edge that is a left edge of B (B is
/// to its right) and neither top nor left for A, so they are B's.
fn triangle_of(x: u32, y: u32) -> u32 {
    u32::from(x + y >= 3)
}

#[test]
fn two_triangles_sharing_an_edge_shade_each_pixel_once() {
    let src = source(
        "uint at = (uint)i.pos.y * 4 + (uint)i.pos.x;\nuint old;\nInterlockedAdd(Count[at], 1, old);\nreturn float4(prim + 1, i.pos.x, i.pos.y, 0);",
        ATTR,
    )
    .replace("struct V", "RWStructuredBuffer<uint> Count : register(u0);\nstruct V");
    for strip in [false, true] {
        let mut scene = Scene::new(4, 4, two_triangles());
        if strip {
            scene.vertices = vec![v(-1.0, 1.0), v(1.0, 1.0), v(-1.0, -1.0), v(1.0, -1.0)];
            scene.strip = true;
        }
        scene.uavs = &["Count"];
        let (image, uavs) = render(&scene, &src, 8, Packing::Dense);
        assert_eq!(
            uavs[0],
            vec![1; 16],
            "every pixel shaded exactly once (strip: {strip})"
        );
        for y in 0..4 {
            for x in 0..4 {
                let px = image[(y * 4 + x) as usize];
                assert_eq!(px[0], (triangle_of(x, y) + 1) as f32, "pixel ({x}, {y})");
                assert_eq!((px[1], px[2]), (x as f32 + 0.5, y as f32 + 0.5));
            }
        }
    }
}

/// A draw of more quads than the engine shades at once (a 256 × 256
/// target: 16384 quads, shaded 8192 at a time when densely packed) shades
/// each pixel once, with the values of a draw shaded in one piece (one
/// triangle per wave, shaded whole).
#[test]
fn draws_larger_than_a_shading_slice_shade_each_pixel_once() {
    let src = source(
        "uint at = (uint)i.pos.y * 256 + (uint)i.pos.x;\nuint old;\nInterlockedAdd(Count[at], 1, old);\n\
         return float4(prim + 1, i.pos.x, i.pos.y, i.attr.x);",
        ATTR,
    )
    .replace("struct V", "RWStructuredBuffer<uint> Count : register(u0);\nstruct V");
    let corner = |x: f32, y: f32| ([x, y, 0.0, 1.0], [x * 2.0 + y, 0.0, 0.0, 0.0]);
    let mut scene = Scene::new(
        256,
        256,
        vec![
            corner(-1.0, 1.0),
            corner(1.0, 1.0),
            corner(-1.0, -1.0),
            corner(1.0, -1.0),
        ],
    );
    scene.strip = true;
    scene.uavs = &["Count"];
    let (dense, uavs) = render(&scene, &src, 8, Packing::Dense);
    assert_eq!(
        uavs[0],
        vec![1; 256 * 256],
        "every pixel shaded exactly once"
    );
    for (at, px) in dense.iter().enumerate() {
        let (x, y) = ((at % 256) as f32 + 0.5, (at / 256) as f32 + 0.5);
        assert_eq!((px[1], px[2]), (x, y), "pixel {at}");
        // ATTR.x is 2·(clip x) + (clip y), linear across the target.
        let want = 2.0 * (x / 128.0 - 1.0) + (1.0 - y / 128.0);
        assert!(
            (px[3] - want).abs() < 1e-5,
            "pixel {at}: {} for {want}",
            px[3]
        );
    }
    let (whole, _) = render(&scene, &src, 8, Packing::PerPrimitive);
    assert!(dense == whole, "dense and per-triangle packings differ");
}

#[test]
fn a_triangle_covers_the_centres_inside_it() {
    // On an 8×8 target: top (4, 0), bottom right (8, 8), bottom left
    // (0, 8). Row y's centre line y + 0.5 crosses the left edge at x =
    // 4 - (y + 0.5) / 2 and the right one at 4 + (y + 0.5) / 2, so the
    // covered centres x + 0.5 are those strictly between (none lie on an
    // edge).
    let scene = Scene::new(8, 8, vec![v(0.0, 1.0), v(1.0, -1.0), v(-1.0, -1.0)]);
    let (image, _) = render(&scene, &source("return 1;", ATTR), 4, Packing::Dense);
    for y in 0..8 {
        for x in 0..8 {
            let c = x as f32 + 0.5;
            let half = (y as f32 + 0.5) / 2.0;
            let inside = c > 4.0 - half && c < 4.0 + half;
            assert_eq!(
                image[y * 8 + x][0],
                f32::from(u8::from(inside)),
                "({x}, {y})"
            );
        }
    }
}

#[test]
fn attributes_are_interpolated_with_perspective() {
    // Left vertices at w = 1, right ones at w = 3 (positions scaled by w,
    // so the target is covered). At the fraction s across the target, 1/w
    // is linear: (1 - s) + s/3; an attribute 0 on the left and 1 on the
    // right is s/3 over that, s/(3 - 2s); `noperspective` gives s; and
    // SV_Position.w is w itself, 1 / (1 - 2s/3). z = w/2, so depth 0.5.
    let left = |y: f32| ([-1.0, y, 0.5, 1.0], [0.0; 4]);
    let right = |y: f32| ([3.0, 3.0 * y, 1.5, 3.0], [1.0; 4]);
    let scene = Scene::new(
        4,
        4,
        vec![
            left(1.0),
            right(1.0),
            left(-1.0),
            right(1.0),
            right(-1.0),
            left(-1.0),
        ],
    );
    let src = source(
        "return float4(i.attr.x, i.flat_attr.x, i.pos.w, i.pos.z);",
        "float4 attr : ATTR; noperspective float4 flat_attr : ATTR1;",
    )
    .replace("o.attr = attr;", "o.attr = attr; o.flat_attr = attr;");
    let (image, _) = render(&scene, &src, 4, Packing::Dense);
    for y in 0..4 {
        for x in 0..4 {
            let s = (x as f64 + 0.5) / 4.0;
            let px = image[y * 4 + x];
            let close = |a: f32, b: f64| (f64::from(a) - b).abs() < 1e-5;
            assert!(
                close(px[0], s / (3.0 - 2.0 * s)),
                "perspective at ({x}, {y}): {px:?}"
            );
            assert!(close(px[1], s), "noperspective at ({x}, {y}): {px:?}");
            assert!(
                close(px[2], 1.0 / (1.0 - 2.0 * s / 3.0)),
                "w at ({x}, {y}): {px:?}"
            );
            assert!(close(px[3], 0.5), "z at ({x}, {y}): {px:?}");
        }
    }
}

#[test]
fn one_w_at_every_vertex_is_every_pixels_w_exactly() {
    // Every vertex at w = 3 (positions scaled by w): SV_Position.w is 3
    // at every pixel, to the bit, whatever the weights' rounding.
    let at = |x: f32, y: f32| ([3.0 * x, 3.0 * y, 0.3, 3.0], [0.0; 4]);
    let scene = Scene::new(
        4,
        4,
        vec![
            at(-1.0, 1.0),
            at(1.0, 1.0),
            at(-1.0, -1.0),
            at(1.0, 1.0),
            at(1.0, -1.0),
            at(-1.0, -1.0),
        ],
    );
    let (image, _) = render(
        &scene,
        &source("return i.pos.wwww;", ATTR),
        4,
        Packing::Dense,
    );
    for (p, px) in image.iter().enumerate() {
        assert_eq!(px[0].to_bits(), 3.0f32.to_bits(), "pixel {p}: {px:?}");
    }
}

/// A triangle given on the 4×4 target, in pixels.
fn on_target(points: [(f32, f32); 3]) -> Vec<([f32; 4], [f32; 4])> {
    points
        .iter()
        .map(|&(x, y)| v(x / 2.0 - 1.0, 1.0 - y / 2.0))
        .collect()
}

#[test]
fn wave_and_quad_intrinsics_in_quads_with_one_two_and_three_covered_pixels() {
    // Each draw is one quad: the covered pixels are lanes that write, the
    // others helper lanes. Spec 000: the wave operations see only the
    // non-helper lanes; quad reads see every lane of the quad.
    let src = source(
        "float helper = IsHelperLane() ? 1 : 0;\n\
         return float4(WaveActiveCountBits(true), WaveActiveBallot(true).x,\n\
                       WaveReadLaneFirst(WaveGetLaneIndex()), QuadReadAcrossX(helper));",
        ATTR,
    );
    // (covered quad pixels, triangle): (count, ballot, first lane, across
    // X) for each covered pixel in lane order.
    type Case = (&'static [usize], [(f32, f32); 3], &'static [[f32; 4]]);
    let cases: [Case; 3] = [
        // Pixel (1, 1) only: lane 3; its X neighbour, lane 2, is a helper.
        (
            &[3],
            [(1.1, 1.1), (2.0, 1.1), (1.1, 2.0)],
            &[[1.0, 8.0, 3.0, 1.0]],
        ),
        // Pixels (0, 0) and (1, 0): lanes 0 and 1, each other's X
        // neighbours.
        (
            &[0, 1],
            [(0.0, 0.0), (4.0, 0.0), (0.0, 1.0)],
            &[[2.0, 3.0, 0.0, 0.0], [2.0, 3.0, 0.0, 0.0]],
        ),
        // All but (1, 1): lane 2's X neighbour is the helper lane 3.
        (
            &[0, 1, 2],
            [(0.0, 0.0), (2.2, 0.0), (0.0, 2.2)],
            &[
                [3.0, 7.0, 0.0, 0.0],
                [3.0, 7.0, 0.0, 0.0],
                [3.0, 7.0, 0.0, 1.0],
            ],
        ),
    ];
    for wave in [4, 32] {
        for (covered, points, expected) in &cases {
            let scene = Scene::new(4, 4, on_target(*points));
            let (image, _) = render(&scene, &src, wave, Packing::Dense);
            for (lane, want) in covered.iter().zip(expected.iter()) {
                let (x, y) = (lane & 1, lane >> 1);
                assert_eq!(
                    image[y * 4 + x],
                    *want,
                    "lane {lane} of {covered:?} at wave {wave}"
                );
            }
            let drawn = image.iter().filter(|p| p[0] != 0.0).count();
            assert_eq!(drawn, covered.len(), "only the covered pixels are written");
        }
    }
}

/// `[WaveOpsIncludeHelperLanes]` (SM 6.7): the helper lanes of a quad
/// take part in wave operations as any active lane; only covered pixels
/// write.
#[test]
fn wave_operations_include_helper_lanes_where_the_shader_asks() {
    let src = source(
        "return float4(WaveActiveCountBits(true), WaveActiveBallot(true).x,\n\
                       WavePrefixCountBits(true), WaveReadLaneFirst(WaveGetLaneIndex()));",
        ATTR,
    )
    .replace(
        "float4 PSMain",
        "[WaveOpsIncludeHelperLanes]\nfloat4 PSMain",
    );
    // Pixel (1, 1) alone of its quad (lane 3): the quad's four lanes
    // count, lane 0 (a helper) is the first.
    let scene = Scene::new(4, 4, on_target([(1.1, 1.1), (2.0, 1.1), (1.1, 2.0)]));
    for wave in [4, 32] {
        let (image, _) = render(&scene, &src, wave, Packing::Dense);
        assert_eq!(image[5], [4.0, 15.0, 3.0, 0.0], "wave {wave}");
        assert_eq!(image.iter().filter(|p| p[0] != 0.0).count(), 1);
    }
}

#[test]
fn coarse_and_fine_derivatives_of_x_times_y() {
    // f = x·y at pixel centres. Fine: ddx is f(x+1, y) - f(x, y) = y on
    // the pixel's own row, ddy = x on its own column. Coarse: both from the
    // quad's top-left pixel, so ddx = the top row's y and ddy = the left
    // column's x on all four.
    let scene = Scene::new(4, 4, two_triangles());
    let src = source(
        "float f = i.pos.x * i.pos.y;\nreturn float4(ddx_fine(f), ddy_fine(f), ddx_coarse(f), ddy_coarse(f));",
        ATTR,
    );
    let (image, _) = render(&scene, &src, 8, Packing::Dense);
    for y in 0..4u32 {
        for x in 0..4u32 {
            let (cx, cy) = (x as f32 + 0.5, y as f32 + 0.5);
            let (left, top) = ((x & !1) as f32 + 0.5, (y & !1) as f32 + 0.5);
            assert_eq!(
                image[(y * 4 + x) as usize],
                [cy, cx, top, left],
                "({x}, {y})"
            );
        }
    }
}

#[test]
fn writes_before_discard_land_and_writes_after_it_do_not() {
    // Pixels left of x = 2 discard: they write Before, not After, and not
    // the target. The others' derivatives are unchanged, since the
    // discarded lanes of their quads go on as helpers.
    let mut scene = Scene::new(4, 4, two_triangles());
    scene.uavs = &["Before", "After"];
    let src = source(
        "uint at = (uint)i.pos.y * 4 + (uint)i.pos.x;\n\
         Before[at] = 1;\n\
         if (i.pos.x < 2) discard;\n\
         After[at] = IsHelperLane() ? 7 : 1;\n\
         return float4(1, ddx(i.pos.x), 0, 0);",
        ATTR,
    )
    .replace(
        "struct V",
        "RWStructuredBuffer<uint> Before : register(u0);\nRWStructuredBuffer<uint> After : register(u1);\nstruct V",
    );
    let (image, uavs) = render(&scene, &src, 4, Packing::Dense);
    for y in 0..4 {
        for x in 0..4 {
            let at = y * 4 + x;
            let kept = x >= 2;
            assert_eq!(uavs[0][at], 1, "Before at ({x}, {y})");
            assert_eq!(uavs[1][at], u32::from(kept), "After at ({x}, {y})");
            let want = if kept { [1.0, 1.0, 0.0, 0.0] } else { [0.0; 4] };
            assert_eq!(image[at], want, "target at ({x}, {y})");
        }
    }
}

#[test]
fn wave_results_follow_the_wave_size_and_the_packing() {
    // The quads of `two_triangles`, in order: A's (0,0) with 4 covered
    // pixels, (2,0) with 1, (0,2) with 1; B's (2,0) with 3, (0,2) with 3,
    // (2,2) with 4. WaveActiveCountBits(true) counts the covered pixels of
    // the quads that share a wave.
    let counts = [4, 1, 1, 3, 3, 4];
    let quad_of = |x: u32, y: u32| -> usize {
        let q = match (x / 2, y / 2) {
            (0, 0) => 0,
            (1, 0) => 1,
            (0, 1) => 2,
            _ => 3,
        };
        match (triangle_of(x, y), q) {
            (0, q) => q,
            (_, 1) => 3,
            (_, 2) => 4,
            _ => 5,
        }
    };
    // Each packing's waves as lists of quads, by wave size.
    let waves = |packing: Packing, wave: u32| -> Vec<Vec<usize>> {
        match (packing, wave) {
            (_, 4) => (0..6).map(|q| vec![q]).collect(),
            (Packing::PerPrimitive, 8) => vec![vec![0, 1], vec![2], vec![3, 4], vec![5]],
            (Packing::PerPrimitive, _) => vec![vec![0, 1, 2], vec![3, 4, 5]],
            (Packing::Reversed, 8) => vec![vec![5, 4], vec![3, 2], vec![1, 0]],
            (Packing::Reversed, 16) => vec![vec![5, 4, 3, 2], vec![1, 0]],
            (_, 8) => vec![vec![0, 1], vec![2, 3], vec![4, 5]],
            (_, 16) => vec![vec![0, 1, 2, 3], vec![4, 5]],
            _ => vec![(0..6).collect()],
        }
    };
    let scene = Scene::new(4, 4, two_triangles());
    let src = source("return WaveActiveCountBits(true);", ATTR);
    for packing in Packing::ALL {
        for wave in [4, 8, 16, 32] {
            let (image, _) = render(&scene, &src, wave, packing);
            let groups = waves(packing, wave);
            for y in 0..4 {
                for x in 0..4 {
                    let q = quad_of(x, y);
                    let group = groups.iter().find(|g| g.contains(&q)).unwrap();
                    let want: u32 = group.iter().map(|&k| counts[k]).sum();
                    assert_eq!(
                        image[(y * 4 + x) as usize][0],
                        want as f32,
                        "({x}, {y}) at wave {wave}, {}",
                        packing.name()
                    );
                }
            }
        }
    }
}

/// The compile errors of `src` as a `stage` shader with entry `entry`.
fn errors(src: &str, stage: lockstep::ir::Stage, entry: &str) -> String {
    let opts = CompileOptions {
        entry: entry.to_string(),
        stage,
        ..CompileOptions::default()
    };
    match lockstep::compile("s.hlsl", src, &opts, &MemoryLoader::default()) {
        Ok(_) => String::new(),
        Err(e) => e
            .diagnostics
            .iter()
            .map(|d| d.message.clone() + "\n")
            .collect(),
    }
}

#[test]
fn stage_entry_points_are_checked() {
    use lockstep::ir::Stage::{Compute, Pixel, Vertex};
    let cases: [(&str, lockstep::ir::Stage, &str); 11] = [
        (
            "float4 main(float4 p : POSITION) : SV_Position { clip(p.x); return p; }",
            Vertex,
            "'clip' discards the pixel, and only pixel shaders have pixels; this is a vertex shader",
        ),
        (
            "Texture2D<float4> T; SamplerState S;\n\
             float4 main(float4 p : POSITION) : SV_Position { return T.Sample(S, p.xy); }",
            Vertex,
            "an implicit-LOD Sample takes derivatives, which vertex shaders do not have",
        ),
        (
            "float4 main(float4 p) : SV_Position { return p; }",
            Vertex,
            "entry point value 'p' must have a semantic",
        ),
        (
            "float4 main(float4 p : POSITION) : COLOR { return p; }",
            Vertex,
            "a vertex shader must write SV_Position",
        ),
        (
            "float4 main(float4 p : SV_Position, uint s : SV_SampleIndex) : SV_Target { return p; }",
            Pixel,
            "'SV_SampleIndex' is not a pixel shader input Lockstep supports",
        ),
        (
            "float4 main(float4 p : SV_Position) : COLOR { return p; }",
            Pixel,
            "a pixel shader output needs SV_Target or SV_Depth, not 'COLOR'",
        ),
        (
            "void main(inout float4 p : SV_Position) { }",
            Vertex,
            "entry point parameter 'p' cannot be 'inout'",
        ),
        (
            "[numthreads(4, 1, 1)] float4 main(float4 p : SV_Position) : SV_Target { return p; }",
            Pixel,
            "'numthreads' applies to compute shaders, and this is a pixel shader",
        ),
        (
            "float4 helper(float4 p) { if (p.x < 0) discard; return p; }\n\
             float4 main(float4 p : POSITION) : SV_Position { return helper(p); }",
            Vertex,
            "'discard' is only allowed in pixel shaders, and this is a vertex shader",
        ),
        (
            "float4 main(float4 p : POSITION) : SV_Position { return ddx(p); }",
            Vertex,
            "'ddx' takes derivatives, which vertex shaders do not have",
        ),
        (
            "RWStructuredBuffer<uint> U;\n[numthreads(1, 1, 1)] void main() { U[0] = 1; discard; }",
            Compute,
            "'discard' is only allowed in pixel shaders, and this is a compute shader",
        ),
    ];
    for (src, stage, want) in cases {
        let got = errors(src, stage, "main");
        assert!(got.contains(want), "{src}\nexpected: {want}\ngot: {got}");
    }
    // A file may hold several stages' shaders: what the entry point does
    // not reach is not checked against its stage.
    let both = "float4 VSMain(float4 p : POSITION) : SV_Position { return p; }\n\
                float4 PSMain(float4 p : SV_Position) : SV_Target { clip(p.x - 1); return ddx(p); }";
    assert_eq!(errors(both, Vertex, "VSMain"), "");
    assert_eq!(errors(both, Pixel, "PSMain"), "");
}

#[test]
fn clip_discards_where_any_component_is_negative() {
    let scene = Scene::new(4, 4, two_triangles());
    let src = source("clip(float2(i.pos.x - 2, 3 - i.pos.y));\nreturn 1;", ATTR);
    let (image, _) = render(&scene, &src, 8, Packing::Dense);
    for y in 0..4 {
        for x in 0..4 {
            let kept = x >= 2 && y < 3;
            assert_eq!(image[y * 4 + x][0], f32::from(u8::from(kept)), "({x}, {y})");
        }
    }
}

/// Each finding's kind and location.
fn finding_kinds(report: &lockstep::CheckReport) -> Vec<(&str, Option<&str>)> {
    report
        .findings
        .iter()
        .map(|f| (f.kind, f.location.as_deref()))
        .collect()
}

/// `check_draw` over `src` on the two-triangle scene: the report.
fn check_report(src: &str) -> lockstep::CheckReport {
    let scene = Scene::new(4, 4, two_triangles());
    let pipeline = lockstep::pipeline::parse(&scene.yaml()).unwrap_or_else(|e| panic!("{e}"));
    let (vs, ps) = stages(src);
    let opts = RunOptions {
        wave_size: 8,
        wave_sizes: (4, 16),
        ..RunOptions::default()
    };
    lockstep::check_draw(&vs, &ps, &pipeline, &opts, &mut |_, _| {})
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn check_sweeps_wave_sizes_and_packings_of_draws() {
    let clean = check_report(&source(
        "return float4(ddx(i.pos.x * i.pos.y), 0, 0, 1);",
        ATTR,
    ));
    assert!(clean.is_clean(), "{clean:?}");
    assert_eq!(clean.wave_sizes, [4, 8, 16]);
    // The count of covered pixels in a wave changes with both.
    let counted = check_report(&source("return WaveActiveCountBits(true);", ATTR));
    assert_eq!(counted.portability.len(), 1, "{counted:?}");
    assert_eq!(counted.portability[0].buffer, "Target");
    assert_eq!(
        counted.portability[0].agreeing,
        [vec![4], vec![8], vec![16]]
    );
    let packings: Vec<(u32, &str)> = counted
        .order_dependence
        .iter()
        .map(|o| (o.wave_size, o.variation.as_str()))
        .collect();
    // At wave size 4 a wave is one quad, whatever the order; at 8 the
    // reversed packing pairs the same quads as the dense one (see
    // `wave_results_follow_the_wave_size_and_the_packing`).
    assert_eq!(
        packings,
        [
            (8, "quads packed one triangle per wave instead of densely"),
            (16, "quads packed one triangle per wave instead of densely"),
            (16, "quads packed reversed instead of densely"),
        ]
    );
}

#[test]
fn check_reports_derivatives_in_divergent_control_flow() {
    // Only x < 1 takes the branch: every quad is split, and ddx reads a
    // lane that is not running.
    let report = check_report(&source(
        "float d = 0;\nif (i.pos.x < 1) d = ddx(i.pos.y);\nreturn d;",
        ATTR,
    ));
    let kinds = finding_kinds(&report);
    assert!(
        kinds.contains(&("incomplete-quad", Some("draw.hlsl:5:22"))),
        "{kinds:?}"
    );
    // What ddx read there is undefined, and it reaches the target.
    assert!(
        kinds.contains(&("undefined-value", Some("draw.hlsl:3:50"))),
        "{kinds:?}"
    );
    assert_eq!(kinds.len(), 2, "{kinds:?}");
}

#[test]
fn check_reports_wave_results_read_from_helper_lanes() {
    // A wave sum leaves the helper lanes out, so what they hold is
    // undefined; ddx reads it from the triangles' edge quads, where
    // helpers are.
    let report = check_report(&source(
        "float s = WaveActiveSum(i.pos.x);\nreturn ddx_fine(s);",
        ATTR,
    ));
    let kinds = finding_kinds(&report);
    assert_eq!(kinds, [("undefined-value", Some("draw.hlsl:3:50"))]);
    // Inside the triangles' quads no helper lane is read: the lanes the
    // report names are on the diagonal's quads.
    let f = &report.findings[0];
    assert!(f.count > 0 && !f.lanes.is_empty(), "{f:?}");
}

#[test]
fn sample_takes_its_level_of_detail_from_the_quads_derivatives() {
    // A 2×2 texture [[0, 10], [20, 30]] on a 4×4 target. The sampler
    // magnifies linearly and minifies to the nearest texel. At uv =
    // pos / 4 a pixel steps half a texel (LOD −1): linear, with clamping,
    // so texel coordinate x/2 − 1/4 weighs texel 1 by 0, ¼, ¾, 1 across
    // the row. At uv = pos a pixel steps two texels (LOD 1): nearest, and
    // every uv ≥ 0.5 picks texel (1, 1), 30.
    let scene = Scene::new(4, 4, two_triangles());
    let yaml = scene
        .yaml()
        .replace(
            "Buffers:\n",
            "Buffers:\n  - Name: Tex\n    Format: Float32\n    Data: [ 0, 10, 20, 30 ]\n    OutputProps: { Width: 2, Height: 2, Depth: 1 }\n",
        )
        + "Samplers:\n  - Name: Mixed\n    MinFilter: Nearest\n    MagFilter: Linear\n\
           DescriptorSets:\n  - Resources:\n    - { Name: Tex, Kind: Texture2D, DirectXBinding: { Register: 0, Space: 0 } }\n    \
           - { Name: Mixed, Kind: Sampler, DirectXBinding: { Register: 0, Space: 0 } }\n";
    let src = source(
        "float2 uv = i.pos.xy / 4;\n\
         float levels = Tex.CalculateLevelOfDetailUnclamped(Mixed, uv) + 10 * Tex.CalculateLevelOfDetailUnclamped(Mixed, uv * 4) + 100 * Tex.CalculateLevelOfDetail(Mixed, uv * 4);\n\
         return float4(Tex.Sample(Mixed, uv), Tex.Sample(Mixed, uv * 4), Tex.SampleLevel(Mixed, uv, 0), levels);",
        ATTR,
    )
    .replace("struct V", "Texture2D<float> Tex : register(t0);\nSamplerState Mixed : register(s0);\nstruct V");
    let floats = target_floats(&yaml, &src);
    let weight = [0.0, 0.25, 0.75, 1.0];
    for y in 0..4 {
        for x in 0..4 {
            let px = &floats[(y * 4 + x) * 4..][..4];
            let linear = 10.0 * weight[x] + 20.0 * weight[y];
            assert_eq!(px[..3], [linear, 30.0, linear], "({x}, {y})");
            // The levels themselves: −1 and 1 unclamped; clamped to the
            // texture's one level, 0.
            assert_eq!(px[3], -1.0 + 10.0 * 1.0 + 100.0 * 0.0, "({x}, {y})");
        }
    }
}

/// `CalculateLevelOfDetail` of a texture array takes the location without
/// the array index, as DXIL's `CalculateLOD` does: a 2×2 array, stepped
/// half a texel (LOD −1) and two texels (LOD 1) a pixel.
#[test]
fn array_levels_of_detail_take_the_location_without_the_slice() {
    let scene = Scene::new(4, 4, two_triangles());
    let yaml = scene
        .yaml()
        .replace(
            "Buffers:\n",
            "Buffers:\n  - Name: Tex\n    Format: Float32\n    Data: [ 0, 10, 20, 30, 0, 10, 20, 30 ]\n    OutputProps: { Width: 2, Height: 2, Depth: 2 }\n",
        )
        + "Samplers:\n  - Name: Near\n\
           DescriptorSets:\n  - Resources:\n    - { Name: Tex, Kind: Texture2DArray, DirectXBinding: { Register: 0, Space: 0 } }\n    \
           - { Name: Near, Kind: Sampler, DirectXBinding: { Register: 0, Space: 0 } }\n";
    let src = source(
        "float2 uv = i.pos.xy / 4;\n\
         return float4(Tex.CalculateLevelOfDetailUnclamped(Near, uv), Tex.CalculateLevelOfDetailUnclamped(Near, uv * 4), Tex.CalculateLevelOfDetail(Near, uv * 4), 0);",
        ATTR,
    )
    .replace("struct V", "Texture2DArray<float> Tex : register(t0);\nSamplerState Near : register(s0);\nstruct V");
    let floats = target_floats(&yaml, &src);
    for p in floats.chunks_exact(4) {
        assert_eq!(p[..3], [-1.0, 1.0, 0.0]);
    }
}

/// The stages link as a GPU's signatures must: a pixel shader may not
/// read more components than the vertex shader writes, nor a float where
/// it writes an integer.
#[test]
fn stages_link_by_components_and_kind() {
    let scene = Scene::new(4, 4, two_triangles());
    let pipeline = lockstep::pipeline::parse(&scene.yaml()).unwrap_or_else(|e| panic!("{e}"));
    for (written, read, error) in [
        (
            "float2 t : TEXCOORD0",
            "float4 t : TEXCOORD0",
            "the pixel shader reads 'TEXCOORD' as 4 components, but the vertex shader writes 2",
        ),
        (
            "uint t : MATID",
            "float t : MATID",
            "the pixel shader reads 'MATID' as a float, but the vertex shader writes an integer",
        ),
    ] {
        let src = format!(
            "struct O {{ float4 pos : SV_Position; {written}; }};\n\
             struct I {{ float4 pos : SV_Position; nointerpolation {read}; }};\n\
             O VSMain(float4 pos : POSITION, float4 attr : ATTR) {{ O o = (O)0; o.pos = pos; return o; }}\n\
             float4 PSMain(I i) : SV_Target {{ return (float4)i.t; }}\n"
        );
        let (vs, ps) = stages(&src);
        let e = lockstep::draw(&vs, &ps, &pipeline, &RunOptions::default())
            .err()
            .unwrap_or_else(|| panic!("{written} → {read} drew"));
        assert!(e.to_string().contains(error), "{e}");
    }
}

#[test]
fn info_describes_a_pixel_shaders_inputs_and_quads() {
    let src = source(
        "return i.attr;",
        "noperspective float4 attr : ATTR; nointerpolation uint id : ID;",
    )
    .replace("o.attr = attr;", "o.attr = attr; o.id = 0;");
    let opts = CompileOptions {
        entry: "PSMain".to_string(),
        stage: lockstep::ir::Stage::Pixel,
        shader_model: (6, 0),
        ..CompileOptions::default()
    };
    let ps = lockstep::compile("draw.hlsl", &src, &opts, &MemoryLoader::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let text = lockstep::info(&ps, &lockstep::Device::default()).render();
    for line in [
        "stage             pixel\n",
        "inputs            SV_POSITION: float4\n",
        "                  ATTR: float4, noperspective\n",
        "                  ID: uint, nointerpolation\n",
        "                  SV_PRIMITIVEID: uint\n",
        "outputs           SV_TARGET: float4\n",
        "shader model      6.0 or later (ps_6_0)\n",
        "bindings          none\n",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }
}

#[test]
fn triangles_are_clipped_at_the_near_plane() {
    // z = x in clip space with w = 1: the near plane z = 0 cuts the target
    // at screen x = 2, so only columns 2 and 3 remain, and their depth is
    // z at the pixel centre, (x + 0.5) / 2 - 1.
    let corner = |x: f32, y: f32| ([x, y, x, 1.0], [0.0; 4]);
    let scene = Scene::new(
        4,
        4,
        vec![
            corner(-1.0, 1.0),
            corner(1.0, 1.0),
            corner(-1.0, -1.0),
            corner(1.0, 1.0),
            corner(1.0, -1.0),
            corner(-1.0, -1.0),
        ],
    );
    let (image, _) = render(
        &scene,
        &source("return float4(1, i.pos.z, 0, 0);", ATTR),
        8,
        Packing::Dense,
    );
    for y in 0..4 {
        for x in 0..4 {
            let want = if x >= 2 {
                [1.0, (x as f32 + 0.5) / 2.0 - 1.0, 0.0, 0.0]
            } else {
                [0.0; 4]
            };
            assert_eq!(image[y * 4 + x], want, "({x}, {y})");
        }
    }
}

#[test]
fn check_reports_derivatives_that_read_a_discarded_lane() {
    // Column 0 discards; ddx in column 1 reads it (coarse: from the quad's
    // left column). Direct3D keeps the lane as a helper; a driver whose
    // discard ends the lane leaves the value undefined.
    let report = check_report(&source(
        "if (i.pos.x < 1) discard;\nreturn ddx(i.pos.x * i.pos.y);",
        ATTR,
    ));
    let kinds = finding_kinds(&report);
    assert_eq!(kinds, [("discarded-lane-read", Some("draw.hlsl:5:8"))]);
    // Discarding whole quads reads nothing discarded.
    let whole = check_report(&source(
        "if (i.pos.x < 2) discard;\nreturn ddx(i.pos.x * i.pos.y);",
        ATTR,
    ));
    assert!(whole.findings.is_empty(), "{:?}", whole.findings);
}

#[test]
fn the_depth_test_keeps_the_nearest_pixel() {
    // Two full-target quads: green at depth 0.3, then red at 0.6. The
    // depth target starts at 1.0 and the test is LESS: green stays, with
    // depth 0.3. When the red pass writes SV_Depth = x / 10 instead, its
    // pixel centres 0.05, 0.15, 0.25 pass and 0.35 does not.
    let quad = |z: f32, color: [f32; 4]| {
        [
            (-1.0, 1.0),
            (1.0, 1.0),
            (-1.0, -1.0),
            (1.0, 1.0),
            (1.0, -1.0),
            (-1.0, -1.0),
        ]
        .map(|(x, y)| ([x, y, z, 1.0], color))
    };
    let green = [0.0, 1.0, 0.0, 1.0];
    let red = [1.0, 0.0, 0.0, 1.0];
    let mut scene = Scene::new(4, 4, [quad(0.3, green), quad(0.6, red)].concat());
    scene.depth = true;
    let shader = |depth: &str| {
        format!(
            "struct V {{ float4 pos : SV_Position; float4 attr : ATTR; }};\n\
             struct Out {{ float4 color : SV_Target; float depth : SV_Depth; }};\n\
             V VSMain(float4 pos : POSITION, float4 attr : ATTR) {{ V o; o.pos = pos; o.attr = attr; return o; }}\n\
             Out PSMain(V i) {{ Out o; o.color = i.attr; o.depth = i.attr.x > 0 ? {depth} : i.pos.z; return o; }}\n"
        )
    };
    let (image, buffers) = render(&scene, &shader("i.pos.z"), 8, Packing::Dense);
    let depth: Vec<f32> = buffers[0].iter().map(|&w| f32::from_bits(w)).collect();
    assert!(image.iter().all(|&p| p == green), "{image:?}");
    assert!(depth.iter().all(|&d| d == 0.3), "{depth:?}");
    let (image, buffers) = render(&scene, &shader("i.pos.x / 10"), 8, Packing::Dense);
    for y in 0..4 {
        for x in 0..4 {
            let at = y * 4 + x;
            let near = (x as f32 + 0.5) / 10.0;
            let (color, d) = if near < 0.3 {
                (red, near)
            } else {
                (green, 0.3)
            };
            assert_eq!(image[at], color, "({x}, {y})");
            assert_eq!(f32::from_bits(buffers[0][at]), d, "depth at ({x}, {y})");
        }
    }
}

#[test]
fn draws_larger_than_a_batch_keep_primitive_order() {
    // Five full-target passes over 512 × 512 pixels: 330,000 quads, more
    // than one batch of 2^18. Every pixel is shaded five times, and the
    // last pass (primitives 8 and 9) is what remains.
    let passes: Vec<_> = (0..5).flat_map(|_| two_triangles()).collect();
    let mut scene = Scene::new(512, 512, passes);
    scene.uavs = &["Count"];
    let src = source(
        "uint at = (uint)i.pos.y * 512 + (uint)i.pos.x;\nuint old;\nInterlockedAdd(Count[at], 1, old);\nreturn prim;",
        ATTR,
    )
    .replace("struct V", "RWStructuredBuffer<uint> Count : register(u0);\nstruct V");
    let (image, uavs) = render(&scene, &src, 32, Packing::Dense);
    assert!(uavs[0].iter().all(|&n| n == 5));
    for y in 0..512u32 {
        for x in 0..512u32 {
            // The diagonal x + y = 511 is B's, as in `triangle_of`.
            let want = if x + y >= 511 { 9.0 } else { 8.0 };
            assert_eq!(image[(y * 512 + x) as usize][0], want, "({x}, {y})");
        }
    }
}

#[test]
fn draws_that_do_not_fit_together_are_clear_errors() {
    let scene = Scene::new(4, 4, two_triangles());
    let pipeline = lockstep::pipeline::parse(&scene.yaml()).unwrap_or_else(|e| panic!("{e}"));
    let error = |src: &str| -> String {
        let (vs, ps) = stages(src);
        lockstep::draw(&vs, &ps, &pipeline, &RunOptions::default())
            .map(drop)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        error(&source("return i.extra;", "float4 attr : ATTR; float4 extra : TEXCOORD5;").replace(
            "V VSMain(float4 pos : POSITION, float4 attr : ATTR) { V o; o.pos = pos; o.attr = attr; return o; }",
            "struct W { float4 pos : SV_Position; float4 attr : ATTR; };\nW VSMain(float4 pos : POSITION, float4 attr : ATTR) { W o; o.pos = pos; o.attr = attr; return o; }",
        )),
        "the pixel shader reads 'TEXCOORD5', which the vertex shader does not write (it writes SV_POSITION, ATTR)"
    );
    assert_eq!(
        error(&source("return 1;", ATTR).replace(
            "float4 attr : ATTR) {",
            "float4 attr : ATTR, float2 uv : TEXCOORD) {"
        )),
        "the vertex shader reads 'TEXCOORD', which no vertex attribute provides (the pipeline's VertexAttributes name POSITION, ATTR)"
    );
    // A render target whose bytes do not match its size is refused when
    // the pipeline is read.
    let short = scene.yaml().replace("FillSize: 256\n", "FillSize: 128\n");
    assert!(
        lockstep::pipeline::parse(&short)
            .unwrap_err()
            .to_string()
            .ends_with("take 256 bytes, but the data holds 128")
    );
}

#[test]
fn extreme_positions_are_clipped_not_fatal() {
    let src = source("return 1;", ATTR);
    let p = |x: f32, y: f32, z: f32, w: f32| ([x, y, z, w], [0.0; 4]);
    // NaN anywhere, or w = 0: nothing to draw.
    let nan = Scene::new(
        4,
        4,
        vec![
            p(f32::NAN, 0.0, 0.0, 1.0),
            p(1.0, 1.0, 0.0, 1.0),
            p(-1.0, 1.0, 0.0, 1.0),
        ],
    );
    let (image, _) = render(&nan, &src, 8, Packing::Dense);
    assert!(image.iter().all(|px| *px == [0.0; 4]));
    // A NaN in a vertex that would otherwise make a large triangle: the
    // triangle is dropped, not drawn with the NaN read as 0.
    for bad in [
        p(f32::NAN, -1.0, 0.0, 1.0),
        p(-1.0, -1.0, f32::NAN, 1.0),
        p(-1.0, -1.0, 0.0, f32::NAN),
        p(f32::INFINITY, -1.0, 0.0, 1.0),
    ] {
        let scene = Scene::new(
            4,
            4,
            vec![bad, p(1.0, 1.0, 0.0, 1.0), p(-1.0, 1.0, 0.0, 1.0)],
        );
        let (image, _) = render(&scene, &src, 8, Packing::Dense);
        assert!(image.iter().all(|px| *px == [0.0; 4]), "{bad:?}: {image:?}");
    }
    let flat = Scene::new(
        4,
        4,
        vec![
            p(0.0, 0.0, 0.0, 0.0),
            p(1.0, 1.0, 0.0, 1.0),
            p(-1.0, 1.0, 0.0, 1.0),
        ],
    );
    let (image, _) = render(&flat, &src, 8, Packing::Dense);
    assert!(image.iter().all(|px| *px == [0.0; 4]));
    // A triangle far larger than the target is cut to the guard band and
    // covers every pixel.
    let big = |r: f32| {
        Scene::new(
            4,
            4,
            vec![p(-r, -r, 0.5, 1.0), p(0.0, r, 0.5, 1.0), p(r, -r, 0.5, 1.0)],
        )
    };
    let (image, _) = render(&big(1e9), &src, 8, Packing::Dense);
    assert!(image.iter().all(|px| *px == [1.0; 4]), "{image:?}");
    // Past what double precision can clip exactly, a draw still finishes.
    render(&big(1e30), &src, 8, Packing::Dense);
}

#[test]
fn derivatives_of_matrices_and_evaluated_attributes() {
    // Rows (x, y) and (2x, 2y) at pixel centres: ddx steps (1, 0) and
    // (2, 0), ddy (0, 1) and (0, 2). One sample per pixel: the centroid is
    // the centre, and a snapped offset of 8/16 pixel in x adds half of
    // x's slope.
    let scene = Scene::new(4, 4, two_triangles());
    let src = source(
        "float2x2 m = float2x2(i.pos.xy, i.pos.xy * 2);\n\
         float2x2 dx = ddx(m), dy = ddy_fine(m);\n\
         float c = EvaluateAttributeCentroid(i.pos.x) - i.pos.x;\n\
         return float4(dx[1].x + dx[0].y, dy[1].y + dy[1].x, c, EvaluateAttributeSnapped(i.pos.x, int2(8, 0)) - i.pos.x);",
        ATTR,
    );
    let (image, _) = render(&scene, &src, 8, Packing::Dense);
    assert!(
        image.iter().all(|px| *px == [2.0, 2.0, 0.0, 0.5]),
        "{image:?}"
    );
}

#[test]
fn byte_attributes_and_byte_targets() {
    // A float2 position and four bytes of colour per vertex (Hex8), read as
    // a uint4; the target holds a byte per channel.
    let yaml = "Shaders:\n  - Stage: Vertex\n    Entry: VSMain\n  - Stage: Pixel\n    Entry: PSMain\n\
        Buffers:\n  - Name: Vertices\n    Format: Hex8\n    Data: [ \
        0x00, 0x00, 0x80, 0xBF, 0x00, 0x00, 0x80, 0x3F, 0x01, 0x02, 0x03, 0x04, \
        0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x80, 0x3F, 0x01, 0x02, 0x03, 0x04, \
        0x00, 0x00, 0x80, 0xBF, 0x00, 0x00, 0x80, 0xBF, 0x01, 0x02, 0x03, 0x04 ]\n\
        \x20 - Name: Target\n    Format: Hex8\n    Channels: 4\n    FillSize: 16\n    \
        OutputProps: { Width: 2, Height: 2, Depth: 1 }\n\
        Bindings:\n  VertexBuffer: Vertices\n  VertexAttributes:\n    \
        - { Format: Float32, Channels: 2, Offset: 0, Name: POSITION }\n    \
        - { Format: Hex8, Channels: 4, Offset: 8, Name: COLOR }\n  RenderTarget: Target\n";
    let src = "struct V { float4 pos : SV_Position; nointerpolation uint4 c : COLOR; };\n\
        V VSMain(float2 pos : POSITION, uint4 c : COLOR) { V o; o.pos = float4(pos, 0, 1); o.c = c * 10; return o; }\n\
        uint4 PSMain(V i) : SV_Target { return i.c + 1; }\n";
    let pipeline = lockstep::pipeline::parse(yaml).unwrap_or_else(|e| panic!("{e}"));
    let (vs, ps) = stages(src);
    let out = lockstep::draw(&vs, &ps, &pipeline, &RunOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    // The top-left triangle covers pixel (0, 0) only (the diagonal passes
    // through the centres of (1, 0) and (0, 1), which its bottom-right edge
    // leaves out).
    assert_eq!(
        out.contents[1].as_ref(),
        &[11, 21, 31, 41, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    );
}

#[test]
fn early_depth_runs_only_the_pixels_that_pass() {
    // A near full-target pass (z 0.2), then a far one (z 0.8) over the
    // same pixels, each lane adding 1 << (8 · primitive pair) to its
    // pixel's counter. Late (the default) the far pixels run and count;
    // with [earlydepthstencil] they fail the test before the shader and
    // never write, and a quad of the near pass that discards keeps its
    // depth (the far pass still fails there).
    let quad = |z: f32| {
        [
            (-1.0, 1.0),
            (1.0, 1.0),
            (-1.0, -1.0),
            (1.0, 1.0),
            (1.0, -1.0),
            (-1.0, -1.0),
        ]
        .map(|(x, y)| ([x, y, z, 1.0], [0.0; 4]))
    };
    let mut scene = Scene::new(4, 4, [quad(0.2), quad(0.8)].concat());
    scene.depth = true;
    scene.uavs = &["Count"];
    let shader = |attribute: &str| {
        format!(
            "struct V {{ float4 pos : SV_Position; float4 attr : ATTR; }};\n\
             RWStructuredBuffer<uint> Count : register(u0);\n\
             V VSMain(float4 pos : POSITION, float4 attr : ATTR) {{ V o; o.pos = pos; o.attr = attr; return o; }}\n\
             {attribute} float4 PSMain(V i, uint prim : SV_PrimitiveID) : SV_Target {{\n\
                 uint at = (uint)i.pos.y * 4 + (uint)i.pos.x;\n\
                 InterlockedAdd(Count[at], 1u << (prim / 2 * 8));\n\
                 if (prim < 2 && i.pos.x < 1) discard;\n\
                 return float4(prim, 0, 0, 1);\n\
             }}\n"
        )
    };
    let (_, late) = render(&scene, &shader(""), 8, Packing::Dense);
    assert!(late[1].iter().all(|&c| c == 0x101), "{late:?}");
    let (image, early) = render(&scene, &shader("[earlydepthstencil]"), 8, Packing::Dense);
    assert!(early[1].iter().all(|&c| c == 1), "{early:?}");
    for (at, (px, d)) in image.iter().zip(&early[0]).enumerate() {
        assert_eq!(f32::from_bits(*d), 0.2, "depth at {at}");
        // Column 0 discarded: nothing written there.
        let red = if at % 4 == 0 { 0.0 } else { 1.0 };
        assert_eq!(px[3], red, "pixel {at}: {px:?}");
    }
}

/// A vertex shader's sampler has its state whether or not the pixel
/// shader samples: linear filtering at (0.5, 0.5) of a 2×2 texture weighs
/// its four texels alike; and `CalculateLevelOfDetail` alone compiles.
#[test]
fn vertex_shaders_sample_with_their_samplers_state() {
    let yaml = "Shaders:\n  - Stage: Vertex\n    Entry: VSMain\n  - Stage: Pixel\n    Entry: PSMain\n\
        Buffers:\n  - Name: Vertices\n    Format: Float32\n    Data: [ -1, 1, 3, 1, -1, -3 ]\n\
        \x20 - Name: Target\n    Format: Float32\n    Channels: 4\n    FillSize: 256\n    \
        OutputProps: { Width: 4, Height: 4, Depth: 1 }\n\
        \x20 - Name: Tex\n    Format: Float32\n    Data: [ 0, 1, 2, 3 ]\n    \
        OutputProps: { Width: 2, Height: 2, Depth: 1 }\n\
        Samplers:\n  - Name: Linear\n    Filter: Linear\n\
        DescriptorSets:\n  - Resources:\n\
        \x20   - { Name: Tex, Kind: Texture2D, DirectXBinding: { Register: 0, Space: 0 } }\n\
        \x20   - { Name: Linear, Kind: Sampler, DirectXBinding: { Register: 0, Space: 0 } }\n\
        Bindings:\n  VertexBuffer: Vertices\n  VertexAttributes:\n    \
        - { Format: Float32, Channels: 2, Offset: 0, Name: POSITION }\n  RenderTarget: Target\n";
    let src = "Texture2D<float> Tex : register(t0);\n\
        SamplerState Linear : register(s0);\n\
        struct V { float4 pos : SV_Position; float a : A; };\n\
        V VSMain(float2 p : POSITION) { V o; o.pos = float4(p, 0.5, 1); o.a = Tex.SampleLevel(Linear, float2(0.5, 0.5), 0); return o; }\n\
        float4 PSMain(V i) : SV_Target { return float4(i.a, 0, 0, 1); }\n";
    let pipeline = lockstep::pipeline::parse(yaml).unwrap_or_else(|e| panic!("{e}"));
    let (vs, ps) = stages(src);
    let out = lockstep::draw(&vs, &ps, &pipeline, &RunOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let first = f32::from_le_bytes(out.contents[1][..4].try_into().unwrap());
    assert_eq!(first, 1.5);
    // The level of detail alone, with no sampling call beside it.
    let lod = "Texture2D<float> Tex : register(t0);\n\
        SamplerState Linear : register(s0);\n\
        struct V { float4 pos : SV_Position; };\n\
        V VSMain(float2 p : POSITION) { V o; o.pos = float4(p, 0.5, 1); return o; }\n\
        float4 PSMain(V i) : SV_Target { return Tex.CalculateLevelOfDetail(Linear, i.pos.xy / 4); }\n";
    let (vs, ps) = stages(lod);
    let out = lockstep::draw(&vs, &ps, &pipeline, &RunOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    // uv steps 1/4 a pixel over 2 texels: log2(0.5) = -1, clamped to 0.
    let first = f32::from_le_bytes(out.contents[1][..4].try_into().unwrap());
    assert_eq!(first, 0.0);
}

/// A full-screen triangle from `SV_VertexID` needs no vertex buffer:
/// `VertexCount` says how many vertices; each pixel centre's uv is its
/// position over the target.
#[test]
fn vertices_from_the_vertex_id_alone() {
    let yaml = "Shaders:\n  - Stage: Vertex\n    Entry: VSMain\n  - Stage: Pixel\n    Entry: PSMain\n\
        Buffers:\n  - Name: Target\n    Format: Float32\n    Channels: 4\n    FillSize: 256\n    \
        OutputProps: { Width: 4, Height: 4, Depth: 1 }\n\
        Bindings:\n  RenderTarget: Target\nDispatchParameters:\n  VertexCount: 3\n";
    let src = "struct V { float4 pos : SV_Position; float2 uv : TEXCOORD; };\n\
        V VSMain(uint id : SV_VertexID) {\n\
            V o;\n\
            o.uv = float2((id << 1) & 2, id & 2);\n\
            o.pos = float4(o.uv * float2(2, -2) + float2(-1, 1), 0, 1);\n\
            return o;\n\
        }\n\
        float4 PSMain(V i) : SV_Target { return float4(i.uv, 0, 1); }\n";
    let pipeline = lockstep::pipeline::parse(yaml).unwrap_or_else(|e| panic!("{e}"));
    let (vs, ps) = stages(src);
    let out = lockstep::draw(&vs, &ps, &pipeline, &RunOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let floats: Vec<f32> = out.contents[0]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for y in 0..4 {
        for x in 0..4 {
            let at = (y * 4 + x) * 4;
            let want = [(x as f32 + 0.5) / 4.0, (y as f32 + 0.5) / 4.0, 0.0, 1.0];
            assert_eq!(floats[at..at + 4], want, "({x}, {y})");
        }
    }
    // Without VertexCount, nothing says how many vertices to draw.
    let err =
        lockstep::pipeline::parse(&yaml.replace("DispatchParameters:\n  VertexCount: 3\n", ""))
            .unwrap_err()
            .to_string();
    assert!(
        err.contains("without a VertexBuffer needs DispatchParameters"),
        "{err}"
    );
}

#[test]
fn a_waterfall_loop_ends_for_helper_lanes_too() {
    // Each pass serves the lanes whose key is the first active lane's.
    // Helper lanes take no part while a pixel's lane is active; once only
    // they are left they run the loop among themselves, so it ends at
    // every wave size (it used to run past the step budget at 4 and 8),
    // and where they go is no finding.
    let report = check_report(&source(
        "uint key = (uint)i.pos.x % 3;\nfloat r = 0;\n[loop] while (true) {\n\
         uint first = WaveReadLaneFirst(key);\nif (first == key) { r = first + 1; break; }\n}\n\
         return float4(r, 0, 0, 1);",
        ATTR,
    ));
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(report.wave_sizes, [4, 8, 16]);
}
