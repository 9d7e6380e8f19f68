//! `lockstep check`: runs a dispatch at every wave size the shader and the
//! device allow, in checked mode, and reports undefined wave behaviour,
//! outputs that depend on the wave size, and outputs that depend on the
//! order lanes, waves or groups are combined in.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, mpsc};

use lockstep_exec::{DispatchConfig, Finding, Program, ReductionOrder, Schedule, Workers};
use lockstep_pipeline::Pipeline;
use serde::Serialize;

use crate::bind::{Bindings, choose_wave_size};
use crate::{RunError, RunOptions, Shader};

/// What a check found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CheckReport {
    /// The wave sizes the dispatch ran at.
    pub wave_sizes: Vec<u32>,
    /// Undefined behaviour, with where and in which lanes.
    pub findings: Vec<ReportedFinding>,
    /// Output buffers whose contents depend on the wave size.
    pub portability: Vec<PortabilityIssue>,
    /// Output buffers whose contents depend on the order of reductions,
    /// waves or groups.
    pub order_dependence: Vec<OrderIssue>,
    /// The pipeline's `Results` rules that fail at some wave size.
    pub results: Vec<ResultFailure>,
    /// Wave sizes the device has but the shader cannot run at, and why.
    pub skipped: Vec<SkippedSize>,
    /// The wave sizes at which the dispatch was proven free of everything
    /// checked mode reports before it ran, so it ran as `lockstep run`
    /// runs it.
    #[serde(skip)]
    pub proven: Vec<u32>,
}

/// A wave size the check did not run, and why.
#[derive(Clone, Debug, Serialize)]
pub struct SkippedSize {
    /// The wave size.
    pub wave_size: u32,
    /// Why the shader cannot run at it.
    pub reason: String,
}

impl CheckReport {
    /// Orders the findings by place, then kind.
    pub(crate) fn sort_findings(&mut self) {
        // `file:line:column`, the line and column as numbers (line 9
        // before line 14).
        fn key(location: &Option<String>) -> (Option<(&str, u64, u64)>, &str) {
            let parsed = location.as_deref().and_then(|l| {
                let mut parts = l.rsplitn(3, ':');
                let column = parts.next()?.parse().ok()?;
                let line = parts.next()?.parse().ok()?;
                Some((parts.next()?, line, column))
            });
            (parsed, location.as_deref().unwrap_or(""))
        }
        self.findings.sort_by(|a, b| {
            (key(&a.location), a.kind, key(&a.called_from)).cmp(&(
                key(&b.location),
                b.kind,
                key(&b.called_from),
            ))
        });
    }

    /// Whether the check found nothing: no findings, no dependence on wave
    /// size or order, and every `Results` rule holding at every size.
    pub fn is_clean(&self) -> bool {
        self.findings.iter().all(|f| f.severity == Severity::Note)
            && self.portability.is_empty()
            && self.order_dependence.is_empty()
            && self.results.is_empty()
    }
}

/// How much a finding weighs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Undefined behaviour: the check fails.
    Error,
    /// A hazard no GPU rules out (a loop waiting on another group's
    /// progress): the check fails.
    Warning,
    /// Defined on D3D12 but not everywhere (an out-of-bounds buffer or
    /// texture access): reported, and the check still passes.
    Note,
}

impl Severity {
    /// The severity of findings of kind `kind` (its short name).
    pub fn of(kind: &str) -> Severity {
        match kind {
            PROGRESS => Severity::Warning,
            RESOURCE_BOUNDS => Severity::Note,
            _ => Severity::Error,
        }
    }
}

/// A finding as `lockstep check` reports it, merged over the wave sizes it happened at.
#[derive(Clone, Debug, Serialize)]
pub struct ReportedFinding {
    /// The kind's short name, e.g. `out-of-bounds`.
    pub kind: &'static str,
    /// Whether it fails the check: `error` and `warning` do, `note` does
    /// not.
    pub severity: Severity,
    /// What went wrong, in the first occurrence.
    pub message: String,
    /// `file:line:col`, when known.
    pub location: Option<String>,
    /// Inside a function the entry point calls: that call's
    /// `file:line:col`.
    pub called_from: Option<String>,
    /// Inside functions the entry point calls: each call's
    /// `file:line:col`, innermost first (the last is `called_from`).
    pub calls: Vec<String>,
    /// The wave sizes it happened at; the details below are of the first.
    pub wave_sizes: Vec<u32>,
    /// The wave size of the first occurrence.
    pub wave_size: u32,
    /// The group of the first occurrence, in x, y and z.
    pub group: [u32; 3],
    /// The wave's index in its group.
    pub wave: u32,
    /// The lanes concerned.
    pub lanes: Vec<u32>,
    /// How many times it happened at this place.
    pub count: u64,
    /// The engine's finding, for rendering against the source; not serialized.
    #[serde(skip)]
    pub finding: Option<Finding>,
}

/// One element that differs, with its value in each class of runs.
#[derive(Clone, Debug, Serialize)]
pub struct ElementDiff {
    /// The element's index in the buffer.
    pub index: usize,
    /// The element in each class of runs, as `Data` spells it; empty past a shorter buffer.
    pub values: Vec<String>,
}

/// An output buffer whose contents depend on the wave size.
#[derive(Clone, Debug, Serialize)]
pub struct PortabilityIssue {
    /// The buffer's name.
    pub buffer: String,
    /// Wave sizes grouped by identical contents.
    pub agreeing: Vec<Vec<u32>>,
    /// The first differing elements, one value per group of `agreeing`.
    pub elements: Vec<ElementDiff>,
    /// How many elements differ (all, not only those listed).
    pub differing_elements: usize,
    /// The indices of every differing element.
    #[serde(skip)]
    pub differing: Vec<usize>,
    /// The statements that wrote the differing elements, as
    /// `file:line:col`, in source order.
    pub written_at: Vec<String>,
    /// Each of `written_at`'s source line, trimmed.
    #[serde(skip)]
    pub written_lines: Vec<String>,
}

/// An output buffer whose contents depend on the order of reductions, waves or groups.
#[derive(Clone, Debug, Serialize)]
pub struct OrderIssue {
    /// The buffer's name.
    pub buffer: String,
    /// The wave size both runs used.
    pub wave_size: u32,
    /// What changed: "float reductions folded from the highest lane", ...
    pub variation: String,
    /// The first differing elements: (default order, other order).
    pub elements: Vec<ElementDiff>,
    /// How many elements differ (all, not only those listed).
    pub differing_elements: usize,
    /// The indices of every differing element.
    #[serde(skip)]
    pub differing: Vec<usize>,
    /// Where the order changed the result, as `file:line:col`: the float
    /// reductions and scans for another lane order, the statements that
    /// wrote the differing elements for another schedule.
    pub sources: Vec<String>,
    /// Each of `sources`' source line, trimmed.
    #[serde(skip)]
    pub source_lines: Vec<String>,
    /// For another schedule, as `file:line:col`: the atomics whose order
    /// shows in memory (a returned value read, as an append's reserved
    /// slot, or an exchange), where the program has any.
    pub atomics: Vec<String>,
    /// Each of `atomics`' source line, trimmed.
    #[serde(skip)]
    pub atomic_lines: Vec<String>,
}

