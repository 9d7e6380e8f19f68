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
//! - discarded-lane reads and textures;
//! - accesses out of bounds or misaligned: every load, store and atomic
//!   must have a byte address bounded over every thread that may run it;
//! - groupshared memory: barriers only where every lane of the group
//!   arrives (the entry point's own level, in loops walked round by round,
//!   with no lane gone); between two barriers, stores one-to-one in the
//!   thread, loads and atomics that touch either their own thread's stored
//!   words or words no store of the phase touches, and loads only of words
//!   that a phase before stored for every thread of the group (no race,
//!   nothing uninitialized).
//!
//! Where it cannot settle groupshared memory, a divisor, a lane read or a
//! barrier, but every group meets it alike (each address or value, and each
//! condition of the constructs around it, computed from the group's own
//! thread coordinates, wave queries and constants: `State::alike`, drawn in
//! program order, loops walked once to a fixpoint), the proof leaves it to a
//! checked run of one group (`Proof::group_check`).
//!
//! The walk goes through the code in order. A branch whose condition every
//! thread holds alike takes its one branch; a loop whose exits all threads
//! take alike is walked round by round (up to a budget, else once, with
//! what it changes dropped); other constructs are walked once, every path.
//! A branch on a comparison of one thread coordinate with a constant
//! narrows the threads it runs on to a box, for the accesses in it.
//!
//! Addresses are bounded by an abstract value per register, drawn in
//! program order as `native::consecutive` draws its facts (and dropped
//! at the same construct boundaries): an exact affine function of
//! `SV_DispatchThreadID` and `SV_GroupThreadID`, or a range of integers
//! with a known power-of-two divisor. System values, constants, 32-bit
//! integer arithmetic that cannot wrap over the threads, index scaling and
//! reads of other lanes' integers give them; anything else gives none.
//!
//! It also gives what checked mode records of the writes: which
//! instructions write each resource, and whether a word may be stored
//! by two threads (ruled out only where every address is one-to-one in
//! the thread).

use lockstep_ir::{ScalarType, Span, SystemValue, WaveOp};

use crate::bytecode::{
    Address, Cmp32, Inst, Lanes, Op32, OpForm, Reg, Space, Test, loop_body, loop_writes,
};
use crate::compile::Program;

mod alike;

use alike::{Varied, alike_inputs, computes_alike, is_alike, leaves, loop_alike, test_alike};

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
    /// Whether some of it is left to one group's checked run: groupshared
    /// memory, a divisor, a lane read or a barrier the proof could not
    /// settle, but that every group meets alike (see `State::alike`), so
    /// that a checked run of one group that reports nothing settles it for
    /// all.
    pub group_check: bool,
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
/// then `SV_GroupThreadID`'s ([`GROUP_THREAD`]), then `SV_GroupID`'s.
const DIMS: usize = 9;

/// The coordinates of `SV_GroupThreadID`: a thread's within its group.
const GROUP_THREAD: std::ops::Range<usize> = 3..6;

/// The threads the proof is for: per coordinate, `lo..lo + ids` (the
/// whole dispatch, or those that a branch on a coordinate narrows it to).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Threads {
    /// How many values each coordinate takes: `SV_DispatchThreadID`'s per
    /// dimension, then the group's.
    ids: [i128; DIMS],
    /// The least of each.
    lo: [i128; DIMS],
}

/// `f` of each coordinate's coefficients.
fn zip_k(k: [i128; DIMS], j: [i128; DIMS], f: impl Fn(i128, i128) -> i128) -> [i128; DIMS] {
    std::array::from_fn(|d| f(k[d], j[d]))
}

impl Threads {
    /// The least box that holds both `self`'s threads and `other`'s.
    fn hull(self, other: Threads) -> Threads {
        let mut t = self;
        for d in 0..DIMS {
            let lo = self.lo[d].min(other.lo[d]);
            let hi = (self.lo[d] + self.ids[d]).max(other.lo[d] + other.ids[d]);
            t.lo[d] = lo;
            t.ids[d] = hi - lo;
        }
        t
    }
}

impl Value {
    fn constant(c: i128) -> Value {
        Value::Affine { c, k: [0; DIMS] }
    }

    /// The value with `t`'s coordinates counted from their least: an
    /// affine value's constant takes in what they add there.
    fn rebase(self, t: Threads) -> Value {
        match self {
            Value::Affine { c, k } => Value::Affine {
                c: c + (0..DIMS).map(|d| k[d] * t.lo[d]).sum::<i128>(),
                k,
            },
            range => range,
        }
    }

    /// The least and greatest value over the threads.
    fn bounds(self, t: Threads) -> (i128, i128) {
        match self.rebase(t) {
            Value::Affine { c, k } => k.iter().zip(t.ids).fold((c, c), |(lo, hi), (&k, n)| {
                let far = k * (n - 1).max(0);
                (lo + far.min(0), hi + far.max(0))
            }),
            Value::Range { lo, hi, .. } => (lo, hi),
        }
    }

