//! `kernels/<kernel>/wave<N>/<threads>`: the benchmark suite. Each kernel is
//! an `.hlsl` file in `benches/kernels/` at the repository root; its
//! pipeline (buffers of up to 2^24 elements) is built by
//! [`lockstep_bench::suite`], with the expected result computed in Rust,
//! once, outside the timed loop. Every iteration runs the whole dispatch
//! (buffers copied in and out included) and checks the result. Throughput
//! is reported in elements (threads, or texels for `tile_minmax`) per
//! second, at wave sizes 8 and 32, on one thread and on one thread per core.
//!
//! ```sh
//! cargo bench -p lockstep-bench --bench kernels
//! cargo bench -p lockstep-bench --bench kernels -- block_scan/wave8
//! ```

use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use lockstep::RunOptions;
use lockstep_bench::suite::{self, Kernel};

/// Benchmarks one kernel at wave sizes 8 and 32, on one thread and on all
/// cores; an iteration panics when its result is wrong.
fn bench_kernel(c: &mut Criterion, kernel: &Kernel) {
    let case = kernel.full();
    let shader = kernel.compile().unwrap_or_else(|e| panic!("{e}"));
    let mut group = c.benchmark_group("kernels");
    group.throughput(Throughput::Elements(u64::from(case.elements)));
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(2));
    for wave_size in [8, 32] {
        for threads in [1, 0] {
            let label = if threads == 1 { "1thread" } else { "allcores" };
            let opts = RunOptions {
                wave_size,
                threads,
                ..RunOptions::default()
            };
            group.bench_function(format!("{}/wave{wave_size}/{label}", kernel.name), |b| {
                b.iter(|| {
                    let out = lockstep::run(&shader, &case.pipeline, &opts).expect("dispatch");
                    assert_eq!(out.wave_size.size, wave_size);
                    case.check(&out.contents).unwrap_or_else(|e| panic!("{e}"));
                });
            });
        }
    }
    group.finish();
}

macro_rules! kernel_benches {
    ($($name:ident),*) => {
        $(
            fn $name(c: &mut Criterion) {
                bench_kernel(c, suite::kernel(stringify!($name)).unwrap());
            }
        )*
        criterion_group!(benches, $($name),*);
    };
}

kernel_benches!(
    ordered_append,
    wave_reduce,
    block_scan,
    tile_minmax,
    divergent_loop,
    match_histogram
);
criterion_main!(benches);
