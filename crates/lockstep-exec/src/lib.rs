//! The CPU engine: lowers the IR to wave bytecode and runs a dispatch with
//! exact wave semantics at any wave size from 4 to 128.
//!
//! Groups run in parallel on all cores; the waves of one group take turns on
//! one worker, pausing at barriers.

#![warn(missing_docs)]

mod alu;
mod bytecode;
pub mod check;
mod compile;
mod coverage;
mod engine;
mod lanes;
#[cfg(all(feature = "jit", target_arch = "x86_64"))]
mod native;
mod proof;
#[cfg(all(feature = "jit", target_arch = "x86_64"))]
mod wave_fns;
#[cfg(not(all(feature = "jit", target_arch = "x86_64")))]
mod native {
    //! No machine code for whole programs on this build: every dispatch
    //! is interpreted.

    /// Never made.
    #[derive(Debug)]
    pub(crate) enum Native {}

    impl Native {
        pub(crate) fn build(
            _: &crate::Program,
            _: usize,
            _: usize,
        ) -> Result<Native, &'static str> {
            Err("this build has no machine code")
        }

        pub(crate) fn pass_groups(&self) -> usize {
            match *self {}
        }

        pub(crate) fn callouts(&self) -> usize {
            match *self {}
        }

        pub(crate) fn costly(&self) -> bool {
            match *self {}
        }
    }

    /// The stride of each instruction's consecutive addresses: none are
    /// looked for on this build.
    pub(crate) fn consecutive_strides(p: &crate::Program, _: usize) -> Vec<u32> {
        vec![0; p.code_len()]
    }

    /// Never made either.
    pub(crate) enum NativeWorker {}

    impl NativeWorker {
        pub(crate) fn new() -> NativeWorker {
            unreachable!("no native code on this build")
        }

        #[allow(clippy::too_many_arguments)]
        pub(crate) fn run_groups(
            &mut self,
            _: &crate::engine::Context,
            native: &Native,
            _: Option<u64>,
            _: &[[u32; 3]],
            _: &[crate::Memory<'static>],
            _: &mut [u64],
            _: &mut crate::check::SharedTracker,
            _: &mut crate::engine::Deferred,
        ) -> Result<(), crate::ExecError> {
            match *native {}
        }
    }
}
pub mod memory;
mod simd;
pub mod trace;
mod value;
pub mod wave_size;

use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

pub use check::{Finding, FindingKind, Findings, ReductionOrder, Schedule, Writers};
pub use compile::{Program, SharedMemory};
pub use lockstep_ir::Span;
pub use memory::Memory;
pub use proof::Proof;
pub use trace::{Trace, TraceRequest, TraceSink};
pub use wave_size::{Device, WavePreference, WaveSizeChoice, select_wave_size};

/// An error while compiling to bytecode or running a dispatch.
#[derive(Clone, Debug, PartialEq)]
pub struct ExecError {
    /// What went wrong.
    pub message: String,
    /// The source construct responsible, when known.
    pub span: Option<Span>,
    /// Further explanations, shown after the message.
    pub notes: Vec<String>,
}

impl ExecError {
    /// Whether this is a loop that ran past the step budget.
    pub fn is_step_budget(&self) -> bool {
        self.message.starts_with(engine::BUDGET_ERROR)
    }

    /// An error at `span` (when known), without notes.
    pub fn new(message: impl Into<String>, span: Option<Span>) -> ExecError {
        ExecError {
            message: message.into(),
            span,
            notes: Vec::new(),
        }
    }

    /// The error with `note` added to its notes.
    pub fn with_note(mut self, note: impl Into<String>) -> ExecError {
        self.notes.push(note.into());
        self
    }
}

impl std::fmt::Display for ExecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ExecError {}

/// Wave sizes the engine runs.
pub const MIN_WAVE_SIZE: u32 = 4;
/// The largest wave size the engine runs.
pub const MAX_WAVE_SIZE: u32 = 128;

/// The lanes a normal run puts side by side: groups are batched so that
/// one bytecode instruction works on this many lanes (`BATCH_LANES / W`
/// groups at wave size `W`).
pub const BATCH_LANES: u32 = 128;

/// The threads of a batch of groups when the machine code runs them.
const NATIVE_BATCH_THREADS: u64 = 4096;

