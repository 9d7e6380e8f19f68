//! Operations on wide registers: 64-bit integers and `double`s, four
//! lanes to a vector register, and the conversions between them and the
//! narrow registers' 32-bit values.

use super::{Address, LANES, WaveBuilder, movmsk};
use crate::x64::{Constant, MASK32, shift_q, vex256};
use dynasmrt::{DynasmApi, DynasmLabelApi, dynasm};

/// An operation on 64-bit lanes, with the engine's results: integer
/// arithmetic wraps and takes shift counts modulo 64; `double` arithmetic
/// rounds to nearest with subnormals kept, a NaN result being the first
/// operand's NaN quieted, else the second's, else the default NaN;
/// comparisons give 1 or 0 in a narrow register, false where a NaN is
/// involved except for `FNe`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op64 {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`, the low 64 bits.
    Mul,
    /// `a & b`.
    And,
    /// `a | b`.
    Or,
    /// `a ^ b`.
    Xor,
    /// `a << b`.
    Shl,
    /// `a >> b`, zeros shifted in.
    ShrU,
    /// `a >> b`, the sign bit shifted in.
    ShrS,
    /// `double` `a + b`.
    FAdd,
    /// `double` `a - b`.
    FSub,
    /// `double` `a * b`.
    FMul,
    /// `double` `a / b`.
    FDiv,
    /// `double` IEEE minNum: a NaN loses to a number, `-0.0 < +0.0`.
    FMin,
    /// `double` IEEE maxNum: a NaN loses to a number, `-0.0 < +0.0`.
    FMax,
    /// `double` `-a`: the sign flipped (one operand).
    FNeg,
    /// `double` `|a|`: the sign cleared (one operand).
    FAbs,
    /// `a == b`.
    Eq,
    /// `a != b`.
    Ne,
    /// `a < b`, unsigned.
    LtU,
    /// `a <= b`, unsigned.
    LeU,
    /// `a > b`, unsigned.
    GtU,
    /// `a >= b`, unsigned.
    GeU,
    /// `a < b`, signed.
    LtS,
    /// `a <= b`, signed.
    LeS,
    /// `a > b`, signed.
    GtS,
    /// `a >= b`, signed.
    GeS,
    /// `double` `a == b`.
    FEq,
    /// `double` `a != b` (true where a NaN is involved).
    FNe,
    /// `double` `a < b`.
    FLt,
    /// `double` `a <= b`.
    FLe,
    /// `double` `a > b`.
    FGt,
    /// `double` `a >= b`.
    FGe,
    /// `!a`, every bit (one operand).
    Not,
    /// `-a`, wrapping (one operand).
    INeg,
    /// A narrow `uint` zero-extended.
    ZExt,
    /// A narrow `int` sign-extended.
    SExt,
    /// A narrow `int` as a `double` (exact).
    IToF,
    /// A narrow `uint` as a `double` (exact).
    UToF,
    /// A narrow `float` as a `double` (exact; a NaN quieted).
    F32ToF64,
    /// The low 32 bits, into a narrow register.
    Trunc,
    /// A `double` rounded to nearest `float`, into a narrow register.
    F64ToF32,
}

/// The second operand of an [`Op64`]: a wide register or a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg64 {
    /// A wide register.
    Reg(u32),
    /// The same 64 bits in every lane.
    Imm(u64),
}

impl Arg64 {
    fn reg(self) -> Option<u32> {
        match self {
            Arg64::Reg(r) => Some(r),
            Arg64::Imm(_) => None,
        }
    }

    fn imm(self) -> Option<u64> {
        match self {
            Arg64::Reg(_) => None,
            Arg64::Imm(k) => Some(k),
        }
    }
}

/// Where an [`Op64`]'s operands and result live.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Wide operands, a wide result.
    Wide,
    /// Wide operands, a narrow result.
    Narrowing,
    /// A narrow operand, a wide result.
    Widening,
}

impl Op64 {
    fn shape(self) -> Shape {
        use Op64 as O;
        match self {
            O::Eq
            | O::Ne
            | O::LtU
            | O::LeU
            | O::GtU
            | O::GeU
            | O::LtS
            | O::LeS
            | O::GtS
            | O::GeS
            | O::FEq
            | O::FNe
            | O::FLt
            | O::FLe
            | O::FGt
            | O::FGe
            | O::Trunc
            | O::F64ToF32 => Shape::Narrowing,
            O::ZExt | O::SExt | O::IToF | O::UToF | O::F32ToF64 => Shape::Widening,
            _ => Shape::Wide,
        }
    }
}

