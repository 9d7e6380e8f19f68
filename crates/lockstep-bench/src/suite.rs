//! The benchmark suite as data. Each kernel is an `.hlsl` file in
//! `benches/kernels/` at the repository root; its pipeline (buffers of up
//! to 2^24 elements) is built here, with the expected result computed in
//! Rust when the data is built. The element count is a parameter, so tests
//! run the same kernels at a few thousand elements while the benchmarks use
//! the full sizes ([`Kernel::elements`]).

use lockstep::pipeline::{Binding, BufferDesc, Format, Kind, OutputProps, Pipeline};
use lockstep::{CompileOptions, MemoryLoader, Shader};

const N24: u32 = 1 << 24;
const N22: u32 = 1 << 22;

/// One kernel of the suite.
pub struct Kernel {
    /// The kernel's name, also its file name without `.hlsl`.
    pub name: &'static str,
    /// The HLSL source (`benches/kernels/<name>.hlsl`).
    pub source: &'static str,
    /// The element count the benchmarks use: threads, or texels for
    /// `tile_minmax`.
    pub elements: u32,
    /// Builds the pipeline and its check for an element count (a multiple
    /// of the kernel's group size; for `tile_minmax` the square of a
    /// multiple of 8).
    pub build: fn(u32) -> Case,
    /// Why the kernel has no SPIR-V version, when it has none.
    pub no_spirv: Option<&'static str>,
}

/// The result check of a [`Case`]: given every buffer after the dispatch,
/// in the pipeline's order, an error message when the result is wrong.
pub type Check = Box<dyn Fn(&[&[u8]]) -> Result<(), String> + Send + Sync>;

/// A kernel's pipeline at one size, with its expected result.
pub struct Case {
    /// The buffers, bindings and dispatch to run.
    pub pipeline: Pipeline,
    /// Elements (threads, or texels) the dispatch processes.
    pub elements: u32,
    /// Indices of the buffers the kernel writes, in the pipeline's order.
    pub outputs: Vec<usize>,
    check: Check,
}

impl Case {
    /// Checks the buffers after a dispatch (every pipeline buffer, in the
    /// pipeline's order; only the outputs are looked at).
    pub fn check<B: AsRef<[u8]>>(&self, contents: &[B]) -> Result<(), String> {
        if contents.len() != self.pipeline.buffers.len() {
            return Err(format!(
                "{} buffers after the dispatch, expected {}",
                contents.len(),
                self.pipeline.buffers.len()
            ));
        }
        let contents: Vec<&[u8]> = contents.iter().map(AsRef::as_ref).collect();
        (self.check)(&contents)
    }
}

/// The kernels, in the benchmark's order.
pub const KERNELS: [Kernel; 13] = [
    Kernel {
        name: "ordered_append",
        source: include_str!("../../../benches/kernels/ordered_append.hlsl"),
        elements: N24,
        build: ordered_append,
        no_spirv: None,
    },
    Kernel {
        name: "wave_reduce",
        source: include_str!("../../../benches/kernels/wave_reduce.hlsl"),
        elements: N24,
        build: wave_reduce,
        no_spirv: None,
    },
    Kernel {
        name: "block_scan",
        source: include_str!("../../../benches/kernels/block_scan.hlsl"),
        elements: N24,
        build: block_scan,
        no_spirv: None,
    },
    Kernel {
        name: "tile_minmax",
        source: include_str!("../../../benches/kernels/tile_minmax.hlsl"),
        elements: 4096 * 4096,
        build: tile_minmax,
        no_spirv: None,
    },
    Kernel {
        name: "divergent_loop",
        source: include_str!("../../../benches/kernels/divergent_loop.hlsl"),
        elements: N22,
        build: divergent_loop,
        no_spirv: None,
    },
    Kernel {
        name: "stream_scale",
        source: include_str!("../../../benches/kernels/stream_scale.hlsl"),
        elements: N24,
        build: stream_scale,
        no_spirv: None,
    },
    Kernel {
        name: "gather_index",
        source: include_str!("../../../benches/kernels/gather_index.hlsl"),
        elements: N24,
        build: gather_index,
        no_spirv: None,
    },
    Kernel {
        name: "float4_wave_max",
        source: include_str!("../../../benches/kernels/float4_wave_max.hlsl"),
        elements: N22,
        build: float4_wave_max,
        no_spirv: None,
    },
    Kernel {
        name: "float4_shading",
        source: include_str!("../../../benches/kernels/float4_shading.hlsl"),
        elements: N22,
        build: float4_shading,
        no_spirv: None,
    },
    Kernel {
        name: "tree_scan",
        source: include_str!("../../../benches/kernels/tree_scan.hlsl"),
        elements: N24,
        build: tree_scan,
        no_spirv: None,
    },
    Kernel {
        name: "hash64",
        source: include_str!("../../../benches/kernels/hash64.hlsl"),
        elements: N24,
        build: hash64,
        no_spirv: None,
    },
    Kernel {
        name: "half_blend",
        source: include_str!("../../../benches/kernels/half_blend.hlsl"),
        elements: N22,
        build: half_blend,
        no_spirv: None,
    },
    Kernel {
        name: "match_histogram",
        source: include_str!("../../../benches/kernels/match_histogram.hlsl"),
        elements: N24,
        build: match_histogram,
        no_spirv: Some("glslang has no WaveMatch"),
    },
];

