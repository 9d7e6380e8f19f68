//! `lockstep-gpu`: the suite's kernels on a Vulkan device, through
//! Lockstep's own SPIR-V (`lockstep run --device vulkan`), against
//! Lockstep's engine on all of this machine's cores, at the device's
//! subgroup size. Each result passes the suite's check first.
//!
//! ```sh
//! lockstep-gpu [--device vulkan:N|NAME] [--kernel NAME|all] [--log2 N] [--runs N] [--threads N]
//! ```
//!
//! The device's time is each dispatch's, from its timestamps, the median
//! of `--runs` dispatches in one submission; the engine's is the median of
//! `--runs` whole `lockstep::run` calls (buffers in and out included).
//! Exit status: 0 when every result was right, 1 when one was wrong, 2 on
//! a usage or device error, or a kernel the device could not run.

use std::time::{Duration, Instant};

use lockstep::RunOptions;
use lockstep::vulkan_device::Device;
use lockstep_bench::suite;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let device_name = value("--device").unwrap_or_default();
    let selector = device_name.strip_prefix("vulkan:").unwrap_or(&device_name);
    let log2: u32 = value("--log2").and_then(|v| v.parse().ok()).unwrap_or(26);
    let runs: u32 = value("--runs").and_then(|v| v.parse().ok()).unwrap_or(10);
    let threads: usize = value("--threads").and_then(|v| v.parse().ok()).unwrap_or(0);
    let names: Vec<String> = match value("--kernel").as_deref() {
        Some("all") => suite::KERNELS.iter().map(|k| k.name.to_string()).collect(),
        Some(k) => vec![k.to_string()],
        None => vec!["stream_scale".into(), "block_scan".into()],
    };
    let mut failed = false;
    let device = match Device::open(selector) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let info = &device.info;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "device: {} ({}); engine: {} threads on {cores} cores",
        info.name,
        info.driver.trim(),
        if threads == 0 { cores } else { threads }
    );
    println!(
        "{:<14} {:>10} {:>5} {:>12} {:>10} {:>12} {:>10} {:>8}",
        "kernel",
        "elements",
        "wave",
        "device ms",
        "device GB/s",
        "engine ms",
        "engine GB/s",
        "ratio"
    );
    let mut wrong = false;
    for name in &names {
        let Some(kernel) = suite::kernel(name) else {
            eprintln!("error: no kernel '{name}'");
            std::process::exit(2);
        };
        let case = (kernel.build)(1 << log2);
        let shader = match kernel.compile() {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(2);
            }
        };
        // One dispatch for the check (kernels with atomics add up over
        // repeated runs), then the timed ones.
        let runs_on_device =
            lockstep::run_vulkan(&shader, &case.pipeline, &device, &Default::default()).and_then(
                |first| {
                    let timed = lockstep::VulkanOptions {
                        runs,
                        ..Default::default()
                    };
                    lockstep::run_vulkan(&shader, &case.pipeline, &device, &timed)
                        .map(|timed| (first, timed))
                },
            );
        let (first, gpu) = match runs_on_device {
            Ok(both) => both,
            Err(e) => {
                println!("{name:<14} not run on the device: {}", e.message);
                failed = true;
                continue;
            }
        };
        if let Err(e) = case.check(&first.output.contents) {
            eprintln!("{name}: the device's result is wrong: {e}");
            wrong = true;
        }
        let w = gpu.output.wave_size.size;
        let opts = RunOptions {
            wave_size: w,
            wave_sizes: (w, w),
            threads,
            ..RunOptions::default()
        };
        let mut cpu_times = Vec::new();
        for _ in 0..runs.max(1) {
            let started = Instant::now();
            match lockstep::run(&shader, &case.pipeline, &opts) {
                Ok(out) => {
                    cpu_times.push(started.elapsed());
                    if cpu_times.len() == 1
                        && let Err(e) = case.check(&out.contents)
                    {
                        eprintln!("{name}: the engine's result is wrong: {e}");
                        wrong = true;
                    }
                }
                Err(e) => {
                    eprintln!("error: {name}: {}", e.message);
                    std::process::exit(2);
                }
            }
        }
        let bytes: usize = case.pipeline.buffers.iter().map(|b| b.data.len()).sum();
        let gb = |d: Duration| bytes as f64 / d.as_secs_f64().max(1e-12) / 1e9;
        let (g, c) = (median(gpu.dispatch_times), median(cpu_times));
        println!(
            "{:<14} {:>10} {:>5} {:>12.3} {:>10.1} {:>12.3} {:>10.1} {:>7.1}x",
            name,
            case.elements,
            w,
            g.as_secs_f64() * 1e3,
            gb(g),
            c.as_secs_f64() * 1e3,
            gb(c),
            c.as_secs_f64() / g.as_secs_f64().max(1e-12)
        );
    }
    std::process::exit(if wrong {
        1
    } else if failed {
        2
    } else {
        0
    });
}