    /// A power of two that divides every value.
    fn align(self, t: Threads) -> i128 {
        match self.rebase(t) {
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
#[derive(Clone, Debug)]
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

    /// `v`, as a constant where every thread holds the same value.
    fn exact(&self, v: Value) -> Value {
        v.single(self.threads).map_or(v, Value::constant)
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
        let v = self.exact(v?);
        let (lo, hi) = v.bounds(self.threads);
        (lo >= 0 && hi <= i128::from(u32::MAX)).then_some(Fact {
            value: v,
            width: Width::Low32,
        })
    }

    /// `v` as a 64-bit result, if it stays below 2^63.
    fn result64(&self, v: Option<Value>) -> Option<Fact> {
        let v = self.exact(v?);
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
            (Op32::ShrU, _, _) | (Op32::ShrS, _, _) if op == Op32::ShrU || ahi < 1 << 31 => {
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
            // Some lane's value of `a`.
            Inst::Wave {
                op:
                    WaveOp::ReadLaneFirst
                    | WaveOp::ReadLaneAt
                    | WaveOp::Min
                    | WaveOp::Max
                    | WaveOp::QuadReadAcrossX
                    | WaveOp::QuadReadAcrossY
                    | WaveOp::QuadReadAcrossDiagonal
                    | WaveOp::QuadReadLaneAt,
                ty: ScalarType::UInt32 | ScalarType::Int32,
                dst,
                a,
                ..
            } => {
                let v = self.low32(a).map(|v| match v {
                    // A function of the group alone is every lane's value.
                    Value::Affine { k, .. } if k[..GROUP_THREAD.end].iter().all(|&k| k == 0) => v,
                    _ => {
                        let (lo, hi) = v.bounds(t);
                        Value::Range {
                            lo,
                            hi,
                            align: v.align(t),
                        }
                    }
                });
                (dst, self.result32(v))
            }
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
                3..6 => i128::from(extent[d - 3]),
                _ => i128::from(groups[d - 6]),
            }),
            lo: [0; DIMS],
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
        for (r, fact) in inputs(self, extent) {
            facts.set(r, Some(fact));
        }
        let state = State {
            facts,
            conds: vec![None; self.reg_count as usize],
            written: vec![Vec::new()],
            alike: alike_inputs(self),
            varied: vec![Varied::default()],
            shared_varies: false,
            control: Vec::new(),
            undefined: Undefined::new(self.reg_count as usize),
            stores: vec![Vec::new(); lengths.len()],
            atomics: vec![false; lengths.len()],
            writers: vec![Vec::new(); lengths.len()],
            shared: Shared::default(),
            left: false,
            deferred: false,
        };
        let mut walk = Walk {
            program: self,
            lengths,
            threads,
            full,
            top: usize::from(matches!(self.code.first(), Some(Inst::CallBegin))),
            open_loops: Vec::new(),
            budget: UNROLL_BUDGET,
        };
        let state = walk.run(state)?;
        if state.deferred && state.shared_varies {
            return None;
        }
        let overwritten = state
            .stores
            .iter()
            .zip(&state.atomics)
            .any(|(stores, &atomic)| {
                // One-to-one in `SV_DispatchThreadID`, or in the group and
                // the thread within it.
                !stores.is_empty()
                    && (atomic
                        || !(one_to_one(stores, threads, 0..3)
                            || one_to_one(stores, threads, 3..DIMS)))
            });
        Some(Proof {
            writers: state.writers,
            overwritten,
            group_check: state.deferred,
        })
    }
}

/// How many instructions the proof walks in unrolled loops, over the whole
/// program, before it walks the rest of them once each.
const UNROLL_BUDGET: usize = 1 << 16;

/// What the proof knows of a branch condition, per register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cond {
    /// Every thread holds it alike: whether it holds.
    Known(bool),
    /// It holds exactly on the threads whose coordinate `d` is in
    /// `lo..hi`.
    Within { d: usize, lo: i128, hi: i128 },
}

/// An open construct, as the proof walks it.
// As many as constructs nest: their size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
enum Control {
    /// Walked once, every path (an `if` both ways, a loop one round with
    /// the facts it changes dropped), with a frame of `written` and of
    /// `undefined`; for an `if`, the threads before it and those its
    /// `else` runs on, and whether the branch walked, and the `else`, run
    /// on exactly the threads of a group that the facts' threads count
    /// (a branch on a group coordinate below a bound).
    Open {
        threads: Threads,
        otherwise: Threads,
        exact: bool,
        exact_otherwise: bool,
        /// Whether the lanes that run its code are alike in every group
        /// (see `State::alike`).
        alike: bool,
    },
    /// An `if` that every thread takes alike: the one branch it takes.
    Taken,
    /// A loop whose exits every thread takes alike, walked round by
    /// round: where it starts, and the state there, for walking it once
    /// instead where that fails.
    Unrolled { begin: usize, before: Box<State> },
}

