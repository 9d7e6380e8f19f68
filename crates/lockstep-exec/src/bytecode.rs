//! The wave bytecode: one instruction does one operation for every lane of a
//! wave, over structure-of-arrays registers.

use crate::lanes::LaneMath;
use lockstep_ir::{
    AtomicOp, BinaryOp, Builtin, ResourceId, ResourceQuery, ScalarType, Span, UnaryOp, WaveOp,
};

/// What an arithmetic instruction computes, in the IR's terms. The
/// interpreter runs its lane loop; the machine code reads from it which
/// operands are 64-bit values and, for some, makes its own code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpForm {
    Unary(UnaryOp, ScalarType),
    Binary(BinaryOp, ScalarType),
    /// A component-wise builtin on operands of the type.
    Builtin(Builtin, ScalarType),
    Convert(ScalarType, ScalarType),
    Bitcast(ScalarType, ScalarType),
}

impl OpForm {
    /// Whether the result and the operands `a`, `b` and `c` are 64-bit
    /// values.
    pub fn wide(self) -> [bool; 4] {
        use Builtin as F;
        let w = |ty: ScalarType| ty.size() == 8;
        match self {
            OpForm::Unary(UnaryOp::Not, ty) => [false, w(ty), false, false],
            OpForm::Unary(_, ty) => [w(ty), w(ty), false, false],
            OpForm::Binary(op, ty) => {
                use BinaryOp as B;
                let boolean = matches!(
                    op,
                    B::Eq | B::Ne | B::Lt | B::Le | B::Gt | B::Ge | B::And | B::Or
                );
                [w(ty) && !boolean, w(ty), w(ty), false]
            }
            OpForm::Builtin(F::AsDouble, _) => [true, false, false, false],
            OpForm::Builtin(b, ty) => {
                let narrow = matches!(
                    b,
                    F::CountBits
                        | F::FirstBitHigh
                        | F::FirstBitLow
                        | F::IsNan
                        | F::IsInf
                        | F::IsFinite
                        | F::Sign
                        | F::F32ToF16
                        | F::F16ToF32
                );
                [w(ty) && !narrow, w(ty), w(ty), w(ty)]
            }
            OpForm::Convert(from, to) | OpForm::Bitcast(from, to) => [w(to), w(from), false, false],
        }
    }
}

/// A register: one scalar component for all lanes of a wave.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reg(pub u32);

/// `dst[l] = f(a[l])` for every lane, or, given `keep` (all ones or 0 per
/// lane), only for the lanes where `keep[l]` is all ones.
pub type UnaryFn = fn(dst: &mut [u64], a: &[u64], keep: Option<&[u64]>);
/// `dst[l] = f(a[l], b[l])`, for every lane or the lanes `keep` selects.
pub type BinaryFn = fn(dst: &mut [u64], a: &[u64], b: &[u64], keep: Option<&[u64]>);
/// `dst[l] = f(a[l], imm)`, for every lane or the lanes `keep` selects;
/// `a` of `None` is `dst` itself (the operation in place).
pub type BinaryImmFn = fn(dst: &mut [u64], a: Option<&[u64]>, imm: u64, keep: Option<&[u64]>);
/// `dst[l] = f(a[l], b[l], c[l])`, for every lane or the lanes `keep`
/// selects.
pub type TernaryFn = fn(dst: &mut [u64], a: &[u64], b: &[u64], c: &[u64], keep: Option<&[u64]>);

/// `dst[l] = f(a[l], b[l])` on 32-bit lanes (a [`Block32`]'s slots).
pub type Slot32Fn = fn(dst: &mut [u32], a: &[u32], b: &[u32]);
/// `dst[l] = f(a[l], imm)` on 32-bit lanes.
pub type Slot32ImmFn = fn(dst: &mut [u32], a: &[u32], imm: u32);
/// [`Op32::Select`]'s loop: `dst = c != 0 ? a : b` per lane.
pub type Slot32SelectFn = fn(dst: &mut [u32], c: &[u32], a: &[u32], b: &[u32]);