/// A `Results` rule of the pipeline that fails at some of the wave sizes.
#[derive(Clone, Debug, Serialize)]
pub struct ResultFailure {
    /// The rule's `Name`.
    pub name: String,
    /// The rule, as the pipeline spells it (`BufferExact`, `BufferFloatULP`, …).
    pub rule: String,
    /// The wave sizes the rule fails at.
    pub failing: Vec<u32>,
    /// The wave sizes it holds at.
    pub passing: Vec<u32>,
    /// The verdict at the first failing size, as `lockstep run` prints it:
    /// a summary line, then the first differing elements.
    pub first: String,
}

/// The rules of `pipeline.results` that fail at some size, from each
/// size's buffers (`runs[i]` at `sizes[i]`).
pub(crate) fn result_failures<B: AsRef<[u8]>>(
    pipeline: &Pipeline,
    sizes: &[u32],
    runs: &[Vec<B>],
) -> Vec<ResultFailure> {
    let outcomes: Vec<_> = runs
        .iter()
        .map(|contents| lockstep_pipeline::check_results(pipeline, contents))
        .collect();
    (0..pipeline.results.len())
        .filter_map(|r| {
            let (mut failing, mut passing, mut first) = (Vec::new(), Vec::new(), None);
            for (&w, outcomes) in sizes.iter().zip(&outcomes) {
                let outcome = &outcomes[r];
                if outcome.passed {
                    passing.push(w);
                } else {
                    failing.push(w);
                    first.get_or_insert_with(|| outcome.render());
                }
            }
            let first = first?;
            Some(ResultFailure {
                name: pipeline.results[r].name.clone(),
                rule: pipeline.results[r].rule.to_string(),
                failing,
                passing,
                first,
            })
        })
        .collect()
}

/// How many differing elements a report lists per buffer.
const LISTED: usize = 8;

/// The variations of order each wave size is also run with.
fn variations() -> Vec<(&'static str, ReductionOrder, Schedule)> {
    vec![
        (
            "float reductions and scans folded from the highest lane down",
            ReductionOrder::Descending,
            Schedule::InOrder,
        ),
        (
            "float reductions and scans combined as a pairwise tree",
            ReductionOrder::Tree,
            Schedule::InOrder,
        ),
        (
            "waves and groups taking turns in a shuffled order (seed 1)",
            ReductionOrder::Ascending,
            Schedule::Shuffled(1),
        ),
        (
            "waves and groups taking turns in a shuffled order (seed 2)",
            ReductionOrder::Ascending,
            Schedule::Shuffled(2),
        ),
    ]
}

/// Whether the waves and groups of a dispatch can see each other's memory,
/// as three answers: through groupshared memory, through groupshared
/// atomics, and through an atomic whose order shows or a buffer that it
/// both reads and writes. Where neither can (groupshared memory counts not
/// where its waves never touch a word another wrote in the same phase:
/// see `needed`), and no
/// word is written twice with a store among the writes
/// (`Writers::overwritten`), every thread reads only memory that no thread
/// writes meanwhile, so its writes are the same in any schedule, and the
/// shuffled schedules are not run.
fn shares_memory(program: &lockstep_exec::Program, bindings: &Bindings) -> (bool, bool, bool) {
    let uses = program.shared_memory();
    let buffer = |id: &lockstep_ir::ResourceId| bindings.buffer_of.get(id.index()).copied();
    let read: Vec<usize> = uses.read.iter().filter_map(buffer).collect();
    let buffers = uses.ordered_atomics
        || uses
            .written
            .iter()
            .filter_map(buffer)
            .any(|b| read.contains(&b));
    (uses.groupshared, uses.groupshared_atomics, buffers)
}

/// The wave sizes a check runs: those the device supports and the
/// shader's `[WaveSize]` allows.
pub fn check_wave_sizes(shader: &Shader, opts: &RunOptions) -> Result<Vec<u32>, RunError> {
    let device = opts.device();
    // Fails with the usual message when no size fits.
    choose_wave_size(shader, &device)?;
    let range = shader.module.entry.as_ref().and_then(|e| e.wave_size);
    Ok(device
        .sizes()
        .filter(|w| range.is_none_or(|r| (r.min..=r.max).contains(w)))
        .collect())
}