/// The kernel called `name`.
pub fn kernel(name: &str) -> Option<&'static Kernel> {
    KERNELS.iter().find(|k| k.name == name)
}

/// The kernel called `name`, or every kernel when `None`; an unknown name
/// is an error that lists the kernels.
pub fn select(name: Option<&str>) -> Result<Vec<&'static Kernel>, String> {
    match name {
        Some(name) => {
            let k = kernel(name).ok_or_else(|| {
                let names: Vec<&str> = KERNELS.iter().map(|k| k.name).collect();
                format!("no kernel `{name}` (kernels: {})", names.join(", "))
            })?;
            Ok(vec![k])
        }
        None => Ok(KERNELS.iter().collect()),
    }
}

impl Kernel {
    /// The kernel's pipeline and check at the benchmark's size.
    pub fn full(&self) -> Case {
        (self.build)(self.elements)
    }

    /// Compiles the kernel with Lockstep's default options (and 16-bit
    /// types where its opening comment asks for `-enable-16bit-types`).
    pub fn compile(&self) -> Result<Shader, String> {
        compile_source(&format!("{}.hlsl", self.name), self.source)
    }
}

/// Compiles `source` (named `name` in diagnostics) with Lockstep's default
/// options, and 16-bit types where its opening comment asks for
/// `-enable-16bit-types`.
pub fn compile_source(name: &str, source: &str) -> Result<Shader, String> {
    let opts = CompileOptions {
        enable_16bit_types: source
            .lines()
            .take_while(|l| l.starts_with("//"))
            .any(|l| l.contains("-enable-16bit-types")),
        ..CompileOptions::default()
    };
    lockstep::compile(name, source, &opts, &MemoryLoader::default()).map_err(|e| e.render(false))
}

impl Kernel {}

/// A cheap, well-mixed hash for building inputs.
pub fn hash(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// Little-endian bytes of `ws`.
pub fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Word `i` of a little-endian buffer.
pub fn word(bytes: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().unwrap())
}

/// The wrapping sum of a buffer's words.
fn word_sum(bytes: &[u8]) -> u32 {
    bytes.chunks_exact(4).fold(0u32, |s, w| {
        s.wrapping_add(u32::from_le_bytes(w.try_into().unwrap()))
    })
}

/// A buffer of one-channel elements.
pub fn buffer(name: &str, format: Format, data: Vec<u8>) -> BufferDesc {
    BufferDesc {
        name: name.to_string(),
        format,
        stride: None,
        channels: 1,
        array_size: 1,
        data,
        output_props: None,
    }
}

fn texture(name: &str, format: Format, data: Vec<u8>, width: u32, height: u32) -> BufferDesc {
    BufferDesc {
        output_props: Some(OutputProps {
            width,
            height,
            depth: 1,
            mip_levels: 1,
        }),
        ..buffer(name, format, data)
    }
}

/// A binding of buffer `name` to register `register` of space 0.
pub fn binding(name: &str, kind: Kind, register: u32) -> Binding {
    Binding {
        name: name.to_string(),
        kind,
        register,
        space: 0,
        set: 0,
        vulkan_binding: None,
    }
}

