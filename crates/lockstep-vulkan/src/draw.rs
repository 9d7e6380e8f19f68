//! One draw on a Vulkan device: a vertex and a pixel module, a vertex
//! buffer, a 32-bit RGBA colour target cleared to zero and an optional
//! 32-bit depth target cleared to 1.0 and tested LESS, with D3D's
//! viewport (y down from the top row, through a negative viewport height).

use std::time::Duration;

use ash::vk;

use crate::{Device, Error, JobBuffer, Objects, barrier, err};

/// The element format of a vertex attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttributeFormat {
    /// 32-bit floats.
    Float32,
    /// 16-bit floats, read as 32-bit ones.
    Float16,
    /// 32-bit signed integers.
    Int32,
    /// 32-bit unsigned integers.
    UInt32,
}

/// One vertex attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attribute {
    /// The vertex shader's input location.
    pub location: u32,
    /// Its elements.
    pub format: AttributeFormat,
    /// Components, 1 to 4.
    pub components: u32,
    /// Bytes from the start of the vertex.
    pub offset: u32,
}

/// What the colour target's words hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorKind {
    /// 32-bit floats.
    Float,
    /// 32-bit signed integers.
    Int,
    /// 32-bit unsigned integers.
    UInt,
}

/// One draw.
#[derive(Clone, Debug)]
pub struct DrawJob<'a> {
    /// The vertex module and its entry point.
    pub vertex: (&'a [u32], &'a str),
    /// The pixel module and its entry point.
    pub pixel: (&'a [u32], &'a str),
    /// The buffers both modules declare (once each).
    pub buffers: Vec<JobBuffer<'a>>,
    /// The vertex buffer's bytes.
    pub vertices: &'a [u8],
    /// Bytes from one vertex to the next.
    pub stride: u32,
    /// The attributes.
    pub attributes: Vec<Attribute>,
    /// Vertices drawn.
    pub vertex_count: u32,
    /// A triangle strip rather than a list.
    pub strip: bool,
    /// The target's size in pixels.
    pub size: (u32, u32),
    /// The colour target's words.
    pub color: ColorKind,
    /// Whether a depth target is bound.
    pub depth: bool,
}

/// What [`Device::draw`] gives back.
#[derive(Clone, Debug)]
pub struct Drawn {
    /// Four words per pixel, rows from the top.
    pub color: Vec<[u32; 4]>,
    /// The depth target, when one is bound.
    pub depth: Option<Vec<f32>>,
    /// Each buffer's bytes afterwards, in the job's order.
    pub buffers: Vec<Vec<u8>>,
    /// The draw's time on the device.
    pub time: Duration,
}

fn attribute_format(a: &Attribute) -> vk::Format {
    use AttributeFormat as F;
    let table: [[vk::Format; 4]; 4] = [
        [
            vk::Format::R32_SFLOAT,
            vk::Format::R32G32_SFLOAT,
            vk::Format::R32G32B32_SFLOAT,
            vk::Format::R32G32B32A32_SFLOAT,
        ],
        [
            vk::Format::R16_SFLOAT,
            vk::Format::R16G16_SFLOAT,
            vk::Format::R16G16B16_SFLOAT,
            vk::Format::R16G16B16A16_SFLOAT,
        ],
        [
            vk::Format::R32_SINT,
            vk::Format::R32G32_SINT,
            vk::Format::R32G32B32_SINT,
            vk::Format::R32G32B32A32_SINT,
        ],
        [
            vk::Format::R32_UINT,
            vk::Format::R32G32_UINT,
            vk::Format::R32G32B32_UINT,
            vk::Format::R32G32B32A32_UINT,
        ],
    ];
    let row = match a.format {
        F::Float32 => 0,
        F::Float16 => 1,
        F::Int32 => 2,
        F::UInt32 => 3,
    };
    table[row][(a.components.clamp(1, 4) - 1) as usize]
}

