//! Runs a SPIR-V compute module on a Vulkan device: the system's loader,
//! opened at run time (so a build and a CPU run need none), one device
//! chosen by index or name, storage and uniform buffers in host-visible
//! memory, one dispatch, the buffers read back.
//!
//! Every Vulkan failure is an [`Error`] that says what was being done,
//! never a panic.

use std::ffi::c_char;
use std::time::{Duration, Instant};

use ash::vk;

mod draw;

pub use draw::{Attribute, AttributeFormat, ColorKind, DrawJob, Drawn};

/// A Vulkan failure, with what was being done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(pub String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

pub(crate) fn err(what: &'static str) -> impl FnOnce(vk::Result) -> Error {
    move |r| Error(format!("{what}: {r}"))
}

/// How long one dispatch may take before it counts as hung.
pub(crate) const FENCE_TIMEOUT: Duration = Duration::from_secs(600);

/// What a device is and what it supports of what Lockstep's modules use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The device's index among the loader's devices.
    pub index: usize,
    /// The device's name as the driver reports it.
    pub name: String,
    /// `driverName driverInfo`.
    pub driver: String,
    /// The device's Vulkan version, `major.minor.patch`.
    pub api_version: String,
    /// Lanes per subgroup when the pipeline asks for no size.
    pub subgroup_size: u32,
    /// The sizes a pipeline may require (`VK_EXT_subgroup_size_control`,
    /// core in 1.3): `(min, max)`, or the default size alone.
    pub subgroup_sizes: (u32, u32),
    /// Whether a compute pipeline may require a subgroup size.
    pub size_control: bool,
    /// `VK_NV_shader_subgroup_partitioned` (`WaveMatch`,
    /// `WaveMultiPrefix*`).
    pub partitioned: bool,
    /// `VK_KHR_shader_maximal_reconvergence`.
    pub maximal_reconvergence: bool,
    /// `VK_NV_compute_shader_derivatives` with quad derivative groups.
    pub derivative_quads: bool,
    /// `maxComputeWorkGroupCount`: groups one dispatch may have in x, y, z.
    pub max_group_count: [u32; 3],
    /// `maxComputeWorkGroupSize`: a group's largest extent in x, y, z.
    pub max_group_size: [u32; 3],
    /// `maxComputeWorkGroupInvocations`: threads in one group.
    pub max_group_threads: u32,
    /// `maxComputeSharedMemorySize`: bytes of workgroup memory.
    pub max_shared_memory: u32,
}

/// An instance, the chosen device and a compute queue.
pub struct Device {
    // Keeps the loader open while the instance lives.
    _entry: ash::Entry,
    instance: ash::Instance,
    pub(crate) device: ash::Device,
    pub(crate) queue: vk::Queue,
    pub(crate) queue_family: u32,
    memory: vk::PhysicalDeviceMemoryProperties,
    /// The queue's timestamp bits and nanoseconds per tick.
    timestamps: (u32, f32),
    /// What the device is and supports.
    pub info: DeviceInfo,
}