/// A compute pipeline with no samplers, no result rules and the entry
/// point `main`.
fn compute(dispatch: [u32; 3], buffers: Vec<BufferDesc>, bindings: Vec<Binding>) -> Pipeline {
    Pipeline {
        samplers: Vec::new(),
        graphics: None,
        dispatch,
        entry: None,
        buffers,
        results: Vec::new(),
        bindings,
    }
}

/// `elements` checked against the group size `group`.
fn groups(elements: u32, group: u32) -> u32 {
    assert!(
        elements > 0 && elements.is_multiple_of(group),
        "{elements} elements: not a positive multiple of the group size {group}"
    );
    elements / group
}

/// The compaction of the WavePrefixCountBits example: values not a multiple
/// of 3 are appended to one global stream. The count and the sum of the
/// stream are checked (the order of the waves' chunks depends on timing).
fn ordered_append(n: u32) -> Case {
    let input: Vec<u32> = (0..n).map(hash).collect();
    let kept = input.iter().filter(|&&v| v % 3 != 0);
    let count = kept.clone().count() as u32;
    let sum = kept.fold(0u32, |s, &v| s.wrapping_add(v));
    let pipeline = compute(
        [groups(n, 64), 1, 1],
        vec![
            buffer("Input", Format::UInt32, words(&input)),
            buffer("Output", Format::UInt32, vec![0; n as usize * 4]),
            buffer("BufferSize", Format::UInt32, vec![0; 4]),
        ],
        vec![
            binding("Input", Kind::StructuredBuffer, 0),
            binding("Output", Kind::RwStructuredBuffer, 0),
            binding("BufferSize", Kind::RwByteAddressBuffer, 1),
        ],
    );
    Case {
        pipeline,
        elements: n,
        outputs: vec![1, 2],
        check: Box::new(move |out| {
            let got = word(out[2], 0);
            if got != count {
                return Err(format!("ordered_append: count {got}, expected {count}"));
            }
            let got = word_sum(out[1]);
            if got != sum {
                return Err(format!("ordered_append: sum {got}, expected {sum}"));
            }
            Ok(())
        }),
    }
}

/// WaveActiveSum, one InterlockedAdd per wave: the total is checked.
fn wave_reduce(n: u32) -> Case {
    let input: Vec<u32> = (0..n).map(hash).collect();
    let total = input.iter().fold(0u32, |s, &v| s.wrapping_add(v));
    let pipeline = compute(
        [groups(n, 256), 1, 1],
        vec![
            buffer("Input", Format::UInt32, words(&input)),
            buffer("Total", Format::UInt32, vec![0; 4]),
        ],
        vec![
            binding("Input", Kind::StructuredBuffer, 0),
            binding("Total", Kind::RwByteAddressBuffer, 0),
        ],
    );
    Case {
        pipeline,
        elements: n,
        outputs: vec![1],
        check: Box::new(move |out| {
            let got = word(out[1], 0);
            if got != total {
                return Err(format!("wave_reduce: total {got}, expected {total}"));
            }
            Ok(())
        }),
    }
}

/// Exclusive prefix sum of each block of 256: the whole output is checked.
fn block_scan(n: u32) -> Case {
    block_prefix("block_scan", n)
}

/// The same as `block_scan`'s, for the groupshared scan of `tree_scan`.
fn tree_scan(n: u32) -> Case {
    block_prefix("tree_scan", n)
}

/// The exclusive prefix sum of each block of 256 elements, for the kernel
/// `name`.
fn block_prefix(name: &'static str, n: u32) -> Case {
    let input: Vec<u32> = (0..n).map(|i| hash(i) & 0xFFFF).collect();
    let expected: Vec<u32> = input
        .chunks_exact(256)
        .flat_map(|block| {
            block.iter().scan(0u32, |s, &v| {
                let before = *s;
                *s = s.wrapping_add(v);
                Some(before)
            })
        })
        .collect();
    let expected = words(&expected);
    one_output(
        (n, 256),
        vec![buffer("Input", Format::UInt32, words(&input))],
        ("Output", Format::UInt32),
        move |out| same_words(&format!("{name}: wrong output"), out, &expected),
    )
}

