//! A small Vulkan compute runner for comparing Lockstep with a CPU Vulkan
//! driver (Mesa's lavapipe): one compute pipeline from SPIR-V, its storage
//! buffers in host-visible, host-coherent memory, sampled images read with
//! `Load` and storage images, bound at the descriptor bindings the SPIR-V
//! declares, to the [`Pipeline`] buffers of the same names.
//!
//! The Vulkan loader is opened at run time, so this builds on machines
//! without Vulkan; every Vulkan failure is an [`Error`], never a panic.

use std::ffi::c_char;
use std::time::{Duration, Instant};

use ash::vk;
use lockstep::pipeline::{BufferDesc, Format, Pipeline};

use crate::spirv::{self, DescriptorKind};

mod draw;

pub use draw::Renderer;

/// A Vulkan failure, with what was being done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(pub String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

fn err(what: &'static str) -> impl FnOnce(vk::Result) -> Error {
    move |r| Error(format!("{what}: {r}"))
}

/// How long one submission may take before it counts as hung.
const FENCE_TIMEOUT: Duration = Duration::from_secs(600);

/// What [`Context::new`] found out about the device.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    /// The device's name as the driver reports it.
    pub name: String,
    /// `driverName driverInfo` (Vulkan 1.2 devices), else empty.
    pub driver: String,
    /// The device's Vulkan version, `major.minor.patch`.
    pub api_version: String,
    /// Lanes per subgroup (`VkPhysicalDeviceSubgroupProperties`).
    pub subgroup_size: u32,
    /// The subgroup operations the device supports.
    pub subgroup_operations: vk::SubgroupFeatureFlags,
    /// The shader stages with subgroup operations.
    pub subgroup_stages: vk::ShaderStageFlags,
    /// The most workgroups one dispatch may have in x, y and z (`maxComputeWorkGroupCount`).
    pub max_group_count: [u32; 3],
}

/// An instance, the chosen device and a compute queue.
pub struct Context {
    // Keeps the loader open while the instance lives.
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    queue_family: u32,
    memory: vk::PhysicalDeviceMemoryProperties,
    /// What the device is and supports.
    pub info: DeviceInfo,
}

/// What [`Context::open`] makes from the instance.
struct Opened {
    device: ash::Device,
    queue: vk::Queue,
    queue_family: u32,
    memory: vk::PhysicalDeviceMemoryProperties,
    info: DeviceInfo,
}

