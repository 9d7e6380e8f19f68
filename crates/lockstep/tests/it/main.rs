//! Integration tests of the whole tool: HLSL in, buffers out, checked
//! against expectations derived independently of the engine (the
//! specification's tables, hand-computed values, and the reference model in
//! lockstep-wave).

mod batch;
mod blocks;
mod builtins;
mod check;
mod control_flow;
mod coverage;
mod draw;
mod errors;
mod examples;
mod formats;
mod harness;
mod intrinsics;
mod language;
mod library;
mod memory;
mod native;
mod offload;
mod proof;
mod resource_arrays;
mod sampling;
mod sm65;
mod spirv;
mod textures;
mod trace;
mod types;
mod vulkan;
mod wave_size;
