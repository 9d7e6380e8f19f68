//! The typed intermediate representation between the type checker and the
//! back ends: types, resources, functions with structured control flow.
//!
//! The IR knows nothing of HLSL syntax. Every expression is fully typed and
//! every implicit conversion is explicit (`Convert`, `Splat`, `Swizzle`), so a
//! back end never has to apply HLSL's conversion rules itself.

#![warn(missing_docs)]

pub mod layout;
pub mod print;
pub mod types;
pub mod verify;
pub mod walk;

pub use layout::{LayoutRule, ScalarSlot};
pub use types::{Member, ScalarType, Type, TypeArena, TypeId};

/// A byte range in a source file, kept so that run-time errors (a loop that
/// exceeds the step budget, say) can name the source construct.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// The source file's index in the compiler's source map.
    pub file: u32,
    /// The byte offset of the first byte.
    pub start: u32,
    /// The byte offset just past the last byte.
    pub end: u32,
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);
        impl $name {
            /// The position in the list the id indexes: the module's, or the
            /// function's locals for a [`LocalId`].
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
    /// Every type the module uses; each [`TypeId`] indexes it.
    pub types: TypeArena,
    /// Every resource, hidden counters included; each [`ResourceId`] indexes
    /// it.
    pub resources: Vec<Resource>,
    /// The `static` globals; each [`StaticId`] indexes them.
    pub statics: Vec<Variable>,
    /// Runs once per thread before the entry point's body: initializes the
    /// `static` globals in declaration order.
    pub static_init: Block,
    /// The `groupshared` variables; each [`GroupsharedId`] indexes them.
    pub groupshared: Vec<Variable>,
    /// Every function, the entry point included; each [`FunctionId`] indexes
    /// them.
    pub functions: Vec<Function>,
    /// The compute entry point; `None` when it is missing or invalid (an error
    /// is reported).
    pub entry: Option<EntryPoint>,
    /// The lowest shader model that has every feature the module uses.
    pub required_shader_model: (u32, u32),
}

impl Module {
    /// The function `id` names.
    pub fn function(&self, id: FunctionId) -> &Function {
        &self.functions[id.index()]
    }

    /// The resource `id` names.
    pub fn resource(&self, id: ResourceId) -> &Resource {
        &self.resources[id.index()]
    }
}

/// A named variable: a local, a parameter, a `static` or a `groupshared`
/// variable.
#[derive(Clone, Debug)]
pub struct Variable {
    /// The name in the source; temporaries the checker adds have dotted names
    /// (`index.3`).
    pub name: String,
    /// The variable's type, array dimensions included.
    pub ty: TypeId,
    /// Where the variable is declared.
    pub span: Span,
}

/// The kind of a resource, as declared: `RWStructuredBuffer<T>` is a
/// `RWStructuredBuffer` of element `T`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceKind {
    /// `StructuredBuffer<T>`: a read-only array of `T`.
    StructuredBuffer,
    /// `RWStructuredBuffer<T>`: a read-write array of `T`.
    RWStructuredBuffer,
    /// `AppendStructuredBuffer<T>` and `ConsumeStructuredBuffer<T>`: a
    /// read-write structured buffer used through its counter.
    AppendStructuredBuffer,
    /// `ConsumeStructuredBuffer<T>`: `Consume()` takes the elements from the
    /// last.
    ConsumeStructuredBuffer,
    /// Typed buffer `Buffer<T>`: element `T` is a scalar or vector.
    Buffer,
    /// Typed buffer `RWBuffer<T>`, read-write.
    RWBuffer,
    /// `ByteAddressBuffer`: read-only 32-bit words addressed in bytes (`Load`,
    /// `Load<T>`).
    ByteAddressBuffer,
    /// `RWByteAddressBuffer`: also written (`Store`, `Interlocked*`).
    RWByteAddressBuffer,
    /// `cbuffer` blocks, `ConstantBuffer<T>` and the implicit `$Globals`.
    ConstantBuffer,
    /// Textures without sampling: the element `T` (a scalar or vector) is
    /// one texel. Texels are stored row-major, x fastest, then y, then the
    /// slice (arrays) or z (3D); there is one mip level.
    Texture1D,
    /// `Texture1DArray<T>`, read-only: slices of 1D texels, addressed as a
    /// 2D texture whose rows are the slices.
    Texture1DArray,
    /// `Texture2D<T>`, read-only.
    Texture2D,
    /// `Texture2DArray<T>`, read-only: slices of 2D texels.
    Texture2DArray,
    /// `Texture3D<T>`, read-only.
    Texture3D,
    /// `TextureCube<T>`: six square faces (+X, -X, +Y, -Y, +Z, -Z) stored
    /// as the slices of a 2D array; only sampled (and measured).
    TextureCube,
    /// `TextureCubeArray<T>`: cubes of six faces each, stored as the
    /// slices of a 2D array, cube after cube.
    TextureCubeArray,
    /// `RWTexture1D<T>`, read-write.
    RWTexture1D,
    /// `RWTexture1DArray<T>`, read-write.
    RWTexture1DArray,
    /// `RWTexture2D<T>`, read-write.
    RWTexture2D,
    /// `RWTexture2DArray<T>`, read-write.
    RWTexture2DArray,
    /// `RWTexture3D<T>`, read-write.
    RWTexture3D,
    /// `SamplerState` and `SamplerComparisonState`: the sampler's state as
    /// a struct laid out like a constant buffer's (its element type), which
    /// the runtime fills from the pipeline's description of the sampler.
    SamplerState,
}

