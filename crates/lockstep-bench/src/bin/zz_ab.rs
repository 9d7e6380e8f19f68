use std::time::Instant;
fn main() {
    let mut names: Vec<String> = std::env::args().skip(1).collect();
    if names.is_empty() {
        names = [
            "ordered_append",
            "wave_reduce",
            "block_scan",
            "tile_minmax",
            "divergent_loop",
            "stream_scale",
            "gather_index",
            "float4_wave_max",
            "float4_shading",
            "tree_scan",
            "hash64",
            "half_blend",
            "match_histogram",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
    }
    for name in names {
        let k = lockstep_bench::suite::kernel(&name).unwrap();
        let case = k.full();
        for w in [8u32, 32] {
            let opts = lockstep::RunOptions {
                wave_size: w,
                wave_sizes: (w, w),
                threads: 1,
                engine: lockstep::Engine::Interpreter,
                ..Default::default()
            };
            // SAFETY: single-threaded here.
            unsafe { std::env::set_var("LOCKSTEP_JIT", "off") };
            let a = k.compile().unwrap();
            lockstep::run(&a, &case.pipeline, &opts).unwrap();
            unsafe { std::env::remove_var("LOCKSTEP_JIT") };
            let b = k.compile().unwrap();
            lockstep::run(&b, &case.pipeline, &opts).unwrap();
            let (mut ta, mut tb) = (f64::MAX, f64::MAX);
            for _ in 0..3 {
                let t = Instant::now();
                lockstep::run(&a, &case.pipeline, &opts).unwrap();
                ta = ta.min(t.elapsed().as_secs_f64());
                let t = Instant::now();
                lockstep::run(&b, &case.pipeline, &opts).unwrap();
                tb = tb.min(t.elapsed().as_secs_f64());
            }
            println!(
                "{name} w{w}: no kernels {:.1} ms, kernels {:.1} ms, no/with {:.3}",
                ta * 1e3,
                tb * 1e3,
                ta / tb
            );
        }
    }
}
