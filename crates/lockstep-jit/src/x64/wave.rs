//! Machine code for a whole wave program: every lane of a wave of 8 to 64
//! lanes, its control flow as native branches on its execution mask.
//!
//! A [`WaveBuilder`] is fed a program one instruction at a time, in the
//! order the instructions run, with labels for their jump targets. The code
//! it makes runs every wave of a thread group from start to end, one wave
//! after another ([`WaveCode::run`]). Waves narrower than the code run
//! with the same wave of other groups side by side: lanes `8g..8g + 8` of
//! a 32-lane pass are a wave of group `g` of four, each with its own
//! execution mask bits, so the waves' work overlaps in the CPU while the
//! waves of one group still take turns. Constructs run while a lane of
//! any of them is active; wave operations and votes act on each wave's
//! lanes alone. Its state is a [`State`]:
//!
//! - **Registers** live in a frame in memory, one 32-bit word per lane (a
//!   *narrow* register) or one 64-bit word per lane (a *wide* one, for byte
//!   addresses, 64-bit integers and `double`s). An operation loads its operands eight lanes to a vector
//!   register, computes, and stores the result, blending with the lanes
//!   already there where it writes the active lanes only.
//! - **The execution mask** is a bit per lane in `r13`; the lanes that left
//!   a construct (`break`, `continue`, `return`) in `r14`. Each open
//!   construct has a frame of four masks in `State::frames`: the lanes that
//!   entered it, the lanes of the other branch or of this iteration, the
//!   lanes that left it, and the lanes that continue. These are the
//!   engine's rules, written as a few scalar instructions per construct.
//!   After each change the mask is also written out as words, all ones or
//!   zero per lane (`State::lanes`), for the blends.
//! - **Memory** is a table of [`Resource`]s: a 32-bit access reads 0 and
//!   writes nothing out of bounds or misaligned. Eight lanes whose byte
//!   addresses follow each other, in bounds, are one vector load or masked
//!   store (a streaming store, past the caches, into a memory larger than
//!   them: `sfence` before atomics and callouts, and the caller's after
//!   its passes); other addresses go lane by lane.
//! - **System values** are tables of words per lane of the group plus a
//!   number per group ([`Input`]).
//! - **What has no code here** is a *callout*: `State::callout(state, id)`
//!   runs the instruction `id` on the frame and returns 0, or stops the
//!   wave with its nonzero result.

// dynasm's `Ry(..)` converts its register number with `.into()`.
#![allow(clippy::useless_conversion)]

use super::{Builder, Code, Constant, MASK32, RESULT, Second, TEMP};

mod chains;
mod half;
mod vectors;
mod wide;

use crate::{Op32, Run};
pub use chains::Chain;
use dynasmrt::{AssemblyOffset, DynamicLabel, DynasmApi, DynasmLabelApi, dynasm};
use std::mem::offset_of;
pub use wide::{Arg64, Chain64, Op64};

/// A wave's state, shared by the machine code and its callouts.
#[repr(C, align(32))]
#[derive(Debug)]
pub struct State {
    /// The register frames: one of [`WaveCode::frame_bytes`] bytes, or
    /// for a program with barriers one per wave of the group, each that
    /// many bytes after the last.
    pub regs: *mut u8,
    /// Four masks per construct depth ([`WaveCode::frames`] of them), once
    /// or (with barriers) per wave of the group.
    pub frames: *mut u64,
    /// The memories, by slot.
    pub resources: *const Resource,
    /// The system values, by input index.
    pub inputs: *const Input,
    /// The lanes that exist in wave `w` of the pass's group `g`, at
    /// `w * groups + g` ([`WaveCode::groups`]; 0 where the pass has no
    /// group `g`).
    pub launch: *const u64,
    /// The group's wave count.
    pub waves: u64,
    /// Loop iterations a wave may run.
    pub budget: u64,
    /// Runs an instruction the code has none for.
    pub callout: Callout,
    /// The callout's own data.
    pub user: *mut std::ffi::c_void,
    /// The active lanes, written before a callout.
    pub cur: u64,
    /// The lanes that left a construct, written before a callout.
    pub parked: u64,
    /// The wave running, by index in its group.
    pub wave: u64,
    /// The loop whose budget ran out, when [`WaveCode::run`] returns 1.
    pub site: u64,
    /// The lanes the last branch found, before its vote.
    pub tested: u64,
    /// Loop iterations the wave has run (one wave to a pass).
    pub iterations: u64,
    /// The running wave's register frame (within `regs`).
    pub frame: *mut u8,
    /// Waves of the pass that have not finished (programs with barriers).
    pub running: u64,
    /// Per turn, the index in its group of the wave that runs it
    /// ([`State::waves`] of them): `0..` in order, or a shuffled order.
    pub wave_ids: *const u32,
    _pad: [u64; 2],
    /// Loop iterations each wave of the pass has run, where a pass holds
    /// several ([`WaveCode::groups`]): an iteration counts for the waves
    /// with an active lane in it, as the interpreter counts each wave's.
    pub slot_iterations: [u64; 4],
    /// The active lanes as words, all ones or zero.
    pub lanes: [u32; 64],
    /// Eight lanes gathered one by one.
    scratch: [u32; 8],
    /// The updates held by atomics built with a site
    /// ([`WaveBuilder::atomic`]): site `s`'s operand, folded, in word `s`
    /// once bit `s` of `held_sites` is set. The caller applies them to
    /// memory and clears `held_sites`.
    pub held: [u32; HELD_SITES],
    /// The sites that hold an update.
    pub held_sites: u64,
    /// Nonzero where the code may hold updates; where it is 0, every
    /// atomic goes to memory at once.
    pub hold: u64,
}

/// How many atomics can hold their updates in a [`State`].
pub const HELD_SITES: usize = 8;

/// Which operations of a run of them must write their result to the
/// frame, given each one's written register and whether it writes only the
/// active lanes (`None`: one that always writes), and the registers each
/// loads from the frame (a dry run of the run's register cache): all but
/// those whose register a later operation overwrites on every lane before
/// anything loads it back.
fn frame_writes(writes: &[Option<(u32, bool)>], loads: &[Vec<u32>]) -> Vec<bool> {
    (0..writes.len())
        .map(|i| {
            let Some((dst, _)) = writes[i] else {
                return true;
            };
            for j in i + 1..writes.len() {
                if loads[j].contains(&dst) {
                    return true;
                }
                if let Some((later, masked)) = writes[j]
                    && later == dst
                {
                    return masked;
                }
            }
            true
        })
        .collect()
}

/// `1 << 63` in a 64-bit lane: flips unsigned order into signed.
const SIGN_BIT: u64 = 1 << 63;

/// A callout: runs instruction `id` on the wave in `state`; nonzero stops
/// the group with that result.
pub type Callout = unsafe extern "sysv64" fn(state: *mut State, id: u32) -> u32;

/// A function of one or two narrow registers, lane by lane, that the code
/// calls ([`WaveBuilder::lane_call`]): `dst[l] = f(a[l], b[l])` for the
/// `n` lanes (a multiple of 8) where `keep` is null or `keep[l]` nonzero.
/// The code calls it only on CPUs with AVX2.
pub type LaneFn = unsafe extern "sysv64" fn(
    dst: *mut u32,
    a: *const u32,
    b: *const u32,
    keep: *const u32,
    n: usize,
);

/// A function of the waves of a pass that the code calls
/// ([`WaveBuilder::wave_call`]): `frame` is the register frame, `keep[l]`
/// nonzero for the active lanes of the pass's `n` lanes (its waves side by
/// side), and `args` the call's eight words: two of its own, then the byte
/// offsets in `frame` of six narrow registers (`u32::MAX` for none). The
/// code calls it only on CPUs with AVX2.
pub type WaveFn =
    unsafe extern "sysv64" fn(frame: *mut u8, keep: *const u32, n: usize, args: *const [u32; 8]);

impl State {
    /// A state with no frame, memory or inputs yet.
    pub fn new(callout: Callout) -> State {
        State {
            regs: std::ptr::null_mut(),
            frames: std::ptr::null_mut(),
            resources: std::ptr::null(),
            inputs: std::ptr::null(),
            launch: std::ptr::null(),
            waves: 0,
            budget: 0,
            callout,
            user: std::ptr::null_mut(),
            cur: 0,
            parked: 0,
            wave: 0,
            site: 0,
            tested: 0,
            iterations: 0,
            frame: std::ptr::null_mut(),
            running: 0,
            wave_ids: std::ptr::null(),
            _pad: [0; 2],
            slot_iterations: [0; 4],
            lanes: [0; 64],
            scratch: [0; 8],
            held: [0; HELD_SITES],
            held_sites: 0,
            hold: 0,
        }
    }
}

/// A memory: `words` 32-bit words at `base` may be read, the first
/// `writable` of them written (0 for a memory that only reads).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Resource {
    /// The first word.
    pub base: *mut u32,
    /// Words that may be read.
    pub words: u64,
    /// Words that may be written.
    pub writable: u64,
    /// A texture's width, height and depth in texels (see
    /// [`WaveBuilder::texel_address`]), then its mip level count.
    pub dims: [u32; 4],
    /// Bytes that may be read by 16-bit accesses (the words hold them,
    /// the last one perhaps in part).
    pub bytes: u64,
    /// Bytes that may be written by 16-bit accesses.
    pub writable_bytes: u64,
}

/// What [`WaveBuilder::resource_field`] reads of a [`Resource`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResourceField {
    /// Its byte count.
    Bytes,
    /// One of its texture dimensions (0 to 2: width, height, depth), or
    /// (3) its mip level count.
    Dim(u8),
}

/// Bytes of a [`Resource`] in the table.
const RESOURCE: i32 = std::mem::size_of::<Resource>() as i32;

/// A system value: lane `l` of wave `w` of the pass's group `g` is
/// `table[w * wave_size + l] + add[g]`, wrapping.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Input {
    /// A word per lane of a group's waves.
    pub table: *const u32,
    /// Added to every lane of each group of the pass.
    pub add: [u32; 8],
}

/// An operation's second operand: a register or a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// A narrow register.
    Reg(u32),
    /// The same word in every lane.
    Imm(u32),
}

/// Which lanes a branch takes.
#[derive(Clone, Copy, Debug)]
pub enum Lanes {
    /// Where the narrow register is nonzero.
    Nonzero(u32),
    /// Where the comparison (an [`Op32`] from `Eq` to `FGe`) of a narrow
    /// register with the operand holds.
    Compare(Op32, u32, Arg),
    /// Those the previous branch found.
    Previous,
}

/// A branch on the whole wave: all its lanes, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vote {
    /// Some active lane is among the lanes.
    Any,
    /// Every active lane is, and some lane is active.
    All,
}

/// The wave operations with code of their own, on narrow registers. Each
/// writes every lane; a wave with no active lane gets zeros.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaveKind {
    /// `WaveGetLaneIndex`.
    LaneIndex,
    /// `WaveGetLaneCount`.
    LaneCount,
    /// `GetGroupWaveIndex`.
    GroupWaveIndex,
    /// `GetGroupWaveCount`.
    GroupWaveCount,
    /// `WaveIsFirstLane`.
    IsFirstLane,
    /// `WaveActiveAnyTrue` of a condition (its nonzero lanes).
    AnyTrue,
    /// `WaveActiveAllTrue`.
    AllTrue,
    /// `WaveActiveCountBits`.
    CountBits,
    /// The word of the first active lane.
    ReadFirst,
    /// The active lanes folded by an integer operation: `Add`, `Mul`,
    /// `And`, `Or`, `Xor`, `UMin`, `UMax`, `SMin`, `SMax`.
    Reduce(Op32),
    /// The active lanes folded by any two-operand operation in lane order,
    /// from the first active lane's value (`FAdd` for a float sum).
    Fold(Op32),
    /// For each lane, the fold (as `Fold`) of the active lanes below it,
    /// or the identity word where there is none.
    Prefix(Op32, u32),
    /// `WaveReadLaneAt`: the lane the second operand names, modulo the
    /// wave size.
    ReadAt,
    /// `WaveActiveAllEqual`: whether every active lane equals the first
    /// active lane, as words (`float`: as floats, so `-0 == +0` and a NaN
    /// equals nothing); true where no lane is active.
    AllEqual {
        /// Compare as floats.
        float: bool,
    },
    /// `QuadReadAcrossX` (`1`), `QuadReadAcrossY` (`2`) and
    /// `QuadReadAcrossDiagonal` (`3`): each lane reads lane `l ^ k` of its
    /// quad, four lanes in a row.
    QuadSwap(u8),
    /// `QuadReadLaneAt`: each lane reads the lane of its quad that the
    /// second operand names, modulo 4.
    QuadLaneAt,
}

/// A 32-bit atomic read-modify-write, each active lane in lane order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Atomic {
    /// Adds, wrapping.
    Add,
    /// ANDs in.
    And,
    /// ORs in.
    Or,
    /// XORs in.
    Xor,
    /// Stores.
    Exchange,
    /// The smaller, unsigned.
    UMin,
    /// The larger, unsigned.
    UMax,
    /// The smaller, signed.
    SMin,
    /// The larger, signed.
    SMax,
    /// Stores the second operand where the word equals the first.
    CompareExchange,
}

/// Where a memory access goes: byte `addr + offset` of memory `slot`
/// (`addr` a wide register; none: `offset` alone, for every lane).
#[derive(Clone, Copy, Debug)]
pub struct Address {
    /// The memory's index in `State::resources`; for a `grouped` memory,
    /// that of the pass's first group, the others' following it.
    pub slot: u32,
    /// Each group of the pass has a memory of its own (shared memory).
    pub grouped: bool,
    /// The bytes from one lane's address to the next's that loads expect
    /// (a multiple of 4 up to 32: an array of structures read with the
    /// thread index); other values, or other addresses, work too.
    pub stride: u32,
    /// The byte address of each lane, a wide register.
    pub addr: Option<u32>,
    /// Added to every lane's address, wrapping.
    pub offset: u32,
    /// Where loads read a stream, how many bytes on the same lane of the
    /// next pass's groups reads: the CPU is asked to fetch that line (0:
    /// nothing is fetched ahead).
    pub ahead: u32,
    /// Within each chunk of eight lanes, every lane's address (active or
    /// not) is the first lane's plus `stride` per lane, so one bounds
    /// check of the first covers the chunk.
    pub consecutive: bool,
}

