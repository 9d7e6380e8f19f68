//! Checked mode: what the engine reports about undefined wave behaviour
//! while it runs a dispatch.
//!
//! Checks happen only in checked runs: a normal run tests one flag per
//! memory or wave instruction and carries none of the compiled-in checks.

use std::sync::Mutex;

use lockstep_ir::Span;
use lockstep_wave::Mask;

/// What went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FindingKind {
    /// `WaveReadLaneAt`, `QuadRead*` or `QuadReadLaneAt` read an inactive lane.
    InactiveLaneRead,
    /// `WaveReadLaneAt` named a lane past the wave's last.
    LaneOutOfRange,
    /// A quad operation ran while some lanes of the quad were inactive.
    IncompleteQuad,
    /// `WaveMultiPrefix*` masks that do not partition the active lanes.
    BadPartition,
    /// A barrier reached while lanes of the wave are elsewhere.
    DivergentBarrier,
    /// Two waves touch one groupshared word between barriers, one writes.
    GroupsharedRace,
    /// A read of groupshared memory nothing wrote in this group.
    UninitializedGroupshared,
    /// A groupshared or local array access out of bounds.
    OutOfBounds,
    /// A buffer or texture access out of bounds: defined on D3D12 (a read
    /// gives 0, a write is dropped), undefined on Vulkan without its
    /// robustness features.
    ResourceOutOfBounds,
    /// An access whose byte offset is not a multiple of its alignment
    /// (4 bytes, or the value's size when smaller).
    Misaligned,
    /// Lanes of one wave store different values at one address in one
    /// store: which value lands is not specified.
    ConflictingStores,
    /// An integer division or remainder by zero.
    DivisionByZero,
    /// An undefined value (from an inactive lane or an uninitialized
    /// variable) written to memory.
    UndefinedValue,
    /// A quad operation (a derivative, say) read a lane of its quad that
    /// called `discard` earlier.
    DiscardedLaneRead,
    /// A loop ran past the step budget with the groups and waves taking
    /// turns in another order, where it ends in the default order: waves
    /// wait on each other's progress (a spin-wait), which no schedule
    /// guarantees.
    ProgressDependence,
}

impl FindingKind {
    /// A short name for reports and JSON.
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::InactiveLaneRead => "inactive-lane-read",
            FindingKind::ProgressDependence => "progress-dependence",
            FindingKind::LaneOutOfRange => "lane-out-of-range",
            FindingKind::IncompleteQuad => "incomplete-quad",
            FindingKind::BadPartition => "bad-partition",
            FindingKind::DivergentBarrier => "divergent-barrier",
            FindingKind::GroupsharedRace => "groupshared-race",
            FindingKind::UninitializedGroupshared => "uninitialized-groupshared",
            FindingKind::OutOfBounds => "out-of-bounds",
            FindingKind::ResourceOutOfBounds => "out-of-bounds-resource",
            FindingKind::Misaligned => "misaligned-access",
            FindingKind::ConflictingStores => "conflicting-stores",
            FindingKind::DivisionByZero => "division-by-zero",
            FindingKind::UndefinedValue => "undefined-value",
            FindingKind::DiscardedLaneRead => "discarded-lane-read",
        }
    }
}

/// One kind of problem at one place in the source: the first occurrence in
/// detail, and how often it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// What went wrong.
    pub kind: FindingKind,
    /// The source construct where it happened, when known.
    pub span: Option<Span>,
    /// Inside a function the entry point calls: that call (a finding in a
    /// helper is kept apart for each call of it).
    pub called_from: Option<Span>,
    /// Inside functions the entry point calls: the calls, innermost
    /// first; the last is `called_from`.
    pub calls: Vec<Span>,
    /// The wave size of the run that found it.
    pub wave_size: u32,
    /// The group's id in the dispatch, in x, y and z.
    pub group: [u32; 3],
    /// The wave's index in its group.
    pub wave: u32,
    /// The lanes concerned (of the first occurrence).
    pub lanes: Vec<u32>,
    /// A description of the first occurrence, for reports.
    pub message: String,
    /// How many times this kind happened at this place.
    pub count: u64,
}

