//! Draws: a graphics pipeline's vertex and pixel shaders run over its
//! vertex buffer into its render target (`lockstep-raster`), with the
//! pipeline's other buffers bound to both stages.

use lockstep_exec::{DispatchConfig, Workers};
use lockstep_ir::{Stage, VaryingKind};
use lockstep_pipeline::{Format, GraphicsDesc, Pipeline, Topology};
use lockstep_raster::{Attribute, Packing, StageProgram, Target};

use crate::bind::{Bindings, RunError, RunOptions, RunOutput, choose_wave_size};
use crate::{BufferContents, Shader};

/// Why a draw could not run; for an error inside a shader, which one.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawError {
    /// The stage whose shader the error's span points into; `None` when
    /// the error is the pipeline's.
    pub stage: Option<Stage>,
    /// What went wrong.
    pub error: RunError,
}

impl From<RunError> for DrawError {
    fn from(error: RunError) -> DrawError {
        DrawError { stage: None, error }
    }
}

impl std::fmt::Display for DrawError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.stage {
            Some(stage) => write!(f, "in the {} shader: {}", stage.name(), self.error),
            None => write!(f, "{}", self.error),
        }
    }
}

impl std::error::Error for DrawError {}

/// Runs the draw `pipeline` describes, with `vertex` and `pixel` as its
/// shaders. The render target comes back as the pipeline's buffer, in its
/// format.
pub fn draw<'p>(
    vertex: &Shader,
    pixel: &Shader,
    pipeline: &'p Pipeline,
    opts: &RunOptions,
) -> Result<RunOutput<'p>, DrawError> {
    draw_packed(vertex, pixel, pipeline, opts, Packing::Dense)
}

/// [`draw`], with quads packed into waves as `packing` says.
pub fn draw_packed<'p>(
    vertex: &Shader,
    pixel: &Shader,
    pipeline: &'p Pipeline,
    opts: &RunOptions,
    packing: Packing,
) -> Result<RunOutput<'p>, DrawError> {
    draw_with(vertex, pixel, pipeline, opts, packing, None, None).map(|(out, _)| out)
}

/// The stages' findings in a checked draw.
pub(crate) type StageFindings = Vec<(Stage, lockstep_exec::Finding)>;