/// Min/max depth per 8×8 tile of a square depth buffer (4096×4096 in the
/// benchmark): every tile is checked. Depths are multiples of 1/1024 below
/// 1, exact as halfs.
fn tile_minmax(texels: u32) -> Case {
    let size = texels.isqrt();
    assert!(
        size * size == texels && size > 0 && size.is_multiple_of(8),
        "tile_minmax: {texels} texels is not the square of a multiple of 8"
    );
    let tiles = size / 8;
    let depth: Vec<f32> = (0..size * size)
        .map(|i| (hash(i) % 1024) as f32 / 1024.0)
        .collect();
    let mut expected = vec![0u32; (tiles * tiles) as usize];
    for ty in 0..tiles {
        for tx in 0..tiles {
            let (mut lo, mut hi) = (f32::MAX, 0.0f32);
            for y in ty * 8..ty * 8 + 8 {
                for x in tx * 8..tx * 8 + 8 {
                    let z = depth[(y * size + x) as usize];
                    lo = lo.min(z);
                    hi = hi.max(z);
                }
            }
            let half = |v: f32| u32::from(half::f16::from_f32(v).to_bits());
            expected[(ty * tiles + tx) as usize] = (half(hi) << 16) | half(lo);
        }
    }
    let expected = words(&expected);
    let depth_bytes: Vec<u8> = depth.iter().flat_map(|z| z.to_le_bytes()).collect();
    let pipeline = compute(
        [tiles, tiles, 1],
        vec![
            texture("Depth", Format::Float32, depth_bytes, size, size),
            texture(
                "TileMinMaxDepthUAV",
                Format::UInt32,
                vec![0; (tiles * tiles * 4) as usize],
                tiles,
                tiles,
            ),
        ],
        vec![
            binding("Depth", Kind::Texture2D, 0),
            binding("TileMinMaxDepthUAV", Kind::RwTexture2D, 0),
        ],
    );
    Case {
        pipeline,
        elements: texels,
        outputs: vec![1],
        check: Box::new(move |out| same_words("tile_minmax: wrong output", out[1], &expected)),
    }
}

/// The per-lane loop of `divergent_loop.hlsl`, run `n` times.
fn divergent_lane(mut x: u32, n: u32) -> u32 {
    for i in 0..n {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        x ^= x >> 13;
        x = x.rotate_left(5);
        x = x.wrapping_add(i.wrapping_mul(0x9E37_79B9));
    }
    x
}

/// A loop with per-lane trip counts (0 to 16) and a WaveActiveAnyTrue
/// exit (over 2^22 lanes in the benchmark): the whole output is checked.
fn divergent_loop(n: u32) -> Case {
    let seeds: Vec<u32> = (0..n).map(hash).collect();
    let trips: Vec<u32> = (0..n).map(|i| hash(i ^ 0x5bd1_e995) % 17).collect();
    let expected: Vec<u32> = seeds
        .iter()
        .zip(&trips)
        .map(|(&x, &n)| divergent_lane(x, n))
        .collect();
    let expected = words(&expected);
    one_output(
        (n, 64),
        vec![
            buffer("Seeds", Format::UInt32, words(&seeds)),
            buffer("Trips", Format::UInt32, words(&trips)),
        ],
        ("Output", Format::UInt32),
        move |out| same_words("divergent_loop: wrong output", out, &expected),
    )
}

/// WaveMatch + WaveMultiPrefixCountBits binning of keys (2^24 in the
/// benchmark) into 256 bins. Keys drift slowly with the thread index (about
/// four distinct keys per wave), as in an image histogram; the high bits are
/// noise the kernel masks off. Every bin is checked.
fn match_histogram(n: u32) -> Case {
    let keys: Vec<u32> = (0..n)
        .map(|i| (((i >> 10) + (hash(i) & 3)) & 255) | (hash(!i) & 0xFFFF_FF00))
        .collect();
    let mut bins = vec![0u32; 256];
    for &k in &keys {
        bins[(k & 255) as usize] += 1;
    }
    let expected = words(&bins);
    let pipeline = compute(
        [groups(n, 64), 1, 1],
        vec![
            buffer("Keys", Format::UInt32, words(&keys)),
            buffer("Bins", Format::UInt32, vec![0; 256 * 4]),
        ],
        vec![
            binding("Keys", Kind::StructuredBuffer, 0),
            binding("Bins", Kind::RwStructuredBuffer, 0),
        ],
    );
    Case {
        pipeline,
        elements: n,
        outputs: vec![1],
        check: Box::new(move |out| same_words("match_histogram: wrong bins", out[1], &expected)),
    }
}

