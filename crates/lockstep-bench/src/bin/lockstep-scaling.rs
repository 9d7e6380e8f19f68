//! `lockstep-scaling`: how the kernels of the benchmark suite scale from
//! one thread to all cores. The two are timed alternately, one pair per
//! round (the order swapping every round), so that both see the same
//! machine: on a shared machine whose speed drifts, separate runs of the
//! two disagree by more than the effect measured. Reference loops,
//! memory-bound (a copy, as `memcpy` does, which the streaming kernel's
//! bandwidth is given against, and passes in place), latency-bound and
//! throughput-bound, show what the machine itself allows, and the throughput-bound one also runs in every round of
//! every kernel, right after it ("ALU throughput alongside"): a virtual
//! machine's two cores may be two hardware threads of one core at times,
//! which only that loop shows, and a kernel's speed-up means little
//! without the machine's in the same minutes.
//!
//! Each run's CPU time splits a speed-up below the threads' count in two:
//! the share of the cores' time the run kept busy (below 1: cores waited)
//! and how much more CPU time the same work took on all cores than on one
//! (above 1: each core ran slower, held up by the other or by the
//! machine). The reference loops have both figures too: what the machine
//! does to code that shares nothing.
//!
//! ```sh
//! lockstep-scaling [--kernel NAME [--source FILE]] [--wave-sizes 8,32] [--threads N] [--runs N]
//! ```
//!
//! Every result passes the suite's check before anything is timed; checks
//! are not timed. `--source` times another shader over the kernel's
//! buffers (the variants in `benches/variants/`), whose results nothing
//! checks. Exit status: 0 when every result was right, 1 when one
//! was wrong, 2 on a usage error.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use lockstep::RunOptions;
use lockstep_bench::report::{self, Scaling};
use lockstep_bench::suite;

#[derive(Parser)]
#[command(
    name = "lockstep-scaling",
    about = "Times the benchmark kernels on one thread and on all cores, alternately"
)]
struct Args {
    /// Run only this kernel.
    #[arg(long, value_name = "NAME")]
    kernel: Option<String>,
    /// Time this shader instead of the kernel's own, over the kernel's
    /// buffers, without checking its results (needs --kernel).
    #[arg(long, value_name = "FILE", requires = "kernel")]
    source: Option<std::path::PathBuf>,
    /// Wave sizes to run each kernel at.
    #[arg(
        long,
        value_name = "N,…",
        value_delimiter = ',',
        default_value = "8,32"
    )]
    wave_sizes: Vec<u32>,
    /// Threads of the "all cores" runs. Default: one per core.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Rounds per kernel and wave size (after one warm-up run of each); the
    /// medians are reported.
    #[arg(long, value_name = "N", default_value_t = 7)]
    runs: usize,
    /// Interpret the bytecode (`interpreter`), or take the machine code
    /// wherever it can run (`native`), instead of `Engine::Auto`'s choice.
    #[arg(long, value_name = "ENGINE", value_parser = ["auto", "native", "interpreter"], default_value = "auto")]
    engine: String,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<bool, String> {
    let kernels = suite::select(args.kernel.as_deref())?;
    if args.runs == 0 {
        return Err("--runs must be at least 1".to_string());
    }
    if let Some(&w) = args
        .wave_sizes
        .iter()
        .find(|w| !(4..=128).contains(*w) || !w.is_power_of_two())
    {
        return Err(format!(
            "wave size {w}: wave sizes are powers of two from 4 to 128"
        ));
    }
    // A variant is compiled first, so that its errors come before any
    // timing.
    let variant = match &args.source {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            Some(suite::compile_source(&path.display().to_string(), &text)?)
        }
        None => None,
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = match args.threads {
        Some(0) => return Err("--threads must be at least 1".to_string()),
        Some(n) => n,
        None => cores,
    };
    println!(
        "Threads: 1 against {threads} ({cores} cores); {} rounds, each timing one thread and \
         all cores back to back, the order swapped every round; medians, the lowest and \
         highest speed-up of a single round, the fastest one-thread time over the fastest \
         all-cores time, the share of the cores' time the all-cores runs kept busy, and their \
         CPU time over the one-thread runs'",
        args.runs
    );

    let mut rows = vec![
        reference("memory copy", threads, args.runs, copy, 2),
        reference("memory stream", threads, args.runs, stream, 1),
        reference("ALU latency", threads, args.runs, alu_latency, 1),
        reference("ALU throughput", threads, args.runs, alu_throughput, 1),
    ];
    let mut alongside = Loop::new(ALONGSIDE_ELEMENTS, alu_throughput);
    let mut all_right = true;
    for kernel in kernels {
        eprintln!("{}: building the data", kernel.name);
        let case = kernel.full();
        // A variant's row is named after its file.
        let name = match &args.source {
            Some(path) => path.file_stem().map_or_else(
                || path.display().to_string(),
                |s| s.to_string_lossy().into_owned(),
            ),
            None => kernel.name.to_string(),
        };
        let own;
        let shader = match &variant {
            Some(shader) => shader,
            None => {
                own = kernel.compile()?;
                &own
            }
        };
        for &wave_size in &args.wave_sizes {
            let engine = match args.engine.as_str() {
                "native" => lockstep::Engine::Native,
                "interpreter" => lockstep::Engine::Interpreter,
                _ => lockstep::Engine::Auto,
            };
            let opts = |threads| RunOptions {
                wave_size,
                threads,
                engine,
                ..RunOptions::default()
            };
            // The kernel, then the ALU throughput loop on as many threads.
            let time = |threads| -> Result<(Timed, Duration), String> {
                let (start, cpu) = (Instant::now(), cpu_time());
                let out = lockstep::run(shader, &case.pipeline, &opts(threads))
                    .map_err(|e| format!("{} at wave size {wave_size}: {e}", kernel.name))?;
                let timed = Timed::since(start, cpu);
                drop(out);
                Ok((timed, alongside.time(threads).wall))
            };
            // The warm-up runs, checked.
            let mut right = true;
            for t in [1, threads] {
                let out = lockstep::run(shader, &case.pipeline, &opts(t))
                    .map_err(|e| format!("{} at wave size {wave_size}: {e}", kernel.name))?;
                if args.source.is_some() {
                    // A variant: nothing to check its results against.
                } else if let Err(e) = case.check(&out.contents) {
                    eprintln!(
                        "{} at wave size {wave_size} on {t} threads: wrong result: {e}",
                        kernel.name
                    );
                    right = false;
                }
            }
            all_right &= right;
            if !right {
                continue;
            }
            let (one, all): (Vec<_>, Vec<_>) = rounds(args.runs, threads, time)?;
            let ((one, one_alongside), (all, all_alongside)): ((Vec<_>, _), (Vec<_>, _)) =
                (one.into_iter().unzip(), all.into_iter().unzip());
            rows.push(Scaling {
                name: name.clone(),
                wave_size: Some(wave_size),
                elements: case.elements,
                alongside: (one_alongside, all_alongside),
                ..Timed::row(threads, &one, &all)
            });
        }
    }
    println!();
    println!("{}", report::scaling_header());
    for row in &rows {
        println!("{}", row.render());
    }
    // The streaming kernel reads and writes a word per element, as the
    // copy does: its share of the copy's bandwidth.
    let median = |runs: &[Duration]| {
        let mut runs = runs.to_vec();
        runs.sort();
        runs.get(runs.len() / 2).map_or(0.0, Duration::as_secs_f64)
    };
    let copy = &rows[0];
    for row in rows.iter().filter(|r| r.name == "stream_scale") {
        let share = |kernel: &[Duration], copy: &[Duration]| {
            100.0 * median(copy) / median(kernel).max(f64::MIN_POSITIVE) * f64::from(row.elements)
                / REFERENCE_ELEMENTS as f64
        };
        println!(
            "stream_scale at wave {}: {:.0}% of the memory copy's bandwidth on one thread, {:.0}% on {threads}",
            row.wave_size.unwrap_or(0),
            share(&row.one, &copy.one),
            share(&row.all, &copy.all),
        );
    }
    Ok(all_right)
}

