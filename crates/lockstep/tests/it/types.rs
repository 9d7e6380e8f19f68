//! Every wave and quad intrinsic over every scalar type (`half`, `float`,
//! `double`, `int16_t`, `uint16_t`, `int`, `uint`, `int64_t`, `uint64_t` and
//! `bool`), as a scalar and as a vector, at every wave size under several
//! active sets, checked bit for bit against the reference model in
//! lockstep-wave; plus hand-derived cases where `half` and `double` round
//! differently from `float` and where 16-bit integers wrap.
//!
//! Each (intrinsic, type) pair gets one generated shader. A lane reads its
//! values as raw bits from a `StructuredBuffer<uint>` (two words per value, so
//! that 64-bit types fit), applies the intrinsic once to a scalar and once to
//! a vector of one to four components, and writes the results back as raw
//! bits.

use std::ops::Range;

use half::f16;
use lockstep::CompileOptions;
use lockstep::pipeline::Kind;
use lockstep::wave::{self, Arith, Bits, Lane, Mask};
use proptest::prelude::*;

use crate::harness::{WAVE_SIZES, buf, compile, run_compiled};

/// Threads in the one group each dispatch runs: one wave at the largest wave
/// size and 32 waves at the smallest.
const THREADS: usize = 128;

/// Value slots per lane: slot 0 feeds the scalar operand and slots 1 to 4
/// the vector's components.
const SLOTS: usize = 5;

/// Input words per lane: two per slot, of which 16- and 32-bit types use the
/// first.
const IN_STRIDE: usize = SLOTS * 2;

/// Output words per lane: the scalar form's result in words 0 to 3 and the
/// vector form's in words 4 to 11.
const OUT_STRIDE: usize = 12;

/// Where the vector form's result starts in a lane's output words.
const VECTOR_OUT: usize = 4;

/// The initial value of every output word, which inactive lanes keep.
const SENTINEL: u32 = 0xDEAD_BEEF;

const SWIZZLE: [&str; 4] = ["x", "y", "z", "w"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Half,
    Float,
    Double,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    Bool,
}

const TYPES: [Ty; 10] = [
    Ty::Half,
    Ty::Float,
    Ty::Double,
    Ty::I16,
    Ty::U16,
    Ty::I32,
    Ty::U32,
    Ty::I64,
    Ty::U64,
    Ty::Bool,
];

impl Ty {
    fn hlsl(self) -> &'static str {
        match self {
            Ty::Half => "half",
            Ty::Float => "float",
            Ty::Double => "double",
            Ty::I16 => "int16_t",
            Ty::U16 => "uint16_t",
            Ty::I32 => "int",
            Ty::U32 => "uint",
            Ty::I64 => "int64_t",
            Ty::U64 => "uint64_t",
            Ty::Bool => "bool",
        }
    }

    /// The width in bits of the type's raw representation (1 for `bool`).
    fn bits(self) -> u32 {
        match self {
            Ty::Bool => 1,
            Ty::Half | Ty::I16 | Ty::U16 => 16,
            Ty::Float | Ty::I32 | Ty::U32 => 32,
            Ty::Double | Ty::I64 | Ty::U64 => 64,
        }
    }

    /// The 32-bit words one value occupies in the output.
    fn words(self) -> usize {
        if self.bits() == 64 { 2 } else { 1 }
    }

    fn is_int(self) -> bool {
        matches!(
            self,
            Ty::I16 | Ty::U16 | Ty::I32 | Ty::U32 | Ty::I64 | Ty::U64
        )
    }

    fn is_signed(self) -> bool {
        matches!(self, Ty::I16 | Ty::I32 | Ty::I64)
    }

    fn options(self) -> CompileOptions {
        CompileOptions {
            enable_16bit_types: self.bits() == 16,
            ..CompileOptions::default()
        }
    }

    /// HLSL functions that read a value from the input words at index `i`
    /// and write one to the output words at index `i`, as raw bits.
    fn helpers(self) -> String {
        let t = self.hlsl();
        let load = match self {
            Ty::Half => "asfloat16(uint16_t(In[i]))",
            Ty::Float => "asfloat(In[i])",
            Ty::Double => "asdouble(In[i], In[i + 1])",
            Ty::I16 => "asint16(uint16_t(In[i]))",
            Ty::U16 => "uint16_t(In[i])",
            Ty::I32 => "asint(In[i])",
            Ty::U32 => "In[i]",
            Ty::I64 => "int64_t((uint64_t(In[i + 1]) << 32) | In[i])",
            Ty::U64 => "(uint64_t(In[i + 1]) << 32) | In[i]",
            Ty::Bool => "In[i] != 0",
        };
        let store = match self {
            Ty::Half | Ty::I16 => "Out[i] = uint(asuint16(x));",
            Ty::Float | Ty::I32 => "Out[i] = asuint(x);",
            Ty::Double => {
                "uint lo, hi;\n    asuint(x, lo, hi);\n    Out[i] = lo;\n    Out[i + 1] = hi;"
            }
            Ty::U16 | Ty::U32 | Ty::Bool => "Out[i] = uint(x);",
            Ty::I64 | Ty::U64 => "Out[i] = uint(x);\n    Out[i + 1] = uint(x >> 32);",
        };
        format!(
            "{t} load_value(uint i)\n{{\n    return {load};\n}}\n\n\
             void store_value(uint i, {t} x)\n{{\n    {store}\n}}\n"
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    AllEqual,
    ReadLaneFirst,
    ReadLaneAt,
    Sum,
    Product,
    Min,
    Max,
    BitAnd,
    BitOr,
    BitXor,
    PrefixSum,
    PrefixProduct,
    Match,
    MultiPrefixSum,
    MultiPrefixProduct,
    MultiPrefixBitAnd,
    MultiPrefixBitOr,
    MultiPrefixBitXor,
    QuadReadAcrossX,
    QuadReadAcrossY,
    QuadReadAcrossDiagonal,
    QuadReadLaneAt,
    AnyTrue,
    AllTrue,
    CountBits,
    Ballot,
    PrefixCountBits,
    MultiPrefixCountBits,
    QuadAny,
    QuadAll,
}

const OPS: [Op; 30] = [
    Op::AllEqual,
    Op::ReadLaneFirst,
    Op::ReadLaneAt,
    Op::Sum,
    Op::Product,
    Op::Min,
    Op::Max,
    Op::BitAnd,
    Op::BitOr,
    Op::BitXor,
    Op::PrefixSum,
    Op::PrefixProduct,
    Op::Match,
    Op::MultiPrefixSum,
    Op::MultiPrefixProduct,
    Op::MultiPrefixBitAnd,
    Op::MultiPrefixBitOr,
    Op::MultiPrefixBitXor,
    Op::QuadReadAcrossX,
    Op::QuadReadAcrossY,
    Op::QuadReadAcrossDiagonal,
    Op::QuadReadLaneAt,
    Op::AnyTrue,
    Op::AllTrue,
    Op::CountBits,
    Op::Ballot,
    Op::PrefixCountBits,
    Op::MultiPrefixCountBits,
    Op::QuadAny,
    Op::QuadAll,
];

/// The type of an intrinsic's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Res {
    /// The operand's type and shape.
    Same,
    /// `bool` in the operand's shape.
    BoolShape,
    Bool,
    UInt,
    UInt4,
}

