//! Whole programs as machine code: the bytecode of a program, translated
//! instruction by instruction into lockstep-jit's [`wave`] code for one
//! wave size, which runs every wave of a group from
//! start to end with its control flow as native branches.
//!
//! Registers stay the bytecode's, one 32-bit word per lane; a register
//! that holds a byte address (written by `IndexScale`, read as an
//! `Address`) or a 64-bit value (`double`, `int64_t`, `uint64_t`, as the
//! instruction's [`OpForm`] or type says) has a 64-bit slot of its own
//! beside its 32-bit one, so that a temporary reused for a 64-bit value in
//! one statement and a 32-bit one in another keeps both. Each instruction
//! reads and writes the slot its operand types name; a copy moves the
//! slot that its source's last writer filled ([`copy_widths`]). What has no machine code (atomics, queries, most wave operations,
//! the operations without an `Op32`) is a callout: the interpreter runs
//! that one instruction on a wave whose registers are copied in from the
//! frame and back ([`Native::callout`]).
//!
//! Waves narrower than [`PASS_LANES`] run side by side with the same wave
//! of other groups, that many lanes to a pass (four groups' waves of 8
//! lanes, two of 16), each with its own execution mask bits: their
//! instructions overlap in the CPU, where one 8-lane wave alone waits on
//! its own latencies, and their control flow costs one branch for all of
//! them. The waves of one group still take turns in index order, each
//! group with its own shared memory; only atomics between groups may
//! interleave differently, as they may between threads. A callout runs
//! the interpreter once for each wave of the pass with an active lane.
//!
//! Waves stop at a group barrier and the next wave of the group takes its
//! turn ([`WaveBuilder::barrier`]), each with a register frame of its own;
//! a barrier that no lane of the pass reaches is passed, as the
//! interpreter passes it. Where a barrier sits inside a branch or loop, a
//! group's wave may have no lane at it while another group's does, so
//! such a program runs one group's wave per pass.
//!
//! `float` transcendentals are calls of [`crate::lanes`]' functions over
//! the pass's lanes, and other arithmetic without machine code is a
//! callout that runs once for the whole pass.
//!
//! A program runs here when the CPU has AVX2, the wave size is 8 to 64
//! (4 and 128 in the cases [`Program::native_for`] gives),
//! no atomic, index, `switch` selector, local array or wave operation
//! (but `WaveReadLaneFirst` and the quad reads) takes a 64-bit value, and
//! the dispatch is a normal one (no findings, lanes in order, groups in
//! order).
//!
//! [`wave`]: lockstep_jit::wave

mod consecutive;

pub(crate) use consecutive::address_strides as consecutive_strides;

use std::ffi::c_void;

use lockstep_ir::{ResourceQuery, ScalarType, SystemValue, WaveOp};
use lockstep_jit::wave::{
    Address, Arg, Arg64, Atomic, Callout, Chain, Chain64, HELD_SITES, Input, Label, Lanes, Op64,
    Resource, ResourceField, State, Vote as NVote, WaveBuilder, WaveCode, WaveKind,
};

use crate::bytecode::{Cmp32, Inst, Lanes as BLanes, Op32, OpForm, Reg, Space, Test, Vote};
use crate::check::SharedTracker;
use crate::compile::Program;
use crate::engine::{Context, Deferred, Wave};
use crate::memory::Memory;
use crate::{BoundResource, ExecError};

/// The lanes of one pass of the machine code over waves narrower than
/// this. Measured with one wave per pass: 32 lanes ran `divergent_loop`
/// 2–2.5× as fast as 8 and as fast as 64 (where more lanes wait on the
/// longest loop); on the streaming kernels 16 and 32 were within the
/// machine's noise of each other, both well ahead of 8.
pub(crate) const PASS_LANES: usize = 32;

/// A program's machine code at one wave size, with what its callouts and
/// inputs need.
#[derive(Debug)]
pub(crate) struct Native {
    code: WaveCode,
    /// Lanes of a wave.
    wave: usize,
    /// The lanes of a wave that may exist: `wave`, or 4 for wave size 4,
    /// whose waves run as waves of 8 lanes with the last four missing.
    live: usize,
    /// Lanes of a pass: `width / wave` waves side by side.
    width: usize,
    /// Per callout id: the instruction and the registers it touches, each
    /// with its frame offset and whether that slot is 64-bit.
    callouts: Vec<CalloutPlan>,
    /// Per input index: the system value and component.
    inputs: Vec<(SystemValue, usize)>,
    /// Frame offsets and bits of the constant registers (both slots).
    constants: Vec<(usize, bool, u64)>,
    /// The interpreter measured faster: the program has a callout other
    /// than arithmetic (which runs once per wave, where the interpreter
    /// runs sixteen waves at once), or waves of 4 that take turns at
    /// nested barriers.
    costly: bool,
    /// The atomics whose updates the code holds, by site ([`HeldSite`]).
    held: Vec<HeldSite>,
}

/// An atomic whose updates the machine code folds into its state and the
/// worker applies once, when its batch of groups ends (as
/// `engine::Deferred` does for the interpreter): one whose result nothing
/// reads, at a constant address, with an update that folds (add, and, or,
/// xor, min, max), on a resource that nothing else in the program reads
/// or writes. Only other workers could tell, by reading the word, and
/// nothing does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct HeldSite {
    resource: usize,
    offset: u64,
    op: lockstep_ir::AtomicOp,
    ty: ScalarType,
}

/// Per resource index: whether every access of the program to it is an
/// atomic that may hold its update (see [`HeldSite`]), all with one
/// operation, so that no word gets updates that do not commute.
fn held_resources(p: &Program) -> Vec<bool> {
    // Per resource: none seen yet, or the one operation, or `None` where
    // it cannot hold.
    let mut held: Vec<Option<Option<(lockstep_ir::AtomicOp, ScalarType)>>> =
        vec![None; p.element_strides.len()];
    for inst in &p.code {
        let (addr, holds) = match *inst {
            Inst::Atomic {
                op,
                ty,
                addr,
                deferrable,
                ..
            } => {
                let folds = crate::memory::combining(op, ty).is_some();
                (
                    addr,
                    (deferrable && addr.dynamic.is_none() && folds).then_some((op, ty)),
                )
            }
            Inst::Load { addr, .. } | Inst::Store { addr, .. } => (addr, None),
            _ => continue,
        };
        if let Space::Resource(id) = addr.space
            && let Some(h) = held.get_mut(id.index())
        {
            *h = Some(match *h {
                None => holds,
                Some(before) => before.filter(|&b| Some(b) == holds),
            });
        }
    }
    held.into_iter()
        .map(|h| matches!(h, Some(Some(_))))
        .collect()
}

#[derive(Debug)]
struct CalloutPlan {
    pc: usize,
    regs: Vec<(Reg, usize, bool)>,
    /// The instruction runs once for the pass's lanes, not once per wave
    /// ([`lanewise`]).
    lanewise: bool,
}

/// Whether a callout may run `inst` over the waves of a pass at once: it
/// computes each lane from that lane's registers alone, or it is a wave
/// operation, which sees its own wave's lanes only (the interpreter splits
/// the pass into waves, as it does a batch) and neither the group nor the
/// wave's index in it.
fn lanewise(inst: &Inst) -> bool {
    match inst {
        Inst::Unary { .. }
        | Inst::Binary { .. }
        | Inst::BinaryImm { .. }
        | Inst::Ternary { .. }
        | Inst::Select { .. }
        | Inst::Copy { .. }
        | Inst::CopyMasked { .. }
        | Inst::Gather { .. }
        | Inst::Scatter { .. }
        | Inst::TexelAddress { .. }
        | Inst::Wave4 { .. }
        | Inst::MultiPrefix { .. } => true,
        Inst::Wave { op, .. } => !matches!(op, WaveOp::GroupWaveIndex | WaveOp::GroupWaveCount),
        _ => false,
    }
}

/// The register uses of their 64-bit address slot: `IndexScale`'s result
/// and base, `TexelAddress`'s result, memory addresses, and the register
/// index of `Gather` and `Scatter`.
fn address_regs(inst: &Inst, mut f: impl FnMut(Reg)) {
    match *inst {
        Inst::IndexScale { dst, base, .. } => {
            f(dst);
            if let Some(b) = base {
                f(b);
            }
        }
        Inst::TexelAddress { dst, .. } => f(dst),
        // A register index made by `IndexScale`.
        Inst::Gather { delta, .. } | Inst::Scatter { delta, .. } => f(delta),
        Inst::Load { addr, .. } | Inst::Store { addr, .. } | Inst::Atomic { addr, .. } => {
            if let Some(r) = addr.dynamic {
                f(r);
            }
        }
        _ => {}
    }
}

/// The register uses of their 64-bit slot: addresses ([`address_regs`])
/// and 64-bit values.
fn wide_operands(inst: &Inst, mut f: impl FnMut(Reg)) {
    address_regs(inst, &mut f);
    let mut typed = |form: Option<OpForm>, regs: [Option<Reg>; 4]| {
        let wide = form.map_or([false; 4], OpForm::wide);
        for (r, w) in regs.into_iter().zip(wide) {
            if let Some(r) = r.filter(|_| w) {
                f(r);
            }
        }
    };
    match *inst {
        Inst::Unary { dst, a, form, .. } | Inst::BinaryImm { dst, a, form, .. } => {
            typed(form, [Some(dst), Some(a), None, None])
        }
        Inst::Binary {
            dst, a, b, form, ..
        } => typed(form, [Some(dst), Some(a), Some(b), None]),
        Inst::Ternary {
            dst, a, b, c, form, ..
        } => typed(form, [Some(dst), Some(a), Some(b), Some(c)]),
        Inst::Load { dst, ty, .. } if ty.size() == 8 => f(dst),
        Inst::Wave { dst, a, ty, .. } if ty.size() == 8 => {
            f(dst);
            f(a);
        }
        Inst::Store { src, ty, .. } if ty.size() == 8 => f(src),
        _ => {}
    }
}