/// The writable words of a memory from which whole chunks of eight
/// contiguous lanes are stored with `vmovntdq` (16-byte aligned), past the
/// caches: three
/// quarters of the last-level cache (`/sys`), else of 32 MiB. A smaller
/// memory likely stays in the cache and is read again from there.
pub fn streaming_words() -> i32 {
    static WORDS: std::sync::OnceLock<i32> = std::sync::OnceLock::new();
    *WORDS.get_or_init(|| {
        let cache = (0..8)
            .filter_map(|i| {
                let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
                let level = std::fs::read_to_string(format!("{dir}/level")).ok()?;
                let size = std::fs::read_to_string(format!("{dir}/size")).ok()?;
                let kib: u64 = size.trim().strip_suffix('K')?.parse().ok()?;
                Some((level.trim().parse::<u32>().ok()?, kib * 1024))
            })
            .max()
            .map_or(32 << 20, |(_, bytes)| bytes);
        i32::try_from(cache / 4 * 3 / 4).unwrap_or(i32::MAX)
    })
}

/// A place in the code.
#[derive(Clone, Copy, Debug)]
pub struct Label(DynamicLabel);

const REGS: i32 = offset_of!(State, regs) as i32;
const FRAMES: i32 = offset_of!(State, frames) as i32;
const RESOURCES: i32 = offset_of!(State, resources) as i32;
const INPUTS: i32 = offset_of!(State, inputs) as i32;
const LAUNCH: i32 = offset_of!(State, launch) as i32;
const WAVES: i32 = offset_of!(State, waves) as i32;
const BUDGET: i32 = offset_of!(State, budget) as i32;
const CALLOUT: i32 = offset_of!(State, callout) as i32;
const CUR: i32 = offset_of!(State, cur) as i32;
const PARKED: i32 = offset_of!(State, parked) as i32;
const WAVE: i32 = offset_of!(State, wave) as i32;
const SITE: i32 = offset_of!(State, site) as i32;
const TESTED: i32 = offset_of!(State, tested) as i32;
const ITERATIONS: i32 = offset_of!(State, iterations) as i32;
const WAVE_IDS: i32 = offset_of!(State, wave_ids) as i32;
const SLOT_ITERATIONS: i32 = offset_of!(State, slot_iterations) as i32;
const FRAME: i32 = offset_of!(State, frame) as i32;
const RUNNING: i32 = offset_of!(State, running) as i32;
const LANES: i32 = offset_of!(State, lanes) as i32;
const SCRATCH: i32 = offset_of!(State, scratch) as i32;
const HELD: i32 = offset_of!(State, held) as i32;
const HELD_SITES_AT: i32 = offset_of!(State, held_sites) as i32;
const HOLD: i32 = offset_of!(State, hold) as i32;
const _: () = assert!(LANES % 32 == 0);

/// `vmovmskps` (`vmovmskpd` with `pd`) of ymm `s` into the 32-bit
/// general register `d` (0 is `eax`, 1 `ecx`), encoded here, as dynasm
/// 5.1 does not take a general register beside a ymm one.
fn movmsk(asm: &mut dynasmrt::x64::Assembler, d: u8, s: u8, pd: bool) {
    // Three-byte VEX: inverted R, X, B and the 0F map; W = 0, no vvvv
    // (1111), L = 1, the 66 prefix for the `pd` form; opcode 50, then a
    // register-to-register ModRM.
    let rxb = (!(d >> 3) & 1) << 7 | 1 << 6 | (!(s >> 3) & 1) << 5;
    asm.push(0xC4);
    asm.push(rxb | 0b00001);
    asm.push(0b0111_1100 | u8::from(pd));
    asm.push(0x50);
    asm.push(0b11 << 6 | (d & 7) << 3 | (s & 7));
}

/// A construct's masks: entry, aux, exited, continued.
const ENTRY: i32 = 0;
const AUX: i32 = 8;
const EXITED: i32 = 16;
const CONTINUED: i32 = 24;

/// The labels and frame layout of a program whose waves take turns.
#[derive(Clone, Copy)]
struct Turns {
    /// Saves the running wave (resuming at `rax`), then `switch_in`.
    switch_out: DynamicLabel,
    /// Runs the next wave from where it stopped.
    switch_in: DynamicLabel,
    /// Where a finished wave "resumes": straight on to the next.
    finished: DynamicLabel,
    /// The saved state in a wave's frame: where it resumes, its active and
    /// parked lanes and its loop iterations (with its waves' counts at
    /// `SAVE_SLOT_ITERATIONS`).
    save: i32,
}

const SAVE_PC: i32 = 0;
const SAVE_CUR: i32 = 8;
const SAVE_PARKED: i32 = 16;
const SAVE_ITERATIONS: i32 = 24;
const SAVE_SLOT_ITERATIONS: i32 = 32;

/// Builds the code of one program at one wave size.
pub struct WaveBuilder {
    b: Builder,
    /// Lanes the code computes: `width / wave` waves side by side.
    width: usize,
    /// Lanes of one wave.
    wave: usize,
    /// What `WaveGetLaneCount` returns (see [`WaveBuilder::report_lane_count`]).
    lane_count: usize,
    /// Byte offset of each register in the frame, and whether it is wide.
    offsets: Vec<i32>,
    wide: Vec<bool>,
    frame_bytes: usize,
    frames: usize,
    entry: usize,
    wave_top: DynamicLabel,
    wave_next: DynamicLabel,
    out: DynamicLabel,
    done: DynamicLabel,
    /// Waves take turns at barriers: each has a frame of its own, with
    /// its saved state at `save` (see [`WaveBuilder::barrier`]).
    turns: Option<Turns>,
    /// Loops whose budget ran out: where each one's code jumps, and its
    /// site.
    stubs: Vec<(DynamicLabel, u64)>,
    /// `State::lanes` holds the execution mask here (it is written out
    /// only when an instruction needs it).
    lanes_valid: bool,
    /// Each wave's lanes are 2×2 blocks of its group's threads (see
    /// [`WaveBuilder::quad_rows`]).
    quads: bool,
}

/// The machine code of a program at one wave size.
pub struct WaveCode {
    code: Code,
    turns: bool,
    groups: usize,
    entry: usize,
    frame_bytes: usize,
    frames: usize,
    offsets: Vec<i32>,
}

impl std::fmt::Debug for WaveCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaveCode")
            .field("bytes", &self.code.0.len())
            .finish_non_exhaustive()
    }
}

impl WaveCode {
    /// Whether each wave of a group has a frame of its own (the program
    /// has barriers): `State::regs` and `State::frames` then hold one per
    /// wave.
    pub fn turns(&self) -> bool {
        self.turns
    }

    /// The groups whose waves run side by side.
    pub fn groups(&self) -> usize {
        self.groups
    }

    /// Bytes of register frame a wave needs.
    pub fn frame_bytes(&self) -> usize {
        self.frame_bytes
    }

    /// Construct depths: `State::frames` holds four `u64` per depth.
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// Where register `r` starts in the frame.
    pub fn offset(&self, r: u32) -> usize {
        self.offsets[r as usize] as usize
    }

    /// Bytes of machine code.
    pub fn len(&self) -> usize {
        self.code.0.len()
    }

    /// Whether there is no code (never: a program has at least its loop
    /// over the waves).
    pub fn is_empty(&self) -> bool {
        self.code.0.is_empty()
    }

    /// Runs every wave of one group: 0 when all finished, 1 when a loop
    /// ran past `State::budget` (its site in `State::site`), or a
    /// callout's nonzero result.
    ///
    /// # Safety
    /// Every pointer of `state` is valid for what the code does with it:
    /// `regs` for [`WaveCode::frame_bytes`] bytes and `frames` for
    /// [`WaveCode::frames`] × 4 words (each once per wave of the group
    /// where [`WaveCode::turns`]), `resources` and `inputs` for every
    /// slot and input the program names (each resource's `words` readable
    /// and `writable` writable), each input's table for `waves` waves,
    /// `launch` for `waves` × [`WaveCode::groups`] masks, and `callout`
    /// runs any callout id the program names.
    pub unsafe fn run(&self, state: *mut State) -> u32 {
        type Entry = unsafe extern "sysv64" fn(*mut State) -> u32;
        let ptr = self.code.0.ptr(AssemblyOffset(self.entry));
        // SAFETY: the entry is this code's start, which follows `Entry`'s
        // convention; the caller vouches for the state.
        unsafe {
            let f = std::mem::transmute::<*const u8, Entry>(ptr);
            f(state)
        }
    }
}

impl WaveBuilder {
    /// A builder for waves of `wave` lanes (8, 16, 32 or 64), `width /
    /// wave` of them side by side in `width` lanes (at most 64), whose
    /// registers are wide or narrow as `wide` says, with the system values
    /// `inputs` (the registers they fill, by input index). With `turns`,
    /// the program has barriers ([`WaveBuilder::barrier`]) and each wave a
    /// frame of its own. `None` where the CPU lacks AVX2, POPCNT or BMI1,
    /// or for other sizes.
    pub fn new(
        width: usize,
        wave: usize,
        wide: &[bool],
        inputs: &[u32],
        turns: bool,
    ) -> Option<WaveBuilder> {
        let supported = std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("f16c")
            && std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("bmi1")
            && matches!(wave, 8 | 16 | 32 | 64)
            && width <= 64
            && width.is_multiple_of(wave)
            // Each wave's loop iterations are a lane of a 256-bit vector.
            && width / wave <= 4;
        if !supported {
            return None;
        }
        let mut offsets = Vec::with_capacity(wide.len());
        let mut at = 0usize;
        for &w in wide {
            offsets.push(i32::try_from(at).ok()?);
            at += width * if w { 8 } else { 4 };
        }
        let mut b = Builder::new()?;
        let turns = turns.then(|| {
            let save = at.next_multiple_of(32);
            at = save + 64;
            Turns {
                switch_out: b.asm.new_dynamic_label(),
                switch_in: b.asm.new_dynamic_label(),
                finished: b.asm.new_dynamic_label(),
                save: save as i32,
            }
        });
        let wave_top = b.asm.new_dynamic_label();
        let wave_next = b.asm.new_dynamic_label();
        let out = b.asm.new_dynamic_label();
        let done = b.asm.new_dynamic_label();
        let entry = b.asm.offset().0;
        let mut this = WaveBuilder {
            b,
            width,
            wave,
            lane_count: wave,
            offsets,
            wide: wide.to_vec(),
            frame_bytes: at,
            frames: 0,
            entry,
            wave_top,
            wave_next,
            out,
            done,
            turns,
            stubs: Vec::new(),
            lanes_valid: false,
            quads: false,
        };
        let shift = (wave * 4).trailing_zeros() as i8;
        dynasm!(this.b.asm; .arch x64
            ; push rbx
            ; push rbp
            ; push r12
            ; push r13
            ; push r14
            ; push r15
            ; sub rsp, 8
            ; mov rbx, rdi
            ; mov r12, [rbx + REGS]
            ; mov r15, [rbx + FRAMES]
            ; mov [rbx + FRAME], r12
        );
        match turns {
            // Every wave starts at `wave_top`, the first one first.
            Some(t) => dynasm!(this.b.asm; .arch x64
                ; lea rdx, [=>wave_top]
                ; xor eax, eax
                ; mov rcx, r12
                ; next:
                ; mov [rcx + t.save + SAVE_PC], rdx
                ; add rcx, at as i32
                ; inc rax
                ; cmp rax, [rbx + WAVES]
                ; jb <next
                ; mov [rbx + RUNNING], rax
                ; mov QWORD [rbx + WAVE], -1
                ; jmp =>t.switch_in
                ; =>wave_top
                ; mov rax, [rbx + WAVE]
            ),
            None => dynasm!(this.b.asm; .arch x64
                ; mov QWORD [rbx + WAVE], 0
                ; =>wave_top
                ; mov rax, [rbx + WAVE]
                ; cmp rax, [rbx + WAVES]
                ; jae =>done
            ),
        }
        dynasm!(this.b.asm; .arch x64
            ; mov rcx, [rbx + LAUNCH]
            ; imul rdx, rax, (width / wave) as i32
            ; mov r13, [rcx + rdx * 8]
        );
        for s in 1..this.waves() {
            dynasm!(this.b.asm; .arch x64
                ; mov rsi, [rcx + rdx * 8 + 8 * s as i32]
                ; shl rsi, (s * wave) as i8
                ; or r13, rsi
            );
        }
        dynasm!(this.b.asm; .arch x64
            ; xor r14d, r14d
            ; mov QWORD [rbx + ITERATIONS], 0
            ; mov QWORD [rbx + TESTED], 0
        );
        if this.waves() > 1 {
            dynasm!(this.b.asm; .arch x64
                ; vpxor xmm15, xmm15, xmm15
                ; vmovdqa [rbx + SLOT_ITERATIONS], ymm15
            );
        }
        for (i, &dst) in inputs.iter().enumerate() {
            let at = std::mem::size_of::<Input>() as i32 * i as i32;
            let d = this.offset(dst)?;
            dynasm!(this.b.asm; .arch x64
                ; mov rcx, [rbx + INPUTS]
                ; mov rdx, [rcx + at]
                ; mov rax, [rbx + WAVE]
                ; shl rax, shift
                ; add rdx, rax
            );
            for s in 0..this.waves() {
                let add = at + offset_of!(Input, add) as i32 + 4 * s as i32;
                dynasm!(this.b.asm; .arch x64; vpbroadcastd ymm0, [rcx + add]);
                let first = this.wave_chunks(s).start;
                for c in this.wave_chunks(s) {
                    dynasm!(this.b.asm; .arch x64
                        ; vpaddd ymm1, ymm0, [rdx + 32 * (c - first)]
                        ; vmovdqu [r12 + d + 32 * c], ymm1
                    );
                }
            }
        }
        this.sync_lanes();
        this.lanes_valid = true;
        dynasm!(this.b.asm; .arch x64
            ; jmp >body
            ; =>done
            ; xor eax, eax
            ; =>out
            ; vzeroupper
            ; add rsp, 8
            ; pop r15
            ; pop r14
            ; pop r13
            ; pop r12
            ; pop rbp
            ; pop rbx
            ; ret
            ; body:
        );
        Some(this)
    }

    fn chunks(&self) -> std::ops::Range<i32> {
        0..(self.width / 8) as i32
    }

    fn offset(&self, r: u32) -> Option<i32> {
        self.offsets.get(r as usize).copied()
    }

    /// The frame offset of narrow register `r`.
    fn narrow(&self, r: u32) -> i32 {
        debug_assert!(!self.wide[r as usize], "register {r} is wide");
        self.offsets[r as usize]
    }

    fn wide_at(&self, r: u32) -> i32 {
        debug_assert!(self.wide[r as usize], "register {r} is narrow");
        self.offsets[r as usize]
    }

    /// The waves side by side.
    fn waves(&self) -> usize {
        self.width / self.wave
    }

