//! Runs as wave code (`WaveBuilder::block`) against a lane-by-lane model
//! of the same runs, on every lane of every register (inactive lanes,
//! registers not written).

use lockstep_jit::wave::{State, WaveBuilder};
use lockstep_jit::{Op32, Operand, Output, Run, Step};
use proptest::prelude::*;

const OPS: [Op32; 61] = Op32::ALL;

/// IEEE minNum (`min`) or maxNum of the words' numbers: a NaN loses to a
/// number and is the result only where both are NaNs (the second then);
/// of two equal numbers, the one with its sign bit set for the minimum
/// (-0), clear for the maximum.
fn float_min_max(x: u32, y: u32, min: bool) -> u32 {
    let (a, b) = (f32::from_bits(x), f32::from_bits(y));
    if a.is_nan() {
        y
    } else if b.is_nan() {
        x
    } else if a == b {
        if (x >> 31 == 1) == min { x } else { y }
    } else if (a < b) == min {
        x
    } else {
        y
    }
}

/// `float` arithmetic on the words' numbers, with the NaN written out: the
/// first operand's if it is a NaN, else the second's, quieted (the top
/// mantissa bit set), else the default NaN `0xFFC0_0000`.
fn float_arith(x: u32, y: u32, f: fn(f32, f32) -> f32) -> u32 {
    let (a, b) = (f32::from_bits(x), f32::from_bits(y));
    let r = f(a, b);
    if !r.is_nan() {
        r.to_bits()
    } else if a.is_nan() {
        x | 0x0040_0000
    } else if b.is_nan() {
        y | 0x0040_0000
    } else {
        0xFFC0_0000
    }
}

/// A `float` rounded to an integer by `f`, a NaN quieted.
fn rounded(x: u32, f: fn(f32) -> f32) -> u32 {
    let a = f32::from_bits(x);
    if a.is_nan() {
        x | 0x0040_0000
    } else {
        f(a).to_bits()
    }
}

/// A `float` comparison of the words' numbers.
fn float_test(x: u32, y: u32, f: fn(&f32, &f32) -> bool) -> u32 {
    u32::from(f(&f32::from_bits(x), &f32::from_bits(y)))
}

/// HLSL's `uint`, `int` and `float` operators, written out.
fn apply(op: Op32, x: u32, y: u32) -> u32 {
    match op {
        Op32::FAdd => float_arith(x, y, |a, b| a + b),
        Op32::FSub => float_arith(x, y, |a, b| a - b),
        Op32::FMul => float_arith(x, y, |a, b| a * b),
        Op32::FDiv => float_arith(x, y, |a, b| a / b),
        Op32::FEq => float_test(x, y, f32::eq),
        Op32::FNe => float_test(x, y, f32::ne),
        Op32::FLt => float_test(x, y, f32::lt),
        Op32::FLe => float_test(x, y, f32::le),
        Op32::FGt => float_test(x, y, f32::gt),
        Op32::FGe => float_test(x, y, f32::ge),
        Op32::UDiv | Op32::URem | Op32::SDiv | Op32::SRem if y == 0 => u32::MAX,
        Op32::UDiv => x / y,
        Op32::URem => x % y,
        Op32::SDiv => (x as i32).wrapping_div(y as i32) as u32,
        Op32::SRem => (x as i32).wrapping_rem(y as i32) as u32,
        Op32::UMin => x.min(y),
        Op32::UMax => x.max(y),
        Op32::SMin => (x as i32).min(y as i32) as u32,
        Op32::SMax => (x as i32).max(y as i32) as u32,
        Op32::FMin => float_min_max(x, y, true),
        Op32::FMax => float_min_max(x, y, false),
        // One operand; Rust's `as` rounds to nearest, and truncates and
        // saturates (NaN to 0).
        Op32::Not => !x,
        Op32::INeg => x.wrapping_neg(),
        Op32::IAbs => (x as i32).wrapping_abs() as u32,
        Op32::FNeg => x ^ 0x8000_0000,
        Op32::FAbs => x & 0x7FFF_FFFF,
        Op32::IToF => (x as i32 as f32).to_bits(),
        Op32::UToF => (x as f32).to_bits(),
        Op32::FToI => f32::from_bits(x) as i32 as u32,
        Op32::FToU => f32::from_bits(x) as u32,
        Op32::FFloor => rounded(x, f32::floor),
        Op32::FCeil => rounded(x, f32::ceil),
        Op32::FTrunc => rounded(x, f32::trunc),
        Op32::FRound => rounded(x, f32::round_ties_even),
        // The `half` crate's conversions: to nearest even, NaNs quieted.
        Op32::F32ToF16 => u32::from(half::f16::from_f32(f32::from_bits(x)).to_bits()),
        Op32::F16ToF32 => half::f16::from_bits(x as u16).to_f32().to_bits(),
        Op32::CountBits => x.count_ones(),
        Op32::ReverseBits => x.reverse_bits(),
        Op32::FirstBitLow => match x {
            0 => u32::MAX,
            x => x.trailing_zeros(),
        },
        // The highest bit set; for a signed word, the highest that differs
        // from the sign bit.
        Op32::FirstBitHighU | Op32::FirstBitHighS => {
            let x = if op == Op32::FirstBitHighS && (x as i32) < 0 {
                !x
            } else {
                x
            };
            match x {
                0 => u32::MAX,
                x => 31 - x.leading_zeros(),
            }
        }
        // A NaN quieted, the default NaN below -0.
        Op32::FSqrt => {
            let a = f32::from_bits(x);
            if a.is_nan() {
                x | 0x0040_0000
            } else if a < 0.0 {
                0xFFC0_0000
            } else {
                a.sqrt().to_bits()
            }
        }
        Op32::Add => x.wrapping_add(y),
        Op32::Sub => x.wrapping_sub(y),
        Op32::Mul => x.wrapping_mul(y),
        Op32::Shl => x.wrapping_shl(y % 32),
        Op32::ShrU => x.wrapping_shr(y % 32),
        Op32::And => x & y,
        Op32::Or => x | y,
        Op32::Xor => x ^ y,
        Op32::Eq => (x == y) as u32,
        Op32::Ne => (x != y) as u32,
        Op32::LtU => (x < y) as u32,
        Op32::LeU => (x <= y) as u32,
        Op32::GtU => (x > y) as u32,
        Op32::GeU => (x >= y) as u32,
        Op32::ShrS => (x as i32).wrapping_shr(y % 32) as u32,
        Op32::LtS => ((x as i32) < (y as i32)) as u32,
        Op32::LeS => ((x as i32) <= (y as i32)) as u32,
        Op32::GtS => ((x as i32) > (y as i32)) as u32,
        Op32::GeS => ((x as i32) >= (y as i32)) as u32,
        Op32::Select => panic!("three operands: `model` picks"),
    }
}

