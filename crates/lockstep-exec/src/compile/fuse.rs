//! Fuses an operation with the assignment of its result.
//!
//! An assignment `x = a op b` compiles to `t = op(a, b)` on every lane and
//! `x = t` on the active lanes (`CopyMasked`). When nothing reads `t`
//! afterwards, the pair becomes one instruction that writes `op(a, b)` to
//! the active lanes of `x` (`masked: true`): one instruction and one pass
//! over the lanes fewer. Whether `t` is read afterwards comes from a
//! liveness analysis of the bytecode's control flow, which also finds the
//! atomics whose result nothing reads ([`mark_deferrable`]).

use lockstep_ir::{ScalarType, Span, WaveOp};

use crate::bytecode::{Cmp32, Inst, Lanes, Reg, Space, Test, Vote, wave_operands};
use crate::memory::combining;

/// Fuses every such pair in `code` (and drops the removed instructions'
/// entries from `spans`, which runs parallel to it). A copy to every lane
/// (`x = t` with `Copy`, as the entry function's top level assigns, see
/// `top_level`) fuses too: the operation then writes every lane of `x`,
/// and so may a wave op. At the top level, where the lanes a load skips
/// are lanes nothing reads again, a load may write `x` itself too.
pub(super) fn fuse(code: &mut Vec<Inst>, spans: &mut Vec<Span>) {
    let top = super::top_level::top_level(code);
    // The copy `x = t` at `pc`: `x`, `t`, and whether on the active lanes.
    let copy = |inst: &Inst| match *inst {
        Inst::CopyMasked { dst, src } if dst != src => Some((dst, src, true)),
        Inst::Copy { dst, src } if dst != src => Some((dst, src, false)),
        _ => None,
    };
    // The pairs: an unmasked operation (or, before a copy to every lane, a
    // wave op) writing `t` right before `x = t`.
    let pairs: Vec<usize> = (1..code.len())
        .filter(|&pc| {
            let Some((x, t, masked)) = copy(&code[pc]) else {
                return false;
            };
            match code[pc - 1] {
                // A wave op reads its operands whole before it writes
                // (`Wave::wave_op` copies an operand that is also the
                // destination, `ballot_op` reads it into a mask first), so
                // `x = WaveReadLaneFirst(x)` may write `x` directly.
                Inst::Wave { dst, .. } if !masked => dst == t,
                Inst::Load { dst, addr, .. } if !masked && top[pc] => {
                    dst == t && addr.dynamic != Some(x)
                }
                ref op => op_dst(op).is_some_and(|(dst, masked)| dst == t && !masked),
            }
        })
        .collect();
    if pairs.is_empty() {
        return;
    }
    let temps = pairs
        .iter()
        .filter_map(|&pc| copy(&code[pc]).map(|(_, t, _)| t));
    let live_out = LiveOut::of(code, temps);
    let targets = jump_targets(code);
    let mut removed = vec![false; code.len()];
    for &pc in &pairs {
        let Some((x, t, masked_copy)) = copy(&code[pc]) else {
            continue;
        };
        let live = live_out.at(pc, t);
        // A jump landing on the copy would run it without the operation.
        if live || targets[pc] || removed[pc - 1] {
            continue;
        }
        match &mut code[pc - 1] {
            Inst::Unary { dst, masked, .. }
            | Inst::Binary { dst, masked, .. }
            | Inst::BinaryImm { dst, masked, .. }
            | Inst::Ternary { dst, masked, .. }
            | Inst::Select { dst, masked, .. } => {
                *dst = x;
                *masked = masked_copy;
            }
            Inst::Wave { dst, .. } | Inst::Load { dst, .. } => *dst = x,
            _ => continue,
        }
        removed[pc] = true;
    }
    drop_removed(code, spans, &removed);
}

