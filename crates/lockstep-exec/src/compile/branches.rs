//! Merges an `if` into the one right before it when both test the same
//! condition the same way.
//!
//! A pixel shader's writes to memory each leave helper lanes out with an
//! `if` of their own, so consecutive stores make consecutive `if`s on the
//! helper flag. Where the first `if`'s body runs in line (no branch, no
//! lane leaving) and does not write the condition, the second `if` finds
//! the same lanes: the two bodies can share one `if`.

use lockstep_ir::Span;

use super::fuse::{drop_removed, jump_targets};
use crate::bytecode::Inst;

/// Merges every such pair in `code` (and drops the removed instructions'
/// entries from `spans`, which runs parallel to it).
pub(super) fn merge_ifs(code: &mut Vec<Inst>, spans: &mut Vec<Span>) {
    let targets = jump_targets(code);
    let mut removed = vec![false; code.len()];
    // The open `if` that the next one may join: its place.
    let mut open: Option<usize> = None;
    let mut pc = 0;
    while pc < code.len() {
        let Inst::IfBegin {
            cond,
            negate,
            else_pc,
            test,
        } = code[pc]
        else {
            pc += 1;
            continue;
        };
        let end = else_pc as usize;
        // The body runs in line and leaves `cond` as it is; the `if` has no
        // `else` (its end is an `IfEnd`).
        let plain = end < code.len()
            && matches!(code[end], Inst::IfEnd)
            && code[pc + 1..end]
                .iter()
                .all(|i| i.runs_in_line() && !i.writes_in(cond.0..cond.0.saturating_add(1)));
        if !plain {
            open = None;
            pc += 1;
            continue;
        }
        let joins = open.is_some_and(|first| {
            let Inst::IfBegin {
                cond: c,
                negate: n,
                test: t,
                else_pc: first_end,
            } = code[first]
            else {
                return false;
            };
            // Right after the first one's end, and nothing else lands here.
            (c, n, t) == (cond, negate, test) && first_end as usize + 1 == pc && !targets[pc]
        });
        match open {
            Some(first) if joins => {
                // The first `if` now ends where this one does.
                let first_end = jump_end(&code[first]);
                removed[first_end] = true;
                removed[pc] = true;
                if let Inst::IfBegin { else_pc, .. } = &mut code[first] {
                    *else_pc = end as u32;
                }
            }
            _ => open = Some(pc),
        }
        pc = end + 1;
    }
    if removed.contains(&true) {
        drop_removed(code, spans, &removed);
    }
}

/// The end of an `if`.
fn jump_end(inst: &Inst) -> usize {
    match *inst {
        Inst::IfBegin { else_pc, .. } => else_pc as usize,
        _ => usize::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bytecode::Reg;

    fn store(offset: u32) -> Inst {
        super::super::test_code::store(9, None, offset)
    }

    fn if_begin(cond: u32, else_pc: u32) -> Inst {
        super::super::test_code::if_begin(cond, true, else_pc)
    }

    fn merged(mut code: Vec<Inst>) -> String {
        let mut spans = vec![Span::default(); code.len()];
        merge_ifs(&mut code, &mut spans);
        assert_eq!(spans.len(), code.len());
        format!("{code:?}")
    }

    /// Three guarded stores become one `if` around the three.
    #[test]
    fn consecutive_ifs_on_one_condition_merge() {
        let code = vec![
            if_begin(0, 2),
            store(0),
            Inst::IfEnd,
            if_begin(0, 5),
            store(4),
            Inst::IfEnd,
            if_begin(0, 8),
            store(8),
            Inst::IfEnd,
            Inst::Exit,
        ];
        let want = vec![
            if_begin(0, 4),
            store(0),
            store(4),
            store(8),
            Inst::IfEnd,
            Inst::Exit,
        ];
        assert_eq!(merged(code), format!("{want:?}"));
    }

    /// Another condition, or a body that writes the condition, keeps the
    /// `if`s apart.
    #[test]
    fn other_conditions_stay_apart() {
        let other = vec![
            if_begin(0, 2),
            store(0),
            Inst::IfEnd,
            if_begin(1, 5),
            store(4),
            Inst::IfEnd,
            Inst::Exit,
        ];
        let written = vec![
            if_begin(0, 3),
            store(0),
            Inst::Const {
                dst: Reg(0),
                bits: 1,
            },
            Inst::IfEnd,
            if_begin(0, 6),
            store(4),
            Inst::IfEnd,
            Inst::Exit,
        ];
        for code in [other, written] {
            assert_eq!(merged(code.clone()), format!("{code:?}"));
        }
    }
}
