//! The intrinsic catalogue as data: every math and wave intrinsic with its
//! parameter and result type patterns and the shader model it needs, plus
//! the older wave names that are accepted with a warning.

use lockstep_ir::{Builtin, ScalarType, WaveOp};

/// Which scalar types a generic parameter `T` accepts, and what other
/// types convert to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// Any scalar type, `bool` included.
    Any,
    /// Any numeric type; `bool` is an error (wave reductions).
    Numeric,
    /// Any numeric type; `bool` converts to `int` (math functions).
    Arith,
    /// DXC's `float_like`: `float` or `half`; integers and `double`
    /// convert to `float`, as DXC converts them.
    Float,
    /// DXC's `any_float`: `float`, `half` or `double`; integers convert
    /// to `float`.
    AnyFloat,
    /// `double` only; other types convert to it.
    Double,
    /// Integers only; floats and `bool` are an error.
    Int,
    /// Converted to `uint`.
    UInt,
}

/// Which shapes `T` may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shapes {
    Any,
    /// Any value: scalars, vectors, matrices, and structs or arrays (which
    /// the intrinsic handles component by component).
    AnyValue,
    ScalarVector,
    Vector3,
    Matrix,
}

/// A parameter: the generic `T` or a fixed type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Param {
    T,
    Bool,
    UInt,
    UInt4,
}

/// The result type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ret {
    T,
    Bool,
    UInt,
    UInt4,
    /// `T`'s shape with this scalar type.
    ShapeOf(ScalarType),
    /// `T`'s scalar type.
    ScalarOfT,
    /// The transposed matrix.
    Transposed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Builtin(Builtin),
    Wave(WaveOp),
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Intrinsic {
    pub name: &'static str,
    pub op: Op,
    pub class: Class,
    pub shapes: Shapes,
    pub params: &'static [Param],
    pub ret: Ret,
    pub min_sm: (u32, u32),
}

const T1: &[Param] = &[Param::T];
const T2: &[Param] = &[Param::T, Param::T];
const T3: &[Param] = &[Param::T, Param::T, Param::T];

const fn math(
    name: &'static str,
    b: Builtin,
    class: Class,
    shapes: Shapes,
    params: &'static [Param],
    ret: Ret,
) -> Intrinsic {
    Intrinsic {
        name,
        op: Op::Builtin(b),
        class,
        shapes,
        params,
        ret,
        min_sm: (6, 0),
    }
}

/// A component-wise float function of one, two or three arguments.
const fn float_fn(name: &'static str, b: Builtin, params: &'static [Param]) -> Intrinsic {
    math(name, b, Class::Float, Shapes::Any, params, Ret::T)
}

const fn wave(
    name: &'static str,
    w: WaveOp,
    class: Class,
    params: &'static [Param],
    ret: Ret,
    min_sm: (u32, u32),
) -> Intrinsic {
    Intrinsic {
        name,
        op: Op::Wave(w),
        class,
        // DXC's `numeric<>`: matrices too, component by component.
        shapes: Shapes::Any,
        params,
        ret,
        min_sm,
    }
}

/// A wave intrinsic that also takes structs and arrays, component by
/// component (the broadcasts and `WaveActiveAllEqual`).
const fn wave_any_value(
    name: &'static str,
    w: WaveOp,
    params: &'static [Param],
    ret: Ret,
) -> Intrinsic {
    Intrinsic {
        shapes: Shapes::AnyValue,
        ..wave(name, w, Class::Any, params, ret, SM60)
    }
}

const SM60: (u32, u32) = (6, 0);
const SM65: (u32, u32) = (6, 5);
const SM67: (u32, u32) = (6, 7);

use Builtin as B;
use Class as C;
use WaveOp as W;

