//! The interpreter: runs the waves of a group over their bytecode, pausing
//! them at barriers, and runs groups in parallel.
//!
//! Control flow follows the execution-mask model of DESIGN.md: `cur` holds
//! the active lanes; every lane that left a construct early (`break`,
//! `continue`, `return`) is recorded in that construct's frame and in
//! `parked`, and comes back when the construct ends. A reconvergence point
//! re-enables exactly the lanes that entered the construct and are not
//! parked by an enclosing one.

use lockstep_ir::{AtomicOp, ResourceQuery, ScalarType, SystemValue, WaveOp};
use lockstep_wave::{self as wave, Arith, Lane, Mask};

mod checked;

use checked::check_barrier_agreement;
pub(crate) use checked::shuffle;

use crate::BoundResource;
use crate::bytecode::{Address, Inst, Reg, Space, TEXEL_OUT_OF_RANGE};
use crate::check::{Access, FindingKind, Findings, ReductionOrder, Schedule, SharedTracker};
use crate::compile::Program;
use crate::memory::Memory;
use crate::value::Val;
use crate::{ExecError, with_arith, with_scalar};

/// A construct's saved masks.
#[derive(Clone, Copy, Debug, Default)]
struct Frame {
    /// The lanes active when the construct began.
    entry: Mask,
    /// `if`: the lanes of the else branch; loop: the lanes of this iteration.
    aux: Mask,
    /// Lanes that left by `break` (loops, switches) or `return` (calls).
    exited: Mask,
    /// Lanes that took `continue` this iteration.
    continued: Mask,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Running,
    AtBarrier,
    Done,
}

/// One wave's whole state: it can stop at a barrier and resume later.
struct Wave {
    pc: usize,
    cur: Mask,
    parked: Mask,
    frames: Vec<Frame>,
    regs: Vec<u64>,
    status: Status,
    iterations: u64,
    /// The wave's index in its group, and the group's wave count.
    index: u32,
    group_waves: u32,
    group_id: [u32; 3],
    /// The lanes that exist (a partial last wave has fewer).
    launch: Mask,
    /// Checked mode: per register, the lanes whose value is undefined.
    undefined: Vec<Mask>,
    /// The program's constant registers are filled (a worker runs one
    /// program at one wave size, so once per wave slot is enough).
    constants_filled: bool,
}

/// What the waves of one dispatch share.
pub(crate) struct Context<'a> {
    pub program: &'a Program,
    pub resources: &'a [BoundResource<'a>],
    pub wave_size: usize,
    pub step_budget: u64,
    pub group_count: [u32; 3],
    /// The group's extent in x, y, z at this wave size.
    pub group_extent: [u32; 3],
    /// Checked mode: where findings go.
    pub findings: Option<&'a Findings>,
    pub order: ReductionOrder,
    pub schedule: Schedule,
}

/// Per-worker scratch reused from group to group.
pub(crate) struct Worker {
    waves: Vec<Wave>,
    groupshared: Memory,
    scratch: Vec<u64>,
    tracker: SharedTracker,
    turns: Vec<usize>,
}

impl Worker {
    pub fn new() -> Worker {
        Worker {
            waves: Vec::new(),
            groupshared: Memory::zeroed(0),
            scratch: vec![0; 4 * 128],
            tracker: SharedTracker::default(),
            turns: Vec::new(),
        }
    }

    /// Runs one thread group to completion.
    pub fn run_group(&mut self, ctx: &Context, group: u32) -> Result<(), ExecError> {
        let p = ctx.program;
        let w = ctx.wave_size;
        let [gx, gy, _] = ctx.group_count;
        let group_id = [group % gx, (group / gx) % gy, group / (gx * gy)];
        let threads = ctx
            .group_extent
            .iter()
            .map(|&n| n as usize)
            .product::<usize>();
        let wave_count = threads.div_ceil(w);
        self.groupshared.reset(p.groupshared_bytes as usize);
        if self.waves.len() < wave_count {
            self.waves.resize_with(wave_count, || Wave {
                pc: 0,
                cur: 0,
                parked: 0,
                frames: Vec::new(),
                regs: Vec::new(),
                status: Status::Done,
                iterations: 0,
                index: 0,
                group_waves: 0,
                group_id: [0; 3],
                launch: 0,
                undefined: Vec::new(),
                constants_filled: false,
            });
        }
        for (index, wave) in self.waves[..wave_count].iter_mut().enumerate() {
            wave.start(ctx, index, threads, group_id);
            wave.group_waves = wave_count as u32;
        }
        if ctx.findings.is_some() {
            self.tracker.reset(p.groupshared_bytes as usize);
        }
        // The order the waves take turns in: by index, or shuffled.
        self.turns.clear();
        self.turns.extend(0..wave_count);
        if let Schedule::Shuffled(seed) = ctx.schedule {
            shuffle(
                &mut self.turns,
                seed ^ u64::from(group).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            );
        }
        loop {
            for t in 0..wave_count {
                let i = self.turns[t];
                if self.waves[i].status == Status::Running {
                    let (waves, gs, scratch, tracker) = (
                        &mut self.waves,
                        &self.groupshared,
                        &mut self.scratch,
                        &mut self.tracker,
                    );
                    if ctx.findings.is_some() {
                        waves[i].run::<true>(ctx, gs, scratch, tracker)?;
                    } else {
                        waves[i].run::<false>(ctx, gs, scratch, tracker)?;
                    }
                }
            }
            self.tracker.epoch += 1;
            if let Some(findings) = ctx.findings {
                check_barrier_agreement(ctx, findings, &self.waves[..wave_count]);
            }
            let mut any_waiting = false;
            for wave in &mut self.waves[..wave_count] {
                if wave.status == Status::AtBarrier {
                    wave.status = Status::Running;
                    any_waiting = true;
                }
            }
            if !any_waiting {
                return Ok(());
            }
        }
    }
}