/// Runs the check: the wave sizes side by side, `opts.threads` at once (0:
/// one per core), each dispatch on one thread. `progress(done, total)` is
/// called on the calling thread after each dispatch.
///
/// A wave size at which the dispatch is proven free of everything checked
/// mode reports ([`lockstep_exec::Program::prove_clean`]) runs as `lockstep
/// run` runs it, in machine code where there is some; the others run in
/// checked mode. The report is the same either way.
pub fn check(
    shader: &Shader,
    pipeline: &Pipeline,
    opts: &RunOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<CheckReport, RunError> {
    check_with(shader, pipeline, opts, progress, true)
}

/// [`check`] with every wave size in checked mode, none proven clean
/// first: the reference the proofs are tested against (the same report,
/// slower).
#[doc(hidden)]
pub fn check_in_checked_mode(
    shader: &Shader,
    pipeline: &Pipeline,
    opts: &RunOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<CheckReport, RunError> {
    check_with(shader, pipeline, opts, progress, false)
}

/// [`check`], with the proofs of [`lockstep_exec::Program::prove_clean`]
/// where `prove` is set.
fn check_with(
    shader: &Shader,
    pipeline: &Pipeline,
    opts: &RunOptions,
    progress: &mut dyn FnMut(usize, usize),
    prove: bool,
) -> Result<CheckReport, RunError> {
    let bindings = Bindings::new(shader, pipeline)?;
    let (sizes, skipped) = runnable_sizes(shader, check_wave_sizes(shader, opts)?)?;
    let checked = Program::compile_checked(&shader.module)?;
    let buffers = pipeline.buffers.len();
    let outputs: Vec<usize> = bindings
        .buffers_where(shader, buffers, |r| r.kind.is_writable())
        .iter()
        .enumerate()
        .filter_map(|(b, &written)| written.then_some(b))
        .collect();
    // Buffers the shader declared unordered compare as multisets.
    let unordered = bindings.buffers_where(shader, buffers, |r| {
        shader.pragmas.unordered.contains(&r.name)
    });
    let same = |b: usize, x: &[u8], y: &[u8]| {
        x == y
            || (unordered[b] && sorted_elements(pipeline, b, x) == sorted_elements(pipeline, b, y))
            || (opts.ulps > 0 && floats_within(pipeline.buffers[b].format, x, y, opts.ulps))
    };
    // Orders that cannot change this dispatch's memory are not run: see
    // `needed`.
    let folds_floats = !checked.float_reductions().is_empty();
    // The machine code's program marks the atomics whose result nothing reads
    // (their order cannot show); checked programs mark none.
    let (groupshared, groupshared_atomics, shares_buffers) =
        shares_memory(&shader.program, &bindings);
    let total = sizes.len() * (1 + variations().len());
    // Each dispatch runs on one thread, so that checked mode and the
    // shuffled schedules are deterministic; the wave sizes run side by
    // side, as many at once as the workers (each with its own copies of
    // the buffers), and their results are put together in wave-size order,
    // so the report does not depend on how many ran at once. A dispatch's
    // copies run on its own thread too (a thread count past the limit is
    // still the error a run gives).
    let workers = match opts.threads {
        n if n > lockstep_exec::MAX_THREADS => Workers::new(n)?,
        _ => Workers::new(1)?,
    };
    let at_once = match opts.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    // Sizes at which the dispatch is proven free of what checked mode
    // reports run as `lockstep run` runs them; the others in checked mode.
    let lengths = bindings.resource_lengths(pipeline);
    // The proof counts writes per resource: where two share a memory, a
    // word may be written through both.
    let aliased = bindings.aliased();
    let proofs: Vec<Option<lockstep_exec::Proof>> = sizes
        .iter()
        .map(|&w| {
            let mut proof = prove
                .then(|| checked.prove_clean(w, pipeline.dispatch, &lengths))
                .flatten()?;
            proof.overwritten |= aliased;
            Some(proof)
        })
        .collect();
    // Groupshared memory cannot make one schedule's results differ from
    // another's where no wave touches a word that another wave writes in
    // the same phase: where the proof shows it, or the checked run, which
    // finds every such pair in any order, reports nothing. Waves may still
    // update one word atomically in one phase: only updates that fold into
    // one, whose results nothing reads, leave the same word in any order
    // (`SharedMemory::groupshared_atomics`).
    let needed = |schedule: Schedule, groupshared_settled: bool, written: &Written| match schedule {
        Schedule::InOrder => folds_floats,
        Schedule::Shuffled(_) => {
            shares_buffers || (groupshared && !groupshared_settled) || written.overwritten()
        }
    };
    let config_at = |w: u32| DispatchConfig {
        wave_size: w,
        threads: 1,
        step_budget: opts.step_budget,
        group_count: pipeline.dispatch,
        ..DispatchConfig::default()
    };
    // The checked run at size `w`: its findings, its writers and the
    // pipeline's buffers after it.
    // The checked run at size `w`, or where a loop ran past the step
    // budget, the error and what the run found before it.
    let checked_run_raw = |w: u32| {
        let memories = bindings.memories(shader, pipeline, &workers);
        let run = lockstep_exec::dispatch_checked_until_stuck(
            &checked,
            &bindings.bound(&memories),
            &config_at(w),
        );
        run.map(|run| {
            run.map(|(findings, writers)| (findings, writers, bindings.contents(memories)))
        })
    };
    let checked_run = |w: u32| -> Result<_, RunError> {
        let note = format!("at wave size {w}, in the checked run");
        match checked_run_raw(w) {
            Ok(Ok(run)) => Ok(run),
            Ok(Err((e, _))) | Err(e) => Err(RunError::from(e).with_note(note)),
        }
    };
    // Where the proof leaves checks to one group's checked run (every group
    // meets them alike), whether that run reports nothing; a run that fails
    // leaves the size to checked mode, which reports it.
    let one_group_clean = |w: u32| -> bool {
        let memories = bindings.memories(shader, pipeline, &workers);
        let config = DispatchConfig {
            group_count: [1, 1, 1],
            ..config_at(w)
        };
        lockstep_exec::dispatch_checked_writers(&checked, &bindings.bound(&memories), &config)
            .is_ok_and(|(findings, _)| findings.is_empty())
    };
    let one_size = |i: usize, dispatched: &dyn Fn()| -> Result<SizeRun, RunError> {
        let w = sizes[i];
        let config = config_at(w);
        let proof = proofs[i]
            .as_ref()
            .filter(|p| !p.group_check || one_group_clean(w));
        let (findings, mut written, contents) = match proof {
            Some(proof) => {
                let memories = bindings.memories_for_dispatch(shader, pipeline, &workers, w);
                lockstep_exec::dispatch(&shader.program, &bindings.bound(&memories), &config)
                    .map_err(|e| RunError::from(e).with_note(format!("at wave size {w}")))?;
                (
                    Vec::new(),
                    Written::Proven(proof.clone()),
                    bindings.contents(memories),
                )
            }
            None => match checked_run_raw(w) {
                Ok(Ok((findings, writers, contents))) => {
                    (findings, Written::Recorded(writers), contents)
                }
                // A loop that never ends in order: the size is reported,
                // with what the run found before, and left out of the
                // comparisons.
                Ok(Err((e, mut findings))) => {
                    dispatched();
                    for _ in variations() {
                        dispatched();
                    }
                    findings.push(stuck_finding(&e, w, config.step_budget));
                    return Ok(SizeRun {
                        findings: findings.into_iter().map(|f| reported(shader, f)).collect(),
                        written: Written::Recorded(lockstep_exec::Writers::default()),
                        contents: Vec::new(),
                        order_dependence: Vec::new(),
                        proven: false,
                        stuck: true,
                    });
                }
                Err(e) => {
                    return Err(RunError::from(e)
                        .with_note(format!("at wave size {w}, in the checked run")));
                }
            },
        };
        let groupshared_settled = (proof.is_some() || findings.is_empty()) && !groupshared_atomics;
        let mut findings: Vec<ReportedFinding> =
            findings.into_iter().map(|f| reported(shader, f)).collect();
        dispatched();
        let mut order_dependence = Vec::new();
        let mut progress = Vec::new();
        for (name, order, schedule) in variations() {
            if !needed(schedule, groupshared_settled, &written) {
                dispatched();
                continue;
            }
            let memories = bindings.memories(shader, pipeline, &workers);
            let config = DispatchConfig {
                order,
                schedule,
                ..config.clone()
            };
            match lockstep_exec::dispatch(&shader.program, &bindings.bound(&memories), &config) {
                Ok(()) => {}
                // The default order finished: the waves wait on each
                // other's progress in this one.
                Err(e) if e.is_step_budget() && schedule != Schedule::InOrder => {
                    progress.push(progress_finding(&e, w, name, config.step_budget));
                    dispatched();
                    continue;
                }
                Err(e) => {
                    return Err(
                        RunError::from(e).with_note(format!("at wave size {w}, with {name}"))
                    );
                }
            }
            for &b in &outputs {
                let other = bindings.buffer_bytes(&memories, b);
                if !same(b, &other, &contents[b]) {
                    let name = if unordered[b] {
                        format!("{name}; as an unordered buffer, its elements differ as a multiset")
                    } else {
                        name.to_string()
                    };
                    let mut issue = order_issue(pipeline, b, w, &name, &contents[b], &other);
                    let spans = if order == ReductionOrder::Ascending {
                        let slots = bindings.slots_of_buffer(pipeline, b);
                        let size = pipeline.buffers[b].format.size().max(1);
                        (issue.atomics, issue.atomic_lines) =
                            locations(shader, &checked.ordered_atomics());
                        written.record_where_needed(&slots, || Ok(checked_run(w)?.1))?;
                        written_by_either(
                            std::slice::from_ref(&written),
                            &slots,
                            &issue.differing,
                            size,
                        )
                    } else {
                        checked.float_reductions()
                    };
                    (issue.sources, issue.source_lines) = locations(shader, &spans);
                    order_dependence.push(issue);
                }
            }
            dispatched();
        }
        findings.extend(progress.into_iter().map(|f| reported(shader, f)));
        Ok(SizeRun {
            findings,
            written,
            contents,
            order_dependence,
            proven: proof.is_some(),
            stuck: false,
        })
    };
    let mut done = 0;
    // The slowest dispatches start first, so that the workers end together:
    // those in checked mode or the interpreter, the widest waves first; then
    // those in machine code, the narrowest first (more waves to a group,
    // and at wave size 4 half of each wave's lanes idle).
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| {
        let native = proofs[i].is_some()
            && shader
                .program
                .engine_report(sizes[i], lockstep_exec::Engine::Auto)
                .native;
        (
            native,
            if native {
                sizes[i]
            } else {
                u32::MAX - sizes[i]
            },
        )
    });
    let runs = side_by_side(&order, at_once, one_size, || {
        done += 1;
        progress(done, total);
    })?;
    let mut report = CheckReport {
        wave_sizes: sizes.clone(),
        skipped,
        ..CheckReport::default()
    };
    let mut baselines = Vec::new();
    let mut writers = Vec::new();
    // The sizes whose runs ended, which the comparisons take.
    let mut ended = Vec::new();
    for (&w, run) in sizes.iter().zip(runs) {
        if run.proven {
            report.proven.push(w);
        }
        for f in run.findings {
            merge_finding(&mut report.findings, f, w);
        }
        report.order_dependence.extend(run.order_dependence);
        if run.stuck {
            continue;
        }
        ended.push(w);
        baselines.push(run.contents);
        writers.push(run.written);
    }
    let sizes = ended;
    for &b in &outputs {
        if let Some(mut issue) = portability(pipeline, b, &sizes, &baselines, &same) {
            let slots = bindings.slots_of_buffer(pipeline, b);
            let size = pipeline.buffers[b].format.size().max(1);
            for (i, written) in writers.iter_mut().enumerate() {
                written.record_where_needed(&slots, || Ok(checked_run(sizes[i])?.1))?;
            }
            let spans = written_by_either(&writers, &slots, &issue.differing, size);
            (issue.written_at, issue.written_lines) = locations(shader, &spans);
            report.portability.push(issue);
        }
    }
    report.results = result_failures(pipeline, &sizes, &baselines);
    report.sort_findings();
    Ok(report)
}

/// The wave sizes of `sizes` at which the shader's group fits the
/// device, and the others with why: a `[numWaves(n)]` group grows with
/// the wave size. An error when none fits.
fn runnable_sizes(
    shader: &Shader,
    sizes: Vec<u32>,
) -> Result<(Vec<u32>, Vec<SkippedSize>), RunError> {
    let group = shader.program.group;
    let (fit, too_big): (Vec<u32>, Vec<u32>) = sizes
        .into_iter()
        .partition(|&w| group.threads(w) <= lockstep_exec::MAX_GROUP_THREADS);
    let skipped: Vec<SkippedSize> = too_big
        .into_iter()
        .map(|w| SkippedSize {
            wave_size: w,
            reason: format!(
                "the group would have {} threads ({} waves), more than the device's limit of {}",
                group.threads(w),
                group.waves(w),
                lockstep_exec::MAX_GROUP_THREADS
            ),
        })
        .collect();
    if fit.is_empty() {
        let why: Vec<String> = skipped
            .iter()
            .map(|s| format!("at wave size {}: {}", s.wave_size, s.reason))
            .collect();
        return Err(RunError::new(format!(
            "the shader can run at none of the device's wave sizes ({})",
            why.join("; ")
        )));
    }
    Ok((fit, skipped))
}

/// What the dispatches at one wave size found: the checked run's findings
/// (none where the size was proven clean) and buffers, and the
/// variations' order dependence.
struct SizeRun<'p> {
    findings: Vec<ReportedFinding>,
    written: Written,
    contents: Vec<crate::BufferContents<'p>>,
    order_dependence: Vec<OrderIssue>,
    /// Whether the dispatch ran as proven, not in checked mode.
    proven: bool,
    /// Whether a loop ran past the step budget in order: the size has no
    /// buffers to compare.
    stuck: bool,
}

