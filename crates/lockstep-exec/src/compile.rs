//! Lowers the IR to wave bytecode: every function call is inlined, values
//! are split into scalar components, one register per component.

use std::ops::Range;

use lockstep_ir::layout::{array_stride, scalar_slots};
use lockstep_ir::{
    Access, AtomicOp, Block, Builtin, CallArg, Expr, ExprKind, Function, FunctionId, LayoutRule,
    LocalId, Module, Place, PlaceRoot, ResourceId, ResourceKind, ScalarType, Span, Stmt,
    SystemValue, Type, TypeId, UnaryOp, WaveOp,
};

use crate::ExecError;

mod addresses;
pub(crate) mod block32;
mod branches;
mod coalesce;
mod constants;
mod expr;
mod fuse;
mod intrinsic;
mod place;
#[cfg(test)]
mod test_code;
mod top_level;
mod waits;

use crate::alu::{self, BuiltinFn};
use crate::bytecode::{FrameDepth, Inst, Lanes, OpForm, Reg, Space, Test};

/// A system value the entry point takes.
#[derive(Debug)]
pub(crate) struct Input {
    pub sv: SystemValue,
    /// The registers of the components the code reads, by component (0
    /// for x).
    pub regs: Vec<(usize, Reg)>,
    /// The parameter's scalar type.
    pub ty: ScalarType,
}

/// A shader ready to run.
#[derive(Debug)]
pub struct Program {
    pub(crate) code: Vec<Inst>,
    pub(crate) reg_count: u32,
    /// The entry point's system-value inputs.
    pub(crate) inputs: Vec<Input>,
    /// The group size from the entry point's `[numthreads]` or `[numWaves]`.
    pub group: lockstep_ir::GroupShape,
    /// Which threads of a group make a quad.
    pub quads: lockstep_ir::QuadLayout,
    /// Bytes of `groupshared` memory each group needs.
    pub groupshared_bytes: u32,
    /// Bytes per element of each resource (its stride), by resource id.
    pub(crate) element_strides: Vec<u32>,
    /// Each resource's name, by resource id, for findings.
    pub(crate) resource_names: Vec<String>,
    /// Whether each resource is a buffer, not a texture, by resource id:
    /// loads fetch ahead in buffers (`Memory::prefetch_ahead`).
    pub(crate) buffers: Vec<bool>,
    /// The source span of each instruction, for findings and errors.
    pub(crate) spans: Vec<Span>,
    /// Compiled for checked mode (see [`Program::compile_checked`]).
    pub checked: bool,
    /// Registers that hold a constant, filled when a wave starts and never
    /// written by the code.
    pub(crate) constants: Vec<(Reg, u64)>,
    /// Whether the code has a group barrier. Without one every wave runs
    /// from start to end in one turn.
    pub(crate) barriers: bool,
    /// Whether a loop may wait for another group's writes (see
    /// `compile::waits`): such a program runs one group at a time.
    pub(crate) waits: bool,
    /// Checked programs: each instruction's statement and the registers of
    /// the variables, for traces.
    pub(crate) debug: crate::trace::DebugInfo,
    /// The machine code at wave sizes 8, 16, 32 and 64, then 64 lanes for
    /// wave size 128 and 8 lanes for wave size 4 (see
    /// [`Program::native_for`]), made on first use.
    pub(crate) native: [std::sync::OnceLock<Result<crate::native::Native, &'static str>>; 6],
}

/// What a program does with memory that other waves and groups see
/// ([`Program::shared_memory`]).
#[derive(Clone, Debug, Default)]
pub struct SharedMemory {
    /// It reads or writes groupshared memory.
    pub groupshared: bool,
    /// It updates groupshared memory atomically in an order that can show
    /// (waves of a group may update one word between barriers): an
    /// atomic's result is read, or the updates do not all fold into one
    /// (`memory::combining`, one operation and type for all).
    pub groupshared_atomics: bool,
    /// It has an atomic whose order can show (see
    /// [`Program::ordered_atomics`]).
    pub ordered_atomics: bool,
    /// The resources it loads from, by index.
    pub read: Vec<ResourceId>,
    /// The resources it stores to or updates atomically, by index.
    pub written: Vec<ResourceId>,
}

impl Program {
    /// Where the program folds float lanes in an order that
    /// [`ReductionOrder`](crate::ReductionOrder) changes: its float
    /// reductions and scans (sums and products), in source order.
    pub fn float_reductions(&self) -> Vec<Span> {
        let mut spans: Vec<Span> = self
            .code
            .iter()
            .zip(&self.spans)
            .filter(|(inst, _)| match **inst {
                Inst::Wave { op, ty, .. } | Inst::MultiPrefix { op, ty, .. } => {
                    ty.is_float()
                        && matches!(
                            op,
                            WaveOp::Sum
                                | WaveOp::Product
                                | WaveOp::PrefixSum
                                | WaveOp::PrefixProduct
                                | WaveOp::MultiPrefixSum
                                | WaveOp::MultiPrefixProduct
                        )
                }
                _ => false,
            })
            .map(|(_, &span)| span)
            .collect();
        spans.sort_by_key(|s| (s.file, s.start));
        spans.dedup();
        spans
    }

