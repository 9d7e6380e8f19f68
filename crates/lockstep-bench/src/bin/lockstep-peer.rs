//! `lockstep-peer`: the kernels of the benchmark suite on Lockstep and on a
//! Vulkan driver (Mesa's lavapipe), side by side, at full size, in one
//! process and with the same thread count. Lockstep runs at the driver's
//! subgroup size; both results pass the suite's checks before anything is
//! timed. `scripts/peer.sh` compiles the SPIR-V and sets up lavapipe.
//!
//! ```sh
//! lockstep-peer [--kernel NAME] [--threads N] [--runs N] [--spirv-dir DIR] [--device NAME]
//! ```
//!
//! Exit status: 0 when every result was right, 1 when one was wrong, 2 on
//! a usage, SPIR-V or Vulkan error.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

use clap::Parser;
use lockstep::{BufferContents, RunOptions, Shader};
use lockstep_bench::report::{self, Row};
use lockstep_bench::suite::{self, Case, Kernel};
use lockstep_bench::vulkan::{self, Context};
use lockstep_bench::{probe, spirv};

#[derive(Parser)]
#[command(
    name = "lockstep-peer",
    about = "Times the benchmark kernels on Lockstep and on a Vulkan driver (lavapipe)"
)]
struct Args {
    /// Run only this kernel.
    #[arg(long, value_name = "NAME")]
    kernel: Option<String>,
    /// Worker threads of both engines: Lockstep's `RunOptions::threads`,
    /// and lavapipe's LP_NUM_THREADS (which must equal it when set).
    /// Default: LP_NUM_THREADS, else one per core.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Timed runs of each engine per kernel (after one warm-up run); the
    /// median is reported.
    #[arg(long, value_name = "N", default_value_t = 5)]
    runs: usize,
    /// Where the kernels' SPIR-V is (`<kernel>.spv`, `prefix_probe.spv`).
    #[arg(long, value_name = "DIR", default_value = "target/peer")]
    spirv_dir: PathBuf,
    /// The Vulkan device to use: the first whose name contains this.
    #[arg(long, value_name = "NAME", default_value = "llvmpipe")]
    device: String,
    /// Interpret Lockstep's bytecode instead of running native code.
    #[arg(long)]
    interpret: bool,
}

const PEER: &str = "lavapipe";

/// The system allocator, counting the bytes live and their peak, so that
/// the peak memory of a Lockstep run can be compared with its buffers.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards to `System` with the same arguments; the
// counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(live, Relaxed);
        }
        p
    }
    // Forwarded, not left to the default (`alloc` then a write of zeros):
    // a large zeroed allocation is then fresh pages nothing has touched,
    // as in a program without this allocator.
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc_zeroed`'s contract.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(live, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller upholds `GlobalAlloc::dealloc`'s contract.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                let live =
                    LIVE.fetch_add(new_size - layout.size(), Relaxed) + new_size - layout.size();
                PEAK.fetch_max(live, Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` and returns its result with the peak of live heap bytes above
/// the level when it started.
fn peak_heap<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let out = f();
    (out, PEAK.load(Relaxed).saturating_sub(base))
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("lockstep-peer: {e}");
            ExitCode::from(2)
        }
    }
}