/// What a size's run says of the writes: which statement wrote each word
/// last, as checked mode records it, or the statements that write each
/// resource, as proven before a run checked mode did not need.
enum Written {
    Recorded(lockstep_exec::Writers),
    Proven(lockstep_exec::Proof),
}

impl Written {
    /// Whether a word may have been written twice with a store among the
    /// writes.
    fn overwritten(&self) -> bool {
        match self {
            Written::Recorded(w) => w.overwritten(),
            Written::Proven(p) => p.overwritten,
        }
    }

    /// The proven writers of the resource slots, where the slots have one
    /// between them: it wrote every word of theirs that was written.
    fn sole_writer(&self, slots: &[(usize, usize)]) -> Option<Option<lockstep_ir::Span>> {
        let Written::Proven(p) = self else {
            return None;
        };
        let mut spans = slots
            .iter()
            .flat_map(|&(slot, _)| p.writers.get(slot).into_iter().flatten());
        let first = spans.next().copied();
        spans.all(|s| Some(*s) == first).then_some(first)
    }

    /// Where the proof does not name the one statement that writes the
    /// slots, the writers as checked mode records them, from `record`.
    fn record_where_needed(
        &mut self,
        slots: &[(usize, usize)],
        record: impl FnOnce() -> Result<lockstep_exec::Writers, RunError>,
    ) -> Result<(), RunError> {
        if matches!(self, Written::Proven(_)) && self.sole_writer(slots).is_none() {
            *self = Written::Recorded(record()?);
        }
        Ok(())
    }
}