/// `1 << 63` in every 64-bit lane: flips unsigned order into signed.
const SIGN: u64 = 1 << 63;

impl WaveBuilder {
    /// The 64-bit lanes of wide chunks: four to a vector register.
    pub(super) fn wide_chunks(&self) -> std::ops::Range<i32> {
        0..(self.width / 4) as i32
    }

    /// Stores vector register 3 to wide chunk `k` of the register at `d`,
    /// on the active lanes only when `masked`.
    pub(super) fn store_wide_chunk(&mut self, d: i32, k: i32, masked: bool) {
        if masked {
            dynasm!(self.b.asm; .arch x64
                ; vpmovsxdq Ry(MASK32), [rbx + LANES + 16 * k]
                ; vmovdqu ymm4, [r12 + d + 32 * k]
                ; vpblendvb ymm3, ymm4, ymm3, Ry(MASK32)
            );
        }
        dynasm!(self.b.asm; .arch x64; vmovdqu [r12 + d + 32 * k], ymm3);
    }

    /// `dst = op(a, b)` (`b` ignored by the one-operand operations), on
    /// the active lanes only when `masked`; `a` and `dst` are wide or
    /// narrow as the operation takes them.
    pub fn op64(&mut self, op: Op64, dst: u32, a: u32, b: Arg64, masked: bool) {
        if masked {
            self.need_lanes();
        }
        let (d, a) = (self.offsets[dst as usize], self.offsets[a as usize]);
        let b = match b {
            Arg64::Reg(r) => Ok(self.wide_at(r)),
            Arg64::Imm(k) => Err(k),
        };
        match op.shape() {
            Shape::Wide => {
                for k in self.wide_chunks() {
                    self.operands(a, b, k);
                    self.wide_step(op, b.err());
                    self.store_wide_chunk(d, k, masked);
                }
            }
            Shape::Narrowing => {
                for c in self.chunks() {
                    for h in 0..2 {
                        self.operands(a, b, 2 * c + h);
                        self.narrowing_step(op);
                        if op != Op64::F64ToF32 {
                            dynasm!(self.b.asm; .arch x64; vpermd ymm2, ymm5, ymm2);
                        }
                        if h == 0 {
                            dynasm!(self.b.asm; .arch x64; vmovdqa xmm3, xmm2);
                        } else {
                            dynasm!(self.b.asm; .arch x64; vinserti128 ymm3, ymm3, xmm2, 1);
                        }
                    }
                    if op.is_compare() {
                        dynasm!(self.b.asm; .arch x64; vpsrld ymm3, ymm3, 31);
                    }
                    self.store_chunk(d, c, masked);
                }
            }
            Shape::Widening => {
                for k in self.wide_chunks() {
                    self.widening_step(op, a + 16 * k);
                    self.store_wide_chunk(d, k, masked);
                }
            }
        }
    }

    /// `ymm0` = wide chunk `k` of the register at `a`; `ymm1` = that of the
    /// second operand; `ymm5` = the low-halves permutation.
    fn operands(&mut self, a: i32, b: Result<i32, u64>, k: i32) {
        let low_halves = self.b.constant(Constant::LowHalves);
        dynasm!(self.b.asm; .arch x64
            ; vmovdqu ymm0, [r12 + a + 32 * k]
            ; vmovdqa ymm5, [=>low_halves]
        );
        match b {
            Ok(b) => dynasm!(self.b.asm; .arch x64; vmovdqu ymm1, [r12 + b + 32 * k]),
            Err(imm) => {
                let l = self.qwords([imm; 4]);
                dynasm!(self.b.asm; .arch x64; vmovdqa ymm1, [=>l]);
            }
        }
    }

    /// `ymm3` = `op(ymm0, ymm1)` on 64-bit lanes (`imm`: `ymm1` holds this
    /// constant); uses `ymm2` and `ymm4`.
    fn wide_step(&mut self, op: Op64, imm: Option<u64>) {
        self.wide_step_on(op, imm, 0, 1);
    }