/// The most threads in one group (D3D12's limit).
pub const MAX_GROUP_THREADS: u64 = 1024;

/// The most threads one dispatch may run (groups × threads per group).
pub const MAX_DISPATCH_THREADS: u64 = 1 << 30;

/// How to run a dispatch.
#[derive(Clone, Debug)]
pub struct DispatchConfig {
    /// Lanes per wave: a power of two from 4 to 128.
    pub wave_size: u32,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// Loop iterations one wave may run before the dispatch stops with an
    /// error (catches loops that never end).
    pub step_budget: u64,
    /// Thread groups in x, y, z.
    pub group_count: [u32; 3],
    /// How float reductions and scans combine lanes (default: left fold in
    /// lane order).
    pub order: ReductionOrder,
    /// The order waves and groups take turns in (default: waves by index,
    /// groups in parallel).
    pub schedule: Schedule,
    /// Which engine runs the program.
    pub engine: Engine,
}

/// What runs a dispatch: [`Program::engine_report`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineReport {
    /// The whole program runs as machine code.
    pub native: bool,
    /// Bytecode instructions of the program.
    pub instructions: usize,
    /// Those the machine code hands to the interpreter, one at a time.
    pub callouts: usize,
    /// Why the interpreter runs the program, when it does.
    pub reason: Option<String>,
}

/// Which engine runs a dispatch. Both give the same results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// Machine code where the program gets it and it pays, else the
    /// interpreter: it does not pay where the machine code would hand a
    /// wave operation, or an instruction in a loop, to the interpreter,
    /// or where waves of 4 take turns at barriers in branches or loops.
    #[default]
    Auto,
    /// Machine code wherever the program gets it.
    Native,
    /// The interpreter.
    Interpreter,
}

impl Default for DispatchConfig {
    fn default() -> DispatchConfig {
        DispatchConfig {
            wave_size: 32,
            threads: 0,
            step_budget: 1 << 24,
            group_count: [1, 1, 1],
            order: ReductionOrder::Ascending,
            schedule: Schedule::InOrder,
            engine: Engine::Auto,
        }
    }
}

/// The size in bytes from which the machine code stores whole chunks of
/// eight contiguous lanes of a memory past the caches (three quarters of
/// the last-level cache): writing such a memory does not first read it.
pub fn streaming_store_bytes() -> u64 {
    #[cfg(all(feature = "jit", target_arch = "x86_64"))]
    return 4 * lockstep_jit::wave::streaming_words() as u64;
    #[cfg(not(all(feature = "jit", target_arch = "x86_64")))]
    u64::MAX
}

/// Checks that `n` is a wave size the engine runs.
pub fn validate_wave_size(n: u32) -> Result<(), ExecError> {
    if (MIN_WAVE_SIZE..=MAX_WAVE_SIZE).contains(&n) && n.is_power_of_two() {
        Ok(())
    } else {
        Err(ExecError::new(
            format!(
                "wave size {n} is not supported: it must be a power of two from {MIN_WAVE_SIZE} to {MAX_WAVE_SIZE}"
            ),
            None,
        ))
    }
}

/// The memory bound to one resource of a shader.
#[derive(Clone, Copy, Debug)]
pub struct BoundResource<'a> {
    /// The memory holding the resource's bytes.
    pub memory: &'a Memory<'a>,
    /// A texture's size in texels: width, height, and depth (3D) or slice
    /// count (arrays); 1 for the dimensions a texture does not have.
    /// Buffers ignore it.
    pub dims: [u32; 3],
    /// A texture's mip levels (1 for buffers), stored one after the
    /// other from level 0, each of `dims` halved (at least 1) in its first
    /// `mip_dims` dimensions: an array's slices do not shrink.
    pub levels: u32,
    /// How many of `dims`, from the first, shrink from level to level.
    pub mip_dims: u8,
}