/// What the run does to `regs`, one lane at a time.
fn model(run: &Run, regs: &mut [u32], width: usize, mask: u64) {
    for l in 0..width {
        let active = mask >> l & 1 == 1;
        let mut values: Vec<u32> = run
            .inputs
            .iter()
            .map(|&r| regs[r as usize * width + l])
            .collect();
        for s in run.steps {
            let b = match s.b {
                Operand::Value(b) => values[b as usize],
                Operand::Imm(k) => k,
            };
            let mut v = match s.c {
                Some(c) if values[s.a as usize] == 0 => values[c as usize],
                Some(_) => b,
                None => apply(s.op, values[s.a as usize], b),
            };
            if let Some(k) = s.keep.filter(|_| !active) {
                v = values[k as usize];
            }
            values.push(v);
        }
        for o in run.outputs {
            if active || !o.masked {
                regs[o.reg as usize * width + l] = values[o.value as usize];
            }
        }
    }
}

/// A random run on registers `0..6`: each step reads values made before
/// it.
fn runs() -> impl Strategy<Value = (Vec<u32>, Vec<Step>, Vec<Output>)> {
    (1usize..4, 1usize..16).prop_flat_map(|(inputs, steps)| {
        let values = inputs + steps;
        (
            prop::collection::vec(0u32..6, inputs),
            (0..steps)
                .map(|i| {
                    let made = (inputs + i) as u16;
                    (
                        0..OPS.len(),
                        0..made,
                        prop_oneof![
                            (0..made).prop_map(Operand::Value),
                            any::<u32>().prop_map(Operand::Imm),
                            (0u32..40).prop_map(Operand::Imm),
                        ],
                        0..made,
                        prop::option::of(0..made),
                    )
                        .prop_map(|(op, a, b, c, keep)| {
                            let op = OPS[op];
                            // A select picks between two values.
                            let (b, c) = match (op, b) {
                                (Op32::Select, Operand::Imm(_)) => (Operand::Value(c), Some(c)),
                                (Op32::Select, b) => (b, Some(c)),
                                (_, b) => (b, None),
                            };
                            Step { op, a, b, c, keep }
                        })
                })
                .collect::<Vec<_>>(),
            prop::collection::vec((0u32..6, 0..values as u16, any::<bool>()), 0..4),
        )
            .prop_map(|(inputs, steps, outputs)| {
                let outputs = outputs
                    .into_iter()
                    .map(|(reg, value, masked)| Output { reg, value, masked })
                    .collect();
                (inputs, steps, outputs)
            })
    })
}

