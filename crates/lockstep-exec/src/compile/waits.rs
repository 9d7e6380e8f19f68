//! Loops that may wait for other groups: a spin on a flag or a ticket
//! that another group sets (`while (Flag[g - 1] == 0) {}`, an
//! `InterlockedAdd(Ticket, 0, seen)` until `seen == g`).
//!
//! Groups that run side by side in a batch share their control flow, so a
//! group that has left such a loop would wait at its end for the group
//! still spinning, which waits for it: neither goes on. A program with
//! such a loop runs one group at a time, in order (see `dispatch`).
//!
//! A loop may wait when one of its exits (a `break` or `return` that
//! leaves it, or the branch that decides one) depends on a value that the
//! loop reads from device memory on each iteration (a load or an atomic's
//! result) and that the program writes somewhere (a store or an atomic),
//! so that another group may change it. Dependence follows data through
//! every instruction and control through the branches the loop opens.
//! Loops over memory only read (a linked list in a read-only buffer) are
//! not such loops.

use crate::bytecode::{FrameDepth, Inst, Space, loop_body};

/// Whether some loop of `code` may wait for another group's writes.
pub(super) fn waits_on_groups(code: &[Inst], reg_count: u32) -> bool {
    let written: Vec<Space> = code
        .iter()
        .filter_map(|inst| match inst {
            Inst::Store { addr, .. } | Inst::Atomic { addr, .. }
                if matches!(addr.space, Space::Resource(_)) =>
            {
                Some(addr.space)
            }
            _ => None,
        })
        .collect();
    if written.is_empty() {
        return false;
    }
    let reads_written = |inst: &Inst| match inst {
        Inst::Load { addr, .. } => written.contains(&addr.space),
        Inst::Atomic {
            addr, deferrable, ..
        } => !deferrable && matches!(addr.space, Space::Resource(_)),
        _ => false,
    };
    if !code.iter().any(reads_written) {
        return false;
    }
    let mut depth: FrameDepth = 0;
    for (pc, inst) in code.iter().enumerate() {
        match inst {
            Inst::LoopBegin => {
                // Between the `LoopBegin` and its `LoopEnd`.
                let whole = loop_body(code, pc);
                let body = &whole[1..whole.len().saturating_sub(1)];
                if body.iter().any(reads_written)
                    && exit_depends(body, depth, reg_count, &reads_written)
                {
                    return true;
                }
                depth += 1;
            }
            Inst::IfBegin { .. } | Inst::SwitchBegin | Inst::CallBegin => depth += 1,
            Inst::IfEnd | Inst::LoopEnd | Inst::SwitchEnd | Inst::CallEnd => {
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
    }
    false
}

/// Whether an exit of the loop whose frame is at `depth`, with `body`
/// between its `LoopBegin` and `LoopEnd`, depends on a value the body
/// reads where `seed` holds.
fn exit_depends(
    body: &[Inst],
    depth: FrameDepth,
    reg_count: u32,
    seed: &impl Fn(&Inst) -> bool,
) -> bool {
    let mut tainted = vec![false; reg_count as usize];
    let is = |tainted: &[bool], inst: &Inst| {
        let mut any = false;
        inst.for_each_read(|r| any |= tainted.get(r as usize).copied().unwrap_or(false));
        any
    };
    // Until no register changes: values carried round the loop taint the
    // next iteration's.
    loop {
        let mut changed = false;
        let mut control: Vec<bool> = Vec::new();
        for inst in body {
            let under = control.iter().any(|&c| c);
            let now = seed(inst) || under || is(&tainted, inst);
            if now {
                inst.for_each_write(|r| {
                    if let Some(t) = tainted.get_mut(r as usize)
                        && !*t
                    {
                        *t = true;
                        changed = true;
                    }
                });
            }
            enter_or_leave(&mut control, inst, &tainted, is);
        }
        if !changed {
            break;
        }
    }
    let mut control: Vec<bool> = Vec::new();
    for inst in body {
        let under = control.iter().any(|&c| c);
        let leaves = match *inst {
            Inst::Break { frame } | Inst::Return { frame } => frame <= depth && under,
            Inst::LeaveIf {
                frame, to_continue, ..
            } => frame <= depth && !to_continue && (under || is(&tainted, inst)),
            _ => false,
        };
        if leaves {
            return true;
        }
        enter_or_leave(&mut control, inst, &tainted, is);
    }
    false
}

/// Opens or closes a construct's frame in `control`, each frame whether
/// the lanes that run in it depend on a tainted value.
fn enter_or_leave(
    control: &mut Vec<bool>,
    inst: &Inst,
    tainted: &[bool],
    is: impl Fn(&[bool], &Inst) -> bool,
) {
    match inst {
        Inst::IfBegin { .. } => control.push(is(tainted, inst)),
        Inst::LoopBegin | Inst::SwitchBegin | Inst::CallBegin => control.push(false),
        Inst::SwitchCase { .. } => {
            if let Some(top) = control.last_mut() {
                *top |= is(tainted, inst);
            }
        }
        Inst::IfEnd | Inst::LoopEnd | Inst::SwitchEnd | Inst::CallEnd => {
            control.pop();
        }
        _ => {}
    }
}