/// What [`Device::open_on`] makes of the chosen physical device.
struct Opened {
    device: ash::Device,
    queue: vk::Queue,
    queue_family: u32,
    memory: vk::PhysicalDeviceMemoryProperties,
    timestamps: (u32, f32),
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

/// Opens the loader and an instance.
fn instance() -> Result<(ash::Entry, ash::Instance), Error> {
    // SAFETY: loading the Vulkan loader runs its initialisation; the entry
    // is kept alive as long as the instance.
    let entry = unsafe { ash::Entry::load() }.map_err(|e| {
        Error(format!(
            "cannot load the Vulkan loader (libvulkan.so.1): {e}; \
             on Debian or Ubuntu: apt-get install -y libvulkan1 mesa-vulkan-drivers"
        ))
    })?;
    // SAFETY: plain Vulkan calls with valid arguments.
    unsafe {
        let loader = entry
            .try_enumerate_instance_version()
            .map_err(err("vkEnumerateInstanceVersion"))?
            .unwrap_or(vk::API_VERSION_1_0);
        if loader < vk::API_VERSION_1_2 {
            return Err(Error(format!(
                "the Vulkan loader supports Vulkan {}; 1.2 is needed",
                version(loader)
            )));
        }
        let app = vk::ApplicationInfo::default()
            .application_name(c"lockstep")
            .api_version(vk::API_VERSION_1_3);
        let create = vk::InstanceCreateInfo::default().application_info(&app);
        let instance = entry.create_instance(&create, None).map_err(|e| {
            Error(format!(
                "vkCreateInstance: {e} (is a Vulkan driver installed? \
                 apt-get install -y mesa-vulkan-drivers)"
            ))
        })?;
        Ok((entry, instance))
    }
}

/// What `instance` knows of one physical device.
fn describe(instance: &ash::Instance, index: usize, physical: vk::PhysicalDevice) -> DeviceInfo {
    // SAFETY: queries on a valid physical device of `instance`.
    unsafe {
        let props = instance.get_physical_device_properties(physical);
        let extensions: Vec<String> = instance
            .enumerate_device_extension_properties(physical)
            .unwrap_or_default()
            .iter()
            .map(|e| c_string(&e.extension_name))
            .collect();
        let has =
            |name: &std::ffi::CStr| extensions.iter().any(|e| e.as_bytes() == name.to_bytes());
        let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
        let mut driver = vk::PhysicalDeviceDriverProperties::default();
        let mut v13 = vk::PhysicalDeviceVulkan13Properties::default();
        let is_13 = props.api_version >= vk::API_VERSION_1_3;
        {
            let mut props2 = vk::PhysicalDeviceProperties2::default()
                .push_next(&mut subgroup)
                .push_next(&mut driver);
            if is_13 {
                props2 = props2.push_next(&mut v13);
            }
            instance.get_physical_device_properties2(physical, &mut props2);
        }
        let size_control = is_13
            && v13
                .required_subgroup_size_stages
                .contains(vk::ShaderStageFlags::COMPUTE);
        let mut derivatives = vk::PhysicalDeviceComputeShaderDerivativesFeaturesNV::default();
        let has_derivatives = has(vk::NV_COMPUTE_SHADER_DERIVATIVES_NAME);
        if has_derivatives {
            let mut features = vk::PhysicalDeviceFeatures2::default().push_next(&mut derivatives);
            instance.get_physical_device_features2(physical, &mut features);
        }
        DeviceInfo {
            index,
            name: c_string(&props.device_name),
            driver: format!(
                "{} {}",
                c_string(&driver.driver_name),
                c_string(&driver.driver_info)
            ),
            api_version: version(props.api_version),
            subgroup_size: subgroup.subgroup_size,
            subgroup_sizes: if size_control {
                (v13.min_subgroup_size, v13.max_subgroup_size)
            } else {
                (subgroup.subgroup_size, subgroup.subgroup_size)
            },
            size_control,
            partitioned: has(vk::NV_SHADER_SUBGROUP_PARTITIONED_NAME),
            maximal_reconvergence: has(vk::KHR_SHADER_MAXIMAL_RECONVERGENCE_NAME),
            derivative_quads: has_derivatives && derivatives.compute_derivative_group_quads != 0,
            max_group_count: props.limits.max_compute_work_group_count,
            max_group_size: props.limits.max_compute_work_group_size,
            max_group_threads: props.limits.max_compute_work_group_invocations,
            max_shared_memory: props.limits.max_compute_shared_memory_size,
        }
    }
}

/// Every device the loader finds, in its order.
pub fn devices() -> Result<Vec<DeviceInfo>, Error> {
    let (_entry, instance) = instance()?;
    // SAFETY: a valid instance, destroyed before returning.
    unsafe {
        let physicals = instance.enumerate_physical_devices();
        let out = physicals
            .map(|list| {
                list.iter()
                    .enumerate()
                    .map(|(i, &p)| describe(&instance, i, p))
                    .collect()
            })
            .map_err(err("vkEnumeratePhysicalDevices"));
        instance.destroy_instance(None);
        out
    }
}

impl Device {
    /// Opens the device `selector` names: empty for the first, a number for
    /// that index, else the first whose name contains it (case does not
    /// matter: `llvmpipe` is lavapipe).
    pub fn open(selector: &str) -> Result<Device, Error> {
        let (entry, instance) = instance()?;
        match Self::open_on(&instance, selector) {
            Ok(o) => Ok(Device {
                _entry: entry,
                instance,
                device: o.device,
                queue: o.queue,
                queue_family: o.queue_family,
                memory: o.memory,
                timestamps: o.timestamps,
                info: o.info,
            }),
            Err(e) => {
                // SAFETY: nothing made from the instance outlives it.
                unsafe { instance.destroy_instance(None) };
                Err(e)
            }
        }
    }