/// The proof's state as it walks the program.
#[derive(Clone, Debug)]
struct State {
    facts: Facts,
    /// What each register says as a branch condition.
    conds: Vec<Option<Cond>>,
    /// The registers each open `Open` construct wrote so far (and the
    /// entry's level first).
    written: Vec<Vec<u32>>,
    /// The open constructs, outermost first: the frames the bytecode's
    /// `FrameDepth` counts.
    control: Vec<Control>,
    undefined: Undefined,
    /// Per resource: its stores as (address, size).
    stores: Vec<Vec<(Value, u32)>>,
    atomics: Vec<bool>,
    writers: Vec<Vec<Span>>,
    shared: Shared,
    /// Whether some lanes may have left the entry point.
    left: bool,
    /// Whether something was left to one group's checked run
    /// (`Proof::group_check`).
    deferred: bool,
    /// Per register, whether every group computes it alike: from its own
    /// thread coordinates, wave queries, wave operations on such values and
    /// constants, with no memory read and no group or dispatch coordinate,
    /// on lanes that every group runs alike (where every construct around
    /// it branches, loops and leaves on such values).
    alike: Vec<bool>,
    /// Per frame of `written`, what its construct's paths make of `alike`.
    varied: Vec<Varied>,
    /// Whether some groupshared access may differ between groups: its
    /// address, or the lanes that run it.
    shared_varies: bool,
}

/// The walk over a program's code.
struct Walk<'a> {
    program: &'a Program,
    lengths: &'a [u64],
    /// Every thread of the dispatch.
    threads: Threads,
    /// The lanes every wave fills.
    full: i128,
    /// The entry point's own level in `State::written`.
    top: usize,
    /// Loops that failed to unroll, by their `LoopBegin`.
    open_loops: Vec<usize>,
    /// Instructions left to walk in unrolled loops.
    budget: usize,
}

/// Where the walk goes after an instruction.
enum Next {
    Pc(usize),
    /// Back to the `LoopBegin` of the innermost unrolled loop, walking it
    /// once instead.
    Reopen,
}