/// The 32-bit operations that only need their operands' low 32 bits and
/// give the low 32 bits of the result (`lockstep_wave::Op32`: the
/// interpreter's lane loops, the machine code and the tests all take their
/// semantics from its `eval`).
pub use lockstep_wave::Op32;

/// A run of [`Op32`] operations with nothing between them, computed on
/// 32-bit lanes: the registers it reads are narrowed into slots once, each
/// operation writes a slot of its own (slot `inputs.len() + i` for
/// operation `i`), and the registers read after the run are widened back
/// from their last slots. Half the vector work of the same operations on
/// 64-bit register lanes, and one instruction to dispatch.
///
/// Every operation computes all lanes. A register written on the active
/// lanes only keeps its value elsewhere in one of two ways: `exact`
/// blocks blend each masked operation's slot with the register's earlier
/// slot (`Slot32Op::old`), so slots hold what the registers would; other
/// blocks only write such a register's active lanes back (`Output32::masked`),
/// which `compile::block32` allows when no value written back to every
/// lane depends on the inactive lanes of a masked write's slot.
#[derive(Clone, Debug)]
pub struct Block32 {
    /// Registers narrowed into slots `0..inputs.len()` when the block
    /// starts.
    pub inputs: Vec<Reg>,
    pub ops: Vec<Slot32Op>,
    /// Registers written back when the block ends.
    pub outputs: Vec<Output32>,
    /// Masked operations blend (`Slot32Op::old` is set on them).
    pub exact: bool,
}

impl Block32 {
    /// Slots used: the inputs and one per operation.
    pub fn slots(&self) -> usize {
        self.inputs.len() + self.ops.len()
    }
}

/// One operation of a [`Block32`], reading slots before its own.
#[derive(Clone, Copy, Debug)]
pub struct Slot32Op {
    pub op: Op32,
    pub kind: Slot32Kind,
    pub a: u16,
    /// Exact blocks, for an operation writing the active lanes only: the
    /// slot whose lanes the inactive lanes keep.
    pub old: Option<u16>,
}

/// A [`Slot32Op`]'s function and other operands.
#[derive(Clone, Copy, Debug)]
pub enum Slot32Kind {
    Slots {
        f: Slot32Fn,
        b: u16,
    },
    Imm {
        f: Slot32ImmFn,
        imm: u32,
    },
    /// [`Op32::Select`]: `a`'s lanes pick `b`'s where nonzero, `c`'s
    /// where zero.
    Select {
        f: Slot32SelectFn,
        b: u16,
        c: u16,
    },
}

/// A register a [`Block32`] writes back, zero-extended from a slot.
#[derive(Clone, Copy, Debug)]
pub struct Output32 {
    pub reg: Reg,
    pub slot: u16,
    /// Only the active lanes.
    pub masked: bool,
}

/// A wave's vote over a condition: `WaveActiveAnyTrue` or
/// `WaveActiveAllTrue`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vote {
    Any,
    All,
}

/// How a branch finds its lanes from its condition register `cond`: the
/// lanes where `lanes` holds, or, with a `vote`, the lanes of the waves
/// whose vote over those holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Test {
    pub lanes: Lanes,
    /// `if (WaveActiveAnyTrue(c))` (see `compile::fuse::fuse_votes`).
    pub vote: Option<Vote>,
}

impl Test {
    /// The lanes where `cond` is nonzero: a branch as lowered.
    pub const NONZERO: Test = Test {
        lanes: Lanes::Nonzero,
        vote: None,
    };

    /// The lanes of the waves whose `vote` over `cond` holds.
    pub const fn vote(vote: Vote) -> Test {
        Test {
            lanes: Lanes::Nonzero,
            vote: Some(vote),
        }
    }
}

/// Which lanes of a branch's condition register `cond` hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lanes {
    /// Those where `cond` is nonzero.
    Nonzero,
    /// Those where the comparison of `cond` with register `b` holds (`if (a
    /// < b)` with the comparison's result read by branches alone, see
    /// `compile::fuse::fuse_compares`).
    Compare(Cmp32, Reg),
    /// The same with a constant.
    CompareImm(Cmp32, u32),
    /// The lanes the branch right before found from the same condition,
    /// before its vote (`if (!WaveActiveAnyTrue(more)) break; if (more)`,
    /// see `compile::fuse::reuse_tests`): no control flow reaches this
    /// branch but through that one, and nothing runs between them.
    Previous,
}

