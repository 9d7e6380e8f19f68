//! Which values and lanes every group of a dispatch meets alike, for the
//! checks the proof leaves to one group's checked run (`Proof::group_check`).

use lockstep_ir::SystemValue;

use crate::bytecode::{Inst, Lanes, Reg, Test, loop_body};
use crate::compile::Program;

/// Per register, whether it starts alike in every group: all but the
/// inputs other than the group's own thread coordinates.
pub(super) fn alike_inputs(p: &Program) -> Vec<bool> {
    let mut alike = vec![true; p.reg_count as usize];
    for input in &p.inputs {
        if !matches!(
            input.sv,
            SystemValue::GroupThreadId | SystemValue::GroupIndex
        ) {
            for &(_, r) in &input.regs {
                alike[r.0 as usize] = false;
            }
        }
    }
    alike
}

/// Whether `alike` holds of `r`.
pub(super) fn is_alike(alike: &[bool], r: Reg) -> bool {
    alike.get(r.0 as usize).copied().unwrap_or(false)
}

/// Whether a branch on `cond` with `test` goes alike in every group, where
/// `alike` says which registers are.
pub(super) fn test_alike(alike: &[bool], cond: Reg, test: Test) -> bool {
    is_alike(alike, cond)
        && match test.lanes {
            Lanes::Compare(_, r) => is_alike(alike, r),
            Lanes::Previous => false,
            Lanes::Nonzero | Lanes::CompareImm(..) => true,
        }
}

/// The frame that lanes leave at `inst`, if it is a `break`, `continue`,
/// `return` or a conditional leave, with whether they leave alike in every
/// group where `alike` says which registers are.
pub(super) fn leaves(inst: &Inst, alike: &[bool]) -> Option<(usize, bool)> {
    match *inst {
        Inst::LeaveIf {
            cond, test, frame, ..
        } => Some((frame as usize, test_alike(alike, cond, test))),
        Inst::Break { frame } | Inst::Continue { frame } | Inst::Return { frame } => {
            Some((frame as usize, true))
        }
        _ => None,
    }
}

/// Whether `inst` computes what it writes alike in every group where it
/// reads registers `alike` says are: an operation on registers, a wave
/// operation (the lanes of each group's waves fill alike) or a resource
/// query, not a memory read.
pub(super) fn computes_alike(inst: &Inst, alike: &[bool]) -> bool {
    let pure = matches!(
        inst,
        Inst::Const { .. }
            | Inst::Unary { .. }
            | Inst::Binary { .. }
            | Inst::BinaryImm { .. }
            | Inst::Block32(..)
            | Inst::Ternary { .. }
            | Inst::Copy { .. }
            | Inst::CopyMasked { .. }
            | Inst::Select { .. }
            | Inst::IndexScale { .. }
            | Inst::Wave { .. }
            | Inst::Wave4 { .. }
            | Inst::MultiPrefix { .. }
            | Inst::Query { .. }
    );
    let mut reads = pure;
    inst.for_each_read(|r| reads &= is_alike(alike, Reg(r)));
    reads
}