impl Walk<'_> {
    /// Walks the code from the start; `None` where the proof fails.
    fn run(&mut self, mut state: State) -> Option<State> {
        let code = &self.program.code;
        let mut pc = 0;
        while pc < code.len() {
            let unrolling = state
                .control
                .iter()
                .any(|c| matches!(c, Control::Unrolled { .. }));
            if unrolling {
                self.budget = self.budget.saturating_sub(1);
            }
            let next = if unrolling && self.budget == 0 {
                Next::Reopen
            } else {
                self.step(&mut state, pc)?
            };
            pc = match next {
                Next::Pc(next) => next,
                Next::Reopen => {
                    let (begin, before) = state.control.iter().rev().find_map(|c| match c {
                        Control::Unrolled { begin, before } => Some((*begin, before.clone())),
                        _ => None,
                    })?;
                    state = *before;
                    self.open_loops.push(begin);
                    begin
                }
            };
        }
        Some(state)
    }

    /// The frame of `written` that the instructions write to.
    fn frame(state: &State) -> usize {
        state.written.len() - 1
    }

    /// Walks the instruction at `pc`.
    fn step(&mut self, state: &mut State, pc: usize) -> Option<Next> {
        let code = &self.program.code;
        let inst = &code[pc];
        let mut next = pc + 1;
        // Lanes that leave a construct on a value that may differ between
        // groups leave the rest of it to lanes that differ too.
        if let Some((frame, cond_alike)) = leaves(inst, &state.alike)
            && !(cond_alike && state.alike_here())
            && let Some(Control::Open { alike, .. }) = state.control.get_mut(frame)
        {
            *alike = false;
        }
        match *inst {
            Inst::IfBegin {
                cond,
                negate,
                else_pc,
                test,
            } => match state.branch(cond, test) {
                Some(Cond::Known(holds)) => {
                    if holds != negate {
                        state.control.push(Control::Taken);
                    } else {
                        let else_pc = else_pc as usize;
                        if matches!(code.get(else_pc), Some(Inst::Else { .. })) {
                            state.control.push(Control::Taken);
                        }
                        next = else_pc + 1;
                    }
                }
                known => {
                    let alike = state.test_alike(cond, test);
                    state.open_if(code, pc, known, negate, alike);
                }
            },
            Inst::Else { end_pc } => match state.control.last_mut() {
                Some(Control::Taken) => {
                    state.control.pop();
                    next = end_pc as usize + 1;
                }
                Some(Control::Open {
                    otherwise,
                    exact,
                    exact_otherwise,
                    ..
                }) => {
                    let otherwise = *otherwise;
                    *exact = *exact_otherwise;
                    state.meet();
                    state.facts.threads = otherwise;
                }
                _ => return None,
            },
            Inst::IfEnd => match state.control.last() {
                Some(Control::Taken) => {
                    state.control.pop();
                }
                _ => state.close()?,
            },
            Inst::SwitchBegin | Inst::CallBegin => {
                state.open(code, pc, true);
            }
            Inst::LoopBegin if !self.open_loops.contains(&pc) => {
                let before = Box::new(state.clone());
                state.control.push(Control::Unrolled { begin: pc, before });
            }
            Inst::LoopBegin => {
                let around = state.alike_here();
                let (alike, flags) =
                    loop_alike(code, pc, state.control.len(), around, &state.alike);
                state.alike = flags;
                state.open(code, pc, alike);
                for r in loop_writes(code, pc) {
                    state.facts.set(r, None);
                    state.set_cond(r, None);
                }
            }
            Inst::SwitchCase { .. } | Inst::LoopContinuing => {
                if matches!(state.control.last(), Some(Control::Open { .. })) {
                    state.meet();
                }
                if let Inst::SwitchCase { selector, .. } = *inst
                    && !state.is_alike(selector)
                    && let Some(Control::Open { alike, .. }) = state.control.last_mut()
                {
                    *alike = false;
                }
            }
            // The back edge: another round of an unrolled loop.
            Inst::Jump { target } => {
                if matches!(state.control.last(), Some(Control::Unrolled { .. })) {
                    next = target as usize;
                }
            }
            Inst::LoopEnd => match state.control.last() {
                // Every thread left the loop (the exit of `LoopIter`).
                Some(Control::Unrolled { .. }) => {
                    state.control.pop();
                }
                _ => state.close()?,
            },
            Inst::SwitchEnd | Inst::CallEnd => state.close()?,
            Inst::Break { frame } => {
                if let Some(exit) = state.leave(code, frame as usize)? {
                    return Some(exit);
                }
            }
            Inst::Continue { frame } => {
                if matches!(
                    state.control.get(frame as usize),
                    Some(Control::Unrolled { .. })
                ) {
                    return Some(Next::Reopen);
                }
            }
            Inst::LeaveIf {
                cond,
                negate,
                test,
                frame,
                to_continue,
            } => {
                let unrolled = matches!(
                    state.control.get(frame as usize),
                    Some(Control::Unrolled { .. })
                );
                match state.branch(cond, test) {
                    Some(Cond::Known(holds)) if holds == negate => {}
                    Some(Cond::Known(_)) if unrolled && !to_continue => {
                        if let Some(exit) = state.leave(code, frame as usize)? {
                            return Some(exit);
                        }
                    }
                    _ if unrolled => return Some(Next::Reopen),
                    _ if frame == 0 => state.left = true,
                    _ => {}
                }
            }
            Inst::Return { frame: 0 } => state.left = true,
            _ => {}
        }
        self.check(state, pc)?;
        state.advance(inst)?;
        Some(Next::Pc(next))
    }

    /// What checked mode would check at `pc`: `None` where the proof
    /// cannot settle it.
    fn check(&self, state: &mut State, pc: usize) -> Option<()> {
        let inst = &self.program.code[pc];
        let t = state.facts.threads;
        let uniform = Self::frame(state) == self.top && !state.left;
        // Every thread of each group's box `t` runs it.
        let exact = !state.left
            && state.control.iter().skip(self.top).all(|c| match c {
                Control::Open { exact, .. } => *exact,
                Control::Taken | Control::Unrolled { .. } => true,
            });
        match *inst {
            // A divisor that no thread makes 0.
            Inst::CheckDivisor { divisor } => {
                let nonzero = state
                    .facts
                    .low32(divisor)
                    .is_some_and(|v| v.bounds(t).0 > 0);
                if !nonzero {
                    Self::leave_to_group(state, state.is_alike(divisor))?;
                }
            }
            // Lanes read from, and quads, that are active.
            Inst::Wave { op, b, .. } if reads_lanes(op) => {
                let read = op == WaveOp::ReadLaneAt;
                let active = uniform
                    && if read {
                        state.facts.low32(b).is_some_and(|v| {
                            let (lo, hi) = v.bounds(t);
                            lo >= 0 && hi < self.full
                        })
                    } else {
                        self.full % 4 == 0
                    };
                if !active {
                    Self::leave_to_group(state, !read || state.is_alike(b))?;
                }
            }
            // Every lane of the group arrives, and the phase it ends has
            // no race.
            Inst::Barrier => {
                if !uniform {
                    Self::leave_to_group(state, true)?;
                }
                let settled = state.shared.end_phase(self.threads);
                state.settle_shared(settled);
            }
            Inst::Exit => {
                let settled = state.shared.end_phase(self.threads);
                state.settle_shared(settled);
            }
            // A local array's index within its scalars, for every thread.
            Inst::Gather { delta, limit, .. } | Inst::Scatter { delta, limit, .. } => {
                let fact = state.facts.get(delta)?;
                let v = match fact.width {
                    Width::Full => fact.value,
                    Width::Low32 => return None,
                };
                let (lo, hi) = v.bounds(t);
                (lo >= 0 && hi < i128::from(limit)).then_some(())?;
            }
            Inst::Load { addr, ty, .. }
            | Inst::Store { addr, ty, .. }
            | Inst::Atomic { addr, ty, .. }
                if addr.space == Space::Groupshared =>
            {
                let size = ty.size();
                let bytes = u64::from(self.program.groupshared_bytes);
                let alike = state.alike_here() && addr.dynamic.is_none_or(|r| state.is_alike(r));
                state.shared_varies |= !alike;
                let at = state
                    .facts
                    .address(addr)
                    .filter(|_| state.facts.in_bounds(addr, size, bytes));
                let Some(at) = at else {
                    state.settle_shared(false);
                    return Some(());
                };
                let access = (at, size, t);
                match inst {
                    Inst::Load { .. } => {
                        let initialized = state.shared.initialized(at, size, t);
                        state.settle_shared(initialized);
                        state.shared.reads.push(access);
                    }
                    Inst::Store { .. } => state.shared.writes.push((access, exact)),
                    // An atomic other than an exchange combines with what
                    // the memory held: it must have been written.
                    Inst::Atomic { op, .. } => {
                        if *op != lockstep_ir::AtomicOp::Exchange {
                            let initialized = state.shared.initialized(at, size, t);
                            state.settle_shared(initialized);
                        }
                        state.shared.atomics.push(access);
                    }
                    _ => unreachable!("a groupshared access is a load, store or atomic"),
                }
            }
            Inst::Load { addr, ty, .. }
            | Inst::Store { addr, ty, .. }
            | Inst::Atomic { addr, ty, .. } => {
                let Space::Resource(id) = addr.space else {
                    return None;
                };
                let r = id.index();
                self.program.buffers.get(r).copied()?.then_some(())?;
                let len = *self.lengths.get(r)?;
                state.facts.in_bounds(addr, ty.size(), len).then_some(())?;
                match *inst {
                    // A store in a loop walked once writes the same bytes
                    // each round: its address's fact holds nothing the loop
                    // changes.
                    Inst::Store { src, .. } => {
                        let at = state.facts.address(addr)?;
                        // No two lanes of a wave store different values at
                        // one address (`conflicting-stores`): one thread
                        // of a group runs it, it stores one value, or its
                        // addresses are apart, as a function of
                        // `SV_DispatchThreadID` or of `SV_GroupThreadID`.
                        let one_thread = t.ids[GROUP_THREAD].iter().all(|&n| n == 1);
                        let one_value = matches!(
                            state.facts.get(src).map(|f| f.value),
                            Some(Value::Affine { k, .. }) if k == [0; DIMS]
                        );
                        // Within one group, whose own coordinates are fixed.
                        let mut in_group = t;
                        in_group.ids[6..].fill(1);
                        let apart = [0..3, GROUP_THREAD]
                            .into_iter()
                            .any(|dims| one_to_one(&[(at, ty.size())], in_group, dims));
                        if !one_thread && !one_value && !apart {
                            return None;
                        }
                        state.stores[r].push((at, ty.size()));
                    }
                    Inst::Atomic { .. } => state.atomics[r] = true,
                    _ => {}
                }
                if !matches!(inst, Inst::Load { .. })
                    && let Some(&span) = self.program.spans.get(pc)
                    && !state.writers[r].contains(&span)
                {
                    state.writers[r].push(span);
                }
            }
            _ => {}
        }
        Some(())
    }
}

