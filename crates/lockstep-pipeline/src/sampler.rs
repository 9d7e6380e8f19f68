//! The entries of `Samplers`: the state of each sampler a descriptor set
//! binds (`Kind: Sampler`).

use crate::error::{Location, PipelineError};
use crate::named::Named;
use crate::read::{self, Fields, Path};
use crate::yaml::Node;

const SAMPLER_KEYS: &[&str] = &[
    "Name",
    "Filter",
    "MinFilter",
    "MagFilter",
    "MipFilter",
    "Address",
    "AddressU",
    "AddressV",
    "AddressW",
    "BorderColor",
    "MipLODBias",
    "MinLOD",
    "MaxLOD",
    "ComparisonFunc",
];

/// A sampler's state. Unless given: linear filters, clamped addresses, a
/// transparent black border, no LOD bias, the LOD range 0 to 1000 and the
/// comparison `LessEqual`.
#[derive(Clone, Debug, PartialEq)]
pub struct SamplerDesc {
    /// The name descriptor sets bind it by.
    pub name: String,
    /// `MinFilter`: the filter where the level of detail is above 0.
    pub min_filter: Filter,
    /// `MagFilter`: the filter at a level of detail of 0 and below.
    pub mag_filter: Filter,
    /// `MipFilter`: between mip levels, the nearest level or a blend of
    /// the two around the level of detail.
    pub mip_filter: Filter,
    /// `AddressU`, `AddressV`, `AddressW` (`Address` sets all three).
    pub address: [Address; 3],
    /// `BorderColor`: `[r, g, b, a]`, read where the address mode is
    /// `Border`.
    pub border: [f32; 4],
    /// `MipLODBias`: added to the level of detail of `Sample`, `SampleBias`
    /// and `SampleGrad`.
    pub mip_lod_bias: f32,
    /// `MinLOD`: the lowest level of detail.
    pub min_lod: f32,
    /// `MaxLOD`: the highest level of detail.
    pub max_lod: f32,
    /// `ComparisonFunc`: how `SampleCmp` and `GatherCmp` compare their
    /// reference value with each texel (reference OP texel).
    pub comparison: Comparison,
}

/// How a comparison sampler compares the reference value with a texel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// Never passes.
    Never,
    /// reference < texel.
    Less,
    /// reference == texel.
    Equal,
    /// reference <= texel (the default).
    LessEqual,
    /// reference > texel.
    Greater,
    /// reference != texel.
    NotEqual,
    /// reference >= texel.
    GreaterEqual,
    /// Always passes.
    Always,
}

impl Comparison {
    /// The code the engine's sampling reads: D3D's `D3D12_COMPARISON_FUNC`
    /// less one (0 never … 7 always).
    pub fn code(self) -> u32 {
        self as u32
    }
}

impl Named for Comparison {
    const WHAT: &'static str = "comparison function";
    const ALL: &'static [Self] = &[
        Comparison::Never,
        Comparison::Less,
        Comparison::Equal,
        Comparison::LessEqual,
        Comparison::Greater,
        Comparison::NotEqual,
        Comparison::GreaterEqual,
        Comparison::Always,
    ];
    const ALIASES: &'static [(&'static str, Self)] = &[
        ("LessOrEqual", Comparison::LessEqual),
        ("GreaterOrEqual", Comparison::GreaterEqual),
    ];

    fn name(self) -> &'static str {
        match self {
            Comparison::Never => "Never",
            Comparison::Less => "Less",
            Comparison::Equal => "Equal",
            Comparison::LessEqual => "LessEqual",
            Comparison::Greater => "Greater",
            Comparison::NotEqual => "NotEqual",
            Comparison::GreaterEqual => "GreaterEqual",
            Comparison::Always => "Always",
        }
    }
}

/// How texels are combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    /// The nearest texel (`Nearest`, also `Point`).
    Nearest,
    /// The four nearest texels weighed by distance.
    Linear,
}

impl Named for Filter {
    const WHAT: &'static str = "filter";
    const ALL: &'static [Self] = &[Filter::Nearest, Filter::Linear];
    const ALIASES: &'static [(&'static str, Self)] = &[("Point", Filter::Nearest)];

    fn name(self) -> &'static str {
        match self {
            Filter::Nearest => "Nearest",
            Filter::Linear => "Linear",
        }
    }
}

/// What a texel coordinate outside the texture reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Address {
    /// The coordinate modulo the size (`Wrap`, also `Repeat`).
    Wrap,
    /// The texture mirrored at every edge (`Mirror`, also
    /// `MirroredRepeat`).
    Mirror,
    /// The nearest edge texel (`Clamp`, also `ClampToEdge`).
    Clamp,
    /// The border color (`Border`, also `ClampToBorder`).
    Border,
    /// Mirrored once about 0, then clamped.
    MirrorOnce,
}