/// For a loop walked once from `begin`, at depth `depth` of the constructs,
/// in code whose lanes are alike in every group where `around` holds:
/// whether its lanes are too (every exit on a value computed alike), and
/// the registers alike at its start, round after round, from `entry`'s
/// before it (each register alike at the start only where it is at every
/// round's end, walked until nothing changes).
pub(super) fn loop_alike(
    code: &[Inst],
    begin: usize,
    depth: usize,
    around: bool,
    entry: &[bool],
) -> (bool, Vec<bool>) {
    let end = begin + loop_body(code, begin).len() - 1;
    let mut head = entry.to_vec();
    let mut alike_loop = around;
    loop {
        let mut flags = head.clone();
        let mut next_alike = alike_loop;
        // Nested constructs: their start, whether alike, what their paths
        // make of the flags, the registers they write; then the loop's own.
        let mut open: Vec<(usize, bool, Varied, Vec<u32>)> = Vec::new();
        let mut own = (Varied::at(&head), Vec::new());
        for (pc, inst) in code.iter().enumerate().take(end).skip(begin + 1) {
            if matches!(
                inst,
                Inst::IfEnd | Inst::LoopEnd | Inst::SwitchEnd | Inst::CallEnd
            ) {
                if let Some((_, _, varied, written)) = open.pop() {
                    varied.close(&written, &mut flags);
                    let (outer, outer_written) = innermost(&mut open, &mut own);
                    outer.differ.extend(varied.differ);
                    outer_written.extend(written);
                }
                continue;
            }
            if matches!(
                inst,
                Inst::Else { .. } | Inst::SwitchCase { .. } | Inst::LoopContinuing
            ) {
                let (varied, written) = innermost(&mut open, &mut own);
                varied.meet(written, &mut flags);
            }
            let here = alike_loop && open.iter().all(|o| o.1);
            let leaving = leaves(inst, &flags);
            let opened = match *inst {
                Inst::IfBegin { cond, test, .. } => Some(test_alike(&flags, cond, test)),
                Inst::LoopBegin | Inst::SwitchBegin | Inst::CallBegin => Some(true),
                _ => None,
            };
            if let Inst::SwitchCase { selector, .. } = *inst
                && !is_alike(&flags, selector)
                && let Some(o) = open.last_mut()
            {
                o.1 = false;
            }
            if let Some((frame, cond_alike)) = leaving
                && !(cond_alike && here)
            {
                match frame.checked_sub(depth + 1) {
                    // The loop itself, or a construct around it.
                    None => next_alike = false,
                    Some(i) => {
                        if let Some(o) = open.get_mut(i) {
                            o.1 = false;
                        }
                    }
                }
            }
            let alike = here && computes_alike(inst, &flags);
            let (varied, written) = innermost(&mut open, &mut own);
            inst.for_each_write(|r| {
                if let Some(f) = flags.get_mut(r as usize) {
                    *f = alike;
                }
                written.push(r);
                if !alike {
                    varied.differ.push(r);
                }
            });
            if let Some(mut alike) = opened {
                // A nested loop as the walk takes it: its own fixpoint.
                if matches!(inst, Inst::LoopBegin) {
                    (alike, flags) = loop_alike(code, pc, depth + 1 + open.len(), here, &flags);
                }
                open.push((pc, alike, Varied::at(&flags), Vec::new()));
            }
        }
        let (varied, written) = own;
        varied.close(&written, &mut flags);
        let next_head: Vec<bool> = entry.iter().zip(&flags).map(|(&a, &b)| a && b).collect();
        if next_head == head && next_alike == alike_loop {
            return (alike_loop, head);
        }
        (head, alike_loop) = (next_head, next_alike);
    }
}

/// The innermost construct's [`Varied`] and written registers in
/// [`loop_alike`]'s walk: a nested one's, or the loop's own.
fn innermost<'a>(
    open: &'a mut [(usize, bool, Varied, Vec<u32>)],
    own: &'a mut (Varied, Vec<u32>),
) -> (&'a mut Varied, &'a mut Vec<u32>) {
    match open.last_mut() {
        Some((_, _, varied, written)) => (varied, written),
        None => (&mut own.0, &mut own.1),
    }
}

/// What a construct's paths make of `State::alike`: a register it writes
/// is alike where its paths meet, and after it, only where it was before
/// the construct (for lanes that did not write it) and every value written
/// was (`differ` lists those that were not).
#[derive(Clone, Debug, Default)]
pub(super) struct Varied {
    /// `alike` where the construct opened.
    entry: Vec<bool>,
    /// The registers written a value that may differ between groups.
    pub(super) differ: Vec<u32>,
}

impl Varied {
    pub(super) fn at(alike: &[bool]) -> Varied {
        Varied {
            entry: alike.to_vec(),
            differ: Vec::new(),
        }
    }

    /// Paths meet (an `else`, a `case`, a loop's continuing block): the
    /// lanes arriving may hold what `written` held before the construct.
    pub(super) fn meet(&self, written: &[u32], alike: &mut [bool]) {
        for &r in written {
            let r = r as usize;
            if let (Some(a), Some(&e)) = (alike.get_mut(r), self.entry.get(r)) {
                *a &= e;
            }
        }
    }

    /// The construct ends.
    pub(super) fn close(&self, written: &[u32], alike: &mut [bool]) {
        self.meet(written, alike);
        for &r in &self.differ {
            if let Some(a) = alike.get_mut(r as usize) {
                *a = false;
            }
        }
    }
}