impl ResourceKind {
    /// Whether the shader may write the resource (a UAV): the `RW`, append and
    /// consume kinds.
    pub fn is_writable(self) -> bool {
        matches!(
            self,
            ResourceKind::RWStructuredBuffer
                | ResourceKind::AppendStructuredBuffer
                | ResourceKind::ConsumeStructuredBuffer
                | ResourceKind::RWBuffer
                | ResourceKind::RWByteAddressBuffer
                | ResourceKind::RWTexture1D
                | ResourceKind::RWTexture1DArray
                | ResourceKind::RWTexture2D
                | ResourceKind::RWTexture2DArray
                | ResourceKind::RWTexture3D
        )
    }

    /// The number of coordinate components that address a texel of a
    /// texture (1D: 1; 2D and 1D array: 2, the slice last; 2D array: 3,
    /// the slice last; 3D: 3; cubes: 3, x, y and the face among all
    /// slices), or `None` for buffers.
    pub fn texture_coords(self) -> Option<u8> {
        match self {
            ResourceKind::Texture1D | ResourceKind::RWTexture1D => Some(1),
            ResourceKind::Texture2D
            | ResourceKind::RWTexture2D
            | ResourceKind::Texture1DArray
            | ResourceKind::RWTexture1DArray => Some(2),
            ResourceKind::Texture2DArray
            | ResourceKind::RWTexture2DArray
            | ResourceKind::Texture3D
            | ResourceKind::RWTexture3D
            | ResourceKind::TextureCube
            | ResourceKind::TextureCubeArray => Some(3),
            _ => None,
        }
    }

    /// Whether the texture is an array of slices (1D, 2D and cube arrays).
    pub fn is_texture_array(self) -> bool {
        matches!(
            self,
            ResourceKind::Texture1DArray
                | ResourceKind::RWTexture1DArray
                | ResourceKind::Texture2DArray
                | ResourceKind::RWTexture2DArray
                | ResourceKind::TextureCubeArray
        )
    }

    /// Whether the texture is a cube or an array of cubes.
    pub fn is_cube(self) -> bool {
        matches!(
            self,
            ResourceKind::TextureCube | ResourceKind::TextureCubeArray
        )
    }

    /// Whether the resource is a texture, of any dimension.
    pub fn is_texture(self) -> bool {
        self.texture_coords().is_some()
    }

    /// The D3D register class: `t` (SRV), `u` (UAV), `b` (CBV) or `s`
    /// (sampler).
    pub fn register_class(self) -> char {
        match self {
            ResourceKind::ConstantBuffer => 'b',
            ResourceKind::SamplerState => 's',
            k if k.is_writable() => 'u',
            _ => 't',
        }
    }

    /// The memory layout of the resource's elements.
    pub fn layout_rule(self) -> LayoutRule {
        match self {
            ResourceKind::ConstantBuffer | ResourceKind::SamplerState => LayoutRule::CBuffer,
            _ => LayoutRule::Packed,
        }
    }
}

/// A resource the shader declares, with its binding.
#[derive(Clone, Debug)]
pub struct Resource {
    /// The name in the source: `buf[2]` for an element of a resource array,
    /// `$Globals` for the implicit constant buffer, `buf.counter` for a hidden
    /// counter.
    pub name: String,
    /// What kind of buffer or texture it is.
    pub kind: ResourceKind,
    /// The element type: `T` of `StructuredBuffer<T>`/`Buffer<T>`, a struct of
    /// the members for constant buffers, `uint` for byte-address buffers,
    /// the texel type `T` of textures.
    pub element: TypeId,
    /// The D3D binding, explicit or assigned the way DXC does.
    pub register: u32,
    /// The register space: 1 for `space1`; 0 when none is written.
    pub space: u32,
    /// `true` when the shader wrote `register(...)`.
    pub explicit_binding: bool,
    /// `[[vk::binding(binding, set)]]`: the descriptor binding and set the
    /// shader asks for under Vulkan.
    pub vk_binding: Option<(u32, u32)>,
    /// The hidden counter of a structured buffer (`IncrementCounter`,
    /// `Append`, `Consume`): a 4-byte read-write byte-address buffer with no
    /// register, which the runtime supplies, zeroed, for each dispatch.
    pub counter_of: Option<ResourceId>,
    /// The declaration in the source (the base buffer's, for a counter).
    pub span: Span,
}

