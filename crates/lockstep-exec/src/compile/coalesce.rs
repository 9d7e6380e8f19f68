//! Coalesces copies: `t = …; …; x = t` becomes `x = …; …` where nothing
//! reads `t` after the copy.
//!
//! Calls pass their arguments and results through copies, and so do
//! assignments of loaded values: each copy is a pass over the lanes. When
//! the instruction that writes `t` on every lane comes earlier in the same
//! straight run of instructions, and nothing between it and the copy
//! touches `x`, that instruction may write `x` itself: the reads of `t` in
//! between read `x` instead, and the copy goes. Runs after
//! [`super::fuse::fuse`], which takes the copies right after their
//! operation, and again until no copy goes, so that chains of copies
//! (`t` to `x` to `y`) collapse.

use std::collections::HashSet;

use lockstep_ir::Span;

use super::fuse::{LiveOut, drop_removed, jump_targets};
use super::top_level::top_level;
use crate::bytecode::{Inst, Reg};

/// Rounds of coalescing at most: each one collapses one more link of a
/// chain of copies.
const ROUNDS: usize = 4;

/// Coalesces the copies of `code` (dropping their entries from `spans`,
/// which runs parallel to it).
pub(super) fn coalesce(code: &mut Vec<Inst>, spans: &mut Vec<Span>) {
    let arrays = arrays(code);
    for _ in 0..ROUNDS {
        if !coalesce_once(code, spans, &arrays) {
            break;
        }
    }
    propagate(code, spans, &arrays);
}

/// The copies `x = t` to every lane, of registers outside `arrays`: their
/// places and registers.
fn copies(code: &[Inst], arrays: &HashSet<u32>) -> Vec<(usize, Reg, Reg)> {
    code.iter()
        .enumerate()
        .filter_map(|(pc, inst)| match *inst {
            Inst::Copy { dst, src }
                if dst != src && !arrays.contains(&dst.0) && !arrays.contains(&src.0) =>
            {
                Some((pc, dst, src))
            }
            _ => None,
        })
        .collect()
}

/// [`propagate`] on its own: for copies that passes after [`coalesce`]
/// make.
pub(super) fn propagate_copies(code: &mut Vec<Inst>, spans: &mut Vec<Span>) {
    propagate(code, spans, &arrays(code));
}

/// Registers of indexed register arrays (local arrays): they keep their
/// places, as a gather or scatter reads or writes them by position.
fn arrays(code: &[Inst]) -> HashSet<u32> {
    let mut arrays = HashSet::new();
    for inst in code {
        if let Inst::Gather { base, limit, .. } | Inst::Scatter { base, limit, .. } = *inst {
            arrays.extend(base.0..base.0.saturating_add(limit));
        }
    }
    arrays
}

/// Forward: after a copy `x = t`, the reads of `x` in the same straight
/// run (an inlined call may begin in it), up to the first write of `x` or
/// `t`, read `t`; then the copies whose `x` nothing reads any more go.
/// Calls take their arguments through such copies.
fn propagate(code: &mut Vec<Inst>, spans: &mut Vec<Span>, arrays: &HashSet<u32>) {
    let copies = copies(code, arrays);
    if copies.is_empty() {
        return;
    }
    let targets = jump_targets(code);
    for &(pc, _, _) in &copies {
        // The copy as the propagation of an earlier one left it.
        let Inst::Copy { dst: x, src: t } = code[pc] else {
            continue;
        };
        let mut at = pc + 1;
        while at < code.len() && !targets[at] {
            let inst = &mut code[at];
            if !(inst.runs_in_line() || matches!(inst, Inst::CallBegin))
                || writes(inst, x)
                || writes(inst, t)
            {
                break;
            }
            inst.for_each_reg(|r| {
                if *r == x {
                    *r = t;
                }
            });
            at += 1;
        }
    }
    let live_out = LiveOut::of(code, copies.iter().map(|&(_, x, _)| x));
    let mut removed = vec![false; code.len()];
    for &(pc, x, _) in &copies {
        removed[pc] = !live_out.at(pc, x);
    }
    drop_removed(code, spans, &removed);
}

/// One round: the copies whose windows do not overlap; whether any went.
fn coalesce_once(code: &mut Vec<Inst>, spans: &mut Vec<Span>, arrays: &HashSet<u32>) -> bool {
    let copies = copies(code, arrays);
    if copies.is_empty() {
        return false;
    }
    let live_out = LiveOut::of(code, copies.iter().map(|&(_, _, t)| t));
    let targets = jump_targets(code);
    let top = top_level(code);
    let mut removed = vec![false; code.len()];
    // Instructions already rewritten this round: windows do not overlap.
    let mut touched = 0;
    for &(pc, x, t) in &copies {
        if live_out.at(pc, t) {
            continue;
        }
        let Some((def, uses)) = window(code, &targets, &top, pc, x, t) else {
            continue;
        };
        if def < touched {
            continue;
        }
        rename_def(&mut code[def], x);
        for u in uses {
            code[u].for_each_reg(|r| {
                if *r == t {
                    *r = x;
                }
            });
        }
        removed[pc] = true;
        touched = pc + 1;
    }
    if touched == 0 {
        return false;
    }
    drop_removed(code, spans, &removed);
    true
}