impl Walk<'_> {
    /// Leaves a check the proof cannot settle to one group's checked run,
    /// where every group runs it alike: on lanes alike in every group, and
    /// on values that are (`alike`); `None` otherwise.
    fn leave_to_group(state: &mut State, alike: bool) -> Option<()> {
        (alike && state.alike_here()).then_some(())?;
        state.deferred = true;
        Some(())
    }
}

impl State {
    /// Sets what register `r` says as a branch condition.
    fn set_cond(&mut self, r: u32, cond: Option<Cond>) {
        if let Some(c) = self.conds.get_mut(r as usize) {
            *c = cond;
        }
    }

    /// Groupshared memory the proof could not settle is left to one
    /// group's checked run: the proof holds only where no groupshared
    /// access differs between groups (`shared_varies`, checked at the end).
    fn settle_shared(&mut self, settled: bool) {
        self.deferred |= !settled;
    }

    /// Whether `r` holds a value every group computes alike.
    fn is_alike(&self, r: Reg) -> bool {
        is_alike(&self.alike, r)
    }

    /// Whether a branch on `cond` with `test` goes alike in every group.
    fn test_alike(&self, cond: Reg, test: Test) -> bool {
        test_alike(&self.alike, cond, test)
    }

    /// Whether the lanes here are alike in every group.
    fn alike_here(&self) -> bool {
        !self
            .control
            .iter()
            .any(|c| matches!(c, Control::Open { alike: false, .. }))
    }

    /// Opens the `if` at `pc`, walked both ways, on `cond` (negated with
    /// `negate`): each branch runs on the threads it narrows to.
    fn open_if(&mut self, code: &[Inst], pc: usize, cond: Option<Cond>, negate: bool, alike: bool) {
        let before = self.facts.threads;
        // The threads where the condition holds and where it does not,
        // each with whether it is exactly those of a group's box.
        let (holds, fails) = match cond {
            Some(Cond::Within { d, lo, hi }) => split(before, d, lo, hi),
            _ => ((before, false), (before, false)),
        };
        let ((then, exact), (otherwise, exact_otherwise)) = if negate {
            (fails, holds)
        } else {
            (holds, fails)
        };
        self.written.push(Vec::new());
        self.varied.push(Varied::at(&self.alike));
        self.undefined.open(code, pc);
        self.control.push(Control::Open {
            threads: before,
            otherwise,
            exact,
            exact_otherwise,
            alike,
        });
        self.facts.threads = then;
    }

    /// Opens a construct at `pc` other than an `if`, walked once (`alike`
    /// as for [`State::open_if`]).
    fn open(&mut self, code: &[Inst], pc: usize, alike: bool) {
        self.written.push(Vec::new());
        self.varied.push(Varied::at(&self.alike));
        self.undefined.open(code, pc);
        let t = self.facts.threads;
        self.control.push(Control::Open {
            threads: t,
            otherwise: t,
            exact: false,
            exact_otherwise: false,
            alike,
        });
    }

