//! The entry function's top level: the code outside every `if`, loop,
//! `switch` and inlined call. A lane leaves the entry function's active
//! lanes only inside such a construct (and comes back at its end), or by
//! returning from the entry function, which is for good. So at the top
//! level every lane that will ever run again is active, and an assignment
//! there may write every lane: the lanes it would leave alone are lanes
//! that do not exist (a partial wave's) or have returned, whose values
//! nothing reads again.
//!
//! [`unmask`] makes the top level's masked copies and operations write
//! every lane. A copy that writes every lane ends its destination's life
//! in the liveness analysis of `fuse` (a masked one does not: the lanes it
//! skips keep their values), so `fuse` then writes operations' results
//! straight to the variables, and [`drop_dead_constants`] drops the zeroes
//! that locals start with when every lane is written before any is read.

use lockstep_ir::Span;

use super::fuse::{LiveOut, drop_removed};
use crate::bytecode::{Inst, Reg};

/// Whether each instruction lies at the entry function's top level. The
/// program is the entry's `CallBegin` … `CallEnd`, then `Exit`; the
/// instructions that open or close a construct are not at the top level
/// themselves.
pub(super) fn top_level(code: &[Inst]) -> Vec<bool> {
    let mut depth = 0u32;
    code.iter()
        .map(|inst| match inst {
            Inst::IfBegin { .. } | Inst::LoopBegin | Inst::SwitchBegin | Inst::CallBegin => {
                depth += 1;
                false
            }
            Inst::IfEnd | Inst::LoopEnd | Inst::SwitchEnd | Inst::CallEnd => {
                depth = depth.saturating_sub(1);
                false
            }
            _ => depth == 1,
        })
        .collect()
}

/// Makes the masked copies and operations at the entry function's top
/// level write every lane.
pub(super) fn unmask(code: &mut [Inst]) {
    let top = top_level(code);
    for (inst, top) in code.iter_mut().zip(top) {
        if !top {
            continue;
        }
        match inst {
            Inst::CopyMasked { dst, src } => {
                *inst = Inst::Copy {
                    dst: *dst,
                    src: *src,
                }
            }
            Inst::Unary { masked, .. }
            | Inst::Binary { masked, .. }
            | Inst::BinaryImm { masked, .. }
            | Inst::Ternary { masked, .. } => *masked = false,
            _ => {}
        }
    }
}

/// Drops the constants written to registers that every lane of overwrites
/// before any reads them (the zeroes locals start with, once the top level
/// assigns them on every lane).
pub(super) fn drop_dead_constants(code: &mut Vec<Inst>, spans: &mut Vec<Span>) {
    let constant = |inst: &Inst| match *inst {
        Inst::Const { dst, .. } => Some(dst),
        _ => None,
    };
    let dsts: Vec<Reg> = code.iter().filter_map(constant).collect();
    if dsts.is_empty() {
        return;
    }
    let live = LiveOut::of(code, dsts);
    let removed: Vec<bool> = code
        .iter()
        .enumerate()
        .map(|(pc, inst)| constant(inst).is_some_and(|dst| !live.at(pc, dst)))
        .collect();
    if removed.contains(&true) {
        drop_removed(code, spans, &removed);
    }
}