    /// `ymm3` = `op(ymm{x}, ymm{y})` on 64-bit lanes (`imm`: `ymm{y}`
    /// holds this constant, unless the operation is a shift by it); uses
    /// `ymm2` and `ymm4` and changes neither operand.
    fn wide_step_on(&mut self, op: Op64, imm: Option<u64>, x: u8, y: u8) {
        use Op64 as O;
        if let (O::Shl | O::ShrU, Some(k)) = (op, imm) {
            shift_q(&mut self.b.asm, op == O::Shl, 3, x, (k & 63) as u8);
            return;
        }
        let asm = &mut self.b.asm;
        match op {
            O::Add => dynasm!(asm; .arch x64; vpaddq ymm3, Ry(x), Ry(y)),
            O::Sub => dynasm!(asm; .arch x64; vpsubq ymm3, Ry(x), Ry(y)),
            O::And => dynasm!(asm; .arch x64; vpand ymm3, Ry(x), Ry(y)),
            O::Or => dynasm!(asm; .arch x64; vpor ymm3, Ry(x), Ry(y)),
            O::Xor => dynasm!(asm; .arch x64; vpxor ymm3, Ry(x), Ry(y)),
            O::FAdd => dynasm!(asm; .arch x64; vaddpd ymm3, Ry(x), Ry(y)),
            O::FSub => dynasm!(asm; .arch x64; vsubpd ymm3, Ry(x), Ry(y)),
            O::FMul => dynasm!(asm; .arch x64; vmulpd ymm3, Ry(x), Ry(y)),
            O::FDiv => dynasm!(asm; .arch x64; vdivpd ymm3, Ry(x), Ry(y)),
            O::FNeg | O::FAbs => {
                let sign = self.qwords([SIGN; 4]);
                let asm = &mut self.b.asm;
                match op {
                    O::FNeg => dynasm!(asm; .arch x64; vpxor ymm3, Ry(x), [=>sign]),
                    _ => dynasm!(asm; .arch x64
                        ; vmovdqa ymm2, [=>sign]
                        ; vpandn ymm3, ymm2, Ry(x)
                    ),
                }
            }
            // `b` where `a` is a NaN, `b` orders before (after) `a`, or
            // they are equal and `b` is negative (not negative): as
            // `lockstep_wave`'s `min_num` and `max_num` pick.
            O::FMin | O::FMax => {
                // vcmppd ymm2, ymm(x), ymm(x), unordered: `a` is a NaN.
                vex256(asm, 1, 0xC2, 2, x, x);
                asm.push(0x03);
                // vcmppd ymm4, ymm(y), ymm(x), LT_OQ (GT_OQ for max).
                vex256(asm, 1, 0xC2, 4, y, x);
                asm.push(if op == O::FMin { 0x11 } else { 0x1E });
                dynasm!(asm; .arch x64; vpor ymm2, ymm2, ymm4);
                // vcmppd ymm4, ymm(y), ymm(x), EQ_OQ.
                vex256(asm, 1, 0xC2, 4, y, x);
                asm.push(0x00);
                dynasm!(asm; .arch x64
                    ; vpxor ymm3, ymm3, ymm3
                    ; vpcmpgtq ymm3, ymm3, Ry(y)
                );
                if op == O::FMin {
                    dynasm!(asm; .arch x64; vpand ymm4, ymm4, ymm3);
                } else {
                    dynasm!(asm; .arch x64; vpandn ymm4, ymm3, ymm4);
                }
                dynasm!(asm; .arch x64
                    ; vpor ymm2, ymm2, ymm4
                    ; vblendvpd ymm3, Ry(x), Ry(y), ymm2
                );
            }
            // The low halves' product, plus each high half times the other
            // low half, shifted up.
            O::Mul => {
                dynasm!(asm; .arch x64; vpmuludq ymm3, Ry(x), Ry(y));
                shift_q(asm, false, 2, x, 32);
                dynasm!(asm; .arch x64; vpmuludq ymm2, ymm2, Ry(y));
                shift_q(asm, false, 4, y, 32);
                dynasm!(asm; .arch x64
                    ; vpmuludq ymm4, ymm4, Ry(x)
                    ; vpaddq ymm2, ymm2, ymm4
                );
                shift_q(asm, true, 2, 2, 32);
                dynasm!(asm; .arch x64; vpaddq ymm3, ymm3, ymm2);
            }
            O::Not => dynasm!(asm; .arch x64
                ; vpcmpeqd ymm2, ymm2, ymm2
                ; vpxor ymm3, Ry(x), ymm2
            ),
            O::INeg => dynasm!(asm; .arch x64
                ; vpxor ymm2, ymm2, ymm2
                ; vpsubq ymm3, ymm2, Ry(x)
            ),
            O::Shl | O::ShrU | O::ShrS => {
                let c63 = self.qwords([63; 4]);
                let sign = self.qwords([SIGN; 4]);
                let asm = &mut self.b.asm;
                dynasm!(asm; .arch x64; vpand ymm2, Ry(y), [=>c63]);
                match op {
                    O::Shl => dynasm!(asm; .arch x64; vpsllvq ymm3, Ry(x), ymm2),
                    O::ShrU => dynasm!(asm; .arch x64; vpsrlvq ymm3, Ry(x), ymm2),
                    // No arithmetic shift of 64-bit lanes in AVX2: shift
                    // logically, then extend the sign bit from where it
                    // landed, `(t ^ m) - m` with `m` the shifted sign bit.
                    _ => dynasm!(asm; .arch x64
                        ; vpsrlvq ymm3, Ry(x), ymm2
                        ; vmovdqa ymm4, [=>sign]
                        ; vpsrlvq ymm4, ymm4, ymm2
                        ; vpxor ymm3, ymm3, ymm4
                        ; vpsubq ymm3, ymm3, ymm4
                    ),
                }
            }
            _ => unreachable!("{op:?} is not a wide-to-wide operation"),
        }
    }