fn c_string(chars: &[c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

fn version(v: u32) -> String {
    format!(
        "{}.{}.{}",
        vk::api_version_major(v),
        vk::api_version_minor(v),
        vk::api_version_patch(v)
    )
}

impl Context {
    /// Opens the Vulkan loader and picks the first device whose name
    /// contains `device_name` (lavapipe calls itself `llvmpipe`), with a
    /// compute queue and Vulkan 1.1.
    pub fn new(device_name: &str) -> Result<Context, Error> {
        // SAFETY: loading the Vulkan loader runs its initialisation; the
        // entry is kept alive as long as the instance.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| {
            Error(format!(
                "cannot load the Vulkan loader (libvulkan.so.1): {e}; \
                 on Debian or Ubuntu: apt-get install -y libvulkan1 mesa-vulkan-drivers"
            ))
        })?;
        // SAFETY: plain Vulkan calls with valid arguments; every object
        // created here is destroyed on the error paths or by `Drop`.
        unsafe {
            let loader_version = entry
                .try_enumerate_instance_version()
                .map_err(err("vkEnumerateInstanceVersion"))?
                .unwrap_or(vk::API_VERSION_1_0);
            if loader_version < vk::API_VERSION_1_1 {
                return Err(Error(format!(
                    "the Vulkan loader supports Vulkan {}; 1.1 is needed",
                    version(loader_version)
                )));
            }
            let app = vk::ApplicationInfo::default()
                .application_name(c"lockstep-peer")
                .api_version(vk::API_VERSION_1_1);
            let create = vk::InstanceCreateInfo::default().application_info(&app);
            let instance = entry.create_instance(&create, None).map_err(|e| {
                Error(format!(
                    "vkCreateInstance: {e} (is a Vulkan driver installed? \
                     apt-get install -y mesa-vulkan-drivers)"
                ))
            })?;
            match Self::open(&instance, device_name) {
                Ok(Opened {
                    device,
                    queue,
                    queue_family,
                    memory,
                    info,
                }) => Ok(Context {
                    _entry: entry,
                    instance,
                    device,
                    queue,
                    queue_family,
                    memory,
                    info,
                }),
                Err(e) => {
                    instance.destroy_instance(None);
                    Err(e)
                }
            }
        }
    }

    /// Picks the device and creates the logical device and its queue.
    fn open(instance: &ash::Instance, device_name: &str) -> Result<Opened, Error> {
        // SAFETY: plain Vulkan calls on a valid instance, as in `new`; the
        // device is the last object made, so nothing leaks on errors.
        unsafe {
            let physicals = instance
                .enumerate_physical_devices()
                .map_err(err("vkEnumeratePhysicalDevices"))?;
            let mut found = Vec::new();
            let mut chosen = None;
            for &physical in &physicals {
                let props = instance.get_physical_device_properties(physical);
                let name = c_string(&props.device_name);
                if chosen.is_none() && name.contains(device_name) {
                    chosen = Some((physical, props, name.clone()));
                }
                found.push(name);
            }
            let Some((physical, props, name)) = chosen else {
                let found = if found.is_empty() {
                    "no Vulkan device".to_string()
                } else {
                    format!("devices: {}", found.join(", "))
                };
                return Err(Error(format!(
                    "no Vulkan device named `{device_name}` ({found}); for lavapipe: \
                     apt-get install -y mesa-vulkan-drivers and \
                     VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
                )));
            };
            if props.api_version < vk::API_VERSION_1_1 {
                return Err(Error(format!(
                    "{name} supports Vulkan {}; 1.1 is needed",
                    version(props.api_version)
                )));
            }

            let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
            let mut driver_props = vk::PhysicalDeviceDriverProperties::default();
            let has_driver_props = props.api_version >= vk::API_VERSION_1_2;
            {
                let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut subgroup);
                if has_driver_props {
                    props2 = props2.push_next(&mut driver_props);
                }
                instance.get_physical_device_properties2(physical, &mut props2);
            }
            let driver = if has_driver_props {
                format!(
                    "{} {}",
                    c_string(&driver_props.driver_name),
                    c_string(&driver_props.driver_info)
                )
            } else {
                String::new()
            };
            let info = DeviceInfo {
                name,
                driver,
                api_version: version(props.api_version),
                subgroup_size: subgroup.subgroup_size,
                subgroup_operations: subgroup.supported_operations,
                subgroup_stages: subgroup.supported_stages,
                max_group_count: props.limits.max_compute_work_group_count,
            };

            let families = instance.get_physical_device_queue_family_properties(physical);
            let Some(queue_family) = families
                .iter()
                .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            else {
                return Err(Error(format!("{} has no compute queue", info.name)));
            };
            let queue_family = queue_family as u32;
            let priorities = [1.0f32];
            let queue_info = vk::DeviceQueueCreateInfo::default()
                .queue_family_index(queue_family)
                .queue_priorities(&priorities);
            // The kernels' 64-bit and 16-bit arithmetic, and 16-bit
            // buffers, where the device has them.
            let mut storage16 = vk::PhysicalDevice16BitStorageFeatures::default();
            let mut float16 = vk::PhysicalDeviceShaderFloat16Int8Features::default();
            let has_float16 = instance
                .enumerate_device_extension_properties(physical)
                .unwrap_or_default()
                .iter()
                .any(|e| e.extension_name_as_c_str() == Ok(vk::KHR_SHADER_FLOAT16_INT8_NAME));
            let mut features2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut storage16);
            if has_float16 {
                features2 = features2.push_next(&mut float16);
            }
            instance.get_physical_device_features2(physical, &mut features2);
            let core = features2.features;
            // The query chained the two: unchain them for the device's
            // own chain.
            storage16.p_next = std::ptr::null_mut();
            float16.p_next = std::ptr::null_mut();
            let extensions = [vk::KHR_SHADER_FLOAT16_INT8_NAME.as_ptr()];
            let mut device_info = vk::DeviceCreateInfo::default()
                .queue_create_infos(std::slice::from_ref(&queue_info))
                .push_next(&mut storage16);
            let features = vk::PhysicalDeviceFeatures::default()
                .shader_int64(core.shader_int64 != 0)
                .shader_int16(core.shader_int16 != 0)
                .shader_float64(core.shader_float64 != 0);
            device_info = device_info.enabled_features(&features);
            if has_float16 {
                device_info = device_info
                    .enabled_extension_names(&extensions)
                    .push_next(&mut float16);
            }
            let device = instance
                .create_device(physical, &device_info, None)
                .map_err(err("vkCreateDevice"))?;
            let queue = device.get_device_queue(queue_family, 0);
            let memory = instance.get_physical_device_memory_properties(physical);
            Ok(Opened {
                device,
                queue,
                queue_family,
                memory,
                info,
            })
        }
    }

    /// A memory type allowed by `bits` with all of `required`, preferring
    /// one that also has `preferred`.
    fn memory_type(
        &self,
        bits: u32,
        required: vk::MemoryPropertyFlags,
        preferred: vk::MemoryPropertyFlags,
    ) -> Result<u32, Error> {
        let types = &self.memory.memory_types[..self.memory.memory_type_count as usize];
        let allowed = |i: usize, flags: vk::MemoryPropertyFlags| {
            bits & (1 << i) != 0 && types[i].property_flags.contains(flags)
        };
        (0..types.len())
            .find(|&i| allowed(i, required | preferred))
            .or_else(|| (0..types.len()).find(|&i| allowed(i, required)))
            .map(|i| i as u32)
            .ok_or_else(|| Error(format!("no memory type with {required:?}")))
    }

    /// Allocates memory for `requirements` of a type with `required`,
    /// preferring one that also has `preferred`.
    fn allocate(
        &self,
        requirements: vk::MemoryRequirements,
        required: vk::MemoryPropertyFlags,
        preferred: vk::MemoryPropertyFlags,
    ) -> Result<vk::DeviceMemory, Error> {
        let type_index = self.memory_type(requirements.memory_type_bits, required, preferred)?;
        // SAFETY: a valid allocate info for this device; the caller frees
        // the memory.
        unsafe {
            self.device
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(requirements.size)
                        .memory_type_index(type_index),
                    None,
                )
                .map_err(err("vkAllocateMemory"))
        }
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: every object made from the device belongs to a `Kernel`,
        // which borrows the context and so is gone.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// A buffer in host-visible, host-coherent memory, mapped for its lifetime.