/// The thread count both engines use: `--threads` and `LP_NUM_THREADS`
/// must agree when both are given.
fn thread_count(flag: Option<usize>, env: Option<&str>) -> Result<usize, String> {
    let env = env
        .map(|v| {
            v.trim()
                .parse::<usize>()
                .map_err(|_| format!("LP_NUM_THREADS={v} is not a number"))
        })
        .transpose()?;
    let n = match (flag, env) {
        (Some(a), Some(b)) if a != b => {
            return Err(format!(
                "--threads {a} differs from LP_NUM_THREADS={b}: both engines must use the \
                 same thread count"
            ));
        }
        (Some(n), _) | (None, Some(n)) => n,
        (None, None) => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    if n == 0 {
        return Err("the thread count must be at least 1".to_string());
    }
    Ok(n)
}

fn read_spirv(dir: &Path, name: &str) -> Result<Vec<u32>, String> {
    let path = dir.join(format!("{name}.spv"));
    let bytes = std::fs::read(&path).map_err(|e| {
        format!(
            "{}: {e} (scripts/peer.sh compiles the kernels there)",
            path.display()
        )
    })?;
    spirv::words_of(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

fn run(args: &Args) -> Result<bool, String> {
    let kernels = suite::select(args.kernel.as_deref())?;
    if args.runs == 0 {
        return Err("--runs must be at least 1".to_string());
    }
    let env = std::env::var("LP_NUM_THREADS").ok();
    let threads = thread_count(args.threads, env.as_deref())?;
    if env.is_none() {
        // SAFETY: no other thread runs yet; the driver reads the variable
        // when the instance is created below.
        unsafe { std::env::set_var("LP_NUM_THREADS", threads.to_string()) };
    }

    let ctx = Context::new(&args.device).map_err(|e| e.to_string())?;
    let info = &ctx.info;
    let wave_size = info.subgroup_size;
    println!("Vulkan device: {} (Vulkan {})", info.name, info.api_version);
    if !info.driver.is_empty() {
        println!("Driver: {}", info.driver);
    }
    println!(
        "Subgroup size: {wave_size}; operations {:?}; stages {:?}",
        info.subgroup_operations, info.subgroup_stages
    );
    println!(
        "Threads: {threads} (LP_NUM_THREADS={threads}, Lockstep RunOptions::threads = {threads}); \
         Lockstep wave size {wave_size}; median of {} warm runs each, after one warm-up run",
        args.runs
    );
    if !(4..=128).contains(&wave_size) || !wave_size.is_power_of_two() {
        return Err(format!(
            "subgroup size {wave_size}: Lockstep's wave sizes are powers of two from 4 to 128"
        ));
    }
    let opts = RunOptions {
        wave_size,
        threads,
        engine: if args.interpret {
            lockstep::Engine::Interpreter
        } else {
            lockstep::Engine::Auto
        },
        ..RunOptions::default()
    };

    let probe_path = args.spirv_dir.join("prefix_probe.spv");
    if probe_path.exists() {
        run_probe(&ctx, &args.spirv_dir, &opts)?;
    }

    let mut rows = Vec::new();
    let mut notes = Vec::new();
    let mut all_right = true;
    for kernel in kernels {
        let (row, kernel_notes, right) = compare(&ctx, kernel, &opts, args)?;
        rows.push(row);
        notes.extend(kernel_notes);
        all_right &= right;
    }
    println!();
    println!("{}", report::header(PEER));
    for row in &rows {
        println!("{}", row.render());
    }
    if let Some(mean) = report::geomean_row(&rows) {
        println!("{mean}");
    }
    if !notes.is_empty() {
        println!();
        for note in notes {
            println!("- {note}");
        }
    }
    Ok(all_right)
}

/// Runs the prefix probe on both engines and prints what the SPIR-V does.
fn run_probe(ctx: &Context, dir: &Path, opts: &RunOptions) -> Result<(), String> {
    let pipeline = probe::pipeline(4096);
    let shader = probe::compile()?;
    let ours = lockstep::run(&shader, &pipeline, opts)
        .map_err(|e| format!("prefix_probe on Lockstep: {e}"))?
        .contents;
    let words = read_spirv(dir, "prefix_probe")?;
    let mut kernel = vulkan::Kernel::new(ctx, &words, &pipeline)
        .map_err(|e| format!("prefix_probe on {PEER}: {e}"))?;
    let theirs = kernel
        .run(&pipeline.buffers)
        .map_err(|e| format!("prefix_probe on {PEER}: {e}"))?;
    println!();
    println!("Wave prefix intrinsics as compiled to SPIR-V (no workaround), on {PEER}:");
    for (intrinsic, verdict) in probe::INTRINSICS
        .iter()
        .zip(probe::compare(&pipeline, &ours, &theirs))
    {
        println!("- {}: {verdict}", intrinsic.name());
    }
    Ok(())
}

fn lockstep_run<'c>(
    shader: &Shader,
    case: &'c Case,
    opts: &RunOptions,
) -> Result<Vec<BufferContents<'c>>, String> {
    let out = lockstep::run(shader, &case.pipeline, opts).map_err(|e| e.to_string())?;
    if out.wave_size.size != opts.wave_size {
        return Err(format!(
            "ran at wave size {}, not {}",
            out.wave_size.size, opts.wave_size
        ));
    }
    Ok(out.contents)
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let out = f();
    (out, start.elapsed())
}

/// One kernel on both engines: the row, notes for below the table, and
/// whether every result was right.
fn compare(
    ctx: &Context,
    kernel: &Kernel,
    opts: &RunOptions,
    args: &Args,
) -> Result<(Row, Vec<String>, bool), String> {
    let name = kernel.name;
    eprintln!("{name}: building the data");
    let case = kernel.full();
    let shader = kernel.compile()?;
    let mut row = Row {
        kernel: name.to_string(),
        elements: case.elements,
        lockstep: None,
        peer: None,
        peer_dispatch: None,
    };
    let mut notes = Vec::new();

    let mut peer = match kernel.no_spirv {
        Some(reason) => {
            notes.push(format!("`{name}`: Lockstep alone ({reason})."));
            None
        }
        None => {
            let words = read_spirv(&args.spirv_dir, name)?;
            let groups = case.pipeline.dispatch;
            let max = ctx.info.max_group_count;
            if (0..3).any(|d| groups[d] > max[d]) {
                notes.push(format!(
                    "`{name}`: the dispatch of {groups:?} groups exceeds the device's \
                     maxComputeWorkGroupCount {max:?}; {PEER} runs it as it is, and the \
                     check decides."
                ));
            }
            let vk = vulkan::Kernel::new(ctx, &words, &case.pipeline)
                .map_err(|e| format!("{name} on {PEER}: {e}"))?;
            Some(vk)
        }
    };

    // Warm-up runs, checked: the first dispatch on the peer compiles the
    // shader.
    let ((ours, t), peak) = peak_heap(|| timed(|| lockstep_run(&shader, &case, opts)));
    let ours = ours.map_err(|e| format!("{name} on Lockstep: {e}"))?;
    if let Err(e) = case.check(&ours) {
        notes.push(format!("`{name}`: Lockstep's result is wrong: {e}"));
        return Ok((row, notes, false));
    }
    eprintln!("{name}: Lockstep warm-up {:.1} ms, check passed", ms(t));
    // What a run allocates beyond the pipeline it is given (which holds
    // the buffers' initial contents): the engine's memory, the contents it
    // returns, and its scratch.
    let buffers: usize = case.pipeline.buffers.iter().map(|b| b.data.len()).sum();
    notes.push(format!(
        "`{name}`: Lockstep's peak heap during a run: {:.1} MiB for {:.1} MiB of buffers ({:.2}×).",
        peak as f64 / (1 << 20) as f64,
        buffers as f64 / (1 << 20) as f64,
        peak as f64 / buffers as f64
    ));
    if let Some(vk) = &mut peer {
        let (theirs, t) = timed(|| vk.run(&case.pipeline.buffers));
        let theirs = theirs.map_err(|e| format!("{name} on {PEER}: {e}"))?;
        match case.check(&theirs) {
            Ok(()) => eprintln!(
                "{name}: {PEER} first run {:.1} ms (shader compile included), check passed",
                ms(t)
            ),
            Err(e) => {
                notes.push(format!("`{name}`: {PEER}'s result is wrong: {e}"));
                peer = None;
            }
        }
    }
    let mut right = kernel.no_spirv.is_some() || peer.is_some();

    // Timed runs, interleaved; each result checked outside the timing.
    let (mut ours_t, mut theirs_t, mut dispatch_t) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..args.runs {
        let (out, t) = timed(|| lockstep_run(&shader, &case, opts));
        let out = out.map_err(|e| format!("{name} on Lockstep: {e}"))?;
        case.check(&out)
            .map_err(|e| format!("{name} on Lockstep: {e}"))?;
        ours_t.push(t);
        if let Some(vk) = &mut peer {
            let (out, t) = timed(|| vk.run(&case.pipeline.buffers));
            let out = out.map_err(|e| format!("{name} on {PEER}: {e}"))?;
            if let Err(e) = case.check(&out) {
                notes.push(format!("`{name}`: {PEER}'s result is wrong: {e}"));
                right = false;
                peer = None;
                theirs_t.clear();
                dispatch_t.clear();
                continue;
            }
            theirs_t.push(t);
            dispatch_t.push(vk.dispatch_time());
        }
    }
    row.lockstep = report::median(&ours_t);
    row.peer = report::median(&theirs_t);
    row.peer_dispatch = report::median(&dispatch_t);
    eprintln!(
        "{name}: Lockstep {} ms, {PEER} {} ms (dispatch {} ms)",
        list(&ours_t),
        list(&theirs_t),
        list(&dispatch_t)
    );
    Ok((row, notes, right))
}

fn ms(t: Duration) -> f64 {
    t.as_secs_f64() * 1e3
}

fn list(times: &[Duration]) -> String {
    let v: Vec<String> = times.iter().map(|&t| format!("{:.1}", ms(t))).collect();
    if v.is_empty() {
        "–".to_string()
    } else {
        v.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts() {
        assert_eq!(thread_count(Some(2), Some("2")), Ok(2));
        assert_eq!(thread_count(Some(3), None), Ok(3));
        assert_eq!(thread_count(None, Some(" 4 ")), Ok(4));
        assert!(thread_count(None, None).unwrap() >= 1);
        assert!(
            thread_count(Some(1), Some("2"))
                .unwrap_err()
                .contains("differs")
        );
        assert!(thread_count(None, Some("x")).is_err());
        assert!(thread_count(Some(0), None).is_err());
    }
}
