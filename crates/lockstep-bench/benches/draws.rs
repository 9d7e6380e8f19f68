//! `draws/fullscreen/wave<N>/<threads>`: the draw of
//! `benches/draws/fullscreen` (a full-screen pass of about 20 operations
//! per pixel on a 1024 × 1024 target) with `lockstep::draw`, the whole draw
//! timed (records, both shaders, the target in the buffer's format).
//! Throughput is in pixels per second. `lockstep-draw-peer` sets the same
//! draw against lavapipe.
//!
//! ```sh
//! cargo bench -p lockstep-bench --bench draws
//! ```

use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use lockstep::RunOptions;

fn bench_fullscreen(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benches/draws");
    let read = |name: &str| {
        std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    let pipeline =
        lockstep::pipeline::parse(&read("fullscreen.yaml")).unwrap_or_else(|e| panic!("{e}"));
    let source = read("fullscreen.hlsl");
    let (vs, ps) = lockstep_bench::draws::compile_stages("fullscreen.hlsl", &source)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut group = c.benchmark_group("draws");
    group.throughput(Throughput::Elements(1024 * 1024));
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(3));
    for wave_size in [8, 32] {
        for threads in [1, 0] {
            let label = if threads == 1 { "1thread" } else { "allcores" };
            let opts = RunOptions {
                wave_size,
                threads,
                ..RunOptions::default()
            };
            group.bench_function(format!("fullscreen/wave{wave_size}/{label}"), |b| {
                b.iter(|| {
                    lockstep::draw(&vs, &ps, &pipeline, &opts).unwrap_or_else(|e| panic!("{e}"))
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_fullscreen);
criterion_main!(benches);
