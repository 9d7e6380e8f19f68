//! Dispatches proven free of everything checked mode reports, before they
//! run, so that `lockstep check` runs them as `lockstep run` does (see
//! [`Program::prove_clean`]).
//!
//! The proof reads a checked program ([`Program::compile_checked`]) and
//! fails on anything checked mode settles at run time that it cannot
//! settle first:
//! - undefined values: a read of a variable that may not have been
//!   written yet (drawn in program order, everything a construct may
//!   leave unwritten counted as unwritten where its paths meet),
//!   `WaveMultiPrefix*`'s partitions;
//! - reads of other lanes (`WaveReadLaneAt`, the quad operations) outside
//!   the entry point's own level or after a lane left it, where lanes may
//!   be inactive; at that level, every lane a group's threads fill is
//!   active, so the lane read must be one of the last wave's (whole quads
//!   for the quad operations);
//! - an integer divisor that some thread may make 0;
//! - discarded-lane reads, textures and groupshared atomics;
//! - accesses out of bounds or misaligned: every load, store and atomic
//!   must have a byte address bounded over every thread of the dispatch;
//! - groupshared memory: barriers only at the entry point's own level
//!   with no lane gone, and between two barriers either loads of words
//!   that every thread of the group stored in an earlier phase, or stores
//!   one word per thread (no race, nothing uninitialized).
//!
//! Addresses are bounded by an abstract value per register, drawn in
//! program order as `native::consecutive` draws its facts (and dropped
//! at the same construct boundaries): an exact affine function of
//! `SV_DispatchThreadID` and `SV_GroupThreadID`, or a range of integers
//! with a known power-of-two divisor. System values, constants, 32-bit
//! integer arithmetic that cannot wrap over the dispatch, and index
//! scaling give them; anything else gives none.
//!
//! It also gives what checked mode records of the writes: which
//! instructions write each resource, and whether a word may be stored
//! by two threads (ruled out only where every address is one-to-one in
//! the thread).

use lockstep_ir::{ScalarType, Span, SystemValue, WaveOp};

use crate::bytecode::{
    Address, Inst, Op32, OpForm, Reg, Space, loop_body, loop_writes, wave_operands,
};
use crate::compile::Program;

/// What a clean dispatch writes, as checked mode would record it.
#[derive(Clone, Debug)]
pub struct Proof {
    /// Per resource id, the spans of the stores and atomics that write it,
    /// in program order, each once.
    pub writers: Vec<Vec<Span>>,
    /// Whether a word may be written by two threads with a store among the
    /// writes, or by a store and an atomic (`Writers::overwritten`);
    /// `false` only where proven.
    pub overwritten: bool,
}

/// An integer every thread of the dispatch holds in a register at some
/// point of the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    /// Exactly `c + k·id`, `id` the thread's `SV_DispatchThreadID` then
    /// its `SV_GroupThreadID` (six coordinates).
    Affine { c: i128, k: [i128; DIMS] },
    /// Some integer of `lo..=hi` that is a multiple of `align`, a power of
    /// two.
    Range { lo: i128, hi: i128, align: i128 },
}

/// How a register holds its [`Value`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Width {
    /// Its low 32 bits, unsigned, are the value (in `0..2^32`).
    Low32,
    /// All 64 bits are the value (in `0..2^63`).
    Full,
}

/// A register's abstract value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fact {
    value: Value,
    width: Width,
}

/// The largest power of two that divides every value (`2^64` for 0).
const ALIGN_MAX: i128 = 1 << 64;

fn low_bit(v: i128) -> i128 {
    if v == 0 {
        ALIGN_MAX
    } else {
        (v & v.wrapping_neg()).abs().min(ALIGN_MAX)
    }
}

/// The coordinates an affine value counts: `SV_DispatchThreadID`'s three,
/// then `SV_GroupThreadID`'s.
const DIMS: usize = 6;

/// The dispatch the proof is for: threads per dimension.
#[derive(Clone, Copy)]
struct Threads {
    /// `SV_DispatchThreadID`'s extent per dimension, then the group's.
    ids: [i128; DIMS],
}

/// `f` of each coordinate's coefficients.
fn zip_k(k: [i128; DIMS], j: [i128; DIMS], f: impl Fn(i128, i128) -> i128) -> [i128; DIMS] {
    std::array::from_fn(|d| f(k[d], j[d]))
}

