//! Wave functions of the machine code: `WaveMatch` and the
//! `WaveMultiPrefix*` operations on words, over the waves of a pass at once,
//! with the interpreter's semantics (its own functions on each lane's
//! value), called straight from the code rather than through the
//! interpreter.

use lockstep_ir::{ScalarType, WaveOp};
use lockstep_jit::wave::WaveFn;
use lockstep_wave::{self as wave, Mask};

use crate::check::ReductionOrder;
use crate::engine::multi_prefix_lane;
use crate::value::Val;
use crate::with_arith;

/// The function and its two words of information for `WaveMatch` on `ty`
/// (`Some` for types held in words): the registers are the four
/// destinations, then the operand.
pub(crate) fn wave_match(ty: ScalarType, w: usize) -> Option<(WaveFn, [u32; 2])> {
    (ty.size() <= 4).then_some((match_fn as WaveFn, [ty_code(ty)?, w as u32]))
}

/// The function and its information for `op` (a `WaveMultiPrefix*`
/// operation) on `ty`, for types held in words: the registers are the
/// destination, the operand, then the four words of the partition.
pub(crate) fn multi_prefix(op: WaveOp, ty: ScalarType, w: usize) -> Option<(WaveFn, [u32; 2])> {
    if ty.size() > 4 {
        return None;
    }
    let op = OPS.iter().position(|&o| o == op)? as u32;
    Some((
        multi_prefix_fn as WaveFn,
        [ty_code(ty)? | op << 8, w as u32],
    ))
}

/// The `WaveMultiPrefix*` operations, by their code.
const OPS: [WaveOp; 6] = [
    WaveOp::MultiPrefixSum,
    WaveOp::MultiPrefixProduct,
    WaveOp::MultiPrefixCountBits,
    WaveOp::MultiPrefixBitAnd,
    WaveOp::MultiPrefixBitOr,
    WaveOp::MultiPrefixBitXor,
];

/// The types held in words, by their code.
const TYPES: [ScalarType; 7] = [
    ScalarType::Bool,
    ScalarType::Int16,
    ScalarType::UInt16,
    ScalarType::Int32,
    ScalarType::UInt32,
    ScalarType::Float16,
    ScalarType::Float32,
];

fn ty_code(ty: ScalarType) -> Option<u32> {
    TYPES.iter().position(|&t| t == ty).map(|i| i as u32)
}

/// The pass's lanes as [`WaveFn`] hands them over.
struct Pass {
    frame: *mut u8,
    keep: *const u32,
    n: usize,
    args: [u32; 8],
}

impl Pass {
    /// The pass a [`WaveFn`] is called with.
    ///
    /// # Safety
    /// The arguments are those the code passes a [`WaveFn`].
    unsafe fn new(frame: *mut u8, keep: *const u32, n: usize, args: *const [u32; 8]) -> Pass {
        Pass {
            frame,
            keep,
            n,
            // SAFETY: the code passes eight words.
            args: unsafe { *args },
        }
    }

    /// Register `k` of the call's (`args[2 + k]`): lane `l`'s word.
    ///
    /// # Safety
    /// The register is one of the call's, and `l` below `n`.
    unsafe fn word(&self, k: usize, l: usize) -> u32 {
        let at = self.args[2 + k] as usize + 4 * l;
        // SAFETY: the code passes offsets of registers of `n` lanes.
        unsafe { self.frame.add(at).cast::<u32>().read_unaligned() }
    }

    /// Writes lane `l`'s word of register `k`, where the call has one.
    ///
    /// # Safety
    /// As [`Pass::word`].
    unsafe fn set(&self, k: usize, l: usize, v: u32) {
        if self.args[2 + k] != u32::MAX {
            let at = self.args[2 + k] as usize + 4 * l;
            // SAFETY: as in `word`.
            unsafe { self.frame.add(at).cast::<u32>().write_unaligned(v) };
        }
    }

    /// Each wave of `w` lanes (at most 64, as the machine code takes) with
    /// an active lane: its first lane and its active lanes.
    fn waves(&self, w: usize) -> impl Iterator<Item = (usize, u64)> + '_ {
        (0..self.n).step_by(w).filter_map(move |start| {
            let mask = (0..w).fold(0u64, |m, l| {
                // SAFETY: `keep` holds `n` words, and `start + l < n`
                // (`n` is a multiple of `w`).
                let on = unsafe { *self.keep.add(start + l) } != 0;
                m | u64::from(on) << l
            });
            (mask != 0).then_some((start, mask))
        })
    }
}

