//! A dispatch on a Vulkan device: the shader as SPIR-V (lockstep-spirv),
//! the pipeline's buffers bound as the module declares them
//! (lockstep-vulkan), the buffers read back and the pipeline's result rules
//! checked, as [`crate::run`] does on the CPU.

use std::time::Duration;

use lockstep_exec::{Device as WaveDevice, Memory, WavePreference};
use lockstep_ir::{LayoutRule, ResourceId, ResourceKind, Stage};
use lockstep_pipeline::Pipeline;
use lockstep_spirv::{Options, VulkanBinding};
use lockstep_vulkan::{Device, Job, JobBuffer};

use crate::bind::{Bindings, choose_wave_size};
use crate::{BufferContents, RunError, RunOutput, Shader};

/// What [`run_vulkan`] did besides the buffers.
#[derive(Clone, Debug)]
pub struct VulkanRun<'p> {
    /// The buffers and the rules' outcomes, as a CPU run gives them.
    pub output: RunOutput<'p>,
    /// How long each dispatch took on the device (its timestamps).
    pub dispatch_times: Vec<Duration>,
}

/// How a dispatch runs on a Vulkan device.
#[derive(Clone, Debug)]
pub struct VulkanOptions {
    /// The wave size to ask for (default: the device's subgroup size, or
    /// the shader's `[WaveSize]`).
    pub wave_size: Option<u32>,
    /// Loop iterations one thread may run, over all its loops, before the
    /// dispatch stops with an error naming the loop (at most 2^32 - 2).
    pub step_budget: u64,
    /// Dispatches in one submission, each after the one before (for timing:
    /// a run reads what the one before wrote).
    pub runs: u32,
}

impl Default for VulkanOptions {
    fn default() -> VulkanOptions {
        VulkanOptions {
            wave_size: None,
            step_budget: crate::RunOptions::default().step_budget,
            runs: 1,
        }
    }
}

