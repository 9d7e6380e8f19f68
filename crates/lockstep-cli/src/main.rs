//! The `lockstep` command: compiles an HLSL compute shader and runs it on the
//! CPU with exact wave semantics.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

mod trace;
use lockstep::syntax::{Diagnostic, FileId, Span};
use lockstep::{CompileOptions, RunOptions};

/// Exit status: every result rule held.
const EXIT_PASS: u8 = 0;
/// Exit status: a result rule failed.
const EXIT_FAIL: u8 = 1;
/// Exit status: bad input (files, flags, pipeline, shader) or a run error.
const EXIT_ERROR: u8 = 2;

/// `check`'s default `--max-steps`.
const CHECK_STEP_BUDGET: u64 = 1 << 20;
#[derive(Parser, Debug)]
#[command(
    name = "lockstep",
    version,
    about = "Run HLSL compute, vertex and pixel shaders on the CPU with exact wave semantics"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Compile SHADER, run the dispatch PIPELINE describes, write the buffers
    /// and check the pipeline's Results rules. For a graphics pipeline, give
    /// the vertex and the pixel shader (PIPELINE VS.hlsl PS.hlsl): the draw
    /// writes its render target, a PNG with `-r Target -o OUT.png`.
    ///
    /// Exit status: 0 when every rule holds (or there are none), 1 when a
    /// rule fails, 2 on an input, compile or run error.
    Run(RunArgs),
    /// Compile SHADER and describe what it needs from the device: the entry
    /// point, group shape, the wave size it would run at and why, waves and
    /// threads per group, groupshared memory, the shader model and every
    /// binding.
    Info(InfoArgs),
    /// Run the dispatch at every wave size the shader and the device allow,
    /// in checked mode, and report undefined wave behaviour (with source
    /// location, group, wave and lanes), output buffers that differ between
    /// wave sizes, and outputs that change with the order lanes, waves or
    /// groups are combined in. A draw (PIPELINE VS.hlsl PS.hlsl) runs at
    /// every wave size and with every packing of pixel quads into waves.
    ///
    /// Exit status: 0 clean, 1 findings, 2 on an input, compile or run error.
    Check(CheckArgs),
    /// Run LLVM offload-test-suite `.test` files: split each into its
    /// sections, evaluate REQUIRES, UNSUPPORTED and XFAIL against Lockstep's
    /// features, compile with the flags of the `%dxc_target` RUN line, run
    /// the pipeline of the `%offloader` line, and run LLVM's FileCheck over
    /// its printed buffers where the line pipes into FileCheck.
    ///
    /// Prints one line per test (PASS, FAIL with the reason and the rule
    /// diff, SKIP with the reason, XFAIL, XPASS), then `N passed, N failed,
    /// N skipped`: an expected failure (XFAIL) counts as passed and an
    /// unexpected pass (XPASS) as failed.
    ///
    /// Features: Lockstep, DXC, Half, Double, Int16, Int64 and WaveSize_N for
    /// each wave size the device supports; every other name is false.
    ///
    /// Exit status: 0 when no test failed, 1 when one did, 2 on a usage
    /// error (a path that does not exist, no .test file found).
    Test(TestArgs),
    /// Compile SHADER (a compute, vertex or pixel shader, as -T says) to
    /// SPIR-V 1.5 for Vulkan and write it to OUT.spv (default: the shader's
    /// file name with `.spv`, in the current directory). Prints each resource's descriptor set and
    /// binding: `[[vk::binding(binding, set)]]` where the shader gives one;
    /// else set = the register space, binding = the register number where
    /// it is free in the set; the others (`t0` next to `u0`, hidden
    /// counters) take the lowest free numbers, in declaration order.
    ///
    /// Exit status: 0 when the module was written, 2 on a compile error or
    /// a feature the SPIR-V back end does not have.
    Spirv(SpirvArgs),
    /// Run the dispatch on a Vulkan device and on Lockstep's engine (in
    /// checked mode, at the wave size the device ran), compare every
    /// buffer the shader can write, and report the elements that differ,
    /// with the statements that wrote them, and the undefined behaviour
    /// the engine met (results a device may give otherwise).
    ///
    /// Exit status: 0 when every buffer is the same (or with
    /// --mask-undefined, differs only where undefined behaviour wrote), 1
    /// when one differs, 2 on an input, compile, device or run error.
    Diff(DiffArgs),
    /// List the Vulkan devices `--device vulkan:N` can name, with their
    /// subgroup sizes and the extensions wave operations use.
    Devices,
    /// Run the dispatch in checked mode and record what every lane of the
    /// chosen waves did (default: the first group's): each statement run,
    /// the active and helper lanes, the values each lane gave the
    /// variables it wrote, and what each wave operation read and
    /// returned. Writes a self-contained HTML page (-o trace.html) that
    /// opens from disk, or JSON (--format json, docs/trace.md). For a
    /// draw (PIPELINE VS.hlsl PS.hlsl), traces the pixel shader's waves
    /// and shows their quads on the render target.
    ///
    /// Exit status: 0 when the trace was written, 1 when it was written
    /// but the run stopped with an error (a loop past --max-steps, say: the
    /// trace shows the steps before it), 2 on an input or compile error.
    Trace(trace::TraceArgs),
}

#[derive(Args, Debug)]
struct DiffArgs {
    /// The pipeline file (offload-test-suite YAML).
    pipeline: PathBuf,
    /// The HLSL compute shader; for a graphics pipeline, the vertex shader.
    shader: PathBuf,
    #[command(flatten)]
    stages: StageArgs,
    #[command(flatten)]
    compile: CompileArgs,
    /// Take buffer NAME's initial contents from a binary file of
    /// little-endian elements instead of the pipeline's Data.
    #[arg(long = "buffer", value_name = "NAME=FILE")]
    buffers: Vec<String>,
    /// The device: vulkan, vulkan:N or vulkan:NAME.
    #[arg(long = "device", value_name = "DEVICE", default_value = "vulkan")]
    target: String,
    /// The wave size to ask the device for (default: its subgroup size).
    #[arg(long, value_name = "N")]
    wave_size: Option<u32>,
    /// Floats this many units in the last place apart count as equal (a
    /// device may combine a float reduction's lanes in another order).
    #[arg(long, value_name = "N", default_value_t = 0)]
    ulps: u64,
    /// Floats at most X apart count as equal too (for images: a draw's
    /// interpolation differs in its last digits, many units in the last
    /// place near zero).
    #[arg(long, value_name = "X", default_value_t = 0.0)]
    tolerance: f64,
    /// Exit 0 when every differing element was written by a statement with
    /// undefined behaviour (a value the specification leaves open), or
    /// changes in the engine too when its groups take turns in another
    /// order (an append's slots: the device's order is its own).
    #[arg(long)]
    mask_undefined: bool,
    /// Worker threads for the engine's run (default: one per core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    threads: usize,
    /// Loop iterations one wave may run in the engine.
    #[arg(long, value_name = "N", default_value_t = RunOptions::default().step_budget)]
    max_steps: u64,
    /// Output format: text or json.
    #[arg(long, value_name = "FORMAT", default_value = "text")]
    format: String,
    /// Colour diagnostics: auto, always or never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"])]
    color: String,
}

#[derive(Args, Debug)]
struct SpirvArgs {
    /// The HLSL shader.
    shader: PathBuf,
    #[command(flatten)]
    compile: CompileArgs,
    /// The output file.
    #[arg(short = 'o', value_name = "OUT.spv")]
    output: Option<PathBuf>,
    /// The subgroup size the module will run at: fixes a `[numWaves(N)]`
    /// group at N times that many invocations (default: a specialization
    /// constant, ids 0-2, of N·32).
    #[arg(long, value_name = "N")]
    wave_size: Option<u32>,
    /// Declare SPV_KHR_maximal_reconvergence, so that lanes reconverge
    /// exactly where the source says; the device must have
    /// VK_KHR_shader_maximal_reconvergence.
    #[arg(long)]
    maximal_reconvergence: bool,
    /// Colour diagnostics: auto, always or never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"])]
    color: String,
}

