//! The x86-64 AVX2 code: the assembler with its constants, and each
//! 32-bit lane operation on eight lanes in vector registers
//! ([`Builder::step`]), which the wave programs of [`wave`] are made of.

// dynasm's `Ry(..)` and `Rx(..)` convert their register numbers with
// `.into()`, also when they already are `u8`.
#![allow(clippy::useless_conversion)]

pub mod wave;

use super::{Op32, Operand, Value};
use dynasmrt::x64::Assembler;
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi, ExecutableBuffer, dynasm};
use std::collections::HashMap;

/// Temporaries and masks, above the value registers `0..VALUE_REGS`.
pub(crate) const TEMP2: u8 = 10;
pub(crate) const RESULT: u8 = 11;
pub(crate) const TEMP: u8 = 12;
/// The active lanes of the chunk as 32-bit words, all ones or zero.
pub(crate) const MASK32: u8 = 15;

const _: () = assert!(super::VALUE_REGS <= TEMP2);

/// A constant vector in the code's data.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Constant {
    /// Any eight words.
    Words([u32; 8]),
    /// The same word in every lane.
    Splat(u32),
    /// Lane `l` holds `1 << l`: a mask byte's bits, one per lane.
    Bits,
    /// The indices of the low words of four 64-bit words, twice (for
    /// `vpermd`).
    LowHalves,
    /// Sixteen bytes, twice (for `vpshufb`): byte `n` is `f(n)`.
    Nibbles(NibbleTable),
}

/// The byte tables of [`Constant::Nibbles`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum NibbleTable {
    /// The number of bits set in `n`.
    Count,
    /// `n`'s four bits reversed.
    Reversed,
    /// `n`'s four bits reversed, in the high half of the byte.
    ReversedHigh,
    /// The bytes of each 32-bit word in reverse order: `3, 2, 1, 0, 7, …`.
    WordBytesReversed,
}

impl NibbleTable {
    fn byte(self, n: u8) -> u8 {
        let reversed = n.reverse_bits() >> 4;
        match self {
            NibbleTable::Count => n.count_ones() as u8,
            NibbleTable::Reversed => reversed,
            NibbleTable::ReversedHigh => reversed << 4,
            NibbleTable::WordBytesReversed => (n & !3) + 3 - (n & 3),
        }
    }
}

pub(crate) struct Builder {
    pub(crate) asm: Assembler,
    constants: HashMap<Constant, DynamicLabel>,
}

/// The executable memory of a wave program.
pub(crate) struct Code(pub(crate) ExecutableBuffer);

/// A step's second operand: a value's register or a constant.
#[derive(Clone, Copy)]
pub(crate) enum Second {
    Reg(u8),
    Imm(u32),
}

/// A step's second operand as a three-operand instruction takes it.
#[derive(Clone, Copy)]
enum Src {
    Reg(u8),
    Mem(DynamicLabel),
}

/// `ins d, a, b` for a three-operand AVX2 instruction, `b` a register or
/// a constant in memory.
macro_rules! three {
    ($asm:expr, $ins:ident, $d:expr, $a:expr, $b:expr) => {
        match $b {
            Src::Reg(b) => dynasm!($asm; .arch x64; $ins Ry($d), Ry($a), Ry(b)),
            Src::Mem(l) => dynasm!($asm; .arch x64; $ins Ry($d), Ry($a), [=>l]),
        }
    };
}

/// `vcmpps d, s1, s2, predicate` on ymm registers: `d` = all ones in the
/// lanes where `s1 <predicate> s2`. Encoded here, as dynasm 5.1 swaps its
/// two sources (as it does `vpblendd`'s and `vshufps`'s).
fn vcmpps(asm: &mut Assembler, d: u8, s1: u8, s2: u8, predicate: u8) {
    // Three-byte VEX: inverted R (d's bit 3), X, B (s2's bit 3) and the
    // 0F map; W = 0, inverted vvvv = s1, L = 1 (256 bits), no prefix; then
    // the opcode, a register-to-register ModRM and the predicate.
    let rxb = (!(d >> 3) & 1) << 7 | 1 << 6 | (!(s2 >> 3) & 1) << 5;
    asm.push(0xC4);
    asm.push(rxb | 0b00001);
    asm.push((!s1 & 0xF) << 3 | 1 << 2);
    asm.push(0xC2);
    asm.push(0b11 << 6 | (d & 7) << 3 | (s2 & 7));
    asm.push(predicate);
}

/// A VEX.256 instruction of the 0F map on registers, `d = op(s1, s2)`:
/// prefix `pp` (0 none, 1 `66`, 2 `F3`, 3 `F2`), `s1` 0 where the
/// instruction takes no second source. For what dynasm 5.1 gets wrong or
/// lacks (`vcmppd`'s operand order, the `double` conversions' mixed
/// widths).
pub(crate) fn vex256(asm: &mut Assembler, pp: u8, opcode: u8, d: u8, s1: u8, s2: u8) {
    let rxb = (!(d >> 3) & 1) << 7 | 1 << 6 | (!(s2 >> 3) & 1) << 5;
    asm.push(0xC4);
    asm.push(rxb | 0b00001);
    asm.push((!s1 & 0xF) << 3 | 1 << 2 | pp);
    asm.push(opcode);
    asm.push(0b11 << 6 | (d & 7) << 3 | (s2 & 7));
}