/// Marks the atomics on device memory whose result nothing reads and
/// whose updates fold into one (`memory::combining`): the engine may hold
/// those back and combine them (`engine::Deferred`).
pub(super) fn mark_deferrable(code: &mut [Inst]) {
    let candidate = |inst: &Inst| match *inst {
        Inst::Atomic {
            op, ty, addr, dst, ..
        } if matches!(addr.space, Space::Resource(_)) && combining(op, ty).is_some() => Some(dst),
        _ => None,
    };
    let dsts: Vec<Reg> = code.iter().filter_map(candidate).collect();
    if dsts.is_empty() {
        return;
    }
    let live = LiveOut::of(code, dsts);
    for (pc, inst) in code.iter_mut().enumerate() {
        let unread = candidate(inst).is_some_and(|dst| !live.at(pc, dst));
        if let Inst::Atomic { deferrable, .. } = inst {
            *deferrable = unread;
        }
    }
}

/// Fuses a wave vote with the branch on it: `t = WaveActiveAnyTrue(c)`
/// (or `AllTrue`) right before `if (t)` or `if (!t)`, with `t` read nowhere
/// after, becomes an `IfBegin` voting on `c` itself. The branch then asks
/// each wave's vote as a mask, without writing `t` to every lane and
/// reading it back.
pub(super) fn fuse_votes(code: &mut Vec<Inst>, spans: &mut Vec<Span>) {
    fuse_tests(code, spans, |inst| match *inst {
        Inst::Wave {
            op: WaveOp::AnyTrue,
            ty: ScalarType::Bool,
            dst,
            a,
            ..
        } => Some((dst, a, Fused::Vote(Vote::Any))),
        Inst::Wave {
            op: WaveOp::AllTrue,
            ty: ScalarType::Bool,
            dst,
            a,
            ..
        } => Some((dst, a, Fused::Vote(Vote::All))),
        _ => None,
    });
}

/// What a branch on `t` tests instead when the instruction that wrote `t`
/// fuses into it.
#[derive(Clone, Copy)]
enum Fused {
    /// A wave's vote over `c`. The vote is over the lanes active where `t`
    /// was written, so only the branch right after it may take it (a
    /// `LeaveIf` changes the active lanes).
    Vote(Vote),
    /// The lanes of `c` where these hold: a function of each lane's own
    /// values, which every branch on `t` up to the next write of a register
    /// may take (branches write none), with the vote it had.
    Lanes(Lanes),
}