impl Op {
    fn hlsl(self) -> &'static str {
        match self {
            Op::AllEqual => "WaveActiveAllEqual",
            Op::ReadLaneFirst => "WaveReadLaneFirst",
            Op::ReadLaneAt => "WaveReadLaneAt",
            Op::Sum => "WaveActiveSum",
            Op::Product => "WaveActiveProduct",
            Op::Min => "WaveActiveMin",
            Op::Max => "WaveActiveMax",
            Op::BitAnd => "WaveActiveBitAnd",
            Op::BitOr => "WaveActiveBitOr",
            Op::BitXor => "WaveActiveBitXor",
            Op::PrefixSum => "WavePrefixSum",
            Op::PrefixProduct => "WavePrefixProduct",
            Op::Match => "WaveMatch",
            Op::MultiPrefixSum => "WaveMultiPrefixSum",
            Op::MultiPrefixProduct => "WaveMultiPrefixProduct",
            Op::MultiPrefixBitAnd => "WaveMultiPrefixBitAnd",
            Op::MultiPrefixBitOr => "WaveMultiPrefixBitOr",
            Op::MultiPrefixBitXor => "WaveMultiPrefixBitXor",
            Op::QuadReadAcrossX => "QuadReadAcrossX",
            Op::QuadReadAcrossY => "QuadReadAcrossY",
            Op::QuadReadAcrossDiagonal => "QuadReadAcrossDiagonal",
            Op::QuadReadLaneAt => "QuadReadLaneAt",
            Op::AnyTrue => "WaveActiveAnyTrue",
            Op::AllTrue => "WaveActiveAllTrue",
            Op::CountBits => "WaveActiveCountBits",
            Op::Ballot => "WaveActiveBallot",
            Op::PrefixCountBits => "WavePrefixCountBits",
            Op::MultiPrefixCountBits => "WaveMultiPrefixCountBits",
            Op::QuadAny => "QuadAny",
            Op::QuadAll => "QuadAll",
        }
    }

    /// Whether the intrinsic takes only a scalar `bool`.
    fn bool_only(self) -> bool {
        matches!(
            self,
            Op::AnyTrue
                | Op::AllTrue
                | Op::CountBits
                | Op::Ballot
                | Op::PrefixCountBits
                | Op::MultiPrefixCountBits
                | Op::QuadAny
                | Op::QuadAll
        )
    }

    fn integer_only(self) -> bool {
        matches!(
            self,
            Op::BitAnd
                | Op::BitOr
                | Op::BitXor
                | Op::MultiPrefixBitAnd
                | Op::MultiPrefixBitOr
                | Op::MultiPrefixBitXor
        )
    }

    fn numeric_only(self) -> bool {
        matches!(
            self,
            Op::Sum
                | Op::Product
                | Op::Min
                | Op::Max
                | Op::PrefixSum
                | Op::PrefixProduct
                | Op::MultiPrefixSum
                | Op::MultiPrefixProduct
        )
    }

    fn accepts(self, ty: Ty) -> bool {
        if self.bool_only() {
            ty == Ty::Bool
        } else if self.integer_only() {
            ty.is_int()
        } else if self.numeric_only() {
            ty != Ty::Bool
        } else {
            true
        }
    }

    /// Whether the intrinsic reads other lanes of its quad, which is valid
    /// only when every lane of each quad is active.
    fn is_quad(self) -> bool {
        matches!(
            self,
            Op::QuadReadAcrossX
                | Op::QuadReadAcrossY
                | Op::QuadReadAcrossDiagonal
                | Op::QuadReadLaneAt
                | Op::QuadAny
                | Op::QuadAll
        )
    }

    fn is_multi_prefix(self) -> bool {
        matches!(
            self,
            Op::MultiPrefixSum
                | Op::MultiPrefixProduct
                | Op::MultiPrefixBitAnd
                | Op::MultiPrefixBitOr
                | Op::MultiPrefixBitXor
                | Op::MultiPrefixCountBits
        )
    }

    fn result(self) -> Res {
        match self {
            Op::AllEqual => Res::BoolShape,
            Op::Match | Op::Ballot => Res::UInt4,
            Op::AnyTrue | Op::AllTrue | Op::QuadAny | Op::QuadAll => Res::Bool,
            Op::CountBits | Op::PrefixCountBits | Op::MultiPrefixCountBits => Res::UInt,
            _ => Res::Same,
        }
    }

    /// The call applied to the operand `x`.
    fn call(self, x: &str, quad_lane: u32) -> String {
        let name = self.hlsl();
        match self {
            Op::ReadLaneAt => format!("{name}({x}, WaveReadLaneFirst(WaveGetLaneIndex()))"),
            Op::QuadReadLaneAt => format!("{name}({x}, {quad_lane})"),
            _ if self.is_multi_prefix() => format!("{name}({x}, groups)"),
            _ => format!("{name}({x})"),
        }
    }
}