#[derive(Args, Debug)]
struct TestArgs {
    /// `.test` files, and directories searched recursively for `*.test`
    /// files (in sorted order).
    #[arg(value_name = "FILE_OR_DIR", required = true)]
    paths: Vec<PathBuf>,
    /// Where the dispatches run: cpu, or vulkan[:N|:NAME] for a Vulkan
    /// device (the platform feature is then Vulkan instead of Lockstep,
    /// and WaveSize_N follows the device's subgroup sizes).
    #[arg(long = "device", value_name = "DEVICE", default_value = "cpu")]
    target: String,
    #[command(flatten)]
    device: DeviceArgs,
    /// Worker threads for each dispatch (default: one per core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    threads: usize,
    /// Loop iterations one wave may run before a test fails with an error.
    #[arg(long, value_name = "N", default_value_t = RunOptions::default().step_budget)]
    max_steps: u64,
    /// Output format: text (one line per test and a summary line) or json.
    #[arg(long, value_name = "FORMAT", default_value = "text")]
    format: String,
    /// LLVM's FileCheck, for RUN lines that pipe the offloader's output into
    /// it (default: $FILECHECK, else `FileCheck` on the PATH, else the
    /// newest /usr/lib/llvm-*/bin/FileCheck; without one such tests are
    /// skipped).
    #[arg(long, value_name = "PATH")]
    filecheck: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct CheckArgs {
    /// The pipeline file (offload-test-suite YAML).
    pipeline: PathBuf,
    /// The HLSL compute shader; for a graphics pipeline, the vertex shader.
    shader: PathBuf,
    #[command(flatten)]
    stages: StageArgs,
    #[command(flatten)]
    compile: CompileArgs,
    #[command(flatten)]
    device: DeviceArgs,
    /// Wave sizes checked at once, each on a thread of its own with its own
    /// copy of the buffers (default: one per core; 1 holds one copy at a
    /// time). The report is the same for any number.
    #[arg(long, value_name = "N", default_value_t = 0)]
    threads: usize,
    /// Loop iterations one wave may run at a wave size before the check
    /// reports the loop as one that may never end (a progress-dependence
    /// finding) and leaves that size out of the comparisons. Lower than
    /// run's default: checked mode is slower, and a loop that waits on
    /// another lane of its wave never ends.
    #[arg(long, value_name = "N", default_value_t = CHECK_STEP_BUDGET)]
    max_steps: u64,
    /// Take buffer NAME's initial contents from a binary file of
    /// little-endian elements instead of the pipeline's Data.
    #[arg(long = "buffer", value_name = "NAME=FILE")]
    buffers: Vec<String>,
    /// Float outputs this many units in the last place apart (or both NaN)
    /// count as the same between wave sizes and orders: a float reduction
    /// over another number of lanes rounds otherwise.
    #[arg(long, value_name = "N", default_value_t = 0)]
    ulps: u64,
    /// Output format: text or json.
    #[arg(long, value_name = "FORMAT", default_value = "text")]
    format: String,
    /// Colour diagnostics: auto, always or never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"])]
    color: String,
}

/// The emulated device's wave sizes.
#[derive(Args, Debug)]
struct DeviceArgs {
    /// The device's preferred lanes per wave (a power of two from 4 to 128):
    /// the wave size of shaders without [WaveSize] (default: 32, or the
    /// supported size nearest to it).
    #[arg(long, value_name = "N")]
    wave_size: Option<u32>,
    /// The wave sizes the device supports: MIN, MAX and the powers of two
    /// between them (MIN and MAX are powers of two from 4 to 128).
    #[arg(long, value_name = "MIN..MAX", default_value = "4..128")]
    wave_sizes: String,
    /// Which supported size to take when a [WaveSize] range excludes the
    /// device's preferred size: nearest, small or large.
    #[arg(long, value_name = "WHICH", default_value = "nearest")]
    prefer_wave_size: String,
    /// What runs the shader: auto (machine code where it pays, the
    /// interpreter elsewhere), native (machine code wherever the shader
    /// gets it) or interpreter. The results are the same, except where
    /// the order groups take turns shows (an append's slots, atomics
    /// whose returned values are used): each engine is deterministic, in
    /// an order of its own.
    #[arg(long, value_name = "ENGINE", default_value = "auto")]
    engine: String,
}

impl DeviceArgs {
    /// Run options for this device.
    fn run_options(&self, threads: usize, step_budget: u64) -> Result<RunOptions, String> {
        let device = self.device()?;
        let most = lockstep::exec::MAX_THREADS;
        if threads > most {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            return Err(format!(
                "--threads {threads}: at most {most} worker threads (this machine has {cores} \
                 cores; 0, the default, means one per core)"
            ));
        }
        Ok(RunOptions {
            wave_size: device.preferred,
            wave_sizes: (device.min, device.max),
            prefer: device.preference,
            threads,
            step_budget,
            engine: self.engine()?,
            ulps: 0,
        })
    }

    fn engine(&self) -> Result<lockstep::Engine, String> {
        match self.engine.as_str() {
            "auto" => Ok(lockstep::Engine::Auto),
            "native" => Ok(lockstep::Engine::Native),
            "interpreter" => Ok(lockstep::Engine::Interpreter),
            other => Err(format!(
                "--engine {other}: expected auto, native or interpreter"
            )),
        }
    }

    fn device(&self) -> Result<lockstep::Device, String> {
        let (min, max): (u32, u32) = self
            .wave_sizes
            .split_once("..")
            .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)))
            .ok_or_else(|| {
                format!(
                    "--wave-sizes: expected MIN..MAX such as 8..64, got '{}'",
                    self.wave_sizes
                )
            })?;
        let preference = match self.prefer_wave_size.as_str() {
            "nearest" => lockstep::WavePreference::Nearest,
            "small" => lockstep::WavePreference::Small,
            "large" => lockstep::WavePreference::Large,
            other => {
                return Err(format!(
                    "--prefer-wave-size: expected nearest, small or large, got '{other}'"
                ));
            }
        };
        // Without --wave-size, the preferred size is 32 moved into the
        // supported range.
        let preferred = self
            .wave_size
            .unwrap_or_else(|| 32u32.clamp(min, max.max(min)));
        let device = lockstep::Device {
            preferred,
            min,
            max,
            preference,
        };
        device.validate().map_err(|e| e.message)?;
        Ok(device)
    }
}

#[derive(Args, Debug)]
struct InfoArgs {
    /// The HLSL compute shader.
    shader: PathBuf,
    #[command(flatten)]
    compile: CompileArgs,
    #[command(flatten)]
    device: DeviceArgs,
    /// Output format: text or json.
    #[arg(long, value_name = "FORMAT", default_value = "text")]
    format: String,
    /// Colour diagnostics: auto, always or never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"])]
    color: String,
}

/// DXC's compile flags, taken from the command line before the rest is
/// parsed (see [`lockstep::dxc`]); `--help` lists them.
#[derive(Args, Debug, Default)]
struct CompileArgs {
    #[arg(skip)]
    flags: lockstep::dxc::DxcFlags,
    /// `--format json`: errors go to standard output as JSON too.
    #[arg(skip)]
    json: bool,
}

/// A draw's second shader, and each stage's entry point and profile.
#[derive(Args, Debug)]
struct StageArgs {
    /// For a graphics pipeline: the pixel shader.
    pixel: Option<PathBuf>,
    /// A draw's vertex-shader entry point (default: the pipeline's Vertex
    /// Entry, else main).
    #[arg(long, value_name = "NAME")]
    vertex_entry: Option<String>,
    /// A draw's pixel-shader entry point (default: the pipeline's Pixel
    /// Entry, else main).
    #[arg(long, value_name = "NAME")]
    pixel_entry: Option<String>,
    /// A draw's vertex-shader profile (default: vs_6_10, or the -T given
    /// when it is a vs_ profile).
    #[arg(long, value_name = "PROFILE")]
    vertex_profile: Option<String>,
    /// A draw's pixel-shader profile (default: ps_6_10, or the -T given
    /// when it is a ps_ profile).
    #[arg(long, value_name = "PROFILE")]
    pixel_profile: Option<String>,
}

