//! Device and groupshared memory: slices of atomic 32-bit words.
//!
//! Plain loads and stores are `Relaxed` atomics (plain moves on x86), so
//! groups can run in parallel in safe Rust. Narrower stores update their word
//! with a compare-and-swap loop; 64-bit atomics take a striped lock so that
//! they are atomic with respect to each other (not with respect to 32-bit
//! atomics on the same bytes, which D3D leaves undefined too).
//!
//! A buffer no resource can write may instead be the caller's own bytes,
//! read in place ([`Memory::read_only`]): a dispatch then copies none of its
//! inputs.

use std::borrow::Cow;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::{Mutex, PoisonError};

use lockstep_ir::{AtomicOp, ScalarType};
use lockstep_wave::Mask;
use rayon::prelude::*;

use crate::value::Val;

/// A buffer's bytes as 32-bit words. The length in bytes may be any number;
/// accesses past it read 0 and write nothing.
#[derive(Debug)]
pub struct Memory<'a> {
    words: Words<'a>,
    len: u64,
}

#[derive(Debug)]
enum Words<'a> {
    /// Words of the memory's own, which the engine reads and writes.
    Own(Vec<AtomicU32>),
    /// The caller's words, read in place. Only resources that cannot write
    /// are bound to such a memory; a write to it is dropped (and is an
    /// engine bug, caught by a debug assertion).
    Read(&'a [u32]),
}

/// An empty vector with room for `n` words, backed by huge pages where the
/// system offers them and the vector is large.
fn words_for(n: usize) -> Vec<AtomicU32> {
    let words = Vec::with_capacity(n);
    huge_pages(words.as_ptr() as usize, n * 4);
    words
}

/// `n` zero words, from a zeroed allocation: a large one is fresh pages
/// that nothing has written, which the kernel zeroes on the first write
/// (backed by huge pages like [`words_for`]'s).
fn zero_words(n: usize) -> Vec<AtomicU32> {
    let words = bytemuck::zeroed_vec(n);
    huge_pages(words.as_ptr() as usize, n * 4);
    words
}

/// Whether every byte is 0 (bytes as a pipeline gives an output buffer).
fn all_zero(bytes: &[u8]) -> bool {
    // OR-folds of 4 KiB of 64-bit words compile to vector code, and a
    // nonzero buffer stops at its first nonzero piece.
    let (head, words, tail) = bytemuck::pod_align_to::<u8, u64>(bytes);
    head.iter().chain(tail).all(|&b| b == 0)
        && words
            .chunks(512)
            .all(|piece| piece.iter().fold(0, |acc, &w| acc | w) == 0)
}