/// Whether register `r`, an array's or the value gathered or scattered
/// at `pc`, has a use of its 64-bit slot ([`wide_operands`], or a copy of
/// a value in that slot) that may see what it holds there: from the last
/// write of `r` before `pc` (the gather's own, for its value) to the next
/// write after, over the whole of the `loops` (jumps back, as `(target,
/// jump)`) around `pc` where the value may be carried into the next
/// iteration. A register holds one variable of one type over its range;
/// the compiler reuses a register (for addresses among others) outside it.
fn wide_near(
    code: &[Inst],
    widths: &[Option<bool>],
    loops: &[(usize, usize)],
    pc: usize,
    r: Reg,
) -> bool {
    let (mut lo, mut hi) = (pc, pc);
    for &(target, jump) in loops {
        if target <= pc && pc <= jump {
            (lo, hi) = (lo.min(target), hi.max(jump));
        }
    }
    let writes = |i: usize| code[i].writes_in(r.0..r.0 + 1);
    let mut carried = false;
    let start = if matches!(code[pc], Inst::Gather { dst, .. } if dst == r) {
        pc
    } else if let Some(w) = (lo..pc).rev().find(|&i| writes(i)) {
        w
    } else {
        carried = true;
        (0..lo).rev().find(|&i| writes(i)).unwrap_or(0)
    };
    // The next write ends the value, unless it reads it too.
    let end = if let Some(w) = (pc + 1..=hi).find(|&i| writes(i)) {
        w
    } else {
        carried = true;
        (hi + 1..code.len())
            .find(|&i| writes(i))
            .unwrap_or(code.len())
    };
    let (start, end) = if carried && lo < hi {
        (start.min(lo), end.max(hi + 1))
    } else {
        (start, end)
    };
    let uses = |i: usize| {
        let (mut wide, mut refs) = (false, 0);
        wide_operands(&code[i], |w| wide |= w == r);
        wide |= widths[i] == Some(true) && copied_regs(&code[i]).contains(&r);
        code[i].for_each_reg_ref(|x| refs += usize::from(*x == r));
        (wide, refs)
    };
    let ends_reading = end < code.len() && uses(end).1 > 1;
    (start..end)
        .chain(ends_reading.then_some(end))
        .filter(|&i| i != pc)
        .any(|i| uses(i).0)
}

/// The registers an instruction copies from one to another unchanged
/// (`Copy`, `CopyMasked`, a `Select` of values that are not all words):
/// where one has a 64-bit slot, all do, and the copy moves both slots.
fn copied_regs(inst: &Inst) -> Vec<Reg> {
    match *inst {
        Inst::Copy { dst, src } | Inst::CopyMasked { dst, src } => vec![dst, src],
        Inst::Select {
            dst,
            a,
            b,
            word: false,
            ..
        } => vec![dst, a, b],
        _ => Vec::new(),
    }
}

/// For each copy of registers with both slots ([`copied_regs`]), the slot
/// that holds the source's value, by the instruction that wrote it last
/// in program order: `Some(true)` the 64-bit one, `None` either (a
/// constant, or a writer that does not say). A register holds one
/// variable, of one type, from its first write to its last read, so the
/// last writer before a read in program order has the type of every
/// writer whose value the read can see, an earlier iteration's included.
fn copy_widths(code: &[Inst], regs: usize) -> Vec<Option<bool>> {
    let mut state: Vec<Option<bool>> = vec![None; regs];
    let mut out = vec![None; code.len()];
    for (pc, inst) in code.iter().enumerate() {
        let at = |r: Reg| r.0 as usize;
        match *inst {
            Inst::Copy { dst, src } | Inst::CopyMasked { dst, src } => {
                out[pc] = state[at(src)];
                state[at(dst)] = out[pc];
            }
            Inst::Select {
                dst,
                a,
                b,
                word: false,
                ..
            } => {
                out[pc] = state[at(a)].filter(|_| state[at(a)] == state[at(b)]);
                state[at(dst)] = out[pc];
            }
            _ => {
                inst.for_each_reg_ref(|r| state[at(*r)] = None);
                match *inst {
                    Inst::Unary { dst, form, .. }
                    | Inst::Binary { dst, form, .. }
                    | Inst::BinaryImm { dst, form, .. }
                    | Inst::Ternary { dst, form, .. } => {
                        state[at(dst)] = Some(form.is_some_and(|f| f.wide()[0]));
                    }
                    Inst::Load { dst, ty, .. } => state[at(dst)] = Some(ty.size() == 8),
                    _ => {}
                }
            }
        }
    }
    out
}

/// A 16-bit operation as 32-bit ones: the operands widened (`half` to
/// `float`), the operation, and the result narrowed (`float` to `half`,
/// or the low 16 bits kept).
struct Sixteen {
    widen: Option<Op32>,
    op: Op32,
    narrow: Option<(Op32, u32)>,
}

/// The 32-bit form of a 16-bit operation, where it has one. `half`
/// arithmetic computes in `float` and rounds once, as the engine's
/// (`lockstep_wave::Float`); 16-bit integers are zero-extended words.
fn sixteen(form: OpForm) -> Option<Sixteen> {
    use ScalarType as S;
    use lockstep_ir::BinaryOp as B;
    let f16 = Some(Op32::F16ToF32);
    let to_f16 = Some((Op32::F32ToF16, 0));
    let low = Some((Op32::And, 0xFFFF));
    let (widen, op, narrow) = match form {
        OpForm::Binary(op, S::Float16) => {
            let (op, narrow) = match op {
                B::Add => (Op32::FAdd, to_f16),
                B::Sub => (Op32::FSub, to_f16),
                B::Mul => (Op32::FMul, to_f16),
                B::Div => (Op32::FDiv, to_f16),
                B::Eq => (Op32::FEq, None),
                B::Ne => (Op32::FNe, None),
                B::Lt => (Op32::FLt, None),
                B::Le => (Op32::FLe, None),
                B::Gt => (Op32::FGt, None),
                B::Ge => (Op32::FGe, None),
                _ => return None,
            };
            (f16, op, narrow)
        }
        OpForm::Binary(op, S::Int16 | S::UInt16) => {
            let unsigned = matches!(form, OpForm::Binary(_, S::UInt16));
            let (op, narrow) = match op {
                B::Add => (Op32::Add, low),
                B::Sub => (Op32::Sub, low),
                B::Mul => (Op32::Mul, low),
                B::BitAnd => (Op32::And, None),
                B::BitOr => (Op32::Or, None),
                B::BitXor => (Op32::Xor, None),
                B::Eq => (Op32::Eq, None),
                B::Ne => (Op32::Ne, None),
                B::Lt if unsigned => (Op32::LtU, None),
                B::Le if unsigned => (Op32::LeU, None),
                B::Gt if unsigned => (Op32::GtU, None),
                B::Ge if unsigned => (Op32::GeU, None),
                _ => return None,
            };
            (None, op, narrow)
        }
        // IEEE minNum and maxNum of the widened values, exact back in
        // `half`, as the interpreter computes them.
        OpForm::Builtin(lockstep_ir::Builtin::Min, S::Float16) => (f16, Op32::FMin, to_f16),
        // The sign flipped or cleared on the widened value, as the
        // interpreter's `half` negation and `abs` compute it.
        OpForm::Unary(lockstep_ir::UnaryOp::Neg, S::Float16) => (f16, Op32::FNeg, to_f16),
        OpForm::Builtin(lockstep_ir::Builtin::Abs, S::Float16) => (f16, Op32::FAbs, to_f16),
        OpForm::Builtin(lockstep_ir::Builtin::Max, S::Float16) => (f16, Op32::FMax, to_f16),
        OpForm::Convert(S::Float16, S::Float32) => (None, Op32::F16ToF32, None),
        OpForm::Convert(S::Float32, S::Float16) => (None, Op32::F32ToF16, None),
        _ => return None,
    };
    Some(Sixteen { widen, op, narrow })
}

/// A `half`'s bits as the `float` bits of the same number.
fn f16_to_f32(bits: u32) -> u32 {
    lockstep_wave::ops::f16tof32(bits).to_bits()
}

/// The 64-bit wave operations with machine code: which quad swap
/// (`Some(0)`: `WaveReadLaneFirst`).
fn wide_wave(op: WaveOp) -> Option<u8> {
    match op {
        WaveOp::ReadLaneFirst => Some(0),
        WaveOp::QuadReadAcrossX => Some(1),
        WaveOp::QuadReadAcrossY => Some(2),
        WaveOp::QuadReadAcrossDiagonal => Some(3),
        _ => None,
    }
}

/// The machine code's form of a 64-bit operation, where it has one.
fn op64(form: OpForm) -> Option<Op64> {
    use ScalarType as S;
    use lockstep_ir::{BinaryOp as B, UnaryOp as U};
    let int = |ty: S| matches!(ty, S::Int64 | S::UInt64);
    Some(match form {
        OpForm::Binary(op, ty) if int(ty) => {
            let signed = ty == S::Int64;
            match op {
                B::Add => Op64::Add,
                B::Sub => Op64::Sub,
                B::Mul => Op64::Mul,
                B::BitAnd => Op64::And,
                B::BitOr => Op64::Or,
                B::BitXor => Op64::Xor,
                B::Shl => Op64::Shl,
                B::Shr if signed => Op64::ShrS,
                B::Shr => Op64::ShrU,
                B::Eq => Op64::Eq,
                B::Ne => Op64::Ne,
                B::Lt if signed => Op64::LtS,
                B::Le if signed => Op64::LeS,
                B::Gt if signed => Op64::GtS,
                B::Ge if signed => Op64::GeS,
                B::Lt => Op64::LtU,
                B::Le => Op64::LeU,
                B::Gt => Op64::GtU,
                B::Ge => Op64::GeU,
                _ => return None,
            }
        }
        OpForm::Binary(op, S::Float64) => match op {
            B::Add => Op64::FAdd,
            B::Sub => Op64::FSub,
            B::Mul => Op64::FMul,
            B::Div => Op64::FDiv,
            B::Eq => Op64::FEq,
            B::Ne => Op64::FNe,
            B::Lt => Op64::FLt,
            B::Le => Op64::FLe,
            B::Gt => Op64::FGt,
            B::Ge => Op64::FGe,
            _ => return None,
        },
        OpForm::Unary(U::Neg, ty) if int(ty) => Op64::INeg,
        OpForm::Unary(U::Neg, S::Float64) => Op64::FNeg,
        OpForm::Builtin(lockstep_ir::Builtin::Abs, S::Float64) => Op64::FAbs,
        OpForm::Builtin(lockstep_ir::Builtin::Min, S::Float64) => Op64::FMin,
        OpForm::Builtin(lockstep_ir::Builtin::Max, S::Float64) => Op64::FMax,
        OpForm::Unary(U::BitNot, ty) if int(ty) => Op64::Not,
        OpForm::Convert(S::UInt32, to) if int(to) => Op64::ZExt,
        OpForm::Convert(S::Int32, to) if int(to) => Op64::SExt,
        OpForm::Convert(from, S::Int32 | S::UInt32) if int(from) => Op64::Trunc,
        OpForm::Convert(S::Int32, S::Float64) => Op64::IToF,
        OpForm::Convert(S::UInt32, S::Float64) => Op64::UToF,
        OpForm::Convert(S::Float32, S::Float64) => Op64::F32ToF64,
        OpForm::Convert(S::Float64, S::Float32) => Op64::F64ToF32,
        _ => return None,
    })
}