/// What a compute entry point's parameter receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SystemValue {
    /// `SV_DispatchThreadID`: the thread's `uint3` index in the whole dispatch.
    DispatchThreadId,
    /// `SV_GroupID`: the `uint3` index of the thread's group in the dispatch.
    GroupId,
    /// `SV_GroupThreadID`: the thread's `uint3` index within its group.
    GroupThreadId,
    /// `SV_GroupIndex`: the thread's flattened `uint` index within its group.
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
    /// The smallest wave size the shader runs at.
    pub min: u32,
    /// The largest wave size the shader runs at; `min` for the fixed form.
    pub max: u32,
    /// The size to take when the device supports it, when given.
    pub preferred: Option<u32>,
}

/// The compute entry point and how its groups are launched.
#[derive(Clone, Debug)]
pub struct EntryPoint {
    /// The entry point's function.
    pub function: FunctionId,
    /// The entry point's name, as chosen with `-E` or the pipeline's `Entry`.
    pub name: String,
    /// `[numthreads(x, y, z)]` or `[numWaves(n)]`.
    pub group: GroupShape,
    /// `[WaveSize(...)]`, when present.
    pub wave_size: Option<WaveSizeRange>,
    /// Where `[WaveSize(...)]` is written, when it is.
    pub wave_size_span: Option<Span>,
    /// The system values the parameters receive, in order: one for each
    /// parameter, or one for each field of a struct parameter.
    pub inputs: Vec<EntryInput>,
    /// Which threads of a group make a quad.
    pub quads: QuadLayout,
    /// The stage the entry point runs in.
    pub stage: Stage,
    /// For a vertex or pixel shader: the records its lanes read and write.
    pub io: Option<StageIo>,
}

/// The pipeline stage of an entry point (`cs_`, `vs_` or `ps_` profile).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Stage {
    /// A compute shader, launched in groups.
    #[default]
    Compute,
    /// A vertex shader: one lane per vertex.
    Vertex,
    /// A pixel shader: one lane per pixel, in 2×2 quads.
    Pixel,
}

impl Stage {
    /// The profile prefix: `cs`, `vs` or `ps`.
    pub fn prefix(self) -> &'static str {
        match self {
            Stage::Compute => "cs",
            Stage::Vertex => "vs",
            Stage::Pixel => "ps",
        }
    }

    /// The stage's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Compute => "compute",
            Stage::Vertex => "vertex",
            Stage::Pixel => "pixel",
        }
    }
}

/// How a vertex or pixel shader exchanges values with the fixed-function
/// stages. The entry function sema writes runs one lane per record: it
/// reads record `i` of `input` (word 0 its state: 0 no lane, 1 a lane, 2 a
/// helper lane), calls the shader's function, and writes record `i` of
/// `output` (word 0 is 1 when the lane wrote it; helper lanes, and pixels
/// that called `discard`, write nothing). Records are 32-bit words, one per
/// scalar component.
#[derive(Clone, Debug)]
pub struct StageIo {
    /// The `StructuredBuffer<uint>` of input records.
    pub input: ResourceId,
    /// The `RWStructuredBuffer<uint>` of output records.
    pub output: ResourceId,
    /// The values read, system values included, in record order.
    pub inputs: Vec<Varying>,
    /// The values written, in record order.
    pub outputs: Vec<Varying>,
    /// Words per input record, the state word included.
    pub input_words: u32,
    /// Words per output record, the written word included.
    pub output_words: u32,
    /// The pixel shader's helper flag (`IsHelperLane()`; `discard` sets
    /// it): wave operations other than queries and quad operations, and
    /// writes to memory, leave out the lanes where it is set.
    pub helper: Option<StaticId>,
    /// The pixel shader's flag of lanes that called `discard` (helper
    /// lanes from then on): checked runs report quad operations that read
    /// them.
    pub discarded: Option<StaticId>,
    /// `[earlydepthstencil]` on a pixel shader: the depth test (and the
    /// depth write) happens before the shader runs, so pixels that fail it
    /// never run but as helper lanes, and `discard` keeps the depth written.
    pub early_depth: bool,
    /// `[WaveOpsIncludeHelperLanes]` on a pixel shader (SM 6.7): its wave
    /// operations take the helper lanes in as any active lane.
    pub wave_ops_include_helpers: bool,
}