impl Value {
    fn constant(c: i128) -> Value {
        Value::Affine { c, k: [0; DIMS] }
    }

    /// The least and greatest value over the dispatch.
    fn bounds(self, t: Threads) -> (i128, i128) {
        match self {
            Value::Affine { c, k } => k.iter().zip(t.ids).fold((c, c), |(lo, hi), (&k, n)| {
                let far = k * (n - 1).max(0);
                (lo + far.min(0), hi + far.max(0))
            }),
            Value::Range { lo, hi, .. } => (lo, hi),
        }
    }

    /// A power of two that divides every value.
    fn align(self, t: Threads) -> i128 {
        match self {
            Value::Affine { c, k } => k
                .iter()
                .zip(t.ids)
                .filter(|&(_, n)| n > 1)
                .fold(low_bit(c), |a, (&k, _)| a.min(low_bit(k))),
            Value::Range { align, .. } => align,
        }
    }

    /// The one value every thread holds, if it is one.
    fn single(self, t: Threads) -> Option<i128> {
        let (lo, hi) = self.bounds(t);
        (lo == hi).then_some(lo)
    }
}

/// The proof's state: a fact per register.
struct Facts {
    facts: Vec<Option<Fact>>,
    threads: Threads,
    /// The lanes a wave fills: its size, or the group's where that is
    /// smaller.
    lanes: i128,
    /// Lanes per wave.
    wave: i128,
}

impl Facts {
    fn get(&self, r: Reg) -> Option<Fact> {
        self.facts.get(r.0 as usize).copied().flatten()
    }

    fn set(&mut self, r: u32, fact: Option<Fact>) {
        if let Some(f) = self.facts.get_mut(r as usize) {
            *f = fact;
        }
    }

    /// `r`'s value as a 32-bit unsigned integer.
    fn low32(&self, r: Reg) -> Option<Value> {
        let fact = self.get(r)?;
        match fact.width {
            Width::Low32 => Some(fact.value),
            // A constant's low bits.
            Width::Full => fact
                .value
                .single(self.threads)
                .map(|c| Value::constant(c & 0xFFFF_FFFF)),
        }
    }

    /// `r`'s value as a 32-bit unsigned integer, any one where unknown
    /// (a mask, a remainder or a shift still bounds what it gives).
    fn low32_or_any(&self, r: Reg) -> Value {
        self.low32(r).unwrap_or(Value::Range {
            lo: 0,
            hi: i128::from(u32::MAX),
            align: 1,
        })
    }

    /// `v` as a 32-bit result, if it never wraps.
    fn result32(&self, v: Option<Value>) -> Option<Fact> {
        let v = v?;
        let (lo, hi) = v.bounds(self.threads);
        (lo >= 0 && hi <= i128::from(u32::MAX)).then_some(Fact {
            value: v,
            width: Width::Low32,
        })
    }

    /// `v` as a 64-bit result, if it stays below 2^63.
    fn result64(&self, v: Option<Value>) -> Option<Fact> {
        let v = v?;
        let (lo, hi) = v.bounds(self.threads);
        (lo >= 0 && hi < 1 << 63).then_some(Fact {
            value: v,
            width: Width::Full,
        })
    }