/// Fuses each instruction that `test_of` makes `(t, c, fused)` of into the
/// branches right after it on `t` (`IfBegin`s and `LeaveIf`s testing `t`
/// for nonzero, one branch for a vote, a run of them for lanes), when
/// nothing reads `t` after them and no jump lands on them: the branches
/// then take the fused test of `c`, and the instruction goes.
fn fuse_tests(
    code: &mut Vec<Inst>,
    spans: &mut Vec<Span>,
    test_of: impl Fn(&Inst) -> Option<(Reg, Reg, Fused)>,
) {
    // A branch on `t` that can take `fused`: one on `t`'s nonzero lanes
    // (with no vote of its own, to take a vote).
    let branch_on = |inst: &Inst, t: Reg, fused: Fused| match *inst {
        Inst::IfBegin { cond, test, .. } | Inst::LeaveIf { cond, test, .. } => {
            cond == t
                && match fused {
                    Fused::Vote(_) => test == Test::NONZERO,
                    Fused::Lanes(_) => test.lanes == Lanes::Nonzero,
                }
        }
        _ => false,
    };
    let targets = jump_targets(code);
    // The fusions: the writing instruction's position and the end of the
    // run of branches after it.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for pc in 0..code.len() {
        let Some((t, _, fused)) = test_of(&code[pc]) else {
            continue;
        };
        let most = match fused {
            Fused::Vote(_) => 1,
            Fused::Lanes(_) => usize::MAX,
        };
        let end = (pc + 1..code.len())
            .take(most)
            .take_while(|&b| !targets[b] && branch_on(&code[b], t, fused))
            .last()
            .map_or(pc + 1, |last| last + 1);
        if end > pc + 1 {
            runs.push((pc, end));
        }
    }
    if runs.is_empty() {
        return;
    }
    // Fused tentatively: an instruction whose `t` something else still
    // reads keeps its branches as they were (`before`, by run).
    let before: Vec<Vec<Inst>> = runs
        .iter()
        .map(|&(pc, end)| code[pc + 1..end].to_vec())
        .collect();
    for &(pc, end) in &runs {
        let Some((_, c, fused)) = test_of(&code[pc]) else {
            continue;
        };
        for inst in &mut code[pc + 1..end] {
            if let Inst::IfBegin { cond, test, .. } | Inst::LeaveIf { cond, test, .. } = inst {
                *cond = c;
                *test = match fused {
                    Fused::Vote(vote) => Test::vote(vote),
                    Fused::Lanes(lanes) => Test {
                        lanes,
                        vote: test.vote,
                    },
                };
            }
        }
    }
    let temps = runs
        .iter()
        .filter_map(|&(pc, _)| test_of(&code[pc]).map(|(t, _, _)| t));
    let live_out = LiveOut::of(code, temps);
    let mut removed = vec![false; code.len()];
    for (&(pc, end), before) in runs.iter().zip(before) {
        let Some((t, _, _)) = test_of(&code[pc]) else {
            continue;
        };
        if live_out.at(pc, t) {
            code[pc + 1..end].clone_from_slice(&before);
        } else {
            removed[pc] = true;
        }
    }
    drop_removed(code, spans, &removed);
}

/// Fuses a branch around a lone `break`, `continue` or `return`: `if (c)
/// break;` compiles to `IfBegin`, `Break`, `IfEnd`, which become one
/// `LeaveIf` sending the lanes where `c` holds out of the frame, with no
/// frame pushed and two instructions fewer on each pass (a loop's exit
/// test runs on every iteration). Only when nothing but the `IfBegin`
/// jumps into the three.
pub(super) fn fuse_leaves(code: &mut Vec<Inst>, spans: &mut Vec<Span>) {
    let mut landings = vec![0u32; code.len() + 1];
    for to in code.iter().filter_map(jump_target) {
        landings[(to as usize).min(code.len())] += 1;
    }
    let mut removed = vec![false; code.len()];
    for pc in 0..code.len().saturating_sub(2) {
        let Inst::IfBegin {
            cond,
            negate,
            else_pc,
            test,
        } = code[pc]
        else {
            continue;
        };
        let (frame, to_continue) = match code[pc + 1] {
            Inst::Break { frame } | Inst::Return { frame } => (frame, false),
            Inst::Continue { frame } => (frame, true),
            _ => continue,
        };
        let alone = matches!(code[pc + 2], Inst::IfEnd)
            && else_pc as usize == pc + 2
            && landings[pc + 1] == 0
            && landings[pc + 2] == 1;
        if alone {
            code[pc] = Inst::LeaveIf {
                cond,
                negate,
                test,
                frame,
                to_continue,
            };
            removed[pc + 1] = true;
            removed[pc + 2] = true;
        }
    }
    drop_removed(code, spans, &removed);
}