/// A run as the one block of a wave program, made for each width it runs
/// at.
struct Kernel {
    inputs: Vec<u32>,
    steps: Vec<Step>,
    outputs: Vec<Output>,
}

/// The code's callout: none is made for a block.
unsafe extern "sysv64" fn no_callout(_: *mut State, _: u32) -> u32 {
    2
}

impl Kernel {
    /// Runs the block on `regs`, the registers of one wave of `width`
    /// lanes (8, 16, 32 or 64; register `r`'s lanes at `r * width ..`),
    /// with the lanes `mask` launched. `false` where the code cannot be
    /// made.
    fn run(&self, regs: &mut [u32], width: usize, mask: u64) -> bool {
        let count = regs.len() / width;
        let Some(mut b) = WaveBuilder::new(width, width, &vec![false; count], &[], false) else {
            return false;
        };
        let run = Run {
            inputs: &self.inputs,
            steps: &self.steps,
            outputs: &self.outputs,
        };
        if !b.block(&run) {
            return false;
        }
        b.exit();
        let Some(code) = b.finish() else { return false };
        let mut frame = vec![0u32; code.frame_bytes().div_ceil(4)];
        frame[..regs.len()].copy_from_slice(regs);
        let mut frames = vec![0u64; 4 * code.frames()];
        let launch = [mask];
        let mut state = Box::new(State::new(no_callout));
        state.regs = frame.as_mut_ptr().cast();
        state.frames = frames.as_mut_ptr();
        state.launch = launch.as_ptr();
        state.waves = 1;
        state.budget = 1 << 20;
        // SAFETY: the frame holds every register of the wave, `frames`
        // the construct masks, `launch` one mask; a block touches no
        // memory, input or callout.
        let result = unsafe { code.run(&mut *state) };
        assert_eq!(result, 0, "the code stopped");
        regs.copy_from_slice(&frame[..regs.len()]);
        true
    }
}

/// The run as code, or `None` where this CPU gets none.
fn kernel(run: &Run) -> Option<Kernel> {
    WaveBuilder::new(8, 8, &[false], &[], false)?;
    assert!(lockstep_jit::fits(run), "the run fits");
    Some(Kernel {
        inputs: run.inputs.to_vec(),
        steps: run.steps.to_vec(),
        outputs: run.outputs.to_vec(),
    })
}

/// The code of one step, `op` of register 0 and `b` (register 1's value
/// or a constant), into register 2.
fn one_step(op: Op32, b: Operand) -> Option<Kernel> {
    let steps = [Step {
        op,
        a: 0,
        b,
        c: None,
        keep: None,
    }];
    let outputs = [Output {
        reg: 2,
        value: 2,
        masked: false,
    }];
    kernel(&Run {
        inputs: &[0, 1],
        steps: &steps,
        outputs: &outputs,
    })
}

proptest! {
    #[test]
    fn blocks_do_what_their_steps_say(
        (inputs, steps, outputs) in runs(),
        width in prop::sample::select(vec![8usize, 16, 32, 64]),
        mask in prop_oneof![
            any::<u64>(),
            Just(u64::MAX),
            (0u32..64).prop_map(|l| !(1u64 << l)),
        ],
        lanes in prop::collection::vec(
            prop_oneof![
                4 => any::<u32>(),
                // Words the `float` operations treat apart: zeros, one,
                // infinities, quiet and signalling NaNs.
                1 => prop::sample::select(vec![
                    0u32, 0x8000_0000, 0x3F80_0000, 0x7F80_0000, 0xFF80_0000,
                    0x7FC0_0000, 0xFFC1_2345, 0x7F80_0001,
                ]),
            ],
            6 * 64,
        ),
    ) {
        let run = Run { inputs: &inputs, steps: &steps, outputs: &outputs };
        if !lockstep_jit::fits(&run) {
            return Ok(());
        }
        let Some(kernel) = kernel(&run) else { return Ok(()) };
        let mask = if width == 64 { mask } else { mask & ((1 << width) - 1) };
        // A wave with no lane launched does not run.
        prop_assume!(mask != 0);
        let mut want = lanes[..6 * width].to_vec();
        model(&run, &mut want, width, mask);
        let mut got = lanes[..6 * width].to_vec();
        prop_assert!(kernel.run(&mut got, width, mask));
        for r in 0..6 {
            let lanes = r * width..(r + 1) * width;
            prop_assert_eq!(&got[lanes.clone()], &want[lanes], "register {}", r);
        }
    }
}