#[cfg(target_os = "linux")]
fn huge_pages(addr: usize, len: usize) {
    const HUGE: usize = 2 << 20;
    let start = addr.next_multiple_of(HUGE);
    let end = (addr + len) / HUGE * HUGE;
    if len >= 4 * HUGE && end > start {
        // SAFETY: the range lies inside one live allocation, and
        // MADV_HUGEPAGE only advises the kernel how to back it: no contents
        // or access rights change.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn huge_pages(_: usize, _: usize) {}

static WIDE_LOCKS: [Mutex<()>; 64] = [const { Mutex::new(()) }; 64];

/// The words of large buffers that runs gave back ([`recycle`]), newest
/// last, for [`Memory::overwritten`].
static RECYCLED: Mutex<Vec<Vec<AtomicU32>>> = Mutex::new(Vec::new());
/// Buffers of fewer words (4 MiB) are not kept: fresh pages for them cost
/// little.
const RECYCLE_MIN_WORDS: usize = 1 << 20;
/// How many buffers are kept; the oldest goes first.
const RECYCLE_KEPT: usize = 4;

/// Keeps the words of a buffer a run is done with (`u32`s in
/// little-endian order, as [`Memory::into_le_words`] gives them) for a
/// later [`Memory::overwritten`], where the buffer is large.
pub fn recycle(words: Vec<u32>) {
    if words.len() < RECYCLE_MIN_WORDS {
        return;
    }
    // `u32` and `AtomicU32` have the same size and alignment: this
    // collects in place.
    let words: Vec<AtomicU32> = words.into_iter().map(AtomicU32::new).collect();
    let mut kept = RECYCLED.lock().unwrap_or_else(PoisonError::into_inner);
    if kept.len() == RECYCLE_KEPT {
        kept.remove(0);
    }
    kept.push(words);
}

/// The words of a kept buffer ([`recycle`]) of at least `n` words and at
/// most twice that, truncated to `n`, holding what its run left.
fn take_recycled(n: usize) -> Option<Vec<AtomicU32>> {
    if n < RECYCLE_MIN_WORDS {
        return None;
    }
    let mut kept = RECYCLED.lock().unwrap_or_else(PoisonError::into_inner);
    // The shortest that is long enough, and at most twice as long.
    let fit = (0..kept.len())
        .filter(|&i| (n..=2 * n).contains(&kept[i].len()))
        .min_by_key(|&i| kept[i].len())?;
    let mut words = kept.remove(fit);
    words.truncate(n);
    Some(words)
}

/// `n` zero words: a kept buffer's ([`recycle`]), cleared, where one
/// fits, as its pages are already there (clearing them costs less than
/// the kernel's zeroing of fresh pages on their first write); else fresh
/// ones.
pub fn zeroed_words(n: usize) -> Vec<u32> {
    match take_recycled(n) {
        Some(words) => {
            // `AtomicU32` and `u32` have the same size and alignment:
            // this collects in place.
            let mut words: Vec<u32> = words.into_iter().map(AtomicU32::into_inner).collect();
            words.fill(0);
            words
        }
        None => vec![0; n],
    }
}

impl<'a> Memory<'a> {
    fn own(words: Vec<AtomicU32>, len: usize) -> Memory<'a> {
        Memory {
            words: Words::Own(words),
            len: len as u64,
        }
    }

    /// Memory of `len` zero bytes: the words of a large buffer an earlier
    /// run gave back ([`recycle`]), cleared, where one fits (clearing costs
    /// less than the kernel's faulting and zeroing of fresh pages); else
    /// fresh pages, zeroed by the kernel where the dispatch first writes
    /// them, by the thread that writes.
    pub fn zeroed(len: usize) -> Memory<'a> {
        match take_recycled(len.div_ceil(4)) {
            Some(mut words) => {
                words.par_chunks_mut(1 << 18).for_each(|chunk| {
                    chunk.iter_mut().for_each(|w| *w.get_mut() = 0);
                });
                Memory::own(words, len)
            }
            None => Memory::own(zero_words(len.div_ceil(4)), len),
        }
    }

    /// Memory holding `words` (each in little-endian byte order, as
    /// [`Memory::into_le_words`] gives them back), taken over in place: a
    /// caller that hands the same words in run after run keeps their pages.
    pub fn from_words(words: Vec<u32>) -> Memory<'a> {
        let len = words.len() * 4;
        // `u32` and `AtomicU32` have the same size and alignment: this
        // collects in place.
        let words = words
            .into_iter()
            .map(|w| AtomicU32::new(u32::from_le(w)))
            .collect();
        Memory::own(words, len)
    }

    /// Memory of `len` bytes for a buffer the dispatch writes in full
    /// before it reads any of it (`Program::writes_in_full`), so that what
    /// it holds at first never shows: the words of a buffer an earlier run
    /// gave back ([`recycle`]) where one fits, holding what that run left,
    /// else [`Memory::zeroed`]. A recycled buffer's pages are already
    /// there, where fresh ones would be zeroed by the kernel on the first
    /// write.
    pub fn overwritten(len: usize) -> Memory<'a> {
        match take_recycled(len.div_ceil(4)) {
            Some(words) => Memory::own(words, len),
            None => Memory::zeroed(len),
        }
    }

    /// Memory that reads `bytes` in place, with no copy; `None` when they
    /// cannot be read as words (not 4-byte aligned, a length that is not a
    /// multiple of 4, or a big-endian machine), which [`Memory::from_bytes`]
    /// then copies. Bind it only to resources that cannot write: writes to
    /// it are dropped.
    pub fn read_only(bytes: &'a [u8]) -> Option<Memory<'a>> {
        if cfg!(target_endian = "big") {
            return None;
        }
        let words = bytemuck::try_cast_slice(bytes).ok()?;
        Some(Memory {
            words: Words::Read(words),
            len: bytes.len() as u64,
        })
    }

    /// Whether the memory reads its caller's bytes in place.
    pub fn is_read_only(&self) -> bool {
        matches!(self.words, Words::Read(_))
    }

    /// Memory holding `bytes` (the last word zero-padded); all-zero bytes
    /// are not copied (see [`Memory::zeroed`]).
    pub fn from_bytes(bytes: &[u8]) -> Memory<'a> {
        if all_zero(bytes) {
            return Memory::zeroed(bytes.len());
        }
        let whole = bytes.chunks_exact(4);
        let rest = whole.remainder();
        let mut words = words_for(bytes.len().div_ceil(4));
        words.extend(whole.map(|chunk| {
            AtomicU32::new(u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]))
        }));
        if !rest.is_empty() {
            let mut b = [0u8; 4];
            b[..rest.len()].copy_from_slice(rest);
            words.push(AtomicU32::new(u32::from_le_bytes(b)));
        }
        Memory::own(words, bytes.len())
    }

    /// [`Memory::from_bytes`], with the words of a large buffer written by
    /// the threads of the current rayon pool: most of the cost is the
    /// kernel zeroing the pages the first write touches.
    pub fn from_bytes_parallel(bytes: &[u8]) -> Memory<'a> {
        /// Words per task (1 MiB).
        const CHUNK: usize = 1 << 18;
        let whole = bytes.len() / 4;
        if whole <= CHUNK {
            return Memory::from_bytes(bytes);
        }
        if bytes.par_chunks(CHUNK * 4).all(all_zero) {
            return Memory::zeroed(bytes.len());
        }
        let mut words = words_for(bytes.len().div_ceil(4));
        words.spare_capacity_mut()[..whole]
            .par_chunks_mut(CHUNK)
            .zip(bytes[..whole * 4].par_chunks(CHUNK * 4))
            .for_each(|(words, bytes)| {
                for (w, b) in words.iter_mut().zip(bytes.chunks_exact(4)) {
                    w.write(AtomicU32::new(u32::from_le_bytes([b[0], b[1], b[2], b[3]])));
                }
            });
        // SAFETY: the capacity is at least `whole` (`words_for`), and the
        // loop above wrote each of the first `whole` words.
        unsafe { words.set_len(whole) };
        let rest = &bytes[whole * 4..];
        if !rest.is_empty() {
            let mut b = [0u8; 4];
            b[..rest.len()].copy_from_slice(rest);
            words.push(AtomicU32::new(u32::from_le_bytes(b)));
        }
        Memory::own(words, bytes.len())
    }

    /// The memory's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = match &self.words {
            Words::Own(words) => {
                let mut out = vec![0; words.len() * 4];
                for (o, w) in out.chunks_exact_mut(4).zip(words.iter()) {
                    o.copy_from_slice(&w.load(Relaxed).to_le_bytes());
                }
                out
            }
            Words::Read(words) => bytemuck::cast_slice(words).to_vec(),
        };
        out.truncate(self.len as usize);
        out
    }

    /// The memory's words, each in little-endian byte order (so that their
    /// bytes in memory are the buffer's bytes), and the length in bytes.
    /// The words stay where they are: no copy is made, and a read-only
    /// memory gives back the caller's words.
    pub fn into_le_words(self) -> (Cow<'a, [u32]>, usize) {
        let len = self.len as usize;
        let words = match self.words {
            // `AtomicU32` and `u32` have the same size and alignment, so
            // this collects in place.
            Words::Own(words) => {
                Cow::Owned(words.into_iter().map(|w| w.into_inner().to_le()).collect())
            }
            Words::Read(words) => Cow::Borrowed(words),
        };
        (words, len)
    }

    /// The memory's length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the memory has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The words the engine may write: none for a read-only memory.
    #[inline(always)]
    fn writable(&self) -> &[AtomicU32] {
        match &self.words {
            Words::Own(words) => words,
            Words::Read(_) => {
                debug_assert!(false, "a write to read-only memory");
                &[]
            }
        }
    }

    /// Zeroes every word (groupshared memory at the start of a group).
    pub fn clear(&self) {
        for w in self.writable() {
            w.store(0, Relaxed);
        }
    }

    /// Resizes to `len` bytes and zeroes (reused groupshared memory).
    pub fn reset(&mut self, len: usize) {
        if !matches!(&self.words, Words::Own(w) if w.len() == len.div_ceil(4)) {
            *self = Memory::zeroed(len);
        } else {
            self.len = len as u64;
            self.clear();
        }
    }

    /// Bytes that may be written (0 for a read-only memory).
    pub(crate) fn writable_len(&self) -> u64 {
        match &self.words {
            Words::Own(_) => self.len,
            Words::Read(_) => 0,
        }
    }

    /// The first word, the words wholly inside the memory, and how many
    /// of them may be written (none for a read-only memory), for machine
    /// code that reads and writes the words with plain moves (as the
    /// `Relaxed` accesses here compile to on x86-64).
    pub(crate) fn raw_parts(&self) -> (*mut u32, u64, u64) {
        let whole = self.whole_words() as u64;
        match &self.words {
            Words::Own(words) => (words.as_ptr() as *mut u32, whole, whole),
            Words::Read(words) => (words.as_ptr() as *mut u32, whole, 0),
        }
    }

    /// Whether a scalar of `size` bytes at `offset` is inside the memory and
    /// aligned.
    pub fn in_bounds(&self, offset: u64, size: u32) -> bool {
        offset
            .checked_add(u64::from(size))
            .is_some_and(|end| end <= self.len)
            && offset.is_multiple_of(u64::from(size.min(4)))
    }

    /// The word holding byte `offset`, to write; `None` past the words or
    /// for a read-only memory.
    fn word(&self, offset: u64) -> Option<&AtomicU32> {
        self.writable().get((offset / 4) as usize)
    }

    /// The value of word `index`, which exists.
    #[inline(always)]
    fn value(&self, index: usize) -> u32 {
        match &self.words {
            Words::Own(words) => words[index].load(Relaxed),
            Words::Read(words) => words[index],
        }
    }

    /// Reads a scalar; 0 when out of bounds or misaligned.
    pub fn load(&self, offset: u64, ty: ScalarType) -> u64 {
        let size = ty.size();
        if !self.in_bounds(offset, size) {
            return 0;
        }
        let index = (offset / 4) as usize;
        match size {
            2 => u64::from((self.value(index) >> ((offset % 4) * 8)) & 0xFFFF),
            4 => u64::from(self.value(index)),
            _ => u64::from(self.value(index)) | (u64::from(self.value(index + 1)) << 32),
        }
    }

    /// The number of words wholly inside the memory: a 32-bit access at
    /// byte `at` is in bounds and aligned exactly when `at` is a multiple of
    /// 4 and `at / 4` is below it.
    #[inline(always)]
    fn whole_words(&self) -> usize {
        (self.len / 4) as usize
    }

    /// [`Memory::load`] of a 32-bit scalar.
    #[inline(always)]
    pub fn load_word(&self, at: u64) -> u64 {
        let whole = self.whole_words();
        match &self.words {
            Words::Own(words) => word_value(&words[..whole], at, |w| w.load(Relaxed)),
            Words::Read(words) => word_value(&words[..whole], at, |&w| w),
        }
    }

    /// The words wholly inside the memory that the engine may write: none
    /// for a read-only memory.
    #[inline(always)]
    fn whole_writable(&self) -> &[AtomicU32] {
        let words = self.writable();
        // Empty for a read-only memory, else the memory's own words, which
        // cover its length.
        &words[..self.whole_words().min(words.len())]
    }

    /// [`Memory::store`] of a 32-bit scalar (the low 32 bits of `bits`).
    #[inline(always)]
    pub fn store_word(&self, at: u64, bits: u64) {
        store_word(self.whole_writable(), at, bits);
    }

    /// [`Memory::load_word`] for every lane: `dst[l]` is the word at byte
    /// `addrs[l] + offset` (wrapping), or 0 when that is out of bounds or
    /// misaligned.
    #[inline]
    pub fn load_words(&self, dst: &mut [u64], addrs: &[u64], offset: u64) {
        #[inline(always)]
        fn gather<T>(
            dst: &mut [u64],
            addrs: &[u64],
            offset: u64,
            words: &[T],
            read: impl Fn(&T) -> u32 + Copy,
        ) {
            for (d, &a) in dst.iter_mut().zip(addrs) {
                *d = word_value(words, a.wrapping_add(offset), read);
            }
        }
        let whole = self.whole_words();
        match &self.words {
            Words::Own(words) => gather(dst, addrs, offset, &words[..whole], |w| w.load(Relaxed)),
            Words::Read(words) => gather(dst, addrs, offset, &words[..whole], |&w| w),
        }
    }

    /// Asks the CPU to fetch what the next batch will load, when the
    /// lanes' addresses `addrs` (plus `offset`), in waves of `wave` lanes,
    /// read a stream and a batch is `lanes_ahead` threads: see
    /// [`prefetch_stream`]. Changes nothing.
    #[inline(always)]
    pub fn prefetch_ahead(&self, addrs: &[u64], offset: u64, wave: usize, lanes_ahead: u64) {
        match &self.words {
            Words::Own(words) => prefetch_stream(words, addrs, offset, wave, lanes_ahead),
            Words::Read(words) => prefetch_stream(words, addrs, offset, wave, lanes_ahead),
        }
    }

    /// [`Memory::load_words`] for the lanes in `lanes` only: the others'
    /// `dst` stays as it is.
    #[inline(always)]
    pub fn load_words_where(&self, dst: &mut [u64], addrs: &[u64], offset: u64, lanes: Mask) {
        // The lanes from the first on (a group smaller than its waves): the
        // loop over every lane, without a mask.
        if lanes & lanes.wrapping_add(1) == 0 {
            let n = (lanes.count_ones() as usize)
                .min(dst.len())
                .min(addrs.len());
            return self.load_words(&mut dst[..n], &addrs[..n], offset);
        }
        #[inline(always)]
        fn gather<T>(
            dst: &mut [u64],
            addrs: &[u64],
            offset: u64,
            lanes: Mask,
            words: &[T],
            read: impl Fn(&T) -> u32 + Copy,
        ) {
            for l in crate::mask_lanes(lanes) {
                dst[l] = word_value(words, addrs[l].wrapping_add(offset), read);
            }
        }
        let whole = self.whole_words();
        match &self.words {
            Words::Own(words) => gather(dst, addrs, offset, lanes, &words[..whole], |w| {
                w.load(Relaxed)
            }),
            Words::Read(words) => gather(dst, addrs, offset, lanes, &words[..whole], |&w| w),
        }
    }

    /// [`Memory::store_word`] for every lane, in lane order (the last of
    /// several lanes writing one word wins): the low 32 bits of `src[l]` go
    /// to byte `addrs[l] + offset` (wrapping), unless that is out of bounds
    /// or misaligned.
    #[inline]
    pub fn store_words(&self, addrs: &[u64], offset: u64, src: &[u64]) {
        let words = self.whole_writable();
        for (&a, &v) in addrs.iter().zip(src) {
            store_word(words, a.wrapping_add(offset), v);
        }
    }

    /// [`Memory::store_words`] for the lanes in `lanes` only.
    #[inline(always)]
    pub fn store_words_where(&self, addrs: &[u64], offset: u64, src: &[u64], lanes: Mask) {
        if lanes & lanes.wrapping_add(1) == 0 {
            let n = (lanes.count_ones() as usize)
                .min(src.len())
                .min(addrs.len());
            return self.store_words(&addrs[..n], offset, &src[..n]);
        }
        let words = self.whole_writable();
        for l in crate::mask_lanes(lanes) {
            store_word(words, addrs[l].wrapping_add(offset), src[l]);
        }
    }

    /// Writes a scalar; dropped when out of bounds or misaligned.
    pub fn store(&self, offset: u64, ty: ScalarType, bits: u64) {
        let size = ty.size();
        if !self.in_bounds(offset, size) {
            return;
        }
        match size {
            2 => {
                let shift = (offset % 4) * 8;
                let mask = 0xFFFFu32 << shift;
                let value = ((bits as u32) & 0xFFFF) << shift;
                if let Some(word) = self.word(offset) {
                    let _ = word.fetch_update(Relaxed, Relaxed, |w| Some((w & !mask) | value));
                }
            }
            4 => {
                if let Some(word) = self.word(offset) {
                    word.store(bits as u32, Relaxed);
                }
            }
            _ => {
                if let (Some(lo), Some(hi)) = (self.word(offset), self.word(offset + 4)) {
                    lo.store(bits as u32, Relaxed);
                    hi.store((bits >> 32) as u32, Relaxed);
                }
            }
        }
    }

    /// An atomic read-modify-write of a 32- or 64-bit integer; returns the
    /// original value (0 when out of bounds, and nothing is written).
    pub fn atomic(&self, offset: u64, ty: ScalarType, op: AtomicOp, a: u64, b: u64) -> u64 {
        let size = ty.size();
        if !self.in_bounds(offset, size) || size < 4 {
            return 0;
        }
        if size == 4 {
            let Some(word) = self.word(offset) else {
                return 0;
            };
            // The operations a 32-bit atomic has natively (one locked
            // instruction each); the rest go through a compare-and-swap loop.
            let a32 = a as u32;
            let native = match op {
                AtomicOp::Add => Some(word.fetch_add(a32, Relaxed)),
                AtomicOp::And => Some(word.fetch_and(a32, Relaxed)),
                AtomicOp::Or => Some(word.fetch_or(a32, Relaxed)),
                AtomicOp::Xor => Some(word.fetch_xor(a32, Relaxed)),
                AtomicOp::Exchange => Some(word.swap(a32, Relaxed)),
                AtomicOp::Min if !ty.is_signed() => Some(word.fetch_min(a32, Relaxed)),
                AtomicOp::Max if !ty.is_signed() => Some(word.fetch_max(a32, Relaxed)),
                _ => None,
            };
            if let Some(old) = native {
                return u64::from(old);
            }
            let mut old = 0;
            let _ = word.fetch_update(Relaxed, Relaxed, |w| {
                old = w;
                atomic_result(op, ty, u64::from(w), a, b).map(|v| v as u32)
            });
            return u64::from(old);
        }
        let lock = &WIDE_LOCKS[((offset / 8) % 64) as usize];
        let _guard = lock.lock().unwrap_or_else(|e| e.into_inner());
        self.read_modify_write(offset, ty, op, a, b)
    }

    /// [`Memory::atomic`] on memory that no other thread accesses while it
    /// runs (a group's groupshared memory, which only the worker running
    /// the group touches): a plain read and write, with no locked
    /// instruction.
    #[inline]
    pub fn atomic_unshared(
        &self,
        offset: u64,
        ty: ScalarType,
        op: AtomicOp,
        a: u64,
        b: u64,
    ) -> u64 {
        let size = ty.size();
        if !self.in_bounds(offset, size) || size < 4 {
            return 0;
        }
        let Some(word) = self.word(offset) else {
            return 0;
        };
        if size == 8 {
            return self.read_modify_write(offset, ty, op, a, b);
        }
        let old = word.load(Relaxed);
        if let Some(new) = atomic_result(op, ty, u64::from(old), a, b) {
            word.store(new as u32, Relaxed);
        }
        u64::from(old)
    }

    /// The read, then the write, of an atomic on a scalar that is in bounds,
    /// with nothing keeping other threads out in between.
    fn read_modify_write(&self, offset: u64, ty: ScalarType, op: AtomicOp, a: u64, b: u64) -> u64 {
        let old = self.load(offset, ty);
        if let Some(new) = atomic_result(op, ty, old, a, b).filter(|&new| new != old) {
            self.store(offset, ty, new);
        }
        old
    }
}