/// Fuses a 32-bit comparison with the branches on it: `t = a < b` right
/// before `if (t)` (or a `LeaveIf` on `t`, or several such branches in a
/// row), with `t` read nowhere after, becomes branches that compare `a`
/// with `b` themselves (`Lanes::Compare`). A branch then builds its lanes
/// from the comparison, without writing `t` to every lane and reading it
/// back: a loop's `i < n` test is one instruction, and so are `more = i <
/// n; if (!WaveActiveAnyTrue(more)) break; if (more) …`'s two branches.
pub(super) fn fuse_compares(code: &mut Vec<Inst>, spans: &mut Vec<Span>) {
    fuse_tests(code, spans, |inst| match *inst {
        Inst::BinaryImm {
            dst,
            a,
            imm,
            masked: false,
            op32: Some(op),
            ..
        } if a != dst => {
            Cmp32::of(op).map(|op| (dst, a, Fused::Lanes(Lanes::CompareImm(op, imm as u32))))
        }
        Inst::Binary {
            dst,
            a,
            b,
            masked: false,
            op32: Some(op),
            ..
        } if a != dst && b != dst => {
            Cmp32::of(op).map(|op| (dst, a, Fused::Lanes(Lanes::Compare(op, b))))
        }
        _ => None,
    });
}

/// Drops the instructions marked in `removed` (and their `spans`), and
/// moves every jump target to the new numbering.
pub(super) fn drop_removed(code: &mut Vec<Inst>, spans: &mut Vec<Span>, removed: &[bool]) {
    let mut new_pc = Vec::with_capacity(code.len() + 1);
    let mut next = 0u32;
    for &r in removed {
        new_pc.push(next);
        next += u32::from(!r);
    }
    new_pc.push(next);
    let mut kept = removed.iter().map(|r| !r);
    code.retain(|_| kept.next().unwrap_or(true));
    let mut kept = removed.iter().map(|r| !r);
    spans.retain(|_| kept.next().unwrap_or(true));
    for inst in code.iter_mut() {
        if let Some(to) = jump_target_mut(inst) {
            *to = new_pc[(*to as usize).min(new_pc.len() - 1)];
        }
    }
}

/// Whether a jump lands on each instruction (and on the end).
pub(super) fn jump_targets(code: &[Inst]) -> Vec<bool> {
    let mut t = vec![false; code.len() + 1];
    for inst in code {
        if let Some(to) = jump_target(inst) {
            t[(to as usize).min(code.len())] = true;
        }
    }
    t
}

/// A branch right after another that tests the same condition the same
/// way takes that one's lanes instead of finding them again
/// ([`Lanes::Previous`]): `if (!WaveActiveAnyTrue(more)) break;` then
/// `if (more)`, with `more = i < n` compared by each (see [`fuse_tests`]),
/// compares once. Only where nothing jumps to the second branch, so that
/// it runs right after the first or not at all; the votes may differ, as
/// the lanes are taken before the vote. Runs last: nothing may come
/// between the two afterwards.
pub(super) fn reuse_tests(code: &mut [Inst]) {
    let targets = jump_targets(code);
    let branch = |inst: &Inst| match *inst {
        Inst::IfBegin { cond, test, .. } | Inst::LeaveIf { cond, test, .. } => {
            Some((cond, test.lanes))
        }
        _ => None,
    };
    // The branch before, with its test as compiled (a run of three takes
    // the first one's lanes twice).
    let mut before = None;
    for pc in 0..code.len() {
        let this = branch(&code[pc]);
        if this.is_some()
            && this == before
            && !targets[pc]
            && let Inst::IfBegin { test, .. } | Inst::LeaveIf { test, .. } = &mut code[pc]
        {
            test.lanes = Lanes::Previous;
        }
        before = this;
    }
}

/// An operation's destination, and whether it already writes the active
/// lanes only.
fn op_dst(inst: &Inst) -> Option<(Reg, bool)> {
    match *inst {
        Inst::Unary { dst, masked, .. }
        | Inst::Binary { dst, masked, .. }
        | Inst::BinaryImm { dst, masked, .. }
        | Inst::Ternary { dst, masked, .. }
        | Inst::Select { dst, masked, .. } => Some((dst, masked)),
        _ => None,
    }
}

/// Where an instruction may jump.
pub(super) fn jump_target(inst: &Inst) -> Option<u32> {
    match *inst {
        Inst::IfBegin { else_pc: to, .. }
        | Inst::Else { end_pc: to }
        | Inst::LoopIter { exit_pc: to, .. }
        | Inst::Jump { target: to } => Some(to),
        _ => None,
    }
}

