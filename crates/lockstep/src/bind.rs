//! Binds a pipeline's buffers to a shader's resources, runs the dispatch and
//! checks the pipeline's result rules.

use lockstep_exec::{
    BoundResource, Device, DispatchConfig, Engine, Memory, WavePreference, WaveSizeChoice, Workers,
};
use lockstep_ir::{Resource, ResourceKind, Span, Type};
use lockstep_pipeline::{Binding, Filter, Kind, Pipeline, RuleOutcome, SamplerDesc};

use crate::{BufferContents, Shader};

/// How to run a dispatch.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The device's preferred lanes per wave (4 to 128, a power of two): the
    /// wave size of shaders without `[WaveSize]`.
    pub wave_size: u32,
    /// The wave sizes the device supports: powers of two in this range.
    pub wave_sizes: (u32, u32),
    /// Which supported size to take when a `[WaveSize]` range excludes the
    /// preferred one.
    pub prefer: WavePreference,
    /// Worker threads; 0 means one per core. More than
    /// [`lockstep_exec::MAX_THREADS`] is an error.
    pub threads: usize,
    /// Loop iterations one wave may run before the run stops with an error.
    pub step_budget: u64,
    /// Which engine runs the shader (default: machine code where it pays).
    pub engine: Engine,
    /// `check`: float outputs at most this many units in the last place
    /// apart (or both NaN) count as the same between wave sizes and orders
    /// (0: every bit).
    pub ulps: u64,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        let d = DispatchConfig::default();
        let device = Device::default();
        RunOptions {
            wave_size: d.wave_size,
            wave_sizes: (device.min, device.max),
            prefer: device.preference,
            threads: d.threads,
            step_budget: d.step_budget,
            engine: d.engine,
            ulps: 0,
        }
    }
}

impl RunOptions {
    /// The emulated device these options describe.
    pub fn device(&self) -> Device {
        Device {
            preferred: self.wave_size,
            min: self.wave_sizes.0,
            max: self.wave_sizes.1,
            preference: self.prefer,
        }
    }
}

/// The buffers after a dispatch and the verdict of each result rule. The
/// buffers the shader cannot write are borrowed from the pipeline (`'p`).
#[derive(Clone, Debug)]
pub struct RunOutput<'p> {
    /// The wave size the dispatch ran at, and why.
    pub wave_size: WaveSizeChoice,
    /// The bytes of every pipeline buffer, in the pipeline's order.
    pub contents: Vec<BufferContents<'p>>,
    /// The verdict of each of the pipeline's result rules, in its order.
    pub outcomes: Vec<RuleOutcome>,
}

impl RunOutput<'_> {
    /// Whether every result rule held (true when there are none).
    pub fn passed(&self) -> bool {
        self.outcomes.iter().all(|o| o.passed)
    }
}

/// Why a dispatch could not run: a binding problem or an error while
/// running (a loop over its step budget, say).
#[derive(Clone, Debug, PartialEq)]
pub struct RunError {
    /// What went wrong.
    pub message: String,
    /// The source construct responsible, when known.
    pub span: Option<Span>,
    /// Further explanations, shown after the message.
    pub notes: Vec<String>,
}

impl RunError {
    pub(crate) fn new(message: impl Into<String>) -> RunError {
        RunError {
            message: message.into(),
            span: None,
            notes: Vec::new(),
        }
    }

    pub(crate) fn at(mut self, span: Span) -> RunError {
        self.span = Some(span);
        self
    }

