//! Traces of chosen waves in checked mode: each statement a wave ran, its
//! active and helper lanes, the values its lanes gave the variables it
//! wrote, and what each wave operation read and returned.
//!
//! A *step* is one statement run by one wave. It begins at the first
//! instruction compiled for the statement (`DebugInfo::start`), or where a
//! wave resumes after a barrier or a call, and takes every instruction up
//! to the next step's. Statements of library functions (the intrinsics
//! written in HLSL) belong to their call's step.
//!
//! Values are kept only where they change: a step records, for each
//! variable component an instruction of the step wrote, the lanes whose
//! value changed or that were active, so that a reader rebuilds any lane's
//! value at any step by replaying the steps before it. A wave's first step
//! records every variable, the system values included.

use std::ops::Range;
use std::sync::Mutex;

use lockstep_ir::{ScalarType, Span, WaveOp};
use lockstep_wave::Mask;

use crate::ExecError;
use crate::bytecode::{Inst, Reg};
use crate::compile::Program;

/// Which waves to trace and how much.
#[derive(Clone, Debug)]
pub struct TraceRequest {
    /// The groups whose waves are traced. A pixel stage runs one wave per
    /// group: group `[n, 0, 0]` is the draw's wave `n`.
    pub groups: Vec<[u32; 3]>,
    /// Only this wave of each group; every wave when `None`.
    pub wave: Option<u32>,
    /// The steps kept, numbered from 0 over the traced waves in the order
    /// they ran.
    pub steps: Range<u64>,
    /// The most steps kept: recording stops there ([`Trace::truncated`]).
    pub max_steps: u64,
    /// The most lane values kept (variables' values and wave operations'
    /// operands and results): recording stops at the step that reaches
    /// it ([`Trace::values_full`]).
    pub max_values: u64,
}

impl Default for TraceRequest {
    fn default() -> TraceRequest {
        TraceRequest {
            groups: vec![[0; 3]],
            wave: None,
            steps: 0..u64::MAX,
            max_steps: DEFAULT_MAX_STEPS,
            max_values: DEFAULT_MAX_VALUES,
        }
    }
}

/// The steps a trace keeps unless asked for another number.
pub const DEFAULT_MAX_STEPS: u64 = 1_000_000;

/// The lane values a trace keeps unless asked for another number: values
/// that follow no pattern take about four bytes each in the page, so it
/// stays under about 50 MB.
pub const DEFAULT_MAX_VALUES: u64 = 12_000_000;

/// One scalar component of a variable: `v.x`, `s.count`, `a[3]`.
#[derive(Clone, Debug)]
pub struct Variable {
    /// The component's name: the variable's, then its path.
    pub name: String,
    /// The function the variable belongs to (empty for `static` globals).
    pub function: String,
    /// The component's type.
    pub ty: ScalarType,
    /// Where the variable is declared.
    pub span: Span,
    pub(crate) reg: Reg,
    /// The instructions where the register holds this variable.
    pub(crate) pcs: Range<u32>,
}

/// A traced wave.
#[derive(Clone, Debug)]
pub struct TracedWave {
    /// The wave's group.
    pub group: [u32; 3],
    /// The wave's index in its group.
    pub index: u32,
    /// The lanes that exist (a partial last wave has fewer).
    pub lanes: Mask,
}

/// One statement run by one wave.
#[derive(Clone, Debug)]
pub struct Step {
    /// Index into [`Trace::waves`].
    pub wave: u32,
    /// Index into [`Trace::statements`].
    pub statement: u32,
    /// The lanes active when the step began.
    pub active: Mask,
    /// The helper lanes among the wave's lanes (pixel shaders).
    pub helpers: Mask,
    writes: Range<u32>,
    ops: Range<u32>,
}

/// The values a step gave one variable component.
#[derive(Clone, Debug)]
pub struct Write {
    /// Index into [`Trace::variables`].
    pub variable: u32,
    /// The lanes recorded.
    pub lanes: Mask,
    /// Those whose value is undefined (read before any write).
    pub undefined: Mask,
    values: u32,
}

/// One wave or quad operation of a step.
#[derive(Clone, Debug)]
pub struct OpRecord {
    /// The operation.
    pub op: WaveOp,
    /// The operand's type.
    pub ty: ScalarType,
    /// The lanes that ran it.
    pub active: Mask,
    /// The lanes whose operand it read.
    pub sources: Mask,
    /// Components of the result: 4 for `uint4` masks, else 1.
    pub components: u8,
    inputs: u32,
    outputs: u32,
}