/// One timed run: its wall time, and the CPU time the process spent in it
/// (`None` where the system does not tell).
#[derive(Clone, Copy)]
struct Timed {
    wall: Duration,
    cpu: Option<Duration>,
}

impl Timed {
    /// A run that began at `start`, with the process's CPU time `cpu` then.
    fn since(start: Instant, cpu: Option<Duration>) -> Timed {
        let wall = start.elapsed();
        Timed {
            wall,
            cpu: cpu
                .zip(cpu_time())
                .map(|(before, now)| now.saturating_sub(before)),
        }
    }

    /// A row of the one-thread and all-cores runs, with no name and no
    /// alongside times. The CPU times are left out unless every run has one.
    fn row(threads: usize, one: &[Timed], all: &[Timed]) -> Scaling {
        let walls = |runs: &[Timed]| runs.iter().map(|t| t.wall).collect();
        let cpus = |runs: &[Timed]| runs.iter().map(|t| t.cpu).collect::<Option<Vec<_>>>();
        Scaling {
            name: String::new(),
            wave_size: None,
            elements: 0,
            one: walls(one),
            all: walls(all),
            alongside: (Vec::new(), Vec::new()),
            threads,
            cpu: cpus(one).zip(cpus(all)).unwrap_or_default(),
        }
    }
}

/// The CPU time this process has spent, all its threads together,
/// including threads that have ended.
#[cfg(unix)]
fn cpu_time() -> Option<Duration> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to write.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) } == 0;
    let (secs, nanos) = (
        u64::try_from(t.tv_sec).ok()?,
        u32::try_from(t.tv_nsec).ok()?,
    );
    ok.then(|| Duration::new(secs, nanos))
}

#[cfg(not(unix))]
fn cpu_time() -> Option<Duration> {
    None
}