/// `vpsllq` (`left`) or `vpsrlq` of ymm `s` by `k` bits into ymm `d`,
/// encoded here: dynasm 5.1 assembles `vpsrlq ymm, ymm, imm` with 128-bit
/// registers.
pub(crate) fn shift_q(asm: &mut Assembler, left: bool, d: u8, s: u8, k: u8) {
    // VEX.256.66.0F 73 /6 (left) or /2 ib: the destination in vvvv.
    let ext = if left { 6 } else { 2 };
    asm.push(0xC4);
    asm.push(1 << 7 | 1 << 6 | (!(s >> 3) & 1) << 5 | 0b00001);
    asm.push((!d & 0xF) << 3 | 1 << 2 | 1);
    asm.push(0x73);
    asm.push(0b11 << 6 | ext << 3 | (s & 7));
    asm.push(k);
}

/// `vcvttpd2dq` of ymm `s` into xmm `d`, encoded here (dynasm 5.1 takes
/// no ymm source beside an xmm destination).
fn cvttpd2dq(asm: &mut Assembler, d: u8, s: u8) {
    // Three-byte VEX: inverted R, X, B and the 0F map; W = 0, no vvvv,
    // L = 1, the 66 prefix; opcode E6, a register-to-register ModRM.
    let rxb = (!(d >> 3) & 1) << 7 | 1 << 6 | (!(s >> 3) & 1) << 5;
    asm.push(0xC4);
    asm.push(rxb | 0b00001);
    asm.push(0b0111_1101);
    asm.push(0xE6);
    asm.push(0b11 << 6 | (d & 7) << 3 | (s & 7));
}

impl Builder {
    pub(crate) fn new() -> Option<Builder> {
        Some(Builder {
            asm: Assembler::new().ok()?,
            constants: HashMap::new(),
        })
    }

    pub(crate) fn constant(&mut self, c: Constant) -> DynamicLabel {
        let asm = &mut self.asm;
        *self
            .constants
            .entry(c)
            .or_insert_with(|| asm.new_dynamic_label())
    }

    /// One step of a run on eight lanes into `out`, its operands in the
    /// vector registers `place` gives (`Select`: `TEMP` = all ones where
    /// the condition is zero, which take `c`; `allocate` checked its
    /// operands).
    pub(crate) fn run_step(&mut self, step: &crate::Step, place: &[Option<u8>], out: u8) {
        let at = |v: Value| place[usize::from(v)].expect("a value read is placed");
        match (step.b, step.c) {
            (Operand::Value(b), Some(c)) => dynasm!(self.asm; .arch x64
                ; vpxor Ry(TEMP), Ry(TEMP), Ry(TEMP)
                ; vpcmpeqd Ry(TEMP), Ry(TEMP), Ry(at(step.a))
                ; vpblendvb Ry(out), Ry(at(b)), Ry(at(c)), Ry(TEMP)
            ),
            (b, _) => {
                let b = match b {
                    Operand::Value(b) => Second::Reg(at(b)),
                    Operand::Imm(imm) => Second::Imm(imm),
                };
                self.step(step.op, out, at(step.a), b);
            }
        }
    }