/// One (intrinsic, type) pair and the shapes it is tested in.
#[derive(Clone, Copy, Debug)]
struct Case {
    op: Op,
    ty: Ty,
    /// The vector form's size, 1 to 4; 0 when the intrinsic takes only a
    /// scalar.
    n: usize,
    /// The `QuadReadLaneAt` positions of the scalar and the vector form.
    quad_lane: [u32; 2],
}

impl Case {
    fn name(&self) -> String {
        format!("{} {}", self.op.hlsl(), self.ty.hlsl())
    }
}

/// Every (intrinsic, type) pair the front end accepts. The vector size and
/// the quad position cycle with the pair's index, so every type and every
/// intrinsic meets every vector size and every position.
fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for (oi, &op) in OPS.iter().enumerate() {
        for (ti, &ty) in TYPES.iter().enumerate() {
            if !op.accepts(ty) {
                continue;
            }
            let n = if op.bool_only() { 0 } else { 1 + (oi + ti) % 4 };
            let q = ((oi + 3 * ti) % 4) as u32;
            out.push(Case {
                op,
                ty,
                n,
                quad_lane: [q, 3 - q],
            });
        }
    }
    out
}

/// The statements that apply the case's intrinsic to `x` and store the
/// result at output word `o + offset`; `n` is `x`'s vector size, 0 for a
/// scalar.
fn apply(case: &Case, x: &str, n: usize, offset: usize, quad_lane: u32) -> String {
    let t = case.ty.hlsl();
    let k = case.ty.words();
    let shaped = |scalar: &str| {
        if n == 0 {
            scalar.to_string()
        } else {
            format!("{scalar}{n}")
        }
    };
    let components = |stride: usize, store: &dyn Fn(&str, &str) -> String| -> String {
        if n == 0 {
            store(&format!("o + {offset}"), "r")
        } else {
            (0..n)
                .map(|c| {
                    store(
                        &format!("o + {}", offset + c * stride),
                        &format!("r.{}", SWIZZLE[c]),
                    )
                })
                .collect::<Vec<_>>()
                .join("\n            ")
        }
    };
    let (result_type, stores) = match case.op.result() {
        Res::Same => (
            shaped(t),
            components(k, &|at, v| format!("store_value({at}, {v});")),
        ),
        Res::BoolShape => (
            shaped("bool"),
            components(1, &|at, v| format!("Out[{at}] = uint({v});")),
        ),
        Res::Bool => ("bool".to_string(), format!("Out[o + {offset}] = uint(r);")),
        Res::UInt => ("uint".to_string(), format!("Out[o + {offset}] = r;")),
        Res::UInt4 => (
            "uint4".to_string(),
            (0..4)
                .map(|c| format!("Out[o + {}] = r.{};", offset + c, SWIZZLE[c]))
                .collect::<Vec<_>>()
                .join("\n            "),
        ),
    };
    let call = case.op.call(x, quad_lane);
    format!("        {{\n            {result_type} r = {call};\n            {stores}\n        }}\n")
}

/// The case's shader: active lanes (`Active[gi] != 0`) apply the intrinsic
/// to `s` (slot 0) and, where it takes vectors, to `v` (slots 1 to n).
fn source(case: &Case) -> String {
    let t = case.ty.hlsl();
    let n = case.n;
    let vector = if n == 0 {
        String::new()
    } else {
        let loads: Vec<String> = (0..n)
            .map(|c| format!("load_value(base + {})", 2 * (c + 1)))
            .collect();
        format!("    {t}{n} v = {t}{n}({});\n", loads.join(", "))
    };
    let groups = if case.op.is_multi_prefix() {
        "        uint4 groups = WaveMatch(Key[gi]);\n"
    } else {
        ""
    };
    let mut body = apply(case, "s", 0, 0, case.quad_lane[0]);
    if n > 0 {
        body += &apply(case, "v", n, VECTOR_OUT, case.quad_lane[1]);
    }
    format!(
        r#"StructuredBuffer<uint> Active : register(t0);
StructuredBuffer<uint> In : register(t1);
StructuredBuffer<uint> Key : register(t2);
RWStructuredBuffer<uint> Out : register(u0);

{helpers}
[numthreads({THREADS}, 1, 1)]
void main(uint gi : SV_GroupIndex)
{{
    uint base = gi * {IN_STRIDE};
    {t} s = load_value(base);
{vector}    if (Active[gi] != 0)
    {{
        uint o = gi * {OUT_STRIDE};
{groups}{body}    }}
}}
"#,
        helpers = case.ty.helpers(),
    )
}

/// A lane type of the reference model, converted from and to the raw bits
/// the shader reads and writes (zero-extended to 64 bits).
trait Raw: Lane {
    fn from_raw(raw: u64) -> Self;
    fn to_raw(self) -> u64;
}

impl Raw for bool {
    fn from_raw(raw: u64) -> bool {
        raw != 0
    }
    fn to_raw(self) -> u64 {
        u64::from(self)
    }
}

impl Raw for f16 {
    fn from_raw(raw: u64) -> f16 {
        f16::from_bits(raw as u16)
    }
    fn to_raw(self) -> u64 {
        u64::from(self.to_bits())
    }
}

impl Raw for f32 {
    fn from_raw(raw: u64) -> f32 {
        f32::from_bits(raw as u32)
    }
    fn to_raw(self) -> u64 {
        u64::from(self.to_bits())
    }
}

impl Raw for f64 {
    fn from_raw(raw: u64) -> f64 {
        f64::from_bits(raw)
    }
    fn to_raw(self) -> u64 {
        self.to_bits()
    }
}

/// Implements `Raw` for integers: truncation to the type from raw bits, and
/// zero extension through the unsigned type of the same width back.
macro_rules! raw_int {
    ($($t:ty => $u:ty),*) => {$(
        impl Raw for $t {
            fn from_raw(raw: u64) -> $t {
                raw as $t
            }
            fn to_raw(self) -> u64 {
                self as $u as u64
            }
        }
    )*};
}

