//! The checks of checked mode, run by the interpreter only when the
//! dispatch collects findings.

use lockstep_ir::{ScalarType, WaveOp};
use lockstep_wave::Mask;

use super::{Context, Status, Wave, memory};
use crate::bytecode::{Address, Reg, Space};
use crate::check::{Access, FindingKind, Findings, SharedTracker, Site};
use crate::memory::Memory;

impl Wave {
    /// Where the current instruction is, for a finding.
    pub(super) fn site(&self, ctx: &Context) -> Site {
        Site {
            span: ctx.program.spans.get(self.pc.wrapping_sub(1)).copied(),
            wave_size: ctx.wave_size as u32,
            group: self.group_id,
            wave: self.index,
        }
    }

    /// Out-of-bounds accesses, and groupshared races and uninitialized
    /// reads.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check_access(
        &self,
        ctx: &Context,
        findings: &Findings,
        tracker: &mut SharedTracker,
        gs: &Memory,
        addr: Address,
        ty: ScalarType,
        access: Access,
    ) {
        let w = ctx.wave_size;
        let mem = memory(ctx, gs, addr.space);
        let mut outside: Mask = 0;
        let mut shared: Option<(FindingKind, &'static str, Mask)> = None;
        for l in self.lanes(w) {
            let at = self.address(addr, l, w);
            if !mem.in_bounds(at, ty.size()) {
                outside |= 1 << l;
                continue;
            }
            if addr.space == Space::Groupshared {
                for word in (at / 4)..(at + u64::from(ty.size())).div_ceil(4) {
                    if let Some((kind, message)) = tracker.access(word * 4, self.index, access) {
                        let lanes = shared.map_or(0, |s| s.2) | 1 << l;
                        shared = Some((kind, message, lanes));
                    }
                }
            }
        }
        if outside != 0 {
            let what = match addr.space {
                Space::Groupshared => "groupshared memory",
                Space::Resource(_) => "a resource",
            };
            findings.record(FindingKind::OutOfBounds, self.site(ctx), outside, || {
                format!(
                    "{} out of bounds of {what}",
                    if access == Access::Read {
                        "reads"
                    } else {
                        "writes"
                    }
                )
            });
        }
        if let Some((kind, message, lanes)) = shared {
            findings.record(kind, self.site(ctx), lanes, || message.to_string());
        }
    }

    /// A barrier must be reached by every lane of the wave that has not
    /// returned from the entry point.
    pub(super) fn check_barrier(&self, ctx: &Context, findings: &Findings) {
        let returned = self.frames.first().map_or(0, |f| f.exited);
        let missing = self.launch & !returned & !self.cur;
        if missing != 0 {
            findings.record(FindingKind::DivergentBarrier, self.site(ctx), missing, || {
                "group barrier reached in divergent control flow: these lanes of the wave are not at it".to_string()
            });
        }
    }

    /// The lanes a cross-lane read takes its value from must be active, and
    /// quad operations need whole quads.
    pub(super) fn check_wave_op(&self, ctx: &Context, findings: &Findings, op: WaveOp, index: Reg) {
        let w = ctx.wave_size;
        let active = |l: usize| self.cur >> l & 1 == 1;
        let quad = |l: usize| (self.cur >> (l & !3)) & 0xF == 0xF;
        let source = |l: usize| -> Option<usize> {
            let arg = self.regs[index.0 as usize * w + l] as usize;
            Some(match op {
                WaveOp::ReadLaneAt => arg % w,
                WaveOp::QuadReadAcrossX => l ^ 1,
                WaveOp::QuadReadAcrossY => l ^ 2,
                WaveOp::QuadReadAcrossDiagonal => l ^ 3,
                WaveOp::QuadReadLaneAt => (l & !3) + (arg & 3),
                _ => return None,
            })
        };
        let is_quad = matches!(
            op,
            WaveOp::QuadReadAcrossX
                | WaveOp::QuadReadAcrossY
                | WaveOp::QuadReadAcrossDiagonal
                | WaveOp::QuadReadLaneAt
                | WaveOp::QuadAny
                | WaveOp::QuadAll
        );
        let mut inactive_read: Mask = 0;
        let mut partial_quad: Mask = 0;
        for l in self.lanes(w) {
            if source(l).is_some_and(|s| !active(s)) {
                inactive_read |= 1 << l;
            }
            if is_quad && !quad(l) {
                partial_quad |= 1 << l;
            }
        }
        if partial_quad != 0 {
            findings.record(
                FindingKind::IncompleteQuad,
                self.site(ctx),
                partial_quad,
                || "quad operation while some lanes of the quad are inactive".to_string(),
            );
        } else if inactive_read != 0 {
            findings.record(
                FindingKind::InactiveLaneRead,
                self.site(ctx),
                inactive_read,
                || "reads the value of an inactive lane, which is undefined".to_string(),
            );
        }
    }

    /// `WaveMultiPrefix*` masks must partition the active lanes: each active
    /// lane is in its own mask, and every lane of a mask has the same mask.
    pub(super) fn check_partition(
        &self,
        ctx: &Context,
        findings: &Findings,
        partition: &[[u32; 4]],
    ) {
        let w = ctx.wave_size;
        let live = |m: [u32; 4]| lockstep_wave::ballot_to_mask(m) & self.cur;
        let mut bad: Mask = 0;
        for l in self.lanes(w) {
            let mine = live(partition[l]);
            let consistent = (0..w)
                .filter(|k| mine >> k & 1 == 1)
                .all(|k| live(partition[k]) == mine);
            if mine >> l & 1 == 0 || !consistent {
                bad |= 1 << l;
            }
        }
        if bad != 0 {
            findings.record(FindingKind::BadPartition, self.site(ctx), bad, || {
                "WaveMultiPrefix masks do not partition the active lanes (a lane outside its own mask, or lanes of one group with different masks)".to_string()
            });
        }
    }
}

/// The waves waiting at a barrier must wait at the same one.
pub(super) fn check_barrier_agreement(ctx: &Context, findings: &Findings, waves: &[Wave]) {
    let mut waiting = waves.iter().filter(|w| w.status == Status::AtBarrier);
    let Some(first) = waiting.next() else { return };
    if let Some(other) = waiting.find(|w| w.pc != first.pc) {
        findings.record(
            FindingKind::DivergentBarrier,
            other.site(ctx),
            other.cur,
            || {
                format!(
                    "waves of the group wait at different barriers (wave {} waits elsewhere)",
                    first.index
                )
            },
        );
    }
}

/// A seeded Fisher-Yates shuffle (splitmix64).
pub(crate) fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for i in (1..items.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}