    /// The lanes of wave `s`, as a mask.
    fn wave_mask(&self, s: usize) -> u64 {
        let all = if self.wave == 64 {
            u64::MAX
        } else {
            (1 << self.wave) - 1
        };
        all << (s * self.wave)
    }

    /// The chunks of eight lanes of wave `s`.
    fn wave_chunks(&self, s: usize) -> std::ops::Range<i32> {
        let n = (self.wave / 8) as i32;
        n * s as i32..n * (s as i32 + 1)
    }

    /// `r10` = the lanes of wave `s`, as a mask.
    fn wave_mask_r10(&mut self, s: usize) {
        let m = self.wave_mask(s) as i64;
        dynasm!(self.b.asm; .arch x64; mov r10, QWORD m);
    }

    fn words(&mut self, w: [u32; 8]) -> DynamicLabel {
        self.b.constant(Constant::Words(w))
    }

    fn qwords(&mut self, q: [u64; 4]) -> DynamicLabel {
        let w = std::array::from_fn(|i| (q[i / 2] >> (32 * (i % 2))) as u32);
        self.words(w)
    }

    /// A new label.
    pub fn label(&mut self) -> Label {
        Label(self.b.asm.new_dynamic_label())
    }

    /// Places `label` here.
    pub fn bind(&mut self, label: Label) {
        dynasm!(self.b.asm; .arch x64; =>label.0);
        self.lanes_valid = false;
    }

    /// Makes `State::lanes` hold the execution mask (uses `rax`, `ymm14`
    /// and `ymm15`).
    fn need_lanes(&mut self) {
        if !self.lanes_valid {
            self.sync_lanes();
            self.lanes_valid = true;
        }
    }

    /// Writes the execution mask out as words.
    fn sync_lanes(&mut self) {
        if self.width <= 32 {
            // The mask's low 32 bits in every lane, each lane's bit tested.
            dynasm!(self.b.asm; .arch x64
                ; vmovd xmm15, r13d
                ; vpbroadcastd ymm14, xmm15
            );
            for c in self.chunks() {
                let bits = self.words(std::array::from_fn(|l| 1 << (8 * c as u32 + l as u32)));
                dynasm!(self.b.asm; .arch x64
                    ; vpand ymm15, ymm14, [=>bits]
                    ; vpcmpeqd ymm15, ymm15, [=>bits]
                    ; vmovdqa [rbx + LANES + 32 * c], ymm15
                );
            }
            return;
        }
        for c in self.chunks() {
            self.chunk_words(13, c, 15);
            dynasm!(self.b.asm; .arch x64; vmovdqa [rbx + LANES + 32 * c], ymm15);
        }
    }

    /// Vector register `v` = chunk `c` of the mask in general register
    /// `mask` as words, all ones or zero (uses `rax`).
    fn chunk_words(&mut self, mask: u8, c: i32, v: u8) {
        let bits = self.b.constant(Constant::Bits);
        dynasm!(self.b.asm; .arch x64
            ; mov rax, Rq(mask)
            ; shr rax, (8 * c) as i8
            ; movzx eax, al
            ; vmovd Rx(v), eax
            ; vpbroadcastd Ry(v), Rx(v)
            ; vpand Ry(v), Ry(v), [=>bits]
            ; vpcmpeqd Ry(v), Ry(v), [=>bits]
        );
    }

    /// Loads the active lanes of chunk `c` as words into `MASK32`.
    fn mask_of_chunk(&mut self, c: i32) {
        dynasm!(self.b.asm; .arch x64; vmovdqa Ry(MASK32), [rbx + LANES + 32 * c]);
    }

    /// Stores vector register 3 to chunk `c` of narrow register at `d`,
    /// on the active lanes only when `masked`.
    fn store_chunk(&mut self, d: i32, c: i32, masked: bool) {
        if masked {
            self.mask_of_chunk(c);
            dynasm!(self.b.asm; .arch x64
                ; vmovdqu ymm4, [r12 + d + 32 * c]
                ; vpblendvb ymm3, ymm4, ymm3, Ry(MASK32)
            );
        }
        dynasm!(self.b.asm; .arch x64; vmovdqu [r12 + d + 32 * c], ymm3);
    }

    /// `dst = op(a, b)` (`Select`: `a != 0 ? b : c`) on narrow registers,
    /// on the active lanes only when `masked`.
    pub fn op(&mut self, op: Op32, dst: u32, a: u32, b: Arg, c: Option<u32>, masked: bool) {
        let (d, a) = (self.narrow(dst), self.narrow(a));
        let b = match b {
            Arg::Reg(r) => Ok(self.narrow(r)),
            Arg::Imm(k) => Err(k),
        };
        let c = c.map(|r| self.narrow(r));
        if masked {
            self.need_lanes();
        }
        for k in self.chunks() {
            dynasm!(self.b.asm; .arch x64; vmovdqu ymm0, [r12 + a + 32 * k]);
            let second = match b {
                Ok(b) => {
                    dynasm!(self.b.asm; .arch x64; vmovdqu ymm1, [r12 + b + 32 * k]);
                    Second::Reg(1)
                }
                Err(imm) => Second::Imm(imm),
            };
            match (op, c) {
                (Op32::Select, Some(c)) => dynasm!(self.b.asm; .arch x64
                    ; vmovdqu ymm2, [r12 + c + 32 * k]
                    ; vpxor Ry(TEMP), Ry(TEMP), Ry(TEMP)
                    ; vpcmpeqd Ry(TEMP), Ry(TEMP), ymm0
                    ; vpblendvb ymm3, ymm1, ymm2, Ry(TEMP)
                ),
                _ => self.b.step(op, 3, 0, second),
            }
            self.store_chunk(d, k, masked);
        }
    }

    /// `dst = narrow(op(widen(a), widen(b)))` on narrow registers in one
    /// pass (a missing `widen` or `narrow` is the identity; `narrow`'s
    /// second operand is its constant), on the active lanes only when
    /// `masked`: 16-bit operations as 32-bit ones.
    pub fn op_chain(
        &mut self,
        widen: Option<Op32>,
        op: Op32,
        narrow: Option<(Op32, u32)>,
        [dst, a]: [u32; 2],
        b: Arg,
        masked: bool,
    ) {
        let (d, a) = (self.narrow(dst), self.narrow(a));
        let b = match b {
            Arg::Reg(r) => Ok(self.narrow(r)),
            Arg::Imm(k) => Err(k),
        };
        if masked {
            self.need_lanes();
        }
        for k in self.chunks() {
            dynasm!(self.b.asm; .arch x64; vmovdqu ymm0, [r12 + a + 32 * k]);
            if let Some(w) = widen {
                self.b.step(w, 0, 0, Second::Imm(0));
            }
            let second = match b {
                Ok(b) => {
                    dynasm!(self.b.asm; .arch x64; vmovdqu ymm1, [r12 + b + 32 * k]);
                    if let Some(w) = widen {
                        self.b.step(w, 1, 1, Second::Imm(0));
                    }
                    Second::Reg(1)
                }
                Err(imm) => Second::Imm(imm),
            };
            self.b.step(op, 3, 0, second);
            if let Some((n, imm)) = narrow {
                self.b.step(n, 3, 3, Second::Imm(imm));
            }
            self.store_chunk(d, k, masked);
        }
    }

    /// Narrow `dst` = the low word of `field` of memory `slot`'s table
    /// entry divided by `divisor` (at least 1), in every lane: a resource
    /// query.
    pub fn resource_field(&mut self, dst: u32, slot: u32, field: ResourceField, divisor: u64) {
        let d = self.narrow(dst);
        let entry = RESOURCE * slot as i32;
        dynasm!(self.b.asm; .arch x64; mov rsi, [rbx + RESOURCES]);
        match field {
            ResourceField::Bytes => {
                let at = entry + offset_of!(Resource, bytes) as i32;
                dynasm!(self.b.asm; .arch x64; mov rax, [rsi + at]);
            }
            ResourceField::Dim(i) => {
                let at = entry + offset_of!(Resource, dims) as i32 + 4 * i32::from(i.min(3));
                dynasm!(self.b.asm; .arch x64; mov eax, [rsi + at]);
            }
        }
        if divisor > 1 {
            dynasm!(self.b.asm; .arch x64
                ; mov rcx, QWORD divisor as i64
                ; xor edx, edx
                ; div rcx
            );
        }
        dynasm!(self.b.asm; .arch x64
            ; vmovd xmm3, eax
            ; vpbroadcastd ymm3, xmm3
        );
        for c in self.chunks() {
            dynasm!(self.b.asm; .arch x64; vmovdqu [r12 + d + 32 * c], ymm3);
        }
    }

    /// `dst = src`, every lane or the active ones.
    pub fn copy(&mut self, dst: u32, src: u32, masked: bool) {
        let wide = self.wide[dst as usize];
        debug_assert_eq!(wide, self.wide[src as usize]);
        let (d, s) = (self.offsets[dst as usize], self.offsets[src as usize]);
        if masked {
            self.need_lanes();
        }
        if wide {
            for k in self.wide_chunks() {
                dynasm!(self.b.asm; .arch x64; vmovdqu ymm3, [r12 + s + 32 * k]);
                self.store_wide_chunk(d, k, masked);
            }
            return;
        }
        for k in self.chunks() {
            dynasm!(self.b.asm; .arch x64; vmovdqu ymm3, [r12 + s + 32 * k]);
            self.store_chunk(d, k, masked);
        }
    }

    /// `dst = bits` on every lane (a narrow register takes the low word).
    pub fn constant(&mut self, dst: u32, bits: u64) {
        let wide = self.wide[dst as usize];
        let l = if wide {
            self.qwords([bits; 4])
        } else {
            self.words([bits as u32; 8])
        };
        let d = self.offsets[dst as usize];
        let pieces = (self.width / 8 * if wide { 2 } else { 1 }) as i32;
        dynasm!(self.b.asm; .arch x64; vmovdqa ymm3, [=>l]);
        for k in 0..pieces {
            dynasm!(self.b.asm; .arch x64; vmovdqu [r12 + d + 32 * k], ymm3);
        }
    }

    /// Wide `dst = base + index * scale` on every lane, the narrow `index`
    /// sign- or zero-extended, wrapping. `false`, with no code, when
    /// `scale` is neither a power of two nor below 2^32.
    pub fn scale(
        &mut self,
        dst: u32,
        index: u32,
        signed: bool,
        scale: u64,
        base: Option<u32>,
    ) -> bool {
        let shift = scale
            .is_power_of_two()
            .then(|| scale.trailing_zeros() as i8);
        if shift.is_none() && scale > u64::from(u32::MAX) {
            return false;
        }
        let factor = self.qwords([scale; 4]);
        let (d, i) = (self.wide_at(dst), self.narrow(index));
        let base = base.map(|b| self.wide_at(b));
        for c in self.chunks() {
            for h in 0..2 {
                let (src, to) = (i + 32 * c + 16 * h, d + 64 * c + 32 * h);
                if signed {
                    dynasm!(self.b.asm; .arch x64; vpmovsxdq ymm0, [r12 + src]);
                } else {
                    dynasm!(self.b.asm; .arch x64; vpmovzxdq ymm0, [r12 + src]);
                }
                match shift {
                    Some(0) => {}
                    Some(k) => dynasm!(self.b.asm; .arch x64; vpsllq ymm0, ymm0, k),
                    // The sign-extended index's low and high halves, each
                    // times the scale: the high half's product lands 32
                    // bits up (all ones times the scale, for a negative
                    // index, subtracts the scale there).
                    None if signed => {
                        dynasm!(self.b.asm; .arch x64; vpmuludq ymm1, ymm0, [=>factor]);
                        crate::x64::shift_q(&mut self.b.asm, false, 2, 0, 32);
                        dynasm!(self.b.asm; .arch x64
                            ; vpmuludq ymm2, ymm2, [=>factor]
                            ; vpsllq ymm2, ymm2, 32
                            ; vpaddq ymm0, ymm1, ymm2
                        );
                    }
                    None => dynasm!(self.b.asm; .arch x64; vpmuludq ymm0, ymm0, [=>factor]),
                }
                if let Some(b) = base {
                    dynasm!(self.b.asm; .arch x64; vpaddq ymm0, ymm0, [r12 + b + 64 * c + 32 * h]);
                }
                dynasm!(self.b.asm; .arch x64; vmovdqu [r12 + to], ymm0);
            }
        }
        true
    }

    /// Narrow `dst` = narrow register `base + delta` of each lane, 0 where
    /// the wide `delta` is `limit` or more: a local array read at each
    /// lane's own index, one gather a half chunk. `false`, with no code,
    /// where the array's registers are not evenly spaced narrow ones.
    pub fn gather_regs(&mut self, dst: u32, base: u32, delta: u32, limit: u32) -> bool {
        let regs = base as usize..base as usize + limit as usize;
        let stride = (self.width * 4) as i64;
        let Some(&first) = self.offsets.get(base as usize) else {
            return false;
        };
        let even = regs.clone().enumerate().all(|(k, r)| {
            self.wide.get(r) == Some(&false)
                && self.offsets.get(r).map(|&o| i64::from(o))
                    == Some(i64::from(first) + k as i64 * stride)
        });
        if limit == 0 || !even {
            return false;
        }
        let (d, deltas) = (self.narrow(dst), self.wide_at(delta));
        let sign = self.qwords([SIGN_BIT; 4]);
        let limit = self.qwords([u64::from(limit) ^ SIGN_BIT; 4]);
        let step = self.qwords([stride as u64; 4]);
        let low_halves = self.b.constant(Constant::LowHalves);
        for c in self.chunks() {
            for h in 0..2 {
                // Each lane's word within a register: 4 bytes a lane.
                let lanes = self.qwords(std::array::from_fn(|j| {
                    (32 * c + 16 * h) as u64 + 4 * j as u64
                }));
                let at = deltas + 64 * c + 32 * h;
                dynasm!(self.b.asm; .arch x64
                    ; vmovdqu ymm0, [r12 + at]
                    // `delta < limit`, unsigned: both with the sign flipped.
                    ; vpxor ymm1, ymm0, [=>sign]
                    ; vmovdqa ymm2, [=>limit]
                    ; vpcmpgtq ymm1, ymm2, ymm1
                    ; vpmuludq ymm0, ymm0, [=>step]
                    ; vpaddq ymm0, ymm0, [=>lanes]
                    ; vmovdqa ymm2, [=>low_halves]
                    ; vpermd ymm1, ymm2, ymm1
                    ; vpxor xmm5, xmm5, xmm5
                    ; vpgatherqd xmm5, [r12 + ymm0 * 1 + first], xmm1
                );
                if h == 0 {
                    dynasm!(self.b.asm; .arch x64; vmovdqa xmm3, xmm5);
                } else {
                    dynasm!(self.b.asm; .arch x64; vinserti128 ymm3, ymm3, xmm5, 1);
                }
            }
            self.store_chunk(d, c, false);
        }
        true
    }