/// One value a vertex or pixel shader reads or writes, by semantic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Varying {
    /// The semantic's name in upper case, without its index: `TEXCOORD`,
    /// `SV_POSITION`.
    pub semantic: String,
    /// The semantic's index: 3 in `TEXCOORD3`, 0 when none is written.
    pub index: u32,
    /// What each word holds.
    pub kind: VaryingKind,
    /// Components, 1 to 4.
    pub components: u32,
    /// The first word in the record.
    pub word: u32,
    /// How a pixel shader input is interpolated.
    pub interpolation: Interpolation,
    /// The parameter or field in the source.
    pub span: Span,
}

/// A semantic's name in upper case and its index: `TEXCOORD3` is
/// (`TEXCOORD`, 3), `SV_Target` (`SV_TARGET`, 0).
pub fn split_semantic(name: &str) -> (String, u32) {
    let upper = name.to_ascii_uppercase();
    let digits = upper.len() - upper.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (base, index) = upper.split_at(upper.len() - digits);
    (base.to_string(), index.parse().unwrap_or(0))
}

/// What one word of a varying holds: the shader's type converts from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VaryingKind {
    /// An IEEE binary32 float (`half` and `min16float` are converted).
    Float,
    /// A 32-bit signed integer.
    Int,
    /// A 32-bit unsigned integer; a `bool` is 0 or 1.
    UInt,
}

/// The interpolation modifier of a pixel shader input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Interpolation {
    /// Perspective-correct (`linear`, the default for floats).
    #[default]
    Linear,
    /// Perspective-correct at the centroid of the covered samples; with one
    /// sample per pixel, the pixel centre.
    Centroid,
    /// Linear in screen space.
    NoPerspective,
    /// The first vertex's value (the default for integers).
    NoInterpolation,
}

/// Which threads of a compute group make a quad (the four lanes
/// `4q..4q + 4` of a wave).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum QuadLayout {
    /// Four consecutive `SV_GroupIndex` values, lanes in group-index order:
    /// before SM 6.6, and from SM 6.6 for `[numthreads(4k, 1, 1)]`.
    #[default]
    Linear,
    /// SM 6.6 with `numthreads` X and Y both even: each quad is a 2×2 block
    /// of `SV_GroupThreadID` (quad lane 0 at (x, y), 1 at (x + 1, y), 2 at
    /// (x, y + 1), 3 at (x + 1, y + 1)); the blocks fill the lanes in
    /// row-major order (x fastest, then y, then z).
    Blocks,
}

/// A system value read by the entry point: into a parameter, or into one
/// field of a struct parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryInput {
    /// Which system value is read.
    pub value: SystemValue,
    /// The parameter's index.
    pub param: u32,
    /// The first scalar component filled, among the parameter's flattened
    /// components.
    pub component: u32,
    /// How many components are filled (1 to 3).
    pub components: u32,
}

/// How a parameter passes its value between caller and callee.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamDirection {
    /// `in`: copied in at the call.
    In,
    /// `out`: copied back to the argument on return.
    Out,
    /// `inout`: copied in at the call and back on return.
    InOut,
}

/// A function: its parameters, locals and body.
#[derive(Clone, Debug)]
pub struct Function {
    /// The name in the source; overloads share it, and a member function `f` of
    /// struct `S` is `S.f`.
    pub name: String,
    /// Parameters are locals `0..params.len()`.
    pub params: Vec<ParamDirection>,
    /// Every local, parameters first.
    pub locals: Vec<Variable>,
    /// The return type; `None` for `void`.
    pub result: Option<TypeId>,
    /// The statements a call runs.
    pub body: Block,
    /// The function's declaration in the source.
    pub span: Span,
    /// Written in HLSL by the library of intrinsics (the prelude): what
    /// goes wrong inside is reported at the call.
    pub library: bool,
}

/// A sequence of statements.
#[derive(Clone, Debug, Default)]
pub struct Block {
    /// The statements, run in order.
    pub stmts: Vec<Stmt>,
}

impl Block {
    /// A block of `stmts`.
    pub fn new(stmts: Vec<Stmt>) -> Block {
        Block { stmts }
    }
}

/// One case of a [`Stmt::Switch`]: the values that select it, or the default.
#[derive(Clone, Debug)]
pub struct SwitchCase {
    /// Selector values (bit patterns of the selector's type, sign-extended
    /// to 64 bits for signed types).
    pub values: Vec<u64>,
    /// Whether a `default:` label selects this case (it may have values too).
    pub is_default: bool,
    /// A body that does not end in `Break` falls through into the next case.
    pub body: Block,
}