/// `Ok` when `got == expected`, else `message` with the first word that
/// differs.
/// `Output[i] = Input[i] * 3 + 1`: the whole output is checked.
fn stream_scale(n: u32) -> Case {
    let input: Vec<u32> = (0..n).map(hash).collect();
    let expected = words(
        &input
            .iter()
            .map(|x| x.wrapping_mul(3).wrapping_add(1))
            .collect::<Vec<_>>(),
    );
    let pipeline = compute(
        [groups(n, 256), 1, 1],
        vec![
            buffer("Input", Format::UInt32, words(&input)),
            buffer("Output", Format::UInt32, vec![0; n as usize * 4]),
        ],
        vec![
            binding("Input", Kind::StructuredBuffer, 0),
            binding("Output", Kind::RwStructuredBuffer, 0),
        ],
    );
    Case {
        pipeline,
        elements: n,
        outputs: vec![1],
        check: Box::new(move |out| same_words("stream_scale", out[1], &expected)),
    }
}

/// `Output[i] = Data[Index[i]] * 0.5 + (Index[i] & 15)`, indices in no
/// order; the data are integers below 2^20, so every result is exact on
/// any device. The whole output is checked.
fn gather_index(n: u32) -> Case {
    let index: Vec<u32> = (0..n).map(|i| hash(i ^ 0x5bd1_e995) % n).collect();
    let data: Vec<f32> = (0..n).map(|i| (hash(i) & 0xF_FFFF) as f32).collect();
    let expected: Vec<u32> = index
        .iter()
        .map(|&i| (data[i as usize] * 0.5 + (i & 15) as f32).to_bits())
        .collect();
    let expected = words(&expected);
    let data: Vec<u32> = data.iter().map(|f| f.to_bits()).collect();
    one_output(
        (n, 128),
        vec![
            buffer("Index", Format::UInt32, words(&index)),
            buffer("Data", Format::Float32, words(&data)),
        ],
        ("Output", Format::Float32),
        move |out| same_words("gather_index", out, &expected),
    )
}

/// `n` float4 points whose components are integers below 1024.
fn points4(n: u32) -> Vec<[f32; 4]> {
    (0..n)
        .map(|i| std::array::from_fn(|k| (hash(4 * i + k as u32) & 0x3FF) as f32))
        .collect()
}

/// The buffer `Points` of `points`, four channels to an element.
fn points4_buffer(points: &[[f32; 4]]) -> BufferDesc {
    let flat: Vec<u32> = points.iter().flatten().map(|f| f.to_bits()).collect();
    let mut buffer = buffer("Points", Format::Float32, words(&flat));
    buffer.channels = 4;
    buffer
}

