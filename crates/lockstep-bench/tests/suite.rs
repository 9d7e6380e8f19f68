//! Every kernel of the suite, at a small size, passes its check on Lockstep
//! at wave sizes 8 and 32, as machine code and interpreted.

use lockstep::RunOptions;
use lockstep_bench::suite::KERNELS;

#[test]
fn kernels_pass_their_checks_at_small_sizes() {
    for kernel in &KERNELS {
        let shader = kernel.compile().unwrap_or_else(|e| panic!("{e}"));
        let case = (kernel.build)(4096);
        assert_eq!(case.elements, 4096);
        for wave_size in [8, 32] {
            for engine in [lockstep::Engine::Native, lockstep::Engine::Interpreter] {
                let opts = RunOptions {
                    wave_size,
                    threads: 2,
                    engine,
                    ..RunOptions::default()
                };
                let out = lockstep::run(&shader, &case.pipeline, &opts).unwrap_or_else(|e| {
                    panic!("{} at wave {wave_size} ({engine:?}): {e}", kernel.name)
                });
                assert_eq!(out.wave_size.size, wave_size);
                if let Err(e) = case.check(&out.contents) {
                    panic!("{} at wave {wave_size} ({engine:?}): {e}", kernel.name);
                }
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

/// The variants of `divergent_loop` in `benches/variants/` (which
/// `lockstep-scaling --source` times unchecked) against their loops
/// written out in Rust, lane by lane, at wave sizes 8 and 32: they time
/// what they say, and the signed, float, conversion and select paths they exercise
/// give Rust's results.
#[test]
fn divergent_loop_variants_match_their_loops_in_rust() {
    type Lane = fn(u32, u32) -> u32;
    // The `int` loop, its last step `x += i * 0x1E3779B9 + extra(x)`.
    fn int_loop(seed: u32, trips: u32, extra: fn(i32) -> i32) -> u32 {
        let mut x = seed as i32;
        for i in 0..trips as i32 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            x ^= x >> 13;
            x = (x << 5) | ((x >> 27) & 31);
            x = x.wrapping_add(i.wrapping_mul(0x1E37_79B9).wrapping_add(extra(x)));
        }
        x as u32
    }
    let int: Lane = |seed, trips| int_loop(seed, trips, |_| 0);
    let int_division: Lane = |seed, trips| int_loop(seed, trips, |x| (x / 7).wrapping_sub(x % 5));
    let float: Lane = |seed, trips| {
        let mut x = f32::from_bits(seed & 0x3FFF_FFFF);
        for _ in 0..trips {
            x = x * 1.0001 + 0.5;
            x -= x * 0.25;
            x = x / 1.5 + 2.0 * x;
        }
        x.to_bits()
    };
    let conversions: Lane = |seed, trips| {
        let mut x = seed;
        for i in 0..trips {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            x ^= x >> 13;
            x = x.rotate_left(5);
            x = x.wrapping_add(
                i.wrapping_mul(0x9E37_79B9)
                    .wrapping_add((x as f32 * 0.25) as u32),
            );
        }
        x
    };
    let shading: Lane = |seed, trips| {
        let mut x = f32::from_bits((seed & 0x007F_FFFF) | 0x3F80_0000);
        for i in 0..trips {
            let s = x.sqrt() * 0.75;
            let saturated = (s * 1.25 + -0.25).clamp(0.0, 1.0);
            x = saturated + (x + 0.125 * (2.0 - x));
            x = (x * 1.5).clamp(0.5, 3.0) + (i & 3) as f32 * 0.0625;
        }
        x.to_bits() ^ (x * 1000.0) as u32
    };
    let select: Lane = |seed, trips| {
        let mut x = seed;
        for i in 0..trips {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            x ^= if x & 1 != 0 { x >> 13 } else { x << 7 };
            x = if x > 0x8000_0000 {
                x.wrapping_sub(0x12345)
            } else {
                x.wrapping_add(i)
            };
            x = x.wrapping_add(if ((x >> 8) as f32) < 4_194_304.0 {
                3
            } else {
                5
            });
            x = x.rotate_left(5);
        }
        x
    };
    let variants: [(&str, &str, Lane); 6] = [
        (
            "int",
            include_str!("../../../benches/variants/divergent_loop_int.hlsl"),
            int,
        ),
        (
            "int_division",
            include_str!("../../../benches/variants/divergent_loop_int_division.hlsl"),
            int_division,
        ),
        (
            "float",
            include_str!("../../../benches/variants/divergent_loop_float.hlsl"),
            float,
        ),
        (
            "conversions",
            include_str!("../../../benches/variants/divergent_loop_conversions.hlsl"),
            conversions,
        ),
        (
            "shading",
            include_str!("../../../benches/variants/divergent_loop_shading.hlsl"),
            shading,
        ),
        (
            "select",
            include_str!("../../../benches/variants/divergent_loop_select.hlsl"),
            select,
        ),
    ];
    let kernel = lockstep_bench::suite::kernel("divergent_loop").expect("in the suite");
    let case = (kernel.build)(4096);
    let (seeds, trips) = (
        words(&case.pipeline.buffers[0].data),
        words(&case.pipeline.buffers[1].data),
    );
    for (name, source, lane) in variants {
        let shader =
            lockstep_bench::suite::compile_source(name, source).unwrap_or_else(|e| panic!("{e}"));
        let want: Vec<u32> = seeds
            .iter()
            .zip(&trips)
            .map(|(&s, &n)| lane(s, n))
            .collect();
        for wave_size in [8, 32] {
            let out = on_two_threads(&shader, &case, wave_size);
            let got = words(&out.contents[2]);
            for (l, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(
                    g, w,
                    "{name} at wave {wave_size}, lane {l} (seed {:#x}, {} trips)",
                    seeds[l], trips[l]
                );
            }
        }
    }
}

/// The variants of `ordered_append` in `benches/variants/`, which time the
/// kernel without its shared output and without its counter, at wave
/// sizes 8 and 32 on two threads: each lane's word against the input's
/// elements kept (not multiples of 3), worked out here wave by wave.
#[test]
fn ordered_append_variants_write_what_they_say() {
    let kernel = lockstep_bench::suite::kernel("ordered_append").expect("in the suite");
    let case = (kernel.build)(1 << 14);
    let input = words(&case.pipeline.buffers[0].data);
    let kept: Vec<bool> = input.iter().map(|v| v % 3 != 0).collect();
    let count = kept.iter().filter(|&&k| k).count() as u32;
    for (name, source) in [
        (
            "own_slots",
            include_str!("../../../benches/variants/ordered_append_own_slots.hlsl"),
        ),
        (
            "no_counter",
            include_str!("../../../benches/variants/ordered_append_no_counter.hlsl"),
        ),
    ] {
        let shader =
            lockstep_bench::suite::compile_source(name, source).unwrap_or_else(|e| panic!("{e}"));
        for wave_size in [8, 32] {
            let out = on_two_threads(&shader, &case, wave_size);
            let (got, counter) = (words(&out.contents[1]), words(&out.contents[2])[0]);
            let at = format!("{name} at wave {wave_size}");
            for (l, (&g, &k)) in got.iter().zip(&kept).enumerate() {
                if !k {
                    assert_eq!(g, 0, "{at}: lane {l} is not kept");
                }
            }
            if name == "own_slots" {
                // Every wave's slots in one stream: 1 to count, each once.
                assert_eq!(counter, count, "{at}: the counter");
                let mut slots: Vec<u32> = got
                    .iter()
                    .zip(&kept)
                    .filter(|&(_, &k)| k)
                    .map(|(&g, _)| g)
                    .collect();
                slots.sort_unstable();
                assert!(slots.iter().copied().eq(1..=count), "{at}: the slots");
            } else {
                // A wave's count in the high half, the lane's place among
                // its wave's kept lanes in the low.
                assert_eq!(counter, 0, "{at}: no counter");
                for (wave, (lanes, flags)) in got
                    .chunks(wave_size as usize)
                    .zip(kept.chunks(wave_size as usize))
                    .enumerate()
                {
                    let wave_count = flags.iter().filter(|&&k| k).count() as u32;
                    let mut place = 0;
                    for (lane, (&g, &k)) in lanes.iter().zip(flags).enumerate() {
                        if k {
                            assert_eq!(
                                g,
                                wave_count << 16 | place,
                                "{at}: wave {wave}, lane {lane}"
                            );
                            place += 1;
                        }
                    }
                }
            }
        }
    }
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        .collect()
}

/// A run of `shader` over `case`'s buffers on two threads.
fn on_two_threads<'c>(
    shader: &lockstep::Shader,
    case: &'c lockstep_bench::suite::Case,
    wave_size: u32,
) -> lockstep::RunOutput<'c> {
    let opts = RunOptions {
        wave_size,
        threads: 2,
        ..RunOptions::default()
    };
    lockstep::run(shader, &case.pipeline, &opts).unwrap()
}
