//! The interpreter: runs the waves of a group over their bytecode, pausing
//! them at barriers, and runs groups in parallel.
//!
//! Control flow follows the execution-mask model of DESIGN.md: `cur` holds
//! the active lanes; every lane that left a construct early (`break`,
//! `continue`, `return`) is recorded in that construct's frame and in
//! `parked`, and comes back when the construct ends. A reconvergence point
//! re-enables exactly the lanes that entered the construct and are not
//! parked by an enclosing one.

use lockstep_ir::{AtomicOp, QuadLayout, ResourceQuery, ScalarType, SystemValue, WaveOp};
use lockstep_wave::{self as wave, Arith, Lane, Mask};

mod checked;
mod deferred;
mod traced;

use checked::check_barrier_agreement;
pub(crate) use checked::shuffle;
pub(crate) use deferred::Deferred;

use crate::BoundResource;
use crate::bytecode::{
    Address, Block32, Cmp32, Inst, Lanes, Reg, Slot32Kind, Space, TEXEL_OUT_OF_RANGE, Test, Vote,
};
use crate::check::{Access, FindingKind, Findings, ReductionOrder, Schedule, SharedTracker};
use crate::compile::Program;
use crate::memory::{self, Memory};
use crate::value::Val;
use crate::{ExecError, with_arith, with_int, with_scalar};

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
    /// A batch's wave reached a barrier where one of its waves has lanes
    /// left but none at the barrier: the batch must go on group by group.
    Split,
    Done,
}

/// One wave's whole state: it can stop at a barrier and resume later.
///
/// In a normal run a `Wave` may hold the same wave of several groups side
/// by side (a batch): its registers are `width` lanes, wave `c` of the
/// batch in lanes `c·W .. (c+1)·W`, and wave ops work on each wave's lanes
/// alone. Control flow is per lane anyway, so each wave sees exactly its
/// own masks; see `Worker::run_batch` for when a batch must split.
pub(crate) struct Wave {
    pc: usize,
    cur: Mask,
    parked: Mask,
    frames: Vec<Frame>,
    regs: Vec<u64>,
    status: Status,
    /// Lanes per register: the wave size times the waves batched.
    width: usize,
    /// Loop iterations run with some lane of the batch active.
    iterations: u64,
    /// Per wave of the batch: how many of those `iterations` it sat out
    /// (no lane of it active), so that it ran `iterations - idle[c]`.
    idle: Vec<u64>,
    /// The batch's waves as fields of its masks.
    segments: Segments,
    /// `lane_mask_for`'s lanes as words, all ones or zero per lane (masked
    /// copies blend with it).
    lane_mask: Vec<u64>,
    lane_mask_for: Option<Mask>,
    /// A `Block32`'s 32-bit slots, `width` lanes each.
    slots: Vec<u32>,
    /// The active lanes as 32-bit words, all ones or zero (exact blocks).
    slot_keep: Vec<u32>,
    /// The wave's index in its group, and the group's wave count.
    index: u32,
    group_waves: u32,
    group_id: [u32; 3],
    /// The lanes that exist (a partial last wave has fewer).
    launch: Mask,
    /// Checked mode: per register, the lanes whose value is undefined.
    undefined: Vec<Mask>,
    /// The lanes the last branch found from its condition, before its
    /// vote, for a branch right after it with the same test
    /// ([`Lanes::Previous`]).
    tested: Mask,
    /// The register width the program's constant registers are filled at
    /// (a worker runs one program, so once per wave slot and width is
    /// enough); 0 when not filled.
    constants_width: usize,
    /// Checked mode: the recording of a traced wave.
    trace: Option<Box<crate::trace::WaveTrace>>,
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
    /// SV_GroupThreadID's x, y and z for every lane of a group, and its
    /// SV_GroupIndex: [`group_thread_ids`].
    pub thread_ids: [Vec<u32>; 4],
    /// Checked mode: where findings go.
    pub findings: Option<&'a Findings>,
    pub order: ReductionOrder,
    pub schedule: Schedule,
    /// Run the interpreter loop compiled for AVX2 (the CPU has it).
    pub avx2: bool,
    /// The program's machine code at this wave size, when the run uses it.
    pub native: Option<&'a crate::native::Native>,
    /// Checked mode: where traced waves record.
    pub trace: Option<&'a crate::trace::TraceSink>,
}

/// Per-worker scratch reused from batch to batch.
pub(crate) struct Worker {
    waves: Vec<Wave>,
    /// One groupshared memory per group of the batch.
    groupshared: Vec<Memory<'static>>,
    scratch: Vec<u64>,
    tracker: SharedTracker,
    turns: Vec<usize>,
    /// The group ids of the batch's groups.
    group_ids: Vec<[u32; 3]>,
    /// Atomic updates held back until the batch ends (or sooner).
    deferred: Deferred,
    /// The state native code runs in, made on first use.
    native: Option<Box<crate::native::NativeWorker>>,
}

/// How a batch's rounds ended.
enum Rounds {
    Finished,
    /// A wave stopped with `Status::Split`.
    Split,
}

impl Worker {
    pub fn new() -> Worker {
        Worker {
            waves: Vec::new(),
            groupshared: Vec::new(),
            scratch: vec![0; 4 * 128],
            tracker: SharedTracker::default(),
            turns: Vec::new(),
            group_ids: Vec::new(),
            deferred: Deferred::default(),
            native: None,
        }
    }

    /// Runs `count` consecutive groups from `first` to completion as one
    /// batch: wave `i` of every group is one `Wave` of `count · W` lanes.
    ///
    /// Within each group this is the order of one group at a time: the
    /// waves of a group take turns in index order, each running to its
    /// next barrier. Only the interleaving between groups differs, and
    /// that is not fixed anyway (groups run in parallel). The one case a
    /// batch cannot follow is a barrier that some group's wave reaches
    /// while another group's same wave, with lanes left, is elsewhere (a
    /// barrier in control flow that differs between groups): then the
    /// batch splits into its groups, each going on alone from where it is.
    pub fn run_batch(&mut self, ctx: &Context, first: u32, count: usize) -> Result<(), ExecError> {
        let [gx, gy, _] = ctx.group_count;
        self.group_ids.clear();
        // Group `first`'s coordinates, then each next one's by counting
        // (no division per group).
        let mut id = [first % gx, (first / gx) % gy, first / (gx * gy)];
        for _ in 0..count {
            self.group_ids.push(id);
            id[0] += 1;
            if id[0] == gx {
                id[0] = 0;
                id[1] += 1;
                if id[1] == gy {
                    id[1] = 0;
                    id[2] += 1;
                }
            }
        }
        self.run_ids(ctx, first)
    }

    /// Runs the groups of linear indices `groups` as one batch of machine
    /// code, in that order (a shuffled schedule's).
    pub(crate) fn run_listed(&mut self, ctx: &Context, groups: &[u32]) -> Result<(), ExecError> {
        let [gx, gy, _] = ctx.group_count;
        self.group_ids.clear();
        self.group_ids.extend(
            groups
                .iter()
                .map(|&g| [g % gx, (g / gx) % gy, g / (gx * gy)]),
        );
        self.run_ids(ctx, groups.first().copied().unwrap_or(0))
    }

    /// Runs the groups of `self.group_ids`, the first of linear index
    /// `first` (which seeds a shuffled schedule's order of waves).
    fn run_ids(&mut self, ctx: &Context, first: u32) -> Result<(), ExecError> {
        let p = ctx.program;
        let w = ctx.wave_size;
        let count = self.group_ids.len();
        // The order the waves take turns in, under a shuffled schedule.
        let seed = match ctx.schedule {
            Schedule::Shuffled(seed) => {
                Some(seed ^ u64::from(first).wrapping_mul(0x9E37_79B9_7F4A_7C15))
            }
            Schedule::InOrder => None,
        };
        let threads = ctx
            .group_extent
            .iter()
            .map(|&n| n as usize)
            .product::<usize>();
        let wave_count = threads.div_ceil(w);
        if self.groupshared.len() < count {
            self.groupshared.resize_with(count, || Memory::zeroed(0));
        }
        for gs in &mut self.groupshared[..count] {
            gs.reset(p.groupshared_bytes as usize);
        }
        if ctx.findings.is_some() {
            self.tracker.reset(p.groupshared_bytes as usize);
        }
        if let Some(native) = ctx.native {
            let worker = self
                .native
                .get_or_insert_with(|| Box::new(crate::native::NativeWorker::new()));
            let ran = worker.run_groups(
                ctx,
                native,
                seed,
                &self.group_ids,
                &self.groupshared[..count],
                &mut self.scratch,
                &mut self.tracker,
                &mut self.deferred,
            );
            self.deferred.apply(ctx.resources, None);
            return ran;
        }
        // The order the waves take turns in: by index, or shuffled.
        self.turns.clear();
        self.turns.extend(0..wave_count);
        if let Some(seed) = seed {
            shuffle(&mut self.turns, seed);
        }
        let ended = if p.barriers || ctx.findings.is_some() {
            if self.waves.len() < wave_count {
                self.waves.resize_with(wave_count, Wave::empty);
            }
            for (index, wave) in self.waves[..wave_count].iter_mut().enumerate() {
                wave.start(ctx, index, threads, &self.group_ids);
                wave.group_waves = wave_count as u32;
            }
            self.rounds_of_batch(ctx, wave_count, count)
        } else {
            self.one_state(ctx, threads, wave_count, count)
        };
        // The held updates are written when the batch ends, however.
        self.deferred.apply(ctx.resources, None);
        ended
    }

    /// Runs the waves of a batch whose program has no barrier: each turn
    /// runs a wave to its end, so one after another they all use one wave
    /// state, and the registers a worker touches are one wave's (the first
    /// level cache holds them), not every wave's of the group.
    fn one_state(
        &mut self,
        ctx: &Context,
        threads: usize,
        wave_count: usize,
        count: usize,
    ) -> Result<(), ExecError> {
        if self.waves.is_empty() {
            self.waves.push(Wave::empty());
        }
        let wave = &mut self.waves[0];
        for &index in &self.turns {
            wave.start(ctx, index, threads, &self.group_ids);
            wave.group_waves = wave_count as u32;
            wave.run::<false>(
                ctx,
                &self.groupshared[..count],
                &mut self.scratch,
                &mut self.tracker,
                &mut self.deferred,
            )?;
            debug_assert_eq!(
                wave.status,
                Status::Done,
                "a wave stopped without a barrier"
            );
        }
        Ok(())
    }

    fn rounds_of_batch(
        &mut self,
        ctx: &Context,
        wave_count: usize,
        count: usize,
    ) -> Result<(), ExecError> {
        let ended = rounds(
            ctx,
            &mut self.waves[..wave_count],
            &self.turns,
            &self.groupshared[..count],
            &mut self.scratch,
            &mut self.tracker,
            &mut self.deferred,
        )?;
        if let Rounds::Split = ended {
            for (c, gs) in self.groupshared[..count].iter().enumerate() {
                let mut waves: Vec<Wave> = self.waves[..wave_count]
                    .iter()
                    .map(|wave| wave.part(ctx, c))
                    .collect();
                rounds(
                    ctx,
                    &mut waves,
                    &self.turns,
                    std::slice::from_ref(gs),
                    &mut self.scratch,
                    &mut self.tracker,
                    &mut self.deferred,
                )?;
            }
        }
        Ok(())
    }
}

/// Runs the waves of a batch in turns until every one is done: each turn
/// runs a wave to its next barrier, and the waves at a barrier go on once
/// every wave has had its turn.
fn rounds(
    ctx: &Context,
    waves: &mut [Wave],
    turns: &[usize],
    gs: &[Memory],
    scratch: &mut [u64],
    tracker: &mut SharedTracker,
    deferred: &mut Deferred,
) -> Result<Rounds, ExecError> {
    loop {
        for &i in turns {
            if waves[i].status == Status::Running {
                if ctx.findings.is_some() {
                    waves[i].run::<true>(ctx, gs, scratch, tracker, deferred)?;
                } else {
                    waves[i].run::<false>(ctx, gs, scratch, tracker, deferred)?;
                }
                if waves[i].status == Status::Split {
                    return Ok(Rounds::Split);
                }
            }
        }
        tracker.epoch += 1;
        if let Some(findings) = ctx.findings {
            check_barrier_agreement(ctx, findings, waves);
        }
        let mut any_waiting = false;
        for wave in waves.iter_mut() {
            if wave.status == Status::AtBarrier {
                wave.status = Status::Running;
                any_waiting = true;
            }
        }
        if !any_waiting {
            return Ok(Rounds::Finished);
        }
    }
}

/// How the error of a loop that ran past the step budget begins.
pub(crate) const BUDGET_ERROR: &str = "loop exceeded the step budget";

/// The error of a loop that ran past the step budget.
pub(crate) fn budget_error(budget: u64, span: Option<lockstep_ir::Span>) -> ExecError {
    ExecError::new(
        format!("{BUDGET_ERROR} of {budget} iterations in one wave"),
        span,
    )
    .with_note(
        "the loop may never end; raise the budget with --max-steps if it is meant to run this long",
    )
}

/// Whether a group of `extent` lays its lanes out in 2×2 blocks of the
/// x-y plane (see [`group_thread_ids`]).
pub(crate) fn in_blocks(extent: [u32; 3], quads: QuadLayout) -> bool {
    let [x, y, _] = extent.map(|d| Ord::max(d, 1));
    quads == QuadLayout::Blocks && x % 2 == 0 && y % 2 == 0
}

