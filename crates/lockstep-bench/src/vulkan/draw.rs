//! A Vulkan draw of a graphics pipeline: its vertex buffer and attributes,
//! a vertex and a fragment shader from SPIR-V, one `R32G32B32A32_SFLOAT`
//! colour attachment cleared to zero, read back as the render target's
//! floats. The viewport has a negative height, so clip space maps to the
//! target as in Direct3D (y up in clip space, the top row first).

use std::time::Instant;

use ash::vk;
use lockstep::pipeline::{Format, Pipeline, Topology};

use super::{COLOR, Context, Error, FENCE_TIMEOUT, HostBuffer, err, host_buffer};

/// A graphics pipeline ready to draw repeatedly.
pub struct Renderer<'c> {
    ctx: &'c Context,
    modules: Vec<vk::ShaderModule>,
    layout: vk::PipelineLayout,
    render_pass: vk::RenderPass,
    pipeline: vk::Pipeline,
    image: vk::Image,
    image_memory: vk::DeviceMemory,
    view: vk::ImageView,
    framebuffer: vk::Framebuffer,
    vertices: Option<HostBuffer>,
    readback: Option<HostBuffer>,
    commands: vk::CommandPool,
    draw: vk::CommandBuffer,
    copy: vk::CommandBuffer,
    fence: vk::Fence,
    width: u32,
    height: u32,
    vertex_count: u32,
}

fn attribute_format(format: Format, channels: u32) -> Result<vk::Format, Error> {
    Ok(match (format, channels) {
        (Format::Float32, 1) => vk::Format::R32_SFLOAT,
        (Format::Float32, 2) => vk::Format::R32G32_SFLOAT,
        (Format::Float32, 3) => vk::Format::R32G32B32_SFLOAT,
        (Format::Float32, 4) => vk::Format::R32G32B32A32_SFLOAT,
        _ => {
            return Err(Error(format!(
                "vertex attributes of {channels} × {format} are not supported (Float32 only)"
            )));
        }
    })
}