impl StageArgs {
    /// An error when a stage flag is given without a pixel shader.
    fn check_compute(&self) -> Result<(), String> {
        let flags = [
            ("--vertex-entry", self.vertex_entry.is_some()),
            ("--pixel-entry", self.pixel_entry.is_some()),
            ("--vertex-profile", self.vertex_profile.is_some()),
            ("--pixel-profile", self.pixel_profile.is_some()),
        ];
        match flags.iter().find(|(_, given)| *given) {
            Some((flag, _)) => Err(format!(
                "{flag} is for a draw: give the pipeline a vertex and a pixel shader (PIPELINE VS.hlsl PS.hlsl)"
            )),
            None => Ok(()),
        }
    }
}

#[derive(Args, Debug)]
struct RunArgs {
    /// The pipeline file (offload-test-suite YAML).
    pipeline: PathBuf,
    /// The HLSL compute shader; for a graphics pipeline, the vertex shader.
    shader: PathBuf,
    #[command(flatten)]
    stages: StageArgs,
    #[command(flatten)]
    compile: CompileArgs,
    #[command(flatten)]
    device: DeviceArgs,
    /// Where the dispatch runs: cpu (Lockstep's engine), or
    /// vulkan[:N|:NAME] for the Vulkan device of that index or with NAME
    /// in its name (default: the first; lavapipe is `llvmpipe`), which
    /// runs the shader's SPIR-V at the device's subgroup size, or at
    /// --wave-size where it can require one. `lockstep devices` lists
    /// them.
    #[arg(long = "device", value_name = "DEVICE", default_value = "cpu")]
    target: String,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    threads: usize,
    /// Loop iterations one wave may run before the run stops with an error.
    #[arg(long, value_name = "N", default_value_t = RunOptions::default().step_budget)]
    max_steps: u64,
    /// Write the buffers to this file instead of standard output (`-`).
    /// With `-r NAME`, a file ending in `.bin` gets the buffer's raw
    /// little-endian bytes, and one ending in `.png` a texture's first mip
    /// level as offloader writes render targets (16-bit RGBA, each float
    /// clamp(floor(v·65536), 0, 65535), top row first).
    #[arg(short = 'o', value_name = "OUT.yaml")]
    output: Option<PathBuf>,
    /// Write only the buffer NAME.
    #[arg(short = 'r', value_name = "NAME")]
    resource: Option<String>,
    /// Take buffer NAME's initial contents from a binary file of
    /// little-endian elements instead of the pipeline's Data.
    #[arg(long = "buffer", value_name = "NAME=FILE")]
    buffers: Vec<String>,
    /// Spell floats with every digit they need to read back bit for bit,
    /// instead of offloader's printf %g (six significant digits).
    #[arg(long)]
    exact: bool,
    /// Run in checked mode and report undefined wave behaviour (exit
    /// status 1 when there is any).
    #[arg(long)]
    check: bool,
    /// Print to standard error how long compiling and running took, the
    /// threads run per second, and whether machine code or the
    /// interpreter ran the shader (and why).
    #[arg(long)]
    stats: bool,
    /// Output format: text (the buffers as YAML, rule failures and
    /// findings on standard error) or json (one document with the wave
    /// size, the buffers with exact values, each rule's outcome, the
    /// findings of --check, and any errors).
    #[arg(long, value_name = "FORMAT", default_value = "text")]
    format: String,
    /// Colour diagnostics: auto, always or never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"])]
    color: String,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (dxc, rest) = lockstep::dxc::split_dxc_flags(&args);
    let help = lockstep::dxc::flags_help();
    let command = <Cli as clap::CommandFactory>::command().mut_subcommands(|c| {
        if c.get_name() == "test" {
            c
        } else {
            c.after_help(help.clone())
        }
    });
    let matches = command.get_matches_from(rest);
    let cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let flags = match lockstep::dxc::parse_dxc_flags(&dxc) {
        Ok(_) if matches!(cli.command, Command::Test(_)) && !dxc.is_empty() => {
            return ExitCode::from(error(format!(
                "{}: compile flags come from each test's %dxc_target line",
                dxc.join(" ")
            )));
        }
        Ok(flags) => flags,
        Err(e) => return ExitCode::from(error(e)),
    };
    let code = match cli.command {
        Command::Run(mut args) => {
            args.compile.flags = flags;
            args.compile.json = args.format == "json";
            run(&args)
        }
        Command::Info(mut args) => {
            args.compile.flags = flags;
            args.compile.json = args.format == "json";
            info(&args)
        }
        Command::Check(mut args) => {
            args.compile.flags = flags;
            args.compile.json = args.format == "json";
            check(&args)
        }
        Command::Test(args) => test(&args),
        Command::Devices => devices(),
        Command::Diff(mut args) => {
            args.compile.flags = flags;
            args.compile.json = args.format == "json";
            diff(&args)
        }
        Command::Spirv(mut args) => {
            args.compile.flags = flags;
            spirv(&args)
        }
        Command::Trace(mut args) => {
            args.compile.flags = flags;
            args.compile.json = args.format == "json";
            trace::trace(&args)
        }
    };
    ExitCode::from(code)
}

fn error(message: impl std::fmt::Display) -> u8 {
    eprintln!("error: {message}");
    EXIT_ERROR
}

fn use_color(when: &str) -> bool {
    match when {
        "always" => true,
        "never" => false,
        _ => std::io::stderr().is_terminal(),
    }
}

fn compile_options(
    args: &CompileArgs,
    pipeline_entry: Option<&str>,
) -> Result<CompileOptions, String> {
    let mut opts = args.flags.options.clone();
    opts.entry = args
        .flags
        .entry
        .clone()
        .or(pipeline_entry.map(str::to_string))
        .unwrap_or_else(|| "main".to_string());
    Ok(opts)
}

std::thread_local! {
    /// How long the last `compile_file` took.
    static COMPILE_TIME: std::cell::Cell<std::time::Duration> = const {
        std::cell::Cell::new(std::time::Duration::ZERO)
    };
}

/// `run --stats`: times, throughput and the engine, on standard error.
fn print_stats(
    shader: &lockstep::Shader,
    pipeline: &lockstep::pipeline::Pipeline,
    output: &lockstep::RunOutput,
    opts: &RunOptions,
    checked: bool,
    ran: std::time::Duration,
) {
    let w = output.wave_size.size;
    let [x, y, z] = pipeline.dispatch;
    let threads = u64::from(x) * u64::from(y) * u64::from(z) * shader.program.group.threads(w);
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
    eprintln!("compile: {:.2} ms", ms(COMPILE_TIME.get()));
    eprintln!("run:     {:.2} ms (buffers in and out included)", ms(ran));
    eprintln!(
        "threads: {threads} at wave size {w}, {:.1} million per second",
        threads as f64 / ran.as_secs_f64().max(1e-9) / 1e6
    );
    if checked {
        eprintln!("engine:  the interpreter, checked");
        return;
    }
    eprintln!("engine:  {}", engine_line(shader, w, opts.engine));
    if shader.program.waits_on_groups() {
        eprintln!("groups:  one at a time, in order: a loop may wait for another group's write");
    }
}

/// Which engine runs `shader` at wave size `w`, and why.
fn engine_line(shader: &lockstep::Shader, w: u32, engine: lockstep::Engine) -> String {
    let report = shader.program.engine_report(w, engine);
    if report.native {
        format!(
            "machine code for the whole shader: {} bytecode instructions, {} of them through the interpreter",
            report.instructions, report.callouts
        )
    } else {
        format!("the interpreter ({})", report.reason.unwrap_or_default())
    }
}

