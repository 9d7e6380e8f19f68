//! A draw on Lockstep and on a Vulkan driver (lavapipe), side by side: the
//! same HLSL (glslang compiles it to SPIR-V), the same graphics pipeline,
//! the render targets compared as offloader's 16-bit PNG values, and each
//! engine's draw timed.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use lockstep::ir::Stage;
use lockstep::pipeline::Pipeline;
use lockstep::{CompileOptions, RunOptions};

use crate::vulkan::{Context, Renderer};

/// The vertex and pixel entry points of a draw's HLSL file.
pub const ENTRIES: (&str, &str) = ("VSMain", "PSMain");

/// What one comparison found.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// Pixels of the target.
    pub pixels: usize,
    /// Channel values (0..65535, as offloader's PNG holds them) that differ
    /// by more than one step.
    pub differing: usize,
    /// The largest difference between two channel values, in steps of
    /// 1/65535.
    pub max_steps: u32,
    /// The first differing pixel: (x, y, Lockstep's channels, the
    /// driver's).
    pub first: Option<(u32, u32, [u16; 4], [u16; 4])>,
    /// Lockstep's median draw time.
    pub lockstep: Duration,
    /// The driver's median draw time (submission to fence).
    pub driver: Duration,
}

/// offloader's PNG value of a float: `clamp(floor(v·65536), 0, 65535)`.
pub fn png_value(v: f32) -> u16 {
    (f64::from(v) * 65536.0).floor().clamp(0.0, 65535.0) as u16
}

/// SPIR-V for `entry` of `hlsl` as a `stage` (`vert`, `frag`) shader,
/// compiled by glslangValidator.
pub fn glslang(hlsl: &Path, stage: &str, entry: &str) -> Result<Vec<u32>, String> {
    let out = std::env::temp_dir().join(format!(
        "lockstep-draw-{}-{entry}-{stage}.spv",
        std::process::id()
    ));
    let status = Command::new("glslangValidator")
        .args(["-D", "-V", "-S", stage, "-e", entry, "-o"])
        .arg(&out)
        .arg(hlsl)
        .output()
        .map_err(|e| format!("cannot run glslangValidator: {e} (apt-get install glslang-tools)"))?;
    if !status.status.success() {
        return Err(format!(
            "glslangValidator failed on {}:\n{}",
            hlsl.display(),
            String::from_utf8_lossy(&status.stdout)
        ));
    }
    let bytes = std::fs::read(&out).map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&out);
    crate::spirv::words_of(&bytes)
}

/// `source`'s `VSMain` and `PSMain`, compiled as the vertex and pixel
/// shaders of a draw (`name` names the file in diagnostics).
pub fn compile_stages(
    name: &str,
    source: &str,
) -> Result<(lockstep::Shader, lockstep::Shader), String> {
    let compile = |entry: &str, stage| {
        let opts = CompileOptions {
            entry: entry.to_string(),
            stage,
            ..CompileOptions::default()
        };
        lockstep::compile(name, source, &opts, &lockstep::FsLoader).map_err(|e| e.to_string())
    };
    Ok((
        compile(ENTRIES.0, Stage::Vertex)?,
        compile(ENTRIES.1, Stage::Pixel)?,
    ))
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

/// Draws `pipeline` with `hlsl`'s `VSMain` and `PSMain` on Lockstep (with
/// `threads` workers and waves of `wave_size`) and on `ctx`'s device,
/// `runs` timed times each after one untimed draw, and compares the
/// targets.
pub fn compare(
    ctx: &Context,
    hlsl: &Path,
    pipeline: &Pipeline,
    threads: usize,
    wave_size: u32,
    runs: usize,
) -> Result<Comparison, String> {
    let source = std::fs::read_to_string(hlsl).map_err(|e| format!("{}: {e}", hlsl.display()))?;
    let (vs, ps) = compile_stages(&hlsl.display().to_string(), &source)?;
    let opts = RunOptions {
        threads,
        wave_size,
        ..RunOptions::default()
    };
    let target = pipeline
        .graphics
        .as_ref()
        .and_then(|g| pipeline.buffer_index(&g.render_target))
        .ok_or("the pipeline has no render target")?;
    let mut ours = Vec::new();
    let mut lockstep_times = Vec::new();
    for run in 0..=runs {
        let start = Instant::now();
        let out = lockstep::draw(&vs, &ps, pipeline, &opts).map_err(|e| e.to_string())?;
        if run > 0 {
            lockstep_times.push(start.elapsed());
        }
        ours = out.contents[target].to_vec();
    }
    let vs_spirv = glslang(hlsl, "vert", ENTRIES.0)?;
    let fs_spirv = glslang(hlsl, "frag", ENTRIES.1)?;
    let renderer = Renderer::new(
        ctx,
        (&vs_spirv, ENTRIES.0),
        (&fs_spirv, ENTRIES.1),
        pipeline,
    )
    .map_err(|e| e.to_string())?;
    let mut driver_times = Vec::new();
    for run in 0..=runs {
        let t = renderer.draw().map_err(|e| e.to_string())?;
        if run > 0 {
            driver_times.push(t);
        }
    }
    let theirs = renderer.read().map_err(|e| e.to_string())?;
    let props = pipeline.buffers[target]
        .output_props
        .ok_or("the render target has no OutputProps")?;
    let ours: Vec<f32> = ours
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if ours.len() != theirs.len() {
        return Err(format!(
            "the render target has {} floats on Lockstep and {} on the driver (Float32 × 4 targets only)",
            ours.len(),
            theirs.len()
        ));
    }
    let mut cmp = Comparison {
        pixels: ours.len() / 4,
        differing: 0,
        max_steps: 0,
        first: None,
        lockstep: median(lockstep_times),
        driver: median(driver_times),
    };
    for (i, (a, b)) in ours.chunks_exact(4).zip(theirs.chunks_exact(4)).enumerate() {
        let a: [u16; 4] = std::array::from_fn(|k| png_value(a[k]));
        let b: [u16; 4] = std::array::from_fn(|k| png_value(b[k]));
        let steps = (0..4)
            .map(|k| a[k].abs_diff(b[k]) as u32)
            .max()
            .unwrap_or(0);
        cmp.max_steps = cmp.max_steps.max(steps);
        let over = (0..4).filter(|&k| a[k].abs_diff(b[k]) > 1).count();
        if over > 0 {
            cmp.differing += over;
            if cmp.first.is_none() {
                let (x, y) = (i as u32 % props.width, i as u32 / props.width);
                cmp.first = Some((x, y, a, b));
            }
        }
    }
    Ok(cmp)
}