/// `runs` rounds of `time(1)` and `time(threads)`, back to back, one
/// thread going first in even rounds: what they return, in round order.
fn rounds<T, E>(
    runs: usize,
    threads: usize,
    mut time: impl FnMut(usize) -> Result<T, E>,
) -> Result<(Vec<T>, Vec<T>), E> {
    let (mut ones, mut alls) = (Vec::new(), Vec::new());
    for round in 0..runs {
        if round % 2 == 0 {
            ones.push(time(1)?);
            alls.push(time(threads)?);
        } else {
            alls.push(time(threads)?);
            ones.push(time(1)?);
        }
    }
    Ok((ones, alls))
}

/// Elements of the reference loops: 2^24 32-bit words, 64 MiB.
const REFERENCE_ELEMENTS: usize = 1 << 24;

/// Elements of the ALU throughput loop that runs alongside each kernel,
/// a quarter of the reference's (about 16 ms on one thread).
const ALONGSIDE_ELEMENTS: usize = REFERENCE_ELEMENTS / 4;

/// A reference loop over its own data: `work(part, round)` over equal
/// parts of the elements, one per thread.
struct Loop {
    data: Vec<u32>,
    round: u32,
    work: fn(&mut [u32], u32) -> u32,
}

impl Loop {
    fn new(elements: usize, work: fn(&mut [u32], u32) -> u32) -> Loop {
        Loop {
            data: (0..elements as u32).collect(),
            round: 0,
            work,
        }
    }

    /// One run on `threads` threads.
    fn time(&mut self, threads: usize) -> Timed {
        self.round += 1;
        let (work, round) = (self.work, self.round);
        let part = self.data.len().div_ceil(threads);
        let (start, cpu) = (Instant::now(), cpu_time());
        std::thread::scope(|s| {
            for chunk in self.data.chunks_mut(part) {
                s.spawn(move || black_box(work(chunk, round)));
            }
        });
        Timed::since(start, cpu)
    }
}

/// A reference loop on one thread and on `threads`, in alternating rounds,
/// over `copies` × the reference's elements (each thread's part the same
/// share of each copy).
fn reference(
    name: &str,
    threads: usize,
    runs: usize,
    work: fn(&mut [u32], u32) -> u32,
    copies: usize,
) -> Scaling {
    let mut each = Loop::new(copies * REFERENCE_ELEMENTS, work);
    each.time(1);
    each.time(threads);
    let (one, all) = rounds(runs, threads, |n| Ok::<_, ()>(each.time(n))).unwrap_or_default();
    Scaling {
        name: name.to_string(),
        elements: REFERENCE_ELEMENTS as u32,
        ..Timed::row(threads, &one, &all)
    }
}

/// Memory-bound: the first half of the words copied onto the second, as
/// `memcpy` copies (on each thread, its part's halves).
fn copy(words: &mut [u32], _round: u32) -> u32 {
    let (from, to) = words.split_at_mut(words.len() / 2);
    to.copy_from_slice(from);
    to.first().copied().unwrap_or(0)
}

/// Memory-bound: four passes that read and write every word.
fn stream(words: &mut [u32], round: u32) -> u32 {
    for pass in 0..4 {
        for w in words.iter_mut() {
            *w = w.wrapping_mul(3).wrapping_add(round ^ pass);
        }
    }
    words.first().copied().unwrap_or(0)
}

/// Latency-bound: a dependent chain of multiplies per 1,024 words. Two
/// hardware threads of one core run it as fast as two cores do, so it
/// shows whether the threads get their time, not whether they get a core
/// each.
fn alu_latency(words: &mut [u32], round: u32) -> u32 {
    let mut x = u64::from(round);
    for w in words.iter().step_by(1024) {
        for _ in 0..4096 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(u64::from(*w));
        }
    }
    x as u32
}

/// Throughput-bound: eight independent chains of multiplies per 1,024
/// words, which keep one core's multiplier busy, as an interpreter keeps
/// its execution ports busy. Two hardware threads of one core share those
/// and get little more than one; two cores get 2×.
fn alu_throughput(words: &mut [u32], round: u32) -> u32 {
    const K: u64 = 6_364_136_223_846_793_005;
    let mut x = [u64::from(round); 8];
    for w in words.iter().step_by(1024) {
        let w = u64::from(*w);
        for _ in 0..1536 {
            // Written out so that each chain stays in a register of its own.
            let [a, b, c, d, e, f, g, h] = x;
            x = [
                a.wrapping_mul(K).wrapping_add(w),
                b.wrapping_mul(K).wrapping_add(w ^ 1),
                c.wrapping_mul(K).wrapping_add(w ^ 2),
                d.wrapping_mul(K).wrapping_add(w ^ 3),
                e.wrapping_mul(K).wrapping_add(w ^ 4),
                f.wrapping_mul(K).wrapping_add(w ^ 5),
                g.wrapping_mul(K).wrapping_add(w ^ 6),
                h.wrapping_mul(K).wrapping_add(w ^ 7),
            ];
        }
    }
    x.iter().fold(0, |s, &v| s ^ v) as u32
}