impl Address {
    /// The code the engine's sampling reads: 1 wrap, 2 mirror, 3 clamp, 4
    /// border, 5 mirror once.
    pub fn code(self) -> u32 {
        match self {
            Address::Wrap => 1,
            Address::Mirror => 2,
            Address::Clamp => 3,
            Address::Border => 4,
            Address::MirrorOnce => 5,
        }
    }
}

impl Named for Address {
    const WHAT: &'static str = "address mode";
    const ALL: &'static [Self] = &[
        Address::Wrap,
        Address::Mirror,
        Address::Clamp,
        Address::Border,
        Address::MirrorOnce,
    ];
    const ALIASES: &'static [(&'static str, Self)] = &[
        ("Repeat", Address::Wrap),
        ("MirroredRepeat", Address::Mirror),
        ("ClampToEdge", Address::Clamp),
        ("ClampToBorder", Address::Border),
        ("MirrorClampToEdge", Address::MirrorOnce),
    ];

    fn name(self) -> &'static str {
        match self {
            Address::Wrap => "Wrap",
            Address::Mirror => "Mirror",
            Address::Clamp => "Clamp",
            Address::Border => "Border",
            Address::MirrorOnce => "MirrorOnce",
        }
    }
}

/// Reads one entry of `Samplers`, with the location of its mapping.
pub(crate) fn sampler(
    node: &Node<'_>,
    path: &Path,
) -> Result<(SamplerDesc, Location), PipelineError> {
    let fields = Fields::new(node, path.clone(), SAMPLER_KEYS)?;
    let name = fields
        .read("Name", read::string)?
        .ok_or_else(|| path.error(fields.at, "sampler without a Name"))?;
    let filter = fields.read("Filter", read::name::<Filter>)?;
    let filter_of = |key: &str| -> Result<Filter, PipelineError> {
        Ok(fields
            .read(key, read::name::<Filter>)?
            .or(filter)
            .unwrap_or(Filter::Linear))
    };
    let address = fields.read("Address", read::name::<Address>)?;
    let address_of = |key: &str| -> Result<Address, PipelineError> {
        Ok(fields
            .read(key, read::name::<Address>)?
            .or(address)
            .unwrap_or(Address::Clamp))
    };
    let float = |key: &str, default: f32| -> Result<f32, PipelineError> {
        Ok(fields.read(key, read::float)?.map_or(default, |v| v as f32))
    };
    let border = match fields.get_with_path("BorderColor") {
        Some((node, path)) => {
            let items = read::items(node, &path)?;
            if items.len() != 4 {
                return Err(path.error(
                    node.at,
                    format!(
                        "BorderColor needs 4 values (r, g, b, a), found {}",
                        items.len()
                    ),
                ));
            }
            let mut border = [0.0; 4];
            for (slot, (node, path)) in border.iter_mut().zip(&items) {
                *slot = read::float(node, path)? as f32;
            }
            border
        }
        None => [0.0; 4],
    };
    let desc = SamplerDesc {
        min_filter: filter_of("MinFilter")?,
        mag_filter: filter_of("MagFilter")?,
        mip_filter: filter_of("MipFilter")?,
        address: [
            address_of("AddressU")?,
            address_of("AddressV")?,
            address_of("AddressW")?,
        ],
        border,
        mip_lod_bias: float("MipLODBias", 0.0)?,
        min_lod: float("MinLOD", 0.0)?,
        max_lod: float("MaxLOD", 1000.0)?,
        comparison: fields
            .read("ComparisonFunc", read::name::<Comparison>)?
            .unwrap_or(Comparison::LessEqual),
        name,
    };
    for (field, value) in [
        ("MipLODBias", desc.mip_lod_bias),
        ("MinLOD", desc.min_lod),
        ("MaxLOD", desc.max_lod),
    ] {
        if value.is_nan() {
            return Err(path.error(
                fields.at,
                format!("sampler `{}`: {field} is NaN", desc.name),
            ));
        }
    }
    // D3D12_MIP_LOD_BIAS_MIN and _MAX.
    if !(-16.0..=15.99).contains(&desc.mip_lod_bias) {
        return Err(path.error(
            fields.at,
            format!(
                "sampler `{}`: MipLODBias {} is outside -16 to 15.99",
                desc.name, desc.mip_lod_bias
            ),
        ));
    }
    if desc.min_lod > desc.max_lod {
        return Err(path.error(
            fields.at,
            format!(
                "sampler `{}`: MinLOD {} is above MaxLOD {}",
                desc.name, desc.min_lod, desc.max_lod
            ),
        ));
    }
    Ok((desc, fields.at))
}
