//! A draw on a Vulkan device: both shaders as SPIR-V with their varyings
//! at shared locations, the pipeline's vertex attributes and buffers, the
//! render and depth targets read back as [`crate::draw`] gives them.

use lockstep_ir::{Stage, VaryingKind};
use lockstep_pipeline::{Format, Pipeline, Topology};
use lockstep_spirv::Options;
use lockstep_vulkan::{Attribute, AttributeFormat, ColorKind, Device, DrawJob, JobBuffer};

use crate::bind::{Bindings, choose_wave_size};
use crate::draw::{encode, stage_io};
use crate::vulkan::{VulkanOptions, VulkanRun, resource_bytes, vulkan_bindings};
use crate::{BufferContents, RunError, RunOutput, Shader};

/// Draws `pipeline` with `vertex` and `pixel` on `device`.
pub fn draw_vulkan<'p>(
    vertex: &Shader,
    pixel: &Shader,
    pipeline: &'p Pipeline,
    device: &Device,
    opts: &VulkanOptions,
) -> Result<VulkanRun<'p>, RunError> {
    let info = &device.info;
    let g = pipeline.graphics.as_ref().ok_or_else(|| {
        RunError::new("this pipeline has no graphics Bindings (VertexBuffer, RenderTarget)")
    })?;
    let vio = stage_io(vertex, Stage::Vertex, "first")?;
    let pio = stage_io(pixel, Stage::Pixel, "second")?;
    let vb = Bindings::new(vertex, pipeline)?;
    let pb = Bindings::new(pixel, pipeline)?;
    if !vb.counters.is_empty() || !pb.counters.is_empty() {
        return Err(RunError::new(
            "not supported: structured-buffer counters (IncrementCounter, Append, Consume) in a draw",
        ));
    }
    let sizes = lockstep_exec::Device {
        preferred: info.subgroup_size,
        min: info.subgroup_sizes.0.max(4),
        max: info.subgroup_sizes.1.min(128),
        preference: lockstep_exec::WavePreference::Nearest,
    };
    let choice = choose_wave_size(pixel, &sizes)?;
    let varyings: Vec<(String, u32)> = vio
        .outputs
        .iter()
        .filter(|v| !v.semantic.starts_with("SV_"))
        .map(|v| (v.semantic.clone(), v.index))
        .collect();
    let attributes_names: Vec<String> = g
        .attributes
        .iter()
        .map(|a| a.name.to_ascii_uppercase())
        .collect();
    // One status buffer for both stages' loops, at a binding neither uses.
    let mut taken = Vec::new();
    for (shader, bindings) in [(vertex, &vb), (pixel, &pb)] {
        let given = vulkan_bindings(shader, pipeline, bindings);
        taken.extend(
            lockstep_spirv::bindings(&shader.module, &given)
                .map_err(|e| RunError::new(e.message))?,
        );
    }
    // The status buffer, then each stage's texture sizes, at bindings
    // neither stage uses.
    let mut free = (0..).filter(|&n| !taken.iter().any(|b| b.set == 0 && b.binding == n));
    let mut next = || lockstep_spirv::VulkanBinding {
        set: 0,
        binding: free.next().unwrap_or(0),
    };
    let (status, vertex_dims, pixel_dims) = (next(), next(), next());
    let budget = opts.step_budget.min(u64::from(u32::MAX - 1)) as u32;
    let emit = |shader: &Shader, bindings: &Bindings, first_loop: u32, dims| {
        let options = Options {
            maximal_reconvergence: info.maximal_reconvergence,
            bindings: vulkan_bindings(shader, pipeline, bindings),
            varyings: varyings.clone(),
            attributes: attributes_names.clone(),
            step_budget: Some(budget),
            status_binding: Some(status),
            first_loop,
            dims_binding: Some(dims),
            ..Options::default()
        };
        crate::emit_spirv(shader, &options).map_err(|e| {
            RunError::new(
                e.diagnostics
                    .first()
                    .map_or_else(String::new, |d| d.message.clone()),
            )
        })
    };
    let vm = emit(vertex, &vb, 0, vertex_dims)?;
    let vertex_loops = vm.status.as_ref().map_or(0, |s| s.loops.len() as u32);
    let pm = emit(pixel, &pb, vertex_loops, pixel_dims)?;
    if (vm.partitioned || pm.partitioned) && !info.partitioned {
        return Err(RunError::new(format!(
            "WaveMatch and WaveMultiPrefix* need VK_NV_shader_subgroup_partitioned, which {} does not have",
            info.name
        )));
    }
    vb.one_level_each(vertex, &info.name)?;
    pb.one_level_each(pixel, &info.name)?;
    // Each stage's texture sizes, in its own order of its textures.
    let dims_of = |module: &lockstep_spirv::Spirv, bindings: &Bindings| -> Vec<u8> {
        module.dims.as_ref().map_or_else(Vec::new, |d| {
            d.textures
                .iter()
                .flat_map(|t| {
                    let [w, h, z] = bindings.texture_dims(t.index());
                    [w, h.max(1), z.max(1), 0]
                })
                .flat_map(u32::to_le_bytes)
                .collect()
        })
    };
    let (vdims, pdims) = (dims_of(&vm, &vb), dims_of(&pm, &pb));
    // Each binding once, from whichever stage declares it.
    let vdata = resource_bytes(vertex, pipeline, &vb);
    let pdata = resource_bytes(pixel, pipeline, &pb);
    let mut buffers: Vec<JobBuffer<'_>> = Vec::new();
    let mut owners = Vec::new();
    for (module, data, bindings, shader) in [(&vm, &vdata, &vb, vertex), (&pm, &pdata, &pb, pixel)]
    {
        for b in &module.bindings {
            let slot = b.resource.index();
            let buffer = bindings.buffer_of[slot];
            if let Some(k) = buffers
                .iter()
                .position(|x| x.set == b.binding.set && x.binding == b.binding.binding)
            {
                let (_, other) = owners[k];
                if other != buffer {
                    return Err(RunError::new(format!(
                        "the two shaders bind different buffers at binding {} of set {}",
                        b.binding.binding, b.binding.set
                    )));
                }
                continue;
            }
            buffers.push(JobBuffer {
                set: b.binding.set,
                binding: b.binding.binding,
                uniform: b.uniform,
                data: &data[slot],
            });
            owners.push((shader.module.resources[slot].kind.is_writable(), buffer));
        }
    }
    let status_at = buffers.len();
    buffers.push(JobBuffer {
        set: status.set,
        binding: status.binding,
        uniform: false,
        data: &[0; 8],
    });
    for (module, data) in [(&vm, &vdims), (&pm, &pdims)] {
        if let Some(d) = &module.dims {
            buffers.push(JobBuffer {
                set: d.binding.set,
                binding: d.binding.binding,
                uniform: false,
                data,
            });
        }
    }
    // Without a vertex buffer, one word stands in (no attribute reads it).
    let vertices: &[u8] = match &g.vertex_buffer {
        Some(name) => {
            &pipeline
                .buffer_index(name)
                .map(|i| &pipeline.buffers[i])
                .ok_or_else(|| {
                    RunError::new(format!("no buffer named '{name}' for the vertex buffer"))
                })?
                .data
        }
        None => &[0; 4],
    };
    let attributes = g
        .attributes
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let format = match a.format {
                Format::Float32 => AttributeFormat::Float32,
                Format::Float16 => AttributeFormat::Float16,
                Format::Int32 => AttributeFormat::Int32,
                Format::UInt32 | Format::Hex32 => AttributeFormat::UInt32,
                other => {
                    return Err(RunError::new(format!(
                        "vertex attribute '{}' is {other}: a Vulkan draw takes Float32, Float16, Int32 and UInt32 attributes",
                        a.name
                    )));
                }
            };
            Ok(Attribute {
                location: i as u32,
                format,
                components: a.channels,
                offset: a.offset,
            })
        })
        .collect::<Result<Vec<_>, RunError>>()?;
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
    let target_kind = pio
        .outputs
        .iter()
        .find(|v| v.semantic == "SV_TARGET" && v.index == 0)
        .map(|v| v.kind);
    let depth_index = g
        .depth_target
        .as_ref()
        .and_then(|d| pipeline.buffer_index(d));
    let ventry = &vertex
        .module
        .entry
        .as_ref()
        .map(|e| e.name.clone())
        .unwrap_or_default();
    let pentry = &pixel
        .module
        .entry
        .as_ref()
        .map(|e| e.name.clone())
        .unwrap_or_default();
    let job = DrawJob {
        vertex: (&vm.words, ventry),
        pixel: (&pm.words, pentry),
        buffers,
        vertices,
        stride: g.stride(),
        attributes,
        vertex_count: g.vertex_count,
        strip: g.topology == Topology::TriangleStrip,
        size: (props.width, props.height),
        color: match target_kind {
            Some(VaryingKind::Int) => ColorKind::Int,
            Some(VaryingKind::UInt) => ColorKind::UInt,
            _ => ColorKind::Float,
        },
        depth: depth_index.is_some(),
    };
    let drawn = device
        .draw(&job)
        .map_err(|e| RunError::new(format!("{}: {e}", info.name)))?;
    if let Some(words) = drawn.buffers.get(status_at)
        && words.len() >= 8
        && words[..4] != [0; 4]
    {
        let which = u32::from_le_bytes([words[4], words[5], words[6], words[7]]) as usize;
        let loops: Vec<lockstep_ir::Span> = [&vm, &pm]
            .iter()
            .flat_map(|m| m.status.iter().flat_map(|s| s.loops.iter().copied()))
            .collect();
        let stage = if which <= vertex_loops as usize {
            "vertex"
        } else {
            "pixel"
        };
        let mut e = RunError::new(format!(
            "a {stage}-shader thread ran past the step budget of {budget} loop iterations on {}",
            info.name
        ))
        .with_note("raise it with --max-steps N, or look for a loop that never ends");
        if let Some(&span) = which.checked_sub(1).and_then(|i| loops.get(i)) {
            e = e.at(span);
        }
        return Err(e);
    }
    let mut contents: Vec<BufferContents<'p>> = pipeline
        .buffers
        .iter()
        .enumerate()
        .map(|(b, desc)| {
            let mut bytes = desc.data.clone();
            for (k, &(writable, buffer)) in owners.iter().enumerate() {
                if writable && buffer == b {
                    let new = &drawn.buffers[k];
                    let end = new.len().min(bytes.len());
                    bytes[..end].copy_from_slice(&new[..end]);
                }
            }
            BufferContents::from_memory(lockstep_exec::Memory::from_bytes(&bytes))
        })
        .collect();
    if let (Some(d), Some(values)) = (depth_index, drawn.depth.as_ref()) {
        let len = values.len() * 4;
        let words = values.iter().map(|v| v.to_bits().to_le()).collect();
        contents[d] = BufferContents::from_words(words, len);
    }
    let image = lockstep_raster::Image {
        width: props.width,
        height: props.height,
        color: drawn.color,
        color_kind: target_kind,
        depth: None,
        lanes: 0,
        helpers: 0,
        findings: Vec::new(),
    };
    contents[rt] = encode(image, rt_desc.format, rt_desc.channels);
    let outcomes = lockstep_pipeline::check_results(pipeline, &contents);
    Ok(VulkanRun {
        output: RunOutput {
            wave_size: choice,
            contents,
            outcomes,
        },
        dispatch_times: vec![drawn.time],
    })
}
