//! Pipeline files in the LLVM offload-test-suite YAML form: which buffers a
//! compute dispatch gets, how they are bound, and how results are checked.
//!
//! [`parse`] turns the text into a checked [`Pipeline`]; [`render_buffers`]
//! writes buffer contents back in the same form; [`check_results`] applies
//! the `Results` rules to the buffers after a dispatch.

#![warn(missing_docs)]

mod binding;
mod check;
mod data;
mod error;
mod format;
mod graphics;
mod named;
mod parse;
mod read;
mod render;
mod sampler;
mod text;
mod yaml;

pub use binding::{Binding, Kind};
pub use check::{
    DenormMode, MAX_LISTED_MISMATCHES, Mismatch, ResultRule, Rule, RuleOutcome, check_results,
};
pub use data::MAX_BUFFER_BYTES;
pub use error::{Location, PipelineError};
pub use format::Format;
pub use graphics::{GraphicsDesc, Topology, VertexAttribute};
pub use parse::{MAX_GROUP_COUNT, parse, parse_file, read_file};
pub use read::suggestion;
pub use render::{Style, element_strings, render_buffer, render_buffers};
pub use sampler::{Address, Comparison, Filter, SamplerDesc};

/// A parsed and checked pipeline file.
#[derive(Clone, Debug, PartialEq)]
pub struct Pipeline {
    /// The number of thread groups in x, y and z.
    pub dispatch: [u32; 3],
    /// The entry point of the compute shader, when given.
    pub entry: Option<String>,
    /// The buffers, in file order.
    pub buffers: Vec<BufferDesc>,
    /// The `Results` rules, in file order.
    pub results: Vec<ResultRule>,
    /// The resources of all descriptor sets, in file order.
    pub bindings: Vec<Binding>,
    /// The samplers, in file order.
    pub samplers: Vec<SamplerDesc>,
    /// A graphics pipeline's vertex input and render target; `None` for
    /// a compute dispatch.
    pub graphics: Option<GraphicsDesc>,
}

impl Pipeline {
    /// The sampler called `name`.
    pub fn sampler(&self, name: &str) -> Option<&SamplerDesc> {
        self.samplers.iter().find(|s| s.name == name)
    }

    /// The index of the buffer called `name`.
    pub fn buffer_index(&self, name: &str) -> Option<usize> {
        self.buffers.iter().position(|b| b.name == name)
    }

    /// The buffer called `name`.
    pub fn buffer(&self, name: &str) -> Option<&BufferDesc> {
        self.buffers.iter().find(|b| b.name == name)
    }

    /// Replaces the initial contents of buffer `name` (a binary file given
    /// on the command line, say). The bytes must hold whole elements of
    /// the buffer's format, and as many as its `OutputProps` describe.
    pub fn replace_data(&mut self, name: &str, bytes: Vec<u8>) -> Result<(), PipelineError> {
        let Some(buffer) = self.buffers.iter_mut().find(|b| b.name == name) else {
            let names: Vec<&str> = self.buffers.iter().map(|b| b.name.as_str()).collect();
            return Err(PipelineError::new(format!(
                "no buffer named `{name}` (the pipeline has {})",
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            )));
        };
        let unit = buffer.format.size() * buffer.array_size as usize;
        if !bytes.len().is_multiple_of(unit) {
            return Err(PipelineError::new(format!(
                "buffer `{name}`: {} bytes are not a whole number of {} elements{}",
                bytes.len(),
                buffer.format,
                if buffer.array_size > 1 {
                    " for each resource of its array"
                } else {
                    ""
                }
            )));
        }
        if let Some(props) = buffer.output_props {
            let need = props.all_texels()
                * buffer.texel_size() as u64
                * u64::from(buffer.array_size.max(1));
            if need != bytes.len() as u64 {
                return Err(PipelineError::new(format!(
                    "buffer `{name}`: its OutputProps take {need} bytes, but {} were given",
                    bytes.len()
                )));
            }
        }
        buffer.data = bytes;
        Ok(())
    }

    /// Buffer `index`'s bytes: `contents[index]`, or its initial data when
    /// `contents` is shorter.
    fn contents<'a, B: AsRef<[u8]>>(&'a self, contents: &'a [B], index: usize) -> &'a [u8] {
        contents
            .get(index)
            .map_or(&self.buffers[index].data, AsRef::as_ref)
    }
}

/// One entry of `Buffers`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferDesc {
    /// The buffer's name, by which bindings and results refer to it.
    pub name: String,
    /// The element format of `data`.
    pub format: Format,
    /// The element stride in bytes of a structured buffer, when given.
    pub stride: Option<u32>,
    /// Components per element (1 to 4), for typed buffers such as
    /// `Buffer<float4>`.
    pub channels: u32,
    /// `ArraySize`: how many resources of a resource array the buffer
    /// holds (1 unless given). Their data follow each other in `data`,
    /// each `data.len() / array_size` bytes.
    pub array_size: u32,
    /// The initial contents, little-endian.
    pub data: Vec<u8>,
    /// `OutputProps`: the buffer's size as a texture, when given.
    pub output_props: Option<OutputProps>,
}

/// A buffer's size as a texture, in texels (`OutputProps: { Height, Width,
/// Depth, MipLevels }`). Texels are stored row-major: x fastest, then y,
/// then z (or the slice of an array texture); mip levels follow each other,
/// each half the width and height of the one before (at least 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OutputProps {
    /// `Width`: texels in x of the first mip level.
    pub width: u32,
    /// `Height`: texels in y of the first mip level.
    pub height: u32,
    /// 1 unless given.
    pub depth: u32,
    /// 1 unless given.
    pub mip_levels: u32,
}

impl OutputProps {
    /// Width × Height × Depth: the texels of the first mip level.
    pub fn texels(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height) * u64::from(self.depth)
    }

    /// The texels of every mip level together.
    pub fn all_texels(&self) -> u64 {
        (0..self.mip_levels.min(32))
            .map(|level| {
                let side = |size: u32| u64::from((size >> level).max(1));
                side(self.width) * side(self.height) * u64::from(self.depth)
            })
            .sum()
    }
}

impl BufferDesc {
    /// The number of whole elements of `format` in the initial data.
    pub fn element_count(&self) -> usize {
        self.data.len() / self.format.size()
    }

    /// The bytes of one texel when the buffer is a texture: the format's
    /// size times `channels`.
    pub fn texel_size(&self) -> usize {
        self.format.size() * self.channels as usize
    }
}