    /// `ymm2` = `op(ymm0, ymm1)`: for a comparison all ones or zero per
    /// 64-bit lane, for `Trunc` the value, for `F64ToF32` the four floats
    /// in its low half. Uses `ymm4`.
    fn narrowing_step(&mut self, op: Op64) {
        use Op64 as O;
        let predicate = match op {
            O::FEq => Some(0x00),
            O::FNe => Some(0x04),
            O::FLt => Some(0x11),
            O::FLe => Some(0x12),
            O::FGt => Some(0x1E),
            O::FGe => Some(0x1D),
            _ => None,
        };
        if let Some(p) = predicate {
            // vcmppd ymm2, ymm0, ymm1, p
            vex256(&mut self.b.asm, 1, 0xC2, 2, 0, 1);
            self.b.asm.push(p);
            return;
        }
        if matches!(op, O::LtU | O::LeU | O::GtU | O::GeU) {
            let sign = self.qwords([SIGN; 4]);
            dynasm!(self.b.asm; .arch x64
                ; vpxor ymm0, ymm0, [=>sign]
                ; vpxor ymm1, ymm1, [=>sign]
            );
        }
        let asm = &mut self.b.asm;
        match op {
            O::Trunc => dynasm!(asm; .arch x64; vmovdqa ymm2, ymm0),
            O::F64ToF32 => {
                // vcvtpd2ps xmm2, ymm0
                vex256(asm, 1, 0x5A, 2, 0, 0);
            }
            O::Eq => dynasm!(asm; .arch x64; vpcmpeqq ymm2, ymm0, ymm1),
            O::Ne => dynasm!(asm; .arch x64
                ; vpcmpeqq ymm2, ymm0, ymm1
                ; vpcmpeqd ymm4, ymm4, ymm4
                ; vpxor ymm2, ymm2, ymm4
            ),
            O::GtU | O::GtS => dynasm!(asm; .arch x64; vpcmpgtq ymm2, ymm0, ymm1),
            O::LtU | O::LtS => dynasm!(asm; .arch x64; vpcmpgtq ymm2, ymm1, ymm0),
            // `a <= b` is not `a > b`; `a >= b` is not `b > a`.
            O::LeU | O::LeS => dynasm!(asm; .arch x64
                ; vpcmpgtq ymm2, ymm0, ymm1
                ; vpcmpeqd ymm4, ymm4, ymm4
                ; vpxor ymm2, ymm2, ymm4
            ),
            O::GeU | O::GeS => dynasm!(asm; .arch x64
                ; vpcmpgtq ymm2, ymm1, ymm0
                ; vpcmpeqd ymm4, ymm4, ymm4
                ; vpxor ymm2, ymm2, ymm4
            ),
            _ => unreachable!("{op:?} is not a narrowing operation"),
        }
    }