    /// The atomics whose order can show in memory, in source order: those
    /// whose returned value the program reads, or whose updates do not
    /// commute (exchanges), so that another schedule of the groups can
    /// change what lands where.
    pub fn ordered_atomics(&self) -> Vec<Span> {
        // Each atomic's result, and whether its updates commute.
        let atomic = |inst: &Inst| match *inst {
            Inst::Atomic { op, dst, .. } => Some((
                matches!(
                    op,
                    AtomicOp::Add
                        | AtomicOp::Min
                        | AtomicOp::Max
                        | AtomicOp::And
                        | AtomicOp::Or
                        | AtomicOp::Xor
                ),
                dst,
            )),
            _ => None,
        };
        let live = fuse::LiveOut::of(&self.code, self.code.iter().filter_map(atomic).map(|a| a.1));
        let mut spans: Vec<Span> = self
            .code
            .iter()
            .zip(&self.spans)
            .enumerate()
            .filter(|&(pc, (inst, _))| {
                atomic(inst).is_some_and(|(commutes, dst)| !commutes || live.at(pc, dst))
            })
            .map(|(_, (_, &span))| span)
            .collect();
        spans.sort_by_key(|s| (s.file, s.start));
        spans.dedup();
        spans
    }

    /// What the program does with memory that other waves and groups see.
    pub fn shared_memory(&self) -> SharedMemory {
        let mut uses = SharedMemory::default();
        for inst in &self.code {
            let (addr, written) = match *inst {
                Inst::Load { addr, .. } => (addr, false),
                Inst::Store { addr, .. } => (addr, true),
                Inst::Atomic {
                    addr, deferrable, ..
                } => {
                    uses.ordered_atomics |= !deferrable && addr.space != Space::Groupshared;
                    (addr, true)
                }
                _ => continue,
            };
            match (addr.space, written) {
                (Space::Groupshared, _) => uses.groupshared = true,
                (Space::Resource(id), false) => uses.read.push(id),
                (Space::Resource(id), true) => uses.written.push(id),
            }
        }
        for list in [&mut uses.read, &mut uses.written] {
            list.sort_by_key(|id| id.index());
            list.dedup();
        }
        uses.groupshared_atomics = self.ordered_groupshared_atomics();
        uses
    }

    /// Whether the program's groupshared atomics can leave an order that
    /// shows: see [`SharedMemory::groupshared_atomics`].
    fn ordered_groupshared_atomics(&self) -> bool {
        let atomics: Vec<(usize, _, ScalarType, Reg)> = self
            .code
            .iter()
            .enumerate()
            .filter_map(|(pc, inst)| match *inst {
                Inst::Atomic {
                    op, ty, addr, dst, ..
                } if addr.space == Space::Groupshared => Some((pc, op, ty, dst)),
                _ => None,
            })
            .collect();
        let Some(&(_, op, ty, _)) = atomics.first() else {
            return false;
        };
        let live = fuse::LiveOut::of(&self.code, atomics.iter().map(|a| a.3));
        crate::memory::combining(op, ty).is_none()
            || atomics
                .iter()
                .any(|&(pc, o, t, dst)| o != op || t != ty || live.at(pc, dst))
    }

    /// The machine code at wave size `w`, made the first time it is asked
    /// for; `None` where the program or the CPU gets none.
    pub(crate) fn native(&self, w: usize) -> Result<&crate::native::Native, &'static str> {
        let i = match w {
            8 => 0,
            16 => 1,
            32 => 2,
            64 => 3,
            _ => return Err("machine code takes waves of 8 to 64 lanes"),
        };
        self.native[i]
            .get_or_init(|| crate::native::Native::build(self, w, w))
            .as_ref()
            .map_err(|e| *e)
    }

