//! Addresses whose lanes follow each other by construction: within every
//! chunk of eight lanes, lane `l`'s byte address is lane 0's plus `l`
//! times a stride, so the machine code loads or stores the chunk as a
//! whole after one bounds check, with no per-lane comparison.
//!
//! The facts hold on every lane of a group's threads, active or not, where
//! the code reads the register. They are drawn in program order from the
//! system values, constants, and operations that write every lane (no
//! masked writes); a register's fact is the one its last write in program
//! order gave, and is dropped where another path may reach the read. The
//! bytecode's jumps are structured: the `if` that skips to `else` or its
//! end, the loop's exit and back edge, and the leaps of lanes that leave
//! to a construct's end or continuing block. So facts are dropped at
//! `else`, a `case` or a loop's continuing block for what the construct
//! wrote so far, when a construct closes for all it wrote (code that no
//! lane enters is skipped), and for a whole loop at its start for what the
//! loop writes anywhere (the back edge).

use lockstep_ir::{ScalarType, SystemValue};

use super::sixteen;
use crate::bytecode::{Inst, Op32, OpForm, Slot32Kind, loop_writes};
use crate::compile::Program;

/// What the lanes of each chunk of eight hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lanes {
    /// One value on every lane of the chunk.
    Same,
    /// Lane `l` holds lane 0's value plus `k·l`, wrapping at 32 bits.
    Step(u32),
    /// A 64-bit byte address: lane `l`'s is lane 0's plus `stride·l`, a
    /// multiple of 4 from 4 to 32 (the machine code's vector accesses).
    Bytes(u32),
}

/// Per instruction: for a load or store whose address is consecutive by
/// construction, the byte stride between lanes; 0 elsewhere.
pub(crate) fn address_strides(p: &Program, wave: usize) -> Vec<u32> {
    let code = &p.code;
    let mut lanes: Vec<Option<Lanes>> = vec![None; p.reg_count as usize];
    for &(r, _) in &p.constants {
        set(&mut lanes, r.0, Some(Lanes::Same));
    }
    for (r, fact) in inputs(p, wave) {
        set(&mut lanes, r, Some(fact));
    }
    // The registers each open construct wrote so far, outermost first.
    let mut written: Vec<Vec<u32>> = vec![Vec::new()];
    let forget = |lanes: &mut Vec<Option<Lanes>>, regs: &[u32]| {
        for &r in regs {
            set(lanes, r, None);
        }
    };
    let mut strides = vec![0u32; code.len()];
    let mut facts = Vec::new();
    for (pc, inst) in code.iter().enumerate() {
        let frame = written.len() - 1;
        match *inst {
            Inst::IfBegin { .. } | Inst::SwitchBegin | Inst::CallBegin => written.push(Vec::new()),
            Inst::LoopBegin => {
                written.push(Vec::new());
                forget(&mut lanes, &loop_writes(code, pc));
            }
            Inst::Else { .. } | Inst::SwitchCase { .. } | Inst::LoopContinuing => {
                forget(&mut lanes, &written[frame]);
            }
            Inst::IfEnd | Inst::LoopEnd | Inst::SwitchEnd | Inst::CallEnd if frame > 0 => {
                let inner = written.pop().unwrap_or_default();
                forget(&mut lanes, &inner);
                written[frame - 1].extend(inner);
            }
            Inst::Load { addr, .. } | Inst::Store { addr, .. } => {
                if let Some(Some(Lanes::Bytes(stride))) =
                    addr.dynamic.and_then(|r| lanes.get(r.0 as usize))
                {
                    strides[pc] = *stride;
                }
            }
            _ => {}
        }
        facts.clear();
        fact(inst, &lanes, &mut facts);
        let frame = written.len() - 1;
        inst.for_each_write(|r| {
            set(&mut lanes, r, None);
            written[frame].push(r);
        });
        for &(r, fact) in &facts {
            set(&mut lanes, r, fact);
        }
    }
    strides
}

fn set(lanes: &mut [Option<Lanes>], r: u32, fact: Option<Lanes>) {
    if let Some(l) = lanes.get_mut(r as usize) {
        *l = fact;
    }
}