    /// The 32-bit operation `op` on `a` and `b`, where it cannot wrap.
    fn op32(&self, op: Op32, a: Value, b: Value) -> Option<Fact> {
        let t = self.threads;
        let (alo, ahi) = a.bounds(t);
        let (blo, bhi) = b.bounds(t);
        let range = |lo: i128, hi: i128, align: i128| Some(Value::Range { lo, hi, align });
        let v = match (op, a, b) {
            (Op32::Add, Value::Affine { c, k }, Value::Affine { c: d, k: j }) => {
                Some(Value::Affine {
                    c: c + d,
                    k: zip_k(k, j, |a, b| a + b),
                })
            }
            (Op32::Sub, Value::Affine { c, k }, Value::Affine { c: d, k: j }) => {
                Some(Value::Affine {
                    c: c - d,
                    k: zip_k(k, j, |a, b| a - b),
                })
            }
            (Op32::Add, ..) => range(alo + blo, ahi + bhi, a.align(t).min(b.align(t))),
            (Op32::Sub, ..) => range(alo - bhi, ahi - blo, a.align(t).min(b.align(t))),
            (Op32::Mul | Op32::Shl, ..) => {
                let factor = |v: Value| {
                    let c = v.single(t)?;
                    match op {
                        Op32::Shl => (c < 32).then(|| 1i128 << c),
                        _ => Some(c),
                    }
                };
                let scale = |v: Value, m: i128| match v {
                    Value::Affine { c, k } => Value::Affine {
                        c: c * m,
                        k: k.map(|k| k * m),
                    },
                    Value::Range { lo, hi, align } => Value::Range {
                        lo: lo * m,
                        hi: hi * m,
                        align: (align * low_bit(m)).min(ALIGN_MAX),
                    },
                };
                match (factor(b), factor(a)) {
                    (Some(m), _) => Some(scale(a, m)),
                    (None, Some(m)) if op == Op32::Mul => Some(scale(b, m)),
                    _ => None,
                }
            }
            (Op32::And, ..) => {
                // Below the smaller operand, a multiple of either's divisor.
                let hi = ahi.min(bhi);
                range(0, hi, a.align(t).max(b.align(t)).min(ALIGN_MAX))
            }
            (Op32::ShrU, _, _) => {
                let s = b.single(t).filter(|s| (0..32).contains(s))?;
                range(alo >> s, ahi >> s, (a.align(t) >> s).max(1))
            }
            (Op32::UDiv, _, _) => {
                let m = b.single(t).filter(|&m| m > 0)?;
                range(alo / m, ahi / m, 1)
            }
            (Op32::URem, _, _) => {
                let m = b.single(t).filter(|&m| m > 0)?;
                if ahi < m { Some(a) } else { range(0, m - 1, 1) }
            }
            (Op32::UMin, ..) => range(alo.min(blo), ahi.min(bhi), a.align(t).min(b.align(t))),
            (Op32::UMax, ..) => range(alo.max(blo), ahi.max(bhi), a.align(t).min(b.align(t))),
            (Op32::Or | Op32::Xor, ..) => {
                // Below the next power of two past both.
                let top = u128::try_from(ahi.max(bhi).max(0)).ok()?;
                let ceiling = (top + 1).checked_next_power_of_two()? - 1;
                range(0, i128::try_from(ceiling).ok()?, 1)
            }
            _ => None,
        };
        self.result32(v)
    }

    /// The fact an instruction gives the register it writes, if any.
    fn of(&self, inst: &Inst) -> Option<(Reg, Option<Fact>)> {
        let t = self.threads;
        Some(match *inst {
            Inst::Const { dst, bits } => (dst, self.result64(Some(Value::constant(bits.into())))),
            Inst::Wave {
                op: WaveOp::GetLaneIndex,
                dst,
                ..
            } => {
                // An active lane's index.
                let lanes = Value::Range {
                    lo: 0,
                    hi: self.lanes - 1,
                    align: 1,
                };
                (dst, self.result32(Some(lanes)))
            }
            Inst::Wave {
                op: WaveOp::GetLaneCount,
                dst,
                ..
            } => (dst, self.result32(Some(Value::constant(self.wave)))),
            Inst::Copy { dst, src } => (dst, self.get(src)),
            Inst::Binary {
                dst,
                a,
                b,
                masked: false,
                op32: Some(op),
                math: None,
                form,
                ..
            } if narrow(form) => (
                dst,
                self.op32(op, self.low32_or_any(a), self.low32_or_any(b)),
            ),
            Inst::BinaryImm {
                dst,
                a,
                imm,
                masked: false,
                op32: Some(op),
                form,
                ..
            } if narrow(form) => {
                let b = Value::constant(i128::from(imm & 0xFFFF_FFFF));
                (dst, self.op32(op, self.low32_or_any(a), b))
            }
            Inst::Select {
                dst,
                a,
                b,
                masked: false,
                ..
            } => {
                let (fa, fb) = (self.get(a)?, self.get(b)?);
                if fa.width != fb.width {
                    return Some((dst, None));
                }
                let (alo, ahi) = fa.value.bounds(t);
                let (blo, bhi) = fb.value.bounds(t);
                let value = Value::Range {
                    lo: alo.min(blo),
                    hi: ahi.max(bhi),
                    align: fa.value.align(t).min(fb.value.align(t)),
                };
                (dst, Some(Fact { value, ..fa }))
            }
            Inst::IndexScale {
                dst,
                index,
                index_ty,
                scale,
                base,
            } => {
                let i = self.low32(index);
                // An `int` index is its unsigned value where that is below 2^31.
                let i = match index_ty {
                    ScalarType::UInt32 => i,
                    ScalarType::Int32 => i.filter(|v| v.bounds(t).1 < 1 << 31),
                    _ => None,
                };
                let scaled = i.and_then(|i| self.op32_free_mul(i, i128::from(scale)));
                let v = match base {
                    None => scaled,
                    Some(b) => match (scaled, self.get(b)) {
                        (
                            Some(s),
                            Some(Fact {
                                value,
                                width: Width::Full,
                            }),
                        ) => add(s, value, t),
                        _ => None,
                    },
                };
                (dst, self.result64(v))
            }
            _ => return None,
        })
    }