/// Runs `shader` on `device` with `pipeline`'s buffers. The wave size is
/// the device's subgroup size, or the one `opts` or the shader's
/// `[WaveSize]` asks for where the device can require one.
pub fn run_vulkan<'p>(
    shader: &Shader,
    pipeline: &'p Pipeline,
    device: &Device,
    opts: &VulkanOptions,
) -> Result<VulkanRun<'p>, RunError> {
    let wave_size = opts.wave_size;
    let entry = shader
        .module
        .entry
        .as_ref()
        .ok_or_else(|| RunError::new("the shader has no entry point"))?;
    if entry.stage != Stage::Compute || pipeline.graphics.is_some() {
        return Err(RunError::new(
            "Vulkan devices run compute dispatches; draws run on the CPU only",
        ));
    }
    let info = &device.info;
    let bindings = Bindings::new(shader, pipeline)?;
    let (lo, hi) = info.subgroup_sizes;
    let sizes = WaveDevice {
        preferred: wave_size.unwrap_or(info.subgroup_size),
        min: lo.max(4),
        max: hi.min(128),
        preference: WavePreference::Nearest,
    };
    let choice = choose_wave_size(shader, &sizes).map_err(|e| {
        e.with_note(format!(
            "{} runs subgroups of {}",
            info.name,
            if lo == hi {
                format!("{lo} lanes")
            } else {
                format!("{lo} to {hi} lanes")
            }
        ))
    })?;
    let size = choice.size;
    check_limits(shader, pipeline, info, entry.group.extent(size))?;
    let given = vulkan_bindings(shader, pipeline, &bindings);
    let budget = opts.step_budget.min(u64::from(u32::MAX - 1)) as u32;
    let options = Options {
        wave_size: Some(size),
        maximal_reconvergence: info.maximal_reconvergence,
        bindings: given,
        step_budget: Some(budget),
        ..Options::default()
    };
    let module = crate::emit_spirv(shader, &options).map_err(|e| {
        let d = e.diagnostics.first();
        RunError::new(d.map_or_else(String::new, |d| d.message.clone()))
    })?;
    if module.partitioned && !info.partitioned {
        return Err(RunError::new(format!(
            "WaveMatch and WaveMultiPrefix* need VK_NV_shader_subgroup_partitioned, which {} does not have",
            info.name
        )));
    }
    if module.derivative_quads && !info.derivative_quads {
        return Err(RunError::new(format!(
            "this shader's quad operations (or derivatives) run on 2x2 quads of its 2D group (SM 6.6), which need VK_NV_compute_shader_derivatives with quad groups; {} does not have it",
            info.name
        )));
    }
    bindings.one_level_each(shader, &info.name)?;
    let data = resource_bytes(shader, pipeline, &bindings);
    let dims: Vec<u8> = module.dims.as_ref().map_or_else(Vec::new, |d| {
        d.textures
            .iter()
            .flat_map(|t| {
                let [w, h, z] = bindings.texture_dims(t.index());
                [w, h.max(1), z.max(1), 0]
            })
            .flat_map(u32::to_le_bytes)
            .collect()
    });
    let mut buffers: Vec<JobBuffer<'_>> = module
        .bindings
        .iter()
        .map(|b| JobBuffer {
            set: b.binding.set,
            binding: b.binding.binding,
            uniform: b.uniform,
            data: &data[b.resource.index()],
        })
        .collect();
    if let Some(d) = &module.dims {
        buffers.push(JobBuffer {
            set: d.binding.set,
            binding: d.binding.binding,
            uniform: false,
            data: &dims,
        });
    }
    let status_at = buffers.len();
    if let Some(s) = &module.status {
        buffers.push(JobBuffer {
            set: s.binding.set,
            binding: s.binding.binding,
            uniform: false,
            data: &[0; 8],
        });
    }
    let group = entry.group.extent(size);
    let job = Job {
        spirv: &module.words,
        entry: &entry.name,
        buffers,
        groups: pipeline.dispatch,
        subgroup_size: (size != info.subgroup_size || entry.wave_size.is_some()).then_some(size),
        full_subgroups: group[0] % size == 0,
        spec_workgroup: None,
        runs: opts.runs,
    };
    let done = device
        .dispatch(&job)
        .map_err(|e| RunError::new(format!("{}: {e}", info.name)))?;
    let after = done.buffers;
    if let (Some(status), Some(words)) = (&module.status, after.get(status_at))
        && words.len() >= 8
        && words[..4] != [0; 4]
    {
        let which = u32::from_le_bytes([words[4], words[5], words[6], words[7]]);
        let mut e = RunError::new(format!(
            "a thread ran past the step budget of {budget} loop iterations on {}",
            info.name
        ))
        .with_note("raise it with --max-steps N, or look for a loop that never ends or waits for another group");
        if let Some(&span) = which
            .checked_sub(1)
            .and_then(|i| status.loops.get(i as usize))
        {
            e = e.at(span);
        }
        return Err(e);
    }
    // Each pipeline buffer: its bytes, with what each writable resource
    // bound to it holds afterwards.
    let contents: Vec<BufferContents<'p>> = pipeline
        .buffers
        .iter()
        .enumerate()
        .map(|(b, desc)| {
            let mut bytes = desc.data.clone();
            for (slot, offset) in bindings.slots_of_buffer(pipeline, b) {
                let r = &shader.module.resources[slot];
                let Some(k) = module
                    .bindings
                    .iter()
                    .position(|x| x.resource.index() == slot)
                else {
                    continue;
                };
                if r.kind.is_writable() {
                    let new = &after[k];
                    let end = (offset + new.len()).min(bytes.len());
                    bytes[offset..end].copy_from_slice(&new[..end - offset]);
                }
            }
            BufferContents::from_memory(Memory::from_bytes(&bytes))
        })
        .collect();
    let outcomes = lockstep_pipeline::check_results(pipeline, &contents);
    Ok(VulkanRun {
        output: RunOutput {
            wave_size: choice,
            contents,
            outcomes,
        },
        dispatch_times: done.times,
    })
}

