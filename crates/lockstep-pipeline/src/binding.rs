//! Resource kinds and the flattened descriptor-set bindings of a pipeline.

use std::fmt;
use std::str::FromStr;

use crate::error::PipelineError;
use crate::named::{self, Named};

/// The HLSL resource type a buffer is bound as.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `StructuredBuffer<T>`: read-only elements of a type.
    StructuredBuffer,
    /// `RWStructuredBuffer<T>`: read-write elements of a type.
    RwStructuredBuffer,
    /// `Buffer<T>`: read-only typed elements.
    Buffer,
    /// `RWBuffer<T>`: read-write typed elements.
    RwBuffer,
    /// `ByteAddressBuffer`: read-only bytes addressed by offset.
    ByteAddressBuffer,
    /// `RWByteAddressBuffer`: read-write bytes addressed by offset.
    RwByteAddressBuffer,
    /// Also spelled `CBuffer`.
    ConstantBuffer,
    /// Textures: the buffer's `OutputProps` give their size in texels.
    Texture1D,
    /// `Texture1DArray<T>`: read-only slices of 1D texels (`Depth` slices).
    Texture1DArray,
    /// `Texture2D<T>`: a read-only 2D texture.
    Texture2D,
    /// `Texture2DArray<T>`: read-only slices of 2D texels.
    Texture2DArray,
    /// `Texture3D<T>`: a read-only 3D texture.
    Texture3D,
    /// `TextureCube<T>`: six square faces, `Depth` 6 (+X, -X, +Y, -Y,
    /// +Z, -Z).
    TextureCube,
    /// `TextureCubeArray<T>`: cubes of six faces, `Depth` a multiple of 6.
    TextureCubeArray,
    /// `RWTexture1D<T>`: a read-write 1D texture.
    RwTexture1D,
    /// `RWTexture1DArray<T>`: read-write slices of 1D texels.
    RwTexture1DArray,
    /// `RWTexture2D<T>`: a read-write 2D texture.
    RwTexture2D,
    /// `RWTexture2DArray<T>`: read-write slices of 2D texels.
    RwTexture2DArray,
    /// `RWTexture3D<T>`: a read-write 3D texture.
    RwTexture3D,
    /// `SamplerState`: its name is one of `Samplers`, not a buffer.
    Sampler,
}

impl Kind {
    /// Every kind, in declaration order.
    pub const ALL: [Kind; 20] = [
        Kind::StructuredBuffer,
        Kind::RwStructuredBuffer,
        Kind::Buffer,
        Kind::RwBuffer,
        Kind::ByteAddressBuffer,
        Kind::RwByteAddressBuffer,
        Kind::ConstantBuffer,
        Kind::Texture1D,
        Kind::Texture1DArray,
        Kind::Texture2D,
        Kind::Texture2DArray,
        Kind::Texture3D,
        Kind::TextureCube,
        Kind::TextureCubeArray,
        Kind::RwTexture1D,
        Kind::RwTexture1DArray,
        Kind::RwTexture2D,
        Kind::RwTexture2DArray,
        Kind::RwTexture3D,
        Kind::Sampler,
    ];

    /// The name used in pipeline files.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::StructuredBuffer => "StructuredBuffer",
            Kind::RwStructuredBuffer => "RWStructuredBuffer",
            Kind::Buffer => "Buffer",
            Kind::RwBuffer => "RWBuffer",
            Kind::ByteAddressBuffer => "ByteAddressBuffer",
            Kind::RwByteAddressBuffer => "RWByteAddressBuffer",
            Kind::ConstantBuffer => "ConstantBuffer",
            Kind::Texture1D => "Texture1D",
            Kind::Texture1DArray => "Texture1DArray",
            Kind::Texture2D => "Texture2D",
            Kind::Texture2DArray => "Texture2DArray",
            Kind::Texture3D => "Texture3D",
            Kind::TextureCube => "TextureCube",
            Kind::TextureCubeArray => "TextureCubeArray",
            Kind::RwTexture1D => "RWTexture1D",
            Kind::RwTexture1DArray => "RWTexture1DArray",
            Kind::RwTexture2D => "RWTexture2D",
            Kind::RwTexture2DArray => "RWTexture2DArray",
            Kind::RwTexture3D => "RWTexture3D",
            Kind::Sampler => "Sampler",
        }
    }

    /// Whether shaders may write the resource (a UAV).
    pub const fn is_writable(self) -> bool {
        matches!(
            self,
            Kind::RwStructuredBuffer
                | Kind::RwBuffer
                | Kind::RwByteAddressBuffer
                | Kind::RwTexture1D
                | Kind::RwTexture1DArray
                | Kind::RwTexture2D
                | Kind::RwTexture2DArray
                | Kind::RwTexture3D
        )
    }

    /// Whether the resource is a texture (its buffer needs `OutputProps`).
    pub const fn is_texture(self) -> bool {
        matches!(
            self,
            Kind::Texture1D
                | Kind::Texture1DArray
                | Kind::Texture2D
                | Kind::Texture2DArray
                | Kind::Texture3D
                | Kind::TextureCube
                | Kind::TextureCubeArray
                | Kind::RwTexture1D
                | Kind::RwTexture1DArray
                | Kind::RwTexture2D
                | Kind::RwTexture2DArray
                | Kind::RwTexture3D
        )
    }

    /// The D3D register class: `t` (SRV), `u` (UAV), `b` (CBV) or `s`
    /// (sampler).
    pub const fn register_class(self) -> char {
        match self {
            Kind::ConstantBuffer => 'b',
            Kind::Sampler => 's',
            _ if self.is_writable() => 'u',
            _ => 't',
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Kind {
    type Err = PipelineError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        named::lookup(text).map_err(PipelineError::new)
    }
}

impl Named for Kind {
    const WHAT: &'static str = "resource kind";
    const ALL: &'static [Self] = &Kind::ALL;
    /// Append and consume buffers are read-write structured buffers with a
    /// counter.
    const ALIASES: &'static [(&'static str, Self)] = &[
        ("CBuffer", Kind::ConstantBuffer),
        ("AppendStructuredBuffer", Kind::RwStructuredBuffer),
        ("ConsumeStructuredBuffer", Kind::RwStructuredBuffer),
        ("SamplerState", Kind::Sampler),
        ("SamplerComparisonState", Kind::Sampler),
    ];

    fn name(self) -> &'static str {
        Kind::name(self)
    }
}

/// One resource of a descriptor set, bound to a buffer (or a sampler).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The bound buffer's name (a key of `Pipeline::buffers`), or for a
    /// `Sampler`, the sampler's (a key of `Pipeline::samplers`).
    pub name: String,
    /// The HLSL resource type the buffer is bound as.
    pub kind: Kind,
    /// The D3D register number, in the class given by `kind`.
    pub register: u32,
    /// The D3D register space.
    pub space: u32,
    /// The index of the descriptor set the resource was listed in.
    pub set: usize,
    /// The Vulkan binding number, when given.
    pub vulkan_binding: Option<u32>,
}

impl Binding {
    /// The register as HLSL spells it, e.g. `u1, space0`.
    pub fn register_name(&self) -> String {
        format!(
            "{}{}, space{}",
            self.kind.register_class(),
            self.register,
            self.space
        )
    }
}