/// What a traced run recorded.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// The spans of the statements steps refer to.
    pub statements: Vec<Span>,
    /// The variables' components writes refer to.
    pub variables: Vec<Variable>,
    /// The traced waves, in the order they started.
    pub waves: Vec<TracedWave>,
    /// The steps kept, in the order they ran.
    pub steps: Vec<Step>,
    /// Lanes per wave.
    pub wave_size: u32,
    /// Steps the traced waves ran, kept or not.
    pub total_steps: u64,
    /// Recording stopped at [`TraceRequest::max_steps`] or
    /// [`TraceRequest::max_values`].
    pub truncated: bool,
    /// Recording stopped because the values reached
    /// [`TraceRequest::max_values`].
    pub values_full: bool,
    /// Pixel stages: for traced wave `n` (group `[n, 0, 0]`), each lane's
    /// pixel as `[x, y, covered]`, `covered` 0 for helper lanes.
    pub pixels: Vec<(u32, Vec<Option<[u32; 3]>>)>,
    writes: Vec<Write>,
    ops: Vec<OpRecord>,
    values: Vec<u64>,
}

impl Trace {
    /// The writes of `step`.
    pub fn writes(&self, step: &Step) -> &[Write] {
        &self.writes[step.writes.start as usize..step.writes.end as usize]
    }

    /// The wave operations of `step`.
    pub fn ops(&self, step: &Step) -> &[OpRecord] {
        &self.ops[step.ops.start as usize..step.ops.end as usize]
    }

    /// Each recorded lane of `write` with its value's bits, in lane order.
    pub fn write_values(&self, write: &Write) -> Vec<(usize, u64)> {
        self.lanes_with(write.lanes, write.values, 1)
            .into_iter()
            .map(|(l, v)| (l, v[0]))
            .collect()
    }

    /// Each lane of `op.sources | op.active` with its operand's bits.
    pub fn op_inputs(&self, op: &OpRecord) -> Vec<(usize, u64)> {
        self.lanes_with(op.sources | op.active, op.inputs, 1)
            .into_iter()
            .map(|(l, v)| (l, v[0]))
            .collect()
    }

    /// Each active lane of `op` with its result's components' bits.
    pub fn op_outputs(&self, op: &OpRecord) -> Vec<(usize, &[u64])> {
        self.lanes_with(op.active, op.outputs, usize::from(op.components))
    }

    fn lanes_with(&self, lanes: Mask, at: u32, per: usize) -> Vec<(usize, &[u64])> {
        crate::mask_lanes(lanes)
            .enumerate()
            .map(|(k, l)| (l, &self.values[at as usize + k * per..][..per]))
            .collect()
    }
}

/// The type of a wave operation's result component, for an operand of
/// type `ty`.
pub fn result_type(op: WaveOp, ty: ScalarType) -> ScalarType {
    use WaveOp::*;
    match op {
        IsFirstLane | AnyTrue | AllTrue | AllEqual | QuadAny | QuadAll => ScalarType::Bool,
        Ballot | Match | CountBits | PrefixCountBits | MultiPrefixCountBits | GetLaneCount
        | GetLaneIndex | GroupWaveIndex | GroupWaveCount => ScalarType::UInt32,
        _ => ty,
    }
}

/// What checked compilation keeps for traces: each instruction's
/// statement, and which registers hold which variables.
#[derive(Clone, Debug, Default)]
pub(crate) struct DebugInfo {
    /// Per instruction: its statement, or [`NO_STATEMENT`].
    pub stmt: Vec<u32>,
    /// Per instruction: whether a step begins there.
    pub start: Vec<bool>,
    /// Per instruction: inside functions the entry point calls, an index
    /// into `chains` (the calls, innermost first); `u32::MAX` outside.
    pub call: Vec<u32>,
    /// The chains of calls instructions are in, each innermost first.
    pub chains: Vec<Vec<Span>>,
    pub statements: Vec<Span>,
    pub variables: Vec<Variable>,
    /// The helper-lane flag's register (pixel shaders).
    pub helper: Option<Reg>,
}

/// The statement of instructions compiled outside any (the entry's
/// prologue).
pub(crate) const NO_STATEMENT: u32 = u32::MAX;

/// Where a traced dispatch records: built from a checked program and a
/// request, then read back with [`TraceSink::finish`].
pub struct TraceSink {
    request: TraceRequest,
    /// Per instruction, the variables it writes: `written[pc]` indexes
    /// `written_vars`.
    written: Vec<Range<u32>>,
    written_vars: Vec<u32>,
    /// Added to a group's x id before it is matched (a draw's later
    /// batches of pixel waves).
    pub(crate) group_offset: std::sync::atomic::AtomicU32,
    trace: Mutex<Trace>,
}