/// Pushes the registers an instruction gives a fact, with the facts: one
/// for a scalar operation, those a block writes back to every lane.
fn fact(inst: &Inst, lanes: &[Option<Lanes>], facts: &mut Vec<(u32, Option<Lanes>)>) {
    let of = |r: crate::bytecode::Reg| lanes.get(r.0 as usize).copied().flatten();
    let mut one = |dst: crate::bytecode::Reg, fact| facts.push((dst.0, fact));
    match *inst {
        Inst::Const { dst, .. } => one(dst, Some(Lanes::Same)),
        Inst::Copy { dst, src } => one(dst, of(src).filter(|f| !matches!(f, Lanes::Bytes(_)))),
        Inst::Unary {
            dst,
            a,
            masked: false,
            op32: Some(_),
            math: None,
            form,
            ..
        } if narrow(form) => one(dst, (of(a) == Some(Lanes::Same)).then_some(Lanes::Same)),
        Inst::Binary {
            dst,
            a,
            b,
            masked: false,
            op32: Some(op),
            math: None,
            form,
            ..
        } if narrow(form) => one(dst, binary(op, of(a), of(b))),
        Inst::BinaryImm {
            dst,
            a,
            imm,
            masked: false,
            op32: Some(op),
            form,
            ..
        } if narrow(form) => one(dst, immediate(op, of(a), imm)),
        Inst::IndexScale {
            dst,
            index,
            index_ty,
            scale,
            base,
        } => {
            // As the machine code scales (`WaveBuilder::scale`), on every
            // lane, from a 32-bit index.
            let signed = index_ty == ScalarType::Int32;
            let scaled = (scale.is_power_of_two() || (!signed && scale <= u64::from(u32::MAX)))
                && matches!(index_ty, ScalarType::Int32 | ScalarType::UInt32)
                && base.is_none_or(|b| of(b) == Some(Lanes::Same));
            let bytes = match of(index) {
                Some(Lanes::Step(k)) if scaled => Some(u64::from(k).saturating_mul(scale))
                    .filter(|s| (4..=32).contains(s) && s % 4 == 0)
                    .map(|s| Lanes::Bytes(s as u32)),
                _ => None,
            };
            one(dst, bytes)
        }
        Inst::Block32(ref block) => {
            let mut slots: Vec<Option<Lanes>> = block.inputs.iter().map(|&r| of(r)).collect();
            for op in &block.ops {
                let a = slots[usize::from(op.a)];
                let fact = match op.kind {
                    _ if op.old.is_some() => None,
                    Slot32Kind::Imm { imm, .. } => immediate(op.op, a, u64::from(imm)),
                    Slot32Kind::Slots { b, .. } => binary(op.op, a, slots[usize::from(b)]),
                    Slot32Kind::Select { b, c, .. } => {
                        [a, slots[usize::from(b)], slots[usize::from(c)]]
                            .iter()
                            .all(|&s| s == Some(Lanes::Same))
                            .then_some(Lanes::Same)
                    }
                };
                slots.push(fact);
            }
            facts.extend(
                block
                    .outputs
                    .iter()
                    .filter(|o| !o.masked)
                    .map(|o| (o.reg.0, slots[usize::from(o.slot)])),
            );
        }
        _ => {}
    }
}

/// A 32-bit operation (no 64-bit or 16-bit operand) of the machine code.
fn narrow(form: Option<OpForm>) -> bool {
    form.is_none_or(|f| !f.wide().contains(&true) && sixteen(f).is_none())
}

fn binary(op: Op32, a: Option<Lanes>, b: Option<Lanes>) -> Option<Lanes> {
    use Lanes::{Same, Step};
    match (op, a?, b?) {
        (_, Same, Same) => Some(Same),
        (Op32::Add, Step(k), Same) | (Op32::Add, Same, Step(k)) | (Op32::Sub, Step(k), Same) => {
            Some(Step(k))
        }
        _ => None,
    }
}

fn immediate(op: Op32, a: Option<Lanes>, imm: u64) -> Option<Lanes> {
    let imm = u32::try_from(imm).ok()?;
    match (op, a?) {
        (_, Lanes::Same) => Some(Lanes::Same),
        (Op32::Add | Op32::Sub, Lanes::Step(k)) => Some(Lanes::Step(k)),
        (Op32::Mul, Lanes::Step(k)) => Some(Lanes::Step(k.wrapping_mul(imm))),
        (Op32::Shl, Lanes::Step(k)) if imm < 32 => Some(Lanes::Step(k << imm)),
        _ => None,
    }
}

/// The system-value registers' facts at wave size `wave`, over the lanes
/// of a group's threads: SV_GroupIndex counts up along the lanes, and so
/// do the x components where a chunk of eight lanes lies in one row of
/// the group; y and z are then one value per chunk, as SV_GroupID always
/// is. Groups whose lanes run through 2×2 blocks have none.
fn inputs(p: &Program, wave: usize) -> Vec<(u32, Lanes)> {
    let extent = p.group.extent(wave as u32).map(|d| d.max(1));
    if crate::engine::in_blocks(extent, p.quads) {
        return Vec::new();
    }
    let [x, y, z] = extent;
    // Each chunk of eight lanes lies in one row of the group.
    let rows = x % 8 == 0 || (y == 1 && z == 1);
    let mut facts = Vec::new();
    for input in &p.inputs {
        for &(k, reg) in &input.regs {
            let fact = match (input.sv, k) {
                (SystemValue::GroupIndex, _) => Some(Lanes::Step(1)),
                (SystemValue::GroupId, _) => Some(Lanes::Same),
                (SystemValue::GroupThreadId | SystemValue::DispatchThreadId, 0) if rows => {
                    Some(Lanes::Step(1))
                }
                (SystemValue::GroupThreadId | SystemValue::DispatchThreadId, _) if rows => {
                    Some(Lanes::Same)
                }
                _ => None,
            };
            if let Some(fact) = fact {
                facts.push((reg.0, fact));
            }
        }
    }
    facts
}