struct HostBuffer {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    ptr: *mut u8,
    size: usize,
}

/// A host-visible, host-coherent buffer of `size` bytes, mapped.
fn host_buffer(
    ctx: &Context,
    size: usize,
    usage: vk::BufferUsageFlags,
) -> Result<HostBuffer, Error> {
    let device = &ctx.device;
    // SAFETY: valid create infos; on failure what was made is destroyed
    // here, and on success the caller owns the buffer.
    unsafe {
        let buffer = device
            .create_buffer(
                &vk::BufferCreateInfo::default()
                    .size(size.max(4) as u64)
                    .usage(usage)
                    .sharing_mode(vk::SharingMode::EXCLUSIVE),
                None,
            )
            .map_err(err("vkCreateBuffer"))?;
        let requirements = device.get_buffer_memory_requirements(buffer);
        let memory = match ctx.allocate(
            requirements,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
            vk::MemoryPropertyFlags::HOST_CACHED,
        ) {
            Ok(m) => m,
            Err(e) => {
                device.destroy_buffer(buffer, None);
                return Err(e);
            }
        };
        let mapped = device
            .bind_buffer_memory(buffer, memory, 0)
            .map_err(err("vkBindBufferMemory"))
            .and_then(|()| {
                device
                    .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                    .map_err(err("vkMapMemory"))
            });
        match mapped {
            Ok(ptr) => Ok(HostBuffer {
                buffer,
                memory,
                ptr: ptr.cast(),
                size,
            }),
            Err(e) => {
                device.destroy_buffer(buffer, None);
                device.free_memory(memory, None);
                Err(e)
            }
        }
    }
}