/// Runs `job(i)` for each `i` of `order` (a permutation of `0..count`),
/// at most `at_once` at a time, each on a thread of its own, started in
/// `order` (on this thread and in index order when one at a time), and
/// calls `tick` on this thread each time a job calls the function it is
/// given. Returns the results in index order, or the error of the first
/// job by index that failed: the jobs after a failed one (by index) that
/// have not started do not start, and those before it still run, so the
/// error is the one running them in index order would give.
fn side_by_side<T: Send>(
    order: &[usize],
    at_once: usize,
    job: impl Fn(usize, &dyn Fn()) -> Result<T, RunError> + Sync,
    mut tick: impl FnMut(),
) -> Result<Vec<T>, RunError> {
    let count = order.len();
    let at_once = at_once.clamp(1, count.max(1));
    if at_once == 1 {
        let tick = std::cell::RefCell::new(tick);
        return (0..count)
            .map(|i| job(i, &|| (tick.borrow_mut())()))
            .collect();
    }
    let next = AtomicUsize::new(0);
    let failed = AtomicUsize::new(usize::MAX);
    let results: Vec<Mutex<Option<Result<T, RunError>>>> =
        (0..count).map(|_| Mutex::new(None)).collect();
    let (sender, ticks) = mpsc::channel::<()>();
    std::thread::scope(|s| {
        for _ in 0..at_once {
            let (sender, next, failed, results, job) =
                (sender.clone(), &next, &failed, &results, &job);
            s.spawn(move || {
                while let Some(&i) = order.get(next.fetch_add(1, Relaxed)) {
                    if i > failed.load(Relaxed) {
                        continue;
                    }
                    let result = job(i, &|| {
                        // The receiver lives until every job has ended.
                        let _ = sender.send(());
                    });
                    if result.is_err() {
                        failed.fetch_min(i, Relaxed);
                    }
                    *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
                }
            });
        }
        drop(sender);
        for () in ticks {
            tick();
        }
    });
    // Only jobs after a failed one have no result, so the failed one's
    // error comes first.
    let out: Vec<T> = results
        .into_iter()
        .filter_map(|slot| slot.into_inner().unwrap_or_else(|e| e.into_inner()))
        .collect::<Result<_, _>>()?;
    debug_assert_eq!(out.len(), count);
    Ok(out)
}

/// One entry per kind and place, listing the wave sizes.
pub(crate) fn merge_finding(all: &mut Vec<ReportedFinding>, f: ReportedFinding, w: u32) {
    match all
        .iter_mut()
        .find(|r| r.kind == f.kind && r.location == f.location && r.called_from == f.called_from)
    {
        Some(r) => {
            if !r.wave_sizes.contains(&w) {
                r.wave_sizes.push(w);
            }
            r.count += f.count;
        }
        None => all.push(f),
    }
}

/// The finding of a loop that ran past the step budget with the groups
/// and waves in order, at wave size `w`.
fn stuck_finding(e: &lockstep_exec::ExecError, w: u32, budget: u64) -> Finding {
    loop_finding(
        e,
        w,
        format!(
            "this loop ran past the step budget of {budget} iterations in one wave, with the \
             groups and waves in order: it may never end. Lanes that wait for another lane of \
             their own wave (a lock taken lane by lane), or for a side of a branch the wave has \
             not run, never go on where a wave's lanes run in lockstep; raise --max-steps if the \
             loop is meant to run this long"
        ),
    )
}

/// The finding of a loop that ran past the step budget under the
/// schedule `name`, at wave size `w`.
fn progress_finding(e: &lockstep_exec::ExecError, w: u32, name: &str, budget: u64) -> Finding {
    loop_finding(
        e,
        w,
        format!(
            "this loop ran past the step budget of {budget} iterations with {name}, \
             where it ends with the groups and waves in order: they wait on each other's \
             progress, which no GPU schedule promises"
        ),
    )
}

/// A progress dependence at the loop of `e`, at wave size `w`.
fn loop_finding(e: &lockstep_exec::ExecError, w: u32, message: String) -> Finding {
    Finding {
        kind: lockstep_exec::FindingKind::ProgressDependence,
        span: e.span,
        called_from: None,
        calls: Vec::new(),
        wave_size: w,
        group: [0; 3],
        wave: 0,
        lanes: Vec::new(),
        message,
        count: 1,
    }
}

pub(crate) fn reported(shader: &Shader, f: Finding) -> ReportedFinding {
    let at = |span: Option<lockstep_ir::Span>| {
        span.filter(|s| (s.file as usize) < shader.source_map.files().len())
            .map(|s| {
                shader.source_map.location(lockstep_syntax::Span::new(
                    lockstep_syntax::FileId(s.file),
                    s.start,
                    s.end,
                ))
            })
    };
    ReportedFinding {
        kind: f.kind.name(),
        severity: Severity::of(f.kind.name()),
        message: f.message.clone(),
        location: at(f.span),
        called_from: at(f.called_from),
        calls: f.calls.iter().filter_map(|&c| at(Some(c))).collect(),
        wave_sizes: vec![f.wave_size],
        wave_size: f.wave_size,
        group: f.group,
        wave: f.wave,
        lanes: f.lanes.clone(),
        count: f.count,
        finding: Some(f),
    }
}

fn elements(pipeline: &Pipeline, buffer: usize, bytes: &[u8]) -> Vec<String> {
    lockstep_pipeline::element_strings(pipeline.buffers[buffer].format, bytes)
}