    /// Says that each wave's lanes are 2×2 blocks of its group's threads
    /// (SM 6.6's layout of 2D groups): loads and stores whose lanes are
    /// not one run of words then try two rows of four
    /// ([`WaveBuilder::quads`]) before lane by lane.
    pub fn quad_rows(&mut self) {
        self.quads = true;
    }

    /// Makes `WaveGetLaneCount` return `n` rather than the wave size: for
    /// waves of `n` lanes of which only the first `wave` can exist (a
    /// group of at most `wave` threads).
    pub fn report_lane_count(&mut self, n: usize) {
        self.lane_count = n;
    }

    /// For a grouped memory, `rdx` = the words of group `g`'s (the same
    /// size as the first group's, which `memory` loaded); uses `rsi`.
    fn group_memory(&mut self, at: Address, g: usize) {
        if at.grouped && g > 0 {
            let slot = RESOURCE * (at.slot as i32 + g as i32);
            dynasm!(self.b.asm; .arch x64
                ; mov rsi, [rbx + RESOURCES]
                ; mov rdx, [rsi + slot]
            );
        }
    }

    /// [`WaveBuilder::group_memory`] for the group of chunk `c`, where
    /// the chunk is its group's first.
    fn chunk_memory(&mut self, at: Address, c: i32) {
        let per = (self.wave / 8) as i32;
        if at.grouped && c % per == 0 {
            self.group_memory(at, (c / per) as usize);
        }
    }

    /// `rdx` = the memory of `slot`'s words, `r8` its readable (or, for
    /// stores, writable) word count, `r9` the constant byte offset.
    fn memory(&mut self, slot: u32, store: bool, offset: u32) {
        let at = RESOURCE * slot as i32;
        let count = if store { 16 } else { 8 };
        dynasm!(self.b.asm; .arch x64
            ; mov rsi, [rbx + RESOURCES]
            ; mov rdx, [rsi + at]
            ; mov r8, [rsi + at + count]
            ; mov r9d, offset as i32
        );
    }

    /// Jumps to `slow` unless the eight byte addresses of chunk `c` of the
    /// wide register at `a` follow each other from an aligned one in
    /// bounds; else `rax` = the first word's index.
    fn contiguous(&mut self, a: i32, c: i32, slow: DynamicLabel) {
        self.strided(a, c, slow, 1, false);
    }

    /// [`WaveBuilder::contiguous`] for loads: only the active lanes'
    /// addresses must follow the first lane's. The span from the first
    /// lane's is in bounds, so a load may read the others' words too and
    /// leave them unused (a partial wave, or waves of 4 lanes in 8).
    fn contiguous_active(&mut self, a: i32, c: i32, slow: DynamicLabel) {
        self.strided(a, c, slow, 1, true);
    }

    /// Words of memory a strided load of eight lanes `stride` words apart
    /// reads: whole vectors from the first lane's word.
    fn span(stride: u32) -> u32 {
        (stride * 7 + 1).div_ceil(8) * 8
    }

    /// Jumps to `slow` unless the first lane's byte address of chunk `c`
    /// of the wide register at `a` is aligned, with the
    /// [`WaveBuilder::span`] of `stride` words from it in bounds; else
    /// `rax` = its word index. All an [`Address::consecutive`] address
    /// needs. A word index from 2^29 on also goes to `slow`: lanes whose
    /// 32-bit index wrapped (at 2^31 or 2^32) lie there, where no memory
    /// the fast path serves reaches.
    fn first_in_bounds(&mut self, a: i32, c: i32, slow: DynamicLabel, stride: u32) {
        let at = a + 64 * c;
        let span = Self::span(stride);
        dynasm!(self.b.asm; .arch x64
            ; mov rax, [r12 + at]
            ; add rax, r9
            ; test al, 3
            ; jnz =>slow
            ; shr rax, 2
            ; cmp rax, (1 << 29) - 64
            ; jae =>slow
            ; lea rcx, [rax + span as i32]
            ; cmp rcx, r8
            ; ja =>slow
        );
    }

    /// [`WaveBuilder::contiguous`] for addresses `stride` words apart:
    /// [`WaveBuilder::first_in_bounds`], then every lane's address (every
    /// active lane's, with `active`) compared with the first's.
    fn strided(&mut self, a: i32, c: i32, slow: DynamicLabel, stride: u32, active: bool) {
        let step = u64::from(4 * stride);
        let low = self.qwords([0, step, 2 * step, 3 * step]);
        let high = self.qwords([4 * step, 5 * step, 6 * step, 7 * step]);
        let at = a + 64 * c;
        self.first_in_bounds(a, c, slow, stride);
        dynasm!(self.b.asm; .arch x64
            ; vpbroadcastq ymm0, [r12 + at]
            ; vpaddq ymm1, ymm0, [=>low]
            ; vpcmpeqq ymm1, ymm1, [r12 + at]
            ; vpaddq ymm2, ymm0, [=>high]
            ; vpcmpeqq ymm2, ymm2, [r12 + at + 32]
        );
        if active {
            self.inactive_pass(c);
        }
        self.unless_all_equal(slow);
    }

    /// Jumps to `skip` when chunk `c` has no active lane (uses `r10`).
    pub(super) fn unless_active(&mut self, c: i32, skip: DynamicLabel) {
        dynasm!(self.b.asm; .arch x64
            ; mov r10, r13
            ; shr r10, (8 * c) as i8
            ; test r10d, 0xFF
            ; jz =>skip
        );
    }

    /// Sets the 64-bit comparisons in `ymm1` (lanes 0..4 of chunk `c`) and
    /// `ymm2` (lanes 4..8) of the inactive lanes: they pass whatever they
    /// hold. Uses `ymm0` and `ymm4`.
    pub(super) fn inactive_pass(&mut self, c: i32) {
        dynasm!(self.b.asm; .arch x64
            ; vpmovsxdq ymm0, [rbx + LANES + 32 * c]
            ; vpcmpeqd ymm4, ymm4, ymm4
            ; vpxor ymm0, ymm0, ymm4
            ; vpor ymm1, ymm1, ymm0
            ; vpmovsxdq ymm0, [rbx + LANES + 32 * c + 16]
            ; vpxor ymm0, ymm0, ymm4
            ; vpor ymm2, ymm2, ymm0
        );
    }

    /// Jumps to `slow` unless both `ymm1` and `ymm2` are all ones (eight
    /// 64-bit comparisons that held); uses `rcx`.
    fn unless_all_equal(&mut self, slow: DynamicLabel) {
        dynasm!(self.b.asm; .arch x64; vpand ymm1, ymm1, ymm2);
        movmsk(&mut self.b.asm, 1, 1, true);
        dynasm!(self.b.asm; .arch x64
            ; cmp ecx, 15
            ; jne =>slow
        );
    }

    /// For an array of structures of 2 to 8 words read or written with the
    /// thread index: jumps to `slow` unless the first lane of chunk `c` of
    /// the wide address register at `a` is aligned with the span in bounds
    /// and (where the address is not consecutive by construction) each
    /// lane is a structure past the one before; then `rax` = the first
    /// word's index, and the stride in words. `None`, and no code, for
    /// other addresses.
    fn structures(&mut self, at: Address, a: i32, c: i32, slow: DynamicLabel) -> Option<u32> {
        let stride = at.stride / 4;
        if !at.stride.is_multiple_of(4) || !(2..=8).contains(&stride) {
            return None;
        }
        if at.consecutive {
            self.first_in_bounds(a, c, slow, stride);
        } else {
            self.strided(a, c, slow, stride, false);
        }
        Some(stride)
    }

    /// Jumps to `slow` unless the eight byte addresses of chunk `c` of the
    /// wide register at `a` are the rows of two 2×2 quads side by side, as
    /// SM 6.6 lays out a 2D group's lanes: lanes 0, 1, 4 and 5 four words
    /// in a row from an aligned word `rax`, lanes 2, 3, 6 and 7 from `rcx`,
    /// both runs in bounds (uses `r11`).
    fn quads(&mut self, a: i32, c: i32, slow: DynamicLabel) {
        let (pair, next) = (self.qwords([0, 4, 0, 4]), self.qwords([8; 4]));
        let at = a + 64 * c;
        // dynasm 5.1 encodes `vpblendd`'s sources the other way round:
        // the words whose bit is clear come from ymm1 (lanes 2 and 3).
        dynasm!(self.b.asm; .arch x64
            ; vpbroadcastq ymm0, [r12 + at]
            ; vpbroadcastq ymm1, [r12 + at + 16]
            ; vpblendd ymm0, ymm0, ymm1, 0x0F
            ; vpaddq ymm0, ymm0, [=>pair]
            ; vpcmpeqq ymm1, ymm0, [r12 + at]
            ; vpaddq ymm0, ymm0, [=>next]
            ; vpcmpeqq ymm2, ymm0, [r12 + at + 32]
        );
        self.unless_all_equal(slow);
        dynasm!(self.b.asm; .arch x64
            ; mov rax, [r12 + at]
            ; add rax, r9
            ; mov rcx, [r12 + at + 16]
            ; add rcx, r9
            ; mov r11, rax
            ; or r11, rcx
            ; test r11b, 3
            ; jnz =>slow
            ; shr rax, 2
            ; shr rcx, 2
            ; lea r11, [rax + 4]
            ; cmp r11, r8
            ; ja =>slow
            ; lea r11, [rcx + 4]
            ; cmp r11, r8
            ; ja =>slow
        );
    }

    /// The word order that takes the two runs of [`WaveBuilder::quads`]
    /// (four words each, one after the other) to lane order, and back.
    fn quad_order(&mut self) -> DynamicLabel {
        self.words([0, 1, 4, 5, 2, 3, 6, 7])
    }

    /// Asks the CPU to fetch the line `ahead` bytes past word `rax` of the
    /// memory at `rdx` (a hint: it reads nothing a program sees, and
    /// cannot fault).
    fn fetch_ahead(&mut self, ahead: u32) {
        if ahead > 0 && ahead <= i32::MAX as u32 {
            dynasm!(self.b.asm; .arch x64; prefetcht0 [rdx + rax * 4 + ahead as i32]);
        }
    }

    /// `ymm3` = the words `stride` apart from word `rax` of the memory at
    /// `rdx`: a vector load of each 32 bytes of the span, its lanes'
    /// words permuted into place, blended together.
    fn load_strided(&mut self, stride: u32) {
        for j in 0..Self::span(stride) / 8 {
            let lanes = (0..8u32).filter(|l| stride * l / 8 == j);
            let (mut index, mut blend) = ([0u32; 8], 0i8);
            for l in lanes {
                index[l as usize] = stride * l % 8;
                blend |= 1 << l;
            }
            let index = self.words(index);
            let into = if j == 0 { 3 } else { 5 };
            dynasm!(self.b.asm; .arch x64
                ; vmovdqa ymm4, [=>index]
                ; vpermd Ry(into), ymm4, [rdx + rax * 4 + 32 * j as i32]
            );
            if j > 0 {
                // dynasm 5.1 encodes `vpblendd`'s two sources the other
                // way round: the lanes whose bit is clear come from ymm5.
                dynasm!(self.b.asm; .arch x64; vpblendd ymm3, ymm3, ymm5, !blend);
            }
        }
    }

    /// Stores the active lanes (`r10d`) of chunk `c` of narrow register
    /// at `s` as the two rows of [`WaveBuilder::quads`] of the wide
    /// address register at `a`, then jumps to `done`; jumps to `slow`
    /// where the lanes are not such rows or the rows share a word.
    fn store_quads(&mut self, a: i32, c: i32, s: i32, slow: DynamicLabel, done: DynamicLabel) {
        self.quads(a, c, slow);
        let order = self.quad_order();
        // Rows that share no word: their order is immaterial, as each
        // lane's word is written once.
        dynasm!(self.b.asm; .arch x64
            ; mov r11, rcx
            ; sub r11, rax
            ; add r11, 3
            ; cmp r11, 7
            ; jb =>slow
            ; vmovdqa ymm4, [=>order]
            ; vpermd ymm0, ymm4, [r12 + s + 32 * c]
            ; cmp r10d, 0xFF
            ; jne >partial
            ; vmovdqu [rdx + rax * 4], xmm0
            ; vextracti128 [rdx + rcx * 4], ymm0, 1
            ; jmp =>done
            ; partial:
            ; vpermd ymm5, ymm4, [rbx + LANES + 32 * c]
            ; vpmaskmovd [rdx + rax * 4], xmm5, xmm0
            ; vextracti128 xmm5, ymm5, 1
            ; vextracti128 xmm0, ymm0, 1
            ; vpmaskmovd [rdx + rcx * 4], xmm5, xmm0
            ; jmp =>done
        );
    }

