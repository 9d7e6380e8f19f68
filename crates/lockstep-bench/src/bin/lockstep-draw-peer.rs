//! `lockstep-draw-peer`: one draw on Lockstep and on a Vulkan driver
//! (Mesa's lavapipe), side by side: the render targets compared as
//! offloader's 16-bit PNG values, then each engine's median draw time.
//! glslangValidator compiles the HLSL's `VSMain` and `PSMain` for the
//! driver.
//!
//! ```sh
//! lockstep-draw-peer [PIPELINE.yaml SHADER.hlsl] [--threads N] [--runs N] [--device NAME]
//! ```
//!
//! The default draw is `benches/draws/fullscreen`. Exit status: 0 when
//! every channel agrees within one step, 1 when one does not, 2 on an
//! error.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use lockstep_bench::draws;
use lockstep_bench::vulkan::Context;

#[derive(Parser)]
#[command(
    name = "lockstep-draw-peer",
    about = "Times one draw on Lockstep and on a Vulkan driver (lavapipe), and compares the images"
)]
struct Args {
    /// The graphics pipeline.
    #[arg(default_value = "benches/draws/fullscreen.yaml")]
    pipeline: PathBuf,
    /// The HLSL file with VSMain and PSMain.
    #[arg(default_value = "benches/draws/fullscreen.hlsl")]
    shader: PathBuf,
    /// Worker threads of both engines (Lockstep's, and LP_NUM_THREADS).
    #[arg(long, value_name = "N", default_value_t = 1)]
    threads: usize,
    /// Timed draws per engine, after one untimed one; the median is
    /// reported.
    #[arg(long, value_name = "N", default_value_t = 5)]
    runs: usize,
    /// The Vulkan device: the first whose name contains this.
    #[arg(long, value_name = "NAME", default_value = "llvmpipe")]
    device: String,
}

fn main() -> ExitCode {
    let args = Args::parse();
    // SAFETY: no other thread runs yet; the driver reads the variable when
    // the instance is created.
    unsafe { std::env::set_var("LP_NUM_THREADS", args.threads.to_string()) };
    let result = (|| -> Result<bool, String> {
        let text = std::fs::read_to_string(&args.pipeline)
            .map_err(|e| format!("{}: {e}", args.pipeline.display()))?;
        let pipeline = lockstep::pipeline::parse(&text)
            .map_err(|e| format!("{}:{e}", args.pipeline.display()))?;
        let ctx = Context::new(&args.device).map_err(|e| e.to_string())?;
        let wave = ctx.info.subgroup_size.clamp(4, 128);
        println!(
            "{} ({}), subgroup size {}; Lockstep wave size {wave}; {} thread(s); median of {} draws",
            ctx.info.name, ctx.info.driver, ctx.info.subgroup_size, args.threads, args.runs
        );
        let c = draws::compare(&ctx, &args.shader, &pipeline, args.threads, wave, args.runs)?;
        println!(
            "{} pixels; {} channel values differ by more than 1/65535 (largest difference {} steps)",
            c.pixels, c.differing, c.max_steps
        );
        if let Some((x, y, a, b)) = c.first {
            println!("first difference at ({x}, {y}): Lockstep {a:?}, driver {b:?}");
        }
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        println!(
            "Lockstep {:.2} ms, lavapipe {:.2} ms: Lockstep is {:.2}x lavapipe's speed",
            ms(c.lockstep),
            ms(c.driver),
            c.driver.as_secs_f64() / c.lockstep.as_secs_f64().max(1e-12)
        );
        Ok(c.differing == 0)
    })();
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
