//! Which resources a dispatch writes in full, so that their memory need
//! not start zeroed (see [`Program::writes_in_full`]).

use crate::bytecode::{Inst, Space};
use crate::compile::Program;
use lockstep_ir::{ScalarType, SystemValue};

impl Program {
    /// Whether a dispatch whose threads reach `threads_x` values of
    /// `SV_DispatchThreadID.x` writes every word of the `bytes` bytes of
    /// resource `resource` (a multiple of 4) before the dispatch ends, and
    /// reads none of them: what the memory holds before the dispatch then
    /// never shows.
    ///
    /// The proof is one store pattern: stores at `Out[id.x]` (byte
    /// `id.x * stride + k`, for every word `k` of the stride) that every
    /// thread runs, at the top level of the entry point with no `return`
    /// before them, where `id.x` is the thread's own, unchanged; no load
    /// or atomic of the resource anywhere. Anything else is `false`.
    pub fn writes_in_full(&self, resource: usize, bytes: u64, threads_x: u64) -> bool {
        if !bytes.is_multiple_of(4) {
            return false;
        }
        let Some((stride, covered)) = self.thread_stores(resource) else {
            return false;
        };
        covered == (1u128 << (stride / 4)) - 1 && bytes <= threads_x.saturating_mul(stride)
    }

    /// The stride of the stores at `resource[id.x]` that every thread
    /// runs, and the words of it they write (bit `k`: bytes `4k..4k + 4`).
    fn thread_stores(&self, resource: usize) -> Option<(u64, u128)> {
        let x = self.inputs.iter().find_map(|input| {
            (input.sv == SystemValue::DispatchThreadId)
                .then(|| input.regs.iter().find(|(k, _)| *k == 0).map(|&(_, r)| r))
                .flatten()
        })?;
        let writes = |inst: &Inst, r: crate::bytecode::Reg| inst.writes_in(r.0..r.0 + 1);
        if self.code.iter().any(|inst| writes(inst, x)) {
            return None;
        }
        let ours = |space: Space| matches!(space, Space::Resource(id) if id.index() == resource);
        // Anywhere in the code, a load or an atomic of the buffer would see
        // what it held before.
        let reads = |inst: &Inst| matches!(*inst, Inst::Load { addr, .. } | Inst::Atomic { addr, .. } if ours(addr.space));
        if self.code.iter().any(reads) {
            return None;
        }
        // Frames open at each instruction: one per `if`, loop, `switch`
        // and call, the entry point's own included where the code opens
        // one (frame 0): `top` is the entry point's level.
        let mut depth = 0usize;
        let top = usize::from(matches!(self.code.first(), Some(Inst::CallBegin)));
        // Registers holding `id.x * stride` (set at the top level, and
        // forgotten when anything writes them).
        let mut scaled: Vec<(crate::bytecode::Reg, u64)> = Vec::new();
        let mut found: Option<(u64, u128)> = None;
        // Whether some lanes may have left the entry point: stores after
        // that prove nothing.
        let mut left = false;
        for inst in &self.code {
            match *inst {
                // Lanes that leave the entry point skip what follows.
                Inst::Return { frame: 0 } | Inst::LeaveIf { frame: 0, .. } => left = true,
                Inst::Exit | Inst::Jump { .. } if depth <= top => break,
                Inst::IfBegin { .. } | Inst::LoopBegin | Inst::SwitchBegin | Inst::CallBegin => {
                    depth += 1
                }
                Inst::IfEnd | Inst::LoopEnd | Inst::SwitchEnd | Inst::CallEnd => {
                    depth = depth.checked_sub(1)?;
                }
                Inst::Store { addr, ty, src: _ } if ours(addr.space) && depth == top && !left => {
                    let Some(&(_, stride)) = addr
                        .dynamic
                        .and_then(|a| scaled.iter().find(|(r, _)| *r == a))
                    else {
                        continue;
                    };
                    let (offset, size) = (u64::from(addr.offset), u64::from(ty.size()));
                    if found.is_some_and(|(s, _)| s != stride)
                        || !offset.is_multiple_of(4)
                        || !size.is_multiple_of(4)
                        || offset + size > stride
                    {
                        continue;
                    }
                    let words = ((1u128 << (size / 4)) - 1) << (offset / 4);
                    let covered = found.map_or(0, |(_, c)| c);
                    found = Some((stride, covered | words));
                }
                _ => {}
            }
            scaled.retain(|&(r, _)| !writes(inst, r));
            if let Inst::IndexScale {
                dst,
                index,
                index_ty: ScalarType::UInt32 | ScalarType::Int32,
                scale,
                base: None,
            } = *inst
                && depth == top
                && index == x
                && scale.is_multiple_of(4)
                && (4..=256).contains(&scale)
            {
                scaled.push((dst, scale));
            }
        }
        found
    }
}