raw_int!(i16 => u16, u16 => u16, i32 => u32, u32 => u32, i64 => u64, u64 => u64);

/// One component's result on one lane.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Out {
    /// A value of the operand's type, as raw bits.
    Value(u64),
    Bool(bool),
    UInt(u32),
    UInt4([u32; 4]),
}

impl Out {
    /// The output words, with `k` words for a value of the operand's type.
    fn words(self, k: usize) -> Vec<u32> {
        match self {
            Out::Value(raw) => [raw as u32, (raw >> 32) as u32][..k].to_vec(),
            Out::Bool(b) => vec![u32::from(b)],
            Out::UInt(u) => vec![u],
            Out::UInt4(m) => m.to_vec(),
        }
    }
}

/// What the reference needs to know about one lane and its wave.
struct View<'a> {
    mask: Mask,
    lane: usize,
    /// Each lane's `WaveMatch(key)`, the partition of the multi-prefix
    /// intrinsics.
    partition: &'a [[u32; 4]],
    quad_lane: u32,
}

fn decode<T: Raw>(raw: &[u64]) -> Vec<T> {
    raw.iter().map(|&r| T::from_raw(r)).collect()
}

/// The intrinsics every type has.
fn any_type<T: Raw>(op: Op, raw: &[u64], at: &View) -> Option<Out> {
    let v = decode::<T>(raw);
    let (mask, lane) = (at.mask, at.lane);
    let value = |x: T| Some(Out::Value(x.to_raw()));
    match op {
        Op::AllEqual => Some(Out::Bool(wave::active_all_equal(&v, mask))),
        Op::ReadLaneFirst => value(wave::read_lane_first(&v, mask)?),
        Op::ReadLaneAt => value(wave::read_lane_at(
            &v,
            wave::first_active_lane(mask)? as u32,
        )),
        Op::Match => Some(Out::UInt4(wave::match_mask(&v, mask, lane))),
        Op::QuadReadAcrossX => value(wave::quad_read_across_x(&v, lane)),
        Op::QuadReadAcrossY => value(wave::quad_read_across_y(&v, lane)),
        Op::QuadReadAcrossDiagonal => value(wave::quad_read_across_diagonal(&v, lane)),
        Op::QuadReadLaneAt => value(wave::quad_read_lane_at(&v, lane, at.quad_lane)),
        _ => None,
    }
}

/// The intrinsics of the numeric types.
fn numeric<T: Raw + Arith>(op: Op, raw: &[u64], at: &View) -> Option<Out> {
    let v = decode::<T>(raw);
    let (mask, lane, p) = (at.mask, at.lane, at.partition);
    let x = match op {
        Op::Sum => wave::active_sum(&v, mask),
        Op::Product => wave::active_product(&v, mask),
        Op::Min => wave::active_min(&v, mask),
        Op::Max => wave::active_max(&v, mask),
        Op::PrefixSum => wave::prefix_sum(&v, mask, lane),
        Op::PrefixProduct => wave::prefix_product(&v, mask, lane),
        Op::MultiPrefixSum => wave::multi_prefix_sum(&v, mask, p, lane),
        Op::MultiPrefixProduct => wave::multi_prefix_product(&v, mask, p, lane),
        _ => return None,
    };
    Some(Out::Value(x.to_raw()))
}

/// The intrinsics of the integer types.
fn integer<T: Raw + Bits>(op: Op, raw: &[u64], at: &View) -> Option<Out> {
    let v = decode::<T>(raw);
    let (mask, lane, p) = (at.mask, at.lane, at.partition);
    let x = match op {
        Op::BitAnd => wave::active_bit_and(&v, mask),
        Op::BitOr => wave::active_bit_or(&v, mask),
        Op::BitXor => wave::active_bit_xor(&v, mask),
        Op::MultiPrefixBitAnd => wave::multi_prefix_bit_and(&v, mask, p, lane),
        Op::MultiPrefixBitOr => wave::multi_prefix_bit_or(&v, mask, p, lane),
        Op::MultiPrefixBitXor => wave::multi_prefix_bit_xor(&v, mask, p, lane),
        _ => return None,
    };
    Some(Out::Value(x.to_raw()))
}

/// The intrinsics that take a `bool` only.
///
/// The reference model has no `QuadAny`/`QuadAll`; with every lane of the
/// quad active they are the OR and the AND of the four values that
/// `QuadReadLaneAt` reads.
fn boolean(op: Op, raw: &[u64], at: &View) -> Option<Out> {
    let v = decode::<bool>(raw);
    let (mask, lane, p) = (at.mask, at.lane, at.partition);
    let mut quad = (0..4).map(|q| wave::quad_read_lane_at(&v, lane, q));
    Some(match op {
        Op::AnyTrue => Out::Bool(wave::active_any_true(&v, mask)),
        Op::AllTrue => Out::Bool(wave::active_all_true(&v, mask)),
        Op::CountBits => Out::UInt(wave::active_count_bits(&v, mask)),
        Op::Ballot => Out::UInt4(wave::active_ballot(&v, mask)),
        Op::PrefixCountBits => Out::UInt(wave::prefix_count_bits(&v, mask, lane)),
        Op::MultiPrefixCountBits => Out::UInt(wave::multi_prefix_count_bits(&v, mask, p, lane)),
        Op::QuadAny => Out::Bool(quad.any(|b| b)),
        Op::QuadAll => Out::Bool(quad.all(|b| b)),
        _ => return None,
    })
}

/// One component's expected result on one lane, from the raw values of
/// that component on every lane of the wave.
fn reference(op: Op, ty: Ty, raw: &[u64], at: &View) -> Out {
    macro_rules! int {
        ($t:ty) => {
            any_type::<$t>(op, raw, at)
                .or_else(|| numeric::<$t>(op, raw, at))
                .or_else(|| integer::<$t>(op, raw, at))
        };
    }
    macro_rules! float {
        ($t:ty) => {
            any_type::<$t>(op, raw, at).or_else(|| numeric::<$t>(op, raw, at))
        };
    }
    let out = match ty {
        Ty::Half => float!(f16),
        Ty::Float => float!(f32),
        Ty::Double => float!(f64),
        Ty::I16 => int!(i16),
        Ty::U16 => int!(u16),
        Ty::I32 => int!(i32),
        Ty::U32 => int!(u32),
        Ty::I64 => int!(i64),
        Ty::U64 => int!(u64),
        Ty::Bool => any_type::<bool>(op, raw, at).or_else(|| boolean(op, raw, at)),
    };
    out.unwrap_or_else(|| panic!("no reference for {op:?} on {ty:?}"))
}