    /// `ymm3` = `op` of the four narrow lanes at frame offset `at`.
    fn widening_step(&mut self, op: Op64, at: i32) {
        use Op64 as O;
        match op {
            O::ZExt => dynasm!(self.b.asm; .arch x64; vpmovzxdq ymm3, [r12 + at]),
            O::SExt => dynasm!(self.b.asm; .arch x64; vpmovsxdq ymm3, [r12 + at]),
            O::IToF => {
                dynasm!(self.b.asm; .arch x64; vmovdqu xmm0, [r12 + at]);
                // vcvtdq2pd ymm3, xmm0
                vex256(&mut self.b.asm, 2, 0xE6, 3, 0, 0);
            }
            O::UToF => {
                // As a signed number 2^31 less, then 2^31 added back: both
                // steps exact.
                let flip = self.words([1 << 31; 8]);
                let two31 = self.qwords([(2f64.powi(31)).to_bits(); 4]);
                dynasm!(self.b.asm; .arch x64
                    ; vmovdqu xmm0, [r12 + at]
                    ; vpxor xmm0, xmm0, [=>flip]
                );
                vex256(&mut self.b.asm, 2, 0xE6, 3, 0, 0);
                dynasm!(self.b.asm; .arch x64; vaddpd ymm3, ymm3, [=>two31]);
            }
            O::F32ToF64 => {
                dynasm!(self.b.asm; .arch x64; vmovdqu xmm0, [r12 + at]);
                // vcvtps2pd ymm3, xmm0
                vex256(&mut self.b.asm, 0, 0x5A, 3, 0, 0);
            }
            _ => unreachable!("{op:?} is not a widening operation"),
        }
    }

    /// Wide `dst` = wide `a` of each wave's first active lane, in every
    /// lane of the wave (0 where none is active): `WaveReadLaneFirst`.
    pub fn read_first64(&mut self, dst: u32, a: u32) {
        let (d, a) = (self.wide_at(dst), self.wide_at(a));
        for s in 0..self.waves() {
            self.first_active_lane(s, a, true);
            dynasm!(self.b.asm; .arch x64
                ; vmovq xmm3, rax
                ; vpbroadcastq ymm3, xmm3
            );
            // A wave's wide chunks: four lanes each.
            let per = (self.wave / 4) as i32;
            for k in per * s as i32..per * (s as i32 + 1) {
                dynasm!(self.b.asm; .arch x64; vmovdqu [r12 + d + 32 * k], ymm3);
            }
        }
    }

    /// Wide `dst` = wide `a` of the lane across the quad, in every lane:
    /// `QuadReadAcrossX` (`k` 1), `Y` (2) or `Diagonal` (3). A quad is one
    /// wide chunk.
    pub fn quad_swap64(&mut self, dst: u32, a: u32, k: u8) {
        let (d, a) = (self.wide_at(dst), self.wide_at(a));
        let imm = match k {
            1 => 0xB1u8,
            2 => 0x4E,
            _ => 0x1B,
        };
        for c in self.wide_chunks() {
            dynasm!(self.b.asm; .arch x64
                ; vpermq ymm3, [r12 + a + 32 * c], imm as i8
                ; vmovdqu [r12 + d + 32 * c], ymm3
            );
        }
    }

    /// `dst = cond != 0 ? a : b` on wide registers, `cond` narrow, on the
    /// active lanes only when `masked`.
    pub fn select64(&mut self, dst: u32, cond: u32, a: u32, b: u32, masked: bool) {
        if masked {
            self.need_lanes();
        }
        let (d, c) = (self.wide_at(dst), self.narrow(cond));
        let (a, b) = (self.wide_at(a), self.wide_at(b));
        for k in self.wide_chunks() {
            // ymm2 = all ones where the condition is zero: pick `b` there.
            dynasm!(self.b.asm; .arch x64
                ; vpmovzxdq ymm2, [r12 + c + 16 * k]
                ; vpxor ymm4, ymm4, ymm4
                ; vpcmpeqq ymm2, ymm2, ymm4
                ; vmovdqu ymm3, [r12 + a + 32 * k]
                ; vpblendvb ymm3, ymm3, [r12 + b + 32 * k], ymm2
            );
            self.store_wide_chunk(d, k, masked);
        }
    }
}

/// One [`WaveBuilder::op64`] of a run that [`WaveBuilder::op64_chains`]
/// runs four lanes at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chain64 {
    /// The operation.
    pub op: Op64,
    /// The register written: wide or narrow as the operation makes it.
    pub dst: u32,
    /// The first operand: wide or narrow as the operation takes it.
    pub a: u32,
    /// The second operand (ignored by the one-operand operations).
    pub b: Arg64,
    /// Only the active lanes are written.
    pub masked: bool,
}

/// The vector registers that hold a wide chunk's values between the
/// operations of a run: none is an operand, result or temporary of
/// [`WaveBuilder::op64`]'s steps, nor the mask.
const WIDE_SLOTS: [u8; 9] = [6, 7, 8, 9, 10, 11, 12, 13, 14];

/// Which wide register's half chunk each of [`WIDE_SLOTS`] holds: the
/// same calls make the same choices, so a dry run of a chunk tells which
/// registers the real one loads.
#[derive(Default)]
struct WideCache {
    held: [Option<(u32, i32)>; WIDE_SLOTS.len()],
    /// Slots are taken in turn: the last ones taken are still held.
    next: usize,
}

