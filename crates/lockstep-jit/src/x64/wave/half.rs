//! 16-bit loads and stores: half a word per lane, zero-extended in a
//! narrow register.

use super::{Address, Resource, WaveBuilder};
use crate::x64::{Constant, shift_q};
use dynasmrt::{DynamicLabel, DynasmApi, DynasmLabelApi, dynasm};
use std::mem::offset_of;

impl WaveBuilder {
    /// [`WaveBuilder::memory`], then `ymm8` = the offset and `ymm9` = the
    /// readable (or writable) byte count less 1 in every 64-bit lane: a
    /// 2-byte access at byte `at` is inside when `at` is below it.
    fn half_memory(&mut self, slot: u32, store: bool, offset: u32) {
        self.memory(slot, store, offset);
        let field = if store {
            offset_of!(Resource, writable_bytes)
        } else {
            offset_of!(Resource, bytes)
        } as i32;
        let at = super::RESOURCE * slot as i32 + field;
        dynasm!(self.b.asm; .arch x64
            ; mov rax, [rsi + at]
            ; dec rax
            ; vmovq xmm9, rax
            ; vpbroadcastq ymm9, xmm9
            ; vmovq xmm8, r9
            ; vpbroadcastq ymm8, xmm8
        );
    }

    /// Narrow `dst` = the 16 bits at byte `addr + offset` of memory `slot`,
    /// zero-extended, on the active lanes: 0 out of bounds or at an odd
    /// byte.
    pub fn load16(&mut self, dst: u32, at: Address) {
        let d = self.narrow(dst);
        let a = at.addr.map(|r| self.wide_at(r));
        self.need_lanes();
        self.half_memory(at.slot, false, at.offset);
        let (two, whole, halves) = (
            self.qwords([2; 4]),
            self.qwords([!3; 4]),
            self.words([0xFFFF; 8]),
        );
        let low_halves = self.b.constant(Constant::LowHalves);
        dynasm!(self.b.asm; .arch x64; vmovdqa ymm6, [=>low_halves]);
        // Runs of halves `stride` bytes apart: a half array (2), or one
        // component of an array of `half2` to `half16` (4 to 32).
        let stride = at.stride;
        let run =
            a.filter(|_| stride == 2 || (stride.is_multiple_of(4) && (4..=32).contains(&stride)));
        for c in self.chunks() {
            self.chunk_memory(at, c);
            let (slow, done) = (
                self.b.asm.new_dynamic_label(),
                self.b.asm.new_dynamic_label(),
            );
            if let Some(a) = run {
                let words = stride / 4;
                let span = if stride == 2 {
                    16
                } else {
                    4 * Self::span(words) as i32
                };
                self.half_run(a, c, slow, stride, span);
                if stride == 2 {
                    dynasm!(self.b.asm; .arch x64; vpmovzxwd ymm3, [rdx + rax]);
                } else {
                    // The same half of each lane's word: its words strided,
                    // shifted alike.
                    dynasm!(self.b.asm; .arch x64
                        ; mov r11d, eax
                        ; and r11d, 2
                        ; shl r11d, 3
                        ; shr rax, 2
                    );
                    self.load_strided(words);
                    dynasm!(self.b.asm; .arch x64
                        ; vmovd xmm4, r11d
                        ; vpsrld ymm3, ymm3, xmm4
                    );
                }
                dynasm!(self.b.asm; .arch x64; jmp =>done);
            }
            dynasm!(self.b.asm; .arch x64; =>slow);
            for h in 0..2 {
                // Each half of four lanes: the lanes that read, the shift
                // of their half within its word, and one gather of the
                // words.
                self.access_lanes(a, 2 * c + h, 1);
                dynasm!(self.b.asm; .arch x64; vpand ymm7, ymm0, [=>two]);
                shift_q(&mut self.b.asm, true, 7, 7, 3);
                dynasm!(self.b.asm; .arch x64
                    ; vpand ymm0, ymm0, [=>whole]
                    ; vpermd ymm1, ymm6, ymm1
                    ; vpermd ymm7, ymm6, ymm7
                    ; vpxor xmm5, xmm5, xmm5
                    ; vpgatherqd xmm5, [rdx + ymm0 * 1], xmm1
                    ; vpsrlvd xmm5, xmm5, xmm7
                );
                if h == 0 {
                    dynasm!(self.b.asm; .arch x64; vmovdqa xmm3, xmm5);
                } else {
                    dynasm!(self.b.asm; .arch x64; vinserti128 ymm3, ymm3, xmm5, 1);
                }
            }
            dynasm!(self.b.asm; .arch x64
                ; =>done
                ; vpand ymm3, ymm3, [=>halves]
            );
            self.store_chunk(d, c, true);
        }
    }

    /// Jumps to `slow` unless the eight byte addresses (plus the offset
    /// `r9`) of chunk `c` of the wide register at `a` are `stride` bytes
    /// apart from an even first one, and `span` bytes from the first lie in
    /// whole words (`r8` of them); else `rax` = the first byte address.
    /// Uses `rcx`.
    fn half_run(&mut self, a: i32, c: i32, slow: DynamicLabel, stride: u32, span: i32) {
        let step = u64::from(stride);
        let low = self.qwords([0, step, 2 * step, 3 * step]);
        let high = self.qwords([4 * step, 5 * step, 6 * step, 7 * step]);
        let at = a + 64 * c;
        dynasm!(self.b.asm; .arch x64
            ; mov rax, [r12 + at]
            ; add rax, r9
            ; test al, 1
            ; jnz =>slow
            ; lea rcx, [r8 * 4]
            ; sub rcx, span
            ; jb =>slow
            ; cmp rax, rcx
            ; ja =>slow
            ; vpbroadcastq ymm0, [r12 + at]
            ; vpaddq ymm1, ymm0, [=>low]
            ; vpcmpeqq ymm1, ymm1, [r12 + at]
            ; vpaddq ymm2, ymm0, [=>high]
            ; vpcmpeqq ymm2, ymm2, [r12 + at + 32]
        );
        self.unless_all_equal(slow);
    }

    /// Writes the low 16 bits of narrow `src` of each active lane, in lane
    /// order, to byte `addr + offset` of memory `slot` (as
    /// [`WaveBuilder::load16`] reads): nothing out of bounds or at an odd
    /// byte.
    pub fn store16(&mut self, at: Address, src: u32) {
        let s = self.narrow(src);
        self.need_lanes();
        self.half_memory(at.slot, true, at.offset);
        self.store_each_lane(at, s, 2);
    }
}