impl Device {
    /// Runs `job` and reads back the targets and buffers.
    pub fn draw(&self, job: &DrawJob<'_>) -> Result<Drawn, Error> {
        let mut objects = Objects::new(&self.device);
        let result = self.draw_with(job, &mut objects);
        objects.destroy();
        result
    }

    fn image(
        &self,
        o: &mut Objects<'_>,
        format: vk::Format,
        usage: vk::ImageUsageFlags,
        aspect: vk::ImageAspectFlags,
        (width, height): (u32, u32),
    ) -> Result<(vk::Image, vk::ImageView), Error> {
        let d = &self.device;
        // SAFETY: valid create infos for this device; `o` destroys what is
        // made.
        unsafe {
            let image = d
                .create_image(
                    &vk::ImageCreateInfo::default()
                        .image_type(vk::ImageType::TYPE_2D)
                        .format(format)
                        .extent(vk::Extent3D {
                            width,
                            height,
                            depth: 1,
                        })
                        .mip_levels(1)
                        .array_layers(1)
                        .samples(vk::SampleCountFlags::TYPE_1)
                        .tiling(vk::ImageTiling::OPTIMAL)
                        .usage(usage),
                    None,
                )
                .map_err(err("vkCreateImage"))?;
            o.images.push(image);
            let req = d.get_image_memory_requirements(image);
            let kind = self
                .memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::DEVICE_LOCAL)
                .or_else(|_| {
                    self.memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::empty())
                })?;
            let memory = d
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(kind),
                    None,
                )
                .map_err(err("vkAllocateMemory"))?;
            o.memories.push(memory);
            d.bind_image_memory(image, memory, 0)
                .map_err(err("vkBindImageMemory"))?;
            let view = d
                .create_image_view(
                    &vk::ImageViewCreateInfo::default()
                        .image(image)
                        .view_type(vk::ImageViewType::TYPE_2D)
                        .format(format)
                        .subresource_range(range(aspect)),
                    None,
                )
                .map_err(err("vkCreateImageView"))?;
            o.views.push(view);
            Ok((image, view))
        }
    }

    fn draw_with(&self, job: &DrawJob<'_>, o: &mut Objects<'_>) -> Result<Drawn, Error> {
        let d = &self.device;
        let (width, height) = job.size;
        let color_format = match job.color {
            ColorKind::Float => vk::Format::R32G32B32A32_SFLOAT,
            ColorKind::Int => vk::Format::R32G32B32A32_SINT,
            ColorKind::UInt => vk::Format::R32G32B32A32_UINT,
        };
        let depth_format = vk::Format::D32_SFLOAT;
        let buffers = self.upload(o, &job.buffers)?;
        let (pipeline_layout, descriptor_sets) = self.descriptors(
            o,
            &job.buffers,
            &buffers,
            vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT,
        )?;
        let vertices = [JobBuffer {
            set: 0,
            binding: 0,
            uniform: false,
            data: job.vertices,
        }];
        let vertex_size = (job.vertices.len().div_ceil(4) * 4).max(16) as u64;
        let vertex_staging_buffer = self.upload(o, &vertices)?[0].3;
        let (vertex_buffer, _) = self.buffer(
            o,
            vertex_size,
            vk::BufferUsageFlags::VERTEX_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
            vk::MemoryPropertyFlags::DEVICE_LOCAL,
        )?;
        let (color, color_view) = self.image(
            o,
            color_format,
            vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
            vk::ImageAspectFlags::COLOR,
            job.size,
        )?;
        let depth = if job.depth {
            Some(self.image(
                o,
                depth_format,
                vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC,
                vk::ImageAspectFlags::DEPTH,
                job.size,
            )?)
        } else {
            None
        };
        let pixels = u64::from(width) * u64::from(height);
        let readback = |e: &Self, o: &mut Objects<'_>, bytes: u64| {
            e.buffer(
                o,
                bytes.max(16),
                vk::BufferUsageFlags::TRANSFER_DST,
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
            )
        };
        let (color_out, color_memory) = readback(self, o, pixels * 16)?;
        let depth_out = match depth {
            Some(_) => Some(readback(self, o, pixels * 4)?),
            None => None,
        };
        // SAFETY: every object is made from `d` with valid create infos and
        // recorded in `o`, which destroys them after the queue is idle;
        // mapped pointers are used within their allocation's size.
        unsafe {
            let mut modules = Vec::new();
            for (code, _) in [job.vertex, job.pixel] {
                let m = d
                    .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None)
                    .map_err(err("vkCreateShaderModule"))?;
                o.modules.push(m);
                modules.push(m);
            }
            let names = [
                std::ffi::CString::new(job.vertex.1)
                    .map_err(|_| Error("an entry point name with a NUL byte".into()))?,
                std::ffi::CString::new(job.pixel.1)
                    .map_err(|_| Error("an entry point name with a NUL byte".into()))?,
            ];
            let stages = [
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::VERTEX)
                    .module(modules[0])
                    .name(&names[0]),
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::FRAGMENT)
                    .module(modules[1])
                    .name(&names[1]),
            ];
            let bindings = [vk::VertexInputBindingDescription {
                binding: 0,
                stride: job.stride,
                input_rate: vk::VertexInputRate::VERTEX,
            }];
            let attributes: Vec<vk::VertexInputAttributeDescription> = job
                .attributes
                .iter()
                .map(|a| vk::VertexInputAttributeDescription {
                    location: a.location,
                    binding: 0,
                    format: attribute_format(a),
                    offset: a.offset,
                })
                .collect();
            let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
                .vertex_binding_descriptions(&bindings)
                .vertex_attribute_descriptions(&attributes);
            let assembly =
                vk::PipelineInputAssemblyStateCreateInfo::default().topology(if job.strip {
                    vk::PrimitiveTopology::TRIANGLE_STRIP
                } else {
                    vk::PrimitiveTopology::TRIANGLE_LIST
                });
            // D3D's viewport: clip-space y up, rows from the top.
            let viewports = [vk::Viewport {
                x: 0.0,
                y: height as f32,
                width: width as f32,
                height: -(height as f32),
                min_depth: 0.0,
                max_depth: 1.0,
            }];
            let scissors = [vk::Rect2D {
                offset: vk::Offset2D { x: 0, y: 0 },
                extent: vk::Extent2D { width, height },
            }];
            let viewport = vk::PipelineViewportStateCreateInfo::default()
                .viewports(&viewports)
                .scissors(&scissors);
            let raster = vk::PipelineRasterizationStateCreateInfo::default()
                .polygon_mode(vk::PolygonMode::FILL)
                .cull_mode(vk::CullModeFlags::NONE)
                .front_face(vk::FrontFace::CLOCKWISE)
                .line_width(1.0);
            let multisample = vk::PipelineMultisampleStateCreateInfo::default()
                .rasterization_samples(vk::SampleCountFlags::TYPE_1);
            let depth_state = vk::PipelineDepthStencilStateCreateInfo::default()
                .depth_test_enable(job.depth)
                .depth_write_enable(job.depth)
                .depth_compare_op(vk::CompareOp::LESS);
            let blend_attachments = [vk::PipelineColorBlendAttachmentState::default()
                .color_write_mask(vk::ColorComponentFlags::RGBA)];
            let blend =
                vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_attachments);
            let color_formats = [color_format];
            let mut rendering = vk::PipelineRenderingCreateInfo::default()
                .color_attachment_formats(&color_formats)
                .depth_attachment_format(if job.depth {
                    depth_format
                } else {
                    vk::Format::UNDEFINED
                });
            let create = vk::GraphicsPipelineCreateInfo::default()
                .stages(&stages)
                .vertex_input_state(&vertex_input)
                .input_assembly_state(&assembly)
                .viewport_state(&viewport)
                .rasterization_state(&raster)
                .multisample_state(&multisample)
                .depth_stencil_state(&depth_state)
                .color_blend_state(&blend)
                .layout(pipeline_layout)
                .push_next(&mut rendering);
            let pipeline = d
                .create_graphics_pipelines(vk::PipelineCache::null(), &[create], None)
                .map_err(|(_, e)| Error(format!("vkCreateGraphicsPipelines: {e}")))?[0];
            o.pipeline = Some(pipeline);
            let cmd = self.begin(o)?;
            let queries = self.timestamps(o, cmd, 2)?;
            for &(buffer, _, size, staging) in &buffers {
                d.cmd_copy_buffer(
                    cmd,
                    staging,
                    buffer,
                    &[vk::BufferCopy::default().size(size)],
                );
            }
            d.cmd_copy_buffer(
                cmd,
                vertex_staging_buffer,
                vertex_buffer,
                &[vk::BufferCopy::default().size(vertex_size)],
            );
            barrier(
                d,
                cmd,
                (
                    vk::PipelineStageFlags::TRANSFER,
                    vk::AccessFlags::TRANSFER_WRITE,
                ),
                (
                    vk::PipelineStageFlags::VERTEX_INPUT
                        | vk::PipelineStageFlags::VERTEX_SHADER
                        | vk::PipelineStageFlags::FRAGMENT_SHADER,
                    vk::AccessFlags::VERTEX_ATTRIBUTE_READ
                        | vk::AccessFlags::SHADER_READ
                        | vk::AccessFlags::SHADER_WRITE
                        | vk::AccessFlags::UNIFORM_READ,
                ),
            );
            let mut to_attachments = vec![layout_change(
                color,
                vk::ImageAspectFlags::COLOR,
                vk::ImageLayout::UNDEFINED,
                vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                vk::AccessFlags::empty(),
                vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
            )];
            if let Some((image, _)) = depth {
                to_attachments.push(layout_change(
                    image,
                    vk::ImageAspectFlags::DEPTH,
                    vk::ImageLayout::UNDEFINED,
                    vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL,
                    vk::AccessFlags::empty(),
                    vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE
                        | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_READ,
                ));
            }
            d.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT
                    | vk::PipelineStageFlags::EARLY_FRAGMENT_TESTS,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &to_attachments,
            );
            let color_attachment = [vk::RenderingAttachmentInfo::default()
                .image_view(color_view)
                .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                .load_op(vk::AttachmentLoadOp::CLEAR)
                .store_op(vk::AttachmentStoreOp::STORE)
                .clear_value(vk::ClearValue {
                    color: vk::ClearColorValue { uint32: [0; 4] },
                })];
            let depth_attachment = depth.map(|(_, view)| {
                vk::RenderingAttachmentInfo::default()
                    .image_view(view)
                    .image_layout(vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL)
                    .load_op(vk::AttachmentLoadOp::CLEAR)
                    .store_op(vk::AttachmentStoreOp::STORE)
                    .clear_value(vk::ClearValue {
                        depth_stencil: vk::ClearDepthStencilValue {
                            depth: 1.0,
                            stencil: 0,
                        },
                    })
            });
            let mut rendering_info = vk::RenderingInfo::default()
                .render_area(scissors[0])
                .layer_count(1)
                .color_attachments(&color_attachment);
            if let Some(da) = depth_attachment.as_ref() {
                rendering_info = rendering_info.depth_attachment(da);
            }
            d.cmd_write_timestamp(cmd, vk::PipelineStageFlags::TOP_OF_PIPE, queries, 0);
            d.cmd_begin_rendering(cmd, &rendering_info);
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, pipeline);
            if !descriptor_sets.is_empty() {
                d.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::GRAPHICS,
                    pipeline_layout,
                    0,
                    &descriptor_sets,
                    &[],
                );
            }
            d.cmd_bind_vertex_buffers(cmd, 0, &[vertex_buffer], &[0]);
            d.cmd_draw(cmd, job.vertex_count, 1, 0, 0);
            d.cmd_end_rendering(cmd);
            d.cmd_write_timestamp(cmd, vk::PipelineStageFlags::BOTTOM_OF_PIPE, queries, 1);
            let mut to_transfer = vec![layout_change(
                color,
                vk::ImageAspectFlags::COLOR,
                vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
                vk::AccessFlags::TRANSFER_READ,
            )];
            if let Some((image, _)) = depth {
                to_transfer.push(layout_change(
                    image,
                    vk::ImageAspectFlags::DEPTH,
                    vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE,
                    vk::AccessFlags::TRANSFER_READ,
                ));
            }
            let shader_writes = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::TRANSFER_READ);
            d.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT
                    | vk::PipelineStageFlags::LATE_FRAGMENT_TESTS
                    | vk::PipelineStageFlags::VERTEX_SHADER
                    | vk::PipelineStageFlags::FRAGMENT_SHADER,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[shader_writes],
                &[],
                &to_transfer,
            );
            let region = |aspect| {
                vk::BufferImageCopy::default()
                    .image_subresource(vk::ImageSubresourceLayers {
                        aspect_mask: aspect,
                        mip_level: 0,
                        base_array_layer: 0,
                        layer_count: 1,
                    })
                    .image_extent(vk::Extent3D {
                        width,
                        height,
                        depth: 1,
                    })
            };
            d.cmd_copy_image_to_buffer(
                cmd,
                color,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                color_out,
                &[region(vk::ImageAspectFlags::COLOR)],
            );
            if let (Some((image, _)), Some((out, _))) = (depth, depth_out) {
                d.cmd_copy_image_to_buffer(
                    cmd,
                    image,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    out,
                    &[region(vk::ImageAspectFlags::DEPTH)],
                );
            }
            let took = self.finish(o, cmd, &buffers, "draw")?;
            let map = |memory: vk::DeviceMemory, bytes: u64| -> Result<Vec<u8>, Error> {
                let ptr = d
                    .map_memory(memory, 0, bytes, vk::MemoryMapFlags::empty())
                    .map_err(err("vkMapMemory"))? as *const u8;
                let out = std::slice::from_raw_parts(ptr, bytes as usize).to_vec();
                d.unmap_memory(memory);
                Ok(out)
            };
            let color_bytes = map(color_memory, pixels * 16)?;
            let color = color_bytes
                .chunks_exact(16)
                .map(|c| {
                    std::array::from_fn(|i| {
                        u32::from_le_bytes([c[4 * i], c[4 * i + 1], c[4 * i + 2], c[4 * i + 3]])
                    })
                })
                .collect();
            let depth = match depth_out {
                Some((_, memory)) => Some(
                    map(memory, pixels * 4)?
                        .chunks_exact(4)
                        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect(),
                ),
                None => None,
            };
            let buffers = buffers
                .iter()
                .zip(&job.buffers)
                .map(|(&(_, ptr, _, _), b)| std::slice::from_raw_parts(ptr, b.data.len()).to_vec())
                .collect();
            let time = self.intervals(queries, 1, took)[0];
            Ok(Drawn {
                color,
                depth,
                buffers,
                time,
            })
        }
    }
}

fn range(aspect: vk::ImageAspectFlags) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: aspect,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: 1,
    }
}

fn layout_change(
    image: vk::Image,
    aspect: vk::ImageAspectFlags,
    from: vk::ImageLayout,
    to: vk::ImageLayout,
    src: vk::AccessFlags,
    dst: vk::AccessFlags,
) -> vk::ImageMemoryBarrier<'static> {
    vk::ImageMemoryBarrier::default()
        .image(image)
        .old_layout(from)
        .new_layout(to)
        .src_access_mask(src)
        .dst_access_mask(dst)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .subresource_range(range(aspect))
}