/// The input of one dispatch.
struct Inputs {
    /// Raw bits per thread and slot.
    raw: Vec<[u64; SLOTS]>,
    /// Each thread's `WaveMatch` key for the multi-prefix intrinsics.
    keys: Vec<u32>,
}

impl Inputs {
    fn words(&self) -> Vec<u32> {
        self.raw
            .iter()
            .flat_map(|slots| slots.iter().flat_map(|&r| [r as u32, (r >> 32) as u32]))
            .collect()
    }
}

/// A step of SplitMix64: a well-mixed 64-bit value from any counter.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A value of `ty` as raw bits, chosen from the random `h`.
///
/// Integers are small (-3 to 3 for signed types, 0 to 6 for unsigned ones,
/// so that `WaveMatch` and `WaveActiveAllEqual` see equal values) or any
/// bit pattern of the type (so that sums and products wrap and the bit
/// operations see every bit). Floats are small quarter multiples (exact in
/// every float type) or wide values that need rounding when summed; slots 0
/// and 3 also hold NaN, signed zeros, infinities, subnormals and the
/// largest finite values. `bool` is true seven times in eight in slot 0, so
/// that all-true waves occur, and half the time elsewhere.
fn value(ty: Ty, slot: usize, h: u64) -> u64 {
    let r = h >> 8;
    let sel = h % 16;
    let width_mask = if ty.bits() == 64 {
        u64::MAX
    } else {
        (1 << ty.bits()) - 1
    };
    match ty {
        Ty::Bool => u64::from(if slot == 0 { h & 7 != 0 } else { h & 1 == 1 }),
        _ if ty.is_int() => {
            let x = if sel < 8 {
                if ty.is_signed() {
                    (r % 7) as i64 - 3
                } else {
                    (r % 7) as i64
                }
            } else {
                r.rotate_left((h % 64) as u32) as i64
            };
            x as u64 & width_mask
        }
        _ => {
            let special = (slot == 0 || slot == 3) && sel == 0;
            let x: f64 = if special {
                match r % 8 {
                    0 => f64::NAN,
                    1 => -0.0,
                    2 => 0.0,
                    3 => f64::INFINITY,
                    4 => f64::NEG_INFINITY,
                    5 => match ty {
                        Ty::Half => f16::from_bits(1).to_f64(),
                        Ty::Float => f64::from(f32::from_bits(1)),
                        _ => f64::from_bits(1),
                    },
                    6 => match ty {
                        Ty::Half => f16::MAX.to_f64(),
                        Ty::Float => f64::from(f32::MAX),
                        _ => f64::MAX,
                    },
                    _ => match ty {
                        Ty::Half => f16::MIN.to_f64(),
                        Ty::Float => f64::from(f32::MIN),
                        _ => f64::MIN,
                    },
                }
            } else if sel < 9 {
                (r % 16) as f64 * 0.25 - 1.5
            } else {
                // A signed integer of up to 12 (half), 24 (float) or 53
                // (double) bits, scaled down by a power of two.
                let bits = match ty {
                    Ty::Half => 12,
                    Ty::Float => 24,
                    _ => 53,
                };
                let m = (r % (1 << bits)) as i64 - (1 << (bits - 1));
                let e = (r >> 56) % 16;
                m as f64 / (1u64 << e) as f64
            };
            match ty {
                Ty::Half => u64::from(f16::from_f64(x).to_bits()),
                Ty::Float => u64::from((x as f32).to_bits()),
                _ => x.to_bits(),
            }
        }
    }
}

fn inputs(ty: Ty, seed: u64) -> Inputs {
    let raw = (0..THREADS as u64)
        .map(|t| {
            std::array::from_fn(|slot| {
                value(ty, slot, mix(seed ^ mix(t * SLOTS as u64 + slot as u64)))
            })
        })
        .collect();
    let keys = (0..THREADS as u64)
        .map(|t| (mix(seed.rotate_left(17) ^ t) % 3) as u32)
        .collect();
    Inputs { raw, keys }
}

/// The expected output words of lane `lane` of the wave of threads `wave`.
fn expected(case: &Case, inputs: &Inputs, wave: Range<usize>, mask: Mask, lane: usize) -> Vec<u32> {
    let keys = &inputs.keys[wave.clone()];
    let partition: Vec<[u32; 4]> = (0..keys.len())
        .map(|l| wave::match_mask(keys, mask, l))
        .collect();
    let slot = |s: usize| -> Vec<u64> { inputs.raw[wave.clone()].iter().map(|r| r[s]).collect() };
    let view = |quad_lane| View {
        mask,
        lane,
        partition: &partition,
        quad_lane,
    };
    let k = case.ty.words();
    let mut out = vec![SENTINEL; OUT_STRIDE];
    let scalar = reference(case.op, case.ty, &slot(0), &view(case.quad_lane[0])).words(k);
    out[..scalar.len()].copy_from_slice(&scalar);
    if case.n == 0 {
        return out;
    }
    let components: Vec<Out> = (1..=case.n)
        .map(|s| reference(case.op, case.ty, &slot(s), &view(case.quad_lane[1])))
        .collect();
    let words: Vec<u32> = if case.op == Op::Match {
        // A vector matches where every component does: the AND of the
        // components' match masks.
        let and = components.iter().fold([!0u32; 4], |acc, c| match c {
            Out::UInt4(m) => std::array::from_fn(|i| acc[i] & m[i]),
            other => panic!("WaveMatch gave {other:?}"),
        });
        and.to_vec()
    } else {
        components.iter().flat_map(|c| c.words(k)).collect()
    };
    out[VECTOR_OUT..VECTOR_OUT + words.len()].copy_from_slice(&words);
    out
}