    pub(crate) fn with_note(mut self, note: impl Into<String>) -> RunError {
        self.notes.push(note.into());
        self
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RunError {}

fn pipeline_kind(kind: ResourceKind) -> Kind {
    match kind {
        ResourceKind::StructuredBuffer => Kind::StructuredBuffer,
        ResourceKind::RWStructuredBuffer
        | ResourceKind::AppendStructuredBuffer
        | ResourceKind::ConsumeStructuredBuffer => Kind::RwStructuredBuffer,
        ResourceKind::Buffer => Kind::Buffer,
        ResourceKind::RWBuffer => Kind::RwBuffer,
        ResourceKind::ByteAddressBuffer => Kind::ByteAddressBuffer,
        ResourceKind::RWByteAddressBuffer => Kind::RwByteAddressBuffer,
        ResourceKind::ConstantBuffer => Kind::ConstantBuffer,
        ResourceKind::Texture1D => Kind::Texture1D,
        ResourceKind::Texture1DArray => Kind::Texture1DArray,
        ResourceKind::Texture2D => Kind::Texture2D,
        ResourceKind::Texture2DArray => Kind::Texture2DArray,
        ResourceKind::Texture3D => Kind::Texture3D,
        ResourceKind::TextureCube => Kind::TextureCube,
        ResourceKind::TextureCubeArray => Kind::TextureCubeArray,
        ResourceKind::RWTexture1D => Kind::RwTexture1D,
        ResourceKind::RWTexture1DArray => Kind::RwTexture1DArray,
        ResourceKind::RWTexture2D => Kind::RwTexture2D,
        ResourceKind::RWTexture2DArray => Kind::RwTexture2DArray,
        ResourceKind::RWTexture3D => Kind::RwTexture3D,
        ResourceKind::SamplerState => Kind::Sampler,
    }
}

impl From<lockstep_exec::ExecError> for RunError {
    fn from(e: lockstep_exec::ExecError) -> RunError {
        RunError {
            message: e.message,
            span: e.span,
            notes: e.notes,
        }
    }
}

/// Which pipeline buffer each resource of the shader is bound to, with its
/// texture dimensions.
pub(crate) struct Bindings {
    /// For each resource, its pipeline buffer's index, or past them, one of
    /// the hidden counters.
    pub buffer_of: Vec<usize>,
    /// For each resource, its memory: one of a pipeline buffer's (a buffer
    /// of `ArraySize` n has n, one per resource of the array), or past all
    /// of them, a hidden counter's.
    memory_of: Vec<usize>,
    /// For each pipeline buffer, its first memory and how many it has.
    chunks: Vec<(usize, usize)>,
    /// Each pipeline sampler's state, in a memory of its own after the
    /// buffers' (empty when the shader has no sampler).
    samplers: Vec<Vec<u8>>,
    dims: Vec<[u32; 3]>,
    /// For each resource, its mip levels and how many of its dimensions
    /// shrink from level to level ([`BoundResource::with_levels`]).
    mips: Vec<(u32, u8)>,
    /// The starting values of the hidden counters (`IncrementCounter`,
    /// `Append`, `Consume`), each in a memory of its own after the
    /// pipeline's buffers: 0, or for a consume buffer the number of
    /// elements its buffer holds, so that `Consume` takes them from the
    /// last.
    pub counters: Vec<u32>,
}

impl Bindings {
    /// Binds every resource of the shader, checking kinds and sizes.
    pub fn new(shader: &Shader, pipeline: &Pipeline) -> Result<Bindings, RunError> {
        let mut chunks = Vec::with_capacity(pipeline.buffers.len());
        let mut memories = 0;
        for b in &pipeline.buffers {
            chunks.push((memories, b.array_size as usize));
            memories += b.array_size as usize;
        }
        let sampler_element = shader
            .module
            .resources
            .iter()
            .find(|r| r.kind == ResourceKind::SamplerState)
            .map(|r| r.element);
        let samplers: Vec<Vec<u8>> = pipeline
            .samplers
            .iter()
            .map(|s| sampler_element.map_or_else(Vec::new, |e| sampler_bytes(shader, e, s)))
            .collect();
        memories += samplers.len();
        let mut bindings = Bindings {
            buffer_of: Vec::new(),
            memory_of: Vec::new(),
            chunks,
            samplers,
            dims: Vec::new(),
            mips: vec![(1, 3); shader.module.resources.len()],
            counters: Vec::new(),
        };
        let io = shader.module.entry.as_ref().and_then(|e| e.io.as_ref());
        for (id, resource) in shader.module.resources.iter().enumerate() {
            // A stage's records are the draw's: any memory stands in.
            if io.is_some_and(|io| io.input.index() == id || io.output.index() == id) {
                bindings.buffer_of.push(usize::MAX);
                bindings.memory_of.push(0);
                bindings.dims.push([0; 3]);
                continue;
            }
            if let Some(base) = resource.counter_of {
                let base = base.index();
                let start = match shader.module.resources[base].kind {
                    ResourceKind::ConsumeStructuredBuffer => {
                        let element = shader.module.resources[base].element;
                        let stride = lockstep_ir::layout::array_stride(
                            &shader.module.types,
                            element,
                            lockstep_ir::LayoutRule::Packed,
                        );
                        // The base is bound: `Consume` reads it.
                        let bytes = pipeline
                            .buffers
                            .get(bindings.buffer_of[base])
                            .map_or(0, |b| b.data.len());
                        u32::try_from(bytes / stride.max(1) as usize).unwrap_or(u32::MAX)
                    }
                    _ => 0,
                };
                bindings
                    .buffer_of
                    .push(pipeline.buffers.len() + bindings.counters.len());
                bindings.memory_of.push(memories + bindings.counters.len());
                bindings.dims.push([0; 3]);
                bindings.counters.push(start);
                continue;
            }
            // A resource the program never touches needs no binding (DXC
            // drops it); any memory stands in.
            let unused = !shader
                .program
                .uses_resource(lockstep_ir::ResourceId(id as u32));
            let bound = match bind_resource(shader, pipeline, resource) {
                Err(_) if unused && memories > 0 => {
                    bindings.buffer_of.push(usize::MAX);
                    bindings.memory_of.push(0);
                    bindings.dims.push([0; 3]);
                    continue;
                }
                bound => bound?,
            };
            let (index, element) = match bound {
                Bound::Buffer(index, element) => (index, element),
                Bound::Sampler(k) => {
                    bindings.buffer_of.push(usize::MAX);
                    bindings
                        .memory_of
                        .push(memories - bindings.samplers.len() + k);
                    bindings.dims.push([0; 3]);
                    continue;
                }
            };
            bindings.memory_of.push(bindings.chunks[index].0 + element);
            // Textures take their size from the buffer's OutputProps (checked
            // when binding); buffers ignore it.
            // A 1D array's slices (its Depth) are a 2D texture's rows.
            let one_d_array = matches!(
                resource.kind,
                ResourceKind::Texture1DArray | ResourceKind::RWTexture1DArray
            );
            let dims = pipeline.buffers[index].output_props.map_or([0; 3], |p| {
                if one_d_array {
                    [p.width, p.height * p.depth, 1]
                } else {
                    [p.width, p.height, p.depth]
                }
            });
            bindings.buffer_of.push(index);
            bindings.dims.push(dims);
            if let Some(p) = pipeline.buffers[index].output_props {
                bindings.mips[id] = (p.mip_levels, mip_dims(resource.kind));
            }
        }
        Ok(bindings)
    }

    /// For each of the pipeline's `buffers`, whether a resource for which
    /// `pred` holds is bound to it.
    pub fn buffers_where(
        &self,
        shader: &Shader,
        buffers: usize,
        pred: impl Fn(&Resource) -> bool,
    ) -> Vec<bool> {
        let mut marked = vec![false; buffers];
        for (r, &b) in shader.module.resources.iter().zip(&self.buffer_of) {
            if pred(r) && b < buffers {
                marked[b] = true;
            }
        }
        marked
    }

    /// Memories holding the pipeline's initial data, one per buffer: a
    /// buffer no writable resource is bound to is read in place, the others
    /// are copied by `workers`.
    pub fn memories<'p>(
        &self,
        shader: &Shader,
        pipeline: &'p Pipeline,
        workers: &Workers,
    ) -> Vec<Memory<'p>> {
        let written = self.buffers_where(shader, pipeline.buffers.len(), |r| r.kind.is_writable());
        self.memories_written(pipeline, workers, written)
    }