    /// Paths of the innermost construct meet: an `else`, a `case`, a
    /// loop's continuing block.
    fn meet(&mut self) {
        self.undefined.meet();
        let frame = self.written.len() - 1;
        let (facts, conds) = (&mut self.facts, &mut self.conds);
        for &r in &self.written[frame] {
            facts.set(r, None);
            if let Some(c) = conds.get_mut(r as usize) {
                *c = None;
            }
        }
        self.varied[frame].meet(&self.written[frame], &mut self.alike);
    }

    /// The innermost construct, walked once, ends.
    fn close(&mut self) -> Option<()> {
        let Some(Control::Open { threads, .. }) = self.control.pop() else {
            return None;
        };
        self.facts.threads = threads;
        self.undefined.close();
        let inner = self.written.pop()?;
        for &r in &inner {
            self.facts.set(r, None);
            self.set_cond(r, None);
        }
        let varied = self.varied.pop()?;
        varied.close(&inner, &mut self.alike);
        self.varied.last_mut()?.differ.extend(varied.differ);
        self.written.last_mut()?.extend(inner);
        Some(())
    }

    /// Every thread leaves the construct at `frame`: where that is an
    /// unrolled loop, whose branches in between every thread took alike,
    /// the walk goes on past its end (`Some`).
    fn leave(&mut self, code: &[Inst], frame: usize) -> Option<Option<Next>> {
        let Some(Control::Unrolled { begin, .. }) = self.control.get(frame) else {
            return Some(None);
        };
        let end = begin + loop_body(code, *begin).len();
        if self.control[frame + 1..]
            .iter()
            .any(|c| !matches!(c, Control::Taken))
        {
            return Some(Some(Next::Reopen));
        }
        self.control.truncate(frame);
        Some(Some(Next::Pc(end)))
    }

    /// What the branch on `cond` with `test` says of the threads.
    fn branch(&self, cond: Reg, test: Test) -> Option<Cond> {
        if test.vote.is_some() {
            return None;
        }
        let b = |r: Reg| self.facts.low32(r);
        match test.lanes {
            Lanes::Nonzero => self.conds.get(cond.0 as usize).copied().flatten(),
            Lanes::Compare(cmp, r) => {
                compare(cmp, self.facts.low32(cond)?, b(r)?, self.facts.threads)
            }
            Lanes::CompareImm(cmp, imm) => compare(
                cmp,
                self.facts.low32(cond)?,
                Value::constant(imm.into()),
                self.facts.threads,
            ),
            Lanes::Previous => None,
        }
    }

    /// `inst` has been checked: its reads and writes change the state.
    fn advance(&mut self, inst: &Inst) -> Option<()> {
        self.undefined.step(inst).then_some(())?;
        let given = match *inst {
            // The lanes that run it copy: facts hold of the threads that
            // run the code they are used in, and a construct's writes are
            // dropped where its paths meet.
            Inst::CopyMasked { dst, src } => Some((dst, self.facts.get(src))),
            _ => self.facts.of(inst),
        };
        let cond = match *inst {
            Inst::Binary {
                dst,
                a,
                b,
                masked: false,
                op32: Some(op),
                ..
            } => Some((dst, op, self.facts.low32(a), self.facts.low32(b))),
            Inst::BinaryImm {
                dst,
                a,
                imm,
                masked: false,
                op32: Some(op),
                ..
            } => Some((
                dst,
                op,
                self.facts.low32(a),
                Some(Value::constant(i128::from(imm & 0xFFFF_FFFF))),
            )),
            _ => None,
        }
        .and_then(|(dst, op, a, b)| {
            Some((dst, compare(Cmp32::of(op)?, a?, b?, self.facts.threads)?))
        });
        let frame = self.written.len() - 1;
        let alike = self.alike_here() && computes_alike(inst, &self.alike);
        let (facts, conds, written) = (&mut self.facts, &mut self.conds, &mut self.written);
        let (flags, varied) = (&mut self.alike, &mut self.varied[frame]);
        inst.for_each_write(|r| {
            facts.set(r, None);
            if let Some(c) = conds.get_mut(r as usize) {
                *c = None;
            }
            written[frame].push(r);
            if let Some(flag) = flags.get_mut(r as usize) {
                *flag = alike;
            }
            if !alike {
                varied.differ.push(r);
            }
        });
        if let Some((dst, fact)) = given {
            self.facts.set(dst.0, fact);
        }
        if let Some((dst, c)) = cond {
            self.set_cond(dst.0, Some(c));
        }
        Some(())
    }
}

/// The threads of `t` whose coordinate `d` is in `lo..hi`, and the
/// others, each with whether it is exactly them (a box of a group's
/// coordinates, not empty); where not, all of `t`.
fn split(t: Threads, d: usize, lo: i128, hi: i128) -> ((Threads, bool), (Threads, bool)) {
    let (tlo, thi) = (t.lo[d], t.lo[d] + t.ids[d]);
    let (lo, hi) = (lo.max(tlo), hi.min(thi));
    let in_group = d >= 3;
    let part = |from: i128, to: i128| {
        if from >= to {
            return (t, false);
        }
        let mut part = t;
        (part.lo[d], part.ids[d]) = (from, to - from);
        (part, in_group)
    };
    let holds = part(lo, hi);
    let fails = match (lo <= tlo, hi >= thi) {
        (true, _) => part(hi.max(tlo), thi),
        (_, true) => part(tlo, lo.min(thi)),
        _ => (t, false),
    };
    (holds, fails)
}