impl WideCache {
    /// The slot holding `key`, and whether it must be loaded first; a
    /// slot taken for it is never `keep`.
    fn lookup(&mut self, key: (u32, i32), keep: Option<u8>) -> (u8, bool) {
        if let Some(at) = self.held.iter().position(|&h| h == Some(key)) {
            return (WIDE_SLOTS[at], false);
        }
        if keep == Some(WIDE_SLOTS[self.next]) {
            self.next = (self.next + 1) % WIDE_SLOTS.len();
        }
        (self.take(key), true)
    }

    /// The slots of the wide operands of `c` on half `h`, each with
    /// whether it must be loaded first.
    fn operands(&mut self, c: &Chain64, h: i32) -> [Option<(u8, bool)>; 2] {
        if c.op.shape() == Shape::Widening {
            return [None, None];
        }
        let a = self.lookup((c.a, h), None);
        let b = match c.b {
            Arg64::Reg(r) => Some(self.lookup((r, h), Some(a.0))),
            Arg64::Imm(_) => None,
        };
        [Some(a), b]
    }

    /// A slot for `key`, the old value of that half let go. The other
    /// half keeps its old value until it is taken too: the operation
    /// that writes it may still read it.
    fn take(&mut self, key: (u32, i32)) -> u8 {
        for h in &mut self.held {
            if *h == Some(key) {
                *h = None;
            }
        }
        let at = self.next;
        self.next = (self.next + 1) % WIDE_SLOTS.len();
        self.held[at] = Some(key);
        WIDE_SLOTS[at]
    }

    /// Forgets every half of register `r` that is not the one taken.
    fn forget(&mut self, r: u32) {
        for h in &mut self.held {
            if h.is_some_and(|(reg, _)| reg == r) {
                *h = None;
            }
        }
    }
}

impl Chain64 {
    /// Whether the operation writes a wide register.
    fn writes_wide(&self) -> bool {
        self.op.shape() != Shape::Narrowing
    }
}

/// Which operations of a run must write their result to the frame: all
/// but those of a wide register that a later operation of the run
/// overwrites on every lane, when nothing in between reads the frame's
/// copy (a value the cache has let go, or a masked write's old lanes).
fn frame_writes(chains: &[Chain64]) -> Vec<bool> {
    // A dry run of one chunk: which operations load which registers.
    let mut cache = WideCache::default();
    let mut loads: Vec<Vec<u32>> = Vec::with_capacity(chains.len());
    for c in chains {
        let mut loaded = Vec::new();
        for h in 0..2 {
            let [a, b] = cache.operands(c, h);
            if a.is_some_and(|(_, load)| load) {
                loaded.push(c.a);
            }
            if let (Some((_, true)), Arg64::Reg(r)) = (b, c.b) {
                loaded.push(r);
            }
            match c.writes_wide() {
                true => {
                    cache.take((c.dst, h));
                }
                false => cache.forget(c.dst),
            }
        }
        loads.push(loaded);
    }
    let writes: Vec<_> = chains
        .iter()
        .map(|c| c.writes_wide().then_some((c.dst, c.masked)))
        .collect();
    super::frame_writes(&writes, &loads)
}

impl WaveBuilder {
    /// The operations in order, as [`WaveBuilder::op64`] each, but eight
    /// lanes at a time: every operation on one chunk (two wide chunks)
    /// before the next chunk, with the wide values the chunk has loaded
    /// or made kept in vector registers for the operations after. A
    /// result that a later operation of the run overwrites is written to
    /// the frame only where something still reads it there. None of the
    /// operations reads other lanes.
    pub fn op64_chains(&mut self, chains: &[Chain64]) {
        if chains.iter().any(|c| c.masked) {
            self.need_lanes();
        }
        let writes = frame_writes(chains);
        for c in self.chunks() {
            let mut cache = WideCache::default();
            for (chain, &write) in chains.iter().zip(&writes) {
                for h in 0..2 {
                    self.chain64_half(chain, c, h, write, &mut cache);
                }
            }
        }
    }