fn cmp_op(c: Cmp32) -> Op32 {
    match c {
        Cmp32::Eq => Op32::Eq,
        Cmp32::Ne => Op32::Ne,
        Cmp32::LtU => Op32::LtU,
        Cmp32::LeU => Op32::LeU,
        Cmp32::GtU => Op32::GtU,
        Cmp32::GeU => Op32::GeU,
        Cmp32::LtS => Op32::LtS,
        Cmp32::LeS => Op32::LeS,
        Cmp32::GtS => Op32::GtS,
        Cmp32::GeS => Op32::GeS,
        Cmp32::FEq => Op32::FEq,
        Cmp32::FNe => Op32::FNe,
        Cmp32::FLt => Op32::FLt,
        Cmp32::FLe => Op32::FLe,
        Cmp32::FGt => Op32::FGt,
        Cmp32::FGe => Op32::FGe,
    }
}

/// The machine-code form of a wave operation on `ty`, where it has one.
fn wave_kind(op: WaveOp, ty: ScalarType) -> Option<WaveKind> {
    use ScalarType as S;
    let int = matches!(ty, S::UInt32 | S::Int32);
    // 16-bit values are zero-extended words: moving them, their bits and
    // their unsigned order are the words'.
    let word = matches!(ty.size(), 2 | 4);
    let short = matches!(ty, S::UInt16 | S::Int16);
    Some(match op {
        WaveOp::GetLaneIndex => WaveKind::LaneIndex,
        WaveOp::GetLaneCount => WaveKind::LaneCount,
        WaveOp::GroupWaveIndex => WaveKind::GroupWaveIndex,
        WaveOp::GroupWaveCount => WaveKind::GroupWaveCount,
        WaveOp::IsFirstLane => WaveKind::IsFirstLane,
        WaveOp::AnyTrue if ty == S::Bool => WaveKind::AnyTrue,
        WaveOp::AllTrue if ty == S::Bool => WaveKind::AllTrue,
        WaveOp::CountBits if ty == S::Bool => WaveKind::CountBits,
        WaveOp::ReadLaneFirst if word => WaveKind::ReadFirst,
        WaveOp::Sum if int => WaveKind::Reduce(Op32::Add),
        WaveOp::Product if int => WaveKind::Reduce(Op32::Mul),
        WaveOp::BitAnd if int || short => WaveKind::Reduce(Op32::And),
        WaveOp::BitOr if int || short => WaveKind::Reduce(Op32::Or),
        WaveOp::BitXor if int || short => WaveKind::Reduce(Op32::Xor),
        WaveOp::Min if matches!(ty, S::UInt32 | S::UInt16) => WaveKind::Reduce(Op32::UMin),
        WaveOp::Max if matches!(ty, S::UInt32 | S::UInt16) => WaveKind::Reduce(Op32::UMax),
        WaveOp::Min if ty == S::Int32 => WaveKind::Reduce(Op32::SMin),
        WaveOp::Max if ty == S::Int32 => WaveKind::Reduce(Op32::SMax),
        WaveOp::Sum if ty == S::Float32 => WaveKind::Fold(Op32::FAdd),
        WaveOp::Product if ty == S::Float32 => WaveKind::Fold(Op32::FMul),
        WaveOp::Min if ty == S::Float32 => WaveKind::Fold(Op32::FMin),
        WaveOp::Max if ty == S::Float32 => WaveKind::Fold(Op32::FMax),
        WaveOp::PrefixSum if int => WaveKind::Prefix(Op32::Add, 0),
        WaveOp::PrefixProduct if int => WaveKind::Prefix(Op32::Mul, 1),
        WaveOp::PrefixSum if ty == S::Float32 => WaveKind::Prefix(Op32::FAdd, 0),
        WaveOp::PrefixProduct if ty == S::Float32 => WaveKind::Prefix(Op32::FMul, 1f32.to_bits()),
        WaveOp::ReadLaneAt if word => WaveKind::ReadAt,
        WaveOp::AllEqual if int || short || ty == S::Bool => WaveKind::AllEqual { float: false },
        WaveOp::AllEqual if ty == S::Float32 => WaveKind::AllEqual { float: true },
        WaveOp::QuadReadAcrossX if word => WaveKind::QuadSwap(1),
        WaveOp::QuadReadAcrossY if word => WaveKind::QuadSwap(2),
        WaveOp::QuadReadAcrossDiagonal if word => WaveKind::QuadSwap(3),
        WaveOp::QuadReadLaneAt if word => WaveKind::QuadLaneAt,
        _ => return None,
    })
}

/// Translates one program.
struct Translator<'p> {
    p: &'p Program,
    b: WaveBuilder,
    /// The wave size.
    wave: usize,
    /// Builder register of each bytecode register's 64-bit slot.
    wide: Vec<Option<u32>>,
    /// First builder register of the block scratch (32-bit).
    scratch: u32,
    labels: Vec<Option<Label>>,
    callouts: Vec<CalloutPlan>,
    /// Per address register, the scale of the `IndexScale` that wrote it
    /// last in program order: the stride loads expect (checked as they
    /// run).
    strides: std::collections::HashMap<u32, u32>,
    /// Per load and store, the byte stride its lanes' addresses follow
    /// each other by, where that holds by construction (0 elsewhere; see
    /// [`consecutive`]).
    consecutive: Vec<u32>,
    /// See [`Native::costly`].
    costly: bool,
    /// Threads of the groups a pass runs side by side: how far on the
    /// next pass's same lane is.
    pass_threads: u64,
    /// Per instruction, see [`copy_widths`].
    copy_wide: Vec<Option<bool>>,
    /// The constant registers' bits.
    constants: std::collections::HashMap<u32, u64>,
    /// Per resource index, see [`held_resources`].
    holds: Vec<bool>,
    /// See [`Native::held`].
    held: Vec<HeldSite>,
}

impl Native {
    /// Whether some callout costs more than the interpreter saves.
    pub(crate) fn costly(&self) -> bool {
        self.costly
    }

    /// Instructions that run as callouts.
    pub(crate) fn pass_groups(&self) -> usize {
        self.code.groups()
    }

    pub(crate) fn callouts(&self) -> usize {
        self.callouts.len()
    }

