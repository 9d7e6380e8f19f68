//! Machine code for Lockstep's straight runs of 32-bit lane operations.
//!
//! A [`Run`] is what the engine calls a `Block32`: registers narrowed to
//! 32 bits, operations that each make a new value, and registers written
//! back. The interpreter does one lane loop per operation, through memory.
//! The code made here keeps every value in an AVX2 register and does the
//! whole run in one pass, eight lanes at a time: load and narrow the
//! inputs, compute, widen and store the outputs.
//!
//! Only x86-64 CPUs with AVX2 (and F16C) get code. Elsewhere [`Builder::new`] is
//! `None` and the interpreter runs every block.
//!
//! The crate knows nothing of HLSL or the bytecode: a run names registers
//! by number, and [`Kernel::run`] is given the register file as the engine
//! lays it out (register `r`'s lanes at `r * width ..`, one `u64` each,
//! holding the value's bits zero-extended).

#![warn(missing_docs)]

#[cfg(target_arch = "x86_64")]
mod x64;

/// Machine code for whole wave programs (x86-64 with AVX2).
#[cfg(target_arch = "x86_64")]
pub use x64::wave;

/// An operation on two 32-bit lanes (three for `Select`), with the
/// engine's results: `lockstep-wave`'s [`Op32`], whose `eval` gives each
/// lane's bits.
pub use lockstep_wave::Op32;

/// A run's values are numbered: its inputs first, then one per step.
pub type Value = u16;

/// An operation's second operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A value of the run.
    Value(Value),
    /// A constant, the same in every lane.
    Imm(u32),
}

/// One step of a run: `op(a, b)` (`Select`: `op(a, b, c)`) on every lane,
/// a new value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// The operation.
    pub op: Op32,
    /// The first operand.
    pub a: Value,
    /// The second operand; ignored by the unary operations.
    pub b: Operand,
    /// `Select`'s third operand; `None` for every other operation.
    pub c: Option<Value>,
    /// The inactive lanes take this value's lanes instead.
    pub keep: Option<Value>,
}

/// A register a run writes back, zero-extended from a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Output {
    /// The register written.
    pub reg: u32,
    /// The value written to it.
    pub value: Value,
    /// Only the active lanes are written.
    pub masked: bool,
}

/// A straight run of operations: values `0..inputs.len()` are the
/// registers `inputs` narrowed to 32 bits, value `inputs.len() + i` is
/// `steps[i]`'s result. A step reads only values made before it.
#[derive(Clone, Copy, Debug)]
pub struct Run<'a> {
    /// The registers read, narrowed to values `0..inputs.len()` in this order.
    pub inputs: &'a [u32],
    /// The operations, in order: step `i` makes value `inputs.len() + i`.
    pub steps: &'a [Step],
    /// The registers written back.
    pub outputs: &'a [Output],
}

/// Registers one kernel may name (inputs and outputs together).
pub const MAX_REGS: usize = 16;

/// Values a kernel may hold at once: the vector registers left after the
/// masks and the temporaries.
const VALUE_REGS: u8 = 10;

/// Which vector register holds each value while a chunk of lanes runs
/// (`None`: nothing needs the value), or `None` when the run does not fit
/// the registers or is malformed.
fn allocate(run: &Run) -> Option<Vec<Option<u8>>> {
    let (inputs, n) = (run.inputs.len(), run.inputs.len() + run.steps.len());
    // A value is needed when it is written back or a needed step reads it.
    let mut needed = vec![false; n];
    for o in run.outputs {
        *needed.get_mut(usize::from(o.value))? = true;
    }
    for (i, step) in run.steps.iter().enumerate().rev() {
        let select = step.op == Op32::Select;
        if select != step.c.is_some() || (select && !matches!(step.b, Operand::Value(_))) {
            return None;
        }
        for v in reads(step) {
            if usize::from(v) >= inputs + i {
                return None;
            }
            needed[usize::from(v)] |= needed[inputs + i];
        }
    }
    // The step after which each value is not read again (`steps.len()`
    // for the values written back).
    let mut last = vec![0; n];
    for (i, step) in run.steps.iter().enumerate() {
        if needed[inputs + i] {
            for v in reads(step) {
                last[usize::from(v)] = i;
            }
        }
    }
    for o in run.outputs {
        last[usize::from(o.value)] = run.steps.len();
    }
    let mut free: u16 = (1 << VALUE_REGS) - 1;
    let take = |free: &mut u16| {
        let r = free.trailing_zeros();
        (r < u32::from(VALUE_REGS)).then(|| {
            *free &= !(1 << r);
            r as u8
        })
    };
    let mut reg = vec![None; n];
    for v in (0..inputs).filter(|&v| needed[v]) {
        reg[v] = Some(take(&mut free)?);
    }
    for (i, step) in run.steps.iter().enumerate() {
        if !needed[inputs + i] {
            continue;
        }
        // The operands read for the last time are free for the result:
        // each step writes its result after reading its operands.
        for v in reads(step) {
            if last[usize::from(v)] == i {
                free |= 1 << reg[usize::from(v)]?;
            }
        }
        reg[inputs + i] = Some(take(&mut free)?);
    }
    Some(reg)
}

/// The values `step` reads.
fn reads(step: &Step) -> impl Iterator<Item = Value> {
    let b = match step.b {
        Operand::Value(b) => Some(b),
        Operand::Imm(_) => None,
    };
    [Some(step.a), b, step.c, step.keep].into_iter().flatten()
}