    /// `out = op(a, b)` on eight lanes. `out` is written by the last
    /// instruction only, so it may be `a`'s or `b`'s register.
    pub(crate) fn step(&mut self, op: Op32, out: u8, a: u8, second: Second) {
        // Shifts take a constant count as an immediate, and mask a
        // register count to its low five bits.
        match (op, second) {
            (Op32::Shl, Second::Imm(k)) => {
                dynasm!(self.asm; .arch x64; vpslld Ry(out), Ry(a), (k & 31) as i8);
                return;
            }
            (Op32::ShrU, Second::Imm(k)) => {
                dynasm!(self.asm; .arch x64; vpsrld Ry(out), Ry(a), (k & 31) as i8);
                return;
            }
            (Op32::ShrS, Second::Imm(k)) => {
                dynasm!(self.asm; .arch x64; vpsrad Ry(out), Ry(a), (k & 31) as i8);
                return;
            }
            (op, _) if op.is_unary() => {
                self.unary(op, out, a);
                return;
            }
            (Op32::FMin | Op32::FMax, _) => {
                self.min_max(op == Op32::FMin, out, a, second);
                return;
            }
            (Op32::UDiv | Op32::URem, Second::Imm(d)) => {
                self.divide_by_constant(op == Op32::URem, out, a, d);
                return;
            }
            (Op32::UDiv | Op32::URem | Op32::SDiv | Op32::SRem, _) => {
                self.divide(op, out, a, second);
                return;
            }
            (Op32::Shl | Op32::ShrU | Op32::ShrS, Second::Reg(b)) => {
                let c31 = self.constant(Constant::Splat(31));
                let asm = &mut self.asm;
                dynasm!(asm; .arch x64; vpand Ry(TEMP), Ry(b), [=>c31]);
                match op {
                    Op32::Shl => dynasm!(asm; .arch x64; vpsllvd Ry(out), Ry(a), Ry(TEMP)),
                    Op32::ShrU => dynasm!(asm; .arch x64; vpsrlvd Ry(out), Ry(a), Ry(TEMP)),
                    _ => dynasm!(asm; .arch x64; vpsravd Ry(out), Ry(a), Ry(TEMP)),
                }
                return;
            }
            _ => {}
        }
        // The other operations read a constant from the code's data.
        let b = match second {
            Second::Reg(b) => Src::Reg(b),
            Second::Imm(k) => Src::Mem(self.constant(Constant::Splat(k))),
        };
        let asm = &mut self.asm;
        match op {
            Op32::Shl
            | Op32::ShrU
            | Op32::ShrS
            | Op32::FMin
            | Op32::FMax
            | Op32::UDiv
            | Op32::URem
            | Op32::SDiv
            | Op32::SRem
            | Op32::Not
            | Op32::INeg
            | Op32::IAbs
            | Op32::FNeg
            | Op32::FAbs
            | Op32::IToF
            | Op32::UToF
            | Op32::FToI
            | Op32::FToU
            | Op32::FSqrt
            | Op32::FFloor
            | Op32::FCeil
            | Op32::FTrunc
            | Op32::FRound
            | Op32::CountBits
            | Op32::ReverseBits
            | Op32::FirstBitLow
            | Op32::FirstBitHighU
            | Op32::FirstBitHighS
            | Op32::F32ToF16
            | Op32::F16ToF32
            | Op32::Select => unreachable!("emitted above"),
            Op32::Add => three!(asm, vpaddd, out, a, b),
            Op32::Sub => three!(asm, vpsubd, out, a, b),
            Op32::Mul => three!(asm, vpmulld, out, a, b),
            Op32::And => three!(asm, vpand, out, a, b),
            Op32::Or => three!(asm, vpor, out, a, b),
            Op32::Xor => three!(asm, vpxor, out, a, b),
            // `a` is the first source: where both operands are NaNs, the
            // result is `a`'s (SSE's rule, the engine's).
            Op32::FAdd => three!(asm, vaddps, out, a, b),
            Op32::FSub => three!(asm, vsubps, out, a, b),
            Op32::FMul => three!(asm, vmulps, out, a, b),
            Op32::FDiv => three!(asm, vdivps, out, a, b),
            Op32::UMin => three!(asm, vpminud, out, a, b),
            Op32::UMax => three!(asm, vpmaxud, out, a, b),
            Op32::SMin => three!(asm, vpminsd, out, a, b),
            Op32::SMax => three!(asm, vpmaxsd, out, a, b),
            Op32::FEq | Op32::FNe | Op32::FLt | Op32::FLe | Op32::FGt | Op32::FGe => {
                // The quiet predicates: ordered ones, false on a NaN, and
                // "not equal or unordered" for `!=`.
                let predicate: u8 = match op {
                    Op32::FEq => 0x00,
                    Op32::FNe => 0x04,
                    Op32::FLt => 0x11,
                    Op32::FLe => 0x12,
                    Op32::FGt => 0x1E,
                    _ => 0x1D,
                };
                let b = match b {
                    Src::Reg(b) => b,
                    Src::Mem(l) => {
                        dynasm!(asm; .arch x64; vmovdqu Ry(TEMP), [=>l]);
                        TEMP
                    }
                };
                vcmpps(asm, TEMP, a, b, predicate);
                dynasm!(asm; .arch x64; vpsrld Ry(out), Ry(TEMP), 31);
            }
            Op32::Eq => {
                three!(asm, vpcmpeqd, out, a, b);
                dynasm!(asm; .arch x64; vpsrld Ry(out), Ry(out), 31);
            }
            Op32::Ne
            | Op32::LtU
            | Op32::LeU
            | Op32::GtU
            | Op32::GeU
            | Op32::LtS
            | Op32::LeS
            | Op32::GtS
            | Op32::GeS => {
                // TEMP = all ones where (a == b), (a >= b), (a <= b) or
                // (a > b): max(a, b) == a is a >= b, min(a, b) == a is
                // a <= b; signed a > b is one instruction.
                match op {
                    Op32::Ne => three!(asm, vpcmpeqd, TEMP, a, b),
                    Op32::LtU | Op32::GeU => {
                        three!(asm, vpmaxud, TEMP, a, b);
                        dynasm!(asm; .arch x64; vpcmpeqd Ry(TEMP), Ry(TEMP), Ry(a));
                    }
                    Op32::LeU | Op32::GtU => {
                        three!(asm, vpminud, TEMP, a, b);
                        dynasm!(asm; .arch x64; vpcmpeqd Ry(TEMP), Ry(TEMP), Ry(a));
                    }
                    Op32::LtS | Op32::GeS => {
                        three!(asm, vpmaxsd, TEMP, a, b);
                        dynasm!(asm; .arch x64; vpcmpeqd Ry(TEMP), Ry(TEMP), Ry(a));
                    }
                    _ => three!(asm, vpcmpgtd, TEMP, a, b),
                }
                if matches!(op, Op32::LeU | Op32::GeU | Op32::GeS | Op32::GtS) {
                    // The test itself: its sign bit.
                    dynasm!(asm; .arch x64; vpsrld Ry(out), Ry(TEMP), 31);
                } else {
                    // Its negation: 1 where the words are zero.
                    let one = self.constant(Constant::Splat(1));
                    dynasm!(self.asm; .arch x64; vpandn Ry(out), Ry(TEMP), [=>one]);
                }
            }
        }
    }