    /// The machine code of `p` at wave size `wave`, whose
    /// `WaveGetLaneCount` is `lanes` (see [`Program::native_for`]), or
    /// why it gets none.
    pub(crate) fn build(p: &Program, wave: usize, lanes: usize) -> Result<Native, &'static str> {
        let narrowed = lanes != wave;
        let live = wave.min(lanes);
        // A lane index that is a constant below both lane counts reads the
        // same lane of both; any other may wrap differently, or name a lane
        // whose register the interpreter keeps (docs/semantics.md).
        let below_wave = |r: Reg| {
            p.constants
                .iter()
                .any(|&(c, bits)| c == r && bits < live as u64)
        };
        if narrowed
            && p.code.iter().any(|inst| {
                matches!(
                    *inst,
                    Inst::Wave {
                        op: WaveOp::ReadLaneAt,
                        b,
                        ..
                    } if !below_wave(b)
                )
            })
        {
            return Err(
                "WaveReadLaneAt wraps its lane index at the wave size: the interpreter runs waves of 4 and 128 lanes",
            );
        }
        // A barrier inside a branch or loop may find one group's wave with
        // no lane at it while another group's same wave stops there; the
        // waves of a pass share their control flow, so each pass then
        // holds one group's wave alone. So does a pass of a program that
        // may wait for another group (`compile::waits`): a group that has
        // left the loop must go on while the other spins.
        let width = if nested_barrier(&p.code) || p.waits {
            wave
        } else {
            wave.max(PASS_LANES)
        };
        if !crate::simd::avx2_available() {
            return Err("the CPU lacks AVX2");
        }
        if p.checked {
            return Err("checked mode runs the interpreter");
        }
        let mut has_wide = vec![false; p.reg_count as usize];
        let mut scratch_needed = 0;
        for inst in &p.code {
            match inst {
                Inst::CheckDivisor { .. }
                | Inst::CheckDiscardedRead { .. }
                | Inst::Uninitialized { .. } => return Err("checked mode runs the interpreter"),
                Inst::Block32(block) => scratch_needed = scratch_needed.max(block.ops.len()),
                Inst::Wave { op, ty, .. } if ty.size() == 8 && wide_wave(*op).is_none() => {
                    return Err("a wave operation or atomic takes 64-bit values");
                }
                Inst::Atomic { ty, .. } | Inst::Wave4 { ty, .. } | Inst::MultiPrefix { ty, .. }
                    if ty.size() == 8 =>
                {
                    return Err("a wave operation or atomic takes 64-bit values");
                }
                Inst::IndexScale { index_ty: ty, .. }
                | Inst::SwitchCase {
                    selector_ty: ty, ..
                } if ty.size() == 8 => {
                    return Err("an index or switch selector is a 64-bit value");
                }
                _ => {}
            }
            wide_operands(inst, |r| has_wide[r.0 as usize] = true);
        }
        // A copy moves both slots of registers that have a 64-bit one.
        let mut changed = true;
        while changed {
            changed = false;
            for inst in &p.code {
                let regs = copied_regs(inst);
                if regs.iter().any(|r| has_wide[r.0 as usize])
                    && !regs.iter().all(|r| has_wide[r.0 as usize])
                {
                    regs.iter().for_each(|r| has_wide[r.0 as usize] = true);
                    changed = true;
                }
            }
        }
        // The interpreter's register arrays hold values of one width: where
        // a register of the array or the value gathered or scattered has a
        // 64-bit slot, nothing that may see it there uses that slot.
        let widths = copy_widths(&p.code, p.reg_count as usize);
        let loops: Vec<(usize, usize)> = p
            .code
            .iter()
            .enumerate()
            .filter_map(|(j, inst)| match *inst {
                Inst::Jump { target } if target as usize <= j => Some((target as usize, j)),
                _ => None,
            })
            .collect();
        let near = |pc: usize, r: u32| {
            has_wide[r as usize] && wide_near(&p.code, &widths, &loops, pc, Reg(r))
        };
        for (pc, inst) in p.code.iter().enumerate() {
            if let Inst::Gather {
                dst: value,
                base,
                limit,
                ..
            }
            | Inst::Scatter {
                src: value,
                base,
                limit,
                ..
            } = *inst
                && (base.0..base.0.saturating_add(limit))
                    .chain([value.0])
                    .any(|r| near(pc, r))
            {
                return Err("a local array holds 64-bit values");
            }
        }
        // Registers: every bytecode register's 32-bit slot, then the
        // 64-bit slots, then the blocks' scratch.
        let n = p.reg_count as usize;
        let mut classes = vec![false; n];
        let mut wide = vec![None; n];
        for (r, _) in has_wide.iter().enumerate().filter(|(_, w)| **w) {
            wide[r] = Some(classes.len() as u32);
            classes.push(true);
        }
        let scratch = classes.len() as u32;
        classes.extend(std::iter::repeat_n(false, scratch_needed));
        let mut inputs = Vec::new();
        let mut input_regs = Vec::new();
        for input in &p.inputs {
            if !matches!(input.ty, ScalarType::UInt32 | ScalarType::Int32) {
                return Err("a system value is not a 32-bit integer");
            }
            for &(k, reg) in &input.regs {
                inputs.push((input.sv, k.min(2)));
                input_regs.push(reg.0);
            }
        }
        let mut b = WaveBuilder::new(width, wave, &classes, &input_regs, p.barriers).ok_or(
            "machine code takes waves of 8 to 64 lanes on CPUs with AVX2, POPCNT and BMI1",
        )?;
        // The group's shape at the dispatch's wave size: at wave size 4,
        // each 4 threads of it fill the first lanes of a wave of 8.
        let shape = lanes.min(wave) as u32;
        if crate::engine::in_blocks(p.group.extent(shape), p.quads) {
            b.quad_rows();
        }
        b.report_lane_count(lanes);
        let mut t = Translator {
            p,
            b,
            wave,
            wide,
            scratch,
            labels: vec![None; p.code.len() + 1],
            callouts: Vec::new(),
            strides: std::collections::HashMap::new(),
            consecutive: consecutive::address_strides(p, shape as usize),
            costly: false,
            pass_threads: (width / wave) as u64 * p.group.threads(shape),
            copy_wide: widths,
            constants: p.constants.iter().map(|&(r, bits)| (r.0, bits)).collect(),
            holds: held_resources(p),
            held: Vec::new(),
        };
        t.translate()?;
        // Waves of 4 fill half of each 8-lane chunk; where they take turns
        // at barriers inside branches or loops, one wave to a pass, the
        // interpreter is faster (a tiled matrix product: 2.4×).
        let half_waves_at_barriers = lanes < wave && width == wave && p.barriers;
        let costly = t.costly || half_waves_at_barriers;
        let Translator {
            b,
            wide,
            callouts,
            held,
            ..
        } = t;
        // An instruction the machine code hands the interpreter runs on
        // the wave's `wave` lanes too, where only the lane count differs.
        if narrowed
            && callouts.iter().any(|c| {
                matches!(
                    p.code.get(c.pc),
                    Some(Inst::Wave {
                        op: WaveOp::GetLaneCount,
                        ..
                    })
                )
            })
        {
            return Err(
                "the interpreter runs waves of 4 and 128 lanes whose machine code would hand it WaveGetLaneCount",
            );
        }
        let code = b
            .finish()
            .ok_or("the machine code could not be made executable")?;
        let mut constants = Vec::new();
        for &(r, bits) in &p.constants {
            constants.push((code.offset(r.0), false, bits));
            if let Some(w) = wide[r.0 as usize] {
                constants.push((code.offset(w), true, bits));
            }
        }
        let callouts = callouts
            .into_iter()
            .map(|c| CalloutPlan {
                pc: c.pc,
                regs: c
                    .regs
                    .into_iter()
                    .map(|(r, slot, w)| (r, code.offset(slot as u32), w))
                    .collect(),
                lanewise: c.lanewise,
            })
            .collect();
        Ok(Native {
            code,
            wave,
            live,
            width,
            callouts,
            inputs,
            constants,
            costly,
            held,
        })
    }
}