/// Words at the edges: equal words, the sign bit, shift counts past 31;
/// as `float`s 1, -1, the infinities and a signalling NaN.
const EDGES: [u32; 15] = [
    0,
    1,
    31,
    32,
    33,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFF,
    0x1234_5678,
    0xFFFF_FFFE,
    0x3F80_0000,
    0xBF80_0000,
    0x7F80_0000,
    0xFF80_0000,
    0x7F80_0001,
];

/// Every operation, with a register and with constants as its second
/// operand, on every pair of words at the edges (equal words, the sign
/// bit, shift counts past 31), checked against hand-written results.
#[test]
fn every_operation_on_edge_values() {
    let pairs: Vec<(u32, u32)> = EDGES.iter().flat_map(|&x| EDGES.map(|y| (x, y))).collect();
    // At most 64 lanes a run.
    for pairs in pairs.chunks(64) {
        edge_pairs(pairs);
    }
}

/// `Op32::eval`, the semantics the interpreter's lane loops and the
/// constant folding of blocks take, against the hand-written model, on
/// the same edge pairs and pseudo-random words.
#[test]
fn the_semantics_agree_with_the_model() {
    // The edges, a quiet NaN with a payload, subnormals and floats at
    // the ends of `int`.
    let mut words: Vec<u32> = EDGES.to_vec();
    words.extend([0x7FC0_1234, 0x8000_0001, 0x4F00_0000, 0xCF00_0001]);
    let mut x = 0x9E37_79B9u32;
    for _ in 0..64 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        words.push(x);
    }
    for op in OPS.into_iter().filter(|&op| op != Op32::Select) {
        for &a in &words {
            for &b in &words {
                assert_eq!(op.eval(a, b, 0), apply(op, a, b), "{op:?} {a:#x} {b:#x}");
            }
        }
    }
    for (c, want) in [(0, 3), (1, 2), (0x8000_0000, 2)] {
        assert_eq!(Op32::Select.eval(c, 2, 3), want);
    }
}

fn edge_pairs(pairs: &[(u32, u32)]) {
    let width = pairs.len().next_power_of_two().max(8);
    let mut regs = vec![0u32; 3 * width];
    for (l, &(x, y)) in pairs.iter().enumerate() {
        regs[l] = x;
        regs[width + l] = y;
    }
    for op in OPS.into_iter().filter(|&op| op != Op32::Select) {
        for imm in [None, Some(0u32), Some(31), Some(33), Some(0x8000_0000)] {
            let Some(kernel) = one_step(op, imm.map_or(Operand::Value(1), Operand::Imm)) else {
                return;
            };
            let mut got = regs.clone();
            assert!(kernel.run(&mut got, width, u64::MAX));
            for (l, &(x, y)) in pairs.iter().enumerate() {
                let y = imm.unwrap_or(y);
                let want = match op {
                    Op32::Add => x.wrapping_add(y),
                    Op32::Sub => x.wrapping_sub(y),
                    Op32::Mul => ((u64::from(x) * u64::from(y)) & 0xFFFF_FFFF) as u32,
                    Op32::Shl => ((u64::from(x) << (y & 31)) & 0xFFFF_FFFF) as u32,
                    Op32::ShrU => x >> (y & 31),
                    Op32::And => x & y,
                    Op32::Or => x | y,
                    Op32::Xor => x ^ y,
                    Op32::Eq => u32::from(x == y),
                    Op32::Ne => u32::from(x != y),
                    Op32::LtU => u32::from(x < y),
                    Op32::LeU => u32::from(x <= y),
                    Op32::GtU => u32::from(x > y),
                    Op32::GeU => u32::from(x >= y),
                    // Signed: ones shifted in below a set sign bit, and
                    // the orders of the words with the sign bit flipped.
                    Op32::ShrS if x >> 31 == 1 => !(!x >> (y & 31)),
                    Op32::ShrS => x >> (y & 31),
                    Op32::LtS => u32::from(x ^ 0x8000_0000 < y ^ 0x8000_0000),
                    Op32::LeS => u32::from(x ^ 0x8000_0000 <= y ^ 0x8000_0000),
                    Op32::GtS => u32::from(x ^ 0x8000_0000 > y ^ 0x8000_0000),
                    Op32::GeS => u32::from(x ^ 0x8000_0000 >= y ^ 0x8000_0000),
                    Op32::UMin => {
                        if x < y {
                            x
                        } else {
                            y
                        }
                    }
                    Op32::UMax => {
                        if x > y {
                            x
                        } else {
                            y
                        }
                    }
                    Op32::SMin => {
                        if (x ^ 0x8000_0000) < (y ^ 0x8000_0000) {
                            x
                        } else {
                            y
                        }
                    }
                    Op32::SMax => {
                        if (x ^ 0x8000_0000) > (y ^ 0x8000_0000) {
                            x
                        } else {
                            y
                        }
                    }
                    // `float` and one-operand operations: the model's
                    // (see `float_operations_by_hand` too).
                    _ => apply(op, x, y),
                };
                assert_eq!(got[2 * width + l], want, "{op:?} {x:#x} {y:#x} {imm:?}");
            }
            assert_eq!(got[..2 * width], regs[..2 * width], "inputs untouched");
        }
    }
}

