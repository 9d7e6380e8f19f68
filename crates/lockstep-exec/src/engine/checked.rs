//! The checks of checked mode, run by the interpreter only when the
//! dispatch collects findings.

use lockstep_ir::{ScalarType, WaveOp};
use lockstep_wave::Mask;

use super::{Context, Status, Wave, address, memory};
use crate::bytecode::{Address, Inst, Lanes, Reg, Space};
use crate::check::{Access, FindingKind, Findings, SharedTracker, Site};
use crate::memory::Memory;

impl Wave {
    /// Where the current instruction is, for a finding.
    pub(super) fn site<'c>(&self, ctx: &'c Context) -> Site<'c> {
        let debug = &ctx.program.debug;
        let calls = debug
            .call
            .get(self.pc.wrapping_sub(1))
            .and_then(|&c| debug.chains.get(c as usize))
            .map_or(&[][..], Vec::as_slice);
        Site {
            span: ctx.program.spans.get(self.pc.wrapping_sub(1)).copied(),
            calls,
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
        let mem = memory(ctx, std::slice::from_ref(gs), addr.space, 0);
        let mut outside: Mask = 0;
        let mut misaligned: Mask = 0;
        let mut first_misaligned = 0;
        let mut first_outside = 0;
        let mut shared: Option<(FindingKind, &'static str, Mask)> = None;
        let mut written: Vec<(u64, u64)> = Vec::new();
        // A read of the word the lane before read (a uniform load) meets
        // the tracker as that lane did: one wave's reads of a word leave
        // it as one read does, so the tracker is asked once.
        let mut last_read: Option<(u64, bool)> = None;
        for l in self.lanes(w) {
            let at = address(&self.regs, addr, l, w);
            if access != Access::Read
                && matches!(addr.space, Space::Resource(_))
                && mem.in_bounds(at, ty.size())
            {
                let who = crate::check::pack_lane(self.group_id, self.index, l as u32);
                written
                    .extend(((at / 4)..(at + u64::from(ty.size())).div_ceil(4)).map(|w| (w, who)));
            }
            if !mem.in_bounds(at, ty.size()) {
                let align = u64::from(ty.size().min(4));
                let in_range = at
                    .checked_add(u64::from(ty.size()))
                    .is_some_and(|end| end <= mem.len());
                if in_range && !at.is_multiple_of(align) {
                    if misaligned == 0 {
                        first_misaligned = at;
                    }
                    misaligned |= 1 << l;
                } else {
                    if outside == 0 {
                        first_outside = at;
                    }
                    outside |= 1 << l;
                }
                continue;
            }
            if addr.space == Space::Groupshared {
                if access == Access::Read
                    && let Some((before, found)) = last_read
                    && before == at
                {
                    if found && let Some(s) = shared.as_mut() {
                        s.2 |= 1 << l;
                    }
                    continue;
                }
                let mut found = false;
                let tracked = crate::check::TRACKED_BYTES;
                for part in (at / tracked)..(at + u64::from(ty.size())).div_ceil(tracked) {
                    if let Some((kind, message)) =
                        tracker.access(part * tracked, self.index, access)
                    {
                        let lanes = shared.map_or(0, |s| s.2) | 1 << l;
                        shared = Some((kind, message, lanes));
                        found = true;
                    }
                }
                last_read = (access == Access::Read).then_some((at, found));
            }
        }
        if let Space::Resource(id) = addr.space
            && !written.is_empty()
        {
            let len = (mem.len() / 4) as usize;
            let atomic = access.is_atomic();
            findings.wrote(id.index(), len, self.pc.wrapping_sub(1), &written, atomic);
        }
        if outside != 0 {
            let what = memory_name(ctx, addr.space);
            let verb = access.verb();
            let size = ty.size();
            let kind = match addr.space {
                Space::Resource(_) => FindingKind::ResourceOutOfBounds,
                Space::Groupshared => FindingKind::OutOfBounds,
            };
            findings.record(kind, self.site(ctx), outside, || {
                if first_outside >= crate::bytecode::TEXEL_OUT_OF_RANGE {
                    // A texel address: a coordinate past its dimension, or
                    // a mip level past the last.
                    return format!(
                        "{verb} a texel outside {what}: a coordinate is past its size, or the mip level past the last (first lane)"
                    );
                }
                format!(
                    "{verb} out of bounds of {what}: {size} bytes at byte offset {} of its {} (first lane)",
                    first_outside as i64,
                    match mem.len() {
                        1 => "1 byte".to_string(),
                        n => format!("{n} bytes"),
                    }
                )
            });
        }
        if misaligned != 0 {
            let what = memory_name(ctx, addr.space);
            let align = ty.size().min(4);
            let verb = access.verb();
            findings.record(FindingKind::Misaligned, self.site(ctx), misaligned, || {
                format!(
                    "{verb} {what} at byte offset {first_misaligned}, which is not a multiple of {align}"
                )
            });
        }
        if let Some((kind, message, lanes)) = shared {
            findings.record(kind, self.site(ctx), lanes, || message.to_string());
        }
    }

    /// Lanes whose index into a local array (`delta`, in scalars) is past
    /// its `limit` scalars: D3D leaves such an access undefined (here a
    /// read gives 0 and a write is dropped).
    pub(super) fn check_local_index(
        &self,
        ctx: &Context,
        findings: &Findings,
        delta: Reg,
        limit: u32,
        access: Access,
    ) {
        let w = ctx.wave_size;
        let mut outside: Mask = 0;
        let mut first = 0;
        for l in self.lanes(w) {
            let d = self.regs[delta.0 as usize * w + l];
            if d >= u64::from(limit) {
                if outside == 0 {
                    first = d;
                }
                outside |= 1 << l;
            }
        }
        if outside != 0 {
            let verb = access.verb();
            findings.record(FindingKind::OutOfBounds, self.site(ctx), outside, || {
                format!(
                    "{verb} a local array out of bounds: scalar {} of its {limit} (first lane)",
                    first as i64
                )
            });
        }
    }

    /// Lanes that store different values at one address in one store:
    /// the lanes of a wave store at once, so which value lands is not
    /// specified (lanes storing one value agree).
    pub(super) fn check_conflicting_stores(
        &self,
        ctx: &Context,
        findings: &Findings,
        gs: &Memory,
        addr: Address,
        ty: ScalarType,
        src: Reg,
    ) {
        let w = ctx.wave_size;
        let mem = memory(ctx, std::slice::from_ref(gs), addr.space, 0);
        let size = ty.size();
        let bits = u64::MAX >> (64 - 8 * size.clamp(1, 8));
        let values = self.reg(src);
        let stored = || {
            self.lanes(w)
                .map(|l| (address(&self.regs, addr, l, w), l))
                .filter(|&(at, _)| mem.in_bounds(at, size))
        };
        // Addresses that rise lane after lane (the usual store) are apart.
        let mut last = None;
        if stored().all(|(at, _)| last.replace(at).is_none_or(|before| before < at)) {
            return;
        }
        let mut stores: Vec<(u64, usize)> = stored().collect();
        stores.sort_unstable();
        let mut lanes: Mask = 0;
        let mut first = None;
        for p in stores.windows(2) {
            let ((at, a), (next, b)) = (p[0], p[1]);
            if at == next && values[a] & bits != values[b] & bits {
                lanes |= 1 << a | 1 << b;
                first.get_or_insert((a, b, at));
            }
        }
        if let Some((a, b, at)) = first {
            let what = memory_name(ctx, addr.space);
            findings.record(FindingKind::ConflictingStores, self.site(ctx), lanes, || {
                format!(
                    "lanes {a} and {b} store different values at byte {at} of {what} in one store: the lanes of a wave store at once, so which value lands is not specified"
                )
            });
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
        // `WaveReadLaneAt` lanes whose index names no lane of the wave,
        // and the first such index.
        let (mut past_end, mut first_past): (Mask, Option<u64>) = (0, None);
        for l in self.lanes(w) {
            let arg = self.regs[index.0 as usize * w + l];
            if op == WaveOp::ReadLaneAt && arg >= w as u64 {
                past_end |= 1 << l;
                first_past.get_or_insert(arg);
            } else if source(l).is_some_and(|s| !active(s)) {
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
            return;
        }
        if let Some(lane) = first_past {
            findings.record(FindingKind::LaneOutOfRange, self.site(ctx), past_end, || {
                format!(
                    "WaveReadLaneAt reads lane {lane} of a wave of {w} lanes: there is no such lane, so the result is undefined (this engine wraps the index to lane {})",
                    lane % w as u64
                )
            });
        }
        if inactive_read != 0 {
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
        // Reported at both barriers: either may be the misplaced one.
        for (here, there) in [(other, first), (first, other)] {
            findings.record(
                FindingKind::DivergentBarrier,
                here.site(ctx),
                here.cur,
                || {
                    format!(
                        "waves of the group wait at different barriers: wave {} waits here, wave {} at another barrier",
                        here.index, there.index
                    )
                },
            );
        }
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

impl Wave {
    fn undef(&self, r: Reg) -> Mask {
        self.undefined.get(r.0 as usize).copied().unwrap_or(0)
    }

    fn set_undef(&mut self, r: Reg, lanes: Mask) {
        if let Some(u) = self.undefined.get_mut(r.0 as usize) {
            *u = lanes;
        }
    }

    /// All lanes when any active lane of `r` is undefined, else none: the
    /// result of a reduction over the active lanes.
    fn any_active_undef(&self, regs: &[Reg], full: Mask) -> Mask {
        if regs.iter().any(|&r| self.undef(r) & self.cur != 0) {
            full
        } else {
            0
        }
    }

    /// Tracks which register lanes hold undefined values (uninitialized
    /// locals, reads of inactive lanes) before `inst` runs, and reports an
    /// undefined value that an instruction stores to memory.
    pub(super) fn track_undefined(&mut self, ctx: &Context, findings: &Findings, inst: &Inst) {
        let w = ctx.wave_size;
        let full = super::full_mask(w);
        let lane_value = |wave: &Wave, r: Reg, l: usize| wave.regs[r.0 as usize * w + l];
        // An operation fused with an assignment (`masked`) writes the
        // active lanes only.
        let op_result = |wave: &Wave, dst: Reg, undef: Mask, masked: bool| {
            if masked {
                (wave.undef(dst) & !wave.cur) | (undef & wave.cur)
            } else {
                undef
            }
        };
        match *inst {
            Inst::Const { dst, .. } | Inst::Query { dst, .. } => self.set_undef(dst, 0),
            Inst::Uninitialized { dst } => self.set_undef(dst, full),
            Inst::Unary { dst, a, masked, .. } | Inst::BinaryImm { dst, a, masked, .. } => {
                self.set_undef(dst, op_result(self, dst, self.undef(a), masked))
            }
            Inst::Binary {
                dst, a, b, masked, ..
            } => {
                let undef = self.undef(a) | self.undef(b);
                self.set_undef(dst, op_result(self, dst, undef, masked))
            }
            Inst::Ternary {
                dst,
                a,
                b,
                c,
                masked,
                ..
            } => {
                let undef = self.undef(a) | self.undef(b) | self.undef(c);
                self.set_undef(dst, op_result(self, dst, undef, masked))
            }
            // Not formed in checked programs; each output as if computed
            // from every input.
            Inst::Block32(ref block) => {
                let undef = block.inputs.iter().fold(0, |m, &r| m | self.undef(r));
                for o in &block.outputs {
                    self.set_undef(o.reg, op_result(self, o.reg, undef, o.masked));
                }
            }
            Inst::Copy { dst, src: a } => self.set_undef(dst, self.undef(a)),
            Inst::Select {
                dst,
                cond,
                a,
                b,
                masked,
                ..
            } => {
                // Each lane takes one operand: the other's lanes do not
                // matter.
                let picks_a = (0..w)
                    .filter(|&l| lane_value(self, cond, l) != 0)
                    .fold(0, |m: Mask, l| m | 1 << l);
                let undef =
                    self.undef(cond) | (self.undef(a) & picks_a) | (self.undef(b) & !picks_a);
                self.set_undef(dst, op_result(self, dst, undef, masked))
            }
            Inst::CopyMasked { dst, src } => {
                let merged = (self.undef(dst) & !self.cur) | (self.undef(src) & self.cur);
                self.set_undef(dst, merged);
            }
            Inst::IndexScale {
                dst, index, base, ..
            } => self.set_undef(dst, self.undef(index) | base.map_or(0, |b| self.undef(b))),
            Inst::Gather {
                dst,
                base,
                delta,
                limit,
            } => {
                let mut lanes = self.undef(delta);
                for l in 0..w {
                    let d = lane_value(self, delta, l);
                    if d < u64::from(limit) && self.undef(Reg(base.0 + d as u32)) >> l & 1 == 1 {
                        lanes |= 1 << l;
                    }
                }
                self.set_undef(dst, lanes);
            }
            Inst::Scatter {
                base,
                delta,
                limit,
                src,
            } => {
                for l in self.lanes(w) {
                    let d = lane_value(self, delta, l);
                    if d < u64::from(limit) {
                        let target = Reg(base.0 + d as u32);
                        let bit = (self.undef(src) >> l & 1) << l;
                        self.set_undef(target, (self.undef(target) & !(1 << l)) | bit);
                    }
                }
            }
            Inst::Load { dst, addr, .. } => {
                self.set_undef(dst, addr.dynamic.map_or(0, |r| self.undef(r)))
            }
            Inst::TexelAddress {
                dst, coords, level, ..
            } => {
                let lanes = coords
                    .iter()
                    .fold(level.map_or(0, |r| self.undef(r)), |m, &r| {
                        m | self.undef(r)
                    });
                self.set_undef(dst, lanes);
            }
            Inst::IfBegin { cond, test, .. } | Inst::LeaveIf { cond, test, .. } => {
                let other = match test.lanes {
                    Lanes::Compare(_, b) => self.undef(b),
                    // Checked programs do not reuse a test.
                    Lanes::Nonzero | Lanes::CompareImm(..) | Lanes::Previous => 0,
                };
                let lanes = (self.undef(cond) | other) & self.cur;
                self.report_undefined_branch(ctx, findings, lanes);
            }
            // Each case tests the lanes that entered the `switch`.
            Inst::SwitchCase { selector, .. } => {
                let lanes = self.undef(selector) & self.frames.last().map_or(0, |f| f.entry);
                self.report_undefined_branch(ctx, findings, lanes);
            }
            Inst::Store { src, addr, .. } => {
                self.report_undefined_address(ctx, findings, addr, "store");
                self.report_undefined_store(ctx, findings, &[src]);
            }
            Inst::Atomic {
                dst, a, b, addr, ..
            } => {
                self.report_undefined_address(ctx, findings, addr, "atomic");
                self.report_undefined_store(ctx, findings, &[a, b]);
                self.set_undef(dst, 0);
            }
            Inst::Wave { op, dst, a, b, .. } => {
                let lanes = self.wave_undef(ctx, op, a, b);
                self.set_undef(dst, lanes);
            }
            Inst::Wave4 { dst, a, .. } => {
                let lanes = self.any_active_undef(&[a], full);
                for r in dst {
                    self.set_undef(r, lanes);
                }
            }
            Inst::MultiPrefix { dst, a, mask, .. } => {
                let lanes = self.any_active_undef(&[a, mask[0], mask[1], mask[2], mask[3]], full);
                self.set_undef(dst, lanes);
            }
            _ => {}
        }
    }

    /// Which lanes of a wave op's result are undefined.
    fn wave_undef(&self, ctx: &Context, op: WaveOp, a: Reg, b: Reg) -> Mask {
        let w = ctx.wave_size;
        let full = super::full_mask(w);
        let from_lane = |l: usize, src: usize| -> bool {
            self.cur >> src & 1 == 0 || self.undef(a) >> src & 1 == 1 || self.undef(b) >> l & 1 == 1
        };
        let index = |l: usize| self.regs[b.0 as usize * w + l] as usize;
        match op {
            WaveOp::IsFirstLane
            | WaveOp::GetLaneCount
            | WaveOp::GetLaneIndex
            | WaveOp::GroupWaveIndex
            | WaveOp::GroupWaveCount => 0,
            WaveOp::ReadLaneFirst => match (0..w).find(|&l| self.cur >> l & 1 == 1) {
                Some(first) if self.undef(a) >> first & 1 == 1 => full,
                _ => 0,
            },
            WaveOp::ReadLaneAt
            | WaveOp::QuadReadAcrossX
            | WaveOp::QuadReadAcrossY
            | WaveOp::QuadReadAcrossDiagonal
            | WaveOp::QuadReadLaneAt => (0..w)
                .filter(|&l| {
                    // A lane past the wave's last has no value.
                    if op == WaveOp::ReadLaneAt && index(l) >= w {
                        return true;
                    }
                    let src = match op {
                        WaveOp::ReadLaneAt => index(l) % w,
                        WaveOp::QuadReadAcrossX => l ^ 1,
                        WaveOp::QuadReadAcrossY => l ^ 2,
                        WaveOp::QuadReadAcrossDiagonal => l ^ 3,
                        _ => (l & !3) + (index(l) & 3),
                    };
                    from_lane(l, src)
                })
                .fold(0, |m, l| m | 1 << l),
            _ => self.any_active_undef(&[a], full),
        }
    }

    /// Reports a branch whose condition is undefined in `lanes`, lanes it
    /// tests: where those lanes go is undefined too.
    /// Helper lanes are left out: where one goes has no effect of its own
    /// (its writes are dropped), and what it hands its quad is checked
    /// where that reaches memory or an output.
    fn report_undefined_branch(&self, ctx: &Context, findings: &Findings, lanes: Mask) {
        let helpers = ctx
            .program
            .debug
            .helper
            .map_or(0, |r| super::nonzero_lanes(self.reg(r)));
        let lanes = lanes & !helpers;
        if lanes != 0 {
            findings.record(FindingKind::UndefinedValue, self.site(ctx), lanes, || {
                "a branch's condition is undefined (from an inactive lane, a lane past the wave, or an uninitialized variable): which way these lanes go is undefined".to_string()
            });
        }
    }

    /// Reports a store or atomic (`what`) whose address is undefined in
    /// some active lanes: which element those lanes write is undefined.
    fn report_undefined_address(
        &self,
        ctx: &Context,
        findings: &Findings,
        addr: crate::bytecode::Address,
        what: &str,
    ) {
        let lanes = addr.dynamic.map_or(0, |r| self.undef(r)) & self.cur;
        if lanes != 0 {
            findings.record(FindingKind::UndefinedValue, self.site(ctx), lanes, || {
                format!(
                    "the address of this {what} is undefined in these lanes (it comes from an inactive lane, a lane past the wave, or an uninitialized variable): which element they write is undefined"
                )
            });
        }
    }

    fn report_undefined_store(&self, ctx: &Context, findings: &Findings, values: &[Reg]) {
        let lanes = values.iter().fold(0, |m, &r| m | self.undef(r)) & self.cur;
        if lanes != 0 {
            findings.record(FindingKind::UndefinedValue, self.site(ctx), lanes, || {
                "an undefined value (from an inactive lane, a lane past the wave, or an uninitialized variable) is written to memory".to_string()
            });
        }
    }
}

/// How a report names the memory of `space`: groupshared memory, or the
/// resource by its name.
fn memory_name(ctx: &Context, space: Space) -> String {
    match space {
        Space::Groupshared => "groupshared memory".to_string(),
        Space::Resource(r) => ctx
            .program
            .resource_names
            .get(r.index())
            .map_or_else(|| "a resource".to_string(), |n| format!("'{n}'")),
    }
}
