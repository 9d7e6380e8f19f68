//! The typed intermediate representation between the type checker and the
//! back ends: types, resources, functions with structured control flow.
//!
//! The IR knows nothing of HLSL syntax. Every expression is fully typed and
//! every implicit conversion is explicit (`Convert`, `Splat`, `Swizzle`), so a
//! back end never has to apply HLSL's conversion rules itself.

pub mod layout;
pub mod print;
pub mod types;
pub mod verify;

pub use layout::{LayoutRule, ScalarSlot};
pub use types::{Member, ScalarType, Type, TypeArena, TypeId};

/// A byte range in a source file, kept so that run-time errors (a loop that
/// exceeds the step budget, say) can name the source construct.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: u32,
    pub start: u32,
    pub end: u32,
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// A local variable (or parameter) of one function.
    LocalId
);
id_type!(
    /// A `static` global: one copy per thread.
    StaticId
);
id_type!(
    /// A `groupshared` variable: one copy per thread group.
    GroupsharedId
);
id_type!(
    /// A bound resource (buffer, constant buffer or texture).
    ResourceId
);
id_type!(
    /// A function of the module.
    FunctionId
);

/// A whole compiled shader.
#[derive(Clone, Debug, Default)]
pub struct Module {
    pub types: TypeArena,
    pub resources: Vec<Resource>,
    pub statics: Vec<Variable>,
    /// Runs once per thread before the entry point's body: initializes the
    /// `static` globals in declaration order.
    pub static_init: Block,
    pub groupshared: Vec<Variable>,
    pub functions: Vec<Function>,
    pub entry: Option<EntryPoint>,
    /// The lowest shader model that has every feature the module uses.
    pub required_shader_model: (u32, u32),
}

impl Module {
    pub fn function(&self, id: FunctionId) -> &Function {
        &self.functions[id.index()]
    }

    pub fn resource(&self, id: ResourceId) -> &Resource {
        &self.resources[id.index()]
    }
}

#[derive(Clone, Debug)]
pub struct Variable {
    pub name: String,
    pub ty: TypeId,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    StructuredBuffer,
    RWStructuredBuffer,
    /// `AppendStructuredBuffer<T>` and `ConsumeStructuredBuffer<T>`: a
    /// read-write structured buffer used through its counter.
    AppendStructuredBuffer,
    ConsumeStructuredBuffer,
    /// Typed buffer `Buffer<T>`: element `T` is a scalar or vector.
    Buffer,
    RWBuffer,
    ByteAddressBuffer,
    RWByteAddressBuffer,
    /// `cbuffer` blocks, `ConstantBuffer<T>` and the implicit `$Globals`.
    ConstantBuffer,
    /// Textures without sampling: the element `T` (a scalar or vector) is
    /// one texel. Texels are stored row-major, x fastest, then y, then the
    /// slice (arrays) or z (3D); there is one mip level.
    Texture1D,
    Texture2D,
    Texture2DArray,
    Texture3D,
    RWTexture1D,
    RWTexture2D,
    RWTexture2DArray,
    RWTexture3D,
}

impl ResourceKind {
    pub fn is_writable(self) -> bool {
        matches!(
            self,
            ResourceKind::RWStructuredBuffer
                | ResourceKind::AppendStructuredBuffer
                | ResourceKind::ConsumeStructuredBuffer
                | ResourceKind::RWBuffer
                | ResourceKind::RWByteAddressBuffer
                | ResourceKind::RWTexture1D
                | ResourceKind::RWTexture2D
                | ResourceKind::RWTexture2DArray
                | ResourceKind::RWTexture3D
        )
    }

    /// The number of coordinate components that address a texel of a
    /// texture (1D: 1; 2D: 2; 2D array: 3, the slice last; 3D: 3), or
    /// `None` for buffers.
    pub fn texture_coords(self) -> Option<u8> {
        match self {
            ResourceKind::Texture1D | ResourceKind::RWTexture1D => Some(1),
            ResourceKind::Texture2D | ResourceKind::RWTexture2D => Some(2),
            ResourceKind::Texture2DArray
            | ResourceKind::RWTexture2DArray
            | ResourceKind::Texture3D
            | ResourceKind::RWTexture3D => Some(3),
            _ => None,
        }
    }

    pub fn is_texture(self) -> bool {
        self.texture_coords().is_some()
    }

    /// The D3D register class: `t` (SRV), `u` (UAV) or `b` (CBV).
    pub fn register_class(self) -> char {
        match self {
            ResourceKind::ConstantBuffer => 'b',
            k if k.is_writable() => 'u',
            _ => 't',
        }
    }

