//! Graphics pipelines: the vertex and pixel shaders of `Shaders`, the
//! top-level `Bindings` (vertex buffer, vertex attributes, render target,
//! topology) and `DispatchParameters: VertexCount`.

use crate::BufferDesc;
use crate::error::PipelineError;
use crate::format::Format;
use crate::named::Named;
use crate::read::{self, Fields, Path};
use crate::yaml::Node;

const BINDINGS_KEYS: &[&str] = &[
    "VertexBuffer",
    "VertexAttributes",
    "RenderTarget",
    "DepthTarget",
    "Topology",
];
const ATTRIBUTE_KEYS: &[&str] = &["Format", "Channels", "Offset", "Name"];

/// What a graphics pipeline draws with.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphicsDesc {
    /// The vertex shader's entry point, when given.
    pub vertex_entry: Option<String>,
    /// The pixel shader's entry point, when given.
    pub pixel_entry: Option<String>,
    /// The buffer holding the vertices (`Bindings: VertexBuffer`); none
    /// where the vertex shader takes only system values (`SV_VertexID`),
    /// and `DispatchParameters: VertexCount` says how many.
    pub vertex_buffer: Option<String>,
    /// Each vertex's attributes, in file order.
    pub attributes: Vec<VertexAttribute>,
    /// The buffer the pixel shader writes (`Bindings: RenderTarget`); its
    /// `OutputProps` give the target's size.
    pub render_target: String,
    /// The buffer of the depth target (`Bindings: DepthTarget`, a Lockstep
    /// extension): one Float32 per pixel of the render target, cleared to
    /// 1.0 and tested LESS.
    pub depth_target: Option<String>,
    /// How vertices make triangles.
    pub topology: Topology,
    /// How many vertices are drawn: `DispatchParameters: VertexCount`, or
    /// the vertex buffer's bytes divided by one vertex's.
    pub vertex_count: u32,
}

/// One vertex attribute (`VertexAttributes` entry).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexAttribute {
    /// The semantic the vertex shader reads it by (`POSITION`, `COLOR`).
    pub name: String,
    /// The element format.
    pub format: Format,
    /// Components (1 to 4).
    pub channels: u32,
    /// Bytes from the start of the vertex.
    pub offset: u32,
}

impl GraphicsDesc {
    /// Bytes from one vertex to the next: where the attribute that ends
    /// last ends.
    pub fn stride(&self) -> u32 {
        self.attributes
            .iter()
            .map(|a| a.offset + a.size())
            .max()
            .unwrap_or(0)
    }
}

impl VertexAttribute {
    /// Bytes the attribute takes.
    pub fn size(&self) -> u32 {
        self.format.size() as u32 * self.channels
    }
}

/// How vertices make triangles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    /// Each three vertices make a triangle.
    TriangleList,
    /// Each vertex after the second makes a triangle with the two before.
    TriangleStrip,
}

impl Named for Topology {
    const WHAT: &'static str = "topology";
    const ALL: &'static [Self] = &[Topology::TriangleList, Topology::TriangleStrip];

    fn name(self) -> &'static str {
        match self {
            Topology::TriangleList => "TriangleList",
            Topology::TriangleStrip => "TriangleStrip",
        }
    }
}