/// What a barrier call (`GroupMemoryBarrierWithGroupSync()` and the like)
/// orders, and whether the group waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct BarrierFlags {
    /// Orders `groupshared` memory (`GroupMemoryBarrier*`,
    /// `AllMemoryBarrier*`).
    pub group_memory: bool,
    /// Orders buffer and texture memory (`DeviceMemoryBarrier*`,
    /// `AllMemoryBarrier*`).
    pub device_memory: bool,
    /// `...WithGroupSync`: every thread of the group waits here.
    pub group_sync: bool,
    /// The call in the source.
    pub span: Span,
}

/// A statement, with structured control flow.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// Evaluated for its effects (assignments, calls, atomics).
    Expr(Expr),
    /// `if (cond) accept else reject`.
    If {
        /// A scalar `bool`.
        cond: Expr,
        /// Runs on the lanes where `cond` holds.
        accept: Block,
        /// Runs on the other lanes; empty when there is no `else`.
        reject: Block,
    },
    /// Runs `body`, then `continuing`, until every lane has left through
    /// `Break` or `Return`. `Continue` in `body` skips to `continuing`. A
    /// `Break` in `continuing` leaves the loop (how `do … while` and `for`
    /// conditions are written).
    Loop {
        /// The statements of one iteration.
        body: Block,
        /// Runs after the body and on `Continue`: a `for` loop's step, or the
        /// condition of `do … while`.
        continuing: Block,
        /// The loop in the source, named when it runs past the step budget.
        span: Span,
    },
    /// `selector` is a scalar integer. Lanes run the first case whose values
    /// contain the selector, else the default case, then fall through.
    Switch {
        /// The value the cases' values are compared with.
        selector: Expr,
        /// The cases in source order.
        cases: Vec<SwitchCase>,
    },
    /// Leaves the innermost `Loop` or `Switch`.
    Break,
    /// Goes to the innermost `Loop`'s `continuing`.
    Continue,
    /// Returns from the function, with a value unless its result is `void`.
    Return(Option<Expr>),
    /// A memory barrier, with or without a group sync.
    Barrier(BarrierFlags),
}

/// A storage location that can be read or written.
#[derive(Clone, Debug)]
pub struct Place {
    /// The variable or resource memory the place starts from.
    pub root: PlaceRoot,
    /// Projections applied left to right.
    pub path: Vec<Access>,
    /// The type of the location after the path.
    pub ty: TypeId,
}

/// Where a place's storage lives.
#[derive(Clone, Debug)]
pub enum PlaceRoot {
    /// A local variable or parameter of the current function.
    Local(LocalId),
    /// A `static` global: the thread's own copy.
    Static(StaticId),
    /// A `groupshared` variable: the thread group's copy.
    Groupshared(GroupsharedId),
    /// Element `index` of a structured or typed buffer (`buf[i]`).
    BufferElement {
        /// The structured or typed buffer.
        resource: ResourceId,
        /// The element index, a `uint`; out of bounds reads 0 and writes
        /// nothing.
        index: Box<Expr>,
    },
    /// A value of the place's type at byte `address` of a byte-address buffer
    /// (`Load<T>`, `Store<T>`, `Interlocked*`).
    ByteAddress {
        /// The byte-address buffer.
        resource: ResourceId,
        /// The byte offset, a `uint`; out of bounds reads 0 and writes nothing.
        address: Box<Expr>,
    },
    /// The whole constant buffer: its element struct.
    ConstantBuffer {
        /// The constant buffer.
        resource: ResourceId,
    },
    /// One texel of a texture (`tex[coord]`, `tex.Load(location)`): `coord`
    /// is a `uint` (1D), `uint2` (2D) or `uint3` (2D array: x, y, slice;
    /// 3D: x, y, z). Each coordinate is checked against the texture's size
    /// on its own: out of range reads 0 and writes nothing. `level` is the
    /// mip level (a `uint`) where the access names one; a level other than
    /// 0 reads 0, since textures have one level.
    Texel {
        /// The texture.
        resource: ResourceId,
        /// The texel's `uint`, `uint2` or `uint3` coordinate.
        coord: Box<Expr>,
        /// The `uint` mip level, when the access names one.
        level: Option<Box<Expr>>,
    },
}

/// A step from a place or value into one of its parts.
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
    /// The type the bits encode.
    pub ty: ScalarType,
    /// The bits, zero-extended: an `int` `-1` is `0xFFFF_FFFF`.
    pub bits: u64,
}

/// A typed expression.
#[derive(Clone, Debug)]
pub struct Expr {
    /// What the expression computes, with its operands.
    pub kind: ExprKind,
    /// The type of the value; `void` for a call of a function without a result.
    pub ty: TypeId,
    /// The source construct the expression comes from.
    pub span: Span,
}