    /// The memory layout of the resource's elements.
    pub fn layout_rule(self) -> LayoutRule {
        match self {
            ResourceKind::ConstantBuffer => LayoutRule::CBuffer,
            _ => LayoutRule::Packed,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Resource {
    pub name: String,
    pub kind: ResourceKind,
    /// The element type: `T` of `StructuredBuffer<T>`/`Buffer<T>`, a struct of
    /// the members for constant buffers, `uint` for byte-address buffers,
    /// the texel type `T` of textures.
    pub element: TypeId,
    /// The D3D binding, explicit or assigned the way DXC does.
    pub register: u32,
    pub space: u32,
    /// `true` when the shader wrote `register(...)`.
    pub explicit_binding: bool,
    /// The hidden counter of a structured buffer (`IncrementCounter`,
    /// `Append`, `Consume`): a 4-byte read-write byte-address buffer with no
    /// register, which the runtime supplies, zeroed, for each dispatch.
    pub counter_of: Option<ResourceId>,
    pub span: Span,
}

/// What a compute entry point's parameter receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SystemValue {
    DispatchThreadId,
    GroupId,
    GroupThreadId,
    GroupIndex,
}

/// How a thread group is launched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupShape {
    /// `[numthreads(x, y, z)]`: a fixed number of threads.
    Threads([u32; 3]),
    /// `[numWaves(n)]`: `n` waves of whatever wave size the dispatch uses.
    Waves(u32),
}

impl GroupShape {
    /// Threads in a group at wave size `wave_size`.
    pub fn threads(self, wave_size: u32) -> u64 {
        match self {
            GroupShape::Threads(size) => size.iter().map(|&n| u64::from(n)).product(),
            GroupShape::Waves(n) => u64::from(n) * u64::from(wave_size),
        }
    }

    /// The group's extent in x, y, z at wave size `wave_size` (a `numWaves`
    /// group is one row).
    pub fn extent(self, wave_size: u32) -> [u32; 3] {
        match self {
            GroupShape::Threads(size) => size,
            GroupShape::Waves(n) => [n.saturating_mul(wave_size), 1, 1],
        }
    }

    /// Waves in a group at wave size `wave_size`.
    pub fn waves(self, wave_size: u32) -> u64 {
        self.threads(wave_size)
            .div_ceil(u64::from(wave_size.max(1)))
    }
}

/// `[WaveSize(min, max, preferred)]`; the fixed form `[WaveSize(n)]` has
/// `min == max == n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaveSizeRange {
    pub min: u32,
    pub max: u32,
    pub preferred: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct EntryPoint {
    pub function: FunctionId,
    pub name: String,
    /// `[numthreads(x, y, z)]` or `[numWaves(n)]`.
    pub group: GroupShape,
    /// `[WaveSize(...)]`, when present.
    pub wave_size: Option<WaveSizeRange>,
    /// The system values the parameters receive, in order: one for each
    /// parameter, or one for each field of a struct parameter.
    pub inputs: Vec<EntryInput>,
}

/// A system value read by the entry point: into a parameter, or into one
/// field of a struct parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryInput {
    pub value: SystemValue,
    /// The parameter's index.
    pub param: u32,
    /// The first scalar component filled, among the parameter's flattened
    /// components.
    pub component: u32,
    /// How many components are filled (1 to 3).
    pub components: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamDirection {
    In,
    Out,
    InOut,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    /// Parameters are locals `0..params.len()`.
    pub params: Vec<ParamDirection>,
    /// Every local, parameters first.
    pub locals: Vec<Variable>,
    pub result: Option<TypeId>,
    pub body: Block,
    pub span: Span,
}

#[derive(Clone, Debug, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
}

impl Block {
    pub fn new(stmts: Vec<Stmt>) -> Block {
        Block { stmts }
    }
}