    /// [`Bindings::memories`] for a dispatch of `shader` at `wave_size`:
    /// a buffer that the dispatch writes in full before it ends, and
    /// reads none of ([`lockstep_exec::Program::writes_in_full`]), takes
    /// words that an earlier run gave back ([`Memory::overwritten`])
    /// rather than a copy or fresh zeroed pages.
    pub fn memories_for_dispatch<'p>(
        &self,
        shader: &Shader,
        pipeline: &'p Pipeline,
        workers: &Workers,
        wave_size: u32,
    ) -> Vec<Memory<'p>> {
        let written = self.buffers_where(shader, pipeline.buffers.len(), |r| r.kind.is_writable());
        let [x, y, z] = pipeline.dispatch;
        let threads_x = if y == 0 || z == 0 {
            0
        } else {
            u64::from(x) * u64::from(shader.program.group.extent(wave_size)[0])
        };
        let starts = written
            .iter()
            .enumerate()
            .map(|(b, &written)| match written {
                false => Start::InPlace,
                true if self.overwritten(shader, pipeline, b, threads_x) => Start::Overwritten,
                true => Start::Copied,
            })
            .collect();
        self.memories_starting(pipeline, workers, starts)
    }

    /// Whether pipeline buffer `b` is one resource's, which a dispatch
    /// whose threads reach `threads_x` values of `SV_DispatchThreadID.x`
    /// writes in full.
    fn overwritten(&self, shader: &Shader, pipeline: &Pipeline, b: usize, threads_x: u64) -> bool {
        let buffer = &pipeline.buffers[b];
        let mut bound = (0..self.buffer_of.len()).filter(|&r| self.buffer_of[r] == b);
        match (bound.next(), bound.next()) {
            (Some(r), None) if buffer.array_size == 1 => {
                shader
                    .program
                    .writes_in_full(r, buffer.data.len() as u64, threads_x)
            }
            _ => false,
        }
    }

    /// [`Bindings::memories`], copying the buffers `written` marks.
    pub fn memories_written<'p>(
        &self,
        pipeline: &'p Pipeline,
        workers: &Workers,
        written: Vec<bool>,
    ) -> Vec<Memory<'p>> {
        let starts = written
            .into_iter()
            .map(|w| if w { Start::Copied } else { Start::InPlace })
            .collect();
        self.memories_starting(pipeline, workers, starts)
    }

    /// Whether two resources share one memory (a buffer bound twice).
    pub fn aliased(&self) -> bool {
        let mut seen: Vec<usize> = self
            .memory_of
            .iter()
            .zip(&self.buffer_of)
            .filter(|&(_, &b)| b != usize::MAX)
            .map(|(&m, _)| m)
            .collect();
        seen.sort_unstable();
        seen.windows(2).any(|w| w[0] == w[1])
    }

    /// The byte length of each resource's memory, as
    /// [`Bindings::memories`] makes them, without making them.
    pub fn resource_lengths(&self, pipeline: &Pipeline) -> Vec<u64> {
        let lengths: Vec<u64> = pipeline
            .buffers
            .iter()
            .flat_map(|b| {
                let each = b.data.len() / b.array_size as usize;
                std::iter::repeat_n(each as u64, b.array_size as usize)
            })
            .chain(self.samplers.iter().map(|bytes| bytes.len() as u64))
            .chain(self.counters.iter().map(|_| 4))
            .collect();
        self.memory_of
            .iter()
            .map(|&m| lengths.get(m).copied().unwrap_or(0))
            .collect()
    }

    /// The memories of the pipeline's buffers, each starting as `starts`
    /// says, then the samplers' and the counters'.
    fn memories_starting<'p>(
        &self,
        pipeline: &'p Pipeline,
        workers: &Workers,
        starts: Vec<Start>,
    ) -> Vec<Memory<'p>> {
        pipeline
            .buffers
            .iter()
            .zip(starts)
            .flat_map(|(b, start)| {
                let each = b.data.len() / b.array_size as usize;
                (0..b.array_size as usize).map(move |k| {
                    let data = &b.data[k * each..(k + 1) * each];
                    match start {
                        Start::InPlace => {
                            Memory::read_only(data).unwrap_or_else(|| workers.load(data))
                        }
                        Start::Copied => workers.load(data),
                        Start::Overwritten => Memory::overwritten(data.len()),
                    }
                })
            })
            .chain(self.samplers.iter().map(|bytes| workers.load(bytes)))
            .chain(
                self.counters
                    .iter()
                    .map(|start| workers.load(&start.to_le_bytes())),
            )
            .collect()
    }

    /// Each pipeline buffer's contents after a run on `memories`, without a
    /// copy for a buffer of one resource.
    pub fn contents<'p>(&self, memories: Vec<Memory<'p>>) -> Vec<BufferContents<'p>> {
        let mut memories = memories.into_iter();
        self.chunks
            .iter()
            .map(|&(_, count)| {
                if count == 1 {
                    return memories.next().map(BufferContents::from_memory);
                }
                let bytes: Vec<u8> = memories
                    .by_ref()
                    .take(count)
                    .flat_map(|m| m.to_bytes())
                    .collect();
                Some(BufferContents::from_memory(Memory::from_bytes(&bytes)))
            })
            .collect::<Option<Vec<_>>>()
            .unwrap_or_default()
    }

    /// Pipeline buffer `b`'s bytes in `memories`.
    /// The resource slots bound to buffer `b`, with each one's byte offset
    /// in the buffer (an array buffer's memories follow each other).
    pub fn slots_of_buffer(&self, pipeline: &Pipeline, b: usize) -> Vec<(usize, usize)> {
        let (first, count) = self.chunks[b];
        let each = pipeline.buffers[b].data.len() / pipeline.buffers[b].array_size.max(1) as usize;
        self.memory_of
            .iter()
            .enumerate()
            .filter(|&(_, &m)| m >= first && m < first + count)
            .map(|(slot, &m)| (slot, (m - first) * each))
            .collect()
    }

    /// A texture resource's width, height and depth (or slices).
    pub fn texture_dims(&self, resource: usize) -> [u32; 3] {
        self.dims.get(resource).copied().unwrap_or([0; 3])
    }

    /// An error naming the first texture with more than one mip level:
    /// the SPIR-V Lockstep emits addresses level 0 alone.
    pub(crate) fn one_level_each(&self, shader: &Shader, device: &str) -> Result<(), RunError> {
        let many = self.mips.iter().position(|&(levels, _)| levels > 1);
        match many.and_then(|id| Some((shader.module.resources.get(id)?, self.mips[id].0))) {
            Some((r, levels)) => Err(RunError::new(format!(
                "texture '{}' has {levels} mip levels: on {device} Lockstep's SPIR-V reads level 0 alone; run it on the CPU engine",
                r.name
            ))
            .at(r.span)),
            None => Ok(()),
        }
    }

    /// A sampler resource's state, as its element struct lays it out.
    pub fn sampler_state(&self, resource: usize) -> Option<&[u8]> {
        let first = self.chunks.iter().map(|c| c.1).sum::<usize>();
        let m = *self.memory_of.get(resource)?;
        self.samplers
            .get(m.checked_sub(first)?)
            .map(Vec::as_slice)
            .filter(|_| self.buffer_of[resource] == usize::MAX)
    }

    pub fn buffer_bytes(&self, memories: &[Memory<'_>], b: usize) -> Vec<u8> {
        let (first, count) = self.chunks[b];
        let mut bytes = Vec::new();
        for m in &memories[first..first + count] {
            bytes.extend_from_slice(&m.to_bytes());
        }
        bytes
    }

    pub fn bound<'a>(&self, memories: &'a [Memory<'a>]) -> Vec<BoundResource<'a>> {
        self.memory_of
            .iter()
            .zip(&self.dims)
            .zip(&self.mips)
            .map(|((&index, &dims), &(levels, mip_dims))| {
                BoundResource::texture(&memories[index], dims).with_levels(levels, mip_dims)
            })
            .collect()
    }
}

/// The wave size `shader` runs at on `device`, and why.
pub(crate) fn choose_wave_size(
    shader: &Shader,
    device: &Device,
) -> Result<WaveSizeChoice, RunError> {
    device.validate()?;
    let entry = shader.module.entry.as_ref();
    lockstep_exec::select_wave_size(entry.and_then(|e| e.wave_size), device).map_err(|e| RunError {
        message: e.message,
        span: entry.map(|entry| {
            entry
                .wave_size_span
                .unwrap_or(shader.module.function(entry.function).span)
        }),
        notes: e.notes,
    })
}

/// How a buffer's memory starts a dispatch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Start {
    /// The pipeline's bytes, read in place: no resource writes them.
    InPlace,
    /// A copy of the pipeline's bytes.
    Copied,
    /// Words whose contents never show ([`Memory::overwritten`]).
    Overwritten,
}

