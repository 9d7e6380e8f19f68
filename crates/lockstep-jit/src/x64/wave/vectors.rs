//! Loads and stores of whole vectors: the two or four components of each
//! lane's `float2`, `float4`, `half2` or `half4` element read or written
//! in one pass, the lanes' elements side by side in memory, instead of one
//! strided access per component.

use super::{Address, WaveBuilder};
use crate::x64::TEMP2;
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi, dynasm};

impl WaveBuilder {
    /// Stores narrow registers `srcs` (two or four, `size` bytes each: 4,
    /// or 2 for 16-bit values) to byte `addr + offset + size * j` for
    /// component `j`, as [`WaveBuilder::store`] (or
    /// [`WaveBuilder::store16`]) for each component in turn would.
    ///
    /// Where every chunk with an active lane has all eight active, its
    /// lanes' elements follow each other from an address aligned to the
    /// element, and they lie in bounds, each chunk is two or four vector
    /// stores of its elements; else the components are stored one after
    /// another as those stores do.
    pub fn store_vector(&mut self, at: Address, srcs: &[u32], size: u32) {
        self.vector(at, srcs, size, true);
    }

    /// Loads narrow registers `dsts` (two or four, `size` bytes each: 4,
    /// or 2 for 16-bit values, zero-extended) from byte `addr + offset +
    /// size * j` for component `j`, on the active lanes, as
    /// [`WaveBuilder::load`] (or [`WaveBuilder::load16`]) for each
    /// component in turn would.
    ///
    /// Where every chunk with an active lane has its eight lanes' elements
    /// following each other from an address aligned to the element, in
    /// bounds, each chunk is two or four vector loads of its elements;
    /// else the components are loaded one after another as those loads do.
    pub fn load_vector(&mut self, at: Address, dsts: &[u32], size: u32) {
        self.vector(at, dsts, size, false);
    }

    /// [`WaveBuilder::store_vector`] (`store`) or
    /// [`WaveBuilder::load_vector`]: the checks of every chunk, then each
    /// chunk's elements, or where a check fails, the components one after
    /// another. Loads take chunks with inactive lanes too.
    fn vector(&mut self, at: Address, regs: &[u32], size: u32, store: bool) {
        let k = regs.len() as u32;
        debug_assert!(matches!(k, 2 | 4) && matches!(size, 2 | 4));
        let Some(addr) = at.addr.filter(|_| !self.quads) else {
            return self.components(at, regs, size, store);
        };
        // Words of one lane's element.
        let words = k * size / 4;
        let a = self.wide_at(addr);
        self.need_lanes();
        self.memory(at.slot, store, at.offset);
        let (slow, done) = (
            self.b.asm.new_dynamic_label(),
            self.b.asm.new_dynamic_label(),
        );
        // Loads whose lanes do not follow each other may still each read an
        // element of one aligned run of eight.
        let window = if store {
            slow
        } else {
            self.b.asm.new_dynamic_label()
        };
        for c in self.chunks() {
            self.chunk_memory(at, c);
            dynasm!(self.b.asm; .arch x64
                ; mov r10, r13
                ; shr r10, (8 * c) as i8
                ; and r10d, 0xFF
                ; jz >next
            );
            if store {
                dynasm!(self.b.asm; .arch x64; cmp r10d, 0xFF; jne =>slow);
            }
            dynasm!(self.b.asm; .arch x64
                ; mov rax, [r12 + a + 64 * c]
                ; add rax, r9
                ; test al, (4 * words - 1) as i8
                ; jnz =>window
            );
            if at.consecutive && at.stride == 4 * words {
                self.first_in_bounds(a, c, window, words);
            } else {
                self.strided(a, c, window, words, false);
            }
            dynasm!(self.b.asm; .arch x64; next:);
        }
        // The first group's memory again.
        self.memory(at.slot, store, at.offset);
        for c in self.chunks() {
            self.chunk_memory(at, c);
            dynasm!(self.b.asm; .arch x64
                ; mov r10, r13
                ; shr r10, (8 * c) as i8
                ; test r10d, 0xFF
                ; jz >skip
                ; mov rax, [r12 + a + 64 * c]
                ; add rax, r9
            );
            if store {
                self.element_words(regs, size, c);
                self.store_elements(words);
            } else {
                // The next pass's same lanes, a line at a time.
                if at.ahead > 0 && at.ahead <= i32::MAX as u32 / 2 {
                    for line in 0..words.div_ceil(2) as i32 {
                        let ahead = at.ahead as i32 + 64 * line;
                        dynasm!(self.b.asm; .arch x64; prefetcht0 [rdx + rax + ahead]);
                    }
                }
                self.load_elements(words);
                self.split_words(regs, size, c);
            }
            dynasm!(self.b.asm; .arch x64; skip:);
        }
        dynasm!(self.b.asm; .arch x64; jmp =>done);
        if !store {
            dynasm!(self.b.asm; .arch x64; =>window);
            self.windows(at, a, regs, size, slow);
            dynasm!(self.b.asm; .arch x64; jmp =>done);
        }
        dynasm!(self.b.asm; .arch x64; =>slow);
        self.components(at, regs, size, store);
        dynasm!(self.b.asm; .arch x64; =>done);
    }