/// [`draw_packed`], in checked mode when `checked` gives the stages'
/// checked programs.
pub(crate) fn draw_with<'p>(
    vertex: &Shader,
    pixel: &Shader,
    pipeline: &'p Pipeline,
    opts: &RunOptions,
    packing: Packing,
    checked: Option<(&lockstep_exec::Program, &lockstep_exec::Program)>,
    trace: Option<(Stage, &lockstep_exec::TraceSink)>,
) -> Result<(RunOutput<'p>, StageFindings), DrawError> {
    let g = pipeline.graphics.as_ref().ok_or_else(|| {
        RunError::new(
            "this pipeline has no graphics Bindings (VertexBuffer, RenderTarget): a draw needs them, and a compute pipeline takes one shader",
        )
    })?;
    let vio = stage_io(vertex, Stage::Vertex, "first")?;
    let pio = stage_io(pixel, Stage::Pixel, "second")?;
    let vb = Bindings::new(vertex, pipeline)?;
    let pb = Bindings::new(pixel, pipeline)?;
    if !vb.counters.is_empty() || !pb.counters.is_empty() {
        return Err(RunError::new(
            "not supported: structured-buffer counters (IncrementCounter, Append, Consume) in a draw",
        )
        .into());
    }
    let choice = choose_wave_size(pixel, &opts.device())?;
    let workers = Workers::new(opts.threads).map_err(RunError::from)?;
    let n = pipeline.buffers.len();
    let written: Vec<bool> = vb
        .buffers_where(vertex, n, |r| r.kind.is_writable())
        .into_iter()
        .zip(pb.buffers_where(pixel, n, |r| r.kind.is_writable()))
        .map(|(a, b)| a || b)
        .collect();
    // The samplers' memories hold their state in the layout of a stage
    // that has samplers (both lay it out alike): the vertex shader's where
    // only it samples.
    let uses_samplers = |shader: &Shader| {
        shader
            .module
            .resources
            .iter()
            .any(|r| r.kind == lockstep_ir::ResourceKind::SamplerState)
    };
    let owner = if !uses_samplers(pixel) && uses_samplers(vertex) {
        &vb
    } else {
        &pb
    };
    let memories = owner.memories_written(pipeline, &workers, written);
    let attributes = attributes(pipeline, g)?;
    let rt = pipeline.buffer_index(&g.render_target).ok_or_else(|| {
        RunError::new(format!(
            "no buffer named '{}' for the render target",
            g.render_target
        ))
    })?;
    let rt_desc = &pipeline.buffers[rt];
    let props = rt_desc.output_props.ok_or_else(|| {
        RunError::new(format!(
            "render target '{}' needs OutputProps: {{ Width, Height, Depth }}",
            rt_desc.name
        ))
    })?;
    let depth_index = g
        .depth_target
        .as_ref()
        .and_then(|d| pipeline.buffer_index(d));
    let target = Target {
        width: props.width,
        height: props.height,
        depth: depth_index.is_some(),
    };
    let pixels = u64::from(props.width) * u64::from(props.height);
    let texel = rt_desc.format.size() as u64 * u64::from(rt_desc.channels);
    if rt_desc.data.len() as u64 != pixels * texel {
        return Err(RunError::new(format!(
            "render target '{}' holds {} bytes, and {} x {} pixels of {} × {} take {}",
            rt_desc.name,
            rt_desc.data.len(),
            props.width,
            props.height,
            rt_desc.channels,
            rt_desc.format,
            pixels * texel
        ))
        .into());
    }
    let config = DispatchConfig {
        wave_size: choice.size,
        threads: opts.threads,
        step_budget: opts.step_budget,
        engine: opts.engine,
        ..DispatchConfig::default()
    };
    let vbound = vb.bound(&memories);
    let pbound = pb.bound(&memories);
    let desc = lockstep_raster::Draw {
        vertex: StageProgram {
            program: &vertex.program,
            checked: checked.map(|c| c.0),
            trace: trace.filter(|t| t.0 == Stage::Vertex).map(|t| t.1),
            io: vio,
            resources: &vbound,
        },
        pixel: StageProgram {
            program: &pixel.program,
            checked: checked.map(|c| c.1),
            trace: trace.filter(|t| t.0 == Stage::Pixel).map(|t| t.1),
            io: pio,
            resources: &pbound,
        },
        attributes: &attributes,
        vertex_count: g.vertex_count,
        topology: match g.topology {
            Topology::TriangleList => lockstep_raster::Topology::TriangleList,
            Topology::TriangleStrip => lockstep_raster::Topology::TriangleStrip,
        },
        target,
    };
    let mut image =
        lockstep_raster::draw(&workers, &desc, &config, packing).map_err(|e| DrawError {
            stage: e.stage,
            error: match e.exec {
                Some(exec) => RunError::from(exec),
                None => RunError::new(e.message),
            },
        })?;
    drop((vbound, pbound));
    let findings = std::mem::take(&mut image.findings);
    let depth = image.depth.take();
    let mut contents = pb.contents(memories);
    if let (Some(d), Some(values)) = (depth_index, depth) {
        let len = values.len() * 4;
        let words = values.iter().map(|v| v.to_bits().to_le()).collect();
        contents[d] = BufferContents::from_words(words, len);
    }
    contents[rt] = encode(image, rt_desc.format, rt_desc.channels);
    let outcomes = lockstep_pipeline::check_results(pipeline, &contents);
    Ok((
        RunOutput {
            wave_size: choice,
            contents,
            outcomes,
        },
        findings,
    ))
}

/// The stage records of `shader`, checked to be of `stage`.
pub(crate) fn stage_io<'s>(
    shader: &'s Shader,
    stage: Stage,
    which: &str,
) -> Result<&'s lockstep_ir::StageIo, RunError> {
    let entry = shader
        .module
        .entry
        .as_ref()
        .ok_or_else(|| RunError::new("the shader has no entry point"))?;
    match (&entry.io, entry.stage == stage) {
        (Some(io), true) => Ok(io),
        _ => Err(RunError::new(format!(
            "the {which} shader of a draw is its {} shader, but '{}' is a {} shader (compile it with -T {}_6_x)",
            stage.name(),
            entry.name,
            entry.stage.name(),
            stage.prefix()
        ))),
    }
}