    /// The machine code that runs this program at wave size `w`, and the
    /// lanes of each wave it runs: `w`; at wave size 128, 64 lanes where a
    /// group has at most 64 threads; at wave size 4, 8 lanes of which the
    /// last four never exist. Such a wave's lanes that never exist are
    /// never active, so every wave operation sees what it would see at the
    /// wave size: `WaveGetLaneCount` alone differs (the code reports the
    /// wave size), and a `WaveReadLaneAt` whose index may reach past the
    /// lanes both have (it wraps at the wave size) keeps the interpreter.
    pub(crate) fn native_for(
        &self,
        w: usize,
    ) -> Result<(&crate::native::Native, usize), &'static str> {
        const NARROW: usize = 64;
        const SPREAD: usize = 8;
        if (SPREAD..=NARROW).contains(&w) {
            return self.native(w).map(|n| (n, w));
        }
        let (slot, lanes) = match w {
            4 => (5, SPREAD),
            128 => (4, NARROW),
            _ => return Err("machine code takes waves of 4 to 128 lanes"),
        };
        // At 128 the code's one wave is the group: its extent and thread ids
        // must be those of 64 lanes. At 4 the code lays out the group at
        // wave size 4 itself (`Native::build`).
        let (ours, theirs) = (self.group.extent(w as u32), self.group.extent(lanes as u32));
        let fits = w < lanes
            || ours == theirs
                && self.group.threads(w as u32) <= NARROW as u64
                && crate::engine::group_thread_ids(ours, w, self.quads)
                    .iter()
                    .zip(crate::engine::group_thread_ids(theirs, NARROW, self.quads))
                    .all(|(a, b)| a.get(..NARROW) == Some(&b[..]));
        if !fits {
            return Err(
                "machine code takes waves of 128 lanes where a group has at most 64 threads",
            );
        }
        self.native[slot]
            .get_or_init(|| crate::native::Native::build(self, lanes, w))
            .as_ref()
            .map(|n| (n, lanes))
            .map_err(|e| *e)
    }

    /// What runs a normal dispatch of this program at `wave_size` with
    /// `engine`, and why.
    pub fn engine_report(&self, wave_size: u32, engine: crate::Engine) -> crate::EngineReport {
        let mut report = crate::EngineReport {
            native: false,
            instructions: self.code.len(),
            callouts: 0,
            reason: None,
        };
        if engine == crate::Engine::Interpreter {
            report.reason = Some("the interpreter was asked for".into());
            return report;
        }
        match self.native_for(wave_size as usize) {
            Err(why) => report.reason = Some(why.into()),
            Ok((n, _)) => {
                report.callouts = n.callouts();
                if n.costly() && engine == crate::Engine::Auto {
                    report.reason = Some(
                        "the interpreter is faster here: instructions the machine code would hand to it one wave at a time, or waves of 4 lanes taking turns at barriers in branches or loops (--engine native runs the machine code)"
                            .into(),
                    );
                } else {
                    report.native = true;
                }
            }
        }
        report
    }

    /// Compiles the module's entry point.
    pub fn compile(module: &Module) -> Result<Program, ExecError> {
        Program::compile_with(module, false)
    }

    /// Compiles the entry point for checked mode: the bytecode also checks
    /// what only the source knows (integer divisors). A normal program
    /// carries none of these checks.
    pub fn compile_checked(module: &Module) -> Result<Program, ExecError> {
        Program::compile_with(module, true)
    }

    fn compile_with(module: &Module, checked: bool) -> Result<Program, ExecError> {
        let entry = module
            .entry
            .as_ref()
            .ok_or_else(|| ExecError::new("the module has no entry point", None))?;
        let mut c = Compiler::new(module);
        c.checked = checked;
        c.wrapped_entry = entry.io.is_some();
        let groupshared_bytes = c.layout_groupshared()?;
        c.allocate_statics();
        let function = module.function(entry.function);
        let locals = c.allocate_locals(function);
        c.check_registers(function.span)?;
        let locals_named = locals.clone();
        let inputs: Vec<(SystemValue, Vec<Reg>, ScalarType)> = entry
            .inputs
            .iter()
            .map(|input| {
                let param = input.param as usize;
                let mut scalars = Vec::new();
                module
                    .types
                    .flatten(function.locals[param].ty, &mut scalars);
                let first = input.component as usize;
                let ty = scalars.get(first).copied().unwrap_or(ScalarType::UInt32);
                let regs = locals.get(param).map_or(&[][..], Vec::as_slice);
                let end = (first + input.components as usize).min(regs.len());
                (input.value, regs[first.min(end)..end].to_vec(), ty)
            })
            .collect();
        c.frames.push(FrameKind::Call);
        c.emit(Inst::CallBegin);
        c.zero_statics();
        // Parameters hold the system values; the other locals start at 0.
        c.zero(&locals[function.params.len().min(locals.len())..]);
        c.calls.push(CallContext {
            locals,
            local_types: function.locals.iter().map(|l| l.ty).collect(),
            result: Vec::new(),
            flat: false,
        });
        c.block(&module.static_init)?;
        c.block(&function.body)?;
        // Before the passes below, whose work grows with the registers.
        c.check_registers(function.span)?;
        c.calls.pop();
        c.emit(Inst::CallEnd);
        c.frames.pop();
        c.emit(Inst::Exit);
        if checked {
            let all = 0..c.code.len() as u32;
            let statics = std::mem::take(&mut c.statics);
            for (var, regs) in module.statics.iter().zip(&statics) {
                c.name_variable(var, "", regs, all.clone());
            }
            c.statics = statics;
            if !c.wrapped_entry {
                c.name_locals(function, &locals_named, all);
            }
            c.debug.helper = c.helper_reg();
        }
        if !checked {
            c.fold_constant_atomic_addresses();
        }
        debug_assert!(!checked || c.debug.start.len() == c.code.len());
        debug_assert!(!checked || c.debug.call.len() == c.code.len());
        let mut constants = c.place_constants()?;
        if !checked {
            // Checked mode keeps every assignment as it is written (its
            // findings track each register).
            top_level::unmask(&mut c.code);
            constants::fold(
                &mut c.code,
                &c.spans,
                constants::Constants {
                    list: &mut constants,
                    regs: &mut c.max_reg,
                },
            );
            fuse::fuse(&mut c.code, &mut c.spans);
            coalesce::coalesce(&mut c.code, &mut c.spans);
            addresses::drop_repeated(&mut c.code, &mut c.spans);
            coalesce::propagate_copies(&mut c.code, &mut c.spans);
            branches::merge_ifs(&mut c.code, &mut c.spans);
            fuse::fuse_votes(&mut c.code, &mut c.spans);
            fuse::mark_deferrable(&mut c.code);
            top_level::drop_dead_constants(&mut c.code, &mut c.spans);
            fuse::fuse_leaves(&mut c.code, &mut c.spans);
            fuse::fuse_compares(&mut c.code, &mut c.spans);
        }
        // A system value's components go into their registers when a wave
        // starts, unless nothing reads them.
        let input_regs: Vec<Reg> = inputs
            .iter()
            .flat_map(|(_, regs, _)| regs.clone())
            .collect();
        let mut live = fuse::live_at_entry(&c.code, &input_regs).into_iter();
        let inputs = inputs
            .into_iter()
            .map(|(sv, regs, ty)| Input {
                sv,
                regs: regs
                    .into_iter()
                    .enumerate()
                    .filter(|_| live.next().unwrap_or(true))
                    .collect(),
                ty,
            })
            .collect();
        if !checked {
            // Checked mode runs every operation on its own (each one's
            // findings are tracked).
            block32::form_blocks(&mut c.code, &mut c.spans, false, &constants);
            fuse::reuse_tests(&mut c.code);
        }
        let element_strides = module
            .resources
            .iter()
            .map(|r| match r.kind {
                ResourceKind::ByteAddressBuffer | ResourceKind::RWByteAddressBuffer => 1,
                k => array_stride(&module.types, r.element, k.layout_rule()),
            })
            .collect();
        let buffers = module
            .resources
            .iter()
            .map(|r| !r.kind.is_texture())
            .collect();
        let resource_names = module.resources.iter().map(|r| r.name.clone()).collect();
        c.check_registers(function.span)?;
        let barriers = c.code.iter().any(|inst| matches!(inst, Inst::Barrier));
        let waits = waits::waits_on_groups(&c.code, c.max_reg);
        Ok(Program {
            barriers,
            waits,
            native: Default::default(),
            code: c.code,
            reg_count: c.max_reg,
            inputs,
            group: entry.group,
            quads: entry.quads,
            groupshared_bytes,
            element_strides,
            resource_names,
            buffers,
            spans: c.spans,
            checked,
            constants,
            debug: c.debug,
        })
    }

    /// The number of bytecode instructions (for tests and `--stats`).
    pub fn code_len(&self) -> usize {
        self.code.len()
    }

    /// Whether the program reads, writes or asks about resource `id`: one
    /// that it never touches needs no memory bound to it.
    pub fn uses_resource(&self, id: lockstep_ir::ResourceId) -> bool {
        let space = crate::bytecode::Space::Resource(id);
        self.code.iter().any(|inst| match inst {
            Inst::Load { addr, .. } | Inst::Store { addr, .. } | Inst::Atomic { addr, .. } => {
                addr.space == space
            }
            Inst::TexelAddress { resource, .. } | Inst::Query { resource, .. } => *resource == id,
            _ => false,
        })
    }

    /// Whether a loop of the program may wait for another group's writes,
    /// so that it runs one group at a time (see `compile::waits`).
    pub fn waits_on_groups(&self) -> bool {
        self.waits
    }

    /// How many branches (`if`s, and `?:`, `&&` and `||` that branch) the
    /// program has (for tests).
    pub fn branch_count(&self) -> usize {
        let branch = |inst: &&Inst| matches!(inst, Inst::IfBegin { .. });
        self.code.iter().filter(branch).count()
    }

    /// How many branches (`if`s and the exits `if (c) break;` and the like
    /// make) compare two values themselves, without the comparison's
    /// result in a register (for tests); a branch that takes the lanes of
    /// the one before ([`Lanes::Previous`]) counts as that one's test.
    pub fn comparing_branch_count(&self) -> usize {
        let mut comparing = false;
        let mut count = 0;
        for inst in &self.code {
            comparing = match branch_lanes(inst) {
                Some(Lanes::Compare(..) | Lanes::CompareImm(..)) => true,
                Some(Lanes::Previous) => comparing,
                Some(Lanes::Nonzero) | None => false,
            };
            count += usize::from(comparing);
        }
        count
    }

    /// How many branches take the lanes the branch before them found
    /// ([`Lanes::Previous`]; for tests).
    pub fn reused_test_count(&self) -> usize {
        self.code
            .iter()
            .filter(|inst| branch_lanes(inst) == Some(Lanes::Previous))
            .count()
    }

    /// How many calls run as constructs that gather the lanes that return
    /// early, the entry function's own included (for tests).
    pub fn call_construct_count(&self) -> usize {
        self.code
            .iter()
            .filter(|inst| matches!(inst, Inst::CallBegin))
            .count()
    }

    /// The byte stride of each load and store, in program order, whose
    /// lanes' addresses follow each other by construction at `wave_size`
    /// (0 for the others; for tests).
    pub fn consecutive_strides(&self, wave_size: usize) -> Vec<u32> {
        let strides = crate::native::consecutive_strides(self, wave_size);
        self.code
            .iter()
            .zip(strides)
            .filter(|(inst, _)| matches!(inst, Inst::Load { .. } | Inst::Store { .. }))
            .map(|(_, stride)| stride)
            .collect()
    }

    /// How many arithmetic operations the program runs, each operation of
    /// a fused block counted (for tests).
    pub fn operation_count(&self) -> usize {
        self.code
            .iter()
            .map(|inst| match inst {
                Inst::Unary { .. }
                | Inst::Binary { .. }
                | Inst::BinaryImm { .. }
                | Inst::Ternary { .. }
                | Inst::Select { .. } => 1,
                Inst::Block32(block) => block.ops.len(),
                _ => 0,
            })
            .sum()
    }

    /// How many atomics the engine may hold back and combine: those on
    /// device memory whose result nothing reads (for tests).
    pub fn deferrable_atomics(&self) -> usize {
        let deferrable = |inst: &&Inst| {
            matches!(
                inst,
                Inst::Atomic {
                    deferrable: true,
                    ..
                }
            )
        };
        self.code.iter().filter(deferrable).count()
    }
}