    /// `out = a / d` (`a % d` with `rem`) on eight unsigned lanes for a
    /// constant `d`: a shift or a mask for a power of two, else a multiply
    /// by Granlund and Montgomery's 33-bit multiplier (Hacker's Delight,
    /// 10-8), `2^32 + m` with `l = ⌈log2 d⌉` and `m = 1 + ⌊2^32 (2^l − d)
    /// / d⌋`: `t` is the high half of `m · a`, and the quotient is `(t +
    /// ((a − t) >> 1)) >> (l − 1)`. The even and odd lanes multiply apart
    /// (`vpmuludq` takes the low word of each 64-bit half).
    fn divide_by_constant(&mut self, rem: bool, out: u8, a: u8, d: u32) {
        let asm = &mut self.asm;
        match d {
            0 => {
                dynasm!(asm; .arch x64; vpcmpeqd Ry(out), Ry(out), Ry(out));
                return;
            }
            1 if rem => {
                dynasm!(asm; .arch x64; vpxor Ry(out), Ry(out), Ry(out));
                return;
            }
            1 => {
                dynasm!(asm; .arch x64; vmovdqa Ry(out), Ry(a));
                return;
            }
            d if d.is_power_of_two() && rem => {
                let low = self.constant(Constant::Splat(d - 1));
                dynasm!(self.asm; .arch x64; vpand Ry(out), Ry(a), [=>low]);
                return;
            }
            d if d.is_power_of_two() => {
                dynasm!(asm; .arch x64; vpsrld Ry(out), Ry(a), d.trailing_zeros() as i8);
                return;
            }
            _ => {}
        }
        let d64 = u64::from(d);
        let l = 64 - (d64 - 1).leading_zeros();
        let m = ((((1u64 << 32) * ((1u64 << l) - d64)) / d64 + 1) & 0xFFFF_FFFF) as u32;
        let multiplier = self.constant(Constant::Splat(m));
        let high = self.constant(Constant::Words([0, !0, 0, !0, 0, !0, 0, !0]));
        let low = self.constant(Constant::Words([!0, 0, !0, 0, !0, 0, !0, 0]));
        let divisor = self.constant(Constant::Splat(d));
        let asm = &mut self.asm;
        // The high words moved down by `vpshufd` (dynasm 5.1 encodes
        // `vpsrlq` by a constant as its 128-bit form).
        dynasm!(asm; .arch x64
            ; vpmuludq Ry(TEMP), Ry(a), [=>multiplier]
            ; vpshufd Ry(TEMP), Ry(TEMP), 0xF5u8 as i8
            ; vpand Ry(TEMP), Ry(TEMP), [=>low]
            ; vpshufd Ry(TEMP2), Ry(a), 0xF5u8 as i8
            ; vpmuludq Ry(TEMP2), Ry(TEMP2), [=>multiplier]
            ; vpand Ry(TEMP2), Ry(TEMP2), [=>high]
            ; vpor Ry(TEMP), Ry(TEMP), Ry(TEMP2)
            ; vpsubd Ry(TEMP2), Ry(a), Ry(TEMP)
            ; vpsrld Ry(TEMP2), Ry(TEMP2), 1
            ; vpaddd Ry(TEMP), Ry(TEMP), Ry(TEMP2)
        );
        let shift = (l - 1) as i8;
        if rem {
            dynasm!(asm; .arch x64
                ; vpsrld Ry(TEMP), Ry(TEMP), shift
                ; vpmulld Ry(TEMP), Ry(TEMP), [=>divisor]
                ; vpsubd Ry(out), Ry(a), Ry(TEMP)
            );
        } else {
            dynasm!(asm; .arch x64; vpsrld Ry(out), Ry(TEMP), shift);
        }
    }

