//! SPIR-V from Lockstep's IR: a compute, vertex or pixel shader and its
//! wave operations as a Vulkan module (SPIR-V 1.5, `GroupNonUniform*`
//! operations).
//!
//! The module keeps the engine's semantics wherever SPIR-V leaves a choice
//! to the compiler:
//!
//! - **Memory is words.** Every buffer is a `StorageBuffer` of `uint`
//!   words (constant buffers a `Uniform` array of `uint4`), read and written
//!   at the byte offsets of Lockstep's own layout ([`lockstep_ir::layout`]).
//!   A buffer therefore holds exactly the bytes the CPU engine reads, and
//!   out-of-bounds reads give 0 and writes are dropped, per scalar, as on
//!   D3D12. 16-bit stores update their half of the word atomically.
//! - **Arithmetic is defined.** Integer division by zero, `INT_MIN / -1`,
//!   shift amounts past the width and float-to-integer conversions out of
//!   range give the values of `docs/semantics.md`, not SPIR-V's undefined
//!   ones. `mad` is not fused.
//! - **Wave operations map one to one** onto `GroupNonUniform*`: reductions
//!   and exclusive scans (`WavePrefixSum` is an `ExclusiveScan`), ballots,
//!   broadcasts, shuffles and quad swaps. `WaveMatch` and
//!   `WaveMultiPrefix*` use `SPV_NV_shader_subgroup_partitioned`.
//!
//! Values are handled as lists of scalar components in the IR's flattening
//! order (see [`lockstep_ir::TypeArena::flatten`]); composite SPIR-V types
//! are used only for variables.

#![warn(missing_docs)]

mod builtin;
mod control;
mod expr;
mod memory;
mod module;
mod stage;
mod wave;

use lockstep_ir as ir;

/// What the module may use and how it is launched.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The subgroup size the module will run at. A `[numWaves(N)]` group
    /// has `N` times as many invocations; without a size, its workgroup size
    /// is a specialization constant (ids 0, 1, 2 for x, y, z), `N·32` by
    /// default.
    pub wave_size: Option<u32>,
    /// Declare `SPV_KHR_maximal_reconvergence` and its execution mode, so
    /// that lanes reconverge exactly where the HLSL source says; only for
    /// devices with `VK_KHR_shader_maximal_reconvergence`.
    pub maximal_reconvergence: bool,
    /// The descriptor binding of each resource, by [`ir::ResourceId`]; a
    /// resource missing here takes the default of [`bindings`].
    pub bindings: Vec<(ir::ResourceId, VulkanBinding)>,
    /// Loop iterations one invocation may run, over all its loops, before
    /// every loop it is in exits and the module reports it in its status
    /// buffer ([`Spirv::status`]); `None` for no limit.
    pub step_budget: Option<u32>,
    /// For vertex and pixel shaders: the values passed between the stages
    /// (semantic in upper case, index), each at the location of its place
    /// here; empty for each stage's own order of them.
    pub varyings: Vec<(String, u32)>,
    /// For a vertex shader: the vertex attributes' semantics, each at the
    /// location of its place here; empty for the shader's own order.
    pub attributes: Vec<String>,
    /// Where the status buffer goes, instead of the lowest free binding of
    /// set 0 (for the two modules of a draw, which share it).
    pub status_binding: Option<VulkanBinding>,
    /// The status buffer names this module's loops from `first_loop + 1`.
    pub first_loop: u32,
    /// Where the texture sizes go, instead of the lowest free binding of
    /// set 0 (for the two modules of a draw, which each have their own).
    pub dims_binding: Option<VulkanBinding>,
}

/// Where a resource is bound: the descriptor set and the binding number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VulkanBinding {
    /// The descriptor set.
    pub set: u32,
    /// The binding number within the set.
    pub binding: u32,
}

/// How the module reaches one resource of the shader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceBinding {
    /// The resource in the IR.
    pub resource: ir::ResourceId,
    /// The resource's name (`buf.counter` for a hidden counter).
    pub name: String,
    /// Its descriptor set and binding.
    pub binding: VulkanBinding,
    /// Whether it is a uniform buffer (constant buffers) rather than a
    /// storage buffer.
    pub uniform: bool,
}