/// The registers a run names, each once: the kernel's pointer table.
fn registers(run: &Run) -> Vec<u32> {
    let mut regs: Vec<u32> = Vec::new();
    for &r in run.inputs.iter().chain(run.outputs.iter().map(|o| &o.reg)) {
        if !regs.contains(&r) {
            regs.push(r);
        }
    }
    regs
}

/// Collects the kernels of one program into one piece of executable
/// memory.
pub struct Builder {
    #[cfg(target_arch = "x86_64")]
    inner: x64::Builder,
    /// Each added run's entries (for any mask, and for every lane active)
    /// and register table.
    entries: Vec<([usize; 2], Box<[u32]>)>,
}

impl Builder {
    /// `None` where this CPU gets no machine code.
    pub fn new() -> Option<Builder> {
        #[cfg(target_arch = "x86_64")]
        {
            if !(std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("f16c")) {
                return None;
            }
            Some(Builder {
                inner: x64::Builder::new()?,
                entries: Vec::new(),
            })
        }
        #[cfg(not(target_arch = "x86_64"))]
        None
    }

    /// Adds the code of `run`; its index among the kernels [`finish`]
    /// returns, or `None` when the run does not fit (more values live at
    /// once than there are vector registers, more than [`MAX_REGS`]
    /// registers), reads a value before it is made, or has a step whose
    /// operands do not fit its operation (a `Select` without a third
    /// value or with a constant second, a third operand on another).
    ///
    /// [`finish`]: Builder::finish
    pub fn add(&mut self, run: &Run) -> Option<usize> {
        let place = allocate(run)?;
        let regs = registers(run);
        if regs.len() > MAX_REGS {
            return None;
        }
        // Code for every lane active, when the mask changes anything.
        let masks = run.outputs.iter().any(|o| o.masked)
            || run
                .steps
                .iter()
                .enumerate()
                .any(|(i, s)| s.keep.is_some() && place[run.inputs.len() + i].is_some());
        #[cfg(target_arch = "x86_64")]
        let entry = {
            let any = self.inner.add(run, &place, &regs, false);
            let full = if masks {
                self.inner.add(run, &place, &regs, true)
            } else {
                any
            };
            [any, full]
        };
        #[cfg(not(target_arch = "x86_64"))]
        let entry = {
            // No `Builder` exists on other architectures.
            let _ = (place, masks);
            [0, 0]
        };
        self.entries.push((entry, regs.into_boxed_slice()));
        Some(self.entries.len() - 1)
    }

    /// The kernels, in the order they were added; `None` if the memory
    /// could not be made executable.
    pub fn finish(self) -> Option<Vec<Kernel>> {
        #[cfg(target_arch = "x86_64")]
        {
            let code = std::sync::Arc::new(self.inner.finish()?);
            Some(
                self.entries
                    .into_iter()
                    .map(|([any, full], regs)| Kernel {
                        entry: code.entry(any),
                        full: code.entry(full),
                        code: code.clone(),
                        registers_needed: regs.iter().max().map_or(0, |&r| r as usize + 1),
                        regs,
                    })
                    .collect(),
            )
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = self.entries;
            None
        }
    }
}

/// The machine code of one run.
#[derive(Clone)]
pub struct Kernel {
    #[cfg(target_arch = "x86_64")]
    code: std::sync::Arc<x64::Code>,
    #[cfg(target_arch = "x86_64")]
    entry: x64::Entry,
    /// The entry for calls with every lane active.
    #[cfg(target_arch = "x86_64")]
    full: x64::Entry,
    regs: Box<[u32]>,
    /// One more than the highest register named: the register file must
    /// hold this many registers.
    #[cfg(target_arch = "x86_64")]
    registers_needed: usize,
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel")
            .field("regs", &self.regs)
            .finish_non_exhaustive()
    }
}

impl Kernel {
    /// Runs the code on `regs`, the register file of a wave `width` lanes
    /// wide, with the active lanes `mask`. `false`, having done nothing,
    /// when the kernel cannot: `width` is not a multiple of 8 up to 128,
    /// or `regs` is too short for a register the run names.
    pub fn run(&self, regs: &mut [u64], width: usize, mask: u128) -> bool {
        if width == 0 || !width.is_multiple_of(8) || width > 128 {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        {
            if self.registers_needed * width > regs.len() {
                return false;
            }
            let base = regs.as_mut_ptr();
            let mut table = [std::ptr::null_mut(); MAX_REGS];
            for (p, &r) in table.iter_mut().zip(&self.regs) {
                // SAFETY: in bounds, checked above.
                *p = unsafe { base.add(r as usize * width) };
            }
            let all = if width == 128 {
                u128::MAX
            } else {
                (1 << width) - 1
            };
            let entry = if mask & all == all {
                self.full
            } else {
                self.entry
            };
            let mask = mask.to_le_bytes();
            // SAFETY: the code was made for this CPU (`Builder::new`
            // checked AVX2); it reads and writes lanes `0..width` of the
            // registers in `table` and `width / 8` bytes of `mask`, and
            // `code` keeps it mapped.
            unsafe { self.code.call(entry, &table, &mask, width / 8) };
            true
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            // No kernel exists on other architectures.
            let _ = (regs, mask);
            false
        }
    }
}