    /// `v * m` with no width limit (index scaling is 64-bit).
    fn op32_free_mul(&self, v: Value, m: i128) -> Option<Value> {
        Some(match v {
            Value::Affine { c, k } => {
                let mut scaled = [0; DIMS];
                for (s, k) in scaled.iter_mut().zip(k) {
                    *s = k.checked_mul(m)?;
                }
                Value::Affine {
                    c: c.checked_mul(m)?,
                    k: scaled,
                }
            }
            Value::Range { lo, hi, align } => Value::Range {
                lo: lo.checked_mul(m)?,
                hi: hi.checked_mul(m)?,
                align: (align.checked_mul(low_bit(m))?).min(ALIGN_MAX),
            },
        })
    }

    /// The byte address of `addr` over the dispatch, if it is bounded.
    fn address(&self, addr: Address) -> Option<Value> {
        let offset = Value::constant(i128::from(addr.offset));
        match addr.dynamic {
            None => Some(offset),
            Some(r) => {
                let fact = self.get(r)?;
                let v = match fact.width {
                    Width::Full => fact.value,
                    Width::Low32 => return None,
                };
                add(v, offset, self.threads)
            }
        }
    }

    /// Whether an access of `size` bytes at `addr` is in bounds and
    /// aligned for every thread, in a memory of `len` bytes.
    fn in_bounds(&self, addr: Address, size: u32, len: u64) -> bool {
        let Some(at) = self.address(addr) else {
            return false;
        };
        let (lo, hi) = at.bounds(self.threads);
        let align = i128::from(size.clamp(1, 4));
        lo >= 0 && hi + i128::from(size) <= i128::from(len) && at.align(self.threads) % align == 0
    }
}

/// `a + b`.
fn add(a: Value, b: Value, t: Threads) -> Option<Value> {
    Some(match (a, b) {
        (Value::Affine { c, k }, Value::Affine { c: d, k: j }) => Value::Affine {
            c: c + d,
            k: zip_k(k, j, |a, b| a + b),
        },
        _ => {
            let (alo, ahi) = a.bounds(t);
            let (blo, bhi) = b.bounds(t);
            Value::Range {
                lo: alo + blo,
                hi: ahi + bhi,
                align: a.align(t).min(b.align(t)),
            }
        }
    })
}

/// An operation on 32-bit integers.
fn narrow(form: Option<OpForm>) -> bool {
    match form {
        None => true,
        Some(OpForm::Binary(_, ty)) => matches!(ty, ScalarType::UInt32 | ScalarType::Int32),
        Some(_) => false,
    }
}

/// Whether checked mode checks which lanes `op` reads, or that their quads
/// are whole.
fn reads_lanes(op: WaveOp) -> bool {
    matches!(
        op,
        WaveOp::ReadLaneAt
            | WaveOp::QuadReadAcrossX
            | WaveOp::QuadReadAcrossY
            | WaveOp::QuadReadAcrossDiagonal
            | WaveOp::QuadReadLaneAt
            | WaveOp::QuadAny
            | WaveOp::QuadAll
    )
}