/// A SPIR-V module and what a runner needs to bind it.
#[derive(Clone, Debug)]
pub struct Spirv {
    /// The module's words.
    pub words: Vec<u32>,
    /// Every resource the module declares, in the IR's order.
    pub bindings: Vec<ResourceBinding>,
    /// Whether the module uses `SPV_NV_shader_subgroup_partitioned`
    /// (`WaveMatch`, `WaveMultiPrefix*`).
    pub partitioned: bool,
    /// Whether the module's quads are 2×2 blocks of a compute group
    /// (`SPV_NV_compute_shader_derivatives`' quad derivative groups).
    pub derivative_quads: bool,
    /// The workgroup size, or `None` where it is a specialization constant
    /// (a `[numWaves]` shader emitted without a wave size).
    pub workgroup_size: Option<[u32; 3]>,
    /// Where the texture sizes go, when the shader has textures.
    pub dims: Option<DimsBinding>,
    /// With a step budget: the storage buffer of two `uint`s, zero before
    /// the dispatch, that the module sets when an invocation runs past it:
    /// 1, then the loop's index in `loops` plus one.
    pub status: Option<StatusBinding>,
}

/// The status buffer of a module with a step budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusBinding {
    /// Its descriptor set and binding.
    pub binding: VulkanBinding,
    /// The source span of each loop, in the order the status names them.
    pub loops: Vec<ir::Span>,
}

/// The storage buffer of texture sizes: for each texture, in order, four
/// `uint`s: width, height, depth (3D) or slices (arrays), and 0; 1 for a
/// dimension the texture does not have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DimsBinding {
    /// Its descriptor set and binding.
    pub binding: VulkanBinding,
    /// The textures, in the order of their sizes.
    pub textures: Vec<ir::ResourceId>,
}

impl Spirv {
    /// The module as bytes, little-endian, as a `.spv` file holds it.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

/// Why a module could not be emitted: a feature the SPIR-V back end does not
/// have, at its place in the source where one is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// What is missing, in words.
    pub message: String,
    /// The source construct, where one is known.
    pub span: Option<ir::Span>,
}

impl Error {
    pub(crate) fn new(message: impl Into<String>, span: Option<ir::Span>) -> Error {
        Error {
            message: message.into(),
            span,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// The bindings resources take without [`Options::bindings`]: the
/// shader's `[[vk::binding(binding, set)]]` where it gives one, else set = the
/// register space and binding = the register number (as DXC does) where
/// that number is still free in the set; a resource whose number is taken
/// (`t0` next to `u0`), and a hidden counter, take the lowest number its
/// set leaves free, in resource order. Two resources given the same
/// binding in `given` are an error that names both.
pub fn bindings(
    module: &ir::Module,
    given: &[(ir::ResourceId, VulkanBinding)],
) -> Result<Vec<VulkanBinding>, Error> {
    let mut out: Vec<Option<VulkanBinding>> = vec![None; module.resources.len()];
    for &(id, b) in given {
        if let Some(j) = out.iter().position(|x| *x == Some(b)) {
            let (first, second) = (&module.resources[j], module.resource(id));
            return Err(Error::new(
                format!(
                    "'{}' and '{}' are both bound to binding {} of descriptor set {}",
                    first.name, second.name, b.binding, b.set
                ),
                Some(second.span),
            ));
        }
        if let Some(slot) = out.get_mut(id.index()) {
            *slot = Some(b);
        }
    }
    // What `[[vk::binding]]` asks for, where the caller gave nothing.
    for (i, r) in module.resources.iter().enumerate() {
        if let Some((binding, set)) = r.vk_binding
            && out[i].is_none()
        {
            let wanted = VulkanBinding { set, binding };
            if let Some(j) = out.iter().position(|x| *x == Some(wanted)) {
                return Err(Error::new(
                    format!(
                        "'{}' and '{}' are both bound to binding {binding} of descriptor set {set}",
                        module.resources[j].name, r.name
                    ),
                    Some(r.span),
                ));
            }
            out[i] = Some(wanted);
        }
    }
    let set_of = |r: &ir::Resource| {
        r.counter_of
            .and_then(|b| module.resources.get(b.index()))
            .map_or(r.space, |b| b.space)
    };
    for (i, r) in module.resources.iter().enumerate() {
        let wanted = VulkanBinding {
            set: r.space,
            binding: r.register,
        };
        if out[i].is_none() && r.counter_of.is_none() && !out.contains(&Some(wanted)) {
            out[i] = Some(wanted);
        }
    }
    for (i, r) in module.resources.iter().enumerate() {
        if out[i].is_some() {
            continue;
        }
        let set = set_of(r);
        let binding = (0..)
            .find(|&n| !out.contains(&Some(VulkanBinding { set, binding: n })))
            .unwrap_or(0);
        out[i] = Some(VulkanBinding { set, binding });
    }
    Ok(out.into_iter().flatten().collect())
}

/// Emits the module's compute entry point as SPIR-V.
pub fn emit(module: &ir::Module, options: &Options) -> Result<Spirv, Error> {
    module::Emitter::run(module, options)
}