    /// Loads whose active lanes each read an aligned element of the eight
    /// in one aligned run (a neighbour's, `x ^ 1`; a reversed run): where
    /// every chunk with an active lane has one, in bounds, each chunk is
    /// the run's loads, then each word put in its lanes (`vpermd`); else
    /// jumps to `slow`.
    fn windows(&mut self, at: Address, a: i32, regs: &[u32], size: u32, slow: DynamicLabel) {
        let words = regs.len() as u32 * size / 4;
        // An element's bytes, and the run's.
        let (element, run) = (4 * words, 32 * words);
        // The bits an offset into the run may have: element-aligned, below
        // the run's size.
        let outside = self.qwords([!u64::from(run - element); 4]);
        let low_halves = self.b.constant(super::Constant::LowHalves);
        // Each chunk's run from the first lane's (`rax`), `ymm0` = the
        // run's first byte less the offset, in every 64-bit lane.
        let run_of = |w: &mut Self, c: i32| {
            dynasm!(w.b.asm; .arch x64
                ; mov rax, [r12 + a + 64 * c]
                ; add rax, r9
                ; and rax, -(run as i32)
                ; mov rcx, rax
                ; sub rcx, r9
                ; vmovq xmm0, rcx
                ; vpbroadcastq ymm0, xmm0
                ; vmovdqu ymm1, [r12 + a + 64 * c]
                ; vpsubq ymm1, ymm1, ymm0
                ; vmovdqu ymm2, [r12 + a + 64 * c + 32]
                ; vpsubq ymm2, ymm2, ymm0
            );
        };
        self.memory(at.slot, false, at.offset);
        for c in self.chunks() {
            self.chunk_memory(at, c);
            let next = self.b.asm.new_dynamic_label();
            self.unless_active(c, next);
            run_of(self, c);
            // The run in bounds (below 2^29 words: see `first_in_bounds`),
            // and every active lane inside it, aligned.
            dynasm!(self.b.asm; .arch x64
                ; shr rax, 2
                ; cmp rax, (1 << 29) - 64
                ; jae =>slow
                ; add rax, (8 * words) as i32
                ; cmp rax, r8
                ; ja =>slow
                ; vpxor ymm4, ymm4, ymm4
                ; vpand ymm1, ymm1, [=>outside]
                ; vpcmpeqq ymm1, ymm1, ymm4
                ; vpand ymm2, ymm2, [=>outside]
                ; vpcmpeqq ymm2, ymm2, ymm4
            );
            self.inactive_pass(c);
            self.unless_all_equal(slow);
            dynasm!(self.b.asm; .arch x64; =>next);
        }
        self.memory(at.slot, false, at.offset);
        let shift = element.trailing_zeros() as u8;
        for c in self.chunks() {
            self.chunk_memory(at, c);
            let skip = self.b.asm.new_dynamic_label();
            self.unless_active(c, skip);
            run_of(self, c);
            // Each lane's element in the run, as words in `TEMP2`.
            crate::x64::shift_q(&mut self.b.asm, false, 1, 1, shift);
            crate::x64::shift_q(&mut self.b.asm, false, 2, 2, shift);
            dynasm!(self.b.asm; .arch x64
                ; vmovdqa ymm3, [=>low_halves]
                ; vpermd ymm1, ymm3, ymm1
                ; vpermd ymm2, ymm3, ymm2
                ; vinserti128 Ry(TEMP2), ymm1, xmm2, 1
            );
            self.load_elements(words);
            for w in 0..words as u8 {
                dynasm!(self.b.asm; .arch x64; vpermd Ry(w), Ry(TEMP2), Ry(w));
            }
            self.split_words(regs, size, c);
            dynasm!(self.b.asm; .arch x64; =>skip);
        }
    }