/// Each point's length after a float4 scale and offset, and the largest
/// length. The components are integers below 1024, so the squares and
/// their sum are exact; a device's square root may be off by a few units
/// in the last place (Vulkan allows it), so each length is checked to
/// within 4 of them, and the largest is the largest of the lengths the
/// device wrote.
fn float4_wave_max(n: u32) -> Case {
    let points = points4(n);
    let expected: Vec<f32> = points
        .iter()
        .map(|p| {
            let q = [
                p[0] * 0.5 + 1.0,
                p[1] * 0.25 + 2.0,
                p[2] * 2.0 + 3.0,
                p[3] + 4.0,
            ];
            (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt()
        })
        .collect();
    let points = points4_buffer(&points);
    let pipeline = compute(
        [groups(n, 64), 1, 1],
        vec![
            points,
            buffer("Length", Format::Float32, vec![0; n as usize * 4]),
            buffer("Largest", Format::UInt32, vec![0; 4]),
        ],
        vec![
            binding("Points", Kind::StructuredBuffer, 0),
            binding("Length", Kind::RwStructuredBuffer, 0),
            binding("Largest", Kind::RwByteAddressBuffer, 1),
        ],
    );
    Case {
        pipeline,
        elements: n,
        outputs: vec![1, 2],
        check: Box::new(move |out| {
            let mut largest = 0u32;
            for (i, want) in expected.iter().enumerate() {
                let got = word(out[1], i);
                if got.abs_diff(want.to_bits()) > 4 {
                    return Err(format!(
                        "float4_wave_max: length {i} is {}, expected {want}",
                        f32::from_bits(got)
                    ));
                }
                largest = largest.max(got);
            }
            let got = word(out[2], 0);
            if got != largest {
                return Err(format!(
                    "float4_wave_max: largest {}, expected {}",
                    f32::from_bits(got),
                    f32::from_bits(largest)
                ));
            }
            Ok(())
        }),
    }
}

/// splitmix64 of each 64-bit key, folded to 32 bits: every element is
/// checked.
fn hash64(n: u32) -> Case {
    let keys: Vec<u64> = (0..n)
        .map(|i| u64::from(hash(2 * i)) << 32 | u64::from(hash(2 * i + 1)))
        .collect();
    let expected: Vec<u32> = keys
        .iter()
        .map(|&k| {
            let mut z = k.wrapping_add(0x9E37_79B9_7F4A_7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            z as u32 ^ (z >> 32) as u32
        })
        .collect();
    let expected = words(&expected);
    let flat: Vec<u32> = keys
        .iter()
        .flat_map(|&k| [k as u32, (k >> 32) as u32])
        .collect();
    let mut keys = buffer("Keys", Format::UInt32, words(&flat));
    keys.channels = 2;
    one_output((n, 64), vec![keys], ("Hash", Format::UInt32), move |out| {
        same_words("hash64: wrong output", out, &expected)
    })
}

/// `half_blend`: each colour blended with its neighbour's by half its
/// alpha, then `r * r * 0.75 + 0.125`, every operation rounded to `half`
/// as HLSL's 16-bit arithmetic does. A device may keep more precision
/// between operations, so each component is checked to within 2^-8.
fn half_blend(n: u32) -> Case {
    use half::f16;
    let h = |x: f32| f16::from_f32(x);
    let colors: Vec<[f16; 4]> = (0..n)
        .map(|i| std::array::from_fn(|k| h((hash(4 * i + k as u32) >> 22) as f32 / 1024.0)))
        .collect();
    let expected: Vec<[f32; 4]> = (0..n as usize)
        .map(|i| {
            let (c, d) = (colors[i], colors[i ^ 1]);
            let a = c[3] * h(0.5);
            std::array::from_fn(|k| {
                let r = c[k] * a + d[k] * (h(1.0) - a);
                (r * r * h(0.75) + h(0.125)).to_f32()
            })
        })
        .collect();
    let bytes: Vec<u8> = colors
        .iter()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let mut input = buffer("Colors", Format::Float16, bytes);
    input.channels = 4;
    let mut case = one_output(
        (n, 64),
        vec![input],
        ("Blended", Format::Float16),
        move |out| {
            for (i, want) in expected.iter().enumerate() {
                for (k, &want) in want.iter().enumerate() {
                    let at = 8 * i + 2 * k;
                    let got = f16::from_le_bytes([out[at], out[at + 1]]).to_f32();
                    if (got - want).abs() > 1.0 / 256.0 {
                        return Err(format!(
                            "half_blend: component {k} of element {i} is {got}, expected {want}"
                        ));
                    }
                }
            }
            Ok(())
        },
    );
    let output = case.outputs[0];
    let blended = &mut case.pipeline.buffers[output];
    blended.channels = 4;
    blended.data = vec![0; 8 * n as usize];
    case
}

/// A weighted sum of float4 shading terms (`sin`, `cos`, `exp`, `log`,
/// `pow`) per point. The components are integers below 1024. Devices'
/// transcendentals are approximations (Vulkan allows an absolute error of
/// 2^-11 for `sin` and `cos`), so each result is checked to within 0.01
/// plus 10^-4 of its size.
fn float4_shading(n: u32) -> Case {
    let points = points4(n);
    let weights = [0.1f32, 0.2, 0.3, 0.4];
    let expected: Vec<f32> = points
        .iter()
        .map(|p| {
            p.iter()
                .zip(weights)
                .map(|(&x, w)| {
                    let wave = (x * 0.01).sin() * (x * 0.02).cos();
                    let falloff = (x * -0.002).exp() + (x + 1.0).ln();
                    let gloss = (x * 0.001 + 0.5).powf(1.5);
                    (wave * falloff + gloss) * w
                })
                .sum()
        })
        .collect();
    let points = points4_buffer(&points);
    one_output(
        (n, 64),
        vec![points],
        ("Shade", Format::Float32),
        move |out| {
            for (i, want) in expected.iter().enumerate() {
                let got = f32::from_bits(word(out, i));
                let close = (got - want).abs() <= 0.01 + 1e-4 * want.abs();
                if !close {
                    return Err(format!(
                        "float4_shading: point {i} is {got}, expected {want}"
                    ));
                }
            }
            Ok(())
        },
    )
}

/// A case of `n` threads in groups of `group` whose `inputs` are
/// structured buffers at `t0`, `t1`, … and whose one output, zeroed words
/// `(name, format)`, follows them at `u0`: `check` gets its bytes.
fn one_output(
    (n, group): (u32, u32),
    inputs: Vec<BufferDesc>,
    (name, format): (&str, Format),
    check: impl Fn(&[u8]) -> Result<(), String> + Send + Sync + 'static,
) -> Case {
    let mut bindings: Vec<Binding> = inputs
        .iter()
        .enumerate()
        .map(|(t, b)| binding(&b.name, Kind::StructuredBuffer, t as u32))
        .collect();
    bindings.push(binding(name, Kind::RwStructuredBuffer, 0));
    let out = inputs.len();
    let mut buffers = inputs;
    buffers.push(buffer(name, format, vec![0; n as usize * 4]));
    Case {
        pipeline: compute([groups(n, group), 1, 1], buffers, bindings),
        elements: n,
        outputs: vec![out],
        check: Box::new(move |contents| check(contents[out])),
    }
}

fn same_words(message: &str, got: &[u8], expected: &[u8]) -> Result<(), String> {
    if got == expected {
        return Ok(());
    }
    if got.len() != expected.len() {
        return Err(format!(
            "{message}: {} bytes, expected {}",
            got.len(),
            expected.len()
        ));
    }
    let i = (0..expected.len() / 4)
        .find(|&i| word(got, i) != word(expected, i))
        .unwrap_or(0);
    Err(format!(
        "{message}: element {i} is {:#x}, expected {:#x}",
        word(got, i),
        word(expected, i)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selects_one_kernel_or_all() {
        let one = select(Some("block_scan")).unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].name, "block_scan");
        assert_eq!(select(None).unwrap().len(), 13);
        let Err(e) = select(Some("nope")) else {
            panic!("an unknown kernel was found");
        };
        assert_eq!(
            e,
            "no kernel `nope` (kernels: ordered_append, wave_reduce, block_scan, tile_minmax, \
             divergent_loop, stream_scale, gather_index, float4_wave_max, float4_shading, \
             tree_scan, hash64, half_blend, match_histogram)"
        );
    }

    #[test]
    fn same_words_names_the_first_difference() {
        let a = words(&[1, 2, 3]);
        assert_eq!(same_words("m", &a, &a), Ok(()));
        assert_eq!(
            same_words("m", &words(&[1, 5, 7]), &a),
            Err("m: element 1 is 0x5, expected 0x2".to_string())
        );
        assert_eq!(
            same_words("m", &words(&[1]), &a),
            Err("m: 4 bytes, expected 12".to_string())
        );
    }

    #[test]
    fn sizes_of_the_benchmark() {
        let sizes: Vec<(&str, u32)> = KERNELS.iter().map(|k| (k.name, k.elements)).collect();
        assert_eq!(
            sizes,
            [
                ("ordered_append", 1 << 24),
                ("wave_reduce", 1 << 24),
                ("block_scan", 1 << 24),
                ("tile_minmax", 1 << 24),
                ("divergent_loop", 1 << 22),
                ("stream_scale", 1 << 24),
                ("gather_index", 1 << 24),
                ("float4_wave_max", 1 << 22),
                ("float4_shading", 1 << 22),
                ("tree_scan", 1 << 24),
                ("hash64", 1 << 24),
                ("half_blend", 1 << 22),
                ("match_histogram", 1 << 24),
            ]
        );
    }

    #[test]
    fn checks_reject_wrong_outputs() {
        for kernel in &KERNELS {
            let case = (kernel.build)(4096);
            let mut contents: Vec<Vec<u8>> = case
                .pipeline
                .buffers
                .iter()
                .map(|b| b.data.clone())
                .collect();
            // The initial (zeroed) outputs are not a result.
            assert!(case.check(&contents).is_err(), "{}", kernel.name);
            contents.pop();
            assert!(case.check(&contents).is_err(), "{}", kernel.name);
        }
    }
}