/// What `a cmp b` says of the threads, as a branch condition.
fn compare(cmp: Cmp32, a: Value, b: Value, t: Threads) -> Option<Cond> {
    let (alo, ahi) = a.bounds(t);
    let (blo, bhi) = b.bounds(t);
    // Signed comparisons agree with unsigned ones below 2^31.
    let signed = matches!(cmp, Cmp32::LtS | Cmp32::LeS | Cmp32::GtS | Cmp32::GeS);
    if signed && (ahi >= 1 << 31 || bhi >= 1 << 31) {
        return None;
    }
    let known = |holds: bool| Some(Cond::Known(holds));
    match cmp {
        Cmp32::Eq | Cmp32::Ne if alo == ahi && blo == bhi => {
            known((alo == blo) == (cmp == Cmp32::Eq))
        }
        Cmp32::Eq | Cmp32::Ne if ahi < blo || bhi < alo => known(cmp == Cmp32::Ne),
        Cmp32::Ne => None,
        Cmp32::LtU | Cmp32::LtS if ahi < blo => known(true),
        Cmp32::LtU | Cmp32::LtS if alo >= bhi => known(false),
        Cmp32::LeU | Cmp32::LeS if ahi <= blo => known(true),
        Cmp32::LeU | Cmp32::LeS if alo > bhi => known(false),
        Cmp32::GtU | Cmp32::GtS if alo > bhi => known(true),
        Cmp32::GtU | Cmp32::GtS if ahi <= blo => known(false),
        Cmp32::GeU | Cmp32::GeS if alo >= bhi => known(true),
        Cmp32::GeU | Cmp32::GeS if ahi < blo => known(false),
        // One side a constant, the other a multiple of one coordinate.
        _ => {
            let (v, n, cmp) = match (a.single(t), b.single(t)) {
                (_, Some(n)) => (a, n, cmp),
                (Some(n), _) => (b, n, flip(cmp)?),
                _ => return None,
            };
            let Value::Affine { c, k } = v.rebase(t) else {
                return None;
            };
            let mut live = (0..DIMS).filter(|&d| k[d] != 0 && t.ids[d] > 1);
            let d = live.next()?;
            if live.next().is_some() || k[d] < 0 {
                return None;
            }
            // `c + k x` against `n`, with `x` counted from `t.lo[d]`: the
            // first `x` with `c + k x >= m`.
            let k = k[d];
            let from = |m: i128| t.lo[d] + (m - c + k - 1).div_euclid(k);
            let (lo, hi) = match cmp {
                Cmp32::LtU | Cmp32::LtS => (i128::MIN, from(n)),
                Cmp32::LeU | Cmp32::LeS => (i128::MIN, from(n + 1)),
                Cmp32::GtU | Cmp32::GtS => (from(n + 1), i128::MAX),
                Cmp32::GeU | Cmp32::GeS => (from(n), i128::MAX),
                Cmp32::Eq if (n - c).rem_euclid(k) == 0 => {
                    let x = t.lo[d] + (n - c) / k;
                    (x, x + 1)
                }
                Cmp32::Eq => return known(false),
                _ => return None,
            };
            Some(Cond::Within { d, lo, hi })
        }
    }
}

/// `b cmp a` for `a cmp b`, for the integer comparisons.
fn flip(cmp: Cmp32) -> Option<Cmp32> {
    Some(match cmp {
        Cmp32::Eq => Cmp32::Eq,
        Cmp32::LtU => Cmp32::GtU,
        Cmp32::LeU => Cmp32::GeU,
        Cmp32::GtU => Cmp32::LtU,
        Cmp32::GeU => Cmp32::LeU,
        Cmp32::LtS => Cmp32::GtS,
        Cmp32::LeS => Cmp32::GeS,
        Cmp32::GtS => Cmp32::LtS,
        Cmp32::GeS => Cmp32::LeS,
        _ => return None,
    })
}

/// The registers that may hold an undefined value (an uninitialized
/// variable's) on some lane that reads them, in program order. A register
/// turns undefined only at an `Uninitialized`. Where the two branches of an
/// `if` meet, a register is undefined if it is at the end of either (or,
/// without an `else`, at the start); where the paths of other constructs
/// meet (a `case`, a loop's continuing block or start, their ends),
/// everything undefined at the construct's start or made undefined in it
/// counts as undefined.
#[derive(Clone, Debug)]
struct Undefined {
    now: Vec<bool>,
    /// Per open construct, what its paths bring where they meet.
    frames: Vec<Paths>,
}

#[derive(Clone, Debug)]
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
        inst.for_each_read(|r| clean &= !self.now.get(r as usize).copied().unwrap_or(true));
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

/// A groupshared access: its address, its size and the threads that may
/// run it.
type Access = (Value, u32, Threads);

/// Groupshared memory between barriers.
#[derive(Clone, Debug, Default)]
struct Shared {
    /// The phase's stores, each with whether exactly the threads of each
    /// group that its `Threads` count run it.
    writes: Vec<(Access, bool)>,
    /// The phase's loads.
    reads: Vec<Access>,
    /// The phase's atomics.
    atomics: Vec<Access>,
    /// Byte ranges that every thread of a group wrote in an earlier phase.
    covered: Vec<(i128, i128)>,
}