    /// The components stored (or loaded) one after another.
    fn components(&mut self, at: Address, regs: &[u32], size: u32, store: bool) {
        for (j, &r) in regs.iter().enumerate() {
            let at = Address {
                offset: at.offset.wrapping_add(size * j as u32),
                ..at
            };
            match (store, size) {
                (true, 4) => self.store(at, r),
                (true, _) => self.store16(at, r),
                (false, 4) => self.load(r, at),
                (false, _) => self.load16(r, at),
            }
        }
    }

    /// `ymm0..` = word `j` of the eight elements of `words` words each from
    /// byte `rdx + rax`, one register per word.
    fn load_elements(&mut self, words: u32) {
        let asm = &mut self.b.asm;
        match words {
            1 => dynasm!(asm; .arch x64; vmovdqu ymm0, [rdx + rax]),
            2 => dynasm!(asm; .arch x64
                // Even and odd words of lanes 0, 1, 4, 5 | 2, 3, 6, 7,
                // then in lane order. dynasm 5.1 encodes `vshufps`'s two
                // sources the other way round: the first two words of each
                // half come from ymm2.
                ; vmovdqu ymm2, [rdx + rax]
                ; vmovdqu ymm3, [rdx + rax + 32]
                ; vshufps ymm0, ymm3, ymm2, 0x88_u8 as i8
                ; vshufps ymm1, ymm3, ymm2, 0xDD_u8 as i8
                ; vpermq ymm0, ymm0, 0xD8_u8 as i8
                ; vpermq ymm1, ymm1, 0xD8_u8 as i8
            ),
            _ => {
                // Elements 0 | 4, 1 | 5, 2 | 6 and 3 | 7, then their words.
                dynasm!(asm; .arch x64
                    ; vmovdqu ymm4, [rdx + rax]
                    ; vmovdqu ymm5, [rdx + rax + 32]
                    ; vmovdqu ymm6, [rdx + rax + 64]
                    ; vmovdqu ymm7, [rdx + rax + 96]
                    ; vperm2i128 ymm0, ymm4, ymm6, 0x20
                    ; vperm2i128 ymm1, ymm4, ymm6, 0x31
                    ; vperm2i128 ymm2, ymm5, ymm7, 0x20
                    ; vperm2i128 ymm3, ymm5, ymm7, 0x31
                );
                self.transpose4();
            }
        }
    }

    /// A 4×4 transpose of the words of `ymm0..ymm3` in each 128-bit half
    /// (which is its own inverse); uses `ymm4..ymm7`.
    fn transpose4(&mut self) {
        dynasm!(self.b.asm; .arch x64
            ; vpunpckldq ymm4, ymm0, ymm1
            ; vpunpckhdq ymm5, ymm0, ymm1
            ; vpunpckldq ymm6, ymm2, ymm3
            ; vpunpckhdq ymm7, ymm2, ymm3
            ; vpunpcklqdq ymm0, ymm4, ymm6
            ; vpunpckhqdq ymm1, ymm4, ymm6
            ; vpunpcklqdq ymm2, ymm5, ymm7
            ; vpunpckhqdq ymm3, ymm5, ymm7
        );
    }