/// A branch's lanes: how an `IfBegin` or a `LeaveIf` tests its condition.
fn branch_lanes(inst: &Inst) -> Option<Lanes> {
    match inst {
        Inst::IfBegin { test, .. } | Inst::LeaveIf { test, .. } => Some(test.lanes),
        _ => None,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FrameKind {
    If,
    Loop,
    Switch,
    Call,
}

struct CallContext {
    locals: Vec<Vec<Reg>>,
    local_types: Vec<TypeId>,
    result: Vec<Reg>,
    /// The function returns only at its end, if at all: its call is no
    /// construct, and its `return` writes the result and leaves no lanes.
    flat: bool,
}

const MAX_INLINE_DEPTH: usize = 64;

/// The most bytecode instructions a shader may inline to.
const MAX_INSTRUCTIONS: usize = 1 << 21;

/// Scalar registers one lane may use: at the widest wave this is 64 MiB of
/// registers per wave.
const MAX_REGISTERS: u32 = 1 << 16;

struct Compiler<'m> {
    module: &'m Module,
    code: Vec<Inst>,
    /// The source span of each instruction.
    spans: Vec<Span>,
    /// The span of the construct being compiled.
    span: Span,
    /// Inside the inlined body of a library function: the call's span,
    /// which every instruction of the body carries.
    call_span: Option<Span>,
    /// Checked mode, inside the inlined bodies of functions the shader's
    /// entry point calls: those calls' spans, outermost first, which
    /// findings in the body name.
    user_calls: Vec<Span>,
    /// `user_calls`' index in `debug.chains`, while it is not empty.
    user_chain: u32,
    /// Checked mode: instrument what the engine cannot see at run time
    /// (integer divisors).
    checked: bool,
    next_reg: u32,
    max_reg: u32,
    statics: Vec<Vec<Reg>>,
    groupshared: Vec<u32>,
    frames: Vec<FrameKind>,
    calls: Vec<CallContext>,
    /// The constants literals use, in order of first use; the code names
    /// constant `k` `Reg(CONSTANT_TAG - k)` until [`Compiler::place_constants`].
    constants: Vec<u64>,
    constant_index: std::collections::HashMap<u64, u32>,
    /// Checked mode: what traces need (see [`crate::trace`]).
    debug: crate::trace::DebugInfo,
    /// The statement being compiled, and whether its step begins at the
    /// next instruction.
    stmt: u32,
    step_pending: bool,
    /// The entry is a vertex or pixel stage's wrapper, which reads the
    /// records and calls the shader's function: its own statements and
    /// locals are not the source's.
    wrapped_entry: bool,
}

/// Registers at or above `CONSTANT_TAG - MAX_REGISTERS` name constants
/// while compiling.
const CONSTANT_TAG: u32 = u32::MAX;

impl<'m> Compiler<'m> {
    fn new(module: &'m Module) -> Compiler<'m> {
        Compiler {
            module,
            code: Vec::new(),
            spans: Vec::new(),
            span: Span::default(),
            call_span: None,
            user_calls: Vec::new(),
            user_chain: u32::MAX,
            checked: false,
            next_reg: 0,
            max_reg: 0,
            statics: Vec::new(),
            groupshared: Vec::new(),
            frames: Vec::new(),
            calls: Vec::new(),
            constants: Vec::new(),
            constant_index: std::collections::HashMap::new(),
            debug: Default::default(),
            stmt: crate::trace::NO_STATEMENT,
            step_pending: false,
            wrapped_entry: false,
        }
    }

    /// A register holding `bits` on every lane, filled when the wave starts:
    /// literals cost nothing where they are used.
    fn constant(&mut self, bits: u64) -> Reg {
        let next = self.constants.len() as u32;
        let k = *self.constant_index.entry(bits).or_insert(next);
        if k == next {
            self.constants.push(bits);
        }
        Reg(CONSTANT_TAG - k)
    }

    /// The bits of `r` when it is a constant register (before
    /// [`Compiler::place_constants`]).
    fn constant_bits(&self, r: Reg) -> Option<u64> {
        let k = CONSTANT_TAG - r.0;
        self.constants.get(k as usize).copied()
    }

    /// Moves a literal address of an atomic (`Counter.InterlockedAdd(0,
    /// …)`) into its constant offset, where it fits: an atomic whose
    /// lanes all name one word then needs no per-lane address (see
    /// `Wave::atomic`).
    fn fold_constant_atomic_addresses(&mut self) {
        let constants = &self.constants;
        for inst in &mut self.code {
            let Inst::Atomic { addr, .. } = inst else {
                continue;
            };
            let literal = addr
                .dynamic
                .and_then(|r| constants.get(CONSTANT_TAG.wrapping_sub(r.0) as usize));
            let at = literal
                .and_then(|&bits| bits.checked_add(u64::from(addr.offset)))
                .and_then(|at| u32::try_from(at).ok());
            if let Some(at) = at {
                addr.dynamic = None;
                addr.offset = at;
            }
        }
    }

    /// Gives the constants registers after all others and checks that no
    /// instruction writes one.
    fn place_constants(&mut self) -> Result<Vec<(Reg, u64)>, ExecError> {
        let n = self.constants.len() as u32;
        if n == 0 {
            return Ok(Vec::new());
        }
        let first_tag = CONSTANT_TAG - (n - 1);
        let base = self.max_reg;
        if base.saturating_add(n) > MAX_REGISTERS {
            // Reported with the register count by the caller.
            self.max_reg = base.saturating_add(n);
            return Ok(Vec::new());
        }
        for inst in &mut self.code {
            inst.for_each_reg(|r| {
                if r.0 >= first_tag {
                    *r = Reg(base + (CONSTANT_TAG - r.0));
                }
            });
        }
        self.max_reg = base + n;
        let constants: Vec<(Reg, u64)> = self
            .constants
            .iter()
            .enumerate()
            .map(|(k, &bits)| (Reg(base + k as u32), bits))
            .collect();
        if let Some(pc) = self.code.iter().position(|i| i.writes_in(base..base + n)) {
            return Err(ExecError::new(
                format!("internal error: instruction {pc} writes a constant register"),
                Some(self.spans[pc]),
            ));
        }
        Ok(constants)
    }

    fn emit(&mut self, inst: Inst) -> usize {
        self.code.push(inst);
        self.spans.push(self.span);
        if self.checked {
            self.debug.stmt.push(self.stmt);
            self.debug
                .start
                .push(std::mem::take(&mut self.step_pending));
            self.debug.call.push(self.user_chain);
        }
        self.code.len() - 1
    }

    /// An error once the registers allocated pass [`MAX_REGISTERS`].
    fn check_registers(&self, span: Span) -> Result<(), ExecError> {
        if self.max_reg > MAX_REGISTERS {
            return Err(ExecError::new(
                format!(
                    "the shader needs {} scalar registers per lane; the limit is {MAX_REGISTERS} (large local arrays are the usual cause)",
                    self.max_reg
                ),
                Some(span),
            ));
        }
        Ok(())
    }

    fn alloc(&mut self, n: u32) -> Vec<Reg> {
        let regs = (self.next_reg..self.next_reg + n).map(Reg).collect();
        self.next_reg += n;
        self.max_reg = self.max_reg.max(self.next_reg);
        regs
    }

    fn temp(&mut self) -> Reg {
        self.alloc(1)[0]
    }

    fn flatten(&self, ty: TypeId) -> Vec<ScalarType> {
        let mut out = Vec::new();
        self.module.types.flatten(ty, &mut out);
        out
    }

    fn count(&self, ty: TypeId) -> u32 {
        self.module.types.component_count(ty)
    }

    fn layout_groupshared(&mut self) -> Result<u32, ExecError> {
        let mut offset = 0u32;
        for var in &self.module.groupshared {
            let sa =
                lockstep_ir::layout::size_align(&self.module.types, var.ty, LayoutRule::Packed);
            offset = offset.div_ceil(sa.align.max(4)) * sa.align.max(4);
            self.groupshared.push(offset);
            offset = offset
                .checked_add(sa.size)
                .filter(|&o| o <= 1 << 30)
                .ok_or_else(|| ExecError::new("groupshared memory is too large", None))?;
        }
        Ok(offset)
    }

    fn allocate_statics(&mut self) {
        for var in &self.module.statics {
            let n = self.count(var.ty);
            let regs = self.alloc(n);
            self.statics.push(regs);
        }
    }

    fn zero_statics(&mut self) {
        let regs: Vec<Reg> = self.statics.iter().flatten().copied().collect();
        for dst in regs {
            self.emit(Inst::Const { dst, bits: 0 });
        }
    }

    /// Registers for every local of a function, zeroed so that a read before
    /// any write is deterministic.
    fn allocate_locals(&mut self, f: &Function) -> Vec<Vec<Reg>> {
        f.locals
            .iter()
            .map(|l| self.alloc(self.module.types.component_count(l.ty)))
            .collect()
    }

    /// Starts locals at 0; in checked mode they are also marked undefined
    /// until written.
    fn zero(&mut self, regs: &[Vec<Reg>]) {
        for &dst in regs.iter().flatten() {
            self.emit(if self.checked {
                Inst::Uninitialized { dst }
            } else {
                Inst::Const { dst, bits: 0 }
            });
        }
    }

    /// Copies registers into fresh, contiguous temporaries.
    fn copy_to_temps(&mut self, regs: &[Reg]) -> Vec<Reg> {
        let temps = self.alloc(regs.len() as u32);
        for (&dst, &src) in temps.iter().zip(regs) {
            self.emit(Inst::Copy { dst, src });
        }
        temps
    }

    /// Evaluates an index and scales it: `base + index * scale` per lane,
    /// in 64 bits.
    fn scaled_index(
        &mut self,
        index: &Expr,
        scale: u64,
        base: Option<Reg>,
    ) -> Result<Reg, ExecError> {
        let value = self.expr(index)?[0];
        let index_ty = self
            .module
            .types
            .scalar_of(index.ty)
            .unwrap_or(ScalarType::UInt32);
        if let (None, Some(raw)) = (base, self.constant_bits(value)) {
            // A literal index: the scaled index is a constant too.
            return Ok(self.constant(crate::engine::scale_index(raw, index_ty, scale)));
        }
        let dst = self.temp();
        self.emit(Inst::IndexScale {
            dst,
            index: value,
            index_ty,
            scale,
            base,
        });
        Ok(dst)
    }

    fn depth_of(&self, wanted: &[FrameKind]) -> Option<FrameDepth> {
        self.frames
            .iter()
            .rposition(|k| wanted.contains(k))
            .map(|d| d as FrameDepth)
    }

    // ----- statements -----

    fn block(&mut self, block: &Block) -> Result<(), ExecError> {
        for stmt in &block.stmts {
            let mark = self.next_reg;
            let outer = self.begin_statement(stmt);
            let ends = self.stmt(stmt);
            self.stmt = outer;
            self.step_pending = false;
            let ends = ends?;
            self.next_reg = mark;
            if ends {
                // Nothing after an unconditional jump can run.
                break;
            }
        }
        Ok(())
    }

    /// Checked mode, outside library functions: `stmt` begins a step of
    /// its own (see [`crate::trace`]). Returns the enclosing statement.
    fn begin_statement(&mut self, stmt: &Stmt) -> u32 {
        let outer = self.stmt;
        if !self.checked
            || self.call_span.is_some()
            || (self.wrapped_entry && self.calls.len() <= 1)
        {
            return outer;
        }
        let span = match stmt {
            Stmt::Expr(e) | Stmt::Return(Some(e)) => e.span,
            Stmt::If { cond, .. } => cond.span,
            Stmt::Loop { span, .. } => *span,
            Stmt::Switch { selector, .. } => selector.span,
            Stmt::Barrier(flags) => flags.span,
            Stmt::Break | Stmt::Continue | Stmt::Return(None) => return outer,
        };
        self.stmt = self.debug.statements.len() as u32;
        self.debug.statements.push(span);
        self.step_pending = true;
        outer
    }

    /// Checked mode: names the registers of `f`'s locals `regs` for the
    /// instructions `pcs` (see [`crate::trace`]).
    fn name_locals(&mut self, f: &Function, regs: &[Vec<Reg>], pcs: Range<u32>) {
        if !self.checked || f.library || self.call_span.is_some() {
            return;
        }
        for (var, regs) in f.locals.iter().zip(regs) {
            self.name_variable(var, &f.name, regs, pcs.clone());
        }
    }

    fn name_variable(
        &mut self,
        var: &lockstep_ir::Variable,
        function: &str,
        regs: &[Reg],
        pcs: Range<u32>,
    ) {
        // The checker's temporaries have dotted names, and its flags no
        // place in the source.
        if var.name.contains('.') || var.name.is_empty() || var.span == Span::default() {
            return;
        }
        let mut names = Vec::new();
        crate::trace::component_names(&self.module.types, var.ty, var.name.clone(), &mut names);
        for ((name, ty), &reg) in names.into_iter().zip(regs) {
            self.debug.variables.push(crate::trace::Variable {
                name,
                function: function.to_string(),
                ty,
                span: var.span,
                reg,
                pcs: pcs.clone(),
            });
        }
    }

    /// Compiles one statement; `true` when it always leaves the block.
    fn stmt(&mut self, stmt: &Stmt) -> Result<bool, ExecError> {
        match stmt {
            Stmt::Expr(e) => {
                self.expr(e)?;
            }
            Stmt::If {
                cond,
                accept,
                reject,
            } => {
                // `if (!c)` narrows to the lanes where `c` is false.
                let (inner, negate) = match &cond.kind {
                    ExprKind::Unary(UnaryOp::Not, inner) => (&**inner, true),
                    _ => (cond, false),
                };
                if self.if_converted(inner, negate, [accept, reject])? {
                    return Ok(false);
                }
                let c = self.expr(inner)?[0];
                // The branch points at its condition (checked mode reports
                // a branch on an undefined value there).
                let begin = self.code.len();
                self.if_else_negated(c, negate, |s| s.block(accept), |s| s.block(reject))?;
                self.spans[begin] = cond.span;
            }
            Stmt::Loop {
                body,
                continuing,
                span,
            } => self.lower_loop(body, continuing, *span)?,
            Stmt::Switch { selector, cases } => self.lower_switch(selector, cases)?,
            Stmt::Break => {
                let frame = self
                    .depth_of(&[FrameKind::Loop, FrameKind::Switch])
                    .ok_or_else(|| ExecError::new("'break' outside a loop or switch", None))?;
                self.emit(Inst::Break { frame });
                return Ok(true);
            }
            Stmt::Continue => {
                let frame = self
                    .depth_of(&[FrameKind::Loop])
                    .ok_or_else(|| ExecError::new("'continue' outside a loop", None))?;
                self.emit(Inst::Continue { frame });
                return Ok(true);
            }
            Stmt::Return(value) => {
                if let Some(value) = value {
                    let v = self.expr(value)?;
                    let result = self
                        .calls
                        .last()
                        .map(|c| c.result.clone())
                        .unwrap_or_default();
                    for (&dst, &src) in result.iter().zip(&v) {
                        self.emit(Inst::CopyMasked { dst, src });
                    }
                }
                if self.calls.last().is_some_and(|c| c.flat) {
                    return Ok(true);
                }
                let frame = self.depth_of(&[FrameKind::Call]).unwrap_or(0);
                self.emit(Inst::Return { frame });
                return Ok(true);
            }
            Stmt::Barrier(flags) => {
                self.span = self.call_span.unwrap_or(flags.span);
                // A fence alone orders memory, which every access here sees
                // at once; only a group sync makes the waves wait.
                self.emit(if flags.group_sync {
                    Inst::Barrier
                } else {
                    Inst::Fence
                });
            }
        }
        Ok(false)
    }

    fn if_else(
        &mut self,
        cond: Reg,
        accept: impl FnOnce(&mut Self) -> Result<(), ExecError>,
        reject: impl FnOnce(&mut Self) -> Result<(), ExecError>,
    ) -> Result<(), ExecError> {
        self.if_else_negated(cond, false, accept, reject)
    }

    /// `if (cond) accept else reject`, or with `negate`, `if (!cond)`. An
    /// empty else branch gets no `Else`: the `IfEnd` reconverges anyway.
    /// The helper-lane flag's register, in a pixel shader.
    pub(super) fn helper_reg(&self) -> Option<Reg> {
        let id = self.module.entry.as_ref()?.io.as_ref()?.helper?;
        self.statics.get(id.index())?.first().copied()
    }

    /// Whether a pixel shader's wave operations take its helper lanes in
    /// (`[WaveOpsIncludeHelperLanes]`).
    pub(super) fn wave_ops_include_helpers(&self) -> bool {
        let io = self.module.entry.as_ref().and_then(|e| e.io.as_ref());
        io.is_some_and(|io| io.wave_ops_include_helpers)
    }

    /// The register of the flag of lanes that called `discard`, in a pixel
    /// shader.
    pub(super) fn discarded_reg(&self) -> Option<Reg> {
        let id = self.module.entry.as_ref()?.io.as_ref()?.discarded?;
        self.statics.get(id.index())?.first().copied()
    }

    /// Emits `body` for the lanes that are not helper lanes: in a pixel
    /// shader, wave operations (other than queries and quad operations)
    /// and writes to memory leave helper lanes out, as if flow control
    /// excluded them.
    pub(super) fn unless_helper<T>(
        &mut self,
        body: impl FnOnce(&mut Self) -> Result<T, ExecError>,
    ) -> Result<T, ExecError> {
        let Some(helper) = self.helper_reg() else {
            return body(self);
        };
        let mut out = None;
        self.if_else_negated(
            helper,
            true,
            |s| {
                out = Some(body(s)?);
                Ok(())
            },
            |_| Ok(()),
        )?;
        out.ok_or_else(|| ExecError::new("a helper-lane guard produced no value", None))
    }

    fn if_else_negated(
        &mut self,
        cond: Reg,
        negate: bool,
        accept: impl FnOnce(&mut Self) -> Result<(), ExecError>,
        reject: impl FnOnce(&mut Self) -> Result<(), ExecError>,
    ) -> Result<(), ExecError> {
        let begin = self.emit(Inst::IfBegin {
            cond,
            negate,
            else_pc: 0,
            test: Test::NONZERO,
        });
        self.frames.push(FrameKind::If);
        accept(self)?;
        let else_at = self.emit(Inst::Else { end_pc: 0 });
        reject(self)?;
        if self.code.len() == else_at + 1 {
            self.code.pop();
            self.spans.pop();
            if self.checked {
                self.debug.stmt.pop();
                self.debug.start.pop();
                self.debug.call.pop();
            }
        }
        let end = self.emit(Inst::IfEnd);
        self.frames.pop();
        self.code[begin] = Inst::IfBegin {
            cond,
            negate,
            else_pc: else_at as u32,
            test: Test::NONZERO,
        };
        if else_at != end {
            self.code[else_at] = Inst::Else { end_pc: end as u32 };
        }
        Ok(())
    }

    fn lower_loop(
        &mut self,
        body: &Block,
        continuing: &Block,
        span: Span,
    ) -> Result<(), ExecError> {
        self.emit(Inst::LoopBegin);
        self.frames.push(FrameKind::Loop);
        let depth = (self.frames.len() - 1) as FrameDepth;
        let top = self.emit(Inst::LoopIter { exit_pc: 0, span });
        self.block(body)?;
        // `LoopContinuing` brings back the lanes that left the body by
        // `continue`. Without one, it would leave the active lanes as they
        // are: every construct in the body ends with the lanes it began
        // with, less those parked since, which is what it computes. So the
        // body's last operations and the continuing block's join up.
        let continues = self.code[top..]
            .iter()
            .any(|inst| matches!(*inst, Inst::Continue { frame } if frame == depth));
        if continues {
            self.emit(Inst::LoopContinuing);
        }
        self.block(continuing)?;
        self.emit(Inst::Jump { target: top as u32 });
        let exit = self.emit(Inst::LoopEnd);
        self.frames.pop();
        self.code[top] = Inst::LoopIter {
            exit_pc: exit as u32,
            span,
        };
        Ok(())
    }

    fn lower_switch(
        &mut self,
        selector: &Expr,
        cases: &[lockstep_ir::SwitchCase],
    ) -> Result<(), ExecError> {
        let selector_ty = self
            .module
            .types
            .scalar_of(selector.ty)
            .unwrap_or(ScalarType::Int32);
        let sel = self.expr(selector)?[0];
        let all: Box<[u64]> = cases
            .iter()
            .flat_map(|c| c.values.iter().copied())
            .collect();
        self.emit(Inst::SwitchBegin);
        self.frames.push(FrameKind::Switch);
        for case in cases {
            let mark = self.next_reg;
            let at = self.emit(Inst::SwitchCase {
                selector: sel,
                selector_ty,
                values: case.values.clone().into_boxed_slice(),
                default_all: case.is_default.then(|| all.clone()),
            });
            self.spans[at] = selector.span;
            self.block(&case.body)?;
            self.next_reg = mark;
        }
        self.emit(Inst::SwitchEnd);
        self.frames.pop();
        Ok(())
    }
}