/// Whether checked mode could report something at `inst` that the proof
/// does not settle from the addresses.
fn checked_at_run_time(inst: &Inst) -> bool {
    match *inst {
        Inst::CheckDiscardedRead { .. } | Inst::TexelAddress { .. } | Inst::MultiPrefix { .. } => {
            true
        }
        Inst::Wave4 { op, .. } => reads_lanes(op),
        Inst::Atomic { addr, .. } => addr.space == Space::Groupshared,
        _ => false,
    }
}

impl Program {
    /// Proves that a dispatch of `groups` groups at `wave_size` runs
    /// without anything checked mode reports, where resource `r`'s memory
    /// holds `lengths[r]` bytes; `None` where the proof fails. For checked
    /// programs only.
    pub fn prove_clean(&self, wave_size: u32, groups: [u32; 3], lengths: &[u64]) -> Option<Proof> {
        if !self.checked || self.code.iter().any(checked_at_run_time) {
            return None;
        }
        let extent = self.group.extent(wave_size);
        let threads = Threads {
            ids: std::array::from_fn(|d| match d {
                0..3 => i128::from(groups[d]) * i128::from(extent[d]),
                _ => i128::from(extent[d - 3]),
            }),
        };
        // At the entry point's level, before any lane leaves it, lanes
        // `0..full` of every wave are active: the last wave of a group
        // holds what is left of its threads.
        let group: i128 = extent.iter().map(|&e| i128::from(e)).product();
        let wave = i128::from(wave_size);
        let full = match group % wave {
            0 => wave,
            rest => rest,
        };
        let mut facts = Facts {
            facts: vec![None; self.reg_count as usize],
            threads,
            lanes: wave.min(group),
            wave,
        };
        for &(r, bits) in &self.constants {
            let fact = facts.result64(Some(Value::constant(bits.into())));
            facts.set(r.0, fact);
        }
        for (r, fact) in inputs(self, extent, groups) {
            facts.set(r, Some(fact));
        }
        let code = &self.code;
        // The registers each open construct wrote so far, outermost first.
        let mut written: Vec<Vec<u32>> = vec![Vec::new()];
        let mut undefined = Undefined::new(self.reg_count as usize);
        // Per resource: its stores as (address, size).
        let mut stores: Vec<Vec<(Value, u32)>> = vec![Vec::new(); lengths.len()];
        let mut atomics = vec![false; lengths.len()];
        let mut writers: Vec<Vec<Span>> = vec![Vec::new(); lengths.len()];
        let mut shared = Shared::default();
        // The entry point's own level, and whether some lanes may have left
        // it.
        let top = usize::from(matches!(code.first(), Some(Inst::CallBegin)));
        let mut left = false;
        for (pc, inst) in code.iter().enumerate() {
            let frame = written.len() - 1;
            match *inst {
                Inst::IfBegin { .. } | Inst::SwitchBegin | Inst::CallBegin => {
                    written.push(Vec::new());
                    undefined.open(code, pc);
                }
                Inst::LoopBegin => {
                    written.push(Vec::new());
                    undefined.open(code, pc);
                    for r in loop_writes(code, pc) {
                        facts.set(r, None);
                    }
                }
                Inst::Else { .. } | Inst::SwitchCase { .. } | Inst::LoopContinuing => {
                    undefined.meet();
                    for &r in &written[frame] {
                        facts.set(r, None);
                    }
                }
                Inst::IfEnd | Inst::LoopEnd | Inst::SwitchEnd | Inst::CallEnd if frame > 0 => {
                    undefined.close();
                    let inner = written.pop().unwrap_or_default();
                    for &r in &inner {
                        facts.set(r, None);
                    }
                    written[frame - 1].extend(inner);
                }
                // A divisor that no thread makes 0.
                Inst::CheckDivisor { divisor } => {
                    let nonzero = facts
                        .low32(divisor)
                        .is_some_and(|v| v.bounds(threads).0 > 0);
                    if !nonzero {
                        return None;
                    }
                }
                Inst::Return { frame: 0 } | Inst::LeaveIf { frame: 0, .. } => left = true,
                // Lanes read from, and quads, that are active.
                Inst::Wave { op, b, .. } if reads_lanes(op) => {
                    if frame != top || left {
                        return None;
                    }
                    if op == WaveOp::ReadLaneAt {
                        let (lo, hi) = facts.low32(b)?.bounds(threads);
                        if lo < 0 || hi >= full {
                            return None;
                        }
                    } else if full % 4 != 0 {
                        return None;
                    }
                }
                // Every lane of the group arrives, and the phase it ends
                // has no race.
                Inst::Barrier if frame != top || left || !shared.end_phase(threads) => {
                    return None;
                }
                Inst::Exit if !shared.end_phase(threads) => return None,
                Inst::Load { addr, ty, .. } | Inst::Store { addr, ty, .. }
                    if addr.space == Space::Groupshared =>
                {
                    let size = ty.size();
                    if !facts.in_bounds(addr, size, u64::from(self.groupshared_bytes)) {
                        return None;
                    }
                    let at = facts.address(addr)?;
                    if matches!(inst, Inst::Load { .. }) {
                        if !shared.initialized(at, size, threads) {
                            return None;
                        }
                        shared.reads = true;
                    } else {
                        let everywhere = frame == top && !left;
                        shared.writes.push((at, size, !everywhere));
                    }
                }
                Inst::Load { addr, ty, .. }
                | Inst::Store { addr, ty, .. }
                | Inst::Atomic { addr, ty, .. } => {
                    let Space::Resource(id) = addr.space else {
                        return None;
                    };
                    if !self.buffers.get(id.index()).copied().unwrap_or(false) {
                        return None;
                    }
                    let len = *lengths.get(id.index())?;
                    if !facts.in_bounds(addr, ty.size(), len) {
                        return None;
                    }
                    let r = id.index();
                    let span = self.spans.get(pc).copied();
                    match *inst {
                        Inst::Store { .. } => {
                            // A store in a loop writes the same bytes each
                            // time round: its address's fact holds nothing
                            // the loop changes.
                            stores[r].push((facts.address(addr)?, ty.size()));
                        }
                        Inst::Atomic { .. } => atomics[r] = true,
                        _ => {}
                    }
                    if !matches!(inst, Inst::Load { .. })
                        && let Some(span) = span
                        && !writers[r].contains(&span)
                    {
                        writers[r].push(span);
                    }
                }
                _ => {}
            }
            if !undefined.step(inst) {
                return None;
            }
            let given = facts.of(inst);
            let frame = written.len() - 1;
            inst.for_each_write(|r| {
                facts.set(r, None);
                written[frame].push(r);
            });
            if let Some((dst, fact)) = given {
                facts.set(dst.0, fact);
            }
        }
        let overwritten = stores.iter().zip(&atomics).any(|(stores, &atomic)| {
            !stores.is_empty() && (atomic || !one_to_one(stores, threads, 0..3))
        });
        Some(Proof {
            writers,
            overwritten,
        })
    }
}

