//! The kernel benchmark suite of Lockstep, and its comparison with Mesa's
//! lavapipe, a CPU Vulkan driver.
//!
//! - [`suite`]: the kernels of `benches/kernels/` with their pipelines and
//!   result checks, at any size; the Criterion benchmark `kernels` runs them
//!   at full size.
//! - [`vulkan`]: a small compute runner on Vulkan (ash), and [`spirv`], the
//!   descriptor bindings of a SPIR-V module.
//! - [`probe`]: what a SPIR-V compiler made of the wave prefix intrinsics,
//!   measured against Lockstep.
//! - [`report`]: medians and the comparison table.
//! - [`draws`]: one draw on Lockstep and on the driver, images compared
//!   and times taken (`lockstep-draw-peer`).
//!
//! `scripts/peer.sh` compiles the kernels with glslang and runs the
//! `lockstep-peer` binary; `docs/performance.md` has the figures.

#![warn(missing_docs)]

pub mod draws;
pub mod probe;
pub mod report;
pub mod spirv;
pub mod suite;
pub mod vulkan;