#[derive(Clone, Debug)]
pub struct SwitchCase {
    /// Selector values (bit patterns of the selector's type, sign-extended
    /// to 64 bits for signed types).
    pub values: Vec<u64>,
    pub is_default: bool,
    /// A body that does not end in `Break` falls through into the next case.
    pub body: Block,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct BarrierFlags {
    pub group_memory: bool,
    pub device_memory: bool,
    /// `...WithGroupSync`: every thread of the group waits here.
    pub group_sync: bool,
    /// The call in the source.
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    /// Evaluated for its effects (assignments, calls, atomics).
    Expr(Expr),
    If {
        cond: Expr,
        accept: Block,
        reject: Block,
    },
    /// Runs `body`, then `continuing`, until every lane has left through
    /// `Break` or `Return`. `Continue` in `body` skips to `continuing`. A
    /// `Break` in `continuing` leaves the loop (how `do … while` and `for`
    /// conditions are written).
    Loop {
        body: Block,
        continuing: Block,
        span: Span,
    },
    /// `selector` is a scalar integer. Lanes run the first case whose values
    /// contain the selector, else the default case, then fall through.
    Switch {
        selector: Expr,
        cases: Vec<SwitchCase>,
    },
    /// Leaves the innermost `Loop` or `Switch`.
    Break,
    /// Goes to the innermost `Loop`'s `continuing`.
    Continue,
    Return(Option<Expr>),
    Barrier(BarrierFlags),
}

/// A storage location that can be read or written.
#[derive(Clone, Debug)]
pub struct Place {
    pub root: PlaceRoot,
    /// Projections applied left to right.
    pub path: Vec<Access>,
    /// The type of the location after the path.
    pub ty: TypeId,
}

#[derive(Clone, Debug)]
pub enum PlaceRoot {
    Local(LocalId),
    Static(StaticId),
    Groupshared(GroupsharedId),
    /// Element `index` of a structured or typed buffer (`buf[i]`).
    BufferElement {
        resource: ResourceId,
        index: Box<Expr>,
    },
    /// A value of the place's type at byte `address` of a byte-address buffer
    /// (`Load<T>`, `Store<T>`, `Interlocked*`).
    ByteAddress {
        resource: ResourceId,
        address: Box<Expr>,
    },
    /// The whole constant buffer: its element struct.
    ConstantBuffer {
        resource: ResourceId,
    },
    /// One texel of a texture (`tex[coord]`, `tex.Load(location)`): `coord`
    /// is a `uint` (1D), `uint2` (2D) or `uint3` (2D array: x, y, slice;
    /// 3D: x, y, z). Each coordinate is checked against the texture's size
    /// on its own: out of range reads 0 and writes nothing. `level` is the
    /// mip level (a `uint`) where the access names one; a level other than
    /// 0 reads 0, since textures have one level.
    Texel {
        resource: ResourceId,
        coord: Box<Expr>,
        level: Option<Box<Expr>>,
    },
}

#[derive(Clone, Debug)]
pub enum Access {
    /// A struct member by index.
    Field(u32),
    /// An array element, a vector component or a matrix row (a vector).
    Index(Box<Expr>),
    /// Components of a vector, or elements of a matrix numbered row-major
    /// (`row * cols + col`). Write masks have no repeats.
    Components(Vec<u8>),
}

/// A constant scalar: the value's bits, zero-extended to 64 (floats stored
/// with their own width's bit pattern; bool is 0 or 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scalar {
    pub ty: ScalarType,
    pub bits: u64,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: TypeId,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// Arithmetic negation (wrapping for integers).
    Neg,
    /// Logical not of a bool.
    Not,
    /// Bitwise complement of an integer.
    BitNot,
}

/// Component-wise binary operators. Both operands have the expression's
/// operand type (comparisons yield bools of the same shape). Shifts mask the
/// amount by the bit width minus one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    /// Non-short-circuit logical and/or of bools (vectors, HLSL 2021 `and`/`or`).
    And,
    Or,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Math and bit built-ins. Arguments are converted to the overload's types by
/// sema; component-wise unless noted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    Abs,
    Min,
    Max,
    Clamp,
    Saturate,
    /// Result is an `int` of the argument's shape.
    Sign,
    Floor,
    Ceil,
    Round,
    Trunc,
    Frac,
    Fmod,
    Sqrt,
    Rsqrt,
    Rcp,
    Exp,
    Exp2,
    Log,
    Log2,
    Log10,
    Pow,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Lerp,
    Step,
    SmoothStep,
    Mad,
    Fma,
    /// Vector · vector → scalar.
    Dot,
    /// float3 × float3.
    Cross,
    /// Vector → scalar.
    Length,
    /// Vector, vector → scalar.
    Distance,
    Normalize,
    /// Any shape → bool scalar.
    All,
    Any,
    /// Integers → uint of the same shape.
    CountBits,
    FirstBitHigh,
    FirstBitLow,
    ReverseBits,
    /// float → uint.
    F32ToF16,
    /// uint → float.
    F16ToF32,
    IsNan,
    IsInf,
    IsFinite,
    /// `mul(a, b)` for every scalar/vector/matrix combination.
    Mul,
    Transpose,
    /// `asdouble(lo, hi)`: two uints → double.
    AsDouble,
}