/// The `float` operations, conversions and the other one-operand
/// operations, and the integer `min` and `max`, on cases worked out by
/// hand, with the second operand in a register and as a
/// constant: rounding, subnormals, signed zeros, infinities, and which NaN
/// comes out.
#[test]
fn float_operations_by_hand() {
    const ONE: u32 = 0x3F80_0000;
    const INF: u32 = 0x7F80_0000;
    const NEG_INF: u32 = 0xFF80_0000;
    const NEG_ZERO: u32 = 0x8000_0000;
    const DEFAULT_NAN: u32 = 0xFFC0_0000;
    #[rustfmt::skip]
    let cases: &[(Op32, u32, u32, u32)] = &[
        (Op32::FAdd, ONE, 0x4000_0000, 0x4040_0000),       // 1 + 2 = 3
        (Op32::FAdd, INF, NEG_INF, DEFAULT_NAN),           // invalid
        (Op32::FAdd, 0x7FC0_0001, 0xFFC0_0002, 0x7FC0_0001), // the first NaN
        (Op32::FAdd, ONE, 0xFFC0_0002, 0xFFC0_0002),       // the only NaN
        (Op32::FAdd, 1, 1, 2),                             // subnormals kept
        (Op32::FAdd, NEG_ZERO, NEG_ZERO, NEG_ZERO),
        (Op32::FAdd, NEG_ZERO, 0, 0),
        (Op32::FSub, 0x0080_0000, 1, 0x007F_FFFF),         // below the smallest normal
        (Op32::FSub, ONE, ONE, 0),
        (Op32::FSub, INF, INF, DEFAULT_NAN),
        (Op32::FMul, 0x7F80_0001, ONE, 0x7FC0_0001),       // a signalling NaN, quieted
        (Op32::FMul, ONE, 0xFF80_0005, 0xFFC0_0005),
        (Op32::FMul, 0xFF80_0005, 0x7F80_0001, 0xFFC0_0005),
        (Op32::FMul, 0, NEG_INF, DEFAULT_NAN),
        (Op32::FMul, 0, 0xBF80_0000, NEG_ZERO),            // 0 · -1 = -0
        (Op32::FMul, 0x7F7F_FFFF, 0x4000_0000, INF),       // overflow
        (Op32::FDiv, ONE, 0x4040_0000, 0x3EAA_AAAB),       // 1/3, rounded up
        (Op32::FDiv, 0, 0, DEFAULT_NAN),
        (Op32::FDiv, ONE, 0, INF),
        (Op32::FDiv, 0xBF80_0000, 0, NEG_INF),
        (Op32::FDiv, ONE, NEG_ZERO, NEG_INF),
        (Op32::FEq, 0x7FC0_0000, 0x7FC0_0000, 0),
        (Op32::FEq, NEG_ZERO, 0, 1),
        (Op32::FNe, 0x7FC0_0000, 0x7FC0_0000, 1),
        (Op32::FNe, NEG_ZERO, 0, 0),
        (Op32::FLt, NEG_ZERO, 0, 0),
        (Op32::FLt, ONE, 0x7FC0_0000, 0),
        (Op32::FLt, NEG_INF, 0xFF7F_FFFF, 1),
        (Op32::FLe, NEG_ZERO, 0, 1),
        (Op32::FLe, 0x7FC0_0000, ONE, 0),
        (Op32::FGt, INF, 0x7F7F_FFFF, 1),
        (Op32::FGt, 0xBF80_0000, 0xC000_0000, 1),          // -1 > -2
        (Op32::FGt, 0x7FC0_0000, ONE, 0),
        (Op32::FGe, 1, 0, 1),
        (Op32::FGe, ONE, 0x7FC0_0000, 0),
        (Op32::FGe, NEG_ZERO, 0, 1),
        (Op32::FMin, 0x7FC0_0000, ONE, ONE),                // a NaN loses
        (Op32::FMin, ONE, 0x7F80_0001, ONE),
        (Op32::FMin, 0x7F80_0001, 0xFFC0_0002, 0xFFC0_0002), // two NaNs: the second, as it is
        (Op32::FMin, 0, NEG_ZERO, NEG_ZERO),
        (Op32::FMin, NEG_ZERO, 0, NEG_ZERO),
        (Op32::FMin, NEG_INF, 0x40A0_0000, NEG_INF),
        (Op32::FMin, 1, 0, 0),                               // a subnormal above zero
        (Op32::FMin, 0xBF80_0000, 0xC000_0000, 0xC000_0000), // min(-1, -2) = -2
        (Op32::FMax, 0, NEG_ZERO, 0),
        (Op32::FMax, NEG_ZERO, 0, 0),
        (Op32::FMax, 0x7F80_0001, ONE, ONE),
        (Op32::FMax, ONE, 0xFFC0_0002, ONE),
        (Op32::FMax, 0xFFC0_0002, 0x7FC0_0003, 0x7FC0_0003),
        (Op32::FMax, ONE, 0x4000_0000, 0x4000_0000),
        (Op32::FMax, NEG_INF, 0xFF7F_FFFF, 0xFF7F_FFFF),
        (Op32::SMin, 0xFFFF_FFFF, 1, 0xFFFF_FFFF),          // -1 < 1
        (Op32::UMin, 0xFFFF_FFFF, 1, 1),
        (Op32::SMax, 0x8000_0000, 0x7FFF_FFFF, 0x7FFF_FFFF),
        (Op32::UMax, 0x8000_0000, 0x7FFF_FFFF, 0x8000_0000),
        // One operand (the second is ignored).
        (Op32::UToF, 0xFFFF_FFFF, 0, 0x4F80_0000),           // rounds up to 2^32
        (Op32::UToF, 0x8000_0001, 0, 0x4F00_0000),           // down to 2^31
        (Op32::UToF, 16_777_217, 0, 0x4B80_0000),            // a tie, to even
        (Op32::UToF, 16_777_219, 0, 0x4B80_0002),            // a tie, to even
        (Op32::UToF, 0, 0, 0),
        (Op32::IToF, 0xFFFF_FFFF, 0, 0xBF80_0000),           // -1
        (Op32::IToF, 0x8000_0000, 0, 0xCF00_0000),           // -2^31
        (Op32::IToF, 16_777_217, 0, 0x4B80_0000),
        (Op32::FToI, 0x4F00_0000, 0, 0x7FFF_FFFF),           // 2^31 saturates
        (Op32::FToI, 0x4EFF_FFFF, 0, 0x7FFF_FF80),           // the largest below
        (Op32::FToI, 0xCF00_0000, 0, 0x8000_0000),           // -2^31
        (Op32::FToI, NEG_INF, 0, 0x8000_0000),
        (Op32::FToI, 0x7FC0_0000, 0, 0),                     // NaN
        (Op32::FToI, 0xBFC0_0000, 0, 0xFFFF_FFFF),           // -1.5 truncates to -1
        (Op32::FToU, 0xBFC0_0000, 0, 0),                     // negative
        (Op32::FToU, 0xFF80_0001, 0, 0),                     // NaN
        (Op32::FToU, NEG_ZERO, 0, 0),
        (Op32::FToU, 0x4079_999A, 0, 3),                     // 3.9
        (Op32::FToU, 0x4F00_0000, 0, 0x8000_0000),           // 2^31
        (Op32::FToU, 0x4F7F_FFFF, 0, 0xFFFF_FF00),           // the largest below 2^32
        (Op32::FToU, 0x4F80_0000, 0, 0xFFFF_FFFF),           // 2^32 saturates
        (Op32::FToU, INF, 0, 0xFFFF_FFFF),
        (Op32::FNeg, 0x7FC0_0000, 0, DEFAULT_NAN),           // the sign of a NaN too
        (Op32::FNeg, 0, 0, NEG_ZERO),
        (Op32::FAbs, 0xFFC0_0001, 0, 0x7FC0_0001),
        (Op32::FAbs, NEG_INF, 0, INF),
        (Op32::IAbs, 0x8000_0000, 0, 0x8000_0000),           // wraps
        (Op32::IAbs, 0xFFFF_FFFB, 0, 5),
        (Op32::INeg, 1, 0, 0xFFFF_FFFF),
        (Op32::INeg, 0x8000_0000, 0, 0x8000_0000),
        (Op32::Not, 0x0F0F_0F0F, 0, 0xF0F0_F0F0),
        (Op32::FSqrt, 0x4080_0000, 0, 0x4000_0000),          // √4 = 2
        (Op32::FSqrt, 0x4000_0000, 0, 0x3FB5_04F3),          // √2, rounded
        (Op32::FSqrt, 0x0000_0010, 0, 0x1B35_04F3),          // √(2^-145), a subnormal
        (Op32::FSqrt, NEG_ZERO, 0, NEG_ZERO),
        (Op32::FSqrt, 0xBF80_0000, 0, DEFAULT_NAN),          // √-1
        (Op32::FSqrt, INF, 0, INF),
        (Op32::FSqrt, 0x7F80_0001, 0, 0x7FC0_0001),
        (Op32::FFloor, 0xC020_0000, 0, 0xC040_0000),         // floor(-2.5) = -3
        (Op32::FFloor, 0x3F7F_FFFF, 0, 0),                   // floor(0.99…) = 0
        (Op32::FFloor, NEG_ZERO, 0, NEG_ZERO),
        (Op32::FFloor, 0x7F80_0001, 0, 0x7FC0_0001),
        (Op32::FCeil, 0xBF00_0000, 0, NEG_ZERO),             // ceil(-0.5) = -0
        (Op32::FCeil, 0x3F80_0001, 0, 0x4000_0000),          // ceil(1 + ulp) = 2
        (Op32::FCeil, 1, 0, ONE),                            // a subnormal
        (Op32::FTrunc, 0xC020_0000, 0, 0xC000_0000),         // trunc(-2.5) = -2
        (Op32::FTrunc, 0x4B80_0001, 0, 0x4B80_0001),         // already an integer
        (Op32::FRound, 0x4020_0000, 0, 0x4000_0000),         // round(2.5) = 2
        (Op32::FRound, 0x4060_0000, 0, 0x4080_0000),         // round(3.5) = 4
        (Op32::FRound, 0xC020_0000, 0, 0xC000_0000),         // round(-2.5) = -2
        (Op32::FRound, 0x3F00_0000, 0, 0),                   // round(0.5) = 0
        (Op32::FRound, NEG_INF, 0, NEG_INF),
        (Op32::CountBits, 0xFFFF_FFFF, 0, 32),
        (Op32::CountBits, 0x8000_0001, 0, 2),
        (Op32::CountBits, 0, 0, 0),
        (Op32::ReverseBits, 1, 0, 0x8000_0000),
        (Op32::ReverseBits, 0x1234_5678, 0, 0x1E6A_2C48),
        (Op32::FirstBitLow, 0, 0, 0xFFFF_FFFF),
        (Op32::FirstBitLow, 0x8000_0000, 0, 31),
        (Op32::FirstBitLow, 0x0000_0C00, 0, 10),
        (Op32::FirstBitHighU, 0, 0, 0xFFFF_FFFF),
        (Op32::FirstBitHighU, 1, 0, 0),
        (Op32::FirstBitHighU, 0xFFFF_FFFF, 0, 31),
        (Op32::FirstBitHighU, 0xAAAA_AAAA, 0, 31),           // negative as an `int`
        (Op32::FirstBitHighU, 0x01FF_FFFF, 0, 24),           // 2^25 - 1 as a float is 2^25
        (Op32::FirstBitHighU, 0x7FFF_FFFF, 0, 30),
        (Op32::FirstBitHighS, 0xFFFF_FFFF, 0, 0xFFFF_FFFF), // -1: no bit differs
        (Op32::FirstBitHighS, 0, 0, 0xFFFF_FFFF),
        (Op32::FirstBitHighS, 0xFFFF_FFFE, 0, 0),            // -2
        (Op32::FirstBitHighS, 0x8000_0000, 0, 30),
        (Op32::FirstBitHighS, 0x7FFF_FFFF, 0, 30),
        (Op32::FirstBitHighS, 0x0000_0100, 0, 8),
    ];
    let width = 64;
    for constant in [false, true] {
        for (i, &(op, x, y, want)) in cases.iter().enumerate() {
            let b = if constant {
                Operand::Imm(y)
            } else {
                Operand::Value(1)
            };
            let Some(kernel) = one_step(op, b) else {
                return;
            };
            let mut regs = vec![0u32; 3 * width];
            regs[..width].fill(x);
            regs[width..2 * width].fill(y);
            assert!(kernel.run(&mut regs, width, u64::MAX));
            assert_eq!(
                regs[2 * width + i % width],
                want,
                "{op:?} {x:#x} {y:#x} (constant {constant})"
            );
        }
    }
}