    fn open_on(instance: &ash::Instance, selector: &str) -> Result<Opened, Error> {
        // SAFETY: plain Vulkan calls on a valid instance; the device is the
        // last object made, so nothing leaks on the error paths.
        unsafe {
            let physicals = instance
                .enumerate_physical_devices()
                .map_err(err("vkEnumeratePhysicalDevices"))?;
            let infos: Vec<DeviceInfo> = physicals
                .iter()
                .enumerate()
                .map(|(i, &p)| describe(instance, i, p))
                .collect();
            let wanted = selector.to_ascii_lowercase();
            let chosen = match selector.parse::<usize>() {
                Ok(i) => infos.get(i),
                Err(_) => infos
                    .iter()
                    .find(|d| d.name.to_ascii_lowercase().contains(&wanted)),
            };
            let Some(info) = chosen.cloned() else {
                let found: Vec<String> = infos
                    .iter()
                    .map(|d| format!("{}: {}", d.index, d.name))
                    .collect();
                return Err(Error(if found.is_empty() {
                    "no Vulkan device (for a CPU one: apt-get install -y mesa-vulkan-drivers)"
                        .to_string()
                } else {
                    format!(
                        "no Vulkan device '{selector}'; the devices are {}",
                        found.join(", ")
                    )
                }));
            };
            let physical = physicals[info.index];
            let props = instance.get_physical_device_properties(physical);
            if props.api_version < vk::API_VERSION_1_2 {
                return Err(Error(format!(
                    "{} supports Vulkan {}; SPIR-V 1.5 needs 1.2",
                    info.name, info.api_version
                )));
            }
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
            // Every feature the device has, of the structures Lockstep's
            // modules need, is enabled as queried.
            let mut v11 = vk::PhysicalDeviceVulkan11Features::default();
            let mut v12 = vk::PhysicalDeviceVulkan12Features::default();
            let mut v13 = vk::PhysicalDeviceVulkan13Features::default();
            let mut reconverge = vk::PhysicalDeviceShaderMaximalReconvergenceFeaturesKHR::default();
            let mut derivatives = vk::PhysicalDeviceComputeShaderDerivativesFeaturesNV::default();
            let mut extensions = Vec::new();
            let mut features = vk::PhysicalDeviceFeatures2::default()
                .push_next(&mut v11)
                .push_next(&mut v12);
            if props.api_version >= vk::API_VERSION_1_3 {
                features = features.push_next(&mut v13);
            }
            if info.maximal_reconvergence {
                features = features.push_next(&mut reconverge);
                extensions.push(vk::KHR_SHADER_MAXIMAL_RECONVERGENCE_NAME.as_ptr());
            }
            if info.derivative_quads {
                features = features.push_next(&mut derivatives);
                extensions.push(vk::NV_COMPUTE_SHADER_DERIVATIVES_NAME.as_ptr());
            }
            if info.partitioned {
                extensions.push(vk::NV_SHADER_SUBGROUP_PARTITIONED_NAME.as_ptr());
            }
            instance.get_physical_device_features2(physical, &mut features);
            let device_info = vk::DeviceCreateInfo::default()
                .queue_create_infos(std::slice::from_ref(&queue_info))
                .enabled_extension_names(&extensions)
                .push_next(&mut features);
            let device = instance
                .create_device(physical, &device_info, None)
                .map_err(err("vkCreateDevice"))?;
            let queue = device.get_device_queue(queue_family, 0);
            let memory = instance.get_physical_device_memory_properties(physical);
            let timestamps = (
                families[queue_family as usize].timestamp_valid_bits,
                props.limits.timestamp_period,
            );
            Ok(Opened {
                device,
                queue,
                queue_family,
                memory,
                timestamps,
                info,
            })
        }
    }

    pub(crate) fn memory_type(
        &self,
        bits: u32,
        flags: vk::MemoryPropertyFlags,
    ) -> Result<u32, Error> {
        let types = &self.memory.memory_types[..self.memory.memory_type_count as usize];
        (0..types.len())
            .find(|&i| bits & (1 << i) != 0 && types[i].property_flags.contains(flags))
            .map(|i| i as u32)
            .ok_or_else(|| Error(format!("no memory type with {flags:?}")))
    }

    /// Runs `job` and returns each buffer's bytes afterwards, in the job's
    /// order, and how long each dispatch took on the device.
    pub fn dispatch(&self, job: &Job<'_>) -> Result<Dispatched, Error> {
        let mut objects = Objects::new(&self.device);
        let result = self.dispatch_with(job, &mut objects);
        objects.destroy();
        result
    }