/// A 32-bit comparison a branch can test by itself: the comparisons among
/// the [`Op32`]s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp32 {
    Eq,
    Ne,
    LtU,
    LeU,
    GtU,
    GeU,
    LtS,
    LeS,
    GtS,
    GeS,
    FEq,
    FNe,
    FLt,
    FLe,
    FGt,
    FGe,
}

impl Cmp32 {
    /// `op` when it is a comparison.
    pub fn of(op: Op32) -> Option<Cmp32> {
        Some(match op {
            Op32::Eq => Cmp32::Eq,
            Op32::Ne => Cmp32::Ne,
            Op32::LtU => Cmp32::LtU,
            Op32::LeU => Cmp32::LeU,
            Op32::GtU => Cmp32::GtU,
            Op32::GeU => Cmp32::GeU,
            Op32::LtS => Cmp32::LtS,
            Op32::LeS => Cmp32::LeS,
            Op32::GtS => Cmp32::GtS,
            Op32::GeS => Cmp32::GeS,
            Op32::FEq => Cmp32::FEq,
            Op32::FNe => Cmp32::FNe,
            Op32::FLt => Cmp32::FLt,
            Op32::FLe => Cmp32::FLe,
            Op32::FGt => Cmp32::FGt,
            Op32::FGe => Cmp32::FGe,
            _ => return None,
        })
    }
}

/// Where a memory access goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// The group's shared memory.
    Groupshared,
    /// A bound buffer.
    Resource(ResourceId),
}

/// A memory address: a byte offset per lane (in `addr`, if any) plus a
/// constant.
#[derive(Clone, Copy, Debug)]
pub struct Address {
    pub space: Space,
    pub dynamic: Option<Reg>,
    pub offset: u32,
}

/// The byte offset a texel address takes when a coordinate is out of
/// range: past every buffer, and far enough from `u64::MAX` that adding a
/// component's offset or an index cannot wrap it back into range.
pub const TEXEL_OUT_OF_RANGE: u64 = 1 << 63;

/// Which frame a `Break`, `Continue` or `Return` leaves, counted from the
/// bottom of the wave's frame stack (known when compiling).
pub type FrameDepth = u16;