impl<'a> BoundResource<'a> {
    /// A buffer (its size is the memory's).
    pub fn buffer(memory: &'a Memory<'a>) -> BoundResource<'a> {
        BoundResource::texture(memory, [0; 3])
    }

    /// A texture of `dims` texels, one mip level.
    pub fn texture(memory: &'a Memory<'a>, dims: [u32; 3]) -> BoundResource<'a> {
        BoundResource {
            memory,
            dims,
            levels: 1,
            mip_dims: 3,
        }
    }

    /// The texture with `levels` mip levels, of which the first `mip_dims`
    /// dimensions shrink.
    pub fn with_levels(self, levels: u32, mip_dims: u8) -> BoundResource<'a> {
        BoundResource {
            levels: levels.max(1),
            mip_dims,
            ..self
        }
    }

    /// Mip level `level`'s size in texels and the byte offset where its
    /// texels start (`texel_size` bytes each), or `None` past the last
    /// level.
    pub fn level(&self, level: u64, texel_size: u32) -> Option<([u32; 3], u64)> {
        if level >= u64::from(self.levels) {
            return None;
        }
        let at = |l: u32| -> [u32; 3] {
            std::array::from_fn(|i| {
                if i < usize::from(self.mip_dims) {
                    (self.dims[i] >> l.min(31)).max(1)
                } else {
                    self.dims[i]
                }
            })
        };
        let mut base = 0u64;
        for l in 0..level as u32 {
            let d = at(l);
            let texels = d.iter().map(|&n| u64::from(n)).product::<u64>();
            base = base.saturating_add(texels.saturating_mul(u64::from(texel_size)));
        }
        Some((at(level as u32), base))
    }
}

/// The worker threads of a run: a dispatch, and the copies into and out of
/// its memories, use these threads and no others (one thread means the
/// caller's own).
pub struct Workers {
    pool: Option<rayon::ThreadPool>,
}

/// The most worker threads a run may ask for: more than any machine's
/// cores, and few enough that starting them fails fast where the system
/// cannot (each thread reserves its stack).
pub const MAX_THREADS: usize = 1024;

impl Workers {
    /// `threads` workers; 0 means one per core. More than [`MAX_THREADS`] is
    /// an error, before any thread starts.
    pub fn new(threads: usize) -> Result<Workers, ExecError> {
        if threads > MAX_THREADS {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            return Err(ExecError::new(
                format!(
                    "cannot start {threads} worker threads: at most {MAX_THREADS} (this machine has \
                     {cores} cores; 0 means one per core)"
                ),
                None,
            ));
        }
        if threads == 1 {
            return Ok(Workers { pool: None });
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map(|pool| Workers { pool: Some(pool) })
            .map_err(|e| ExecError::new(format!("cannot start worker threads: {e}"), None))
    }

    /// Memory holding `bytes`, written by these workers.
    pub fn load<'a>(&self, bytes: &[u8]) -> Memory<'a> {
        match &self.pool {
            None => Memory::from_bytes(bytes),
            Some(pool) => pool.install(|| Memory::from_bytes_parallel(bytes)),
        }
    }

    /// Runs `f` with these workers as the rayon pool its parallel
    /// iterators use (on the caller's thread when there is one worker).
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            None => f(),
            Some(pool) => pool.install(f),
        }
    }

    /// Runs `f` on every worker thread at once; returns when all are done.
    fn each(&self, f: impl Fn() + Sync) {
        match &self.pool {
            None => f(),
            Some(pool) => {
                pool.broadcast(|_| f());
            }
        }
    }

    /// The number of worker threads.
    pub fn threads(&self) -> usize {
        self.pool.as_ref().map_or(1, |p| p.current_num_threads())
    }

    /// Whether the caller's thread is the only worker: parallel
    /// iterators would run on rayon's global pool, so the caller iterates
    /// itself.
    pub fn single(&self) -> bool {
        self.pool.is_none()
    }
}

/// Runs `program` over its bound resources (indexed by resource id;
/// several resources may share one memory).
pub fn dispatch(
    program: &Program,
    resources: &[BoundResource],
    config: &DispatchConfig,
) -> Result<(), ExecError> {
    dispatch_on(&Workers::new(config.threads)?, program, resources, config)
}

/// [`dispatch`] on `workers` (its `config.threads` is not used).
pub fn dispatch_on(
    workers: &Workers,
    program: &Program,
    resources: &[BoundResource],
    config: &DispatchConfig,
) -> Result<(), ExecError> {
    run_dispatch(program, resources, config, None, workers, None)
}