pub(crate) const INTRINSICS: &[Intrinsic] = &[
    math("abs", B::Abs, C::Arith, Shapes::Any, T1, Ret::T),
    math("min", B::Min, C::Arith, Shapes::Any, T2, Ret::T),
    math("max", B::Max, C::Arith, Shapes::Any, T2, Ret::T),
    math("clamp", B::Clamp, C::Arith, Shapes::Any, T3, Ret::T),
    math(
        "saturate",
        B::Saturate,
        C::AnyFloat,
        Shapes::Any,
        T1,
        Ret::T,
    ),
    math(
        "sign",
        B::Sign,
        C::Arith,
        Shapes::Any,
        T1,
        Ret::ShapeOf(ScalarType::Int32),
    ),
    float_fn("floor", B::Floor, T1),
    float_fn("ceil", B::Ceil, T1),
    float_fn("round", B::Round, T1),
    float_fn("trunc", B::Trunc, T1),
    float_fn("frac", B::Frac, T1),
    float_fn("sqrt", B::Sqrt, T1),
    float_fn("rsqrt", B::Rsqrt, T1),
    math("rcp", B::Rcp, C::AnyFloat, Shapes::Any, T1, Ret::T),
    float_fn("exp", B::Exp, T1),
    float_fn("exp2", B::Exp2, T1),
    float_fn("log", B::Log, T1),
    float_fn("log2", B::Log2, T1),
    float_fn("log10", B::Log10, T1),
    float_fn("pow", B::Pow, T2),
    float_fn("sin", B::Sin, T1),
    float_fn("cos", B::Cos, T1),
    float_fn("tan", B::Tan, T1),
    float_fn("asin", B::Asin, T1),
    float_fn("acos", B::Acos, T1),
    float_fn("atan", B::Atan, T1),
    float_fn("atan2", B::Atan2, T2),
    float_fn("sinh", B::Sinh, T1),
    float_fn("cosh", B::Cosh, T1),
    float_fn("tanh", B::Tanh, T1),
    float_fn("lerp", B::Lerp, T3),
    float_fn("step", B::Step, T2),
    float_fn("smoothstep", B::SmoothStep, T3),
    math("mad", B::Mad, C::Arith, Shapes::Any, T3, Ret::T),
    math("fma", B::Fma, C::Double, Shapes::Any, T3, Ret::T),
    math(
        "dot",
        B::Dot,
        C::Arith,
        Shapes::ScalarVector,
        T2,
        Ret::ScalarOfT,
    ),
    math("cross", B::Cross, C::Float, Shapes::Vector3, T2, Ret::T),
    math(
        "length",
        B::Length,
        C::Float,
        Shapes::ScalarVector,
        T1,
        Ret::ScalarOfT,
    ),
    math(
        "distance",
        B::Distance,
        C::Float,
        Shapes::ScalarVector,
        T2,
        Ret::ScalarOfT,
    ),
    math(
        "normalize",
        B::Normalize,
        C::Float,
        Shapes::ScalarVector,
        T1,
        Ret::T,
    ),
    math("all", B::All, C::Any, Shapes::Any, T1, Ret::Bool),
    math("any", B::Any, C::Any, Shapes::Any, T1, Ret::Bool),
    math(
        "countbits",
        B::CountBits,
        C::Int,
        Shapes::ScalarVector,
        T1,
        Ret::ShapeOf(ScalarType::UInt32),
    ),
    math(
        "firstbithigh",
        B::FirstBitHigh,
        C::Int,
        Shapes::ScalarVector,
        T1,
        Ret::ShapeOf(ScalarType::UInt32),
    ),
    math(
        "firstbitlow",
        B::FirstBitLow,
        C::Int,
        Shapes::ScalarVector,
        T1,
        Ret::ShapeOf(ScalarType::UInt32),
    ),
    math(
        "reversebits",
        B::ReverseBits,
        C::Int,
        Shapes::ScalarVector,
        T1,
        Ret::T,
    ),
    math(
        "f32tof16",
        B::F32ToF16,
        C::Float,
        Shapes::ScalarVector,
        T1,
        Ret::ShapeOf(ScalarType::UInt32),
    ),
    math(
        "f16tof32",
        B::F16ToF32,
        C::UInt,
        Shapes::ScalarVector,
        T1,
        Ret::ShapeOf(ScalarType::Float32),
    ),
    math(
        "isnan",
        B::IsNan,
        C::Float,
        Shapes::Any,
        T1,
        Ret::ShapeOf(ScalarType::Bool),
    ),
    math(
        "isinf",
        B::IsInf,
        C::Float,
        Shapes::Any,
        T1,
        Ret::ShapeOf(ScalarType::Bool),
    ),
    math(
        "isfinite",
        B::IsFinite,
        C::Float,
        Shapes::Any,
        T1,
        Ret::ShapeOf(ScalarType::Bool),
    ),
    math(
        "transpose",
        B::Transpose,
        C::Any,
        Shapes::Matrix,
        T1,
        Ret::Transposed,
    ),
    wave(
        "WaveIsFirstLane",
        W::IsFirstLane,
        C::Any,
        &[],
        Ret::Bool,
        SM60,
    ),
    wave(
        "WaveGetLaneCount",
        W::GetLaneCount,
        C::Any,
        &[],
        Ret::UInt,
        SM60,
    ),
    wave(
        "WaveGetLaneIndex",
        W::GetLaneIndex,
        C::Any,
        &[],
        Ret::UInt,
        SM60,
    ),
    wave(
        "WaveActiveAnyTrue",
        W::AnyTrue,
        C::Any,
        &[Param::Bool],
        Ret::Bool,
        SM60,
    ),
    wave(
        "WaveActiveAllTrue",
        W::AllTrue,
        C::Any,
        &[Param::Bool],
        Ret::Bool,
        SM60,
    ),
    wave(
        "WaveActiveBallot",
        W::Ballot,
        C::Any,
        &[Param::Bool],
        Ret::UInt4,
        SM60,
    ),
    wave_any_value("WaveReadLaneFirst", W::ReadLaneFirst, T1, Ret::T),
    wave_any_value(
        "WaveReadLaneAt",
        W::ReadLaneAt,
        &[Param::T, Param::UInt],
        Ret::T,
    ),
    wave_any_value(
        "WaveActiveAllEqual",
        W::AllEqual,
        T1,
        Ret::ShapeOf(ScalarType::Bool),
    ),
    wave(
        "WaveActiveCountBits",
        W::CountBits,
        C::Any,
        &[Param::Bool],
        Ret::UInt,
        SM60,
    ),
    wave("WaveActiveSum", W::Sum, C::Numeric, T1, Ret::T, SM60),
    wave(
        "WaveActiveProduct",
        W::Product,
        C::Numeric,
        T1,
        Ret::T,
        SM60,
    ),
    wave("WaveActiveBitAnd", W::BitAnd, C::Int, T1, Ret::T, SM60),
    wave("WaveActiveBitOr", W::BitOr, C::Int, T1, Ret::T, SM60),
    wave("WaveActiveBitXor", W::BitXor, C::Int, T1, Ret::T, SM60),
    wave("WaveActiveMin", W::Min, C::Numeric, T1, Ret::T, SM60),
    wave("WaveActiveMax", W::Max, C::Numeric, T1, Ret::T, SM60),
    wave(
        "WavePrefixCountBits",
        W::PrefixCountBits,
        C::Any,
        &[Param::Bool],
        Ret::UInt,
        SM60,
    ),
    wave("WavePrefixSum", W::PrefixSum, C::Numeric, T1, Ret::T, SM60),
    wave(
        "WavePrefixProduct",
        W::PrefixProduct,
        C::Numeric,
        T1,
        Ret::T,
        SM60,
    ),
    wave("WaveMatch", W::Match, C::Any, T1, Ret::UInt4, SM65),
    wave(
        "WaveMultiPrefixSum",
        W::MultiPrefixSum,
        C::Numeric,
        &[Param::T, Param::UInt4],
        Ret::T,
        SM65,
    ),
    wave(
        "WaveMultiPrefixProduct",
        W::MultiPrefixProduct,
        C::Numeric,
        &[Param::T, Param::UInt4],
        Ret::T,
        SM65,
    ),
    wave(
        "WaveMultiPrefixCountBits",
        W::MultiPrefixCountBits,
        C::Any,
        &[Param::Bool, Param::UInt4],
        Ret::UInt,
        SM65,
    ),
    wave(
        "WaveMultiPrefixBitAnd",
        W::MultiPrefixBitAnd,
        C::Int,
        &[Param::T, Param::UInt4],
        Ret::T,
        SM65,
    ),
    wave(
        "WaveMultiPrefixBitOr",
        W::MultiPrefixBitOr,
        C::Int,
        &[Param::T, Param::UInt4],
        Ret::T,
        SM65,
    ),
    wave(
        "WaveMultiPrefixBitXor",
        W::MultiPrefixBitXor,
        C::Int,
        &[Param::T, Param::UInt4],
        Ret::T,
        SM65,
    ),
    wave(
        "QuadReadAcrossX",
        W::QuadReadAcrossX,
        C::Any,
        T1,
        Ret::T,
        SM60,
    ),
    wave(
        "QuadReadAcrossY",
        W::QuadReadAcrossY,
        C::Any,
        T1,
        Ret::T,
        SM60,
    ),
    wave(
        "QuadReadAcrossDiagonal",
        W::QuadReadAcrossDiagonal,
        C::Any,
        T1,
        Ret::T,
        SM60,
    ),
    wave(
        "QuadReadLaneAt",
        W::QuadReadLaneAt,
        C::Any,
        &[Param::T, Param::UInt],
        Ret::T,
        SM60,
    ),
    wave(
        "QuadAny",
        W::QuadAny,
        C::Any,
        &[Param::Bool],
        Ret::Bool,
        SM67,
    ),
    wave(
        "QuadAll",
        W::QuadAll,
        C::Any,
        &[Param::Bool],
        Ret::Bool,
        SM67,
    ),
];