#[derive(Clone, Debug)]
pub enum Inst {
    /// Fills registers with constants (run once when a wave starts).
    Const {
        dst: Reg,
        bits: u64,
    },
    /// `dst = f(a)` on every lane; with `masked`, on the active lanes only
    /// (an operation fused with the assignment of its result, see
    /// `compile::fuse`).
    Unary {
        f: UnaryFn,
        dst: Reg,
        a: Reg,
        masked: bool,
        /// The operation as a one-operand [`Op32`], when it is one.
        op32: Option<Op32>,
        /// The operation as a lane function of the machine code, when it
        /// is one.
        math: Option<LaneMath>,
        /// The operation, where an operand may be a 64-bit value.
        form: Option<OpForm>,
    },
    Binary {
        f: BinaryFn,
        dst: Reg,
        a: Reg,
        b: Reg,
        masked: bool,
        /// The operation, when `f` is one that a [`Block32`] can take.
        op32: Option<Op32>,
        /// The operation as a lane function of the machine code, when it
        /// is one.
        math: Option<LaneMath>,
        form: Option<OpForm>,
    },
    /// `Binary` with a constant second operand.
    BinaryImm {
        f: BinaryImmFn,
        dst: Reg,
        a: Reg,
        imm: u64,
        masked: bool,
        op32: Option<Op32>,
        form: Option<OpForm>,
    },
    /// A run of 32-bit operations on 32-bit lanes.
    Block32(Box<Block32>),
    Ternary {
        f: TernaryFn,
        dst: Reg,
        a: Reg,
        b: Reg,
        c: Reg,
        masked: bool,
        form: Option<OpForm>,
    },
    /// Unmasked copy (temporaries).
    Copy {
        dst: Reg,
        src: Reg,
    },
    /// Copy on the active lanes only (assignment to a variable).
    CopyMasked {
        dst: Reg,
        src: Reg,
    },
    /// `dst = cond ? a : b`, per lane (`cond` nonzero or zero).
    Select {
        dst: Reg,
        cond: Reg,
        a: Reg,
        b: Reg,
        /// The three operands and the result are 32-bit values: the
        /// select can be an [`Op32::Select`] in a [`Block32`].
        word: bool,
        /// Writes the active lanes only.
        masked: bool,
    },
    /// `dst = base_value + index * scale`, with `index` sign- or
    /// zero-extended from `index_ty` and wrapping 64-bit arithmetic.
    IndexScale {
        dst: Reg,
        index: Reg,
        index_ty: ScalarType,
        scale: u64,
        base: Option<Reg>,
    },
    /// `dst[l] = regs[base + delta[l]][l]` when `delta[l] < limit`, else 0.
    Gather {
        dst: Reg,
        base: Reg,
        delta: Reg,
        limit: u32,
    },
    /// `regs[base + delta[l]][l] = src[l]` on active lanes with `delta[l] < limit`.
    Scatter {
        base: Reg,
        delta: Reg,
        limit: u32,
        src: Reg,
    },
    /// `dst = ((z * height + y) * width + x) * texel_size` per lane, from
    /// the texel coordinates in `coords[..count]` (x, y, z; missing ones
    /// are 0) and the dimensions bound to `resource`. Each coordinate is
    /// checked against its own dimension, and `level` (when given) must be
    /// 0: otherwise `dst` is [`TEXEL_OUT_OF_RANGE`].
    TexelAddress {
        dst: Reg,
        resource: ResourceId,
        coords: [Reg; 3],
        count: u8,
        level: Option<Reg>,
        texel_size: u32,
    },
    /// Reads a scalar from memory on the active lanes; out of bounds reads 0.
    Load {
        dst: Reg,
        addr: Address,
        ty: ScalarType,
    },
    /// Writes a scalar on the active lanes; out of bounds writes are dropped.
    Store {
        addr: Address,
        ty: ScalarType,
        src: Reg,
    },
    /// Atomic read-modify-write on the active lanes, in lane order.
    Atomic {
        op: AtomicOp,
        ty: ScalarType,
        addr: Address,
        dst: Reg,
        a: Reg,
        b: Reg,
        /// Nothing reads `dst`, and the update may be held back and
        /// combined with others (see `engine::Deferred`).
        deferrable: bool,
    },
    Query {
        dst: Reg,
        resource: ResourceId,
        query: ResourceQuery,
    },
    /// A wave op on one component: `dst = op(a[, b])`. `ty` is the operand's
    /// scalar type.
    Wave {
        op: WaveOp,
        ty: ScalarType,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    /// Ballot-like ops write four registers (`uint4`).
    Wave4 {
        op: WaveOp,
        ty: ScalarType,
        dst: [Reg; 4],
        a: Reg,
    },
    /// `WaveMultiPrefix*`: `mask` is a `uint4` partition.
    MultiPrefix {
        op: WaveOp,
        ty: ScalarType,
        dst: Reg,
        a: Reg,
        mask: [Reg; 4],
    },

    // Structured control flow over the execution mask. See `engine.rs`.
    /// Pushes an `if` frame; the active lanes narrow to `cond`; jumps to
    /// `else_pc` (the `Else`, or the `IfEnd` when there is no else branch)
    /// when none is left.
    IfBegin {
        cond: Reg,
        /// Narrow to the lanes where `cond` is false instead (`if (!c)`).
        negate: bool,
        else_pc: u32,
        /// How the lanes follow from `cond`.
        test: Test,
    },
    /// Switches to the lanes that did not take the branch; jumps to `end_pc`
    /// when none.
    Else {
        end_pc: u32,
    },
    /// Reconverges and pops the frame.
    IfEnd,
    /// Pushes a loop frame.
    LoopBegin,
    /// Top of every iteration: leaves through `exit_pc` when no lane is left;
    /// counts the iteration against the step budget.
    LoopIter {
        exit_pc: u32,
        span: Span,
    },
    /// Brings back the lanes that took `continue`.
    LoopContinuing,
    Jump {
        target: u32,
    },
    /// Pops the loop frame; brings back the lanes that took `break`.
    LoopEnd,
    /// Pushes a switch frame; no lane active until a case selects it.
    SwitchBegin,
    /// The lanes whose selector is in `values` (or, for the default case, in
    /// none of `all_values`) join the lanes falling through.
    SwitchCase {
        selector: Reg,
        selector_ty: ScalarType,
        values: Box<[u64]>,
        default_all: Option<Box<[u64]>>,
    },
    SwitchEnd,
    /// Pushes a frame that `return` leaves (an inlined call).
    CallBegin,
    CallEnd,
    /// The active lanes leave the frame at `frame`.
    Break {
        frame: FrameDepth,
    },
    Continue {
        frame: FrameDepth,
    },
    Return {
        frame: FrameDepth,
    },
    /// `if (cond) break;` (or `continue;`, `return;`) in one instruction
    /// (see `compile::fuse::fuse_leaves`): the active lanes that `test`
    /// picks from `cond` (those it does not with `negate`) leave the frame
    /// at `frame`, as `Continue` leaves it with `to_continue`, else as
    /// `Break`.
    LeaveIf {
        cond: Reg,
        negate: bool,
        test: Test,
        frame: FrameDepth,
        to_continue: bool,
    },
    /// Group barrier: the wave waits until every wave of the group arrives.
    Barrier,
    /// A memory fence with no group sync (`DeviceMemoryBarrier()` and the
    /// like): the wave goes on; the updates its worker holds become
    /// visible to other workers.
    Fence,
    /// Checked mode only: reports active lanes whose integer divisor is 0.
    CheckDivisor {
        divisor: Reg,
    },
    /// Checked mode only: reports the active lanes that are not helper
    /// lanes (`helper` zero) whose quad operation read a lane that called
    /// `discard` (`read` nonzero).
    CheckDiscardedRead {
        read: Reg,
        helper: Reg,
    },
    /// Checked mode only: a local variable's register, 0 and undefined
    /// until written.
    Uninitialized {
        dst: Reg,
    },
    /// End of the entry point.
    Exit,
}

/// The instructions of the loop that starts at `pc` (a `LoopBegin`), up to
/// its `LoopEnd`.
pub(crate) fn loop_body(code: &[Inst], pc: usize) -> &[Inst] {
    let mut depth = 0usize;
    for (end, inst) in code.iter().enumerate().skip(pc) {
        match inst {
            Inst::LoopBegin => depth += 1,
            Inst::LoopEnd => {
                depth -= 1;
                if depth == 0 {
                    return &code[pc..=end];
                }
            }
            _ => {}
        }
    }
    &code[pc..]
}

/// The registers written anywhere in the loop that starts at `pc`.
pub(crate) fn loop_writes(code: &[Inst], pc: usize) -> Vec<u32> {
    let mut regs = Vec::new();
    for inst in loop_body(code, pc) {
        inst.for_each_write(|r| regs.push(r));
    }
    regs
}

/// Which of a wave op's two operands (`a`, `b` of [`Inst::Wave`]) it reads:
/// the value for every op that takes one, the lane index for the two
/// `ReadLaneAt` ops.
pub(crate) fn wave_operands(op: WaveOp) -> [bool; 2] {
    match op {
        WaveOp::IsFirstLane
        | WaveOp::GetLaneCount
        | WaveOp::GetLaneIndex
        | WaveOp::GroupWaveIndex
        | WaveOp::GroupWaveCount => [false, false],
        WaveOp::ReadLaneAt | WaveOp::QuadReadLaneAt => [true, true],
        _ => [true, false],
    }
}

/// Visits the register operands of an instruction (`$m` is `mut` or
/// nothing), so that [`Inst::for_each_reg`] and [`Inst::for_each_reg_ref`]
/// share one list.
macro_rules! each_reg {
    ($inst:expr, $f:ident, $iter:ident $(, $m:tt)?) => {{
        let addr = |a: &$($m)? Address, f: &mut dyn FnMut(&$($m)? Reg)| {
            if let Some(r) = &$($m)? a.dynamic {
                f(r);
            }
        };
        match $inst {
            Inst::Const { dst, .. } | Inst::Uninitialized { dst } | Inst::Query { dst, .. } => {
                $f(dst)
            }
            Inst::Unary { dst, a, .. } | Inst::BinaryImm { dst, a, .. } => {
                $f(dst);
                $f(a);
            }
            Inst::Binary { dst, a, b, .. } => {
                $f(dst);
                $f(a);
                $f(b);
            }
            Inst::Block32(block) => {
                block.inputs.$iter().for_each(&mut $f);
                block.outputs.$iter().for_each(|o| $f(&$($m)? o.reg));
            }
            Inst::Ternary { dst, a, b, c, .. } => {
                $f(dst);
                $f(a);
                $f(b);
                $f(c);
            }
            Inst::Copy { dst, src } | Inst::CopyMasked { dst, src } => {
                $f(dst);
                $f(src);
            }
            Inst::Select {
                dst, cond, a, b, ..
            } => {
                $f(dst);
                $f(cond);
                $f(a);
                $f(b);
            }
            Inst::IndexScale {
                dst, index, base, ..
            } => {
                $f(dst);
                $f(index);
                if let Some(b) = base {
                    $f(b);
                }
            }
            Inst::Gather {
                dst, base, delta, ..
            } => {
                $f(dst);
                $f(base);
                $f(delta);
            }
            Inst::Scatter {
                base, delta, src, ..
            } => {
                $f(base);
                $f(delta);
                $f(src);
            }
            Inst::TexelAddress {
                dst, coords, level, ..
            } => {
                $f(dst);
                coords.$iter().for_each(&mut $f);
                if let Some(l) = level {
                    $f(l);
                }
            }
            Inst::Load { dst, addr: a, .. } => {
                $f(dst);
                addr(a, &mut $f);
            }
            Inst::Store { addr: a, src, .. } => {
                addr(a, &mut $f);
                $f(src);
            }
            Inst::Atomic {
                addr: ad,
                dst,
                a,
                b,
                ..
            } => {
                addr(ad, &mut $f);
                $f(dst);
                $f(a);
                $f(b);
            }
            Inst::Wave { dst, a, b, .. } => {
                $f(dst);
                $f(a);
                $f(b);
            }
            Inst::Wave4 { dst, a, .. } => {
                dst.$iter().for_each(&mut $f);
                $f(a);
            }
            Inst::MultiPrefix { dst, a, mask, .. } => {
                $f(dst);
                $f(a);
                mask.$iter().for_each(&mut $f);
            }
            Inst::IfBegin { cond, test, .. } | Inst::LeaveIf { cond, test, .. } => {
                $f(cond);
                if let Lanes::Compare(_, b) = &$($m)? test.lanes {
                    $f(b);
                }
            }
            Inst::SwitchCase { selector, .. } => $f(selector),
            Inst::CheckDivisor { divisor } => $f(divisor),
            Inst::CheckDiscardedRead { read, helper } => {
                $f(read);
                $f(helper);
            }
            Inst::Else { .. }
            | Inst::IfEnd
            | Inst::LoopBegin
            | Inst::LoopIter { .. }
            | Inst::LoopContinuing
            | Inst::Jump { .. }
            | Inst::LoopEnd
            | Inst::SwitchBegin
            | Inst::SwitchEnd
            | Inst::CallBegin
            | Inst::CallEnd
            | Inst::Break { .. }
            | Inst::Continue { .. }
            | Inst::Return { .. }
            | Inst::Barrier
            | Inst::Fence
            | Inst::Exit => {}
        }
    }};
}

impl Inst {
    /// Calls `f` on every register operand, read or written.
    pub(crate) fn for_each_reg(&mut self, mut f: impl FnMut(&mut Reg)) {
        each_reg!(self, f, iter_mut, mut)
    }

