//! Atomic updates held back by a worker and combined.
//!
//! A kernel that ends each wave with one `InterlockedAdd` to a counter
//! (a reduction, an element count) has every core update the same word,
//! and on a multi-core machine that cache line moves between cores for
//! each update. When nothing reads the atomic's result, the worker keeps
//! the update instead, folding later updates of the same word with the
//! same operation into it, and applies it:
//!
//! - before the worker's next load, store or atomic on the same memory
//!   (so every wave it runs reads exactly what it would have read with the
//!   update applied at once);
//! - when a wave reaches a barrier (every barrier, whatever its flags, so
//!   the update is visible to other groups from there on, as a device
//!   memory barrier requires);
//! - when the batch of groups ends, or more distinct words are held than
//!   [`HELD`].
//!
//! Between those points only other workers could tell the difference, and
//! only by reading the word without a barrier between the update and their
//! read: an update that becomes visible some time later, but before the
//! group ends, is one of the interleavings a GPU allows. The operations
//! combined are the 32-bit ones whose updates fold into one
//! (`memory::combining`: add, and, or, xor, min, max), so the word's final
//! value is the same as with the updates applied one by one.

use lockstep_ir::{AtomicOp, ScalarType};

use crate::BoundResource;
use crate::memory::{Memory, combining};

/// How many distinct words a worker holds updates for at most.
pub(super) const HELD: usize = 8;

/// One held update: `value` is to be applied to the word at byte `at` of
/// resource `resource`'s memory with `op`.
#[derive(Clone, Copy, Debug)]
struct Held {
    resource: usize,
    at: u64,
    op: AtomicOp,
    ty: ScalarType,
    value: u32,
}

/// A worker's held updates, in the order they were first held.
#[derive(Debug, Default)]
pub(crate) struct Deferred {
    held: Vec<Held>,
}

impl Deferred {
    /// Holds the update `op` with `value` of the word at `at` in resource
    /// `resource`, which must be in bounds. Returns `false`, holding
    /// nothing, when `op` on `ty` does not fold (the caller applies it).
    pub(super) fn hold(
        &mut self,
        resources: &[BoundResource],
        resource: usize,
        at: u64,
        op: AtomicOp,
        ty: ScalarType,
        value: u32,
    ) -> bool {
        let Some(fold) = combining(op, ty) else {
            return false;
        };
        let mem = resources[resource].memory;
        let same_word = |h: &Held| std::ptr::eq(resources[h.resource].memory, mem) && h.at == at;
        if let Some(h) = self.held.iter_mut().find(|h| same_word(h)) {
            if h.op == op && h.ty == ty {
                h.value = fold(h.value, value);
                return true;
            }
            // Another operation on the word: the one held goes first.
            self.apply(resources, Some(mem));
        }
        if self.held.len() == HELD {
            self.apply(resources, None);
        }
        self.held.push(Held {
            resource,
            at,
            op,
            ty,
            value,
        });
        true
    }

    /// Applies the updates held for `mem` (every update when `None`), in
    /// the order they were first held, and forgets them.
    pub(crate) fn apply(&mut self, resources: &[BoundResource], mem: Option<&Memory>) {
        self.held.retain(|h| {
            let memory = resources[h.resource].memory;
            if mem.is_some_and(|m| !std::ptr::eq(m, memory)) {
                return true;
            }
            memory.atomic(h.at, h.ty, h.op, u64::from(h.value), 0);
            false
        });
    }

    /// Applies the updates held for the memory of resource `resource`.
    #[inline(always)]
    pub(super) fn before_access(&mut self, resources: &[BoundResource], resource: usize) {
        if !self.held.is_empty() {
            self.apply(resources, Some(resources[resource].memory));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(mem: &Memory, at: u64) -> u32 {
        mem.load_word(at) as u32
    }

    #[test]
    fn folds_per_word_and_applies_in_order() {
        let (a, b) = (Memory::zeroed(64), Memory::zeroed(64));
        // Resources 0 and 2 share memory `a`.
        let resources = [
            BoundResource::buffer(&a),
            BoundResource::buffer(&b),
            BoundResource::buffer(&a),
        ];
        let mut d = Deferred::default();
        let u = ScalarType::UInt32;
        assert!(d.hold(&resources, 0, 0, AtomicOp::Add, u, 5));
        assert!(d.hold(&resources, 2, 0, AtomicOp::Add, u, 7));
        assert!(d.hold(&resources, 1, 4, AtomicOp::Or, u, 0b100));
        assert!(d.hold(&resources, 1, 4, AtomicOp::Or, u, 0b001));
        // Nothing is written until the updates are applied.
        assert_eq!((word(&a, 0), word(&b, 4)), (0, 0));
        // An access to `a` (through either resource) applies `a`'s only.
        d.before_access(&resources, 2);
        assert_eq!((word(&a, 0), word(&b, 4)), (12, 0));
        d.apply(&resources, None);
        assert_eq!(word(&b, 4), 0b101);
        assert!(d.held.is_empty());
    }

    #[test]
    fn another_operation_on_the_word_goes_after_the_held_one() {
        let a = Memory::zeroed(16);
        let resources = [BoundResource::buffer(&a)];
        let mut d = Deferred::default();
        let u = ScalarType::UInt32;
        // max(0 + 5, 3) = 5; the other order would give max(0, 3) + 5 = 8.
        assert!(d.hold(&resources, 0, 8, AtomicOp::Add, u, 5));
        assert!(d.hold(&resources, 0, 8, AtomicOp::Max, u, 3));
        assert_eq!(word(&a, 8), 5);
        d.apply(&resources, None);
        assert_eq!(word(&a, 8), 5);
        // Signed min folds as signed: min(-2, 4) applied to 5 is -2.
        let i = ScalarType::Int32;
        assert!(d.hold(&resources, 0, 8, AtomicOp::Min, i, (-2i32) as u32));
        assert!(d.hold(&resources, 0, 8, AtomicOp::Min, i, 4));
        d.apply(&resources, None);
        assert_eq!(word(&a, 8) as i32, -2);
    }

    #[test]
    fn holds_a_bounded_number_of_words() {
        let a = Memory::zeroed(4 * (HELD + 1));
        let resources = [BoundResource::buffer(&a)];
        let mut d = Deferred::default();
        for k in 0..=HELD as u64 {
            assert!(d.hold(&resources, 0, 4 * k, AtomicOp::Add, ScalarType::UInt32, 1));
        }
        // The first `HELD` went out to make room for the last.
        assert_eq!(word(&a, 0), 1);
        assert_eq!(word(&a, 4 * HELD as u64), 0);
        assert_eq!(d.held.len(), 1);
    }

    #[test]
    fn exchange_and_64_bit_operations_are_not_held() {
        let a = Memory::zeroed(16);
        let resources = [BoundResource::buffer(&a)];
        let mut d = Deferred::default();
        assert!(!d.hold(&resources, 0, 0, AtomicOp::Exchange, ScalarType::UInt32, 1));
        assert!(!d.hold(&resources, 0, 0, AtomicOp::Add, ScalarType::UInt64, 1));
        assert!(d.held.is_empty());
    }
}