    /// `out = a / b` or `a % b` (`op`) on eight lanes, through doubles:
    /// each 32-bit operand converts exactly, and the quotient's one
    /// rounding cannot reach the next integer (the distance to it is at
    /// least 1/b, more than half a double's step below 2^32), so
    /// truncating it gives the integer quotient. The remainder is `a - q *
    /// b`, wrapping; a zero divisor gives all ones. The operands and the
    /// quotient pass through the 96 bytes below the stack pointer (the
    /// red zone: nothing is called meanwhile).
    fn divide(&mut self, op: Op32, out: u8, a: u8, b: Second) {
        let unsigned = matches!(op, Op32::UDiv | Op32::URem);
        let sign = self.constant(Constant::Splat(0x8000_0000));
        let two31: u64 = 2_147_483_648f64.to_bits();
        let two31 = self.constant(Constant::Words(std::array::from_fn(|i| {
            (two31 >> (32 * (i % 2))) as u32
        })));
        let asm = &mut self.asm;
        match b {
            Second::Reg(b) => dynasm!(asm; .arch x64; vmovdqu [rsp - 32], Ry(b)),
            Second::Imm(k) => {
                let l = self.constant(Constant::Splat(k));
                let asm = &mut self.asm;
                dynasm!(asm; .arch x64
                    ; vmovdqu Ry(TEMP), [=>l]
                    ; vmovdqu [rsp - 32], Ry(TEMP)
                );
            }
        }
        let asm = &mut self.asm;
        dynasm!(asm; .arch x64; vmovdqu [rsp - 64], Ry(a));
        for h in 0..2i32 {
            for (t, at) in [(TEMP, -64 + 16 * h), (TEMP2, -32 + 16 * h)] {
                dynasm!(asm; .arch x64; vmovdqu Rx(t), [rsp + at]);
                if unsigned {
                    dynasm!(asm; .arch x64
                        ; vpxor Rx(t), Rx(t), [=>sign]
                        ; vcvtdq2pd Ry(t), Rx(t)
                        ; vaddpd Ry(t), Ry(t), [=>two31]
                    );
                } else {
                    dynasm!(asm; .arch x64; vcvtdq2pd Ry(t), Rx(t));
                }
            }
            dynasm!(asm; .arch x64
                ; vdivpd Ry(TEMP), Ry(TEMP), Ry(TEMP2)
                ; vroundpd Ry(TEMP), Ry(TEMP), 0x0B
            );
            if unsigned {
                dynasm!(asm; .arch x64; vsubpd Ry(TEMP), Ry(TEMP), [=>two31]);
            }
            cvttpd2dq(asm, TEMP, TEMP);
            if unsigned {
                dynasm!(asm; .arch x64; vpxor Rx(TEMP), Rx(TEMP), [=>sign]);
            }
            dynasm!(asm; .arch x64; vmovdqu [rsp - 96 + 16 * h], Rx(TEMP));
        }
        dynasm!(asm; .arch x64; vmovdqu Ry(TEMP), [rsp - 96]);
        if matches!(op, Op32::URem | Op32::SRem) {
            dynasm!(asm; .arch x64
                ; vpmulld Ry(TEMP), Ry(TEMP), [rsp - 32]
                ; vmovdqu Ry(TEMP2), [rsp - 64]
                ; vpsubd Ry(TEMP), Ry(TEMP2), Ry(TEMP)
            );
        }
        dynasm!(asm; .arch x64
            ; vpxor Ry(TEMP2), Ry(TEMP2), Ry(TEMP2)
            ; vpcmpeqd Ry(TEMP2), Ry(TEMP2), [rsp - 32]
            ; vpor Ry(out), Ry(TEMP), Ry(TEMP2)
        );
    }

