//! What a SPIR-V compiler made of the wave prefix intrinsics: the probe
//! shader (`shaders/prefix_probe.hlsl`) writes every lane's
//! `WavePrefixSum`, `WavePrefixProduct` and `WavePrefixCountBits`;
//! [`compare`] tells, lane by lane, whether a peer's results are Lockstep's
//! (exclusive scans) or include the lane's own value.

use lockstep::pipeline::{Format, Kind, Pipeline};
use lockstep::{CompileOptions, MemoryLoader, Shader};

use crate::suite::{binding, buffer, hash, word, words};

/// The probe shader's source.
pub const SOURCE: &str = include_str!("../shaders/prefix_probe.hlsl");

/// The intrinsics the probe writes, in the order of its output buffers.
pub const INTRINSICS: [Intrinsic; 3] = [
    Intrinsic::PrefixSum,
    Intrinsic::PrefixProduct,
    Intrinsic::PrefixCountBits,
];

/// A wave prefix intrinsic of the probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Intrinsic {
    /// `WavePrefixSum`: the sum of the lower lanes' values.
    PrefixSum,
    /// `WavePrefixProduct`: the product of the lower lanes' values.
    PrefixProduct,
    /// `WavePrefixCountBits`: how many lower lanes' conditions are true.
    PrefixCountBits,
}

impl Intrinsic {
    /// The intrinsic's HLSL name, e.g. `WavePrefixSum`.
    pub fn name(self) -> &'static str {
        match self {
            Intrinsic::PrefixSum => "WavePrefixSum",
            Intrinsic::PrefixProduct => "WavePrefixProduct",
            Intrinsic::PrefixCountBits => "WavePrefixCountBits",
        }
    }

    /// The exclusive result `exclusive` with the lane's own operand (from
    /// its input `x`, as the probe derives it) folded in.
    fn inclusive(self, exclusive: u32, x: u32) -> u32 {
        match self {
            Intrinsic::PrefixSum => exclusive.wrapping_add(x),
            Intrinsic::PrefixProduct => exclusive.wrapping_mul((x & 3) + 1),
            Intrinsic::PrefixCountBits => exclusive + (x & 1),
        }
    }
}

/// How a peer's results of one intrinsic relate to Lockstep's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The lanes compared.
    pub lanes: usize,
    /// Lanes whose result is Lockstep's.
    pub exclusive: usize,
    /// Lanes whose result is Lockstep's combined with the lane's own
    /// operand, where that differs from Lockstep's.
    pub inclusive: usize,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Verdict {
            lanes,
            exclusive,
            inclusive,
        } = *self;
        if exclusive == lanes {
            write!(f, "exclusive: equal to Lockstep's in all {lanes} lanes")
        } else if exclusive + inclusive == lanes {
            write!(
                f,
                "INCLUSIVE: includes the lane's own value in {inclusive} of {lanes} lanes \
                 (the others' own value is the identity)"
            )
        } else {
            write!(
                f,
                "WRONG: {} of {lanes} lanes neither exclusive nor inclusive",
                lanes - exclusive - inclusive
            )
        }
    }
}

/// The probe's pipeline over `n` lanes (a multiple of 64).
pub fn pipeline(n: u32) -> Pipeline {
    assert!(
        n > 0 && n.is_multiple_of(64),
        "{n} lanes: not a multiple of 64"
    );
    let input: Vec<u32> = (0..n).map(|i| hash(i) & 0xFF).collect();
    let zeros = || vec![0; n as usize * 4];
    Pipeline {
        samplers: Vec::new(),
        graphics: None,
        dispatch: [n / 64, 1, 1],
        entry: None,
        buffers: vec![
            buffer("Input", Format::UInt32, words(&input)),
            buffer("Sums", Format::UInt32, zeros()),
            buffer("Products", Format::UInt32, zeros()),
            buffer("Counts", Format::UInt32, zeros()),
        ],
        results: Vec::new(),
        bindings: vec![
            binding("Input", Kind::StructuredBuffer, 0),
            binding("Sums", Kind::RwStructuredBuffer, 0),
            binding("Products", Kind::RwStructuredBuffer, 1),
            binding("Counts", Kind::RwStructuredBuffer, 2),
        ],
    }
}