impl Translator<'_> {
    /// The site at which an atomic holds its updates, where it may (see
    /// [`HeldSite`]).
    fn held_site(
        &mut self,
        op: lockstep_ir::AtomicOp,
        ty: ScalarType,
        addr: crate::bytecode::Address,
        deferrable: bool,
    ) -> Option<u32> {
        let Space::Resource(id) = addr.space else {
            return None;
        };
        if !deferrable || addr.dynamic.is_some() || !self.holds.get(id.index()).copied()? {
            return None;
        }
        let site = HeldSite {
            resource: id.index(),
            offset: u64::from(addr.offset),
            op,
            ty,
        };
        let at = match self.held.iter().position(|&h| h == site) {
            Some(at) => at,
            None if self.held.len() < HELD_SITES => {
                self.held.push(site);
                self.held.len() - 1
            }
            None => return None,
        };
        Some(at as u32)
    }

    fn label(&mut self, pc: u32) -> Label {
        let pc = pc as usize;
        if let Some(l) = self.labels[pc] {
            return l;
        }
        let l = self.b.label();
        self.labels[pc] = Some(l);
        l
    }

    fn wide(&self, r: Reg) -> u32 {
        self.wide[r.0 as usize].expect("an address register has a 64-bit slot")
    }

    fn lanes(&self, cond: Reg, test: Test) -> (Lanes, Option<NVote>) {
        let lanes = match test.lanes {
            BLanes::Nonzero => Lanes::Nonzero(cond.0),
            BLanes::Compare(c, b) => Lanes::Compare(cmp_op(c), cond.0, Arg::Reg(b.0)),
            BLanes::CompareImm(c, k) => Lanes::Compare(cmp_op(c), cond.0, Arg::Imm(k)),
            BLanes::Previous => Lanes::Previous,
        };
        let vote = test.vote.map(|v| match v {
            Vote::Any => NVote::Any,
            Vote::All => NVote::All,
        });
        (lanes, vote)
    }

    /// The instruction at `pc` as a callout.
    fn callout(&mut self, pc: usize) {
        let inst = &self.p.code[pc];
        let mut wide_uses = Vec::new();
        wide_operands(inst, |r| wide_uses.push(r));
        let mut regs: Vec<Reg> = Vec::new();
        inst.for_each_reg_ref(|r| regs.push(*r));
        if let Inst::Gather { base, limit, .. } | Inst::Scatter { base, limit, .. } = *inst {
            regs.extend((base.0..base.0.saturating_add(limit)).map(Reg));
        }
        let mut plan = Vec::new();
        for r in regs {
            let entry = if wide_uses.contains(&r) {
                (r, self.wide(r) as usize, true)
            } else {
                (r, r.0 as usize, false)
            };
            if !plan.contains(&entry) {
                plan.push(entry);
            }
        }
        // Each wave of a pass runs a callout through the interpreter on
        // its own, where the interpreter runs sixteen at once; arithmetic
        // and wave operations run once for the pass. A wave operation
        // still costs about what the interpreter takes for the shader's
        // whole batch (registers copied in and out, the operation
        // interpreted), so it counts as costly too.
        let lanewise = lanewise(inst);
        self.costly |= !lanewise
            || matches!(
                inst,
                Inst::Wave { .. } | Inst::Wave4 { .. } | Inst::MultiPrefix { .. }
            );
        let id = self.callouts.len() as u32;
        self.callouts.push(CalloutPlan {
            pc,
            regs: plan,
            lanewise,
        });
        self.b.callout(id);
    }

    /// Which slots the copy at `pc` to `dst` moves: the narrow one, the
    /// 64-bit one (where the registers have one).
    fn copied_slots(&self, pc: usize, dst: Reg) -> [bool; 2] {
        if self.wide[dst.0 as usize].is_none() {
            return [true, false];
        }
        match self.copy_wide[pc] {
            Some(wide) => [!wide, wide],
            None => [true, true],
        }
    }

    /// An arithmetic instruction on 64-bit values: machine code where
    /// the operation has some, else a callout.
    fn wide_op(&mut self, pc: usize, form: OpForm) {
        if let Some(c) = self.wide_chain_at(pc) {
            return self.b.op64(c.op, c.dst, c.a, c.b, c.masked);
        }
        match (form, &self.p.code[pc]) {
            // Between 64-bit types: the bits as they are.
            (OpForm::Bitcast(..), &Inst::Unary { dst, a, masked, .. })
                if form.wide()[..2] == [true, true] =>
            {
                let (d, s) = (self.wide(dst), self.wide(a));
                self.b.copy(d, s, masked);
            }
            _ => self.callout(pc),
        }
    }

    /// The instruction at `pc` as an [`Op64`] on its registers, where it
    /// is a 64-bit operation that machine code has.
    fn wide_chain_at(&self, pc: usize) -> Option<Chain64> {
        let (form, dst, a, b, masked) = match self.p.code[pc] {
            Inst::Unary {
                dst,
                a,
                masked,
                form: Some(f),
                ..
            } => (f, dst, a, None, masked),
            Inst::Binary {
                dst,
                a,
                b,
                masked,
                form: Some(f),
                ..
            } => (f, dst, a, Some(Ok(b)), masked),
            Inst::BinaryImm {
                dst,
                a,
                imm,
                masked,
                form: Some(f),
                ..
            } => (f, dst, a, Some(Err(imm)), masked),
            _ => return None,
        };
        let [wd, wa, ..] = form.wide();
        if !(wd || wa) || matches!(form, OpForm::Bitcast(..)) {
            return None;
        }
        let op = op64(form)?;
        let slot = |r: Reg, wide: bool| if wide { self.wide(r) } else { r.0 };
        let b = match b {
            Some(Ok(r)) if self.constants.contains_key(&r.0) => Arg64::Imm(self.constants[&r.0]),
            Some(Ok(r)) => Arg64::Reg(self.wide(r)),
            Some(Err(imm)) => Arg64::Imm(imm),
            None => Arg64::Imm(0),
        };
        Some(Chain64 {
            op,
            dst: slot(dst, wd),
            a: slot(a, wa),
            b,
            masked,
        })
    }

    /// The 64-bit operations from `pc` on, in a row with no label between
    /// them: two or more run four lanes at a time
    /// ([`WaveBuilder::op64_chains`]).
    fn wide_chains_from(&self, pc: usize) -> Vec<Chain64> {
        let mut chains = Vec::new();
        let mut at = pc;
        while at < self.p.code.len() && (at == pc || self.labels[at].is_none()) {
            let Some(chain) = self.wide_chain_at(at) else {
                break;
            };
            chains.push(chain);
            at += 1;
        }
        chains
    }

    /// A 16-bit operation as 32-bit ones ([`sixteen`]), in one pass.
    /// The instruction at `pc` as an [`Chain`] of 16-bit operations, where
    /// it is one.
    fn chain_at(&self, pc: usize) -> Option<Chain> {
        let (form, dst, a, b, masked) = match self.p.code[pc] {
            Inst::Unary {
                dst,
                a,
                masked,
                form: Some(f),
                ..
            } => (f, dst.0, a.0, Arg::Imm(0), masked),
            Inst::Binary {
                dst,
                a,
                b,
                masked,
                form: Some(f),
                ..
            } => (f, dst.0, a.0, Arg::Reg(b.0), masked),
            Inst::BinaryImm {
                dst,
                a,
                imm,
                masked,
                form: Some(f),
                ..
            } => (f, dst.0, a.0, Arg::Imm(imm as u32), masked),
            _ => return None,
        };
        if form.wide().contains(&true) {
            return None;
        }
        let Sixteen { widen, op, narrow } = sixteen(form)?;
        let b = match (widen, b) {
            (Some(_), Arg::Imm(k)) => Arg::Imm(f16_to_f32(k)),
            (_, b) => b,
        };
        Some(Chain {
            widen,
            op,
            narrow,
            dst,
            a,
            b,
            masked,
        })
    }

    /// The chains of 16-bit operations from `pc` on, in a row with no
    /// label between them: two or more run chunk by chunk
    /// ([`WaveBuilder::op_chains`]).
    fn chains_from(&self, pc: usize) -> Vec<Chain> {
        let mut chains = Vec::new();
        let mut at = pc;
        while at < self.p.code.len() && (at == pc || self.labels[at].is_none()) {
            let Some(chain) = self.chain_at(at) else {
                break;
            };
            chains.push(chain);
            at += 1;
        }
        chains
    }

    /// The loads (or stores) from `pc` on that read (or write) the
    /// components of one vector element per lane: two or four of them in a
    /// row, with no label between them, of 32-bit or 16-bit values at the
    /// same address register and offsets one component apart, whose index
    /// scale is the element's size; loads into registers that are neither
    /// the address nor each other. Whether they load, the address, their
    /// value registers and the component size.
    fn vector_at(&self, pc: usize) -> Option<VectorAccess> {
        // A load's or a store's address, value register and type.
        let access = |inst: &Inst| match *inst {
            Inst::Load { dst, addr, ty } => Some((true, addr, dst, ty)),
            Inst::Store { addr, ty, src } => Some((false, addr, src, ty)),
            _ => None,
        };
        let (load, addr, _, ty) = access(&self.p.code[pc])?;
        let (size, reg) = (ty.size(), addr.dynamic?);
        if !matches!(size, 2 | 4) {
            return None;
        }
        let mut regs: Vec<u32> = Vec::new();
        for (j, inst) in self.p.code[pc..].iter().take(4).enumerate() {
            let Some((l, a, r, t)) = access(inst) else {
                break;
            };
            let fits = l == load
                && (j == 0 || self.labels[pc + j].is_none())
                && a.space == addr.space
                && a.dynamic == Some(reg)
                && t.size() == size
                && a.offset == addr.offset.wrapping_add(size * j as u32)
                && !(load && (r == reg || regs.contains(&r.0)));
            if !fits {
                break;
            }
            regs.push(r.0);
        }
        let k = match regs.len() {
            4 => 4,
            2 | 3 => 2,
            _ => return None,
        };
        regs.truncate(k);
        let element = size * k as u32;
        (self.strides.get(&reg.0) == Some(&element)).then_some((load, addr, regs, size))
    }

    fn sixteen_op(&mut self, pc: usize, form: OpForm) {
        let (dst, a, b, masked) = match self.p.code[pc] {
            Inst::Unary { dst, a, masked, .. } => (dst.0, a.0, Arg::Imm(0), masked),
            Inst::Binary {
                dst, a, b, masked, ..
            } => (dst.0, a.0, Arg::Reg(b.0), masked),
            Inst::BinaryImm {
                dst,
                a,
                imm,
                masked,
                ..
            } => (dst.0, a.0, Arg::Imm(imm as u32), masked),
            _ => return self.callout(pc),
        };
        let Some(Sixteen { widen, op, narrow }) = sixteen(form) else {
            return self.callout(pc);
        };
        let b = match (widen, b) {
            (Some(_), Arg::Imm(k)) => Arg::Imm(f16_to_f32(k)),
            (_, b) => b,
        };
        self.b.op_chain(widen, op, narrow, [dst, a], b, masked);
    }

    fn translate(&mut self) -> Result<(), &'static str> {
        self.translate_code()
            .ok_or("an instruction has no machine code")?
    }

    /// The program's code; `Err` for what the machine code does not take.
    fn translate_code(&mut self) -> Option<Result<(), &'static str>> {
        let p = self.p;
        // Construct depth before each instruction, and whether each open
        // construct is an inlined call (which no lane enters alone).
        let mut depth = 0usize;
        let mut calls: Vec<bool> = Vec::new();
        for inst in &p.code {
            for target in targets(inst) {
                self.label(target);
            }
        }
        // The end of the run of chains that the instructions up to it
        // belong to.
        let mut chained = 0;
        for (pc, inst) in p.code.iter().enumerate() {
            if let Some(l) = self.labels[pc] {
                self.b.bind(l);
            }
            if pc < chained {
                continue;
            }
            let chains = self.chains_from(pc);
            if chains.len() >= 2 {
                self.b.op_chains(&chains);
                chained = pc + chains.len();
                continue;
            }
            let wide = self.wide_chains_from(pc);
            if wide.len() >= 2 {
                self.b.op64_chains(&wide);
                chained = pc + wide.len();
                continue;
            }
            if let Some((load, addr, regs, size)) = self.vector_at(pc) {
                let at = self.address(addr, pc);
                if load {
                    self.b.load_vector(at, &regs, size);
                } else {
                    self.b.store_vector(at, &regs, size);
                }
                chained = pc + regs.len();
                continue;
            }
            match *inst {
                Inst::Const { dst, bits } => {
                    self.b.constant(dst.0, bits);
                    if let Some(w) = self.wide[dst.0 as usize] {
                        self.b.constant(w, bits);
                    }
                }
                Inst::Unary { form: Some(f), .. }
                | Inst::Binary { form: Some(f), .. }
                | Inst::BinaryImm { form: Some(f), .. }
                | Inst::Ternary { form: Some(f), .. }
                    if f.wide().contains(&true) =>
                {
                    self.wide_op(pc, f)
                }
                Inst::Unary { form: Some(f), .. }
                | Inst::Binary { form: Some(f), .. }
                | Inst::BinaryImm { form: Some(f), .. }
                    if sixteen(f).is_some() =>
                {
                    self.sixteen_op(pc, f)
                }
                Inst::Unary {
                    dst,
                    a,
                    masked,
                    math: Some(m),
                    ..
                } => self
                    .b
                    .lane_call(crate::lanes::entry(m), dst.0, a.0, None, masked),
                Inst::Binary {
                    dst,
                    a,
                    b,
                    masked,
                    math: Some(m),
                    ..
                } => self
                    .b
                    .lane_call(crate::lanes::entry(m), dst.0, a.0, Some(b.0), masked),
                Inst::Unary {
                    dst,
                    a,
                    masked,
                    op32: Some(op),
                    ..
                } => self.b.op(op, dst.0, a.0, Arg::Imm(0), None, masked),
                Inst::Binary {
                    dst,
                    a,
                    b,
                    masked,
                    op32: Some(op),
                    ..
                } => self.b.op(op, dst.0, a.0, Arg::Reg(b.0), None, masked),
                Inst::BinaryImm {
                    dst,
                    a,
                    imm,
                    masked,
                    op32: Some(op),
                    ..
                } if imm <= u64::from(u32::MAX) => {
                    self.b
                        .op(op, dst.0, a.0, Arg::Imm(imm as u32), None, masked)
                }
                Inst::Block32(ref block) if self.block(block) => {}
                Inst::Block32(ref block) => {
                    let slot = |s: u16| {
                        let s = usize::from(s);
                        match block.inputs.get(s) {
                            Some(r) => r.0,
                            None => self.scratch + (s - block.inputs.len()) as u32,
                        }
                    };
                    for (i, o) in block.ops.iter().enumerate() {
                        let dst = self.scratch + i as u32;
                        let (b, c) = match o.kind {
                            crate::bytecode::Slot32Kind::Slots { b, .. } => {
                                (Arg::Reg(slot(b)), None)
                            }
                            crate::bytecode::Slot32Kind::Imm { imm, .. } => (Arg::Imm(imm), None),
                            crate::bytecode::Slot32Kind::Select { b, c, .. } => {
                                (Arg::Reg(slot(b)), Some(slot(c)))
                            }
                        };
                        let keep = o.old.filter(|_| block.exact);
                        if let Some(old) = keep {
                            self.b.copy(dst, slot(old), false);
                        }
                        self.b.op(o.op, dst, slot(o.a), b, c, keep.is_some());
                    }
                    for o in &block.outputs {
                        self.b.copy(o.reg.0, slot(o.slot), o.masked);
                    }
                }
                Inst::Copy { dst, src } | Inst::CopyMasked { dst, src } => {
                    let masked = matches!(inst, Inst::CopyMasked { .. });
                    let [narrow, wide] = self.copied_slots(pc, dst);
                    if narrow {
                        self.b.copy(dst.0, src.0, masked);
                    }
                    if wide {
                        self.b.copy(self.wide(dst), self.wide(src), masked);
                    }
                }
                Inst::Select {
                    dst,
                    cond,
                    a,
                    b,
                    word: false,
                    masked,
                } if self.wide[dst.0 as usize].is_some() => {
                    let [narrow, wide] = self.copied_slots(pc, dst);
                    if narrow {
                        let (a, b) = (Arg::Reg(a.0), Some(b.0));
                        self.b.op(Op32::Select, dst.0, cond.0, a, b, masked);
                    }
                    if wide {
                        let (d, a, b) = (self.wide(dst), self.wide(a), self.wide(b));
                        self.b.select64(d, cond.0, a, b, masked);
                    }
                }
                Inst::Select {
                    dst,
                    cond,
                    a,
                    b,
                    word: true,
                    masked,
                } => self.b.op(
                    Op32::Select,
                    dst.0,
                    cond.0,
                    Arg::Reg(a.0),
                    Some(b.0),
                    masked,
                ),
                Inst::Gather {
                    dst,
                    base,
                    delta,
                    limit,
                } if self.wide[delta.0 as usize].is_some()
                    && self.b.gather_regs(dst.0, base.0, self.wide(delta), limit) => {}
                Inst::IndexScale {
                    dst,
                    index,
                    index_ty,
                    scale,
                    base,
                } => {
                    let signed = match index_ty {
                        ScalarType::Int32 => Some(true),
                        ScalarType::UInt32 | ScalarType::Bool => Some(false),
                        _ => None,
                    };
                    if let Ok(scale) = u32::try_from(scale) {
                        self.strides.insert(dst.0, scale);
                    }
                    let (d, bse) = (self.wide(dst), base.map(|b| self.wide(b)));
                    let done = signed.is_some_and(|s| self.b.scale(d, index.0, s, scale, bse));
                    if !done {
                        self.callout(pc);
                    }
                }
                Inst::TexelAddress {
                    dst,
                    resource,
                    coords,
                    count,
                    level: None,
                    texel_size,
                } if count <= 3 => {
                    let coords =
                        std::array::from_fn(|i| (i < usize::from(count)).then_some(coords[i].0));
                    let slot = resource.index() as u32;
                    self.b
                        .texel_address(self.wide(dst), slot, coords, texel_size);
                }
                Inst::Load { dst, addr, ty } if ty.size() == 4 => {
                    let at = self.address(addr, pc);
                    self.b.load(dst.0, at);
                }
                Inst::Store { addr, ty, src } if ty.size() == 4 => {
                    let at = self.address(addr, pc);
                    self.b.store(at, src.0);
                }
                Inst::Load { dst, addr, ty } if ty.size() == 2 => {
                    let at = self.address(addr, pc);
                    self.b.load16(dst.0, at);
                }
                Inst::Store { addr, ty, src } if ty.size() == 2 => {
                    let at = self.address(addr, pc);
                    self.b.store16(at, src.0);
                }
                Inst::Load { dst, addr, ty } if ty.size() == 8 => {
                    let at = self.address(addr, pc);
                    self.b.load64(self.wide(dst), at);
                }
                Inst::Store { addr, ty, src } if ty.size() == 8 => {
                    let at = self.address(addr, pc);
                    self.b.store64(at, self.wide(src));
                }
                Inst::Wave {
                    op: WaveOp::PrefixCountBits,
                    ty: ScalarType::Bool,
                    dst,
                    a,
                    ..
                } if self.b.prefix_count_bits(dst.0, a.0) => {}
                Inst::Atomic {
                    op,
                    ty,
                    addr,
                    dst,
                    a,
                    b,
                    deferrable,
                } if atomic(op, ty).is_some() => {
                    let site = self.held_site(op, ty, addr, deferrable);
                    let op = atomic(op, ty).expect("checked");
                    let at = self.address(addr, pc);
                    self.b.atomic(op, at, dst.0, [a.0, b.0], site);
                }
                Inst::Query {
                    dst,
                    resource,
                    query,
                } => {
                    let i = resource.index();
                    let slot = i as u32;
                    let stride = u64::from(self.p.element_strides[i].max(1));
                    let (field, divisor) = match query {
                        ResourceQuery::ElementCount => (ResourceField::Bytes, stride),
                        ResourceQuery::ByteSize => (ResourceField::Bytes, 1),
                        ResourceQuery::Width => (ResourceField::Dim(0), 1),
                        ResourceQuery::Height => (ResourceField::Dim(1), 1),
                        ResourceQuery::Depth | ResourceQuery::Elements => {
                            (ResourceField::Dim(2), 1)
                        }
                        ResourceQuery::Stride => {
                            self.b.constant(dst.0, stride);
                            continue;
                        }
                        ResourceQuery::Levels => (ResourceField::Dim(3), 1),
                    };
                    self.b.resource_field(dst.0, slot, field, divisor);
                }
                Inst::Wave4 {
                    op: WaveOp::Ballot,
                    dst,
                    a,
                    ..
                } => self.b.ballot(dst.map(|r| r.0), a.0),
                Inst::Wave4 {
                    op: WaveOp::Match,
                    ty,
                    dst,
                    a,
                } => match crate::wave_fns::wave_match(ty, self.wave) {
                    Some((f, info)) => {
                        let [d0, d1, d2, d3] = dst.map(|r| Some(r.0));
                        self.b.wave_call(f, info, [d0, d1, d2, d3, Some(a.0), None]);
                    }
                    None => self.callout(pc),
                },
                Inst::MultiPrefix {
                    op,
                    ty,
                    dst,
                    a,
                    mask,
                } => match crate::wave_fns::multi_prefix(op, ty, self.wave) {
                    Some((f, info)) => {
                        let [m0, m1, m2, m3] = mask.map(|r| Some(r.0));
                        self.b
                            .wave_call(f, info, [Some(dst.0), Some(a.0), m0, m1, m2, m3]);
                    }
                    None => self.callout(pc),
                },
                Inst::Wave { op, ty, dst, a, .. } if ty.size() == 8 => {
                    let (d, a) = (self.wide(dst), self.wide(a));
                    match wide_wave(op) {
                        Some(0) => self.b.read_first64(d, a),
                        Some(k) => self.b.quad_swap64(d, a, k),
                        None => return Some(Err("a 64-bit wave operation has no machine code")),
                    }
                }
                Inst::Wave { op, ty, dst, a, b } => {
                    let done = wave_kind(op, ty).is_some_and(|k| self.b.wave(k, dst.0, a.0, b.0));
                    if !done {
                        self.callout(pc);
                    }
                }
                Inst::IfBegin {
                    cond,
                    negate,
                    else_pc,
                    test,
                } => {
                    let (lanes, vote) = self.lanes(cond, test);
                    let l = self.label(else_pc);
                    self.b.if_begin(depth, lanes, negate, vote, l);
                    depth += 1;
                    calls.push(false);
                }
                Inst::Else { end_pc } => {
                    let l = self.label(end_pc);
                    self.b.else_(depth.checked_sub(1)?, l);
                }
                Inst::IfEnd => {
                    depth = depth.checked_sub(1)?;
                    calls.pop();
                    self.b.if_end(depth);
                }
                Inst::LoopBegin | Inst::CallBegin => {
                    self.b.open(depth);
                    depth += 1;
                    calls.push(matches!(inst, Inst::CallBegin));
                }
                Inst::LoopIter { exit_pc, .. } => {
                    let l = self.label(exit_pc);
                    self.b.loop_iter(depth.checked_sub(1)?, l, pc as u64);
                }
                Inst::LoopContinuing => self.b.loop_continuing(depth.checked_sub(1)?),
                Inst::Jump { target } => {
                    let l = self.label(target);
                    self.b.jump(l);
                }
                Inst::SwitchBegin => {
                    self.b.switch_begin(depth);
                    depth += 1;
                    calls.push(false);
                }
                Inst::SwitchCase {
                    selector,
                    selector_ty,
                    ref values,
                    ref default_all,
                } => {
                    // The selector's word, and the values it can equal.
                    let signed = match selector_ty {
                        ScalarType::Int32 => true,
                        ScalarType::UInt32 | ScalarType::Bool => false,
                        _ => return None,
                    };
                    let fits = |v: &u64| {
                        let w = *v as u32;
                        *v == if signed {
                            w as i32 as i64 as u64
                        } else {
                            u64::from(w)
                        }
                    };
                    let (list, default) = match default_all {
                        Some(all) => (all, true),
                        None => (values, false),
                    };
                    let words: Vec<u32> =
                        list.iter().filter(|v| fits(v)).map(|&v| v as u32).collect();
                    self.b
                        .switch_case(depth.checked_sub(1)?, selector.0, &words, default);
                }
                Inst::LoopEnd | Inst::CallEnd | Inst::SwitchEnd => {
                    depth = depth.checked_sub(1)?;
                    calls.pop();
                    self.b.close(depth);
                }
                Inst::Break { frame } | Inst::Return { frame } => {
                    self.b.leave(usize::from(frame), false)
                }
                Inst::Continue { frame } => self.b.leave(usize::from(frame), true),
                Inst::LeaveIf {
                    cond,
                    negate,
                    test,
                    frame,
                    to_continue,
                } => {
                    let (lanes, vote) = self.lanes(cond, test);
                    self.b
                        .leave_if(usize::from(frame), lanes, negate, vote, to_continue);
                }
                Inst::Exit => self.b.exit(),
                // The waves of a group take turns at a barrier (one that
                // no lane reaches is passed, as in the interpreter).
                Inst::Barrier if self.b.barrier() => {}
                Inst::Barrier => return Some(Err("a barrier outside a program with turns")),
                // The updates the code holds are on memory nothing else in
                // the program reads (`HeldSite`): there is nothing to
                // publish.
                Inst::Fence => {}
                Inst::CheckDivisor { .. }
                | Inst::CheckDiscardedRead { .. }
                | Inst::Uninitialized { .. } => return None,
                _ => self.callout(pc),
            }
        }
        if let Some(l) = self.labels[p.code.len()] {
            self.b.bind(l);
            self.b.exit();
        }
        Some(Ok(()))
    }

    /// A block as one pass over the lanes with its values in vector
    /// registers; `false` when they do not fit.
    fn block(&mut self, block: &crate::bytecode::Block32) -> bool {
        let (inputs, steps, outputs) = parts(block);
        self.b.block(&lockstep_jit::Run {
            inputs: &inputs,
            steps: &steps,
            outputs: &outputs,
        })
    }

    /// A memory address as the machine code takes it: the resource table
    /// slot (resources by id, then the group's shared memory) and the
    /// address's 64-bit register.
    fn address(&self, addr: crate::bytecode::Address, pc: usize) -> Address {
        let (slot, grouped) = match addr.space {
            Space::Resource(id) => (id.index() as u32, false),
            Space::Groupshared => (self.p.element_strides.len() as u32, true),
        };
        // The scale of the index that made the address: the stride of an
        // array of structures read with the thread index.
        let stride = addr
            .dynamic
            .and_then(|r| self.strides.get(&r.0).copied())
            .unwrap_or(4);
        // An address whose lanes follow each other by construction.
        let known = self.consecutive.get(pc).copied().filter(|&k| k > 0);
        let (stride, consecutive) = known.map_or((stride, false), |k| (k, true));
        // Buffers read as a stream: the same lane of the next pass's
        // groups reads a pass's threads on (in a texture read by 2D tiles,
        // that is not further on in a line).
        let buffer = match addr.space {
            Space::Resource(id) => self.p.buffers.get(id.index()).copied().unwrap_or(false),
            Space::Groupshared => false,
        };
        let ahead = if buffer {
            u32::try_from(self.pass_threads * u64::from(stride)).unwrap_or(0)
        } else {
            0
        };
        Address {
            slot,
            grouped,
            stride,
            addr: addr.dynamic.map(|r| self.wide(r)),
            offset: addr.offset,
            ahead,
            consecutive,
        }
    }
}