/// Runs that do not fit are refused.
#[test]
fn runs_too_wide_for_the_registers_are_refused() {
    // Twelve inputs all written back: twelve values live at the end.
    let inputs: Vec<u32> = (0..12).collect();
    let outputs: Vec<Output> = (0..12)
        .map(|v| Output {
            reg: 12 + v,
            value: v as u16,
            masked: false,
        })
        .collect();
    let wide = Run {
        inputs: &inputs,
        steps: &[],
        outputs: &outputs,
    };
    assert!(!lockstep_jit::fits(&wide));
    // A step reading a value not yet made.
    let early = [Step {
        op: Op32::Add,
        a: 0,
        b: Operand::Value(1),
        c: None,
        keep: None,
    }];
    let bad = Run {
        inputs: &[0],
        steps: &early,
        outputs: &[],
    };
    assert!(!lockstep_jit::fits(&bad));
    // Operands that do not fit the operation: a select without its third
    // value or with a constant second, a third value on an addition.
    let misfits = [
        (Op32::Select, Operand::Value(1), None),
        (Op32::Select, Operand::Imm(7), Some(1)),
        (Op32::Add, Operand::Value(1), Some(1)),
    ];
    for (op, second, c) in misfits {
        let step = [Step {
            op,
            a: 0,
            b: second,
            c,
            keep: None,
        }];
        let run = Run {
            inputs: &[0, 1],
            steps: &step,
            outputs: &[Output {
                reg: 2,
                value: 2,
                masked: false,
            }],
        };
        assert!(!lockstep_jit::fits(&run), "{op:?} {second:?} {c:?}");
        if let Some(mut b) = WaveBuilder::new(8, 8, &[false; 3], &[], false) {
            assert!(!b.block(&run), "{op:?} {second:?} {c:?}");
        }
    }
    // A copy, with four lanes launched: every lane is written.
    let copy = [Output {
        reg: 1,
        value: 0,
        masked: false,
    }];
    let Some(kernel) = kernel(&Run {
        inputs: &[0],
        steps: &[],
        outputs: &copy,
    }) else {
        return;
    };
    let mut regs: Vec<u32> = (0..16).collect();
    assert!(kernel.run(&mut regs, 8, 0xF0));
    assert_eq!(regs[8..], [0, 1, 2, 3, 4, 5, 6, 7]);
    // Widths the code cannot take.
    assert!(!kernel.run(&mut regs[..8], 4, 0xF));
}