    /// One operation of a run on half `h` of chunk `c`: wide chunk
    /// `2c + h`.
    fn chain64_half(
        &mut self,
        c: &Chain64,
        chunk: i32,
        h: i32,
        write: bool,
        cache: &mut WideCache,
    ) {
        let k = 2 * chunk + h;
        let d = self.offsets[c.dst as usize];
        let shape = c.op.shape();
        let [a, b] = cache.operands(c, h);
        for (slot, r) in [(a, c.a), (b, c.b.reg().unwrap_or(0))] {
            if let Some((s, true)) = slot {
                let at = self.wide_at(r);
                dynasm!(self.b.asm; .arch x64; vmovdqu Ry(s), [r12 + at + 32 * k]);
            }
        }
        match (shape, a) {
            (Shape::Widening, _) => self.widening_step(c.op, self.narrow(c.a) + 16 * k),
            (_, Some((x, _))) => {
                let y = match (b, c.b) {
                    (Some((y, _)), _) => y,
                    // Shifts by a constant take no second operand.
                    (_, Arg64::Imm(_)) if matches!(c.op, Op64::Shl | Op64::ShrU) => 1,
                    (_, Arg64::Imm(imm)) => {
                        let l = self.qwords([imm; 4]);
                        dynasm!(self.b.asm; .arch x64; vmovdqa ymm1, [=>l]);
                        1
                    }
                    (None, Arg64::Reg(_)) => unreachable!("a register operand has a slot"),
                };
                if shape == Shape::Narrowing {
                    // The narrowing steps change their operands.
                    dynasm!(self.b.asm; .arch x64
                        ; vmovdqa ymm0, Ry(x)
                        ; vmovdqa ymm1, Ry(y)
                    );
                    self.narrowing_half(c, d, chunk, h);
                    cache.forget(c.dst);
                    return;
                }
                self.wide_step_on(c.op, c.b.imm(), x, y);
            }
            (_, None) => unreachable!("an operation on wide values reads its first operand"),
        }
        if c.masked {
            dynasm!(self.b.asm; .arch x64
                ; vpmovsxdq Ry(MASK32), [rbx + LANES + 16 * k]
                ; vmovdqu ymm4, [r12 + d + 32 * k]
                ; vpblendvb ymm3, ymm4, ymm3, Ry(MASK32)
            );
        }
        if write {
            dynasm!(self.b.asm; .arch x64; vmovdqu [r12 + d + 32 * k], ymm3);
        }
        let s = cache.take((c.dst, h));
        dynasm!(self.b.asm; .arch x64; vmovdqa Ry(s), ymm3);
    }

    /// A narrowing operation on half `h` of chunk `c`, its operands in
    /// `ymm0` and `ymm1`: the first half's four narrow lanes wait in
    /// `ymm3`, the second's join them and the eight are written at `d`
    /// in one store, as the 32-bit code reads them.
    fn narrowing_half(&mut self, ch: &Chain64, d: i32, c: i32, h: i32) {
        self.narrowing_step(ch.op);
        if ch.op != Op64::F64ToF32 {
            let low_halves = self.b.constant(Constant::LowHalves);
            dynasm!(self.b.asm; .arch x64
                ; vmovdqa ymm5, [=>low_halves]
                ; vpermd ymm2, ymm5, ymm2
            );
        }
        if h == 0 {
            dynasm!(self.b.asm; .arch x64; vmovdqa xmm3, xmm2);
            return;
        }
        dynasm!(self.b.asm; .arch x64; vinserti128 ymm3, ymm3, xmm2, 1);
        if ch.op.is_compare() {
            dynasm!(self.b.asm; .arch x64; vpsrld ymm3, ymm3, 31);
        }
        self.store_chunk(d, c, ch.masked);
    }
}

impl WaveBuilder {
    /// `ymm1` = all ones in the lanes of wide chunk `k` that access 8 bytes
    /// at `ymm0` = their address (from the wide register at `a`, or 0)
    /// plus `ymm8` = the offset: active, 4-byte aligned, not below 0, and
    /// below `ymm9` = the memory's byte count less 7. Uses `ymm2`, `ymm4`.
    fn wide_access(&mut self, a: Option<i32>, k: i32) {
        self.access_lanes(a, k, 3);
    }

    /// [`WaveBuilder::wide_access`] for accesses whose address must be a
    /// multiple of `align + 1`, below the limit in `ymm9`.
    pub(super) fn access_lanes(&mut self, a: Option<i32>, k: i32, align: u64) {
        let three = self.qwords([align; 4]);
        match a {
            Some(a) => dynasm!(self.b.asm; .arch x64
                ; vmovdqu ymm0, [r12 + a + 32 * k]
                ; vpaddq ymm0, ymm0, ymm8
            ),
            None => dynasm!(self.b.asm; .arch x64; vmovdqa ymm0, ymm8),
        }
        dynasm!(self.b.asm; .arch x64
            ; vpxor ymm4, ymm4, ymm4
            ; vpand ymm1, ymm0, [=>three]
            ; vpcmpeqq ymm1, ymm1, ymm4
            ; vpcmpgtq ymm2, ymm9, ymm0
            ; vpand ymm1, ymm1, ymm2
            ; vpcmpgtq ymm2, ymm4, ymm0
            ; vpandn ymm1, ymm2, ymm1
            ; vpmovsxdq ymm2, [rbx + LANES + 16 * k]
            ; vpand ymm1, ymm1, ymm2
        );
    }