    /// A buffer of `size` bytes in memory with `flags` (any memory where
    /// none has them), recorded in `o`.
    pub(crate) fn buffer(
        &self,
        o: &mut Objects<'_>,
        size: u64,
        usage: vk::BufferUsageFlags,
        flags: vk::MemoryPropertyFlags,
    ) -> Result<(vk::Buffer, vk::DeviceMemory), Error> {
        let d = &self.device;
        // SAFETY: valid create and allocate infos for this device; `o`
        // destroys both.
        unsafe {
            let buffer = d
                .create_buffer(
                    &vk::BufferCreateInfo::default().size(size).usage(usage),
                    None,
                )
                .map_err(err("vkCreateBuffer"))?;
            o.buffers.push(buffer);
            let req = d.get_buffer_memory_requirements(buffer);
            let kind = self.memory_type(req.memory_type_bits, flags).or_else(|e| {
                if flags.contains(vk::MemoryPropertyFlags::HOST_VISIBLE) {
                    Err(e)
                } else {
                    self.memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::empty())
                }
            })?;
            let memory = d
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default()
                        .allocation_size(req.size)
                        .memory_type_index(kind),
                    None,
                )
                .map_err(|e| Error(format!("vkAllocateMemory ({size} bytes): {e}")))?;
            o.memories.push(memory);
            d.bind_buffer_memory(buffer, memory, 0)
                .map_err(err("vkBindBufferMemory"))?;
            Ok((buffer, memory))
        }
    }

    /// Each buffer in device memory, with a host-visible staging buffer
    /// holding its bytes: (buffer, staging pointer, size, staging buffer).
    pub(crate) fn upload(
        &self,
        o: &mut Objects<'_>,
        list: &[JobBuffer<'_>],
    ) -> Result<Vec<(vk::Buffer, *mut u8, u64, vk::Buffer)>, Error> {
        let d = &self.device;
        let mut buffers = Vec::new();
        for b in list {
            let size = (b.data.len().div_ceil(4) * 4).max(16) as u64;
            let usage = if b.uniform {
                vk::BufferUsageFlags::UNIFORM_BUFFER
            } else {
                vk::BufferUsageFlags::STORAGE_BUFFER
            };
            let transfer = vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST;
            let (staging, staging_memory) = self.buffer(
                o,
                size,
                transfer,
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
            )?;
            let (buffer, _) = self.buffer(
                o,
                size,
                usage | transfer,
                vk::MemoryPropertyFlags::DEVICE_LOCAL,
            )?;
            // SAFETY: the staging memory is host-visible, `size` bytes, and
            // stays mapped until `o` frees it.
            let ptr = unsafe {
                let ptr = d
                    .map_memory(staging_memory, 0, size, vk::MemoryMapFlags::empty())
                    .map_err(err("vkMapMemory"))? as *mut u8;
                std::ptr::write_bytes(ptr, 0, size as usize);
                std::ptr::copy_nonoverlapping(b.data.as_ptr(), ptr, b.data.len());
                ptr
            };
            buffers.push((buffer, ptr, size, staging));
        }
        Ok(buffers)
    }

    /// The descriptor sets binding `list` (sets 0 to the highest used) for
    /// `stages`, and the pipeline layout.
    pub(crate) fn descriptors(
        &self,
        o: &mut Objects<'_>,
        list: &[JobBuffer<'_>],
        buffers: &[(vk::Buffer, *mut u8, u64, vk::Buffer)],
        stages: vk::ShaderStageFlags,
    ) -> Result<(vk::PipelineLayout, Vec<vk::DescriptorSet>), Error> {
        let d = &self.device;
        // SAFETY: valid create infos for this device; `o` destroys what is
        // made.
        unsafe {
            let sets = list.iter().map(|b| b.set + 1).max().unwrap_or(0);
            let mut layouts = Vec::new();
            for set in 0..sets {
                let bindings: Vec<vk::DescriptorSetLayoutBinding> = list
                    .iter()
                    .filter(|b| b.set == set)
                    .map(|b| {
                        vk::DescriptorSetLayoutBinding::default()
                            .binding(b.binding)
                            .descriptor_type(descriptor_type(b.uniform))
                            .descriptor_count(1)
                            .stage_flags(stages)
                    })
                    .collect();
                let layout = d
                    .create_descriptor_set_layout(
                        &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                        None,
                    )
                    .map_err(err("vkCreateDescriptorSetLayout"))?;
                o.set_layouts.push(layout);
                layouts.push(layout);
            }
            let pipeline_layout = d
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts),
                    None,
                )
                .map_err(err("vkCreatePipelineLayout"))?;
            o.pipeline_layout = Some(pipeline_layout);
            let storage = list.iter().filter(|b| !b.uniform).count() as u32;
            let uniform = list.len() as u32 - storage;
            let mut sizes = Vec::new();
            if storage > 0 {
                sizes.push(vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::STORAGE_BUFFER,
                    descriptor_count: storage,
                });
            }
            if uniform > 0 {
                sizes.push(vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::UNIFORM_BUFFER,
                    descriptor_count: uniform,
                });
            }
            let mut descriptor_sets = Vec::new();
            if sets > 0 && !sizes.is_empty() {
                let pool = d
                    .create_descriptor_pool(
                        &vk::DescriptorPoolCreateInfo::default()
                            .max_sets(sets)
                            .pool_sizes(&sizes),
                        None,
                    )
                    .map_err(err("vkCreateDescriptorPool"))?;
                o.pool = Some(pool);
                descriptor_sets = d
                    .allocate_descriptor_sets(
                        &vk::DescriptorSetAllocateInfo::default()
                            .descriptor_pool(pool)
                            .set_layouts(&layouts),
                    )
                    .map_err(err("vkAllocateDescriptorSets"))?;
                let infos: Vec<[vk::DescriptorBufferInfo; 1]> = buffers
                    .iter()
                    .zip(list)
                    .map(|(&(buffer, _, size, _), b)| {
                        // A storage buffer's range is its bytes rounded to
                        // words: the module reads its length from it.
                        let range = if b.uniform {
                            size
                        } else {
                            (b.data.len().div_ceil(4) * 4).max(4) as u64
                        };
                        [vk::DescriptorBufferInfo::default()
                            .buffer(buffer)
                            .offset(0)
                            .range(range)]
                    })
                    .collect();
                let writes: Vec<vk::WriteDescriptorSet> = list
                    .iter()
                    .zip(&infos)
                    .map(|(b, info)| {
                        vk::WriteDescriptorSet::default()
                            .dst_set(descriptor_sets[b.set as usize])
                            .dst_binding(b.binding)
                            .descriptor_type(descriptor_type(b.uniform))
                            .buffer_info(info)
                    })
                    .collect();
                d.update_descriptor_sets(&writes, &[]);
            }
            Ok((pipeline_layout, descriptor_sets))
        }
    }

    /// A command buffer being recorded, with its pool in `o`.
    pub(crate) fn begin(&self, o: &mut Objects<'_>) -> Result<vk::CommandBuffer, Error> {
        let d = &self.device;
        // SAFETY: valid create infos for this device; `o` destroys the pool.
        unsafe {
            let pool = d
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default().queue_family_index(self.queue_family),
                    None,
                )
                .map_err(err("vkCreateCommandPool"))?;
            o.command_pool = Some(pool);
            let cmd = d
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(pool)
                        .level(vk::CommandBufferLevel::PRIMARY)
                        .command_buffer_count(1),
                )
                .map_err(err("vkAllocateCommandBuffers"))?[0];
            d.begin_command_buffer(
                cmd,
                &vk::CommandBufferBeginInfo::default()
                    .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
            )
            .map_err(err("vkBeginCommandBuffer"))?;
            Ok(cmd)
        }
    }

    /// Records the copies of `buffers` back into their staging buffers,
    /// submits `cmd` and waits for it (at most [`FENCE_TIMEOUT`]); how long
    /// the submission took.
    pub(crate) fn finish(
        &self,
        o: &mut Objects<'_>,
        cmd: vk::CommandBuffer,
        buffers: &[(vk::Buffer, *mut u8, u64, vk::Buffer)],
        what: &str,
    ) -> Result<Duration, Error> {
        let d = &self.device;
        // SAFETY: `cmd` is being recorded on this device; the fence is made
        // here and destroyed by `o`.
        unsafe {
            for &(buffer, _, size, staging) in buffers {
                d.cmd_copy_buffer(
                    cmd,
                    buffer,
                    staging,
                    &[vk::BufferCopy::default().size(size)],
                );
            }
            barrier(
                d,
                cmd,
                (
                    vk::PipelineStageFlags::TRANSFER,
                    vk::AccessFlags::TRANSFER_WRITE,
                ),
                (vk::PipelineStageFlags::HOST, vk::AccessFlags::HOST_READ),
            );
            d.end_command_buffer(cmd)
                .map_err(err("vkEndCommandBuffer"))?;
            let fence = d
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .map_err(err("vkCreateFence"))?;
            o.fence = Some(fence);
            let started = Instant::now();
            d.queue_submit(
                self.queue,
                &[vk::SubmitInfo::default().command_buffers(&[cmd])],
                fence,
            )
            .map_err(err("vkQueueSubmit"))?;
            match d.wait_for_fences(&[fence], true, FENCE_TIMEOUT.as_nanos() as u64) {
                Ok(()) => Ok(started.elapsed()),
                Err(vk::Result::TIMEOUT) => Err(Error(format!(
                    "the {what} did not finish within {} s on {}",
                    FENCE_TIMEOUT.as_secs(),
                    self.info.name
                ))),
                Err(e) => Err(Error(format!("vkWaitForFences: {e}"))),
            }
        }
    }

    /// A query pool of `count` timestamps, reset in `cmd`.
    pub(crate) fn timestamps(
        &self,
        o: &mut Objects<'_>,
        cmd: vk::CommandBuffer,
        count: u32,
    ) -> Result<vk::QueryPool, Error> {
        let d = &self.device;
        // SAFETY: a valid create info; `o` destroys the pool.
        unsafe {
            let queries = d
                .create_query_pool(
                    &vk::QueryPoolCreateInfo::default()
                        .query_type(vk::QueryType::TIMESTAMP)
                        .query_count(count),
                    None,
                )
                .map_err(err("vkCreateQueryPool"))?;
            o.queries = Some(queries);
            d.cmd_reset_query_pool(cmd, queries, 0, count);
            Ok(queries)
        }
    }

    /// The time between each pair of timestamps, or `took` shared out where
    /// the queue has none.
    pub(crate) fn intervals(
        &self,
        queries: vk::QueryPool,
        pairs: u32,
        took: Duration,
    ) -> Vec<Duration> {
        let mut stamps = vec![0u64; 2 * pairs as usize];
        // SAFETY: the pool holds `2 * pairs` timestamps of a finished
        // submission.
        let read = unsafe {
            self.device.get_query_pool_results(
                queries,
                0,
                &mut stamps,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        };
        match read {
            Ok(()) if self.timestamps.0 > 0 => stamps
                .chunks_exact(2)
                .map(|p| {
                    let ticks = p[1].wrapping_sub(p[0]) & mask(self.timestamps.0);
                    Duration::from_nanos((ticks as f64 * f64::from(self.timestamps.1)) as u64)
                })
                .collect(),
            _ => vec![took / pairs.max(1); pairs as usize],
        }
    }

    fn dispatch_with(&self, job: &Job<'_>, o: &mut Objects<'_>) -> Result<Dispatched, Error> {
        if let Some(w) = job.subgroup_size {
            let (lo, hi) = self.info.subgroup_sizes;
            if !(lo..=hi).contains(&w) || (w != self.info.subgroup_size && !self.info.size_control)
            {
                return Err(Error(format!(
                    "{} cannot run subgroups of {w} lanes: it runs {}",
                    self.info.name,
                    if self.info.size_control {
                        format!("{lo} to {hi} (VK_EXT_subgroup_size_control)")
                    } else {
                        format!("{} only", self.info.subgroup_size)
                    }
                )));
            }
        }
        let d = &self.device;
        // SAFETY: every object is made from `d` with valid create infos and
        // recorded in `o`, which destroys them after the queue is idle;
        // mapped pointers are used within their allocation's size.
        unsafe {
            let buffers = self.upload(o, &job.buffers)?;
            let (pipeline_layout, descriptor_sets) =
                self.descriptors(o, &job.buffers, &buffers, vk::ShaderStageFlags::COMPUTE)?;
            let module = d
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(job.spirv), None)
                .map_err(err("vkCreateShaderModule"))?;
            o.module = Some(module);
            let entry = std::ffi::CString::new(job.entry)
                .map_err(|_| Error("an entry point name with a NUL byte".to_string()))?;
            let spec_words: Vec<u32> = job.spec_workgroup.map(|s| s.to_vec()).unwrap_or_default();
            let spec_entries: Vec<vk::SpecializationMapEntry> = (0..spec_words.len() as u32)
                .map(|i| vk::SpecializationMapEntry {
                    constant_id: i,
                    offset: i * 4,
                    size: 4,
                })
                .collect();
            let spec_bytes: Vec<u8> = spec_words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let spec = vk::SpecializationInfo::default()
                .map_entries(&spec_entries)
                .data(&spec_bytes);
            let mut required = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default()
                .required_subgroup_size(job.subgroup_size.unwrap_or(0));
            let mut flags = vk::PipelineShaderStageCreateFlags::empty();
            if job.full_subgroups && self.info.size_control {
                flags |= vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS;
            }
            let mut stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(&entry)
                .flags(flags);
            if !spec_words.is_empty() {
                stage = stage.specialization_info(&spec);
            }
            if job.subgroup_size.is_some() && self.info.size_control {
                stage = stage.push_next(&mut required);
            }
            let create = vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(pipeline_layout);
            let pipeline = d
                .create_compute_pipelines(vk::PipelineCache::null(), &[create], None)
                .map_err(|(_, e)| Error(format!("vkCreateComputePipelines: {e}")))?[0];
            o.pipeline = Some(pipeline);
            let cmd = self.begin(o)?;
            let runs = job.runs.max(1);
            let queries = self.timestamps(o, cmd, 2 * runs)?;
            for &(buffer, _, size, staging) in &buffers {
                d.cmd_copy_buffer(
                    cmd,
                    staging,
                    buffer,
                    &[vk::BufferCopy::default().size(size)],
                );
            }
            let shader_access = vk::AccessFlags::SHADER_READ
                | vk::AccessFlags::SHADER_WRITE
                | vk::AccessFlags::UNIFORM_READ;
            barrier(
                d,
                cmd,
                (
                    vk::PipelineStageFlags::TRANSFER,
                    vk::AccessFlags::TRANSFER_WRITE,
                ),
                (vk::PipelineStageFlags::COMPUTE_SHADER, shader_access),
            );
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline);
            if !descriptor_sets.is_empty() {
                d.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::COMPUTE,
                    pipeline_layout,
                    0,
                    &descriptor_sets,
                    &[],
                );
            }
            let [x, y, z] = job.groups;
            for run in 0..runs {
                d.cmd_write_timestamp(cmd, vk::PipelineStageFlags::TOP_OF_PIPE, queries, 2 * run);
                d.cmd_dispatch(cmd, x, y, z);
                d.cmd_write_timestamp(
                    cmd,
                    vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                    queries,
                    2 * run + 1,
                );
                barrier(
                    d,
                    cmd,
                    (
                        vk::PipelineStageFlags::COMPUTE_SHADER,
                        vk::AccessFlags::SHADER_WRITE,
                    ),
                    (vk::PipelineStageFlags::COMPUTE_SHADER, shader_access),
                );
            }
            barrier(
                d,
                cmd,
                (
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::AccessFlags::SHADER_WRITE,
                ),
                (
                    vk::PipelineStageFlags::TRANSFER,
                    vk::AccessFlags::TRANSFER_READ,
                ),
            );
            let took = self.finish(o, cmd, &buffers, "dispatch")?;
            let buffers = buffers
                .iter()
                .zip(&job.buffers)
                .map(|(&(_, ptr, _, _), b)| std::slice::from_raw_parts(ptr, b.data.len()).to_vec())
                .collect();
            let times = self.intervals(queries, runs, took);
            Ok(Dispatched { buffers, times })
        }
    }
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device").field("info", &self.info).finish()
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: every object made from the device is destroyed by the
        // dispatch that made it.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