fn jump_target_mut(inst: &mut Inst) -> Option<&mut u32> {
    match inst {
        Inst::IfBegin { else_pc: to, .. }
        | Inst::Else { end_pc: to }
        | Inst::LoopIter { exit_pc: to, .. }
        | Inst::Jump { target: to } => Some(to),
        _ => None,
    }
}

/// Which of some registers may be read after each instruction (see
/// [`liveness`]).
pub(super) struct LiveOut {
    index: RegIndex,
    words: usize,
    bits: Vec<u64>,
}

impl LiveOut {
    /// The liveness of `regs` after every instruction of `code`.
    pub(super) fn of(code: &[Inst], regs: impl IntoIterator<Item = Reg>) -> LiveOut {
        let index = RegIndex::new(regs);
        let (_, bits) = liveness(code, &index);
        LiveOut {
            words: index.len.div_ceil(64),
            index,
            bits,
        }
    }

    /// Whether `r` (one of the registers asked about) may be read after
    /// the instruction at `pc`.
    pub(super) fn at(&self, pc: usize, r: Reg) -> bool {
        let bit = self
            .index
            .get(r)
            .expect("a register liveness was asked for");
        self.bits[pc * self.words + bit / 64] >> (bit % 64) & 1 == 1
    }
}

/// The registers a liveness analysis tracks, each with its bit.
struct RegIndex {
    /// By register number: the bit, or `u32::MAX` for untracked registers.
    bits: Vec<u32>,
    /// How many registers are tracked.
    len: usize,
}

impl RegIndex {
    fn new(regs: impl IntoIterator<Item = Reg>) -> RegIndex {
        let mut bits = Vec::new();
        let mut len = 0;
        for r in regs {
            let i = r.0 as usize;
            if i >= bits.len() {
                bits.resize(i + 1, u32::MAX);
            }
            if bits[i] == u32::MAX {
                bits[i] = len as u32;
                len += 1;
            }
        }
        RegIndex { bits, len }
    }

    fn get(&self, r: Reg) -> Option<usize> {
        match self.bits.get(r.0 as usize) {
            Some(&b) if b != u32::MAX => Some(b as usize),
            _ => None,
        }
    }
}

/// The instructions that can run after `pc`.
fn successors(code: &[Inst], pc: usize) -> [Option<usize>; 2] {
    let next = (pc + 1 < code.len()).then_some(pc + 1);
    match code[pc] {
        Inst::Exit => [None, None],
        Inst::Jump { target } => [Some(target as usize), None],
        ref inst => [next, jump_target(inst).map(|t| t as usize)],
    }
}

/// Whether each of `regs` may be read before the bytecode overwrites it on
/// every lane: whether the value it holds when the program starts matters.
pub(super) fn live_at_entry(code: &[Inst], regs: &[Reg]) -> Vec<bool> {
    let index = RegIndex::new(regs.iter().copied());
    if code.is_empty() || index.len == 0 {
        return vec![false; regs.len()];
    }
    let (live_in, _) = liveness(code, &index);
    regs.iter()
        .map(|&r| {
            let bit = index.get(r).expect("every register is tracked");
            live_in[bit / 64] >> (bit % 64) & 1 == 1
        })
        .collect()
}