/// `run --stats` for a draw: times, pixels per second and each stage's
/// engine, on standard error.
fn print_draw_stats(
    shaders: &[lockstep::Shader],
    pipeline: &lockstep::pipeline::Pipeline,
    output: &lockstep::RunOutput,
    opts: &RunOptions,
    checked: bool,
    ran: std::time::Duration,
) {
    let w = output.wave_size.size;
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
    eprintln!("compile: {:.2} ms (both stages)", ms(COMPILE_TIME.get()));
    eprintln!("draw:    {:.2} ms (buffers in and out included)", ms(ran));
    let target = pipeline.graphics.as_ref().and_then(|g| {
        let at = pipeline.buffer_index(&g.render_target)?;
        pipeline.buffers[at].output_props
    });
    if let Some(lockstep::pipeline::OutputProps { width, height, .. }) = target {
        let pixels = u64::from(width) * u64::from(height);
        eprintln!(
            "pixels:  {width} x {height} at wave size {w}, {:.1} million per second",
            pixels as f64 / ran.as_secs_f64().max(1e-9) / 1e6
        );
    }
    for (stage, shader) in ["vertex", "pixel"].iter().zip(shaders) {
        let engine = if checked {
            "the interpreter, checked".to_string()
        } else {
            engine_line(shader, w, opts.engine)
        };
        eprintln!("{stage}:{}{engine}", " ".repeat(8 - stage.len()));
    }
}

/// Compiles a shader file, printing warnings (errors under `-WX`); the exit
/// code on failure. Under `--format json` the errors are also printed to
/// standard output as `{"errors": [...]}`.
fn compile_file(
    path: &Path,
    opts: &CompileOptions,
    args: &CompileArgs,
    color: bool,
) -> Result<lockstep::Shader, u8> {
    let source = lockstep::pipeline::read_file(path)
        .map(|bytes| lockstep::decode_source(&bytes))
        .map_err(|e| {
            let message = format!("cannot read shader '{}': {e}", path.display());
            json_error(args, &message);
            error(message)
        })?;
    let name = path.display().to_string();
    let started = std::time::Instant::now();
    let compiled = lockstep::compile(&name, &source, opts, &lockstep::FsLoader);
    COMPILE_TIME.set(started.elapsed());
    match compiled {
        Ok(s) => {
            eprint!(
                "{}",
                lockstep::render_diagnostics(&s.source_map, &s.diagnostics, color)
            );
            if args.flags.warnings_as_errors && !s.diagnostics.is_empty() {
                eprintln!("error: warnings are errors (-WX)");
                if args.json {
                    print_json_errors(&lockstep::diagnostics_json(&s.source_map, &s.diagnostics));
                }
                return Err(EXIT_ERROR);
            }
            Ok(s)
        }
        Err(e) => {
            eprint!("{}", e.render(color));
            if args.json {
                print_json_errors(&lockstep::diagnostics_json(&e.source_map, &e.diagnostics));
            }
            Err(EXIT_ERROR)
        }
    }
}

/// `{"errors": [...]}` on standard output.
fn print_json_errors(errors: &[lockstep::DiagnosticJson]) {
    let json = serde_json::json!({ "errors": errors });
    println!(
        "{}",
        serde_json::to_string_pretty(&json).unwrap_or_default()
    );
}

/// Under `--format json`, an error that has no place in a shader.
fn json_error(args: &CompileArgs, message: &str) {
    if args.json {
        let json = serde_json::json!({ "errors": [{ "severity": "error", "message": message }] });
        println!(
            "{}",
            serde_json::to_string_pretty(&json).unwrap_or_default()
        );
    }
}

fn spirv(args: &SpirvArgs) -> u8 {
    let color = use_color(&args.color);
    if let Some(w) = args.wave_size
        && !(4..=128).contains(&w)
    {
        return error(format!("--wave-size: {w} is not a wave size (4 to 128)"));
    }
    let opts = match compile_options(&args.compile, None) {
        Ok(o) => o,
        Err(e) => return error(e),
    };
    let shader = match compile_file(&args.shader, &opts, &args.compile, color) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let options = lockstep::spirv_backend::Options {
        wave_size: args.wave_size,
        maximal_reconvergence: args.maximal_reconvergence,
        bindings: Vec::new(),
        ..Default::default()
    };
    let module = match lockstep::emit_spirv(&shader, &options) {
        Ok(m) => m,
        Err(e) => {
            eprint!("{}", e.render(color));
            return EXIT_ERROR;
        }
    };
    let output = args.output.clone().unwrap_or_else(|| {
        let stem = args.shader.file_stem().unwrap_or_default();
        PathBuf::from(stem).with_extension("spv")
    });
    if let Err(e) = std::fs::write(&output, module.to_bytes()) {
        return error(format!("cannot write '{}': {e}", output.display()));
    }
    let mut text = format!("{}: {} words\n", output.display(), module.words.len());
    for b in &module.bindings {
        text += &format!(
            "  set {} binding {}: {} ({})\n",
            b.binding.set,
            b.binding.binding,
            b.name,
            if b.uniform {
                "uniform buffer"
            } else {
                "storage buffer"
            }
        );
    }
    if let Some(d) = &module.dims {
        text += &format!(
            "  set {} binding {}: the textures' sizes (storage buffer: width, height, depth or slices, 0 for each texture in this order)\n",
            d.binding.set, d.binding.binding
        );
    }
    if module.partitioned {
        text += "  needs VK_NV_shader_subgroup_partitioned (WaveMatch, WaveMultiPrefix*)\n";
    }
    let _ = std::io::stdout().write_all(text.as_bytes());
    EXIT_PASS
}

fn info(args: &InfoArgs) -> u8 {
    let color = use_color(&args.color);
    let device = match args.device.device() {
        Ok(d) => d,
        Err(e) => return error(e),
    };
    if !matches!(args.format.as_str(), "text" | "json") {
        return error(format!(
            "--format: expected text or json, got '{}'",
            args.format
        ));
    }
    let opts = match compile_options(&args.compile, None) {
        Ok(o) => o,
        Err(e) => return error(e),
    };
    let shader = match compile_file(&args.shader, &opts, &args.compile, color) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let info = lockstep::info(&shader, &device);
    let text = if args.format == "json" {
        serde_json::to_string_pretty(&info).unwrap_or_default() + "\n"
    } else {
        info.render()
    };
    let _ = std::io::stdout().write_all(text.as_bytes());
    if info.wave_size.is_some() {
        EXIT_PASS
    } else {
        EXIT_ERROR
    }
}

/// Prints a run error, pointing into the source when it can.
fn report_run_error(shader: &lockstep::Shader, e: lockstep::RunError, color: bool) -> u8 {
    match e.span.map(|s| Span::new(FileId(s.file), s.start, s.end)) {
        Some(span) => {
            let mut d = Diagnostic::error(span, e.message);
            d.notes = e.notes;
            eprint!(
                "{}",
                lockstep::render_diagnostics(&shader.source_map, &[d], color)
            );
        }
        None => {
            eprintln!("error: {}", e.message);
            for n in &e.notes {
                eprintln!("note: {n}");
            }
        }
    }
    EXIT_ERROR
}

/// A pipeline file's error, at its place in the file; for a file named
/// like a shader, with a note that the pipeline comes first.
fn pipeline_error(path: &Path, e: &lockstep::pipeline::PipelineError) -> String {
    let message = match e.location {
        Some(_) => format!("{}:{e}", path.display()),
        None => format!("{e}"),
    };
    let shader_like = path.extension().is_some_and(|x| {
        ["hlsl", "hlsli", "fx", "vs", "ps", "cs"]
            .iter()
            .any(|s| x.eq_ignore_ascii_case(s))
    });
    if shader_like {
        format!(
            "{message}\nnote: '{}' is read as the pipeline: the pipeline file comes first (PIPELINE SHADER)",
            path.display()
        )
    } else {
        message
    }
}

