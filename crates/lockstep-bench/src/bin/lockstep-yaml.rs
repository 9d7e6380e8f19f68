//! Reads a pipeline file the way `lockstep run` does and reports how long
//! reading and parsing took, its throughput in MB/s of YAML, and the process's peak
//! memory (`VmHWM`) next to the bytes of the buffers it holds.
//!
//! `cargo run --release -p lockstep-bench --bin lockstep-yaml -- FILE`
//! (`--write` also renders the buffers back as offloader prints them).

use std::time::Instant;

fn peak_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: lockstep-yaml FILE [--write]");
        std::process::exit(2);
    };
    let mb = match std::fs::metadata(path) {
        Ok(m) => m.len() as f64 / 1e6,
        Err(e) => {
            eprintln!("error: cannot read '{path}': {e}");
            std::process::exit(2);
        }
    };
    // As `lockstep run` reads it: large Data lists once the text is dropped.
    let parsed = Instant::now();
    let pipeline = match lockstep::pipeline::parse_file(std::path::Path::new(path)) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {path}:{e}");
            std::process::exit(2);
        }
    };
    let parse = parsed.elapsed();
    let buffer_bytes: usize = pipeline.buffers.iter().map(|b| b.data.len()).sum();
    println!("yaml            {mb:.1} MB");
    println!("buffers         {:.1} MB", buffer_bytes as f64 / 1e6);
    println!(
        "read and parse  {:.3} s ({:.0} MB/s)",
        parse.as_secs_f64(),
        mb / parse.as_secs_f64()
    );
    if args.iter().any(|a| a == "--write") {
        let rendered = Instant::now();
        let out = lockstep::pipeline::render_buffers::<Vec<u8>>(
            &pipeline,
            &[],
            lockstep::pipeline::Style::Offloader,
        );
        let render = rendered.elapsed();
        println!(
            "render          {:.3} s ({:.0} MB/s of YAML)",
            render.as_secs_f64(),
            out.len() as f64 / 1e6 / render.as_secs_f64()
        );
    }
    if let Some(kib) = peak_kib() {
        let peak = kib as f64 * 1024.0;
        println!(
            "peak memory     {:.1} MB ({:.2}x the buffers)",
            peak / 1e6,
            peak / buffer_bytes.max(1) as f64
        );
    }
}
