//! Machine code for [`Block32`]s, from lockstep-jit (the `jit` feature, on
//! by default): one pass over a block's lanes with its values in vector
//! registers, instead of a lane loop per operation.
//!
//! Only x86-64 CPUs with AVX2 get code, and only batches whose width is a
//! multiple of 8; the interpreter runs every other block.
//! `LOCKSTEP_JIT=off` (or `LOCKSTEP_SIMD=baseline`) leaves every block to
//! the interpreter, to compare the two.
//!
//! [`Block32`]: crate::bytecode::Block32

pub use machine::Kernel;
pub(crate) use machine::Kernels;
#[cfg(feature = "jit")]
pub(crate) use machine::parts;

#[cfg(feature = "jit")]
mod machine {
    use crate::bytecode::{Block32, Slot32Kind};
    use lockstep_jit::{Builder, Operand, Output, Run, Step};

    /// A block's machine code.
    pub use lockstep_jit::Kernel;

    /// The kernels of one program's blocks, collected while the blocks
    /// form.
    pub(crate) struct Kernels(Builder);

    impl Kernels {
        /// `None` where blocks get no machine code: on CPUs without AVX2,
        /// or when turned off by the environment.
        pub(crate) fn new() -> Option<Kernels> {
            let off =
                std::env::var_os("LOCKSTEP_JIT").is_some_and(|v| v.eq_ignore_ascii_case("off"));
            if off || !crate::simd::avx2_available() {
                return None;
            }
            Builder::new().map(Kernels)
        }

        /// Adds `block`'s code: the index of its kernel among those
        /// [`Kernels::finish`] returns, or `None` when it gets none (too
        /// many values live at once).
        pub(crate) fn add(&mut self, block: &Block32) -> Option<usize> {
            let (inputs, steps, outputs) = parts(block);
            self.0.add(&Run {
                inputs: &inputs,
                steps: &steps,
                outputs: &outputs,
            })
        }

        /// The kernels in the order they were added (`None` if the code
        /// could not be made executable).
        pub(crate) fn finish(self) -> Option<Vec<Kernel>> {
            self.0.finish()
        }
    }

    /// A block as lockstep-jit's run: its input registers, steps and
    /// outputs.
    pub(crate) fn parts(block: &Block32) -> (Vec<u32>, Vec<Step>, Vec<Output>) {
        let inputs: Vec<u32> = block.inputs.iter().map(|r| r.0).collect();
        let steps: Vec<Step> = block
            .ops
            .iter()
            .map(|o| {
                let (b, c) = match o.kind {
                    Slot32Kind::Slots { b, .. } => (Operand::Value(b), None),
                    Slot32Kind::Imm { imm, .. } => (Operand::Imm(imm), None),
                    Slot32Kind::Select { b, c, .. } => (Operand::Value(b), Some(c)),
                };
                Step {
                    op: o.op,
                    a: o.a,
                    b,
                    c,
                    keep: o.old,
                }
            })
            .collect();
        let outputs: Vec<Output> = block
            .outputs
            .iter()
            .map(|o| Output {
                reg: o.reg.0,
                value: o.slot,
                masked: o.masked,
            })
            .collect();
        (inputs, steps, outputs)
    }
}

#[cfg(not(feature = "jit"))]
mod machine {
    use crate::bytecode::Block32;

    /// A block's machine code: none without the `jit` feature.
    #[derive(Clone, Debug)]
    pub enum Kernel {}

    impl Kernel {
        pub fn run(&self, _: &mut [u64], _: usize, _: u128) -> bool {
            match *self {}
        }
    }

    pub(crate) enum Kernels {}

    impl Kernels {
        pub(crate) fn new() -> Option<Kernels> {
            None
        }

        pub(crate) fn add(&mut self, _: &Block32) -> Option<usize> {
            match *self {}
        }

        pub(crate) fn finish(self) -> Option<Vec<Kernel>> {
            match self {}
        }
    }
}
