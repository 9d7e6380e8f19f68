//! Every bundled example passes its own Results at every wave size.

use std::path::Path;

use lockstep::{CompileOptions, RunOptions};

use crate::harness::WAVE_SIZES;

struct FsLoader;

impl lockstep::syntax::preprocess::SourceLoader for FsLoader {
    fn load(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
}

fn examples_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

#[test]
fn every_example_passes_at_every_wave_size() {
    let mut count = 0;
    let mut entries: Vec<_> = std::fs::read_dir(examples_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for hlsl in entries
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "hlsl"))
    {
        let yaml = hlsl.with_extension("yaml");
        let source = std::fs::read_to_string(hlsl).unwrap();
        let pipeline = lockstep::pipeline::parse(&std::fs::read_to_string(&yaml).unwrap()).unwrap();
        let name = hlsl.display().to_string();
        let opts = CompileOptions {
            entry: pipeline.entry.clone().unwrap_or_else(|| "main".into()),
            ..CompileOptions::default()
        };
        let shader = lockstep::compile(&name, &source, &opts, &FsLoader)
            .unwrap_or_else(|e| panic!("{}", e.render(false)));
        assert!(!pipeline.results.is_empty(), "{name} has no Results");
        // Every wave size the shader's [WaveSize] allows, each on a device
        // that supports only that size.
        let range = shader.module.entry.as_ref().and_then(|e| e.wave_size);
        let allowed = WAVE_SIZES
            .into_iter()
            .filter(|w| range.is_none_or(|r| (r.min..=r.max).contains(w)));
        for w in allowed {
            let opts = RunOptions {
                wave_size: w,
                wave_sizes: (w, w),
                ..RunOptions::default()
            };
            let out =
                lockstep::run(&shader, &pipeline, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(out.wave_size.size, w);
            for o in &out.outcomes {
                assert!(o.passed, "{name} at wave size {w}:\n{}", o.render());
            }
        }
        count += 1;
    }
    assert_eq!(count, 9, "expected the nine bundled examples");
}

/// Renders a draw example (`examples/draw/NAME.yaml`, both shaders in
/// `NAME.hlsl`) at `wave` lanes with `packing`; the target as offloader's
/// PNG, and its floats.
fn render_example(
    name: &str,
    wave: u32,
    packing: lockstep::raster::Packing,
) -> (Vec<u8>, Vec<f32>) {
    let dir = examples_dir().join("draw");
    let hlsl = dir.join(format!("{name}.hlsl"));
    let source = std::fs::read_to_string(&hlsl).unwrap();
    let pipeline = lockstep::pipeline::parse(
        &std::fs::read_to_string(dir.join(format!("{name}.yaml"))).unwrap(),
    )
    .unwrap();
    let compile = |entry: &str, stage| {
        let opts = CompileOptions {
            entry: entry.to_string(),
            stage,
            ..CompileOptions::default()
        };
        lockstep::compile(&hlsl.display().to_string(), &source, &opts, &FsLoader)
            .unwrap_or_else(|e| panic!("{}", e.render(false)))
    };
    let vs = compile("VSMain", lockstep::ir::Stage::Vertex);
    let ps = compile("PSMain", lockstep::ir::Stage::Pixel);
    let opts = RunOptions {
        wave_size: wave,
        wave_sizes: (wave, wave),
        ..RunOptions::default()
    };
    let out = lockstep::draw_packed(&vs, &ps, &pipeline, &opts, packing)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let target = pipeline.buffer_index("Target").unwrap();
    let bytes = out.contents[target].to_vec();
    let png = lockstep::texture_png(&pipeline.buffers[target], &bytes).unwrap();
    let floats = bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    (png, floats)
}

/// The draw examples render the same image at every wave size and quad
/// packing (they use no wave operation, and derivatives stay within a
/// quad), and it is the PNG the README shows.
#[test]
fn draw_examples_render_their_pictures() {
    for name in ["triangle", "rings"] {
        let (png, _) = render_example(name, 32, lockstep::raster::Packing::Dense);
        let shown =
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../docs/images/{name}.png"));
        assert!(
            std::fs::read(&shown).unwrap() == png,
            "{} differs from what {name} renders: regenerate it with lockstep run examples/draw/{name}.yaml examples/draw/{name}.hlsl examples/draw/{name}.hlsl -r Target -o docs/images/{name}.png",
            shown.display()
        );
        for w in [4, 8, 128] {
            for packing in lockstep::raster::Packing::ALL {
                assert!(
                    render_example(name, w, packing).0 == png,
                    "{name} at wave size {w}, {}",
                    packing.name()
                );
            }
        }
    }
}

/// The triangle example covers exactly the pixels whose centres lie inside
/// its triangle (corners (64, 6.4), (121.6, 121.6), (6.4, 121.6) on the
/// 128 × 128 target), and the colour sums to 1 there as barycentric
/// weights do.
#[test]
fn the_triangle_example_covers_the_centres_inside_it() {
    let (_, floats) = render_example("triangle", 8, lockstep::raster::Packing::Dense);
    let corners = [(64.0, 6.4), (121.6, 121.6), (6.4, 121.6)];
    let side = |a: (f64, f64), b: (f64, f64), p: (f64, f64)| {
        (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0)
    };
    for y in 0..128 {
        for x in 0..128 {
            let p = (f64::from(x) + 0.5, f64::from(y) + 0.5);
            let e = [
                side(corners[0], corners[1], p),
                side(corners[1], corners[2], p),
                side(corners[2], corners[0], p),
            ];
            // Skip centres within a hair of an edge (snapping decides).
            if e.iter().any(|v| v.abs() < 1.0) {
                continue;
            }
            let inside = e.iter().all(|&v| v > 0.0);
            let px = &floats[(y * 128 + x) as usize * 4..][..4];
            assert_eq!(px[3], f32::from(u8::from(inside)), "({x}, {y})");
            if inside {
                let sum = px[0] + px[1] + px[2];
                assert!((sum - 1.0).abs() < 1e-5, "({x}, {y}): {px:?}");
            }
        }
    }
}