/// The indices of the elements where any of `contents` of `buffer`
/// differs from the first as the format renders them (the bytes compared
/// first: only differing bits are rendered).
fn differing_elements(pipeline: &Pipeline, buffer: usize, contents: &[&[u8]]) -> Vec<usize> {
    let format = pipeline.buffers[buffer].format;
    let size = format.size();
    // Only `float` and `double` spell some different bits alike (NaNs).
    let spelled = format.is_float() && size > 2;
    fn element(bytes: &[u8], i: usize, size: usize) -> Option<&[u8]> {
        bytes.get(i * size..(i + 1) * size)
    }
    let differs = |a: Option<&[u8]>, b: Option<&[u8]>| match (a, b) {
        (Some(a), Some(b)) => {
            a != b
                && (!spelled
                    || format.render_bits(format.read_bits(a))
                        != format.render_bits(format.read_bits(b)))
        }
        (a, b) => a.is_some() != b.is_some(),
    };
    let len = contents.iter().map(|c| c.len() / size).max().unwrap_or(0);
    let mut marked = vec![false; len];
    if let Some((first, others)) = contents.split_first() {
        let mut here = vec![false; len];
        for other in others {
            let whole = first.len().min(other.len()) / size;
            let (a, b) = (&first[..whole * size], &other[..whole * size]);
            // Differing bits mark the element where the format spells all
            // bits apart; for floats, where the spellings differ too.
            here.fill(false);
            let bits = if spelled {
                &mut here[..whole]
            } else {
                &mut marked[..whole]
            };
            // Elements of one word or two compare as numbers.
            match size {
                4 => mark(bits, a.chunks_exact(4), b.chunks_exact(4), |x, y| {
                    u32::from_le_bytes(x.try_into().unwrap_or_default())
                        != u32::from_le_bytes(y.try_into().unwrap_or_default())
                }),
                8 => mark(bits, a.chunks_exact(8), b.chunks_exact(8), |x, y| {
                    u64::from_le_bytes(x.try_into().unwrap_or_default())
                        != u64::from_le_bytes(y.try_into().unwrap_or_default())
                }),
                _ => mark(bits, a.chunks_exact(size), b.chunks_exact(size), |x, y| {
                    x != y
                }),
            }
            if spelled {
                for (i, m) in marked.iter_mut().enumerate().take(whole) {
                    *m |= here[i] && differs(element(other, i, size), element(first, i, size));
                }
            }
            // Past either end.
            for (i, m) in marked.iter_mut().enumerate().skip(whole) {
                *m |= differs(element(other, i, size), element(first, i, size));
            }
        }
    }
    marked
        .iter()
        .enumerate()
        .filter_map(|(i, &m)| m.then_some(i))
        .collect()
}

/// Marks the elements where `a` and `b` differ by `differ`.
fn mark<'a>(
    marked: &mut [bool],
    a: impl Iterator<Item = &'a [u8]>,
    b: impl Iterator<Item = &'a [u8]>,
    differ: impl Fn(&[u8], &[u8]) -> bool,
) {
    for ((m, x), y) in marked.iter_mut().zip(a).zip(b) {
        *m |= differ(x, y);
    }
}

/// Element `i` of `bytes` as `buffer`'s format renders it; empty past the
/// end.
fn element_text(pipeline: &Pipeline, buffer: usize, bytes: &[u8], i: usize) -> String {
    let format = pipeline.buffers[buffer].format;
    let size = format.size();
    bytes
        .get(i * size..(i + 1) * size)
        .map(|e| format.render_bits(format.read_bits(e)))
        .unwrap_or_default()
}

fn sorted_elements(pipeline: &Pipeline, buffer: usize, bytes: &[u8]) -> Vec<String> {
    let mut e = elements(pipeline, buffer, bytes);
    e.sort_unstable();
    e
}

pub(crate) fn order_issue(
    pipeline: &Pipeline,
    buffer: usize,
    wave_size: u32,
    variation: &str,
    base: &[u8],
    other: &[u8],
) -> OrderIssue {
    let contents = [base, other];
    let differing = differing_elements(pipeline, buffer, &contents);
    OrderIssue {
        buffer: pipeline.buffers[buffer].name.clone(),
        wave_size,
        variation: variation.to_string(),
        elements: differing
            .iter()
            .take(LISTED)
            .map(|&i| ElementDiff {
                index: i,
                values: contents
                    .iter()
                    .map(|c| element_text(pipeline, buffer, c, i))
                    .collect(),
            })
            .collect(),
        differing_elements: differing.len(),
        differing,
        sources: Vec::new(),
        source_lines: Vec::new(),
        atomics: Vec::new(),
        atomic_lines: Vec::new(),
    }
}

/// Whether two contents of a float buffer have every element at most
/// `ulps` apart (or both NaN).
fn floats_within(format: lockstep_pipeline::Format, x: &[u8], y: &[u8], ulps: u64) -> bool {
    let size = format.size();
    format.is_float()
        && x.len() == y.len()
        && x.chunks(size).zip(y.chunks(size)).all(|(a, b)| {
            crate::diff::agree(format, format.read_bits(a), format.read_bits(b), 0.0, ulps)
        })
}

/// Whether two contents of a buffer count as the same.
pub(crate) type SameContents<'a> = dyn Fn(usize, &[u8], &[u8]) -> bool + 'a;

/// Groups the wave sizes by the contents they left in `buffer`; `None`
/// when all agree.
pub(crate) fn portability<B: AsRef<[u8]>>(
    pipeline: &Pipeline,
    buffer: usize,
    sizes: &[u32],
    runs: &[Vec<B>],
    same: &SameContents,
) -> Option<PortabilityIssue> {
    let mut classes: Vec<(Vec<u32>, &[u8])> = Vec::new();
    for (&w, run) in sizes.iter().zip(runs) {
        match classes
            .iter_mut()
            .find(|(_, bytes)| same(buffer, bytes, run[buffer].as_ref()))
        {
            Some((ws, _)) => ws.push(w),
            None => classes.push((vec![w], run[buffer].as_ref())),
        }
    }
    if classes.len() < 2 {
        return None;
    }
    let contents: Vec<&[u8]> = classes.iter().map(|(_, bytes)| *bytes).collect();
    let differing = differing_elements(pipeline, buffer, &contents);
    Some(PortabilityIssue {
        written_at: Vec::new(),
        written_lines: Vec::new(),
        differing: differing.clone(),
        buffer: pipeline.buffers[buffer].name.clone(),
        agreeing: classes.iter().map(|(ws, _)| ws.clone()).collect(),
        elements: differing
            .iter()
            .take(LISTED)
            .map(|&i| ElementDiff {
                index: i,
                values: contents
                    .iter()
                    .map(|c| element_text(pipeline, buffer, c, i))
                    .collect(),
            })
            .collect(),
        differing_elements: differing.len(),
    })
}

/// The statements that wrote the elements `differing` (of `size` bytes)
/// of a buffer bound at `slots` (slot, byte offset) in any of the runs,
/// distinct, in source order.
pub(crate) fn written_by(
    writers: &[&lockstep_exec::Writers],
    slots: &[(usize, usize)],
    differing: &[usize],
    size: usize,
) -> Vec<lockstep_ir::Span> {
    let mut spans: Vec<lockstep_ir::Span> = Vec::new();
    for &i in differing {
        let (start, end) = (i * size, (i + 1) * size);
        for &(slot, offset) in slots {
            for word in (start.saturating_sub(offset) / 4)..end.saturating_sub(offset).div_ceil(4) {
                for w in writers {
                    if let Some(span) = w.span(slot, word)
                        && !spans.contains(&span)
                    {
                        spans.push(span);
                    }
                }
            }
        }
    }
    spans.sort_by_key(|s| (s.file, s.start));
    spans
}