/// What the dispatch asks of the device, against its limits: a dispatch
/// past them is undefined in Vulkan, so it is an error here.
fn check_limits(
    shader: &Shader,
    pipeline: &Pipeline,
    info: &lockstep_vulkan::DeviceInfo,
    group: [u32; 3],
) -> Result<(), RunError> {
    let axes = ["x", "y", "z"];
    for a in 0..3 {
        if pipeline.dispatch[a] > info.max_group_count[a] {
            return Err(RunError::new(format!(
                "the dispatch has {} groups in {}; {} allows at most {}",
                pipeline.dispatch[a], axes[a], info.name, info.max_group_count[a]
            )));
        }
        if group[a] > info.max_group_size[a] {
            return Err(RunError::new(format!(
                "a group is {} threads wide in {}; {} allows at most {}",
                group[a], axes[a], info.name, info.max_group_size[a]
            )));
        }
    }
    let threads: u64 = group.iter().map(|&n| u64::from(n)).product();
    if threads > u64::from(info.max_group_threads) {
        return Err(RunError::new(format!(
            "a group has {threads} threads; {} allows at most {}",
            info.name, info.max_group_threads
        )));
    }
    let shared: u64 = shader
        .module
        .groupshared
        .iter()
        .map(|v| {
            u64::from(
                lockstep_ir::layout::size_align(&shader.module.types, v.ty, LayoutRule::Packed)
                    .size,
            )
        })
        .sum();
    if shared > u64::from(info.max_shared_memory) {
        return Err(RunError::new(format!(
            "the shader's groupshared variables take {shared} bytes; {} has {} per group",
            info.name, info.max_shared_memory
        )));
    }
    Ok(())
}

/// The pipeline's `VulkanBinding` of each resource that has one: set =
/// the descriptor set's index in the pipeline.
pub(crate) fn vulkan_bindings(
    shader: &Shader,
    pipeline: &Pipeline,
    bindings: &Bindings,
) -> Vec<(ResourceId, VulkanBinding)> {
    let mut out = Vec::new();
    for (i, r) in shader.module.resources.iter().enumerate() {
        let Some(buffer) = pipeline.buffers.get(bindings.buffer_of[i]) else {
            continue;
        };
        let found = pipeline.bindings.iter().find(|b| {
            b.name == buffer.name
                && b.kind.register_class() == r.kind.register_class()
                && b.register == r.register
                && b.space == r.space
        });
        if let Some(b) = found
            && let Some(binding) = b.vulkan_binding
        {
            out.push((
                ResourceId(i as u32),
                VulkanBinding {
                    set: b.set as u32,
                    binding,
                },
            ));
        }
    }
    out
}

/// Each resource's bytes before the dispatch: its share of its pipeline
/// buffer, a counter's starting value, a constant buffer padded to its
/// layout's size in whole 16-byte registers.
pub(crate) fn resource_bytes(
    shader: &Shader,
    pipeline: &Pipeline,
    bindings: &Bindings,
) -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new(); shader.module.resources.len()];
    for (b, desc) in pipeline.buffers.iter().enumerate() {
        let each = desc.data.len() / desc.array_size.max(1) as usize;
        for (slot, offset) in bindings.slots_of_buffer(pipeline, b) {
            out[slot] = desc.data[offset..offset + each].to_vec();
        }
    }
    let mut counters = bindings.counters.iter();
    for (i, r) in shader.module.resources.iter().enumerate() {
        if r.counter_of.is_some() {
            out[i] = counters.next().copied().unwrap_or(0).to_le_bytes().to_vec();
        }
        if let Some(state) = bindings.sampler_state(i) {
            out[i] = state.to_vec();
        }
        if matches!(
            r.kind,
            ResourceKind::ConstantBuffer | ResourceKind::SamplerState
        ) {
            let size = lockstep_ir::layout::size_align(
                &shader.module.types,
                r.element,
                LayoutRule::CBuffer,
            )
            .size;
            let want = (size.div_ceil(16).max(1) * 16) as usize;
            if out[i].len() < want {
                out[i].resize(want, 0);
            }
        }
    }
    out
}