/// Runs the shader over the pipeline's buffers. The buffers the shader
/// cannot write are read in place, and come back borrowed.
pub fn run<'p>(
    shader: &Shader,
    pipeline: &'p Pipeline,
    opts: &RunOptions,
) -> Result<RunOutput<'p>, RunError> {
    if let Some(g) = &pipeline.graphics {
        return Err(RunError::new(format!(
            "this pipeline draws {} vertices from '{}' into '{}': give it a vertex and a pixel shader (lockstep run PIPELINE VS.hlsl PS.hlsl)",
            g.vertex_count,
            g.vertex_buffer.as_deref().unwrap_or("no vertex buffer"),
            g.render_target
        )));
    }
    if let Some(entry) = &shader.module.entry
        && entry.stage != lockstep_ir::Stage::Compute
    {
        return Err(RunError::new(format!(
            "'{}' is a {} shader: a dispatch runs a compute shader (-T cs_6_x); a draw needs a graphics pipeline and both shaders",
            entry.name,
            entry.stage.name()
        )));
    }
    let bindings = Bindings::new(shader, pipeline)?;
    let choice = choose_wave_size(shader, &opts.device())?;
    let workers = Workers::new(opts.threads)?;
    let memories = bindings.memories_for_dispatch(shader, pipeline, &workers, choice.size);
    let config = DispatchConfig {
        wave_size: choice.size,
        threads: opts.threads,
        step_budget: opts.step_budget,
        group_count: pipeline.dispatch,
        engine: opts.engine,
        ..DispatchConfig::default()
    };
    lockstep_exec::dispatch_on(
        &workers,
        &shader.program,
        &bindings.bound(&memories),
        &config,
    )?;
    // Every buffer comes back in the engine's own words, with no copy (a
    // buffer only read still holds the pipeline's bytes).
    let contents = bindings.contents(memories);
    let outcomes = lockstep_pipeline::check_results(pipeline, &contents);
    Ok(RunOutput {
        wave_size: choice,
        contents,
        outcomes,
    })
}