/// A component-wise unary operator; the result has the operand's type.
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
    /// `a + b` (wrapping for integers).
    Add,
    /// `a - b` (wrapping for integers).
    Sub,
    /// `a * b`, component by component (wrapping for integers).
    Mul,
    /// `a / b`; an integer division by zero gives all ones.
    Div,
    /// `a % b`, with the sign of `a`; an integer remainder by zero gives all
    /// ones.
    Rem,
    /// `a << b`
    Shl,
    /// `a >> b`: arithmetic for signed types, logical for unsigned ones.
    Shr,
    /// `a & b` on integers.
    BitAnd,
    /// `a | b` on integers.
    BitOr,
    /// `a ^ b` on integers.
    BitXor,
    /// Non-short-circuit logical and/or of bools (vectors, HLSL 2021 `and`/`or`).
    And,
    /// Non-short-circuit logical or of bools, as `And`.
    Or,
    /// `a == b`
    Eq,
    /// `a != b`
    Ne,
    /// `a < b`
    Lt,
    /// `a <= b`
    Le,
    /// `a > b`
    Gt,
    /// `a >= b`
    Ge,
}

/// Math and bit built-ins. Arguments are converted to the overload's types by
/// sema; component-wise unless noted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `abs(x)`; wrapping for integers, so `abs` of the lowest `int` is itself.
    Abs,
    /// `min(a, b)`; for floats minNum, so a NaN loses to a number.
    Min,
    /// `max(a, b)`; for floats maxNum, so a NaN loses to a number.
    Max,
    /// `clamp(x, lo, hi)`: `min(max(x, lo), hi)`.
    Clamp,
    /// `saturate(x)`: `clamp(x, 0, 1)`, so NaN gives 0.
    Saturate,
    /// Result is an `int` of the argument's shape.
    Sign,
    /// `floor(x)`: rounds toward negative infinity.
    Floor,
    /// `ceil(x)`: rounds toward positive infinity.
    Ceil,
    /// `round(x)`: to the nearest integer, ties to even.
    Round,
    /// `trunc(x)`: rounds toward zero.
    Trunc,
    /// `frac(x)`: `x - floor(x)`.
    Frac,
    /// `fmod(x, y)`: the remainder of `x / y`, with the sign of `x`.
    Fmod,
    /// `sqrt(x)`
    Sqrt,
    /// `rsqrt(x)`: `1 / sqrt(x)`.
    Rsqrt,
    /// `rcp(x)`: `1 / x`.
    Rcp,
    /// `exp(x)`: e raised to `x`.
    Exp,
    /// `exp2(x)`: 2 raised to `x`.
    Exp2,
    /// `log(x)`: the natural logarithm.
    Log,
    /// `log2(x)`
    Log2,
    /// `log10(x)`
    Log10,
    /// `pow(x, y)`: `exp2(y * log2(x))`, so a negative `x` gives NaN.
    Pow,
    /// `sin(x)`, in radians.
    Sin,
    /// `cos(x)`, in radians.
    Cos,
    /// `tan(x)`, in radians.
    Tan,
    /// `asin(x)`, in radians.
    Asin,
    /// `acos(x)`, in radians.
    Acos,
    /// `atan(x)`, in radians.
    Atan,
    /// `atan2(y, x)`: the angle of the point `(x, y)`, in `[-pi, pi]`.
    Atan2,
    /// `sinh(x)`
    Sinh,
    /// `cosh(x)`
    Cosh,
    /// `tanh(x)`
    Tanh,
    /// `lerp(a, b, t)`: `a + t * (b - a)`.
    Lerp,
    /// `step(y, x)`: 1 where `x >= y`, else 0.
    Step,
    /// `smoothstep(lo, hi, x)`: the Hermite curve from 0 at `lo` to 1 at `hi`.
    SmoothStep,
    /// `mad(a, b, c)`: `a * b + c`, rounded twice for floats.
    Mad,
    /// `fma(a, b, c)`: `a * b + c`, rounded once (`double` only).
    Fma,
    /// Vector · vector → scalar.
    Dot,
    /// float3 × float3.
    Cross,
    /// Vector → scalar.
    Length,
    /// Vector, vector → scalar.
    Distance,
    /// `normalize(v)`: `v` divided by its length.
    Normalize,
    /// Any shape → bool scalar.
    All,
    /// `any(x)`: whether any component is nonzero.
    Any,
    /// Integers → uint of the same shape.
    CountBits,
    /// `firstbithigh(x)`: the index of the highest set bit (of a negative
    /// signed value, the highest clear bit); `0xFFFFFFFF` when there is none.
    FirstBitHigh,
    /// `firstbitlow(x)`: the index of the lowest set bit; `0xFFFFFFFF` when
    /// there is none.
    FirstBitLow,
    /// `reversebits(x)`: the bits in reverse order.
    ReverseBits,
    /// float → uint.
    F32ToF16,
    /// uint → float.
    F16ToF32,
    /// `isnan(x)`: bools of `x`'s shape.
    IsNan,
    /// `isinf(x)`: true for either infinity.
    IsInf,
    /// `isfinite(x)`: neither NaN nor infinite.
    IsFinite,
    /// `mul(a, b)` for every scalar/vector/matrix combination.
    Mul,
    /// `transpose(m)`: the matrix with rows and columns swapped.
    Transpose,
    /// `asdouble(lo, hi)`: two uints → double.
    AsDouble,
}