/// The most distinct findings one run keeps.
const MAX_FINDINGS: usize = 1000;

/// Findings collected by the waves of a dispatch (several workers).
#[derive(Debug, Default)]
pub struct Findings {
    items: Mutex<Vec<Finding>>,
    /// Per resource slot, per 32-bit word: 1 + the program counter of the
    /// store or atomic that wrote it last (0: none), with [`STORED`] where
    /// a store wrote it.
    writers: Mutex<Vec<Vec<u32>>>,
    /// Per resource slot, per 32-bit word: 1 + the lane that wrote it last
    /// ([`pack_lane`]), 0 for none.
    lanes: Mutex<Vec<Vec<u64>>>,
    /// Whether a word was written again by another lane where a store was
    /// one of the writes, or by an atomic and a store (atomics alone
    /// commute; one lane's stores keep their order).
    overwritten: std::sync::atomic::AtomicBool,
}

/// A writing lane as one number: the group's x, y and z (16 bits each,
/// saturated), the wave's index in its group and the lane (8 bits each).
pub(crate) fn pack_lane(group: [u32; 3], wave: u32, lane: u32) -> u64 {
    let field = |v: u32, bits: u32| u64::from(v.min((1 << bits) - 1));
    field(group[0], 16)
        | field(group[1], 16) << 16
        | field(group[2], 16) << 32
        | field(wave, 8) << 48
        | field(lane, 7) << 56
}

/// Whether `pack_lane` packed `packed` without saturating a group's
/// coordinate, so that it names one lane.
fn exact_lane(packed: u64) -> bool {
    (0..3).all(|d| (packed >> (16 * d)) & 0xFFFF != 0xFFFF)
}

/// The bit of a word's writer that says a plain store wrote it.
const STORED: u32 = 1 << 31;

/// Which statement wrote each word of each resource last, in a checked
/// dispatch ([`crate::dispatch_checked_writers`]).
#[derive(Clone, Debug, Default)]
pub struct Writers {
    /// Per resource slot, per 32-bit word: 1 + the writer's program counter
    /// (and [`STORED`]).
    pcs: Vec<Vec<u32>>,
    /// Per resource slot, per word: 1 + the writing lane ([`pack_lane`]).
    lanes: Vec<Vec<u64>>,
    /// The program's span of each program counter.
    spans: Vec<Span>,
    overwritten: bool,
}

impl Writers {
    /// The statement that wrote word `word` (byte offset / 4) of resource
    /// slot `slot` last, when one did.
    pub fn span(&self, slot: usize, word: usize) -> Option<Span> {
        let pc = *self.pcs.get(slot)?.get(word)? & !STORED;
        self.spans.get(pc.checked_sub(1)? as usize).copied()
    }

    /// The lane that wrote word `word` of resource slot `slot` last: its
    /// group, its wave's index in the group and its lane.
    pub fn lane(&self, slot: usize, word: usize) -> Option<([u32; 3], u32, u32)> {
        let packed = self.lanes.get(slot)?.get(word)?.checked_sub(1)?;
        let field = |shift: u32, bits: u32| ((packed >> shift) & ((1 << bits) - 1)) as u32;
        Some((
            [field(0, 16), field(16, 16), field(32, 16)],
            field(48, 8),
            field(56, 8),
        ))
    }

    /// Whether a word of a resource was written by more than one lane with
    /// a store among the writes, or by a store and an atomic, so that the
    /// order of the writers can show. Atomics alone leave the same word in
    /// any order, and so do one lane's stores.
    pub fn overwritten(&self) -> bool {
        self.overwritten
    }
}

/// Where a finding happened.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Site<'a> {
    pub span: Option<Span>,
    /// The calls of the functions the finding is in, innermost first.
    pub calls: &'a [Span],
    pub wave_size: u32,
    pub group: [u32; 3],
    pub wave: u32,
}

pub(crate) fn lanes_of(mask: Mask) -> Vec<u32> {
    (0..128).filter(|l| mask >> l & 1 == 1).collect()
}

