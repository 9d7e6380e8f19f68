//! Folds the operations whose operands are all constants: `f(K1, K2)`
//! becomes a copy of the constant `f(K1, K2)`, computed by the same
//! function the engine would run, which the copy passes then fold into the
//! operation's readers.
//!
//! Inlined calls pass their arguments through copies, so a helper called
//! with literals (`wide(0x9E3779B9u, 0x7F4A7C15u)`) computes on constants
//! that the source does not spell as one expression, which the front end's
//! folder cannot see. A register is known within a straight run of
//! instructions, from a constant written to every lane (a `Const`, an
//! unmasked copy of a known register, a folded operation) up to the next
//! write of it or the next jump target; the constant registers are known
//! everywhere.

use std::collections::HashMap;

use lockstep_ir::Span;

use super::fuse::jump_targets;
use crate::bytecode::{Inst, Reg};

/// Lanes the folding evaluates an operation on: every lane gets the same
/// operands, and a result that differs between lanes is not folded.
const LANES: usize = 8;

/// The program's constant registers, and the place for new ones.
pub(super) struct Constants<'a> {
    /// Each constant's register and bits.
    pub list: &'a mut Vec<(Reg, u64)>,
    /// The register count: new constants go after the last register.
    pub regs: &'a mut u32,
}

impl Constants<'_> {
    /// The constant register holding `bits`, made where there is none.
    fn register(&mut self, by_bits: &mut HashMap<u64, Reg>, bits: u64) -> Reg {
        *by_bits.entry(bits).or_insert_with(|| {
            let r = Reg(*self.regs);
            *self.regs += 1;
            self.list.push((r, bits));
            r
        })
    }
}

/// Folds the operations of `code` whose operands are known constants.
pub(super) fn fold(code: &mut [Inst], spans: &[Span], mut constants: Constants) {
    debug_assert_eq!(code.len(), spans.len());
    let global: HashMap<Reg, u64> = constants.list.iter().copied().collect();
    let mut by_bits: HashMap<u64, Reg> = constants.list.iter().map(|&(r, b)| (b, r)).collect();
    let targets = jump_targets(code);
    let mut local: HashMap<Reg, u64> = HashMap::new();
    for (pc, inst) in code.iter_mut().enumerate() {
        if targets[pc] {
            local.clear();
        }
        let known = |r: Reg| global.get(&r).or_else(|| local.get(&r)).copied();
        let folded = evaluate(inst, known);
        match inst.single_dst() {
            Some(dst) => {
                local.remove(&dst);
            }
            None => local.retain(|&r, _| !inst.writes_in(r.0..r.0 + 1)),
        }
        if let Some((dst, bits, masked)) = folded {
            let src = constants.register(&mut by_bits, bits);
            if masked {
                *inst = Inst::CopyMasked { dst, src };
            } else {
                *inst = Inst::Copy { dst, src };
                local.insert(dst, bits);
            }
            continue;
        }
        match *inst {
            Inst::Const { dst, bits } => {
                local.insert(dst, bits);
            }
            Inst::Copy { dst, src } => {
                if let Some(bits) = global.get(&src).or_else(|| local.get(&src)).copied() {
                    local.insert(dst, bits);
                }
            }
            _ => {}
        }
    }
}

/// The result of an arithmetic instruction whose operands are all known:
/// its destination, its bits and whether it writes the active lanes only.
fn evaluate(inst: &Inst, known: impl Fn(Reg) -> Option<u64>) -> Option<(Reg, u64, bool)> {
    let mut d = [0u64; LANES];
    let (dst, masked) = match *inst {
        Inst::Unary {
            f, dst, a, masked, ..
        } => {
            f(&mut d, &[known(a)?; LANES], None);
            (dst, masked)
        }
        Inst::Binary {
            f,
            dst,
            a,
            b,
            masked,
            ..
        } => {
            f(&mut d, &[known(a)?; LANES], &[known(b)?; LANES], None);
            (dst, masked)
        }
        Inst::BinaryImm {
            f,
            dst,
            a,
            imm,
            masked,
            ..
        } => {
            f(&mut d, Some(&[known(a)?; LANES]), imm, None);
            (dst, masked)
        }
        Inst::Ternary {
            f,
            dst,
            a,
            b,
            c,
            masked,
            ..
        } => {
            let [a, b, c] = [known(a)?, known(b)?, known(c)?];
            f(&mut d, &[a; LANES], &[b; LANES], &[c; LANES], None);
            (dst, masked)
        }
        _ => return None,
    };
    d.iter().all(|&x| x == d[0]).then_some((dst, d[0], masked))
}