/// Runs `program` in checked mode and returns what it found. Compile the
/// program with [`Program::compile_checked`] to also check integer
/// divisors.
pub fn dispatch_checked(
    program: &Program,
    resources: &[BoundResource],
    config: &DispatchConfig,
) -> Result<Vec<Finding>, ExecError> {
    dispatch_checked_on(&Workers::new(config.threads)?, program, resources, config)
}

/// [`dispatch_checked`] on `workers` (its `config.threads` is not used).
pub fn dispatch_checked_on(
    workers: &Workers,
    program: &Program,
    resources: &[BoundResource],
    config: &DispatchConfig,
) -> Result<Vec<Finding>, ExecError> {
    let findings = Findings::default();
    run_dispatch(program, resources, config, Some(&findings), workers, None)?;
    Ok(findings.into_vec())
}

/// [`dispatch_checked_on`], recording the waves `trace` asks for. The
/// program must be the one the sink was made for.
pub fn dispatch_traced_on(
    workers: &Workers,
    program: &Program,
    resources: &[BoundResource],
    config: &DispatchConfig,
    trace: &TraceSink,
) -> Result<Vec<Finding>, ExecError> {
    let findings = Findings::default();
    run_dispatch(
        program,
        resources,
        config,
        Some(&findings),
        workers,
        Some(trace),
    )?;
    Ok(findings.into_vec())
}

/// [`dispatch_checked`], with which statement wrote each word of each
/// resource last.
pub fn dispatch_checked_writers(
    program: &Program,
    resources: &[BoundResource],
    config: &DispatchConfig,
) -> Result<(Vec<Finding>, Writers), ExecError> {
    let workers = Workers::new(config.threads)?;
    let findings = Findings::default();
    run_dispatch(program, resources, config, Some(&findings), &workers, None)?;
    let writers = findings.take_writers(&program.spans);
    Ok((findings.into_vec(), writers))
}

/// A checked run that ended (its findings and writers), or one whose loop
/// ran past the step budget (the error and the findings made until then).
pub type CheckedOrStuck = Result<(Vec<Finding>, Writers), (ExecError, Vec<Finding>)>;

/// [`dispatch_checked_writers`] that keeps what it found when a loop runs
/// past the step budget: the findings made until then, and the error.
pub fn dispatch_checked_until_stuck(
    program: &Program,
    resources: &[BoundResource],
    config: &DispatchConfig,
) -> Result<CheckedOrStuck, ExecError> {
    let workers = Workers::new(config.threads)?;
    let findings = Findings::default();
    match run_dispatch(program, resources, config, Some(&findings), &workers, None) {
        Ok(()) => {
            let writers = findings.take_writers(&program.spans);
            Ok(Ok((findings.into_vec(), writers)))
        }
        Err(e) if e.is_step_budget() => Ok(Err((e, findings.into_vec()))),
        Err(e) => Err(e),
    }
}