/// Finds the pipeline buffer bound at the resource's register and checks
/// that it fits the resource; returns the buffer's index, and which of its
/// resources the resource is (a buffer of `ArraySize` n binds the n
/// registers from its own).
fn bind_resource(
    shader: &Shader,
    pipeline: &Pipeline,
    resource: &Resource,
) -> Result<Bound, RunError> {
    let class = resource.kind.register_class();
    let register = format!("{class}{}, space{}", resource.register, resource.space);
    let expected = pipeline_kind(resource.kind);
    let array_size = |b: &Binding| {
        pipeline
            .buffer_index(&b.name)
            .map_or(1, |i| pipeline.buffers[i].array_size)
    };
    let at_register = |b: &&Binding| {
        b.kind.register_class() == class
            && b.space == resource.space
            && (b.register..b.register.saturating_add(array_size(b))).contains(&resource.register)
    };
    let Some(binding) = pipeline.bindings.iter().find(at_register) else {
        // A binding of the resource's name in another register class is a
        // mis-typed binding. (Each class numbers its registers apart:
        // `s0` beside `t0` is no clash.)
        if let Some(b) = pipeline.bindings.iter().find(|b| b.name == resource.name) {
            return Err(RunError::new(format!(
                "resource '{}' is a {expected} at {register} in the shader, but the pipeline binds buffer '{}' at {} as a {}",
                resource.name,
                b.name,
                b.register_name(),
                b.kind
            ))
            .at(resource.span));
        }
        let listed: Vec<String> = pipeline
            .bindings
            .iter()
            .map(|b| format!("'{}' at {}", b.name, b.register_name()))
            .collect();
        return Err(RunError::new(format!(
            "resource '{}' ({register}) has no binding in the pipeline",
            resource.name
        ))
        .at(resource.span)
        .with_note(if listed.is_empty() {
            "the pipeline's DescriptorSets bind no resources".to_string()
        } else {
            format!("the pipeline binds {}", listed.join(", "))
        }));
    };
    if binding.kind != expected {
        return Err(RunError::new(format!(
            "resource '{}' is a {} in the shader, but the pipeline binds buffer '{}' at {register} as a {}",
            resource.name, expected, binding.name, binding.kind
        ))
        .at(resource.span));
    }
    if binding.kind == Kind::Sampler {
        let index = pipeline
            .samplers
            .iter()
            .position(|s| s.name == binding.name)
            .ok_or_else(|| {
                RunError::new(format!(
                    "binding names an unknown sampler '{}'",
                    binding.name
                ))
            })?;
        return Ok(Bound::Sampler(index));
    }
    let index = pipeline.buffer_index(&binding.name).ok_or_else(|| {
        RunError::new(format!(
            "binding names an unknown buffer '{}'",
            binding.name
        ))
    })?;
    let element = (resource.register - binding.register) as usize;
    check_size(shader, pipeline, resource, index)?;
    Ok(Bound::Buffer(index, element))
}