/// Older spellings from the first wave intrinsics specification, accepted
/// with a deprecation warning naming the current one.
pub(crate) const LEGACY_NAMES: &[(&str, &str)] = &[
    ("WaveAllSum", "WaveActiveSum"),
    ("WaveAllProduct", "WaveActiveProduct"),
    ("WaveAllBitAnd", "WaveActiveBitAnd"),
    ("WaveAllBitOr", "WaveActiveBitOr"),
    ("WaveAllBitXor", "WaveActiveBitXor"),
    ("WaveAllMin", "WaveActiveMin"),
    ("WaveAllMax", "WaveActiveMax"),
    ("WaveAnyTrue", "WaveActiveAnyTrue"),
    ("WaveAllTrue", "WaveActiveAllTrue"),
    ("WaveBallot", "WaveActiveBallot"),
    ("WaveAllEqual", "WaveActiveAllEqual"),
    ("WaveAllEqualBool", "WaveActiveAllEqual"),
    ("WaveAllCountBits", "WaveActiveCountBits"),
    ("WaveReadFirstLane", "WaveReadLaneFirst"),
];

/// Names that are not HLSL's but that shaders write for an intrinsic (the
/// SM 6.5 specification's list spells `WaveMultiPrefixBit*` without
/// `Bit`, its examples and compilers with it): accepted with a warning
/// naming the real one.
pub(crate) const NOT_HLSL_NAMES: &[(&str, &str)] = &[
    ("WaveMultiPrefixAnd", "WaveMultiPrefixBitAnd"),
    ("WaveMultiPrefixOr", "WaveMultiPrefixBitOr"),
    ("WaveMultiPrefixXor", "WaveMultiPrefixBitXor"),
];

