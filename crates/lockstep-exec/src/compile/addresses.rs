//! Drops address computations that repeat one whose result is still in its
//! register.
//!
//! Each access to a buffer element scales its index (`IndexScale`), so
//! `Buf[i].a` then `Buf[i].b`, or a stage's record words, compute the same
//! address again. A repeat with the same operands and destination goes
//! where nothing between writes those registers and every path to the
//! repeat runs the first: the instructions between run in line or in
//! `if`s, and nothing jumps in from before the first.

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
        if !matches!(code[pc], Inst::IndexScale { .. }) {
            continue;
        }
        if let Some(first) = first_computation(code, pc) {
            // Nothing may jump into `(first, pc]` from `first` or before.
            if earliest_from[first + 1..=pc]
                .iter()
                .all(|&from| from == usize::MAX || from > first)
            {
                removed[pc] = true;
            }
        }
    }
    if removed.contains(&true) {
        drop_removed(code, spans, &removed);
    }
}

/// The same `IndexScale` as the one at `pc`, earlier, with only
/// instructions between that run in line or open and close `if`s, none of
/// which writes its registers.
fn first_computation(code: &[Inst], pc: usize) -> Option<usize> {
    let Inst::IndexScale {
        dst,
        index,
        index_ty,
        scale,
        base,
    } = code[pc]
    else {
        return None;
    };
    let regs: Vec<u32> = [Some(dst), Some(index), base]
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
            && (d, i, t, k, b) == (dst, index, index_ty, scale, base)
        {
            return Some(at);
        }
        let allowed = inst.runs_in_line()
            || matches!(inst, Inst::IfBegin { .. } | Inst::Else { .. } | Inst::IfEnd);
        if !allowed
            || regs
                .iter()
                .any(|&r| r == u32::MAX || inst.writes_in(r..r + 1))
        {
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
}