/// How [`prefetch_stream`] fetches ahead of lanes whose addresses look like
/// a stream (the second lane's address 1 to 64 bytes past the first's, as
/// where each lane reads the element of its thread): `(step, ahead)`, one
/// lane in `step` (one per 64-byte line, and at least one per wave of
/// `wave` lanes: the waves of a batch belong to different groups, whose
/// elements lie apart), each `ahead` bytes on, where the same lane of the
/// next batch reads: `lanes_ahead` threads (a batch's) times the lanes'
/// stride. `None` for a gather of scattered addresses, or for every lane
/// reading one address.
///
/// A fixed 4 KiB (the next batch at wave size 8 with 64-thread groups)
/// fetched from the same batch for 256-thread groups: `block_scan` and
/// `wave_reduce` at wave size 8 ran about 5 % faster with the batch's
/// distance, and the other kernels the same. (Only buffers: in a texture
/// read by 2D tiles the next batch is not further on in a line, and
/// fetching 4 KiB on made `tile_minmax` 5 % slower.)
fn stream(addrs: &[u64], wave: usize, lanes_ahead: u64) -> Option<(usize, u64)> {
    match addrs {
        [a, b, ..] => {
            let stride = b.wrapping_sub(*a);
            (1..=64).contains(&stride).then(|| {
                let step = (64 / stride as usize).clamp(1, wave.max(1));
                (step, lanes_ahead.saturating_mul(stride))
            })
        }
        _ => None,
    }
}