    /// `out = minNum(a, b)` (`min`) or `maxNum(a, b)` on eight lanes, with
    /// `TEMP` and `TEMP2` as scratch. `vminps s1, s2` is `s1 < s2 ? s1 :
    /// s2`: the second where either is a NaN, or both are zeros. Both
    /// orders, joined with an `or` (an `and` for the maximum), give -0
    /// (+0) for two zeros and the minimum (maximum) of two numbers; then
    /// `a` where `b` is a NaN, and `b` where `a` is one (so `b` where both
    /// are).
    fn min_max(&mut self, min: bool, out: u8, a: u8, b: Second) {
        const UNORDERED: u8 = 0x03;
        // A register, or a constant's bits and label.
        let b = match b {
            Second::Reg(b) => Ok(b),
            Second::Imm(k) => Err((k, self.constant(Constant::Splat(k)))),
        };
        let asm = &mut self.asm;
        // `TEMP` = both orders joined; `second` holds `vminps b, a`.
        let join = |asm: &mut Assembler, b: u8, second: u8| {
            if min {
                dynasm!(asm; .arch x64
                    ; vminps Ry(TEMP), Ry(a), Ry(b)
                    ; vminps Ry(second), Ry(b), Ry(a)
                    ; vorps Ry(TEMP), Ry(TEMP), Ry(second)
                );
            } else {
                dynasm!(asm; .arch x64
                    ; vmaxps Ry(TEMP), Ry(a), Ry(b)
                    ; vmaxps Ry(second), Ry(b), Ry(a)
                    ; vandps Ry(TEMP), Ry(TEMP), Ry(second)
                );
            }
        };
        match b {
            Ok(b) => {
                join(asm, b, TEMP2);
                vcmpps(asm, TEMP2, b, b, UNORDERED);
                dynasm!(asm; .arch x64; vpblendvb Ry(TEMP), Ry(TEMP), Ry(a), Ry(TEMP2));
                vcmpps(asm, TEMP2, a, a, UNORDERED);
                dynasm!(asm; .arch x64; vpblendvb Ry(out), Ry(TEMP), Ry(b), Ry(TEMP2));
            }
            Err((bits, l)) => {
                // A constant `b`: where it is a NaN, `b` only where `a` is
                // one too (`join` is not needed).
                if f32::from_bits(bits).is_nan() {
                    vcmpps(asm, TEMP2, a, a, UNORDERED);
                    dynasm!(asm; .arch x64
                        ; vmovdqu Ry(TEMP), [=>l]
                        ; vpblendvb Ry(out), Ry(a), Ry(TEMP), Ry(TEMP2)
                    );
                } else {
                    // `b` in `TEMP2`, overwritten by the second order;
                    // once `a` is not read again, `b` again into `out`.
                    dynasm!(asm; .arch x64; vmovdqu Ry(TEMP2), [=>l]);
                    join(asm, TEMP2, TEMP2);
                    vcmpps(asm, TEMP2, a, a, UNORDERED);
                    dynasm!(asm; .arch x64
                        ; vmovdqu Ry(out), [=>l]
                        ; vpblendvb Ry(out), Ry(TEMP), Ry(out), Ry(TEMP2)
                    );
                }
            }
        }
    }