/// What a resource is bound to.
enum Bound {
    /// Pipeline buffer `.0`, or for a resource array, its resource `.1`.
    Buffer(usize, usize),
    /// Pipeline sampler `.0`.
    Sampler(usize),
}

/// A sampler's state in the layout of the shader's sampler struct
/// `element` (see [`lockstep_sema::SAMPLER_STATE`]).
fn sampler_bytes(shader: &Shader, element: lockstep_ir::TypeId, desc: &SamplerDesc) -> Vec<u8> {
    use lockstep_sema::SamplerField;
    let types = &shader.module.types;
    let rule = lockstep_ir::LayoutRule::CBuffer;
    let size = lockstep_ir::layout::size_align(types, element, rule).size as usize;
    let offsets = lockstep_ir::layout::member_offsets(types, element, rule);
    let filter = |f: Filter| u32::from(f == Filter::Linear);
    let mut bytes = vec![0u8; size];
    for (&(name, field), &offset) in lockstep_sema::SAMPLER_STATE.iter().zip(&offsets) {
        let words: Vec<u32> = match (name, field) {
            (_, SamplerField::Float4) => desc.border.iter().map(|v| v.to_bits()).collect(),
            (_, SamplerField::UInt3) => desc.address.iter().map(|a| a.code()).collect(),
            ("__lockstep_min_filter", _) => vec![filter(desc.min_filter)],
            ("__lockstep_mag_filter", _) => vec![filter(desc.mag_filter)],
            ("__lockstep_lod_bias", _) => vec![desc.mip_lod_bias.to_bits()],
            ("__lockstep_min_lod", _) => vec![desc.min_lod.to_bits()],
            ("__lockstep_max_lod", _) => vec![desc.max_lod.to_bits()],
            ("__lockstep_compare", _) => vec![desc.comparison.code()],
            ("__lockstep_mip_filter", _) => vec![filter(desc.mip_filter)],
            _ => Vec::new(),
        };
        for (i, word) in words.into_iter().enumerate() {
            let at = offset as usize + 4 * i;
            if let Some(slot) = bytes.get_mut(at..at + 4) {
                slot.copy_from_slice(&word.to_le_bytes());
            }
        }
    }
    bytes
}