/// Wave and quad intrinsics. Operands are fully typed; results as the spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaveOp {
    /// `WaveIsFirstLane()`: whether the lane is the active lane with the
    /// smallest index.
    IsFirstLane,
    /// `WaveGetLaneCount()`: the wave size.
    GetLaneCount,
    /// `WaveGetLaneIndex()`: the lane's index in its wave.
    GetLaneIndex,
    /// `WaveActiveAnyTrue(b)`: whether `b` is true on any active lane.
    AnyTrue,
    /// `WaveActiveAllTrue(b)`: whether `b` is true on every active lane.
    AllTrue,
    /// `WaveActiveBallot(b)`: a `uint4` with bit `i` set where lane `i` is
    /// active and `b` is true on it.
    Ballot,
    /// `WaveReadLaneFirst(x)`: `x` on the first active lane.
    ReadLaneFirst,
    /// `WaveReadLaneAt(x, lane)`: `x` on lane `lane`, taken modulo the wave
    /// size.
    ReadLaneAt,
    /// `WaveActiveAllEqual(x)`: per component, whether every active lane has
    /// the first active lane's value.
    AllEqual,
    /// `WaveActiveCountBits(b)`: the number of active lanes where `b` is true.
    CountBits,
    /// `WaveActiveSum(x)`: the sum over the active lanes.
    Sum,
    /// `WaveActiveProduct(x)`: the product over the active lanes.
    Product,
    /// `WaveActiveBitAnd(x)`: the AND over the active lanes.
    BitAnd,
    /// `WaveActiveBitOr(x)`: the OR over the active lanes.
    BitOr,
    /// `WaveActiveBitXor(x)`: the XOR over the active lanes.
    BitXor,
    /// `WaveActiveMin(x)`: the minimum over the active lanes (floats: minNum).
    Min,
    /// `WaveActiveMax(x)`: the maximum over the active lanes (floats: maxNum).
    Max,
    /// `WavePrefixCountBits(b)`: the number of active lanes below this one
    /// where `b` is true.
    PrefixCountBits,
    /// `WavePrefixSum(x)`: the sum over the active lanes below this one; 0 on
    /// the first.
    PrefixSum,
    /// `WavePrefixProduct(x)`: the product over the active lanes below this
    /// one; 1 on the first.
    PrefixProduct,
    /// `WaveMatch(x)`: a `uint4` mask of the active lanes whose `x` is the same
    /// as this lane's.
    Match,
    /// `WaveMultiPrefixSum(x, mask)`: the sum over the active lanes below this
    /// one in the `uint4` partition `mask`.
    MultiPrefixSum,
    /// `WaveMultiPrefixProduct(x, mask)`: the product over the active lanes
    /// below this one in the partition `mask`.
    MultiPrefixProduct,
    /// `WaveMultiPrefixCountBits(b, mask)`: the number of active lanes below
    /// this one in the partition `mask` where `b` is true.
    MultiPrefixCountBits,
    /// `WaveMultiPrefixBitAnd(x, mask)` (or `WaveMultiPrefixAnd`): the AND over
    /// the active lanes below this one in the partition `mask`.
    MultiPrefixBitAnd,
    /// `WaveMultiPrefixBitOr(x, mask)` (or `WaveMultiPrefixOr`): the OR over
    /// the active lanes below this one in the partition `mask`.
    MultiPrefixBitOr,
    /// `WaveMultiPrefixBitXor(x, mask)` (or `WaveMultiPrefixXor`): the XOR over
    /// the active lanes below this one in the partition `mask`.
    MultiPrefixBitXor,
    /// `QuadReadAcrossX(x)`: `x` on the horizontally adjacent lane of the quad.
    QuadReadAcrossX,
    /// `QuadReadAcrossY(x)`: `x` on the vertically adjacent lane of the quad.
    QuadReadAcrossY,
    /// `QuadReadAcrossDiagonal(x)`: `x` on the diagonally opposite lane of the
    /// quad.
    QuadReadAcrossDiagonal,
    /// `QuadReadLaneAt(x, i)`: `x` on lane `i & 3` of the quad.
    QuadReadLaneAt,
    /// `QuadAny(b)`: whether `b` is true on any active lane of the quad.
    QuadAny,
    /// `QuadAll(b)`: whether `b` is true on every active lane of the quad.
    QuadAll,
    /// `GetGroupWaveIndex()`: the wave's index within its group.
    GroupWaveIndex,
    /// `GetGroupWaveCount()`: waves in the group (folded to a constant by
    /// the checker under `[numWaves]`).
    GroupWaveCount,
}