    /// Calls `f` on every register operand, read or written, in the order
    /// of [`Inst::for_each_reg`].
    pub(crate) fn for_each_reg_ref(&self, mut f: impl FnMut(&Reg)) {
        each_reg!(self, f, iter)
    }

    /// Whether the instruction runs in line: it neither branches nor makes
    /// a lane leave, and reads no register array by position (the
    /// bytecode passes move and drop work across such runs).
    pub(crate) fn runs_in_line(&self) -> bool {
        matches!(
            self,
            Inst::Const { .. }
                | Inst::Unary { .. }
                | Inst::Binary { .. }
                | Inst::BinaryImm { .. }
                | Inst::Ternary { .. }
                | Inst::Block32(_)
                | Inst::Copy { .. }
                | Inst::CopyMasked { .. }
                | Inst::Select { .. }
                | Inst::IndexScale { .. }
                | Inst::TexelAddress { .. }
                | Inst::Load { .. }
                | Inst::Store { .. }
                | Inst::Atomic { .. }
                | Inst::Query { .. }
                | Inst::Wave { .. }
        )
    }

    /// The register the instruction writes, where it writes exactly one.
    pub(crate) fn single_dst(&self) -> Option<Reg> {
        match *self {
            Inst::Const { dst, .. }
            | Inst::Uninitialized { dst }
            | Inst::Query { dst, .. }
            | Inst::Unary { dst, .. }
            | Inst::Binary { dst, .. }
            | Inst::BinaryImm { dst, .. }
            | Inst::Ternary { dst, .. }
            | Inst::Copy { dst, .. }
            | Inst::CopyMasked { dst, .. }
            | Inst::Select { dst, .. }
            | Inst::IndexScale { dst, .. }
            | Inst::Gather { dst, .. }
            | Inst::TexelAddress { dst, .. }
            | Inst::Load { dst, .. }
            | Inst::Atomic { dst, .. }
            | Inst::Wave { dst, .. }
            | Inst::MultiPrefix { dst, .. } => Some(dst),
            _ => None,
        }
    }