fn descriptor_type(uniform: bool) -> vk::DescriptorType {
    if uniform {
        vk::DescriptorType::UNIFORM_BUFFER
    } else {
        vk::DescriptorType::STORAGE_BUFFER
    }
}

/// One dispatch of a module.
#[derive(Clone, Debug)]
pub struct Job<'a> {
    /// The module's words.
    pub spirv: &'a [u32],
    /// The entry point's name.
    pub entry: &'a str,
    /// Every buffer the module declares.
    pub buffers: Vec<JobBuffer<'a>>,
    /// Workgroups in x, y and z.
    pub groups: [u32; 3],
    /// The subgroup size to require, or the device's own.
    pub subgroup_size: Option<u32>,
    /// Ask for full subgroups (the workgroup's x size is a multiple of the
    /// subgroup size).
    pub full_subgroups: bool,
    /// The workgroup size for specialization constants 0, 1 and 2.
    pub spec_workgroup: Option<[u32; 3]>,
    /// How many times to dispatch, one after the other (for timing: a run
    /// reads what the one before wrote); 0 counts as 1.
    pub runs: u32,
}

/// What [`Device::dispatch`] gives back.
#[derive(Clone, Debug)]
pub struct Dispatched {
    /// Each buffer's bytes after the last run, in the job's order.
    pub buffers: Vec<Vec<u8>>,
    /// Each run's time on the device, from its timestamps (or the whole
    /// submission's, shared out, where the queue has none).
    pub times: Vec<Duration>,
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// A pipeline barrier over all memory from `src` to `dst`.
///
/// # Safety
/// `cmd` is a command buffer of `d` being recorded.
pub(crate) unsafe fn barrier(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    src: (vk::PipelineStageFlags, vk::AccessFlags),
    dst: (vk::PipelineStageFlags, vk::AccessFlags),
) {
    let b = vk::MemoryBarrier::default()
        .src_access_mask(src.1)
        .dst_access_mask(dst.1);
    // SAFETY: as the caller promises.
    unsafe {
        d.cmd_pipeline_barrier(
            cmd,
            src.0,
            dst.0,
            vk::DependencyFlags::empty(),
            &[b],
            &[],
            &[],
        );
    }
}

/// One buffer of a [`Job`], bound at its descriptor set and binding.
#[derive(Clone, Debug)]
pub struct JobBuffer<'a> {
    /// The descriptor set.
    pub set: u32,
    /// The binding within the set.
    pub binding: u32,
    /// A uniform buffer rather than a storage buffer.
    pub uniform: bool,
    /// The buffer's bytes before the dispatch.
    pub data: &'a [u8],
}