/// The read-modify-write of an `Interlocked*` call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// `InterlockedAdd`: adds `args[0]`, wrapping.
    Add,
    /// Signed or unsigned from the place's scalar type.
    Min,
    /// Signed or unsigned, as `Min`.
    Max,
    /// `InterlockedAnd`: ANDs in `args[0]`.
    And,
    /// `InterlockedOr`: ORs in `args[0]`.
    Or,
    /// `InterlockedXor`: XORs in `args[0]`.
    Xor,
    /// `InterlockedExchange`: stores `args[0]`.
    Exchange,
    /// `args = [compare, value]`.
    CompareExchange,
    /// `args = [compare, value]`; no result (`ty` is the place's type,
    /// value unused).
    CompareStore,
}

/// One of the sizes `GetDimensions` reports.
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

/// An argument of a user function call, by its parameter's direction.
#[derive(Clone, Debug)]
pub enum CallArg {
    /// The value passed to an `in` parameter.
    In(Expr),
    /// Copied out after the call.
    Out(Place),
    /// Copied in before and out after the call.
    InOut(Place),
}

/// What an expression computes.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A constant: one scalar per component of `ty`, in flattening order.
    Const(Vec<Scalar>),
    /// The value stored at a place.
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
    /// A component-wise unary operator applied to its operand.
    Unary(UnaryOp, Box<Expr>),
    /// A component-wise binary operator applied to two operands of one type.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// Scalar `&&` / `||` that short-circuit: `rhs` runs only on the lanes
    /// that need it.
    LogicalAnd(Box<Expr>, Box<Expr>),
    /// Scalar `||` that short-circuits, as `LogicalAnd`.
    LogicalOr(Box<Expr>, Box<Expr>),
    /// Scalar-condition `c ? a : b`: each side runs only on its lanes.
    Conditional {
        /// A scalar `bool`.
        cond: Box<Expr>,
        /// The value on the lanes where `cond` holds.
        accept: Box<Expr>,
        /// The value on the other lanes.
        reject: Box<Expr>,
    },
    /// Component-wise `select(c, a, b)` (vector `?:`): both sides evaluated.
    Select {
        /// `bool`s of the result's shape.
        cond: Box<Expr>,
        /// Gives the components where `cond` is true.
        accept: Box<Expr>,
        /// Gives the components where `cond` is false.
        reject: Box<Expr>,
    },
    /// Numeric conversion of each component to `ty`'s scalar type; same shape.
    Convert(Box<Expr>),
    /// Reinterprets the bits of each component (`asuint`, `asfloat`, …);
    /// same shape and width.
    Bitcast(Box<Expr>),
    /// A math or bit built-in applied to its arguments.
    Builtin(Builtin, Vec<Expr>),
    /// A wave or quad intrinsic applied to its arguments.
    Wave(WaveOp, Vec<Expr>),
    /// A call of a user function; its value is the function's result.
    Call {
        /// The function called.
        function: FunctionId,
        /// One argument per parameter, in order.
        args: Vec<CallArg>,
    },
    /// Stores `value` into `place`; the expression's value is the new value,
    /// or the old one when `yield_old` (post-increment). `init` marks the
    /// initializer of a local variable's declaration: a lane that does not
    /// run it cannot read the variable before running it itself (each run
    /// of the declaration starts the variable's life), so its value on the
    /// lanes that do not run it does not matter.
    Assign {
        /// Where the value is stored.
        place: Place,
        /// The value stored, of the place's type.
        value: Box<Expr>,
        /// Whether the expression's value is the place's old value (`i++`)
        /// rather than the new one.
        yield_old: bool,
        /// Whether this is the initializer of a local variable's declaration.
        init: bool,
    },
    /// An atomic read-modify-write on a 32- or 64-bit integer in a buffer or
    /// groupshared memory; yields the original value.
    Atomic {
        /// The read-modify-write to apply.
        op: AtomicOp,
        /// The integer in a buffer or `groupshared` memory that is updated.
        place: Place,
        /// The operands: `[value]`, or `[compare, value]` for the compare
        /// operations.
        args: Vec<Expr>,
    },
    /// A size of a resource, for `GetDimensions`; a `uint`.
    ResourceQuery {
        /// The resource asked about.
        resource: ResourceId,
        /// Which size.
        query: ResourceQuery,
    },
    /// Evaluates `first` for its effects, then yields `second`.
    Sequence(Box<Expr>, Box<Expr>),
}