    /// `ymm8` = the offset `r9`, `ymm9` = the byte count `r8 * 4` less 7,
    /// in every 64-bit lane.
    fn wide_bounds(&mut self) {
        dynasm!(self.b.asm; .arch x64
            ; vmovq xmm8, r9
            ; vpbroadcastq ymm8, xmm8
            ; lea rax, [r8 * 4 - 7]
            ; vmovq xmm9, rax
            ; vpbroadcastq ymm9, xmm9
        );
    }

    /// Wide `dst` = the 8 bytes at byte `addr + offset` of memory `slot`
    /// on the active lanes (as [`WaveBuilder::load`] reads a word): 0 out
    /// of bounds or not 4-byte aligned.
    pub fn load64(&mut self, dst: u32, at: Address) {
        let d = self.wide_at(dst);
        let a = at.addr.map(|r| self.wide_at(r));
        self.need_lanes();
        self.memory(at.slot, false, at.offset);
        self.wide_bounds();
        for k in self.wide_chunks() {
            if k % 2 == 0 {
                self.chunk_memory(at, k / 2);
            }
            self.wide_access(a, k);
            dynasm!(self.b.asm; .arch x64; vpxor ymm3, ymm3, ymm3);
            // vpgatherqq ymm3, [rdx + ymm0 * 1], ymm1, encoded here: dynasm
            // 5.1 assembles it as `vpgatherqd` (W = 0).
            self.b
                .asm
                .extend([0xC4, 0xE2, 0xF5, 0x91, 0x5C, 0x02, 0x00]);
            self.store_wide_chunk(d, k, true);
        }
    }

    /// Writes wide `src`'s 8 bytes of each active lane, in lane order, to
    /// byte `addr + offset` of memory `slot` (as [`WaveBuilder::load64`]
    /// reads): nothing out of bounds or misaligned.
    pub fn store64(&mut self, at: Address, src: u32) {
        let s = self.wide_at(src);
        self.need_lanes();
        self.memory(at.slot, true, at.offset);
        self.wide_bounds();
        self.store_each_lane(at, s, 8);
    }

    /// Writes each active lane's value whose `bytes` (8: the wide register
    /// at frame offset `s`; 2: the low half of the narrow one there) at
    /// its address are inside the memory and aligned, lowest lane first.
    /// The caller has loaded the memory (`rdx`), the offset (`r9`, `ymm8`)
    /// and the limit (`ymm9`).
    pub(super) fn store_each_lane(&mut self, at: Address, s: i32, bytes: u8) {
        let a = at.addr.map(|r| self.wide_at(r));
        for k in self.wide_chunks() {
            if k % 2 == 0 {
                self.chunk_memory(at, k / 2);
            }
            self.access_lanes(a, k, if bytes == 8 { 3 } else { 1 });
            movmsk(&mut self.b.asm, 0, 1, true);
            // One lane at a time: its address (kept in the frame, or the
            // offset alone) and its value.
            dynasm!(self.b.asm; .arch x64
                ; test eax, eax
                ; jz >done
                ; next:
                ; tzcnt ecx, eax
                ; mov r10, r9
            );
            if let Some(a) = a {
                dynasm!(self.b.asm; .arch x64; add r10, [r12 + rcx * 8 + a + 32 * k]);
            }
            if bytes == 8 {
                dynasm!(self.b.asm; .arch x64
                    ; mov r11, [r12 + rcx * 8 + s + 32 * k]
                    ; mov [rdx + r10], r11
                );
            } else {
                dynasm!(self.b.asm; .arch x64
                    ; mov r11d, [r12 + rcx * 4 + s + 16 * k]
                    ; mov [rdx + r10], r11w
                );
            }
            dynasm!(self.b.asm; .arch x64
                ; blsr eax, eax
                ; jnz <next
                ; done:
            );
        }
    }
}

impl Op64 {
    fn is_compare(self) -> bool {
        self.shape() == Shape::Narrowing && !matches!(self, Op64::Trunc | Op64::F64ToF32)
    }
}