/// [`written_by`] over runs whose writes were recorded or proven: a proven
/// run names the one statement that writes the slots
/// ([`Written::record_where_needed`] made sure there is one).
fn written_by_either(
    writers: &[Written],
    slots: &[(usize, usize)],
    differing: &[usize],
    size: usize,
) -> Vec<lockstep_ir::Span> {
    let recorded: Vec<&lockstep_exec::Writers> = writers
        .iter()
        .filter_map(|w| match w {
            Written::Recorded(r) => Some(r),
            Written::Proven(_) => None,
        })
        .collect();
    let mut spans = written_by(&recorded, slots, differing, size);
    for sole in writers
        .iter()
        .filter_map(|w| w.sole_writer(slots).flatten())
    {
        if !differing.is_empty() && !spans.contains(&sole) {
            spans.push(sole);
        }
    }
    spans.sort_by_key(|s| (s.file, s.start));
    spans
}

/// Each span's `file:line:col` and its source line, trimmed.
pub(crate) fn locations(
    shader: &Shader,
    spans: &[lockstep_ir::Span],
) -> (Vec<String>, Vec<String>) {
    spans
        .iter()
        .filter(|s| (s.file as usize) < shader.source_map.files().len())
        .map(|s| {
            let span = lockstep_syntax::Span::new(lockstep_syntax::FileId(s.file), s.start, s.end);
            let text = &shader.source_map.files()[s.file as usize].text;
            let start = (s.start as usize).min(text.len());
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
            (
                shader.source_map.location(span),
                text[line_start..line_end].trim().to_string(),
            )
        })
        .unzip()
}

fn sizes_text(ws: &[u32]) -> String {
    let names: Vec<String> = ws.iter().map(u32::to_string).collect();
    names.join(", ")
}

/// A finding as a diagnostic at its source, with `context` as its note.
fn render_at(shader: &Shader, f: &ReportedFinding, context: &str, color: bool) -> String {
    match f.finding.as_ref().and_then(|x| x.span) {
        Some(span) => {
            let span = lockstep_syntax::Span::new(
                lockstep_syntax::FileId(span.file),
                span.start,
                span.end,
            );
            // A loop that waits on another wave's or group's progress is
            // a hazard no GPU rules out, not undefined behaviour; an access
            // past a resource is defined on D3D12.
            let message = format!("{}: {}", f.kind, f.message);
            let mut d = match f.severity {
                Severity::Error => lockstep_syntax::Diagnostic::error(span, message),
                Severity::Warning | Severity::Note => {
                    lockstep_syntax::Diagnostic::warning(span, message)
                }
            };
            if let Some((first, outer)) = f.calls.split_first() {
                let mut note = format!("in the call at {first}");
                for call in outer {
                    note += &format!(", called at {call}");
                }
                d = d.with_note(note);
            }
            if f.severity == Severity::Note {
                d = d.with_note(ROBUSTNESS);
            }
            let d = d.with_note(context.to_string());
            crate::render_diagnostics(&shader.source_map, &[d], color)
        }
        None => {
            let severity = match f.severity {
                Severity::Error => "error",
                Severity::Warning | Severity::Note => "warning",
            };
            format!("{severity}: {}: {}\n  = {context}\n\n", f.kind, f.message)
        }
    }
}

/// The kind of a finding about a loop that waits on another wave's or
/// group's progress.
const PROGRESS: &str = "progress-dependence";

/// The kind of a finding about a buffer or texture access out of bounds.
const RESOURCE_BOUNDS: &str = "out-of-bounds-resource";

/// Why an access past a resource does not fail the check.
const ROBUSTNESS: &str = "defined on D3D12 (a read gives 0, a write is dropped), as Lockstep runs it; \
     undefined on Vulkan without robustBufferAccess or robustImageAccess, and through D3D12 root descriptors";