/// Intrinsics with their own checking code.
pub(crate) const SPECIAL_NAMES: &[&str] = &[
    "mul",
    "select",
    "and",
    "or",
    "asuint",
    "splitdouble",
    "asint",
    "asfloat",
    "asdouble",
    "asuint16",
    "asint16",
    "asfloat16",
];

/// Barrier intrinsics: allowed only as statements.
pub(crate) const BARRIERS: &[(&str, bool, bool, bool)] = &[
    // (name, group memory, device memory, group sync)
    ("GroupMemoryBarrier", true, false, false),
    ("GroupMemoryBarrierWithGroupSync", true, false, true),
    ("DeviceMemoryBarrier", false, true, false),
    ("DeviceMemoryBarrierWithGroupSync", false, true, true),
    ("AllMemoryBarrier", true, true, false),
    ("AllMemoryBarrierWithGroupSync", true, true, true),
];

pub(crate) fn find(name: &str) -> Option<&'static Intrinsic> {
    INTRINSICS.iter().find(|i| i.name == name)
}

/// A readable signature for "candidate" notes.
pub(crate) fn signature(i: &Intrinsic) -> String {
    let params: Vec<&str> = i
        .params
        .iter()
        .map(|p| match p {
            Param::T => "T",
            Param::Bool => "bool",
            Param::UInt => "uint",
            Param::UInt4 => "uint4",
        })
        .collect();
    let ret = match i.ret {
        Ret::T => "T".to_string(),
        Ret::Bool => "bool".to_string(),
        Ret::UInt => "uint".to_string(),
        Ret::UInt4 => "uint4".to_string(),
        Ret::ShapeOf(s) => format!("{}<n>", s.name()),
        Ret::ScalarOfT => "scalar of T".to_string(),
        Ret::Transposed => "transposed T".to_string(),
    };
    let sig = format!("{ret} {}({})", i.name, params.join(", "));
    if !i.params.contains(&Param::T) {
        return sig;
    }
    let shapes = match i.shapes {
        Shapes::Any => "a scalar, vector or matrix",
        Shapes::AnyValue => "a scalar, vector, matrix, struct or array",
        Shapes::ScalarVector => "a scalar or vector",
        Shapes::Vector3 => "a 3-component vector",
        Shapes::Matrix => "a matrix",
    };
    let class = match i.class {
        Class::Any => "any type",
        Class::Numeric | Class::Arith => "a numeric type",
        Class::Float | Class::AnyFloat => "a floating-point type",
        Class::Double => "double",
        Class::Int => "an integer type",
        Class::UInt => "uint",
    };
    format!("{sig} with T {shapes} of {class}")
}