/// Reads and parses the pipeline, then compiles the shader with the
/// pipeline's entry point unless `-E` names one; the exit code on failure.
fn load_job(
    pipeline: &Path,
    shader: &Path,
    compile: &CompileArgs,
    color: bool,
) -> Result<(lockstep::pipeline::Pipeline, lockstep::Shader), u8> {
    // Read from the file: a large Data list is decoded once the text is
    // dropped.
    let pipeline = lockstep::pipeline::parse_file(pipeline).map_err(|e| {
        let message = pipeline_error(pipeline, &e);
        json_error(compile, &message);
        error(message)
    })?;
    if let Some(g) = &pipeline.graphics {
        let message = format!(
            "this pipeline draws {} vertices from '{}' into '{}': give it a vertex and a pixel shader (lockstep run PIPELINE VS.hlsl PS.hlsl)",
            g.vertex_count,
            g.vertex_buffer.as_deref().unwrap_or("no vertex buffer"),
            g.render_target
        );
        json_error(compile, &message);
        return Err(error(message));
    }
    let opts = compile_options(compile, pipeline.entry.as_deref()).map_err(error)?;
    let shader = compile_file(shader, &opts, compile, color)?;
    Ok((pipeline, shader))
}

fn check(args: &CheckArgs) -> u8 {
    let color = use_color(&args.color);
    if !matches!(args.format.as_str(), "text" | "json") {
        return error(format!(
            "--format: expected text or json, got '{}'",
            args.format
        ));
    }
    let run_opts = match args.device.run_options(args.threads, args.max_steps) {
        Ok(o) => RunOptions {
            ulps: args.ulps,
            ..o
        },
        Err(e) => return error(e),
    };
    if args.stages.pixel.is_some() {
        return check_draw(args, &run_opts, color);
    }
    if let Err(e) = args.stages.check_compute() {
        return error(e);
    }
    let (mut pipeline, shader) = match load_job(&args.pipeline, &args.shader, &args.compile, color)
    {
        Ok(job) => job,
        Err(code) => return code,
    };
    if let Err(code) = load_buffers(&args.buffers, &mut pipeline) {
        return code;
    }
    let bar = progress_bar();
    let mut progress = |done: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    };
    let report = match lockstep::check(&shader, &pipeline, &run_opts, &mut progress) {
        Ok(r) => r,
        Err(e) => {
            bar.finish_and_clear();
            json_error(&args.compile, &e.message);
            return report_run_error(&shader, e, color);
        }
    };
    bar.finish_and_clear();
    if args.format == "json" {
        let text = serde_json::to_string_pretty(&report).unwrap_or_default() + "\n";
        let _ = std::io::stdout().write_all(text.as_bytes());
    } else {
        let _ = std::io::stdout().write_all(report.render(&shader, color).as_bytes());
    }
    if report.is_clean() {
        EXIT_PASS
    } else {
        EXIT_FAIL
    }
}

/// A progress bar on standard error, hidden where that is no terminal.
fn progress_bar() -> indicatif::ProgressBar {
    if std::io::stderr().is_terminal() {
        indicatif::ProgressBar::new(0)
    } else {
        indicatif::ProgressBar::hidden()
    }
}

/// `lockstep check PIPELINE VS PS`: a draw at every wave size and packing.
fn check_draw(args: &CheckArgs, run_opts: &RunOptions, color: bool) -> u8 {
    let (mut pipeline, shaders) = match load_draw(
        &args.pipeline,
        &args.shader,
        &args.stages,
        &args.compile,
        color,
    ) {
        Ok(job) => job,
        Err(code) => return code,
    };
    if let Err(code) = load_buffers(&args.buffers, &mut pipeline) {
        return code;
    }
    let bar = progress_bar();
    let mut progress = |done: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    };
    let report =
        match lockstep::check_draw(&shaders[0], &shaders[1], &pipeline, run_opts, &mut progress) {
            Ok(r) => r,
            Err(e) => {
                bar.finish_and_clear();
                json_error(&args.compile, &e.to_string());
                return report_draw_error(&shaders, e, color);
            }
        };
    bar.finish_and_clear();
    if args.format == "json" {
        let text = serde_json::to_string_pretty(&report).unwrap_or_default() + "\n";
        let _ = std::io::stdout().write_all(text.as_bytes());
    } else {
        let _ = std::io::stdout().write_all(report.render(&shaders[1], color).as_bytes());
    }
    if report.is_clean() {
        EXIT_PASS
    } else {
        EXIT_FAIL
    }
}

fn run(args: &RunArgs) -> u8 {
    if !matches!(args.format.as_str(), "text" | "json") {
        return error(format!(
            "--format: expected text or json, got '{}'",
            args.format
        ));
    }
    if args.stages.pixel.is_some() {
        return run_draw(args);
    }
    if let Err(e) = args.stages.check_compute() {
        return error(e);
    }
    let color = use_color(&args.color);
    let run_opts = match args.device.run_options(args.threads, args.max_steps) {
        Ok(o) => o,
        Err(e) => return error(e),
    };
    let (mut pipeline, shader) = match load_job(&args.pipeline, &args.shader, &args.compile, color)
    {
        Ok(job) => job,
        Err(code) => return code,
    };
    if let Err(code) = prepare_buffers(args, &mut pipeline) {
        return code;
    }
    if args.target != "cpu" {
        return run_on_device(args, &pipeline, &shader, color);
    }
    let started = std::time::Instant::now();
    let result = if args.check {
        lockstep::run_checked(&shader, &pipeline, &run_opts).map(|(o, r)| (o, Some(r)))
    } else {
        lockstep::run(&shader, &pipeline, &run_opts).map(|o| (o, None))
    };
    // `--engine native` where the shader gets no machine code: say so, and why.
    if let (lockstep::Engine::Native, false, Ok((output, _))) =
        (run_opts.engine, args.check, &result)
    {
        let report = shader
            .program
            .engine_report(output.wave_size.size, run_opts.engine);
        if !report.native {
            eprintln!(
                "note: --engine native: the interpreter ran this shader ({})",
                report.reason.unwrap_or_default()
            );
        }
    }
    if let (true, Ok((output, _))) = (args.stats, &result) {
        print_stats(
            &shader,
            &pipeline,
            output,
            &run_opts,
            args.check,
            started.elapsed(),
        );
    }
    let (output, report) = match result {
        Ok(o) => o,
        Err(e) => {
            json_error(&args.compile, &e.message);
            return report_run_error(&shader, e, color);
        }
    };
    finish_run(args, &pipeline, &output, report.as_ref(), &shader, color)
}

/// The Vulkan device a `--device` value names: `vulkan` (the first),
/// `vulkan:N` or `vulkan:NAME`.
fn vulkan_selector(target: &str) -> Result<&str, String> {
    match target.strip_prefix("vulkan") {
        Some("") => Ok(""),
        Some(rest) if rest.starts_with(':') => Ok(&rest[1..]),
        _ => Err(format!(
            "--device: expected cpu, vulkan, vulkan:N or vulkan:NAME, got '{target}'"
        )),
    }
}

/// The Vulkan device `run --device` names, and how to run on it; the exit
/// code on failure.
fn open_device(
    args: &RunArgs,
) -> Result<(lockstep::vulkan_device::Device, lockstep::VulkanOptions), u8> {
    let selector = vulkan_selector(&args.target).map_err(error)?;
    if args.check {
        return Err(error(
            "--check runs in Lockstep's engine: leave out --device, or use lockstep check",
        ));
    }
    let device = lockstep::vulkan_device::Device::open(selector).map_err(|e| {
        json_error(&args.compile, &e.0);
        error(e)
    })?;
    let opts = lockstep::VulkanOptions {
        wave_size: args.device.wave_size,
        step_budget: args.max_steps,
        runs: 1,
    };
    Ok((device, opts))
}