fn full_mask(n: usize) -> Mask {
    if n >= 128 {
        Mask::MAX
    } else {
        (1u128 << n) - 1
    }
}

impl Wave {
    fn start(&mut self, ctx: &Context, index: usize, threads: usize, group_id: [u32; 3]) {
        let p = ctx.program;
        let w = ctx.wave_size;
        self.regs.resize(p.reg_count as usize * w, 0);
        if !self.constants_filled {
            for &(r, bits) in &p.constants {
                self.reg_mut(r, w).fill(bits);
            }
            self.constants_filled = true;
        }
        self.pc = 0;
        self.frames.clear();
        self.parked = 0;
        self.iterations = 0;
        self.status = Status::Running;
        self.index = index as u32;
        self.group_id = group_id;
        let first = index * w;
        self.cur = full_mask(threads.saturating_sub(first).min(w));
        self.launch = self.cur;
        if ctx.findings.is_some() {
            self.undefined.clear();
            self.undefined.resize(p.reg_count as usize, 0);
        }
        let extent = ctx.group_extent;
        let [x, y, _] = extent;
        for (sv, regs, ty) in &p.inputs {
            for lane in 0..w {
                let gi = (first + lane) as u32;
                let gtid = [gi % x, (gi / x) % y, gi / (x * y)];
                let value = |c: usize| match sv {
                    SystemValue::GroupIndex => gi,
                    SystemValue::GroupThreadId => gtid[c],
                    SystemValue::GroupId => group_id[c],
                    SystemValue::DispatchThreadId => {
                        group_id[c].wrapping_mul(extent[c]).wrapping_add(gtid[c])
                    }
                };
                for (c, reg) in regs.iter().enumerate() {
                    let bits = crate::value::convert_bits(
                        u64::from(value(c.min(2))),
                        ScalarType::UInt32,
                        *ty,
                    );
                    self.regs[reg.0 as usize * w + lane] = bits;
                }
            }
        }
    }

    fn reg(&self, r: Reg, w: usize) -> &[u64] {
        let start = r.0 as usize * w;
        &self.regs[start..start + w]
    }

    fn reg_mut(&mut self, r: Reg, w: usize) -> &mut [u64] {
        let start = r.0 as usize * w;
        &mut self.regs[start..start + w]
    }

    /// Calls `f` with the destination register (mutable) and the source
    /// registers. Sources are borrowed in place when none of them is the
    /// destination, and copied to `scratch` otherwise.
    fn with_operands<const N: usize>(
        &mut self,
        w: usize,
        dst: Reg,
        srcs: [Reg; N],
        scratch: &mut [u64],
        f: impl FnOnce(&mut [u64], [&[u64]; N]),
    ) {
        let d = dst.0 as usize;
        if srcs.iter().all(|s| s.0 as usize != d) {
            let (below, rest) = self.regs.split_at_mut(d * w);
            let (dst_lanes, above) = rest.split_at_mut(w);
            let (below, above) = (&*below, &*above);
            let operands = srcs.map(|s| {
                let i = s.0 as usize;
                if i < d {
                    &below[i * w..i * w + w]
                } else {
                    &above[(i - d - 1) * w..(i - d) * w]
                }
            });
            f(dst_lanes, operands);
        } else {
            let mut chunks = scratch.chunks_mut(w);
            let mut copies: [&[u64]; N] = [&[]; N];
            for (copy, s) in copies.iter_mut().zip(srcs) {
                let chunk = chunks.next().expect("scratch holds every operand");
                chunk.copy_from_slice(self.reg(s, w));
                *copy = chunk;
            }
            let start = d * w;
            f(&mut self.regs[start..start + w], copies);
        }
    }

    /// The active lanes, in ascending order.
    fn lanes(&self, w: usize) -> impl Iterator<Item = usize> + use<> {
        let mut cur = self.cur & full_mask(w);
        std::iter::from_fn(move || {
            if cur == 0 {
                return None;
            }
            let l = cur.trailing_zeros() as usize;
            cur &= cur - 1;
            Some(l)
        })
    }