    /// Reads a 32-bit word per active lane into narrow `dst` from byte
    /// `addr + offset` (`addr` a wide register; none: the same word for
    /// every lane) of memory `slot`: 0 out of bounds or misaligned.
    pub fn load(&mut self, dst: u32, at: Address) {
        let Address {
            slot,
            addr,
            offset,
            grouped,
            ..
        } = at;
        let d = self.narrow(dst);
        self.need_lanes();
        self.memory(slot, false, offset);
        let Some(addr) = addr else {
            let misaligned = !offset.is_multiple_of(4);
            let groups = if grouped { self.waves() } else { 1 };
            for g in 0..groups {
                self.group_memory(at, g);
                dynasm!(self.b.asm; .arch x64; xor ecx, ecx);
                if !misaligned {
                    dynasm!(self.b.asm; .arch x64
                        ; mov eax, (offset / 4) as i32
                        ; cmp rax, r8
                        ; jae >zero
                        ; mov ecx, [rdx + rax * 4]
                        ; zero:
                    );
                }
                // The word stays in xmm2: a masked store leaves a chunk's
                // blend in ymm3.
                dynasm!(self.b.asm; .arch x64; vmovd xmm2, ecx);
                let chunks = if grouped {
                    self.wave_chunks(g)
                } else {
                    self.chunks()
                };
                for c in chunks {
                    dynasm!(self.b.asm; .arch x64; vpbroadcastd ymm3, xmm2);
                    self.store_chunk(d, c, true);
                }
            }
            return;
        };
        let a = self.wide_at(addr);
        // For the gathers: the offset, and the byte count less 3 (a word
        // at byte `at` is inside when `at` is below it), in every 64-bit
        // lane.
        let (three, low_halves) = (self.qwords([3; 4]), self.b.constant(Constant::LowHalves));
        dynasm!(self.b.asm; .arch x64
            ; vmovq xmm8, r9
            ; vpbroadcastq ymm8, xmm8
            ; lea rax, [r8 * 4 - 3]
            ; vmovq xmm9, rax
            ; vpbroadcastq ymm9, xmm9
        );
        for c in self.chunks() {
            let (slow, done) = (
                self.b.asm.new_dynamic_label(),
                self.b.asm.new_dynamic_label(),
            );
            self.chunk_memory(at, c);
            // A chunk with no active lane keeps its words.
            let skip = self.b.asm.new_dynamic_label();
            dynasm!(self.b.asm; .arch x64
                ; mov rax, r13
                ; shr rax, (8 * c) as i8
                ; test al, al
                ; jz =>skip
            );
            if let Some(stride) = self.structures(at, a, c, slow) {
                self.load_strided(stride);
            } else if at.consecutive && at.stride == 4 {
                self.first_in_bounds(a, c, slow, 1);
                self.fetch_ahead(at.ahead);
                dynasm!(self.b.asm; .arch x64; vmovdqu ymm3, [rdx + rax * 4]);
            } else if !self.quads {
                self.contiguous_active(a, c, slow);
                self.fetch_ahead(at.ahead);
                dynasm!(self.b.asm; .arch x64; vmovdqu ymm3, [rdx + rax * 4]);
            } else {
                let quads = self.b.asm.new_dynamic_label();
                self.contiguous_active(a, c, quads);
                self.fetch_ahead(at.ahead);
                dynasm!(self.b.asm; .arch x64
                    ; vmovdqu ymm3, [rdx + rax * 4]
                    ; jmp =>done
                    ; =>quads
                );
                self.quads(a, c, slow);
                let order = self.quad_order();
                dynasm!(self.b.asm; .arch x64
                    ; vmovdqu xmm3, [rdx + rax * 4]
                    ; vinserti128 ymm3, ymm3, [rdx + rcx * 4], 1
                    ; vmovdqa ymm4, [=>order]
                    ; vpermd ymm3, ymm4, ymm3
                );
            }
            // Every active lane at the first lane's word (an index that
            // is the same in the wave): that word, broadcast.
            let gather = self.b.asm.new_dynamic_label();
            dynasm!(self.b.asm; .arch x64
                ; jmp =>done
                ; =>slow
            );
            self.strided(a, c, gather, 0, true);
            dynasm!(self.b.asm; .arch x64
                ; vpbroadcastd ymm3, [rdx + rax * 4]
                ; jmp =>done
                ; =>gather
                ; vmovdqa ymm15, [rbx + LANES + 32 * c]
            );
            // Each half of four lanes: the byte addresses, the lanes that
            // read (active, aligned, not past the end, not wrapped below
            // 0), their mask narrowed to words, and one gather by byte
            // address.
            for h in 0..2 {
                let at = a + 64 * c + 32 * h;
                dynasm!(self.b.asm; .arch x64
                    ; vmovdqu ymm0, [r12 + at]
                    ; vpaddq ymm0, ymm0, ymm8
                    ; vpxor ymm4, ymm4, ymm4
                    ; vpand ymm1, ymm0, [=>three]
                    ; vpcmpeqq ymm1, ymm1, ymm4
                    ; vpcmpgtq ymm2, ymm9, ymm0
                    ; vpand ymm1, ymm1, ymm2
                    ; vpcmpgtq ymm2, ymm4, ymm0
                    ; vpandn ymm1, ymm2, ymm1
                );
                if h == 0 {
                    dynasm!(self.b.asm; .arch x64; vpmovsxdq ymm2, xmm15);
                } else {
                    dynasm!(self.b.asm; .arch x64
                        ; vextracti128 xmm2, ymm15, 1
                        ; vpmovsxdq ymm2, xmm2
                    );
                }
                dynasm!(self.b.asm; .arch x64
                    ; vpand ymm1, ymm1, ymm2
                    ; vmovdqa ymm2, [=>low_halves]
                    ; vpermd ymm1, ymm2, ymm1
                    ; vpxor xmm5, xmm5, xmm5
                    ; vpgatherqd xmm5, [rdx + ymm0 * 1], xmm1
                );
                if h == 0 {
                    dynasm!(self.b.asm; .arch x64; vmovdqa xmm3, xmm5);
                } else {
                    dynasm!(self.b.asm; .arch x64; vinserti128 ymm3, ymm3, xmm5, 1);
                }
            }
            dynasm!(self.b.asm; .arch x64; =>done);
            self.store_chunk(d, c, true);
            dynasm!(self.b.asm; .arch x64; =>skip);
        }
    }

    /// Writes narrow `src`'s word of each active lane, in lane order, to
    /// byte `addr + offset` of memory `slot` (as [`WaveBuilder::load`]
    /// reads): nothing out of bounds or misaligned.
    pub fn store(&mut self, at: Address, src: u32) {
        let Address {
            slot,
            addr,
            offset,
            grouped,
            ..
        } = at;
        let s = self.narrow(src);
        self.need_lanes();
        self.memory(slot, true, offset);
        let Some(addr) = addr else {
            // The last active lane's word is the one that stays (in each
            // group's own memory).
            if offset.is_multiple_of(4) {
                let groups = if grouped { self.waves() } else { 1 };
                for g in 0..groups {
                    self.group_memory(at, g);
                    if grouped {
                        self.wave_mask_r10(g);
                    } else {
                        dynasm!(self.b.asm; .arch x64; mov r10, -1);
                    }
                    dynasm!(self.b.asm; .arch x64
                        ; mov eax, (offset / 4) as i32
                        ; cmp rax, r8
                        ; jae >skip
                        ; and r10, r13
                        ; bsr rcx, r10
                        ; jz >skip
                        ; mov ecx, [r12 + s + rcx * 4]
                        ; mov [rdx + rax * 4], ecx
                        ; skip:
                    );
                }
            }
            return;
        };
        let a = self.wide_at(addr);
        let streaming = streaming_words();
        for c in self.chunks() {
            let (slow, done) = (
                self.b.asm.new_dynamic_label(),
                self.b.asm.new_dynamic_label(),
            );
            self.chunk_memory(at, c);
            dynasm!(self.b.asm; .arch x64
                ; mov r10, r13
                ; shr r10, (8 * c) as i8
                ; and r10d, 0xFF
                ; jz =>done
            );
            if let Some(stride) = self.structures(at, a, c, slow) {
                // Each active lane's word, none of them shared.
                self.store_strided(s + 32 * c, stride, done);
                dynasm!(self.b.asm; .arch x64; =>slow);
                self.store_lanes(a, c, s);
                dynasm!(self.b.asm; .arch x64; =>done);
                continue;
            }
            let quads = self.b.asm.new_dynamic_label();
            if at.consecutive && at.stride == 4 {
                self.first_in_bounds(a, c, slow, 1);
            } else {
                self.contiguous(a, c, if self.quads { quads } else { slow });
            }
            dynasm!(self.b.asm; .arch x64
                ; vmovdqu ymm0, [r12 + s + 32 * c]
                ; cmp r10d, 0xFF
                ; jne >partial
                // A memory larger than the caches takes whole aligned
                // chunks past them (`streaming_words`): the line is not
                // read first, and the cache keeps what will be read again.
                ; cmp r8, streaming
                ; jb >plain
                // Two halves: a large allocation starts 16 bytes past a
                // page, so chunks are 16-byte aligned at best.
                ; lea rcx, [rdx + rax * 4]
                ; test cl, 15
                ; jnz >plain
                ; vmovntdq [rcx], xmm0
                ; vextracti128 xmm1, ymm0, 1
                ; vmovntdq [rcx + 16], xmm1
                ; jmp =>done
                ; plain:
                ; vmovdqu [rdx + rax * 4], ymm0
                ; jmp =>done
                ; partial:
            );
            self.mask_of_chunk(c);
            dynasm!(self.b.asm; .arch x64
                ; vpmaskmovd [rdx + rax * 4], Ry(MASK32), ymm0
                ; jmp =>done
            );
            if self.quads {
                dynasm!(self.b.asm; .arch x64; =>quads);
                self.store_quads(a, c, s, slow, done);
            }
            dynasm!(self.b.asm; .arch x64; =>slow);
            self.store_lanes(a, c, s);
            dynasm!(self.b.asm; .arch x64; =>done);
        }
    }

    /// Stores the active lanes (`r10d`) of chunk `c` of narrow register
    /// at `s` lane by lane, in lane order, at the byte addresses of the
    /// wide register at `a`: nothing out of bounds or misaligned.
    fn store_lanes(&mut self, a: i32, c: i32, s: i32) {
        // Lane by lane. Where one or two lanes are active (a wave's
        // first lane, say), a branch skips each inactive one.
        dynasm!(self.b.asm; .arch x64
            ; popcnt eax, r10d
            ; cmp eax, 2
            ; ja >dense
        );
        for l in 0..8 {
            let at = a + 64 * c + 8 * l;
            dynasm!(self.b.asm; .arch x64
                ; test r10d, 1 << l
                ; jz >next
                ; mov rax, [r12 + at]
                ; add rax, r9
                ; test al, 3
                ; jnz >next
                ; shr rax, 2
                ; cmp rax, r8
                ; jae >next
                ; mov ecx, [r12 + s + 32 * c + 4 * l]
                ; mov [rdx + rax * 4], ecx
                ; next:
            );
        }
        // Elsewhere without a branch (which lanes are active is often
        // unpredictable, as in a compaction): an inactive lane, or one
        // out of bounds or misaligned, writes to the state's scratch
        // words instead.
        let scratch = SCRATCH;
        dynasm!(self.b.asm; .arch x64
            ; jmp >done
            ; dense:
            ; lea rdi, [rbx + scratch]
        );
        for l in 0..8 {
            let at = a + 64 * c + 8 * l;
            dynasm!(self.b.asm; .arch x64
                ; mov rax, [r12 + at]
                ; add rax, r9
                ; mov r11, rax
                ; shr r11, 2
                ; lea rcx, [rdx + r11 * 4]
                ; cmp r11, r8
                ; cmovae rcx, rdi
                ; test al, 3
                ; cmovnz rcx, rdi
                ; test r10d, 1 << l
                ; cmovz rcx, rdi
                ; mov eax, [r12 + s + 32 * c + 4 * l]
                ; mov [rcx], eax
            );
        }
        dynasm!(self.b.asm; .arch x64; done:);
    }

    /// Stores the active lanes (`r10d`) of the eight words at `s` to the
    /// words `stride` apart from word `rax` of the memory at `rdx` (all in
    /// bounds, none shared), then jumps to `done`.
    fn store_strided(&mut self, s: i32, stride: u32, done: DynamicLabel) {
        let step = 4 * stride as i32;
        dynasm!(self.b.asm; .arch x64
            ; cmp r10d, 0xFF
            ; jne >some
        );
        for l in 0..8 {
            dynasm!(self.b.asm; .arch x64
                ; mov ecx, [r12 + s + 4 * l]
                ; mov [rdx + rax * 4 + step * l], ecx
            );
        }
        dynasm!(self.b.asm; .arch x64
            ; jmp =>done
            ; some:
        );
        for l in 0..8 {
            dynasm!(self.b.asm; .arch x64
                ; test r10d, 1 << l
                ; jz >next
                ; mov ecx, [r12 + s + 4 * l]
                ; mov [rdx + rax * 4 + step * l], ecx
                ; next:
            );
        }
        dynasm!(self.b.asm; .arch x64; jmp =>done);
    }

    /// `rdx` = the lanes `lanes` picks (and `State::tested` too), then
    /// negated, then the vote.
    fn lanes(&mut self, lanes: Lanes, negate: bool, vote: Option<Vote>) {
        match lanes {
            Lanes::Previous => dynasm!(self.b.asm; .arch x64; mov rdx, [rbx + TESTED]),
            Lanes::Nonzero(r) => {
                let r = self.narrow(r);
                dynasm!(self.b.asm; .arch x64; xor edx, edx; vpxor ymm1, ymm1, ymm1);
                for c in self.chunks() {
                    dynasm!(self.b.asm; .arch x64; vpcmpeqd ymm0, ymm1, [r12 + r + 32 * c]);
                    movmsk(&mut self.b.asm, 0, 0, false);
                    dynasm!(self.b.asm; .arch x64
                        ; xor eax, 0xFF
                        ; shl rax, (8 * c) as i8
                        ; or rdx, rax
                    );
                }
            }
            Lanes::Compare(op, a, b) => {
                let a = self.narrow(a);
                let b = match b {
                    Arg::Reg(r) => Ok(self.narrow(r)),
                    Arg::Imm(k) => Err(k),
                };
                dynasm!(self.b.asm; .arch x64; xor edx, edx);
                for c in self.chunks() {
                    dynasm!(self.b.asm; .arch x64; vmovdqu ymm0, [r12 + a + 32 * c]);
                    let second = match b {
                        Ok(b) => {
                            dynasm!(self.b.asm; .arch x64; vmovdqu ymm1, [r12 + b + 32 * c]);
                            Second::Reg(1)
                        }
                        Err(k) => Second::Imm(k),
                    };
                    self.b.step(op, 3, 0, second);
                    dynasm!(self.b.asm; .arch x64; vpslld ymm3, ymm3, 31);
                    movmsk(&mut self.b.asm, 0, 3, false);
                    dynasm!(self.b.asm; .arch x64
                        ; shl rax, (8 * c) as i8
                        ; or rdx, rax
                    );
                }
            }
        }
        dynasm!(self.b.asm; .arch x64; mov [rbx + TESTED], rdx);
        // Each wave's vote: its lanes where it holds, else none (`rdx`
        // the active lanes that pass, or for `All` that fail).
        if let Some(vote) = vote {
            if vote == Vote::All {
                dynasm!(self.b.asm; .arch x64; not rdx);
            }
            dynasm!(self.b.asm; .arch x64
                ; and rdx, r13
                ; xor ecx, ecx
                ; xor r11d, r11d
            );
            for s in 0..self.waves() {
                self.wave_mask_r10(s);
                dynasm!(self.b.asm; .arch x64; test rdx, r10);
                if vote == Vote::Any {
                    dynasm!(self.b.asm; .arch x64; cmovz r10, r11);
                } else {
                    dynasm!(self.b.asm; .arch x64
                        ; cmovnz r10, r11
                        ; test r13, r10
                        ; cmovz r10, r11
                    );
                }
                dynasm!(self.b.asm; .arch x64; or rcx, r10);
            }
            dynasm!(self.b.asm; .arch x64; mov rdx, rcx);
        }
        if negate {
            dynasm!(self.b.asm; .arch x64; not rdx);
        }
    }

