//! Turns runs of 32-bit operations (integer and `float`) into [`Block32`]
//! instructions.
//!
//! A run is two or more `Binary`/`BinaryImm`/`Unary` instructions of an
//! [`Op32`] in a row, with no jump landing inside: they run under one
//! execution mask. The block narrows the registers the run reads before
//! writing into 32-bit slots, gives each operation a slot of its own, and
//! widens back the registers that are read after the run (liveness, as in
//! `fuse`): temporaries that die inside the run are never written. A
//! one-operand operation takes an ignored constant as its second.
//!
//! An operation that writes the active lanes only (`masked`) computes all
//! lanes of its slot. A register whose every write in the run is masked
//! is then written back on the active lanes, and its other lanes keep what
//! they held, as they would have. That is wrong in one case: a value
//! written back to every lane (the result of an unmasked operation, live
//! after the run) whose inactive lanes were computed from such a slot, or
//! a register written unmasked and then masked. Those runs become exact
//! blocks instead, where each masked operation blends its slot with the
//! register's earlier value.
//!
//! A block only replaces its run when the interpreter's slot loops cost
//! less (`block_cost`): a run of two operations on four inputs is cheaper
//! as it is. The machine code keeps a block's values in vector registers;
//! forming every run as a block gained it nothing measurable on the
//! benchmark kernels, and cost the interpreter up to 40 % (`block_scan`).

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use lockstep_ir::Span;

use super::fuse;
use crate::alu;
use crate::bytecode::{Block32, Inst, Op32, Output32, Reg, Slot32Kind, Slot32Op};

/// The most operations in one block (longer runs are cut).
const MAX_OPS: usize = 64;

/// A run's operation: the op, its destination, its operands (`c` for a
/// select alone) and whether it writes the active lanes only.
#[derive(Clone, Copy)]
struct RunOp {
    op: Op32,
    dst: Reg,
    a: Reg,
    b: Operand,
    c: Option<Reg>,
    masked: bool,
}

#[derive(Clone, Copy)]
enum Operand {
    Reg(Reg),
    Imm(u32),
}

fn run_op(inst: &Inst) -> Option<RunOp> {
    match *inst {
        Inst::Binary {
            dst,
            a,
            b,
            masked,
            op32: Some(op),
            ..
        } => Some(RunOp {
            op,
            dst,
            a,
            b: Operand::Reg(b),
            c: None,
            masked,
        }),
        // One operand: the second is an ignored constant.
        Inst::Unary {
            dst,
            a,
            masked,
            op32: Some(op),
            ..
        } => Some(RunOp {
            op,
            dst,
            a,
            b: Operand::Imm(0),
            c: None,
            masked,
        }),
        Inst::BinaryImm {
            dst,
            a,
            imm,
            masked,
            op32: Some(op),
            ..
        } => Some(RunOp {
            op,
            dst,
            a,
            // The operations only read an operand's low 32 bits.
            b: Operand::Imm(imm as u32),
            c: None,
            masked,
        }),
        // The condition is a 32-bit value too: zero or not after narrowing
        // as before.
        Inst::Select {
            dst,
            cond,
            a,
            b,
            word: true,
            masked,
        } => Some(RunOp {
            op: Op32::Select,
            dst,
            a: cond,
            b: Operand::Reg(a),
            c: Some(b),
            masked,
        }),
        _ => None,
    }
}

/// Replaces the runs of two or more [`Op32`] operations in `code` with a
/// [`Block32`] where that costs less, or, with `every_run`, all of them
/// (`spans` runs parallel to `code`). An operand in one of the
/// `constants`' registers becomes the operation's constant (see
/// [`with_constants`]).
pub(crate) fn form_blocks(
    code: &mut Vec<Inst>,
    spans: &mut Vec<Span>,
    every_run: bool,
    constants: &[(Reg, u64)],
) {
    let targets = fuse::jump_targets(code);
    let mut runs: Vec<Range<usize>> = Vec::new();
    let mut pc = 0;
    while pc < code.len() {
        let start = pc;
        pc += 1;
        if run_op(&code[start]).is_none() {
            continue;
        }
        while pc < code.len() && pc - start < MAX_OPS && !targets[pc] && run_op(&code[pc]).is_some()
        {
            pc += 1;
        }
        if pc - start >= 2 {
            runs.push(start..pc);
        }
    }
    if runs.is_empty() {
        return;
    }
    // Which registers the runs write are read after them.
    let written = runs
        .iter()
        .flat_map(|run| code[run.clone()].iter().filter_map(run_op).map(|op| op.dst));
    let live_out = fuse::LiveOut::of(code, written);
    let mut removed = vec![false; code.len()];
    for run in runs {
        let last = run.end - 1;
        let live = |r: Reg| live_out.at(last, r);
        let ops: Vec<RunOp> = code[run.clone()]
            .iter()
            .filter_map(run_op)
            .map(|op| with_constants(op, constants))
            .collect();
        let block = build(&ops, &live, false).unwrap_or_else(|| {
            build(&ops, &live, true).expect("an exact block can always be built")
        });
        if !every_run && block_cost(&block) >= ops.iter().map(|op| op_cost(op.masked)).sum() {
            continue;
        }
        code[run.start] = Inst::Block32(Box::new(block));
        removed[run.start + 1..run.end].fill(true);
    }
    fuse::drop_removed(code, spans, &removed);
}