/// `lockstep run --device vulkan…`: the dispatch on a Vulkan device.
fn run_on_device(
    args: &RunArgs,
    pipeline: &lockstep::pipeline::Pipeline,
    shader: &lockstep::Shader,
    color: bool,
) -> u8 {
    let (device, opts) = match open_device(args) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let started = std::time::Instant::now();
    let result = lockstep::run_vulkan(shader, pipeline, &device, &opts);
    let run = match result {
        Ok(r) => r,
        Err(e) => {
            json_error(&args.compile, &e.message);
            return report_run_error(shader, e, color);
        }
    };
    if args.stats {
        let info = &device.info;
        eprintln!(
            "device:   {} ({}), Vulkan {}",
            info.name,
            info.driver.trim(),
            info.api_version
        );
        eprintln!(
            "compile:  {:.2} ms",
            COMPILE_TIME.get().as_secs_f64() * 1000.0
        );
        eprintln!(
            "dispatch: {:.3} ms on the device, {:.2} ms in all (compiling the pipeline and copying buffers included)",
            run.dispatch_times
                .iter()
                .sum::<std::time::Duration>()
                .as_secs_f64()
                * 1000.0,
            started.elapsed().as_secs_f64() * 1000.0
        );
        eprintln!("waves:    {} lanes", run.output.wave_size.size);
    }
    finish_run(args, pipeline, &run.output, None, shader, color)
}

/// `lockstep diff`: the engine against a Vulkan device.
fn diff(args: &DiffArgs) -> u8 {
    if !matches!(args.format.as_str(), "text" | "json") {
        return error(format!(
            "--format: expected text or json, got '{}'",
            args.format
        ));
    }
    let color = use_color(&args.color);
    let selector = match vulkan_selector(&args.target) {
        Ok(s) => s,
        Err(e) => return error(e),
    };
    let opts = lockstep::DiffOptions {
        wave_size: args.wave_size,
        ulps: args.ulps,
        tolerance: args.tolerance,
        threads: args.threads,
        step_budget: args.max_steps,
    };
    let open = || {
        lockstep::vulkan_device::Device::open(selector).map_err(|e| {
            json_error(&args.compile, &e.0);
            error(e)
        })
    };
    let (mut pipeline, shaders) = match load_stages(
        &args.pipeline,
        &args.shader,
        &args.stages,
        &args.compile,
        color,
    ) {
        Ok(job) => job,
        Err(code) => return code,
    };
    if let Err(code) = load_buffers(&args.buffers, &mut pipeline) {
        return code;
    }
    let device = match open() {
        Ok(d) => d,
        Err(code) => return code,
    };
    let (report, shader) = match shaders.as_slice() {
        [vs, ps] => match lockstep::diff_draw(vs, ps, &pipeline, &device, &opts) {
            Ok(r) => (r, shaders.into_iter().nth(1)),
            Err(e) => {
                json_error(&args.compile, &e.to_string());
                return report_draw_error(&shaders, e, color);
            }
        },
        _ => match lockstep::diff(&shaders[0], &pipeline, &device, &opts) {
            Ok(r) => (r, shaders.into_iter().next()),
            Err(e) => {
                json_error(&args.compile, &e.message);
                return report_run_error(&shaders[0], e, color);
            }
        },
    };
    let Some(shader) = shader else {
        return EXIT_ERROR;
    };
    let text = if args.format == "json" {
        serde_json::to_string_pretty(&report).unwrap_or_default() + "\n"
    } else {
        report.render(&shader, color)
    };
    let _ = std::io::stdout().write_all(text.as_bytes());
    if report.differs() {
        EXIT_FAIL
    } else {
        EXIT_PASS
    }
}

/// `lockstep run PIPELINE VS PS --device vulkan…`: the draw on a Vulkan
/// device.
fn draw_on_device(
    args: &RunArgs,
    pipeline: &lockstep::pipeline::Pipeline,
    shaders: &[lockstep::Shader],
    color: bool,
) -> u8 {
    let (device, opts) = match open_device(args) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let run = match lockstep::draw_vulkan(&shaders[0], &shaders[1], pipeline, &device, &opts) {
        Ok(r) => r,
        Err(e) => {
            json_error(&args.compile, &e.message);
            // A span is in the shader of the stage the message names.
            let at = usize::from(!e.message.starts_with("a vertex-shader"));
            return report_run_error(&shaders[at], e, color);
        }
    };
    if args.stats {
        let info = &device.info;
        eprintln!(
            "device:   {} ({}), Vulkan {}",
            info.name,
            info.driver.trim(),
            info.api_version
        );
        eprintln!(
            "draw:     {:.3} ms on the device",
            run.dispatch_times
                .iter()
                .sum::<std::time::Duration>()
                .as_secs_f64()
                * 1000.0
        );
    }
    finish_run(args, pipeline, &run.output, None, &shaders[1], color)
}

/// `lockstep devices`: the Vulkan devices and their subgroup sizes.
fn devices() -> u8 {
    let list = match lockstep::vulkan_device::devices() {
        Ok(l) => l,
        Err(e) => return error(e),
    };
    if list.is_empty() {
        println!("no Vulkan device");
    }
    for d in list {
        let (lo, hi) = d.subgroup_sizes;
        let mut extras = Vec::new();
        if d.partitioned {
            extras.push("partitioned subgroups");
        }
        if d.maximal_reconvergence {
            extras.push("maximal reconvergence");
        }
        if d.derivative_quads {
            extras.push("compute quads");
        }
        println!(
            "vulkan:{}  {} ({}), Vulkan {}, subgroups of {}{}{}",
            d.index,
            d.name,
            d.driver.trim(),
            d.api_version,
            d.subgroup_size,
            if lo != hi {
                format!(" ({lo} to {hi} on request)")
            } else {
                String::new()
            },
            if extras.is_empty() {
                String::new()
            } else {
                format!("; {}", extras.join(", "))
            }
        );
    }
    EXIT_PASS
}

/// The compile options of one stage of a draw: the shared DXC flags, then
/// the stage's entry point and profile.
fn stage_options(
    stages: &StageArgs,
    compile: &CompileArgs,
    stage: lockstep::ir::Stage,
    pipeline_entry: Option<&str>,
) -> Result<CompileOptions, String> {
    use lockstep::ir::Stage;
    let (entry, profile, flag) = match stage {
        Stage::Vertex => (
            &stages.vertex_entry,
            &stages.vertex_profile,
            "--vertex-profile",
        ),
        _ => (
            &stages.pixel_entry,
            &stages.pixel_profile,
            "--pixel-profile",
        ),
    };
    let mut opts = compile.flags.options.clone();
    if compile.flags.entry.is_some() {
        return Err(
            "-E names one entry point, and a draw has two: use --vertex-entry and --pixel-entry"
                .to_string(),
        );
    }
    opts.entry = entry
        .clone()
        .or(pipeline_entry.map(str::to_string))
        .unwrap_or_else(|| "main".to_string());
    opts.stage = stage;
    let given = compile
        .flags
        .profile
        .as_ref()
        .filter(|p| p.starts_with(stage.prefix()));
    match profile.as_ref().or(given) {
        Some(p) => {
            let (s, model) =
                lockstep::parse_stage_profile(p).map_err(|e| format!("{flag}: {e}"))?;
            if s != stage {
                return Err(format!(
                    "{flag} {p}: the {} shader needs a {}_6_x profile",
                    stage.name(),
                    stage.prefix()
                ));
            }
            opts.shader_model = model;
        }
        None => opts.shader_model = lockstep::MAX_SHADER_MODEL,
    }
    Ok(opts)
}