/// SV_GroupThreadID's x, y and z components and SV_GroupIndex for the
/// first `threads` lanes of a group of `extent`, the group's lanes in
/// order. Linear quads: lane `l` is group index `l` (x fastest). Blocks:
/// lanes `4q..4q + 4` are the 2×2 block `q` of the x-y plane, blocks in
/// row-major order (see [`QuadLayout::Blocks`]). A partial last wave's
/// missing lanes continue the count.
pub(crate) fn group_thread_ids(
    extent: [u32; 3],
    threads: usize,
    quads: QuadLayout,
) -> [Vec<u32>; 4] {
    let [x, y, z] = extent.map(|d| Ord::max(d, 1));
    let size = x * y * z;
    let blocks = in_blocks(extent, quads);
    let id = |lane: u32| -> [u32; 3] {
        if blocks && lane < size {
            let (quad, corner) = (lane / 4, lane % 4);
            let (across, per_slice) = (x / 2, x * y / 4);
            let (slice, within) = (quad / per_slice, quad % per_slice);
            [
                2 * (within % across) + (corner & 1),
                2 * (within / across) + (corner >> 1),
                slice,
            ]
        } else {
            [lane % x, (lane / x) % y, lane / (x * y)]
        }
    };
    let mut out: [Vec<u32>; 4] = std::array::from_fn(|_| Vec::with_capacity(threads));
    for lane in 0..threads as u32 {
        let [tx, ty, tz] = id(lane);
        let index = if lane < size {
            tx + ty * x + tz * x * y
        } else {
            lane
        };
        for (v, c) in out.iter_mut().zip([tx, ty, tz, index]) {
            v.push(c);
        }
    }
    out
}

/// [`group_thread_ids`] for machine code whose waves have `lanes` lanes
/// at wave size `wave` ([`crate::Program::native_for`]): at 128, the
/// group's first `lanes` threads, one wave; at a smaller size, each wave's
/// threads followed by lanes that never exist. Those hold the wave's
/// first lane's ids with x and the index counting on, so that every chunk
/// of lanes rises as the wave's own lanes do (`native::consecutive`).
pub(crate) fn spread_thread_ids(
    extent: [u32; 3],
    wave: usize,
    lanes: usize,
    quads: QuadLayout,
) -> [Vec<u32>; 4] {
    if wave >= lanes {
        return group_thread_ids(extent, lanes, quads);
    }
    let threads = extent
        .iter()
        .map(|&d| Ord::max(d, 1) as usize)
        .product::<usize>();
    let waves = threads.div_ceil(wave);
    let ids = group_thread_ids(extent, waves * wave, quads);
    std::array::from_fn(|k| {
        let mut out = Vec::with_capacity(waves * lanes);
        for own in ids[k].chunks_exact(wave) {
            out.extend_from_slice(own);
            let step = u32::from(k == 0 || k == 3);
            out.extend((wave..lanes).map(|l| own[0].wrapping_add(step * l as u32)));
        }
        out
    })
}

fn full_mask(n: usize) -> Mask {
    if n >= 128 {
        Mask::MAX
    } else {
        (1u128 << n) - 1
    }
}

/// Wave `c`'s lanes of a batch mask, moved down to lane 0.
#[inline(always)]
fn part_mask(mask: Mask, c: usize, w: usize) -> Mask {
    if w >= 128 {
        return mask;
    }
    // On 64-bit halves: a wave of up to 64 lanes lies within one.
    let bit = c * w;
    let half = if bit >= 64 {
        (mask >> 64) as u64
    } else {
        mask as u64
    };
    let low = if w >= 64 { u64::MAX } else { (1 << w) - 1 };
    Mask::from((half >> (bit % 64)) & low)
}

impl Wave {
    pub(crate) fn empty() -> Wave {
        Wave {
            pc: 0,
            cur: 0,
            parked: 0,
            frames: Vec::new(),
            regs: Vec::new(),
            status: Status::Done,
            width: 0,
            iterations: 0,
            idle: Vec::new(),
            segments: Segments::default(),
            lane_mask: Vec::new(),
            lane_mask_for: None,
            slots: Vec::new(),
            slot_keep: Vec::new(),
            index: 0,
            group_waves: 0,
            group_id: [0; 3],
            launch: 0,
            undefined: Vec::new(),
            tested: 0,
            constants_width: 0,
            trace: None,
        }
    }

    /// A wave of `w` lanes of one group, for native code's callouts
    /// ([`Wave::run_one`]).
    pub(crate) fn for_callouts(p: &Program, w: usize) -> Wave {
        let mut wave = Wave::empty();
        wave.width = w;
        wave.regs = vec![0; p.reg_count as usize * w];
        wave.segments = Segments::new(w, 1);
        wave.idle = vec![0];
        wave.constants_width = w;
        wave
    }

    /// Register `r`'s lanes.
    pub(crate) fn regs_mut(&mut self, r: Reg) -> &mut [u64] {
        self.reg_mut(r)
    }

    /// Sets the wave up to run the instruction at `pc` alone, as wave
    /// `index` of `waves` in group `group_id`, with the active lanes `cur`
    /// and the lanes that left a construct `parked`.
    pub(crate) fn prepare_callout(
        &mut self,
        pc: usize,
        [cur, parked]: [u64; 2],
        [index, waves]: [u32; 2],
        group_id: [u32; 3],
    ) {
        self.pc = pc;
        self.cur = Mask::from(cur);
        self.parked = Mask::from(parked);
        self.launch = self.cur | self.parked;
        self.index = index;
        self.group_waves = waves;
        self.group_id = group_id;
        self.status = Status::Running;
    }

    /// Runs the one instruction at `pc` (see [`Wave::prepare_callout`]).
    pub(crate) fn run_one(
        &mut self,
        ctx: &Context,
        gs: &[Memory],
        scratch: &mut [u64],
        tracker: &mut SharedTracker,
        deferred: &mut Deferred,
    ) -> Result<(), ExecError> {
        self.run_loop::<false, true>(ctx, gs, scratch, tracker, deferred)
    }

    /// Starts wave `index` of the groups `group_ids`, side by side.
    fn start(&mut self, ctx: &Context, index: usize, threads: usize, group_ids: &[[u32; 3]]) {
        let p = ctx.program;
        let w = ctx.wave_size;
        let width = w * group_ids.len();
        if self.constants_width != width {
            self.width = width;
            self.regs.clear();
            self.regs.resize(p.reg_count as usize * width, 0);
            for &(r, bits) in &p.constants {
                self.reg_mut(r).fill(bits);
            }
            self.constants_width = width;
        }
        self.pc = 0;
        self.frames.clear();
        self.parked = 0;
        self.iterations = 0;
        self.idle.clear();
        self.idle.resize(group_ids.len(), 0);
        self.segments = Segments::new(w, group_ids.len());
        self.status = Status::Running;
        self.index = index as u32;
        self.group_id = group_ids[0];
        let first = index * w;
        // The wave's lanes in one group, repeated in each (the fields do
        // not overlap, so nothing carries).
        let one = full_mask(threads.saturating_sub(first).min(w));
        self.cur = one * self.segments.first_lanes();
        self.launch = self.cur;
        if ctx.findings.is_some() {
            self.undefined.clear();
            self.undefined.resize(p.reg_count as usize, 0);
        }
        self.trace = ctx
            .trace
            .filter(|_| group_ids.len() == 1)
            .and_then(|sink| sink.begin(p, group_ids[0], self.index, self.launch, w));
        if p.inputs.is_empty() {
            return;
        }
        for crate::compile::Input { sv, regs, ty } in &p.inputs {
            for &(k, reg) in regs {
                let k = k.min(2);
                let all = &ctx.thread_ids[k];
                let indices = &ctx.thread_ids[3];
                let fill = SvFill {
                    sv: *sv,
                    k,
                    indices: &indices[first.min(indices.len())..(first + w).min(indices.len())],
                    ids: &all[first.min(all.len())..(first + w).min(all.len())],
                    extent: ctx.group_extent[k],
                    group_ids,
                };
                let lanes = &mut self.regs[reg.0 as usize * width..][..width];
                match w {
                    4 => fill.write_to::<4>(lanes),
                    8 => fill.write_to::<8>(lanes),
                    16 => fill.write_to::<16>(lanes),
                    32 => fill.write_to::<32>(lanes),
                    64 => fill.write_to::<64>(lanes),
                    _ => fill.write_to::<128>(lanes),
                }
                if !matches!(ty, ScalarType::UInt32 | ScalarType::Int32) {
                    for o in lanes {
                        *o = crate::value::convert_bits(*o, ScalarType::UInt32, *ty);
                    }
                }
            }
        }
    }

    /// Wave `c` of this batch as a wave of its own, in the same state.
    fn part(&self, ctx: &Context, c: usize) -> Wave {
        let w = ctx.wave_size;
        let m = |mask: Mask| part_mask(mask, c, w);
        let mut regs = Vec::with_capacity(self.regs.len() / self.width.max(1) * w);
        for reg in self.regs.chunks(self.width.max(1)) {
            regs.extend_from_slice(&reg[c * w..(c + 1) * w]);
        }
        let cur = m(self.cur);
        let status = match self.status {
            // At a barrier with no lane there: as one wave it would have
            // gone past (its lanes are elsewhere, or have returned).
            Status::AtBarrier | Status::Split if cur == 0 => Status::Running,
            Status::Split => Status::AtBarrier,
            status => status,
        };
        Wave {
            pc: self.pc,
            cur,
            parked: m(self.parked),
            frames: self
                .frames
                .iter()
                .map(|f| Frame {
                    entry: m(f.entry),
                    aux: m(f.aux),
                    exited: m(f.exited),
                    continued: m(f.continued),
                })
                .collect(),
            regs,
            status,
            width: w,
            iterations: self.iterations - self.idle.get(c).copied().unwrap_or(0),
            idle: vec![0],
            segments: Segments::new(w, 1),
            lane_mask: Vec::new(),
            lane_mask_for: None,
            slots: Vec::new(),
            slot_keep: Vec::new(),
            index: self.index,
            group_waves: self.group_waves,
            group_id: self.group_id,
            launch: m(self.launch),
            undefined: Vec::new(),
            tested: m(self.tested),
            constants_width: w,
            trace: None,
        }
    }

    /// Whether this batch wave, stopping at a barrier, holds a wave with
    /// lanes left (launched and not returned) of which none is at it.
    fn must_split(&self, w: usize) -> bool {
        let returned = self.frames.first().map_or(0, |f| f.exited);
        let left = self.launch & !returned;
        (0..self.width / w).any(|c| part_mask(self.cur, c, w) == 0 && part_mask(left, c, w) != 0)
    }

    fn reg(&self, r: Reg) -> &[u64] {
        let start = r.0 as usize * self.width;
        &self.regs[start..start + self.width]
    }

    fn reg_mut(&mut self, r: Reg) -> &mut [u64] {
        let start = r.0 as usize * self.width;
        &mut self.regs[start..start + self.width]
    }

    /// Calls `f` with the destination register (mutable) and the source
    /// registers. Sources are borrowed in place, except a source that is
    /// the destination: that one is copied to `scratch` first (once, however
    /// many operands name it).
    #[inline(always)]
    fn with_operands<const N: usize, R>(
        &mut self,
        dst: Reg,
        srcs: [Reg; N],
        scratch: &mut [u64],
        f: impl FnOnce(&mut [u64], [&[u64]; N]) -> R,
    ) -> R {
        let w = self.width;
        let d = dst.0 as usize;
        let (below, rest) = self.regs.split_at_mut(d * w);
        let (dst_lanes, above) = rest.split_at_mut(w);
        let (below, above) = (&*below, &*above);
        let copy = &mut scratch[..w];
        if srcs.contains(&dst) {
            copy.copy_from_slice(dst_lanes);
        }
        let copy = &*copy;
        let operands = std::array::from_fn(|k| {
            let i = srcs[k].0 as usize;
            if i < d {
                &below[i * w..i * w + w]
            } else if i > d {
                &above[(i - d - 1) * w..(i - d) * w]
            } else {
                copy
            }
        });
        f(dst_lanes, operands)
    }

    /// The active lanes, in ascending order.
    fn lanes(&self, w: usize) -> impl Iterator<Item = usize> + use<> {
        crate::mask_lanes(self.cur & full_mask(w))
    }

    /// Runs until the wave finishes or reaches a barrier.
    /// `CHECKED` compiles the checks of checked mode in or out, so a
    /// normal run carries none of them.
    fn run<const CHECKED: bool>(
        &mut self,
        ctx: &Context,
        gs: &[Memory],
        scratch: &mut [u64],
        tracker: &mut SharedTracker,
        deferred: &mut Deferred,
    ) -> Result<(), ExecError> {
        #[cfg(target_arch = "x86_64")]
        if !CHECKED && ctx.avx2 {
            // SAFETY: `ctx.avx2` is only set when the CPU has AVX2
            // (`simd::avx2_available`).
            return unsafe { self.run_avx2(ctx, gs, scratch, tracker, deferred) };
        }
        let ran = self.run_loop::<CHECKED, false>(ctx, gs, scratch, tracker, deferred);
        if CHECKED && self.trace.is_some() {
            self.trace_pause(ctx);
        }
        ran
    }

    /// `run_loop` compiled for AVX2: inlined into this function, whatever
    /// its size, so its lane loops and mask code use AVX2.
    ///
    /// # Safety
    /// The CPU must have AVX2 ([`crate::simd::avx2_available`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt,bmi1,bmi2,lzcnt")]
    unsafe fn run_avx2(
        &mut self,
        ctx: &Context,
        gs: &[Memory],
        scratch: &mut [u64],
        tracker: &mut SharedTracker,
        deferred: &mut Deferred,
    ) -> Result<(), ExecError> {
        self.run_loop::<false, false>(ctx, gs, scratch, tracker, deferred)
    }