/// The registers that may hold an undefined value (an uninitialized
/// variable's) on some lane that reads them, in program order. A register
/// turns undefined only at an `Uninitialized`. Where the two branches of an
/// `if` meet, a register is undefined if it is at the end of either (or,
/// without an `else`, at the start); where the paths of other constructs
/// meet (a `case`, a loop's continuing block or start, their ends),
/// everything undefined at the construct's start or made undefined in it
/// counts as undefined.
struct Undefined {
    now: Vec<bool>,
    /// Per open construct, what its paths bring where they meet.
    frames: Vec<Paths>,
}

enum Paths {
    /// An `if`: the state at its start, and at the end of its first branch
    /// once the `else` is reached.
    If {
        entry: Vec<bool>,
        then_end: Option<Vec<bool>>,
    },
    /// Another construct: everything undefined at its start or in it.
    Any(Vec<bool>),
}

/// `now[r] |= other[r]` for every register.
fn union(now: &mut [bool], other: &[bool]) {
    for (now, &o) in now.iter_mut().zip(other) {
        *now |= o;
    }
}

impl Undefined {
    fn new(regs: usize) -> Undefined {
        Undefined {
            now: vec![false; regs],
            frames: Vec::new(),
        }
    }

    /// A construct opens at `pc`; a loop's start is also reached from its
    /// end, with what its body made undefined.
    fn open(&mut self, code: &[Inst], pc: usize) {
        let mut any = self.now.clone();
        match code[pc] {
            Inst::IfBegin { .. } => {
                self.frames.push(Paths::If {
                    entry: any,
                    then_end: None,
                });
                return;
            }
            Inst::LoopBegin => {
                for inst in loop_body(code, pc) {
                    if let Inst::Uninitialized { dst } = *inst {
                        set(&mut any, dst.0);
                    }
                }
                self.now.clone_from(&any);
            }
            _ => {}
        }
        self.frames.push(Paths::Any(any));
    }