impl TraceSink {
    /// A sink for `program`, which must be compiled for checked mode.
    pub fn new(program: &Program, request: TraceRequest) -> Result<TraceSink, ExecError> {
        if !program.checked {
            return Err(ExecError::new(
                "a trace needs the program compiled for checked mode",
                None,
            ));
        }
        let debug = &program.debug;
        let mut written = Vec::with_capacity(program.code.len());
        let mut written_vars = Vec::new();
        for (pc, inst) in program.code.iter().enumerate() {
            let from = written_vars.len() as u32;
            for (k, v) in debug.variables.iter().enumerate() {
                if v.pcs.contains(&(pc as u32)) && inst.writes_in(v.reg.0..v.reg.0 + 1) {
                    written_vars.push(k as u32);
                }
            }
            written.push(from..written_vars.len() as u32);
        }
        let trace = Trace {
            statements: debug.statements.clone(),
            variables: debug.variables.clone(),
            ..Trace::default()
        };
        Ok(TraceSink {
            request,
            written,
            written_vars,
            group_offset: Default::default(),
            trace: Mutex::new(trace),
        })
    }

    /// What was recorded.
    pub fn finish(self) -> Trace {
        self.trace.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets the number added to each group's x id before it is matched
    /// against the request: a draw shades its pixel waves in batches.
    pub fn set_group_offset(&self, offset: u32) {
        self.group_offset
            .store(offset, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether the request traces a wave of group `group`.
    pub fn wants_group(&self, group: [u32; 3]) -> bool {
        self.request.groups.contains(&group)
    }

    /// Records which pixel each lane of pixel wave `wave` shades, as
    /// `[x, y, covered]` (`covered` 0 for a helper lane); `None` for a lane
    /// without a quad.
    pub fn place_pixels(&self, wave: u32, lanes: Vec<Option<[u32; 3]>>) {
        self.lock().pixels.push((wave, lanes));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Trace> {
        self.trace.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The recording state of wave `index` of group `group` with lanes
    /// `lanes`, when the request traces it.
    pub(crate) fn begin(
        &self,
        program: &Program,
        [x, y, z]: [u32; 3],
        index: u32,
        lanes: Mask,
        wave_size: usize,
    ) -> Option<Box<WaveTrace>> {
        let offset = self.group_offset.load(std::sync::atomic::Ordering::Relaxed);
        let group = [x.wrapping_add(offset), y, z];
        if !self.request.groups.contains(&group) || self.request.wave.is_some_and(|w| w != index) {
            return None;
        }
        let mut trace = self.lock();
        trace.wave_size = wave_size as u32;
        let id = trace.waves.len() as u32;
        trace.waves.push(TracedWave {
            group,
            index,
            lanes,
        });
        let vars = &program.debug.variables;
        // The first step records every variable of the entry point and
        // every `static` (system values are written before any
        // instruction runs).
        let dirty: Vec<bool> = vars.iter().map(|v| v.pcs.start == 0).collect();
        let dirty_list = (0..vars.len() as u32)
            .filter(|&v| dirty[v as usize])
            .collect();
        let vars = vars.len();
        Some(Box::new(WaveTrace {
            id,
            open: None,
            dirty,
            dirty_list,
            shadow: vec![0; vars * wave_size],
            pending: None,
            captured: Vec::new(),
        }))
    }
}

/// One traced wave's recording state, kept in its `Wave`.
pub(crate) struct WaveTrace {
    id: u32,
    open: Option<OpenStep>,
    dirty: Vec<bool>,
    dirty_list: Vec<u32>,
    /// Each variable's lanes as last recorded.
    shadow: Vec<u64>,
    /// A wave operation that ran, waiting for its results.
    pending: Option<PendingOp>,
    /// Variables read as their scope ended, for the step's record.
    captured: Vec<(u32, Vec<u64>, Mask)>,
}

struct OpenStep {
    statement: u32,
    active: Mask,
    ops: Vec<(OpRecord, Vec<u64>, Vec<u64>)>,
}

struct PendingOp {
    record: OpRecord,
    inputs: Vec<u64>,
    dsts: [Reg; 4],
}

/// What the recorder reads of a wave.
pub(crate) struct WaveView<'a> {
    pub regs: &'a [u64],
    pub undefined: &'a [Mask],
    pub cur: Mask,
    pub launch: Mask,
    pub width: usize,
}

impl WaveView<'_> {
    fn lane(&self, r: Reg, l: usize) -> u64 {
        self.regs[r.0 as usize * self.width + l]
    }

    fn nonzero(&self, r: Reg) -> Mask {
        (0..self.width)
            .filter(|&l| self.lane(r, l) != 0)
            .fold(0, |m, l| m | 1 << l)
    }
}

impl WaveTrace {
    /// Before the instruction at `pc` runs.
    pub(crate) fn before(&mut self, sink: &TraceSink, p: &Program, pc: usize, wave: &WaveView) {
        self.finish_op(wave);
        let debug = &p.debug;
        // A written variable whose scope ends (a call's locals) is read
        // now: its registers are reused after.
        let mut k = 0;
        while k < self.dirty_list.len() {
            let v = self.dirty_list[k];
            let var = &debug.variables[v as usize];
            if var.pcs.contains(&(pc as u32)) {
                k += 1;
                continue;
            }
            self.dirty_list.swap_remove(k);
            self.dirty[v as usize] = false;
            self.captured.push(snapshot(v, var, wave));
        }
        if let Some(open) = self.open.as_mut().filter(|o| o.statement == NO_STATEMENT) {
            // The entry's prologue belongs to the first statement's step.
            if debug.start[pc] {
                open.statement = debug.stmt[pc];
                open.active = wave.cur & wave.launch;
            }
        } else if debug.start[pc] || self.open.is_none() {
            self.close(sink, p, wave);
            self.open = Some(OpenStep {
                statement: debug.stmt[pc],
                active: wave.cur & wave.launch,
                ops: Vec::new(),
            });
        }
        let range = &sink.written[pc];
        for &v in &sink.written_vars[range.start as usize..range.end as usize] {
            if !std::mem::replace(&mut self.dirty[v as usize], true) {
                self.dirty_list.push(v);
            }
        }
        self.pending = pending_op(&p.code[pc], wave);
    }

    /// When the wave stops (at a barrier, an error or its end).
    pub(crate) fn pause(&mut self, sink: &TraceSink, p: &Program, wave: &WaveView) {
        self.finish_op(wave);
        self.close(sink, p, wave);
    }

    fn finish_op(&mut self, wave: &WaveView) {
        let Some(op) = self.pending.take() else {
            return;
        };
        let Some(open) = &mut self.open else {
            return;
        };
        let k = usize::from(op.record.components);
        let mut outputs = Vec::new();
        for l in crate::mask_lanes(op.record.active) {
            outputs.extend(op.dsts[..k].iter().map(|&r| wave.lane(r, l)));
        }
        open.ops.push((op.record, op.inputs, outputs));
    }

    fn close(&mut self, sink: &TraceSink, p: &Program, wave: &WaveView) {
        if self
            .open
            .as_ref()
            .is_some_and(|o| o.statement == NO_STATEMENT)
        {
            // No statement ran: its writes go to the next step.
            self.open = None;
            return;
        }
        let Some(open) = self.open.take() else {
            return;
        };
        let w = wave.width;
        let mut trace = sink.lock();
        let number = trace.total_steps;
        trace.total_steps += 1;
        let keep = sink.request.steps.contains(&number) && !trace.truncated;
        if keep && trace.steps.len() as u64 >= sink.request.max_steps {
            trace.truncated = true;
        } else if keep && trace.values.len() as u64 >= sink.request.max_values {
            trace.truncated = true;
            trace.values_full = true;
        }
        let keep = keep && !trace.truncated;
        let first_write = trace.writes.len() as u32;
        let mut snapshots = std::mem::take(&mut self.captured);
        for v in std::mem::take(&mut self.dirty_list) {
            self.dirty[v as usize] = false;
            snapshots.push(snapshot(v, &p.debug.variables[v as usize], wave));
        }
        for (v, lanes_now, undefined) in snapshots {
            let shadow = &mut self.shadow[v as usize * w..][..w];
            let mut lanes = open.active;
            for (l, (s, &now)) in shadow.iter_mut().zip(&lanes_now).enumerate() {
                if now != *s {
                    lanes |= 1 << l;
                    *s = now;
                }
            }
            lanes &= wave.launch;
            if !keep || lanes == 0 {
                continue;
            }
            let values = trace.values.len() as u32;
            trace
                .values
                .extend(crate::mask_lanes(lanes).map(|l| lanes_now[l]));
            trace.writes.push(Write {
                variable: v,
                lanes,
                undefined: undefined & lanes,
                values,
            });
        }
        if !keep {
            return;
        }
        let first_op = trace.ops.len() as u32;
        for (mut record, inputs, outputs) in open.ops {
            record.inputs = trace.values.len() as u32;
            trace.values.extend(inputs);
            record.outputs = trace.values.len() as u32;
            trace.values.extend(outputs);
            trace.ops.push(record);
        }
        let step = Step {
            wave: self.id,
            statement: open.statement,
            active: open.active,
            // Taken as the step ends: the flag is set by the entry's
            // prologue, which the first step takes in.
            helpers: p.debug.helper.map_or(0, |r| wave.nonzero(r)) & wave.launch,
            writes: first_write..trace.writes.len() as u32,
            ops: first_op..trace.ops.len() as u32,
        };
        trace.steps.push(step);
    }
}

/// Variable `v`'s lanes now, and those of them that are undefined.
fn snapshot(v: u32, var: &Variable, wave: &WaveView) -> (u32, Vec<u64>, Mask) {
    let lanes = (0..wave.width).map(|l| wave.lane(var.reg, l)).collect();
    let undefined = wave.undefined.get(var.reg.0 as usize).copied().unwrap_or(0);
    (v, lanes, undefined)
}

/// The record of a wave operation about to run, with its operands.
fn pending_op(inst: &Inst, wave: &WaveView) -> Option<PendingOp> {
    let (op, ty, a, b, dsts, components) = match *inst {
        Inst::Wave {
            op, ty, dst, a, b, ..
        } => (op, ty, a, Some(b), [dst; 4], 1),
        Inst::Wave4 { op, ty, dst, a } => (op, ty, a, None, dst, 4),
        Inst::MultiPrefix { op, ty, dst, a, .. } => (op, ty, a, None, [dst; 4], 1),
        _ => return None,
    };
    let active = wave.cur & wave.launch;
    let w = wave.width;
    let quad_source = |l: usize, q: usize| (l & !3) | (q & 3);
    let sources = match op {
        WaveOp::GetLaneCount
        | WaveOp::GetLaneIndex
        | WaveOp::GroupWaveIndex
        | WaveOp::GroupWaveCount
        | WaveOp::IsFirstLane => 0,
        WaveOp::ReadLaneFirst => active & active.wrapping_neg(),
        _ => {
            let source = |l: usize| -> usize {
                match op {
                    WaveOp::ReadLaneAt => b.map_or(l, |b| wave.lane(b, l) as usize % w),
                    WaveOp::QuadReadAcrossX => l ^ 1,
                    WaveOp::QuadReadAcrossY => l ^ 2,
                    WaveOp::QuadReadAcrossDiagonal => l ^ 3,
                    WaveOp::QuadReadLaneAt => {
                        quad_source(l, b.map_or(0, |b| wave.lane(b, l) as usize))
                    }
                    _ => l,
                }
            };
            crate::mask_lanes(active).fold(0, |m: Mask, l| m | 1 << source(l))
        }
    };
    let inputs = crate::mask_lanes(sources | active)
        .map(|l| wave.lane(a, l))
        .collect();
    Some(PendingOp {
        record: OpRecord {
            op,
            ty,
            active,
            sources,
            components,
            inputs: 0,
            outputs: 0,
        },
        inputs,
        dsts,
    })
}

/// The name and type of each flattened component of a value of type `ty`
/// named `prefix`, in [`lockstep_ir::Types::flatten`]'s order.
pub(crate) fn component_names(
    types: &lockstep_ir::TypeArena,
    ty: lockstep_ir::TypeId,
    prefix: String,
    out: &mut Vec<(String, ScalarType)>,
) {
    use lockstep_ir::Type;
    const XYZW: [&str; 4] = ["x", "y", "z", "w"];
    match types.get(ty) {
        Type::Void => {}
        Type::Scalar(s) => out.push((prefix, *s)),
        Type::Vector(s, n) => {
            for c in XYZW.iter().take(usize::from(*n)) {
                out.push((format!("{prefix}.{c}"), *s));
            }
        }
        Type::Matrix {
            scalar, rows, cols, ..
        } => {
            for r in 0..*rows {
                for c in 0..*cols {
                    out.push((format!("{prefix}._m{r}{c}"), *scalar));
                }
            }
        }
        Type::Array { element, len } => {
            for i in 0..*len {
                component_names(types, *element, format!("{prefix}[{i}]"), out);
            }
        }
        Type::Struct { members, .. } => {
            for m in members {
                component_names(types, m.ty, format!("{prefix}.{}", m.name), out);
            }
        }
    }
}