/// A 2D image of 32-bit texels and its view.
struct Image {
    image: vk::Image,
    memory: vk::DeviceMemory,
    view: vk::ImageView,
    width: u32,
    height: u32,
    storage: bool,
}

/// A pipeline buffer as bound to the shader.
struct Bound {
    /// Index of the pipeline buffer.
    buffer: usize,
    /// The buffer itself for storage buffers; the staging buffer (upload,
    /// and read-back for storage images) for images.
    host: HostBuffer,
    image: Option<Image>,
}

/// A compute pipeline with its resources bound, ready to run repeatedly.
pub struct Kernel<'c> {
    ctx: &'c Context,
    shader: vk::ShaderModule,
    set_layouts: Vec<vk::DescriptorSetLayout>,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    pool: vk::DescriptorPool,
    commands: vk::CommandPool,
    command_buffer: vk::CommandBuffer,
    fence: vk::Fence,
    bound: Vec<Bound>,
    buffers: usize,
    dispatch_time: Duration,
}

fn texel_format(format: Format) -> Result<vk::Format, Error> {
    match format {
        Format::Float32 => Ok(vk::Format::R32_SFLOAT),
        Format::UInt32 => Ok(vk::Format::R32_UINT),
        Format::Int32 => Ok(vk::Format::R32_SINT),
        other => Err(Error(format!(
            "textures of {other:?} are not supported (32-bit texels only)"
        ))),
    }
}

const COLOR: vk::ImageSubresourceRange = vk::ImageSubresourceRange {
    aspect_mask: vk::ImageAspectFlags::COLOR,
    base_mip_level: 0,
    level_count: 1,
    base_array_layer: 0,
    layer_count: 1,
};