    /// Paths of the innermost construct meet: an `else`, a `case`, a
    /// loop's continuing block.
    fn meet(&mut self) {
        match self.frames.last_mut() {
            Some(Paths::If { entry, then_end }) => {
                *then_end = Some(std::mem::replace(&mut self.now, entry.clone()));
            }
            Some(Paths::Any(any)) => union(&mut self.now, any),
            None => {}
        }
    }

    /// The innermost construct ends.
    fn close(&mut self) {
        match self.frames.pop() {
            Some(Paths::If {
                then_end: Some(other),
                ..
            })
            | Some(Paths::If {
                entry: other,
                then_end: None,
            })
            | Some(Paths::Any(other)) => union(&mut self.now, &other),
            None => {}
        }
    }

    /// `inst` runs: `false` where it may read an undefined register.
    fn step(&mut self, inst: &Inst) -> bool {
        let mut clean = true;
        for_each_read(inst, |r| {
            clean &= !self.now.get(r as usize).copied().unwrap_or(true)
        });
        if let Inst::Uninitialized { dst } = *inst {
            set(&mut self.now, dst.0);
            for frame in &mut self.frames {
                match frame {
                    Paths::If { entry, then_end } => {
                        set(entry, dst.0);
                        if let Some(t) = then_end {
                            set(t, dst.0);
                        }
                    }
                    Paths::Any(any) => set(any, dst.0),
                }
            }
        } else {
            inst.for_each_write(|r| {
                if let Some(u) = self.now.get_mut(r as usize) {
                    *u = false;
                }
            });
        }
        clean
    }
}

fn set(bits: &mut [bool], r: u32) {
    if let Some(b) = bits.get_mut(r as usize) {
        *b = true;
    }
}

/// Calls `f` on each register `inst` reads.
fn for_each_read(inst: &Inst, mut f: impl FnMut(u32)) {
    match *inst {
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
            let mut skip = inst.single_dst().is_some();
            inst.for_each_reg_ref(|r| {
                if !std::mem::take(&mut skip) {
                    f(r.0);
                }
            });
        }
    }
}

/// Groupshared memory between barriers.
#[derive(Default)]
struct Shared {
    /// The phase's stores: (address, size, not run by every thread).
    writes: Vec<(Value, u32, bool)>,
    /// Whether the phase loads.
    reads: bool,
    /// Byte ranges that every thread of a group wrote in an earlier phase.
    covered: Vec<(i128, i128)>,
}

impl Shared {
    /// A barrier or the end: `false` where two waves of a group may touch
    /// one word in the phase it ends, one of them writing (a phase that
    /// both stores and loads counts as such). What every thread stored
    /// counts as written from here on.
    fn end_phase(&mut self, t: Threads) -> bool {
        let writes = std::mem::take(&mut self.writes);
        let reads = std::mem::take(&mut self.reads);
        if writes.is_empty() {
            return true;
        }
        // Stores by a thread that may not run them still touch only their
        // thread's words.
        let once: Vec<(Value, u32)> = writes.iter().map(|&(v, n, _)| (v, n)).collect();
        if reads || !one_to_one(&once, t, 3..DIMS) {
            return false;
        }
        if writes.iter().all(|&(_, _, partial)| !partial)
            && let Some(range) = dense(&writes, t)
        {
            self.covered.push(range);
        }
        true
    }

    /// Whether every byte a load of `size` at `at` may read was covered.
    fn initialized(&self, at: Value, size: u32, t: Threads) -> bool {
        let (lo, hi) = at.bounds(t);
        let end = hi + i128::from(size);
        self.covered.iter().any(|&(a, b)| a <= lo && end <= b)
    }
}