/// Compiles the probe with Lockstep.
pub fn compile() -> Result<Shader, String> {
    lockstep::compile(
        "prefix_probe.hlsl",
        SOURCE,
        &CompileOptions::default(),
        &MemoryLoader::default(),
    )
    .map_err(|e| e.render(false))
}

/// Compares a peer's probe buffers with Lockstep's (both every pipeline
/// buffer, in order), one verdict per intrinsic of [`INTRINSICS`].
pub fn compare<B: AsRef<[u8]>>(
    pipeline: &Pipeline,
    lockstep: &[B],
    peer: &[Vec<u8>],
) -> Vec<Verdict> {
    let input = &pipeline.buffers[0].data;
    let lanes = input.len() / 4;
    INTRINSICS
        .iter()
        .enumerate()
        .map(|(k, &intrinsic)| {
            let (ours, theirs) = (&lockstep[k + 1], &peer[k + 1]);
            let mut verdict = Verdict {
                lanes,
                exclusive: 0,
                inclusive: 0,
            };
            for i in 0..lanes {
                let (a, b) = (word(ours.as_ref(), i), word(theirs, i));
                if a == b {
                    verdict.exclusive += 1;
                } else if b == intrinsic.inclusive(a, word(input, i)) {
                    verdict.inclusive += 1;
                }
            }
            verdict
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use lockstep::RunOptions;

    /// Lockstep's probe results, with the inclusive versions a compiler
    /// that gets the scans wrong would give.
    fn lockstep_and_inclusive(wave_size: u32) -> (Pipeline, Vec<Vec<u8>>, Vec<Vec<u8>>) {
        let pipeline = pipeline(256);
        let shader = compile().unwrap();
        let opts = RunOptions {
            wave_size,
            threads: 1,
            ..RunOptions::default()
        };
        let ours: Vec<Vec<u8>> = lockstep::run(&shader, &pipeline, &opts)
            .unwrap()
            .contents
            .iter()
            .map(|c| c.to_vec())
            .collect();
        let input = &pipeline.buffers[0].data;
        let mut inclusive = ours.clone();
        for (k, intrinsic) in INTRINSICS.iter().enumerate() {
            inclusive[k + 1] = (0..256)
                .map(|i| intrinsic.inclusive(word(&ours[k + 1], i), word(input, i)))
                .flat_map(u32::to_le_bytes)
                .collect();
        }
        (pipeline, ours, inclusive)
    }

    #[test]
    fn lockstep_scans_are_exclusive() {
        let pipeline = pipeline(128);
        let out = lockstep::run(
            &compile().unwrap(),
            &pipeline,
            &RunOptions {
                wave_size: 8,
                threads: 1,
                ..RunOptions::default()
            },
        )
        .unwrap()
        .contents;
        let input = &pipeline.buffers[0].data;
        for wave in 0..128 / 8 {
            let (mut sum, mut product, mut count) = (0u32, 1u32, 0u32);
            for i in wave * 8..wave * 8 + 8 {
                assert_eq!(word(&out[1], i), sum);
                assert_eq!(word(&out[2], i), product);
                assert_eq!(word(&out[3], i), count);
                let x = word(input, i);
                sum = sum.wrapping_add(x);
                product = product.wrapping_mul((x & 3) + 1);
                count += x & 1;
            }
        }
    }

    #[test]
    fn verdicts() {
        for wave_size in [8, 32] {
            let (pipeline, ours, inclusive) = lockstep_and_inclusive(wave_size);
            for v in compare(&pipeline, &ours, &ours) {
                assert_eq!((v.exclusive, v.inclusive), (256, 0));
                assert!(v.to_string().starts_with("exclusive"));
            }
            for v in compare(&pipeline, &ours, &inclusive) {
                assert_eq!(v.exclusive + v.inclusive, 256);
                assert!(v.inclusive > 64, "{v:?}");
                assert!(v.to_string().starts_with("INCLUSIVE"), "{v}");
            }
            let mut garbage = ours.clone();
            garbage[1] = vec![0xAB; 256 * 4];
            let v = compare(&pipeline, &ours, &garbage)[0];
            assert!(v.to_string().starts_with("WRONG"), "{v}");
        }
    }
}