/// Asks the CPU to fetch the cache lines the next batch will load, past the
/// lanes' addresses in `words` (those inside the memory, one lane per line
/// and wave) when the lanes read a stream ([`stream`]): the loads of a
/// large buffer otherwise wait for memory a line at a time (half the time
/// of a load of `ordered_append`'s input at wave size 8, `perf`). A hint
/// only: nothing is read or changed.
#[inline(always)]
fn prefetch_stream<T>(words: &[T], addrs: &[u64], offset: u64, wave: usize, lanes_ahead: u64) {
    #[cfg(target_arch = "x86_64")]
    if let Some((step, ahead)) = stream(addrs, wave, lanes_ahead) {
        let size = std::mem::size_of_val(words) as u64;
        for &a in addrs.iter().step_by(step) {
            let at = a.wrapping_add(offset).wrapping_add(ahead);
            if at < size {
                let p = words.as_ptr().cast::<i8>().wrapping_add(at as usize);
                // SAFETY: SSE is part of every x86-64 CPU; a prefetch reads
                // nothing a program sees and cannot fault, and the address
                // lies inside `words`.
                unsafe {
                    std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p);
                }
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (words, addrs, offset, wave, lanes_ahead);
}

/// The value of the word a 32-bit access at byte `at` reads from `words`
/// (the memory's whole words): 0 when that is out of bounds or misaligned.
#[inline(always)]
fn word_value<T>(words: &[T], at: u64, read: impl Fn(&T) -> u32 + Copy) -> u64 {
    words
        .get((at / 4) as usize)
        .filter(|_| at.is_multiple_of(4))
        .map_or(0, |w| u64::from(read(w)))
}

/// Writes the low 32 bits of `bits` to the word a 32-bit access at byte
/// `at` writes in `words` (the memory's whole words), unless that is out of
/// bounds or misaligned.
#[inline(always)]
fn store_word(words: &[AtomicU32], at: u64, bits: u64) {
    if let Some(w) = words
        .get((at / 4) as usize)
        .filter(|_| at.is_multiple_of(4))
    {
        w.store(bits as u32, Relaxed);
    }
}

/// For the 32-bit atomics whose updates fold into one (`x op a op b` is
/// `x op (a op b)`): the fold. A run of such updates to one word can then go
/// to memory as one update with the folded operand, each update's original
/// value following from the one before.
pub(crate) fn combining(op: AtomicOp, ty: ScalarType) -> Option<fn(u32, u32) -> u32> {
    let signed = match ty {
        ScalarType::Int32 => true,
        ScalarType::UInt32 => false,
        _ => return None,
    };
    Some(match op {
        AtomicOp::Add => u32::wrapping_add,
        AtomicOp::And => |x, y| x & y,
        AtomicOp::Or => |x, y| x | y,
        AtomicOp::Xor => |x, y| x ^ y,
        AtomicOp::Min if signed => |x, y| Ord::min(x as i32, y as i32) as u32,
        AtomicOp::Max if signed => |x, y| Ord::max(x as i32, y as i32) as u32,
        AtomicOp::Min => Ord::min,
        AtomicOp::Max => Ord::max,
        _ => return None,
    })
}

/// The new value of an atomic, or `None` when it writes nothing (a failed
/// compare).
#[inline]
fn atomic_result(op: AtomicOp, ty: ScalarType, old: u64, a: u64, b: u64) -> Option<u64> {
    fn minmax<T: Val + Ord>(old: u64, a: u64, max: bool) -> u64 {
        let (x, y) = (T::from_lane(old), T::from_lane(a));
        (if max { x.max(y) } else { x.min(y) }).to_lane()
    }
    let width_mask = if ty.size() == 8 {
        u64::MAX
    } else {
        0xFFFF_FFFF
    };
    let signed = ty.is_signed();
    Some(match op {
        AtomicOp::Add => old.wrapping_add(a) & width_mask,
        AtomicOp::And => old & a,
        AtomicOp::Or => old | a,
        AtomicOp::Xor => old ^ a,
        AtomicOp::Exchange => a,
        AtomicOp::Min | AtomicOp::Max => {
            let max = op == AtomicOp::Max;
            match (ty.size(), signed) {
                (8, true) => minmax::<i64>(old, a, max),
                (8, false) => minmax::<u64>(old, a, max),
                (_, true) => minmax::<i32>(old, a, max),
                (_, false) => minmax::<u32>(old, a, max),
            }
        }
        AtomicOp::CompareExchange | AtomicOp::CompareStore => {
            if old == a & width_mask {
                b & width_mask
            } else {
                return None;
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_32_bit_atomics_give_what_the_compare_and_swap_loop_gives() {
        let values = [
            0u64,
            1,
            5,
            0x7FFF_FFFF,
            0x8000_0000,
            0xFFFF_FFFF,
            0x1_0000_0003,
        ];
        let ops = [
            AtomicOp::Add,
            AtomicOp::And,
            AtomicOp::Or,
            AtomicOp::Xor,
            AtomicOp::Exchange,
            AtomicOp::Min,
            AtomicOp::Max,
        ];
        for ty in [ScalarType::UInt32, ScalarType::Int32] {
            for op in ops {
                for &old in &values {
                    for &a in &values {
                        let mem = Memory::from_bytes(&(old as u32).to_le_bytes());
                        let returned = mem.atomic(0, ty, op, a, 0);
                        let new = atomic_result(op, ty, old & 0xFFFF_FFFF, a, 0).unwrap();
                        assert_eq!(returned, old & 0xFFFF_FFFF, "{op:?} {ty:?} {old:#x} {a:#x}");
                        assert_eq!(
                            mem.load(0, ty),
                            new & 0xFFFF_FFFF,
                            "{op:?} {ty:?} {old:#x} {a:#x}"
                        );
                    }
                }
            }
        }
        // Groupshared memory's plain read and write, for every operation
        // and width, against the locked path.
        let all_ops = ops
            .iter()
            .chain(&[AtomicOp::CompareExchange, AtomicOp::CompareStore]);
        let types = [
            ScalarType::UInt32,
            ScalarType::Int32,
            ScalarType::UInt64,
            ScalarType::Int64,
        ];
        for (ty, &op) in types
            .iter()
            .flat_map(|&ty| all_ops.clone().map(move |op| (ty, op)))
        {
            for &old in &values {
                for (&a, &b) in values.iter().zip(values.iter().rev()) {
                    let bytes = old.to_le_bytes();
                    let (locked, plain) = (Memory::from_bytes(&bytes), Memory::from_bytes(&bytes));
                    let at = format!("{op:?} {ty:?} {old:#x} {a:#x} {b:#x}");
                    assert_eq!(
                        plain.atomic_unshared(0, ty, op, a, b),
                        locked.atomic(0, ty, op, a, b),
                        "{at}"
                    );
                    assert_eq!(plain.to_bytes(), locked.to_bytes(), "{at}");
                    // Out of bounds: nothing happens.
                    assert_eq!(plain.atomic_unshared(8, ty, op, a, b), 0, "{at}");
                }
            }
        }
        // Equal operands make compare-exchange store.
        let mem = Memory::from_bytes(&7u32.to_le_bytes());
        let old = mem.atomic_unshared(0, ScalarType::UInt32, AtomicOp::CompareExchange, 7, 9);
        assert_eq!((old, mem.load(0, ScalarType::UInt32)), (7, 9));

        // By hand: signed and unsigned minimums differ on the sign bit.
        let mem = Memory::from_bytes(&5u32.to_le_bytes());
        mem.atomic(0, ScalarType::Int32, AtomicOp::Min, 0xFFFF_FFFF, 0);
        assert_eq!(mem.load(0, ScalarType::Int32), 0xFFFF_FFFF);
        mem.atomic(0, ScalarType::UInt32, AtomicOp::Min, 7, 0);
        assert_eq!(mem.load(0, ScalarType::UInt32), 7);
        mem.atomic(0, ScalarType::UInt32, AtomicOp::Add, 0xFFFF_FFFA, 0);
        assert_eq!(mem.load(0, ScalarType::UInt32), 1);
    }

    /// Loads fetch ahead only for lanes that read a stream, one lane per
    /// line and at least one per wave, a batch of threads on; the fetch
    /// changes nothing.
    #[test]
    fn streams_fetch_ahead_one_lane_per_line_and_wave() {
        let words = |stride: u64| -> Vec<u64> { (0..32).map(|l| 1000 + l * stride).collect() };
        // A word per lane: 16 lanes to a line, but waves of 8; 16 groups of
        // 64 threads a batch, the next batch's words 4 KiB on.
        assert_eq!(stream(&words(4), 8, 16 * 64), Some((8, 4096)));
        assert_eq!(stream(&words(4), 32, 4 * 256), Some((16, 4096)));
        // A `float4` per lane: 4 to a line; 64-byte elements: each lane.
        assert_eq!(stream(&words(16), 32, 4 * 64), Some((4, 4096)));
        assert_eq!(stream(&words(64), 32, 128), Some((1, 8192)));
        // Further apart, every lane at one address, descending, scattered,
        // a single lane: no stream.
        assert_eq!(stream(&words(65), 32, 128), None);
        assert_eq!(stream(&words(0), 32, 128), None);
        assert_eq!(stream(&[8, 4, 0], 4, 128), None);
        assert_eq!(stream(&[4000, 12, 96], 4, 128), None);
        assert_eq!(stream(&[12], 4, 128), None);
        let mem = Memory::from_bytes(&[7; 64 * 1024]);
        let before = mem.to_bytes();
        mem.prefetch_ahead(&words(4), 0, 8, 1024);
        mem.prefetch_ahead(&words(4), u64::MAX - 100, 8, 1024);
        assert_eq!(mem.to_bytes(), before);
    }

    #[test]
    fn word_loads_and_stores_for_every_lane_agree_with_scalar_ones() {
        // 10 bytes: words at 0 and 4 are whole, the one at 8 is not.
        let bytes: Vec<u8> = (1..=10).collect();
        let addrs = [0, 4, 8, 2, 12, u64::MAX - 3, 1 << 63, 0xFFFF_FFFC];
        for offset in [0, 4, u64::MAX - 3] {
            let mem = Memory::from_bytes(&bytes);
            let mut lanes = [7u64; 8];
            mem.load_words(&mut lanes, &addrs, offset);
            let one_by_one: Vec<u64> = addrs
                .iter()
                .map(|&a| mem.load(a.wrapping_add(offset), ScalarType::UInt32))
                .collect();
            assert_eq!(lanes.to_vec(), one_by_one, "offset {offset}");
        }
        // By hand: only the word at byte 0 and the one at byte 4 exist.
        let mem = Memory::from_bytes(&bytes);
        let mut lanes = [7u64; 4];
        mem.load_words(&mut lanes, &[0, 4, 8, 6], 0);
        assert_eq!(lanes, [0x0403_0201, 0x0807_0605, 0, 0]);

        for offset in [0, 4, u64::MAX - 3] {
            let (wide, narrow) = (Memory::from_bytes(&bytes), Memory::from_bytes(&bytes));
            // Two lanes write the word at 4 (when offset is 0): the later
            // lane wins.
            let addrs = [4, 0, 4, 8, 3, 1 << 63];
            let src = [0x1111_1111, 0x2222_2222, 0x3333_3333_4444_4444, 5, 6, 7];
            wide.store_words(&addrs, offset, &src);
            for (&a, &v) in addrs.iter().zip(&src) {
                narrow.store(a.wrapping_add(offset), ScalarType::UInt32, v);
            }
            assert_eq!(wide.to_bytes(), narrow.to_bytes(), "offset {offset}");
        }
        let mem = Memory::from_bytes(&bytes);
        mem.store_words(
            &[4, 0, 4, 8],
            0,
            &[0x1111_1111, 0x2222_2222, 0x3333_3333_4444_4444, 5],
        );
        assert_eq!(
            mem.to_bytes(),
            [0x22, 0x22, 0x22, 0x22, 0x44, 0x44, 0x44, 0x44, 9, 10]
        );
    }

    #[test]
    fn filled_from_bytes_of_any_length() {
        // Partial last words, and lengths past the size where the words
        // are put on huge pages.
        for len in [0, 1, 5, 4096, (1 << 16) + 3, (9 << 20) + 2] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 131 % 251) as u8).collect();
            let mem = Memory::from_bytes(&bytes);
            assert_eq!(mem.len(), len as u64);
            assert_eq!(mem.to_bytes(), bytes);
        }
    }

    #[test]
    fn read_only_memory_reads_what_a_copy_reads() {
        let words: Vec<u32> = (1..=6u32).map(|i| i.wrapping_mul(0x0403_0201)).collect();
        let bytes: &[u8] = bytemuck::cast_slice(&words);
        let read = Memory::read_only(bytes).expect("aligned words");
        let copy = Memory::from_bytes(bytes);
        assert!(read.is_read_only() && !copy.is_read_only());
        for offset in (0..30).chain([u64::MAX - 1, 1 << 40]) {
            for ty in [ScalarType::UInt16, ScalarType::UInt32, ScalarType::UInt64] {
                let at = format!("{ty:?} at {offset}");
                assert_eq!(read.load(offset, ty), copy.load(offset, ty), "{at}");
            }
            assert_eq!(read.load_word(offset), copy.load_word(offset), "{offset}");
        }
        let addrs = [0, 4, 20, 24, 2, u64::MAX - 3, 8];
        let (mut a, mut b) = ([7u64; 7], [7u64; 7]);
        read.load_words(&mut a, &addrs, 0);
        copy.load_words(&mut b, &addrs, 0);
        assert_eq!(a, b);
        // By hand: the high half of the first word, and the third word.
        assert_eq!(read.load(2, ScalarType::UInt16), 0x0403);
        assert_eq!(a[6], 0x0C09_0603);
        assert_eq!(read.to_bytes(), bytes);
        // The words handed back are the caller's.
        let (back, len) = read.into_le_words();
        assert!(matches!(back, Cow::Borrowed(w) if w.as_ptr() == words.as_ptr()));
        assert_eq!(len, 24);
        // Bytes that are not whole aligned words are refused.
        assert!(Memory::read_only(&bytes[..23]).is_none());
        assert!(Memory::read_only(&bytes[1..21]).is_none());
        assert!(Memory::read_only(&bytes[4..24]).is_some());
    }
}