    /// `out = op(a)` on eight lanes for a one-operand `op`, with `TEMP` and
    /// `TEMP2` as scratch. `out` is written only once `a` is not read again.
    fn unary(&mut self, op: Op32, out: u8, a: u8) {
        const GE: u8 = 0x1D;
        const ORDERED: u8 = 0x07;
        let mut splat = |k: u32| self.constant(Constant::Splat(k));
        match op {
            Op32::Not => {
                let ones = splat(!0);
                dynasm!(self.asm; .arch x64; vpxor Ry(out), Ry(a), [=>ones]);
            }
            Op32::INeg => dynasm!(self.asm; .arch x64
                ; vpxor Ry(TEMP), Ry(TEMP), Ry(TEMP)
                ; vpsubd Ry(out), Ry(TEMP), Ry(a)
            ),
            Op32::IAbs => dynasm!(self.asm; .arch x64; vpabsd Ry(out), Ry(a)),
            Op32::FNeg => {
                let sign = splat(0x8000_0000);
                dynasm!(self.asm; .arch x64; vpxor Ry(out), Ry(a), [=>sign]);
            }
            Op32::FAbs => {
                let magnitude = splat(0x7FFF_FFFF);
                dynasm!(self.asm; .arch x64; vpand Ry(out), Ry(a), [=>magnitude]);
            }
            Op32::IToF => dynasm!(self.asm; .arch x64; vcvtdq2ps Ry(out), Ry(a)),
            Op32::FSqrt => dynasm!(self.asm; .arch x64; vsqrtps Ry(out), Ry(a)),
            // F16C, rounding to nearest even (immediate 0); its NaNs and
            // subnormals are `lockstep_wave::ops`' bit for bit.
            Op32::F32ToF16 => dynasm!(self.asm; .arch x64
                ; vcvtps2ph Rx(out), Ry(a), 0
                ; vpmovzxwd Ry(out), Rx(out)
            ),
            // The low halves of the words packed into eight halfs (exact:
            // they fit 16 bits), then widened.
            Op32::F16ToF32 => {
                let low16 = splat(0xFFFF);
                dynasm!(self.asm; .arch x64
                    ; vpand Ry(TEMP), Ry(a), [=>low16]
                    ; vextracti128 Rx(TEMP2), Ry(TEMP), 1
                    ; vpackusdw Rx(TEMP), Rx(TEMP), Rx(TEMP2)
                    ; vcvtph2ps Ry(out), Rx(TEMP)
                );
            }
            // Rounding modes 1, 2, 3 and 0, with the inexact exception
            // suppressed (bit 3).
            Op32::FFloor => dynasm!(self.asm; .arch x64; vroundps Ry(out), Ry(a), 0x09),
            Op32::FCeil => dynasm!(self.asm; .arch x64; vroundps Ry(out), Ry(a), 0x0A),
            Op32::FTrunc => dynasm!(self.asm; .arch x64; vroundps Ry(out), Ry(a), 0x0B),
            Op32::FRound => dynasm!(self.asm; .arch x64; vroundps Ry(out), Ry(a), 0x08),
            // The high and low 16 bits converted exactly, the high half
            // scaled exactly; the one rounding is the sum's.
            Op32::UToF => {
                let (two16, low16) = (splat(65_536f32.to_bits()), splat(0xFFFF));
                dynasm!(self.asm; .arch x64
                    ; vpsrld Ry(TEMP), Ry(a), 16
                    ; vcvtdq2ps Ry(TEMP), Ry(TEMP)
                    ; vmulps Ry(TEMP), Ry(TEMP), [=>two16]
                    ; vpand Ry(TEMP2), Ry(a), [=>low16]
                    ; vcvtdq2ps Ry(TEMP2), Ry(TEMP2)
                    ; vaddps Ry(out), Ry(TEMP), Ry(TEMP2)
                );
            }
            // `vcvttps2dq` gives 0x8000_0000 for a NaN and out of range:
            // flipped to 0x7FFF_FFFF from 2^31 up, and 0 for a NaN.
            Op32::FToI => {
                let two31 = splat(2_147_483_648f32.to_bits());
                let asm = &mut self.asm;
                dynasm!(asm; .arch x64
                    ; vcvttps2dq Ry(TEMP), Ry(a)
                    ; vmovdqu Ry(TEMP2), [=>two31]
                );
                vcmpps(asm, TEMP2, a, TEMP2, GE);
                dynasm!(asm; .arch x64; vpxor Ry(TEMP), Ry(TEMP), Ry(TEMP2));
                vcmpps(asm, TEMP2, a, a, ORDERED);
                dynasm!(asm; .arch x64; vpand Ry(out), Ry(TEMP), Ry(TEMP2));
            }
            // `c = max(a, 0)` (0 for a NaN, `vmaxps`' second operand);
            // from 2^31 up, 2^31 taken off before truncating and its bit
            // put back; from 2^32 up, all ones.
            Op32::FToU => {
                let zero = splat(0);
                let two31 = splat(2_147_483_648f32.to_bits());
                let two32 = splat(4_294_967_296f32.to_bits());
                let asm = &mut self.asm;
                dynasm!(asm; .arch x64
                    ; vmaxps Ry(TEMP), Ry(a), [=>zero]
                    ; vmovdqu Ry(out), [=>two31]
                );
                vcmpps(asm, TEMP2, TEMP, out, GE);
                dynasm!(asm; .arch x64
                    ; vandps Ry(out), Ry(TEMP2), Ry(out)
                    ; vsubps Ry(out), Ry(TEMP), Ry(out)
                    ; vcvttps2dq Ry(out), Ry(out)
                    ; vpslld Ry(TEMP2), Ry(TEMP2), 31
                    ; vpxor Ry(out), Ry(out), Ry(TEMP2)
                    ; vmovdqu Ry(TEMP2), [=>two32]
                );
                vcmpps(asm, TEMP2, TEMP, TEMP2, GE);
                dynasm!(asm; .arch x64; vpor Ry(out), Ry(out), Ry(TEMP2));
            }
            Op32::CountBits => {
                // Each byte's two nibbles counted by table, the four
                // bytes' counts summed into the top byte by a multiply.
                let (low4, count) = (splat(0x0F0F_0F0F), self.nibbles(NibbleTable::Count));
                let bytes = self.constant(Constant::Splat(0x0101_0101));
                dynasm!(self.asm; .arch x64
                    ; vpand Ry(TEMP), Ry(a), [=>low4]
                    ; vpsrld Ry(TEMP2), Ry(a), 4
                    ; vpand Ry(TEMP2), Ry(TEMP2), [=>low4]
                    ; vmovdqu Ry(out), [=>count]
                    ; vpshufb Ry(TEMP), Ry(out), Ry(TEMP)
                    ; vpshufb Ry(TEMP2), Ry(out), Ry(TEMP2)
                    ; vpaddb Ry(TEMP), Ry(TEMP), Ry(TEMP2)
                    ; vpmulld Ry(TEMP), Ry(TEMP), [=>bytes]
                    ; vpsrld Ry(out), Ry(TEMP), 24
                );
            }
            Op32::ReverseBits => {
                // Each byte's nibbles reversed and swapped by table, then
                // the word's bytes reversed.
                let low4 = splat(0x0F0F_0F0F);
                let high = self.nibbles(NibbleTable::ReversedHigh);
                let low = self.nibbles(NibbleTable::Reversed);
                let order = self.nibbles(NibbleTable::WordBytesReversed);
                dynasm!(self.asm; .arch x64
                    ; vpand Ry(TEMP), Ry(a), [=>low4]
                    ; vpsrld Ry(TEMP2), Ry(a), 4
                    ; vpand Ry(TEMP2), Ry(TEMP2), [=>low4]
                    ; vmovdqu Ry(out), [=>high]
                    ; vpshufb Ry(TEMP), Ry(out), Ry(TEMP)
                    ; vmovdqu Ry(out), [=>low]
                    ; vpshufb Ry(TEMP2), Ry(out), Ry(TEMP2)
                    ; vpor Ry(TEMP), Ry(TEMP), Ry(TEMP2)
                    ; vpshufb Ry(out), Ry(TEMP), [=>order]
                );
            }
            Op32::FirstBitLow => {
                // `a & -a` is the lowest set bit alone, a power of two
                // that converts exactly (2^31 as -2^31): its exponent is
                // the index. For 0, all ones.
                let (exponent, bias) = (splat(0xFF), splat(127));
                dynasm!(self.asm; .arch x64
                    ; vpxor Ry(TEMP), Ry(TEMP), Ry(TEMP)
                    ; vpcmpeqd Ry(TEMP2), Ry(TEMP), Ry(a)
                    ; vpsubd Ry(TEMP), Ry(TEMP), Ry(a)
                    ; vpand Ry(TEMP), Ry(TEMP), Ry(a)
                    ; vcvtdq2ps Ry(TEMP), Ry(TEMP)
                    ; vpsrld Ry(TEMP), Ry(TEMP), 23
                    ; vpand Ry(TEMP), Ry(TEMP), [=>exponent]
                    ; vpsubd Ry(TEMP), Ry(TEMP), [=>bias]
                    ; vpor Ry(out), Ry(TEMP), Ry(TEMP2)
                );
            }
            Op32::FirstBitHighU | Op32::FirstBitHighS => {
                // The signed form looks at `a ^ (a >> 31)`, arithmetic:
                // the bits that differ from the sign bit. Then `x & !(x >>
                // 1)` keeps the highest set bit and no two adjacent ones,
                // so converting it cannot round up to the next power of
                // two: its exponent is the index. The unsigned form takes
                // 31 where the top bit is set (the conversion would see a
                // negative number); for 0, all ones.
                let (exponent, bias) = (splat(0xFF), splat(127));
                let c31 = splat(31);
                let signed = op == Op32::FirstBitHighS;
                let x = if signed {
                    dynasm!(self.asm; .arch x64
                        ; vpsrad Ry(TEMP), Ry(a), 31
                        ; vpxor Ry(TEMP2), Ry(TEMP), Ry(a)
                    );
                    TEMP2
                } else {
                    a
                };
                dynasm!(self.asm; .arch x64
                    ; vpsrld Ry(TEMP), Ry(x), 1
                    ; vpandn Ry(TEMP), Ry(TEMP), Ry(x)
                    ; vcvtdq2ps Ry(TEMP), Ry(TEMP)
                    ; vpsrld Ry(TEMP), Ry(TEMP), 23
                    ; vpand Ry(TEMP), Ry(TEMP), [=>exponent]
                    ; vpsubd Ry(TEMP), Ry(TEMP), [=>bias]
                );
                if signed {
                    // `a` is not read again: `out` may be its register.
                    dynasm!(self.asm; .arch x64
                        ; vpxor Ry(out), Ry(out), Ry(out)
                        ; vpcmpeqd Ry(TEMP2), Ry(TEMP2), Ry(out)
                    );
                } else {
                    dynasm!(self.asm; .arch x64
                        ; vpsrad Ry(TEMP2), Ry(a), 31
                        ; vpblendvb Ry(TEMP), Ry(TEMP), [=>c31], Ry(TEMP2)
                        ; vpxor Ry(TEMP2), Ry(TEMP2), Ry(TEMP2)
                        ; vpcmpeqd Ry(TEMP2), Ry(TEMP2), Ry(a)
                    );
                }
                dynasm!(self.asm; .arch x64; vpor Ry(out), Ry(TEMP), Ry(TEMP2));
            }
            _ => unreachable!("{op:?} takes two operands"),
        }
    }