impl CheckReport {
    /// The human-readable report (diagnostics rendered through the source
    /// map where the finding has a location).
    pub fn render(&self, shader: &Shader, color: bool) -> String {
        let mut out = String::new();
        for f in &self.findings {
            if f.lanes.is_empty() {
                // Not one wave's: a finding of the whole dispatch.
                let context = format!("at wave sizes {}", sizes_text(&f.wave_sizes));
                out.push_str(&render_at(shader, f, &context, color));
                continue;
            }
            let context = format!(
                "at wave sizes {}; first at wave size {}, group ({}, {}, {}), wave {}, lanes {}{}",
                sizes_text(&f.wave_sizes),
                f.wave_size,
                f.group[0],
                f.group[1],
                f.group[2],
                f.wave,
                lanes_text(&f.lanes),
                if f.count > 1 {
                    format!(" ({} times in all)", f.count)
                } else {
                    String::new()
                }
            );
            out.push_str(&render_at(shader, f, &context, color));
        }
        for p in &self.portability {
            let classes: Vec<String> = p
                .agreeing
                .iter()
                .map(|ws| format!("[{}]", sizes_text(ws)))
                .collect();
            out.push_str(&format!(
                "portability: buffer '{}' differs between wave sizes: {} of its elements; sizes that agree: {}\n",
                p.buffer,
                p.differing_elements,
                classes.join(" ")
            ));
            for (at, line) in p.written_at.iter().zip(&p.written_lines) {
                out.push_str(&format!("  written at {at}: {line}\n"));
            }
            for e in &p.elements {
                // Classes that differ elsewhere may agree on this element:
                // one value, with every size that holds it.
                let mut values: Vec<(&str, Vec<u32>)> = Vec::new();
                for (ws, v) in p.agreeing.iter().zip(&e.values) {
                    match values.iter_mut().find(|(seen, _)| *seen == v.as_str()) {
                        Some((_, sizes)) => sizes.extend(ws),
                        None => values.push((v, ws.clone())),
                    }
                }
                let values: Vec<String> = values
                    .into_iter()
                    .map(|(v, mut ws)| {
                        ws.sort_unstable();
                        format!("{v} at [{}]", sizes_text(&ws))
                    })
                    .collect();
                out.push_str(&format!("  [{}] {}\n", e.index, values.join(", ")));
            }
            out.push_str(&more(p.differing_elements, p.elements.len()));
        }
        // One block per buffer and kind of variation (the shuffled orders'
        // seeds together), over the wave sizes it happened at; the
        // elements are those of the first.
        // A variation is `kind (seed N)suffix`, or has no seed.
        let parts = |v: &str| -> (String, Option<String>, String) {
            match v.split_once(" (seed ") {
                Some((kind, rest)) => {
                    let (seed, suffix) = rest.split_once(')').unwrap_or((rest, ""));
                    (kind.to_string(), Some(seed.to_string()), suffix.to_string())
                }
                None => (v.to_string(), None, String::new()),
            }
        };
        let kind = |v: &str| {
            let (kind, _, suffix) = parts(v);
            format!("{kind}{suffix}")
        };
        let mut blocks: Vec<(&OrderIssue, Vec<u32>, Vec<String>)> = Vec::new();
        for o in &self.order_dependence {
            let seed = parts(&o.variation).1;
            match blocks
                .iter_mut()
                .find(|(b, ..)| b.buffer == o.buffer && kind(&b.variation) == kind(&o.variation))
            {
                Some((_, sizes, seeds)) => {
                    if !sizes.contains(&o.wave_size) {
                        sizes.push(o.wave_size);
                    }
                    seeds.extend(seed.filter(|s| !seeds.contains(s)));
                }
                None => blocks.push((o, vec![o.wave_size], seed.into_iter().collect())),
            }
        }
        let order_blocks = blocks.len();
        for (o, mut sizes, seeds) in blocks {
            sizes.sort_unstable();
            let variation = match seeds.len() {
                0 | 1 => o.variation.clone(),
                _ => {
                    let (kind, _, suffix) = parts(&o.variation);
                    format!(
                        "{} (seeds {}){suffix}",
                        kind.replace("a shuffled order", "shuffled orders"),
                        seeds.join(", ")
                    )
                }
            };
            let (at, first) = match sizes.len() {
                1 => (format!("at wave size {}", o.wave_size), String::new()),
                _ => (
                    format!("at wave sizes {}", sizes_text(&sizes)),
                    format!(" at wave size {}", o.wave_size),
                ),
            };
            out.push_str(&format!(
                "order dependence: buffer '{}' changes {at} with {variation}: {} elements{first}\n",
                o.buffer, o.differing_elements
            ));
            let verb = if o.variation.starts_with("float") {
                "folded at"
            } else {
                "written at"
            };
            for (at, line) in o.sources.iter().zip(&o.source_lines) {
                out.push_str(&format!("  {verb} {at}: {line}\n"));
            }
            for (at, line) in o.atomics.iter().zip(&o.atomic_lines) {
                out.push_str(&format!("  in the order of the atomic at {at}: {line}\n"));
            }
            for e in &o.elements {
                out.push_str(&format!(
                    "  [{}] {} in order, {} otherwise\n",
                    e.index, e.values[0], e.values[1]
                ));
            }
            out.push_str(&more(o.differing_elements, o.elements.len()));
        }
        for r in &self.results {
            let holds = if r.passing.is_empty() {
                "at no wave size".to_string()
            } else {
                format!("at {}", sizes_text(&r.passing))
            };
            out.push_str(&format!(
                "results: rule '{}' ({}) fails at wave sizes {} (holds {holds}); at wave size {}:\n",
                r.name,
                r.rule,
                sizes_text(&r.failing),
                r.failing[0]
            ));
            for line in r.first.lines() {
                out.push_str(&format!("  {line}\n"));
            }
        }
        for s in &self.skipped {
            out.push_str(&format!(
                "note: wave size {} skipped: {}\n",
                s.wave_size, s.reason
            ));
        }
        let notes = self
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Note)
            .count();
        let summary = if self.is_clean() {
            let (what, notes) = match notes {
                0 => ("findings", String::new()),
                1 => (
                    "undefined behaviour",
                    " (1 out-of-bounds buffer or texture access, defined on D3D12)".to_string(),
                ),
                n => (
                    "undefined behaviour",
                    format!(" ({n} out-of-bounds buffer or texture accesses, defined on D3D12)"),
                ),
            };
            format!(
                "clean: no {what} at wave sizes {}{notes}\n",
                sizes_text(&self.wave_sizes)
            )
        } else {
            let count = |n: usize, one: &str, many: &str| {
                format!("{n} {}", if n == 1 { one } else { many })
            };
            let progress = self.findings.iter().filter(|f| f.kind == PROGRESS).count();
            let mut waits = String::new();
            if progress > 0 {
                waits += &format!(
                    "{}, ",
                    count(progress, "progress dependence", "progress dependences")
                );
            }
            if notes > 0 {
                waits += &format!(
                    "{}, ",
                    count(
                        notes,
                        "out-of-bounds resource access",
                        "out-of-bounds resource accesses"
                    )
                );
            }
            format!(
                "{}, {waits}{}, {}, {} (wave sizes {})\n",
                count(
                    self.findings.len() - progress - notes,
                    "undefined-behaviour finding",
                    "undefined-behaviour findings"
                ),
                count(
                    self.portability.len(),
                    "portability issue",
                    "portability issues"
                ),
                count(order_blocks, "order dependence", "order dependences"),
                count(
                    self.results.len(),
                    "failed result rule",
                    "failed result rules"
                ),
                sizes_text(&self.wave_sizes)
            )
        };
        out.push_str(&summary);
        out
    }
}

/// `  … and N more` (a line) where a list shows `listed` of `total`.
fn more(total: usize, listed: usize) -> String {
    match total.saturating_sub(listed) {
        0 => String::new(),
        n => format!("  … and {n} more\n"),
    }
}

fn lanes_text(lanes: &[u32]) -> String {
    if lanes.len() > 12 {
        let head: Vec<String> = lanes[..12].iter().map(u32::to_string).collect();
        format!("{}, … ({} lanes)", head.join(", "), lanes.len())
    } else {
        let all: Vec<String> = lanes.iter().map(u32::to_string).collect();
        all.join(", ")
    }
}

/// Runs the dispatch once, at the wave size `opts` chooses, in checked
/// mode: the run's output and the undefined behaviour it hit.
pub fn run_checked<'p>(
    shader: &Shader,
    pipeline: &'p Pipeline,
    opts: &RunOptions,
) -> Result<(crate::RunOutput<'p>, CheckReport), RunError> {
    let bindings = Bindings::new(shader, pipeline)?;
    let choice = choose_wave_size(shader, &opts.device())?;
    let checked = Program::compile_checked(&shader.module)?;
    let workers = Workers::new(opts.threads)?;
    let memories = bindings.memories(shader, pipeline, &workers);
    let config = DispatchConfig {
        wave_size: choice.size,
        threads: opts.threads,
        step_budget: opts.step_budget,
        group_count: pipeline.dispatch,
        ..DispatchConfig::default()
    };
    let findings = lockstep_exec::dispatch_checked_on(
        &workers,
        &checked,
        &bindings.bound(&memories),
        &config,
    )?;
    let contents = bindings.contents(memories);
    let outcomes = lockstep_pipeline::check_results(pipeline, &contents);
    let report = CheckReport {
        wave_sizes: vec![choice.size],
        findings: findings.into_iter().map(|f| reported(shader, f)).collect(),
        ..CheckReport::default()
    };
    Ok((
        crate::RunOutput {
            wave_size: choice,
            contents,
            outcomes,
        },
        report,
    ))
}