impl<'c> Kernel<'c> {
    /// Creates the compute pipeline of `spirv` (entry point `main`) and binds
    /// every resource it declares to the `pipeline` buffer of the same name,
    /// sized from that buffer. The command buffer is recorded once: image
    /// uploads, the dispatch of `pipeline.dispatch`, storage-image reads.
    pub fn new(ctx: &'c Context, spirv: &[u32], pipeline: &Pipeline) -> Result<Kernel<'c>, Error> {
        let resources = spirv::resources(spirv).map_err(Error)?;
        let mut kernel = Kernel {
            ctx,
            shader: vk::ShaderModule::null(),
            set_layouts: Vec::new(),
            layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
            pool: vk::DescriptorPool::null(),
            commands: vk::CommandPool::null(),
            command_buffer: vk::CommandBuffer::null(),
            fence: vk::Fence::null(),
            bound: Vec::new(),
            buffers: pipeline.buffers.len(),
            dispatch_time: Duration::ZERO,
        };
        let device = &ctx.device;
        // SAFETY: valid create infos; every handle is stored in `kernel`
        // as soon as it exists, so `Drop` destroys it on any error path.
        unsafe {
            kernel.shader = device
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(spirv), None)
                .map_err(err("vkCreateShaderModule"))?;

            let sets = resources.iter().map(|r| r.set + 1).max().unwrap_or(0);
            let mut layout_bindings: Vec<Vec<vk::DescriptorSetLayoutBinding>> =
                vec![Vec::new(); sets as usize];
            let mut descriptor_types = Vec::new();
            for r in &resources {
                let ty = match r.kind {
                    DescriptorKind::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
                    DescriptorKind::SampledImage => vk::DescriptorType::SAMPLED_IMAGE,
                    DescriptorKind::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
                    kind => {
                        return Err(Error(format!(
                            "resource `{}` (set {}, binding {}): {kind:?} is not supported",
                            r.name, r.set, r.binding
                        )));
                    }
                };
                descriptor_types.push(ty);
                layout_bindings[r.set as usize].push(
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(r.binding)
                        .descriptor_type(ty)
                        .descriptor_count(1)
                        .stage_flags(vk::ShaderStageFlags::COMPUTE),
                );
            }
            for bindings in &layout_bindings {
                let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(bindings);
                let layout = device
                    .create_descriptor_set_layout(&info, None)
                    .map_err(err("vkCreateDescriptorSetLayout"))?;
                kernel.set_layouts.push(layout);
            }
            kernel.layout = device
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default().set_layouts(&kernel.set_layouts),
                    None,
                )
                .map_err(err("vkCreatePipelineLayout"))?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(kernel.shader)
                .name(c"main");
            let info = vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(kernel.layout);
            kernel.pipeline = device
                .create_compute_pipelines(vk::PipelineCache::null(), &[info], None)
                .map_err(|(_, e)| Error(format!("vkCreateComputePipelines: {e}")))?[0];

            // Resources, matched to pipeline buffers by name.
            for r in &resources {
                let Some(index) = pipeline.buffers.iter().position(|b| b.name == r.name) else {
                    return Err(Error(format!(
                        "the shader's resource `{}` (set {}, binding {}) has no pipeline \
                         buffer of that name",
                        r.name, r.set, r.binding
                    )));
                };
                let desc = &pipeline.buffers[index];
                let bound = match r.kind {
                    DescriptorKind::StorageBuffer => Bound {
                        buffer: index,
                        host: kernel
                            .host_buffer(desc.data.len(), vk::BufferUsageFlags::STORAGE_BUFFER)?,
                        image: None,
                    },
                    _ => {
                        let storage = r.kind == DescriptorKind::StorageImage;
                        // The staging buffer is pushed before the image, so
                        // both are destroyed if making the image fails.
                        let host = kernel.host_buffer(
                            desc.data.len(),
                            vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
                        )?;
                        kernel.bound.push(Bound {
                            buffer: index,
                            host,
                            image: None,
                        });
                        let image = kernel.image(desc, storage)?;
                        let mut bound = kernel.bound.pop().unwrap();
                        bound.image = Some(image);
                        bound
                    }
                };
                kernel.bound.push(bound);
            }

            // Descriptors.
            let mut sizes: Vec<vk::DescriptorPoolSize> = Vec::new();
            for &ty in &descriptor_types {
                match sizes.iter_mut().find(|s| s.ty == ty) {
                    Some(s) => s.descriptor_count += 1,
                    None => sizes.push(vk::DescriptorPoolSize {
                        ty,
                        descriptor_count: 1,
                    }),
                }
            }
            if !kernel.set_layouts.is_empty() {
                kernel.pool = device
                    .create_descriptor_pool(
                        &vk::DescriptorPoolCreateInfo::default()
                            .max_sets(sets)
                            .pool_sizes(&sizes),
                        None,
                    )
                    .map_err(err("vkCreateDescriptorPool"))?;
            }
            let descriptor_sets = if kernel.set_layouts.is_empty() {
                Vec::new()
            } else {
                device
                    .allocate_descriptor_sets(
                        &vk::DescriptorSetAllocateInfo::default()
                            .descriptor_pool(kernel.pool)
                            .set_layouts(&kernel.set_layouts),
                    )
                    .map_err(err("vkAllocateDescriptorSets"))?
            };
            let buffer_infos: Vec<[vk::DescriptorBufferInfo; 1]> = kernel
                .bound
                .iter()
                .map(|b| {
                    [vk::DescriptorBufferInfo {
                        buffer: b.host.buffer,
                        offset: 0,
                        range: vk::WHOLE_SIZE,
                    }]
                })
                .collect();
            let image_infos: Vec<[vk::DescriptorImageInfo; 1]> = kernel
                .bound
                .iter()
                .map(|b| {
                    let (view, layout) = match &b.image {
                        Some(i) if i.storage => (i.view, vk::ImageLayout::GENERAL),
                        Some(i) => (i.view, vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL),
                        None => (vk::ImageView::null(), vk::ImageLayout::UNDEFINED),
                    };
                    [vk::DescriptorImageInfo {
                        sampler: vk::Sampler::null(),
                        image_view: view,
                        image_layout: layout,
                    }]
                })
                .collect();
            let writes: Vec<vk::WriteDescriptorSet> = resources
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let write = vk::WriteDescriptorSet::default()
                        .dst_set(descriptor_sets[r.set as usize])
                        .dst_binding(r.binding)
                        .descriptor_type(descriptor_types[i]);
                    if r.kind == DescriptorKind::StorageBuffer {
                        write.buffer_info(&buffer_infos[i])
                    } else {
                        write.image_info(&image_infos[i])
                    }
                })
                .collect();
            device.update_descriptor_sets(&writes, &[]);

            // Commands, recorded once.
            kernel.commands = device
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default().queue_family_index(ctx.queue_family),
                    None,
                )
                .map_err(err("vkCreateCommandPool"))?;
            kernel.command_buffer = device
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(kernel.commands)
                        .level(vk::CommandBufferLevel::PRIMARY)
                        .command_buffer_count(1),
                )
                .map_err(err("vkAllocateCommandBuffers"))?[0];
            kernel.fence = device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .map_err(err("vkCreateFence"))?;
            kernel.record(&descriptor_sets, pipeline.dispatch)?;
        }
        Ok(kernel)
    }

    fn host_buffer(&self, size: usize, usage: vk::BufferUsageFlags) -> Result<HostBuffer, Error> {
        host_buffer(self.ctx, size, usage)
    }

    fn image(&self, desc: &BufferDesc, storage: bool) -> Result<Image, Error> {
        let Some(props) = desc.output_props else {
            return Err(Error(format!(
                "buffer `{}` is bound to an image but has no OutputProps",
                desc.name
            )));
        };
        let format = texel_format(desc.format)?;
        if desc.channels != 1
            || props.depth > 1
            || desc.data.len() != props.width as usize * props.height as usize * 4
        {
            return Err(Error(format!(
                "buffer `{}`: only one-channel 2D images of 32-bit texels are supported",
                desc.name
            )));
        }
        let usage = if storage {
            vk::ImageUsageFlags::STORAGE
                | vk::ImageUsageFlags::TRANSFER_DST
                | vk::ImageUsageFlags::TRANSFER_SRC
        } else {
            vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST
        };
        let device = &self.ctx.device;
        // SAFETY: valid create infos; on failure what was made is destroyed.
        unsafe {
            let image = device
                .create_image(
                    &vk::ImageCreateInfo::default()
                        .image_type(vk::ImageType::TYPE_2D)
                        .format(format)
                        .extent(vk::Extent3D {
                            width: props.width,
                            height: props.height,
                            depth: 1,
                        })
                        .mip_levels(1)
                        .array_layers(1)
                        .samples(vk::SampleCountFlags::TYPE_1)
                        .tiling(vk::ImageTiling::OPTIMAL)
                        .usage(usage)
                        .sharing_mode(vk::SharingMode::EXCLUSIVE)
                        .initial_layout(vk::ImageLayout::UNDEFINED),
                    None,
                )
                .map_err(err("vkCreateImage"))?;
            let requirements = device.get_image_memory_requirements(image);
            let memory = self.ctx.allocate(
                requirements,
                vk::MemoryPropertyFlags::empty(),
                vk::MemoryPropertyFlags::DEVICE_LOCAL,
            );
            let memory = match memory {
                Ok(m) => m,
                Err(e) => {
                    device.destroy_image(image, None);
                    return Err(e);
                }
            };
            let view = device
                .bind_image_memory(image, memory, 0)
                .map_err(err("vkBindImageMemory"))
                .and_then(|()| {
                    device
                        .create_image_view(
                            &vk::ImageViewCreateInfo::default()
                                .image(image)
                                .view_type(vk::ImageViewType::TYPE_2D)
                                .format(format)
                                .subresource_range(COLOR),
                            None,
                        )
                        .map_err(err("vkCreateImageView"))
                });
            match view {
                Ok(view) => Ok(Image {
                    image,
                    memory,
                    view,
                    width: props.width,
                    height: props.height,
                    storage,
                }),
                Err(e) => {
                    device.destroy_image(image, None);
                    device.free_memory(memory, None);
                    Err(e)
                }
            }
        }
    }

    /// Records: every image filled from its staging buffer and moved to
    /// the layout the shader uses, the dispatch, storage images copied back
    /// to their staging buffers, and host reads made visible.
    fn record(&self, sets: &[vk::DescriptorSet], groups: [u32; 3]) -> Result<(), Error> {
        let device = &self.ctx.device;
        let cb = self.command_buffer;
        let barrier = |image: vk::Image,
                       src: vk::AccessFlags,
                       dst: vk::AccessFlags,
                       old: vk::ImageLayout,
                       new: vk::ImageLayout| {
            vk::ImageMemoryBarrier::default()
                .src_access_mask(src)
                .dst_access_mask(dst)
                .old_layout(old)
                .new_layout(new)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .image(image)
                .subresource_range(COLOR)
        };
        let region = |image: &Image| {
            vk::BufferImageCopy::default()
                .image_subresource(vk::ImageSubresourceLayers {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    mip_level: 0,
                    base_array_layer: 0,
                    layer_count: 1,
                })
                .image_extent(vk::Extent3D {
                    width: image.width,
                    height: image.height,
                    depth: 1,
                })
        };
        let images: Vec<(&HostBuffer, &Image)> = self
            .bound
            .iter()
            .filter_map(|b| b.image.as_ref().map(|i| (&b.host, i)))
            .collect();
        // SAFETY: the command buffer is not in use (nothing was submitted);
        // every handle recorded is alive as long as the kernel.
        unsafe {
            device
                .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .map_err(err("vkBeginCommandBuffer"))?;
            if !images.is_empty() {
                let to_transfer: Vec<_> = images
                    .iter()
                    .map(|(_, i)| {
                        barrier(
                            i.image,
                            vk::AccessFlags::empty(),
                            vk::AccessFlags::TRANSFER_WRITE,
                            vk::ImageLayout::UNDEFINED,
                            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        )
                    })
                    .collect();
                device.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::TOP_OF_PIPE,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &to_transfer,
                );
                for (host, image) in &images {
                    device.cmd_copy_buffer_to_image(
                        cb,
                        host.buffer,
                        image.image,
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        &[region(image)],
                    );
                }
                let to_shader: Vec<_> = images
                    .iter()
                    .map(|(_, i)| {
                        if i.storage {
                            barrier(
                                i.image,
                                vk::AccessFlags::TRANSFER_WRITE,
                                vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
                                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                                vk::ImageLayout::GENERAL,
                            )
                        } else {
                            barrier(
                                i.image,
                                vk::AccessFlags::TRANSFER_WRITE,
                                vk::AccessFlags::SHADER_READ,
                                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                                vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                            )
                        }
                    })
                    .collect();
                device.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &to_shader,
                );
            }
            device.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, self.pipeline);
            if !sets.is_empty() {
                device.cmd_bind_descriptor_sets(
                    cb,
                    vk::PipelineBindPoint::COMPUTE,
                    self.layout,
                    0,
                    sets,
                    &[],
                );
            }
            device.cmd_dispatch(cb, groups[0], groups[1], groups[2]);
            let after_shader = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::TRANSFER_READ | vk::AccessFlags::HOST_READ);
            device.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::TRANSFER | vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[after_shader],
                &[],
                &[],
            );
            let mut read_back = false;
            for (host, image) in images.iter().filter(|(_, i)| i.storage) {
                device.cmd_copy_image_to_buffer(
                    cb,
                    image.image,
                    vk::ImageLayout::GENERAL,
                    host.buffer,
                    &[region(image)],
                );
                read_back = true;
            }
            if read_back {
                let after_copy = vk::MemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                    .dst_access_mask(vk::AccessFlags::HOST_READ);
                device.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::HOST,
                    vk::DependencyFlags::empty(),
                    &[after_copy],
                    &[],
                    &[],
                );
            }
            device
                .end_command_buffer(cb)
                .map_err(err("vkEndCommandBuffer"))?;
        }
        Ok(())
    }

    /// One run: every bound buffer's initial data (from `buffers`, the
    /// pipeline's buffers) copied into its mapped memory or staging buffer,
    /// the recorded commands submitted and waited for, and the buffers the
    /// shader can write copied out. Returns one entry per pipeline buffer,
    /// in the pipeline's order: the contents after the dispatch for storage
    /// buffers and storage images, nothing (an empty vector) for sampled
    /// images and buffers the shader does not use.
    pub fn run(&mut self, buffers: &[BufferDesc]) -> Result<Vec<Vec<u8>>, Error> {
        if buffers.len() != self.buffers {
            return Err(Error(format!(
                "{} buffers given, the kernel was made for {}",
                buffers.len(),
                self.buffers
            )));
        }
        for b in &self.bound {
            let data = &buffers[b.buffer].data;
            if data.len() != b.host.size {
                return Err(Error(format!(
                    "buffer `{}` has {} bytes, the kernel was made for {}",
                    buffers[b.buffer].name,
                    data.len(),
                    b.host.size
                )));
            }
            // SAFETY: the mapping holds `size` bytes and the device does
            // not use it (no submission is pending).
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), b.host.ptr, data.len()) };
        }
        let device = &self.ctx.device;
        let start = Instant::now();
        // SAFETY: the command buffer was recorded and is not pending; the
        // fence is unsignalled (it is reset after every wait).
        unsafe {
            let submit = vk::SubmitInfo::default()
                .command_buffers(std::slice::from_ref(&self.command_buffer));
            device
                .queue_submit(self.ctx.queue, &[submit], self.fence)
                .map_err(err("vkQueueSubmit"))?;
            let waited =
                device.wait_for_fences(&[self.fence], true, FENCE_TIMEOUT.as_nanos() as u64);
            if let Err(e) = waited {
                let _ = device.device_wait_idle();
                let _ = device.reset_fences(&[self.fence]);
                return Err(Error(format!("vkWaitForFences: {e}")));
            }
            self.dispatch_time = start.elapsed();
            device
                .reset_fences(&[self.fence])
                .map_err(err("vkResetFences"))?;
        }
        let mut out = vec![Vec::new(); self.buffers];
        for b in &self.bound {
            if b.image.as_ref().is_some_and(|i| !i.storage) {
                continue;
            }
            // SAFETY: the mapping holds `size` bytes, written by the device
            // before the fence signalled (host-coherent memory).
            out[b.buffer] = unsafe { std::slice::from_raw_parts(b.host.ptr, b.host.size) }.to_vec();
        }
        Ok(out)
    }
}

impl Kernel<'_> {
    /// The time of the last [`run`](Kernel::run) from submitting the
    /// commands to the fence: the run without the host's copies in and out.
    pub fn dispatch_time(&self) -> Duration {
        self.dispatch_time
    }
}

impl Drop for Kernel<'_> {
    fn drop(&mut self) {
        let device = &self.ctx.device;
        // SAFETY: the device is idle after the wait; destroying null
        // handles is a no-op.
        unsafe {
            let _ = device.device_wait_idle();
            device.destroy_fence(self.fence, None);
            device.destroy_command_pool(self.commands, None);
            device.destroy_descriptor_pool(self.pool, None);
            for b in self.bound.drain(..) {
                if let Some(i) = b.image {
                    device.destroy_image_view(i.view, None);
                    device.destroy_image(i.image, None);
                    device.free_memory(i.memory, None);
                }
                device.destroy_buffer(b.host.buffer, None);
                device.free_memory(b.host.memory, None);
            }
            device.destroy_pipeline(self.pipeline, None);
            device.destroy_pipeline_layout(self.layout, None);
            for &l in &self.set_layouts {
                device.destroy_descriptor_set_layout(l, None);
            }
            device.destroy_shader_module(self.shader, None);
        }
    }
}