/// Wave and quad intrinsics. Operands are fully typed; results as the spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaveOp {
    IsFirstLane,
    GetLaneCount,
    GetLaneIndex,
    AnyTrue,
    AllTrue,
    Ballot,
    ReadLaneFirst,
    ReadLaneAt,
    AllEqual,
    CountBits,
    Sum,
    Product,
    BitAnd,
    BitOr,
    BitXor,
    Min,
    Max,
    PrefixCountBits,
    PrefixSum,
    PrefixProduct,
    Match,
    MultiPrefixSum,
    MultiPrefixProduct,
    MultiPrefixCountBits,
    MultiPrefixBitAnd,
    MultiPrefixBitOr,
    MultiPrefixBitXor,
    QuadReadAcrossX,
    QuadReadAcrossY,
    QuadReadAcrossDiagonal,
    QuadReadLaneAt,
    QuadAny,
    QuadAll,
    /// `GetGroupWaveIndex()`: the wave's index within its group.
    GroupWaveIndex,
    /// `GetGroupWaveCount()`: waves in the group (folded to a constant by
    /// the checker under `[numWaves]`).
    GroupWaveCount,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    Add,
    /// Signed or unsigned from the place's scalar type.
    Min,
    Max,
    And,
    Or,
    Xor,
    Exchange,
    /// `args = [compare, value]`.
    CompareExchange,
    /// `args = [compare, value]`; no result (`ty` is the place's type,
    /// value unused).
    CompareStore,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceQuery {
    /// Number of elements (structured/typed buffers).
    ElementCount,
    /// Bytes per element (structured buffers).
    Stride,
    /// Size in bytes (byte-address buffers).
    ByteSize,
    /// Texels in x (textures).
    Width,
    /// Texels in y (2D, 2D array and 3D textures).
    Height,
    /// Texels in z (3D textures).
    Depth,
    /// Slices of an array texture.
    Elements,
    /// Mip levels of a texture (always 1).
    Levels,
}

#[derive(Clone, Debug)]
pub enum CallArg {
    In(Expr),
    /// Copied out after the call.
    Out(Place),
    /// Copied in before and out after the call.
    InOut(Place),
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A constant: one scalar per component of `ty`, in flattening order.
    Const(Vec<Scalar>),
    Load(Place),
    /// Builds `ty` from the scalar components of each argument, in order
    /// (`float4(a.xy, 0, 1)`); the component counts add up to `ty`'s.
    Construct(Vec<Expr>),
    /// A scalar repeated into every component of `ty`.
    Splat(Box<Expr>),
    /// Components of a vector (or row-major elements of a matrix); also how
    /// truncation is written.
    Swizzle(Box<Expr>, Vec<u8>),
    /// A struct member of a value.
    Field(Box<Expr>, u32),
    /// An array element, vector component or matrix row of a value.
    Index(Box<Expr>, Box<Expr>),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// Scalar `&&` / `||` that short-circuit: `rhs` runs only on the lanes
    /// that need it.
    LogicalAnd(Box<Expr>, Box<Expr>),
    LogicalOr(Box<Expr>, Box<Expr>),
    /// Scalar-condition `c ? a : b`: each side runs only on its lanes.
    Conditional {
        cond: Box<Expr>,
        accept: Box<Expr>,
        reject: Box<Expr>,
    },
    /// Component-wise `select(c, a, b)` (vector `?:`): both sides evaluated.
    Select {
        cond: Box<Expr>,
        accept: Box<Expr>,
        reject: Box<Expr>,
    },
    /// Numeric conversion of each component to `ty`'s scalar type; same shape.
    Convert(Box<Expr>),
    /// Reinterprets the bits of each component (`asuint`, `asfloat`, …);
    /// same shape and width.
    Bitcast(Box<Expr>),
    Builtin(Builtin, Vec<Expr>),
    Wave(WaveOp, Vec<Expr>),
    Call {
        function: FunctionId,
        args: Vec<CallArg>,
    },
    /// Stores `value` into `place`; the expression's value is the new value,
    /// or the old one when `yield_old` (post-increment). `init` marks the
    /// initializer of a local variable's declaration: a lane that does not
    /// run it cannot read the variable before running it itself (each run
    /// of the declaration starts the variable's life), so its value on the
    /// lanes that do not run it does not matter.
    Assign {
        place: Place,
        value: Box<Expr>,
        yield_old: bool,
        init: bool,
    },
    /// An atomic read-modify-write on a 32- or 64-bit integer in a buffer or
    /// groupshared memory; yields the original value.
    Atomic {
        op: AtomicOp,
        place: Place,
        args: Vec<Expr>,
    },
    ResourceQuery {
        resource: ResourceId,
        query: ResourceQuery,
    },
    /// Evaluates `first` for its effects, then yields `second`.
    Sequence(Box<Expr>, Box<Expr>),
}