/// Runs the case at wave size `w` with the threads where `active` holds
/// active, compares every thread's output words with the reference and
/// returns them.
fn check(
    case: &Case,
    shader: &lockstep::Shader,
    w: usize,
    active: &[bool],
    inputs: &Inputs,
) -> Result<Vec<u32>, String> {
    let mut out = run_compiled(
        shader,
        [1, 1, 1],
        &[
            buf(
                "Active",
                Kind::StructuredBuffer,
                0,
                active.iter().map(|&a| u32::from(a)).collect(),
            ),
            buf("In", Kind::StructuredBuffer, 1, inputs.words()),
            buf("Key", Kind::StructuredBuffer, 2, inputs.keys.clone()),
            buf(
                "Out",
                Kind::RwStructuredBuffer,
                0,
                vec![SENTINEL; THREADS * OUT_STRIDE],
            ),
        ],
        w as u32,
    );
    let out = out.remove(3);
    for t in 0..THREADS {
        let (first, lane) = (t - t % w, t % w);
        let wave = first..first + w;
        let mask = wave
            .clone()
            .filter(|&u| active[u])
            .fold(0, |m: Mask, u| m | 1 << (u - first));
        let want = if active[t] {
            expected(case, inputs, wave, mask, lane)
        } else {
            vec![SENTINEL; OUT_STRIDE]
        };
        let got = &out[t * OUT_STRIDE..(t + 1) * OUT_STRIDE];
        if got != want {
            return Err(format!(
                "{} (vector size {}) at wave size {w}, thread {t}, active mask {mask:#x}:\n\
                 got  {got:08x?}\nwant {want:08x?}\ninputs {:x?}, key {}",
                case.name(),
                case.n,
                inputs.raw[t],
                inputs.keys[t],
            ));
        }
    }
    Ok(out)
}

/// Whether lane `lane` of a wave of `w` lanes is active.
type ActiveSet = fn(lane: usize, w: usize) -> bool;

/// The active sets for intrinsics that read only active lanes.
const ACTIVE_SETS: [(&str, ActiveSet); 5] = [
    ("all", |_, _| true),
    ("every other lane", |lane, _| lane % 2 == 0),
    ("every third lane", |lane, _| lane % 3 == 0),
    ("only lane 0", |lane, _| lane == 0),
    ("only the last lane", |lane, w| lane == w - 1),
];

/// The active sets for the quad intrinsics: whole quads only.
const QUAD_SETS: [(&str, ActiveSet); 3] = [
    ("all", |_, _| true),
    ("even quads", |lane, _| (lane / 4) % 2 == 0),
    ("odd quads", |lane, _| (lane / 4) % 2 == 1),
];