/// Reads a graphics pipeline and compiles its two shaders; the exit code
/// on failure.
/// The pipeline and its shaders: one for a dispatch, the vertex and the
/// pixel shader for a draw (when `stages` names a pixel shader).
fn load_stages(
    pipeline: &Path,
    shader: &Path,
    stages: &StageArgs,
    compile: &CompileArgs,
    color: bool,
) -> Result<(lockstep::pipeline::Pipeline, Vec<lockstep::Shader>), u8> {
    if stages.pixel.is_some() {
        return load_draw(pipeline, shader, stages, compile, color);
    }
    stages.check_compute().map_err(error)?;
    let (pipeline, shader) = load_job(pipeline, shader, compile, color)?;
    Ok((pipeline, vec![shader]))
}

fn load_draw(
    pipeline_path: &Path,
    vertex: &Path,
    stages: &StageArgs,
    compile: &CompileArgs,
    color: bool,
) -> Result<(lockstep::pipeline::Pipeline, Vec<lockstep::Shader>), u8> {
    use lockstep::ir::Stage;
    let pipeline = lockstep::pipeline::parse_file(pipeline_path).map_err(|e| {
        let message = pipeline_error(pipeline_path, &e);
        json_error(compile, &message);
        error(message)
    })?;
    let Some(g) = pipeline.graphics.clone() else {
        let message = format!(
            "{} is a compute pipeline: it takes one shader (PIPELINE SHADER)",
            pipeline_path.display()
        );
        json_error(compile, &message);
        return Err(error(message));
    };
    let pixel = stages.pixel.as_deref().unwrap_or(vertex);
    let mut shaders = Vec::new();
    for (path, stage, entry) in [
        (vertex, Stage::Vertex, g.vertex_entry.as_deref()),
        (pixel, Stage::Pixel, g.pixel_entry.as_deref()),
    ] {
        let opts = stage_options(stages, compile, stage, entry).map_err(|e| {
            json_error(compile, &e);
            error(e)
        })?;
        shaders.push(compile_file(path, &opts, compile, color)?);
    }
    Ok((pipeline, shaders))
}

/// Prints a draw's error against the shader of the stage it came from.
fn report_draw_error(shaders: &[lockstep::Shader], e: lockstep::DrawError, color: bool) -> u8 {
    let shader = if e.stage == Some(lockstep::ir::Stage::Vertex) {
        &shaders[0]
    } else {
        &shaders[1]
    };
    let mut inner = e.error;
    if let Some(stage) = e.stage {
        inner.message = format!("in the {} shader: {}", stage.name(), inner.message);
    }
    report_run_error(shader, inner, color)
}

/// `lockstep run PIPELINE VS PS`: a draw.
fn run_draw(args: &RunArgs) -> u8 {
    let color = use_color(&args.color);
    let run_opts = match args.device.run_options(args.threads, args.max_steps) {
        Ok(o) => o,
        Err(e) => return error(e),
    };
    let (mut pipeline, shaders) = match load_draw(
        &args.pipeline,
        &args.shader,
        &args.stages,
        &args.compile,
        color,
    ) {
        Ok(job) => job,
        Err(code) => return code,
    };
    let (vs, ps) = (&shaders[0], &shaders[1]);
    if let Err(code) = prepare_buffers(args, &mut pipeline) {
        return code;
    }
    if args.target != "cpu" {
        return draw_on_device(args, &pipeline, &shaders, color);
    }
    let started = std::time::Instant::now();
    let result = if args.check {
        lockstep::draw_checked(vs, ps, &pipeline, &run_opts).map(|(o, r)| (o, Some(r)))
    } else {
        lockstep::draw(vs, ps, &pipeline, &run_opts).map(|o| (o, None))
    };
    let (output, report) = match result {
        Ok(o) => o,
        Err(e) => {
            json_error(&args.compile, &e.to_string());
            return report_draw_error(&shaders, e, color);
        }
    };
    if args.stats {
        print_draw_stats(
            &shaders,
            &pipeline,
            &output,
            &run_opts,
            args.check,
            started.elapsed(),
        );
    }
    finish_run(args, &pipeline, &output, report.as_ref(), ps, color)
}

/// Applies `--buffer` and checks that `-r` names a buffer; the exit code
/// on failure.
fn prepare_buffers(args: &RunArgs, pipeline: &mut lockstep::pipeline::Pipeline) -> Result<(), u8> {
    load_buffers(&args.buffers, pipeline)?;
    if let Some(name) = &args.resource
        && pipeline.buffer_index(name).is_none()
    {
        let message = format!("-r {name}: the pipeline has no buffer named `{name}`");
        json_error(&args.compile, &message);
        return Err(error(message));
    }
    Ok(())
}

/// After a run or a draw: the JSON document, or the buffers, the rules'
/// outcomes and the findings of `--check` (rendered against `shader`);
/// the exit code.
fn finish_run(
    args: &RunArgs,
    pipeline: &lockstep::pipeline::Pipeline,
    output: &lockstep::RunOutput<'_>,
    report: Option<&lockstep::CheckReport>,
    shader: &lockstep::Shader,
    color: bool,
) -> u8 {
    if args.compile.json {
        return run_json(args, pipeline, output, report);
    }
    if let Err(code) = write_buffers(args, pipeline, &output.contents) {
        return code;
    }
    for outcome in &output.outcomes {
        eprint!("{}", outcome.render());
        if !outcome.render().ends_with('\n') {
            eprintln!();
        }
    }
    if let Some(report) = report {
        eprint!("{}", report.render(shader, color));
        if !report.is_clean() {
            return EXIT_FAIL;
        }
    }
    if output.passed() {
        EXIT_PASS
    } else {
        EXIT_FAIL
    }
}

/// `run --format json`: one document with the wave size, the buffers (or
/// the one `-r` names) with exact values, the rules' outcomes and the
/// findings, written to `-o` or standard output.
fn run_json(
    args: &RunArgs,
    pipeline: &lockstep::pipeline::Pipeline,
    output: &lockstep::RunOutput<'_>,
    report: Option<&lockstep::CheckReport>,
) -> u8 {
    use serde_json::{Value, json};
    // Integers and finite floats as numbers; inf, nan and hex as strings.
    let value = |text: String| -> Value {
        if let Ok(i) = text.parse::<i64>() {
            return json!(i);
        }
        if let Ok(u) = text.parse::<u64>() {
            return json!(u);
        }
        match text.parse::<f64>() {
            Ok(f) if f.is_finite() && !text.starts_with("0x") => json!(f),
            _ => json!(text),
        }
    };
    let buffers: Vec<Value> = pipeline
        .buffers
        .iter()
        .zip(&output.contents)
        .filter(|(b, _)| args.resource.as_ref().is_none_or(|r| *r == b.name))
        .map(|(b, bytes)| {
            let data: Vec<Value> = lockstep::pipeline::element_strings(b.format, bytes)
                .into_iter()
                .map(value)
                .collect();
            json!({ "name": b.name, "format": b.format.to_string(), "data": data })
        })
        .collect();
    let results: Vec<Value> = output
        .outcomes
        .iter()
        .map(|o| {
            json!({
                "name": o.name,
                "passed": o.passed,
                "compared": o.compared,
                "mismatches": o.total_mismatches,
                "message": o.render().trim_end(),
            })
        })
        .collect();
    let findings = report.map(|r| serde_json::to_value(r).unwrap_or_default());
    let document = json!({
        "wave_size": output.wave_size.size,
        "buffers": buffers,
        "results": results,
        "findings": findings,
        "errors": [],
    });
    let text = serde_json::to_string_pretty(&document).unwrap_or_default() + "\n";
    let written = match &args.output {
        Some(path) if path.as_os_str() != "-" => std::fs::write(path, &text)
            .map_err(|e| error(format!("cannot write '{}': {e}", path.display()))),
        _ => {
            let _ = std::io::stdout().write_all(text.as_bytes());
            Ok(())
        }
    };
    if let Err(code) = written {
        return code;
    }
    let clean = report.is_none_or(lockstep::CheckReport::is_clean);
    if output.passed() && clean {
        EXIT_PASS
    } else {
        EXIT_FAIL
    }
}