    /// Calls `f` on each register the instruction may write.
    pub(crate) fn for_each_write(&self, mut f: impl FnMut(u32)) {
        if let Some(dst) = self.single_dst() {
            return f(dst.0);
        }
        match *self {
            Inst::Wave4 { dst, .. } => dst.into_iter().for_each(|r| f(r.0)),
            Inst::Block32(ref block) => block.outputs.iter().for_each(|o| f(o.reg.0)),
            Inst::Scatter { base, limit, .. } => (base.0..base.0.saturating_add(limit)).for_each(f),
            _ => {}
        }
    }

    /// Calls `f` on each register the instruction reads.
    pub(crate) fn for_each_read(&self, mut f: impl FnMut(u32)) {
        match *self {
            Inst::Uninitialized { .. } | Inst::Const { .. } | Inst::Query { .. } => {}
            Inst::Wave { op, a, b, .. } => {
                let [reads_a, reads_b] = wave_operands(op);
                if reads_a {
                    f(a.0);
                }
                if reads_b {
                    f(b.0);
                }
            }
            Inst::Wave4 { a, .. } => f(a.0),
            Inst::Atomic { addr, a, b, .. } => {
                if let Some(r) = addr.dynamic {
                    f(r.0);
                }
                f(a.0);
                f(b.0);
            }
            Inst::Gather {
                base, delta, limit, ..
            } => {
                f(delta.0);
                (base.0..base.0.saturating_add(limit)).for_each(f);
            }
            _ => {
                // The destination comes first, where there is one.
                let mut skip = self.single_dst().is_some();
                self.for_each_reg_ref(|r| {
                    if !std::mem::take(&mut skip) {
                        f(r.0);
                    }
                });
            }
        }
    }

    /// Whether the instruction may write a register in `regs`.
    pub(crate) fn writes_in(&self, regs: std::ops::Range<u32>) -> bool {
        let r = |reg: Reg| regs.contains(&reg.0);
        if let Some(dst) = self.single_dst() {
            return r(dst);
        }
        match *self {
            Inst::Wave4 { dst, .. } => dst.into_iter().any(r),
            Inst::Block32(ref block) => block.outputs.iter().any(|o| r(o.reg)),
            Inst::Scatter { base, limit, .. } => {
                base.0 < regs.end && base.0.saturating_add(limit) > regs.start
            }
            _ => false,
        }
    }
}