/// Loads (`true`) or stores of the components of one vector element per
/// lane: the address of the first, the value registers, the component
/// size (see [`Translator::vector_at`]).
type VectorAccess = (bool, crate::bytecode::Address, Vec<u32>, u32);

/// The machine-code form of a 32-bit atomic, where it has one.
fn atomic(op: lockstep_ir::AtomicOp, ty: ScalarType) -> Option<Atomic> {
    use lockstep_ir::AtomicOp as A;
    let signed = match ty {
        ScalarType::Int32 => true,
        ScalarType::UInt32 => false,
        _ => return None,
    };
    Some(match op {
        A::Add => Atomic::Add,
        A::And => Atomic::And,
        A::Or => Atomic::Or,
        A::Xor => Atomic::Xor,
        A::Exchange => Atomic::Exchange,
        A::CompareExchange => Atomic::CompareExchange,
        A::Min if signed => Atomic::SMin,
        A::Max if signed => Atomic::SMax,
        A::Min => Atomic::UMin,
        A::Max => Atomic::UMax,
        A::CompareStore => return None,
    })
}

/// The instructions `inst` may jump to.
fn targets(inst: &Inst) -> impl Iterator<Item = u32> {
    let t = match *inst {
        Inst::IfBegin { else_pc, .. } => Some(else_pc),
        Inst::Else { end_pc } => Some(end_pc),
        Inst::LoopIter { exit_pc, .. } => Some(exit_pc),
        Inst::Jump { target } => Some(target),
        _ => None,
    };
    t.into_iter()
}