/// For each instruction, the tracked registers (`index`: register to bit)
/// that may be read from it on (live in) and after it (live out) before
/// being overwritten on every lane, as `words` 64-bit words per
/// instruction each.
fn liveness(code: &[Inst], index: &RegIndex) -> (Vec<u64>, Vec<u64>) {
    let words = index.len.div_ceil(64);
    let n = code.len();
    // What each instruction reads and what it overwrites on every lane.
    let mut reads = vec![0u64; n * words];
    let mut kills = vec![0u64; n * words];
    let set = |bits: &mut [u64], pc: usize, r: u32| {
        if let Some(b) = index.get(Reg(r)) {
            bits[pc * words + b / 64] |= 1 << (b % 64);
        }
    };
    // At the entry function's top level a load writes every lane that
    // will ever be read again (see `top_level`).
    let top = super::top_level::top_level(code);
    let mut regs = Vec::new();
    for (pc, inst) in code.iter().enumerate() {
        regs.clear();
        match *inst {
            // A wave op's unused operands are not reads.
            Inst::Wave { op, dst, a, b, .. } => {
                regs.push(dst.0);
                let [reads_a, reads_b] = wave_operands(op);
                regs.extend(reads_a.then_some(a.0));
                regs.extend(reads_b.then_some(b.0));
            }
            _ => inst.for_each_reg_ref(|r| regs.push(r.0)),
        }
        // Instructions that overwrite every lane of their destination (it
        // is their first register operand; wave ops write every lane too,
        // zeroes in the waves of a batch with no active lane). Loads and
        // atomics write the active lanes only, which at the top level are
        // all the lanes that matter.
        let overwrites = matches!(
            inst,
            Inst::Const { .. }
                | Inst::Copy { .. }
                | Inst::IndexScale { .. }
                | Inst::TexelAddress { .. }
                | Inst::Query { .. }
                | Inst::Wave { .. }
                | Inst::MultiPrefix { .. }
        ) || op_dst(inst).is_some_and(|(_, masked)| !masked)
            || (top[pc] && matches!(inst, Inst::Load { .. }));
        // A destination written on the active lanes only is not read by
        // the write: the lanes it leaves keep their values, which matter
        // only if something reads the register after it.
        let partial = match *inst {
            Inst::CopyMasked { dst, .. } | Inst::Load { dst, .. } | Inst::Atomic { dst, .. } => {
                Some(dst.0)
            }
            _ => op_dst(inst).and_then(|(dst, masked)| masked.then_some(dst.0)),
        }
        .filter(|d| regs.iter().filter(|&r| r == d).count() == 1);
        let read_from = usize::from(overwrites);
        for &r in &regs[read_from..] {
            if Some(r) != partial {
                set(&mut reads, pc, r);
            }
        }
        // Indexed register arrays read (or partly write) a whole range.
        if let Inst::Gather { base, limit, .. } | Inst::Scatter { base, limit, .. } = *inst {
            for r in base.0..base.0.saturating_add(limit) {
                set(&mut reads, pc, r);
            }
        }
        if overwrites && !regs[1..].contains(&regs[0]) {
            set(&mut kills, pc, regs[0]);
        }
    }
    // Each instruction's successors as row offsets into the bit arrays (a
    // missing one reads an all-zero row past the end), and predecessors.
    let none = n * words;
    let succs: Vec<[usize; 2]> = (0..n)
        .map(|pc| successors(code, pc).map(|s| s.map_or(none, |s| s * words)))
        .collect();
    // Predecessors of `pc`: `preds[starts[pc]..starts[pc + 1]]`.
    let mut starts = vec![0u32; n + 2];
    for &s in succs.iter().flatten().filter(|&&s| s != none) {
        starts[s / words + 2] += 1;
    }
    for i in 2..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut preds = vec![0u32; starts[n + 1] as usize];
    for (pc, ss) in succs.iter().enumerate() {
        for &s in ss.iter().filter(|&&s| s != none) {
            let at = &mut starts[s / words + 1];
            preds[*at as usize] = pc as u32;
            *at += 1;
        }
    }
    let mut live_in = vec![0u64; (n + 1) * words];
    let mut live_out = vec![0u64; n * words];
    // Sweeps from the end, each over the instructions whose successors
    // changed since they were last visited; a change that flows back
    // along a loop's jump takes another sweep.
    let mut dirty = vec![true; n];
    let mut again = true;
    while again {
        again = false;
        for pc in (0..n).rev() {
            if !std::mem::take(&mut dirty[pc]) {
                continue;
            }
            let [s0, s1] = succs[pc];
            let mut changed = false;
            for i in 0..words {
                let o = live_in[s0 + i] | live_in[s1 + i];
                let k = pc * words + i;
                let new_in = reads[k] | (o & !kills[k]);
                live_out[k] = o;
                changed |= new_in != live_in[k];
                live_in[k] = new_in;
            }
            if changed {
                for &p in &preds[starts[pc] as usize..starts[pc + 1] as usize] {
                    dirty[p as usize] = true;
                    again |= p as usize >= pc;
                }
            }
        }
    }
    live_in.truncate(n * words);
    (live_in, live_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fused(mut code: Vec<Inst>) -> String {
        let mut spans = vec![Span::default(); code.len()];
        fuse_leaves(&mut code, &mut spans);
        assert_eq!(spans.len(), code.len());
        format!("{code:?}")
    }

    fn loop_around(body: Vec<Inst>) -> Vec<Inst> {
        // LoopBegin, LoopIter, the body, LoopContinuing, Jump, LoopEnd, Exit.
        let end = body.len() as u32 + 4;
        let mut code = vec![
            Inst::LoopBegin,
            Inst::LoopIter {
                exit_pc: end,
                span: Span::default(),
            },
        ];
        code.extend(body);
        code.extend([
            Inst::LoopContinuing,
            Inst::Jump { target: 1 },
            Inst::LoopEnd,
            Inst::Exit,
        ]);
        code
    }

    fn if_begin(cond: u32, negate: bool, else_pc: u32, test: Test) -> Inst {
        Inst::IfBegin {
            cond: Reg(cond),
            negate,
            else_pc,
            test,
        }
    }

    fn leave_if(cond: u32, negate: bool, test: Test, to_continue: bool) -> Inst {
        Inst::LeaveIf {
            cond: Reg(cond),
            negate,
            test,
            frame: 0,
            to_continue,
        }
    }

    /// `if (c) break;` and `if (!WaveActiveAnyTrue(d)) continue;` in a
    /// loop: each branch becomes one instruction, and the loop's exit
    /// moves with the code.
    #[test]
    fn a_branch_around_a_lone_break_or_continue_becomes_one_instruction() {
        let code = loop_around(vec![
            if_begin(1, false, 4, Test::NONZERO),
            Inst::Break { frame: 0 },
            Inst::IfEnd,
            if_begin(2, true, 7, Test::vote(Vote::Any)),
            Inst::Continue { frame: 0 },
            Inst::IfEnd,
        ]);
        let want = loop_around(vec![
            leave_if(1, false, Test::NONZERO, false),
            leave_if(2, true, Test::vote(Vote::Any), true),
        ]);
        assert_eq!(fused(code), format!("{want:?}"));
    }

    /// A branch with an `else`, a branch with more in it than the exit, and
    /// a branch whose exit another jump lands on stay as they are.
    #[test]
    fn other_branches_stay() {
        let with_else = loop_around(vec![
            if_begin(1, false, 4, Test::NONZERO),
            Inst::Break { frame: 0 },
            Inst::Else { end_pc: 6 },
            Inst::Continue { frame: 0 },
            Inst::IfEnd,
        ]);
        let more = loop_around(vec![
            if_begin(1, false, 5, Test::NONZERO),
            Inst::Const {
                dst: Reg(3),
                bits: 7,
            },
            Inst::Break { frame: 0 },
            Inst::IfEnd,
        ]);
        let landed_on = loop_around(vec![
            Inst::Jump { target: 4 },
            if_begin(1, false, 5, Test::NONZERO),
            Inst::Return { frame: 0 },
            Inst::IfEnd,
        ]);
        for code in [with_else, more, landed_on] {
            let before = format!("{code:?}");
            assert_eq!(fused(code), before);
        }
    }
}