fn run_dispatch(
    program: &Program,
    resources: &[BoundResource],
    config: &DispatchConfig,
    findings: Option<&Findings>,
    workers: &Workers,
    trace: Option<&TraceSink>,
) -> Result<(), ExecError> {
    validate_wave_size(config.wave_size)?;
    let [gx, gy, gz] = config.group_count;
    if gx == 0 || gy == 0 || gz == 0 {
        return Err(ExecError::new(
            "the dispatch has a group count of zero",
            None,
        ));
    }
    let groups = u64::from(gx) * u64::from(gy) * u64::from(gz);
    let per_group = program.group.threads(config.wave_size);
    if per_group > MAX_GROUP_THREADS {
        return Err(ExecError::new(
            format!(
                "the group has {per_group} threads at wave size {} ({} waves), more than the device's limit of {MAX_GROUP_THREADS}",
                config.wave_size,
                program.group.waves(config.wave_size)
            ),
            None,
        ));
    }
    if groups.saturating_mul(per_group) > MAX_DISPATCH_THREADS || groups > u64::from(u32::MAX) {
        return Err(ExecError::new(
            format!(
                "the dispatch is too large: {groups} groups of {per_group} threads (the limit is {MAX_DISPATCH_THREADS} threads)"
            ),
            None,
        ));
    }
    if resources.len() < program.element_strides.len() {
        return Err(ExecError::new(
            "a resource of the shader has no buffer",
            None,
        ));
    }
    let group_extent = program.group.extent(config.wave_size);
    let ctx = engine::Context {
        program,
        resources,
        wave_size: config.wave_size as usize,
        step_budget: config.step_budget,
        group_count: config.group_count,
        group_extent,
        thread_ids: engine::group_thread_ids(
            group_extent,
            (program.group.waves(config.wave_size) * u64::from(config.wave_size)) as usize,
            program.quads,
        ),
        findings,
        order: config.order,
        schedule: config.schedule,
        avx2: simd::avx2_available(),
        native: None,
        trace,
    };
    let mut ctx = ctx;
    if config.engine != Engine::Interpreter
        && findings.is_none()
        && config.order == ReductionOrder::Ascending
        // The machine code's texel addresses take fewer than 2^32 texels.
        && ctx.resources.iter().all(|r| {
            r.dims.iter().map(|&d| u64::from(d)).product::<u64>() < 1 << 32
        })
        && let Some((native, lanes)) = program
            .native_for(config.wave_size as usize)
            .ok()
            .filter(|(n, _)| config.engine == Engine::Native || !n.costly())
    {
        if lanes != ctx.wave_size {
            // Each group is one wave of at most `lanes` threads, or each
            // wave of 4 threads has 8 lanes, the last four missing.
            ctx.thread_ids =
                engine::spread_thread_ids(group_extent, ctx.wave_size, lanes, program.quads);
            ctx.wave_size = lanes;
        }
        ctx.native = Some(native);
    }
    // A normal run takes groups in batches, the same wave of each group
    // side by side (see `engine::Worker::run_batch`), as does the machine
    // code under a shuffled schedule (its groups in the shuffled order,
    // the waves of each taking turns in an order of the batch's); checked
    // runs and the interpreter's varied orders take one group at a time,
    // as do programs with a loop that may wait for another group
    // (`compile::waits`).
    let batch = if findings.is_none()
        && (config.schedule == Schedule::InOrder || ctx.native.is_some())
        && config.order == ReductionOrder::Ascending
    {
        let groups = groups.min(u64::from(u32::MAX)) as u32;
        match ctx.native {
            // The machine code runs a batch pass after pass: batches of
            // whole passes and some 4,096 threads keep each batch's setup
            // a small part of its time.
            Some(native) => {
                let threads = program.group.threads(config.wave_size).max(1);
                let passes = if program.waits {
                    1
                } else {
                    (NATIVE_BATCH_THREADS / threads).max(1) as usize
                };
                let count = passes.next_multiple_of(native.pass_groups().max(1));
                u32::try_from(count).unwrap_or(u32::MAX).clamp(1, groups)
            }
            None if program.waits => 1,
            None => (BATCH_LANES / config.wave_size).clamp(1, groups),
        }
    } else {
        1
    };
    let batches = groups.div_ceil(u64::from(batch));
    let run_batch = |worker: &mut engine::Worker, b: u64| {
        let first = b * u64::from(batch);
        let count = (groups - first).min(u64::from(batch));
        worker.run_batch(&ctx, first as u32, count as usize)
    };
    if let Schedule::Shuffled(seed) = config.schedule {
        // One worker, the groups in a shuffled order.
        let mut order: Vec<u32> = (0..groups as u32).collect();
        engine::shuffle(&mut order, seed);
        let mut worker = engine::Worker::new();
        return order
            .chunks(batch as usize)
            .try_for_each(|groups| worker.run_listed(&ctx, groups));
    }
    if workers.single() {
        let mut worker = engine::Worker::new();
        return (0..batches).try_for_each(|b| run_batch(&mut worker, b));
    }
    // Each worker takes batches from one counter, in runs that shrink as the
    // dispatch nears its end: the workers finish within a batch of each
    // other however the machine slows one of them, and take long runs of
    // consecutive batches while many are left. The first error stops every
    // worker at its next claim.
    let next = AtomicU64::new(0);
    let failed = Mutex::new(None);
    let threads = workers.threads() as u64;
    workers.each(|| {
        let mut worker = engine::Worker::new();
        // A group that may wait for an earlier one finds it run or
        // running: the workers take one batch at a time, in order.
        while let Some(run) = claim(&next, batches, threads, program.waits) {
            for b in run {
                if let Err(e) = run_batch(&mut worker, b) {
                    next.fetch_max(batches, Relaxed);
                    failed
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .get_or_insert(e);
                    return;
                }
            }
        }
    });
    match failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Claims the next run of batches of `total` for one of `threads` workers:
/// a `4 · threads`-th of those left (at least one; exactly one when
/// `single`), or `None` when none is left (guided scheduling).
fn claim(next: &AtomicU64, total: u64, threads: u64, single: bool) -> Option<Range<u64>> {
    let mut start = next.load(Relaxed);
    loop {
        if start >= total {
            return None;
        }
        let end = match single {
            true => start + 1,
            false => start + ((total - start) / (4 * threads)).max(1),
        };
        match next.compare_exchange_weak(start, end, Relaxed, Relaxed) {
            Ok(_) => return Some(start..end),
            Err(now) => start = now,
        }
    }
}

/// The set bits of `mask` in ascending order, as `lockstep_wave::lanes`
/// gives them, found a 64-bit half at a time: a lane costs a few 64-bit
/// operations rather than 128-bit ones.
#[inline(always)]
pub(crate) fn mask_lanes(mask: lockstep_wave::Mask) -> impl Iterator<Item = usize> {
    let mut halves = [mask as u64, (mask >> 64) as u64];
    let mut h = 0;
    std::iter::from_fn(move || {
        while h < 2 {
            let m = halves[h];
            if m != 0 {
                halves[h] = m & (m - 1);
                return Some(h * 64 + m.trailing_zeros() as usize);
            }
            h += 1;
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The set bits of masks with lanes in either half, both, or none,
    /// against lockstep-wave's iterator.
    #[test]
    fn mask_lanes_are_the_set_bits_in_order() {
        let masks: [lockstep_wave::Mask; 7] = [
            0,
            1,
            1 << 127,
            u128::MAX,
            0x8000_0000_0000_0001_8000_0000_0000_0001,
            0xF0F0 << 60,
            0x0123_4567_89AB_CDEF_FEDC_BA98_7654_3210,
        ];
        for m in masks {
            let ours: Vec<usize> = mask_lanes(m).collect();
            let theirs: Vec<usize> = lockstep_wave::lanes(m).collect();
            assert_eq!(ours, theirs, "{m:#x}");
        }
        // By hand.
        assert_eq!(
            mask_lanes(0b1010 | 1 << 64 | 1 << 100).collect::<Vec<_>>(),
            [1, 3, 64, 100]
        );
    }

    /// One worker claiming alone: runs that cover every batch once, in
    /// order, each a `4 · threads`-th of what is left, down to single
    /// batches at the end.
    #[test]
    fn claims_shrink_and_cover_every_batch() {
        let next = AtomicU64::new(0);
        let runs: Vec<Range<u64>> = std::iter::from_fn(|| claim(&next, 100, 2, false)).collect();
        // 100/8 = 12 → 88/8 = 11 → 77/8 = 9 → 68/8 = 8 → 60/8 = 7 → …
        let lens: Vec<u64> = runs.iter().map(|r| r.end - r.start).collect();
        assert_eq!(lens[..5], [12, 11, 9, 8, 7]);
        assert!(lens.windows(2).all(|w| w[0] >= w[1]), "{lens:?}");
        assert_eq!(lens[lens.len() - 7..], [1; 7]);
        assert!(runs.windows(2).all(|w| w[0].end == w[1].start));
        assert_eq!((runs[0].start, runs[runs.len() - 1].end), (0, 100));
        assert_eq!(claim(&next, 100, 2, false), None);
    }

    /// Workers claiming at once take every batch exactly once.
    #[test]
    fn concurrent_claims_take_every_batch_once() {
        let next = AtomicU64::new(0);
        let taken: Vec<AtomicU64> = (0..10_000).map(|_| AtomicU64::new(0)).collect();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    while let Some(run) = claim(&next, 10_000, 4, false) {
                        for b in run {
                            taken[b as usize].fetch_add(1, Relaxed);
                        }
                    }
                });
            }
        });
        assert!(taken.iter().all(|t| t.load(Relaxed) == 1));
    }
}