    /// Writes chunk `c` of `dsts` on the active lanes from the words in
    /// `ymm0..`: the components, or for 16-bit ones, the low and high
    /// halves of each word.
    fn split_words(&mut self, dsts: &[u32], size: u32, c: i32) {
        // Registers 6 to 9 keep the words while `store_chunk` uses 3 and 4.
        let kept = [6u8, 7, 8, 9];
        let words = (dsts.len() as u32 * size / 4) as usize;
        for (w, &r) in kept.iter().enumerate().take(words) {
            dynasm!(self.b.asm; .arch x64; vmovdqa Ry(r), Ry(w as u8));
        }
        let low = self.words([0xFFFF; 8]);
        for (j, &dst) in dsts.iter().enumerate() {
            let d = self.narrow(dst);
            if size == 4 {
                dynasm!(self.b.asm; .arch x64; vmovdqa ymm3, Ry(kept[j]));
            } else if j % 2 == 0 {
                dynasm!(self.b.asm; .arch x64; vpand ymm3, Ry(kept[j / 2]), [=>low]);
            } else {
                dynasm!(self.b.asm; .arch x64; vpsrld ymm3, Ry(kept[j / 2]), 16);
            }
            self.store_chunk(d, c, true);
        }
    }

    /// `ymm0..` = the words of chunk `c`'s elements: the components, or
    /// for 16-bit ones, pairs of them, the first in the low half.
    fn element_words(&mut self, srcs: &[u32], size: u32, c: i32) {
        if size == 4 {
            for (j, &src) in srcs.iter().enumerate() {
                let s = self.narrow(src);
                dynasm!(self.b.asm; .arch x64; vmovdqu Ry(j as u8), [r12 + s + 32 * c]);
            }
            return;
        }
        let low = self.words([0xFFFF; 8]);
        for (j, pair) in srcs.chunks(2).enumerate() {
            let (lo, hi) = (self.narrow(pair[0]), self.narrow(pair[1]));
            dynasm!(self.b.asm; .arch x64
                ; vmovdqu Ry(j as u8), [r12 + lo + 32 * c]
                ; vpand Ry(j as u8), Ry(j as u8), [=>low]
                ; vmovdqu ymm4, [r12 + hi + 32 * c]
                ; vpslld ymm4, ymm4, 16
                ; vpor Ry(j as u8), Ry(j as u8), ymm4
            );
        }
    }

    /// Stores the eight elements of `words` words each (in `ymm0..`, one
    /// register per word) from byte `rdx + rax`, lane after lane.
    fn store_elements(&mut self, words: u32) {
        let asm = &mut self.b.asm;
        match words {
            1 => dynasm!(asm; .arch x64; vmovdqu [rdx + rax], ymm0),
            2 => dynasm!(asm; .arch x64
                // Lanes 0, 1, 4, 5 and 2, 3, 6, 7 of the two words.
                ; vpunpckldq ymm2, ymm0, ymm1
                ; vpunpckhdq ymm3, ymm0, ymm1
                ; vperm2i128 ymm0, ymm2, ymm3, 0x20
                ; vperm2i128 ymm1, ymm2, ymm3, 0x31
                ; vmovdqu [rdx + rax], ymm0
                ; vmovdqu [rdx + rax + 32], ymm1
            ),
            _ => {
                // Whole elements of lanes 0 | 4, 1 | 5, 2 | 6 and 3 | 7,
                // then in lane order.
                self.transpose4();
                dynasm!(self.b.asm; .arch x64
                    ; vperm2i128 ymm4, ymm0, ymm1, 0x20
                    ; vperm2i128 ymm5, ymm2, ymm3, 0x20
                    ; vperm2i128 ymm6, ymm0, ymm1, 0x31
                    ; vperm2i128 ymm7, ymm2, ymm3, 0x31
                    ; vmovdqu [rdx + rax], ymm4
                    ; vmovdqu [rdx + rax + 32], ymm5
                    ; vmovdqu [rdx + rax + 64], ymm6
                    ; vmovdqu [rdx + rax + 96], ymm7
                );
            }
        }
    }
}