    fn nibbles(&mut self, table: NibbleTable) -> DynamicLabel {
        self.constant(Constant::Nibbles(table))
    }

    /// Places the constants the code reads and makes it
    /// executable.
    pub(crate) fn finish(mut self) -> Option<Code> {
        let mut constants: Vec<_> = self.constants.into_iter().collect();
        constants.sort_by_key(|&(c, _)| match c {
            Constant::Bits => (0, [0; 8]),
            Constant::LowHalves => (1, [0; 8]),
            Constant::Splat(k) => (2, [k; 8]),
            Constant::Nibbles(t) => (3, [t as u32; 8]),
            Constant::Words(w) => (4, w),
        });
        for (c, label) in constants {
            let words: [u32; 8] = match c {
                Constant::Splat(k) => [k; 8],
                Constant::Words(w) => w,
                Constant::Bits => std::array::from_fn(|l| 1 << l),
                Constant::LowHalves => [0, 2, 4, 6, 0, 2, 4, 6],
                Constant::Nibbles(t) => std::array::from_fn(|i| {
                    let n = (4 * i % 16) as u8;
                    u32::from_le_bytes([t.byte(n), t.byte(n + 1), t.byte(n + 2), t.byte(n + 3)])
                }),
            };
            dynasm!(self.asm; .arch x64; .align 32; =>label);
            for w in words {
                dynasm!(self.asm; .arch x64; .u32 w);
            }
        }
        self.asm.commit().ok()?;
        let code = self.asm.finalize().ok().map(Code)?;
        Some(code)
    }
}