impl<'c> Renderer<'c> {
    /// Builds the pipeline of `pipeline`'s graphics bindings with the
    /// vertex shader `vs` and fragment shader `fs` (entry points `main`,
    /// or as glslang names them: `entry`s given). Vertex attribute `i`
    /// feeds input location `i`.
    pub fn new(
        ctx: &'c Context,
        vs: (&[u32], &str),
        fs: (&[u32], &str),
        pipeline: &Pipeline,
    ) -> Result<Renderer<'c>, Error> {
        let g = pipeline
            .graphics
            .as_ref()
            .ok_or_else(|| Error("the pipeline has no graphics bindings".into()))?;
        let target = pipeline
            .buffer_index(&g.render_target)
            .map(|i| &pipeline.buffers[i])
            .ok_or_else(|| Error("no render target".into()))?;
        let props = target
            .output_props
            .ok_or_else(|| Error("the render target has no OutputProps".into()))?;
        let vertex_buffer = g
            .vertex_buffer
            .as_deref()
            .and_then(|name| pipeline.buffer_index(name))
            .map(|i| &pipeline.buffers[i])
            .ok_or_else(|| Error("no vertex buffer".into()))?;
        let mut r = Renderer {
            ctx,
            modules: Vec::new(),
            layout: vk::PipelineLayout::null(),
            render_pass: vk::RenderPass::null(),
            pipeline: vk::Pipeline::null(),
            image: vk::Image::null(),
            image_memory: vk::DeviceMemory::null(),
            view: vk::ImageView::null(),
            framebuffer: vk::Framebuffer::null(),
            vertices: None,
            readback: None,
            commands: vk::CommandPool::null(),
            draw: vk::CommandBuffer::null(),
            copy: vk::CommandBuffer::null(),
            fence: vk::Fence::null(),
            width: props.width,
            height: props.height,
            vertex_count: g.vertex_count,
        };
        let device = &ctx.device;
        let family = ctx.queue_family as usize;
        // SAFETY: plain Vulkan calls with valid create infos; each object is
        // stored in `r` as soon as it exists, and `Drop` destroys it.
        unsafe {
            let families = ctx
                .instance
                .enumerate_physical_devices()
                .ok()
                .and_then(|p| p.first().copied())
                .map(|p| ctx.instance.get_physical_device_queue_family_properties(p));
            if families.is_some_and(|f| {
                f.get(family)
                    .is_some_and(|f| !f.queue_flags.contains(vk::QueueFlags::GRAPHICS))
            }) {
                return Err(Error(format!("{} has no graphics queue", ctx.info.name)));
            }
            for (code, _) in [vs, fs] {
                let module = device
                    .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None)
                    .map_err(err("vkCreateShaderModule"))?;
                r.modules.push(module);
            }
            r.layout = device
                .create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), None)
                .map_err(err("vkCreatePipelineLayout"))?;
            let attachment = vk::AttachmentDescription::default()
                .format(vk::Format::R32G32B32A32_SFLOAT)
                .samples(vk::SampleCountFlags::TYPE_1)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::STORE)
                .initial_layout(vk::ImageLayout::UNDEFINED)
                .final_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL);
            let color_ref = vk::AttachmentReference::default()
                .attachment(0)
                .layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL);
            let subpass = vk::SubpassDescription::default()
                .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
                .color_attachments(std::slice::from_ref(&color_ref));
            r.render_pass = device
                .create_render_pass(
                    &vk::RenderPassCreateInfo::default()
                        .attachments(std::slice::from_ref(&attachment))
                        .subpasses(std::slice::from_ref(&subpass)),
                    None,
                )
                .map_err(err("vkCreateRenderPass"))?;

            // The colour attachment.
            r.image = device
                .create_image(
                    &vk::ImageCreateInfo::default()
                        .image_type(vk::ImageType::TYPE_2D)
                        .format(vk::Format::R32G32B32A32_SFLOAT)
                        .extent(vk::Extent3D {
                            width: r.width,
                            height: r.height,
                            depth: 1,
                        })
                        .mip_levels(1)
                        .array_layers(1)
                        .samples(vk::SampleCountFlags::TYPE_1)
                        .tiling(vk::ImageTiling::OPTIMAL)
                        .usage(
                            vk::ImageUsageFlags::COLOR_ATTACHMENT
                                | vk::ImageUsageFlags::TRANSFER_SRC,
                        ),
                    None,
                )
                .map_err(err("vkCreateImage"))?;
            let requirements = device.get_image_memory_requirements(r.image);
            r.image_memory = ctx.allocate(
                requirements,
                vk::MemoryPropertyFlags::empty(),
                vk::MemoryPropertyFlags::DEVICE_LOCAL,
            )?;
            device
                .bind_image_memory(r.image, r.image_memory, 0)
                .map_err(err("vkBindImageMemory"))?;
            r.view = device
                .create_image_view(
                    &vk::ImageViewCreateInfo::default()
                        .image(r.image)
                        .view_type(vk::ImageViewType::TYPE_2D)
                        .format(vk::Format::R32G32B32A32_SFLOAT)
                        .subresource_range(COLOR),
                    None,
                )
                .map_err(err("vkCreateImageView"))?;
            r.framebuffer = device
                .create_framebuffer(
                    &vk::FramebufferCreateInfo::default()
                        .render_pass(r.render_pass)
                        .attachments(std::slice::from_ref(&r.view))
                        .width(r.width)
                        .height(r.height)
                        .layers(1),
                    None,
                )
                .map_err(err("vkCreateFramebuffer"))?;

            // The pipeline.
            let stride = g.stride();
            let binding = vk::VertexInputBindingDescription::default()
                .binding(0)
                .stride(stride)
                .input_rate(vk::VertexInputRate::VERTEX);
            let attributes = g
                .attributes
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    Ok(vk::VertexInputAttributeDescription::default()
                        .location(i as u32)
                        .binding(0)
                        .format(attribute_format(a.format, a.channels)?)
                        .offset(a.offset))
                })
                .collect::<Result<Vec<_>, Error>>()?;
            let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
                .vertex_binding_descriptions(std::slice::from_ref(&binding))
                .vertex_attribute_descriptions(&attributes);
            let assembly =
                vk::PipelineInputAssemblyStateCreateInfo::default().topology(match g.topology {
                    Topology::TriangleList => vk::PrimitiveTopology::TRIANGLE_LIST,
                    Topology::TriangleStrip => vk::PrimitiveTopology::TRIANGLE_STRIP,
                });
            let viewport = vk::Viewport {
                x: 0.0,
                y: r.height as f32,
                width: r.width as f32,
                height: -(r.height as f32),
                min_depth: 0.0,
                max_depth: 1.0,
            };
            let scissor = vk::Rect2D {
                offset: vk::Offset2D { x: 0, y: 0 },
                extent: vk::Extent2D {
                    width: r.width,
                    height: r.height,
                },
            };
            let viewport_state = vk::PipelineViewportStateCreateInfo::default()
                .viewports(std::slice::from_ref(&viewport))
                .scissors(std::slice::from_ref(&scissor));
            let raster = vk::PipelineRasterizationStateCreateInfo::default()
                .polygon_mode(vk::PolygonMode::FILL)
                .cull_mode(vk::CullModeFlags::NONE)
                .front_face(vk::FrontFace::CLOCKWISE)
                .line_width(1.0);
            let multisample = vk::PipelineMultisampleStateCreateInfo::default()
                .rasterization_samples(vk::SampleCountFlags::TYPE_1);
            let blend_attachment = vk::PipelineColorBlendAttachmentState::default()
                .color_write_mask(vk::ColorComponentFlags::RGBA);
            let blend = vk::PipelineColorBlendStateCreateInfo::default()
                .attachments(std::slice::from_ref(&blend_attachment));
            let names = [
                std::ffi::CString::new(vs.1).map_err(|_| Error("bad entry name".into()))?,
                std::ffi::CString::new(fs.1).map_err(|_| Error("bad entry name".into()))?,
            ];
            let stages = [
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::VERTEX)
                    .module(r.modules[0])
                    .name(&names[0]),
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::FRAGMENT)
                    .module(r.modules[1])
                    .name(&names[1]),
            ];
            let info = vk::GraphicsPipelineCreateInfo::default()
                .stages(&stages)
                .vertex_input_state(&vertex_input)
                .input_assembly_state(&assembly)
                .viewport_state(&viewport_state)
                .rasterization_state(&raster)
                .multisample_state(&multisample)
                .color_blend_state(&blend)
                .layout(r.layout)
                .render_pass(r.render_pass)
                .subpass(0);
            r.pipeline = device
                .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
                .map_err(|(_, e)| Error(format!("vkCreateGraphicsPipelines: {e}")))?[0];

            // Buffers, commands and the fence.
            let vertices = host_buffer(
                ctx,
                vertex_buffer.data.len(),
                vk::BufferUsageFlags::VERTEX_BUFFER,
            )?;
            std::ptr::copy_nonoverlapping(
                vertex_buffer.data.as_ptr(),
                vertices.ptr,
                vertex_buffer.data.len(),
            );
            r.vertices = Some(vertices);
            let bytes = r.width as usize * r.height as usize * 16;
            r.readback = Some(host_buffer(ctx, bytes, vk::BufferUsageFlags::TRANSFER_DST)?);
            r.commands = device
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default().queue_family_index(ctx.queue_family),
                    None,
                )
                .map_err(err("vkCreateCommandPool"))?;
            let buffers = device
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(r.commands)
                        .level(vk::CommandBufferLevel::PRIMARY)
                        .command_buffer_count(2),
                )
                .map_err(err("vkAllocateCommandBuffers"))?;
            (r.draw, r.copy) = (buffers[0], buffers[1]);
            r.fence = device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .map_err(err("vkCreateFence"))?;
            r.record()?;
        }
        Ok(r)
    }

    /// Records the draw and the read-back, each in a command buffer of its
    /// own.
    fn record(&self) -> Result<(), Error> {
        let device = &self.ctx.device;
        let (Some(vertices), Some(readback)) = (&self.vertices, &self.readback) else {
            return Err(Error("the renderer's buffers are missing".into()));
        };
        // SAFETY: the command buffers are fresh and every handle is live.
        unsafe {
            let begin = vk::CommandBufferBeginInfo::default();
            device
                .begin_command_buffer(self.draw, &begin)
                .map_err(err("vkBeginCommandBuffer"))?;
            let clear = vk::ClearValue {
                color: vk::ClearColorValue { float32: [0.0; 4] },
            };
            let pass = vk::RenderPassBeginInfo::default()
                .render_pass(self.render_pass)
                .framebuffer(self.framebuffer)
                .render_area(vk::Rect2D {
                    offset: vk::Offset2D { x: 0, y: 0 },
                    extent: vk::Extent2D {
                        width: self.width,
                        height: self.height,
                    },
                })
                .clear_values(std::slice::from_ref(&clear));
            device.cmd_begin_render_pass(self.draw, &pass, vk::SubpassContents::INLINE);
            device.cmd_bind_pipeline(self.draw, vk::PipelineBindPoint::GRAPHICS, self.pipeline);
            device.cmd_bind_vertex_buffers(self.draw, 0, &[vertices.buffer], &[0]);
            device.cmd_draw(self.draw, self.vertex_count, 1, 0, 0);
            device.cmd_end_render_pass(self.draw);
            device
                .end_command_buffer(self.draw)
                .map_err(err("vkEndCommandBuffer"))?;

            device
                .begin_command_buffer(self.copy, &begin)
                .map_err(err("vkBeginCommandBuffer"))?;
            let region = vk::BufferImageCopy::default()
                .image_subresource(vk::ImageSubresourceLayers {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    mip_level: 0,
                    base_array_layer: 0,
                    layer_count: 1,
                })
                .image_extent(vk::Extent3D {
                    width: self.width,
                    height: self.height,
                    depth: 1,
                });
            device.cmd_copy_image_to_buffer(
                self.copy,
                self.image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                readback.buffer,
                &[region],
            );
            let after = vk::BufferMemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ)
                .buffer(readback.buffer)
                .size(vk::WHOLE_SIZE);
            device.cmd_pipeline_barrier(
                self.copy,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[],
                &[after],
                &[],
            );
            device
                .end_command_buffer(self.copy)
                .map_err(err("vkEndCommandBuffer"))?;
        }
        Ok(())
    }

    fn submit(&self, cb: vk::CommandBuffer) -> Result<(), Error> {
        let device = &self.ctx.device;
        // SAFETY: the command buffer is recorded and not pending; the fence
        // is unsignalled (reset after every wait).
        unsafe {
            let submit = vk::SubmitInfo::default().command_buffers(std::slice::from_ref(&cb));
            device
                .queue_submit(self.ctx.queue, &[submit], self.fence)
                .map_err(err("vkQueueSubmit"))?;
            let waited =
                device.wait_for_fences(&[self.fence], true, FENCE_TIMEOUT.as_nanos() as u64);
            let _ = device.reset_fences(&[self.fence]);
            waited.map_err(err("vkWaitForFences"))
        }
    }

    /// Draws once; the time from submitting the draw to its fence.
    pub fn draw(&self) -> Result<std::time::Duration, Error> {
        let start = Instant::now();
        self.submit(self.draw)?;
        Ok(start.elapsed())
    }

    /// The target's floats after the last draw, four per pixel, the top
    /// row first.
    pub fn read(&self) -> Result<Vec<f32>, Error> {
        self.submit(self.copy)?;
        let readback = self
            .readback
            .as_ref()
            .ok_or_else(|| Error("no read-back buffer".into()))?;
        // SAFETY: the mapping holds `size` bytes, written by the device
        // before the fence signalled (host-coherent memory).
        let bytes = unsafe { std::slice::from_raw_parts(readback.ptr, readback.size) };
        Ok(bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
}

impl Drop for Renderer<'_> {
    fn drop(&mut self) {
        let device = &self.ctx.device;
        // SAFETY: the device is idle after the wait; destroying null
        // handles is a no-op.
        unsafe {
            let _ = device.device_wait_idle();
            device.destroy_fence(self.fence, None);
            device.destroy_command_pool(self.commands, None);
            for b in [self.vertices.take(), self.readback.take()]
                .into_iter()
                .flatten()
            {
                device.destroy_buffer(b.buffer, None);
                device.free_memory(b.memory, None);
            }
            device.destroy_framebuffer(self.framebuffer, None);
            device.destroy_image_view(self.view, None);
            device.destroy_image(self.image, None);
            device.free_memory(self.image_memory, None);
            device.destroy_pipeline(self.pipeline, None);
            device.destroy_render_pass(self.render_pass, None);
            device.destroy_pipeline_layout(self.layout, None);
            for &m in &self.modules {
                device.destroy_shader_module(m, None);
            }
        }
    }
}