/// Where LLVM's FileCheck is: the flag, `$FILECHECK`, the PATH, or the
/// newest of Debian's LLVM installations.
fn find_filecheck(flag: Option<&Path>) -> Option<PathBuf> {
    if let Some(path) = flag {
        return Some(path.to_path_buf());
    }
    if let Some(path) = std::env::var_os("FILECHECK") {
        return Some(PathBuf::from(path));
    }
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("FileCheck"))
            .find(|p| p.is_file())
    });
    on_path.or_else(|| {
        let mut installed: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib")
            .ok()?
            .filter_map(|e| {
                let name = e.ok()?.file_name().into_string().ok()?;
                let version = name.strip_prefix("llvm-")?.parse().ok()?;
                let path = Path::new("/usr/lib").join(&name).join("bin/FileCheck");
                path.is_file().then_some((version, path))
            })
            .collect();
        installed.sort();
        installed.pop().map(|(_, path)| path)
    })
}

/// Runs FileCheck at `path` with the offloader's output on its standard
/// input.
fn filecheck_runner(path: PathBuf) -> lockstep::FileCheck {
    lockstep::FileCheck(std::sync::Arc::new(move |args: &[String], input: &str| {
        use std::process::{Command, Stdio};
        let mut child = Command::new(&path)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run FileCheck '{}': {e}", path.display()))?;
        if let Some(mut stdin) = child.stdin.take() {
            // FileCheck may stop reading early; its verdict says why.
            let _ = stdin.write_all(input.as_bytes());
        }
        let output = child
            .wait_with_output()
            .map_err(|e| format!("FileCheck '{}': {e}", path.display()))?;
        if output.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&output.stderr).into_owned())
        }
    }))
}

/// Writes the buffers after a run where `-o` and `-r` say, as YAML (or raw
/// bytes for `-r NAME -o FILE.bin`).
fn write_buffers(
    args: &RunArgs,
    pipeline: &lockstep::pipeline::Pipeline,
    contents: &[impl AsRef<[u8]>],
) -> Result<(), u8> {
    use lockstep::pipeline::{Style, render_buffer, render_buffers};
    let style = if args.exact {
        Style::Exact
    } else {
        Style::Offloader
    };
    let extension = args
        .output
        .as_ref()
        .and_then(|p| p.extension())
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let extension = extension.as_deref();
    if args.resource.is_none()
        && let Some(raw @ ("bin" | "png")) = extension
    {
        return Err(error(format!(
            "-o {}: a .{raw} file holds one buffer: name it with -r NAME (without -r, every buffer is written as YAML)",
            args.output
                .as_ref()
                .map_or(String::new(), |p| p.display().to_string())
        )));
    }
    let bytes = match &args.resource {
        Some(name) => {
            let index = pipeline.buffer_index(name).ok_or_else(|| {
                error(format!(
                    "-r {name}: the pipeline has no buffer named `{name}`"
                ))
            })?;
            let data = contents
                .get(index)
                .map_or(pipeline.buffers[index].data.as_slice(), AsRef::as_ref);
            if extension == Some("bin") {
                data.to_vec()
            } else if extension == Some("png") {
                lockstep::texture_png(&pipeline.buffers[index], data)
                    .map_err(|e| error(format!("-o: {e}")))?
            } else {
                render_buffer(&pipeline.buffers[index], data, style).into_bytes()
            }
        }
        None => render_buffers(pipeline, contents, style).into_bytes(),
    };
    match &args.output {
        Some(path) if path.as_os_str() != "-" => std::fs::write(path, &bytes)
            .map_err(|e| error(format!("cannot write '{}': {e}", path.display()))),
        _ => {
            let _ = std::io::stdout().write_all(&bytes);
            Ok(())
        }
    }
}

/// Applies `--buffer NAME=FILE`: binary initial contents.
fn load_buffers(specs: &[String], pipeline: &mut lockstep::pipeline::Pipeline) -> Result<(), u8> {
    for spec in specs {
        let Some((name, path)) = spec.split_once('=') else {
            return Err(error(format!(
                "--buffer {spec}: expected NAME=FILE, such as --buffer In=in.bin"
            )));
        };
        let bytes = lockstep::pipeline::read_file(Path::new(path))
            .map_err(|e| error(format!("--buffer {spec}: cannot read '{path}': {e}")))?;
        pipeline
            .replace_data(name, bytes)
            .map_err(|e| error(format!("--buffer {spec}: {e}")))?;
    }
    Ok(())
}

/// The `.test` files under `path`: the file itself, or a directory's
/// `*.test` files, recursively, each directory once however many links
/// lead to it.
fn collect_tests(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    collect_tests_in(path, out, &mut std::collections::HashSet::new())
}

fn collect_tests_in(
    path: &Path,
    out: &mut Vec<PathBuf>,
    seen: &mut std::collections::HashSet<PathBuf>,
) -> std::io::Result<()> {
    if !path.is_dir() {
        std::fs::metadata(path)?;
        out.push(path.to_path_buf());
        return Ok(());
    }
    if !seen.insert(std::fs::canonicalize(path)?) {
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for entry in entries {
        if entry.is_dir() {
            collect_tests_in(&entry, out, seen)?;
        } else if entry.extension().is_some_and(|e| e == "test") {
            out.push(entry);
        }
    }
    Ok(())
}

fn test(args: &TestArgs) -> u8 {
    let run = match args.device.run_options(args.threads, args.max_steps) {
        Ok(o) => o,
        Err(e) => return error(e),
    };
    let json = match args.format.as_str() {
        "text" => false,
        "json" => true,
        other => return error(format!("--format: expected text or json, got '{other}'")),
    };
    let mut files = Vec::new();
    for path in &args.paths {
        if let Err(e) = collect_tests(path, &mut files) {
            return error(format!("cannot read '{}': {e}", path.display()));
        }
    }
    if files.is_empty() {
        return error("no .test files found");
    }
    let vulkan = if args.target == "cpu" {
        None
    } else {
        let selector = match vulkan_selector(&args.target) {
            Ok(s) => s,
            Err(e) => return error(e),
        };
        match lockstep::vulkan_device::Device::open(selector) {
            Ok(d) => Some(std::sync::Arc::new(d)),
            Err(e) => return error(e),
        }
    };
    let opts = lockstep::TestOptions {
        run,
        filecheck: find_filecheck(args.filecheck.as_deref()).map(filecheck_runner),
        vulkan,
    };
    let mut summary = lockstep::TestSummary::default();
    let mut results = Vec::new();
    let mut stdout = std::io::stdout().lock();
    for file in &files {
        let name = file.display().to_string();
        let outcome = match std::fs::read(file) {
            Ok(bytes) => {
                let text = lockstep::decode_source(&bytes);
                lockstep::run_test_file(&name, &text, &lockstep::FsLoader, &opts)
            }
            Err(e) => lockstep::TestOutcome::Fail(format!("cannot read the test: {e}")),
        };
        summary.add(&outcome);
        if json {
            results.push(serde_json::json!({
                "path": name,
                "result": outcome.label(),
                "reason": outcome.reason(),
            }));
            continue;
        }
        let mut line = format!("{}: {name}", outcome.label());
        if let lockstep::TestOutcome::Fail(reason) | lockstep::TestOutcome::Skip(reason) = &outcome
        {
            let mut lines = reason.trim_end().lines();
            line.push_str(&format!(": {}", lines.next().unwrap_or("")));
            for rest in lines {
                line.push_str(&format!("\n  {rest}"));
            }
        }
        let _ = writeln!(stdout, "{}", line.trim_end());
    }
    let _ = if json {
        let report = serde_json::json!({
            "tests": results,
            "passed": summary.passed,
            "failed": summary.failed,
            "skipped": summary.skipped,
        });
        writeln!(
            stdout,
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        )
    } else {
        writeln!(stdout, "{summary}")
    };
    if summary.failed > 0 {
        EXIT_FAIL
    } else {
        EXIT_PASS
    }
}