/// For the copy `x = t` at `pc`: the instruction before it, in the same
/// straight run, that writes `t` on every lane, and the instructions
/// between that read `t`; `None` where there is none, or where something
/// between touches `x`, or where that instruction reads `x` or `t`.
fn window(
    code: &[Inst],
    targets: &[bool],
    top: &[bool],
    pc: usize,
    x: Reg,
    t: Reg,
) -> Option<(usize, Vec<usize>)> {
    let mut uses = Vec::new();
    let mut at = pc;
    loop {
        // Nothing may jump into the window: its instructions run in order.
        if targets[at] || at == 0 {
            return None;
        }
        at -= 1;
        let inst = &code[at];
        if !inst.runs_in_line() {
            return None;
        }
        // Whether the instruction names `x`, how often `t`, and whether
        // `t` first (counted without collecting the registers).
        let (mut has_x, mut t_count, mut first_t, mut first) = (false, 0, false, true);
        inst.for_each_reg_ref(|r| {
            has_x |= *r == x;
            t_count += usize::from(*r == t);
            first_t |= first && *r == t;
            first = false;
        });
        if has_x {
            return None;
        }
        if t_count == 0 {
            continue;
        }
        if writes_every_lane(inst, top[at]) && first_t {
            // The write of `t` that the copy reads: it must not read `t`.
            return (t_count == 1).then_some((at, uses));
        }
        if writes(inst, t) {
            return None;
        }
        uses.push(at);
    }
}

/// Whether an instruction writes its first register operand on every lane
/// that matters (as the liveness analysis counts it: at the entry
/// function's top level, a load's skipped lanes are never read again).
fn writes_every_lane(inst: &Inst, top: bool) -> bool {
    match *inst {
        Inst::Const { .. }
        | Inst::Copy { .. }
        | Inst::IndexScale { .. }
        | Inst::TexelAddress { .. }
        | Inst::Query { .. }
        | Inst::Wave { .. } => true,
        Inst::Unary { masked, .. }
        | Inst::Binary { masked, .. }
        | Inst::BinaryImm { masked, .. }
        | Inst::Ternary { masked, .. }
        | Inst::Select { masked, .. } => !masked,
        Inst::Load { .. } => top,
        _ => false,
    }
}

/// Whether an instruction may write `r` (the last register number
/// counts as written: a range cannot hold it).
fn writes(inst: &Inst, r: Reg) -> bool {
    r.0 == u32::MAX || inst.writes_in(r.0..r.0 + 1)
}

/// Makes the instruction that [`writes_every_lane`] write `x`.
fn rename_def(inst: &mut Inst, x: Reg) {
    let mut first = true;
    inst.for_each_reg(|r| {
        if first {
            *r = x;
            first = false;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn constant(dst: u32) -> Inst {
        Inst::Const {
            dst: Reg(dst),
            bits: 7,
        }
    }

    fn copy(dst: u32, src: u32) -> Inst {
        Inst::Copy {
            dst: Reg(dst),
            src: Reg(src),
        }
    }

    fn store(src: u32) -> Inst {
        super::super::test_code::store(src, None, 0)
    }

    fn coalesced(mut code: Vec<Inst>) -> String {
        let mut spans = vec![Span::default(); code.len()];
        coalesce(&mut code, &mut spans);
        assert_eq!(spans.len(), code.len());
        format!("{code:?}")
    }

    /// `r1 = 7; r2 = r1; r3 = r2; store r3` writes `r3` at once: each round
    /// takes one link of the chain.
    #[test]
    fn a_chain_of_copies_collapses_into_the_first_write() {
        let code = vec![constant(1), copy(2, 1), copy(3, 2), store(3), Inst::Exit];
        let want = vec![constant(3), store(3), Inst::Exit];
        assert_eq!(coalesced(code), format!("{want:?}"));
    }

    /// The reads of `t` between its write and the copy read `x` instead.
    #[test]
    fn reads_between_the_write_and_the_copy_follow_it() {
        let code = vec![constant(1), store(1), copy(2, 1), store(2), Inst::Exit];
        let want = vec![constant(2), store(2), store(2), Inst::Exit];
        assert_eq!(coalesced(code), format!("{want:?}"));
    }

    /// Where the write of `t` cannot move (`t` is read after the copy, `x`
    /// between the write and the copy, or a call begins between them), the
    /// reads of `x` after the copy, up to the next control flow, read `t`
    /// instead, and the copy goes.
    #[test]
    fn reads_after_a_copy_read_its_source() {
        let read_after = vec![constant(1), copy(2, 1), store(1), store(2), Inst::Exit];
        let want = vec![constant(1), store(1), store(1), Inst::Exit];
        assert_eq!(coalesced(read_after), format!("{want:?}"));
        let x_read = vec![constant(1), store(2), copy(2, 1), store(2), Inst::Exit];
        let want = vec![constant(1), store(2), store(1), Inst::Exit];
        assert_eq!(coalesced(x_read), format!("{want:?}"));
        let call = vec![
            constant(1),
            Inst::CallBegin,
            copy(2, 1),
            store(2),
            Inst::CallEnd,
            Inst::Exit,
        ];
        let want = vec![
            constant(1),
            Inst::CallBegin,
            store(1),
            Inst::CallEnd,
            Inst::Exit,
        ];
        assert_eq!(coalesced(call), format!("{want:?}"));
    }

    /// A copy stays where both registers are read past the end of the
    /// straight run.
    #[test]
    fn copies_read_past_control_flow_stay() {
        let code = vec![
            constant(1),
            copy(2, 1),
            Inst::CallEnd,
            store(1),
            store(2),
            Inst::Exit,
        ];
        assert_eq!(coalesced(code.clone()), format!("{code:?}"));
    }
}