/// Reads `Bindings`, checked against the buffers; `entries` are the vertex
/// and pixel shaders' entry points, `vertex_count` the one given.
pub(crate) fn graphics(
    node: &Node<'_>,
    path: &Path,
    buffers: &[BufferDesc],
    entries: (Option<String>, Option<String>),
    vertex_count: Option<(u32, crate::Location)>,
) -> Result<GraphicsDesc, PipelineError> {
    let fields = Fields::new(node, path.clone(), BINDINGS_KEYS)?;
    let buffer = |key: &str| -> Result<&BufferDesc, PipelineError> {
        let node = fields.require(key)?;
        let name = read::string(node, &fields.path.key(key))?;
        buffers.iter().find(|b| b.name == name).ok_or_else(|| {
            let names: Vec<&str> = buffers.iter().map(|b| b.name.as_str()).collect();
            let hint = read::suggestion(&name, &names)
                .map(|c| format!("; did you mean `{c}`?"))
                .unwrap_or_default();
            fields
                .path
                .key(key)
                .error(node.at, format!("no buffer named `{name}`{hint}"))
        })
    };
    let vertices = match fields.get("VertexBuffer") {
        Some(_) => Some(buffer("VertexBuffer")?),
        None => None,
    };
    let target = buffer("RenderTarget")?;
    if target.output_props.is_none() {
        let at = fields.require("RenderTarget")?.at;
        return Err(fields.path.key("RenderTarget").error(
            at,
            format!(
                "render target `{}` has no OutputProps giving its Width and Height",
                target.name
            ),
        ));
    }
    let depth_target = match fields.get("DepthTarget") {
        None => None,
        Some(_) => {
            let depth = buffer("DepthTarget")?;
            let at = fields.require("DepthTarget")?.at;
            let size = |b: &BufferDesc| b.output_props.map(|p| (p.width, p.height));
            if depth.format != Format::Float32 || depth.channels != 1 || size(depth) != size(target)
            {
                let (w, h) = size(target).unwrap_or((0, 0));
                return Err(fields.path.key("DepthTarget").error(
                    at,
                    format!(
                        "depth target `{}` must be Float32 with one channel and OutputProps {{ Width: {w}, Height: {h} }}, as the render target",
                        depth.name
                    ),
                ));
            }
            Some(depth.name.clone())
        }
    };
    let mut attributes = Vec::new();
    if let Some((node, path)) = fields.get_with_path("VertexAttributes") {
        for (node, path) in read::items(node, &path)? {
            let a = Fields::new(&node, path, ATTRIBUTE_KEYS)?;
            let name = a.read("Name", read::string)?.ok_or_else(|| {
                a.path
                    .error(a.at, "vertex attribute without a Name (its semantic)")
            })?;
            let format: Format = a.read("Format", read::name)?.ok_or_else(|| {
                a.path
                    .error(a.at, format!("vertex attribute `{name}` has no Format"))
            })?;
            let channels = a.read("Channels", read::uint32)?.unwrap_or(1);
            if !(1..=4).contains(&channels) {
                return Err(a
                    .path
                    .error(a.at, format!("Channels {channels} is not within 1 to 4")));
            }
            let offset = a.read("Offset", read::uint32)?.unwrap_or(0);
            attributes.push(VertexAttribute {
                name,
                format,
                channels,
                offset,
            });
        }
    }
    let vertex_count = match vertices {
        // No vertex buffer: the vertex shader makes its vertices from
        // `SV_VertexID`, as many as `VertexCount` says.
        None => {
            if !attributes.is_empty() {
                return Err(path.error(
                    fields.at,
                    "VertexAttributes without a VertexBuffer to read them from",
                ));
            }
            let Some((count, _)) = vertex_count else {
                return Err(path.error(
                    fields.at,
                    "a graphics pipeline without a VertexBuffer needs DispatchParameters: { VertexCount: N }",
                ));
            };
            count
        }
        Some(vertices) => {
            if attributes.is_empty() {
                return Err(path.error(
                    fields.at,
                    "a graphics pipeline with a VertexBuffer needs VertexAttributes",
                ));
            }
            let stride: u32 = attributes
                .iter()
                .map(|a| a.offset + a.size())
                .max()
                .unwrap_or(0);
            let available = (vertices.data.len() as u64 / u64::from(stride.max(1))) as u32;
            match vertex_count {
                Some((count, at)) if count > available => {
                    return Err(PipelineError::at(
                        at,
                        format!(
                            "VertexCount {count} exceeds the {available} vertices of `{}` ({} bytes, {stride} per vertex)",
                            vertices.name,
                            vertices.data.len()
                        ),
                    ));
                }
                Some((count, _)) => count,
                // Both topologies draw triangles: fewer than three whole
                // vertices draw nothing, which the attributes' layout
                // (an offset past the end, say) rather than the data means.
                None if available < 3 => {
                    return Err(path.error(
                        fields.at,
                        format!(
                            "`{}` ({} bytes) holds {available} whole vertices of {stride} bytes (the end of the furthest attribute), fewer than a triangle: check the VertexAttributes' Offset and Format, or give DispatchParameters: {{ VertexCount: N }}",
                            vertices.name,
                            vertices.data.len()
                        ),
                    ));
                }
                None => available,
            }
        }
    };
    Ok(GraphicsDesc {
        vertex_entry: entries.0,
        pixel_entry: entries.1,
        vertex_buffer: vertices.map(|v| v.name.clone()),
        attributes,
        render_target: target.name.clone(),
        depth_target,
        topology: fields
            .read("Topology", read::name)?
            .unwrap_or(Topology::TriangleList),
        vertex_count,
    })
}
