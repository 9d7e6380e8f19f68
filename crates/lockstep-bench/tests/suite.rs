//! Every kernel of the suite, at a small size, passes its check on Lockstep
//! at wave sizes 8 and 32.

use lockstep::RunOptions;
use lockstep_bench::suite::KERNELS;

#[test]
fn kernels_pass_their_checks_at_small_sizes() {
    for kernel in &KERNELS {
        let shader = kernel.compile().unwrap_or_else(|e| panic!("{e}"));
        let case = (kernel.build)(4096);
        assert_eq!(case.elements, 4096);
        for wave_size in [8, 32] {
            let opts = RunOptions {
                wave_size,
                threads: 2,
                ..RunOptions::default()
            };
            let out = lockstep::run(&shader, &case.pipeline, &opts)
                .unwrap_or_else(|e| panic!("{} at wave {wave_size}: {e}", kernel.name));
            assert_eq!(out.wave_size.size, wave_size);
            if let Err(e) = case.check(&out.contents) {
                panic!("{} at wave {wave_size}: {e}", kernel.name);
            }
        }
    }
}

#[test]
fn outputs_are_the_buffers_the_kernels_write() {
    let opts = RunOptions {
        wave_size: 8,
        threads: 1,
        ..RunOptions::default()
    };
    for kernel in &KERNELS {
        let shader = kernel.compile().unwrap();
        let case = (kernel.build)(4096);
        let out = lockstep::run(&shader, &case.pipeline, &opts).unwrap();
        for (i, (before, after)) in case.pipeline.buffers.iter().zip(&out.contents).enumerate() {
            assert_eq!(
                *after != before.data,
                case.outputs.contains(&i),
                "{}: buffer {i} ({})",
                kernel.name,
                before.name
            );
        }
    }
}