impl Findings {
    pub(crate) fn record(
        &self,
        kind: FindingKind,
        site: Site,
        lanes: Mask,
        message: impl FnOnce() -> String,
    ) {
        let mut items = self.items.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = items
            .iter_mut()
            .find(|f| f.kind == kind && f.span == site.span && f.calls == site.calls)
        {
            f.count += 1;
            return;
        }
        if items.len() < MAX_FINDINGS {
            items.push(Finding {
                kind,
                span: site.span,
                called_from: site.calls.last().copied(),
                calls: site.calls.to_vec(),
                wave_size: site.wave_size,
                group: site.group,
                wave: site.wave,
                lanes: lanes_of(lanes),
                message: message(),
                count: 1,
            });
        }
    }

    /// Notes that the instruction at `pc` wrote `words` of resource slot
    /// `slot`, which has `len` words.
    pub(crate) fn wrote(
        &self,
        slot: usize,
        len: usize,
        pc: usize,
        words: &[(u64, u64)],
        atomic: bool,
    ) {
        let mut writers = self.writers.lock().unwrap_or_else(|e| e.into_inner());
        if writers.len() <= slot {
            writers.resize_with(slot + 1, Vec::new);
        }
        let pcs = &mut writers[slot];
        if pcs.len() < len {
            pcs.resize(len, 0);
        }
        let mut lanes = self.lanes.lock().unwrap_or_else(|e| e.into_inner());
        if lanes.len() <= slot {
            lanes.resize_with(slot + 1, Vec::new);
        }
        let by = &mut lanes[slot];
        if by.len() < len {
            by.resize(len, 0);
        }
        let mut overwritten = false;
        for &(w, who) in words {
            if let (Some(p), Some(b)) = (pcs.get_mut(w as usize), by.get_mut(w as usize)) {
                // A lane's own stores land in program order in any
                // schedule; an atomic and a store may not.
                let other = *b != who + 1 || !exact_lane(who);
                let stored = !atomic || *p & STORED != 0;
                overwritten |= *p != 0 && stored && (other || atomic || *p & STORED == 0);
                *p = (pc as u32 + 1) | if stored { STORED } else { 0 };
                *b = who + 1;
            }
        }
        if overwritten {
            self.overwritten
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// The writers recorded, with the program's spans.
    pub(crate) fn take_writers(&self, spans: &[Span]) -> Writers {
        let pcs = std::mem::take(&mut *self.writers.lock().unwrap_or_else(|e| e.into_inner()));
        let lanes = std::mem::take(&mut *self.lanes.lock().unwrap_or_else(|e| e.into_inner()));
        Writers {
            pcs,
            lanes,
            spans: spans.to_vec(),
            overwritten: self.overwritten.load(std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// The findings, in source order.
    pub fn into_vec(self) -> Vec<Finding> {
        let mut items = self.items.into_inner().unwrap_or_else(|e| e.into_inner());
        items.sort_by_key(|f| (f.span.map(|s| (s.file, s.start)), f.kind));
        items
    }
}

/// Per-half-word history of groupshared memory in the current group, for
/// the race and uninitialized-read checks: two bytes at a time, the
/// smallest element (`half`, `uint16_t`), so that waves writing the two
/// halves of one word do not race. An epoch is the stretch between two
/// barriers.
#[derive(Clone, Debug, Default)]
pub(crate) struct SharedTracker {
    words: Vec<WordState>,
    pub epoch: u32,
}

/// The bytes of groupshared memory one [`SharedTracker`] entry covers.
pub(crate) const TRACKED_BYTES: u64 = 2;

#[derive(Clone, Copy, Debug, Default)]
struct WordState {
    written: bool,
    /// Epoch + 1 of the last plain write (0: none), and its wave.
    write_epoch: u32,
    writer: u32,
    read_epoch: u32,
    /// The reading wave, or `MANY` when several waves read.
    reader: u32,
    atomic_epoch: u32,
    atomic_wave: u32,
}

const MANY: u32 = u32::MAX;

/// The kind of access to a groupshared word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    Read,
    Write,
    /// An atomic that combines the old value with its operand.
    Atomic,
    /// `InterlockedExchange`: an atomic whose new value is its operand.
    Exchange,
}

impl Access {
    /// The verb of a finding about the access: `reads` or `writes`.
    pub(crate) fn verb(self) -> &'static str {
        match self {
            Access::Read => "reads",
            Access::Write | Access::Atomic | Access::Exchange => "writes",
        }
    }

    /// An atomic access.
    pub(crate) fn is_atomic(self) -> bool {
        matches!(self, Access::Atomic | Access::Exchange)
    }
}

impl SharedTracker {
    pub fn reset(&mut self, bytes: usize) {
        self.words.clear();
        self.words
            .resize(bytes.div_ceil(TRACKED_BYTES as usize), WordState::default());
        self.epoch = 0;
    }

    /// Records an access by `wave` to the half word at byte `offset`;
    /// returns a finding when it races with another wave's access in this
    /// epoch or reads (or atomically combines with) memory never written.
    pub fn access(
        &mut self,
        offset: u64,
        wave: u32,
        access: Access,
    ) -> Option<(FindingKind, &'static str)> {
        let e = self.epoch + 1;
        let w = self
            .words
            .get_mut(usize::try_from(offset / TRACKED_BYTES).ok()?)?;
        let other_wrote = w.write_epoch == e && w.writer != wave;
        let other_read = w.read_epoch == e && w.reader != wave;
        let other_atomic = w.atomic_epoch == e && w.atomic_wave != wave;
        let finding = match access {
            Access::Read if !w.written => Some((
                FindingKind::UninitializedGroupshared,
                "reads groupshared memory that nothing wrote in this group",
            )),
            // A read racing only with atomics sees the word before or
            // after each (the compare-exchange loop's first read).
            Access::Read if other_wrote => Some((
                FindingKind::GroupsharedRace,
                "reads a groupshared word that another wave writes without a barrier between",
            )),
            Access::Write if other_wrote || other_read || other_atomic => Some((
                FindingKind::GroupsharedRace,
                "writes a groupshared word that another wave accesses without a barrier between",
            )),
            Access::Atomic if !w.written => Some((
                FindingKind::UninitializedGroupshared,
                "atomically updates groupshared memory that nothing wrote in this group: the value it combines with is undefined",
            )),
            Access::Atomic | Access::Exchange if other_wrote => Some((
                FindingKind::GroupsharedRace,
                "atomically updates a groupshared word that another wave writes non-atomically without a barrier between",
            )),
            _ => None,
        };
        match access {
            Access::Read => {
                w.reader = if w.read_epoch == e && w.reader != wave {
                    MANY
                } else {
                    wave
                };
                w.read_epoch = e;
            }
            Access::Write => {
                w.written = true;
                w.write_epoch = e;
                w.writer = wave;
            }
            Access::Atomic | Access::Exchange => {
                w.written = true;
                w.atomic_epoch = e;
                w.atomic_wave = wave;
            }
        }
        finding
    }
}

/// How float reductions and scans combine lanes. The default is the left
/// fold in lane order; the others exist to find results that depend on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReductionOrder {
    /// A left fold from the lowest lane up.
    #[default]
    Ascending,
    /// A left fold from the highest lane down.
    Descending,
    /// A balanced pairwise tree over the lanes in order.
    Tree,
}

/// The order the waves of a group and the groups of a dispatch take turns
/// in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Schedule {
    /// Waves in index order; groups in parallel.
    #[default]
    InOrder,
    /// Waves and groups in an order shuffled by this seed, on one worker.
    Shuffled(u64),
}

#[cfg(test)]
mod tests {
    use super::{Findings, pack_lane};

    #[test]
    fn writers_keep_the_last_lane_of_each_word() {
        let f = Findings::default();
        let a = pack_lane([3, 2, 1], 5, 17);
        let b = pack_lane([70_000, 0, 0], 1, 127);
        f.wrote(0, 4, 9, &[(0, a), (1, a)], false);
        f.wrote(0, 4, 10, &[(1, b)], true);
        let w = f.take_writers(&[]);
        assert_eq!(w.lane(0, 0), Some(([3, 2, 1], 5, 17)));
        // Saturated past 16 bits; the later write wins.
        assert_eq!(w.lane(0, 1), Some(([0xFFFF, 0, 0], 1, 127)));
        assert_eq!(w.lane(0, 2), None);
        assert_eq!(w.lane(1, 0), None);
    }
}
