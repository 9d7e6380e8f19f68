//! Drops address computations that repeat one whose result is still in its
//! register.
//!
//! Each access to a buffer element scales its index (`IndexScale`), so
//! `Buf[i].a` then `Buf[i].b`, a stage's record words, or `Out[i] =
//! f(In[i])`, compute the same address again. A repeat with the same
//! operands goes where nothing between writes those registers and every
//! path to the repeat runs the first: the instructions between run in line
//! or in `if`s, and nothing jumps in from before the first. A repeat into
//! another register becomes a copy of the first's, which copy propagation
//! (`coalesce::propagate_copies`) then takes away.

use lockstep_ir::Span;

use super::fuse::{drop_removed, jump_target};
use crate::bytecode::Inst;

/// How far back a repeat looks for its first computation.
const WINDOW: usize = 64;

/// Drops the repeated address computations of `code` (and their entries
/// in `spans`, which runs parallel to it).
pub(super) fn drop_repeated(code: &mut Vec<Inst>, spans: &mut Vec<Span>) {
    // The earliest instruction that jumps to each place (`usize::MAX` for
    // none).
    let mut earliest_from = vec![usize::MAX; code.len() + 1];
    for (pc, inst) in code.iter().enumerate() {
        if let Some(to) = jump_target(inst) {
            let to = (to as usize).min(code.len());
            earliest_from[to] = earliest_from[to].min(pc);
        }
    }
    let mut removed = vec![false; code.len()];
    for pc in 0..code.len() {
        let Inst::IndexScale { dst, .. } = code[pc] else {
            continue;
        };
        if let Some(first) = first_computation(code, pc) {
            // Nothing may jump into `(first, pc]` from `first` or before.
            if earliest_from[first + 1..=pc]
                .iter()
                .all(|&from| from == usize::MAX || from > first)
            {
                let Inst::IndexScale { dst: src, .. } = code[first] else {
                    unreachable!("`first_computation` finds an `IndexScale`")
                };
                if src == dst {
                    removed[pc] = true;
                } else {
                    code[pc] = Inst::Copy { dst, src };
                }
            }
        }
    }
    if removed.contains(&true) {
        drop_removed(code, spans, &removed);
    }
}

/// An `IndexScale` with the operands of the one at `pc`, earlier, with
/// only instructions between that run in line or open and close `if`s,
/// none of which writes its operands or its destination.
fn first_computation(code: &[Inst], pc: usize) -> Option<usize> {
    let Inst::IndexScale {
        index,
        index_ty,
        scale,
        base,
        ..
    } = code[pc]
    else {
        return None;
    };
    let writes = |inst: &Inst, r: u32| r == u32::MAX || inst.writes_in(r..r + 1);
    let operands: Vec<u32> = [Some(index), base]
        .into_iter()
        .flatten()
        .map(|r| r.0)
        .collect();
    for at in (pc.saturating_sub(WINDOW)..pc).rev() {
        let inst = &code[at];
        if let Inst::IndexScale {
            dst: d,
            index: i,
            index_ty: t,
            scale: k,
            base: b,
        } = *inst
            && (i, t, k, b) == (index, index_ty, scale, base)
            && operands.iter().all(|&r| r != d.0)
        {
            // The first's result must still be in its register.
            let kept = code[at + 1..pc].iter().all(|inst| !writes(inst, d.0));
            return kept.then_some(at);
        }
        let allowed = inst.runs_in_line()
            || matches!(inst, Inst::IfBegin { .. } | Inst::Else { .. } | Inst::IfEnd);
        if !allowed || operands.iter().any(|&r| writes(inst, r)) {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytecode::Reg;
    use lockstep_ir::ScalarType;

    fn scale(dst: u32, index: u32) -> Inst {
        Inst::IndexScale {
            dst: Reg(dst),
            index: Reg(index),
            index_ty: ScalarType::UInt32,
            scale: 20,
            base: None,
        }
    }

    fn store(at: u32, offset: u32) -> Inst {
        super::super::test_code::store(9, Some(at), offset)
    }

    fn if_begin(else_pc: u32) -> Inst {
        super::super::test_code::if_begin(8, false, else_pc)
    }

    fn dropped(mut code: Vec<Inst>) -> String {
        let mut spans = vec![Span::default(); code.len()];
        drop_repeated(&mut code, &mut spans);
        assert_eq!(spans.len(), code.len());
        format!("{code:?}")
    }

    /// Two words of one record: the second access reuses the address, also
    /// across an `if` between them.
    #[test]
    fn a_repeated_address_goes() {
        let code = vec![
            scale(1, 0),
            store(1, 0),
            if_begin(4),
            store(1, 4),
            Inst::IfEnd,
            scale(1, 0),
            store(1, 8),
            Inst::Exit,
        ];
        let want = vec![
            scale(1, 0),
            store(1, 0),
            if_begin(4),
            store(1, 4),
            Inst::IfEnd,
            store(1, 8),
            Inst::Exit,
        ];
        assert_eq!(dropped(code), format!("{want:?}"));
    }

    /// The repeat stays where its index changes between, and where the
    /// first computation sits in an `if` that may be skipped.
    #[test]
    fn a_repeat_stays_where_the_first_may_not_hold() {
        let index_written = vec![
            scale(1, 0),
            Inst::Const {
                dst: Reg(0),
                bits: 3,
            },
            scale(1, 0),
            store(1, 0),
            Inst::Exit,
        ];
        let skipped = vec![
            if_begin(3),
            scale(1, 0),
            store(1, 0),
            Inst::IfEnd,
            scale(1, 0),
            store(1, 4),
            Inst::Exit,
        ];
        for code in [index_written, skipped] {
            assert_eq!(dropped(code.clone()), format!("{code:?}"));
        }
    }

    /// `Out[i] = f(In[i])`: the store's address, computed into another
    /// register, becomes a copy of the load's; where the first's register
    /// is written between, the repeat stays.
    #[test]
    fn a_repeat_into_another_register_copies_the_first() {
        let load = Inst::Load {
            dst: Reg(5),
            addr: crate::bytecode::Address {
                space: crate::bytecode::Space::Resource(lockstep_ir::ResourceId(1)),
                dynamic: Some(Reg(1)),
                offset: 0,
            },
            ty: ScalarType::UInt32,
        };
        let code = vec![
            scale(1, 0),
            load.clone(),
            scale(2, 0),
            store(2, 0),
            Inst::Exit,
        ];
        let want = vec![
            scale(1, 0),
            load.clone(),
            Inst::Copy {
                dst: Reg(2),
                src: Reg(1),
            },
            store(2, 0),
            Inst::Exit,
        ];
        assert_eq!(dropped(code), format!("{want:?}"));
        let overwritten = vec![
            scale(1, 0),
            Inst::Const {
                dst: Reg(1),
                bits: 0,
            },
            scale(2, 0),
            store(2, 0),
            Inst::Exit,
        ];
        assert_eq!(dropped(overwritten.clone()), format!("{overwritten:?}"));
    }
}