    /// `cur = mask & !parked`, written out.
    fn set_cur_from(&mut self, frame: i32) {
        dynasm!(self.b.asm; .arch x64
            ; mov rax, r14
            ; not rax
            ; mov r13, [r15 + frame]
            ; and r13, rax
        );
    }

    fn frame(&mut self, depth: usize) -> i32 {
        self.frames = self.frames.max(depth + 1);
        32 * depth as i32
    }

    /// Opens an `if` at `depth`: the active lanes narrow to `lanes`; none
    /// left jumps to `otherwise`.
    pub fn if_begin(
        &mut self,
        depth: usize,
        lanes: Lanes,
        negate: bool,
        vote: Option<Vote>,
        otherwise: Label,
    ) {
        let f = self.frame(depth);
        self.lanes(lanes, negate, vote);
        dynasm!(self.b.asm; .arch x64
            ; mov [r15 + f + ENTRY], r13
            ; mov rax, rdx
            ; not rax
            ; and rax, r13
            ; mov [r15 + f + AUX], rax
            ; and r13, rdx
            ; jz =>otherwise.0
        );
        self.lanes_valid = false;
    }

    /// The `else` of the `if` at `depth`; none left jumps to `end`.
    pub fn else_(&mut self, depth: usize, end: Label) {
        let f = self.frame(depth);
        self.set_cur_from(f + AUX);
        dynasm!(self.b.asm; .arch x64
            ; test r13, r13
            ; jz =>end.0
        );
        self.lanes_valid = false;
    }

    /// Closes the `if` at `depth`.
    pub fn if_end(&mut self, depth: usize) {
        let f = self.frame(depth);
        self.set_cur_from(f + ENTRY);
        self.lanes_valid = false;
    }

    /// Opens a loop or an inlined call at `depth`.
    pub fn open(&mut self, depth: usize) {
        let f = self.frame(depth);
        dynasm!(self.b.asm; .arch x64
            ; mov [r15 + f + ENTRY], r13
            ; mov QWORD [r15 + f + AUX], 0
            ; mov QWORD [r15 + f + EXITED], 0
            ; mov QWORD [r15 + f + CONTINUED], 0
        );
    }

    /// The top of an iteration of the loop at `depth`: no lane left jumps
    /// to `exit`; one iteration past the budget stops with `site`. The
    /// iteration counts for each wave of the pass with an active lane.
    pub fn loop_iter(&mut self, depth: usize, exit: Label, site: u64) {
        let f = self.frame(depth);
        let stub = self.b.asm.new_dynamic_label();
        self.stubs.push((stub, site));
        dynasm!(self.b.asm; .arch x64
            ; test r13, r13
            ; jz =>exit.0
        );
        if self.waves() > 1 {
            // Per wave: its lanes of the mask, compared with 0 (all ones
            // where none is active), plus one; added to its count.
            let masks = self.qwords(std::array::from_fn(|s| {
                if s < self.waves() {
                    self.wave_mask(s)
                } else {
                    0
                }
            }));
            dynasm!(self.b.asm; .arch x64
                ; vmovq xmm15, r13
                ; vpbroadcastq ymm15, xmm15
                ; vpand ymm15, ymm15, [=>masks]
                ; vpxor xmm14, xmm14, xmm14
                ; vpcmpeqq ymm15, ymm15, ymm14
                ; vpcmpeqq ymm14, ymm14, ymm14
                ; vpsubq ymm15, ymm15, ymm14
                ; vpaddq ymm15, ymm15, [rbx + SLOT_ITERATIONS]
                ; vmovdqa [rbx + SLOT_ITERATIONS], ymm15
                ; vpbroadcastq ymm14, [rbx + BUDGET]
                ; vpcmpgtq ymm15, ymm15, ymm14
                ; vptest ymm15, ymm15
                ; jnz =>stub
            );
        } else {
            dynasm!(self.b.asm; .arch x64
                ; mov rax, [rbx + ITERATIONS]
                ; inc rax
                ; mov [rbx + ITERATIONS], rax
                ; cmp rax, [rbx + BUDGET]
                ; ja =>stub
            );
        }
        dynasm!(self.b.asm; .arch x64; mov [r15 + f + AUX], r13);
    }

    /// Brings back the lanes that took `continue` in the loop at `depth`.
    pub fn loop_continuing(&mut self, depth: usize) {
        let f = self.frame(depth);
        dynasm!(self.b.asm; .arch x64
            ; mov rax, [r15 + f + CONTINUED]
            ; mov QWORD [r15 + f + CONTINUED], 0
            ; not rax
            ; and r14, rax
        );
        self.set_cur_from(f + AUX);
        self.lanes_valid = false;
    }

    /// Closes the loop or call at `depth`: the lanes that left it come back.
    pub fn close(&mut self, depth: usize) {
        let f = self.frame(depth);
        dynasm!(self.b.asm; .arch x64
            ; mov rax, [r15 + f + EXITED]
            ; not rax
            ; and r14, rax
        );
        self.set_cur_from(f + ENTRY);
        self.lanes_valid = false;
    }

    /// Opens a `switch` at `depth`: no lane is active until a case takes
    /// it.
    pub fn switch_begin(&mut self, depth: usize) {
        self.open(depth);
        dynasm!(self.b.asm; .arch x64; xor r13d, r13d);
        self.lanes_valid = false;
    }

    /// A `case` of the `switch` at `depth`: the lanes that entered the
    /// `switch` whose narrow `selector` is one of `values` (with
    /// `default`, none of them) join the active lanes, less those that
    /// left.
    pub fn switch_case(&mut self, depth: usize, selector: u32, values: &[u32], default: bool) {
        let f = self.frame(depth);
        let s = self.narrow(selector);
        dynasm!(self.b.asm; .arch x64; xor edx, edx);
        for &v in values {
            let v = self.words([v; 8]);
            for c in self.chunks() {
                dynasm!(self.b.asm; .arch x64
                    ; vmovdqu ymm0, [r12 + s + 32 * c]
                    ; vpcmpeqd ymm0, ymm0, [=>v]
                );
                movmsk(&mut self.b.asm, 0, 0, false);
                dynasm!(self.b.asm; .arch x64
                    ; shl rax, (8 * c) as i8
                    ; or rdx, rax
                );
            }
        }
        if default {
            dynasm!(self.b.asm; .arch x64; not rdx);
        }
        dynasm!(self.b.asm; .arch x64
            ; and rdx, [r15 + f + ENTRY]
            ; or r13, rdx
            ; mov rax, r14
            ; not rax
            ; and r13, rax
        );
        self.lanes_valid = false;
    }

    /// Jumps to `target`.
    pub fn jump(&mut self, target: Label) {
        dynasm!(self.b.asm; .arch x64; jmp =>target.0);
    }

    /// The active lanes leave the construct at `depth` (`continue`: to its
    /// next iteration).
    pub fn leave(&mut self, depth: usize, to_continue: bool) {
        let f = self.frame(depth) + if to_continue { CONTINUED } else { EXITED };
        dynasm!(self.b.asm; .arch x64
            ; or [r15 + f], r13
            ; or r14, r13
            ; xor r13d, r13d
        );
        self.lanes_valid = false;
    }

    /// The active lanes among `lanes` leave the construct at `depth`.
    pub fn leave_if(
        &mut self,
        depth: usize,
        lanes: Lanes,
        negate: bool,
        vote: Option<Vote>,
        to_continue: bool,
    ) {
        let f = self.frame(depth) + if to_continue { CONTINUED } else { EXITED };
        self.lanes(lanes, negate, vote);
        dynasm!(self.b.asm; .arch x64
            ; and rdx, r13
            ; or [r15 + f], rdx
            ; or r14, rdx
            ; mov rax, r14
            ; not rax
            ; and r13, rax
        );
        self.lanes_valid = false;
    }

    /// Stores the word in `eax` to every lane of wave `s` of the narrow
    /// register at `d`.
    /// `rax` = the register at `a` (wide: 8 bytes a lane, else 4) of wave
    /// `s`'s first active lane, or 0 where none is active (uses `rcx`,
    /// `r10`).
    fn first_active_lane(&mut self, s: usize, a: i32, wide: bool) {
        self.wave_mask_r10(s);
        dynasm!(self.b.asm; .arch x64
            ; xor eax, eax
            ; mov rcx, r13
            ; and rcx, r10
            ; bsf rcx, rcx
            ; jz >none
        );
        if wide {
            dynasm!(self.b.asm; .arch x64; mov rax, [r12 + a + rcx * 8]);
        } else {
            dynasm!(self.b.asm; .arch x64; mov eax, [r12 + a + rcx * 4]);
        }
        dynasm!(self.b.asm; .arch x64; none:);
    }

    fn splat_eax(&mut self, d: i32, s: usize) {
        dynasm!(self.b.asm; .arch x64
            ; vmovd xmm3, eax
            ; vpbroadcastd ymm3, xmm3
        );
        for c in self.wave_chunks(s) {
            dynasm!(self.b.asm; .arch x64; vmovdqu [r12 + d + 32 * c], ymm3);
        }
    }

    /// Stores 1 to the lanes of the narrow register at `d` whose bit is
    /// set in `rdx`, 0 to the others.
    fn mask_to_ones(&mut self, d: i32) {
        for c in self.chunks() {
            self.chunk_words(2, c, 0);
            dynasm!(self.b.asm; .arch x64
                ; vpsrld ymm3, ymm0, 31
                ; vmovdqu [r12 + d + 32 * c], ymm3
            );
        }
    }

    /// A wave operation on narrow registers (`b`: `ReadAt`'s lane);
    /// `false`, with no code, for a `Reduce` by another operation, or a
    /// `Prefix` or `ReadAt` whose result register is an operand's.
    pub fn wave(&mut self, kind: WaveKind, dst: u32, a: u32, b: u32) -> bool {
        let d = self.narrow(dst);
        let lane_by_lane = matches!(kind, WaveKind::Prefix(..) | WaveKind::ReadAt);
        if lane_by_lane && (dst == a || (kind == WaveKind::ReadAt && dst == b)) {
            return false;
        }
        match kind {
            WaveKind::Fold(op) => self.fold_lanes(op, d, a),
            WaveKind::Prefix(op, identity) => self.prefix(op, identity, d, a),
            WaveKind::ReadAt => {
                let (a, b) = (self.narrow(a), self.narrow(b));
                for l in 0..self.width as i32 {
                    let first = 4 * (l - l % self.wave as i32);
                    dynasm!(self.b.asm; .arch x64
                        ; mov eax, [r12 + b + 4 * l]
                        ; and eax, (self.wave - 1) as i32
                        ; mov eax, [r12 + a + first + rax * 4]
                        ; mov [rbx + SCRATCH + 4 * (l % 8)], eax
                    );
                    if l % 8 == 7 {
                        dynasm!(self.b.asm; .arch x64
                            ; vmovdqu ymm3, [rbx + SCRATCH]
                            ; vmovdqu [r12 + d + 4 * (l - 7)], ymm3
                        );
                    }
                }
            }
            WaveKind::LaneIndex => {
                for c in self.chunks() {
                    let n = self.wave as u32;
                    let l = self.words(std::array::from_fn(|l| (8 * c as u32 + l as u32) % n));
                    dynasm!(self.b.asm; .arch x64
                        ; vmovdqa ymm3, [=>l]
                        ; vmovdqu [r12 + d + 32 * c], ymm3
                    );
                }
            }
            WaveKind::LaneCount => {
                dynasm!(self.b.asm; .arch x64; mov eax, self.lane_count as i32);
                for s in 0..self.waves() {
                    self.splat_eax(d, s);
                }
            }
            WaveKind::GroupWaveIndex => {
                dynasm!(self.b.asm; .arch x64
                    ; mov rax, [rbx + WAVE]
                    ; mov rcx, [rbx + WAVE_IDS]
                    ; mov eax, [rcx + rax * 4]
                );
                for s in 0..self.waves() {
                    self.splat_eax(d, s);
                }
            }
            WaveKind::GroupWaveCount => {
                dynasm!(self.b.asm; .arch x64; mov eax, [rbx + WAVES]);
                for s in 0..self.waves() {
                    self.splat_eax(d, s);
                }
            }
            WaveKind::IsFirstLane => {
                // The lowest active lane of each wave.
                dynasm!(self.b.asm; .arch x64; xor edx, edx);
                for s in 0..self.waves() {
                    self.wave_mask_r10(s);
                    dynasm!(self.b.asm; .arch x64
                        ; mov rax, r13
                        ; and rax, r10
                        ; mov rcx, rax
                        ; neg rcx
                        ; and rax, rcx
                        ; or rdx, rax
                    );
                }
                self.mask_to_ones(d);
            }
            WaveKind::AnyTrue | WaveKind::AllTrue | WaveKind::CountBits => {
                self.lanes(Lanes::Nonzero(a), false, None);
                // `rdx`: the active lanes that pass; for `AllTrue`, `rcx`
                // those that fail.
                dynasm!(self.b.asm; .arch x64
                    ; mov rcx, rdx
                    ; not rcx
                    ; and rcx, r13
                    ; and rdx, r13
                );
                for s in 0..self.waves() {
                    self.wave_mask_r10(s);
                    match kind {
                        WaveKind::AnyTrue => dynasm!(self.b.asm; .arch x64
                            ; xor eax, eax
                            ; test rdx, r10
                            ; setnz al
                        ),
                        WaveKind::AllTrue => dynasm!(self.b.asm; .arch x64
                            ; xor eax, eax
                            ; xor r11d, r11d
                            ; test r13, r10
                            ; setnz al
                            ; test rcx, r10
                            ; setz r11b
                            ; and eax, r11d
                        ),
                        _ => dynasm!(self.b.asm; .arch x64
                            ; mov rax, rdx
                            ; and rax, r10
                            ; popcnt rax, rax
                        ),
                    }
                    self.splat_eax(d, s);
                }
            }
            WaveKind::ReadFirst => {
                let a = self.narrow(a);
                for s in 0..self.waves() {
                    self.first_active_lane(s, a, false);
                    self.splat_eax(d, s);
                }
            }
            WaveKind::Reduce(op) => return self.reduce(op, d, a),
            WaveKind::QuadSwap(k) => {
                // The lanes of a quad sit in one 128-bit half of a chunk.
                let imm = match k {
                    1 => 0xB1u8,
                    2 => 0x4E,
                    _ => 0x1B,
                };
                let a = self.narrow(a);
                for c in self.chunks() {
                    dynasm!(self.b.asm; .arch x64
                        ; vpshufd ymm3, [r12 + a + 32 * c], imm as i8
                        ; vmovdqu [r12 + d + 32 * c], ymm3
                    );
                }
            }
            WaveKind::QuadLaneAt => {
                let (a, b) = (self.narrow(a), self.narrow(b));
                let firsts = self.words([0, 0, 0, 0, 4, 4, 4, 4]);
                let three = self.words([3; 8]);
                for c in self.chunks() {
                    dynasm!(self.b.asm; .arch x64
                        ; vmovdqu ymm1, [r12 + b + 32 * c]
                        ; vpand ymm1, ymm1, [=>three]
                        ; vpaddd ymm1, ymm1, [=>firsts]
                        ; vmovdqu ymm0, [r12 + a + 32 * c]
                        ; vpermd ymm3, ymm1, ymm0
                        ; vmovdqu [r12 + d + 32 * c], ymm3
                    );
                }
            }
            WaveKind::AllEqual { float } => {
                let a = self.narrow(a);
                for s in 0..self.waves() {
                    self.wave_mask_r10(s);
                    dynasm!(self.b.asm; .arch x64
                        ; mov eax, 1
                        ; mov rcx, r13
                        ; and rcx, r10
                        ; bsf rcx, rcx
                        ; jz >done
                        ; vpbroadcastd ymm3, [r12 + a + rcx * 4]
                        ; xor r11d, r11d
                    );
                    // `r11`: the lanes that differ from the first.
                    for c in self.wave_chunks(s) {
                        dynasm!(self.b.asm; .arch x64; vmovdqu ymm0, [r12 + a + 32 * c]);
                        if float {
                            // Ordered equality (predicate 0, `EQ_OQ`).
                            super::vcmpps(&mut self.b.asm, 0, 3, 0, 0);
                        } else {
                            dynasm!(self.b.asm; .arch x64; vpcmpeqd ymm0, ymm3, ymm0);
                        }
                        movmsk(&mut self.b.asm, 0, 0, false);
                        dynasm!(self.b.asm; .arch x64
                            ; not eax
                            ; and eax, 0xFF
                        );
                        if c > 0 {
                            dynasm!(self.b.asm; .arch x64; shl rax, (8 * c) as i8);
                        }
                        dynasm!(self.b.asm; .arch x64; or r11, rax);
                    }
                    dynasm!(self.b.asm; .arch x64
                        ; xor eax, eax
                        ; and r11, r13
                        ; setz al
                        ; done:
                    );
                    self.splat_eax(d, s);
                }
            }
        }
        true
    }