/// The lanes of `mask`, lowest first.
fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let l = mask.trailing_zeros() as usize;
        mask &= mask.wrapping_sub(1);
        (l < 64).then_some(l)
    })
}

/// `WaveMatch`: each active lane gets the active lanes of its wave whose
/// value has the same bits (booleans: the same truth), as the interpreter
/// groups them.
unsafe extern "sysv64" fn match_fn(
    frame: *mut u8,
    keep: *const u32,
    n: usize,
    args: *const [u32; 8],
) {
    // SAFETY: the code passes its frame, lanes and arguments (`WaveFn`).
    let pass = unsafe { Pass::new(frame, keep, n, args) };
    let (boolean, w) = (pass.args[0] == 0, pass.args[1] as usize);
    let mut keys = [0u32; 128];
    for (start, mask) in pass.waves(w) {
        for (l, k) in keys[..w].iter_mut().enumerate() {
            // SAFETY: the operand is the call's fifth register, of `n`
            // lanes.
            let v = unsafe { pass.word(4, start + l) };
            *k = if boolean { u32::from(v != 0) } else { v };
        }
        let mut left = mask;
        while left != 0 {
            let value = keys[left.trailing_zeros() as usize];
            let same = keys[..w]
                .iter()
                .enumerate()
                .fold(0u64, |m, (l, &k)| m | u64::from(k == value) << l)
                & left;
            let ballot = wave::mask_to_ballot(Mask::from(same));
            for l in bits(same) {
                for (k, &b) in ballot.iter().enumerate() {
                    // SAFETY: the destinations are the call's first four.
                    unsafe { pass.set(k, start + l, b) };
                }
            }
            left &= !same;
        }
    }
}

/// The `WaveMultiPrefix*` operation of `args[0] >> 8` on the type of
/// `args[0] & 0xFF`: each active lane gets the interpreter's result over
/// the active lanes below it in its partition.
unsafe extern "sysv64" fn multi_prefix_fn(
    frame: *mut u8,
    keep: *const u32,
    n: usize,
    args: *const [u32; 8],
) {
    // SAFETY: the code passes its frame, lanes and arguments (`WaveFn`).
    let pass = unsafe { Pass::new(frame, keep, n, args) };
    let (op, ty) = (
        OPS[(pass.args[0] >> 8) as usize],
        TYPES[(pass.args[0] & 0xFF) as usize],
    );
    let w = pass.args[1] as usize;
    // SAFETY (every access below): the operand and the partition are the
    // call's second to sixth registers and the destination its first, of
    // `n` lanes, and `start + l < n`.
    let partition_of = |start: usize, l: usize| -> [u32; 4] {
        std::array::from_fn(|k| unsafe { pass.word(2 + k, start + l) })
    };
    if op == WaveOp::MultiPrefixCountBits {
        // One ballot of the wave, then a population count per lane
        // (`wave::multi_prefix_count_bits_wave`).
        for (start, mask) in pass.waves(w) {
            let set = (0..w).fold(0u64, |m, l| {
                m | u64::from(unsafe { pass.word(1, start + l) } != 0) << l
            }) & mask;
            for l in bits(mask) {
                let below = (1u64 << l) - 1;
                let part = unsafe {
                    u64::from(pass.word(2, start + l)) | u64::from(pass.word(3, start + l)) << 32
                };
                let count = (set & part & below).count_ones();
                unsafe { pass.set(0, start + l, count) };
            }
        }
        return;
    }
    with_arith!(ty, T => {
        let mut vals = [T::default(); 128];
        let mut partition = [[0u32; 4]; 128];
        for (start, mask) in pass.waves(w) {
            for l in 0..w {
                vals[l] = T::from_lane(u64::from(unsafe { pass.word(1, start + l) }));
                partition[l] = partition_of(start, l);
            }
            for l in bits(mask) {
                let v = multi_prefix_lane::<T>(
                    op, &vals[..w], Mask::from(mask), &partition[..w], l, ReductionOrder::Ascending,
                );
                unsafe { pass.set(0, start + l, v.to_lane() as u32) };
            }
        }
    }, ())
}
