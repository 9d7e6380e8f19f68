//! Machine code for Lockstep's wave programs: [`wave`] builds one function
//! that runs every wave of a group, with control flow as native branches.
//!
//! A [`Run`] is what the engine calls a `Block32`: registers read as 32-bit
//! values, operations that each make a new value, and registers written
//! back. [`wave::WaveBuilder::block`] keeps every value of a run in an
//! AVX2 register, eight lanes at a time; [`fits`] says whether a run can.
//!
//! Only x86-64 CPUs with AVX2, F16C, POPCNT and BMI1 get code; elsewhere
//! the engine interprets. The crate knows nothing of HLSL or the
//! bytecode: a run names registers by number.

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

/// Values a run may hold at once: the vector registers left after the
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

/// Whether [`wave::WaveBuilder::block`] takes `run`: its values fit the
/// vector registers, each step reads only values made before it, and each
/// step's operands fit its operation (a `Select` has a third value and a
/// second that is a value; no other step has a third).
pub fn fits(run: &Run) -> bool {
    allocate(run).is_some()
}