/// The bytes that one-to-one stores, run by every thread of a group, cover
/// with no gap: each coordinate's step (up or down) the span of all the
/// lower ones, the pieces of one thread side by side.
fn dense(writes: &[(Value, u32, bool)], t: Threads) -> Option<(i128, i128)> {
    let mut pieces: Vec<(i128, i128)> = Vec::new();
    let mut k = [0; DIMS];
    for &(at, size, _) in writes {
        let Value::Affine { c, k: j } = at else {
            return None;
        };
        k = j;
        pieces.push((c, c + i128::from(size)));
    }
    pieces.sort_unstable();
    if pieces.windows(2).any(|w| w[1].0 != w[0].1) {
        return None;
    }
    let (mut start, mut span) = (pieces.first()?.0, pieces.last()?.1 - pieces.first()?.0);
    let mut steps: Vec<(i128, i128)> = (3..DIMS)
        .map(|d| (k[d], t.ids[d]))
        .filter(|&(_, n)| n > 1)
        .collect();
    steps.sort_unstable_by_key(|&(step, _)| step.abs());
    for (step, n) in steps {
        if step.abs() != span {
            return None;
        }
        // A step down starts the range lower.
        start += (step * (n - 1)).min(0);
        span *= n;
    }
    Some((start, start + span))
}

/// Whether the stores of one memory, `(address, size)`, write each word
/// from at most one of the threads that `dims` tell apart
/// (`SV_DispatchThreadID`'s for a dispatch, `SV_GroupThreadID`'s for a
/// group), however often each runs (a store in a loop has an address the
/// loop does not change: facts hold nothing it writes): every address the
/// same affine function of those coordinates alone up to a constant, and
/// the threads' spans of bytes apart (each coordinate's step past all the
/// lower ones' reach).
fn one_to_one(stores: &[(Value, u32)], t: Threads, dims: std::ops::Range<usize>) -> bool {
    let mut pieces: Vec<(i128, i128)> = Vec::new();
    let mut common = None;
    for &(at, size) in stores {
        let Value::Affine { c, k } = at else {
            return false;
        };
        let others = (0..DIMS).any(|d| !dims.contains(&d) && k[d] != 0 && t.ids[d] > 1);
        if others || common.is_some_and(|j| j != k) {
            return false;
        }
        common = Some(k);
        pieces.push((c, c + i128::from(size)));
    }
    pieces.sort_unstable();
    let (Some(first), Some(last)) = (pieces.first(), pieces.iter().map(|p| p.1).max()) else {
        return true;
    };
    let span = last - first.0;
    let k = common.unwrap_or([0; DIMS]);
    let mut steps: Vec<(i128, i128)> = dims
        .map(|d| (k[d].abs(), t.ids[d]))
        .filter(|&(_, n)| n > 1)
        .collect();
    steps.sort_unstable();
    let mut reach = 0;
    for (k, n) in steps {
        if k < span + reach {
            return false;
        }
        reach += k * (n - 1);
    }
    true
}

/// The system values' facts: `SV_DispatchThreadID` itself, the others
/// their ranges over a group of `extent` threads and `groups` groups.
fn inputs(p: &Program, extent: [u32; 3], groups: [u32; 3]) -> Vec<(u32, Fact)> {
    let range = |n: u32| Value::Range {
        lo: 0,
        hi: i128::from(n.max(1)) - 1,
        align: 1,
    };
    let mut facts = Vec::new();
    for input in &p.inputs {
        if !matches!(input.ty, ScalarType::UInt32 | ScalarType::Int32) {
            continue;
        }
        for &(k, reg) in &input.regs {
            let unit = |d: usize| {
                let mut k = [0; DIMS];
                k[d] = 1;
                Value::Affine { c: 0, k }
            };
            let value = match (input.sv, k) {
                (SystemValue::DispatchThreadId, 0..=2) => unit(k),
                (SystemValue::GroupThreadId, 0..=2) => unit(3 + k),
                (SystemValue::GroupId, 0..=2) => range(groups[k]),
                // x + y·width + z·width·height.
                (SystemValue::GroupIndex, 0) => {
                    let [x, y, _] = extent.map(|e| i128::from(e.max(1)));
                    let mut k = [0; DIMS];
                    k[3..].copy_from_slice(&[1, x, x * y]);
                    Value::Affine { c: 0, k }
                }
                _ => continue,
            };
            facts.push((
                reg.0,
                Fact {
                    value,
                    width: Width::Low32,
                },
            ));
        }
    }
    facts
}