/// Makes the machine code's streaming stores (`vmovntdq`, which bypass
/// the usual store order) seen by other threads before those the worker
/// makes after a batch: the code fences only before atomics and
/// callouts, not at every pass's end.
struct StreamFence;

impl Drop for StreamFence {
    fn drop(&mut self) {
        // SAFETY: SSE, which `sfence` needs, is part of x86-64.
        unsafe { std::arch::x86_64::_mm_sfence() };
    }
}

/// A worker's state for running native code: the frame, the memory
/// table, the inputs and a wave for the callouts.
pub(crate) struct NativeWorker {
    state: Box<State>,
    frame: Vec<u64>,
    frames: Vec<u64>,
    resources: Vec<Resource>,
    inputs: Vec<Input>,
    launch: Vec<u64>,
    zeros: Vec<u32>,
    /// Each wave's index in its group, by the turn it runs in: `0..` in
    /// order, or a shuffled schedule's order.
    wave_ids: Vec<u32>,
    /// The thread-id tables in `wave_ids`' order, under a shuffled
    /// schedule.
    shuffled_ids: [Vec<u32>; 4],
    shadow: Wave,
    /// The interpreter's wave for lanewise callouts: a pass's lanes.
    pass_shadow: Wave,
    /// The code the frame was made for.
    for_code: *const Native,
}

// SAFETY: the raw pointers point into the worker's own vectors (or at
// memory the dispatch lends for the length of one `run_groups` call),
// and the worker moves between threads only between dispatches.
unsafe impl Send for NativeWorker {}

/// What a callout needs, behind `State::user`.
struct CalloutEnv<'a, 'c> {
    ctx: &'a Context<'c>,
    native: &'a Native,
    /// The shared memory and id of each group of the pass.
    gs: &'a [Memory<'static>],
    group_ids: &'a [[u32; 3]],
    shadow: &'a mut Wave,
    pass_shadow: &'a mut Wave,
    scratch: &'a mut [u64],
    tracker: &'a mut SharedTracker,
    deferred: &'a mut Deferred,
    error: Option<ExecError>,
    waves: u32,
}

impl NativeWorker {
    pub(crate) fn new() -> NativeWorker {
        NativeWorker {
            state: Box::new(State::new(callout as Callout)),
            frame: Vec::new(),
            frames: Vec::new(),
            resources: Vec::new(),
            inputs: Vec::new(),
            launch: Vec::new(),
            zeros: Vec::new(),
            wave_ids: Vec::new(),
            shuffled_ids: Default::default(),
            shadow: Wave::empty(),
            pass_shadow: Wave::empty(),
            for_code: std::ptr::null(),
        }
    }

    /// Runs the groups `group_ids` (each with its own shared memory in
    /// `gs`) with `native`'s code; their waves take turns in index order,
    /// or in the order `shuffled` seeds (the same for every group of the
    /// batch).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run_groups(
        &mut self,
        ctx: &Context,
        native: &Native,
        shuffled: Option<u64>,
        group_ids: &[[u32; 3]],
        gs: &[Memory<'static>],
        scratch: &mut [u64],
        tracker: &mut SharedTracker,
        deferred: &mut Deferred,
    ) -> Result<(), ExecError> {
        let (w, width, live) = (native.wave, native.width, native.live);
        let _fence = StreamFence;
        let p = ctx.program;
        let threads: usize = ctx.group_extent.iter().map(|&n| n as usize).product();
        let waves = threads.div_ceil(live);
        let per_pass = native.code.groups();
        // One frame, or one per wave where the waves take turns.
        let copies = if native.code.turns() { waves } else { 1 };
        let frame_bytes = native.code.frame_bytes();
        if !std::ptr::eq(self.for_code, native) || self.frame.len() * 8 != copies * frame_bytes {
            self.frame = vec![0; (copies * frame_bytes).div_ceil(8)];
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut self.frame);
            // A shader without registers (an empty entry point) has no
            // frame.
            for frame in bytes.chunks_exact_mut(frame_bytes.max(1)) {
                for &(at, wide, bits) in &native.constants {
                    for l in 0..width {
                        if wide {
                            frame[at + 8 * l..][..8].copy_from_slice(&bits.to_le_bytes());
                        } else {
                            frame[at + 4 * l..][..4].copy_from_slice(&(bits as u32).to_le_bytes());
                        }
                    }
                }
            }
            self.frames = vec![0; 4 * native.code.frames() * copies];
            self.shadow = Wave::for_callouts(p, w);
            self.pass_shadow = Wave::for_callouts(p, width);
            self.for_code = native;
        }
        if self.zeros.len() < waves * w {
            self.zeros.resize(waves * w, 0);
        }
        // Wave `i`'s turn runs the wave `wave_ids[i]`: its launch masks,
        // thread ids and `GetGroupWaveIndex`.
        self.wave_ids.clear();
        self.wave_ids.extend(0..waves as u32);
        let tables = match shuffled {
            Some(seed) => {
                crate::engine::shuffle(&mut self.wave_ids, seed);
                for (to, from) in self.shuffled_ids.iter_mut().zip(&ctx.thread_ids) {
                    to.clear();
                    for &i in &self.wave_ids {
                        to.extend_from_slice(&from[i as usize * w..][..w]);
                    }
                }
                &self.shuffled_ids
            }
            None => &ctx.thread_ids,
        };