    /// Runs until the wave finishes or reaches a barrier.
    /// `CHECKED` compiles the checks of checked mode in or out, so a
    /// normal run carries none of them.
    fn run<const CHECKED: bool>(
        &mut self,
        ctx: &Context,
        gs: &Memory,
        scratch: &mut [u64],
        tracker: &mut SharedTracker,
    ) -> Result<(), ExecError> {
        let code = &ctx.program.code;
        let w = ctx.wave_size;
        loop {
            let inst = &code[self.pc];
            self.pc += 1;
            if let Some(findings) = ctx.findings.filter(|_| CHECKED) {
                self.track_undefined(ctx, findings, inst);
            }
            match *inst {
                Inst::Const { dst, bits } => self.reg_mut(dst, w).fill(bits),
                Inst::Uninitialized { dst } => self.reg_mut(dst, w).fill(0),
                Inst::Unary { f, dst, a } => {
                    self.with_operands(w, dst, [a], scratch, |d, [a]| f(d, a))
                }
                Inst::Binary { f, dst, a, b } => {
                    self.with_operands(w, dst, [a, b], scratch, |d, [a, b]| f(d, a, b))
                }
                Inst::Ternary { f, dst, a, b, c } => {
                    self.with_operands(w, dst, [a, b, c], scratch, |d, [a, b, c]| f(d, a, b, c))
                }
                Inst::Copy { dst, src } => {
                    self.with_operands(w, dst, [src], scratch, |d, [s]| d.copy_from_slice(s))
                }
                Inst::CopyMasked { dst, src } => {
                    let cur = self.cur;
                    self.with_operands(w, dst, [src], scratch, |d, [s]| {
                        if cur == full_mask(w) {
                            d.copy_from_slice(s);
                        } else {
                            blend(d, s, cur);
                        }
                    })
                }
                Inst::Select { dst, cond, a, b } => {
                    self.with_operands(w, dst, [cond, a, b], scratch, |d, [c, a, b]| {
                        for (l, d) in d.iter_mut().enumerate() {
                            *d = if c[l] != 0 { a[l] } else { b[l] };
                        }
                    })
                }
                Inst::IndexScale {
                    dst,
                    index,
                    index_ty,
                    scale,
                    base,
                } => {
                    for l in 0..w {
                        let raw = self.regs[index.0 as usize * w + l];
                        let idx = if index_ty.is_signed() && index_ty.is_integer() {
                            sign_extend(raw, index_ty.bits())
                        } else {
                            raw
                        };
                        let b = base.map_or(0, |b| self.regs[b.0 as usize * w + l]);
                        self.regs[dst.0 as usize * w + l] = b.wrapping_add(idx.wrapping_mul(scale));
                    }
                }
                Inst::Gather {
                    dst,
                    base,
                    delta,
                    limit,
                } => {
                    for l in 0..w {
                        let d = self.regs[delta.0 as usize * w + l];
                        let v = if d < u64::from(limit) {
                            self.regs[(base.0 as usize + d as usize) * w + l]
                        } else {
                            0
                        };
                        self.regs[dst.0 as usize * w + l] = v;
                    }
                }
                Inst::Scatter {
                    base,
                    delta,
                    limit,
                    src,
                } => {
                    for l in self.lanes(w) {
                        let d = self.regs[delta.0 as usize * w + l];
                        if d < u64::from(limit) {
                            self.regs[(base.0 as usize + d as usize) * w + l] =
                                self.regs[src.0 as usize * w + l];
                        }
                    }
                }
                Inst::TexelAddress {
                    dst,
                    resource,
                    coords,
                    count,
                    level,
                    texel_size,
                } => {
                    let dims = ctx
                        .resources
                        .get(resource.index())
                        .map_or([0; 3], |b| b.dims);
                    let count = usize::from(count).min(3);
                    for l in 0..w {
                        let at = |r: Reg| self.regs[r.0 as usize * w + l] & 0xFFFF_FFFF;
                        let xyz = coords.map(at);
                        self.regs[dst.0 as usize * w + l] = if level.is_none_or(|r| at(r) == 0) {
                            texel_offset(&xyz[..count], dims, texel_size)
                        } else {
                            TEXEL_OUT_OF_RANGE
                        };
                    }
                }
                Inst::Load { dst, addr, ty } => {
                    if let Some(findings) = ctx.findings.filter(|_| CHECKED) {
                        self.check_access(ctx, findings, tracker, gs, addr, ty, Access::Read);
                    }
                    let mem = memory(ctx, gs, addr.space);
                    for l in self.lanes(w) {
                        let at = self.address(addr, l, w);
                        self.regs[dst.0 as usize * w + l] = mem.load(at, ty);
                    }
                }
                Inst::Store { addr, ty, src } => {
                    if let Some(findings) = ctx.findings.filter(|_| CHECKED) {
                        self.check_access(ctx, findings, tracker, gs, addr, ty, Access::Write);
                    }
                    let mem = memory(ctx, gs, addr.space);
                    for l in self.lanes(w) {
                        let at = self.address(addr, l, w);
                        mem.store(at, ty, self.regs[src.0 as usize * w + l]);
                    }
                }
                Inst::CheckDivisor { divisor } => {
                    if let Some(findings) = ctx.findings.filter(|_| CHECKED) {
                        let zero = self
                            .lanes(w)
                            .filter(|&l| self.regs[divisor.0 as usize * w + l] == 0)
                            .fold(0, |m: Mask, l| m | 1 << l);
                        if zero != 0 {
                            findings.record(
                                FindingKind::DivisionByZero,
                                self.site(ctx),
                                zero,
                                || "integer division by zero".to_string(),
                            );
                        }
                    }
                }
                Inst::Atomic {
                    op,
                    ty,
                    addr,
                    dst,
                    a,
                    b,
                } => {
                    if let Some(findings) = ctx.findings.filter(|_| CHECKED) {
                        self.check_access(ctx, findings, tracker, gs, addr, ty, Access::Atomic);
                    }
                    self.atomic(ctx, gs, op, ty, addr, [dst, a, b])
                }
                Inst::Query {
                    dst,
                    resource,
                    query,
                } => {
                    let bound = ctx.resources.get(resource.index());
                    let len = bound.map_or(0, |b| b.memory.len());
                    let dims = bound.map_or([0; 3], |b| b.dims);
                    let stride =
                        u64::from(Ord::max(ctx.program.element_strides[resource.index()], 1));
                    let value = match query {
                        ResourceQuery::ElementCount => len / stride,
                        ResourceQuery::Stride => stride,
                        ResourceQuery::ByteSize => len,
                        ResourceQuery::Width => u64::from(dims[0]),
                        ResourceQuery::Height => u64::from(dims[1]),
                        ResourceQuery::Depth | ResourceQuery::Elements => u64::from(dims[2]),
                        ResourceQuery::Levels => 1,
                    };
                    self.reg_mut(dst, w).fill(value & 0xFFFF_FFFF);
                }
                Inst::Wave { op, ty, dst, a, b } => {
                    if let Some(findings) = ctx.findings.filter(|_| CHECKED) {
                        self.check_wave_op(ctx, findings, op, b);
                    }
                    self.wave_op(op, ty, dst, [a, b], w, ctx.order, scratch)
                }
                Inst::Wave4 { op, ty, dst, a } => self.wave4(op, ty, dst, a, w),
                Inst::MultiPrefix {
                    op,
                    ty,
                    dst,
                    a,
                    mask,
                } => self.multi_prefix(ctx, op, ty, dst, a, mask),
                Inst::IfBegin { cond, else_pc } => {
                    let c = self.mask_of(cond, w);
                    self.frames.push(Frame {
                        entry: self.cur,
                        aux: self.cur & !c,
                        ..Frame::default()
                    });
                    self.cur &= c;
                    if self.cur == 0 {
                        self.pc = else_pc as usize;
                    }
                }
                Inst::Else { end_pc } => {
                    let frame = self.top();
                    self.cur = frame.aux & !self.parked;
                    if self.cur == 0 {
                        self.pc = end_pc as usize;
                    }
                }
                Inst::IfEnd => {
                    let frame = self.pop();
                    self.cur = frame.entry & !self.parked;
                }
                Inst::LoopBegin => self.frames.push(Frame {
                    entry: self.cur,
                    ..Frame::default()
                }),
                Inst::LoopIter { exit_pc, span } => {
                    if self.cur == 0 {
                        self.pc = exit_pc as usize;
                        continue;
                    }
                    self.iterations += 1;
                    if self.iterations > ctx.step_budget {
                        return Err(ExecError::new(
                            format!("loop exceeded the step budget of {} iterations in one wave", ctx.step_budget),
                            Some(span),
                        )
                        .with_note("the loop may never end; raise the budget with --max-steps if it is meant to run this long"));
                    }
                    let cur = self.cur;
                    self.frames.last_mut().expect("loop frame").aux = cur;
                }
                Inst::LoopContinuing => {
                    let frame = self.frames.last_mut().expect("loop frame");
                    let continued = std::mem::take(&mut frame.continued);
                    let iteration = frame.aux;
                    self.parked &= !continued;
                    self.cur = iteration & !self.parked;
                }
                Inst::Jump { target } => self.pc = target as usize,
                Inst::LoopEnd | Inst::SwitchEnd | Inst::CallEnd => {
                    let frame = self.pop();
                    self.parked &= !frame.exited;
                    self.cur = frame.entry & !self.parked;
                }
                Inst::SwitchBegin => {
                    self.frames.push(Frame {
                        entry: self.cur,
                        ..Frame::default()
                    });
                    self.cur = 0;
                }
                Inst::SwitchCase {
                    selector,
                    selector_ty,
                    ref values,
                    ref default_all,
                } => {
                    let entry = self.top().entry;
                    let mut selected: Mask = 0;
                    for l in 0..w {
                        if entry >> l & 1 == 0 {
                            continue;
                        }
                        let raw = self.regs[selector.0 as usize * w + l];
                        let v = if selector_ty.is_signed() {
                            sign_extend(raw, selector_ty.bits())
                        } else {
                            raw
                        };
                        let hit = match default_all {
                            Some(all) => !all.contains(&v),
                            None => values.contains(&v),
                        };
                        if hit {
                            selected |= 1 << l;
                        }
                    }
                    self.cur = (self.cur | selected) & !self.parked;
                }
                Inst::CallBegin => self.frames.push(Frame {
                    entry: self.cur,
                    ..Frame::default()
                }),
                Inst::Break { frame } | Inst::Return { frame } => {
                    let cur = self.cur;
                    self.frames[frame as usize].exited |= cur;
                    self.parked |= cur;
                    self.cur = 0;
                }
                Inst::Continue { frame } => {
                    let cur = self.cur;
                    self.frames[frame as usize].continued |= cur;
                    self.parked |= cur;
                    self.cur = 0;
                }
                Inst::Barrier => {
                    if self.cur != 0 {
                        if let Some(findings) = ctx.findings.filter(|_| CHECKED) {
                            self.check_barrier(ctx, findings);
                        }
                        self.status = Status::AtBarrier;
                        return Ok(());
                    }
                }
                Inst::Exit => {
                    self.status = Status::Done;
                    return Ok(());
                }
            }
        }
    }