    /// `WaveActiveBallot`: each wave's active lanes where `a` is nonzero,
    /// as four words (bits 0–31, bits 32–63, then zeros) in every lane of
    /// each wave of `dst`.
    pub fn ballot(&mut self, dst: [u32; 4], a: u32) {
        let d = dst.map(|r| self.narrow(r));
        self.lanes(Lanes::Nonzero(a), false, None);
        dynasm!(self.b.asm; .arch x64; and rdx, r13);
        for s in 0..self.waves() {
            self.wave_mask_r10(s);
            dynasm!(self.b.asm; .arch x64
                ; mov rax, rdx
                ; and rax, r10
            );
            let shift = s * self.wave;
            if shift > 0 {
                dynasm!(self.b.asm; .arch x64; shr rax, shift as i8);
            }
            self.splat_eax(d[0], s);
            dynasm!(self.b.asm; .arch x64; shr rax, 32);
            self.splat_eax(d[1], s);
            dynasm!(self.b.asm; .arch x64; xor eax, eax);
            self.splat_eax(d[2], s);
            self.splat_eax(d[3], s);
        }
    }

    /// The active lanes of `a` folded by `op`, in every lane of the
    /// register at `d`, for each wave.
    fn reduce(&mut self, op: Op32, d: i32, a: u32) -> bool {
        let identity: u32 = match op {
            Op32::Add | Op32::Or | Op32::Xor | Op32::UMax => 0,
            Op32::Mul => 1,
            Op32::And | Op32::UMin => u32::MAX,
            Op32::SMin => i32::MAX as u32,
            Op32::SMax => i32::MIN as u32,
            _ => return false,
        };
        let a = self.narrow(a);
        self.need_lanes();
        let id = self.words([identity; 8]);
        dynasm!(self.b.asm; .arch x64; vmovdqa ymm5, [=>id]);
        for s in 0..self.waves() {
            let chunks = self.wave_chunks(s);
            for c in chunks.clone() {
                self.mask_of_chunk(c);
                dynasm!(self.b.asm; .arch x64
                    ; vmovdqu ymm0, [r12 + a + 32 * c]
                    ; vpblendvb ymm0, ymm5, ymm0, Ry(MASK32)
                );
                if c == chunks.start {
                    dynasm!(self.b.asm; .arch x64; vmovdqa ymm6, ymm0);
                } else {
                    self.fold(op, 6, 0);
                }
            }
            dynasm!(self.b.asm; .arch x64; vperm2i128 ymm0, ymm6, ymm6, 0x01);
            self.fold(op, 6, 0);
            dynasm!(self.b.asm; .arch x64; vpshufd ymm0, ymm6, 0x4E);
            self.fold(op, 6, 0);
            dynasm!(self.b.asm; .arch x64; vpshufd ymm0, ymm6, 0xB1u8 as i8);
            self.fold(op, 6, 0);
            self.wave_mask_r10(s);
            dynasm!(self.b.asm; .arch x64
                ; test r13, r10
                ; jnz >some
                ; vpxor ymm6, ymm6, ymm6
                ; some:
            );
            for c in chunks {
                dynasm!(self.b.asm; .arch x64; vmovdqu [r12 + d + 32 * c], ymm6);
            }
        }
        true
    }

    /// The active lanes of `a` folded by `op` in lane order (a wave with
    /// none gets zeros), in every lane of the register at `d`, for each
    /// wave: each lane's value broadcast and combined with `step`, so the
    /// operation is the one the other code computes.
    fn fold_lanes(&mut self, op: Op32, d: i32, a: u32) {
        let a = self.narrow(a);
        for s in 0..self.waves() {
            let (top, done) = (
                self.b.asm.new_dynamic_label(),
                self.b.asm.new_dynamic_label(),
            );
            self.wave_mask_r10(s);
            dynasm!(self.b.asm; .arch x64
                ; vpxor ymm0, ymm0, ymm0
                ; and r10, r13
                ; bsf rax, r10
                ; jz =>done
                ; vpbroadcastd ymm0, [r12 + a + rax * 4]
                ; lea r11, [r10 - 1]
                ; and r10, r11
                ; =>top
                ; bsf rax, r10
                ; jz =>done
                ; vpbroadcastd ymm1, [r12 + a + rax * 4]
            );
            self.b.step(op, 0, 0, Second::Reg(1));
            dynasm!(self.b.asm; .arch x64
                ; lea r11, [r10 - 1]
                ; and r10, r11
                ; jmp =>top
                ; =>done
            );
            for c in self.wave_chunks(s) {
                dynasm!(self.b.asm; .arch x64; vmovdqu [r12 + d + 32 * c], ymm0);
            }
        }
    }

    /// For each lane, the active lanes of `a` below it in its wave folded
    /// by `op` in lane order, or `identity` where there is none (a wave
    /// with no active lane gets zeros), into the register at `d`.
    fn prefix(&mut self, op: Op32, identity: u32, d: i32, a: u32) {
        let a = self.narrow(a);
        let id = self.words([identity; 8]);
        for s in 0..self.waves() {
            let (done, end) = (
                self.b.asm.new_dynamic_label(),
                self.b.asm.new_dynamic_label(),
            );
            self.wave_mask_r10(s);
            dynasm!(self.b.asm; .arch x64
                ; vpxor ymm0, ymm0, ymm0
                ; test r13, r10
                ; jz =>done
                ; vmovdqa ymm0, [=>id]
                ; xor r10d, r10d
            );
            let first_lane = (s * self.wave) as i32;
            for l in first_lane..first_lane + self.wave as i32 {
                let (skip, first) = (
                    self.b.asm.new_dynamic_label(),
                    self.b.asm.new_dynamic_label(),
                );
                dynasm!(self.b.asm; .arch x64
                    ; vmovd [r12 + d + 4 * l], xmm0
                    ; bt r13, l as i8
                    ; jnc =>skip
                    ; test r10d, r10d
                    ; jz =>first
                    ; vpbroadcastd ymm1, [r12 + a + 4 * l]
                );
                self.b.step(op, 0, 0, Second::Reg(1));
                dynasm!(self.b.asm; .arch x64
                    ; jmp =>skip
                    ; =>first
                    ; vpbroadcastd ymm0, [r12 + a + 4 * l]
                    ; mov r10d, 1
                    ; =>skip
                );
            }
            dynasm!(self.b.asm; .arch x64; jmp =>end; =>done);
            for c in self.wave_chunks(s) {
                dynasm!(self.b.asm; .arch x64; vmovdqu [r12 + d + 32 * c], ymm0);
            }
            dynasm!(self.b.asm; .arch x64; =>end);
        }
    }

    /// `x = op(x, y)` on vector registers.
    fn fold(&mut self, op: Op32, x: u8, y: u8) {
        let asm = &mut self.b.asm;
        match op {
            Op32::Add => dynasm!(asm; .arch x64; vpaddd Ry(x), Ry(x), Ry(y)),
            Op32::Mul => dynasm!(asm; .arch x64; vpmulld Ry(x), Ry(x), Ry(y)),
            Op32::And => dynasm!(asm; .arch x64; vpand Ry(x), Ry(x), Ry(y)),
            Op32::Or => dynasm!(asm; .arch x64; vpor Ry(x), Ry(x), Ry(y)),
            Op32::Xor => dynasm!(asm; .arch x64; vpxor Ry(x), Ry(x), Ry(y)),
            Op32::UMin => dynasm!(asm; .arch x64; vpminud Ry(x), Ry(x), Ry(y)),
            Op32::UMax => dynasm!(asm; .arch x64; vpmaxud Ry(x), Ry(x), Ry(y)),
            Op32::SMin => dynasm!(asm; .arch x64; vpminsd Ry(x), Ry(x), Ry(y)),
            _ => dynasm!(asm; .arch x64; vpmaxsd Ry(x), Ry(x), Ry(y)),
        }
    }

    /// A straight run of operations on narrow registers (`Run::inputs` and
    /// `Output::reg` name them), eight lanes at a time with every value in
    /// a vector register; `false`, with no code, when its values do not
    /// fit the registers.
    pub fn block(&mut self, run: &Run) -> bool {
        let Some(place) = crate::allocate(run) else {
            return false;
        };
        let at = |v: crate::Value| place[usize::from(v)].expect("a value read is placed");
        let inputs = run.inputs.len();
        let masks = run.outputs.iter().any(|o| o.masked)
            || run
                .steps
                .iter()
                .enumerate()
                .any(|(i, s)| s.keep.is_some() && place[inputs + i].is_some());
        if masks {
            self.need_lanes();
        }
        for c in self.chunks() {
            if masks {
                self.mask_of_chunk(c);
            }
            for (v, &r) in run.inputs.iter().enumerate() {
                let Some(d) = place[v] else { continue };
                let o = self.narrow(r);
                dynasm!(self.b.asm; .arch x64; vmovdqu Ry(d), [r12 + o + 32 * c]);
            }
            for (i, step) in run.steps.iter().enumerate() {
                let Some(d) = place[inputs + i] else { continue };
                let out = if step.keep.is_some() { RESULT } else { d };
                self.b.run_step(step, &place, out);
                if let Some(keep) = step.keep {
                    dynasm!(self.b.asm; .arch x64
                        ; vpblendvb Ry(d), Ry(at(keep)), Ry(RESULT), Ry(MASK32)
                    );
                }
            }
            for o in run.outputs {
                let (v, d) = (at(o.value), self.narrow(o.reg));
                if o.masked {
                    dynasm!(self.b.asm; .arch x64
                        ; vmovdqu Ry(TEMP), [r12 + d + 32 * c]
                        ; vpblendvb Ry(TEMP), Ry(TEMP), Ry(v), Ry(MASK32)
                        ; vmovdqu [r12 + d + 32 * c], Ry(TEMP)
                    );
                } else {
                    dynasm!(self.b.asm; .arch x64; vmovdqu [r12 + d + 32 * c], Ry(v));
                }
            }
        }
        true
    }

