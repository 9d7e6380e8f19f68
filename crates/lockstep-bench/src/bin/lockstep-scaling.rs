//! `lockstep-scaling`: how the kernels of the benchmark suite scale from
//! one thread to all cores. The two are timed alternately, one pair per
//! round (the order swapping every round), so that both see the same
//! machine: on a shared machine whose speed drifts, separate runs of the
//! two disagree by more than the effect measured. Two reference loops,
//! one memory-bound and one ALU-bound, show what the machine itself allows.
//!
//! ```sh
//! lockstep-scaling [--kernel NAME] [--wave-sizes 8,32] [--threads N] [--runs N]
//! ```
//!
//! Every result passes the suite's check before anything is timed; checks
//! are not timed. Exit status: 0 when every result was right, 1 when one
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
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = match args.threads {
        Some(0) => return Err("--threads must be at least 1".to_string()),
        Some(n) => n,
        None => cores,
    };
    println!(
        "Threads: 1 against {threads} ({cores} cores); {} rounds, each timing one thread and \
         all cores back to back, the order swapped every round; medians, and the lowest and \
         highest speed-up of a single round",
        args.runs
    );

    let mut rows = vec![
        reference("memory stream", threads, args.runs, stream),
        reference("ALU loop", threads, args.runs, alu),
    ];
    let mut all_right = true;
    for kernel in kernels {
        eprintln!("{}: building the data", kernel.name);
        let case = kernel.full();
        let shader = kernel.compile()?;
        for &wave_size in &args.wave_sizes {
            let opts = |threads| RunOptions {
                wave_size,
                threads,
                ..RunOptions::default()
            };
            let time = |threads| -> Result<Duration, String> {
                let start = Instant::now();
                let out = lockstep::run(&shader, &case.pipeline, &opts(threads))
                    .map_err(|e| format!("{} at wave size {wave_size}: {e}", kernel.name))?;
                let elapsed = start.elapsed();
                drop(out);
                Ok(elapsed)
            };
            // The warm-up runs, checked.
            let mut right = true;
            for t in [1, threads] {
                let out = lockstep::run(&shader, &case.pipeline, &opts(t))
                    .map_err(|e| format!("{} at wave size {wave_size}: {e}", kernel.name))?;
                if let Err(e) = case.check(&out.contents) {
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
            let (one, all) = rounds(args.runs, threads, time)?;
            rows.push(Scaling {
                name: kernel.name.to_string(),
                wave_size: Some(wave_size),
                elements: case.elements,
                one,
                all,
            });
        }
    }
    println!();
    println!("{}", report::scaling_header());
    for row in &rows {
        println!("{}", row.render());
    }
    Ok(all_right)
}

/// `runs` rounds of `time(1)` and `time(threads)`, back to back, one
/// thread going first in even rounds: their times, in round order.
fn rounds<E>(
    runs: usize,
    threads: usize,
    mut time: impl FnMut(usize) -> Result<Duration, E>,
) -> Result<(Vec<Duration>, Vec<Duration>), E> {
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

/// A reference loop on one thread and on `threads`: `work(part, round)`
/// over equal parts of the elements, one per thread.
fn reference(name: &str, threads: usize, runs: usize, work: fn(&mut [u32], u32) -> u32) -> Scaling {
    let mut data: Vec<u32> = (0..REFERENCE_ELEMENTS as u32).collect();
    let mut round = 0;
    let mut time = |n: usize| -> Result<Duration, ()> {
        round += 1;
        let part = REFERENCE_ELEMENTS.div_ceil(n);
        let start = Instant::now();
        std::thread::scope(|s| {
            for chunk in data.chunks_mut(part) {
                s.spawn(move || black_box(work(chunk, round)));
            }
        });
        Ok(start.elapsed())
    };
    time(1).ok();
    time(threads).ok();
    let (one, all) = rounds(runs, threads, time).unwrap_or_default();
    Scaling {
        name: name.to_string(),
        wave_size: None,
        elements: REFERENCE_ELEMENTS as u32,
        one,
        all,
    }
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

/// ALU-bound: a dependent chain of multiplies per 1,024 words.
fn alu(words: &mut [u32], round: u32) -> u32 {
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