fn check_size(
    shader: &Shader,
    pipeline: &Pipeline,
    resource: &Resource,
    index: usize,
) -> Result<(), RunError> {
    let types = &shader.module.types;
    let buffer = &pipeline.buffers[index];
    // Each resource of an array has its share of the data.
    let len = (buffer.data.len() / buffer.array_size as usize) as u64;
    let element = types.display(resource.element);
    let too_small = |what: String| {
        RunError::new(format!(
            "buffer '{}' is too small for resource '{}': {what}",
            buffer.name, resource.name
        ))
        .at(resource.span)
    };
    match resource.kind {
        ResourceKind::ConstantBuffer => {
            let size = lockstep_ir::layout::size_align(
                types,
                resource.element,
                resource.kind.layout_rule(),
            )
            .size;
            if len < u64::from(size) {
                return Err(too_small(format!(
                    "it holds {len} bytes, and the constant buffer's layout needs {size}"
                )));
            }
        }
        kind if kind.is_texture() => check_texture(shader, resource, buffer, len)?,
        ResourceKind::ByteAddressBuffer | ResourceKind::RWByteAddressBuffer => {
            if !len.is_multiple_of(4) {
                return Err(RunError::new(format!(
                    "buffer '{}' holds {len} bytes; a byte-address buffer must hold a multiple of 4",
                    buffer.name
                ))
                .at(resource.span));
            }
        }
        _ => {
            check_element_size(shader, resource, buffer)?;
            if matches!(resource.kind, ResourceKind::Buffer | ResourceKind::RWBuffer) {
                check_typed_view(shader, resource, buffer)?;
            }
            let stride = u64::from(lockstep_ir::layout::array_stride(
                types,
                resource.element,
                resource.kind.layout_rule(),
            ));
            if let Some(given) = buffer.stride
                && u64::from(given) != stride
                && !matches!(types.get(resource.element), Type::Void)
            {
                return Err(RunError::new(format!(
                    "buffer '{}' has Stride {given}, but the shader's element type '{element}' takes {stride} bytes",
                    buffer.name
                ))
                .at(resource.span));
            }
            if stride > 0 && (len < stride || !len.is_multiple_of(stride)) {
                return Err(too_small(format!(
                    "it holds {len} bytes, which is not a whole number of '{element}' elements of {stride} bytes"
                )));
            }
        }
    }
    Ok(())
}

/// A typed buffer (`Buffer<T>`, `RWBuffer<T>`) is viewed in the format its
/// pipeline buffer gives (`Format` × `Channels`): on a GPU the view
/// converts each texel to `T`, and Lockstep reads the bytes as `T`, so
/// the two must be the same size (a `Buffer<float4>` needs `Channels: 4`).
fn check_typed_view(
    shader: &Shader,
    resource: &Resource,
    buffer: &lockstep_pipeline::BufferDesc,
) -> Result<(), RunError> {
    let types = &shader.module.types;
    let element =
        lockstep_ir::layout::array_stride(types, resource.element, resource.kind.layout_rule())
            as usize;
    let texel = buffer.texel_size();
    if element == 0 || texel == element {
        return Ok(());
    }
    let format = buffer.format.size();
    let hint = if element.is_multiple_of(format) {
        format!(": give it Channels: {}", element / format)
    } else {
        String::new()
    };
    Err(RunError::new(format!(
        "buffer '{}' has texels of {texel} bytes (Format {} x Channels {}), but {} '{}' reads '{}' elements of {element} bytes; a GPU's view would convert each texel, Lockstep does not{hint}",
        buffer.name,
        buffer.format,
        buffer.channels,
        pipeline_kind(resource.kind),
        resource.name,
        types.display(resource.element),
    ))
    .at(resource.span))
}

/// A structured or typed buffer whose element's components all have one
/// size must hold elements of that size: Float16 data read as a 32-bit
/// `half` would be reinterpreted, never converted. Integer data may give
/// wider elements as their words.
fn check_element_size(
    shader: &Shader,
    resource: &Resource,
    buffer: &lockstep_pipeline::BufferDesc,
) -> Result<(), RunError> {
    let types = &shader.module.types;
    let mut scalars = Vec::new();
    types.flatten(resource.element, &mut scalars);
    let Some(first) = scalars.first() else {
        return Ok(());
    };
    let size = first.size() as usize;
    // Integer data may spell wider elements as their words (UInt32 pairs
    // for a uint64_t); float data and narrower elements are never meant.
    let words = !buffer.format.is_float() && size > buffer.format.size();
    if scalars.iter().any(|s| s.size() as usize != size) || size == buffer.format.size() || words {
        return Ok(());
    }
    let element = types.display(resource.element);
    let mut error = RunError::new(format!(
        "buffer '{}' holds {} elements of {} bytes, but resource '{}' reads '{element}' components of {size} bytes",
        buffer.name,
        buffer.format,
        buffer.format.size(),
        resource.name,
    ))
    .at(resource.span);
    if buffer.format == lockstep_pipeline::Format::Float16 && size == 4 {
        error = error.with_note(
            "without -enable-16bit-types, half is a 32-bit float: compile with -enable-16bit-types, or give the buffer Float32 data",
        );
    }
    Err(error)
}