/// `Select` picks by the whole word of its condition: words that are zero
/// only in some bytes, or only in their sign bits, are true. Written back
/// masked and unmasked, and kept where the step itself is masked.
#[test]
fn select_by_hand() {
    let conditions = [
        0u32,
        1,
        0x100,
        0x8000_0000,
        0x7FFF_FFFF,
        0xFFFF_FFFF,
        0x0001_0000,
        0,
    ];
    let width = 16;
    let mut regs = vec![0u32; 6 * width];
    for l in 0..width {
        regs[l] = conditions[l % 8];
        regs[width + l] = 100 + l as u32;
        regs[2 * width + l] = 200 + l as u32;
        regs[5 * width + l] = 500 + l as u32;
    }
    let steps = [
        Step {
            op: Op32::Select,
            a: 0,
            b: Operand::Value(1),
            c: Some(2),
            keep: None,
        },
        // The other order, kept where the lane is inactive.
        Step {
            op: Op32::Select,
            a: 0,
            b: Operand::Value(2),
            c: Some(1),
            keep: Some(3),
        },
    ];
    let outputs = [
        Output {
            reg: 3,
            value: 3,
            masked: false,
        },
        Output {
            reg: 4,
            value: 4,
            masked: false,
        },
        Output {
            reg: 5,
            value: 3,
            masked: true,
        },
    ];
    let Some(kernel) = kernel(&Run {
        inputs: &[0, 1, 2],
        steps: &steps,
        outputs: &outputs,
    }) else {
        return;
    };
    let mask: u64 = 0b1010_0110_1100_0011;
    let mut got = regs.clone();
    assert!(kernel.run(&mut got, width, mask));
    for l in 0..width {
        let (yes, no) = (100 + l as u32, 200 + l as u32);
        let picked = if conditions[l % 8] != 0 { yes } else { no };
        let other = if conditions[l % 8] != 0 { no } else { yes };
        let active = mask >> l & 1 == 1;
        assert_eq!(got[3 * width + l], picked, "lane {l}");
        assert_eq!(
            got[4 * width + l],
            if active { other } else { picked },
            "lane {l}"
        );
        assert_eq!(
            got[5 * width + l],
            if active { picked } else { 500 + l as u32 },
            "lane {l}"
        );
    }
}