/// Intrinsics of DXC's table that Lockstep does not implement, with why:
/// a call says so instead of calling the name undeclared.
pub(crate) fn unsupported(name: &str) -> Option<&'static str> {
    const PIXEL: &str = "it needs multisampling or per-vertex attributes, which Lockstep's pixel stage does not have";
    Some(match name {
        "ddx" | "ddy" | "ddx_coarse" | "ddy_coarse" | "ddx_fine" | "ddy_fine" | "fwidth" => {
            "derivatives need a compute shader of shader model 6.6 or later (-T cs_6_6), where they are taken over quads"
        }
        "EvaluateAttributeCentroid"
        | "EvaluateAttributeAtSample"
        | "EvaluateAttributeSnapped"
        | "GetAttributeAtVertex"
        | "GetRenderTargetSampleCount"
        | "GetRenderTargetSamplePosition" => PIXEL,
        "noise" => "noise is not defined for compute shaders",
        "abort" => "abort is not implemented",
        "tex1D" | "tex1Dbias" | "tex1Dgrad" | "tex1Dlod" | "tex1Dproj" | "tex2D" | "tex2Dbias"
        | "tex2Dgrad" | "tex2Dlod" | "tex2Dproj" | "tex3D" | "tex3Dbias" | "tex3Dgrad"
        | "tex3Dlod" | "tex3Dproj" | "texCUBE" | "texCUBEbias" | "texCUBEgrad" | "texCUBElod"
        | "texCUBEproj" => {
            "the legacy texture functions take sampler1D/2D/3D/CUBE objects, which are not supported; use a Texture2D's Sample methods"
        }
        "Process2DQuadTessFactorsAvg"
        | "Process2DQuadTessFactorsMax"
        | "Process2DQuadTessFactorsMin"
        | "ProcessIsolineTessFactors"
        | "ProcessQuadTessFactorsAvg"
        | "ProcessQuadTessFactorsMax"
        | "ProcessQuadTessFactorsMin"
        | "ProcessTriTessFactorsAvg"
        | "ProcessTriTessFactorsMax"
        | "ProcessTriTessFactorsMin" => "it belongs to the hull stage",
        _ => return None,
    })
}