    fn top(&self) -> Frame {
        self.frames.last().copied().unwrap_or_default()
    }

    fn pop(&mut self) -> Frame {
        self.frames.pop().unwrap_or_default()
    }

    fn mask_of(&self, r: Reg, w: usize) -> Mask {
        nonzero_lanes(self.reg(r, w))
    }

    fn address(&self, addr: Address, lane: usize, w: usize) -> u64 {
        let base = addr
            .dynamic
            .map_or(0, |r| self.regs[r.0 as usize * w + lane]);
        base.wrapping_add(u64::from(addr.offset))
    }

    fn atomic(
        &mut self,
        ctx: &Context,
        gs: &Memory,
        op: AtomicOp,
        ty: ScalarType,
        addr: Address,
        [dst, a, b]: [Reg; 3],
    ) {
        let w = ctx.wave_size;
        let mem = memory(ctx, gs, addr.space);
        for l in self.lanes(w) {
            let at = self.address(addr, l, w);
            let x = self.regs[a.0 as usize * w + l];
            let y = self.regs[b.0 as usize * w + l];
            self.regs[dst.0 as usize * w + l] = mem.atomic(at, ty, op, x, y);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn wave_op(
        &mut self,
        op: WaveOp,
        ty: ScalarType,
        dst: Reg,
        [a, b]: [Reg; 2],
        w: usize,
        order: ReductionOrder,
        scratch: &mut [u64],
    ) {
        let mask = self.cur;
        let out = &mut scratch[..w];
        match op {
            WaveOp::IsFirstLane => {
                out.fill(0);
                if mask != 0 {
                    out[mask.trailing_zeros() as usize] = 1;
                }
            }
            WaveOp::GetLaneCount => out.fill(w as u64),
            WaveOp::GroupWaveIndex => out.fill(u64::from(self.index)),
            WaveOp::GroupWaveCount => out.fill(u64::from(self.group_waves)),
            WaveOp::GetLaneIndex => {
                for (l, o) in out.iter_mut().enumerate() {
                    *o = l as u64;
                }
            }
            _ => {
                let src = self.reg(a, w);
                if order != ReductionOrder::Ascending || !fast_wave_op(op, ty, src, mask, out) {
                    let other = self.reg(b, w);
                    with_scalar!(ty, T => lane_op::<T>(op, decode::<T>(src).as_slice(w), other, mask, out, order))
                }
            }
        }
        self.reg_mut(dst, w).copy_from_slice(out);
    }

    fn wave4(&mut self, op: WaveOp, ty: ScalarType, dst: [Reg; 4], a: Reg, w: usize) {
        let mask = self.cur;
        let src = self.reg(a, w);
        if op == WaveOp::Ballot {
            // One ballot for the whole wave.
            let ballot = nonzero_lanes(src) & mask;
            for (k, r) in dst.iter().enumerate() {
                self.reg_mut(*r, w)
                    .fill(u64::from((ballot >> (32 * k)) as u32));
            }
            return;
        }
        if op == WaveOp::Match {
            // Lanes grouped by value, one pass per distinct value. Registers
            // hold each value's canonical bits, so equal bits are the same
            // value as `Lane::same_value` defines it.
            let mut groups = [0 as Mask; 128];
            let mut left = mask;
            while left != 0 {
                let v = src[left.trailing_zeros() as usize];
                let same = lanes_equal_to(src, v) & mask;
                let mut m = same;
                while m != 0 {
                    groups[m.trailing_zeros() as usize] = same;
                    m &= m - 1;
                }
                left &= !same;
            }
            // Inactive lanes (undefined): the active lanes with their value,
            // and themselves.
            let mut inactive = full_mask(w) & !mask;
            while inactive != 0 {
                let l = inactive.trailing_zeros() as usize;
                groups[l] = (lanes_equal_to(src, src[l]) & mask) | 1 << l;
                inactive &= inactive - 1;
            }
            for (k, r) in dst.iter().enumerate() {
                let out = self.reg_mut(*r, w);
                for (o, g) in out.iter_mut().zip(&groups) {
                    *o = u64::from((g >> (32 * k)) as u32);
                }
            }
            return;
        }
        let mut words = [[0u32; 4]; 128];
        match op {
            WaveOp::Ballot => {
                let vals = decode::<bool>(src);
                let ballot = wave::active_ballot(vals.as_slice(w), mask);
                words[..w].fill(ballot);
            }
            _ => with_scalar!(ty, T => {
                let vals = decode::<T>(src);
                for (l, word) in words[..w].iter_mut().enumerate() {
                    *word = wave::match_mask(vals.as_slice(w), mask, l);
                }
            }),
        }
        for (k, r) in dst.iter().enumerate() {
            let out = self.reg_mut(*r, w);
            for (l, o) in out.iter_mut().enumerate() {
                *o = u64::from(words[l][k]);
            }
        }
    }

    fn multi_prefix(
        &mut self,
        ctx: &Context,
        op: WaveOp,
        ty: ScalarType,
        dst: Reg,
        a: Reg,
        mask_regs: [Reg; 4],
    ) {
        let w = ctx.wave_size;
        let mask = self.cur;
        let partition: Vec<[u32; 4]> = (0..w)
            .map(|l| std::array::from_fn(|k| self.reg(mask_regs[k], w)[l] as u32))
            .collect();
        if let Some(findings) = ctx.findings {
            self.check_partition(ctx, findings, &partition);
        }
        let src = self.reg(a, w);
        let mut out = [0u64; 128];
        let out = &mut out[..w];
        if op == WaveOp::MultiPrefixCountBits {
            let vals = decode::<bool>(src);
            for (l, o) in out.iter_mut().enumerate() {
                *o = u64::from(wave::multi_prefix_count_bits(
                    vals.as_slice(w),
                    mask,
                    &partition,
                    l,
                ));
            }
        } else {
            with_arith!(ty, T => {
                let vals = decode::<T>(src);
                for (l, o) in out.iter_mut().enumerate() {
                    *o = multi_prefix_lane::<T>(op, vals.as_slice(w), mask, &partition, l, ctx.order).to_lane();
                }
            }, ())
        }
        self.reg_mut(dst, w).copy_from_slice(out);
    }
}

/// The lanes where `pred` holds, built 64 lanes at a time.
#[inline(always)]
fn lanes_where(src: &[u64], pred: impl Fn(u64) -> bool) -> Mask {
    let mut mask: Mask = 0;
    for (c, chunk) in src.chunks(64).enumerate() {
        let mut bits = 0u64;
        for (j, &v) in chunk.iter().enumerate() {
            bits |= u64::from(pred(v)) << j;
        }
        mask |= Mask::from(bits) << (64 * c);
    }
    mask
}

/// The lanes whose register value is not zero.
fn nonzero_lanes(src: &[u64]) -> Mask {
    lanes_where(src, |v| v != 0)
}

/// The lanes whose register holds `v`.
fn lanes_equal_to(src: &[u64], v: u64) -> Mask {
    lanes_where(src, |x| x == v)
}

/// `d[l] = s[l]` on the lanes of `mask`, without a branch per lane.
fn blend(d: &mut [u64], s: &[u64], mask: Mask) {
    for (c, (d, s)) in d.chunks_mut(64).zip(s.chunks(64)).enumerate() {
        let bits = (mask >> (64 * c)) as u64;
        for (j, (d, &s)) in d.iter_mut().zip(s).enumerate() {
            let keep = 0u64.wrapping_sub((bits >> j) & 1);
            *d = (*d & !keep) | (s & keep);
        }
    }
}

/// The common wave ops straight on register lanes, without decoding the
/// wave into a value array: the same results as `lane_op` with ascending
/// order (the property tests compare both with lockstep-wave). `false`
/// when `op` has no fast path.
fn fast_wave_op(op: WaveOp, ty: ScalarType, src: &[u64], mask: Mask, out: &mut [u64]) -> bool {
    match op {
        WaveOp::AnyTrue | WaveOp::AllTrue | WaveOp::CountBits | WaveOp::PrefixCountBits
            if ty == ScalarType::Bool =>
        {
            let ballot = nonzero_lanes(src) & mask;
            match op {
                WaveOp::AnyTrue => out.fill(u64::from(ballot != 0)),
                WaveOp::AllTrue => out.fill(u64::from(ballot == mask)),
                WaveOp::CountBits => out.fill(u64::from(ballot.count_ones())),
                _ => {
                    for (l, o) in out.iter_mut().enumerate() {
                        *o = u64::from((ballot & ((1 << l) - 1)).count_ones());
                    }
                }
            }
            true
        }
        WaveOp::ReadLaneFirst => {
            // Registers hold canonical bits: the first active lane's bits
            // are its value's; 0 (the default value) when none is active.
            out.fill(if mask != 0 {
                src[mask.trailing_zeros() as usize]
            } else {
                0
            });
            true
        }
        WaveOp::Sum
        | WaveOp::Product
        | WaveOp::Min
        | WaveOp::Max
        | WaveOp::PrefixSum
        | WaveOp::PrefixProduct => with_arith!(ty, T => fast_arith::<T>(op, src, mask, out), false),
        _ => false,
    }
}

/// Sums, products, minimums and maximums, and the prefix sum and product,
/// folded in ascending lane order as lockstep-wave does.
fn fast_arith<T: Val + Arith>(op: WaveOp, src: &[u64], mask: Mask, out: &mut [u64]) -> bool {
    let (f, identity): (fn(T, T) -> T, T) = match op {
        WaveOp::Sum | WaveOp::PrefixSum => (T::add, T::ZERO),
        WaveOp::Product | WaveOp::PrefixProduct => (T::mul, T::ONE),
        WaveOp::Min => (<T as Arith>::min, T::HIGHEST),
        WaveOp::Max => (<T as Arith>::max, T::LOWEST),
        _ => return false,
    };
    let mut acc: Option<T> = None;
    if matches!(op, WaveOp::PrefixSum | WaveOp::PrefixProduct) {
        for (l, o) in out.iter_mut().enumerate() {
            *o = acc.unwrap_or(identity).to_lane();
            if mask >> l & 1 == 1 {
                let v = T::from_lane(src[l]);
                acc = Some(acc.map_or(v, |a| f(a, v)));
            }
        }
    } else {
        let mut m = mask;
        while m != 0 {
            let v = T::from_lane(src[m.trailing_zeros() as usize]);
            acc = Some(acc.map_or(v, |a| f(a, v)));
            m &= m - 1;
        }
        out.fill(acc.unwrap_or(identity).to_lane());
    }
    true
}

fn multi_prefix_lane<T: Val + Arith + MaybeBits>(
    op: WaveOp,
    v: &[T],
    mask: Mask,
    p: &[[u32; 4]],
    l: usize,
    order: ReductionOrder,
) -> T {
    let sum = op == WaveOp::MultiPrefixSum;
    if order != ReductionOrder::Ascending && (sum || op == WaveOp::MultiPrefixProduct) {
        let group = wave::ballot_to_mask(p[l]) & mask;
        let below: Vec<T> = (0..l)
            .filter(|k| group >> k & 1 == 1)
            .map(|k| v[k])
            .collect();
        let identity = if sum { T::ZERO } else { T::ONE };
        return combine(&below, order, &|a: T, b: T| {
            if sum { a.add(b) } else { a.mul(b) }
        })
        .unwrap_or(identity);
    }
    match op {
        WaveOp::MultiPrefixSum => wave::multi_prefix_sum(v, mask, p, l),
        WaveOp::MultiPrefixProduct => wave::multi_prefix_product(v, mask, p, l),
        _ => T::multi_bits(op, v, mask, p, l).unwrap_or(T::ZERO),
    }
}

/// The byte offset of the texel at `coords` (x, y, z; as many as the
/// texture has) in a texture of `dims` texels: `((z * height + y) * width +
/// x) * texel_size`, or [`TEXEL_OUT_OF_RANGE`] when any coordinate is at or
/// past its own dimension.
fn texel_offset(coords: &[u64], dims: [u32; 3], texel_size: u32) -> u64 {
    let mut index: u128 = 0;
    for (&c, d) in coords.iter().zip(dims).rev() {
        let (c, d) = (u128::from(c), u128::from(d));
        if c >= d {
            return TEXEL_OUT_OF_RANGE;
        }
        index = index * d + c;
    }
    u64::try_from(index * u128::from(texel_size))
        .ok()
        .filter(|&offset| offset < TEXEL_OUT_OF_RANGE)
        .unwrap_or(TEXEL_OUT_OF_RANGE)
}

fn sign_extend(raw: u64, bits: u32) -> u64 {
    if bits >= 64 {
        raw
    } else {
        let shift = 64 - bits;
        (((raw << shift) as i64) >> shift) as u64
    }
}

fn memory<'a>(ctx: &'a Context, gs: &'a Memory, space: Space) -> &'a Memory {
    match space {
        Space::Groupshared => gs,
        Space::Resource(id) => ctx.resources[id.index()].memory,
    }
}

/// Lane values decoded from a register into their Rust type.
struct Decoded<T> {
    vals: [T; 128],
}

impl<T: Copy> Decoded<T> {
    fn as_slice(&self, w: usize) -> &[T] {
        &self.vals[..w]
    }
}

fn decode<T: Val>(src: &[u64]) -> Decoded<T> {
    let mut vals = [T::default(); 128];
    for (v, &b) in vals.iter_mut().zip(src) {
        *v = T::from_lane(b);
    }
    Decoded { vals }
}

/// Bitwise operations where the type has them: lets one generic function
/// serve every wave op while bit ops exist only for integers.
trait MaybeBits: Sized {
    fn reduce_bits(op: WaveOp, v: &[Self], mask: Mask) -> Option<Self>;
    fn multi_bits(op: WaveOp, v: &[Self], mask: Mask, p: &[[u32; 4]], l: usize) -> Option<Self>;
}

macro_rules! maybe_bits {
    (yes: $($t:ty),*; no: $($n:ty),*) => {
        $(impl MaybeBits for $t {
            fn reduce_bits(op: WaveOp, v: &[Self], mask: Mask) -> Option<Self> {
                Some(match op {
                    WaveOp::BitAnd => wave::active_bit_and(v, mask),
                    WaveOp::BitOr => wave::active_bit_or(v, mask),
                    WaveOp::BitXor => wave::active_bit_xor(v, mask),
                    _ => return None,
                })
            }
            fn multi_bits(op: WaveOp, v: &[Self], mask: Mask, p: &[[u32; 4]], l: usize) -> Option<Self> {
                Some(match op {
                    WaveOp::MultiPrefixBitAnd => wave::multi_prefix_bit_and(v, mask, p, l),
                    WaveOp::MultiPrefixBitOr => wave::multi_prefix_bit_or(v, mask, p, l),
                    WaveOp::MultiPrefixBitXor => wave::multi_prefix_bit_xor(v, mask, p, l),
                    _ => return None,
                })
            }
        })*
        $(impl MaybeBits for $n {
            fn reduce_bits(_: WaveOp, _: &[Self], _: Mask) -> Option<Self> { None }
            fn multi_bits(_: WaveOp, _: &[Self], _: Mask, _: &[[u32; 4]], _: usize) -> Option<Self> { None }
        })*
    };
}
maybe_bits!(yes: i16, u16, i32, u32, i64, u64; no: bool, half::f16, f32, f64);

/// Arithmetic where the type has it (all but `bool`).
trait MaybeArith: Sized {
    fn reduce(op: WaveOp, v: &[Self], mask: Mask, out: &mut [u64], order: ReductionOrder) -> bool;
}

impl MaybeArith for bool {
    fn reduce(_: WaveOp, _: &[bool], _: Mask, _: &mut [u64], _: ReductionOrder) -> bool {
        false
    }
}

/// Combines `vals` (in lane order) in `order`; `None` when empty.
fn combine<T: Copy>(vals: &[T], order: ReductionOrder, f: &impl Fn(T, T) -> T) -> Option<T> {
    match order {
        ReductionOrder::Ascending => vals.iter().copied().reduce(f),
        ReductionOrder::Descending => vals.iter().rev().copied().reduce(f),
        ReductionOrder::Tree => match vals.len() {
            0 => None,
            1 => Some(vals[0]),
            n => {
                let mid = n.next_power_of_two() / 2;
                Some(f(
                    combine(&vals[..mid], order, f)?,
                    combine(&vals[mid..], order, f)?,
                ))
            }
        },
    }
}

/// A sum or product, reduction or exclusive scan, that combines the active
/// lanes in `order` instead of the default left fold.
fn reordered<T: Val + Arith>(
    op: WaveOp,
    v: &[T],
    mask: Mask,
    out: &mut [u64],
    order: ReductionOrder,
) -> bool {
    let sum = matches!(op, WaveOp::Sum | WaveOp::PrefixSum);
    if !sum && !matches!(op, WaveOp::Product | WaveOp::PrefixProduct) {
        return false;
    }
    let f = |a: T, b: T| if sum { a.add(b) } else { a.mul(b) };
    let identity = if sum { T::ZERO } else { T::ONE };
    let active: Vec<(usize, T)> = (0..v.len())
        .filter(|l| mask >> l & 1 == 1)
        .map(|l| (l, v[l]))
        .collect();
    if matches!(op, WaveOp::Sum | WaveOp::Product) {
        let values: Vec<T> = active.iter().map(|&(_, x)| x).collect();
        out.fill(combine(&values, order, &f).unwrap_or(identity).to_lane());
    } else {
        for (l, o) in out.iter_mut().enumerate() {
            let below: Vec<T> = active
                .iter()
                .filter(|&&(k, _)| k < l)
                .map(|&(_, x)| x)
                .collect();
            *o = combine(&below, order, &f).unwrap_or(identity).to_lane();
        }
    }
    true
}

macro_rules! maybe_arith {
    ($($t:ty),*) => {$(
        impl MaybeArith for $t {
            fn reduce(op: WaveOp, v: &[Self], mask: Mask, out: &mut [u64], order: ReductionOrder) -> bool {
                if order != ReductionOrder::Ascending && reordered(op, v, mask, out, order) {
                    return true;
                }
                let uniform = match op {
                    WaveOp::Sum => wave::active_sum(v, mask),
                    WaveOp::Product => wave::active_product(v, mask),
                    WaveOp::Min => wave::active_min(v, mask),
                    WaveOp::Max => wave::active_max(v, mask),
                    WaveOp::PrefixSum | WaveOp::PrefixProduct => {
                        let mut tmp = [<$t as Arith>::ZERO; 128];
                        let tmp = &mut tmp[..v.len()];
                        if op == WaveOp::PrefixSum {
                            wave::prefix_sum_wave(v, mask, tmp);
                        } else {
                            wave::prefix_product_wave(v, mask, tmp);
                        }
                        for (o, x) in out.iter_mut().zip(tmp.iter()) {
                            *o = x.to_lane();
                        }
                        return true;
                    }
                    _ => match <$t as MaybeBits>::reduce_bits(op, v, mask) {
                        Some(x) => x,
                        None => return false,
                    },
                };
                out.fill(uniform.to_lane());
                true
            }
        }
    )*};
}
maybe_arith!(i16, u16, i32, u32, i64, u64, half::f16, f32, f64);

/// The per-component wave ops shared by every type.
fn lane_op<T: Val + Lane + MaybeArith>(
    op: WaveOp,
    v: &[T],
    other: &[u64],
    mask: Mask,
    out: &mut [u64],
    order: ReductionOrder,
) {
    let w = v.len();
    match op {
        WaveOp::AnyTrue | WaveOp::AllTrue | WaveOp::CountBits | WaveOp::PrefixCountBits => {
            let mut b = [false; 128];
            for (b, x) in b.iter_mut().zip(v) {
                *b = x.to_lane() != 0;
            }
            let b = &b[..w];
            match op {
                WaveOp::AnyTrue => out.fill(u64::from(wave::active_any_true(b, mask))),
                WaveOp::AllTrue => out.fill(u64::from(wave::active_all_true(b, mask))),
                WaveOp::CountBits => out.fill(u64::from(wave::active_count_bits(b, mask))),
                _ => {
                    let mut counts = [0u32; 128];
                    wave::prefix_count_bits_wave(b, mask, &mut counts[..w]);
                    for (o, c) in out.iter_mut().zip(counts) {
                        *o = u64::from(c);
                    }
                }
            }
        }
        WaveOp::ReadLaneFirst => {
            let first = wave::read_lane_first(v, mask).unwrap_or_default();
            out.fill(first.to_lane());
        }
        WaveOp::ReadLaneAt => {
            for (o, &idx) in out.iter_mut().zip(other) {
                *o = wave::read_lane_at(v, idx as u32).to_lane();
            }
        }
        WaveOp::AllEqual => out.fill(u64::from(wave::active_all_equal(v, mask))),
        WaveOp::QuadReadAcrossX
        | WaveOp::QuadReadAcrossY
        | WaveOp::QuadReadAcrossDiagonal
        | WaveOp::QuadReadLaneAt => {
            for (l, o) in out.iter_mut().enumerate() {
                let x = match op {
                    WaveOp::QuadReadAcrossX => wave::quad_read_across_x(v, l),
                    WaveOp::QuadReadAcrossY => wave::quad_read_across_y(v, l),
                    WaveOp::QuadReadAcrossDiagonal => wave::quad_read_across_diagonal(v, l),
                    _ => wave::quad_read_lane_at(v, l, other[l] as u32),
                };
                *o = x.to_lane();
            }
        }
        WaveOp::QuadAny | WaveOp::QuadAll => {
            for (l, o) in out.iter_mut().enumerate() {
                let quad = l & !3;
                let bits = (quad..(quad + 4).min(w))
                    .filter(|&q| mask >> q & 1 == 1)
                    .map(|q| v[q].to_lane() != 0);
                let r = if op == WaveOp::QuadAny {
                    bits.clone().any(|b| b)
                } else {
                    bits.clone().all(|b| b)
                };
                *o = u64::from(r);
            }
        }
        _ => {
            let _ = T::reduce(op, v, mask, out, order);
        }
    }
}