// What a block saves depends on how many operations share its narrowing
// and widening. Rough costs, in x86 instructions per 128 lanes with AVX2
// (callgrind on the benchmark kernels): an operation on 64-bit register
// lanes, interpreter included, and the parts of a block.
const OP: u32 = 300;
const MASKED_OP: u32 = 450;
const BLOCK: u32 = 100;
const NARROW: u32 = 140;
const WIDEN: u32 = 100;
const MASKED_WIDEN: u32 = 260;
const SLOT_OP: u32 = 145;
const SLOT_BLEND: u32 = 60;

fn op_cost(masked: bool) -> u32 {
    if masked { MASKED_OP } else { OP }
}

fn block_cost(block: &Block32) -> u32 {
    let outputs: u32 = block
        .outputs
        .iter()
        .map(|o| if o.masked { MASKED_WIDEN } else { WIDEN })
        .sum();
    let ops: u32 = block
        .ops
        .iter()
        .map(|o| SLOT_OP + if o.old.is_some() { SLOT_BLEND } else { 0 })
        .sum();
    BLOCK + NARROW * block.inputs.len() as u32 + outputs + ops
}

/// The block of `ops`, writing back the registers `live` after it; `None`
/// when it must be `exact` and is not.
fn build(ops: &[RunOp], live: &dyn Fn(Reg) -> bool, exact: bool) -> Option<Block32> {
    // The registers read before the run writes them (and, in an exact
    // block, the ones a masked operation writes first: their inactive
    // lanes keep the old value).
    let mut inputs: Vec<Reg> = Vec::new();
    let mut written: HashSet<Reg> = HashSet::new();
    for op in ops {
        let reads = [
            Some(op.a),
            operand_reg(op.b),
            op.c,
            (exact && op.masked).then_some(op.dst),
        ];
        for r in reads.into_iter().flatten() {
            if !written.contains(&r) && !inputs.contains(&r) {
                inputs.push(r);
            }
        }
        written.insert(op.dst);
    }
    let mut slot_of: HashMap<Reg, u16> = (0..).zip(&inputs).map(|(s, &r)| (r, s)).collect();
    // Per slot: whether its inactive lanes may differ from the register's
    // (only outside exact blocks).
    let mut tainted = vec![false; inputs.len() + ops.len()];
    // Per register written, in order of first write: whether a write was
    // unmasked.
    let mut writes: Vec<(Reg, bool)> = Vec::new();
    let mut block_ops = Vec::with_capacity(ops.len());
    for (i, op) in ops.iter().enumerate() {
        let slot = (inputs.len() + i) as u16;
        let a = slot_of[&op.a];
        let kind = match (alu::slot32(op.op), op.b, op.c) {
            (Some((f, _)), Operand::Reg(b), None) => Slot32Kind::Slots { f, b: slot_of[&b] },
            (Some((_, f)), Operand::Imm(imm), None) => Slot32Kind::Imm { f, imm },
            (None, Operand::Reg(b), Some(c)) => Slot32Kind::Select {
                f: alu::select32(),
                b: slot_of[&b],
                c: slot_of[&c],
            },
            _ => unreachable!("`run_op` gives a select three registers, the others two operands"),
        };
        let old = (exact && op.masked).then(|| slot_of[&op.dst]);
        let others_tainted = match kind {
            Slot32Kind::Slots { b, .. } => tainted[usize::from(b)],
            Slot32Kind::Imm { .. } => false,
            Slot32Kind::Select { b, c, .. } => tainted[usize::from(b)] || tainted[usize::from(c)],
        };
        tainted[usize::from(slot)] =
            !exact && (op.masked || tainted[usize::from(a)] || others_tainted);
        block_ops.push(Slot32Op {
            op: op.op,
            kind,
            a,
            old,
        });
        slot_of.insert(op.dst, slot);
        match writes.iter_mut().find(|(r, _)| *r == op.dst) {
            Some((_, unmasked)) => *unmasked |= !op.masked,
            None => writes.push((op.dst, !op.masked)),
        }
    }
    let mut outputs = Vec::new();
    for (reg, unmasked) in writes.into_iter().filter(|&(r, _)| live(r)) {
        let slot = slot_of[&reg];
        // Written back on every lane: exact only if no inactive lane of
        // its slot comes from a masked write (a register written unmasked
        // and then masked included: its last slot is such a write).
        let masked = !exact && !unmasked;
        if !exact && !masked && tainted[usize::from(slot)] {
            return None;
        }
        outputs.push(Output32 { reg, slot, masked });
    }
    Some(Block32 {
        inputs,
        ops: block_ops,
        outputs,
        exact,
    })
}

/// `op` with a second operand that is a constant register (a builtin's,
/// such as `min(x, 1.0f)`, which has no constant form as an instruction)
/// as its constant, or a constant first operand of a commutative operation
/// swapped into that place: one register fewer to narrow. Not a `float`
/// NaN into first place: which of two NaNs comes out depends on their
/// order.
fn with_constants(mut op: RunOp, constants: &[(Reg, u64)]) -> RunOp {
    let constant = |r: Reg| {
        constants
            .iter()
            .find(|&&(c, _)| c == r)
            .map(|&(_, bits)| bits as u32)
    };
    if let (Operand::Reg(b), None) = (op.b, op.c) {
        if let Some(bits) = constant(b) {
            op.b = Operand::Imm(bits);
        } else if let Some(bits) = constant(op.a).filter(|&bits| {
            op.op.commutes() && !(op.op.is_float() && f32::from_bits(bits).is_nan())
        }) {
            op.a = b;
            op.b = Operand::Imm(bits);
        }
    }
    op
}

fn operand_reg(b: Operand) -> Option<Reg> {
    match b {
        Operand::Reg(r) => Some(r),
        Operand::Imm(_) => None,
    }
}