        self.resources.clear();
        self.resources.extend(ctx.resources.iter().map(resource));
        // Each group of a pass has its shared memory in a slot of its own.
        let gs_slot = self.resources.len();
        self.resources.extend(std::iter::repeat_n(
            resource(&BoundResource::buffer(&gs[0])),
            per_pass,
        ));
        let mut env = CalloutEnv {
            ctx,
            native,
            gs: &gs[..1],
            group_ids: &group_ids[..1],
            shadow: &mut self.shadow,
            pass_shadow: &mut self.pass_shadow,
            scratch,
            tracker,
            deferred,
            error: None,
            waves: waves as u32,
        };
        let state = &mut *self.state;
        // Updates are held unless another resource shares a held one's
        // memory: the code would not see them there.
        state.held_sites = 0;
        state.hold = u64::from(native.held.iter().all(|h| {
            let mem = ctx.resources[h.resource].memory;
            ctx.resources
                .iter()
                .enumerate()
                .all(|(i, r)| i == h.resource || !std::ptr::eq(r.memory, mem))
        }));
        state.regs = self.frame.as_mut_ptr().cast();
        state.frames = self.frames.as_mut_ptr();
        state.waves = waves as u64;
        state.wave_ids = self.wave_ids.as_ptr();
        // The counts compare as signed 64-bit integers.
        state.budget = ctx.step_budget.min(i64::MAX as u64);
        let mut launch_groups = 0;
        for (pass, ids) in group_ids.chunks(per_pass).enumerate() {
            let first = pass * per_pass;
            let gs = &gs[first..first + ids.len()];
            // A missing group's slot repeats the first group's memory,
            // which its lanes (none) never write.
            for g in 0..per_pass {
                self.resources[gs_slot + g] =
                    resource(&BoundResource::buffer(&gs[g.min(gs.len() - 1)]));
            }
            env.gs = gs;
            env.group_ids = ids;
            if launch_groups != ids.len() {
                launch_groups = ids.len();
                self.launch.clear();
                for &i in &self.wave_ids {
                    let i = i as usize;
                    let n = threads.saturating_sub(i * live).min(live);
                    let mask = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
                    self.launch
                        .extend((0..per_pass).map(|g| if g < ids.len() { mask } else { 0 }));
                }
            }
            self.inputs.clear();
            for &(sv, k) in &native.inputs {
                let mut add = [0u32; 8];
                let table = match sv {
                    SystemValue::GroupIndex => tables[3].as_ptr(),
                    SystemValue::GroupThreadId => tables[k].as_ptr(),
                    SystemValue::DispatchThreadId => {
                        for (a, id) in add.iter_mut().zip(ids) {
                            *a = id[k].wrapping_mul(ctx.group_extent[k]);
                        }
                        tables[k].as_ptr()
                    }
                    SystemValue::GroupId => {
                        for (a, id) in add.iter_mut().zip(ids) {
                            *a = id[k];
                        }
                        self.zeros.as_ptr()
                    }
                };
                self.inputs.push(Input { table, add });
            }
            state.launch = self.launch.as_ptr();
            state.resources = self.resources.as_ptr();
            state.inputs = self.inputs.as_ptr();
            state.user = (&mut env as *mut CalloutEnv).cast::<c_void>();
            // SAFETY: the frame, frames, launch masks, resources and
            // inputs above are as long as the code needs (`Native::build`
            // made the code for this program and wave size; the thread-id
            // tables hold `waves * w` lanes; `launch` has `per_pass` masks
            // per wave), and `callout` runs the program's callouts with
            // `env`, which lives across the call.
            let result = unsafe { native.code.run(state) };
            match result {
                0 => {}
                1 => {
                    let pc = state.site as usize;
                    let span = match p.code.get(pc) {
                        Some(Inst::LoopIter { span, .. }) => Some(*span),
                        _ => None,
                    };
                    return Err(crate::engine::budget_error(ctx.step_budget, span));
                }
                _ => {
                    return Err(env.error.take().unwrap_or_else(|| {
                        ExecError::new("native code stopped for no known reason", None)
                    }));
                }
            }
        }
        // The batch ends: the held updates go to memory.
        for (s, h) in native.held.iter().enumerate() {
            if state.held_sites >> s & 1 == 1 {
                let value = u64::from(state.held[s]);
                ctx.resources[h.resource]
                    .memory
                    .atomic(h.offset, h.ty, h.op, value, 0);
            }
        }
        state.held_sites = 0;
        Ok(())
    }
}

/// Whether a barrier of `code` sits inside a branch, loop or `switch`
/// (inlined calls, which every lane enters, do not count).
fn nested_barrier(code: &[Inst]) -> bool {
    let mut open: Vec<bool> = Vec::new();
    for inst in code {
        match inst {
            Inst::IfBegin { .. } | Inst::LoopBegin | Inst::SwitchBegin => open.push(false),
            Inst::CallBegin => open.push(true),
            Inst::IfEnd | Inst::LoopEnd | Inst::CallEnd | Inst::SwitchEnd => {
                open.pop();
            }
            Inst::Barrier if !open.iter().all(|&call| call) => return true,
            _ => {}
        }
    }
    false
}

/// A block as lockstep-jit's run: its input registers, steps and outputs.
/// A step keeps the earlier value on inactive lanes only in an exact
/// block (see `compile::block32`).
fn parts(
    block: &crate::bytecode::Block32,
) -> (Vec<u32>, Vec<lockstep_jit::Step>, Vec<lockstep_jit::Output>) {
    use crate::bytecode::Slot32Kind;
    use lockstep_jit::Operand;
    let inputs: Vec<u32> = block.inputs.iter().map(|r| r.0).collect();
    let steps = block
        .ops
        .iter()
        .map(|o| {
            let (b, c) = match o.kind {
                Slot32Kind::Slots { b, .. } => (Operand::Value(b), None),
                Slot32Kind::Imm { imm, .. } => (Operand::Imm(imm), None),
                Slot32Kind::Select { b, c, .. } => (Operand::Value(b), Some(c)),
            };
            lockstep_jit::Step {
                op: o.op,
                a: o.a,
                b,
                c,
                keep: o.old.filter(|_| block.exact),
            }
        })
        .collect();
    let outputs = block
        .outputs
        .iter()
        .map(|o| lockstep_jit::Output {
            reg: o.reg.0,
            value: o.slot,
            masked: o.masked,
        })
        .collect();
    (inputs, steps, outputs)
}

/// The table entry of a bound resource, with a texture's dimensions and
/// its mip level count.
fn resource(r: &BoundResource) -> Resource {
    let m = r.memory;
    let (base, words, writable) = m.raw_parts();
    let [x, y, z] = r.dims;
    Resource {
        base,
        words,
        writable,
        dims: [x, y, z, r.levels],
        bytes: m.len(),
        writable_bytes: m.writable_len(),
    }
}

/// Runs one instruction through the interpreter on the frame's registers.
unsafe extern "sysv64" fn callout(state: *mut State, id: u32) -> u32 {
    // SAFETY: `run_groups` set `user` to its `CalloutEnv`, alive for the
    // whole run, and `regs` to the frame; the machine code calls this only
    // between its own accesses to them.
    let (env, frame, cur, parked, wave) = unsafe {
        let s = &*state;
        let env = &mut *s.user.cast::<CalloutEnv>();
        let bytes = env.native.code.frame_bytes();
        (
            env,
            std::slice::from_raw_parts_mut(s.frame, bytes),
            s.cur,
            s.parked,
            // The turn's wave, by its index in the group.
            u64::from(*s.wave_ids.add(s.wave as usize)),
        )
    };
    let w = env.native.wave;
    let Some(plan) = env.native.callouts.get(id as usize) else {
        return 2;
    };
    if plan.lanewise {
        let lanes = 0..env.native.width;
        return if run_callout(env, plan, frame, lanes, [cur, parked], wave, None) {
            0
        } else {
            2
        };
    }
    let all = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    // Each group's wave with an active lane, in order; one with none
    // skips the instruction, as it would run alone.
    for s in 0..env.group_ids.len() {
        let masks = [(cur >> (s * w)) & all, (parked >> (s * w)) & all];
        if masks[0] == 0 {
            continue;
        }
        if !run_callout(env, plan, frame, s * w..(s + 1) * w, masks, wave, Some(s)) {
            return 2;
        }
    }
    0
}

/// Runs `plan`'s instruction on the frame's lanes `lanes`: group `group`'s
/// wave, or (`None`) a whole pass, for a lanewise instruction. Copies its
/// registers in, runs it and copies them back. `false` on an error, left
/// in `env.error`.
fn run_callout(
    env: &mut CalloutEnv,
    plan: &CalloutPlan,
    frame: &mut [u8],
    lanes: std::ops::Range<usize>,
    masks: [u64; 2],
    wave: u64,
    group: Option<usize>,
) -> bool {
    let shadow = match group {
        Some(_) => &mut *env.shadow,
        None => &mut *env.pass_shadow,
    };
    let group = group.unwrap_or(0);
    let n = lanes.len();
    for &(r, at, wide) in &plan.regs {
        let size = if wide { 8 } else { 4 };
        let at = at + lanes.start * size;
        let words = frame[at..at + n * size].chunks_exact(size);
        for (o, b) in shadow.regs_mut(r)[..n].iter_mut().zip(words) {
            *o = if wide {
                u64::from_le_bytes(b.try_into().expect("8 bytes"))
            } else {
                u64::from(u32::from_le_bytes(b.try_into().expect("4 bytes")))
            };
        }
    }
    let index = [wave as u32, env.waves];
    shadow.prepare_callout(plan.pc, masks, index, env.group_ids[group]);
    let gs = &env.gs[group..=group];
    let result = shadow.run_one(env.ctx, gs, env.scratch, env.tracker, env.deferred);
    env.deferred.apply(env.ctx.resources, None);
    if let Err(e) = result {
        env.error = Some(e);
        return false;
    }
    for &(r, at, wide) in &plan.regs {
        let size = if wide { 8 } else { 4 };
        let at = at + lanes.start * size;
        let words = frame[at..at + n * size].chunks_exact_mut(size);
        for (b, &v) in words.zip(&shadow.regs_mut(r)[..n]) {
            if wide {
                b.copy_from_slice(&v.to_le_bytes());
            } else {
                b.copy_from_slice(&(v as u32).to_le_bytes());
            }
        }
    }
    true
}