/// The Vulkan objects of one dispatch, destroyed together.
pub(crate) struct Objects<'d> {
    pub device: &'d ash::Device,
    pub buffers: Vec<vk::Buffer>,
    pub memories: Vec<vk::DeviceMemory>,
    pub set_layouts: Vec<vk::DescriptorSetLayout>,
    pub pipeline_layout: Option<vk::PipelineLayout>,
    pub pool: Option<vk::DescriptorPool>,
    pub module: Option<vk::ShaderModule>,
    pub pipeline: Option<vk::Pipeline>,
    pub command_pool: Option<vk::CommandPool>,
    pub fence: Option<vk::Fence>,
    pub queries: Option<vk::QueryPool>,
    pub images: Vec<vk::Image>,
    pub views: Vec<vk::ImageView>,
    pub modules: Vec<vk::ShaderModule>,
}

impl<'d> Objects<'d> {
    pub(crate) fn new(device: &'d ash::Device) -> Objects<'d> {
        Objects {
            device,
            buffers: Vec::new(),
            memories: Vec::new(),
            set_layouts: Vec::new(),
            pipeline_layout: None,
            pool: None,
            module: None,
            pipeline: None,
            command_pool: None,
            fence: None,
            queries: None,
            images: Vec::new(),
            views: Vec::new(),
            modules: Vec::new(),
        }
    }

    pub(crate) fn destroy(self) {
        let d = self.device;
        // SAFETY: the objects were made from `d`; waiting for the device
        // first means none is in use.
        unsafe {
            let _ = d.device_wait_idle();
            if let Some(f) = self.fence {
                d.destroy_fence(f, None);
            }
            if let Some(q) = self.queries {
                d.destroy_query_pool(q, None);
            }
            if let Some(p) = self.command_pool {
                d.destroy_command_pool(p, None);
            }
            if let Some(p) = self.pipeline {
                d.destroy_pipeline(p, None);
            }
            if let Some(m) = self.module {
                d.destroy_shader_module(m, None);
            }
            for m in self.modules {
                d.destroy_shader_module(m, None);
            }
            for v in self.views {
                d.destroy_image_view(v, None);
            }
            for i in self.images {
                d.destroy_image(i, None);
            }
            if let Some(p) = self.pool {
                d.destroy_descriptor_pool(p, None);
            }
            if let Some(l) = self.pipeline_layout {
                d.destroy_pipeline_layout(l, None);
            }
            for l in self.set_layouts {
                d.destroy_descriptor_set_layout(l, None);
            }
            for b in self.buffers {
                d.destroy_buffer(b, None);
            }
            for m in self.memories {
                d.free_memory(m, None);
            }
        }
    }
}
