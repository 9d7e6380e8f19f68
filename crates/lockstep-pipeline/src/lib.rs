//! Pipeline files in the LLVM offload-test-suite YAML form: which buffers a
//! compute dispatch gets, how they are bound, and how results are checked.
//!
//! [`parse`] turns the text into a checked [`Pipeline`]; [`render_buffers`]
//! writes buffer contents back in the same form; [`check_results`] applies
//! the `Results` rules to the buffers after a dispatch.

mod binding;
mod check;
mod de;
mod error;
mod format;
mod named;
mod parse;
mod render;
mod text;

pub use binding::{Binding, Kind};
pub use check::{MAX_LISTED_MISMATCHES, Mismatch, ResultRule, Rule, RuleOutcome, check_results};
pub use de::{MAX_BUFFER_BYTES, MAX_GROUP_COUNT};
pub use error::{Location, PipelineError};
pub use format::Format;
pub use parse::parse;
pub use render::{element_strings, render_buffers};

/// A parsed and checked pipeline file.
#[derive(Clone, Debug, PartialEq)]
pub struct Pipeline {
    /// The number of thread groups in x, y and z.
    pub dispatch: [u32; 3],
    /// The entry point of the compute shader, when given.
    pub entry: Option<String>,
    pub buffers: Vec<BufferDesc>,
    pub results: Vec<ResultRule>,
    /// The resources of all descriptor sets, in file order.
    pub bindings: Vec<Binding>,
}

impl Pipeline {
    /// The index of the buffer called `name`.
    pub fn buffer_index(&self, name: &str) -> Option<usize> {
        self.buffers.iter().position(|b| b.name == name)
    }

    /// The buffer called `name`.
    pub fn buffer(&self, name: &str) -> Option<&BufferDesc> {
        self.buffers.iter().find(|b| b.name == name)
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
    pub name: String,
    pub format: Format,
    /// The element stride in bytes of a structured buffer, when given.
    pub stride: Option<u32>,
    /// Components per element (1 to 4), for typed buffers such as
    /// `Buffer<float4>`.
    pub channels: u32,
    /// The initial contents, little-endian.
    pub data: Vec<u8>,
    /// `OutputProps`: the buffer's size as a texture, when given.
    pub output_props: Option<OutputProps>,
}

/// A buffer's size as a texture, in texels (`OutputProps: { Height, Width,
/// Depth }`). Texels are stored row-major: x fastest, then y, then z (or
/// the slice of an array texture).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OutputProps {
    pub width: u32,
    pub height: u32,
    /// 1 unless given.
    pub depth: u32,
}

impl OutputProps {
    /// Width × Height × Depth.
    pub fn texels(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height) * u64::from(self.depth)
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