/// The vertex buffer's attributes, each vertex's components as words.
fn attributes(pipeline: &Pipeline, g: &GraphicsDesc) -> Result<Vec<Attribute>, RunError> {
    // Without a vertex buffer, the vertices are their system values alone.
    let Some(name) = &g.vertex_buffer else {
        return Ok(Vec::new());
    };
    let vb = pipeline
        .buffer_index(name)
        .map(|i| &pipeline.buffers[i])
        .ok_or_else(|| RunError::new(format!("no buffer named '{name}' for the vertex buffer")))?;
    let stride = g.stride() as usize;
    let count = g.vertex_count as usize;
    if stride > 0 && vb.data.len() < count * stride {
        return Err(RunError::new(format!(
            "vertex buffer '{}' holds {} bytes, and {count} vertices of {stride} bytes take {}",
            vb.name,
            vb.data.len(),
            count * stride
        )));
    }
    g.attributes
        .iter()
        .map(|a| {
            let (semantic, index) = lockstep_ir::split_semantic(&a.name);
            let kind = match a.format {
                Format::Float16 | Format::Float32 | Format::Float64 => VaryingKind::Float,
                Format::Int16 | Format::Int32 | Format::Int64 => VaryingKind::Int,
                _ => VaryingKind::UInt,
            };
            let size = a.format.size();
            let mut words = Vec::with_capacity(count * a.channels as usize);
            for v in 0..count {
                for c in 0..a.channels as usize {
                    let at = v * stride + a.offset as usize + c * size;
                    let b = vb.data.get(at..at + size).ok_or_else(|| {
                        RunError::new(format!(
                            "vertex attribute '{}' of vertex {v} lies past the end of '{}'",
                            a.name, vb.name
                        ))
                    })?;
                    words.push(decode(b, a.format));
                }
            }
            Ok(Attribute {
                semantic,
                index,
                kind,
                channels: a.channels,
                words,
            })
        })
        .collect()
}

/// One element as a 32-bit word of its kind (floats as binary32).
fn decode(b: &[u8], format: Format) -> u32 {
    let le = |n: usize| {
        let mut x = [0u8; 8];
        let n = n.min(b.len());
        x[..n].copy_from_slice(&b[..n]);
        u64::from_le_bytes(x)
    };
    match format {
        Format::Hex8 => le(1) as u32,
        Format::Float16 => half::f16::from_bits(le(2) as u16).to_f32().to_bits(),
        Format::Float64 => (f64::from_bits(le(8)) as f32).to_bits(),
        Format::Int16 => le(2) as u16 as i16 as i32 as u32,
        Format::UInt16 | Format::Hex16 => le(2) as u32,
        Format::Int64 | Format::UInt64 | Format::Hex64 => le(8) as u32,
        _ => le(4) as u32,
    }
}

/// The image in the render target's format.
pub(crate) fn encode(
    image: lockstep_raster::Image,
    format: Format,
    channels: u32,
) -> BufferContents<'static> {
    let kind = image.color_kind.unwrap_or(VaryingKind::Float);
    let same = matches!(
        (kind, format),
        (VaryingKind::Float, Format::Float32)
            | (VaryingKind::UInt, Format::UInt32 | Format::Hex32)
            | (VaryingKind::Int, Format::Int32)
    );
    if same {
        // The words as they are, with no copy for four channels.
        let len = image.color.len() * channels as usize * 4;
        let words: Vec<u32> = if channels == 4 {
            bytemuck::cast_vec(image.color)
        } else {
            let c = channels as usize;
            image
                .color
                .iter()
                .flat_map(|px| px.iter().take(c).copied())
                .collect()
        };
        let words = words.into_iter().map(u32::to_le).collect();
        return BufferContents::from_words(words, len);
    }
    let mut out = Vec::with_capacity(image.color.len() * channels as usize * format.size());
    for px in &image.color {
        for &word in px.iter().take(channels as usize) {
            let as_f64 = match kind {
                VaryingKind::Float => f64::from(f32::from_bits(word)),
                VaryingKind::Int => f64::from(word as i32),
                VaryingKind::UInt => f64::from(word),
            };
            match format {
                Format::Float32 => out.extend((as_f64 as f32).to_le_bytes()),
                Format::Float16 => out.extend(half::f16::from_f64(as_f64).to_bits().to_le_bytes()),
                Format::Float64 => out.extend(as_f64.to_le_bytes()),
                Format::Hex8 => out.push(if kind == VaryingKind::Float {
                    as_f64 as i64 as u8
                } else {
                    word as u8
                }),
                Format::Int16 | Format::UInt16 | Format::Hex16 => {
                    let v = if kind == VaryingKind::Float {
                        as_f64 as i64 as u16
                    } else {
                        word as u16
                    };
                    out.extend(v.to_le_bytes());
                }
                Format::Int64 | Format::UInt64 | Format::Hex64 => {
                    let v = if kind == VaryingKind::Float {
                        as_f64 as i64 as u64
                    } else {
                        u64::from(word)
                    };
                    out.extend(v.to_le_bytes());
                }
                _ => {
                    let v = if kind == VaryingKind::Float {
                        as_f64 as i64 as u32
                    } else {
                        word
                    };
                    out.extend(v.to_le_bytes());
                }
            }
        }
    }
    let len = out.len();
    let words = out
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect();
    BufferContents::from_words(words, len)
}