impl Shared {
    /// A barrier or the end, over a group of `t`'s threads: `false` where
    /// two threads of a group may touch one word in the phase it ends, one
    /// of them storing, or one updating it atomically and the other not.
    /// The stores must be one-to-one in the thread, and each load or atomic
    /// touch either the same word as a store (or, for a load, an atomic) of
    /// the same thread (its address the same function of the thread) or
    /// bytes that those do not. What the stores cover, where each is run by
    /// exactly the threads of one box, counts as written from here on.
    fn end_phase(&mut self, t: Threads) -> bool {
        let writes = std::mem::take(&mut self.writes);
        let reads = std::mem::take(&mut self.reads);
        let atomics = std::mem::take(&mut self.atomics);
        // Stores by a thread that may not run them still touch only their
        // thread's words: over the threads that may run them all (those
        // their branches narrow to, where they share them).
        let stores: Vec<(Value, u32)> = writes.iter().map(|&((v, n, _), _)| (v, n)).collect();
        let shared_box = writes.first().map(|&((_, _, b), _)| b);
        let runs = match shared_box {
            Some(b) if writes.iter().all(|&((_, _, o), _)| o == b) => b,
            _ => t,
        };
        if !one_to_one(&stores, runs, GROUP_THREAD) {
            return false;
        }
        let stored: Vec<Access> = writes.iter().map(|&(access, _)| access).collect();
        if !apart(&reads, &stored) || !apart(&atomics, &stored) || !apart(&atomics, &reads) {
            return false;
        }
        if let Some(box_) = shared_box
            && writes.iter().all(|&((_, _, b), exact)| exact && b == box_)
            && let Some(range) = dense(&stores, box_)
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

/// Whether each access of `xs` touches either the same word as an access
/// of `ys` by the same thread (the same affine function of the thread, the
/// same size, one-to-one over the threads of both) or bytes that none of
/// `ys` touches: their ranges are apart, or both are affine and their
/// bytes fall in different places modulo a step that divides every
/// coefficient of either.
fn apart(xs: &[Access], ys: &[Access]) -> bool {
    let bytes = |&(v, n, t): &Access| {
        let (lo, hi) = v.bounds(t);
        (lo, hi + i128::from(n))
    };
    xs.iter().all(|x| {
        ys.iter().all(|y| {
            let (a, b) = (bytes(x), bytes(y));
            // A word one thread stores to and another updates atomically
            // (a counter reset by one thread) is not the same thread's.
            let same = matches!(x.0, Value::Affine { .. })
                && x.0 == y.0
                && x.1 == y.1
                && one_to_one(&[(x.0, x.1)], x.2.hull(y.2), GROUP_THREAD);
            same || a.1 <= b.0 || b.1 <= a.0 || interleaved(x, y)
        })
    })
}

/// Whether two affine accesses never share a byte: with `g` dividing every
/// coefficient of a coordinate that varies, `x` touches `c_x + g i + [0,
/// size_x)` and `y` `c_y + g j + [0, size_y)`, apart where `y`'s start lies
/// at least `size_x` past `x`'s and `size_y` before the next, modulo `g`.
fn interleaved(&(x, xn, xt): &Access, &(y, yn, yt): &Access) -> bool {
    let (Value::Affine { c: cx, k: kx }, Value::Affine { c: cy, k: ky }) =
        (x.rebase(xt), y.rebase(yt))
    else {
        return false;
    };
    let gcd = |mut a: i128, mut b: i128| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a.abs()
    };
    let g = (0..DIMS)
        .flat_map(|d| [(kx[d], xt.ids[d]), (ky[d], yt.ids[d])])
        .filter(|&(_, n)| n > 1)
        .fold(0, |g, (k, _)| gcd(g, k));
    if g == 0 {
        return false;
    }
    let r = (cy - cx).rem_euclid(g);
    i128::from(xn) <= r && r <= g - i128::from(yn)
}

/// The bytes that one-to-one stores, run by every thread of a group, cover
/// with no gap: each coordinate's step (up or down) the span of all the
/// lower ones, the pieces of one thread side by side.
fn dense(writes: &[(Value, u32)], t: Threads) -> Option<(i128, i128)> {
    let mut pieces: Vec<(i128, i128)> = Vec::new();
    let mut k = [0; DIMS];
    for &(at, size) in writes {
        let Value::Affine { c, k: j } = at.rebase(t) else {
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
    let mut steps: Vec<(i128, i128)> = GROUP_THREAD
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
        let Value::Affine { c, k } = at.rebase(t) else {
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

/// The system values' facts: `SV_DispatchThreadID`, `SV_GroupThreadID`
/// and `SV_GroupID` are coordinates, `SV_GroupIndex` a function of the
/// thread's in a group of `extent` threads.
fn inputs(p: &Program, extent: [u32; 3]) -> Vec<(u32, Fact)> {
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
                (SystemValue::GroupId, 0..=2) => unit(6 + k),
                // x + y·width + z·width·height.
                (SystemValue::GroupIndex, 0) => {
                    let [x, y, _] = extent.map(|e| i128::from(e.max(1)));
                    let mut k = [0; DIMS];
                    k[GROUP_THREAD].copy_from_slice(&[1, x, x * y]);
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