/// A texture's buffer: OutputProps that fit the texture's dimensions, texels
/// of the shader's texel size, and data of exactly Width × Height × Depth
/// texels.
fn check_texture(
    shader: &Shader,
    resource: &Resource,
    buffer: &lockstep_pipeline::BufferDesc,
    len: u64,
) -> Result<(), RunError> {
    let types = &shader.module.types;
    let kind = pipeline_kind(resource.kind);
    let fail = |message: String| RunError::new(message).at(resource.span);
    let Some(props) = buffer.output_props else {
        return Err(fail(format!(
            "buffer '{}' is bound to {kind} '{}' but has no OutputProps giving its Width, Height and Depth",
            buffer.name, resource.name
        )));
    };
    let texel = u64::from(lockstep_ir::layout::array_stride(
        types,
        resource.element,
        resource.kind.layout_rule(),
    ));
    let given = buffer.texel_size() as u64;
    if given != texel {
        return Err(fail(format!(
            "buffer '{}' has texels of {given} bytes (Format {} x Channels {}), but the texel type '{}' of {kind} '{}' takes {texel}",
            buffer.name,
            buffer.format,
            buffer.channels,
            types.display(resource.element),
            resource.name
        )));
    }
    let (w, h, d) = (props.width, props.height, props.depth);
    let unused = match resource.kind {
        ResourceKind::Texture1DArray | ResourceKind::RWTexture1DArray if h != 1 => {
            Some("a Height of 1 (its slices are the Depth)")
        }
        ResourceKind::TextureCube if w != h || d != 6 => {
            Some("square faces (Width = Height) and a Depth of 6 (+X, -X, +Y, -Y, +Z, -Z)")
        }
        ResourceKind::TextureCubeArray if w != h || d % 6 != 0 => {
            Some("square faces (Width = Height) and a Depth of 6 per cube (+X, -X, +Y, -Y, +Z, -Z)")
        }
        k if k.is_texture_array() || k.is_cube() => None,
        k => match k.texture_coords() {
            Some(1) if h != 1 || d != 1 => Some("a Height and Depth of 1"),
            Some(2) if d != 1 => Some("a Depth of 1"),
            _ => None,
        },
    };
    if let Some(needs) = unused {
        return Err(fail(format!(
            "buffer '{}' has OutputProps Width {w}, Height {h}, Depth {d}, but {kind} '{}' needs {needs}",
            buffer.name, resource.name
        )));
    }
    if props.mip_levels > 1 {
        let one_level = if resource.kind.is_writable() {
            Some("an RW texture views one mip level")
        } else if resource.kind == ResourceKind::Texture3D {
            Some("3D textures with more than one mip level are not supported")
        } else {
            None
        };
        if let Some(why) = one_level {
            return Err(fail(format!(
                "buffer '{}' has MipLevels {}, but {kind} '{}' takes one: {why}",
                buffer.name, props.mip_levels, resource.name
            )));
        }
        let one_d = mip_dims(resource.kind) == 1 || resource.kind == ResourceKind::Texture1D;
        let longest = w.max(if one_d { 1 } else { h });
        let most = 32 - longest.leading_zeros();
        if props.mip_levels > most {
            return Err(fail(format!(
                "buffer '{}' has MipLevels {}, but a {w}x{h} texture has at most {most} (down to 1x1)",
                buffer.name, props.mip_levels
            )));
        }
    }
    let need = props.all_texels().saturating_mul(texel);
    if len != need {
        let levels = if props.mip_levels > 1 {
            format!(" in {} mip levels", props.mip_levels)
        } else {
            String::new()
        };
        return Err(fail(format!(
            "buffer '{}' holds {len} bytes, but its OutputProps give {} texels{levels} of {texel} bytes ({need} bytes)",
            buffer.name,
            props.all_texels()
        )));
    }
    Ok(())
}

/// How many of a texture's dimensions (`Bindings::dims`) shrink from mip
/// level to level: not an array's slices, nor a cube's faces.
fn mip_dims(kind: ResourceKind) -> u8 {
    match kind {
        ResourceKind::Texture1DArray | ResourceKind::RWTexture1DArray => 1,
        k if k.is_texture_array() || k.is_cube() => 2,
        _ => 3,
    }
}