    /// A 32-bit atomic on memory `slot` at byte `addr + offset` (as
    /// [`WaveBuilder::store`] addresses it) for each active lane in lane
    /// order, with the operands `a` (and `b`, the value of
    /// `CompareExchange`): `dst` gets the word before, or 0 where the
    /// address is out of bounds or misaligned (nothing is written there).
    ///
    /// With a `site` (below [`HELD_SITES`]; for an add, and, or, xor, min
    /// or max whose result nothing reads), while [`State::hold`] is
    /// nonzero the update is folded into [`State::held`] instead, for the
    /// caller to apply, and `dst` is left as it is.
    pub fn atomic(
        &mut self,
        op: Atomic,
        at: Address,
        dst: u32,
        [a, b]: [u32; 2],
        site: Option<u32>,
    ) {
        let Address {
            slot, addr, offset, ..
        } = at;
        let (d, a, b) = (self.narrow(dst), self.narrow(a), self.narrow(b));
        let addr = addr.map(|r| self.wide_at(r));
        // Streaming stores before it are seen by other threads first.
        dynasm!(self.b.asm; .arch x64; sfence);
        self.memory(slot, true, offset);
        for c in self.chunks() {
            let skip = self.b.asm.new_dynamic_label();
            self.chunk_memory(at, c);
            dynasm!(self.b.asm; .arch x64
                ; mov r10, r13
                ; shr r10, (8 * c) as i8
                ; and r10d, 0xFF
                ; jz =>skip
            );
            for l in 0..8 {
                let lane = 8 * c + l;
                let (next, result) = (
                    self.b.asm.new_dynamic_label(),
                    self.b.asm.new_dynamic_label(),
                );
                dynasm!(self.b.asm; .arch x64
                    ; test r10d, 1 << l
                    ; jz =>next
                    ; xor ecx, ecx
                );
                match addr {
                    Some(at) => dynasm!(self.b.asm; .arch x64; mov rax, [r12 + at + 8 * lane]),
                    None => dynasm!(self.b.asm; .arch x64; xor eax, eax),
                }
                dynasm!(self.b.asm; .arch x64
                    ; add rax, r9
                    ; test al, 3
                    ; jnz =>result
                    ; shr rax, 2
                    ; cmp rax, r8
                    ; jae =>result
                    ; lea rsi, [rdx + rax * 4]
                    ; mov ecx, [r12 + a + 4 * lane]
                );
                if let Some(site) = site {
                    self.hold(op, site, next);
                }
                match op {
                    Atomic::Add => dynasm!(self.b.asm; .arch x64; lock xadd [rsi], ecx),
                    Atomic::Exchange => dynasm!(self.b.asm; .arch x64; xchg [rsi], ecx),
                    Atomic::CompareExchange => dynasm!(self.b.asm; .arch x64
                        ; mov eax, ecx
                        ; mov r11d, [r12 + b + 4 * lane]
                        ; lock cmpxchg [rsi], r11d
                        ; mov ecx, eax
                    ),
                    _ => {
                        let retry = self.b.asm.new_dynamic_label();
                        dynasm!(self.b.asm; .arch x64
                            ; mov eax, [rsi]
                            ; =>retry
                            ; mov r11d, eax
                        );
                        match op {
                            Atomic::And => dynasm!(self.b.asm; .arch x64; and r11d, ecx),
                            Atomic::Or => dynasm!(self.b.asm; .arch x64; or r11d, ecx),
                            Atomic::Xor => dynasm!(self.b.asm; .arch x64; xor r11d, ecx),
                            Atomic::UMin => {
                                dynasm!(self.b.asm; .arch x64; cmp ecx, eax; cmovb r11d, ecx)
                            }
                            Atomic::UMax => {
                                dynasm!(self.b.asm; .arch x64; cmp ecx, eax; cmova r11d, ecx)
                            }
                            Atomic::SMin => {
                                dynasm!(self.b.asm; .arch x64; cmp ecx, eax; cmovl r11d, ecx)
                            }
                            _ => dynasm!(self.b.asm; .arch x64; cmp ecx, eax; cmovg r11d, ecx),
                        }
                        dynasm!(self.b.asm; .arch x64
                            ; lock cmpxchg [rsi], r11d
                            ; jnz =>retry
                            ; mov ecx, eax
                        );
                    }
                }
                dynasm!(self.b.asm; .arch x64
                    ; =>result
                    ; mov [r12 + d + 4 * lane], ecx
                    ; =>next
                );
            }
            dynasm!(self.b.asm; .arch x64; =>skip);
        }
    }

    /// Where [`State::hold`] is nonzero: folds `ecx` into held site
    /// `site` with `op` (or starts it) and jumps to `done`.
    fn hold(&mut self, op: Atomic, site: u32, done: DynamicLabel) {
        let (word, bit) = (HELD + 4 * site as i32, site as i8);
        let (at_once, fold) = (
            self.b.asm.new_dynamic_label(),
            self.b.asm.new_dynamic_label(),
        );
        dynasm!(self.b.asm; .arch x64
            ; cmp QWORD [rbx + HOLD], 0
            ; je =>at_once
            ; bt QWORD [rbx + HELD_SITES_AT], bit
            ; jc =>fold
            ; bts QWORD [rbx + HELD_SITES_AT], bit
            ; mov [rbx + word], ecx
            ; jmp =>done
            ; =>fold
            ; mov eax, [rbx + word]
        );
        match op {
            Atomic::Add => dynasm!(self.b.asm; .arch x64; add eax, ecx),
            Atomic::And => dynasm!(self.b.asm; .arch x64; and eax, ecx),
            Atomic::Or => dynasm!(self.b.asm; .arch x64; or eax, ecx),
            Atomic::Xor => dynasm!(self.b.asm; .arch x64; xor eax, ecx),
            Atomic::UMin => dynasm!(self.b.asm; .arch x64; cmp ecx, eax; cmovb eax, ecx),
            Atomic::UMax => dynasm!(self.b.asm; .arch x64; cmp ecx, eax; cmova eax, ecx),
            Atomic::SMin => dynasm!(self.b.asm; .arch x64; cmp ecx, eax; cmovl eax, ecx),
            Atomic::SMax => dynasm!(self.b.asm; .arch x64; cmp ecx, eax; cmovg eax, ecx),
            Atomic::Exchange | Atomic::CompareExchange => {
                unreachable!("{op:?} does not fold")
            }
        }
        dynasm!(self.b.asm; .arch x64
            ; mov [rbx + word], eax
            ; jmp =>done
            ; =>at_once
        );
    }

    /// Wide `dst` = `((z * height + y) * width + x) * texel_size` per
    /// lane, from the narrow coordinates `coords` (x, y, z; none: 0) and
    /// the dimensions of memory `slot`; `1 << 63` where a coordinate is
    /// not below its dimension (a missing one's is 1). Exact for textures
    /// of fewer than 2^32 texels.
    pub fn texel_address(
        &mut self,
        dst: u32,
        slot: u32,
        coords: [Option<u32>; 3],
        texel_size: u32,
    ) {
        let d = self.wide_at(dst);
        let coords = coords.map(|c| c.map(|r| self.narrow(r)));
        let at = RESOURCE * slot as i32 + offset_of!(Resource, dims) as i32;
        let (outside, size) = (
            self.qwords([1 << 63; 4]),
            self.qwords([u64::from(texel_size); 4]),
        );
        dynasm!(self.b.asm; .arch x64; mov rsi, [rbx + RESOURCES]);
        // ymm10..12: each dimension in every 64-bit lane (1 where the
        // coordinate is missing).
        for (i, c) in coords.iter().enumerate() {
            let v = 10 + i as u8;
            if c.is_some() {
                dynasm!(self.b.asm; .arch x64
                    ; mov eax, [rsi + at + 4 * i as i32]
                    ; vmovq Rx(v), rax
                    ; vpbroadcastq Ry(v), Rx(v)
                );
            } else {
                dynasm!(self.b.asm; .arch x64
                    ; mov eax, 1
                    ; vmovq Rx(v), rax
                    ; vpbroadcastq Ry(v), Rx(v)
                );
            }
        }
        for c in self.chunks() {
            for h in 0..2 {
                // ymm0..2: x, y, z widened; ymm4: the lanes outside.
                dynasm!(self.b.asm; .arch x64; vpxor ymm4, ymm4, ymm4);
                for (i, coord) in coords.iter().enumerate() {
                    let v = i as u8;
                    match coord {
                        Some(r) => {
                            let src = r + 32 * c + 16 * h;
                            dynasm!(self.b.asm; .arch x64
                                ; vpmovzxdq Ry(v), [r12 + src]
                                ; vpcmpgtq ymm5, Ry(10 + v), Ry(v)
                                ; vpcmpeqq ymm6, ymm6, ymm6
                                ; vpxor ymm5, ymm5, ymm6
                                ; vpor ymm4, ymm4, ymm5
                            );
                        }
                        None => dynasm!(self.b.asm; .arch x64; vpxor Ry(v), Ry(v), Ry(v)),
                    }
                }
                dynasm!(self.b.asm; .arch x64
                    ; vpmuludq ymm2, ymm2, ymm11
                    ; vpaddq ymm2, ymm2, ymm1
                    ; vpmuludq ymm2, ymm2, ymm10
                    ; vpaddq ymm2, ymm2, ymm0
                    ; vpmuludq ymm2, ymm2, [=>size]
                    ; vpblendvb ymm2, ymm2, [=>outside], ymm4
                    ; vmovdqu [r12 + d + 64 * c + 32 * h], ymm2
                );
            }
        }
    }

    /// `WavePrefixCountBits` of the nonzero lanes of narrow `a`: each lane
    /// gets the number of active lanes below it where `a` is nonzero.
    /// `false`, with no code, for waves of more than 32 lanes.
    pub fn prefix_count_bits(&mut self, dst: u32, a: u32) -> bool {
        if self.width > 32 {
            return false;
        }
        let d = self.narrow(dst);
        self.lanes(Lanes::Nonzero(a), false, None);
        dynasm!(self.b.asm; .arch x64
            ; and rdx, r13
            ; vmovd xmm0, edx
            ; vpbroadcastd ymm0, xmm0
        );
        for c in self.chunks() {
            // The lanes below each lane, from the first of its wave.
            let n = self.wave as u32;
            let below = self.words(std::array::from_fn(|l| {
                let lane = 8 * c as u32 + l as u32;
                let first = lane - lane % n;
                ((1u32 << lane) - 1) & !((1u32 << first) - 1)
            }));
            dynasm!(self.b.asm; .arch x64; vpand ymm1, ymm0, [=>below]);
            self.b.step(Op32::CountBits, 3, 1, Second::Imm(0));
            dynasm!(self.b.asm; .arch x64; vmovdqu [r12 + d + 32 * c], ymm3);
        }
        true
    }

    /// `dst = f(a, b)` on every lane, or on the active ones when `masked`
    /// (`b` is `a` where `f` takes one operand).
    pub fn lane_call(&mut self, f: LaneFn, dst: u32, a: u32, b: Option<u32>, masked: bool) {
        let (d, a) = (self.narrow(dst), self.narrow(a));
        let b = b.map_or(a, |b| self.narrow(b));
        if masked {
            self.need_lanes();
        }
        dynasm!(self.b.asm; .arch x64
            ; vzeroupper
            ; lea rdi, [r12 + d]
            ; lea rsi, [r12 + a]
            ; lea rdx, [r12 + b]
            ; mov r8d, self.width as i32
            ; mov rax, QWORD f as usize as i64
        );
        if masked {
            dynasm!(self.b.asm; .arch x64; lea rcx, [rbx + LANES]);
        } else {
            dynasm!(self.b.asm; .arch x64; xor ecx, ecx);
        }
        dynasm!(self.b.asm; .arch x64; call rax);
    }

    /// Calls `f` over the pass's waves with `info` and the narrow
    /// registers `regs` ([`WaveFn`]).
    pub fn wave_call(&mut self, f: WaveFn, info: [u32; 2], regs: [Option<u32>; 6]) {
        let mut args = [u32::MAX; 8];
        args[..2].copy_from_slice(&info);
        for (a, r) in args[2..].iter_mut().zip(regs) {
            if let Some(r) = r {
                *a = self.narrow(r) as u32;
            }
        }
        let args = self.words(args);
        self.need_lanes();
        dynasm!(self.b.asm; .arch x64
            ; vzeroupper
            ; mov rdi, r12
            ; lea rsi, [rbx + LANES]
            ; mov edx, self.width as i32
            ; lea rcx, [=>args]
            ; mov rax, QWORD f as usize as i64
            ; call rax
        );
    }

    /// Runs instruction `id` through `State::callout`.
    pub fn callout(&mut self, id: u32) {
        dynasm!(self.b.asm; .arch x64
            ; sfence
            ; mov [rbx + CUR], r13
            ; mov [rbx + PARKED], r14
            ; vzeroupper
            ; mov rdi, rbx
            ; mov esi, id as i32
            ; call QWORD [rbx + CALLOUT]
            ; test eax, eax
            ; jnz =>self.out
        );
    }

    /// The end of the program: the next wave starts (with barriers: the
    /// next wave's turn, or the end when none is left).
    pub fn exit(&mut self) {
        match self.turns {
            Some(t) => dynasm!(self.b.asm; .arch x64
                ; dec QWORD [rbx + RUNNING]
                ; jz =>self.done
                ; lea rax, [=>t.finished]
                ; jmp =>t.switch_out
            ),
            None => dynasm!(self.b.asm; .arch x64; jmp =>self.wave_next),
        }
    }

    /// A group barrier (in a program built with `turns`): the wave stops
    /// here and the next wave of the group, in index order, goes on from
    /// where it stopped; after the last, the first. Waves of a group thus
    /// take turns between barriers, as the interpreter runs them.
    pub fn barrier(&mut self) -> bool {
        let Some(t) = self.turns else {
            return false;
        };
        let resume = self.b.asm.new_dynamic_label();
        dynasm!(self.b.asm; .arch x64
            ; test r13, r13
            ; jz =>resume
            ; lea rax, [=>resume]
            ; jmp =>t.switch_out
            ; =>resume
        );
        self.lanes_valid = false;
        true
    }

    /// The code; `None` if it could not be made executable.
    pub fn finish(mut self) -> Option<WaveCode> {
        let (top, next, out) = (self.wave_top, self.wave_next, self.out);
        let groups = self.waves();
        dynasm!(self.b.asm; .arch x64
            ; =>next
            ; inc QWORD [rbx + WAVE]
            ; jmp =>top
        );
        if let Some(t) = self.turns {
            let frames = 32 * self.frames.max(1) as i32;
            let stride = self.frame_bytes as i32;
            dynasm!(self.b.asm; .arch x64
                ; =>t.switch_out
                ; mov [r12 + t.save + SAVE_PC], rax
                ; mov [r12 + t.save + SAVE_CUR], r13
                ; mov [r12 + t.save + SAVE_PARKED], r14
                ; mov rax, [rbx + ITERATIONS]
                ; mov [r12 + t.save + SAVE_ITERATIONS], rax
                ; vmovdqa ymm15, [rbx + SLOT_ITERATIONS]
                ; vmovdqu [r12 + t.save + SAVE_SLOT_ITERATIONS], ymm15
                ; =>t.switch_in
                ; mov rax, [rbx + WAVE]
                ; inc rax
                ; cmp rax, [rbx + WAVES]
                ; jb >turn
                ; xor eax, eax
                ; turn:
                ; mov [rbx + WAVE], rax
                ; imul r12, rax, stride
                ; add r12, [rbx + REGS]
                ; imul r15, rax, frames
                ; add r15, [rbx + FRAMES]
                ; mov [rbx + FRAME], r12
                ; mov r13, [r12 + t.save + SAVE_CUR]
                ; mov r14, [r12 + t.save + SAVE_PARKED]
                ; mov rax, [r12 + t.save + SAVE_ITERATIONS]
                ; mov [rbx + ITERATIONS], rax
                ; vmovdqu ymm15, [r12 + t.save + SAVE_SLOT_ITERATIONS]
                ; vmovdqa [rbx + SLOT_ITERATIONS], ymm15
                ; jmp QWORD [r12 + t.save + SAVE_PC]
                ; =>t.finished
                ; jmp =>t.switch_in
            );
        }
        for (stub, site) in std::mem::take(&mut self.stubs) {
            dynasm!(self.b.asm; .arch x64
                ; =>stub
                ; mov rax, QWORD site as i64
                ; mov [rbx + SITE], rax
                ; mov eax, 1
                ; jmp =>out
            );
        }
        let code = self.b.finish()?;
        Some(WaveCode {
            code,
            groups,
            entry: self.entry,
            frame_bytes: self.frame_bytes,
            frames: self.frames.max(1),
            offsets: self.offsets,
            turns: self.turns.is_some(),
        })
    }
}
