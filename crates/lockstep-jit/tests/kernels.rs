//! Kernels against a lane-by-lane model of the same runs, on every lane
//! of every register (inactive lanes, registers not written, the high
//! halves of the 64-bit lanes).

use lockstep_jit::{Builder, Kernel, Op, Operand, Output, Run, Step};
use proptest::prelude::*;

const OPS: [Op; 61] = [
    Op::Add,
    Op::Sub,
    Op::Mul,
    Op::UDiv,
    Op::URem,
    Op::SDiv,
    Op::SRem,
    Op::Shl,
    Op::ShrU,
    Op::ShrS,
    Op::And,
    Op::Or,
    Op::Xor,
    Op::Eq,
    Op::Ne,
    Op::LtU,
    Op::LeU,
    Op::GtU,
    Op::GeU,
    Op::LtS,
    Op::LeS,
    Op::GtS,
    Op::GeS,
    Op::FAdd,
    Op::FSub,
    Op::FMul,
    Op::FDiv,
    Op::FEq,
    Op::FNe,
    Op::FLt,
    Op::FLe,
    Op::FGt,
    Op::FGe,
    Op::UMin,
    Op::UMax,
    Op::SMin,
    Op::SMax,
    Op::FMin,
    Op::FMax,
    Op::Not,
    Op::INeg,
    Op::IAbs,
    Op::FNeg,
    Op::FAbs,
    Op::IToF,
    Op::UToF,
    Op::FToI,
    Op::FToU,
    Op::FSqrt,
    Op::FFloor,
    Op::FCeil,
    Op::FTrunc,
    Op::FRound,
    Op::CountBits,
    Op::ReverseBits,
    Op::FirstBitLow,
    Op::FirstBitHighU,
    Op::FirstBitHighS,
    Op::Select,
    Op::F32ToF16,
    Op::F16ToF32,
];

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
fn apply(op: Op, x: u32, y: u32) -> u32 {
    match op {
        Op::FAdd => float_arith(x, y, |a, b| a + b),
        Op::FSub => float_arith(x, y, |a, b| a - b),
        Op::FMul => float_arith(x, y, |a, b| a * b),
        Op::FDiv => float_arith(x, y, |a, b| a / b),
        Op::FEq => float_test(x, y, f32::eq),
        Op::FNe => float_test(x, y, f32::ne),
        Op::FLt => float_test(x, y, f32::lt),
        Op::FLe => float_test(x, y, f32::le),
        Op::FGt => float_test(x, y, f32::gt),
        Op::FGe => float_test(x, y, f32::ge),
        Op::UDiv | Op::URem | Op::SDiv | Op::SRem if y == 0 => u32::MAX,
        Op::UDiv => x / y,
        Op::URem => x % y,
        Op::SDiv => (x as i32).wrapping_div(y as i32) as u32,
        Op::SRem => (x as i32).wrapping_rem(y as i32) as u32,
        Op::UMin => x.min(y),
        Op::UMax => x.max(y),
        Op::SMin => (x as i32).min(y as i32) as u32,
        Op::SMax => (x as i32).max(y as i32) as u32,
        Op::FMin => float_min_max(x, y, true),
        Op::FMax => float_min_max(x, y, false),
        // One operand; Rust's `as` rounds to nearest, and truncates and
        // saturates (NaN to 0).
        Op::Not => !x,
        Op::INeg => x.wrapping_neg(),
        Op::IAbs => (x as i32).wrapping_abs() as u32,
        Op::FNeg => x ^ 0x8000_0000,
        Op::FAbs => x & 0x7FFF_FFFF,
        Op::IToF => (x as i32 as f32).to_bits(),
        Op::UToF => (x as f32).to_bits(),
        Op::FToI => f32::from_bits(x) as i32 as u32,
        Op::FToU => f32::from_bits(x) as u32,
        Op::FFloor => rounded(x, f32::floor),
        Op::FCeil => rounded(x, f32::ceil),
        Op::FTrunc => rounded(x, f32::trunc),
        Op::FRound => rounded(x, f32::round_ties_even),
        // The `half` crate's conversions: to nearest even, NaNs quieted.
        Op::F32ToF16 => u32::from(half::f16::from_f32(f32::from_bits(x)).to_bits()),
        Op::F16ToF32 => half::f16::from_bits(x as u16).to_f32().to_bits(),
        Op::CountBits => x.count_ones(),
        Op::ReverseBits => x.reverse_bits(),
        Op::FirstBitLow => match x {
            0 => u32::MAX,
            x => x.trailing_zeros(),
        },
        // The highest bit set; for a signed word, the highest that differs
        // from the sign bit.
        Op::FirstBitHighU | Op::FirstBitHighS => {
            let x = if op == Op::FirstBitHighS && (x as i32) < 0 {
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
        Op::FSqrt => {
            let a = f32::from_bits(x);
            if a.is_nan() {
                x | 0x0040_0000
            } else if a < 0.0 {
                0xFFC0_0000
            } else {
                a.sqrt().to_bits()
            }
        }
        Op::Add => x.wrapping_add(y),
        Op::Sub => x.wrapping_sub(y),
        Op::Mul => x.wrapping_mul(y),
        Op::Shl => x.wrapping_shl(y % 32),
        Op::ShrU => x.wrapping_shr(y % 32),
        Op::And => x & y,
        Op::Or => x | y,
        Op::Xor => x ^ y,
        Op::Eq => (x == y) as u32,
        Op::Ne => (x != y) as u32,
        Op::LtU => (x < y) as u32,
        Op::LeU => (x <= y) as u32,
        Op::GtU => (x > y) as u32,
        Op::GeU => (x >= y) as u32,
        Op::ShrS => (x as i32).wrapping_shr(y % 32) as u32,
        Op::LtS => ((x as i32) < (y as i32)) as u32,
        Op::LeS => ((x as i32) <= (y as i32)) as u32,
        Op::GtS => ((x as i32) > (y as i32)) as u32,
        Op::GeS => ((x as i32) >= (y as i32)) as u32,
        Op::Select => panic!("three operands: `model` picks"),
    }
}

/// What the run does to `regs`, one lane at a time.
fn model(run: &Run, regs: &mut [u64], width: usize, mask: u128) {
    for l in 0..width {
        let active = mask >> l & 1 == 1;
        let mut values: Vec<u32> = run
            .inputs
            .iter()
            .map(|&r| regs[r as usize * width + l] as u32)
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
                regs[o.reg as usize * width + l] = u64::from(values[o.value as usize]);
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
                                (Op::Select, Operand::Imm(_)) => (Operand::Value(c), Some(c)),
                                (Op::Select, b) => (b, Some(c)),
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

fn kernel(run: &Run) -> Option<Kernel> {
    let mut b = Builder::new()?;
    let k = b.add(run).expect("the run fits");
    Some(b.finish().expect("executable").swap_remove(k))
}

/// The kernel of one step, `op` of register 0 and `b` (register 1's value
/// or a constant), into register 2.
fn one_step(op: Op, b: Operand) -> Option<Kernel> {
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
    fn kernels_do_what_their_steps_say(
        (inputs, steps, outputs) in runs(),
        chunks in 1usize..=16,
        // Every lane active takes the kernel's other entry; one lane off
        // must not.
        mask in prop_oneof![
            any::<u128>(),
            Just(u128::MAX),
            Just(0u128),
            (0u32..128).prop_map(|l| !(1u128 << l)),
        ],
        lanes in prop::collection::vec(
            prop_oneof![
                4 => any::<u64>(),
                // Words the `float` operations treat apart: zeros, one,
                // infinities, quiet and signalling NaNs.
                1 => prop::sample::select(vec![
                    0u64, 0x8000_0000, 0x3F80_0000, 0x7F80_0000, 0xFF80_0000,
                    0x7FC0_0000, 0xFFC1_2345, 0x7F80_0001,
                ]),
            ],
            6 * 128,
        ),
    ) {
        let run = Run { inputs: &inputs, steps: &steps, outputs: &outputs };
        let Some(kernel) = kernel(&run) else { return Ok(()) };
        let width = chunks * 8;
        let mask = if width == 128 { mask } else { mask & ((1 << width) - 1) };
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

/// Every operation, with a register and with constants as its second
/// operand, on every pair of words at the edges (equal words, the sign
/// bit, shift counts past 31), checked against hand-written results.
#[test]
fn every_operation_on_edge_values() {
    let edges = [
        0u32,
        1,
        31,
        32,
        33,
        0x7FFF_FFFF,
        0x8000_0000,
        0xFFFF_FFFF,
        0x1234_5678,
        0xFFFF_FFFE,
        // `float`: 1, -1, the infinities, a signalling NaN.
        0x3F80_0000,
        0xBF80_0000,
        0x7F80_0000,
        0xFF80_0000,
        0x7F80_0001,
    ];
    let pairs: Vec<(u32, u32)> = edges.iter().flat_map(|&x| edges.map(|y| (x, y))).collect();
    // At most 128 lanes a run.
    for pairs in pairs.chunks(128) {
        edge_pairs(pairs);
    }
}

fn edge_pairs(pairs: &[(u32, u32)]) {
    let width = pairs.len().div_ceil(8) * 8;
    let mut regs = vec![0u64; 3 * width];
    for (l, &(x, y)) in pairs.iter().enumerate() {
        regs[l] = u64::from(x) | 0xDEAD_0000_0000_0000;
        regs[width + l] = u64::from(y);
    }
    for op in OPS.into_iter().filter(|&op| op != Op::Select) {
        for imm in [None, Some(0u32), Some(31), Some(33), Some(0x8000_0000)] {
            let Some(kernel) = one_step(op, imm.map_or(Operand::Value(1), Operand::Imm)) else {
                return;
            };
            let mut got = regs.clone();
            assert!(kernel.run(&mut got, width, u128::MAX));
            for (l, &(x, y)) in pairs.iter().enumerate() {
                let y = imm.unwrap_or(y);
                let want = match op {
                    Op::Add => x.wrapping_add(y),
                    Op::Sub => x.wrapping_sub(y),
                    Op::Mul => ((u64::from(x) * u64::from(y)) & 0xFFFF_FFFF) as u32,
                    Op::Shl => ((u64::from(x) << (y & 31)) & 0xFFFF_FFFF) as u32,
                    Op::ShrU => x >> (y & 31),
                    Op::And => x & y,
                    Op::Or => x | y,
                    Op::Xor => x ^ y,
                    Op::Eq => u32::from(x == y),
                    Op::Ne => u32::from(x != y),
                    Op::LtU => u32::from(x < y),
                    Op::LeU => u32::from(x <= y),
                    Op::GtU => u32::from(x > y),
                    Op::GeU => u32::from(x >= y),
                    // Signed: ones shifted in below a set sign bit, and
                    // the orders of the words with the sign bit flipped.
                    Op::ShrS if x >> 31 == 1 => !(!x >> (y & 31)),
                    Op::ShrS => x >> (y & 31),
                    Op::LtS => u32::from(x ^ 0x8000_0000 < y ^ 0x8000_0000),
                    Op::LeS => u32::from(x ^ 0x8000_0000 <= y ^ 0x8000_0000),
                    Op::GtS => u32::from(x ^ 0x8000_0000 > y ^ 0x8000_0000),
                    Op::GeS => u32::from(x ^ 0x8000_0000 >= y ^ 0x8000_0000),
                    Op::UMin => {
                        if x < y {
                            x
                        } else {
                            y
                        }
                    }
                    Op::UMax => {
                        if x > y {
                            x
                        } else {
                            y
                        }
                    }
                    Op::SMin => {
                        if (x ^ 0x8000_0000) < (y ^ 0x8000_0000) {
                            x
                        } else {
                            y
                        }
                    }
                    Op::SMax => {
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
                assert_eq!(
                    got[2 * width + l],
                    u64::from(want),
                    "{op:?} {x:#x} {y:#x} {imm:?}"
                );
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
    let cases: &[(Op, u32, u32, u32)] = &[
        (Op::FAdd, ONE, 0x4000_0000, 0x4040_0000),       // 1 + 2 = 3
        (Op::FAdd, INF, NEG_INF, DEFAULT_NAN),           // invalid
        (Op::FAdd, 0x7FC0_0001, 0xFFC0_0002, 0x7FC0_0001), // the first NaN
        (Op::FAdd, ONE, 0xFFC0_0002, 0xFFC0_0002),       // the only NaN
        (Op::FAdd, 1, 1, 2),                             // subnormals kept
        (Op::FAdd, NEG_ZERO, NEG_ZERO, NEG_ZERO),
        (Op::FAdd, NEG_ZERO, 0, 0),
        (Op::FSub, 0x0080_0000, 1, 0x007F_FFFF),         // below the smallest normal
        (Op::FSub, ONE, ONE, 0),
        (Op::FSub, INF, INF, DEFAULT_NAN),
        (Op::FMul, 0x7F80_0001, ONE, 0x7FC0_0001),       // a signalling NaN, quieted
        (Op::FMul, ONE, 0xFF80_0005, 0xFFC0_0005),
        (Op::FMul, 0xFF80_0005, 0x7F80_0001, 0xFFC0_0005),
        (Op::FMul, 0, NEG_INF, DEFAULT_NAN),
        (Op::FMul, 0, 0xBF80_0000, NEG_ZERO),            // 0 · -1 = -0
        (Op::FMul, 0x7F7F_FFFF, 0x4000_0000, INF),       // overflow
        (Op::FDiv, ONE, 0x4040_0000, 0x3EAA_AAAB),       // 1/3, rounded up
        (Op::FDiv, 0, 0, DEFAULT_NAN),
        (Op::FDiv, ONE, 0, INF),
        (Op::FDiv, 0xBF80_0000, 0, NEG_INF),
        (Op::FDiv, ONE, NEG_ZERO, NEG_INF),
        (Op::FEq, 0x7FC0_0000, 0x7FC0_0000, 0),
        (Op::FEq, NEG_ZERO, 0, 1),
        (Op::FNe, 0x7FC0_0000, 0x7FC0_0000, 1),
        (Op::FNe, NEG_ZERO, 0, 0),
        (Op::FLt, NEG_ZERO, 0, 0),
        (Op::FLt, ONE, 0x7FC0_0000, 0),
        (Op::FLt, NEG_INF, 0xFF7F_FFFF, 1),
        (Op::FLe, NEG_ZERO, 0, 1),
        (Op::FLe, 0x7FC0_0000, ONE, 0),
        (Op::FGt, INF, 0x7F7F_FFFF, 1),
        (Op::FGt, 0xBF80_0000, 0xC000_0000, 1),          // -1 > -2
        (Op::FGt, 0x7FC0_0000, ONE, 0),
        (Op::FGe, 1, 0, 1),
        (Op::FGe, ONE, 0x7FC0_0000, 0),
        (Op::FGe, NEG_ZERO, 0, 1),
        (Op::FMin, 0x7FC0_0000, ONE, ONE),                // a NaN loses
        (Op::FMin, ONE, 0x7F80_0001, ONE),
        (Op::FMin, 0x7F80_0001, 0xFFC0_0002, 0xFFC0_0002), // two NaNs: the second, as it is
        (Op::FMin, 0, NEG_ZERO, NEG_ZERO),
        (Op::FMin, NEG_ZERO, 0, NEG_ZERO),
        (Op::FMin, NEG_INF, 0x40A0_0000, NEG_INF),
        (Op::FMin, 1, 0, 0),                               // a subnormal above zero
        (Op::FMin, 0xBF80_0000, 0xC000_0000, 0xC000_0000), // min(-1, -2) = -2
        (Op::FMax, 0, NEG_ZERO, 0),
        (Op::FMax, NEG_ZERO, 0, 0),
        (Op::FMax, 0x7F80_0001, ONE, ONE),
        (Op::FMax, ONE, 0xFFC0_0002, ONE),
        (Op::FMax, 0xFFC0_0002, 0x7FC0_0003, 0x7FC0_0003),
        (Op::FMax, ONE, 0x4000_0000, 0x4000_0000),
        (Op::FMax, NEG_INF, 0xFF7F_FFFF, 0xFF7F_FFFF),
        (Op::SMin, 0xFFFF_FFFF, 1, 0xFFFF_FFFF),          // -1 < 1
        (Op::UMin, 0xFFFF_FFFF, 1, 1),
        (Op::SMax, 0x8000_0000, 0x7FFF_FFFF, 0x7FFF_FFFF),
        (Op::UMax, 0x8000_0000, 0x7FFF_FFFF, 0x8000_0000),
        // One operand (the second is ignored).
        (Op::UToF, 0xFFFF_FFFF, 0, 0x4F80_0000),           // rounds up to 2^32
        (Op::UToF, 0x8000_0001, 0, 0x4F00_0000),           // down to 2^31
        (Op::UToF, 16_777_217, 0, 0x4B80_0000),            // a tie, to even
        (Op::UToF, 16_777_219, 0, 0x4B80_0002),            // a tie, to even
        (Op::UToF, 0, 0, 0),
        (Op::IToF, 0xFFFF_FFFF, 0, 0xBF80_0000),           // -1
        (Op::IToF, 0x8000_0000, 0, 0xCF00_0000),           // -2^31
        (Op::IToF, 16_777_217, 0, 0x4B80_0000),
        (Op::FToI, 0x4F00_0000, 0, 0x7FFF_FFFF),           // 2^31 saturates
        (Op::FToI, 0x4EFF_FFFF, 0, 0x7FFF_FF80),           // the largest below
        (Op::FToI, 0xCF00_0000, 0, 0x8000_0000),           // -2^31
        (Op::FToI, NEG_INF, 0, 0x8000_0000),
        (Op::FToI, 0x7FC0_0000, 0, 0),                     // NaN
        (Op::FToI, 0xBFC0_0000, 0, 0xFFFF_FFFF),           // -1.5 truncates to -1
        (Op::FToU, 0xBFC0_0000, 0, 0),                     // negative
        (Op::FToU, 0xFF80_0001, 0, 0),                     // NaN
        (Op::FToU, NEG_ZERO, 0, 0),
        (Op::FToU, 0x4079_999A, 0, 3),                     // 3.9
        (Op::FToU, 0x4F00_0000, 0, 0x8000_0000),           // 2^31
        (Op::FToU, 0x4F7F_FFFF, 0, 0xFFFF_FF00),           // the largest below 2^32
        (Op::FToU, 0x4F80_0000, 0, 0xFFFF_FFFF),           // 2^32 saturates
        (Op::FToU, INF, 0, 0xFFFF_FFFF),
        (Op::FNeg, 0x7FC0_0000, 0, DEFAULT_NAN),           // the sign of a NaN too
        (Op::FNeg, 0, 0, NEG_ZERO),
        (Op::FAbs, 0xFFC0_0001, 0, 0x7FC0_0001),
        (Op::FAbs, NEG_INF, 0, INF),
        (Op::IAbs, 0x8000_0000, 0, 0x8000_0000),           // wraps
        (Op::IAbs, 0xFFFF_FFFB, 0, 5),
        (Op::INeg, 1, 0, 0xFFFF_FFFF),
        (Op::INeg, 0x8000_0000, 0, 0x8000_0000),
        (Op::Not, 0x0F0F_0F0F, 0, 0xF0F0_F0F0),
        (Op::FSqrt, 0x4080_0000, 0, 0x4000_0000),          // √4 = 2
        (Op::FSqrt, 0x4000_0000, 0, 0x3FB5_04F3),          // √2, rounded
        (Op::FSqrt, 0x0000_0010, 0, 0x1B35_04F3),          // √(2^-145), a subnormal
        (Op::FSqrt, NEG_ZERO, 0, NEG_ZERO),
        (Op::FSqrt, 0xBF80_0000, 0, DEFAULT_NAN),          // √-1
        (Op::FSqrt, INF, 0, INF),
        (Op::FSqrt, 0x7F80_0001, 0, 0x7FC0_0001),
        (Op::FFloor, 0xC020_0000, 0, 0xC040_0000),         // floor(-2.5) = -3
        (Op::FFloor, 0x3F7F_FFFF, 0, 0),                   // floor(0.99…) = 0
        (Op::FFloor, NEG_ZERO, 0, NEG_ZERO),
        (Op::FFloor, 0x7F80_0001, 0, 0x7FC0_0001),
        (Op::FCeil, 0xBF00_0000, 0, NEG_ZERO),             // ceil(-0.5) = -0
        (Op::FCeil, 0x3F80_0001, 0, 0x4000_0000),          // ceil(1 + ulp) = 2
        (Op::FCeil, 1, 0, ONE),                            // a subnormal
        (Op::FTrunc, 0xC020_0000, 0, 0xC000_0000),         // trunc(-2.5) = -2
        (Op::FTrunc, 0x4B80_0001, 0, 0x4B80_0001),         // already an integer
        (Op::FRound, 0x4020_0000, 0, 0x4000_0000),         // round(2.5) = 2
        (Op::FRound, 0x4060_0000, 0, 0x4080_0000),         // round(3.5) = 4
        (Op::FRound, 0xC020_0000, 0, 0xC000_0000),         // round(-2.5) = -2
        (Op::FRound, 0x3F00_0000, 0, 0),                   // round(0.5) = 0
        (Op::FRound, NEG_INF, 0, NEG_INF),
        (Op::CountBits, 0xFFFF_FFFF, 0, 32),
        (Op::CountBits, 0x8000_0001, 0, 2),
        (Op::CountBits, 0, 0, 0),
        (Op::ReverseBits, 1, 0, 0x8000_0000),
        (Op::ReverseBits, 0x1234_5678, 0, 0x1E6A_2C48),
        (Op::FirstBitLow, 0, 0, 0xFFFF_FFFF),
        (Op::FirstBitLow, 0x8000_0000, 0, 31),
        (Op::FirstBitLow, 0x0000_0C00, 0, 10),
        (Op::FirstBitHighU, 0, 0, 0xFFFF_FFFF),
        (Op::FirstBitHighU, 1, 0, 0),
        (Op::FirstBitHighU, 0xFFFF_FFFF, 0, 31),
        (Op::FirstBitHighU, 0xAAAA_AAAA, 0, 31),           // negative as an `int`
        (Op::FirstBitHighU, 0x01FF_FFFF, 0, 24),           // 2^25 - 1 as a float is 2^25
        (Op::FirstBitHighU, 0x7FFF_FFFF, 0, 30),
        (Op::FirstBitHighS, 0xFFFF_FFFF, 0, 0xFFFF_FFFF), // -1: no bit differs
        (Op::FirstBitHighS, 0, 0, 0xFFFF_FFFF),
        (Op::FirstBitHighS, 0xFFFF_FFFE, 0, 0),            // -2
        (Op::FirstBitHighS, 0x8000_0000, 0, 30),
        (Op::FirstBitHighS, 0x7FFF_FFFF, 0, 30),
        (Op::FirstBitHighS, 0x0000_0100, 0, 8),
    ];
    let width = cases.len().div_ceil(8) * 8;
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
            let mut regs = vec![0u64; 3 * width];
            regs[..width].fill(u64::from(x));
            regs[width..2 * width].fill(u64::from(y));
            assert!(kernel.run(&mut regs, width, u128::MAX));
            assert_eq!(
                regs[2 * width + i % width],
                u64::from(want),
                "{op:?} {x:#x} {y:#x} (constant {constant})"
            );
        }
    }
}

/// Runs that do not fit are refused, and the builder goes on.
#[test]
fn runs_too_wide_for_the_registers_are_refused() {
    let Some(mut b) = Builder::new() else { return };
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
    assert_eq!(b.add(&wide), None);
    // Ten fit, but name 20 registers.
    let named = Run {
        inputs: &inputs[..10],
        steps: &[],
        outputs: &outputs[..10],
    };
    assert_eq!(b.add(&named), None);
    // A step reading a value not yet made.
    let early = [Step {
        op: Op::Add,
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
    assert_eq!(b.add(&bad), None);
    // Operands that do not fit the operation: a select without its third
    // value or with a constant second, a third value on an addition.
    let misfits = [
        (Op::Select, Operand::Value(1), None),
        (Op::Select, Operand::Imm(7), Some(1)),
        (Op::Add, Operand::Value(1), Some(1)),
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
        assert_eq!(b.add(&run), None, "{op:?} {second:?} {c:?}");
    }
    let copy = [Output {
        reg: 1,
        value: 0,
        masked: false,
    }];
    let k = b
        .add(&Run {
            inputs: &[0],
            steps: &[],
            outputs: &copy,
        })
        .expect("fits");
    let kernel = b.finish().expect("executable").swap_remove(k);
    let mut regs: Vec<u64> = (0..16).collect();
    assert!(kernel.run(&mut regs, 8, 0xF0));
    assert_eq!(regs[8..], [0, 1, 2, 3, 4, 5, 6, 7]);
    // Widths the kernel cannot take, and a register file too short.
    assert!(!kernel.run(&mut regs, 4, 0xF));
    assert!(!kernel.run(&mut regs[..12], 8, 0xFF));
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
    let mut regs = vec![0u64; 6 * width];
    for l in 0..width {
        regs[l] = u64::from(conditions[l % 8]) | 0xDEAD_0000_0000_0000;
        regs[width + l] = 100 + l as u64;
        regs[2 * width + l] = 200 + l as u64;
        regs[5 * width + l] = 500 + l as u64;
    }
    let steps = [
        Step {
            op: Op::Select,
            a: 0,
            b: Operand::Value(1),
            c: Some(2),
            keep: None,
        },
        // The other order, kept where the lane is inactive.
        Step {
            op: Op::Select,
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
    let mask: u128 = 0b1010_0110_1100_0011;
    let mut got = regs.clone();
    assert!(kernel.run(&mut got, width, mask));
    for l in 0..width {
        let (yes, no) = (100 + l as u64, 200 + l as u64);
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
            if active { picked } else { 500 + l as u64 },
            "lane {l}"
        );
    }
}