    /// `run`'s loop, inlined into each instruction set's copy; `SINGLE`
    /// runs one instruction only.
    #[inline(always)]
    fn run_loop<const CHECKED: bool, const SINGLE: bool>(
        &mut self,
        ctx: &Context,
        gs: &[Memory],
        scratch: &mut [u64],
        tracker: &mut SharedTracker,
        deferred: &mut Deferred,
    ) -> Result<(), ExecError> {
        let code = &ctx.program.code;
        // Lanes per register, and lanes per wave.
        let w = self.width;
        let ww = ctx.wave_size;
        let start = self.pc;
        loop {
            if SINGLE && self.pc != start {
                return Ok(());
            }
            let inst = &code[self.pc];
            if CHECKED && self.trace.is_some() {
                self.trace_before(ctx, self.pc);
            }
            self.pc += 1;
            if let Some(findings) = ctx.findings.filter(|_| CHECKED) {
                self.track_undefined(ctx, findings, inst);
            }
            match *inst {
                Inst::Const { dst, bits } => self.reg_mut(dst).fill(bits),
                Inst::Uninitialized { dst } => self.reg_mut(dst).fill(0),
                Inst::Unary {
                    f, dst, a, masked, ..
                } => self.alu_op(masked, dst, [a], scratch, |d, [a], keep| f(d, a, keep)),
                Inst::Binary {
                    f,
                    dst,
                    a,
                    b,
                    masked,
                    ..
                } => self.alu_op(masked, dst, [a, b], scratch, |d, [a, b], keep| {
                    f(d, a, b, keep)
                }),
                Inst::BinaryImm {
                    f,
                    dst,
                    a,
                    imm,
                    masked,
                    ..
                } => {
                    let keep = self.keep(masked);
                    if a == dst {
                        f(self.reg_mut(dst), None, imm, keep.as_deref());
                    } else {
                        self.with_operands(dst, [a], scratch, |d, [a]| {
                            f(d, Some(a), imm, keep.as_deref())
                        });
                    }
                    if let Some(keep) = keep {
                        self.lane_mask = keep;
                    }
                }
                Inst::Ternary {
                    f,
                    dst,
                    a,
                    b,
                    c,
                    masked,
                    ..
                } => self.alu_op(masked, dst, [a, b, c], scratch, |d, [a, b, c], keep| {
                    f(d, a, b, c, keep)
                }),
                Inst::Block32(ref block) => self.block32(block),
                Inst::Copy { dst, src } => {
                    self.with_operands(dst, [src], scratch, |d, [s]| d.copy_from_slice(s))
                }
                Inst::CopyMasked { dst, src } => {
                    self.alu_op(true, dst, [src], scratch, |d, [s], keep| match keep {
                        None => d.copy_from_slice(s),
                        Some(keep) => blend(d, s, keep),
                    })
                }
                Inst::Select {
                    dst,
                    cond,
                    a,
                    b,
                    masked,
                    ..
                } => self.alu_op(masked, dst, [cond, a, b], scratch, |d, [c, a, b], keep| {
                    // Without a branch: a lane's condition is data, so a
                    // branch per lane mispredicts.
                    let select = |c: u64, a: u64, b: u64| {
                        let pick = 0u64.wrapping_sub(u64::from(c != 0));
                        (a & pick) | (b & !pick)
                    };
                    let lanes = d.iter_mut().zip(c).zip(a).zip(b);
                    match keep {
                        None => lanes.for_each(|(((d, &c), &a), &b)| *d = select(c, a, b)),
                        Some(keep) => lanes.zip(keep).for_each(|((((d, &c), &a), &b), &k)| {
                            *d = (*d & !k) | (select(c, a, b) & k);
                        }),
                    }
                }),
                Inst::IndexScale {
                    dst,
                    index,
                    index_ty,
                    scale,
                    base,
                } => {
                    let scaled = |raw: u64| scale_index(raw, index_ty, scale);
                    match base {
                        Some(base) => {
                            self.with_operands(dst, [index, base], scratch, |d, [i, b]| {
                                for ((d, &i), &b) in d.iter_mut().zip(i).zip(b) {
                                    *d = b.wrapping_add(scaled(i));
                                }
                            })
                        }
                        None => self.with_operands(dst, [index], scratch, |d, [i]| {
                            for (d, &i) in d.iter_mut().zip(i) {
                                *d = scaled(i);
                            }
                        }),
                    }
                }
                Inst::Gather {
                    dst,
                    base,
                    delta,
                    limit,
                } => {
                    if let Some(findings) = ctx.findings.filter(|_| CHECKED) {
                        self.check_local_index(ctx, findings, delta, limit, Access::Read);
                    }
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
                    if let Some(findings) = ctx.findings.filter(|_| CHECKED) {
                        self.check_local_index(ctx, findings, delta, limit, Access::Write);
                    }
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
                    let bound = ctx.resources.get(resource.index());
                    let dims = bound.map_or([0; 3], |b| b.dims);
                    let count = usize::from(count).min(3);
                    // The texture's extent in each coordinate it has (1 in
                    // the others, whose coordinate is 0).
                    let extent =
                        std::array::from_fn(|i| if i < count { u64::from(dims[i]) } else { 1 });
                    let bytes = extent
                        .iter()
                        .try_fold(u64::from(texel_size), |n, &d| n.checked_mul(d));
                    if level.is_none()
                        && bytes.is_some_and(|b| b <= TEXEL_OUT_OF_RANGE)
                        && !coords[..count].contains(&dst)
                    {
                        // Every in-range offset fits: no per-lane overflow
                        // checks, and a loop without branches.
                        let mut xyz: [&[u64]; 3] = [&[], &[], &[]];
                        let start = dst.0 as usize * w;
                        let (below, rest) = self.regs.split_at_mut(start);
                        let (out, above) = rest.split_at_mut(w);
                        for (i, c) in xyz.iter_mut().enumerate().take(count) {
                            let r = coords[i].0 as usize * w;
                            *c = if r < start {
                                &below[r..r + w]
                            } else {
                                &above[r - start - w..r - start]
                            };
                        }
                        texel_offsets(out, xyz, count, extent, u64::from(texel_size));
                    } else {
                        for l in 0..w {
                            let at = |r: Reg| self.regs[r.0 as usize * w + l] & 0xFFFF_FFFF;
                            let xyz = coords.map(at);
                            self.regs[dst.0 as usize * w + l] =
                                match level.map(at) {
                                    None | Some(0) => texel_offset(&xyz[..count], dims, texel_size),
                                    Some(level) => bound
                                        .and_then(|b| b.level(level, texel_size))
                                        .map_or(TEXEL_OUT_OF_RANGE, |(dims, base)| {
                                            match texel_offset(&xyz[..count], dims, texel_size) {
                                                TEXEL_OUT_OF_RANGE => TEXEL_OUT_OF_RANGE,
                                                offset => base.saturating_add(offset),
                                            }
                                        }),
                                };
                        }
                    }
                }
                Inst::Load { dst, addr, ty } => {
                    if let Some(findings) = ctx.findings.filter(|_| CHECKED) {
                        self.check_access(ctx, findings, tracker, &gs[0], addr, ty, Access::Read);
                    }
                    if let Space::Resource(id) = addr.space {
                        deferred.before_access(ctx.resources, id.index());
                    }
                    if let Some(r) = addr.dynamic.filter(|_| ty.size() == 4) {
                        let (offset, chunk) = (u64::from(addr.offset), memory_chunk(addr, w, ww));
                        // A buffer (not a texture, not groupshared memory)
                        // read as a stream: fetch ahead for the next batch,
                        // `batch_lanes` threads on.
                        let ahead = matches!(addr.space,
                            Space::Resource(id) if ctx.program.buffers.get(id.index()) == Some(&true));
                        let batch_lanes = if ahead {
                            let group: u64 =
                                ctx.group_extent.iter().map(|&n| u64::from(n)).product();
                            (w / ww) as u64 * group
                        } else {
                            0
                        };
                        // No closure (`with_operands`): one would be
                        // compiled apart from the AVX2 loop.
                        if self.cur == full_mask(w) {
                            let (d, a) = dst_and_operand(&mut self.regs, w, dst, r, scratch);
                            let parts = d.chunks_mut(chunk).zip(a.chunks(chunk));
                            for (part, (d, a)) in parts.enumerate() {
                                let mem = memory(ctx, gs, addr.space, part);
                                if ahead {
                                    mem.prefetch_ahead(a, offset, ww, batch_lanes);
                                }
                                mem.load_words(d, a, offset);
                            }
                        } else if chunk == w {
                            // One memory for every lane.
                            let lanes = self.cur & full_mask(w);
                            let mem = memory(ctx, gs, addr.space, 0);
                            let (d, a) = dst_and_operand(&mut self.regs, w, dst, r, scratch);
                            if ahead {
                                mem.prefetch_ahead(a, offset, ww, batch_lanes);
                            }
                            mem.load_words_where(d, a, offset, lanes);
                        } else {
                            let (d, a) = (dst.0 as usize * w, r.0 as usize * w);
                            for l in self.lanes(w) {
                                let at = self.regs[a + l].wrapping_add(offset);
                                let mem = memory(ctx, gs, addr.space, l >> ww.trailing_zeros());
                                self.regs[d + l] = mem.load_word(at);
                            }
                        }
                        continue;
                    }
                    let shift = ww.trailing_zeros();
                    let lanes = self.lanes(w);
                    let (regs, d) = (&mut self.regs, dst.0 as usize * w);
                    for l in lanes {
                        let mem = memory(ctx, gs, addr.space, l >> shift);
                        let at = address(regs, addr, l, w);
                        regs[d + l] = mem.load(at, ty);
                    }
                }
                Inst::Store { addr, ty, src } => {
                    if let Some(findings) = ctx.findings.filter(|_| CHECKED) {
                        self.check_access(ctx, findings, tracker, &gs[0], addr, ty, Access::Write);
                        self.check_conflicting_stores(ctx, findings, &gs[0], addr, ty, src);
                    }
                    if let Space::Resource(id) = addr.space {
                        deferred.before_access(ctx.resources, id.index());
                    }
                    if let Some(r) = addr.dynamic.filter(|_| ty.size() == 4) {
                        let (offset, chunk) = (u64::from(addr.offset), memory_chunk(addr, w, ww));
                        let (a, v) = (self.reg(r), self.reg(src));
                        if self.cur == full_mask(w) {
                            for (part, (a, v)) in a.chunks(chunk).zip(v.chunks(chunk)).enumerate() {
                                memory(ctx, gs, addr.space, part).store_words(a, offset, v);
                            }
                        } else if chunk == w {
                            let lanes = self.cur & full_mask(w);
                            memory(ctx, gs, addr.space, 0).store_words_where(a, offset, v, lanes);
                        } else {
                            for l in self.lanes(w) {
                                let mem = memory(ctx, gs, addr.space, l >> ww.trailing_zeros());
                                mem.store_word(a[l].wrapping_add(offset), v[l]);
                            }
                        }
                        continue;
                    }
                    let shift = ww.trailing_zeros();
                    for l in self.lanes(w) {
                        let mem = memory(ctx, gs, addr.space, l >> shift);
                        let at = address(&self.regs, addr, l, w);
                        mem.store(at, ty, self.regs[src.0 as usize * w + l]);
                    }
                }
                Inst::CheckDiscardedRead { read, helper } => {
                    if let Some(findings) = ctx.findings.filter(|_| CHECKED) {
                        let at = |r: Reg, l: usize| self.regs[r.0 as usize * w + l];
                        let lanes = self
                            .lanes(w)
                            .filter(|&l| at(read, l) != 0 && at(helper, l) == 0)
                            .fold(0, |m: Mask, l| m | 1 << l);
                        if lanes != 0 {
                            findings.record(
                                FindingKind::DiscardedLaneRead,
                                self.site(ctx),
                                lanes,
                                || {
                                    "a quad operation reads a lane of its quad that called discard: Direct3D keeps that lane running as a helper lane, but where discard ends it (Vulkan's OpKill) the value is undefined".to_string()
                                },
                            );
                        }
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
                    deferrable,
                } => {
                    if let Some(findings) = ctx.findings.filter(|_| CHECKED) {
                        let access = match op {
                            lockstep_ir::AtomicOp::Exchange => Access::Exchange,
                            _ => Access::Atomic,
                        };
                        self.check_access(ctx, findings, tracker, &gs[0], addr, ty, access);
                    }
                    if let Space::Resource(id) = addr.space {
                        if deferrable && self.hold_atomic(ctx, deferred, op, ty, addr, a) {
                            continue;
                        }
                        deferred.before_access(ctx.resources, id.index());
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
                        ResourceQuery::Levels => u64::from(bound.map_or(1, |b| b.levels)),
                    };
                    self.reg_mut(dst).fill(value & 0xFFFF_FFFF);
                }
                Inst::Wave { op, ty, dst, a, b } => {
                    if let Some(findings) = ctx.findings.filter(|_| CHECKED) {
                        self.check_wave_op(ctx, findings, op, b);
                    }
                    match op {
                        WaveOp::AnyTrue
                        | WaveOp::AllTrue
                        | WaveOp::CountBits
                        | WaveOp::PrefixCountBits
                            if ty == ScalarType::Bool =>
                        {
                            // Inlined here, in the AVX2 copy of the loop.
                            self.ballot_op(op, dst, a, ww)
                        }
                        _ => self.wave_op(ctx, op, ty, dst, [a, b], ww, scratch),
                    }
                }
                Inst::Wave4 { op, ty, dst, a } => self.wave4(op, ty, dst, a, ww),
                Inst::MultiPrefix {
                    op,
                    ty,
                    dst,
                    a,
                    mask,
                } => self.multi_prefix(ctx, op, ty, dst, a, mask, scratch),
                Inst::IfBegin {
                    cond,
                    negate,
                    else_pc,
                    test,
                } => {
                    let c = self.test(cond, test, w, ww);
                    let c = c ^ if negate { Mask::MAX } else { 0 };
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
                    if self.count_iteration(ctx.step_budget) {
                        return Err(budget_error(ctx.step_budget, Some(span)));
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
                Inst::LeaveIf {
                    cond,
                    negate,
                    test,
                    frame,
                    to_continue,
                } => {
                    // `IfBegin`, `Break` (or `Continue`) and `IfEnd`, with
                    // no frame of its own.
                    let c = self.test(cond, test, w, ww);
                    let leaving = self.cur & (c ^ if negate { Mask::MAX } else { 0 });
                    let target = &mut self.frames[frame as usize];
                    if to_continue {
                        target.continued |= leaving;
                    } else {
                        target.exited |= leaving;
                    }
                    self.parked |= leaving;
                    self.cur &= !self.parked;
                }
                Inst::Barrier => {
                    if self.cur != 0 {
                        // Held updates become visible at the barrier.
                        deferred.apply(ctx.resources, None);
                        if let Some(findings) = ctx.findings.filter(|_| CHECKED) {
                            self.check_barrier(ctx, findings);
                        }
                        self.status = if w > ww && self.must_split(ww) {
                            Status::Split
                        } else {
                            Status::AtBarrier
                        };
                        return Ok(());
                    }
                }
                Inst::Fence => {
                    if self.cur != 0 {
                        deferred.apply(ctx.resources, None);
                    }
                }
                Inst::Exit => {
                    self.status = Status::Done;
                    return Ok(());
                }
            }
        }
    }

    /// Runs a lane loop `f(dst, sources, keep)`: on every lane, or, for a
    /// `masked` write while some lanes are inactive, with `keep` selecting
    /// the active lanes.
    #[inline(always)]
    fn alu_op<const N: usize>(
        &mut self,
        masked: bool,
        dst: Reg,
        srcs: [Reg; N],
        scratch: &mut [u64],
        f: impl FnOnce(&mut [u64], [&[u64]; N], Option<&[u64]>),
    ) {
        let keep = self.keep(masked);
        self.with_operands(dst, srcs, scratch, |d, s| f(d, s, keep.as_deref()));
        if let Some(keep) = keep {
            self.lane_mask = keep;
        }
    }

    /// Runs a [`Block32`]: narrows its inputs into slots, runs its
    /// operations on them and widens its outputs back.
    #[inline(always)]
    fn block32(&mut self, block: &Block32) {
        let w = self.width;
        let (cur, partial) = (self.cur, self.cur != full_mask(w));
        let exact_keep = block.exact && partial;
        if exact_keep {
            self.slot_keep.clear();
            self.slot_keep
                .extend((0..w).map(|l| 0u32.wrapping_sub((cur >> l) as u32 & 1)));
        }
        let n = block.slots();
        if self.slots.len() < n * w {
            self.slots.resize(n * w, 0);
        }
        let (slots, regs) = (&mut self.slots[..n * w], &mut self.regs);
        for (slot, r) in slots.chunks_exact_mut(w).zip(&block.inputs) {
            narrow(slot, &regs[r.0 as usize * w..][..w]);
        }
        for (i, op) in block.ops.iter().enumerate() {
            let (before, rest) = slots.split_at_mut((block.inputs.len() + i) * w);
            let (dst, before) = (&mut rest[..w], &*before);
            let slot = |s: u16| &before[usize::from(s) * w..][..w];
            match op.kind {
                Slot32Kind::Slots { f, b } => f(dst, slot(op.a), slot(b)),
                Slot32Kind::Imm { f, imm } => f(dst, slot(op.a), imm),
                Slot32Kind::Select { f, b, c } => f(dst, slot(op.a), slot(b), slot(c)),
            }
            if let Some(old) = op.old.filter(|_| exact_keep) {
                for ((d, &o), &k) in dst.iter_mut().zip(slot(old)).zip(&self.slot_keep) {
                    *d = (*d & k) | (o & !k);
                }
            }
        }
        for o in &block.outputs {
            let src = &slots[usize::from(o.slot) * w..][..w];
            let dst = &mut regs[o.reg.0 as usize * w..][..w];
            // The active lanes' words are made from the mask's bits in the
            // same pass (the other masked writes' cached words are for
            // another mask, and stay).
            widen(dst, src, (o.masked && partial).then_some(cur));
        }
    }

    /// For a write to the active lanes only (`masked`) while some lanes
    /// are inactive: the active lanes as words, all ones or 0 (taken from
    /// the cache `lane_mask`, to be put back). `None` when every lane is
    /// written.
    #[inline(always)]
    fn keep(&mut self, masked: bool) -> Option<Vec<u64>> {
        let (cur, w) = (self.cur, self.width);
        if !masked || cur == full_mask(w) {
            return None;
        }
        if self.lane_mask_for != Some(cur) || self.lane_mask.len() != w {
            expand_mask(cur, w, &mut self.lane_mask);
            self.lane_mask_for = Some(cur);
        }
        Some(std::mem::take(&mut self.lane_mask))
    }

    fn top(&self) -> Frame {
        self.frames.last().copied().unwrap_or_default()
    }

    fn pop(&mut self) -> Frame {
        self.frames.pop().unwrap_or_default()
    }

    #[inline(always)]
    fn mask_of(&self, r: Reg, w: usize) -> Mask {
        nonzero_lanes(&self.reg(r)[..w])
    }

    /// The lanes of a batch of width `w` (waves of width `ww`) that a
    /// branch's `test` picks from `cond`: on every lane, active or not.
    #[inline(always)]
    fn test(&mut self, cond: Reg, test: Test, w: usize, ww: usize) -> Mask {
        let lanes = match test.lanes {
            Lanes::Nonzero => self.mask_of(cond, w),
            Lanes::Compare(op, b) => compare_lanes(op, &self.reg(cond)[..w], Ok(&self.reg(b)[..w])),
            Lanes::CompareImm(op, imm) => compare_lanes(op, &self.reg(cond)[..w], Err(imm)),
            Lanes::Previous => self.tested,
        };
        self.tested = lanes;
        match test.vote {
            None => lanes,
            Some(vote) => self.segments.fill(self.votes_of(vote, lanes), ww),
        }
    }

    /// Holds a deferrable atomic in `deferred` when every active lane of the
    /// batch updates the same in-bounds word: the lanes' values folded in
    /// lane order make one update. `false` when it does not apply.
    fn hold_atomic(
        &self,
        ctx: &Context,
        deferred: &mut Deferred,
        op: AtomicOp,
        ty: ScalarType,
        addr: Address,
        a: Reg,
    ) -> bool {
        let (Space::Resource(id), Some(fold)) = (addr.space, memory::combining(op, ty)) else {
            return false;
        };
        let w = self.width;
        let mut lanes = self.lanes(w);
        let Some(first) = lanes.next() else {
            return true;
        };
        let at = address(&self.regs, addr, first, w);
        let resource = &ctx.resources[id.index()];
        if !resource.memory.in_bounds(at, 4) {
            return false;
        }
        let values = &self.regs[a.0 as usize * w..][..w];
        let total = if addr.dynamic.is_none() {
            // One address for every lane.
            let rest = self.cur & full_mask(w) & !(1 << first);
            fold_lanes(op, fold, values, first, rest)
        } else {
            let mut total = values[first] as u32;
            for l in lanes {
                if address(&self.regs, addr, l, w) != at {
                    return false;
                }
                total = fold(total, values[l] as u32);
            }
            total
        };
        deferred.hold(ctx.resources, id.index(), at, op, ty, total)
    }

    fn atomic(
        &mut self,
        ctx: &Context,
        gs: &[Memory],
        op: AtomicOp,
        ty: ScalarType,
        addr: Address,
        [dst, a, b]: [Reg; 3],
    ) {
        let w = self.width;
        let shift = ctx.wave_size.trailing_zeros();
        let combine = memory::combining(op, ty);
        let (a, b, dst) = (a.0 as usize * w, b.0 as usize * w, dst.0 as usize * w);
        if let (Space::Resource(id), None, Some(f)) = (addr.space, addr.dynamic, combine) {
            // Every active lane updates the one word the address names: one
            // update with the folded operand, each lane's original value
            // rebuilt from the one before (as the joined lanes below).
            let (mem, at) = (ctx.resources[id.index()].memory, u64::from(addr.offset));
            let lanes = self.cur & full_mask(w);
            if lanes != 0 && mem.in_bounds(at, 4) {
                let first = lanes.trailing_zeros() as usize;
                let joined = Joined {
                    op,
                    ty,
                    fold: f,
                    first,
                    rest: lanes & (lanes - 1),
                };
                return joined.apply(mem, at, &mut self.regs, a, dst, w);
            }
        }
        if let Space::Groupshared = addr.space {
            // Only the worker running a group touches its groupshared
            // memory: lane by lane, in lane order, with plain reads and
            // writes.
            for l in self.lanes(w) {
                let at = address(&self.regs, addr, l, w);
                let (x, y) = (self.regs[a + l], self.regs[b + l]);
                self.regs[dst + l] = gs[l >> shift].atomic_unshared(at, ty, op, x, y);
            }
            return;
        }
        let mut lanes = self.lanes(w).peekable();
        while let Some(first) = lanes.next() {
            let mem = memory(ctx, gs, addr.space, first >> shift);
            let at = address(&self.regs, addr, first, w);
            // The lanes right after this one that update the same word join
            // it in one read-modify-write; each lane still sees the value it
            // would have seen going alone, in lane order, with no other
            // thread in between (a GPU's atomic coalescing).
            let joined = combine.filter(|_| mem.in_bounds(at, 4)).map(|f| {
                let mut run: Mask = 0;
                while let Some(&l) = lanes.peek() {
                    let same = std::ptr::eq(memory(ctx, gs, addr.space, l >> shift), mem)
                        && address(&self.regs, addr, l, w) == at;
                    if !same {
                        break;
                    }
                    run |= 1 << l;
                    lanes.next();
                }
                (f, run)
            });
            let Some((f, run)) = joined.filter(|&(_, run)| run != 0) else {
                let (x, y) = (self.regs[a + first], self.regs[b + first]);
                self.regs[dst + first] = mem.atomic(at, ty, op, x, y);
                continue;
            };
            let joined = Joined {
                op,
                ty,
                fold: f,
                first,
                rest: run,
            };
            joined.apply(mem, at, &mut self.regs, a, dst, w);
        }
    }

    /// Counts one loop iteration for each wave of the batch with active
    /// lanes; `true` when one of them has now run more than `budget`.
    #[inline(always)]
    fn count_iteration(&mut self, budget: u64) -> bool {
        self.iterations += 1;
        let segments = self.segments;
        let idle = segments.high & !segments.nonzero(self.cur);
        for top in crate::mask_lanes(idle) {
            self.idle[top >> segments.shift] += 1;
        }
        // No wave has run more iterations than the batch.
        self.iterations > budget && self.idle.iter().any(|&n| self.iterations - n > budget)
    }

    /// The waves of the batch with active lanes: each wave's index in the
    /// batch, its lanes' range in a register and its active lanes (from
    /// lane 0).
    fn parts(
        &self,
        w: usize,
    ) -> impl Iterator<Item = (usize, std::ops::Range<usize>, Mask)> + use<> {
        let cur = self.cur;
        (0..self.width / w).filter_map(move |c| {
            let mask = part_mask(cur, c, w);
            (mask != 0).then(|| (c, c * w..(c + 1) * w, mask))
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn wave_op(
        &mut self,
        ctx: &Context,
        op: WaveOp,
        ty: ScalarType,
        dst: Reg,
        [a, b]: [Reg; 2],
        w: usize,
        scratch: &mut [u64],
    ) {
        let order = ctx.order;
        match op {
            WaveOp::GetLaneCount => return self.reg_mut(dst).fill(w as u64),
            WaveOp::GroupWaveIndex | WaveOp::GroupWaveCount => {
                let value = if op == WaveOp::GroupWaveIndex {
                    self.index
                } else {
                    self.group_waves
                };
                return self.reg_mut(dst).fill(u64::from(value));
            }
            WaveOp::GetLaneIndex => {
                // Wave sizes are powers of two.
                for (l, o) in self.reg_mut(dst).iter_mut().enumerate() {
                    *o = (l & (w - 1)) as u64;
                }
                return;
            }
            _ => {}
        }
        if order == ReductionOrder::Ascending && self.cur == full_mask(self.width) {
            let avx2 = ctx.avx2;
            let done = self.with_operands(dst, [a], scratch, |d, [a]| {
                whole_waves(op, ty, a, d, w, avx2)
            });
            if done {
                return;
            }
        }
        let parts = self.parts(w);
        self.with_operands(dst, [a, b], scratch, |d, [a, b]| {
            for (_, lanes, mask) in parts {
                let out = &mut d[lanes.clone()];
                match op {
                    WaveOp::IsFirstLane => {
                        out.fill(0);
                        out[mask.trailing_zeros() as usize] = 1;
                    }
                    _ => {
                        let src = &a[lanes.clone()];
                        if order != ReductionOrder::Ascending
                            || !fast_wave_op(op, ty, src, mask, out)
                        {
                            let other = &b[lanes];
                            with_scalar!(ty, T => lane_op::<T>(op, decode::<T>(src).as_slice(w), other, mask, out, order))
                        }
                    }
                }
            }
        });
        self.clear_idle_parts(&[dst], w);
    }

    /// Each wave's vote over `cond` on its active lanes, as the top bit of
    /// the wave's field (see [`Segments`]); 0 for a wave with no active
    /// lane.
    #[inline(always)]
    fn wave_votes(&self, vote: Vote, cond: Reg) -> Mask {
        self.votes_of(vote, nonzero_lanes(self.reg(cond)))
    }

    /// Each wave's vote over whether its active lanes are among `lanes`,
    /// as [`Wave::wave_votes`] gives it.
    #[inline(always)]
    fn votes_of(&self, vote: Vote, lanes: Mask) -> Mask {
        let (cur, segments) = (self.cur, self.segments);
        let ballot = lanes & cur;
        match vote {
            Vote::Any => segments.nonzero(ballot),
            Vote::All => segments.nonzero(cur) & !segments.nonzero(cur & !ballot),
        }
    }

    /// `WaveActiveAnyTrue`, `WaveActiveAllTrue`, `WaveActiveCountBits` and
    /// `WavePrefixCountBits` for every wave of the batch from one ballot of
    /// the whole batch (zeroes in the waves with no active lane).
    #[inline(always)]
    fn ballot_op(&mut self, op: WaveOp, dst: Reg, a: Reg, w: usize) {
        // Any and all as one bit per wave, spread to its lanes.
        let vote = match op {
            WaveOp::AnyTrue => Some(Vote::Any),
            WaveOp::AllTrue => Some(Vote::All),
            _ => None,
        };
        if let Some(vote) = vote {
            let (bits, segments) = (self.wave_votes(vote, a), self.segments);
            segments.spread(bits, w, self.reg_mut(dst));
            return;
        }
        let cur = self.cur;
        let ballot = nonzero_lanes(self.reg(a)) & cur;
        for (c, out) in self.reg_mut(dst).chunks_exact_mut(w).enumerate() {
            let (mask, votes) = (part_mask(cur, c, w), part_mask(ballot, c, w));
            if mask == 0 {
                out.fill(0);
                continue;
            }
            match op {
                WaveOp::AnyTrue => out.fill(u64::from(votes != 0)),
                WaveOp::AllTrue => out.fill(u64::from(votes == mask)),
                WaveOp::CountBits => out.fill(u64::from(votes.count_ones())),
                _ => {
                    // A running count of the lanes below each lane, 64
                    // lanes' votes at a time.
                    let mut below = 0;
                    for (half, lanes) in out.chunks_mut(64).enumerate() {
                        let votes = (votes >> (64 * half)) as u64;
                        for (l, o) in lanes.iter_mut().enumerate() {
                            *o = below;
                            below += (votes >> l) & 1;
                        }
                    }
                }
            }
        }
    }

    fn wave4(&mut self, op: WaveOp, ty: ScalarType, dst: [Reg; 4], a: Reg, w: usize) {
        for (_, lanes, mask) in self.parts(w) {
            self.wave4_part(op, ty, dst, a, w, lanes, mask);
        }
        self.clear_idle_parts(&dst, w);
    }

    /// Zeroes `dsts` in the waves of the batch with no active lane, so
    /// that a wave op writes every lane of its destination (as the other
    /// unmasked instructions do: see `compile::fuse`).
    fn clear_idle_parts(&mut self, dsts: &[Reg], w: usize) {
        let (cur, width) = (self.cur, self.width);
        for c in (0..width / w).filter(|&c| part_mask(cur, c, w) == 0) {
            for &dst in dsts {
                self.reg_mut(dst)[c * w..(c + 1) * w].fill(0);
            }
        }
    }

    /// A four-word wave op on the lanes `lanes` of the batch, active in
    /// `mask` (from the range's first lane).
    #[allow(clippy::too_many_arguments)]
    fn wave4_part(
        &mut self,
        op: WaveOp,
        ty: ScalarType,
        dst: [Reg; 4],
        a: Reg,
        w: usize,
        lanes: std::ops::Range<usize>,
        mask: Mask,
    ) {
        let src = &self.reg(a)[lanes.clone()];
        if op == WaveOp::Ballot {
            // One ballot for the whole wave.
            let ballot = nonzero_lanes(src) & mask;
            for (k, r) in dst.iter().enumerate() {
                self.reg_mut(*r)[lanes.clone()].fill(u64::from((ballot >> (32 * k)) as u32));
            }
            return;
        }
        if op == WaveOp::Match {
            // Lanes grouped by value, one pass per distinct value. Registers
            // hold each value's canonical bits, so equal bits are the same
            // value as `Lane::same_value` defines it. Each group's mask goes
            // straight to its lanes of the four destinations (which are
            // not the operand: the compiler gives a `uint4` result
            // registers of its own).
            debug_assert!(!dst.contains(&a));
            let (width, start) = (self.width, lanes.start);
            let put = |regs: &mut [u64], l: usize, group: Mask| {
                for (k, r) in dst.iter().enumerate() {
                    regs[r.0 as usize * width + start + l] = u64::from((group >> (32 * k)) as u32);
                }
            };
            let src = a.0 as usize * width + start..a.0 as usize * width + start + w;
            let mut left = mask;
            while left != 0 {
                let lanes = &self.regs[src.clone()];
                let same = lanes_equal_to(lanes, lanes[left.trailing_zeros() as usize]) & mask;
                for l in crate::mask_lanes(same) {
                    put(&mut self.regs, l, same);
                }
                left &= !same;
            }
            // Inactive lanes (undefined): the active lanes with their value,
            // and themselves.
            for l in crate::mask_lanes(full_mask(w) & !mask) {
                let lanes = &self.regs[src.clone()];
                let group = (lanes_equal_to(lanes, lanes[l]) & mask) | 1 << l;
                put(&mut self.regs, l, group);
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
            let out = &mut self.reg_mut(*r)[lanes.clone()];
            for (l, o) in out.iter_mut().enumerate() {
                *o = u64::from(words[l][k]);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn multi_prefix(
        &mut self,
        ctx: &Context,
        op: WaveOp,
        ty: ScalarType,
        dst: Reg,
        a: Reg,
        mask_regs: [Reg; 4],
        scratch: &mut [u64],
    ) {
        let w = ctx.wave_size;
        if op == WaveOp::MultiPrefixCountBits && ctx.findings.is_none() {
            // The whole batch straight from the registers: one ballot, then
            // a population count per lane.
            let (set, avx2) = (nonzero_lanes(self.reg(a)) & self.cur, ctx.avx2);
            self.with_operands(dst, mask_regs, scratch, |d, parts| {
                let mut count = || count_in_partitions(set, parts, d, w);
                #[cfg(target_arch = "x86_64")]
                if avx2 {
                    // SAFETY: `ctx.avx2` is only set when the CPU has AVX2
                    // and its bit instructions (`simd::avx2_available`).
                    return unsafe { crate::simd::with_avx2(count) };
                }
                let _ = avx2;
                count()
            });
            self.clear_idle_parts(&[dst], w);
            return;
        }
        for (_, lanes, mask) in self.parts(w) {
            let mut partition = [[0u32; 4]; 128];
            for (p, l) in partition.iter_mut().zip(lanes.clone()) {
                *p = std::array::from_fn(|k| self.reg(mask_regs[k])[l] as u32);
            }
            let partition = &partition[..w];
            if let Some(findings) = ctx.findings {
                self.check_partition(ctx, findings, partition);
            }
            let src = &self.reg(a)[lanes.clone()];
            let mut out = [0u64; 128];
            let out = &mut out[..w];
            if op == WaveOp::MultiPrefixCountBits {
                let vals = decode::<bool>(src);
                let mut counts = [0u32; 128];
                let counts = &mut counts[..w];
                let mut count = || {
                    wave::multi_prefix_count_bits_wave(vals.as_slice(w), mask, partition, counts)
                };
                #[cfg(target_arch = "x86_64")]
                if ctx.avx2 {
                    // SAFETY: `ctx.avx2` is only set when the CPU has AVX2
                    // and its bit instructions (`simd::avx2_available`).
                    unsafe { crate::simd::with_avx2(count) }
                } else {
                    count()
                }
                #[cfg(not(target_arch = "x86_64"))]
                count();
                for (o, &n) in out.iter_mut().zip(counts.iter()) {
                    *o = u64::from(n);
                }
            } else {
                with_arith!(ty, T => {
                    let vals = decode::<T>(src);
                    for (l, o) in out.iter_mut().enumerate() {
                        *o = multi_prefix_lane::<T>(op, vals.as_slice(w), mask, partition, l, ctx.order).to_lane();
                    }
                }, ())
            }
            self.reg_mut(dst)[lanes].copy_from_slice(out);
        }
        self.clear_idle_parts(&[dst], w);
    }
}

/// `WaveMultiPrefixCountBits` on every lane of a batch of `w`-lane waves:
/// `out[l]` counts the lanes below `l` in its wave that are in `set` (the
/// batch's active lanes whose bit is true) and in `l`'s partition, the
/// `uint4` of `parts` (as `wave::multi_prefix_count_bits_wave` does it
/// for one wave).
#[inline(always)]
fn count_in_partitions(set: Mask, parts: [&[u64]; 4], out: &mut [u64], w: usize) {
    let shift = w.trailing_zeros();
    for (l, o) in out.iter_mut().enumerate() {
        let (start, i) = ((l >> shift) << shift, l & (w - 1));
        let partition = parts
            .iter()
            .rev()
            .fold(0 as Mask, |m, p| m << 32 | Mask::from(p[l] as u32));
        let below = (1 as Mask).wrapping_shl(i as u32).wrapping_sub(1);
        *o = u64::from(((set >> start) & partition & below).count_ones());
    }
}

/// The lanes of register `dst` to write and of `src` to read, in a
/// register file of `w` lanes per register; `src`'s are copied to
/// `scratch` first when it is `dst` ([`Wave::with_operands`] for one
/// operand, without a closure).
#[inline(always)]
fn dst_and_operand<'r>(
    regs: &'r mut [u64],
    w: usize,
    dst: Reg,
    src: Reg,
    scratch: &'r mut [u64],
) -> (&'r mut [u64], &'r [u64]) {
    let (d, s) = (dst.0 as usize, src.0 as usize);
    if s < d {
        let (below, rest) = regs.split_at_mut(d * w);
        (&mut rest[..w], &below[s * w..][..w])
    } else if s > d {
        let (rest, above) = regs.split_at_mut(s * w);
        (&mut rest[d * w..][..w], &above[..w])
    } else {
        let copy = &mut scratch[..w];
        let lanes = &mut regs[d * w..][..w];
        copy.copy_from_slice(lanes);
        (lanes, copy)
    }
}

/// One system value of one wave of each group of a batch, to fill in.
struct SvFill<'a> {
    sv: SystemValue,
    /// The component.
    k: usize,
    /// The SV_GroupIndex of the wave's lanes.
    indices: &'a [u32],
    /// The component of the group thread ids of the wave's lanes (fewer
    /// than a wave when the group ends inside it).
    ids: &'a [u32],
    /// The group's extent in component `k`.
    extent: u32,
    group_ids: &'a [[u32; 3]],
}

impl SvFill<'_> {
    /// Fills `lanes`, `W` per group, with the values as `u32` bits. The
    /// wave's lanes hold the same group index and group thread id in every
    /// group: one pattern, copied into each or added to each group's base.
    fn write_to<const W: usize>(&self, lanes: &mut [u64]) {
        let mut pattern = [0u64; W];
        match self.sv {
            SystemValue::GroupIndex => {
                for (o, &index) in pattern.iter_mut().zip(self.indices) {
                    *o = u64::from(index);
                }
            }
            SystemValue::GroupThreadId | SystemValue::DispatchThreadId => {
                for (o, &id) in pattern.iter_mut().zip(self.ids) {
                    *o = u64::from(id);
                }
            }
            SystemValue::GroupId => {}
        }
        let outs = lanes.as_chunks_mut::<W>().0.iter_mut().zip(self.group_ids);
        match self.sv {
            SystemValue::GroupIndex | SystemValue::GroupThreadId => {
                for (out, _) in outs {
                    *out = pattern;
                }
            }
            SystemValue::GroupId => {
                for (out, group_id) in outs {
                    *out = [u64::from(group_id[self.k]); W];
                }
            }
            SystemValue::DispatchThreadId => {
                for (out, group_id) in outs {
                    let base = u64::from(group_id[self.k].wrapping_mul(self.extent));
                    *out = std::array::from_fn(|l| (base + pattern[l]) & 0xFFFF_FFFF);
                }
            }
        }
    }
}

/// A batch's waves as the `W`-bit fields of its masks (wave `c` in bits
/// `c·W .. (c+1)·W`), for questions about every wave at once in a few
/// integer operations.
#[derive(Clone, Copy, Debug, Default)]
struct Segments {
    /// The top bit of every wave's field.
    high: Mask,
    /// log2 of the wave size: lane `l` is in wave `l >> shift`.
    shift: u32,
}

impl Segments {
    fn new(w: usize, waves: usize) -> Segments {
        // A one every `w` bits, by doubling, cut to the waves.
        let mut low: Mask = 1;
        let mut span = w;
        while span < 128 {
            low |= low << span;
            span *= 2;
        }
        Segments {
            high: (low & full_mask(w * waves)) << (w - 1),
            shift: w.trailing_zeros(),
        }
    }

    /// The first lane of every wave.
    #[inline(always)]
    fn first_lanes(self) -> Mask {
        self.high >> ((1 << self.shift) - 1)
    }

    /// The top bit of the field of each wave where `m` has a lane set.
    /// Adding the field's low bits to its own low bits of `m` carries into
    /// the top bit exactly when one of them is set, and never beyond it.
    #[inline(always)]
    fn nonzero(self, m: Mask) -> Mask {
        let low = !self.high;
        (((m & low) + low) | m) & self.high
    }

    /// Every lane of the waves whose top bit is set in `bits` (`w` lanes
    /// per wave): the bit moved to the wave's first lane, times a field of
    /// ones (fields do not overlap, so nothing carries).
    #[inline(always)]
    fn fill(self, bits: Mask, w: usize) -> Mask {
        if w >= 128 {
            return if bits != 0 { Mask::MAX } else { 0 };
        }
        (bits >> (w - 1)) * ((1 << w) - 1)
    }

    /// `out[l]` = 1 where the top bit of lane `l`'s wave is set in `bits`,
    /// else 0 (`w` lanes per wave).
    #[inline(always)]
    fn spread(self, bits: Mask, w: usize, out: &mut [u64]) {
        if w > 64 {
            out.fill(u64::from(bits != 0));
            return;
        }
        let top = (w - 1) as u64;
        let halves = [bits as u64, (bits >> 64) as u64];
        for (lanes, half) in out.chunks_mut(64).zip(halves) {
            for (i, o) in lanes.iter_mut().enumerate() {
                *o = (half >> (i as u64 | top)) & 1;
            }
        }
    }
}

/// The lanes where the 32-bit comparison `op` of `a`'s lanes with `b`'s
/// (`Ok`) or with a constant (`Err`) holds: [`Op32`]'s comparisons on the
/// registers' low 32 bits.
#[inline(always)]
fn compare_lanes(op: Cmp32, a: &[u64], b: Result<&[u64], u32>) -> Mask {
    // The low 32 bits as a 64-bit number, which orders them as `uint`;
    // with the sign bit flipped, as `int`. Compared as 64-bit lanes (no
    // packing of halves), a vector compare for four lanes.
    const LOW32: u64 = 0xFFFF_FFFF;
    let int = |x: u64| x & LOW32;
    let signed = |x: u64| (x ^ 0x8000_0000) & LOW32;
    let float = |x: u64| f32::from_bits(x as u32);
    macro_rules! lanes {
        ($view:ident, $cmp:tt) => {
            match b {
                Ok(b) => lanes_where2(a, b, |x, y| $view(x) $cmp $view(y)),
                Err(y) => {
                    let y = u64::from(y);
                    lanes_where(a, |x| $view(x) $cmp $view(y))
                }
            }
        };
    }
    match op {
        Cmp32::Eq => lanes!(int, ==),
        Cmp32::Ne => lanes!(int, !=),
        Cmp32::LtU => lanes!(int, <),
        Cmp32::LeU => lanes!(int, <=),
        Cmp32::GtU => lanes!(int, >),
        Cmp32::GeU => lanes!(int, >=),
        Cmp32::LtS => lanes!(signed, <),
        Cmp32::LeS => lanes!(signed, <=),
        Cmp32::GtS => lanes!(signed, >),
        Cmp32::GeS => lanes!(signed, >=),
        Cmp32::FEq => lanes!(float, ==),
        Cmp32::FNe => lanes!(float, !=),
        Cmp32::FLt => lanes!(float, <),
        Cmp32::FLe => lanes!(float, <=),
        Cmp32::FGt => lanes!(float, >),
        Cmp32::FGe => lanes!(float, >=),
    }
}

/// The lanes where `pred` holds, built 64 lanes at a time.
#[inline(always)]
fn lanes_where(src: &[u64], pred: impl Fn(u64) -> bool + Copy) -> Mask {
    lanes_where2(src, src, |x, _| pred(x))
}

/// The lanes where `pred` holds of `a`'s and `b`'s lanes, built 64 lanes
/// at a time (`b` at least as long as `a`).
#[inline(always)]
fn lanes_where2(a: &[u64], b: &[u64], pred: impl Fn(u64, u64) -> bool + Copy) -> Mask {
    // 64 lanes at a time into one word: the fixed count lets the compiler
    // unroll the loop into a vector compare, a bit pick and an `or` per
    // four lanes, with no shift that depends on the lane before.
    #[inline(always)]
    fn word(a: &[u64; 64], b: &[u64; 64], pred: impl Fn(u64, u64) -> bool) -> u64 {
        let mut bits = 0;
        for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
            bits |= u64::from(pred(x, y)) << i;
        }
        bits
    }
    let b = &b[..a.len()];
    let (words, rest) = a.as_chunks::<64>();
    let (b_words, b_rest) = b.as_chunks::<64>();
    let mut mask: Mask = 0;
    for (c, (x, y)) in words.iter().zip(b_words).enumerate() {
        mask |= Mask::from(word(x, y, pred)) << (64 * c);
    }
    // Fewer than 64 lanes left (a wave of up to 32 lanes is all rest): one
    // 64-bit word, then one 128-bit shift.
    if rest.is_empty() {
        return mask;
    }
    let mut bits = 0u64;
    for (i, (&x, &y)) in rest.iter().zip(b_rest).enumerate() {
        bits |= u64::from(pred(x, y)) << i;
    }
    mask | Mask::from(bits) << (64 * words.len())
}

/// The lanes whose register value is not zero.
#[inline(always)]
fn nonzero_lanes(src: &[u64]) -> Mask {
    lanes_where(src, |v| v != 0)
}

/// The lanes whose register holds `v`.
#[inline(always)]
fn lanes_equal_to(src: &[u64], v: u64) -> Mask {
    lanes_where(src, |x| x == v)
}

/// `dst[l] = src[l]` narrowed to its low 32 bits.
#[inline(always)]
fn narrow(dst: &mut [u32], src: &[u64]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = s as u32;
    }
}

/// `dst[l] = src[l]` zero-extended, on every lane or on the lanes set in
/// `mask` (64 lanes at a time, a shift per lane the compiler vectorises).
#[inline(always)]
fn widen(dst: &mut [u64], src: &[u32], mask: Option<Mask>) {
    let Some(mask) = mask else {
        for (d, &s) in dst.iter_mut().zip(src) {
            *d = u64::from(s);
        }
        return;
    };
    let halves = [mask as u64, (mask >> 64) as u64];
    for ((dst, src), half) in dst.chunks_mut(64).zip(src.chunks(64)).zip(halves) {
        for (i, (d, &s)) in dst.iter_mut().zip(src).enumerate() {
            let k = 0u64.wrapping_sub((half >> i) & 1);
            *d = (*d & !k) | (u64::from(s) & k);
        }
    }
}

/// `mask`'s first `w` lanes as words, all ones where the lane is set
/// (64 lanes at a time, a shift per lane the compiler vectorises).
#[inline(always)]
fn expand_mask(mask: Mask, w: usize, out: &mut Vec<u64>) {
    out.resize(w, 0);
    let halves = [mask as u64, (mask >> 64) as u64];
    for (lanes, half) in out.chunks_mut(64).zip(halves) {
        for (i, o) in lanes.iter_mut().enumerate() {
            *o = 0u64.wrapping_sub((half >> i) & 1);
        }
    }
}

/// `d[l] = s[l]` on the lanes where `keep[l]` is all ones (it is all ones
/// or zero), without a branch per lane.
#[inline(always)]
fn blend(d: &mut [u64], s: &[u64], keep: &[u64]) {
    for ((d, &s), &k) in d.iter_mut().zip(s).zip(keep) {
        *d = (*d & !k) | (s & k);
    }
}

/// The common wave ops straight on register lanes, without decoding the
/// wave into a value array: the same results as `lane_op` with ascending
/// order (the property tests compare both with lockstep-wave). `false`
/// when `op` has no fast path.
fn fast_wave_op(op: WaveOp, ty: ScalarType, src: &[u64], mask: Mask, out: &mut [u64]) -> bool {
    match op {
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
        WaveOp::Min | WaveOp::Max
            if ty == ScalarType::Float32 && mask != 0 && mask == full_mask(src.len()) =>
        {
            match f32_min_max(src, op == WaveOp::Max) {
                Some(bits) => {
                    out.fill(bits);
                    true
                }
                // Every lane a NaN: the ordered fold says which.
                None => fast_arith::<f32>(op, src, mask, out),
            }
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

/// The common wave ops of a batch whose waves all have every lane active,
/// `w` lanes each, for the narrow waves, where the per-wave work of
/// [`fast_wave_op`] is mostly its own overhead: each wave a loop of a
/// length known when compiling. The same results as `fast_wave_op`;
/// `false` when `op`, `ty` or `w` has no such path. With `avx2`, the
/// loops are the AVX2 ones.
fn whole_waves(
    op: WaveOp,
    ty: ScalarType,
    src: &[u64],
    out: &mut [u64],
    w: usize,
    avx2: bool,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: `avx2` is only set when the CPU has AVX2 and its bit
        // instructions (`simd::avx2_available`).
        return unsafe { whole_waves_avx2(op, ty, src, out, w) };
    }
    let _ = avx2;
    whole_waves_for(op, ty, src, out, w)
}

/// [`whole_waves`] compiled for AVX2.
///
/// # Safety
/// The CPU must have AVX2 ([`crate::simd::avx2_available`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,bmi1,bmi2,lzcnt")]
unsafe fn whole_waves_avx2(
    op: WaveOp,
    ty: ScalarType,
    src: &[u64],
    out: &mut [u64],
    w: usize,
) -> bool {
    whole_waves_for(op, ty, src, out, w)
}

/// [`whole_waves`], inlined into each instruction set's copy.
#[inline(always)]
fn whole_waves_for(op: WaveOp, ty: ScalarType, src: &[u64], out: &mut [u64], w: usize) -> bool {
    match w {
        4 => whole_waves_of::<4>(op, ty, src, out),
        8 => whole_waves_of::<8>(op, ty, src, out),
        16 => whole_waves_of::<16>(op, ty, src, out),
        32 => whole_waves_of::<32>(op, ty, src, out),
        _ => false,
    }
}

#[inline(always)]
fn whole_waves_of<const W: usize>(
    op: WaveOp,
    ty: ScalarType,
    src: &[u64],
    out: &mut [u64],
) -> bool {
    // Waves as arrays, so that each wave's loop has its length.
    let (waves, outs) = (src.as_chunks::<W>().0, out.as_chunks_mut::<W>().0);
    match op {
        WaveOp::IsFirstLane => {
            for o in outs {
                *o = [0; W];
                o[0] = 1;
            }
            true
        }
        WaveOp::ReadLaneFirst => {
            for (s, o) in waves.iter().zip(outs) {
                *o = [s[0]; W];
            }
            true
        }
        WaveOp::Min | WaveOp::Max if ty == ScalarType::Float32 && W >= 32 => {
            let max = op == WaveOp::Max;
            for (s, o) in waves.iter().zip(outs) {
                match f32_min_max(s, max) {
                    Some(bits) => *o = [bits; W],
                    // Every lane a NaN: the ordered fold says which.
                    None => _ = fast_arith::<f32>(op, s, full_mask(W), o),
                }
            }
            true
        }
        WaveOp::Min | WaveOp::Max if ty == ScalarType::Float32 => {
            // Narrow waves: the keys of the whole batch in one flat loop,
            // then each wave's best. Both vectorise, where a wave of 8 at
            // a time of `f32_min_max` became scalar code.
            let max = op == WaveOp::Max;
            let mut keys = [0i32; 128];
            for (k, &v) in keys.iter_mut().zip(src) {
                *k = f32_key(v, max);
            }
            let lose = f32_losing_key(max);
            for ((k, s), o) in keys.as_chunks::<W>().0.iter().zip(waves).zip(outs) {
                let best = if max {
                    k.iter().fold(lose, |m, &k| Ord::max(m, k))
                } else {
                    k.iter().fold(lose, |m, &k| Ord::min(m, k))
                };
                match f32_of_key(best, max) {
                    Some(bits) => *o = [bits; W],
                    // Every lane a NaN: the ordered fold says which.
                    None => _ = fast_arith::<f32>(op, s, full_mask(W), o),
                }
            }
            true
        }
        WaveOp::Sum | WaveOp::PrefixSum | WaveOp::Min | WaveOp::Max => {
            with_int!(ty, T => int_waves::<W, T>(op, src, out), false)
        }
        _ => false,
    }
}

/// [`whole_waves_of`] for integers, whose sums, minimums and maximums do
/// not depend on the order lanes are folded in.
#[inline(always)]
fn int_waves<const W: usize, T: Val + Arith>(op: WaveOp, src: &[u64], out: &mut [u64]) -> bool {
    match op {
        WaveOp::Sum => int_fold::<W, T>(false, src, out, T::ZERO, T::add),
        WaveOp::PrefixSum => int_fold::<W, T>(true, src, out, T::ZERO, T::add),
        WaveOp::Min => int_fold::<W, T>(false, src, out, T::HIGHEST, <T as Arith>::min),
        WaveOp::Max => int_fold::<W, T>(false, src, out, T::LOWEST, <T as Arith>::max),
        _ => return false,
    }
    true
}

/// Each `W`-lane wave's reduction (or with `prefix`, exclusive scan) of
/// `src` with `f`, into `out`.
#[inline(always)]
fn int_fold<const W: usize, T: Val>(
    prefix: bool,
    src: &[u64],
    out: &mut [u64],
    identity: T,
    f: impl Fn(T, T) -> T,
) {
    let (waves, outs) = (src.as_chunks::<W>().0, out.as_chunks_mut::<W>().0);
    for (s, o) in waves.iter().zip(outs) {
        if prefix {
            let mut acc = identity;
            for (o, &v) in o.iter_mut().zip(s) {
                *o = acc.to_lane();
                acc = f(acc, T::from_lane(v));
            }
        } else {
            let total = s.iter().fold(identity, |acc, &v| f(acc, T::from_lane(v)));
            *o = [total.to_lane(); W];
        }
    }
}

/// The minimum (or with `max`, the maximum) of `f32` lanes under minNum
/// (maxNum), as integer keys: `None` when every lane is a NaN.
///
/// IEEE totalOrder's key of a float's bits is an `i32` ordered as the
/// values are, with -0 before +0. minNum drops NaNs and orders -0 before
/// +0, so among lanes that are not NaN it picks the lane of the smallest
/// key, and keys of distinct bit patterns differ: the fold's result is the
/// bits of the smallest key, in any lane order. A NaN's key is made the
/// largest (`i32::MAX`, for `max` the smallest), which no number's key is.
/// A loop without branches, which the compiler vectorises.
#[inline(always)]
fn f32_min_max(src: &[u64], max: bool) -> Option<u64> {
    let lose = f32_losing_key(max);
    let best = if max {
        src.iter().fold(lose, |m, &v| Ord::max(m, f32_key(v, max)))
    } else {
        src.iter().fold(lose, |m, &v| Ord::min(m, f32_key(v, max)))
    };
    f32_of_key(best, max)
}

/// The key of a NaN in [`f32_min_max`]: the largest, for `max` the
/// smallest.
#[inline(always)]
fn f32_losing_key(max: bool) -> i32 {
    if max { i32::MIN } else { i32::MAX }
}

/// The low 31 bits flipped where the sign is set: bits to key, and (being
/// its own inverse) key to bits.
#[inline(always)]
fn flip_key(x: i32) -> i32 {
    x ^ ((x >> 31) as u32 >> 1) as i32
}

/// A lane's key in [`f32_min_max`].
#[inline(always)]
fn f32_key(lane: u64, max: bool) -> i32 {
    let bits = lane as u32;
    if bits & 0x7FFF_FFFF > 0x7F80_0000 {
        f32_losing_key(max)
    } else {
        flip_key(bits as i32)
    }
}

/// The lane bits of the best key, `None` when it is the losing key (every
/// lane a NaN).
#[inline(always)]
fn f32_of_key(best: i32, max: bool) -> Option<u64> {
    (best != f32_losing_key(max)).then(|| u64::from(flip_key(best) as u32))
}

/// Sums, products, minimums and maximums, and the prefix sum and product,
/// folded in ascending lane order as lockstep-wave does.
fn fast_arith<T: Val + Arith>(op: WaveOp, src: &[u64], mask: Mask, out: &mut [u64]) -> bool {
    match op {
        WaveOp::Sum | WaveOp::PrefixSum => fast_fold(op, src, mask, out, T::ZERO, T::add),
        WaveOp::Product | WaveOp::PrefixProduct => fast_fold(op, src, mask, out, T::ONE, T::mul),
        WaveOp::Min => fast_fold(op, src, mask, out, T::HIGHEST, <T as Arith>::min),
        WaveOp::Max => fast_fold(op, src, mask, out, T::LOWEST, <T as Arith>::max),
        _ => return false,
    }
    true
}

/// A reduction or exclusive scan of the active lanes with `f`, as a left
/// fold in ascending lane order (`identity` where no lane is folded).
#[inline(always)]
fn fast_fold<T: Val + PartialEq>(
    op: WaveOp,
    src: &[u64],
    mask: Mask,
    out: &mut [u64],
    identity: T,
    f: impl Fn(T, T) -> T,
) {
    let mut acc: Option<T> = None;
    let prefix = matches!(op, WaveOp::PrefixSum | WaveOp::PrefixProduct);
    // The active lanes run from the first to lane `run` (every lane, or a
    // group smaller than its wave): loops with no mask bit and no
    // `Option` per lane, the first lane's value starting the fold.
    let run = (mask != 0 && mask & mask.wrapping_add(1) == 0)
        .then(|| (mask.count_ones() as usize).min(src.len()));
    if let Some(n) = run.filter(|_| prefix) {
        out[0] = identity.to_lane();
        let mut acc = T::from_lane(src[0]);
        for (o, &v) in out[1..n].iter_mut().zip(&src[1..n]) {
            *o = acc.to_lane();
            acc = f(acc, T::from_lane(v));
        }
        // Lanes past the run: the whole run's fold, as for inactive lanes
        // below.
        out[n..].fill(acc.to_lane());
    } else if prefix {
        for (l, o) in out.iter_mut().enumerate() {
            *o = acc.unwrap_or(identity).to_lane();
            if mask >> l & 1 == 1 {
                let v = T::from_lane(src[l]);
                acc = Some(acc.map_or(v, |a| f(a, v)));
            }
        }
    } else {
        let folded = if let Some(n) = run {
            let src = &src[..n];
            let ordered = || {
                // A loop without mask bits, which the compiler can
                // vectorise where `f` is associative (integers).
                src[1..]
                    .iter()
                    .fold(T::from_lane(src[0]), |acc, &v| f(acc, T::from_lane(v)))
            };
            if matches!(op, WaveOp::Min | WaveOp::Max) && src.len() >= 4 {
                // Minimums and maximums in four independent chains. The
                // order cannot change the result unless every lane is a NaN
                // (minNum and maxNum drop a NaN, and order -0 before +0):
                // a NaN result takes the ordered fold, which returns the
                // last NaN.
                let mut acc: [T; 4] = std::array::from_fn(|i| T::from_lane(src[i]));
                for quad in src[4..].chunks(4) {
                    for (a, &v) in acc.iter_mut().zip(quad) {
                        *a = f(*a, T::from_lane(v));
                    }
                }
                let r = f(f(acc[0], acc[1]), f(acc[2], acc[3]));
                #[allow(clippy::eq_op)] // only a NaN is not equal to itself
                if r == r { r } else { ordered() }
            } else {
                ordered()
            }
        } else if mask == 0 {
            identity
        } else {
            // The first active lane starts the fold: no `Option` in the
            // loop.
            let mut acc = T::from_lane(src[mask.trailing_zeros() as usize]);
            let mut m = mask & (mask - 1);
            while m != 0 {
                acc = f(acc, T::from_lane(src[m.trailing_zeros() as usize]));
                m &= m - 1;
            }
            acc
        };
        out.fill(folded.to_lane());
    }
}

pub(crate) fn multi_prefix_lane<T: Val + Arith + MaybeBits>(
    op: WaveOp,
    v: &[T],
    mask: Mask,
    p: &[[u32; 4]],
    l: usize,
    order: ReductionOrder,
) -> T {
    let sum = op == WaveOp::MultiPrefixSum;
    if order != ReductionOrder::Ascending
        && !T::ORDER_FREE
        && (sum || op == WaveOp::MultiPrefixProduct)
    {
        let group = wave::ballot_to_mask(p[l]) & mask;
        let mut below = [T::ZERO; 128];
        let mut n = 0;
        for k in (0..l).filter(|k| group >> k & 1 == 1) {
            below[n] = v[k];
            n += 1;
        }
        let identity = if sum { T::ZERO } else { T::ONE };
        return combine(&below[..n], order, &|a: T, b: T| {
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

/// [`texel_offset`] for every lane of `out`, when the texture's `extent`
/// times `texel_size` is known to fit below [`TEXEL_OUT_OF_RANGE`]: the
/// first `count` coordinates are in `xyz` (the others are 0).
#[inline(always)]
fn texel_offsets(out: &mut [u64], xyz: [&[u64]; 3], count: usize, extent: [u64; 3], ts: u64) {
    let [wd, ht, dp] = extent;
    let texel = |x: u64, y: u64, z: u64| {
        let (x, y, z) = (x & 0xFFFF_FFFF, y & 0xFFFF_FFFF, z & 0xFFFF_FFFF);
        let inside = x < wd && y < ht && z < dp;
        // Wrapping: the offset of a texel outside is not used.
        let offset = z
            .wrapping_mul(ht)
            .wrapping_add(y)
            .wrapping_mul(wd)
            .wrapping_add(x)
            .wrapping_mul(ts);
        if inside { offset } else { TEXEL_OUT_OF_RANGE }
    };
    match count {
        0 => out.fill(0),
        1 => out
            .iter_mut()
            .zip(xyz[0])
            .for_each(|(o, &x)| *o = texel(x, 0, 0)),
        2 => {
            for ((o, &x), &y) in out.iter_mut().zip(xyz[0]).zip(xyz[1]) {
                *o = texel(x, y, 0);
            }
        }
        _ => {
            for (((o, &x), &y), &z) in out.iter_mut().zip(xyz[0]).zip(xyz[1]).zip(xyz[2]) {
                *o = texel(x, y, z);
            }
        }
    }
}

/// An index's bits (of type `index_ty`, sign-extended when it is a signed
/// integer) times `scale`, in wrapping 64-bit arithmetic: `IndexScale`'s
/// value, which the compiler also folds for a literal index.
#[inline(always)]
pub(crate) fn scale_index(raw: u64, index_ty: ScalarType, scale: u64) -> u64 {
    let bits = if index_ty.is_signed() && index_ty.is_integer() {
        index_ty.bits()
    } else {
        64
    };
    sign_extend(raw, bits).wrapping_mul(scale)
}

fn sign_extend(raw: u64, bits: u32) -> u64 {
    if bits >= 64 {
        raw
    } else {
        let shift = 64 - bits;
        (((raw << shift) as i64) >> shift) as u64
    }
}

/// Lane `first` and the lanes of `rest` (above it), all updating one
/// in-bounds word with a combining atomic `op` (see `memory::combining`,
/// whose fold is `fold`).
struct Joined {
    op: AtomicOp,
    ty: ScalarType,
    fold: fn(u32, u32) -> u32,
    first: usize,
    rest: Mask,
}

impl Joined {
    /// One read-modify-write of the word at `at` with the lanes' operands
    /// (register `a`'s lanes) folded in lane order; each lane's original
    /// value (into register `dst`'s lanes) is the one before it updated by
    /// the lanes below, as going one after another with no other thread in
    /// between. `a` and `dst` are the registers' first indices in `regs`,
    /// of `w` lanes each.
    #[inline(always)]
    fn apply(&self, mem: &Memory, at: u64, regs: &mut [u64], a: usize, dst: usize, w: usize) {
        let (op, fold) = (self.op, self.fold);
        let total = fold_lanes(op, fold, &regs[a..a + w], self.first, self.rest);
        let mut seen = mem.atomic(at, self.ty, op, u64::from(total), 0) as u32;
        for l in std::iter::once(self.first).chain(crate::mask_lanes(self.rest)) {
            let value = regs[a + l] as u32;
            regs[dst + l] = u64::from(seen);
            seen = if op == AtomicOp::Add {
                seen.wrapping_add(value)
            } else {
                fold(seen, value)
            };
        }
    }
}

/// The values of lane `first` and then the lanes of `rest` (above it)
/// folded with `fold`, the fold of the combining atomic `op` (see
/// `memory::combining`); an add without a call per lane.
#[inline(always)]
fn fold_lanes(
    op: AtomicOp,
    fold: fn(u32, u32) -> u32,
    values: &[u64],
    first: usize,
    rest: Mask,
) -> u32 {
    let value = |l: usize| values[l] as u32;
    let lanes = crate::mask_lanes(rest);
    match op {
        AtomicOp::Add => lanes.fold(value(first), |t, l| t.wrapping_add(value(l))),
        _ => lanes.fold(value(first), |t, l| fold(t, value(l))),
    }
}

/// The byte address `addr` names for `lane`.
#[inline(always)]
fn address(regs: &[u64], addr: Address, lane: usize, w: usize) -> u64 {
    let base = addr.dynamic.map_or(0, |r| regs[r.0 as usize * w + lane]);
    base.wrapping_add(u64::from(addr.offset))
}

/// The lanes of a batch register that share one memory for `addr`: every
/// lane for a resource, each wave's own for groupshared memory (wave `c` of
/// the batch is group `c`'s, see [`memory`]).
#[inline(always)]
fn memory_chunk(addr: Address, w: usize, ww: usize) -> usize {
    match addr.space {
        Space::Resource(_) => w,
        Space::Groupshared => ww,
    }
}

/// The memory of `space` for the lanes of wave `part` of a batch.
#[inline(always)]
fn memory<'a>(ctx: &'a Context, gs: &'a [Memory<'a>], space: Space, part: usize) -> &'a Memory<'a> {
    match space {
        Space::Groupshared => &gs[part],
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
pub(crate) trait MaybeBits: Sized {
    /// Whether sums and products come out the same in any order (wrapping
    /// integers), so that a reduction order changes nothing.
    const ORDER_FREE: bool;
    fn reduce_bits(op: WaveOp, v: &[Self], mask: Mask) -> Option<Self>;
    fn multi_bits(op: WaveOp, v: &[Self], mask: Mask, p: &[[u32; 4]], l: usize) -> Option<Self>;
}

macro_rules! maybe_bits {
    (yes: $($t:ty),*; no: $($n:ty),*) => {
        $(impl MaybeBits for $t {
            const ORDER_FREE: bool = true;
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
            const ORDER_FREE: bool = false;
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
    // The active lanes' values in lane order: those below lane `l` are the
    // first `below[l]`.
    let mut values = [identity; 128];
    let mut below = [0usize; 128];
    let mut n = 0;
    for (l, &x) in v.iter().enumerate() {
        below[l] = n;
        if mask >> l & 1 == 1 {
            values[n] = x;
            n += 1;
        }
    }
    if matches!(op, WaveOp::Sum | WaveOp::Product) {
        out.fill(
            combine(&values[..n], order, &f)
                .unwrap_or(identity)
                .to_lane(),
        );
    } else {
        for (o, &b) in out.iter_mut().zip(&below) {
            *o = combine(&values[..b], order, &f)
                .unwrap_or(identity)
                .to_lane();
        }
    }
    true
}

macro_rules! maybe_arith {
    ($($t:ty),*) => {$(
        impl MaybeArith for $t {
            fn reduce(op: WaveOp, v: &[Self], mask: Mask, out: &mut [u64], order: ReductionOrder) -> bool {
                if order != ReductionOrder::Ascending
                    && !<$t as MaybeBits>::ORDER_FREE
                    && reordered(op, v, mask, out, order)
                {
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Float bit patterns of every kind: zeros, subnormals, normals,
    /// infinities and NaNs (quiet and signalling, either sign).
    fn f32_bits() -> impl Strategy<Value = u32> {
        prop_oneof![
            Just(0u32),
            Just(0x8000_0000),
            Just(0x7F80_0000),
            Just(0xFF80_0000),
            0x7F80_0001u32..=0x7FFF_FFFF,
            0xFF80_0001u32..=0xFFFF_FFFF,
            0u32..0x0080_0000,
            0x8000_0000u32..0x8080_0000,
            any::<u32>(),
            (-4i32..4).prop_map(|v| (v as f32).to_bits()),
        ]
    }

    proptest! {
        /// The integer-key minimum and maximum against lockstep-wave's
        /// ordered folds of minNum and maxNum, bit for bit.
        #[test]
        fn f32_min_max_by_keys_is_the_ordered_fold(
            lanes in prop::collection::vec(f32_bits(), 1..=128),
        ) {
            let src: Vec<u64> = lanes.iter().map(|&b| u64::from(b)).collect();
            let vals: Vec<f32> = lanes.iter().map(|&b| f32::from_bits(b)).collect();
            let mask = full_mask(vals.len());
            let all_nan = vals.iter().all(|v| v.is_nan());
            for (max, folded) in [
                (false, wave::active_min(&vals, mask)),
                (true, wave::active_max(&vals, mask)),
            ] {
                let ours = f32_min_max(&src, max);
                if all_nan {
                    prop_assert_eq!(ours, None);
                } else {
                    prop_assert_eq!(ours, Some(u64::from(folded.to_bits())), "max: {}", max);
                }
            }
        }
    }

    /// `op` on each `w`-lane wave of `src` by lockstep-wave, every lane
    /// active.
    fn by_wave<T: Val + Arith>(op: WaveOp, src: &[u64], w: usize) -> Vec<u64> {
        let mask = full_mask(w);
        src.chunks(w)
            .flat_map(|s| {
                let vals: Vec<T> = s.iter().map(|&b| T::from_lane(b)).collect();
                (0..w).map(move |l| match op {
                    WaveOp::Sum => wave::active_sum(&vals, mask).to_lane(),
                    WaveOp::PrefixSum => wave::prefix_sum(&vals, mask, l).to_lane(),
                    WaveOp::Min => wave::active_min(&vals, mask).to_lane(),
                    WaveOp::Max => wave::active_max(&vals, mask).to_lane(),
                    WaveOp::IsFirstLane => u64::from(wave::is_first_lane(mask, l)),
                    WaveOp::ReadLaneFirst => {
                        wave::read_lane_first(&vals, mask).map_or(0, Val::to_lane)
                    }
                    _ => unreachable!("{op:?}"),
                })
            })
            .collect()
    }

    proptest! {
        /// The whole-wave paths against lockstep-wave wave by wave: sums,
        /// exclusive prefix sums, minimums and maximums of every integer
        /// type and of `f32`, and the first-lane flags; float sums have no
        /// such path (their order matters).
        #[test]
        fn whole_waves_are_each_wave_by_lockstep_wave(
            shift in 2u32..=5,
            waves in 1usize..=32,
            raw in prop::collection::vec(
                prop_oneof![any::<u64>(), (0u64..8), Just(u64::MAX)], 128),
            floats in prop::collection::vec(f32_bits(), 128),
        ) {
            let w = 1usize << shift;
            let n = w * waves.min(128 / w);
            let types = [
                ScalarType::UInt32, ScalarType::Int32, ScalarType::UInt64,
                ScalarType::Int64, ScalarType::UInt16, ScalarType::Int16, ScalarType::Float32,
            ];
            for ty in types {
                // Canonical register bits of the type.
                let src: Vec<u64> = if ty == ScalarType::Float32 {
                    floats[..n].iter().map(|&b| u64::from(b)).collect()
                } else {
                    with_int!(ty, T => raw[..n].iter().map(|&b| T::from_lane(b).to_lane()).collect(), unreachable!())
                };
                let ops = [
                    WaveOp::Sum, WaveOp::PrefixSum, WaveOp::Min, WaveOp::Max,
                    WaveOp::IsFirstLane, WaveOp::ReadLaneFirst,
                ];
                let sets = [false, crate::simd::avx2_available()];
                for (op, avx2) in ops.into_iter().flat_map(|op| sets.map(|set| (op, set))) {
                    let mut out = vec![7; n];
                    let done = whole_waves(op, ty, &src, &mut out, w, avx2);
                    if ty == ScalarType::Float32 && matches!(op, WaveOp::Sum | WaveOp::PrefixSum) {
                        prop_assert!(!done);
                        continue;
                    }
                    prop_assert!(done, "{:?} {:?}", op, ty);
                    let want = with_arith!(ty, T => by_wave::<T>(op, &src, w), unreachable!());
                    prop_assert_eq!(out, want, "{:?} {:?} wave size {} avx2 {}", op, ty, w, avx2);
                }
            }
        }
    }

    proptest! {
        /// The masks of lanes with a nonzero value and of lanes equal to a
        /// value, for every length from 1 to 128 lanes (whole 64-lane words,
        /// a rest, or both), against a fold lane by lane.
        #[test]
        fn lane_masks_are_the_lanes_one_by_one(
            src in prop::collection::vec(prop_oneof![Just(0u64), Just(7), any::<u64>()], 1..=128),
        ) {
            let by_lane = |pred: &dyn Fn(u64) -> bool| {
                src.iter().enumerate().filter(|&(_, &v)| pred(v)).fold(0 as Mask, |m, (l, _)| m | 1 << l)
            };
            prop_assert_eq!(nonzero_lanes(&src), by_lane(&|v| v != 0));
            prop_assert_eq!(lanes_equal_to(&src, 7), by_lane(&|v| v == 7));
        }
    }

    /// Masks whose waves are often empty, full or a single lane.
    fn sparse_mask() -> impl Strategy<Value = Mask> {
        (any::<u128>(), any::<u128>(), any::<u128>()).prop_map(|(a, b, c)| a & b & c)
    }

    proptest! {
        /// `WaveMatch` leaves every lane of its four result registers as
        /// lockstep-wave's `match_mask` gives it, inactive lanes included
        /// (the reference's stand-in: the active lanes with their value,
        /// and the lane itself), and zeros in waves with no active lane.
        #[test]
        fn wave_match_gives_every_lane_the_reference_mask(
            small in prop::collection::vec(0u64..4, 32),
            floats in prop::collection::vec(f32_bits(), 32),
            cur in prop_oneof![sparse_mask(), any::<u128>(), Just(Mask::MAX)],
            avx2 in any::<bool>(),
        ) {
            let (w, width) = (8, 32);
            for (ty, vals) in [
                (ScalarType::UInt32, small),
                (ScalarType::Float32, floats.iter().map(|&b| u64::from(b)).collect()),
            ] {
                let mut regs = vec![0xDEAD; 5 * width];
                regs[..width].copy_from_slice(&vals);
                let code = vec![
                    Inst::Wave4 { op: WaveOp::Match, ty, dst: [Reg(1), Reg(2), Reg(3), Reg(4)], a: Reg(0) },
                    Inst::Exit,
                ];
                let got = run_code(code, &regs, cur, avx2);
                for c in 0..width / w {
                    let mask = (cur >> (c * w)) & full_mask(w);
                    for l in 0..w {
                        let want = if mask == 0 {
                            [0; 4]
                        } else if ty == ScalarType::UInt32 {
                            let lanes: Vec<u32> = vals[c * w..(c + 1) * w].iter().map(|&v| v as u32).collect();
                            wave::match_mask(&lanes, mask, l)
                        } else {
                            let lanes: Vec<f32> =
                                vals[c * w..(c + 1) * w].iter().map(|&v| f32::from_bits(v as u32)).collect();
                            wave::match_mask(&lanes, mask, l)
                        };
                        for (k, word) in want.into_iter().enumerate() {
                            prop_assert_eq!(
                                got[(k + 1) * width + c * w + l], u64::from(word),
                                "{:?} wave {} lane {} word {} (mask {:#x})", ty, c, l, k, mask
                            );
                        }
                    }
                }
            }
        }
    }

    proptest! {
        /// Every wave's "has a lane" bit, and its spreading to the wave's
        /// lanes, against the mask cut into waves one by one.
        #[test]
        fn segments_answer_for_each_wave(
            shift in 2u32..=7,
            waves in 1usize..=32,
            m in prop_oneof![sparse_mask(), any::<u128>(), Just(Mask::MAX)],
        ) {
            let w = 1usize << shift;
            let waves = waves.min(128 / w);
            let width = w * waves;
            let m = m & full_mask(width);
            let segments = Segments::new(w, waves);
            let bits = segments.nonzero(m);
            let mut out = vec![9u64; width];
            segments.spread(bits, w, &mut out);
            let filled = segments.fill(bits, w);
            for c in 0..waves {
                let any = part_mask(m, c, w) != 0;
                prop_assert_eq!(bits >> (c * w + w - 1) & 1 == 1, any, "wave {}", c);
                for (l, &o) in out.iter().enumerate().skip(c * w).take(w) {
                    prop_assert_eq!(o, u64::from(any), "lane {}", l);
                    prop_assert_eq!(filled >> l & 1 == 1, any, "lane {} filled", l);
                }
            }
            prop_assert_eq!(bits & !segments.high, 0);
            prop_assert_eq!(filled & !full_mask(width), 0);
        }
    }

    /// Runs `code` (ending in `Exit`) on one batch of four waves of 8
    /// lanes holding `regs`, with the lanes `cur` active; the registers
    /// after it.
    fn run_code(code: Vec<Inst>, regs: &[u64], cur: Mask, avx2: bool) -> Vec<u64> {
        let (w, width) = (8, 32);
        let program = Program {
            debug: Default::default(),
            spans: vec![lockstep_ir::Span::default(); code.len()],
            code,
            reg_count: (regs.len() / width) as u32,
            inputs: Vec::new(),
            group: lockstep_ir::GroupShape::Threads([8, 1, 1]),
            quads: lockstep_ir::QuadLayout::Linear,
            groupshared_bytes: 0,
            element_strides: Vec::new(),
            resource_names: Vec::new(),
            buffers: Vec::new(),
            checked: false,
            constants: Vec::new(),
            barriers: false,
            waits: false,
            native: Default::default(),
        };
        let ctx = Context {
            program: &program,
            resources: &[],
            wave_size: w,
            step_budget: 1000,
            group_count: [4, 1, 1],
            group_extent: [8, 1, 1],
            thread_ids: [Vec::new(), Vec::new(), Vec::new(), Vec::new()],
            findings: None,
            order: ReductionOrder::default(),
            schedule: Schedule::default(),
            avx2: avx2 && crate::simd::avx2_available(),
            native: None,
            trace: None,
        };
        let mut wave = Wave::empty();
        wave.width = width;
        wave.regs = regs.to_vec();
        wave.cur = cur & full_mask(width);
        wave.launch = full_mask(width);
        wave.status = Status::Running;
        wave.segments = Segments::new(w, width / w);
        wave.idle = vec![0; width / w];
        let (mut scratch, mut tracker) = (vec![0; 4 * 128], SharedTracker::default());
        wave.run::<false>(
            &ctx,
            &[],
            &mut scratch,
            &mut tracker,
            &mut Deferred::default(),
        )
        .expect("runs");
        wave.regs
    }

    /// The operations `op32_inst` numbers.
    fn op32_inst_count() -> usize {
        use crate::alu::{op32_builtins, op32_forms, op32_unaries};
        op32_forms().len() + op32_builtins().len() + op32_unaries().len() + 1
    }

    /// An operation for `run_code`: `(op, dst, a, b or an immediate, masked)`,
    /// `op` numbering the operators on `uint`, then on `int`, then on
    /// `float` (`alu::op32_forms`), then the builtins (`alu::op32_builtins`,
    /// which take no immediate: `b` is a register then), then the
    /// one-operand operations (`alu::op32_unaries`, which ignore `b`), then
    /// a select on condition `a` between `b` (a register) and one more
    /// register.
    fn op32_inst((op, dst, a, b, masked): (usize, u32, u32, Result<u32, u32>, bool)) -> Inst {
        let forms = crate::alu::op32_forms();
        let builtins = crate::alu::op32_builtins();
        let unary = op.wrapping_sub(forms.len() + builtins.len());
        let unaries = crate::alu::op32_unaries();
        if unary == unaries.len() {
            return Inst::Select {
                dst: Reg(dst),
                cond: Reg(a),
                a: Reg(b.map_or_else(|r| r, |imm| imm % 6)),
                b: Reg((a + dst + 1) % 6),
                word: true,
                masked,
            };
        }
        if let Some(&(f, op32)) = unaries.get(unary) {
            return Inst::Unary {
                f,
                dst: Reg(dst),
                a: Reg(a),
                masked,
                op32: Some(op32),
                math: None,
                form: None,
            };
        }
        if let Some(&(builtin, ty)) = builtins.get(op.wrapping_sub(forms.len())) {
            let Some(crate::alu::BuiltinFn::Binary(f)) = crate::alu::builtin(builtin, ty) else {
                panic!("{builtin:?} on {ty:?} is a binary builtin");
            };
            let op32 = crate::alu::builtin_op32(builtin, ty);
            assert!(op32.is_some(), "{builtin:?}");
            return Inst::Binary {
                f,
                dst: Reg(dst),
                a: Reg(a),
                b: Reg(b.map_or_else(|r| r, |imm| imm % 6)),
                masked,
                op32,
                math: None,
                form: None,
            };
        }
        let (op, ty) = forms[op];
        let op32 = crate::alu::op32(op, ty);
        assert!(op32.is_some(), "{op:?}");
        let (dst, a) = (Reg(dst), Reg(a));
        match b {
            Ok(imm) => Inst::BinaryImm {
                f: crate::alu::binary_imm(op, ty).expect("immediate form"),
                dst,
                a,
                imm: u64::from(imm),
                masked,
                op32,
                form: None,
            },
            Err(b) => Inst::Binary {
                f: crate::alu::binary(op, ty).expect("register form"),
                dst,
                a,
                b: Reg(b),
                masked,
                op32,
                math: None,
                form: None,
            },
        }
    }

    proptest! {
        /// A run of 32-bit operations, as a `Block32`, leaves every lane of
        /// every register as the operations one at a time do: inactive
        /// lanes included, whatever mix of masked and unmasked writes to
        /// the same registers (fast and exact blocks).
        #[test]
        fn blocks_leave_the_registers_of_their_operations(
            ops in prop::collection::vec(
                (0..op32_inst_count(), 0u32..6, 0u32..6, prop_oneof![(0u32..6).prop_map(Err), any::<u32>().prop_map(Ok)], any::<bool>()),
                2..12,
            ),
            lanes in prop::collection::vec(
                prop_oneof![
                    4 => any::<u32>(),
                    // Words the `float` operations treat apart: zeros,
                    // one, infinities, quiet and signalling NaNs.
                    1 => prop::sample::select(vec![
                        0u32, 0x8000_0000, 0x3F80_0000, 0x7F80_0000, 0xFF80_0000,
                        0x7FC0_0000, 0xFFC1_2345, 0x7F80_0001,
                    ]),
                ],
                7 * 32,
            ),
            cur in prop_oneof![sparse_mask(), any::<u128>(), Just(Mask::MAX), Just(0)],
            avx2 in any::<bool>(),
            live in 0u32..64,
        ) {
            let mut code: Vec<Inst> = ops.iter().copied().map(op32_inst).collect();
            // Some registers read afterwards (into register 6), the others dead.
            for r in (0..6).filter(|r| live >> r & 1 == 1) {
                code.push(Inst::Copy { dst: Reg(6), src: Reg(r) });
            }
            code.push(Inst::Exit);
            let mut blocked = code.clone();
            let mut spans = vec![lockstep_ir::Span::default(); blocked.len()];
            crate::compile::block32::form_blocks(&mut blocked, &mut spans, true, &[]);
            let Inst::Block32(_) = &blocked[0] else {
                return Err(TestCaseError::fail(format!("{:?}", blocked[0])));
            };
            prop_assert_eq!(spans.len(), blocked.len());
            let regs: Vec<u64> = lanes.iter().map(|&v| u64::from(v)).collect();
            let want = run_code(code, &regs, cur, avx2);
            let got = run_code(blocked, &regs, cur, avx2);
            for r in (0..6).filter(|r| live >> r & 1 == 1) {
                let lanes = r as usize * 32..(r as usize + 1) * 32;
                prop_assert_eq!(&got[lanes.clone()], &want[lanes], "register {}", r);
            }
        }
    }

    #[test]
    fn f32_min_max_by_hand() {
        let lanes = |v: &[u32]| v.iter().map(|&b| u64::from(b)).collect::<Vec<_>>();
        let (nan, neg_zero) = (0x7FC0_0000, 0x8000_0000);
        let one = 1f32.to_bits();
        let minus_two = (-2f32).to_bits();
        let tiny = 1; // the smallest subnormal
        assert_eq!(
            f32_min_max(&lanes(&[nan, one, minus_two, tiny]), false),
            Some(minus_two.into())
        );
        assert_eq!(
            f32_min_max(&lanes(&[nan, one, minus_two, tiny]), true),
            Some(one.into())
        );
        assert_eq!(
            f32_min_max(&lanes(&[0, neg_zero, 0]), false),
            Some(neg_zero.into())
        );
        assert_eq!(f32_min_max(&lanes(&[neg_zero, 0, neg_zero]), true), Some(0));
        assert_eq!(f32_min_max(&lanes(&[0, tiny]), false), Some(0));
        assert_eq!(
            f32_min_max(&lanes(&[0xFFC0_0001, neg_zero]), false),
            Some(neg_zero.into())
        );
        assert_eq!(
            f32_min_max(&lanes(&[0xFF80_0000, nan]), false),
            Some(0xFF80_0000)
        );
        assert_eq!(f32_min_max(&lanes(&[nan, 0xFFC0_0000]), true), None);
    }
}