/// Checks every intrinsic on `ty` at every wave size under every active set
/// that suits it, compiling each shader once.
fn sweep(ty: Ty) {
    let mut checked = 0;
    for (index, case) in cases().iter().enumerate().filter(|(_, c)| c.ty == ty) {
        let shader = compile(&source(case), &ty.options());
        let inputs = inputs(ty, 0x5eed_0000 + index as u64);
        let sets: &[(&str, ActiveSet)] = if case.op.is_quad() {
            &QUAD_SETS
        } else {
            &ACTIVE_SETS
        };
        for w in WAVE_SIZES {
            let w = w as usize;
            for (set_name, set) in sets {
                let active: Vec<bool> = (0..THREADS).map(|t| set(t % w, w)).collect();
                if let Err(e) = check(case, &shader, w, &active, &inputs) {
                    panic!("{e}\nactive set: {set_name}\nsource:\n{}", source(case));
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 0, "no case for {ty:?}");
}

#[test]
fn sweep_half() {
    sweep(Ty::Half);
}

#[test]
fn sweep_float() {
    sweep(Ty::Float);
}

#[test]
fn sweep_double() {
    sweep(Ty::Double);
}

#[test]
fn sweep_int16() {
    sweep(Ty::I16);
}

#[test]
fn sweep_uint16() {
    sweep(Ty::U16);
}

#[test]
fn sweep_int() {
    sweep(Ty::I32);
}

#[test]
fn sweep_uint() {
    sweep(Ty::U32);
}

#[test]
fn sweep_int64() {
    sweep(Ty::I64);
}

#[test]
fn sweep_uint64() {
    sweep(Ty::U64);
}

#[test]
fn sweep_bool() {
    sweep(Ty::Bool);
}

/// The case table covers what the sweep promises: every intrinsic on every
/// type it accepts, and vectors of one to four components for every type.
#[test]
fn cases_cover_every_pair_and_vector_size() {
    let all = cases();
    // 8 intrinsics for every type, 8 more for the 9 numeric types, 6 more
    // for the 6 integer types and 8 for bool alone.
    assert_eq!(all.len(), 8 * 10 + 8 * 9 + 6 * 6 + 8);
    for ty in TYPES {
        for n in 1..=4 {
            assert!(
                all.iter().any(|c| c.ty == ty && c.n == n),
                "{ty:?} has no vector of {n}"
            );
        }
    }
    for op in OPS.iter().filter(|op| !op.bool_only()) {
        for n in 1..=4 {
            assert!(
                all.iter().any(|c| c.op == *op && c.n == n),
                "{op:?} has no vector of {n}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Random wave sizes, active sets and values over a sample of the
    /// (intrinsic, type) pairs: the engine agrees with the reference model.
    /// The quad intrinsics get whole quads, active or not.
    #[test]
    fn engine_matches_reference(
        w_log in 2u32..=7,
        active_bits in prop::collection::vec(any::<bool>(), THREADS),
        seed in any::<u64>(),
        case_index in 0usize..1024,
    ) {
        let all = cases();
        let case = &all[case_index % all.len()];
        let w = 1usize << w_log;
        let active: Vec<bool> = if case.op.is_quad() {
            (0..THREADS).map(|t| active_bits[t & !3]).collect()
        } else {
            active_bits
        };
        let shader = compile(&source(case), &case.ty.options());
        let result = check(case, &shader, w, &active, &inputs(case.ty, seed));
        prop_assert!(result.is_ok(), "{}", result.unwrap_err());
    }
}

/// Runs `op` over waves of four lanes, all active, each holding `values`
/// (raw bits of `ty`, lane 0 first), and returns the scalar result words of
/// each of the four lanes (after checking them against the reference
/// model as the sweep does).
fn four_lanes(op: Op, ty: Ty, values: [u64; 4]) -> Vec<Vec<u32>> {
    let case = Case {
        op,
        ty,
        n: 0,
        quad_lane: [0, 0],
    };
    let inputs = Inputs {
        raw: (0..THREADS)
            .map(|t| std::array::from_fn(|_| values[t % 4]))
            .collect(),
        keys: vec![0; THREADS],
    };
    let shader = compile(&source(&case), &ty.options());
    let out = check(&case, &shader, 4, &[true; THREADS], &inputs).unwrap_or_else(|e| panic!("{e}"));
    let width = match op.result() {
        Res::Same => ty.words(),
        Res::BoolShape | Res::Bool | Res::UInt => 1,
        Res::UInt4 => 4,
    };
    (0..4)
        .map(|lane| out[lane * OUT_STRIDE..lane * OUT_STRIDE + width].to_vec())
        .collect()
}

/// The result of `op` on lane 0 (for reductions, every lane's result).
fn reduce(op: Op, ty: Ty, values: [u64; 4]) -> Vec<u32> {
    four_lanes(op, ty, values).swap_remove(0)
}

fn halves(values: [f32; 4]) -> [u64; 4] {
    values.map(|x| u64::from(f16::from_f32(x).to_bits()))
}

fn floats(values: [f32; 4]) -> [u64; 4] {
    values.map(|x| u64::from(x.to_bits()))
}

fn doubles(values: [f64; 4]) -> [u64; 4] {
    values.map(f64::to_bits)
}

/// `half` rounds after every addition of the left fold, where `float` keeps
/// the low bits.
#[test]
fn half_sum_rounds_at_each_step() {
    // Between 2048 and 4096 binary16 values are 2 apart, so 2048 + 1 = 2049
    // is a tie that rounds to the even significand, 2048, and the second
    // + 1 rounds away again: 2048 (exponent 11 + 15 = 26, significand 0:
    // 0x6800). In float both ones survive: 2050.
    let values = [2048.0, 1.0, 1.0, 0.0];
    assert_eq!(reduce(Op::Sum, Ty::Half, halves(values)), [0x6800]);
    assert_eq!(
        reduce(Op::Sum, Ty::Float, floats(values)),
        [2050.0f32.to_bits()]
    );
    // Lane order decides: with the ones first, 1 + 1 = 2 is exact and
    // 2 + 2048 = 2050 is representable (significand (2050 - 2048) / 2 = 1:
    // 0x6801).
    let values = [1.0, 1.0, 2048.0, 0.0];
    assert_eq!(reduce(Op::Sum, Ty::Half, halves(values)), [0x6801]);
    // The prefix sum of lane 3 folds lanes 0 to 2 alike: 2048 in half,
    // 2050 in float.
    let values = [2048.0, 1.0, 1.0, 5.0];
    assert_eq!(
        four_lanes(Op::PrefixSum, Ty::Half, halves(values))[3],
        [0x6800]
    );
    assert_eq!(
        four_lanes(Op::PrefixSum, Ty::Float, floats(values))[3],
        [2050.0f32.to_bits()]
    );
}

/// A `half` sum past the largest binary16 value is +inf, and stays there.
#[test]
fn half_sum_overflows_to_infinity() {
    // 60000 is exact in binary16 (a multiple of 32, the spacing in
    // [32768, 65536)). 60000 + 60000 = 120000 is beyond 65520, the midpoint
    // between the largest finite value 65504 and the next power 65536, so
    // it rounds to +inf (0x7C00); inf - 60000 is still inf. In float the sum
    // is 60000.
    let values = [60000.0, 60000.0, -60000.0, 0.0];
    assert_eq!(reduce(Op::Sum, Ty::Half, halves(values)), [0x7C00]);
    assert_eq!(
        reduce(Op::Sum, Ty::Float, floats(values)),
        [60000.0f32.to_bits()]
    );
    // 256 * 256 = 65536 rounds to +inf as well.
    let values = [256.0, 256.0, 1.0, 1.0];
    assert_eq!(reduce(Op::Product, Ty::Half, halves(values)), [0x7C00]);
}

/// `double` keeps low bits that `float` rounds away.
#[test]
fn double_sum_keeps_precision() {
    // 1e8 = 2^8 * 390625 is exact in float, where values in [2^26, 2^27)
    // are 8 apart: 1e8 + 1 rounds back to 1e8. Double has it exactly.
    let values = [1e8, 1.0, 0.0, 0.0];
    assert_eq!(
        reduce(Op::Sum, Ty::Float, floats(values.map(|x| x as f32))),
        [1e8f32.to_bits()]
    );
    let bits = (100_000_001.0f64).to_bits();
    assert_eq!(
        reduce(Op::Sum, Ty::Double, doubles(values)),
        [bits as u32, (bits >> 32) as u32]
    );
    // Double has its own limit: in [2^53, 2^54) values are 2 apart, so
    // 1e16 + 1 is a tie that rounds to the even significand, 1e16, twice;
    // with the ones first, 1 + 1 = 2 and 2 + 1e16 = 10000000000000002 is
    // exact.
    let bits = 1e16f64.to_bits();
    assert_eq!(
        reduce(Op::Sum, Ty::Double, doubles([1e16, 1.0, 1.0, 0.0])),
        [bits as u32, (bits >> 32) as u32]
    );
    let bits = 10_000_000_000_000_002.0f64.to_bits();
    assert_eq!(
        reduce(Op::Sum, Ty::Double, doubles([1.0, 1.0, 1e16, 0.0])),
        [bits as u32, (bits >> 32) as u32]
    );
}

/// 16-bit integer sums and products wrap at 16 bits.
#[test]
fn sixteen_bit_integers_wrap() {
    // 30000 + 30000 = 60000 = 0xEA60, which as int16_t is 60000 - 65536 =
    // -5536; the shader writes the 16 bits zero-extended. As int the sum
    // is just 60000.
    assert_eq!(reduce(Op::Sum, Ty::I16, [30000, 30000, 0, 0]), [0xEA60]);
    assert_eq!(reduce(Op::Sum, Ty::I32, [30000, 30000, 0, 0]), [60000]);
    // 65535 + 2 = 65537 = 1 (mod 65536).
    assert_eq!(reduce(Op::Sum, Ty::U16, [65535, 2, 0, 0]), [1]);
    // 300 * 300 = 90000 = 65536 + 24464, and 24464 = 0x5F90.
    assert_eq!(reduce(Op::Product, Ty::I16, [300, 300, 1, 1]), [0x5F90]);
    // 256 * 256 = 65536 = 0 (mod 65536).
    assert_eq!(reduce(Op::Product, Ty::U16, [256, 256, 1, 1]), [0]);
    // -3 (0xFFFD) is the minimum of int16_t but 0xFFFD is the maximum of
    // uint16_t.
    assert_eq!(reduce(Op::Min, Ty::I16, [5, 0xFFFD, 7, 0]), [0xFFFD]);
    assert_eq!(reduce(Op::Max, Ty::U16, [5, 0xFFFD, 7, 0]), [0xFFFD]);
}

/// Without `-enable-16bit-types`, `half` is a 32-bit float, as with DXC, so
/// its sums keep the low bits that binary16 loses.
#[test]
fn half_is_float_without_16bit_types() {
    let source = r#"
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(4, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    half h = asfloat(In[gi]);
    Out[gi] = asuint(WaveActiveSum(h));
}
"#;
    let shader = compile(source, &CompileOptions::default());
    let out = run_compiled(
        &shader,
        [1, 1, 1],
        &[
            buf(
                "In",
                Kind::StructuredBuffer,
                0,
                [2048.0f32, 1.0, 1.0, 0.0].map(f32::to_bits).to_vec(),
            ),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 4]),
        ],
        4,
    );
    // 2048 + 1 + 1 + 0 = 2050 exactly in binary32, on every lane.
    assert_eq!(out[1], [2050.0f32.to_bits(); 4]);
}

/// The raw bits of `x` in the float type `ty`.
fn float_raw(ty: Ty, x: f64) -> u64 {
    match ty {
        Ty::Half => u64::from(f16::from_f64(x).to_bits()),
        Ty::Float => u64::from((x as f32).to_bits()),
        Ty::Double => x.to_bits(),
        _ => panic!("{ty:?} is not a float type"),
    }
}

/// The output words of a value of `ty` given as raw bits.
fn raw_words(ty: Ty, raw: u64) -> Vec<u32> {
    Out::Value(raw).words(ty.words())
}

/// Signed zeros and NaN behave alike in `half`, `float` and `double`:
/// IEEE addition, minNum/maxNum, ordered equality and bitwise matching.
#[test]
fn signed_zeros_and_nan_in_every_float_type() {
    let nan = f64::NAN;
    for ty in [Ty::Half, Ty::Float, Ty::Double] {
        let raw = |values: [f64; 4]| values.map(|x| float_raw(ty, x));
        let word = |x: f64| raw_words(ty, float_raw(ty, x));
        // -0 + -0 = -0 at every step, and -0 + +0 = +0 (round to nearest).
        assert_eq!(reduce(Op::Sum, ty, raw([-0.0; 4])), word(-0.0), "{ty:?}");
        assert_eq!(
            reduce(Op::Sum, ty, raw([-0.0, 0.0, -0.0, -0.0])),
            word(0.0),
            "{ty:?}"
        );
        // minNum orders -0 below +0, and maxNum +0 above -0.
        assert_eq!(
            reduce(Op::Min, ty, raw([0.0, -0.0, 0.0, 0.0])),
            word(-0.0),
            "{ty:?}"
        );
        assert_eq!(
            reduce(Op::Max, ty, raw([-0.0, 0.0, -0.0, -0.0])),
            word(0.0),
            "{ty:?}"
        );
        // A NaN loses to any number in minNum and maxNum.
        assert_eq!(
            reduce(Op::Min, ty, raw([nan, 2.0, 1.0, 3.0])),
            word(1.0),
            "{ty:?}"
        );
        assert_eq!(
            reduce(Op::Max, ty, raw([1.0, nan, 3.0, 2.0])),
            word(3.0),
            "{ty:?}"
        );
        // A NaN makes the sum NaN: all exponent bits set, a nonzero
        // significand.
        let sum = reduce(Op::Sum, ty, raw([1.0, nan, 3.0, 2.0]));
        let sum = u64::from(sum[0]) | sum.get(1).map_or(0, |&hi| u64::from(hi) << 32);
        let is_nan = match ty {
            Ty::Half => f16::from_bits(sum as u16).is_nan(),
            Ty::Float => f32::from_bits(sum as u32).is_nan(),
            _ => f64::from_bits(sum).is_nan(),
        };
        assert!(is_nan, "{ty:?}: {sum:#x}");
        // Equality is ordered: -0 == +0, and NaN differs even from itself.
        assert_eq!(
            reduce(Op::AllEqual, ty, raw([0.0, -0.0, 0.0, -0.0])),
            [1],
            "{ty:?}"
        );
        assert_eq!(reduce(Op::AllEqual, ty, raw([nan; 4])), [0], "{ty:?}");
        // WaveMatch compares bits: -0 and +0 form two groups, and a NaN
        // matches the same NaN.
        let lanes = four_lanes(Op::Match, ty, raw([0.0, -0.0, 0.0, -0.0]));
        assert_eq!(lanes[0], [0b0101, 0, 0, 0], "{ty:?}");
        assert_eq!(lanes[1], [0b1010, 0, 0, 0], "{ty:?}");
        let lanes = four_lanes(Op::Match, ty, raw([nan, 1.0, nan, 1.0]));
        assert_eq!(lanes[0], [0b0101, 0, 0, 0], "{ty:?}");
    }
}
