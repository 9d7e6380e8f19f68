//! Runs of [`WaveBuilder::op_chain`]s eight lanes at a time: every chain
//! of the run on one chunk of lanes before the next chunk, with the values
//! the chunk has loaded, widened or written kept in vector registers for
//! the chains after it. A `half` that one chain rounds is read by the next
//! as the `float` it already holds, without a load or a conversion.

use super::{Arg, WaveBuilder};
use crate::Op32;
use crate::x64::{Second, TEMP};
use dynasmrt::{DynasmApi, dynasm};

/// One [`WaveBuilder::op_chain`]: `dst = narrow(op(widen(a), widen(b)))`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chain {
    /// Applied to each operand first.
    pub widen: Option<Op32>,
    /// The operation.
    pub op: Op32,
    /// Applied to the result, with its constant second operand.
    pub narrow: Option<(Op32, u32)>,
    /// The register written.
    pub dst: u32,
    /// The first operand's register.
    pub a: u32,
    /// The second operand.
    pub b: Arg,
    /// Only the active lanes are written.
    pub masked: bool,
}

/// The vector registers that hold a chunk's values: none of them is a
/// temporary of [`crate::x64::Builder::step`], of `store_chunk` or a mask.
const SLOTS: [u8; 10] = [0, 1, 2, 5, 6, 7, 8, 9, 13, 14];

/// Which register's chunk each slot holds, and whether widened.
struct Cache {
    held: [Option<(u32, bool)>; SLOTS.len()],
    /// The slot taken next: slots are taken in turn, so the last
    /// `SLOTS.len()` values taken are all still held.
    next: usize,
}

impl Cache {
    fn find(&self, key: (u32, bool)) -> Option<u8> {
        let at = self.held.iter().position(|&h| h == Some(key))?;
        Some(SLOTS[at])
    }

    /// A slot for `key`, dropping what it held; never `keep`, a slot
    /// the operation being emitted still reads.
    fn take(&mut self, key: (u32, bool), keep: Option<u8>) -> u8 {
        if keep == Some(SLOTS[self.next]) {
            self.next = (self.next + 1) % SLOTS.len();
        }
        let at = self.next;
        self.next = (self.next + 1) % SLOTS.len();
        self.held[at] = Some(key);
        SLOTS[at]
    }

    /// Forgets register `r`'s values (it is written).
    fn forget(&mut self, r: u32) {
        for h in &mut self.held {
            if h.is_some_and(|(reg, _)| reg == r) {
                *h = None;
            }
        }
    }
}

impl WaveBuilder {
    /// The chains in order, as [`WaveBuilder::op_chain`] each, chunk by
    /// chunk. No chain may read lanes of another chunk, which none does.
    pub fn op_chains(&mut self, chains: &[Chain]) {
        if chains.iter().any(|c| c.masked) {
            self.need_lanes();
        }
        for k in self.chunks() {
            let mut cache = Cache {
                held: [None; SLOTS.len()],
                next: 0,
            };
            for chain in chains {
                self.chain_chunk(chain, k, &mut cache);
            }
        }
    }

    /// One chain on chunk `k`.
    fn chain_chunk(&mut self, chain: &Chain, k: i32, cache: &mut Cache) {
        let a = self.operand(chain.a, chain.widen, k, cache, None);
        let second = match chain.b {
            // Loading the second operand must not take the first's slot.
            Arg::Reg(r) => Second::Reg(self.operand(r, chain.widen, k, cache, Some(a))),
            Arg::Imm(imm) => Second::Imm(imm),
        };
        self.b.step(chain.op, 3, a, second);
        cache.forget(chain.dst);
        let rounded = chain.narrow == Some((Op32::F32ToF16, 0));
        if rounded {
            // The halves, packed: stored widened to words, and read by
            // the chains after as the floats they are.
            dynasm!(self.b.asm; .arch x64
                ; vcvtps2ph Rx(TEMP), ymm3, 0
                ; vpmovzxwd ymm3, Rx(TEMP)
            );
            if !chain.masked {
                let s = cache.take((chain.dst, true), None);
                dynasm!(self.b.asm; .arch x64; vcvtph2ps Ry(s), Rx(TEMP));
            }
        } else if let Some((n, imm)) = chain.narrow {
            self.b.step(n, 3, 3, Second::Imm(imm));
        }
        let d = self.narrow(chain.dst);
        self.store_chunk(d, k, chain.masked);
        if !rounded || chain.masked {
            // What the frame now holds, blended or not.
            let s = cache.take((chain.dst, false), None);
            dynasm!(self.b.asm; .arch x64; vmovdqa Ry(s), ymm3);
        }
    }

    /// The vector register holding chunk `k` of register `r`, widened;
    /// a slot taken for it is never `keep`.
    fn operand(
        &mut self,
        r: u32,
        widen: Option<Op32>,
        k: i32,
        cache: &mut Cache,
        keep: Option<u8>,
    ) -> u8 {
        let widened = widen.is_some();
        if let Some(s) = cache.find((r, widened)) {
            return s;
        }
        if let (Some(w), Some(raw)) = (widen, cache.find((r, false))) {
            let s = cache.take((r, true), keep);
            self.b.step(w, s, raw, Second::Imm(0));
            return s;
        }
        // Loaded, and widened in place.
        let s = cache.take((r, widened), keep);
        let at = self.narrow(r);
        dynasm!(self.b.asm; .arch x64; vmovdqu Ry(s), [r12 + at + 32 * k]);
        if let Some(w) = widen {
            self.b.step(w, s, s, Second::Imm(0));
        }
        s
    }
}
