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

/// Where an operand of a chain comes from on a chunk.
enum Fetch {
    /// A slot holds it as the chain reads it.
    Held(u8),
    /// A slot holds it unwidened: widened into the other slot.
    Widen { from: u8, to: u8 },
    /// Loaded from the frame into the slot (and widened there).
    Load(u8),
}

impl Cache {
    fn new() -> Cache {
        Cache {
            held: [None; SLOTS.len()],
            next: 0,
        }
    }

    /// Where register `r` (widened with `widen`) comes from; a slot taken
    /// for it is never `keep`.
    fn fetch(&mut self, r: u32, widen: bool, keep: Option<u8>) -> Fetch {
        if let Some(s) = self.find((r, widen)) {
            return Fetch::Held(s);
        }
        if widen && let Some(from) = self.find((r, false)) {
            return Fetch::Widen {
                from,
                to: self.take((r, true), keep),
            };
        }
        Fetch::Load(self.take((r, widen), keep))
    }

    /// The slots a chain's result is kept in once computed: the float of
    /// a rounded half (unmasked), and the frame's word.
    fn written(&mut self, chain: &Chain) -> (Option<u8>, Option<u8>) {
        self.forget(chain.dst);
        let rounded = chain.narrow == Some((Op32::F32ToF16, 0));
        let float = (rounded && !chain.masked).then(|| self.take((chain.dst, true), None));
        let word = (!rounded || chain.masked).then(|| self.take((chain.dst, false), None));
        (float, word)
    }
}

/// Which chains of a run must write their result to the frame: all but
/// those whose register a later chain of the run overwrites on every lane,
/// when no chain in between loads it from the frame. A dry run of one
/// chunk's cache tells which chains load which registers: every chunk's
/// is the same.
fn frame_writes(chains: &[Chain]) -> Vec<bool> {
    let mut cache = Cache::new();
    let mut loads: Vec<Vec<u32>> = Vec::with_capacity(chains.len());
    for c in chains {
        let mut loaded = Vec::new();
        let a = match cache.fetch(c.a, c.widen.is_some(), None) {
            Fetch::Load(s) => {
                loaded.push(c.a);
                s
            }
            Fetch::Held(s) | Fetch::Widen { to: s, .. } => s,
        };
        if let Arg::Reg(r) = c.b
            && let Fetch::Load(_) = cache.fetch(r, c.widen.is_some(), Some(a))
        {
            loaded.push(r);
        }
        cache.written(c);
        loads.push(loaded);
    }
    let writes: Vec<_> = chains.iter().map(|c| Some((c.dst, c.masked))).collect();
    super::frame_writes(&writes, &loads)
}

impl WaveBuilder {
    /// The chains in order, as [`WaveBuilder::op_chain`] each, chunk by
    /// chunk. No chain may read lanes of another chunk, which none does.
    /// A result a later chain of the run overwrites is written to the
    /// frame only where something still reads it there.
    pub fn op_chains(&mut self, chains: &[Chain]) {
        if chains.iter().any(|c| c.masked) {
            self.need_lanes();
        }
        let writes = frame_writes(chains);
        for k in self.chunks() {
            let mut cache = Cache::new();
            for (chain, &write) in chains.iter().zip(&writes) {
                self.chain_chunk(chain, k, write, &mut cache);
            }
        }
    }

    /// One chain on chunk `k`.
    fn chain_chunk(&mut self, chain: &Chain, k: i32, write: bool, cache: &mut Cache) {
        let a = self.operand(chain.a, chain.widen, k, cache, None);
        let second = match chain.b {
            // Loading the second operand must not take the first's slot.
            Arg::Reg(r) => Second::Reg(self.operand(r, chain.widen, k, cache, Some(a))),
            Arg::Imm(imm) => Second::Imm(imm),
        };
        self.b.step(chain.op, 3, a, second);
        let (float, word) = cache.written(chain);
        let rounded = chain.narrow == Some((Op32::F32ToF16, 0));
        if rounded {
            // The halves, packed: stored widened to words, and read by
            // the chains after as the floats they are.
            dynasm!(self.b.asm; .arch x64
                ; vcvtps2ph Rx(TEMP), ymm3, 0
                ; vpmovzxwd ymm3, Rx(TEMP)
            );
            if let Some(s) = float {
                dynasm!(self.b.asm; .arch x64; vcvtph2ps Ry(s), Rx(TEMP));
            }
        } else if let Some((n, imm)) = chain.narrow {
            self.b.step(n, 3, 3, Second::Imm(imm));
        }
        if write || chain.masked {
            let d = self.narrow(chain.dst);
            self.store_chunk(d, k, chain.masked);
        }
        if let Some(s) = word {
            // What the frame holds, blended or not.
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
        match (cache.fetch(r, widen.is_some(), keep), widen) {
            (Fetch::Held(s), _) => s,
            (Fetch::Widen { from, to }, Some(w)) => {
                self.b.step(w, to, from, Second::Imm(0));
                to
            }
            (Fetch::Load(s), _) => {
                // Loaded, and widened in place.
                let at = self.narrow(r);
                dynasm!(self.b.asm; .arch x64; vmovdqu Ry(s), [r12 + at + 32 * k]);
                if let Some(w) = widen {
                    self.b.step(w, s, s, Second::Imm(0));
                }
                s
            }
            (Fetch::Widen { .. }, None) => unreachable!("only a widened operand is widened"),
        }
    }
}
